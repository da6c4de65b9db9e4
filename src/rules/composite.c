/* The products torch.export keeps whole (CompositeImplicit ops that make_fx and aot_autograd decompose first):
 * linear, bilinear, tensordot, inner and linalg_multi_dot. Each is its decomposition in torch's own order of
 * products (aten/src/ATen/native/Linear.cpp, LinearAlgebra.cpp), with every complex matrix product made by
 * rf_cx_matmul: one real matmul on the packed layout, or two when an operand is known real. */
#include <stdint.h>
#include <string.h>

#include "cxmath/cxmath.h"
#include "lower/realops.h"
#include "rules/family.h"
#include "rules/linalg_packed.h"
#include "rules/rules.h"

#define MAX_DIMS 16
#define MAX_CHAIN 32

/* Both parts as tensors (a known imaginary part that is no tensor made one), or im_zero. */
static rf_cx parts(rf_lowering *L, rf_cx z) {
    if (!z.im_zero && !z.im.v && z.re.v) z.im = rf_val(rf_cx_im_value(L, z));
    return z;
}

static rf_cx operand(rf_lowering *L, const rf_node *n, const char *name) {
    return parts(L, rf_in_cx(L, n, name, rf_work_dtype(L, n)));
}

static int is_tensor(rf_cx z) { return z.re.v && z.re.v->rank >= 0 && (z.im_zero || z.im.v); }

static rf_cx cx_map(rf_lowering *L, rf_cx z, rf_value *(*f)(rf_lowering *, rf_value *, int64_t), int64_t d) {
    return z.im_zero ? rf_cx_real(rf_val(f(L, z.re.v, d))) : rf_cx_values(f(L, z.re.v, d), f(L, z.im.v, d));
}
static rf_cx cx_unsqueeze(rf_lowering *L, rf_cx z, int64_t d) { return cx_map(L, z, rf_b_unsqueeze, d); }
static rf_cx cx_squeeze(rf_lowering *L, rf_cx z, int64_t d) { return cx_map(L, z, rf_b_squeeze, d); }

static rf_cx cx_flatten(rf_lowering *L, rf_cx z, int64_t s, int64_t e) {
    if (z.im_zero) return rf_cx_real(rf_val(rf_b_flatten(L, z.re.v, s, e)));
    return rf_cx_values(rf_b_flatten(L, z.re.v, s, e), rf_b_flatten(L, z.im.v, s, e));
}
static rf_cx cx_unflatten(rf_lowering *L, rf_cx z, int64_t d, size_t k, const int64_t *sizes) {
    if (z.im_zero) return rf_cx_real(rf_val(rf_b_unflatten(L, z.re.v, d, k, sizes)));
    return rf_cx_values(rf_b_unflatten(L, z.re.v, d, k, sizes), rf_b_unflatten(L, z.im.v, d, k, sizes));
}
static rf_cx cx_permute(rf_lowering *L, rf_cx z, size_t k, const int64_t *perm) {
    if (z.im_zero) return rf_cx_real(rf_val(rf_b_permute(L, z.re.v, k, perm)));
    return rf_cx_values(rf_b_permute(L, z.re.v, k, perm), rf_b_permute(L, z.im.v, k, perm));
}
static rf_cx cx_transpose(rf_lowering *L, rf_cx z) {
    if (z.re.v->rank < 2) return z;
    if (z.im_zero) return rf_cx_real(rf_val(rf_b_transpose(L, z.re.v, -2, -1)));
    return rf_cx_values(rf_b_transpose(L, z.re.v, -2, -1), rf_b_transpose(L, z.im.v, -2, -1));
}

/* The static sizes of dims [from, from + k) of v; 0 with L failed when one is symbolic. */
static int static_sizes(rf_lowering *L, const rf_node *n, const rf_value *v, const int64_t *dims, size_t k,
                        int64_t *out) {
    for (size_t i = 0; i < k; i++) {
        if (v->dims[dims[i]].sym)
            return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s on complex values needs static sizes", n->op), 0;
        out[i] = v->dims[dims[i]].size;
    }
    return 1;
}

