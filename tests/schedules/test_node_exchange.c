/*
 * test_node_exchange.c - the node-aware irregular exchange
 * (schedules/node_exchange.c): on 2D and 3D meshes and tori of nodes with
 * 2 to 8 ranks per node, placed by block and cyclically, with 1 and 4
 * network ports per node and one-port or all-port ranks, for the halo
 * patterns of 2D 5-point and 3D 7- and 27-point stencils and for random
 * patterns, every plan is verified (causality, delivery, node and network
 * ports, links), each communicating pair of nodes gets exactly one
 * network transfer carrying every block between them, every other
 * transfer stays inside a node, and the plan is gather, exchange, scatter
 * in that order; a machine of one rank per node is refused with its
 * reason; `algorithm: auto` ranks it with the others by the model.  Also
 * the stencil patterns themselves (ir_matrix_stencil).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compile.h"
#include "front.h"
#include "ir.h"
#include "matrix.h"
#include "sched.h"
#include "select.h"
#include "support.h"

/* A checked mesh or torus of nodes, nd extents dims[], rpn ranks per
 * node placed by pl, node_ports network ports, per-rank ports. */
static ir_machine grid(enum ir_topo t, int nd, const int *dims, int rpn,
                       enum ir_placement pl, int node_ports, int ports)
{
	return tu_grid(t, nd, dims, 0, NULL, rpn, pl, node_ports, ports);
}

/* n ranks as a process grid of nd near-equal extents (largest first). */
static void factor(int32_t n, int nd, int32_t *g)
{
	for (int d = 0; d < nd; d++) {
		int32_t want = (int32_t)floor(pow((double)n, 1.0 / (nd - d)) +
		                              1e-9),
		        f = want;
		while (f > 1 && n % f)
			f--;
		g[d] = f;
		n /= f;
	}
	g[nd - 1] *= n;
}

/* The patterns of the tests on n ranks: 2D 5-point, 3D 7- and 27-point
 * halos, a random 3-regular one and a random sparse one. */
enum { NPAT = 5 };
static ir_matrix *pattern(int k, int32_t n)
{
	int32_t g[3];
	switch (k) {
	case 0:
		factor(n, 2, g);
		return ir_matrix_stencil(2, g, false, 512);
	case 1:
		factor(n, 3, g);
		return ir_matrix_stencil(3, g, false, 256);
	case 2:
		factor(n, 3, g);
		return ir_matrix_stencil(3, g, true, 64);
	case 3:
		return ir_matrix_regular(n, n > 4 ? 3 : 1, 1000, 11);
	default:
		return ir_matrix_density(n, 0.05, 77, 5);
	}
}

/* Generate node_exchange for x on m, verify it, and check its shape:
 * the network transfers are exactly one per communicating node pair,
 * each with every block between the two nodes; all others inside a
 * node; phases only gather (shared memory), then exchange (network),
 * then scatter (shared memory). */
