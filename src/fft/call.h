/* An FFT op read as one transform (call.c): the entry the FFT rules (src/rules/fft_ops.c, fft_aten.c) lower
 * through, and the one the FFT patterns (src/patterns/fft_*.c) share. Reading an op gives its transform, dims,
 * sizes and scale; running one takes an optional keep plan: the outputs a pruned forward transform computes, or
 * the input frequencies a sparse inverse reads. The rules pass no plan; only the patterns make one. */
#ifndef REALIFY_FFT_CALL_H
#define REALIFY_FFT_CALL_H

#include "fft/engine.h"

typedef enum {
    RF_FFT_C2C,  /* fft, ifft (any dims), _fft_c2c */
    RF_FFT_R2C,  /* rfft, _fft_r2c */
    RF_FFT_C2R,  /* irfft, _fft_c2r */
    RF_FFT_HFFT, /* hfft, ihfft: two stages, composed by their rule */
    RF_FFT_IHFFT,
} rf_fft_form;

/* torch.fft's norm argument. */
typedef enum { RF_FFT_NORM_BACKWARD, RF_FFT_NORM_FORWARD, RF_FFT_NORM_ORTHO } rf_fft_norm;

typedef struct rf_fft_call {
    rf_fft_form form;
    const rf_value *self; /* the input */
    rf_dtype dt;          /* the real dtype of the parts */
    size_t nd;
    int64_t dims[RF_MAX_RANK];  /* normalised, unique, static in self */
    int64_t shape[RF_MAX_RANK]; /* the lengths the transform reads along dims (C2R, HFFT: of the half spectrum) */
    int64_t lds;                /* C2R, HFFT: the real output length along the last dim */
    int sign;                   /* C2C: -1 forward, +1 backward */
    int onesided;               /* R2C: the last dim keeps shape/2+1 outputs */
    int resize;                 /* self is cut or zero-padded to shape first (torch.fft's forms; aten's: never) */
    double scale;               /* the norm's factor on the result (C2C, R2C, C2R) */
    rf_fft_norm norm;           /* torch.fft's forms: for the two scales of HFFT and IHFFT */
} rf_fft_call;

/* Reads n, one of the FFT ops (aten.fft_{fft,ifft,rfft,irfft,hfft,ihfft}{,2,n} or aten._fft_{c2c,r2c,c2r}), into
 * c. RF_OK, or the failure of a bad argument: reported on L, or with `quiet` (a pattern probing) only returned. */
rf_status rf_fft_call_read(rf_lowering *L, const rf_node *n, int quiet, rf_fft_call *c);

/* An int or int-list argument: 1 and out[0..*count) when given, 0 when absent or none, -1 when it holds
 * something else (a symbolic size). */
int rf_fft_opt_ints(const rf_node *n, const char *name, int64_t *out, size_t *count);
/* d normalised into [0, rank) as *out; 0 when out of range. */
int rf_fft_norm_dim(int64_t d, int rank, int64_t *out);

/* torch's _apply_norm: the scale of a transform over numel points in direction `forward`. */
double rf_fft_norm_scale(rf_fft_norm m, double numel, int forward);

/* Whether self already has the shape the transform reads along every dim (no resize). */
int rf_fft_call_same_sizes(const rf_fft_call *c);

/* n's input as c reads it, in c's dtype, resized where c says: a pair for C2C, C2R and HFFT, a real value (.re)
 * for R2C and IHFFT. A missing part: the read failed. */
rf_cx rf_fft_call_input(rf_lowering *L, const rf_node *n, const rf_fft_call *c);

/* c's transform (C2C, R2C or C2R) of x times scale. `outputs` (C2C, R2C; NULL: all): per dim the outputs
 * computed, as the pruned transforms of engine.h take them. `inputs` (C2C, C2R; NULL: all): x holds only those
 * frequencies per dim, as the sparse transforms take them. A C2R result is real (.re alone). */
rf_cx rf_fft_call_run(rf_fft_ctx *f, const rf_fft_call *c, rf_cx x, const rf_fft_keep *outputs,
                      const rf_fft_keep *inputs, double scale);

/* Publishes y, c's result, as n's; the failure of an incomplete build otherwise. */
rf_status rf_fft_call_publish(rf_fft_ctx *f, const rf_node *n, const rf_fft_call *c, rf_cx y);

/* The plain lowering of a C2C, R2C or C2R: every input read, every output computed. */
rf_status rf_fft_call_lower(rf_lowering *L, const rf_node *n, const rf_fft_call *c);

#endif
