/* stft and istft on complex values. torch.export keeps them as single ops;
 * make_fx and aot_autograd decompose them into _fft_* (fft_aten.c) plus
 * padding (padding.c), framing and in-place views (views.c) and overlap-add
 * (overlap_add.c). Split from fft_ops.c (the torch.fft API) to keep each file
 * short. Semantics follow torch/_refs/__init__.py (stft, istft). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxmath/cxmath.h"
#include "ir/mem.h"
#include "fft/engine.h"
#include "fft/plan.h"
#include "ir/verify.h"
#include "lower/realops.h"
#include "rules/rules.h"

/* ---- stft, istft ---- */

/* A real op on each part of x, the real part first; a missing part stays missing. */
typedef rf_value *(*part_fn)(rf_lowering *L, rf_value *v, const void *arg);

static rf_cx on_parts(rf_lowering *L, rf_cx x, part_fn fn, const void *arg) {
    rf_value *re = x.re.v ? fn(L, x.re.v, arg) : NULL, *im = rf_cx_im_or_null(x);
    return rf_cx_values(re, im ? fn(L, im, arg) : NULL);
}

static rf_value *unsqueeze0(rf_lowering *L, rf_value *v, const void *arg) {
    (void)arg;
    return rf_b_unsqueeze(L, v, 0);
}

static rf_value *squeeze0(rf_lowering *L, rf_value *v, const void *arg) {
    (void)arg;
    return rf_b_squeeze(L, v, 0);
}

/* a * b, a's parts the left operands of every product (rf_cx_mul puts a
 * complex b first when a is real; the order is kept as the graphs had it). */
static rf_cx mul_parts(rf_lowering *L, rf_cx a, rf_cx b) {
    if (!a.re.v || !b.re.v) return rf_cx_values(NULL, NULL);
    if (!a.im_zero || b.im_zero) return rf_cx_mul(L, a, b);
    rf_value *re = rf_b_mul(L, a.re, b.re).v;
    return rf_cx_values(re, rf_b_mul(L, a.re, b.im).v);
}

/* The window padded to n_fft, centred (torch pads a win_length window so). */
typedef struct centring {
    int64_t left, right;
} centring;

static rf_value *centre(rf_lowering *L, rf_value *v, const void *arg) {
    const centring *c = arg;
    return rf_b_pad_dim(L, v, 0, c->left, c->right, 0.0);
}

static rf_cx centred_window(rf_lowering *L, rf_cx w, int64_t win, int64_t n_fft) {
    if (win == n_fft || !w.re.v) return w;
    centring c = {(n_fft - win) / 2, n_fft - win - (n_fft - win) / 2};
    return on_parts(L, w, centre, &c);
}

/* The rectangular window of win_length ones, centred in n_fft (NULL: no window needed). */
static rf_value *rect_window(rf_fft_ctx *f, int64_t win, int64_t n_fft) {
    if (win == n_fft) return NULL;
    double *w = rf_malloc((size_t)n_fft * sizeof(double));
    int64_t left = (n_fft - win) / 2;
    for (int64_t i = 0; w && i < n_fft; i++) w[i] = (i >= left && i < left + win) ? 1.0 : 0.0;
    char hint[48];
    snprintf(hint, sizeof hint, "rect_window%lld_%lld", (long long)win, (long long)n_fft);
    rf_value *c = rf_fft_const(f, hint, f->dt, 1, &n_fft, w);
    rf_free(w);
    return c;
}

typedef struct frame_args {
    int64_t n_fft, hop, win;
    const rf_attr *window; /* a tensor, or NULL */
} frame_args;

