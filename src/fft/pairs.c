/* Shape ops on both parts of a complex pair (pairs.h). */
#include "fft/pairs.h"

#include "lower/realops.h"

rf_cx rf_fft_transpose_pair(rf_lowering *L, rf_cx x, int d0, int d1) {
    rf_value *re = rf_b_transpose(L, x.re.v, d0, d1);
    return rf_cx_values(re, rf_b_transpose(L, rf_cx_im_or_null(x), d0, d1));
}

rf_cx rf_fft_resize_pair(rf_lowering *L, rf_cx x, int64_t d, int64_t size) {
    rf_value *re = rf_b_resize(L, x.re.v, d, size);
    return rf_cx_values(re, rf_b_resize(L, rf_cx_im_or_null(x), d, size));
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
 * conjugated: gathers and a negation, which a compiler fuses into what reads them (or writes out once). */
rf_cx rf_fft_hermitian_completion(rf_lowering *L, rf_cx h, const int64_t *dims, size_t nd, int64_t n) {
    int64_t d = dims[nd - 1], rest = n - (n / 2 + 1);
    if (rest <= 0 || !h.re.v) return h;
    rf_value *im = rf_cx_im_or_null(h); /* NULL: a real spectrum, whose mirror is real too */
    rf_value *tail[2] = {h.re.v, im};
    for (int p = 0; p < 2 && tail[p]; p++) {
        tail[p] = rf_b_flip(L, rf_b_slice(L, tail[p], d, 1, rest + 1), d);
        for (size_t i = 0; i + 1 < nd; i++) tail[p] = mirrored(L, tail[p], dims[i]);
    }
    rf_value *re[2] = {h.re.v, tail[0]};
    if (!im) return rf_cx_values(rf_b_cat(L, 2, re, d), NULL);
    rf_value *ims[2] = {im, rf_b_neg(L, (rf_rv){tail[1], 0.0}).v};
    return rf_cx_values(rf_b_cat(L, 2, re, d), rf_b_cat(L, 2, ims, d));
}
