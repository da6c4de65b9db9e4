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
    RF_ERR_NOMEM
} rf_status;

typedef struct rf_error {
    rf_status code;
    char op[128];      /* op name, when the error belongs to a node */
    char node[128];    /* name of the node's first output value */
    char message[512];
    int line;          /* line in the text IR, for parse errors */
} rf_error;

typedef struct rf_lower_options {
    int truncate_double; /* complex128 lowers to float32 instead of float64 */
    int cleanup;         /* run the peephole and dead-node passes (default 1) */
} rf_lower_options;

const char *rf_status_name(rf_status s);

/* Text IR. The printed string is malloc'd; release it with rf_string_free. */
rf_status rf_parse(const char *text, rf_graph **out, rf_error *err);
char *rf_print(const rf_graph *g);
void rf_string_free(char *s);
void rf_graph_free(rf_graph *g);
size_t rf_graph_node_count(const rf_graph *g);

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

/* Lowering: builds a new graph; `in` is never modified. Inputs, constants and
 * outputs that were complex carry a `!cNN` mark in the new graph. */
void rf_lower_options_init(rf_lower_options *opt);
rf_status rf_lower(const rf_graph *in, const rf_lower_options *opt, rf_graph **out, rf_error *err);

/* Rule table introspection: names of ops with a rule, NULL past the end. */
const char *rf_rule_name(size_t i);
size_t rf_rule_count(void);

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

#ifdef __cplusplus
}
#endif
#endif
