/* The convolutions torch.export keeps (conv1d/2d/3d, their padding="same"/"valid" forms, conv_transpose1d/2d/3d)
 * on complex values. Eager computes them on the parts (aten/src/ATen/native/Convolution.cpp, complex_convolution)
 * with Gauss's three real convolutions, and so does this rule, the same real aten.convolution on the same parts:
 *   a = conv(xr, wr, br), b = conv(xi, wi), c = conv(xr + xi, wr + wi, br + bi)
 *   result = (a - b) + i * ((c - a) - b)
 * with the last line's product and sum as eager's complex kernels compute them (rf_cx_mul_eager, rf_cx_add_eager),
 * so the numbers are eager's, infinities and signed zeros included. An operand whose imaginary part is known to be
 * zero (a real tensor cast to complex) needs only two convolutions. */
#include <string.h>

#include "cxmath/cxmath.h"
#include "lower/realops.h"
#include "rules/rules.h"

#define MAX_SPATIAL 3

typedef struct conv_args {
    int nsp, transposed;
    int64_t stride[MAX_SPATIAL], padding[MAX_SPATIAL], dilation[MAX_SPATIAL], out_pad[MAX_SPATIAL], groups;
    int64_t extra[MAX_SPATIAL]; /* padding="same" with an even window: padding the input gets behind, not in front */
} conv_args;

/* A SymInt[nsp] argument: absent gives dflt; one int stands for every spatial dim. */
static int spatial_list(rf_lowering *L, const rf_node *n, const char *name, int nsp, int64_t dflt, int64_t *out) {
    const rf_attr *a = rf_node_arg(n, name);
    for (int i = 0; i < nsp; i++) out[i] = dflt;
    if (!a || a->kind == RF_A_NONE) return 1;
    int64_t v[MAX_SPATIAL];
    int k = rf_int_list(a, v, MAX_SPATIAL);
    if (k == 1 || k == nsp) {
        for (int i = 0; i < nsp; i++) out[i] = v[k == 1 ? 0 : i];
        return 1;
    }
    rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: '%s' must be %d static ints", n->op, name, nsp);
    return 0;
}

/* The padding of conv*d.padding: "valid" is none; "same" pads dilation * (k - 1) in all, the odd one behind
 * (torch's _convolution_same pads the input by the difference and convolves with the symmetric part). */
static int padding_mode(rf_lowering *L, const rf_node *n, const rf_value *w, conv_args *c) {
    const char *mode = rf_node_arg(n, "padding")->s;
    if (strcmp(mode, "valid") == 0) return 1;
    if (strcmp(mode, "same") != 0)
        return rf_fail(L, n, RF_ERR_INVALID, "%s: padding '%s' (expected 'same' or 'valid')", n->op, mode), 0;
    for (int i = 0; i < c->nsp; i++) {
        const rf_dim *k = &w->dims[2 + i];
        if (k->sym) return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: padding='same' needs a static kernel", n->op), 0;
        int64_t total = c->dilation[i] * (k->size - 1);
        c->padding[i] = total / 2;
        c->extra[i] = total - 2 * c->padding[i];
    }
    return 1;
}

static int parse(rf_lowering *L, const rf_node *n, const rf_value *w, conv_args *c) {
    const rf_attr *pad = rf_node_arg(n, "padding");
    int by_mode = pad && pad->kind == RF_A_STR;
    if (!spatial_list(L, n, "stride", c->nsp, 1, c->stride) || !spatial_list(L, n, "dilation", c->nsp, 1, c->dilation) ||
        !spatial_list(L, n, "output_padding", c->nsp, 0, c->out_pad) ||
        (!by_mode && !spatial_list(L, n, "padding", c->nsp, 0, c->padding)))
        return 0;
    memset(c->extra, 0, sizeof c->extra);
    c->groups = 1;
    if (rf_opt_int(n, "groups", &c->groups) < 0)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: groups must be a static int", n->op), 0;
    if (w->rank != c->nsp + 2)
        return rf_fail(L, n, RF_ERR_INVALID, "%s: weight of rank %d (expected %d)", n->op, w->rank, c->nsp + 2), 0;
    return !by_mode || padding_mode(L, n, w, c);
}

