/*
 * test_hypercube.c - the hypercube broadcasts of 002 (hypercube.c): sbt,
 * hokao and the pipelined replication tree.
 *
 * Every plan is generated, passed through the verifier (causality,
 * delivery, node and link contention under e-cube routing, flags 0) and
 * its phases counted: sbt must take exactly n phases, reptree exactly
 * n + m - 1 with m segments, hokao at most the phases of the subcube
 * recursion derived below and never fewer than the spreading bound.  The
 * measured hokao counts are printed, for docs/hypercube.md.
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

/* ---- helpers -------------------------------------------------------- */

/* An n-cube, e-cube routing, with the given ports. */
static ir_machine cube(int n, int ports)
{
	return tu_machine(IR_HYPERCUBE, ports, n, 0, 0, 0);
}

static ir_comm bcast(int32_t root, int32_t segments, int64_t bytes)
{
	ir_comm c = tu_comm(IR_BCAST, root, bytes);
	c.segments = segments;
	return c;
}

/* Generate with g (which must apply), verify, and return the phase
 * count; the verifier must accept with no duplicates and a plan that
 * declares no contention.  r is filled for further checks; released
 * here. */
static uint32_t run(const struct sch_generator *g, const ir_machine *m,
                    const ir_comm *c, ir_report *out)
{
	char why[256] = "";
	struct sch_options o = {0};
	ir_plan p;
	ir_report r;
	memset(&r, 0, sizeof r);
	int rc = sch_applies(g, m, c, why, sizeof why);
	if (rc)
		fail_msg("%s does not apply: %s", g->name, why);
	assert_int_equal(g->generate(m, c, &o, &p), 0);
	assert_int_equal(p.flags, 0);
	rc = ir_verify(&p, &r);
	if (rc)
		fail_msg("%s n=%d root=%d m=%d rejected: %s", g->name, m->ndims,
		         c->root, c->segments, r.message);
	assert_true(r.ok);
	assert_int_equal(r.duplicates, 0);
	assert_int_equal(r.phases, p.nphases);
	uint32_t ph = r.phases;
	if (out) {
		*out = r;
		out->link_load = NULL;
	}
	ir_report_fini(&r);
	ir_plan_fini(&p);
	return ph;
}

/* Roots to try on an n-cube: 0, the last rank, and an irregular one. */
static int32_t pick_root(int n, int k)
{
	int32_t nr = (int32_t)1 << n;
	if (k == 0)
		return 0;
	if (k == 1)
		return nr - 1;
	return (int32_t)(0x5a5a5a5u % (uint32_t)nr);
}

/* Phases of the subcube recursion: a holder of a k-cube splits it into
 * 2^t subcubes, t = floor(log2(k+1)) (2^t - 1 <= k targets over
 * disjoint routes), then each subcube of k - t dimensions goes on alone.
 * Derived here, independently of the generator, as an upper bound. */
static uint32_t subcube_phases(int k)
{
	if (k <= 0)
		return 0;
	int t = 0;
	while ((1 << (t + 1)) <= k + 1)
		t++;
	return 1 + subcube_phases(k - t);
}

/* ceil(n / log2(n+1)) by integer search: smallest s with (n+1)^s >= 2^n. */
static uint32_t spread(int n)
{
	uint64_t h = 1, need = (uint64_t)1 << n;
	uint32_t s = 0;
	while (h < need) {
		h *= (uint64_t)(n + 1);
		s++;
	}
	return s;
}

/* ---- sbt ------------------------------------------------------------ */

/* n phases, one send and one receive per rank and phase, on a one-port
 * cube, for several roots and segment counts. */
static void test_sbt_phases(void **state)
{
	(void)state;
	for (int n = 1; n <= 10; n++) {
		ir_machine m = cube(n, 1);
		for (int k = 0; k < 3; k++)
			for (int32_t seg = 1; seg <= 4; seg += 3) {
				ir_comm c = bcast(pick_root(n, k), seg, 1000);
				ir_report r;
				assert_int_equal(run(&sch_sbt, &m, &c, &r),
				                 (uint32_t)n);
				assert_int_equal(r.max_node_sends, 1);
				assert_int_equal(r.max_node_recvs, 1);
				assert_int_equal(r.max_link_load, 1);
				assert_int_equal(r.transfers,
				                 ((uint64_t)1 << n) - 1);
			}
	}
}

