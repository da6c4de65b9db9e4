/* Unit tests of the C core. Prints "N passed, N failed" as its last line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft/plan.h"
#include "ir/ir.h"
#include "ir/verify.h"
#include "lower/lower.h"
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
        /* provenance: each new node names the input node it was lowered from; the muls come from %m */
        for (size_t i = 0; i < out->nnodes; i++) {
            const rf_node *o = out->nodes[i]->origin;
            CHECK(!o || (o->index < g->nnodes && g->nodes[o->index] == o));
            if (strcmp(out->nodes[i]->op, "aten.mul.Tensor") == 0) CHECK(o && strcmp(o->outs[0]->name, "m") == 0);
        }
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
    CHECK(err.node_pos == 1); /* 1 + the node's index in the input graph */
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
    /* view_as_complex, the view of freqs, the mul and view_as_real touch complex; the two real views do not */
    CHECK(rf_analysis_complex_nodes(a, &idx) == 4 && idx[0] == 1 && idx[3] == 4);
    CHECK(strcmp(rf_graph_node_op(g, idx[2]), "aten.mul.Tensor") == 0);
    CHECK(strcmp(rf_graph_node_name(g, idx[2]), "m") == 0);
    CHECK(rf_graph_node_op(g, rf_graph_node_count(g)) == NULL && rf_graph_node_name(g, 99) == NULL);
    CHECK(rf_rule_exists("aten.mul.Tensor") && !rf_rule_exists("aten.no_such_op.default") && !rf_rule_exists(NULL));
    char *s = rf_analysis_print(a);
    CHECK(strstr(s, "entry: %r:f32 %freqs:c64") != NULL);
    CHECK(strstr(s, "exit: %vr:f32") != NULL);
    rf_string_free(s);
    rf_analysis_free(a);
    rf_graph_free(g);
}

/* The pattern table: names are unique and have bits, the defaults are a subset, the options refuse unknown bits,
 * and a pattern that fires leaves a line in the lowered graph's report. */
static void test_pattern_table(void) {
    size_t n = rf_pattern_count();
    CHECK(n >= 3 && rf_pattern_name(n) == NULL);
    unsigned all = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned bit = rf_pattern_bit(rf_pattern_name(i));
        CHECK(bit && !(all & bit) && rf_pattern_doc(rf_pattern_name(i)));
        all |= bit;
    }
    CHECK((rf_pattern_defaults() & ~all) == 0 && rf_pattern_bit("no.such") == 0 && rf_pattern_bit(NULL) == 0);
    CHECK(rf_pattern_doc("no.such") == NULL);
    rf_graph *g = parse_ok(ROPE);
    if (!g) return;
    rf_lower_options opt;
    rf_lower_options_init(&opt);
    CHECK(opt.patterns == rf_pattern_defaults());
    rf_graph *out = NULL;
    rf_error err = {0};
    CHECK(rf_lower(g, &opt, &out, &err) == RF_OK && rf_graph_report_count(out) == 0);
    rf_graph_free(out);
    opt.patterns |= rf_pattern_bit("rope.op");
    CHECK(rf_lower(g, &opt, &out, &err) == RF_OK && rf_graph_report_count(out) == 1);
    CHECK(out && strcmp(rf_graph_report_line(out, 0), "pattern rope.op: aten.mul.Tensor %m") == 0);
    CHECK(out && rf_graph_report_line(out, 1) == NULL);
    rf_graph_free(out);
    /* out of memory anywhere in a lowering whose pattern fires, its report line included: a clean error */
    int clean = 1;
    for (long k = 0;; k++) {
        rf_test_fail_allocation(k);
        rf_status s = rf_lower(g, &opt, &out, &err);
        long left = rf_test_fail_allocation(-1);
        if (s == RF_OK) {
            clean &= left >= 0 && rf_graph_report_count(out) == 1;
            rf_graph_free(out);
            break;
        }
        clean &= s == RF_ERR_NOMEM && out == NULL && left < 0;
        if (!clean) break;
    }
    CHECK(clean);
    opt.patterns = ~all;
    CHECK(all != ~0u && rf_lower(g, &opt, &out, &err) == RF_ERR_INVALID && out == NULL);
    CHECK(strstr(err.message, "patterns") != NULL);
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
    CHECK(rf_rule_table_problem() == NULL);
    for (size_t i = 0; i + 1 < n; i++) CHECK(strcmp(rf_rule_name(i), rf_rule_name(i + 1)) < 0);
    CHECK(rf_rule_find("aten.mul.Tensor") != NULL && rf_rule_find("aten.no_such_op.default") == NULL);
    /* the verifier knows every op a rule lowers: its required tensors and result count */
    for (size_t i = 0; i < n; i++)
        if (!rf_op_info_of(rf_rule_name(i))) {
            fprintf(stderr, "no verifier row for %s\n", rf_rule_name(i));
            CHECK(0);
        }
}

