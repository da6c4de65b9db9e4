/* Torch's complex division (c10, Smith's algorithm) and the C99 functions it
 * calls for exp, log, sqrt, tanh and pow, built from real ops. Each special
 * case below is one row of C99 Annex G (or of c10's division) that the plain
 * formula would get wrong. */
#include "cxmath/cxmath.h"

#include <math.h>
#include <string.h>

#include "lower/realops.h"

rf_cx rf_cx_make(rf_rv re, rf_rv im) {
    rf_cx c;
    c.re = re;
    c.im = im;
    c.im_zero = 0;
    return c;
}

rf_cx rf_cx_real(rf_rv re) {
    rf_cx c;
    c.re = re;
    c.im = rf_num(0.0);
    c.im_zero = 1;
    return c;
}

rf_rv rf_cx_im(rf_cx z) { return z.im_zero ? rf_num(0.0) : z.im; }

rf_value *rf_cx_im_value(rf_lowering *L, rf_cx z) {
    if (!z.im_zero && z.im.v) return z.im.v;
    return rf_b_materialize(L, rf_cx_im(z), z.re.v);
}

static rf_rv where(rf_lowering *L, rf_value *c, rf_rv x, rf_rv y) { return rf_b_where(L, c, x, y); }
static rf_value *cmp(rf_lowering *L, const char *op, rf_rv x, rf_rv y) { return rf_b_cmp(L, op, x, y); }
static rf_rv fn(rf_lowering *L, const char *op, rf_rv x) { return rf_b_fn(L, op, x); }
static rf_rv add(rf_lowering *L, rf_rv x, rf_rv y) { return rf_b_add(L, x, y); }
static rf_rv sub(rf_lowering *L, rf_rv x, rf_rv y) { return rf_b_sub(L, x, y); }
static rf_rv mul(rf_lowering *L, rf_rv x, rf_rv y) { return rf_b_mul(L, x, y); }
static rf_rv dvd(rf_lowering *L, rf_rv x, rf_rv y) { return rf_b_div(L, x, y); }

/* The dtype of z's tensor parts. */
static rf_dtype cx_dtype(rf_cx z) {
    if (z.re.v) return z.re.v->dtype;
    if (!z.im_zero && z.im.v) return z.im.v->dtype;
    return RF_DT_F64;
}

static rf_value *tensor(rf_lowering *L, rf_rv x, rf_dtype dt) { return rf_b_tensor_of(L, x, dt); }

/* ---- arithmetic ---- */

rf_cx rf_cx_add(rf_lowering *L, rf_cx a, rf_cx b) {
    rf_rv re = rf_b_add(L, a.re, b.re);
    if (a.im_zero && b.im_zero) return rf_cx_real(re);
    return rf_cx_make(re, rf_b_add(L, rf_cx_im(a), rf_cx_im(b)));
}

rf_cx rf_cx_sub(rf_lowering *L, rf_cx a, rf_cx b) {
    rf_rv re = rf_b_sub(L, a.re, b.re);
    if (a.im_zero && b.im_zero) return rf_cx_real(re);
    return rf_cx_make(re, rf_b_sub(L, rf_cx_im(a), rf_cx_im(b)));
}

rf_cx rf_cx_neg(rf_lowering *L, rf_cx a) {
    rf_rv re = rf_b_neg(L, a.re);
    /* torch's vectorised neg computes 0 - z, so the zero imaginary part stays +0
     * (only its scalar tail gives -0); keep it absent */
    if (a.im_zero) return rf_cx_real(re);
    return rf_cx_make(re, rf_b_neg(L, a.im));
}

rf_cx rf_cx_conj(rf_lowering *L, rf_cx a) {
    if (a.im_zero) return rf_cx_make(a.re, rf_num(-0.0)); /* conj(x + 0i) = x - 0i: the sign matters at branch cuts */
    return rf_cx_make(a.re, rf_b_neg(L, a.im));
}

