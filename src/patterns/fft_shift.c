/* The centred transform, ifftshift -> fft/ifft (1-D, 2-D or n-D) -> fftshift, as fastMRI writes fft2c/ifft2c,
 * for graph runtimes (targets onnx and openvino; row "fft.shift_fold" of registry.c).
 *
 * A roll is a Slice pair and a Concat per axis and part in ONNX, a pass over the data each. A roll by s along an
 * axis the matmul strategy transforms with one direct DFT matrix is a permutation of that matrix: of its input
 * side before the transform, of its output side after. So the shifts go into the constant tables (fft/left.c,
 * fft/last_axis.c read them from the context) and no roll is left. The pattern starts at the ifftshift and takes
 * over the transform it feeds and, when the transform's only reader is an fftshift over transformed dims, that
 * too. It declines anything else: other readers in between, sizes the plan does not do in one direct matrix,
 * resized transforms (n=, s=), a real input, a native FFT strategy. */
#include <string.h>

#include "cxmath/cxmath.h"
#include "fft/call.h"
#include "fft/plan.h"
#include "lower/realops.h"
#include "patterns/patterns.h"

static const char *const forward_ops[] = {"aten.fft_fft.default", "aten.fft_fft2.default", "aten.fft_fftn.default",
                                          NULL};
static const char *const backward_ops[] = {"aten.fft_ifft.default", "aten.fft_ifft2.default",
                                           "aten.fft_ifftn.default", NULL};

/* v is read only packed, as a graph output or by view_as_real: its pairs are best written interleaved. */
static int read_packed(const rf_graph *g, const rf_value *v) {
    int any = 0;
    for (size_t i = 0; i < g->noutputs; i++) any |= rf_attr_refs(&g->outputs[i], v);
    for (size_t i = 0; i < g->nnodes; i++)
        for (size_t k = 0; k < g->nodes[i]->nargs; k++)
            if (rf_attr_refs(&g->nodes[i]->args[k].attr, v)) {
                if (strcmp(g->nodes[i]->op, "aten.view_as_real.default")) return 0;
                any = 1;
            }
    return any;
}

/* The dims of argument `name` (normalised to [0, rank), unique) into dims; absent or none: every dim. 0 when
 * they are not static ints in range. */
static int dims_arg(const rf_node *n, const char *name, int rank, int64_t *dims, size_t *nd) {
    const rf_attr *a = rf_node_arg(n, name);
    int k = rank;
    if (!a || a->kind == RF_A_NONE) {
        for (int i = 0; i < k; i++) dims[i] = i;
    } else if ((k = rf_int_list(a, dims, RF_MAX_RANK)) < 0) {
        return 0;
    }
    for (int i = 0; i < k; i++) {
        if (dims[i] < 0) dims[i] += rank;
        if (dims[i] < 0 || dims[i] >= rank) return 0;
        for (int j = 0; j < i; j++)
            if (dims[j] == dims[i]) return 0;
    }
    *nd = (size_t)k;
    return 1;
}

static int contains(const int64_t *dims, size_t nd, int64_t d) {
    for (size_t i = 0; i < nd; i++)
        if (dims[i] == d) return 1;
    return 0;
}

int rf_pattern_fft_shift(rf_lowering *L, const rf_node *n) {
    if (!rf_graph_runtime(L) || n->nouts != 1) return 0;
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self) || !rf_dtype_is_complex(self->value->dtype)) return 0;
    const rf_value *x = self->value;
    int rank = x->rank;
    if (rank < 1 || rank >= RF_MAX_RANK) return 0;
    const rf_graph *g = rf_in_graph(L);
    /* read once, as the value `self` itself */
    const rf_node *t = rf_sole_reader(g, n->outs[0], "self");
    if (!t || t->nouts != 1 || rf_node_arg(t, "self")->kind != RF_A_VALUE) return 0;
    if (!rf_str_in(t->op, forward_ops) && !rf_str_in(t->op, backward_ops)) return 0;
    rf_fft_call call; /* dims, sizes and norm as the FFT rules read them */
    if (rf_fft_call_read(L, t, 1, &call) != RF_OK || call.form != RF_FFT_C2C || !rf_fft_call_same_sizes(&call))
        return 0; /* a resized transform (n=, s=): left to the rules */
    int forward = call.sign < 0;
    const int64_t *tdims = call.dims;
    size_t nt = call.nd;
    int64_t sdims[RF_MAX_RANK], cdims[RF_MAX_RANK];
    size_t ns = 0, nc = 0;
    if (!dims_arg(n, "dim", rank, sdims, &ns)) return 0;
    for (size_t i = 0; i < nt; i++) {
        const rf_dim *sz = &x->dims[tdims[i]];
        rf_fft_plan plan;
        if (sz->sym || sz->size < 2 || rf_fft_plan_make(sz->size, &plan) || !rf_fft_plan_is_direct(&plan)) return 0;
    }
    for (size_t i = 0; i < ns; i++)
        if (!contains(tdims, nt, sdims[i])) return 0; /* a roll along an untransformed dim stays a roll */
    double scale = call.scale;
    /* the fftshift after it, when it is the transform's only reader and shifts transformed dims only */
    const rf_node *c = rf_sole_reader(g, t->outs[0], "self");
    if (c && (strcmp(c->op, "aten.fft_fftshift.default") || c->nouts != 1 ||
              rf_node_arg(c, "self")->kind != RF_A_VALUE || !dims_arg(c, "dim", rank, cdims, &nc)))
        c = NULL;
    for (size_t i = 0; c && i < nc; i++)
        if (!contains(tdims, nt, cdims[i])) c = NULL;
    rf_dtype dt = call.dt;
    rf_fft_ctx f = {.L = L, .dt = dt};
    if (rf_fft_native(&f)) return 0;
    rf_cx in = rf_in_cx(L, n, "self", dt);
    if (rf_status_of(L) != RF_OK || !in.re.v || !rf_cx_im_or_null(in)) return 0;
    int64_t rin[RF_MAX_RANK] = {0}, rout[RF_MAX_RANK] = {0};
    for (size_t i = 0; i < ns; i++) rin[sdims[i]] = (x->dims[sdims[i]].size + 1) / 2; /* ifftshift */
    for (size_t i = 0; i < nc; i++) rout[cdims[i]] = x->dims[cdims[i]].size / 2;     /* fftshift */
    f.rolls_in = rin;
    f.rolls_out = c ? rout : NULL;
    f.interleave_out = read_packed(g, (c ? c : t)->outs[0]);
    f.fold_scale = scale == 1.0 ? 0.0 : scale; /* into a table where a stage takes it */
    rf_cx y = rf_fft_c2c_dims(&f, in, tdims, nt, forward ? -1 : 1);
    if (f.oom || !y.re.v) {
        rf_fft_done(&f, n, 0);
        return 1;
    }
    if (f.fold_scale != 0.0) y = rf_cx_scale(L, y, rf_num(f.fold_scale));
    rf_set_unread(L, n->outs[0]);
    rf_fuse_node(L, t);
    if (c) {
        rf_set_unread(L, t->outs[0]);
        rf_fuse_node(L, c);
    }
    rf_set_cx(L, (c ? c : t)->outs[0], y);
    return 1;
}
