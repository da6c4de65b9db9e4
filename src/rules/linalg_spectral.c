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
 * for the picking. QR (below) needs no embedding. */
#include <math.h>
#include <string.h>

#include "lower/realops.h"
#include "rules/rules.h"

#define MAXSETS 2
#define MAX_DIM 1024 /* matrix dims: the graph unrolls one step per vector or reflector */

typedef struct mat {
    rf_value *re, *im; /* (..., rows, cols) */
} mat;

static rf_value *tr(rf_lowering *L, rf_value *x) { return rf_b_transpose(L, x, -2, -1); }
static rf_value *mm(rf_lowering *L, rf_value *a, rf_value *b) { return rf_b_matmul(L, a, b); }
static rf_value *vsub(rf_lowering *L, rf_value *a, rf_value *b) { return rf_b_sub(L, rf_val(a), rf_val(b)).v; }
static rf_value *vadd(rf_lowering *L, rf_value *a, rf_value *b) { return rf_b_add(L, rf_val(a), rf_val(b)).v; }
static rf_value *vmul(rf_lowering *L, rf_value *a, rf_value *b) { return rf_b_mul(L, rf_val(a), rf_val(b)).v; }
static rf_value *vneg(rf_lowering *L, rf_value *a) { return rf_b_neg(L, rf_val(a)).v; }

/* a^H b */
static mat cx_hmm(rf_lowering *L, mat a, mat b) {
    rf_value *ar = tr(L, a.re), *ai = tr(L, a.im);
    return (mat){vadd(L, mm(L, ar, b.re), mm(L, ai, b.im)), vsub(L, mm(L, ar, b.im), mm(L, ai, b.re))};
}

/* a b */
static mat cx_mm(rf_lowering *L, mat a, mat b) {
    return (mat){vsub(L, mm(L, a.re, b.re), mm(L, a.im, b.im)), vadd(L, mm(L, a.re, b.im), mm(L, a.im, b.re))};
}

/* x - q (q^H x): x with the span of q's orthonormal columns projected out. */
static mat project_out(rf_lowering *L, mat x, mat q) {
    mat c = cx_mm(L, q, cx_hmm(L, q, x));
    return (mat){vsub(L, x.re, c.re), vsub(L, x.im, c.im)};
}

static rf_value *slice(rf_lowering *L, rf_value *x, int64_t dim, int64_t a, int64_t b) {
    return rf_b_slice(L, x, dim, a, b);
}

/* Sum over the rows of |x|^2: (..., cols). */
static rf_value *col_norm2(rf_lowering *L, mat x) {
    int64_t d = -2;
    rf_value *p = vadd(L, vmul(L, x.re, x.re), vmul(L, x.im, x.im));
    return rf_b_reduce(L, "aten.sum.dim_IntList", p, 1, &d, 0);
}

/* Picks `count` complex orthonormal columns out of the candidates of each set
 * (all sets (..., n_s, C), the same C); the sets share their picks (svd: a
 * right and a left vector together). With `keys` (..., C), step k considers
 * each candidate by its squared residual (the smallest over the sets) less its
 * key's distance from keys[..., 2k] in units of the solver's rounding: the
 * columns of eigenvalue k win unless a degenerate neighbour took them, and a
 * repeated eigenvalue's 2m columns always hold one of residual^2 >= 1/m. */
