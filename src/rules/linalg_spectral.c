/* Spectral linear algebra of complex matrices in real arithmetic: eigh, svd,
 * pinv, lstsq, matrix_sqrth and polar through the real embedding phi(X + iY) = [[X, -Y], [Y, X]].
 *
 * phi is a *-homomorphism (phi(AB) = phi(A)phi(B), phi(A^H) = phi(A)^T), so a
 * Hermitian H has a symmetric phi(H) with every eigenvalue doubled, phi(A) has
 * every singular value doubled, and pinv/lstsq (defined by algebraic
 * conditions) of phi(A) are phi of the complex results.
 *
 * Vectors: an embedding eigenvector [u; v] is the complex eigenvector u + iv,
 * but a doubled eigenspace comes back as any real rotation of {w, Jw}, and a
 * repeated complex eigenvalue as any real basis of a 2m-dim space (taking
 * every other column can then give dependent vectors). So the complex vectors
 * are picked greedily (see pick): step k takes a column of eigenvalue k, or of
 * one equal to it up to rounding, with the largest residual after projecting
 * out the vectors already picked (complex modified Gram-Schmidt, unrolled over
 * the static n). The result is complex orthonormal whatever basis the real
 * solver chose; the phase of each vector is arbitrary, as torch documents for
 * eigh and svd. svd picks u_j and v_j by one column index, so A v_j = s_j u_j
 * holds; for a repeated zero singular value the pick maximises the smaller of
 * the two residuals. Cost: the real problem of size 2n takes 8x the real flops
 * of size n, about 2x the complex op (a complex flop is ~4 real), plus O(n^3)
 * for the picking. QR (linalg_qr.c) needs no embedding. */
#include <math.h>
#include <string.h>

#include "lower/realops.h"
#include "rules/linalg_cx.h"
#include "rules/rules.h"

#define MAXSETS 2

static rf_value *tr(rf_lowering *L, rf_value *x) { return rf_b_transpose(L, x, -2, -1); }
static rf_value *vmul(rf_lowering *L, rf_value *a, rf_value *b) { return rf_b_mul(L, rf_val(a), rf_val(b)).v; }
static rf_value *slice(rf_lowering *L, rf_value *x, int64_t dim, int64_t a, int64_t b) {
    return rf_b_slice(L, x, dim, a, b);
}

/* x - q (q^H x): x with the span of q's orthonormal columns projected out. */
static rf_cx project_out(rf_lowering *L, rf_cx x, rf_cx q) {
    return rf_cx_sub(L, x, rf_lx_matmul(L, q, rf_lx_hmatmul(L, q, x)));
}

/* Picks `count` complex orthonormal columns out of the candidates of each set
 * (all sets (..., n_s, C), the same C); the sets share their picks (svd: a
 * right and a left vector together). With `keys` (..., C), step k considers
 * each candidate by its squared residual (the smallest over the sets) less its
 * key's distance from keys[..., 2k] in units of the solver's rounding: the
 * columns of eigenvalue k win unless a degenerate neighbour took them, and a
 * repeated eigenvalue's 2m columns always hold one of residual^2 >= 1/m. */
