/* Pruned inverse transforms, the rule side: an irfft2 whose input is a zeros
 * tensor with a few blocks written in (a Fourier neural operator's mixed low
 * modes, out_ft[:, :, :m1, :m2] = ...; functionalization makes slice_scatter,
 * slice and copy of that; or zero pads and cat of the blocks) reads only the
 * frequencies of those blocks. The
 * blocks are gathered into a compact spectrum over the kept frequencies of
 * each dim, and the transform uses truncated inverse matrices (fft/prune.c).
 * Overlapping blocks, blocks cut by a later write, or any producer not
 * understood leave the full transform. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fft/plan.h"
#include "ir/mem.h"
#include "lower/realops.h"
#include "rules/fft_prune.h"

struct sparse_write {
    const rf_value *src; /* the block's values */
    int64_t *lo, *hi;    /* its box in the described tensor; hi -1: a whole symbolic dim */
};

typedef struct wlist {
    size_t n, cap;
    sparse_write *w;
} wlist;

static void wl_free(wlist *l) {
    for (size_t i = 0; i < l->n; i++) rf_free(l->w[i].lo);
    rf_free(l->w);
    memset(l, 0, sizeof *l);
}

static int wl_push(wlist *l, const rf_value *src, const int64_t *lo, const int64_t *hi, int rank) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 4;
        sparse_write *w = rf_realloc(l->w, cap * sizeof *w);
        if (!w) return 0;
        l->w = w;
        l->cap = cap;
    }
    int64_t *box = rf_fft_box(lo, hi, rank);
    if (!box) return 0;
    l->w[l->n++] = (sparse_write){src, box, box + rank};
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
static int filter(wlist *out, const wlist *in, int rank, int64_t d, int64_t a, int64_t b, int inside) {
    for (size_t i = 0; i < in->n; i++) {
        sparse_write w = in->w[i];
        if (w.hi[d] < 0) return 0;
        int outside = w.hi[d] <= a || w.lo[d] >= b, within = w.lo[d] >= a && w.hi[d] <= b;
        if (!outside && !within) return 0;
        if (inside != within) continue;
        if (!wl_push(out, w.src, w.lo, w.hi, rank)) return 0;
        if (inside) out->w[out->n - 1].lo[d] -= a, out->w[out->n - 1].hi[d] -= a;
    }
    return 1;
}

static int dense(wlist *out, const rf_value *v) {
    int64_t lo[RF_MAX_RANK], hi[RF_MAX_RANK];
    for (int d = 0; d < v->rank; d++) lo[d] = 0, hi[d] = v->dims[d].sym ? -1 : v->dims[d].size;
    return wl_push(out, v, lo, hi, v->rank);
}

