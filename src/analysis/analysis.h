/* Detection of complex values, shared by the analysis API and the driver. */
#ifndef REALIFY_ANALYSIS_H
#define REALIFY_ANALYSIS_H

#include "ir/ir.h"

/* The node has a complex output, a complex operand, a complex dtype argument
 * or a complex scalar: it needs a rule. */
int rf_node_touches_complex(const rf_node *n);

#endif
