/* Pattern fft.sparse: an inverse transform (irfft2 in a Fourier neural operator; also ifft2 or fft2) whose input
 * is a zeros tensor with a few blocks written in (the mixed low modes, out_ft[:, :, :m1, :m2] = ...) reads only
 * the frequencies of those blocks. The blocks (fft_writes.c) are gathered into a compact spectrum over the kept
 * frequencies of each dim, and the transform uses truncated inverse matrices (src/fft/prune.c). Overlapping
 * blocks, blocks cut by a later write, or any producer not understood leave the plain rule, which transforms the
 * whole input. DFT matmuls only (fft="matmul"): the operator strategies have fft.blocks. */
#include <string.h>

#include "fft/plan.h"
#include "ir/mem.h"
#include "lower/realops.h"
#include "patterns/fft_keep.h"
#include "patterns/patterns.h"

void rf_fft_sparse_free(rf_fft_sparse *p) {
    for (size_t i = 0; i < p->nd; i++) {
        rf_free((void *)p->keep[i].idx);
        rf_free(p->pos[i]);
    }
    rf_fft_writes l = {p->nw, p->nw, p->w};
    rf_fft_writes_free(&l);
    memset(p, 0, sizeof *p);
}

static int overlap(const rf_fft_write *a, const rf_fft_write *b, const rf_fft_sparse *p) {
    for (size_t i = 0; i < p->nd; i++) {
        int64_t d = p->dims[i];
        if (a->hi[d] <= b->lo[d] || b->hi[d] <= a->lo[d]) return 0;
    }
    return 1;
}

int rf_fft_sparse_plan(const rf_value *x, const int64_t *dims, const int64_t *lens, const int64_t *outs, size_t nd,
                       rf_fft_sparse *p) {
    memset(p, 0, sizeof *p);
    if (x->rank < 1 || x->rank >= RF_MAX_RANK || !nd || nd > (size_t)x->rank) return 0;
    rf_fft_writes wl = {0}, kept = {0};
    int budget = 4096, ok = rf_fft_describe(x, &budget, &wl), any = 0;
    p->nd = nd;
    p->rank = x->rank;
    for (size_t i = 0; i < nd; i++) p->dims[i] = dims[i], p->lens[i] = lens[i];
    for (size_t j = 0; ok && j < wl.n; j++) {
        rf_fft_write *w = &wl.w[j];
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
        if (ok && !beyond) ok = rf_fft_writes_push(&kept, w->src, w->lo, w->hi, x->rank);
    }
    rf_fft_writes_free(&wl);
    p->nw = kept.n;
    p->w = kept.w;
    for (size_t a = 0; ok && a < p->nw; a++)
        for (size_t b = a + 1; ok && b < p->nw; b++) ok = !overlap(&p->w[a], &p->w[b], p);
    for (size_t i = 0; ok && i < nd; i++) {
        int64_t d = dims[i], m = lens[i];
        unsigned char *used = rf_calloc((size_t)m, 1);
        if (!used) {
            ok = 0;
            break;
        }
        for (size_t j = 0; j < p->nw; j++)
            for (int64_t q = p->w[j].lo[d]; q < p->w[j].hi[d]; q++) used[q] = 1;
        int worth = rf_fft_keep_from_mask(used, m, outs[i], &p->keep[i], &p->pos[i]);
        if (worth < 0) ok = 0;
        any |= worth > 0;
        rf_free(used);
    }
    if (!ok || !any || !p->nw) {
        rf_fft_sparse_free(p);
        return 0;
    }
    return 1;
}

/* The block's start and the compact size along transformed dim i. */
static int64_t start_of(const rf_fft_sparse *p, const rf_fft_write *w, size_t i) {
    int64_t lo = w->lo[p->dims[i]];
    return p->keep[i].k ? p->pos[i][lo] : lo;
}

static int64_t extent(const rf_fft_sparse *p, size_t i) { return p->keep[i].k ? p->keep[i].k : p->lens[i]; }

static int covers(const rf_fft_sparse *p, const rf_fft_write *w, size_t i) {
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

int rf_pattern_fft_sparse(rf_lowering *L, const rf_node *n) {
    rf_fft_call c;
    if (rf_fft_call_read(L, n, 1, &c) != RF_OK || (c.form != RF_FFT_C2C && c.form != RF_FFT_C2R)) return 0;
    rf_fft_ctx f = {.L = L, .dt = c.dt};
    int64_t outs[RF_MAX_RANK]; /* the output length along each dim */
    memcpy(outs, c.shape, c.nd * sizeof(int64_t));
    if (c.form == RF_FFT_C2R) outs[c.nd - 1] = c.lds;
    rf_fft_sparse sp;
    if (rf_fft_native(&f) || !rf_fft_sparse_plan(c.self, c.dims, c.shape, outs, c.nd, &sp)) return 0;
    rf_cx y = rf_fft_call_run(&f, &c, rf_fft_sparse_input(L, &sp, c.dt), NULL, sp.keep, c.scale);
    rf_fft_sparse_free(&sp);
    rf_fft_call_publish(&f, n, &c, y);
    return 1;
}
