/* Complex matrices in real arithmetic (see linalg_cx.h and linalg_solve.c for the method). */
#include "rules/linalg_cx.h"
#include "ir/mem.h"

#include <stdlib.h>
#include <string.h>

#include "lower/realops.h"

rf_cx rf_lx_in_tensor(rf_lowering *L, const rf_node *n, const char *name, rf_dtype w) {
    rf_cx a = rf_in_cx(L, n, name, w);
    if (rf_status_of(L) == RF_OK && (!a.re.v || (!a.im_zero && !a.im.v))) {
        rf_fail(L, n, RF_ERR_INVALID, "%s: `%s` must be a tensor", n->op, name);
        return rf_cx_values(NULL, NULL);
    }
    return rf_lx_dense(L, a);
}

rf_cx rf_lx_slice(rf_lowering *L, rf_cx a, int64_t dim, int64_t s, int64_t e) {
    rf_value *re = rf_b_slice(L, a.re.v, dim, s, e);
    return rf_cx_values(re, rf_b_slice(L, a.im.v, dim, s, e));
}
rf_cx rf_lx_block(rf_lowering *L, rf_cx a, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    rf_value *re = rf_b_slice(L, rf_b_slice(L, a.re.v, -2, r0, r1), -1, c0, c1);
    return rf_cx_values(re, rf_b_slice(L, rf_b_slice(L, a.im.v, -2, r0, r1), -1, c0, c1));
}
rf_cx rf_lx_tr(rf_lowering *L, rf_cx a) {
    rf_value *re = rf_b_transpose(L, a.re.v, -2, -1);
    return rf_cx_values(re, rf_b_transpose(L, a.im.v, -2, -1));
}
rf_cx rf_lx_adj(rf_lowering *L, rf_cx a) { return rf_cx_conj(L, rf_lx_tr(L, a)); }
rf_cx rf_lx_unsq(rf_lowering *L, rf_cx a, int64_t dim) {
    rf_value *re = rf_b_unsqueeze(L, a.re.v, dim);
    return rf_cx_values(re, rf_b_unsqueeze(L, a.im.v, dim));
}
rf_cx rf_lx_sq(rf_lowering *L, rf_cx a, int64_t dim) {
    rf_value *re = rf_b_squeeze(L, a.re.v, dim);
    return rf_cx_values(re, rf_b_squeeze(L, a.im.v, dim));
}
rf_cx rf_lx_cat(rf_lowering *L, size_t k, const rf_cx *xs, int64_t dim) {
    rf_value **re = rf_malloc((k ? k : 1) * sizeof *re), **im = rf_malloc((k ? k : 1) * sizeof *im);
    rf_cx r = rf_cx_values(NULL, NULL);
    if (!re || !im) {
        rf_free(re);
        rf_free(im);
        rf_fail(L, NULL, RF_ERR_NOMEM, "out of memory");
        return r;
    }
    for (size_t i = 0; i < k; i++) re[i] = xs[i].re.v, im[i] = xs[i].im.v;
    rf_value *cre = rf_b_cat(L, k, re, dim);
    r = rf_cx_values(cre, rf_b_cat(L, k, im, dim));
    rf_free(re);
    rf_free(im);
    return r;
}
rf_cx rf_lx_where(rf_lowering *L, rf_value *cond, rf_cx a, rf_cx b) {
    rf_value *re = rf_b_where(L, cond, a.re, b.re.v ? b.re : rf_num(0)).v;
    return rf_cx_values(re, rf_b_where(L, cond, a.im, b.im.v ? b.im : rf_num(0)).v);
}
static rf_value *matmul_of(rf_lowering *L, const void *ctx, rf_value *x, rf_value *y, const char *parts) {
    (void)ctx, (void)parts;
    return rf_b_matmul(L, x, y);
}
rf_cx rf_lx_matmul(rf_lowering *L, rf_cx a, rf_cx b) { return rf_cx_product(L, a, b, matmul_of, NULL); }
/* a^H b = (ar^T br + ai^T bi) + i (ar^T bi - ai^T br), without forming conj(a): the signs of the conjugate
 * ride in the sums, so no negated copy of ai is made (hence not rf_cx_product of conj(a)). */
