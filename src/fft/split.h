/* The split layout of the matmul strategy (matmul.c, last_axis.c). Inside a
 * transform a complex tensor is one real tensor [..., 2, n]: the real and
 * imaginary rows stacked on the axis before the transformed one, so a DFT
 * stage is one matmul against a block matrix [[C, S], [-S, C]]. A real input
 * stays [..., n] and skips the imaginary half. Internal to src/fft/. */
#ifndef REALIFY_FFT_SPLIT_H
#define REALIFY_FFT_SPLIT_H

#include "fft/context.h"

/* A complex tensor in split layout [..., 2, n], or a real one [..., n] when
 * `real` is set (imaginary part zero). A NULL v: the build failed. */
typedef struct rf_fft_blk {
    rf_value *v;
    int real;
} rf_fft_blk;

static inline rf_fft_blk rf_fft_bk(rf_value *v, int real) { return (rf_fft_blk){v, real}; }

/* Pairs in and out: an earlier transform's output is read back without a copy. */
rf_fft_blk rf_fft_blk_of_pair(rf_lowering *L, rf_cx x);
rf_cx rf_fft_pair_of_blk(rf_lowering *L, rf_fft_blk b);

/* A zeroed table of n doubles; NULL marks f out of memory. */
double *rf_fft_dalloc(rf_fft_ctx *f, size_t n);
/* The split-layout matrix of a DFT block from tables c and s [kin x kout] (input i, output o; s holds the sign):
 *   right, complex: [x_re | x_im] @ [[C, S], [-S, C]]         (2 kin x 2 kout)
 *   right, real:    x @ [C | S]                                (kin x 2 kout)
 *   left: the transpose, [[C^T, -S^T], [S^T, C^T]] @ [x_re; x_im] or [C^T; S^T] @ x (`real`),
 * a constant named `hint`. NULL tables or a failed allocation mark f out of memory (NULL). */
rf_value *rf_fft_block_matrix(rf_fft_ctx *f, const char *hint, const double *c, const double *s, int64_t kin,
                              int64_t kout, int left, int real);
/* The DFT matrix of size p and sign `sign` for the split layout, multiplied
 * from the left or the right, for a complex or a `real` operand. */
rf_value *rf_fft_dft_matrix(rf_fft_ctx *f, int64_t p, int sign, int left, int real);
/* The same with an input roll by r_in and an output roll by r_out folded in (a permutation of its sides), every
 * entry times `scale`. */
rf_value *rf_fft_dft_matrix_rolled(rf_fft_ctx *f, int64_t p, int sign, int left, int real, int64_t r_in,
                                   int64_t r_out, double scale);
/* The right, complex form with its columns in pair order (k, part): x [..., (part, j)] @ it is [..., (k, part)],
 * the DFT's pairs interleaved as a graph returns them; rolls and scale as above. */
rf_value *rf_fft_dft_matrix_pairs(rf_fft_ctx *f, int64_t p, int sign, int64_t r_in, int64_t r_out, double scale);
/* x * k for a complex constant k (re, im; shape sdims, rank srank) that
 * broadcasts over the dims after x's split axis `split` (negative); `name`
 * names the constants. */
rf_fft_blk rf_fft_cmul(rf_fft_ctx *f, rf_fft_blk x, int split, const char *name, int srank, const int64_t *sdims,
                       const double *re, const double *im);
rf_fft_blk rf_fft_bconj(rf_fft_ctx *f, rf_fft_blk x);                /* conj */
rf_fft_blk rf_fft_badd(rf_lowering *L, rf_fft_blk a, rf_fft_blk b); /* a + b, both complex */

#endif