static void check(const ir_machine *m, ir_matrix *x, const char *what)
{
	ir_comm c = {.coll = IR_IRREGULAR, .matrix = x, .seed = 3};
	struct sch_options o = {.seed = 3};
	char why[256];
	ir_plan p;
	ir_report r;
	const struct sch_generator *g = sch_find("node_exchange");
	assert_non_null(g);
	if (sch_applies(g, m, &c, why, sizeof why) != 0) {
		print_error("%s: %s\n", what, why);
		fail();
	}
	assert_int_equal(g->generate(m, &c, &o, &p), 0);
	int rc = ir_verify(&p, &r);
	if (rc)
		print_error("%s: %s\n", what, r.message);
	assert_int_equal(rc, 0);
	assert_true(r.ok);
	assert_int_equal(p.flags, 0);
	assert_int_equal(r.duplicates, 0);

	/* blocks per node pair, and off-node messages */
	int32_t nn = m->nnodes;
	uint32_t *want = calloc((size_t)nn * nn, sizeof *want);
	uint32_t *got = calloc((size_t)nn * nn, sizeof *got);
	assert_non_null(want);
	assert_non_null(got);
	uint64_t pairs = 0, offnode = 0;
	for (int32_t s = 0; s < x->n; s++)
		for (int64_t e = x->row[s]; e < x->row[s + 1]; e++) {
			int32_t a = ir_node_of(m, s),
			        b = ir_node_of(m, x->dst[e]);
			if (a == b)
				continue;
			offnode++;
			if (want[(size_t)a * nn + b]++ == 0)
				pairs++;
		}
	uint64_t net = 0;
	int step = 0; /* 0 gather, 1 exchange, 2 scatter */
	for (uint32_t ph = 0; ph < p.nphases; ph++) {
		const ir_phase *f = &p.phases[ph];
		uint32_t nnet = 0;
		for (uint32_t t = 0; t < f->ntransfers; t++) {
			const ir_transfer *y = &p.transfers[f->transfer + t];
			int32_t a = ir_node_of(m, y->src),
			        b = ir_node_of(m, y->dst);
			if (a == b)
				continue;
			nnet++;
			/* one transfer per pair, with all its blocks */
			assert_int_equal(got[(size_t)a * nn + b]++, 0);
			assert_int_equal(y->nblocks, want[(size_t)a * nn + b]);
			for (uint32_t k = 0; k < y->nblocks; k++) {
				ir_block bl = p.blocks[y->block + k];
				assert_int_equal(ir_node_of(m, bl.origin), a);
				assert_int_equal(ir_node_of(m, bl.index), b);
			}
		}
		/* a phase is all network or all shared memory */
		assert_true(nnet == 0 || nnet == f->ntransfers);
		/* at most the node pairs that communicate, per phase */
		assert_true(nnet <= pairs);
		if (nnet && step == 0)
			step = 1;
		if (!nnet && step == 1)
			step = 2;
		assert_false(nnet && step == 2);
		net += nnet;
	}
	assert_int_equal(net, pairs);
	assert_true(net <= offnode);
	assert_int_equal(r.transfers - r.shm_transfers, pairs);
	free(want);
	free(got);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* ---- tests ------------------------------------------------------------ */

/* Every pattern on every machine of nodes. */
static void test_patterns_verify(void **state)
{
	(void)state;
	const int d2[2] = {3, 4}, d2b[2] = {4, 4}, d3[3] = {2, 3, 2};
	const struct {
		enum ir_topo t;
		int nd;
		const int *dims;
	} shapes[] = {
	        {IR_MESH, 2, d2},
	        {IR_TORUS, 2, d2b},
	        {IR_MESH, 3, d3},
	        {IR_TORUS, 3, d3},
	};
	const int rpns[] = {2, 3, 4, 8};
	const int nports[] = {1, 4};
	const int rports[] = {1, IR_PORTS_ALL};
	size_t runs = 0;
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		for (size_t j = 0; j < sizeof rpns / sizeof rpns[0]; j++)
			for (int pl = 0; pl <= IR_PLACE_CYCLIC; pl++)
				for (int np = 0; np < 2; np++)
					for (int rp = 0; rp < 2; rp++) {
						ir_machine m = grid(
						        shapes[i].t,
						        shapes[i].nd,
						        shapes[i].dims, rpns[j],
						        (enum ir_placement)pl,
						        nports[np], rports[rp]);
						for (int k = 0; k < NPAT; k++) {
							ir_matrix *x = pattern(
							        k, m.nranks);
							assert_non_null(x);
							char what[96];
							snprintf(what,
							         sizeof what,
							         "shape %zu "
							         "rpn %d "
							         "pl %d np %d "
							         "rp %d "
							         "pattern %d",
							         i, rpns[j], pl,
							         nports[np],
							         rports[rp], k);
							check(&m, x, what);
							ir_matrix_free(x);
							runs++;
						}
					}
	assert_int_equal(runs, 4 * 4 * 2 * 2 * 2 * NPAT);
}

/* node_ports all, a 4D torus, an order other than x, y, z, and an empty
 * pattern and one of messages inside nodes only. */
static void test_other_machines(void **state)
{
	(void)state;
	const int d4[4] = {2, 3, 2, 2};
	ir_machine m = grid(IR_TORUS, 4, d4, 4, IR_PLACE_BLOCK, IR_PORTS_ALL,
	                    IR_PORTS_ALL);
	for (int k = 0; k < NPAT; k++) {
		ir_matrix *x = pattern(k, m.nranks);
		check(&m, x, "4D torus");
		ir_matrix_free(x);
	}
	const int d2[2] = {4, 3};
	m = grid(IR_MESH, 2, d2, 4, IR_PLACE_CYCLIC, 2, 1);
	m.order[0] = 1;
	m.order[1] = 0;
	char err[160];
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	ir_matrix *x = pattern(0, m.nranks);
	check(&m, x, "y before x");
	ir_matrix_free(x);
	/* nothing to send */
	x = ir_matrix_new(m.nranks, 0);
	assert_non_null(x);
	check(&m, x, "empty");
	ir_matrix_free(x);
	/* messages inside nodes only (block placement: ranks 4k..4k+3) */
	m = grid(IR_MESH, 2, d2, 4, IR_PLACE_BLOCK, 1, 1);
	struct ir_edge e[] = {{0, 1, 10, 0},
	                      {1, 0, 20, 1},
	                      {2, 3, 30, 2},
	                      {5, 6, 40, 3},
	                      {7, 4, 50, 4}};
	size_t bad;
	assert_int_equal(ir_matrix_from_edges(m.nranks, e, 5, &x, &bad), 0);
	check(&m, x, "inside nodes");
	ir_matrix_free(x);
}

/* With one network port per node, every phase of the exchange has at
 * most one network transfer leaving and one entering each node, and the
 * leaders of a node are its local rank 0 only; with 4 ports and 4 ranks
 * per node, up to four leaders share the work. */
static void test_leaders(void **state)
{
	(void)state;
	const int d2[2] = {4, 4};
	for (int np = 1; np <= 4; np += 3) {
		ir_machine m = grid(IR_TORUS, 2, d2, 4, IR_PLACE_BLOCK, np,
		                    IR_PORTS_ALL);
		int32_t g[2];
		factor(m.nranks, 2, g);
		ir_matrix *x = ir_matrix_stencil(2, g, true, 100);
		ir_comm c = {.coll = IR_IRREGULAR, .matrix = x};
		struct sch_options o = {0};
		ir_plan p;
		ir_report r;
		assert_int_equal(sch_node_exchange.generate(&m, &c, &o, &p), 0);
		assert_int_equal(ir_verify(&p, &r), 0);
		assert_true(r.max_net_sends <= (uint32_t)np);
		assert_true(r.max_net_recvs <= (uint32_t)np);
		bool leader[4] = {false};
		for (uint32_t t = 0; t < p.ntransfers; t++) {
			const ir_transfer *y = &p.transfers[t];
			if (ir_node_of(&m, y->src) != ir_node_of(&m, y->dst))
				leader[y->src % 4] = true;
		}
		int nl = leader[0] + leader[1] + leader[2] + leader[3];
		if (np == 1)
			assert_int_equal(nl, 1);
		else
			assert_true(nl > 1);
		ir_report_fini(&r);
		ir_plan_fini(&p);
		ir_matrix_free(x);
	}
}

/* One rank per node: refused, saying why. */
static void test_refuses_one_rank_per_node(void **state)
{
	(void)state;
	const int d2[2] = {4, 4};
	ir_machine m = grid(IR_MESH, 2, d2, 1, IR_PLACE_BLOCK, 1, 1);
	ir_matrix *x = ir_matrix_regular(m.nranks, 3, 10, 1);
	ir_comm c = {.coll = IR_IRREGULAR, .matrix = x};
	char why[256];
	assert_int_equal(
	        sch_applies(&sch_node_exchange, &m, &c, why, sizeof why),
	        CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "one rank per node"));
	/* a collective is not its business */
	m = grid(IR_MESH, 2, d2, 2, IR_PLACE_BLOCK, 1, 1);
	ir_comm b = tu_comm(IR_ALLTOALL, 0, 64);
	assert_int_equal(
	        sch_applies(&sch_node_exchange, &m, &b, why, sizeof why),
	        CCP_ENOTAPPLY);
	ir_matrix_free(x);
}

