/*
 * mpi_errors.c - what every rank sees when the ranks disagree, over the
 * MPI transport (run under mpirun; tests/mpi/mpi.cmake).
 *
 *     mpirun -n N mpi_errors A.ccp B.ccp [OTHER.ccp...]
 *
 * A and B are two different plans for N ranks (A with a receive on every
 * rank, an alltoall); the OTHER plans are for other numbers of ranks, or
 * for N ranks with scratch space (a reduction: leaves send in the first
 * phase, the root receives in the last).  Checked, each time on every
 * rank, with the receive buffers (and scratch buffers, where the
 * application gives them) untouched (no data moved) after an error:
 *   - ranks load different plans (A on even ranks, B on odd): every rank
 *     returns CCP_EMISMATCH, under S2 and S1+NO_BARRIER; then the same
 *     transport runs A correctly (a verdict does not break it);
 *   - one rank binds too short a receive (then send) buffer, or a NULL
 *     one: every rank returns CCP_EBUFFER; a rank that never bound:
 *     CCP_EINVAL everywhere; once rebound, the plan runs;
 *   - two ranks swap their slices: CCP_EINVAL everywhere;
 *   - A executed, then bound to new buffers: the next execution (and a
 *     start/wait after a bind back) reads and writes the new ones only
 *     (the transport's prepared groups follow the binding);
 *   - pairs of ranks, each pair on its own communicator, the even rank
 *     with a 2-rank alltoall of 64-byte blocks, the odd one with one of
 *     3-byte blocks, unchecked (CCP_EXEC_NO_CHECK): each receive has the
 *     wrong length, and every rank returns CCP_EPEER, the truncation
 *     named, under S2 and S1;
 *   - with a plan P of N ranks that needs scratch: the last rank alone
 *     loads another plan (A): CCP_EMISMATCH everywhere; the rank that
 *     receives last binds too short a receive buffer, or the rank that
 *     needs the most scratch too short a scratch buffer: CCP_EBUFFER
 *     everywhere, before the first phase's sends; once rebound, P runs;
 *   - a plan for another number of ranks on MPI_COMM_WORLD, and A on the
 *     two parts of a split communicator of the wrong sizes: an error on
 *     every rank, the same one, and no hang; and a smaller plan on each
 *     part of a split communicator of its size: runs, every byte right.
 * Each rank prints one line; the exit status is 1 if a check failed on
 * any rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

#define GUARD 64

static ccp_context *ctx;
static struct counter allocs;
static int size;

/* One rank's loaded slice and its buffers. */
struct run {
	ccp_plan *plan;
	uint8_t *send, *recv; /* sb + GUARD, rb + GUARD bytes */
	uint8_t *scratch;     /* xb + GUARD bytes, when the test gives it */
	uint64_t sb, rb, xb;  /* bytes the slice needs */
	uint8_t fill;         /* what recv and scratch hold before execution */
};

/* Load slice `slice` of tp, fill its buffers (round k) and, unless
 * bind is false, bind them with the lengths shortened by the given
 * amounts; returns the bind's result. */
static int setup(struct run *x, const struct tplan *tp, int32_t slice,
                 unsigned k, bool bind, uint64_t send_short,
                 uint64_t recv_short)
{
	memset(x, 0, sizeof *x);
	int rc = ccp_plan_load_file(ctx, tp->path, slice, &x->plan);
	if (!check(rc == 0, "%s: load slice %d: %s (%s)", tp->name, (int)slice,
	           ccp_strerror(rc), ccp_errmsg(ctx)))
		return rc;
	x->sb = tplan_send_bytes(tp, slice);
	x->rb = tplan_recv_bytes(tp, slice);
	x->send = malloc(x->sb + GUARD);
	x->recv = malloc(x->rb + GUARD);
	if (!check(x->send && x->recv, "out of memory"))
		return CCP_ENOMEM;
	tplan_fill_send(tp, slice, k, x->send);
	x->fill = (uint8_t)(0x3c + k);
	memset(x->recv, x->fill, x->rb + GUARD);
	if (!bind)
		return 0;
	return ccp_plan_bind(x->plan, x->send, (size_t)(x->sb - send_short),
	                     x->recv, (size_t)(x->rb - recv_short), NULL, 0);
}

