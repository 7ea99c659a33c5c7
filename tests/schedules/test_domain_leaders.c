/*
 * test_domain_leaders.c - broadcast, reduce and allreduce through
 * leaders of nodes, switches and groups (schedules/domain_leaders.c):
 * every collective verified on fat trees (full and tapered, 2 and 3
 * levels, every routing, 1 to 3 ranks a node), dragonflies (several
 * shapes and arrangements; minimal free of contention, Valiant and
 * adaptive split under `contention: forbid`) and a graph of switches;
 * and the bound, computed from the plans: the bytes on a fat tree's up
 * links and a dragonfly's global links are exactly what every domain
 * receiving the message once (sending its partial once) puts there,
 * and fewer than binomial's, reduce_bcast's and the node-level
 * hierarchical's where the domains do not line up with powers of two.
 */
#include <math.h>
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

static const enum ir_coll colls[] = {IR_BCAST, IR_REDUCE, IR_ALLREDUCE};
enum { NCOLLS = sizeof colls / sizeof colls[0] };

/* A communication of coll on m from root: a vector of 64 doubles (a
 * reduction), 1 KiB in 2 segments (a broadcast). */
static ir_comm comm_of(enum ir_coll coll, int32_t root)
{
	ir_comm c = tu_comm(coll, root, 512);
	c.dtype = IR_DT_DOUBLE;
	c.op = IR_OP_SUM;
	if (coll == IR_BCAST) {
		c.bytes = 1024;
		c.segments = 2;
	}
	return c;
}

/* The plan of g for c on m, or fails; with forbid, contention forbidden. */
static void plan_of(const struct sch_generator *g, const ir_machine *m,
                    const ir_comm *c, bool forbid, ir_plan *p)
{
	char why[256];
	struct sch_options o = {0};
	o.forbid_contention = forbid;
	if (sch_applies(g, m, c, why, sizeof why) != 0)
		fail_msg("%s %s refused: %s", g->name, ir_coll_name(c->coll),
		         why);
	int rc = sch_generate(g, m, c, &o, p);
	if (rc)
		fail_msg("%s %s: %d", g->name, ir_coll_name(c->coll), rc);
}

/* Every collective from roots 0, n - 1 and n / 3 verifies, reproducibly,
 * with contention forbidden (then free of it within every link's
 * capacity) and allowed; free of contention even allowed when free. */
static void check_all(const ir_machine *m, const char *name, bool free_)
{
	int32_t n = m->nranks, roots[] = {0, n - 1, n / 3};
	for (int k = 0; k < NCOLLS; k++)
		for (int j = 0; j < 3; j++)
			for (int forbid = 0; forbid < 2; forbid++) {
				ir_comm c = comm_of(colls[k], roots[j]);
				ir_plan p;
				ir_report r;
				plan_of(&sch_domain_leaders, m, &c, forbid, &p);
				if (ir_verify(&p, &r) != 0)
					fail_msg("%s on %s root %d%s: %s",
					         ir_coll_name(c.coll), name,
					         (int)roots[j],
					         forbid ? " (forbid)" : "",
					         r.message);
				if (forbid || free_) {
					if (p.flags != 0)
						fail_msg("%s on %s: contention",
						         ir_coll_name(c.coll),
						         name);
					assert_true(r.max_link_load <= 1);
				}
				assert_true(r.reproducible);
				ir_report_fini(&r);
				ir_plan_fini(&p);
			}
}

static void test_fat_trees(void **state)
{
	(void)state;
	static const int down2[] = {4, 4}, up2[] = {1, 4}, taper[] = {1, 2},
	                 odd[] = {3, 5}, down3[] = {4, 3, 2}, up3[] = {1, 2, 3},
	                 tap3[] = {1, 1, 2};
	static const enum ir_routing rt[] = {IR_ROUTE_D_MOD_K, IR_ROUTE_S_MOD_K,
	                                     IR_ROUTE_ADAPTIVE,
	                                     IR_ROUTE_SOURCE};
	for (int rpn = 1; rpn <= 3; rpn++)
		for (size_t k = 0; k < sizeof rt / sizeof rt[0]; k++) {
			char name[128];
			ir_machine ms[] = {
			        tu_fat_tree(2, down2, up2, NULL, rpn, rt[k], 1),
			        tu_fat_tree(2, down2, taper, NULL, rpn, rt[k],
			                    1),
			        tu_fat_tree(2, odd, taper, NULL, rpn, rt[k], 1),
			        tu_fat_tree(3, down3, up3, NULL, rpn, rt[k], 1),
			        tu_fat_tree(3, down3, tap3, NULL, rpn, rt[k],
			                    1)};
			for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++) {
				snprintf(name, sizeof name,
				         "fat tree %zu, %d a node, %s", j, rpn,
				         ir_routing_name(rt[k]));
				check_all(&ms[j], name, true);
			}
		}
}

