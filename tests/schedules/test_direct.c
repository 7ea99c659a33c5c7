/*
 * test_direct.c - the schedules chosen by size against MPI's own
 * collectives (issue 20): `direct` scatter, gather and alltoall (every
 * block straight to its place, as many at once as the ports allow),
 * Bruck's alltoall (`bruck`), and the binomial scatter and gather
 * (`binomial`).
 *
 * Every plan must pass the verifier and lower to per-rank operations;
 * the phase counts and what each message carries are derived here from
 * the algorithms' definitions, not read back from the generators.
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
#include "sched_support.h"
#include "support.h"

static uint32_t ceil_lg(int32_t n)
{
	uint32_t k = 0;
	while (((int64_t)1 << k) < n)
		k++;
	return k;
}

/* ---- direct ------------------------------------------------------------- */

/* On an all-port switch every rank has N-1 links: one phase, the lower
 * bound, with no contention of any kind; with k ports, ceil((N-1)/k)
 * phases of k messages a rank, again the bound. */
static void test_direct_alltoall(void **state)
{
	(void)state;
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 64);
	for (int32_t n = 1; n <= 24; n++) {
		int ports[] = {IR_PORTS_ALL, 1, 2, 3, 5};
		for (size_t i = 0; i < sizeof ports / sizeof *ports; i++) {
			ir_machine m =
			        tu_machine(IR_SWITCH, ports[i], n, 0, 0, 0);
			int32_t k = ports[i] == IR_PORTS_ALL ? n - 1 : ports[i];
			ir_plan p;
			ir_report r;
			tu_make(&sch_direct, &m, &c, false, &p, &r);
			uint32_t want = n > 1 ? (uint32_t)((n - 2) / k + 1) : 0;
			assert_int_equal(r.phases, want);
			assert_int_equal(r.lb_phases, want);
			assert_int_equal(r.transfers, (uint64_t)n * (n - 1));
			assert_int_equal(p.flags, 0);
			assert_true(r.direct);
			if (n > 1) {
				uint32_t most =
				        (uint32_t)(k < n - 1 ? k : n - 1);
				assert_int_equal(r.max_node_sends, most);
				assert_int_equal(r.max_node_recvs, most);
			}
			ir_report_fini(&r);
			ir_plan_fini(&p);
		}
	}
}

/* The root sends (scatter) or receives (gather) every block at once on an
 * all-port switch; k at a time with k ports. */
static void test_direct_rooted(void **state)
{
	(void)state;
	enum ir_coll colls[] = {IR_SCATTER, IR_GATHER};
	for (size_t ci = 0; ci < 2; ci++)
		for (int32_t n = 1; n <= 17; n++)
			for (int32_t root = 0; root < n; root += 3) {
				ir_comm c = tu_comm(colls[ci], root, 100);
				ir_machine m = tu_machine(
				        IR_SWITCH, IR_PORTS_ALL, n, 0, 0, 0);
				ir_plan p;
				ir_report r;
				tu_make(&sch_direct, &m, &c, false, &p, &r);
				assert_int_equal(r.phases, n > 1 ? 1 : 0);
				assert_int_equal(r.transfers,
				                 (uint64_t)(n - 1));
				assert_int_equal(r.bytes,
				                 (uint64_t)(n - 1) * 100);
				ir_report_fini(&r);
				ir_plan_fini(&p);
				m = tu_machine(IR_SWITCH, 2, n, 0, 0, 0);
				tu_make(&sch_direct, &m, &c, false, &p, &r);
				assert_int_equal(r.phases, (uint32_t)(n / 2));
				ir_report_fini(&r);
				ir_plan_fini(&p);
			}
}

/* On a mesh the routes share links: the plan says so, and under
 * `contention: forbid` the phases split until no link carries two. */
