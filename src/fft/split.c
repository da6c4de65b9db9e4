/* The split layout of the matmul strategy (split.h): pairs in and out, and
 * the constants its stages multiply by. */
#include "fft/split.h"

#include <stdio.h>
#include <string.h>

#include "fft/plan.h"
#include "ir/mem.h"

/* The value v selects row `index` of the split axis from, or NULL. */
static rf_value *split_source(const rf_value *v, int64_t index) {
    const rf_node *n = v->producer;
    if (!n || strcmp(n->op, "aten.select.int") != 0) return NULL;
    const rf_attr *self = rf_node_arg(n, "self"), *dim = rf_node_arg(n, "dim"), *idx = rf_node_arg(n, "index");
    if (!self || self->kind != RF_A_VALUE || !dim || dim->kind != RF_A_INT || !idx || idx->kind != RF_A_INT)
        return NULL;
    rf_value *src = self->value;
    int split = src->rank - 2;
    if (src->rank < 2 || (dim->i != -2 && dim->i != split) || idx->i != index) return NULL;
    if (src->dims[split].sym || src->dims[split].size != 2) return NULL;
    return src;
}

rf_fft_blk rf_fft_blk_of_pair(rf_lowering *L, rf_cx x) {
    rf_value *re = x.re.v, *im = rf_cx_im_or_null(x);
    if (!re) return rf_fft_bk(NULL, 0);
    if (!im) return rf_fft_bk(re, 1);
    rf_value *src = split_source(re, 0); /* the parts of an earlier transform's output: no copy */
    if (src && src == split_source(im, 1)) return rf_fft_bk(src, 0);
    return rf_fft_bk(rf_b_stack2(L, re, im, -2), 0);
}

rf_cx rf_fft_pair_of_blk(rf_lowering *L, rf_fft_blk b) {
    if (!b.v || b.real) return rf_cx_values(b.v, NULL);
    rf_value *re = rf_b_select(L, b.v, -2, 0);
    return rf_cx_values(re, rf_b_select(L, b.v, -2, 1));
}

/* ---- constants ---- */

static int all_zero(const double *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (v[i] != 0.0) return 0;
    return 1;
}

double *rf_fft_dalloc(rf_fft_ctx *f, size_t n) {
    double *p = rf_calloc(n ? n : 1, sizeof(double));
    if (!p) f->oom = 1;
    return p;
}

/* rf_fft_block_matrix's writer; `pairs` (right, complex only): the columns in pair order (o, part) instead of
 * (part, o), so x @ it leaves the DFT's pairs interleaved as a graph returns them. */
static rf_value *block_matrix(rf_fft_ctx *f, const char *hint, const double *c, const double *s, int64_t kin,
                              int64_t kout, int left, int real, int pairs) {
    /* the right matrix is in_rows x out_cols; the left one is its transpose, stored so */
    int64_t in_rows = real ? kin : 2 * kin, out_cols = 2 * kout;
    double *w = (c && s) ? rf_fft_dalloc(f, (size_t)(in_rows * out_cols)) : NULL;
    if (!w) {
        f->oom = 1;
        return NULL;
    }
#define COL(part, o) (pairs ? 2 * (o) + (part) : (part) * kout + (o))
#define AT(r, q) w[left ? (q) * in_rows + (r) : (r) * out_cols + (q)]
    for (int64_t i = 0; i < kin; i++)
        for (int64_t o = 0; o < kout; o++) {
            double cc = c[i * kout + o], ss = s[i * kout + o];
            AT(i, COL(0, o)) = cc, AT(i, COL(1, o)) = ss;
            if (!real) AT(kin + i, COL(0, o)) = -ss + 0.0, AT(kin + i, COL(1, o)) = cc;
        }
#undef AT
#undef COL
    int64_t dims[2] = {left ? out_cols : in_rows, left ? in_rows : out_cols};
    rf_value *v = rf_fft_const(f, hint, f->dt, 2, dims, w);
    rf_free(w);
    return v;
}

rf_value *rf_fft_block_matrix(rf_fft_ctx *f, const char *hint, const double *c, const double *s, int64_t kin,
                              int64_t kout, int left, int real) {
    return block_matrix(f, hint, c, s, kin, kout, left, real, 0);
}

/* The DFT matrix of size p and sign s, F[j][k] = cos(2 pi jk/p) + i s sin(2 pi jk/p): rf_fft_block_matrix of the
 * whole tables (C and S are symmetric, so the left matrices are [[C, -sS], [sS, C]] and [C; sS]). */
rf_value *rf_fft_dft_matrix(rf_fft_ctx *f, int64_t p, int sign, int left, int real) {
    return rf_fft_dft_matrix_rolled(f, p, sign, left, real, 0, 0, 1.0);
}

/* The tables of the DFT of size p and sign `sign` with the rolls folded in and times scale, indexed [input i]
 * [output o] as rf_fft_block_matrix takes them: an input roll by r_in permutes the input side (sample i reads as
 * sample (i + r_in) mod p), an output roll by r_out the output side (output o is bin (o - r_out) mod p).
 * The rolls are taken mod p, in place (the constants' names carry them). 0 when out of memory (f marked). */
