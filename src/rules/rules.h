/* Rule families. Each file exports a NULL-terminated table of (op, rule). */
#ifndef REALIFY_RULES_H
#define REALIFY_RULES_H

#include "../lower.h"

typedef struct rf_rule_entry {
    const char *op;
    rf_rule_fn fn;
} rf_rule_entry;

extern const rf_rule_entry rf_rules_construct[];
extern const rf_rule_entry rf_rules_arith[];
extern const rf_rule_entry rf_rules_shape[];
extern const rf_rule_entry rf_rules_reduce[];
extern const rf_rule_entry rf_rules_convert[];
extern const rf_rule_entry rf_rules_creation[];
extern const rf_rule_entry rf_rules_linalg[];

#endif
