/* truncate_double: no float64 left in a lowered graph. */
#ifndef REALIFY_NARROW_H
#define REALIFY_NARROW_H

#include "ir/ir.h"

/* Rewrites g in place (a graph the lowering just built, before cleanup): every
 * float64 value, constant and dtype argument becomes float32. The caller's real
 * float64 inputs, parameters and buffers get the mark !f64 (the adapters cast
 * them on the way in; the driver marks float64 outputs, cast back on the way
 * out).
 * Casts that become float32 -> float32 are forwarded to their source. RF_OK, or
 * RF_ERR_UNSUPPORTED with *bad the node (view.dtype of float64 bits), or
 * RF_ERR_NOMEM. */
rf_status rf_narrow_double(rf_graph *g, const rf_node **bad);

#endif
