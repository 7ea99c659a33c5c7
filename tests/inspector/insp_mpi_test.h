/*
 * insp_mpi_test.h - what the inspector's MPI tests (test_inspector.c,
 * test_inspector_reorder.c) share: the program's rank, size, context and
 * world transport, a check that counts and prints its first failures,
 * the same random numbers on every rank, and the start and end of main.
 * Include it once, from the test's one source file; define TEST_NAME
 * first.
 */
#ifndef INSP_MPI_TEST_H
#define INSP_MPI_TEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <mpi.h>

#include "cache_files.h"
#include "ccplan_inspector.h"
#include "ccplan_mpi.h"

static int rank, size;
static ccp_context *ctx;
static ccp_transport *tr; /* over MPI_COMM_WORLD */
static unsigned failures, checks;

/* Count a check; print the first 20 that fail, with the context's
 * message. */
static bool check(bool cond, const char *fmt, ...)
{
	checks++;
	if (cond)
		return true;
	if (++failures <= 20) {
		va_list ap;
		va_start(ap, fmt);
		printf(TEST_NAME "[%d/%d]: FAIL: ", rank, size);
		vprintf(fmt, ap);
		printf(" (%s)\n", ccp_errmsg(ctx));
		va_end(ap);
		fflush(stdout);
	}
	return false;
}

/* splitmix64: the same numbers on every rank */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Whether every rank has the same value. */
static bool all_same(uint64_t v)
{
	uint64_t lo, hi;
	MPI_Allreduce(&v, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
	MPI_Allreduce(&v, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
	return lo == hi;
}

/* Rank 0 removes the cache file at path and SQLite's files beside it;
 * every rank returns after that. */
static void cache_remove_all(const char *path)
{
	if (rank == 0)
		remove_cache(path);
	MPI_Barrier(MPI_COMM_WORLD);
}

/* MPI, the context and the world transport; 0, or 2 for a usage error
 * (usage printed by rank 0; MPI finalised) when the program was not
 * given one argument or runs on another number of ranks than np (0:
 * any). */
static int test_start(int *argc, char ***argv, int np, const char *usage)
{
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (*argc != 2 || (np && size != np)) {
		if (rank == 0)
			fprintf(stderr, "usage: %s\n", usage);
		MPI_Finalize();
		return 2;
	}
	int e = ccp_init(&ctx, NULL, NULL);
	if (e == 0)
		e = ccp_mpi_transport(ctx, MPI_COMM_WORLD, &tr);
	if (e) {
		fprintf(stderr, TEST_NAME ": setup: %s\n", ccp_strerror(e));
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	return 0;
}

/* The counts of every rank, summed and printed by rank 0; everything
 * released.  The program's exit status: 1 if a check failed. */
static int test_finish(void)
{
	unsigned total_fail = 0, total_checks = 0;
	MPI_Allreduce(&failures, &total_fail, 1, MPI_UNSIGNED, MPI_SUM,
	              MPI_COMM_WORLD);
	MPI_Allreduce(&checks, &total_checks, 1, MPI_UNSIGNED, MPI_SUM,
	              MPI_COMM_WORLD);
	if (rank == 0)
		printf(TEST_NAME ": %d ranks, %u checks, %u failed\n", size,
		       total_checks, total_fail);
	ccp_transport_free(tr);
	ccp_fini(ctx);
	MPI_Finalize();
	return total_fail ? 1 : 0;
}

#endif
