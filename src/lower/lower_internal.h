/* State of one lowering run, shared by the driver and the builder. */
#ifndef REALIFY_LOWER_INTERNAL_H
#define REALIFY_LOWER_INTERNAL_H

#include "lower/lower.h"

/* What the new graph holds for one complex value of the input graph. */
typedef struct cx_state {
    rf_value *re, *im; /* parts, or NULL until derived from `packed` */
    rf_value *packed;  /* interleaved [..., 2] form, or NULL until needed */
    int im_zero;       /* the imaginary part is exactly zero (im is NULL) */
    int unread;        /* read by fused nodes only: it has no lowering (rf_set_unread) */
} cx_state;

struct rf_lowering {
    const rf_graph *in;
    rf_graph *out;
    rf_lower_options opt;
    rf_value **real_map; /* input value id -> new value, for real values */
    cx_state *cx_map;    /* input value id -> lowering, for complex values */
    rf_error *err;
    int failed;
    rf_status status;
    const rf_node *cur; /* the node being lowered, for names and errors */
    const char *name_hint; /* overrides cur's name for new values when set */
    rf_value *poison;      /* what failed operand reads return (see rf_status_of) */
    unsigned char *fused;  /* input node index -> lowered by an earlier node's rule (rf_fuse_node) */
    unsigned char *real_unread; /* input value id -> a real value read by fused nodes only (rf_set_unread) */
};

/* Fails the lowering on the first node it emitted (not copied from the input) that the declared op set, or the
 * target named by the options, does not accept (src/lower/legality.c). */
void rf_check_emitted_ops(rf_lowering *L);

#endif
