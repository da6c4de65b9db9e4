/* filecheck: checks the output of a run against directives written in the test file itself, in the style of
 * LLVM's FileCheck (our own, smaller). The golden tests use it through tests/c/run_golden.cmake.
 *
 *   filecheck [--prefix P] [--stdout FILE] [--stderr FILE] [--status N] CHECKFILE
 *
 * --stdout is the output to check (standard input if absent), --stderr the run's error stream, --status its
 * exit status as cmake's execute_process reports it (a number, or a text when the run did not exit).
 *
 * Directives are comment lines of CHECKFILE, `# P<kind>: pattern`, P being CHECK unless --prefix says otherwise.
 * Matching is line by line; "the previous match" is the output line the last positive directive matched.
 *   P: pat        pat is on a line after the previous match (the first one: on any line)
 *   P-NEXT: pat   pat is on the line right after the previous match
 *   P-NOT: pat    pat is on no line between the previous match and the next positive match (or the end)
 *   P-DAG: pat    a run of DAG lines matches after the previous match in any order, each on a line of its own;
 *                 the last line the run matched becomes the previous match
 *   P-LABEL: pat  labels are matched first, in order, and cut the output into blocks: the directives after a
 *                 label see only the lines from it up to the next label
 *   P-ERR: pat    like P:, but on the --stderr text. A file with ERR lines expects the run to fail.
 * With --status, the run must exit 0, or exactly 1 when the file has ERR lines: 1 is how realify-opt rejects an
 * input, while a crash or a sanitizer report ends otherwise (a signal, LeakSanitizer's 23).
 *
 * A pattern is a literal substring of the line (blanks around it ignored), except for
 *   {{re}}        a POSIX extended regular expression (regcomp with REG_EXTENDED); it ends at the last "}}" of
 *                 the first run of '}', so {{[0-9a-f]{8}}} works
 *   [[NAME:re]]   re, and NAME is bound to the text it matched (no back references in re)
 *   [[NAME]]      the text bound to NAME by an earlier directive, literally
 * NAME is [A-Za-z_][A-Za-z0-9_]*; a later [[NAME:re]] rebinds it. LABEL and NOT lines cannot bind names, LABEL
 * lines cannot use them. A '[' right before "[[" is literal, so a list reads tensors=[[[A]], [[B]]]; any other
 * literal "[[" or "{{" is written {{\[\[}} or {{\{\{}}.
 *
 * A mistake in CHECKFILE fails like a failed check: no directive at all, a comment word that starts with P and
 * is P alone or has a '-' or ':' after P but is no directive (a typo such as CHECK-NXT:), an empty pattern, a
 * bad regex, an undefined name, NEXT with no previous match to follow or right after NOT or DAG lines.
 *
 * Exit status: 0 every directive holds; 1 one failed or CHECKFILE is wrong (the message names the directive, its
 * line, the output line the search started from, and prints the output); 2 bad arguments or unreadable file.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_GROUPS = 64, DUMP_WIDTH = 160 };

typedef enum { K_CHECK, K_NEXT, K_NOT, K_DAG, K_LABEL, K_ERR, K_COUNT } kind;
static const char *const kind_suffix[K_COUNT] = {"", "-NEXT", "-NOT", "-DAG", "-LABEL", "-ERR"};

typedef struct {
    kind k;
    long line; /* in CHECKFILE, 1-based */
    const char *pat;
} directive;

typedef struct {
    char *s;
    size_t n, cap;
} str;

typedef struct {
    char *buf;
    char **lines;
    long n;
    const char *what; /* "stdout", "stderr", a path */
} text;

typedef struct {
    char *name, *value;
} var;

typedef struct {
    const char *prefix, *path;
    var *vars;
    size_t nvars, capvars;
} ctx;

typedef struct {
    regex_t re;
    int compiled, ndefs;
    char *def[MAX_GROUPS];
    int group[MAX_GROUPS];
    str uses; /* NAME = "value" of each use, for messages */
} pattern;

enum { ALLOW_USES = 1, ALLOW_DEFS = 2 };

/* ---- memory and strings ---- */

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("filecheck: out of memory\n", stderr);
        exit(2);
    }
    return q;
}

