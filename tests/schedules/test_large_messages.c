/*
 * test_large_messages.c - reduce_bcast, scatter_allgather,
 * reduce_scatter_gather and pairwise (schedules/large_messages.c), and
 * the dimension-wise bucket collectives and Swing (schedules/bucket.c).
 *
 * Each plan must pass the verifier and be reproducible; the phase
 * counts are the ones the algorithms are defined by, computed here:
 * reduce_bcast 2 ceil(lg n), scatter_allgather ceil(lg n) + n - 1,
 * reduce_scatter_gather n - 1 + ceil(lg n), pairwise n - 1, bucket
 * sum(e_d - 1) (allreduce twice), swing 2 lg n.  Where a generator is contention-free
 * (the binomial tree's machines, bucket on meshes and tori, pairwise on
 * a switch) the plan must say so: no contention flag, link load 1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir.h"
#include "sched.h"
#include "support.h"

/* ceil(lg n) */
static uint32_t clg(int32_t n)
{
	uint32_t l = 0;
	while ((INT64_C(1) << l) < n)
		l++;
	return l;
}

static ir_comm vector(enum ir_coll coll, int32_t root, int64_t bytes)
{
	ir_comm c = tu_comm(coll, root, bytes);
	c.dtype = IR_DT_DOUBLE;
	c.op = IR_OP_SUM;
	c.reproducible = ir_coll_kind(coll) & IR_CK_REDUCES;
	return c;
}

/* Generate with g (which must apply), verify, check it is reproducible,
 * and contention-free when free says so; returns the phase count. */
static uint32_t make(const struct sch_generator *g, const ir_machine *m,
                     const ir_comm *c, bool free_of_contention)
{
	char why[256] = "";
	struct sch_options o = {0};
	ir_plan p;
	ir_report r;
	int rc = sch_applies(g, m, c, why, sizeof why);
	if (rc)
		print_message("  %s: applies: %s\n", g->name, why);
	assert_int_equal(rc, 0);
	assert_int_equal(g->generate(m, c, &o, &p), 0);
	rc = ir_verify(&p, &r);
	if (rc)
		print_message("  %s on %d ranks: verifier: %s\n", g->name,
		              (int)m->nranks, r.message);
	assert_int_equal(rc, 0);
	assert_true(r.reproducible);
	if (free_of_contention) {
		assert_int_equal(p.flags, 0);
		assert_true(r.max_link_load <= 1);
	}
	assert_true(r.max_node_sends <= 1);
	assert_true(r.max_node_recvs <= 1);
	uint32_t phases = r.phases;
	ir_report_fini(&r);
	ir_plan_fini(&p);
	return phases;
}

static void test_reduce_bcast(void **state)
{
	(void)state;
	for (int32_t n = 2; n <= 13; n++) {
		ir_machine m = tu_machine(IR_SWITCH, 1, n, 0, 0, 0);
		ir_comm c = vector(IR_ALLREDUCE, 0, 8 * 5);
		assert_int_equal(make(&sch_reduce_bcast, &m, &c, true),
		                 2 * clg(n));
	}
	ir_machine m = tu_machine(IR_MESH, 1, 4, 4, 0, 0);
	ir_comm c = vector(IR_ALLREDUCE, 0, 8 * 100);
	assert_int_equal(make(&sch_reduce_bcast, &m, &c, true), 8);
}

static void test_scatter_allgather(void **state)
{
	(void)state;
	for (int32_t n = 2; n <= 13; n++) {
		ir_machine m = tu_machine(IR_SWITCH, 1, n, 0, 0, 0);
		for (int32_t root = 0; root < n; root += 3) {
			ir_comm c = tu_comm(IR_BCAST, root, 1000 + n);
			assert_int_equal(
			        make(&sch_scatter_allgather, &m, &c, true),
			        clg(n) + (uint32_t)n - 1);
		}
	}
	/* the snake through a mesh keeps the ring free of contention */
	ir_machine m = tu_machine(IR_MESH, 1, 4, 3, 0, 0);
	ir_comm c = tu_comm(IR_BCAST, 5, 4096);
	make(&sch_scatter_allgather, &m, &c, false);
	/* the plan cuts the message into one segment per rank; another
	 * count asked for is refused */
	char why[256];
	c.segments = 3;
	assert_int_equal(sch_applies(&sch_scatter_allgather, &m, &c, why,
	                             sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "segments must be 1 or 12"));
	c.segments = 12;
	assert_int_equal(sch_applies(&sch_scatter_allgather, &m, &c, why,
	                             sizeof why),
	                 0);
	ir_plan p;
	struct sch_options o = {0};
	assert_int_equal(sch_scatter_allgather.generate(&m, &c, &o, &p), 0);
	assert_int_equal(p.comm.segments, 12);
	ir_plan_fini(&p);
	/* a message shorter than the ranks has empty segments, which
	 * travel as the others do */
	c.segments = 1;
	c.bytes = 11;
	make(&sch_scatter_allgather, &m, &c, false);
}

