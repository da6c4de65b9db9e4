/* The rank each op's single result must have, from its operands' ranks: the verifier compares it with the
 * declared one, so a rule never reads dims a value does not have (a slice declared rank 0 on a rank-2 input once
 * sent NULL dims to memcpy). Ops not listed, and operands of unknown rank, are not checked. */
#include <string.h>

#include "ir/verify.h"

typedef enum { RK_SAME, RK_MINUS1, RK_PLUS1, RK_BROADCAST, RK_FIXED } rank_rule;

typedef struct {
    const char *op;
    rank_rule rule;
    int fixed;
} rank_row;

static const rank_row rows[] = {
    {"aten._conj.default", RK_SAME, 0}, {"aten._conj_physical.default", RK_SAME, 0},
    {"aten._fft_c2c.default", RK_SAME, 0}, {"aten._fft_c2r.default", RK_SAME, 0},
    {"aten._fft_r2c.default", RK_SAME, 0}, {"aten._to_copy.default", RK_SAME, 0},
    {"aten.abs.default", RK_SAME, 0}, {"aten.acos.default", RK_SAME, 0}, {"aten.acosh.default", RK_SAME, 0},
    {"aten.add.Scalar", RK_SAME, 0}, {"aten.add.Tensor", RK_BROADCAST, 0},
    {"aten.addbmm.default", RK_FIXED, 2}, {"aten.addcdiv.default", RK_BROADCAST, 0},
    {"aten.addcmul.default", RK_BROADCAST, 0}, {"aten.addmm.default", RK_FIXED, 2},
    {"aten.addmv.default", RK_FIXED, 1}, {"aten.addr.default", RK_FIXED, 2}, {"aten.alias.default", RK_SAME, 0},
    {"aten.alias_copy.default", RK_SAME, 0}, {"aten.angle.default", RK_SAME, 0}, {"aten.asin.default", RK_SAME, 0},
    {"aten.asinh.default", RK_SAME, 0}, {"aten.atan.default", RK_SAME, 0}, {"aten.atan2.default", RK_BROADCAST, 0},
    {"aten.atanh.default", RK_SAME, 0}, {"aten.baddbmm.default", RK_FIXED, 3}, {"aten.bmm.default", RK_FIXED, 3},
    {"aten.clone.default", RK_SAME, 0}, {"aten.complex.default", RK_BROADCAST, 0},
    {"aten.conj_physical.default", RK_SAME, 0}, {"aten.constant_pad_nd.default", RK_SAME, 0},
    {"aten.copysign.Tensor", RK_BROADCAST, 0}, {"aten.cos.default", RK_SAME, 0}, {"aten.cosh.default", RK_SAME, 0},
    {"aten.cumprod.default", RK_SAME, 0}, {"aten.cumsum.default", RK_SAME, 0}, {"aten.detach.default", RK_SAME, 0},
    {"aten.div.Scalar", RK_SAME, 0}, {"aten.div.Tensor", RK_BROADCAST, 0}, {"aten.div.Tensor_mode", RK_BROADCAST, 0},
    {"aten.dot.default", RK_FIXED, 0}, {"aten.eq.Scalar", RK_SAME, 0}, {"aten.eq.Tensor", RK_BROADCAST, 0},
    {"aten.exp.default", RK_SAME, 0}, {"aten.exp2.default", RK_SAME, 0}, {"aten.expm1.default", RK_SAME, 0},
    {"aten.fft_fft.default", RK_SAME, 0}, {"aten.fft_fft2.default", RK_SAME, 0},
    {"aten.fft_fftn.default", RK_SAME, 0}, {"aten.fft_fftshift.default", RK_SAME, 0},
    {"aten.fft_hfft.default", RK_SAME, 0}, {"aten.fft_ifft.default", RK_SAME, 0},
    {"aten.fft_ifft2.default", RK_SAME, 0}, {"aten.fft_ifftn.default", RK_SAME, 0},
    {"aten.fft_ifftshift.default", RK_SAME, 0}, {"aten.fft_ihfft.default", RK_SAME, 0},
    {"aten.fft_irfft.default", RK_SAME, 0}, {"aten.fft_rfft.default", RK_SAME, 0},
    {"aten.fill.Scalar", RK_SAME, 0}, {"aten.flip.default", RK_SAME, 0}, {"aten.full_like.default", RK_SAME, 0},
    {"aten.imag.default", RK_SAME, 0}, {"aten.isfinite.default", RK_SAME, 0}, {"aten.isinf.default", RK_SAME, 0},
    {"aten.isnan.default", RK_SAME, 0}, {"aten.lerp.Scalar", RK_BROADCAST, 0}, {"aten.lerp.Tensor", RK_BROADCAST, 0},
    {"aten.lift_fresh_copy.default", RK_SAME, 0}, {"aten.log.default", RK_SAME, 0},
    {"aten.log10.default", RK_SAME, 0}, {"aten.log1p.default", RK_SAME, 0}, {"aten.log2.default", RK_SAME, 0},
    {"aten.logical_and.default", RK_BROADCAST, 0}, {"aten.logical_not.default", RK_SAME, 0},
    {"aten.logical_or.default", RK_BROADCAST, 0}, {"aten.logical_xor.default", RK_BROADCAST, 0},
    {"aten.masked_fill.Scalar", RK_BROADCAST, 0}, {"aten.maximum.default", RK_BROADCAST, 0},
    {"aten.minimum.default", RK_BROADCAST, 0}, {"aten.mm.default", RK_FIXED, 2}, {"aten.mul.Scalar", RK_SAME, 0},
    {"aten.mul.Tensor", RK_BROADCAST, 0}, {"aten.mv.default", RK_FIXED, 1}, {"aten.nan_to_num.default", RK_SAME, 0},
    {"aten.narrow.default", RK_SAME, 0}, {"aten.narrow_copy.default", RK_SAME, 0}, {"aten.ne.Scalar", RK_SAME, 0},
    {"aten.ne.Tensor", RK_BROADCAST, 0}, {"aten.neg.default", RK_SAME, 0}, {"aten.polar.default", RK_BROADCAST, 0},
    {"aten.pow.Tensor_Scalar", RK_SAME, 0}, {"aten.pow.Tensor_Tensor", RK_BROADCAST, 0},
    {"aten.real.default", RK_SAME, 0}, {"aten.reciprocal.default", RK_SAME, 0},
    {"aten.resolve_conj.default", RK_SAME, 0}, {"aten.resolve_neg.default", RK_SAME, 0},
    {"aten.roll.default", RK_SAME, 0}, {"aten.rsqrt.default", RK_SAME, 0}, {"aten.rsub.Scalar", RK_SAME, 0},
    {"aten.select.int", RK_MINUS1, 0}, {"aten.select_copy.int", RK_MINUS1, 0}, {"aten.sgn.default", RK_SAME, 0},
    {"aten.sigmoid.default", RK_SAME, 0}, {"aten.silu.default", RK_SAME, 0}, {"aten.sin.default", RK_SAME, 0},
    {"aten.sinc.default", RK_SAME, 0}, {"aten.sinh.default", RK_SAME, 0}, {"aten.slice.Tensor", RK_SAME, 0},
    {"aten.slice_copy.Tensor", RK_SAME, 0}, {"aten.slice_scatter.default", RK_SAME, 0},
    {"aten.sqrt.default", RK_SAME, 0}, {"aten.square.default", RK_SAME, 0}, {"aten.sub.Scalar", RK_SAME, 0},
    {"aten.sub.Tensor", RK_BROADCAST, 0}, {"aten.tan.default", RK_SAME, 0}, {"aten.tanh.default", RK_SAME, 0},
    {"aten.tril.default", RK_SAME, 0}, {"aten.triu.default", RK_SAME, 0}, {"aten.unsqueeze.default", RK_PLUS1, 0},
    {"aten.unsqueeze_copy.default", RK_PLUS1, 0}, {"aten.vdot.default", RK_FIXED, 0},
    {"aten.view_as_complex.default", RK_MINUS1, 0}, {"aten.view_as_real.default", RK_PLUS1, 0},
    {"aten.where.self", RK_BROADCAST, 0}, {"aten.zeros_like.default", RK_SAME, 0},
    {"prims.convert_element_type.default", RK_SAME, 0},
};

static const rf_value *tensor_arg(const rf_node *n, size_t i) {
    const rf_attr *a = &n->args[i].attr;
    return a->kind == RF_A_VALUE && a->value && rf_dtype_is_tensor(a->value->dtype) ? a->value : NULL;
}

int rf_expected_rank(const rf_node *n) {
    const rank_row *row = NULL;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0] && !row; i++)
        if (strcmp(rows[i].op, n->op) == 0) row = &rows[i];
    if (!row) return -1;
    if (row->rule == RK_FIXED) return row->fixed;
    int r = -1;
    for (size_t i = 0; i < n->nargs; i++) {
        const rf_value *v = tensor_arg(n, i);
        int is_self = n->args[i].name && strcmp(n->args[i].name, "self") == 0;
        if (!v || (row->rule != RK_BROADCAST && !is_self)) continue;
        if (v->rank < 0) return -1;
        if (v->rank > r) r = v->rank;
    }
    if (r < 0) return -1;
    if (row->rule == RK_MINUS1) return r > 0 ? r - 1 : 0; /* select of a 0-d tensor is refused by its dim check */
    if (row->rule == RK_PLUS1) return r + 1;
    return r;
}