/* linear(x, W, b) = x @ W^T + b (addmm for a 2-d x, matmul otherwise). */
static rf_status linear(rf_lowering *L, const rf_node *n) {
    rf_cx x = operand(L, n, "input"), w = operand(L, n, "weight");
    RF_CHECK(L);
    if (!is_tensor(x) || !is_tensor(w)) return rf_fail(L, n, RF_ERR_INVALID, "linear needs tensor operands");
    rf_cx y = rf_cx_matmul(L, x, cx_transpose(L, w));
    const rf_attr *b = rf_node_arg(n, "bias");
    if (b && b->kind != RF_A_NONE) y = rf_cx_add(L, y, operand(L, n, "bias"));
    return rf_publish_cx(L, n, y);
}

/* z as a matrix: dims [0, split) the rows, [split, rank) the columns (a missing side is a dim of 1). */
static rf_cx as_matrix(rf_lowering *L, rf_cx z, int split) {
    int rank = z.re.v->rank;
    if (split == rank) z = cx_unsqueeze(L, z, -1);
    else if (rank - split > 1) z = cx_flatten(L, z, split, rank - 1);
    if (split == 0) z = cx_unsqueeze(L, z, 0);
    else if (split > 1) z = cx_flatten(L, z, 0, split - 1);
    return z;
}

/* tensordot(a, b, dims_a, dims_b): a's free dims then its contracted ones, b's contracted then free, one matrix
 * product, and the free dims back (torch's at::tensordot). */
static rf_cx cx_sum_keep(rf_lowering *L, rf_cx z, int64_t d) {
    if (z.im_zero) return rf_cx_real(rf_val(rf_b_reduce(L, "aten.sum.dim_IntList", z.re.v, 1, &d, 1)));
    return rf_cx_values(rf_b_reduce(L, "aten.sum.dim_IntList", z.re.v, 1, &d, 1),
                        rf_b_reduce(L, "aten.sum.dim_IntList", z.im.v, 1, &d, 1));
}

static rf_cx contract(rf_lowering *L, const rf_node *n, rf_cx a, rf_cx b, size_t k, const int64_t *ca,
                      const int64_t *cb) {
    for (size_t i = 0; i < k; i++) { /* a contracted dim of size 1 against a longer one: the other summed first */
        const rf_dim *da = &a.re.v->dims[ca[i]], *db = &b.re.v->dims[cb[i]];
        if (!db->sym && db->size == 1 && (da->sym || da->size != 1)) a = cx_sum_keep(L, a, ca[i]);
        else if (!da->sym && da->size == 1 && (db->sym || db->size != 1)) b = cx_sum_keep(L, b, cb[i]);
    }
    int ra = a.re.v->rank, rb = b.re.v->rank;
    int64_t pa[MAX_DIMS], pb[MAX_DIMS], fa_sizes[MAX_DIMS], fb_sizes[MAX_DIMS];
    int used_a[MAX_DIMS] = {0}, used_b[MAX_DIMS] = {0};
    size_t fa = 0, fb = 0;
    for (size_t i = 0; i < k; i++) used_a[ca[i]] = used_b[cb[i]] = 1;
    for (int i = 0; i < ra; i++)
        if (!used_a[i]) pa[fa++] = i;
    for (size_t i = 0; i < k; i++) pa[fa + i] = ca[i];
    for (size_t i = 0; i < k; i++) pb[i] = cb[i];
    for (int i = 0; i < rb; i++)
        if (!used_b[i]) pb[k + fb++] = i;
    if ((fa > 1 && !static_sizes(L, n, a.re.v, pa, fa, fa_sizes)) ||
        (fb > 1 && !static_sizes(L, n, b.re.v, pb + k, fb, fb_sizes)))
        return rf_cx_real(rf_num(0));
    rf_cx am = as_matrix(L, cx_permute(L, a, (size_t)ra, pa), (int)fa);
    rf_cx bm = as_matrix(L, cx_permute(L, b, (size_t)rb, pb), (int)k);
    rf_cx r = rf_cx_matmul(L, am, bm);
    if (fb == 0) r = cx_squeeze(L, r, 1);
    else if (fb > 1) r = cx_unflatten(L, r, 1, fb, fb_sizes);
    if (fa == 0) r = cx_squeeze(L, r, 0);
    else if (fa > 1) r = cx_unflatten(L, r, 0, fa, fa_sizes);
    return r;
}

