/* The FFT ops read as one transform, and the transform run with or without a keep plan (call.h). The torch.fft
 * forms (fft, ifft, rfft, ihfft, irfft, hfft in 1-D, 2-D and n-D; torch.export keeps these) follow
 * torch/_refs/fft.py; aten's _fft_c2c, _fft_r2c and _fft_c2r (what make_fx and aot_autograd decompose them into)
 * take their dims and normalization as they are. */
#include "fft/call.h"

#include <math.h>
#include <string.h>

#include "cxmath/cxmath.h"
#include "fft/plan.h"

/* A bad argument: reported on L unless a pattern only probes. */
#define REFUSE(quiet, L, n, code, ...) ((quiet) ? (rf_status)(code) : rf_fail((L), (n), (code), __VA_ARGS__))

enum { K_FFT, K_IFFT, K_RFFT, K_IHFFT, K_IRFFT, K_HFFT, NKINDS };
static const char *const kind_names[NKINDS] = {"fft", "ifft", "rfft", "ihfft", "irfft", "hfft"};

/* The kind of a torch.fft op ("aten.fft_rfft2.default") and its form (*dims_form 1: 1-D, 2: 2-D, 0: n-D); -1
 * when op is none of them. */
static int torch_kind(const char *op, int *dims_form) {
    static const char pre[] = "aten.fft_", post[] = ".default";
    size_t lp = sizeof pre - 1, lq = sizeof post - 1, len = strlen(op);
    if (len <= lp + lq || strncmp(op, pre, lp) != 0 || strcmp(op + len - lq, post) != 0) return -1;
    const char *name = op + lp;
    size_t k = len - lp - lq;
    *dims_form = 1;
    if (name[k - 1] == '2') *dims_form = 2, k--;
    else if (name[k - 1] == 'n') *dims_form = 0, k--;
    for (int i = 0; i < NKINDS; i++)
        if (strlen(kind_names[i]) == k && strncmp(name, kind_names[i], k) == 0) return i;
    return -1;
}

double rf_fft_norm_scale(rf_fft_norm m, double numel, int forward) {
    if (m == RF_FFT_NORM_ORTHO) return 1.0 / sqrt(numel);
    if ((!forward && m == RF_FFT_NORM_BACKWARD) || (forward && m == RF_FFT_NORM_FORWARD)) return 1.0 / numel;
    return 1.0;
}

static double prod(const int64_t *v, size_t n) {
    double p = 1;
    for (size_t i = 0; i < n; i++) p *= (double)v[i];
    return p;
}

/* rf_fft_check_static, or its verdict alone when quiet. */
static rf_status check_static(rf_lowering *L, const rf_node *n, int quiet, const rf_value *x, const int64_t *dims,
                              size_t nd) {
    if (!quiet) return rf_fft_check_static(L, n, x, dims, nd);
    if (x->rank < 0 || x->rank >= RF_MAX_RANK) return RF_ERR_UNSUPPORTED;
    for (size_t i = 0; i < nd; i++)
        if (x->dims[dims[i]].sym || x->dims[dims[i]].size < 1 || x->dims[dims[i]].size > RF_FFT_MAX_N)
            return RF_ERR_UNSUPPORTED;
    return RF_OK;
}

/* ---- torch.fft's forms ---- */

int rf_fft_opt_ints(const rf_node *n, const char *name, int64_t *out, size_t *count) {
    const rf_attr *a = rf_node_arg(n, name);
    *count = 0;
    if (!a || a->kind == RF_A_NONE) return 0;
    int k = rf_int_list(a, out, RF_MAX_RANK);
    if (k < 0) return -1;
    *count = (size_t)k;
    return 1;
}

static rf_status read_norm(rf_lowering *L, const rf_node *n, int quiet, rf_fft_norm *m) {
    const rf_attr *a = rf_node_arg(n, "norm");
    *m = RF_FFT_NORM_BACKWARD;
    if (!a || a->kind == RF_A_NONE) return RF_OK;
    if (a->kind == RF_A_STR && strcmp(a->s, "backward") == 0) return RF_OK;
    if (a->kind == RF_A_STR && strcmp(a->s, "forward") == 0) *m = RF_FFT_NORM_FORWARD;
    else if (a->kind == RF_A_STR && strcmp(a->s, "ortho") == 0) *m = RF_FFT_NORM_ORTHO;
    else return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s: invalid norm", n->op);
    return RF_OK;
}

