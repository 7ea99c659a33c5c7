/*
 * shmem_plans.c - the OpenSHMEM transport end to end, on every PE of one
 * oshrun (tests/shmem/shmem.cmake starts it at 2, 4 and 8 PEs).
 *
 * Usage: shmem_plans [-r REPS] SPEC...
 *   plan:FILE.ccp[,csv=M.csv][,dtype=T,op=O]
 *       run the plan under S2, S1, S2|NO_BARRIER and S1|NO_BARRIER, REPS
 *       times each (later runs with NO_CHECK), over three transports: the
 *       default landing zone, a tiny one (64-byte pieces, 3 slots, depth
 *       2: every message of more than 64 bytes goes in pieces under flow
 *       control) and CCP_SHMEM_DIRECT with symmetric buffers; after every
 *       run check every byte of the receive buffer, a guard after it, and
 *       that the send buffer is unchanged.  csv= is the irregular matrix
 *       (the file the YAML names), dtype/op the reduction.
 *   mismatch:A.ccp,B.ccp   even PEs load A, odd PEs B: every PE must get
 *       CCP_EMISMATCH, no byte may arrive, and A must then run fine.
 *   short:A.ccp   the last PE binds a buffer one byte short: every PE must
 *       get CCP_EBUFFER, no byte may arrive, and A must then run fine.
 *   transport   the operations table alone: every PE to every PE, several
 *       messages per pair and phase (0 bytes, small, larger than the
 *       landing zone), tags posted in different orders on the two sides,
 *       wait() on part of the requests; then a length mismatch that must
 *       fail with CCP_EPEER on both ends.
 *
 * The expected bytes come from the buffer layouts of ir/lower.c and a
 * pattern of (rank, offset), not from the plan.  Before shmem_finalize
 * every PE prints "RESULT rank R: N checks, F failed"; after it,
 * "FINALIZED rank R".  shmem_test.sh checks both on every PE.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shmem.h>

#include "ccplan.h"
#include "ccplan_shmem.h"
#include "transport.h"

static int me, npes;
static long checks, failures;
static long long *xch; /* symmetric: npes * 4 exchanged values */

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		checks++;                                                      \
		if (!(cond)) {                                                 \
			if (failures++ < 20) {                                 \
				fprintf(stderr, "FAIL rank %d: ", me);         \
				fprintf(stderr, __VA_ARGS__);                  \
				fputc('\n', stderr);                           \
			}                                                      \
		}                                                              \
	} while (0)

