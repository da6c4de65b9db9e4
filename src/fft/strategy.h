/* The emitters of the three FFT strategies, one set of transforms each, all
 * with the signatures and the unnormalised semantics of engine.h's entry
 * points. engine.c names the strategy of the lowering and calls one of them;
 * nothing else does. They are called only with nd >= 1, operands present and
 * the lowering not failed. Internal to src/fft/. */
#ifndef REALIFY_FFT_STRATEGY_H
#define REALIFY_FFT_STRATEGY_H

#include "fft/context.h"

/* `matmul` (matmul.c): real matmuls against constant DFT matrices, twiddle
 * multiplies and reshapes; any compiler runs them. */
rf_cx rf_fft_matmul_c2c(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int sign);
rf_cx rf_fft_matmul_r2c(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided);
rf_value *rf_fft_matmul_c2r(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int64_t last_dim_size);

/* `native` (native.c): one call of realify.fft_c2c/_r2c/_c2r, our real-layout
 * operators over the platform FFT. */
rf_cx rf_fft_native_c2c(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int sign);
rf_cx rf_fft_native_r2c(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided);
rf_value *rf_fft_native_c2r(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int64_t last_dim_size);

/* `onnx-dft` (onnx_dft.c): forward realify.dft calls, one per axis (ONNX DFT,
 * opset >= 17). */
rf_cx rf_fft_onnx_dft_c2c(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int sign);
rf_cx rf_fft_onnx_dft_r2c(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided);
rf_value *rf_fft_onnx_dft_c2r(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int64_t last_dim_size);

#endif
