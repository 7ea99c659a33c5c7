/*
 * test_engine.c - the runtime's engine, run for real: every generator on
 * every machine and collective it applies to is compiled (generate,
 * verify, lower, encode), then executed by one thread per rank through
 * the public API (ccp_plan_load_memory, bind, execute) under every
 * scheme, and every byte each rank ends with is compared with what the
 * collective means.
 *
 * Each S2 scheme runs twice, the second time over loopback transports
 * with prepared groups (the engine's one-call-per-group path).
 *
 * The threads talk through the loopback transport (tests/support/
 * loopback.c), a test double of the backends: one locked queue of eager
 * messages, matched by (source, destination, phase, kind) in posting
 * order as transport.h requires, which fails every rank instead of
 * hanging when their operations do not match.  The real backends are
 * tested by their own programs (tests/runtime, tests/mpi, tests/shmem).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "ccplan.h"
#include "codec.h"
#include "ir.h"
#include "model.h"
#include "sched.h"
#include "support.h"
#include "support/loopback.h"
#include "transport.h"

/* ---- what every rank must end with ---------------------------------- */

static unsigned char pattern(int32_t r, uint64_t off)
{
	return (unsigned char)(r * 131 + off * 7 + 1);
}

/* Value of element i of rank r's reduce input. */
static double reduce_in(int32_t r, uint64_t i)
{
	return (double)((r * 3 + (int64_t)i) % 17) - 5;
}

struct job {
	const uint8_t *img;
	size_t len;
	const ir_comm *c;
	const ir_machine *m;
	unsigned flags;
	int32_t rank;
	char fail[256]; /* "" when the rank's result was right */
};

/* Fill rank r's send buffer. */
static void fill_send(const struct job *j, unsigned char *s, uint64_t n)
{
	if (ir_coll_kind(j->c->coll) & IR_CK_REDUCES) {
		bool i32 = j->c->dtype == IR_DT_INT32;
		for (uint64_t i = 0; i < n / (i32 ? 4 : 8); i++) {
			double v = reduce_in(j->rank, i);
			int32_t x = (int32_t)v;
			if (i32)
				memcpy(s + 4 * i, &x, 4);
			else
				memcpy(s + 8 * i, &v, 8);
		}
		return;
	}
	for (uint64_t o = 0; o < n; o++)
		s[o] = pattern(j->rank, o);
}

/* Offset of (s,d) in s's send buffer (packed by destination) or in d's
 * receive buffer (packed by source). */
static uint64_t irr_off(const ir_matrix *x, int32_t s, int32_t d, bool recv)
{
	uint64_t off = 0;
	if (!recv) {
		for (int64_t k = x->row[s]; k < x->row[s + 1] && x->dst[k] < d;
		     k++)
			off += (uint64_t)x->bytes[k];
		return off;
	}
	for (int32_t q = 0; q < s; q++)
		off += (uint64_t)ir_matrix_get(x, q, d);
	return off;
}

/* The byte at off of rank r's receive buffer, or -1 when the collective
 * leaves it unspecified. */
static int expect_byte(const struct job *j, uint64_t off)
{
	const ir_comm *c = j->c;
	int32_t r = j->rank, n = j->m->nranks;
	uint64_t b = (uint64_t)c->bytes;
	switch (c->coll) {
	case IR_BCAST:
		return pattern(c->root, off);
	case IR_SCATTER:
		return pattern(c->root, (uint64_t)r * b + off);
	case IR_GATHER:
		return pattern((int32_t)(off / b), off % b);
	case IR_ALLTOALL:
		return pattern((int32_t)(off / b), (uint64_t)r * b + off % b);
	case IR_TRANSPOSE: {
		int co[IR_MAX_CUBE_DIM];
		ir_coords(j->m, r, co);
		int t = co[0];
		co[0] = co[1];
		co[1] = t;
		return pattern(ir_rank_of(j->m, co), off);
	}
	case IR_ALLGATHER:
		return pattern((int32_t)(off / b), off % b);
	case IR_IRREGULAR: {
		const ir_matrix *x = c->matrix;
		for (int32_t s = 0; s < n; s++) {
			uint64_t o = irr_off(x, s, r, true);
			uint64_t len = (uint64_t)ir_matrix_get(x, s, r);
			if (off >= o && off < o + len)
				return pattern(s, irr_off(x, s, r, false) +
				                          off - o);
		}
		return -1;
	}
	case IR_REDUCE:
	case IR_REDUCE_SCATTER:
	case IR_ALLREDUCE:
		break; /* check_reduce */
	}
	return -1;
}

/* n bytes of a reduction's result, from element first of the vector. */
static void check_reduce(struct job *j, const unsigned char *got, uint64_t n,
                         uint64_t first)
{
	bool i32 = j->c->dtype == IR_DT_INT32;
	for (uint64_t i = 0; i < n / (i32 ? 4 : 8); i++) {
		double want = 0;
		for (int32_t r = 0; r < j->m->nranks; r++) {
			double v = reduce_in(r, first + i);
			if (r == 0)
				want = v;
			else if (j->c->op == IR_OP_SUM)
				want += v;
			else if (j->c->op == IR_OP_MAX)
				want = v > want ? v : want;
			else if (j->c->op == IR_OP_MIN)
				want = v < want ? v : want;
			else
				want *= v;
		}
		double have;
		if (i32) {
			int32_t x;
			memcpy(&x, got + 4 * i, 4);
			have = x;
		} else {
			memcpy(&have, got + 8 * i, 8);
		}
		if (have != want) {
			snprintf(j->fail, sizeof j->fail,
			         "rank %d element %llu: %g, want %g",
			         (int)j->rank, (unsigned long long)(first + i),
			         have, want);
			return;
		}
	}
}

/* Let the other ranks' threads run, as computing would. */
static void yield(void)
{
	nanosleep(&(struct timespec){0, 1000}, NULL);
}

/* Run the plan once without blocking, as an application overlapping
 * computation does: ccp_plan_start, a few ccp_plan_test (the thread
 * yielding in between, as it would compute), then ccp_plan_wait.  (A
 * test loop to the end is test_pieces_exchange's: 16-64 threads
 * spinning on two cores would take minutes here.) */
static int start_and_test(ccp_plan *p, ccp_transport *t, unsigned flags)
{
	int done = 0, rc = ccp_plan_start(p, t, flags);
	for (int k = 0; !rc && !done && k < 4; k++) {
		yield();
		rc = ccp_plan_test(p, &done);
	}
	return rc || done ? rc : ccp_plan_wait(p);
}

/* One rank of run_plan (lb_run): load, bind, execute twice (the second
 * time by start and test), check.  A broadcast executes a third time
 * with the root bound without its receive buffer (ccp_plan_bind): its
 * result is its send buffer, untouched, and its receive buffer is left
 * as it was. */
