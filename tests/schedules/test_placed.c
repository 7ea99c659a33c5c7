/*
 * test_placed.c - machines whose ranks are placed by a map
 * (placement: [...]; ir_place_from_nodes, schedules/placed.c).
 *
 * The map itself: positions dealt node by node in rank order, the three
 * lookups (ir_node_of, ir_node_rank, ir_node_local) inverse to each
 * other, and every list that does not fill the nodes exactly refused
 * with the first rank at fault.  Then every generator on every
 * collective it takes, on meshes, tori, a hypercube, HPAM and a switch
 * with one and two ranks per node, each scrambled by a seeded map:
 * where the generator applies over positions it applies to the placed
 * machine, sch_generate's plan passes the verifier on the real machine
 * (delivery to the renamed ranks, ports, node ports, links), and it has
 * as many phases and transfers as the same generator's plan on the
 * machine placed by blocks, since renaming moves no transfer to another
 * link.  The input's `placement:` is tested by tests/bad (refusals)
 * and the sockets test (every byte of placed plans, run).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "front.h"
#include "ir.h"
#include "matrix.h"
#include "model.h"
#include "sched.h"
#include "support.h"

/* A place putting the ranks of m (block-placed) at a seeded shuffle of
 * positions: the node of rank r is that of position perm[r]. */