static rf_status read_frame_args(rf_lowering *L, const rf_node *n, frame_args *a) {
    int64_t v;
    if (rf_opt_int(n, "n_fft", &a->n_fft) != 1 || a->n_fft < 1 || a->n_fft > RF_FFT_MAX_N)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s needs a static n_fft >= 1", n->op);
    int k = rf_opt_int(n, "hop_length", &v);
    a->hop = k == 1 ? v : a->n_fft / 4;
    int j = rf_opt_int(n, "win_length", &v);
    a->win = j == 1 ? v : a->n_fft;
    if (k < 0 || j < 0) return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s with a symbolic hop or window length", n->op);
    if (a->hop < 1 || a->win < 1 || a->win > a->n_fft)
        return rf_fail(L, n, RF_ERR_INVALID, "%s: expected hop_length > 0 and 0 < win_length <= n_fft", n->op);
    const rf_attr *w = rf_node_arg(n, "window");
    a->window = rf_attr_is_tensor(w) ? w : NULL;
    return RF_OK;
}

/* [1, B, T] -> [1, B, T + 2p]: torch's pad with `mode` on both sides of T. */
typedef struct signal_pad {
    int64_t p;
    const char *mode;
} signal_pad;

static rf_value *pad_signal(rf_lowering *L, rf_value *v, const void *arg) {
    const signal_pad *sp = arg;
    rf_dim d[3] = {v->dims[0], v->dims[1], v->dims[2]};
    char sym[160];
    if (d[2].sym) {
        snprintf(sym, sizeof sym, "%s + %lld", d[2].sym, (long long)(2 * sp->p));
        d[2].sym = sym;
    } else {
        d[2].size += 2 * sp->p;
    }
    int64_t pad[2] = {sp->p, sp->p};
    rf_arg args[4] = {{"self", rf_attr_ref(v)},
                      {"pad", rf_attr_ints(rf_out_graph(L), 2, pad)},
                      {"mode", rf_attr_str(sp->mode)},
                      {"value", rf_attr_none()}};
    return rf_b_op(L, "aten.pad.default", 4, args, v->dtype, 3, d, "_pad");
}

