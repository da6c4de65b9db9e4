/* The builder: emits real aten ops into the new graph, folding scalars where
 * that is exact, and the complex arithmetic rules are made of. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower_internal.h"
#include "lower/realops.h"

rf_rv rf_val(rf_value *v) { return (rf_rv){v, 0.0}; }
rf_rv rf_num(double s) { return (rf_rv){NULL, s}; }

static const char *hint(rf_lowering *L, const char *suffix, char *buf, size_t len) {
    const char *base = L->name_hint ? L->name_hint : (L->cur && L->cur->nouts) ? L->cur->outs[0]->name : "v";
    snprintf(buf, len, "%s%s", base, suffix);
    return buf;
}

static rf_value *new_value(rf_lowering *L, const char *suffix, rf_dtype dt, int rank, const rf_dim *dims) {
    char buf[160];
    return rf_value_new(L->out, hint(L, suffix, buf, sizeof buf), dt, rank, dims);
}

rf_node *rf_b_node(rf_lowering *L, const char *op, size_t nargs, const rf_arg *args, size_t nouts,
                   const rf_value *const *like, rf_dtype dt, const char *suffix) {
    rf_node *n = rf_node_new(L->out, op, nargs, nouts);
    for (size_t i = 0; i < nargs; i++) {
        n->args[i].name = rf_strdup(L->out, args[i].name);
        n->args[i].attr = args[i].attr;
    }
    for (size_t i = 0; i < nouts; i++) n->outs[i] = new_value(L, suffix, dt, like[i]->rank, like[i]->dims);
    rf_graph_append_node(L->out, n);
    return n;
}

/* Broadcast shape of two values (right-aligned, 1 stretches). */
static void broadcast(rf_lowering *L, const rf_value *x, const rf_value *y, int *rank, rf_dim **dims) {
    if (!y) {
        *rank = x->rank;
        *dims = x->dims;
        return;
    }
    if (x->rank < 0 || y->rank < 0) {
        *rank = -1;
        *dims = NULL;
        return;
    }
    int r = x->rank > y->rank ? x->rank : y->rank;
    rf_dim *d = rf_alloc(L->out, (size_t)(r ? r : 1) * sizeof(rf_dim));
    for (int i = 0; i < r; i++) {
        int xi = i - (r - x->rank), yi = i - (r - y->rank);
        const rf_dim *dx = xi >= 0 ? &x->dims[xi] : NULL, *dy = yi >= 0 ? &y->dims[yi] : NULL;
        if (!dx || (!dx->sym && dx->size == 1 && dy)) d[i] = *dy;
        else d[i] = *dx;
    }
    *rank = r;
    *dims = d;
}

/* op(self=x, other=y) with elementwise broadcasting; x must be a value. */
static rf_value *emit_binary(rf_lowering *L, const char *op, rf_value *x, rf_rv y, const char *suffix) {
    rf_arg args[2] = {{"self", rf_attr_ref(x)}, {"other", rf_attr_of_rv(y)}};
    int rank;
    rf_dim *dims;
    broadcast(L, x, y.v, &rank, &dims);
    rf_node *n = rf_node_new(L->out, op, 2, 1);
    memcpy(n->args, args, sizeof args);
    n->outs[0] = new_value(L, suffix, x->dtype, rank, dims);
    rf_graph_append_node(L->out, n);
    return n->outs[0];
}

rf_value *rf_b_unary(rf_lowering *L, const char *op, rf_value *x) {
    rf_arg arg = {"self", rf_attr_ref(x)};
    const rf_value *like[1] = {x};
    return rf_b_node(L, op, 1, &arg, 1, like, x->dtype, "_t")->outs[0];
}

rf_value *rf_b_binary(rf_lowering *L, const char *op, rf_value *x, rf_value *y) {
    return emit_binary(L, op, x, rf_val(y), "_t");
}

rf_rv rf_b_add(rf_lowering *L, rf_rv x, rf_rv y) {
    if (!x.v && !y.v) return rf_num(x.s + y.s);
    if (!x.v) {
        rf_rv t = x;
        x = y;
        y = t;
    }
    if (!y.v && y.s == 0.0) return x;
    return rf_val(emit_binary(L, "aten.add.Tensor", x.v, y, "_t"));
}

rf_rv rf_b_neg(rf_lowering *L, rf_rv x) {
    if (!x.v) return rf_num(-x.s);
    return rf_val(rf_b_unary(L, "aten.neg.default", x.v));
}