static void done(struct run *x)
{
	ccp_plan_free(x->plan);
	free(x->send);
	free(x->recv);
	free(x->scratch);
	memset(x, 0, sizeof *x);
}

static bool untouched(const struct run *x)
{
	return first_not(x->recv, x->fill, x->rb + GUARD) < 0 &&
	       (!x->scratch || first_not(x->scratch, x->fill, x->xb + GUARD) < 0);
}

/* Give x a scratch buffer of its own (filled like recv) and bind every
 * buffer again, shortened by the given amounts; the bind's result. */
static int bind_scratch(struct run *x, uint64_t recv_short,
                        uint64_t scratch_short)
{
	ccp_plan_info info;
	ccp_plan_get_info(x->plan, &info);
	x->xb = info.scratch_bytes;
	free(x->scratch);
	x->scratch = malloc(x->xb + GUARD);
	if (!check(x->scratch != NULL, "out of memory"))
		return CCP_ENOMEM;
	memset(x->scratch, x->fill, x->xb + GUARD);
	return ccp_plan_bind(x->plan, x->send, (size_t)x->sb, x->recv,
	                     (size_t)(x->rb - recv_short), x->scratch,
	                     (size_t)(x->xb - scratch_short));
}

/* The same code on every rank of comm. */
static bool same_everywhere(int rc, MPI_Comm comm)
{
	int lo = 0, hi = 0;
	MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, comm);
	MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, comm);
	return lo == hi;
}

/* Execute and expect `want` (want == 1: any error) with no data moved. */
static void expect_error(struct run *x, ccp_transport *t, unsigned flags,
                         int want, const char *what, MPI_Comm comm)
{
	int rc = ccp_plan_execute(x->plan, t, flags);
	if (want == 1)
		check(rc < 0 && ccp_errmsg(ctx)[0],
		      "%s: execute returned %d (%s), want an error", what, rc,
		      ccp_errmsg(ctx));
	else
		check(rc == want && ccp_errmsg(ctx)[0],
		      "%s: execute returned %s (%s), want %s", what,
		      ccp_strerror(rc), ccp_errmsg(ctx), ccp_strerror(want));
	check(same_everywhere(rc, comm), "%s: ranks returned different codes",
	      what);
	check(untouched(x), "%s: the receive buffer was written", what);
}

/* Execute and compare the receive buffer with the expected bytes. */
static void expect_ok(struct run *x, ccp_transport *t, const struct tplan *tp,
                      int32_t r, unsigned k, const char *what)
{
	int rc = ccp_plan_execute(x->plan, t, CCP_EXEC_S2);
	check(rc == 0, "%s: execute: %s (%s)", what, ccp_strerror(rc),
	      ccp_errmsg(ctx));
	uint8_t *want = malloc(x->rb + 1);
	if (!check(want != NULL, "out of memory"))
		return;
	tplan_expect_recv(tp, r, k, want);
	check(first_diff(x->recv, want, x->rb) < 0, "%s: wrong data", what);
	free(want);
}

static bool test_mismatch(ccp_transport *t, const struct tplan *a,
                          const struct tplan *b, MPI_Comm refcomm)
{
	struct run x;
	int rank = ccp_transport_rank(t);
	int rc = setup(&x, rank % 2 ? b : a, rank, 0, true, 0, 0);
	check(rc == 0, "mismatch: bind: %s", ccp_strerror(rc));
	expect_error(&x, t, CCP_EXEC_S2, CCP_EMISMATCH, "different plans, S2",
	             MPI_COMM_WORLD);
	expect_error(&x, t, CCP_EXEC_S1 | CCP_EXEC_NO_BARRIER, CCP_EMISMATCH,
	             "different plans, S1+NO_BARRIER", MPI_COMM_WORLD);
	done(&x);
	/* the verdict did not break the transport */
	unsigned execs = 0;
	return run_plan(a, ctx, &allocs, t, refcomm, 1, false, &execs);
}

