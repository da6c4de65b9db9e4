/* The FFT family in real arithmetic (DESIGN.md §3): _fft_c2c, _fft_r2c and
 * _fft_c2r become real matmuls against constant DFT matrices, twiddle
 * multiplies and reshapes, following the plans of plan.c. Every torch.fft
 * function, stft and istft reaches these three ops (rules/fft_ops.c and
 * rules/fft_stft.c lower the composite forms torch.export keeps).
 *
 * Rules see a complex tensor as an rf_cx of two real tensors. Inside a
 * transform it is one real tensor in split layout, [..., 2, n]: the real and
 * imaginary rows stacked on the axis before the transformed one. A DFT stage is
 * then a single matmul against a block matrix [[C, S], [-S, C]] (C, S: the cos
 * and sin tables), a twiddle multiply is one fused elementwise expression, and
 * reordering is a transpose: few, large kernels. Cooley–Tukey stages all run
 * from the left and write the spectrum in order (in_order_stages). A real
 * input skips the imaginary half ([C | S], [C; S]). A direct-size transform over an axis
 * that is not the last runs from the left where it is (left.c); the others
 * run along the last axis, swapped to the end and back. Sizes along
 * transformed axes must be static; every other axis may be symbolic (only
 * unflatten/flatten of the last axes, matmuls against constants and transposes
 * are used; a left stage also needs the axes after its own static). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft/engine.h"
#include "ir/mem.h"
#include "fft/left.h"
#include "fft/plan.h"

/* A complex tensor in split layout [..., 2, n], or a real one [..., n] when
 * `real` is set (imaginary part zero). */
typedef struct blk {
    rf_value *v;
    int real;
} blk;

static blk bk(rf_value *v, int real) { return (blk){v, real}; }

/* The value v selects row `index` of the split axis from, or NULL. */
static rf_value *split_source(const rf_value *v, int64_t index) {
    const rf_node *n = v->producer;
    if (!n || strcmp(n->op, "aten.select.int") != 0) return NULL;
    const rf_attr *self = rf_node_arg(n, "self"), *dim = rf_node_arg(n, "dim"), *idx = rf_node_arg(n, "index");
    if (!self || self->kind != RF_A_VALUE || !dim || dim->kind != RF_A_INT || !idx || idx->kind != RF_A_INT)
        return NULL;
    rf_value *src = self->value;
    int split = src->rank - 2;
    if (src->rank < 2 || (dim->i != -2 && dim->i != split) || idx->i != index) return NULL;
    if (src->dims[split].sym || src->dims[split].size != 2) return NULL;
    return src;
}

static blk blk_of_pair(rf_lowering *L, rf_cx x) {
    rf_value *re = x.re.v, *im = rf_cx_im_or_null(x);
    if (!re) return bk(NULL, 0);
    if (!im) return bk(re, 1);
    rf_value *src = split_source(re, 0); /* the parts of an earlier transform's output: no copy */
    if (src && src == split_source(im, 1)) return bk(src, 0);
    return bk(rf_b_stack2(L, re, im, -2), 0);
}

static rf_cx pair_of_blk(rf_lowering *L, blk b) {
    if (!b.v || b.real) return rf_cx_values(b.v, NULL);
    rf_value *re = rf_b_select(L, b.v, -2, 0);
    return rf_cx_values(re, rf_b_select(L, b.v, -2, 1));
}

/* ---- constants ---- */

static int all_zero(const double *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (v[i] != 0.0) return 0;
    return 1;
}

static double *dalloc(rf_fft_ctx *f, size_t n) {
    double *p = rf_calloc(n ? n : 1, sizeof(double));
    if (!p) f->oom = 1;
    return p;
}

/* The DFT matrix of size p and sign s, F[j][k] = cos(2 pi jk/p) + i s sin(2 pi jk/p),
 * as a real matrix for the split layout:
 *   right, complex: [x_re | x_im] @ [[C, sS], [-sS, C]]     (2p x 2p)
 *   right, real:    x @ [C | sS]                             (p x 2p)
 *   left, complex:  [[C, -sS], [sS, C]] @ [x_re; x_im]      (2p x 2p)
 *   left, real:     [C; sS] @ x                              (2p x p) */
