/* Graph queries about who reads a value, shared by the patterns that follow a value to its next op. */
#include <string.h>

#include "ir/ir.h"

const rf_node *rf_sole_reader(const rf_graph *g, const rf_value *v, const char *through) {
    for (size_t i = 0; i < g->noutputs; i++)
        if (rf_attr_refs(&g->outputs[i], v)) return NULL;
    const rf_node *found = NULL;
    /* a verified graph defines v before any use: no node up to its producer can read it */
    for (size_t i = v->producer ? v->producer->index + 1 : 0; i < g->nnodes; i++) {
        const rf_node *u = g->nodes[i];
        for (size_t k = 0; k < u->nargs; k++) {
            if (!rf_attr_refs(&u->args[k].attr, v)) continue;
            if (through && (found || strcmp(u->args[k].name, through) != 0)) return NULL;
            if (found && found != u) return NULL;
            found = u;
        }
    }
    return found;
}
