/* Out of memory is an error, never an abort or a leak: for each input file and every k, the k-th heap allocation
 * of parse -> analyze -> lower -> print fails (rf_test_fail_allocation), and each entry point must return
 * RF_ERR_NOMEM or NULL with nothing left allocated (LeakSanitizer checks at exit under the sanitizer build); once
 * k passes the last allocation, the run must give the same text as a run without failures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "realify.h"

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf) buf[n] = '\0';
    fclose(f);
    return buf;
}

/* One pipeline run: 0 with *printed set (the lowered text), 1 on a clean out-of-memory error, 2 on a wrong result. */
static int run(const char *text, char **printed) {
    *printed = NULL;
    rf_error err = {0};
    rf_graph *g = (rf_graph *)1;
    rf_status s = rf_parse(text, &g, &err);
    if (s == RF_ERR_NOMEM) return g == NULL && strstr(err.message, "out of memory") ? 1 : 2;
    if (s != RF_OK) return 2;
    rf_analysis *a = rf_analyze(g);
    int nomem = 0;
    if (a) {
        char *t = rf_analysis_print(a);
        nomem |= t == NULL;
        rf_string_free(t);
        rf_analysis_free(a);
    } else {
        nomem = 1;
    }
    rf_graph *out = (rf_graph *)1;
    s = rf_lower(g, NULL, &out, &err);
    if (s == RF_ERR_NOMEM) {
        rf_graph_free(g);
        return out == NULL && strstr(err.message, "out of memory") ? 1 : 2;
    }
    if (s != RF_OK) {
        rf_graph_free(g);
        return 2;
    }
    *printed = rf_print(out);
    rf_graph_free(out);
    rf_graph_free(g);
    if (!*printed) return 1;
    return nomem ? 1 : 0;
}

int main(int argc, char **argv) {
    int failed = 0, tried = 0;
    for (int i = 1; i < argc; i++) {
        char *text = read_file(argv[i]);
        if (!text) {
            fprintf(stderr, "%s: cannot read\n", argv[i]);
            return 1;
        }
        char *want = NULL;
        if (run(text, &want) != 0) { /* a golden file of an error, or one needing other options */
            rf_string_free(want);
            free(text);
            continue;
        }
        tried++;
        long k = 0;
        for (;; k++) {
            rf_test_fail_allocation(k);
            char *got = NULL;
            int r = run(text, &got);
            long left = rf_test_fail_allocation(-1);
            if (r == 2 || (r == 0 && left < 0) || (r == 1 && left >= 0)) {
                fprintf(stderr, "%s: allocation %ld: %s\n", argv[i], k,
                        r == 2 ? "not a clean out-of-memory error" : "the failure went unreported");
                failed = 1;
            }
            if (r == 0 && strcmp(got, want) != 0) {
                fprintf(stderr, "%s: allocation %ld: a different result\n", argv[i], k);
                failed = 1;
            }
            rf_string_free(got);
            if (left >= 0 || failed) break; /* k is past the last allocation */
        }
        if (!failed) printf("%s: each of %ld allocations failed in turn: clean errors\n", argv[i], k);
        rf_string_free(want);
        free(text);
    }
    if (tried < 10) {
        fprintf(stderr, "only %d inputs lowered without failures\n", tried);
        return 1;
    }
    return failed;
}
