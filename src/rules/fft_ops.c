/* The torch.fft API: fft, ifft, rfft, ... in 1-D, 2-D and n-D forms, and
 * fftshift/ifftshift. torch.export keeps these as single ops; make_fx and
 * aot_autograd decompose them into _fft_c2c/_fft_r2c/_fft_c2r (fft.c). stft,
 * istft and the ops around them live in fft_stft.c, to keep each file short.
 * Semantics follow torch/_refs/fft.py. */
#include <math.h>
#include <string.h>

#include "fft/plan.h"
#include "rules/fft_ops_internal.h"

/* ---- arguments ---- */

/* An int argument: 1 and *out when given, 0 when absent or none, -1 otherwise (symbolic). */
int rf_fftop_opt_int(const rf_node *n, const char *name, int64_t *out) {
    const rf_attr *a = rf_node_arg(n, name);
    if (!a || a->kind == RF_A_NONE) return 0;
    if (a->kind != RF_A_INT) return -1;
    *out = a->i;
    return 1;
}

int rf_fftop_opt_bool(const rf_node *n, const char *name, int dflt) {
    const rf_attr *a = rf_node_arg(n, name);
    return (a && (a->kind == RF_A_BOOL || a->kind == RF_A_INT)) ? (int)a->i : dflt;
}

/* An int or int-list argument: 1 and out[0..*count) when given, 0 when absent or
 * none, -1 when it holds something else (a symbolic size). */
static int opt_ints(const rf_node *n, const char *name, int64_t *out, size_t *count) {
    const rf_attr *a = rf_node_arg(n, name);
    *count = 0;
    if (!a || a->kind == RF_A_NONE) return 0;
    if (a->kind == RF_A_INT) {
        out[(*count)++] = a->i;
        return 1;
    }
    if (a->kind != RF_A_LIST || a->n > MAX_RANK) return -1;
    for (size_t i = 0; i < a->n; i++) {
        if (a->items[i].kind != RF_A_INT) return -1;
        out[(*count)++] = a->items[i].i;
    }
    return 1;
}

typedef enum { NORM_BACKWARD, NORM_FORWARD, NORM_ORTHO } norm_mode;

static int read_norm(rf_lowering *L, const rf_node *n, norm_mode *m) {
    const rf_attr *a = rf_node_arg(n, "norm");
    *m = NORM_BACKWARD;
    if (!a || a->kind == RF_A_NONE) return 1;
    if (a->kind == RF_A_STR && strcmp(a->s, "backward") == 0) return 1;
    if (a->kind == RF_A_STR && strcmp(a->s, "forward") == 0) *m = NORM_FORWARD;
    else if (a->kind == RF_A_STR && strcmp(a->s, "ortho") == 0) *m = NORM_ORTHO;
    else {
        rf_fail(L, n, RF_ERR_INVALID, "%s: invalid norm", n->op);
        return 0;
    }
    return 1;
}

/* torch's _apply_norm: the scale of a transform over signal_numel points. */
static double norm_scale(norm_mode m, double signal_numel, int forward) {
    if (m == NORM_ORTHO) return 1.0 / sqrt(signal_numel);
    if ((!forward && m == NORM_BACKWARD) || (forward && m == NORM_FORWARD)) return 1.0 / signal_numel;
    return 1.0;
}

static int norm_dim(int64_t d, int rank, int64_t *out) {
    if (d < 0) d += rank;
    if (d < 0 || d >= rank) return 0;
    *out = d;
    return 1;
}

static rf_status bad_size_arg(rf_lowering *L, const rf_node *n, const char *what) {
    return rf_fail(L, n, RF_ERR_UNSUPPORTED,
                   "%s: %s is symbolic; realify lowers FFTs whose transformed dims are static", n->op, what);
}

/* The dtype the parts of a real output are computed in. */
static rf_dtype real_out_dtype(rf_lowering *L, const rf_value *self) {
    return rf_dtype_is_complex(self->dtype) ? rf_component_of(L, self->dtype) : self->dtype;
}

static rf_value *real_in(rf_lowering *L, const rf_node *n, rf_dtype dt) {
    rf_value *x = rf_in_real(L, n, "self");
    return (x && x->dtype != dt) ? rf_b_cast(L, x, dt) : x;
}

/* ---- fft, ifft, rfft, ihfft, irfft, hfft ---- */

