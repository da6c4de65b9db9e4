/* Matrix products: bilinear over the real op, (a+bi)(c+di) = (ac-bd) + (ad+bc)i.
 *
 * mm, bmm and matmul of matrices run as one real product on the packed layout
 * instead of four on split planes: [a_re, a_im] interleaved along k times the
 * 2x2 real embedding of b, [[b_re, b_im], [-b_im, b_re]] per element, gives the
 * result interleaved along n, which is the packed layout again. One GEMM of the
 * same flops, no plane copies around it, and the epilogue stays fusable. */
#include <string.h>

#include "cxmath/cxmath.h"
#include "lower/realops.h"
#include "rules/linalg_cx.h"
#include "rules/linalg_packed.h"
#include "rules/rules.h"

static rf_status product(rf_lowering *L, const rf_node *n, const char *a_name, const char *b_name) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_in_cx(L, n, a_name, w), b = rf_in_cx(L, n, b_name, w);
    rf_set_cx(L, n->outs[0], rf_cx_bilinear(L, n, a, b, a_name, b_name));
    return RF_OK;
}

/* [..., K, N] parts -> [..., 2K, 2N]: rows (k, re) = [re, im] and (k, im) = [-im, re] per column pair. */
static rf_value *real_embedding(rf_lowering *L, rf_value *re, rf_value *im) {
    rf_value *neg_im = rf_b_neg(L, rf_val(im)).v;
    rf_value *row_re = rf_b_stack2(L, re, im, -1), *row_im = rf_b_stack2(L, neg_im, re, -1); /* [..., K, N, 2] */
    rf_value *blocks = rf_b_stack2(L, row_re, row_im, -3);                                   /* [..., K, 2, N, 2] */
    return rf_b_flatten(L, rf_b_flatten(L, blocks, -2, -1), -3, -2);
}

/* The same product for a left operand held as parts, for graph runtimes: its parts side by side, [a_re, a_im]
 * along k ([..., M, 2K], a concat of row blocks), times [..., 2K, 2N] whose first K rows are [re, im] and last K
 * [-im, re] per column pair. The result is interleaved along n as above; the stack that would pack the left
 * operand (a per-element interleave on an innermost axis of 2, OpenVINO's reference Concat kernel, 19% of the
 * complex MLP's time) is not built. */
static rf_value *block_embedding(rf_lowering *L, rf_value *re, rf_value *im) {
    rf_value *neg_im = rf_b_neg(L, rf_val(im)).v;
    rf_value *top = rf_b_flatten(L, rf_b_stack2(L, re, im, -1), -2, -1);        /* [..., K, 2N] */
    rf_value *bottom = rf_b_flatten(L, rf_b_stack2(L, neg_im, re, -1), -2, -1); /* [..., K, 2N] */
    rf_value *rows[2] = {top, bottom};
    return (top && bottom) ? rf_b_cat(L, 2, rows, -2) : NULL;
}

/* `op` (mm, bmm or matmul) on real operands, with its argument names. */
static rf_value *real_product(rf_lowering *L, const rf_packed_op *op, rf_value *a, rf_value *b) {
    if (!a || !b) return NULL;
    if (strcmp(op->op, "aten.matmul.default") == 0) return rf_b_matmul(L, a, b); /* broadcasting batch dims */
    if (a->rank != b->rank || a->rank < 2 || a->rank > 3) return NULL; /* mm, bmm: no broadcasting */
    rf_dim dims[3];
    for (int i = 0; i < a->rank - 1; i++) dims[i] = a->dims[i];
    dims[a->rank - 1] = b->dims[b->rank - 1];
    rf_arg args[2] = {{op->a_name, rf_attr_of_value(a)}, {op->b_name, rf_attr_of_value(b)}};
    return rf_b_op(L, op->op, 2, args, a->dtype, a->rank, dims, "_mm");
}

static int matrix_operand(const rf_attr *a) {
    return rf_attr_is_tensor(a) && a->value->rank >= 2 && !a->value->dims[a->value->rank - 1].sym;
}

