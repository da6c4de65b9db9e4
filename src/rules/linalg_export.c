/* The solve family's ops as torch.export keeps them (CompositeImplicit ops that make_fx and aot_autograd
 * decompose before realify sees them): linalg_solve, linalg_inv, linalg_det, linalg_slogdet, logdet,
 * linalg_solve_ex, linalg_cholesky, linalg_lu_factor, lu_solve, _lu_with_info, linalg_matrix_power, linalg_tensorinv and
 * linalg_tensorsolve. Each is the decomposed form's method; where torch raises on a singular or
 * non-definite input, an _linalg_check_errors node on the info raises the same error at run time. */
#include <stdint.h>
#include <stdlib.h>

#include "lower/realops.h"
#include "rules/linalg_cx.h"
#include "rules/rules.h"

static void check_errors(rf_lowering *L, rf_value *info, const char *api) {
    if (rf_status_of(L) != RF_OK) return;
    rf_arg args[3] = {{"info", rf_attr_ref(info)}, {"api_name", rf_attr_str(api)}, {"is_matrix", rf_attr_bool(1)}};
    rf_b_node(L, "aten._linalg_check_errors.default", 3, args, 0, NULL, RF_DT_I32, "_check");
}

/* linalg_solve raises on a singular A; linalg_solve_ex returns (result, info) instead. */
static rf_status solve_common(rf_lowering *L, const rf_node *n, int ex) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_lx_in(L, n, "A", w), b = rf_lx_in(L, n, "B", w);
    int64_t size;
    if (!rf_lx_is_square(L, n, a, &size) || !rf_lx_rank_at_least(L, n, b.re.v, 1, "B")) return rf_status_of(L);
    int left = rf_opt_bool(n, "left", 1), vec = b.re.v->rank < 2;
    if (!vec && b.re.v->rank == a.re.v->rank - 1) {
        vec = 1;
        for (int i = 0; i < b.re.v->rank && vec; i++)
            vec = !a.re.v->dims[i].sym && !b.re.v->dims[i].sym && a.re.v->dims[i].size == b.re.v->dims[i].size;
    }
    rf_value *info = NULL;
    rf_cx x;
    if (vec) x = rf_lx_sq(L, rf_lx_emb_solve_op_info(L, a, rf_lx_unsq(L, b, -1), size, left ? 0 : 1, &info), -1);
    else if (left) x = rf_lx_emb_solve_info(L, a, b, size, &info);
    else x = rf_lx_tr(L, rf_lx_emb_solve_op_info(L, a, rf_lx_tr(L, b), size, 1, &info));
    if (!ex) check_errors(L, info, "torch.linalg.solve");
    else if (rf_opt_bool(n, "check_errors", 0)) check_errors(L, info, "torch.linalg.solve_ex");
    RF_CHECK(L);
    if (ex) rf_set_real(L, n->outs[1], info);
    return rf_lx_set(L, n->outs[0], x);
}
static rf_status linalg_solve(rf_lowering *L, const rf_node *n) { return solve_common(L, n, 0); }
static rf_status linalg_solve_ex(rf_lowering *L, const rf_node *n) { return solve_common(L, n, 1); }

static rf_cx inverse(rf_lowering *L, const rf_node *n, rf_cx a) {
    int64_t size;
    rf_value *info = NULL;
    if (!rf_lx_is_square(L, n, a, &size)) return a;
    rf_cx x = rf_lx_emb_inv(L, a, size, &info);
    check_errors(L, info, "linalg.inv");
    return x;
}

static rf_status linalg_inv(rf_lowering *L, const rf_node *n) {
    rf_cx x = inverse(L, n, rf_lx_in(L, n, "A", rf_work_dtype(L, n)));
    return rf_lx_set(L, n->outs[0], x);
}

static rf_status linalg_det(rf_lowering *L, const rf_node *n) {
    lu_res f = {0};
    int64_t size;
    if (!rf_lx_square_lu(L, n, "A", rf_work_dtype(L, n), &f, &size)) return rf_status_of(L);
    return rf_lx_set(L, n->outs[0], rf_lx_lu_det(L, &f, size));
}

