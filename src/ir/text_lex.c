/* The tokens of the text IR (text_lex.h). */
#include "ir/text_lex.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/mem.h"
#include "ir/strbuf.h"

void rf_lex_error(rf_parser *ps, const char *fmt, ...) {
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

void rf_lex_skip_ws(rf_parser *ps) {
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

int rf_lex_accept(rf_parser *ps, char c) {
    rf_lex_skip_ws(ps);
    if (*ps->p == c) {
        ps->p++;
        return 1;
    }
    return 0;
}

int rf_lex_expect(rf_parser *ps, char c) {
    if (rf_lex_accept(ps, c)) return 1;
    rf_lex_error(ps, "expected '%c'", c);
    return 0;
}

int rf_lex_is_word_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':'; }

/* A word: identifier chars plus '.' and ':'. Returns its length (0 if none). */
size_t rf_lex_word(rf_parser *ps, const char **start) {
    rf_lex_skip_ws(ps);
    *start = ps->p;
    while (rf_lex_is_word_char(*ps->p)) ps->p++;
    return (size_t)(ps->p - *start);
}

int rf_lex_keyword(rf_parser *ps, const char *kw) {
    rf_lex_skip_ws(ps);
    size_t n = strlen(kw);
    if (strncmp(ps->p, kw, n) == 0 && !rf_lex_is_word_char(ps->p[n])) {
        ps->p += n;
        return 1;
    }
    return 0;
}

const char *rf_lex_string(rf_parser *ps) {
    rf_lex_skip_ws(ps);
    if (*ps->p != '"') {
        rf_lex_error(ps, "expected a string");
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
                rf_lex_error(ps, "bad escape in string");
                break;
            }
        }
        if (c == '\n') ps->line++;
        rf_sb_putc(&sb, c);
    }
    if (*ps->p != '"') rf_lex_error(ps, "unterminated string");
    else ps->p++;
    char *tmp = rf_sb_take(&sb);
    const char *s = rf_strdup(ps->g, tmp);
    rf_free(tmp);
    return ps->failed ? NULL : s;
}

/* Reads "%name" into buf (NUL-terminated); NULL on error. */
const char *rf_lex_value_name(rf_parser *ps, char *buf, size_t cap) {
    if (!rf_lex_accept(ps, '%')) {
        rf_lex_error(ps, "expected a %%value");
        return NULL;
    }
    const char *s = ps->p;
    while (rf_lex_is_word_char(*ps->p) && *ps->p != ':') ps->p++;
    size_t n = (size_t)(ps->p - s);
    if (!n) {
        rf_lex_error(ps, "expected a value name after '%%'");
        return NULL;
    }
    if (n >= cap) {
        rf_lex_error(ps, "value name longer than %zu characters", cap - 1);
        return NULL;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

int rf_lex_number(rf_parser *ps, rf_attr *a) {
    rf_lex_skip_ws(ps);
    const char *s = ps->p;
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    if (strncmp(s, "inf", 3) == 0 && !rf_lex_is_word_char(s[3])) {
        a->kind = RF_A_FLOAT;
        a->f = neg ? -INFINITY : INFINITY;
        ps->p = s + 3;
        return 1;
    }
    if (strncmp(s, "nan", 3) == 0 && !rf_lex_is_word_char(s[3])) {
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
        rf_lex_error(ps, "expected a number");
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
            rf_lex_error(ps, "integer out of range");
            return 0;
        }
    }
    if (end != e) {
        rf_lex_error(ps, "malformed number");
        return 0;
    }
    ps->p = e;
    return 1;
}
