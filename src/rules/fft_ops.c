/* The torch.fft API: fft, ifft, rfft, ... in 1-D, 2-D and n-D forms, and
 * fftshift/ifftshift. torch.export keeps these as single ops; make_fx and
 * aot_autograd decompose them into _fft_c2c/_fft_r2c/_fft_c2r (fft_aten.c). stft,
 * istft and the ops around them live in fft_stft.c, to keep each file short.
 * Semantics follow torch/_refs/fft.py. */
#include <math.h>
#include <string.h>

#include "cxmath/cxmath.h"
#include "fft/engine.h"
#include "fft/plan.h"
#include "lower/realops.h"
#include "rules/fft_prune.h"
#include "rules/rules.h"

/* ---- arguments ---- */

/* An int or int-list argument: 1 and out[0..*count) when given, 0 when absent or
 * none, -1 when it holds something else (a symbolic size). */
static int opt_ints(const rf_node *n, const char *name, int64_t *out, size_t *count) {
    const rf_attr *a = rf_node_arg(n, name);
    *count = 0;
    if (!a || a->kind == RF_A_NONE) return 0;
    int k = rf_int_list(a, out, RF_MAX_RANK);
    if (k < 0) return -1;
    *count = (size_t)k;
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

/* ---- the six transforms, in any number of dims ---- */

enum { K_FFT, K_IFFT, K_RFFT, K_IHFFT, K_IRFFT, K_HFFT };

static int kind_forward(int kind) { return kind == K_FFT || kind == K_RFFT || kind == K_HFFT; }

static double prod(const int64_t *v, size_t n) {
    double p = 1;
    for (size_t i = 0; i < n; i++) p *= (double)v[i];
    return p;
}

/* The input already has the transform's sizes along dims (no resize). */
static int same_sizes(const rf_value *x, const int64_t *dims, const int64_t *shape, size_t nd) {
    for (size_t i = 0; i < nd; i++)
        if (x->dims[dims[i]].sym || x->dims[dims[i]].size != shape[i]) return 0;
    return 1;
}

static rf_cx resize_all(rf_lowering *L, rf_cx x, const int64_t *dims, const int64_t *shape, size_t nd) {
    for (size_t i = 0; i < nd; i++) x = rf_fft_resize_pair(L, x, dims[i], shape[i]);
    return x;
}

/* The one reader of n's result when it is a slice [0, *keep) of the last dim d with *keep < len (Hyena's
 * irfft(..., n=2L)[..., :L]), for the graph targets' matmul inverse, which then computes only those outputs;
 * else NULL. */
/* The one node that reads v, as its argument "self" alone (v no graph output), or NULL. */
static const rf_node *sole_self_reader(const rf_graph *g, const rf_value *v) {
    const rf_node *found = NULL;
    for (size_t i = 0; i < g->noutputs; i++)
        if (rf_attr_refs(&g->outputs[i], v)) return NULL;
    for (size_t i = v->producer ? v->producer->index + 1 : 0; i < g->nnodes; i++)
        for (size_t k = 0; k < g->nodes[i]->nargs; k++)
            if (rf_attr_refs(&g->nodes[i]->args[k].attr, v)) {
                if (found || strcmp(g->nodes[i]->args[k].name, "self")) return NULL;
                found = g->nodes[i];
            }
    return found;
}

static int graph_target(const rf_lowering *L) {
    return (rf_options(L)->target & (RF_TARGET_ONNX | RF_TARGET_OPENVINO)) != 0;
}

static const rf_node *crop_reader(rf_lowering *L, const rf_node *n, int64_t d, int64_t len, int64_t *keep) {
    const rf_value *v = n->outs[0];
    if (!graph_target(L) || d != v->rank - 1) return NULL;
    const rf_node *found = sole_self_reader(rf_in_graph(L), v);
    if (!found || strcmp(found->op, "aten.slice.Tensor") || found->nouts != 1) return NULL;
    int64_t dim = 0, start = 0, end = INT64_MAX, step = 1;
    if (rf_opt_int(found, "dim", &dim) < 0 || rf_opt_int(found, "start", &start) < 0 ||
        rf_opt_int(found, "end", &end) < 0 || rf_opt_int(found, "step", &step) < 0)
        return NULL;
    if (dim < 0) dim += v->rank;
    if (end < 0) end += len;
    if (dim != d || start != 0 || step != 1 || end <= 0 || end >= len) return NULL;
    *keep = end;
    return found;
}

/* v = rfft(x, n) along x's last dim, then maybe times or over a number, each step read only by the next (the
 * factor of Hyena's filter spectrum): the rfft node, with the factor and the rfft's norm in *scale; else NULL. */
static const rf_node *rfft_factor(rf_lowering *L, const rf_value *v, int64_t n, double *scale) {
    const rf_graph *g = rf_in_graph(L);
    const rf_node *p = v->producer;
    *scale = 1.0;
    int div = p && !strcmp(p->op, "aten.div.Tensor");
    if (p && (div || !strcmp(p->op, "aten.mul.Tensor"))) {
        const rf_attr *self = rf_node_arg(p, "self"), *o = rf_node_arg(p, "other");
        double k = !o ? 0.0 : o->kind == RF_A_FLOAT ? o->f : o->kind == RF_A_INT ? (double)o->i : 0.0;
        if (!rf_attr_is_tensor(self) || k == 0.0 || !isfinite(k) || sole_self_reader(g, self->value) != p) return NULL;
        *scale = div ? 1.0 / k : k;
        v = self->value;
        p = v->producer;
    }
    if (!p || strcmp(p->op, "aten.fft_rfft.default") || p->nouts != 1) return NULL;
    const rf_attr *self = rf_node_arg(p, "self");
    if (!rf_attr_is_tensor(self) || rf_dtype_is_complex(self->value->dtype) || self->value->rank < 1) return NULL;
    const rf_value *x = self->value;
    int64_t len = 0, dim = -1;
    int has_n = rf_opt_int(p, "n", &len);
    if (has_n < 0 || rf_opt_int(p, "dim", &dim) < 0 || (dim != -1 && dim != x->rank - 1)) return NULL;
    if (!has_n && (x->dims[x->rank - 1].sym || (len = x->dims[x->rank - 1].size) != n)) return NULL;
    norm_mode nm;
    if (len != n || !read_norm(L, p, &nm)) return NULL;
    *scale *= norm_scale(nm, (double)n, 1);
    return p;
}

/* irfft(rfft(a, n) * rfft(b, n), n) along the last dim (Hyena's long convolution), each step read only by the
 * next, for the graph targets: the product is taken where the forwards' stages leave it, so neither their
 * output transposes nor the inverse's input transpose is built (fft/graph_real.c). 1 with *out set. */
static int long_conv(rf_lowering *L, rf_fft_ctx *f, const rf_node *n, const rf_value *sv, int64_t d, int64_t lds,
                     rf_value **out) {
    const rf_node *m = sv->producer;
    if (!graph_target(L) || d != sv->rank - 1 || !m || strcmp(m->op, "aten.mul.Tensor") ||
        sole_self_reader(rf_in_graph(L), sv) != n)
        return 0;
    const rf_attr *sa = rf_node_arg(m, "self"), *sb = rf_node_arg(m, "other");
    if (!rf_attr_is_tensor(sa) || !rf_attr_is_tensor(sb) || sa->value == sb->value) return 0;
    double ka, kb;
    const rf_node *ra = rfft_factor(L, sa->value, lds, &ka), *rb = rfft_factor(L, sb->value, lds, &kb);
    if (!ra || !rb) return 0;
    rf_value *a = real_in(L, ra, f->dt), *b = real_in(L, rb, f->dt);
    return a && b && rf_fft_conv_last(f, a, b, ka * kb, lds, out);
}

/* The transform of `kind` over dims (static sizes, normalised, unique) of n's
 * self, resized to `shape` first; lds: the real signal length of irfft and hfft. */
static rf_status run_transform(rf_lowering *L, const rf_node *n, int kind, const rf_value *sv, const int64_t *dims,
                               const int64_t *shape, size_t nd, int64_t lds, norm_mode nm) {
    int forward = kind_forward(kind);
    if (kind == K_IRFFT || kind == K_HFFT) { /* Hermitian half spectrum in, real signal out */
        rf_fft_ctx f = {.L = L, .dt = real_out_dtype(L, sv)};
        const rf_node *crop = NULL;
        int64_t crop_len = 0;
        if (!rf_fft_dtype_ok(L, n, f.dt)) return RF_ERR_DTYPE;
        /* an input zero outside some blocks: read those alone */
        int64_t outs[RF_MAX_RANK];
        memcpy(outs, shape, nd * sizeof(int64_t));
        outs[nd - 1] = lds;
        rf_fft_sparse sp;
        int sparse = kind == K_IRFFT && !rf_fft_native(&f) && rf_fft_sparse_plan(L, sv, dims, shape, outs, nd, &sp);
        double outer = prod(shape, nd - 1), scale = norm_scale(nm, outer * (double)lds, 0);
        rf_cx x;
        if (sparse) x = rf_fft_sparse_input(L, &sp, f.dt);
        else if (!(kind == K_IRFFT && rf_fft_native(&f) && same_sizes(sv, dims, shape, nd) &&
                   rf_fft_sparse_dense(L, n, sv, f.dt, &scale, &x)))
            x = resize_all(L, rf_in_cx(L, n, "self", f.dt), dims, shape, nd);
        rf_value *out;
        if (sparse) {
            out = rf_fft_c2r_sparse(&f, x, dims, shape, nd, lds, sp.keep);
            rf_fft_sparse_free(&sp);
            out = rf_b_scale(L, out, scale);
        } else if (kind == K_IRFFT) {
            crop = rf_fft_native(&f) ? NULL : crop_reader(L, n, dims[nd - 1], lds, &crop_len);
            f.keep_last = crop_len;
            int fold = graph_target(L); /* the scale into a table: graph targets' lowerings only */
            f.fold_scale = fold ? scale : 0.0;
            out = NULL;
            if (nd != 1 || !long_conv(L, &f, n, sv, dims[0], lds, &out)) out = rf_fft_c2r_dims(&f, x, dims, nd, lds);
            out = rf_b_scale(L, out, !fold ? scale : f.fold_scale != 0.0 ? f.fold_scale : 1.0);
            if (crop) out = rf_b_resize(L, out, dims[nd - 1], crop_len);
        } else {
            x = rf_fft_c2c_dims(&f, x, dims, nd - 1, -1);
            x = rf_cx_conj(L, rf_cx_scale(L, x, rf_num(norm_scale(nm, outer, 1))));
            out = rf_fft_c2r_dims(&f, x, dims + nd - 1, 1, lds);
            out = rf_b_scale(L, out, norm_scale(nm, (double)lds, 1));
        }
        if (f.oom || !out) return rf_fft_done(&f, n, 0);
        if (crop) { /* the slice's result is ours; the full output is never built */
            rf_set_real(L, crop->outs[0], out);
            rf_fuse_node(L, crop);
            rf_set_unread(L, n->outs[0]);
            return RF_OK;
        }
        rf_set_real(L, n->outs[0], out);
        return RF_OK;
    }
    rf_fft_ctx f = {.L = L, .dt = rf_work_dtype(L, n)};
    if (!rf_fft_dtype_ok(L, n, f.dt)) return RF_ERR_DTYPE;
    rf_cx y;
    /* only some outputs read (slices): compute those alone */
    rf_fft_prune pr;
    int pruned = kind != K_IHFFT && !rf_fft_native(&f) && rf_fft_prune_plan(L, n, dims, shape, nd, kind == K_RFFT, &pr);
    if (kind == K_RFFT || kind == K_IHFFT) {
        rf_value *x = real_in(L, n, f.dt);
        if (!x) {
            if (pruned) rf_fft_prune_free(&pr);
            return RF_ERR_INVALID;
        }
        x = resize_all(L, rf_cx_values(x, NULL), dims, shape, nd).re.v;
        if (kind == K_RFFT && pruned) {
            y = rf_fft_r2c_pruned(&f, x, dims, nd, 1, pr.keep);
            y = rf_cx_scale(L, y, rf_num(norm_scale(nm, prod(shape, nd), 1)));
        } else if (kind == K_RFFT) {
            y = rf_cx_scale(L, rf_fft_r2c_dims(&f, x, dims, nd, 1), rf_num(norm_scale(nm, prod(shape, nd), 1)));
        } else if (nd <= 1) {
            y = rf_fft_r2c_dims(&f, x, dims, nd, 1);
            y = rf_cx_conj(L, rf_cx_scale(L, y, rf_num(norm_scale(nm, prod(shape, nd), 0))));
        } else {
            y = rf_cx_conj(L, rf_fft_r2c_dims(&f, x, dims + nd - 1, 1, 1));
            y = rf_fft_c2c_dims(&f, y, dims, nd - 1, 1);
            y = rf_cx_scale(L, y, rf_num(norm_scale(nm, prod(shape, nd), 0)));
        }
    } else {
        rf_fft_sparse sp;
        int sparse = !pruned && !rf_fft_native(&f) && rf_fft_sparse_plan(L, sv, dims, shape, shape, nd, &sp);
        double scale = norm_scale(nm, prod(shape, nd), forward);
        rf_cx x;
        if (sparse) x = rf_fft_sparse_input(L, &sp, f.dt);
        else if (!(rf_fft_native(&f) && same_sizes(sv, dims, shape, nd) &&
                   rf_fft_sparse_dense(L, n, sv, f.dt, &scale, &x)))
            x = resize_all(L, rf_in_cx(L, n, "self", f.dt), dims, shape, nd);
        if (sparse) {
            y = rf_fft_c2c_sparse(&f, x, dims, shape, nd, forward ? -1 : 1, sp.keep);
            rf_fft_sparse_free(&sp);
        } else {
            y = pruned ? rf_fft_c2c_pruned(&f, x, dims, nd, forward ? -1 : 1, pr.keep)
                       : rf_fft_c2c_dims(&f, x, dims, nd, forward ? -1 : 1);
        }
        y = rf_cx_scale(L, y, rf_num(scale));
    }
    if (f.oom || !y.re.v) {
        if (pruned) rf_fft_prune_free(&pr);
        return rf_fft_done(&f, n, 0);
    }
    if (pruned) rf_fft_prune_publish(L, n, &pr, y);
    else rf_set_cx(L, n->outs[0], y);
    return RF_OK;
}

/* ---- fft, ifft, rfft, ihfft, irfft, hfft: one dim, size n ---- */

static rf_status fft_1d(rf_lowering *L, const rf_node *n, int kind) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self)) return rf_fail(L, n, RF_ERR_INVALID, "%s needs a tensor", n->op);
    const rf_value *sv = self->value;
    int64_t d = 0, dim_arg = -1, size = 0;
    if (sv->rank < 1 || sv->rank >= RF_MAX_RANK)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s needs a known rank between 1 and %d", n->op, RF_MAX_RANK - 1);
    int has_n = rf_opt_int(n, "n", &size);
    if (has_n < 0) return bad_size_arg(L, n, "n");
    if (rf_opt_int(n, "dim", &dim_arg) < 0 || !norm_dim(dim_arg, sv->rank, &d))
        return rf_fail(L, n, RF_ERR_INVALID, "%s: dim out of range", n->op);
    norm_mode nm;
    if (!read_norm(L, n, &nm)) return RF_ERR_INVALID;
    if (rf_fft_check_static(L, n, sv, &d, 1) != RF_OK) return RF_ERR_UNSUPPORTED;
    int64_t have = sv->dims[d].size, len = has_n ? size : have, lds = 0;
    if (kind == K_IRFFT || kind == K_HFFT) { /* the input holds lds/2+1 entries of the half spectrum */
        lds = has_n ? size : 2 * (have - 1);
        len = lds / 2 + 1;
        if (lds < 1 || lds > RF_FFT_MAX_N)
            return rf_fail(L, n, RF_ERR_INVALID, "%s: invalid number of data points (%lld)", n->op, (long long)lds);
    } else if (len < 1 || len > RF_FFT_MAX_N) {
        return rf_fail(L, n, RF_ERR_INVALID, "%s: invalid number of data points (%lld)", n->op, (long long)len);
    }
    return run_transform(L, n, kind, sv, &d, &len, 1, lds, nm);
}