static int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Frames for graph runtimes (ONNX Runtime, OpenVINO), whose gather on the innermost axis copies element by
 * element (a third of a log-mel's time in ONNX Runtime). With g = gcd(n_fft, hop), the signal is blocks
 * [B, nb, g]; frame f is blocks f*h .. f*h + q - 1 (h = hop/g, q = n_fft/g), so the frames are q strided
 * slices of whole blocks, stacked: contiguous copies of g elements. NULL where the blocks would be too
 * small or too many (then the gather). */
static rf_value *frame_blocks(rf_lowering *L, rf_value *v, const frame_args *fa, int64_t count) {
    int64_t g = gcd64(fa->n_fft, fa->hop), q = fa->n_fft / g, h = fa->hop / g;
    enum { MIN_BLOCK = 16, MAX_SLICES = 16 };
    if (g < MIN_BLOCK || q > MAX_SLICES || !rf_graph_runtime(L))
        return NULL;
    int64_t need = (count - 1) * fa->hop + fa->n_fft, nb = need / g;
    rf_value *x = v->dims[1].size > need ? rf_b_slice(L, v, 1, 0, need) : v;
    rf_value *blocks = rf_b_unflatten(L, x, 1, 2, (int64_t[]){nb, g});
    rf_value *parts[MAX_SLICES];
    for (int64_t j = 0; j < q; j++) {
        rf_dim d[3] = {v->dims[0], {count, NULL}, {g, NULL}};
        rf_arg args[5] = {{"self", rf_attr_ref(blocks)},
                          {"dim", rf_attr_int(1)},
                          {"start", rf_attr_int(j)},
                          {"end", rf_attr_int(j + (count - 1) * h + 1)},
                          {"step", rf_attr_int(h)}};
        rf_value *sl = blocks ? rf_b_op(L, "aten.slice.Tensor", 5, args, v->dtype, 3, d, "_frame_part") : NULL;
        parts[j] = sl ? rf_b_unsqueeze(L, sl, 2) : NULL;
        if (!parts[j]) return NULL;
    }
    rf_value *st = rf_b_cat(L, (size_t)q, parts, 2); /* [B, count, q, g] */
    return st ? rf_b_flatten(L, st, 2, 3) : NULL;
}

/* [B, T] -> [B, frames, n_fft]: a gather with a constant index where the length
 * is static (ExecuTorch and Core ML have no unfold), unfold otherwise (on dim 1,
 * not -1: OpenVINO's unfold conversion fails on a negative dim). NULL when the
 * signal is shorter than n_fft. */
static rf_value *frame_signal(rf_lowering *L, rf_value *v, const void *arg) {
    const frame_args *fa = arg;
    rf_dim d[3] = {v->dims[0], v->dims[1], {fa->n_fft, NULL}};
    /* an index larger than the FFT tables may be (a very long signal) frames with unfold too: building and
     * printing a constant of hundreds of MB took seconds (a fuzzer's slow unit) */
    int too_big = !d[1].sym && d[1].size >= fa->n_fft &&
                  (d[1].size - fa->n_fft) / fa->hop + 1 > RF_FFT_MAX_TABLE_BYTES / (int64_t)sizeof(int64_t) / fa->n_fft;
    if (d[1].sym || too_big) {
        char sym[200];
        if (d[1].sym) {
            snprintf(sym, sizeof sym, "(%s - %lld)//%lld + 1", d[1].sym, (long long)fa->n_fft, (long long)fa->hop);
            d[1].sym = sym;
        } else {
            d[1].size = (d[1].size - fa->n_fft) / fa->hop + 1;
        }
        rf_arg args[4] = {{"self", rf_attr_ref(v)},
                          {"dimension", rf_attr_int(1)},
                          {"size", rf_attr_int(fa->n_fft)},
                          {"step", rf_attr_int(fa->hop)}};
        return rf_b_op(L, "aten.unfold.default", 4, args, v->dtype, 3, d, "_frames");
    }
    if (d[1].size < fa->n_fft) return NULL;
    int64_t count = (d[1].size - fa->n_fft) / fa->hop + 1, len = count * fa->n_fft;
    rf_value *blocks = frame_blocks(L, v, fa, count);
    if (blocks || rf_status_of(L) != RF_OK) return blocks;
    double *idx = rf_malloc((size_t)len * sizeof *idx);
    if (!idx) {
        rf_fail(L, NULL, RF_ERR_NOMEM, "out of memory building stft frames");
        return NULL;
    }
    for (int64_t f = 0; f < count; f++)
        for (int64_t k = 0; k < fa->n_fft; k++) idx[f * fa->n_fft + k] = (double)(f * fa->hop + k);
    rf_value *index = rf_b_constant(L, "stft_frame_index", RF_DT_I64, 1, &len, idx);
    rf_free(idx);
    if (!index) return NULL;
    rf_dim g[2] = {v->dims[0], {len, NULL}};
    rf_arg sel[3] = {{"self", rf_attr_ref(v)}, {"dim", rf_attr_int(1)}, {"index", rf_attr_ref(index)}};
    rf_value *flat = rf_b_op(L, "aten.index_select.default", 3, sel, v->dtype, 2, g, "_gather");
    d[1].size = count;
    int64_t sizes[2] = {count, fa->n_fft};
    rf_arg un[3] = {{"self", rf_attr_ref(flat)}, {"dim", rf_attr_int(1)}, {"sizes", rf_attr_ints(rf_out_graph(L), 2, sizes)}};
    return rf_b_op(L, "aten.unflatten.int", 3, un, v->dtype, 3, d, "_frames");
}

static rf_status stft(rf_lowering *L, const rf_node *n, int has_center) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self) || (self->value->rank != 1 && self->value->rank != 2))
        return rf_fail(L, n, RF_ERR_INVALID, "%s expects a 1D or 2D tensor", n->op);
    frame_args fa;
    if (read_frame_args(L, n, &fa) != RF_OK) return RF_ERR_INVALID;
    if (rf_opt_bool(n, "align_to_window", 0))
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s with align_to_window=True", n->op);
    int center = has_center ? rf_opt_bool(n, "center", 1) : 0;
    const rf_attr *mode = rf_node_arg(n, "pad_mode");
    const char *pad_mode = (mode && mode->kind == RF_A_STR) ? mode->s : "reflect";
    int complex_in = rf_dtype_is_complex(self->value->dtype) ||
                     (fa.window && rf_dtype_is_complex(fa.window->value->dtype));
    int onesided = rf_opt_bool(n, "onesided", !complex_in);
    if (onesided && complex_in)
        return rf_fail(L, n, RF_ERR_INVALID, "%s: cannot have onesided output if window or input is complex", n->op);
    const rf_value *out = n->outs[0];
    int out_complex = rf_dtype_is_complex(out->dtype);
    rf_fft_ctx f = {.L = L, .dt = out_complex ? rf_work_dtype(L, n) : rf_component_of(L, out->dtype)};
    if (!rf_fft_dtype_ok(L, n, f.dt)) return RF_ERR_DTYPE;
    int batched = self->value->rank == 2;
    rf_cx x = rf_in_cx(L, n, "self", f.dt);
    if (!x.re.v) return RF_ERR_INVALID;
    if (!batched) x = on_parts(L, x, unsqueeze0, NULL); /* [B, T] */
    if (center) { /* pad n_fft/2 on both sides with pad_mode, as torch pads a [1, B, T] view */
        signal_pad sp = {fa.n_fft / 2, pad_mode};
        x = on_parts(L, on_parts(L, x, unsqueeze0, NULL), pad_signal, &sp);
        x = on_parts(L, x, squeeze0, NULL);
    }
    const rf_dim *t = &x.re.v->dims[1];
    if (!t->sym && t->size < fa.n_fft)
        return rf_fail(L, n, RF_ERR_INVALID, "%s expected 0 < n_fft <= %lld", n->op, (long long)t->size);
    rf_cx frames = on_parts(L, x, frame_signal, &fa); /* [B, frames, n_fft] */
    RF_CHECK(L);
    if (!frames.re.v) return rf_fail(L, n, RF_ERR_INVALID, "%s expected 0 < n_fft <= signal length", n->op);
    if (fa.window) {
        frames = mul_parts(L, frames, centred_window(L, rf_in_cx(L, n, "window", f.dt), fa.win, fa.n_fft));
    } else {
        rf_value *rect = rect_window(&f, fa.win, fa.n_fft);
        if (rect) frames = mul_parts(L, frames, rf_cx_values(rect, NULL));
    }
    int64_t last = 2;
    rf_cx y;
    /* graph runtimes: the spectrum leaves the stages as [B, freq, frames], two transposes where the last-axis
     * form and transpose_pair cost four */
    if (!(onesided && rf_fft_frames_spectrum(&f, frames.re.v, fa.n_fft, &y))) {
        y = onesided ? rf_fft_r2c_dims(&f, frames.re.v, &last, 1, 1) : rf_fft_c2c_dims(&f, frames, &last, 1, -1);
        y = rf_fft_transpose_pair(L, y, 1, 2); /* [B, freq, frames] */
    }
    if (rf_opt_bool(n, "normalized", 0)) y = rf_cx_scale(L, y, rf_num(1.0 / sqrt((double)fa.n_fft)));
    if (!batched) y = on_parts(L, y, squeeze0, NULL);
    if (f.oom || !y.re.v) return rf_fft_done(&f, n, 0);
    if (out_complex) {
        rf_set_cx(L, out, y);
    } else { /* return_complex=False: the view_as_real layout */
        rf_value *im = rf_cx_im_or_null(y);
        rf_set_real(L, out, rf_b_stack2(L, y.re.v, im ? im : rf_b_zeros_like(L, y.re.v), -1));
    }
    return RF_OK;
}

