#include "ir/strbuf.h"
#include "ir/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(rf_strbuf *sb, size_t extra) {
    if (sb->len + extra + 1 <= sb->cap) return;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + extra + 1) cap *= 2;
    char *p = rf_realloc(sb->data, cap);
    if (!p) {
        fprintf(stderr, "realify: out of memory\n");
        abort();
    }
    sb->data = p;
    sb->cap = cap;
}

void rf_sb_init(rf_strbuf *sb) {
    sb->data = NULL;
    sb->len = sb->cap = 0;
    reserve(sb, 0);
    sb->data[0] = '\0';
}

void rf_sb_putc(rf_strbuf *sb, char c) {
    reserve(sb, 1);
    sb->data[sb->len++] = c;
    sb->data[sb->len] = '\0';
}

void rf_sb_puts(rf_strbuf *sb, const char *s) {
    size_t n = strlen(s);
    reserve(sb, n);
    memcpy(sb->data + sb->len, s, n + 1);
    sb->len += n;
}

void rf_sb_put_int(rf_strbuf *sb, long long v) {
    char buf[24];
    int i = (int)sizeof buf;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        buf[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) buf[--i] = '-';
    reserve(sb, sizeof buf - (size_t)i);
    memcpy(sb->data + sb->len, buf + i, sizeof buf - (size_t)i);
    sb->len += sizeof buf - (size_t)i;
    sb->data[sb->len] = '\0';
}

void rf_sb_printf(rf_strbuf *sb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = sb->cap - sb->len;
    int n = vsnprintf(sb->data + sb->len, room, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < room) { /* it fitted: the common case, one formatting pass */
        sb->len += (size_t)n;
        return;
    }
    reserve(sb, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

char *rf_sb_take(rf_strbuf *sb) {
    char *s = sb->data;
    sb->data = NULL;
    sb->len = sb->cap = 0;
    return s;
}