static void run_rank(struct lb_job *lj)
{
	struct job *j = &((struct job *)lj->arg)[lj->rank];
	ccp_context *ctx = lj->ctx;
	ccp_plan *p;
	ccp_plan_info info;
	int rc = ccp_plan_load_memory(ctx, j->img, j->len, j->rank, &p);
	if (rc == 0)
		rc = ccp_plan_get_info(p, &info);
	if (rc) {
		snprintf(j->fail, sizeof j->fail, "rank %d load: %s",
		         (int)j->rank, ccp_errmsg(ctx));
		return; /* the others fail: this rank has left */
	}
	unsigned char *s = malloc(info.send_bytes + 1);
	unsigned char *rv = malloc(info.recv_bytes + 1);
	fill_send(j, s, info.send_bytes);
	rc = ccp_plan_bind(p, s, info.send_bytes, rv, info.recv_bytes, NULL, 0);
	bool bcast = j->c->coll == IR_BCAST;
	for (int it = 0; it < (bcast ? 3 : 2) && !rc; it++) {
		bool no_recv = it == 2 && j->rank == j->c->root;
		if (no_recv && (rc = ccp_plan_bind(p, s, info.send_bytes, NULL,
		                                   0, NULL, 0)) != 0)
			break;
		memset(rv, 0xee, info.recv_bytes);
		rc = it == 0 ? ccp_plan_execute(p, lj->t, j->flags)
		             : start_and_test(p, lj->t, j->flags);
		if (rc) {
			snprintf(j->fail, sizeof j->fail,
			         "rank %d execute: %s: %s", (int)j->rank,
			         ccp_strerror(rc), ccp_errmsg(ctx));
			break;
		}
		if (ir_coll_kind(j->c->coll) & IR_CK_REDUCES) {
			uint64_t first = 0;
			if (j->c->coll == IR_REDUCE_SCATTER)
				first = (uint64_t)ir_reduce_block_off(
				                j->c, j->m->nranks, j->rank) /
				        ir_dtype_size(j->c->dtype);
			if (j->c->coll != IR_REDUCE || j->rank == j->c->root)
				check_reduce(j, rv, info.recv_bytes, first);
			continue;
		}
		for (uint64_t o = 0; no_recv && o < info.recv_bytes; o++)
			if (rv[o] != 0xee || s[o] != expect_byte(j, o)) {
				snprintf(j->fail, sizeof j->fail,
				         "rank %d bound without recv, byte "
				         "%llu: recv %u, send %u",
				         (int)j->rank, (unsigned long long)o,
				         rv[o], s[o]);
				break;
			}
		for (uint64_t o = 0;
		     o < info.recv_bytes && !j->fail[0] && !no_recv; o++) {
			int want = expect_byte(j, o);
			if (want >= 0 && rv[o] != want)
				snprintf(j->fail, sizeof j->fail,
				         "rank %d byte %llu: %u, want %d",
				         (int)j->rank, (unsigned long long)o,
				         rv[o], want);
		}
	}
	if (rc && !j->fail[0])
		snprintf(j->fail, sizeof j->fail, "rank %d bind: %s",
		         (int)j->rank, ccp_errmsg(ctx));
	free(s);
	free(rv);
	ccp_plan_free(p);
}

/* Run img on every rank with flags; the first failure, or "". */
static void run_plan(const uint8_t *img, size_t len, const ir_plan *p,
                     unsigned flags, char *fail, size_t faillen)
{
	int32_t n = p->machine.nranks;
	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	assert_non_null(jobs);
	for (int32_t r = 0; r < n; r++)
		jobs[r] = (struct job){img,   len, &p->comm, &p->machine,
		                       flags, r,   ""};
	size_t unreceived;
	lb_run(n, 20000, run_rank, jobs, &unreceived);
	fail[0] = '\0';
	for (int32_t r = 0; r < n; r++)
		if (!fail[0] && jobs[r].fail[0])
			snprintf(fail, faillen, "%s", jobs[r].fail);
	assert_int_equal(unreceived, 0); /* every message was received */
	free(jobs);
}

/* ---- the cases -------------------------------------------------------- */

/* A random sparse matrix with empty rows and zero-byte messages. */
static ir_matrix *random_matrix(int32_t n, uint64_t seed)
{
	int64_t cap = (int64_t)n * n;
	ir_matrix *x = ir_matrix_new(n, cap);
	assert_non_null(x);
	int64_t k = 0;
	for (int32_t s = 0; s < n; s++) {
		x->row[s] = k;
		if (s % 5 == 3)
			continue; /* an empty row */
		for (int32_t d = 0; d < n; d++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			if (d == s || (seed >> 33) % 4 != 0)
				continue;
			x->dst[k] = d;
			x->bytes[k] = (int64_t)((seed >> 40) % 9 == 0
			                                ? 0
			                                : 1 + (seed >> 45) % 40);
			k++;
		}
	}
	x->row[n] = k;
	x->nnz = k;
	return x;
}

static const unsigned schemes[] = {
        CCP_EXEC_S2, CCP_EXEC_S1, CCP_EXEC_S2 | CCP_EXEC_NO_BARRIER,
        CCP_EXEC_S1 | CCP_EXEC_NO_BARRIER};

static int cases_run, schemes_run;
static int used[64];

/* Every generator that applies to (m, c): compile, run, check. */
static void run_all(const ir_machine *m, const ir_comm *c)
{
	for (int g = 0; sch_generators[g]; g++) {
		const struct sch_generator *gen = sch_generators[g];
		char why[256];
		if (sch_applies(gen, m, c, why, sizeof why) != 0)
			continue;
		ir_plan p;
		ir_report rep;
		struct sch_options o = {.seed = 7,
		                        .hpam_price = model_hpam_price};
		int rc = gen->generate(m, c, &o, &p);
		if (rc == CCP_ENOTAPPLY)
			continue;
		assert_int_equal(rc, 0);
		if (ir_verify(&p, &rep) != 0) {
			print_error("%s on %s rejected: %s\n", gen->name,
			            ir_topo_name(m->topo), rep.message);
			fail();
		}
		ir_slice *sl;
		uint8_t *img;
		size_t len;
		assert_int_equal(ir_lower(&p, &sl), 0);
		char err[256] = "";
		if (ir_plan_encode(&p, &rep, sl, &img, &len, err, sizeof err)) {
			print_error("%s, %s on %s of %d ranks: encode: %s\n",
			            gen->name, ir_coll_name(c->coll),
			            ir_topo_name(m->topo), (int)m->nranks, err);
			fail();
		}
		for (size_t k = 0; k < 2 * sizeof schemes / sizeof *schemes;
		     k++) {
			char fail[256];
			unsigned fl = schemes[k / 2];
			lb_prepared_groups = k % 2;
			if (lb_prepared_groups && (fl & CCP_EXEC_S1))
				continue; /* S1 posts message by message */
			run_plan(img, len, &p, fl, fail, sizeof fail);
			lb_prepared_groups = false;
			if (fail[0]) {
				print_error("%s, %s on %s of %d ranks, flags %u%s: "
				            "%s\n",
				            gen->name, ir_coll_name(c->coll),
				            ir_topo_name(m->topo),
				            (int)m->nranks, fl,
				            k % 2 ? ", prepared groups" : "",
				            fail);
				fail_msg("wrong result");
			}
			schemes_run++;
		}
		cases_run++;
		if (g < 64)
			used[g]++;
		free(img);
		ir_slices_free(sl, m->nranks);
		ir_report_fini(&rep);
		ir_plan_fini(&p);
	}
}

