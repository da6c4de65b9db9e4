/* Complex matrices in real arithmetic, shared by the linalg solve family's rules (linalg_solve.c,
 * linalg_export.c): pairs of real tensors, the 2n real embedding, and the factorisations unrolled over a
 * static matrix size (linalg_cx.c). */
#ifndef REALIFY_RULES_LINALG_CX_H
#define REALIFY_RULES_LINALG_CX_H

#include "cxmath/cxmath.h"
#include "lower/lower.h"

/* Factorisations unrolled over the matrix size refuse sizes above this. */
#define RF_LX_MAX_UNROLL 64

/* A complex tensor with both parts present. */
typedef struct cm {
    rf_value *re, *im;
} cm;

static inline cm cm_of(rf_cx z, rf_lowering *L) {
    cm r = {z.re.v, rf_cx_im_value(L, z)};
    return r;
}
static inline rf_cx cx_of(cm a) { return rf_cx_values(a.re, a.im); }
static inline cm cm_in(rf_lowering *L, const rf_node *n, const char *name, rf_dtype w) {
    return cm_of(rf_in_cx(L, n, name, w), L);
}
static inline rf_status set_cm(rf_lowering *L, const rf_value *orig, cm a) {
    RF_CHECK(L);
    rf_set_cx(L, orig, cx_of(a));
    return RF_OK;
}


/* Parts-wise ops (broadcasting as the real ops do). */
cm rf_lx_cm_slice(rf_lowering *L, cm a, int64_t dim, int64_t s, int64_t e);
cm rf_lx_cm_tr(rf_lowering *L, cm a);
cm rf_lx_cm_conj(rf_lowering *L, cm a);
cm rf_lx_cm_unsq(rf_lowering *L, cm a, int64_t dim);
cm rf_lx_cm_sq(rf_lowering *L, cm a, int64_t dim);
cm rf_lx_cm_cat(rf_lowering *L, size_t k, const cm *xs, int64_t dim);
/* where(cond, a, b); a b with NULL parts is zero. */
cm rf_lx_cm_where(rf_lowering *L, rf_value *cond, cm a, cm b);
cm rf_lx_cm_mul(rf_lowering *L, cm a, cm b);
cm rf_lx_cm_sub(rf_lowering *L, cm a, cm b);
cm rf_lx_cm_matmul(rf_lowering *L, cm a, cm b);

/* Shape checks, made before building so that no builder meets a bad shape; each fails L naming the node. */
/* The static trailing sizes of a matrix operand. */
int rf_lx_mat_size(rf_lowering *L, const rf_node *n, const rf_value *v, int64_t *rows, int64_t *cols);
int rf_lx_is_square(rf_lowering *L, const rf_node *n, cm a, int64_t *size);
int rf_lx_rank_at_least(rf_lowering *L, const rf_node *n, const rf_value *v, int min_rank, const char *what);
/* LAPACK pivots (..., k) with a static k. */
int rf_lx_pivots_ok(rf_lowering *L, const rf_node *n, const rf_value *p, int64_t k);
/* k <= RF_LX_MAX_UNROLL. */
int rf_lx_unroll_ok(rf_lowering *L, const rf_node *n, int64_t k);

/* 0..len-1 as an int64 constant of shape (len,) (shape 0), (len, 1) (1) or (1, len) (2). */
rf_value *rf_lx_iota(rf_lowering *L, int64_t len, int shape);
/* idx <c> k, c one of "eq", "ne", "lt", "le", "gt", "ge". */
rf_value *rf_lx_cmp_k(rf_lowering *L, const char *c, rf_value *idx, int64_t k);
/* The sum of an EMPTY matrix over its two trailing dims: exact zeros of the batch shape. */
rf_value *rf_lx_batch_zero(rf_lowering *L, rf_value *empty);

/* The embedding [[X, -Y], [Y, X]] of X + iY; batch dims of a and b broadcast followed by `tail`. */
rf_value *rf_lx_embed(rf_lowering *L, cm a);
rf_value rf_lx_bcast_like(rf_lowering *L, const rf_value *a, const rf_value *b, int ntail, const rf_dim *tail);
/* X with A X = B, A (..., n, n), B (..., n, k), by one real solve_ex of the embedding; *info (when info is
 * not NULL) is that solve's info: nonzero iff A is singular, an index into the 2n embedding. */
cm rf_lx_emb_solve_info(rf_lowering *L, cm a, cm b, int64_t n, rf_value **info);
cm rf_lx_emb_solve(rf_lowering *L, cm a, cm b, int64_t n);
/* op(A) X = B with op: 0 A, 1 A^T, 2 A^H, 3 conj(A). */
cm rf_lx_emb_solve_op_info(rf_lowering *L, cm a, cm b, int64_t n, int op, rf_value **info);
cm rf_lx_emb_solve_op(rf_lowering *L, cm a, cm b, int64_t n, int op);
/* A^-1 by the real inverse of the embedding, and that inverse's info. */
cm rf_lx_emb_inv(rf_lowering *L, cm a, int64_t n, rf_value **info);
/* The lower (upper) triangle from diagonal offset `diag`; `unit` puts ones on the diagonal. */
cm rf_lx_triangle(rf_lowering *L, cm a, int64_t rows, int64_t cols, int upper, int64_t diag, int unit);

typedef struct lu_res {
    cm lu;
    rf_value *pivots; /* i32 (..., k), 1-based as LAPACK */
    rf_value *info;   /* i32 (...): first zero pivot, 1-based, or 0 */
    rf_value *sign;   /* working dtype (..., 1): the permutation's sign */
    rf_value *perm;   /* i64 (..., m): row i of L U is row perm[i] of A */
} lu_res;

/* LU with partial pivoting by |re| + |im| (LAPACK's izamax), unrolled over min(m, c) columns. */
void rf_lx_lu_factor(rf_lowering *L, cm a, int64_t m, int64_t c, rf_dtype w, lu_res *r);
/* P with A = P L U from perm (..., m); perm from LAPACK pivots (..., k) (`empty`: the LU, for k == 0). */
cm rf_lx_perm_matrix(rf_lowering *L, rf_value *perm, int64_t m, rf_dtype w);
rf_value *rf_lx_perm_of_pivots(rf_lowering *L, rf_value *pivots, int64_t m, int64_t k, rf_value *empty);
/* L (m x k, unit diagonal) and U (k x c) of a packed LU. */
void rf_lx_unpack_lu(rf_lowering *L, cm lu, int64_t m, int64_t c, cm *lo, cm *up);
/* A = P L U of a square LU factorisation and its LAPACK pivots (lu_solve rebuilds the matrix to solve). */
cm rf_lx_lu_rebuild(rf_lowering *L, cm lu, rf_value *pivots, int64_t size, rf_dtype w);

/* Cholesky of Hermitian A from its lower triangle, column by column; info: first non-positive pivot, 1-based. */
cm rf_lx_chol_lower(rf_lowering *L, cm a, int64_t n, rf_value **info);
/* The factor torch returns (upper: U = L'^H of A^H), refusing sizes above the cap. */
cm rf_lx_chol(rf_lowering *L, const rf_node *n, cm a, int upper, rf_value **info);
/* L L^H (or U^H U) of the lower (upper) triangle of a factor. */
cm rf_lx_from_factor(rf_lowering *L, const rf_node *n, cm f, int upper, int64_t *size);

#endif
