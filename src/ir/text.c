/* Text IR: printer and parser. A round trip reproduces the graph exactly.
 *
 *   graph {
 *     input %x: c64[s0, 8]
 *     const %w: c64[8, 8] = param "layers.0.w"
 *     %a: f32[s0, 8], %b: f32[s0, 8] = aten.split.Tensor(self=%x, split_size=4, dim=1)
 *     output (%a, none)
 *   }
 *
 * A `!c64` after a type or an output marks a real [..., 2] value that carries a
 * complex64 tensor in view_as_real layout. `!c64 planar` (inputs and constants)
 * marks the layout [2, ...]: real part at [0], imaginary part at [1]. `!c128 storage`
 * (inputs and constants) marks a value the graph reads through its storage
 * (as_strided): the caller passes the [..., 2] view of its whole storage. `!f64` on
 * an f32 input, constant or output marks a real float64 tensor of the caller's
 * that truncate_double narrowed (cast at the boundary, same shape).
 *
 * Constants the lowering makes (DFT matrices, twiddles) carry their elements
 * inline as hex of their little-endian bytes, row-major:
 *
 *     const %dft4_cos: f32[2] = data "realify_constants.dft4_cos" "0000803f00000000"
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/mem.h"
#include "ir/strbuf.h"
#include "ir/verify.h"

/* ---- printer ---- */

static int is_plain_ident(const char *s) {
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
    return 1;
}

static void print_string(rf_strbuf *sb, const char *s) {
    rf_sb_putc(sb, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') rf_sb_putc(sb, '\\');
        if (*s == '\n') {
            rf_sb_puts(sb, "\\n");
            continue;
        }
        rf_sb_putc(sb, *s);
    }
    rf_sb_putc(sb, '"');
}

