/*
 * test_graph.c - any network as a graph machine (topology graph): routes
 * are walks along cables of shortest length, the tie rule (dst mod
 * count) by hand, link capacities from widths and bandwidths in the
 * verifier, adaptive routes as unions of every shortest path, what
 * ir_graph_new refuses, a two-level fat tree written as a graph routing
 * and verifying exactly as `topology: fat_tree` does, and a 4,096-host
 * three-level tree as a graph.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "codec.h"
#include "ir.h"
#include "matrix.h"
#include "model.h"
#include "sched.h"
#include "support.h"

#include "claims.h"

#define DEF IR_CABLE_CLASS_DEFAULT

/* Hosts 0..3; switches A = 4, B = 5, C = 6, D = 7.  Host 0 hangs from A,
 * hosts 1..3 from D; A reaches D through B (cables 1, 3) or C (2, 4):
 *
 *          B
 *   0 - A <   > D - 1, 2, 3
 *          C
 */
static const struct ir_cable diamond[] = {
        {0, 4, 1, DEF, NAN, NAN}, /* 0: host 0 - A */
        {4, 5, 1, DEF, NAN, NAN}, /* 1: A - B */
        {4, 6, 1, DEF, NAN, NAN}, /* 2: A - C */
        {5, 7, 1, DEF, NAN, NAN}, /* 3: B - D */
        {6, 7, 1, DEF, NAN, NAN}, /* 4: C - D */
        {7, 1, 1, DEF, NAN, NAN}, /* 5: D - host 1 */
        {7, 2, 1, DEF, NAN, NAN}, /* 6: D - host 2 */
        {7, 3, 1, DEF, NAN, NAN}, /* 7: D - host 3 */
};
#define NDIAMOND (sizeof diamond / sizeof diamond[0])

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Whether links[0..n) is a walk from host src to host dst. */
static bool is_walk(const ir_machine *m, int32_t src, int32_t dst,
                    const uint64_t *links, int n)
{
	int32_t at = src, a, b;
	for (int i = 0; i < n; i++) {
		if (ir_link_ends(m, links[i], &a, &b) != 0 || a != at)
			return false;
		at = b;
	}
	return at == dst;
}

/* The tie rule by hand: from A toward host d the two links A -> B (id
 * 2) and A -> C (id 4) are equally short; d mod 2 picks one.  Host 1
 * goes through C, host 2 through B; every route is a walk of the
 * breadth-first distance, numbering and classes as documented. */
static void test_shortest(void **state)
{
	(void)state;
	ir_machine m = tu_graph(4, 4, diamond, NDIAMOND, IR_ROUTE_SHORTEST,
	                        IR_PORTS_ALL);
	uint64_t l[16];
	int32_t a, b;

	assert_int_equal(m.nnodes, 4);
	assert_int_equal(m.nranks, 4);
	assert_int_equal(ir_nlinks(&m), 16);
	assert_int_equal(ir_route_max(&m), 4);
	assert_false(ir_routing_adapts(&m));
	assert_int_equal(ir_link_ends(&m, 2, &a, &b), 0);
	assert_int_equal(a, 4);
	assert_int_equal(b, 5);
	assert_int_equal(ir_link_ends(&m, 3, &a, &b), 0);
	assert_int_equal(a, 5);
	assert_int_equal(b, 4);
	assert_int_equal(ir_link_ends(&m, 16, &a, &b), CCP_EINVAL);
	assert_int_equal(ir_link_class(&m, 0), IR_LC_HOST);
	assert_int_equal(ir_link_class(&m, 3), IR_LC_LOCAL);
	assert_int_equal(ir_link_class(&m, 11), IR_LC_HOST);
	assert_int_equal(ir_degree(&m, 0), 1);

	assert_int_equal(ir_route(&m, 0, 1, l), 4);
	assert_int_equal(l[0], 0);
	assert_int_equal(l[1], 4); /* A -> C: 1 mod 2 = second */
	assert_int_equal(l[2], 8);
	assert_int_equal(l[3], 10);
	assert_int_equal(ir_route(&m, 0, 2, l), 4);
	assert_int_equal(l[1], 2); /* A -> B: 2 mod 2 = first */
	assert_int_equal(l[2], 6);
	assert_int_equal(l[3], 12);
	/* back from D toward host 0: D -> B (id 7) and D -> C (id 9); 0
	 * mod 2 takes D -> B */
	assert_int_equal(ir_route(&m, 3, 0, l), 4);
	assert_int_equal(l[0], 15);
	assert_int_equal(l[1], 7);
	assert_int_equal(l[2], 3);
	assert_int_equal(l[3], 1);
	assert_int_equal(ir_route(&m, 1, 3, l), 2);
	assert_int_equal(ir_hops(&m, 1, 3), 2);
	assert_int_equal(ir_route(&m, 2, 2, l), 0);
	for (int32_t s = 0; s < 4; s++)
		for (int32_t d = 0; d < 4; d++) {
			int h = ir_route(&m, s, d, l);
			assert_true(is_walk(&m, s, d, l, h));
			assert_int_equal(h, (s == 0) != (d == 0) ? 4
			                    : s == d             ? 0
			                                         : 2);
			assert_int_equal(ir_hops(&m, s, d), h);
		}
	ir_graph_release(m.graph);
}