static int dims_of(rf_lowering *L, const rf_node *n, const char *name, int rank, int64_t *out) {
    int k = rf_int_list(rf_node_arg(n, name), out, MAX_DIMS);
    if (k < 0) return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: '%s' must be static ints", n->op, name), -1;
    int seen[MAX_DIMS] = {0};
    for (int i = 0; i < k; i++) {
        if (out[i] < 0) out[i] += rank;
        if (out[i] < 0 || out[i] >= rank || seen[out[i]]++)
            return rf_fail(L, n, RF_ERR_INVALID, "%s: dim %lld of '%s' out of range or repeated", n->op,
                           (long long)out[i], name), -1;
    }
    return k;
}

static int rank_ok(rf_lowering *L, const rf_node *n, rf_cx z) {
    if (!is_tensor(z)) return rf_fail(L, n, RF_ERR_INVALID, "%s needs tensor operands", n->op), 0;
    if (z.re.v->rank > MAX_DIMS) return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: rank above %d", n->op, MAX_DIMS), 0;
    return 1;
}

static rf_status tensordot(rf_lowering *L, const rf_node *n) {
    rf_cx a = operand(L, n, "self"), b = operand(L, n, "other");
    RF_CHECK(L);
    if (!rank_ok(L, n, a) || !rank_ok(L, n, b)) return rf_status_of(L);
    int64_t ca[MAX_DIMS], cb[MAX_DIMS];
    int ka = dims_of(L, n, "dims_self", a.re.v->rank, ca), kb = dims_of(L, n, "dims_other", b.re.v->rank, cb);
    RF_CHECK(L);
    if (ka != kb) return rf_fail(L, n, RF_ERR_INVALID, "tensordot: %d dims against %d", ka, kb);
    return rf_publish_cx(L, n, contract(L, n, a, b, (size_t)ka, ca, cb));
}

/* inner(a, b): a product with a scalar, else tensordot over the last dims. */
static rf_status inner(rf_lowering *L, const rf_node *n) {
    rf_cx a = operand(L, n, "self"), b = operand(L, n, "other");
    RF_CHECK(L);
    if (!rank_ok(L, n, a) || !rank_ok(L, n, b)) return rf_status_of(L);
    if (a.re.v->rank == 0 || b.re.v->rank == 0) return rf_publish_cx(L, n, rf_cx_mul_eager(L, a, b));
    int64_t ca = a.re.v->rank - 1, cb = b.re.v->rank - 1;
    return rf_publish_cx(L, n, contract(L, n, a, b, 1, &ca, &cb));
}

/* bilinear(x1, x2, W, b)[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o], as torch flattens the batch:
 * (x1 @ W as [I, O*J]) viewed [N, O, J], times x2 as a column. */
static rf_status bilinear(rf_lowering *L, const rf_node *n) {
    rf_cx x1 = operand(L, n, "input1"), x2 = operand(L, n, "input2"), w = operand(L, n, "weight");
    RF_CHECK(L);
    if (!rank_ok(L, n, x1) || !rank_ok(L, n, x2) || !rank_ok(L, n, w)) return rf_status_of(L);
    int rank = x1.re.v->rank;
    if (rank < 1 || x2.re.v->rank != rank || w.re.v->rank != 3)
        return rf_fail(L, n, RF_ERR_INVALID, "bilinear: inputs of ranks %d and %d, weight of rank %d", rank,
                       x2.re.v->rank, w.re.v->rank);
    int64_t wd[3] = {0, 1, 2}, ws[3], batch[MAX_DIMS], bd[MAX_DIMS];
    for (int i = 0; i < rank - 1; i++) bd[i] = i;
    if (!static_sizes(L, n, w.re.v, wd, 3, ws) || (rank > 2 && !static_sizes(L, n, x1.re.v, bd, rank - 1, batch)))
        return rf_status_of(L);
    if (rank == 1) {
        x1 = cx_unsqueeze(L, x1, 0);
        x2 = cx_unsqueeze(L, x2, 0);
    } else if (rank > 2) {
        x1 = cx_flatten(L, x1, 0, rank - 2);
        x2 = cx_flatten(L, x2, 0, rank - 2);
    }
    int64_t perm[3] = {1, 0, 2}, oj[2] = {ws[0], ws[2]};
    rf_cx wm = cx_flatten(L, cx_permute(L, w, 3, perm), 1, 2);              /* [I, O*J] */
    rf_cx t = cx_unflatten(L, rf_cx_matmul(L, x1, wm), -1, 2, oj);          /* [N, O, J] */
    rf_cx y = cx_squeeze(L, rf_cx_matmul(L, t, cx_unsqueeze(L, x2, -1)), -1); /* [N, O] */
    if (rank == 1) y = cx_squeeze(L, y, 0);
    else if (rank > 2) y = cx_unflatten(L, y, 0, (size_t)(rank - 1), batch);
    const rf_attr *b = rf_node_arg(n, "bias");
    if (b && b->kind != RF_A_NONE) y = rf_cx_add(L, y, operand(L, n, "bias"));
    return rf_publish_cx(L, n, y);
}

