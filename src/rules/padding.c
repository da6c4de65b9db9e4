/* Padding of complex tensors (stft pads its signal so, and models pad
 * spectra): the constant modes split the fill value into its parts; the
 * reflect and replicate modes move elements and act on each part alike. */
#include <string.h>

#include "rules/rules.h"

/* constant_pad_nd with a complex fill: the real part pads with Re(value), the
 * imaginary part with Im(value). */
static rf_status constant_pad(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self"), *value = rf_node_arg(n, "value");
    if (!rf_attr_is_tensor(self) || !rf_dtype_is_complex(n->outs[0]->dtype))
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs a complex tensor", n->op);
    double vre = 0.0, vim = 0.0;
    if (value && value->kind == RF_A_FLOAT) vre = value->f;
    else if (value && (value->kind == RF_A_INT || value->kind == RF_A_BOOL)) vre = (double)value->i;
    else if (value && value->kind == RF_A_COMPLEX) vre = value->f, vim = value->f_im;
    else if (value && value->kind != RF_A_NONE)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s with a symbolic fill value", n->op);
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx z = rf_in_cx(L, n, "self", w);
    const char *names[2] = {"self", "value"};
    size_t nsubst = value ? 2 : 1;
    rf_attr attrs[2] = {rf_attr_of_value(z.re.v), rf_attr_float(vre)};
    rf_cx c = {0};
    c.re = rf_val(rf_b_copy_node(L, n, nsubst, names, attrs, w, "_re")->outs[0]);
    c.im_zero = z.im_zero && vim == 0.0;
    if (!c.im_zero) {
        attrs[0] = rf_attr_of_value(z.im_zero ? rf_b_zeros_like(L, z.re.v) : z.im.v);
        attrs[1] = rf_attr_float(vim);
        c.im = rf_val(rf_b_copy_node(L, n, nsubst, names, attrs, w, "_im")->outs[0]);
    }
    rf_set_cx(L, n->outs[0], c);
    return RF_OK;
}

/* pad: the constant mode fills the imaginary part with zeros (value is real);
 * the other modes move elements and act on each part alike. */
static rf_status pad(rf_lowering *L, const rf_node *n) {
    const rf_attr *mode = rf_node_arg(n, "mode"), *value = rf_node_arg(n, "value");
    int constant = !mode || mode->kind != RF_A_STR || strcmp(mode->s, "constant") == 0;
    double v = value && value->kind == RF_A_FLOAT ? value->f : value && value->kind == RF_A_INT ? (double)value->i : 0;
    if (!constant || v == 0.0) return rf_lower_componentwise(L, n);
    if (value->kind != RF_A_FLOAT && value->kind != RF_A_INT)
        return rf_fail(L, n, RF_ERR_UNSUPPORTED, "%s with a symbolic fill value", n->op);
    rf_dtype w = rf_work_dtype(L, n);
    rf_cx z = rf_in_cx(L, n, "self", w);
    const char *names[2] = {"self", "value"};
    rf_attr attrs[2] = {rf_attr_of_value(z.re.v), rf_attr_float(v)};
    rf_cx c = {0};
    c.re = rf_val(rf_b_copy_node(L, n, 2, names, attrs, w, "_re")->outs[0]);
    if (z.im_zero) {
        c.im_zero = 1;
    } else {
        attrs[0] = rf_attr_of_value(z.im.v);
        attrs[1] = rf_attr_float(0.0);
        c.im = rf_val(rf_b_copy_node(L, n, 2, names, attrs, w, "_im")->outs[0]);
    }
    rf_set_cx(L, n->outs[0], c);
    return RF_OK;
}

const rf_rule_entry rf_rules_padding[] = {
    {"aten.constant_pad_nd.default", constant_pad, 0},
    {"aten.pad.default", pad, 0},
    {"aten.reflection_pad1d.default", rf_lower_componentwise, 0},
    {"aten.reflection_pad2d.default", rf_lower_componentwise, 0},
    {"aten.reflection_pad3d.default", rf_lower_componentwise, 0},
    {"aten.replication_pad1d.default", rf_lower_componentwise, 0},
    {"aten.replication_pad2d.default", rf_lower_componentwise, 0},
    {"aten.replication_pad3d.default", rf_lower_componentwise, 0},
    {NULL, NULL, 0},
};
