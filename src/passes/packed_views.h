/* The packed-view rewrite (packed_views.c): two parts that are the same chain of views of one packed value's parts
 * pack to that chain on the packed value. */
#ifndef REALIFY_PACKED_VIEWS_H
#define REALIFY_PACKED_VIEWS_H

#include "ir/ir.h"

/* The packed [..., 2] value whose parts are re and im, when both are the same chain V of view ops (slice, permute,
 * reshape, ...) of select(p, -1, 0) and select(p, -1, 1), p's last dim a static 2: p itself when V is empty, else
 * V replayed on p with the pair carried along, appended to g (values named after `hint`, nodes with `origin`).
 * NULL otherwise; a chain that cannot be replayed to its end leaves the steps already appended for cleanup. The
 * builder asks before it stacks two parts (rf_b_stack2), so the stack is never made. */
rf_value *rf_fold_packed_views(rf_graph *g, rf_value *re, rf_value *im, const char *hint, const rf_node *origin);

#endif
