/* Real-op builders beyond lower.h: where, comparisons, logic, predicates,
 * binary functions and a few structural ops, each with its output shape. */
#include "lower/realops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A value-shaped template carrying only rank and dims, for rf_b_node. */
static rf_value shape_of(int rank, rf_dim *dims) {
    rf_value v;
    memset(&v, 0, sizeof v);
    v.rank = rank;
    v.dims = dims;
    return v;
}

static rf_value broadcast_shape(rf_lowering *L, size_t n, const rf_rv *xs) {
    int r = 0;
    for (size_t k = 0; k < n; k++) {
        if (!xs[k].v) continue;
        if (xs[k].v->rank < 0) return shape_of(-1, NULL);
        if (xs[k].v->rank > r) r = xs[k].v->rank;
    }
    rf_dim *d = rf_alloc(rf_out_graph(L), (size_t)(r ? r : 1) * sizeof(rf_dim));
    for (int i = 0; i < r; i++) {
        int set = 0;
        for (size_t k = 0; k < n; k++) {
            const rf_value *v = xs[k].v;
            if (!v) continue;
            int j = i - (r - v->rank);
            if (j < 0) continue;
            const rf_dim *dj = &v->dims[j];
            if (!set || (!d[i].sym && d[i].size == 1)) {
                d[i] = *dj;
                set = 1;
            }
        }
        if (!set) d[i].size = 1, d[i].sym = NULL;
    }
    return shape_of(r, d);
}

rf_dtype rf_rv_dtype(rf_rv x, rf_dtype dflt) { return x.v ? x.v->dtype : dflt; }

rf_value *rf_b_ew(rf_lowering *L, const char *op, size_t n, const char *const *names, const rf_rv *xs, rf_dtype dt) {
    rf_arg args[8];
    if (n > 8) {
        rf_fail(L, NULL, RF_ERR_INVALID, "%s: too many operands", op);
        return NULL;
    }
    rf_dtype first = RF_DT_COUNT;
    for (size_t k = 0; k < n; k++) {
        args[k].name = names[k];
        args[k].attr = xs[k].v ? rf_attr_ref(xs[k].v) : rf_attr_float(xs[k].s);
        if (xs[k].v && first == RF_DT_COUNT) first = xs[k].v->dtype;
    }
    if (first == RF_DT_COUNT) {
        rf_fail(L, NULL, RF_ERR_INVALID, "%s needs a tensor operand", op);
        return NULL;
    }
    rf_value like = broadcast_shape(L, n, xs);
    const rf_value *likes[1] = {&like};
    return rf_b_node(L, op, n, args, 1, likes, dt == RF_DT_COUNT ? first : dt, "_t")->outs[0];
}

rf_value *rf_b_scalar_tensor(rf_lowering *L, double s, rf_dtype dt) {
    /* torch.onnx writes scalar_tensor(-0.0) as a +0 constant: graph runtimes get -0 as the negation of +0 */
    if (s == 0.0 && signbit(s) && rf_graph_runtime(L))
        return rf_b_unary(L, "aten.neg.default", rf_b_scalar_tensor(L, 0.0, dt));
    rf_attr d = {0};
    d.kind = RF_A_DTYPE;
    d.dtype = dt;
    rf_arg args[2] = {{"s", rf_attr_float(s)}, {"dtype", d}};
    rf_value like = shape_of(0, NULL);
    const rf_value *likes[1] = {&like};
    return rf_b_node(L, "aten.scalar_tensor.default", 2, args, 1, likes, dt, "_c")->outs[0];
}

rf_value *rf_b_tensor_of(rf_lowering *L, rf_rv x, rf_dtype dt) { return x.v ? x.v : rf_b_scalar_tensor(L, x.s, dt); }

rf_rv rf_b_where(rf_lowering *L, rf_value *cond, rf_rv x, rf_rv y) {
    rf_dtype dt = x.v ? x.v->dtype : y.v ? y.v->dtype : RF_DT_F32;
    if (!x.v && !y.v) {
        if ((x.s == y.s && signbit(x.s) == signbit(y.s)) || (isnan(x.s) && isnan(y.s))) return x;
        dt = RF_DT_F32;
    }
    /* ONNX Runtime 1.32's Where gives +0 where it selects a -0 from its first branch: for graph runtimes a
     * tensor against a scalar goes second, so its zero signs survive */
    if (x.v && !y.v && rf_graph_runtime(L)) {
        rf_rv t = x;
        x = y;
        y = t;
        cond = rf_b_not(L, cond);
    }
    const char *names[3] = {"condition", "self", "other"};
    rf_rv xs[3] = {rf_val(cond), rf_val(rf_b_tensor_of(L, x, dt)), rf_val(rf_b_tensor_of(L, y, dt))};
    return rf_val(rf_b_ew(L, "aten.where.self", 3, names, xs, dt));
}

