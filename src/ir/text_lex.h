/* The tokens of the text IR, for its parser (text_parse.c): the cursor over
 * the text, whitespace and # comments, words, strings, value names and
 * numbers, and the one parse error a failure keeps. Internal to src/ir/. */
#ifndef REALIFY_IR_TEXT_LEX_H
#define REALIFY_IR_TEXT_LEX_H

#include <stddef.h>

#include "ir/ir.h"

typedef struct rf_parser {
    const char *p;
    int line;
    rf_graph *g;
    rf_error *err;
    int failed;
    int depth; /* nesting of [..] lists, at most RF_MAX_NEST */
} rf_parser;

/* Records the first failure only (RF_ERR_PARSE, "line N: ..."); later calls do nothing. */
void rf_lex_error(rf_parser *ps, const char *fmt, ...);
void rf_lex_skip_ws(rf_parser *ps);
/* Skips whitespace, then takes c if it is next; expect also reports its absence. */
int rf_lex_accept(rf_parser *ps, char c);
int rf_lex_expect(rf_parser *ps, char c);
int rf_lex_is_word_char(char c);
/* A word: identifier chars plus '.' and ':'. Returns its length (0 if none). */
size_t rf_lex_word(rf_parser *ps, const char **start);
/* Takes the word kw if it is next, whole. */
int rf_lex_keyword(rf_parser *ps, const char *kw);
/* A "quoted" string with \" \\ \n escapes, copied into the graph; NULL on error. */
const char *rf_lex_string(rf_parser *ps);
/* Reads "%name" into buf (NUL-terminated); NULL on error. */
const char *rf_lex_value_name(rf_parser *ps, char *buf, size_t cap);
/* An int or float attribute (inf, nan, -inf, -nan too). */
int rf_lex_number(rf_parser *ps, rf_attr *a);

#endif