static void pick(rf_lowering *L, size_t nsets, mat *sets, int64_t ncand, rf_value *keys, int64_t count,
                 rf_dtype w) {
    if (count == 0) {
        for (size_t s = 0; s < nsets; s++)
            sets[s] = (mat){slice(L, sets[s].re, -1, 0, 0), slice(L, sets[s].im, -1, 0, 0)};
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
    mat res[MAXSETS];
    rf_value **parts[MAXSETS][2];
    for (size_t s = 0; s < nsets; s++) {
        res[s] = sets[s];
        parts[s][0] = rf_alloc(rf_out_graph(L), (size_t)count * sizeof(rf_value *));
        parts[s][1] = rf_alloc(rf_out_graph(L), (size_t)count * sizeof(rf_value *));
    }
    for (int64_t k = 0; k < count; k++) {
        rf_value *norms[MAXSETS], *score = NULL;
        for (size_t s = 0; s < nsets; s++) {
            norms[s] = col_norm2(L, res[s]);
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
            mat q = {vmul(L, mm(L, res[s].re, sel), scale), vmul(L, mm(L, res[s].im, sel), scale)};
            parts[s][0][k] = q.re;
            parts[s][1][k] = q.im;
            if (k + 1 < count) res[s] = project_out(L, res[s], q);
        }
    }
    for (size_t s = 0; s < nsets; s++)
        sets[s] = (mat){rf_b_cat(L, (size_t)count, parts[s][0], -1), rf_b_cat(L, (size_t)count, parts[s][1], -1)};
}

/* phi(x): (..., m, n) -> (..., 2m, 2n) */
static rf_value *embed(rf_lowering *L, mat x) {
    rf_value *top[2] = {x.re, vneg(L, x.im)}, *bot[2] = {x.im, x.re};
    rf_value *rows[2] = {rf_b_cat(L, 2, top, -1), rf_b_cat(L, 2, bot, -1)};
    return rf_b_cat(L, 2, rows, -2);
}

/* Rows [0, m) and [m, 2m) of x as the real and imaginary parts. */
static mat unembed_rows(rf_lowering *L, rf_value *x, int64_t m, int64_t dim) {
    return (mat){slice(L, x, dim, 0, m), slice(L, x, dim, m, 2 * m)};
}

/* Every other entry of the last dim: (..., 2p) -> (..., p). */
static rf_value *every_other(rf_lowering *L, rf_value *x, int64_t p) {
    int64_t sizes[2] = {p, 2};
    return rf_b_select(L, rf_b_unflatten(L, x, -1, 2, sizes), -1, 0);
}

/* A complex tensor operand as two parts (a real tensor gets zeros); a scalar fails. */
static mat in_mat(rf_lowering *L, const rf_node *n, const char *name, rf_dtype w) {
    rf_cx a = rf_in_cx(L, n, name, w);
    if (rf_status_of(L) == RF_OK && (!a.re.v || (!a.im_zero && !a.im.v))) {
        rf_fail(L, n, RF_ERR_INVALID, "%s: `%s` must be a tensor", n->op, name);
        return (mat){NULL, NULL};
    }
    rf_value *im = a.im_zero ? rf_b_zeros_like(L, a.re.v) : a.im.v;
    return (mat){a.re.v, im};
}

/* The node has the results its op makes (a hand-written graph may not). */
static int outs_ok(rf_lowering *L, const rf_node *n, size_t nouts) {
    if (n->nouts == nouts) return 1;
    rf_fail(L, n, RF_ERR_INVALID, "%s: %zu results expected, %zu given", n->op, nouts, n->nouts);
    return 0;
}

/* The static matrix dims (rows, cols) of a complex operand, or a failure. */
static int static_matrix(rf_lowering *L, const rf_node *n, const rf_value *v, int64_t *rows, int64_t *cols) {
    if (!v || v->rank < 2 || v->rank > RF_MAX_RANK - 2 || v->dims[v->rank - 1].sym || v->dims[v->rank - 2].sym) {
        rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: expects a (batch of) matrices with static matrix dims", n->op);
        return 0;
    }
    *rows = v->dims[v->rank - 2].size;
    *cols = v->dims[v->rank - 1].size;
    if (*rows > MAX_DIM || *cols > MAX_DIM) {
        rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: matrix dims above %d are not lowered (the vectors' picking and QR's"
                " reflectors are unrolled)", n->op, MAX_DIM);
        return 0;
    }
    return 1;
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
static mat hermitize(rf_lowering *L, mat a, int upper) {
    const char *op = upper ? "aten.triu.default" : "aten.tril.default";
    rf_value *t[4];
    rf_value *src[4] = {a.re, a.re, a.im, a.im};
    int64_t diag[4] = {0, upper ? 1 : -1, upper ? 1 : -1, upper ? 1 : -1};
    for (int i = 0; i < 3; i++) {
        rf_arg args[2] = {{"self", rf_attr_ref(src[i])}, {"diagonal", rf_attr_int(diag[i])}};
        t[i] = rf_b_op(L, op, 2, args, a.re->dtype, a.re->rank, a.re->dims, "_tri");
    }
    return (mat){vadd(L, t[0], tr(L, t[1])), vsub(L, t[2], tr(L, t[2]))};
}

static const char *str_arg(const rf_node *n, const char *name, const char *dflt) {
    const rf_attr *a = rf_node_arg(n, name);
    return a && a->kind == RF_A_STR && a->s ? a->s : dflt;
}

/* _linalg_eigh(A, UPLO, compute_v) -> (eigenvalues, eigenvectors) */
static rf_status eigh(rf_lowering *L, const rf_node *n) {
    if (!outs_ok(L, n, 2)) return rf_status_of(L);
    rf_dtype w = rf_work_dtype(L, n);
    mat a = in_mat(L, n, "A", w);
    RF_CHECK(L);
    int64_t rows, cols;
    if (!static_matrix(L, n, a.re, &rows, &cols)) return rf_status_of(L);
    int upper = strcmp(str_arg(n, "UPLO", "L"), "U") == 0, vectors = rf_opt_bool(n, "compute_v", 1);
    rf_value *e = embed(L, hermitize(L, a, upper));
    int b = a.re->rank - 2;
    int64_t n2 = 2 * rows, sq[2] = {n2, n2}, empty = 0;
    rf_value lv = shaped(L, a.re, b, 1, &n2), lw = vectors ? shaped(L, a.re, b, 2, sq) : shaped(L, a.re, 0, 1, &empty);
    const rf_value *likes[2] = {&lv, &lw};
    rf_arg args[3] = {{"A", rf_attr_ref(e)}, {"UPLO", rf_attr_str("L")}, {"compute_v", rf_attr_bool(vectors)}};
    rf_node *r = rf_b_node(L, "aten._linalg_eigh.default", 3, args, 2, likes, w, "_emb");
    rf_set_real(L, n->outs[0], every_other(L, r->outs[0], rows));
    if (!vectors) {
        rf_set_cx(L, n->outs[1], rf_cx_values(r->outs[1], r->outs[1]));
        RF_CHECK(L);
        return RF_OK;
    }
    mat z = unembed_rows(L, r->outs[1], rows, -2);
    pick(L, 1, &z, n2, r->outs[0], rows, w);
    rf_set_cx(L, n->outs[1], rf_cx_values(z.re, z.im));
    RF_CHECK(L);
    return RF_OK;
}

/* x's columns [a, b) as candidates, first projected off the picked vectors q. */
static mat extra(rf_lowering *L, mat all, int64_t a, int64_t b, mat q, int64_t nq, rf_dtype w) {
    mat x = {slice(L, all.re, -1, a, b), slice(L, all.im, -1, a, b)};
    if (nq > 0) x = project_out(L, x, q);
    pick(L, 1, &x, b - a, NULL, (b - a) / 2, w);
    return x;
}

static mat cat_cols(rf_lowering *L, mat a, mat b) {
    rf_value *re[2] = {a.re, b.re}, *im[2] = {a.im, b.im};
    return (mat){rf_b_cat(L, 2, re, -1), rf_b_cat(L, 2, im, -1)};
}

/* _linalg_svd(A, full_matrices, compute_uv, driver) -> (U, S, Vh) */
static rf_status svd(rf_lowering *L, const rf_node *n) {
    if (!outs_ok(L, n, 3)) return rf_status_of(L);
    rf_dtype w = rf_work_dtype(L, n);
    mat a = in_mat(L, n, "A", w);
    RF_CHECK(L);
    int64_t m, k;
    if (!static_matrix(L, n, a.re, &m, &k)) return rf_status_of(L);
    int full = rf_opt_bool(n, "full_matrices", 0), uv = rf_opt_bool(n, "compute_uv", 1);
    int64_t p = m < k ? m : k, b = a.re->rank - 2, empty = 0;
    int64_t ur = full ? 2 * m : 2 * p, vr = full ? 2 * k : 2 * p;
    int64_t ushape[2] = {2 * m, ur}, vshape[2] = {vr, 2 * k}, sdim = 2 * p;
    rf_value lu = uv ? shaped(L, a.re, (int)b, 2, ushape) : shaped(L, a.re, 0, 1, &empty);
    rf_value lv = uv ? shaped(L, a.re, (int)b, 2, vshape) : shaped(L, a.re, 0, 1, &empty);
    rf_value ls = shaped(L, a.re, (int)b, 1, &sdim);
    const rf_value *likes[3] = {&lu, &ls, &lv};
    rf_arg args[3] = {{"A", rf_attr_ref(embed(L, a))}, {"full_matrices", rf_attr_bool(full)},
                      {"compute_uv", rf_attr_bool(uv)}};
    rf_node *r = rf_b_node(L, "aten._linalg_svd.default", 3, args, 3, likes, w, "_emb");
    rf_set_real(L, n->outs[1], every_other(L, r->outs[1], p));
    if (!uv) {
        rf_set_cx(L, n->outs[0], rf_cx_values(r->outs[0], r->outs[0]));
        rf_set_cx(L, n->outs[2], rf_cx_values(r->outs[2], r->outs[2]));
        RF_CHECK(L);
        return RF_OK;
    }
    mat u_all = unembed_rows(L, r->outs[0], m, -2);          /* (..., m, ur) */
    mat v_all = unembed_rows(L, tr(L, r->outs[2]), k, -2);   /* (..., k, vr) */
    mat sets[2] = {{slice(L, u_all.re, -1, 0, 2 * p), slice(L, u_all.im, -1, 0, 2 * p)},
                   {slice(L, v_all.re, -1, 0, 2 * p), slice(L, v_all.im, -1, 0, 2 * p)}};
    pick(L, 2, sets, 2 * p, r->outs[1], p, w);
    mat u = sets[0], v = sets[1];
    if (ur > 2 * p) u = cat_cols(L, u, extra(L, u_all, 2 * p, ur, sets[0], p, w));
    if (vr > 2 * p) v = cat_cols(L, v, extra(L, v_all, 2 * p, vr, sets[1], p, w));
    rf_set_cx(L, n->outs[0], rf_cx_values(u.re, u.im));
    rf_set_cx(L, n->outs[2], rf_cx_values(tr(L, v.re), vneg(L, tr(L, v.im))));
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
    if (!outs_ok(L, n, 1)) return rf_status_of(L);
    rf_dtype w = rf_work_dtype(L, n);
    mat a = in_mat(L, n, "self", w);
    RF_CHECK(L);
    int64_t m, k;
    if (!static_matrix(L, n, a.re, &m, &k)) return rf_status_of(L);
    int herm = rf_opt_bool(n, "hermitian", 0);
    if (herm) a = hermitize(L, a, 0); /* torch reads the lower triangle */
    int64_t sh[2] = {2 * k, 2 * m};
    rf_value like = shaped(L, a.re, a.re->rank - 2, 2, sh);
    const rf_value *likes[1] = {&like};
    rf_arg args[4] = {{"self", rf_attr_ref(embed(L, a))}, {"atol", real_opt(L, n, "atol", w)},
                      {"rtol", real_opt(L, n, "rtol", w)}, {"hermitian", rf_attr_bool(herm)}};
    rf_value *x = rf_b_node(L, "aten.linalg_pinv.atol_rtol_tensor", 4, args, 1, likes, w, "_emb")->outs[0];
    mat r = unembed_rows(L, slice(L, x, -1, 0, m), k, -2);
    rf_set_cx(L, n->outs[0], rf_cx_values(r.re, r.im));
    RF_CHECK(L);
    return RF_OK;
}

/* linalg_lstsq(A, B, rcond, driver) -> (solution, residuals, rank, singular_values):
 * phi(A) [Xr; Xi] = [Br; Bi] is the same least-squares problem; the residual
 * sums |r|^2 over both halves, the rank and the singular values are doubled. */
static rf_status lstsq(rf_lowering *L, const rf_node *n) {
    if (!outs_ok(L, n, 4)) return rf_status_of(L);
    rf_dtype w = rf_work_dtype(L, n);
    mat a = in_mat(L, n, "self", w), bm = in_mat(L, n, "b", w);
    RF_CHECK(L);
    int64_t m, k;
    if (!static_matrix(L, n, a.re, &m, &k)) return rf_status_of(L);
    int vec = bm.re->rank == a.re->rank - 1;
    rf_value *bparts[2] = {bm.re, bm.im};
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
    rf_arg args[4] = {{"self", rf_attr_ref(embed(L, a))}, {"b", rf_attr_ref(be)}, {"rcond", rf_attr_none()},
                      {"driver", rf_attr_none()}};
    const rf_attr *rc = rf_node_arg(n, "rcond"), *dr = rf_node_arg(n, "driver");
    if (rc) args[2].attr = rf_map_attr(L, rc);
    if (dr) args[3].attr = rf_map_attr(L, dr);
    rf_node *r = rf_b_node(L, "aten.linalg_lstsq.default", 4, args, 4, likes, w, "_emb");
    r->outs[2]->dtype = o2->dtype; /* rank: int64 */
    mat x = unembed_rows(L, r->outs[0], k, vec ? -1 : -2);
    rf_set_cx(L, n->outs[0], rf_cx_values(x.re, x.im));
    rf_set_real(L, n->outs[1], r->outs[1]);
    rf_arg dargs[3] = {{"self", rf_attr_ref(r->outs[2])},
                       {"other", rf_attr_ref(rf_b_scalar_tensor(L, 2.0, o2->dtype))},
                       {"rounding_mode", rf_attr_str("floor")}};
    rf_set_real(L, n->outs[2], rf_b_op(L, "aten.div.Tensor_mode", 3, dargs, o2->dtype, o2->rank, o2->dims, "_rank"));
    rf_set_real(L, n->outs[3], nsv == 0 ? r->outs[3] : every_other(L, r->outs[3], nsv / 2));
    RF_CHECK(L);
    return RF_OK;
}

/* ---- QR: complex Householder in real arithmetic, unrolled over min(m, n) ----
 * The reflectors are LAPACK's (zlarfg, as torch's geqrf/ungqr use): for the
 * column x = [alpha; t] at step k, beta = -sign(Re alpha) |x|, tau = (beta -
 * alpha) / beta, v = [1; t / (alpha - beta)], and no reflection (tau = 0,
 * beta = alpha) when t = 0 and alpha is real. So R has torch's real diagonal
 * and Q, R match torch entry by entry, not only up to a phase. Cost: the
 * complex op's own flops (no embedding), as O(min(m,n)) graph steps. */

static mat cx_mul(rf_lowering *L, mat a, mat b) {
    return (mat){vsub(L, vmul(L, a.re, b.re), vmul(L, a.im, b.im)), vadd(L, vmul(L, a.re, b.im), vmul(L, a.im, b.re))};
}

static mat cx_sub(rf_lowering *L, mat a, mat b) { return (mat){vsub(L, a.re, b.re), vsub(L, a.im, b.im)}; }

static mat mat_slice(rf_lowering *L, mat x, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    return (mat){slice(L, slice(L, x.re, -2, r0, r1), -1, c0, c1), slice(L, slice(L, x.im, -2, r0, r1), -1, c0, c1)};
}

static rf_value *wherev(rf_lowering *L, rf_value *c, rf_rv x, rf_rv y) { return rf_b_where(L, c, x, y).v; }

/* One reflector for the first column of t (..., r, c): applies H^H to t and
 * returns it; *v (..., r, 1) and *tau (..., 1, 1) describe H = I - tau v v^H,
 * *beta is the new diagonal entry. */
static mat reflect(rf_lowering *L, mat t, int64_t r, mat *v, mat *tau, rf_value **beta) {
    mat alpha = mat_slice(L, t, 0, 1, 0, 1), tail = mat_slice(L, t, 1, r, 0, 1);
    rf_value *tn2 = rf_b_unsqueeze(L, col_norm2(L, tail), -1); /* |t|^2: (..., 1, 1) */
    rf_value *norm = rf_b_unary(L, "aten.sqrt.default",
                                vadd(L, vadd(L, vmul(L, alpha.re, alpha.re), vmul(L, alpha.im, alpha.im)), tn2));
    rf_value *none = rf_b_and(L, rf_b_cmp(L, "eq", rf_val(tn2), rf_num(0.0)),
                              rf_b_cmp(L, "eq", rf_val(alpha.im), rf_num(0.0))); /* no reflection */
    rf_value *nonneg = rf_b_cmp(L, "ge", rf_val(alpha.re), rf_num(0.0));
    rf_value *signed_norm = wherev(L, nonneg, rf_val(vneg(L, norm)), rf_val(norm));
    *beta = wherev(L, none, rf_val(alpha.re), rf_val(signed_norm));
    rf_value *bsafe = wherev(L, none, rf_num(1.0), rf_val(*beta));
    tau->re = wherev(L, none, rf_num(0.0), rf_b_div(L, rf_val(vsub(L, *beta, alpha.re)), rf_val(bsafe)));
    tau->im = wherev(L, none, rf_num(0.0), rf_b_div(L, rf_val(vneg(L, alpha.im)), rf_val(bsafe)));
    /* t / (alpha - beta) = t conj(d) / |d|^2 */
    rf_value *dre = wherev(L, none, rf_num(1.0), rf_val(vsub(L, alpha.re, *beta)));
    rf_value *dim_ = wherev(L, none, rf_num(0.0), rf_val(alpha.im));
    rf_value *d2 = vadd(L, vmul(L, dre, dre), vmul(L, dim_, dim_));
    mat inv = {rf_b_div(L, rf_val(dre), rf_val(d2)).v, rf_b_div(L, rf_val(vneg(L, dim_)), rf_val(d2)).v};
    mat vt = cx_mul(L, tail, inv);
    rf_value *one_re[2] = {rf_b_full_like(L, alpha.re, 1.0), vt.re}, *one_im[2] = {rf_b_zeros_like(L, alpha.im), vt.im};
    *v = (mat){rf_b_cat(L, 2, one_re, -2), rf_b_cat(L, 2, one_im, -2)};
    mat ctau = {tau->re, vneg(L, tau->im)};
    return cx_sub(L, t, cx_mul(L, ctau, cx_mm(L, *v, cx_hmm(L, *v, t))));
}

/* A batch-shaped block of zeros (..., rows, cols): x[..., :rows, :0] @ eye[:0, :] */
static rf_value *zero_block(rf_lowering *L, rf_value *x, int64_t rows, rf_value *eye_cols) {
    return mm(L, slice(L, slice(L, x, -2, 0, rows), -1, 0, 0), slice(L, eye_cols, 0, 0, 0));
}

static rf_value *eye(rf_lowering *L, int64_t n, rf_dtype w) {
    int64_t dims[2] = {n, n};
    double *e = rf_alloc(rf_out_graph(L), (size_t)(n > 0 ? n * n : 1) * sizeof(double));
    for (int64_t i = 0; i < n * n; i++) e[i] = (i % (n + 1)) == 0 ? 1.0 : 0.0;
    return rf_b_constant(L, "eye", w, 2, dims, e);
}

/* linalg_qr(A, mode) -> (Q, R) */
static rf_status qr(rf_lowering *L, const rf_node *n) {
    if (!outs_ok(L, n, 2)) return rf_status_of(L);
    rf_dtype w = rf_work_dtype(L, n);
    mat a = in_mat(L, n, "A", w);
    RF_CHECK(L);
    int64_t m, k;
    if (!static_matrix(L, n, a.re, &m, &k)) return rf_status_of(L);
    const char *mode = str_arg(n, "mode", "reduced");
    int complete = strcmp(mode, "complete") == 0, ronly = strcmp(mode, "r") == 0;
    if (!complete && !ronly && strcmp(mode, "reduced") != 0)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: unknown mode \"%s\"", n->op, mode);
    int64_t p = m < k ? m : k;
    rf_value *em = eye(L, m, w), *ek = eye(L, k, w);
    rf_value **rows_re = rf_alloc(rf_out_graph(L), (size_t)(p + 1) * sizeof(rf_value *));
    rf_value **rows_im = rf_alloc(rf_out_graph(L), (size_t)(p + 1) * sizeof(rf_value *));
    /* Q = H_0 H_1 ... H_{p-1}, built from a batch-shaped identity */
    mat q = {vadd(L, zero_block(L, a.re, m, em), em), zero_block(L, a.re, m, em)};
    mat t = a;
    for (int64_t s = 0; s < p; s++) {
        mat v, tau;
        rf_value *beta;
        mat t2 = reflect(L, t, m - s, &v, &tau, &beta);
        rf_value *re[2] = {beta, slice(L, slice(L, t2.re, -2, 0, 1), -1, 1, k - s)};
        rf_value *im[2] = {rf_b_zeros_like(L, beta), slice(L, slice(L, t2.im, -2, 0, 1), -1, 1, k - s)};
        rows_re[s] = rf_b_pad_dim(L, rf_b_cat(L, 2, re, -1), -1, s, 0, 0.0);
        rows_im[s] = rf_b_pad_dim(L, rf_b_cat(L, 2, im, -1), -1, s, 0, 0.0);
        if (!ronly) { /* Q H = Q - tau (Q v) v^H */
            mat vf = {rf_b_pad_dim(L, v.re, -2, s, 0, 0.0), rf_b_pad_dim(L, v.im, -2, s, 0, 0.0)};
            mat vh = {tr(L, vf.re), vneg(L, tr(L, vf.im))};
            q = cx_sub(L, q, cx_mul(L, tau, cx_mm(L, cx_mm(L, q, vf), vh)));
        }
        t = mat_slice(L, t2, 1, m - s, 1, k - s);
        RF_CHECK(L);
    }
    int64_t rrows = complete ? m : p, nrows = p;
    if (rrows > p || p == 0) { /* zero rows below (complete, m > k) or an empty R */
        rows_re[nrows] = zero_block(L, a.re, rrows - p, ek);
        rows_im[nrows++] = zero_block(L, a.re, rrows - p, ek);
    }
    rf_value *r_re = rf_b_cat(L, (size_t)nrows, rows_re, -2), *r_im = rf_b_cat(L, (size_t)nrows, rows_im, -2);
    rf_set_cx(L, n->outs[1], rf_cx_values(r_re, r_im));
    if (ronly) { /* torch gives an empty Q */
        rf_set_cx(L, n->outs[0], rf_cx_values(slice(L, rf_b_flatten(L, em, 0, 1), 0, 0, 0), NULL));
    } else {
        int64_t qc = complete ? m : p;
        rf_set_cx(L, n->outs[0], rf_cx_values(slice(L, q.re, -1, 0, qc), slice(L, q.im, -1, 0, qc)));
    }
    RF_CHECK(L);
    return RF_OK;
}

/* linalg_matrix_sqrth(self) (torch 2.15): phi(sqrt(H)) = sqrt(phi(H)), and
 * Q diag(sqrt(max(w, 0))) Q^T does not depend on which eigenbasis the real
 * solver picks for the doubled eigenvalues, so no picking is needed. torch
 * reads the lower triangle and takes negative eigenvalues as zero. */
static rf_status matrix_sqrth(rf_lowering *L, const rf_node *n) {
    if (!outs_ok(L, n, 1)) return rf_status_of(L);
    rf_dtype w = rf_work_dtype(L, n);
    mat a = in_mat(L, n, "self", w);
    RF_CHECK(L);
    int64_t rows, cols;
    if (!static_matrix(L, n, a.re, &rows, &cols)) return rf_status_of(L);
    if (rows != cols) return rf_fail(L, n, RF_ERR_INVALID, "%s: expects square matrices", n->op);
    int b = a.re->rank - 2;
    int64_t n2 = 2 * rows, sq[2] = {n2, n2};
    rf_value lv = shaped(L, a.re, b, 1, &n2), lw = shaped(L, a.re, b, 2, sq);
    const rf_value *likes[2] = {&lv, &lw};
    rf_arg args[3] = {{"A", rf_attr_ref(embed(L, hermitize(L, a, 0)))}, {"UPLO", rf_attr_str("L")},
                      {"compute_v", rf_attr_bool(1)}};
    rf_node *r = rf_b_node(L, "aten._linalg_eigh.default", 3, args, 2, likes, w, "_emb");
    rf_value *root = rf_b_unary(L, "aten.sqrt.default", rf_b_fn2(L, "aten.maximum.default", rf_val(r->outs[0]),
                                                                 rf_num(0.0)).v);
    rf_value *q = r->outs[1];
    rf_value *x = mm(L, vmul(L, q, rf_b_unsqueeze(L, root, -2)), tr(L, q)); /* (..., 2n, 2n) */
    mat out = unembed_rows(L, slice(L, x, -1, 0, rows), rows, -2);
    rf_set_cx(L, n->outs[0], rf_cx_values(out.re, out.im));
    RF_CHECK(L);
    return RF_OK;
}

/* linalg_polar(A) -> (U, H) (torch 2.15), m >= n: from the thin SVD
 * A = W S V^H, U = W V^H and H = V S V^H. Both are unique for a full column
 * rank A, so the real embedding's SVD gives phi(U) and phi(H) whatever its
 * bases (a rank-deficient A has many U; torch's is one of them). */
static rf_status polar(rf_lowering *L, const rf_node *n) {
    if (!outs_ok(L, n, 2)) return rf_status_of(L);
    rf_dtype w = rf_work_dtype(L, n);
    mat a = in_mat(L, n, "A", w);
    RF_CHECK(L);
    int64_t m, k;
    if (!static_matrix(L, n, a.re, &m, &k)) return rf_status_of(L);
    if (m < k)
        return rf_fail(L, n, RF_ERR_INVALID, "%s: expects at least as many rows as columns, got %lld by %lld",
                       n->op, (long long)m, (long long)k);
    int b = a.re->rank - 2;
    int64_t ushape[2] = {2 * m, 2 * k}, vshape[2] = {2 * k, 2 * k}, sdim = 2 * k;
    rf_value lu = shaped(L, a.re, b, 2, ushape), ls = shaped(L, a.re, b, 1, &sdim), lv = shaped(L, a.re, b, 2, vshape);
    const rf_value *likes[3] = {&lu, &ls, &lv};
    rf_arg args[3] = {{"A", rf_attr_ref(embed(L, a))}, {"full_matrices", rf_attr_bool(0)},
                      {"compute_uv", rf_attr_bool(1)}};
    rf_node *r = rf_b_node(L, "aten._linalg_svd.default", 3, args, 3, likes, w, "_emb");
    rf_value *vh = r->outs[2];
    rf_value *u = mm(L, r->outs[0], vh);                                                 /* (..., 2m, 2n) */
    rf_value *h = mm(L, tr(L, vh), vmul(L, rf_b_unsqueeze(L, r->outs[1], -1), vh)); /* (..., 2n, 2n) */
    mat uo = unembed_rows(L, slice(L, u, -1, 0, k), m, -2), ho = unembed_rows(L, slice(L, h, -1, 0, k), k, -2);
    rf_set_cx(L, n->outs[0], rf_cx_values(uo.re, uo.im));
    rf_set_cx(L, n->outs[1], rf_cx_values(ho.re, ho.im));
    RF_CHECK(L);
    return RF_OK;
}

/* linalg spectral family */
const rf_rule_entry rf_rules_linalg_spectral[] = {
    {"aten._linalg_eigh.default", eigh, RF_RULE_FLOATS},
    {"aten._linalg_svd.default", svd, RF_RULE_FLOATS},
    {"aten.linalg_pinv.atol_rtol_tensor", pinv, RF_RULE_FLOATS},
    {"aten.linalg_qr.default", qr, RF_RULE_FLOATS},
    {"aten.linalg_lstsq.default", lstsq, RF_RULE_FLOATS},
    {"aten.linalg_matrix_sqrth.default", matrix_sqrth, RF_RULE_FLOATS},
    {"aten.linalg_polar.default", polar, RF_RULE_FLOATS},
    {NULL, NULL, 0},
};