static const char *swap_cmp(const char *c) {
    if (strcmp(c, "lt") == 0) return "gt";
    if (strcmp(c, "gt") == 0) return "lt";
    if (strcmp(c, "le") == 0) return "ge";
    if (strcmp(c, "ge") == 0) return "le";
    return c;
}

rf_value *rf_b_cmp(rf_lowering *L, const char *cmp, rf_rv x, rf_rv y) {
    if (!x.v) {
        rf_rv t = x;
        x = y;
        y = t;
        cmp = swap_cmp(cmp);
    }
    if (!x.v) {
        rf_fail(L, NULL, RF_ERR_INVALID, "comparison of two scalars");
        return NULL;
    }
    char op[40];
    snprintf(op, sizeof op, "aten.%s.%s", cmp, y.v ? "Tensor" : "Scalar");
    const char *names[2] = {"self", "other"};
    rf_rv xs[2] = {x, y};
    return rf_b_ew(L, op, 2, names, xs, RF_DT_BOOL);
}

static rf_value *logic2(rf_lowering *L, const char *op, rf_value *a, rf_value *b) {
    const char *names[2] = {"self", "other"};
    rf_rv xs[2] = {rf_val(a), rf_val(b)};
    return rf_b_ew(L, op, 2, names, xs, RF_DT_BOOL);
}

rf_value *rf_b_and(rf_lowering *L, rf_value *a, rf_value *b) { return logic2(L, "aten.logical_and.default", a, b); }
rf_value *rf_b_or(rf_lowering *L, rf_value *a, rf_value *b) { return logic2(L, "aten.logical_or.default", a, b); }

static rf_value *pred1(rf_lowering *L, const char *op, rf_rv x) {
    const char *names[1] = {"self"};
    rf_rv xs[1] = {rf_val(rf_b_tensor_of(L, x, RF_DT_F64))};
    return rf_b_ew(L, op, 1, names, xs, RF_DT_BOOL);
}

rf_value *rf_b_not(rf_lowering *L, rf_value *a) { return pred1(L, "aten.logical_not.default", rf_val(a)); }
rf_value *rf_b_isnan(rf_lowering *L, rf_rv x) { return pred1(L, "aten.isnan.default", x); }
/* |x| == inf and |x| < inf rather than isinf/isfinite: Core ML has no isinf and
 * Torch-TensorRT no isfinite converter, while abs and comparisons are everywhere. */
static rf_value *abs_cmp_inf(rf_lowering *L, const char *cmp, rf_rv x) {
    rf_value *ax = rf_b_unary(L, "aten.abs.default", rf_b_tensor_of(L, x, RF_DT_F64));
    return rf_b_cmp(L, cmp, rf_val(ax), rf_num(INFINITY));
}
/* For graph runtimes, one IsInf node instead of Abs and Equal (ONNX's IsInf takes float and double only). */
rf_value *rf_b_isinf(rf_lowering *L, rf_rv x) {
    if (rf_graph_runtime(L) && x.v && (x.v->dtype == RF_DT_F32 || x.v->dtype == RF_DT_F64))
        return pred1(L, "aten.isinf.default", x);
    return abs_cmp_inf(L, "eq", x);
}
rf_value *rf_b_isfinite(rf_lowering *L, rf_rv x) { return abs_cmp_inf(L, "lt", x); }

rf_value *rf_b_signbit(rf_lowering *L, rf_value *x) {
    rf_value *lt = rf_b_cmp(L, "lt", rf_val(x), rf_num(0.0));
    rf_value *inv = rf_b_unary(L, "aten.reciprocal.default", x);
    return rf_b_or(L, lt, rf_b_cmp(L, "lt", rf_val(inv), rf_num(0.0)));
}

