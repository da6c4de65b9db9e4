/* Gradients of elementwise functions, as aot_autograd's backward graphs hold them. For complex values torch's
 * kernels multiply the incoming gradient by the conjugate of the derivative, written in terms of the forward's
 * result y: tanh' = 1 - y^2, sigmoid' = (1 - y) y. The products are eager's (four-product) ones. */
#include "cxmath/cxmath.h"
#include "rules/rules.h"

typedef rf_cx (*derivative_fn)(rf_lowering *L, rf_cx y);

static rf_cx d_tanh(rf_lowering *L, rf_cx y) {
    return rf_cx_sub(L, rf_cx_real(rf_num(1.0)), rf_cx_mul_eager(L, y, y));
}

static rf_cx d_sigmoid(rf_lowering *L, rf_cx y) {
    return rf_cx_mul_eager(L, rf_cx_sub(L, rf_cx_real(rf_num(1.0)), y), y);
}

static rf_status grad_times_conj(rf_lowering *L, const rf_node *n, derivative_fn d) {
    if (n->nouts != 1 || !rf_dtype_is_complex(n->outs[0]->dtype))
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: expected one complex result", n->op);
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx g = rf_in_cx(L, n, "grad_output", w), y = rf_in_cx(L, n, "output", w);
    RF_CHECK(L);
    if (!g.re.v || !y.re.v) return rf_fail(L, n, RF_ERR_INVALID, "%s needs two tensors", n->op);
    rf_cx r = rf_cx_mul_eager(L, g, rf_cx_conj(L, d(L, y)));
    RF_CHECK(L);
    rf_set_cx(L, n->outs[0], r);
    return RF_OK;
}

static rf_status tanh_backward(rf_lowering *L, const rf_node *n) { return grad_times_conj(L, n, d_tanh); }
static rf_status sigmoid_backward(rf_lowering *L, const rf_node *n) { return grad_times_conj(L, n, d_sigmoid); }

const rf_rule_entry rf_rules_grad[] = {
    {"aten.tanh_backward.default", tanh_backward, 0},
    {"aten.sigmoid_backward.default", sigmoid_backward, 0},
    {NULL, NULL, 0},
};