int rf_fft_norm_dim(int64_t d, int rank, int64_t *out) {
    if (d < 0) d += rank;
    if (d < 0 || d >= rank) return 0;
    *out = d;
    return 1;
}

#define BAD_SIZE(quiet, L, n, what)                                                                                  \
    REFUSE(quiet, L, n, RF_ERR_UNSUPPORTED,                                                                        \
           "%s: %s is symbolic; realify lowers FFTs whose transformed dims are static", (n)->op, what)
#define BAD_POINTS(quiet, L, n, count)                                                                               \
    REFUSE(quiet, L, n, RF_ERR_INVALID, "%s: invalid number of data points (%lld)", (n)->op, (long long)(count))

static int dtype_ok(rf_dtype dt) { return dt == RF_DT_F16 || dt == RF_DT_BF16 || dt == RF_DT_F32 || dt == RF_DT_F64; }

/* The form, sign, dtype and scale of a torch.fft op of `kind` once its dims and sizes are read. */
static rf_status finish_torch(rf_lowering *L, const rf_node *n, int quiet, int kind, rf_fft_norm nm,
                              rf_fft_call *c) {
    static const rf_fft_form forms[NKINDS] = {RF_FFT_C2C, RF_FFT_C2C, RF_FFT_R2C,
                                              RF_FFT_IHFFT, RF_FFT_C2R, RF_FFT_HFFT};
    c->form = forms[kind];
    c->norm = nm;
    c->resize = 1;
    c->sign = kind == K_IFFT ? 1 : -1;
    c->onesided = kind == K_RFFT;
    if (kind == K_IRFFT || kind == K_HFFT) { /* Hermitian half spectrum in, real signal out */
        c->dt = rf_dtype_is_complex(c->self->dtype) ? rf_component_of(L, c->self->dtype) : c->self->dtype;
        c->scale = rf_fft_norm_scale(nm, prod(c->shape, c->nd - 1) * (double)c->lds, 0);
    } else {
        c->dt = rf_work_dtype(L, n);
        c->scale = rf_fft_norm_scale(nm, prod(c->shape, c->nd), kind == K_FFT || kind == K_RFFT);
    }
    if (dtype_ok(c->dt)) return RF_OK;
    if (!quiet) rf_fft_dtype_ok(L, n, c->dt);
    return RF_ERR_DTYPE;
}

/* fft, ifft, rfft, ihfft, irfft, hfft: one dim, size n. */
static rf_status read_1d(rf_lowering *L, const rf_node *n, int quiet, int kind, rf_fft_call *c) {
    const rf_value *sv = c->self;
    int64_t d = 0, dim_arg = -1, size = 0;
    if (sv->rank < 1 || sv->rank >= RF_MAX_RANK)
        return REFUSE(quiet, L, n, RF_ERR_UNSUPPORTED, "%s needs a known rank between 1 and %d", n->op,
                      RF_MAX_RANK - 1);
    int has_n = rf_opt_int(n, "n", &size);
    if (has_n < 0) return BAD_SIZE(quiet, L, n, "n");
    if (rf_opt_int(n, "dim", &dim_arg) < 0 || !rf_fft_norm_dim(dim_arg, sv->rank, &d))
        return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s: dim out of range", n->op);
    rf_fft_norm nm;
    rf_status s = read_norm(L, n, quiet, &nm);
    if (s == RF_OK) s = check_static(L, n, quiet, sv, &d, 1);
    if (s != RF_OK) return s;
    int64_t have = sv->dims[d].size, len = has_n ? size : have, lds = 0;
    if (kind == K_IRFFT || kind == K_HFFT) { /* the input holds lds/2+1 entries of the half spectrum */
        lds = has_n ? size : 2 * (have - 1);
        len = lds / 2 + 1;
        if (lds < 1 || lds > RF_FFT_MAX_N) return BAD_POINTS(quiet, L, n, lds);
    } else if (len < 1 || len > RF_FFT_MAX_N) {
        return BAD_POINTS(quiet, L, n, len);
    }
    c->nd = 1, c->dims[0] = d, c->shape[0] = len, c->lds = lds;
    return finish_torch(L, n, quiet, kind, nm, c);
}