/* Every collective on m; on the larger machines only broadcast, which
 * they are here for (EDN's doublings, the 3D EDN). */
static void run_collectives(const ir_machine *m)
{
	int32_t n = m->nranks;
	bool all = n <= 20;
	enum ir_coll colls[] = {IR_BCAST, IR_SCATTER, IR_GATHER, IR_ALLTOALL,
	                        IR_TRANSPOSE};
	for (size_t k = 0; k < (all ? sizeof colls / sizeof *colls : 1); k++)
		for (int32_t root = 0; root < n; root += n > 5 ? n - 5 : n) {
			ir_comm c = tu_comm(colls[k], root, 24);
			run_all(m, &c);
			if (colls[k] != IR_BCAST)
				continue;
			c.bytes = 1000; /* pipelined: uneven segments */
			c.segments = 3;
			run_all(m, &c);
			c.segments = n; /* one piece per rank */
			if (all)
				run_all(m, &c);
		}
	if (!all)
		return;
	ir_comm c = tu_comm(IR_REDUCE, n - 1, 64);
	c.dtype = IR_DT_DOUBLE;
	c.op = IR_OP_SUM;
	run_all(m, &c);
	c.op = IR_OP_MAX;
	run_all(m, &c);
	c.dtype = IR_DT_INT32;
	c.op = IR_OP_SUM;
	run_all(m, &c);
	/* the new collectives: vectors that the ranks divide, that they do
	 * not (uneven blocks), of fewer elements than ranks, and empty */
	c = tu_comm(IR_ALLGATHER, 0, 24);
	run_all(m, &c);
	enum ir_coll red[] = {IR_ALLREDUCE, IR_REDUCE_SCATTER};
	for (size_t k = 0; k < sizeof red / sizeof *red; k++) {
		int64_t sizes[] = {8 * 2 * (int64_t)n, 8 * (2 * (int64_t)n + 3),
		                   8 * 3, 0};
		for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
			c = tu_comm(red[k], 0, sizes[z]);
			c.dtype = IR_DT_DOUBLE;
			c.op = z == 1 ? IR_OP_MAX : IR_OP_SUM;
			run_all(m, &c);
		}
		c = tu_comm(red[k], 0, 4 * 5);
		c.dtype = IR_DT_INT32;
		c.op = IR_OP_SUM;
		run_all(m, &c);
	}
	c = tu_comm(IR_IRREGULAR, 0, 0);
	c.matrix = random_matrix(n, (uint64_t)n * 977);
	c.seed = 3;
	run_all(m, &c);
	ir_comm_fini(&c);
}

