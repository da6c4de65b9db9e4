/* Complex LU with partial pivoting, Cholesky and det/slogdet over an LU, unrolled over a static matrix size
 * (see linalg_cx.h and linalg_solve.c for the method). */
#include "rules/linalg_cx.h"
#include "ir/mem.h"

#include "lower/realops.h"

/* ---- complex LU with partial pivoting ---- */


void rf_lx_lu_factor(rf_lowering *L, rf_cx a, int64_t m, int64_t c, rf_dtype w, lu_res *r) {
    int64_t kmin = m < c ? m : c;
    rf_value *rowv = rf_lx_iota(L, m, 0), *rowi = rf_lx_iota(L, m, 1), *coli = rf_lx_iota(L, c, 2);
    rf_value **piv = rf_calloc((size_t)(kmin ? kmin : 1), sizeof *piv);
    rf_value **zero = rf_calloc((size_t)(kmin ? kmin : 1), sizeof *zero);
    if (!piv || !zero) {
        rf_free(piv);
        rf_free(zero);
        rf_fail(L, NULL, RF_ERR_NOMEM, "out of memory");
        return;
    }
    rf_value *perm = rowv, *sign = NULL;
    for (int64_t k = 0; k < kmin && rf_status_of(L) == RF_OK; k++) {
        /* pivot: the first row >= k of largest |re| + |im| in column k */
        rf_value *cre = rf_b_select(L, a.re.v, -1, k), *cim = rf_b_select(L, a.im.v, -1, k);
        rf_rv score = rf_b_add(L, rf_b_abs(L, rf_val(cre)), rf_b_abs(L, rf_val(cim)));
        score = rf_b_where(L, rf_lx_cmp_k(L, "lt", rowv, k), rf_num(-1), score);
        if (rf_status_of(L) != RF_OK || !score.v || score.v->rank < 1) break;
        rf_arg args[3] = {{"self", rf_attr_ref(score.v)}, {"dim", rf_attr_int(-1)}, {"keepdim", rf_attr_bool(1)}};
        rf_dim *pd = rf_alloc(rf_out_graph(L), (size_t)score.v->rank * sizeof(rf_dim));
        for (int i = 0; i < score.v->rank; i++) pd[i] = score.v->dims[i];
        pd[score.v->rank - 1] = (rf_dim){1, NULL};
        rf_value *p = rf_b_op(L, "aten.argmax.default", 3, args, RF_DT_I64, score.v->rank, pd, "_piv");
        rf_value *oh = rf_b_cmp(L, "eq", rf_val(rowv), rf_val(p)), *oh2 = rf_b_unsqueeze(L, oh, -1);
        /* swap rows k and p */
        rf_cx rk = rf_lx_slice(L, a, -2, k, k + 1), none = rf_cx_values(NULL, NULL);
        int64_t d2 = -2;
        rf_cx sel = rf_lx_where(L, oh2, a, none);
        rf_value *rp_re = rf_b_reduce(L, "aten.sum.dim_IntList", sel.re.v, 1, &d2, 1);
        rf_cx rp = rf_cx_values(rp_re, rf_b_reduce(L, "aten.sum.dim_IntList", sel.im.v, 1, &d2, 1));
        a = rf_lx_where(L, rf_lx_cmp_k(L, "eq", rowi, k), rp, rf_lx_where(L, oh2, rk, a));
        /* eliminate below the pivot; a zero pivot leaves a zero column */
        rf_cx pv = rf_lx_slice(L, rp, -1, k, k + 1);
        rf_value *z = rf_b_and(L, rf_b_cmp(L, "eq", rf_val(pv.re.v), rf_num(0)),
                               rf_b_cmp(L, "eq", rf_val(pv.im.v), rf_num(0)));
        rf_value *safe_re = rf_b_where(L, z, rf_num(1), pv.re).v;
        rf_cx safe = rf_cx_values(safe_re, rf_b_where(L, z, rf_num(0), pv.im).v);
        rf_cx l = rf_lx_dense(L, rf_cx_div(L, rf_lx_slice(L, a, -1, k, k + 1), safe));
        rf_cx upd = rf_cx_sub(L, a, rf_cx_mul(L, l, rp));
        rf_value *below = rf_lx_cmp_k(L, "gt", rowi, k);
        rf_value *m1 = rf_b_and(L, below, rf_lx_cmp_k(L, "gt", coli, k)), *m2 = rf_b_and(L, below, rf_lx_cmp_k(L, "eq", coli, k));
        a = rf_lx_where(L, m1, upd, rf_lx_where(L, m2, l, a));
        piv[k] = p;
        zero[k] = z;
        /* the permutation and its sign */
        int64_t dl = -1;
        rf_value *pp = rf_b_reduce(L, "aten.sum.dim_IntList", rf_b_where(L, oh, rf_val(perm), rf_num(0)).v, 1, &dl, 1);
        rf_value *pk = rf_b_slice(L, perm, -1, k, k + 1);
        perm = rf_b_where(L, rf_lx_cmp_k(L, "eq", rowv, k), rf_val(pp), rf_b_where(L, oh, rf_val(pk), rf_val(perm))).v;
        rf_value *flip = rf_b_cast(L, rf_lx_cmp_k(L, "ne", p, k), w);
        rf_value *s = rf_b_add(L, rf_b_mul(L, rf_val(flip), rf_num(-2)), rf_num(1)).v;
        sign = sign ? rf_b_mul(L, rf_val(sign), rf_val(s)).v : s;
    }
    r->lu = a;
    if (rf_status_of(L) != RF_OK) goto done;
    if (kmin == 0) {
        /* an empty matrix: no steps; results of the batch shape */
        rf_value *bz = rf_b_unsqueeze(L, rf_lx_batch_zero(L, a.re.v), -1);
        r->pivots = rf_b_cast(L, rf_b_slice(L, bz, -1, 0, 0), RF_DT_I32);
        r->info = rf_b_cast(L, rf_b_squeeze(L, bz, -1), RF_DT_I32);
        r->sign = rf_b_add(L, rf_val(bz), rf_num(1)).v;
        r->perm = rf_b_add(L, rf_val(perm), rf_val(rf_b_cast(L, bz, RF_DT_I64))).v;
        goto done;
    }
    r->pivots = rf_b_cast(L, rf_b_add(L, rf_val(rf_b_cat(L, (size_t)kmin, piv, -1)), rf_num(1)).v, RF_DT_I32);
    rf_value *info = rf_b_mul(L, rf_val(rf_b_cast(L, zero[kmin - 1], RF_DT_I64)), rf_num((double)kmin)).v;
    for (int64_t k = kmin - 2; k >= 0; k--) info = rf_b_where(L, zero[k], rf_num((double)(k + 1)), rf_val(info)).v;
    int64_t dd[2] = {-2, -1};
    r->info = rf_b_cast(L, rf_b_squeeze_dims(L, info, 2, dd), RF_DT_I32);
    r->sign = sign;
    r->perm = perm;
done:
    rf_free(piv);
    rf_free(zero);
}

