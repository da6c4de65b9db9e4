/* Shape, movement and copy ops: they act on the real and imaginary parts
 * independently, so one family helper lowers them all. */
#include <stdlib.h>

#include "../lower_internal.h"
#include "rules.h"

static int list_has_complex(const rf_attr *a) {
    if (a->kind != RF_A_LIST) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->items[i].kind == RF_A_VALUE && rf_dtype_is_complex(a->items[i].value->dtype)) return 1;
    return 0;
}

static rf_value *part_value(rf_lowering *L, rf_cx c, int imag) {
    if (!imag) return rf_b_materialize(L, c.re, NULL);
    if (c.im_zero) return rf_b_zeros_like(L, c.re.v);
    return rf_b_materialize(L, c.im, c.re.v);
}

/* Replace a complex operand (or a list holding one) by one of its parts. */
static rf_attr part_attr(rf_lowering *L, const rf_attr *a, rf_dtype w, int imag) {
    if (a->kind == RF_A_VALUE) return rf_attr_of_value(part_value(L, rf_cx_of(L, a->value, w), imag));
    rf_attr r = *a;
    r.items = rf_alloc(rf_out_graph(L), (a->n ? a->n : 1) * sizeof(rf_attr));
    for (size_t i = 0; i < a->n; i++) {
        const rf_attr *it = &a->items[i];
        if (rf_attr_is_tensor(it)) r.items[i] = rf_attr_of_value(part_value(L, rf_cx_of(L, it->value, w), imag));
        else r.items[i] = rf_map_attr(L, it);
    }
    return r;
}

static int operand_has_imag(rf_lowering *L, const rf_attr *a) {
    if (a->kind == RF_A_VALUE) {
        if (!rf_dtype_is_complex(a->value->dtype)) return 0;
        return !L->cx_map[a->value->id].im_zero;
    }
    for (size_t i = 0; i < a->n; i++)
        if (a->items[i].kind == RF_A_VALUE && operand_has_imag(L, &a->items[i])) return 1;
    return 0;
}

rf_status rf_lower_componentwise(rf_lowering *L, const rf_node *n) {
    rf_dtype w = rf_work_dtype(L, n);
    for (size_t k = 0; k < n->nouts; k++)
        if (!rf_dtype_is_complex(n->outs[k]->dtype))
            return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s has a real output next to complex ones", n->op);
    const char **names = calloc(n->nargs + 1, sizeof(*names));
    rf_attr *re_attrs = calloc(n->nargs + 1, sizeof(*re_attrs));
    rf_attr *im_attrs = calloc(n->nargs + 1, sizeof(*im_attrs));
    size_t ns = 0;
    int has_imag = 0;
    for (size_t i = 0; i < n->nargs; i++) {
        const rf_attr *a = &n->args[i].attr;
        int cplx = (a->kind == RF_A_VALUE && rf_dtype_is_complex(a->value->dtype)) || list_has_complex(a);
        if (!cplx) continue;
        names[ns] = n->args[i].name;
        has_imag |= operand_has_imag(L, a);
        re_attrs[ns++] = part_attr(L, a, w, 0);
    }
    if (has_imag)
        for (size_t i = 0, j = 0; i < n->nargs; i++) {
            const rf_attr *a = &n->args[i].attr;
            if ((a->kind == RF_A_VALUE && rf_dtype_is_complex(a->value->dtype)) || list_has_complex(a))
                im_attrs[j++] = part_attr(L, a, w, 1);
        }
    rf_node *re = rf_b_copy_node(L, n, ns, names, re_attrs, RF_DT_COUNT, "_re");
    rf_node *im = has_imag ? rf_b_copy_node(L, n, ns, names, im_attrs, RF_DT_COUNT, "_im") : NULL;
    free(names);
    free(re_attrs);
    free(im_attrs);
    for (size_t k = 0; k < n->nouts; k++) {
        rf_cx c = {0};
        c.re = rf_val(re->outs[k]);
        c.im_zero = !im;
        if (im) c.im = rf_val(im->outs[k]);
        rf_set_cx(L, n->outs[k], c);
    }
    return RF_OK;
}

const rf_rule_entry rf_rules_shape[] = {
    {"aten.view.default", rf_lower_componentwise},
    {"aten.reshape.default", rf_lower_componentwise},
    {"aten._unsafe_view.default", rf_lower_componentwise},
    {"aten.flatten.using_ints", rf_lower_componentwise},
    {"aten.unflatten.int", rf_lower_componentwise},
    {"aten.unsqueeze.default", rf_lower_componentwise},
    {"aten.squeeze.default", rf_lower_componentwise},
    {"aten.squeeze.dim", rf_lower_componentwise},
    {"aten.squeeze.dims", rf_lower_componentwise},
    {"aten.expand.default", rf_lower_componentwise},
    {"aten.permute.default", rf_lower_componentwise},
    {"aten.transpose.int", rf_lower_componentwise},
    {"aten.t.default", rf_lower_componentwise},
    {"aten.slice.Tensor", rf_lower_componentwise},
    {"aten.select.int", rf_lower_componentwise},
    {"aten.narrow.default", rf_lower_componentwise},
    {"aten.cat.default", rf_lower_componentwise},
    {"aten.stack.default", rf_lower_componentwise},
    {"aten.split.Tensor", rf_lower_componentwise},
    {"aten.split_with_sizes.default", rf_lower_componentwise},
    {"aten.chunk.default", rf_lower_componentwise},
    {"aten.unbind.int", rf_lower_componentwise},
    {"aten.clone.default", rf_lower_componentwise},
    {"aten.alias.default", rf_lower_componentwise},
    {"aten.detach.default", rf_lower_componentwise},
    {"aten.lift_fresh_copy.default", rf_lower_componentwise},
    {"aten.numpy_T.default", rf_lower_componentwise},
    {"aten.flip.default", rf_lower_componentwise},
    {"aten.roll.default", rf_lower_componentwise},
    {"aten.repeat.default", rf_lower_componentwise},
    {"aten.movedim.int", rf_lower_componentwise},
    {"aten.diagonal.default", rf_lower_componentwise},
    {NULL, NULL},
};