static rf_status stft_plain(rf_lowering *L, const rf_node *n) { return stft(L, n, 0); }
static rf_status stft_center(rf_lowering *L, const rf_node *n) { return stft(L, n, 1); }

/* Overlap-add of frames [B, frames, n_fft] into [B, len] (rf_b_overlap_add: pads, views and a sum). */
typedef struct overlap {
    const frame_args *fa;
    int64_t len, nframes;
} overlap;

static rf_value *overlap_add(rf_lowering *L, rf_value *g, const void *arg) {
    const overlap *o = arg;
    return rf_b_overlap_add(L, g, 1, o->fa->hop, o->len);
}

/* The window envelope: w^2 [n_fft] expanded over the frames, overlap-added. */
static rf_value *envelope(rf_lowering *L, rf_value *w2, const void *arg) {
    const overlap *o = arg;
    int64_t shape[3] = {1, o->nframes, o->fa->n_fft};
    rf_arg args[2] = {{"self", rf_attr_ref(w2)}, {"size", rf_attr_ints(rf_out_graph(L), 3, shape)}};
    rf_dim d[3] = {{1, NULL}, {o->nframes, NULL}, {o->fa->n_fft, NULL}};
    return overlap_add(L, rf_b_op(L, "aten.expand.default", 2, args, w2->dtype, 3, d, "_env"), o);
}

