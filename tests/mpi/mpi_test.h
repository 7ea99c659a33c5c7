/*
 * mpi_test.h - what the MPI transport's test programs share
 * (tests/mpi/mpi_common.c): the whole plan as the test knows it, the
 * buffer patterns, the expected results computed from the plan's own
 * communication, MPI's collective on the same data, a counting allocator
 * and failure bookkeeping.
 *
 * The expected bytes never come from the runtime: each rank decodes the
 * whole .ccp file with ir_plan_decode and derives, from the communication
 * alone (collective, root, bytes, dtype, op, matrix), what its receive
 * buffer must hold after the plan ran.
 */
#ifndef CCP_MPI_TEST_H
#define CCP_MPI_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ccplan_mpi.h"
#include "codec.h"
#include "ir.h"

/* A plan file as the test sees it. */
struct tplan {
	const char *path; /* the .ccp file */
	const char *name; /* its base name, for messages */
	ir_plan ir;       /* the whole plan: machine and communication */
	int32_t n;        /* ranks of the plan */
	uint64_t hash;    /* its plan hash */
};

/* What counting_alloc, a ccp_alloc_fn, saw (its ud). */
struct counter {
	uint64_t calls; /* allocations and reallocations */
	int64_t live;   /* blocks not freed yet: 0 after ccp_fini */
};
/* Read and decode a plan file; 0 or -1 with the reason in err. */
int tplan_load(struct tplan *tp, const char *path, char *err, size_t errlen);
void tplan_fini(struct tplan *tp);

/* Bytes rank r's send / recv buffer holds for this communication. */
uint64_t tplan_send_bytes(const struct tplan *tp, int32_t r);
uint64_t tplan_recv_bytes(const struct tplan *tp, int32_t r);

/* Fill rank r's send buffer for round k (len = tplan_send_bytes). */
void tplan_fill_send(const struct tplan *tp, int32_t r, unsigned k,
                     uint8_t *buf);
/* The bytes rank r's recv buffer must hold after round k. */
void tplan_expect_recv(const struct tplan *tp, int32_t r, unsigned k,
                       uint8_t *buf);
/* Run MPI's own collective (MPI_Bcast, MPI_Scatter, MPI_Gather,
 * MPI_Reduce, MPI_Alltoall, MPI_Alltoallv; transpose: MPI_Sendrecv) on
 * comm with rank r's send buffer, into out (tplan_recv_bytes bytes).
 * Returns 0 or the MPI error code. */
int tplan_mpi_reference(const struct tplan *tp, MPI_Comm comm, int32_t r,
                        const uint8_t *send, uint8_t *out);

/* Load rank's slice of tp (the transport's rank), bind pattern-filled
 * buffers (user scratch or the runtime's), and execute it `rounds` times
 * under each of S2, S1, S2+NO_BARRIER and S1+NO_BARRIER (the last round
 * of each with NO_CHECK), checking after every run each received byte,
 * the bytes past the buffers, the send buffer, that repeated runs
 * allocate nothing (allocs: the context's counter), and that MPI's own
 * collective on refcomm gives the same bytes.  refcomm must hold the
 * transport's ranks: the ranks also agree on it after every run, and all
 * stop at once, returning false, when a run failed anywhere (the
 * transport may then be broken on some ranks: use it no more).  *execs
 * counts the executions. */
bool run_plan(const struct tplan *tp, ccp_context *ctx,
              const struct counter *allocs, ccp_transport *t, MPI_Comm refcomm,
              unsigned rounds, bool user_scratch, unsigned *execs);

/* Index of the first byte where a and b differ, or -1. */
int64_t first_diff(const uint8_t *a, const uint8_t *b, uint64_t n);
/* Index of the first byte of buf that is not v, or -1. */
int64_t first_not(const uint8_t *buf, uint8_t v, uint64_t n);

void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/* Failure bookkeeping: check(cond, fmt, ...) counts a failure and prints
 * its first few on stdout, prefixed by the program's tag and rank. */
extern int t_rank;          /* this process's rank in MPI_COMM_WORLD */
extern const char *t_prog;  /* program name for messages */
extern unsigned t_failures; /* failed checks so far */
extern unsigned t_checks;   /* checks so far */
bool check(bool cond, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
/* Whether any rank failed (MPI_Allreduce on MPI_COMM_WORLD). */
bool any_rank_failed(void);

#endif
