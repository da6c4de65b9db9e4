/* dtype conversions: complex to complex changes the part precision, complex to
 * real keeps the real part (as torch does), real to complex adds a zero
 * imaginary part. */
#include "rules/rules.h"

static rf_status convert(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self) || n->nouts != 1)
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs one tensor in and one out", n->op);
    const rf_value *out = n->outs[0];
    int in_cplx = rf_dtype_is_complex(self->value->dtype), out_cplx = rf_dtype_is_complex(out->dtype);
    const char *names[1] = {"self"};
    if (in_cplx && out_cplx) return rf_lower_componentwise(L, n);
    if (in_cplx) {
        rf_cx z = rf_cx_of(L, self->value, rf_component_of(L, self->value->dtype));
        rf_attr a = rf_attr_of_value(z.re.v);
        rf_node *m = rf_b_copy_node(L, n, 1, names, &a, out->dtype, "");
        rf_set_real(L, out, m->outs[0]);
        return RF_OK;
    }
    rf_attr a = rf_attr_of_value(rf_in_real(L, n, "self"));
    rf_node *m = rf_b_copy_node(L, n, 1, names, &a, RF_DT_COUNT, "_re");
    rf_cx c = {0};
    c.re = rf_val(m->outs[0]);
    c.im_zero = 1;
    rf_set_cx(L, out, c);
    return RF_OK;
}

/* prims.convert_element_type(a, dtype): dynamo with dynamic=True passes a Python float operand (z + 0.0) as a
 * 0-d tensor and converts it with this prim. Emitted as _to_copy, which every target has. */
static rf_status prims_convert(rf_lowering *L, const rf_node *n) {
    const rf_attr *a = rf_node_arg(n, "a");
    if (!rf_attr_is_tensor(a) || n->nouts != 1)
        return rf_fail(L, n, RF_ERR_INVALID, "%s needs one tensor in and one out", n->op);
    const rf_value *out = n->outs[0];
    if (!rf_dtype_is_complex(out->dtype)) {
        rf_cx z = rf_cx_of(L, a->value, rf_component_of(L, a->value->dtype));
        rf_set_real(L, out, rf_b_cast(L, z.re.v, out->dtype));
        return RF_OK;
    }
    rf_dtype part = rf_component_of(L, out->dtype);
    if (rf_dtype_is_complex(a->value->dtype)) {
        rf_set_cx(L, out, rf_cx_of(L, a->value, part));
        return RF_OK;
    }
    rf_cx c = {0};
    c.re = rf_val(rf_b_cast(L, rf_in_real(L, n, "a"), part));
    c.im_zero = 1;
    rf_set_cx(L, out, c);
    return RF_OK;
}

/* type_as(self, other): the dtype comes from `other`, so only a cast remains. */
static rf_status type_as(rf_lowering *L, const rf_node *n) {
    const rf_attr *self = rf_node_arg(n, "self");
    if (!rf_attr_is_tensor(self)) return rf_fail(L, n, RF_ERR_INVALID, "type_as needs a tensor");
    const rf_value *out = n->outs[0];
    rf_cx z = rf_cx_of(L, self->value, rf_component_of(L, out->dtype));
    if (rf_dtype_is_complex(out->dtype)) rf_set_cx(L, out, z);
    else rf_set_real(L, out, z.re.v);
    return RF_OK;
}
/* _assert_tensor_metadata (x.to(dtype) under torch.export) checks the input graph's metadata. A complex
 * tensor's no longer holds once it is a pair of real parts, and under truncate_double neither does a float64
 * one (complex128's parts become float32): those checks are dropped; re-export makes its own. */
static rf_status assert_tensor_metadata(rf_lowering *L, const rf_node *n) {
    const rf_attr *a = rf_node_arg(n, "a"), *dt = rf_node_arg(n, "dtype");
    int truncating = rf_component_of(L, RF_DT_C128) == RF_DT_F32;
    if (!rf_attr_is_tensor(a) || rf_dtype_is_complex(a->value->dtype)) return RF_OK;
    if (truncating && dt && dt->kind == RF_A_DTYPE && dt->dtype == RF_DT_F64) return RF_OK;
    rf_b_copy_node(L, n, 0, NULL, NULL, RF_DT_COUNT, "");
    return RF_OK;
}

const rf_rule_entry rf_rules_convert[] = {
    {"aten._assert_tensor_metadata.default", assert_tensor_metadata, RF_RULE_REAL_TOO},
    {"aten.type_as.default", type_as, 0},
    {"aten._to_copy.default", convert, 0},
    {"prims.convert_element_type.default", prims_convert, 0},
    {"aten.to.dtype", convert, 0},
    {"aten.to.dtype_layout", convert, 0},
    {"aten.to.device", convert, 0},
    {NULL, NULL, 0},
};

/* Runs on all-real nodes too: a float64 check may not hold under truncate_double. */