static void put(str *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->s = xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void puts_(str *b, const char *s) { put(b, s, strlen(s)); }

static char *dup_n(const char *s, size_t n) {
    char *d = xrealloc(NULL, n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* A literal as an extended regex: escape what ERE treats specially (']' and '}' alone are ordinary). */
static void put_literal(str *b, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (strchr(".[\\()*+?{|^$", s[i])) put(b, "\\", 1);
        put(b, s + i, 1);
    }
}

/* ---- texts ---- */

static int read_text(const char *path, const char *what, text *t) {
    FILE *f = path ? fopen(path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "filecheck: cannot open %s\n", path);
        return -1;
    }
    str b = {0};
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) put(&b, chunk, got);
    put(&b, "", 0);
    int bad = ferror(f);
    if (f != stdin) fclose(f);
    if (bad) {
        fprintf(stderr, "filecheck: cannot read %s\n", path ? path : "standard input");
        free(b.s);
        return -1;
    }
    t->buf = b.s;
    t->what = what;
    t->n = 0;
    for (size_t i = 0; i < b.n; i++) t->n += b.s[i] == '\n';
    if (b.n && b.s[b.n - 1] != '\n') t->n++;
    t->lines = xrealloc(NULL, sizeof *t->lines * (size_t)(t->n ? t->n : 1));
    char *p = b.s;
    for (long i = 0; i < t->n; i++) {
        t->lines[i] = p;
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        p = nl ? nl + 1 : p + strlen(p);
    }
    return 0;
}

static void text_free(text *t) {
    free(t->buf);
    free(t->lines);
}

static void dump(const text *t, long mark) {
    fprintf(stderr, "--- %s (%ld line%s) ---\n", t->what, t->n, t->n == 1 ? "" : "s");
    for (long i = 0; i < t->n; i++) {
        size_t len = strlen(t->lines[i]);
        fprintf(stderr, "%c%5ld | %.*s", i == mark ? '>' : ' ', i + 1, DUMP_WIDTH, t->lines[i]);
        if (len > DUMP_WIDTH) fprintf(stderr, " ... (%zu chars)", len);
        fputc('\n', stderr);
    }
    fprintf(stderr, "--- end of %s ---\n", t->what);
}

/* ---- variables ---- */

static var *lookup(ctx *c, const char *name, size_t n) {
    for (size_t i = 0; i < c->nvars; i++)
        if (strlen(c->vars[i].name) == n && memcmp(c->vars[i].name, name, n) == 0) return &c->vars[i];
    return NULL;
}

static void bind(ctx *c, const char *name, const char *value, size_t n) {
    var *v = lookup(c, name, strlen(name));
    if (!v) {
        if (c->nvars == c->capvars) {
            c->capvars = c->capvars ? 2 * c->capvars : 16;
            c->vars = xrealloc(c->vars, sizeof *c->vars * c->capvars);
        }
        v = &c->vars[c->nvars++];
        v->name = dup_n(name, strlen(name));
    } else {
        free(v->value);
    }
    v->value = dup_n(value, n);
}

/* ---- patterns ---- */

/* s points at '[' opening a bracket expression; returns the char after its ']', or NULL. */
static const char *bracket_end(const char *s) {
    s++;
    if (*s == '^') s++;
    if (*s == ']') s++;
    for (; *s; s++) {
        if (s[0] == '[' && (s[1] == ':' || s[1] == '.' || s[1] == '=')) {
            const char *e = strchr(s + 2, s[1]);
            while (e && e[1] != ']') e = strchr(e + 1, s[1]);
            if (!e) return NULL;
            s = e + 1;
        } else if (*s == ']') {
            return s + 1;
        }
    }
    return NULL;
}

/* Capturing groups opened in re[0..n). */
static int count_groups(const char *re, size_t n) {
    int g = 0;
    for (size_t i = 0; i < n; i++) {
        if (re[i] == '\\') {
            i++;
        } else if (re[i] == '[') {
            const char *e = bracket_end(re + i);
            if (!e) break;
            i = (size_t)(e - re) - 1;
        } else if (re[i] == '(') {
            g++;
        }
    }
    return g;
}