static void test_buffers(ccp_transport *t, const struct tplan *a)
{
	struct run x;
	int rank = ccp_transport_rank(t), last = size - 1, rc;

	rc = setup(&x, a, rank, 1, true, 0, rank == last ? 1 : 0);
	check(rc == (rank == last ? CCP_EBUFFER : 0),
	      "short recv: bind returned %s", ccp_strerror(rc));
	expect_error(&x, t, CCP_EXEC_S2, CCP_EBUFFER, "short recv buffer",
	             MPI_COMM_WORLD);
	expect_error(&x, t, CCP_EXEC_S1, CCP_EBUFFER, "short recv buffer, S1",
	             MPI_COMM_WORLD);
	if (rank == last) { /* rebound: the plan runs */
		rc = ccp_plan_bind(x.plan, x.send, (size_t)x.sb, x.recv,
		                   (size_t)x.rb, NULL, 0);
		check(rc == 0, "rebind: %s", ccp_strerror(rc));
	}
	expect_ok(&x, t, a, rank, 1, "after rebinding");
	done(&x);

	rc = setup(&x, a, rank, 2, true, rank == 0 ? 1 : 0, 0);
	check(rc == (rank == 0 ? CCP_EBUFFER : 0),
	      "short send: bind returned %s", ccp_strerror(rc));
	expect_error(&x, t, CCP_EXEC_S2, CCP_EBUFFER, "short send buffer",
	             MPI_COMM_WORLD);
	if (rank == 0) {
		rc = ccp_plan_bind(x.plan, NULL, (size_t)x.sb, x.recv,
		                   (size_t)x.rb, NULL, 0);
		check(rc == CCP_EBUFFER, "NULL send: bind returned %s",
		      ccp_strerror(rc));
	}
	expect_error(&x, t, CCP_EXEC_S2 | CCP_EXEC_NO_BARRIER, CCP_EBUFFER,
	             "NULL send buffer", MPI_COMM_WORLD);
	done(&x);

	rc = setup(&x, a, rank, 3, rank != last, 0, 0);
	expect_error(&x, t, CCP_EXEC_S2, CCP_EINVAL, "a rank never bound",
	             MPI_COMM_WORLD);
	done(&x);
}

static void test_swapped(ccp_transport *t, const struct tplan *a)
{
	struct run x;
	int rank = ccp_transport_rank(t);
	int32_t slice = rank < 2 ? 1 - rank : rank;
	int rc = setup(&x, a, slice, 4, true, 0, 0);
	check(rc == 0, "swapped: bind: %s", ccp_strerror(rc));
	expect_error(&x, t, CCP_EXEC_S2, CCP_EINVAL, "ranks 0 and 1 swapped",
	             MPI_COMM_WORLD);
	done(&x);
}

/* The highest rank whose slice of tp receives into its receive buffer
 * (a reduction's root: it receives in the last phase). */
static int32_t last_receiver(const struct tplan *tp)
{
	for (int32_t r = tp->n - 1; r > 0; r--)
		if (tplan_recv_bytes(tp, r) > 0)
			return r;
	return 0;
}

/* The rank of tp needing the most scratch, and how much (*most). */
static int32_t most_scratch(const struct tplan *tp, uint64_t *most)
{
	int32_t best = 0;
	*most = 0;
	for (int32_t r = 0; r < tp->n; r++) {
		ccp_plan *pl = NULL;
		ccp_plan_info info;
		if (ccp_plan_load_file(ctx, tp->path, r, &pl) != 0)
			continue;
		ccp_plan_get_info(pl, &info);
		if (info.scratch_bytes > *most) {
			*most = info.scratch_bytes;
			best = r;
		}
		ccp_plan_free(pl);
	}
	return best;
}

/* A plan p of this size with scratch, every scratch buffer the test's own:
 * one rank loading another plan (a); the last receiver's receive buffer,
 * then the largest scratch, one byte short.  Refused everywhere before
 * the first phase, whose sends the leaves could make at once. */
