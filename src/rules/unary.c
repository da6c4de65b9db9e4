/* Unary analytic functions of a complex tensor: each rule is one entry of the
 * unary family helper, with the function from cxmath. */
#include <math.h>

#include "cxmath/cxmath.h"
#include "lower/realops.h"
#include "rules/family.h"
#include "rules/rules.h"

#define LN2 0.693147180559945309417
#define LN10 2.30258509299404568402
#define PI 3.14159265358979323846

static rf_cx f_exp2(rf_lowering *L, rf_cx z) {
    return rf_cx_exp(L, rf_cx_scale(L, z, rf_num(LN2)));
}

/* log2 and log10 divide both parts of log by the real constant. */
static rf_cx f_log2(rf_lowering *L, rf_cx z) {
    rf_cx r = rf_cx_log(L, z);
    rf_rv re = rf_b_div(L, r.re, rf_num(LN2));
    return rf_cx_make(re, rf_b_div(L, r.im, rf_num(LN2)));
}

static rf_cx f_log10(rf_lowering *L, rf_cx z) {
    rf_cx r = rf_cx_log(L, z);
    rf_rv re = rf_b_div(L, r.re, rf_num(LN10));
    return rf_cx_make(re, rf_b_div(L, r.im, rf_num(LN10)));
}

/* rsqrt = 1 / sqrt(z), with c10's division */
static rf_cx f_rsqrt(rf_lowering *L, rf_cx z) {
    return rf_cx_reciprocal(L, rf_cx_sqrt(L, z));
}

/* silu(z) = z / (1 + exp(-z)), as torch's complex kernel computes it */
static rf_cx f_silu(rf_lowering *L, rf_cx z) {
    rf_cx e = rf_cx_exp(L, rf_cx_scale(L, z, rf_num(-1.0)));
    e.re = rf_b_add(L, e.re, rf_num(1.0));
    return rf_cx_div(L, z, e);
}

/* sinc(z) = sin(pi z) / (pi z), and 1 at z == 0 */
static rf_cx f_sinc(rf_lowering *L, rf_cx z) {
    rf_cx pz = rf_cx_scale(L, z, rf_num(PI));
    rf_cx q = rf_cx_div(L, rf_cx_sin(L, pz), pz);
    rf_value *zero = rf_cx_nonzero(L, z);
    rf_rv re = rf_b_where(L, zero, q.re, rf_num(1.0));
    rf_rv im = rf_b_where(L, zero, rf_cx_im(q), rf_num(0.0));
    return rf_cx_make(re, im);
}

#define UNARY(rule, f) \
    static rf_status rule(rf_lowering *L, const rf_node *n) { return rf_lower_unary_cx(L, n, f); }
#define UNARY_PLAIN(rule, f) \
    static rf_status rule(rf_lowering *L, const rf_node *n) { return rf_lower_unary_cx_plain(L, n, f); }

UNARY_PLAIN(exp_rule, rf_cx_exp)
UNARY_PLAIN(exp2_rule, f_exp2)
UNARY_PLAIN(expm1_rule, rf_cx_expm1)
UNARY_PLAIN(log_rule, rf_cx_log)
UNARY_PLAIN(log2_rule, f_log2)
UNARY_PLAIN(log10_rule, f_log10)
UNARY_PLAIN(log1p_rule, rf_cx_log1p)
UNARY_PLAIN(sqrt_rule, rf_cx_sqrt)
UNARY_PLAIN(rsqrt_rule, f_rsqrt)
UNARY_PLAIN(sin_rule, rf_cx_sin)
UNARY_PLAIN(cos_rule, rf_cx_cos)
UNARY(tan_rule, rf_cx_tan)
UNARY_PLAIN(sinh_rule, rf_cx_sinh)
UNARY_PLAIN(cosh_rule, rf_cx_cosh)
UNARY(tanh_rule, rf_cx_tanh)
UNARY_PLAIN(asin_rule, rf_cx_asin)
/* Eager's complex128 acos (c10 and its vector body alike) is the complex difference pi/2 - asin z, whose
 * imaginary part 0 - Im asin z is +0 where asin's is a zero of either sign; complex64 (and C99) negates it. */