static void test_direct_mesh(void **state)
{
	(void)state;
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 8);
	ir_machine m = tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 0, 0);
	ir_plan p;
	ir_report r;
	tu_make(&sch_direct, &m, &c, false, &p, &r);
	/* a corner has 2 links: 15 messages 2 at a time */
	assert_int_equal(r.phases, 8);
	assert_true(p.flags & IR_PLAN_LINK_CONTENTION);
	assert_true(r.max_link_load > 1);
	ir_report_fini(&r);
	ir_plan_fini(&p);
	tu_make(&sch_direct, &m, &c, true, &p, &r);
	assert_int_equal(p.flags, 0);
	assert_int_equal(r.max_link_load, 1);
	assert_int_equal(r.transfers, 16 * 15);
	ir_report_fini(&r);
	ir_plan_fini(&p);
	char why[256];
	ir_comm b = tu_comm(IR_BCAST, 0, 8);
	assert_int_equal(sch_applies(&sch_direct, &m, &b, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_string_equal(why, "direct is a scatter, gather or all-to-all "
	                         "(complete exchange); this is a broadcast");
}

/* ---- Bruck's alltoall --------------------------------------------------- */

/* ceil(lg N) phases for every N, the bound on a one-port switch; in
 * phase k every rank sends one message to r + 2^k, carrying one block for each
 * distance e in 1..N-1 with bit k set (so every block moves popcount(e) times);
 * all of it contention free on a switch. */
static void test_bruck_alltoall(void **state)
{
	(void)state;
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 16);
	for (int32_t n = 1; n <= 40; n++) {
		ir_machine m = tu_machine(IR_SWITCH, 1, n, 0, 0, 0);
		ir_plan p;
		ir_report r;
		tu_make(&sch_bruck, &m, &c, false, &p, &r);
		assert_int_equal(r.phases, ceil_lg(n));
		/* one port: the spreading bound of a plan that forwards */
		assert_int_equal(r.lb_phases, ceil_lg(n));
		assert_int_equal(p.flags, 0);
		assert_false(n > 3 && r.direct); /* e = 3 takes two hops */
		uint64_t moves = 0;
		for (uint32_t k = 0; k < p.nphases; k++) {
			int64_t bit = (int64_t)1 << k;
			uint32_t want = 0;
			for (int64_t e = 1; e < n; e++) {
				want += (e & bit) != 0;
				moves += (e & bit) != 0;
			}
			const ir_phase *ph = &p.phases[k];
			assert_int_equal(ph->ntransfers, (uint32_t)n);
			for (uint32_t t = 0; t < ph->ntransfers; t++) {
				const ir_transfer *x =
				        &p.transfers[ph->transfer + t];
				assert_int_equal(x->dst, (x->src + bit) % n);
				assert_int_equal(x->nblocks, want);
			}
		}
		assert_int_equal(r.bytes, moves * (uint64_t)n * 16);
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
	/* on a ring the hops of 2^k share links: declared and measured */
	ir_machine t = tu_machine(IR_TORUS, 1, 8, 0, 0, 0);
	ir_plan p;
	ir_report r;
	tu_make(&sch_bruck, &t, &c, false, &p, &r);
	assert_int_equal(r.phases, 3);
	assert_true(p.flags & IR_PLAN_LINK_CONTENTION);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* ---- binomial scatter and gather ---------------------------------------- */

/* The broadcast's tree, each edge carrying the blocks of the partner's
 * half: ceil(lg N) phases on a switch (lg r + lg c on a mesh), and on a
 * power of two N the messages of phase k carry N/2^(k+1) blocks. */
static void test_binomial_scatter_gather(void **state)
{
	(void)state;
	enum ir_coll colls[] = {IR_SCATTER, IR_GATHER};
	for (size_t ci = 0; ci < 2; ci++)
		for (int32_t n = 1; n <= 33; n++)
			for (int32_t root = 0; root < n; root += 5) {
				ir_comm c = tu_comm(colls[ci], root, 10);
				ir_machine m =
				        tu_machine(IR_SWITCH, 1, n, 0, 0, 0);
				ir_plan p;
				ir_report r;
				tu_make(&sch_binomial, &m, &c, false, &p, &r);
				assert_int_equal(r.phases, ceil_lg(n));
				assert_int_equal(r.transfers,
				                 (uint64_t)(n - 1));
				assert_int_equal(p.flags, 0);
				if ((n & (n - 1)) == 0 && n > 1) {
					uint32_t lg = ceil_lg(n);
					/* lg N / 2 blocks a rank, on average */
					assert_int_equal(r.bytes,
					                 (uint64_t)n / 2 * lg *
					                         10);
					for (uint32_t k = 0; k < p.nphases;
					     k++) {
						/* a gather runs the tree
						 * backwards */
						uint32_t d =
						        colls[ci] == IR_GATHER
						                ? lg - 1 - k
						                : k;
						const ir_phase *ph =
						        &p.phases[k];
						for (uint32_t t = 0;
						     t < ph->ntransfers; t++)
							assert_int_equal(
							        p.transfers[ph->transfer +
							                    t]
							                .nblocks,
							        (uint32_t)n >>
							                (d +
							                 1));
					}
				}
				ir_report_fini(&r);
				ir_plan_fini(&p);
			}
	/* meshes, tori and cubes: the halving's phases, link-disjoint */
	ir_machine ms[] = {
	        tu_machine(IR_MESH, 1, 3, 5, 0, 0),
	        tu_machine(IR_MESH, 1, 4, 4, 2, 0),
	        tu_machine(IR_TORUS, 1, 6, 4, 0, 0),
	        tu_machine(IR_HYPERCUBE, 1, 4, 0, 0, 0),
	};
	uint32_t want[] = {2 + 3, 2 + 2 + 1, 3 + 2, 4};
	for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
		for (size_t ci = 0; ci < 2; ci++) {
			ir_comm c = tu_comm(colls[ci], ms[i].nranks - 1, 4);
			ir_plan p;
			ir_report r;
			tu_make(&sch_binomial, &ms[i], &c, false, &p, &r);
			assert_int_equal(r.phases, want[i]);
			assert_int_equal(p.flags, 0);
			assert_int_equal(r.max_link_load, 1);
			ir_report_fini(&r);
			ir_plan_fini(&p);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_direct_alltoall),
	        cmocka_unit_test(test_direct_rooted),
	        cmocka_unit_test(test_direct_mesh),
	        cmocka_unit_test(test_bruck_alltoall),
	        cmocka_unit_test(test_binomial_scatter_gather),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
