/* Pattern fft.prune: a forward transform whose result is read only through
 * slices (x_ft[:, :, :m1, :m2] and x_ft[:, :, -m1:, :m2] in a Fourier neural
 * operator) needs only the union of the sliced ranges per transformed dim.
 * The transform then computes those outputs alone (src/fft/prune.c), and the
 * pattern publishes every slice re-indexed into the smaller result; the
 * driver skips the fused slices. Any other reader (an op, a graph output)
 * leaves the plain rule and the full transform. DFT matmuls only. */
#include <string.h>

#include "fft/plan.h"
#include "ir/mem.h"
#include "lower/realops.h"
#include "patterns/fft_keep.h"
#include "patterns/patterns.h"

struct prune_slice {
    const rf_node *node;
    int64_t *lo, *hi; /* the box of the original result it reads; hi -1: a full symbolic dim */
    int publish;      /* read by something other than a fused slice: its value is needed */
};

void rf_fft_prune_free(rf_fft_prune *p) {
    for (size_t i = 0; i < p->nd; i++) {
        rf_free((void *)p->keep[i].idx);
        rf_free(p->pos[i]);
    }
    for (size_t i = 0; i < p->nslices; i++) rf_free(p->slices[i].lo);
    rf_free(p->slices);
    memset(p, 0, sizeof *p);
}

int rf_fft_step1_slice(const rf_node *n, int rank, int64_t *dim, int64_t *start, int64_t *end) {
    int64_t step = 1;
    *dim = 0, *start = 0, *end = INT64_MAX; /* torch's defaults; rf_opt_int leaves them when absent */
    if (rf_opt_int(n, "dim", dim) < 0 || rf_opt_int(n, "start", start) < 0 || rf_opt_int(n, "end", end) < 0 ||
        rf_opt_int(n, "step", &step) < 0 || step != 1)
        return 0;
    if (*dim < 0) *dim += rank;
    return *dim >= 0 && *dim < rank;
}

int64_t *rf_fft_box(const int64_t *lo, const int64_t *hi, int rank) {
    int64_t *box = rf_malloc(2 * (size_t)(rank ? rank : 1) * sizeof(int64_t));
    if (!box) return NULL;
    memcpy(box, lo, (size_t)rank * sizeof(int64_t));
    memcpy(box + rank, hi, (size_t)rank * sizeof(int64_t));
    return box;
}

void rf_fft_clamp_slice(int64_t size, int64_t *start, int64_t *end) {
    if (*start < 0) *start += size;
    if (*end < 0) *end += size;
    *start = *start < 0 ? 0 : (*start > size ? size : *start);
    *end = *end < *start ? *start : (*end > size ? size : *end);
}

static int transformed(const rf_fft_prune *p, int64_t d) {
    for (size_t i = 0; i < p->nd; i++)
        if (p->dims[i] == d) return 1;
    return 0;
}

/* Reads slice u of v (box lo..hi of the result) into a new entry; 0 when u is
 * not a plain slice of v this analysis follows. */
static int add_slice(rf_fft_prune *p, const rf_node *u, const rf_value *v, const int64_t *lo, const int64_t *hi) {
    const rf_attr *self = rf_node_arg(u, "self");
    if (strcmp(u->op, "aten.slice.Tensor") != 0 || !self || self->kind != RF_A_VALUE || self->value != v ||
        u->nouts != 1 || u->outs[0]->rank != v->rank)
        return 0;
    for (size_t k = 0; k < u->nargs; k++)
        if (strcmp(u->args[k].name, "self") != 0 && rf_attr_refs(&u->args[k].attr, v)) return 0;
    int rank = v->rank;
    int64_t dim, start, end;
    if (!rf_fft_step1_slice(u, rank, &dim, &start, &end)) return 0;
    int64_t size = hi[dim] < 0 ? -1 : hi[dim] - lo[dim];
    if (size < 0) { /* a symbolic dim: only the whole of it */
        if (start != 0 || end < INT64_MAX / 2 || transformed(p, dim)) return 0;
    } else {
        rf_fft_clamp_slice(size, &start, &end);
        if (end == start) return 0; /* an empty slice: left to the plain rules */
    }
    if (p->nslices == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 8;
        prune_slice *s = rf_realloc(p->slices, cap * sizeof *s);
        if (!s) return 0;
        p->slices = s;
        p->cap = cap;
    }
    int64_t *box = rf_fft_box(lo, hi, rank);
    if (!box) return 0;
    if (size >= 0) {
        box[rank + dim] = lo[dim] + end;
        box[dim] = lo[dim] + start;
    }
    p->slices[p->nslices++] = (prune_slice){u, box, box + rank, 0};
    return 1;
}

/* Follows the readers of v (box lo..hi): 0 when pruning is off (a reader of
 * the transform's own result that is not a slice), else 1; `publish` of v's
 * entry is set when something other than a followed slice reads it. */
static int follow(const rf_graph *g, rf_fft_prune *p, const rf_value *v, const int64_t *lo, const int64_t *hi,
                  long self_entry, int depth) {
    if (depth > 64) return 0;
    for (size_t i = 0; i < g->noutputs; i++)
        if (rf_attr_refs(&g->outputs[i], v)) {
            if (self_entry < 0) return 0;
            p->slices[self_entry].publish = 1;
        }
    size_t from = v->producer ? v->producer->index + 1 : 0;
    for (size_t i = from; i < g->nnodes; i++) {
        const rf_node *u = g->nodes[i];
        int reads = 0;
        for (size_t k = 0; k < u->nargs && !reads; k++) reads = rf_attr_refs(&u->args[k].attr, v);
        if (!reads) continue;
        if (add_slice(p, u, v, lo, hi)) {
            long e = (long)p->nslices - 1;
            if (!follow(g, p, u->outs[0], p->slices[e].lo, p->slices[e].hi, e, depth + 1)) return 0;
            continue;
        }
        if (self_entry < 0) return 0;
        p->slices[self_entry].publish = 1;
    }
    return 1;
}