/* fftn, ifftn, rfftn, ihfftn, irfftn, hfftn and their 2-D forms (two: dim=(-2, -1) by default). */
static rf_status read_nd(rf_lowering *L, const rf_node *n, int quiet, int kind, int two, rf_fft_call *c) {
    const rf_value *sv = c->self;
    int rank = sv->rank;
    if (rank < 0 || rank >= RF_MAX_RANK)
        return REFUSE(quiet, L, n, RF_ERR_UNSUPPORTED, "%s needs a known rank below %d", n->op, RF_MAX_RANK);
    int64_t *dims = c->dims, *shape = c->shape, s[RF_MAX_RANK];
    size_t nd = 0, ns = 0;
    int has_dim = rf_fft_opt_ints(n, "dim", dims, &nd);
    int has_s = rf_fft_opt_ints(n, "s", s, &ns);
    if (has_s < 0) return BAD_SIZE(quiet, L, n, "s");
    if (has_dim < 0) return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s: bad dim", n->op);
    if (!has_dim && two) {
        dims[0] = -2, dims[1] = -1;
        nd = 2;
        has_dim = 1;
    }
    for (size_t i = 0; has_dim && i < nd; i++) {
        if (!rf_fft_norm_dim(dims[i], rank, &dims[i]))
            return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s: dim out of range", n->op);
        for (size_t j = 0; j < i; j++)
            if (dims[j] == dims[i]) return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s: FFT dims must be unique", n->op);
    }
    if (has_s) {
        if ((has_dim && nd != ns) || ns > (size_t)rank)
            return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s: s and dim do not match", n->op);
        nd = ns;
        for (size_t i = 0; !has_dim && i < nd; i++) dims[i] = rank - (int64_t)ns + (int64_t)i;
    } else if (!has_dim) {
        nd = (size_t)rank;
        for (size_t i = 0; i < nd; i++) dims[i] = (int64_t)i;
    }
    rf_status st = check_static(L, n, quiet, sv, dims, nd);
    if (st != RF_OK) return st;
    for (size_t i = 0; i < nd; i++) {
        shape[i] = (has_s && s[i] != -1) ? s[i] : sv->dims[dims[i]].size;
        if (shape[i] < 1 || shape[i] > RF_FFT_MAX_N) return BAD_POINTS(quiet, L, n, shape[i]);
    }
    rf_fft_norm nm;
    if ((st = read_norm(L, n, quiet, &nm)) != RF_OK) return st;
    c->nd = nd;
    c->lds = 0;
    if (kind == K_IRFFT || kind == K_HFFT) {
        if (!nd) return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s must transform at least one axis", n->op);
        c->lds = (!has_s || s[nd - 1] == -1) ? 2 * (sv->dims[dims[nd - 1]].size - 1) : shape[nd - 1];
        if (c->lds < 1 || c->lds > RF_FFT_MAX_N) return BAD_POINTS(quiet, L, n, c->lds);
        shape[nd - 1] = c->lds / 2 + 1;
    }
    return finish_torch(L, n, quiet, kind, nm, c);
}

/* ---- aten's _fft_c2c, _fft_r2c, _fft_c2r ---- */

/* `dim` (normalised against self's rank) and `normalization` (0 none, 1 by 1/sqrt(n), 2 by 1/n); the sizes
 * along dims, which must be static. */
static rf_status read_aten_dims(rf_lowering *L, const rf_node *n, int quiet, rf_fft_call *c, int64_t *norm) {
    const rf_value *x = c->self;
    if (x->rank < 0 || x->rank >= RF_MAX_RANK)
        return REFUSE(quiet, L, n, RF_ERR_UNSUPPORTED, "%s needs a known rank below %d", n->op, RF_MAX_RANK);
    const rf_attr *dim = rf_node_arg(n, "dim"), *nrm = rf_node_arg(n, "normalization");
    if (!dim || dim->kind != RF_A_LIST || dim->n > (size_t)x->rank)
        return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s needs a list of dims", n->op);
    if (!nrm || nrm->kind != RF_A_INT || nrm->i < 0 || nrm->i > 2)
        return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s needs normalization 0, 1 or 2", n->op);
    *norm = nrm->i;
    c->nd = dim->n;
    for (size_t i = 0; i < dim->n; i++) {
        if (dim->items[i].kind != RF_A_INT) return REFUSE(quiet, L, n, RF_ERR_UNSUPPORTED, "%s: symbolic dim", n->op);
        int64_t d = dim->items[i].i;
        if (d < 0) d += x->rank;
        if (d < 0 || d >= x->rank)
            return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s: dim %lld out of range", n->op, (long long)dim->items[i].i);
        c->dims[i] = d;
    }
    rf_status s = check_static(L, n, quiet, x, c->dims, c->nd);
    for (size_t i = 0; s == RF_OK && i < c->nd; i++) c->shape[i] = x->dims[c->dims[i]].size;
    return s;
}