static void print_double(rf_strbuf *sb, double d) {
    if (isnan(d)) {
        rf_sb_puts(sb, "nan");
        return;
    }
    if (isinf(d)) {
        rf_sb_puts(sb, d < 0 ? "-inf" : "inf");
        return;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", d);
    /* Prefer the shortest form that round-trips. */
    for (int prec = 1; prec < 17; prec++) {
        char tmp[40];
        snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        if (strtod(tmp, NULL) == d) {
            memcpy(buf, tmp, sizeof tmp);
            break;
        }
    }
    rf_sb_puts(sb, buf);
    if (!strpbrk(buf, ".eEn")) rf_sb_puts(sb, ".0");
}

/* Inline constant data: ' "hex"', two lowercase hex digits per byte. */
static void print_hex(rf_strbuf *sb, const unsigned char *data, size_t n) {
    static const char digits[] = "0123456789abcdef";
    char chunk[513];
    rf_sb_puts(sb, " \"");
    for (size_t i = 0; i < n;) {
        size_t k = 0;
        for (; i < n && k < sizeof chunk - 1; i++) {
            chunk[k++] = digits[data[i] >> 4];
            chunk[k++] = digits[data[i] & 15];
        }
        chunk[k] = '\0';
        rf_sb_puts(sb, chunk);
    }
    rf_sb_putc(sb, '"');
}

static void print_type(rf_strbuf *sb, const rf_value *v) {
    rf_sb_puts(sb, rf_dtype_name(v->dtype));
    if (!rf_dtype_is_tensor(v->dtype)) return;
    rf_sb_putc(sb, '[');
    if (v->rank < 0) {
        rf_sb_putc(sb, '?');
    } else {
        for (int i = 0; i < v->rank; i++) {
            if (i) rf_sb_puts(sb, ", ");
            if (!v->dims[i].sym)
                rf_sb_put_int(sb, (long long)v->dims[i].size);
            else if (is_plain_ident(v->dims[i].sym))
                rf_sb_puts(sb, v->dims[i].sym);
            else
                print_string(sb, v->dims[i].sym);
        }
    }
    rf_sb_putc(sb, ']');
    if (v->packed_from != RF_DT_COUNT) rf_sb_printf(sb, " !%s", rf_dtype_name(v->packed_from));
    if (v->packed_from != RF_DT_COUNT && v->planar) rf_sb_puts(sb, " planar");
    if (v->packed_from != RF_DT_COUNT && v->storage_read) rf_sb_puts(sb, " storage");
}

static void print_attr(rf_strbuf *sb, const rf_attr *a) {
    switch (a->kind) {
    case RF_A_NONE: rf_sb_puts(sb, "none"); break;
    case RF_A_INT: rf_sb_put_int(sb, (long long)a->i); break;
    case RF_A_BOOL: rf_sb_puts(sb, a->i ? "true" : "false"); break;
    case RF_A_FLOAT: print_double(sb, a->f); break;
    case RF_A_COMPLEX:
        rf_sb_puts(sb, "complex(");
        print_double(sb, a->f);
        rf_sb_puts(sb, ", ");
        print_double(sb, a->f_im);
        rf_sb_putc(sb, ')');
        break;
    case RF_A_STR: print_string(sb, a->s); break;
    case RF_A_DTYPE: rf_sb_puts(sb, rf_dtype_name(a->dtype)); break;
    case RF_A_VALUE:
        rf_sb_putc(sb, '%');
        rf_sb_puts(sb, a->value->name);
        break;
    case RF_A_LIST:
        rf_sb_putc(sb, '[');
        for (size_t i = 0; i < a->n; i++) {
            if (i) rf_sb_puts(sb, ", ");
            print_attr(sb, &a->items[i]);
        }
        rf_sb_putc(sb, ']');
        break;
    }
}

static void print_node(rf_strbuf *sb, const rf_node *n) {
    rf_sb_puts(sb, "  ");
    for (size_t i = 0; i < n->nouts; i++) {
        if (i) rf_sb_puts(sb, ", ");
        rf_sb_putc(sb, '%');
        rf_sb_puts(sb, n->outs[i]->name);
        rf_sb_puts(sb, ": ");
        print_type(sb, n->outs[i]);
    }
    if (n->nouts == 0) rf_sb_puts(sb, "()");
    rf_sb_puts(sb, " = ");
    rf_sb_puts(sb, n->op);
    rf_sb_putc(sb, '(');
    for (size_t i = 0; i < n->nargs; i++) {
        if (i) rf_sb_puts(sb, ", ");
        rf_sb_puts(sb, n->args[i].name);
        rf_sb_putc(sb, '=');
        print_attr(sb, &n->args[i].attr);
    }
    rf_sb_puts(sb, ")\n");
}

static char *print_impl(const rf_graph *g) {
    rf_strbuf sb;
    rf_sb_init(&sb);
    rf_sb_puts(&sb, "graph {\n");
    for (size_t i = 0; i < g->ninputs; i++) {
        rf_sb_printf(&sb, "  input %%%s: ", g->inputs[i]->name);
        print_type(&sb, g->inputs[i]);
        rf_sb_putc(&sb, '\n');
    }
    for (size_t i = 0; i < g->nconsts; i++) {
        const rf_value *c = g->consts[i];
        rf_sb_printf(&sb, "  const %%%s: ", c->name);
        print_type(&sb, c);
        rf_sb_printf(&sb, " = %s ", c->const_kind);
        print_string(&sb, c->const_target);
        if (c->const_data) print_hex(&sb, c->const_data, c->const_nbytes);
        rf_sb_putc(&sb, '\n');
    }
    for (size_t i = 0; i < g->nnodes; i++) print_node(&sb, g->nodes[i]);
    rf_sb_puts(&sb, "  output (");
    for (size_t i = 0; i < g->noutputs; i++) {
        if (i) rf_sb_puts(&sb, ", ");
        print_attr(&sb, &g->outputs[i]);
        if (g->outputs[i].out_mark != RF_DT_COUNT)
            rf_sb_printf(&sb, " !%s", rf_dtype_name(g->outputs[i].out_mark));
    }
    rf_sb_puts(&sb, ")\n}\n");
    return rf_sb_take(&sb);
}

/* ---- parser ---- */

typedef struct parser {
    const char *p;
    int line;
    rf_graph *g;
    rf_error *err;
    int failed;
    int depth; /* nesting of [..] lists, at most RF_MAX_NEST */
} parser;

static void perr(parser *ps, const char *fmt, ...) {
    if (ps->failed) return;
    ps->failed = 1;
    if (!ps->err) return;
    ps->err->code = RF_ERR_PARSE;
    ps->err->line = ps->line;
    va_list ap;
    va_start(ap, fmt);
    char msg[400];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(ps->err->message, sizeof ps->err->message, "line %d: %s", ps->line, msg);
}

static void skip_ws(parser *ps) {
    for (;;) {
        char c = *ps->p;
        if (c == '\n') {
            ps->line++;
            ps->p++;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            ps->p++;
        } else if (c == '#') {
            while (*ps->p && *ps->p != '\n') ps->p++;
        } else {
            return;
        }
    }
}

static int accept(parser *ps, char c) {
    skip_ws(ps);
    if (*ps->p == c) {
        ps->p++;
        return 1;
    }
    return 0;
}

static int expect(parser *ps, char c) {
    if (accept(ps, c)) return 1;
    perr(ps, "expected '%c'", c);
    return 0;
}

static int is_word_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':'; }

