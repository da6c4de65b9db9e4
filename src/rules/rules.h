/* Rule families. Each file exports a NULL-terminated table of rows
 * {op, rule, flags}; table.c merges them into one sorted index. */
#ifndef REALIFY_RULES_H
#define REALIFY_RULES_H

#include "lower/lower.h"

extern const rf_rule_entry rf_rules_arith[];
extern const rf_rule_entry rf_rules_compare[];
extern const rf_rule_entry rf_rules_composite[];      /* products torch.export keeps: linear, tensordot, ... */
extern const rf_rule_entry rf_rules_composite_conv[]; /* convolutions torch.export keeps */
extern const rf_rule_entry rf_rules_construct[];
extern const rf_rule_entry rf_rules_convert[];
extern const rf_rule_entry rf_rules_creation[];
extern const rf_rule_entry rf_rules_factory[];
extern const rf_rule_entry rf_rules_fft_aten[];
extern const rf_rule_entry rf_rules_fft_ops[];
extern const rf_rule_entry rf_rules_fft_stft[];
extern const rf_rule_entry rf_rules_grad[]; /* gradients of elementwise functions */
extern const rf_rule_entry rf_rules_linalg[];
extern const rf_rule_entry rf_rules_linalg_spectral[]; /* linalg spectral family */
extern const rf_rule_entry rf_rules_movement[];
extern const rf_rule_entry rf_rules_overlap_add[];
extern const rf_rule_entry rf_rules_padding[];
extern const rf_rule_entry rf_rules_power[];
extern const rf_rule_entry rf_rules_products[];
extern const rf_rule_entry rf_rules_einsum[];
extern const rf_rule_entry rf_rules_reduce[];
extern const rf_rule_entry rf_rules_shape[];
extern const rf_rule_entry rf_rules_unary[];
extern const rf_rule_entry rf_rules_views[]; /* as_strided, unfold, in-place views */
extern const rf_rule_entry rf_rules_linalg_solve[]; /* linalg solve family */
extern const rf_rule_entry rf_rules_linalg_export[]; /* linalg solve family, torch.export forms */

/* as_strided over the storage of a complex graph input or constant (marked `storage`:
 * the [..., 2] view of its whole storage): of the node's `self`, or of `base`, an
 * input that `self` is a view of. */
rf_status rf_lower_as_strided_of_input(rf_lowering *L, const rf_node *n);
rf_status rf_lower_as_strided_on(rf_lowering *L, const rf_node *n, const rf_value *base);

#endif