static void test_late(ccp_transport *t, const struct tplan *a,
                      const struct tplan *p)
{
	struct run x;
	int rank = ccp_transport_rank(t), last = size - 1, rc;
	char what[160];

	rc = setup(&x, rank == last ? a : p, rank, 7, true, 0, 0);
	check(rc == 0, "%s: bind: %s", p->name, ccp_strerror(rc));
	if (rank != last)
		check(bind_scratch(&x, 0, 0) == 0, "%s: bind scratch",
		      p->name);
	snprintf(what, sizeof what, "rank %d alone with %s, the others %s",
	         last, a->name, p->name);
	expect_error(&x, t, CCP_EXEC_S2, CCP_EMISMATCH, what, MPI_COMM_WORLD);
	expect_error(&x, t, CCP_EXEC_S1 | CCP_EXEC_NO_BARRIER, CCP_EMISMATCH,
	             what, MPI_COMM_WORLD);
	done(&x);

	int32_t late = last_receiver(p);
	uint64_t most = 0;
	int32_t big = most_scratch(p, &most);
	setup(&x, p, rank, 8, true, 0, 0);
	rc = bind_scratch(&x, rank == late && x.rb ? 1 : 0, 0);
	check(rc == (rank == late && x.rb ? CCP_EBUFFER : 0),
	      "%s: short recv on rank %d: bind returned %s", p->name,
	      (int)late, ccp_strerror(rc));
	snprintf(what, sizeof what,
	         "%s: rank %d (receives last) one byte short of recv", p->name,
	         (int)late);
	expect_error(&x, t, CCP_EXEC_S2, CCP_EBUFFER, what, MPI_COMM_WORLD);
	expect_error(&x, t, CCP_EXEC_S1 | CCP_EXEC_NO_BARRIER, CCP_EBUFFER,
	             what, MPI_COMM_WORLD);
	done(&x);

	if (!check(most > 0, "%s: no rank needs scratch", p->name))
		return;
	setup(&x, p, rank, 9, true, 0, 0);
	rc = bind_scratch(&x, 0, rank == big ? 1 : 0);
	check(rc == (rank == big ? CCP_EBUFFER : 0),
	      "%s: short scratch on rank %d: bind returned %s", p->name,
	      (int)big, ccp_strerror(rc));
	snprintf(what, sizeof what,
	         "%s: rank %d one byte short of its %llu bytes of scratch",
	         p->name, (int)big, (unsigned long long)most);
	expect_error(&x, t, CCP_EXEC_S2, CCP_EBUFFER, what, MPI_COMM_WORLD);
	expect_error(&x, t, CCP_EXEC_S2 | CCP_EXEC_NO_BARRIER, CCP_EBUFFER,
	             what, MPI_COMM_WORLD);
	/* rebound whole: the plan runs, every byte right */
	rc = bind_scratch(&x, 0, 0);
	check(rc == 0, "%s: rebind: %s", p->name, ccp_strerror(rc));
	expect_ok(&x, t, p, rank, 9, "after rebinding the scratch");
	done(&x);
}

/* A plan for w->n ranks on MPI_COMM_WORLD, then on parts of its size. */
static void test_size(ccp_transport *t, const struct tplan *w)
{
	struct run x;
	int rank = ccp_transport_rank(t);
	char what[128];
	snprintf(what, sizeof what, "%s (%d ranks) on %d ranks", w->name,
	         (int)w->n, size);
	int rc = setup(&x, w, rank % w->n, 5, true, 0, 0);
	check(rc == 0, "%s: bind: %s", what, ccp_strerror(rc));
	expect_error(&x, t, CCP_EXEC_S2, 1, what, MPI_COMM_WORLD);
	expect_error(&x, t, CCP_EXEC_S1 | CCP_EXEC_NO_BARRIER, 1, what,
	             MPI_COMM_WORLD);
	done(&x);
	if (w->n > size || size % w->n != 0)
		return;
	MPI_Comm part;
	MPI_Comm_split(MPI_COMM_WORLD, rank / w->n, rank, &part);
	ccp_transport *tp = NULL;
	rc = ccp_mpi_transport(ctx, part, &tp);
	if (check(rc == 0, "split: %s", ccp_strerror(rc))) {
		unsigned execs = 0;
		run_plan(w, ctx, &allocs, tp, part, 1, false, &execs);
		ccp_transport_free(tp);
	}
	MPI_Comm_free(&part);
}