static int slogdet(rf_lowering *L, const rf_node *n, const char *arg, rf_dtype w, rf_cx *sign, rf_rv *logabs) {
    lu_res f = {0};
    int64_t size;
    if (!rf_lx_square_lu(L, n, arg, w, &f, &size)) return 0;
    rf_lx_lu_slogdet(L, &f, size, sign, logabs);
    return rf_status_of(L) == RF_OK;
}

static rf_status linalg_slogdet(rf_lowering *L, const rf_node *n) {
    rf_cx sign;
    rf_rv logabs;
    if (!slogdet(L, n, "A", rf_component_of(L, n->outs[0]->dtype), &sign, &logabs)) return rf_status_of(L);
    rf_set_cx(L, n->outs[0], sign);
    rf_set_real(L, n->outs[1], logabs.v);
    return RF_OK;
}

/* logdet = log(sign) + log|det|, complex as torch computes it (log 0 = -inf for a singular matrix). */
static rf_status logdet(rf_lowering *L, const rf_node *n) {
    rf_cx sign;
    rf_rv logabs;
    if (!slogdet(L, n, "self", rf_work_dtype(L, n), &sign, &logabs)) return rf_status_of(L);
    rf_cx r = rf_cx_add(L, rf_cx_log(L, sign), rf_cx_real(logabs));
    RF_CHECK(L);
    rf_set_cx(L, n->outs[0], r);
    return RF_OK;
}

static rf_status linalg_cholesky(rf_lowering *L, const rf_node *n) {
    rf_value *info = NULL;
    rf_cx f = rf_lx_chol(L, n, rf_lx_in(L, n, "self", rf_work_dtype(L, n)), rf_opt_bool(n, "upper", 0), &info);
    check_errors(L, info, "linalg.cholesky");
    return rf_lx_set(L, n->outs[0], f);
}

/* linalg_lu_factor (LU, pivots; raises on a zero pivot) and _lu_with_info (LU, pivots, info). */
static rf_status lu_factor_like(rf_lowering *L, const rf_node *n, const char *arg, const char *api) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_lx_in(L, n, arg, w);
    int64_t m, c;
    if (!rf_opt_bool(n, "pivot", 1)) {
        rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: LU without pivoting is not lowered (torch has it on CUDA only)", n->op);
        return rf_status_of(L);
    }
    if (!rf_lx_mat_size(L, n, a.re.v, &m, &c) || !rf_lx_unroll_ok(L, n, m < c ? m : c)) return rf_status_of(L);
    lu_res f = {0};
    rf_lx_lu_factor(L, a, m, c, w, &f);
    RF_CHECK(L);
    if (api && rf_opt_bool(n, "check_errors", 1)) check_errors(L, f.info, api);
    rf_lx_set(L, n->outs[0], f.lu);
    rf_set_real(L, n->outs[1], f.pivots);
    if (n->nouts > 2) rf_set_real(L, n->outs[2], f.info);
    return RF_OK;
}

static rf_status linalg_lu_factor(rf_lowering *L, const rf_node *n) {
    return lu_factor_like(L, n, "A", "torch.linalg.lu_factor");
}
static rf_status lu_with_info(rf_lowering *L, const rf_node *n) {
    return lu_factor_like(L, n, "self", rf_opt_bool(n, "check_errors", 0) ? "torch.lu" : NULL);
}

/* lu_solve(B, LU, pivots): X with P L U X = B. */
static rf_status lu_solve(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx b = rf_lx_in(L, n, "self", w), lu = rf_lx_in(L, n, "LU_data", w);
    rf_value *piv = rf_in_real(L, n, "LU_pivots");
    return rf_lx_lu_solve(L, n, lu, piv, b, "self", 1, 0);
}

