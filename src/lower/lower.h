/* The lowering context and the builder API that rules use.
 *
 * Inside the rewrite a complex value is a pair (re, im) of real values; the
 * interleaved [..., 2] form ("packed") is made only where a boundary needs it.
 * Rules read operands with rf_in_*, build real ops with rf_b_*, combine complex
 * operands with rf_cx_*, and publish results with rf_set_*. */
#ifndef REALIFY_LOWER_H
#define REALIFY_LOWER_H

#include "ir/ir.h"

/* A real operand: a value, or the scalar `s` when v == NULL. */
typedef struct rf_rv {
    rf_value *v;
    double s;
} rf_rv;

/* A complex operand. When im_zero is set, im is exactly zero and absent. */
typedef struct rf_cx {
    rf_rv re, im;
    int im_zero;
} rf_cx;

/* The operand of two tensor parts; im NULL: exactly zero. */
static inline rf_cx rf_cx_values(rf_value *re, rf_value *im) {
    rf_cx c = {{re, 0.0}, {im, 0.0}, im == NULL};
    return c;
}

/* The imaginary part's value, or NULL when it is known to be zero. */
static inline rf_value *rf_cx_im_or_null(rf_cx z) { return z.im_zero ? NULL : z.im.v; }

typedef struct rf_lowering rf_lowering;
typedef rf_status (*rf_rule_fn)(rf_lowering *L, const rf_node *n);

/* Context queries */
const rf_lower_options *rf_options(const rf_lowering *L);
/* The receiver is a graph runtime (target onnx or openvino): ONNX Runtime and OpenVINO run each node as a pass of
 * its own, and their ops lose some of torch's special values, so some forms differ for them. */
