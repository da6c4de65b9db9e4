/* Tensors created like another one, and selection between two. */
#include "rules/rules.h"

/* The real tensor whose shape a *_like op copies: the real part of a complex self. */
static rf_attr like_self(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (rf_dtype_is_complex(self->value->dtype))
        return rf_attr_of_value(rf_cx_of(L, self->value, rf_component_of(L, self->value->dtype)).re.v);
    return rf_map_attr(L, self);
}

static rf_status fill_like(rf_lowering *L, const rf_node *n, double fill_re, double fill_im) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self)) return rf_fail(L, n, RF_ERR_INVALID, "%s needs a tensor", n->op);
    const rf_value *out = n->outs[0];
    const char *names[2] = {"self", "fill_value"};
    rf_attr attrs[2] = {like_self(L, n), {0}};
    attrs[1].kind = RF_A_FLOAT;
    int nsubst = rf_node_arg(n, "fill_value") ? 2 : 1;
    attrs[1].f = fill_re;
    rf_node *re = rf_b_copy_node(L, n, nsubst, names, attrs, RF_DT_COUNT, "_re");
    if (!rf_dtype_is_complex(out->dtype)) { /* a real tensor like a complex one */
        rf_set_real(L, out, re->outs[0]);
        return RF_OK;
    }
    rf_cx c = {0};
    c.re = rf_val(re->outs[0]);
    c.im_zero = fill_im == 0.0;
    if (!c.im_zero) c.im = rf_val(rf_b_full_like(L, re->outs[0], fill_im));
    rf_set_cx(L, out, c);
    return RF_OK;
}

static rf_status zeros_like(rf_lowering *L, const rf_node *n) { return fill_like(L, n, 0.0, 0.0); }
static rf_status ones_like(rf_lowering *L, const rf_node *n) { return fill_like(L, n, 1.0, 0.0); }

static rf_status full_like(rf_lowering *L, const rf_node *n) {
    const rf_attr *f = rf_node_arg(n, "fill_value");
    if (!f) return rf_fail(L, n, RF_ERR_INVALID, "full_like needs fill_value");
    switch (f->kind) {
    case RF_A_INT:
    case RF_A_BOOL: return fill_like(L, n, (double)f->i, 0.0);
    case RF_A_FLOAT: return fill_like(L, n, f->f, 0.0);
    case RF_A_COMPLEX: return fill_like(L, n, f->f, f->f_im);
    default: return rf_fail(L, n, RF_ERR_UNSUPPORTED, "full_like with a symbolic fill value");
    }
}

/* where.self on tensors: the form of every where overload once its scalars are tensors. */
static rf_value *where_self(rf_lowering *L, const rf_node *n, const rf_attr *attrs, rf_dtype w, const char *suffix) {
    rf_arg args[3] = {{"condition", attrs[0]}, {"self", attrs[1]}, {"other", attrs[2]}};
    const rf_value *o = n->outs[0];
    return rf_b_op(L, "aten.where.self", 3, args, w, o->rank, o->dims, suffix);
}

/* where.self, where.ScalarOther (where(c, z, 0)) and where.ScalarSelf. */
static rf_status where(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_value *cond = rf_in_real(L, n, "condition");
    rf_cx a = rf_in_cx(L, n, "self", w), b = rf_in_cx(L, n, "other", w);
    if (!cond) return RF_ERR_INVALID;
    rf_value *like = a.re.v ? a.re.v : b.re.v;
    if (!like) return rf_fail(L, n, RF_ERR_INVALID, "where needs a tensor operand");
    rf_cx r = {0};
    rf_value *ar = rf_b_materialize(L, a.re, like), *br = rf_b_materialize(L, b.re, like);
    rf_attr attrs[3] = {rf_attr_of_value(cond), rf_attr_of_value(ar), rf_attr_of_value(br)};
    r.re = rf_val(where_self(L, n, attrs, w, "_re"));
    r.im_zero = a.im_zero && b.im_zero;
    if (!r.im_zero) {
        attrs[1] = rf_attr_of_value(a.im_zero ? rf_b_zeros_like(L, ar) : rf_b_materialize(L, a.im, like));
        attrs[2] = rf_attr_of_value(b.im_zero ? rf_b_zeros_like(L, br) : rf_b_materialize(L, b.im, like));
        r.im = rf_val(where_self(L, n, attrs, w, "_im"));
    }
    rf_set_cx(L, n->outs[0], r);
    return RF_OK;
}

const rf_rule_entry rf_rules_creation[] = {
    {"aten.zeros_like.default", zeros_like, 0},
    {"aten.ones_like.default", ones_like, 0},
    {"aten.full_like.default", full_like, 0},
    {"aten.where.self", where, 0},
    {"aten.where.ScalarOther", where, 0},
    {"aten.where.ScalarSelf", where, 0},
    {NULL, NULL, 0},
};
