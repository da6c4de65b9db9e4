/* Part reads as slice + view. ExecuTorch's XNNPACK partitioner takes slice_copy
 * and view_copy but not select_copy, and each select it leaves out splits the
 * delegated region around it (RoPE reads the two parts of every packed value).
 * A select of index k on a dim of size 2 equals slice [k, k+1) on that dim
 * viewed without it, so for that target the core emits the latter. */
#include "passes/parts.h"
#include "ir/mem.h"

#include <stdlib.h>
#include <string.h>

#include "ir/verify.h"

static int int_arg(const rf_node *n, const char *name, int64_t *out) {
    const rf_attr *a = rf_node_arg(n, name);
    if (!a || a->kind != RF_A_INT) return 0;
    *out = a->i;
    return 1;
}

/* The normalised dim and index of a part read with a static result, or 0. */
static int part_read(const rf_node *n, int64_t *dim, int64_t *index) {
    if (strcmp(n->op, "aten.select.int") != 0 || n->nouts != 1) return 0;
    const rf_attr *self = rf_node_arg(n, "self");
    if (!self || self->kind != RF_A_VALUE || !int_arg(n, "dim", dim) || !int_arg(n, "index", index)) return 0;
    const rf_value *x = self->value, *out = n->outs[0];
    if (x->rank < 1 || out->rank != x->rank - 1) return 0;
    if (*dim < 0) *dim += x->rank;
    if (*dim < 0 || *dim >= x->rank || x->dims[*dim].sym || x->dims[*dim].size != 2) return 0;
    if (*index < 0) *index += 2;
    if (*index < 0 || *index > 1) return 0;
    for (int i = 0; i < out->rank; i++)
        if (out->dims[i].sym) return 0;
    return 1;
}

static rf_arg arg(const char *name, rf_attr a) {
    rf_arg r = {name, a};
    return r;
}

static void emit(rf_graph *g, const rf_node *sel, int64_t dim, int64_t index) {
    rf_value *x = rf_node_arg(sel, "self")->value, *out = sel->outs[0];
    rf_dim *dims = rf_alloc(g, (size_t)x->rank * sizeof(rf_dim));
    memcpy(dims, x->dims, (size_t)x->rank * sizeof(rf_dim));
    dims[dim].size = 1;
    rf_node *slice = rf_node_new(g, "aten.slice.Tensor", 4, 1);
    slice->args[0] = arg("self", rf_attr_ref(x));
    slice->args[1] = arg("dim", rf_attr_int(dim));
    slice->args[2] = arg("start", rf_attr_int(index));
    slice->args[3] = arg("end", rf_attr_int(index + 1));
    slice->outs[0] = rf_value_new(g, out->name, out->dtype, x->rank, dims);
    slice->origin = sel->origin;
    rf_graph_append_node(g, slice);
    int64_t sizes[RF_MAX_RANK + 1];
    for (int i = 0; i < out->rank; i++) sizes[i] = out->dims[i].size;
    rf_node *view = rf_node_new(g, "aten.view.default", 2, 1);
    view->args[0] = arg("self", rf_attr_ref(slice->outs[0]));
    view->args[1] = arg("size", rf_attr_ints(g, (size_t)out->rank, sizes));
    view->outs[0] = out; /* the select's result, so its readers stay as they are */
    view->origin = sel->origin;
    view->line = sel->line;
    rf_graph_append_node(g, view);
}

int rf_parts_as_slices(rf_graph *g) {
    size_t n = g->nnodes;
    rf_node **old = rf_malloc((n ? n : 1) * sizeof(*old));
    if (!old) return -1;
    if (n) memcpy(old, g->nodes, n * sizeof(*old)); /* an empty graph may have no node array */
    g->nnodes = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t dim, index;
        if (part_read(old[i], &dim, &index)) emit(g, old[i], dim, index);
        else rf_graph_append_node(g, old[i]);
    }
    rf_free(old);
    return 0;
}
