/*
 * test_fat_tree.c - fat trees (XGFT) as machines: the link numbering and
 * both routings checked by hand on a small tree (docs/machine-model.md
 * works the same example), link capacities in the verifier and the lower
 * bound, and every generator whose domain names fat trees verified on
 * trees of several shapes: full and tapered, two and three levels,
 * parallel cables, hosts with two uplinks, one and two ranks per node.
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
#include "matrix.h"
#include "model.h"
#include "sched.h"
#include "support.h"

#include "claims.h"

static const int m44[] = {4, 4}, w12[] = {1, 2}, w14[] = {1, 4}, w11[] = {1, 1},
                 w22[] = {2, 2}, c12[] = {1, 2}, m444[] = {4, 4, 4},
                 w122[] = {1, 2, 2}, m24[] = {2, 4}, w21[] = {2, 1},
                 m35[] = {3, 5};

/* XGFT(2; 4,4; 1,2): 16 hosts, 4 leaf switches, 2 spines (tapered 2:1) */
static ir_machine small_tree(enum ir_routing r)
{
	return tu_fat_tree(2, m44, w12, NULL, 1, r, IR_PORTS_ALL);
}

/* The example of docs/machine-model.md: links 0..31 join hosts and leaf
 * switches (host v: up 2v, down 2v+1), 32..47 leaf switches and spines
 * (leaf s, port p: up 32 + 2(2s + p), down one more). */
static void test_numbering(void **state)
{
	(void)state;
	ir_machine m = small_tree(IR_ROUTE_D_MOD_K);
	int32_t a, b;
	assert_int_equal(m.nnodes, 16);
	assert_int_equal(m.nranks, 16);
	assert_int_equal(ir_nlinks(&m), 48);
	assert_int_equal(ir_route_max(&m), 4);
	assert_int_equal(ir_degree(&m, 5), 1);
	/* host 6 up to leaf 1 (vertex 16 + 1) and back */
	assert_int_equal(ir_link_ends(&m, 12, &a, &b), 0);
	assert_int_equal(a, 6);
	assert_int_equal(b, 17);
	assert_int_equal(ir_link_ends(&m, 13, &a, &b), 0);
	assert_int_equal(a, 17);
	assert_int_equal(b, 6);
	/* leaf 1, port 0 to spine 0 (vertex 16 + 4 + 0); its down link */
	assert_int_equal(ir_link_ends(&m, 36, &a, &b), 0);
	assert_int_equal(a, 17);
	assert_int_equal(b, 20);
	assert_int_equal(ir_link_ends(&m, 39, &a, &b), 0);
	assert_int_equal(a, 21);
	assert_int_equal(b, 17);
	assert_int_equal(ir_link_ends(&m, 48, &a, &b), CCP_EINVAL);
	for (uint64_t l = 0; l < 48; l++)
		assert_int_equal(ir_link_capacity(&m, l), 1);
	int c[IR_MAX_CUBE_DIM];
	ir_coords(&m, 6, c);
	assert_int_equal(c[0], 2);
	assert_int_equal(c[1], 1);
	assert_int_equal(ir_rank_of(&m, c), 6);
}

/* Host 1 -> host 6 by hand: up from host 1 (link 2) to leaf 0; d-mod-k
 * climbs through port 6 mod 2 = 0 (link 32) to spine 0, down to leaf 1
 * (37) and host 6 (13); s-mod-k through port 1 mod 2 = 1: 34, spine 1,
 * 39.  Inside one leaf: up and down only. */
