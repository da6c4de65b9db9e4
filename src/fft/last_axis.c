/* 1-D transforms along the last axis in split layout (last_axis.h): the
 * plans of plan.c as matmuls, twiddle multiplies and reshapes. */
#include "fft/last_axis.h"

#include <stdio.h>

#include "fft/graph_real.h"
#include "fft/left.h"
#include "fft/plan.h"
#include "ir/mem.h"

/* The direct DFT of size p from the right: [..., 2, p] -> [..., 2, p]. */
static rf_fft_blk direct(rf_fft_ctx *f, rf_fft_blk x, int64_t p, int sign) {
    rf_lowering *L = f->L;
    /* a pending scale of the caller's (fold_scale, context.h) rides in the table: the transform is linear */
    double scale = rf_fft_take_scale(f);
    rf_value *w = rf_fft_dft_matrix_rolled(f, p, sign, 0, x.real, f->roll_in, f->roll_out, scale);
    rf_value *v = x.real ? x.v : rf_b_flatten(L, x.v, -2, -1);
    return rf_fft_bk(rf_b_unflatten(L, rf_b_matmul(L, v, w), -1, 2, (int64_t[]){2, p}), 0);
}

/* y * w_(p*rest)^(k*r) for y [..., 2, k, r] (p x rest), or [..., 2, k, r, D] with `trail` (the twiddle
 * broadcast over D): one fused elementwise expression. */
static rf_fft_blk twiddle(rf_fft_ctx *f, rf_value *y, int64_t p, int64_t rest, int trail, int sign) {
    int64_t m = p * rest;
    double *tc = rf_fft_dalloc(f, (size_t)m), *ts = rf_fft_dalloc(f, (size_t)m);
    rf_fft_blk out = rf_fft_bk(NULL, 0);
    if (tc && ts) {
        rf_fft_cos_sin_table(p, rest, m, tc, ts);
        for (int64_t i = 0; i < m; i++) ts[i] = sign * ts[i] + 0.0;
        char name[64];
        snprintf(name, sizeof name, "twiddle%lldx%lld%s%s", (long long)p, (long long)rest, trail ? "_cols" : "",
                 sign < 0 ? "" : "_inv");
        int64_t sd[3] = {p, rest, 1};
        out = rf_fft_cmul(f, rf_fft_bk(y, 0), trail ? -4 : -3, name, trail ? 3 : 2, sd, tc, ts);
    }
    rf_free(tc);
    rf_free(ts);
    return out;
}

/* The stages after the first, all from the left: v is
 * [..., 2, m, D] with m = prod factors still to do and D the outputs done so
 * far (lower digits). A stage of radix p views m as (p, rest), takes one
 * matmul over the 2*p rows (columns rest*D), twiddles, and moves its digit
 * before the done ones: [..., 2, rest, p*D]. The last leaves [..., 2, n], the
 * spectrum in order, so whatever reads it reads rows, not a transpose. */
static rf_fft_blk in_order_stages(rf_fft_ctx *f, rf_value *v, const int64_t *factors, int k, int64_t m, int sign) {
    rf_lowering *L = f->L;
    for (int i = 0; i < k && v; i++) {
        int64_t p = factors[i], rest = m / p, d = v->dims[v->rank - 1].size;
        rf_value *u = v;
        if (rest > 1) u = rf_b_unflatten(L, v, -2, 2, (int64_t[]){p, rest}); /* [..., 2, p, rest, D] */
        u = rf_b_flatten(L, u, rest > 1 ? -4 : -3, rest > 1 ? -3 : -2);      /* the 2*p rows */
        if (rest > 1) u = rf_b_flatten(L, u, -2, -1);                         /* [..., 2*p, rest*D] */
        u = rf_b_matmul(L, rf_fft_dft_matrix(f, p, sign, 1, 0), u);
        u = rf_b_unflatten(L, u, -2, 2, (int64_t[]){2, p}); /* [..., 2, k_i, rest*D] */
        if (rest == 1) return rf_fft_bk(rf_b_flatten(L, u, -2, -1), 0);
        u = rf_b_unflatten(L, u, -1, 2, (int64_t[]){rest, d});
        rf_fft_blk y = twiddle(f, u, p, rest, 1, sign);
        v = y.v ? rf_b_flatten(L, rf_b_transpose(L, y.v, -3, -2), -2, -1) : NULL; /* [..., 2, rest, p*D] */
        m = rest;
    }
    return rf_fft_bk(NULL, 0);
}

