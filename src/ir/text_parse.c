/* Text IR: the parser, the grammar of text_print.c's format over the tokens
 * of text_lex.c. A failure is one RF_ERR_PARSE naming the line. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/mem.h"
#include "ir/text_lex.h"
#include "ir/verify.h"

static rf_value *lookup(rf_parser *ps, const char *name) {
    rf_value *v = rf_graph_find_value(ps->g, name);
    if (!v) rf_lex_error(ps, "undefined value %%%s", name);
    return v;
}

static int parse_type_mark(rf_parser *ps, rf_dtype *mark) {
    if (!rf_lex_accept(ps, '!')) return 1;
    const char *s;
    size_t n = rf_lex_word(ps, &s);
    if (!n || !rf_dtype_parse(s, n, mark) || !(rf_dtype_is_complex(*mark) || *mark == RF_DT_F64)) {
        rf_lex_error(ps, "expected a complex dtype or f64 after '!'");
        return 0;
    }
    return 1;
}

/* Type: dtype, then [dims] for tensors, then an optional !cNN (or !f64) mark. */
static int parse_type(rf_parser *ps, rf_dtype *dt, int *rank, rf_dim **dims, rf_dtype *mark) {
    const char *s;
    size_t n = rf_lex_word(ps, &s);
    if (!n || !rf_dtype_parse(s, n, dt)) {
        rf_lex_error(ps, "expected a dtype");
        return 0;
    }
    *rank = 0;
    *dims = NULL;
    *mark = RF_DT_COUNT;
    if (rf_dtype_is_tensor(*dt)) {
        if (!rf_lex_expect(ps, '[')) return 0;
        if (rf_lex_accept(ps, '?')) {
            *rank = -1;
        } else if (!rf_lex_accept(ps, ']')) {
            size_t cap = 8;
            rf_dim *d = rf_alloc(ps->g, cap * sizeof(rf_dim));
            int r = 0;
            do {
                if (r == RF_MAX_RANK) {
                    rf_lex_error(ps, "more than %d dims", RF_MAX_RANK);
                    return 0;
                }
                if ((size_t)r == cap) {
                    rf_dim *nd = rf_alloc(ps->g, 2 * cap * sizeof(rf_dim));
                    memcpy(nd, d, cap * sizeof(rf_dim));
                    d = nd;
                    cap *= 2;
                }
                rf_lex_skip_ws(ps);
                if (*ps->p == '"') {
                    d[r].sym = rf_lex_string(ps);
                } else if (*ps->p == '-' || isdigit((unsigned char)*ps->p)) {
                    char *end;
                    errno = 0;
                    d[r].size = strtoll(ps->p, &end, 10);
                    if (end == ps->p || errno == ERANGE) {
                        rf_lex_error(ps, "malformed or out-of-range size");
                        return 0;
                    }
                    ps->p = end;
                } else {
                    size_t m = rf_lex_word(ps, &s);
                    if (!m) {
                        rf_lex_error(ps, "expected a dimension");
                        return 0;
                    }
                    d[r].sym = rf_strndup(ps->g, s, m);
                }
                r++;
            } while (rf_lex_accept(ps, ','));
            *rank = r;
            *dims = d;
            if (!rf_lex_expect(ps, ']')) return 0;
            if (ps->failed) return 0;
            return parse_type_mark(ps, mark);
        }
        if (*rank == -1 && !rf_lex_expect(ps, ']')) return 0;
    }
    return parse_type_mark(ps, mark);
}

static int parse_attr(rf_parser *ps, rf_attr *a);

static int parse_list(rf_parser *ps, rf_attr *a) {
    a->kind = RF_A_LIST;
    if (ps->depth >= RF_MAX_NEST) {
        rf_lex_error(ps, "lists nest deeper than %d", RF_MAX_NEST);
        return 0;
    }
    ps->depth++;
    size_t cap = 4, n = 0;
    rf_attr *items = rf_alloc(ps->g, cap * sizeof(rf_attr));
    if (!rf_lex_accept(ps, ']')) {
        do {
            if (n == cap) {
                rf_attr *ni = rf_alloc(ps->g, 2 * cap * sizeof(rf_attr));
                memcpy(ni, items, cap * sizeof(rf_attr));
                items = ni;
                cap *= 2;
            }
            if (!parse_attr(ps, &items[n++])) return 0;
        } while (rf_lex_accept(ps, ','));
        if (!rf_lex_expect(ps, ']')) return 0;
    }
    ps->depth--;
    a->n = n;
    a->items = items;
    return 1;
}