/* sqrt(x^2 + y^2) without aten.hypot, which torch.onnx, OpenVINO, ExecuTorch,
 * Core ML and Torch-TensorRT lack: m sqrt(1 + (n/m)^2) with m = max(|x|,|y|),
 * n = min(|x|,|y|) cannot overflow or underflow where the result does not.
 * Then hypot's special values: 0 for m == 0 (n/m is NaN there), +inf when
 * either part is infinite, even if the other is NaN; NaN otherwise propagates
 * through maximum/minimum. */
/* hypot for graph runtimes, with one where: ONNX Runtime 1.32 runs Where 5-12x slower than other elementwise
 * ops (531 us against 45 for 65536 floats when both branches are tensors), and the form below had three. The
 * scaled form throughout (within 2 ulp of the plain one, which the extremes cannot use), its m == 0 case by
 * dividing by m + (m == 0) instead of a where, and hypot's inf-beats-nan case by the one where. */
static rf_rv hypot_one_where(rf_lowering *L, rf_rv ax, rf_rv ay) {
    /* Max and Min as the runtime has them (OpenVINO drops a NaN first operand); NaN comes back below as
     * ax * 0 + ay * 0, which is 0 for finite parts and NaN otherwise (the infinite case is the where's) */
    rf_rv m = rf_b_fn2_node(L, "aten.maximum.default", ax, ay);
    rf_rv n = rf_b_fn2_node(L, "aten.minimum.default", ax, ay);
    rf_value *zero = rf_b_cmp(L, "eq", m, rf_num(0.0));
    rf_rv denom = rf_b_add(L, m, rf_val(rf_b_cast(L, zero, rf_rv_dtype(m, RF_DT_F32))));
    rf_rv q = rf_b_div(L, n, denom);
    rf_rv r = rf_b_mul(L, m, rf_b_fn(L, "aten.sqrt.default", rf_b_add(L, rf_b_mul(L, q, q), rf_num(1.0))));
    rf_rv ax0 = rf_b_mul(L, ax, rf_num(0.0)); /* one op per statement: a fixed emitted order */
    r = rf_b_add(L, r, rf_b_add(L, ax0, rf_b_mul(L, ay, rf_num(0.0))));
    rf_value *ax_inf = rf_b_cmp(L, "eq", ax, rf_num(INFINITY));
    rf_value *inf = rf_b_or(L, ax_inf, rf_b_cmp(L, "eq", ay, rf_num(INFINITY)));
    return rf_b_where(L, inf, rf_num(INFINITY), r);
}

rf_rv rf_b_hypot(rf_lowering *L, rf_rv x, rf_rv y) {
    if (!x.v && !y.v) return rf_num(hypot(x.s, y.s));
    rf_rv ax = rf_b_abs(L, x), ay = rf_b_abs(L, y);
    if (x.v && y.v && rf_graph_runtime(L)) return hypot_one_where(L, ax, ay);
    rf_rv m = rf_b_fn2(L, "aten.maximum.default", ax, ay);
    rf_rv n = rf_b_fn2(L, "aten.minimum.default", ax, ay);
    rf_rv q = rf_b_div(L, n, m);
    rf_rv r = rf_b_mul(L, m, rf_b_fn(L, "aten.sqrt.default", rf_b_add(L, rf_b_mul(L, q, q), rf_num(1.0))));
    /* Where the squares neither overflow nor underflow, sqrt(x^2 + y^2) is the more accurate form (one
     * rounding fewer): the scaled one is for the extremes (float16's squares leave its range sooner). */
    int half = rf_rv_dtype(ax, RF_DT_F32) == RF_DT_F16;
    double lo = half ? 1e-2 : 1e-18, hi = half ? 1e2 : 1e18;
    rf_rv plain = rf_b_fn(L, "aten.sqrt.default", rf_b_add(L, rf_b_mul(L, ax, ax), rf_b_mul(L, ay, ay)));
    rf_value *safe = rf_b_and(L, rf_b_cmp(L, "gt", m, rf_num(lo)), rf_b_cmp(L, "lt", m, rf_num(hi)));
    r = rf_b_where(L, safe, plain, r);
    r = rf_b_where(L, rf_b_cmp(L, "eq", m, rf_num(0.0)), rf_num(0.0), r);
    rf_value *xinf = rf_b_cmp(L, "eq", ax, rf_num(INFINITY));
    rf_value *yinf = rf_b_cmp(L, "eq", ay, rf_num(INFINITY));
    rf_value *inf = rf_b_or(L, xinf, yinf);
    return rf_b_where(L, inf, rf_num(INFINITY), r);
}