static double aten_scale(int64_t norm, double signal_numel) {
    if (norm == 1) return 1.0 / sqrt(signal_numel);
    if (norm == 2) return 1.0 / signal_numel;
    return 1.0;
}

/* _fft_c2c (flag `forward`), _fft_r2c (flag `onesided`), _fft_c2r (last_dim_size). */
static rf_status read_aten(rf_lowering *L, const rf_node *n, int quiet, rf_fft_form form, rf_fft_call *c) {
    int64_t norm = 0;
    if (form == RF_FFT_C2R) {
        const rf_attr *lds = rf_node_arg(n, "last_dim_size");
        if (!lds) return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s needs self and last_dim_size", n->op);
        if (lds->kind != RF_A_INT) return BAD_SIZE(quiet, L, n, "last_dim_size");
        rf_status s = read_aten_dims(L, n, quiet, c, &norm);
        if (s != RF_OK) return s;
        if (!c->nd || lds->i < 1 || lds->i > RF_FFT_MAX_N)
            return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s needs a dim and last_dim_size >= 1", n->op);
        c->lds = lds->i;
        c->dt = rf_component_of(L, c->self->dtype);
        c->scale = aten_scale(norm, prod(c->shape, c->nd - 1) * (double)c->lds);
        c->shape[c->nd - 1] = c->lds / 2 + 1;
        return RF_OK;
    }
    const char *flag_name = form == RF_FFT_R2C ? "onesided" : "forward";
    const rf_attr *flag = rf_node_arg(n, flag_name);
    if (!flag || flag->kind != RF_A_BOOL)
        return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s needs self and %s", n->op, flag_name);
    rf_status s = read_aten_dims(L, n, quiet, c, &norm);
    if (s != RF_OK) return s;
    c->dt = rf_work_dtype(L, n);
    c->scale = aten_scale(norm, prod(c->shape, c->nd));
    c->sign = flag->i ? -1 : 1;
    c->onesided = form == RF_FFT_R2C && flag->i;
    return RF_OK;
}

rf_status rf_fft_call_read(rf_lowering *L, const rf_node *n, int quiet, rf_fft_call *c) {
    memset(c, 0, sizeof *c);
    const rf_attr *self = rf_node_arg(n, "self");
    int kind, dims_form = 0;
    rf_fft_form aten = !strcmp(n->op, "aten._fft_c2c.default")   ? RF_FFT_C2C
                       : !strcmp(n->op, "aten._fft_r2c.default") ? RF_FFT_R2C
                       : !strcmp(n->op, "aten._fft_c2r.default") ? RF_FFT_C2R
                                                                 : RF_FFT_HFFT; /* none of them */
    if (aten == RF_FFT_HFFT && (kind = torch_kind(n->op, &dims_form)) < 0)
        return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s is no FFT op", n->op);
    if (!rf_attr_is_tensor(self)) {
        if (aten == RF_FFT_HFFT) return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s needs a tensor", n->op);
        return REFUSE(quiet, L, n, RF_ERR_INVALID, "%s needs self and %s", n->op,
                      aten == RF_FFT_C2R ? "last_dim_size" : aten == RF_FFT_R2C ? "onesided" : "forward");
    }
    c->self = self->value;
    if (aten != RF_FFT_HFFT) {
        c->form = aten;
        return read_aten(L, n, quiet, aten, c);
    }
    return dims_form == 1 ? read_1d(L, n, quiet, kind, c) : read_nd(L, n, quiet, kind, dims_form == 2, c);
}

/* ---- running the transform ---- */