rf_cx rf_cx_scale(rf_lowering *L, rf_cx a, rf_rv s) {
    rf_rv re = rf_b_mul(L, a.re, s);
    if (a.im_zero) return rf_cx_real(re);
    return rf_cx_make(re, rf_b_mul(L, a.im, s));
}

/* (ar + ai i)(br + bi i) = (ar br - ai bi) + (ar bi + ai br) i, elementwise, on tensors or scalars: each part is
 * combined as soon as its two products are made (the order every lowered multiply has and golden files check;
 * rf_cx_product, the same formula over a bilinear op, makes all four products first). */
static rf_cx mul4(rf_lowering *L, rf_rv ar, rf_rv ai, rf_rv br, rf_rv bi) {
    rf_rv rr = rf_b_mul(L, ar, br), ii = rf_b_mul(L, ai, bi);
    rf_rv re = rf_b_sub(L, rr, ii);
    rf_rv ri = rf_b_mul(L, ar, bi), ir = rf_b_mul(L, ai, br);
    return rf_cx_make(re, rf_b_add(L, ri, ir));
}

rf_cx rf_cx_mul(rf_lowering *L, rf_cx a, rf_cx b) {
    if (b.im_zero) return rf_cx_scale(L, a, b.re);
    if (a.im_zero) return rf_cx_scale(L, b, a.re);
    return mul4(L, a.re, a.im, b.re, b.im);
}

/* The product as eager computes it for user-level ops: c10's four-product formula even where a part is a known
 * +0 (a promoted real, a real scalar). x * 0 is -0 for negative x and nan for infinite x, so
 * (-2 + 0i)^2 = 4 - 0i and (inf + 0i) * 2 = inf + nan i, as in eager; rf_cx_mul scales instead. */
rf_cx rf_cx_mul_eager(rf_lowering *L, rf_cx a, rf_cx b) {
    if (!a.im_zero && !b.im_zero) return rf_cx_mul(L, a, b);
    return mul4(L, a.re, rf_cx_im(a), b.re, rf_cx_im(b));
}

/* a + alpha b as eager's add kernel computes it: alpha b is a complex product even for alpha = 1, so
 * (1 + inf i) contributes nan to the real part and -0 - 0i turns into +0 - 0i. */
rf_cx rf_cx_add_eager(rf_lowering *L, rf_cx a, rf_cx b, rf_cx alpha) {
    rf_cx ab = rf_cx_mul_eager(L, alpha, b); /* never im_zero: its imaginary part is a sum of products */
    rf_rv re = rf_b_add(L, a.re, ab.re);
    return rf_cx_make(re, rf_b_add(L, rf_cx_im(a), ab.im));
}

rf_rv rf_cx_abs(rf_lowering *L, rf_cx a) {
    if (a.im_zero) {
        if (!a.re.v) return rf_num(fabs(a.re.s));
        return rf_val(rf_b_unary(L, "aten.abs.default", a.re.v));
    }
    /* the scaled form of realops.c: aten.hypot is missing from most deployment targets */
    return rf_b_hypot(L, a.re, a.im);
}

