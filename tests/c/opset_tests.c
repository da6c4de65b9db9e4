/* The declared real op set (src/lower/opset.c): well formed, and what the
 * elementwise complex functions emit stays inside it. */
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"
#include "realify.h"

static int passed, failed;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (cond) {                                                                 \
            passed++;                                                               \
        } else {                                                                    \
            failed++;                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                           \
    } while (0)

static void test_table_shape(void) {
    size_t n = rf_opset_count();
    CHECK(n > 100);
    const char *prev = NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned mask = 0xffffffffu;
        const char *op = rf_opset_entry_at(i, &mask);
        CHECK(op != NULL && (strncmp(op, "aten.", 5) == 0 || strncmp(op, "realify.", 8) == 0));
        CHECK((mask & ~RF_TARGET_ALL) == 0);
        if (prev) CHECK(strcmp(prev, op) < 0); /* sorted, no duplicates: binary search needs it */
        unsigned again = 0;
        CHECK(rf_opset_targets(op, &again) == 1 && again == mask);
        prev = op;
    }
    CHECK(rf_opset_entry_at(n, NULL) == NULL);
}

static void test_lookups(void) {
    unsigned mask = 0;
    CHECK(rf_opset_targets("aten.add.Tensor", &mask) == 1 && mask == RF_TARGET_ALL);
    mask = 12345;
    /* deployment targets lack these: rules must not emit them */
    CHECK(rf_opset_targets("aten.hypot.default", &mask) == 0 && mask == 12345);
    CHECK(rf_opset_targets("aten.copysign.Tensor", &mask) == 0);
    CHECK(rf_opset_targets("", &mask) == 0 && rf_opset_targets(NULL, &mask) == 0);
    CHECK(rf_opset_targets("aten.add.Tensor", NULL) == 1);
    CHECK(rf_target_bit("tensorrt") == RF_TARGET_TENSORRT && rf_target_bit("onnx") == RF_TARGET_ONNX);
    CHECK(rf_target_bit("executorch") == RF_TARGET_EXECUTORCH && rf_target_bit("core_aten") == RF_TARGET_CORE_ATEN);
    CHECK(rf_target_bit("openvino") == RF_TARGET_OPENVINO && rf_target_bit("coreml") == RF_TARGET_COREML);
    CHECK(rf_target_bit("tpu") == 0 && rf_target_bit(NULL) == 0);
}

/* The names front ends read: every target name maps back to its bit, and together they cover every bit once. */
static void test_option_names(void) {
    unsigned seen = 0, bit = 0;
    size_t i = 0;
    for (const char *name; (name = rf_target_name_at(i, &bit)) != NULL; i++) {
        CHECK(rf_target_bit(name) == bit && (seen & bit) == 0);
        seen |= bit;
    }
    CHECK(i == 6 && seen == RF_TARGET_ALL && rf_target_name_at(i, NULL) == NULL);
    CHECK(strcmp(rf_fft_strategy_name(RF_FFT_MATMUL), "matmul") == 0);
    CHECK(strcmp(rf_fft_strategy_name(RF_FFT_ONNX_DFT), "onnx-dft") == 0);
    CHECK(rf_fft_strategy_name((rf_fft_strategy)3) == NULL && rf_fft_strategy_name((rf_fft_strategy)-1) == NULL);
    CHECK(strcmp(rf_division_name(RF_DIV_C10), "c10") == 0 && strcmp(rf_division_name(RF_DIV_SCALED), "scaled") == 0);
    CHECK(rf_division_name((rf_division)2) == NULL);
}

static const char *FUNCS =
    "graph {\n"
    "  input %x: c64[4]\n"
    "  %a: f32[4] = aten.abs.default(self=%x)\n"
    "  %s: c64[4] = aten.sqrt.default(self=%x)\n"
    "  %t: c64[4] = aten.tanh.default(self=%s)\n"
    "  %h: c64[4] = aten.asinh.default(self=%t)\n"
    "  %l: c64[4] = aten.log.default(self=%h)\n"
    "  %g: c64[4] = aten.sgn.default(self=%l)\n"
    "  output (%a, %g)\n"
    "}\n";

