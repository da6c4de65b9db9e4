#include "ir/mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "realify.h"

static _Thread_local rf_oom_scope *open_scope;
static _Thread_local long fail_countdown = -1; /* rf_test_fail_allocation */

long rf_test_fail_allocation(long k) {
    long left = fail_countdown;
    fail_countdown = k;
    return left;
}

static int should_fail(void) {
    if (fail_countdown < 0) return 0;
    return fail_countdown-- == 0;
}

static void track(rf_mem_hdr *h) {
    if (!open_scope) {
        h->prev = h->next = NULL;
        return;
    }
    rf_mem_hdr *head = &open_scope->live;
    h->prev = head;
    h->next = head->next;
    head->next->prev = h;
    head->next = h;
}

static void untrack(rf_mem_hdr *h) {
    if (!h->prev) return;
    h->prev->next = h->next;
    h->next->prev = h->prev;
    h->prev = h->next = NULL;
}

_Noreturn void rf_oom(void) {
    if (open_scope) longjmp(open_scope->unwind, 1);
    fputs("realify: out of memory outside an entry point\n", stderr);
    abort();
}

void *rf_malloc(size_t n) {
    if (n > SIZE_MAX - sizeof(rf_mem_hdr)) rf_oom();
    rf_mem_hdr *h = should_fail() ? NULL : malloc(sizeof(rf_mem_hdr) + n);
    if (!h) rf_oom();
    h->size = n;
    track(h);
    return h + 1;
}

void *rf_calloc(size_t n, size_t size) {
    if (size && n > SIZE_MAX / size) rf_oom();
    void *p = rf_malloc(n * size);
    memset(p, 0, n * size);
    return p;
}

void *rf_realloc(void *p, size_t n) {
    if (!p) return rf_malloc(n);
    if (n > SIZE_MAX - sizeof(rf_mem_hdr)) rf_oom();
    rf_mem_hdr *h = (rf_mem_hdr *)p - 1;
    rf_mem_hdr *nh = should_fail() ? NULL : realloc(h, sizeof(rf_mem_hdr) + n);
    if (!nh) rf_oom(); /* h is untouched and still tracked: the unwind frees it */
    nh->size = n;
    if (nh->prev) { /* moved: its neighbours point at the old address */
        nh->prev->next = nh;
        nh->next->prev = nh;
    }
    return nh + 1;
}

void rf_free(void *p) {
    if (!p) return;
    rf_mem_hdr *h = (rf_mem_hdr *)p - 1;
    untrack(h);
    free(h);
}

int rf_oom_open(rf_oom_scope *s) {
    s->joined = open_scope != NULL;
    if (s->joined) return 1;
    s->live.prev = s->live.next = &s->live;
    open_scope = s;
    return 0;
}

void rf_oom_close(rf_oom_scope *s) {
    if (s->joined) return;
    for (rf_mem_hdr *h = s->live.next; h != &s->live;) {
        rf_mem_hdr *next = h->next;
        h->prev = h->next = NULL;
        h = next;
    }
    open_scope = NULL;
}

void rf_oom_unwind(rf_oom_scope *s) {
    for (rf_mem_hdr *h = s->live.next; h != &s->live;) {
        rf_mem_hdr *next = h->next;
        free(h);
        h = next;
    }
    open_scope = NULL;
}