/* Division scaled by max(|c|, |d|), as ATen's vectorised kernels divide. */
static rf_cx div_scaled(rf_lowering *L, rf_cx a, rf_cx b) {
    if (b.im_zero) {
        rf_rv re = rf_b_div(L, a.re, b.re);
        if (a.im_zero) return rf_cx_real(re);
        return rf_cx_make(re, rf_b_div(L, a.im, b.re));
    }
    if (!b.re.v && !b.im.v) {
        /* Divisor is a complex scalar: multiply by its reciprocal (Smith's method). */
        double c = b.re.s, d = b.im.s, rr, ri;
        if (fabs(c) >= fabs(d)) {
            double r = d / c, den = c + d * r;
            rr = 1.0 / den;
            ri = -r / den;
        } else {
            double r = c / d, den = d + c * r;
            rr = r / den;
            ri = -1.0 / den;
        }
        return rf_cx_mul(L, a, rf_cx_make(rf_num(rr), rf_num(ri)));
    }
    /* Scale both operands by max(|c|, |d|) so c^2 + d^2 neither overflows nor
     * underflows, as ATen's vectorised complex division does. */
    rf_value *c = rf_b_materialize(L, b.re, b.im.v);
    rf_value *d = rf_b_materialize(L, b.im, b.re.v);
    rf_value *abs_c = rf_b_unary(L, "aten.abs.default", c);
    rf_value *abs_d = rf_b_unary(L, "aten.abs.default", d);
    rf_value *scale = rf_b_binary(L, "aten.maximum.default", abs_c, abs_d);
    rf_rv cs = rf_b_div(L, rf_val(c), rf_val(scale));
    rf_rv ds = rf_b_div(L, rf_val(d), rf_val(scale));
    rf_rv as = rf_b_div(L, a.re, rf_val(scale));
    rf_rv cc = rf_b_mul(L, cs, cs), dd = rf_b_mul(L, ds, ds);
    rf_rv den = rf_b_add(L, cc, dd);
    rf_rv re, im;
    if (a.im_zero) {
        re = rf_b_mul(L, as, cs);
        im = rf_b_neg(L, rf_b_mul(L, as, ds));
    } else {
        rf_rv bs = rf_b_div(L, a.im, rf_val(scale));
        rf_rv ac = rf_b_mul(L, as, cs), bd = rf_b_mul(L, bs, ds);
        re = rf_b_add(L, ac, bd);
        rf_rv bc = rf_b_mul(L, bs, cs), ad = rf_b_mul(L, as, ds);
        im = rf_b_sub(L, bc, ad);
    }
    rf_rv re_q = rf_b_div(L, re, den);
    rf_rv im_q = rf_b_div(L, im, den);
    return rf_cx_make(re_q, im_q);
}

/* ---- division ---- */

static rf_cx div_by_scalar(rf_lowering *L, rf_rv ar, rf_rv ai, double c, double d) {
    double ac = fabs(c), ad = fabs(d);
    if (ac >= ad) {
        if (ac == 0.0 && ad == 0.0) {
            rf_rv re = dvd(L, ar, rf_num(ac));
            return rf_cx_make(re, dvd(L, ai, rf_num(ad)));
        }
        double rat = d / c, scl = 1.0 / (c + d * rat);
        rf_rv re = mul(L, add(L, ar, mul(L, ai, rf_num(rat))), rf_num(scl));
        rf_rv im = mul(L, sub(L, ai, mul(L, ar, rf_num(rat))), rf_num(scl));
        return rf_cx_make(re, im);
    }
    double rat = c / d, scl = 1.0 / (d + c * rat);
    rf_rv re = mul(L, add(L, mul(L, ar, rf_num(rat)), ai), rf_num(scl));
    rf_rv im = mul(L, sub(L, mul(L, ai, rf_num(rat)), ar), rf_num(scl));
    return rf_cx_make(re, im);
}

/* a / c for a real tensor c: Smith's algorithm with d = +0. */
static rf_cx div_by_real(rf_lowering *L, rf_cx a, rf_value *c) {
    rf_rv ar = a.re, ai = rf_cx_im(a);
    rf_rv scl = dvd(L, rf_num(1.0), rf_val(c));
    /* rat = 0 / c as a division: 0 * (1 / c) is nan where 1 / c overflows (a subnormal c) */
    rf_rv rat = dvd(L, rf_val(rf_b_scalar_tensor(L, 0.0, c->dtype)), rf_val(c));
    rf_rv re = a.im_zero ? mul(L, ar, scl) : mul(L, add(L, ar, mul(L, ai, rat)), scl);
    rf_rv im = mul(L, sub(L, ai, mul(L, ar, rat)), scl);
    rf_value *zero = cmp(L, "eq", rf_val(c), rf_num(0.0));
    rf_rv absc = rf_b_abs(L, rf_val(c));
    re = where(L, zero, dvd(L, ar, absc), re);
    im = where(L, zero, dvd(L, ai, rf_num(0.0)), im);
    return rf_cx_make(re, im);
}

