/* Powers and log-domain sums of complex values, following torch's kernels:
 * pow by a scalar special-cases the exponents 0, 1, 2, 3, 0.5, -0.5, -1 and
 * -2 and otherwise calls cpow, as does pow of two tensors. */
#include <math.h>

#include "cxmath/cxmath.h"
#include "lower/realops.h"
#include "rules/family.h"
#include "rules/rules.h"

static int scalar_parts(const rf_attr *a, double *re, double *im) {
    switch (a->kind) {
    case RF_A_INT:
    case RF_A_BOOL: *re = (double)a->i, *im = 0.0; return 1;
    case RF_A_FLOAT: *re = a->f, *im = 0.0; return 1;
    case RF_A_COMPLEX: *re = a->f, *im = a->f_im; return 1;
    default: return 0;
    }
}

static rf_status publish(rf_lowering *L, const rf_node *n, rf_cx r) {
    RF_CHECK(L);
    rf_set_cx(L, n->outs[0], r);
    return RF_OK;
}

static rf_status pow_tensor_scalar(rf_lowering *L, const rf_node *n) {
    const rf_attr *e = rf_node_arg(n, "exponent");
    double er, ei;
    if (!e || !scalar_parts(e, &er, &ei)) return rf_fail(L, n, RF_ERR_UNSUPPORTED, "pow with a symbolic exponent");
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx z = rf_in_cx(L, n, "self", w);
    RF_CHECK(L);
    if (!z.re.v) return rf_fail(L, n, RF_ERR_INVALID, "pow needs a tensor base");
    if (ei == 0.0) {
        if (er == 0.0) {
            rf_cx one = rf_cx_real(rf_val(rf_b_full_like(L, z.re.v, 1.0)));
            return publish(L, n, one);
        }
        if (er == 1.0) return publish(L, n, z);
        if (er == 2.0) return publish(L, n, rf_cx_mul_eager(L, z, z));
        if (er == 3.0) return publish(L, n, rf_cx_mul_eager(L, rf_cx_mul_eager(L, z, z), z));
        if (er == 0.5) return publish(L, n, rf_cx_sqrt(L, z));
        if (er == -0.5) return publish(L, n, rf_cx_reciprocal(L, rf_cx_sqrt(L, z)));
        if (er == -1.0) return publish(L, n, rf_cx_reciprocal(L, z));
        if (er == -2.0) return publish(L, n, rf_cx_reciprocal(L, rf_cx_mul_eager(L, z, z)));
    }
    rf_cx y = ei == 0.0 ? rf_cx_real(rf_num(er)) : rf_cx_make(rf_num(er), rf_num(ei));
    return publish(L, n, rf_cx_pow(L, z, y));
}

static rf_status pow_tensor_tensor(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx x = rf_in_cx(L, n, "self", w), y = rf_in_cx(L, n, "exponent", w);
    RF_CHECK(L);
    return publish(L, n, rf_cx_pow(L, x, y));
}

/* pow(scalar base, tensor exponent): 1 when the base is 1, else cpow. */
static rf_status pow_scalar(rf_lowering *L, const rf_node *n) {
    const rf_attr *b = rf_node_arg(n, "self");
    double br, bi;
    if (!b || !scalar_parts(b, &br, &bi)) return rf_fail(L, n, RF_ERR_UNSUPPORTED, "pow with a symbolic base");
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx y = rf_in_cx(L, n, "exponent", w);
    RF_CHECK(L);
    if (!y.re.v) return rf_fail(L, n, RF_ERR_INVALID, "pow needs a tensor exponent");
    if (br == 1.0 && bi == 0.0) return publish(L, n, rf_cx_real(rf_val(rf_b_full_like(L, y.re.v, 1.0))));
    rf_cx lg = rf_cx_make(rf_num(log(hypot(br, bi))), rf_num(atan2(bi, br)));
    return publish(L, n, rf_cx_exp(L, rf_cx_mul_c99(L, y, lg)));
}

static rf_status logaddexp(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx x = rf_in_cx(L, n, "self", w), y = rf_in_cx(L, n, "other", w);
    RF_CHECK(L);
    return publish(L, n, rf_cx_logaddexp(L, x, y));
}

/* ldexp(z, e) = z * pow(2, e): a real e scales both parts; a complex one
 * multiplies by cpow(2, e). */
static rf_status ldexp_rule(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx z = rf_in_cx(L, n, "self", w), e = rf_in_cx(L, n, "other", w);
    RF_CHECK(L);
    if (!e.re.v) return rf_fail(L, n, RF_ERR_INVALID, "ldexp needs a tensor exponent");
    if (e.im_zero) { /* torch's ldexp: z * pow(2, e) */
        const char *names[2] = {"self", "exponent"};
        rf_rv xs[2] = {rf_val(rf_b_scalar_tensor(L, 2.0, w)), e.re};
        return publish(L, n, rf_cx_mul_eager(L, z, rf_cx_real(rf_val(rf_b_ew(L, "aten.pow.Tensor_Tensor", 2, names, xs, w)))));
    }
    rf_cx ln2 = rf_cx_real(rf_num(log(2.0)));
    return publish(L, n, rf_cx_mul_eager(L, z, rf_cx_exp(L, rf_cx_mul_c99(L, e, ln2))));
}

const rf_rule_entry rf_rules_power[] = {
    {"aten.pow.Tensor_Scalar", pow_tensor_scalar, 0},
    {"aten.pow.Tensor_Tensor", pow_tensor_tensor, 0},
    {"aten.pow.Scalar", pow_scalar, 0},
    {"aten.logaddexp.default", logaddexp, 0},
    {"aten.ldexp.Tensor", ldexp_rule, 0},
    {NULL, NULL, 0},
};