/* Cooley–Tukey over factors (n = prod factors): x [..., (2,) n] is viewed as
 * [..., (2,) n1, n2] (j = n2*j1 + j2); a size-n1 DFT from the left (one matmul
 * over the 2*n1 rows, or the n1 rows of a real x), the twiddle w_n^(k1*j2),
 * then in_order_stages on [..., 2, j2, k1]. */
static rf_fft_blk cooley_tukey(rf_fft_ctx *f, rf_fft_blk x, const int64_t *factors, int k, int64_t n, int sign) {
    rf_lowering *L = f->L;
    if (n == 1) return x;
    if (k == 1) return direct(f, x, n, sign);
    int64_t n1 = factors[0], n2 = n / n1;
    rf_value *v = rf_b_unflatten(L, x.v, -1, 2, (int64_t[]){n1, n2}); /* [..., (2,) n1, n2] */
    if (!x.real) v = rf_b_flatten(L, v, -3, -2);         /* [..., 2*n1, n2] */
    v = rf_b_matmul(L, rf_fft_dft_matrix(f, n1, sign, 1, x.real), v);
    v = rf_b_unflatten(L, v, -2, 2, (int64_t[]){2, n1}); /* [..., 2, k1, j2] */
    rf_fft_blk y = twiddle(f, v, n1, n2, 0, sign);
    if (!y.v) return y;
    return in_order_stages(f, rf_b_transpose(L, y.v, -2, -1), factors + 1, k - 1, n2, sign);
}

/* Bluestein: X[k] = w[k] * sum_j (x[j] w[j]) conj(w[k-j]), w[j] = exp(sign*i*pi*j^2/n),
 * the sum a circular convolution of length m done with two FFTs of length m. */
static rf_fft_blk bluestein(rf_fft_ctx *f, rf_fft_blk x, const rf_fft_plan *plan, int sign) {
    rf_lowering *L = f->L;
    int64_t n = plan->n, m = plan->m;
    double *wr = rf_fft_dalloc(f, (size_t)n), *wi = rf_fft_dalloc(f, (size_t)n);
    double *br = rf_fft_dalloc(f, (size_t)m), *bi = rf_fft_dalloc(f, (size_t)m);
    rf_fft_blk out = rf_fft_bk(NULL, 0);
    if (wr && wi && br && bi && rf_fft_bluestein_kernel(n, m, sign, br, bi) == 0) {
        rf_fft_bluestein_chirp(n, sign, wr, wi);
        char chirp[48], kern[64];
        snprintf(chirp, sizeof chirp, "chirp%lld%s", (long long)n, sign < 0 ? "" : "_inv");
        snprintf(kern, sizeof kern, "bluestein%lld_%lld%s", (long long)n, (long long)m, sign < 0 ? "" : "_inv");
        rf_fft_blk a = rf_fft_cmul(f, x, -2, chirp, 1, &n, wr, wi);
        a = rf_fft_bk(rf_b_pad_dim(L, a.v, -1, 0, m - n, 0.0), 0);
        a = cooley_tukey(f, a, plan->factors, plan->nfactors, m, -1);
        a = rf_fft_cmul(f, a, -2, kern, 1, &m, br, bi);
        a = cooley_tukey(f, a, plan->factors, plan->nfactors, m, 1);
        a = rf_fft_bk(rf_b_resize(L, a.v, -1, n), 0);
        out = rf_fft_cmul(f, a, -2, chirp, 1, &n, wr, wi);
    } else {
        f->oom = 1;
    }
    rf_free(wr);
    rf_free(wi);
    rf_free(br);
    rf_free(bi);
    return out;
}

/* Plans a length-n transform; on failure marks f (out of memory, or tables
 * over the cap) and returns 0. */
static int plan_ok(rf_fft_ctx *f, int64_t n, rf_fft_plan *plan) {
    int r = rf_fft_plan_make(n, plan);
    if (r == -2) f->oom = -(int)n;
    else if (r) f->oom = 1;
    return r == 0;
}