int rf_fft_keep_from_mask(const unsigned char *used, int64_t m, int64_t n, rf_fft_keep *keep, int64_t **pos) {
    int64_t k = 0;
    for (int64_t j = 0; j < m; j++) k += used[j];
    if (!rf_fft_prune_worth(n, k, m)) return 0;
    int64_t *idx = rf_malloc((size_t)k * sizeof(int64_t)), *at = rf_malloc((size_t)m * sizeof(int64_t));
    if (!idx || !at) {
        rf_free(idx);
        rf_free(at);
        return -1;
    }
    for (int64_t j = 0, q = 0; j < m; j++) {
        at[j] = used[j] ? q : -1;
        if (used[j]) idx[q++] = j;
    }
    *keep = (rf_fft_keep){k, idx};
    *pos = at;
    return 1;
}

int rf_fft_prune_plan(rf_lowering *L, const rf_node *n, const int64_t *dims, const int64_t *sizes, size_t nd,
                      int onesided, rf_fft_prune *p) {
    memset(p, 0, sizeof *p);
    const rf_value *out = n->nouts == 1 ? n->outs[0] : NULL;
    if (!out || out->rank < 1 || out->rank >= RF_MAX_RANK || !nd || nd > (size_t)out->rank) return 0;
    int64_t outsz[RF_MAX_RANK], lo[RF_MAX_RANK], hi[RF_MAX_RANK];
    p->nd = nd;
    for (size_t i = 0; i < nd; i++) {
        p->dims[i] = dims[i];
        outsz[i] = (onesided && i == nd - 1) ? sizes[i] / 2 + 1 : sizes[i];
        if (out->dims[dims[i]].sym || out->dims[dims[i]].size != outsz[i]) return 0;
    }
    for (int d = 0; d < out->rank; d++) lo[d] = 0, hi[d] = out->dims[d].sym ? -1 : out->dims[d].size;
    int any = 0;
    if (follow(rf_in_graph(L), p, out, lo, hi, -1, 0)) {
        unsigned char *used = NULL;
        for (size_t i = 0; i < nd; i++) {
            int64_t d = dims[i], m = outsz[i];
            used = rf_calloc((size_t)m, 1);
            if (!used) break;
            for (size_t s = 0; s < p->nslices; s++)
                if (p->slices[s].publish)
                    for (int64_t j = p->slices[s].lo[d]; j < p->slices[s].hi[d]; j++) used[j] = 1;
            int kept = rf_fft_keep_from_mask(used, m, sizes[i], &p->keep[i], &p->pos[i]);
            if (kept < 0) break;
            any |= kept;
            rf_free(used);
            used = NULL;
        }
        rf_free(used);
    }
    if (!any) rf_fft_prune_free(p);
    return any;
}

void rf_fft_prune_publish(rf_lowering *L, const rf_node *n, rf_fft_prune *p, rf_cx y) {
    rf_set_unread(L, n->outs[0]);
    for (size_t s = 0; s < p->nslices && rf_status_of(L) == RF_OK; s++) {
        const prune_slice *e = &p->slices[s];
        rf_fuse_node(L, e->node);
        if (!e->publish) {
            rf_set_unread(L, e->node->outs[0]);
            continue;
        }
        rf_value *re = y.re.v, *im = rf_cx_im_or_null(y);
        const rf_value *orig = n->outs[0];
        for (int d = 0; d < orig->rank; d++) {
            int64_t a = e->lo[d], b = e->hi[d], full = orig->dims[d].size;
            for (size_t i = 0; i < p->nd; i++)
                if (p->dims[i] == d && p->keep[i].k) {
                    full = p->keep[i].k;
                    b = p->pos[i][a] + (b - a);
                    a = p->pos[i][a];
                }
            if (b < 0 || (a == 0 && b == full)) continue; /* a whole (or symbolic) dim */
            re = rf_b_slice(L, re, d, a, b);
            if (im) im = rf_b_slice(L, im, d, a, b);
        }
        rf_set_cx(L, e->node->outs[0], rf_cx_values(re, im));
    }
    rf_fft_prune_free(p);
}

int rf_pattern_fft_prune(rf_lowering *L, const rf_node *n) {
    rf_fft_call c;
    if (rf_fft_call_read(L, n, 1, &c) != RF_OK || (c.form != RF_FFT_C2C && c.form != RF_FFT_R2C)) return 0;
    rf_fft_ctx f = {.L = L, .dt = c.dt};
    rf_fft_prune pr;
    if (rf_fft_native(&f) ||
        !rf_fft_prune_plan(L, n, c.dims, c.shape, c.nd, c.form == RF_FFT_R2C && c.onesided, &pr))
        return 0;
    rf_cx y = rf_fft_call_run(&f, &c, rf_fft_call_input(L, n, &c), pr.keep, NULL, c.scale);
    if (f.oom || !y.re.v) {
        rf_fft_prune_free(&pr);
        rf_fft_done(&f, n, 0);
        return 1;
    }
    rf_fft_prune_publish(L, n, &pr, y);
    return 1;
}
