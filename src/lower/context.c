/* The lowering context: options, dtypes, the failure state. Builders and the
 * driver read it; rules reach it only through lower.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lower/lower_internal.h"

const rf_lower_options *rf_options(const rf_lowering *L) { return &L->opt; }

int rf_graph_runtime(const rf_lowering *L) { return (L->opt.target & (RF_TARGET_ONNX | RF_TARGET_OPENVINO)) != 0; }
rf_graph *rf_out_graph(rf_lowering *L) { return L->out; }

rf_dtype rf_component_of(const rf_lowering *L, rf_dtype dt) { return rf_dtype_component(dt, L->opt.truncate_double); }

rf_dtype rf_work_dtype(const rf_lowering *L, const rf_node *n) {
    for (size_t i = 0; i < n->nouts; i++)
        if (rf_dtype_is_complex(n->outs[i]->dtype)) return rf_component_of(L, n->outs[i]->dtype);
    return n->nouts ? rf_component_of(L, n->outs[0]->dtype) : RF_DT_F32;
}

rf_status rf_fail(rf_lowering *L, const rf_node *n, rf_status code, const char *fmt, ...) {
    if (L->failed) return L->status;
    L->failed = 1;
    L->status = code;
    if (L->err) {
        L->err->code = code;
        snprintf(L->err->op, sizeof L->err->op, "%s", n ? n->op : "");
        snprintf(L->err->node, sizeof L->err->node, "%s", (n && n->nouts) ? n->outs[0]->name : "");
        int in_input = n && n->index < L->in->nnodes && L->in->nodes[n->index] == n;
        L->err->node_pos = in_input ? n->index + 1 : 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(L->err->message, sizeof L->err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

rf_attr rf_map_attr(rf_lowering *L, const rf_attr *a) { return rf_attr_copy(L->out, a, L->real_map); }

rf_status rf_status_of(const rf_lowering *L) { return L->failed ? L->status : RF_OK; }

int rf_cx_known_real(const rf_lowering *L, const rf_value *orig) {
    return !rf_dtype_is_complex(orig->dtype) || L->cx_map[orig->id].im_zero;
}

int rf_is_packed_input(const rf_lowering *L, const rf_value *orig) {
    return !orig->producer && rf_dtype_is_complex(orig->dtype) && L->cx_map[orig->id].packed != NULL;
}

int rf_holds_packed(const rf_lowering *L, const rf_value *orig) {
    return rf_dtype_is_complex(orig->dtype) && L->cx_map[orig->id].packed != NULL;
}

/* linalg solve family: whether an input-graph value is read by a node or is a graph output, so a rule
 * can skip building a result nobody reads (an unrolled factorisation behind an unused output). */
int rf_value_is_used(const rf_lowering *L, const rf_value *orig) {
    for (size_t i = 0; i < L->in->nnodes; i++) {
        const rf_node *n = L->in->nodes[i];
        for (size_t k = 0; k < n->nargs; k++)
            if (rf_attr_refs(&n->args[k].attr, orig)) return 1;
    }
    for (size_t i = 0; i < L->in->noutputs; i++)
        if (rf_attr_refs(&L->in->outputs[i], orig)) return 1;
    return 0;
}

const rf_graph *rf_in_graph(const rf_lowering *L) { return L->in; }

void rf_fuse_node(rf_lowering *L, const rf_node *later) {
    if (L->fused && later->index < L->in->nnodes && L->in->nodes[later->index] == later) L->fused[later->index] = 1;
}

void rf_set_unread(rf_lowering *L, const rf_value *orig) {
    if (!rf_dtype_is_complex(orig->dtype)) {
        L->real_unread[orig->id] = 1;
        return;
    }
    cx_state *st = &L->cx_map[orig->id];
    memset(st, 0, sizeof *st);
    st->unread = 1;
}
