/* Complex matrices in real arithmetic (see linalg_cx.h and linalg_solve.c for the method). */
#include "rules/linalg_cx.h"
#include "ir/mem.h"

#include <stdlib.h>
#include <string.h>

#include "lower/realops.h"

cm rf_lx_cm_slice(rf_lowering *L, cm a, int64_t dim, int64_t s, int64_t e) {
    cm r = {rf_b_slice(L, a.re, dim, s, e), rf_b_slice(L, a.im, dim, s, e)};
    return r;
}
cm rf_lx_cm_tr(rf_lowering *L, cm a) {
    cm r = {rf_b_transpose(L, a.re, -2, -1), rf_b_transpose(L, a.im, -2, -1)};
    return r;
}
cm rf_lx_cm_conj(rf_lowering *L, cm a) {
    cm r = {a.re, rf_b_neg(L, rf_val(a.im)).v};
    return r;
}
cm rf_lx_cm_unsq(rf_lowering *L, cm a, int64_t dim) {
    cm r = {rf_b_unsqueeze(L, a.re, dim), rf_b_unsqueeze(L, a.im, dim)};
    return r;
}
cm rf_lx_cm_sq(rf_lowering *L, cm a, int64_t dim) {
    cm r = {rf_b_squeeze(L, a.re, dim), rf_b_squeeze(L, a.im, dim)};
    return r;
}
cm rf_lx_cm_cat(rf_lowering *L, size_t k, const cm *xs, int64_t dim) {
    rf_value **re = rf_malloc((k ? k : 1) * sizeof *re), **im = rf_malloc((k ? k : 1) * sizeof *im);
    cm r = {NULL, NULL};
    if (!re || !im) {
        rf_free(re);
        rf_free(im);
        rf_fail(L, NULL, RF_ERR_NOMEM, "out of memory");
        return r;
    }
    for (size_t i = 0; i < k; i++) re[i] = xs[i].re, im[i] = xs[i].im;
    r.re = rf_b_cat(L, k, re, dim);
    r.im = rf_b_cat(L, k, im, dim);
    rf_free(re);
    rf_free(im);
    return r;
}
/* where(cond, a, b); b NULL-parted: zero. */
cm rf_lx_cm_where(rf_lowering *L, rf_value *cond, cm a, cm b) {
    cm r = {rf_b_where(L, cond, rf_val(a.re), b.re ? rf_val(b.re) : rf_num(0)).v,
            rf_b_where(L, cond, rf_val(a.im), b.im ? rf_val(b.im) : rf_num(0)).v};
    return r;
}
cm rf_lx_cm_mul(rf_lowering *L, cm a, cm b) { return cm_of(rf_cx_mul(L, cx_of(a), cx_of(b)), L); }
cm rf_lx_cm_sub(rf_lowering *L, cm a, cm b) { return cm_of(rf_cx_sub(L, cx_of(a), cx_of(b)), L); }
cm rf_lx_cm_matmul(rf_lowering *L, cm a, cm b) {
    rf_value *rr = rf_b_matmul(L, a.re, b.re), *ii = rf_b_matmul(L, a.im, b.im);
    rf_value *ri = rf_b_matmul(L, a.re, b.im), *ir = rf_b_matmul(L, a.im, b.re);
    cm r = {rf_b_sub(L, rf_val(rr), rf_val(ii)).v, rf_b_add(L, rf_val(ri), rf_val(ir)).v};
    return r;
}

/* The two trailing sizes of a matrix operand, which must be static. */
int rf_lx_mat_size(rf_lowering *L, const rf_node *n, const rf_value *v, int64_t *rows, int64_t *cols) {
    if (rf_status_of(L) != RF_OK) return 0;
    if (!v || v->rank < 2 || v->dims[v->rank - 1].sym || v->dims[v->rank - 2].sym) {
        rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: needs a matrix operand (rank >= 2) with static trailing sizes", n->op);
        return 0;
    }
    *rows = v->dims[v->rank - 2].size;
    *cols = v->dims[v->rank - 1].size;
    if (*rows >= 0 && *cols >= 0) return 1;
    rf_fail(L, n, RF_ERR_INVALID, "%s: negative matrix size", n->op);
    return 0;
}

