/*
 * mpi_nonblocking.c - ccp_plan_start, ccp_plan_test and ccp_plan_wait
 * over the MPI transport (run under mpirun; tests/mpi/mpi.cmake).
 *
 *     mpirun -n N mpi_nonblocking PLAN.ccp...
 *
 * For each plan of N ranks, under S2 and S1, with and without phase
 * barriers: the plan is started, tested between slices of computation
 * until done (some rounds finished by ccp_plan_wait instead), and every
 * received byte compared with what the communication means
 * (tplan_expect_recv) and with ccp_plan_execute's bytes on the same
 * buffers.  Then the misuses, on every rank: wait and test with nothing
 * started (CCP_EINVAL), a second start, an execute or a bind while in
 * flight (CCP_EBUSY, nothing changed), and ccp_plan_free of a plan in
 * flight (the execution completes: the bytes arrive).  Each rank prints
 * one line; the exit status is 1 if a check failed on any rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

static const unsigned schemes[] = {CCP_EXEC_S2, CCP_EXEC_S1,
                                   CCP_EXEC_S2 | CCP_EXEC_NO_BARRIER,
                                   CCP_EXEC_S1 | CCP_EXEC_NO_BARRIER};

/* Some computation between tests. */
static volatile double sink;
static void work(void)
{
	double x = 1;
	for (int i = 0; i < 20000; i++)
		x = x * 1.0000001 + 1e-9;
	sink = x;
}

/* One plan: every scheme, start and test (or wait), every byte. */
static void run_one(const struct tplan *tp, ccp_context *ctx, ccp_transport *t,
                    unsigned *execs)
{
	ccp_plan *p = NULL;
	int rc = ccp_plan_load_file(ctx, tp->path, t_rank, &p);
	if (!check(rc == 0, "%s: load: %s", tp->name, ccp_errmsg(ctx)))
		return;
	uint64_t sb = tplan_send_bytes(tp, t_rank),
	         rb = tplan_recv_bytes(tp, t_rank);
	uint8_t *s = malloc(sb + 1), *r = malloc(rb + 1),
	        *want = malloc(rb + 1), *ex = malloc(rb + 1);
	for (size_t k = 0; k < sizeof schemes / sizeof *schemes; k++) {
		unsigned fl = schemes[k];
		tplan_fill_send(tp, t_rank, (unsigned)k, s);
		tplan_expect_recv(tp, t_rank, (unsigned)k, want);
		rc = ccp_plan_bind(p, s, sb, r, rb, NULL, 0);
		check(rc == 0, "%s: bind: %s", tp->name, ccp_errmsg(ctx));
		memset(r, 0xee, rb);
		rc = ccp_plan_execute(p, t, fl);
		check(rc == 0, "%s flags %u: execute: %s", tp->name, fl,
		      ccp_errmsg(ctx));
		memcpy(ex, r, rb);
		for (unsigned round = 0; round < 2; round++) {
			memset(r, 0xee, rb);
			int done = 0, tests = 0;
			rc = ccp_plan_start(p, t, fl | CCP_EXEC_NO_CHECK);
			while (!rc && !done && (round == 0 || tests < 2)) {
				work();
				rc = ccp_plan_test(p, &done);
				tests++;
			}
			if (!rc && !done)
				rc = ccp_plan_wait(p);
			(*execs)++;
			check(rc == 0, "%s flags %u round %u: %s", tp->name, fl,
			      round, ccp_errmsg(ctx));
			int64_t d = first_diff(r, want, rb);
			check(d < 0,
			      "%s flags %u round %u: byte %lld is %u, "
			      "want %u",
			      tp->name, fl, round, (long long)d,
			      d < 0 ? 0 : r[d], d < 0 ? 0 : want[d]);
			check(first_diff(r, ex, rb) < 0,
			      "%s flags %u: start/test differs from execute",
			      tp->name, fl);
		}
	}
	/* misuse, the same sequence on every rank */
	int done = 5;
	check(ccp_plan_wait(p) == CCP_EINVAL, "wait with nothing started");
	check(ccp_plan_test(p, &done) == CCP_EINVAL && done == 0,
	      "test with nothing started");
	tplan_fill_send(tp, t_rank, 9, s);
	tplan_expect_recv(tp, t_rank, 9, want);
	memset(r, 0xee, rb);
	check(ccp_plan_start(p, t, CCP_EXEC_NO_BARRIER) == 0, "start: %s",
	      ccp_errmsg(ctx));
	check(ccp_plan_start(p, t, 0) == CCP_EBUSY, "second start");
	check(ccp_plan_execute(p, t, 0) == CCP_EBUSY, "execute in flight");
	check(ccp_plan_bind(p, s, sb, r, rb, NULL, 0) == CCP_EBUSY,
	      "bind in flight");
	ccp_plan_free(p); /* completes the execution */
	check(first_diff(r, want, rb) < 0, "%s: freed in flight: bytes",
	      tp->name);
	free(s);
	free(r);
	free(want);
	free(ex);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int size = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	t_prog = "mpi_nonblocking";
	double t0 = MPI_Wtime();
	ccp_context *ctx = NULL;
	ccp_transport *t = NULL;
	int rc = ccp_init(&ctx, NULL, NULL);
	if (!rc)
		rc = ccp_mpi_transport(ctx, MPI_COMM_WORLD, &t);
	check(rc == 0, "transport: %s", ccp_strerror(rc));
	unsigned plans = 0, execs = 0;
	for (int a = 1; a < argc && rc == 0; a++) {
		struct tplan tp;
		char err[300];
		if (!check(tplan_load(&tp, argv[a], err, sizeof err) == 0, "%s",
		           err))
			continue;
		if (check(tp.n == size, "%s is a plan for %d ranks", tp.name,
		          (int)tp.n)) {
			run_one(&tp, ctx, t, &execs);
			plans++;
		}
		tplan_fini(&tp);
		if (any_rank_failed())
			break;
	}
	ccp_transport_free(t);
	ccp_fini(ctx);
	printf("%s rank %d/%d: %u plans, %u executions, %u checks, %u "
	       "failed, %.2f s\n",
	       t_prog, t_rank, size, plans, execs, t_checks, t_failures,
	       MPI_Wtime() - t0);
	fflush(stdout);
	bool failed = any_rank_failed();
	MPI_Finalize();
	return failed ? 1 : 0;
}
