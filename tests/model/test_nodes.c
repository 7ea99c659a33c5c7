/*
 * test_nodes.c - machines with several ranks per node through the cost
 * models (model/cost.c), the contention splitter (schedules/split.c) and
 * explain (compiler/emit/explain.c).
 *
 * A transfer between two ranks of one node uses no link.  With a
 * shared-memory cost, every model prices a phase as the larger of its
 * network part (its formula over the transfers between nodes) and its
 * shared-memory part (per node, shm_alpha + the bytes of its transfers
 * times shm_beta, the unicast model starting each after its sender's
 * serialised start-ups), worked out here by hand; without one, such a
 * transfer is priced as a network transfer of 0 hops.  A phase whose
 * nodes send or receive more network transfers than their network ports
 * allow is split by sch_split_contention into phases the verifier
 * accepts, and explain shows the shared-memory transfers and the
 * busiest node's network sends and receives.  (The simulator against the
 * unicast model on nodes: test_sim.c.)
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

#include "explain.h"
#include "model.h"
#include "sched.h"
#include "support.h"

#define EXACT(a, b)                                                            \
	assert_true(fabs((double)(a) - (double)(b)) <                          \
	            1e-9 * (1 + fabs((double)(b))))

/* A 2x2 mesh of nodes with 4 ranks each, rank r on node r mod 4
 * (cyclic): node 0 holds ranks 0, 4, 8, 12 at (0,0), node 1 holds 1, 5,
 * 9, 13 at (1,0), node 2 holds 2, 6, 10, 14 at (0,1).  ports per rank,
 * node_ports per node. */
static ir_machine node_machine(int ports, int node_ports)
{
	ir_machine m = tu_with_nodes(tu_machine(IR_MESH, ports, 2, 2, 0, 0), 4,
	                             IR_PLACE_CYCLIC, node_ports);
	assert_int_equal(m.nranks, 16);
	return m;
}

/* The transfers of a hand-built plan: phase, source, destination,
 * bytes. */
struct row {
	int phase, src, dst;
	int64_t bytes;
};

/* An irregular plan on m: one message per row, each sent directly, so
 * the verifier can check its delivery.  Rows sorted by (src, dst). */
static void irregular_plan(ir_plan *p, const ir_machine *m, const struct row *e,
                           size_t k, uint32_t flags)
{
	ir_matrix *x = ir_matrix_new(m->nranks, (int64_t)k);
	assert_non_null(x);
	/* the matrix wants its rows in (src, dst) order */
	size_t *ord = malloc(k * sizeof *ord);
	assert_non_null(ord);
	for (size_t i = 0; i < k; i++)
		ord[i] = i;
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0; j--) {
			const struct row *a = &e[ord[j - 1]], *b = &e[ord[j]];
			if (a->src < b->src ||
			    (a->src == b->src && a->dst < b->dst))
				break;
			size_t t = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = t;
		}
	for (int32_t r = 0; r <= m->nranks; r++)
		x->row[r] = 0;
	for (size_t i = 0; i < k; i++) {
		x->row[e[ord[i]].src + 1]++;
		x->dst[i] = e[ord[i]].dst;
		x->bytes[i] = e[ord[i]].bytes;
	}
	for (int32_t r = 0; r < m->nranks; r++)
		x->row[r + 1] += x->row[r];
	free(ord);
	ir_comm c = tu_comm(IR_IRREGULAR, 0, 0);
	c.matrix = x;
	ir_plan_init(p, m, &c, "hand");
	ir_comm_fini(&c);
	p->flags = flags;
	for (size_t i = 0; i < k; i++) {
		while ((int)p->nphases <= e[i].phase)
			assert_int_equal(ir_plan_phase(p), 0);
		ir_block b = {e[i].src, e[i].dst};
		assert_int_equal(ir_plan_add(p, e[i].src, e[i].dst, &b, 1, 0),
		                 0);
		assert_int_equal(p->transfers[p->ntransfers - 1].bytes,
		                 e[i].bytes);
	}
}

/* Every model's per-phase prices of p, into ph[k][phase]. */
static void prices(const ir_plan *p, double ph[3][2])
{
	static const enum model_kind kinds[3] = {
	        MODEL_UNICAST, MODEL_CONTENTION, MODEL_PERMUTATION};
	for (int k = 0; k < 3; k++) {
		double us;
		char err[256] = "";
		if (model_predict(p, NULL, kinds[k], &us, ph[k], err,
		                  sizeof err))
			fail_msg("%s: %s", model_kind_name(kinds[k]), err);
		EXACT(us, ph[k][0] + ph[k][1]);
	}
}

/* The network costs of test_price and test_node_combines_summed:
 * alpha 1, hop 0.1, beta 0.01, gamma 0.5, beta_sat 0.005, tau 3, phi
 * 0.02, combine 0.002. */