/* The product of ms[i..j] in the order order[i][j] chose (the split after which the two halves meet). */
static rf_cx chain(rf_lowering *L, const rf_cx *ms, int order[MAX_CHAIN][MAX_CHAIN], int i, int j) {
    if (i == j) return ms[i];
    int k = order[i][j];
    return rf_cx_matmul(L, chain(L, ms, order, i, k), chain(L, ms, order, k + 1, j));
}

/* linalg_multi_dot: a 1-d first operand is a row, a 1-d last one a column; the order is torch's (three matrices
 * by comparing the two costs, more by the dynamic program of matrix_chain_order; left to right where a size is
 * symbolic). */
static rf_status multi_dot(rf_lowering *L, const rf_node *n) {
    const rf_attr *list = rf_node_arg(n, "tensors");
    if (!list || list->kind != RF_A_LIST || list->n < 2)
        return rf_fail(L, n, RF_ERR_INVALID, "multi_dot expects a list of at least two tensors");
    if (list->n > MAX_CHAIN) return rf_fail(L, n, RF_ERR_UNSUPPORTED, "multi_dot of more than %d", MAX_CHAIN);
    int count = (int)list->n;
    rf_cx ms[MAX_CHAIN];
    rf_dtype dt = rf_work_dtype(L, n);
    for (int i = 0; i < count; i++) {
        if (list->items[i].kind != RF_A_VALUE) return rf_fail(L, n, RF_ERR_INVALID, "multi_dot: operand %d", i);
        ms[i] = parts(L, rf_cx_of(L, list->items[i].value, dt));
        RF_CHECK(L);
        if (!is_tensor(ms[i])) return rf_fail(L, n, RF_ERR_INVALID, "multi_dot: operand %d", i);
    }
    int row = ms[0].re.v->rank == 1, col = ms[count - 1].re.v->rank == 1;
    if (row) ms[0] = cx_unsqueeze(L, ms[0], 0);
    if (col) ms[count - 1] = cx_unsqueeze(L, ms[count - 1], -1);
    int64_t p[MAX_CHAIN + 1];
    int known = 1;
    for (int i = 0; i < count; i++) {
        const rf_value *v = ms[i].re.v;
        if (!v || v->rank != 2) return rf_fail(L, n, RF_ERR_INVALID, "multi_dot: operand %d is not a matrix", i);
        known &= !v->dims[0].sym && !v->dims[1].sym;
        p[i] = v->dims[0].size;
        p[i + 1] = v->dims[1].size;
    }
    int order[MAX_CHAIN][MAX_CHAIN];
    int64_t cost[MAX_CHAIN][MAX_CHAIN];
    for (int i = 0; i < count; i++) cost[i][i] = 0;
    for (int len = 1; len < count; len++)
        for (int i = 0; i + len < count; i++) {
            int j = i + len;
            order[i][j] = j - 1; /* left to right */
            cost[i][j] = INT64_MAX;
            for (int k = i; k < j && known; k++) {
                int64_t c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
                if (c < cost[i][j]) cost[i][j] = c, order[i][j] = k;
            }
        }
    if (count == 3 && known) { /* torch: (A B) C unless it costs more than A (B C) */
        int64_t c1 = p[0] * p[2] * (p[1] + p[3]), c2 = p[1] * p[3] * (p[0] + p[2]);
        order[0][2] = c1 > c2 ? 0 : 1;
        order[1][2] = 1;
        order[0][1] = 0;
    }
    rf_cx r = chain(L, ms, order, 0, count - 1);
    if (col) r = cx_squeeze(L, r, -1);
    if (row) r = cx_squeeze(L, r, 0);
    return rf_publish_cx(L, n, r);
}

const rf_rule_entry rf_rules_composite[] = {
    {"aten.linear.default", linear, 0},
    {"aten.bilinear.default", bilinear, 0},
    {"aten.tensordot.default", tensordot, 0},
    {"aten.inner.default", inner, 0},
    {"aten.linalg_multi_dot.default", multi_dot, 0},
    {NULL, NULL, 0},
};
