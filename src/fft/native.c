/* The `native` FFT strategy: a transform becomes one call of an operator of
 * ours that takes and returns real tensors in view_as_real layout, and whose
 * kernel (registered by the Python front end with torch.library) calls the
 * platform FFT (cuFFT, pocketfft). The graph keeps no complex dtype, and a
 * compiler that can call the operator (Inductor, eager) runs the platform
 * FFT instead of DFT matmuls. Unnormalised, like the engine's transforms. */
#include "fft/engine.h"

#include <string.h>

#include "lower/realops.h"

/* Whether transforms are operator calls (native or onnx-dft), not DFT matmuls. */
int rf_fft_native(const rf_fft_ctx *f) { return rf_options(f->L)->fft != RF_FFT_MATMUL; }

static int onnx_dft(const rf_fft_ctx *f) { return rf_options(f->L)->fft == RF_FFT_ONNX_DFT; }

static rf_attr dims_attr(rf_lowering *L, const int64_t *dims, size_t nd) {
    rf_attr a = {0};
    a.kind = RF_A_LIST;
    a.n = nd;
    a.out_mark = RF_DT_COUNT;
    a.items = rf_alloc(rf_out_graph(L), (nd ? nd : 1) * sizeof(rf_attr));
    for (size_t i = 0; i < nd; i++) a.items[i] = rf_attr_int(dims[i]);
    return a;
}

/* x's shape with dim d resized to `size` and, when `pair`, a trailing 2. */
static rf_dim *shape_of(rf_lowering *L, const rf_value *x, int64_t d, int64_t size, int pair, int *rank) {
    int r = x->rank + (pair ? 1 : 0);
    rf_dim *dims = rf_alloc(rf_out_graph(L), (size_t)(r ? r : 1) * sizeof(rf_dim));
    memcpy(dims, x->dims, (size_t)x->rank * sizeof(rf_dim));
    if (d >= 0) {
        memset(&dims[d], 0, sizeof dims[d]);
        dims[d].size = size;
    }
    if (pair) {
        memset(&dims[r - 1], 0, sizeof dims[r - 1]);
        dims[r - 1].size = 2;
    }
    *rank = r;
    return dims;
}

static rf_value *pack(rf_lowering *L, rf_cx x) {
    rf_value *im = rf_cx_im_or_null(x);
    return rf_b_stack2(L, x.re.v, im ? im : rf_b_zeros_like(L, x.re.v), -1);
}

/* v read at index (-k) mod s along dim: [v0, v[s-1], ..., v1]. */
static rf_value *mirrored(rf_lowering *L, rf_value *v, int64_t dim) {
    int64_t s = v->dims[dim].size;
    if (s <= 2) return v; /* (-k) mod s == k */
    rf_value *parts[2] = {rf_b_slice(L, v, dim, 0, 1), rf_b_flip(L, rf_b_slice(L, v, dim, 1, s), dim)};
    return rf_b_cat(L, 2, parts, dim);
}

/* The forward transform of a real input from its one-sided transform h (the first n/2+1 outputs along the last
 * transformed dim d). The spectrum is Hermitian, Z[k] = conj(Z[-k]) over all transformed dims, so outputs
 * n/2+1 .. n-1 along d are h at d-indices n/2-1 (or (n-1)/2) down to 1, mirrored along the other dims and
 * conjugated: gathers and a negation, which a compiler fuses into what reads them. */
static rf_cx hermitian_completion(rf_lowering *L, rf_cx h, const int64_t *dims, size_t nd, int64_t n) {
    int64_t d = dims[nd - 1], rest = n - (n / 2 + 1);
    if (rest <= 0) return h;
    rf_value *tail[2] = {h.re.v, h.im.v};
    for (int p = 0; p < 2; p++) {
        tail[p] = rf_b_flip(L, rf_b_slice(L, tail[p], d, 1, rest + 1), d);
        for (size_t i = 0; i + 1 < nd; i++) tail[p] = mirrored(L, tail[p], dims[i]);
    }
    rf_rv tail_im = rf_b_neg(L, (rf_rv){tail[1], 0.0});
    rf_value *re[2] = {h.re.v, tail[0]}, *im[2] = {h.im.v, tail_im.v};
    return rf_cx_values(rf_b_cat(L, 2, re, d), rf_b_cat(L, 2, im, d));
}

rf_cx rf_fft_native_c2c(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int sign) {
    if (onnx_dft(f)) return rf_fft_dft_c2c(f, x, dims, nd, sign);
    if (!rf_cx_im_or_null(x) && sign < 0 && nd) {
        /* a real input (fft2 of real x traces as c2c of x + 0i): the one-sided transform does half the work and
         * writes no zero imaginary plane; its first half equals eager's rfftn bit for bit. Forward only: an
         * inverse's conjugation would sign the zero imaginary parts unlike eager's c2c. */
        int64_t n = x.re.v->dims[dims[nd - 1]].size;
        rf_cx h = rf_fft_native_r2c(f, x.re.v, dims, nd, 1);
        if (!h.re.v || !h.im.v) return h;
        return hermitian_completion(f->L, h, dims, nd, n);
    }
    rf_value *p = pack(f->L, x);
    rf_arg args[3] = {{"x", rf_attr_ref(p)}, {"dim", dims_attr(f->L, dims, nd)}, {"forward", rf_attr_bool(sign < 0)}};
    rf_value *y = rf_b_op(f->L, "realify.fft_c2c.default", 3, args, f->dt, p->rank, p->dims, "_fft");
    return rf_b_unpack(f->L, y);
}

rf_cx rf_fft_native_r2c(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided) {
    if (onnx_dft(f)) return rf_fft_dft_r2c(f, x, dims, nd, onesided);
    int64_t d = dims[nd - 1];
    int rank;
    rf_dim *shape = shape_of(f->L, x, onesided ? d : -1, x->dims[d].size / 2 + 1, 1, &rank);
    rf_arg args[3] = {{"x", rf_attr_ref(x)}, {"dim", dims_attr(f->L, dims, nd)}, {"onesided", rf_attr_bool(onesided)}};
    rf_value *y = rf_b_op(f->L, "realify.fft_r2c.default", 3, args, f->dt, rank, shape, "_fft");
    return rf_b_unpack(f->L, y);
}

rf_value *rf_fft_native_c2r(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int64_t last_dim_size) {
    if (onnx_dft(f)) return rf_fft_dft_c2r(f, x, dims, nd, last_dim_size);
    rf_value *p = pack(f->L, x);
    int rank;
    rf_dim *shape = shape_of(f->L, x.re.v, dims[nd - 1], last_dim_size, 0, &rank);
    rf_arg args[3] = {{"x", rf_attr_ref(p)}, {"dim", dims_attr(f->L, dims, nd)},
                      {"last_dim_size", rf_attr_int(last_dim_size)}};
    return rf_b_op(f->L, "realify.fft_c2r.default", 3, args, f->dt, rank, shape, "_fft");
}