/* ---- FFT plans and inline constants ---- */

static int64_t largest_prime(int64_t n) {
    int64_t best = 1;
    for (int64_t p = 2; p * p <= n; p++)
        while (n % p == 0) best = p, n /= p;
    return n > 1 ? n : best;
}

/* Every length to 4096 and a set of larger ones: the factors multiply to the
 * length, none exceeds RF_FFT_MAX_RADIX, and Bluestein is used exactly for
 * lengths with a prime factor above it, with a power-of-two m >= 2n - 1. */
static void test_fft_plans(void) {
    static const int64_t big[] = {8192, 30030, 44100, 48000, 59049, 62500, 65536, 65537, 1 << 19, 131071};
    int bad = 0;
    for (int64_t i = 1; i <= 4096 + (int64_t)(sizeof big / sizeof big[0]); i++) {
        int64_t n = i <= 4096 ? i : big[i - 4097];
        rf_fft_plan p;
        if (rf_fft_plan_make(n, &p) != 0) {
            bad++;
            continue;
        }
        int64_t prod = 1;
        for (int k = 0; k < p.nfactors; k++) prod *= p.factors[k];
        int bluestein = largest_prime(n) > RF_FFT_MAX_RADIX;
        if (prod != (p.m ? p.m : n) || rf_fft_plan_max_radix(&p) > RF_FFT_MAX_RADIX || (p.m != 0) != bluestein ||
            (p.m && (p.m < 2 * n - 1 || (p.m & (p.m - 1)) || p.m >= 4 * n)) || (n <= 64 && !rf_fft_plan_is_direct(&p))) {
            char buf[128];
            rf_fft_plan_format(&p, buf, sizeof buf);
            fprintf(stderr, "bad plan %s\n", buf);
            bad++;
        }
    }
    CHECK(bad == 0);
    rf_fft_plan p;
    char buf[128];
    CHECK(rf_fft_plan_make(0, &p) == -1);
    CHECK(rf_fft_plan_make(64, &p) == 0 && rf_fft_plan_is_direct(&p));
    rf_fft_plan_format(&p, buf, sizeof buf);
    CHECK(strcmp(buf, "64: direct") == 0);
    CHECK(rf_fft_plan_make(4096, &p) == 0);
    rf_fft_plan_format(&p, buf, sizeof buf);
    CHECK(strcmp(buf, "4096: 64x64") == 0);
    CHECK(rf_fft_plan_make(257, &p) == 0 && p.m == 1024);
    rf_fft_plan_format(&p, buf, sizeof buf);
    CHECK(strncmp(buf, "257: bluestein 1024 = ", 22) == 0);
    /* cost grows like n * (sum of factors), not n^2 */
    CHECK(rf_fft_plan_make(65536, &p) == 0 && p.nfactors >= 2);
    int64_t sum = 0;
    for (int k = 0; k < p.nfactors; k++) sum += p.factors[k];
    CHECK(sum <= 512);
}

