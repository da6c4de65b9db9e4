/* Torch's complex arithmetic and elementary functions on (re, im) pairs.
 *
 * PyTorch computes complex functions on CPU with c10::complex, whose division
 * is Smith's algorithm, and with the C library's C99 complex functions (cexp,
 * clog, csqrt, ctanh, cpow, ...). The functions here build real ops that give
 * the same results, including where those give NaN or Inf (Annex G special
 * values), so a lowered graph agrees with eager PyTorch on edge values too. */
#ifndef REALIFY_CXMATH_H
#define REALIFY_CXMATH_H

#include "lower/lower.h"

rf_cx rf_cx_make(rf_rv re, rf_rv im);
rf_cx rf_cx_real(rf_rv re);
/* The imaginary part, or the scalar 0 when it is known to be zero. */
rf_rv rf_cx_im(rf_cx z);
/* The imaginary part as a tensor (zeros like the real part when absent). */
rf_value *rf_cx_im_value(rf_lowering *L, rf_cx z);

/* Arithmetic. Division follows the option `division` (rf_lower_options):
 * c10's Smith algorithm by default, as eager PyTorch divides on the CPU. */
rf_cx rf_cx_add(rf_lowering *L, rf_cx a, rf_cx b);
rf_cx rf_cx_sub(rf_lowering *L, rf_cx a, rf_cx b);
rf_cx rf_cx_mul(rf_lowering *L, rf_cx a, rf_cx b);
rf_cx rf_cx_div(rf_lowering *L, rf_cx a, rf_cx b);
rf_cx rf_cx_reciprocal(rf_lowering *L, rf_cx z);
rf_cx rf_cx_neg(rf_lowering *L, rf_cx a);
rf_cx rf_cx_conj(rf_lowering *L, rf_cx a);
rf_cx rf_cx_scale(rf_lowering *L, rf_cx a, rf_rv s);
/* Eager's products for user-level ops: the full four-product formula with a known zero part as +0
 * (rf_cx_mul scales by a real factor instead, which internal uses want), and a + alpha b with alpha b a
 * complex product even for alpha = 1, as eager's add and sub compute it. */
rf_cx rf_cx_mul_eager(rf_lowering *L, rf_cx a, rf_cx b);
rf_cx rf_cx_add_eager(rf_lowering *L, rf_cx a, rf_cx b, rf_cx alpha);
/* |a|, computed without overflow. */
rf_rv rf_cx_abs(rf_lowering *L, rf_cx a);
/* A real bilinear product P(x, y) of two real tensors (multiply, mm, dot, a node's own op); `parts` ("_rr", "_ri",
 * "_ir", "_ii") says which parts it multiplies, for the result's name. */
typedef rf_value *(*rf_real_product_fn)(rf_lowering *L, const void *ctx, rf_value *x, rf_value *y, const char *parts);
/* P(a, b) for complex a, b with tensor parts (a zero part absent): the four-product formula
 * (ar br - ai bi) + (ar bi + ai br) i over P, without the products of a zero part; the four products are made
 * before they are combined. The one spelling of the complex product over a real bilinear op (rf_cx_mul is its
 * elementwise form, which also takes scalars). */
rf_cx rf_cx_product(rf_lowering *L, rf_cx a, rf_cx b, rf_real_product_fn p, const void *ctx);
/* Apply the node's own real bilinear op P: P(a, b) for complex a, b (an error when an operand is no tensor). */
rf_cx rf_cx_bilinear(rf_lowering *L, const rf_node *n, rf_cx a, rf_cx b, const char *a_name,
                     const char *b_name);

/* C99 Annex G multiplication (infinities recovered from NaN), as C code multiplies. */
rf_cx rf_cx_mul_c99(rf_lowering *L, rf_cx a, rf_cx b);

/* Elementary functions (C99 Annex G semantics). `dt` is the component dtype. */
rf_cx rf_cx_exp(rf_lowering *L, rf_cx z);
/* log z, accurate for |z| near 1 and for subnormal or huge parts. */
rf_cx rf_cx_log(rf_lowering *L, rf_cx z);
/* log z with log|z| from the rounded |z|: exactly 0 where |z| rounds to 1, which the inverse functions need
 * for a zero imaginary part of asin/acos on [-1, 1]; their argument is rounded already. */
rf_cx rf_cx_log_hypot(rf_lowering *L, rf_cx z);
rf_cx rf_cx_sqrt(rf_lowering *L, rf_cx z);
rf_cx rf_cx_tanh(rf_lowering *L, rf_cx z, rf_dtype dt);
/* cpow(x, y) = cexp(y * clog(x)), with Annex G multiplication. */
rf_cx rf_cx_pow(rf_lowering *L, rf_cx x, rf_cx y);
rf_cx rf_cx_sgn(rf_lowering *L, rf_cx z);
rf_cx rf_cx_sigmoid(rf_lowering *L, rf_cx z);

/* cxfuncs.c: the other elementary functions, as formulas over the above. */
rf_cx rf_cx_log1p(rf_lowering *L, rf_cx z);
rf_cx rf_cx_expm1(rf_lowering *L, rf_cx z);
rf_cx rf_cx_sin(rf_lowering *L, rf_cx z);
rf_cx rf_cx_cos(rf_lowering *L, rf_cx z);
rf_cx rf_cx_tan(rf_lowering *L, rf_cx z, rf_dtype dt);
rf_cx rf_cx_sinh(rf_lowering *L, rf_cx z);
rf_cx rf_cx_cosh(rf_lowering *L, rf_cx z);
rf_cx rf_cx_asinh(rf_lowering *L, rf_cx z);
rf_cx rf_cx_acosh(rf_lowering *L, rf_cx z);
rf_cx rf_cx_atanh(rf_lowering *L, rf_cx z);
rf_cx rf_cx_asin(rf_lowering *L, rf_cx z);
rf_cx rf_cx_acos(rf_lowering *L, rf_cx z);
rf_cx rf_cx_atan(rf_lowering *L, rf_cx z);
/* torch's log(exp(x) + exp(y)) for complex x, y (its _log_add_exp_helper). */
rf_cx rf_cx_logaddexp(rf_lowering *L, rf_cx x, rf_cx y);

#endif
