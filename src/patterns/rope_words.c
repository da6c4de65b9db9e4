/* bfloat16 RoPE with each pair as one 32-bit word (the opt-in pattern "rope.words",
 * for Inductor; the backend turns it on). Llama's rotary embedding
 *
 *   view_as_complex(view(_to_copy(q: bf16 [.., D], float32), [.., D/2, 2])) * f
 *     -> view_as_real -> view [.., D] -> _to_copy(bfloat16)
 *
 * reads and writes the pairs of q as two bfloat16 lanes each. Inductor turns
 * those into strided loads and stores and reached 47% of a copy's bandwidth on
 * the H200 (bench/rope_forms.py). Here q is viewed as int32 words [.., D/2]:
 * x0 = word << 16 and x1 = word & 0xffff0000 are the pair's floats exactly, the
 * product is the ordinary one (the same expression, so the same rounding), and
 * the results go back into one word with round-to-nearest-even done on the bits
 * (NaN stays a quiet NaN), as the float32 -> bfloat16 cast does. The pattern owns
 * the nodes from the multiply to the cast (they read nothing else) and publishes
 * the cast's result. Anything else is left to the ordinary multiply. */
#include <string.h>

#include "cxmath/cxmath.h"
#include "patterns/patterns.h"

#define HIGH_HALF (-65536) /* 0xffff0000 as int32 */
/* Inductor runs a view between dtypes of different widths as a fallback call on the host, two per rotated tensor:
 * worth it where the kernel moves megabytes (prefill), not for a decode step's few kilobytes, which is host-bound
 * already. Tensors of fewer elements keep the ordinary multiply; a symbolic dim counts as SYMBOLIC_GUESS. */
#define MIN_WORDS ((int64_t)1 << 19)
#define SYMBOLIC_GUESS 128
#define QUIET_NAN 0x7fc00000

static const char *const view_ops[] = {"aten.view.default", "aten.reshape.default", "aten._unsafe_view.default",
                                       "aten.flatten.using_ints", NULL};

static const rf_value *self_of(const rf_node *n) {
    const rf_attr *a = rf_node_arg(n, "self");
    return a && a->kind == RF_A_VALUE ? a->value : NULL;
}

/* _to_copy(self, dtype=to) that changes nothing but the dtype (no device: the front end leaves out a device
 * argument that names the input's own device). */
static int is_cast_to(const rf_node *n, rf_dtype to) {
    if (!n || strcmp(n->op, "aten._to_copy.default") != 0 || n->nouts != 1 || n->outs[0]->dtype != to) return 0;
    const rf_attr *dev = rf_node_arg(n, "device");
    if (dev && dev->kind != RF_A_NONE) return 0;
    const rf_attr *mf = rf_node_arg(n, "memory_format");
    return !mf || mf->kind == RF_A_NONE ||
           (mf->kind == RF_A_STR && strcmp(mf->s, "@memory_format:preserve_format") == 0);
}

static int large_enough(const rf_value *q) {
    int64_t n = 1;
    for (int i = 0; i < q->rank; i++) {
        int64_t s = q->dims[i].sym ? SYMBOLIC_GUESS : q->dims[i].size;
        if (s <= 0) return 0;
        if (s >= MIN_WORDS) return 1;
        n *= s; /* both below 2^19: no overflow */
        if (n >= MIN_WORDS) return 1;
    }
    return 0;
}

/* v has q's shape: [.., D], D static and even. */
static int same_dims(const rf_value *v, const rf_value *q) {
    return v && v->rank == q->rank && rf_value_same_shape(v, q);
}

/* The bf16 tensor q whose float32 copy x (complex [.., D/2]) views as pairs, or NULL; *copy gets that copy. */
static const rf_value *source_words(const rf_value *x, const rf_node **copy) {
    if (!x->producer || strcmp(x->producer->op, "aten.view_as_complex.default") != 0) return NULL;
    const rf_value *p = self_of(x->producer);
    while (p && p->producer && rf_str_in(p->producer->op, view_ops)) p = self_of(p->producer);
    if (!p || !is_cast_to(p->producer, RF_DT_F32)) return NULL;
    *copy = p->producer;
    const rf_value *q = self_of(p->producer);
    if (!q || q->dtype != RF_DT_BF16 || q->rank != x->rank || q->rank < 1 || !large_enough(q)) return NULL;
    const rf_dim *d = &q->dims[q->rank - 1], *h = &x->dims[x->rank - 1];
    if (d->sym || h->sym || d->size != 2 * h->size) return NULL;
    for (int i = 0; i + 1 < q->rank; i++)
        if (!rf_dim_equal(&q->dims[i], &x->dims[i])) return NULL;
    return q;
}

static rf_value *op2(rf_lowering *L, const char *op, rf_value *x, const char *name, rf_attr other, rf_dtype dt) {
    rf_arg a[2] = {{"self", rf_attr_ref(x)}, {name, other}};
    return rf_b_op(L, op, 2, a, dt, x->rank, x->dims, "_w");
}

static rf_value *view_as(rf_lowering *L, rf_value *x, rf_dtype dt, const rf_dim *dims) {
    rf_attr d = {0};
    d.kind = RF_A_DTYPE;
    d.dtype = dt;
    rf_arg a[2] = {{"self", rf_attr_ref(x)}, {"dtype", d}};
    return rf_b_op(L, "aten.view.dtype", 2, a, dt, x->rank, dims, "_w");
}