rf_rv rf_b_sub(rf_lowering *L, rf_rv x, rf_rv y) {
    if (!x.v && !y.v) return rf_num(x.s - y.s);
    if (!y.v && y.s == 0.0) return x;
    if (!x.v) {
        if (x.s == 0.0) return rf_b_neg(L, y);
        return rf_val(emit_binary(L, "aten.rsub.Scalar", y.v, x, "_t"));
    }
    return rf_val(emit_binary(L, "aten.sub.Tensor", x.v, y, "_t"));
}

rf_rv rf_b_mul(rf_lowering *L, rf_rv x, rf_rv y) {
    if (!x.v && !y.v) return rf_num(x.s * y.s);
    if (!x.v) {
        rf_rv t = x;
        x = y;
        y = t;
    }
    if (!y.v && y.s == 1.0) return x;
    if (!y.v && y.s == -1.0) return rf_b_neg(L, x);
    return rf_val(emit_binary(L, "aten.mul.Tensor", x.v, y, "_t"));
}

rf_rv rf_b_div(rf_lowering *L, rf_rv x, rf_rv y) {
    if (!x.v && !y.v) return rf_num(x.s / y.s);
    if (!y.v && y.s == 1.0) return x;
    if (!x.v) {
        rf_rv r = rf_val(rf_b_unary(L, "aten.reciprocal.default", y.v));
        return rf_b_mul(L, r, x);
    }
    return rf_val(emit_binary(L, "aten.div.Tensor", x.v, y, "_t"));
}

rf_value *rf_b_select(rf_lowering *L, rf_value *x, int64_t dim, int64_t index) {
    rf_arg args[3] = {{"self", rf_attr_ref(x)}, {"dim", rf_attr_int(dim)}, {"index", rf_attr_int(index)}};
    rf_node *n = rf_node_new(L->out, "aten.select.int", 3, 1);
    memcpy(n->args, args, sizeof args);
    int rank = x->rank < 0 ? -1 : x->rank - 1;
    rf_dim *dims = NULL;
    if (rank > 0) {
        int64_t d = dim < 0 ? dim + x->rank : dim;
        dims = rf_alloc(L->out, (size_t)rank * sizeof(rf_dim));
        for (int i = 0, j = 0; i < x->rank; i++)
            if (i != d) dims[j++] = x->dims[i];
    }
    n->outs[0] = new_value(L, index == 0 ? "_re" : "_im", x->dtype, rank, dims);
    rf_graph_append_node(L->out, n);
    return n->outs[0];
}

rf_value *rf_b_stack2(rf_lowering *L, rf_value *a, rf_value *b, int64_t dim) {
    rf_attr list = {0};
    list.kind = RF_A_LIST;
    list.n = 2;
    list.items = rf_alloc(L->out, 2 * sizeof(rf_attr));
    list.items[0] = rf_attr_ref(a);
    list.items[1] = rf_attr_ref(b);
    rf_arg args[2] = {{"tensors", list}, {"dim", rf_attr_int(dim)}};
    rf_node *n = rf_node_new(L->out, "aten.stack.default", 2, 1);
    memcpy(n->args, args, sizeof args);
    int rank = a->rank < 0 ? -1 : a->rank + 1;
    rf_dim *dims = NULL;
    if (rank > 0) {
        int64_t d = dim < 0 ? dim + rank : dim;
        dims = rf_alloc(L->out, (size_t)rank * sizeof(rf_dim));
        for (int i = 0, j = 0; i < rank; i++) {
            if (i == d) dims[i].size = 2;
            else dims[i] = a->dims[j++];
        }
    }
    n->outs[0] = new_value(L, "_packed", a->dtype, rank, dims);
    rf_graph_append_node(L->out, n);
    return n->outs[0];
}

rf_value *rf_b_cast(rf_lowering *L, rf_value *x, rf_dtype dt) {
    rf_attr d = {0};
    d.kind = RF_A_DTYPE;
    d.dtype = dt;
    rf_arg args[2] = {{"self", rf_attr_ref(x)}, {"dtype", d}};
    const rf_value *like[1] = {x};
    return rf_b_node(L, "aten._to_copy.default", 2, args, 1, like, dt, "_cast")->outs[0];
}

rf_value *rf_b_zeros_like(rf_lowering *L, rf_value *x) { return rf_b_unary(L, "aten.zeros_like.default", x); }

rf_value *rf_b_full_like(rf_lowering *L, rf_value *x, double fill) {
    rf_arg args[2] = {{"self", rf_attr_ref(x)}, {"fill_value", rf_attr_float(fill)}};
    const rf_value *like[1] = {x};
    return rf_b_node(L, "aten.full_like.default", 2, args, 1, like, x->dtype, "_fill")->outs[0];
}