/* P with A = P L U, from perm (..., m). */
rf_cx rf_lx_perm_matrix(rf_lowering *L, rf_value *perm, int64_t m, rf_dtype w) {
    rf_value *eq = rf_b_cmp(L, "eq", rf_val(rf_lx_iota(L, m, 1)), rf_val(rf_b_unsqueeze(L, perm, -2)));
    rf_value *p = rf_b_cast(L, eq, w);
    rf_cx r = rf_cx_values(p, rf_b_zeros_like(L, p));
    return r;
}

/* perm from LAPACK pivots (..., k): the row interchanges applied in order. */
rf_value *rf_lx_perm_of_pivots(rf_lowering *L, rf_value *pivots, int64_t m, int64_t k, rf_value *empty) {
    rf_value *rowv = rf_lx_iota(L, m, 0), *perm = rowv;
    int64_t dl = -1;
    for (int64_t i = 0; i < k && rf_status_of(L) == RF_OK; i++) {
        rf_value *j = rf_b_sub(L, rf_val(rf_b_cast(L, rf_b_slice(L, pivots, -1, i, i + 1), RF_DT_I64)), rf_num(1)).v;
        rf_value *oh = rf_b_cmp(L, "eq", rf_val(rowv), rf_val(j));
        rf_value *pj = rf_b_reduce(L, "aten.sum.dim_IntList", rf_b_where(L, oh, rf_val(perm), rf_num(0)).v, 1, &dl, 1);
        rf_value *pi = rf_b_slice(L, perm, -1, i, i + 1);
        perm = rf_b_where(L, rf_lx_cmp_k(L, "eq", rowv, i), rf_val(pj), rf_b_where(L, oh, rf_val(pi), rf_val(perm))).v;
    }
    if (k == 0) /* give perm the batch shape */
        perm = rf_b_add(L, rf_val(perm), rf_val(rf_b_cast(L, rf_b_unsqueeze(L, rf_lx_batch_zero(L, empty), -1), RF_DT_I64)))
                   .v;
    return perm;
}

