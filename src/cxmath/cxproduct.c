/* The complex product over a real bilinear op (mm, dot, a node's own op): four real products of the parts,
 * fewer where a part is zero. */
#include "cxmath/cxmath.h"

#include <string.h>

#include "lower/realops.h"

/* P(x, y) for the node's own real op, with the two named operands replaced. */
static rf_value *emit_bilinear(rf_lowering *L, const rf_node *n, const char *a_name, rf_value *x, const char *b_name,
                               rf_value *y, const char *suffix) {
    rf_arg *args = rf_alloc(rf_out_graph(L), (n->nargs ? n->nargs : 1) * sizeof(rf_arg));
    for (size_t i = 0; i < n->nargs; i++) {
        args[i].name = n->args[i].name;
        if (strcmp(n->args[i].name, a_name) == 0) args[i].attr = rf_attr_ref(x);
        else if (strcmp(n->args[i].name, b_name) == 0) args[i].attr = rf_attr_ref(y);
        else args[i].attr = rf_map_attr(L, &n->args[i].attr);
    }
    const rf_value *like[1] = {n->outs[0]};
    return rf_b_node(L, n->op, n->nargs, args, 1, like, x->dtype, suffix)->outs[0];
}

rf_cx rf_cx_product(rf_lowering *L, rf_cx a, rf_cx b, rf_real_product_fn p, const void *ctx) {
    rf_value *ar = a.re.v, *br = b.re.v;
    rf_rv re = rf_val(p(L, ctx, ar, br, "_rr"));
    if (a.im_zero && b.im_zero) return rf_cx_real(re);
    if (a.im_zero) return rf_cx_make(re, rf_val(p(L, ctx, ar, b.im.v, "_ri")));
    if (b.im_zero) return rf_cx_make(re, rf_val(p(L, ctx, a.im.v, br, "_ir")));
    rf_rv ii = rf_val(p(L, ctx, a.im.v, b.im.v, "_ii"));
    rf_rv ri = rf_val(p(L, ctx, ar, b.im.v, "_ri"));
    rf_rv ir = rf_val(p(L, ctx, a.im.v, br, "_ir"));
    rf_rv out_re = rf_b_sub(L, re, ii);
    return rf_cx_make(out_re, rf_b_add(L, ri, ir));
}

typedef struct bilinear_ctx {
    const rf_node *n;
    const char *a_name, *b_name;
} bilinear_ctx;

static rf_value *node_product(rf_lowering *L, const void *ctx, rf_value *x, rf_value *y, const char *parts) {
    const bilinear_ctx *c = ctx;
    return emit_bilinear(L, c->n, c->a_name, x, c->b_name, y, parts);
}

rf_cx rf_cx_bilinear(rf_lowering *L, const rf_node *n, rf_cx a, rf_cx b, const char *a_name, const char *b_name) {
    if (!a.re.v || !b.re.v || (!a.im_zero && !a.im.v) || (!b.im_zero && !b.im.v)) {
        rf_fail(L, n, RF_ERR_INVALID, "%s needs tensor operands", n->op);
        return rf_cx_real(rf_num(0));
    }
    bilinear_ctx c = {n, a_name, b_name};
    return rf_cx_product(L, a, b, node_product, &c);
}
