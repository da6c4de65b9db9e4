/* Pruned forward transforms: when only some outputs of a DFT are read (a
 * Fourier neural operator keeps the lowest modes of an rfft2), each pruned dim
 * is one matmul against a truncated DFT matrix of the kept frequencies, n x k
 * instead of a full n-point plan, and later dims see k entries instead of n.
 * The pattern fft.prune decides which outputs are read (patterns/fft_prune.c).
 *
 * Layout as in split.h: a complex tensor is split, [..., 2, L], the real and
 * imaginary rows on the axis before the last; a real one is [..., L]. Pruned
 * dims go first (they shrink the data), the other dims then run through the
 * full engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft/engine.h"
#include "fft/plan.h"
#include "fft/split.h"
#include "ir/mem.h"
#include "lower/realops.h"

int rf_fft_prune_worth(int64_t n, int64_t k, int64_t out_size) {
    if (k < 1 || k >= out_size || n < 1 || n > RF_FFT_MAX_N) return 0;
    if ((double)n * (double)k * 32.0 > (double)RF_FFT_MAX_TABLE_BYTES) return 0; /* a 2n x 2k double table */
    rf_fft_plan plan;
    if (rf_fft_plan_make(n, &plan)) return 0;
    if (rf_fft_plan_is_direct(&plan)) return 1; /* the full plan is one n x n matmul */
    /* the full plan's multiply-adds and stage overheads, as in plan.c's cost model */
    int64_t len = plan.m ? plan.m : n;
    double full = 0;
    for (int i = 0; i < plan.nfactors; i++) full += (double)len * (double)plan.factors[i];
    full += (double)(plan.nfactors - 1) * (double)len * RF_FFT_STAGE_COST;
    if (plan.m) full *= 2;
    return (double)n * (double)k <= full;
}

/* The DFT block over frequencies a (input index set `in`, kin entries) and b
 * (output set `out`, kout): c[i*kout + o] = cos(2 pi a_i b_o / n), s = sign *
 * sin(...). A set with idx NULL is all of 0..k-1. */
static int dft_block(int64_t n, const rf_fft_keep *in, const rf_fft_keep *out, int sign, double **c, double **s) {
    int64_t kin = in->k, kout = out->k;
    *c = rf_calloc((size_t)(kin * kout), sizeof(double));
    *s = rf_calloc((size_t)(kin * kout), sizeof(double));
    if (!*c || !*s) return 0;
    for (int64_t i = 0; i < kin; i++)
        for (int64_t o = 0; o < kout; o++) {
            uint64_t a = (uint64_t)(in->idx ? in->idx[i] : i) % (uint64_t)n;
            uint64_t b = (uint64_t)(out->idx ? out->idx[o] : o) % (uint64_t)n;
            double cc, ss;
            rf_fft_unit_root((int64_t)((a * b) % (uint64_t)n), n, &cc, &ss);
            (*c)[i * kout + o] = cc;
            (*s)[i * kout + o] = sign * ss + 0.0;
        }
    return 1;
}

/* The matrix of a stage from set `in` to set `out`: right, x @ W: real x
 * [.., kin] -> [.., 2 kout] (W = [C | sS]), complex [x_re | x_im] (W = [[C, sS],
 * [-sS, C]]); left, T @ x: T = [C^T; sS^T] (2 kout x kin), for either x. */
static rf_value *stage_matrix(rf_fft_ctx *f, int64_t n, const rf_fft_keep *in, const rf_fft_keep *out, int sign,
                              int real, int left) {
    double *c = NULL, *s = NULL;
    rf_value *v = NULL;
    if (dft_block(n, in, out, sign, &c, &s)) {
        char hint[80];
        snprintf(hint, sizeof hint, "dft%lld_%s%lld_%s%s", (long long)n, in->idx ? "from" : "keep",
                 (long long)(in->idx ? in->k : out->k), left ? "left" : (real ? "real" : "block"),
                 sign < 0 ? "" : "_inv");
        v = rf_fft_block_matrix(f, hint, c, s, in->k, out->k, left, left || real);
    } else {
        f->oom = 1;
    }
    rf_free(c);
    rf_free(s);
    return v;
}