/* A word: identifier chars plus '.' and ':'. Returns its length (0 if none). */
static size_t word(parser *ps, const char **start) {
    skip_ws(ps);
    *start = ps->p;
    while (is_word_char(*ps->p)) ps->p++;
    return (size_t)(ps->p - *start);
}

static int keyword(parser *ps, const char *kw) {
    skip_ws(ps);
    size_t n = strlen(kw);
    if (strncmp(ps->p, kw, n) == 0 && !is_word_char(ps->p[n])) {
        ps->p += n;
        return 1;
    }
    return 0;
}

static const char *parse_string(parser *ps) {
    skip_ws(ps);
    if (*ps->p != '"') {
        perr(ps, "expected a string");
        return NULL;
    }
    ps->p++;
    rf_strbuf sb;
    rf_sb_init(&sb);
    while (*ps->p && *ps->p != '"') {
        char c = *ps->p++;
        if (c == '\\') {
            if (!*ps->p) break; /* a backslash at the very end: unterminated */
            c = *ps->p++;
            if (c == 'n') c = '\n';
            else if (c != '"' && c != '\\') {
                perr(ps, "bad escape in string");
                break;
            }
        }
        if (c == '\n') ps->line++;
        rf_sb_putc(&sb, c);
    }
    if (*ps->p != '"') perr(ps, "unterminated string");
    else ps->p++;
    char *tmp = rf_sb_take(&sb);
    const char *s = rf_strdup(ps->g, tmp);
    rf_free(tmp);
    return ps->failed ? NULL : s;
}