static void test_reduce_scatter_gather(void **state)
{
	(void)state;
	for (int32_t n = 2; n <= 13; n++) {
		ir_machine m = tu_machine(IR_SWITCH, 1, n, 0, 0, 0);
		for (int32_t root = 0; root < n; root += 4) {
			ir_comm c = vector(IR_REDUCE, root, 8 * (3 * n + 1));
			assert_int_equal(
			        make(&sch_reduce_scatter_gather, &m, &c, false),
			        (uint32_t)n - 1 + clg(n));
		}
	}
}

static void test_pairwise(void **state)
{
	(void)state;
	for (int32_t n = 2; n <= 13; n++) {
		ir_machine m = tu_machine(IR_SWITCH, 1, n, 0, 0, 0);
		ir_comm c = vector(IR_REDUCE_SCATTER, 0, 8 * (2 * n + 1));
		assert_int_equal(make(&sch_pairwise, &m, &c, true),
		                 (uint32_t)n - 1);
	}
}

static void test_bucket(void **state)
{
	(void)state;
	const struct {
		enum ir_topo t;
		int x, y, z;
	} ms[] = {{IR_TORUS, 4, 4, 0},  {IR_TORUS, 3, 5, 2},
	          {IR_TORUS, 7, 0, 0},  {IR_MESH, 4, 3, 0},
	          {IR_MESH, 2, 3, 4},   {IR_MESH, 5, 0, 0}};
	enum ir_coll colls[] = {IR_ALLGATHER, IR_REDUCE_SCATTER, IR_ALLREDUCE};
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		ir_machine m = tu_machine(ms[i].t, 1, ms[i].x, ms[i].y,
		                          ms[i].z, 0);
		uint32_t steps = 0;
		for (int d = 0; d < m.ndims; d++)
			steps += (uint32_t)m.dims[d] - 1;
		for (size_t k = 0; k < sizeof colls / sizeof colls[0]; k++) {
			ir_comm c = colls[k] == IR_ALLGATHER
			                    ? tu_comm(IR_ALLGATHER, 0, 24)
			                    : vector(colls[k], 0,
			                             8 * (2 * m.nranks + 3));
			uint32_t want = colls[k] == IR_ALLREDUCE ? 2 * steps
			                                         : steps;
			assert_int_equal(make(&sch_bucket, &m, &c, true), want);
		}
	}
}

static void test_swing(void **state)
{
	(void)state;
	/* 2 lg n phases; on sides of 4 and less every peer is a neighbour,
	 * free of contention, while on a ring of 8 the peers 3 apart share
	 * links, and the plan says so */
	const int ms[][3] = {{2, 0, 0}, {4, 4, 0}, {2, 4, 2}, {8, 0, 0},
	                     {16, 4, 0}, {8, 8, 2}};
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		ir_machine m = tu_machine(IR_TORUS, 1, ms[i][0], ms[i][1],
		                          ms[i][2], 0);
		ir_comm c = vector(IR_ALLREDUCE, 0, 8 * (m.nranks + 5));
		bool near = m.dims[0] <= 4 && m.dims[1] <= 4 && m.dims[2] <= 4;
		assert_int_equal(make(&sch_swing, &m, &c, near),
		                 2 * clg(m.nranks));
		ir_plan p;
		struct sch_options o = {0};
		assert_int_equal(sch_swing.generate(&m, &c, &o, &p), 0);
		assert_int_equal(!!(p.flags & IR_PLAN_LINK_CONTENTION), !near);
		ir_plan_fini(&p);
	}
	char why[256];
	ir_machine m = tu_machine(IR_TORUS, 1, 6, 4, 0, 0);
	ir_comm c = vector(IR_ALLREDUCE, 0, 800);
	assert_int_equal(sch_applies(&sch_swing, &m, &c, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "power-of-two sides"));
}