static void pick(rf_lowering *L, size_t nsets, rf_cx *sets, int64_t ncand, rf_value *keys, int64_t count,
                 rf_dtype w) {
    if (count == 0) {
        for (size_t s = 0; s < nsets; s++) sets[s] = rf_lx_slice(L, sets[s], -1, 0, 0);
        return;
    }
    double *ar = rf_alloc(rf_out_graph(L), (size_t)ncand * sizeof(double));
    for (int64_t j = 0; j < ncand; j++) ar[j] = (double)j;
    rf_value *arange = rf_b_constant(L, "pick_index", RF_DT_I64, 1, &ncand, ar);
    rf_value *tol = NULL, *akeys = NULL;
    if (keys) { /* the rounding scale of the real solver's eigenvalues: 4 * C * eps * max|key| */
        int64_t last = -1;
        akeys = rf_b_abs(L, rf_val(keys)).v;
        double eps = w == RF_DT_F64 ? 2.220446049250313e-16 : w == RF_DT_F32 ? 1.1920929e-07 : 9.765625e-04;
        rf_value *mx = rf_b_reduce(L, "aten.amax.default", akeys, 1, &last, 1);
        tol = rf_b_add(L, rf_b_mul(L, rf_val(mx), rf_num(4.0 * (double)ncand * eps)), rf_num(1e-30)).v;
    }
    rf_cx res[MAXSETS];
    rf_cx *picked[MAXSETS];
    for (size_t s = 0; s < nsets; s++) {
        res[s] = sets[s];
        picked[s] = rf_alloc(rf_out_graph(L), (size_t)count * sizeof(rf_cx));
    }
    for (int64_t k = 0; k < count; k++) {
        rf_value *norms[MAXSETS], *score = NULL;
        for (size_t s = 0; s < nsets; s++) {
            norms[s] = rf_lx_col_norm2(L, res[s]);
            score = score ? rf_b_fn2(L, "aten.minimum.default", rf_val(score), rf_val(norms[s])).v : norms[s];
        }
        if (keys) { /* the residual, less the distance from eigenvalue k in units of tol */
            rf_value *ref = slice(L, keys, -1, 2 * k, 2 * k + 1);
            rf_value *dist = rf_b_abs(L, rf_b_sub(L, rf_val(keys), rf_val(ref))).v;
            score = rf_b_sub(L, rf_val(score), rf_b_div(L, rf_val(dist), rf_val(tol))).v;
        }
        if (!score || score->rank < 1) {
            rf_fail(L, NULL, RF_ERR_UNSUPPORTED, "eigenvector picking: candidates of known rank expected");
            return;
        }
        rf_arg args[3] = {{"self", rf_attr_ref(score)}, {"dim", rf_attr_int(-1)}, {"keepdim", rf_attr_bool(1)}};
        rf_dim d[RF_MAX_RANK];
        memcpy(d, score->dims, (size_t)score->rank * sizeof(rf_dim));
        d[score->rank - 1] = (rf_dim){1, NULL};
        rf_value *idx = rf_b_op(L, "aten.argmax.default", 3, args, RF_DT_I64, score->rank, d, "_pick");
        rf_value *onehot = rf_b_cast(L, rf_b_cmp(L, "eq", rf_val(arange), rf_val(idx)), w); /* (..., C) */
        rf_value *sel = rf_b_unsqueeze(L, onehot, -1);                                     /* (..., C, 1) */
        for (size_t s = 0; s < nsets; s++) {
            int64_t last = -1;
            rf_value *n2 = rf_b_reduce(L, "aten.sum.dim_IntList", vmul(L, norms[s], onehot), 1, &last, 1);
            rf_value *scale = rf_b_unsqueeze(L, rf_b_unary(L, "aten.rsqrt.default", n2), -1); /* (..., 1, 1) */
            rf_value *q_re = vmul(L, rf_b_matmul(L, res[s].re.v, sel), scale);
            rf_cx q = rf_cx_values(q_re, vmul(L, rf_b_matmul(L, res[s].im.v, sel), scale));
            picked[s][k] = q;
            if (k + 1 < count) res[s] = project_out(L, res[s], q);
        }
    }
    for (size_t s = 0; s < nsets; s++) sets[s] = rf_lx_cat(L, (size_t)count, picked[s], -1);
}

/* Every other entry of the last dim: (..., 2p) -> (..., p). */
static rf_value *every_other(rf_lowering *L, rf_value *x, int64_t p) {
    int64_t sizes[2] = {p, 2};
    return rf_b_select(L, rf_b_unflatten(L, x, -1, 2, sizes), -1, 0);
}

/* The shape of v with its last dim(s) replaced: a stand-in "like" for rf_b_node. */
static rf_value shaped(rf_lowering *L, const rf_value *v, int keep, int nnew, const int64_t *news) {
    rf_value s;
    memset(&s, 0, sizeof s);
    s.rank = keep + nnew;
    s.dims = rf_alloc(rf_out_graph(L), (size_t)(s.rank ? s.rank : 1) * sizeof(rf_dim));
    for (int i = 0; i < keep; i++) s.dims[i] = v->dims[i];
    for (int i = 0; i < nnew; i++) s.dims[keep + i] = (rf_dim){news[i], NULL};
    return s;
}