/* Fewer network messages than the flat exchange: on a 4x4 mesh of
 * 8-rank nodes, the 3D 27-point halo has far more off-node messages
 * than communicating node pairs. */
static void test_fewer_network_messages(void **state)
{
	(void)state;
	const int d2[2] = {4, 4};
	ir_machine m = grid(IR_MESH, 2, d2, 8, IR_PLACE_BLOCK, 2, 1);
	int32_t g[3] = {4, 4, 8}; /* 128 ranks; a node holds 8 in a row */
	ir_matrix *x = ir_matrix_stencil(3, g, true, 64);
	ir_comm c = {.coll = IR_IRREGULAR, .matrix = x};
	struct sch_options o = {0};
	ir_plan p;
	ir_report r;
	assert_int_equal(sch_node_exchange.generate(&m, &c, &o, &p), 0);
	assert_int_equal(ir_verify(&p, &r), 0);
	uint64_t offnode = 0;
	for (int32_t s = 0; s < x->n; s++)
		for (int64_t e = x->row[s]; e < x->row[s + 1]; e++)
			offnode +=
			        ir_node_of(&m, s) != ir_node_of(&m, x->dst[e]);
	uint64_t net = r.transfers - r.shm_transfers;
	assert_true(net * 4 < offnode);
	ir_report_fini(&r);
	ir_plan_fini(&p);
	ir_matrix_free(x);
}

