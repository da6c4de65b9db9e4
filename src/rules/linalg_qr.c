/* QR of complex matrices: complex Householder in real arithmetic, unrolled over min(m, n).
 * The reflectors are LAPACK's (zlarfg, as torch's geqrf/ungqr use): for the
 * column x = [alpha; t] at step k, beta = -sign(Re alpha) |x|, tau = (beta -
 * alpha) / beta, v = [1; t / (alpha - beta)], and no reflection (tau = 0,
 * beta = alpha) when t = 0 and alpha is real. So R has torch's real diagonal
 * and Q, R match torch entry by entry, not only up to a phase. Cost: the
 * complex op's own flops (no embedding), as O(min(m,n)) graph steps. */
#include <string.h>

#include "lower/realops.h"
#include "rules/linalg_cx.h"

static rf_value *vadd(rf_lowering *L, rf_value *a, rf_value *b) { return rf_b_add(L, rf_val(a), rf_val(b)).v; }
static rf_value *vmul(rf_lowering *L, rf_value *a, rf_value *b) { return rf_b_mul(L, rf_val(a), rf_val(b)).v; }
static rf_value *vneg(rf_lowering *L, rf_value *a) { return rf_b_neg(L, rf_val(a)).v; }
static rf_value *wherev(rf_lowering *L, rf_value *c, rf_rv x, rf_rv y) { return rf_b_where(L, c, x, y).v; }

/* One reflector for the first column of t (..., r, c): applies H^H to t and
 * returns it; *v (..., r, 1) and *tau (..., 1, 1) describe H = I - tau v v^H,
 * *beta is the new diagonal entry. */
static rf_cx reflect(rf_lowering *L, rf_cx t, int64_t r, rf_cx *v, rf_cx *tau, rf_value **beta) {
    rf_cx alpha = rf_lx_block(L, t, 0, 1, 0, 1), tail = rf_lx_block(L, t, 1, r, 0, 1);
    rf_value *ar = alpha.re.v, *ai = alpha.im.v;
    rf_value *tn2 = rf_b_unsqueeze(L, rf_lx_col_norm2(L, tail), -1); /* |t|^2: (..., 1, 1) */
    rf_value *norm = rf_b_unary(L, "aten.sqrt.default", vadd(L, vadd(L, vmul(L, ar, ar), vmul(L, ai, ai)), tn2));
    rf_value *none = rf_b_and(L, rf_b_cmp(L, "eq", rf_val(tn2), rf_num(0.0)),
                              rf_b_cmp(L, "eq", rf_val(ai), rf_num(0.0))); /* no reflection */
    rf_value *nonneg = rf_b_cmp(L, "ge", rf_val(ar), rf_num(0.0));
    rf_value *signed_norm = wherev(L, nonneg, rf_val(vneg(L, norm)), rf_val(norm));
    *beta = wherev(L, none, rf_val(ar), rf_val(signed_norm));
    rf_value *bsafe = wherev(L, none, rf_num(1.0), rf_val(*beta));
    rf_value *tau_re = wherev(L, none, rf_num(0.0), rf_b_div(L, rf_b_sub(L, rf_val(*beta), alpha.re), rf_val(bsafe)));
    *tau = rf_cx_values(tau_re, wherev(L, none, rf_num(0.0), rf_b_div(L, rf_val(vneg(L, ai)), rf_val(bsafe))));
    /* t / (alpha - beta) = t conj(d) / |d|^2 */
    rf_value *dre = wherev(L, none, rf_num(1.0), rf_b_sub(L, alpha.re, rf_val(*beta)));
    rf_value *dim_ = wherev(L, none, rf_num(0.0), alpha.im);
    rf_value *d2 = vadd(L, vmul(L, dre, dre), vmul(L, dim_, dim_));
    rf_value *inv_re = rf_b_div(L, rf_val(dre), rf_val(d2)).v;
    rf_cx inv = rf_cx_values(inv_re, rf_b_div(L, rf_val(vneg(L, dim_)), rf_val(d2)).v);
    rf_cx vt = rf_cx_mul(L, tail, inv);
    rf_value *one_re = rf_b_full_like(L, ar, 1.0);
    rf_cx one[2] = {rf_cx_values(one_re, rf_b_zeros_like(L, ai)), vt};
    *v = rf_lx_cat(L, 2, one, -2);
    rf_cx ctau = rf_cx_conj(L, *tau);
    return rf_cx_sub(L, t, rf_cx_mul(L, ctau, rf_lx_matmul(L, *v, rf_lx_hmatmul(L, *v, t))));
}

