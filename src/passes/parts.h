/* Delegate-friendly part reads for targets whose accelerator delegate has no
 * select (ExecuTorch's XNNPACK). */
#ifndef REALIFY_PARTS_H
#define REALIFY_PARTS_H

#include "ir/ir.h"

/* Rewrites g in place (a lowered, cleaned-up graph): each select(x, dim, k) of
 * a dim of static size 2 (reading one part of a packed or planar value) with a
 * static result becomes slice(x, dim, k, k + 1) and a view to the result's
 * shape: the same values, from ops XNNPACK takes, so a select_copy no longer
 * splits the delegated region. Returns 0, or -1 when out of memory (g is then
 * unchanged). */
int rf_parts_as_slices(rf_graph *g);

#endif
