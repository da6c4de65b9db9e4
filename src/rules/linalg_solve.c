/* Complex linear solvers and factorisations in real arithmetic.
 *
 * Solves and inverses go through the real embedding: X + iY is the real 2n x 2n
 * matrix E = [[X, -Y], [Y, X]], E is invertible iff the complex matrix is, and
 * E^-1 is the embedding of the complex inverse, so one real solve of size 2n
 * (about 8x the flops of the complex solve, 2x those of four real ones) gives
 * both parts; the embedding of A^H is E^T.
 *
 * Factorisations whose factors torch returns (LU with its pivots, Cholesky) and
 * det/slogdet (which need the phase, not only |det|^2 = det E) are unrolled over
 * the static matrix size with elementwise ops: partial pivoting picks the row of
 * largest |re| + |im|, as LAPACK's izamax does, so the pivots equal torch's.
 * Unrolling costs graph size linear in n, so those rules refuse n > RF_LX_MAX_UNROLL (linalg_cx.h). */
#include <string.h>

#include "lower/realops.h"
#include "rules/linalg_cx.h"
#include "rules/rules.h"

static int same_dim(const rf_dim *a, const rf_dim *b) {
    if (a->sym || b->sym) return a->sym && b->sym && strcmp(a->sym, b->sym) == 0;
    return a->size == b->size;
}

/* torch's rule: B is a (batch of) vector(s) when B.ndim == 1 or B.shape == A.shape[:-1]. */
static int vector_rhs(const rf_value *a, const rf_value *b) {
    if (b->rank == 1) return 1;
    if (b->rank != a->rank - 1) return 0;
    for (int i = 0; i < b->rank; i++)
        if (!same_dim(&a->dims[i], &b->dims[i])) return 0;
    return 1;
}

/* X with A X = B (left) or X A = B, B a matrix. */
static rf_cx solve_sided(rf_lowering *L, rf_cx a, rf_cx b, int64_t size, int left, rf_value **info) {
    if (left) return rf_lx_emb_solve_info(L, a, b, size, info);
    return rf_lx_tr(L, rf_lx_emb_solve_op_info(L, a, rf_lx_tr(L, b), size, 1, info));
}

static rf_status linalg_solve_ex(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_lx_in(L, n, "A", w), b = rf_lx_in(L, n, "B", w);
    int64_t size;
    if (!rf_lx_is_square(L, n, a, &size) || !rf_lx_rank_at_least(L, n, b.re.v, 1, "B")) return rf_status_of(L);
    int left = rf_opt_bool(n, "left", 1);
    rf_cx x;
    rf_value *info = NULL;
    if (vector_rhs(a.re.v, b.re.v) || b.re.v->rank < 2)
        x = rf_lx_sq(L, rf_lx_emb_solve_op_info(L, a, rf_lx_unsq(L, b, -1), size, left ? 0 : 1, &info), -1);
    else x = solve_sided(L, a, b, size, left, &info);
    lu_res f = {0};
    if (rf_value_is_used(L, n->outs[1]) || rf_value_is_used(L, n->outs[2])) {
        /* torch's LU and pivots are read (backward does): factor the complex matrix too */
        if (!rf_lx_unroll_ok(L, n, size)) return rf_status_of(L);
        rf_lx_lu_factor(L, a, size, size, w, &f);
        info = f.info;
    } else { /* nobody reads them: stand-ins of the right shape, which cleanup drops */
        int64_t dl = -1;
        f.lu = a;
        f.pivots = rf_b_cast(L, rf_b_reduce(L, "aten.sum.dim_IntList", a.re.v, 1, &dl, 0), RF_DT_I32);
    }
    RF_CHECK(L);
    rf_lx_set(L, n->outs[0], x);
    rf_lx_set(L, n->outs[1], f.lu);
    rf_set_real(L, n->outs[2], f.pivots);
    rf_set_real(L, n->outs[3], info);
    return RF_OK;
}

static rf_status linalg_inv_ex(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_lx_in(L, n, "A", w);
    int64_t size;
    if (!rf_lx_is_square(L, n, a, &size)) return rf_status_of(L);
    rf_value *info = NULL;
    rf_cx x = rf_lx_emb_inv(L, a, size, &info);
    RF_CHECK(L);
    rf_lx_set(L, n->outs[0], x);
    rf_set_real(L, n->outs[1], info);
    return RF_OK;
}