/* The byte at offset i of rank r's send buffer. */
static uint8_t pat(int r, uint64_t i)
{
	return (uint8_t)((uint64_t)(r + 1) * 37u + i * 11u + (i >> 8) * 3u +
	                 (i >> 16));
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Every PE's v[0..4) into xch[pe * 4 ..]. */
static void allgather4(const long long v[4])
{
	shmem_barrier_all();
	for (int pe = 0; pe < npes; pe++)
		shmem_longlong_put(xch + 4 * me, v, 4, pe);
	shmem_barrier_all();
}

/* ---- expected contents ---------------------------------------------- */

enum dt { DT_BYTE, DT_INT32, DT_INT64, DT_FLOAT, DT_DOUBLE };
enum rop { OP_SUM, OP_PROD, OP_MIN, OP_MAX };

struct spec {
	char file[512];
	char csv[512];
	int dtype, op; /* -1: none */
};

static size_t dt_size(int dt)
{
	static const size_t sz[] = {1, 4, 8, 4, 8};
	return sz[dt];
}

/* Element e of rank r's reduction input: small integers, so that every
 * sum and product is exact in every type. */
static long long red_val(int op, int r, uint64_t e)
{
	switch (op) {
	case OP_SUM:
		return (long long)(r + 1) * (long long)(e % 97 + 1);
	case OP_PROD:
		return ((r * 7 + e) % 5 == 0 ? -1 : 1) *
		       ((r + e) % 3 == 0 ? 2 : 1);
	default:
		return (long long)((r * 31 + e * 17) % 101) - 50;
	}
}

#define FOLD(T, acc, x, op)                                                    \
	do {                                                                   \
		T a_ = (T)(acc), b_ = (T)(x);                                  \
		switch (op) {                                                  \
		case OP_SUM:                                                   \
			a_ = (T)(a_ + b_);                                     \
			break;                                                 \
		case OP_PROD:                                                  \
			a_ = (T)(a_ * b_);                                     \
			break;                                                 \
		case OP_MIN:                                                   \
			a_ = b_ < a_ ? b_ : a_;                                \
			break;                                                 \
		case OP_MAX:                                                   \
			a_ = b_ > a_ ? b_ : a_;                                \
			break;                                                 \
		}                                                              \
		(acc) = a_;                                                    \
	} while (0)

/* Write element e (value v) of type dt at p. */
static void put_elem(uint8_t *p, int dt, long long v)
{
	uint8_t u8 = (uint8_t)v;
	int32_t i32 = (int32_t)v;
	int64_t i64 = v;
	float f = (float)v;
	double d = (double)v;
	const void *src[] = {&u8, &i32, &i64, &f, &d};
	memcpy(p, src[dt], dt_size(dt));
}

/* The reduction of element e over every rank, written at p. */
static void red_expect(uint8_t *p, int dt, int op, uint64_t e)
{
	switch (dt) {
	case DT_BYTE: {
		uint8_t a = (uint8_t)red_val(op, 0, e);
		for (int r = 1; r < npes; r++)
			FOLD(uint8_t, a, (uint8_t)red_val(op, r, e), op);
		memcpy(p, &a, 1);
		break;
	}
	case DT_INT32: {
		int32_t a = (int32_t)red_val(op, 0, e);
		for (int r = 1; r < npes; r++)
			FOLD(int32_t, a, red_val(op, r, e), op);
		memcpy(p, &a, 4);
		break;
	}
	case DT_INT64: {
		int64_t a = red_val(op, 0, e);
		for (int r = 1; r < npes; r++)
			FOLD(int64_t, a, red_val(op, r, e), op);
		memcpy(p, &a, 8);
		break;
	}
	case DT_FLOAT: {
		float a = (float)red_val(op, 0, e);
		for (int r = 1; r < npes; r++)
			FOLD(float, a, red_val(op, r, e), op);
		memcpy(p, &a, 4);
		break;
	}
	case DT_DOUBLE: {
		double a = (double)red_val(op, 0, e);
		for (int r = 1; r < npes; r++)
			FOLD(double, a, red_val(op, r, e), op);
		memcpy(p, &a, 8);
		break;
	}
	}
}

/* Read an n x n dense CSV matrix (blank and # lines skipped). */
static long long *read_csv(const char *path, int n)
{
	FILE *f = fopen(path, "r");
	long long *m = calloc((size_t)n * n, sizeof *m);
	char line[4096];
	int row = 0;
	if (!f || !m) {
		CHECK(0, "cannot read %s", path);
		if (f)
			fclose(f);
		free(m);
		return NULL;
	}
	while (row < n && fgets(line, sizeof line, f)) {
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\0')
			continue;
		for (int c = 0; c < n; c++) {
			m[(size_t)row * n + c] = strtoll(p, &p, 10);
			while (*p == ' ' || *p == '\t' || *p == ',')
				p++;
		}
		row++;
	}
	fclose(f);
	CHECK(row == n, "%s: %d rows, expected %d", path, row, n);
	return m;
}

/* What one PE sends and must end with, for one plan. */
struct job {
	ccp_plan *plan;
	ccp_plan_info info;
	uint64_t send_len, recv_len;
	uint8_t *send, *recv, *want; /* want: NULL where recv is unused */
	uint8_t *sent;               /* the send buffer as filled */
	uint8_t *scratch;
	size_t scratch_len;
	bool sym; /* buffers on the symmetric heap */
	size_t sym_send, sym_recv, sym_scratch; /* their symmetric sizes */
};

#define GUARD 64
#define FILL  0xEE

/* Load spec's plan, allocate and fill the buffers, compute the expected
 * receive buffer unless the PEs run different plans (mixed).  sym:
 * symmetric buffers (collective). */
static int job_new(struct job *j, ccp_context *ctx, const struct spec *sp,
                   bool sym, bool mixed)
{
	memset(j, 0, sizeof *j);
	int rc = ccp_plan_load_file(ctx, sp->file, me, &j->plan);
	CHECK(rc == 0, "load %s: %s", sp->file, ccp_errmsg(ctx));
	long long v[4] = {0, 0, 0, rc};
	if (rc == 0) {
		ccp_plan_get_info(j->plan, &j->info);
		v[0] = (long long)j->info.send_bytes;
		v[1] = (long long)j->info.recv_bytes;
		v[2] = (long long)j->info.scratch_bytes;
	}
	allgather4(v);
	long long maxs[3] = {0, 0, 0};
	for (int pe = 0; pe < npes; pe++) {
		if (xch[4 * pe + 3])
			rc = -1;
		for (int k = 0; k < 3; k++)
			if (xch[4 * pe + k] > maxs[k])
				maxs[k] = xch[4 * pe + k];
	}
	if (rc)
		return -1; /* on every PE */
	const char *coll = j->info.collective;
	int n = npes, root = -1;
	j->send_len = j->info.send_bytes;
	j->recv_len = j->info.recv_bytes;
	j->sym = sym;
	if (sym) {
		j->sym_send = (size_t)maxs[0] + 1;
		j->sym_recv = (size_t)maxs[1] + GUARD;
		j->sym_scratch = (size_t)maxs[2] + 1;
		j->send = shmem_malloc(j->sym_send);
		j->recv = shmem_malloc(j->sym_recv);
		j->scratch = shmem_malloc(j->sym_scratch);
		j->scratch_len = j->sym_scratch;
		CHECK(j->send && j->recv && j->scratch, "shmem_malloc");
		CHECK(shmem_addr_accessible(j->recv, (me + 1) % n),
		      "a shmem_malloc'd buffer is not accessible");
	} else {
		j->send = malloc(j->send_len + 1);
		j->recv = malloc(j->recv_len + GUARD);
	}
	j->want = malloc(j->recv_len + 1);
	if (!j->send || !j->recv || !j->want)
		abort();

	/* the roots: the one PE with a send (scatter, broadcast) or a
	 * receive (gather, reduce) buffer */
	bool by_send = !strcmp(coll, "broadcast") || !strcmp(coll, "scatter");
	for (int pe = 0; pe < n; pe++)
		if (xch[4 * pe + (by_send ? 0 : 1)] > 0)
			root = root < 0 ? pe : -2;
	uint64_t sb = j->send_len, rb = j->recv_len;
	uint8_t *w = j->want;
	bool use_want = !mixed;
	if (mixed) {
		memset(j->send, 0, j->send_len);
		coll = "none";
	}

	bool reduces = !strcmp(coll, "reduce") || !strcmp(coll, "allreduce") ||
	               !strcmp(coll, "reduce_scatter");
	if (reduces) {
		CHECK(sp->dtype >= 0, "%s: %s without dtype=", sp->file, coll);
		size_t es = dt_size(sp->dtype >= 0 ? sp->dtype : 0);
		for (uint64_t e = 0; e < sb / es; e++)
			put_elem(j->send + e * es, sp->dtype,
			         red_val(sp->op, me, e));
		/* reduce_scatter: this PE's block follows those of the PEs
		 * before it */
		uint64_t first = 0;
		for (int pe = 0; !strcmp(coll, "reduce_scatter") && pe < me;
		     pe++)
			first += (uint64_t)xch[4 * pe + 1] / es;
		if (me == root || strcmp(coll, "reduce"))
			for (uint64_t e = 0; e < rb / es; e++)
				red_expect(w + e * es, sp->dtype, sp->op,
				           first + e);
		else
			use_want = false; /* recv unused off the root */
	} else {
		for (uint64_t i = 0; i < sb; i++)
			j->send[i] = pat(me, i);
	}
	if (!strcmp(coll, "broadcast")) {
		/* zero bytes: no PE has a buffer, no root to find */
		CHECK(root >= 0 || (root == -1 && rb == 0),
		      "broadcast: no single root");
		CHECK(root < 0 || rb == (uint64_t)xch[4 * root],
		      "broadcast: recv %llu", (unsigned long long)rb);
		for (uint64_t i = 0; i < rb && root >= 0; i++)
			w[i] = pat(root, i);
	} else if (!strcmp(coll, "scatter")) {
		CHECK(root >= 0 || (root == -1 && rb == 0),
		      "scatter: no single root");
		uint64_t b = (uint64_t)xch[4 * (root < 0 ? 0 : root)] / n;
		CHECK(rb == b, "scatter: recv %llu, block %llu",
		      (unsigned long long)rb, (unsigned long long)b);
		for (uint64_t i = 0; i < rb; i++)
			w[i] = pat(root, (uint64_t)me * b + i);
	} else if (!strcmp(coll, "gather")) {
		CHECK(root >= 0, "gather: no single root");
		if (me == root) {
			CHECK(rb == sb * n, "gather: recv %llu",
			      (unsigned long long)rb);
			for (uint64_t i = 0; i < rb; i++)
				w[i] = pat((int)(i / sb), i % sb);
		} else {
			use_want = false;
		}
	} else if (!strcmp(coll, "allgather")) {
		CHECK(rb == sb * n, "allgather: recv %llu",
		      (unsigned long long)rb);
		for (uint64_t i = 0; i < rb; i++)
			w[i] = pat((int)(i / sb), i % sb);
	} else if (!strcmp(coll, "alltoall")) {
		uint64_t b = sb / n;
		CHECK(rb == sb && sb % n == 0, "alltoall: %llu/%llu",
		      (unsigned long long)sb, (unsigned long long)rb);
		for (uint64_t i = 0; i < rb; i++)
			w[i] = pat((int)(i / b), (uint64_t)me * b + i % b);
	} else if (!strcmp(coll, "irregular")) {
		long long *m = read_csv(sp->csv, n);
		if (m) {
			uint64_t rows = 0, cols = 0, roff = 0;
			for (int d = 0; d < n; d++)
				rows += (uint64_t)m[(size_t)me * n + d];
			for (int s = 0; s < n; s++) {
				uint64_t len = (uint64_t)m[(size_t)s * n + me];
				uint64_t soff = 0;
				for (int d = 0; d < me; d++)
					soff += (uint64_t)m[(size_t)s * n + d];
				for (uint64_t i = 0; i < len && roff + i < rb;
				     i++)
					w[roff + i] = pat(s, soff + i);
				roff += len;
				cols += len;
			}
			CHECK(sb == rows && rb == cols,
			      "irregular: send %llu recv %llu, matrix %llu "
			      "%llu",
			      (unsigned long long)sb, (unsigned long long)rb,
			      (unsigned long long)rows,
			      (unsigned long long)cols);
			free(m);
		}
	} else if (!reduces && !mixed) {
		CHECK(0, "%s: collective %s not checked here", sp->file, coll);
	}
	j->sent = malloc(j->send_len + 1);
	if (!j->sent)
		abort();
	memcpy(j->sent, j->send, j->send_len);
	if (!use_want) {
		free(j->want);
		j->want = NULL;
	}
	return 0;
}

static void job_free(struct job *j)
{
	ccp_plan_free(j->plan);
	if (j->sym) { /* collective, every PE the same order */
		shmem_free(j->scratch);
		shmem_free(j->recv);
		shmem_free(j->send);
	} else {
		free(j->send);
		free(j->recv);
	}
	free(j->want);
	free(j->sent);
}

static void clear_recv(struct job *j)
{
	memset(j->recv, FILL, j->recv_len + GUARD);
}

/* Every received byte, the guard, the send buffer. */
static void check_job(const struct job *j, const char *what)
{
	uint64_t bad = 0, first = 0;
	if (j->want)
		for (uint64_t i = 0; i < j->recv_len; i++)
			if (j->recv[i] != j->want[i] && !bad++)
				first = i;
	checks++;
	if (bad) {
		CHECK(0, "%s: %llu wrong bytes, first at %llu: %02x, want %02x",
		      what, (unsigned long long)bad, (unsigned long long)first,
		      j->recv[first], j->want[first]);
	}
	for (int i = 0; i < GUARD; i++)
		if (j->recv[j->recv_len + i] != FILL) {
			CHECK(0, "%s: guard byte %d overwritten", what, i);
			break;
		}
	if (j->sent) {
		uint64_t sbad = 0;
		for (uint64_t i = 0; i < j->send_len; i++)
			sbad += j->send[i] != j->sent[i];
		CHECK(sbad == 0, "%s: send buffer changed", what);
	}
}

static int parse_spec(const char *arg, struct spec *sp)
{
	static const char *const dts[] = {"byte", "int32", "int64", "float",
	                                  "double"};
	static const char *const ops[] = {"sum", "prod", "min", "max"};
	char buf[1024];
	memset(sp, 0, sizeof *sp);
	sp->dtype = sp->op = -1;
	snprintf(buf, sizeof buf, "%s", arg);
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!sp->file[0])
			snprintf(sp->file, sizeof sp->file, "%s", tok);
		else if (!strncmp(tok, "csv=", 4))
			snprintf(sp->csv, sizeof sp->csv, "%s", tok + 4);
		else if (!strncmp(tok, "dtype=", 6)) {
			for (int k = 0; k < 5; k++)
				if (!strcmp(tok + 6, dts[k]))
					sp->dtype = k;
		} else if (!strncmp(tok, "op=", 3)) {
			for (int k = 0; k < 4; k++)
				if (!strcmp(tok + 3, ops[k]))
					sp->op = k;
		} else
			return -1;
	}
	return sp->file[0] && (sp->dtype < 0) == (sp->op < 0) ? 0 : -1;
}

