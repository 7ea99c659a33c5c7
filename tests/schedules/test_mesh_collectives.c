/*
 * test_mesh_collectives.c - the mesh collectives of
 * schedules/mesh_collectives.c: tree scatter and gather (000 eq. 9, section 5)
 * and the transposes (001 section 3.6).
 *
 * Every plan must pass the verifier; the tests count the phases of the
 * verified plans and read the link loads the verifier measured.  The
 * papers' figures appear only here, never in the generators.
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

/* An X x Y mesh (X columns, Y rows), X-Y routing. */
static ir_machine mesh(int x, int y, int ports)
{
	return tu_machine(IR_MESH, ports, x, y > 1 ? y : 0, 0, 0);
}

static int ilog2c(int v)
{
	int k = 0;
	while ((1 << k) < v)
		k++;
	return k;
}

/* Generate with g (which must apply) and verify; print the verifier's
 * message on failure.  Returns the verifier's code; the caller releases
 * plan and report. */
static int make(const struct sch_generator *g, const ir_machine *m,
                const ir_comm *c, ir_plan *p, ir_report *r)
{
	char why[256] = "";
	struct sch_options o = {0};
	int rc = sch_applies(g, m, c, why, sizeof why);
	if (rc)
		print_message("  %s: does not apply: %s\n", g->name, why);
	assert_int_equal(rc, 0);
	assert_int_equal(g->generate(m, c, &o, p), 0);
	rc = ir_verify(p, r);
	if (rc)
		print_message("  %s %dx%d: verifier: %s\n", g->name, m->dims[0],
		              m->dims[1], r->message);
	return rc;
}

/* ---- tree scatter and gather ---------------------------------------- */

/* lg r + lg c phases from every root of power-of-two meshes, one-port,
 * contention-free (000 eq. 9: the lg r + lg c factor of Gamma). */
static void check_tree(const struct sch_generator *g, enum ir_coll coll)
{
	static const int shapes[][2] = {{1, 1},  {2, 1},  {4, 1}, {2, 2},
	                                {4, 4},  {8, 4},  {4, 8}, {8, 8},
	                                {16, 4}, {16, 16}};
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		ir_machine m = mesh(shapes[s][0], shapes[s][1], 1);
		for (int32_t root = 0; root < m.nranks; root++) {
			ir_comm c = {.coll = coll, .root = root, .bytes = 8};
			ir_plan p;
			ir_report r;
			assert_int_equal(make(g, &m, &c, &p, &r), 0);
			assert_int_equal(r.phases,
			                 (uint32_t)(ilog2c(shapes[s][0]) +
			                            ilog2c(shapes[s][1])));
			assert_int_equal(r.max_link_load, m.nranks > 1 ? 1 : 0);
			assert_true(r.max_node_sends <= 1);
			assert_true(r.max_node_recvs <= 1);
			assert_int_equal(r.duplicates, 0);
			/* N-1 messages, every block moved once per level */
			assert_int_equal(r.transfers, (uint64_t)m.nranks - 1);
			ir_report_fini(&r);
			ir_plan_fini(&p);
		}
	}
}

static void test_tree_scatter_pow2(void **state)
{
	(void)state;
	check_tree(&sch_tree_scatter, IR_SCATTER);
}

static void test_tree_gather_pow2(void **state)
{
	(void)state;
	check_tree(&sch_tree_gather, IR_GATHER);
}

/* Other shapes still verify, in ceil(lg r) + ceil(lg c) phases at most. */
static void test_tree_odd_shapes(void **state)
{
	(void)state;
	static const int shapes[][2] = {
	        {3, 1}, {5, 3}, {6, 6}, {7, 5}, {12, 9}};
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		ir_machine m = mesh(shapes[s][0], shapes[s][1], 1);
		for (int32_t root = 0; root < m.nranks; root++)
			for (int gth = 0; gth < 2; gth++) {
				ir_comm c = {.coll = gth ? IR_GATHER
				                         : IR_SCATTER,
				             .root = root,
				             .bytes = 3};
				ir_plan p;
				ir_report r;
				assert_int_equal(make(gth ? &sch_tree_gather
				                          : &sch_tree_scatter,
				                      &m, &c, &p, &r),
				                 0);
				assert_true(r.phases <=
				            (uint32_t)(ilog2c(shapes[s][0]) +
				                       ilog2c(shapes[s][1])));
				assert_int_equal(r.max_link_load, 1);
				ir_report_fini(&r);
				ir_plan_fini(&p);
			}
	}
}

static void test_tree_applies(void **state)
{
	(void)state;
	char why[256];
	ir_machine m = mesh(4, 4, 1);
	ir_comm bc = {.coll = IR_BCAST, .bytes = 8};
	assert_int_equal(sch_applies(&sch_tree_scatter, &m, &bc, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "broadcast"));
	ir_machine t = m;
	t.topo = IR_TORUS;
	ir_comm g = {.coll = IR_GATHER, .bytes = 8};
	assert_int_equal(sch_applies(&sch_tree_gather, &t, &g, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "4x4 torus"));
}

/* ---- transposes ----------------------------------------------------- */

/* Direct: one phase, link contention allowed and measured. */
static void test_transpose_direct(void **state)
{
	(void)state;
	for (int k = 1; k <= 5; k++) {
		int n = 1 << k;
		ir_machine m = mesh(n, n, IR_PORTS_ALL);
		ir_comm c = {.coll = IR_TRANSPOSE, .bytes = 64};
		ir_plan p;
		ir_report r;
		assert_int_equal(make(&sch_transpose_direct, &m, &c, &p, &r),
		                 0);
		assert_int_equal(r.phases, 1);
		assert_int_equal(r.transfers, (uint64_t)(n * n - n));
		assert_true(r.direct);
		print_message("  transpose_direct %dx%d: max link load %u\n", n,
		              n, r.max_link_load);
		/* row 0 funnels its n-1 off-diagonal blocks over the link
		 * (1,0) -> (0,0), and they all climb column 0 from (0,0):
		 * load n-1, the largest of any row or column */
		assert_int_equal(r.max_link_load, (uint32_t)(n - 1));
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_tree_scatter_pow2),
	        cmocka_unit_test(test_tree_gather_pow2),
	        cmocka_unit_test(test_tree_odd_shapes),
	        cmocka_unit_test(test_tree_applies),
	        cmocka_unit_test(test_transpose_direct),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