/* A run, then bound to new buffers: the new ones are used, the old ones
 * left as the first execution wrote them; then bound back, started and
 * waited for. */
static void test_rebind(ccp_transport *t, const struct tplan *a)
{
	struct run x, y;
	int rank = ccp_transport_rank(t);
	int rc = setup(&x, a, rank, 4, true, 0, 0);
	check(rc == 0, "rebind: bind: %s", ccp_strerror(rc));
	expect_ok(&x, t, a, rank, 4, "rebind: first buffers");
	rc = setup(&y, a, rank, 5, false, 0, 0); /* y's buffers, x's plan */
	check(rc == 0, "rebind: second buffers: %s", ccp_strerror(rc));
	ccp_plan_free(y.plan);
	y.plan = x.plan;
	rc = ccp_plan_bind(y.plan, y.send, (size_t)y.sb, y.recv, (size_t)y.rb,
	                   NULL, 0);
	check(rc == 0, "rebind: bind the second buffers: %s", ccp_strerror(rc));
	expect_ok(&y, t, a, rank, 5, "rebind: second buffers");
	uint8_t *want = malloc(x.rb + 1);
	if (check(want != NULL, "out of memory")) {
		tplan_expect_recv(a, rank, 4, want);
		check(first_diff(x.recv, want, x.rb) < 0 &&
		              first_not(x.recv + x.rb, x.fill, GUARD) < 0,
		      "rebind: the first receive buffer changed");
		/* back to x's buffers, round 6, through start and wait */
		tplan_fill_send(a, rank, 6, x.send);
		rc = ccp_plan_bind(x.plan, x.send, (size_t)x.sb, x.recv,
		                   (size_t)x.rb, NULL, 0);
		if (rc == 0)
			rc = ccp_plan_start(x.plan, t, CCP_EXEC_DEFAULT);
		if (rc == 0)
			rc = ccp_plan_wait(x.plan);
		check(rc == 0, "rebind: back, start and wait: %s (%s)",
		      ccp_strerror(rc), ccp_errmsg(ctx));
		tplan_expect_recv(a, rank, 6, want);
		check(first_diff(x.recv, want, x.rb) < 0,
		      "rebind: back: wrong data");
		tplan_expect_recv(a, rank, 5, want);
		check(first_diff(y.recv, want, y.rb) < 0,
		      "rebind: back: the second receive buffer changed");
	}
	free(want);
	y.plan = NULL;
	done(&y);
	done(&x);
}

/* Every pair of ranks on its own communicator, the even rank with the
 * 2-rank plan a (64-byte blocks), the odd one with b (3-byte blocks),
 * unchecked: each one's receive has the wrong length, and every rank
 * fails with CCP_EPEER, the longer message named as such. */
static void test_lengths(const struct tplan *a, const struct tplan *b)
{
	int rank = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (size % 2) /* a rank without a pair */
		return;
	MPI_Comm pair;
	MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pair);
	int pr = 0, pn = 0;
	MPI_Comm_rank(pair, &pr);
	MPI_Comm_size(pair, &pn);
	const unsigned flags[2] = {CCP_EXEC_DEFAULT | CCP_EXEC_NO_CHECK,
	                           CCP_EXEC_S1 | CCP_EXEC_NO_CHECK};
	for (int f = 0; f < 2 && pn == 2; f++) {
		ccp_transport *tp = NULL;
		int rc = ccp_mpi_transport(ctx, pair, &tp);
		if (!check(rc == 0, "lengths: %s", ccp_strerror(rc)))
			break;
		struct run x;
		rc = setup(&x, pr ? b : a, pr, 7, true, 0, 0);
		check(rc == 0, "lengths: bind: %s", ccp_strerror(rc));
		rc = ccp_plan_execute(x.plan, tp, flags[f]);
		const char *msg = ccp_errmsg(ctx);
		check(rc == CCP_EPEER &&
		              strstr(msg, pr ? "sent more than the 3 bytes"
		                             : "sent 3 bytes, the receive "
		                               "expects 64"),
		      "lengths (%s): %s (%s)", f ? "S1" : "S2",
		      ccp_strerror(rc), msg);
		check(same_everywhere(rc, MPI_COMM_WORLD),
		      "lengths: ranks returned different codes");
		done(&x);
		ccp_transport_free(tp);
	}
	MPI_Comm_free(&pair);
}