/* L (m x k, unit diagonal) and U (k x c) out of packed LU. */
void rf_lx_unpack_lu(rf_lowering *L, rf_cx lu, int64_t m, int64_t c, rf_cx *lo, rf_cx *up) {
    int64_t k = m < c ? m : c;
    *lo = rf_lx_triangle(L, rf_lx_slice(L, lu, -1, 0, k), m, k, 0, -1, 1);
    *up = rf_lx_triangle(L, rf_lx_slice(L, lu, -2, 0, k), k, c, 1, 0, 0);
}


/* ---- complex Cholesky, column by column ---- */

/* The lower factor of Hermitian A read from its lower triangle, and info (i32 (...)):
 * the first column, 1-based, whose pivot is not positive, or 0. */
rf_cx rf_lx_chol_lower(rf_lowering *L, rf_cx a, int64_t n, rf_value **info) {
    rf_cx *cols = rf_calloc((size_t)(n ? n : 1), sizeof *cols), fac = rf_cx_values(NULL, NULL);
    rf_value **bad = rf_calloc((size_t)(n ? n : 1), sizeof *bad);
    if (!cols || !bad) {
        rf_free(cols);
        rf_free(bad);
        rf_fail(L, NULL, RF_ERR_NOMEM, "out of memory");
        return fac;
    }
    rf_value *rowi = rf_lx_iota(L, n, 1);
    for (int64_t j = 0; j < n && rf_status_of(L) == RF_OK; j++) {
        rf_cx col = rf_lx_slice(L, a, -1, j, j + 1);
        if (j > 0) {
            rf_cx prev = rf_lx_cat(L, (size_t)j, cols, -1);
            rf_cx rowj = rf_lx_slice(L, prev, -2, j, j + 1);
            col = rf_cx_sub(L, col, rf_lx_matmul(L, prev, rf_lx_adj(L, rowj)));
        }
        rf_value *d2 = rf_b_slice(L, col.re.v, -2, j, j + 1);
        bad[j] = rf_b_not(L, rf_b_cmp(L, "gt", rf_val(d2), rf_num(0)));
        rf_rv d = rf_b_fn(L, "aten.sqrt.default", rf_val(d2));
        rf_value *below = rf_lx_cmp_k(L, "gt", rowi, j), *at = rf_lx_cmp_k(L, "eq", rowi, j);
        rf_value *cre = rf_b_where(L, below, rf_b_div(L, col.re, d), rf_b_where(L, at, d, rf_num(0))).v;
        cols[j] = rf_cx_values(cre, rf_b_where(L, below, rf_b_div(L, col.im, d), rf_num(0)).v);
    }
    if (rf_status_of(L) == RF_OK) {
        if (n == 0) {
            fac = a;
            *info = rf_b_cast(L, rf_lx_batch_zero(L, a.re.v), RF_DT_I32);
        } else {
            fac = rf_lx_cat(L, (size_t)n, cols, -1);
            rf_value *inf = rf_b_mul(L, rf_val(rf_b_cast(L, bad[n - 1], RF_DT_I64)), rf_num((double)n)).v;
            for (int64_t j = n - 2; j >= 0; j--) inf = rf_b_where(L, bad[j], rf_num((double)(j + 1)), rf_val(inf)).v;
            int64_t dd[2] = {-2, -1};
            *info = rf_b_cast(L, rf_b_squeeze_dims(L, inf, 2, dd), RF_DT_I32);
        }
    }
    rf_free(cols);
    rf_free(bad);
    return fac;
}

/* The Cholesky factor torch returns: lower, or upper (U = L'^H of A^H's lower triangle). */
rf_cx rf_lx_chol(rf_lowering *L, const rf_node *n, rf_cx a, int upper, rf_value **info) {
    rf_cx none = rf_cx_values(NULL, NULL);
    int64_t r, c;
    if (!rf_lx_mat_size(L, n, a.re.v, &r, &c) || !rf_lx_unroll_ok(L, n, r)) return none;
    if (upper) a = rf_lx_adj(L, a);
    rf_cx f = rf_lx_chol_lower(L, a, r, info);
    return upper ? rf_lx_adj(L, f) : f;
}

/* The Hermitian matrix of a Cholesky factor: L L^H, or U^H U. */

rf_cx rf_lx_from_factor(rf_lowering *L, const rf_node *n, rf_cx f, int upper, int64_t *size) {
    if (!rf_lx_is_square(L, n, f, size)) return f;
    f = rf_lx_triangle(L, f, *size, *size, upper, 0, 0);
    rf_cx fh = rf_lx_adj(L, f);
    return upper ? rf_lx_matmul(L, fh, f) : rf_lx_matmul(L, f, fh);
}