static int is_name_start(char ch) { return isalpha((unsigned char)ch) || ch == '_'; }
static int is_name_char(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

static void pat_free(pattern *p) {
    if (p->compiled) regfree(&p->re);
    for (int i = 0; i < p->ndefs; i++) free(p->def[i]);
    free(p->uses.s);
    memset(p, 0, sizeof *p);
}

/* Builds p from pattern text s; on a mistake returns -1 with the reason in err. */
static int compile(ctx *c, const char *s, int allow, pattern *p, str *err) {
    str rx = {0};
    int ng = 0;
    memset(p, 0, sizeof *p);
    put(&rx, "", 0);
    while (*s) {
        if (s[0] == '{' && s[1] == '{') {
            const char *e = strstr(s + 2, "}}");
            while (e && e[2] == '}') e++; /* "a{2}}}" ends with an interval */
            if (!e || e == s + 2) {
                puts_(err, e ? "empty {{}}" : "unterminated {{");
                goto fail;
            }
            puts_(&rx, "(");
            put(&rx, s + 2, (size_t)(e - s - 2));
            puts_(&rx, ")");
            ng += 1 + count_groups(s + 2, (size_t)(e - s - 2));
            s = e + 2;
        } else if (s[0] == '[' && s[1] == '[' && s[2] != '[') {
            const char *nm = s + 2, *q = nm;
            if (is_name_start(*q))
                while (is_name_char(*q)) q++;
            size_t nl = (size_t)(q - nm);
            if (nl == 0 || (*q != ':' && !(q[0] == ']' && q[1] == ']'))) {
                puts_(err, "expected [[NAME]] or [[NAME:regex]] after '[['");
                goto fail;
            }
            if (*q == ']') { /* a use */
                var *v = lookup(c, nm, nl);
                const char *why = !(allow & ALLOW_USES) ? "this directive cannot use variables" : NULL;
                for (int i = 0; i < p->ndefs && !why; i++)
                    if (strlen(p->def[i]) == nl && !memcmp(p->def[i], nm, nl))
                        why = "a variable cannot be used in the directive that binds it: ";
                if (!why && !v) why = "undefined variable ";
                if (why) {
                    puts_(err, why);
                    if (allow & ALLOW_USES) put(err, nm, nl);
                    goto fail;
                }
                put_literal(&rx, v->value, strlen(v->value));
                puts_(&p->uses, p->uses.n ? ", " : "with ");
                put(&p->uses, nm, nl);
                puts_(&p->uses, " = \"");
                puts_(&p->uses, v->value);
                puts_(&p->uses, "\"");
                s = q + 2;
                continue;
            }
            const char *r = q + 1, *e = r; /* a definition: the regex ends at "]]" outside brackets */
            while (*e && !(e[0] == ']' && e[1] == ']')) {
                if (*e == '\\' && e[1]) e += 2;
                else if (*e == '[') e = bracket_end(e);
                else e++;
                if (!e) break;
            }
            if (!(allow & ALLOW_DEFS) || !e || !*e || e == r || p->ndefs == MAX_GROUPS) {
                puts_(err, !(allow & ALLOW_DEFS) ? "this directive cannot bind variables"
                           : (!e || !*e)         ? "unterminated [[NAME:regex]]"
                           : e == r              ? "empty regex in [[NAME:]]"
                                                 : "too many variables");
                goto fail;
            }
            p->def[p->ndefs] = dup_n(nm, nl);
            p->group[p->ndefs++] = ng + 1;
            puts_(&rx, "(");
            put(&rx, r, (size_t)(e - r));
            puts_(&rx, ")");
            ng += 1 + count_groups(r, (size_t)(e - r));
            s = e + 2;
        } else {
            put_literal(&rx, s, 1);
            s++;
        }
    }
    if (ng + 1 > MAX_GROUPS) {
        puts_(err, "too many groups");
        goto fail;
    }
    int rc = regcomp(&p->re, rx.s, REG_EXTENDED);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &p->re, msg, sizeof msg);
        puts_(err, "bad regular expression: ");
        puts_(err, msg);
        goto fail;
    }
    p->compiled = 1;
    free(rx.s);
    return 0;
fail:
    free(rx.s);
    pat_free(p);
    return -1;
}

static int matches(const pattern *p, const char *line, regmatch_t *m) {
    return regexec(&p->re, line, MAX_GROUPS, m, 0) == 0;
}

/* First line in [from, to) that p matches and skip does not mark; -1 if none. */
static long find(const pattern *p, const text *t, long from, long to, const unsigned char *skip) {
    regmatch_t m[MAX_GROUPS];
    for (long i = from < 0 ? 0 : from; i < to && i < t->n; i++)
        if (!(skip && skip[i]) && matches(p, t->lines[i], m)) return i;
    return -1;
}

