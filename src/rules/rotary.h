/* RoPE as one realify.rotary_embedding op (see rotary.c). */
#ifndef REALIFY_ROTARY_H
#define REALIFY_ROTARY_H

#include "lower/lower.h"

/* 1 when n was lowered as a rotary op (only with the rotary_op option), else 0
 * and nothing was built: the caller lowers n as usual. */
int rf_lower_rotary(rf_lowering *L, const rf_node *n);
/* The same contract for bfloat16 RoPE read and written as 32-bit words (the pair_words option, rotary_words.c). */
int rf_lower_rotary_words(rf_lowering *L, const rf_node *n);

#endif