rf_cx rf_lx_hmatmul(rf_lowering *L, rf_cx a, rf_cx b) {
    rf_value *ar = rf_b_transpose(L, a.re.v, -2, -1), *ai = rf_b_transpose(L, a.im.v, -2, -1);
    rf_value *rr = rf_b_matmul(L, ar, b.re.v), *ii = rf_b_matmul(L, ai, b.im.v);
    rf_value *ri = rf_b_matmul(L, ar, b.im.v), *ir = rf_b_matmul(L, ai, b.re.v);
    rf_value *re = rf_b_add(L, rf_val(rr), rf_val(ii)).v;
    return rf_cx_values(re, rf_b_sub(L, rf_val(ri), rf_val(ir)).v);
}
rf_value *rf_lx_col_norm2(rf_lowering *L, rf_cx x) {
    int64_t d = -2;
    rf_value *rr = rf_b_mul(L, x.re, x.re).v, *ii = rf_b_mul(L, x.im, x.im).v;
    return rf_b_reduce(L, "aten.sum.dim_IntList", rf_b_add(L, rf_val(rr), rf_val(ii)).v, 1, &d, 0);
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

int rf_lx_spectral_ok(rf_lowering *L, const rf_node *n, const rf_value *v, int64_t *rows, int64_t *cols) {
    if (!v || v->rank < 2 || v->rank > RF_MAX_RANK - 2 || v->dims[v->rank - 1].sym || v->dims[v->rank - 2].sym) {
        rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: expects a (batch of) matrices with static matrix dims", n->op);
        return 0;
    }
    *rows = v->dims[v->rank - 2].size;
    *cols = v->dims[v->rank - 1].size;
    if (*rows <= RF_LX_MAX_SPECTRAL && *cols <= RF_LX_MAX_SPECTRAL) return 1;
    rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: matrix dims above %d are not lowered (the vectors' picking and QR's"
            " reflectors are unrolled)", n->op, RF_LX_MAX_SPECTRAL);
    return 0;
}

int rf_lx_spectral_in(rf_lowering *L, const rf_node *n, size_t nouts, const char *arg, rf_cx *a, int64_t *rows,
                      int64_t *cols) {
    if (!rf_lx_outs_ok(L, n, nouts)) return 0;
    *a = rf_lx_in_tensor(L, n, arg, rf_work_dtype(L, n));
    return rf_status_of(L) == RF_OK && rf_lx_spectral_ok(L, n, a->re.v, rows, cols);
}

int rf_lx_outs_ok(rf_lowering *L, const rf_node *n, size_t nouts) {
    if (n->nouts == nouts) return 1;
    rf_fail(L, n, RF_ERR_INVALID, "%s: %zu results expected, %zu given", n->op, nouts, n->nouts);
    return 0;
}

const char *rf_lx_str_arg(const rf_node *n, const char *name, const char *dflt) {
    const rf_attr *a = rf_node_arg(n, name);
    return a && a->kind == RF_A_STR && a->s ? a->s : dflt;
}

/* ---- the embedding ---- */

rf_value *rf_lx_embed(rf_lowering *L, rf_cx a) {
    rf_value *top[2] = {a.re.v, rf_b_neg(L, a.im).v}, *bot[2] = {a.im.v, a.re.v};
    rf_value *rows[2] = {rf_b_cat(L, 2, top, -1), rf_b_cat(L, 2, bot, -1)};
    return rf_b_cat(L, 2, rows, -2);
}

rf_cx rf_lx_unembed_rows(rf_lowering *L, rf_value *x, int64_t m, int64_t dim) {
    rf_value *re = rf_b_slice(L, x, dim, 0, m);
    return rf_cx_values(re, rf_b_slice(L, x, dim, m, 2 * m));
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
rf_cx rf_lx_emb_solve_info(rf_lowering *L, rf_cx a, rf_cx b, int64_t n, rf_value **info) {
    rf_cx r = rf_cx_values(NULL, NULL);
    rf_value *e = rf_lx_embed(L, a);
    rf_value *bs[2] = {b.re.v, b.im.v};
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
    return rf_lx_unembed_rows(L, x, n, -2);
}
rf_cx rf_lx_emb_solve(rf_lowering *L, rf_cx a, rf_cx b, int64_t n) { return rf_lx_emb_solve_info(L, a, b, n, NULL); }

/* op(A) X = B with op one of: 0 A, 1 A^T, 2 A^H, 3 conj(A). */
rf_cx rf_lx_emb_solve_op_info(rf_lowering *L, rf_cx a, rf_cx b, int64_t n, int op, rf_value **info) {
    if (op == 1 || op == 2) a = rf_lx_tr(L, a);
    if (op == 2 || op == 3) a = rf_cx_conj(L, a);
    return rf_lx_emb_solve_info(L, a, b, n, info);
}
rf_cx rf_lx_emb_solve_op(rf_lowering *L, rf_cx a, rf_cx b, int64_t n, int op) { return rf_lx_emb_solve_op_info(L, a, b, n, op, NULL); }

/* A^-1 and the real inverse's info (nonzero iff A is singular). */
rf_cx rf_lx_emb_inv(rf_lowering *L, rf_cx a, int64_t n, rf_value **info) {
    rf_cx r = rf_cx_values(NULL, NULL);
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
    rf_value *re = rf_b_slice(L, rf_b_slice(L, inv->outs[0], -2, 0, n), -1, 0, n);
    return rf_cx_values(re, rf_b_slice(L, rf_b_slice(L, inv->outs[0], -2, n, 2 * n), -1, 0, n));
}

/* ---- triangles ---- */

/* Keep the lower (upper) triangle from diagonal offset `diag`; `unit` puts ones on the diagonal. */
rf_cx rf_lx_triangle(rf_lowering *L, rf_cx a, int64_t rows, int64_t cols, int upper, int64_t diag, int unit) {
    rf_value *ri = rf_lx_iota(L, rows, 1), *ci = rf_lx_iota(L, cols, 2);
    /* keep where c - r <= diag (lower) or c - r >= diag (upper) */
    rf_value *off = rf_b_sub(L, rf_val(ci), rf_val(ri)).v;
    rf_value *keep = rf_lx_cmp_k(L, upper ? "ge" : "le", off, diag);
    rf_cx zero = rf_cx_values(NULL, NULL);
    rf_cx r = rf_lx_where(L, keep, a, zero);
    if (unit) {
        rf_value *on = rf_lx_cmp_k(L, "eq", off, 0);
        rf_value *re = rf_b_where(L, on, rf_num(1), r.re).v;
        r = rf_cx_values(re, rf_b_where(L, on, rf_num(0), r.im).v);
    }
    return r;
}

int rf_lx_is_square(rf_lowering *L, const rf_node *n, rf_cx a, int64_t *size) {
    int64_t c;
    if (!rf_lx_mat_size(L, n, a.re.v, size, &c)) return 0;
    if (*size == c) return 1;
    rf_fail(L, n, RF_ERR_INVALID, "%s: needs square matrices, got %lld x %lld", n->op, (long long)*size, (long long)c);
    return 0;
}
