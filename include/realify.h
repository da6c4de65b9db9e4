/* realify: rewrite complex-valued tensor graphs into equivalent real-only graphs.
 *
 * Public C API. Handles are opaque; every call reports failure through an
 * rf_error filled by the callee. The library keeps no global mutable state. */
#ifndef REALIFY_H
#define REALIFY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REALIFY_VERSION "0.1.0"

typedef struct rf_graph rf_graph;
typedef struct rf_analysis rf_analysis;

typedef enum rf_status {
    RF_OK = 0,
    RF_ERR_PARSE,       /* text IR could not be parsed */
    RF_ERR_UNSUPPORTED, /* an op on a complex value has no rule */
    RF_ERR_INVALID,     /* the graph or an op's arguments are malformed */
    RF_ERR_DTYPE,       /* a dtype the policy refuses */
    RF_ERR_NOMEM,
    RF_ERR_TARGET       /* realify emitted an op outside the declared op set or the target's part of it */
} rf_status;

typedef struct rf_error {
    rf_status code;
    char op[128];      /* op name, when the error belongs to a node */
    char node[128];    /* name of the node's first output value */
    char message[512];
    int line;          /* line in the text IR, for parse errors */
    size_t node_pos;   /* 1 + index of the failing node in the input graph; 0 when none */
} rf_error;

/* How complex division is lowered. */
typedef enum rf_division {
    RF_DIV_C10 = 0,    /* c10::complex's Smith algorithm: what eager PyTorch computes on the CPU (default) */
    RF_DIV_SCALED = 1, /* scale both operands by max(|c|, |d|), as ATen's vectorised kernels do */
} rf_division;

/* How FFTs are lowered. */
typedef enum rf_fft_strategy {
    RF_FFT_MATMUL = 0, /* real matmuls against DFT constants: any compiler runs them (default) */
    RF_FFT_NATIVE = 1, /* realify.fft_c2c/_r2c/_c2r: real-layout operators whose kernels call the platform FFT */
    RF_FFT_ONNX_DFT = 2, /* realify.dft: one forward DFT per axis with ONNX DFT's semantics (exported as DFT) */
} rf_fft_strategy;

/* The names front ends give these values ("c10", "scaled"; "matmul", "native", "onnx-dft"): the one spelling of
 * each, which the Python options and realify-opt read; NULL for a value outside the enum. */
const char *rf_division_name(rf_division d);
const char *rf_fft_strategy_name(rf_fft_strategy s);

typedef struct rf_lower_options {
    int truncate_double;  /* no float64 is left: complex128 lowers to float32 pairs, and real float64 inputs,
                             constants, intermediates and dtype arguments become float32 (passes/narrow.c) */
    int cleanup;          /* run the peephole and dead-node passes (default 1) */
    rf_division division; /* complex division algorithm (default RF_DIV_C10) */
    rf_fft_strategy fft;  /* FFT lowering (default RF_FFT_MATMUL) */
    unsigned planar;      /* RF_PLANAR_* flags: which boundaries may be planar (default 0: none) */
    unsigned patterns;    /* rf_pattern_bit() bits: the multi-op patterns the driver tries before the per-op rule
                             (default rf_pattern_defaults(); opt-in ones such as "rope.op" and "rope.words" are
                             set by the caller, any may be cleared) */
    unsigned target;      /* RF_TARGET_* bit of the receiver (0: portable): where targets differ, the core picks
                             the emission it takes whole (RF_TARGET_EXECUTORCH: part reads as slice + view). Every
                             node realify emits must be in the declared op set and, with a bit, accepted by that
                             target (RF_ERR_TARGET otherwise); nodes copied unchanged from the input are the user's
                             own and never judged, whatever their op or name */
} rf_lower_options;

/* Planar boundaries. A complex buffer/constant or input that the lowered graph
 * reads only as its two parts may cross as one real [2, ...] tensor whose [0]
 * (real) and [1] (imaginary) slices are contiguous, instead of [..., 2]. Such a
 * value carries `!cNN planar` in the text IR. Parameters stay [..., 2] (they
 * must remain views of the caller's storage). An input is made planar only when
 * it is read like a table (broadcast against larger operands, as freqs_cis is),
 * so the caller's one-time split pays off. */
/* Storage-read boundaries. A complex input or constant that a rule reads through its storage (as_strided at
 * twice the offset and strides) carries `!cNN storage`: the caller passes the [..., 2] view of its whole
 * storage (view_as_real(x), or the whole storage converted when the component dtype differs), never planar. */
enum {
    RF_PLANAR_CONSTS = 1u << 0, /* buffers and constants */
    RF_PLANAR_INPUTS = 1u << 1, /* graph inputs */
};

const char *rf_status_name(rf_status s);

