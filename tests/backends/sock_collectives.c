/*
 * sock_collectives.c - one rank of a sockets-transport test job, started
 * by `ccplan run` (tests/backends/sockets_test.sh).
 *
 * It loads its slice of PLAN.ccp, binds buffers (the send buffer filled
 * with a pattern that depends on rank, offset and execution), executes
 * the plan several times under each scheme (S2, S1, each with and
 * without phase barriers, and S2 with NO_CHECK) and checks every byte of
 * its receive buffer against what the collective must deliver, computed
 * independently from the communication recorded in the plan file (root,
 * block size, element type and operation, matrix).  It also checks that
 * the send buffer is untouched and that nothing is written past the
 * receive buffer.
 *
 * Fault mode (--fail-loop K): execute up to K times and stop at the first
 * error, reporting its code and how long the failing call took; the
 * script asserts every rank got an error.  --alt and --short make the
 * ranks disagree (another plan; a short receive buffer).  --alias binds
 * one buffer as every rank's send and receive buffer: the bind must be
 * refused (CCP_EINVAL), and the execution then fails on every rank with
 * no byte of the buffer changed (else rc -1002).  --gate FILE
 * waits, once the transport is made, until FILE exists (so that a test
 * can attack the job at that point); --any-sockets skips the count of the
 * sockets the rank holds (strangers' connections add to it).
 *
 * Every rank prints one line "rank R: rc=N ms=T: message" and, with
 * --result DIR, writes it to DIR/rank-R.  Exit status: 0 all executions
 * passed, 1 an execution failed, 2 wrong data, 3 set-up failed.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ccplan.h"
#include "ccplan_sockets.h"
#include "codec.h"
#include "ir.h"

#define GUARD 64 /* bytes past the receive buffer that must stay intact */

static int32_t me = -1;
static unsigned long nalloc; /* blocks allocated or grown by the runtime */

/* The context's allocator: counts, so that the test can assert that an
 * execution after the first allocates nothing. */
static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	(void)ud;
	(void)osize;
	if (nsize == 0) {
		free(ptr);
		return NULL;
	}
	nalloc++;
	return realloc(ptr, nsize);
}

/* Sockets this process holds (Linux /proc), or -1 when unknown. */
static int count_sockets(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char path[300], target[64];
		snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
		ssize_t l = readlink(path, target, sizeof target - 1);
		if (l > 0) {
			target[l] = '\0';
			n += strncmp(target, "socket:", 7) == 0;
		}
	}
	closedir(d);
	return n;
}

