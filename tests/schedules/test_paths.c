/*
 * test_paths.c - paths the sender picks (`routing: source`): the paths
 * of a fat tree and of a dragonfly numbered as docs/machine-model.md
 * says, the verifier checking the paths a plan records, the lower bound
 * that holds for every choice, link_aware picking paths to need fewer
 * phases than the routing's own, and plan files keeping the paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec.h"
#include "ir.h"
#include "matrix.h"
#include "irregular.h"
#include "sched.h"
#include "support.h"

static const int m44[] = {4, 4}, w14[] = {1, 4}, m888[] = {8, 8, 8},
                 w188[] = {1, 8, 8};

/* XGFT(2; 4,4; 1,4): 16 hosts, 4 leaf switches, 4 spines */
static ir_machine full_tree(enum ir_routing r)
{
	return tu_fat_tree(2, m44, w14, NULL, 1, r, IR_PORTS_ALL);
}

/* Whether routes a (ha links) and b (hb links) are the same. */
static bool same_route(const uint64_t *a, int ha, const uint64_t *b, int hb)
{
	return ha == hb && memcmp(a, b, (size_t)ha * sizeof *a) == 0;
}

/* On a full two-level tree a message between leaves has one path per
 * spine: 4, all distinct, as long as d-mod-k's and with its classes;
 * path 0 is d-mod-k's route; inside a leaf there is one. */
static void test_tree_paths(void **state)
{
	(void)state;
	ir_machine m = full_tree(IR_ROUTE_SOURCE), d = full_tree(IR_ROUTE_D_MOD_K);
	uint64_t r[4][8], dr[8];
	assert_true(ir_routing_chooses(&m));
	assert_false(ir_routing_chooses(&d));
	assert_false(ir_routing_adapts(&m));
	assert_int_equal(ir_path_count(&m, 1, 9), 4);
	assert_int_equal(ir_path_count(&m, 1, 2), 1);
	assert_int_equal(ir_path_count(&d, 1, 9), 1);
	int dh = ir_route(&d, 1, 9, dr);
	for (uint32_t p = 0; p < 4; p++) {
		int h = ir_route_via(&m, 1, 9, p, r[p]);
		assert_int_equal(h, 4);
		for (uint32_t q = 0; q < p; q++)
			assert_false(same_route(r[p], h, r[q], 4));
		assert_int_equal(ir_link_class(&m, r[p][1]), IR_LC_UP);
		assert_int_equal(ir_link_class(&m, r[p][2]), IR_LC_DOWN);
	}
	assert_true(same_route(r[0], 4, dr, dh));
	assert_int_equal(ir_route_via(&m, 1, 9, 4, r[0]), CCP_EINVAL);
	assert_int_equal(ir_route_via(&m, 1, 2, 1, r[0]), CCP_EINVAL);
	uint32_t least[IR_NLINK_CLASSES];
	ir_path_least(&m, 1, 9, least);
	assert_int_equal(least[IR_LC_HOST], 2);
	assert_int_equal(least[IR_LC_UP], 1);
	assert_int_equal(least[IR_LC_DOWN], 1);
}

/* A dragonfly of 5 groups of 2 routers, 2 global links each (one round
 * per group pair): between groups, path 0 is minimal (one global link)
 * and paths 1..3 go through the other three groups (two); inside a
 * group there is one. */
static void test_dragonfly_paths(void **state)
{
	(void)state;
	ir_machine m = tu_dragonfly(5, 2, 2, 2, IR_DFLY_RELATIVE, NULL, 1,
	                            IR_ROUTE_SOURCE, 0, IR_PORTS_ALL);
	ir_machine mn = tu_dragonfly(5, 2, 2, 2, IR_DFLY_RELATIVE, NULL, 1,
	                             IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL);
	uint64_t r[8], rn[8];
	/* hosts 0 (group 0) and 12 (group 3); 0 and 3 share group 0 */
	assert_int_equal(ir_path_count(&m, 0, 12), 4);
	assert_int_equal(ir_path_count(&m, 0, 3), 1);
	assert_true(same_route(r, ir_route_via(&m, 0, 12, 0, r), rn,
	                       ir_route(&mn, 0, 12, rn)));
	for (uint32_t p = 0; p < 4; p++) {
		int h = ir_route_via(&m, 0, 12, p, r), global = 0;
		for (int i = 0; i < h; i++)
			global += ir_link_class(&m, r[i]) == IR_LC_GLOBAL;
		assert_int_equal(global, p ? 2 : 1);
	}
	assert_int_equal(ir_route_via(&m, 0, 12, 4, r), CCP_EINVAL);
	uint32_t least[IR_NLINK_CLASSES];
	ir_path_least(&m, 0, 12, least);
	assert_int_equal(least[IR_LC_GLOBAL], 1);
	assert_int_equal(least[IR_LC_HOST], 2);
}