/* Adaptive: the route from host 0 to host 1 is every link of both
 * paths (six), the hops are the path's four; ir_route_max bounds the
 * unions by the links at each step (docs/machine-model.md): 6 here,
 * the largest union exactly. */
static void test_adaptive(void **state)
{
	(void)state;
	ir_machine m = tu_graph(4, 4, diamond, NDIAMOND, IR_ROUTE_ADAPTIVE,
	                        IR_PORTS_ALL);
	uint64_t l[16];
	static const uint64_t want[] = {0, 2, 4, 6, 8, 10};

	assert_true(ir_routing_adapts(&m));
	assert_int_equal(ir_route_max(&m), 6);
	int h = ir_route(&m, 0, 1, l);
	assert_int_equal(h, 6);
	qsort(l, (size_t)h, sizeof *l, cmp_u64);
	for (int i = 0; i < 6; i++)
		assert_int_equal(l[i], want[i]);
	assert_int_equal(ir_hops(&m, 0, 1), 4);
	assert_int_equal(ir_route(&m, 1, 2, l), 2); /* one path */
	assert_int_equal(ir_hops(&m, 1, 2), 2);
	for (int32_t s = 0; s < 4; s++)
		for (int32_t d = 0; d < 4; d++)
			assert_true(ir_route(&m, s, d, l) <= ir_route_max(&m));
	ir_graph_release(m.graph);
}

/* Hosts 0, 1 on A and 2, 3 on D, A and D joined through B and through
 * C.  0 -> 2 and 1 -> 3 share a phase under shortest routing (2 mod 2
 * goes through B, 3 mod 2 through C), not under adaptive: either may
 * take either way, so A -> B may carry both. */
static void test_adaptive_loads(void **state)
{
	(void)state;
	static const struct ir_cable sq[] = {
	        {0, 4, 1, DEF, NAN, NAN}, {1, 4, 1, DEF, NAN, NAN},
	        {4, 5, 1, DEF, NAN, NAN}, {4, 6, 1, DEF, NAN, NAN},
	        {5, 7, 1, DEF, NAN, NAN}, {6, 7, 1, DEF, NAN, NAN},
	        {7, 2, 1, DEF, NAN, NAN}, {7, 3, 1, DEF, NAN, NAN}};
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 8);
	for (int adapt = 0; adapt < 2; adapt++) {
		ir_machine m =
		        tu_graph(4, 4, sq, 8,
		                 adapt ? IR_ROUTE_ADAPTIVE : IR_ROUTE_SHORTEST,
		                 IR_PORTS_ALL);
		ir_plan p;
		ir_report r;
		ir_plan_init(&p, &m, &c, "hand");
		assert_int_equal(ir_plan_phase(&p), 0);
		ir_block b1 = {0, 2}, b2 = {1, 3};
		assert_int_equal(ir_plan_add(&p, 0, 2, &b1, 1, 0), 0);
		assert_int_equal(ir_plan_add(&p, 1, 3, &b2, 1, 0), 0);
		ir_verify(&p, &r);
		assert_int_equal(r.max_link_load, adapt ? 2 : 1);
		if (adapt)
			assert_non_null(strstr(r.message, "link:"));
		else
			assert_null(strstr(r.message, "link:"));
		ir_report_fini(&r);
		ir_plan_fini(&p);
		ir_graph_release(m.graph);
	}
}

/* Two switches of four hosts each, joined by one cable: of width 2 at
 * twice the hosts' bandwidth its links have capacity 4; of width 3 at
 * their bandwidth, 3, and the verifier lets three transfers cross it in
 * a phase, not four, naming the capacity. */
