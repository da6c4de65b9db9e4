/* 1-D transforms along the last axis in split layout (split.h), for the
 * matmul strategy (matmul.c). Unnormalised; a failed build gives a NULL
 * value and marks the context (out of memory, or tables over the cap).
 * Internal to src/fft/. */
#ifndef REALIFY_FFT_LAST_AXIS_H
#define REALIFY_FFT_LAST_AXIS_H

#include "fft/split.h"

/* The DFT along the last axis (static size n): sign -1 forward
 * (exp(-2*pi*i*jk/n)), +1 backward. */
rf_fft_blk rf_fft_dft_last(rf_fft_ctx *f, rf_fft_blk x, int64_t n, int sign);
/* The forward DFT of a real x [..., n]: the first n/2+1 outputs. */
rf_fft_blk rf_fft_rdft_last(rf_fft_ctx *f, rf_value *x, int64_t n);
/* The backward DFT of a Hermitian half spectrum x (n/2+1 entries; the
 * imaginary parts of X[0] and, for even n, X[n/2] are ignored): the real
 * signal [..., n]. */
rf_value *rf_fft_irdft_last(rf_fft_ctx *f, rf_fft_blk x, int64_t n);

#endif
