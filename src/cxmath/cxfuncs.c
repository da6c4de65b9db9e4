/* The other complex elementary functions, as formulas over real ops and the
 * exact building blocks of cxmath.c. Real inputs (im_zero) take the real
 * function where C99 gives a zero imaginary part; the inverse functions work
 * on an explicit +0 imaginary part so branch cuts follow its sign. */
#include <math.h>

#include "cxmath/cxmath.h"
#include "lower/realops.h"

#define HALF_PI 1.57079632679489661923

static rf_rv fn(rf_lowering *L, const char *op, rf_rv x) { return rf_b_fn(L, op, x); }
static rf_rv add(rf_lowering *L, rf_rv x, rf_rv y) { return rf_b_add(L, x, y); }
static rf_rv sub(rf_lowering *L, rf_rv x, rf_rv y) { return rf_b_sub(L, x, y); }
static rf_rv mul(rf_lowering *L, rf_rv x, rf_rv y) { return rf_b_mul(L, x, y); }

/* z with its imaginary part as a tensor (+0 when it was absent). */
static rf_cx explicit_im(rf_lowering *L, rf_cx z) {
    if (!z.im_zero) return z;
    return rf_cx_make(z.re, rf_val(rf_cx_im_value(L, z)));
}

/* i z = -y + i x */
static rf_cx times_i(rf_lowering *L, rf_cx z) { return rf_cx_make(rf_b_neg(L, z.im), z.re); }
/* -i w = w.im - i w.re */
static rf_cx times_minus_i(rf_lowering *L, rf_cx w) { return rf_cx_make(rf_cx_im(w), rf_b_neg(L, w.re)); }

/* log1p as c10 computes it outside the CPU kernels: accurate near 0 without
 * cancellation, log|1 + z| from hypot elsewhere. */
rf_cx rf_cx_log1p(rf_lowering *L, rf_cx z) {
    rf_rv x = z.re;
    if (z.im_zero) {
        /* log1p(x + i0) = log1p(x) + i atan2(0, 1 + x) */
        rf_rv xp1 = add(L, x, rf_num(1.0));
        rf_rv im = rf_b_fn2(L, "aten.atan2.default", rf_num(0.0), xp1);
        return rf_cx_make(fn(L, "aten.log1p.default", x), im);
    }
    rf_rv y = z.im;
    rf_rv xp1 = add(L, x, rf_num(1.0));
    rf_rv theta = rf_b_fn2(L, "aten.atan2.default", y, xp1);
    rf_rv zabs = rf_b_fn2(L, "aten.hypot.default", x, y);
    rf_rv xx = mul(L, x, add(L, x, rf_num(2.0)));
    rf_rv r = add(L, xx, mul(L, y, y));
    rf_rv near = mul(L, fn(L, "aten.log1p.default", r), rf_num(0.5));
    near = rf_b_where(L, rf_b_cmp(L, "eq", r, rf_num(0.0)), x, near);
    rf_rv far = fn(L, "aten.log.default", rf_b_fn2(L, "aten.hypot.default", xp1, y));
    rf_rv re = rf_b_where(L, rf_b_cmp(L, "lt", zabs, rf_num(0.5)), near, far);
    return rf_cx_make(re, theta);
}

/* c10's expm1: (expm1(x) cos y - 2 sin^2(y/2)) + i exp(x) sin y */
rf_cx rf_cx_expm1(rf_lowering *L, rf_cx z) {
    rf_rv x = z.re;
    if (z.im_zero) { /* exp(x) sin(0): zero, or NaN where exp(x) is infinite or NaN */
        rf_rv re = fn(L, "aten.expm1.default", x);
        return rf_cx_make(re, mul(L, fn(L, "aten.exp.default", x), rf_num(0.0)));
    }
    rf_rv y = z.im;
    rf_rv a = fn(L, "aten.sin.default", mul(L, y, rf_num(0.5)));
    rf_rv em1 = fn(L, "aten.expm1.default", x);
    rf_rv first = mul(L, em1, fn(L, "aten.cos.default", y));
    rf_rv re = sub(L, first, mul(L, mul(L, a, a), rf_num(2.0)));
    rf_rv ex = fn(L, "aten.exp.default", x);
    rf_rv im = mul(L, ex, fn(L, "aten.sin.default", y));
    return rf_cx_make(re, im);
}

/* f(x) g(y) + i h(x) k(y), the shape of sin, cos, sinh and cosh. */
static rf_cx sep(rf_lowering *L, rf_cx z, const char *f, const char *g, const char *h, const char *k, double sign) {
    if (z.im_zero) return rf_cx_real(fn(L, f, z.re));
    rf_rv fx = fn(L, f, z.re);
    rf_rv re = mul(L, fx, fn(L, g, z.im));
    rf_rv hx = fn(L, h, z.re);
    rf_rv im = mul(L, mul(L, hx, fn(L, k, z.im)), rf_num(sign));
    return rf_cx_make(re, im);
}

