/* Patterns fft.long_conv and fft.crop: two shapes around an irfft along the last dim, for graph runtimes
 * (targets onnx and openvino) and the DFT matmuls (fft/graph_real.c).
 *
 * fft.crop: irfft(x, n)[..., :keep] with the slice its one reader (Hyena's crop to L of a length-2L
 * convolution). The inverse computes only the rows of its last stage that hold the kept outputs (keep_last,
 * fft/context.h) and the pattern publishes the slice's result; the full output is never built.
 *
 * fft.long_conv: irfft(rfft(a, n) * rfft(b, n), n) along the last dim, each factor maybe times or over a number
 * (Hyena's filter spectrum k_f / n), each step read only by the next. The product is taken where the forwards'
 * stages leave it, so neither their output transposes nor the inverse's input transpose is built. A crop after
 * it is taken as fft.crop would, when that pattern is on. The rffts and the mul are left to their rules; their
 * results go unread. */
#include <math.h>
#include <string.h>

#include "fft/call.h"
#include "lower/realops.h"
#include "patterns/patterns.h"

static const char *const irfft_ops[] = {"aten.fft_irfft.default", "aten.fft_irfft2.default",
                                        "aten.fft_irfftn.default", NULL};

/* n (a C2R call c) read only through a slice [0, *keep) of its last dim with *keep < lds: that slice, else
 * NULL. */
static const rf_node *crop_reader(rf_lowering *L, const rf_node *n, const rf_fft_call *c, int64_t *keep) {
    const rf_value *v = n->outs[0];
    if (c->dims[c->nd - 1] != v->rank - 1) return NULL;
    const rf_node *s = rf_sole_reader(rf_in_graph(L), v, "self");
    if (!s || strcmp(s->op, "aten.slice.Tensor") || s->nouts != 1) return NULL;
    int64_t dim = 0, start = 0, end = INT64_MAX, step = 1;
    if (rf_opt_int(s, "dim", &dim) < 0 || rf_opt_int(s, "start", &start) < 0 || rf_opt_int(s, "end", &end) < 0 ||
        rf_opt_int(s, "step", &step) < 0)
        return NULL;
    if (dim < 0) dim += v->rank;
    if (end < 0) end += c->lds;
    if (dim != v->rank - 1 || start != 0 || step != 1 || end <= 0 || end >= c->lds) return NULL;
    *keep = end;
    return s;
}

/* v = rfft(x, n) along x's last dim, then maybe times or over a number, each step read only by the next: the
 * rfft node, with the factor and the rfft's norm in *scale; else NULL. */
static const rf_node *rfft_factor(rf_lowering *L, const rf_value *v, int64_t n, double *scale) {
    const rf_node *p = v->producer;
    *scale = 1.0;
    int div = p && !strcmp(p->op, "aten.div.Tensor");
    if (p && (div || !strcmp(p->op, "aten.mul.Tensor"))) {
        const rf_attr *self = rf_node_arg(p, "self"), *o = rf_node_arg(p, "other");
        double k = !o ? 0.0 : o->kind == RF_A_FLOAT ? o->f : o->kind == RF_A_INT ? (double)o->i : 0.0;
        if (!rf_attr_is_tensor(self) || k == 0.0 || !isfinite(k) ||
            rf_sole_reader(rf_in_graph(L), self->value, "self") != p)
            return NULL;
        *scale = div ? 1.0 / k : k;
        p = self->value->producer;
    }
    if (!p || strcmp(p->op, "aten.fft_rfft.default") || p->nouts != 1) return NULL;
    rf_fft_call c;
    if (rf_fft_call_read(L, p, 1, &c) != RF_OK || c.form != RF_FFT_R2C || rf_dtype_is_complex(c.self->dtype) ||
        c.dims[0] != c.self->rank - 1 || c.shape[0] != n)
        return NULL;
    *scale *= c.scale;
    return p;
}

/* The rfft nodes of irfft(rfft(a) * rfft(b), n) (c: the irfft's call) in *ra, *rb with their factors' product in
 * *k; 0 when n is not that shape. */