static rf_status linalg_solve_triangular(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_lx_in(L, n, "self", w), b = rf_lx_in(L, n, "B", w);
    int64_t size;
    if (!rf_lx_is_square(L, n, a, &size) || !rf_lx_rank_at_least(L, n, b.re.v, 2, "B")) return rf_status_of(L);
    a = rf_lx_triangle(L, a, size, size, rf_opt_bool(n, "upper", 0), 0, rf_opt_bool(n, "unitriangular", 0));
    return rf_lx_set(L, n->outs[0], solve_sided(L, a, b, size, rf_opt_bool(n, "left", 1), NULL));
}

static rf_status triangular_solve(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx b = rf_lx_in(L, n, "self", w), a = rf_lx_in(L, n, "A", w);
    int64_t size;
    if (!rf_lx_is_square(L, n, a, &size) || !rf_lx_rank_at_least(L, n, b.re.v, 2, "self")) return rf_status_of(L);
    rf_cx t = rf_lx_triangle(L, a, size, size, rf_opt_bool(n, "upper", 1), 0, rf_opt_bool(n, "unitriangular", 0));
    rf_cx x = rf_lx_emb_solve_op(L, t, b, size, rf_opt_bool(n, "transpose", 0) ? 1 : 0);
    rf_lx_set(L, n->outs[0], x);
    return rf_lx_set(L, n->outs[1], a);
}

static rf_status linalg_cholesky_ex(rf_lowering *L, const rf_node *n) {
    rf_value *info = NULL;
    rf_cx f = rf_lx_chol(L, n, rf_lx_in(L, n, "self", rf_work_dtype(L, n)), rf_opt_bool(n, "upper", 0), &info);
    RF_CHECK(L);
    rf_lx_set(L, n->outs[0], f);
    if (n->nouts > 1) rf_set_real(L, n->outs[1], info);
    return RF_OK;
}

static rf_status cholesky_solve(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx b = rf_lx_in(L, n, "self", w);
    int64_t size;
    if (!rf_lx_rank_at_least(L, n, b.re.v, 2, "self")) return rf_status_of(L);
    rf_cx a = rf_lx_from_factor(L, n, rf_lx_in(L, n, "input2", w), rf_opt_bool(n, "upper", 0), &size);
    RF_CHECK(L);
    return rf_lx_set(L, n->outs[0], rf_lx_emb_solve(L, a, b, size));
}

static rf_status cholesky_inverse(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    int64_t size;
    rf_cx a = rf_lx_from_factor(L, n, rf_lx_in(L, n, "self", w), rf_opt_bool(n, "upper", 0), &size);
    RF_CHECK(L);
    rf_value *info = NULL;
    return rf_lx_set(L, n->outs[0], rf_lx_emb_inv(L, a, size, &info));
}

/* _linalg_det and _linalg_slogdet also return the LU and pivots they came from. */
static rf_status linalg_det(rf_lowering *L, const rf_node *n) {
    lu_res f = {0};
    int64_t size;
    if (!rf_lx_square_lu(L, n, "A", rf_work_dtype(L, n), &f, &size)) return rf_status_of(L);
    rf_cx det = rf_lx_lu_det(L, &f, size);
    RF_CHECK(L);
    rf_set_cx(L, n->outs[0], det);
    rf_lx_set(L, n->outs[1], f.lu);
    rf_set_real(L, n->outs[2], f.pivots);
    return RF_OK;
}

static rf_status linalg_slogdet(rf_lowering *L, const rf_node *n) {
    lu_res f = {0};
    int64_t size;
    if (!rf_lx_square_lu(L, n, "A", rf_component_of(L, n->outs[0]->dtype), &f, &size)) return rf_status_of(L);
    rf_cx sign;
    rf_rv logabs;
    rf_lx_lu_slogdet(L, &f, size, &sign, &logabs);
    RF_CHECK(L);
    rf_set_cx(L, n->outs[0], sign);
    rf_set_real(L, n->outs[1], logabs.v);
    rf_lx_set(L, n->outs[2], f.lu);
    rf_set_real(L, n->outs[3], f.pivots);
    return RF_OK;
}

static int pivoting(rf_lowering *L, const rf_node *n) {
    if (rf_opt_bool(n, "pivot", 1)) return 1;
    rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: LU without pivoting is not lowered (torch has it on CUDA only)", n->op);
    return 0;
}

