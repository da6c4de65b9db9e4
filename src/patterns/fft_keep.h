/* The FFT patterns' analyses, internal to src/patterns/: which outputs of a forward transform are read
 * (fft_prune.c, pattern fft.prune), and which blocks of an inverse transform's input are not known zeros
 * (fft_writes.c; fft_sparse.c, pattern fft.sparse; fft_blocks.c, pattern fft.blocks). Each pattern reads its
 * node through src/fft/call.h and runs the transform there with the keep plan made here. */
#ifndef REALIFY_PATTERNS_FFT_KEEP_H
#define REALIFY_PATTERNS_FFT_KEEP_H

#include "fft/call.h"

/* ---- forward side (fft_prune.c) ---- */

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
/* dim (in [0, rank)), start and end (as given: torch's defaults 0 and INT64_MAX when absent) of a step-1
 * slice or slice_scatter node; 0 when it is not one or a value is symbolic. */
int rf_fft_step1_slice(const rf_node *n, int rank, int64_t *dim, int64_t *start, int64_t *end);
/* A new [lo | hi] block of 2 rank ints (freed with free), NULL when out of memory. */
int64_t *rf_fft_box(const int64_t *lo, const int64_t *hi, int rank);
/* start and end normalised into [0, size] as torch normalises a slice's bounds. */
void rf_fft_clamp_slice(int64_t size, int64_t *start, int64_t *end);
/* The kept entries of one transformed dim from the mask used[0..m) of those read or written (the sparse inverse
 * uses it too): when pruning a transform of length n to them is worth it (rf_fft_prune_worth), their indices into
 * *keep, each entry's position among them (-1: not kept) into *pos, and 1; 0 when not worth it; -1 when out of
 * memory. */
int rf_fft_keep_from_mask(const unsigned char *used, int64_t m, int64_t n, rf_fft_keep *keep, int64_t **pos);

/* ---- the blocks of a tensor built from zeros (fft_writes.c) ---- */

typedef struct rf_fft_write {
    const rf_value *src; /* the block's values */
    int64_t *lo, *hi;    /* its box in the described tensor; hi -1: a whole symbolic dim */
} rf_fft_write;

typedef struct rf_fft_writes {
    size_t n, cap;
    rf_fft_write *w;
} rf_fft_writes;

/* The blocks of v over a zero background, in write order, appended to out: 1, or 0 when v's producers are
 * followed no further (budget: the producers left to visit; chains may share values). A value not built from
 * zeros is one block, itself. */
int rf_fft_describe(const rf_value *v, int *budget, rf_fft_writes *out);
int rf_fft_writes_push(rf_fft_writes *l, const rf_value *src, const int64_t *lo, const int64_t *hi, int rank);
void rf_fft_writes_free(rf_fft_writes *l);

/* ---- inverse side, DFT matmuls (fft_sparse.c) ---- */

typedef struct rf_fft_sparse {
    size_t nd;
    int rank;
    int64_t dims[RF_MAX_RANK], lens[RF_MAX_RANK];
    rf_fft_keep keep[RF_MAX_RANK]; /* per transformed dim; k == 0: all lens[i] read */
    int64_t *pos[RF_MAX_RANK];
    size_t nw;
    rf_fft_write *w; /* the nonzero blocks, disjoint */
} rf_fft_sparse;

/* Plans reading only the nonzero blocks of `x`, the input of node n's
 * transform over dims, when x is built from a zeros tensor by slice_scatter
 * (and the slices and copies functionalization makes of slice assignment).
 * lens[i]: the frequencies the transform reads along dims[i]; outs[i]: its
 * output length there. 1 and p filled when some dim is worth pruning. */
int rf_fft_sparse_plan(const rf_value *x, const int64_t *dims, const int64_t *lens, const int64_t *outs, size_t nd,
                       rf_fft_sparse *p);
/* The compact input: the blocks at their positions among the kept
 * frequencies, zeros between. */
rf_cx rf_fft_sparse_input(rf_lowering *L, const rf_fft_sparse *p, rf_dtype dt);
void rf_fft_sparse_free(rf_fft_sparse *p);

/* ---- inverse side, operator strategies (fft_blocks.c) ---- */

/* For the operator strategies, which transform the whole input: x (read by
 * node n alone, static shape), built from a zeros tensor by writing disjoint
 * blocks in, rebuilt as cat and zero pads of the packed blocks. 1 and *out
 * set when x is such a value of two or more blocks; 0 otherwise. scale (may
 * be NULL): the factor the caller applies to the transform's output; when it
 * is a power of two the spectrum is scaled instead, in the kernel that builds
 * it, and *scale becomes 1. */
int rf_fft_sparse_dense(rf_lowering *L, const rf_node *n, const rf_value *x, rf_dtype dt, double *scale,
                        rf_cx *out);

#endif
