/* A complex product summed over the last dim against a vector (beamforming's (z * conj(steer)).sum(-1), a
 * complex matrix-vector product written out),
 *
 *   sum(mul(x: [..., M], w: [1.., M]), dim=[-1], keepdim)     x held packed ([..., M, 2]: an input, view_as_complex)
 *
 * for graph runtimes (targets onnx and openvino): the packed pairs, flattened to [..., 2M], times the two columns
 * of the real [2M, 2] embedding of w, whose rows 2m and 2m+1 are (Re w_m, Im w_m) and (-Im w_m, Re w_m): two
 * matrix-vector products, the sum's two parts. The elementwise lowering splits the pairs
 * of x (a per-element copy in those runtimes), takes four products over the whole of x and two reductions.
 * The sum's terms are added in the MatMul's order, not the reduction's (the values differ by rounding only).
 * Anything else is left to the mul and sum rules. */
#include <string.h>

#include "lower/realops.h"
#include "patterns/patterns.h"

static int is_one(const rf_dim *d) { return !d->sym && d->size == 1; }

/* w broadcasts against x [..., M] as a vector over x's last dim: every dim 1 but its last, which is M. */
static int is_last_dim_vector(const rf_value *w, const rf_value *x) {
    if (w->rank < 1 || w->rank > x->rank) return 0;
    const rf_dim *m = &w->dims[w->rank - 1], *xm = &x->dims[x->rank - 1];
    if (m->sym || xm->sym || m->size != xm->size || m->size < 2) return 0;
    for (int i = 0; i < w->rank - 1; i++)
        if (!is_one(&w->dims[i])) return 0;
    return 1;
}

/* The sum over n's result's last dim that is its only reader, with *keepdim; NULL otherwise. */
static const rf_node *last_dim_sum(const rf_lowering *L, const rf_node *n, int *keepdim) {
    const rf_value *v = n->outs[0];
    const rf_node *s = rf_sole_reader(rf_in_graph(L), v, "self");
    if (!s || strcmp(s->op, "aten.sum.dim_IntList") || s->nouts != 1 || s->outs[0]->dtype != v->dtype) return NULL;
    const rf_attr *dim = rf_node_arg(s, "dim"), *kd = rf_node_arg(s, "keepdim"), *dt = rf_node_arg(s, "dtype");
    if (dt && dt->kind != RF_A_NONE) return NULL;
    if (!dim || dim->kind != RF_A_LIST || dim->n != 1 || dim->items[0].kind != RF_A_INT) return NULL;
    int64_t d = dim->items[0].i;
    if (d != -1 && d != v->rank - 1) return NULL;
    if (kd && kd->kind != RF_A_BOOL) return NULL;
    *keepdim = kd ? (int)kd->i : 0;
    return s;
}

/* The packed pairs of x when the lowering holds them without a stack; NULL otherwise. */
static rf_value *free_pairs(rf_lowering *L, const rf_value *x, rf_dtype w) {
    int held = rf_is_packed_input(L, x) || (x->producer && strcmp(x->producer->op, "aten.view_as_complex.default") == 0);
    if (!held) return NULL;
    rf_value *p = rf_packed_of(L, x);
    return (p && p->dtype == w && p->rank == x->rank + 1) ? p : NULL;
}

/* The two columns of the real [2M, 2] embedding of the vector w (parts of any rank, all dims 1 but the last):
 * (Re w_m, -Im w_m) and (Im w_m, Re w_m) interleaved, each [2M, 1]. */
static int embedding_columns(rf_lowering *L, rf_cx w, int rank, rf_value **col_re, rf_value **col_im) {
    rf_value *re = rf_b_materialize(L, w.re, w.re.v), *im = rf_b_materialize(L, w.im, w.re.v);
    if (!re || !im) return 0;
    if (rank > 1) re = rf_b_flatten(L, re, 0, rank - 1), im = rf_b_flatten(L, im, 0, rank - 1);
    rf_value *neg_im = rf_b_materialize(L, rf_b_neg(L, rf_val(im)), im);
    rf_value *a = rf_b_stack2(L, re, neg_im, -1), *b = rf_b_stack2(L, im, re, -1); /* [M, 2] */
    *col_re = a ? rf_b_unsqueeze(L, rf_b_flatten(L, a, 0, 1), 1) : NULL;
    *col_im = b ? rf_b_unsqueeze(L, rf_b_flatten(L, b, 0, 1), 1) : NULL;
    return *col_re && *col_im;
}

int rf_pattern_mul_sum(rf_lowering *L, const rf_node *n) {
    if (!rf_graph_runtime(L)) return 0;
    if (strcmp(n->op, "aten.mul.Tensor") || n->nouts != 1 || !rf_dtype_is_complex(n->outs[0]->dtype)) return 0;
    const rf_attr *a = rf_node_arg(n, "self"), *b = rf_node_arg(n, "other");
    if (!rf_attr_is_tensor(a) || !rf_attr_is_tensor(b) || a->value == b->value) return 0;
    const rf_value *out = n->outs[0], *x = a->value, *v = b->value;
    if (!rf_value_same_shape(x, out)) {
        const rf_value *t = x;
        x = v;
        v = t;
    }
    int keepdim = 0;
    const rf_node *sum;
    if (!rf_value_same_shape(x, out) || x->dtype != out->dtype || !is_last_dim_vector(v, x) ||
        !rf_dtype_is_complex(v->dtype) || rf_cx_known_real(L, v) || !(sum = last_dim_sum(L, n, &keepdim)))
        return 0;
    rf_dtype w = rf_work_dtype(L, n);
    rf_value *pairs = free_pairs(L, x, w);
    if (!pairs) return 0;
    rf_cx wv = rf_cx_of(L, v, w);
    if (rf_status_of(L) != RF_OK || !wv.re.v) return 0;
    rf_value *col_re, *col_im;
    if (!embedding_columns(L, wv, v->rank, &col_re, &col_im)) return 0;
    /* two matrix-vector products: ONNX Runtime 1.32's MatMul by a [2M, 1] column ran 2.3x faster than one by
     * [2M, 2], and by a 1-D [2M] vector 20x slower */
    rf_value *flat = rf_b_flatten(L, pairs, pairs->rank - 2, pairs->rank - 1); /* [..., 2M] */
    rf_value *y_re = flat ? rf_b_matmul(L, flat, col_re) : NULL, *y_im = flat ? rf_b_matmul(L, flat, col_im) : NULL;
    /* [..., 1] each: the sum's parts with keepdim; published as parts, since a reader that wants the pairs
     * stacks them and most (abs, angle) read the parts */
    if (y_re && y_im && !keepdim) y_re = rf_b_squeeze(L, y_re, y_re->rank - 1), y_im = rf_b_squeeze(L, y_im, y_im->rank - 1);
    if (rf_status_of(L) != RF_OK || !y_re || !y_im) return 0;
    rf_set_cx(L, sum->outs[0], rf_cx_values(y_re, y_im));
    rf_fuse_node(L, sum);
    rf_set_unread(L, out);
    return 1;
}