rf_value *rf_b_materialize(rf_lowering *L, rf_rv x, rf_value *like) {
    if (x.v) return x.v;
    if (!like) return NULL;
    return x.s == 0.0 ? rf_b_zeros_like(L, like) : rf_b_full_like(L, like, x.s);
}

/* ---- complex arithmetic ---- */

static rf_cx cx_make(rf_rv re, rf_rv im, int im_zero) {
    rf_cx c;
    c.re = re;
    c.im = im_zero ? rf_num(0.0) : im;
    c.im_zero = im_zero;
    return c;
}

static rf_rv im_or_zero(rf_cx a) { return a.im_zero ? rf_num(0.0) : a.im; }

rf_cx rf_cx_add(rf_lowering *L, rf_cx a, rf_cx b) {
    rf_rv re = rf_b_add(L, a.re, b.re);
    if (a.im_zero && b.im_zero) return cx_make(re, re, 1);
    return cx_make(re, rf_b_add(L, im_or_zero(a), im_or_zero(b)), 0);
}

rf_cx rf_cx_sub(rf_lowering *L, rf_cx a, rf_cx b) {
    rf_rv re = rf_b_sub(L, a.re, b.re);
    if (a.im_zero && b.im_zero) return cx_make(re, re, 1);
    return cx_make(re, rf_b_sub(L, im_or_zero(a), im_or_zero(b)), 0);
}

rf_cx rf_cx_neg(rf_lowering *L, rf_cx a) {
    rf_rv re = rf_b_neg(L, a.re);
    if (a.im_zero) return cx_make(re, re, 1);
    return cx_make(re, rf_b_neg(L, a.im), 0);
}

rf_cx rf_cx_conj(rf_lowering *L, rf_cx a) {
    if (a.im_zero) return a;
    return cx_make(a.re, rf_b_neg(L, a.im), 0);
}

rf_cx rf_cx_scale(rf_lowering *L, rf_cx a, rf_rv s) {
    rf_rv re = rf_b_mul(L, a.re, s);
    if (a.im_zero) return cx_make(re, re, 1);
    return cx_make(re, rf_b_mul(L, a.im, s), 0);
}

rf_cx rf_cx_mul(rf_lowering *L, rf_cx a, rf_cx b) {
    if (b.im_zero) return rf_cx_scale(L, a, b.re);
    if (a.im_zero) return rf_cx_scale(L, b, a.re);
    /* (ar + ai i)(br + bi i) = (ar br - ai bi) + (ar bi + ai br) i */
    rf_rv rr = rf_b_mul(L, a.re, b.re), ii = rf_b_mul(L, a.im, b.im);
    rf_rv re = rf_b_sub(L, rr, ii);
    rf_rv ri = rf_b_mul(L, a.re, b.im), ir = rf_b_mul(L, a.im, b.re);
    rf_rv im = rf_b_add(L, ri, ir);
    return cx_make(re, im, 0);
}

rf_rv rf_cx_abs(rf_lowering *L, rf_cx a) {
    if (a.im_zero) {
        if (!a.re.v) return rf_num(fabs(a.re.s));
        return rf_val(rf_b_unary(L, "aten.abs.default", a.re.v));
    }
    /* the scaled form of realops.c: aten.hypot is missing from most deployment targets */
    return rf_b_hypot(L, a.re, a.im);
}

