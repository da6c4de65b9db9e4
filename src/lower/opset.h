/* The declared real op set: every real aten op a rule may emit, with the
 * deployment targets that accept it (RF_TARGET_* bits of include/realify.h). */
#ifndef REALIFY_OPSET_H
#define REALIFY_OPSET_H

#include <stddef.h>

#include "realify.h"

typedef struct rf_opset_entry {
    const char *op;    /* "aten.<name>.<overload>" */
    unsigned targets;  /* RF_TARGET_* bits */
} rf_opset_entry;

/* The entry for `op`, or NULL when rules must not emit it. */
const rf_opset_entry *rf_opset_find(const char *op);

#endif
