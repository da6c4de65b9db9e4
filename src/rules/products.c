/* Products with scaled accumulation (addmm and friends), vdot, cross,
 * the pointwise addcmul/addcdiv/lerp, and the matrix exponential. Each matrix
 * product is bilinear: (a + bi)(c + di) = (ac - bd) + (ad + bc)i over the
 * real op (einsum: rules/einsum.c). */
#include <math.h>
#include <string.h>

#include "cxmath/cxmath.h"
#include "lower/realops.h"
#include "rules/family.h"
#include "rules/linalg_packed.h"
#include "rules/rules.h"

/* A real bilinear op with its two operand names, its result shaped like `like`. */
typedef struct real_op {
    const char *op, *an, *bn;
    const rf_value *like;
} real_op;

static rf_value *real_product(rf_lowering *L, const void *ctx, rf_value *x, rf_value *y, const char *parts) {
    const real_op *p = ctx;
    rf_arg args[2] = {{p->an, rf_attr_of_value(x)}, {p->bn, rf_attr_of_value(y)}};
    const rf_value *likes[1] = {p->like};
    return rf_b_node(L, p->op, 2, args, 1, likes, x->dtype, parts)->outs[0];
}

/* The complex product op(a, b) of a real bilinear op, shaped like `like`. */
static rf_cx cx_product(rf_lowering *L, const char *op, const char *an, rf_cx a, const char *bn, rf_cx b,
                        const rf_value *like) {
    /* a known imaginary part (conj of a real operand: -0) takes part as a tensor like the real part */
    if (!a.im_zero && !a.im.v) a.im = rf_val(rf_cx_im_value(L, a));
    if (!b.im_zero && !b.im.v) b.im = rf_val(rf_cx_im_value(L, b));
    real_op p = {op, an, bn, like};
    return rf_cx_product(L, a, b, real_product, &p);
}

static int tensors(rf_cx a) { return a.re.v && (a.im_zero || a.im.v); }

/* A scalar argument as a complex operand, `dflt` when absent. */
static rf_cx scalar_arg(rf_lowering *L, const rf_node *n, const char *name, double dflt, rf_dtype w) {
    const rf_attr *a = rf_node_arg(n, name);
    if (!a || a->kind == RF_A_NONE) return rf_cx_real(rf_num(dflt));
    return rf_in_cx(L, n, name, w);
}

static int is_scalar(rf_cx s, double re) { return !s.re.v && s.re.s == re && (s.im_zero || (!s.im.v && s.im.s == 0)); }

/* beta * self + alpha * P; self is ignored when beta is 0, as in torch. */
static rf_status accumulate(rf_lowering *L, const rf_node *n, rf_cx p) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx alpha = scalar_arg(L, n, "alpha", 1.0, w), beta = scalar_arg(L, n, "beta", 1.0, w);
    if (!is_scalar(alpha, 1.0)) p = rf_cx_mul(L, p, alpha);
    if (is_scalar(beta, 0.0)) return rf_publish_cx(L, n, p);
    rf_cx self = rf_in_cx(L, n, "self", w);
    if (!is_scalar(beta, 1.0)) self = rf_cx_mul(L, self, beta);
    return rf_publish_cx(L, n, rf_cx_add(L, p, self));
}

static rf_status addmm_like(rf_lowering *L, const rf_node *n, const char *op, const char *a_arg, const char *an,
                            const char *b_arg, const char *bn) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_in_cx(L, n, a_arg, w), b = rf_in_cx(L, n, b_arg, w);
    RF_CHECK(L);
    if (!tensors(a) || !tensors(b)) return rf_fail(L, n, RF_ERR_INVALID, "%s needs tensor operands", n->op);
    return accumulate(L, n, cx_product(L, op, an, a, bn, b, n->outs[0]));
}

/* One real mm on the packed layout where it applies (linalg.c); the accumulation reads its parts. baddbmm keeps
 * four products: with the packed sum order one OpInfo sample of torch 2.15 differed from eager by 1.5e-5
 * relative, beyond complex64's 1e-5. */
