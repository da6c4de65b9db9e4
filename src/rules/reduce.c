/* Reductions. sum and mean are real-linear: each part reduces alone. The
 * others combine the parts: prod and cumprod by complex products over a
 * static dim (a tree and a doubling scan), var and std as var(re) + var(im),
 * norms as the real norm of |z|, and the log-sum-exp family around the
 * largest real part, as torch computes it. */
#include <math.h>
#include <string.h>

#include "cxmath/cxmath.h"
#include "lower/realops.h"
#include "rules/family.h"
#include "rules/rules.h"

#define MAX_DIMS 64
#define MAX_SCAN 64 /* logcumsumexp unrolls its scan */

static rf_status publish(rf_lowering *L, const rf_value *out, rf_cx r) {
    RF_CHECK(L);
    rf_set_cx(L, out, r);
    return RF_OK;
}

static int64_t static_size(const rf_value *v, int64_t dim) {
    if (v->rank < 0) return -1;
    if (v->rank == 0) return 1;
    int64_t d = dim < 0 ? dim + v->rank : dim;
    return v->dims[d].sym ? -1 : v->dims[d].size;
}

static rf_cx cx_slice(rf_lowering *L, rf_cx z, int64_t dim, int64_t start, int64_t end) {
    rf_cx r = z;
    r.re = rf_val(rf_b_slice(L, z.re.v, dim, start, end));
    if (!z.im_zero) r.im = rf_val(rf_b_slice(L, z.im.v, dim, start, end));
    return r;
}

static rf_cx cx_cat2(rf_lowering *L, rf_cx a, rf_cx b, int64_t dim) {
    rf_value *re[2] = {a.re.v, b.re.v};
    if (a.im_zero && b.im_zero) return rf_cx_real(rf_val(rf_b_cat(L, 2, re, dim)));
    rf_value *im[2];
    im[0] = rf_cx_im_value(L, a);
    im[1] = rf_cx_im_value(L, b);
    rf_value *cre = rf_b_cat(L, 2, re, dim);
    return rf_cx_make(rf_val(cre), rf_val(rf_b_cat(L, 2, im, dim)));
}

/* The product over `dim` (of static size n), kept as a dim of size 1. */
static rf_cx prod_dim(rf_lowering *L, rf_cx z, int64_t dim, int64_t n) {
    if (n == 0) {
        int64_t d[1] = {dim};
        rf_value *s = rf_b_reduce(L, "aten.sum.dim_IntList", z.re.v, 1, d, 1);
        return rf_cx_real(rf_val(rf_b_full_like(L, s, 1.0)));
    }
    while (n > 1) {
        int64_t h = n / 2;
        rf_cx lo = cx_slice(L, z, dim, 0, h);
        rf_cx m = rf_cx_mul(L, lo, cx_slice(L, z, dim, h, 2 * h));
        if (n % 2) m = cx_cat2(L, m, cx_slice(L, z, dim, 2 * h, n), dim);
        z = m;
        n = h + n % 2;
    }
    return z;
}

static rf_cx squeeze(rf_lowering *L, rf_cx z, int64_t dim) {
    int64_t d[1] = {dim};
    z.re = rf_val(rf_b_squeeze_dims(L, z.re.v, 1, d));
    if (!z.im_zero) z.im = rf_val(rf_b_squeeze_dims(L, z.im.v, 1, d));
    return z;
}

static int bool_arg(const rf_node *n, const char *name) {
    const rf_attr *a = rf_node_arg(n, name);
    return a && (a->kind == RF_A_BOOL || a->kind == RF_A_INT) && a->i;
}

static rf_status prod_dim_rule(rf_lowering *L, const rf_node *n) {
    rf_cx z = rf_in_cx(L, n, "self", rf_work_dtype(L, n));
    const rf_attr *da = rf_node_arg(n, "dim");
    RF_CHECK(L);
    if (!z.re.v || !da || da->kind != RF_A_INT) return rf_fail(L, n, RF_ERR_INVALID, "prod needs a tensor and a dim");
    int64_t size = static_size(z.re.v, da->i);
    if (size < 0) return rf_fail(L, n, RF_ERR_UNSUPPORTED, "complex prod over a dim of symbolic size");
    int64_t dim = z.re.v->rank == 0 ? 0 : da->i;
    if (z.re.v->rank == 0) return publish(L, n->outs[0], z);
    rf_cx r = prod_dim(L, z, dim, size);
    if (!bool_arg(n, "keepdim")) r = squeeze(L, r, dim);
    return publish(L, n->outs[0], r);
}

