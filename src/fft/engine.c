/* The FFT family's entry (engine.h): the one place that names the FFT
 * strategy of the lowering and hands each transform to that strategy's
 * emitter (strategy.h). Every torch.fft function, stft and istft reaches the
 * three transforms here (rules/fft_*.c lower the composite forms torch.export
 * keeps). `auto` is resolved by the front end before the core sees it.
 *   matmul    real matmuls against constant DFT matrices (matmul.c)
 *   native    realify.fft_* operators over the platform FFT (native.c)
 *   onnx-dft  forward realify.dft calls, one per axis (onnx_dft.c) */
#include "fft/engine.h"

#include "fft/graph_real.h"
#include "fft/plan.h"
#include "fft/strategy.h"

static rf_fft_strategy strategy(const rf_fft_ctx *f) { return rf_options(f->L)->fft; }

int rf_fft_native(const rf_fft_ctx *f) { return strategy(f) != RF_FFT_MATMUL; }

/* The entry points build nothing once the lowering has failed: operands may
 * then be stand-ins of unknown rank. */
rf_cx rf_fft_c2c_dims(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int sign) {
    if (rf_status_of(f->L) != RF_OK) return rf_cx_values(NULL, NULL);
    if (!nd || !x.re.v) return x;
    rf_fft_strategy s = strategy(f);
    if (!rf_cx_im_or_null(x) && sign < 0 && s != RF_FFT_ONNX_DFT) {
        /* a real input (fft2 of real x traces as c2c of x + 0i): the one-sided transform does half the work
         * (natively, its first half is eager's rfftn bit for bit). Forward only: an inverse's conjugation would
         * sign the zero imaginary parts unlike eager's c2c. onnx-dft keeps its DFT node per axis. */
        int64_t n = x.re.v->dims[dims[nd - 1]].size;
        return rf_fft_hermitian_completion(f->L, rf_fft_r2c_dims(f, x.re.v, dims, nd, 1), dims, nd, n);
    }
    switch (s) {
    case RF_FFT_NATIVE: return rf_fft_native_c2c(f, x, dims, nd, sign);
    case RF_FFT_ONNX_DFT: return rf_fft_onnx_dft_c2c(f, x, dims, nd, sign);
    case RF_FFT_MATMUL: break;
    }
    return rf_fft_matmul_c2c(f, x, dims, nd, sign);
}

rf_cx rf_fft_r2c_dims(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided) {
    if (rf_status_of(f->L) != RF_OK) return rf_cx_values(NULL, NULL);
    if (!nd || !x) return rf_cx_values(x, NULL);
    switch (strategy(f)) {
    case RF_FFT_NATIVE: return rf_fft_native_r2c(f, x, dims, nd, onesided);
    case RF_FFT_ONNX_DFT: return rf_fft_onnx_dft_r2c(f, x, dims, nd, onesided);
    case RF_FFT_MATMUL: break;
    }
    return rf_fft_matmul_r2c(f, x, dims, nd, onesided);
}

rf_value *rf_fft_c2r_dims(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int64_t last_dim_size) {
    if (rf_status_of(f->L) != RF_OK || !nd || !x.re.v) return NULL;
    switch (strategy(f)) {
    case RF_FFT_NATIVE: return rf_fft_native_c2r(f, x, dims, nd, last_dim_size);
    case RF_FFT_ONNX_DFT: return rf_fft_onnx_dft_c2r(f, x, dims, nd, last_dim_size);
    case RF_FFT_MATMUL: break;
    }
    return rf_fft_matmul_c2r(f, x, dims, nd, last_dim_size);
}

int rf_fft_conv_last(rf_fft_ctx *f, rf_value *a, rf_value *b, double scale_b, int64_t n, rf_value **out) {
    if (rf_status_of(f->L) != RF_OK || strategy(f) != RF_FFT_MATMUL) return 0;
    return rf_fft_conv_graph(f, a, b, scale_b, n, out);
}

int rf_fft_frames_spectrum(rf_fft_ctx *f, rf_value *frames, int64_t n, rf_cx *out) {
    if (rf_status_of(f->L) != RF_OK || strategy(f) != RF_FFT_MATMUL) return 0;
    return rf_fft_frames_graph(f, frames, n, out);
}

/* ---- rule plumbing ---- */

int rf_fft_dtype_ok(rf_lowering *L, const rf_node *n, rf_dtype dt) {
    if (dt == RF_DT_F16 || dt == RF_DT_BF16 || dt == RF_DT_F32 || dt == RF_DT_F64) return 1;
    rf_fail(L, n, RF_ERR_DTYPE, "%s: no real FFT for component dtype %s", n->op, rf_dtype_name(dt));
    return 0;
}

rf_status rf_fft_check_static(rf_lowering *L, const rf_node *n, const rf_value *x, const int64_t *dims, size_t nd) {
    if (x->rank < 0 || x->rank >= RF_MAX_RANK)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s needs a known rank below %d", n->op, RF_MAX_RANK);
    for (size_t i = 0; i < nd; i++) {
        const rf_dim *sz = &x->dims[dims[i]];
        if (sz->sym)
            return rf_fail(L, n, RF_ERR_UNSUPPORTED,
                           "%s: the transform size along dim %lld is symbolic (%s); realify lowers FFTs whose "
                           "transformed dims are static (other dims may be symbolic)",
                           n->op, (long long)dims[i], sz->sym);
        if (sz->size < 1 || sz->size > RF_FFT_MAX_N)
            return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: transform size %lld is out of range", n->op,
                           (long long)sz->size);
    }
    return RF_OK;
}

rf_status rf_fft_done(rf_fft_ctx *f, const rf_node *n, int ok) {
    if (f->oom < 0)
        return rf_fail(f->L, n, RF_ERR_INVALID,
                       "%s: a length-%lld transform needs more than %lld MiB of constant tables "
                       "(RF_FFT_MAX_TABLE_BYTES); the native FFT (fft=\"native\") needs none",
                       n->op, -(long long)f->oom, (long long)(RF_FFT_MAX_TABLE_BYTES >> 20));
    if (f->oom) return rf_fail(f->L, n, RF_ERR_NOMEM, "%s: out of memory building the FFT", n->op);
    if (!ok) return rf_fail(f->L, n, RF_ERR_INVALID, "%s: the FFT could not be built", n->op);
    return RF_OK;
}