/* v has rank >= min_rank (a right-hand side); checked before any builder runs, so none meets a bad shape. */
int rf_lx_rank_at_least(rf_lowering *L, const rf_node *n, const rf_value *v, int min_rank, const char *what) {
    if (rf_status_of(L) != RF_OK) return 0;
    if (v && v->rank >= min_rank) return 1;
    rf_fail(L, n, RF_ERR_INVALID, "%s: %s needs rank >= %d", n->op, what, min_rank);
    return 0;
}

/* LAPACK pivots (..., k) with a static k. */
int rf_lx_pivots_ok(rf_lowering *L, const rf_node *n, const rf_value *p, int64_t k) {
    if (!rf_lx_rank_at_least(L, n, p, 1, "pivots")) return 0;
    if (!p->dims[p->rank - 1].sym && p->dims[p->rank - 1].size == k) return 1;
    rf_fail(L, n, RF_ERR_INVALID, "%s: pivots need a static last size of %lld", n->op, (long long)k);
    return 0;
}

int rf_lx_unroll_ok(rf_lowering *L, const rf_node *n, int64_t k) {
    if (k <= RF_LX_MAX_UNROLL) return 1;
    rf_fail(L, n, RF_ERR_UNSUPPORTED,
            "%s: the complex factorisation is unrolled over the matrix size in real ops, and %lld exceeds "
            "the cap of %d", n->op, (long long)k, RF_LX_MAX_UNROLL);
    return 0;
}

/* 0..len-1 as an int64 constant of shape (len,), (len, 1) or (1, len). */
rf_value *rf_lx_iota(rf_lowering *L, int64_t len, int shape) {
    double *d = rf_malloc((size_t)(len ? len : 1) * sizeof *d);
    if (!d) {
        rf_fail(L, NULL, RF_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int64_t i = 0; i < len; i++) d[i] = (double)i;
    int64_t dims[2] = {shape == 2 ? 1 : len, shape == 1 ? 1 : len};
    rf_value *c = shape == 0 ? rf_b_constant(L, "lin_iota", RF_DT_I64, 1, &len, d)
                             : rf_b_constant(L, "lin_iota", RF_DT_I64, 2, dims, d);
    rf_free(d);
    return c;
}
rf_value *rf_lx_cmp_k(rf_lowering *L, const char *c, rf_value *idx, int64_t k) {
    return rf_b_cmp(L, c, rf_val(idx), rf_num((double)k));
}

/* The sum of an empty matrix over its two trailing dims: exact zeros of the batch shape. */
rf_value *rf_lx_batch_zero(rf_lowering *L, rf_value *empty) {
    int64_t d[2] = {-2, -1};
    return rf_b_reduce(L, "aten.sum.dim_IntList", empty, 2, d, 0);
}

/* ---- the embedding ---- */

rf_value *rf_lx_embed(rf_lowering *L, cm a) {
    rf_value *top[2] = {a.re, rf_b_neg(L, rf_val(a.im)).v}, *bot[2] = {a.im, a.re};
    rf_value *rows[2] = {rf_b_cat(L, 2, top, -1), rf_b_cat(L, 2, bot, -1)};
    return rf_b_cat(L, 2, rows, -2);
}

/* Batch dims of a and b broadcast, followed by `tail`. */
rf_value rf_lx_bcast_like(rf_lowering *L, const rf_value *a, const rf_value *b, int ntail, const rf_dim *tail) {
    rf_value v = {0};
    int ba = a->rank - 2, bb = b->rank - 2, r = ba > bb ? ba : bb;
    v.rank = r + ntail;
    v.dims = rf_alloc(rf_out_graph(L), (size_t)(v.rank ? v.rank : 1) * sizeof(rf_dim));
    if (!v.dims) return v;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - ba), ib = i - (r - bb);
        const rf_dim *da = ia >= 0 ? &a->dims[ia] : NULL, *db = ib >= 0 ? &b->dims[ib] : NULL;
        v.dims[i] = (!da || (!da->sym && da->size == 1 && db)) ? *db : *da;
    }
    for (int i = 0; i < ntail; i++) v.dims[r + i] = tail[i];
    return v;
}

