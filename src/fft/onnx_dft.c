/* The `onnx-dft` FFT strategy: every transform becomes forward calls of
 * realify.dft(x, axis, onesided), an operator of ours with the semantics of
 * ONNX's DFT (opset >= 17) without its inverse flag: x is real [..., 1] or
 * complex [..., 2] in view_as_real layout, the result is [..., 2], one axis per
 * call, unnormalised, onesided only for a real x. The ONNX export translates
 * each call to one DFT node (python/realify/onnx_export.py), which ONNX Runtime
 * runs with its own FFT and TensorRT >= 11.2 with cuFFT.
 * Only forward calls are emitted: a backward transform is conj(DFT(conj x)),
 * exact (negations only), where ONNX's inverse flag would divide by n and the
 * graph would have to multiply it back. A c2r extends the half spectrum by
 * Hermitian symmetry first, so the target needs no one-sided inverse. */
#include "fft/strategy.h"

#include <string.h>

#include "fft/pairs.h"

static rf_value *dft(rf_lowering *L, rf_fft_ctx *f, rf_value *x, int64_t axis, int onesided) {
    if (!x) return NULL;
    rf_dim *dims = rf_alloc(rf_out_graph(L), (size_t)x->rank * sizeof(rf_dim));
    memcpy(dims, x->dims, (size_t)x->rank * sizeof(rf_dim));
    if (onesided) {
        memset(&dims[axis], 0, sizeof dims[axis]);
        dims[axis].size = x->dims[axis].size / 2 + 1;
    }
    memset(&dims[x->rank - 1], 0, sizeof dims[x->rank - 1]);
    dims[x->rank - 1].size = 2;
    rf_arg args[3] = {{"x", rf_attr_ref(x)}, {"axis", rf_attr_int(axis)}, {"onesided", rf_attr_bool(onesided)}};
    return rf_b_op(L, "realify.dft.default", 3, args, f->dt, x->rank, dims, "_dft");
}

/* x's imaginary part as a tensor; NULL for a real signal. */
static rf_value *im_part(rf_lowering *L, rf_cx x) {
    if (x.im_zero || !x.re.v) return NULL;
    return x.im.v ? x.im.v : rf_b_materialize(L, x.im, x.re.v);
}

/* x as the operator's input: a real signal is [..., 1], so nothing multiplies its zero imaginary part. */
static rf_value *dft_input(rf_lowering *L, rf_cx x) {
    rf_value *im = im_part(L, x);
    if (!x.re.v) return NULL;
    return im ? rf_b_stack2(L, x.re.v, im, -1) : rf_b_unsqueeze(L, x.re.v, -1);
}

/* conj, leaving a real signal real: its -0 imaginary part does not reach the transform. */
static rf_cx conj_parts(rf_lowering *L, rf_cx x) {
    rf_value *im = im_part(L, x);
    return im ? rf_cx_values(x.re.v, rf_b_neg(L, rf_val(im)).v) : rf_cx_values(x.re.v, NULL);
}

static rf_value *neg(rf_lowering *L, rf_value *v) { return v ? rf_b_neg(L, rf_val(v)).v : NULL; }

rf_cx rf_fft_onnx_dft_c2c(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int sign) {
    rf_lowering *L = f->L;
    if (sign > 0) x = conj_parts(L, x);
    rf_value *y = dft_input(L, x);
    for (size_t i = 0; i < nd; i++) y = dft(L, f, y, dims[i], 0);
    rf_cx out = rf_b_unpack(L, y);
    return sign > 0 ? rf_cx_values(out.re.v, neg(L, out.im.v)) : out;
}

rf_cx rf_fft_onnx_dft_r2c(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided) {
    rf_lowering *L = f->L;
    rf_value *y = dft(L, f, x ? rf_b_unsqueeze(L, x, -1) : NULL, dims[nd - 1], onesided);
    for (size_t i = nd - 1; i-- > 0;) y = dft(L, f, y, dims[i], 0);
    return rf_b_unpack(L, y);
}

/* conj of the full spectrum that X[0 .. n/2] stands for: X[n - k] = conj(X[k]) fills the n - n/2 - 1 entries
 * after it, so the conjugate is (Re X, Re X[tail]) + i (-Im X, Im X[tail]) with the tail flipped. */
static rf_cx conj_hermitian_full(rf_lowering *L, rf_cx x, int64_t d, int64_t n) {
    int64_t tail = n - n / 2 - 1;
    x = rf_fft_resize_pair(L, x, d, n / 2 + 1);
    if (!x.re.v) return x;
    if (tail <= 0) return conj_parts(L, x);
    rf_value *re_parts[2] = {x.re.v, rf_b_flip(L, rf_b_slice(L, x.re.v, d, 1, 1 + tail), d)};
    rf_value *re = rf_b_cat(L, 2, re_parts, d);
    rf_value *im = im_part(L, x);
    if (!im) return rf_cx_values(re, NULL);
    rf_value *im_parts[2] = {neg(L, im), rf_b_flip(L, rf_b_slice(L, im, d, 1, 1 + tail), d)};
    return rf_cx_values(re, rf_b_cat(L, 2, im_parts, d));
}

rf_value *rf_fft_onnx_dft_c2r(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int64_t last_dim_size) {
    rf_lowering *L = f->L;
    if (nd > 1) x = rf_fft_onnx_dft_c2c(f, x, dims, nd - 1, 1);
    /* the real part of conj(DFT(conj X)) is the real part of DFT(conj X) */
    rf_value *y = dft(L, f, dft_input(L, conj_hermitian_full(L, x, dims[nd - 1], last_dim_size)), dims[nd - 1], 0);
    return y ? rf_b_select(L, y, -1, 0) : NULL;
}
