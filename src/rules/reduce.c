/* Reductions that are real-linear: sum and mean reduce each part alone. */
#include "rules.h"

const rf_rule_entry rf_rules_reduce[] = {
    {"aten.sum.default", rf_lower_componentwise},
    {"aten.sum.dim_IntList", rf_lower_componentwise},
    {"aten.mean.default", rf_lower_componentwise},
    {"aten.mean.dim", rf_lower_componentwise},
    {"aten.cumsum.default", rf_lower_componentwise},
    {NULL, NULL},
};