int rf_graph_runtime(const rf_lowering *L);
/* Real component dtype for a (complex or real) dtype under the options. */
rf_dtype rf_component_of(const rf_lowering *L, rf_dtype dt);
/* Component dtype of the node's first output. */
rf_dtype rf_work_dtype(const rf_lowering *L, const rf_node *n);
rf_graph *rf_out_graph(rf_lowering *L);
rf_status rf_fail(rf_lowering *L, const rf_node *n, rf_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* RF_OK until something failed, then the first failure's status. Once a run
 * has failed, operand reads (rf_in_*, rf_cx_of, rf_packed_of) return a stand-in
 * value of unknown rank and rf_set_* do nothing, so a rule builds straight on
 * and checks once, with RF_CHECK, before it relies on a shape or returns. */
rf_status rf_status_of(const rf_lowering *L);
#define RF_CHECK(L)                                                                                        \
    do {                                                                                                   \
        rf_status rf_check_status_ = rf_status_of(L);                                                      \
        if (rf_check_status_ != RF_OK) return rf_check_status_;                                            \
    } while (0)

/* Operands of the node being lowered */
int rf_is_complex_arg(const rf_node *n, const char *name);
/* The new-graph value of a real tensor argument. */
rf_value *rf_in_real(rf_lowering *L, const rf_node *n, const char *name);
/* A complex operand from a tensor (complex or real) or a scalar argument,
 * with tensor parts cast to `dt`. */
rf_cx rf_in_cx(rf_lowering *L, const rf_node *n, const char *name, rf_dtype dt);
/* The complex operand for an original value (complex or real). */
rf_cx rf_cx_of(rf_lowering *L, const rf_value *orig, rf_dtype dt);
/* The original value is real, or complex with an imaginary part known to be zero. */
int rf_cx_known_real(const rf_lowering *L, const rf_value *orig);
/* The original value is a complex graph input or constant, held packed. */
int rf_is_packed_input(const rf_lowering *L, const rf_value *orig);
/* The original complex value's packed [..., 2] form exists already (an input, a constant, a result published
 * packed, or one read packed before), so rf_packed_of costs no stack of its parts. */
int rf_holds_packed(const rf_lowering *L, const rf_value *orig);
/* The packed [..., 2] form of an original complex value. */
rf_value *rf_packed_of(rf_lowering *L, const rf_value *orig);
/* The packed form of a complex graph input or constant (rf_is_packed_input) that the rule reads
 * through its storage (as_strided), marked so: the caller then passes the [..., 2] view of the whole
 * storage (converted as a whole when the dtype changes), and element k of the complex storage is
 * at 2k, 2k+1 of the packed one's. */
rf_value *rf_packed_storage_of(rf_lowering *L, const rf_value *orig);
/* Maps an attribute of the input graph into the new graph (value refs mapped). */
rf_attr rf_map_attr(rf_lowering *L, const rf_attr *a);

/* Results */
void rf_set_real(rf_lowering *L, const rf_value *orig, rf_value *v);
void rf_set_cx(rf_lowering *L, const rf_value *orig, rf_cx c);
void rf_set_packed(rf_lowering *L, const rf_value *orig, rf_value *packed);
/* `orig` is the same complex number as `src` (resolve_conj, detach, ...). */
void rf_set_alias(rf_lowering *L, const rf_value *orig, const rf_value *src);

/* Real-op builder. Scalars fold where the result is exact. */
rf_rv rf_val(rf_value *v);
rf_rv rf_num(double s);
rf_rv rf_b_add(rf_lowering *L, rf_rv x, rf_rv y);
rf_rv rf_b_sub(rf_lowering *L, rf_rv x, rf_rv y);
rf_rv rf_b_mul(rf_lowering *L, rf_rv x, rf_rv y);
rf_rv rf_b_div(rf_lowering *L, rf_rv x, rf_rv y);
rf_rv rf_b_neg(rf_lowering *L, rf_rv x);
/* A unary aten op with a single `self` argument, e.g. "aten.cos.default". */
rf_value *rf_b_unary(rf_lowering *L, const char *op, rf_value *x);
rf_value *rf_b_binary(rf_lowering *L, const char *op, rf_value *x, rf_value *y);
rf_value *rf_b_select(rf_lowering *L, rf_value *x, int64_t dim, int64_t index);
/* stack([a, b], dim). Stacking the two parts of one packed value p as read through the same view chain
 * (dim -1) gives that chain applied to p instead (passes/packed_views.c). */
rf_value *rf_b_stack2(rf_lowering *L, rf_value *a, rf_value *b, int64_t dim);
/* x * s. When x is a matrix product just made with a constant operand (an FFT plan's DFT matrix) and nothing
 * else reads it, the constant is scaled instead (passes/scale_fold.c), which saves a pass over the product. */
rf_value *rf_b_scale(rf_lowering *L, rf_value *x, double s);
/* The two parts of a packed [..., 2] real value, as selects (no parts when `packed` is NULL: a failed build). */
rf_cx rf_b_unpack(rf_lowering *L, rf_value *packed);
rf_value *rf_b_cast(rf_lowering *L, rf_value *x, rf_dtype dt);
rf_value *rf_b_zeros_like(rf_lowering *L, rf_value *x);
rf_value *rf_b_full_like(rf_lowering *L, rf_value *x, double fill);
/* Make a scalar operand into a value shaped like `like`. */
rf_value *rf_b_materialize(rf_lowering *L, rf_rv x, rf_value *like);

/* Generic emission: a node with `op`, args copied from `args` (already in the
 * new graph), and outputs typed like `orig_outs` with dtype `dt`. */
rf_node *rf_b_node(rf_lowering *L, const char *op, size_t nargs, const rf_arg *args, size_t nouts,
                   const rf_value *const *like, rf_dtype dt, const char *suffix);

/* A node `op` with args already in the new graph and one output of dtype dt
 * and the given shape (dims may be NULL when rank <= 0). */
rf_value *rf_b_op(rf_lowering *L, const char *op, size_t nargs, const rf_arg *args, rf_dtype dt, int rank,
                  const rf_dim *dims, const char *suffix);
/* A constant tensor of the new graph: `data` (row-major, numel = prod dims) is
 * given in double precision and stored in dtype dt. Identical constants (same
 * dtype, shape and bytes) are made once. The Python side turns it into a
 * registered buffer; its attribute path is "realify_constants.<name>". */
rf_value *rf_b_constant(rf_lowering *L, const char *hint, rf_dtype dt, int rank, const int64_t *dims,
                        const double *data);

/* A copy of node n in the new graph, with args mapped, the args named in
 * `names` replaced by `attrs`, complex dtype args made real, and outputs shaped
 * like n's with dtype `dt` (RF_DT_COUNT: each output's component dtype). */
rf_node *rf_b_copy_node(rf_lowering *L, const rf_node *n, size_t nsubst, const char *const *names,
                        const rf_attr *attrs, rf_dtype dt, const char *suffix);
rf_attr rf_attr_of_value(rf_value *v);
rf_attr rf_attr_of_rv(rf_rv x);

/* Family helpers */
/* Apply n's op to the real and the imaginary parts separately (shape ops,
 * real-linear ops), patching complex dtype attributes to the component dtype. */
rf_status rf_lower_componentwise(rf_lowering *L, const rf_node *n);

/* Fusion. A rule may compute the results of later nodes itself (a pruned FFT
 * publishes the slices that read it): it sets their results with rf_set_* and
 * marks them with rf_fuse_node, and the driver then skips them. A result read
 * only by fused nodes may be marked rf_set_unread: it gets no lowering, and a
 * read of it fails. */
const rf_graph *rf_in_graph(const rf_lowering *L);
void rf_fuse_node(rf_lowering *L, const rf_node *later);
void rf_set_unread(rf_lowering *L, const rf_value *orig);

/* linalg solve family: whether a value of the input graph is read by a node or is a graph output. */
int rf_value_is_used(const rf_lowering *L, const rf_value *orig);

/* Rule table. Each family file lists rows {op, rule, flags}; the table is one
 * index sorted by op, and two rows for one op are a registration error. */
enum {
    /* The op computes with complex numbers even when all its operands and
     * results are real (irfft of a real tensor, stft with return_complex=False,
     * the fft shifts), so its rule runs on all-real nodes too. */
    RF_RULE_REAL_TOO = 1u << 0,
    /* Dtype policy: the working component dtype must be a floating type
     * (f16, bf16, f32, f64); the driver refuses others before the rule runs. */
    RF_RULE_FLOATS = 1u << 1,
};

typedef struct rf_rule_entry {
    const char *op;
    rf_rule_fn fn;
    unsigned flags;
} rf_rule_entry;

/* The row for `op`, or NULL. */
const rf_rule_entry *rf_rule_find(const char *op);
/* NULL when the table is sound, else what is wrong with it (a duplicate op). */
const char *rf_rule_table_problem(void);
/* Why a complex op that has no rule is refused on purpose, or NULL when nothing is recorded. */
const char *rf_rule_refusal(const char *op);

/* Pattern table (src/patterns/): the driver tries the patterns the options turn on for n's op, in table order,
 * before n's rule; the name of the one that lowered n, or NULL when none did (n then goes to its rule). */
const char *rf_pattern_try(rf_lowering *L, const rf_node *n);

#endif