/* c10::complex division (Smith's algorithm), as torch computes on the CPU. */
static rf_cx div_c10(rf_lowering *L, rf_cx a, rf_cx b) {
    rf_rv ar = a.re, ai = rf_cx_im(a);
    rf_rv bi = rf_cx_im(b);
    if (!b.re.v && !bi.v) return div_by_scalar(L, ar, ai, b.re.s, bi.s);
    if (b.im_zero) return div_by_real(L, a, b.re.v);
    rf_dtype dt = cx_dtype(b);
    rf_rv c = rf_val(tensor(L, b.re, dt)), d = rf_val(tensor(L, bi, dt));
    rf_rv ac = rf_b_abs(L, c), ad = rf_b_abs(L, d);
    rf_value *ge = cmp(L, "ge", ac, ad);
    rf_rv p = where(L, ge, c, d), q = where(L, ge, d, c);
    rf_rv rat = dvd(L, q, p);
    rf_rv scl = dvd(L, rf_num(1.0), add(L, p, mul(L, q, rat)));
    rf_rv x = where(L, ge, ar, ai), y = where(L, ge, ai, ar);
    rf_rv re = mul(L, add(L, x, mul(L, y, rat)), scl);
    /* c10's imaginary numerators, b - a rat and b rat - a: negating one for the other flips the sign of a zero. */
    rf_rv u = mul(L, x, rat);
    rf_rv t_ge = sub(L, y, u);
    rf_rv t_lt = sub(L, u, y);
    rf_rv im = mul(L, where(L, ge, t_ge, t_lt), scl);
    rf_value *c0 = cmp(L, "eq", c, rf_num(0.0));
    rf_value *d0 = cmp(L, "eq", d, rf_num(0.0));
    rf_value *zero = rf_b_and(L, c0, d0);
    re = where(L, zero, dvd(L, ar, ac), re);
    im = where(L, zero, dvd(L, ai, ad), im);
    return rf_cx_make(re, im);
}

rf_cx rf_cx_div(rf_lowering *L, rf_cx a, rf_cx b) {
    return rf_options(L)->division == RF_DIV_SCALED ? div_scaled(L, a, b) : div_c10(L, a, b);
}

rf_cx rf_cx_reciprocal(rf_lowering *L, rf_cx z) { return rf_cx_div(L, rf_cx_real(rf_num(1.0)), z); }

/* ---- Annex G multiplication ---- */

/* copysign(isinf(v) ? 1 : 0, v) */
static rf_rv box(rf_lowering *L, rf_rv v) {
    rf_rv one = where(L, rf_b_isinf(L, v), rf_num(1.0), rf_num(0.0));
    return rf_b_fn2(L, "aten.copysign.Tensor", one, v);
}

/* NaN -> copysign(0, v) */
static rf_rv nan_to_zero(rf_lowering *L, rf_rv v) {
    rf_value *nan = rf_b_isnan(L, v);
    return where(L, nan, rf_b_fn2(L, "aten.copysign.Tensor", rf_num(0.0), v), v);
}

static rf_rv any_inf(rf_lowering *L, rf_rv x, rf_rv y) {
    rf_value *ix = rf_b_isinf(L, x);
    return rf_val(rf_b_or(L, ix, rf_b_isinf(L, y)));
}

/* Its own spelling of the four products: C99's _Cmultd computes all four first, then recomputes them from the
 * boxed operands where the plain result is NaN + NaN i, which neither mul4 nor rf_cx_product does. */
