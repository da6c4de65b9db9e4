/* Family helpers: componentwise ops (with fill values), unary complex
 * functions, and ops that see only whether each complex element is nonzero. */
#include "rules/family.h"
#include "ir/mem.h"

#include <stdlib.h>
#include <string.h>

#include "lower/realops.h"

static int is_cx_value(const rf_attr *a) { return a->kind == RF_A_VALUE && rf_dtype_is_complex(a->value->dtype); }

static int list_has_complex(const rf_attr *a) {
    if (a->kind != RF_A_LIST) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (is_cx_value(&a->items[i])) return 1;
    return 0;
}

static int in_list(const char *name, const char *const *names) {
    for (; names && *names; names++)
        if (strcmp(*names, name) == 0) return 1;
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
    if (a->kind == RF_A_VALUE) return !rf_cx_known_real(L, a->value);
    for (size_t i = 0; i < a->n; i++)
        if (a->items[i].kind == RF_A_VALUE && operand_has_imag(L, &a->items[i])) return 1;
    return 0;
}

static int is_number(const rf_attr *a) {
    return a->kind == RF_A_INT || a->kind == RF_A_FLOAT || a->kind == RF_A_BOOL || a->kind == RF_A_COMPLEX;
}

static rf_attr fill_part(const rf_attr *a, int imag) {
    rf_attr r = {0};
    r.kind = RF_A_FLOAT;
    if (a->kind == RF_A_COMPLEX) r.f = imag ? a->f_im : a->f;
    else if (a->kind == RF_A_FLOAT) r.f = imag ? 0.0 : a->f;
    else r.f = imag ? 0.0 : (double)a->i;
    r.out_mark = RF_DT_COUNT;
    return r;
}

rf_status rf_lower_componentwise_fill(rf_lowering *L, const rf_node *n, const char *const *fills) {
    rf_dtype w = rf_work_dtype(L, n);
    for (size_t k = 0; k < n->nouts; k++)
        if (!rf_dtype_is_complex(n->outs[k]->dtype))
            return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s has a real output next to complex ones", n->op);
    const char **names = rf_calloc(n->nargs + 1, sizeof(*names));
    rf_attr *re_attrs = rf_calloc(n->nargs + 1, sizeof(*re_attrs));
    rf_attr *im_attrs = rf_calloc(n->nargs + 1, sizeof(*im_attrs));
    if (!names || !re_attrs || !im_attrs) {
        rf_free(names);
        rf_free(re_attrs);
        rf_free(im_attrs);
        return rf_fail(L, n, RF_ERR_NOMEM, "out of memory");
    }
    size_t ns = 0;
    int has_imag = 0;
    rf_status st = RF_OK;
    for (size_t i = 0; i < n->nargs && st == RF_OK; i++) {
        const rf_attr *a = &n->args[i].attr;
        if (is_number(a) && in_list(n->args[i].name, fills)) {
            names[ns] = n->args[i].name;
            re_attrs[ns] = fill_part(a, 0);
            im_attrs[ns] = fill_part(a, 1);
            has_imag |= im_attrs[ns++].f != 0.0;
        } else if (rf_attr_is_tensor(a) && !is_cx_value(a) && in_list(n->args[i].name, fills)) {
            /* a real tensor of values: the imaginary copy takes zeros */
            names[ns] = n->args[i].name;
            re_attrs[ns] = rf_map_attr(L, a);
            im_attrs[ns] = rf_attr_of_value(rf_b_zeros_like(L, re_attrs[ns].value));
            ns++;
        } else if (a->kind == RF_A_COMPLEX) {
            st = rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: complex scalar argument '%s' is not a fill value", n->op,
                         n->args[i].name);
        } else if (is_cx_value(a) || list_has_complex(a)) {
            names[ns] = n->args[i].name;
            has_imag |= operand_has_imag(L, a);
            re_attrs[ns++] = part_attr(L, a, w, 0);
        }
    }
    rf_node *re = NULL, *im = NULL;
    if (st == RF_OK && has_imag) {
        for (size_t i = 0, j = 0; i < n->nargs; i++) {
            const rf_attr *a = &n->args[i].attr;
            if ((is_number(a) || rf_attr_is_tensor(a)) && !is_cx_value(a) && in_list(n->args[i].name, fills)) j++;
            else if (is_cx_value(a) || list_has_complex(a)) im_attrs[j++] = part_attr(L, a, w, 1);
        }
    }
    if (st == RF_OK) {
        re = rf_b_copy_node(L, n, ns, names, re_attrs, RF_DT_COUNT, "_re");
        if (has_imag) im = rf_b_copy_node(L, n, ns, names, im_attrs, RF_DT_COUNT, "_im");
    }
    rf_free(names);
    rf_free(re_attrs);
    rf_free(im_attrs);
    RF_CHECK(L);
    if (st != RF_OK) return st;
    for (size_t k = 0; k < n->nouts; k++) {
        rf_cx c = {0};
        c.re = rf_val(re->outs[k]);
        c.im_zero = !im;
        if (im) c.im = rf_val(im->outs[k]);
        rf_set_cx(L, n->outs[k], c);
    }
    return RF_OK;
}