enum { K_FFT, K_IFFT, K_RFFT, K_IHFFT, K_IRFFT, K_HFFT };

static int kind_forward(int kind) { return kind == K_FFT || kind == K_RFFT || kind == K_HFFT; }

static rf_status fft_1d(rf_lowering *L, const rf_node *n, int kind) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self)) return rf_fail(L, n, RF_ERR_INVALID, "%s needs a tensor", n->op);
    const rf_value *sv = self->value;
    int64_t d = 0, dim_arg = -1, size = 0;
    if (sv->rank < 1 || sv->rank >= MAX_RANK)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s needs a known rank between 1 and %d", n->op, MAX_RANK - 1);
    int has_n = opt_int(n, "n", &size);
    if (has_n < 0) return bad_size_arg(L, n, "n");
    if (opt_int(n, "dim", &dim_arg) < 0 || !norm_dim(dim_arg, sv->rank, &d))
        return rf_fail(L, n, RF_ERR_INVALID, "%s: dim out of range", n->op);
    norm_mode nm;
    if (!read_norm(L, n, &nm)) return RF_ERR_INVALID;
    if (rf_fft_check_static(L, n, sv, &d, 1) != RF_OK) return RF_ERR_UNSUPPORTED;
    int64_t have = sv->dims[d].size;
    int forward = kind_forward(kind);
    if (kind == K_IRFFT || kind == K_HFFT) { /* Hermitian half spectrum in, real signal out */
        int64_t lds = has_n ? size : 2 * (have - 1);
        if (lds < 1 || lds > RF_FFT_MAX_N)
            return rf_fail(L, n, RF_ERR_INVALID, "%s: invalid number of data points (%lld)", n->op, (long long)lds);
        rf_fft_ctx f = {L, real_out_dtype(L, sv), 0};
        if (!rf_fft_dtype_ok(L, n, f.dt)) return RF_ERR_DTYPE;
        cpair x = rf_fft_in(L, n, "self", f.dt);
        if (has_n) x = rf_fft_resize_pair(L, x, d, lds / 2 + 1);
        if (kind == K_HFFT) x = rf_fft_conj(L, x);
        rf_value *out = rf_fft_c2r_dims(&f, x, &d, 1, lds);
        out = rf_fft_scale(L, cp(out, NULL), norm_scale(nm, (double)lds, forward)).re;
        if (f.oom || !out) return rf_fft_done(&f, n, 0);
        rf_set_real(L, n->outs[0], out);
        return RF_OK;
    }
    int64_t len = has_n ? size : have;
    if (len < 1 || len > RF_FFT_MAX_N)
        return rf_fail(L, n, RF_ERR_INVALID, "%s: invalid number of data points (%lld)", n->op, (long long)len);
    rf_fft_ctx f = {L, rf_work_dtype(L, n), 0};
    if (!rf_fft_dtype_ok(L, n, f.dt)) return RF_ERR_DTYPE;
    cpair y;
    if (kind == K_RFFT || kind == K_IHFFT) {
        rf_value *x = real_in(L, n, f.dt);
        if (!x) return RF_ERR_INVALID;
        y = rf_fft_r2c_dims(&f, rf_fft_resize(L, x, d, len), &d, 1, 1);
    } else {
        cpair x = rf_fft_resize_pair(L, rf_fft_in(L, n, "self", f.dt), d, len);
        y = rf_fft_c2c_dims(&f, x, &d, 1, forward ? -1 : 1);
    }
    y = rf_fft_scale(L, y, norm_scale(nm, (double)len, forward));
    if (kind == K_IHFFT) y = rf_fft_conj(L, y);
    if (f.oom || !y.re) return rf_fft_done(&f, n, 0);
    rf_fft_set(L, n->outs[0], y);
    return RF_OK;
}

static rf_status fft_fft(rf_lowering *L, const rf_node *n) { return fft_1d(L, n, K_FFT); }
static rf_status fft_ifft(rf_lowering *L, const rf_node *n) { return fft_1d(L, n, K_IFFT); }
static rf_status fft_rfft(rf_lowering *L, const rf_node *n) { return fft_1d(L, n, K_RFFT); }
static rf_status fft_ihfft(rf_lowering *L, const rf_node *n) { return fft_1d(L, n, K_IHFFT); }
static rf_status fft_irfft(rf_lowering *L, const rf_node *n) { return fft_1d(L, n, K_IRFFT); }
static rf_status fft_hfft(rf_lowering *L, const rf_node *n) { return fft_1d(L, n, K_HFFT); }

