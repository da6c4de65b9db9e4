/* Views and reorderings (transpose, flip, (un)squeeze, (un)flatten), matmul
 * and gathers, each with its output shape worked out here. A NULL operand
 * gives NULL, so a chain of them stops at the first missing value. */
#include <stdio.h>
#include <string.h>

#include "lower/realops.h"

/* Room for the few dims a transform adds (split axis, factors) to a tensor of rank < RF_MAX_RANK. */
#define CAP (RF_MAX_RANK + 8)

/* A known rank that leaves room for `extra` more dims. */
static int rank_ok(rf_lowering *L, const rf_value *x, const char *op, int extra) {
    if (x->rank >= 0 && x->rank + extra <= CAP) return 1;
    rf_fail(L, NULL, RF_ERR_UNSUPPORTED, "%s needs a known rank below %d", op, CAP - extra);
    return 0;
}

rf_value *rf_b_resize(rf_lowering *L, rf_value *x, int64_t dim, int64_t size) {
    int64_t d;
    if (!x || !rf_b_dim(L, x, dim, 0, "resize", &d)) return NULL;
    int64_t have = x->dims[d].size;
    if (have == size) return x;
    if (have > size) return rf_b_slice(L, x, dim, 0, size);
    return rf_b_pad_dim(L, x, dim, 0, size - have, 0.0);
}

/* Emits the dims normalised. */
rf_value *rf_b_transpose(rf_lowering *L, rf_value *x, int64_t d0, int64_t d1) {
    if (!x || !rf_b_dim(L, x, d0, 0, "transpose", &d0) || !rf_b_dim(L, x, d1, 0, "transpose", &d1)) return NULL;
    if (d0 == d1) return x;
    if (!rank_ok(L, x, "transpose", 0)) return NULL;
    rf_dim d[CAP];
    memcpy(d, x->dims, (size_t)x->rank * sizeof(rf_dim));
    rf_dim t = d[d0];
    d[d0] = d[d1];
    d[d1] = t;
    rf_arg args[3] = {{"self", rf_attr_ref(x)}, {"dim0", rf_attr_int(d0)}, {"dim1", rf_attr_int(d1)}};
    return rf_b_op(L, "aten.transpose.int", 3, args, x->dtype, x->rank, d, "_tr");
}

/* x.permute(perm); x itself for the identity. */
rf_value *rf_b_permute(rf_lowering *L, rf_value *x, size_t n, const int64_t *perm) {
    if (!x || !rank_ok(L, x, "permute", 0)) return NULL;
    if ((int)n != x->rank) {
        rf_fail(L, NULL, RF_ERR_INVALID, "permute of a rank-%d tensor by %zu dims", x->rank, n);
        return NULL;
    }
    rf_dim d[CAP];
    int identity = 1, seen[CAP] = {0};
    for (size_t i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= x->rank || seen[perm[i]]++) {
            rf_fail(L, NULL, RF_ERR_INVALID, "permute: dims are not a permutation");
            return NULL;
        }
        d[i] = x->dims[perm[i]];
        identity &= perm[i] == (int64_t)i;
    }
    if (identity) return x;
    rf_arg args[2] = {{"self", rf_attr_ref(x)}, {"dims", rf_attr_ints(rf_out_graph(L), n, perm)}};
    return rf_b_op(L, "aten.permute.default", 2, args, x->dtype, x->rank, d, "_perm");
}

rf_value *rf_b_flip(rf_lowering *L, rf_value *x, int64_t dim) {
    int64_t d;
    if (!x || !rf_b_dim(L, x, dim, 0, "flip", &d)) return NULL;
    rf_arg args[2] = {{"self", rf_attr_ref(x)}, {"dims", rf_attr_ints(rf_out_graph(L), 1, &dim)}};
    return rf_b_op(L, "aten.flip.default", 2, args, x->dtype, x->rank, x->dims, "_flip");
}

rf_value *rf_b_unsqueeze(rf_lowering *L, rf_value *x, int64_t dim) {
    int64_t p;
    if (!x || !rank_ok(L, x, "unsqueeze", 1) || !rf_b_dim(L, x, dim, 1, "unsqueeze", &p)) return NULL;
    rf_dim d[CAP];
    for (int i = 0, j = 0; i <= x->rank; i++) d[i] = i == p ? (rf_dim){1, NULL} : x->dims[j++];
    rf_arg args[2] = {{"self", rf_attr_ref(x)}, {"dim", rf_attr_int(dim)}};
    return rf_b_op(L, "aten.unsqueeze.default", 2, args, x->dtype, x->rank + 1, d, "_unsq");
}

