/* Real tensor ops for the FFT rules, with their output shapes computed here
 * (the transforms know every size they touch). Negative dims count from the end. */
#include <string.h>

#include "fft/engine.h"

#define a_int rf_fft_a_int
#define a_float rf_fft_a_float
#define a_ints rf_fft_a_ints

static int ax(const rf_value *x, int d) { return d < 0 ? d + x->rank : d; }

rf_value *rf_fft_transpose(rf_lowering *L, rf_value *x, int d0, int d1) {
    if (!x) return NULL;
    d0 = ax(x, d0);
    d1 = ax(x, d1);
    if (d0 == d1) return x;
    rf_dim d[MAX_RANK + 2];
    memcpy(d, x->dims, (size_t)x->rank * sizeof(rf_dim));
    rf_dim t = d[d0];
    d[d0] = d[d1];
    d[d1] = t;
    rf_arg args[3] = {{"self", rf_attr_of_value(x)}, {"dim0", a_int(d0)}, {"dim1", a_int(d1)}};
    return rf_b_op(L, "aten.transpose.int", 3, args, x->dtype, x->rank, d, "_fftT");
}

/* dim (negative) of size a*b -> two dims a, b */
rf_value *rf_fft_unflatten(rf_lowering *L, rf_value *x, int dim, int64_t a, int64_t b) {
    if (!x) return NULL;
    int p = ax(x, dim);
    rf_dim d[MAX_RANK + 2];
    for (int i = 0, j = 0; i < x->rank; i++) {
        if (i == p) {
            d[j++] = (rf_dim){a, NULL};
            d[j++] = (rf_dim){b, NULL};
        } else {
            d[j++] = x->dims[i];
        }
    }
    int64_t sizes[2] = {a, b};
    rf_arg args[3] = {{"self", rf_attr_of_value(x)}, {"dim", a_int(dim)}, {"sizes", a_ints(L, 2, sizes)}};
    return rf_b_op(L, "aten.unflatten.int", 3, args, x->dtype, x->rank + 1, d, "_fftU");
}

/* dims start..start+1 (negative) -> one dim */
rf_value *rf_fft_flatten2(rf_lowering *L, rf_value *x, int start) {
    if (!x) return NULL;
    int p = ax(x, start);
    rf_dim d[MAX_RANK + 2];
    for (int i = 0, j = 0; i < x->rank; i++) {
        if (i == p) {
            d[j++] = (rf_dim){x->dims[i].size * x->dims[i + 1].size, NULL};
            i++;
        } else {
            d[j++] = x->dims[i];
        }
    }
    rf_arg args[3] = {{"self", rf_attr_of_value(x)}, {"start_dim", a_int(start)}, {"end_dim", a_int(start + 1)}};
    return rf_b_op(L, "aten.flatten.using_ints", 3, args, x->dtype, x->rank - 1, d, "_fftF");
}

/* k (a 2-D constant) @ x over axis -2 (left), or x @ k over the last axis. */
rf_value *rf_fft_matmul(rf_lowering *L, rf_value *a, rf_value *b, int left) {
    if (!a || !b) return NULL;
    rf_dim d[MAX_RANK + 2];
    int rank = left ? b->rank : a->rank;
    memcpy(d, left ? b->dims : a->dims, (size_t)rank * sizeof(rf_dim));
    if (left) d[rank - 2] = a->dims[0];
    else d[rank - 1] = b->dims[1];
    rf_arg args[2] = {{"self", rf_attr_of_value(a)}, {"other", rf_attr_of_value(b)}};
    return rf_b_op(L, "aten.matmul.default", 2, args, a->dtype, rank, d, "_fftmm");
}

