/* Operands and results of the node being lowered: the maps from input-graph
 * values to their lowering (a real value, or the parts and packed form of a
 * complex one), filled as the driver walks the graph. */
#include <string.h>

#include "lower/lower_internal.h"

/* ---- operands ---- */

int rf_is_complex_arg(const rf_node *n, const char *name) {
    const rf_attr *a = rf_node_arg(n, name);
    return a && a->kind == RF_A_VALUE && rf_dtype_is_complex(a->value->dtype);
}

/* A value of unknown rank that stands in for an operand that could not be read:
 * the run has failed, and the rule may build on it until its RF_CHECK. */
static rf_value *poison(rf_lowering *L) {
    if (!L->poison) L->poison = rf_value_new(L->out, "poison", RF_DT_F32, -1, NULL);
    return L->poison;
}

rf_value *rf_in_real(rf_lowering *L, const rf_node *n, const char *name) {
    const rf_attr *a = rf_node_arg(n, name);
    if (!rf_attr_is_tensor(a) || rf_dtype_is_complex(a->value->dtype)) {
        rf_fail(L, n, RF_ERR_INVALID, "argument '%s' is not a real tensor", name);
        return poison(L);
    }
    if (!L->real_map[a->value->id] && L->real_unread[a->value->id]) {
        rf_fail(L, n, RF_ERR_INVALID, "argument '%s' was fused into an earlier node", name);
        return poison(L);
    }
    return L->real_map[a->value->id];
}

static rf_value *cast_if(rf_lowering *L, rf_value *v, rf_dtype dt) {
    return (v && v->dtype != dt) ? rf_b_cast(L, v, dt) : v;
}

static cx_state *materialize_parts(rf_lowering *L, const rf_value *orig) {
    cx_state *st = &L->cx_map[orig->id];
    if (!st->re && st->packed) {
        L->name_hint = orig->name;
        st->re = rf_b_select(L, st->packed, -1, 0);
        st->im = rf_b_select(L, st->packed, -1, 1);
        L->name_hint = NULL;
    }
    return st;
}

rf_cx rf_cx_of(rf_lowering *L, const rf_value *orig, rf_dtype dt) {
    rf_cx c = {0};
    if (rf_dtype_is_complex(orig->dtype)) {
        cx_state *st = materialize_parts(L, orig);
        if (!st->re) {
            rf_fail(L, L->cur, RF_ERR_INVALID, "complex value %%%s has no lowering", orig->name);
            c.re = rf_val(poison(L));
            c.im_zero = 1;
            return c;
        }
        c.re = rf_val(cast_if(L, st->re, dt));
        c.im_zero = st->im_zero;
        if (!st->im_zero) c.im = rf_val(cast_if(L, st->im, dt));
    } else {
        c.re = rf_val(cast_if(L, L->real_map[orig->id], dt));
        c.im_zero = 1;
    }
    return c;
}

rf_cx rf_in_cx(rf_lowering *L, const rf_node *n, const char *name, rf_dtype dt) {
    const rf_attr *a = rf_node_arg(n, name);
    rf_cx c = {0};
    c.im_zero = 1;
    if (!a) {
        rf_fail(L, n, RF_ERR_INVALID, "missing argument '%s'", name);
        c.re = rf_val(poison(L));
        return c;
    }
    switch (a->kind) {
    case RF_A_VALUE:
        if (rf_dtype_is_tensor(a->value->dtype)) return rf_cx_of(L, a->value, dt);
        /* A symbolic scalar (z * z.shape[0] under dynamic shapes) is a real number like an int; as a 0-d tensor
         * of the working dtype every real op takes it where a number would go. */
        if ((a->value->dtype == RF_DT_SYMINT || a->value->dtype == RF_DT_SYMFLOAT) && L->real_map[a->value->id]) {
            rf_attr d = {0};
            d.kind = RF_A_DTYPE;
            d.dtype = dt;
            rf_arg args[2] = {{"s", rf_attr_ref(L->real_map[a->value->id])}, {"dtype", d}};
            c.re = rf_val(rf_b_op(L, "aten.scalar_tensor.default", 2, args, dt, 0, NULL, "_c"));
            return c;
        }
        break;
    case RF_A_INT:
    case RF_A_BOOL: c.re = rf_num((double)a->i); return c;
    case RF_A_FLOAT: c.re = rf_num(a->f); return c;
    case RF_A_COMPLEX:
        c.re = rf_num(a->f);
        c.im = rf_num(a->f_im);
        c.im_zero = 0;
        return c;
    default: break;
    }
    rf_fail(L, n, RF_ERR_INVALID, "argument '%s' is not a number or a tensor", name);
    c.re = rf_val(poison(L));
    return c;
}

