/* More movement and copy ops: the *_copy variants, padding, shuffles, views
 * over storage, and scatter-style ops that write one tensor into another.
 * Each acts on the real and the imaginary part alike; fill values split into
 * their parts. (Padding: padding.c; unfold, as_strided itself: views.c.) */
#include <stdlib.h>
#include <string.h>

#include "rules/family.h"
#include "rules/rules.h"
#include "lower/realops.h"

/* The arguments whose values land in the result (a real one adds nothing to the imaginary part). */
static const char *const value_fill[] = {"value", NULL};
static const char *const fill_fill[] = {"fill", NULL};
static const char *const src_fill[] = {"src", NULL};
static const char *const source_fill[] = {"source", NULL};
static const char *const values_fill[] = {"values", NULL};

static rf_status fill_value(rf_lowering *L, const rf_node *n) { return rf_lower_componentwise_fill(L, n, value_fill); }
static rf_status fill_fill_arg(rf_lowering *L, const rf_node *n) { return rf_lower_componentwise_fill(L, n, fill_fill); }
static rf_status fill_src(rf_lowering *L, const rf_node *n) { return rf_lower_componentwise_fill(L, n, src_fill); }
static rf_status fill_source(rf_lowering *L, const rf_node *n) { return rf_lower_componentwise_fill(L, n, source_fill); }
static rf_status fill_values(rf_lowering *L, const rf_node *n) { return rf_lower_componentwise_fill(L, n, values_fill); }

/* scatter with reduce="add" is linear; "multiply" is not componentwise. */
static rf_status scatter_reduce_add(rf_lowering *L, const rf_node *n) {
    const rf_attr *r = rf_node_arg(n, "reduce");
    if (!r || r->kind != RF_A_STR || strcmp(r->s, "add") != 0)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s on complex values reduces only with \"add\"", n->op);
    return rf_lower_componentwise_fill(L, n, rf_node_arg(n, "src") ? src_fill : value_fill);
}

/* pad_sequence pads every sequence to the longest along dim 0 with its part of
 * the padding value, then stacks them: emitted as pads and a cat, which every
 * target has (torch.export keeps pad_sequence itself). */
static rf_value *padded_sequences(rf_lowering *L, rf_value *const *parts, size_t count,
                                  int64_t longest, int left, int64_t batch_dim, double fill) {
    rf_value **rows = rf_alloc(rf_out_graph(L), count * sizeof(*rows));
    for (size_t i = 0; i < count; i++) {
        int64_t gap = longest - parts[i]->dims[0].size;
        rf_value *p = gap ? rf_b_pad_dim(L, parts[i], 0, left ? gap : 0, left ? 0 : gap, fill) : parts[i];
        rows[i] = rf_b_unsqueeze(L, p, batch_dim);
    }
    return rf_b_cat(L, count, rows, batch_dim);
}