/* ---- plans ----------------------------------------------------------- */

static const struct {
	unsigned flags;
	const char *name;
} modes[] = {
        {CCP_EXEC_S2, "S2"},
        {CCP_EXEC_S1, "S1"},
        {CCP_EXEC_S2 | CCP_EXEC_NO_BARRIER, "S2/nobarrier"},
        {CCP_EXEC_S1 | CCP_EXEC_NO_BARRIER, "S1/nobarrier"},
};

static void run_plan(ccp_context *ctx, ccp_transport *t, const char *tname,
                     const struct spec *sp, int reps, bool sym)
{
	struct job j;
	if (job_new(&j, ctx, sp, sym, false) < 0)
		return;
	int rc = ccp_plan_bind(j.plan, j.send, j.send_len, j.recv, j.recv_len,
	                       j.scratch, j.scratch_len);
	CHECK(rc == 0, "%s: bind: %s", sp->file, ccp_errmsg(ctx));
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		double t0 = 0, total = 0;
		for (int r = 0; r < reps; r++) {
			char what[700];
			snprintf(what, sizeof what, "%s [%s, %s, run %d]",
			         sp->file, tname, modes[m].name, r + 1);
			unsigned fl = modes[m].flags;
			if (r > 0 && (fl & CCP_EXEC_NO_BARRIER))
				fl |= CCP_EXEC_NO_CHECK;
			clear_recv(&j);
			t0 = now_us();
			if (r % 2 == 0) {
				rc = ccp_plan_execute(j.plan, t, fl);
			} else { /* start, test until done */
				int done = 0;
				rc = ccp_plan_start(j.plan, t, fl);
				while (!rc && !done)
					rc = ccp_plan_test(j.plan, &done);
			}
			total += now_us() - t0;
			CHECK(rc == 0, "%s: execute: %s (%s)", what,
			      ccp_strerror(rc), ccp_errmsg(ctx));
			if (rc)
				break;
			check_job(&j, what);
		}
		if (me == 0)
			printf("rank 0: %-44s %-9s %-12s %8.1f us/run\n",
			       strrchr(sp->file, '/')
			               ? strrchr(sp->file, '/') + 1
			               : sp->file,
			       tname, modes[m].name, total / reps);
	}
	shmem_barrier_all();
	job_free(&j);
}

