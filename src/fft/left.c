/* Direct DFT stages that need no transposes, for the transforms of matmul.c.
 *
 * A DFT of size n over an axis d that is not the last one is a matmul from the
 * left, Lh @ x, against an n x n real matrix that holds only the cos rows
 * k' = 0..n/2 and the sin rows k' = 1..(n-1)/2: the other outputs follow from
 * C[n-k] = C[k], S[n-k] = -S[k]. One gather then reads each output from at most
 * two rows of the product. Against swapping d to the end, a (2n x 2n) block
 * matmul and swapping back, this halves the multiplies and drops two copies.
 *
 * A real transform along the last axis is likewise x @ Wp with Wp the n x n
 * "packed" real basis (cos columns k = 0..n/2, sign*sin columns k =
 * 1..(n-1)/2): square matrices keep the GEMM tiles full (an n x (n+2) matrix
 * wastes most of a tile on 2 columns), and a left stage can read the packed
 * columns directly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft/left.h"
#include "ir/mem.h"
#include "fft/plan.h"

/* ---- helpers ---- */

/* dims start.. (static) -> one dim */
static rf_value *flatten_from(rf_lowering *L, rf_value *x, int start) {
    if (!x || start >= x->rank - 1) return x;
    return rf_b_flatten(L, x, start, x->rank - 1);
}

/* the last dim -> the static dims `sizes` */
static rf_value *unflatten_last(rf_lowering *L, rf_value *x, int count, const rf_dim *sizes) {
    if (!x || count == 1) return x;
    int64_t s[RF_MAX_RANK];
    for (int i = 0; i < count; i++) s[i] = sizes[i].size;
    return rf_b_unflatten(L, x, -1, (size_t)count, s);
}

/* The packed half spectrum of length n holds Re X[k], k < m = n/2+1, then
 * Im X[k], k = 1..n-m. Row or column r of it is frequency packed_freq(r). */
static int64_t packed_freq(int64_t r, int64_t n) {
    int64_t m = n / 2 + 1;
    return r < m ? r : r - m + 1;
}

/* T[q][j] for the packed frequencies q (rows) and samples j < n: cos(2 pi f(q) j / n)
 * for q < m, sign * sin(2 pi f(q) j / n) after. The left matrix is T (sign +1),
 * the packed real basis its transpose, the packed inverse T (sign -1) with
 * rows weighted. NULL when out of memory. */
static double *packed_table(int64_t n, int sign) {
    double *t = rf_calloc((size_t)(n * n), sizeof(double));
    if (!t) return NULL;
    int64_t m = n / 2 + 1;
    for (int64_t q = 0; q < n; q++)
        for (int64_t j = 0; j < n; j++) {
            double c, s;
            rf_fft_unit_root((packed_freq(q, n) * j) % n, n, &c, &s);
            t[q * n + j] = q < m ? c : sign * s + 0.0;
        }
    return t;
}

/* ---- stages ---- */

int rf_fft_is_direct(int64_t n) {
    rf_fft_plan plan;
    return n >= 2 && !rf_fft_plan_make(n, &plan) && rf_fft_plan_is_direct(&plan);
}

int rf_fft_left_ok(const rf_value *x, int d, int last_kept) {
    if (!x || x->rank + 1 >= RF_MAX_RANK || d < 0 || d >= last_kept || x->dims[d].sym) return 0;
    if (!rf_fft_is_direct(x->dims[d].size)) return 0;
    for (int i = d + 1; i < x->rank; i++)
        if (x->dims[i].sym) return 0;
    return 1;
}

rf_value *rf_fft_packed_basis(rf_fft_ctx *f, rf_value *x, int64_t n, int sign) {
    double *t = packed_table(n, sign), *w = rf_calloc((size_t)(n * n), sizeof(double));
    rf_value *k = NULL;
    if (t && w) {
        for (int64_t j = 0; j < n; j++)
            for (int64_t q = 0; q < n; q++) w[j * n + q] = t[q * n + j];
        char name[48];
        snprintf(name, sizeof name, "rdft%lld_packed%s", (long long)n, sign < 0 ? "" : "_inv");
        int64_t dims[2] = {n, n};
        k = rf_fft_const(f, name, f->dt, 2, dims, w);
    } else {
        f->oom = 1;
    }
    rf_free(t);
    rf_free(w);
    return rf_b_matmul(f->L, x, k);
}