static rf_value *reshape(rf_lowering *L, rf_value *x, int rank, const rf_dim *dims, const int64_t *sizes) {
    rf_attr list = {0};
    list.kind = RF_A_LIST;
    list.n = (size_t)rank;
    list.items = rf_alloc(rf_out_graph(L), (size_t)(rank ? rank : 1) * sizeof(rf_attr));
    for (int i = 0; i < rank; i++) list.items[i].kind = RF_A_INT, list.items[i].i = sizes[i];
    rf_arg args[2] = {{"self", rf_attr_of_value(x)}, {"shape", list}};
    rf_value like;
    memset(&like, 0, sizeof like);
    like.rank = rank;
    like.dims = (rf_dim *)dims;
    const rf_value *likes[1] = {&like};
    return rf_b_node(L, "aten.reshape.default", 2, args, 1, likes, x->dtype, "_rs")->outs[0];
}

static rf_status prod_all(rf_lowering *L, const rf_node *n) {
    rf_cx z = rf_in_cx(L, n, "self", rf_work_dtype(L, n));
    RF_CHECK(L);
    if (!z.re.v) return rf_fail(L, n, RF_ERR_INVALID, "prod needs a tensor");
    int64_t numel = rf_numel(z.re.v);
    if (numel < 0) return rf_fail(L, n, RF_ERR_UNSUPPORTED, "complex prod of a tensor of symbolic size");
    rf_dim flat = {numel, NULL};
    int64_t sz[1] = {numel};
    z.re = rf_val(reshape(L, z.re.v, 1, &flat, sz));
    if (!z.im_zero) z.im = rf_val(reshape(L, z.im.v, 1, &flat, sz));
    rf_cx r = prod_dim(L, z, 0, numel);
    r.re = rf_val(reshape(L, r.re.v, 0, NULL, NULL));
    if (!r.im_zero) r.im = rf_val(reshape(L, r.im.v, 0, NULL, NULL));
    return publish(L, n->outs[0], r);
}

/* Inclusive scan by doubling: after step s, element k holds the product of
 * elements k - 2s + 1 .. k. */
static rf_status cumprod(rf_lowering *L, const rf_node *n) {
    rf_cx z = rf_in_cx(L, n, "self", rf_work_dtype(L, n));
    const rf_attr *da = rf_node_arg(n, "dim");
    RF_CHECK(L);
    if (!z.re.v || !da || da->kind != RF_A_INT) return rf_fail(L, n, RF_ERR_INVALID, "cumprod needs a tensor and a dim");
    if (z.re.v->rank == 0) return publish(L, n->outs[0], z);
    int64_t size = static_size(z.re.v, da->i), dim = da->i;
    if (size < 0) return rf_fail(L, n, RF_ERR_UNSUPPORTED, "complex cumprod over a dim of symbolic size");
    for (int64_t s = 1; s < size; s *= 2) {
        rf_cx head = cx_slice(L, z, dim, 0, size - s);
        rf_cx shifted = rf_cx_real(rf_val(rf_b_pad_dim(L, head.re.v, dim, s, 0, 1.0)));
        if (!head.im_zero) shifted = rf_cx_make(shifted.re, rf_val(rf_b_pad_dim(L, head.im.v, dim, s, 0, 0.0)));
        z = rf_cx_mul(L, z, shifted);
    }
    return publish(L, n->outs[0], z);
}

/* The node `op` applied to one part in place of self (other args kept). */
static rf_node *on_part_node(rf_lowering *L, const rf_node *n, const char *op, rf_value *part) {
    const char *names[1] = {"self"};
    rf_attr a = rf_attr_of_value(part);
    rf_node *m = rf_b_copy_node(L, n, 1, names, &a, RF_DT_COUNT, "_p");
    m->op = rf_strdup(rf_out_graph(L), op);
    return m;
}

static rf_value *on_part(rf_lowering *L, const rf_node *n, const char *op, rf_value *part, size_t out) {
    return on_part_node(L, n, op, part)->outs[out];
}

/* var(z) = var(re) + var(im): |z - mean|^2 splits into the two parts. */
static rf_value *cx_var(rf_lowering *L, const rf_node *n, const char *var_op, rf_cx z, size_t out) {
    rf_value *v = on_part(L, n, var_op, z.re.v, out);
    if (z.im_zero) return v;
    return rf_b_add(L, rf_val(v), rf_val(on_part(L, n, var_op, z.im.v, out))).v;
}

static rf_status var_rule(rf_lowering *L, const rf_node *n) {
    rf_cx z = rf_in_cx_own(L, n, "self");
    RF_CHECK(L);
    rf_set_real(L, n->outs[0], cx_var(L, n, "aten.var.correction", z, 0));
    return rf_status_of(L);
}

