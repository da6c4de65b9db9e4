/* Real transforms for graph runtimes (target onnx/openvino; graph_real.h):
 * an even-length rfft or irfft in two matmul stages with nothing between them
 * but one transpose. ONNX Runtime and OpenVINO run every node as a pass of its
 * own over the data, so the packed half-length complex transform (a flip and
 * four multiplies to split the halves, a twiddle multiply between the stages)
 * costs more there than the matmuls. Instead, n = P*Q with j = Q*j1 + j2 and
 * k = k1 + P*k2:
 *   forward   one real matmul over j1 from the left (rows k1 and the part,
 *             interleaved), then per k1 one matmul over (part, j2) that holds
 *             the twiddle w_n^(j2*k1) and writes only the k2 of the kept half;
 *   backward  the mirror: per k1 a matmul over (part, k2) with the twiddle, the
 *             Hermitian weights (1 at 0 and n/2, else 2) and the dropped
 *             imaginary parts of X[0] and X[n/2] folded in, then one real
 *             matmul over (k1, part) that keeps the real part.
 * A long convolution (conv_graph) of real inputs keeps only k1 <= p/2 in its first stage and every k2 in its
 * second, the whole spectrum up to conjugates (X[n - k] = conj X[k]): half the first stage for the same second,
 * and the inverse pairs k1 with p - k1 in its last table.
 * The per-k1 matmuls are batched over k1 with the other dims as rows, so all
 * non-transformed dims must be static. A forward input whose tail is a known
 * zero pad (Hyena's rfft(u, n=2L)) skips the zero rows of the first stage; a backward transform whose
 * caller reads only the first outputs (Hyena's crop to L; keep_last, context.h) computes only the rows j1 that
 * hold them, and the caller's scale (fold_scale) goes into the last table. */
#include "fft/graph_real.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cxmath/cxmath.h"
#include "fft/plan.h"
#include "ir/mem.h"

#define MAX_SIDE 256 /* the largest P or Q: the per-k1 tables are P*2Q*2Q' entries */

/* P for n: the smallest divisor with P*P >= n (balances the two stages); 0 when no split fits. */
static int64_t split_of(int64_t n) {
    for (int64_t p = 2; p <= MAX_SIDE && p < n; p++)
        if (n % p == 0 && p * p >= n) return (n / p >= 2 && n / p <= MAX_SIDE) ? p : 0;
    return 0;
}

static int applies(rf_fft_ctx *f, const rf_value *x, int lead, int64_t n) {
    if (!rf_graph_runtime(f->L) || n % 2 || !x || x->rank < lead)
        return 0;
    for (int i = 0; i < lead; i++)
        if (x->dims[i].sym) return 0;
    rf_fft_plan plan;
    if (rf_fft_plan_make(n, &plan) || rf_fft_plan_is_direct(&plan) || plan.m) return 0;
    return split_of(n) != 0;
}

/* x [d..., rest] -> [B, rest] (lead = the number of d dims); undone by unlead. */
static rf_value *lead_flat(rf_lowering *L, rf_value *x, int lead) {
    if (lead == 0) return rf_b_unsqueeze(L, x, 0);
    return lead == 1 ? x : rf_b_flatten(L, x, 0, lead - 1);
}

static rf_value *unlead(rf_lowering *L, rf_value *y, const rf_value *x, int lead) {
    if (!y) return NULL;
    if (lead == 0) return rf_b_squeeze(L, y, 0);
    if (lead == 1) return y;
    int64_t sizes[RF_MAX_RANK];
    for (int i = 0; i < lead; i++) sizes[i] = x->dims[i].size;
    return rf_b_unflatten(L, y, 0, (size_t)lead, sizes);
}

/* The entries of x before a trailing zero pad of its last dim that the graph
 * shows (constant_pad_nd with value 0 behind the last dim only): the unpadded
 * value, or NULL when there is none to see. */
