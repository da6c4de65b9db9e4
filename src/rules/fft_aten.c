/* aten._fft_c2c, _fft_r2c and _fft_c2r: read the arguments, check the sizes,
 * and call the transform engine of src/fft/. */
#include <math.h>

#include "cxmath/cxmath.h"
#include "fft/engine.h"
#include "fft/plan.h"
#include "rules/fft_prune.h"
#include "rules/rules.h"

/* ---- _fft_c2c, _fft_r2c, _fft_c2r ---- */

typedef struct fft_args {
    size_t ndims;
    int64_t dims[RF_MAX_RANK];
    int64_t norm;
} fft_args;

/* Reads `dim` (normalised against rank) and `normalization`; checks that the
 * transformed sizes of `x` are static. */
static rf_status read_fft_args(rf_lowering *L, const rf_node *n, const rf_value *x, fft_args *a) {
    if (x->rank < 0 || x->rank >= RF_MAX_RANK)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s needs a known rank below %d", n->op, RF_MAX_RANK);
    const rf_attr *dim = rf_node_arg(n, "dim"), *norm = rf_node_arg(n, "normalization");
    if (!dim || dim->kind != RF_A_LIST || dim->n > (size_t)x->rank)
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs a list of dims", n->op);
    if (!norm || norm->kind != RF_A_INT || norm->i < 0 || norm->i > 2)
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs normalization 0, 1 or 2", n->op);
    a->norm = norm->i;
    a->ndims = dim->n;
    for (size_t i = 0; i < dim->n; i++) {
        if (dim->items[i].kind != RF_A_INT) return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: symbolic dim", n->op);
        int64_t d = dim->items[i].i;
        if (d < 0) d += x->rank;
        if (d < 0 || d >= x->rank)
            return rf_fail(L, n, RF_ERR_INVALID, "%s: dim %lld out of range", n->op, (long long)dim->items[i].i);
        a->dims[i] = d;
    }
    return rf_fft_check_static(L, n, x, a->dims, a->ndims);
}

/* normalization: 0 none, 1 by 1/sqrt(n), 2 by 1/n (n: the signal's numel over the transformed dims) */
static double norm_factor(int64_t norm, double signal_numel) {
    if (norm == 1) return 1.0 / sqrt(signal_numel);
    if (norm == 2) return 1.0 / signal_numel;
    return 1.0;
}

static double signal_numel(const rf_value *x, const int64_t *dims, size_t nd) {
    double numel = 1;
    for (size_t i = 0; i < nd; i++) numel *= (double)x->dims[dims[i]].size;
    return numel;
}

/* _fft_c2c (flag `forward`) and _fft_r2c (flag `onesided`): a complex result. */
static rf_status fft_to_complex(rf_lowering *L, const rf_node *n, int r2c) {
    const char *flag_name = r2c ? "onesided" : "forward";
    const rf_attr *self = rf_node_arg(n, "self"), *flag = rf_node_arg(n, flag_name);
    if (!rf_attr_is_tensor(self) || !flag || flag->kind != RF_A_BOOL)
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs self and %s", n->op, flag_name);
    fft_args a;
    if (read_fft_args(L, n, self->value, &a) != RF_OK) return RF_ERR_UNSUPPORTED;
    rf_fft_ctx f = {.L = L, .dt = rf_work_dtype(L, n)};
    rf_cx x;
    double scale = norm_factor(a.norm, signal_numel(self->value, a.dims, a.ndims));
    /* only some outputs read (slices): compute those alone */
    int64_t sizes[RF_MAX_RANK];
    for (size_t i = 0; i < a.ndims; i++) sizes[i] = self->value->dims[a.dims[i]].size;
    rf_fft_prune pr;
    int pruned = !rf_fft_native(&f) && rf_fft_prune_plan(L, n, a.dims, sizes, a.ndims, r2c && flag->i, &pr);
    if (r2c) {
        rf_value *xr = rf_in_real(L, n, "self");
        if (xr && xr->dtype != f.dt) xr = rf_b_cast(L, xr, f.dt);
        x = pruned ? rf_fft_r2c_pruned(&f, xr, a.dims, a.ndims, (int)flag->i, pr.keep)
                   : rf_fft_r2c_dims(&f, xr, a.dims, a.ndims, (int)flag->i);
    } else {
        rf_fft_sparse sp; /* an input zero outside some blocks: read those alone */
        int sparse = !pruned && !rf_fft_native(&f) &&
                     rf_fft_sparse_plan(L, self->value, a.dims, sizes, sizes, a.ndims, &sp);
        rf_cx xc;
        if (sparse) xc = rf_fft_sparse_input(L, &sp, f.dt);
        else if (!(rf_fft_native(&f) && rf_fft_sparse_dense(L, n, self->value, f.dt, &scale, &xc)))
            xc = rf_in_cx(L, n, "self", f.dt);
        if (sparse) {
            x = rf_fft_c2c_sparse(&f, xc, a.dims, sizes, a.ndims, flag->i ? -1 : 1, sp.keep);
            rf_fft_sparse_free(&sp);
        } else {
            x = pruned ? rf_fft_c2c_pruned(&f, xc, a.dims, a.ndims, flag->i ? -1 : 1, pr.keep)
                       : rf_fft_c2c_dims(&f, xc, a.dims, a.ndims, flag->i ? -1 : 1);
        }
    }
    x = rf_cx_scale(L, x, rf_num(scale));
    if (f.oom || !x.re.v) {
        if (pruned) rf_fft_prune_free(&pr);
        return rf_fft_done(&f, n, 0);
    }
    if (pruned) rf_fft_prune_publish(L, n, &pr, x);
    else rf_set_cx(L, n->outs[0], x);
    return RF_OK;
}