/* The Hermitian matrix that eigh reads from the UPLO triangle (the diagonal's imaginary part is ignored). */
static rf_cx hermitize(rf_lowering *L, rf_cx a, int upper) {
    const char *op = upper ? "aten.triu.default" : "aten.tril.default";
    rf_value *t[4];
    rf_value *src[4] = {a.re.v, a.re.v, a.im.v, a.im.v};
    int64_t diag[4] = {0, upper ? 1 : -1, upper ? 1 : -1, upper ? 1 : -1};
    for (int i = 0; i < 3; i++) {
        rf_arg args[2] = {{"self", rf_attr_ref(src[i])}, {"diagonal", rf_attr_int(diag[i])}};
        t[i] = rf_b_op(L, op, 2, args, a.re.v->dtype, a.re.v->rank, a.re.v->dims, "_tri");
    }
    rf_value *re = rf_b_add(L, rf_val(t[0]), rf_val(tr(L, t[1]))).v;
    return rf_cx_values(re, rf_b_sub(L, rf_val(t[2]), rf_val(tr(L, t[2]))).v);
}

/* The real eigh of phi(h), h (..., rows, rows) Hermitian, shaped like `like`: (eigenvalues (..., 2 rows), and the
 * vectors (..., 2 rows, 2 rows) or, without `vectors`, an empty stand-in). */
static rf_node *emb_eigh(rf_lowering *L, rf_cx h, const rf_value *like, int64_t rows, int vectors, rf_dtype w) {
    rf_value *e = rf_lx_embed(L, h);
    int b = like->rank - 2;
    int64_t n2 = 2 * rows, sq[2] = {n2, n2}, empty = 0;
    rf_value lv = shaped(L, like, b, 1, &n2), lw = vectors ? shaped(L, like, b, 2, sq) : shaped(L, like, 0, 1, &empty);
    const rf_value *likes[2] = {&lv, &lw};
    rf_arg args[3] = {{"A", rf_attr_ref(e)}, {"UPLO", rf_attr_str("L")}, {"compute_v", rf_attr_bool(vectors)}};
    return rf_b_node(L, "aten._linalg_eigh.default", 3, args, 2, likes, w, "_emb");
}

/* The real svd of phi(a), a (..., m, k): (U, S, Vh) of sizes 2m, 2 min(m, k), 2k (U, Vh empty without `uv`). */
static rf_node *emb_svd(rf_lowering *L, rf_cx a, int64_t m, int64_t k, int full, int uv, rf_dtype w) {
    int64_t p = m < k ? m : k, b = a.re.v->rank - 2, empty = 0;
    int64_t ur = full ? 2 * m : 2 * p, vr = full ? 2 * k : 2 * p;
    int64_t ushape[2] = {2 * m, ur}, vshape[2] = {vr, 2 * k}, sdim = 2 * p;
    rf_value lu = uv ? shaped(L, a.re.v, (int)b, 2, ushape) : shaped(L, a.re.v, 0, 1, &empty);
    rf_value lv = uv ? shaped(L, a.re.v, (int)b, 2, vshape) : shaped(L, a.re.v, 0, 1, &empty);
    rf_value ls = shaped(L, a.re.v, (int)b, 1, &sdim);
    const rf_value *likes[3] = {&lu, &ls, &lv};
    rf_arg args[3] = {{"A", rf_attr_ref(rf_lx_embed(L, a))}, {"full_matrices", rf_attr_bool(full)},
                      {"compute_uv", rf_attr_bool(uv)}};
    return rf_b_node(L, "aten._linalg_svd.default", 3, args, 3, likes, w, "_emb");
}

/* _linalg_eigh(A, UPLO, compute_v) -> (eigenvalues, eigenvectors) */
static rf_status eigh(rf_lowering *L, const rf_node *n) {
    rf_cx a;
    int64_t rows, cols;
    if (!rf_lx_spectral_in(L, n, 2, "A", &a, &rows, &cols)) return rf_status_of(L);
    rf_dtype w = rf_work_dtype(L, n);
    int upper = strcmp(rf_lx_str_arg(n, "UPLO", "L"), "U") == 0, vectors = rf_opt_bool(n, "compute_v", 1);
    rf_node *r = emb_eigh(L, hermitize(L, a, upper), a.re.v, rows, vectors, w);
    rf_set_real(L, n->outs[0], every_other(L, r->outs[0], rows));
    if (!vectors) {
        rf_set_cx(L, n->outs[1], rf_cx_values(r->outs[1], r->outs[1]));
        RF_CHECK(L);
        return RF_OK;
    }
    rf_cx z = rf_lx_unembed_rows(L, r->outs[1], rows, -2);
    pick(L, 1, &z, 2 * rows, r->outs[0], rows, w);
    rf_set_cx(L, n->outs[1], z);
    RF_CHECK(L);
    return RF_OK;
}