/* ---- fftn, ifftn, rfftn, ihfftn, irfftn, hfftn and their 2-D forms ---- */

static double prod(const int64_t *v, size_t n) {
    double p = 1;
    for (size_t i = 0; i < n; i++) p *= (double)v[i];
    return p;
}

static cpair resize_all(rf_lowering *L, cpair x, const int64_t *dims, const int64_t *shape, size_t nd) {
    for (size_t i = 0; i < nd; i++) x = rf_fft_resize_pair(L, x, dims[i], shape[i]);
    return x;
}

static rf_status fft_nd(rf_lowering *L, const rf_node *n, int kind, int two) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self)) return rf_fail(L, n, RF_ERR_INVALID, "%s needs a tensor", n->op);
    const rf_value *sv = self->value;
    int rank = sv->rank;
    if (rank < 0 || rank >= MAX_RANK)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s needs a known rank below %d", n->op, MAX_RANK);
    int64_t dims[MAX_RANK], shape[MAX_RANK], s[MAX_RANK];
    size_t nd = 0, ns = 0;
    int has_dim = opt_ints(n, "dim", dims, &nd);
    int has_s = opt_ints(n, "s", s, &ns);
    if (has_s < 0) return bad_size_arg(L, n, "s");
    if (has_dim < 0) return rf_fail(L, n, RF_ERR_INVALID, "%s: bad dim", n->op);
    if (!has_dim && two) { /* fft2 and friends: dim=(-2, -1) */
        dims[0] = -2;
        dims[1] = -1;
        nd = 2;
        has_dim = 1;
    }
    for (size_t i = 0; has_dim && i < nd; i++) {
        if (!norm_dim(dims[i], rank, &dims[i])) return rf_fail(L, n, RF_ERR_INVALID, "%s: dim out of range", n->op);
        for (size_t j = 0; j < i; j++)
            if (dims[j] == dims[i]) return rf_fail(L, n, RF_ERR_INVALID, "%s: FFT dims must be unique", n->op);
    }
    if (has_s) {
        if ((has_dim && nd != ns) || ns > (size_t)rank)
            return rf_fail(L, n, RF_ERR_INVALID, "%s: s and dim do not match", n->op);
        nd = ns;
        for (size_t i = 0; !has_dim && i < nd; i++) dims[i] = rank - (int64_t)ns + (int64_t)i;
    } else if (!has_dim) {
        nd = (size_t)rank;
        for (size_t i = 0; i < nd; i++) dims[i] = (int64_t)i;
    }
    if (rf_fft_check_static(L, n, sv, dims, nd) != RF_OK) return RF_ERR_UNSUPPORTED;
    for (size_t i = 0; i < nd; i++) {
        shape[i] = (has_s && s[i] != -1) ? s[i] : sv->dims[dims[i]].size;
        if (shape[i] < 1 || shape[i] > RF_FFT_MAX_N)
            return rf_fail(L, n, RF_ERR_INVALID, "%s: invalid number of data points (%lld)", n->op,
                           (long long)shape[i]);
    }
    norm_mode nm;
    if (!read_norm(L, n, &nm)) return RF_ERR_INVALID;
    int forward = kind_forward(kind);
    if (kind == K_IRFFT || kind == K_HFFT) {
        if (!nd) return rf_fail(L, n, RF_ERR_INVALID, "%s must transform at least one axis", n->op);
        int64_t lds = (!has_s || s[nd - 1] == -1) ? 2 * (sv->dims[dims[nd - 1]].size - 1) : shape[nd - 1];
        if (lds < 1 || lds > RF_FFT_MAX_N)
            return rf_fail(L, n, RF_ERR_INVALID, "%s: invalid number of data points (%lld)", n->op, (long long)lds);
        shape[nd - 1] = lds / 2 + 1;
        rf_fft_ctx f = {L, real_out_dtype(L, sv), 0};
        if (!rf_fft_dtype_ok(L, n, f.dt)) return RF_ERR_DTYPE;
        cpair x = resize_all(L, rf_fft_in(L, n, "self", f.dt), dims, shape, nd);
        double outer = prod(shape, nd - 1);
        rf_value *out;
        if (kind == K_IRFFT) {
            out = rf_fft_c2r_dims(&f, x, dims, nd, lds);
            out = rf_fft_scale(L, cp(out, NULL), norm_scale(nm, outer * (double)lds, 0)).re;
        } else {
            x = rf_fft_c2c_dims(&f, x, dims, nd - 1, -1);
            x = rf_fft_conj(L, rf_fft_scale(L, x, norm_scale(nm, outer, 1)));
            out = rf_fft_c2r_dims(&f, x, dims + nd - 1, 1, lds);
            out = rf_fft_scale(L, cp(out, NULL), norm_scale(nm, (double)lds, 1)).re;
        }
        if (f.oom || !out) return rf_fft_done(&f, n, 0);
        rf_set_real(L, n->outs[0], out);
        return RF_OK;
    }
    rf_fft_ctx f = {L, rf_work_dtype(L, n), 0};
    if (!rf_fft_dtype_ok(L, n, f.dt)) return RF_ERR_DTYPE;
    cpair y;
    if (kind == K_RFFT || kind == K_IHFFT) {
        rf_value *x = real_in(L, n, f.dt);
        if (!x) return RF_ERR_INVALID;
        x = resize_all(L, cp(x, NULL), dims, shape, nd).re;
        if (kind == K_RFFT) {
            y = rf_fft_scale(L, rf_fft_r2c_dims(&f, x, dims, nd, 1), norm_scale(nm, prod(shape, nd), 1));
        } else if (nd <= 1) {
            y = rf_fft_r2c_dims(&f, x, dims, nd, 1);
            y = rf_fft_conj(L, rf_fft_scale(L, y, norm_scale(nm, prod(shape, nd), 0)));
        } else {
            y = rf_fft_conj(L, rf_fft_r2c_dims(&f, x, dims + nd - 1, 1, 1));
            y = rf_fft_c2c_dims(&f, y, dims, nd - 1, 1);
            y = rf_fft_scale(L, y, norm_scale(nm, prod(shape, nd), 0));
        }
    } else {
        cpair x = resize_all(L, rf_fft_in(L, n, "self", f.dt), dims, shape, nd);
        y = rf_fft_c2c_dims(&f, x, dims, nd, forward ? -1 : 1);
        y = rf_fft_scale(L, y, norm_scale(nm, prod(shape, nd), forward));
    }
    if (f.oom || !y.re) return rf_fft_done(&f, n, 0);
    rf_fft_set(L, n->outs[0], y);
    return RF_OK;
}