rf_value *rf_packed_matrix_product(rf_lowering *L, const rf_node *n, const char *a_arg, const char *b_arg,
                                   const rf_packed_op *op) {
    const rf_attr *aa = rf_node_arg(n, a_arg), *ba = rf_node_arg(n, b_arg);
    if (!matrix_operand(aa) || !matrix_operand(ba) || !rf_is_complex_arg(n, b_arg) || rf_cx_known_real(L, ba->value))
        return NULL;
    rf_dtype w = rf_work_dtype(L, n);
    int a_complex = rf_is_complex_arg(n, a_arg) && !rf_cx_known_real(L, aa->value);
    if (a_complex && rf_graph_runtime(L) && !rf_holds_packed(L, aa->value)) {
        rf_cx a = rf_cx_of(L, aa->value, w), b = rf_cx_of(L, ba->value, w);
        if (rf_status_of(L) != RF_OK) return NULL;
        if (a.re.v && a.im.v && b.re.v && b.im.v && a.re.v->dtype == w && a.im.v->dtype == w) {
            rf_value *parts[2] = {a.re.v, a.im.v};
            rf_value *side_by_side = rf_b_cat(L, 2, parts, -1);
            const rf_value *bv = ba->value;
            int64_t split[2] = {bv->dims[bv->rank - 1].size, 2};
            rf_value *y = real_product(L, op, side_by_side, block_embedding(L, b.re.v, b.im.v));
            return y ? rf_b_unflatten(L, y, -1, 2, split) : NULL;
        }
    }
    rf_value *lhs = a_complex ? rf_packed_of(L, aa->value) : rf_cx_of(L, aa->value, w).re.v;
    if (!lhs || lhs->dtype != w || rf_status_of(L) != RF_OK) return NULL;
    rf_value *rhs;
    if (a_complex) {
        rf_cx b = rf_cx_of(L, ba->value, w);
        if (!b.re.v || !b.im.v) return NULL;
        lhs = rf_b_flatten(L, lhs, -2, -1);
        rhs = real_embedding(L, b.re.v, b.im.v);
    } else {
        rhs = rf_packed_of(L, ba->value);
        if (!rhs || rhs->dtype != w) return NULL;
        rhs = rf_b_flatten(L, rhs, -2, -1);
    }
    const rf_value *bv = ba->value;
    int64_t split[2] = {bv->dims[bv->rank - 1].size, 2};
    return rf_b_unflatten(L, real_product(L, op, lhs, rhs), -1, 2, split);
}

static int part_tensors(rf_cx a) { return a.re.v && a.re.v->rank >= 1 && (a.im_zero || a.im.v); }

rf_value *rf_packed_matmul(rf_lowering *L, rf_cx a, rf_cx b) {
    if (rf_status_of(L) != RF_OK || !part_tensors(a) || !part_tensors(b) || b.im_zero || b.re.v->rank < 2 ||
        b.re.v->dims[b.re.v->rank - 1].sym)
        return NULL;
    rf_value *lhs, *rhs;
    if (!a.im_zero) {
        lhs = rf_b_flatten(L, rf_b_stack2(L, a.re.v, a.im.v, -1), -2, -1);
        rhs = real_embedding(L, b.re.v, b.im.v);
    } else {
        lhs = a.re.v;
        rhs = rf_b_flatten(L, rf_b_stack2(L, b.re.v, b.im.v, -1), -2, -1);
    }
    int64_t split[2] = {b.re.v->dims[b.re.v->rank - 1].size, 2};
    return rf_b_unflatten(L, rf_b_matmul(L, lhs, rhs), -1, 2, split);
}

rf_cx rf_cx_matmul(rf_lowering *L, rf_cx a, rf_cx b) {
    /* a known imaginary part that is no tensor (conj of a real operand: -0) takes part as one */
    if (!a.im_zero && !a.im.v) a.im = rf_val(rf_cx_im_value(L, a));
    if (!b.im_zero && !b.im.v) b.im = rf_val(rf_cx_im_value(L, b));
    if (!part_tensors(a) || !part_tensors(b)) {
        rf_fail(L, NULL, RF_ERR_INVALID, "matmul needs tensor operands of rank >= 1");
        return rf_cx_real(rf_num(0));
    }
    rf_value *packed = rf_packed_matmul(L, a, b);
    if (packed) return rf_b_unpack(L, packed);
    return rf_lx_matmul(L, a, b);
}

static rf_status matrix_product(rf_lowering *L, const rf_node *n, const char *a_name, const char *b_name) {
    rf_packed_op op = {n->op, a_name, b_name};
    rf_value *packed = rf_packed_matrix_product(L, n, a_name, b_name, &op);
    if (!packed) return product(L, n, a_name, b_name);
    rf_set_packed(L, n->outs[0], packed);
    return RF_OK;
}

static rf_status mm(rf_lowering *L, const rf_node *n) { return matrix_product(L, n, "self", "mat2"); }
static rf_status matmul(rf_lowering *L, const rf_node *n) { return matrix_product(L, n, "self", "other"); }
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