rf_cx rf_lx_lu_rebuild(rf_lowering *L, rf_cx lu, rf_value *pivots, int64_t size, rf_dtype w) {
    rf_cx lo, up;
    rf_lx_unpack_lu(L, lu, size, size, &lo, &up);
    rf_cx p = rf_lx_perm_matrix(L, rf_lx_perm_of_pivots(L, pivots, size, size, lu.re.v), size, w);
    return rf_lx_matmul(L, p, rf_lx_matmul(L, lo, up));
}

int rf_lx_lu_operands(rf_lowering *L, const rf_node *n, rf_cx lu, rf_value *piv, rf_cx b, const char *b_name,
                      rf_dtype w, rf_cx *a, int64_t *size) {
    if (!rf_lx_is_square(L, n, lu, size) || !rf_lx_unroll_ok(L, n, *size) || !rf_lx_pivots_ok(L, n, piv, *size) ||
        !rf_lx_rank_at_least(L, n, b.re.v, 2, b_name))
        return 0;
    *a = rf_lx_lu_rebuild(L, lu, piv, *size, w);
    return 1;
}

rf_status rf_lx_lu_solve(rf_lowering *L, const rf_node *n, rf_cx lu, rf_value *piv, rf_cx b, const char *b_name,
                          int left, int adjoint) {
    int64_t size;
    rf_cx a;
    if (!rf_lx_lu_operands(L, n, lu, piv, b, b_name, rf_work_dtype(L, n), &a, &size)) return rf_status_of(L);
    /* X A = B is A^T X^T = B^T; with the adjoint, A^H X = B and X A^H = B (conj(A) X^T = B^T) */
    rf_cx x = left ? rf_lx_emb_solve_op(L, a, b, size, adjoint ? 2 : 0)
                   : rf_lx_tr(L, rf_lx_emb_solve_op(L, a, rf_lx_tr(L, b), size, adjoint ? 3 : 1));
    return rf_lx_set(L, n->outs[0], x);
}

/* ---- det and slogdet over an LU ---- */

int rf_lx_square_lu(rf_lowering *L, const rf_node *n, const char *arg, rf_dtype w, lu_res *f, int64_t *size) {
    rf_cx a = rf_lx_in(L, n, arg, w);
    if (!rf_lx_is_square(L, n, a, size) || !rf_lx_unroll_ok(L, n, *size)) return 0;
    rf_lx_lu_factor(L, a, *size, *size, w, f);
    return rf_status_of(L) == RF_OK;
}

static rf_cx diag_entry(rf_lowering *L, rf_cx lu, int64_t i) {
    return rf_cx_values(rf_b_select(L, rf_b_select(L, lu.re.v, -2, i), -1, i),
                        rf_b_select(L, rf_b_select(L, lu.im.v, -2, i), -1, i));
}

/* 1 + 0i of the batch shape, for a 0 x 0 matrix. */
static rf_cx batch_one(rf_lowering *L, const lu_res *f) {
    rf_value *z = rf_lx_batch_zero(L, f->lu.re.v);
    return rf_cx_values(rf_b_add(L, rf_val(z), rf_num(1)).v, z);
}

rf_cx rf_lx_lu_det(rf_lowering *L, const lu_res *f, int64_t size) {
    if (size == 0) return batch_one(L, f);
    rf_cx det = rf_cx_scale(L, diag_entry(L, f->lu, 0), rf_val(rf_b_squeeze(L, f->sign, -1)));
    for (int64_t i = 1; i < size; i++) det = rf_cx_mul(L, det, diag_entry(L, f->lu, i));
    return det;
}

void rf_lx_lu_slogdet(rf_lowering *L, const lu_res *f, int64_t size, rf_cx *sign, rf_rv *logabs) {
    if (size == 0) {
        *sign = batch_one(L, f);
        *logabs = rf_val(sign->im.v); /* the batch-shaped zeros */
        return;
    }
    *sign = rf_cx_real(rf_val(rf_b_squeeze(L, f->sign, -1)));
    *logabs = rf_num(0);
    for (int64_t i = 0; i < size; i++) {
        rf_cx d = diag_entry(L, f->lu, i);
        *sign = rf_cx_mul(L, *sign, rf_cx_sgn(L, d));
        *logabs = rf_b_add(L, *logabs, rf_b_fn(L, "aten.log.default", rf_cx_abs(L, d)));
    }
}