/* The envelope of the rectangular window, computed here: NULL after a failure
 * (out of memory, or a zero the division would hit, as torch raises). */
static rf_value *rect_envelope(rf_fft_ctx *f, const rf_node *n, const frame_args *fa, int64_t nframes,
                               int64_t expected, int64_t start, int64_t stop) {
    double *e = rf_calloc((size_t)expected, sizeof(double));
    if (!e) {
        f->oom = 1;
        return NULL;
    }
    int64_t left = (fa->n_fft - fa->win) / 2;
    for (int64_t fr = 0; fr < nframes; fr++)
        for (int64_t i = left; i < left + fa->win; i++) e[fr * fa->hop + i] += 1.0;
    for (int64_t i = start; i < stop; i++)
        if (e[i] < 1e-11) { /* torch's "window overlap add min" error: output i would divide by zero */
            rf_free(e);
            rf_fail(f->L, n, RF_ERR_INVALID,
                    "%s: the window overlap-add is zero at output sample %lld (win_length %lld < n_fft "
                    "%lld without center leaves uncovered samples); torch raises here too",
                    n->op, (long long)(i - start), (long long)fa->win, (long long)fa->n_fft);
            return NULL;
        }
    int64_t shape[2] = {1, expected};
    char hint[64];
    snprintf(hint, sizeof hint, "istft_envelope%lld", (long long)expected);
    rf_value *c = rf_b_constant(f->L, hint, f->dt, 2, shape, e);
    rf_free(e);
    return c;
}

