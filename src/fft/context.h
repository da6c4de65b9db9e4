/* What the FFT strategies and their stages (src/fft/) share:
 * the build context and the constants they make. Internal to src/fft/. */
#ifndef REALIFY_FFT_CONTEXT_H
#define REALIFY_FFT_CONTEXT_H

#include "lower/lower.h"
#include "lower/realops.h"

typedef struct rf_fft_ctx {
    rf_lowering *L;
    rf_dtype dt; /* working real dtype of the parts and the constants */
    int oom; /* 1: out of memory; -n: a length-n transform's tables would exceed
                RF_FFT_MAX_TABLE_BYTES (n <= RF_FFT_MAX_N fits an int) */
    /* Rolls folded into a c2c's direct DFT tables (patterns/fft_shift.c), per pair dim of the transform, or
     * NULL: the input is roll(x, rolls_in[d]) along d, and the output is rolled by rolls_out[d]. Only direct
     * sizes honour them (matmul.c, left.c, last_axis.c); the pattern checks that before it sets them. */
    const int64_t *rolls_in, *rolls_out;
    int64_t roll_in, roll_out; /* those of the 1-D stage being emitted (set by matmul.c) */
    /* Hints (rules/fft_ops.c, patterns/fft_shift.c; a stage that honours one zeroes it):
     * keep_last > 0: only the first keep_last outputs of a c2r along the last axis are read, the rest may be
     * missing (the caller crops; graph_real.c);
     * fold_scale != 0: a factor the output needs, to go into one stage's table (graph_real.c's inverse, the
     * direct stages of last_axis.c and matmul.c); the caller scales when it is still set. */
    int64_t keep_last;
    double fold_scale;
    /* 1: the c2c's result is read only packed (a graph output, view_as_real; patterns/fft_shift.c): a last
     * stage along the last axis writes [..., n, 2] pairs, which the packing then reads without a stack */
    int interleave_out;
} rf_fft_ctx;

/* A constant of the new graph; NULL data (a failed allocation) marks the build out of memory. */
static inline rf_value *rf_fft_const(rf_fft_ctx *f, const char *hint, rf_dtype dt, int rank, const int64_t *dims,
                                     const double *data) {
    if (!data) {
        f->oom = 1;
        return NULL;
    }
    return rf_b_constant(f->L, hint, dt, rank, dims, data);
}

/* The pending scale of the caller's (fold_scale), 1.0 when none, taken: a stage that applies it calls this. */
static inline double rf_fft_take_scale(rf_fft_ctx *f) {
    double s = f->fold_scale != 0.0 ? f->fold_scale : 1.0;
    f->fold_scale = 0.0;
    return s;
}

/* x * k for a constant k; NULL when either is missing (the build has failed). */
static inline rf_value *rf_fft_mul_const(rf_lowering *L, rf_value *x, rf_value *k) {
    return (x && k) ? rf_b_mul(L, rf_val(x), rf_val(k)).v : NULL;
}

#endif
