/* Target legality by provenance: realify judges only what it wrote. A node the driver copied unchanged from the
 * input graph (node->copied) is the user's own op, whatever its op or name: SDPA, layer norms, collectives, custom
 * and higher-order ops pass through. Every other node must be in the declared op set (src/lower/opset.c) and, when
 * the options name a target, accepted by it. */
#include <stdio.h>
#include <string.h>

#include "lower/lower_internal.h"
#include "lower/opset.h"

/* Python's operators (symbolic-size arithmetic, getitem): plain Python that every target runs. */
static int is_python_op(const char *op) { return strncmp(op, "py:", 3) == 0; }

void rf_check_emitted_ops(rf_lowering *L) {
    const rf_graph *g = L->out;
    for (size_t i = 0; i < g->nnodes && !L->failed; i++) {
        const rf_node *n = g->nodes[i];
        if (n->copied || is_python_op(n->op)) continue;
        const rf_opset_entry *e = rf_opset_find(n->op);
        if (e && (!L->opt.target || (e->targets & L->opt.target))) continue;
        /* the input node it was lowered from gives the user's source line; the error names the emitted op */
        rf_fail(L, n->origin, RF_ERR_TARGET, "%s emitted by the rule for %s is %s", n->op,
                n->origin ? n->origin->op : "a cleanup pass",
                e ? "outside the target's op set" : "outside the declared op set");
        if (L->err) {
            snprintf(L->err->op, sizeof L->err->op, "%s", n->op);
            snprintf(L->err->node, sizeof L->err->node, "%s", n->nouts ? n->outs[0]->name : "");
        }
    }
}