static void test_capacity(void **state)
{
	(void)state;
	struct ir_cable c[9];
	for (int i = 0; i < 8; i++)
		c[i] = (struct ir_cable){i, 8 + i / 4, 1, DEF, 25e9, NAN};
	c[8] = (struct ir_cable){8, 9, 2, IR_LC_GLOBAL, 50e9, 1e-7};
	ir_machine m = tu_graph(8, 2, c, 9, IR_ROUTE_SHORTEST, IR_PORTS_ALL);
	assert_int_equal(ir_link_capacity(&m, 16), 4);
	assert_int_equal(ir_link_capacity(&m, 17), 4);
	assert_int_equal(ir_link_capacity(&m, 0), 1);
	assert_int_equal(ir_link_class(&m, 17), IR_LC_GLOBAL);
	assert_int_equal(ir_link_phases(&m, 16, 5), 2);
	assert_int_equal(ir_link_phases(&m, 16, 4), 1);
	ir_graph_release(m.graph);

	c[8] = (struct ir_cable){8, 9, 3, DEF, NAN, NAN}; /* 25e9 by default */
	m = tu_graph(8, 2, c, 9, IR_ROUTE_SHORTEST, IR_PORTS_ALL);
	assert_int_equal(ir_link_capacity(&m, 16), 3);
	assert_int_equal(ir_link_class(&m, 16), IR_LC_LOCAL);
	assert_true(m.graph->cables[8].bandwidth == 25e9);
	ir_comm x = tu_comm(IR_ALLTOALL, 0, 8);
	for (int four = 0; four < 2; four++) {
		ir_plan p;
		ir_report r;
		ir_plan_init(&p, &m, &x, "hand");
		assert_int_equal(ir_plan_phase(&p), 0);
		for (int32_t s = 0; s < 3 + four; s++) {
			ir_block b = {s, 4 + s};
			assert_int_equal(ir_plan_add(&p, s, 4 + s, &b, 1, 0),
			                 0);
		}
		int rc = ir_verify(&p, &r);
		assert_int_equal(r.max_link_load, four ? 2 : 1);
		if (four) {
			assert_int_equal(rc, CCP_EVERIFY);
			assert_non_null(strstr(r.message, "capacity 3"));
		} else {
			assert_null(strstr(r.message, "link:"));
		}
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
	ir_graph_release(m.graph);
}

/* What ir_graph_new refuses, naming the cable at fault. */
static void test_refused(void **state)
{
	(void)state;
	struct ir_cable c[NDIAMOND + 1];
	char err[256];
	int rc;
	int64_t bad;
	ir_graph *g;

#define REFUSE(nh, ns, n, at, words)                                           \
	do {                                                                   \
		g = ir_graph_new(nh, ns, c, n, &rc, &bad, err, sizeof err);    \
		assert_null(g);                                                \
		assert_int_equal(rc, CCP_EINVAL);                              \
		assert_int_equal(bad, at);                                     \
		if (!strstr(err, words))                                       \
			fail_msg("'%s' lacks '%s'", err, words);               \
	} while (0)

	memcpy(c, diamond, sizeof diamond);
	c[3].b = 8;
	REFUSE(4, 4, NDIAMOND, 3, "vertices are 0..7");
	memcpy(c, diamond, sizeof diamond);
	c[2].b = 4;
	REFUSE(4, 4, NDIAMOND, 2, "to itself");
	memcpy(c, diamond, sizeof diamond);
	c[4].width = 0;
	REFUSE(4, 4, NDIAMOND, 4, "width");
	memcpy(c, diamond, sizeof diamond);
	c[5].bandwidth = -1;
	REFUSE(4, 4, NDIAMOND, 5, "bandwidth");
	memcpy(c, diamond, sizeof diamond);
	c[0].bandwidth = 2;
	c[1].bandwidth = 3; /* 3/2 of the smallest */
	REFUSE(4, 4, NDIAMOND, 1, "whole multiple");
	memcpy(c, diamond, sizeof diamond);
	c[6].latency = -1;
	REFUSE(4, 4, NDIAMOND, 6, "latency");
	memcpy(c, diamond, sizeof diamond);
	c[7].cls = IR_NLINK_CLASSES;
	REFUSE(4, 4, NDIAMOND, 7, "class");
	memcpy(c, diamond, sizeof diamond);
	c[NDIAMOND] = (struct ir_cable){5, 4, 1, DEF, NAN, NAN};
	REFUSE(4, 4, NDIAMOND + 1, NDIAMOND, "again");
	/* host 3 cut off: D - host 3 dropped */
	memcpy(c, diamond, sizeof diamond);
	REFUSE(4, 4, NDIAMOND - 1, -1, "not connected");
	/* a switch out of reach is allowed: it carries nothing */
	g = ir_graph_new(4, 5, c, NDIAMOND, &rc, &bad, err, sizeof err);
	assert_non_null(g);
	assert_int_equal(g->diameter, 4);
	ir_graph_release(g);
	REFUSE(0, 4, 0, -1, "hosts");
	REFUSE(1 << 20, 1000, 0, -1, "IR_MAX_GRAPH_TABLE");

	/* a machine and its graph go together */
	ir_machine m = tu_graph(4, 4, diamond, NDIAMOND, IR_ROUTE_SHORTEST,
	                        IR_PORTS_ALL);
	ir_machine b = m;
	b.graph = NULL;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	b = m;
	b.routing = IR_ROUTE_D_MOD_K;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	assert_non_null(strstr(err, "adaptive, shortest or table"));
	b = tu_machine(IR_SWITCH, 0, 8, 0, 0, 0);
	b.graph = m.graph;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	assert_non_null(strstr(err, "no graph"));
	assert_int_equal(ir_topo_default_routing(IR_GRAPH), IR_ROUTE_SHORTEST);
	ir_graph_release(m.graph);
#undef REFUSE
}

/* The graph of a fat tree: cable c is the tree's up link 2c, joining the
 * same vertices with its width, so link ids and vertex ids agree. */
static ir_machine tree_as_graph(const ir_machine *t, enum ir_routing r)
{
	uint64_t n = ir_nlinks(t);
	struct ir_cable *c = malloc((size_t)n / 2 * sizeof *c);
	int32_t a, b, nv = 0;
	assert_non_null(c);
	for (uint64_t l = 0; l < n; l += 2) {
		assert_int_equal(ir_link_ends(t, l, &a, &b), 0);
		c[l / 2] = (struct ir_cable){a,   b,   ir_link_capacity(t, l),
		                             DEF, NAN, NAN};
		nv = a + 1 > nv ? a + 1 : nv;
		nv = b + 1 > nv ? b + 1 : nv;
	}
	ir_machine m = tu_graph(t->nnodes, nv - t->nnodes, c, (uint32_t)(n / 2),
	                        r, t->ports);
	free(c);
	return m;
}

static const int m44[] = {4, 4}, w12[] = {1, 2}, w14[] = {1, 4}, w11[] = {1, 1},
                 c12[] = {1, 2};

/* A two-level fat tree written as a graph: every route is the tree's
 * d-mod-k route, link for link (the tie rule is d-mod-k there), so every
 * plan the tree's generators make verifies alike on both, with the same
 * loads. */
static void test_fat_tree_alike(void **state)
{
	(void)state;
	ir_machine trees[3] = {
	        tu_fat_tree(2, m44, w12, NULL, 1, IR_ROUTE_D_MOD_K,
	                    IR_PORTS_ALL),
	        tu_fat_tree(2, m44, w14, NULL, 1, IR_ROUTE_D_MOD_K,
	                    IR_PORTS_ALL),
	        tu_fat_tree(2, m44, w11, c12, 1, IR_ROUTE_D_MOD_K, 1)};
	uint64_t a[8], b[8];
	int plans = 0;

	for (int k = 0; k < 3; k++) {
		const ir_machine *t = &trees[k];
		ir_machine g = tree_as_graph(t, IR_ROUTE_SHORTEST);
		assert_int_equal(ir_nlinks(&g), ir_nlinks(t));
		assert_int_equal(ir_route_max(&g), ir_route_max(t));
		for (uint64_t l = 0; l < ir_nlinks(t); l++)
			assert_int_equal(ir_link_capacity(&g, l),
			                 ir_link_capacity(t, l));
		for (int32_t s = 0; s < t->nranks; s++) {
			assert_int_equal(ir_degree(&g, s), ir_degree(t, s));
			for (int32_t d = 0; d < t->nranks; d++) {
				int h = ir_route(t, s, d, a);
				assert_int_equal(ir_route(&g, s, d, b), h);
				for (int i = 0; i < h; i++)
					assert_int_equal(a[i], b[i]);
			}
		}
		for (int i = 0; sch_generators[i]; i++) {
			const struct sch_generator *gen = sch_generators[i];
			if (!(gen->domain.topos & SCH_T(IR_FAT_TREE)))
				continue;
			for (int cl = 0; cl < IR_NCOLLS; cl++) {
				if (!(gen->domain.colls & SCH_C(cl)))
					continue;
				ir_comm c = tu_comm((enum ir_coll)cl, 5, 128);
				c.dtype = IR_DT_DOUBLE;
				c.op = IR_OP_SUM;
				c.seed = 11;
				if (cl == IR_IRREGULAR)
					c.matrix =
					        ir_matrix_regular(16, 3, 64, 7);
				if (sch_applies(gen, t, &c, NULL, 0) != 0) {
					ir_comm_fini(&c);
					continue;
				}
				struct sch_options o = {0};
				ir_plan p;
				ir_report r1, r2;
				o.seed = 3;
				assert_int_equal(
				        sch_generate(gen, t, &c, &o, &p), 0);
				int rc1 = ir_verify(&p, &r1);
				ir_machine keep = p.machine;
				p.machine = g; /* the plan, on the graph */
				int rc2 = ir_verify(&p, &r2);
				p.machine = keep;
				assert_int_equal(rc1, rc2);
				assert_int_equal(r1.max_link_load,
				                 r2.max_link_load);
				assert_int_equal(r1.lb_phases, r2.lb_phases);
				plans++;
				ir_report_fini(&r1);
				ir_report_fini(&r2);
				ir_plan_fini(&p);
				ir_comm_fini(&c);
			}
		}
		ir_graph_release(g.graph);
	}
	print_message("%d plans verified alike on trees and graphs\n", plans);
	assert_true(plans > 30);
}

/* A link_aware plan of a random degree-d pattern on graph machine m,
 * verified, written as a plan file and read back into q: the file's
 * version. */
static int file_round_trip(const ir_machine *m, int32_t d, ir_plan *q)
{
	ir_comm c = tu_comm(IR_IRREGULAR, 0, 64);
	ir_plan p;
	ir_report r;
	ir_slice *sl;
	uint8_t *img;
	size_t len;
	ir_file_info fi;
	char err[256];
	struct sch_options o = {0};
	c.matrix = ir_matrix_regular(m->nranks, d, 64, 7);
	assert_int_equal(sch_generate(sch_find("link_aware"), m, &c, &o, &p),
	                 0);
	ir_comm_fini(&c);
	if (ir_verify(&p, &r) != 0)
		fail_msg("%s", r.message);
	assert_int_equal(ir_lower(&p, &sl), 0);
	assert_int_equal(
	        ir_plan_encode(&p, &r, sl, &img, &len, err, sizeof err), 0);
	if (ir_plan_decode(img, len, q, &fi, err, sizeof err) != 0)
		fail_msg("%s", err);
	free(img);
	ir_slices_free(sl, m->nranks);
	ir_report_fini(&r);
	ir_plan_fini(&p);
	return fi.version;
}

/* A job on 5 hosts of XGFT(2; 4,4; 1,4) as a graph (4 spines, so the
 * key picks among them): the part's routes between its hosts are the
 * whole graph's, link for link; the part survives a plan file (format
 * 8, keys kept) and a key or a host given twice is refused. */
static void test_part(void **state)
{
	(void)state;
	ir_machine t = tu_fat_tree(2, m44, w14, NULL, 1, IR_ROUTE_D_MOD_K,
	                           IR_PORTS_ALL);
	ir_machine g = tree_as_graph(&t, IR_ROUTE_SHORTEST);
	const int32_t hosts[5] = {13, 2, 7, 3, 8};
	char err[256];
	int rc;
	ir_graph *part = ir_graph_subset(g.graph, hosts, 5, &rc, err,
	                                 sizeof err);
	assert_non_null(part);
	assert_int_equal(part->nhosts, 5);
	assert_int_equal(part->nswitches, g.graph->nswitches + 11);
	assert_int_equal(part->key[0], 13);
	ir_machine pm = g;
	pm.graph = part;
	assert_int_equal(ir_machine_check(&pm, err, sizeof err), 0);
	assert_int_equal(pm.nranks, 5);
	uint64_t a[8], b[8];
	int differ = 0; /* routes that hosts renumbered without keys change */
	for (int32_t s = 0; s < 5; s++)
		for (int32_t d = 0; d < 5; d++) {
			int h = ir_route(&g, hosts[s], hosts[d], a);
			assert_int_equal(ir_route(&pm, s, d, b), h);
			for (int i = 0; i < h; i++)
				assert_int_equal(a[i], b[i]);
			differ += hosts[d] % 4 != d % 4 && h == 4;
		}
	assert_true(differ > 0);

	/* the plan file keeps the part */
	ir_plan q;
	assert_int_equal(file_round_trip(&pm, 3, &q), 8);
	assert_non_null(q.machine.graph->key);
	for (int32_t i = 0; i < 5; i++)
		assert_int_equal(q.machine.graph->key[i], hosts[i]);
	ir_plan_fini(&q);

	const int32_t twice[2] = {3, 3};
	assert_null(ir_graph_subset(g.graph, twice, 2, &rc, err, sizeof err));
	assert_int_equal(rc, CCP_EINVAL);
	assert_int_equal(ir_graph_set_keys(part, (const int32_t[5]){1, 2, 3, 2,
	                                                            0},
	                                   err, sizeof err),
	                 CCP_EINVAL);
	assert_non_null(strstr(err, "given twice"));
	ir_graph_release(part);
	ir_graph_release(g.graph);
}

/* The vertices route links[0..h) visits after src. */
static void route_vertices(const ir_machine *m, const uint64_t *links, int h,
                           int32_t *v)
{
	for (int i = 0; i < h; i++) {
		int32_t a, b;
		assert_int_equal(ir_link_ends(m, links[i], &a, &b), 0);
		v[i] = b;
	}
}

/* A forwarding table on XGFT(2; 4,4; 1,4) as a graph (hosts 0-15, leaves
 * 16-19, spines 20-23): every leaf sends what leaves it through spine
 * 23, but leaf 16 what goes to leaf 17 through spine 21; where the table
 * is silent the hop is shortest's.  Routes follow it, a loop and a hop
 * without a cable are refused, and a job's part keeps the table. */
static void test_table(void **state)
{
	(void)state;
	ir_machine t = tu_fat_tree(2, m44, w14, NULL, 1, IR_ROUTE_D_MOD_K,
	                           IR_PORTS_ALL);
	ir_machine g = tree_as_graph(&t, IR_ROUTE_SHORTEST);
	struct ir_route_entry e[64];
	uint32_t n = 0;
	char err[256];
	int64_t bad;
	for (int32_t leaf = 16; leaf < 20; leaf++)
		for (int32_t h = 0; h < 16; h++)
			if (h / 4 != leaf - 16)
				e[n++] = (struct ir_route_entry){
				        leaf, h, leaf == 16 && h / 4 == 1 ? 21 : 23};
	assert_int_equal(ir_graph_set_table(g.graph, e, n, &bad, err,
	                                    sizeof err),
	                 0);
	g.routing = IR_ROUTE_TABLE;
	assert_int_equal(ir_machine_check(&g, err, sizeof err), 0);
	assert_int_equal(ir_route_max(&g), 4);
	uint64_t l[8];
	int32_t v[8];
	int h = ir_route(&g, 1, 9, l);
	assert_int_equal(h, 4);
	route_vertices(&g, l, h, v);
	assert_int_equal(v[0], 16);
	assert_int_equal(v[1], 23);
	assert_int_equal(v[2], 18);
	assert_int_equal(v[3], 9);
	h = ir_route(&g, 1, 5, l); /* leaf 16 to leaf 17: spine 21 */
	assert_int_equal(h, 4);
	route_vertices(&g, l, h, v);
	assert_int_equal(v[1], 21);
	h = ir_route(&g, 5, 6, l); /* leaf 17, silent: shortest */
	assert_int_equal(h, 2);
	/* the table back, entry for entry */
	struct ir_route_entry *back;
	uint32_t nb;
	assert_int_equal(ir_graph_table(g.graph, &back, &nb), 0);
	assert_int_equal(nb, n);
	free(back);
	/* a job's part keeps the table: host 9 from host 1 as before */
	const int32_t hosts[3] = {9, 1, 2};
	int rc;
	ir_graph *part = ir_graph_subset(g.graph, hosts, 3, &rc, err,
	                                 sizeof err);
	assert_non_null(part);
	ir_machine pm = g;
	pm.graph = part;
	assert_int_equal(ir_machine_check(&pm, err, sizeof err), 0);
	uint64_t l2[8];
	h = ir_route(&g, 1, 9, l);
	assert_int_equal(ir_route(&pm, 1, 0, l2), h);
	for (int i = 0; i < h; i++)
		assert_int_equal(l[i], l2[i]);
	ir_graph_release(part);
	/* a plan file keeps the table: the decoded machine routes alike */
	ir_plan q;
	assert_int_equal(file_round_trip(&g, 5, &q), 8);
	assert_non_null(q.machine.graph->next);
	h = ir_route(&g, 1, 5, l);
	assert_int_equal(ir_route(&q.machine, 1, 5, l2), h);
	for (int i = 0; i < h; i++)
		assert_int_equal(l[i], l2[i]);
	ir_plan_fini(&q);
	/* a loop: spine 23 sends host 9's traffic back to leaf 16 */
	e[n] = (struct ir_route_entry){23, 9, 16};
	assert_int_equal(ir_graph_set_table(g.graph, e, n + 1, &bad, err,
	                                    sizeof err),
	                 CCP_EINVAL);
	assert_non_null(strstr(err, "loop"));
	assert_null(g.graph->next); /* refused whole */
	/* no cable: leaf 16 to leaf 17 */
	e[0] = (struct ir_route_entry){16, 9, 17};
	assert_int_equal(ir_graph_set_table(g.graph, e, 1, &bad, err,
	                                    sizeof err),
	                 CCP_EINVAL);
	assert_int_equal(bad, 0);
	ir_graph_release(g.graph);
}

/* A 16-ary 3-tree (4,096 hosts, 768 switches, 12,288 cables) as a graph:
 * how long the tables take and how much they hold, every route from two
 * hosts a shortest walk, and a binomial broadcast verified on it. */
static void test_large(void **state)
{
	(void)state;
	static const int m3[] = {16, 16, 16}, w3[] = {1, 16, 16};
	ir_machine t =
	        tu_fat_tree(3, m3, w3, NULL, 1, IR_ROUTE_D_MOD_K, IR_PORTS_ALL);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ir_machine g = tree_as_graph(&t, IR_ROUTE_SHORTEST);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("4096-host tree as a graph: %d vertices, %u cables, "
	              "tables built in %.2f s, distance table %.1f MiB\n",
	              (int)g.graph->nverts, g.graph->ncables,
	              (double)(t1.tv_sec - t0.tv_sec) +
	                      (t1.tv_nsec - t0.tv_nsec) * 1e-9,
	              (double)g.graph->nverts * g.graph->nhosts * 2 /
	                      (1 << 20));
	assert_int_equal(g.nranks, 4096);
	assert_int_equal(ir_route_max(&g), 6);
	uint64_t l[8];
	for (int32_t s = 0; s < 4096; s += 4095)
		for (int32_t d = 0; d < 4096; d++) {
			int h = ir_route(&g, s, d, l);
			assert_int_equal(h, ir_route(&t, s, d, NULL));
			assert_true(is_walk(&g, s, d, l, h));
		}
	const struct sch_generator *gen = sch_find("binomial");
	assert_non_null(gen);
	ir_comm c = tu_comm(IR_BCAST, 0, 1024);
	struct sch_options o = {0};
	ir_plan p;
	ir_report r;
	assert_int_equal(sch_generate(gen, &t, &c, &o, &p), 0);
	ir_machine keep = p.machine;
	p.machine = g;
	assert_int_equal(ir_verify(&p, &r), 0);
	p.machine = keep;
	ir_report_fini(&r);
	ir_plan_fini(&p);
	ir_comm_fini(&c);
	ir_machine a = g;
	a.routing = IR_ROUTE_ADAPTIVE;
	print_message("adaptive routes hold at most %d links\n",
	              ir_route_max(&a));
	/* host 0 to host 4095: 1 + 16 + 256 up, 256 + 16 + 1 down */
	uint64_t *u = malloc((size_t)ir_route_max(&a) * sizeof *u);
	assert_non_null(u);
	assert_int_equal(ir_route(&a, 0, 4095, u), 546);
	assert_int_equal(ir_hops(&a, 0, 4095), 6);
	assert_true(ir_route_max(&a) >= 546);
	free(u);
	ir_graph_release(g.graph);
}

/* ---- generators ------------------------------------------------------ */

/* A 4x4 torus as a graph of host-to-host cables (a direct network). */
static ir_machine torus_graph(enum ir_routing r, int ports)
{
	struct ir_cable c[32];
	int k = 0;
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 4; x++) {
			int v = x + 4 * y;
			c[k++] = (struct ir_cable){
			        v, (x + 1) % 4 + 4 * y, 1, DEF, NAN, NAN};
			c[k++] = (struct ir_cable){
			        v, x + 4 * ((y + 1) % 4), 1, DEF, NAN, NAN};
		}
	return tu_graph(16, 0, c, 32, r, ports);
}