static void test_dragonflies(void **state)
{
	(void)state;
	for (int rpn = 1; rpn <= 2; rpn++) {
		ir_machine ms[] = {
		        tu_dragonfly(5, 2, 2, 2, IR_DFLY_ABSOLUTE, NULL, rpn,
		                     IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL),
		        tu_dragonfly(4, 2, 2, 3, IR_DFLY_RELATIVE, NULL, rpn,
		                     IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL),
		        tu_dragonfly(9, 4, 3, 2, IR_DFLY_CIRCULANT, NULL, rpn,
		                     IR_ROUTE_MINIMAL, 0, 1),
		        tu_dragonfly(5, 2, 2, 2, IR_DFLY_CIRCULANT, NULL, rpn,
		                     IR_ROUTE_VALIANT, 7, IR_PORTS_ALL),
		        tu_dragonfly(4, 2, 2, 3, IR_DFLY_ABSOLUTE, NULL, rpn,
		                     IR_ROUTE_ADAPTIVE, 7, IR_PORTS_ALL),
		        tu_dragonfly(5, 2, 2, 2, IR_DFLY_ABSOLUTE, NULL, rpn,
		                     IR_ROUTE_SOURCE, 0, IR_PORTS_ALL),
		};
		static const char *const names[] = {
		        "dragonfly 5x2x2",          "dragonfly 4x2x2",
		        "dragonfly 9x4x3",          "dragonfly 5x2x2 valiant",
		        "dragonfly 4x2x2 adaptive", "dragonfly 5x2x2 source"};
		for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++)
			check_all(&ms[k], names[k],
			          ms[k].routing == IR_ROUTE_MINIMAL ||
			                  ms[k].routing == IR_ROUTE_SOURCE);
	}
}

#define DEF IR_CABLE_CLASS_DEFAULT

/* Three switches in a line, hosts 0-2 under the first, 3-4 under the
 * second, 5-7 under the third: verified; and a host cabled to two
 * switches is refused with the reason. */
static void test_graph(void **state)
{
	(void)state;
	static const struct ir_cable line[] = {
	        {0, 8, 1, DEF, NAN, NAN},  {1, 8, 1, DEF, NAN, NAN},
	        {2, 8, 1, DEF, NAN, NAN},  {3, 9, 1, DEF, NAN, NAN},
	        {4, 9, 1, DEF, NAN, NAN},  {5, 10, 1, DEF, NAN, NAN},
	        {6, 10, 1, DEF, NAN, NAN}, {7, 10, 1, DEF, NAN, NAN},
	        {8, 9, 1, DEF, NAN, NAN},  {9, 10, 1, DEF, NAN, NAN}};
	ir_machine m = tu_graph(8, 3, line, 10, IR_ROUTE_SHORTEST, 1);
	check_all(&m, "graph of 3 switches", false);
	ir_graph_release(m.graph);

	static const struct ir_cable two[] = {{0, 2, 1, DEF, NAN, NAN},
	                                      {1, 2, 1, DEF, NAN, NAN},
	                                      {1, 3, 1, DEF, NAN, NAN},
	                                      {2, 3, 1, DEF, NAN, NAN}};
	m = tu_graph(2, 2, two, 4, IR_ROUTE_SHORTEST, 1);
	ir_comm c = comm_of(IR_BCAST, 0);
	char why[256];
	assert_int_equal(
	        sch_applies(&sch_domain_leaders, &m, &c, why, sizeof why),
	        CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "host 1"));
	ir_graph_release(m.graph);
}

/* g's bytes on class cls for c on m. */
static uint64_t bytes_of(const struct sch_generator *g, const ir_machine *m,
                         const ir_comm *c, enum ir_link_class cls)
{
	ir_plan p;
	plan_of(g, m, c, false, &p);
	uint64_t b = tu_class_bytes(&p, cls);
	ir_plan_fini(&p);
	return b;
}

/* The bound on m's expensive links for a message of M bytes, in units
 * of M: a fat tree's level-l up links (l >= 2) carry at least one
 * message into each of its level-(l-1) subtrees but the root's, the sum
 * over l of the subtrees less one; a dragonfly's global links one into
 * each group but the root's; a graph's cables between switches one into
 * each switch's hosts but the root's. */
static uint64_t bound_of(const ir_machine *m)
{
	if (m->topo == IR_DRAGONFLY)
		return (uint64_t)m->dims[2] - 1;
	if (m->topo == IR_GRAPH)
		return (uint64_t)m->graph->nswitches - 1;
	uint64_t sum = 0, under = 1, hosts = (uint64_t)m->nnodes;
	for (int l = 1; l < m->ndims; l++) {
		under *= (uint64_t)m->dims[l - 1];
		sum += hosts / under - 1;
	}
	return sum;
}