static rf_value *unpadded(const rf_value *x) {
    const rf_node *p = x->producer;
    if (!p || strcmp(p->op, "aten.constant_pad_nd.default")) return NULL;
    const rf_attr *self = rf_node_arg(p, "self"), *a = rf_node_arg(p, "pad"), *v = rf_node_arg(p, "value");
    int64_t pad[2 * RF_MAX_RANK];
    if (!self || self->kind != RF_A_VALUE || !self->value || !a || rf_int_list(a, pad, 2 * RF_MAX_RANK) != 2 ||
        pad[0] != 0 || pad[1] < 0)
        return NULL;
    if (v && !(v->kind == RF_A_FLOAT && v->f == 0.0) && !(v->kind == RF_A_INT && v->i == 0)) return NULL;
    return self->value;
}

static rf_value *table(rf_fft_ctx *f, const char *name, int rank, const int64_t *dims, double *data) {
    rf_value *k = rf_fft_const(f, name, f->dt, rank, dims, data);
    rf_free(data);
    return k;
}

/* The k1 and k2 counts of the stages' spectrum for n (forward_stages and inverse_stages share the form). */
static void spectrum_sizes(int64_t n, int half, int64_t *k1s, int64_t *k2s) {
    int64_t p = split_of(n);
    *k1s = half ? p / 2 + 1 : p;
    *k2s = half ? n / p : n / 2 / p + 1;
}

/* The forward's tables for n = p*q: ka [2*k1s, rows], stage one from the left (rows k1 and the part,
 * interleaved), and kw per k1 the matrix from (part of y, j2) to (part of X, k2) times `scale`, [k1s, 2q, 2k2s],
 * or its transpose [k1s, 2k2s, 2q] when `left` (stage two from the left too). 0 when out of memory. */
static int forward_tables(rf_fft_ctx *f, int64_t n, int64_t rows, double scale, int half, int left, rf_value **ka,
                          rf_value **kw) {
    int64_t p = split_of(n), q = n / p, k1s, k2s;
    spectrum_sizes(n, half, &k1s, &k2s);
    char name[80];
    double *a = rf_fft_dalloc(f, (size_t)(2 * k1s * rows));
    double *w = rf_fft_dalloc(f, (size_t)(k1s * 2 * q * 2 * k2s));
    if (!a || !w) {
        rf_free(a);
        rf_free(w);
        return 0;
    }
    for (int64_t k1 = 0; k1 < k1s; k1++)
        for (int64_t j1 = 0; j1 < rows; j1++) {
            double c, s;
            rf_fft_unit_root((j1 * k1) % p, p, &c, &s);
            a[(2 * k1) * rows + j1] = c;
            a[(2 * k1 + 1) * rows + j1] = -s + 0.0;
        }
    /* entry (r, c) of k1's block: r the (part of y, j2) row, c the (part of X, k2) column */
#define KW(r, c) blk[left ? (c) * 2 * q + (r) : (r) * 2 * k2s + (c)]
    for (int64_t k1 = 0; k1 < k1s; k1++)
        for (int64_t j2 = 0; j2 < q; j2++)
            for (int64_t k2 = 0; k2 < k2s; k2++) {
                double c, s, *blk = w + k1 * 4 * q * k2s;
                rf_fft_unit_root((j2 * (k1 + p * k2)) % n, n, &c, &s);
                KW(j2, k2) = scale * c;                   /* Re y -> Re X */
                KW(j2, k2s + k2) = scale * -s + 0.0;      /* Re y -> Im X */
                KW(q + j2, k2) = scale * s + 0.0;         /* Im y -> Re X */
                KW(q + j2, k2s + k2) = scale * c;         /* Im y -> Im X */
            }
#undef KW
    const char *kind = half ? "gconv" : "grfft";
    snprintf(name, sizeof name, "%s%lld_rows%lld", kind, (long long)n, (long long)rows);
    *ka = table(f, name, 2, (int64_t[]){2 * k1s, rows}, a);
    snprintf(name, sizeof name, "%s%lld_cols%s%s", kind, (long long)n, scale == 1.0 ? "" : "_scaled", left ? "_t" : "");
    *kw = table(f, name, 3, left ? (int64_t[]){k1s, 2 * k2s, 2 * q} : (int64_t[]){k1s, 2 * q, 2 * k2s}, w);
    return 1;
}