/* The stencil patterns: neighbour counts inside and at the edges. */
static void test_stencil(void **state)
{
	(void)state;
	int32_t g2[2] = {3, 3}, g3[3] = {3, 3, 3};
	ir_matrix *x = ir_matrix_stencil(2, g2, false, 8);
	assert_non_null(x);
	assert_int_equal(x->nnz, 24); /* 12 neighbouring pairs, both ways */
	assert_int_equal(x->row[5] - x->row[4], 4); /* the centre */
	assert_int_equal(x->row[1] - x->row[0], 2); /* a corner */
	assert_int_equal(ir_matrix_get(x, 4, 1), 8);
	assert_int_equal(ir_matrix_get(x, 4, 0), 0);
	ir_matrix_free(x);
	x = ir_matrix_stencil(3, g3, true, 8);
	assert_int_equal(x->row[14] - x->row[13], 26);
	assert_int_equal(x->row[1] - x->row[0], 7);
	ir_matrix_free(x);
	x = ir_matrix_stencil(3, g3, false, 8);
	assert_int_equal(x->row[14] - x->row[13], 6);
	assert_int_equal(x->row[1] - x->row[0], 3);
	ir_matrix_free(x);
	int32_t bad[2] = {3, 0};
	assert_null(ir_matrix_stencil(2, bad, false, 8));
	assert_null(ir_matrix_stencil(0, g2, false, 8));
}

/* auto: node_exchange is among the candidates on a machine of nodes and
 * the ranking by the model is in order of predicted time; on one rank
 * per node it is not a candidate. */
static void test_auto(void **state)
{
	(void)state;
	static const char text[] =
	        "machine: {topology: torus, dims: [4, 4], %s\n"
	        "  cost: {alpha: 2, beta: 0.0001, hop: 0.01, gamma: 0, "
	        "shm_alpha: 0.5, shm_beta: "
	        "0.00002}}\n"
	        "communication:\n"
	        "  pattern: irregular\n"
	        "  generate: {kind: regular, degree: 6, bytes: 4096, seed: "
	        "1}\n"
	        "algorithm: auto\n"
	        "select: model\n";
	for (int rpn = 1; rpn <= 4; rpn += 3) {
		char buf[512];
		struct front_input in;
		struct select_result sr;
		struct diag d;
		snprintf(buf, sizeof buf, text,
		         rpn > 1 ? "ranks_per_node: 4, node_ports: 1," : "");
		int rc =
		        front_parse_string("t.yaml", buf, strlen(buf), &in, &d);
		if (rc)
			print_error("%s\n", d.message);
		assert_int_equal(rc, 0);
		assert_int_equal(select_run(&in, false, true, &sr), 0);
		bool found = false;
		for (size_t i = 1; i < sr.n; i++)
			if (sr.rows[i].rc == 0)
				assert_true(sr.rows[i - 1].predicted <=
				            sr.rows[i].predicted);
		for (size_t i = 0; i < sr.n; i++) {
			if (sr.rows[i].g != &sch_node_exchange)
				continue;
			found = true;
			/* the model prices its shared-memory transfers */
			assert_int_equal(sr.rows[i].rc, 0);
			assert_false(isnan(sr.rows[i].predicted));
		}
		assert_true(found == (rpn > 1));
		struct compiled c;
		memset(&d, 0, sizeof d);
		rc = compile_input(&in, &c, &d);
		if (rpn > 1) {
			assert_int_equal(rc, 0);
			assert_string_equal(c.plan.algorithm,
			                    sr.rows[0].g->name);
			assert_int_equal(c.plan.sel.method, IR_SELECT_MODEL);
			compiled_fini(&c);
		} else if (rc == 0) {
			assert_string_not_equal(c.plan.algorithm,
			                        "node_exchange");
			compiled_fini(&c);
		}
		select_fini(&sr);
		front_input_fini(&in);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_patterns_verify),
	        cmocka_unit_test(test_other_machines),
	        cmocka_unit_test(test_leaders),
	        cmocka_unit_test(test_refuses_one_rank_per_node),
	        cmocka_unit_test(test_fewer_network_messages),
	        cmocka_unit_test(test_stencil),
	        cmocka_unit_test(test_auto),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
