/* Unit tests of the C core. Prints "N passed, N failed" as its last line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
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

static rf_graph *parse_ok(const char *text) {
    rf_error err = {0};
    rf_graph *g = NULL;
    rf_status s = rf_parse(text, &g, &err);
    if (s != RF_OK) fprintf(stderr, "parse failed: %s\n", err.message);
    CHECK(s == RF_OK);
    return g;
}

static const char *ROUNDTRIP =
    "graph {\n"
    "  input %x: c64[s0, 8]\n"
    "  input %n: symint\n"
    "  input %p: f32[\"2*s0\", 4, 2] !c64\n"
    "  const %w: c128[8, 8] = param \"layers.0.w\"\n"
    "  %a: c64[s0, 4], %b: c64[s0, 4] = aten.split.Tensor(self=%x, split_size=4, dim=1)\n"
    "  %c: c64[s0, 4] = aten.mul.Tensor(self=%a, other=complex(1.5, -0.25))\n"
    "  %d: f32[?] = aten.full.default(size=[%n, 3, -1], fill_value=1e+30, dtype=f32, layout=none, "
    "device=\"cpu\", pin_memory=false, flag=true, eps=nan, lo=-inf, tiny=1e-30, half=0.5, z=-0.0)\n"
    "  %e: f32[] = aten.sum.default(self=%d)\n"
    "  () = aten._assert_scalar.default(self=%n, assert_msg=\"quote \\\" and \\\\ and\\nnewline\")\n"
    "  output (%c !c64, none, %e, 3, [%a, %b])\n"
    "}\n";

static void test_roundtrip(void) {
    rf_graph *g = parse_ok(ROUNDTRIP);
    if (!g) return;
    char *s = rf_print(g);
    if (strcmp(s, ROUNDTRIP) != 0) fprintf(stderr, "round trip differs:\n%s", s);
    CHECK(strcmp(s, ROUNDTRIP) == 0);
    CHECK(rf_graph_node_count(g) == 5);
    CHECK(g->nodes[0]->nouts == 2);
    CHECK(g->inputs[0]->dims[0].sym && strcmp(g->inputs[0]->dims[0].sym, "s0") == 0);
    CHECK(g->inputs[2]->packed_from == RF_DT_C64);
    CHECK(g->consts[0]->dtype == RF_DT_C128);
    rf_string_free(s);
    rf_graph_free(g);
}

static void expect_parse_error(const char *text, int line, const char *needle) {
    rf_error err = {0};
    rf_graph *g = NULL;
    CHECK(rf_parse(text, &g, &err) == RF_ERR_PARSE);
    CHECK(g == NULL);
    if (err.line != line) fprintf(stderr, "error line %d, expected %d: %s\n", err.line, line, err.message);
    CHECK(err.line == line);
    if (!strstr(err.message, needle)) fprintf(stderr, "message '%s' lacks '%s'\n", err.message, needle);
    CHECK(strstr(err.message, needle) != NULL);
}

static void test_parse_errors(void) {
    expect_parse_error("graph {\n  input %x: f32[2]\n  %y: f32[2] = aten.neg.default(self=%z)\n  output (%y)\n}\n", 3,
                       "undefined value %z");
    expect_parse_error("graph {\n  input %x: q7[2]\n  output (%x)\n}\n", 2, "expected a dtype");
    expect_parse_error("graph {\n  input %x: f32[2]\n  input %x: f32[2]\n  output (%x)\n}\n", 3, "defined twice");
    expect_parse_error("graph {\n  input %x: f32[2]\n}\n", 3, "no output");
    expect_parse_error("graph {\n  input %x: f32[2] !f32\n  output (%x)\n}\n", 2, "complex dtype");
}

static const char *ROPE =
    "graph {\n"
    "  input %xq: f32[1, 16, 4, 8]\n"
    "  input %freqs: c64[16, 4]\n"
    "  %r: f32[1, 16, 4, 4, 2] = aten.view.default(self=%xq, size=[1, 16, 4, 4, 2])\n"
    "  %xc: c64[1, 16, 4, 4] = aten.view_as_complex.default(self=%r)\n"
    "  %f: c64[1, 16, 1, 4] = aten.view.default(self=%freqs, size=[1, 16, 1, 4])\n"
    "  %m: c64[1, 16, 4, 4] = aten.mul.Tensor(self=%xc, other=%f)\n"
    "  %vr: f32[1, 16, 4, 4, 2] = aten.view_as_real.default(self=%m)\n"
    "  %o: f32[1, 16, 4, 8] = aten.view.default(self=%vr, size=[1, 16, 4, 8])\n"
    "  output (%o)\n"
    "}\n";

static size_t count_op(const rf_graph *g, const char *op) {
    size_t n = 0;
    for (size_t i = 0; i < g->nnodes; i++) n += strcmp(g->nodes[i]->op, op) == 0;
    return n;
}

static int has_complex(const rf_graph *g) {
    for (size_t i = 0; i < g->nvalues; i++)
        if (rf_dtype_is_complex(g->values[i]->dtype)) return 1;
    return 0;
}

static void test_lower_rope(void) {
    rf_graph *g = parse_ok(ROPE);
    if (!g) return;
    char *before = rf_print(g);
    rf_graph *out = NULL;
    rf_error err = {0};
    CHECK(rf_lower(g, NULL, &out, &err) == RF_OK);
    char *after = rf_print(g);
    CHECK(strcmp(before, after) == 0); /* input untouched */
    if (out) {
        CHECK(!has_complex(out));
        CHECK(out->inputs[1]->packed_from == RF_DT_C64);
        CHECK(out->inputs[1]->rank == 3 && out->inputs[1]->dims[2].size == 2);
        CHECK(count_op(out, "aten.stack.default") == 1);
        CHECK(count_op(out, "aten.select.int") == 4);
        CHECK(count_op(out, "aten.mul.Tensor") == 4);
        rf_graph_free(out);
    }
    rf_string_free(before);
    rf_string_free(after);
    rf_graph_free(g);
}

