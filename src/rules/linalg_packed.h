/* Complex matrix products on the packed layout (linalg.c), for the product rules that accumulate too. */
#ifndef REALIFY_LINALG_PACKED_H
#define REALIFY_LINALG_PACKED_H

#include "lower/lower.h"

/* The real product op to emit and its argument names (aten.mm.default: self, mat2). */
typedef struct rf_packed_op {
    const char *op;
    const char *a_name;
    const char *b_name;
} rf_packed_op;

/* n's arguments a_arg @ b_arg as one real `op` on the packed layout: the packed [..., M, N, 2] result, or NULL
 * (nothing emitted that anything reads) where the form does not apply: a real or known-real right operand,
 * vectors, a symbolic column count, parts of another dtype. */
rf_value *rf_packed_matrix_product(rf_lowering *L, const rf_node *n, const char *a_arg, const char *b_arg,
                                   const rf_packed_op *op);

/* a @ b (torch.matmul, batch dims broadcast) of complex parts as one real matmul on the packed layout: the packed
 * [..., N, 2] result, or NULL (nothing emitted) where the form does not apply: b real, known real or a vector, a
 * symbolic column count. */
rf_value *rf_packed_matmul(rf_lowering *L, rf_cx a, rf_cx b);
/* a @ b as torch.matmul of complex operands: the packed product where it applies, else products of the parts (two
 * when one operand is known real, one when both are). */
rf_cx rf_cx_matmul(rf_lowering *L, rf_cx a, rf_cx b);

#endif