/* The right stage along the last axis: [..., (2,) kin] -> [..., 2, kout]. */
static rf_fft_blk right_stage(rf_fft_ctx *f, rf_fft_blk x, int64_t n, const rf_fft_keep *in, const rf_fft_keep *out,
                              int sign) {
    rf_lowering *L = f->L;
    rf_value *v = x.real ? x.v : rf_b_flatten(L, x.v, -2, -1);
    v = rf_b_matmul(L, v, stage_matrix(f, n, in, out, sign, x.real, 0));
    return rf_fft_bk(rf_b_unflatten(L, v, -1, 2, (int64_t[]){2, out->k}), 0);
}

/* The left stage over axis d (static axes after it): T @ x, then for a complex
 * x the (cos, sin) row blocks combine as Y = Cx + J(sSx), J(a, b) = (-b, a)
 * over the split axis. */
static rf_fft_blk left_stage(rf_fft_ctx *f, rf_fft_blk x, int d, int64_t n, const rf_fft_keep *in,
                             const rf_fft_keep *out, int sign) {
    rf_lowering *L = f->L;
    int rank = x.v->rank;
    int64_t tail[RF_MAX_RANK];
    int ntail = rank - d - 1;
    for (int i = 0; i < ntail; i++) tail[i] = x.v->dims[d + 1 + i].size;
    rf_value *v = ntail > 1 ? rf_b_flatten(L, x.v, d + 1, rank - 1) : x.v;
    v = rf_b_matmul(L, stage_matrix(f, n, in, out, sign, 0, 1), v);
    if (v && ntail > 1) v = rf_b_unflatten(L, v, -1, (size_t)ntail, tail);
    v = rf_b_unflatten(L, v, d, 2, (int64_t[]){2, out->k}); /* [.., 2 (cos, sin), kout, tail] */
    rf_value *c = rf_b_select(L, v, d, 0), *s = rf_b_select(L, v, d, 1);
    if (x.real) return rf_fft_bk(rf_b_stack2(L, c, s, -2), 0);
    double sgn[2] = {-1.0, 1.0};
    int64_t sd[2] = {2, 1};
    rf_value *k = rf_fft_const(f, "split_sign1", f->dt, 2, sd, sgn);
    rf_value *t = rf_fft_mul_const(L, rf_b_flip(L, s, -2), k);
    return rf_fft_bk((c && t) ? rf_b_add(L, rf_val(c), rf_val(t)).v : NULL, 0);
}

static int static_after(const rf_value *v, int d) {
    for (int i = d + 1; i < v->rank; i++)
        if (v->dims[i].sym) return 0;
    return 1;
}

/* The truncated DFT of length n along pair dim d (pair rank r) of x, from
 * the frequencies `in` (x has in->k entries there) to `out`. */
static rf_fft_blk pruned_along(rf_fft_ctx *f, rf_fft_blk x, int64_t d, int r, int64_t n, const rf_fft_keep *in,
                               const rf_fft_keep *out, int sign) {
    rf_lowering *L = f->L;
    if (!x.v) return x;
    int last = x.v->rank - 1;
    int bd = (!x.real && d == r - 1) ? last : (int)d; /* the axis of d in the split tensor */
    if (bd == last) return right_stage(f, x, n, in, out, sign);
    if (!x.real && static_after(x.v, bd) && x.v->rank + 1 < RF_MAX_RANK)
        return left_stage(f, x, bd, n, in, out, sign);
    /* through the last axis and back */
    rf_fft_blk y = right_stage(f, rf_fft_bk(rf_b_transpose(L, x.v, bd, last), x.real), n, in, out, sign);
    if (!y.v) return y;
    return rf_fft_bk(rf_b_transpose(L, y.v, bd, y.v->rank - 1), 0);
}