rf_cx rf_cx_mul_c99(rf_lowering *L, rf_cx x, rf_cx y) {
    rf_dtype dt = x.re.v ? cx_dtype(x) : cx_dtype(y);
    rf_rv a = rf_val(tensor(L, x.re, dt)), b = rf_val(tensor(L, rf_cx_im(x), dt));
    rf_rv c = rf_val(tensor(L, y.re, dt)), d = rf_val(tensor(L, rf_cx_im(y), dt));
    rf_rv ac = mul(L, a, c), bd = mul(L, b, d), ad = mul(L, a, d), bc = mul(L, b, c);
    rf_rv re = sub(L, ac, bd), im = add(L, ad, bc);
    rf_value *re_nan = rf_b_isnan(L, re);
    rf_value *both_nan = rf_b_and(L, re_nan, rf_b_isnan(L, im));
    rf_value *inf1 = any_inf(L, a, b).v;
    rf_value *inf2 = any_inf(L, c, d).v;
    rf_value *ovf1 = any_inf(L, ac, bd).v;
    rf_value *ovf = rf_b_or(L, ovf1, any_inf(L, ad, bc).v);
    /* Box an infinite factor and zero the NaNs of the other one. */
    rf_rv a1 = where(L, inf1, box(L, a), a), b1 = where(L, inf1, box(L, b), b);
    rf_rv c1 = where(L, inf1, nan_to_zero(L, c), c), d1 = where(L, inf1, nan_to_zero(L, d), d);
    rf_rv c2 = where(L, inf2, box(L, c1), c1), d2 = where(L, inf2, box(L, d1), d1);
    rf_rv a2 = where(L, inf2, nan_to_zero(L, a1), a1), b2 = where(L, inf2, nan_to_zero(L, b1), b1);
    /* Recover infinities from overflow. */
    rf_value *s3 = rf_b_and(L, rf_b_not(L, rf_b_or(L, inf1, inf2)), ovf);
    rf_rv a3 = where(L, s3, nan_to_zero(L, a2), a2), b3 = where(L, s3, nan_to_zero(L, b2), b2);
    rf_rv c3 = where(L, s3, nan_to_zero(L, c2), c2), d3 = where(L, s3, nan_to_zero(L, d2), d2);
    rf_value *recalc = rf_b_and(L, both_nan, rf_b_or(L, rf_b_or(L, inf1, inf2), ovf));
    rf_rv ac3 = mul(L, a3, c3), bd3 = mul(L, b3, d3), ad3 = mul(L, a3, d3), bc3 = mul(L, b3, c3);
    rf_rv re2 = mul(L, sub(L, ac3, bd3), rf_num(INFINITY));
    rf_rv im2 = mul(L, add(L, ad3, bc3), rf_num(INFINITY));
    rf_rv out_re = where(L, recalc, re2, re);
    return rf_cx_make(out_re, where(L, recalc, im2, im));
}

/* ---- elementary functions ---- */

rf_cx rf_cx_exp(rf_lowering *L, rf_cx z) {
    rf_rv x = z.re;
    if (z.im_zero) return rf_cx_real(fn(L, "aten.exp.default", x));
    rf_rv y = z.im;
    /* exp(x/2)^2 keeps exp(x) cos y finite where exp(x) alone overflows, as glibc scales it */
    rf_rv h = fn(L, "aten.exp.default", mul(L, x, rf_num(0.5)));
    rf_rv c = fn(L, "aten.cos.default", y), s = fn(L, "aten.sin.default", y);
    rf_rv re = mul(L, mul(L, h, c), h);
    rf_rv im = mul(L, mul(L, h, s), h);
    rf_value *ninf = cmp(L, "eq", x, rf_num(-INFINITY));
    /* cexp(-inf + iy) = +0 cis(y): zeros with the signs of cos y and sin y; for y infinite or NaN, +0 and a zero
     * with the sign of y (glibc's choice) */
    rf_value *fy = rf_b_isfinite(L, y);
    rf_rv zc = rf_b_where(L, fy, rf_b_copysign(L, rf_num(0.0), c), rf_num(0.0));
    rf_rv zs = rf_b_where(L, fy, rf_b_copysign(L, rf_num(0.0), s), rf_b_copysign(L, rf_num(0.0), y));
    re = where(L, ninf, zc, re);
    im = where(L, ninf, zs, im);
    /* cexp(x + i0) = exp(x) + i0 */
    im = where(L, cmp(L, "eq", y, rf_num(0.0)), y, im);
    /* cexp(+inf + iy) = +inf + iNaN for y infinite or NaN */
    rf_value *xpinf = cmp(L, "eq", x, rf_num(INFINITY));
    rf_value *pinf = rf_b_and(L, xpinf, rf_b_not(L, rf_b_isfinite(L, y)));
    re = where(L, pinf, rf_num(INFINITY), re);
    return rf_cx_make(re, im);
}