static void test_every_generator(void **state)
{
	(void)state;
	static const int tree_down[] = {2, 3}, tree_up[] = {1, 1};
	ir_machine ms[] = {
	        tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 0, 0),
	        tu_machine(IR_MESH, 1, 4, 4, 0, 0),
	        tu_machine(IR_MESH, IR_PORTS_ALL, 5, 3, 0, 0),
	        tu_machine(IR_MESH, IR_PORTS_ALL, 8, 8, 0, 0),
	        tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 4, 0),
	        tu_machine(IR_MESH, IR_PORTS_ALL, 6, 0, 0, 0),
	        tu_machine(IR_TORUS, IR_PORTS_ALL, 4, 4, 0, 0),
	        tu_machine(IR_TORUS, IR_PORTS_ALL, 2, 2, 2, 0),
	        tu_machine(IR_HYPERCUBE, IR_PORTS_ALL, 4, 0, 0, 0),
	        tu_machine(IR_HYPERCUBE, 1, 3, 0, 0, 0),
	        tu_machine(IR_HPAM, IR_PORTS_ALL, 2, 2, 4, 4),
	        tu_machine(IR_SWITCH, 1, 8, 0, 0, 0),
	        /* nodes of several ranks */
	        tu_with_nodes(tu_machine(IR_MESH, 1, 2, 2, 0, 0), 2,
	                      IR_PLACE_CYCLIC, 1),
	        tu_with_nodes(tu_machine(IR_SWITCH, 1, 3, 0, 0, 0), 3,
	                      IR_PLACE_BLOCK, IR_PORTS_ALL),
	        /* one node holding every rank (a workstation's MPI job):
	         * binomial's line of ranks */
	        tu_with_nodes(tu_machine(IR_SWITCH, 4, 1, 0, 0, 0), 5,
	                      IR_PLACE_BLOCK, 1),
	        /* a 2:1 tapered fat tree of 3 leaves of 2 hosts, 2 ranks a
	         * host */
	        tu_fat_tree(2, tree_down, tree_up, NULL, 2, IR_ROUTE_D_MOD_K,
	                    1),
	};
	for (size_t k = 0; k < sizeof ms / sizeof *ms; k++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		run_collectives(&ms[k]);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		print_message("%s of %d ranks: %.2f s\n", ir_topo_name(ms[k].topo),
		              (int)ms[k].nranks,
		              (double)(t1.tv_sec - t0.tv_sec) +
		                      (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	}
	int missing = 0;
	for (int g = 0; sch_generators[g]; g++) {
		if (used[g] == 0) {
			print_error("generator %s never ran\n",
			            sch_generators[g]->name);
			missing++;
		}
	}
	print_message("%d plans, %d executions per rank checked\n", cases_run,
	              2 * schemes_run);
	assert_int_equal(missing, 0);
}

/* The image of generator alg's plan for c on m (malloc'd), with the
 * plan, report and slices it was made from (the caller's). */
static void plan_image(const char *alg, ir_machine m, ir_comm c, ir_plan *p,
                       ir_report *rep, ir_slice **sl, uint8_t **img,
                       size_t *len)
{
	struct sch_options o = {.hpam_price = model_hpam_price};
	assert_int_equal(sch_find(alg)->generate(&m, &c, &o, p), 0);
	assert_int_equal(ir_verify(p, rep), 0);
	assert_int_equal(ir_lower(p, sl), 0);
	assert_int_equal(ir_plan_encode(p, rep, *sl, img, len, NULL, 0), 0);
}

/* A binomial broadcast of 16 bytes on a 2x2 mesh. */
static void binomial_image(ir_plan *p, ir_report *rep, ir_slice **sl,
                           uint8_t **img, size_t *len)
{
	plan_image("binomial", tu_machine(IR_MESH, IR_PORTS_ALL, 2, 2, 0, 0),
	           tu_comm(IR_BCAST, 0, 16), p, rep, sl, img, len);
}

/* The checks before any data moves. */
static void test_refusals(void **state)
{
	(void)state;
	ir_plan p;
	ir_report rep;
	ir_slice *sl;
	uint8_t *img;
	size_t len;
	binomial_image(&p, &rep, &sl, &img, &len);

	ccp_context *ctx;
	ccp_plan *plan;
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	assert_int_equal(ccp_plan_load_memory(ctx, img, len, 4, &plan),
	                 CCP_ERANGE);
	assert_non_null(strstr(ccp_errmsg(ctx), "rank 4"));
	assert_int_equal(ccp_plan_load_memory(ctx, img, len, 1, &plan), 0);
	unsigned char buf[16];
	assert_int_equal(ccp_plan_bind(plan, NULL, 0, buf, 8, NULL, 0),
	                 CCP_EBUFFER);
	assert_string_equal(ccp_errmsg(ctx), "rank 1: recv buffer is 8 bytes, "
	                                     "the plan needs 16");
	/* only a slice whose receive buffer is a copy of its send buffer
	 * (the root's) may leave it out; rank 1 receives into it */
	assert_int_equal(ccp_plan_bind(plan, NULL, 0, NULL, 0, NULL, 0),
	                 CCP_EBUFFER);
	assert_string_equal(ccp_errmsg(ctx), "rank 1: recv buffer is 0 bytes, "
	                                     "the plan needs 16");
	ccp_plan *root;
	assert_int_equal(ccp_plan_load_memory(ctx, img, len, 0, &root), 0);
	assert_int_equal(ccp_plan_bind(root, buf, 16, NULL, 0, NULL, 0), 0);
	/* a NULL receive buffer of non-zero length is refused as before */
	assert_int_equal(ccp_plan_bind(root, buf, 16, NULL, 16, NULL, 0),
	                 CCP_EBUFFER);
	assert_string_equal(ccp_errmsg(ctx), "rank 0: recv buffer is NULL, the "
	                                     "plan needs 16 bytes");
	ccp_plan_free(root);
	/* a scatter root's block is a copy of other bytes of its send
	 * buffer (rank 1's of [16, 32)): its receive buffer is needed */
	ir_plan sp;
	ir_report srep;
	ir_slice *ssl;
	uint8_t *simg;
	size_t slen;
	plan_image("binomial", tu_machine(IR_MESH, IR_PORTS_ALL, 2, 2, 0, 0),
	           tu_comm(IR_SCATTER, 1, 16), &sp, &srep, &ssl, &simg, &slen);
	unsigned char sbuf[64];
	assert_int_equal(ccp_plan_load_memory(ctx, simg, slen, 1, &root), 0);
	assert_int_equal(ccp_plan_bind(root, sbuf, 64, NULL, 0, NULL, 0),
	                 CCP_EBUFFER);
	assert_string_equal(ccp_errmsg(ctx), "rank 1: recv buffer is 0 bytes, "
	                                     "the plan needs 16");
	ccp_plan_free(root);
	free(simg);
	ir_slices_free(ssl, sp.machine.nranks);
	ir_report_fini(&srep);
	ir_plan_fini(&sp);
	/* a transport of the wrong size is refused with no exchange */
	struct lb_world *w = lb_world_new(3, 0);
	ccp_transport *t;
	assert_int_equal(lb_transport_new(w, ctx, 1, &t), 0);
	assert_int_equal(ccp_plan_execute(plan, t, 0), CCP_EINVAL);
	assert_string_equal(ccp_errmsg(ctx), "the plan is for 4 ranks, the "
	                                     "loopback transport has 3");
	ccp_transport_free(t);
	lb_world_free(w);
	ccp_plan_free(plan);
	/* a damaged image is refused before anything is used */
	img[len - 3] ^= 1;
	assert_int_equal(ccp_plan_load_memory(ctx, img, len, 3, &plan),
	                 CCP_ECHECKSUM);
	ccp_fini(ctx);
	free(img);
	ir_slices_free(sl, p.machine.nranks);
	ir_report_fini(&rep);
	ir_plan_fini(&p);
}

/* An allocator that remembers the largest block asked for. */
static void *largest_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	size_t *largest = ud;
	(void)osize;
	if (nsize == 0) {
		free(ptr);
		return NULL;
	}
	if (nsize > *largest)
		*largest = nsize;
	return realloc(ptr, nsize);
}

/* A file whose header states a size far beyond its own, with a rank
 * section as large as that size allows: the file loader refuses it as
 * truncated before it allocates for the section (a few hundred bytes
 * must not ask for gigabytes; tests/fuzz/plan/regress). */
static void test_file_size_stated(void **state)
{
	(void)state;
	ir_plan p;
	ir_report rep;
	ir_slice *sl;
	uint8_t *img;
	size_t len;
	binomial_image(&p, &rep, &sl, &img, &len);
	/* header: file size at 56, index offset at 48, checksum at 120 of
	 * bytes [0, 120) (docs/plan-format.md); rank 1's entry: size at 8 */
	const uint64_t stated = UINT64_C(1) << 40;
	uint64_t index_off = 0;
	for (int i = 7; i >= 0; i--)
		index_off = index_off << 8 | img[48 + i];
	uint8_t *e = img + index_off + 24;
	uint64_t off = 0;
	for (int i = 7; i >= 0; i--)
		off = off << 8 | e[i];
	for (int i = 0; i < 8; i++) {
		img[56 + i] = (uint8_t)(stated >> 8 * i);
		e[8 + i] = (uint8_t)((stated - off) >> 8 * i);
	}
	uint64_t sum = XXH3_64bits(img, 120);
	for (int i = 0; i < 8; i++)
		img[120 + i] = (uint8_t)(sum >> 8 * i);
	char path[] = "/tmp/ccplan-test-engine-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(img, 1, len, f), len);
	assert_int_equal(fclose(f), 0);

	size_t largest = 0;
	ccp_context *ctx;
	ccp_plan *plan;
	assert_int_equal(ccp_init(&ctx, largest_alloc, &largest), 0);
	assert_int_equal(ccp_plan_load_file(ctx, path, 1, &plan), CCP_ETRUNC);
	assert_null(plan);
	assert_non_null(strstr(ccp_errmsg(ctx), "truncated plan"));
	assert_true(largest < 4096);
	ccp_fini(ctx);
	unlink(path);
	free(img);
	ir_slices_free(sl, p.machine.nranks);
	ir_report_fini(&rep);
	ir_plan_fini(&p);
}

/* ---- buffers that overlap --------------------------------------------- */

/* One rank binding buf as its send and its receive buffer (the first
 * max(send, recv) bytes of it), then executing. */
struct alias_job {
	const uint8_t *img;
	size_t len;
	int bind_rc, exec_rc;
	char bind_msg[256];
	bool unchanged; /* buf as it was filled */
};

