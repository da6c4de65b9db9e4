/* The FFT family's transforms, for the rules of src/rules/fft_*.c. engine.c
 * chooses the strategy (matmul, native, onnx-dft) and calls its emitter
 * (strategy.h). A complex tensor is an rf_cx of two tensor parts (im_zero: a
 * real signal). */
#ifndef REALIFY_FFT_ENGINE_H
#define REALIFY_FFT_ENGINE_H

#include "fft/context.h"
#include "fft/pairs.h"

/* Unnormalised transforms. Every dim is in [0, rank) with a static size.
 * c2c: along each dim in turn; sign -1 forward, +1 backward.
 * r2c: forward transform of a real x, the last listed dim first (kept to
 *      n/2+1 entries when onesided), then the others.
 * c2r: backward transform to a real signal: the others first, then the last
 *      listed dim, whose output has last_dim_size entries.
 * A missing part (the build failed) gives a missing result. */
rf_cx rf_fft_c2c_dims(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int sign);
rf_cx rf_fft_r2c_dims(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided);
rf_value *rf_fft_c2r_dims(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int64_t last_dim_size);

/* Pruned transforms (prune.c): only the outputs listed per dim are computed.
 * keep[i] lists the kept output indices along dims[i], ascending and unique, in
 * [0, out_size) (out_size n, or n/2+1 along a onesided last dim); k == 0
 * keeps them all. A kept dim costs one truncated DFT matmul (n x k); the
 * result has k entries along it. Unnormalised, like the transforms above. */
typedef struct rf_fft_keep {
    int64_t k;
    const int64_t *idx;
} rf_fft_keep;
/* Whether k of the outputs of a length-n transform are cheaper as one truncated
 * DFT matmul than the full plan. */
int rf_fft_prune_worth(int64_t n, int64_t k, int64_t out_size);
rf_cx rf_fft_c2c_pruned(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int sign, const rf_fft_keep *keep);
rf_cx rf_fft_r2c_pruned(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided,
                        const rf_fft_keep *keep);
/* Inputs that are zero outside the frequencies keep[i] along dims[i]: x holds
 * only those (keep[i].k entries there; k == 0: all, sizes[i] of them), and a
 * truncated inverse matrix (k x n) reads them. sizes[i]: the transform length
 * (the output size; along the c2r dim, last_dim_size/2+1 frequencies). The
 * c2r weighting is the full one's: Im X at 0 and n/2 is not read. */
rf_cx rf_fft_c2c_sparse(rf_fft_ctx *f, rf_cx x, const int64_t *dims, const int64_t *sizes, size_t nd, int sign,
                        const rf_fft_keep *keep);
rf_value *rf_fft_c2r_sparse(rf_fft_ctx *f, rf_cx x, const int64_t *dims, const int64_t *sizes, size_t nd,
                            int64_t last_dim_size, const rf_fft_keep *keep);

/* Whether the strategy of the lowering emits operator calls (native,
 * onnx-dft) rather than the DFT matmuls that prune.c's plans are made of. */
int rf_fft_native(const rf_fft_ctx *f);

/* irfft(rfft(a, n) * rfft(b, n) * scale_b, n) along the last axis of real a, b (lead dims broadcasting), as the
 * graph targets' matmul strategy does it (fft/graph_real.c): the product in the stages' own layout. 1 with *out
 * set (NULL: the build failed, f marked), 0 when it does not apply (the caller lowers the ops one by one). */
int rf_fft_conv_last(rf_fft_ctx *f, rf_value *a, rf_value *b, double scale_b, int64_t n, rf_value **out);
/* stft's onesided transform of real frames [B, F, n] under the graph targets' matmul strategy: *out the parts
 * [B, n/2+1, F] (torch.stft's layout) in two one-axis transposes; 1 with *out set (missing parts: the build failed), 0 when
 * it does not apply (the caller transforms the last axis and transposes). */
int rf_fft_frames_spectrum(rf_fft_ctx *f, rf_value *frames, int64_t n, rf_cx *out);

/* Rule plumbing */
int rf_fft_dtype_ok(rf_lowering *L, const rf_node *n, rf_dtype dt);
/* Fails (RF_ERR_UNSUPPORTED, with a message) unless x's rank is known and its
 * sizes along dims are static and in range. */
rf_status rf_fft_check_static(rf_lowering *L, const rf_node *n, const rf_value *x, const int64_t *dims, size_t nd);
/* RF_OK, or the failure for an incomplete build (out of memory, bad operands). */
rf_status rf_fft_done(rf_fft_ctx *f, const rf_node *n, int ok);

#endif
