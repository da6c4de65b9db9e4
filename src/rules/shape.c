/* Shape, movement and copy ops: they act on the real and imaginary parts
 * independently, so one family helper lowers them all. */
#include "rules/rules.h"

/* detach_ only drops autograd history, in place: its result is self (torch.tensor(...)
 * constants trace as lift_fresh_copy then detach_). */
static rf_status detach_inplace(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self) || n->nouts != 1)
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs one tensor in and one out", n->op);
    rf_set_alias(L, n->outs[0], self->value);
    return RF_OK;
}

/* rf_lower_componentwise lives in family.c, with its fill-value variant. */
const rf_rule_entry rf_rules_shape[] = {
    {"aten.detach_.default", detach_inplace},
    {"aten.view.default", rf_lower_componentwise},
    {"aten.reshape.default", rf_lower_componentwise},
    {"aten._unsafe_view.default", rf_lower_componentwise},
    {"aten.flatten.using_ints", rf_lower_componentwise},
    {"aten.unflatten.int", rf_lower_componentwise},
    {"aten.unsqueeze.default", rf_lower_componentwise},
    {"aten.squeeze.default", rf_lower_componentwise},
    {"aten.squeeze.dim", rf_lower_componentwise},
    {"aten.squeeze.dims", rf_lower_componentwise},
    {"aten.expand.default", rf_lower_componentwise},
    {"aten.permute.default", rf_lower_componentwise},
    {"aten.transpose.int", rf_lower_componentwise},
    {"aten.t.default", rf_lower_componentwise},
    {"aten.slice.Tensor", rf_lower_componentwise},
    {"aten.select.int", rf_lower_componentwise},
    {"aten.narrow.default", rf_lower_componentwise},
    {"aten.cat.default", rf_lower_componentwise},
    {"aten.stack.default", rf_lower_componentwise},
    {"aten.split.Tensor", rf_lower_componentwise},
    {"aten.split_with_sizes.default", rf_lower_componentwise},
    {"aten.chunk.default", rf_lower_componentwise},
    {"aten.unbind.int", rf_lower_componentwise},
    {"aten.clone.default", rf_lower_componentwise},
    {"aten.alias.default", rf_lower_componentwise},
    {"aten.detach.default", rf_lower_componentwise},
    {"aten.lift_fresh_copy.default", rf_lower_componentwise},
    {"aten.numpy_T.default", rf_lower_componentwise},
    {"aten.flip.default", rf_lower_componentwise},
    {"aten.roll.default", rf_lower_componentwise},
    {"aten.repeat.default", rf_lower_componentwise},
    {"aten.movedim.int", rf_lower_componentwise},
    {"aten.diagonal.default", rf_lower_componentwise},
    {NULL, NULL},
};