rf_value *rf_fft_slice_last(rf_lowering *L, rf_value *x, int64_t start, int64_t end) {
    if (!x) return NULL;
    if (start == 0 && end == x->dims[x->rank - 1].size) return x;
    rf_dim d[MAX_RANK + 2];
    memcpy(d, x->dims, (size_t)x->rank * sizeof(rf_dim));
    d[x->rank - 1] = (rf_dim){end - start, NULL};
    rf_arg args[5] = {{"self", rf_attr_of_value(x)},
                      {"dim", a_int(-1)},
                      {"start", a_int(start)},
                      {"end", a_int(end)},
                      {"step", a_int(1)}};
    return rf_b_op(L, "aten.slice.Tensor", 5, args, x->dtype, x->rank, d, "_fftS");
}

rf_value *rf_fft_cat_last(rf_lowering *L, rf_value *a, rf_value *b) {
    if (!a || !b) return NULL;
    rf_dim d[MAX_RANK + 2];
    memcpy(d, a->dims, (size_t)a->rank * sizeof(rf_dim));
    d[a->rank - 1] = (rf_dim){a->dims[a->rank - 1].size + b->dims[b->rank - 1].size, NULL};
    rf_attr list = {0};
    list.kind = RF_A_LIST;
    list.n = 2;
    list.out_mark = RF_DT_COUNT;
    list.items = rf_alloc(rf_out_graph(L), 2 * sizeof(rf_attr));
    list.items[0] = rf_attr_of_value(a);
    list.items[1] = rf_attr_of_value(b);
    rf_arg args[2] = {{"tensors", list}, {"dim", a_int(-1)}};
    return rf_b_op(L, "aten.cat.default", 2, args, a->dtype, a->rank, d, "_fftC");
}

rf_value *rf_fft_flip(rf_lowering *L, rf_value *x, int dim) {
    if (!x) return NULL;
    int64_t dims[1] = {dim};
    rf_arg args[2] = {{"self", rf_attr_of_value(x)}, {"dims", a_ints(L, 1, dims)}};
    return rf_b_op(L, "aten.flip.default", 2, args, x->dtype, x->rank, x->dims, "_fftR");
}

/* Zeros appended along the last axis. */
rf_value *rf_fft_pad_last(rf_lowering *L, rf_value *x, int64_t right) {
    if (!x || right == 0) return x;
    rf_dim d[MAX_RANK + 2];
    memcpy(d, x->dims, (size_t)x->rank * sizeof(rf_dim));
    d[x->rank - 1] = (rf_dim){x->dims[x->rank - 1].size + right, NULL};
    int64_t pad[2] = {0, right};
    rf_arg args[3] = {{"self", rf_attr_of_value(x)}, {"pad", a_ints(L, 2, pad)}, {"value", a_float(0.0)}};
    return rf_b_op(L, "aten.constant_pad_nd.default", 3, args, x->dtype, x->rank, d, "_fftP");
}

rf_value *rf_fft_unsqueeze(rf_lowering *L, rf_value *x, int dim) {
    if (!x) return NULL;
    int p = dim < 0 ? dim + x->rank + 1 : dim;
    rf_dim d[MAX_RANK + 2];
    for (int i = 0, j = 0; i <= x->rank; i++) d[i] = i == p ? (rf_dim){1, NULL} : x->dims[j++];
    rf_arg args[2] = {{"self", rf_attr_of_value(x)}, {"dim", a_int(dim)}};
    return rf_b_op(L, "aten.unsqueeze.default", 2, args, x->dtype, x->rank + 1, d, "_fftX");
}

rf_value *rf_fft_real_add(rf_lowering *L, rf_value *a, rf_value *b) {
    if (!a || !b) return a ? a : b;
    return rf_b_add(L, rf_val(a), rf_val(b)).v;
}

rf_value *rf_fft_real_mul(rf_lowering *L, rf_value *a, rf_value *b) {
    if (!a || !b) return NULL;
    return rf_b_mul(L, rf_val(a), rf_val(b)).v;
}

rf_value *rf_fft_real_scale(rf_lowering *L, rf_value *a, double s) {
    if (!a || s == 1.0) return a;
    return rf_b_mul(L, rf_val(a), rf_num(s)).v;
}