/* x's columns [a, b) as candidates, first projected off the picked vectors q. */
static rf_cx extra(rf_lowering *L, rf_cx all, int64_t a, int64_t b, rf_cx q, int64_t nq, rf_dtype w) {
    rf_cx x = rf_lx_slice(L, all, -1, a, b);
    if (nq > 0) x = project_out(L, x, q);
    pick(L, 1, &x, b - a, NULL, (b - a) / 2, w);
    return x;
}

static rf_cx cat_cols(rf_lowering *L, rf_cx a, rf_cx b) {
    rf_cx ab[2] = {a, b};
    return rf_lx_cat(L, 2, ab, -1);
}

/* _linalg_svd(A, full_matrices, compute_uv, driver) -> (U, S, Vh) */
static rf_status svd(rf_lowering *L, const rf_node *n) {
    rf_cx a;
    int64_t m, k;
    if (!rf_lx_spectral_in(L, n, 3, "A", &a, &m, &k)) return rf_status_of(L);
    rf_dtype w = rf_work_dtype(L, n);
    int full = rf_opt_bool(n, "full_matrices", 0), uv = rf_opt_bool(n, "compute_uv", 1);
    int64_t p = m < k ? m : k, ur = full ? 2 * m : 2 * p, vr = full ? 2 * k : 2 * p;
    rf_node *r = emb_svd(L, a, m, k, full, uv, w);
    rf_set_real(L, n->outs[1], every_other(L, r->outs[1], p));
    if (!uv) {
        rf_set_cx(L, n->outs[0], rf_cx_values(r->outs[0], r->outs[0]));
        rf_set_cx(L, n->outs[2], rf_cx_values(r->outs[2], r->outs[2]));
        RF_CHECK(L);
        return RF_OK;
    }
    rf_cx u_all = rf_lx_unembed_rows(L, r->outs[0], m, -2);          /* (..., m, ur) */
    rf_cx v_all = rf_lx_unembed_rows(L, tr(L, r->outs[2]), k, -2);   /* (..., k, vr) */
    rf_cx sets[2] = {rf_lx_slice(L, u_all, -1, 0, 2 * p), rf_lx_slice(L, v_all, -1, 0, 2 * p)};
    pick(L, 2, sets, 2 * p, r->outs[1], p, w);
    rf_cx u = sets[0], v = sets[1];
    if (ur > 2 * p) u = cat_cols(L, u, extra(L, u_all, 2 * p, ur, sets[0], p, w));
    if (vr > 2 * p) v = cat_cols(L, v, extra(L, v_all, 2 * p, vr, sets[1], p, w));
    rf_set_cx(L, n->outs[0], u);
    rf_set_cx(L, n->outs[2], rf_lx_adj(L, v));
    RF_CHECK(L);
    return RF_OK;
}

/* A real tensor argument (atol, rtol) cast to w, or none. */
static rf_attr real_opt(rf_lowering *L, const rf_node *n, const char *name, rf_dtype w) {
    const rf_attr *a = rf_node_arg(n, name);
    if (!a || a->kind == RF_A_NONE) return rf_attr_none();
    if (a->kind != RF_A_VALUE) return rf_map_attr(L, a);
    return rf_attr_ref(rf_b_cast(L, rf_in_real(L, n, name), w));
}

/* linalg_pinv.atol_rtol_tensor: pinv(phi(A)) = phi(pinv(A)); the singular
 * values are the same (doubled), so are the atol/rtol cut-offs. */