/* The forward's two stages on src [B, rows*q] (the first rows*q samples of the length-n signal, the rest zero),
 * the second table times `scale`: [k1, B, part, k2], X[k1 + p*k2] for every k1 < k1s, k2 < k2s. The full form
 * (k1s = p, k2s = qk) holds the half spectrum (the bins past n/2 are extra; the inverse's table reads none of
 * them); the half form (k1s = p/2 + 1, k2s = q) holds every bin of those k1, which with X[n - k] = conj X[k]
 * is the whole spectrum of a real input: half the first stage's rows for the same second stage. */
static rf_value *forward_stages(rf_fft_ctx *f, rf_value *src, int64_t n, int64_t rows, double scale, int half) {
    rf_lowering *L = f->L;
    int64_t p = split_of(n), q = n / p, k1s, k2s;
    spectrum_sizes(n, half, &k1s, &k2s);
    rf_value *ka = NULL, *kw = NULL;
    if (!forward_tables(f, n, rows, scale, half, 0, &ka, &kw)) return NULL;
    rf_value *v = rf_b_unflatten(L, src, -1, 2, (int64_t[]){rows, q});         /* [B, j1, j2] */
    v = rf_b_unflatten(L, rf_b_matmul(L, ka, v), -2, 2, (int64_t[]){k1s, 2}); /* [B, k1, part, j2] */
    /* k1 to the front on the 4-d view: ONNX Runtime would fuse a transpose next to the matmul into a
     * FusedMatMul with a strided operand, twice as slow as the two apart */
    v = rf_b_flatten(L, rf_b_permute(L, v, 4, (int64_t[]){1, 0, 2, 3}), -2, -1); /* [k1, B, (part, j2)] */
    return rf_b_unflatten(L, rf_b_matmul(L, v, kw), -1, 2, (int64_t[]){2, k2s}); /* [k1, B, part, k2] */
}

/* x [B, len], the first len samples of a length-n signal (zero after): [B, rows*q] and the rows j1 it fills. */
static rf_value *forward_source(rf_lowering *L, rf_value *x, int64_t n, int64_t *rows) {
    int64_t p = split_of(n), q = n / p, len = x->dims[x->rank - 1].size;
    if (len >= n) {
        *rows = p;
        return rf_b_resize(L, x, -1, n);
    }
    *rows = len < 1 ? 1 : (len + q - 1) / q;
    return rf_b_resize(L, x, -1, *rows * q);
}

int rf_fft_rdft_graph(rf_fft_ctx *f, rf_value *x, int64_t n, rf_fft_blk *out) {
    rf_lowering *L = f->L;
    int lead = x ? x->rank - 1 : -1;
    if (!applies(f, x, lead, n)) return 0;
    int64_t m = n / 2 + 1, rows = 0;
    rf_value *u = unpadded(x);
    if (!u || u->rank != x->rank || u->dims[lead].sym) u = x; /* else only the rows j1 that hold data */
    rf_value *src = forward_source(L, lead_flat(L, u, lead), n, &rows);
    rf_value *v = forward_stages(f, src, n, rows, 1.0, 0);
    if (!v) {
        *out = rf_fft_bk(NULL, 0);
        return 1;
    }
    v = rf_b_flatten(L, rf_b_permute(L, v, 4, (int64_t[]){1, 2, 3, 0}), -2, -1); /* [B, 2, (k2, k1)] */
    *out = rf_fft_bk(unlead(L, rf_b_resize(L, v, -1, m), x, lead), 0);
    return 1;
}

/* Both stages from the left, so the frames stay innermost and each transpose moves one axis (ONNX Runtime's
 * fast case; a transpose that moves two costs it several times more). */