static void test_routes(void **state)
{
	(void)state;
	uint64_t l[8];
	ir_machine d = small_tree(IR_ROUTE_D_MOD_K);
	ir_machine s = small_tree(IR_ROUTE_S_MOD_K);
	assert_int_equal(ir_route(&d, 1, 6, l), 4);
	assert_int_equal(l[0], 2);
	assert_int_equal(l[1], 32);
	assert_int_equal(l[2], 37);
	assert_int_equal(l[3], 13);
	assert_int_equal(ir_route(&s, 1, 6, l), 4);
	assert_int_equal(l[0], 2);
	assert_int_equal(l[1], 34);
	assert_int_equal(l[2], 39);
	assert_int_equal(l[3], 13);
	/* 7 -> 1: d-mod-k port 1 mod 2 = 1; s-mod-k 7 mod 2 = 1 */
	assert_int_equal(ir_route(&d, 7, 1, l), 4);
	assert_int_equal(l[1], 32 + 2 * (2 * 1 + 1));
	assert_int_equal(l[2], 32 + 2 * (2 * 0 + 1) + 1);
	assert_int_equal(ir_route(&d, 4, 6, l), 2);
	assert_int_equal(l[0], 8);
	assert_int_equal(l[1], 13);
	assert_int_equal(ir_route(&d, 6, 6, l), 0);
	/* d-mod-k: every route to one host comes down the same spine */
	for (int32_t src = 0; src < 16; src++)
		if (src / 4 != 9 / 4) {
			assert_int_equal(ir_route(&d, src, 9, l), 4);
			assert_int_equal(l[2], 32 + 2 * (2 * 2 + 1) + 1);
		}
	/* every route is a walk: each link starts where the last ended */
	ir_machine t = tu_fat_tree(3, m444, w122, NULL, 1, IR_ROUTE_S_MOD_K,
	                           IR_PORTS_ALL);
	for (int32_t a = 0; a < 64; a += 3)
		for (int32_t b = 0; b < 64; b += 5) {
			int h = ir_route(&t, a, b, l);
			int32_t at = a, f, to;
			for (int k = 0; k < h; k++) {
				assert_int_equal(
				        ir_link_ends(&t, l[k], &f, &to), 0);
				assert_int_equal(f, at);
				at = to;
			}
			assert_int_equal(at, b);
			assert_true(h <= ir_route_max(&t));
			assert_int_equal(ir_hops(&t, a, b), h);
			/* host links first and last, up before down */
			for (int k = 0; k < h; k++)
				assert_int_equal(
				        ir_link_class(&t, l[k]),
				        k == 0 || k == h - 1 ? IR_LC_HOST
				        : k < h / 2          ? IR_LC_UP
				                             : IR_LC_DOWN);
		}
	assert_false(ir_routing_adapts(&t));
}

/* Adaptive routing on XGFT(3;4,4,4;1,2,2): the route from host a to b
 * is every link of every shortest path.  Up from level l-1 there are
 * W[l] = 1, 2, 4 links at levels 1, 2, 3, as many down: the set holds
 * the d-mod-k and the s-mod-k paths, each link once, each up link
 * leaving an ancestor of a and each down link entering one of b; the
 * path taken has 2 * top hops.  Two hosts of one leaf sending out of it
 * may meet on either of its two uplinks, so the verifier refuses the
 * phase that d-mod-k accepts, and says the load is a worst case. */
