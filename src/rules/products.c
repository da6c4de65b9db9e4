/* Products with scaled accumulation (addmm and friends), einsum, vdot, cross,
 * the pointwise addcmul/addcdiv/lerp, and the matrix exponential. Each matrix
 * product is bilinear: (a + bi)(c + di) = (ac - bd) + (ad + bc)i over the
 * real op; einsum is multilinear in its operands, likewise. */
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

/* einsum is multilinear: expanding every complex operand into re + i*im gives
 * one real einsum (same equation) per choice of parts; a choice with k
 * imaginary parts carries i^k. 2^c einsums for c complex operands, so c is
 * capped (torch.export keeps einsum whole before decomposition). */
#define EINSUM_MAX_COMPLEX 6

/* A letter the equation does not use, other than `avoid` (0 when none is left). */
static char free_letter(const char *eq, char avoid) {
    for (const char *c = "PQRSTUVWXYZpqrstuvwxyzABCDEFGHIJKLMNO"; *c; c++)
        if (*c != avoid && !strchr(eq, *c)) return *c;
    return 0;
}

/* One or two complex operands as one real einsum over parts: the first complex
 * operand a gains a part axis P (re, im); a second b gains the 2x2 real
 * embedding [[Re b, Im b], [-Im b, Re b]] over (P, Q), the output a part axis Q.
 * The same multiplies as the expansion in one node, where a graph runtime
 * (ONNX Runtime's Einsum) pays a transpose of every operand per node. Needs an
 * explicit output ("->"); 0 when it does not apply, else 1 (published). */
static int einsum_over_parts(rf_lowering *L, const rf_node *n, const char *eq, rf_cx *ops, size_t count,
                             const size_t *cx, size_t complex_count, const rf_attr *path, rf_dtype w) {
    const char *arrow = strstr(eq, "->");
    size_t len = strlen(eq);
    if (!arrow || strstr(arrow + 2, "->") || strchr(arrow, ',') || len > 4096) return 0;
    char p = free_letter(eq, 0), q = free_letter(eq, p);
    if (!p || !q) return 0;
    for (size_t j = 0; j < complex_count; j++)
        if (!ops[cx[j]].re.v || !ops[cx[j]].im.v) return 0; /* a part known only as a scalar */
    /* the new equation: each operand's subscripts, plus P after the first complex operand's, PQ (or Q for a
     * single complex operand) after the second's, and Q after the output's */
    char *out = rf_alloc(rf_out_graph(L), len + 2 * count + 4);
    size_t o = 0, operand = 0;
    for (const char *c = eq;; c++) {
        int end_operand = c == arrow || *c == ',';
        if (end_operand) {
            if (operand == cx[0]) out[o++] = complex_count == 1 ? q : p;
            if (complex_count == 2 && operand == cx[1]) {
                out[o++] = p;
                out[o++] = q;
            }
            operand++;
        }
        if (c == arrow) break;
        if (*c != ' ') out[o++] = *c;
    }
    if (operand != count) return 0;
    for (const char *c = arrow; *c; c++)
        if (*c != ' ') out[o++] = *c;
    out[o++] = q;
    out[o] = 0;
    rf_value *a = rf_b_stack2(L, ops[cx[0]].re.v, ops[cx[0]].im.v, -1), *b = NULL;
    if (complex_count == 2) {
        rf_cx y = ops[cx[1]];
        rf_value *from_re = rf_b_stack2(L, y.re.v, y.im.v, -1);
        rf_value *minus_im = rf_b_neg(L, y.im).v;
        rf_value *from_im = rf_b_stack2(L, minus_im, y.re.v, -1);
        b = rf_b_stack2(L, from_re, from_im, -2);
    }
    rf_attr items = {0};
    items.kind = RF_A_LIST;
    items.n = count;
    items.out_mark = RF_DT_COUNT;
    items.items = rf_alloc(rf_out_graph(L), count * sizeof(rf_attr));
    for (size_t i = 0; i < count; i++) items.items[i] = rf_attr_of_value(ops[i].re.v);
    items.items[cx[0]] = rf_attr_of_value(a);
    if (b) items.items[cx[1]] = rf_attr_of_value(b);
    rf_attr equation = {0};
    equation.kind = RF_A_STR;
    equation.s = out;
    rf_arg args[3] = {{"equation", equation}, {"tensors", items}, {"path", {0}}};
    size_t nargs = 2;
    if (path) args[nargs++].attr = rf_map_attr(L, path);
    const rf_value *like = n->outs[0];
    int rank = like->rank < 0 ? -1 : like->rank + 1;
    rf_dim *dims = NULL;
    if (rank > 0) {
        dims = rf_alloc(rf_out_graph(L), (size_t)rank * sizeof(rf_dim));
        memcpy(dims, like->dims, (size_t)like->rank * sizeof(rf_dim));
        dims[rank - 1] = (rf_dim){2, NULL};
    }
    rf_value *y = rf_b_op(L, "aten.einsum.default", nargs, args, w, rank, dims, "_parts");
    if (rf_status_of(L) != RF_OK || !y) return 1;
    rf_publish_cx(L, n, rf_b_unpack(L, y));
    return 1;
}

