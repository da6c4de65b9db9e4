/* The IR verifier and the limits it and the parser enforce. */
#ifndef REALIFY_IR_VERIFY_H
#define REALIFY_IR_VERIFY_H

#include "ir/ir.h"

/* Deepest nesting of [..] lists in an argument (the parser recurses per level). */
#define RF_MAX_NEST 100
/* Highest tensor rank (the engine and builders size stack arrays by it). */
#define RF_MAX_RANK 64
/* Largest element count of a tensor type: the product of its nonzero static
 * sizes. Keeps every partial product, times 16 bytes, inside int64. */
#define RF_MAX_NUMEL ((int64_t)1 << 56)
/* Largest inline "data" constant the parser accepts, in bytes. */
#define RF_MAX_DATA_BYTES ((size_t)1 << 28)

#define RF_SYMBOLIC_RESULT (-2)

/* What the verifier knows of an op that has a lowering rule. */
typedef struct rf_op_info {
    const char *op;
    const char *required; /* space-separated required tensor args; "x[]" is a list, "x#" a tensor or a number */
    int nresults;         /* tensor results; -1: a list of any length; RF_SYMBOLIC_RESULT: one symbolic int */
} rf_op_info;

/* The row for `op`, or NULL. */
const rf_op_info *rf_op_info_of(const char *op);

/* The rank a node's single result must have given its operands' ranks, or -1 where not known
 * (src/ir/verify_ranks.c). */
int rf_expected_rank(const rf_node *n);

#endif
