/* What a tensor built from zeros holds (fft_keep.h): the blocks written into a zeros tensor by slice_scatter (and
 * the slices, clones and copies functionalization makes of slice assignment such as out_ft[:, :, :m1, :m2] = ...),
 * or by zero pads and cat of the blocks. The patterns fft.sparse and fft.blocks read an inverse transform's input
 * through it. Anything not understood is one dense block: the tensor is then no block spectrum. */
#include <string.h>

#include "ir/mem.h"
#include "patterns/fft_keep.h"

void rf_fft_writes_free(rf_fft_writes *l) {
    for (size_t i = 0; i < l->n; i++) rf_free(l->w[i].lo);
    rf_free(l->w);
    memset(l, 0, sizeof *l);
}

int rf_fft_writes_push(rf_fft_writes *l, const rf_value *src, const int64_t *lo, const int64_t *hi, int rank) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 4;
        rf_fft_write *w = rf_realloc(l->w, cap * sizeof *w);
        if (!w) return 0;
        l->w = w;
        l->cap = cap;
    }
    int64_t *box = rf_fft_box(lo, hi, rank);
    if (!box) return 0;
    l->w[l->n++] = (rf_fft_write){src, box, box + rank};
    return 1;
}

static const rf_value *value_arg(const rf_node *n, const char *name) {
    const rf_attr *a = rf_node_arg(n, name);
    return (a && a->kind == RF_A_VALUE) ? a->value : NULL;
}

static int is_zero_fill(const rf_node *p) {
    const char *op = p->op;
    if (!strcmp(op, "aten.zeros.default") || !strcmp(op, "aten.zeros_like.default") ||
        !strcmp(op, "aten.new_zeros.default"))
        return 1;
    if (strcmp(op, "aten.full.default") && strcmp(op, "aten.full_like.default") && strcmp(op, "aten.new_full.default"))
        return 0;
    const rf_attr *v = rf_node_arg(p, "fill_value");
    if (!v) return 0;
    return ((v->kind == RF_A_INT || v->kind == RF_A_BOOL) && v->i == 0) || (v->kind == RF_A_FLOAT && v->f == 0.0) ||
           (v->kind == RF_A_COMPLEX && v->f == 0.0 && v->f_im == 0.0);
}

/* dim, start, end of a step-1 slice or slice_scatter over a static dim of v,
 * normalised as torch does; 0 otherwise. */
static int slab(const rf_node *p, const rf_value *v, int64_t *d, int64_t *a, int64_t *b) {
    int64_t dim, start, end;
    if (v->rank < 1 || !rf_fft_step1_slice(p, v->rank, &dim, &start, &end) || v->dims[dim].sym) return 0;
    rf_fft_clamp_slice(v->dims[dim].size, &start, &end);
    *d = dim, *a = start, *b = end;
    return 1;
}

/* Appends the writes of `in` relative to the slab [a, b) of dim d: those
 * inside shifted by -a (inside = 1), or those outside unchanged (inside = 0).
 * 0 when a write straddles the slab's edge. */
static int filter(rf_fft_writes *out, const rf_fft_writes *in, int rank, int64_t d, int64_t a, int64_t b, int inside) {
    for (size_t i = 0; i < in->n; i++) {
        rf_fft_write w = in->w[i];
        if (w.hi[d] < 0) return 0;
        int outside = w.hi[d] <= a || w.lo[d] >= b, within = w.lo[d] >= a && w.hi[d] <= b;
        if (!outside && !within) return 0;
        if (inside != within) continue;
        if (!rf_fft_writes_push(out, w.src, w.lo, w.hi, rank)) return 0;
        if (inside) out->w[out->n - 1].lo[d] -= a, out->w[out->n - 1].hi[d] -= a;
    }
    return 1;
}

static int dense(rf_fft_writes *out, const rf_value *v) {
    int64_t lo[RF_MAX_RANK], hi[RF_MAX_RANK];
    for (int d = 0; d < v->rank; d++) lo[d] = 0, hi[d] = v->dims[d].sym ? -1 : v->dims[d].size;
    return rf_fft_writes_push(out, v, lo, hi, v->rank);
}

/* Appends the writes of l shifted by off[d] (d < rank); 0 when a shifted dim is symbolic. */
static int append_shifted(rf_fft_writes *out, const rf_fft_writes *l, int rank, const int64_t *off) {
    for (size_t i = 0; i < l->n; i++) {
        if (!rf_fft_writes_push(out, l->w[i].src, l->w[i].lo, l->w[i].hi, rank)) return 0;
        rf_fft_write *w = &out->w[out->n - 1];
        for (int d = 0; d < rank; d++) {
            if (!off[d]) continue;
            if (w->hi[d] < 0) return 0;
            w->lo[d] += off[d], w->hi[d] += off[d];
        }
    }
    return 1;
}

/* A zero constant pad (F.pad as export keeps it, or constant_pad_nd): the
 * leading pad per dim in off; 0 when it is anything else. */