/* One real aten.convolution; bias may be NULL. */
static rf_value *real_conv(rf_lowering *L, const conv_args *c, rf_value *x, rf_value *w, rf_value *bias,
                           const rf_value *like) {
    if (!x || !w) return NULL;
    rf_graph *g = rf_out_graph(L);
    size_t k = (size_t)c->nsp;
    rf_arg args[9] = {
        {"input", rf_attr_ref(x)},
        {"weight", rf_attr_ref(w)},
        {"bias", bias ? rf_attr_ref(bias) : rf_attr_none()},
        {"stride", rf_attr_ints(g, k, c->stride)},
        {"padding", rf_attr_ints(g, k, c->padding)},
        {"dilation", rf_attr_ints(g, k, c->dilation)},
        {"transposed", rf_attr_bool(c->transposed)},
        {"output_padding", rf_attr_ints(g, k, c->out_pad)},
        {"groups", rf_attr_int(c->groups)},
    };
    const rf_value *likes[1] = {like};
    return rf_b_node(L, "aten.convolution.default", 9, args, 1, likes, x->dtype, "_conv")->outs[0];
}

/* An input part as the real convolution takes it: batched, and padded behind where "same" asks for it. */
static rf_value *input_part(rf_lowering *L, const conv_args *c, rf_value *x, int unbatched) {
    if (unbatched) x = rf_b_unsqueeze(L, x, 0);
    for (int i = 0; i < c->nsp; i++)
        if (c->extra[i]) x = rf_b_pad_dim(L, x, 2 + i, 0, c->extra[i], 0.0);
    return x;
}

static rf_value *output_part(rf_lowering *L, rf_value *y, int unbatched) {
    return unbatched ? rf_b_squeeze(L, y, 0) : y;
}

/* x real, w real, an imaginary bias: the imaginary part is the bias broadcast over the output. */
static rf_value *bias_only(rf_lowering *L, const conv_args *c, rf_value *re, rf_value *bias_im) {
    rf_value *b = bias_im;
    for (int i = 0; i < c->nsp; i++) b = rf_b_unsqueeze(L, b, -1);
    return rf_b_add(L, rf_val(rf_b_zeros_like(L, re)), rf_val(b)).v;
}