/* Even PEs run a, odd PEs b: everyone must get CCP_EMISMATCH. */
static void run_mismatch(ccp_context *ctx, ccp_transport *t,
                         const struct spec *a, const struct spec *b)
{
	struct job j;
	if (job_new(&j, ctx, me % 2 ? b : a, false, true) < 0)
		return;
	int rc = ccp_plan_bind(j.plan, j.send, j.send_len, j.recv, j.recv_len,
	                       NULL, 0);
	CHECK(rc == 0, "mismatch: bind: %s", ccp_errmsg(ctx));
	for (size_t m = 0; m < 2; m++) {
		clear_recv(&j);
		rc = ccp_plan_execute(j.plan, t, modes[m].flags);
		CHECK(rc == CCP_EMISMATCH, "mismatch [%s]: got %s (%s)",
		      modes[m].name, ccp_strerror(rc), ccp_errmsg(ctx));
		uint64_t moved = 0;
		for (uint64_t i = 0; i < j.recv_len + GUARD; i++)
			moved += j.recv[i] != FILL;
		CHECK(moved == 0, "mismatch: %llu bytes arrived",
		      (unsigned long long)moved);
	}
	shmem_barrier_all();
	job_free(&j);
	/* the transport is still good */
	run_plan(ctx, t, "after-mismatch", a, 1, false);
}