static rf_status pinv(rf_lowering *L, const rf_node *n) {
    rf_cx a;
    int64_t m, k;
    if (!rf_lx_spectral_in(L, n, 1, "self", &a, &m, &k)) return rf_status_of(L);
    rf_dtype w = rf_work_dtype(L, n);
    int herm = rf_opt_bool(n, "hermitian", 0);
    if (herm) a = hermitize(L, a, 0); /* torch reads the lower triangle */
    int64_t sh[2] = {2 * k, 2 * m};
    rf_value like = shaped(L, a.re.v, a.re.v->rank - 2, 2, sh);
    const rf_value *likes[1] = {&like};
    rf_arg args[4] = {{"self", rf_attr_ref(rf_lx_embed(L, a))}, {"atol", real_opt(L, n, "atol", w)},
                      {"rtol", real_opt(L, n, "rtol", w)}, {"hermitian", rf_attr_bool(herm)}};
    rf_value *x = rf_b_node(L, "aten.linalg_pinv.atol_rtol_tensor", 4, args, 1, likes, w, "_emb")->outs[0];
    rf_cx r = rf_lx_unembed_rows(L, slice(L, x, -1, 0, m), k, -2);
    rf_set_cx(L, n->outs[0], r);
    RF_CHECK(L);
    return RF_OK;
}

/* linalg_lstsq(A, B, rcond, driver) -> (solution, residuals, rank, singular_values):
 * phi(A) [Xr; Xi] = [Br; Bi] is the same least-squares problem; the residual
 * sums |r|^2 over both halves, the rank and the singular values are doubled. */
static rf_status lstsq(rf_lowering *L, const rf_node *n) {
    if (!rf_lx_outs_ok(L, n, 4)) return rf_status_of(L);
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_lx_in_tensor(L, n, "self", w), bm = rf_lx_in_tensor(L, n, "b", w);
    RF_CHECK(L);
    int64_t m, k;
    if (!rf_lx_spectral_ok(L, n, a.re.v, &m, &k)) return rf_status_of(L);
    int vec = bm.re.v->rank == a.re.v->rank - 1;
    rf_value *bparts[2] = {bm.re.v, bm.im.v};
    rf_value *be = rf_b_cat(L, 2, bparts, vec ? -1 : -2);
    const rf_value *o0 = n->outs[0], *o1 = n->outs[1], *o2 = n->outs[2], *o3 = n->outs[3];
    if (o0->rank < (vec ? 1 : 2) || o3->rank < 1)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: unknown output shape", n->op);
    int64_t sol = 2 * k, nsv = o3->dims[o3->rank - 1].sym ? -1 : 2 * o3->dims[o3->rank - 1].size;
    int64_t cols = vec ? 0 : o0->dims[o0->rank - 1].size;
    if (nsv < 0 || (!vec && o0->dims[o0->rank - 1].sym))
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: symbolic output shape", n->op);
    int64_t solshape[2] = {sol, cols};
    rf_value l0 = shaped(L, o0, o0->rank - (vec ? 1 : 2), vec ? 1 : 2, solshape);
    rf_value l3 = shaped(L, o3, o3->rank - 1, 1, &nsv);
    const rf_value *likes[4] = {&l0, o1, o2, &l3};
    rf_arg args[4] = {{"self", rf_attr_ref(rf_lx_embed(L, a))}, {"b", rf_attr_ref(be)}, {"rcond", rf_attr_none()},
                      {"driver", rf_attr_none()}};
    const rf_attr *rc = rf_node_arg(n, "rcond"), *dr = rf_node_arg(n, "driver");
    if (rc) args[2].attr = rf_map_attr(L, rc);
    if (dr) args[3].attr = rf_map_attr(L, dr);
    rf_node *r = rf_b_node(L, "aten.linalg_lstsq.default", 4, args, 4, likes, w, "_emb");
    r->outs[2]->dtype = o2->dtype; /* rank: int64 */
    rf_cx x = rf_lx_unembed_rows(L, r->outs[0], k, vec ? -1 : -2);
    rf_set_cx(L, n->outs[0], x);
    rf_set_real(L, n->outs[1], r->outs[1]);
    rf_arg dargs[3] = {{"self", rf_attr_ref(r->outs[2])},
                       {"other", rf_attr_ref(rf_b_scalar_tensor(L, 2.0, o2->dtype))},
                       {"rounding_mode", rf_attr_str("floor")}};
    rf_set_real(L, n->outs[2], rf_b_op(L, "aten.div.Tensor_mode", 3, dargs, o2->dtype, o2->rank, o2->dims, "_rank"));
    rf_set_real(L, n->outs[3], nsv == 0 ? r->outs[3] : every_other(L, r->outs[3], nsv / 2));
    RF_CHECK(L);
    return RF_OK;
}