static void alias_rank(struct lb_job *lj)
{
	struct alias_job *j = &((struct alias_job *)lj->arg)[lj->rank];
	ccp_plan *p;
	ccp_plan_info in;
	assert_int_equal(
	        ccp_plan_load_memory(lj->ctx, j->img, j->len, lj->rank, &p), 0);
	assert_int_equal(ccp_plan_get_info(p, &in), 0);
	size_t n = (size_t)(in.send_bytes > in.recv_bytes ? in.send_bytes
	                                                  : in.recv_bytes);
	unsigned char *buf = malloc(n), *was = malloc(n);
	assert_true(buf && was);
	for (size_t o = 0; o < n; o++)
		buf[o] = was[o] = pattern(lj->rank, o);
	j->bind_rc = ccp_plan_bind(p, buf, (size_t)in.send_bytes, buf,
	                           (size_t)in.recv_bytes, NULL, 0);
	snprintf(j->bind_msg, sizeof j->bind_msg, "%s", ccp_errmsg(lj->ctx));
	j->exec_rc = ccp_plan_execute(p, lj->t, CCP_EXEC_DEFAULT);
	j->unchanged = memcmp(buf, was, n) == 0;
	free(buf);
	free(was);
	ccp_plan_free(p);
}

/* One buffer bound as both send and receive buffer (the finding: a
 * 4-rank alltoall over sockets returned wrong bytes on some ranks with
 * rc 0).  Every rank's bind is refused, naming the two buffers, every
 * rank's execution fails with the same code, and no byte moves. */
static void test_aliased_buffers(void **state)
{
	(void)state;
	ir_plan p;
	ir_report rep;
	ir_slice *sl;
	uint8_t *img;
	size_t len;
	plan_image("pex", tu_machine(IR_SWITCH, IR_PORTS_ALL, 4, 0, 0, 0),
	           tu_comm(IR_ALLTOALL, 0, 64), &p, &rep, &sl, &img, &len);

	struct alias_job j[4];
	for (int32_t r = 0; r < 4; r++)
		j[r] = (struct alias_job){.img = img, .len = len};
	size_t unreceived;
	lb_run(4, 10000, alias_rank, j, &unreceived);
	for (int32_t r = 0; r < 4; r++) {
		char want[160];
		snprintf(want, sizeof want,
		         "rank %d: the send and recv buffers overlap in the "
		         "bytes the plan uses (256 of send, 256 of recv); bind "
		         "separate buffers",
		         (int)r);
		assert_int_equal(j[r].bind_rc, CCP_EINVAL);
		assert_string_equal(j[r].bind_msg, want);
		assert_int_equal(j[r].exec_rc, CCP_EINVAL);
		assert_true(j[r].unchanged);
	}
	assert_int_equal(unreceived, 0);
	free(img);
	ir_slices_free(sl, p.machine.nranks);
	ir_report_fini(&rep);
	ir_plan_fini(&p);
}

/* What counts as overlapping: the bytes the plan uses of each buffer,
 * caller's scratch included; a buffer the plan does not use on this rank
 * (need 0) overlaps nothing. */
static void test_overlap_rules(void **state)
{
	(void)state;
	ir_comm c = tu_comm(IR_REDUCE, 0, 64);
	c.dtype = IR_DT_INT32;
	ir_plan p;
	ir_report rep;
	ir_slice *sl;
	uint8_t *img;
	size_t len;
	plan_image("binomial", tu_machine(IR_SWITCH, 1, 4, 0, 0, 0), c, &p,
	           &rep, &sl, &img, &len);
	ccp_context *ctx;
	ccp_plan *plan;
	ccp_plan_info in;
	static unsigned char b[1024];
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);

	/* rank 2 (not the root): send 64, recv 0, scratch 128 */
	assert_int_equal(ccp_plan_load_memory(ctx, img, len, 2, &plan), 0);
	assert_int_equal(ccp_plan_get_info(plan, &in), 0);
	assert_true(in.send_bytes == 64 && in.recv_bytes == 0 &&
	            in.scratch_bytes == 128);
	/* no receive buffer used: the same address overlaps nothing */
	assert_int_equal(ccp_plan_bind(plan, b, 64, b, 0, NULL, 0), 0);
	assert_int_equal(ccp_plan_bind(plan, b, 64, b + 32, 64, NULL, 0), 0);
	/* the caller's scratch against the send buffer: one byte shared,
	 * then none */
	assert_int_equal(ccp_plan_bind(plan, b + 127, 64, NULL, 0, b, 128),
	                 CCP_EINVAL);
	assert_string_equal(ccp_errmsg(ctx),
	                    "rank 2: the send and scratch buffers overlap in "
	                    "the bytes the plan uses (64 of send, 128 of "
	                    "scratch); bind separate buffers");
	assert_int_equal(ccp_plan_bind(plan, b + 128, 64, NULL, 0, b, 128), 0);
	/* bytes beyond what the plan uses may be shared */
	assert_int_equal(ccp_plan_bind(plan, b + 128, 64, NULL, 0, b, 192), 0);
	ccp_plan_free(plan);

	/* the root: send 64, recv 64, scratch 128 */
	assert_int_equal(ccp_plan_load_memory(ctx, img, len, 0, &plan), 0);
	assert_int_equal(ccp_plan_bind(plan, b, 64, b + 64, 64, b + 120, 128),
	                 CCP_EINVAL);
	assert_non_null(strstr(ccp_errmsg(ctx), "the recv and scratch buffers "
	                                        "overlap"));
	assert_int_equal(ccp_plan_bind(plan, b + 63, 64, b, 64, NULL, 0),
	                 CCP_EINVAL);
	assert_non_null(strstr(ccp_errmsg(ctx), "the send and recv buffers "
	                                        "overlap"));
	assert_int_equal(ccp_plan_bind(plan, b, 64, b + 64, 64, b + 128, 128),
	                 0);
	ccp_plan_free(plan);
	ccp_fini(ctx);
	free(img);
	ir_slices_free(sl, p.machine.nranks);
	ir_report_fini(&rep);
	ir_plan_fini(&p);
}

/* ---- a transport's longest message ------------------------------------ */

/* The loopback's operations, as a transport that carries at most 8
 * bytes in one message (as MPI carries at most INT_MAX). */
static struct ccp_transport_ops short_ops;

struct limit_job {
	const uint8_t *img;
	size_t len;
	int rc;
	char msg[256];
	bool unchanged;
};