int rf_fft_frames_graph(rf_fft_ctx *f, rf_value *frames, int64_t n, rf_cx *out) {
    rf_lowering *L = f->L;
    if (!frames || frames->rank != 3 || frames->dims[2].size != n || !applies(f, frames, 2, n)) return 0;
    int64_t p = split_of(n), q = n / p, m = n / 2 + 1, k1s, k2s;
    spectrum_sizes(n, 0, &k1s, &k2s);
    rf_value *ka = NULL, *kw = NULL;
    *out = rf_cx_values(NULL, NULL);
    if (!forward_tables(f, n, p, 1.0, 0, 1, &ka, &kw)) return 1;
    rf_value *v = rf_b_unflatten(L, frames, -1, 2, (int64_t[]){p, q});        /* [B, F, j1, j2] */
    v = rf_b_unflatten(L, rf_b_matmul(L, ka, v), 2, 2, (int64_t[]){k1s, 2});  /* [B, F, k1, part, j2] */
    v = rf_b_flatten(L, rf_b_permute(L, v, 5, (int64_t[]){0, 2, 3, 4, 1}), 2, 3); /* [B, k1, (part, j2), F] */
    v = rf_b_unflatten(L, rf_b_matmul(L, kw, v), 2, 2, (int64_t[]){2, k2s}); /* [B, k1, part, k2, F] */
    v = rf_b_flatten(L, rf_b_permute(L, v, 5, (int64_t[]){0, 2, 3, 1, 4}), 2, 3); /* [B, part, (k2, k1), F] */
    v = rf_b_resize(L, v, 2, m);
    if (v) *out = rf_cx_values(rf_b_select(L, v, 1, 0), rf_b_select(L, v, 1, 1));
    return 1;
}

/* The inverse's two stages on v [k1, B, (part, k2)], the spectrum in forward_stages' form (half the same): the
 * full form reads the half spectrum X[k1 + p*k2] (not the bins past n/2) and weighs each bin by its Hermitian
 * weight; the half form reads every bin of k1 < p/2 + 1, and the pair k1, p - k1, whose sums over k2 are
 * conjugates, becomes twice the real part of one, so the weight moves to the last table. [B, rows*q], the rows
 * j1 of f->keep_last (all without it), f->fold_scale in the last table. */
static rf_value *inverse_stages(rf_fft_ctx *f, rf_value *v, int64_t n, int half) {
    rf_lowering *L = f->L;
    int64_t p = split_of(n), q = n / p, k1s, k2s, rows = p;
    spectrum_sizes(n, half, &k1s, &k2s);
    /* only the first keep_last outputs read (Hyena's crop to L): the rows j1 that hold them */
    if (f->keep_last > 0 && f->keep_last < n) rows = (f->keep_last + q - 1) / q;
    double scale = rf_fft_take_scale(f);
    f->keep_last = 0;
    double *w = rf_fft_dalloc(f, (size_t)(k1s * 2 * k2s * 2 * q));
    double *s = rf_fft_dalloc(f, (size_t)(rows * 2 * k1s));
    if (!w || !s) {
        rf_free(w);
        rf_free(s);
        return NULL;
    }
    for (int64_t k1 = 0; k1 < k1s; k1++)
        for (int64_t k2 = 0; k2 < k2s; k2++) {
            int64_t k = k1 + p * k2;
            if (!half && 2 * k > n) continue; /* past the half spectrum: the rows stay zero */
            int edge = !half && (k == 0 || 2 * k == n);
            double wt = edge || half ? 1.0 : 2.0, *blk = w + k1 * 4 * k2s * q;
            for (int64_t j2 = 0; j2 < q; j2++) {
                double c, sn;
                rf_fft_unit_root((j2 * k) % n, n, &c, &sn);
                /* rows (part of X, k2), columns (part of z, j2) */
                blk[k2 * 2 * q + j2] = wt * c;       /* Re X -> Re z */
                blk[k2 * 2 * q + q + j2] = wt * sn;  /* Re X -> Im z */
                if (!edge) {                         /* torch ignores Im X[0] and Im X[n/2] */
                    blk[(k2s + k2) * 2 * q + j2] = -wt * sn + 0.0;
                    blk[(k2s + k2) * 2 * q + q + j2] = wt * c;
                }
            }
        }
    for (int64_t j1 = 0; j1 < rows; j1++) /* the scale rides in the last table (exact for a power of two) */
        for (int64_t k1 = 0; k1 < k1s; k1++) {
            double c, sn, wt = half && k1 && 2 * k1 != p ? 2.0 : 1.0;
            rf_fft_unit_root((j1 * k1) % p, p, &c, &sn);
            s[j1 * 2 * k1s + 2 * k1] = wt * scale * c;
            s[j1 * 2 * k1s + 2 * k1 + 1] = wt * scale * -sn + 0.0;
        }
    char name[80];
    const char *kind = half ? "giconv" : "girfft";
    snprintf(name, sizeof name, "%s%lld_cols", kind, (long long)n);
    rf_value *kw = table(f, name, 3, (int64_t[]){k1s, 2 * k2s, 2 * q}, w);
    if (rows == p && scale == 1.0) snprintf(name, sizeof name, "%s%lld_rows", kind, (long long)n);
    else snprintf(name, sizeof name, "%s%lld_rows%lld_scaled", kind, (long long)n, (long long)rows);
    rf_value *ks = table(f, name, 2, (int64_t[]){rows, 2 * k1s}, s);
    v = rf_b_unflatten(L, rf_b_matmul(L, v, kw), -1, 2, (int64_t[]){2, q});    /* [k1, B, 2, j2] */
    v = rf_b_flatten(L, rf_b_permute(L, v, 4, (int64_t[]){1, 0, 2, 3}), 1, 2); /* [B, (k1, part), j2] */
    return rf_b_flatten(L, rf_b_matmul(L, ks, v), -2, -1);                      /* [B, rows*q] */
}

