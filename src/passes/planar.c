/* Planar boundaries. A complex table such as RoPE's freqs_cis arrives as
 * [..., 2]; the lowered graph reads its real and imaginary parts with two
 * stride-2 selects. When those selects are its only uses, the same value laid
 * out as [2, ...] gives two contiguous parts, which vectorise better in the
 * kernel that reads them. The caller materialises the planar tensor (once for
 * a constant, cached for an input); this pass only decides and marks. */
#include "passes/planar.h"
#include "ir/mem.h"

#include <stdlib.h>
#include <string.h>

/* Ops whose output is (a view or cast of) their `self`: a table read through
 * them is still the table. */
static const char *const view_ops[] = {
    "aten.view.default",    "aten.reshape.default",   "aten._unsafe_view.default", "aten.unsqueeze.default",
    "aten.squeeze.dim",     "aten.squeeze.dims",      "aten.slice.Tensor",         "aten.select.int",
    "aten.permute.default", "aten.transpose.int",     "aten.t.default",            "aten.alias.default",
    "aten.clone.default",   "aten._to_copy.default",  "aten.contiguous.default",   NULL,
};

static int is_view_op(const char *op) { return rf_str_in(op, view_ops); }

static int int_arg(const rf_node *n, const char *name, int64_t *out) {
    const rf_attr *a = rf_node_arg(n, name);
    if (!a || a->kind != RF_A_INT) return 0;
    *out = a->i;
    return 1;
}

/* `a`, an operand of a node with output `out`, is broadcast: out is larger. */
static int broadcasts(const rf_value *a, const rf_value *out) {
    if (a->rank < 0 || out->rank < 0) return 0;
    if (a->rank < out->rank) return 1;
    if (a->rank > out->rank) return 0;
    for (int i = 0; i < a->rank; i++) {
        const rf_dim *x = &a->dims[i], *y = &out->dims[i];
        if (!x->sym && x->size == 1 && (y->sym || y->size != 1)) return 1;
    }
    return 0;
}

/* A select(self=v, dim=-1, index=0|1) of a packed value v. */
static int is_part_select(const rf_node *n, const rf_value *v) {
    int64_t dim, index;
    if (strcmp(n->op, "aten.select.int") != 0 || !int_arg(n, "dim", &dim) || !int_arg(n, "index", &index)) return 0;
    const rf_attr *self = rf_node_arg(n, "self");
    if (!self || self->kind != RF_A_VALUE || self->value != v) return 0;
    return (dim == -1 || dim == v->rank - 1) && index >= -2 && index <= 1;
}

static int is_candidate(const rf_value *v, unsigned flags, int is_const) {
    if (!rf_dtype_is_complex(v->packed_from) || v->planar || v->storage_read || v->rank < 1) return 0;
    const rf_dim *last = &v->dims[v->rank - 1];
    if (last->sym || last->size != 2) return 0;
    if (!is_const) return (flags & RF_PLANAR_INPUTS) != 0;
    if (!(flags & RF_PLANAR_CONSTS) || v->const_data || !v->const_kind) return 0;
    return strcmp(v->const_kind, "buffer") == 0 || strcmp(v->const_kind, "constant") == 0;
}

/* state: 0 not a candidate, 1 candidate so far, 2 candidate used otherwise. */
static void note_use(const rf_attr *a, const rf_node *n, char *state) {
    if (a->kind == RF_A_VALUE) {
        if (state[a->value->id] == 1 && !(n && is_part_select(n, a->value))) state[a->value->id] = 2;
    } else if (a->kind == RF_A_LIST) {
        for (size_t i = 0; i < a->n; i++) note_use(&a->items[i], NULL, state); /* inside a list: not a select */
    }
}

/* Marks table[c] for each candidate input c whose parts reach, through view
 * ops, an operand that broadcasts. origin[id] = 1 + id of the candidate. */
static void find_tables(const rf_graph *g, const char *state, size_t *origin, char *table) {
    for (size_t i = 0; i < g->nnodes; i++) {
        const rf_node *n = g->nodes[i];
        if (!n->nouts) continue;
        for (size_t j = 0; j < n->nargs; j++) {
            const rf_attr *a = &n->args[j].attr;
            if (a->kind != RF_A_VALUE) continue;
            const rf_value *v = a->value;
            size_t c = state[v->id] == 1 ? v->id + 1 : origin[v->id];
            if (!c) continue;
            if (is_view_op(n->op) && strcmp(n->args[j].name, "self") == 0) origin[n->outs[0]->id] = c;
            else if (state[v->id] != 1 && broadcasts(v, n->outs[0])) table[c - 1] = 1;
        }
    }
}

static void make_planar(rf_graph *g, rf_value *v) {
    rf_dim *dims = rf_alloc(g, (size_t)v->rank * sizeof(rf_dim));
    dims[0].size = 2;
    dims[0].sym = NULL;
    memcpy(dims + 1, v->dims, (size_t)(v->rank - 1) * sizeof(rf_dim));
    for (size_t i = 0; i < g->nnodes; i++) {
        rf_node *n = g->nodes[i];
        if (!is_part_select(n, v)) continue;
        for (size_t j = 0; j < n->nargs; j++)
            if (strcmp(n->args[j].name, "dim") == 0) n->args[j].attr.i = 0;
    }
    v->dims = dims;
    v->planar = 1;
}

void rf_planar_boundaries(rf_graph *g, unsigned flags) {
    if (!flags) return;
    char *state = rf_calloc(g->nvalues + 1, 1);
    char *table = rf_calloc(g->nvalues + 1, 1);
    size_t *origin = rf_calloc(g->nvalues + 1, sizeof(*origin));
    if (!state || !table || !origin) {
        rf_free(state);
        rf_free(table);
        rf_free(origin);
        return;
    }
    for (size_t i = 0; i < g->ninputs; i++) state[g->inputs[i]->id] = (char)is_candidate(g->inputs[i], flags, 0);
    for (size_t i = 0; i < g->nconsts; i++) state[g->consts[i]->id] = (char)is_candidate(g->consts[i], flags, 1);
    for (size_t i = 0; i < g->nnodes; i++)
        for (size_t j = 0; j < g->nodes[i]->nargs; j++) note_use(&g->nodes[i]->args[j].attr, g->nodes[i], state);
    for (size_t i = 0; i < g->noutputs; i++) note_use(&g->outputs[i], NULL, state);
    find_tables(g, state, origin, table);
    for (size_t i = 0; i < g->nconsts; i++)
        if (state[g->consts[i]->id] == 1) make_planar(g, g->consts[i]);
    for (size_t i = 0; i < g->ninputs; i++)
        if (state[g->inputs[i]->id] == 1 && table[g->inputs[i]->id]) make_planar(g, g->inputs[i]);
    rf_free(state);
    rf_free(table);
    rf_free(origin);
}