int rf_fft_call_same_sizes(const rf_fft_call *c) {
    for (size_t i = 0; i < c->nd; i++)
        if (c->self->dims[c->dims[i]].sym || c->self->dims[c->dims[i]].size != c->shape[i]) return 0;
    return 1;
}

rf_cx rf_fft_call_input(rf_lowering *L, const rf_node *n, const rf_fft_call *c) {
    rf_cx x;
    if (c->form == RF_FFT_R2C || c->form == RF_FFT_IHFFT) {
        rf_value *r = rf_in_real(L, n, "self");
        if (r && r->dtype != c->dt) r = rf_b_cast(L, r, c->dt);
        if (!r) return rf_cx_values(NULL, NULL);
        x = rf_cx_values(r, NULL);
    } else {
        x = rf_in_cx(L, n, "self", c->dt);
    }
    for (size_t i = 0; c->resize && i < c->nd; i++) x = rf_fft_resize_pair(L, x, c->dims[i], c->shape[i]);
    return x;
}

rf_cx rf_fft_call_run(rf_fft_ctx *f, const rf_fft_call *c, rf_cx x, const rf_fft_keep *outputs,
                      const rf_fft_keep *inputs, double scale) {
    rf_cx y = rf_cx_values(NULL, NULL);
    if (!x.re.v) return y;
    /* the scale goes to the transform as fold_scale where a stage can take it, and what is left is applied here:
     * native whole transforms take the platform's 1/n or 1/sqrt(n) in the call (fft/native.c); for graph targets
     * a c2r's rides in a table of a stage (fft/graph_real.c's inverse, the direct stages) */
    int native = rf_options(f->L)->fft == RF_FFT_NATIVE;
    int whole = c->form == RF_FFT_R2C || c->form == RF_FFT_C2C; /* hfft/ihfft reach here as their stages */
    int fold = !inputs && (c->form == RF_FFT_C2R ? native || rf_graph_runtime(f->L) : whole && native && !outputs);
    if (fold) f->fold_scale = scale;
    switch (c->form) {
    case RF_FFT_R2C:
        y = outputs ? rf_fft_r2c_pruned(f, x.re.v, c->dims, c->nd, c->onesided, outputs)
                    : rf_fft_r2c_dims(f, x.re.v, c->dims, c->nd, c->onesided);
        if (fold) scale = rf_fft_take_scale(f);
        return rf_cx_scale(f->L, y, rf_num(scale));
    case RF_FFT_C2C:
        y = inputs    ? rf_fft_c2c_sparse(f, x, c->dims, c->shape, c->nd, c->sign, inputs)
            : outputs ? rf_fft_c2c_pruned(f, x, c->dims, c->nd, c->sign, outputs)
                      : rf_fft_c2c_dims(f, x, c->dims, c->nd, c->sign);
        if (fold) scale = rf_fft_take_scale(f);
        return rf_cx_scale(f->L, y, rf_num(scale));
    case RF_FFT_C2R: {
        rf_value *out = inputs ? rf_fft_c2r_sparse(f, x, c->dims, c->shape, c->nd, c->lds, inputs)
                               : rf_fft_c2r_dims(f, x, c->dims, c->nd, c->lds);
        if (fold) scale = rf_fft_take_scale(f);
        return rf_cx_values(rf_b_scale(f->L, out, scale), NULL);
    }
    case RF_FFT_HFFT:
    case RF_FFT_IHFFT: break; /* two stages: their rule composes them */
    }
    return y;
}

rf_status rf_fft_call_publish(rf_fft_ctx *f, const rf_node *n, const rf_fft_call *c, rf_cx y) {
    if (f->oom || !y.re.v) return rf_fft_done(f, n, 0);
    if (c->form == RF_FFT_C2R) rf_set_real(f->L, n->outs[0], y.re.v);
    else rf_set_cx(f->L, n->outs[0], y);
    return RF_OK;
}

rf_status rf_fft_call_lower(rf_lowering *L, const rf_node *n, const rf_fft_call *c) {
    rf_fft_ctx f = {.L = L, .dt = c->dt};
    rf_cx y = rf_fft_call_run(&f, c, rf_fft_call_input(L, n, c), NULL, NULL, c->scale);
    return rf_fft_call_publish(&f, n, c, y);
}