static int conv_shape(rf_lowering *L, const rf_node *n, const rf_fft_call *c, const rf_node **ra,
                      const rf_node **rb, double *k) {
    const rf_value *sv = c->self;
    const rf_node *m = sv->producer;
    if (c->nd != 1 || c->dims[0] != sv->rank - 1 || !m || strcmp(m->op, "aten.mul.Tensor") ||
        rf_sole_reader(rf_in_graph(L), sv, "self") != n)
        return 0;
    const rf_attr *sa = rf_node_arg(m, "self"), *sb = rf_node_arg(m, "other");
    if (!rf_attr_is_tensor(sa) || !rf_attr_is_tensor(sb) || sa->value == sb->value) return 0;
    double ka, kb;
    *ra = rfft_factor(L, sa->value, c->lds, &ka);
    *rb = rfft_factor(L, sb->value, c->lds, &kb);
    *k = ka * kb;
    return *ra && *rb;
}

static rf_value *real_in(rf_lowering *L, const rf_node *n, rf_dtype dt) {
    rf_value *x = rf_in_real(L, n, "self");
    return (x && x->dtype != dt) ? rf_b_cast(L, x, dt) : x;
}

/* Publishes out (the irfft's, or with crop the slice's result, cut to keep). */
static int publish(rf_fft_ctx *f, const rf_node *n, const rf_node *crop, int64_t keep, rf_value *out) {
    rf_lowering *L = f->L;
    if (crop && out) out = rf_b_resize(L, out, -1, keep);
    if (f->oom || !out) {
        rf_fft_done(f, n, 0);
        return 1;
    }
    if (!crop) {
        rf_set_real(L, n->outs[0], out);
        return 1;
    }
    rf_set_real(L, crop->outs[0], out);
    rf_fuse_node(L, crop);
    rf_set_unread(L, n->outs[0]);
    return 1;
}

/* n's C2R call when n is an irfft these patterns may take (graph target, DFT matmuls). */
static int probe(rf_lowering *L, const rf_node *n, rf_fft_call *c) {
    if (!rf_graph_runtime(L) || !rf_str_in(n->op, irfft_ops) || n->nouts != 1) return 0;
    if (rf_fft_call_read(L, n, 1, c) != RF_OK || c->form != RF_FFT_C2R) return 0;
    rf_fft_ctx f = {.L = L, .dt = c->dt};
    return !rf_fft_native(&f);
}

int rf_pattern_fft_long_conv(rf_lowering *L, const rf_node *n) {
    rf_fft_call c;
    const rf_node *ra, *rb, *crop = NULL;
    double k;
    int64_t keep = 0;
    if (!probe(L, n, &c) || !conv_shape(L, n, &c, &ra, &rb, &k)) return 0;
    if (rf_pattern_enabled(L, "fft.crop")) crop = crop_reader(L, n, &c, &keep);
    rf_fft_ctx f = {.L = L, .dt = c.dt, .keep_last = keep, .fold_scale = c.scale};
    rf_value *a = real_in(L, ra, f.dt), *b = real_in(L, rb, f.dt), *out = NULL;
    if (!a || !b || !rf_fft_conv_last(&f, a, b, k, c.lds, &out)) return 0; /* nothing published yet */
    if (out && f.fold_scale != 0.0) out = rf_b_scale(L, out, f.fold_scale);
    return publish(&f, n, crop, keep, out);
}

int rf_pattern_fft_crop(rf_lowering *L, const rf_node *n) {
    rf_fft_call c;
    int64_t keep = 0;
    const rf_node *crop;
    if (!probe(L, n, &c) || !(crop = crop_reader(L, n, &c, &keep))) return 0;
    rf_fft_ctx f = {.L = L, .dt = c.dt, .keep_last = keep};
    rf_cx y = rf_fft_call_run(&f, &c, rf_fft_call_input(L, n, &c), NULL, NULL, c.scale);
    return publish(&f, n, crop, keep, y.re.v);
}