/* The unnormalised DFT along the last axis (static size n): sign -1 forward
 * (exp(-2*pi*i*jk/n)), +1 backward. */
rf_fft_blk rf_fft_dft_last(rf_fft_ctx *f, rf_fft_blk x, int64_t n, int sign) {
    rf_fft_plan plan;
    if (!x.v) return x;
    if (!plan_ok(f, n, &plan)) {
        return rf_fft_bk(NULL, 0);
    }
    if ((f->roll_in || f->roll_out) && !rf_fft_plan_is_direct(&plan)) { /* only direct tables take rolls */
        f->oom = 1;
        return rf_fft_bk(NULL, 0);
    }
    if (plan.m) return bluestein(f, x, &plan, sign);
    return cooley_tukey(f, x, plan.factors, plan.nfactors, n, sign);
}

/* x * (a + b sin(2 pi k/n) + i c cos(2 pi k/n)), k < len: the constants of the
 * real-FFT packing. */
static rf_fft_blk packing_mul(rf_fft_ctx *f, rf_fft_blk x, const char *name, int64_t len, int64_t n, double a, double b,
                              double c) {
    double *re = rf_fft_dalloc(f, (size_t)len), *im = rf_fft_dalloc(f, (size_t)len);
    rf_fft_blk out = rf_fft_bk(NULL, 0);
    if (re && im) {
        for (int64_t k = 0; k < len; k++) {
            double cs, sn;
            rf_fft_unit_root(k, n, &cs, &sn);
            re[k] = a + b * sn;
            im[k] = c * cs;
        }
        out = rf_fft_cmul(f, x, -2, name, 1, &len, re, im);
    }
    rf_free(re);
    rf_free(im);
    return out;
}

/* Forward DFT of a real x [..., n] along the last axis: the first n/2+1
 * outputs, in split layout. */
rf_fft_blk rf_fft_rdft_last(rf_fft_ctx *f, rf_value *x, int64_t n) {
    rf_lowering *L = f->L;
    int64_t m = n / 2 + 1;
    if (n == 1 || !x) return rf_fft_bk(x, 1);
    rf_fft_blk g;
    if (rf_fft_rdft_graph(f, x, n, &g)) return g;
    rf_fft_plan plan;
    if (!plan_ok(f, n, &plan)) {
        return rf_fft_bk(NULL, 0);
    }
    char name[48];
    if (rf_fft_plan_is_direct(&plan)) /* x @ the packed basis, read out as pairs */
        return rf_fft_bk(rf_fft_unpack_last(f, rf_fft_packed_basis(f, x, n, -1), n), 0);
    if (n % 2) { /* odd: the complex transform of (x, 0), then the kept half */
        rf_fft_blk y = rf_fft_dft_last(f, rf_fft_bk(x, 1), n, -1);
        return rf_fft_bk(rf_b_resize(L, y.v, -1, m), 0);
    }
    /* even: z[j] = x[2j] + i x[2j+1] through a complex DFT of length h = n/2, then
     * X[k] = A[k] Z[k] + B[k] conj(Z[h-k]), A = (1 - i w^k)/2, B = (1 + i w^k)/2 */
    int64_t h = n / 2;
    rf_value *z = rf_b_transpose(L, rf_b_unflatten(L, x, -1, 2, (int64_t[]){h, 2}), -1, -2); /* [..., 2, h] */
    rf_fft_blk zz = rf_fft_dft_last(f, rf_fft_bk(z, 0), h, -1);
    /* Z[k mod h], k <= h, and conj(Z[h-k]) */
    rf_fft_blk ze = rf_fft_bk(rf_b_cat(L, 2, (rf_value *[]){zz.v, rf_b_resize(L, zz.v, -1, 1)}, -1), 0);
    rf_fft_blk zr = rf_fft_bconj(f, rf_fft_bk(rf_b_flip(L, ze.v, -1), 0));
    snprintf(name, sizeof name, "rfft%lld_a", (long long)n);
    rf_fft_blk t = packing_mul(f, ze, name, m, n, 0.5, -0.5, -0.5);
    snprintf(name, sizeof name, "rfft%lld_b", (long long)n);
    return rf_fft_badd(L, t, packing_mul(f, zr, name, m, n, 0.5, 0.5, 0.5));
}