static void capture(ctx *c, const pattern *p, const text *t, long line) {
    regmatch_t m[MAX_GROUPS];
    if (!p->ndefs || !matches(p, t->lines[line], m)) return;
    for (int i = 0; i < p->ndefs; i++) {
        regmatch_t g = m[p->group[i]];
        if (g.rm_so < 0) g.rm_so = g.rm_eo = 0;
        bind(c, p->def[i], t->lines[line] + g.rm_so, (size_t)(g.rm_eo - g.rm_so));
    }
}

/* ---- reports ---- */

static void head(const ctx *c, const directive *d) {
    fprintf(stderr, "%s:%ld: error: %s%s: ", c->path, d->line, c->prefix, kind_suffix[d->k]);
}

/* A failed directive: what went wrong, the pattern, the values it used, and the text searched. */
static void report(const ctx *c, const directive *d, const pattern *p, const text *t, long mark, const char *fmt,
                   ...) {
    va_list ap;
    head(c, d);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n  pattern: %s\n", d->pat);
    if (p && p->uses.n) fprintf(stderr, "  %s\n", p->uses.s);
    dump(t, mark);
}

/* The lines a failed search covered, in words: [from, to) after the match on line pos (-1: none). */
static void describe(char *buf, size_t n, const text *t, long pos, long from, long to) {
    int k = from >= to ? snprintf(buf, n, "no %s line left to search", t->what)
                       : snprintf(buf, n, "searched %s lines %ld to %ld", t->what, from + 1, to);
    if (pos >= 0 && k > 0 && (size_t)k < n) snprintf(buf + k, n - (size_t)k, ", after the previous match on line %ld",
                                                     pos + 1);
}

/* ---- the check run over one text ---- */

typedef struct {
    pattern p[64];
    const directive *d[64];
    int n;
} pending;

/* The pending NOT patterns must match no line in [from, to). */
static int flush_nots(const ctx *c, pending *nots, const text *t, long from, long to) {
    int bad = 0;
    for (int i = 0; i < nots->n; i++) {
        long hit = bad ? -1 : find(&nots->p[i], t, from, to, NULL);
        if (hit >= 0) {
            report(c, nots->d[i], &nots->p[i], t, hit,
                   "found on %s line %ld; it must be absent from lines %ld to %ld", t->what, hit + 1, from + 1, to);
            bad = 1;
        }
        pat_free(&nots->p[i]);
    }
    nots->n = 0;
    return bad ? -1 : 0;
}

static int compile_or_report(ctx *c, const directive *d, int allow, pattern *p) {
    str err = {0};
    if (compile(c, d->pat, allow, p, &err) == 0) return 0;
    head(c, d);
    fprintf(stderr, "%s\n  pattern: %s\n", err.s, d->pat);
    free(err.s);
    return -1;
}

