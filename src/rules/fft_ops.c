/* The torch.fft API: fft, ifft, rfft, ... in 1-D, 2-D and n-D forms, and
 * fftshift/ifftshift. torch.export keeps these as single ops; make_fx and
 * aot_autograd decompose them into _fft_c2c/_fft_r2c/_fft_c2r (fft_aten.c). stft,
 * istft and the ops around them live in fft_stft.c, to keep each file short.
 * Semantics follow torch/_refs/fft.py; src/fft/call.c reads the arguments. */
#include "cxmath/cxmath.h"
#include "fft/call.h"
#include "lower/realops.h"
#include "rules/rules.h"

/* ---- the six transforms, in any number of dims ---- */

/* ihfft: the conjugate of a forward real transform: the last dim one-sided first, then the others backward. */
static rf_cx ihfft(rf_fft_ctx *f, const rf_fft_call *c, rf_value *x) {
    rf_lowering *L = f->L;
    if (c->nd <= 1) {
        rf_cx y = rf_fft_r2c_dims(f, x, c->dims, c->nd, 1);
        return rf_cx_conj(L, rf_cx_scale(L, y, rf_num(c->scale)));
    }
    rf_cx y = rf_cx_conj(L, rf_fft_r2c_dims(f, x, c->dims + c->nd - 1, 1, 1));
    y = rf_fft_c2c_dims(f, y, c->dims, c->nd - 1, 1);
    return rf_cx_scale(L, y, rf_num(c->scale));
}

/* hfft: a Hermitian half spectrum to a real signal; the other dims forward first, then the last one. */
static rf_value *hfft(rf_fft_ctx *f, const rf_fft_call *c, rf_cx x) {
    rf_lowering *L = f->L;
    double outer = 1;
    for (size_t i = 0; i + 1 < c->nd; i++) outer *= (double)c->shape[i];
    x = rf_fft_c2c_dims(f, x, c->dims, c->nd - 1, -1);
    x = rf_cx_conj(L, rf_cx_scale(L, x, rf_num(rf_fft_norm_scale(c->norm, outer, 1))));
    rf_value *out = rf_fft_c2r_dims(f, x, c->dims + c->nd - 1, 1, c->lds);
    return rf_b_scale(L, out, rf_fft_norm_scale(c->norm, (double)c->lds, 1));
}

/* Every transform op: fft, ifft, rfft, ihfft, irfft, hfft, each in 1-D, 2-D and n-D. The patterns fft.prune,
 * fft.sparse and fft.blocks (src/patterns/) lower the ones whose outputs are sliced or whose input is mostly
 * zeros before this rule is asked. */
static rf_status fft_transform(rf_lowering *L, const rf_node *n) {
    rf_fft_call c;
    rf_status s = rf_fft_call_read(L, n, 0, &c);
    if (s != RF_OK) return s;
    if (c.form != RF_FFT_HFFT && c.form != RF_FFT_IHFFT) return rf_fft_call_lower(L, n, &c);
    rf_fft_ctx f = {.L = L, .dt = c.dt};
    rf_cx x = rf_fft_call_input(L, n, &c);
    if (c.form == RF_FFT_IHFFT) {
        if (!x.re.v) return RF_ERR_INVALID;
        return rf_fft_call_publish(&f, n, &c, ihfft(&f, &c, x.re.v));
    }
    rf_value *out = hfft(&f, &c, x);
    if (f.oom || !out) return rf_fft_done(&f, n, 0);
    rf_set_real(L, n->outs[0], out);
    return RF_OK;
}

/* ---- fftshift, ifftshift ---- */

static rf_value *roll(rf_lowering *L, rf_value *x, size_t nd, const int64_t *shifts, const int64_t *dims) {
    if (!x) return NULL;
    rf_arg args[3] = {{"self", rf_attr_ref(x)}, {"shifts", rf_attr_ints(rf_out_graph(L), nd, shifts)},
                      {"dims", rf_attr_ints(rf_out_graph(L), nd, dims)}};
    return rf_b_op(L, "aten.roll.default", 3, args, x->dtype, x->rank, x->dims, "_shift");
}

static rf_status fft_shift(rf_lowering *L, const rf_node *n, int inverse) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self)) return rf_fail(L, n, RF_ERR_INVALID, "%s needs a tensor", n->op);
    const rf_value *sv = self->value;
    if (sv->rank < 0 || sv->rank >= RF_MAX_RANK)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s needs a known rank below %d", n->op, RF_MAX_RANK);
    int64_t dims[RF_MAX_RANK], shifts[RF_MAX_RANK];
    size_t nd = 0;
    int has_dim = rf_fft_opt_ints(n, "dim", dims, &nd);
    if (has_dim < 0) return rf_fail(L, n, RF_ERR_INVALID, "%s: bad dim", n->op);
    if (!has_dim) {
        nd = (size_t)sv->rank;
        for (size_t i = 0; i < nd; i++) dims[i] = (int64_t)i;
    }
    for (size_t i = 0; i < nd; i++)
        if (!rf_fft_norm_dim(dims[i], sv->rank, &dims[i])) return rf_fail(L, n, RF_ERR_INVALID, "%s: dim out of range", n->op);
    if (rf_fft_check_static(L, n, sv, dims, nd) != RF_OK) return RF_ERR_UNSUPPORTED;
    for (size_t i = 0; i < nd; i++) shifts[i] = (sv->dims[dims[i]].size + (inverse ? 1 : 0)) / 2;
    rf_cx x = rf_in_cx(L, n, "self", rf_work_dtype(L, n));
    if (!x.re.v) return RF_ERR_INVALID;
    rf_value *re = roll(L, x.re.v, nd, shifts, dims);
    if (!rf_dtype_is_complex(n->outs[0]->dtype)) { /* a real tensor: the roll alone */
        rf_set_real(L, n->outs[0], re);
        return RF_OK;
    }
    rf_set_cx(L, n->outs[0], rf_cx_values(re, roll(L, rf_cx_im_or_null(x), nd, shifts, dims)));
    return RF_OK;
}

static rf_status fft_fftshift(rf_lowering *L, const rf_node *n) { return fft_shift(L, n, 0); }
static rf_status fft_ifftshift(rf_lowering *L, const rf_node *n) { return fft_shift(L, n, 1); }

#define FFT_ROWS(K, flags)                                                                                   \
    {"aten.fft_" #K ".default", fft_transform, flags}, {"aten.fft_" #K "2.default", fft_transform, flags},        \
    {"aten.fft_" #K "n.default", fft_transform, flags}

const rf_rule_entry rf_rules_fft_ops[] = {
    FFT_ROWS(fft, 0),
    FFT_ROWS(ifft, 0),
    FFT_ROWS(rfft, 0),
    FFT_ROWS(ihfft, 0),
    FFT_ROWS(irfft, RF_RULE_REAL_TOO),
    FFT_ROWS(hfft, RF_RULE_REAL_TOO),
    {"aten.fft_fftshift.default", fft_fftshift, RF_RULE_REAL_TOO},
    {"aten.fft_ifftshift.default", fft_ifftshift, RF_RULE_REAL_TOO},
    {NULL, NULL, 0},
};

