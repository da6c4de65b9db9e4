/* Argument helpers shared by the torch.fft rules (fft_ops.c) and the stft and
 * istft rules (fft_stft.c): one copy, so both files read arguments alike. */
#ifndef REALIFY_FFT_OPS_INTERNAL_H
#define REALIFY_FFT_OPS_INTERNAL_H

#include "fft/engine.h"
#include "rules/rules.h"

static inline rf_cpair rf_fftop_cp(rf_value *re, rf_value *im) { return (rf_cpair){re, im}; }

/* An int argument: 1 and *out when given, 0 when absent or none, -1 otherwise (symbolic). */
int rf_fftop_opt_int(const rf_node *n, const char *name, int64_t *out);
/* A bool (or int) argument, dflt when absent or of another kind. */
int rf_fftop_opt_bool(const rf_node *n, const char *name, int dflt);

/* Short names both files use (this header is theirs alone). */
#define a_int rf_fft_a_int
#define a_float rf_fft_a_float
#define a_str rf_fft_a_str
#define a_ints rf_fft_a_ints
#define cp rf_fftop_cp
#define opt_int rf_fftop_opt_int
#define opt_bool rf_fftop_opt_bool

typedef rf_cpair cpair;

#endif
