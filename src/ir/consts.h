/* Constants of a graph made from numbers (consts.c). */
#ifndef REALIFY_IR_CONSTS_H
#define REALIFY_IR_CONSTS_H

#include "ir/ir.h"

/* A constant of g with static shape dims holding data (numel doubles) encoded in dt (a real dtype: floats rounded
 * to nearest even, bool as != 0, ints truncated), named from hint; an equal constant already in g is reused. NULL
 * with *why RF_ERR_INVALID for a complex or unknown dtype or a negative rank, RF_ERR_NOMEM out of memory. */
rf_value *rf_graph_const_data(rf_graph *g, const char *hint, rf_dtype dt, int rank, const int64_t *dims,
                              const double *data, rf_status *why);

#endif
