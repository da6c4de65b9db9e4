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

/* pow's number argument `num` as (re, im) and its tensor argument `ten` (read in the working dtype); 0 with L
 * failed, naming the argument's role, when the number is symbolic or the tensor a scalar. */
static int number_and_tensor(rf_lowering *L, const rf_node *n, const char *num, const char *num_role,
                             const char *ten, const char *ten_role, double *re, double *im, rf_cx *t) {
    const rf_attr *a = rf_node_arg(n, num);
    if (!a || !scalar_parts(a, re, im)) {
        rf_fail(L, n, RF_ERR_UNSUPPORTED, "pow with a symbolic %s", num_role);
        return 0;
    }
    *t = rf_in_cx(L, n, ten, rf_work_dtype(L, n));
    if (rf_status_of(L) != RF_OK) return 0;
    if (t->re.v) return 1;
    rf_fail(L, n, RF_ERR_INVALID, "pow needs a tensor %s", ten_role);
    return 0;
}

static rf_status pow_tensor_scalar(rf_lowering *L, const rf_node *n) {
    double er, ei;
    rf_cx z;
    if (!number_and_tensor(L, n, "exponent", "exponent", "self", "base", &er, &ei, &z)) return rf_status_of(L);
    if (ei == 0.0) {
        if (er == 0.0) {
            rf_cx one = rf_cx_real(rf_val(rf_b_full_like(L, z.re.v, 1.0)));
            return rf_publish_cx(L, n, one);
        }
        if (er == 1.0) return rf_publish_cx(L, n, z);
        if (er == 2.0) return rf_publish_cx(L, n, rf_cx_mul_eager(L, z, z));
        if (er == 3.0) return rf_publish_cx(L, n, rf_cx_mul_eager(L, rf_cx_mul_eager(L, z, z), z));
        if (er == 0.5) return rf_publish_cx(L, n, rf_cx_sqrt(L, z));
        if (er == -0.5) return rf_publish_cx(L, n, rf_cx_reciprocal(L, rf_cx_sqrt(L, z)));
        if (er == -1.0) return rf_publish_cx(L, n, rf_cx_reciprocal(L, z));
        if (er == -2.0) return rf_publish_cx(L, n, rf_cx_reciprocal(L, rf_cx_mul_eager(L, z, z)));
    }
    rf_cx y = ei == 0.0 ? rf_cx_real(rf_num(er)) : rf_cx_make(rf_num(er), rf_num(ei));
    return rf_publish_cx(L, n, rf_cx_pow(L, z, y));
}

static rf_status pow_tensor_tensor(rf_lowering *L, const rf_node *n) {
    return rf_lower_binary_cx(L, n, "self", "exponent", rf_cx_pow);
}

/* pow(scalar base, tensor exponent): 1 when the base is 1, else cpow. */
static rf_status pow_scalar(rf_lowering *L, const rf_node *n) {
    double br, bi;
    rf_cx y;
    if (!number_and_tensor(L, n, "self", "base", "exponent", "exponent", &br, &bi, &y)) return rf_status_of(L);
    if (br == 1.0 && bi == 0.0) return rf_publish_cx(L, n, rf_cx_real(rf_val(rf_b_full_like(L, y.re.v, 1.0))));
    rf_cx lg = rf_cx_make(rf_num(log(hypot(br, bi))), rf_num(atan2(bi, br)));
    return rf_publish_cx(L, n, rf_cx_exp(L, rf_cx_mul_c99(L, y, lg)));
}

static rf_status logaddexp(rf_lowering *L, const rf_node *n) {
    return rf_lower_binary_cx(L, n, "self", "other", rf_cx_logaddexp);
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
        return rf_publish_cx(L, n, rf_cx_mul_eager(L, z, rf_cx_real(rf_val(rf_b_ew(L, "aten.pow.Tensor_Tensor", 2, names, xs, w)))));
    }
    rf_cx ln2 = rf_cx_real(rf_num(log(2.0)));
    return rf_publish_cx(L, n, rf_cx_mul_eager(L, z, rf_cx_exp(L, rf_cx_mul_c99(L, e, ln2))));
}

const rf_rule_entry rf_rules_power[] = {
    {"aten.pow.Tensor_Scalar", pow_tensor_scalar, 0},
    {"aten.pow.Tensor_Tensor", pow_tensor_tensor, 0},
    {"aten.pow.Scalar", pow_scalar, 0},
    {"aten.logaddexp.default", logaddexp, 0},
    {"aten.ldexp.Tensor", ldexp_rule, 0},
    {NULL, NULL, 0},
};
