/* Argument helpers shared by the torch.fft rules (fft_ops.c) and the stft and
 * istft rules (fft_stft.c): one copy, so both files read arguments alike. */
#ifndef REALIFY_FFT_OPS_INTERNAL_H
#define REALIFY_FFT_OPS_INTERNAL_H

#include "fft_internal.h"

static inline rf_cpair rf_fftop_cp(rf_value *re, rf_value *im) { return (rf_cpair){re, im}; }

/* An int argument: 1 and *out when given, 0 when absent or none, -1 otherwise (symbolic). */
int rf_fftop_opt_int(const rf_node *n, const char *name, int64_t *out);
/* A bool (or int) argument, dflt when absent or of another kind. */
int rf_fftop_opt_bool(const rf_node *n, const char *name, int dflt);

#endif