static rf_status fft_fftn(rf_lowering *L, const rf_node *n) { return fft_nd(L, n, K_FFT, 0); }
static rf_status fft_ifftn(rf_lowering *L, const rf_node *n) { return fft_nd(L, n, K_IFFT, 0); }
static rf_status fft_rfftn(rf_lowering *L, const rf_node *n) { return fft_nd(L, n, K_RFFT, 0); }
static rf_status fft_ihfftn(rf_lowering *L, const rf_node *n) { return fft_nd(L, n, K_IHFFT, 0); }
static rf_status fft_irfftn(rf_lowering *L, const rf_node *n) { return fft_nd(L, n, K_IRFFT, 0); }
static rf_status fft_hfftn(rf_lowering *L, const rf_node *n) { return fft_nd(L, n, K_HFFT, 0); }
static rf_status fft_fft2(rf_lowering *L, const rf_node *n) { return fft_nd(L, n, K_FFT, 1); }
static rf_status fft_ifft2(rf_lowering *L, const rf_node *n) { return fft_nd(L, n, K_IFFT, 1); }
static rf_status fft_rfft2(rf_lowering *L, const rf_node *n) { return fft_nd(L, n, K_RFFT, 1); }
static rf_status fft_ihfft2(rf_lowering *L, const rf_node *n) { return fft_nd(L, n, K_IHFFT, 1); }
static rf_status fft_irfft2(rf_lowering *L, const rf_node *n) { return fft_nd(L, n, K_IRFFT, 1); }
static rf_status fft_hfft2(rf_lowering *L, const rf_node *n) { return fft_nd(L, n, K_HFFT, 1); }

/* ---- fftshift, ifftshift ---- */

