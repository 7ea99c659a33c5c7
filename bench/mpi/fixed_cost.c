/*
 * fixed_cost.c - ccplan-fixed-cost: what one execution of a plan costs
 * beyond the MPI calls it makes (docs/bench-mpi.md, "The fixed cost of
 * an execution").
 *
 *     mpirun -n N build/bench/ccplan-fixed-cost PLAN.ccp [ROUNDS [ITERS]]
 *
 * Every rank runs its slice of the plan in several ways, taking turns
 * (each way first in turn), ROUNDS times ITERS executions each, with a
 * barrier before each execution:
 *
 *   plan       ccp_plan_execute (CCP_EXEC_DEFAULT | CCP_EXEC_NO_CHECK)
 *   raw        the slice's operations as bare MPI_Irecv / MPI_Isend /
 *              MPI_Waitall(MPI_STATUSES_IGNORE), the prologue's copies
 *              as memmove
 *   +status    raw with a status per request and MPI_Get_count compared
 *              with every receive's length (the runtime's check)
 *   +wait1     raw+status with MPI_Wait for a group of one request
 *   +blocking  raw+status with MPI_Send / MPI_Recv for a group of one
 *              message
 *   +cpu       raw with a busy loop before the first post (its time on
 *              this host is printed)
 *   transport  raw through the MPI transport's own calls (irecv, isend,
 *              waitall: its checks and bookkeeping) without the engine
 *
 * An execution's time is the slowest rank's; a round's figure is the
 * mean of its fastest 90% (the median steps by the clock's 10 ns here);
 * the table gives the median over the rounds and their range, and each
 * way's ratio to raw, round by round.  Then, on rank 0, the engine alone
 * over a transport whose calls do nothing: the median and range of 21
 * timings of 10^6 executions.
 *
 * It takes plans whose messages are one piece each and that combine
 * nothing (a broadcast, scatter, gather or alltoall of the `binomial`,
 * `linear` or `direct` kind); the data are not checked (ccplan-bench
 * and the MPI tests do that).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ccplan.h"
#include "ccplan_mpi.h"
#include "codec.h"
#include "ir.h"
#include "transport.h"

enum way { PLAN, RAW, STATUS, WAIT1, BLOCKING, CPU, TRANSPORT, NWAYS };
static const char *const way_name[NWAYS] = {
        "plan", "raw", "+status", "+wait1", "+blocking", "+cpu", "transport"};

/* Everything one rank's ways share. */
struct rank_state {
	ir_slice s;
	MPI_Comm comm;
	uint8_t *base[3]; /* send, recv, scratch */
	MPI_Request *req;
	MPI_Status *st;
	ccp_transport *t;
	int spin; /* iterations of the +cpu loop */
};