/* The ranks rank me exchanges messages with in the plan. */
static int count_peers(const ir_plan *p)
{
	int32_t n = p->machine.nranks, k = 0;
	char *seen = calloc((size_t)n, 1);
	if (!seen)
		return -1;
	for (uint32_t i = 0; i < p->ntransfers; i++) {
		const ir_transfer *x = &p->transfers[i];
		int32_t other = x->src == me   ? x->dst
		                : x->dst == me ? x->src
		                               : me;
		if (other != me && !seen[other]) {
			seen[other] = 1;
			k++;
		}
	}
	free(seen);
	return k;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The send pattern: every byte depends on rank, offset and execution. */
static uint8_t pat(int32_t r, uint64_t off, unsigned it)
{
	uint64_t x = (uint64_t)(uint32_t)r * UINT64_C(0x9e3779b97f4a7c15) ^
	             (off + 1) * UINT64_C(0xbf58476d1ce4e5b9) ^
	             (uint64_t)(it + 1) * UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	x *= UINT64_C(0xd6e8feb86659fd93);
	x ^= x >> 32;
	return (uint8_t)x;
}

/* Reduce inputs: small integers, so every combination is exact. */
static int64_t rval(int32_t r, uint64_t k, unsigned it, int op)
{
	if (op == IR_OP_PROD)
		return 1 + (int64_t)((r + k + it) % 3);
	return (int64_t)(((uint64_t)r * 7 + k * 3 + it * 5) % 11) - 5;
}

static size_t dt_size(int dt)
{
	return dt == IR_DT_BYTE                         ? 1
	       : dt == IR_DT_INT32 || dt == IR_DT_FLOAT ? 4
	                                                : 8;
}

#define COMBINE(T, a, b, op)                                                   \
	((op) == IR_OP_SUM    ? (T)((a) + (b))                                 \
	 : (op) == IR_OP_PROD ? (T)((a) * (b))                                 \
	 : (op) == IR_OP_MIN  ? ((b) < (a) ? (b) : (a))                        \
	                      : ((b) > (a) ? (b) : (a)))

/* Element k of rank r's reduce vector, or (r < 0) of the result over n
 * ranks, stored at out. */
static void relem(int dt, int op, int32_t r, int32_t n, uint64_t k, unsigned it,
                  uint8_t *out)
{
#define ELEM(T)                                                                \
	do {                                                                   \
		T v = (T)rval(r < 0 ? 0 : r, k, it, op);                       \
		for (int32_t q = 1; r < 0 && q < n; q++) {                     \
			T w = (T)rval(q, k, it, op);                           \
			v = COMBINE(T, v, w, op);                              \
		}                                                              \
		memcpy(out, &v, sizeof v);                                     \
	} while (0)
	switch (dt) {
	case IR_DT_BYTE:
		ELEM(uint8_t);
		break;
	case IR_DT_INT32:
		ELEM(int32_t);
		break;
	case IR_DT_INT64:
		ELEM(int64_t);
		break;
	case IR_DT_FLOAT:
		ELEM(float);
		break;
	default:
		ELEM(double);
		break;
	}
#undef ELEM
}

/* The collective, as recorded in the plan file. */
struct coll {
	ir_plan p;
	int32_t n;
	uint64_t *soff; /* irregular: offset of each matrix entry in its
	                   sender's buffer (CSR order) */
	uint64_t most;  /* the most bytes any rank receives */
};

static int64_t transpose_src(const ir_machine *m, int32_t d)
{
	int32_t x = d % m->dims[0], y = d / m->dims[0];
	return y + (int64_t)m->dims[0] * x;
}

/* Fill rank me's send buffer for execution it. */
static void fill_send(const struct coll *c, uint8_t *buf, uint64_t len,
                      unsigned it)
{
	const ir_comm *cm = &c->p.comm;
	if (ir_coll_kind(cm->coll) & IR_CK_REDUCES) {
		size_t es = dt_size(cm->dtype);
		for (uint64_t k = 0; k < len / es; k++)
			relem(cm->dtype, cm->op, me, c->n, k, it, buf + k * es);
		return;
	}
	for (uint64_t o = 0; o < len; o++)
		buf[o] = pat(me, o, it);
}

/* The bytes rank me must hold in its receive buffer after execution it;
 * returns their number (the rest of the buffer is not the plan's). */
static uint64_t expect(const struct coll *c, uint8_t *e, unsigned it)
{
	const ir_comm *cm = &c->p.comm;
	uint64_t B = (uint64_t)cm->bytes, len = 0;
	int32_t n = c->n, root = cm->root;
	switch (cm->coll) {
	case IR_BCAST:
		for (uint64_t o = 0; o < B; o++)
			e[o] = pat(root, o, it);
		return B;
	case IR_SCATTER:
		for (uint64_t o = 0; o < B; o++)
			e[o] = pat(root, (uint64_t)me * B + o, it);
		return B;
	case IR_GATHER:
		if (me != root)
			return 0;
		for (int32_t r = 0; r < n; r++)
			for (uint64_t o = 0; o < B; o++)
				e[(uint64_t)r * B + o] = pat(r, o, it);
		return (uint64_t)n * B;
	case IR_REDUCE: {
		if (me != root)
			return 0;
		size_t es = dt_size(cm->dtype);
		for (uint64_t k = 0; k < B / es; k++)
			relem(cm->dtype, cm->op, -1, n, k, it, e + k * es);
		return B;
	}
	case IR_ALLREDUCE: {
		size_t es = dt_size(cm->dtype);
		for (uint64_t k = 0; k < B / es; k++)
			relem(cm->dtype, cm->op, -1, n, k, it, e + k * es);
		return B;
	}
	case IR_REDUCE_SCATTER: { /* rank me's element block: the first
		                     E mod n blocks one element longer */
		size_t es = dt_size(cm->dtype);
		uint64_t E = B / es, q = E / (uint64_t)n, m = E % (uint64_t)n;
		uint64_t at = (uint64_t)me * q + ((uint64_t)me < m ? (uint64_t)me : m);
		uint64_t cnt = q + ((uint64_t)me < m);
		for (uint64_t k = 0; k < cnt; k++)
			relem(cm->dtype, cm->op, -1, n, at + k, it, e + k * es);
		return cnt * es;
	}
	case IR_ALLGATHER:
		for (int32_t s = 0; s < n; s++)
			for (uint64_t o = 0; o < B; o++)
				e[(uint64_t)s * B + o] = pat(s, o, it);
		return (uint64_t)n * B;
	case IR_ALLTOALL:
		for (int32_t s = 0; s < n; s++)
			for (uint64_t o = 0; o < B; o++)
				e[(uint64_t)s * B + o] =
				        pat(s, (uint64_t)me * B + o, it);
		return (uint64_t)n * B;
	case IR_TRANSPOSE: {
		int32_t s = (int32_t)transpose_src(&c->p.machine, me);
		for (uint64_t o = 0; o < B; o++)
			e[o] = pat(s, o, it);
		return B;
	}
	case IR_IRREGULAR: {
		const ir_matrix *x = cm->matrix;
		for (int32_t s = 0; s < n; s++)
			for (int64_t k = x->row[s]; k < x->row[s + 1]; k++) {
				if (x->dst[k] != me)
					continue;
				for (int64_t o = 0; o < x->bytes[k]; o++)
					e[len + (uint64_t)o] =
					        pat(s, c->soff[k] + (uint64_t)o,
					            it);
				len += (uint64_t)x->bytes[k];
			}
		return len;
	}
	}
	return 0;
}

static int load_coll(const char *path, struct coll *c)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *img = malloc((size_t)sz);
	if (!img || fread(img, 1, (size_t)sz, f) != (size_t)sz) {
		fclose(f);
		free(img);
		return -1;
	}
	fclose(f);
	ir_file_info fi;
	char err[200];
	int rc = ir_plan_decode(img, (size_t)sz, &c->p, &fi, err, sizeof err);
	free(img);
	if (rc) {
		fprintf(stderr, "rank %d: %s: %s\n", (int)me, path, err);
		return -1;
	}
	c->n = c->p.machine.nranks;
	c->soff = NULL;
	c->most = (uint64_t)c->n * (uint64_t)c->p.comm.bytes;
	if (c->p.comm.coll == IR_IRREGULAR) {
		const ir_matrix *x = c->p.comm.matrix;
		c->soff = calloc((size_t)x->nnz + 1, sizeof *c->soff);
		if (!c->soff)
			return -1;
		uint64_t *col = calloc((size_t)x->n, sizeof *col);
		if (!col)
			return -1;
		for (int32_t s = 0; s < x->n; s++) {
			uint64_t off = 0;
			for (int64_t k = x->row[s]; k < x->row[s + 1]; k++) {
				c->soff[k] = off;
				off += (uint64_t)x->bytes[k];
				col[x->dst[k]] += (uint64_t)x->bytes[k];
			}
		}
		for (int32_t d = 0; d < x->n; d++)
			if (col[d] > c->most)
				c->most = col[d];
		free(col);
	}
	return 0;
}

