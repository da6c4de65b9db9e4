/* The `native` FFT strategy: a transform becomes one call of an operator of
 * ours that takes and returns real tensors in view_as_real layout, and whose
 * kernel (registered by the Python front end with torch.library) calls the
 * platform FFT (cuFFT, pocketfft). The graph keeps no complex dtype, and a
 * compiler that can call the operator (Inductor, eager) runs the platform
 * FFT instead of DFT matmuls. Unnormalised, like the engine's transforms. */
#include "fft/strategy.h"

#include <string.h>

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

rf_cx rf_fft_native_c2c(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int sign) {
    rf_value *p = pack(f->L, x);
    rf_arg args[3] = {{"x", rf_attr_ref(p)}, {"dim", dims_attr(f->L, dims, nd)}, {"forward", rf_attr_bool(sign < 0)}};
    rf_value *y = rf_b_op(f->L, "realify.fft_c2c.default", 3, args, f->dt, p->rank, p->dims, "_fft");
    return rf_b_unpack(f->L, y);
}

rf_cx rf_fft_native_r2c(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided) {
    int64_t d = dims[nd - 1];
    int rank;
    rf_dim *shape = shape_of(f->L, x, onesided ? d : -1, x->dims[d].size / 2 + 1, 1, &rank);
    rf_arg args[3] = {{"x", rf_attr_ref(x)}, {"dim", dims_attr(f->L, dims, nd)}, {"onesided", rf_attr_bool(onesided)}};
    rf_value *y = rf_b_op(f->L, "realify.fft_r2c.default", 3, args, f->dt, rank, shape, "_fft");
    return rf_b_unpack(f->L, y);
}

rf_value *rf_fft_native_c2r(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int64_t last_dim_size) {
    rf_value *p = pack(f->L, x);
    int rank;
    rf_dim *shape = shape_of(f->L, x.re.v, dims[nd - 1], last_dim_size, 0, &rank);
    rf_arg args[3] = {{"x", rf_attr_ref(p)}, {"dim", dims_attr(f->L, dims, nd)},
                      {"last_dim_size", rf_attr_int(last_dim_size)}};
    return rf_b_op(f->L, "realify.fft_c2r.default", 3, args, f->dt, rank, shape, "_fft");
}
