/* The IR verifier: checks what the lowering and its rules take for granted,
 * so that a malformed graph is an error naming the node and line, never a
 * crash. It reads the graph only.
 *
 * - every value is defined once, before its first use (so there is no cycle);
 * - types are sane: known dtype, rank in [-1, RF_MAX_RANK], static sizes
 *   non-negative, element count at most RF_MAX_NUMEL;
 * - argument lists nest at most RF_MAX_NEST deep;
 * - ops with a rule have their required tensor arguments and the right number
 *   of tensor results (verify_ops.c);
 * - dim-style integer arguments are in range where the ranks are known;
 * - dtypes are consistent where the op fixes them (view_as_real, real, ...). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/verify.h"
#include "ir/mem.h"

typedef struct verifier {
    const rf_graph *g;
    rf_error *err;
    unsigned char *defined; /* by value id */
    const rf_node *node;    /* node being checked, or NULL */
    int failed;
} verifier;

static void vfail(verifier *V, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void vfail(verifier *V, const char *fmt, ...) {
    if (V->failed) return;
    V->failed = 1;
    if (!V->err) return;
    rf_error *e = V->err;
    e->code = RF_ERR_INVALID;
    const rf_node *n = V->node;
    snprintf(e->op, sizeof e->op, "%s", n && n->op ? n->op : "");
    const char *first = n && n->nouts && n->outs[0] && n->outs[0]->name ? n->outs[0]->name : "";
    snprintf(e->node, sizeof e->node, "%s", first);
    e->line = n ? n->line : 0;
    char msg[400], where[300] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n) {
        int k = n->line ? snprintf(where, sizeof where, "line %d: ", n->line) : 0;
        snprintf(where + k, sizeof where - (size_t)k, "node %zu (%s%.80s = %.80s): ", n->index, *first ? "%" : "",
                 *first ? first : "()", n->op ? n->op : "?");
    }
    size_t k = strlen(where) < sizeof e->message ? strlen(where) : 0;
    memcpy(e->message, where, k);
    snprintf(e->message + k, sizeof e->message - k, "%s", msg);
}

/* ---- values and types ---- */

static int known_value(verifier *V, const rf_value *v) {
    if (!v || v->id >= V->g->nvalues || V->g->values[v->id] != v || !v->name) {
        vfail(V, "refers to a value that is not in the graph");
        return 0;
    }
    return 1;
}

static void check_type(verifier *V, const rf_value *v) {
    if (v->dtype >= RF_DT_COUNT) {
        vfail(V, "%%%s has an unknown dtype", v->name);
        return;
    }
    int narrowed = v->packed_from == RF_DT_F64 && v->dtype == RF_DT_F32; /* truncate_double's !f64 */
    if (v->packed_from != RF_DT_COUNT && !rf_dtype_is_complex(v->packed_from) && !narrowed) {
        vfail(V, "%%%s carries a mark that is neither a complex dtype nor f64 on an f32 value", v->name);
        return;
    }
    if (v->storage_read && (v->packed_from == RF_DT_COUNT || v->planar || v->producer)) {
        vfail(V, "%%%s is read through its storage but is not a packed [..., 2] input or constant", v->name);
        return;
    }
    if (!rf_dtype_is_tensor(v->dtype)) {
        if (v->rank != 0) vfail(V, "%%%s: a %s has no shape", v->name, rf_dtype_name(v->dtype));
        return;
    }
    if (v->rank < -1 || v->rank > RF_MAX_RANK) {
        vfail(V, "%%%s has rank %d; ranks above %d are not supported", v->name, v->rank, RF_MAX_RANK);
        return;
    }
    if (v->rank > 0 && !v->dims) {
        vfail(V, "%%%s has no sizes", v->name);
        return;
    }
    int64_t numel = 1;
    for (int i = 0; i < v->rank; i++) {
        const rf_dim *d = &v->dims[i];
        if (d->sym) continue;
        if (d->size < 0) {
            vfail(V, "%%%s has a negative size %lld at dim %d", v->name, (long long)d->size, i);
            return;
        }
        if (d->size == 0) continue; /* partial products of the other sizes must still fit */
        if (d->size > RF_MAX_NUMEL / numel) {
            vfail(V, "%%%s has more than 2^56 elements", v->name);
            return;
        }
        numel *= d->size;
    }
    if (narrowed && v->planar) vfail(V, "%%%s: only a complex mark can be planar", v->name);
    if (v->packed_from != RF_DT_COUNT && !narrowed && (v->rank == 0 || (v->rank > 0 && !v->dims[v->rank - 1].sym &&
                                                            v->dims[v->rank - 1].size != 2))) {
        vfail(V, "%%%s is marked !%s but its last dim is not 2", v->name, rf_dtype_name(v->packed_from));
    }
}