/* The last PE binds a short buffer: everyone must get CCP_EBUFFER. */
static void run_short(ccp_context *ctx, ccp_transport *t, const struct spec *a)
{
	struct job j;
	if (job_new(&j, ctx, a, false, false) < 0)
		return;
	bool shorty = me == npes - 1;
	uint64_t rl = j.recv_len, sl = j.send_len;
	if (shorty && rl)
		rl--;
	else if (shorty)
		sl--; /* the plan gives this PE no receive buffer */
	CHECK(!shorty || rl + sl < j.recv_len + j.send_len,
	      "short: nothing to shorten on the last PE");
	int rc = ccp_plan_bind(j.plan, j.send, sl, j.recv, rl, NULL, 0);
	CHECK(rc == (shorty ? CCP_EBUFFER : 0), "short: bind gave %s",
	      ccp_strerror(rc));
	for (size_t m = 0; m < 2; m++) {
		clear_recv(&j);
		rc = ccp_plan_execute(j.plan, t, modes[m].flags);
		CHECK(rc == CCP_EBUFFER, "short [%s]: got %s (%s)",
		      modes[m].name, ccp_strerror(rc), ccp_errmsg(ctx));
		uint64_t moved = 0;
		for (uint64_t i = 0; i < j.recv_len + GUARD; i++)
			moved += j.recv[i] != FILL;
		CHECK(moved == 0, "short: %llu bytes arrived",
		      (unsigned long long)moved);
	}
	/* bound properly, the same plan runs */
	rc = ccp_plan_bind(j.plan, j.send, j.send_len, j.recv, j.recv_len, NULL,
	                   0);
	CHECK(rc == 0, "short: rebind: %s", ccp_errmsg(ctx));
	clear_recv(&j);
	rc = ccp_plan_execute(j.plan, t, CCP_EXEC_DEFAULT);
	CHECK(rc == 0, "short: after rebind: %s", ccp_errmsg(ctx));
	if (rc == 0)
		check_job(&j, "short: after rebind");
	shmem_barrier_all();
	job_free(&j);
}