/* Reads "%name" into buf (NUL-terminated); NULL on error. */
static const char *parse_value_name(parser *ps, char *buf, size_t cap) {
    if (!accept(ps, '%')) {
        perr(ps, "expected a %%value");
        return NULL;
    }
    const char *s = ps->p;
    while (is_word_char(*ps->p) && *ps->p != ':') ps->p++;
    size_t n = (size_t)(ps->p - s);
    if (!n) {
        perr(ps, "expected a value name after '%%'");
        return NULL;
    }
    if (n >= cap) {
        perr(ps, "value name longer than %zu characters", cap - 1);
        return NULL;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

static rf_value *lookup(parser *ps, const char *name) {
    rf_value *v = rf_graph_find_value(ps->g, name);
    if (!v) perr(ps, "undefined value %%%s", name);
    return v;
}

static int parse_type_mark(parser *ps, rf_dtype *mark) {
    if (!accept(ps, '!')) return 1;
    const char *s;
    size_t n = word(ps, &s);
    if (!n || !rf_dtype_parse(s, n, mark) || !(rf_dtype_is_complex(*mark) || *mark == RF_DT_F64)) {
        perr(ps, "expected a complex dtype or f64 after '!'");
        return 0;
    }
    return 1;
}

/* Type: dtype, then [dims] for tensors, then an optional !cNN (or !f64) mark. */
static int parse_type(parser *ps, rf_dtype *dt, int *rank, rf_dim **dims, rf_dtype *mark) {
    const char *s;
    size_t n = word(ps, &s);
    if (!n || !rf_dtype_parse(s, n, dt)) {
        perr(ps, "expected a dtype");
        return 0;
    }
    *rank = 0;
    *dims = NULL;
    *mark = RF_DT_COUNT;
    if (rf_dtype_is_tensor(*dt)) {
        if (!expect(ps, '[')) return 0;
        if (accept(ps, '?')) {
            *rank = -1;
        } else if (!accept(ps, ']')) {
            size_t cap = 8;
            rf_dim *d = rf_alloc(ps->g, cap * sizeof(rf_dim));
            int r = 0;
            do {
                if (r == RF_MAX_RANK) {
                    perr(ps, "more than %d dims", RF_MAX_RANK);
                    return 0;
                }
                if ((size_t)r == cap) {
                    rf_dim *nd = rf_alloc(ps->g, 2 * cap * sizeof(rf_dim));
                    memcpy(nd, d, cap * sizeof(rf_dim));
                    d = nd;
                    cap *= 2;
                }
                skip_ws(ps);
                if (*ps->p == '"') {
                    d[r].sym = parse_string(ps);
                } else if (*ps->p == '-' || isdigit((unsigned char)*ps->p)) {
                    char *end;
                    errno = 0;
                    d[r].size = strtoll(ps->p, &end, 10);
                    if (end == ps->p || errno == ERANGE) {
                        perr(ps, "malformed or out-of-range size");
                        return 0;
                    }
                    ps->p = end;
                } else {
                    size_t m = word(ps, &s);
                    if (!m) {
                        perr(ps, "expected a dimension");
                        return 0;
                    }
                    d[r].sym = rf_strndup(ps->g, s, m);
                }
                r++;
            } while (accept(ps, ','));
            *rank = r;
            *dims = d;
            if (!expect(ps, ']')) return 0;
            if (ps->failed) return 0;
            return parse_type_mark(ps, mark);
        }
        if (*rank == -1 && !expect(ps, ']')) return 0;
    }
    return parse_type_mark(ps, mark);
}

static int parse_attr(parser *ps, rf_attr *a);

static int parse_list(parser *ps, rf_attr *a) {
    a->kind = RF_A_LIST;
    if (ps->depth >= RF_MAX_NEST) {
        perr(ps, "lists nest deeper than %d", RF_MAX_NEST);
        return 0;
    }
    ps->depth++;
    size_t cap = 4, n = 0;
    rf_attr *items = rf_alloc(ps->g, cap * sizeof(rf_attr));
    if (!accept(ps, ']')) {
        do {
            if (n == cap) {
                rf_attr *ni = rf_alloc(ps->g, 2 * cap * sizeof(rf_attr));
                memcpy(ni, items, cap * sizeof(rf_attr));
                items = ni;
                cap *= 2;
            }
            if (!parse_attr(ps, &items[n++])) return 0;
        } while (accept(ps, ','));
        if (!expect(ps, ']')) return 0;
    }
    ps->depth--;
    a->n = n;
    a->items = items;
    return 1;
}

static int parse_number(parser *ps, rf_attr *a) {
    skip_ws(ps);
    const char *s = ps->p;
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    if (strncmp(s, "inf", 3) == 0 && !is_word_char(s[3])) {
        a->kind = RF_A_FLOAT;
        a->f = neg ? -INFINITY : INFINITY;
        ps->p = s + 3;
        return 1;
    }
    if (strncmp(s, "nan", 3) == 0 && !is_word_char(s[3])) {
        a->kind = RF_A_FLOAT;
        a->f = neg ? -NAN : NAN;
        ps->p = s + 3;
        return 1;
    }
    const char *e = s;
    int is_float = 0;
    while (isdigit((unsigned char)*e) || *e == '.' || *e == 'e' || *e == 'E' ||
           ((*e == '+' || *e == '-') && (e[-1] == 'e' || e[-1] == 'E'))) {
        if (*e == '.' || *e == 'e' || *e == 'E') is_float = 1;
        e++;
    }
    if (e == s) {
        perr(ps, "expected a number");
        return 0;
    }
    char *end;
    if (is_float) {
        a->kind = RF_A_FLOAT;
        a->f = strtod(ps->p, &end);
    } else {
        a->kind = RF_A_INT;
        errno = 0;
        a->i = strtoll(ps->p, &end, 10);
        if (errno == ERANGE) {
            perr(ps, "integer out of range");
            return 0;
        }
    }
    if (end != e) {
        perr(ps, "malformed number");
        return 0;
    }
    ps->p = e;
    return 1;
}

static int parse_attr(parser *ps, rf_attr *a) {
    memset(a, 0, sizeof *a);
    a->out_mark = RF_DT_COUNT;
    skip_ws(ps);
    char c = *ps->p;
    if (c == '%') {
        char name_buf[512];
        const char *name = parse_value_name(ps, name_buf, sizeof name_buf);
        if (!name) return 0;
        a->kind = RF_A_VALUE;
        a->value = lookup(ps, name);
        return a->value != NULL;
    }
    if (c == '[') {
        ps->p++;
        return parse_list(ps, a);
    }
    if (c == '"') {
        a->kind = RF_A_STR;
        a->s = parse_string(ps);
        return a->s != NULL;
    }
    int inf_or_nan = (strncmp(ps->p, "inf", 3) == 0 || strncmp(ps->p, "nan", 3) == 0) && !is_word_char(ps->p[3]);
    if (c == '-' || isdigit((unsigned char)c) || inf_or_nan) return parse_number(ps, a);
    if (keyword(ps, "none")) {
        a->kind = RF_A_NONE;
        return 1;
    }
    if (keyword(ps, "true")) {
        a->kind = RF_A_BOOL;
        a->i = 1;
        return 1;
    }
    if (keyword(ps, "false")) {
        a->kind = RF_A_BOOL;
        return 1;
    }
    if (keyword(ps, "complex")) {
        rf_attr re, im;
        if (!expect(ps, '(') || !parse_number(ps, &re) || !expect(ps, ',') || !parse_number(ps, &im) ||
            !expect(ps, ')'))
            return 0;
        a->kind = RF_A_COMPLEX;
        a->f = re.kind == RF_A_INT ? (double)re.i : re.f;
        a->f_im = im.kind == RF_A_INT ? (double)im.i : im.f;
        return 1;
    }
    const char *s;
    size_t n = word(ps, &s);
    if (n && rf_dtype_parse(s, n, &a->dtype)) {
        a->kind = RF_A_DTYPE;
        return 1;
    }
    perr(ps, "expected an attribute value");
    return 0;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The hex string of a "data" constant; its length must match the static shape. */
static int parse_const_data(parser *ps, rf_value *v) {
    skip_ws(ps);
    if (*ps->p != '"') {
        perr(ps, "expected the hex data of constant %%%s", v->name);
        return 0;
    }
    const char *s = ++ps->p, *e = s;
    while (hex_digit(*e) >= 0) e++;
    if (*e != '"' || (e - s) % 2) {
        perr(ps, "malformed hex data of constant %%%s", v->name);
        return 0;
    }
    size_t nbytes = (size_t)(e - s) / 2, numel = 1;
    if (!rf_dtype_is_tensor(v->dtype) || v->rank < 0) {
        perr(ps, "data constant %%%s needs a tensor type with a known shape", v->name);
        return 0;
    }
    size_t limit = RF_MAX_DATA_BYTES / rf_dtype_size(v->dtype);
    for (int i = 0; i < v->rank; i++) {
        if (v->dims[i].sym || v->dims[i].size < 0) {
            perr(ps, "data constant %%%s needs a static shape", v->name);
            return 0;
        }
        size_t size = (size_t)v->dims[i].size;
        if (size && numel > limit / size) { /* also keeps the product from overflowing */
            perr(ps, "data constant %%%s is larger than %zu bytes", v->name, RF_MAX_DATA_BYTES);
            return 0;
        }
        numel *= size;
    }
    if (nbytes != numel * rf_dtype_size(v->dtype)) {
        perr(ps, "constant %%%s has %zu bytes of data, its type needs %zu", v->name, nbytes,
             numel * rf_dtype_size(v->dtype));
        return 0;
    }
    unsigned char *data = rf_alloc(ps->g, nbytes);
    for (size_t i = 0; i < nbytes; i++) data[i] = (unsigned char)(hex_digit(s[2 * i]) * 16 + hex_digit(s[2 * i + 1]));
    v->const_data = data;
    v->const_nbytes = nbytes;
    ps->p = e + 1;
    return 1;
}

/* "%name: type" */
static rf_value *parse_decl(parser *ps, int is_input, int is_const) {
    skip_ws(ps);
    int line = ps->line;
    char name_buf[512];
    const char *name = parse_value_name(ps, name_buf, sizeof name_buf);
    if (!name || !expect(ps, ':')) return NULL;
    rf_dtype dt, mark;
    int rank;
    rf_dim *dims;
    if (!parse_type(ps, &dt, &rank, &dims, &mark)) return NULL;
    int planar = mark != RF_DT_COUNT && keyword(ps, "planar");
    if (planar && (rank < 1 || dims[0].sym || dims[0].size != 2)) {
        perr(ps, "a planar value needs a leading dimension of size 2");
        return NULL;
    }
    int storage_read = mark != RF_DT_COUNT && !planar && keyword(ps, "storage");
    if (storage_read && !is_input && !is_const) {
        perr(ps, "only a graph input or constant is read through its storage");
        return NULL;
    }
    if (rf_graph_name_taken(ps->g, name)) {
        ps->line = line;
        perr(ps, "value %%%s defined twice", name);
        return NULL;
    }
    rf_value *v;
    if (is_const) {
        if (!expect(ps, '=')) return NULL;
        const char *s;
        size_t n = word(ps, &s);
        if (!n) {
            perr(ps, "expected param, buffer or constant");
            return NULL;
        }
        const char *kind = rf_strndup(ps->g, s, n);
        const char *target = parse_string(ps);
        if (!target) return NULL;
        v = rf_graph_add_const(ps->g, name, dt, rank, dims, target, kind);
        if (strcmp(kind, "data") == 0 && !parse_const_data(ps, v)) return NULL;
    } else if (is_input) {
        v = rf_graph_add_input(ps->g, name, dt, rank, dims);
    } else {
        v = rf_value_new(ps->g, name, dt, rank, dims);
    }
    v->packed_from = mark;
    v->planar = planar;
    v->storage_read = storage_read;
    return v;
}

static int parse_node(parser *ps) {
    skip_ws(ps);
    int line = ps->line;
    rf_value *outs[64];
    size_t nouts = 0;
    if (accept(ps, '(')) {
        if (!expect(ps, ')')) return 0;
    } else {
        do {
            if (nouts == 64) {
                perr(ps, "too many outputs");
                return 0;
            }
            if (!(outs[nouts++] = parse_decl(ps, 0, 0))) return 0;
        } while (accept(ps, ','));
    }
    if (!expect(ps, '=')) return 0;
    const char *op;
    size_t oplen = word(ps, &op);
    if (!oplen) {
        perr(ps, "expected an op name");
        return 0;
    }
    if (!expect(ps, '(')) return 0;
    rf_arg args[64];
    size_t nargs = 0;
    if (!accept(ps, ')')) {
        do {
            if (nargs == 64) {
                perr(ps, "too many arguments");
                return 0;
            }
            const char *an;
            size_t anl = word(ps, &an);
            if (!anl) {
                perr(ps, "expected an argument name");
                return 0;
            }
            args[nargs].name = rf_strndup(ps->g, an, anl);
            if (!expect(ps, '=') || !parse_attr(ps, &args[nargs].attr)) return 0;
            nargs++;
        } while (accept(ps, ','));
        if (!expect(ps, ')')) return 0;
    }
    rf_node *n = rf_node_new(ps->g, rf_strndup(ps->g, op, oplen), nargs, nouts);
    n->line = line;
    memcpy(n->args, args, nargs * sizeof(rf_arg));
    memcpy(n->outs, outs, nouts * sizeof(rf_value *));
    rf_graph_append_node(ps->g, n);
    return 1;
}

static int parse_outputs(parser *ps) {
    if (!expect(ps, '(')) return 0;
    size_t cap = 8, n = 0;
    rf_attr *outs = rf_alloc(ps->g, cap * sizeof(rf_attr));
    if (!accept(ps, ')')) {
        do {
            if (n == cap) {
                rf_attr *no = rf_alloc(ps->g, 2 * cap * sizeof(rf_attr));
                memcpy(no, outs, cap * sizeof(rf_attr));
                outs = no;
                cap *= 2;
            }
            if (!parse_attr(ps, &outs[n])) return 0;
            if (!parse_type_mark(ps, &outs[n].out_mark)) return 0;
            n++;
        } while (accept(ps, ','));
        if (!expect(ps, ')')) return 0;
    }
    rf_graph_set_outputs(ps->g, n, outs);
    return 1;
}

static int parse_graph(parser *ps) {
    if (!keyword(ps, "graph")) {
        perr(ps, "expected 'graph'");
        return 0;
    }
    if (!expect(ps, '{')) return 0;
    int have_output = 0;
    while (!ps->failed) {
        if (accept(ps, '}')) break;
        if (have_output) {
            perr(ps, "expected '}' after output");
            return 0;
        }
        if (keyword(ps, "input")) {
            if (!parse_decl(ps, 1, 0)) return 0;
        } else if (keyword(ps, "const")) {
            if (!parse_decl(ps, 0, 1)) return 0;
        } else if (keyword(ps, "output")) {
            if (!parse_outputs(ps)) return 0;
            have_output = 1;
        } else if (*ps->p == '%' || *ps->p == '(') {
            if (!parse_node(ps)) return 0;
        } else {
            perr(ps, *ps->p ? "unexpected text" : "unexpected end of input");
            return 0;
        }
    }
    if (!ps->failed && !have_output) perr(ps, "graph has no output line");
    skip_ws(ps);
    if (!ps->failed && *ps->p) perr(ps, "unexpected text after the graph");
    return !ps->failed;
}

static rf_status parse_impl(const char *text, rf_graph **out, rf_error *err) {
    *out = NULL;
    parser ps = {0};
    ps.p = text;
    ps.line = 1;
    ps.err = err;
    ps.g = rf_graph_new();
    if (!ps.g) return RF_ERR_NOMEM;
    int ok = parse_graph(&ps);
    if (!ok) {
        rf_graph_free(ps.g);
        return RF_ERR_PARSE;
    }
    *out = ps.g;
    return RF_OK;
}

rf_status rf_parse(const char *text, rf_graph **out, rf_error *err) {
    *out = NULL;
    RF_OOM_GUARD(scope, {
        *out = NULL;
        if (err) {
            memset(err, 0, sizeof(*err));
            snprintf(err->message, sizeof(err->message), "out of memory while parsing");
        }
        return RF_ERR_NOMEM;
    })
    rf_status s = parse_impl(text, out, err);
    rf_oom_close(&scope);
    return s;
}

char *rf_print(const rf_graph *g) {
    RF_OOM_GUARD(scope, return NULL)
    char *s = print_impl(g);
    rf_oom_close(&scope);
    return s;
}