/* sqrt's rescaling for |z| near the ends of the range, by powers of two (exact): where m = max(|x|, |y|) is below
 * `small`, a subnormal part or |z| itself would lose bits, so the parts are multiplied by `up`; above `big`,
 * |z| (or |x| + |z|) could overflow, so they are multiplied by `down`. Even exponents keep sqrt exact. */
typedef struct range_scale {
    double small, up, big, down;
} range_scale;

static range_scale scale_for(rf_dtype dt) {
    range_scale r;
    switch (dt) {
    case RF_DT_F16: r.small = 0x1p-8, r.up = 0x1p12, r.big = 0x1p13, r.down = 0x1p-4; break;
    case RF_DT_F64: r.small = 0x1p-500, r.up = 0x1p600, r.big = 0x1p1020, r.down = 0x1p-4; break;
    default: r.small = 0x1p-60, r.up = 0x1p80, r.big = 0x1p125, r.down = 0x1p-4; break; /* f32, bf16 */
    }
    return r;
}

/* z's parts rescaled where |z| is extreme; `lo`/`hi` say where, for undoing it on the result. */
typedef struct scaled_cx {
    rf_rv x, y;
    rf_value *lo, *hi;
    range_scale k;
} scaled_cx;

/* x * k where `c`, else `other` (one op per statement: the emitted order must not depend on the compiler) */
static rf_rv scaled_where(rf_lowering *L, rf_value *c, rf_rv x, double k, rf_rv other) {
    rf_rv xk = mul(L, x, rf_num(k));
    return where(L, c, xk, other);
}

static scaled_cx rescale(rf_lowering *L, rf_rv x, rf_rv y, rf_dtype dt) {
    scaled_cx s;
    s.k = scale_for(dt);
    rf_rv ax = rf_b_abs(L, x);
    rf_rv m = rf_b_fn2(L, "aten.maximum.default", ax, rf_b_abs(L, y));
    s.lo = cmp(L, "lt", m, rf_num(s.k.small));
    s.hi = cmp(L, "gt", m, rf_num(s.k.big));
    s.x = scaled_where(L, s.lo, x, s.k.up, scaled_where(L, s.hi, x, s.k.down, x));
    s.y = scaled_where(L, s.lo, y, s.k.up, scaled_where(L, s.hi, y, s.k.down, y));
    return s;
}

/* log z = log|z| + i atan2(y, x). With `accurate`, log|z| = log m + log1p((n/m)^2) / 2 (m = max(|x|, |y|),
 * n = min), which neither overflows nor loses a subnormal part's bits, and near |z| = 1, where log|z| is tiny,
 * log1p((m - 1)(m + 1) + n^2) / 2 with m - 1 exact (glibc's clog takes the same two turns). Else log(hypot). */