static rf_status addmm(rf_lowering *L, const rf_node *n) {
    rf_packed_op mm_op = {"aten.mm.default", "self", "mat2"};
    rf_value *packed = rf_packed_matrix_product(L, n, "mat1", "mat2", &mm_op);
    if (packed) return accumulate(L, n, rf_b_unpack(L, packed));
    return addmm_like(L, n, "aten.mm.default", "mat1", "self", "mat2", "mat2");
}

static rf_status addmv(rf_lowering *L, const rf_node *n) {
    return addmm_like(L, n, "aten.mv.default", "mat", "self", "vec", "vec");
}

static rf_status baddbmm(rf_lowering *L, const rf_node *n) {
    return addmm_like(L, n, "aten.bmm.default", "batch1", "self", "batch2", "mat2");
}

static rf_status addr(rf_lowering *L, const rf_node *n) {
    return addmm_like(L, n, "aten.outer.default", "vec1", "self", "vec2", "vec2");
}

/* addbmm: the batched products summed over the batch. */
static rf_status addbmm(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_in_cx(L, n, "batch1", w), b = rf_in_cx(L, n, "batch2", w);
    RF_CHECK(L);
    if (!tensors(a) || !tensors(b) || a.re.v->rank != 3 || b.re.v->rank != 3)
        return rf_fail(L, n, RF_ERR_INVALID, "addbmm needs 3-d tensors");
    rf_dim dims[3] = {a.re.v->dims[0], a.re.v->dims[1], b.re.v->dims[2]};
    rf_value like;
    memset(&like, 0, sizeof like);
    like.rank = 3;
    like.dims = dims;
    rf_cx p = cx_product(L, "aten.bmm.default", "self", a, "mat2", b, &like);
    int64_t d0[1] = {0};
    p.re = rf_val(rf_b_reduce(L, "aten.sum.dim_IntList", p.re.v, 1, d0, 0));
    if (!p.im_zero) p.im = rf_val(rf_b_reduce(L, "aten.sum.dim_IntList", p.im.v, 1, d0, 0));
    return accumulate(L, n, p);
}

/* vdot(a, b) = dot(conj(a), b) */
static rf_status vdot(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_in_cx(L, n, "self", w), b = rf_in_cx(L, n, "other", w);
    RF_CHECK(L);
    if (!tensors(a) || !tensors(b)) return rf_fail(L, n, RF_ERR_INVALID, "vdot needs tensor operands");
    return rf_publish_cx(L, n, cx_product(L, "aten.dot.default", "self", rf_cx_conj(L, a), "tensor", b, n->outs[0]));
}

static rf_status cross(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_in_cx(L, n, "self", w), b = rf_in_cx(L, n, "other", w);
    RF_CHECK(L);
    return rf_publish_cx(L, n, rf_cx_bilinear(L, n, a, b, "self", "other"));
}

/* addcmul: self + value * t1 * t2; addcdiv: self + value * t1 / t2 (c10 division). */
static rf_status addc(rf_lowering *L, const rf_node *n, int divide) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx self = rf_in_cx(L, n, "self", w), t1 = rf_in_cx(L, n, "tensor1", w), t2 = rf_in_cx(L, n, "tensor2", w);
    rf_cx value = scalar_arg(L, n, "value", 1.0, w);
    RF_CHECK(L);
    rf_cx p = is_scalar(value, 1.0) ? t1 : rf_cx_mul(L, value, t1);
    p = divide ? rf_cx_div(L, p, t2) : rf_cx_mul(L, p, t2);
    return rf_publish_cx(L, n, rf_cx_add(L, self, p));
}

static rf_status addcmul(rf_lowering *L, const rf_node *n) { return addc(L, n, 0); }
static rf_status addcdiv(rf_lowering *L, const rf_node *n) { return addc(L, n, 1); }

