/* Which outputs of a forward transform are read (fft_prune.c): the analysis
 * behind pruned transforms, shared by the rules of fft_aten.c and fft_ops.c. */
#ifndef REALIFY_RULES_FFT_PRUNE_H
#define REALIFY_RULES_FFT_PRUNE_H

#include "fft/engine.h"

typedef struct prune_slice prune_slice;

typedef struct rf_fft_prune {
    size_t nd;
    rf_fft_keep keep[RF_MAX_RANK]; /* per transformed dim; k == 0: all kept */
    int64_t *pos[RF_MAX_RANK];     /* original index -> position among the kept, per pruned dim */
    int64_t dims[RF_MAX_RANK];
    size_t nslices, cap;
    prune_slice *slices; /* the slice nodes the transform's result feeds, directly or in chains */
} rf_fft_prune;

/* Plans pruning for the transform of node n over dims (signal sizes `sizes`;
 * with `onesided` the last dim keeps sizes/2+1 outputs): 1 when every reader
 * of n's result is a slice with step 1 (or a chain of them) and some dim is
 * worth pruning, then p holds the kept outputs per dim; 0 otherwise (p needs
 * no freeing). */
int rf_fft_prune_plan(rf_lowering *L, const rf_node *n, const int64_t *dims, const int64_t *sizes, size_t nd,
                      int onesided, rf_fft_prune *p);
/* Publishes the results of the slices from y, the pruned transform of n (the
 * kept outputs), fuses them into n, and frees p. */
void rf_fft_prune_publish(rf_lowering *L, const rf_node *n, rf_fft_prune *p, rf_cx y);
void rf_fft_prune_free(rf_fft_prune *p);

#endif