/* X with A X = B, A (..., n, n) and B (..., n, k) complex; *info (if info) the real solve's info. */
cm rf_lx_emb_solve_info(rf_lowering *L, cm a, cm b, int64_t n, rf_value **info) {
    cm r = {NULL, NULL};
    rf_value *e = rf_lx_embed(L, a);
    rf_value *bs[2] = {b.re, b.im};
    rf_value *rhs = rf_b_cat(L, 2, bs, -2);
    if (rf_status_of(L) != RF_OK) return r;
    /* solve_ex: a singular A gives what torch's solve_ex gives (no error here; linalg.solve's own
     * check on the complex LU's info raises) */
    rf_value like = rf_lx_bcast_like(L, e, rhs, 2, rhs->dims + rhs->rank - 2), info_like = {0};
    info_like.rank = e->rank - 2; /* info follows A's batch, not the broadcast one (as LU and pivots do) */
    info_like.dims = e->dims;
    const rf_value *likes[2] = {&like, &info_like};
    rf_arg args[4] = {{"A", rf_attr_ref(e)}, {"B", rf_attr_ref(rhs)}, {"left", rf_attr_bool(1)},
                      {"check_errors", rf_attr_bool(0)}};
    rf_node *s = rf_b_node(L, "aten.linalg_solve_ex.default", 4, args, 2, likes, e->dtype, "_solve");
    s->outs[1]->dtype = RF_DT_I32;
    rf_value *x = s->outs[0];
    if (info) *info = s->outs[1];
    r.re = rf_b_slice(L, x, -2, 0, n);
    r.im = rf_b_slice(L, x, -2, n, 2 * n);
    return r;
}
cm rf_lx_emb_solve(rf_lowering *L, cm a, cm b, int64_t n) { return rf_lx_emb_solve_info(L, a, b, n, NULL); }

/* op(A) X = B with op one of: 0 A, 1 A^T, 2 A^H, 3 conj(A). */
cm rf_lx_emb_solve_op_info(rf_lowering *L, cm a, cm b, int64_t n, int op, rf_value **info) {
    if (op == 1 || op == 2) a = rf_lx_cm_tr(L, a);
    if (op == 2 || op == 3) a = rf_lx_cm_conj(L, a);
    return rf_lx_emb_solve_info(L, a, b, n, info);
}
cm rf_lx_emb_solve_op(rf_lowering *L, cm a, cm b, int64_t n, int op) { return rf_lx_emb_solve_op_info(L, a, b, n, op, NULL); }

/* A^-1 and the real inverse's info (nonzero iff A is singular). */
cm rf_lx_emb_inv(rf_lowering *L, cm a, int64_t n, rf_value **info) {
    cm r = {NULL, NULL};
    rf_value *e = rf_lx_embed(L, a);
    if (rf_status_of(L) != RF_OK) return r;
    rf_value info_like = {0};
    info_like.rank = e->rank - 2;
    info_like.dims = e->dims;
    const rf_value *likes[2] = {e, &info_like};
    rf_arg args[2] = {{"A", rf_attr_ref(e)}, {"check_errors", rf_attr_bool(0)}};
    rf_node *inv = rf_b_node(L, "aten.linalg_inv_ex.default", 2, args, 2, likes, e->dtype, "_inv");
    inv->outs[1]->dtype = RF_DT_I32;
    *info = inv->outs[1];
    r.re = rf_b_slice(L, rf_b_slice(L, inv->outs[0], -2, 0, n), -1, 0, n);
    r.im = rf_b_slice(L, rf_b_slice(L, inv->outs[0], -2, n, 2 * n), -1, 0, n);
    return r;
}

/* ---- triangles ---- */