static void test_fft_constants(void) {
    double c, s, err = 0;
    for (int64_t n = 1; n <= 64; n++)
        for (int64_t k = -n; k <= 2 * n; k++) {
            rf_fft_unit_root(k, n, &c, &s); /* against long double on the reduced angle */
            long double a = 2 * 3.14159265358979323846264338327950288L * (long double)(((k % n) + n) % n) / n;
            err = fmax(err, (double)fmaxl(fabsl(c - cosl(a)), fabsl(s - sinl(a))));
        }
    CHECK(err < 2.5e-16); /* about 2 ulp */
    rf_fft_unit_root(1, 4, &c, &s); /* exact at the quarter turns */
    CHECK(c == 0.0 && s == 1.0);
    rf_fft_unit_root(3, 12, &c, &s);
    CHECK(c == 0.0 && s == 1.0);
    rf_fft_unit_root(6, 12, &c, &s);
    CHECK(c == -1.0 && s == 0.0);
    /* Bluestein: the circular convolution with the kernel reproduces the DFT */
    enum { N = 5, M = 16 };
    double kr[M], ki[M], wr[N], wi[N], xr[N], xi[N];
    CHECK(rf_fft_bluestein_kernel(N, M, -1, kr, ki) == 0);
    CHECK(rf_fft_bluestein_kernel(N, 8, -1, kr, ki) == -1); /* m < 2n - 1 */
    rf_fft_bluestein_chirp(N, -1, wr, wi);
    for (int j = 0; j < N; j++) xr[j] = 1.0 + j, xi[j] = 0.5 - j * j;
    double max_err = 0;
    for (int k = 0; k < N; k++) {
        /* direct DFT */
        double dr = 0, di = 0;
        for (int j = 0; j < N; j++) {
            rf_fft_unit_root(-(int64_t)j * k, N, &c, &s);
            dr += xr[j] * c - xi[j] * s;
            di += xr[j] * s + xi[j] * c;
        }
        /* conv[k] = sum_l a[l] b[k - l mod M], b = IDFT_M(kernel * M) */
        double cr = 0, ci = 0;
        for (int l = 0; l < N; l++) {
            double ar = xr[l] * wr[l] - xi[l] * wi[l], ai = xr[l] * wi[l] + xi[l] * wr[l];
            int idx = ((k - l) % M + M) % M;
            double br = 0, bi = 0; /* b[idx] = sum_f kernel[f] exp(2 pi i f idx / M) */
            for (int f = 0; f < M; f++) {
                rf_fft_unit_root((int64_t)f * idx, M, &c, &s);
                br += kr[f] * c - ki[f] * s;
                bi += kr[f] * s + ki[f] * c;
            }
            cr += ar * br - ai * bi;
            ci += ar * bi + ai * br;
        }
        double yr = cr * wr[k] - ci * wi[k], yi = cr * wi[k] + ci * wr[k];
        max_err = fmax(max_err, hypot(yr - dr, yi - di));
    }
    CHECK(max_err < 1e-12);
}

static const char *DATA_CONST =
    "graph {\n"
    "  input %x: f32[3, 2]\n"
    "  const %k: f32[2, 2] = data \"realify_constants.k\" \"0000803f000000000000000000000040\"\n"
    "  const %h: f16[3] = data \"realify_constants.h\" \"003c00c0007c\"\n"
    "  %y: f32[3, 2] = aten.matmul.default(self=%x, other=%k)\n"
    "  output (%y)\n"
    "}\n";

static void test_data_constants(void) {
    rf_graph *g = parse_ok(DATA_CONST);
    if (!g) return;
    char *s = rf_print(g);
    CHECK(strcmp(s, DATA_CONST) == 0);
    CHECK(g->consts[0]->const_nbytes == 16 && g->consts[0]->const_data[3] == 0x3f);
    CHECK(g->consts[1]->const_nbytes == 6);
    rf_string_free(s);
    rf_graph *out = NULL;
    rf_error err = {0};
    CHECK(rf_lower(g, NULL, &out, &err) == RF_OK); /* a real graph: the data constant is carried over */
    if (out) {
        s = rf_print(out);
        CHECK(strstr(s, "= data \"realify_constants.k\" \"0000803f000000000000000000000040\"") != NULL);
        CHECK(strstr(s, "realify_constants.h") == NULL); /* unused: dropped by cleanup */
        rf_string_free(s);
        rf_graph_free(out);
    }
    rf_graph_free(g);
    expect_parse_error("graph {\n  const %k: f32[2] = data \"k\" \"0000803f\"\n  output (%k)\n}\n", 2, "needs 8");
    expect_parse_error("graph {\n  const %k: f32[s0] = data \"k\" \"\"\n  output (%k)\n}\n", 2, "static shape");
    expect_parse_error("graph {\n  const %k: f32[1] = data \"k\" \"0000803g\"\n  output (%k)\n}\n", 2, "malformed");
}

/* The attribute constructors rules and builders share (ir.h). */
static void test_attr_constructors(void) {
    rf_graph *g = rf_graph_new();
    int64_t v[3] = {4, -1, 7};
    rf_attr ints = rf_attr_ints(g, 3, v);
    CHECK(ints.kind == RF_A_LIST && ints.n == 3 && ints.out_mark == RF_DT_COUNT);
    CHECK(ints.items[0].kind == RF_A_INT && ints.items[0].i == 4 && ints.items[1].i == -1 && ints.items[2].i == 7);
    rf_attr empty = rf_attr_ints(g, 0, NULL);
    CHECK(empty.kind == RF_A_LIST && empty.n == 0);
    rf_attr list = rf_attr_list(g, 2);
    CHECK(list.n == 2 && list.items[0].kind == RF_A_NONE && list.items[1].kind == RF_A_NONE);
    rf_attr s = rf_attr_str("reflect");
    CHECK(s.kind == RF_A_STR && strcmp(s.s, "reflect") == 0 && s.out_mark == RF_DT_COUNT);
    CHECK(rf_attr_none().kind == RF_A_NONE);
    rf_graph_free(g);
}