/* Text IR. The printed string is malloc'd; release it with rf_string_free. */
rf_status rf_parse(const char *text, rf_graph **out, rf_error *err);
char *rf_print(const rf_graph *g);
void rf_string_free(char *s);
/* Test hook: the k-th heap allocation from now on this thread fails (k = 0: the next one; -1: none). Out of
 * memory is an error every entry point returns (RF_ERR_NOMEM, or NULL where it returns a pointer), never an
 * abort, and leaves nothing allocated. */
long rf_test_fail_allocation(long k); /* returns the countdown it replaces (-1: spent or none) */
void rf_graph_free(rf_graph *g);
size_t rf_graph_node_count(const rf_graph *g);
/* Node i's op, and the name of its first result ("" when it has none); NULL past the end. */
const char *rf_graph_node_op(const rf_graph *g, size_t i);
const char *rf_graph_node_name(const rf_graph *g, size_t i);

/* Detection. */
rf_analysis *rf_analyze(const rf_graph *g);
void rf_analysis_free(rf_analysis *a);
size_t rf_analysis_complex_value_count(const rf_analysis *a);
size_t rf_analysis_subgraph_count(const rf_analysis *a);
/* Index lists into the graph's inputs, constants and outputs that are complex. */
size_t rf_analysis_complex_inputs(const rf_analysis *a, const size_t **indices);
size_t rf_analysis_complex_consts(const rf_analysis *a, const size_t **indices);
size_t rf_analysis_complex_outputs(const rf_analysis *a, const size_t **indices);
char *rf_analysis_print(const rf_analysis *a);
/* Indices of the nodes that read or produce a complex value (the ones lowering rewrites), in graph order. */
size_t rf_analysis_complex_nodes(const rf_analysis *a, const size_t **indices);

/* Checks a graph before lowering (values defined before use, no cycles, sane
 * shapes and sizes, required arguments, dims in range). rf_lower runs it too. */
rf_status rf_verify(const rf_graph *g, rf_error *err);

/* Lowering: builds a new graph; `in` is never modified. Inputs, constants and
 * outputs that were complex carry a `!cNN` mark in the new graph. */
void rf_lower_options_init(rf_lower_options *opt);
rf_status rf_lower(const rf_graph *in, const rf_lower_options *opt, rf_graph **out, rf_error *err);

/* Patterns: recognisers of multi-op shapes (a RoPE, ...) that the driver tries before the per-op rule, each
 * with a name and a bit of rf_lower_options.patterns (src/patterns/). Names in table order, NULL past the end. */
const char *rf_pattern_name(size_t i);
size_t rf_pattern_count(void);
/* The bit of a pattern's name; 0 for an unknown name. */
unsigned rf_pattern_bit(const char *name);
/* What the pattern matches and emits, in a sentence; NULL for an unknown name. */
const char *rf_pattern_doc(const char *name);
/* The patterns tried unless turned off (the others are opt-in). */
unsigned rf_pattern_defaults(void);

/* The lowering report of a lowered graph: one line per pattern that fired, "pattern NAME: OP %NODE", in graph
 * order; NULL past the end. */
size_t rf_graph_report_count(const rf_graph *g);
const char *rf_graph_report_line(const rf_graph *g, size_t i);

/* Rule table introspection: names of ops with a rule, NULL past the end. */
const char *rf_rule_name(size_t i);
size_t rf_rule_count(void);
/* 1 when the rule table has a rule for op. */
int rf_rule_exists(const char *op);

/* The declared real op set: every real aten op a rule may emit, and which
 * deployment targets accept it. Bits of an entry's target mask: */
#define RF_TARGET_CORE_ATEN 0x01u  /* tagged core in torch's native_functions */
#define RF_TARGET_TENSORRT 0x02u   /* Torch-TensorRT has a converter, or decomposes it */
#define RF_TARGET_ONNX 0x04u       /* torch.onnx exports it (ONNX opset <= 20) */
#define RF_TARGET_EXECUTORCH 0x08u /* ExecuTorch's edge dialect takes it (core, or decomposed) */
#define RF_TARGET_OPENVINO 0x10u   /* OpenVINO's PyTorch frontend converts it from torch.export */
#define RF_TARGET_COREML 0x20u     /* coremltools' PyTorch frontend converts it */
#define RF_TARGET_ALL 0x3fu
/* Entry i of the op set: its op name ("aten.add.Tensor") and, through
 * `targets` when not NULL, its mask; NULL past the end. */
const char *rf_opset_entry_at(size_t i, unsigned *targets);
size_t rf_opset_count(void);
/* The mask of `op`; returns 0 and leaves *targets alone when `op` is not in
 * the set (no rule may emit it), 1 otherwise. */
int rf_opset_targets(const char *op, unsigned *targets);
/* Bit of a target name ("core_aten", "tensorrt", "onnx", "executorch",
 * "openvino", "coreml"); 0 for an unknown name. */
unsigned rf_target_bit(const char *name);
/* Entry i of the names rf_target_bit knows and, through `bit` when not NULL, its bit; NULL past the end. */
const char *rf_target_name_at(size_t i, unsigned *bit);

#ifdef __cplusplus
}
#endif
#endif
