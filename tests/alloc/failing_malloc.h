/*
 * failing_malloc.h - a malloc that counts and can fail the N-th
 * allocation (tests/alloc/failing_malloc.c).  Linked into a program it
 * replaces malloc, calloc, realloc, free and the aligned allocators for
 * the whole process, glibc's own allocations included; built as the
 * preload library it is armed from the environment instead
 * (failing_malloc.c says how).
 */
#ifndef CCP_FAILING_MALLOC_H
#define CCP_FAILING_MALLOC_H

#include <stdbool.h>

extern bool fm_armed;        /* count (and maybe fail) allocations */
extern long long fm_calls;   /* allocation calls counted while armed */
extern long long fm_fail_at; /* the call that fails, 1-based; 0: none */
extern bool fm_failed;       /* a failure was injected */
extern long long fm_live;    /* blocks allocated and not yet freed */

/* Called where a failure is injected: a place for a debugger's
 * breakpoint. */
void fm_injected(void);

#endif
