/* Planar boundaries: complex inputs and constants read only as parts. */
#ifndef REALIFY_PLANAR_H
#define REALIFY_PLANAR_H

#include "ir/ir.h"

/* Rewrites g in place (a graph the lowering just built and cleaned up): each
 * packed input or constant allowed by `flags` (RF_PLANAR_*) whose every use is
 * select(dim=-1, index=0|1) becomes [2, ...] with those selects on dim 0. */
void rf_planar_boundaries(rf_graph *g, unsigned flags);

#endif