/* A^k by repeated squaring (A^-1 first for k < 0); k == 0 gives the identity. */
static rf_status linalg_matrix_power(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_lx_in(L, n, "self", w);
    int64_t k, size;
    if (rf_opt_int(n, "n", &k) != 1) {
        rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: needs a static exponent", n->op);
        return rf_status_of(L);
    }
    if (!rf_lx_is_square(L, n, a, &size)) return rf_status_of(L);
    if (k < 0) a = inverse(L, n, a);
    uint64_t e = k < 0 ? (uint64_t)0 - (uint64_t)k : (uint64_t)k;
    rf_cx r = rf_cx_values(NULL, NULL);
    if (e == 0) { /* the identity, batch-shaped like A */
        rf_value *ri = rf_lx_iota(L, size, 1), *ci = rf_lx_iota(L, size, 2);
        rf_value *eye = rf_b_cast(L, rf_b_cmp(L, "eq", rf_val(ri), rf_val(ci)), w);
        rf_value *re = rf_b_add(L, rf_val(rf_b_zeros_like(L, a.re.v)), rf_val(eye)).v;
        r = rf_cx_values(re, rf_b_zeros_like(L, a.re.v));
    }
    for (; e && rf_status_of(L) == RF_OK; e >>= 1) {
        if (e & 1) r = r.re.v ? rf_lx_matmul(L, r, a) : a;
        if (e > 1) a = rf_lx_matmul(L, a, a);
    }
    return rf_lx_set(L, n->outs[0], r);
}

/* The product of a value's static dims [from, to), or -1. */
static int64_t dims_prod(const rf_value *v, int from, int to) {
    int64_t p = 1;
    for (int i = from; i < to; i++) {
        if (v->dims[i].sym || v->dims[i].size < 0) return -1;
        if (v->dims[i].size && p > INT64_MAX / v->dims[i].size) return -1;
        p *= v->dims[i].size;
    }
    return p;
}

static rf_value *reshape(rf_lowering *L, rf_value *x, int rank, const int64_t *sizes) {
    rf_dim *d = rf_alloc(rf_out_graph(L), (size_t)(rank ? rank : 1) * sizeof(rf_dim));
    if (!d) return NULL;
    for (int i = 0; i < rank; i++) d[i] = (rf_dim){sizes[i], NULL};
    rf_arg args[2] = {{"self", rf_attr_ref(x)}, {"shape", rf_attr_ints(rf_out_graph(L), (size_t)rank, sizes)}};
    return rf_b_op(L, "aten.reshape.default", 2, args, x->dtype, rank, d, "_rs");
}

static rf_cx cm_reshape(rf_lowering *L, rf_cx a, int rank, const int64_t *sizes) {
    rf_value *re = reshape(L, a.re.v, rank, sizes);
    return rf_cx_values(re, reshape(L, a.im.v, rank, sizes));
}

/* tensorinv(A, ind): A reshaped to (prod(shape[:ind]), prod(shape[ind:])), inverted, reshaped to
 * shape[ind:] + shape[:ind]. */
static rf_status linalg_tensorinv(rf_lowering *L, const rf_node *n) {
    rf_cx a = rf_lx_in(L, n, "self", rf_work_dtype(L, n));
    int64_t ind = 2;
    if (rf_opt_int(n, "ind", &ind) < 0 || rf_status_of(L) != RF_OK) return rf_status_of(L);
    int r = a.re.v->rank;
    const rf_value *out = n->outs[0];
    int64_t rows = r >= 0 && ind > 0 && ind < r ? dims_prod(a.re.v, 0, (int)ind) : -1;
    int64_t cols = rows >= 0 ? dims_prod(a.re.v, (int)ind, r) : -1;
    if (rows < 0 || rows != cols || out->rank != r || r > 64) {
        rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: needs static sizes with prod(shape[:ind]) == prod(shape[ind:])", n->op);
        return rf_status_of(L);
    }
    int64_t sq[2] = {rows, cols}, back[64];
    for (int i = 0; i < r; i++) back[i] = i < r - ind ? a.re.v->dims[ind + i].size : a.re.v->dims[i - (r - ind)].size;
    rf_cx x = inverse(L, n, cm_reshape(L, a, 2, sq));
    return rf_lx_set(L, n->outs[0], cm_reshape(L, x, r, back));
}

static rf_value *permute(rf_lowering *L, rf_value *x, int rank, const int64_t *perm) {
    rf_dim *d = rf_alloc(rf_out_graph(L), (size_t)(rank ? rank : 1) * sizeof(rf_dim));
    if (!d) return NULL;
    for (int i = 0; i < rank; i++) d[i] = x->dims[perm[i]];
    rf_arg args[2] = {{"self", rf_attr_ref(x)}, {"dims", rf_attr_ints(rf_out_graph(L), (size_t)rank, perm)}};
    return rf_b_op(L, "aten.permute.default", 2, args, x->dtype, rank, d, "_perm");
}