rf_cx rf_cx_div(rf_lowering *L, rf_cx a, rf_cx b) {
    if (b.im_zero) {
        rf_rv re = rf_b_div(L, a.re, b.re);
        if (a.im_zero) return cx_make(re, re, 1);
        return cx_make(re, rf_b_div(L, a.im, b.re), 0);
    }
    if (!b.re.v && !b.im.v) {
        /* Divisor is a complex scalar: multiply by its reciprocal (Smith's method). */
        double c = b.re.s, d = b.im.s, rr, ri;
        if (fabs(c) >= fabs(d)) {
            double r = d / c, den = c + d * r;
            rr = 1.0 / den;
            ri = -r / den;
        } else {
            double r = c / d, den = d + c * r;
            rr = r / den;
            ri = -1.0 / den;
        }
        return rf_cx_mul(L, a, cx_make(rf_num(rr), rf_num(ri), 0));
    }
    /* Scale both operands by max(|c|, |d|) so c^2 + d^2 neither overflows nor
     * underflows, as ATen's vectorised complex division does. */
    rf_value *c = rf_b_materialize(L, b.re, b.im.v);
    rf_value *d = rf_b_materialize(L, b.im, b.re.v);
    rf_value *abs_c = rf_b_unary(L, "aten.abs.default", c);
    rf_value *abs_d = rf_b_unary(L, "aten.abs.default", d);
    rf_value *scale = rf_b_binary(L, "aten.maximum.default", abs_c, abs_d);
    rf_rv cs = rf_b_div(L, rf_val(c), rf_val(scale));
    rf_rv ds = rf_b_div(L, rf_val(d), rf_val(scale));
    rf_rv as = rf_b_div(L, a.re, rf_val(scale));
    rf_rv cc = rf_b_mul(L, cs, cs), dd = rf_b_mul(L, ds, ds);
    rf_rv den = rf_b_add(L, cc, dd);
    rf_rv re, im;
    if (a.im_zero) {
        re = rf_b_mul(L, as, cs);
        im = rf_b_neg(L, rf_b_mul(L, as, ds));
    } else {
        rf_rv bs = rf_b_div(L, a.im, rf_val(scale));
        rf_rv ac = rf_b_mul(L, as, cs), bd = rf_b_mul(L, bs, ds);
        re = rf_b_add(L, ac, bd);
        rf_rv bc = rf_b_mul(L, bs, cs), ad = rf_b_mul(L, as, ds);
        im = rf_b_sub(L, bc, ad);
    }
    rf_rv re_q = rf_b_div(L, re, den);
    rf_rv im_q = rf_b_div(L, im, den);
    return cx_make(re_q, im_q, 0);
}

/* P(x, y) for the node's own real op, with the two named operands replaced. */
static rf_value *emit_bilinear(rf_lowering *L, const rf_node *n, const char *a_name, rf_value *x, const char *b_name,
                               rf_value *y, const char *suffix) {
    rf_node *m = rf_node_new(L->out, n->op, n->nargs, 1);
    for (size_t i = 0; i < n->nargs; i++) {
        m->args[i].name = rf_strdup(L->out, n->args[i].name);
        if (strcmp(n->args[i].name, a_name) == 0) m->args[i].attr = rf_attr_ref(x);
        else if (strcmp(n->args[i].name, b_name) == 0) m->args[i].attr = rf_attr_ref(y);
        else m->args[i].attr = rf_map_attr(L, &n->args[i].attr);
    }
    const rf_value *o = n->outs[0];
    m->outs[0] = new_value(L, suffix, x->dtype, o->rank, o->dims);
    rf_graph_append_node(L->out, m);
    return m->outs[0];
}

rf_cx rf_cx_bilinear(rf_lowering *L, const rf_node *n, rf_cx a, rf_cx b, const char *a_name, const char *b_name) {
    rf_value *ar = a.re.v, *br = b.re.v;
    if (!ar || !br || (!a.im_zero && !a.im.v) || (!b.im_zero && !b.im.v)) {
        rf_fail(L, n, RF_ERR_INVALID, "%s needs tensor operands", n->op);
        return cx_make(rf_num(0), rf_num(0), 1);
    }
    rf_rv re = rf_val(emit_bilinear(L, n, a_name, ar, b_name, br, "_rr"));
    if (a.im_zero && b.im_zero) return cx_make(re, re, 1);
    if (a.im_zero) return cx_make(re, rf_val(emit_bilinear(L, n, a_name, ar, b_name, b.im.v, "_ri")), 0);
    if (b.im_zero) return cx_make(re, rf_val(emit_bilinear(L, n, a_name, a.im.v, b_name, br, "_ir")), 0);
    rf_rv ii = rf_val(emit_bilinear(L, n, a_name, a.im.v, b_name, b.im.v, "_ii"));
    rf_rv ri = rf_val(emit_bilinear(L, n, a_name, ar, b_name, b.im.v, "_ri"));
    rf_rv ir = rf_val(emit_bilinear(L, n, a_name, a.im.v, b_name, br, "_ir"));
    return cx_make(rf_b_sub(L, re, ii), rf_b_add(L, ri, ir), 0);
}

/* ---- generic ops and constants ---- */

rf_value *rf_b_op(rf_lowering *L, const char *op, size_t nargs, const rf_arg *args, rf_dtype dt, int rank,
                  const rf_dim *dims, const char *suffix) {
    rf_node *n = rf_node_new(L->out, op, nargs, 1);
    for (size_t i = 0; i < nargs; i++) {
        n->args[i].name = rf_strdup(L->out, args[i].name);
        n->args[i].attr = args[i].attr;
    }
    n->outs[0] = new_value(L, suffix, dt, rank, dims);
    rf_graph_append_node(L->out, n);
    return n->outs[0];
}