static rf_cx f_acos_c128(rf_lowering *L, rf_cx z) {
    rf_cx r = rf_cx_acos(L, z);
    rf_rv im = rf_cx_im(r);
    return rf_cx_make(r.re, rf_b_where(L, rf_b_cmp(L, "eq", im, rf_num(0.0)), rf_num(0.0), im));
}

/* complex64 acos is C99's (glibc), exact where pi/2 - Re asin z cancels, near z = +-1: there take Kahan's
 * Re acos z = 2 atan2(Re sqrt(1 - z), Re sqrt(1 + z)) (0.5 < |z| < 2). */
static rf_cx f_acos_c64(rf_lowering *L, rf_cx z) {
    rf_cx r = rf_cx_acos(L, z);
    rf_rv y = rf_val(rf_cx_im_value(L, z)); /* a tensor also where z is a promoted real */
    rf_cx a = rf_cx_sqrt(L, rf_cx_make(rf_b_sub(L, rf_num(1.0), z.re), rf_b_neg(L, y)));
    rf_cx b = rf_cx_sqrt(L, rf_cx_make(rf_b_add(L, rf_num(1.0), z.re), y));
    rf_rv k = rf_b_mul(L, rf_b_fn2(L, "aten.atan2.default", a.re, b.re), rf_num(2.0));
    rf_rv mag = rf_b_fn2(L, "aten.hypot.default", z.re, y);
    rf_value *near = rf_b_and(L, rf_b_cmp(L, "gt", mag, rf_num(0.5)), rf_b_cmp(L, "lt", mag, rf_num(2.0)));
    return rf_cx_make(rf_b_where(L, near, k, r.re), r.im);
}

static rf_status acos_rule(rf_lowering *L, const rf_node *n) {
    int c128 = n->nouts == 1 && n->outs[0]->dtype == RF_DT_C128;
    return rf_lower_unary_cx_plain(L, n, c128 ? f_acos_c128 : f_acos_c64);
}
UNARY_PLAIN(atan_rule, rf_cx_atan)
UNARY_PLAIN(asinh_rule, rf_cx_asinh)
UNARY_PLAIN(acosh_rule, rf_cx_acosh)
UNARY_PLAIN(atanh_rule, rf_cx_atanh)
UNARY_PLAIN(sigmoid_rule, rf_cx_sigmoid)
UNARY_PLAIN(silu_rule, f_silu)
UNARY_PLAIN(sgn_rule, rf_cx_sgn)
UNARY_PLAIN(sinc_rule, f_sinc)

const rf_rule_entry rf_rules_unary[] = {
    {"aten.exp.default", exp_rule, 0},
    {"aten.exp2.default", exp2_rule, 0},
    {"aten.expm1.default", expm1_rule, 0},
    {"aten.log.default", log_rule, 0},
    {"aten.log2.default", log2_rule, 0},
    {"aten.log10.default", log10_rule, 0},
    {"aten.log1p.default", log1p_rule, 0},
    {"aten.sqrt.default", sqrt_rule, 0},
    {"aten.rsqrt.default", rsqrt_rule, 0},
    {"aten.sin.default", sin_rule, 0},
    {"aten.cos.default", cos_rule, 0},
    {"aten.tan.default", tan_rule, 0},
    {"aten.sinh.default", sinh_rule, 0},
    {"aten.cosh.default", cosh_rule, 0},
    {"aten.tanh.default", tanh_rule, 0},
    {"aten.asin.default", asin_rule, 0},
    {"aten.acos.default", acos_rule, 0},
    {"aten.atan.default", atan_rule, 0},
    {"aten.asinh.default", asinh_rule, 0},
    {"aten.acosh.default", acosh_rule, 0},
    {"aten.atanh.default", atanh_rule, 0},
    {"aten.sigmoid.default", sigmoid_rule, 0},
    {"aten.silu.default", silu_rule, 0},
    {"aten.sgn.default", sgn_rule, 0},
    {"aten.sinc.default", sinc_rule, 0},
    /* torch replaces nan and infinities in the real and imaginary parts alike */
    {"aten.nan_to_num.default", rf_lower_componentwise, 0},
    {NULL, NULL, 0},
};