/* Appends the writes of l shifted by off[d] (d < rank); 0 when a shifted dim is symbolic. */
static int append_shifted(wlist *out, const wlist *l, int rank, const int64_t *off) {
    for (size_t i = 0; i < l->n; i++) {
        if (!wl_push(out, l->w[i].src, l->w[i].lo, l->w[i].hi, rank)) return 0;
        sparse_write *w = &out->w[out->n - 1];
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

static int describe(const rf_value *v, int *budget, wlist *out);

/* cat of the tensors along dim: each one's writes at its offset. */
static int describe_cat(const rf_node *p, const rf_value *v, int *budget, wlist *out) {
    const rf_attr *ts = rf_node_arg(p, "tensors");
    int64_t dim = 0, off[RF_MAX_RANK] = {0};
    if (!ts || ts->kind != RF_A_LIST || rf_opt_int(p, "dim", &dim) < 0) return 0;
    if (dim < 0) dim += v->rank;
    if (dim < 0 || dim >= v->rank) return 0;
    for (size_t i = 0; i < ts->n; i++) {
        const rf_value *t = ts->items[i].kind == RF_A_VALUE ? ts->items[i].value : NULL;
        if (!t || t->rank != v->rank || t->dims[dim].sym) return 0;
        wlist l = {0};
        int ok = describe(t, budget, &l) && append_shifted(out, &l, v->rank, off);
        wl_free(&l);
        if (!ok) return 0;
        off[dim] += t->dims[dim].size;
    }
    return 1;
}

/* The blocks of v over a zero background, in write order. */
static int describe(const rf_value *v, int *budget, wlist *out) {
    const rf_node *p = v->producer;
    if (v->rank < 0 || v->rank >= RF_MAX_RANK || --*budget < 0) return 0; /* a budget: chains may share values */
    if (!p || p->nouts != 1) return dense(out, v);
    if (is_zero_fill(p)) return 1;
    const rf_value *self = value_arg(p, "self");
    int64_t d, a, b;
    if (!strcmp(p->op, "aten.clone.default") && self && rf_value_same_shape(self, v))
        return describe(self, budget, out);
    if (!strcmp(p->op, "aten.copy.default") && self) { /* self's shape, src's values */
        const rf_value *src = value_arg(p, "src");
        if (src && rf_value_same_shape(src, v)) return describe(src, budget, out);
        return dense(out, v);
    }
    int64_t off[RF_MAX_RANK];
    if ((!strcmp(p->op, "aten.pad.default") || !strcmp(p->op, "aten.constant_pad_nd.default")) && self &&
        self->rank == v->rank && zero_pad(p, v->rank, off)) {
        wlist in = {0};
        int ok = describe(self, budget, &in) && append_shifted(out, &in, v->rank, off);
        wl_free(&in);
        return ok;
    }
    if (!strcmp(p->op, "aten.cat.default")) return describe_cat(p, v, budget, out);
    if (!strcmp(p->op, "aten.slice.Tensor") && self && self->rank == v->rank && slab(p, self, &d, &a, &b)) {
        wlist in = {0};
        int ok = describe(self, budget, &in);
        if (ok && in.n == 1 && in.w[0].src == self) { /* a slice of a dense tensor (a block taken from an input) */
            wl_free(&in);
            return dense(out, v);
        }
        ok = ok && filter(out, &in, v->rank, d, a, b, 1);
        wl_free(&in);
        return ok;
    }
    if (!strcmp(p->op, "aten.slice_scatter.default") && self && self->rank == v->rank && slab(p, self, &d, &a, &b)) {
        const rf_value *src = value_arg(p, "src");
        if (!src || src->rank != v->rank || src->dims[d].sym || src->dims[d].size != b - a) return dense(out, v);
        wlist base = {0}, blk = {0};
        int ok = describe(self, budget, &base) && filter(out, &base, v->rank, d, a, b, 0) &&
                 describe(src, budget, &blk);
        for (size_t i = 0; ok && i < blk.n; i++) {
            ok = wl_push(out, blk.w[i].src, blk.w[i].lo, blk.w[i].hi, v->rank);
            if (ok) out->w[out->n - 1].lo[d] += a, out->w[out->n - 1].hi[d] += a;
        }
        wl_free(&base);
        wl_free(&blk);
        return ok;
    }
    return dense(out, v);
}

void rf_fft_sparse_free(rf_fft_sparse *p) {
    for (size_t i = 0; i < p->nd; i++) {
        rf_free((void *)p->keep[i].idx);
        rf_free(p->pos[i]);
    }
    wlist l = {p->nw, p->nw, p->w};
    wl_free(&l);
    memset(p, 0, sizeof *p);
}

static int overlap(const sparse_write *a, const sparse_write *b, const rf_fft_sparse *p) {
    for (size_t i = 0; i < p->nd; i++) {
        int64_t d = p->dims[i];
        if (a->hi[d] <= b->lo[d] || b->hi[d] <= a->lo[d]) return 0;
    }
    return 1;
}

int rf_fft_sparse_plan(rf_lowering *L, const rf_value *x, const int64_t *dims, const int64_t *lens,
                       const int64_t *outs, size_t nd, rf_fft_sparse *p) {
    (void)L;
    memset(p, 0, sizeof *p);
    if (x->rank < 1 || x->rank >= RF_MAX_RANK || !nd || nd > (size_t)x->rank) return 0;
    wlist wl = {0}, kept = {0};
    int budget = 4096, ok = describe(x, &budget, &wl), any = 0;
    p->nd = nd;
    p->rank = x->rank;
    for (size_t i = 0; i < nd; i++) p->dims[i] = dims[i], p->lens[i] = lens[i];
    for (size_t j = 0; ok && j < wl.n; j++) {
        sparse_write *w = &wl.w[j];
        int beyond = 0;
        ok = w->src != x;
        for (int d = 0; ok && d < x->rank; d++) {
            size_t i = 0;
            while (i < nd && dims[i] != d) i++;
            if (i == nd) { /* a dim not transformed: the block spans it */
                ok = w->lo[d] == 0 && (w->hi[d] < 0 ? x->dims[d].sym != NULL : w->hi[d] == x->dims[d].size);
                continue;
            }
            if (w->hi[d] < 0) ok = 0;
            else if (w->lo[d] >= lens[i]) beyond = 1; /* the transform never reads it */
            else if (w->hi[d] > lens[i]) ok = 0;
        }
        if (ok && !beyond) ok = wl_push(&kept, w->src, w->lo, w->hi, x->rank);
    }
    wl_free(&wl);
    p->nw = kept.n;
    p->w = kept.w;
    for (size_t a = 0; ok && a < p->nw; a++)
        for (size_t b = a + 1; ok && b < p->nw; b++) ok = !overlap(&p->w[a], &p->w[b], p);
    for (size_t i = 0; ok && i < nd; i++) {
        int64_t d = dims[i], m = lens[i], k = 0;
        unsigned char *used = rf_calloc((size_t)m, 1);
        if (!used) {
            ok = 0;
            break;
        }
        for (size_t j = 0; j < p->nw; j++)
            for (int64_t q = p->w[j].lo[d]; q < p->w[j].hi[d]; q++) used[q] = 1;
        for (int64_t q = 0; q < m; q++) k += used[q];
        if (rf_fft_prune_worth(outs[i], k, m)) {
            int64_t *idx = rf_malloc((size_t)k * sizeof(int64_t)), *pos = rf_malloc((size_t)m * sizeof(int64_t));
            if (idx && pos) {
                for (int64_t q = 0, c = 0; q < m; q++) {
                    pos[q] = used[q] ? c : -1;
                    if (used[q]) idx[c++] = q;
                }
                p->keep[i] = (rf_fft_keep){k, idx};
                p->pos[i] = pos;
                any = 1;
            } else {
                rf_free(idx);
                rf_free(pos);
                ok = 0;
            }
        }
        rf_free(used);
    }
    if (!ok || !any || !p->nw) {
        rf_fft_sparse_free(p);
        return 0;
    }
    return 1;
}

/* The block's start and the compact size along transformed dim i. */
static int64_t start_of(const rf_fft_sparse *p, const sparse_write *w, size_t i) {
    int64_t lo = w->lo[p->dims[i]];
    return p->keep[i].k ? p->pos[i][lo] : lo;
}

static int64_t extent(const rf_fft_sparse *p, size_t i) { return p->keep[i].k ? p->keep[i].k : p->lens[i]; }

static int covers(const rf_fft_sparse *p, const sparse_write *w, size_t i) {
    return start_of(p, w, i) == 0 && w->hi[p->dims[i]] - w->lo[p->dims[i]] == extent(p, i);
}

/* A dim along which the blocks, in some order, tile the compact tensor
 * (each spanning the other dims): they are then one cat. -1 when none. */
static int tiling_dim(const rf_fft_sparse *p, size_t *order) {
    for (size_t t = 0; t < p->nd; t++) {
        int ok = 1;
        for (size_t j = 0; ok && j < p->nw; j++)
            for (size_t i = 0; ok && i < p->nd; i++) ok = i == t || covers(p, &p->w[j], i);
        int64_t at = 0;
        for (size_t c = 0; ok && c < p->nw; c++) { /* the block that starts at `at` comes next */
            size_t j = 0;
            while (j < p->nw && start_of(p, &p->w[j], t) != at) j++;
            if (j == p->nw) ok = 0;
            else order[c] = j, at += p->w[j].hi[p->dims[t]] - p->w[j].lo[p->dims[t]];
        }
        if (ok && at == extent(p, t)) return (int)t;
    }
    return -1;
}

rf_cx rf_fft_sparse_input(rf_lowering *L, const rf_fft_sparse *p, rf_dtype dt) {
    size_t n = p->nw;
    rf_value **re = rf_calloc(n, sizeof(rf_value *)), **im = rf_calloc(n, sizeof(rf_value *));
    size_t *order = rf_calloc(n, sizeof(size_t));
    rf_cx out = rf_cx_values(NULL, NULL);
    if (!re || !im || !order) {
        rf_fail(L, NULL, RF_ERR_NOMEM, "out of memory reading the blocks of a spectrum");
        goto done;
    }
    int has_im = 0;
    for (size_t j = 0; j < n; j++) {
        rf_cx c = rf_cx_of(L, p->w[j].src, dt);
        re[j] = c.re.v;
        im[j] = rf_cx_im_or_null(c);
        has_im |= im[j] != NULL;
    }

    if (rf_status_of(L) != RF_OK) goto done;
    for (size_t j = 0; has_im && j < n; j++)
        if (!im[j]) im[j] = rf_b_zeros_like(L, re[j]);
    int t = tiling_dim(p, order);
    if (t >= 0) {
        rf_value **r2 = rf_calloc(n, sizeof(rf_value *)), **i2 = rf_calloc(n, sizeof(rf_value *));
        if (r2 && i2) {
            for (size_t c = 0; c < n; c++) r2[c] = re[order[c]], i2[c] = im[order[c]];
            rf_value *a = n == 1 ? r2[0] : rf_b_cat(L, n, r2, p->dims[t]);
            rf_value *b = !has_im ? NULL : (n == 1 ? i2[0] : rf_b_cat(L, n, i2, p->dims[t]));
            out = rf_cx_values(a, b);
        } else {
            rf_fail(L, NULL, RF_ERR_NOMEM, "out of memory reading the blocks of a spectrum");
        }
        rf_free(r2);
        rf_free(i2);
        goto done;
    }
    rf_value *sr = NULL, *si = NULL; /* zero-padded blocks, summed */
    for (size_t j = 0; j < n; j++) {
        rf_value *a = re[j], *b = im[j];
        for (size_t i = 0; i < p->nd; i++) {
            int64_t s = start_of(p, &p->w[j], i), e = s + p->w[j].hi[p->dims[i]] - p->w[j].lo[p->dims[i]];
            int64_t after = extent(p, i) - e;
            if (!s && !after) continue;
            a = rf_b_pad_dim(L, a, p->dims[i], s, after, 0.0);
            if (b) b = rf_b_pad_dim(L, b, p->dims[i], s, after, 0.0);
        }
        sr = sr ? rf_b_add(L, rf_val(sr), rf_val(a)).v : a;
        if (b) si = si ? rf_b_add(L, rf_val(si), rf_val(b)).v : b;
    }
    out = rf_cx_values(sr, si);
done:
    rf_free(re);
    rf_free(im);
    rf_free(order);
    return out;
}

/* ---- the whole spectrum from its blocks (operator strategies) ----
 * A platform FFT reads the whole input, so the blocks must be written into
 * place. The graph's own chain (zeros, then a slice_scatter per block) became
 * one Inductor kernel that walked the blocks' order and scattered its stores
 * (31 us for an FNO layer's spectrum on an H200); cat and zero pads of the
 * blocks copy each block into place in the output's order: 11.5 us done per
 * part and then stacked, 8.1 us done once on the packed [..., 2] layout, which
 * is the layout the operator takes. */

typedef struct dense_item {
    rf_value *v; /* the block, packed, cut to lo..hi */
    int64_t lo[RF_MAX_RANK], hi[RF_MAX_RANK];
} dense_item;

enum { DENSE_MAX_BLOCKS = 64 };

static int same_extent(const dense_item *it, size_t n, int d) {
    for (size_t j = 1; j < n; j++)
        if (it[j].lo[d] != it[0].lo[d] || it[j].hi[d] != it[0].hi[d]) return 0;
    return 1;
}

static rf_value *dense_build(rf_lowering *L, int rank, const int64_t *rlo, const int64_t *rhi,
                             const dense_item *it, size_t n);

/* Pieces of the region cut along d at the blocks' edges, each built alone,
 * zeros between them as pads of a neighbour, then one cat. */
static rf_value *dense_cut(rf_lowering *L, int rank, const int64_t *rlo, const int64_t *rhi, const dense_item *it,
                           size_t n, int d) {
    int64_t cuts[2 * DENSE_MAX_BLOCKS + 2];
    size_t nc = 0;
    cuts[nc++] = rlo[d];
    for (size_t j = 0; j < n; j++) cuts[nc++] = it[j].lo[d], cuts[nc++] = it[j].hi[d];
    cuts[nc++] = rhi[d];
    for (size_t a = 1; a < nc; a++) /* insertion sort: a few dozen at most */
        for (size_t b = a; b > 0 && cuts[b - 1] > cuts[b]; b--) {
            int64_t t = cuts[b];
            cuts[b] = cuts[b - 1], cuts[b - 1] = t;
        }
    rf_value *pieces[2 * DENSE_MAX_BLOCKS + 2];
    dense_item *sub = rf_malloc(n * sizeof *sub);
    if (!sub) return NULL;
    size_t np = 0;
    int64_t gap = 0;
    int ok = 1;
    for (size_t c = 0; ok && c + 1 < nc; c++) {
        int64_t a = cuts[c], b = cuts[c + 1];
        if (a == b) continue;
        size_t m = 0;
        for (size_t j = 0; j < n; j++) {
            if (it[j].hi[d] <= a || it[j].lo[d] >= b) continue;
            sub[m] = it[j];
            if (a != it[j].lo[d] || b != it[j].hi[d]) {
                sub[m].v = rf_b_slice(L, it[j].v, d, a - it[j].lo[d], b - it[j].lo[d]);
                sub[m].lo[d] = a, sub[m].hi[d] = b;
            }
            m++;
        }
        if (!m) {
            gap += b - a;
            continue;
        }
        int64_t lo2[RF_MAX_RANK], hi2[RF_MAX_RANK];
        memcpy(lo2, rlo, (size_t)rank * sizeof(int64_t));
        memcpy(hi2, rhi, (size_t)rank * sizeof(int64_t));
        lo2[d] = a, hi2[d] = b;
        pieces[np] = dense_build(L, rank, lo2, hi2, sub, m);
        ok = pieces[np] != NULL;
        if (ok && gap && np) pieces[np - 1] = rf_b_pad_dim(L, pieces[np - 1], d, 0, gap, 0.0); /* after the last */
        else if (ok && gap) pieces[np] = rf_b_pad_dim(L, pieces[np], d, gap, 0, 0.0);        /* before the first */
        gap = 0;
        np++;
    }
    rf_free(sub);
    if (!ok || !np) return NULL;
    if (gap) pieces[np - 1] = rf_b_pad_dim(L, pieces[np - 1], d, 0, gap, 0.0);
    return np == 1 ? pieces[0] : rf_b_cat(L, np, pieces, d);
}

/* The region rlo..rhi of the spectrum from the disjoint blocks inside it. */
static rf_value *dense_build(rf_lowering *L, int rank, const int64_t *rlo, const int64_t *rhi,
                             const dense_item *it, size_t n) {
    if (!n) return NULL;
    for (int d = 0; d < rank; d++) { /* every block has one extent here: the zeros around them are a pad */
        if (!same_extent(it, n, d) || (it[0].lo[d] == rlo[d] && it[0].hi[d] == rhi[d])) continue;
        int64_t lo2[RF_MAX_RANK], hi2[RF_MAX_RANK];
        memcpy(lo2, rlo, (size_t)rank * sizeof(int64_t));
        memcpy(hi2, rhi, (size_t)rank * sizeof(int64_t));
        lo2[d] = it[0].lo[d], hi2[d] = it[0].hi[d];
        return rf_b_pad_dim(L, dense_build(L, rank, lo2, hi2, it, n), d, lo2[d] - rlo[d], rhi[d] - hi2[d], 0.0);
    }
    if (n == 1) return it[0].v; /* the block fills the region */
    for (int d = 0; d < rank; d++) /* disjoint blocks differ along some dim */
        if (!same_extent(it, n, d)) return dense_cut(L, rank, rlo, rhi, it, n, d);
    return NULL;
}

static int reads(const rf_node *u, const rf_value *v) {
    for (size_t k = 0; k < u->nargs; k++)
        if (rf_attr_refs(&u->args[k].attr, v)) return 1;
    return 0;
}

/* Whether anything reaches a graph output through v, skipping node `skip`.
 * Functionalization leaves dead views of the written tensor behind (the
 * cleanup drops them later); they do not count. Past the budget: live. */
static int live(const rf_graph *g, const rf_value *v, const rf_node *skip, int *budget) {
    if (--*budget < 0) return 1;
    for (size_t i = 0; i < g->noutputs; i++)
        if (rf_attr_refs(&g->outputs[i], v)) return 1;
    size_t from = v->producer ? v->producer->index + 1 : 0;
    for (size_t i = from; i < g->nnodes; i++) {
        const rf_node *u = g->nodes[i];
        if (u == skip || !reads(u, v)) continue;
        for (size_t o = 0; o < u->nouts; o++)
            if (live(g, u->outs[o], skip, budget)) return 1;
    }
    return 0;
}

/* x is read, where it matters, by node n alone (no other live reader, no graph output). */
static int read_only_by(const rf_graph *g, const rf_value *x, const rf_node *n) {
    int budget = 4096;
    return !live(g, x, n, &budget);
}

/* Whether s is 2^k: scaling by it is exact (outside the subnormal range). */
static int power_of_two(double s) {
    int e;
    return s > 0 && frexp(s, &e) == 0.5;
}

int rf_fft_sparse_dense(rf_lowering *L, const rf_node *n, const rf_value *x, rf_dtype dt, double *scale, rf_cx *out) {
    if (x->rank < 1 || x->rank >= RF_MAX_RANK) return 0;
    for (int d = 0; d < x->rank; d++)
        if (x->dims[d].sym) return 0;
    wlist wl = {0};
    /* one block alone is no better than the graph's own chain */
    int budget = 4096, ok = describe(x, &budget, &wl) && wl.n >= 2 && wl.n <= DENSE_MAX_BLOCKS;
    ok = ok && read_only_by(rf_in_graph(L), x, n); /* the graph walk last: most inputs are no block spectrum */
    dense_item *it = ok ? rf_calloc(wl.n, sizeof *it) : NULL;
    ok = ok && it;
    for (size_t j = 0; ok && j < wl.n; j++) {
        const sparse_write *w = &wl.w[j];
        ok = w->src != x && w->src->rank == x->rank;
        for (int d = 0; ok && d < x->rank; d++)
            ok = w->lo[d] >= 0 && w->lo[d] < w->hi[d] && w->hi[d] <= x->dims[d].size && !w->src->dims[d].sym &&
                 w->src->dims[d].size == w->hi[d] - w->lo[d];
        for (size_t k = 0; ok && k < j; k++) { /* disjoint: apart along some dim */
            int apart = 0;
            for (int d = 0; d < x->rank && !apart; d++) apart = w->hi[d] <= it[k].lo[d] || it[k].hi[d] <= w->lo[d];
            ok = apart;
        }
        if (!ok) break;
        memcpy(it[j].lo, w->lo, (size_t)x->rank * sizeof(int64_t));
        memcpy(it[j].hi, w->hi, (size_t)x->rank * sizeof(int64_t));
    }
    for (size_t j = 0; ok && j < wl.n; j++) {
        rf_value *v = rf_packed_of(L, wl.w[j].src);
        it[j].v = v && v->dtype != dt ? rf_b_cast(L, v, dt) : v;
    }
    int64_t lo[RF_MAX_RANK] = {0}, hi[RF_MAX_RANK];
    for (int d = 0; d < x->rank; d++) hi[d] = x->dims[d].size;
    rf_value *spectrum = ok && rf_status_of(L) == RF_OK ? dense_build(L, x->rank, lo, hi, it, wl.n) : NULL;
    rf_free(it);
    wl_free(&wl);
    if (!spectrum || rf_status_of(L) != RF_OK) return 0;
    if (scale && *scale != 1.0 && power_of_two(*scale)) { /* fused into the copy above, the same bits as after */
        spectrum = rf_b_mul(L, rf_val(spectrum), rf_num(*scale)).v;
        *scale = 1.0;
    }
    *out = rf_b_unpack(L, spectrum);
    return 1;
}
