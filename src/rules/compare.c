/* Predicates and comparisons of complex values, and the ops that see only
 * whether each element is nonzero. Ordering comparisons (lt, max, sort, ...)
 * are not defined for complex numbers: torch rejects them, and so do we by
 * having no rule. */
#include "lower/realops.h"
#include "rules/family.h"
#include "rules/rules.h"

static rf_status set_bool(rf_lowering *L, const rf_node *n, rf_value *v) {
    RF_CHECK(L);
    rf_set_real(L, n->outs[0], v);
    return RF_OK;
}

/* eq: both parts equal; ne: either part differs (NaN differs from all). */
static rf_status equality(rf_lowering *L, const rf_node *n, int negate) {
    rf_cx a = rf_in_cx_own(L, n, "self"), b = rf_in_cx_own(L, n, "other");
    RF_CHECK(L);
    const char *c = negate ? "ne" : "eq";
    rf_value *re = rf_b_cmp(L, c, a.re, b.re);
    if (a.im_zero && b.im_zero) return set_bool(L, n, re);
    rf_rv ai = a.im_zero ? rf_num(0.0) : a.im, bi = b.im_zero ? rf_num(0.0) : b.im;
    rf_value *im = (ai.v || bi.v) ? rf_b_cmp(L, c, ai, bi) : NULL;
    if (!im) { /* both imaginary parts are scalars: the real comparison decides, or nothing does */
        if (ai.s == bi.s) return set_bool(L, n, re);
        return set_bool(L, n, negate ? rf_b_full_like(L, re, 1.0) : rf_b_zeros_like(L, re));
    }
    return set_bool(L, n, negate ? rf_b_or(L, re, im) : rf_b_and(L, re, im));
}

static rf_status eq(rf_lowering *L, const rf_node *n) { return equality(L, n, 0); }
static rf_status ne(rf_lowering *L, const rf_node *n) { return equality(L, n, 1); }

/* A predicate on both parts, joined with `or` (isnan, isinf) or `and` (isfinite). */
static rf_status on_parts(rf_lowering *L, const rf_node *n, rf_value *(*pred)(rf_lowering *, rf_rv),
                          rf_value *(*join)(rf_lowering *, rf_value *, rf_value *)) {
    rf_cx z = rf_in_cx_own(L, n, "self");
    RF_CHECK(L);
    rf_value *r = pred(L, z.re);
    if (!z.im_zero) r = join(L, r, pred(L, z.im));
    return set_bool(L, n, r);
}

static rf_status isnan_rule(rf_lowering *L, const rf_node *n) { return on_parts(L, n, rf_b_isnan, rf_b_or); }
static rf_status isinf_rule(rf_lowering *L, const rf_node *n) { return on_parts(L, n, rf_b_isinf, rf_b_or); }
static rf_status isfinite_rule(rf_lowering *L, const rf_node *n) { return on_parts(L, n, rf_b_isfinite, rf_b_and); }

const rf_rule_entry rf_rules_compare[] = {
    {"aten.eq.Tensor", eq, 0},
    {"aten.eq.Scalar", eq, 0},
    {"aten.ne.Tensor", ne, 0},
    {"aten.ne.Scalar", ne, 0},
    {"aten.isnan.default", isnan_rule, 0},
    {"aten.isinf.default", isinf_rule, 0},
    {"aten.isfinite.default", isfinite_rule, 0},
    {"aten.logical_not.default", rf_lower_on_truth, 0},
    {"aten.logical_and.default", rf_lower_on_truth, 0},
    {"aten.logical_or.default", rf_lower_on_truth, 0},
    {"aten.logical_xor.default", rf_lower_on_truth, 0},
    {"aten.any.default", rf_lower_on_truth, 0},
    {"aten.any.dim", rf_lower_on_truth, 0},
    {"aten.any.dims", rf_lower_on_truth, 0},
    {"aten.all.default", rf_lower_on_truth, 0},
    {"aten.all.dim", rf_lower_on_truth, 0},
    {"aten.all.dims", rf_lower_on_truth, 0},
    {"aten.count_nonzero.default", rf_lower_on_truth, 0},
    {"aten.count_nonzero.dim_IntList", rf_lower_on_truth, 0},
    {"aten.nonzero.default", rf_lower_on_truth, 0},
    {"aten.nonzero_static.default", rf_lower_on_truth, 0},
    {"aten.argwhere.default", rf_lower_on_truth, 0},
    {NULL, NULL, 0},
};
