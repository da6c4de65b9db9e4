/* Tensors created with a complex dtype (zeros, full, eye, linspace, new_*,
 * empty*, ...). The real part is the same factory at the component dtype with
 * the real parts of the fill values; the imaginary part is the factory with
 * their imaginary parts, or absent when those are all zero. A complex `self`
 * only lends its shape, device or dtype, so its real part stands in for it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cxmath/cxmath.h"
#include "lower/realops.h"
#include "rules/family.h"
#include "rules/rules.h"

#define MAX_ARGS 16

static const char *const fill_names[] = {"fill_value", "value", "s", "start", "end", NULL};

static int is_fill(const char *name) { return rf_str_in(name, fill_names); }

static rf_attr number(double f) {
    rf_attr a = {0};
    a.kind = RF_A_FLOAT;
    a.f = f;
    a.out_mark = RF_DT_COUNT;
    return a;
}

/* The real or imaginary part of argument a, or 0 (a tensor part, or a number). */
static rf_attr part(rf_lowering *L, const rf_node *n, const rf_attr *a, int imag, int *has_imag) {
    if (a->kind == RF_A_COMPLEX) {
        *has_imag |= a->f_im != 0.0;
        return number(imag ? a->f_im : a->f);
    }
    if (a->kind == RF_A_FLOAT) return number(imag ? 0.0 : a->f);
    if (a->kind == RF_A_INT || a->kind == RF_A_BOOL) return number(imag ? 0.0 : (double)a->i);
    rf_cx z = rf_cx_of(L, a->value, rf_work_dtype(L, n));
    if (!z.im_zero) *has_imag = 1;
    return rf_attr_of_value(imag ? rf_cx_im_value(L, z) : z.re.v);
}

static rf_node *emit(rf_lowering *L, const rf_node *n, const char *op, int imag, int *has_imag, const char *skip) {
    const char *names[MAX_ARGS];
    rf_attr attrs[MAX_ARGS];
    size_t ns = 0;
    for (size_t i = 0; i < n->nargs && ns < MAX_ARGS; i++) {
        const rf_attr *a = &n->args[i].attr;
        const char *name = n->args[i].name;
        if (skip && strcmp(name, skip) == 0) continue;
        int num = a->kind == RF_A_INT || a->kind == RF_A_FLOAT || a->kind == RF_A_BOOL || a->kind == RF_A_COMPLEX;
        if (is_fill(name) && (num || rf_attr_is_tensor(a))) {
            names[ns] = name;
            attrs[ns++] = part(L, n, a, imag, has_imag);
        } else if (a->kind == RF_A_VALUE && rf_dtype_is_complex(a->value->dtype)) {
            names[ns] = name;
            attrs[ns++] = rf_attr_of_value(rf_cx_of(L, a->value, rf_component_of(L, a->value->dtype)).re.v);
        } else if (a->kind == RF_A_COMPLEX) {
            rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s: complex scalar argument '%s'", n->op, name);
            return NULL;
        }
    }
    rf_node *m = rf_b_copy_node(L, n, ns, names, attrs, RF_DT_COUNT, imag ? "_im" : "_re");
    if (skip) { /* drop the skipped argument from the copy */
        size_t j = 0;
        for (size_t i = 0; i < m->nargs; i++)
            if (strcmp(m->args[i].name, skip) != 0) m->args[j++] = m->args[i];
        m->nargs = j;
    }
    if (op) m->op = rf_strdup(rf_out_graph(L), op);
    return m;
}

static rf_status factory_as(rf_lowering *L, const rf_node *n, const char *op, const char *skip, rf_cx *out) {
    int has_imag = 0;
    rf_node *re = emit(L, n, op, 0, &has_imag, skip);
    RF_CHECK(L);
    const rf_value *o = n->outs[0];
    if (!rf_dtype_is_complex(o->dtype)) {
        rf_set_real(L, o, re->outs[0]);
        return RF_OK;
    }
    rf_cx c = rf_cx_real(rf_val(re->outs[0]));
    if (has_imag) {
        rf_node *im = emit(L, n, op, 1, &has_imag, skip);
        RF_CHECK(L);
        c = rf_cx_make(c.re, rf_val(im->outs[0]));
    }
    if (out) *out = c;
    else rf_set_cx(L, o, c);
    return RF_OK;
}

static rf_status factory(rf_lowering *L, const rf_node *n) { return factory_as(L, n, NULL, NULL, NULL); }

/* fill.Tensor(self, value): the value's parts (0 for a real value) fill each part. */
static rf_status fill_tensor(rf_lowering *L, const rf_node *n) {
    static const char *const value[] = {"value", NULL};
    return rf_lower_componentwise_fill(L, n, value);
}

/* logspace = base ** linspace(start, end), with cpow's complex power. */
static rf_status logspace(rf_lowering *L, const rf_node *n) {
    const rf_attr *b = rf_node_arg(n, "base");
    double base = !b ? 10.0 : b->kind == RF_A_FLOAT ? b->f : (double)b->i;
    if (b && b->kind != RF_A_FLOAT && b->kind != RF_A_INT)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "logspace with a symbolic base");
    if (!rf_dtype_is_complex(n->outs[0]->dtype))
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "logspace with a real result from complex bounds");
    char op[64];
    const char *dot = strchr(n->op + 5, '.');
    snprintf(op, sizeof op, "aten.linspace%s", dot ? dot : ".default");
    rf_cx lin = {0};
    rf_status s = factory_as(L, n, op, "base", &lin);
    if (s != RF_OK) return s;
    rf_cx lg = rf_cx_make(rf_num(log(fabs(base))), rf_num(base < 0 ? atan2(0.0, base) : 0.0));
    rf_cx r = rf_cx_exp(L, rf_cx_mul_c99(L, lin, lg));
    RF_CHECK(L);
    rf_set_cx(L, n->outs[0], r);
    return RF_OK;
}

const rf_rule_entry rf_rules_factory[] = {
    {"aten.zeros.default", factory, 0},
    {"aten.ones.default", factory, 0},
    {"aten.full.default", factory, 0},
    {"aten.empty.memory_format", factory, 0},
    {"aten.empty_strided.default", factory, 0},
    {"aten.empty_permuted.default", factory, 0},
    {"aten.empty_like.default", factory, 0},
    {"aten.eye.default", factory, 0},
    {"aten.eye.m", factory, 0},
    {"aten.scalar_tensor.default", factory, 0},
    {"aten.new_zeros.default", factory, 0},
    {"aten.new_ones.default", factory, 0},
    {"aten.new_full.default", factory, 0},
    {"aten.new_empty.default", factory, 0},
    {"aten.new_empty_strided.default", factory, 0},
    {"aten.zero.default", factory, 0},
    {"aten.fill.Scalar", factory, 0},
    {"aten.fill.Tensor", fill_tensor, 0},
    {"aten.linspace.default", factory, 0},
    {"aten.linspace.Tensor_Tensor", factory, 0},
    {"aten.linspace.Tensor_Scalar", factory, 0},
    {"aten.linspace.Scalar_Tensor", factory, 0},
    {"aten.logspace.default", logspace, 0},
    {"aten.logspace.Tensor_Tensor", logspace, 0},
    {"aten.logspace.Tensor_Scalar", logspace, 0},
    {"aten.logspace.Scalar_Tensor", logspace, 0},
    {NULL, NULL, 0},
};
