/*
 * stress_run.c - the second half of the load test (issue 9,
 * docs/reliability.md, "Load"): one rank of a job that executes a few plans
 * back to back many times, over the sockets transport (under `ccplan
 * run`) or MPI (under mpirun), checking every result and watching the
 * process's memory.
 *
 *     ccplan run -n 4 stress_run --transport sockets --result DIR A.ccp...
 *     mpirun -n 4 stress_run --transport mpi --result DIR A.ccp...
 *     stress_run --report DIR
 *
 * Each rank loads its slice of every plan once, binds buffers once, and
 * then, N times, executes every plan in turn (the scheme rotating through
 * S2, S1, S2+NO_BARRIER and S1+NO_BARRIER).  Before each execution the
 * send buffer is filled with a pattern of the rank, the offset and the
 * iteration, and the receive buffer (with guard bytes past its end) with
 * a sentinel; after it, every byte is checked against what the
 * collective must deliver, computed from the plan's communication alone
 * (tests/mpi/mpi_common.c), the guard bytes must be intact and the send
 * buffer unchanged.  Every K iterations after the warm-up the rank
 * samples its memory (stress.h) and the allocations the runtime has made
 * through the context's allocator, which must not change after the first
 * iteration.
 *
 * Each rank writes its figures to DIR/rank-R; --report DIR reads them all
 * and prints the tables, and exits 1 if any rank failed a check, the
 * runtime allocated after the first iteration, or live bytes grew after
 * the warm-up (under MPI, by more than Open MPI's own caching explains:
 * MPI_ALLOWANCE).
 *
 * Exit status of a rank: 0 every check passed, 1 a check failed, 3 a
 * set-up failure.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ccplan_sockets.h"
#include "mpi_test.h"
#include "stress.h"

#define GUARD       64 /* bytes past each buffer that must stay intact */
#define MAX_PLANS   8
#define MAX_SAMPLES 128
#define MAX_RANKS   64 /* ranks --report reads */
/* Open MPI's ob1 PML copies an unexpected message longer than its
 * unexpected_limit (128 bytes) into a buffer of its bucket allocator, which
 * keeps every buffer it has grown to until MPI_Finalize: a run that meets a new
 * peak of unexpected messages grows the process by one such buffer (2,080
 * bytes) for good.  The runtime's own allocations are counted exactly apart
 * (runtime allocs, which must not change); under MPI the process's live bytes
 * may grow by this much (docs/reliability.md, "Load").  Over sockets every byte is
 * ours: no growth is allowed. */
#define MPI_ALLOWANCE 16384

/* One plan as this rank runs it. */
struct splan {
	struct tplan tp; /* the whole plan, for the expected bytes */
	ccp_plan *plan;  /* this rank's slice */
	uint64_t sb, rb; /* send and receive bytes of this rank */
	uint8_t *send, *recv, *want;
	double *us; /* each execution's time, microseconds */
};

/* One memory sample. */
struct ssample {
	unsigned after; /* iterations done */
	struct stress_mem mem;
	uint64_t allocs; /* the runtime's allocations so far */
};

static const unsigned schemes[] = {
        CCP_EXEC_S2,
        CCP_EXEC_S1,
        CCP_EXEC_S2 | CCP_EXEC_NO_BARRIER,
        CCP_EXEC_S1 | CCP_EXEC_NO_BARRIER,
};

/* Load, size and bind plan path on rank r; false with a message. */
static bool setup_plan(struct splan *p, ccp_context *ctx, int32_t r,
                       unsigned iters, const char *path)
{
	char err[300];
	memset(p, 0, sizeof *p);
	if (!check(tplan_load(&p->tp, path, err, sizeof err) == 0, "%s", err))
		return false;
	int rc = ccp_plan_load_file(ctx, path, r, &p->plan);
	if (!check(rc == 0, "%s: load: %s (%s)", p->tp.name, ccp_strerror(rc),
	           ccp_errmsg(ctx)))
		return false;
	ccp_plan_info info;
	ccp_plan_get_info(p->plan, &info);
	p->sb = tplan_send_bytes(&p->tp, r);
	p->rb = tplan_recv_bytes(&p->tp, r);
	if (!check(info.send_bytes == p->sb && info.recv_bytes == p->rb,
	           "%s: the plan wants send %" PRIu64 " recv %" PRIu64
	           " bytes, the collective %" PRIu64 " and %" PRIu64,
	           p->tp.name, info.send_bytes, info.recv_bytes, p->sb, p->rb))
		return false;
	p->send = malloc(p->sb + GUARD);
	p->recv = malloc(p->rb + GUARD);
	p->want = malloc(p->rb + p->sb + 1);
	p->us = malloc(iters * sizeof *p->us);
	if (!check(p->send && p->recv && p->want && p->us, "out of memory"))
		return false;
	/* touched now, so that filling it in does not show as RSS growth */
	memset(p->us, 0, iters * sizeof *p->us);
	rc = ccp_plan_bind(p->plan, p->sb ? p->send : NULL, p->sb,
	                   p->rb ? p->recv : NULL, p->rb, NULL, 0);
	return check(rc == 0, "%s: bind: %s (%s)", p->tp.name, ccp_strerror(rc),
	             ccp_errmsg(ctx));
}