static void test_emitted_ops_are_declared(void) {
    rf_graph *g = NULL, *out = NULL;
    rf_error err = {0};
    CHECK(rf_parse(FUNCS, &g, &err) == RF_OK);
    if (!g) return;
    CHECK(rf_lower(g, NULL, &out, &err) == RF_OK);
    if (out) {
        for (size_t i = 0; i < out->nnodes; i++) {
            unsigned mask = 0;
            const char *op = out->nodes[i]->op;
            int declared = rf_opset_targets(op, &mask);
            if (!declared) fprintf(stderr, "undeclared op emitted: %s\n", op);
            CHECK(declared);
            /* these functions need nothing TensorRT, ONNX, ExecuTorch or OpenVINO lack */
            unsigned need = RF_TARGET_TENSORRT | RF_TARGET_ONNX | RF_TARGET_EXECUTORCH | RF_TARGET_OPENVINO;
            if ((mask & need) != need) fprintf(stderr, "%s misses targets 0x%x\n", op, need & ~mask);
            CHECK((mask & need) == need);
        }
        rf_graph_free(out);
    }
    rf_graph_free(g);
}

/* Two copies of ops no rule emits (a multi-output attention, a custom op) around complex work: realify copied
 * them, so no target judges them, whatever their names. */
static const char *USER_OPS =
    "graph {\n"
    "  input %q: f32[2, 4, 8]\n"
    "  input %f: c64[4]\n"
    "  %a_0: f32[2, 4, 8], %a_1: f32[2, 4] = aten._scaled_dot_product_flash_attention_for_cpu.default(query=%q, "
    "key=%q, value=%q)\n"
    "  %b_0: f32[2, 4, 8], %b_1: f32[2, 4] = aten._scaled_dot_product_flash_attention_for_cpu.default(query=%a_0, "
    "key=%q, value=%q)\n"
    "  %c: f32[2, 4, 8] = mylib.mystery.default(x=%b_0)\n"
    "  %c2: f32[2, 4, 8] = mylib.mystery.default(x=%c)\n"
    "  %g: c64[4] = aten.mul.Tensor(self=%f, other=%f)\n"
    "  output (%c2, %g)\n"
    "}\n";

static const char *EMITTED_OUTSIDE =
    "graph {\n"
    "  input %z: c64[3, 3]\n"
    "  input %r: f32[3, 3]\n"
    "  %m: f32[3, 3] = mylib.mystery.default(x=%r)\n"
    "  %e: c64[3, 3] = aten.linalg_matrix_exp.default(self=%z)\n"
    "  output (%m, %e)\n"
    "}\n";

static size_t count_op(const rf_graph *g, const char *op) {
    size_t k = 0;
    for (size_t i = 0; i < rf_graph_node_count(g); i++) k += strcmp(rf_graph_node_op(g, i), op) == 0;
    return k;
}

static void test_legality_by_provenance(void) {
    const unsigned targets[] = {0, RF_TARGET_TENSORRT, RF_TARGET_ONNX, RF_TARGET_EXECUTORCH, RF_TARGET_OPENVINO,
                                RF_TARGET_COREML};
    rf_graph *g = NULL, *out = NULL;
    rf_error err = {0};
    CHECK(rf_parse(USER_OPS, &g, &err) == RF_OK);
    for (size_t t = 0; g && t < sizeof targets / sizeof targets[0]; t++) {
        rf_lower_options opt;
        rf_lower_options_init(&opt);
        opt.target = targets[t];
        CHECK(rf_lower(g, &opt, &out, &err) == RF_OK);
        if (!out) continue;
        CHECK(count_op(out, "aten._scaled_dot_product_flash_attention_for_cpu.default") == 2);
        CHECK(count_op(out, "mylib.mystery.default") == 2);
        rf_graph_free(out);
        out = NULL;
    }
    rf_graph_free(g);
    g = NULL;
    /* an op realify emits is judged: matrix_exp's real form is in no deployment target's set */
    CHECK(rf_parse(EMITTED_OUTSIDE, &g, &err) == RF_OK);
    if (!g) return;
    rf_lower_options opt;
    rf_lower_options_init(&opt);
    CHECK(rf_lower(g, &opt, &out, &err) == RF_OK); /* portable: declared is enough */
    rf_graph_free(out);
    out = NULL;
    opt.target = RF_TARGET_TENSORRT;
    memset(&err, 0, sizeof err);
    CHECK(rf_lower(g, &opt, &out, &err) == RF_ERR_TARGET && out == NULL);
    CHECK(strcmp(err.op, "aten.linalg_matrix_exp.default") == 0);
    CHECK(err.node_pos == 2); /* the input node it lowered, for the user's source line */
    CHECK(strstr(err.message, "outside the target's op set") != NULL);
    rf_graph_free(g);
}

int main(void) {
    test_table_shape();
    test_lookups();
    test_option_names();
    test_emitted_ops_are_declared();
    test_legality_by_provenance();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