/* [..., n] packed -> [..., 2, m] split (the imaginary parts of X[0] and, for
 * even n, X[n/2] are zero). */
static rf_value *unpack_last(rf_fft_ctx *f, rf_value *p, int64_t n) {
    int64_t m = n / 2 + 1;
    double *idx = rf_calloc((size_t)(2 * m), sizeof(double)), *mask = rf_calloc((size_t)(2 * m), sizeof(double));
    rf_value *out = NULL;
    if (idx && mask) {
        for (int64_t k = 0; k < m; k++) {
            idx[k] = (double)k, mask[k] = 1.0;
            int has_im = k >= 1 && k <= n - m;
            idx[m + k] = has_im ? (double)(m - 1 + k) : 0.0;
            mask[m + k] = has_im ? 1.0 : 0.0;
        }
        char name[48];
        int64_t len = 2 * m, mdims[2] = {2, m};
        snprintf(name, sizeof name, "unpack%lld_index", (long long)n);
        rf_value *g = rf_b_index_select(f->L, p, p->rank - 1, rf_fft_const(f, name, RF_DT_I64, 1, &len, idx));
        rf_dim sizes[2] = {{2, NULL}, {m, NULL}};
        snprintf(name, sizeof name, "unpack%lld_keep", (long long)n);
        rf_value *keep = rf_fft_const(f, name, RF_DT_BOOL, 2, mdims, mask);
        /* a where, not a multiply by a 0/1 mask: x * 0 is -0 for a negative x, and
         * torch's DC and Nyquist bins have an imaginary part of +0 */
        rf_value *u = unflatten_last(f->L, g, 2, sizes);
        out = u ? rf_b_where(f->L, keep, rf_val(u), rf_num(0.0)).v : NULL;
    }
    rf_free(idx);
    rf_free(mask);
    return out;
}

rf_value *rf_fft_unpack_last(rf_fft_ctx *f, rf_value *p, int64_t n) { return p ? unpack_last(f, p, n) : NULL; }

rf_value *rf_fft_packed_inverse(rf_fft_ctx *f, rf_value *flat, int64_t n) {
    if (!flat) return NULL;
    int64_t m = n / 2 + 1;
    double *idx = rf_calloc((size_t)n, sizeof(double)), *w = packed_table(n, -1);
    rf_value *out = NULL;
    if (idx && w) {
        for (int64_t q = 0; q < n; q++) {
            int64_t k = packed_freq(q, n);
            idx[q] = (double)(q < m ? k : m + k); /* Re X[k] sits at k of [Re | Im], Im X[k] at m + k */
            double wt = (k == 0 || 2 * k == n) ? 1.0 : 2.0;
            for (int64_t j = 0; j < n; j++) w[q * n + j] *= wt;
        }
        char name[48];
        int64_t len = n, dims[2] = {n, n};
        snprintf(name, sizeof name, "pack%lld_index", (long long)n);
        rf_value *index = rf_fft_const(f, name, RF_DT_I64, 1, &len, idx);
        rf_value *packed = rf_b_index_select(f->L, flat, flat->rank - 1, index);
        snprintf(name, sizeof name, "irdft%lld_packed", (long long)n);
        out = rf_b_matmul(f->L, packed, rf_fft_const(f, name, f->dt, 2, dims, w));
    } else {
        f->oom = 1;
    }
    rf_free(idx);
    rf_free(w);
    return out;
}

/* The left matrix: cos rows k' = 0..m-1, then sin rows k' = 1..n-m. An input roll by s (f->roll_in) permutes
 * its columns: sample i of the rolled-from tensor is sample (i + s) mod n of the transform's input. */
static rf_value *half_left_matrix(rf_fft_ctx *f, int64_t n) {
    double *t = packed_table(n, 1);
    int64_t s = ((f->roll_in % n) + n) % n;
    char name[64];
    if (t && s) {
        double *u = rf_calloc((size_t)(n * n), sizeof(double));
        for (int64_t q = 0; u && q < n; q++)
            for (int64_t i = 0; i < n; i++) u[q * n + i] = t[q * n + (i + s) % n];
        rf_free(t);
        t = u;
    }
    if (s) snprintf(name, sizeof name, "dft%lld_half_left_roll%lld", (long long)n, (long long)s);
    else snprintf(name, sizeof name, "dft%lld_half_left", (long long)n);
    int64_t dims[2] = {n, n};
    rf_value *k = rf_fft_const(f, name, f->dt, 2, dims, t);
    rf_free(t);
    return k;
}