/* A batch-shaped block of zeros (..., rows, cols): x[..., :rows, :0] @ eye[:0, :] */
static rf_value *zero_block(rf_lowering *L, rf_value *x, int64_t rows, rf_value *eye_cols) {
    return rf_b_matmul(L, rf_b_slice(L, rf_b_slice(L, x, -2, 0, rows), -1, 0, 0), rf_b_slice(L, eye_cols, 0, 0, 0));
}

static rf_value *eye(rf_lowering *L, int64_t n, rf_dtype w) {
    int64_t dims[2] = {n, n};
    double *e = rf_alloc(rf_out_graph(L), (size_t)(n > 0 ? n * n : 1) * sizeof(double));
    for (int64_t i = 0; i < n * n; i++) e[i] = (i % (n + 1)) == 0 ? 1.0 : 0.0;
    return rf_b_constant(L, "eye", w, 2, dims, e);
}

/* linalg_qr(A, mode) -> (Q, R) */
rf_status rf_lx_qr_rule(rf_lowering *L, const rf_node *n) {
    rf_cx a;
    int64_t m, k;
    if (!rf_lx_spectral_in(L, n, 2, "A", &a, &m, &k)) return rf_status_of(L);
    rf_dtype w = rf_work_dtype(L, n);
    const char *mode = rf_lx_str_arg(n, "mode", "reduced");
    int complete = strcmp(mode, "complete") == 0, ronly = strcmp(mode, "r") == 0;
    if (!complete && !ronly && strcmp(mode, "reduced") != 0)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: unknown mode \"%s\"", n->op, mode);
    int64_t p = m < k ? m : k;
    rf_value *em = eye(L, m, w), *ek = eye(L, k, w);
    rf_cx *rows = rf_alloc(rf_out_graph(L), (size_t)(p + 1) * sizeof(rf_cx));
    if (!rows) return rf_fail(L, n, RF_ERR_NOMEM, "out of memory");
    /* Q = H_0 H_1 ... H_{p-1}, built from a batch-shaped identity */
    rf_value *q_re = vadd(L, zero_block(L, a.re.v, m, em), em);
    rf_cx q = rf_cx_values(q_re, zero_block(L, a.re.v, m, em));
    rf_cx t = a;
    for (int64_t s = 0; s < p; s++) {
        rf_cx v, tau;
        rf_value *beta;
        rf_cx t2 = reflect(L, t, m - s, &v, &tau, &beta);
        rf_cx head[2] = {rf_cx_values(beta, rf_b_zeros_like(L, beta)), rf_lx_block(L, t2, 0, 1, 1, k - s)};
        rf_cx row = rf_lx_cat(L, 2, head, -1);
        rf_value *row_re = rf_b_pad_dim(L, row.re.v, -1, s, 0, 0.0);
        rows[s] = rf_cx_values(row_re, rf_b_pad_dim(L, row.im.v, -1, s, 0, 0.0));
        if (!ronly) { /* Q H = Q - tau (Q v) v^H */
            rf_value *vf_re = rf_b_pad_dim(L, v.re.v, -2, s, 0, 0.0);
            rf_cx vf = rf_cx_values(vf_re, rf_b_pad_dim(L, v.im.v, -2, s, 0, 0.0));
            q = rf_cx_sub(L, q, rf_cx_mul(L, tau, rf_lx_matmul(L, rf_lx_matmul(L, q, vf), rf_lx_adj(L, vf))));
        }
        t = rf_lx_block(L, t2, 1, m - s, 1, k - s);
        RF_CHECK(L);
    }
    int64_t rrows = complete ? m : p, nrows = p;
    if (rrows > p || p == 0) { /* zero rows below (complete, m > k) or an empty R */
        rf_value *z_re = zero_block(L, a.re.v, rrows - p, ek);
        rows[nrows++] = rf_cx_values(z_re, zero_block(L, a.re.v, rrows - p, ek));
    }
    rf_set_cx(L, n->outs[1], rf_lx_cat(L, (size_t)nrows, rows, -2));
    if (ronly) { /* torch gives an empty Q */
        rf_set_cx(L, n->outs[0], rf_cx_values(rf_b_slice(L, rf_b_flatten(L, em, 0, 1), 0, 0, 0), NULL));
    } else {
        int64_t qc = complete ? m : p;
        rf_set_cx(L, n->outs[0], rf_lx_slice(L, q, -1, 0, qc));
    }
    RF_CHECK(L);
    return RF_OK;
}
