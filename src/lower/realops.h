/* Real-op builders beyond lower.h: selection, comparisons, logic, predicates
 * and a few structural ops, with broadcasting shapes. Scalars (rf_rv with
 * v == NULL) become 0-dim tensors of the other operand's dtype where an op
 * needs a tensor. */
#ifndef REALIFY_REALOPS_H
#define REALIFY_REALOPS_H

#include "lower/lower.h"

/* The largest tensor rank the shape-computing builders and the FFT handle. */
#define RF_MAX_RANK 64

/* A node `op` over named operands, elementwise with broadcasting; the output
 * has dtype `dt` (RF_DT_COUNT: the dtype of the first tensor operand). */
rf_value *rf_b_ew(rf_lowering *L, const char *op, size_t n, const char *const *names, const rf_rv *xs, rf_dtype dt);
/* A 0-dim tensor holding s. */
rf_value *rf_b_scalar_tensor(rf_lowering *L, double s, rf_dtype dt);
/* x as a tensor: x itself, or a 0-dim tensor of dtype dt. */
rf_value *rf_b_tensor_of(rf_lowering *L, rf_rv x, rf_dtype dt);

rf_rv rf_b_where(rf_lowering *L, rf_value *cond, rf_rv x, rf_rv y);
/* Comparisons ("eq", "ne", "lt", "le", "gt", "ge"): a bool tensor. */
rf_value *rf_b_cmp(rf_lowering *L, const char *cmp, rf_rv x, rf_rv y);
rf_value *rf_b_and(rf_lowering *L, rf_value *a, rf_value *b);
rf_value *rf_b_or(rf_lowering *L, rf_value *a, rf_value *b);
rf_value *rf_b_not(rf_lowering *L, rf_value *a);
rf_value *rf_b_isnan(rf_lowering *L, rf_rv x);
rf_value *rf_b_isinf(rf_lowering *L, rf_rv x);
rf_value *rf_b_isfinite(rf_lowering *L, rf_rv x);
/* x's sign bit as a bool tensor: x < 0, or x is -0 (1/-0 is -inf); NaN counts as positive. */
rf_value *rf_b_signbit(rf_lowering *L, rf_value *x);
/* Binary real functions of two operands (atan2, copysign, maximum, ...). */
rf_rv rf_b_fn2(rf_lowering *L, const char *op, rf_rv x, rf_rv y);
/* The node of `op` itself, without rf_b_fn2's portable or graph-runtime forms. */
rf_rv rf_b_fn2_node(rf_lowering *L, const char *op, rf_rv x, rf_rv y);
/* A unary real function; scalars fold only for ops listed in realops.c. */
rf_rv rf_b_fn(rf_lowering *L, const char *op, rf_rv x);
rf_rv rf_b_abs(rf_lowering *L, rf_rv x);
/* sqrt(x^2 + y^2) with torch.hypot's special values, from ops every target has
 * (no aten.hypot); rf_b_fn2 routes "aten.hypot.default" here. */
rf_rv rf_b_hypot(rf_lowering *L, rf_rv x, rf_rv y);
/* copysign(x, y) from comparisons and where (no aten.copysign); a NaN y counts
 * as positive. rf_b_fn2 routes "aten.copysign.Tensor" here. */
rf_rv rf_b_copysign(rf_lowering *L, rf_rv x, rf_rv y);

/* graph_math.c: forms for graph runtimes (targets onnx and openvino), where ONNX's own lose special values. */
/* maximum/minimum (`op`), NaN where either operand is NaN whatever the runtime's Max does with one. */
rf_rv rf_b_nan_sticky_extremum(rf_lowering *L, const char *op, rf_rv x, rf_rv y);
/* atan2(y, x) with torch's values at signed zeros, infinities and NaN, from Atan on [0, 1]. */
rf_rv rf_b_graph_atan2(rf_lowering *L, rf_rv y, rf_rv x);

/* Dtype of a real operand (its tensor's, or `dflt` for a scalar). */
rf_dtype rf_rv_dtype(rf_rv x, rf_dtype dflt);

/* dim of x normalised into *out: 1 when x's rank is known and
 * -(rank + extra) <= dim < rank + extra (extra 1: an inserted dim), else 0
 * with L failed naming `op` (so hostile dims never index past x's shape). */
int rf_b_dim(rf_lowering *L, const rf_value *x, int64_t dim, int extra, const char *op, int64_t *out);