static int check_text(ctx *c, const directive *ds, size_t nd, const text *t) {
    long *labels = xrealloc(NULL, sizeof *labels * (nd ? nd : 1));
    unsigned char *taken = xrealloc(NULL, (size_t)(t->n ? t->n : 1));
    pending *nots = xrealloc(NULL, sizeof *nots);
    nots->n = 0;
    int nlab = 0, rc = -1;
    char from[200];
    pattern p;
    for (size_t i = 0; i < nd; i++) { /* labels first, each after the one before */
        if (ds[i].k != K_LABEL) continue;
        long prev = nlab ? labels[nlab - 1] : -1;
        if (compile_or_report(c, &ds[i], 0, &p)) goto out;
        long at = find(&p, t, prev + 1, t->n, NULL);
        if (at < 0) {
            if (nlab) snprintf(from, sizeof from, " after the previous label on line %ld", prev + 1);
            else from[0] = '\0';
            report(c, &ds[i], &p, t, prev + 1, "label not found in %s%s", t->what, from);
            pat_free(&p);
            goto out;
        }
        pat_free(&p);
        labels[nlab++] = at;
    }
    long pos = -1, end = nlab ? labels[0] : t->n;
    int li = 0;
    for (size_t i = 0; i < nd;) {
        const directive *d = &ds[i];
        if (d->k == K_NOT) {
            if (nots->n == 64) {
                head(c, d);
                fputs("too many CHECK-NOT lines in a row\n", stderr);
                goto out;
            }
            if (compile_or_report(c, d, ALLOW_USES, &nots->p[nots->n])) goto out;
            nots->d[nots->n++] = d;
            i++;
        } else if (d->k == K_LABEL) {
            if (flush_nots(c, nots, t, pos + 1, labels[li])) goto out;
            pos = labels[li++];
            end = li < nlab ? labels[li] : t->n;
            i++;
        } else if (d->k == K_DAG) {
            long lo = -1, hi = -1;
            memset(taken, 0, (size_t)(t->n ? t->n : 1));
            for (; i < nd && ds[i].k == K_DAG; i++) {
                if (compile_or_report(c, &ds[i], ALLOW_USES | ALLOW_DEFS, &p)) goto out;
                long at = find(&p, t, pos + 1, end, taken);
                if (at < 0) {
                    describe(from, sizeof from, t, pos, pos + 1, end);
                    report(c, &ds[i], &p, t, pos + 1, "not found (%s; lines matched by the DAG lines above it are "
                           "skipped)", from);
                    pat_free(&p);
                    goto out;
                }
                capture(c, &p, t, at);
                pat_free(&p);
                taken[at] = 1;
                lo = lo < 0 || at < lo ? at : lo;
                hi = at > hi ? at : hi;
            }
            if (flush_nots(c, nots, t, pos + 1, lo)) goto out;
            pos = hi;
        } else {
            if (compile_or_report(c, d, ALLOW_USES | ALLOW_DEFS, &p)) goto out;
            long at = d->k == K_NEXT ? pos + 1 : find(&p, t, pos + 1, end, NULL);
            regmatch_t m[MAX_GROUPS];
            if (d->k == K_NEXT && (at >= end || !matches(&p, t->lines[at], m))) {
                if (at >= end) report(c, d, &p, t, -1, "no %s line after the previous match on line %ld", t->what,
                                      pos + 1);
                else report(c, d, &p, t, at, "not on %s line %ld, the line after the previous match", t->what, at + 1);
                pat_free(&p);
                goto out;
            }
            if (at < 0) {
                long elsewhere = find(&p, t, 0, t->n, NULL);
                char hint[80] = "";
                if (elsewhere >= 0)
                    snprintf(hint, sizeof hint, "; it matches line %ld, outside that range", elsewhere + 1);
                describe(from, sizeof from, t, pos, pos + 1, end);
                report(c, d, &p, t, pos + 1, "not found (%s%s)", from, hint);
                pat_free(&p);
                goto out;
            }
            if (flush_nots(c, nots, t, pos + 1, at)) {
                pat_free(&p);
                goto out;
            }
            capture(c, &p, t, at);
            pat_free(&p);
            pos = at;
            i++;
        }
    }
    rc = flush_nots(c, nots, t, pos + 1, end);
out:
    for (int i = 0; i < nots->n; i++) pat_free(&nots->p[i]);
    free(nots);
    free(taken);
    free(labels);
    return rc;
}

/* ---- the check file ---- */

/* Directives of chk for the given prefix, in order; -1 after reporting a malformed one. */
static int parse_directives(const ctx *c, const text *chk, directive *out, size_t *n) {
    size_t plen = strlen(c->prefix);
    *n = 0;
    for (long i = 0; i < chk->n; i++) {
        const char *s = chk->lines[i];
        while (*s == ' ' || *s == '\t') s++;
        if (*s != '#') continue;
        do s++;
        while (*s == ' ' || *s == '\t');
        if (strncmp(s, c->prefix, plen) != 0) continue;
        const char *w = s + plen, *colon = w;
        while (*colon && *colon != ':' && *colon != ' ' && *colon != '\t') colon++;
        int k = K_COUNT;
        if (*colon == ':')
            for (k = 0; k < K_COUNT; k++)
                if (strlen(kind_suffix[k]) == (size_t)(colon - w) && !strncmp(w, kind_suffix[k], (size_t)(colon - w)))
                    break;
        if (k == K_COUNT) {
            if (*colon != ':' && *w != '-' && *w && *w != ' ' && *w != '\t') continue; /* a word like CHECKS */
            fprintf(stderr, "%s:%ld: error: unknown directive '%.*s' (expected %s: or %s-NEXT|NOT|DAG|LABEL|ERR:)\n",
                    c->path, i + 1, (int)(colon - s + (*colon == ':')), s, c->prefix, c->prefix);
            return -1;
        }
        directive *d = &out[(*n)++];
        d->k = (kind)k;
        d->line = i + 1;
        d->pat = colon + 1;
        while (*d->pat == ' ' || *d->pat == '\t') d->pat++;
        char *e = (char *)d->pat + strlen(d->pat);
        while (e > d->pat && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) *--e = '\0';
        if (!*d->pat) {
            head(c, d);
            fputs("empty pattern\n", stderr);
            return -1;
        }
    }
    /* NEXT needs a single previous match; a NOT just before it could never fail. */
    kind prev = K_COUNT;
    for (size_t i = 0; i < *n; i++) {
        if (out[i].k == K_NEXT && prev != K_CHECK && prev != K_NEXT && prev != K_LABEL) {
            head(c, &out[i]);
            fputs(prev == K_NOT   ? "a NOT line right before a NEXT line can never fail\n"
                  : prev == K_DAG ? "a NEXT line cannot follow DAG lines (no single previous match)\n"
                                  : "no previous match to follow\n",
                  stderr);
            return -1;
        }
        if (out[i].k != K_ERR) prev = out[i].k;
    }
    return 0;
}