static ir_place *shuffled(const ir_machine *m, uint64_t seed)
{
	int32_t n = m->nranks, *perm = malloc((size_t)n * sizeof *perm), bad;
	char err[160];
	int rc;
	assert_non_null(perm);
	for (int32_t i = 0; i < n; i++)
		perm[i] = i;
	for (int32_t i = n - 1; i > 0; i--) { /* Fisher-Yates, an LCG */
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		int32_t j = (int32_t)((seed >> 33) % (uint64_t)(i + 1));
		int32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (int32_t i = 0; i < n; i++)
		perm[i] /= m->ranks_per_node; /* the node of that position */
	ir_place *p = ir_place_from_nodes(perm, n, m->nnodes,
	                                  m->ranks_per_node, &rc, &bad, err,
	                                  sizeof err);
	if (!p)
		fail_msg("%s", err);
	free(perm);
	return p;
}

/* m with ranks_per_node k (block) checked, then placed by p if given. */
static ir_machine with_nodes(ir_machine m, int k, ir_place *p)
{
	char err[160];
	m.ranks_per_node = k;
	m.placement = IR_PLACE_BLOCK;
	m.place = NULL;
	if (m.topo == IR_SWITCH)
		m.dims[0] /= k;
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	if (p) {
		m.placement = IR_PLACE_MAP;
		m.place = p;
		if (ir_machine_check(&m, err, sizeof err) != 0)
			fail_msg("%s", err);
	}
	return m;
}

static void test_place_from_nodes(void **state)
{
	(void)state;
	/* 3 nodes of 2: rank r on node[r] */
	const int32_t node[6] = {2, 0, 1, 0, 2, 1};
	char err[160];
	int32_t bad;
	int rc;
	ir_place *p = ir_place_from_nodes(node, 6, 3, 2, &rc, &bad, err,
	                                  sizeof err);
	assert_non_null(p);
	assert_int_equal(rc, 0);
	/* a node's ranks in increasing order take its slots */
	const int32_t pos[6] = {4, 0, 2, 1, 5, 3};
	for (int r = 0; r < 6; r++)
		assert_int_equal(p->pos[r], pos[r]);
	ir_machine m = with_nodes(tu_machine(IR_MESH, IR_PORTS_ALL, 3, 0, 0, 0),
	                          2, p);
	for (int32_t r = 0; r < 6; r++) {
		assert_int_equal(ir_node_of(&m, r), node[r]);
		assert_int_equal(ir_node_rank(&m, ir_node_of(&m, r),
		                              ir_node_local(&m, r)),
		                 r);
	}
	assert_false(ir_machine_is_classic(&m));
	ir_place_release(p);

	/* refusals name the first rank at fault */
	const int32_t over[6] = {0, 0, 1, 0, 2, 1};
	assert_null(ir_place_from_nodes(over, 6, 3, 2, &rc, &bad, err,
	                                sizeof err));
	assert_int_equal(rc, CCP_EINVAL);
	assert_int_equal(bad, 3);
	assert_non_null(strstr(err, "rank 3 is placed on node 0, which "
	                            "already holds its 2 ranks"));
	const int32_t out[6] = {0, 0, 1, 3, 2, 1};
	assert_null(ir_place_from_nodes(out, 6, 3, 2, &rc, &bad, err,
	                                sizeof err));
	assert_int_equal(bad, 3);
	assert_non_null(strstr(err, "nodes are 0..2"));
	assert_null(ir_place_from_nodes(out, 5, 3, 2, &rc, &bad, err,
	                                sizeof err));
	assert_int_equal(rc, CCP_EINVAL);

	/* the machine refuses a map of the wrong size, or a missing one */
	m = with_nodes(tu_machine(IR_MESH, IR_PORTS_ALL, 3, 0, 0, 0), 2, NULL);
	m.placement = IR_PLACE_MAP;
	assert_int_equal(ir_machine_check(&m, err, sizeof err), CCP_EINVAL);
	assert_non_null(strstr(err, "placement map"));
}

/* The collective c for machine m (root 5 mod n, vectors of doubles). */
static ir_comm comm_of(enum ir_coll k, const ir_machine *m)
{
	ir_comm c = {.coll = k, .bytes = 96, .dtype = IR_DT_DOUBLE,
	             .op = IR_OP_SUM};
	c.root = 5 % m->nranks;
	if (ir_coll_kind(k) & IR_CK_REDUCES)
		c.bytes = 8 * (int64_t)m->nranks * 3;
	if (k == IR_IRREGULAR)
		c.matrix = ir_matrix_regular(m->nranks, 3, 100, 11);
	return c;
}

/* Pattern x with both ends of every message moved to their positions,
 * built entry by entry (the test's own oracle for placed.c). */
static ir_matrix *at_positions(const ir_matrix *x, const ir_place *pl)
{
	struct ir_edge *e = calloc((size_t)x->nnz + 1, sizeof *e);
	ir_matrix *y = NULL;
	size_t bad, k = 0;
	assert_non_null(e);
	for (int32_t s = 0; s < x->n; s++)
		for (int32_t d = 0; d < x->n; d++) {
			int64_t b = ir_matrix_get(x, s, d);
			if (b > 0)
				e[k++] = (struct ir_edge){pl->pos[s],
				                          pl->pos[d], b, k};
		}
	assert_int_equal(k, (size_t)x->nnz);
	assert_int_equal(ir_matrix_from_edges(x->n, e, k, &y, &bad), 0);
	free(e);
	return y;
}

/* g's plan for (m, c) through sch_generate, verified; phases and
 * transfers out.  false when g does not apply. */
static bool plan_of(const struct sch_generator *g, const ir_machine *m,
                    const ir_comm *c, ir_plan *p)
{
	struct sch_options o = {.seed = 3, .hpam_price = model_hpam_price};
	char why[256];
	ir_report r;
	if (sch_applies(g, m, c, why, sizeof why) != 0)
		return false;
	int rc = sch_generate(g, m, c, &o, p);
	if (rc != 0)
		fail_msg("%s: generate: %d", g->name, rc);
	if (ir_verify(p, &r) != 0 || !r.ok)
		fail_msg("%s on %s: %s", g->name, ir_coll_name(c->coll),
		         r.message);
	ir_report_fini(&r);
	return true;
}

static void test_every_generator(void **state)
{
	(void)state;
	const ir_machine base[] = {
	        tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 0, 0),
	        tu_machine(IR_TORUS, IR_PORTS_ALL, 4, 4, 0, 0),
	        tu_machine(IR_MESH, 1, 8, 0, 0, 0),
	        tu_machine(IR_HYPERCUBE, IR_PORTS_ALL, 4, 0, 0, 0),
	        tu_machine(IR_SWITCH, IR_PORTS_ALL, 8, 0, 0, 0),
	        tu_machine(IR_HPAM, IR_PORTS_ALL, 2, 2, 2, 2),
	};
	int applied = 0, generators = 0;
	for (size_t b = 0; b < sizeof base / sizeof base[0]; b++) {
		for (int k = 1; k <= 2; k++) {
			if (base[b].topo == IR_HPAM && k > 1)
				continue; /* HPAM's levels are ranks */
			ir_machine block = with_nodes(base[b], k, NULL);
			ir_place *pl = shuffled(&block, 40 + b * 2 + k);
			ir_machine placed = with_nodes(base[b], k, pl);
			for (int g = 0; sch_generators[g]; g++) {
				const struct sch_generator *gen =
				        sch_generators[g];
				bool any = false;
				for (int cl = 0; cl < IR_NCOLLS; cl++) {
					ir_comm c = comm_of(cl, &placed);
					/* the same collective over positions */
					ir_comm pc = c;
					pc.root = pl->pos[c.root];
					if (c.matrix)
						pc.matrix = at_positions(
						        c.matrix, pl);
					ir_plan a, q;
					bool on_placed =
					        plan_of(gen, &placed, &c, &a);
					bool on_block =
					        plan_of(gen, &block, &pc, &q);
					if (on_placed != on_block)
						fail_msg("%s on %s: applies "
						         "%d placed, %d block",
						         gen->name,
						         ir_coll_name(cl),
						         on_placed, on_block);
					if (on_placed) {
						any = true;
						applied++;
						assert_int_equal(a.nphases,
						                 q.nphases);
						assert_int_equal(a.ntransfers,
						                 q.ntransfers);
						ir_plan_fini(&a);
						ir_plan_fini(&q);
					}
					ir_matrix_free(pc.matrix);
					ir_comm_fini(&c);
				}
				generators += any;
			}
			ir_place_release(pl);
		}
	}
	print_message("placed: %d generator-collective-machine cases "
	              "verified\n",
	              applied);
	assert_true(applied >= 200);
	assert_true(generators >= 40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_place_from_nodes),
	        cmocka_unit_test(test_every_generator),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