static void test_unsupported(void) {
    rf_graph *g = parse_ok("graph {\n  input %x: c64[4]\n  %y: c64[4] = aten.frobnicate.default(self=%x)\n"
                           "  output (%y)\n}\n");
    if (!g) return;
    rf_graph *out = NULL;
    rf_error err = {0};
    CHECK(rf_lower(g, NULL, &out, &err) == RF_ERR_UNSUPPORTED);
    CHECK(out == NULL);
    CHECK(strcmp(err.op, "aten.frobnicate.default") == 0);
    CHECK(strcmp(err.node, "y") == 0);
    rf_graph_free(g);
}

static void test_dtype_policy(void) {
    const char *text = "graph {\n  input %x: c128[3]\n  %y: c128[3] = aten.neg.default(self=%x)\n  output (%y)\n}\n";
    rf_graph *g = parse_ok(text);
    if (!g) return;
    rf_lower_options opt;
    rf_lower_options_init(&opt);
    rf_graph *out = NULL;
    rf_error err = {0};
    CHECK(rf_lower(g, &opt, &out, &err) == RF_OK);
    CHECK(out && out->inputs[0]->dtype == RF_DT_F64 && out->outputs[0].out_mark == RF_DT_C128);
    rf_graph_free(out);
    opt.truncate_double = 1;
    CHECK(rf_lower(g, &opt, &out, &err) == RF_OK);
    CHECK(out && out->inputs[0]->dtype == RF_DT_F32 && out->inputs[0]->packed_from == RF_DT_C128);
    rf_graph_free(out);
    rf_graph_free(g);
}

static void test_analysis(void) {
    rf_graph *g = parse_ok(ROPE);
    if (!g) return;
    rf_analysis *a = rf_analyze(g);
    const size_t *idx;
    CHECK(rf_analysis_complex_value_count(a) == 4);
    CHECK(rf_analysis_subgraph_count(a) == 1);
    CHECK(rf_analysis_complex_inputs(a, &idx) == 1 && idx[0] == 1);
    CHECK(rf_analysis_complex_outputs(a, &idx) == 0);
    char *s = rf_analysis_print(a);
    CHECK(strstr(s, "entry: %r:f32 %freqs:c64") != NULL);
    CHECK(strstr(s, "exit: %vr:f32") != NULL);
    rf_string_free(s);
    rf_analysis_free(a);
    rf_graph_free(g);
}

static void test_rule_table(void) {
    size_t n = rf_rule_count();
    CHECK(n > 50);
    int dup = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) dup |= strcmp(rf_rule_name(i), rf_rule_name(j)) == 0;
    CHECK(!dup);
    CHECK(rf_rule_name(n) == NULL);
}

int main(void) {
    test_roundtrip();
    test_parse_errors();
    test_lower_rope();
    test_unsupported();
    test_dtype_policy();
    test_analysis();
    test_rule_table();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
