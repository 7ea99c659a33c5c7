/*
 * test_binomial_node.c - the binomial tree on a machine whose ranks all
 * share one node (the ranks of one host, as an MPI job on a workstation
 * runs), and the shared-memory cost that lets `auto` price such a node:
 *
 *   - on one node of n ranks, binomial's broadcast, reduce, scatter and
 *     gather are the plans it gives on a switch of n ranks, transfer for
 *     transfer, and pass the verifier (the engine test runs them);
 *   - on two nodes it is refused, naming the node-aware generators;
 *   - with shm_alpha and shm_beta, a phase costs the bytes the node
 *     moves in it, so that the ranking puts binomial first for a large
 *     broadcast, where the largest-message price of the same costs on a
 *     switch ranks the segmented schedules (chain, scatter_allgather)
 *     first: they move more bytes through the one memory; and, with the
 *     node's combines summed, for a large reduce too.
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
#include "model.h"
#include "sched.h"
#include "support.h"

/* Generate binomial (which must apply), verify; the plan is the
 * caller's. */
static void make(const ir_machine *m, const ir_comm *c, ir_plan *p)
{
	char why[256] = "";
	int rc = sch_applies(&sch_binomial, m, c, why, sizeof why);
	if (rc)
		print_message("  binomial on %d ranks: %s\n", (int)m->nranks,
		              why);
	assert_int_equal(rc, 0);
	struct sch_options o = {0};
	assert_int_equal(sch_binomial.generate(m, c, &o, p), 0);
	ir_report r;
	rc = ir_verify(p, &r);
	if (rc)
		print_message("  binomial on %d ranks: verifier: %s\n",
		              (int)m->nranks, r.message);
	assert_int_equal(rc, 0);
	assert_true(r.ok);
	ir_report_fini(&r);
}

/* One node of n ranks: a switch of one port (node) holding them all. */
static ir_machine one_node(int32_t n)
{
	ir_machine m = tu_machine(IR_SWITCH, n - 1, 1, 0, 0, 0);
	return tu_with_nodes(m, n, IR_PLACE_BLOCK, 1);
}

/* The same phases, transfers (ends, flags) and blocks in both plans. */
static void same_plan(const ir_plan *a, const ir_plan *b)
{
	assert_int_equal(a->nphases, b->nphases);
	assert_int_equal(a->ntransfers, b->ntransfers);
	for (uint32_t ph = 0; ph < a->nphases; ph++) {
		assert_int_equal(a->phases[ph].ntransfers,
		                 b->phases[ph].ntransfers);
		assert_int_equal(a->phases[ph].transfer,
		                 b->phases[ph].transfer);
	}
	for (uint32_t k = 0; k < a->ntransfers; k++) {
		const ir_transfer *x = &a->transfers[k], *y = &b->transfers[k];
		assert_int_equal(x->src, y->src);
		assert_int_equal(x->dst, y->dst);
		assert_int_equal(x->flags, y->flags);
		assert_int_equal(x->nblocks, y->nblocks);
		assert_memory_equal(&a->blocks[x->block], &b->blocks[y->block],
		                    x->nblocks * sizeof *a->blocks);
	}
}

static void test_one_node_is_the_switch_tree(void **state)
{
	(void)state;
	enum ir_coll colls[] = {IR_BCAST, IR_REDUCE, IR_SCATTER, IR_GATHER};
	int plans = 0;
	for (int32_t n = 2; n <= 9; n++) {
		ir_machine node = one_node(n);
		ir_machine sw = tu_machine(IR_SWITCH, 1, n, 0, 0, 0);
		assert_true(ir_machine_has_nodes(&node));
		assert_int_equal(node.nnodes, 1);
		assert_int_equal(node.nranks, n);
		for (size_t k = 0; k < sizeof colls / sizeof *colls; k++)
			for (int32_t root = 0; root < n; root += n > 3 ? 3 : 1) {
				ir_comm c = tu_comm(colls[k], root, 64);
				if (colls[k] == IR_REDUCE) {
					c.dtype = IR_DT_INT32;
					c.op = IR_OP_SUM;
				}
				ir_plan a, b;
				make(&node, &c, &a);
				make(&sw, &c, &b);
				same_plan(&a, &b);
				/* ceil(lg n) phases, each rank in at most one
				 * transfer a phase: what a switch gives */
				uint32_t lg = 0;
				while ((1 << lg) < n)
					lg++;
				assert_int_equal(a.nphases, lg);
				assert_int_equal(a.ntransfers, (uint32_t)(n - 1));
				ir_plan_fini(&a);
				ir_plan_fini(&b);
				plans++;
			}
	}
	print_message("%d plans on one node equal the switch's\n", plans);
}