static rf_value *dft_matrix(rf_fft_ctx *f, int64_t p, int sign, int left, int real) {
    size_t pp = (size_t)(p * p);
    double *c = dalloc(f, pp), *s = dalloc(f, pp);
    int64_t rows = (real && !left) ? p : 2 * p, cols = (real && left) ? p : 2 * p;
    double *w = dalloc(f, (size_t)(rows * cols));
    rf_value *v = NULL;
    if (c && s && w) {
        rf_fft_cos_sin_table(p, p, p, c, s);
        for (int64_t j = 0; j < p; j++)
            for (int64_t k = 0; k < p; k++) {
                double cc = c[j * p + k], ss = sign * s[j * p + k] + 0.0;
                if (real && !left) {
                    w[j * cols + k] = cc, w[j * cols + p + k] = ss;
                } else if (real) {
                    w[j * cols + k] = cc, w[(p + j) * cols + k] = ss;
                } else {
                    double off = left ? -ss : ss; /* the top-right block */
                    w[j * cols + k] = cc;
                    w[j * cols + p + k] = off + 0.0;
                    w[(p + j) * cols + k] = -off + 0.0;
                    w[(p + j) * cols + p + k] = cc;
                }
            }
        char hint[64];
        /* the left matrix of one sign is the right matrix of the other: name by content */
        int s_eff = (left && !real) ? -sign : sign;
        snprintf(hint, sizeof hint, "dft%lld_%s%s", (long long)p, real ? (left ? "real_left" : "real") : "block",
                 s_eff < 0 ? "" : "_inv");
        int64_t dims[2] = {rows, cols};
        v = rf_fft_const(f, hint, f->dt, 2, dims, w);
    }
    rf_free(c);
    rf_free(s);
    rf_free(w);
    return v;
}

/* x * k for a complex constant k (re, im given in double, shape sdims) that
 * broadcasts over the dims after x's split axis, which is axis `split` of x
 * (negative). In split layout: x * k_re + flip(x, split) * [-k_im; k_im]. The
 * sign rides in the constant (a * -b is -(a * b) exactly), so a graph runtime,
 * which runs each op as its own pass, makes no pass for it. */
static blk cmul(rf_fft_ctx *f, blk x, int split, const char *name, int srank, const int64_t *sdims, const double *re,
                const double *im) {
    rf_lowering *L = f->L;
    if (!x.v) return x;
    size_t cnt = 1;
    for (int i = 0; i < srank; i++) cnt *= (size_t)sdims[i];
    int64_t d2[RF_MAX_RANK + 1] = {2};
    memcpy(d2 + 1, sdims, (size_t)srank * sizeof(int64_t));
    double *two = dalloc(f, 2 * cnt);
    char hint[80];
    blk out = bk(NULL, 0);
    if (!two) return out;
    if (x.real) { /* x -> [..., 2, S] = unsqueeze(x) * [k_re; k_im] */
        memcpy(two, re, cnt * sizeof(double));
        memcpy(two + cnt, im, cnt * sizeof(double));
        snprintf(hint, sizeof hint, "%s_reim", name);
        rf_value *k = rf_fft_const(f, hint, f->dt, srank + 1, d2, two);
        out = bk(rf_fft_mul_const(L, rf_b_unsqueeze(L, x.v, split), k), 0);
    } else {
        snprintf(hint, sizeof hint, "%s_re", name);
        rf_value *t = rf_fft_mul_const(L, x.v, rf_fft_const(f, hint, f->dt, srank, sdims, re));
        if (!all_zero(im, cnt)) {
            for (size_t i = 0; i < cnt; i++) two[i] = -im[i], two[cnt + i] = im[i];
            snprintf(hint, sizeof hint, "%s_im_signed", name);
            rf_value *u = rf_fft_mul_const(L, rf_b_flip(L, x.v, split), rf_fft_const(f, hint, f->dt, srank + 1, d2, two));
            t = rf_b_add(L, rf_val(t), rf_val(u)).v;
        }
        out = bk(t, 0);
    }
    rf_free(two);
    return out;
}

