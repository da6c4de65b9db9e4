/* A growable, malloc-backed string buffer. */
#ifndef REALIFY_STRBUF_H
#define REALIFY_STRBUF_H

#include <stddef.h>

typedef struct rf_strbuf {
    char *data;
    size_t len, cap;
} rf_strbuf;

void rf_sb_init(rf_strbuf *sb);
void rf_sb_putc(rf_strbuf *sb, char c);
void rf_sb_puts(rf_strbuf *sb, const char *s);
void rf_sb_printf(rf_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rf_sb_put_int(rf_strbuf *sb, long long v);
/* Hands the string to the caller (free with rf_string_free). */
char *rf_sb_take(rf_strbuf *sb);

#endif
