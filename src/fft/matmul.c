/* The `matmul` FFT strategy (DESIGN.md §3): _fft_c2c, _fft_r2c and _fft_c2r
 * become real matmuls against constant DFT matrices, twiddle multiplies and
 * reshapes, following the plans of plan.c, so any compiler runs them.
 *
 * A transform works in split layout (split.h), [..., 2, n]: a DFT stage is
 * then a single matmul against a block matrix, a twiddle multiply is one fused
 * elementwise expression, and reordering is a transpose: few, large kernels.
 * Cooley–Tukey stages all run from the left and write the spectrum in order
 * (last_axis.c). A real input skips the imaginary half ([C | S], [C; S]). A
 * direct-size transform over an axis that is not the last runs from the left
 * where it is (left.c); the others run along the last axis, swapped to the end
 * and back. Sizes along transformed axes must be static; every other axis may
 * be symbolic (only unflatten/flatten of the last axes, matmuls against
 * constants and transposes are used; a left stage also needs the axes after
 * its own static). */
#include "fft/strategy.h"

#include "fft/last_axis.h"
#include "fft/left.h"

/* The split-layout dim of pair dim d (pair rank r): the split axis sits before the last. */
static int blk_dim(const rf_fft_blk *b, int64_t d, int pair_rank) {
    return (!b->real && d == pair_rank - 1) ? pair_rank : (int)d;
}

/* The rolls folded into the stage along pair dim d (context.h). */
static void stage_rolls(rf_fft_ctx *f, int64_t d) {
    f->roll_in = f->rolls_in ? f->rolls_in[d] : 0;
    f->roll_out = f->rolls_out ? f->rolls_out[d] : 0;
}

/* A 1-D transform along pair dim d of b (pair rank r), through the last axis. */
static rf_fft_blk along(rf_fft_ctx *f, rf_fft_blk b, int64_t d, int r, int sign) {
    if (!b.v) return b;
    stage_rolls(f, d);
    int e = b.v->rank - 1, bd = blk_dim(&b, d, r);
    if (!b.real && rf_fft_left_ok(b.v, bd, e - 1)) return rf_fft_bk(rf_fft_left_direct(f, b.v, bd, 0, sign, 0), 0);
    rf_value *v = rf_b_transpose(f->L, b.v, bd, e);
    if (!v) return rf_fft_bk(NULL, 0);
    rf_fft_blk y = rf_fft_dft_last(f, rf_fft_bk(v, b.real), v->dims[e].size, sign);
    if (!y.v) return y;
    if (y.real) return rf_fft_bk(rf_b_transpose(f->L, y.v, bd, e), 1); /* a length-1 transform of a real tensor */
    /* the result is complex: the pair's last dim now sits at bd (d < r - 1) or is the last axis */
    return rf_fft_bk(rf_b_transpose(f->L, y.v, (int)d == r - 1 ? y.v->rank - 1 : (int)d, y.v->rank - 1), 0);
}

static rf_fft_blk c2c_blk(rf_fft_ctx *f, rf_fft_blk b, const int64_t *dims, size_t nd, int r, int sign) {
    for (size_t i = 0; i < nd; i++) b = along(f, b, dims[i], r, sign);
    return b;
}

static rf_cx pairs_of_interleaved(rf_lowering *L, rf_value *y) {
    if (!y) return rf_cx_values(NULL, NULL);
    rf_value *im = rf_b_select(L, y, -1, 1); /* im first: the node order the lowered graphs have had */
    return rf_cx_values(rf_b_select(L, y, -1, 0), im);
}

/* A final left stage's output as pairs. For Inductor it writes them interleaved, so a graph output needs no
 * restacking pass (the pairs' transposes fuse into its add). A graph runtime runs each transpose as a pass of its
 * own, so there it writes them interleaved only for a reader of the packed pairs (interleave_out); otherwise they
 * stay split and a reader of one part (FNet's .real) needs no transpose. */
static rf_cx pairs_of_left(rf_fft_ctx *f, rf_value *x, int d, int64_t packed_n, int sign) {
    int interleave = !rf_graph_runtime(f->L) || f->interleave_out;
    rf_value *v = rf_fft_left_direct(f, x, d, packed_n, sign, interleave);
    return interleave ? pairs_of_interleaved(f->L, v) : rf_fft_pair_of_blk(f->L, rf_fft_bk(v, 0));
}