/* 12 hosts, three on each of 4 switches in a ring of double cables with
 * one chord: no tree, no grid. */
static ir_machine odd_graph(enum ir_routing r, int ports)
{
	struct ir_cable c[17];
	int k = 0;
	for (int h = 0; h < 12; h++)
		c[k++] = (struct ir_cable){h, 12 + h % 4, 1, DEF, NAN, NAN};
	for (int s = 0; s < 4; s++)
		c[k++] = (struct ir_cable){
		        12 + s, 12 + (s + 1) % 4, 2, DEF, NAN, NAN};
	c[k++] = (struct ir_cable){12, 14, 1, DEF, NAN, NAN};
	return tu_graph(12, 4, c, (uint32_t)k, r, ports);
}

/* m with rpn ranks per node placed as place (the graph stays m's). */
static ir_machine with_nodes(ir_machine m, int rpn, enum ir_placement place)
{
	char err[256];
	m.ranks_per_node = rpn;
	m.placement = place;
	if (ir_machine_check(&m, err, sizeof err) != 0)
		fail_msg("%s", err);
	return m;
}

#define NGRAPHS 9

/* Every generator whose domain names graphs applies to some of them and
 * its plans pass the verifier on every graph it applies to, with
 * contention allowed and forbidden (then within every link's capacity):
 * fat trees, a torus and an irregular network written as graphs, under
 * shortest and adaptive routing, one- and all-port, with one and two
 * ranks per node. */