static void limit_rank(struct lb_job *lj)
{
	struct limit_job *j = &((struct limit_job *)lj->arg)[lj->rank];
	ccp_plan *p;
	ccp_plan_info in;
	lj->t->ops = &short_ops;
	assert_int_equal(
	        ccp_plan_load_memory(lj->ctx, j->img, j->len, lj->rank, &p), 0);
	assert_int_equal(ccp_plan_get_info(p, &in), 0);
	unsigned char *send = malloc(in.send_bytes + 1);
	unsigned char *recv = malloc(in.recv_bytes + 1);
	memset(send, 1, in.send_bytes + 1);
	memset(recv, 2, in.recv_bytes + 1);
	assert_int_equal(ccp_plan_bind(p, send, (size_t)in.send_bytes, recv,
	                               (size_t)in.recv_bytes, NULL, 0),
	                 0);
	j->rc = ccp_plan_execute(p, lj->t, CCP_EXEC_DEFAULT);
	snprintf(j->msg, sizeof j->msg, "%s", ccp_errmsg(lj->ctx));
	j->unchanged = true;
	for (uint64_t o = 0; o < in.recv_bytes; o++)
		j->unchanged = j->unchanged && recv[o] == 2;
	free(send);
	free(recv);
	ccp_plan_free(p);
}

/* A plan with a message longer than the transport carries is refused on
 * every rank before any data moves (the engine checks the transport's
 * max_message before the agreement), not on the ranks that post it. */
static void test_transport_limit(void **state)
{
	(void)state;
	ir_plan p;
	ir_report rep;
	ir_slice *sl;
	uint8_t *img;
	size_t len;
	binomial_image(&p, &rep, &sl, &img, &len);
	/* the loopback's table, but carrying at most 8 bytes */
	struct lb_world *w = lb_world_new(1, 0);
	ccp_transport *t;
	assert_int_equal(lb_transport_new(w, NULL, 0, &t), 0);
	short_ops = *t->ops;
	short_ops.max_message = 8;
	ccp_transport_free(t);
	lb_world_free(w);

	struct limit_job j[4];
	for (int32_t r = 0; r < 4; r++)
		j[r] = (struct limit_job){.img = img, .len = len};
	lb_run(4, 10000, limit_rank, j, NULL);
	for (int32_t r = 0; r < 4; r++) {
		assert_int_equal(j[r].rc, CCP_ERANGE);
		assert_non_null(strstr(j[r].msg,
		                       "a message of 16 bytes, the "
		                       "loopback transport carries at "
		                       "most 8 in one message"));
		assert_true(j[r].unchanged);
	}
	free(img);
	ir_slices_free(sl, p.machine.nranks);
	ir_report_fini(&rep);
	ir_plan_fini(&p);
}

/* ---- non-blocking execution: misuse, faults --------------------------- */

/* A plan's image and what it was made from (plan_image). */
struct image {
	ir_plan p;
	ir_report rep;
	ir_slice *sl;
	uint8_t *img;
	size_t len;
};

static void image_make(const char *alg, ir_machine m, ir_comm c,
                       struct image *im)
{
	plan_image(alg, m, c, &im->p, &im->rep, &im->sl, &im->img, &im->len);
}

static void image_free(struct image *im)
{
	free(im->img);
	ir_slices_free(im->sl, im->p.machine.nranks);
	ir_report_fini(&im->rep);
	ir_plan_fini(&im->p);
}

struct nb_job {
	const uint8_t *img;
	size_t len;
	char fail[256]; /* "" when every check passed */
	int rc;         /* nb_fault_rank: the error test or wait returned */
};

#define NB_CHECK(j, cond)                                                      \
	do {                                                                   \
		if (!(cond) && !(j)->fail[0])                                  \
			snprintf((j)->fail, sizeof(j)->fail, "line %d: %s",    \
			         __LINE__, #cond);                             \
	} while (0)

/* Whether rank r's receive buffer holds the root's broadcast. */
static bool bcast_right(int32_t r, const unsigned char *rv, uint64_t n)
{
	for (uint64_t o = 0; o < n; o++)
		if (rv[o] != pattern(0, o))
			return false;
	(void)r;
	return true;
}

/* Every misuse on one rank of a broadcast, in the same order on every
 * rank (the agreement is collective). */
static void nb_misuse_rank(struct lb_job *lj)
{
	struct nb_job *j = &((struct nb_job *)lj->arg)[lj->rank];
	ccp_context *ctx = lj->ctx;
	ccp_plan *p, *q;
	ccp_plan_info in;
	int done = 7;
	assert_int_equal(
	        ccp_plan_load_memory(ctx, j->img, j->len, lj->rank, &p), 0);
	assert_int_equal(
	        ccp_plan_load_memory(ctx, j->img, j->len, lj->rank, &q), 0);
	assert_int_equal(ccp_plan_get_info(p, &in), 0);
	unsigned char *s = malloc(in.send_bytes + 1);
	unsigned char *rv = malloc(in.recv_bytes + 1);
	for (uint64_t o = 0; o < in.send_bytes; o++)
		s[o] = pattern(lj->rank, o);
	/* wait and test with nothing started */
	NB_CHECK(j, ccp_plan_wait(p) == CCP_EINVAL);
	NB_CHECK(j, strstr(ccp_errmsg(ctx), "no execution in flight"));
	NB_CHECK(j, ccp_plan_test(p, &done) == CCP_EINVAL && done == 0);
	NB_CHECK(j, ccp_plan_bind(p, s, in.send_bytes, rv, in.recv_bytes, NULL,
	                          0) == 0);
	NB_CHECK(j, ccp_plan_bind(q, s, in.send_bytes, rv, in.recv_bytes, NULL,
	                          0) == 0);
	/* while in flight: start, execute, bind, another plan on the same
	 * transport are refused and change nothing */
	memset(rv, 0xee, in.recv_bytes);
	NB_CHECK(j, ccp_plan_start(p, lj->t, CCP_EXEC_NO_BARRIER) == 0);
	NB_CHECK(j, ccp_plan_start(p, lj->t, 0) == CCP_EBUSY);
	NB_CHECK(j, strstr(ccp_errmsg(ctx), "the plan has an execution in "
	                                    "flight"));
	NB_CHECK(j, ccp_plan_execute(p, lj->t, 0) == CCP_EBUSY);
	NB_CHECK(j, ccp_plan_bind(p, s, in.send_bytes, rv, in.recv_bytes, NULL,
	                          0) == CCP_EBUSY);
	NB_CHECK(j, ccp_plan_start(q, lj->t, 0) == CCP_EBUSY);
	NB_CHECK(j, strstr(ccp_errmsg(ctx), "the transport has an execution"));
	NB_CHECK(j, ccp_plan_wait(p) == 0);
	NB_CHECK(j, bcast_right(lj->rank, rv, in.recv_bytes));
	/* ended: a second wait, a test */
	NB_CHECK(j, ccp_plan_wait(p) == CCP_EINVAL);
	NB_CHECK(j, ccp_plan_test(p, &done) == CCP_EINVAL);
	/* the other plan may run now; then free p while in flight: the
	 * free finishes the execution, so the bytes arrive */
	NB_CHECK(j, ccp_plan_execute(q, lj->t, CCP_EXEC_NO_CHECK) == 0);
	memset(rv, 0xee, in.recv_bytes);
	NB_CHECK(j, ccp_plan_start(p, lj->t, CCP_EXEC_NO_BARRIER) == 0);
	ccp_plan_free(p);
	NB_CHECK(j, bcast_right(lj->rank, rv, in.recv_bytes));
	NB_CHECK(j, lj->t->busy == NULL);
	ccp_plan_free(q);
	free(s);
	free(rv);
}

/* fn on every rank of a binomial broadcast of 1000 bytes on a 4x4 mesh;
 * lb_run's result. */
static int run_bcast16(void (*fn)(struct lb_job *), struct nb_job *j,
                       size_t *unreceived)
{
	struct image im;
	image_make("binomial", tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 0, 0),
	           tu_comm(IR_BCAST, 0, 1000), &im);
	for (int32_t r = 0; r < 16; r++)
		j[r] = (struct nb_job){.img = im.img, .len = im.len};
	int rc = lb_run(16, 10000, fn, j, unreceived);
	image_free(&im);
	return rc;
}