/* On every machine: the broadcast and the reduce put exactly the bound
 * on the expensive class, the allreduce twice it (a reduce and a
 * broadcast); recursive_doubling's allreduce strictly more; binomial's
 * and reduce_bcast's (one rank a node) and hierarchical's (several) no
 * fewer: on fat trees and dragonflies binomial halves the box of the
 * hosts' places highest level first, which meets the bound too; on the
 * graph marked `skew`, whose switches hold the even and the odd hosts,
 * its halving of the line of ranks crosses between switches more. */
static void test_bound(void **state)
{
	(void)state;
	static const int d6[] = {6, 4}, u6[] = {1, 2}, d3[] = {3, 3, 2},
	                 u3[] = {1, 3, 2}, d8[] = {8, 8}, u8[] = {1, 4};
	static const struct ir_cable odd_even[] = {
	        {0, 8, 1, DEF, NAN, NAN}, {1, 9, 1, DEF, NAN, NAN},
	        {2, 8, 1, DEF, NAN, NAN}, {3, 9, 1, DEF, NAN, NAN},
	        {4, 8, 1, DEF, NAN, NAN}, {5, 9, 1, DEF, NAN, NAN},
	        {6, 8, 1, DEF, NAN, NAN}, {7, 9, 1, DEF, NAN, NAN},
	        {8, 9, 1, DEF, NAN, NAN}};
	const struct {
		ir_machine m;
		const char *name;
		bool skew;
	} ms[] = {
	        {tu_fat_tree(2, d6, u6, NULL, 1, IR_ROUTE_D_MOD_K, 1),
	         "XGFT(2; 6,4; 1,2)", false},
	        {tu_fat_tree(2, d6, u6, NULL, 2, IR_ROUTE_D_MOD_K, 1),
	         "XGFT(2; 6,4; 1,2), 2 a node", false},
	        {tu_fat_tree(3, d3, u3, NULL, 2, IR_ROUTE_D_MOD_K, 1),
	         "XGFT(3; 3,3,2; 1,3,2), 2 a node", false},
	        {tu_fat_tree(2, d8, u8, NULL, 1, IR_ROUTE_D_MOD_K, 1),
	         "XGFT(2; 8,8; 1,4)", false},
	        {tu_dragonfly(7, 3, 2, 2, IR_DFLY_RELATIVE, NULL, 1,
	                      IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL),
	         "dragonfly 7x3x2", false},
	        {tu_dragonfly(7, 3, 2, 2, IR_DFLY_RELATIVE, NULL, 3,
	                      IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL),
	         "dragonfly 7x3x2, 3 a node", false},
	        {tu_graph(8, 2, odd_even, 9, IR_ROUTE_SHORTEST, 1),
	         "graph of 2 switches, hosts alternating", true},
	};
	for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
		const ir_machine *m = &ms[k].m;
		enum ir_link_class cls = m->topo == IR_DRAGONFLY ? IR_LC_GLOBAL
		                         : m->topo == IR_GRAPH   ? IR_LC_LOCAL
		                                                 : IR_LC_UP;
		for (int j = 0; j < NCOLLS; j++) {
			ir_comm c = comm_of(colls[j], 0);
			uint64_t want = bound_of(m) * (uint64_t)c.bytes *
			                (colls[j] == IR_ALLREDUCE ? 2 : 1);
			uint64_t mine =
			        bytes_of(&sch_domain_leaders, m, &c, cls);
			if (mine != want)
				fail_msg("%s on %s: %llu bytes on %s links, "
				         "the bound %llu",
				         ir_coll_name(c.coll), ms[k].name,
				         (unsigned long long)mine,
				         ir_link_class_names[cls],
				         (unsigned long long)want);
			const struct sch_generator *peers[] = {
			        colls[j] == IR_ALLREDUCE ? &sch_reduce_bcast
			                                 : &sch_binomial,
			        colls[j] == IR_ALLREDUCE
			                ? &sch_recursive_doubling
			                : NULL,
			        &sch_hierarchical};
			if (ir_machine_has_nodes(m))
				peers[0] = peers[1] = NULL;
			else
				peers[2] = NULL;
			for (int q = 0; q < 3; q++) {
				if (!peers[q])
					continue;
				uint64_t theirs =
				        bytes_of(peers[q], m, &c, cls);
				bool more = ms[k].skew ||
				            peers[q] == &sch_recursive_doubling;
				if (theirs < mine || (more && theirs == mine))
					fail_msg("%s on %s: %s puts %llu bytes "
					         "on %s links, %s %llu",
					         ir_coll_name(c.coll),
					         ms[k].name, peers[q]->name,
					         (unsigned long long)theirs,
					         ir_link_class_names[cls],
					         "domain_leaders",
					         (unsigned long long)mine);
			}
		}
	}
	ir_graph_release(ms[sizeof ms / sizeof ms[0] - 1].m.graph);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_fat_trees),
	        cmocka_unit_test(test_dragonflies),
	        cmocka_unit_test(test_graph),
	        cmocka_unit_test(test_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