rf_value *rf_b_squeeze(rf_lowering *L, rf_value *x, int64_t dim) {
    int64_t p;
    if (!x || !rank_ok(L, x, "squeeze", 0) || !rf_b_dim(L, x, dim, 0, "squeeze", &p)) return NULL;
    rf_dim d[CAP];
    int r = 0;
    for (int i = 0; i < x->rank; i++)
        if (i != p || x->dims[i].sym || x->dims[i].size != 1) d[r++] = x->dims[i];
    rf_arg args[2] = {{"self", rf_attr_ref(x)}, {"dim", rf_attr_int(dim)}};
    return rf_b_op(L, "aten.squeeze.dim", 2, args, x->dtype, r, d, "_sq");
}

rf_value *rf_b_unflatten(rf_lowering *L, rf_value *x, int64_t dim, size_t n, const int64_t *sizes) {
    int64_t p;
    if (!x || n > CAP || !rank_ok(L, x, "unflatten", (int)n) || !rf_b_dim(L, x, dim, 0, "unflatten", &p)) return NULL;
    rf_dim d[CAP];
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (i != p) {
            d[r++] = x->dims[i];
            continue;
        }
        int64_t product = 1; /* -1: not checkable (an inferred size, or an overflow) */
        for (size_t k = 0; k < n; k++) {
            d[r++] = (rf_dim){sizes[k], NULL};
            if (sizes[k] < 0 || product < 0 || (sizes[k] > 0 && product > INT64_MAX / sizes[k])) product = -1;
            else product *= sizes[k];
        }
        if (!x->dims[i].sym && product >= 0 && product != x->dims[i].size) { /* a rule's arithmetic slip */
            rf_fail(L, NULL, RF_ERR_INVALID, "realify built an unflatten of a size-%lld dim into sizes whose "
                    "product is %lld", (long long)x->dims[i].size, (long long)product);
            return NULL;
        }
    }
    rf_arg args[3] = {{"self", rf_attr_ref(x)},
                      {"dim", rf_attr_int(dim)},
                      {"sizes", rf_attr_ints(rf_out_graph(L), n, sizes)}};
    return rf_b_op(L, "aten.unflatten.int", 3, args, x->dtype, r, d, "_unfl");
}

rf_value *rf_b_flatten(rf_lowering *L, rf_value *x, int64_t start, int64_t end) {
    int64_t s, e;
    if (!x || !rank_ok(L, x, "flatten", 0) || !rf_b_dim(L, x, start, 0, "flatten", &s) ||
        !rf_b_dim(L, x, end, 0, "flatten", &e))
        return NULL;
    rf_dim d[CAP];
    int r = 0;
    char sym[256] = "";
    int64_t size = 1;
    int symbolic = 0;
    for (int i = 0; i < x->rank; i++) {
        if (i < s || i > e) {
            d[r++] = x->dims[i];
            continue;
        }
        size_t used = strlen(sym);
        if (x->dims[i].sym) symbolic = 1;
        if (x->dims[i].sym) snprintf(sym + used, sizeof sym - used, "%s(%s)", used ? "*" : "", x->dims[i].sym);
        else snprintf(sym + used, sizeof sym - used, "%s%lld", used ? "*" : "", (long long)x->dims[i].size);
        size *= x->dims[i].size;
        if (i == e) d[r++] = (rf_dim){symbolic ? 0 : size, symbolic ? sym : NULL};
    }
    rf_arg args[3] = {{"self", rf_attr_ref(x)}, {"start_dim", rf_attr_int(start)}, {"end_dim", rf_attr_int(end)}};
    return rf_b_op(L, "aten.flatten.using_ints", 3, args, x->dtype, r, d, "_flat");
}