/* copysign(x, y) without aten.copysign, which torch.onnx, ExecuTorch, OpenVINO,
 * Core ML and Torch-TensorRT lack: |x| negated where y < 0 or 1/y < 0 (y = -0).
 * A NaN y counts as positive whatever its sign bit. */
rf_rv rf_b_copysign(rf_lowering *L, rf_rv x, rf_rv y) {
    if (!y.v) return x.v ? (signbit(y.s) ? rf_b_neg(L, rf_b_abs(L, x)) : rf_b_abs(L, x)) : rf_num(copysign(x.s, y.s));
    rf_value *neg = rf_b_signbit(L, y.v);
    rf_rv ax = x.v ? rf_b_abs(L, x) : rf_val(rf_b_scalar_tensor(L, fabs(x.s), y.v->dtype));
    /* two scalars would make where pick float32: both are y's dtype */
    rf_rv minus = x.v ? rf_b_neg(L, ax) : rf_val(rf_b_scalar_tensor(L, -fabs(x.s), y.v->dtype));
    /* ONNX Runtime 1.32's Where gives +0 where it selects a -0 from its first branch (a -0 from the second
     * survives): for graph runtimes the negative value is the second branch */
    if (rf_graph_runtime(L)) return rf_b_where(L, rf_b_not(L, neg), ax, minus);
    return rf_b_where(L, neg, minus, ax);
}

rf_rv rf_b_fn2(rf_lowering *L, const char *op, rf_rv x, rf_rv y) {
    /* Every hypot and copysign, whichever rule asks for it, takes the portable form. */
    if (strcmp(op, "aten.hypot.default") == 0) return rf_b_hypot(L, x, y);
    if (strcmp(op, "aten.copysign.Tensor") == 0) return rf_b_copysign(L, x, y);
    if ((x.v || y.v) && rf_graph_runtime(L)) {
        if (strcmp(op, "aten.atan2.default") == 0) return rf_b_graph_atan2(L, x, y);
        if (strcmp(op, "aten.maximum.default") == 0 || strcmp(op, "aten.minimum.default") == 0)
            return rf_b_nan_sticky_extremum(L, op, x, y);
    }
    return rf_b_fn2_node(L, op, x, y);
}

rf_rv rf_b_fn2_node(rf_lowering *L, const char *op, rf_rv x, rf_rv y) {
    rf_dtype dt = x.v ? x.v->dtype : y.v ? y.v->dtype : RF_DT_F64;
    const char *names[2] = {"self", "other"};
    rf_rv xs[2] = {rf_val(rf_b_tensor_of(L, x, dt)), rf_val(rf_b_tensor_of(L, y, dt))};
    return rf_val(rf_b_ew(L, op, 2, names, xs, dt));
}

typedef struct fold1 {
    const char *op;
    double (*fn)(double);
} fold1;

static const fold1 folds[] = {
    {"aten.exp.default", exp},   {"aten.log.default", log},     {"aten.sin.default", sin},
    {"aten.cos.default", cos},   {"aten.sinh.default", sinh},   {"aten.cosh.default", cosh},
    {"aten.sqrt.default", sqrt}, {"aten.abs.default", fabs},    {"aten.log1p.default", log1p},
    {"aten.expm1.default", expm1}, {"aten.tanh.default", tanh}, {NULL, NULL},
};

rf_rv rf_b_fn(rf_lowering *L, const char *op, rf_rv x) {
    if (!x.v) {
        for (const fold1 *f = folds; f->op; f++)
            if (strcmp(f->op, op) == 0) return rf_num(f->fn(x.s));
        x = rf_val(rf_b_scalar_tensor(L, x.s, RF_DT_F64));
    }
    return rf_val(rf_b_unary(L, op, x.v));
}

rf_rv rf_b_abs(rf_lowering *L, rf_rv x) { return rf_b_fn(L, "aten.abs.default", x); }

static int64_t norm_dim(int64_t d, int rank) { return d < 0 ? d + rank : d; }

int rf_b_dim(rf_lowering *L, const rf_value *x, int64_t dim, int extra, const char *op, int64_t *out) {
    int64_t r = x->rank + extra;
    if (x->rank >= 0 && dim >= -r && dim < r) {
        *out = dim < 0 ? dim + r : dim;
        return 1;
    }
    if (x->rank < 0) rf_fail(L, NULL, RF_ERR_UNSUPPORTED, "%s needs a known rank", op);
    else rf_fail(L, NULL, RF_ERR_INVALID, "%s: dim %lld is outside rank %d", op, (long long)dim, x->rank);
    return 0;
}