/* IEEE binary16 / bfloat16 bits of x, rounded to nearest even. */
static uint32_t small_float_bits(double x, int ebits, int mbits) {
    uint32_t sign = signbit(x) ? 1u << (ebits + mbits) : 0u;
    int bias = (1 << (ebits - 1)) - 1;
    uint32_t inf = ((1u << ebits) - 1u) << mbits;
    if (isnan(x)) return sign | inf | (1u << (mbits - 1));
    x = fabs(x);
    if (isinf(x)) return sign | inf;
    if (x == 0.0) return sign;
    int e;
    (void)frexp(x, &e);
    int ex = e - 1; /* x in [2^ex, 2^(ex+1)) */
    if (ex < 1 - bias) /* subnormal; rounding up to 2^mbits gives the smallest normal's bits */
        return sign | (uint32_t)nearbyint(ldexp(x, mbits + bias - 1));
    double m = nearbyint(ldexp(x, mbits - ex));
    if (m == ldexp(1.0, mbits + 1)) {
        m /= 2;
        ex++;
    }
    if (ex > bias) return sign | inf;
    return sign | ((uint32_t)(ex + bias) << mbits) | ((uint32_t)m - (1u << mbits));
}

static void put_le(unsigned char *p, uint64_t bits, size_t size) {
    for (size_t i = 0; i < size; i++) p[i] = (unsigned char)(bits >> (8 * i));
}

/* x in dtype dt, as little-endian bytes. */
static void encode_element(unsigned char *p, double x, rf_dtype dt) {
    switch (dt) {
    case RF_DT_F64: {
        uint64_t b;
        memcpy(&b, &x, 8);
        put_le(p, b, 8);
        break;
    }
    case RF_DT_F32: {
        float f = (float)x;
        uint32_t b;
        memcpy(&b, &f, 4);
        put_le(p, b, 4);
        break;
    }
    case RF_DT_F16: put_le(p, small_float_bits(x, 5, 10), 2); break;
    case RF_DT_BF16: put_le(p, small_float_bits(x, 8, 7), 2); break;
    case RF_DT_BOOL: p[0] = x != 0.0; break;
    default: put_le(p, (uint64_t)(int64_t)x, rf_dtype_size(dt)); break;
    }
}

rf_value *rf_b_constant(rf_lowering *L, const char *hint, rf_dtype dt, int rank, const int64_t *dims,
                        const double *data) {
    rf_graph *g = L->out;
    size_t esize = rf_dtype_size(dt), numel = 1;
    if (!esize || rf_dtype_is_complex(dt) || rank < 0) {
        rf_fail(L, L->cur, RF_ERR_INVALID, "constant %s: dtype %s is not a real tensor dtype", hint,
                rf_dtype_name(dt));
        return NULL;
    }
    rf_dim *d = rf_alloc(g, (size_t)(rank ? rank : 1) * sizeof(rf_dim));
    for (int i = 0; i < rank; i++) {
        d[i].size = dims[i];
        numel *= (size_t)dims[i];
    }
    size_t nbytes = numel * esize;
    unsigned char *tmp = malloc(nbytes ? nbytes : 1);
    if (!tmp) {
        rf_fail(L, L->cur, RF_ERR_NOMEM, "constant %s: out of memory", hint);
        return NULL;
    }
    for (size_t i = 0; i < numel; i++) encode_element(tmp + i * esize, data[i], dt);
    for (size_t i = 0; i < g->nconsts; i++) { /* the same numbers already made: reuse them */
        rf_value *c = g->consts[i];
        int same = c->const_data && c->dtype == dt && c->rank == rank && c->const_nbytes == nbytes;
        for (int k = 0; same && k < rank; k++) same = !c->dims[k].sym && c->dims[k].size == dims[k];
        if (same && memcmp(c->const_data, tmp, nbytes) == 0) {
            free(tmp);
            return c;
        }
    }
    unsigned char *bytes = rf_alloc(g, nbytes);
    memcpy(bytes, tmp, nbytes);
    free(tmp);
    rf_value *v = rf_graph_add_const(g, hint, dt, rank, d, "", "data");
    char target[200];
    snprintf(target, sizeof target, "realify_constants.%s", v->name);
    for (size_t k = 1, i = 0; i + 1 < g->nconsts; i++) /* keep attribute paths unique */
        if (strcmp(g->consts[i]->const_target, target) == 0) {
            snprintf(target, sizeof target, "realify_constants.%s_c%zu", v->name, k++);
            i = (size_t)-1;
        }
    v->const_target = rf_strdup(g, target);
    v->const_data = bytes;
    v->const_nbytes = nbytes;
    return v;
}
