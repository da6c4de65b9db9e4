/* The rule table: op name -> rule, gathered from the family tables. */
#include <string.h>

#include "rules/rules.h"

static const rf_rule_entry *const families[] = {
    rf_rules_construct, rf_rules_arith,    rf_rules_shape,  rf_rules_reduce,
    rf_rules_convert,   rf_rules_creation, rf_rules_linalg,
    rf_rules_fft,       rf_rules_fft_ops,  rf_rules_fft_stft,
    rf_rules_unary,     rf_rules_power,    rf_rules_compare, rf_rules_products,
    rf_rules_movement,  rf_rules_factory,
};

#define NFAMILIES (sizeof families / sizeof families[0])

static const char *const *const real_too_lists[] = {rf_fft_real_too, rf_convert_real_too};

int rf_rule_real_too(const char *op) {
    for (size_t l = 0; l < sizeof real_too_lists / sizeof real_too_lists[0]; l++)
        for (const char *const *e = real_too_lists[l]; *e; e++)
            if (strcmp(*e, op) == 0) return 1;
    return 0;
}

rf_rule_fn rf_rule_lookup(const char *op) {
    for (size_t f = 0; f < NFAMILIES; f++)
        for (const rf_rule_entry *e = families[f]; e->op; e++)
            if (strcmp(e->op, op) == 0) return e->fn;
    return NULL;
}

size_t rf_rule_count(void) {
    size_t n = 0;
    for (size_t f = 0; f < NFAMILIES; f++)
        for (const rf_rule_entry *e = families[f]; e->op; e++) n++;
    return n;
}

const char *rf_rule_name(size_t i) {
    for (size_t f = 0; f < NFAMILIES; f++)
        for (const rf_rule_entry *e = families[f]; e->op; e++)
            if (i-- == 0) return e->op;
    return NULL;
}
