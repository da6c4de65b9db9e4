/* A scalar factor folded into the constant matrix of a product (scale_fold.c). */
#ifndef REALIFY_PASSES_SCALE_FOLD_H
#define REALIFY_PASSES_SCALE_FOLD_H

#include "ir/ir.h"

/* x * s, where x (in g) is a matmul, mm or bmm with a static f32 or f64 constant operand and nothing else reads x:
 * the same product against that constant scaled by s (a new constant "<name>_scaled"), appended to g as a node
 * named from hint with provenance origin. NULL when x is no such product (*why RF_OK) or out of memory (*why
 * RF_ERR_NOMEM); the caller then multiplies. */
rf_value *rf_fold_scale(rf_graph *g, rf_value *x, double s, const char *hint, const rf_node *origin,
                        rf_status *why);

#endif