rf_value *rf_packed_of(rf_lowering *L, const rf_value *orig) {
    cx_state *st = &L->cx_map[orig->id];
    if (st->packed) return st->packed;
    if (!st->re) {
        rf_fail(L, L->cur, RF_ERR_INVALID, "complex value %%%s has no lowering", orig->name);
        return poison(L);
    }
    L->name_hint = orig->name;
    rf_value *im = st->im_zero ? rf_b_zeros_like(L, st->re) : st->im;
    st->packed = rf_b_stack2(L, st->re, im, -1);
    L->name_hint = NULL;
    return st->packed;
}

rf_value *rf_packed_storage_of(rf_lowering *L, const rf_value *orig) {
    if (!rf_is_packed_input(L, orig)) {
        rf_fail(L, L->cur, RF_ERR_INVALID, "%%%s is not a complex graph input or constant", orig->name);
        return poison(L);
    }
    rf_value *p = L->cx_map[orig->id].packed;
    p->storage_read = 1;
    return p;
}

/* ---- results ---- */

void rf_set_real(rf_lowering *L, const rf_value *orig, rf_value *v) { L->real_map[orig->id] = v; }

void rf_set_packed(rf_lowering *L, const rf_value *orig, rf_value *packed) {
    cx_state *st = &L->cx_map[orig->id];
    memset(st, 0, sizeof *st);
    st->packed = cast_if(L, packed, rf_component_of(L, orig->dtype));
}

void rf_set_cx(rf_lowering *L, const rf_value *orig, rf_cx c) {
    cx_state *st = &L->cx_map[orig->id];
    memset(st, 0, sizeof *st);
    if (L->failed) return;
    rf_value *re = c.re.v, *im = c.im_zero ? NULL : c.im.v;
    if (!re && !im && !c.im_zero) {
        rf_fail(L, L->cur, RF_ERR_INVALID, "rule produced scalars for a tensor result");
        return;
    }
    if (!re) re = rf_b_materialize(L, c.re, im);
    if (!c.im_zero && !im) im = rf_b_materialize(L, c.im, re);
    if (!re) {
        rf_fail(L, L->cur, RF_ERR_INVALID, "rule produced a scalar for a tensor result");
        return;
    }
    if (im && !rf_value_same_shape(re, im)) {
        rf_arg arg = {.name = "tensors"};
        arg.attr.kind = RF_A_LIST;
        arg.attr.n = 2;
        arg.attr.items = rf_alloc(L->out, 2 * sizeof(rf_attr));
        arg.attr.items[0].kind = arg.attr.items[1].kind = RF_A_VALUE;
        arg.attr.items[0].value = re;
        arg.attr.items[1].value = im;
        const rf_value *like[2] = {orig, orig};
        rf_node *bn = rf_b_node(L, "aten.broadcast_tensors.default", 1, &arg, 2, like, re->dtype, "_bc");
        re = bn->outs[0];
        im = bn->outs[1];
    }
    st->re = re;
    st->im = im;
    st->im_zero = c.im_zero;
}

void rf_set_alias(rf_lowering *L, const rf_value *orig, const rf_value *src) {
    if (!rf_dtype_is_complex(src->dtype)) {
        rf_cx c = rf_cx_of(L, src, rf_component_of(L, orig->dtype));
        rf_set_cx(L, orig, c);
        return;
    }
    L->cx_map[orig->id] = L->cx_map[src->id];
    rf_dtype want = rf_component_of(L, orig->dtype);
    cx_state *st = &L->cx_map[orig->id];
    if ((st->re && st->re->dtype != want) || (st->packed && st->packed->dtype != want))
        rf_set_cx(L, orig, rf_cx_of(L, src, want));
}