rf_value *rf_fft_left_direct(rf_fft_ctx *f, rf_value *x, int d, int64_t packed_n, int sign, int interleave) {
    rf_lowering *L = f->L;
    if (!x) return NULL;
    int rank = x->rank;
    int64_t n = x->dims[d].size, m = n / 2 + 1;
    rf_dim tail[RF_MAX_RANK];
    int ntail = rank - d - 1;
    memcpy(tail, x->dims + d + 1, (size_t)ntail * sizeof(rf_dim));

    /* P = Lh @ x over axis d: [..., n, F] with F the flattened dims after d */
    rf_value *p = rf_b_matmul(L, half_left_matrix(f, n), flatten_from(L, x, d + 1));
    p = unflatten_last(L, p, ntail, tail);

    /* rows of P for output k: the cos row of k' (= k or n-k) and the sin row of k' */
    double *ic = rf_calloc((size_t)n, sizeof(double)), *is = rf_calloc((size_t)n, sizeof(double));
    int out_rank = packed_n ? rank + 1 : rank, split = out_rank - 2;
    double *ks = rf_calloc((size_t)(2 * n), sizeof(double));
    rf_value *y = NULL;
    /* an output roll by t (f->roll_out): output k is bin (k - t) mod n, read from that bin's rows */
    int64_t roll = ((f->roll_out % n) + n) % n;
    if (ic && is && ks) {
        for (int64_t ko = 0; ko < n; ko++) {
            int64_t k = (ko - roll + n) % n, kk = k < m ? k : n - k;
            int has_sin = kk >= 1 && kk <= n - m;
            double sigma = k < m ? 1.0 : -1.0;
            ic[ko] = (double)kk;
            is[ko] = has_sin ? (double)(m - 1 + kk) : 0.0;
            /* Y = C + sign*sigma*J(S), J(a, b) = (-b, a) over the split axis: after
             * flipping that axis, re gets -s*sigma and im +s*sigma */
            double g = has_sin ? sign * sigma : 0.0;
            ks[2 * ko] = -g + 0.0, ks[2 * ko + 1] = g + 0.0;
        }
        char name[96], rolled[32] = "";
        if (roll) snprintf(rolled, sizeof rolled, "_roll%lld", (long long)roll);
        int64_t len = n;
        snprintf(name, sizeof name, "dft%lld_cos_rows%s", (long long)n, rolled);
        rf_value *crow = rf_b_index_select(L, p, d, rf_fft_const(f, name, RF_DT_I64, 1, &len, ic));
        snprintf(name, sizeof name, "dft%lld_sin_rows%s", (long long)n, rolled);
        rf_value *srow = rf_b_index_select(L, p, d, rf_fft_const(f, name, RF_DT_I64, 1, &len, is));
        if (packed_n) {
            crow = unpack_last(f, crow, packed_n);
            srow = unpack_last(f, srow, packed_n);
        }
        /* the sign constant: [n, 1, ..., 2, 1] over dims d.. of the output */
        int64_t kd[RF_MAX_RANK];
        int kr = out_rank - d;
        for (int i = 0; i < kr; i++) kd[i] = 1;
        kd[0] = n;
        kd[split - d] = 2;
        snprintf(name, sizeof name, "dft%lld_left_sign%s%d%s", (long long)n, sign < 0 ? "" : "_inv", kr, rolled);
        rf_value *kconst = rf_fft_const(f, name, f->dt, kr, kd, ks);
        rf_value *t = rf_fft_mul_const(L, rf_b_flip(L, srow, split), kconst);
        if (interleave) { /* computed in [..., last, 2] order: the output is written once, as pairs */
            crow = rf_b_transpose(L, crow, split, split + 1);
            t = rf_b_transpose(L, t, split, split + 1);
        }
        y = rf_b_add(L, rf_val(crow), rf_val(t)).v;
    } else {
        f->oom = 1;
    }
    rf_free(ic);
    rf_free(is);
    rf_free(ks);
    return y;
}