static rf_cx log_impl(rf_lowering *L, rf_cx z, int accurate) {
    rf_dtype dt = cx_dtype(z);
    rf_rv x = z.re, y = rf_cx_im(z);
    rf_rv im = rf_b_fn2(L, "aten.atan2.default", rf_val(tensor(L, y, dt)), x);
    if (z.im_zero || (!x.v && !y.v) || !accurate) { /* log|x| of a subnormal or huge x is exact enough already */
        rf_rv mag = z.im_zero ? rf_b_abs(L, x) : rf_b_fn2(L, "aten.hypot.default", x, y);
        return rf_cx_make(fn(L, "aten.log.default", mag), im);
    }
    /* one statement per op, so the emitted order does not depend on the compiler's argument order */
    rf_rv ax = rf_b_abs(L, rf_val(tensor(L, x, dt)));
    rf_rv ay = rf_b_abs(L, rf_val(tensor(L, y, dt)));
    rf_rv m = rf_b_fn2(L, "aten.maximum.default", ax, ay);
    rf_rv n = rf_b_fn2(L, "aten.minimum.default", ax, ay);
    rf_rv q = dvd(L, n, m);
    rf_rv half = mul(L, fn(L, "aten.log1p.default", mul(L, q, q)), rf_num(0.5));
    rf_rv far = add(L, fn(L, "aten.log.default", m), half);
    rf_rv m1 = sub(L, m, rf_num(1.0));
    rf_rv p1 = add(L, m, rf_num(1.0));
    rf_rv nn = mul(L, n, n);
    rf_rv t = add(L, mul(L, m1, p1), nn);
    rf_rv near = mul(L, fn(L, "aten.log1p.default", t), rf_num(0.5));
    rf_value *gt = cmp(L, "gt", m, rf_num(0.5));
    rf_value *band = rf_b_and(L, gt, cmp(L, "lt", m, rf_num(2.0)));
    rf_rv re = where(L, band, near, far);
    /* hypot's special values: log 0 = -inf (n/m is NaN there); +inf when a part is infinite, even beside NaN */
    re = where(L, cmp(L, "eq", m, rf_num(0.0)), rf_num(-INFINITY), re);
    rf_value *xinf = cmp(L, "eq", ax, rf_num(INFINITY));
    rf_value *inf = rf_b_or(L, xinf, cmp(L, "eq", ay, rf_num(INFINITY)));
    return rf_cx_make(where(L, inf, rf_num(INFINITY), re), im);
}

rf_cx rf_cx_log(rf_lowering *L, rf_cx z) { return log_impl(L, z, 1); }
rf_cx rf_cx_log_hypot(rf_lowering *L, rf_cx z) { return log_impl(L, z, 0); }

rf_cx rf_cx_sqrt(rf_lowering *L, rf_cx z) {
    rf_rv x = z.re;
    if (z.im_zero) {
        rf_rv s = fn(L, "aten.sqrt.default", rf_b_abs(L, x));
        rf_rv re = where(L, cmp(L, "lt", x, rf_num(0.0)), rf_num(0.0), s);
        rf_rv im = where(L, cmp(L, "ge", x, rf_num(0.0)), rf_num(0.0), s);
        return rf_cx_make(re, im);
    }
    rf_rv y0 = z.im;
    /* on rescaled parts: (|x| + |z|) / 2 neither loses a subnormal's bits nor overflows */
    scaled_cx sc = rescale(L, rf_val(tensor(L, x, cx_dtype(z))), rf_val(tensor(L, y0, cx_dtype(z))), cx_dtype(z));
    x = sc.x;
    rf_rv y = sc.y;
    rf_rv h = rf_b_fn2(L, "aten.hypot.default", x, y);
    rf_rv hx = mul(L, rf_b_abs(L, x), rf_num(0.5));
    rf_rv t = fn(L, "aten.sqrt.default", add(L, hx, mul(L, h, rf_num(0.5))));
    rf_rv t2 = mul(L, t, rf_num(2.0));
    rf_value *pos = cmp(L, "ge", x, rf_num(0.0));
    rf_rv re = where(L, pos, t, dvd(L, rf_b_abs(L, y), t2));
    rf_rv im = where(L, pos, dvd(L, y, t2), rf_b_fn2(L, "aten.copysign.Tensor", t, y));
    /* undo the scaling: sqrt(z) = sqrt(z s) / sqrt(s) */
    double ru = 1.0 / sqrt(sc.k.up), rd = 1.0 / sqrt(sc.k.down);
    re = scaled_where(L, sc.lo, re, ru, scaled_where(L, sc.hi, re, rd, re));
    im = scaled_where(L, sc.lo, im, ru, scaled_where(L, sc.hi, im, rd, im));
    /* csqrt(±0 + iy) for y = ±0 */
    rf_value *zero = cmp(L, "eq", t, rf_num(0.0));
    re = where(L, zero, rf_num(0.0), re);
    im = where(L, zero, y0, im);
    /* csqrt(x ± i inf) = +inf ± i inf, for every x */
    rf_value *iy = rf_b_isinf(L, y0);
    re = where(L, iy, rf_num(INFINITY), re);
    im = where(L, iy, y0, im);
    return rf_cx_make(re, im);
}