/* conj in split layout: the imaginary row times -1 */
static blk bconj(rf_fft_ctx *f, blk x) {
    if (!x.v || x.real) return x;
    double sgn[2] = {1.0, -1.0};
    int64_t dims[2] = {2, 1};
    return bk(rf_fft_mul_const(f->L, x.v, rf_fft_const(f, "conj_sign", f->dt, 2, dims, sgn)), 0);
}

static blk badd(rf_lowering *L, blk a, blk b) {
    if (a.real != b.real) return bk(NULL, 0); /* not used: both sides are complex */
    return bk(rf_b_add(L, rf_val(a.v), rf_val(b.v)).v, a.real);
}

/* ---- 1-D transforms along the last axis ---- */

static blk dft_last(rf_fft_ctx *f, blk x, int64_t n, int sign);

/* The direct DFT of size p from the right: [..., 2, p] -> [..., 2, p]. */
static blk direct(rf_fft_ctx *f, blk x, int64_t p, int sign) {
    rf_lowering *L = f->L;
    rf_value *w = dft_matrix(f, p, sign, 0, x.real);
    rf_value *v = x.real ? x.v : rf_b_flatten(L, x.v, -2, -1);
    return bk(rf_b_unflatten(L, rf_b_matmul(L, v, w), -1, 2, (int64_t[]){2, p}), 0);
}

/* y * w_(p*rest)^(k*r) for y [..., 2, k, r] (p x rest), or [..., 2, k, r, D] with `trail` (the twiddle
 * broadcast over D): one fused elementwise expression. */
