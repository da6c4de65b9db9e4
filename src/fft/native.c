/* The `native` FFT strategy: a transform becomes one call of an operator of
 * ours that takes and returns real tensors in view_as_real layout, and whose
 * kernel (registered by the Python front end with torch.library) calls the
 * platform FFT (cuFFT, pocketfft). The graph keeps no complex dtype, and a
 * compiler that can call the operator (Inductor, eager) runs the platform
 * FFT instead of DFT matmuls. Unnormalised, like the engine's transforms,
 * except that a pending scale of the caller's (fold_scale) that is the
 * platform's own 1/n or 1/sqrt(n) goes into the call as its normalization:
 * no separate scaling kernel, and eager's rounding. */
#include "fft/strategy.h"

#include <math.h>
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

/* fold_scale as the aten normalization of a transform of `numel` points (0 none, 1 by 1/sqrt(n), 2 by 1/n),
 * consumed when it is one of those; otherwise it stays for the caller. */
static int64_t take_normalization(rf_fft_ctx *f, double numel) {
    double s = f->fold_scale; /* 0 when none is pending */
    int64_t mode = s == 1.0 ? 0 : s == 1.0 / numel ? 2 : s == 1.0 / sqrt(numel) ? 1 : -1;
    if (mode < 0) return 0;
    f->fold_scale = 0.0;
    return mode;
}

static double points(const rf_value *x, const int64_t *dims, size_t nd) {
    double n = 1.0;
    for (size_t i = 0; i < nd; i++) n *= (double)x->dims[dims[i]].size;
    return n;
}

/* The op's arguments, `normalization` only when it is not 0 (the schema's default). */
static rf_value *native_op(rf_lowering *L, const char *op, rf_arg *args, size_t nargs, int64_t norm, rf_dtype dt,
                           int rank, const rf_dim *shape) {
    if (norm) args[nargs++] = (rf_arg){"normalization", rf_attr_int(norm)};
    return rf_b_op(L, op, nargs, args, dt, rank, shape, "_fft");
}

static rf_value *pack(rf_lowering *L, rf_cx x) {
    rf_value *im = rf_cx_im_or_null(x);
    return rf_b_stack2(L, x.re.v, im ? im : rf_b_zeros_like(L, x.re.v), -1);
}

rf_cx rf_fft_native_c2c(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int sign) {
    int64_t norm = take_normalization(f, points(x.re.v, dims, nd));
    rf_value *p = pack(f->L, x);
    rf_arg args[4] = {{"x", rf_attr_ref(p)}, {"dim", dims_attr(f->L, dims, nd)}, {"forward", rf_attr_bool(sign < 0)}};
    rf_value *y = native_op(f->L, "realify.fft_c2c.default", args, 3, norm, f->dt, p->rank, p->dims);
    return rf_b_unpack(f->L, y);
}

rf_cx rf_fft_native_r2c(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided) {
    int64_t d = dims[nd - 1];
    int rank;
    rf_dim *shape = shape_of(f->L, x, onesided ? d : -1, x->dims[d].size / 2 + 1, 1, &rank);
    int64_t norm = take_normalization(f, points(x, dims, nd));
    rf_arg args[4] = {{"x", rf_attr_ref(x)}, {"dim", dims_attr(f->L, dims, nd)}, {"onesided", rf_attr_bool(onesided)}};
    rf_value *y = native_op(f->L, "realify.fft_r2c.default", args, 3, norm, f->dt, rank, shape);
    return rf_b_unpack(f->L, y);
}

rf_value *rf_fft_native_c2r(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int64_t last_dim_size) {
    int64_t norm = take_normalization(f, points(x.re.v, dims, nd - 1) * (double)last_dim_size);
    rf_value *p = pack(f->L, x);
    int rank;
    rf_dim *shape = shape_of(f->L, x.re.v, dims[nd - 1], last_dim_size, 0, &rank);
    rf_arg args[4] = {{"x", rf_attr_ref(p)}, {"dim", dims_attr(f->L, dims, nd)},
                      {"last_dim_size", rf_attr_int(last_dim_size)}};
    return native_op(f->L, "realify.fft_c2r.default", args, 3, norm, f->dt, rank, shape);
}
