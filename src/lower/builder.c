/* The builder: emits real aten ops into the new graph, folding scalars where
 * that is exact, and the complex arithmetic rules are made of. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "ir/consts.h"
#include "ir/mem.h"
#include "lower/lower_internal.h"
#include "lower/realops.h"
#include "passes/packed_views.h"
#include "passes/scale_fold.h"

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

/* Every node the builder makes records the input node being lowered: its provenance. */
static void append(rf_lowering *L, rf_node *n) {
    n->origin = L->cur;
    rf_graph_append_node(L->out, n);
}

rf_node *rf_b_node(rf_lowering *L, const char *op, size_t nargs, const rf_arg *args, size_t nouts,
                   const rf_value *const *like, rf_dtype dt, const char *suffix) {
    rf_node *n = rf_node_new(L->out, op, nargs, nouts);
    for (size_t i = 0; i < nargs; i++) {
        n->args[i].name = rf_strdup(L->out, args[i].name);
        n->args[i].attr = args[i].attr;
    }
    for (size_t i = 0; i < nouts; i++) n->outs[i] = new_value(L, suffix, dt, like[i]->rank, like[i]->dims);
    append(L, n);
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
    append(L, n);
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
    /* Only x + (-0) is x: x + (+0) turns a -0 into +0, as eager's add does. */
    if (!y.v && y.s == 0.0 && signbit(y.s)) return x;
    return rf_val(emit_binary(L, "aten.add.Tensor", x.v, y, "_t"));
}

rf_rv rf_b_neg(rf_lowering *L, rf_rv x) {
    if (!x.v) return rf_num(-x.s);
    return rf_val(rf_b_unary(L, "aten.neg.default", x.v));
}

rf_rv rf_b_sub(rf_lowering *L, rf_rv x, rf_rv y) {
    if (!x.v && !y.v) return rf_num(x.s - y.s);
    if (!y.v && y.s == 0.0 && !signbit(y.s)) return x; /* x - (-0) is x + 0, which turns -0 into +0 */
    if (!x.v) {
        /* (-0) - y is -y exactly; (+0) - y is not (0 - 0 is +0, -(0) is -0). */
        if (x.s == 0.0 && signbit(x.s)) return rf_b_neg(L, y);
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
    append(L, n);
    return n->outs[0];
}

rf_value *rf_b_stack2(rf_lowering *L, rf_value *a, rf_value *b, int64_t dim) {
    if (a && b && a->rank >= 0 && (dim == -1 || dim == a->rank)) { /* the parts of one packed value's views */
        char buf[160];
        rf_value *p = rf_fold_packed_views(L->out, a, b, hint(L, "_packed", buf, sizeof buf), L->cur);
        if (p) return p;
    }
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
    append(L, n);
    return n->outs[0];
}

rf_cx rf_b_unpack(rf_lowering *L, rf_value *packed) {
    if (!packed) return rf_cx_values(NULL, NULL);
    return rf_cx_values(rf_b_select(L, packed, -1, 0), rf_b_select(L, packed, -1, 1));
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
    return (x.s == 0.0 && !signbit(x.s)) ? rf_b_zeros_like(L, like) : rf_b_full_like(L, like, x.s);
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
    append(L, n);
    return n->outs[0];
}

rf_value *rf_b_constant(rf_lowering *L, const char *hint, rf_dtype dt, int rank, const int64_t *dims,
                        const double *data) {
    rf_status why = RF_OK;
    rf_value *v = rf_graph_const_data(L->out, hint, dt, rank, dims, data, &why);
    if (!v && why == RF_ERR_NOMEM) rf_fail(L, L->cur, RF_ERR_NOMEM, "constant %s: out of memory", hint);
    else if (!v)
        rf_fail(L, L->cur, RF_ERR_INVALID, "constant %s: dtype %s is not a real tensor dtype", hint,
                rf_dtype_name(dt));
    return v;
}

rf_value *rf_b_scale(rf_lowering *L, rf_value *x, double s) {
    if (!x || s == 1.0) return x;
    char buf[160];
    rf_status why;
    rf_value *y = rf_fold_scale(L->out, x, s, hint(L, "_mm", buf, sizeof buf), L->cur, &why);
    if (y) return y;
    if (why != RF_OK) rf_fail(L, L->cur, why, "%s: out of memory scaling a product", L->cur ? L->cur->op : "");
    return rf_b_mul(L, rf_val(x), rf_num(s)).v;
}

rf_attr rf_attr_of_value(rf_value *v) { return rf_attr_ref(v); }

rf_attr rf_attr_of_rv(rf_rv x) { return x.v ? rf_attr_ref(x.v) : rf_attr_float(x.s); }

static int has_complex_dtype_arg(const rf_node *n) {
    for (size_t i = 0; i < n->nargs; i++)
        if (n->args[i].attr.kind == RF_A_DTYPE && rf_dtype_is_complex(n->args[i].attr.dtype)) return 1;
    return 0;
}

static void patch_complex_dtypes(rf_lowering *L, rf_attr *a) {
    if (a->kind == RF_A_DTYPE && rf_dtype_is_complex(a->dtype)) a->dtype = rf_component_of(L, a->dtype);
}

rf_node *rf_b_copy_node(rf_lowering *L, const rf_node *n, size_t nsubst, const char *const *names,
                        const rf_attr *attrs, rf_dtype dt, const char *suffix) {
    rf_node *m = rf_node_new(L->out, n->op, n->nargs, n->nouts);
    /* taken as it is (a real node a REAL_TOO rule keeps): the user's op, exempt from target legality */
    m->copied = nsubst == 0 && dt == RF_DT_COUNT && !rf_node_touches_complex(n) && !has_complex_dtype_arg(n);
    for (size_t i = 0; i < n->nargs; i++) {
        m->args[i].name = rf_strdup(L->out, n->args[i].name);
        size_t k = 0;
        while (k < nsubst && strcmp(names[k], n->args[i].name) != 0) k++;
        if (k < nsubst) {
            m->args[i].attr = attrs[k];
        } else {
            const rf_attr *a = &n->args[i].attr;
            if (a->kind == RF_A_VALUE && rf_dtype_is_complex(a->value->dtype)) {
                rf_fail(L, n, RF_ERR_INVALID, "argument '%s' of %s is complex and was not replaced",
                        n->args[i].name, n->op);
                m->nargs = i; /* still give the node its results: callers read outs[0] */
                break;
            }
            m->args[i].attr = rf_map_attr(L, a);
        }
        patch_complex_dtypes(L, &m->args[i].attr);
    }
    for (size_t i = 0; i < n->nouts; i++) {
        const rf_value *o = n->outs[i];
        rf_dtype odt = dt != RF_DT_COUNT ? dt : rf_component_of(L, o->dtype);
        char hint[160];
        snprintf(hint, sizeof hint, "%s%s", o->name, suffix);
        m->outs[i] = rf_value_new(L->out, hint, odt, o->rank, o->dims);
    }
    append(L, m);
    return m;
}