/* ---- hokao ---------------------------------------------------------- */

/* Verified for n = 1..12 and several roots; the phases never beat the
 * spreading bound, never exceed the subcube recursion, and the same
 * count comes out for every root (the greedy works relative to it). */
static void test_hokao_phases(void **state)
{
	(void)state;
	printf("   n  spread  subcube  hokao  sbt\n");
	for (int n = 1; n <= 12; n++) {
		ir_machine m = cube(n, IR_PORTS_ALL);
		uint32_t first = 0;
		for (int k = 0; k < (n <= 10 ? 3 : 1); k++) {
			ir_comm c = bcast(pick_root(n, k), 2, 4096);
			ir_report r;
			uint32_t ph = run(&sch_hokao, &m, &c, &r);
			assert_int_equal(r.lb_spread, spread(n));
			assert_true(ph >= spread(n));
			assert_true(ph <= subcube_phases(n));
			assert_true(r.max_node_sends <= (uint32_t)n);
			assert_int_equal(r.max_node_recvs, 1);
			assert_int_equal(r.max_link_load, 1);
			if (k == 0)
				first = ph;
			assert_int_equal(ph, first);
		}
		printf("%4d %7u %8u %6u %4d\n", n, spread(n), subcube_phases(n),
		       first, n);
	}
}

/* ---- reptree -------------------------------------------------------- */

/* Exactly n + m - 1 phases for n = 1..10 and m = 1..16, every segment
 * delivered once, each rank receiving one segment per phase and the
 * root sending on all n links. */
static void test_reptree_phases(void **state)
{
	(void)state;
	for (int n = 1; n <= 10; n++) {
		ir_machine m = cube(n, IR_PORTS_ALL);
		for (int32_t seg = 1; seg <= 16; seg++) {
			ir_comm c =
			        bcast(pick_root(n, seg % 3), seg, 1000 + seg);
			ir_report r;
			assert_int_equal(run(&sch_reptree, &m, &c, &r),
			                 (uint32_t)(n + seg - 1));
			assert_int_equal(r.max_link_load, 1);
			assert_int_equal(r.max_node_recvs, 1);
			assert_int_equal(r.max_node_sends, (uint32_t)n);
			assert_int_equal(r.transfers, (((uint64_t)1 << n) - 1) *
			                                      (uint64_t)seg);
			assert_int_equal(r.hops, r.transfers);
		}
	}
}

/* Larger segment counts, including more segments than bytes. */
static void test_reptree_long(void **state)
{
	(void)state;
	static const int32_t segs[] = {17, 64, 100, 257, 1000, 4096};
	for (int n = 1; n <= 6; n++) {
		ir_machine m = cube(n, IR_PORTS_ALL);
		for (size_t i = 0; i < sizeof segs / sizeof segs[0]; i++) {
			ir_comm c =
			        bcast(pick_root(n, (int)i % 3), segs[i], 65536);
			assert_int_equal(run(&sch_reptree, &m, &c, NULL),
			                 (uint32_t)(n + segs[i] - 1));
		}
	}
	/* 10-cube, 100 segments: 102300 transfers */
	ir_machine m = cube(10, IR_PORTS_ALL);
	ir_comm c = bcast(777, 100, 1 << 20);
	assert_int_equal(run(&sch_reptree, &m, &c, NULL), 109);
	/* a k-port cube with k >= n is as good as all-port */
	m = cube(5, 5);
	c = bcast(3, 8, 4096);
	assert_int_equal(run(&sch_reptree, &m, &c, NULL), 12);
}

