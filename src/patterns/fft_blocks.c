/* Pattern fft.blocks: the input of a transform (an FNO layer's out_ft, written into zeros block by block) for
 * the operator strategies (fft="native", "onnx-dft"), which read the whole spectrum: rebuilt as cat and zero
 * pads of the blocks (fft_writes.c) instead of the graph's zeros and slice_scatter chain. */
#include <math.h>
#include <string.h>

#include "ir/mem.h"
#include "lower/realops.h"
#include "patterns/fft_keep.h"
#include "patterns/patterns.h"

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
    rf_fft_writes wl = {0};
    /* one block alone is no better than the graph's own chain */
    int budget = 4096, ok = rf_fft_describe(x, &budget, &wl) && wl.n >= 2 && wl.n <= DENSE_MAX_BLOCKS;
    ok = ok && read_only_by(rf_in_graph(L), x, n); /* the graph walk last: most inputs are no block spectrum */
    dense_item *it = ok ? rf_calloc(wl.n, sizeof *it) : NULL;
    ok = ok && it;
    for (size_t j = 0; ok && j < wl.n; j++) {
        const rf_fft_write *w = &wl.w[j];
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
    rf_fft_writes_free(&wl);
    if (!spectrum || rf_status_of(L) != RF_OK) return 0;
    if (scale && *scale != 1.0 && power_of_two(*scale)) { /* fused into the copy above, the same bits as after */
        spectrum = rf_b_mul(L, rf_val(spectrum), rf_num(*scale)).v;
        *scale = 1.0;
    }
    *out = rf_b_unpack(L, spectrum);
    return 1;
}

int rf_pattern_fft_blocks(rf_lowering *L, const rf_node *n) {
    rf_fft_call c;
    if (rf_fft_call_read(L, n, 1, &c) != RF_OK || (c.form != RF_FFT_C2C && c.form != RF_FFT_C2R)) return 0;
    rf_fft_ctx f = {.L = L, .dt = c.dt};
    double scale = c.scale;
    rf_cx x;
    if (!rf_fft_native(&f) || (c.resize && !rf_fft_call_same_sizes(&c)) ||
        !rf_fft_sparse_dense(L, n, c.self, c.dt, &scale, &x))
        return 0;
    rf_fft_call_publish(&f, n, &c, rf_fft_call_run(&f, &c, x, NULL, NULL, scale));
    return 1;
}
