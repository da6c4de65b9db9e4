/* The real-arithmetic FFT engine of fft.c and fft_left.c, shared with the
 * torch.fft rules of fft_ops.c and the stft and istft rules of fft_stft.c. A
 * complex tensor is a pair of real values. */
#ifndef REALIFY_FFT_INTERNAL_H
#define REALIFY_FFT_INTERNAL_H

#include "lower/lower.h"

#define MAX_RANK 64

typedef struct rf_cpair {
    rf_value *re, *im; /* im NULL: exactly zero */
} rf_cpair;

typedef struct rf_fft_ctx {
    rf_lowering *L;
    rf_dtype dt; /* working real dtype of the parts and the constants */
    int oom; /* 1: out of memory; -n: a length-n transform's tables would exceed
                RF_FFT_MAX_TABLE_BYTES (n <= RF_FFT_MAX_N fits an int) */
} rf_fft_ctx;

/* Unnormalised transforms. Every dim is in [0, rank) with a static size.
 * c2c: along each dim in turn; sign -1 forward, +1 backward.
 * r2c: forward transform of a real x, the last listed dim first (kept to
 *      n/2+1 entries when onesided), then the others.
 * c2r: backward transform to a real signal: the others first, then the last
 *      listed dim, whose output has last_dim_size entries. */
rf_cpair rf_fft_c2c_dims(rf_fft_ctx *f, rf_cpair x, const int64_t *dims, size_t nd, int sign);
rf_cpair rf_fft_r2c_dims(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided);
rf_value *rf_fft_c2r_dims(rf_fft_ctx *f, rf_cpair x, const int64_t *dims, size_t nd, int64_t last_dim_size);

/* Pairs */
rf_cpair rf_fft_conj(rf_lowering *L, rf_cpair x);
rf_cpair rf_fft_scale(rf_lowering *L, rf_cpair x, double s);
/* a * b with broadcasting. */
rf_cpair rf_fft_mul(rf_lowering *L, rf_cpair a, rf_cpair b);
/* Slice from 0 or zero-pad at the end along dim d (static size) to `size`. */
rf_value *rf_fft_resize(rf_lowering *L, rf_value *x, int64_t d, int64_t size);
rf_cpair rf_fft_resize_pair(rf_lowering *L, rf_cpair x, int64_t d, int64_t size);
rf_value *rf_fft_transpose(rf_lowering *L, rf_value *x, int d0, int d1);
rf_cpair rf_fft_transpose_pair(rf_lowering *L, rf_cpair x, int d0, int d1);

/* Real tensor ops with static output shapes (fft_tensor.c); NULL operands give NULL. */
rf_value *rf_fft_unflatten(rf_lowering *L, rf_value *x, int dim, int64_t a, int64_t b); /* dim -> (a, b) */
rf_value *rf_fft_flatten2(rf_lowering *L, rf_value *x, int start);                      /* start, start+1 -> one */
rf_value *rf_fft_matmul(rf_lowering *L, rf_value *a, rf_value *b, int left); /* a @ b; left: a is the constant */
rf_value *rf_fft_slice_last(rf_lowering *L, rf_value *x, int64_t start, int64_t end);
rf_value *rf_fft_cat_last(rf_lowering *L, rf_value *a, rf_value *b);
rf_value *rf_fft_flip(rf_lowering *L, rf_value *x, int dim);
rf_value *rf_fft_pad_last(rf_lowering *L, rf_value *x, int64_t right); /* zeros appended */
rf_value *rf_fft_unsqueeze(rf_lowering *L, rf_value *x, int dim);
rf_value *rf_fft_real_add(rf_lowering *L, rf_value *a, rf_value *b); /* one side NULL: the other */
rf_value *rf_fft_real_mul(rf_lowering *L, rf_value *a, rf_value *b);
rf_value *rf_fft_real_scale(rf_lowering *L, rf_value *a, double s);

/* Direct stages without transposes (fft_left.c) */
int rf_fft_is_direct(int64_t n); /* the plan for n is one direct DFT (n >= 2) */
/* A left stage fits axis d of x: d < last_kept, direct size, static dims after d. */
int rf_fft_left_ok(const rf_value *x, int d, int last_kept);
/* x [..., n] real @ the packed real basis: [..., n] holding Re X[0..n/2], then
 * Im X[1..(n-1)/2] of the DFT of sign `sign` along the last axis. */
rf_value *rf_fft_packed_basis(rf_fft_ctx *f, rf_value *x, int64_t n, int sign);
/* packed [..., n] -> split [..., 2, n/2+1] */
rf_value *rf_fft_unpack_last(rf_fft_ctx *f, rf_value *p, int64_t n);
/* The real inverse along the last axis of a Hermitian half spectrum given as
 * [Re X | Im X] flattened ([..., 2*(n/2+1)]): one gather to the packed form, one
 * n x n matmul. The imaginary parts of X[0] and X[n/2] are not read. */
rf_value *rf_fft_packed_inverse(rf_fft_ctx *f, rf_value *flat, int64_t n);
/* The DFT over axis d (left_ok) of a split tensor x [..., 2, last], or, when
 * packed_n > 0, of a packed real tensor [..., packed_n]; the result is split,
 * or with `interleave` [..., last, 2] (pairs as the graph returns them). */
rf_value *rf_fft_left_direct(rf_fft_ctx *f, rf_value *x, int d, int64_t packed_n, int sign, int interleave);

/* Rule plumbing */
int rf_fft_dtype_ok(rf_lowering *L, const rf_node *n, rf_dtype dt);
/* Fails (RF_ERR_UNSUPPORTED, with a message) unless x's rank is known and its
 * sizes along dims are static and in range. */
rf_status rf_fft_check_static(rf_lowering *L, const rf_node *n, const rf_value *x, const int64_t *dims, size_t nd);
rf_cpair rf_fft_in(rf_lowering *L, const rf_node *n, const char *name, rf_dtype dt);
void rf_fft_set(rf_lowering *L, const rf_value *orig, rf_cpair x);
/* RF_OK, or the failure for an incomplete build (out of memory, bad operands). */
rf_status rf_fft_done(rf_fft_ctx *f, const rf_node *n, int ok);

/* Attributes */
static inline rf_attr rf_fft_a_int(int64_t i) {
    rf_attr a = {0};
    a.kind = RF_A_INT;
    a.i = i;
    a.out_mark = RF_DT_COUNT;
    return a;
}

static inline rf_attr rf_fft_a_float(double f) {
    rf_attr a = {0};
    a.kind = RF_A_FLOAT;
    a.f = f;
    a.out_mark = RF_DT_COUNT;
    return a;
}

static inline rf_attr rf_fft_a_str(const char *s) {
    rf_attr a = {0};
    a.kind = RF_A_STR;
    a.s = s;
    a.out_mark = RF_DT_COUNT;
    return a;
}

static inline rf_attr rf_fft_a_ints(rf_lowering *L, size_t n, const int64_t *v) {
    rf_attr a = {0};
    a.kind = RF_A_LIST;
    a.n = n;
    a.out_mark = RF_DT_COUNT;
    a.items = rf_alloc(rf_out_graph(L), (n ? n : 1) * sizeof(rf_attr));
    for (size_t i = 0; i < n; i++) a.items[i] = rf_fft_a_int(v[i]);
    return a;
}

#endif
