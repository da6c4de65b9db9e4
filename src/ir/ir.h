/* The realify IR: values, nodes with named arguments, graphs. All memory of a
 * graph lives in its arena and is released at once by rf_graph_free. */
#ifndef REALIFY_IR_H
#define REALIFY_IR_H

#include <stddef.h>
#include <stdint.h>

#include "realify.h"

typedef enum rf_dtype {
    RF_DT_BOOL, RF_DT_U8, RF_DT_I8, RF_DT_I16, RF_DT_I32, RF_DT_I64,
    RF_DT_F16, RF_DT_BF16, RF_DT_F32, RF_DT_F64,
    RF_DT_C32, RF_DT_C64, RF_DT_C128,
    RF_DT_SYMINT,   /* a symbolic integer scalar (SymInt) */
    RF_DT_SYMFLOAT, /* a symbolic float scalar */
    RF_DT_SYMBOOL,  /* a symbolic bool scalar */
    RF_DT_OBJECT,   /* any other non-tensor value */
    RF_DT_COUNT
} rf_dtype;

const char *rf_dtype_name(rf_dtype dt);
int rf_dtype_parse(const char *s, size_t len, rf_dtype *out);
int rf_dtype_is_complex(rf_dtype dt);
int rf_dtype_is_tensor(rf_dtype dt);
int rf_dtype_is_floating(rf_dtype dt);
/* Bytes per element of a tensor dtype (0 for non-tensor dtypes). */
size_t rf_dtype_size(rf_dtype dt);
/* The real component dtype of a complex dtype; the dtype itself otherwise. */
rf_dtype rf_dtype_component(rf_dtype dt, int truncate_double);
/* The complex dtype whose component is `dt` (float32 -> complex64). */
rf_dtype rf_dtype_complex_of(rf_dtype dt);

typedef struct rf_dim {
    int64_t size;    /* valid when sym == NULL */
    const char *sym; /* symbolic size expression, e.g. "s0" or "2*s0" */
} rf_dim;

typedef struct rf_node rf_node;

typedef struct rf_value {
    const char *name;
    rf_dtype dtype;
    int rank;        /* -1: unknown shape */
    rf_dim *dims;
    rf_node *producer; /* NULL for graph inputs and constants */
    int out_index;
    size_t id;       /* index in the graph's value list */
    /* Graph inputs and constants: */
    const char *const_target; /* attribute path of a constant, else NULL */
    const char *const_kind;   /* "param", "buffer" or "constant" */
    rf_dtype packed_from;     /* complex dtype this real [...,2] value carries, or RF_DT_COUNT */
    int planar;               /* with packed_from: the layout is [2, ...] (parts along dim 0) */
    int storage_read;         /* with packed_from: read through its storage (as_strided at twice the offset and
                                 strides), so the caller passes the [..., 2] view of the whole storage, converted
                                 when the dtype changes */
    /* Constants of kind "data" carry their elements inline: little-endian bytes
     * in the dtype's layout, row-major (rf_b_constant makes them). */
    const unsigned char *const_data;
    size_t const_nbytes;
} rf_value;

typedef enum rf_attr_kind {
    RF_A_NONE, RF_A_INT, RF_A_FLOAT, RF_A_BOOL, RF_A_STR, RF_A_DTYPE,
    RF_A_COMPLEX, RF_A_VALUE, RF_A_LIST
} rf_attr_kind;

typedef struct rf_attr {
    rf_attr_kind kind;
    int64_t i;          /* INT, BOOL */
    double f, f_im;     /* FLOAT, COMPLEX */
    const char *s;      /* STR */
    rf_dtype dtype;     /* DTYPE */
    rf_value *value;    /* VALUE */
    size_t n;           /* LIST */
    struct rf_attr *items;
    rf_dtype out_mark;  /* graph outputs only: packed_from mark, or RF_DT_COUNT */
} rf_attr;

typedef struct rf_arg {
    const char *name;
    rf_attr attr;
} rf_arg;

struct rf_node {
    const char *op;
    size_t nargs;
    rf_arg *args;
    size_t nouts;
    rf_value **outs;
    size_t index; /* position in the graph's node list */
    const rf_node *origin; /* lowering output: the input-graph node it came from (valid while that graph lives) */
    int copied;   /* lowering output: the origin itself, taken unchanged (the user's op, never judged by a target) */
    int line;     /* line in the text IR it was parsed from; 0 if none */
};