static void test_adaptive(void **state)
{
	(void)state;
	ir_machine ad = tu_fat_tree(3, m444, w122, NULL, 1, IR_ROUTE_ADAPTIVE,
	                            IR_PORTS_ALL);
	ir_machine dm = tu_fat_tree(3, m444, w122, NULL, 1, IR_ROUTE_D_MOD_K,
	                            IR_PORTS_ALL);
	ir_machine sm = tu_fat_tree(3, m444, w122, NULL, 1, IR_ROUTE_S_MOD_K,
	                            IR_PORTS_ALL);
	assert_true(ir_routing_adapts(&ad));
	assert_int_equal(ir_route_max(&ad), 2 * (1 + 2 + 4));
	uint64_t set[32], path[8];
	for (int32_t a = 0; a < 64; a += 3)
		for (int32_t b = 0; b < 64; b += 7) {
			int top = a == b ? 0 : a / 16 != b / 16 ? 3
			                     : a / 4 != b / 4   ? 2
			                                        : 1;
			int want = top == 3 ? 14 : top == 2 ? 6 : 2 * top;
			int k = ir_route(&ad, a, b, set);
			assert_int_equal(k, want);
			assert_int_equal(ir_hops(&ad, a, b), 2 * top);
			for (int i = 0; i < k; i++)
				for (int j = 0; j < i; j++)
					assert_true(set[i] != set[j]);
			const ir_machine *det[] = {&dm, &sm};
			for (int d = 0; d < 2; d++) {
				int h = ir_route(det[d], a, b, path);
				for (int i = 0; i < h; i++) {
					bool in = false;
					for (int j = 0; j < k; j++)
						in |= set[j] == path[i];
					assert_true(in);
				}
			}
			for (int i = 0; i < k; i++) {
				int32_t f, t;
				assert_int_equal(ir_link_ends(&ad, set[i], &f, &t),
				                 0);
				enum ir_link_class c = ir_link_class(&ad, set[i]);
				assert_true(c == IR_LC_HOST || c == IR_LC_UP ||
				            c == IR_LC_DOWN);
			}
			assert_int_equal(ir_path(&ad, a, b, path), 2 * top);
			assert_int_equal(ir_route(&dm, a, b, set), 2 * top);
			for (int i = 0; i < 2 * top; i++)
				assert_int_equal(path[i], set[i]);
		}
	/* hosts 0 and 1 (leaf 0) to hosts 4 and 5 (leaf 1): d-mod-k takes
	 * ports 4 / 1 mod 2 = 0 and 5 mod 2 = 1, two uplinks; adaptive
	 * may put both on one */
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 8);
	for (int adaptive = 0; adaptive < 2; adaptive++) {
		ir_plan p;
		ir_report r;
		ir_plan_init(&p, adaptive ? &ad : &dm, &c, "hand");
		assert_int_equal(ir_plan_phase(&p), 0);
		for (int32_t s = 0; s < 2; s++) {
			ir_block b = {s, 4 + s};
			assert_int_equal(ir_plan_add(&p, s, 4 + s, &b, 1, 0),
			                 0);
		}
		int rc = ir_verify(&p, &r);
		assert_int_equal(r.max_link_load, adaptive ? 2 : 1);
		assert_int_equal(r.hops, 8);
		if (adaptive) {
			assert_int_equal(rc, CCP_EVERIFY);
			assert_non_null(strstr(r.message, "may carry 2"));
			assert_non_null(strstr(r.message, "adaptive"));
		} else {
			assert_null(strstr(r.message, "link:"));
		}
		ir_class_load cl[IR_NLINK_CLASSES];
		assert_int_equal(ir_class_loads(&p, cl), 0);
		/* 64 host links each way; each way 16 leaves x 2 ports and
		 * 8 level-2 switches x 2 ports */
		assert_int_equal(cl[IR_LC_HOST].links, 128);
		assert_int_equal(cl[IR_LC_UP].links, 16 * 2 + 8 * 2);
		assert_int_equal(cl[IR_LC_DOWN].links, 48);
		assert_int_equal(cl[IR_LC_LOCAL].links, 0);
		assert_int_equal(cl[IR_LC_HOST].hops, 4);
		assert_int_equal(cl[IR_LC_UP].hops, 2);
		assert_int_equal(cl[IR_LC_UP].worst, adaptive ? 2 : 1);
		assert_int_equal(cl[IR_LC_HOST].worst, 1);
		assert_true(cl[IR_LC_UP].mean > 2.0 / 48 - 1e-9 &&
		            cl[IR_LC_UP].mean < 2.0 / 48 + 1e-9);
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
	ir_comm_fini(&c);
}

/* A level of two cables per link: one link id of capacity 2, which the
 * verifier lets carry two transfers in a phase and not three; the bound
 * divides the link term by it. */
