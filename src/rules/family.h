/* Family helpers: each lowers a whole family of ops the same way, so a rule
 * of that family is one table entry. */
#ifndef REALIFY_RULES_FAMILY_H
#define REALIFY_RULES_FAMILY_H

#include "lower/lower.h"

/* Componentwise (see rf_lower_componentwise), where the arguments named in
 * `fills` (NULL-terminated, may be NULL) carry values into the result: a
 * complex scalar gives its real part to the real copy and its imaginary part
 * to the imaginary copy; a real scalar or a real tensor gives zeros to the
 * imaginary copy. Other real tensors (indices, masks) go to both copies. */
rf_status rf_lower_componentwise_fill(rf_lowering *L, const rf_node *n, const char *const *fills);

/* A unary complex function of `self` with a complex result; `dt` is the
 * component dtype the result is computed in. */
typedef rf_cx (*rf_cx_unary_fn)(rf_lowering *L, rf_cx z, rf_dtype dt);
typedef rf_cx (*rf_cx_unary_plain_fn)(rf_lowering *L, rf_cx z);
rf_status rf_lower_unary_cx(rf_lowering *L, const rf_node *n, rf_cx_unary_fn fn);
/* The same for functions that do not depend on the working dtype. */
rf_status rf_lower_unary_cx_plain(rf_lowering *L, const rf_node *n, rf_cx_unary_plain_fn fn);

/* A binary complex function of `a_name` and `b_name`, both read in the working dtype, with a complex result. */
typedef rf_cx (*rf_cx_binary_fn)(rf_lowering *L, rf_cx a, rf_cx b);
rf_status rf_lower_binary_cx(rf_lowering *L, const rf_node *n, const char *a_name, const char *b_name,
                             rf_cx_binary_fn fn);
/* r as the node's (first) result, once nothing has failed. */
rf_status rf_publish_cx(rf_lowering *L, const rf_node *n, rf_cx r);

/* z != 0 as a bool tensor: either part nonzero (NaN counts as nonzero). */
rf_value *rf_cx_nonzero(rf_lowering *L, rf_cx z);
/* The node applied to the truth values (z != 0) of its complex operands, for
 * ops whose result depends only on them (any, all, nonzero, logical_*). */
rf_status rf_lower_on_truth(rf_lowering *L, const rf_node *n);

/* The complex operand of a tensor argument, in its own component dtype. */
rf_cx rf_in_cx_own(rf_lowering *L, const rf_node *n, const char *name);

#endif