static void free_plan(struct splan *p)
{
	ccp_plan_free(p->plan);
	tplan_fini(&p->tp);
	free(p->send);
	free(p->recv);
	free(p->want);
	free(p->us);
}

/* Execute p once as iteration it on rank r and check everything; false
 * when the execution itself failed (every rank then stops). */
static bool run_once(struct splan *p, ccp_context *ctx, ccp_transport *t,
                     int32_t r, unsigned it)
{
	uint8_t fill = (uint8_t)(0x3c + 29 * it);
	tplan_fill_send(&p->tp, r, it, p->send);
	memset(p->send + p->sb, 0x5a, GUARD);
	memset(p->recv, fill, p->rb + GUARD);
	double t0 = bench_now();
	int rc = ccp_plan_execute(p->plan, t, schemes[it % 4]);
	p->us[it] = 1e6 * (bench_now() - t0);
	if (!check(rc == 0, "%s iteration %u: execute: %s (%s)", p->tp.name, it,
	           ccp_strerror(rc), ccp_errmsg(ctx)))
		return false;
	tplan_expect_recv(&p->tp, r, it, p->want);
	int64_t d = first_diff(p->recv, p->want, p->rb);
	check(d < 0,
	      "%s iteration %u: recv byte %" PRId64 " of %" PRIu64
	      " is %02x, expected %02x",
	      p->tp.name, it, d, p->rb, d < 0 ? 0 : p->recv[d],
	      d < 0 ? 0 : p->want[d]);
	d = first_not(p->recv + p->rb, fill, GUARD);
	check(d < 0,
	      "%s iteration %u: byte %" PRId64 " past the recv buffer "
	      "was written",
	      p->tp.name, it, d);
	tplan_fill_send(&p->tp, r, it, p->want);
	d = first_diff(p->send, p->want, p->sb);
	check(d < 0 && first_not(p->send + p->sb, 0x5a, GUARD) < 0,
	      "%s iteration %u: the send buffer changed (byte %" PRId64 ")",
	      p->tp.name, it, d);
	return true;
}

/* ---- the rank's figures, and the report over every rank ------------- */

static void write_result(const char *dir, int32_t r, int32_t n,
                         const char *transport, unsigned iters,
                         struct splan *plans, int np, const struct ssample *s,
                         int ns, double seconds, bool alive)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/rank-%d", dir, (int)r);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return;
	}
	fprintf(f, "rank %d %d %s %u %d\n", (int)r, (int)n, transport, iters,
	        np);
	for (int k = 0; k < np; k++) {
		struct splan *p = &plans[k];
		unsigned done = alive ? iters : 0;
		double med = done ? bench_median(p->us, (int)done) : 0;
		fprintf(f, "plan %s %s %s %.1f\n", p->tp.name,
		        ir_coll_name(p->tp.ir.comm.coll), p->tp.ir.algorithm,
		        med);
	}
	for (int k = 0; k < ns; k++)
		fprintf(f,
		        "sample %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		        "\n",
		        s[k].after, s[k].mem.live, s[k].mem.rss,
		        s[k].mem.rss_trim, s[k].allocs);
	fprintf(f, "total %.3f %u %u %d\n", seconds, t_checks, t_failures,
	        alive ? 1 : 0);
	fclose(f);
}

/* What --report reads of one rank. */
struct rank_result {
	int n, np, ns, alive;
	char transport[32];
	unsigned iters, checks, failures;
	double seconds;
	char plan[MAX_PLANS][3][64];
	double med[MAX_PLANS];
	struct ssample s[MAX_SAMPLES];
};