static void test_generators(void **state)
{
	(void)state;
	static const int m44[] = {4, 4}, w12[] = {1, 2};
	ir_machine t = tu_fat_tree(2, m44, w12, NULL, 1, IR_ROUTE_D_MOD_K,
	                           IR_PORTS_ALL);
	ir_machine gs[NGRAPHS];
	const char *names[NGRAPHS];
	int n = 0, claiming = 0;
	names[n] = "XGFT(2;4,4;1,2) shortest";
	gs[n++] = tree_as_graph(&t, IR_ROUTE_SHORTEST);
	names[n] = "XGFT(2;4,4;1,2) adaptive";
	gs[n++] = tree_as_graph(&t, IR_ROUTE_ADAPTIVE);
	names[n] = "4x4 torus graph";
	gs[n++] = torus_graph(IR_ROUTE_SHORTEST, IR_PORTS_ALL);
	names[n] = "4x4 torus graph, one port";
	gs[n++] = torus_graph(IR_ROUTE_SHORTEST, 1);
	names[n] = "odd graph";
	gs[n++] = odd_graph(IR_ROUTE_SHORTEST, IR_PORTS_ALL);
	names[n] = "odd graph adaptive, one port";
	gs[n++] = odd_graph(IR_ROUTE_ADAPTIVE, 1);
	names[n] = "XGFT(2;4,4;1,2) of 2-rank nodes";
	gs[n++] = with_nodes(tree_as_graph(&t, IR_ROUTE_SHORTEST), 2,
	                     IR_PLACE_BLOCK);
	names[n] = "odd graph of 2-rank nodes, cyclic";
	gs[n++] = with_nodes(odd_graph(IR_ROUTE_SHORTEST, IR_PORTS_ALL), 2,
	                     IR_PLACE_CYCLIC);
	names[n] = "odd graph adaptive of 2-rank nodes";
	gs[n++] = with_nodes(odd_graph(IR_ROUTE_ADAPTIVE, IR_PORTS_ALL), 2,
	                     IR_PLACE_BLOCK);
	assert_int_equal(n, NGRAPHS);
	claiming = claims_verify(IR_GRAPH, gs, names, n);
	print_message("%d generators claim graphs\n", claiming);
	assert_true(claiming >= 20);
	for (int i = 0; i < n; i++)
		if (i == 0 || gs[i].graph != gs[i - 1].graph)
			ir_graph_release(gs[i].graph);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_shortest),
	        cmocka_unit_test(test_adaptive),
	        cmocka_unit_test(test_adaptive_loads),
	        cmocka_unit_test(test_capacity),
	        cmocka_unit_test(test_refused),
	        cmocka_unit_test(test_fat_tree_alike),
	        cmocka_unit_test(test_part),
	        cmocka_unit_test(test_table),
	        cmocka_unit_test(test_large),
	        cmocka_unit_test(test_generators),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