static FILE *result_file(const char *dir)
{
	if (!dir)
		return NULL;
	char path[4096];
	snprintf(path, sizeof path, "%s/rank-%d", dir, (int)me);
	return fopen(path, "w");
}

static void report(const char *dir, int rc, double ms, const char *msg)
{
	printf("rank %d: rc=%d ms=%.0f: %s\n", (int)me, rc, ms, msg);
	fflush(stdout);
	FILE *f = result_file(dir);
	if (f) {
		fprintf(f, "rc=%d ms=%.0f msg=%s\n", rc, ms, msg);
		fclose(f);
	}
}

/* --alias: one buffer bound as send and receive buffer.  The bind must
 * be refused, the execution fail (on every rank: the script checks), and
 * no byte of the buffer change.  Reports the execution's code, or -1002
 * when the bind was accepted or a byte changed. */
static int run_aliased(const char *dir, ccp_context *ctx, ccp_transport *t,
                       ccp_plan *plan, const struct coll *c, uint64_t sb,
                       uint64_t rb)
{
	size_t n = (size_t)(sb > rb ? sb : rb);
	uint8_t *buf = malloc(n + 1), *was = malloc(n + 1);
	if (!buf || !was)
		return 3;
	memset(buf, 0x5c, n + 1);
	fill_send(c, buf, sb, 0);
	memcpy(was, buf, n + 1);
	int brc =
	        ccp_plan_bind(plan, buf, (size_t)sb, buf, (size_t)rb, NULL, 0);
	char bmsg[256], msg[640];
	snprintf(bmsg, sizeof bmsg, "%s", ccp_errmsg(ctx));
	double s = now_ms();
	int rc = ccp_plan_execute(plan, t, CCP_EXEC_DEFAULT);
	double ms = now_ms() - s;
	bool same = memcmp(buf, was, n + 1) == 0;
	snprintf(msg, sizeof msg, "bind %d (%s), execute %s: %s, buffer %s",
	         brc, bmsg, ccp_strerror(rc), ccp_errmsg(ctx),
	         same ? "unchanged" : "CHANGED");
	report(dir, brc == CCP_EINVAL && same ? rc : -1002, ms, msg);
	free(buf);
	free(was);
	return rc ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr,
	        "usage: sock_collectives [-i K] [--fail-loop K] [--alt R:FILE] "
	        "[--short R] [--alias]\n"
	        "                        [--gate FILE] [--any-sockets] "
	        "[--result DIR] PLAN.ccp\n");
	exit(3);
}

