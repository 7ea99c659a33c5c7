/*
 * failing_malloc.c - the counting allocator of the allocation-failure
 * tests (docs/reliability.md, "Memory").  Every allocation function of the
 * process comes here and goes on to glibc's __libc_* functions: glibc
 * calls a program's own malloc for its internal allocations too, so
 * strdup, asprintf, fopen, libyaml and SQLite are counted as well.  While
 * fm_armed, each allocation call is counted, and call number fm_fail_at
 * returns NULL with errno ENOMEM (realloc leaves its block as it was).
 *
 * Built with FM_PRELOAD, as libccp_failing_malloc.so for LD_PRELOAD, it
 * arms itself before main when CCP_FAIL_AT=N is set (0 or empty: count
 * only), and at exit writes "CALLS INJECTED" (the calls counted; 1 if
 * call N failed) to the file named by CCP_FAIL_REPORT.  A process that
 * dies of a signal writes nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <unistd.h>

#include "failing_malloc.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

bool fm_armed;
long long fm_calls;
long long fm_fail_at;
bool fm_failed;
long long fm_live;

__attribute__((noinline)) void fm_injected(void)
{
	__asm__ volatile("");
}

/* Whether this allocation call is the one to fail. */
static bool fail_now(void)
{
	if (!__atomic_load_n(&fm_armed, __ATOMIC_RELAXED))
		return false;
	long long k = __atomic_add_fetch(&fm_calls, 1, __ATOMIC_RELAXED);
	if (k != fm_fail_at)
		return false;
	__atomic_store_n(&fm_failed, true, __ATOMIC_RELAXED);
	fm_injected();
	errno = ENOMEM;
	return true;
}

static void *counted(void *p)
{
	if (p)
		__atomic_add_fetch(&fm_live, 1, __ATOMIC_RELAXED);
	return p;
}

void *malloc(size_t n)
{
	return fail_now() ? NULL : counted(__libc_malloc(n));
}

void *calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : counted(__libc_calloc(n, size));
}

void free(void *p)
{
	if (p)
		__atomic_sub_fetch(&fm_live, 1, __ATOMIC_RELAXED);
	__libc_free(p);
}

void *realloc(void *p, size_t n)
{
	if (!p)
		return malloc(n);
	if (n == 0) { /* glibc: frees p */
		free(p);
		return NULL;
	}
	if (fail_now())
		return NULL; /* p stays valid, as realloc leaves it */
	return __libc_realloc(p, n);
}

void *memalign(size_t align, size_t n)
{
	return fail_now() ? NULL : counted(__libc_memalign(align, n));
}

void *aligned_alloc(size_t align, size_t n)
{
	return memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	if (fail_now())
		return ENOMEM;
	void *p = counted(__libc_memalign(align, n));
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *valloc(size_t n)
{
	return memalign((size_t)sysconf(_SC_PAGESIZE), n);
}

void *pvalloc(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	return memalign(page, (n + page - 1) / page * page);
}

#ifdef FM_PRELOAD
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

static const char *report; /* CCP_FAIL_REPORT */

__attribute__((constructor)) static void fm_arm(void)
{
	const char *at = getenv("CCP_FAIL_AT");
	report = getenv("CCP_FAIL_REPORT");
	if (!at)
		return;
	fm_fail_at = atoll(at);
	fm_armed = true;
}

/* At exit (after main returns or exit is called): what happened. */
__attribute__((destructor)) static void fm_report(void)
{
	fm_armed = false;
	if (!report)
		return;
	char line[64];
	int n = snprintf(line, sizeof line, "%lld %d\n", fm_calls,
	                 fm_failed ? 1 : 0);
	int fd = open(report, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	ssize_t w = write(fd, line, (size_t)n);
	(void)w;
	close(fd);
}
#endif