/* Above this |x|, sinh(x)^2 overflows: glibc's (MAX_EXP - 1) * ln 2 / 2. */
static double tanh_threshold(rf_dtype dt) {
    switch (dt) {
    case RF_DT_F16: return 5.0;
    case RF_DT_F32: return 44.0;
    default: return 354.0;
    }
}

rf_cx rf_cx_tanh(rf_lowering *L, rf_cx z, rf_dtype dt) {
    rf_rv x = z.re;
    if (z.im_zero) return rf_cx_real(fn(L, "aten.tanh.default", x));
    rf_rv y = z.im;
    rf_rv sx = fn(L, "aten.sinh.default", x);
    rf_rv cx = fn(L, "aten.cosh.default", x);
    rf_rv sy = fn(L, "aten.sin.default", y);
    rf_rv cy = fn(L, "aten.cos.default", y);
    rf_rv sx2 = mul(L, sx, sx);
    rf_rv den = add(L, sx2, mul(L, cy, cy));
    rf_rv re = dvd(L, mul(L, sx, cx), den);
    rf_rv im = dvd(L, mul(L, sy, cy), den);
    rf_rv ax = rf_b_abs(L, x);
    rf_value *big = cmp(L, "gt", ax, rf_num(tanh_threshold(dt)));
    rf_value *xinf = rf_b_isinf(L, x);
    /* Large |x|: re = ±1, im = 4 sin y cos y / exp(2|x|) (a signed 0 when x is infinite). */
    rf_value *big_re = rf_b_and(L, big, rf_b_or(L, xinf, rf_b_isfinite(L, y)));
    rf_rv one = rf_b_fn2(L, "aten.copysign.Tensor", rf_num(1.0), x);
    re = where(L, cmp(L, "eq", x, rf_num(0.0)), x, re);
    re = where(L, big_re, one, re);
    rf_rv sc4 = mul(L, mul(L, sy, cy), rf_num(4.0));
    rf_rv small = mul(L, sc4, fn(L, "aten.exp.default", mul(L, ax, rf_num(-2.0))));
    /* ctanh(+-inf + iy) = +-1 + i copysign(0, sin 2y) (copysign(0, y) for y infinite or NaN, as glibc) */
    rf_rv sgn = where(L, rf_b_isfinite(L, y), sc4, y);
    rf_rv im_big = where(L, xinf, rf_b_fn2(L, "aten.copysign.Tensor", rf_num(0.0), sgn), small);
    im = where(L, big, im_big, im);
    im = where(L, cmp(L, "eq", y, rf_num(0.0)), y, im);
    return rf_cx_make(re, im);
}

rf_cx rf_cx_pow(rf_lowering *L, rf_cx x, rf_cx y) { return rf_cx_exp(L, rf_cx_mul_c99(L, y, rf_cx_log(L, x))); }

rf_cx rf_cx_sgn(rf_lowering *L, rf_cx z) {
    rf_rv x = z.re, y = rf_cx_im(z);
    rf_rv a = z.im_zero ? rf_b_abs(L, x) : rf_b_fn2(L, "aten.hypot.default", x, y);
    rf_value *zero = cmp(L, "eq", a, rf_num(0.0));
    rf_rv re = where(L, zero, rf_num(0.0), dvd(L, x, a));
    rf_rv im = where(L, zero, rf_num(0.0), dvd(L, y, a));
    return rf_cx_make(re, im);
}

rf_cx rf_cx_sigmoid(rf_lowering *L, rf_cx z) {
    rf_cx e = rf_cx_exp(L, rf_cx_scale(L, z, rf_num(-1.0)));
    e.re = add(L, e.re, rf_num(1.0));
    return rf_cx_reciprocal(L, e);
}