static rf_status pad_sequence(rf_lowering *L, const rf_node *n) {
    const rf_attr *seqs = rf_node_arg(n, "sequences"), *bf = rf_node_arg(n, "batch_first");
    const rf_attr *pv = rf_node_arg(n, "padding_value"), *side = rf_node_arg(n, "padding_side");
    if (!seqs || seqs->kind != RF_A_LIST || seqs->n == 0)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s needs a non-empty list of sequences", n->op);
    int left = side && side->kind == RF_A_STR && strcmp(side->s, "left") == 0;
    if (side && side->kind == RF_A_STR && !left && strcmp(side->s, "right") != 0)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: padding_side '%s'", n->op, side->s);
    int64_t batch_dim = bf && bf->kind == RF_A_BOOL && bf->i ? 0 : 1, longest = 0;
    double fill_re = 0.0, fill_im = 0.0;
    if (pv && pv->kind == RF_A_COMPLEX) fill_re = pv->f, fill_im = pv->f_im;
    else if (pv && pv->kind == RF_A_FLOAT) fill_re = pv->f;
    else if (pv && (pv->kind == RF_A_INT || pv->kind == RF_A_BOOL)) fill_re = (double)pv->i;
    rf_dtype w = rf_work_dtype(L, n);
    size_t count = seqs->n;
    rf_value **re = rf_alloc(rf_out_graph(L), count * sizeof(*re)), **im = rf_alloc(rf_out_graph(L), count * sizeof(*im));
    int has_imag = fill_im != 0.0;
    for (size_t i = 0; i < count; i++) {
        const rf_attr *a = &seqs->items[i];
        if (!rf_attr_is_tensor(a) || a->value->rank < 1 || a->value->dims[0].sym)
            return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s needs sequences of static length", n->op);
        if (a->value->dims[0].size > longest) longest = a->value->dims[0].size;
        has_imag |= !rf_cx_known_real(L, a->value);
    }
    for (size_t i = 0; i < count; i++) {
        const rf_value *v = seqs->items[i].value;
        rf_cx c = rf_cx_of(L, v, w);
        re[i] = rf_b_materialize(L, c.re, NULL);
        if (has_imag) im[i] = c.im_zero ? rf_b_zeros_like(L, re[i]) : rf_b_materialize(L, c.im, re[i]);
    }
    RF_CHECK(L);
    rf_cx out = {0};
    out.re = rf_val(padded_sequences(L, re, count, longest, left, batch_dim, fill_re));
    out.im_zero = !has_imag;
    if (has_imag) out.im = rf_val(padded_sequences(L, im, count, longest, left, batch_dim, fill_im));
    RF_CHECK(L);
    rf_set_cx(L, n->outs[0], out);
    return RF_OK;
}

static void scaled_ints(rf_lowering *L, rf_attr *out, const rf_attr *in, int64_t scale, int64_t extra) {
    *out = *in;
    out->n = in->n + 1;
    out->items = rf_alloc(rf_out_graph(L), out->n * sizeof(rf_attr));
    for (size_t i = 0; i < in->n; i++) out->items[i] = in->items[i], out->items[i].i *= scale;
    memset(&out->items[in->n], 0, sizeof(rf_attr));
    out->items[in->n].kind = RF_A_INT;
    out->items[in->n].i = extra;
}

static int static_ints(const rf_attr *a) {
    if (!a || a->kind != RF_A_LIST) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->items[i].kind != RF_A_INT) return 0;
    return 1;
}

/* as_strided reads the storage of its input. A complex graph input or constant
 * read so is marked `storage`: it arrives as the [..., 2] view of its whole
 * storage (view_as_real, or with truncate_double the whole storage converted),
 * where the same element sits at twice the offset and strides. An intermediate
 * value has no such storage here. */
rf_status rf_lower_as_strided_on(rf_lowering *L, const rf_node *n, const rf_value *base) {
    const rf_attr *size = rf_node_arg(n, "size"), *stride = rf_node_arg(n, "stride");
    const rf_attr *off = rf_node_arg(n, "storage_offset");
    if (!base || !rf_dtype_is_complex(base->dtype) || !static_ints(size) || !static_ints(stride))
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s needs a complex tensor and static sizes", n->op);
    if (!rf_is_packed_input(L, base))
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s of a complex value that is not a graph input", n->op);
    if (off && off->kind != RF_A_INT && off->kind != RF_A_NONE)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s with a symbolic offset", n->op);
    rf_value *packed = rf_packed_storage_of(L, base);
    const rf_attr *src = rf_node_arg(n, "src");
    rf_arg args[5];
    size_t na = 0;
    args[na].name = "self";
    args[na++].attr = rf_attr_of_value(packed);
    if (src) {
        if (!rf_attr_is_tensor(src) || !rf_dtype_is_complex(src->value->dtype))
            return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s of a real source", n->op);
        args[na].name = "src";
        args[na++].attr = rf_attr_of_value(rf_packed_of(L, src->value));
    }
    args[na].name = "size";
    scaled_ints(L, &args[na++].attr, size, 1, 2);
    args[na].name = "stride";
    scaled_ints(L, &args[na++].attr, stride, 2, 1);
    /* No offset means the input's own, which in the real view is already doubled. */
    args[na].name = "storage_offset";
    memset(&args[na].attr, 0, sizeof(rf_attr));
    args[na].attr.kind = (off && off->kind == RF_A_INT) ? RF_A_INT : RF_A_NONE;
    args[na++].attr.i = (off && off->kind == RF_A_INT) ? 2 * off->i : 0;
    const rf_value *o = n->outs[0];
    rf_value like;
    memset(&like, 0, sizeof like);
    like.rank = o->rank + 1;
    like.dims = rf_alloc(rf_out_graph(L), (size_t)like.rank * sizeof(rf_dim));
    if (o->rank > 0) memcpy(like.dims, o->dims, (size_t)o->rank * sizeof(rf_dim));
    like.dims[o->rank].size = 2;
    const rf_value *likes[1] = {&like};
    rf_node *m = rf_b_node(L, n->op, na, args, 1, likes, packed->dtype, "_packed");
    rf_set_packed(L, o, m->outs[0]);
    return RF_OK;
}