/* ---- the operations table alone -------------------------------------- */

/* Bytes of message k from s to d in round `round`: 0, small, and larger
 * than the tiny landing zone (64-byte slots). */
static size_t msg_len(int s, int d, int k, int round)
{
	static const size_t base[] = {0, 1, 200, 777, 5000};
	return base[(s + d + k + round) % 5] + (size_t)k * 3;
}

#define KPAIR 3 /* messages per ordered pair and phase */

static void run_transport(ccp_context *ctx, ccp_transport *t, const char *tname)
{
	const struct ccp_transport_ops *T = t->ops;
	int n = npes;
	size_t cap = 0;
	for (int s = 0; s < n; s++)
		for (int k = 0; k < KPAIR; k++)
			for (int round = 0; round < 4; round++) {
				size_t l = msg_len(s, me, k, round) + 8;
				cap = l > cap ? l : cap;
			}
	uint8_t *in = malloc((size_t)n * KPAIR * cap);
	uint8_t *out = malloc((size_t)n * KPAIR * cap);
	uint8_t tok[2];
	if (!in || !out)
		abort();
	for (int round = 0; round < 4; round++) {
		uint32_t phase = (uint32_t)round;
		int rc, first_ready = -1, nready = 0;
		memset(in, FILL, (size_t)n * KPAIR * cap);
		/* receives: data in k order, then a READY token from each
		 * peer; odd rounds post the tokens first */
		for (int pass = 0; pass < 2; pass++) {
			bool tokens = (pass == 0) == (round % 2 == 1);
			for (int p = 0; p < n; p++) {
				if (p == me)
					continue;
				if (tokens) {
					rc = T->irecv(t, p, phase,
					              CCP_TAG_READY, tok, 0);
					CHECK(rc >= 0, "irecv ready: %s",
					      ccp_errmsg(ctx));
					if (first_ready < 0)
						first_ready = rc;
					nready++;
					continue;
				}
				for (int k = 0; k < KPAIR; k++) {
					size_t l = msg_len(p, me, k, round);
					uint8_t *b = in + ((size_t)p * KPAIR +
					                   k) * cap;
					rc = T->irecv(t, p, phase, CCP_TAG_DATA,
					              b, l);
					CHECK(rc >= 0, "irecv: %s",
					      ccp_errmsg(ctx));
				}
			}
		}
		/* sends: the tokens, then the data; round 2 sends the data
		 * first; round 3 waits for the tokens before sending */
		if (round == 3) {
			for (int p = 0; p < n; p++)
				if (p != me) {
					rc = T->isend(t, p, phase,
					              CCP_TAG_READY, tok + 1,
					              0);
					CHECK(rc >= 0, "isend ready: %s",
					      ccp_errmsg(ctx));
				}
			/* round 3 is odd: its READY receives were posted
			 * first, together, so they are one range */
			rc = T->wait(t, first_ready, nready);
			CHECK(rc == 0, "wait: %s", ccp_errmsg(ctx));
		}
		for (int pass = 0; pass < 2; pass++) {
			bool tokens = (pass == 0) != (round == 2);
			if (round == 3 && tokens)
				continue; /* sent already */
			for (int p = 0; p < n; p++) {
				if (p == me)
					continue;
				if (tokens) {
					rc = T->isend(t, p, phase,
					              CCP_TAG_READY, tok + 1,
					              0);
					CHECK(rc >= 0, "isend ready: %s",
					      ccp_errmsg(ctx));
					continue;
				}
				for (int k = 0; k < KPAIR; k++) {
					size_t l = msg_len(me, p, k, round);
					uint8_t *b = out + ((size_t)p * KPAIR +
					                    k) * cap;
					for (size_t i = 0; i < l; i++)
						b[i] = pat(me * 131 + p * 7 +
						                   k + round,
						           i);
					rc = T->isend(t, p, phase, CCP_TAG_DATA,
					              b, l);
					CHECK(rc >= 0, "isend: %s",
					      ccp_errmsg(ctx));
				}
			}
		}
		rc = T->waitall(t);
		CHECK(rc == 0, "waitall [%s round %d]: %s", tname, round,
		      ccp_errmsg(ctx));
		uint64_t bad = 0;
		for (int p = 0; p < n; p++)
			for (int k = 0; k < KPAIR && p != me; k++) {
				size_t l = msg_len(p, me, k, round);
				const uint8_t *b =
				        in + ((size_t)p * KPAIR + k) * cap;
				for (size_t i = 0; i < l; i++)
					bad += b[i] !=
					       pat(p * 131 + me * 7 + k + round,
					           i);
				bad += b[l] != FILL;
			}
		CHECK(bad == 0, "transport [%s round %d]: %llu wrong bytes",
		      tname, round, (unsigned long long)bad);
		/* the next round reuses the buffers: everyone done first */
		rc = T->barrier(t);
		CHECK(rc == 0, "barrier: %s", ccp_errmsg(ctx));
	}
	free(in);
	free(out);
}

