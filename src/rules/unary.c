/* Unary analytic functions of a complex tensor: each rule is one entry of the
 * unary family helper, with the function from cxmath. */
#include <math.h>

#include "../cxmath.h"
#include "../realops.h"
#include "family.h"
#include "rules.h"

#define LN2 0.693147180559945309417
#define LN10 2.30258509299404568402
#define PI 3.14159265358979323846

static rf_cx f_exp(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_exp(L, z);
}

static rf_cx f_exp2(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_exp(L, rf_cx_scale_parts(L, z, LN2));
}

static rf_cx f_expm1(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_expm1(L, z);
}

static rf_cx f_log(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_log(L, z);
}

/* log2 and log10 divide both parts of log by the real constant. */
static rf_cx f_log2(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    rf_cx r = rf_cx_log(L, z);
    rf_rv re = rf_b_div(L, r.re, rf_num(LN2));
    return rf_cx_make(re, rf_b_div(L, r.im, rf_num(LN2)));
}

static rf_cx f_log10(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    rf_cx r = rf_cx_log(L, z);
    rf_rv re = rf_b_div(L, r.re, rf_num(LN10));
    return rf_cx_make(re, rf_b_div(L, r.im, rf_num(LN10)));
}

static rf_cx f_log1p(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_log1p(L, z);
}

static rf_cx f_sqrt(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_sqrt(L, z);
}

/* rsqrt = 1 / sqrt(z), with c10's division */
static rf_cx f_rsqrt(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_reciprocal(L, rf_cx_sqrt(L, z));
}

static rf_cx f_sin(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_sin(L, z);
}

static rf_cx f_cos(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_cos(L, z);
}

static rf_cx f_tan(rf_lowering *L, rf_cx z, rf_dtype dt) { return rf_cx_tan(L, z, dt); }

static rf_cx f_sinh(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_sinh(L, z);
}

static rf_cx f_cosh(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_cosh(L, z);
}

static rf_cx f_tanh(rf_lowering *L, rf_cx z, rf_dtype dt) { return rf_cx_tanh(L, z, dt); }

static rf_cx f_asin(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_asin(L, z);
}

static rf_cx f_acos(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_acos(L, z);
}

static rf_cx f_atan(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_atan(L, z);
}

static rf_cx f_asinh(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_asinh(L, z);
}

static rf_cx f_acosh(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_acosh(L, z);
}

static rf_cx f_atanh(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_atanh(L, z);
}

static rf_cx f_sigmoid(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_sigmoid(L, z);
}

/* silu(z) = z / (1 + exp(-z)), as torch's complex kernel computes it */
static rf_cx f_silu(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    rf_cx e = rf_cx_exp(L, rf_cx_scale_parts(L, z, -1.0));
    e.re = rf_b_add(L, e.re, rf_num(1.0));
    return rf_cx_div_c10(L, z, e);
}

static rf_cx f_sgn(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    return rf_cx_sgn(L, z);
}

/* sinc(z) = sin(pi z) / (pi z), and 1 at z == 0 */
static rf_cx f_sinc(rf_lowering *L, rf_cx z, rf_dtype dt) {
    (void)dt;
    rf_cx pz = rf_cx_scale_parts(L, z, PI);
    rf_cx q = rf_cx_div_c10(L, rf_cx_sin(L, pz), pz);
    rf_value *zero = rf_cx_nonzero(L, z);
    rf_rv re = rf_b_where(L, zero, q.re, rf_num(1.0));
    rf_rv im = rf_b_where(L, zero, rf_cx_im(q), rf_num(0.0));
    return rf_cx_make(re, im);
}

#define UNARY(rule, f) \
    static rf_status rule(rf_lowering *L, const rf_node *n) { return rf_lower_unary_cx(L, n, f); }

UNARY(exp_rule, f_exp)
UNARY(exp2_rule, f_exp2)
UNARY(expm1_rule, f_expm1)
UNARY(log_rule, f_log)
UNARY(log2_rule, f_log2)
UNARY(log10_rule, f_log10)
UNARY(log1p_rule, f_log1p)
UNARY(sqrt_rule, f_sqrt)
UNARY(rsqrt_rule, f_rsqrt)
UNARY(sin_rule, f_sin)
UNARY(cos_rule, f_cos)
UNARY(tan_rule, f_tan)
UNARY(sinh_rule, f_sinh)
UNARY(cosh_rule, f_cosh)
UNARY(tanh_rule, f_tanh)
UNARY(asin_rule, f_asin)
UNARY(acos_rule, f_acos)
UNARY(atan_rule, f_atan)
UNARY(asinh_rule, f_asinh)
UNARY(acosh_rule, f_acosh)
UNARY(atanh_rule, f_atanh)
UNARY(sigmoid_rule, f_sigmoid)
UNARY(silu_rule, f_silu)
UNARY(sgn_rule, f_sgn)
UNARY(sinc_rule, f_sinc)

const rf_rule_entry rf_rules_unary[] = {
    {"aten.exp.default", exp_rule},
    {"aten.exp2.default", exp2_rule},
    {"aten.expm1.default", expm1_rule},
    {"aten.log.default", log_rule},
    {"aten.log2.default", log2_rule},
    {"aten.log10.default", log10_rule},
    {"aten.log1p.default", log1p_rule},
    {"aten.sqrt.default", sqrt_rule},
    {"aten.rsqrt.default", rsqrt_rule},
    {"aten.sin.default", sin_rule},
    {"aten.cos.default", cos_rule},
    {"aten.tan.default", tan_rule},
    {"aten.sinh.default", sinh_rule},
    {"aten.cosh.default", cosh_rule},
    {"aten.tanh.default", tanh_rule},
    {"aten.asin.default", asin_rule},
    {"aten.acos.default", acos_rule},
    {"aten.atan.default", atan_rule},
    {"aten.asinh.default", asinh_rule},
    {"aten.acosh.default", acosh_rule},
    {"aten.atanh.default", atanh_rule},
    {"aten.sigmoid.default", sigmoid_rule},
    {"aten.silu.default", silu_rule},
    {"aten.sgn.default", sgn_rule},
    {"aten.sinc.default", sinc_rule},
    {NULL, NULL},
};
