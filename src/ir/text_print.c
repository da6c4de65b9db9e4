/* Text IR: the printer (text_parse.c reads the text back; a round trip
 * reproduces the graph exactly).
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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "realify.h"
#include "ir/ir.h"
#include "ir/mem.h"
#include "ir/strbuf.h"


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

char *rf_print(const rf_graph *g) {
    RF_OOM_GUARD(scope, return NULL)
    char *s = print_impl(g);
    rf_oom_close(&scope);
    return s;
}