/* A message of the right tag but another length: CCP_EPEER on both
 * sides, and the transport refuses everything afterwards. */
static void run_length_mismatch(ccp_context *ctx)
{
	ccp_transport *t;
	int rc = ccp_shmem_transport(ctx, &t);
	CHECK(rc == 0, "transport: %s", ccp_errmsg(ctx));
	if (rc)
		return;
	const struct ccp_transport_ops *T = t->ops;
	uint8_t buf[64] = {0};
	if (me == 0) {
		/* the refusal comes from isend when the receive is already
		 * announced, else from waitall */
		rc = T->isend(t, 1, 7, CCP_TAG_DATA, buf, 10);
		CHECK(rc == 0 || rc == CCP_EPEER, "isend: %s", ccp_errmsg(ctx));
		if (rc == 0)
			rc = T->waitall(t);
		CHECK(rc == CCP_EPEER, "sender of a wrong length: %s",
		      ccp_strerror(rc));
	} else if (me == 1) {
		rc = T->irecv(t, 0, 7, CCP_TAG_DATA, buf, 12);
		CHECK(rc == 0, "irecv: %s", ccp_errmsg(ctx));
		rc = T->waitall(t);
		CHECK(rc == CCP_EPEER, "receiver of a wrong length: %s",
		      ccp_strerror(rc));
	}
	if (me < 2) {
		rc = T->barrier(t);
		CHECK(rc == CCP_EPEER, "a broken transport's barrier: %s",
		      ccp_strerror(rc));
	}
	shmem_barrier_all();
	ccp_transport_free(t);
}