/* Pruned dims in order, then the others through the full engine. */
static rf_cx run_pruned(rf_fft_ctx *f, rf_fft_blk b, const int64_t *dims, size_t nd, int r, int sign,
                        const rf_fft_keep *keep) {
    int64_t rest[RF_MAX_RANK];
    size_t nrest = 0;
    for (size_t i = 0; i < nd; i++) {
        if (!keep[i].k || !b.v) {
            rest[nrest++] = dims[i];
            continue;
        }
        int64_t n = b.v->dims[(!b.real && dims[i] == r - 1) ? b.v->rank - 1 : dims[i]].size;
        rf_fft_keep all = {n, NULL};
        b = pruned_along(f, b, dims[i], r, n, &all, &keep[i], sign);
    }
    return rf_fft_c2c_dims(f, rf_fft_pair_of_blk(f->L, b), rest, nrest, sign);
}

rf_cx rf_fft_c2c_pruned(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int sign, const rf_fft_keep *keep) {
    if (rf_status_of(f->L) != RF_OK || !x.re.v) return rf_cx_values(NULL, NULL);
    rf_value *im = rf_cx_im_or_null(x);
    rf_fft_blk b = {im ? rf_b_stack2(f->L, x.re.v, im, -2) : x.re.v, im == NULL};
    return run_pruned(f, b, dims, nd, x.re.v->rank, sign, keep);
}

rf_cx rf_fft_r2c_pruned(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided,
                        const rf_fft_keep *keep) {
    if (rf_status_of(f->L) != RF_OK || !x || !nd) return rf_cx_values(NULL, NULL);
    if (!onesided) return run_pruned(f, rf_fft_bk(x, 1), dims, nd, x->rank, -1, keep);
    int r = x->rank;
    const rf_fft_keep *kl = &keep[nd - 1];
    if (!kl->k) { /* the real dim in full (onesided), then the others pruned */
        rf_cx y = rf_fft_r2c_dims(f, x, dims + nd - 1, 1, 1);
        return rf_fft_c2c_pruned(f, y, dims, nd - 1, -1, keep);
    }
    int64_t n = x->dims[dims[nd - 1]].size;
    rf_fft_keep all = {n, NULL};
    rf_fft_blk b = pruned_along(f, rf_fft_bk(x, 1), dims[nd - 1], r, n, &all, kl, -1);
    return run_pruned(f, b, dims, nd - 1, r, -1, keep);
}

/* ---- inputs known to be zero outside some frequencies (inverse side) ---- */

/* The pruned dims of an input-sparse c2c in split layout; the others are
 * listed in rest. */
static rf_fft_blk c2c_sparse_blk(rf_fft_ctx *f, rf_cx x, const int64_t *dims, const int64_t *sizes, size_t nd, int sign,
                                 const rf_fft_keep *keep, int64_t *rest, size_t *nrest) {
    rf_value *im = rf_cx_im_or_null(x);
    int r = x.re.v->rank;
    rf_fft_blk b = {im ? rf_b_stack2(f->L, x.re.v, im, -2) : x.re.v, im == NULL};
    *nrest = 0;
    for (size_t i = 0; i < nd; i++) {
        if (!keep[i].k) {
            rest[(*nrest)++] = dims[i];
            continue;
        }
        rf_fft_keep all = {sizes[i], NULL};
        b = pruned_along(f, b, dims[i], r, sizes[i], &keep[i], &all, sign);
    }
    return b;
}

rf_cx rf_fft_c2c_sparse(rf_fft_ctx *f, rf_cx x, const int64_t *dims, const int64_t *sizes, size_t nd, int sign,
                        const rf_fft_keep *keep) {
    if (rf_status_of(f->L) != RF_OK || !x.re.v) return rf_cx_values(NULL, NULL);
    int64_t rest[RF_MAX_RANK];
    size_t nrest;
    rf_fft_blk b = c2c_sparse_blk(f, x, dims, sizes, nd, sign, keep, rest, &nrest);
    return rf_fft_c2c_dims(f, rf_fft_pair_of_blk(f->L, b), rest, nrest, sign);
}