int main(int argc, char **argv)
{
	int iters = 3, fail_loop = 0, alt_rank = -1, short_rank = -1;
	bool alias = false;
	int any_sockets = 0;
	const char *alt = NULL, *dir = NULL, *path = NULL, *gate = NULL;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-i") && a + 1 < argc)
			iters = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--fail-loop") && a + 1 < argc)
			fail_loop = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--alt") && a + 1 < argc) {
			char *colon;
			alt_rank = (int)strtol(argv[++a], &colon, 10);
			if (*colon != ':')
				usage();
			alt = colon + 1;
		} else if (!strcmp(argv[a], "--short") && a + 1 < argc)
			short_rank = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--alias"))
			alias = true;
		else if (!strcmp(argv[a], "--result") && a + 1 < argc)
			dir = argv[++a];
		else if (!strcmp(argv[a], "--gate") && a + 1 < argc)
			gate = argv[++a];
		else if (!strcmp(argv[a], "--any-sockets"))
			any_sockets = 1;
		else if (argv[a][0] != '-' && !path)
			path = argv[a];
		else
			usage();
	}
	if (!path || iters < 1)
		usage();

	ccp_context *ctx;
	ccp_transport *t;
	if (ccp_init(&ctx, counting_alloc, NULL))
		return 3;
	int rc = ccp_socket_transport(ctx, NULL, &t);
	if (rc) {
		fprintf(stderr, "transport: %s: %s\n", ccp_strerror(rc),
		        ccp_errmsg(ctx));
		report(dir, rc, 0, ccp_errmsg(ctx));
		ccp_fini(ctx);
		return 3;
	}
	me = ccp_transport_rank(t);
	for (int w = 0; gate && access(gate, F_OK) != 0; w++) {
		if (w == 3000) { /* 60 s */
			fprintf(stderr, "rank %d: no %s\n", (int)me, gate);
			return 3;
		}
		nanosleep(&(struct timespec){0, 20000000}, NULL);
	}

	struct coll c;
	if (load_coll(path, &c)) {
		fprintf(stderr, "rank %d: cannot read %s\n", (int)me, path);
		return 3;
	}
	ccp_plan *plan;
	const char *mine = me == alt_rank ? alt : path;
	if ((rc = ccp_plan_load_file(ctx, mine, me, &plan))) {
		fprintf(stderr, "rank %d: load %s: %s\n", (int)me, mine,
		        ccp_errmsg(ctx));
		return 3;
	}
	ccp_plan_info info;
	ccp_plan_get_info(plan, &info);
	uint64_t rb = info.recv_bytes, sb = info.send_bytes;
	uint64_t ecap = c.most + 1;
	if (me == short_rank && rb == 0)
		usage();
	if (alias)
		return run_aliased(dir, ctx, t, plan, &c, sb, rb);
	uint8_t *send = malloc(sb + 1), *recv = malloc(rb + GUARD);
	uint8_t *want = malloc(ecap), *sref = malloc(sb + 1);
	if (!send || !recv || !want || !sref)
		return 3;
	rc = ccp_plan_bind(plan, send, sb, recv, me == short_rank ? rb - 1 : rb,
	                   NULL, 0);
	if (rc && me != short_rank) {
		fprintf(stderr, "rank %d: bind: %s\n", (int)me,
		        ccp_errmsg(ctx));
		return 3;
	}

	static const unsigned schemes[] = {CCP_EXEC_S2, CCP_EXEC_S1,
	                                   CCP_EXEC_S2 | CCP_EXEC_NO_BARRIER,
	                                   CCP_EXEC_S1 | CCP_EXEC_NO_BARRIER,
	                                   CCP_EXEC_S2 | CCP_EXEC_NO_CHECK};
	int nschemes = fail_loop ? 1 : (int)(sizeof schemes / sizeof *schemes);
	int total = fail_loop ? fail_loop : iters;
	unsigned it = 0;
	double t0 = now_ms(), worst = 0, spent = 0;
	char msg[512] = "ok";
	int status = 0;
	for (int sc = 0; sc < nschemes && !status; sc++)
		for (int k = 0; k < total && !status; k++, it++) {
			fill_send(&c, send, sb, it);
			memcpy(sref, send, sb);
			uint8_t sentinel = (uint8_t)(0xa5 + 37 * it);
			memset(recv, sentinel, rb + GUARD);
			unsigned long before = nalloc;
			double s = now_ms();
			/* every other execution without blocking: start,
			 * test until done (faults then meet test or wait) */
			if (k % 2 == 0) {
				rc = ccp_plan_execute(plan, t, schemes[sc]);
			} else {
				int done = 0;
				rc = ccp_plan_start(plan, t, schemes[sc]);
				for (int n = 0; !rc && !done && n < 1000; n++)
					rc = ccp_plan_test(plan, &done);
				if (!rc && !done)
					rc = ccp_plan_wait(plan);
			}
			double ms = now_ms() - s;
			spent += ms;
			if (rc == 0 && k > 0 && nalloc != before) {
				snprintf(msg, sizeof msg,
				         "execution %u (not the first of its "
				         "scheme) allocated %lu blocks",
				         it, nalloc - before);
				report(dir, -1001, ms, msg);
				status = 2;
				break;
			}
			if (ms > worst)
				worst = ms;
			if (rc) {
				snprintf(msg, sizeof msg,
				         "%s (%s) at execution %u: %s",
				         ccp_strerror(rc),
				         fail_loop ? "fault mode" : "scheme",
				         it, ccp_errmsg(ctx));
				report(dir, rc, ms, msg);
				status = 1;
				break;
			}
			uint64_t el = expect(&c, want, it);
			if (el > rb) {
				snprintf(msg, sizeof msg,
				         "recv buffer is %llu bytes, the "
				         "collective delivers %llu",
				         (unsigned long long)rb,
				         (unsigned long long)el);
				status = 2;
			}
			for (uint64_t o = 0; !status && o < rb + GUARD; o++) {
				uint8_t w = o < el ? want[o] : sentinel;
				if (recv[o] != w) {
					snprintf(msg, sizeof msg,
					         "scheme %d execution %u: "
					         "recv[%llu] "
					         "is %02x, expected %02x%s",
					         sc, it, (unsigned long long)o,
					         recv[o], w,
					         o >= el ? " (past the "
					                   "delivered "
					                   "bytes)"
					                 : "");
					status = 2;
				}
			}
			if (!status && memcmp(send, sref, sb) != 0) {
				snprintf(msg, sizeof msg,
				         "execution %u wrote into the send "
				         "buffer",
				         it);
				status = 2;
			}
			if (status)
				report(dir, -1000, ms, msg);
		}
	/* the control connection and the listening socket (under ccplan
	 * run), and one connection per peer the plan names */
	int socks = count_sockets(), peers = count_peers(&c.p);
	int own = getenv(CCP_SOCK_ENV_SIZE) ? 2 : 0;
	if (!status && !fail_loop && !any_sockets && socks >= 0 &&
	    socks != own + peers) {
		snprintf(
		        msg, sizeof msg,
		        "holds %d sockets; the plan names %d peers, so %d + %d "
		        "were expected",
		        socks, peers, own, peers);
		report(dir, -1002, 0, msg);
		status = 2;
	}
	if (!status) {
		snprintf(msg, sizeof msg,
		         "ok: %u executions of %s/%s (%d ranks, recv %llu "
		         "bytes, "
		         "%d peers) in %.0f ms, executing %.2f ms on average, "
		         "slowest %.2f ms",
		         it, info.collective, info.algorithm, (int)info.nranks,
		         (unsigned long long)rb, peers, now_ms() - t0,
		         spent / it, worst);
		report(dir, 0, now_ms() - t0, msg);
	}
	ccp_plan_free(plan);
	ccp_transport_free(t);
	ccp_fini(ctx);
	ir_plan_fini(&c.p);
	free(c.soff);
	free(send);
	free(recv);
	free(want);
	free(sref);
	return status;
}