int main(int argc, char **argv)
{
	int reps = 3;
	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	xch = shmem_malloc((size_t)npes * 4 * sizeof *xch);
	int a = 1;
	if (a + 1 < argc && !strcmp(argv[a], "-r")) {
		reps = atoi(argv[a + 1]);
		a += 2;
	}
	ccp_context *ctx;
	if (ccp_init(&ctx, NULL, NULL) || !xch)
		abort();

	static const struct {
		const char *name;
		struct ccp_shmem_config cfg;
		bool sym;
	} confs[] = {
	        {"default", {0, 0, 0, 30000, 0}, false},
	        {"tiny", {64, 3, 2, 30000, 0}, false},
	        {"direct", {0, 0, 0, 30000, CCP_SHMEM_DIRECT}, true},
	};
	double t0 = now_us();
	for (size_t c = 0; c < sizeof confs / sizeof confs[0]; c++) {
		ccp_transport *t;
		int rc = ccp_shmem_transport_config(ctx, &confs[c].cfg, &t);
		CHECK(rc == 0, "transport %s: %s", confs[c].name,
		      ccp_errmsg(ctx));
		if (rc)
			continue;
		CHECK(ccp_transport_rank(t) == me &&
		              ccp_transport_size(t) == npes &&
		              !strcmp(ccp_transport_name(t), "shmem"),
		      "transport rank/size/name");
		for (int i = a; i < argc; i++) {
			struct spec sp, sp2;
			const char *arg = argv[i];
			if (!strncmp(arg, "plan:", 5)) {
				CHECK(parse_spec(arg + 5, &sp) == 0,
				      "bad spec %s", arg);
				run_plan(ctx, t, confs[c].name, &sp, reps,
				         confs[c].sym);
			} else if (!strcmp(arg, "transport")) {
				if (!confs[c].sym)
					run_transport(ctx, t, confs[c].name);
			} else if (c == 0 && !strncmp(arg, "mismatch:", 9)) {
				char two[1024], *comma;
				snprintf(two, sizeof two, "%s", arg + 9);
				comma = strchr(two, ',');
				CHECK(comma, "bad spec %s", arg);
				if (!comma)
					continue;
				*comma = '\0';
				parse_spec(two, &sp);
				parse_spec(comma + 1, &sp2);
				run_mismatch(ctx, t, &sp, &sp2);
			} else if (c == 0 && !strncmp(arg, "short:", 6)) {
				CHECK(parse_spec(arg + 6, &sp) == 0,
				      "bad spec %s", arg);
				run_short(ctx, t, &sp);
			} else if (strncmp(arg, "mismatch:", 9) &&
			           strncmp(arg, "short:", 6)) {
				CHECK(0, "unknown spec %s", arg);
			}
		}
		ccp_transport_free(t);
	}
	/* a different landing zone on one PE: refused everywhere */
	{
		struct ccp_shmem_config odd = {me == npes - 1 ? 128 : 256, 4, 2,
		                               0, 0};
		ccp_transport *t = NULL;
		int rc = ccp_shmem_transport_config(ctx, &odd, &t);
		CHECK(rc == CCP_EINVAL && !t, "different configs: %s",
		      ccp_strerror(rc));
	}
	if (npes >= 2)
		run_length_mismatch(ctx);
	ccp_fini(ctx);
	shmem_barrier_all();
	printf("RESULT rank %d: %ld checks, %ld failed (%.2f s)\n", me, checks,
	       failures, (now_us() - t0) / 1e6);
	fflush(stdout);
	shmem_free(xch);
	shmem_finalize();
	printf("FINALIZED rank %d\n", me);
	return failures ? 1 : 0;
}