static int rolled_tables(rf_fft_ctx *f, int64_t p, int sign, int64_t *roll_in, int64_t *roll_out, double scale,
                         double **c, double **s) {
    *roll_in = ((*roll_in % p) + p) % p;
    *roll_out = ((*roll_out % p) + p) % p;
    int64_t r_in = *roll_in, r_out = *roll_out;
    size_t pp = (size_t)(p * p);
    double *c0 = rf_fft_dalloc(f, pp), *s0 = rf_fft_dalloc(f, pp);
    *c = rf_fft_dalloc(f, pp), *s = rf_fft_dalloc(f, pp);
    int ok = c0 && s0 && *c && *s;
    if (ok) {
        rf_fft_cos_sin_table(p, p, p, c0, s0);
        for (int64_t i = 0; i < p; i++)
            for (int64_t o = 0; o < p; o++) {
                size_t at = (size_t)(((i + r_in) % p) * p + (o - r_out + p) % p);
                (*c)[i * p + o] = scale * c0[at];
                (*s)[i * p + o] = scale * sign * s0[at] + 0.0;
            }
    }
    rf_free(c0);
    rf_free(s0);
    return ok;
}

rf_value *rf_fft_dft_matrix_rolled(rf_fft_ctx *f, int64_t p, int sign, int left, int real, int64_t r_in,
                                   int64_t r_out, double scale) {
    double *c = NULL, *s = NULL;
    rf_value *v = NULL;
    if (rolled_tables(f, p, sign, &r_in, &r_out, scale, &c, &s)) {
        char hint[64];
        /* the left matrix of one sign is the right matrix of the other: name by content */
        int s_eff = (left && !real) ? -sign : sign;
        int at = snprintf(hint, sizeof hint, "dft%lld_%s%s", (long long)p,
                          real ? (left ? "real_left" : "real") : "block", s_eff < 0 ? "" : "_inv");
        if ((r_in || r_out || scale != 1.0) && at > 0 && (size_t)at < sizeof hint)
            snprintf(hint + at, sizeof hint - (size_t)at, "_roll%lld_%lld%s", (long long)r_in, (long long)r_out,
                     scale != 1.0 ? "_scaled" : "");
        v = rf_fft_block_matrix(f, hint, c, s, p, p, left, real);
    }
    rf_free(c);
    rf_free(s);
    return v;
}

rf_value *rf_fft_dft_matrix_pairs(rf_fft_ctx *f, int64_t p, int sign, int64_t r_in, int64_t r_out, double scale) {
    double *c = NULL, *s = NULL;
    rf_value *v = NULL;
    if (rolled_tables(f, p, sign, &r_in, &r_out, scale, &c, &s)) {
        char hint[80];
        snprintf(hint, sizeof hint, "dft%lld_pairs%s_roll%lld_%lld%s", (long long)p, sign < 0 ? "" : "_inv",
                 (long long)r_in, (long long)r_out, scale != 1.0 ? "_scaled" : "");
        v = block_matrix(f, hint, c, s, p, p, 0, 0, 1);
    }
    rf_free(c);
    rf_free(s);
    return v;
}

/* x * k for a complex constant k (re, im given in double, shape sdims) that
 * broadcasts over the dims after x's split axis, which is axis `split` of x
 * (negative). In split layout: x * k_re + flip(x, split) * [-k_im; k_im]. The
 * sign rides in the constant (a * -b is -(a * b) exactly), so a graph runtime,
 * which runs each op as its own pass, makes no pass for it. */
rf_fft_blk rf_fft_cmul(rf_fft_ctx *f, rf_fft_blk x, int split, const char *name, int srank, const int64_t *sdims,
                       const double *re, const double *im) {
    rf_lowering *L = f->L;
    if (!x.v) return x;
    size_t cnt = 1;
    for (int i = 0; i < srank; i++) cnt *= (size_t)sdims[i];
    int64_t d2[RF_MAX_RANK + 1] = {2};
    memcpy(d2 + 1, sdims, (size_t)srank * sizeof(int64_t));
    double *two = rf_fft_dalloc(f, 2 * cnt);
    char hint[80];
    rf_fft_blk out = rf_fft_bk(NULL, 0);
    if (!two) return out;
    if (x.real) { /* x -> [..., 2, S] = unsqueeze(x) * [k_re; k_im] */
        memcpy(two, re, cnt * sizeof(double));
        memcpy(two + cnt, im, cnt * sizeof(double));
        snprintf(hint, sizeof hint, "%s_reim", name);
        rf_value *k = rf_fft_const(f, hint, f->dt, srank + 1, d2, two);
        out = rf_fft_bk(rf_fft_mul_const(L, rf_b_unsqueeze(L, x.v, split), k), 0);
    } else {
        snprintf(hint, sizeof hint, "%s_re", name);
        rf_value *t = rf_fft_mul_const(L, x.v, rf_fft_const(f, hint, f->dt, srank, sdims, re));
        if (!all_zero(im, cnt)) {
            for (size_t i = 0; i < cnt; i++) two[i] = -im[i], two[cnt + i] = im[i];
            snprintf(hint, sizeof hint, "%s_im_signed", name);
            rf_value *u =
                rf_fft_mul_const(L, rf_b_flip(L, x.v, split), rf_fft_const(f, hint, f->dt, srank + 1, d2, two));
            t = rf_b_add(L, rf_val(t), rf_val(u)).v;
        }
        out = rf_fft_bk(t, 0);
    }
    rf_free(two);
    return out;
}

/* conj in split layout: the imaginary row times -1 */
rf_fft_blk rf_fft_bconj(rf_fft_ctx *f, rf_fft_blk x) {
    if (!x.v || x.real) return x;
    double sgn[2] = {1.0, -1.0};
    int64_t dims[2] = {2, 1};
    return rf_fft_bk(rf_fft_mul_const(f->L, x.v, rf_fft_const(f, "conj_sign", f->dt, 2, dims, sgn)), 0);
}

rf_fft_blk rf_fft_badd(rf_lowering *L, rf_fft_blk a, rf_fft_blk b) {
    if (a.real != b.real) return rf_fft_bk(NULL, 0); /* not used: both sides are complex */
    return rf_fft_bk(rf_b_add(L, rf_val(a.v), rf_val(b.v)).v, a.real);
}