/* The plan lowers to per-rank operations (one segment per receive). */
static void test_reptree_lowers(void **state)
{
	(void)state;
	ir_machine m = cube(3, IR_PORTS_ALL);
	ir_comm c = bcast(5, 4, 103);
	struct sch_options o = {0};
	ir_plan p;
	ir_slice *s = NULL;
	assert_int_equal(sch_reptree.generate(&m, &c, &o, &p), 0);
	assert_int_equal(ir_lower(&p, &s), 0);
	for (int32_t r = 0; r < m.nranks; r++) {
		uint32_t recvs = 0;
		for (uint32_t k = 0; k < s[r].nops; k++)
			recvs += s[r].ops[k].code == IR_OP_RECV;
		assert_int_equal(recvs, r == 5 ? 0 : 4);
	}
	ir_slices_free(s, m.nranks);
	ir_plan_fini(&p);
}

/* ---- applies -------------------------------------------------------- */

static void expect_not(const struct sch_generator *g, const ir_machine *m,
                       const ir_comm *c, const char *why_expected)
{
	char why[256] = "";
	assert_int_equal(sch_applies(g, m, c, why, sizeof why), CCP_ENOTAPPLY);
	assert_string_equal(why, why_expected);
}

/* Each refusal says exactly why. */
static void test_applies(void **state)
{
	(void)state;
	ir_machine mesh;
	memset(&mesh, 0, sizeof mesh);
	mesh.topo = IR_MESH;
	mesh.ndims = 2;
	mesh.dims[0] = mesh.dims[1] = 4;
	mesh.dims[2] = 1;
	mesh.routing = IR_ROUTE_DIM_ORDER;
	mesh.ports = IR_PORTS_ALL;
	char err[256];
	assert_int_equal(ir_machine_check(&mesh, err, sizeof err), 0);
	ir_comm c = bcast(0, 1, 64);
	expect_not(&sch_reptree, &mesh, &c,
	           "reptree needs an all-port hypercube; this machine is a "
	           "4x4 mesh");
	expect_not(&sch_hokao, &mesh, &c,
	           "hokao needs an all-port hypercube; this machine is a "
	           "4x4 mesh");
	expect_not(&sch_sbt, &mesh, &c,
	           "sbt needs a hypercube; this machine is a 4x4 mesh");
	ir_machine one = cube(4, 1), two = cube(4, 2);
	expect_not(&sch_reptree, &one, &c,
	           "reptree needs an all-port hypercube; this machine is a "
	           "hypercube of dimension 4 with 1-port nodes, and all-port "
	           "here means ports: all or at least 4");
	expect_not(&sch_hokao, &two, &c,
	           "hokao needs an all-port hypercube; this machine is a "
	           "hypercube of dimension 4 with 2-port nodes, and all-port "
	           "here means ports: all or at least 4");
	char why[256];
	assert_int_equal(sch_applies(&sch_sbt, &one, &c, why, sizeof why), 0);
	ir_machine big = cube(13, IR_PORTS_ALL);
	expect_not(&sch_hokao, &big, &c,
	           "hokao's greedy route search is quadratic in ranks and "
	           "limited to 12-cubes; this machine is a 13-cube");
	assert_int_equal(sch_applies(&sch_reptree, &big, &c, why, sizeof why), 0);
	ir_comm sc = bcast(0, 1, 64);
	sc.coll = IR_SCATTER;
	expect_not(&sch_reptree, &big, &sc,
	           "reptree is a broadcast; this is a scatter");
	ir_comm huge = bcast(0, 65536, 1 << 20);
	ir_machine b20 = cube(20, IR_PORTS_ALL);
	expect_not(&sch_reptree, &b20, &huge,
	           "reptree would carry (2^20 - 1) x 65536 segment blocks, "
	           "more than a plan holds (2^32 - 1)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_sbt_phases),
	        cmocka_unit_test(test_hokao_phases),
	        cmocka_unit_test(test_reptree_phases),
	        cmocka_unit_test(test_reptree_long),
	        cmocka_unit_test(test_reptree_lowers),
	        cmocka_unit_test(test_applies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