rf_status rf_lower_componentwise(rf_lowering *L, const rf_node *n) { return rf_lower_componentwise_fill(L, n, NULL); }

rf_cx rf_in_cx_own(rf_lowering *L, const rf_node *n, const char *name) {
    const rf_attr *a = rf_node_arg(n, name);
    rf_dtype dt = rf_attr_is_tensor(a) ? rf_component_of(L, a->value->dtype) : rf_work_dtype(L, n);
    return rf_in_cx(L, n, name, dt);
}

/* One of fn (takes the working dtype) or plain (does not) computes the result. */
static rf_status unary_cx(rf_lowering *L, const rf_node *n, rf_cx_unary_fn fn, rf_cx_unary_plain_fn plain) {
    const rf_value *out = n->outs[0];
    if (n->nouts != 1 || !rf_dtype_is_complex(out->dtype))
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: expected one complex result", n->op);
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx z = rf_in_cx(L, n, "self", w);
    RF_CHECK(L);
    if (!z.re.v) return rf_fail(L, n, RF_ERR_INVALID, "%s needs a tensor", n->op);
    rf_cx r = fn ? fn(L, z, w) : plain(L, z);
    RF_CHECK(L);
    rf_set_cx(L, out, r);
    return RF_OK;
}

rf_status rf_lower_unary_cx(rf_lowering *L, const rf_node *n, rf_cx_unary_fn fn) { return unary_cx(L, n, fn, NULL); }

rf_status rf_lower_unary_cx_plain(rf_lowering *L, const rf_node *n, rf_cx_unary_plain_fn fn) {
    return unary_cx(L, n, NULL, fn);
}

rf_status rf_publish_cx(rf_lowering *L, const rf_node *n, rf_cx r) {
    RF_CHECK(L);
    rf_set_cx(L, n->outs[0], r);
    return RF_OK;
}

rf_status rf_lower_binary_cx(rf_lowering *L, const rf_node *n, const char *a_name, const char *b_name,
                             rf_cx_binary_fn fn) {
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx a = rf_in_cx(L, n, a_name, w), b = rf_in_cx(L, n, b_name, w);
    RF_CHECK(L);
    return rf_publish_cx(L, n, fn(L, a, b));
}

rf_value *rf_cx_nonzero(rf_lowering *L, rf_cx z) {
    rf_value *re = rf_b_cmp(L, "ne", z.re, rf_num(0.0));
    if (z.im_zero) return re;
    return rf_b_or(L, re, rf_b_cmp(L, "ne", z.im, rf_num(0.0)));
}

static rf_attr truth_attr(rf_lowering *L, const rf_attr *a) {
    if (a->kind == RF_A_VALUE) {
        rf_cx z = rf_cx_of(L, a->value, rf_component_of(L, a->value->dtype));
        return rf_attr_of_value(rf_cx_nonzero(L, z));
    }
    rf_attr r = *a;
    r.items = rf_alloc(rf_out_graph(L), (a->n ? a->n : 1) * sizeof(rf_attr));
    for (size_t i = 0; i < a->n; i++)
        r.items[i] = rf_attr_is_tensor(&a->items[i]) ? truth_attr(L, &a->items[i]) : rf_map_attr(L, &a->items[i]);
    return r;
}

rf_status rf_lower_on_truth(rf_lowering *L, const rf_node *n) {
    for (size_t k = 0; k < n->nouts; k++)
        if (rf_dtype_is_complex(n->outs[k]->dtype))
            return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: a complex result depends on more than truth", n->op);
    const char *names[16];
    rf_attr attrs[16];
    size_t ns = 0;
    for (size_t i = 0; i < n->nargs && ns < 16; i++) {
        const rf_attr *a = &n->args[i].attr;
        if (a->kind == RF_A_COMPLEX)
            return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s with a complex scalar argument", n->op);
        if (is_cx_value(a) || list_has_complex(a)) {
            names[ns] = n->args[i].name;
            attrs[ns++] = truth_attr(L, a);
        }
    }
    rf_node *m = rf_b_copy_node(L, n, ns, names, attrs, RF_DT_COUNT, "");
    RF_CHECK(L);
    for (size_t k = 0; k < n->nouts; k++) rf_set_real(L, n->outs[k], m->outs[k]);
    return RF_OK;
}