/* torch's lerp: |w| < 0.5 ? self + w (end - self) : end - (end - self)(1 - w) */
static rf_status lerp(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx self = rf_in_cx(L, n, "self", w), end = rf_in_cx(L, n, "end", w), wt = rf_in_cx(L, n, "weight", w);
    RF_CHECK(L);
    rf_cx diff = rf_cx_sub(L, end, self);
    rf_cx small = rf_cx_add(L, self, rf_cx_mul(L, wt, diff));
    rf_cx one_minus = rf_cx_sub(L, rf_cx_real(rf_num(1.0)), wt);
    rf_cx large = rf_cx_sub(L, end, rf_cx_mul(L, diff, one_minus));
    if (!wt.re.v && (wt.im_zero || !wt.im.v)) {
        double mag = hypot(wt.re.s, wt.im_zero ? 0.0 : wt.im.s);
        return rf_publish_cx(L, n, mag < 0.5 ? small : large);
    }
    rf_rv mag = rf_cx_abs(L, wt);
    rf_value *is_small = rf_b_cmp(L, "lt", mag, rf_num(0.5));
    rf_rv re = rf_b_where(L, is_small, small.re, large.re);
    rf_rv im = rf_b_where(L, is_small, rf_cx_im(small), rf_cx_im(large));
    return rf_publish_cx(L, n, rf_cx_make(re, im));
}

/* exp of A + iB from the real block matrix [[A, -B], [B, A]], whose
 * exponential is [[Re, -Im], [Im, Re]] of the complex one. */
static rf_status matrix_exp(rf_lowering *L, const rf_node *n) {
    rf_cx z = rf_in_cx(L, n, "self", rf_work_dtype(L, n));
    RF_CHECK(L);
    rf_value *a = z.re.v;
    if (!a || a->rank < 2 || a->dims[a->rank - 1].sym)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "complex matrix_exp needs a static matrix size");
    if (z.im_zero) {
        rf_arg arg = {"self", rf_attr_of_value(a)};
        const rf_value *like[1] = {a};
        return rf_publish_cx(L, n, rf_cx_real(rf_val(rf_b_node(L, n->op, 1, &arg, 1, like, a->dtype, "_re")->outs[0])));
    }
    int64_t k = a->dims[a->rank - 1].size;
    rf_value *b = rf_cx_im_value(L, z), *nb = rf_b_neg(L, rf_val(b)).v;
    rf_value *top_items[2] = {a, nb}, *bot_items[2] = {b, a};
    rf_value *rows[2] = {rf_b_cat(L, 2, top_items, -1), rf_b_cat(L, 2, bot_items, -1)};
    rf_value *m = rf_b_cat(L, 2, rows, -2);
    rf_arg arg = {"self", rf_attr_of_value(m)};
    const rf_value *like[1] = {m};
    rf_value *e = rf_b_node(L, n->op, 1, &arg, 1, like, m->dtype, "_blk")->outs[0];
    rf_value *left = rf_b_slice(L, e, -1, 0, k);
    rf_value *re = rf_b_slice(L, left, -2, 0, k), *im = rf_b_slice(L, left, -2, k, 2 * k);
    return rf_publish_cx(L, n, rf_cx_make(rf_val(re), rf_val(im)));
}

const rf_rule_entry rf_rules_products[] = {
    {"aten.addmm.default", addmm, 0},
    {"aten.addmv.default", addmv, 0},
    {"aten.baddbmm.default", baddbmm, 0},
    {"aten.addbmm.default", addbmm, 0},
    {"aten.addr.default", addr, 0},
    {"aten.vdot.default", vdot, 0},
    {"aten.linalg_cross.default", cross, 0},
    {"aten.addcmul.default", addcmul, 0},
    {"aten.addcdiv.default", addcdiv, 0},
    {"aten.lerp.Scalar", lerp, 0},
    {"aten.lerp.Tensor", lerp, 0},
    {"aten.linalg_matrix_exp.default", matrix_exp, 0},
    {NULL, NULL, 0},
};