/* The pivoted complex LU of the node's `A` (m x c); 0 when refused or failed. */
static int lu_of_input(rf_lowering *L, const rf_node *n, rf_dtype w, int64_t *m, int64_t *c, lu_res *f) {
    rf_cx a = rf_lx_in(L, n, "A", w);
    if (!pivoting(L, n) || !rf_lx_mat_size(L, n, a.re.v, m, c) || !rf_lx_unroll_ok(L, n, *m < *c ? *m : *c)) return 0;
    rf_lx_lu_factor(L, a, *m, *c, w, f);
    return 1;
}

static rf_status linalg_lu_factor_ex(rf_lowering *L, const rf_node *n) {
    int64_t m, c;
    lu_res f = {0};
    if (!lu_of_input(L, n, rf_work_dtype(L, n), &m, &c, &f)) return rf_status_of(L);
    RF_CHECK(L);
    rf_lx_set(L, n->outs[0], f.lu);
    rf_set_real(L, n->outs[1], f.pivots);
    rf_set_real(L, n->outs[2], f.info);
    return RF_OK;
}

static rf_status linalg_lu(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    int64_t m, c;
    lu_res f = {0};
    if (!lu_of_input(L, n, w, &m, &c, &f)) return rf_status_of(L);
    rf_cx lo, up;
    rf_lx_unpack_lu(L, f.lu, m, c, &lo, &up);
    RF_CHECK(L);
    rf_lx_set(L, n->outs[0], rf_lx_perm_matrix(L, f.perm, m, w));
    rf_lx_set(L, n->outs[1], lo);
    return rf_lx_set(L, n->outs[2], up);
}

static rf_status lu_unpack(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx lu = rf_lx_in(L, n, "LU_data", w);
    rf_value *piv = rf_in_real(L, n, "LU_pivots");
    int64_t m, c;
    if (!rf_opt_bool(n, "unpack_data", 1) || !rf_opt_bool(n, "unpack_pivots", 1)) {
        rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: only unpack_data=True, unpack_pivots=True are lowered", n->op);
        return rf_status_of(L);
    }
    if (!rf_lx_mat_size(L, n, lu.re.v, &m, &c) || !rf_lx_unroll_ok(L, n, m < c ? m : c) || !rf_lx_pivots_ok(L, n, piv, m < c ? m : c))
        return rf_status_of(L);
    rf_cx lo, up;
    rf_lx_unpack_lu(L, lu, m, c, &lo, &up);
    rf_value *perm = rf_lx_perm_of_pivots(L, piv, m, m < c ? m : c, lu.re.v);
    RF_CHECK(L);
    rf_lx_set(L, n->outs[0], rf_lx_perm_matrix(L, perm, m, w));
    rf_lx_set(L, n->outs[1], lo);
    return rf_lx_set(L, n->outs[2], up);
}

static rf_status linalg_lu_solve(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx lu = rf_lx_in(L, n, "LU", w), b = rf_lx_in(L, n, "B", w);
    rf_value *piv = rf_in_real(L, n, "pivots");
    return rf_lx_lu_solve(L, n, lu, piv, b, "B", rf_opt_bool(n, "left", 1), rf_opt_bool(n, "adjoint", 0));
}

/* linalg solve family */
const rf_rule_entry rf_rules_linalg_solve[] = {
    {"aten._linalg_det.default", linalg_det, RF_RULE_FLOATS},
    {"aten._linalg_slogdet.default", linalg_slogdet, RF_RULE_FLOATS},
    {"aten._linalg_solve_ex.default", linalg_solve_ex, RF_RULE_FLOATS},
    {"aten.cholesky.default", linalg_cholesky_ex, RF_RULE_FLOATS},
    {"aten.cholesky_inverse.default", cholesky_inverse, RF_RULE_FLOATS},
    {"aten.cholesky_solve.default", cholesky_solve, RF_RULE_FLOATS},
    {"aten.linalg_cholesky_ex.default", linalg_cholesky_ex, RF_RULE_FLOATS},
    {"aten.linalg_inv_ex.default", linalg_inv_ex, RF_RULE_FLOATS},
    {"aten.linalg_lu.default", linalg_lu, RF_RULE_FLOATS},
    {"aten.linalg_lu_factor_ex.default", linalg_lu_factor_ex, RF_RULE_FLOATS},
    {"aten.linalg_lu_solve.default", linalg_lu_solve, RF_RULE_FLOATS},
    {"aten.linalg_solve_triangular.default", linalg_solve_triangular, RF_RULE_FLOATS},
    {"aten.lu_unpack.default", lu_unpack, RF_RULE_FLOATS},
    {"aten.triangular_solve.default", triangular_solve, RF_RULE_FLOATS},
    {NULL, NULL, 0},
};
