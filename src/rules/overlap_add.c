/* unfold_backward as an overlap-add of the frames (rf_b_overlap_add, lower/shapeops.c: plain pads, views, a
 * slice and a sum, which every deployment target loads). aten.unfold_backward becomes an index scatter in
 * torch.onnx (ScatterND with int32 indices, which ONNX Runtime refuses to load) and OpenVINO has no conversion
 * for it; the overlap-add is also a gather-free, fusable form for Inductor, so it is the one form realify emits
 * wherever the frame count is static. */
#include <string.h>

#include "lower/realops.h"
#include "rules/rules.h"

/* x with its last dim moved to `to` (a permute; x itself when it is already there). */
static rf_value *last_to(rf_lowering *L, rf_value *x, int64_t to) {
    if (!x || to == x->rank - 1) return x;
    int64_t perm[RF_MAX_RANK];
    rf_dim d[RF_MAX_RANK];
    for (int64_t i = 0, k = 0; i < x->rank; i++) perm[i] = i == to ? x->rank - 1 : k++;
    for (int i = 0; i < x->rank; i++) d[i] = x->dims[perm[i]];
    rf_arg args[2] = {{"self", rf_attr_ref(x)}, {"dims", rf_attr_ints(rf_out_graph(L), (size_t)x->rank, perm)}};
    return rf_b_op(L, "aten.permute.default", 2, args, x->dtype, x->rank, d, "_perm");
}

/* Whether the result `out` is x's shape up to `skip`, or x broadcast to it (torch's istft reference overlap-adds a
 * [1, frames, n_fft] window envelope into [batch, len]): 1 equal, 2 needs an expand (static), 0 neither. */
static int same_or_broadcast(const rf_value *x, const rf_value *out, int64_t skip) {
    int expand = 0;
    for (int64_t i = 0; i < out->rank; i++) {
        const rf_dim *a = &x->dims[i], *b = &out->dims[i];
        if (i == skip || (a->sym && b->sym && strcmp(a->sym, b->sym) == 0) || (!a->sym && !b->sym && a->size == b->size))
            continue;
        if (a->sym || b->sym || a->size != 1) return 0;
        expand = 1;
    }
    return expand ? 2 : 1;
}

static rf_value *expand_to(rf_lowering *L, rf_value *x, const rf_value *out) {
    if (!x) return NULL;
    int64_t shape[RF_MAX_RANK];
    for (int i = 0; i < out->rank; i++) shape[i] = out->dims[i].size;
    rf_arg args[2] = {{"self", rf_attr_ref(x)}, {"size", rf_attr_ints(rf_out_graph(L), (size_t)out->rank, shape)}};
    return rf_b_op(L, "aten.expand.default", 2, args, x->dtype, out->rank, out->dims, "_exp");
}

/* unfold_backward(grad_in, input_sizes, dim, size, step): grad_in is input_sizes with dim replaced by the frame
 * count and the window appended last. A symbolic frame count or output length keeps the op, per part. */
static rf_status unfold_backward(rf_lowering *L, const rf_node *n) {
    const rf_attr *g = rf_node_arg(n, "grad_in"), *sizes = rf_node_arg(n, "input_sizes");
    int64_t dim, size, step;
    if (!rf_attr_is_tensor(g) || !sizes || sizes->kind != RF_A_LIST || rf_opt_int(n, "dim", &dim) != 1 ||
        rf_opt_int(n, "size", &size) != 1 || rf_opt_int(n, "step", &step) != 1 || step < 1)
        return rf_lower_componentwise(L, n);
    int64_t rank = (int64_t)sizes->n;
    const rf_value *gv = g->value;
    if (dim < 0) dim += rank;
    if (rank < 1 || rank >= RF_MAX_RANK || gv->rank != rank + 1 || dim < 0 || dim >= rank ||
        sizes->items[dim].kind != RF_A_INT || gv->dims[dim].sym || gv->dims[rank].sym || gv->dims[rank].size != size)
        return rf_lower_componentwise(L, n);
    const rf_value *out = n->outs[0];
    int fit = out->rank == rank ? same_or_broadcast(gv, out, dim) : 0;
    if (!fit || out->dims[dim].sym || out->dims[dim].size != sizes->items[dim].i) return rf_lower_componentwise(L, n);
    rf_cx z = rf_in_cx(L, n, "grad_in", rf_work_dtype(L, n));
    int64_t len = sizes->items[dim].i;
    rf_value *re = rf_b_overlap_add(L, last_to(L, z.re.v, dim + 1), dim, step, len);
    rf_value *im = z.im_zero ? NULL : rf_b_overlap_add(L, last_to(L, z.im.v, dim + 1), dim, step, len);
    if (fit == 2) re = expand_to(L, re, out), im = im ? expand_to(L, im, out) : NULL;
    RF_CHECK(L);
    rf_set_cx(L, out, rf_cx_values(re, im));
    return RF_OK;
}

const rf_rule_entry rf_rules_overlap_add[] = {
    {"aten.unfold_backward.default", unfold_backward, 0},
    {NULL, NULL, 0},
};
