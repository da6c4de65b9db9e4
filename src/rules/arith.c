/* Elementwise complex arithmetic and the elementary functions. */
#include "cxmath/cxmath.h"
#include "lower/realops.h"
#include "rules/family.h"
#include "rules/rules.h"

/* The alpha of add, sub and rsub as the complex factor eager multiplies by (1 when absent); sub and rsub add
 * -alpha times their subtrahend, and a real alpha's negation keeps a +0 imaginary part. */
static rf_cx alpha_of(rf_lowering *L, const rf_node *n, rf_dtype w, int negate) {
    const rf_attr *alpha = rf_node_arg(n, "alpha");
    rf_cx f = (!alpha || alpha->kind == RF_A_NONE) ? rf_cx_real(rf_num(1.0)) : rf_in_cx(L, n, "alpha", w);
    if (!negate) return f;
    if (f.im_zero) return rf_cx_real(rf_b_neg(L, f.re));
    return rf_cx_make(rf_b_neg(L, f.re), rf_b_neg(L, f.im));
}

/* a + alpha b (add), a - alpha b (sub) and b - alpha a (rsub: sub(other, self)), operands read self first. */
static rf_status add_alpha(rf_lowering *L, const rf_node *n, int negate, int swap) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_in_cx(L, n, "self", w), b = rf_in_cx(L, n, "other", w);
    rf_cx alpha = alpha_of(L, n, w, negate);
    return rf_publish_cx(L, n, swap ? rf_cx_add_eager(L, b, a, alpha) : rf_cx_add_eager(L, a, b, alpha));
}

static rf_status add(rf_lowering *L, const rf_node *n) { return add_alpha(L, n, 0, 0); }
static rf_status sub(rf_lowering *L, const rf_node *n) { return add_alpha(L, n, 1, 0); }
static rf_status rsub(rf_lowering *L, const rf_node *n) { return add_alpha(L, n, 1, 1); }

/* fn(self, other), with `other` read first: the order in which mul and div have always emitted the operand reads
 * (C left it to the compiler's argument order; golden files check it). */
static rf_status binary_other_first(rf_lowering *L, const rf_node *n, rf_cx_binary_fn fn) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx b = rf_in_cx(L, n, "other", w), a = rf_in_cx(L, n, "self", w);
    return rf_publish_cx(L, n, fn(L, a, b));
}

/* The complex product only: the RoPE forms of a multiply are patterns (src/patterns/rope*.c), tried first. */
static rf_status mul(rf_lowering *L, const rf_node *n) { return binary_other_first(L, n, rf_cx_mul_eager); }

/* torch.square is pow(z, 2), which eager computes as z * z (bit for bit, inf and nan included). */
static rf_status square(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx z = rf_in_cx(L, n, "self", w);
    rf_set_cx(L, n->outs[0], rf_cx_mul_eager(L, z, z));
    return RF_OK;
}

static rf_status divide(rf_lowering *L, const rf_node *n) {
    const rf_attr *mode = rf_node_arg(n, "rounding_mode");
    if (mode && mode->kind != RF_A_NONE)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s with a rounding mode is not defined for complex", n->op);
    return binary_other_first(L, n, rf_cx_div);
}

static rf_status neg(rf_lowering *L, const rf_node *n) {
    rf_set_cx(L, n->outs[0], rf_cx_neg(L, rf_in_cx(L, n, "self", rf_work_dtype(L, n))));
    return RF_OK;
}

static rf_status reciprocal(rf_lowering *L, const rf_node *n) {
    rf_set_cx(L, n->outs[0], rf_cx_reciprocal(L, rf_in_cx(L, n, "self", rf_work_dtype(L, n))));
    return RF_OK;
}

static rf_dtype self_component(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self");
    return rf_component_of(L, self->value->dtype);
}

static rf_status absolute(rf_lowering *L, const rf_node *n) {
    rf_cx z = rf_in_cx(L, n, "self", self_component(L, n));
    rf_set_real(L, n->outs[0], rf_b_materialize(L, rf_cx_abs(L, z), z.re.v));
    return RF_OK;
}

static rf_status angle(rf_lowering *L, const rf_node *n) {
    rf_cx z = rf_in_cx(L, n, "self", self_component(L, n));
    rf_value *im = z.im_zero ? rf_b_zeros_like(L, z.re.v) : z.im.v;
    rf_set_real(L, n->outs[0], rf_b_materialize(L, rf_b_fn2(L, "aten.atan2.default", rf_val(im), z.re), z.re.v));
    return RF_OK;
}

const rf_rule_entry rf_rules_arith[] = {
    {"aten.add.Tensor", add, 0},
    {"aten.add.Scalar", add, 0},
    {"aten.sub.Tensor", sub, 0},
    {"aten.sub.Scalar", sub, 0},
    {"aten.rsub.Tensor", rsub, 0},
    {"aten.rsub.Scalar", rsub, 0},
    {"aten.mul.Tensor", mul, 0},
    {"aten.mul.Scalar", mul, 0},
    {"aten.square.default", square, 0},
    {"aten.div.Tensor", divide, 0},
    {"aten.div.Scalar", divide, 0},
    {"aten.div.Tensor_mode", divide, 0},
    {"aten.neg.default", neg, 0},
    {"aten.reciprocal.default", reciprocal, 0},
    {"aten.abs.default", absolute, 0},
    {"aten.angle.default", angle, 0},
    {NULL, NULL, 0},
};