static rf_status istft(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self) || (self->value->rank != 2 && self->value->rank != 3))
        return rf_fail(L, n, RF_ERR_INVALID, "%s expects a 2D or 3D tensor", n->op);
    frame_args fa;
    if (read_frame_args(L, n, &fa) != RF_OK) return RF_ERR_INVALID;
    if (fa.hop > fa.win) return rf_fail(L, n, RF_ERR_INVALID, "%s expected 0 < hop_length <= win_length", n->op);
    const rf_value *sv = self->value;
    int batched = sv->rank == 3;
    const rf_dim *freq_d = &sv->dims[sv->rank - 2], *frames_d = &sv->dims[sv->rank - 1];
    if (freq_d->sym || frames_d->sym)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED,
                       "%s: the frequency and frame counts must be static (realify lowers FFTs whose transformed "
                       "dims are static)",
                       n->op);
    int64_t freq = freq_d->size, nframes = frames_d->size, length = 0;
    int has_length = rf_opt_int(n, "length", &length);
    if (has_length < 0) return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s with a symbolic length", n->op);
    int onesided = rf_opt_bool(n, "onesided", freq != fa.n_fft);
    if (onesided ? freq != fa.n_fft / 2 + 1 : freq != fa.n_fft)
        return rf_fail(L, n, RF_ERR_INVALID, "%s: %lld frequencies do not match n_fft=%lld", n->op, (long long)freq,
                       (long long)fa.n_fft);
    int return_complex = rf_opt_bool(n, "return_complex", 0);
    if (return_complex && onesided)
        return rf_fail(L, n, RF_ERR_INVALID, "%s: cannot have onesided output if window or input is complex", n->op);
    rf_fft_ctx f = {.L = L, .dt = rf_component_of(L, sv->dtype)};
    if (!rf_fft_dtype_ok(L, n, f.dt)) return RF_ERR_DTYPE;
    rf_cx x = rf_in_cx(L, n, "self", f.dt);
    if (!x.re.v) return RF_ERR_INVALID;
    if (!batched) x = on_parts(L, x, unsqueeze0, NULL);
    x = rf_fft_transpose_pair(L, x, 1, 2); /* [B, frames, freq] */
    int64_t last = 2;
    double sc = rf_opt_bool(n, "normalized", 0) ? 1.0 / sqrt((double)fa.n_fft) : 1.0 / (double)fa.n_fft;
    rf_cx frames;
    if (return_complex) {
        frames = rf_fft_c2c_dims(&f, x, &last, 1, 1);
    } else {
        if (!onesided) x = rf_fft_resize_pair(L, x, 2, fa.n_fft / 2 + 1);
        frames = rf_cx_values(rf_fft_c2r_dims(&f, x, &last, 1, fa.n_fft), NULL);
    }
    frames = rf_cx_scale(L, frames, rf_num(sc));
    if (!frames.re.v) return rf_fft_done(&f, n, 0);
    int64_t expected = fa.n_fft + fa.hop * (nframes - 1);
    overlap o = {&fa, expected, nframes};
    int64_t start = rf_opt_bool(n, "center", 1) ? fa.n_fft / 2 : 0;
    int64_t end = has_length ? start + length : (start ? expected - fa.n_fft / 2 : expected);
    int64_t stop = end < expected ? end : expected;
    if (stop < start) stop = start;
    rf_cx env;
    if (fa.window) { /* overlap-add of window^2 */
        rf_cx w = centred_window(L, rf_in_cx(L, n, "window", f.dt), fa.win, fa.n_fft);
        frames = mul_parts(L, frames, w);
        overlap ow = {&fa, expected, nframes};
        env = on_parts(L, mul_parts(L, w, w), envelope, &ow);
    } else { /* rectangular window: the envelope is a constant, computed here */
        rf_value *rect = rect_window(&f, fa.win, fa.n_fft);
        if (rect) frames = mul_parts(L, frames, rf_cx_values(rect, NULL));
        rf_value *e = rect_envelope(&f, n, &fa, nframes, expected, start, stop);
        if (!e) return f.oom ? rf_fft_done(&f, n, 0) : RF_ERR_INVALID;
        env = rf_cx_values(e, NULL);
    }
    rf_cx y = on_parts(L, frames, overlap_add, &o);
    /* [start, stop) of the signal and of the envelope, the parts in the order the graphs had them */
    rf_value *yre = rf_b_slice(L, y.re.v, 1, start, stop);
    rf_value *ere = rf_b_slice(L, env.re.v, 1, start, stop);
    rf_value *yim = rf_b_slice(L, rf_cx_im_or_null(y), 1, start, stop);
    rf_value *eim = rf_b_slice(L, rf_cx_im_or_null(env), 1, start, stop);
    if (eim) { /* a complex window's envelope: complex division */
        rf_cx q = rf_cx_div(L, rf_cx_values(yre, yim), rf_cx_values(ere, eim));
        y = rf_cx_values(q.re.v, rf_cx_im_or_null(q));
    } else { /* a real envelope divides each part, as torch's istft does */
        y = rf_cx_values(rf_b_div(L, rf_val(yre), rf_val(ere)).v, yim ? rf_b_div(L, rf_val(yim), rf_val(ere)).v : NULL);
    }
    if (end > stop) y = rf_fft_resize_pair(L, y, 1, end - start);
    if (!batched) y = on_parts(L, y, squeeze0, NULL);
    if (f.oom || !y.re.v) return rf_fft_done(&f, n, 0);
    if (return_complex) {
        rf_set_cx(L, n->outs[0], y);
    } else {
        if (!y.im_zero)
            return rf_fail(L, n, RF_ERR_INVALID, "%s: complex windows are incompatible with return_complex=False",
                           n->op);
        rf_set_real(L, n->outs[0], y.re.v);
    }
    return RF_OK;
}

const rf_rule_entry rf_rules_fft_stft[] = {
    {"aten.stft.default", stft_plain, RF_RULE_REAL_TOO},
    {"aten.stft.center", stft_center, RF_RULE_REAL_TOO},
    {"aten.istft.default", istft, 0},
    {NULL, NULL, 0},
};
