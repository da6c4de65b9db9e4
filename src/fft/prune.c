/* Pruned forward transforms: when only some outputs of a DFT are read (a
 * Fourier neural operator keeps the lowest modes of an rfft2), each pruned dim
 * is one matmul against a truncated DFT matrix of the kept frequencies, n x k
 * instead of a full n-point plan, and later dims see k entries instead of n.
 * The rules decide which outputs are read (rules/fft_prune.c).
 *
 * Layout as in engine.c: a complex tensor is split, [..., 2, L], the real and
 * imaginary rows on the axis before the last; a real one is [..., L]. Pruned
 * dims go first (they shrink the data), the other dims then run through the
 * full engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft/engine.h"
#include "fft/plan.h"

typedef struct sblk {
    rf_value *v;
    int real;
} sblk;

int rf_fft_prune_worth(int64_t n, int64_t k, int64_t out_size) {
    if (k < 1 || k >= out_size || n < 1 || n > RF_FFT_MAX_N) return 0;
    if ((double)n * (double)k * 32.0 > (double)RF_FFT_MAX_TABLE_BYTES) return 0; /* a 2n x 2k double table */
    rf_fft_plan plan;
    if (rf_fft_plan_make(n, &plan)) return 0;
    if (rf_fft_plan_is_direct(&plan)) return 1; /* the full plan is one n x n matmul */
    /* the full plan's multiply-adds and stage overheads, as in plan.c's cost model */
    int64_t len = plan.m ? plan.m : n;
    double full = 0;
    for (int i = 0; i < plan.nfactors; i++) full += (double)len * (double)plan.factors[i];
    full += (double)(plan.nfactors - 1) * (double)len * RF_FFT_STAGE_COST;
    if (plan.m) full *= 2;
    return (double)n * (double)k <= full;
}

/* T[q][j] = cos(2 pi K_q j / n) for q < k, then sign * sin(...) rows: the
 * truncated DFT as a (2k x n) left matrix; NULL when out of memory. */
static double *trunc_table(int64_t n, const rf_fft_keep *kp, int sign) {
    int64_t k = kp->k;
    double *t = calloc((size_t)(2 * k * n), sizeof(double));
    if (!t) return NULL;
    for (int64_t q = 0; q < k; q++)
        for (int64_t j = 0; j < n; j++) {
            double c, s;
            int64_t e = (int64_t)(((uint64_t)(kp->idx[q] % n) * (uint64_t)j) % (uint64_t)n);
            rf_fft_unit_root(e, n, &c, &s);
            t[q * n + j] = c;
            t[(k + q) * n + j] = sign * s + 0.0;
        }
    return t;
}

/* The matrix for a right stage x @ W: real x [.., n] -> [.., 2k] (W = [C | sS]),
 * complex [x_re | x_im] -> [.., 2k] (W = [[C, sS], [-sS, C]]); or the left
 * matrix T (2k x n). */
static rf_value *trunc_matrix(rf_fft_ctx *f, int64_t n, const rf_fft_keep *kp, int sign, int real, int left) {
    int64_t k = kp->k;
    double *t = trunc_table(n, kp, sign);
    if (!t) {
        f->oom = 1;
        return NULL;
    }
    int64_t rows = left ? 2 * k : (real ? n : 2 * n), cols = left ? n : 2 * k;
    double *w = left ? t : calloc((size_t)(rows * cols), sizeof(double));
    rf_value *v = NULL;
    if (w) {
        for (int64_t j = 0; !left && j < n; j++)
            for (int64_t q = 0; q < k; q++) {
                double c = t[q * n + j], s = t[(k + q) * n + j];
                w[j * cols + q] = c, w[j * cols + k + q] = s;
                if (!real) w[(n + j) * cols + q] = -s + 0.0, w[(n + j) * cols + k + q] = c;
            }
        char hint[64];
        snprintf(hint, sizeof hint, "dft%lld_keep%lld%s%s%s", (long long)n, (long long)k,
                 left ? "_left" : (real ? "_real" : "_block"), sign < 0 ? "" : "_inv", "");
        int64_t dims[2] = {rows, cols};
        v = rf_fft_const(f, hint, f->dt, 2, dims, w);
    } else {
        f->oom = 1;
    }
    if (w != t) free(w);
    free(t);
    return v;
}

/* The right stage along the last axis: [..., (2,) n] -> [..., 2, k]. */
static sblk right_stage(rf_fft_ctx *f, sblk x, int64_t n, const rf_fft_keep *kp, int sign) {
    rf_lowering *L = f->L;
    rf_value *v = x.real ? x.v : rf_b_flatten(L, x.v, -2, -1);
    v = rf_b_matmul(L, v, trunc_matrix(f, n, kp, sign, x.real, 0));
    return (sblk){rf_b_unflatten(L, v, -1, 2, (int64_t[]){2, kp->k}), 0};
}

/* The left stage over axis d (static axes after it): T @ x, then for a complex
 * x the (cos, sin) row blocks combine as Y = Cx + J(sSx), J(a, b) = (-b, a)
 * over the split axis. */