typedef struct rf_arena rf_arena;

struct rf_graph {
    rf_arena *arena;
    size_t ninputs, cap_inputs;
    rf_value **inputs;
    size_t nconsts, cap_consts;
    rf_value **consts;
    size_t nnodes, cap_nodes;
    rf_node **nodes;
    size_t nvalues, cap_values;
    rf_value **values;
    size_t noutputs;
    rf_attr *outputs; /* each a VALUE, NONE or scalar attr */
    size_t name_counter;
    struct rf_name_set *names;
    size_t nreport, cap_report;
    const char **report; /* the lowering report: what fired where (rf_graph_add_report) */
};

/* Arena */
void *rf_alloc(rf_graph *g, size_t size);
const char *rf_strdup(rf_graph *g, const char *s);
const char *rf_strndup(rf_graph *g, const char *s, size_t n);

/* Construction */
rf_graph *rf_graph_new(void);
/* A value with a unique name derived from `hint`. dims may be NULL when rank <= 0. */
rf_value *rf_value_new(rf_graph *g, const char *hint, rf_dtype dt, int rank, const rf_dim *dims);
rf_value *rf_graph_add_input(rf_graph *g, const char *hint, rf_dtype dt, int rank, const rf_dim *dims);
rf_value *rf_graph_add_const(rf_graph *g, const char *hint, rf_dtype dt, int rank, const rf_dim *dims,
                             const char *target, const char *kind);
rf_node *rf_node_new(rf_graph *g, const char *op, size_t nargs, size_t nouts);
void rf_graph_append_node(rf_graph *g, rf_node *n);
void rf_graph_set_outputs(rf_graph *g, size_t n, const rf_attr *outs);
/* Appends a copy of `line` to the graph's lowering report (rf_graph_report_line). */
void rf_graph_add_report(rf_graph *g, const char *line);
int rf_graph_name_taken(const rf_graph *g, const char *name);
/* The value named `name`, or NULL. */
rf_value *rf_graph_find_value(const rf_graph *g, const char *name);

/* Deep copy of an attribute into graph g, mapping VALUE refs through `map`
 * (indexed by the source value's id) when map != NULL. */
rf_attr rf_attr_copy(rf_graph *g, const rf_attr *a, rf_value *const *map);

/* Some value reference in n's arguments (lists included) is NULL: a mapping
 * that found no value, which no later pass may meet. */
int rf_node_refs_null(const rf_node *n);

/* Attribute constructors */
rf_attr rf_attr_int(int64_t i);
rf_attr rf_attr_float(double f);
rf_attr rf_attr_bool(int b);
rf_attr rf_attr_ref(rf_value *v);
rf_attr rf_attr_none(void);
/* `s` is not copied: it must outlive the graph (a literal, or rf_strdup'd). */
rf_attr rf_attr_str(const char *s);
/* A list of n items allocated in g, all RF_A_NONE until the caller fills them. */
rf_attr rf_attr_list(rf_graph *g, size_t n);
/* A list of n ints allocated in g. */
rf_attr rf_attr_ints(rf_graph *g, size_t n, const int64_t *values);

/* Argument lookup */
const rf_attr *rf_node_arg(const rf_node *n, const char *name);
/* Whether a (a value, or a list at any depth) refers to v (NULL: a missing value). */
int rf_attr_refs(const rf_attr *a, const rf_value *v);
int rf_attr_is_tensor(const rf_attr *a);

/* Readers (readers.c). The one node that reads v, or NULL: none, several, or v is a graph output. With `through`
 * (an argument name, e.g. "self"), that node must also hold v in one argument only, the one of that name (as
 * the value itself or inside a list); NULL otherwise. g must be verified (v defined before its uses). */
const rf_node *rf_sole_reader(const rf_graph *g, const rf_value *v, const char *through);

/* Verifier (verify.c): rf_verify is declared in realify.h. */

/* A little-endian float32 (esize 4) or float64 (esize 8) at p, as inline constant data holds them. */
double rf_le_float(const unsigned char *p, size_t esize);

/* Whether s equals an entry of the NULL-terminated list (op names, argument names). */
int rf_str_in(const char *s, const char *const *list);

/* Shapes */
int rf_dim_equal(const rf_dim *a, const rf_dim *b);
int rf_value_same_shape(const rf_value *a, const rf_value *b);

#endif