/* ---- attributes ---- */

static void check_attr(verifier *V, const rf_attr *a, int depth) {
    if (V->failed) return;
    if (depth > RF_MAX_NEST) {
        vfail(V, "argument lists nest deeper than %d", RF_MAX_NEST);
        return;
    }
    switch (a->kind) {
    case RF_A_NONE: case RF_A_INT: case RF_A_FLOAT: case RF_A_BOOL: case RF_A_COMPLEX: return;
    case RF_A_STR:
        if (!a->s) vfail(V, "a string argument has no text");
        return;
    case RF_A_DTYPE:
        if (a->dtype >= RF_DT_COUNT) vfail(V, "a dtype argument is not a dtype");
        return;
    case RF_A_VALUE:
        if (!known_value(V, a->value)) return;
        if (!V->defined[a->value->id]) {
            const rf_node *p = a->value->producer;
            if (p && V->node && p->index >= V->node->index)
                vfail(V, "uses %%%s before it is defined (node %zu makes it): a cycle", a->value->name,
                      p->index);
            else
                vfail(V, "uses %%%s, which no input, constant or earlier node defines", a->value->name);
        }
        return;
    case RF_A_LIST:
        if (a->n && !a->items) {
            vfail(V, "a list argument has no items");
            return;
        }
        for (size_t i = 0; i < a->n && !V->failed; i++) check_attr(V, &a->items[i], depth + 1);
        return;
    }
    vfail(V, "an argument has an unknown kind");
}

static const rf_attr *arg_of(const rf_node *n, const char *name, size_t len) {
    for (size_t i = 0; i < n->nargs; i++)
        if (n->args[i].name && strlen(n->args[i].name) == len && strncmp(n->args[i].name, name, len) == 0)
            return &n->args[i].attr;
    return NULL;
}

static int is_tensor_value(const rf_attr *a) {
    return a && a->kind == RF_A_VALUE && rf_dtype_is_tensor(a->value->dtype);
}

/* Required tensor arguments and result count of an op with a rule. */
static void check_signature(verifier *V, const rf_node *n, const rf_op_info *info) {
    for (const char *p = info->required; *p && !V->failed;) {
        size_t len = strcspn(p, " ");
        int is_list = len > 2 && p[len - 2] == '[';
        int or_number = len > 1 && p[len - 1] == '#'; /* a wrapped number: autograd's other.conj() of a scalar */
        size_t name_len = is_list ? len - 2 : or_number ? len - 1 : len;
        const rf_attr *a = arg_of(n, p, name_len);
        if (!a || a->kind == RF_A_NONE) {
            vfail(V, "required argument '%.*s' is missing", (int)name_len, p);
        } else if (is_list) {
            if (a->kind != RF_A_LIST) vfail(V, "argument '%.*s' must be a list of tensors", (int)name_len, p);
            for (size_t i = 0; i < a->n && !V->failed; i++)
                if (!is_tensor_value(&a->items[i]))
                    vfail(V, "item %zu of '%.*s' is not a tensor", i, (int)name_len, p);
        } else if (or_number && (a->kind == RF_A_INT || a->kind == RF_A_FLOAT || a->kind == RF_A_BOOL ||
                                 a->kind == RF_A_COMPLEX)) {
        } else if (name_len == 4 && strncmp(p, "self", 4) == 0 && !is_tensor_value(a)) {
            vfail(V, "argument 'self' must be a tensor");
        }
        p += len;
        while (*p == ' ') p++;
    }
    if (V->failed) return;
    if (info->nresults == RF_SYMBOLIC_RESULT) {
        if (n->nouts != 1 || n->outs[0]->dtype != RF_DT_SYMINT)
            vfail(V, "%s makes one symint result", n->op);
        return;
    }
    if (info->nresults >= 0 && n->nouts != (size_t)info->nresults) {
        vfail(V, "declares %zu results; %s has %d", n->nouts, n->op, info->nresults);
        return;
    }
    for (size_t i = 0; i < n->nouts; i++)
        if (!rf_dtype_is_tensor(n->outs[i]->dtype)) {
            vfail(V, "result %%%s is a %s; %s makes tensors", n->outs[i]->name, rf_dtype_name(n->outs[i]->dtype),
                  n->op);
            return;
        }
}