static void test_capacity(void **state)
{
	(void)state;
	ir_machine m = tu_fat_tree(2, m44, w11, c12, 1, IR_ROUTE_D_MOD_K,
	                           IR_PORTS_ALL);
	assert_int_equal(ir_nlinks(&m), 2 * 16 + 2 * 4);
	assert_int_equal(ir_link_capacity(&m, 0), 1);
	assert_int_equal(ir_link_capacity(&m, 32), 2);
	assert_int_equal(ir_link_phases(&m, 32, 3), 2);
	assert_int_equal(ir_link_phases(&m, 32, 2), 1);
	/* hosts 0, 1, 2 of leaf 0 send to leaf 1: three transfers share
	 * the leaf-0 uplink */
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 8);
	for (int three = 0; three < 2; three++) {
		ir_plan p;
		ir_report r;
		ir_plan_init(&p, &m, &c, "hand");
		assert_int_equal(ir_plan_phase(&p), 0);
		for (int32_t s = 0; s < 2 + three; s++) {
			ir_block b = {s, 4 + s};
			assert_int_equal(ir_plan_add(&p, s, 4 + s, &b, 1, 0),
			                 0);
		}
		int rc = ir_verify(&p, &r);
		assert_int_equal(r.max_link_load, three ? 2 : 1);
		/* what generators mark as contended: beyond the capacity */
		assert_int_equal(sch_contended(&p), three);
		if (three) {
			assert_int_equal(rc, CCP_EVERIFY);
			assert_non_null(strstr(r.message, "capacity 2"));
		} else {
			/* fails only for the blocks it does not deliver */
			assert_null(strstr(r.message, "link:"));
		}
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
	/* the link term of the bound: 4 x 12 messages leave each leaf on
	 * one link of capacity 2 */
	ir_report r;
	memset(&r, 0, sizeof r);
	assert_int_equal(ir_lower_bound(&m, &c, true, 0, 0, &r), 0);
	assert_int_equal(r.lb_link, 24);
	ir_machine one = tu_fat_tree(2, m44, w11, NULL, 1, IR_ROUTE_D_MOD_K,
	                             IR_PORTS_ALL);
	assert_int_equal(ir_lower_bound(&one, &c, true, 0, 0, &r), 0);
	assert_int_equal(r.lb_link, 48);
}

/* The simulator gives a link of two cables to two messages at the full
 * rate, and a link of one cable halves it: hosts 0 -> 4 and 1 -> 5 both
 * cross leaf 0's single uplink.  Round costs (alpha 1, hop 0.1, beta
 * 0.01, gamma 0.5; 1000 bytes over 4 hops): alone 11.9 us, halved 21.9
 * us.  Without virtual channels the second header waits for the
 * first's tail unless the link has a second cable. */
static void test_sim_capacity(void **state)
{
	(void)state;
	for (int fifo = 0; fifo < 2; fifo++)
		for (int wide = 0; wide < 2; wide++) {
			ir_machine m =
			        tu_fat_tree(2, m44, w11, wide ? c12 : NULL, 1,
			                    IR_ROUTE_D_MOD_K, IR_PORTS_ALL);
			m.cost.alpha = 1.0;
			m.cost.hop = 0.1;
			m.cost.beta = 0.01;
			m.cost.gamma = 0.5;
			ir_comm c = tu_comm(IR_ALLTOALL, 0, 1000);
			ir_plan p;
			ir_plan_init(&p, &m, &c, "hand");
			p.flags = IR_PLAN_LINK_CONTENTION;
			assert_int_equal(ir_plan_phase(&p), 0);
			for (int32_t s = 0; s < 2; s++) {
				ir_block b = {s, 4 + s};
				assert_int_equal(
				        ir_plan_add(&p, s, 4 + s, &b, 1, 0), 0);
			}
			struct model_sim_opts o = {
			        .links = fifo ? MODEL_LINKS_FIFO
			                      : MODEL_LINKS_SHARED};
			struct model_sim r;
			char err[256] = "";
			if (model_simulate(&p, &o, &r, err, sizeof err))
				fail_msg("model_simulate: %s", err);
			if (wide) {
				assert_float_equal(r.max_us, 11.9, 1e-9);
				assert_int_equal(r.contended, 0);
			} else {
				assert_true(r.max_us > 21.8);
				assert_int_equal(r.contended, fifo ? 1 : 2);
			}
			if (!fifo)
				assert_int_equal(r.max_share, wide ? 1 : 2);
			model_sim_fini(&r);
			ir_plan_fini(&p);
		}
}

