/* Complex matrices in real arithmetic, the vocabulary of every linalg rule (linalg_solve.c, linalg_export.c,
 * linalg_spectral.c, linalg_qr.c): a complex matrix is the core's rf_cx with both parts present as tensors
 * (rf_lx_dense), so the core's complex arithmetic (rf_cx_mul, rf_cx_sub, rf_cx_div, rf_cx_conj, cxmath.h)
 * applies to it unchanged. This layer adds the matrix-shaped operations: parts-wise views, complex matrix
 * products, the 2n real embedding, shape checks with one unrolling cap, and the factorisations unrolled over a
 * static matrix size (linalg_cx.c, linalg_factor.c). */
#ifndef REALIFY_RULES_LINALG_CX_H
#define REALIFY_RULES_LINALG_CX_H

#include "cxmath/cxmath.h"
#include "lower/lower.h"

/* The graph grows by a step per column wherever a rule unrolls over a matrix size, so sizes above a cap are
 * refused: the factorisations whose factors torch returns (LU, Cholesky, det/slogdet: full-matrix work per
 * step) above RF_LX_MAX_UNROLL (rf_lx_unroll_ok), the spectral rules (eigenvector picking, QR's reflectors,
 * and the embeddings of eigvalsh and svdvals, which torch traces with vectors) above RF_LX_MAX_SPECTRAL
 * (rf_lx_spectral_ok). */
#define RF_LX_MAX_UNROLL 64
#define RF_LX_MAX_SPECTRAL 1024

/* z with its imaginary part as a tensor (zeros like the real part when known zero). */
static inline rf_cx rf_lx_dense(rf_lowering *L, rf_cx z) { return rf_cx_values(z.re.v, rf_cx_im_value(L, z)); }
/* A complex (or real) tensor argument as a dense complex matrix. */
static inline rf_cx rf_lx_in(rf_lowering *L, const rf_node *n, const char *name, rf_dtype w) {
    return rf_lx_dense(L, rf_in_cx(L, n, name, w));
}
/* rf_lx_in that fails, naming the argument, when it is a scalar. */
rf_cx rf_lx_in_tensor(rf_lowering *L, const rf_node *n, const char *name, rf_dtype w);
static inline rf_status rf_lx_set(rf_lowering *L, const rf_value *orig, rf_cx a) {
    RF_CHECK(L);
    rf_set_cx(L, orig, a);
    return RF_OK;
}

/* Parts-wise ops (broadcasting as the real ops do). */
rf_cx rf_lx_slice(rf_lowering *L, rf_cx a, int64_t dim, int64_t s, int64_t e);
/* Rows [r0, r1) and columns [c0, c1). */
rf_cx rf_lx_block(rf_lowering *L, rf_cx a, int64_t r0, int64_t r1, int64_t c0, int64_t c1);
rf_cx rf_lx_tr(rf_lowering *L, rf_cx a);
/* a^H */
rf_cx rf_lx_adj(rf_lowering *L, rf_cx a);
rf_cx rf_lx_unsq(rf_lowering *L, rf_cx a, int64_t dim);
rf_cx rf_lx_sq(rf_lowering *L, rf_cx a, int64_t dim);
rf_cx rf_lx_cat(rf_lowering *L, size_t k, const rf_cx *xs, int64_t dim);
/* where(cond, a, b); parts of b that are NULL are zero. */
rf_cx rf_lx_where(rf_lowering *L, rf_value *cond, rf_cx a, rf_cx b);
/* a @ b and a^H @ b */
rf_cx rf_lx_matmul(rf_lowering *L, rf_cx a, rf_cx b);
rf_cx rf_lx_hmatmul(rf_lowering *L, rf_cx a, rf_cx b);
/* Sum over the rows of |x|^2: (..., cols). */
rf_value *rf_lx_col_norm2(rf_lowering *L, rf_cx x);