/* Dtypes the op fixes: the complex/real views and the complex-to-real ops. */
static void check_dtypes(verifier *V, const rf_node *n) {
    const rf_attr *self = arg_of(n, "self", 4);
    if (!is_tensor_value(self) || n->nouts != 1) return;
    rf_dtype in = self->value->dtype, out = n->outs[0]->dtype;
    const char *op = n->op;
    if (strcmp(op, "aten.view_as_real.default") == 0) {
        if (!rf_dtype_is_complex(in) || out != rf_dtype_component(in, 0))
            vfail(V, "view_as_real of %s must give the component dtype of a complex tensor, not %s",
                  rf_dtype_name(in), rf_dtype_name(out));
        else if (self->value->rank >= 0 && n->outs[0]->rank >= 0 && n->outs[0]->rank != self->value->rank + 1)
            vfail(V, "view_as_real adds one dim: rank %d gives rank %d, not %d", self->value->rank,
                  self->value->rank + 1, n->outs[0]->rank);
    } else if (strcmp(op, "aten.view_as_complex.default") == 0) {
        if (!rf_dtype_is_floating(in) || out != rf_dtype_complex_of(in) || rf_dtype_component(out, 0) != in)
            vfail(V, "view_as_complex of %s cannot give %s", rf_dtype_name(in), rf_dtype_name(out));
        else if (self->value->rank == 0)
            vfail(V, "view_as_complex needs a last dim of size 2");
    } else if (rf_dtype_is_complex(in) &&
               (strcmp(op, "aten.real.default") == 0 || strcmp(op, "aten.imag.default") == 0 ||
                strcmp(op, "aten.abs.default") == 0 || strcmp(op, "aten.angle.default") == 0)) {
        if (rf_dtype_is_complex(out) || !rf_dtype_is_tensor(out))
            vfail(V, "%s of a complex tensor is real, not %s", op, rf_dtype_name(out));
    }
}

/* stft/istft: a window is 1-D with win_length (default n_fft) entries. */
static void check_window(verifier *V, const rf_node *n) {
    if (strncmp(n->op, "aten.stft.", 10) != 0 && strncmp(n->op, "aten.istft.", 11) != 0) return;
    const rf_attr *w = arg_of(n, "window", 6);
    if (!is_tensor_value(w)) return;
    const rf_value *v = w->value;
    if (v->rank != 1) {
        vfail(V, "the window must be a 1-D tensor of known rank, not %%%s", v->name);
        return;
    }
    const rf_attr *len = arg_of(n, "win_length", 10);
    if (!len || len->kind == RF_A_NONE) len = arg_of(n, "n_fft", 5);
    if (len && len->kind == RF_A_INT && !v->dims[0].sym && v->dims[0].size != len->i)
        vfail(V, "the window has %lld entries; win_length (or n_fft) is %lld", (long long)v->dims[0].size,
              (long long)len->i);
}

/* ---- dims in range ---- */

