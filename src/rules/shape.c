/* Shape, movement and copy ops: they act on the real and imaginary parts
 * independently, so one family helper lowers them all. */
#include <string.h>

#include "cxmath/cxmath.h"
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

/* sym_size and sym_numel of a complex tensor: its real part has the same shape. */
static rf_status sym_of_part(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self) || n->nouts != 1)
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs one tensor in and one out", n->op);
    rf_cx c = rf_cx_of(L, self->value, rf_component_of(L, self->value->dtype));
    if (!c.re.v) return rf_fail(L, n, RF_ERR_INVALID, "%s needs a tensor", n->op);
    const char *names[1] = {"self"};
    rf_attr a = rf_attr_of_value(c.re.v);
    rf_set_real(L, n->outs[0], rf_b_copy_node(L, n, 1, names, &a, RF_DT_COUNT, "")->outs[0]);
    return RF_OK;
}

/* sym_stride of a complex graph input or constant: its real [..., 2] form is a view of
 * the same storage with every stride doubled. An intermediate value has no such storage
 * here (its parts are separate tensors), and a truncated input is a converted copy. */
static rf_status sym_stride(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self) || n->nouts != 1)
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs one tensor in and one out", n->op);
    const rf_value *v = self->value;
    if (v->producer)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s of a complex value that is not a graph input", n->op);
    if (rf_component_of(L, v->dtype) != rf_dtype_component(v->dtype, 0))
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s of a truncated input: its storage is a converted copy", n->op);
    const char *names[1] = {"self"};
    rf_attr a = rf_attr_of_value(rf_packed_of(L, v));
    rf_value *doubled = rf_b_copy_node(L, n, 1, names, &a, RF_DT_COUNT, "_x2")->outs[0];
    rf_arg args[2] = {{"arg0", rf_attr_of_value(doubled)}, {"arg1", rf_attr_int(2)}};
    rf_set_real(L, n->outs[0], rf_b_op(L, "py:_operator.floordiv", 2, args, RF_DT_SYMINT, 0, NULL, ""));
    return RF_OK;
}

/* mT swaps the last two dims of each part; mH, adjoint and matrix_H (2-D) also conjugate.
 * Emitted as transpose.int, which every target has. */
static rf_status matrix_transpose(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self) || n->nouts != 1 || self->value->rank < 2)
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs a tensor of rank >= 2", n->op);
    rf_cx c = rf_cx_of(L, self->value, rf_component_of(L, self->value->dtype));
    if (strcmp(n->op, "aten.mT.default") != 0) c = rf_cx_conj(L, c);
    const rf_value *o = n->outs[0];
    rf_cx r = {0};
    r.im_zero = c.im_zero;
    rf_rv *parts[2] = {&c.re, &c.im}, *outs[2] = {&r.re, &r.im};
    for (int k = 0; k < (c.im_zero ? 1 : 2); k++) {
        rf_value *x = rf_b_materialize(L, *parts[k], c.re.v);
        rf_arg args[3] = {{"self", rf_attr_of_value(x)}, {"dim0", rf_attr_int(-2)}, {"dim1", rf_attr_int(-1)}};
        *outs[k] = rf_val(rf_b_op(L, "aten.transpose.int", 3, args, x->dtype, o->rank, o->dims, k ? "_im" : "_re"));
    }
    rf_set_cx(L, o, r);
    return RF_OK;
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
    {"aten.mT.default", matrix_transpose, 0},
    {"aten.mH.default", matrix_transpose, 0},
    {"aten.adjoint.default", matrix_transpose, 0},
    {"aten.matrix_H.default", matrix_transpose, 0},
    {"aten.sym_size.int", sym_of_part, 0},
    {"aten.sym_numel.default", sym_of_part, 0},
    {"aten.sym_stride.int", sym_stride, 0},
    {NULL, NULL, 0},
};
