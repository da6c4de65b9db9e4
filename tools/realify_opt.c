/* realify-opt: read text IR, print the lowered IR or the analysis. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "realify.h"

#include <time.h>

static double now_s(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC); /* C11; wall clock is fine for best-of-N */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Best-of-N timings of parse, lower and print, to stderr, with nodes per second. */
static int bench(const char *text, const rf_lower_options *opt, int repeats) {
    double best_parse = 1e30, best_lower = 1e30, best_print = 1e30;
    size_t nodes = 0;
    for (int r = 0; r < repeats; r++) {
        rf_error err = {0};
        rf_graph *g = NULL, *out = NULL;
        double t0 = now_s();
        if (rf_parse(text, &g, &err) != RF_OK) return 1;
        double t1 = now_s();
        if (rf_lower(g, opt, &out, &err) != RF_OK) {
            rf_graph_free(g);
            return 1;
        }
        double t2 = now_s();
        char *s = rf_print(out);
        double t3 = now_s();
        nodes = rf_graph_node_count(g);
        best_parse = t1 - t0 < best_parse ? t1 - t0 : best_parse;
        best_lower = t2 - t1 < best_lower ? t2 - t1 : best_lower;
        best_print = t3 - t2 < best_print ? t3 - t2 : best_print;
        rf_string_free(s);
        rf_graph_free(out);
        rf_graph_free(g);
    }
    double total = best_parse + best_lower + best_print;
    fprintf(stderr, "nodes %zu  parse %.3f ms  lower %.3f ms  print %.3f ms  total %.3f ms  "
            "lower %.3g nodes/s  text-to-text %.3g nodes/s\n", nodes, best_parse * 1e3, best_lower * 1e3,
            best_print * 1e3, total * 1e3, (double)nodes / best_lower, (double)nodes / total);
    return 0;
}

static char *read_all(FILE *f) {
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
        }
    }
    if (buf) buf[len] = '\0';
    return buf;
}

static int usage(void) {
    fputs("usage: realify-opt [--analyze | --print | --verify | --list-rules | --list-patterns] [--truncate-double]\n"
          "                   [--no-cleanup] [--fft matmul|native|onnx-dft] [--division c10|scaled] [--planar-consts]\n"
          "                   [--planar-inputs] [--pattern NAME] [--no-pattern NAME] [--rotary-op] [--pair-words]\n"
          "                   [--target NAME] [--report]\n"
          "                   [FILE]\n"
          "  Reads text IR from FILE (or stdin) and prints the lowered IR.\n"
          "  --analyze     print the complex values, subgraphs and boundaries instead\n"
          "  --print       parse and print the IR unchanged (round trip)\n"
          "  --verify      only parse and verify the IR; print \"ok\" when it is well formed\n"
          "  --list-rules  print the ops that have a lowering rule\n"
          "  --list-patterns  print the multi-op patterns: name, on or off by default, what it does\n"
          "  --pattern P, --no-pattern P  turn the pattern P on, off\n"
          "  --report      after the lowered IR, print the lowering report (the patterns that fired) as # lines\n"
          "  --planar-consts, --planar-inputs  let buffers/constants, inputs cross as planar [2, ...]\n"
          "  --rotary-op   --pattern rope.op: RoPE as one realify.rotary_embedding op (ONNX opset >= 23)\n"
          "  --pair-words  --pattern rope.words: bfloat16 RoPE reads and writes each pair as one int32 word\n"
          "  --target T    the receiver (tensorrt, onnx, executorch, ...): picks its emission where targets differ\n"
          "  --bench N     time parse, lower and print (best of N) instead; report nodes per second\n"
          "  --fft S       matmul: DFTs as real matmuls (default); native: realify.fft_* operators;\n"
          "                onnx-dft: realify.dft calls (ONNX DFT)\n"
          "  --division A  c10: Smith's algorithm as eager PyTorch (default); scaled: by max(|c|, |d|)\n",
          stderr);
    return 2;
}

