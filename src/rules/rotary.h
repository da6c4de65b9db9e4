/* RoPE as one realify.rotary_embedding op (see rotary.c). */
#ifndef REALIFY_ROTARY_H
#define REALIFY_ROTARY_H

#include "lower/lower.h"

/* 1 when n was lowered as a rotary op (only with the rotary_op option), else 0
 * and nothing was built: the caller lowers n as usual. */
int rf_lower_rotary(rf_lowering *L, const rf_node *n);

#endif