/* ---- fftn, ifftn, rfftn, ihfftn, irfftn, hfftn and their 2-D forms ---- */

static rf_status fft_nd(rf_lowering *L, const rf_node *n, int kind, int two) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self)) return rf_fail(L, n, RF_ERR_INVALID, "%s needs a tensor", n->op);
    const rf_value *sv = self->value;
    int rank = sv->rank;
    if (rank < 0 || rank >= RF_MAX_RANK)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s needs a known rank below %d", n->op, RF_MAX_RANK);
    int64_t dims[RF_MAX_RANK], shape[RF_MAX_RANK], s[RF_MAX_RANK];
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
    int64_t lds = 0;
    if (kind == K_IRFFT || kind == K_HFFT) {
        if (!nd) return rf_fail(L, n, RF_ERR_INVALID, "%s must transform at least one axis", n->op);
        lds = (!has_s || s[nd - 1] == -1) ? 2 * (sv->dims[dims[nd - 1]].size - 1) : shape[nd - 1];
        if (lds < 1 || lds > RF_FFT_MAX_N)
            return rf_fail(L, n, RF_ERR_INVALID, "%s: invalid number of data points (%lld)", n->op, (long long)lds);
        shape[nd - 1] = lds / 2 + 1;
    }
    return run_transform(L, n, kind, sv, dims, shape, nd, lds, nm);
}

#define FFT_FORMS(K, kind)                                                                                   \
    static rf_status fft_##K(rf_lowering *L, const rf_node *n) { return fft_1d(L, n, kind); }              \
    static rf_status fft_##K##2(rf_lowering *L, const rf_node *n) { return fft_nd(L, n, kind, 1); }         \
    static rf_status fft_##K##n(rf_lowering *L, const rf_node *n) { return fft_nd(L, n, kind, 0); }
FFT_FORMS(fft, K_FFT)
FFT_FORMS(ifft, K_IFFT)
FFT_FORMS(rfft, K_RFFT)
FFT_FORMS(ihfft, K_IHFFT)
FFT_FORMS(irfft, K_IRFFT)
FFT_FORMS(hfft, K_HFFT)

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
    {"aten.fft_" #K ".default", fft_##K, flags}, {"aten.fft_" #K "2.default", fft_##K##2, flags},                  \
    {"aten.fft_" #K "n.default", fft_##K##n, flags}

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

