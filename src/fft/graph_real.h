/* Real transforms for graph runtimes (target onnx/openvino), graph_real.c:
 * an even, Cooley-Tukey-sized rfft or irfft along the last axis as two matmul
 * stages and one transpose, twiddles and Hermitian weights in the tables.
 * Each returns 0 when it does not apply (another target, odd or direct or
 * Bluestein n, symbolic batch dims), else 1 with *out set (NULL: the build
 * failed and f is marked). Internal to src/fft/. */
#ifndef REALIFY_FFT_GRAPH_REAL_H
#define REALIFY_FFT_GRAPH_REAL_H

#include "fft/split.h"

/* The forward DFT of a real x [..., n]: the first n/2+1 outputs, [..., 2, n/2+1]. */
int rf_fft_rdft_graph(rf_fft_ctx *f, rf_value *x, int64_t n, rf_fft_blk *out);
/* The backward DFT of a Hermitian half spectrum x [..., 2, >= n/2+1]: the real signal [..., n]. */
int rf_fft_irdft_graph(rf_fft_ctx *f, rf_fft_blk x, int64_t n, rf_value **out);
/* irfft(rfft(a, n) * rfft(b, n) * scale_b, n) of real a [da..., la], b [db..., lb] (lead dims broadcasting; an
 * input shorter than n is zero-padded, a longer one cropped), the product taken in the stages' own layout so no
 * transpose leaves the forwards or enters the inverse: [d..., n] (keep_last and fold_scale as for irdft). */
int rf_fft_conv_graph(rf_fft_ctx *f, rf_value *a, rf_value *b, double scale_b, int64_t n, rf_value **out);

/* stft's one-sided spectrum of frames [B, F, n] as parts [B, n/2+1, F] each (torch.stft's layout): both stages from
 * the left and two one-axis transposes, where the last-axis form and the parts' transposes to put the frames last
 * take four. */
int rf_fft_frames_graph(rf_fft_ctx *f, rf_value *frames, int64_t n, rf_cx *out);

#endif
