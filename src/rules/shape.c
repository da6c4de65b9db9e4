/* Shape, movement and copy ops: they act on the real and imaginary parts
 * independently, so one family helper lowers them all. */
#include "rules/rules.h"

/* A view of a complex value is a view of each part, but a part (a select of the
 * [..., 2] form, or an FFT's gather) may be strided where the complex tensor was
 * contiguous, so the parts are reshaped: a view where possible, a copy where not. */
static rf_status view_as_reshape(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self"), *size = rf_node_arg(n, "size");
    if (!self || !size) return rf_fail(L, n, RF_ERR_INVALID, "%s needs self and size", n->op);
    rf_arg args[2] = {{"self", *self}, {"shape", *size}};
    rf_node reshape = *n;
    reshape.op = "aten.reshape.default";
    reshape.nargs = 2;
    reshape.args = args;
    return rf_lower_componentwise(L, &reshape);
}

/* rf_lower_componentwise lives in family.c, with its fill-value variant. */
const rf_rule_entry rf_rules_shape[] = {
    {"aten.view.default", view_as_reshape, 0},
    {"aten.reshape.default", rf_lower_componentwise, 0},
    {"aten._unsafe_view.default", view_as_reshape, 0},
    {"aten.flatten.using_ints", rf_lower_componentwise, 0},
    {"aten.unflatten.int", rf_lower_componentwise, 0},
    {"aten.unsqueeze.default", rf_lower_componentwise, 0},
    {"aten.squeeze.default", rf_lower_componentwise, 0},
    {"aten.squeeze.dim", rf_lower_componentwise, 0},
    {"aten.squeeze.dims", rf_lower_componentwise, 0},
    {"aten.expand.default", rf_lower_componentwise, 0},
    {"aten.permute.default", rf_lower_componentwise, 0},
    {"aten.transpose.int", rf_lower_componentwise, 0},
    {"aten.t.default", rf_lower_componentwise, 0},
    {"aten.slice.Tensor", rf_lower_componentwise, 0},
    {"aten.select.int", rf_lower_componentwise, 0},
    {"aten.narrow.default", rf_lower_componentwise, 0},
    {"aten.cat.default", rf_lower_componentwise, 0},
    {"aten.stack.default", rf_lower_componentwise, 0},
    {"aten.split.Tensor", rf_lower_componentwise, 0},
    {"aten.split_with_sizes.default", rf_lower_componentwise, 0},
    {"aten.chunk.default", rf_lower_componentwise, 0},
    {"aten.unbind.int", rf_lower_componentwise, 0},
    {"aten.clone.default", rf_lower_componentwise, 0},
    {"aten.alias.default", rf_lower_componentwise, 0},
    {"aten.detach.default", rf_lower_componentwise, 0},
    {"aten.lift_fresh_copy.default", rf_lower_componentwise, 0},
    {"aten.numpy_T.default", rf_lower_componentwise, 0},
    {"aten.flip.default", rf_lower_componentwise, 0},
    {"aten.roll.default", rf_lower_componentwise, 0},
    {"aten.repeat.default", rf_lower_componentwise, 0},
    {"aten.movedim.int", rf_lower_componentwise, 0},
    {"aten.diagonal.default", rf_lower_componentwise, 0},
    {NULL, NULL, 0},
};