static int is_dim_arg(const rf_node *n, const char *name) {
    static const char *const names[] = {"dim", "dims", "dim0", "dim1", "dim2", "start_dim", "end_dim",
                                        "dimension", NULL};
    if (strncmp(n->op, "aten.tile.", 10) == 0) return 0; /* tile's dims are repeat counts (torch.export keeps it) */
    if (rf_str_in(name, names)) return 1;
    return strncmp(n->op, "aten.movedim.", 13) == 0 && (strcmp(name, "source") == 0 ||
                                                        strcmp(name, "destination") == 0);
}

/* Ops whose dim counts the dims of the result, one more than the operand has. */
static int dim_adds_one(const char *op) {
    static const char *const bases[] = {"unsqueeze", "unsqueeze_", "unsqueeze_copy", "diag_embed", "stack",
                                        "_stack", NULL};
    if (strncmp(op, "aten.", 5) != 0) return 0;
    const char *base = op + 5, *dot = strchr(base, '.');
    size_t len = dot ? (size_t)(dot - base) : strlen(base);
    for (const char *const *b = bases; *b; b++)
        if (strlen(*b) == len && strncmp(base, *b, len) == 0) return 1;
    return 0;
}

/* The rank a dim argument indexes: the largest rank among the operands
 * (self, input, other, tensors, x, y), plus one where the op adds a dim; without
 * such operands, the largest result rank. -1 when a rank it needs is unknown. */
static int reference_rank(const rf_node *n) {
    int r = 0, have = 0;
    for (size_t i = 0; i < n->nargs; i++) {
        const char *name = n->args[i].name;
        const rf_attr *a = &n->args[i].attr;
        if (strcmp(name, "self") != 0 && strcmp(name, "input") != 0 && strcmp(name, "other") != 0 &&
            strcmp(name, "tensors") != 0 && strcmp(name, "x") != 0 && strcmp(name, "y") != 0)
            continue; /* x, y: linalg_vecdot, trapezoid and the like, as torch.export keeps them */
        size_t k = a->kind == RF_A_LIST ? a->n : 1;
        for (size_t j = 0; j < k; j++) {
            const rf_attr *t = a->kind == RF_A_LIST ? &a->items[j] : a;
            if (!is_tensor_value(t)) continue;
            if (t->value->rank < 0) return -1;
            if (t->value->rank > r) r = t->value->rank;
            have = 1;
        }
    }
    if (have) return r + dim_adds_one(n->op);
    for (size_t i = 0; i < n->nouts; i++) {
        const rf_value *o = n->outs[i];
        if (!rf_dtype_is_tensor(o->dtype)) continue;
        if (o->rank < 0) return -1;
        if (o->rank > r) r = o->rank;
        have = 1;
    }
    return have ? r : -1;
}

static void check_dim_value(verifier *V, const char *name, int64_t d, int rank) {
    int64_t r = rank > 0 ? rank : 1;
    if (d < -r || d >= r)
        vfail(V, "%s=%lld is out of range for rank %d (expected %lld..%lld)", name, (long long)d, rank,
              (long long)-r, (long long)(r - 1));
}

static void check_dims(verifier *V, const rf_node *n) {
    int rank = -2;
    for (size_t i = 0; i < n->nargs && !V->failed; i++) {
        const rf_arg *a = &n->args[i];
        if (!is_dim_arg(n, a->name)) continue;
        for (size_t k = 0; k < (a->attr.kind == RF_A_LIST ? a->attr.n : 1); k++) {
            const rf_attr *t = a->attr.kind == RF_A_LIST ? &a->attr.items[k] : &a->attr;
            if (is_tensor_value(t)) {
                vfail(V, "%s must be an integer, not the tensor %%%s", a->name, t->value->name);
                return;
            }
        }
        if (rank == -2) rank = reference_rank(n);
        if (rank < 0) continue;
        if (a->attr.kind == RF_A_INT) check_dim_value(V, a->name, a->attr.i, rank);
        else if (a->attr.kind == RF_A_LIST)
            for (size_t k = 0; k < a->attr.n && !V->failed; k++)
                if (a->attr.items[k].kind == RF_A_INT) check_dim_value(V, a->name, a->attr.items[k].i, rank);
    }
}

/* ---- graph ---- */

