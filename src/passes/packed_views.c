/* Packing parts that are views of one packed value: a rewrite of the new graph
 * (IR only), which the builder asks before it stacks two parts.
 *
 * Rules that work on the two parts run view chains (slices, permutes,
 * reshapes) on each part and stack the parts again where a packed value is
 * read (a complex matrix product's operand, a platform FFT's input). Stacking
 * V(select(p, -1, 0)) and V(select(p, -1, 1)) is V applied to p itself with
 * its trailing pair carried along. Emitted that way, Inductor sees one
 * strided copy, which it tiles, instead of a two-way choice per element (the
 * FNO layer's bmm operand on an H200: 5.3 us stacked against 3.2 us as a
 * permuted copy). */
#include "passes/packed_views.h"
#include "ir/mem.h"

#include <string.h>

#include "ir/verify.h"

enum { MAX_CHAIN = 16 };

static const char *const foldable_ops[] = {
    "aten.slice.Tensor",   "aten.select.int",    "aten.permute.default",   "aten.transpose.int",
    "aten.unsqueeze.default", "aten.squeeze.dim", "aten.squeeze.dims",     "aten.reshape.default",
    "aten.view.default",   "aten._unsafe_view.default", "aten.expand.default", "aten.clone.default",
    "aten.alias.default",  "aten.flatten.using_ints", "aten.unflatten.int", NULL,
};

static int foldable(const char *op) { return rf_str_in(op, foldable_ops); }

static int attr_equal(const rf_attr *a, const rf_attr *b) {
    if (a->kind != b->kind) return 0;
    switch (a->kind) {
    case RF_A_NONE: return 1;
    case RF_A_INT:
    case RF_A_BOOL: return a->i == b->i;
    case RF_A_FLOAT: return a->f == b->f;
    case RF_A_STR: return a->s && b->s && strcmp(a->s, b->s) == 0;
    case RF_A_DTYPE: return a->dtype == b->dtype;
    case RF_A_LIST:
        if (a->n != b->n) return 0;
        for (size_t i = 0; i < a->n; i++)
            if (!attr_equal(&a->items[i], &b->items[i])) return 0;
        return 1;
    default: return 0; /* values (other than self) and complex scalars: not a plain view chain */
    }
}

static int same_args_but_self(const rf_node *a, const rf_node *b) {
    if (a->nargs != b->nargs || a->nouts != 1 || b->nouts != 1) return 0;
    for (size_t i = 0; i < a->nargs; i++) {
        if (strcmp(a->args[i].name, b->args[i].name) != 0) return 0;
        if (strcmp(a->args[i].name, "self") != 0 && !attr_equal(&a->args[i].attr, &b->args[i].attr)) return 0;
    }
    return 1;
}

/* flatten's end_dim defaults to the last dim, which on the packed value would take the pair in. */
static int explicit_args(const rf_node *n) {
    return strcmp(n->op, "aten.flatten.using_ints") != 0 || rf_node_arg(n, "end_dim");
}

static rf_value *self_of(const rf_node *n) {
    const rf_attr *s = rf_node_arg(n, "self");
    return s && s->kind == RF_A_VALUE ? s->value : NULL;
}

/* p when v is select(p, -1, index) and p's last dim is a static 2. Parts along another dim (the matmul plans' re
 * and im rows) would need that dim moved last first: a strided read of each pair, which made the FNO layer's
 * operand copies slower on an H200 (5.7 -> 8.7 us each), so they keep their stack. */
static rf_value *part_of(const rf_value *v, int64_t index) {
    const rf_node *n = v->producer;
    if (!n || strcmp(n->op, "aten.select.int") != 0) return NULL;
    rf_value *p = self_of(n);
    const rf_attr *d = rf_node_arg(n, "dim"), *k = rf_node_arg(n, "index");
    if (!p || !d || !k || d->kind != RF_A_INT || k->kind != RF_A_INT || p->rank < 1) return NULL;
    const rf_dim *last = &p->dims[p->rank - 1];
    int64_t dim = d->i < 0 ? d->i + p->rank : d->i, idx = k->i < 0 ? k->i + 2 : k->i;
    return dim == p->rank - 1 && !last->sym && last->size == 2 && idx == index ? p : NULL;
}

/* A dim argument of a part of rank r, as a non-negative dim of the packed value (-1 when out of range). */
static int64_t norm_dim(int64_t d, int r) { return d < 0 ? (d + r >= 0 ? d + r : -1) : (d < r ? d : -1); }