/* Backward DFT along the last axis of a Hermitian half spectrum x (n/2+1
 * entries; the imaginary parts of X[0] and, for even n, X[n/2] are ignored):
 * the real signal [..., n]. */
rf_value *rf_fft_irdft_last(rf_fft_ctx *f, rf_fft_blk x, int64_t n) {
    rf_lowering *L = f->L;
    if (!x.v) return NULL;
    int64_t m = n / 2 + 1;
    x.v = rf_b_resize(L, x.v, -1, m);
    if (n == 1) return x.real ? x.v : rf_b_select(L, x.v, -2, 0);
    rf_value *g;
    if (rf_fft_irdft_graph(f, x, n, &g)) return g;
    rf_fft_plan plan;
    if (!plan_ok(f, n, &plan)) {
        return NULL;
    }
    char name[48];
    if (rf_fft_plan_is_direct(&plan) && !x.real) return rf_fft_packed_inverse(f, rf_b_flatten(L, x.v, -2, -1), n);
    if (rf_fft_plan_is_direct(&plan)) { /* Re X @ (w cos), w = 1 at 0 and n/2, else 2 */
        double *c = rf_fft_dalloc(f, (size_t)(m * n)), *s = rf_fft_dalloc(f, (size_t)(m * n));
        rf_value *k = NULL;
        if (c && s) {
            rf_fft_cos_sin_table(m, n, n, c, s);
            for (int64_t q = 0; q < m; q++)
                for (int64_t j = 0; j < n; j++) c[q * n + j] *= (q == 0 || 2 * q == n) ? 1.0 : 2.0;
            snprintf(name, sizeof name, "irdft%lld_real", (long long)n);
            int64_t dims[2] = {m, n};
            k = rf_fft_const(f, name, f->dt, 2, dims, c);
        }
        rf_free(c);
        rf_free(s);
        return rf_b_matmul(L, x.v, k);
    }
    if (n % 2) { /* odd: the full Hermitian spectrum through a complex transform */
        rf_fft_blk tail = rf_fft_bconj(f, rf_fft_bk(rf_b_flip(L, rf_b_slice(L, x.v, -1, 1, m), -1), x.real));
        rf_fft_blk full = rf_fft_bk(rf_b_cat(L, 2, (rf_value *[]){x.v, tail.v}, -1), x.real);
        rf_fft_blk y = rf_fft_dft_last(f, full, n, 1);
        return (!y.v || y.real) ? y.v : rf_b_select(L, y.v, -2, 0);
    }
    /* even: Z[k] = X[k] (1 + i v^k) + conj(X[h-k]) (1 - i v^k), v = exp(2*pi*i/n), k < h;
     * z = the length-h backward DFT of Z holds x[2j] + i x[2j+1] */
    int64_t h = n / 2;
    if (!x.real) { /* drop Im X[0] and Im X[h], as torch does */
        double *mask = rf_fft_dalloc(f, (size_t)(2 * m));
        if (!mask) return NULL;
        for (int64_t k = 0; k < m; k++) mask[k] = 1.0, mask[m + k] = (k == 0 || k == h) ? 0.0 : 1.0;
        snprintf(name, sizeof name, "hermitian_mask%lld", (long long)m);
        int64_t dims[2] = {2, m};
        x.v = rf_fft_mul_const(L, x.v, rf_fft_const(f, name, f->dt, 2, dims, mask));
        rf_free(mask);
    }
    rf_fft_blk p = rf_fft_bk(rf_b_resize(L, x.v, -1, h), x.real);
    rf_fft_blk q = rf_fft_bconj(f, rf_fft_bk(rf_b_resize(L, rf_b_flip(L, x.v, -1), -1, h), x.real));
    snprintf(name, sizeof name, "irfft%lld_a", (long long)n);
    rf_fft_blk t = packing_mul(f, p, name, h, n, 1.0, -1.0, 1.0);
    snprintf(name, sizeof name, "irfft%lld_b", (long long)n);
    rf_fft_blk z = rf_fft_dft_last(f, rf_fft_badd(L, t, packing_mul(f, q, name, h, n, 1.0, 1.0, -1.0)), h, 1);
    if (!z.v) return NULL;
    return rf_b_flatten(L, rf_b_transpose(L, z.v, -2, -1), -2, -1); /* [..., h, 2] -> x */
}
