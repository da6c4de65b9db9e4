/* RoPE, the complex multiply of interleaved pairs by a per-position table shared by the heads,
 *
 *   mul(view_as_complex(r: [B, S, H, D/2, 2]), f: [B|1, S|1, 1, D/2])
 *
 * in the two forms receivers want (rows "rope.op" and "rope.graph" of registry.c):
 * - rope.op (opt-in; targets that have a fused rotary kernel: ONNX opset >= 23 RotaryEmbedding, which TensorRT's
 *   parser takes): realify.rotary_embedding(x=[B, S, H, D], cos=Re f, sin=Im f), out pair j =
 *   (x0 cos - x1 sin, x0 sin + x1 cos), cos/sin broadcast against the pairs;
 * - rope.graph (targets onnx and openvino, where rope.op did not take it): eager's product with the pair axis in
 *   front. It takes a table of rank 3 or 4 that broadcasts against q and is 1 over the heads, dim 1 or 2: the
 *   table above, a rank-3 one, f: [S, 1, D/2] (diffusers' Qwen-Image, apply_rotary_emb_qwen(use_real=False)), and
 *   the heads-first layout, q: [B, H, S, D/2] with f: [B|1, 1, S, D/2] (transformers' DeepSeek-V2, Wan-style
 *   3-D RoPE in diffusers' AnyFlow, complex128 there).
 * Anything else is left to the mul rule. */
#include <string.h>

#include "cxmath/cxmath.h"
#include "patterns/patterns.h"

static int is_one(const rf_dim *d) { return !d->sym && d->size == 1; }

/* f: rank 4, constant over heads (dim 2 is 1), each other dim 1 or out's: RotaryEmbedding's cos/sin. */
static int is_head_table(const rf_value *f, const rf_value *out) {
    if (f->rank != 4 || out->rank != 4 || !rf_dtype_is_complex(f->dtype) || !is_one(&f->dims[2])) return 0;
    for (int i = 0; i < 4; i++)
        if (i != 2 && !is_one(&f->dims[i]) && !rf_dim_equal(&f->dims[i], &out->dims[i])) return 0;
    return !f->dims[3].sym && f->dims[3].size == out->dims[3].size && !out->dims[3].sym;
}

/* f: rank 3 or 4, broadcasting against out = [B, S|H, H|S, D/2] (aligned at the right), its last dim out's, and
 * constant over the heads, whichever of dims 1 and 2 they are (1 or absent there): a table for any layout. A
 * factor of rank 1 or 2 ([D/2], [C, D/2]: a complex weight) is left to the mul rule. */
static int is_shared_table(const rf_value *f, const rf_value *out) {
    if (f->rank < 3 || f->rank > 4 || out->rank != 4 || !rf_dtype_is_complex(f->dtype)) return 0;
    const int lead = 4 - f->rank; /* out's dims that f does not have */
    for (int i = lead; i < 4; i++)
        if (!is_one(&f->dims[i - lead]) && !rf_dim_equal(&f->dims[i - lead], &out->dims[i])) return 0;
    int heads_shared = 0;
    for (int i = 1; i <= 2; i++) heads_shared |= i < lead || is_one(&f->dims[i - lead]);
    const rf_dim *last = &f->dims[f->rank - 1];
    return heads_shared && !last->sym && !out->dims[3].sym && last->size == out->dims[3].size;
}

static rf_arg arg_value(const char *name, rf_value *v) {
    rf_arg a = {.name = name, .attr = rf_attr_of_value(v)};
    return a;
}

static rf_arg arg_int(const char *name, int64_t i) {
    rf_arg a = {.name = name, .attr = rf_attr_int(i)};
    return a;
}

static rf_value *permute(rf_lowering *L, rf_value *x, const int64_t *perm) {
    rf_dim d[5];
    for (int i = 0; i < 5; i++) d[i] = x->dims[perm[i]];
    rf_arg args[2] = {{"self", rf_attr_ref(x)}, {"dims", rf_attr_ints(rf_out_graph(L), 5, perm)}};
    return rf_b_op(L, "aten.permute.default", 2, args, x->dtype, 5, d, "_perm");
}

/* Graph runtimes (ONNX Runtime, OpenVINO) run every op as its own pass, and a split or a stack on the
 * innermost axis of size 2 is their slowest kind: per-element copies (OpenVINO's Concat there is its
 * reference kernel, 75% of the axial RoPE's time). So the pair axis moves to the front first, one
 * transpose, where the parts are contiguous halves, and back after the product, one transpose. The
 * product itself is eager's, term for term. */