static void die(const char *what, const char *why)
{
	fprintf(stderr, "ccplan-fixed-cost: %s: %s\n", what, why);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

static void busy(int n)
{
	for (volatile int i = 0; i < n; i++)
		;
}

/* Whether the group's receive i came with its length. */
static void check_count(const MPI_Status *st, const ir_op *o)
{
	int got = 0;
	MPI_Get_count(st, MPI_BYTE, &got);
	if (got != (int)o->bytes)
		die("receive", "a message of the wrong length");
}

/* One execution of the slice by way w (not PLAN); 0 or an MPI error. */
static int run_raw(struct rank_state *R, enum way w)
{
	const ir_slice *s = &R->s;
	int k = 0, rc = MPI_SUCCESS;
	uint32_t group = 0; /* the group's PHASE */
	if (w == CPU)
		busy(R->spin);
	for (uint32_t i = 0; i < s->nops && rc == MPI_SUCCESS; i++) {
		const ir_op *o = &s->ops[i];
		const ir_iov *v = &s->iovs[o->iov];
		static uint8_t none;
		uint8_t *at = o->niov ? R->base[v->buf] + v->off : &none;
		int tag = (int)(o->phase % 16384u) * 2; /* <= 32767 */
		bool alone = i == group + 1 && s->ops[i + 1].code == IR_OP_WAIT;
		switch (o->code) {
		case IR_OP_COPY:
			memmove(R->base[v[1].buf] + v[1].off, at,
			        (size_t)v->len);
			break;
		case IR_OP_PHASE:
			group = i;
			break;
		case IR_OP_RECV:
			if (w == TRANSPORT) {
				rc = R->t->ops->irecv(R->t, o->peer, o->phase,
				                      CCP_TAG_DATA, at,
				                      (size_t)o->bytes) < 0;
			} else if (w == BLOCKING && alone) {
				rc = MPI_Recv(at, (int)o->bytes, MPI_BYTE,
				              o->peer, tag, R->comm, R->st);
				check_count(R->st, o);
				i++; /* its WAIT */
			} else {
				rc = MPI_Irecv(at, (int)o->bytes, MPI_BYTE,
				               o->peer, tag, R->comm,
				               &R->req[k++]);
			}
			break;
		case IR_OP_SEND:
			if (w == TRANSPORT) {
				rc = R->t->ops->isend(R->t, o->peer, o->phase,
				                      CCP_TAG_DATA, at,
				                      (size_t)o->bytes) < 0;
			} else if (w == BLOCKING && alone) {
				rc = MPI_Send(at, (int)o->bytes, MPI_BYTE,
				              o->peer, tag, R->comm);
				i++;
			} else {
				rc = MPI_Isend(at, (int)o->bytes, MPI_BYTE,
				               o->peer, tag, R->comm,
				               &R->req[k++]);
			}
			break;
		case IR_OP_WAIT:
			if (w == TRANSPORT) {
				rc = R->t->ops->waitall(R->t) < 0;
				break;
			}
			if (w == RAW || w == CPU)
				rc = MPI_Waitall(k, R->req,
				                 MPI_STATUSES_IGNORE);
			else if (w == WAIT1 && k == 1)
				rc = MPI_Wait(R->req, R->st);
			else
				rc = MPI_Waitall(k, R->req, R->st);
			for (uint32_t j = group + 1, q = 0;
			     j < i && w != RAW && w != CPU; j++)
				if (s->ops[j].code == IR_OP_RECV)
					check_count(&R->st[q++], &s->ops[j]);
				else
					q++;
			k = 0;
			break;
		default:
			die("plan", "an operation this program does not take");
		}
	}
	return rc;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The mean of the fastest 90% of n times (sorted here). */
static double fast_mean(double *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, by_value);
	int m = n - n / 10;
	double sum = 0;
	for (int i = 0; i < m; i++)
		sum += t[i];
	return sum / m;
}

/* ---- the engine over a transport that does nothing ------------------ */

static int null_next;
static int null_agree(ccp_transport *t, uint64_t hash, int status, int *global)
{
	(void)t;
	(void)hash;
	*global = status;
	return 0;
}
static int null_barrier(ccp_transport *t)
{
	(void)t;
	return 0;
}
static int null_post(ccp_transport *t, int32_t peer, uint32_t phase,
                     enum ccp_tag_kind kind, void *buf, size_t len)
{
	(void)t, (void)peer, (void)phase, (void)kind, (void)buf, (void)len;
	return null_next++;
}
static int null_send(ccp_transport *t, int32_t peer, uint32_t phase,
                     enum ccp_tag_kind kind, const void *buf, size_t len)
{
	(void)buf;
	return null_post(t, peer, phase, kind, NULL, len);
}
static int null_wait(ccp_transport *t, int first, int count)
{
	(void)t, (void)first, (void)count;
	return 0;
}
static int null_waitall(ccp_transport *t)
{
	(void)t;
	null_next = 0;
	return 0;
}
static int null_prepare(ccp_transport *t, const struct ccp_post *q,
                        uint32_t n)
{
	(void)t, (void)q, (void)n;
	return 0;
}
static int null_start(ccp_transport *t, const struct ccp_post *q, uint32_t n)
{
	(void)t, (void)q;
	int first = null_next;
	null_next += (int)n;
	return first;
}
static void null_destroy(ccp_transport *t)
{
	free(t);
}
static const struct ccp_transport_ops null_ops = {
        .name = "null",
        .agree = null_agree,
        .barrier = null_barrier,
        .irecv = null_post,
        .isend = null_send,
        .wait = null_wait,
        .waitall = null_waitall,
        .prepare = null_prepare,
        .start = null_start,
        .destroy = null_destroy,
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Nanoseconds per execution of rank's slice over the null transport:
 * median, min and max of 21 timings. */
static void engine_alone(const uint8_t *img, size_t len, int rank, int size,
                         double out[3])
{
	ccp_context *ctx;
	ccp_plan *p;
	ccp_plan_info in;
	if (ccp_init(&ctx, NULL, NULL) ||
	    ccp_plan_load_memory(ctx, img, len, rank, &p) ||
	    ccp_plan_get_info(p, &in))
		die("engine alone", "cannot load the plan");
	ccp_transport *t = calloc(1, sizeof *t);
	uint8_t *sb = calloc(in.send_bytes + 1, 1);
	uint8_t *rb = calloc(in.recv_bytes + 1, 1);
	if (!t || !sb || !rb)
		die("engine alone", "out of memory");
	*t = (ccp_transport){
	        .ops = &null_ops, .ctx = ctx, .rank = rank, .size = size};
	if (ccp_plan_bind(p, sb, in.send_bytes, rb, in.recv_bytes, NULL, 0) ||
	    ccp_plan_execute(p, t, CCP_EXEC_DEFAULT))
		die("engine alone", ccp_errmsg(ctx));
	enum { N = 1000000, K = 21 };
	double ns[K];
	for (int k = 0; k < K; k++) {
		double t0 = now();
		for (int i = 0; i < N; i++)
			if (ccp_plan_execute(
			            p, t, CCP_EXEC_DEFAULT | CCP_EXEC_NO_CHECK))
				die("engine alone", ccp_errmsg(ctx));
		ns[k] = (now() - t0) / N * 1e9;
	}
	qsort(ns, K, sizeof *ns, by_value);
	out[0] = ns[K / 2];
	out[1] = ns[0];
	out[2] = ns[K - 1];
	ccp_plan_free(p);
	ccp_transport_free(t);
	ccp_fini(ctx);
	free(sb);
	free(rb);
}

/* The whole file at path, or die. */
static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die(path, "cannot open");
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = n > 0 ? malloc((size_t)n) : NULL;
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
		die(path, "cannot read");
	fclose(f);
	*len = (size_t)n;
	return b;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2 || argc > 4 || !strcmp(argv[1], "--help")) {
		if (rank == 0)
			printf("usage: mpirun -n N ccplan-fixed-cost PLAN.ccp "
			       "[ROUNDS [ITERS]]\n");
		MPI_Finalize();
		return argc < 2 || argc > 4;
	}
	int rounds = argc > 2 ? atoi(argv[2]) : 20;
	int iters = argc > 3 ? atoi(argv[3]) : 2000;
	if (rounds < 1 || rounds > 1000 || iters < 10 || iters > 1000000)
		die("arguments", "ROUNDS 1-1000, ITERS 10-1000000");
	size_t len;
	uint8_t *img = read_all(argv[1], &len);
	struct rank_state R = {.spin = 40};
	char err[256];
	if (ir_slice_from_image(img, len, rank, &R.s, NULL, err, sizeof err))
		die(argv[1], err);
	for (uint32_t i = 0; i < R.s.nops; i++) {
		const ir_op *o = &R.s.ops[i];
		if (o->code == IR_OP_RECV_REDUCE ||
		    ((o->code == IR_OP_SEND || o->code == IR_OP_RECV) &&
		     o->niov > 1))
			die(argv[1], "a plan that combines or sends pieces; "
			             "take a broadcast, scatter, gather or "
			             "alltoall of whole blocks");
	}
	MPI_Comm_dup(MPI_COMM_WORLD, &R.comm);
	ccp_context *ctx;
	ccp_plan *p;
	ccp_plan_info in;
	if (ccp_init(&ctx, NULL, NULL) ||
	    ccp_mpi_transport(ctx, MPI_COMM_WORLD, &R.t) ||
	    ccp_plan_load_memory(ctx, img, len, rank, &p) ||
	    ccp_plan_get_info(p, &in))
		die("plan", ccp_errmsg(ctx));
	R.base[0] = calloc(in.send_bytes + 1, 1);
	R.base[1] = calloc(in.recv_bytes + 1, 1);
	R.base[2] = calloc(in.scratch_bytes + 1, 1);
	R.req = calloc(R.s.nops + 1, sizeof *R.req);
	R.st = calloc(R.s.nops + 1, sizeof *R.st);
	double *t = calloc((size_t)NWAYS * rounds * iters, sizeof *t);
	double *tmax = calloc((size_t)NWAYS * rounds * iters, sizeof *t);
	if (!R.base[0] || !R.base[1] || !R.base[2] || !R.req || !R.st || !t ||
	    !tmax)
		die("memory", "out of memory");
	if (ccp_plan_bind(p, R.base[0], in.send_bytes, R.base[1], in.recv_bytes,
	                  R.base[2], in.scratch_bytes) ||
	    ccp_plan_execute(p, R.t, CCP_EXEC_DEFAULT))
		die("plan", ccp_errmsg(ctx));
	double t0 = now();
	for (int i = 0; i < 100000; i++)
		busy(R.spin);
	double spin_ns = (now() - t0) / 100000 * 1e9;

	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < NWAYS; k++) {
			enum way w = (enum way)((k + r) % NWAYS);
			double *out = t + ((size_t)w * rounds + r) * iters;
			for (int i = 0; i < iters; i++) {
				MPI_Barrier(MPI_COMM_WORLD);
				double a = MPI_Wtime();
				int rc =
				        w == PLAN
				                ? ccp_plan_execute(
				                          p, R.t,
				                          CCP_EXEC_DEFAULT |
				                                  CCP_EXEC_NO_CHECK)
				                : run_raw(&R, w);
				out[i] = MPI_Wtime() - a;
				if (rc)
					die(way_name[w],
					    w == PLAN ? ccp_errmsg(ctx)
					              : "an MPI call "
					                "failed");
			}
		}
	MPI_Reduce(t, tmax, NWAYS * rounds * iters, MPI_DOUBLE, MPI_MAX, 0,
	           MPI_COMM_WORLD);
	double alone[3];
	engine_alone(img, len, rank, size, alone);
	if (rank == 0) {
		double *m = calloc((size_t)NWAYS * rounds, sizeof *m);
		double *ratio = calloc((size_t)rounds, sizeof *ratio);
		if (!m || !ratio)
			die("memory", "out of memory");
		for (int w = 0; w < NWAYS; w++)
			for (int r = 0; r < rounds; r++)
				m[w * rounds + r] = fast_mean(
				        tmax + ((size_t)w * rounds + r) * iters,
				        iters);
		printf("ccplan-fixed-cost: %s, %d ranks, %d rounds of %d "
		       "executions; microseconds, the slowest rank's, mean of "
		       "the fastest 90%% of a round\n",
		       argv[1], size, rounds, iters);
		printf("%-10s %8s %17s %8s %15s\n", "way", "us", "(range)",
		       "/raw", "(range)");
		for (int w = 0; w < NWAYS; w++) {
			double *mw = m + w * rounds;
			for (int r = 0; r < rounds; r++)
				ratio[r] = mw[r] / m[RAW * rounds + r];
			qsort(ratio, (size_t)rounds, sizeof *ratio, by_value);
			double med = ratio[rounds / 2], lo = ratio[0],
			       hi = ratio[rounds - 1];
			qsort(mw, (size_t)rounds, sizeof *mw, by_value);
			printf("%-10s %8.3f %8.3f-%-8.3f %8.3f %7.3f-%.3f\n",
			       way_name[w], mw[rounds / 2] * 1e6, mw[0] * 1e6,
			       mw[rounds - 1] * 1e6, med, lo, hi);
		}
		printf("+cpu: a loop of %.1f ns on rank 0\n", spin_ns);
		printf("the engine alone, rank 0's slice over a transport that "
		       "does nothing: %.1f ns per execution (%.1f-%.1f)\n",
		       alone[0], alone[1], alone[2]);
		free(m);
		free(ratio);
	}
	ccp_plan_free(p);
	ccp_transport_free(R.t);
	ccp_fini(ctx);
	ir_slice_fini(&R.s);
	MPI_Comm_free(&R.comm);
	for (int b = 0; b < 3; b++)
		free(R.base[b]);
	free(R.req);
	free(R.st);
	free(t);
	free(tmax);
	free(img);
	MPI_Finalize();
	return 0;
}
