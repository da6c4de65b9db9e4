/* The squared magnitude of a complex value written through abs (torchaudio's power spectrogram, |X| ** 2),
 *
 *   pow(abs(z), 2)   or   square(abs(z))      abs(z) read by that node alone
 *
 * is re*re + im*im, with hypot's one special case kept: +inf where either part is infinite, even when the other
 * is nan (hypot(inf, nan) is inf, inf*inf + nan*nan is nan). The abs rule's scaled hypot (maximum, minimum, a
 * division, a square root, the zero and inf cases) and the square of its result are gone: a few ulp apart from
 * torch's rounding, the same values at zeros, infinities, nans, overflow and underflow. Every target. */
#include <math.h>
#include <string.h>

#include "lower/realops.h"
#include "patterns/patterns.h"

/* The node squaring v when it is v's only reader; NULL otherwise. */
static const rf_node *squaring_reader(const rf_lowering *L, const rf_value *v) {
    const rf_node *s = rf_sole_reader(rf_in_graph(L), v, "self");
    if (!s || s->nouts != 1 || s->outs[0]->dtype != v->dtype) return NULL;
    if (strcmp(s->op, "aten.square.default") == 0) return s;
    if (strcmp(s->op, "aten.pow.Tensor_Scalar")) return NULL;
    const rf_attr *e = rf_node_arg(s, "exponent");
    if (!e) return NULL;
    if (e->kind == RF_A_INT && e->i == 2) return s;
    if (e->kind == RF_A_FLOAT && e->f == 2.0) return s;
    return NULL;
}

int rf_pattern_abs_square(rf_lowering *L, const rf_node *n) {
    if (strcmp(n->op, "aten.abs.default") || n->nouts != 1 || rf_dtype_is_complex(n->outs[0]->dtype)) return 0;
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self) || !rf_dtype_is_complex(self->value->dtype)) return 0;
    const rf_node *sq = squaring_reader(L, n->outs[0]);
    if (!sq) return 0;
    rf_dtype w = rf_component_of(L, self->value->dtype);
    if (!rf_dtype_is_floating(w)) return 0;
    rf_cx z = rf_cx_of(L, self->value, w);
    if (rf_status_of(L) != RF_OK || !z.re.v) return 0;
    rf_rv re2 = rf_b_mul(L, z.re, z.re);
    rf_rv power = re2;
    if (!z.im_zero) {
        rf_rv sum = rf_b_add(L, re2, rf_b_mul(L, z.im, z.im));
        rf_value *re_inf = rf_b_isinf(L, z.re); /* one op per statement: a fixed emitted order */
        rf_value *inf = rf_b_or(L, re_inf, rf_b_isinf(L, z.im));
        power = rf_b_where(L, inf, rf_num(INFINITY), sum);
    }
    rf_value *out = rf_b_materialize(L, power, z.re.v);
    if (rf_status_of(L) != RF_OK || !out || out->dtype != rf_component_of(L, sq->outs[0]->dtype)) return 0;
    rf_set_real(L, sq->outs[0], out);
    rf_fuse_node(L, sq);
    rf_set_unread(L, n->outs[0]);
    return 1;
}
