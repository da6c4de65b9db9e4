/* A unit phasor written as the exponential of an imaginary product (torch.exp(1j * phase), exp(2j * pi * f * t)),
 *
 *   exp(mul(x: real tensor, c))     c a complex scalar with zero real part and a finite nonzero imaginary part
 *
 * is (cos t, sin t) with t the product's imaginary part as the mul rule computed it: its real part is 0 * x, so
 * exp of it is 1 wherever x is finite, and where x is infinite or nan, t is too and cos and sin give the nan
 * parts that exp gives. Two ops, for every target, where the exp rule's general form (overflow-safe scaling and
 * the special cases of exp at infinities) takes dozens: 40 of the 70 ONNX nodes of the zoo's phase math. The
 * mul is lowered by its rule as before; only the exp is taken. */
#include <math.h>
#include <string.h>

#include "lower/realops.h"
#include "patterns/patterns.h"

/* The complex scalar argument of mul n with zero real part, finite nonzero imaginary part, other than `tensor`. */
static int imaginary_scalar(const rf_node *n, const char *tensor) {
    const char *scalar = strcmp(tensor, "self") == 0 ? "other" : "self";
    const rf_attr *c = rf_node_arg(n, scalar);
    return c && c->kind == RF_A_COMPLEX && c->f == 0.0 && c->f_im != 0.0 && isfinite(c->f_im);
}

/* x is a real tensor times an imaginary scalar. */
static int imaginary_product(const rf_value *x) {
    const rf_node *m = x->producer;
    if (!m || m->nouts != 1 || (strcmp(m->op, "aten.mul.Tensor") && strcmp(m->op, "aten.mul.Scalar"))) return 0;
    static const char *const names[] = {"self", "other"};
    for (int i = 0; i < 2; i++) {
        const rf_attr *t = rf_node_arg(m, names[i]);
        if (rf_attr_is_tensor(t) && !rf_dtype_is_complex(t->value->dtype) && imaginary_scalar(m, names[i])) return 1;
    }
    return 0;
}

int rf_pattern_exp_imag(rf_lowering *L, const rf_node *n) {
    if (strcmp(n->op, "aten.exp.default") || n->nouts != 1 || !rf_dtype_is_complex(n->outs[0]->dtype)) return 0;
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self) || !imaginary_product(self->value)) return 0;
    rf_dtype w = rf_work_dtype(L, n);
    if (!rf_dtype_is_floating(w)) return 0;
    rf_cx z = rf_cx_of(L, self->value, w);
    rf_value *t = z.im.v ? rf_b_materialize(L, z.im, z.im.v) : NULL;
    if (rf_status_of(L) != RF_OK || !t || t->dtype != w) return 0;
    rf_value *re = rf_b_unary(L, "aten.cos.default", t), *im = rf_b_unary(L, "aten.sin.default", t);
    if (rf_status_of(L) != RF_OK || !re || !im) return 0;
    rf_set_cx(L, n->outs[0], rf_cx_values(re, im));
    return 1;
}
