/* Real functions for graph runtimes (targets onnx and openvino) whose ONNX forms lose torch's special values.
 *
 * maximum/minimum: ONNX leaves Max and Min of a NaN undefined, and OpenVINO 2026.4 returns the second operand when
 * the first is NaN (Max(nan, 1) is 1), so a NaN is made to win explicitly.
 * atan2: torch.onnx exports aten.atan2 as Atan(y / x) with quadrant fixes that give atan2(+0, -0) = 0 instead of
 * pi and atan2(nan, 0) = 0 instead of nan (ONNX Runtime and OpenVINO alike), the signs at log's and angle's branch
 * cut. Here it is built from Atan on [0, 1] with octant reflections and the signs read from signbits. */
#include <math.h>

#include "lower/realops.h"

static const double PI = 3.14159265358979323846;

/* max or min as the runtime computes it, then NaN where either operand is NaN (a + b is NaN there). */
rf_rv rf_b_nan_sticky_extremum(rf_lowering *L, const char *op, rf_rv x, rf_rv y) {
    rf_dtype dt = x.v ? x.v->dtype : y.v ? y.v->dtype : RF_DT_F64;
    rf_rv a = rf_val(rf_b_tensor_of(L, x, dt)), b = rf_val(rf_b_tensor_of(L, y, dt));
    /* one op per statement: the emitted order must not depend on the compiler's argument order */
    rf_value *a_nan = rf_b_isnan(L, a);
    rf_value *nan = rf_b_or(L, a_nan, rf_b_isnan(L, b));
    rf_rv m = rf_b_fn2_node(L, op, a, b);
    return rf_b_where(L, nan, rf_b_add(L, a, b), m);
}

/* 1.0 where x's sign bit is set, else 0.0. */
static rf_rv sign_bit(rf_lowering *L, rf_value *x) { return rf_val(rf_b_cast(L, rf_b_signbit(L, x), x->dtype)); }

rf_rv rf_b_graph_atan2(rf_lowering *L, rf_rv y, rf_rv x) {
    rf_dtype dt = y.v ? y.v->dtype : x.v ? x.v->dtype : RF_DT_F64;
    rf_value *yv = rf_b_tensor_of(L, y, dt), *xv = rf_b_tensor_of(L, x, dt);
    rf_rv ax = rf_b_abs(L, rf_val(xv));
    rf_rv ay = rf_b_abs(L, rf_val(yv));
    /* t = min/max of the magnitudes, by a where on ay > ax so a NaN stays in (as num or den) */
    rf_value *swap = rf_b_cmp(L, "gt", ay, ax);
    rf_rv num = rf_b_where(L, swap, ax, ay);
    rf_rv den = rf_b_where(L, swap, ay, ax);
    rf_value *den_zero = rf_b_cmp(L, "eq", den, rf_num(0.0)); /* then num is 0 too: t = 0 / 1 */
    rf_rv den1 = rf_b_add(L, den, rf_val(rf_b_cast(L, den_zero, dt)));
    rf_rv t = rf_b_div(L, num, den1);
    rf_value *num_inf = rf_b_cmp(L, "eq", num, rf_num(INFINITY));
    rf_value *both_inf = rf_b_and(L, num_inf, rf_b_cmp(L, "eq", den, rf_num(INFINITY)));
    t = rf_b_where(L, both_inf, rf_num(1.0), t);
    rf_rv r = rf_val(rf_b_unary(L, "aten.atan.default", rf_b_materialize(L, t, xv))); /* [0, pi/4], or NaN */
    /* reflections as r + s * (c - 2r), s 0 or 1: exact when s is 0, c - r rounded once more when 1 */
    rf_rv s = rf_val(rf_b_cast(L, swap, dt));
    r = rf_b_add(L, r, rf_b_mul(L, s, rf_b_sub(L, rf_num(PI / 2), rf_b_mul(L, r, rf_num(2.0)))));
    rf_rv nx = sign_bit(L, xv);
    r = rf_b_add(L, r, rf_b_mul(L, nx, rf_b_sub(L, rf_num(PI), rf_b_mul(L, r, rf_num(2.0)))));
    /* r >= 0: the sign of y by a multiply by +-1, so a zero r takes y's zero sign */
    rf_rv sign = rf_b_sub(L, rf_num(1.0), rf_b_mul(L, sign_bit(L, yv), rf_num(2.0)));
    return rf_b_mul(L, r, sign);
}
