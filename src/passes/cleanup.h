/* Peepholes and dead-node removal on a freshly lowered graph. */
#ifndef REALIFY_CLEANUP_H
#define REALIFY_CLEANUP_H

#include "ir/ir.h"

/* Rewrites g in place (g must be a graph the lowering just built). */
void rf_cleanup(rf_graph *g);
/* Whether an op may be dropped when nothing uses its outputs. */
int rf_op_is_pure(const char *op);

#endif