static bool read_result(const char *dir, int r, struct rank_result *x)
{
	char path[4200], line[512];
	snprintf(path, sizeof path, "%s/rank-%d", dir, r);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	memset(x, 0, sizeof *x);
	x->alive = -1;
	while (fgets(line, sizeof line, f)) {
		int rr, np;
		unsigned long long a, b, c, d;
		unsigned after;
		/* the plan lines that follow count the plans */
		if (sscanf(line, "rank %d %d %31s %u %d", &rr, &x->n,
		           x->transport, &x->iters, &np) == 5)
			continue;
		else if (x->np < MAX_PLANS &&
		         sscanf(line, "plan %63s %63s %63s %lf",
		                x->plan[x->np][0], x->plan[x->np][1],
		                x->plan[x->np][2], &x->med[x->np]) == 4)
			x->np++;
		else if (x->ns < MAX_SAMPLES &&
		         sscanf(line, "sample %u %llu %llu %llu %llu", &after,
		                &a, &b, &c, &d) == 5)
			x->s[x->ns++] = (struct ssample){after, {a, b, c}, d};
		else
			sscanf(line, "total %lf %u %u %d", &x->seconds,
			       &x->checks, &x->failures, &x->alive);
	}
	fclose(f);
	return x->alive >= 0;
}

static int report(const char *dir)
{
	static struct rank_result res[MAX_RANKS];
	int n = 0;
	while (n < MAX_RANKS && read_result(dir, n, &res[n]))
		n++;
	if (n == 0 || n != res[0].n) {
		fprintf(stderr, "stress_run: %s: %d of %d ranks left results\n",
		        dir, n, n ? res[0].n : 0);
		return 1;
	}
	const struct rank_result *x = &res[0];
	bool bad = false;
	int64_t most = 0;        /* the largest live growth of a rank */
	bool unmeasured = false; /* live bytes mean nothing here */
	int64_t allowance =
	        strcmp(x->transport, "mpi") == 0 ? MPI_ALLOWANCE : 0;
	printf("%s transport, %d ranks, %u iterations of %d plans (%u "
	       "executions a rank)\n\n",
	       x->transport, n, x->iters, x->np, x->iters * (unsigned)x->np);
	printf("%-20s %-10s %-10s", "plan", "collective", "algorithm");
	for (int r = 0; r < n; r++)
		printf("  rank %d us", r);
	printf("   (median execution)\n");
	for (int k = 0; k < x->np; k++) {
		printf("%-20s %-10s %-10s", x->plan[k][0], x->plan[k][1],
		       x->plan[k][2]);
		for (int r = 0; r < n; r++)
			printf(" %10.1f", res[r].med[k]);
		printf("\n");
	}
	static const char *const what[] = {"live bytes (malloc)",
	                                   "RSS KiB after malloc_trim"};
	for (int w = 0; w < 2; w++) {
		printf("\n%-28s", what[w]);
		for (int r = 0; r < n; r++)
			printf("  %10s%d", "rank ", r);
		printf("\n");
		for (int k = 0; k < x->ns; k++) {
			printf("  after %8u iterations  ", x->s[k].after);
			for (int r = 0; r < n; r++) {
				const struct ssample *s = &res[r].s[k];
				uint64_t v = w == 0 ? s->mem.live
				                    : s->mem.rss_trim / 1024;
				printf(" %12" PRIu64, v);
			}
			printf("\n");
		}
	}
	printf("\n%-6s %8s %8s %7s %12s %11s %14s\n", "rank", "seconds",
	       "checks", "failed", "live growth", "RSS growth",
	       "runtime allocs");
	for (int r = 0; r < n; r++) {
		const struct rank_result *y = &res[r];
		int64_t live = 0, rss = 0, allocs = 0, total = 0;
		if (y->ns > 1) {
			const struct ssample *a = &y->s[0],
			                     *b = &y->s[y->ns - 1];
			live = (int64_t)b->mem.live - (int64_t)a->mem.live;
			rss = ((int64_t)b->mem.rss_trim -
			       (int64_t)a->mem.rss_trim) /
			      1024;
			allocs = (int64_t)(b->allocs - a->allocs);
			total = (int64_t)b->allocs;
		}
		/* the runtime's allocations: all of them, and (+N) those made
		 * after the warm-up */
		printf("%-6d %8.2f %8u %7u %+12" PRId64 " %+7" PRId64
		       " KiB %7" PRId64 " (%+" PRId64 ")\n",
		       r, y->seconds, y->checks, y->failures, live, rss, total,
		       allocs);
		if (live > most)
			most = live;
		if (y->ns > 0 && !stress_live_measured(&y->s[0].mem))
			unmeasured = true;
		else if (live > allowance)
			bad = true;
		if (y->failures || !y->alive || allocs != 0 || y->ns != x->ns)
			bad = true;
	}
	if (unmeasured)
		printf("\n(live bytes not judged: the allocator reports none, "
		       "a sanitizer build?)\n");
	if (allowance)
		printf("\n(live growth allowed under MPI: %" PRId64
		       " bytes, for Open MPI's buffers of unexpected "
		       "messages)\n",
		       allowance);
	if (bad)
		printf("\nFAILED: a check failed, the runtime allocated after "
		       "the first iteration, or live bytes grew\n");
	else if (most > 0)
		printf("\nevery result checked; the runtime allocated nothing, "
		       "the process grew by at most %" PRId64
		       " bytes (within the allowance)\n",
		       most);
	else if (unmeasured)
		printf("\nevery result checked; the runtime allocated nothing "
		       "after the first iteration\n");
	else
		printf("\nevery result checked, no growth\n");
	return bad ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: stress_run --transport sockets|mpi [-n N] "
	                "[--every K] [--warmup W]\n"
	                "                  --result DIR PLAN.ccp...\n"
	                "       stress_run --report DIR\n");
	exit(3);
}