int main(int argc, char **argv) {
    int analyze = 0, print_only = 0, verify_only = 0, repeats = 0, report = 0;
    rf_lower_options opt;
    rf_lower_options_init(&opt);
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--analyze") == 0) analyze = 1;
        else if (strcmp(argv[i], "--print") == 0) print_only = 1;
        else if (strcmp(argv[i], "--verify") == 0) verify_only = 1;
        else if (strcmp(argv[i], "--bench") == 0 && i + 1 < argc) repeats = atoi(argv[++i]);
        else if (strcmp(argv[i], "--truncate-double") == 0) opt.truncate_double = 1;
        else if (strcmp(argv[i], "--no-cleanup") == 0) opt.cleanup = 0;
        else if (strcmp(argv[i], "--fft") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "matmul") == 0) opt.fft = RF_FFT_MATMUL;
            else if (strcmp(s, "native") == 0) opt.fft = RF_FFT_NATIVE;
            else if (strcmp(s, "onnx-dft") == 0) opt.fft = RF_FFT_ONNX_DFT;
            else return usage();
        } else if (strcmp(argv[i], "--division") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "c10") == 0) opt.division = RF_DIV_C10;
            else if (strcmp(s, "scaled") == 0) opt.division = RF_DIV_SCALED;
            else return usage();
        }
        else if (strcmp(argv[i], "--planar-consts") == 0) opt.planar |= RF_PLANAR_CONSTS;
        else if (strcmp(argv[i], "--planar-inputs") == 0) opt.planar |= RF_PLANAR_INPUTS;
        else if (strcmp(argv[i], "--rotary-op") == 0) opt.patterns |= rf_pattern_bit("rope.op");
        else if (strcmp(argv[i], "--pair-words") == 0) opt.patterns |= rf_pattern_bit("rope.words");
        else if ((strcmp(argv[i], "--pattern") == 0 || strcmp(argv[i], "--no-pattern") == 0) && i + 1 < argc) {
            unsigned bit = rf_pattern_bit(argv[i + 1]);
            if (!bit) {
                fprintf(stderr, "realify-opt: no pattern named %s (--list-patterns)\n", argv[i + 1]);
                return 2;
            }
            if (argv[i][2] == 'n') opt.patterns &= ~bit;
            else opt.patterns |= bit;
            i++;
        } else if (strcmp(argv[i], "--report") == 0) report = 1;
        else if (strcmp(argv[i], "--list-patterns") == 0) {
            for (size_t k = 0; k < rf_pattern_count(); k++) {
                const char *name = rf_pattern_name(k);
                int on = (rf_pattern_defaults() & rf_pattern_bit(name)) != 0;
                printf("%s\t%s\t%s\n", name, on ? "on" : "off", rf_pattern_doc(name));
            }
            return 0;
        }
        else if (strcmp(argv[i], "--target") == 0 && i + 1 < argc) {
            opt.target = rf_target_bit(argv[++i]);
            if (!opt.target) return usage();
        }
        else if (strcmp(argv[i], "--list-rules") == 0) {
            for (size_t k = 0; k < rf_rule_count(); k++) puts(rf_rule_name(k));
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) return usage();
        else if (path) return usage();
        else path = argv[i];
    }
    FILE *f = (!path || strcmp(path, "-") == 0) ? stdin : fopen(path, "rb");
    if (!f) {
        perror(path);
        return 2;
    }
    char *text = read_all(f);
    if (f != stdin) fclose(f);
    if (!text) {
        fputs("realify-opt: out of memory\n", stderr);
        return 2;
    }
    if (repeats > 0) {
        int brc = bench(text, &opt, repeats);
        free(text);
        return brc;
    }
    rf_error err = {0};
    rf_graph *g = NULL;
    int rc = 0;
    if (rf_parse(text, &g, &err) != RF_OK) {
        fprintf(stderr, "realify-opt: %s: %s\n", path ? path : "<stdin>", err.message);
        free(text);
        return 1;
    }
    char *out = NULL;
    if (!print_only && rf_verify(g, &err) != RF_OK) { /* rf_lower verifies too; --analyze needs it first */
        fprintf(stderr, "realify-opt: %s: %s\n", path ? path : "<stdin>", err.message);
        rc = 1;
    } else if (verify_only) {
        puts("ok");
    } else if (analyze) {
        rf_analysis *a = rf_analyze(g);
        out = rf_analysis_print(a);
        rf_analysis_free(a);
    } else if (print_only) {
        out = rf_print(g);
    } else {
        rf_graph *lowered = NULL;
        if (rf_lower(g, &opt, &lowered, &err) != RF_OK) {
            fprintf(stderr, "realify-opt: %s: %s (op %s, node %%%s)\n", rf_status_name(err.code), err.message,
                    err.op, err.node);
            rc = 1;
        } else {
            out = rf_print(lowered);
            if (out && report) {
                fputs(out, stdout);
                rf_string_free(out);
                out = NULL;
                for (size_t k = 0; k < rf_graph_report_count(lowered); k++)
                    printf("# %s\n", rf_graph_report_line(lowered, k));
            }
            rf_graph_free(lowered);
        }
    }
    if (out) fputs(out, stdout);
    rf_string_free(out);
    rf_graph_free(g);
    free(text);
    return rc;
}