/* The latency-optimal variant: lg n phases of the whole vector, the
 * same peers; free of contention, and reproducible, where every peer
 * is a neighbour (sides of at most 4); on a side of 8 the two partners
 * of a step have combined in different orders before it. */
static void test_swing_latency(void **state)
{
	(void)state;
	const int ms[][3] = {{2, 0, 0}, {4, 4, 0}, {2, 4, 2}, {8, 0, 0},
	                     {16, 4, 0}, {8, 8, 2}, {32, 0, 0}};
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		ir_machine m = tu_machine(IR_TORUS, 1, ms[i][0], ms[i][1],
		                          ms[i][2], 0);
		ir_comm c = vector(IR_ALLREDUCE, 0, 8 * 5);
		bool near = m.dims[0] <= 4 && m.dims[1] <= 4 && m.dims[2] <= 4;
		if (near) {
			assert_int_equal(make(&sch_swing_latency, &m, &c, true),
			                 clg(m.nranks));
			continue;
		}
		struct sch_options o = {0};
		ir_plan p;
		ir_report r;
		c.reproducible = false;
		assert_int_equal(sch_swing_latency.generate(&m, &c, &o, &p),
		                 0);
		assert_int_equal(ir_verify(&p, &r), 0);
		assert_int_equal(r.phases, clg(m.nranks));
		assert_false(r.reproducible);
		assert_true(p.flags & IR_PLAN_LINK_CONTENTION);
		ir_report_fini(&r);
		ir_plan_fini(&p);
		/* asked for, the verifier refuses it */
		c.reproducible = true;
		assert_int_equal(sch_swing_latency.generate(&m, &c, &o, &p),
		                 0);
		assert_int_not_equal(ir_verify(&p, &r), 0);
		assert_non_null(strstr(r.message, "reproducible"));
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
}

/* The pipelined chain: n - 2 + K phases for a broadcast (every root)
 * and a reduce (reproducible), free of contention on a switch and on
 * the snake through a mesh; K the input's segments, or chosen. */
static void test_chain(void **state)
{
	(void)state;
	for (int32_t n = 2; n <= 11; n++) {
		ir_machine m = tu_machine(IR_SWITCH, 1, n, 0, 0, 0);
		for (int32_t root = 0; root < n; root += 2) {
			ir_comm c = tu_comm(IR_BCAST, root, 1000 + n);
			c.segments = 1 + n % 4;
			assert_int_equal(make(&sch_chain, &m, &c, true),
			                 n - 2 + c.segments);
			ir_comm r = vector(IR_REDUCE, root, 8 * (3 + n));
			r.segments = 5;
			assert_int_equal(make(&sch_chain, &m, &r, true),
			                 n - 2 + 5);
		}
	}
	ir_machine mesh = tu_machine(IR_MESH, 1, 4, 3, 0, 0);
	ir_comm c = tu_comm(IR_BCAST, 5, 3000);
	c.segments = 6;
	assert_int_equal(make(&sch_chain, &mesh, &c, true), 12 - 2 + 6);

	/* K: the input's; else sqrt((n - 2) L phi / tau); else 64 KiB
	 * segments; at most an element each */
	ir_machine m = tu_machine(IR_SWITCH, 1, 8, 0, 0, 0);
	c = tu_comm(IR_BCAST, 0, 1 << 20);
	assert_int_equal(sch_chain_segments(&m, &c), 16);
	c.segments = 5;
	assert_int_equal(sch_chain_segments(&m, &c), 5);
	c.segments = 1;
	m.cost.tau = 38.85;
	m.cost.phi = 0.000936;
	assert_int_equal(sch_chain_segments(&m, &c), 12); /* sqrt(151.6) */
	ir_comm r = vector(IR_REDUCE, 0, 8 * 7);
	assert_int_equal(sch_chain_segments(&m, &r), 1); /* sqrt(0.09) */
	m.cost.tau = 1e-9; /* start-ups for free: as many as elements */
	assert_int_equal(sch_chain_segments(&m, &r), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_reduce_bcast),
	        cmocka_unit_test(test_scatter_allgather),
	        cmocka_unit_test(test_reduce_scatter_gather),
	        cmocka_unit_test(test_pairwise),
	        cmocka_unit_test(test_bucket),
	        cmocka_unit_test(test_swing),
	        cmocka_unit_test(test_swing_latency),
	        cmocka_unit_test(test_chain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