rf_cx rf_cx_sin(rf_lowering *L, rf_cx z) {
    return sep(L, z, "aten.sin.default", "aten.cosh.default", "aten.cos.default", "aten.sinh.default", 1.0);
}

rf_cx rf_cx_cos(rf_lowering *L, rf_cx z) {
    return sep(L, z, "aten.cos.default", "aten.cosh.default", "aten.sin.default", "aten.sinh.default", -1.0);
}

rf_cx rf_cx_sinh(rf_lowering *L, rf_cx z) {
    return sep(L, z, "aten.sinh.default", "aten.cos.default", "aten.cosh.default", "aten.sin.default", 1.0);
}

rf_cx rf_cx_cosh(rf_lowering *L, rf_cx z) {
    return sep(L, z, "aten.cosh.default", "aten.cos.default", "aten.sinh.default", "aten.sin.default", 1.0);
}

/* tan z = -i tanh(i z) */
rf_cx rf_cx_tan(rf_lowering *L, rf_cx z, rf_dtype dt) {
    if (z.im_zero) return rf_cx_real(fn(L, "aten.tan.default", z.re));
    return times_minus_i(L, rf_cx_tanh(L, times_i(L, z), dt));
}

/* The inverse functions at an infinite part, where the formulas below give nan but C99 Annex G (glibc, and so
 * eager) gives exact values: the angle an infinite point sits at, atan2(isinf y, isinf x ? x : 0) with the sign
 * of y (only the sign of x when `signed_x`), and nan where the other part is nan. */
static rf_value *any_inf(rf_lowering *L, rf_cx z) { return rf_b_or(L, rf_b_isinf(L, z.re), rf_b_isinf(L, z.im)); }

static rf_rv inf_angle(rf_lowering *L, rf_cx z, int signed_x) {
    rf_dtype dt = z.re.v ? z.re.v->dtype : z.im.v->dtype;
    rf_rv one = rf_val(rf_b_tensor_of(L, rf_num(1.0), dt));
    rf_rv ys = rf_b_where(L, rf_b_isinf(L, z.im), one, rf_num(0.0));
    rf_rv xone = signed_x ? rf_b_copysign(L, one, z.re) : one;
    rf_rv xs = rf_b_where(L, rf_b_isinf(L, z.re), xone, rf_num(0.0));
    rf_rv a = rf_b_copysign(L, rf_b_fn2(L, "aten.atan2.default", ys, xs), z.im);
    rf_value *nan = rf_b_or(L, rf_b_isnan(L, z.re), rf_b_isnan(L, z.im));
    return rf_b_where(L, nan, rf_num(NAN), a);
}

/* Where |z| is large, z^2 overflows (|z| = 1e30 in float) but asinh and acosh are s log(2 s z) to within
 * 1 / (4 |z|^2), below rounding past LARGE_Z: take that there. */
#define LARGE_Z 1e10
static rf_cx large_log2z(rf_lowering *L, rf_cx z, rf_cx sz, rf_cx r, rf_rv s) {
    rf_cx w = rf_cx_log(L, sz);
    w.re = add(L, w.re, rf_num(0.69314718055994530942));
    w = rf_cx_scale(L, w, s);
    rf_value *big = rf_b_cmp(L, "gt", rf_b_fn2(L, "aten.hypot.default", z.re, z.im), rf_num(LARGE_Z));
    return rf_cx_make(rf_b_where(L, big, w.re, r.re), rf_b_where(L, big, rf_cx_im(w), rf_cx_im(r)));
}

/* asinh z = s log(s z + sqrt((s z)^2 + 1)) with s = copysign(1, re z), which
 * keeps the sum away from cancellation. */