static void test_two_nodes_refused(void **state)
{
	(void)state;
	ir_machine m = tu_with_nodes(tu_machine(IR_SWITCH, 1, 2, 0, 0, 0), 2,
	                             IR_PLACE_BLOCK, 1);
	ir_comm c = tu_comm(IR_BCAST, 0, 64);
	char why[256] = "";
	assert_int_equal(sch_applies(&sch_binomial, &m, &c, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "one node"));
	assert_non_null(strstr(why, "node-aware"));
}

/* The model's time of generator g's plan for c on m. */
static double predict(const struct sch_generator *g, const ir_machine *m,
                      const ir_comm *c)
{
	char why[256] = "";
	ir_plan p;
	ir_report r;
	struct sch_options o = {0};
	assert_int_equal(sch_applies(g, m, c, why, sizeof why), 0);
	assert_int_equal(g->generate(m, c, &o, &p), 0);
	assert_int_equal(ir_verify(&p, &r), 0);
	double us = NAN;
	char err[256] = "";
	int rc = model_predict(&p, &r, MODEL_PERMUTATION, &us, NULL, err,
	                       sizeof err);
	if (rc)
		print_message("  %s: %s\n", g->name, err);
	assert_int_equal(rc, 0);
	ir_report_fini(&r);
	ir_plan_fini(&p);
	return us;
}

/* The costs fitted at 2 ranks (docs/collectives.md); shm_alpha, shm_beta
 * the same start-up and per-byte cost, now of the node's memory. */
static void set_costs(ir_machine *m, bool shm)
{
	ir_cost_unset(&m->cost);
	m->cost.tau = 0.8;
	m->cost.phi = 0.0002;
	m->cost.combine = 0.00005;
	if (shm) {
		m->cost.shm_alpha = 0.8;
		m->cost.shm_beta = 0.0002;
	}
}

static void test_node_bytes_priced(void **state)
{
	(void)state;
	const struct sch_generator *flood[] = {&sch_chain,
	                                       &sch_scatter_allgather};
	for (int32_t n = 4; n <= 8; n *= 2) {
		ir_comm c = tu_comm(IR_BCAST, 0, 1 << 20);
		/* a switch of n ranks: each phase at its largest message,
		 * so the segmented schedules look cheaper */
		ir_machine sw = tu_machine(IR_SWITCH, IR_PORTS_ALL, n, 0, 0, 0);
		set_costs(&sw, false);
		double tree = predict(&sch_binomial, &sw, &c);
		for (size_t k = 0; k < sizeof flood / sizeof *flood; k++)
			assert_true(predict(flood[k], &sw, &c) < tree);
		/* one node: each phase at every byte the node moves, with
		 * the same per-byte cost */
		ir_machine node = one_node(n);
		set_costs(&node, true);
		tree = predict(&sch_binomial, &node, &c);
		/* (n - 1) L bytes in lg n phases */
		double lg = log2((double)n);
		assert_true(fabs(tree - (lg * 0.8 + (double)(n - 1) *
		                                          (double)c.bytes *
		                                          0.0002)) < 1e-6 * tree);
		for (size_t k = 0; k < sizeof flood / sizeof *flood; k++) {
			double t = predict(flood[k], &node, &c);
			print_message("  %d ranks: binomial %.1f us, %s %.1f us\n",
			              (int)n, tree, flood[k]->name, t);
			assert_true(tree < t);
		}
	}
}

/* A reduce on one node: binomial's lg n phases move and combine
 * (n - 1) L bytes; chain and the ring reduce-scatter move and combine at
 * least as many in more phases, so with the node's combines summed
 * (cost.c) the tree comes first, as measured (docs/collectives.md). */
static void test_node_reduce_priced(void **state)
{
	(void)state;
	const struct sch_generator *flood[] = {&sch_chain,
	                                       &sch_reduce_scatter_gather};
	for (int32_t n = 4; n <= 8; n *= 2) {
		ir_comm c = tu_comm(IR_REDUCE, 0, 1 << 20);
		c.dtype = IR_DT_INT32;
		c.op = IR_OP_SUM;
		ir_machine node = one_node(n);
		set_costs(&node, true);
		node.cost.combine = 0.00015;
		double tree = predict(&sch_binomial, &node, &c);
		for (size_t k = 0; k < sizeof flood / sizeof *flood; k++) {
			double t = predict(flood[k], &node, &c);
			print_message("  %d ranks: binomial %.1f us, %s %.1f us\n",
			              (int)n, tree, flood[k]->name, t);
			assert_true(tree < t);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_one_node_is_the_switch_tree),
	        cmocka_unit_test(test_two_nodes_refused),
	        cmocka_unit_test(test_node_bytes_priced),
	        cmocka_unit_test(test_node_reduce_priced),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
