/* Detection: complex values, the connected complex subgraphs with their entry
 * and exit boundaries, and which graph inputs, constants and outputs are complex. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/mem.h"
#include "analysis/analysis.h"
#include "ir/strbuf.h"

typedef struct subgraph {
    size_t nnodes;
    size_t *nodes;
    size_t nentry, nexit;
    const rf_value **entry, **exit;
} subgraph;

struct rf_analysis {
    const rf_graph *g;
    size_t ncomplex;
    size_t nin, nconst, nout;
    size_t *in_idx, *const_idx, *out_idx;
    size_t ncnodes;
    size_t *cnode_idx; /* nodes that touch a complex value, in graph order */
    size_t nsub;
    subgraph *subs;
};

static size_t find(size_t *parent, size_t x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static void unite(size_t *parent, size_t a, size_t b) {
    a = find(parent, a);
    b = find(parent, b);
    if (a != b) parent[a < b ? b : a] = a < b ? a : b;
}

static void collect_values(const rf_attr *a, const rf_value **buf, size_t *n, size_t cap) {
    if (a->kind == RF_A_VALUE && *n < cap) buf[(*n)++] = a->value;
    else if (a->kind == RF_A_LIST)
        for (size_t i = 0; i < a->n; i++) collect_values(&a->items[i], buf, n, cap);
}

static size_t count_values(const rf_attr *a) {
    if (a->kind == RF_A_VALUE) return 1;
    size_t n = 0;
    if (a->kind == RF_A_LIST)
        for (size_t i = 0; i < a->n; i++) n += count_values(&a->items[i]);
    return n;
}

/* All values a node reads (malloc'd). */
static const rf_value **node_inputs(const rf_node *n, size_t *count) {
    size_t cap = 0;
    for (size_t i = 0; i < n->nargs; i++) cap += count_values(&n->args[i].attr);
    const rf_value **buf = rf_malloc((cap ? cap : 1) * sizeof(*buf));
    *count = 0;
    for (size_t i = 0; i < n->nargs; i++) collect_values(&n->args[i].attr, buf, count, cap);
    return buf;
}

static void push(const rf_value ***arr, size_t *n, const rf_value *v) {
    for (size_t i = 0; i < *n; i++)
        if ((*arr)[i] == v) return;
    *arr = rf_realloc(*arr, (*n + 1) * sizeof(**arr));
    (*arr)[(*n)++] = v;
}

static rf_analysis *analyze_impl(const rf_graph *g) {
    rf_analysis *a = rf_calloc(1, sizeof(*a));
    a->g = g;
    size_t nv = g->nvalues;
    for (size_t i = 0; i < nv; i++) a->ncomplex += rf_dtype_is_complex(g->values[i]->dtype);
    a->in_idx = rf_malloc((g->ninputs + 1) * sizeof(size_t));
    a->const_idx = rf_malloc((g->nconsts + 1) * sizeof(size_t));
    a->out_idx = rf_malloc((g->noutputs + 1) * sizeof(size_t));
    for (size_t i = 0; i < g->ninputs; i++)
        if (rf_dtype_is_complex(g->inputs[i]->dtype)) a->in_idx[a->nin++] = i;
    for (size_t i = 0; i < g->nconsts; i++)
        if (rf_dtype_is_complex(g->consts[i]->dtype)) a->const_idx[a->nconst++] = i;
    for (size_t i = 0; i < g->noutputs; i++) {
        const rf_attr *o = &g->outputs[i];
        if (o->kind == RF_A_VALUE && rf_dtype_is_complex(o->value->dtype)) a->out_idx[a->nout++] = i;
    }

    /* Union complex nodes through the complex values they share. */
    size_t *parent = rf_malloc((nv + 1) * sizeof(size_t));
    for (size_t i = 0; i < nv; i++) parent[i] = i;
    char *is_cnode = rf_calloc(g->nnodes + 1, 1);
    size_t *anchor = rf_calloc(g->nnodes + 1, sizeof(size_t));
    a->cnode_idx = rf_malloc((g->nnodes + 1) * sizeof(size_t));
    for (size_t i = 0; i < g->nnodes; i++) {
        const rf_node *n = g->nodes[i];
        if (!rf_node_touches_complex(n)) continue;
        is_cnode[i] = 1;
        a->cnode_idx[a->ncnodes++] = i;
        size_t nin;
        const rf_value **ins = node_inputs(n, &nin);
        size_t first = n->nouts ? n->outs[0]->id : (nin ? ins[0]->id : 0);
        for (size_t k = 0; k < n->nouts; k++) unite(parent, first, n->outs[k]->id);
        for (size_t k = 0; k < nin; k++)
            if (rf_dtype_is_complex(ins[k]->dtype)) unite(parent, first, ins[k]->id);
        anchor[i] = first;
        rf_free(ins);
    }
    /* Number components in node order. */
    size_t *comp_of_root = rf_malloc((nv + 1) * sizeof(size_t));
    for (size_t i = 0; i < nv; i++) comp_of_root[i] = (size_t)-1;
    size_t *node_comp = rf_malloc((g->nnodes + 1) * sizeof(size_t));
    for (size_t i = 0; i < g->nnodes; i++) {
        if (!is_cnode[i]) continue;
        size_t r = find(parent, anchor[i]);
        if (comp_of_root[r] == (size_t)-1) comp_of_root[r] = a->nsub++;
        node_comp[i] = comp_of_root[r];
    }
    a->subs = rf_calloc(a->nsub + 1, sizeof(subgraph));
    size_t *producer_comp = rf_malloc((nv + 1) * sizeof(size_t));
    for (size_t i = 0; i < nv; i++) producer_comp[i] = (size_t)-1;
    for (size_t i = 0; i < g->nnodes; i++) {
        if (!is_cnode[i]) continue;
        subgraph *s = &a->subs[node_comp[i]];
        s->nodes = rf_realloc(s->nodes, (s->nnodes + 1) * sizeof(size_t));
        s->nodes[s->nnodes++] = i;
        for (size_t k = 0; k < g->nodes[i]->nouts; k++) producer_comp[g->nodes[i]->outs[k]->id] = node_comp[i];
    }
    /* Entries: tensors a member reads that no member produced. Exits: member
     * results read by a non-member or returned. */
    for (size_t i = 0; i < g->nnodes; i++) {
        const rf_node *n = g->nodes[i];
        size_t nin;
        const rf_value **ins = node_inputs(n, &nin);
        for (size_t k = 0; k < nin; k++) {
            const rf_value *v = ins[k];
            if (!rf_dtype_is_tensor(v->dtype)) continue;
            size_t pc = producer_comp[v->id];
            if (is_cnode[i] && pc != node_comp[i]) push(&a->subs[node_comp[i]].entry, &a->subs[node_comp[i]].nentry, v);
            if (pc != (size_t)-1 && (!is_cnode[i] || node_comp[i] != pc)) push(&a->subs[pc].exit, &a->subs[pc].nexit, v);
        }
        rf_free(ins);
    }
    for (size_t i = 0; i < g->noutputs; i++) {
        const rf_attr *o = &g->outputs[i];
        if (o->kind != RF_A_VALUE) continue;
        size_t pc = producer_comp[o->value->id];
        if (pc != (size_t)-1) push(&a->subs[pc].exit, &a->subs[pc].nexit, o->value);
    }
    rf_free(parent);
    rf_free(is_cnode);
    rf_free(anchor);
    rf_free(comp_of_root);
    rf_free(node_comp);
    rf_free(producer_comp);
    return a;
}

void rf_analysis_free(rf_analysis *a) {
    if (!a) return;
    for (size_t i = 0; i < a->nsub; i++) {
        rf_free(a->subs[i].nodes);
        rf_free(a->subs[i].entry);
        rf_free(a->subs[i].exit);
    }
    rf_free(a->subs);
    rf_free(a->in_idx);
    rf_free(a->const_idx);
    rf_free(a->out_idx);
    rf_free(a->cnode_idx);
    rf_free(a);
}

size_t rf_analysis_complex_value_count(const rf_analysis *a) { return a->ncomplex; }
size_t rf_analysis_subgraph_count(const rf_analysis *a) { return a->nsub; }

size_t rf_analysis_complex_inputs(const rf_analysis *a, const size_t **indices) {
    *indices = a->in_idx;
    return a->nin;
}

size_t rf_analysis_complex_consts(const rf_analysis *a, const size_t **indices) {
    *indices = a->const_idx;
    return a->nconst;
}

size_t rf_analysis_complex_outputs(const rf_analysis *a, const size_t **indices) {
    *indices = a->out_idx;
    return a->nout;
}

size_t rf_analysis_complex_nodes(const rf_analysis *a, const size_t **indices) {
    *indices = a->cnode_idx;
    return a->ncnodes;
}

static void print_values(rf_strbuf *sb, const char *label, const rf_value *const *vals, size_t n) {
    rf_sb_printf(sb, "  %s:", label);
    for (size_t i = 0; i < n; i++) rf_sb_printf(sb, " %%%s:%s", vals[i]->name, rf_dtype_name(vals[i]->dtype));
    rf_sb_putc(sb, '\n');
}

static char *analysis_print_impl(const rf_analysis *a) {
    const rf_graph *g = a->g;
    rf_strbuf sb;
    rf_sb_init(&sb);
    rf_sb_printf(&sb, "complex values: %zu\n", a->ncomplex);
    rf_sb_puts(&sb, "complex inputs:");
    for (size_t i = 0; i < a->nin; i++)
        rf_sb_printf(&sb, " %zu(%%%s:%s)", a->in_idx[i], g->inputs[a->in_idx[i]]->name,
                     rf_dtype_name(g->inputs[a->in_idx[i]]->dtype));
    rf_sb_puts(&sb, "\ncomplex consts:");
    for (size_t i = 0; i < a->nconst; i++) {
        const rf_value *c = g->consts[a->const_idx[i]];
        rf_sb_printf(&sb, " %zu(%%%s:%s %s \"%s\")", a->const_idx[i], c->name, rf_dtype_name(c->dtype), c->const_kind,
                     c->const_target);
    }
    rf_sb_puts(&sb, "\ncomplex outputs:");
    for (size_t i = 0; i < a->nout; i++)
        rf_sb_printf(&sb, " %zu(%%%s:%s)", a->out_idx[i], g->outputs[a->out_idx[i]].value->name,
                     rf_dtype_name(g->outputs[a->out_idx[i]].value->dtype));
    rf_sb_printf(&sb, "\nsubgraphs: %zu\n", a->nsub);
    for (size_t s = 0; s < a->nsub; s++) {
        const subgraph *sg = &a->subs[s];
        rf_sb_printf(&sb, "subgraph %zu: %zu nodes\n  ops:", s, sg->nnodes);
        for (size_t i = 0; i < sg->nnodes; i++) rf_sb_printf(&sb, " %s", g->nodes[sg->nodes[i]]->op);
        rf_sb_putc(&sb, '\n');
        print_values(&sb, "entry", sg->entry, sg->nentry);
        print_values(&sb, "exit", sg->exit, sg->nexit);
    }
    return rf_sb_take(&sb);
}

static int attr_has_complex(const rf_attr *a) {
    if (a->kind == RF_A_VALUE) return rf_dtype_is_complex(a->value->dtype);
    if (a->kind == RF_A_DTYPE) return rf_dtype_is_complex(a->dtype);
    if (a->kind == RF_A_COMPLEX) return 1;
    if (a->kind == RF_A_LIST)
        for (size_t i = 0; i < a->n; i++)
            if (attr_has_complex(&a->items[i])) return 1;
    return 0;
}

int rf_node_touches_complex(const rf_node *n) {
    for (size_t i = 0; i < n->nouts; i++)
        if (rf_dtype_is_complex(n->outs[i]->dtype)) return 1;
    for (size_t i = 0; i < n->nargs; i++)
        if (attr_has_complex(&n->args[i].attr)) return 1;
    return 0;
}

rf_analysis *rf_analyze(const rf_graph *g) {
    RF_OOM_GUARD(scope, return NULL)
    rf_analysis *a = analyze_impl(g);
    rf_oom_close(&scope);
    return a;
}

char *rf_analysis_print(const rf_analysis *a) {
    RF_OOM_GUARD(scope, return NULL)
    char *s = analysis_print_impl(a);
    rf_oom_close(&scope);
    return s;
}