/* Graphs built through the API, which the parser cannot express: a cycle of
 * two nodes, and a result that no node produces. The verifier (and rf_lower)
 * must refuse them with an error naming the node. */
static void test_verify_api_graphs(void) {
    rf_dim d = {3, NULL};
    rf_graph *g = rf_graph_new();
    rf_value *x = rf_graph_add_input(g, "x", RF_DT_C64, 1, &d);
    rf_node *a = rf_node_new(g, "aten.mul.Tensor", 2, 1), *b = rf_node_new(g, "aten.neg.default", 1, 1);
    a->outs[0] = rf_value_new(g, "a", RF_DT_C64, 1, &d);
    b->outs[0] = rf_value_new(g, "b", RF_DT_C64, 1, &d);
    a->args[0].name = "self";
    a->args[0].attr = rf_attr_ref(x);
    a->args[1].name = "other";
    a->args[1].attr = rf_attr_ref(b->outs[0]); /* b comes after a: a cycle */
    b->args[0].name = "self";
    b->args[0].attr = rf_attr_ref(a->outs[0]);
    rf_graph_append_node(g, a);
    rf_graph_append_node(g, b);
    rf_attr out = rf_attr_ref(b->outs[0]);
    rf_graph_set_outputs(g, 1, &out);
    rf_error err = {0};
    rf_graph *lowered = NULL;
    CHECK(rf_verify(g, &err) == RF_ERR_INVALID);
    CHECK(strstr(err.message, "uses %b before it is defined") != NULL);
    CHECK(strcmp(err.op, "aten.mul.Tensor") == 0 && strcmp(err.node, "a") == 0);
    CHECK(rf_lower(g, NULL, &lowered, &err) == RF_ERR_INVALID && lowered == NULL);
    a->args[1].attr = rf_attr_ref(x); /* no cycle now */
    CHECK(rf_verify(g, &err) == RF_OK);
    rf_value *stray = rf_value_new(g, "stray", RF_DT_C64, 1, &d);
    b->args[0].attr = rf_attr_ref(stray); /* in the graph, made by nothing */
    CHECK(rf_verify(g, &err) == RF_ERR_INVALID);
    CHECK(strstr(err.message, "no input, constant or earlier node defines") != NULL);
    rf_graph_free(g);
}

/* rf_sole_reader: one reading node, optionally through one named argument; graph outputs have no sole reader. */
static void test_sole_reader(void) {
    rf_graph *g = parse_ok("graph {\n  input %x: c64[4]\n  %a: c64[4] = aten.neg.default(self=%x)\n"
                           "  %b: c64[4] = aten.mul.Tensor(self=%a, other=%x)\n"
                           "  %c: c64[4] = aten.add.Tensor(self=%b, other=%b)\n"
                           "  %d: c64[8] = aten.cat.default(tensors=[%c, %c])\n"
                           "  %e: c64[8] = aten.neg.default(self=%d)\n  output (%e)\n}\n");
    if (!g) return;
    rf_value *x = g->inputs[0], *a = g->nodes[0]->outs[0], *b = g->nodes[1]->outs[0], *c = g->nodes[2]->outs[0];
    CHECK(rf_sole_reader(g, x, NULL) == NULL); /* two readers */
    CHECK(rf_sole_reader(g, a, NULL) == g->nodes[1] && rf_sole_reader(g, a, "self") == g->nodes[1]);
    CHECK(rf_sole_reader(g, a, "other") == NULL);
    CHECK(rf_sole_reader(g, b, NULL) == g->nodes[2] && rf_sole_reader(g, b, "self") == NULL); /* self and other */
    CHECK(rf_sole_reader(g, c, "tensors") == g->nodes[3] && rf_sole_reader(g, c, "self") == NULL);
    CHECK(rf_sole_reader(g, g->nodes[3]->outs[0], "self") == g->nodes[4]);
    CHECK(rf_sole_reader(g, g->nodes[4]->outs[0], NULL) == NULL); /* a graph output */
    rf_graph_free(g);
}

int main(void) {
    test_attr_constructors();
    test_fft_plans();
    test_fft_constants();
    test_data_constants();
    test_roundtrip();
    test_parse_errors();
    test_lower_rope();
    test_unsupported();
    test_dtype_policy();
    test_analysis();
    test_rule_table();
    test_pattern_table();
    test_verify_api_graphs();
    test_sole_reader();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