static rf_value *shift(rf_lowering *L, rf_value *w, int left) {
    return op2(L, left ? "aten.bitwise_left_shift.Tensor_Scalar" : "aten.bitwise_right_shift.Tensor_Scalar", w,
               "other", rf_attr_int(16), RF_DT_I32);
}

static rf_value *mask(rf_lowering *L, rf_value *w, int64_t m) {
    return op2(L, "aten.bitwise_and.Scalar", w, "other", rf_attr_int(m), RF_DT_I32);
}

/* float32 v -> its bfloat16 bits in the top half of an int32, rounded to nearest even. */
static rf_value *round_bits(rf_lowering *L, rf_value *v) {
    rf_value *b = view_as(L, v, RF_DT_I32, v->dims);
    rf_value *lsb = mask(L, shift(L, b, 0), 1);
    rf_arg add[2] = {{"self", rf_attr_ref(b)}, {"other", rf_attr_ref(lsb)}};
    rf_value *t = rf_b_op(L, "aten.add.Tensor", 2, add, RF_DT_I32, b->rank, b->dims, "_w");
    t = mask(L, op2(L, "aten.add.Scalar", t, "other", rf_attr_int(0x7fff), RF_DT_I32), HIGH_HALF);
    rf_value *nan = rf_b_op(L, "aten.isnan.default", 1, (rf_arg[]){{"self", rf_attr_ref(v)}}, RF_DT_BOOL, v->rank,
                            v->dims, "_w");
    rf_arg w[3] = {{"condition", rf_attr_ref(nan)}, {"self", rf_attr_int(QUIET_NAN)}, {"other", rf_attr_ref(t)}};
    return rf_b_op(L, "aten.where.ScalarSelf", 3, w, RF_DT_I32, t->rank, t->dims, "_w");
}

int rf_pattern_rope_words(rf_lowering *L, const rf_node *n) {
    if (strcmp(n->op, "aten.mul.Tensor") != 0 || n->nouts != 1) return 0;
    const rf_attr *self = rf_node_arg(n, "self"), *other = rf_node_arg(n, "other");
    if (!rf_attr_is_tensor(self) || !rf_attr_is_tensor(other)) return 0;
    const rf_node *copy = NULL;
    const rf_value *out = n->outs[0], *q = source_words(self->value, &copy);
    int x_first = q != NULL;
    if (!q) q = source_words(other->value, &copy);
    const rf_value *x = x_first ? self->value : other->value, *f = x_first ? other->value : self->value;
    if (!q || out->dtype != RF_DT_C64 || x->dtype != RF_DT_C64 || f->dtype != RF_DT_C64 ||
        !rf_value_same_shape(x, out))
        return 0;
    /* the result's only way out: view_as_real -> a view back to q's shape -> a bfloat16 cast */
    const rf_graph *g = rf_in_graph(L);
    const rf_node *v1 = rf_sole_reader(g, out, NULL), *v2 = v1 ? rf_sole_reader(g, v1->outs[0], NULL) : NULL;
    if (!v1 || strcmp(v1->op, "aten.view_as_real.default") != 0 || !v2 || !rf_str_in(v2->op, view_ops) ||
        v2->nouts != 1 || !same_dims(v2->outs[0], q))
        return 0;
    const rf_node *cast = rf_sole_reader(g, v2->outs[0], NULL);
    if (!is_cast_to(cast, RF_DT_BF16) || self_of(cast) != v2->outs[0]) return 0;
    rf_cx table = rf_cx_of(L, f, RF_DT_F32);
    if (rf_status_of(L) != RF_OK || !table.re.v) return 0;

    rf_value *words = view_as(L, rf_in_real(L, copy, "self"), RF_DT_I32, out->dims); /* [.., D/2] */
    rf_value *x0 = view_as(L, shift(L, words, 1), RF_DT_F32, out->dims);
    rf_value *x1 = view_as(L, mask(L, words, HIGH_HALF), RF_DT_F32, out->dims);
    rf_cx pair = rf_cx_values(x0, x1);
    rf_cx y = x_first ? rf_cx_mul_eager(L, pair, table) : rf_cx_mul_eager(L, table, pair);
    if (rf_status_of(L) != RF_OK || !y.re.v || !y.im.v) return 0;
    rf_value *lo = mask(L, shift(L, round_bits(L, y.re.v), 0), 0xffff);
    rf_arg or[2] = {{"self", rf_attr_ref(lo)}, {"other", rf_attr_ref(round_bits(L, y.im.v))}};
    rf_value *word = rf_b_op(L, "aten.bitwise_or.Tensor", 2, or, RF_DT_I32, lo->rank, lo->dims, "_w");
    rf_set_real(L, cast->outs[0], view_as(L, word, RF_DT_BF16, q->dims));
    rf_set_unread(L, out);
    const rf_node *owned[3] = {v1, v2, cast};
    for (int i = 0; i < 3; i++) {
        rf_fuse_node(L, owned[i]);
        if (i < 2) rf_set_unread(L, owned[i]->outs[0]);
    }
    return 1;
}
