/* truncate_double end to end: every float64 left in a lowered graph becomes
 * float32 (rf_dtype_component's mapping under truncation), so a receiver with no
 * double (TensorRT, XNNPACK) takes the whole graph. The rules already lower
 * complex128 to float32 pairs; this pass narrows what they copied or made in
 * float64: the caller's real inputs, parameters and buffers, inline constants,
 * intermediate values and explicit dtype=float64 arguments. */
#include "passes/narrow.h"
#include "ir/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static rf_dtype narrowed(rf_dtype dt) { return rf_dtype_component(dt, 1); }

static void narrow_attr(rf_attr *a) {
    if (a->kind == RF_A_DTYPE) a->dtype = narrowed(a->dtype);
    else if (a->kind == RF_A_LIST)
        for (size_t i = 0; i < a->n; i++) narrow_attr(&a->items[i]);
}

static void forward_attr(rf_attr *a, rf_value *const *fwd) {
    if (a->kind == RF_A_VALUE) {
        while (fwd[a->value->id]) a->value = fwd[a->value->id];
    } else if (a->kind == RF_A_LIST) {
        for (size_t i = 0; i < a->n; i++) forward_attr(&a->items[i], fwd);
    }
}

/* _to_copy(self, dtype) that narrowing turns into float32 -> float32: its result is self. Only the plain form
 * (no layout, device or memory format asked) is an identity. */
static rf_value *identity_after(const rf_node *n) {
    if (strcmp(n->op, "aten._to_copy.default") != 0 || n->nouts != 1) return NULL;
    const rf_attr *self = NULL, *dt = NULL;
    for (size_t i = 0; i < n->nargs; i++) {
        const rf_arg *a = &n->args[i];
        if (strcmp(a->name, "self") == 0) self = &a->attr;
        else if (strcmp(a->name, "dtype") == 0) dt = &a->attr;
        else if (a->attr.kind != RF_A_NONE) return NULL;
    }
    if (!self || self->kind != RF_A_VALUE || !dt || dt->kind != RF_A_DTYPE) return NULL;
    rf_dtype from = self->value->dtype, to = dt->dtype;
    if (from == to || (from != RF_DT_F64 && to != RF_DT_F64) || narrowed(from) != narrowed(to)) return NULL;
    return self->value;
}

/* Decoded float64 bytes re-encoded as float32 (little-endian, as rf_b_constant writes them). */
static int narrow_data(rf_graph *g, rf_value *v) {
    size_t n = v->const_nbytes / 8;
    unsigned char *out = rf_alloc(g, n ? n * 4 : 1);
    if (!out) return 0;
    for (size_t i = 0; i < n; i++) {
        float f = (float)rf_le_float(v->const_data + i * 8, 8);
        uint32_t fb;
        memcpy(&fb, &f, 4);
        for (int k = 0; k < 4; k++) out[i * 4 + (size_t)k] = (unsigned char)(fb >> (8 * k));
    }
    v->const_data = out;
    v->const_nbytes = n * 4;
    return 1;
}

rf_status rf_narrow_double(rf_graph *g, const rf_node **bad) {
    *bad = NULL;
    for (size_t i = 0; i < g->nnodes; i++) { /* reinterpreting float64 bits has no float32 meaning */
        const rf_node *n = g->nodes[i];
        if (strcmp(n->op, "aten.view.dtype") != 0) continue;
        const rf_attr *self = rf_node_arg(n, "self");
        if ((self && self->kind == RF_A_VALUE && self->value->dtype == RF_DT_F64) ||
            (n->nouts && n->outs[0]->dtype == RF_DT_F64)) {
            *bad = n;
            return RF_ERR_UNSUPPORTED;
        }
    }
    rf_value **fwd = rf_calloc(g->nvalues + 1, sizeof(*fwd));
    if (!fwd) return RF_ERR_NOMEM;
    for (size_t i = 0; i < g->nnodes; i++) {
        rf_node *n = g->nodes[i];
        for (size_t j = 0; j < n->nargs; j++) forward_attr(&n->args[j].attr, fwd);
        rf_value *src = identity_after(n);
        if (src) fwd[n->outs[0]->id] = src;
    }
    for (size_t i = 0; i < g->noutputs; i++) forward_attr(&g->outputs[i], fwd);
    rf_free(fwd);
    for (size_t i = 0; i < g->ninputs; i++)
        if (g->inputs[i]->dtype == RF_DT_F64) g->inputs[i]->packed_from = RF_DT_F64;
    for (size_t i = 0; i < g->nconsts; i++) {
        rf_value *c = g->consts[i];
        if (c->dtype != RF_DT_F64) continue;
        if (!c->const_data) c->packed_from = RF_DT_F64; /* the caller's tensor: converted when installed */
        else if (!narrow_data(g, c)) return RF_ERR_NOMEM;
    }
    for (size_t i = 0; i < g->nvalues; i++) g->values[i]->dtype = narrowed(g->values[i]->dtype);
    for (size_t i = 0; i < g->nnodes; i++)
        for (size_t j = 0; j < g->nodes[i]->nargs; j++) narrow_attr(&g->nodes[i]->args[j].attr);
    return RF_OK;
}
