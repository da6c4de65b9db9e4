/* Direct DFT stages without transposes (left.c), used by the transforms of
 * matmul.c. Internal to src/fft/. */
#ifndef REALIFY_FFT_LEFT_H
#define REALIFY_FFT_LEFT_H

#include "fft/context.h"

int rf_fft_is_direct(int64_t n); /* the plan for n is one direct DFT (n >= 2) */
/* A left stage fits axis d of x: d < last_kept, direct size, static dims after d. */
int rf_fft_left_ok(const rf_value *x, int d, int last_kept);
/* x [..., n] real @ the packed real basis: [..., n] holding Re X[0..n/2], then
 * Im X[1..(n-1)/2] of the DFT of sign `sign` along the last axis. */
rf_value *rf_fft_packed_basis(rf_fft_ctx *f, rf_value *x, int64_t n, int sign);
/* packed [..., n] -> split [..., 2, n/2+1] */
rf_value *rf_fft_unpack_last(rf_fft_ctx *f, rf_value *p, int64_t n);
/* The real inverse along the last axis of a Hermitian half spectrum given as
 * [Re X | Im X] flattened ([..., 2*(n/2+1)]): one gather to the packed form, one
 * n x n matmul. The imaginary parts of X[0] and X[n/2] are not read. */
rf_value *rf_fft_packed_inverse(rf_fft_ctx *f, rf_value *flat, int64_t n);
/* The DFT over axis d (left_ok) of a split tensor x [..., 2, last], or, when
 * packed_n > 0, of a packed real tensor [..., packed_n]; the result is split,
 * or with `interleave` [..., last, 2] (pairs as the graph returns them). */
rf_value *rf_fft_left_direct(rf_fft_ctx *f, rf_value *x, int d, int64_t packed_n, int sign, int interleave);

#endif
