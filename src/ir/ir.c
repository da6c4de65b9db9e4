#include "ir/ir.h"
#include "ir/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ---- */

typedef struct rf_block {
    struct rf_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} rf_block;

struct rf_arena {
    rf_block *head;
};

static void *arena_alloc(rf_arena *a, size_t size) {
    size = (size + 15u) & ~(size_t)15u;
    if (!a->head || a->head->used + size > a->head->cap) {
        size_t cap = size > 65536 ? size : 65536;
        rf_block *b = rf_malloc(sizeof(rf_block) + cap);
        if (!b) {
            fprintf(stderr, "realify: out of memory\n");
            abort();
        }
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    void *p = a->head->data + a->head->used;
    a->head->used += size;
    memset(p, 0, size);
    return p;
}

void *rf_alloc(rf_graph *g, size_t size) { return arena_alloc(g->arena, size ? size : 1); }

const char *rf_strndup(rf_graph *g, const char *s, size_t n) {
    char *p = rf_alloc(g, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

const char *rf_strdup(rf_graph *g, const char *s) { return rf_strndup(g, s, strlen(s)); }

/* ---- name set: open addressing over the graph's values, keyed by name ---- */

struct rf_name_set {
    size_t count, cap;
    rf_value **slots;
};

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static rf_value *nameset_find(const struct rf_name_set *ns, const char *s) {
    if (!ns->cap) return NULL;
    for (size_t i = hash_str(s) & (ns->cap - 1);; i = (i + 1) & (ns->cap - 1)) {
        if (!ns->slots[i]) return NULL;
        if (strcmp(ns->slots[i]->name, s) == 0) return ns->slots[i];
    }
}

static int nameset_contains(const struct rf_name_set *ns, const char *s) { return nameset_find(ns, s) != NULL; }

static void nameset_insert(rf_graph *g, rf_value *v) {
    struct rf_name_set *ns = g->names;
    if (2 * (ns->count + 1) > ns->cap) {
        size_t cap = ns->cap ? ns->cap * 2 : 64;
        rf_value **slots = rf_alloc(g, cap * sizeof(*slots));
        for (size_t i = 0; i < ns->cap; i++) {
            if (!ns->slots[i]) continue;
            size_t j = hash_str(ns->slots[i]->name) & (cap - 1);
            while (slots[j]) j = (j + 1) & (cap - 1);
            slots[j] = ns->slots[i];
        }
        ns->slots = slots;
        ns->cap = cap;
    }
    size_t j = hash_str(v->name) & (ns->cap - 1);
    while (ns->slots[j]) j = (j + 1) & (ns->cap - 1);
    ns->slots[j] = v;
    ns->count++;
}

rf_value *rf_graph_find_value(const rf_graph *g, const char *name) { return nameset_find(g->names, name); }

int rf_graph_name_taken(const rf_graph *g, const char *name) { return nameset_contains(g->names, name); }

/* ---- dtypes ---- */

static const char *const dtype_names[RF_DT_COUNT] = {
    "b8", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64",
    "c32", "c64", "c128", "symint", "symfloat", "symbool", "object"};

const char *rf_dtype_name(rf_dtype dt) { return dt < RF_DT_COUNT ? dtype_names[dt] : "?"; }

int rf_dtype_parse(const char *s, size_t len, rf_dtype *out) {
    for (int i = 0; i < RF_DT_COUNT; i++) {
        if (strlen(dtype_names[i]) == len && strncmp(dtype_names[i], s, len) == 0) {
            *out = (rf_dtype)i;
            return 1;
        }
    }
    return 0;
}

int rf_dtype_is_complex(rf_dtype dt) { return dt == RF_DT_C32 || dt == RF_DT_C64 || dt == RF_DT_C128; }
int rf_dtype_is_tensor(rf_dtype dt) { return dt <= RF_DT_C128; }
int rf_dtype_is_floating(rf_dtype dt) { return dt >= RF_DT_F16 && dt <= RF_DT_F64; }

size_t rf_dtype_size(rf_dtype dt) {
    static const unsigned char sizes[RF_DT_COUNT] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 4, 8, 16, 0, 0, 0, 0};
    return dt < RF_DT_COUNT ? sizes[dt] : 0;
}

rf_dtype rf_dtype_component(rf_dtype dt, int truncate_double) {
    switch (dt) {
    case RF_DT_C32: return RF_DT_F16;
    case RF_DT_C64: return RF_DT_F32;
    case RF_DT_C128: return truncate_double ? RF_DT_F32 : RF_DT_F64;
    case RF_DT_F64: return truncate_double ? RF_DT_F32 : RF_DT_F64; /* no float64 left at all */
    default: return dt;
    }
}

rf_dtype rf_dtype_complex_of(rf_dtype dt) {
    switch (dt) {
    case RF_DT_F16: return RF_DT_C32;
    case RF_DT_F64: return RF_DT_C128;
    case RF_DT_C32: case RF_DT_C64: case RF_DT_C128: return dt;
    default: return RF_DT_C64;
    }
}

/* ---- graph construction ---- */

rf_graph *rf_graph_new(void) {
    rf_arena *arena = rf_calloc(1, sizeof(*arena));
    if (!arena) return NULL;
    rf_graph tmp = {0};
    tmp.arena = arena;
    rf_graph *g = arena_alloc(arena, sizeof(rf_graph));
    *g = tmp;
    g->names = rf_alloc(g, sizeof(struct rf_name_set));
    return g;
}

void rf_graph_free(rf_graph *g) {
    if (!g) return;
    rf_arena *a = g->arena;
    rf_block *b = a->head;
    while (b) {
        rf_block *next = b->next;
        rf_free(b);
        b = next;
    }
    rf_free(a);
}

size_t rf_graph_node_count(const rf_graph *g) { return g->nnodes; }

const char *rf_graph_node_op(const rf_graph *g, size_t i) { return i < g->nnodes ? g->nodes[i]->op : NULL; }

const char *rf_graph_node_name(const rf_graph *g, size_t i) {
    if (i >= g->nnodes) return NULL;
    return g->nodes[i]->nouts ? g->nodes[i]->outs[0]->name : "";
}

#define GROW(g, arr, count, cap)                                                   \
    do {                                                                           \
        if ((count) == (cap)) {                                                    \
            size_t ncap_ = (cap) ? (cap) * 2 : 16;                                 \
            void *narr_ = rf_alloc((g), ncap_ * sizeof(*(arr)));                   \
            if (count) memcpy(narr_, (arr), (count) * sizeof(*(arr)));             \
            (arr) = narr_;                                                         \
            (cap) = ncap_;                                                         \
        }                                                                          \
    } while (0)

void rf_graph_add_report(rf_graph *g, const char *line) {
    GROW(g, g->report, g->nreport, g->cap_report);
    g->report[g->nreport++] = rf_strdup(g, line);
}

size_t rf_graph_report_count(const rf_graph *g) { return g->nreport; }

const char *rf_graph_report_line(const rf_graph *g, size_t i) { return i < g->nreport ? g->report[i] : NULL; }

static const char *unique_name(rf_graph *g, const char *hint) {
    if (!hint || !*hint) hint = "v";
    if (!nameset_contains(g->names, hint)) return rf_strdup(g, hint);
    size_t len = strlen(hint) + 24;
    char *buf = rf_alloc(g, len);
    for (;;) {
        snprintf(buf, len, "%s_%zu", hint, ++g->name_counter);
        if (!nameset_contains(g->names, buf)) return buf;
    }
}

rf_value *rf_value_new(rf_graph *g, const char *hint, rf_dtype dt, int rank, const rf_dim *dims) {
    rf_value *v = rf_alloc(g, sizeof(*v));
    v->name = unique_name(g, hint);
    nameset_insert(g, v);
    v->dtype = dt;
    v->rank = rank;
    v->packed_from = RF_DT_COUNT;
    if (rank > 0) {
        v->dims = rf_alloc(g, (size_t)rank * sizeof(rf_dim));
        for (int i = 0; i < rank; i++) {
            v->dims[i].size = dims ? dims[i].size : 0;
            v->dims[i].sym = (dims && dims[i].sym) ? rf_strdup(g, dims[i].sym) : NULL;
        }
    }
    GROW(g, g->values, g->nvalues, g->cap_values);
    v->id = g->nvalues;
    g->values[g->nvalues++] = v;
    return v;
}

rf_value *rf_graph_add_input(rf_graph *g, const char *hint, rf_dtype dt, int rank, const rf_dim *dims) {
    rf_value *v = rf_value_new(g, hint, dt, rank, dims);
    GROW(g, g->inputs, g->ninputs, g->cap_inputs);
    g->inputs[g->ninputs++] = v;
    return v;
}

rf_value *rf_graph_add_const(rf_graph *g, const char *hint, rf_dtype dt, int rank, const rf_dim *dims,
                             const char *target, const char *kind) {
    rf_value *v = rf_value_new(g, hint, dt, rank, dims);
    v->const_target = rf_strdup(g, target);
    v->const_kind = rf_strdup(g, kind ? kind : "constant");
    GROW(g, g->consts, g->nconsts, g->cap_consts);
    g->consts[g->nconsts++] = v;
    return v;
}

rf_node *rf_node_new(rf_graph *g, const char *op, size_t nargs, size_t nouts) {
    rf_node *n = rf_alloc(g, sizeof(*n));
    n->op = rf_strdup(g, op);
    n->nargs = nargs;
    n->args = rf_alloc(g, (nargs ? nargs : 1) * sizeof(rf_arg));
    n->nouts = nouts;
    n->outs = rf_alloc(g, (nouts ? nouts : 1) * sizeof(rf_value *));
    return n;
}

void rf_graph_append_node(rf_graph *g, rf_node *n) {
    for (size_t i = 0; i < n->nouts; i++) {
        n->outs[i]->producer = n;
        n->outs[i]->out_index = (int)i;
    }
    GROW(g, g->nodes, g->nnodes, g->cap_nodes);
    n->index = g->nnodes;
    g->nodes[g->nnodes++] = n;
}

void rf_graph_set_outputs(rf_graph *g, size_t n, const rf_attr *outs) {
    g->noutputs = n;
    g->outputs = rf_alloc(g, (n ? n : 1) * sizeof(rf_attr));
    for (size_t i = 0; i < n; i++) g->outputs[i] = outs[i];
}

rf_attr rf_attr_copy(rf_graph *g, const rf_attr *a, rf_value *const *map) {
    rf_attr r = *a;
    if (a->kind == RF_A_STR) r.s = rf_strdup(g, a->s);
    if (a->kind == RF_A_VALUE && map) r.value = map[a->value->id];
    if (a->kind == RF_A_LIST) {
        r.items = rf_alloc(g, (a->n ? a->n : 1) * sizeof(rf_attr));
        for (size_t i = 0; i < a->n; i++) r.items[i] = rf_attr_copy(g, &a->items[i], map);
    }
    return r;
}

static rf_attr attr_of_kind(rf_attr_kind kind) {
    rf_attr a;
    memset(&a, 0, sizeof a);
    a.kind = kind;
    a.out_mark = RF_DT_COUNT;
    return a;
}

rf_attr rf_attr_int(int64_t i) {
    rf_attr a = attr_of_kind(RF_A_INT);
    a.i = i;
    return a;
}

rf_attr rf_attr_float(double f) {
    rf_attr a = attr_of_kind(RF_A_FLOAT);
    a.f = f;
    return a;
}

rf_attr rf_attr_bool(int b) {
    rf_attr a = attr_of_kind(RF_A_BOOL);
    a.i = b != 0;
    return a;
}

rf_attr rf_attr_ref(rf_value *v) {
    rf_attr a = attr_of_kind(RF_A_VALUE);
    a.value = v;
    return a;
}

rf_attr rf_attr_none(void) { return attr_of_kind(RF_A_NONE); }

rf_attr rf_attr_str(const char *s) {
    rf_attr a = attr_of_kind(RF_A_STR);
    a.s = s;
    return a;
}

rf_attr rf_attr_list(rf_graph *g, size_t n) {
    rf_attr a = attr_of_kind(RF_A_LIST);
    a.n = n;
    a.items = rf_alloc(g, (n ? n : 1) * sizeof(rf_attr));
    for (size_t i = 0; i < n; i++) a.items[i] = attr_of_kind(RF_A_NONE);
    return a;
}

rf_attr rf_attr_ints(rf_graph *g, size_t n, const int64_t *values) {
    rf_attr a = rf_attr_list(g, n);
    for (size_t i = 0; i < n; i++) a.items[i] = rf_attr_int(values[i]);
    return a;
}

const rf_attr *rf_node_arg(const rf_node *n, const char *name) {
    for (size_t i = 0; i < n->nargs; i++)
        if (strcmp(n->args[i].name, name) == 0) return &n->args[i].attr;
    return NULL;
}

int rf_attr_is_tensor(const rf_attr *a) {
    return a && a->kind == RF_A_VALUE && rf_dtype_is_tensor(a->value->dtype);
}

int rf_dim_equal(const rf_dim *a, const rf_dim *b) {
    if (!a->sym && !b->sym) return a->size == b->size;
    if (a->sym && b->sym) return strcmp(a->sym, b->sym) == 0;
    return 0;
}

int rf_value_same_shape(const rf_value *a, const rf_value *b) {
    if (a->rank != b->rank || a->rank < 0) return 0;
    for (int i = 0; i < a->rank; i++)
        if (!rf_dim_equal(&a->dims[i], &b->dims[i])) return 0;
    return 1;
}

const char *rf_status_name(rf_status s) {
    switch (s) {
    case RF_OK: return "ok";
    case RF_ERR_PARSE: return "parse error";
    case RF_ERR_UNSUPPORTED: return "unsupported op";
    case RF_ERR_INVALID: return "invalid graph";
    case RF_ERR_DTYPE: return "dtype error";
    case RF_ERR_NOMEM: return "out of memory";
    case RF_ERR_TARGET: return "op outside the target";
    }
    return "unknown";
}

void rf_string_free(char *s) { rf_free(s); }

int rf_attr_refs(const rf_attr *a, const rf_value *v) {
    if (a->kind == RF_A_VALUE) return a->value == v;
    if (a->kind == RF_A_LIST)
        for (size_t i = 0; i < a->n; i++)
            if (rf_attr_refs(&a->items[i], v)) return 1;
    return 0;
}

int rf_node_refs_null(const rf_node *n) {
    for (size_t i = 0; i < n->nargs; i++)
        if (rf_attr_refs(&n->args[i].attr, NULL)) return 1;
    return 0;
}

int rf_str_in(const char *s, const char *const *list) {
    for (; *list; list++)
        if (strcmp(s, *list) == 0) return 1;
    return 0;
}

double rf_le_float(const unsigned char *p, size_t esize) {
    uint64_t b = 0;
    for (size_t k = esize; k-- > 0;) b = (b << 8) | p[k];
    if (esize == 8) {
        double d;
        memcpy(&d, &b, 8);
        return d;
    }
    uint32_t b32 = (uint32_t)b;
    float f;
    memcpy(&f, &b32, 4);
    return f;
}