rf_value *rf_b_slice(rf_lowering *L, rf_value *x, int64_t dim, int64_t start, int64_t end) {
    int64_t d;
    if (!x || !rf_b_dim(L, x, dim, 0, "slice", &d)) return NULL;
    rf_arg args[5] = {{"self", rf_attr_ref(x)},
                      {"dim", rf_attr_int(dim)},
                      {"start", rf_attr_int(start)},
                      {"end", rf_attr_int(end)},
                      {"step", rf_attr_int(1)}};
    rf_value like = shape_of(x->rank, x->dims);
    {
        like.dims = rf_alloc(rf_out_graph(L), (size_t)x->rank * sizeof(rf_dim));
        memcpy(like.dims, x->dims, (size_t)x->rank * sizeof(rf_dim));
        if (!x->dims[d].sym) {
            int64_t n = x->dims[d].size, s = start < 0 ? start + n : start, e = end < 0 ? end + n : end;
            if (s < 0) s = 0;
            if (e > n) e = n;
            like.dims[d].size = e > s ? e - s : 0;
        }
    }
    const rf_value *likes[1] = {&like};
    return rf_b_node(L, "aten.slice.Tensor", 5, args, 1, likes, x->dtype, "_sl")->outs[0];
}

rf_value *rf_b_cat(rf_lowering *L, size_t n, rf_value *const *xs, int64_t dim) {
    for (size_t i = 0; i < n; i++)
        if (!xs[i]) return NULL;
    int64_t d;
    if (!n || !rf_b_dim(L, xs[0], dim, 0, "cat", &d)) return NULL;
    rf_attr list = rf_attr_list(rf_out_graph(L), n);
    for (size_t i = 0; i < n; i++) list.items[i] = rf_attr_ref(xs[i]);
    rf_arg args[2] = {{"tensors", list}, {"dim", rf_attr_int(dim)}};
    rf_value like = shape_of(xs[0]->rank, xs[0]->dims);
    {
        like.dims = rf_alloc(rf_out_graph(L), (size_t)xs[0]->rank * sizeof(rf_dim));
        memcpy(like.dims, xs[0]->dims, (size_t)xs[0]->rank * sizeof(rf_dim));
        int64_t total = 0;
        for (size_t i = 0; i < n; i++) {
            if (xs[i]->rank != xs[0]->rank || xs[i]->dims[d].sym) total = -1;
            if (total >= 0) total += xs[i]->dims[d].size;
        }
        if (total >= 0) like.dims[d].size = total, like.dims[d].sym = NULL;
    }
    const rf_value *likes[1] = {&like};
    return rf_b_node(L, "aten.cat.default", 2, args, 1, likes, xs[0]->dtype, "_cat")->outs[0];
}

rf_value *rf_b_pad_dim(rf_lowering *L, rf_value *x, int64_t dim, int64_t before, int64_t after, double value) {
    int64_t d;
    if (!x || !rf_b_dim(L, x, dim, 0, "constant_pad_nd", &d)) return NULL;
    if (x->rank > RF_MAX_RANK) {
        rf_fail(L, NULL, RF_ERR_UNSUPPORTED, "padding needs a rank of at most %d", RF_MAX_RANK);
        return NULL;
    }
    int64_t k = x->rank - 1 - d, pad[2 * RF_MAX_RANK] = {0};
    pad[2 * k] = before;
    pad[2 * k + 1] = after;
    rf_arg args[3] = {{"self", rf_attr_ref(x)},
                      {"pad", rf_attr_ints(rf_out_graph(L), (size_t)(2 * (k + 1)), pad)},
                      {"value", rf_attr_float(value)}};
    rf_value like = shape_of(x->rank, x->dims);
    like.dims = rf_alloc(rf_out_graph(L), (size_t)x->rank * sizeof(rf_dim));
    memcpy(like.dims, x->dims, (size_t)x->rank * sizeof(rf_dim));
    if (!like.dims[d].sym) like.dims[d].size += before + after;
    const rf_value *likes[1] = {&like};
    return rf_b_node(L, "aten.constant_pad_nd.default", 3, args, 1, likes, x->dtype, "_pad")->outs[0];
}