/* Shape checks, made before building so that no builder meets a bad shape; each fails L naming the node. */
/* The static trailing sizes of a matrix operand. */
int rf_lx_mat_size(rf_lowering *L, const rf_node *n, const rf_value *v, int64_t *rows, int64_t *cols);
int rf_lx_is_square(rf_lowering *L, const rf_node *n, rf_cx a, int64_t *size);
int rf_lx_rank_at_least(rf_lowering *L, const rf_node *n, const rf_value *v, int min_rank, const char *what);
/* LAPACK pivots (..., k) with a static k. */
int rf_lx_pivots_ok(rf_lowering *L, const rf_node *n, const rf_value *p, int64_t k);
/* k <= RF_LX_MAX_UNROLL. */
int rf_lx_unroll_ok(rf_lowering *L, const rf_node *n, int64_t k);
/* The static matrix dims of a spectral rule's operand (rank <= RF_MAX_RANK - 2, dims <= RF_LX_MAX_SPECTRAL). */
int rf_lx_spectral_ok(rf_lowering *L, const rf_node *n, const rf_value *v, int64_t *rows, int64_t *cols);
/* The prologue of a spectral rule: `nouts` results, the tensor argument `arg` in the working dtype and its
 * static dims (rf_lx_spectral_ok); 0 when a check failed (L says why). */
int rf_lx_spectral_in(rf_lowering *L, const rf_node *n, size_t nouts, const char *arg, rf_cx *a, int64_t *rows,
                      int64_t *cols);
/* The node has `nouts` results (a hand-written graph may not). */
int rf_lx_outs_ok(rf_lowering *L, const rf_node *n, size_t nouts);
/* A string argument, or dflt. */
const char *rf_lx_str_arg(const rf_node *n, const char *name, const char *dflt);

/* 0..len-1 as an int64 constant of shape (len,) (shape 0), (len, 1) (1) or (1, len) (2). */
rf_value *rf_lx_iota(rf_lowering *L, int64_t len, int shape);
/* idx <c> k, c one of "eq", "ne", "lt", "le", "gt", "ge". */
rf_value *rf_lx_cmp_k(rf_lowering *L, const char *c, rf_value *idx, int64_t k);
/* The sum of an EMPTY matrix over its two trailing dims: exact zeros of the batch shape. */
rf_value *rf_lx_batch_zero(rf_lowering *L, rf_value *empty);

/* The embedding phi(X + iY) = [[X, -Y], [Y, X]]: (..., m, n) -> (..., 2m, 2n). */
rf_value *rf_lx_embed(rf_lowering *L, rf_cx a);
/* Rows [0, m) and [m, 2m) of x along dim as the real and imaginary parts. */
rf_cx rf_lx_unembed_rows(rf_lowering *L, rf_value *x, int64_t m, int64_t dim);
/* Batch dims of a and b broadcast followed by `tail`. */
rf_value rf_lx_bcast_like(rf_lowering *L, const rf_value *a, const rf_value *b, int ntail, const rf_dim *tail);
/* X with A X = B, A (..., n, n), B (..., n, k), by one real solve_ex of the embedding; *info (when info is
 * not NULL) is that solve's info: nonzero iff A is singular, an index into the 2n embedding. */
rf_cx rf_lx_emb_solve_info(rf_lowering *L, rf_cx a, rf_cx b, int64_t n, rf_value **info);
rf_cx rf_lx_emb_solve(rf_lowering *L, rf_cx a, rf_cx b, int64_t n);
/* op(A) X = B with op: 0 A, 1 A^T, 2 A^H, 3 conj(A). */
rf_cx rf_lx_emb_solve_op_info(rf_lowering *L, rf_cx a, rf_cx b, int64_t n, int op, rf_value **info);
rf_cx rf_lx_emb_solve_op(rf_lowering *L, rf_cx a, rf_cx b, int64_t n, int op);
/* A^-1 by the real inverse of the embedding, and that inverse's info. */
rf_cx rf_lx_emb_inv(rf_lowering *L, rf_cx a, int64_t n, rf_value **info);
/* The lower (upper) triangle from diagonal offset `diag`; `unit` puts ones on the diagonal. */
rf_cx rf_lx_triangle(rf_lowering *L, rf_cx a, int64_t rows, int64_t cols, int upper, int64_t diag, int unit);

