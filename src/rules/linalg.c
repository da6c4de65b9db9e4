/* Matrix products: bilinear over the real op, (a+bi)(c+di) = (ac-bd) + (ad+bc)i. */
#include "cxmath/cxmath.h"
#include "rules/rules.h"

static rf_status product(rf_lowering *L, const rf_node *n, const char *a_name, const char *b_name) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_in_cx(L, n, a_name, w), b = rf_in_cx(L, n, b_name, w);
    rf_set_cx(L, n->outs[0], rf_cx_bilinear(L, n, a, b, a_name, b_name));
    return RF_OK;
}

static rf_status mm(rf_lowering *L, const rf_node *n) { return product(L, n, "self", "mat2"); }
static rf_status matmul(rf_lowering *L, const rf_node *n) { return product(L, n, "self", "other"); }
static rf_status mv(rf_lowering *L, const rf_node *n) { return product(L, n, "self", "vec"); }
static rf_status dot(rf_lowering *L, const rf_node *n) { return product(L, n, "self", "tensor"); }

const rf_rule_entry rf_rules_linalg[] = {
    {"aten.mm.default", mm, 0},
    {"aten.bmm.default", mm, 0},
    {"aten.matmul.default", matmul, 0},
    {"aten.mv.default", mv, 0},
    {"aten.dot.default", dot, 0},
    {NULL, NULL, 0},
};