rf_status rf_lower_as_strided_of_input(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self");
    return rf_lower_as_strided_on(L, n, rf_attr_is_tensor(self) ? self->value : NULL);
}

/* copy_ into a complex graph input or constant: the write-back of a mutated input or
 * buffer that torch.export's unlifted module ends with (realify.lower functionalizes an
 * ExportedProgram first, so no other in-place op reaches here). The [..., 2] form of the
 * destination is the tensor the caller or the module holds, so the packed source is
 * copied into it. */
static rf_status copy_inplace(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self"), *src = rf_node_arg(n, "src");
    if (!rf_attr_is_tensor(self) || !rf_attr_is_tensor(src) || n->nouts != 1)
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs two tensors and one result", n->op);
    const rf_value *dst = self->value;
    if (!rf_dtype_is_complex(dst->dtype) || !rf_dtype_is_complex(src->value->dtype))
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s between a complex and a real tensor", n->op);
    if (dst->producer)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED,
                       "%s into a complex value that is not a graph input or constant: functionalize the graph "
                       "first (realify.lower does it for an ExportedProgram)", n->op);
    rf_value *p = rf_packed_of(L, dst), *from = rf_packed_of(L, src->value);
    if (!p || !from) return RF_ERR_INVALID;
    const rf_attr *nb = rf_node_arg(n, "non_blocking");
    rf_arg args[3] = {{"self", rf_attr_of_value(p)}, {"src", rf_attr_of_value(from)}, {"non_blocking", {0}}};
    if (nb) args[2].attr = *nb;
    rf_b_op(L, n->op, nb ? 3 : 2, args, p->dtype, p->rank, p->dims, "_wb");
    rf_set_alias(L, n->outs[0], src->value);
    return RF_OK;
}