static rf_value *roll(rf_lowering *L, rf_value *x, size_t nd, const int64_t *shifts, const int64_t *dims) {
    if (!x) return NULL;
    rf_arg args[3] = {{"self", rf_attr_of_value(x)}, {"shifts", a_ints(L, nd, shifts)}, {"dims", a_ints(L, nd, dims)}};
    return rf_b_op(L, "aten.roll.default", 3, args, x->dtype, x->rank, x->dims, "_shift");
}

static rf_status fft_shift(rf_lowering *L, const rf_node *n, int inverse) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self)) return rf_fail(L, n, RF_ERR_INVALID, "%s needs a tensor", n->op);
    const rf_value *sv = self->value;
    if (sv->rank < 0 || sv->rank >= MAX_RANK)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s needs a known rank below %d", n->op, MAX_RANK);
    int64_t dims[MAX_RANK], shifts[MAX_RANK];
    size_t nd = 0;
    int has_dim = opt_ints(n, "dim", dims, &nd);
    if (has_dim < 0) return rf_fail(L, n, RF_ERR_INVALID, "%s: bad dim", n->op);
    if (!has_dim) {
        nd = (size_t)sv->rank;
        for (size_t i = 0; i < nd; i++) dims[i] = (int64_t)i;
    }
    for (size_t i = 0; i < nd; i++)
        if (!norm_dim(dims[i], sv->rank, &dims[i])) return rf_fail(L, n, RF_ERR_INVALID, "%s: dim out of range", n->op);
    if (rf_fft_check_static(L, n, sv, dims, nd) != RF_OK) return RF_ERR_UNSUPPORTED;
    for (size_t i = 0; i < nd; i++) shifts[i] = (sv->dims[dims[i]].size + (inverse ? 1 : 0)) / 2;
    cpair x = rf_fft_in(L, n, "self", rf_work_dtype(L, n));
    if (!x.re) return RF_ERR_INVALID;
    rf_value *re = roll(L, x.re, nd, shifts, dims);
    if (!rf_dtype_is_complex(n->outs[0]->dtype)) { /* a real tensor: the roll alone */
        rf_set_real(L, n->outs[0], re);
        return RF_OK;
    }
    rf_fft_set(L, n->outs[0], cp(re, roll(L, x.im, nd, shifts, dims)));
    return RF_OK;
}

static rf_status fft_fftshift(rf_lowering *L, const rf_node *n) { return fft_shift(L, n, 0); }
static rf_status fft_ifftshift(rf_lowering *L, const rf_node *n) { return fft_shift(L, n, 1); }

const rf_rule_entry rf_rules_fft_ops[] = {
    {"aten.fft_fft.default", fft_fft, 0},
    {"aten.fft_ifft.default", fft_ifft, 0},
    {"aten.fft_rfft.default", fft_rfft, 0},
    {"aten.fft_irfft.default", fft_irfft, RF_RULE_REAL_TOO},
    {"aten.fft_hfft.default", fft_hfft, RF_RULE_REAL_TOO},
    {"aten.fft_ihfft.default", fft_ihfft, 0},
    {"aten.fft_fft2.default", fft_fft2, 0},
    {"aten.fft_ifft2.default", fft_ifft2, 0},
    {"aten.fft_rfft2.default", fft_rfft2, 0},
    {"aten.fft_irfft2.default", fft_irfft2, RF_RULE_REAL_TOO},
    {"aten.fft_hfft2.default", fft_hfft2, RF_RULE_REAL_TOO},
    {"aten.fft_ihfft2.default", fft_ihfft2, 0},
    {"aten.fft_fftn.default", fft_fftn, 0},
    {"aten.fft_ifftn.default", fft_ifftn, 0},
    {"aten.fft_rfftn.default", fft_rfftn, 0},
    {"aten.fft_irfftn.default", fft_irfftn, RF_RULE_REAL_TOO},
    {"aten.fft_hfftn.default", fft_hfftn, RF_RULE_REAL_TOO},
    {"aten.fft_ihfftn.default", fft_ihfftn, 0},
    {"aten.fft_fftshift.default", fft_fftshift, RF_RULE_REAL_TOO},
    {"aten.fft_ifftshift.default", fft_ifftshift, RF_RULE_REAL_TOO},
    {NULL, NULL, 0},
};