/* A (for every rank) on the parts of a split of the wrong sizes. */
static void test_split(const struct tplan *a)
{
	int rank = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm part;
	MPI_Comm_split(MPI_COMM_WORLD, rank == size - 1, rank, &part);
	int pr = 0;
	MPI_Comm_rank(part, &pr);
	ccp_transport *tp = NULL;
	int rc = ccp_mpi_transport(ctx, part, &tp);
	if (check(rc == 0, "split: %s", ccp_strerror(rc))) {
		struct run x;
		rc = setup(&x, a, pr, 6, true, 0, 0);
		check(rc == 0, "split: bind: %s", ccp_strerror(rc));
		expect_error(&x, tp, CCP_EXEC_S2, CCP_EINVAL,
		             "a plan for every rank on a part", part);
		done(&x);
		ccp_transport_free(tp);
	}
	MPI_Comm_free(&part);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	t_prog = "mpi_errors";
	double t0 = MPI_Wtime();
	MPI_Comm refcomm;
	MPI_Comm_dup(MPI_COMM_WORLD, &refcomm);

	int np = argc - 1;
	struct tplan *tps = calloc((size_t)(np > 0 ? np : 1), sizeof *tps);
	bool loaded = tps != NULL && np >= 2;
	for (int i = 0; loaded && i < np; i++) {
		char err[300];
		loaded = check(
		        tplan_load(&tps[i], argv[i + 1], err, sizeof err) == 0,
		        "%s", err);
		if (!loaded)
			np = i;
	}
	check(loaded && tps[0].n == size && tps[1].n == size &&
	              tps[0].hash != tps[1].hash,
	      "usage: mpi_errors A.ccp B.ccp [OTHER.ccp...], A and B two "
	      "different plans for %d ranks",
	      size);
	int rc = ccp_init(&ctx, counting_alloc, &allocs);
	ccp_transport *t = NULL;
	if (rc == 0)
		rc = ccp_mpi_transport(ctx, MPI_COMM_WORLD, &t);
	check(rc == 0, "setup: %s", ccp_strerror(rc));
	unsigned other = 0, late = 0;
	if (!any_rank_failed()) {
		if (!test_mismatch(t, &tps[0], &tps[1], refcomm))
			goto stop; /* the transport may be broken somewhere */
		test_buffers(t, &tps[0]);
		test_swapped(t, &tps[0]);
		test_rebind(t, &tps[0]);
		const struct tplan *pex = NULL, *gen = NULL;
		for (int i = 0; i < np; i++) {
			if (strstr(tps[i].name, "n2_alltoall_pex"))
				pex = &tps[i];
			if (strstr(tps[i].name, "n2_alltoall_gen"))
				gen = &tps[i];
		}
		check(pex && gen, "the plans n2_alltoall_pex and "
		                  "n2_alltoall_gen are not among the arguments");
		if (pex && gen)
			test_lengths(pex, gen);
		for (int i = 2; i < np; i++) {
			if (tps[i].n != size) {
				test_size(t, &tps[i]);
				other++;
			} else {
				test_late(t, &tps[0], &tps[i]);
				late++;
			}
		}
		test_split(&tps[0]);
	}
stop:
	ccp_transport_free(t);
	ccp_fini(ctx);
	check(allocs.live == 0, "%lld blocks of the context not freed",
	      (long long)allocs.live);
	for (int i = 0; i < np; i++)
		tplan_fini(&tps[i]);
	free(tps);

	printf("%s rank %d/%d: %u plans of other sizes, %u with scratch, %u "
	       "checks, %u failed, %.2f s\n",
	       t_prog, t_rank, size, other, late, t_checks, t_failures,
	       MPI_Wtime() - t0);
	fflush(stdout);
	bool failed = any_rank_failed();
	MPI_Comm_free(&refcomm);
	MPI_Finalize();
	return failed ? 1 : 0;
}
