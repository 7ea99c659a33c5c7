/*
 * bench.h - what every benchmark program needs: a monotonic clock and the
 * median of repeated runs (this machine is shared and noisy, so tables
 * quote medians).  Header-only; each benchmark is its own executable.
 */
#ifndef CCP_BENCH_H
#define CCP_BENCH_H

#include <stdlib.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double bench_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* qsort order of doubles. */
static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of v[0..n), n >= 1 (v is sorted in place): the middle one,
 * or the mean of the two middle ones. */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