/* Messages 0 -> 4 and 1 -> 8 both leave leaf 0 by d-mod-k's port 0 (4
 * and 8 are 0 mod 4); on paths 0 and 1 they do not meet.  The verifier checks the
 * paths the plan records, and refuses a path the message does not
 * have. */
static void test_verifier(void **state)
{
	(void)state;
	ir_machine m = full_tree(IR_ROUTE_SOURCE);
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 8);
	for (int pick = 0; pick < 3; pick++) {
		ir_plan p;
		ir_report r;
		ir_block b0 = {0, 4}, b1 = {1, 8};
		ir_plan_init(&p, &m, &c, "hand");
		assert_int_equal(ir_plan_phase(&p), 0);
		assert_int_equal(ir_plan_add(&p, 0, 4, &b0, 1, 0), 0);
		assert_int_equal(ir_plan_add(&p, 1, 8, &b1, 1, 0), 0);
		p.transfers[1].path = pick == 0 ? 0 : pick == 1 ? 1 : 9;
		(void)ir_verify(&p, &r);
		if (pick == 0)
			assert_non_null(strstr(r.message, "link"));
		else if (pick == 1)
			assert_null(strstr(r.message, "link:"));
		else
			assert_non_null(strstr(r.message, "takes path 9"));
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
}

/* The bound where the sender picks: a random 16-regular pattern on the
 * 512 hosts of XGFT(3; 8,8,8; 1,8,8) loads d-mod-k's busiest link above
 * the degree, but the tree has the bisection for any pattern, so the
 * class term is at most the degree; link_aware then picks paths and
 * needs fewer phases than with d-mod-k, in a plan that verifies and
 * records its paths, which a plan file keeps. */
static void test_link_aware(void **state)
{
	(void)state;
	ir_machine src = tu_fat_tree(3, m888, w188, NULL, 1, IR_ROUTE_SOURCE,
	                             IR_PORTS_ALL);
	ir_machine dmk = tu_fat_tree(3, m888, w188, NULL, 1,
	                             IR_ROUTE_D_MOD_K, IR_PORTS_ALL);
	ir_matrix *x = ir_matrix_regular(512, 16, 1024, 3);
	assert_non_null(x);
	ir_plan ps, pd;
	ir_report rs, rd;
	assert_int_equal(sch_irregular(&src, x, SCH_IRR_LINK_AWARE, 1, &ps), 0);
	assert_int_equal(sch_irregular(&dmk, x, SCH_IRR_LINK_AWARE, 1, &pd), 0);
	assert_int_equal(ir_verify(&ps, &rs), 0);
	assert_int_equal(ir_verify(&pd, &rd), 0);
	assert_int_equal(rs.lb_degree, 16);
	assert_int_equal(rs.lb_link, 16);
	assert_true(rd.lb_link > 16);
	/* routed as a Clos network, every colour fits: the degree bound */
	assert_int_equal(rs.phases, 16);
	assert_true(rd.phases > 16);
	uint32_t picked = 0;
	for (uint32_t t = 0; t < ps.ntransfers; t++)
		picked += ps.transfers[t].path != 0;
	assert_true(picked > 0);

	/* the file: version 8, paths in the transfers and the sends */
	ir_slice *sl = NULL;
	uint8_t *img = NULL;
	size_t len = 0;
	char err[256];
	assert_int_equal(ir_lower(&ps, &sl), 0);
	assert_int_equal(ir_plan_encode(&ps, &rs, sl, &img, &len, err,
	                                sizeof err),
	                 0);
	ir_plan back;
	ir_file_info fi;
	assert_int_equal(ir_plan_decode(img, len, &back, &fi, err, sizeof err),
	                 0);
	assert_int_equal(fi.version, 8);
	for (uint32_t t = 0; t < ps.ntransfers; t++)
		assert_int_equal(back.transfers[t].path, ps.transfers[t].path);
	uint32_t sends = 0;
	for (int32_t k = 0; k < 512; k++) {
		ir_slice one;
		assert_int_equal(ir_slice_from_checked(img, len, &fi, k, &one,
		                                       err, sizeof err),
		                 0);
		for (uint32_t i = 0; i < one.nops; i++)
			sends += one.ops[i].code == IR_OP_SEND &&
			         one.ops[i].path != 0;
		ir_slice_fini(&one);
	}
	assert_int_equal(sends, picked);
	/* a path the message does not have: the file's own check
	 * (check_plan, which decoding runs too) refuses to write it */
	uint8_t *bad_img = NULL;
	size_t bad_len = 0;
	back.transfers[0].path = 4096;
	assert_int_equal(ir_plan_encode(&back, &rs, sl, &bad_img, &bad_len,
	                                err, sizeof err),
	                 CCP_EINVAL);
	assert_non_null(strstr(err, "takes path 4096"));
	assert_null(bad_img);
	ir_plan_fini(&back);
	free(img);
	ir_slices_free(sl, 512);

	ir_report_fini(&rs);
	ir_report_fini(&rd);
	ir_plan_fini(&ps);
	ir_plan_fini(&pd);
	ir_matrix_free(x);
}

