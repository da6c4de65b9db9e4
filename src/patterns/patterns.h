/* Patterns: recognisers of multi-op shapes that the driver tries before the per-op rule.
 *
 * A rule says what one op means; a pattern says how a shape of several ops (Llama's RoPE, an FFT read only
 * through slices, an inverse FFT of blocks written into zeros) is better lowered for some receiver. Each pattern
 * is a row of the table in registry.c: a name (its switch in rf_lower_options.patterns and its line in the
 * lowering report), the ops it starts from, whether it is on by default, and a function with the contract of a
 * rule that may decline: 1 when it lowered n (publishing n's results, and fusing the later nodes it took over), 0
 * when n is not its shape. A pattern that declines may have read operands (which only caches their parts) but
 * publishes nothing; n then goes to the next pattern and at last to its rule.
 *
 * A new pattern touches this folder and its tests only: its function in a file here, its declaration below, its
 * row in registry.c. An FFT pattern reads its node with rf_fft_call_read (quiet) and lowers through
 * rf_fft_call_run with its keep plan (src/fft/call.h), as fft_prune.c does; the FFT rules are left as they are.
 * docs/architecture.md ("Patterns") walks through adding one. */
#ifndef REALIFY_PATTERNS_H
#define REALIFY_PATTERNS_H

#include "lower/lower.h"

typedef int (*rf_pattern_fn)(rf_lowering *L, const rf_node *n);

typedef struct rf_pattern {
    const char *name;
    const char *const *ops; /* the ops of the nodes the pattern starts from, NULL-terminated */
    int on_by_default;
    rf_pattern_fn fn;
    const char *doc;
} rf_pattern;

/* Whether the options of this run turn the pattern `name` on. */
int rf_pattern_enabled(const rf_lowering *L, const char *name);

/* rope.c */
int rf_pattern_rope_op(rf_lowering *L, const rf_node *n);
int rf_pattern_rope_graph(rf_lowering *L, const rf_node *n);
/* rope_words.c */
int rf_pattern_rope_words(rf_lowering *L, const rf_node *n);
/* fft_prune.c, fft_sparse.c, fft_blocks.c (their analyses: fft_keep.h) */
int rf_pattern_fft_prune(rf_lowering *L, const rf_node *n);
int rf_pattern_fft_sparse(rf_lowering *L, const rf_node *n);
int rf_pattern_fft_blocks(rf_lowering *L, const rf_node *n);
/* fft_conv.c */
int rf_pattern_fft_long_conv(rf_lowering *L, const rf_node *n);
int rf_pattern_fft_crop(rf_lowering *L, const rf_node *n);
/* fft_shift.c */
int rf_pattern_fft_shift(rf_lowering *L, const rf_node *n);
/* abs_square.c */
int rf_pattern_abs_square(rf_lowering *L, const rf_node *n);
/* exp_imag.c */
int rf_pattern_exp_imag(rf_lowering *L, const rf_node *n);
/* mul_sum.c */
int rf_pattern_mul_sum(rf_lowering *L, const rf_node *n);

#endif