/* Numpy's rule: a 1-D operand is a row (a) or a column (b) vector, dropped from the result. */
rf_value *rf_b_matmul(rf_lowering *L, rf_value *a, rf_value *b) {
    if (!a || !b) return NULL;
    if (a->rank < 1 || b->rank < 1 || !rank_ok(L, a, "matmul", 0) || !rank_ok(L, b, "matmul", 0)) {
        rf_fail(L, NULL, RF_ERR_UNSUPPORTED, "matmul builder: operands of known rank >= 1 expected");
        return NULL;
    }
    rf_dim d[CAP];
    int r = 0;
    if (a->rank == 1 || b->rank == 1) { /* the other operand's batch dims, then its kept matrix dim */
        const rf_value *m = a->rank == 1 ? b : a;
        for (int i = 0; i < m->rank - 2; i++) d[r++] = m->dims[i];
        if (a->rank == 1 && b->rank >= 2) d[r++] = b->dims[b->rank - 1];
        if (b->rank == 1 && a->rank >= 2) d[r++] = a->dims[a->rank - 2];
    } else {
        r = a->rank > b->rank ? a->rank : b->rank;
        for (int i = 0; i < r - 2; i++) { /* batch dims, right-aligned; a 1 stretches */
            int ia = i - (r - a->rank), ib = i - (r - b->rank);
            const rf_dim *da = ia >= 0 ? &a->dims[ia] : NULL, *db = ib >= 0 ? &b->dims[ib] : NULL;
            d[i] = (!da || (db && !da->sym && da->size == 1)) ? *db : *da;
        }
        d[r - 2] = a->dims[a->rank - 2];
        d[r - 1] = b->dims[b->rank - 1];
    }
    rf_arg args[2] = {{"self", rf_attr_ref(a)}, {"other", rf_attr_ref(b)}};
    return rf_b_op(L, "aten.matmul.default", 2, args, a->dtype, r, d, "_mm");
}

rf_value *rf_b_index_select(rf_lowering *L, rf_value *x, int64_t dim, rf_value *index) {
    int64_t p;
    if (!x || !index || !rank_ok(L, x, "index_select", 0) || !rf_b_dim(L, x, dim, 0, "index_select", &p)) return NULL;
    rf_dim d[CAP];
    memcpy(d, x->dims, (size_t)x->rank * sizeof(rf_dim));
    d[p] = index->rank == 1 ? index->dims[0] : (rf_dim){1, NULL};
    rf_arg args[3] = {{"self", rf_attr_ref(x)}, {"dim", rf_attr_int(dim)}, {"index", rf_attr_ref(index)}};
    return rf_b_op(L, "aten.index_select.default", 3, args, x->dtype, x->rank, d, "_gather");
}

/* Overlap-add (istft's resynthesis, unfold's backward). Frame f of W samples contributes to output chunks f .. f+r-1 of `step`
 * samples each (r = ceil(W / step), the frames zero-padded to r*step). Chunk j
 * of every frame is shifted by j chunks at once by a skew: the [r, F+r] table
 * of chunk rows (each row the frames followed by r zero chunks) read back as
 * [r, F+r-1] after dropping its last r chunks starts row j j places later.
 * Summing the rows is the overlap-add. */
rf_value *rf_b_overlap_add(rf_lowering *L, rf_value *x, int64_t dim, int64_t step, int64_t len) {
    if (!x) return NULL;
    if (x->rank < 2 || dim < 0 || dim + 1 >= x->rank || step < 1 || len < 0 || x->dims[dim].sym ||
        x->dims[dim + 1].sym) {
        rf_fail(L, NULL, RF_ERR_UNSUPPORTED, "overlap-add needs static frame and window sizes");
        return NULL;
    }
    int64_t frames = x->dims[dim].size, w = x->dims[dim + 1].size, r = (w + step - 1) / step;
    if (r < 1) r = 1; /* an empty window: one chunk of zeros */
    if (r * step != w) x = rf_b_pad_dim(L, x, dim + 1, 0, r * step - w, 0.0);
    if (r > 1) {
        int64_t chunks[2] = {r, step}, rows[2] = {r, frames + r - 1};
        x = rf_b_unflatten(L, x, dim + 1, 2, chunks); /* [.., F, r, step, ..] */
        x = rf_b_transpose(L, x, dim, dim + 1);       /* [.., r, F, step, ..] */
        x = rf_b_pad_dim(L, x, dim + 1, 0, r, 0.0);   /* [.., r, F+r, step, ..] */
        x = rf_b_flatten(L, x, dim, dim + 1);
        x = rf_b_slice(L, x, dim, 0, r * (frames + r - 1));
        x = rf_b_unflatten(L, x, dim, 2, rows); /* [.., r, F+r-1, step, ..] */
        x = x ? rf_b_reduce(L, "aten.sum.dim_IntList", x, 1, &dim, 0) : NULL;
    }
    x = rf_b_flatten(L, x, dim, dim + 1); /* [.., (F+r-1)*step, ..] */
    return rf_b_resize(L, x, dim, len);
}