static void test_nonblocking_misuse(void **state)
{
	(void)state;
	struct nb_job j[16];
	size_t unreceived;
	assert_int_equal(run_bcast16(nb_misuse_rank, j, &unreceived), 0);
	for (int32_t r = 0; r < 16; r++)
		if (j[r].fail[0])
			fail_msg("rank %d: %s", (int)r, j[r].fail);
	assert_int_equal(unreceived, 0);
}

/* A peer fails mid-flight: rank 1 (a relay of the binomial tree) starts,
 * then its transport goes away before the execution ends, and only then
 * does the root start (no agreement, so that nothing orders the starts
 * but nb_gone).  The ranks below rank 1 get an error from their test or
 * wait (rank 1 itself: CCP_EINVAL, the transport freed); none hangs. */
static int nb_gone;

static void nb_fault_rank(struct lb_job *lj)
{
	struct nb_job *j = &((struct nb_job *)lj->arg)[lj->rank];
	ccp_plan *p;
	ccp_plan_info in;
	int done = 0, rc;
	assert_int_equal(
	        ccp_plan_load_memory(lj->ctx, j->img, j->len, lj->rank, &p), 0);
	assert_int_equal(ccp_plan_get_info(p, &in), 0);
	unsigned char *s = calloc(1, in.send_bytes + 1);
	unsigned char *rv = calloc(1, in.recv_bytes + 1);
	assert_int_equal(
	        ccp_plan_bind(p, s, in.send_bytes, rv, in.recv_bytes, NULL, 0),
	        0);
	unsigned flags = CCP_EXEC_NO_BARRIER | CCP_EXEC_NO_CHECK;
	if (lj->rank == 0)
		while (!__atomic_load_n(&nb_gone, __ATOMIC_ACQUIRE))
			yield();
	rc = ccp_plan_start(p, lj->t, flags);
	if (lj->rank == 1) {
		ccp_transport_free(lj->t);
		lj->t = NULL;
		__atomic_store_n(&nb_gone, 1, __ATOMIC_RELEASE);
	}
	for (int k = 0; !rc && !done && k < 100; k++)
		rc = ccp_plan_test(p, &done);
	if (!rc && !done)
		rc = ccp_plan_wait(p);
	j->rc = rc;
	snprintf(j->fail, sizeof j->fail, "%s", ccp_errmsg(lj->ctx));
	ccp_plan_free(p);
	free(s);
	free(rv);
}

static void test_nonblocking_fault(void **state)
{
	(void)state;
	struct nb_job j[16];
	assert_int_equal(run_bcast16(nb_fault_rank, j, NULL), CCP_EPEER);
	/* rank 1 relays to others: they fail; the root and the ranks
	 * outside its subtree may finish */
	int failed = 0;
	for (int32_t r = 0; r < 16; r++) {
		if (r == 1) {
			assert_int_equal(j[r].rc, CCP_EINVAL);
			assert_non_null(strstr(j[r].fail, "the transport was "
			                                  "freed"));
			continue;
		}
		if (j[r].rc == 0)
			continue;
		assert_int_equal(j[r].rc, CCP_EPEER);
		failed++;
	}
	assert_true(failed >= 1);
}

/* ---- binding by pieces ------------------------------------------------- */

/* A copy of buffer b (n bytes) in one malloc'd piece per run of the
 * split points cuts[0..ncuts) (increasing offsets inside b). */
static ccp_piece *split(unsigned char *b, uint64_t n, const uint64_t *cuts,
                        size_t ncuts, size_t *npieces)
{
	ccp_piece *v = calloc(ncuts + 1, sizeof *v);
	uint64_t from = 0;
	for (size_t k = 0; k <= ncuts; k++) {
		uint64_t to = k < ncuts ? cuts[k] : n;
		v[k].len = (size_t)(to - from);
		v[k].ptr = malloc(v[k].len + 1);
		memcpy(v[k].ptr, b + from, v[k].len);
		from = to;
	}
	*npieces = ncuts + 1;
	return v;
}

static void pieces_free(ccp_piece *v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(v[k].ptr);
	free(v);
}

/* Pieces are contiguous bytes of the list again? */
static bool pieces_equal(const ccp_piece *v, size_t n, const unsigned char *b)
{
	for (size_t k = 0; k < n; b += v[k].len, k++)
		if (v[k].len && memcmp(v[k].ptr, b, v[k].len))
			return false;
	return true;
}

struct pieces_job {
	const uint8_t *img;
	size_t len;
	const ir_matrix *x;
	char fail[256];
};

/* One rank of an irregular exchange: executed with contiguous buffers,
 * then started and tested with one piece per peer, each its own
 * allocation: the bytes received are the same.  Run for every irregular
 * scheduler, the inspector's: none moves bytes of two peers in one
 * piece, so per-peer pieces always bind. */