/* The real inverse of length n along the last axis from the half-spectrum
 * frequencies `in` (x [..., (2,) k]): y[j] = sum_q w_q (Re X_q cos - Im X_q sin)(2 pi K_q j / n),
 * w_q = 1 at 0 and n/2, else 2, as the full c2r computes it. Im X at 0 and n/2
 * is not read: a where zeroes it (torch ignores even a NaN there) and its row
 * of the table is zero; a where is one pass where a gather of the other
 * columns is a slow indexed copy in the graph runtimes. */
static rf_value *c2r_last(rf_fft_ctx *f, rf_fft_blk x, int64_t n, const rf_fft_keep *in) {
    rf_lowering *L = f->L;
    int64_t k = in->k, rows = x.real ? k : 2 * k, dropped = 0;
    double *c = NULL, *s = NULL, *w = NULL, *keep = NULL;
    rf_fft_keep all = {n, NULL};
    rf_value *y = NULL;
    int ok = 0;
    if (!dft_block(n, in, &all, 1, &c, &s)) goto out;
    w = rf_calloc((size_t)(rows * n), sizeof(double));
    keep = rf_calloc((size_t)rows, sizeof(double));
    if (!w || !keep) goto out;
    ok = 1;
    for (int64_t q = 0; q < rows; q++) {
        int64_t src = q < k ? q : q - k;
        int edge = in->idx[src] == 0 || 2 * in->idx[src] == n;
        double wt = edge ? 1.0 : 2.0;
        int kept = q < k || !edge;
        keep[q] = kept;
        dropped += !kept;
        if (!kept) continue; /* the row stays zero */
        for (int64_t j = 0; j < n; j++) w[q * n + j] = q < k ? wt * c[src * n + j] : -wt * s[src * n + j] + 0.0;
    }
    char name[64];
    snprintf(name, sizeof name, "irdft%lld_from%lld", (long long)n, (long long)k);
    int64_t dims[2] = {rows, n};
    rf_value *mat = rf_fft_const(f, name, f->dt, 2, dims, w);
    rf_value *v = x.v;
    if (!x.real) {
        v = rf_b_flatten(L, v, -2, -1);
        if (dropped) { /* Im X[0] and Im X[n/2] */
            snprintf(name, sizeof name, "irdft%lld_from%lld_keep", (long long)n, (long long)k);
            v = rf_b_where(L, rf_fft_const(f, name, RF_DT_BOOL, 1, &rows, keep), rf_val(v), rf_num(0.0)).v;
        }
    }
    y = rf_b_matmul(L, v, mat);
out:
    if (!ok) f->oom = 1;
    rf_free(c);
    rf_free(s);
    rf_free(w);
    rf_free(keep);
    return y;
}

rf_value *rf_fft_c2r_sparse(rf_fft_ctx *f, rf_cx x, const int64_t *dims, const int64_t *sizes, size_t nd,
                            int64_t last_dim_size, const rf_fft_keep *keep) {
    if (rf_status_of(f->L) != RF_OK || !x.re.v || !nd) return NULL;
    rf_lowering *L = f->L;
    const rf_fft_keep *kl = &keep[nd - 1];
    int64_t rest[RF_MAX_RANK];
    size_t nrest;
    int r = x.re.v->rank, d = (int)dims[nd - 1];
    rf_fft_blk b = c2c_sparse_blk(f, x, dims, sizes, nd - 1, 1, keep, rest, &nrest);
    if (nrest || !kl->k) { /* full dims left: through the engine, as pairs */
        rf_cx z = rf_fft_c2c_dims(f, rf_fft_pair_of_blk(L, b), rest, nrest, 1);
        if (!kl->k) return rf_fft_c2r_dims(f, z, dims + nd - 1, 1, last_dim_size);
        rf_value *im = rf_cx_im_or_null(z);
        b = rf_fft_bk((z.re.v && im) ? rf_b_stack2(L, z.re.v, im, -2) : z.re.v, im == NULL);
    }
    if (!b.v) return NULL;
    int last = b.v->rank - 1;
    if (d != r - 1) b.v = rf_b_transpose(L, b.v, d, last); /* the c2r dim to the last axis */
    rf_value *y = c2r_last(f, b, last_dim_size, kl);
    return d != r - 1 ? rf_b_transpose(L, y, d, r - 1) : y;
}