/* c2c_blk as pairs, the last stage as pairs_of_left where it is a left one. */
static rf_cx c2c_pairs(rf_fft_ctx *f, rf_fft_blk b, const int64_t *dims, size_t nd, int r, int sign) {
    if (!nd || !b.v) return rf_fft_pair_of_blk(f->L, b);
    b = c2c_blk(f, b, dims, nd - 1, r, sign);
    int bd = b.v ? blk_dim(&b, dims[nd - 1], r) : 0;
    stage_rolls(f, dims[nd - 1]);
    if (b.v && !b.real && rf_fft_left_ok(b.v, bd, b.v->rank - 2))
        return pairs_of_left(f, b.v, bd, 0, sign);
    if (f->interleave_out && b.v && !b.real && bd == b.v->rank - 1 && rf_fft_is_direct(b.v->dims[bd].size)) {
        /* the graph output's pairs written by the last matmul: its columns in (k, part) order */
        int64_t n = b.v->dims[bd].size;
        rf_value *w = rf_fft_dft_matrix_pairs(f, n, sign, f->roll_in, f->roll_out, rf_fft_take_scale(f));
        rf_value *y = rf_b_matmul(f->L, rf_b_flatten(f->L, b.v, -2, -1), w);
        return pairs_of_interleaved(f->L, rf_b_unflatten(f->L, y, -1, 2, (int64_t[]){n, 2}));
    }
    return rf_fft_pair_of_blk(f->L, along(f, b, dims[nd - 1], r, sign));
}

rf_cx rf_fft_matmul_c2c(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int sign) {
    rf_cx y = c2c_pairs(f, rf_fft_blk_of_pair(f->L, x), dims, nd, x.re.v->rank, sign);
    f->roll_in = f->roll_out = 0;
    f->interleave_out = 0;
    return y;
}

rf_cx rf_fft_matmul_r2c(rf_fft_ctx *f, rf_value *x, const int64_t *dims, size_t nd, int onesided) {
    int r = x->rank, e = r - 1;
    int64_t d = dims[nd - 1];
    rf_fft_blk y;
    if (onesided && d == e && nd >= 2 && rf_fft_is_direct(x->dims[e].size) && rf_fft_left_ok(x, (int)dims[nd - 2], e)) {
        /* the packed output of the last dim feeds the next dim's left stage directly */
        rf_value *p = rf_fft_packed_basis(f, x, x->dims[e].size, -1);
        if (nd == 2) return pairs_of_left(f, p, (int)dims[nd - 2], x->dims[e].size, -1);
        rf_value *v = rf_fft_left_direct(f, p, (int)dims[nd - 2], x->dims[e].size, -1, 0);
        return c2c_pairs(f, rf_fft_bk(v, 0), dims, nd - 2, r, -1);
    }
    if (onesided) {
        rf_value *t = rf_b_transpose(f->L, x, (int)d, e);
        if (!t) return rf_cx_values(NULL, NULL);
        y = rf_fft_rdft_last(f, t, t->dims[e].size);
        if (y.v && !y.real)
            y = rf_fft_bk(rf_b_transpose(f->L, y.v, (int)d == e ? y.v->rank - 1 : (int)d, y.v->rank - 1), 0);
        else if (y.v)
            y = rf_fft_bk(rf_b_transpose(f->L, y.v, (int)d, e), 1);
    } else {
        y = along(f, rf_fft_bk(x, 1), d, r, -1);
    }
    return c2c_pairs(f, y, dims, nd - 1, r, -1);
}

rf_value *rf_fft_matmul_c2r(rf_fft_ctx *f, rf_cx x, const int64_t *dims, size_t nd, int64_t last_dim_size) {
    int r = x.re.v->rank;
    rf_fft_blk b = c2c_blk(f, rf_fft_blk_of_pair(f->L, x), dims, nd - 1, r, 1);
    if (!b.v) return NULL;
    int64_t d = dims[nd - 1];
    int bd = blk_dim(&b, d, r);
    b.v = rf_b_transpose(f->L, b.v, bd, b.v->rank - 1);
    rf_value *out = rf_fft_irdft_last(f, b, last_dim_size); /* [..., n], rank r */
    return rf_b_transpose(f->L, out, (int)d, r - 1);
}