rf_cx rf_cx_asinh(rf_lowering *L, rf_cx z) {
    z = explicit_im(L, z);
    rf_rv s = rf_b_fn2(L, "aten.copysign.Tensor", rf_num(1.0), z.re);
    rf_cx za = rf_cx_scale(L, z, s);
    rf_cx zz = rf_cx_mul(L, za, za), sq = zz;
    sq.re = add(L, sq.re, rf_num(1.0));
    rf_cx r = rf_cx_scale(L, rf_cx_log_hypot(L, rf_cx_add(L, za, rf_cx_sqrt(L, sq))), s);
    /* Below |z| = 1e-2, 1 + z^2 rounds much of z away; there the series z (1 - z^2/6 + 3 z^4/40 - 5 z^6/112)
     * is exact to within |z|^9 / 30 (Horner in z^2). */
    rf_cx h = rf_cx_real(rf_num(-5.0 / 112.0));
    h = rf_cx_mul(L, zz, h);
    h.re = add(L, h.re, rf_num(3.0 / 40.0));
    h = rf_cx_mul(L, zz, h);
    h.re = add(L, h.re, rf_num(-1.0 / 6.0));
    h = rf_cx_mul(L, zz, h);
    h.re = add(L, h.re, rf_num(1.0));
    rf_cx tiny = rf_cx_mul(L, z, h);
    rf_value *small = rf_b_cmp(L, "lt", rf_b_fn2(L, "aten.hypot.default", z.re, z.im), rf_num(1e-2));
    r = rf_cx_make(rf_b_where(L, small, tiny.re, r.re), rf_b_where(L, small, rf_cx_im(tiny), rf_cx_im(r)));
    /* asinh keeps the quadrant: each part has the sign of z's, zeros included */
    r = rf_cx_make(rf_b_copysign(L, r.re, z.re), rf_b_copysign(L, rf_cx_im(r), z.im));
    r = large_log2z(L, z, za, r, s);
    /* Near the imaginary axis below |z| = 2 (the branch points +-i included), 1 + z^2 cancels and log|.| rounds
     * Re asinh z to 0 (asinh(1e-30 + i) is 1e-15 + i pi/2 in glibc; asinh(-2e-16 - 0.2i) is -2e-16 - 0.2i, whose
     * real part asin(-0.2 + 2e-16 i) carries as its imaginary one); there Kahan's
     * Re asinh z = asinh(Im(conj(sqrt(1 - iz)) sqrt(1 + iz))) is exact, iz = -y + ix. Taken for 1e-2 <= |z| < 2
     * (the series above covers smaller z), with the sign found above. */
    rf_cx a = rf_cx_sqrt(L, rf_cx_make(add(L, rf_num(1.0), z.im), rf_b_neg(L, z.re)));
    rf_cx b = rf_cx_sqrt(L, rf_cx_make(sub(L, rf_num(1.0), z.im), z.re));
    rf_rv k = fn(L, "aten.asinh.default", sub(L, mul(L, a.re, rf_cx_im(b)), mul(L, rf_cx_im(a), b.re)));
    rf_rv mag = rf_b_fn2(L, "aten.hypot.default", z.re, z.im);
    rf_value *near = rf_b_and(L, rf_b_cmp(L, "ge", mag, rf_num(1e-2)), rf_b_cmp(L, "lt", mag, rf_num(2.0)));
    r.re = rf_b_where(L, near, rf_b_copysign(L, rf_b_abs(L, k), r.re), r.re);
    /* casinh(x + iy) with an infinite part: copysign(inf, x) + i copysign(0, pi/2 or pi/4, y) */
    rf_value *inf = any_inf(L, z);
    rf_rv re = rf_b_where(L, inf, rf_b_copysign(L, rf_num(INFINITY), z.re), r.re);
    rf_rv im = rf_b_where(L, inf, inf_angle(L, z, 0), rf_cx_im(r));
    /* casinh(nan + i0) = nan + i0 */
    rf_value *nan0 = rf_b_and(L, rf_b_isnan(L, z.re), rf_b_cmp(L, "eq", z.im, rf_num(0.0)));
    return rf_cx_make(re, rf_b_where(L, nan0, z.im, im));
}

/* acosh z = log(z + sqrt(z + 1) sqrt(z - 1)) (Kahan's branch cuts) */
rf_cx rf_cx_acosh(rf_lowering *L, rf_cx z) {
    z = explicit_im(L, z);
    rf_cx zp = z, zm = z;
    zp.re = add(L, z.re, rf_num(1.0));
    zm.re = sub(L, z.re, rf_num(1.0));
    rf_cx sp = rf_cx_sqrt(L, zp);
    rf_cx prod = rf_cx_mul(L, sp, rf_cx_sqrt(L, zm));
    rf_cx r = large_log2z(L, z, z, rf_cx_log_hypot(L, rf_cx_add(L, z, prod)), rf_num(1.0));
    /* cacosh(x + iy) with an infinite part: +inf + i copysign(0, pi/4, pi/2, 3pi/4 or pi, y) */
    rf_value *inf = any_inf(L, z);
    rf_rv re = rf_b_where(L, inf, rf_num(INFINITY), r.re);
    rf_rv im = rf_b_where(L, inf, inf_angle(L, z, 1), rf_cx_im(r));
    /* cacosh(+-0 + i nan) = nan + i pi/2 */
    rf_value *zero_nan = rf_b_and(L, rf_b_cmp(L, "eq", z.re, rf_num(0.0)), rf_b_isnan(L, z.im));
    return rf_cx_make(re, rf_b_where(L, zero_nan, rf_num(HALF_PI), im));
}