/* tensorsolve(A, B, dims): the dims of A named in `dims` moved to its end, A reshaped to (prod(B.shape),
 * prod(rest)), B flattened, solved, the result reshaped to A.shape[B.ndim:]. */
static rf_status linalg_tensorsolve(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_lx_in(L, n, "self", w), b = rf_lx_in(L, n, "other", w);
    if (rf_status_of(L) != RF_OK) return rf_status_of(L);
    int ra = a.re.v->rank, rb = b.re.v->rank;
    if (ra < 0 || rb < 0 || rb >= ra || ra > 64) {
        rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: needs known ranks with B.ndim < A.ndim <= 64", n->op);
        return rf_status_of(L);
    }
    const rf_attr *dims = rf_node_arg(n, "dims");
    int64_t moved[64], perm[64];
    int nd = dims && dims->kind != RF_A_NONE ? rf_int_list(dims, moved, 64) : 0;
    int taken[64] = {0}, k = 0, ok = nd >= 0;
    for (int i = 0; i < nd && ok; i++) {
        if (moved[i] < 0) moved[i] += ra;
        ok = moved[i] >= 0 && moved[i] < ra && !taken[moved[i]];
        if (ok) taken[moved[i]] = 1;
    }
    if (!ok) {
        rf_fail(L, n, RF_ERR_INVALID, "%s: dims must be distinct static dims of A", n->op);
        return rf_status_of(L);
    }
    for (int i = 0; i < ra; i++)
        if (!taken[i]) perm[k++] = i;
    for (int i = 0; i < nd; i++) perm[k++] = moved[i];
    if (nd) {
        rf_value *re = permute(L, a.re.v, ra, perm);
        a = rf_cx_values(re, permute(L, a.im.v, ra, perm));
        RF_CHECK(L);
    }
    int64_t rows = dims_prod(b.re.v, 0, rb), cols = dims_prod(a.re.v, rb, ra);
    if (rows < 0 || rows != cols || dims_prod(a.re.v, 0, rb) != rows) {
        rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: needs static sizes with prod(B.shape) == prod(A.shape[B.ndim:])", n->op);
        return rf_status_of(L);
    }
    int64_t sq[2] = {rows, cols}, col[2] = {rows, 1}, back[64];
    for (int i = rb; i < ra; i++) back[i - rb] = a.re.v->dims[i].size;
    rf_value *info = NULL;
    rf_cx x = rf_lx_emb_solve_info(L, cm_reshape(L, a, 2, sq), cm_reshape(L, b, 2, col), rows, &info);
    check_errors(L, info, "torch.linalg.solve");
    return rf_lx_set(L, n->outs[0], cm_reshape(L, x, ra - rb, back));
}

/* linalg solve family, export forms */
const rf_rule_entry rf_rules_linalg_export[] = {
    {"aten._lu_with_info.default", lu_with_info, RF_RULE_FLOATS},
    {"aten.linalg_cholesky.default", linalg_cholesky, RF_RULE_FLOATS},
    {"aten.linalg_det.default", linalg_det, RF_RULE_FLOATS},
    {"aten.linalg_inv.default", linalg_inv, RF_RULE_FLOATS},
    {"aten.linalg_lu_factor.default", linalg_lu_factor, RF_RULE_FLOATS},
    {"aten.linalg_matrix_power.default", linalg_matrix_power, RF_RULE_FLOATS},
    {"aten.linalg_slogdet.default", linalg_slogdet, RF_RULE_FLOATS},
    {"aten.linalg_solve.default", linalg_solve, RF_RULE_FLOATS},
    {"aten.linalg_solve_ex.default", linalg_solve_ex, RF_RULE_FLOATS},
    {"aten.linalg_tensorinv.default", linalg_tensorinv, RF_RULE_FLOATS},
    {"aten.linalg_tensorsolve.default", linalg_tensorsolve, RF_RULE_FLOATS},
    {"aten.logdet.default", logdet, RF_RULE_FLOATS},
    {"aten.lu_solve.default", lu_solve, RF_RULE_FLOATS},
    {NULL, NULL, 0},
};