/* The argument of node n (a view of a part of rank r_in, result rank r_out) for the packed value. */
static int packed_arg(rf_graph *g, const rf_node *n, const rf_arg *a, int r_in, int r_out, rf_attr *out) {
    const char *op = n->op, *name = a->name;
    *out = a->attr;
    int dim_arg = strcmp(name, "dim") == 0 || strcmp(name, "dim0") == 0 || strcmp(name, "dim1") == 0 ||
                  strcmp(name, "start_dim") == 0 || strcmp(name, "end_dim") == 0;
    if (dim_arg && a->attr.kind == RF_A_INT) { /* unsqueeze's dim counts in the result */
        int r = strcmp(op, "aten.unsqueeze.default") == 0 ? r_out : r_in;
        int64_t d = norm_dim(a->attr.i, r);
        *out = rf_attr_int(d);
        return d >= 0;
    }
    int dims_list = (strcmp(name, "dims") == 0 && strcmp(op, "aten.permute.default") == 0) ||
                    (strcmp(name, "dim") == 0 && a->attr.kind == RF_A_LIST);
    int size_list = strcmp(name, "shape") == 0 || strcmp(name, "size") == 0; /* reshape; view, expand */
    if (strcmp(name, "memory_format") == 0) { /* channels_last and the like are for a rank the pair changes */
        if (a->attr.kind == RF_A_NONE) return 1;
        if (a->attr.kind != RF_A_STR || !a->attr.s) return 0;
        const char *m = a->attr.s, *prefix = "@memory_format:";
        if (strncmp(m, prefix, strlen(prefix)) == 0) m += strlen(prefix);
        return strcmp(m, "contiguous_format") == 0 || strcmp(m, "preserve_format") == 0;
    }
    if (!dims_list && !size_list) return a->attr.kind != RF_A_VALUE || strcmp(name, "self") == 0;
    if (a->attr.kind != RF_A_LIST || a->attr.n >= RF_MAX_RANK) return 0;
    int64_t items[RF_MAX_RANK + 1];
    size_t k = a->attr.n;
    for (size_t i = 0; i < k; i++) {
        if (a->attr.items[i].kind != RF_A_INT) return 0; /* symbolic sizes: left as they are */
        items[i] = dims_list ? norm_dim(a->attr.items[i].i, r_in) : a->attr.items[i].i;
        if (dims_list && items[i] < 0) return 0;
    }
    int squeeze = strcmp(op, "aten.squeeze.dims") == 0;
    if (!squeeze) items[k++] = dims_list ? r_in : 2; /* the pair stays last */
    *out = rf_attr_ints(g, k, items);
    return 1;
}

/* Node n (a view of one part) applied to the packed value p, appended to g with the name hint and origin of the
 * stack it replaces. */
static rf_value *replay(rf_graph *g, const rf_node *n, rf_value *p, const char *hint, const rf_node *origin) {
    const rf_value *in = self_of(n), *part = n->outs[0];
    if (!in || in->rank < 0 || part->rank < 0 || part->rank >= RF_MAX_RANK || n->nargs > 8) return NULL;
    rf_arg args[8];
    for (size_t i = 0; i < n->nargs; i++) {
        args[i].name = n->args[i].name;
        if (strcmp(n->args[i].name, "self") == 0) args[i].attr = rf_attr_ref(p);
        else if (!packed_arg(g, n, &n->args[i], in->rank, part->rank, &args[i].attr)) return NULL;
    }
    rf_node *m = rf_node_new(g, n->op, n->nargs, 1);
    for (size_t i = 0; i < n->nargs; i++) {
        m->args[i].name = rf_strdup(g, args[i].name);
        m->args[i].attr = args[i].attr;
    }
    rf_dim dims[RF_MAX_RANK + 1];
    memcpy(dims, part->dims, (size_t)part->rank * sizeof(rf_dim));
    memset(&dims[part->rank], 0, sizeof dims[0]);
    dims[part->rank].size = 2;
    m->outs[0] = rf_value_new(g, hint, part->dtype, part->rank + 1, dims);
    m->origin = origin;
    rf_graph_append_node(g, m);
    return m->outs[0];
}

rf_value *rf_fold_packed_views(rf_graph *g, rf_value *re, rf_value *im, const char *hint, const rf_node *origin) {
    const rf_node *chain[MAX_CHAIN];
    size_t n = 0;
    rf_value *a = re, *b = im, *p = NULL;
    while (a && b && a->dtype == b->dtype) {
        rf_value *pa = part_of(a, 0);
        if (pa && pa == part_of(b, 1)) {
            p = pa;
            break;
        }
        const rf_node *na = a->producer, *nb = b->producer;
        if (!na || !nb || n == MAX_CHAIN || strcmp(na->op, nb->op) != 0 || !foldable(na->op) ||
            !same_args_but_self(na, nb) || !explicit_args(na))
            return NULL;
        chain[n++] = na;
        a = self_of(na), b = self_of(nb);
    }
    if (!p || p->dtype != re->dtype) return NULL;
    while (p && n) p = replay(g, chain[--n], p, hint, origin);
    return p;
}
