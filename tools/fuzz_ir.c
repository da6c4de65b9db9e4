/* libFuzzer target over the C core: parse -> verify -> lower -> print ->
 * re-parse. Any input may be rejected with an error; none may crash, leak, or
 * print IR that does not parse again.
 *
 * Built with -DRF_FUZZ_REPLAY it is instead a plain program that replays files
 * (the regression inputs in tests/c/fuzz_regress/) through the same steps and
 * exits 0 when each input ends in a reported error, not a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "realify.h"

/* Printed graphs larger than this skip the re-parse: big FFTs print megabytes
 * of constant hex, and smaller graphs cover the same printer paths. */
#define REPARSE_MAX_CHARS ((size_t)1 << 20)

/* Parses `text`, which must succeed; aborts (a finding) otherwise. */
static void must_reparse(const char *text, const char *what) {
    if (strlen(text) > REPARSE_MAX_CHARS) return;
    rf_error err = {0};
    rf_graph *g = NULL;
    if (rf_parse(text, &g, &err) != RF_OK) {
        fprintf(stderr, "printed %s does not parse again: %s\n%s", what, err.message, text);
        abort();
    }
    char *again = rf_print(g);
    if (strcmp(again, text) != 0) {
        fprintf(stderr, "printed %s changes on a round trip:\n%s\n---\n%s", what, text, again);
        abort();
    }
    rf_string_free(again);
    rf_graph_free(g);
}

/* Runs one input; returns its status and leaves the error in *err. */
static rf_status run_one(const char *text, rf_error *err) {
    rf_graph *g = NULL;
    rf_status s = rf_parse(text, &g, err);
    if (s != RF_OK) return s;
    char *printed = rf_print(g);
    must_reparse(printed, "input");
    rf_string_free(printed);
    s = rf_verify(g, err);
    size_t text_len = strlen(text);
    for (int cleanup = 0; s == RF_OK && cleanup <= 1; cleanup++) {
        rf_lower_options opt;
        rf_lower_options_init(&opt);
        opt.cleanup = cleanup;
        opt.truncate_double = cleanup; /* both settings get exercised */
        /* the first lowering uses DFT matmuls; the second, a strategy picked by the input's length */
        opt.fft = cleanup ? (rf_fft_strategy)(text_len % (RF_FFT_ONNX_DFT + 1)) : RF_FFT_MATMUL;
        if (cleanup) { /* and the emission options, by other bits of the length */
            if ((text_len >> 2) & 1) opt.patterns |= rf_pattern_bit("rope.op");
            if ((text_len >> 3) & 1) opt.patterns |= rf_pattern_bit("rope.words");
            opt.planar = (unsigned)((text_len >> 4) & 3);
        }
        rf_graph *out = NULL;
        s = rf_lower(g, &opt, &out, err);
        if (s != RF_OK) break;
        char *lowered = rf_print(out);
        must_reparse(lowered, "lowered graph");
        size_t len = strlen(lowered);
        rf_string_free(lowered);
        rf_graph_free(out);
        if (len > REPARSE_MAX_CHARS) break; /* one lowering of a big graph is enough */
    }
    rf_graph_free(g);
    return s;
}

#ifndef RF_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    rf_error err = {0};
    run_one(text, &err);
    free(text);
    return 0;
}
#else
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0, k;
    char *buf = malloc(cap);
    while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    *len = n;
    return buf;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs("usage: fuzz_replay FILE...\n  each FILE must end in a reported error (parse, verify or lower)\n",
              stderr);
        return 2;
    }
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        size_t len;
        char *text = read_file(argv[i], &len);
        if (!text) {
            perror(argv[i]);
            return 2;
        }
        if (strlen(text) != len) { /* the fuzzer sees bytes up to the first NUL as text */
            text[strlen(text)] = '\0';
        }
        rf_error err = {0};
        rf_status s = run_one(text, &err);
        free(text);
        if (s == RF_OK) {
            fprintf(stderr, "%s: lowered without an error, expected one\n", argv[i]);
            bad = 1;
        } else {
            printf("%s: %s: %s\n", argv[i], rf_status_name(s), err.message);
        }
    }
    return bad;
}
#endif