static blk twiddle(rf_fft_ctx *f, rf_value *y, int64_t p, int64_t rest, int trail, int sign) {
    int64_t m = p * rest;
    double *tc = dalloc(f, (size_t)m), *ts = dalloc(f, (size_t)m);
    blk out = bk(NULL, 0);
    if (tc && ts) {
        rf_fft_cos_sin_table(p, rest, m, tc, ts);
        for (int64_t i = 0; i < m; i++) ts[i] = sign * ts[i] + 0.0;
        char name[64];
        snprintf(name, sizeof name, "twiddle%lldx%lld%s%s", (long long)p, (long long)rest, trail ? "_cols" : "",
                 sign < 0 ? "" : "_inv");
        int64_t sd[3] = {p, rest, 1};
        out = cmul(f, bk(y, 0), trail ? -4 : -3, name, trail ? 3 : 2, sd, tc, ts);
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
static blk in_order_stages(rf_fft_ctx *f, rf_value *v, const int64_t *factors, int k, int64_t m, int sign) {
    rf_lowering *L = f->L;
    for (int i = 0; i < k && v; i++) {
        int64_t p = factors[i], rest = m / p, d = v->dims[v->rank - 1].size;
        rf_value *u = v;
        if (rest > 1) u = rf_b_unflatten(L, v, -2, 2, (int64_t[]){p, rest}); /* [..., 2, p, rest, D] */
        u = rf_b_flatten(L, u, rest > 1 ? -4 : -3, rest > 1 ? -3 : -2);      /* the 2*p rows */
        if (rest > 1) u = rf_b_flatten(L, u, -2, -1);                         /* [..., 2*p, rest*D] */
        u = rf_b_matmul(L, dft_matrix(f, p, sign, 1, 0), u);
        u = rf_b_unflatten(L, u, -2, 2, (int64_t[]){2, p}); /* [..., 2, k_i, rest*D] */
        if (rest == 1) return bk(rf_b_flatten(L, u, -2, -1), 0);
        u = rf_b_unflatten(L, u, -1, 2, (int64_t[]){rest, d});
        blk y = twiddle(f, u, p, rest, 1, sign);
        v = y.v ? rf_b_flatten(L, rf_b_transpose(L, y.v, -3, -2), -2, -1) : NULL; /* [..., 2, rest, p*D] */
        m = rest;
    }
    return bk(NULL, 0);
}

/* Cooley–Tukey over factors (n = prod factors): x [..., (2,) n] is viewed as
 * [..., (2,) n1, n2] (j = n2*j1 + j2); a size-n1 DFT from the left (one matmul
 * over the 2*n1 rows, or the n1 rows of a real x), the twiddle w_n^(k1*j2),
 * then in_order_stages on [..., 2, j2, k1]. */
static blk cooley_tukey(rf_fft_ctx *f, blk x, const int64_t *factors, int k, int64_t n, int sign) {
    rf_lowering *L = f->L;
    if (n == 1) return x;
    if (k == 1) return direct(f, x, n, sign);
    int64_t n1 = factors[0], n2 = n / n1;
    rf_value *v = rf_b_unflatten(L, x.v, -1, 2, (int64_t[]){n1, n2}); /* [..., (2,) n1, n2] */
    if (!x.real) v = rf_b_flatten(L, v, -3, -2);         /* [..., 2*n1, n2] */
    v = rf_b_matmul(L, dft_matrix(f, n1, sign, 1, x.real), v);
    v = rf_b_unflatten(L, v, -2, 2, (int64_t[]){2, n1}); /* [..., 2, k1, j2] */
    blk y = twiddle(f, v, n1, n2, 0, sign);
    if (!y.v) return y;
    return in_order_stages(f, rf_b_transpose(L, y.v, -2, -1), factors + 1, k - 1, n2, sign);
}

/* Bluestein: X[k] = w[k] * sum_j (x[j] w[j]) conj(w[k-j]), w[j] = exp(sign*i*pi*j^2/n),
 * the sum a circular convolution of length m done with two FFTs of length m. */
static blk bluestein(rf_fft_ctx *f, blk x, const rf_fft_plan *plan, int sign) {
    rf_lowering *L = f->L;
    int64_t n = plan->n, m = plan->m;
    double *wr = dalloc(f, (size_t)n), *wi = dalloc(f, (size_t)n);
    double *br = dalloc(f, (size_t)m), *bi = dalloc(f, (size_t)m);
    blk out = bk(NULL, 0);
    if (wr && wi && br && bi && rf_fft_bluestein_kernel(n, m, sign, br, bi) == 0) {
        rf_fft_bluestein_chirp(n, sign, wr, wi);
        char chirp[48], kern[64];
        snprintf(chirp, sizeof chirp, "chirp%lld%s", (long long)n, sign < 0 ? "" : "_inv");
        snprintf(kern, sizeof kern, "bluestein%lld_%lld%s", (long long)n, (long long)m, sign < 0 ? "" : "_inv");
        blk a = cmul(f, x, -2, chirp, 1, &n, wr, wi);
        a = bk(rf_b_pad_dim(L, a.v, -1, 0, m - n, 0.0), 0);
        a = cooley_tukey(f, a, plan->factors, plan->nfactors, m, -1);
        a = cmul(f, a, -2, kern, 1, &m, br, bi);
        a = cooley_tukey(f, a, plan->factors, plan->nfactors, m, 1);
        a = bk(rf_b_resize(L, a.v, -1, n), 0);
        out = cmul(f, a, -2, chirp, 1, &n, wr, wi);
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
static blk dft_last(rf_fft_ctx *f, blk x, int64_t n, int sign) {
    rf_fft_plan plan;
    if (!x.v) return x;
    if (!plan_ok(f, n, &plan)) {
        return bk(NULL, 0);
    }
    if (plan.m) return bluestein(f, x, &plan, sign);
    return cooley_tukey(f, x, plan.factors, plan.nfactors, n, sign);
}

/* x * (a + b sin(2 pi k/n) + i c cos(2 pi k/n)), k < len: the constants of the
 * real-FFT packing. */
static blk packing_mul(rf_fft_ctx *f, blk x, const char *name, int64_t len, int64_t n, double a, double b, double c) {
    double *re = dalloc(f, (size_t)len), *im = dalloc(f, (size_t)len);
    blk out = bk(NULL, 0);
    if (re && im) {
        for (int64_t k = 0; k < len; k++) {
            double cs, sn;
            rf_fft_unit_root(k, n, &cs, &sn);
            re[k] = a + b * sn;
            im[k] = c * cs;
        }
        out = cmul(f, x, -2, name, 1, &len, re, im);
    }
    rf_free(re);
    rf_free(im);
    return out;
}

/* Forward DFT of a real x [..., n] along the last axis: the first n/2+1
 * outputs, in split layout. */
static blk rdft_last(rf_fft_ctx *f, rf_value *x, int64_t n) {
    rf_lowering *L = f->L;
    int64_t m = n / 2 + 1;
    if (n == 1 || !x) return bk(x, 1);
    rf_fft_plan plan;
    if (!plan_ok(f, n, &plan)) {
        return bk(NULL, 0);
    }
    char name[48];
    if (rf_fft_plan_is_direct(&plan)) /* x @ the packed basis, read out as pairs */
        return bk(rf_fft_unpack_last(f, rf_fft_packed_basis(f, x, n, -1), n), 0);
    if (n % 2) { /* odd: the complex transform of (x, 0), then the kept half */
        blk y = dft_last(f, bk(x, 1), n, -1);
        return bk(rf_b_resize(L, y.v, -1, m), 0);
    }
    /* even: z[j] = x[2j] + i x[2j+1] through a complex DFT of length h = n/2, then
     * X[k] = A[k] Z[k] + B[k] conj(Z[h-k]), A = (1 - i w^k)/2, B = (1 + i w^k)/2 */
    int64_t h = n / 2;
    rf_value *z = rf_b_transpose(L, rf_b_unflatten(L, x, -1, 2, (int64_t[]){h, 2}), -1, -2); /* [..., 2, h] */
    blk zz = dft_last(f, bk(z, 0), h, -1);
    blk ze = bk(rf_b_cat(L, 2, (rf_value *[]){zz.v, rf_b_resize(L, zz.v, -1, 1)}, -1), 0); /* Z[k mod h], k <= h */
    blk zr = bconj(f, bk(rf_b_flip(L, ze.v, -1), 0));                 /* conj(Z[h-k]) */
    snprintf(name, sizeof name, "rfft%lld_a", (long long)n);
    blk t = packing_mul(f, ze, name, m, n, 0.5, -0.5, -0.5);
    snprintf(name, sizeof name, "rfft%lld_b", (long long)n);
    return badd(L, t, packing_mul(f, zr, name, m, n, 0.5, 0.5, 0.5));
}

/* Backward DFT along the last axis of a Hermitian half spectrum x (n/2+1
 * entries; the imaginary parts of X[0] and, for even n, X[n/2] are ignored):
 * the real signal [..., n]. */
static rf_value *irdft_last(rf_fft_ctx *f, blk x, int64_t n) {
    rf_lowering *L = f->L;
    if (!x.v) return NULL;
    int64_t m = n / 2 + 1;
    x.v = rf_b_resize(L, x.v, -1, m);
    if (n == 1) return x.real ? x.v : rf_b_select(L, x.v, -2, 0);
    rf_fft_plan plan;
    if (!plan_ok(f, n, &plan)) {
        return NULL;
    }
    char name[48];
    if (rf_fft_plan_is_direct(&plan) && !x.real) return rf_fft_packed_inverse(f, rf_b_flatten(L, x.v, -2, -1), n);
    if (rf_fft_plan_is_direct(&plan)) { /* Re X @ (w cos), w = 1 at 0 and n/2, else 2 */
        double *c = dalloc(f, (size_t)(m * n)), *s = dalloc(f, (size_t)(m * n));
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
        blk tail = bconj(f, bk(rf_b_flip(L, rf_b_slice(L, x.v, -1, 1, m), -1), x.real));
        blk full = bk(rf_b_cat(L, 2, (rf_value *[]){x.v, tail.v}, -1), x.real);
        blk y = dft_last(f, full, n, 1);
        return (!y.v || y.real) ? y.v : rf_b_select(L, y.v, -2, 0);
    }
    /* even: Z[k] = X[k] (1 + i v^k) + conj(X[h-k]) (1 - i v^k), v = exp(2*pi*i/n), k < h;
     * z = the length-h backward DFT of Z holds x[2j] + i x[2j+1] */
    int64_t h = n / 2;
    if (!x.real) { /* drop Im X[0] and Im X[h], as torch does */
        double *mask = dalloc(f, (size_t)(2 * m));
        if (!mask) return NULL;
        for (int64_t k = 0; k < m; k++) mask[k] = 1.0, mask[m + k] = (k == 0 || k == h) ? 0.0 : 1.0;
        snprintf(name, sizeof name, "hermitian_mask%lld", (long long)m);
        int64_t dims[2] = {2, m};
        x.v = rf_fft_mul_const(L, x.v, rf_fft_const(f, name, f->dt, 2, dims, mask));
        rf_free(mask);
    }
    blk p = bk(rf_b_resize(L, x.v, -1, h), x.real);
    blk q = bconj(f, bk(rf_b_resize(L, rf_b_flip(L, x.v, -1), -1, h), x.real));
    snprintf(name, sizeof name, "irfft%lld_a", (long long)n);
    blk t = packing_mul(f, p, name, h, n, 1.0, -1.0, 1.0);
    snprintf(name, sizeof name, "irfft%lld_b", (long long)n);
    blk z = dft_last(f, badd(L, t, packing_mul(f, q, name, h, n, 1.0, 1.0, -1.0)), h, 1);
    if (!z.v) return NULL;
    return rf_b_flatten(L, rf_b_transpose(L, z.v, -2, -1), -2, -1); /* [..., h, 2] -> x */
}

/* ---- n-dimensional transforms (engine.h) ---- */

/* The blk dim of pair dim d (pair rank r): the split axis sits before the last. */
static int blk_dim(const blk *b, int64_t d, int pair_rank) {
    return (!b->real && d == pair_rank - 1) ? pair_rank : (int)d;
}

/* A 1-D transform along pair dim d of b (pair rank r), through the last axis. */
static blk along(rf_fft_ctx *f, blk b, int64_t d, int r, int sign) {
    if (!b.v) return b;
    int e = b.v->rank - 1, bd = blk_dim(&b, d, r);
    if (!b.real && rf_fft_left_ok(b.v, bd, e - 1)) return bk(rf_fft_left_direct(f, b.v, bd, 0, sign, 0), 0);
    rf_value *v = rf_b_transpose(f->L, b.v, bd, e);
    if (!v) return bk(NULL, 0);
    blk y = dft_last(f, bk(v, b.real), v->dims[e].size, sign);
    if (!y.v) return y;
    if (y.real) return bk(rf_b_transpose(f->L, y.v, bd, e), 1); /* a length-1 transform of a real tensor */
    /* the result is complex: the pair's last dim now sits at bd (d < r - 1) or is the last axis */
    return bk(rf_b_transpose(f->L, y.v, (int)d == r - 1 ? y.v->rank - 1 : (int)d, y.v->rank - 1), 0);
}

static blk c2c_blk(rf_fft_ctx *f, blk b, const int64_t *dims, size_t nd, int r, int sign) {
    for (size_t i = 0; i < nd; i++) b = along(f, b, dims[i], r, sign);
    return b;
}

static rf_cx pairs_of_interleaved(rf_lowering *L, rf_value *y) {
    if (!y) return rf_cx_values(NULL, NULL);
    rf_value *im = rf_b_select(L, y, -1, 1); /* im first: the node order the lowered graphs have had */
    return rf_cx_values(rf_b_select(L, y, -1, 0), im);
}

/* c2c_blk as pairs: a final left stage writes them interleaved, so a graph
 * output needs no restacking pass. */
static rf_cx c2c_pairs(rf_fft_ctx *f, blk b, const int64_t *dims, size_t nd, int r, int sign) {
    if (!nd || !b.v) return pair_of_blk(f->L, b);
    b = c2c_blk(f, b, dims, nd - 1, r, sign);
    int bd = b.v ? blk_dim(&b, dims[nd - 1], r) : 0;
    if (b.v && !b.real && rf_fft_left_ok(b.v, bd, b.v->rank - 2))
        return pairs_of_interleaved(f->L, rf_fft_left_direct(f, b.v, bd, 0, sign, 1));
    return pair_of_blk(f->L, along(f, b, dims[nd - 1], r, sign));
}

/* v read at index (-k) mod s along dim: [v0, v[s-1], ..., v1]. */
static rf_value *mirrored(rf_lowering *L, rf_value *v, int64_t dim) {
    int64_t s = v->dims[dim].size;
    if (s <= 2) return v; /* (-k) mod s == k */
    rf_value *parts[2] = {rf_b_slice(L, v, dim, 0, 1), rf_b_flip(L, rf_b_slice(L, v, dim, 1, s), dim)};
    return rf_b_cat(L, 2, parts, dim);
}

/* The forward transform of a real input from its one-sided transform h (the first n/2+1 outputs along the last
 * transformed dim d). The spectrum is Hermitian, Z[k] = conj(Z[-k]) over all transformed dims, so outputs
 * n/2+1 .. n-1 along d are h at d-indices n/2-1 (or (n-1)/2) down to 1, mirrored along the other dims and
 * conjugated: gathers and a negation, which a compiler fuses into what reads them (or writes out once). */
static rf_cx hermitian_completion(rf_lowering *L, rf_cx h, const int64_t *dims, size_t nd, int64_t n) {
    int64_t d = dims[nd - 1], rest = n - (n / 2 + 1);
    if (rest <= 0 || !h.re.v) return h;
    rf_value *im = rf_cx_im_or_null(h); /* NULL: a real spectrum, whose mirror is real too */
    rf_value *tail[2] = {h.re.v, im};
    for (int p = 0; p < 2 && tail[p]; p++) {
        tail[p] = rf_b_flip(L, rf_b_slice(L, tail[p], d, 1, rest + 1), d);
        for (size_t i = 0; i + 1 < nd; i++) tail[p] = mirrored(L, tail[p], dims[i]);
    }
    rf_value *re[2] = {h.re.v, tail[0]};
    if (!im) return rf_cx_values(rf_b_cat(L, 2, re, d), NULL);
    rf_value *ims[2] = {im, rf_b_neg(L, (rf_rv){tail[1], 0.0}).v};
    return rf_cx_values(rf_b_cat(L, 2, re, d), rf_b_cat(L, 2, ims, d));
}

/* The entry points build nothing once the lowering has failed: operands may
 * then be stand-ins of unknown rank. */
rf_cx rf_fft_c2c_dims(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int sign) {
    if (rf_status_of(f->L) != RF_OK) return rf_cx_values(NULL, NULL);
    if (!nd || !x.re.v) return x;
    if (!rf_cx_im_or_null(x) && sign < 0 && rf_options(f->L)->fft != RF_FFT_ONNX_DFT) {
        /* a real input (fft2 of real x traces as c2c of x + 0i): the one-sided transform does half the work
         * (natively, its first half is eager's rfftn bit for bit). Forward only: an inverse's conjugation would
         * sign the zero imaginary parts unlike eager's c2c. onnx-dft keeps its DFT node per axis. */
        int64_t n = x.re.v->dims[dims[nd - 1]].size;
        return hermitian_completion(f->L, rf_fft_r2c_dims(f, x.re.v, dims, nd, 1), dims, nd, n);
    }
    if (rf_fft_native(f)) return rf_fft_native_c2c(f, x, dims, nd, sign);
    int r = x.re.v->rank;
    return c2c_pairs(f, blk_of_pair(f->L, x), dims, nd, r, sign);
}

rf_cx rf_fft_r2c_dims(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided) {
    if (rf_status_of(f->L) != RF_OK) return rf_cx_values(NULL, NULL);
    if (!nd || !x) return rf_cx_values(x, NULL);
    if (rf_fft_native(f)) return rf_fft_native_r2c(f, x, dims, nd, onesided);
    int r = x->rank, e = r - 1;
    int64_t d = dims[nd - 1];
    blk y;
    if (onesided && d == e && nd >= 2 && rf_fft_is_direct(x->dims[e].size) && rf_fft_left_ok(x, (int)dims[nd - 2], e)) {
        /* the packed output of the last dim feeds the next dim's left stage directly */
        rf_value *p = rf_fft_packed_basis(f, x, x->dims[e].size, -1);
        int last = nd == 2;
        rf_value *v = rf_fft_left_direct(f, p, (int)dims[nd - 2], x->dims[e].size, -1, last);
        return last ? pairs_of_interleaved(f->L, v) : c2c_pairs(f, bk(v, 0), dims, nd - 2, r, -1);
    }
    if (onesided) {
        rf_value *t = rf_b_transpose(f->L, x, (int)d, e);
        if (!t) return rf_cx_values(NULL, NULL);
        y = rdft_last(f, t, t->dims[e].size);
        if (y.v && !y.real) y = bk(rf_b_transpose(f->L, y.v, (int)d == e ? y.v->rank - 1 : (int)d, y.v->rank - 1), 0);
        else if (y.v) y = bk(rf_b_transpose(f->L, y.v, (int)d, e), 1);
    } else {
        y = along(f, bk(x, 1), d, r, -1);
    }
    return c2c_pairs(f, y, dims, nd - 1, r, -1);
}

rf_value *rf_fft_c2r_dims(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int64_t last_dim_size) {
    if (rf_status_of(f->L) != RF_OK || !nd || !x.re.v) return NULL;
    if (rf_fft_native(f)) return rf_fft_native_c2r(f, x, dims, nd, last_dim_size);
    int r = x.re.v->rank;
    blk b = c2c_blk(f, blk_of_pair(f->L, x), dims, nd - 1, r, 1);
    if (!b.v) return NULL;
    int64_t d = dims[nd - 1];
    int bd = blk_dim(&b, d, r);
    b.v = rf_b_transpose(f->L, b.v, bd, b.v->rank - 1);
    rf_value *out = irdft_last(f, b, last_dim_size); /* [..., n], rank r */
    return rf_b_transpose(f->L, out, (int)d, r - 1);
}

rf_cx rf_fft_transpose_pair(rf_lowering *L, rf_cx x, int d0, int d1) {
    rf_value *re = rf_b_transpose(L, x.re.v, d0, d1);
    return rf_cx_values(re, rf_b_transpose(L, rf_cx_im_or_null(x), d0, d1));
}

rf_cx rf_fft_resize_pair(rf_lowering *L, rf_cx x, int64_t d, int64_t size) {
    rf_value *re = rf_b_resize(L, x.re.v, d, size);
    return rf_cx_values(re, rf_b_resize(L, rf_cx_im_or_null(x), d, size));
}

/* ---- rule plumbing ---- */

int rf_fft_dtype_ok(rf_lowering *L, const rf_node *n, rf_dtype dt) {
    if (dt == RF_DT_F16 || dt == RF_DT_BF16 || dt == RF_DT_F32 || dt == RF_DT_F64) return 1;
    rf_fail(L, n, RF_ERR_DTYPE, "%s: no real FFT for component dtype %s", n->op, rf_dtype_name(dt));
    return 0;
}

rf_status rf_fft_check_static(rf_lowering *L, const rf_node *n, const rf_value *x, const int64_t *dims, size_t nd) {
    if (x->rank < 0 || x->rank >= RF_MAX_RANK)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s needs a known rank below %d", n->op, RF_MAX_RANK);
    for (size_t i = 0; i < nd; i++) {
        const rf_dim *sz = &x->dims[dims[i]];
        if (sz->sym)
            return rf_fail(L, n, RF_ERR_UNSUPPORTED,
                           "%s: the transform size along dim %lld is symbolic (%s); realify lowers FFTs whose "
                           "transformed dims are static (other dims may be symbolic)",
                           n->op, (long long)dims[i], sz->sym);
        if (sz->size < 1 || sz->size > RF_FFT_MAX_N)
            return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: transform size %lld is out of range", n->op,
                           (long long)sz->size);
    }
    return RF_OK;
}

rf_status rf_fft_done(rf_fft_ctx *f, const rf_node *n, int ok) {
    if (f->oom < 0)
        return rf_fail(f->L, n, RF_ERR_INVALID,
                       "%s: a length-%lld transform needs more than %lld MiB of constant tables "
                       "(RF_FFT_MAX_TABLE_BYTES); the native FFT (fft=\"native\") needs none",
                       n->op, -(long long)f->oom, (long long)(RF_FFT_MAX_TABLE_BYTES >> 20));
    if (f->oom) return rf_fail(f->L, n, RF_ERR_NOMEM, "%s: out of memory building the FFT", n->op);
    if (!ok) return rf_fail(f->L, n, RF_ERR_INVALID, "%s: the FFT could not be built", n->op);
    return RF_OK;
}

