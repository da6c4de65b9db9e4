/* The core's heap: every allocation goes through here, so out-of-memory is an error the public API returns, never
 * an abort, and a failing-allocator test can fail any one of them.
 *
 * A public entry point (rf_parse, rf_lower, ...) opens an OOM scope; while one is open, an allocation that fails
 * does not return: it unwinds to the entry point (longjmp), which frees every block allocated in the scope and
 * not freed yet, and returns RF_ERR_NOMEM (or NULL). Nothing below the entry points needs a NULL check, and
 * nothing leaks. Entry points called from inside a scope (rf_verify from rf_lower) join the open one. */
#ifndef REALIFY_IR_MEM_H
#define REALIFY_IR_MEM_H

#include <setjmp.h>
#include <stddef.h>

typedef struct rf_mem_hdr {
    struct rf_mem_hdr *prev, *next; /* in the open scope's list; NULL: untracked */
    size_t pad; /* keeps the payload 16-byte aligned */
    size_t size;
} rf_mem_hdr;

typedef struct rf_oom_scope {
    jmp_buf unwind;
    rf_mem_hdr live; /* sentinel of the blocks allocated in the scope */
    int joined;      /* another scope was open: this one only marks the entry */
} rf_oom_scope;

void *rf_malloc(size_t n);
void *rf_calloc(size_t n, size_t size);
void *rf_realloc(void *p, size_t n);
void rf_free(void *p);

/* Out of memory: unwinds to the open scope, or aborts where none is open (a bug: an entry point without one). */
_Noreturn void rf_oom(void);

/* Opens the scope; nonzero when one was open already (then this one joins it). */
int rf_oom_open(rf_oom_scope *s);
/* At the top of an entry point: runs `on_oom` (a return) when an allocation in the scope fails. setjmp stands
 * alone in its `if`, as C11 7.13.1.1 requires. */
#define RF_OOM_GUARD(s, on_oom)                   \
    rf_oom_scope s;                               \
    if (!rf_oom_open(&s)) {                       \
        if (setjmp(s.unwind)) {                   \
            rf_oom_unwind(&s);                    \
            on_oom;                               \
        }                                         \
    }
/* On success: the scope's blocks stay allocated, now untracked. */
void rf_oom_close(rf_oom_scope *s);
/* After the unwind: frees the scope's blocks. */
void rf_oom_unwind(rf_oom_scope *s);

#endif