static rf_status std_rule(rf_lowering *L, const rf_node *n) {
    rf_cx z = rf_in_cx_own(L, n, "self");
    RF_CHECK(L);
    rf_value *v = cx_var(L, n, "aten.var.correction", z, 0);
    rf_set_real(L, n->outs[0], rf_b_unary(L, "aten.sqrt.default", v));
    return rf_status_of(L);
}

/* var_mean and std_mean: the variance as above, the mean part by part. */
static rf_status var_mean_common(rf_lowering *L, const rf_node *n, int root) {
    rf_cx z = rf_in_cx_own(L, n, "self");
    RF_CHECK(L);
    rf_node *re = on_part_node(L, n, "aten.var_mean.correction", z.re.v);
    rf_value *v = re->outs[0];
    rf_cx mean = rf_cx_real(rf_val(re->outs[1]));
    if (!z.im_zero) {
        rf_node *im = on_part_node(L, n, "aten.var_mean.correction", z.im.v);
        v = rf_b_add(L, rf_val(v), rf_val(im->outs[0])).v;
        mean = rf_cx_make(mean.re, rf_val(im->outs[1]));
    }
    if (root) v = rf_b_unary(L, "aten.sqrt.default", v);
    rf_set_real(L, n->outs[0], v);
    return publish(L, n->outs[1], mean);
}

static rf_status var_mean(rf_lowering *L, const rf_node *n) { return var_mean_common(L, n, 0); }
static rf_status std_mean(rf_lowering *L, const rf_node *n) { return var_mean_common(L, n, 1); }

static rf_value *cx_abs(rf_lowering *L, rf_cx z) {
    rf_rv a = rf_cx_abs(L, z);
    return rf_b_materialize(L, a, z.re.v);
}

/* Norms of complex tensors are the real norms of |z|. */
static rf_status norm_of_abs(rf_lowering *L, const rf_node *n) {
    rf_cx z = rf_in_cx_own(L, n, "self");
    RF_CHECK(L);
    const char *names[1] = {"self"};
    rf_attr a = rf_attr_of_value(cx_abs(L, z));
    rf_node *m = rf_b_copy_node(L, n, 1, names, &a, RF_DT_COUNT, "");
    rf_set_real(L, n->outs[0], m->outs[0]);
    return rf_status_of(L);
}

/* dist(a, b, p) = ||a - b||_p = dist(|a - b|, 0, p) */
static rf_status dist(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_component_of(L, rf_node_arg(n, "self")->value->dtype);
    rf_cx a = rf_in_cx(L, n, "self", w), b = rf_in_cx(L, n, "other", w);
    RF_CHECK(L);
    rf_value *d = cx_abs(L, rf_cx_sub(L, a, b));
    const char *names[2] = {"self", "other"};
    rf_attr attrs[2] = {rf_attr_of_value(d), rf_attr_of_value(rf_b_scalar_tensor(L, 0.0, d->dtype))};
    rf_node *m = rf_b_copy_node(L, n, 2, names, attrs, RF_DT_COUNT, "");
    rf_set_real(L, n->outs[0], m->outs[0]);
    return rf_status_of(L);
}

/* renorm: z * where(norm > maxnorm, maxnorm / (norm + 1e-7), 1), with the
 * norm of |z| over every dim but `dim`. */
static rf_status renorm(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx z = rf_in_cx(L, n, "self", w);
    const rf_attr *p = rf_node_arg(n, "p"), *da = rf_node_arg(n, "dim"), *mx = rf_node_arg(n, "maxnorm");
    RF_CHECK(L);
    if (!z.re.v || !p || !da || !mx || da->kind != RF_A_INT || z.re.v->rank < 0 || z.re.v->rank > MAX_DIMS)
        return rf_fail(L, n, RF_ERR_INVALID, "renorm needs a tensor, p, dim and maxnorm");
    double maxnorm = mx->kind == RF_A_FLOAT ? mx->f : (double)mx->i;
    int rank = z.re.v->rank;
    int64_t keep = da->i < 0 ? da->i + rank : da->i, dims[MAX_DIMS];
    size_t nd = 0;
    for (int i = 0; i < rank; i++)
        if (i != keep) dims[nd++] = i;
    rf_value *a = cx_abs(L, z);
    rf_value *norm = rf_b_norm(L, a, rf_map_attr(L, p), nd, dims, 1);
    rf_value *big = rf_b_cmp(L, "gt", rf_val(norm), rf_num(maxnorm));
    rf_rv scale = rf_b_div(L, rf_num(maxnorm), rf_b_add(L, rf_val(norm), rf_num(1e-7)));
    rf_rv factor = rf_b_where(L, big, scale, rf_num(1.0));
    return publish(L, n->outs[0], rf_cx_scale(L, z, factor));
}