static rf_status conv(rf_lowering *L, const rf_node *n, int nsp, int transposed) {
    rf_dtype dt = rf_work_dtype(L, n);
    rf_cx x = rf_in_cx(L, n, "input", dt), w = rf_in_cx(L, n, "weight", dt);
    const rf_attr *ba = rf_node_arg(n, "bias");
    int has_bias = ba && ba->kind != RF_A_NONE;
    rf_cx b = has_bias ? rf_in_cx(L, n, "bias", dt) : rf_cx_real(rf_num(0));
    RF_CHECK(L);
    if (!x.re.v || !w.re.v || (has_bias && !b.re.v))
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs tensor operands", n->op);
    x.im = x.im_zero ? x.im : rf_val(rf_cx_im_value(L, x));
    w.im = w.im_zero ? w.im : rf_val(rf_cx_im_value(L, w));
    conv_args c = {.nsp = nsp, .transposed = transposed};
    if (!parse(L, n, w.re.v, &c)) return rf_status_of(L);
    int unbatched = x.re.v->rank == nsp + 1;
    if (!unbatched && x.re.v->rank != nsp + 2)
        return rf_fail(L, n, RF_ERR_INVALID, "%s: input of rank %d", n->op, x.re.v->rank);
    /* the real convolutions' output: the node's, batched */
    const rf_value *out = n->outs[0];
    rf_value like = *out;
    if (unbatched) {
        like.rank = out->rank + 1;
        like.dims = rf_alloc(rf_out_graph(L), (size_t)like.rank * sizeof(rf_dim));
        like.dims[0] = (rf_dim){1, NULL};
        memcpy(like.dims + 1, out->dims, (size_t)out->rank * sizeof(rf_dim));
    }
    rf_value *br = has_bias ? b.re.v : NULL, *bi = has_bias ? rf_cx_im_or_null(b) : NULL;
    if (bi && !b.im.v) bi = NULL;
    rf_value *xr = input_part(L, &c, x.re.v, unbatched), *wr = w.re.v;
    rf_value *a = output_part(L, real_conv(L, &c, xr, wr, br, &like), unbatched);
    rf_cx r;
    if (x.im_zero && w.im_zero) {
        r = bi ? rf_cx_values(a, bias_only(L, &c, a, bi)) : rf_cx_real(rf_val(a));
    } else if (w.im_zero || x.im_zero) {
        rf_value *xi = x.im_zero ? xr : input_part(L, &c, x.im.v, unbatched), *wi = w.im_zero ? wr : w.im.v;
        r = rf_cx_values(a, output_part(L, real_conv(L, &c, xi, wi, bi, &like), unbatched));
    } else {
        rf_value *xi = input_part(L, &c, x.im.v, unbatched);
        rf_value *bb = output_part(L, real_conv(L, &c, xi, w.im.v, NULL, &like), unbatched);
        rf_value *xs = rf_b_add(L, rf_val(xr), rf_val(xi)).v, *ws = rf_b_add(L, rf_val(wr), rf_val(w.im.v)).v;
        rf_value *bs = bi ? rf_b_add(L, rf_val(br), rf_val(bi)).v : br;
        rf_value *cc = output_part(L, real_conv(L, &c, xs, ws, bs, &like), unbatched);
        rf_rv s = rf_b_sub(L, rf_val(a), rf_val(bb));
        rf_rv t = rf_b_sub(L, rf_b_sub(L, rf_val(cc), rf_val(a)), rf_val(bb));
        rf_cx it = rf_cx_mul_eager(L, rf_cx_real(t), rf_cx_make(rf_num(0.0), rf_num(1.0)));
        r = rf_cx_add_eager(L, rf_cx_real(s), it, rf_cx_real(rf_num(1.0)));
    }
    RF_CHECK(L);
    rf_set_cx(L, n->outs[0], r);
    return RF_OK;
}

static rf_status conv1d(rf_lowering *L, const rf_node *n) { return conv(L, n, 1, 0); }
static rf_status conv2d(rf_lowering *L, const rf_node *n) { return conv(L, n, 2, 0); }
static rf_status conv3d(rf_lowering *L, const rf_node *n) { return conv(L, n, 3, 0); }
static rf_status conv_transpose1d(rf_lowering *L, const rf_node *n) { return conv(L, n, 1, 1); }
static rf_status conv_transpose2d(rf_lowering *L, const rf_node *n) { return conv(L, n, 2, 1); }
static rf_status conv_transpose3d(rf_lowering *L, const rf_node *n) { return conv(L, n, 3, 1); }

const rf_rule_entry rf_rules_composite_conv[] = {
    {"aten.conv1d.default", conv1d, RF_RULE_FLOATS},
    {"aten.conv1d.padding", conv1d, RF_RULE_FLOATS},
    {"aten.conv2d.default", conv2d, RF_RULE_FLOATS},
    {"aten.conv2d.padding", conv2d, RF_RULE_FLOATS},
    {"aten.conv3d.default", conv3d, RF_RULE_FLOATS},
    {"aten.conv3d.padding", conv3d, RF_RULE_FLOATS},
    {"aten.conv_transpose1d.default", conv_transpose1d, RF_RULE_FLOATS},
    {"aten.conv_transpose2d.input", conv_transpose2d, RF_RULE_FLOATS},
    {"aten.conv_transpose3d.input", conv_transpose3d, RF_RULE_FLOATS},
    {NULL, NULL, 0},
};
