/* The lowering driver: walks the input graph in order, copies real nodes,
 * looks up a rule for each node that touches a complex value, and builds a new
 * graph. The input graph is only read. */
#include "lower/lower.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/cleanup.h"
#include "lower/lower_internal.h"

const rf_lower_options *rf_options(const rf_lowering *L) { return &L->opt; }
rf_graph *rf_out_graph(rf_lowering *L) { return L->out; }

rf_dtype rf_component_of(const rf_lowering *L, rf_dtype dt) { return rf_dtype_component(dt, L->opt.truncate_double); }

rf_dtype rf_work_dtype(const rf_lowering *L, const rf_node *n) {
    for (size_t i = 0; i < n->nouts; i++)
        if (rf_dtype_is_complex(n->outs[i]->dtype)) return rf_component_of(L, n->outs[i]->dtype);
    return n->nouts ? n->outs[0]->dtype : RF_DT_F32;
}

rf_status rf_fail(rf_lowering *L, const rf_node *n, rf_status code, const char *fmt, ...) {
    if (L->failed) return L->status;
    L->failed = 1;
    L->status = code;
    if (L->err) {
        L->err->code = code;
        snprintf(L->err->op, sizeof L->err->op, "%s", n ? n->op : "");
        snprintf(L->err->node, sizeof L->err->node, "%s", (n && n->nouts) ? n->outs[0]->name : "");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(L->err->message, sizeof L->err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* ---- operands ---- */

int rf_is_complex_arg(const rf_node *n, const char *name) {
    const rf_attr *a = rf_node_arg(n, name);
    return a && a->kind == RF_A_VALUE && rf_dtype_is_complex(a->value->dtype);
}

rf_attr rf_map_attr(rf_lowering *L, const rf_attr *a) { return rf_attr_copy(L->out, a, L->real_map); }

rf_value *rf_in_real(rf_lowering *L, const rf_node *n, const char *name) {
    const rf_attr *a = rf_node_arg(n, name);
    if (!rf_attr_is_tensor(a) || rf_dtype_is_complex(a->value->dtype)) {
        rf_fail(L, n, RF_ERR_INVALID, "argument '%s' is not a real tensor", name);
        return NULL;
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
        return c;
    }
    switch (a->kind) {
    case RF_A_VALUE:
        if (rf_dtype_is_tensor(a->value->dtype)) return rf_cx_of(L, a->value, dt);
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
    return c;
}

rf_value *rf_packed_of(rf_lowering *L, const rf_value *orig) {
    cx_state *st = &L->cx_map[orig->id];
    if (st->packed) return st->packed;
    if (!st->re) {
        rf_fail(L, L->cur, RF_ERR_INVALID, "complex value %%%s has no lowering", orig->name);
        return NULL;
    }
    L->name_hint = orig->name;
    rf_value *im = st->im_zero ? rf_b_zeros_like(L, st->re) : st->im;
    st->packed = rf_b_stack2(L, st->re, im, -1);
    L->name_hint = NULL;
    return st->packed;
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

/* ---- driver ---- */

static int attr_has_complex(const rf_attr *a) {
    if (a->kind == RF_A_VALUE) return rf_dtype_is_complex(a->value->dtype);
    if (a->kind == RF_A_DTYPE) return rf_dtype_is_complex(a->dtype);
    if (a->kind == RF_A_COMPLEX) return 1;
    if (a->kind == RF_A_LIST)
        for (size_t i = 0; i < a->n; i++)
            if (attr_has_complex(&a->items[i])) return 1;
    return 0;
}

int rf_node_touches_complex(const rf_node *n) {
    for (size_t i = 0; i < n->nouts; i++)
        if (rf_dtype_is_complex(n->outs[i]->dtype)) return 1;
    for (size_t i = 0; i < n->nargs; i++)
        if (attr_has_complex(&n->args[i].attr)) return 1;
    return 0;
}

static rf_value *copy_boundary(rf_lowering *L, const rf_value *v, int is_const) {
    rf_dtype dt = v->dtype;
    int packed = rf_dtype_is_complex(dt);
    int rank = v->rank;
    rf_dim *dims = v->dims;
    if (packed) {
        dt = rf_component_of(L, v->dtype);
        if (rank >= 0) {
            dims = rf_alloc(L->out, (size_t)(rank + 1) * sizeof(rf_dim));
            if (rank) memcpy(dims, v->dims, (size_t)rank * sizeof(rf_dim));
            dims[rank].size = 2;
            rank++;
        }
    }
    rf_value *nv = is_const ? rf_graph_add_const(L->out, v->name, dt, rank, dims, v->const_target, v->const_kind)
                            : rf_graph_add_input(L->out, v->name, dt, rank, dims);
    if (is_const && v->const_data) { /* an inline "data" constant (real): copy its bytes */
        unsigned char *data = rf_alloc(L->out, v->const_nbytes);
        memcpy(data, v->const_data, v->const_nbytes);
        nv->const_data = data;
        nv->const_nbytes = v->const_nbytes;
    }
    if (packed) {
        nv->packed_from = v->dtype;
        L->cx_map[v->id].packed = nv;
    } else {
        L->real_map[v->id] = nv;
    }
    return nv;
}

static void copy_node(rf_lowering *L, const rf_node *n) {
    rf_node *m = rf_node_new(L->out, n->op, n->nargs, n->nouts);
    for (size_t i = 0; i < n->nargs; i++) {
        m->args[i].name = rf_strdup(L->out, n->args[i].name);
        m->args[i].attr = rf_map_attr(L, &n->args[i].attr);
    }
    for (size_t i = 0; i < n->nouts; i++) {
        const rf_value *o = n->outs[i];
        m->outs[i] = rf_value_new(L->out, o->name, o->dtype, o->rank, o->dims);
        L->real_map[o->id] = m->outs[i];
    }
    rf_graph_append_node(L->out, m);
}

static void lower_outputs(rf_lowering *L) {
    const rf_graph *in = L->in;
    rf_attr *outs = rf_alloc(L->out, (in->noutputs ? in->noutputs : 1) * sizeof(rf_attr));
    for (size_t i = 0; i < in->noutputs && !L->failed; i++) {
        const rf_attr *a = &in->outputs[i];
        if (a->kind == RF_A_VALUE && rf_dtype_is_complex(a->value->dtype)) {
            memset(&outs[i], 0, sizeof outs[i]);
            outs[i].kind = RF_A_VALUE;
            outs[i].value = rf_packed_of(L, a->value);
            outs[i].out_mark = a->value->dtype;
        } else {
            outs[i] = rf_map_attr(L, a);
            outs[i].out_mark = RF_DT_COUNT;
        }
    }
    rf_graph_set_outputs(L->out, in->noutputs, outs);
}

/* Rule lookups memoised per distinct op name: a graph repeats a few dozen ops
 * thousands of times, and the rule table is scanned once per op. */
typedef struct op_cache_entry {
    const char *op;
    rf_rule_fn rule;
    int real_too;
} op_cache_entry;

typedef struct op_cache {
    size_t cap, count;
    op_cache_entry *slots;
} op_cache;

static size_t op_hash(const char *s) {
    size_t h = 5381;
    for (; *s; s++) h = h * 33u + (unsigned char)*s;
    return h;
}

static const op_cache_entry *op_cache_get(op_cache *c, const char *op) {
    if (2 * (c->count + 1) > c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        op_cache_entry *slots = calloc(cap, sizeof(*slots));
        if (!slots) return NULL;
        for (size_t i = 0; i < c->cap; i++) {
            if (!c->slots[i].op) continue;
            size_t j = op_hash(c->slots[i].op) & (cap - 1);
            while (slots[j].op) j = (j + 1) & (cap - 1);
            slots[j] = c->slots[i];
        }
        free(c->slots);
        c->slots = slots;
        c->cap = cap;
    }
    size_t j = op_hash(op) & (c->cap - 1);
    for (; c->slots[j].op; j = (j + 1) & (c->cap - 1))
        if (strcmp(c->slots[j].op, op) == 0) return &c->slots[j];
    c->slots[j].op = op;
    c->slots[j].rule = rf_rule_lookup(op);
    c->slots[j].real_too = rf_rule_real_too(op);
    c->count++;
    return &c->slots[j];
}

void rf_lower_options_init(rf_lower_options *opt) {
    opt->truncate_double = 0;
    opt->cleanup = 1;
}

/* The rule published a value of the result's kind (complex or real). */
static int result_set(const rf_lowering *L, const rf_value *o) {
    const cx_state *st = &L->cx_map[o->id];
    return rf_dtype_is_complex(o->dtype) ? st->re || st->packed : L->real_map[o->id] != NULL;
}

rf_status rf_lower(const rf_graph *in, const rf_lower_options *opt, rf_graph **out, rf_error *err) {
    *out = NULL;
    rf_status vs = rf_verify(in, err); /* rules take a well-formed graph for granted */
    if (vs != RF_OK) return vs;
    rf_lowering L = {0};
    L.in = in;
    if (opt) L.opt = *opt;
    else rf_lower_options_init(&L.opt);
    L.err = err;
    L.out = rf_graph_new();
    if (!L.out) return RF_ERR_NOMEM;
    size_t nv = in->nvalues ? in->nvalues : 1;
    L.real_map = calloc(nv, sizeof(*L.real_map));
    L.cx_map = calloc(nv, sizeof(*L.cx_map));
    if (!L.real_map || !L.cx_map) {
        free(L.real_map);
        free(L.cx_map);
        rf_graph_free(L.out);
        return RF_ERR_NOMEM;
    }
    for (size_t i = 0; i < in->ninputs; i++) copy_boundary(&L, in->inputs[i], 0);
    for (size_t i = 0; i < in->nconsts; i++) copy_boundary(&L, in->consts[i], 1);
    op_cache ops = {0};
    for (size_t i = 0; i < in->nnodes && !L.failed; i++) {
        const rf_node *n = in->nodes[i];
        L.cur = n;
        const op_cache_entry *entry = op_cache_get(&ops, n->op);
        if (!entry) {
            rf_fail(&L, n, RF_ERR_NOMEM, "out of memory");
            break;
        }
        if (!rf_node_touches_complex(n) && !entry->real_too) {
            copy_node(&L, n);
            continue;
        }
        rf_rule_fn rule = entry->rule;
        if (!rule) {
            rf_fail(&L, n, RF_ERR_UNSUPPORTED, "no rule lowers %s on complex values", n->op);
            break;
        }
        size_t first_new = L.out->nnodes;
        rf_status s = rule(&L, n);
        if (s != RF_OK && !L.failed) rf_fail(&L, n, s, "rule for %s failed", n->op);
        for (size_t k = first_new; k < L.out->nnodes && !L.failed; k++)
            if (rf_node_refs_null(L.out->nodes[k]))
                rf_fail(&L, n, RF_ERR_INVALID, "%s: an argument has no real form (a complex tensor where the op "
                        "takes a number?)", n->op);
        for (size_t k = 0; k < n->nouts && !L.failed; k++) /* a result typed unlike what the op makes */
            if (!result_set(&L, n->outs[k]))
                rf_fail(&L, n, RF_ERR_INVALID, "%s gave no value for result %%%s: is its declared dtype %s right?",
                        n->op, n->outs[k]->name, rf_dtype_name(n->outs[k]->dtype));
    }
    free(ops.slots);
    L.cur = NULL;
    if (!L.failed) lower_outputs(&L);
    if (!L.failed && L.opt.cleanup) rf_cleanup(L.out);
    free(L.real_map);
    free(L.cx_map);
    if (L.failed) {
        rf_graph_free(L.out);
        return L.status;
    }
    *out = L.out;
    return RF_OK;
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

rf_attr rf_attr_of_value(rf_value *v) { return rf_attr_ref(v); }

rf_attr rf_attr_of_rv(rf_rv x) { return x.v ? rf_attr_ref(x.v) : rf_attr_float(x.s); }

static void patch_complex_dtypes(rf_lowering *L, rf_attr *a) {
    if (a->kind == RF_A_DTYPE && rf_dtype_is_complex(a->dtype)) a->dtype = rf_component_of(L, a->dtype);
}

rf_node *rf_b_copy_node(rf_lowering *L, const rf_node *n, size_t nsubst, const char *const *names,
                        const rf_attr *attrs, rf_dtype dt, const char *suffix) {
    rf_node *m = rf_node_new(L->out, n->op, n->nargs, n->nouts);
    for (size_t i = 0; i < n->nargs; i++) {
        m->args[i].name = rf_strdup(L->out, n->args[i].name);
        size_t k = 0;
        while (k < nsubst && strcmp(names[k], n->args[i].name) != 0) k++;
        if (k < nsubst) {
            m->args[i].attr = attrs[k];
        } else {
            const rf_attr *a = &n->args[i].attr;
            if (a->kind == RF_A_VALUE && rf_dtype_is_complex(a->value->dtype)) {
                rf_fail(L, n, RF_ERR_INVALID, "argument '%s' of %s is complex and was not replaced",
                        n->args[i].name, n->op);
                m->nargs = i; /* still give the node its results: callers read outs[0] */
                break;
            }
            m->args[i].attr = rf_map_attr(L, a);
        }
        patch_complex_dtypes(L, &m->args[i].attr);
    }
    for (size_t i = 0; i < n->nouts; i++) {
        const rf_value *o = n->outs[i];
        rf_dtype odt = dt != RF_DT_COUNT ? dt : rf_component_of(L, o->dtype);
        char hint[160];
        snprintf(hint, sizeof hint, "%s%s", o->name, suffix);
        m->outs[i] = rf_value_new(L->out, hint, odt, o->rank, o->dims);
    }
    rf_graph_append_node(L->out, m);
    return m;
}
