/* Cleanup: forwards select(stack(...)) and stack(select(x), select(x)) round
 * trips to their sources, then drops nodes whose results nobody uses. */
#include "passes/cleanup.h"
#include "ir/mem.h"

#include <stdlib.h>
#include <string.h>

static const char *const effectful_ops[] = {
    "aten._assert_scalar.default", "aten._assert_async.default", "aten._assert_async.msg",
    "aten.sym_constrain_range.default", "aten.sym_constrain_range_for_size.default",
    "aten._print.default", NULL,
};

int rf_op_is_pure(const char *op) {
    if (strncmp(op, "operator.", 9) == 0) return 1;
    if (strncmp(op, "aten.", 5) != 0) return 0;
    /* every effectful op here starts "aten._" or "aten.sym_" */
    if ((op[5] == '_' || op[5] == 's') && rf_str_in(op, effectful_ops)) return 0;
    /* In-place and out= variants end their base name with '_'. */
    const char *base = op + 5, *dot = strchr(base, '.');
    size_t len = dot ? (size_t)(dot - base) : strlen(base);
    return !(len && base[len - 1] == '_');
}

static int64_t norm_dim(int64_t d, int rank) { return (d < 0 && rank >= 0) ? d + rank : d; }

static const rf_attr *arg(const rf_node *n, const char *name) { return rf_node_arg(n, name); }

static int int_arg(const rf_node *n, const char *name, int64_t *out) {
    const rf_attr *a = arg(n, name);
    if (!a || a->kind != RF_A_INT) return 0;
    *out = a->i;
    return 1;
}

/* select(stack([a, b], D), D, k) -> k-th item. */
static rf_value *fold_select_of_stack(const rf_node *n) {
    const rf_attr *self = arg(n, "self");
    int64_t dim, index, sdim;
    if (!self || self->kind != RF_A_VALUE || !int_arg(n, "dim", &dim) || !int_arg(n, "index", &index)) return NULL;
    const rf_node *s = self->value->producer;
    if (!s || strcmp(s->op, "aten.stack.default") != 0) return NULL;
    const rf_attr *items = arg(s, "tensors");
    if (!items || items->kind != RF_A_LIST || !int_arg(s, "dim", &sdim)) return NULL;
    int rank = s->outs[0]->rank;
    if (norm_dim(dim, rank) != norm_dim(sdim, rank) || (rank < 0 && dim != sdim)) return NULL;
    int64_t k = index < 0 ? index + (int64_t)items->n : index;
    if (k < 0 || (size_t)k >= items->n || items->items[k].kind != RF_A_VALUE) return NULL;
    return items->items[k].value;
}

/* stack([select(x, -1, 0), select(x, -1, 1)], -1) -> x, when x's last dim is 2. */
static rf_value *fold_stack_of_selects(const rf_node *n) {
    const rf_attr *items = arg(n, "tensors");
    int64_t sdim;
    if (!items || items->kind != RF_A_LIST || items->n != 2 || !int_arg(n, "dim", &sdim)) return NULL;
    rf_value *src = NULL;
    for (size_t k = 0; k < 2; k++) {
        if (items->items[k].kind != RF_A_VALUE) return NULL;
        const rf_node *sel = items->items[k].value->producer;
        int64_t dim, index;
        if (!sel || strcmp(sel->op, "aten.select.int") != 0 || !int_arg(sel, "dim", &dim) ||
            !int_arg(sel, "index", &index))
            return NULL;
        const rf_attr *x = arg(sel, "self");
        if (!x || x->kind != RF_A_VALUE || (src && x->value != src)) return NULL;
        src = x->value;
        int rank = src->rank;
        if (rank < 1 || src->dims[rank - 1].sym || src->dims[rank - 1].size != 2) return NULL;
        if (norm_dim(dim, rank) != rank - 1 || norm_dim(index, 2) != (int64_t)k) return NULL;
        if (norm_dim(sdim, rank) != rank - 1) return NULL;
    }
    return (src && src->dtype == n->outs[0]->dtype) ? src : NULL;
}

static void forward_attr(rf_attr *a, rf_value *const *fwd) {
    if (a->kind == RF_A_VALUE) {
        while (fwd[a->value->id]) a->value = fwd[a->value->id];
    } else if (a->kind == RF_A_LIST) {
        for (size_t i = 0; i < a->n; i++) forward_attr(&a->items[i], fwd);
    }
}

static void mark_attr(const rf_attr *a, char *live) {
    if (a->kind == RF_A_VALUE) live[a->value->id] = 1;
    else if (a->kind == RF_A_LIST)
        for (size_t i = 0; i < a->n; i++) mark_attr(&a->items[i], live);
}

void rf_cleanup(rf_graph *g) {
    rf_value **fwd = rf_calloc(g->nvalues + 1, sizeof(*fwd));
    char *live = rf_calloc(g->nvalues + 1, 1);
    if (!fwd || !live) {
        rf_free(fwd);
        rf_free(live);
        return;
    }
    for (size_t i = 0; i < g->nnodes; i++) {
        rf_node *n = g->nodes[i];
        for (size_t j = 0; j < n->nargs; j++) forward_attr(&n->args[j].attr, fwd);
        rf_value *r = NULL;
        if (strcmp(n->op, "aten.select.int") == 0) r = fold_select_of_stack(n);
        else if (strcmp(n->op, "aten.stack.default") == 0) r = fold_stack_of_selects(n);
        if (r) fwd[n->outs[0]->id] = r;
    }
    for (size_t i = 0; i < g->noutputs; i++) {
        forward_attr(&g->outputs[i], fwd);
        mark_attr(&g->outputs[i], live);
    }
    /* Walk backwards: a node lives if any output lives or it has effects. */
    char *keep = rf_calloc(g->nnodes + 1, 1);
    for (size_t i = g->nnodes; i-- > 0;) {
        rf_node *n = g->nodes[i];
        int alive = !rf_op_is_pure(n->op) || n->nouts == 0;
        for (size_t k = 0; k < n->nouts && !alive; k++) alive = live[n->outs[k]->id];
        if (!alive) continue;
        keep[i] = 1;
        for (size_t j = 0; j < n->nargs; j++) mark_attr(&n->args[j].attr, live);
    }
    size_t m = 0;
    for (size_t i = 0; i < g->nnodes; i++) {
        if (!keep[i]) {
            for (size_t k = 0; k < g->nodes[i]->nouts; k++) g->nodes[i]->outs[k]->producer = NULL;
            continue;
        }
        g->nodes[i]->index = m;
        g->nodes[m++] = g->nodes[i];
    }
    g->nnodes = m;
    /* Inline "data" constants (made by the lowering) that nothing uses any more. */
    size_t kc = 0;
    for (size_t i = 0; i < g->nconsts; i++)
        if (!g->consts[i]->const_data || live[g->consts[i]->id]) g->consts[kc++] = g->consts[i];
    g->nconsts = kc;
    rf_free(keep);
    rf_free(fwd);
    rf_free(live);
}