static void define(verifier *V, const rf_value *v) {
    if (!known_value(V, v)) return;
    if (V->defined[v->id]) {
        vfail(V, "%%%s is defined twice", v->name);
        return;
    }
    V->defined[v->id] = 1;
    check_type(V, v);
}

static void check_node(verifier *V, const rf_node *n, size_t index) {
    V->node = n;
    if (!n->op || !*n->op) {
        vfail(V, "has no op name");
        return;
    }
    if (n->index != index) {
        vfail(V, "is out of place in the node list");
        return;
    }
    if ((n->nargs && !n->args) || (n->nouts && !n->outs)) {
        vfail(V, "has no argument or result list");
        return;
    }
    for (size_t i = 0; i < n->nargs && !V->failed; i++) {
        if (!n->args[i].name) vfail(V, "argument %zu has no name", i);
        else check_attr(V, &n->args[i].attr, 0);
    }
    for (size_t i = 0; i < n->nouts && !V->failed; i++) {
        if (!known_value(V, n->outs[i])) return;
        if (n->outs[i]->producer != n) {
            vfail(V, "result %%%s belongs to another node", n->outs[i]->name);
            return;
        }
        define(V, n->outs[i]);
    }
    if (V->failed) return;
    const rf_op_info *info = rf_op_info_of(n->op);
    if (info) check_signature(V, n, info);
    if (!V->failed) check_dtypes(V, n);
    if (!V->failed) check_window(V, n);
    if (!V->failed) check_dims(V, n);
    if (!V->failed && n->nouts == 1 && n->outs[0]->rank >= 0) {
        int want = rf_expected_rank(n);
        if (want >= 0 && want != n->outs[0]->rank)
            vfail(V, "%%%s is declared rank %d; %s of these operands has rank %d", n->outs[0]->name,
                  n->outs[0]->rank, n->op, want);
    }
}

static rf_status verify_impl(const rf_graph *g, rf_error *err) {
    verifier V = {0};
    V.g = g;
    V.err = err;
    V.defined = rf_calloc(g->nvalues ? g->nvalues : 1, 1);
    if (!V.defined) return RF_ERR_NOMEM;
    for (size_t i = 0; i < g->ninputs && !V.failed; i++) {
        define(&V, g->inputs[i]);
        if (!V.failed && g->inputs[i]->producer) vfail(&V, "input %%%s has a producer", g->inputs[i]->name);
    }
    for (size_t i = 0; i < g->nconsts && !V.failed; i++) {
        const rf_value *c = g->consts[i];
        define(&V, c);
        if (!V.failed && (!c->const_kind || !c->const_target || c->producer))
            vfail(&V, "constant %%%s has no kind or target", c->name);
        if (!V.failed && c->const_data && c->const_nbytes > RF_MAX_DATA_BYTES)
            vfail(&V, "constant %%%s has more than %zu bytes of data", c->name, RF_MAX_DATA_BYTES);
    }
    for (size_t i = 0; i < g->nnodes && !V.failed; i++) {
        if (!g->nodes[i]) {
            vfail(&V, "node %zu is missing", i);
            break;
        }
        check_node(&V, g->nodes[i], i);
    }
    V.node = NULL;
    if (g->noutputs && !g->outputs) vfail(&V, "the graph's output list is missing");
    for (size_t i = 0; i < g->noutputs && !V.failed; i++) {
        check_attr(&V, &g->outputs[i], 0);
        rf_dtype m = g->outputs[i].out_mark;
        if (!V.failed && m != RF_DT_COUNT && !rf_dtype_is_complex(m) && m != RF_DT_F64)
            vfail(&V, "output %zu has a bad mark", i);
    }
    rf_free(V.defined);
    return V.failed ? RF_ERR_INVALID : RF_OK;
}

rf_status rf_verify(const rf_graph *g, rf_error *err) {
    RF_OOM_GUARD(scope, {
        if (err) {
            memset(err, 0, sizeof(*err));
            snprintf(err->message, sizeof(err->message), "out of memory while verifying");
        }
        return RF_ERR_NOMEM;
    })
    rf_status s = verify_impl(g, err);
    rf_oom_close(&scope);
    return s;
}