static int rotary_graph(rf_lowering *L, const rf_node *n, rf_value *pairs, rf_cx table) {
    static const int64_t to_front[5] = {4, 0, 1, 2, 3}, to_back[5] = {1, 2, 3, 4, 0};
    rf_value *t = permute(L, pairs, to_front);
    if (!t) return 0;
    rf_cx x = rf_cx_values(rf_b_select(L, t, 0, 0), rf_b_select(L, t, 0, 1));
    rf_cx y = rf_cx_mul_eager(L, x, table);
    rf_value *re = rf_b_materialize(L, y.re, x.re.v), *im = rf_b_materialize(L, y.im, x.re.v);
    if (rf_status_of(L) != RF_OK || !re || !im) return 0;
    rf_value *st = rf_b_stack2(L, re, im, 0);
    rf_value *back = st ? permute(L, st, to_back) : NULL;
    if (!back) return 0;
    /* contiguous, as the stack it replaces was: the user's code may view the result (a free Identity in ONNX) */
    rf_arg cargs[2] = {{"self", rf_attr_ref(back)}, {"memory_format", rf_attr_str("@memory_format:contiguous_format")}};
    rf_value *packed = rf_b_op(L, "aten.clone.default", 2, cargs, back->dtype, 5, back->dims, "_contig");
    if (!packed) return 0;
    rf_set_packed(L, n->outs[0], packed);
    return 1;
}

/* What both forms take from a matching multiply: the packed pairs r, the table's parts, the result. */
typedef struct rope_match {
    rf_value *pairs; /* r: [B, S, H, D/2, 2] */
    rf_cx table;
    const rf_value *out;
    rf_dtype w;
} rope_match;

typedef int (*table_test)(const rf_value *f, const rf_value *out);

static int match(rf_lowering *L, const rf_node *n, table_test is_table, rope_match *m) {
    if (strcmp(n->op, "aten.mul.Tensor") != 0 || n->nouts != 1) return 0;
    const rf_attr *self = rf_node_arg(n, "self"), *other = rf_node_arg(n, "other");
    if (!rf_attr_is_tensor(self) || !rf_attr_is_tensor(other)) return 0;
    const rf_value *out = n->outs[0], *x = self->value, *f = other->value;
    if (!(x->producer && strcmp(x->producer->op, "aten.view_as_complex.default") == 0)) {
        const rf_value *t = x;
        x = f;
        f = t;
    }
    if (!x->producer || strcmp(x->producer->op, "aten.view_as_complex.default") != 0) return 0;
    if (!rf_value_same_shape(x, out) || !is_table(f, out) || x->dtype != out->dtype) return 0;
    rf_dtype w = rf_work_dtype(L, n);
    if (!rf_dtype_is_floating(w) || rf_cx_known_real(L, f)) return 0;
    rf_value *pairs = rf_packed_of(L, x);
    if (!pairs || pairs->dtype != w || pairs->rank != 5) return 0;
    rf_cx table = rf_cx_of(L, f, w);
    if (rf_status_of(L) != RF_OK || !table.re.v || !table.im.v) return 0;
    m->pairs = pairs;
    m->table = table;
    m->out = out;
    m->w = w;
    return 1;
}

int rf_pattern_rope_graph(rf_lowering *L, const rf_node *n) {
    if (!rf_graph_runtime(L)) return 0; /* rope.op comes first in the table */
    rope_match m;
    return match(L, n, is_shared_table, &m) && rotary_graph(L, n, m.pairs, m.table);
}

int rf_pattern_rope_op(rf_lowering *L, const rf_node *n) {
    rope_match m;
    if (!match(L, n, is_head_table, &m)) return 0;
    rf_value *pairs = m.pairs;
    const rf_value *out = m.out;
    rf_dtype w = m.w;
    rf_cx table = m.table;
    rf_dim dims[5];
    memcpy(dims, pairs->dims, 5 * sizeof(rf_dim));
    dims[3].size = 2 * out->dims[3].size;
    rf_arg fa[3] = {arg_value("self", pairs), arg_int("start_dim", 3), arg_int("end_dim", 4)};
    rf_value *flat = rf_b_op(L, "aten.flatten.using_ints", 3, fa, w, 4, dims, "_x");
    rf_arg ra[3] = {arg_value("x", flat), arg_value("cos", table.re.v), arg_value("sin", table.im.v)};
    rf_value *rot = rf_b_op(L, "realify.rotary_embedding.default", 3, ra, w, 4, dims, "_rope");
    rf_arg ua[3] = {arg_int("dim", 3), arg_int("dim", 3), arg_int("dim", 3)};
    ua[0] = arg_value("self", rot);
    ua[2].name = "sizes";
    ua[2].attr.kind = RF_A_LIST;
    ua[2].attr.n = 2;
    ua[2].attr.items = rf_alloc(rf_out_graph(L), 2 * sizeof(rf_attr));
    ua[2].attr.items[0] = rf_attr_int(out->dims[3].size);
    ua[2].attr.items[1] = rf_attr_int(2);
    rf_value *packed = rf_b_op(L, "aten.unflatten.int", 3, ua, w, 5, pairs->dims, "_packed");
    rf_set_packed(L, out, packed);
    return 1;
}