static int usage(void) {
    fputs("usage: filecheck [--prefix P] [--stdout FILE] [--stderr FILE] [--status N] CHECKFILE\n", stderr);
    return 2;
}

/* The run's status against what the file expects; -1 after reporting a mismatch. */
static int check_status(const ctx *c, const char *status, int want_fail, const text *out, const text *err) {
    char *end;
    long v = strtol(status, &end, 10);
    int exited = *status && !*end;
    if (exited && v == (want_fail ? 1 : 0)) return 0;
    fprintf(stderr, "%s: error: the run ", c->path);
    if (!exited) fprintf(stderr, "did not exit normally (%s)", status);
    else fprintf(stderr, "exited with status %ld", v);
    if (want_fail) fprintf(stderr, "; the file has %s-ERR lines, so it must fail with status 1\n", c->prefix);
    else fprintf(stderr, "; the file has no %s-ERR lines, so it must succeed\n", c->prefix);
    if (err) dump(err, -1);
    dump(out, -1);
    return -1;
}

int main(int argc, char **argv) {
    ctx c = {.prefix = "CHECK"};
    const char *out_path = NULL, *err_path = NULL, *status = NULL;
    for (int i = 1; i < argc; i++) {
        const char **opt = !strcmp(argv[i], "--prefix")   ? &c.prefix
                           : !strcmp(argv[i], "--stdout") ? &out_path
                           : !strcmp(argv[i], "--stderr") ? &err_path
                           : !strcmp(argv[i], "--status") ? &status
                                                          : NULL;
        if (opt && i + 1 < argc) *opt = argv[++i];
        else if (opt || argv[i][0] == '-' || c.path) return usage();
        else c.path = argv[i];
    }
    if (!c.path || !*c.prefix) return usage();
    text chk = {0}, out = {0}, err = {0};
    directive *ds = NULL;
    size_t nd = 0;
    int rc = 2;
    if (read_text(c.path, c.path, &chk)) goto done;
    ds = xrealloc(NULL, sizeof *ds * (size_t)(chk.n ? chk.n : 1));
    rc = 1;
    if (parse_directives(&c, &chk, ds, &nd)) goto done;
    if (nd == 0) {
        fprintf(stderr, "%s: error: no %s directives\n", c.path, c.prefix);
        goto done;
    }
    size_t nerr = 0;
    for (size_t i = 0; i < nd; i++) nerr += ds[i].k == K_ERR;
    rc = 2;
    if ((nerr && !err_path) || read_text(out_path, "stdout", &out) ||
        (err_path && read_text(err_path, "stderr", &err))) {
        if (nerr && !err_path) fprintf(stderr, "filecheck: %s has %s-ERR lines: give --stderr\n", c.path, c.prefix);
        goto done;
    }
    rc = 1;
    if (status && check_status(&c, status, nerr > 0, &out, err_path ? &err : NULL)) goto done;
    /* stdout directives first, then the ERR ones against stderr; names bound in the first are seen by the second */
    directive *errs = xrealloc(NULL, sizeof *errs * (nerr ? nerr : 1));
    size_t no = 0, ne = 0;
    for (size_t i = 0; i < nd; i++) {
        if (ds[i].k == K_ERR) errs[ne++] = ds[i];
        else ds[no++] = ds[i];
    }
    rc = check_text(&c, ds, no, &out) || check_text(&c, errs, ne, &err) ? 1 : 0;
    free(errs);
done:
    for (size_t i = 0; i < c.nvars; i++) {
        free(c.vars[i].name);
        free(c.vars[i].value);
    }
    free(c.vars);
    free(ds);
    text_free(&chk);
    text_free(&out);
    text_free(&err);
    return rc;
}