static void network_costs(ir_machine *m)
{
	m->cost.alpha = 1;
	m->cost.hop = 0.1;
	m->cost.beta = 0.01;
	m->cost.gamma = 0.5;
	m->cost.beta_sat = 0.005;
	m->cost.tau = 3;
	m->cost.phi = 0.02;
	m->cost.combine = 0.002;
}

/* Phase 0: rank 0 sends 100 bytes to node 1 and to node 2, then 2000
 * bytes inside node 0; rank 8 sends 250 bytes inside node 0 (combined
 * by its receiver), rank 1 500 bytes inside node 1.  Phase 1: 1000
 * bytes inside node 0 alone.  alpha 1, hop 0.1, beta 0.01, gamma 0.5,
 * beta_sat 0.005, tau 3, phi 0.02, combine 0.002, and shm_alpha 2,
 * shm_beta 0.004 (or no shared-memory cost). */
static void test_price(void **state)
{
	(void)state;
	const struct row rows[] = {
	        {0, 0, 1, 100},  {0, 0, 2, 100}, {0, 0, 4, 2000},
	        {0, 8, 12, 250}, {0, 1, 5, 500}, {1, 4, 8, 1000},
	};
	ir_machine m = node_machine(4, IR_PORTS_ALL);
	network_costs(&m);
	ir_plan p;
	irregular_plan(&p, &m, rows, sizeof rows / sizeof rows[0], 0);
	p.transfers[3].flags |= IR_XF_REDUCE; /* 8 -> 12 is combined */
	double ph[3][2];

	/* without a shared-memory cost: transfers inside a node are
	 * network transfers of 0 hops */
	prices(&p, ph);
	/* unicast: 0 -> 4 is rank 0's third start-up, 3 + 20 + 0.5 */
	EXACT(ph[0][0], 3 + 2000 * 0.01 + 0.5);
	EXACT(ph[0][1], 1 + 1000 * 0.01 + 0.5);
	/* contention: L = 2000, f = 1; R = 250 combined */
	EXACT(ph[1][0], 1 + 2000 * 0.01 + 250 * 0.002);
	EXACT(ph[1][1], 1 + 1000 * 0.01);
	/* permutation: M = 2000 */
	EXACT(ph[2][0], 3 + 2000 * 0.02 + 250 * 0.002);
	EXACT(ph[2][1], 3 + 1000 * 0.02);

	p.machine.cost.shm_alpha = 2;
	p.machine.cost.shm_beta = 0.004;
	prices(&p, ph);
	/* unicast: the network part ends at 0 -> 2's 2 + 0.1 + 1 + 0.5 =
	 * 3.6.  In node 0, 0 -> 4 starts at 1 + 1 + 2 = 4 with 8 us of
	 * work and 8 -> 12 at 2 with 1 us: the memory's last byte leaves
	 * at max(4 + 8, 2 + 9) = 12, then 250 bytes are combined. */
	EXACT(ph[0][0], 12 + 250 * 0.002);
	EXACT(ph[0][1], 2 + 1000 * 0.004);
	/* contention: network 1 + 100 * 0.01 = 2; node 0: 2 + 2250 *
	 * 0.004 = 11, and the combine */
	EXACT(ph[1][0], 2 + 2250 * 0.004 + 250 * 0.002);
	EXACT(ph[1][1], 2 + 1000 * 0.004);
	/* permutation: network 3 + 100 * 0.02 = 5 against node 0's 11.5 */
	EXACT(ph[2][0], 2 + 2250 * 0.004 + 250 * 0.002);
	EXACT(ph[2][1], 2 + 1000 * 0.004);

	/* only shm_beta given: shm_alpha reads as 0 */
	p.machine.cost.shm_alpha = NAN;
	prices(&p, ph);
	EXACT(ph[1][1], 1000 * 0.004);
	ir_plan_fini(&p);
}

/* Phase 0: two partials combined inside node 0 (0 -> 4, 1000 bytes;
 * 8 -> 12, 500) and one inside node 1 (1 -> 5, 300); phase 1: 4 -> 8,
 * 1000 bytes, not combined.  Every model's shared-memory part sums a
 * node's combines as it sums its bytes: node 0 takes shm_alpha 2 +
 * 1500 * 0.004 + 1500 * 0.002 = 11 in phase 0, where pricing its largest
 * combine alone gave 10 (issue 20: one node holding every rank). */