static sblk left_stage(rf_fft_ctx *f, sblk x, int d, int64_t n, const rf_fft_keep *kp, int sign) {
    rf_lowering *L = f->L;
    int rank = x.v->rank;
    int64_t tail[RF_MAX_RANK];
    int ntail = rank - d - 1;
    for (int i = 0; i < ntail; i++) tail[i] = x.v->dims[d + 1 + i].size;
    rf_value *v = ntail > 1 ? rf_b_flatten(L, x.v, d + 1, rank - 1) : x.v;
    v = rf_b_matmul(L, trunc_matrix(f, n, kp, sign, 0, 1), v);
    if (v && ntail > 1) v = rf_b_unflatten(L, v, -1, (size_t)ntail, tail);
    v = rf_b_unflatten(L, v, d, 2, (int64_t[]){2, kp->k}); /* [.., 2 (cos, sin), k, tail] */
    rf_value *c = rf_b_select(L, v, d, 0), *s = rf_b_select(L, v, d, 1);
    if (x.real) return (sblk){rf_b_stack2(L, c, s, -2), 0};
    double sgn[2] = {-1.0, 1.0};
    int64_t sd[2] = {2, 1};
    rf_value *k = rf_fft_const(f, "split_sign1", f->dt, 2, sd, sgn);
    rf_value *t = rf_fft_mul_const(L, rf_b_flip(L, s, -2), k);
    return (sblk){(c && t) ? rf_b_add(L, rf_val(c), rf_val(t)).v : NULL, 0};
}

static int static_after(const rf_value *v, int d) {
    for (int i = d + 1; i < v->rank; i++)
        if (v->dims[i].sym) return 0;
    return 1;
}

/* The truncated DFT along pair dim d (pair rank r) of x. */
static sblk pruned_along(rf_fft_ctx *f, sblk x, int64_t d, int r, const rf_fft_keep *kp, int sign) {
    rf_lowering *L = f->L;
    if (!x.v) return x;
    int last = x.v->rank - 1;
    int bd = (!x.real && d == r - 1) ? last : (int)d; /* the axis of d in the split tensor */
    int64_t n = x.v->dims[bd].size;
    if (bd == last) return right_stage(f, x, n, kp, sign);
    if (!x.real && static_after(x.v, bd) && x.v->rank + 1 < RF_MAX_RANK) return left_stage(f, x, bd, n, kp, sign);
    /* through the last axis and back */
    sblk y = right_stage(f, (sblk){rf_b_transpose(L, x.v, bd, last), x.real}, n, kp, sign);
    if (!y.v) return y;
    return (sblk){rf_b_transpose(L, y.v, bd, y.v->rank - 1), 0};
}

static rf_cx pair_of(rf_lowering *L, sblk b) {
    if (!b.v || b.real) return rf_cx_values(b.v, NULL);
    rf_value *re = rf_b_select(L, b.v, -2, 0);
    return rf_cx_values(re, rf_b_select(L, b.v, -2, 1));
}

/* Pruned dims in order, then the others through the full engine. */
static rf_cx run_pruned(rf_fft_ctx *f, sblk b, const int64_t *dims, size_t nd, int r, int sign,
                        const rf_fft_keep *keep) {
    int64_t rest[RF_MAX_RANK];
    size_t nrest = 0;
    for (size_t i = 0; i < nd; i++) {
        if (keep[i].k) b = pruned_along(f, b, dims[i], r, &keep[i], sign);
        else rest[nrest++] = dims[i];
    }
    return rf_fft_c2c_dims(f, pair_of(f->L, b), rest, nrest, sign);
}

rf_cx rf_fft_c2c_pruned(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int sign, const rf_fft_keep *keep) {
    if (rf_status_of(f->L) != RF_OK || !x.re.v) return rf_cx_values(NULL, NULL);
    rf_value *im = rf_cx_im_or_null(x);
    sblk b = {im ? rf_b_stack2(f->L, x.re.v, im, -2) : x.re.v, im == NULL};
    return run_pruned(f, b, dims, nd, x.re.v->rank, sign, keep);
}

rf_cx rf_fft_r2c_pruned(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided,
                        const rf_fft_keep *keep) {
    if (rf_status_of(f->L) != RF_OK || !x || !nd) return rf_cx_values(NULL, NULL);
    if (!onesided) return run_pruned(f, (sblk){x, 1}, dims, nd, x->rank, -1, keep);
    int r = x->rank;
    const rf_fft_keep *kl = &keep[nd - 1];
    if (!kl->k) { /* the real dim in full (onesided), then the others pruned */
        rf_cx y = rf_fft_r2c_dims(f, x, dims + nd - 1, 1, 1);
        return rf_fft_c2c_pruned(f, y, dims, nd - 1, -1, keep);
    }
    sblk b = pruned_along(f, (sblk){x, 1}, dims[nd - 1], r, kl, -1);
    return run_pruned(f, b, dims, nd - 1, r, -1, keep);
}