/* m = max of the real parts over dims (0 where infinite), kept as size-1 dims. */
static rf_value *real_max(rf_lowering *L, rf_cx z, size_t nd, const int64_t *dims) {
    rf_value *m = rf_b_reduce(L, "aten.amax.default", z.re.v, nd, dims, 1);
    return rf_b_where(L, rf_b_isinf(L, rf_val(m)), rf_num(0.0), rf_val(m)).v;
}

static rf_status logsumexp(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx z = rf_in_cx(L, n, "self", w);
    RF_CHECK(L);
    if (!z.re.v) return rf_fail(L, n, RF_ERR_INVALID, "logsumexp needs a tensor");
    int64_t dims[MAX_DIMS];
    int nd = rf_reduce_dims(n, "dim", z.re.v->rank, dims);
    if (nd < 0 || z.re.v->rank > MAX_DIMS) return rf_fail(L, n, RF_ERR_UNSUPPORTED, "logsumexp over symbolic dims");
    int keepdim = bool_arg(n, "keepdim");
    rf_cx s;
    rf_value *m = NULL;
    if (rf_numel(z.re.v) != 0) {
        m = real_max(L, z, (size_t)nd, dims);
        z.re = rf_b_sub(L, z.re, rf_val(m));
    }
    rf_cx e = rf_cx_exp(L, z);
    s.re = rf_val(rf_b_reduce(L, "aten.sum.dim_IntList", e.re.v, (size_t)nd, dims, keepdim));
    s.im_zero = e.im_zero;
    s.im = e.im_zero ? rf_num(0.0) : rf_val(rf_b_reduce(L, "aten.sum.dim_IntList", e.im.v, (size_t)nd, dims, keepdim));
    rf_cx r = rf_cx_log(L, s);
    if (m) {
        if (!keepdim) m = rf_b_squeeze_dims(L, m, (size_t)nd, dims);
        r.re = rf_b_add(L, r.re, rf_val(m));
    }
    return publish(L, n->outs[0], r);
}

/* logcumsumexp as torch's scan computes it: acc = logaddexp(acc, z_k), whose
 * imaginary part follows the dominant term without wrapping to (-pi, pi]. */
static rf_status logcumsumexp(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx z = rf_in_cx(L, n, "self", w);
    const rf_attr *da = rf_node_arg(n, "dim");
    RF_CHECK(L);
    if (!z.re.v || !da || da->kind != RF_A_INT) return rf_fail(L, n, RF_ERR_INVALID, "logcumsumexp needs a dim");
    if (z.re.v->rank == 0) return publish(L, n->outs[0], z);
    int64_t size = static_size(z.re.v, da->i), dim = da->i;
    if (size < 0 || size > MAX_SCAN)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "complex logcumsumexp over a dim of symbolic or large size");
    if (size == 0) return publish(L, n->outs[0], z);
    rf_value *re[MAX_SCAN], *im[MAX_SCAN];
    rf_cx acc = cx_slice(L, z, dim, 0, 1);
    for (int64_t k = 0; k < size; k++) {
        if (k) acc = rf_cx_logaddexp(L, acc, cx_slice(L, z, dim, k, k + 1));
        re[k] = acc.re.v;
        im[k] = rf_cx_im_value(L, acc);
    }
    rf_value *cre = rf_b_cat(L, (size_t)size, re, dim);
    rf_cx r = rf_cx_make(rf_val(cre), rf_val(rf_b_cat(L, (size_t)size, im, dim)));
    return publish(L, n->outs[0], r);
}

const rf_rule_entry rf_rules_reduce[] = {
    {"aten.sum.default", rf_lower_componentwise, 0},
    {"aten.sum.dim_IntList", rf_lower_componentwise, 0},
    {"aten.mean.default", rf_lower_componentwise, 0},
    {"aten.mean.dim", rf_lower_componentwise, 0},
    {"aten.cumsum.default", rf_lower_componentwise, 0},
    {"aten.prod.default", prod_all, 0},
    {"aten.prod.dim_int", prod_dim_rule, 0},
    {"aten.cumprod.default", cumprod, 0},
    {"aten.var.correction", var_rule, 0},
    {"aten.std.correction", std_rule, 0},
    {"aten.var_mean.correction", var_mean, 0},
    {"aten.std_mean.correction", std_mean, 0},
    {"aten.linalg_vector_norm.default", norm_of_abs, 0},
    {"aten.norm.Scalar", norm_of_abs, 0},
    {"aten.norm.ScalarOpt_dim", norm_of_abs, 0},
    {"aten.dist.default", dist, 0},
    {"aten.renorm.default", renorm, 0},
    {"aten.logsumexp.default", logsumexp, 0},
    {"aten.logcumsumexp.default", logcumsumexp, 0},
    {NULL, NULL, 0},
};
