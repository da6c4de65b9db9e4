/* Views of complex tensors that read strides or rename their input:
 * as_strided of a value (stft frames a padded signal so), unfold, and the
 * in-place view ops (stft ends with transpose_ and squeeze_). The *_copy
 * forms and as_strided over a graph input's storage are in movement.c. */
#include <string.h>

#include "rules/rules.h"

/* Whether eager PyTorch holds v contiguously: the IR records no strides, so this
 * accepts only values made by ops that return a fresh contiguous tensor (the
 * pads stft uses, cat, stack, resize, a clone to contiguous_format), seen through ops that keep a contiguous
 * layout contiguous (views that only reshape, clone). */
static int known_contiguous(const rf_value *v) {
    static const char *const fresh[] = {
        "aten.constant_pad_nd.default", "aten.reflection_pad1d.default", "aten.reflection_pad2d.default",
        "aten.reflection_pad3d.default", "aten.replication_pad1d.default", "aten.replication_pad2d.default",
        "aten.replication_pad3d.default", "aten.cat.default", "aten.stack.default", "aten.resize.default", NULL};
    static const char *const keep[] = {"aten.view.default",    "aten._unsafe_view.default", "aten.unsqueeze.default",
                                       "aten.squeeze.dim",     "aten.squeeze.default",      "aten.clone.default",
                                       NULL};
    for (const rf_node *p = v->producer; p; p = v->producer) {
        if (rf_str_in(p->op, fresh)) return 1;
        const rf_attr *mf = rf_node_arg(p, "memory_format");
        if (strcmp(p->op, "aten.clone.default") == 0 && mf && mf->kind == RF_A_STR &&
            strcmp(mf->s, "@memory_format:contiguous_format") == 0)
            return 1; /* a clone to contiguous_format (the front end says so where the trace shows it) */
        const rf_attr *self = rf_node_arg(p, "self");
        if (!rf_str_in(p->op, keep) || !self || self->kind != RF_A_VALUE) return 0;
        v = self->value;
    }
    return 0;
}

/* The tensor whose storage v views through view/unsqueeze/squeeze (they keep
 * the storage and its offset), or v itself. */
static const rf_value *view_base(const rf_value *v) {
    static const char *const views[] = {"aten.view.default", "aten.unsqueeze.default", "aten.squeeze.dim",
                                        "aten.squeeze.default", NULL};
    for (const rf_node *p = v->producer; p; p = v->producer) {
        const rf_attr *self = rf_node_arg(p, "self");
        if (!rf_str_in(p->op, views) || !self || self->kind != RF_A_VALUE) break;
        v = self->value;
    }
    return v;
}

/* as_strided of a complex tensor. On a graph input it reads the input's own
 * storage (exact for any layout). On an intermediate value known to be
 * contiguous (stft frames a padded signal this way): the same strides over
 * contiguous copies of its parts. Anything else raises rather than guess. */
static rf_status as_strided(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self");
    const rf_value *base = rf_attr_is_tensor(self) ? view_base(self->value) : NULL;
    if (base && !base->producer && rf_dtype_is_complex(base->dtype) && !base->const_target)
        return rf_lower_as_strided_on(L, n, base);
    if (!rf_attr_is_tensor(self) || !known_contiguous(self->value))
        return rf_fail(L, n, RF_ERR_UNSUPPORTED,
                       "%s of a complex intermediate whose memory layout is not known to be contiguous", n->op);
    const rf_attr *off = rf_node_arg(n, "storage_offset");
    if (off && off->kind != RF_A_NONE)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s of a complex tensor with an explicit storage_offset", n->op);
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx z = rf_in_cx(L, n, "self", w);
    const char *names[1] = {"self"};
    rf_cx c = {0};
    c.im_zero = z.im_zero;
    for (int part = 0; part < 2; part++) {
        if (part && z.im_zero) break;
        rf_value *v = part ? z.im.v : z.re.v;
        rf_arg cargs[2] = {{"self", rf_attr_of_value(v)},
                           {"memory_format", rf_attr_str("@memory_format:contiguous_format")}};
        rf_value *contig = rf_b_op(L, "aten.clone.default", 2, cargs, v->dtype, v->rank, v->dims, "_contig");
        rf_attr attr = rf_attr_of_value(contig);
        rf_value *r = rf_b_copy_node(L, n, 1, names, &attr, w, part ? "_im" : "_re")->outs[0];
        if (part) c.im = rf_val(r);
        else c.re = rf_val(r);
    }
    rf_set_cx(L, n->outs[0], c);
    return RF_OK;
}

/* In-place view ops (stft ends with transpose_ and squeeze_): the functional op
 * on both parts; `self` then names the new view too, as it does in eager. */
static rf_status inplace_view(rf_lowering *L, const rf_node *n, const char *functional) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self) || !rf_dtype_is_complex(self->value->dtype))
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs a complex tensor", n->op);
    rf_dtype w = rf_component_of(L, self->value->dtype);
    rf_cx z = rf_in_cx(L, n, "self", w);
    const rf_value *o = n->outs[0];
    rf_cx c = {0};
    c.im_zero = z.im_zero;
    for (int part = 0; part < 2; part++) {
        if (part && z.im_zero) break;
        rf_arg args[8];
        size_t na = 0;
        for (size_t i = 0; i < n->nargs && na < 8; i++) {
            args[na].name = n->args[i].name;
            args[na++].attr = strcmp(n->args[i].name, "self") == 0 ? rf_attr_of_value(part ? z.im.v : z.re.v)
                                                                      : rf_map_attr(L, &n->args[i].attr);
        }
        rf_value *r = rf_b_op(L, functional, na, args, w, o->rank, o->dims, part ? "_im" : "_re");
        if (part) c.im = rf_val(r);
        else c.re = rf_val(r);
    }
    rf_set_cx(L, o, c);
    rf_set_alias(L, self->value, o);
    return RF_OK;
}

static rf_status transpose_inplace(rf_lowering *L, const rf_node *n) {
    return inplace_view(L, n, "aten.transpose.int");
}
static rf_status squeeze_dim_inplace(rf_lowering *L, const rf_node *n) {
    return inplace_view(L, n, "aten.squeeze.dim");
}
static rf_status squeeze_inplace(rf_lowering *L, const rf_node *n) {
    return inplace_view(L, n, "aten.squeeze.default");
}
static rf_status unsqueeze_inplace(rf_lowering *L, const rf_node *n) {
    return inplace_view(L, n, "aten.unsqueeze.default");
}

const rf_rule_entry rf_rules_views[] = {
    {"aten.as_strided.default", as_strided, 0},
    {"aten.unfold.default", rf_lower_componentwise, 0},
    {"aten.transpose_.default", transpose_inplace, 0},
    {"aten.squeeze_.dim", squeeze_dim_inplace, 0},
    {"aten.squeeze_.default", squeeze_inplace, 0},
    {"aten.unsqueeze_.default", unsqueeze_inplace, 0},
    {NULL, NULL, 0},
};
