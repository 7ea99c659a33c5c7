/*
 * stress.h - what the two load tests share (bench/stress/, issue 9,
 * docs/reliability.md, "Load"): one sample of a process's memory.
 * Header-only; Linux and glibc (the /proc file and mallinfo2).
 *
 * The allocator's figure counts every block malloc has handed out and
 * not had back, in chunk sizes, over all arenas and mmapped blocks.  It
 * is exact only with glibc's per-thread cache turned off
 * (GLIBC_TUNABLES=glibc.malloc.tcache_count=0, which bench/stress.sh
 * sets): a freed block parked in that cache still counts as in use.
 */
#ifndef CCP_STRESS_H
#define CCP_STRESS_H

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One sample of this process's memory. */
struct stress_mem {
	uint64_t live;     /* bytes malloc has handed out and not had back */
	uint64_t rss;      /* resident set, bytes (/proc/self/statm) */
	uint64_t rss_trim; /* the same after malloc_trim(0) has given free
	                      memory back: what the process really holds */
};

static inline uint64_t stress_rss(void)
{
	uint64_t rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		unsigned long long size, res;
		if (fscanf(f, "%llu %llu", &size, &res) == 2)
			rss = (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
		fclose(f);
	}
	return rss;
}

static inline void stress_mem_sample(struct stress_mem *m)
{
	struct mallinfo2 mi = mallinfo2();
	m->live = (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
	m->rss = stress_rss();
	malloc_trim(0);
	m->rss_trim = stress_rss();
}

/* Whether m's live bytes mean anything: a sanitizer's allocator answers
 * mallinfo2 with zeros (its blocks are not glibc's), and then growth
 * cannot be judged; the runtime's own allocation count still can. */
static inline int stress_live_measured(const struct stress_mem *m)
{
	return m->live != 0;
}

/* Whether glibc's per-thread cache is off, so that live is exact. */
static inline int stress_tcache_off(void)
{
	const char *t = getenv("GLIBC_TUNABLES");
	return t && strstr(t, "glibc.malloc.tcache_count=0") != NULL;
}

#endif