int rf_fft_irdft_graph(rf_fft_ctx *f, rf_fft_blk x, int64_t n, rf_value **out) {
    rf_lowering *L = f->L;
    int lead = x.v ? x.v->rank - 2 : -1;
    if (x.real || !applies(f, x.v, lead, n)) return 0;
    int64_t p = split_of(n), qk = n / 2 / p + 1;
    rf_value *v = rf_b_resize(L, rf_b_resize(L, x.v, -1, n / 2 + 1), -1, qk * p);
    v = rf_b_unflatten(L, lead_flat(L, v, lead), -1, 2, (int64_t[]){qk, p});    /* [B, 2, k2, k1] */
    v = rf_b_flatten(L, rf_b_permute(L, v, 4, (int64_t[]){3, 0, 1, 2}), -2, -1); /* [k1, B, (part, k2)] */
    *out = unlead(L, inverse_stages(f, v, n, 0), x.v, lead);
    return 1;
}

/* [k1, B, part, k2] -> [k1, d..., part, k2] for x's lead dims d (lead of them). */
static rf_value *split_lead(rf_lowering *L, rf_value *v, const rf_value *x, int lead) {
    if (!v || lead == 1) return v;
    if (lead == 0) return rf_b_squeeze(L, v, 1);
    int64_t sizes[RF_MAX_RANK];
    for (int i = 0; i < lead; i++) sizes[i] = x->dims[i].size;
    return rf_b_unflatten(L, v, 1, (size_t)lead, sizes);
}

/* The long convolution's product a*b of spectra in the stages' layout [k1, d..., part, k2], with no transpose out
 * of the forwards or into the inverse. Two forms with eager's products and sums (x - y is x + -y): for ONNX
 * Runtime, the parts split, four products, a stack; for OpenVINO, whose Gather, Concat and Split on the part axis
 * are reference kernels while it fuses elementwise chains, a*(Re b, Re b) + swap(a)*(-Im b, Im b), a's parts
 * never split (b's factors fold at load where b is a parameter). ORT ran the second 3% slower: its whole-tensor
 * passes over the stacked parts cost more than over the halves. NULL when the build failed. */