static rf_status fft_c2c(rf_lowering *L, const rf_node *n) { return fft_to_complex(L, n, 0); }
static rf_status fft_r2c(rf_lowering *L, const rf_node *n) { return fft_to_complex(L, n, 1); }

static rf_status fft_c2r(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self"), *lds = rf_node_arg(n, "last_dim_size");
    if (!rf_attr_is_tensor(self) || !lds)
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs self and last_dim_size", n->op);
    if (lds->kind != RF_A_INT)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED,
                       "%s: last_dim_size is symbolic; realify lowers FFTs whose transformed dims are static",
                       n->op);
    fft_args a;
    if (read_fft_args(L, n, self->value, &a) != RF_OK) return RF_ERR_UNSUPPORTED;
    if (!a.ndims || lds->i < 1 || lds->i > RF_FFT_MAX_N)
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs a dim and last_dim_size >= 1", n->op);
    rf_fft_ctx f = {.L = L, .dt = rf_component_of(L, self->value->dtype)};
    /* an input zero outside some blocks: read those alone */
    int64_t lens[RF_MAX_RANK], outs[RF_MAX_RANK];
    for (size_t i = 0; i < a.ndims; i++) lens[i] = outs[i] = self->value->dims[a.dims[i]].size;
    lens[a.ndims - 1] = lds->i / 2 + 1;
    outs[a.ndims - 1] = lds->i;
    rf_fft_sparse sp;
    rf_value *out;
    rf_cx dense;
    double scale = norm_factor(a.norm, signal_numel(self->value, a.dims, a.ndims - 1) * (double)lds->i);
    if (!rf_fft_native(&f) && rf_fft_sparse_plan(L, self->value, a.dims, lens, outs, a.ndims, &sp)) {
        out = rf_fft_c2r_sparse(&f, rf_fft_sparse_input(L, &sp, f.dt), a.dims, lens, a.ndims, lds->i, sp.keep);
        rf_fft_sparse_free(&sp);
    } else if (rf_fft_native(&f) && rf_fft_sparse_dense(L, n, self->value, f.dt, &scale, &dense)) {
        out = rf_fft_c2r_dims(&f, dense, a.dims, a.ndims, lds->i);
    } else {
        out = rf_fft_c2r_dims(&f, rf_in_cx(L, n, "self", f.dt), a.dims, a.ndims, lds->i);
    }
    out = rf_b_scale(L, out, scale);
    if (f.oom || !out) return rf_fft_done(&f, n, 0);
    rf_set_real(L, n->outs[0], out);
    return RF_OK;
}

const rf_rule_entry rf_rules_fft_aten[] = {
    {"aten._fft_c2c.default", fft_c2c, RF_RULE_FLOATS},
    {"aten._fft_r2c.default", fft_r2c, RF_RULE_FLOATS},
    {"aten._fft_c2r.default", fft_c2r, RF_RULE_FLOATS},
    {NULL, NULL, 0},
};