/* linalg_matrix_sqrth(self) (torch 2.15): phi(sqrt(H)) = sqrt(phi(H)), and
 * Q diag(sqrt(max(w, 0))) Q^T does not depend on which eigenbasis the real
 * solver picks for the doubled eigenvalues, so no picking is needed. torch
 * reads the lower triangle and takes negative eigenvalues as zero. */
static rf_status matrix_sqrth(rf_lowering *L, const rf_node *n) {
    rf_cx a;
    int64_t rows, cols;
    if (!rf_lx_spectral_in(L, n, 1, "self", &a, &rows, &cols)) return rf_status_of(L);
    rf_dtype w = rf_work_dtype(L, n);
    if (rows != cols) return rf_fail(L, n, RF_ERR_INVALID, "%s: expects square matrices", n->op);
    rf_node *r = emb_eigh(L, hermitize(L, a, 0), a.re.v, rows, 1, w);
    rf_value *root = rf_b_unary(L, "aten.sqrt.default", rf_b_fn2(L, "aten.maximum.default", rf_val(r->outs[0]),
                                                                 rf_num(0.0)).v);
    rf_value *q = r->outs[1];
    rf_value *x = rf_b_matmul(L, vmul(L, q, rf_b_unsqueeze(L, root, -2)), tr(L, q)); /* (..., 2n, 2n) */
    rf_cx out = rf_lx_unembed_rows(L, slice(L, x, -1, 0, rows), rows, -2);
    rf_set_cx(L, n->outs[0], out);
    RF_CHECK(L);
    return RF_OK;
}

/* linalg_polar(A) -> (U, H) (torch 2.15), m >= n: from the thin SVD
 * A = W S V^H, U = W V^H and H = V S V^H. Both are unique for a full column
 * rank A, so the real embedding's SVD gives phi(U) and phi(H) whatever its
 * bases (a rank-deficient A has many U; torch's is one of them). */
static rf_status polar(rf_lowering *L, const rf_node *n) {
    rf_cx a;
    int64_t m, k;
    if (!rf_lx_spectral_in(L, n, 2, "A", &a, &m, &k)) return rf_status_of(L);
    rf_dtype w = rf_work_dtype(L, n);
    if (m < k)
        return rf_fail(L, n, RF_ERR_INVALID, "%s: expects at least as many rows as columns, got %lld by %lld",
                       n->op, (long long)m, (long long)k);
    rf_node *r = emb_svd(L, a, m, k, 0, 1, w);
    rf_value *vh = r->outs[2];
    rf_value *u = rf_b_matmul(L, r->outs[0], vh);                                                 /* (..., 2m, 2n) */
    rf_value *h = rf_b_matmul(L, tr(L, vh), vmul(L, rf_b_unsqueeze(L, r->outs[1], -1), vh)); /* (..., 2n, 2n) */
    rf_cx uo = rf_lx_unembed_rows(L, slice(L, u, -1, 0, k), m, -2), ho = rf_lx_unembed_rows(L, slice(L, h, -1, 0, k), k, -2);
    rf_set_cx(L, n->outs[0], uo);
    rf_set_cx(L, n->outs[1], ho);
    RF_CHECK(L);
    return RF_OK;
}

/* linalg spectral family */
const rf_rule_entry rf_rules_linalg_spectral[] = {
    {"aten._linalg_eigh.default", eigh, RF_RULE_FLOATS},
    {"aten._linalg_svd.default", svd, RF_RULE_FLOATS},
    {"aten.linalg_pinv.atol_rtol_tensor", pinv, RF_RULE_FLOATS},
    {"aten.linalg_qr.default", rf_lx_qr_rule, RF_RULE_FLOATS},
    {"aten.linalg_lstsq.default", lstsq, RF_RULE_FLOATS},
    {"aten.linalg_matrix_sqrth.default", matrix_sqrth, RF_RULE_FLOATS},
    {"aten.linalg_polar.default", polar, RF_RULE_FLOATS},
    {NULL, NULL, 0},
};