static int parse_attr(rf_parser *ps, rf_attr *a) {
    memset(a, 0, sizeof *a);
    a->out_mark = RF_DT_COUNT;
    rf_lex_skip_ws(ps);
    char c = *ps->p;
    if (c == '%') {
        char name_buf[512];
        const char *name = rf_lex_value_name(ps, name_buf, sizeof name_buf);
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
        a->s = rf_lex_string(ps);
        return a->s != NULL;
    }
    int inf_or_nan = (strncmp(ps->p, "inf", 3) == 0 || strncmp(ps->p, "nan", 3) == 0) && !rf_lex_is_word_char(ps->p[3]);
    if (c == '-' || isdigit((unsigned char)c) || inf_or_nan) return rf_lex_number(ps, a);
    if (rf_lex_keyword(ps, "none")) {
        a->kind = RF_A_NONE;
        return 1;
    }
    if (rf_lex_keyword(ps, "true")) {
        a->kind = RF_A_BOOL;
        a->i = 1;
        return 1;
    }
    if (rf_lex_keyword(ps, "false")) {
        a->kind = RF_A_BOOL;
        return 1;
    }
    if (rf_lex_keyword(ps, "complex")) {
        rf_attr re, im;
        if (!rf_lex_expect(ps, '(') || !rf_lex_number(ps, &re) || !rf_lex_expect(ps, ',') || !rf_lex_number(ps, &im) ||
            !rf_lex_expect(ps, ')'))
            return 0;
        a->kind = RF_A_COMPLEX;
        a->f = re.kind == RF_A_INT ? (double)re.i : re.f;
        a->f_im = im.kind == RF_A_INT ? (double)im.i : im.f;
        return 1;
    }
    const char *s;
    size_t n = rf_lex_word(ps, &s);
    if (n && rf_dtype_parse(s, n, &a->dtype)) {
        a->kind = RF_A_DTYPE;
        return 1;
    }
    rf_lex_error(ps, "expected an attribute value");
    return 0;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The hex string of a "data" constant; its length must match the static shape. */
static int parse_const_data(rf_parser *ps, rf_value *v) {
    rf_lex_skip_ws(ps);
    if (*ps->p != '"') {
        rf_lex_error(ps, "expected the hex data of constant %%%s", v->name);
        return 0;
    }
    const char *s = ++ps->p, *e = s;
    while (hex_digit(*e) >= 0) e++;
    if (*e != '"' || (e - s) % 2) {
        rf_lex_error(ps, "malformed hex data of constant %%%s", v->name);
        return 0;
    }
    size_t nbytes = (size_t)(e - s) / 2, numel = 1;
    if (!rf_dtype_is_tensor(v->dtype) || v->rank < 0) {
        rf_lex_error(ps, "data constant %%%s needs a tensor type with a known shape", v->name);
        return 0;
    }
    size_t limit = RF_MAX_DATA_BYTES / rf_dtype_size(v->dtype);
    for (int i = 0; i < v->rank; i++) {
        if (v->dims[i].sym || v->dims[i].size < 0) {
            rf_lex_error(ps, "data constant %%%s needs a static shape", v->name);
            return 0;
        }
        size_t size = (size_t)v->dims[i].size;
        if (size && numel > limit / size) { /* also keeps the product from overflowing */
            rf_lex_error(ps, "data constant %%%s is larger than %zu bytes", v->name, RF_MAX_DATA_BYTES);
            return 0;
        }
        numel *= size;
    }
    if (nbytes != numel * rf_dtype_size(v->dtype)) {
        rf_lex_error(ps, "constant %%%s has %zu bytes of data, its type needs %zu", v->name, nbytes,
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
static rf_value *parse_decl(rf_parser *ps, int is_input, int is_const) {
    rf_lex_skip_ws(ps);
    int line = ps->line;
    char name_buf[512];
    const char *name = rf_lex_value_name(ps, name_buf, sizeof name_buf);
    if (!name || !rf_lex_expect(ps, ':')) return NULL;
    rf_dtype dt, mark;
    int rank;
    rf_dim *dims;
    if (!parse_type(ps, &dt, &rank, &dims, &mark)) return NULL;
    int planar = mark != RF_DT_COUNT && rf_lex_keyword(ps, "planar");
    if (planar && (rank < 1 || dims[0].sym || dims[0].size != 2)) {
        rf_lex_error(ps, "a planar value needs a leading dimension of size 2");
        return NULL;
    }
    int storage_read = mark != RF_DT_COUNT && !planar && rf_lex_keyword(ps, "storage");
    if (storage_read && !is_input && !is_const) {
        rf_lex_error(ps, "only a graph input or constant is read through its storage");
        return NULL;
    }
    if (rf_graph_name_taken(ps->g, name)) {
        ps->line = line;
        rf_lex_error(ps, "value %%%s defined twice", name);
        return NULL;
    }
    rf_value *v;
    if (is_const) {
        if (!rf_lex_expect(ps, '=')) return NULL;
        const char *s;
        size_t n = rf_lex_word(ps, &s);
        if (!n) {
            rf_lex_error(ps, "expected param, buffer or constant");
            return NULL;
        }
        const char *kind = rf_strndup(ps->g, s, n);
        const char *target = rf_lex_string(ps);
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

static int parse_node(rf_parser *ps) {
    rf_lex_skip_ws(ps);
    int line = ps->line;
    rf_value *outs[64];
    size_t nouts = 0;
    if (rf_lex_accept(ps, '(')) {
        if (!rf_lex_expect(ps, ')')) return 0;
    } else {
        do {
            if (nouts == 64) {
                rf_lex_error(ps, "too many outputs");
                return 0;
            }
            if (!(outs[nouts++] = parse_decl(ps, 0, 0))) return 0;
        } while (rf_lex_accept(ps, ','));
    }
    if (!rf_lex_expect(ps, '=')) return 0;
    const char *op;
    size_t oplen = rf_lex_word(ps, &op);
    if (!oplen) {
        rf_lex_error(ps, "expected an op name");
        return 0;
    }
    if (!rf_lex_expect(ps, '(')) return 0;
    rf_arg args[64];
    size_t nargs = 0;
    if (!rf_lex_accept(ps, ')')) {
        do {
            if (nargs == 64) {
                rf_lex_error(ps, "too many arguments");
                return 0;
            }
            const char *an;
            size_t anl = rf_lex_word(ps, &an);
            if (!anl) {
                rf_lex_error(ps, "expected an argument name");
                return 0;
            }
            args[nargs].name = rf_strndup(ps->g, an, anl);
            if (!rf_lex_expect(ps, '=') || !parse_attr(ps, &args[nargs].attr)) return 0;
            nargs++;
        } while (rf_lex_accept(ps, ','));
        if (!rf_lex_expect(ps, ')')) return 0;
    }
    rf_node *n = rf_node_new(ps->g, rf_strndup(ps->g, op, oplen), nargs, nouts);
    n->line = line;
    memcpy(n->args, args, nargs * sizeof(rf_arg));
    memcpy(n->outs, outs, nouts * sizeof(rf_value *));
    rf_graph_append_node(ps->g, n);
    return 1;
}

static int parse_outputs(rf_parser *ps) {
    if (!rf_lex_expect(ps, '(')) return 0;
    size_t cap = 8, n = 0;
    rf_attr *outs = rf_alloc(ps->g, cap * sizeof(rf_attr));
    if (!rf_lex_accept(ps, ')')) {
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
        } while (rf_lex_accept(ps, ','));
        if (!rf_lex_expect(ps, ')')) return 0;
    }
    rf_graph_set_outputs(ps->g, n, outs);
    return 1;
}

static int parse_graph(rf_parser *ps) {
    if (!rf_lex_keyword(ps, "graph")) {
        rf_lex_error(ps, "expected 'graph'");
        return 0;
    }
    if (!rf_lex_expect(ps, '{')) return 0;
    int have_output = 0;
    while (!ps->failed) {
        if (rf_lex_accept(ps, '}')) break;
        if (have_output) {
            rf_lex_error(ps, "expected '}' after output");
            return 0;
        }
        if (rf_lex_keyword(ps, "input")) {
            if (!parse_decl(ps, 1, 0)) return 0;
        } else if (rf_lex_keyword(ps, "const")) {
            if (!parse_decl(ps, 0, 1)) return 0;
        } else if (rf_lex_keyword(ps, "output")) {
            if (!parse_outputs(ps)) return 0;
            have_output = 1;
        } else if (*ps->p == '%' || *ps->p == '(') {
            if (!parse_node(ps)) return 0;
        } else {
            rf_lex_error(ps, *ps->p ? "unexpected text" : "unexpected end of input");
            return 0;
        }
    }
    if (!ps->failed && !have_output) rf_lex_error(ps, "graph has no output line");
    rf_lex_skip_ws(ps);
    if (!ps->failed && *ps->p) rf_lex_error(ps, "unexpected text after the graph");
    return !ps->failed;
}

static rf_status parse_impl(const char *text, rf_graph **out, rf_error *err) {
    *out = NULL;
    rf_parser ps = {0};
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