/* Keep the lower (upper) triangle from diagonal offset `diag`; `unit` puts ones on the diagonal. */
cm rf_lx_triangle(rf_lowering *L, cm a, int64_t rows, int64_t cols, int upper, int64_t diag, int unit) {
    rf_value *ri = rf_lx_iota(L, rows, 1), *ci = rf_lx_iota(L, cols, 2);
    /* keep where c - r <= diag (lower) or c - r >= diag (upper) */
    rf_value *off = rf_b_sub(L, rf_val(ci), rf_val(ri)).v;
    rf_value *keep = rf_lx_cmp_k(L, upper ? "ge" : "le", off, diag);
    cm zero = {NULL, NULL};
    cm r = rf_lx_cm_where(L, keep, a, zero);
    if (unit) {
        rf_value *on = rf_lx_cmp_k(L, "eq", off, 0);
        r.re = rf_b_where(L, on, rf_num(1), rf_val(r.re)).v;
        r.im = rf_b_where(L, on, rf_num(0), rf_val(r.im)).v;
    }
    return r;
}

/* ---- complex LU with partial pivoting ---- */


void rf_lx_lu_factor(rf_lowering *L, cm a, int64_t m, int64_t c, rf_dtype w, lu_res *r) {
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
        rf_value *cre = rf_b_select(L, a.re, -1, k), *cim = rf_b_select(L, a.im, -1, k);
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
        cm rk = rf_lx_cm_slice(L, a, -2, k, k + 1), none = {NULL, NULL};
        int64_t d2 = -2;
        cm sel = rf_lx_cm_where(L, oh2, a, none);
        cm rp = {rf_b_reduce(L, "aten.sum.dim_IntList", sel.re, 1, &d2, 1),
                 rf_b_reduce(L, "aten.sum.dim_IntList", sel.im, 1, &d2, 1)};
        a = rf_lx_cm_where(L, rf_lx_cmp_k(L, "eq", rowi, k), rp, rf_lx_cm_where(L, oh2, rk, a));
        /* eliminate below the pivot; a zero pivot leaves a zero column */
        cm pv = rf_lx_cm_slice(L, rp, -1, k, k + 1);
        rf_value *z = rf_b_and(L, rf_b_cmp(L, "eq", rf_val(pv.re), rf_num(0)),
                               rf_b_cmp(L, "eq", rf_val(pv.im), rf_num(0)));
        cm safe = {rf_b_where(L, z, rf_num(1), rf_val(pv.re)).v, rf_b_where(L, z, rf_num(0), rf_val(pv.im)).v};
        cm l = cm_of(rf_cx_div(L, cx_of(rf_lx_cm_slice(L, a, -1, k, k + 1)), cx_of(safe)), L);
        cm upd = rf_lx_cm_sub(L, a, rf_lx_cm_mul(L, l, rp));
        rf_value *below = rf_lx_cmp_k(L, "gt", rowi, k);
        rf_value *m1 = rf_b_and(L, below, rf_lx_cmp_k(L, "gt", coli, k)), *m2 = rf_b_and(L, below, rf_lx_cmp_k(L, "eq", coli, k));
        a = rf_lx_cm_where(L, m1, upd, rf_lx_cm_where(L, m2, l, a));
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
        rf_value *bz = rf_b_unsqueeze(L, rf_lx_batch_zero(L, a.re), -1);
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
cm rf_lx_perm_matrix(rf_lowering *L, rf_value *perm, int64_t m, rf_dtype w) {
    rf_value *eq = rf_b_cmp(L, "eq", rf_val(rf_lx_iota(L, m, 1)), rf_val(rf_b_unsqueeze(L, perm, -2)));
    rf_value *p = rf_b_cast(L, eq, w);
    cm r = {p, rf_b_zeros_like(L, p)};
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
void rf_lx_unpack_lu(rf_lowering *L, cm lu, int64_t m, int64_t c, cm *lo, cm *up) {
    int64_t k = m < c ? m : c;
    *lo = rf_lx_triangle(L, rf_lx_cm_slice(L, lu, -1, 0, k), m, k, 0, -1, 1);
    *up = rf_lx_triangle(L, rf_lx_cm_slice(L, lu, -2, 0, k), k, c, 1, 0, 0);
}

int rf_lx_is_square(rf_lowering *L, const rf_node *n, cm a, int64_t *size) {
    int64_t c;
    if (!rf_lx_mat_size(L, n, a.re, size, &c)) return 0;
    if (*size == c) return 1;
    rf_fail(L, n, RF_ERR_INVALID, "%s: needs square matrices, got %lld x %lld", n->op, (long long)*size, (long long)c);
    return 0;
}

/* ---- complex Cholesky, column by column ---- */

/* The lower factor of Hermitian A read from its lower triangle, and info (i32 (...)):
 * the first column, 1-based, whose pivot is not positive, or 0. */
cm rf_lx_chol_lower(rf_lowering *L, cm a, int64_t n, rf_value **info) {
    cm *cols = rf_calloc((size_t)(n ? n : 1), sizeof *cols), fac = {NULL, NULL};
    rf_value **bad = rf_calloc((size_t)(n ? n : 1), sizeof *bad);
    if (!cols || !bad) {
        rf_free(cols);
        rf_free(bad);
        rf_fail(L, NULL, RF_ERR_NOMEM, "out of memory");
        return fac;
    }
    rf_value *rowi = rf_lx_iota(L, n, 1);
    for (int64_t j = 0; j < n && rf_status_of(L) == RF_OK; j++) {
        cm col = rf_lx_cm_slice(L, a, -1, j, j + 1);
        if (j > 0) {
            cm prev = rf_lx_cm_cat(L, (size_t)j, cols, -1);
            cm rowj = rf_lx_cm_slice(L, prev, -2, j, j + 1);
            col = rf_lx_cm_sub(L, col, rf_lx_cm_matmul(L, prev, rf_lx_cm_conj(L, rf_lx_cm_tr(L, rowj))));
        }
        rf_value *d2 = rf_b_slice(L, col.re, -2, j, j + 1);
        bad[j] = rf_b_not(L, rf_b_cmp(L, "gt", rf_val(d2), rf_num(0)));
        rf_rv d = rf_b_fn(L, "aten.sqrt.default", rf_val(d2));
        rf_value *below = rf_lx_cmp_k(L, "gt", rowi, j), *at = rf_lx_cmp_k(L, "eq", rowi, j);
        cols[j].re = rf_b_where(L, below, rf_b_div(L, rf_val(col.re), d), rf_b_where(L, at, d, rf_num(0))).v;
        cols[j].im = rf_b_where(L, below, rf_b_div(L, rf_val(col.im), d), rf_num(0)).v;
    }
    if (rf_status_of(L) == RF_OK) {
        if (n == 0) {
            fac = a;
            *info = rf_b_cast(L, rf_lx_batch_zero(L, a.re), RF_DT_I32);
        } else {
            fac = rf_lx_cm_cat(L, (size_t)n, cols, -1);
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
cm rf_lx_chol(rf_lowering *L, const rf_node *n, cm a, int upper, rf_value **info) {
    cm none = {NULL, NULL};
    int64_t r, c;
    if (!rf_lx_mat_size(L, n, a.re, &r, &c) || !rf_lx_unroll_ok(L, n, r)) return none;
    if (upper) a = rf_lx_cm_conj(L, rf_lx_cm_tr(L, a));
    cm f = rf_lx_chol_lower(L, a, r, info);
    return upper ? rf_lx_cm_conj(L, rf_lx_cm_tr(L, f)) : f;
}

/* The Hermitian matrix of a Cholesky factor: L L^H, or U^H U. */

cm rf_lx_from_factor(rf_lowering *L, const rf_node *n, cm f, int upper, int64_t *size) {
    if (!rf_lx_is_square(L, n, f, size)) return f;
    f = rf_lx_triangle(L, f, *size, *size, upper, 0, 0);
    cm fh = rf_lx_cm_conj(L, rf_lx_cm_tr(L, f));
    return upper ? rf_lx_cm_matmul(L, fh, f) : rf_lx_cm_matmul(L, f, fh);
}

cm rf_lx_lu_rebuild(rf_lowering *L, cm lu, rf_value *pivots, int64_t size, rf_dtype w) {
    cm lo, up;
    rf_lx_unpack_lu(L, lu, size, size, &lo, &up);
    cm p = rf_lx_perm_matrix(L, rf_lx_perm_of_pivots(L, pivots, size, size, lu.re), size, w);
    return rf_lx_cm_matmul(L, p, rf_lx_cm_matmul(L, lo, up));
}