/* Structural ops on one value; a NULL operand, or a dim outside its rank,
 * gives NULL. Negative dims count from the end and are emitted as given. */
rf_value *rf_b_slice(rf_lowering *L, rf_value *x, int64_t dim, int64_t start, int64_t end);
rf_value *rf_b_cat(rf_lowering *L, size_t n, rf_value *const *xs, int64_t dim);
/* constant_pad_nd of dim `dim` by `before` elements in front, `after` behind. */
rf_value *rf_b_pad_dim(rf_lowering *L, rf_value *x, int64_t dim, int64_t before, int64_t after, double value);
/* A reduction `op` (sum.dim_IntList, amax.default, ...) over `dims` with keepdim. */
rf_value *rf_b_reduce(rf_lowering *L, const char *op, rf_value *x, size_t ndims, const int64_t *dims, int keepdim);
/* linalg_vector_norm(x, ord, dims, keepdim) */
rf_value *rf_b_norm(rf_lowering *L, rf_value *x, rf_attr ord, size_t ndims, const int64_t *dims, int keepdim);
rf_value *rf_b_squeeze_dims(rf_lowering *L, rf_value *x, size_t ndims, const int64_t *dims);

/* shapeops.c: views and reorderings with static shapes worked out here. */
/* x itself when `dim` already has `size`, else its first `size` entries
 * (slice) or x followed by zeros (constant_pad_nd); dim must be static. */
rf_value *rf_b_resize(rf_lowering *L, rf_value *x, int64_t dim, int64_t size);
/* Overlap-add along dim of x [..., F, W, ...] (F frames of W samples at dim, dim + 1, static): frame f adds into
 * samples f*step .. f*step+W-1 of the result [..., len, ...] (cut or zero-padded to len), with pads, views, a slice
 * and a sum that every target loads (rules: istft, unfold_backward). NULL with L failed when the sizes are not static. */
rf_value *rf_b_overlap_add(rf_lowering *L, rf_value *x, int64_t dim, int64_t step, int64_t len);
rf_value *rf_b_transpose(rf_lowering *L, rf_value *x, int64_t d0, int64_t d1); /* x itself when d0 == d1 */
/* x.permute(perm) (perm a permutation of x's dims, non-negative); x itself for the identity */
rf_value *rf_b_permute(rf_lowering *L, rf_value *x, size_t n, const int64_t *perm);
rf_value *rf_b_flip(rf_lowering *L, rf_value *x, int64_t dim);
rf_value *rf_b_unsqueeze(rf_lowering *L, rf_value *x, int64_t dim);
rf_value *rf_b_squeeze(rf_lowering *L, rf_value *x, int64_t dim); /* squeeze.dim */
/* dim -> n dims of the given sizes (unflatten.int) */
rf_value *rf_b_unflatten(rf_lowering *L, rf_value *x, int64_t dim, size_t n, const int64_t *sizes);
/* dims start..end -> one dim (flatten.using_ints) */
rf_value *rf_b_flatten(rf_lowering *L, rf_value *x, int64_t start, int64_t end);
/* a @ b as torch.matmul: batch dims broadcast, a 1-D operand a vector */
rf_value *rf_b_matmul(rf_lowering *L, rf_value *a, rf_value *b);
/* x's entries along dim at the 1-D integer tensor `index` */
rf_value *rf_b_index_select(rf_lowering *L, rf_value *x, int64_t dim, rf_value *index);

/* An int argument: 1 and *out when given, 0 when absent or none, -1 otherwise (symbolic). */
int rf_opt_int(const rf_node *n, const char *name, int64_t *out);
/* A bool (or int) argument; dflt when absent or of another kind. */
int rf_opt_bool(const rf_node *n, const char *name, int dflt);
/* Integer list of an argument (a list of ints, or one int); -1 if absent or
 * not static. At most `cap` entries are written. */
int rf_int_list(const rf_attr *a, int64_t *out, int cap);
/* Normalised dims of argument `name` for a value of rank `rank`: all dims
 * when the argument is absent, none or empty. Returns the count, -1 if not static. */
int rf_reduce_dims(const rf_node *n, const char *name, int rank, int64_t *out);
/* Number of elements of v, or -1 when a dim is symbolic or the rank unknown. */
int64_t rf_numel(const rf_value *v);

#endif
