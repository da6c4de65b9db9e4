/* Shape ops on both parts of a complex pair, shared by the FFT strategies and
 * the FFT rules. A missing part gives a missing result. */
#ifndef REALIFY_FFT_PAIRS_H
#define REALIFY_FFT_PAIRS_H

#include "lower/lower.h"

/* rf_b_transpose, rf_b_resize on both parts */
rf_cx rf_fft_transpose_pair(rf_lowering *L, rf_cx x, int d0, int d1);
rf_cx rf_fft_resize_pair(rf_lowering *L, rf_cx x, int64_t d, int64_t size);
/* The forward transform of a real input from its one-sided transform h (the
 * first n/2+1 outputs along the last of dims, length n there): the rest
 * filled in by Hermitian symmetry. */
rf_cx rf_fft_hermitian_completion(rf_lowering *L, rf_cx h, const int64_t *dims, size_t nd, int64_t n);

#endif