/* link_aware's phases for the pattern x where the sender picks paths
 * (src) and with the routing's own paths (min), in *ns and *nm; both
 * plans verified, and neither below the bound. */
static void both_phases(const ir_machine *src, const ir_machine *min,
                        const ir_matrix *x, uint64_t seed, uint32_t *ns,
                        uint32_t *nm)
{
	ir_plan ps, pm;
	ir_report rs, rm;
	assert_int_equal(sch_irregular(src, x, SCH_IRR_LINK_AWARE, seed, &ps),
	                 0);
	assert_int_equal(sch_irregular(min, x, SCH_IRR_LINK_AWARE, seed, &pm),
	                 0);
	assert_int_equal(ir_verify(&ps, &rs), 0);
	assert_int_equal(ir_verify(&pm, &rm), 0);
	assert_true(rs.phases >= rs.lb_phases);
	*ns = rs.phases;
	*nm = rm.phases;
	ir_report_fini(&rs);
	ir_report_fini(&rm);
	ir_plan_fini(&ps);
	ir_plan_fini(&pm);
}

/* On a dragonfly, picking paths never gives more phases than the
 * minimal routing's own paths: 9 groups of 4 routers
 * with 2 hosts and 2 global links each (one per pair), a random
 * 8-regular pattern. */
static void test_never_worse(void **state)
{
	(void)state;
	ir_machine src = tu_dragonfly(9, 4, 2, 2, IR_DFLY_RELATIVE, NULL, 1,
	                              IR_ROUTE_SOURCE, 0, IR_PORTS_ALL);
	ir_machine min = tu_dragonfly(9, 4, 2, 2, IR_DFLY_RELATIVE, NULL, 1,
	                              IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL);
	for (uint64_t seed = 1; seed <= 4; seed++) {
		ir_matrix *x = ir_matrix_regular(72, 8, 256, seed);
		uint32_t ns, nm;
		assert_non_null(x);
		both_phases(&src, &min, x, seed, &ns, &nm);
		assert_true(ns <= nm);
		ir_matrix_free(x);
	}
}

/* Where the routing's paths make links the bottleneck, picking paths
 * phase by phase (the wave of docs/coloring.md) needs far fewer phases:
 * the dragonfly of bench_irregular (33 groups of 8 routers, 4 hosts and
 * 4 global links each, one global link per pair of groups), a random
 * 16-regular pattern.  Minimal paths need 29 phases there; picking
 * paths message by message gave 27, the wave 23.  The test asks for at
 * most 85% of the minimal routing's phases. */
static void test_wave(void **state)
{
	(void)state;
	ir_machine src = tu_dragonfly(33, 8, 4, 4, IR_DFLY_RELATIVE, NULL, 1,
	                              IR_ROUTE_SOURCE, 0, IR_PORTS_ALL);
	ir_machine min = tu_dragonfly(33, 8, 4, 4, IR_DFLY_RELATIVE, NULL, 1,
	                              IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL);
	ir_matrix *x = ir_matrix_regular(1056, 16, 1024, 1);
	uint32_t ns, nm;
	assert_non_null(x);
	both_phases(&src, &min, x, 1, &ns, &nm);
	assert_true(ns * 100 <= nm * 85);
	ir_matrix_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_tree_paths),
	        cmocka_unit_test(test_dragonfly_paths),
	        cmocka_unit_test(test_verifier),
	        cmocka_unit_test(test_link_aware),
	        cmocka_unit_test(test_never_worse),
	        cmocka_unit_test(test_wave),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