static rf_value *product_split(rf_lowering *L, rf_value *va, rf_value *vb) {
    rf_cx pa = rf_cx_values(rf_b_select(L, va, -2, 0), rf_b_select(L, va, -2, 1));
    rf_cx pb = rf_cx_values(rf_b_select(L, vb, -2, 0), rf_b_select(L, vb, -2, 1));
    if (!pa.re.v || !pa.im.v || !pb.re.v || !pb.im.v) return NULL; /* a NULL part would read as the scalar 0 */
    rf_cx y = rf_cx_mul_eager(L, pa, pb);
    return (y.re.v && y.im.v) ? rf_b_stack2(L, y.re.v, y.im.v, -2) : NULL;
}

static rf_value *product_swapped(rf_lowering *L, rf_value *va, rf_value *vb) {
    rf_value *bre = rf_b_slice(L, vb, -2, 0, 1), *bim = rf_b_slice(L, vb, -2, 1, 2), *swapped = rf_b_flip(L, va, -2);
    if (!bre || !bim || !swapped) return NULL;
    rf_value *neg_im = rf_b_neg(L, rf_val(bim)).v, *b_re2 = rf_b_cat(L, 2, (rf_value *[]){bre, bre}, -2);
    rf_value *b_cross = neg_im ? rf_b_cat(L, 2, (rf_value *[]){neg_im, bim}, -2) : NULL;
    if (!b_re2 || !b_cross) return NULL;
    rf_rv direct = rf_b_mul(L, rf_val(va), rf_val(b_re2)), cross = rf_b_mul(L, rf_val(swapped), rf_val(b_cross));
    return (direct.v && cross.v) ? rf_b_add(L, direct, cross).v : NULL;
}

int rf_fft_conv_graph(rf_fft_ctx *f, rf_value *a, rf_value *b, double scale_b, int64_t n, rf_value **out) {
    rf_lowering *L = f->L;
    int la = a ? a->rank - 1 : -1, lb = b ? b->rank - 1 : -1;
    if (!applies(f, a, la, n) || !applies(f, b, lb, n) || a->dims[la].sym || b->dims[lb].sym) return 0;
    int r = (la > lb ? la : lb) + 3; /* [k1, d..., part, k2] */
    if (r > RF_MAX_RANK) return 0;
    for (int i = 1; i <= (la < lb ? la : lb); i++) { /* the lead dims broadcast, aligned from the right */
        int64_t da = a->dims[la - i].size, db = b->dims[lb - i].size;
        if (da != db && da != 1 && db != 1) return 0;
    }
    int64_t ra = 0, rb = 0;
    rf_value *sa = forward_source(L, lead_flat(L, a, la), n, &ra), *sb = forward_source(L, lead_flat(L, b, lb), n, &rb);
    rf_value *va = forward_stages(f, sa, n, ra, 1.0, 1), *vb = forward_stages(f, sb, n, rb, scale_b, 1);
    va = split_lead(L, va, a, la);
    vb = split_lead(L, vb, b, lb);
    while (va && va->rank < r) va = rf_b_unsqueeze(L, va, 1);
    while (vb && vb->rank < r) vb = rf_b_unsqueeze(L, vb, 1);
    if (!va || !vb) {
        *out = NULL;
        return 1;
    }
    rf_value *v = (rf_options(L)->target & RF_TARGET_OPENVINO) ? product_swapped(L, va, vb) : product_split(L, va, vb);
    if (!v) {
        *out = NULL;
        return 1;
    }
    int lead = r - 3;
    int64_t sizes[RF_MAX_RANK];
    for (int i = 0; v && i < lead; i++) sizes[i] = v->dims[1 + i].size;
    if (v && lead == 0) v = rf_b_unsqueeze(L, v, 1);
    else if (v && lead > 1) v = rf_b_flatten(L, v, 1, lead);
    v = inverse_stages(f, rf_b_flatten(L, v, -2, -1), n, 1); /* [B, rows*q] */
    if (v && lead == 0) v = rf_b_squeeze(L, v, 0);
    else if (v && lead > 1) v = rf_b_unflatten(L, v, 0, (size_t)lead, sizes);
    *out = v;
    return 1;
}
