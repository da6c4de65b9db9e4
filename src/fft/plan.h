/* FFT plans and constants for the real-arithmetic FFT (DESIGN.md §3).
 *
 * A length-n DFT becomes Cooley–Tukey stages: n = f1 * f2 * ... * fk. Every
 * stage but the last is a small DFT (a matmul against a constant f x f matrix)
 * followed by a twiddle multiply; the last stage is a direct DFT matmul. The
 * factors are chosen by a cost model, so a transform costs about
 * n * (f1 + ... + fk) multiply-adds instead of n^2. No factor exceeds
 * RF_FFT_MAX_RADIX. A length whose prime factors do not all fit under that bound
 * is computed by Bluestein's chirp-z algorithm: a circular convolution of
 * power-of-two length m >= 2n - 1, itself done with the factorised FFT.
 *
 * Constants are computed here in double precision; the lowering casts them to
 * the working dtype. Nothing here allocates except the Bluestein kernel. */
#ifndef REALIFY_FFT_PLAN_H
#define REALIFY_FFT_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* The largest DFT stage. In the lowering's split layout a stage of size p is a
 * (2p x 2p) real block matrix, so no emitted matrix exceeds 256 x 256. */
#define RF_FFT_MAX_RADIX 128
#define RF_FFT_STAGE_COST 128 /* cost model: one extra stage (twiddle, transpose) per element,
                                 in complex multiply-adds */
/* The longest transform (and stft n_fft) the lowering accepts; the table cap
 * below refuses most lengths near it already. */
#define RF_FFT_MAX_N ((int64_t)1 << 22)
#define RF_FFT_MAX_FACTORS 64
/* The most constant-table bytes (DFT matrices, twiddles, Bluestein chirp and
 * kernel, counted in double precision) one length-n transform may generate.
 * Larger transforms are refused: as constants of a graph they would be
 * unreasonable, and computing and printing them would take seconds per graph
 * (a fuzzing finding). 2^19 points fit, and Bluestein lengths to 2^17; longer
 * transforms take fft="native". */
#define RF_FFT_MAX_TABLE_BYTES ((int64_t)40 << 20)

typedef struct rf_fft_plan {
    int64_t n;        /* transform length */
    int64_t m;        /* Bluestein: the convolution length the factors plan; 0 for Cooley–Tukey */
    int nfactors;     /* (m ? m : n) = factors[0] * ... * factors[nfactors - 1] */
    int64_t factors[RF_FFT_MAX_FACTORS];
} rf_fft_plan;

/* Plans a length-n DFT. Returns 0; -1 when n is not in [1, RF_FFT_MAX_N] or
 * memory runs out; -2 when its tables would exceed RF_FFT_MAX_TABLE_BYTES. */
int rf_fft_plan_make(int64_t n, rf_fft_plan *plan);
/* An upper bound on the constant-table bytes the plan's transform generates. */
int64_t rf_fft_plan_table_bytes(const rf_fft_plan *plan);
/* The plan is one direct DFT matmul. */
int rf_fft_plan_is_direct(const rf_fft_plan *plan);
/* The largest DFT matrix side the plan uses. */
int64_t rf_fft_plan_max_radix(const rf_fft_plan *plan);
/* "64: direct", "4096: 64x64", "257: bluestein 1024 = 32x32". */
void rf_fft_plan_format(const rf_fft_plan *plan, char *buf, size_t len);

/* cos and sin of 2*pi*num/den (den > 0), reduced exactly to the first octant. */
void rf_fft_unit_root(int64_t num, int64_t den, double *c, double *s);

/* c[j*cols + k] = cos(2*pi*j*k/n), s[...] = sin(2*pi*j*k/n) for j < rows, k < cols. */
void rf_fft_cos_sin_table(int64_t rows, int64_t cols, int64_t n, double *c, double *s);

/* Bluestein chirp w[j] = exp(sign * i*pi*j^2/n), j < n (sign -1: forward DFT). */
void rf_fft_bluestein_chirp(int64_t n, int sign, double *re, double *im);

/* DFT_m(b) / m for b[l] = conj(w[l]) (l < n), b[m - l] = conj(w[l]) (0 < l < n),
 * zero elsewhere: the spectrum of the convolution kernel. m is a power of two
 * >= 2n - 1. Returns 0, or -1 when out of memory or m is not such a length. */
int rf_fft_bluestein_kernel(int64_t n, int64_t m, int sign, double *re, double *im);

#endif