static rf_status einsum(rf_lowering *L, const rf_node *n) {
    const rf_attr *eq = rf_node_arg(n, "equation"), *list = rf_node_arg(n, "tensors");
    if (!eq || eq->kind != RF_A_STR || !list || list->kind != RF_A_LIST || !list->n)
        return rf_fail(L, n, RF_ERR_INVALID, "einsum: expected an equation and a list of tensors");
    rf_dtype w = rf_work_dtype(L, n);
    size_t count = list->n, complex_count = 0;
    rf_cx *ops = rf_alloc(rf_out_graph(L), count * sizeof(rf_cx));
    size_t *cx_index = rf_alloc(rf_out_graph(L), count * sizeof(size_t));
    for (size_t i = 0; i < count; i++) {
        if (list->items[i].kind != RF_A_VALUE) return rf_fail(L, n, RF_ERR_INVALID, "einsum: operand %zu", i);
        ops[i] = rf_cx_of(L, list->items[i].value, w);
        RF_CHECK(L);
        if (!ops[i].im_zero) cx_index[complex_count++] = i;
    }
    if (complex_count > EINSUM_MAX_COMPLEX)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "einsum with %zu complex operands (at most %d: one real einsum per "
                       "choice of real or imaginary parts)", complex_count, EINSUM_MAX_COMPLEX);
    const rf_attr *path = rf_node_arg(n, "path");
    if ((complex_count == 1 || complex_count == 2) && einsum_over_parts(L, n, eq->s, ops, count, cx_index,
                                                                        complex_count, path, w))
        return rf_status_of(L);
    rf_rv re = {0}, im = {0};
    int have_re = 0, have_im = 0;
    for (unsigned mask = 0; mask < (1u << complex_count); mask++) {
        rf_attr items = {0};
        items.kind = RF_A_LIST;
        items.n = count;
        items.out_mark = RF_DT_COUNT;
        items.items = rf_alloc(rf_out_graph(L), count * sizeof(rf_attr));
        int k = 0;
        for (size_t i = 0; i < count; i++) items.items[i] = rf_attr_of_value(ops[i].re.v);
        for (size_t j = 0; j < complex_count; j++)
            if (mask >> j & 1u) {
                items.items[cx_index[j]] = rf_attr_of_value(ops[cx_index[j]].im.v);
                k++;
            }
        rf_arg args[3] = {{"equation", rf_map_attr(L, eq)}, {"tensors", items}, {"path", {0}}};
        size_t nargs = 2;
        if (path) args[nargs++].attr = rf_map_attr(L, path);
        const rf_value *likes[1] = {n->outs[0]};
        rf_rv term = rf_val(rf_b_node(L, "aten.einsum.default", nargs, args, 1, likes, w, "_part")->outs[0]);
        int negative = (k / 2) % 2; /* i^k = +-1 (k even) or +-i (k odd) */
        rf_rv *acc = k % 2 ? &im : &re;
        int *have = k % 2 ? &have_im : &have_re;
        if (!*have) *acc = negative ? rf_b_neg(L, term) : term;
        else *acc = negative ? rf_b_sub(L, *acc, term) : rf_b_add(L, *acc, term);
        *have = 1;
    }
    RF_CHECK(L);
    return rf_publish_cx(L, n, have_im ? rf_cx_make(re, im) : rf_cx_real(re));
}

const rf_rule_entry rf_rules_products[] = {
    {"aten.einsum.default", einsum, 0},
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