/* atanh z = (log1p(z) - log1p(-z)) / 2 */
rf_cx rf_cx_atanh(rf_lowering *L, rf_cx z) {
    z = explicit_im(L, z);
    rf_cx a = rf_cx_log1p(L, z), b = rf_cx_log1p(L, rf_cx_neg(L, z));
    rf_cx r = rf_cx_scale(L, rf_cx_sub(L, a, b), rf_num(0.5));
    /* catanh(x + iy) with an infinite part: copysign(0, x) + i copysign(pi/2, y), nan for a nan y. Elsewhere
     * the real part has the sign of x (atanh is odd in x), which the difference of logs loses at zero. */
    rf_value *inf = any_inf(L, z);
    rf_rv re = rf_b_where(L, inf, rf_num(0.0), r.re);
    /* catanh(+-0 + i nan) = +-0 + i nan */
    rf_value *zero = rf_b_cmp(L, "eq", z.re, rf_num(0.0));
    re = rf_b_copysign(L, rf_b_where(L, zero, rf_num(0.0), re), z.re);
    rf_rv im = rf_b_where(L, rf_b_isnan(L, z.im), rf_num(NAN), rf_b_copysign(L, rf_num(HALF_PI), z.im));
    return rf_cx_make(re, rf_b_where(L, inf, im, rf_cx_im(r)));
}

rf_cx rf_cx_asin(rf_lowering *L, rf_cx z) {
    z = explicit_im(L, z);
    return times_minus_i(L, rf_cx_asinh(L, times_i(L, z)));
}

rf_cx rf_cx_acos(rf_lowering *L, rf_cx z) {
    rf_cx s = rf_cx_asin(L, z);
    rf_rv re = sub(L, rf_num(HALF_PI), s.re);
    return rf_cx_make(re, rf_b_neg(L, s.im));
}

rf_cx rf_cx_atan(rf_lowering *L, rf_cx z) {
    z = explicit_im(L, z);
    return times_minus_i(L, rf_cx_atanh(L, times_i(L, z)));
}

/* torch's _log_add_exp_helper: NaN if either is NaN; the smaller (by real
 * part) when both real parts are -inf; log(exp(a) + exp(b)) when both are
 * +inf; else log1p(exp(min - max)) + max. */
rf_cx rf_cx_logaddexp(rf_lowering *L, rf_cx x, rf_cx y) {
    rf_value *xi = rf_cx_im_value(L, x);
    rf_value *yi = rf_cx_im_value(L, y);
    rf_rv xr = x.re, yr = y.re;
    rf_value *lt = rf_b_cmp(L, "lt", xr, yr);
    rf_rv mnr = rf_b_where(L, lt, xr, yr);
    rf_cx mn = rf_cx_make(mnr, rf_b_where(L, lt, rf_val(xi), rf_val(yi)));
    rf_rv mxr = rf_b_where(L, lt, yr, xr);
    rf_cx mx = rf_cx_make(mxr, rf_b_where(L, lt, rf_val(yi), rf_val(xi)));
    rf_cx main = rf_cx_add(L, rf_cx_log1p(L, rf_cx_exp(L, rf_cx_sub(L, mn, mx))), mx);
    rf_cx emn = rf_cx_exp(L, mn);
    rf_cx both_pinf = rf_cx_log(L, rf_cx_add(L, emn, rf_cx_exp(L, mx)));
    rf_value *mn_inf = rf_b_isinf(L, mn.re);
    rf_value *same_inf = rf_b_and(L, mn_inf, rf_b_cmp(L, "eq", mn.re, mx.re));
    rf_value *neg = rf_b_and(L, same_inf, rf_b_cmp(L, "lt", mn.re, rf_num(0.0)));
    rf_value *nx = rf_b_isnan(L, xr);
    nx = rf_b_or(L, nx, rf_b_isnan(L, rf_val(xi)));
    rf_value *ny = rf_b_isnan(L, yr);
    ny = rf_b_or(L, ny, rf_b_isnan(L, rf_val(yi)));
    rf_value *nan = rf_b_or(L, nx, ny);
    rf_rv re = rf_b_where(L, neg, mn.re, both_pinf.re);
    re = rf_b_where(L, same_inf, re, main.re);
    rf_rv im = rf_b_where(L, neg, mn.im, both_pinf.im);
    im = rf_b_where(L, same_inf, im, main.im);
    re = rf_b_where(L, nan, rf_num(NAN), re);
    im = rf_b_where(L, nan, rf_num(NAN), im);
    return rf_cx_make(re, im);
}