/* ---- factorisations (linalg_factor.c) ---- */

typedef struct lu_res {
    rf_cx lu;
    rf_value *pivots; /* i32 (..., k), 1-based as LAPACK */
    rf_value *info;   /* i32 (...): first zero pivot, 1-based, or 0 */
    rf_value *sign;   /* working dtype (..., 1): the permutation's sign */
    rf_value *perm;   /* i64 (..., m): row i of L U is row perm[i] of A */
} lu_res;

/* LU with partial pivoting by |re| + |im| (LAPACK's izamax), unrolled over min(m, c) columns. */
void rf_lx_lu_factor(rf_lowering *L, rf_cx a, int64_t m, int64_t c, rf_dtype w, lu_res *r);
/* The LU of the node's square matrix argument `arg` (size capped); 0 when refused or failed. */
int rf_lx_square_lu(rf_lowering *L, const rf_node *n, const char *arg, rf_dtype w, lu_res *f, int64_t *size);
/* det(A) of a square LU: the permutation's sign times the product of U's diagonal (1 for 0 x 0). */
rf_cx rf_lx_lu_det(rf_lowering *L, const lu_res *f, int64_t size);
/* sign and log|det| of a square LU: sign = perm sign * prod sgn(u_ii), log|det| = sum log|u_ii|. */
void rf_lx_lu_slogdet(rf_lowering *L, const lu_res *f, int64_t size, rf_cx *sign, rf_rv *logabs);
/* P with A = P L U from perm (..., m); perm from LAPACK pivots (..., k) (`empty`: the LU, for k == 0). */
rf_cx rf_lx_perm_matrix(rf_lowering *L, rf_value *perm, int64_t m, rf_dtype w);
rf_value *rf_lx_perm_of_pivots(rf_lowering *L, rf_value *pivots, int64_t m, int64_t k, rf_value *empty);
/* L (m x k, unit diagonal) and U (k x c) of a packed LU. */
void rf_lx_unpack_lu(rf_lowering *L, rf_cx lu, int64_t m, int64_t c, rf_cx *lo, rf_cx *up);
/* A = P L U of a square LU factorisation and its LAPACK pivots (lu_solve rebuilds the matrix to solve). */
rf_cx rf_lx_lu_rebuild(rf_lowering *L, rf_cx lu, rf_value *pivots, int64_t size, rf_dtype w);
/* The operands of an LU solve checked (a square LU, pivots (..., size), a right-hand side `b_name` of rank >= 2)
 * and *a = P L U rebuilt; 0 when refused (L says why). */
int rf_lx_lu_operands(rf_lowering *L, const rf_node *n, rf_cx lu, rf_value *piv, rf_cx b, const char *b_name,
                      rf_dtype w, rf_cx *a, int64_t *size);
/* The node's result X with P L U X = B (`left`) or X P L U = B, A^H for A where `adjoint` (lu_solve is left, not
 * adjoint), from operands the rule has read; the checks of rf_lx_lu_operands. */
rf_status rf_lx_lu_solve(rf_lowering *L, const rf_node *n, rf_cx lu, rf_value *piv, rf_cx b, const char *b_name,
                         int left, int adjoint);

/* Cholesky of Hermitian A from its lower triangle, column by column; info: first non-positive pivot, 1-based. */
rf_cx rf_lx_chol_lower(rf_lowering *L, rf_cx a, int64_t n, rf_value **info);
/* The factor torch returns (upper: U = L'^H of A^H), refusing sizes above the cap. */
rf_cx rf_lx_chol(rf_lowering *L, const rf_node *n, rf_cx a, int upper, rf_value **info);
/* L L^H (or U^H U) of the lower (upper) triangle of a factor. */
rf_cx rf_lx_from_factor(rf_lowering *L, const rf_node *n, rf_cx f, int upper, int64_t *size);

/* linalg_qr (linalg_qr.c), a row of the spectral family's table. */
rf_status rf_lx_qr_rule(rf_lowering *L, const rf_node *n);

#endif