static rf_value reduced_shape(rf_lowering *L, const rf_value *x, size_t ndims, const int64_t *dims, int keepdim) {
    if (x->rank < 0) return shape_of(-1, NULL);
    rf_dim *d = rf_alloc(rf_out_graph(L), (size_t)(x->rank ? x->rank : 1) * sizeof(rf_dim));
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        int reduced = 0;
        for (size_t k = 0; k < ndims; k++)
            if (norm_dim(dims[k], x->rank) == i) reduced = 1;
        if (!reduced) d[r++] = x->dims[i];
        else if (keepdim) d[r].sym = NULL, d[r++].size = 1;
    }
    return shape_of(r, d);
}

rf_value *rf_b_reduce(rf_lowering *L, const char *op, rf_value *x, size_t ndims, const int64_t *dims, int keepdim) {
    rf_arg args[3] = {{"self", rf_attr_ref(x)},
                      {"dim", rf_attr_ints(rf_out_graph(L), ndims, dims)},
                      {"keepdim", rf_attr_bool(keepdim)}};
    rf_value like = reduced_shape(L, x, ndims, dims, keepdim);
    const rf_value *likes[1] = {&like};
    return rf_b_node(L, op, 3, args, 1, likes, x->dtype, "_red")->outs[0];
}

rf_value *rf_b_norm(rf_lowering *L, rf_value *x, rf_attr ord, size_t ndims, const int64_t *dims, int keepdim) {
    rf_arg args[4] = {{"self", rf_attr_ref(x)},
                      {"ord", ord},
                      {"dim", rf_attr_ints(rf_out_graph(L), ndims, dims)},
                      {"keepdim", rf_attr_bool(keepdim)}};
    rf_value like = reduced_shape(L, x, ndims, dims, keepdim);
    const rf_value *likes[1] = {&like};
    return rf_b_node(L, "aten.linalg_vector_norm.default", 4, args, 1, likes, x->dtype, "_norm")->outs[0];
}

rf_value *rf_b_squeeze_dims(rf_lowering *L, rf_value *x, size_t ndims, const int64_t *dims) {
    rf_arg args[2] = {{"self", rf_attr_ref(x)}, {"dim", rf_attr_ints(rf_out_graph(L), ndims, dims)}};
    rf_value like = reduced_shape(L, x, ndims, dims, 0);
    const rf_value *likes[1] = {&like};
    return rf_b_node(L, "aten.squeeze.dims", 2, args, 1, likes, x->dtype, "_sq")->outs[0];
}

int rf_int_list(const rf_attr *a, int64_t *out, int cap) {
    if (!a) return -1;
    if (a->kind == RF_A_INT) {
        if (cap < 1) return -1;
        out[0] = a->i;
        return 1;
    }
    if (a->kind != RF_A_LIST || a->n > (size_t)cap) return -1;
    for (size_t i = 0; i < a->n; i++) {
        if (a->items[i].kind != RF_A_INT) return -1;
        out[i] = a->items[i].i;
    }
    return (int)a->n;
}

int rf_opt_int(const rf_node *n, const char *name, int64_t *out) {
    const rf_attr *a = rf_node_arg(n, name);
    if (!a || a->kind == RF_A_NONE) return 0;
    if (a->kind != RF_A_INT) return -1;
    *out = a->i;
    return 1;
}

int rf_opt_bool(const rf_node *n, const char *name, int dflt) {
    const rf_attr *a = rf_node_arg(n, name);
    return (a && (a->kind == RF_A_BOOL || a->kind == RF_A_INT)) ? (int)a->i : dflt;
}

int rf_reduce_dims(const rf_node *n, const char *name, int rank, int64_t *out) {
    const rf_attr *a = rf_node_arg(n, name);
    int k = (a && a->kind != RF_A_NONE) ? rf_int_list(a, out, RF_MAX_RANK) : 0;
    if (k < 0 || rank < 0) return -1;
    if (k == 0) {
        for (int i = 0; i < rank; i++) out[i] = i;
        return rank;
    }
    for (int i = 0; i < k; i++) out[i] = rank ? norm_dim(out[i], rank) : 0;
    return k;
}

int64_t rf_numel(const rf_value *v) {
    if (v->rank < 0) return -1;
    int64_t n = 1;
    for (int i = 0; i < v->rank; i++) {
        if (v->dims[i].sym) return -1;
        n *= v->dims[i].size;
    }
    return n;
}