/* Under `contention: forbid` the splitter fills a link of two cables
 * with two transfers: PEX's alltoall on the tree whose leaf uplinks have
 * two cables takes fewer phases than on the one with one (first fit
 * need not meet the bound), and both verify with every link within its
 * capacity. */
static void test_split_capacity(void **state)
{
	(void)state;
	const struct sch_generator *g = sch_find("pex");
	uint32_t phases[2];
	assert_non_null(g);
	for (int wide = 0; wide < 2; wide++) {
		ir_machine m = tu_fat_tree(2, m44, w11, wide ? c12 : NULL, 1,
		                           IR_ROUTE_D_MOD_K, IR_PORTS_ALL);
		ir_comm c = tu_comm(IR_ALLTOALL, 0, 64);
		struct sch_options o = {0};
		ir_plan p;
		ir_report r;
		o.forbid_contention = true;
		assert_int_equal(sch_generate(g, &m, &c, &o, &p), 0);
		assert_int_equal(ir_verify(&p, &r), 0);
		assert_int_equal(r.max_link_load, 1);
		phases[wide] = p.nphases;
		/* the link bound: 48 (24 with two cables) messages leave a
		 * leaf */
		assert_int_equal(r.lb_phases, wide ? 24 : 48);
		assert_true(p.nphases >= r.lb_phases);
		print_message("pex, forbid, width %d: %u phases, bound %u\n",
		              wide + 1, p.nphases, r.lb_phases);
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
	assert_true(phases[1] < phases[0]);
}

/* RS_NL claims a link of two cables twice a phase: on a dense pattern
 * its plan on the tree with two-cable leaf uplinks is shorter, and
 * verifies without contention. */
static void test_rs_nl_capacity(void **state)
{
	(void)state;
	const struct sch_generator *g = sch_find("rs_nl");
	uint32_t phases[2];
	assert_non_null(g);
	for (int wide = 0; wide < 2; wide++) {
		ir_machine m = tu_fat_tree(2, m44, w11, wide ? c12 : NULL, 1,
		                           IR_ROUTE_D_MOD_K, IR_PORTS_ALL);
		ir_comm c = tu_comm(IR_IRREGULAR, 0, 0);
		struct sch_options o = {0};
		ir_plan p;
		ir_report r;
		c.matrix = ir_matrix_regular(16, 12, 64, 5);
		assert_non_null(c.matrix);
		o.seed = 9;
		assert_int_equal(sch_generate(g, &m, &c, &o, &p), 0);
		assert_int_equal(ir_verify(&p, &r), 0);
		assert_int_equal(p.flags, 0);
		assert_int_equal(r.max_link_load, 1);
		phases[wide] = p.nphases;
		print_message("rs_nl, width %d: %u phases, bound %u\n",
		              wide + 1, p.nphases, r.lb_phases);
		ir_report_fini(&r);
		ir_plan_fini(&p);
		ir_comm_fini(&c);
	}
	assert_true(phases[1] < phases[0]);
}

/* What ir_machine_check refuses. */
static void test_refused(void **state)
{
	(void)state;
	ir_machine m = small_tree(IR_ROUTE_D_MOD_K);
	char err[256];
	ir_machine b = m;
	b.ndims = 5;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	assert_non_null(strstr(err, "1..4"));
	b = m;
	b.dims[IR_MAX_TREE + 1] = 0;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	b = m;
	b.dims[2] = 3; /* past level 2 */
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	b = m;
	b.levels[0][1] = -1;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	assert_non_null(strstr(err, "width"));
	b = m;
	b.routing = IR_ROUTE_DIRECT;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	assert_non_null(strstr(err, "d-mod-k, s-mod-k, adaptive or source"));
	b = tu_machine(IR_SWITCH, 0, 8, 0, 0, 0);
	b.routing = IR_ROUTE_D_MOD_K;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	b = m;
	b.dims[0] = b.dims[1] = 1 << 13; /* 2^26 hosts */
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
}

/* ---- generators ------------------------------------------------------ */

#define NTREES 12
static ir_machine trees[NTREES];
static const char *tree_names[NTREES];

static void make_trees(void)
{
	int k = 0;
	if (tree_names[0])
		return;
	tree_names[k] = "XGFT(2;4,4;1,2) d-mod-k";
	trees[k++] = small_tree(IR_ROUTE_D_MOD_K);
	tree_names[k] = "XGFT(2;4,4;1,2) s-mod-k";
	trees[k++] = small_tree(IR_ROUTE_S_MOD_K);
	tree_names[k] = "4-ary 2-tree XGFT(2;4,4;1,4)";
	trees[k++] = tu_fat_tree(2, m44, w14, NULL, 1, IR_ROUTE_D_MOD_K,
	                         IR_PORTS_ALL);
	tree_names[k] = "XGFT(3;4,4,4;1,2,2) d-mod-k";
	trees[k++] = tu_fat_tree(3, m444, w122, NULL, 1, IR_ROUTE_D_MOD_K,
	                         IR_PORTS_ALL);
	tree_names[k] = "XGFT(2;4,4;1,1) width 1,2 (4:2 tapered)";
	trees[k++] = tu_fat_tree(2, m44, w11, c12, 1, IR_ROUTE_D_MOD_K,
	                         IR_PORTS_ALL);
	tree_names[k] = "XGFT(2;4,4;2,2), hosts with two uplinks";
	trees[k++] = tu_fat_tree(2, m44, w22, NULL, 1, IR_ROUTE_S_MOD_K,
	                         IR_PORTS_ALL);
	tree_names[k] = "XGFT(2;2,4;2,1) of 2-rank nodes";
	trees[k++] = tu_fat_tree(2, m24, w21, NULL, 2, IR_ROUTE_D_MOD_K,
	                         IR_PORTS_ALL);
	tree_names[k] = "XGFT(2;4,4;1,2) of 2-rank nodes";
	trees[k++] = tu_fat_tree(2, m44, w12, NULL, 2, IR_ROUTE_D_MOD_K,
	                         IR_PORTS_ALL);
	tree_names[k] = "XGFT(2;3,5;1,2), odd sizes";
	trees[k++] = tu_fat_tree(2, m35, w12, NULL, 1, IR_ROUTE_D_MOD_K,
	                         IR_PORTS_ALL);
	tree_names[k] = "XGFT(2;4,4;1,2), one port";
	trees[k++] = tu_fat_tree(2, m44, w12, NULL, 1, IR_ROUTE_S_MOD_K, 1);
	tree_names[k] = "XGFT(3;4,4,4;1,2,2) adaptive";
	trees[k++] = tu_fat_tree(3, m444, w122, NULL, 1, IR_ROUTE_ADAPTIVE,
	                         IR_PORTS_ALL);
	tree_names[k] = "XGFT(2;4,4;1,2) width 1,2, adaptive, 2-rank nodes";
	trees[k++] = tu_fat_tree(2, m44, w12, c12, 2, IR_ROUTE_ADAPTIVE,
	                         IR_PORTS_ALL);
	assert_int_equal(k, NTREES);
}

/* Every generator whose domain names fat trees applies to some of them
 * and its plans pass the verifier on every tree it applies to, with
 * contention allowed and with it forbidden (then within every link's
 * capacity). */
static void test_generators(void **state)
{
	(void)state;
	make_trees();
	int claiming = claims_verify(IR_FAT_TREE, trees, tree_names, NTREES);
	print_message("%d generators claim fat trees\n", claiming);
	assert_true(claiming >= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_numbering),
	        cmocka_unit_test(test_routes),
	        cmocka_unit_test(test_adaptive),
	        cmocka_unit_test(test_capacity),
	        cmocka_unit_test(test_sim_capacity),
	        cmocka_unit_test(test_split_capacity),
	        cmocka_unit_test(test_rs_nl_capacity),
	        cmocka_unit_test(test_refused),
	        cmocka_unit_test(test_generators),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
