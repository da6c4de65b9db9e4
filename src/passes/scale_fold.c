/* A scalar factor on a product with a constant matrix, folded into the matrix: a rewrite of the new graph (IR
 * only), which the builder asks before it multiplies (rf_b_scale).
 *
 * The matmul FFT plans end in a product with a DFT matrix of ours, and an
 * inverse transform's 1/n then scaled the whole output in a pass of its own
 * (6.5 us for the FNO layer's 16 MB output on an H200). Scaling the matrix
 * instead costs nothing at run time. For a power of two the result has the
 * same bits; otherwise each matrix entry is rounded once more (half an ulp). */
#include "passes/scale_fold.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ir/consts.h"
#include "ir/mem.h"

enum { MAX_FOLD_BYTES = 64 << 20 };

static int is_product(const char *op) {
    return strcmp(op, "aten.matmul.default") == 0 || strcmp(op, "aten.mm.default") == 0 ||
           strcmp(op, "aten.bmm.default") == 0;
}

/* The static shape of constant c in dims, and its element count; 0 when a dim is symbolic or the count overflows. */
static int static_shape(const rf_value *c, int64_t *dims, size_t *numel) {
    size_t n = 1;
    for (int d = 0; d < c->rank; d++) {
        dims[d] = c->dims[d].size;
        if (c->dims[d].sym || dims[d] < 0 || (dims[d] && n > SIZE_MAX / (size_t)dims[d])) return 0;
        n *= (size_t)dims[d];
    }
    *numel = n;
    return 1;
}

/* The constant's numel elements as doubles (little-endian f32 or f64 data that fills them exactly), or NULL. */
static double *decode(const rf_value *c, size_t numel) {
    size_t esize = c->dtype == RF_DT_F32 ? 4 : c->dtype == RF_DT_F64 ? 8 : 0;
    if (!esize || !c->const_data || c->const_nbytes > MAX_FOLD_BYTES || c->const_nbytes / esize != numel ||
        c->const_nbytes % esize)
        return NULL;
    double *out = rf_malloc((numel ? numel : 1) * sizeof *out);
    if (!out) return NULL;
    for (size_t i = 0; i < numel; i++) out[i] = rf_le_float(c->const_data + i * esize, esize);
    return out;
}

static int read_elsewhere(const rf_graph *g, const rf_value *x) {
    for (size_t i = x->producer->index + 1; i < g->nnodes; i++)
        for (size_t k = 0; k < g->nodes[i]->nargs; k++)
            if (rf_attr_refs(&g->nodes[i]->args[k].attr, x)) return 1;
    for (size_t i = 0; i < g->noutputs; i++)
        if (rf_attr_refs(&g->outputs[i], x)) return 1;
    return 0;
}

/* The product n with its constant operand scaled by s, appended to g; NULL when n has none (or out of memory:
 * *why). */
static rf_value *fold(rf_graph *g, const rf_node *n, double s, const char *hint, const rf_node *origin,
                      rf_status *why) {
    if (n->nargs > 4 || n->nouts != 1) return NULL;
    rf_arg args[4];
    int folded = 0;
    for (size_t i = 0; i < n->nargs; i++) {
        args[i] = n->args[i];
        const rf_value *c = args[i].attr.kind == RF_A_VALUE ? args[i].attr.value : NULL;
        int64_t dims[8];
        size_t numel = 0;
        if (folded || !c || !c->const_data || c->rank < 0 || c->rank > 8 || !static_shape(c, dims, &numel)) continue;
        double *data = decode(c, numel);
        if (!data) continue;
        for (size_t k = 0; k < numel; k++) data[k] *= s;
        char name[160];
        snprintf(name, sizeof name, "%s_scaled", c->name);
        rf_value *scaled = rf_graph_const_data(g, name, c->dtype, c->rank, dims, data, why);
        rf_free(data);
        if (!scaled) return NULL;
        args[i].attr = rf_attr_ref(scaled);
        folded = 1;
    }
    if (!folded) return NULL;
    rf_node *m = rf_node_new(g, n->op, n->nargs, 1);
    for (size_t i = 0; i < n->nargs; i++) {
        m->args[i].name = rf_strdup(g, args[i].name);
        m->args[i].attr = args[i].attr;
    }
    const rf_value *like = n->outs[0];
    m->outs[0] = rf_value_new(g, hint, like->dtype, like->rank, like->dims);
    m->origin = origin;
    rf_graph_append_node(g, m);
    return m->outs[0];
}

rf_value *rf_fold_scale(rf_graph *g, rf_value *x, double s, const char *hint, const rf_node *origin,
                        rf_status *why) {
    *why = RF_OK;
    const rf_node *n = x ? x->producer : NULL;
    if (!n || !is_product(n->op) || read_elsewhere(g, x)) return NULL;
    return fold(g, n, s, hint, origin, why);
}