static int zero_pad(const rf_node *p, int rank, int64_t *off) {
    const rf_attr *pad = rf_node_arg(p, "pad"), *mode = rf_node_arg(p, "mode"), *val = rf_node_arg(p, "value");
    if (!pad || pad->kind != RF_A_LIST || pad->n % 2 || pad->n > 2 * (size_t)rank) return 0;
    if (mode && mode->kind != RF_A_NONE && (mode->kind != RF_A_STR || strcmp(mode->s, "constant") != 0)) return 0;
    int zero = !val || val->kind == RF_A_NONE || (val->kind == RF_A_INT && val->i == 0) ||
               (val->kind == RF_A_FLOAT && val->f == 0.0);
    if (!zero) return 0;
    for (int d = 0; d < rank; d++) off[d] = 0;
    for (size_t i = 0; i < pad->n; i++)
        if (pad->items[i].kind != RF_A_INT || pad->items[i].i < 0) return 0; /* a crop: not followed */
    for (size_t i = 0; i < pad->n / 2; i++) off[rank - 1 - (int)i] = pad->items[2 * i].i;
    return 1;
}


/* cat of the tensors along dim: each one's writes at its offset. */
static int describe_cat(const rf_node *p, const rf_value *v, int *budget, rf_fft_writes *out) {
    const rf_attr *ts = rf_node_arg(p, "tensors");
    int64_t dim = 0, off[RF_MAX_RANK] = {0};
    if (!ts || ts->kind != RF_A_LIST || rf_opt_int(p, "dim", &dim) < 0) return 0;
    if (dim < 0) dim += v->rank;
    if (dim < 0 || dim >= v->rank) return 0;
    for (size_t i = 0; i < ts->n; i++) {
        const rf_value *t = ts->items[i].kind == RF_A_VALUE ? ts->items[i].value : NULL;
        if (!t || t->rank != v->rank || t->dims[dim].sym) return 0;
        rf_fft_writes l = {0};
        int ok = rf_fft_describe(t, budget, &l) && append_shifted(out, &l, v->rank, off);
        rf_fft_writes_free(&l);
        if (!ok) return 0;
        off[dim] += t->dims[dim].size;
    }
    return 1;
}

int rf_fft_describe(const rf_value *v, int *budget, rf_fft_writes *out) {
    const rf_node *p = v->producer;
    if (v->rank < 0 || v->rank >= RF_MAX_RANK || --*budget < 0) return 0; /* a budget: chains may share values */
    if (!p || p->nouts != 1) return dense(out, v);
    if (is_zero_fill(p)) return 1;
    const rf_value *self = value_arg(p, "self");
    int64_t d, a, b;
    if (!strcmp(p->op, "aten.clone.default") && self && rf_value_same_shape(self, v))
        return rf_fft_describe(self, budget, out);
    if (!strcmp(p->op, "aten.copy.default") && self) { /* self's shape, src's values */
        const rf_value *src = value_arg(p, "src");
        if (src && rf_value_same_shape(src, v)) return rf_fft_describe(src, budget, out);
        return dense(out, v);
    }
    int64_t off[RF_MAX_RANK];
    if ((!strcmp(p->op, "aten.pad.default") || !strcmp(p->op, "aten.constant_pad_nd.default")) && self &&
        self->rank == v->rank && zero_pad(p, v->rank, off)) {
        rf_fft_writes in = {0};
        int ok = rf_fft_describe(self, budget, &in) && append_shifted(out, &in, v->rank, off);
        rf_fft_writes_free(&in);
        return ok;
    }
    if (!strcmp(p->op, "aten.cat.default")) return describe_cat(p, v, budget, out);
    if (!strcmp(p->op, "aten.slice.Tensor") && self && self->rank == v->rank && slab(p, self, &d, &a, &b)) {
        rf_fft_writes in = {0};
        int ok = rf_fft_describe(self, budget, &in);
        if (ok && in.n == 1 && in.w[0].src == self) { /* a slice of a dense tensor (a block taken from an input) */
            rf_fft_writes_free(&in);
            return dense(out, v);
        }
        ok = ok && filter(out, &in, v->rank, d, a, b, 1);
        rf_fft_writes_free(&in);
        return ok;
    }
    if (!strcmp(p->op, "aten.slice_scatter.default") && self && self->rank == v->rank && slab(p, self, &d, &a, &b)) {
        const rf_value *src = value_arg(p, "src");
        if (!src || src->rank != v->rank || src->dims[d].sym || src->dims[d].size != b - a) return dense(out, v);
        rf_fft_writes base = {0}, blk = {0};
        int ok = rf_fft_describe(self, budget, &base) && filter(out, &base, v->rank, d, a, b, 0) &&
                 rf_fft_describe(src, budget, &blk);
        for (size_t i = 0; ok && i < blk.n; i++) {
            ok = rf_fft_writes_push(out, blk.w[i].src, blk.w[i].lo, blk.w[i].hi, v->rank);
            if (ok) out->w[out->n - 1].lo[d] += a, out->w[out->n - 1].hi[d] += a;
        }
        rf_fft_writes_free(&base);
        rf_fft_writes_free(&blk);
        return ok;
    }
    return dense(out, v);
}