int main(int argc, char **argv)
{
	const char *transport = NULL, *dir = NULL, *paths[MAX_PLANS];
	unsigned iters = 10000, every = 1000, warmup = 0;
	int np = 0;
	for (int a = 1; a < argc; a++) {
		const char *o = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
		if (o[0] != '-') {
			if (np == MAX_PLANS)
				usage();
			paths[np++] = o;
			continue;
		}
		if (!v)
			usage();
		a++;
		if (!strcmp(o, "--report"))
			return report(v);
		else if (!strcmp(o, "--transport"))
			transport = v;
		else if (!strcmp(o, "--result"))
			dir = v;
		else if (!strcmp(o, "-n"))
			iters = (unsigned)atoi(v);
		else if (!strcmp(o, "--every"))
			every = (unsigned)atoi(v);
		else if (!strcmp(o, "--warmup"))
			warmup = (unsigned)atoi(v);
		else
			usage();
	}
	bool mpi = transport && !strcmp(transport, "mpi");
	if (!transport || (!mpi && strcmp(transport, "sockets")) || !dir ||
	    np == 0 || iters < 1 || every < 1)
		usage();
	if (warmup == 0)
		warmup = every;
	t_prog = "stress_run";

	if (mpi)
		MPI_Init(&argc, &argv);
	struct counter allocs = {0, 0};
	ccp_context *ctx = NULL;
	ccp_transport *t = NULL;
	if (ccp_init(&ctx, counting_alloc, &allocs) != 0)
		return 3;
	int rc = mpi ? ccp_mpi_transport(ctx, MPI_COMM_WORLD, &t)
	             : ccp_socket_transport(ctx, NULL, &t);
	if (rc) {
		fprintf(stderr, "stress_run: %s transport: %s (%s)\n",
		        transport, ccp_strerror(rc), ccp_errmsg(ctx));
		return 3;
	}
	int32_t r = ccp_transport_rank(t), n = ccp_transport_size(t);
	t_rank = r;

	struct splan plans[MAX_PLANS];
	struct ssample samples[MAX_SAMPLES];
	int ns = 0;
	bool ok = true;
	for (int k = 0; k < np; k++)
		ok = setup_plan(&plans[k], ctx, r, iters, paths[k]) && ok;
	if (!ok) {
		printf("stress_run rank %d: set-up failed\n", (int)r);
		return 3;
	}

	bool alive = true;
	double spent = 0;
	uint64_t first = 0; /* the runtime's allocations after iteration 0 */
	for (unsigned it = 0; it < iters && alive; it++) {
		double t0 = bench_now();
		for (int k = 0; k < np && alive; k++)
			alive = run_once(&plans[k], ctx, t, r, it);
		spent += bench_now() - t0;
		if ((it + 1) % every == 0 && it + 1 >= warmup &&
		    ns < MAX_SAMPLES) {
			samples[ns].after = it + 1;
			samples[ns].allocs = allocs.calls;
			stress_mem_sample(&samples[ns].mem);
			ns++;
		}
		/* the runtime allocates on a plan's first execution only */
		if (it == 0)
			first = allocs.calls;
		else if (alive && it + 1 == iters)
			check(allocs.calls == first,
			      "the runtime made %" PRIu64 " allocations after "
			      "the first iteration",
			      allocs.calls - first);
	}
	write_result(dir, r, n, transport, iters, plans, np, samples, ns, spent,
	             alive);
	printf("stress_run rank %d/%d (%s): %u iterations of %d plans, %u "
	       "checks, %u failed, %.2f s\n",
	       (int)r, (int)n, transport, iters, np, t_checks, t_failures,
	       spent);
	fflush(stdout);

	for (int k = 0; k < np; k++)
		free_plan(&plans[k]);
	ccp_transport_free(t);
	ccp_fini(ctx);
	bool failed = t_failures != 0 || !alive;
	if (mpi) {
		failed = any_rank_failed() || failed;
		MPI_Finalize();
	}
	return failed ? 1 : 0;
}
