/* Building complex values from real ones and taking them apart. */
#include "cxmath/cxmath.h"
#include "lower/realops.h"
#include "rules/rules.h"

static rf_status view_as_real(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self)) return rf_fail(L, n, RF_ERR_INVALID, "view_as_real needs a tensor");
    rf_value *packed = rf_packed_of(L, self->value);
    if (!packed) return RF_ERR_INVALID;
    rf_set_real(L, n->outs[0], packed);
    return RF_OK;
}

static rf_status view_as_complex(rf_lowering *L, const rf_node *n) {
    rf_value *x = rf_in_real(L, n, "self");
    if (!x) return RF_ERR_INVALID;
    rf_set_packed(L, n->outs[0], x);
    return RF_OK;
}

static rf_status polar(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx mag = rf_in_cx(L, n, "abs", w), ang = rf_in_cx(L, n, "angle", w);
    if (!mag.re.v || !ang.re.v) return rf_fail(L, n, RF_ERR_INVALID, "polar needs tensor operands");
    rf_cx c = {0};
    c.re = rf_b_mul(L, mag.re, rf_val(rf_b_unary(L, "aten.cos.default", ang.re.v)));
    c.im = rf_b_mul(L, mag.re, rf_val(rf_b_unary(L, "aten.sin.default", ang.re.v)));
    rf_set_cx(L, n->outs[0], c);
    return RF_OK;
}

static rf_status complex_from_parts(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx re = rf_in_cx(L, n, "real", w), im = rf_in_cx(L, n, "imag", w);
    rf_cx c = {0};
    c.re = re.re;
    c.im = im.re;
    rf_set_cx(L, n->outs[0], c);
    return RF_OK;
}

static rf_dtype self_component(rf_lowering *L, const rf_node *n) {
    return rf_component_of(L, rf_node_arg(n, "self")->value->dtype);
}

static rf_status real_part(rf_lowering *L, const rf_node *n) {
    rf_cx c = rf_in_cx(L, n, "self", self_component(L, n));
    rf_set_real(L, n->outs[0], c.re.v);
    return RF_OK;
}

static rf_status imag_part(rf_lowering *L, const rf_node *n) {
    rf_cx c = rf_in_cx(L, n, "self", self_component(L, n));
    rf_set_real(L, n->outs[0], c.im_zero ? rf_b_zeros_like(L, c.re.v) : c.im.v);
    return RF_OK;
}

/* self may be a number: a backward graph conjugates the wrapped scalar of x * 1j (grad * conj(1j)), whose
 * result is a 0-dim complex tensor. */
static rf_status conjugate(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx c = rf_cx_conj(L, rf_in_cx(L, n, "self", w));
    RF_CHECK(L);
    if (!c.re.v) {
        c.re = rf_val(rf_b_scalar_tensor(L, c.re.s, w));
        if (!c.im_zero) c.im = rf_val(rf_b_tensor_of(L, c.im, w));
    }
    rf_set_cx(L, n->outs[0], c);
    return RF_OK;
}

/* Ops that only settle lazy bits: the lowered value is already resolved. */
static rf_status identity(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self)) return rf_fail(L, n, RF_ERR_INVALID, "%s needs a tensor", n->op);
    rf_set_alias(L, n->outs[0], self->value);
    return RF_OK;
}

const rf_rule_entry rf_rules_construct[] = {
    {"aten.view_as_real.default", view_as_real, 0},
    {"aten.view_as_complex.default", view_as_complex, 0},
    {"aten.polar.default", polar, 0},
    {"aten.complex.default", complex_from_parts, 0},
    {"aten.real.default", real_part, 0},
    {"aten.imag.default", imag_part, 0},
    {"aten._conj.default", conjugate, 0},
    {"aten.detach_.default", identity, 0}, /* torch.tensor(...) constants under export: lift_fresh_copy, detach_ */
    {"aten.conj_physical.default", conjugate, 0},
    {"aten._conj_physical.default", conjugate, 0},
    {"aten.resolve_conj.default", identity, 0},
    {"aten.resolve_neg.default", identity, 0},
    {NULL, NULL, 0},
};