static void test_node_combines_summed(void **state)
{
	(void)state;
	const struct row rows[] = {
	        {0, 0, 4, 1000}, {0, 8, 12, 500}, {0, 1, 5, 300},
	        {1, 4, 8, 1000},
	};
	ir_machine m = node_machine(4, IR_PORTS_ALL);
	network_costs(&m);
	m.cost.shm_alpha = 2;
	m.cost.shm_beta = 0.004;
	ir_plan p;
	irregular_plan(&p, &m, rows, sizeof rows / sizeof rows[0], 0);
	for (int t = 0; t < 3; t++)
		p.transfers[t].flags |= IR_XF_REDUCE;
	double ph[3][2];
	prices(&p, ph);
	for (int k = 0; k < 3; k++) {
		EXACT(ph[k][0], 2 + 1500 * 0.004 + 1500 * 0.002);
		EXACT(ph[k][1], 2 + 1000 * 0.004);
	}
	ir_plan_fini(&p);
}

/* One phase in which node 0 sends two transfers over the network (to
 * nodes 1 and 2, on different links) and receives two (from nodes 1 and
 * 2), besides one transfer inside it: with one network port per node
 * the verifier refuses it; split, it is two phases the verifier
 * accepts, the transfer inside node 0 staying in the first. */
static const struct row over_ports[] = {
        {0, 0, 1, 64}, {0, 4, 2, 64}, {0, 8, 12, 64},
        {0, 1, 0, 64}, {0, 2, 4, 64},
};

static void split_plan(ir_plan *p)
{
	ir_machine m = node_machine(IR_PORTS_ALL, 1);
	m.cost.alpha = 1;
	m.cost.hop = 0.1;
	m.cost.beta = 0.01;
	m.cost.gamma = 0.5;
	m.cost.shm_alpha = 0.2;
	m.cost.shm_beta = 0.001;
	irregular_plan(p, &m, over_ports,
	               sizeof over_ports / sizeof over_ports[0],
	               IR_PLAN_NODE_CONTENTION);
}

static void test_split_node_ports(void **state)
{
	(void)state;
	ir_plan p;
	ir_report r;
	split_plan(&p);
	/* allowed, the node contention is measured */
	assert_int_equal(ir_verify(&p, &r), 0);
	assert_int_equal(r.max_net_sends, 2);
	assert_int_equal(r.max_net_recvs, 2);
	ir_report_fini(&r);
	p.flags = 0;
	assert_int_equal(ir_verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "network ports"));
	ir_report_fini(&r);

	p.flags = IR_PLAN_NODE_CONTENTION;
	assert_int_equal(sch_split_contention(&p), 0);
	assert_int_equal(p.flags, 0);
	assert_int_equal(p.nphases, 2);
	assert_int_equal(p.phases[0].ntransfers, 3);
	assert_int_equal(p.phases[1].ntransfers, 2);
	bool inside_first = false;
	for (uint32_t t = 0; t < p.phases[0].ntransfers; t++)
		inside_first |= p.transfers[t].src == 8;
	assert_true(inside_first);
	assert_int_equal(ir_verify(&p, &r), 0);
	assert_int_equal(r.max_net_sends, 1);
	assert_int_equal(r.max_net_recvs, 1);
	assert_int_equal(r.shm_transfers, 1);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* The text explain_plan writes for c. */
static char *explain_text(const struct compiled *c)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(explain_plan(c, f), 0);
	long n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	char *s = calloc((size_t)n + 1, 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return s;
}

/* explain shows the nodes, the transfers through shared memory and the
 * busiest node's network sends and receives, per phase and in all. */
static void test_explain_nodes(void **state)
{
	(void)state;
	struct compiled c;
	memset(&c, 0, sizeof c);
	split_plan(&c.plan);
	assert_int_equal(ir_verify(&c.plan, &c.report), 0);
	char *s = explain_text(&c);
	print_message("%s", s);
	assert_non_null(strstr(s, "16 ranks, 4 per node (cyclic placement), "
	                          "node network ports 1"));
	assert_non_null(strstr(s, "hops  shm-xfers  net-sends  net-recvs\n"));
	/* phase 0: five transfers, one inside node 0, two out of and two
	 * into node 0 */
	assert_non_null(strstr(s, "          1          2          2\n"));
	assert_non_null(strstr(s, "shared-memory transfers 1, max network "
	                          "sends per node 2, max network receives "
	                          "per node 2"));
	free(s);
	ir_report_fini(&c.report);

	/* split, every phase is within the ports */
	assert_int_equal(sch_split_contention(&c.plan), 0);
	assert_int_equal(ir_verify(&c.plan, &c.report), 0);
	s = explain_text(&c);
	assert_null(strstr(s, "          2\n"));
	assert_non_null(strstr(s, "max network sends per node 1, max "
	                          "network receives per node 1"));
	free(s);
	ir_report_fini(&c.report);
	ir_plan_fini(&c.plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_price),
	        cmocka_unit_test(test_node_combines_summed),
	        cmocka_unit_test(test_split_node_ports),
	        cmocka_unit_test(test_explain_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