static void pieces_rank(struct lb_job *lj)
{
	struct pieces_job *j = &((struct pieces_job *)lj->arg)[lj->rank];
	const ir_matrix *x = j->x;
	int32_t me = lj->rank, n = x->n;
	ccp_plan *p;
	ccp_plan_info in;
	assert_int_equal(ccp_plan_load_memory(lj->ctx, j->img, j->len, me, &p),
	                 0);
	assert_int_equal(ccp_plan_get_info(p, &in), 0);
	unsigned char *s = malloc(in.send_bytes + 1);
	unsigned char *rv = malloc(in.recv_bytes + 1);
	for (uint64_t o = 0; o < in.send_bytes; o++)
		s[o] = pattern(me, o);
	NB_CHECK(j, ccp_plan_bind(p, s, in.send_bytes, rv, in.recv_bytes, NULL,
	                          0) == 0);
	NB_CHECK(j, ccp_plan_execute(p, lj->t, 0) == 0);
	/* the per-peer offsets (packed by destination and by source) */
	uint64_t scut[64], rcut[64];
	size_t ns = 0, nr = 0, nsp, nrp;
	for (int32_t d = 1; d < n; d++)
		scut[ns++] = irr_off(x, me, d, false);
	for (int32_t q = 1; q < n; q++)
		rcut[nr++] = irr_off(x, q, me, true);
	ccp_piece *sp = split(s, in.send_bytes, scut, ns, &nsp);
	ccp_piece *rp = split(rv, in.recv_bytes, rcut, nr, &nrp);
	for (size_t k = 0; k < nrp; k++)
		memset(rp[k].ptr, 0xee, rp[k].len);
	NB_CHECK(j, ccp_plan_bind_pieces(p, sp, nsp, rp, nrp) == 0);
	int done = 0, rc = ccp_plan_start(p, lj->t, CCP_EXEC_NO_BARRIER);
	while (!rc && !done) {
		yield();
		rc = ccp_plan_test(p, &done);
	}
	NB_CHECK(j, rc == 0);
	NB_CHECK(j, pieces_equal(rp, nrp, rv));
	pieces_free(sp, nsp);
	pieces_free(rp, nrp);
	ccp_plan_free(p);
	free(s);
	free(rv);
}

static void test_pieces_exchange(void **state)
{
	(void)state;
	const char *algs[] = {"ac",    "lp",    "link_aware", "color",
	                      "sized", "rs_nl", "rs_n"};
	for (size_t a = 0; a < sizeof algs / sizeof *algs; a++) {
		struct image im;
		ir_comm c = tu_comm(IR_IRREGULAR, 0, 0);
		c.matrix = random_matrix(16, 5);
		c.seed = 3;
		image_make(algs[a],
		           tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 0, 0), c,
		           &im);
		struct pieces_job j[16];
		for (int32_t r = 0; r < 16; r++)
			j[r] = (struct pieces_job){im.img, im.len, c.matrix,
			                           ""};
		size_t unreceived;
		assert_int_equal(lb_run(16, 10000, pieces_rank, j, &unreceived),
		                 0);
		for (int32_t r = 0; r < 16; r++)
			if (j[r].fail[0])
				fail_msg("%s, rank %d: %s", algs[a], (int)r,
				         j[r].fail);
		assert_int_equal(unreceived, 0);
		image_free(&im);
		ir_comm_fini(&c);
	}
}

/* Every refusal of ccp_plan_bind_pieces, on one rank of an alltoall
 * (send and receive 4 blocks of 16 bytes): the code, the message, and
 * nothing bound afterwards. */
static void test_pieces_refusals(void **state)
{
	(void)state;
	struct image im;
	image_make("pex", tu_machine(IR_SWITCH, IR_PORTS_ALL, 4, 0, 0, 0),
	           tu_comm(IR_ALLTOALL, 0, 16), &im);
	ccp_context *ctx;
	ccp_plan *plan;
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	assert_int_equal(ccp_plan_load_memory(ctx, im.img, im.len, 1, &plan),
	                 0);
	static unsigned char b[512];
	ccp_piece s4[4], r4[4];
	for (int k = 0; k < 4; k++) {
		s4[k] = (ccp_piece){b + 16 * k, 16};
		r4[k] = (ccp_piece){b + 256 + 16 * k, 16};
	}
	assert_int_equal(ccp_plan_bind_pieces(plan, s4, 4, r4, 4), 0);
	/* lengths that do not add up */
	assert_int_equal(ccp_plan_bind_pieces(plan, s4, 3, r4, 4), CCP_EBUFFER);
	assert_string_equal(ccp_errmsg(ctx),
	                    "rank 1: the 3 send pieces add up to 48 bytes, "
	                    "the plan's send buffer is 64");
	/* a NULL piece with bytes, a NULL list */
	ccp_piece bad[4];
	memcpy(bad, r4, sizeof bad);
	bad[2].ptr = NULL;
	assert_int_equal(ccp_plan_bind_pieces(plan, s4, 4, bad, 4),
	                 CCP_EBUFFER);
	assert_string_equal(ccp_errmsg(ctx),
	                    "rank 1: recv piece 2 is NULL with 16 bytes");
	assert_int_equal(ccp_plan_bind_pieces(plan, NULL, 4, r4, 4),
	                 CCP_EINVAL);
	/* overlaps: receive with receive, receive with send */
	memcpy(bad, r4, sizeof bad);
	bad[3].ptr = b + 256 + 8;
	assert_int_equal(ccp_plan_bind_pieces(plan, s4, 4, bad, 4), CCP_EINVAL);
	assert_string_equal(ccp_errmsg(ctx),
	                    "rank 1: recv piece 0 and recv piece 3 overlap; "
	                    "a receive piece must share no byte with another "
	                    "piece");
	memcpy(bad, r4, sizeof bad);
	bad[1].ptr = b + 40;
	assert_int_equal(ccp_plan_bind_pieces(plan, s4, 4, bad, 4), CCP_EINVAL);
	assert_string_equal(ccp_errmsg(ctx),
	                    "rank 1: send piece 2 and recv piece 1 overlap; "
	                    "a receive piece must share no byte with another "
	                    "piece");
	/* send pieces may share bytes: the plan only reads them */
	ccp_piece same[4] = {{b, 16}, {b, 16}, {b, 16}, {b, 16}};
	assert_int_equal(ccp_plan_bind_pieces(plan, same, 4, r4, 4), 0);
	/* a piece boundary inside bytes the plan moves in one go: the
	 * runs are 16-byte blocks (or longer) */
	ccp_piece cut[2] = {{b, 8}, {b + 100, 56}};
	assert_int_equal(ccp_plan_bind_pieces(plan, cut, 2, r4, 4),
	                 CCP_EBUFFER);
	assert_non_null(strstr(ccp_errmsg(ctx), "a send piece ends at byte 8; "
	                                        "split the pieces where the "
	                                        "plan's messages do"));
	/* the refusal is remembered: nothing is bound */
	struct lb_world *w = lb_world_new(4, 0);
	ccp_transport *t;
	assert_int_equal(lb_transport_new(w, ctx, 1, &t), 0);
	assert_int_equal(ccp_plan_start(plan, t, CCP_EXEC_NO_CHECK),
	                 CCP_EBUFFER);
	assert_null(t->busy);
	ccp_transport_free(t);
	lb_world_free(w);
	ccp_plan_free(plan);
	ccp_fini(ctx);
	image_free(&im);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_every_generator),
	        cmocka_unit_test(test_refusals),
	        cmocka_unit_test(test_file_size_stated),
	        cmocka_unit_test(test_aliased_buffers),
	        cmocka_unit_test(test_overlap_rules),
	        cmocka_unit_test(test_transport_limit),
	        cmocka_unit_test(test_nonblocking_misuse),
	        cmocka_unit_test(test_nonblocking_fault),
	        cmocka_unit_test(test_pieces_exchange),
	        cmocka_unit_test(test_pieces_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