const rf_rule_entry rf_rules_movement[] = {
    {"aten.alias_copy.default", rf_lower_componentwise, 0},
    {"aten.view_copy.default", rf_lower_componentwise, 0},
    {"aten.expand_copy.default", rf_lower_componentwise, 0},
    {"aten.permute_copy.default", rf_lower_componentwise, 0},
    {"aten.transpose_copy.int", rf_lower_componentwise, 0},
    {"aten.t_copy.default", rf_lower_componentwise, 0},
    {"aten.squeeze_copy.default", rf_lower_componentwise, 0},
    {"aten.squeeze_copy.dim", rf_lower_componentwise, 0},
    {"aten.squeeze_copy.dims", rf_lower_componentwise, 0},
    {"aten.unsqueeze_copy.default", rf_lower_componentwise, 0},
    {"aten.diagonal_copy.default", rf_lower_componentwise, 0},
    {"aten.select_copy.int", rf_lower_componentwise, 0},
    {"aten.slice_copy.Tensor", rf_lower_componentwise, 0},
    {"aten.narrow_copy.default", rf_lower_componentwise, 0},
    {"aten.unbind_copy.int", rf_lower_componentwise, 0},
    {"aten.split_copy.Tensor", rf_lower_componentwise, 0},
    {"aten.split_with_sizes_copy.default", rf_lower_componentwise, 0},
    {"aten.unsafe_split.Tensor", rf_lower_componentwise, 0},
    {"aten.unsafe_split_with_sizes.default", rf_lower_componentwise, 0},
    {"aten.unfold_copy.default", rf_lower_componentwise, 0},
    {"aten.rot90.default", rf_lower_componentwise, 0},
    {"aten.pixel_shuffle.default", rf_lower_componentwise, 0},
    {"aten.pixel_unshuffle.default", rf_lower_componentwise, 0},
    {"aten.channel_shuffle.default", rf_lower_componentwise, 0},
    {"aten.native_channel_shuffle.default", rf_lower_componentwise, 0},
    {"aten.im2col.default", rf_lower_componentwise, 0},
    {"aten.col2im.default", rf_lower_componentwise, 0},
    {"aten._chunk_cat.default", rf_lower_componentwise, 0},
    {"aten.block_diag.default", rf_lower_componentwise, 0},
    {"aten.tril.default", rf_lower_componentwise, 0},
    {"aten.triu.default", rf_lower_componentwise, 0},
    {"aten.trace.default", rf_lower_componentwise, 0},
    {"aten.diag_embed.default", rf_lower_componentwise, 0},
    {"aten.diag.default", rf_lower_componentwise, 0},
    {"aten.copy.default", fill_src, 0},
    {"aten.copy_.default", copy_inplace, 0},
    {"aten.resize.default", rf_lower_componentwise, 0},
    {"aten.resize_as.default", rf_lower_componentwise, 0},
    {"aten.slice_scatter.default", fill_src, 0},
    /* the gradients of views (aot_autograd's backward graphs): linear, so each half goes through alone */
    {"aten.slice_backward.default", rf_lower_componentwise, 0},
    {"aten.select_backward.default", rf_lower_componentwise, 0},
    {"aten.diagonal_backward.default", rf_lower_componentwise, 0},
    {"aten.select_scatter.default", fill_src, 0},
    {"aten.diagonal_scatter.default", fill_src, 0},
    {"aten.masked_scatter.default", fill_source, 0},
    {"aten.masked_select.default", rf_lower_componentwise, 0},
    {"aten.masked_fill.Scalar", fill_value, 0},
    {"aten.masked_fill.Tensor", fill_value, 0},
    {"aten.take.default", rf_lower_componentwise, 0},
    {"aten.put.default", fill_source, 0},
    {"aten.index.Tensor", rf_lower_componentwise, 0},
    {"aten._unsafe_index.Tensor", rf_lower_componentwise, 0},
    {"aten.index_put.default", fill_values, 0},
    {"aten._unsafe_index_put.default", fill_values, 0},
    {"aten._unsafe_masked_index.default", fill_fill_arg, 0},
    {"aten._unsafe_masked_index_put_accumulate.default", fill_values, 0},
    {"aten.index_select.default", rf_lower_componentwise, 0},
    {"aten.gather.default", rf_lower_componentwise, 0},
    {"aten.scatter.src", fill_src, 0},
    {"aten.scatter.value", fill_value, 0},
    {"aten.scatter.reduce", scatter_reduce_add, 0},
    {"aten.scatter.value_reduce", scatter_reduce_add, 0},
    {"aten.scatter_add.default", fill_src, 0},
    {"aten.index_add.default", fill_source, 0},
    {"aten.index_copy.default", fill_source, 0},
    {"aten.index_fill.int_Scalar", fill_value, 0},
    {"aten.index_fill.int_Tensor", fill_value, 0},
    {"aten.pad_sequence.default", pad_sequence, 0},
    {"aten.as_strided_copy.default", rf_lower_as_strided_of_input, 0},
    {"aten.as_strided_scatter.default", rf_lower_as_strided_of_input, 0},
    {NULL, NULL, 0},
};
