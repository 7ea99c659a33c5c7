/*
 * test_sim.c - the wormhole-network simulator (model/sim.c).
 *
 * Hand-built plans check the event model to the last digit: one message
 * costs 001's alpha + h*hop + L*beta + gamma (001 §4.4.2), a shared link
 * halves two messages' rates, rates follow messages that come and go,
 * one-port nodes serialise what all-port nodes overlap, receive
 * overheads queue, and store-and-forward waits for the blocks.  With
 * half_duplex (004 §2.2 observation 1, the iPSC/860) a rank's send and
 * receive of different partners stream one after the other, and a
 * pairwise exchange still overlaps.
 *
 * Generated contention-free plans check it against the closed-form
 * unicast model: with phase barriers the two must agree exactly (each
 * phase is then 001's m*alpha + h*beta + L*beta + gamma), and without
 * them (the runtime's way) they agree within 1% while a rank's sends of
 * successive phases do not overlap (L*beta below alpha), except that
 * deep or pipelined plans then finish sooner than the phase sum; above
 * that the simulator shows the depth contention the step-wise model
 * cannot see.
 *
 * On machines with several ranks per node the same holds, with and
 * without a shared-memory cost: transfers inside a node stream through
 * the node's memory (shared like a link), and a node's network ports
 * make the messages beyond them wait, as hand-computed times show.
 *
 * Then the findings: EDN against recursive doubling on 16x16 and 32x32
 * meshes with the T3D parameters of 001 §3.3.5 (messages 32..2048 bytes,
 * eight sources), and the one-phase direct transpose against the same
 * transpose split into contention-free phases (001 §3.6, Figure 3.27).
 * The numbers are printed; docs/simulator.md records them.
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

#include "model.h"
#include "sched.h"
#include "support.h"

/* ---- helpers -------------------------------------------------------- */

/* Round numbers, so hand-computed times are exact: alpha 1 us, hop
 * 0.1 us, beta 0.01 us/byte (1000 bytes: 10 us), gamma 0.5 us. */
static void round_costs(ir_machine *m)
{
	m->cost.alpha = 1.0;
	m->cost.hop = 0.1;
	m->cost.beta = 0.01;
	m->cost.gamma = 0.5;
}

static void simulate_opts(const ir_plan *p, const struct model_sim_opts *o,
                          struct model_sim *s)
{
	char err[256] = "";
	int rc = model_simulate(p, o, s, err, sizeof err);
	if (rc)
		fail_msg("model_simulate: %s", err);
}

static void simulate(const ir_plan *p, bool barriers, struct model_sim *s)
{
	struct model_sim_opts o = {.barriers = barriers};
	simulate_opts(p, &o, s);
}

/* The same with half_duplex as given and no barriers. */
static void simulate_hd(const ir_plan *p, bool half_duplex, struct model_sim *s)
{
	struct model_sim_opts o = {.half_duplex = half_duplex};
	simulate_opts(p, &o, s);
}

/* The same with links first come first served (no virtual channels). */
static void simulate_fifo(const ir_plan *p, bool barriers, struct model_sim *s)
{
	struct model_sim_opts o = {.barriers = barriers,
	                           .links = MODEL_LINKS_FIFO};
	simulate_opts(p, &o, s);
}

/* A hand-built plan on a line (IR_MESH) or ring (IR_TORUS) of n ranks
 * with ports ports (tu_machine's) and round costs, link contention
 * allowed: one transfer per (phase, src, dst, bytes) row. */
static void line_plan(ir_plan *p, enum ir_topo topo, int ports, int n,
                      const int (*e)[4], size_t k)
{
	ir_machine m = tu_machine(topo, ports, n, 0, 0, 0);
	round_costs(&m);
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 1000);
	ir_plan_init(p, &m, &c, "hand");
	p->flags = IR_PLAN_LINK_CONTENTION;
	for (size_t i = 0; i < k; i++) {
		while ((int)p->nphases <= e[i][0])
			assert_int_equal(ir_plan_phase(p), 0);
		tu_add_own(p, e[i][1], e[i][2]);
		p->transfers[p->ntransfers - 1].bytes = e[i][3];
	}
}

static double predict1(const ir_plan *p, const ir_report *r, enum model_kind k)
{
	double us = -1;
	char err[256] = "";
	if (model_predict(p, r, k, &us, NULL, err, sizeof err))
		fail_msg("model_predict: %s", err);
	return us;
}

#define EXACT(a, b)                                                            \
	assert_true(fabs((double)(a) - (double)(b)) <                          \
	            1e-9 * (1 + fabs((double)(b))))

/* ---- hand-built plans ------------------------------------------------ */

/* One message over h hops: alpha + h*hop + L*beta + gamma. */
static void test_one_message(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 0, 4, 4, 0, 0);
	round_costs(&m);
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 1000);
	ir_plan p;
	ir_plan_init(&p, &m, &c, "hand");
	assert_int_equal(ir_plan_phase(&p), 0);
	tu_add_own(&p, 0, 15); /* (0,0) -> (3,3): 6 hops */
	struct model_sim s;
	simulate(&p, false, &s);
	EXACT(s.delivered[15], 1.0 + 0.6 + 10.0 + 0.5);
	EXACT(s.max_us, 12.1);
	EXACT(s.avg_us, 12.1);
	EXACT(s.total_us, 12.1);
	assert_true(isnan(s.delivered[0]));
	assert_int_equal(s.receivers, 1);
	assert_int_equal(s.messages, 1);
	assert_int_equal(s.contended, 0);
	assert_int_equal(s.max_share, 1);
	model_sim_fini(&s);
	ir_plan_fini(&p);
}

/* 0 -> 2 and 1 -> 3 on a 1D mesh share link 1 -> 2 all the time: both
 * stream at half rate, L*beta twice over. */
static void test_shared_link(void **state)
{
	(void)state;
	const int rows[][4] = {{0, 0, 2, 1000}, {0, 1, 3, 1000}};
	ir_plan p;
	line_plan(&p, IR_MESH, 0, 4, rows, 2);
	struct model_sim s;
	simulate(&p, false, &s);
	double alone = 1.0 + 0.2 + 10.0 + 0.5;
	EXACT(s.delivered[2], alone + 10.0);
	EXACT(s.delivered[3], alone + 10.0);
	EXACT(s.stall_us, 20.0);
	assert_int_equal(s.max_share, 2);
	assert_int_equal(s.contended, 2);
	print_message("  shared link: %.2f us each, alone %.2f us\n",
	              s.delivered[2], alone);
	model_sim_fini(&s);
	ir_plan_fini(&p);
}

/* Without virtual channels (MODEL_LINKS_FIFO) the same two messages do
 * not share link 1 -> 2.  Both start-ups end at 1; 0 -> 2 takes link
 * 0 -> 1 and 1 -> 3 takes 1 -> 2.  At 1.1 the header of 0 -> 2 finds
 * 1 -> 2 taken and waits, while 1 -> 3 takes 2 -> 3, arrives at 1.2 and
 * streams at the full rate: its tail is in at 11.2, delivered at 11.7,
 * as if alone.  Then 0 -> 2 gets 1 -> 2 (after 10.1 us), crosses it by
 * 11.3 and streams: 21.3, delivered at 21.8. */
static void test_fifo_link(void **state)
{
	(void)state;
	const int rows[][4] = {{0, 0, 2, 1000}, {0, 1, 3, 1000}};
	ir_plan p;
	line_plan(&p, IR_MESH, 0, 4, rows, 2);
	struct model_sim s;
	simulate_fifo(&p, false, &s);
	EXACT(s.delivered[3], 11.7);
	EXACT(s.delivered[2], 21.8);
	EXACT(s.stall_us, 10.1);
	assert_int_equal(s.max_share, 1);
	assert_int_equal(s.contended, 1);
	print_message("  fifo link: %.2f and %.2f us (shared: 21.70 each)\n",
	              s.delivered[3], s.delivered[2]);
	model_sim_fini(&s);
	ir_plan_fini(&p);
}

/* Chained blocking: 2 -> 4, 1 -> 3 and 0 -> 2 on a 1D mesh of five.
 * Each header takes its first link at 1; at 1.1 the header of 0 -> 2
 * waits for 1 -> 2, held by 1 -> 3, whose header waits for 2 -> 3, held
 * by 2 -> 4.  2 -> 4 is delivered at 11.7; 1 -> 3 then crosses 2 -> 3
 * and streams (11.3 + 10 + 0.5 = 21.8); only then is 1 -> 2 free for
 * 0 -> 2, although no byte crossed it in between: 31.9. */
static void test_fifo_chain(void **state)
{
	(void)state;
	const int rows[][4] = {{0, 0, 2, 1000}, {0, 1, 3, 1000}, {0, 2, 4, 1000}};
	ir_plan p;
	line_plan(&p, IR_MESH, 0, 5, rows, 3);
	struct model_sim s;
	simulate_fifo(&p, false, &s);
	EXACT(s.delivered[4], 11.7);
	EXACT(s.delivered[3], 21.8);
	EXACT(s.delivered[2], 31.9);
	EXACT(s.stall_us, 10.1 + 20.2);
	assert_int_equal(s.contended, 2);
	model_sim_fini(&s);
	ir_plan_fini(&p);
}

/* Without virtual channels dimension-order routing on a torus can
 * deadlock: on a ring of four, every rank sends two hops the same way
 * round; each header takes its first link and waits for the next, held
 * by its neighbour.  The run says so.  With virtual channels it ends. */
static void test_fifo_deadlock(void **state)
{
	(void)state;
	const int rows[][4] = {{0, 0, 2, 1000}, {0, 1, 3, 1000}, {0, 2, 0, 1000}, {0, 3, 1, 1000}};
	ir_plan p;
	line_plan(&p, IR_TORUS, 0, 4, rows, 4);
	struct model_sim s;
	char err[256];
	struct model_sim_opts o = {.links = MODEL_LINKS_FIFO};
	assert_int_equal(model_simulate(&p, &o, &s, err, sizeof err),
	                 CCP_EINVAL);
	assert_non_null(strstr(err, "deadlocked"));
	assert_null(s.delivered);
	simulate(&p, false, &s);
	assert_int_equal(s.receivers, 4);
	model_sim_fini(&s);
	ir_plan_fini(&p);
}

/* Rates follow the messages on a link: 0 -> 2 streams alone for 1 us
 * (100 bytes), then shares link 1 -> 2 with 1 -> 3 (rank 1's second
 * send; its first goes the other way, 1 -> 0) until it ends 18 us later;
 * 1 -> 3 then has 100 bytes left at full rate. */
static void test_rates_follow(void **state)
{
	(void)state;
	const int rows[][4] = {{0, 0, 2, 1000}, {0, 1, 0, 1000}, {0, 1, 3, 1000}};
	ir_plan p;
	line_plan(&p, IR_MESH, 0, 4, rows, 3);
	struct model_sim s;
	simulate(&p, false, &s);
	EXACT(s.delivered[0], 1.0 + 0.1 + 10.0 + 0.5);
	EXACT(s.delivered[2], 1.2 + 1.0 + 18.0 + 0.5); /* 20.7 */
	EXACT(s.delivered[3], 2.2 + 18.0 + 1.0 + 0.5); /* 21.7 */
	model_sim_fini(&s);
	ir_plan_fini(&p);
}

/* Rank 4, the centre of a 3x3 mesh, sends to three neighbours in one
 * phase.  All-port: start-ups serialised, streams overlap, the last
 * arrives at 3*alpha + hop + L*beta + gamma (001 §4.4.2).  One-port:
 * each message waits for the injection port, the last arrives at
 * alpha + 3*(hop + L*beta) + gamma. */
static void test_ports(void **state)
{
	(void)state;
	double want[2] = {3.0 + 0.1 + 10.0 + 0.5, 1.0 + 3 * 10.1 + 0.5};
	for (int one = 0; one < 2; one++) {
		ir_machine m = tu_machine(IR_MESH, one, 3, 3, 0, 0);
		round_costs(&m);
		ir_comm c = tu_comm(IR_ALLTOALL, 0, 1000);
		ir_plan p;
		ir_plan_init(&p, &m, &c, "hand");
		p.flags = IR_PLAN_NODE_CONTENTION;
		assert_int_equal(ir_plan_phase(&p), 0);
		tu_add_own(&p, 4, 1);
		tu_add_own(&p, 4, 3);
		tu_add_own(&p, 4, 5);
		struct model_sim s;
		simulate(&p, false, &s);
		EXACT(s.max_us, want[one]);
		assert_int_equal(s.contended, 0);
		if (one)
			EXACT(s.port_wait_us, (10.1 - 1.0) + (20.2 - 2.0));
		else
			EXACT(s.port_wait_us, 0);
		print_message("  %s: last arrival %.2f us\n",
		              one ? "one-port" : "all-port", s.max_us);
		model_sim_fini(&s);
		ir_plan_fini(&p);
	}
}

/* Two senders into rank 1 of a 1D mesh.  One-port: the second header
 * waits for the ejection port.  All-port: both stream, and the receive
 * overheads queue at rank 1. */
static void test_receiver(void **state)
{
	(void)state;
	double want[2] = {1.1 + 10.0 + 0.5 + 0.5, 1.1 + 20.0 + 0.5};
	for (int one = 0; one < 2; one++) {
		ir_machine m = tu_machine(IR_MESH, one, 3, 0, 0, 0);
		round_costs(&m);
		ir_comm c = tu_comm(IR_ALLTOALL, 0, 1000);
		ir_plan p;
		ir_plan_init(&p, &m, &c, "hand");
		p.flags = IR_PLAN_NODE_CONTENTION;
		assert_int_equal(ir_plan_phase(&p), 0);
		tu_add_own(&p, 0, 1);
		tu_add_own(&p, 2, 1);
		struct model_sim s;
		simulate(&p, false, &s);
		EXACT(s.delivered[1], want[one]);
		assert_int_equal(s.receivers, 1);
		model_sim_fini(&s);
		ir_plan_fini(&p);
	}
}

/* Store and forward: 0 -> 1 in phase 0, 1 -> 2 in phase 1; the second
 * send starts when rank 1 has the block, barriers or not. */
static void test_forward(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 0, 3, 0, 0, 0);
	round_costs(&m);
	ir_comm c = tu_comm(IR_BCAST, 0, 1000);
	ir_block b = {0, 0};
	ir_plan p;
	ir_plan_init(&p, &m, &c, "hand");
	assert_int_equal(ir_plan_phase(&p), 0);
	assert_int_equal(ir_plan_add(&p, 0, 1, &b, 1, 0), 0);
	assert_int_equal(ir_plan_phase(&p), 0);
	assert_int_equal(ir_plan_add(&p, 1, 2, &b, 1, 0), 0);
	for (int bar = 0; bar < 2; bar++) {
		struct model_sim s;
		simulate(&p, bar, &s);
		EXACT(s.delivered[1], 11.6);
		EXACT(s.delivered[2], 23.2);
		EXACT(s.avg_us, (11.6 + 23.2) / 2);
		model_sim_fini(&s);
	}
	ir_plan_fini(&p);
}

/* half_duplex, worked by hand (alpha 1, hop 0.1, beta 0.01, gamma 0.5;
 * every route one hop; both start-ups end at 1, both headers are in at
 * 1.1, rank 0's first since its start-up was made first):
 *
 *   rank 1 receives 500 bytes from 0 and sends 1000 to 2 in one phase:
 *   0 -> 1 streams 1.1 .. 6.1 (5 us), delivered 6.6; 1 -> 2 holds its
 *   ports at 1.1 but rank 1 is receiving from another partner, so it
 *   streams 6.1 .. 16.1, delivered 16.6 = 1 + 0.1 + 5 + 10 + 0.5: the
 *   sum of the two.  Without half_duplex it streams at once: 11.6.
 *
 *   the pairwise exchange 0 <-> 1 (1000 bytes 0 -> 1, 500 back) in one
 *   phase: both stream from 1.1, delivered 11.6 and 6.6: the larger of
 *   the two, as without half_duplex.
 *
 *   the same two transfers in two phases are no exchange: 0 -> 1 (its
 *   header first) streams 1.1 .. 11.1, 1 -> 0 waits for it and streams
 *   11.1 .. 16.1: delivered 11.6 and 16.6, the sum.
 *
 * And on an all-port 3x3 mesh, the centre 4 sends 1000 bytes to 1 and 3
 * and receives 1000 from 5: its sends may overlap each other (start-ups
 * end at 1 and 2: streams 1.1 .. 11.1 and 2.1 .. 12.1), the receive
 * (header in at 1.1) waits for both, which a waiting receive does not
 * hold back: 12.1 .. 22.1, delivered 22.6. */
static void test_half_duplex(void **state)
{
	(void)state;
	struct model_sim s;
	ir_plan p;
	const int relay[][4] = {{0, 0, 1, 500}, {0, 1, 2, 1000}};
	line_plan(&p, IR_MESH, 1, 3, relay, 2);
	simulate_hd(&p, true, &s);
	EXACT(s.delivered[1], 1.1 + 5.0 + 0.5);
	EXACT(s.delivered[2], 1.1 + 5.0 + 10.0 + 0.5);
	EXACT(s.max_us, 16.6);
	EXACT(s.duplex_wait_us, 5.0);
	EXACT(s.port_wait_us, 0);
	print_message("  send to 2, receive from 0: %.2f us (sum)\n", s.max_us);
	model_sim_fini(&s);
	simulate_hd(&p, false, &s);
	EXACT(s.delivered[2], 1.1 + 10.0 + 0.5);
	EXACT(s.duplex_wait_us, 0);
	model_sim_fini(&s);
	ir_plan_fini(&p);

	const int pair[][4] = {{0, 0, 1, 1000}, {0, 1, 0, 500}};
	line_plan(&p, IR_MESH, 1, 3, pair, 2);
	for (int hd = 0; hd < 2; hd++) {
		simulate_hd(&p, hd, &s);
		EXACT(s.delivered[1], 1.1 + 10.0 + 0.5);
		EXACT(s.delivered[0], 1.1 + 5.0 + 0.5);
		EXACT(s.max_us, 11.6);
		EXACT(s.duplex_wait_us, 0);
		if (hd)
			print_message("  pairwise exchange: %.2f us (max)\n",
			              s.max_us);
		model_sim_fini(&s);
	}
	ir_plan_fini(&p);

	const int apart[][4] = {{0, 0, 1, 1000}, {1, 1, 0, 500}};
	line_plan(&p, IR_MESH, 1, 3, apart, 2);
	simulate_hd(&p, true, &s);
	EXACT(s.delivered[1], 1.1 + 10.0 + 0.5);
	EXACT(s.delivered[0], 1.1 + 10.0 + 5.0 + 0.5);
	EXACT(s.duplex_wait_us, 10.0);
	model_sim_fini(&s);
	simulate_hd(&p, false, &s);
	EXACT(s.max_us, 11.6);
	model_sim_fini(&s);
	ir_plan_fini(&p);

	ir_machine m = tu_machine(IR_MESH, 0, 3, 3, 0, 0);
	round_costs(&m);
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 1000);
	ir_plan_init(&p, &m, &c, "hand");
	assert_int_equal(ir_plan_phase(&p), 0);
	tu_add_own(&p, 4, 1);
	tu_add_own(&p, 4, 3);
	tu_add_own(&p, 5, 4);
	simulate_hd(&p, true, &s);
	EXACT(s.delivered[1], 11.6);
	EXACT(s.delivered[3], 12.6);
	EXACT(s.delivered[4], 22.6);
	EXACT(s.duplex_wait_us, 12.1 - 1.1);
	model_sim_fini(&s);
	simulate_hd(&p, false, &s);
	EXACT(s.delivered[4], 11.6);
	model_sim_fini(&s);
	ir_plan_fini(&p);
}

/* Unset parameters and broken plans are refused with a reason. */
static void test_errors(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 0, 3, 0, 0, 0);
	round_costs(&m);
	m.cost.hop = NAN;
	ir_comm c = tu_comm(IR_BCAST, 0, 1000);
	ir_block b = {0, 0};
	ir_plan p;
	ir_plan_init(&p, &m, &c, "hand");
	assert_int_equal(ir_plan_phase(&p), 0);
	assert_int_equal(ir_plan_add(&p, 1, 2, &b, 1, 0), 0);
	struct model_sim s;
	char err[256];
	assert_int_equal(model_simulate(&p, NULL, &s, err, sizeof err),
	                 CCP_EINVAL);
	assert_non_null(strstr(err, "hop"));
	assert_null(s.delivered);
	p.machine.cost.hop = 0.1;
	/* rank 1 sends a block it never receives */
	assert_int_equal(model_simulate(&p, NULL, &s, err, sizeof err),
	                 CCP_EINVAL);
	assert_non_null(strstr(err, "never received"));
	p.machine.cost.gamma = -1;
	assert_int_equal(model_simulate(&p, NULL, &s, err, sizeof err),
	                 CCP_EINVAL);
	assert_non_null(strstr(err, "gamma"));
	model_sim_fini(&s); /* harmless on a zeroed result */
	ir_plan_fini(&p);
}

/* ---- generated plans against the unicast model ----------------------- */

struct gen_case {
	const char *alg;
	enum ir_topo topo;
	int ports, x, y, segments;
	int32_t root;
	bool tight; /* barrier-free within 1% of the model while L*beta <
	               alpha (false: deep or pipelined plans, which then
	               finish sooner than the phase sum) */
};

/* Generate alg's broadcast of L bytes with the T3D parameters (001
 * §3.3.5), verified contention-free. */
static void generate(const struct gen_case *k, int64_t L, ir_plan *p)
{
	ir_machine m = tu_machine(k->topo, k->ports, k->x, k->y, 0, 0);
	assert_int_equal(model_preset_apply(&m.cost, "t3d"), 0);
	ir_comm c = tu_comm(IR_BCAST, k->root, L);
	c.segments = k->segments;
	const struct sch_generator *g = sch_find(k->alg);
	assert_non_null(g);
	char why[256] = "";
	if (sch_applies(g, &m, &c, why, sizeof why))
		fail_msg("%s: %s", k->alg, why);
	struct sch_options o = {.hpam_price = model_hpam_price};
	assert_int_equal(g->generate(&m, &c, &o, p), 0);
	ir_report r;
	assert_int_equal(ir_verify(p, &r), 0);
	assert_true(r.max_link_load <= 1);
	ir_report_fini(&r);
}

static const struct gen_case gen_cases[] = {
        {"binomial", IR_MESH, 1, 16, 16, 1, 0, true},
        {"rd", IR_MESH, 0, 16, 16, 1, 17, true},
        {"edn", IR_MESH, 0, 16, 16, 1, 17, true},
        {"edn", IR_MESH, 0, 32, 32, 1, 100, false},
        {"edn_torus", IR_TORUS, 0, 16, 16, 1, 3, true},
        {"reptree", IR_HYPERCUBE, 0, 8, 0, 4, 0, false},
};

/* With barriers every phase is the closed form exactly; without, within
 * 1% while L*beta < alpha (a rank's sends of successive phases do not
 * overlap); above that, depth contention shows. */
static void test_against_unicast(void **state)
{
	(void)state;
	const int64_t sizes[] = {32, 128, 512, 2048};
	print_message("  %-10s %-7s %6s %9s %9s %9s %8s\n", "algorithm",
	              "machine", "bytes", "model", "barriers", "free",
	              "free/mod");
	for (size_t i = 0; i < sizeof gen_cases / sizeof gen_cases[0]; i++) {
		const struct gen_case *k = &gen_cases[i];
		for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
			ir_plan p;
			generate(k, sizes[j], &p);
			double us;
			char err[256];
			assert_int_equal(model_predict(&p, NULL, MODEL_UNICAST,
			                               &us, NULL, err,
			                               sizeof err),
			                 0);
			struct model_sim sb, sf, so;
			simulate(&p, true, &sb);
			simulate(&p, false, &sf);
			/* contention-free phases: no header waits, so
			 * links without virtual channels change nothing */
			simulate_fifo(&p, true, &so);
			EXACT(so.max_us, us);
			assert_int_equal(so.contended, 0);
			model_sim_fini(&so);
			double d = (sf.max_us - us) / us;
			char mw[16];
			if (k->topo == IR_HYPERCUBE)
				snprintf(mw, sizeof mw, "%d-cube", k->x);
			else
				snprintf(mw, sizeof mw, "%dx%d", k->x, k->y);
			print_message("  %-10s %-7s %6lld %9.3f %9.3f "
			              "%9.3f %+7.2f%%\n",
			              k->alg, mw, (long long)sizes[j], us,
			              sb.max_us, sf.max_us, 100 * d);
			EXACT(sb.max_us, us);
			double lb = (double)sizes[j] / k->segments *
			            p.machine.cost.beta;
			if (lb < p.machine.cost.alpha)
				assert_true(d < 0.01 &&
				            (!k->tight || fabs(d) < 0.01));
			if (!strcmp(k->alg, "binomial"))
				assert_true(fabs(d) < 0.01);
			if (!strcmp(k->alg, "rd") && sizes[j] == 2048)
				assert_true(d > 0.5); /* depth contention */
			model_sim_fini(&sb);
			model_sim_fini(&sf);
			ir_plan_fini(&p);
		}
	}
}

/* A receiver that combines a partial spends L*combine more on it, in
 * the simulator as in the unicast model: with phase barriers the two
 * agree on a reduction's plan, with and without the combine cost. */
static void test_combine(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_SWITCH, 0, 8, 0, 0, 0);
	m.cost.alpha = 3;
	m.cost.beta = 0.002;
	m.cost.hop = 0;
	m.cost.gamma = 1;
	ir_comm c = tu_comm(IR_ALLREDUCE, 0, 8000);
	c.dtype = IR_DT_DOUBLE;
	c.op = IR_OP_SUM;
	const char *algs[] = {"recursive_doubling", "ring", "rabenseifner"};
	for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++) {
		const struct sch_generator *g = sch_find(algs[i]);
		struct sch_options o = {0};
		ir_plan p;
		assert_non_null(g);
		assert_int_equal(g->generate(&m, &c, &o, &p), 0);
		double before[2], after[2];
		char err[256];
		struct model_sim s;
		for (int k = 0; k < 2; k++) {
			p.machine.cost.combine = k ? 0.001 : NAN;
			double *at = k ? after : before;
			assert_int_equal(model_predict(&p, NULL, MODEL_UNICAST,
			                               &at[0], NULL, err,
			                               sizeof err),
			                 0);
			simulate(&p, true, &s);
			at[1] = s.max_us;
			model_sim_fini(&s);
			EXACT(at[1], at[0]);
		}
		/* recursive doubling combines the whole vector 3 times */
		assert_true(after[0] > before[0]);
		if (i == 0)
			EXACT(after[0] - before[0], 3 * 8000 * 0.001);
		ir_plan_fini(&p);
	}
}

/* ---- machines with several ranks per node ----------------------------- */

/* A 2x2 mesh of nodes with 4 ranks each (16 ranks) under placement, each
 * node with node_ports network ports, round costs, and with shm the
 * shared-memory cost shm_alpha 0.2 us, shm_beta 0.001 us/byte. */
static ir_machine node_machine(enum ir_placement placement, int node_ports,
                               bool shm)
{
	ir_machine m = tu_with_nodes(tu_machine(IR_MESH, 0, 2, 2, 0, 0), 4,
	                             placement, node_ports);
	assert_int_equal(m.nranks, 16);
	round_costs(&m);
	if (shm) {
		m.cost.shm_alpha = 0.2;
		m.cost.shm_beta = 0.001;
	}
	return m;
}

/* A plan of rows (phase, src, dst) carrying broadcast block (0, 0) of L
 * bytes on m. */
static void node_plan(ir_plan *p, const ir_machine *m, int64_t L,
                      const int (*e)[3], size_t k)
{
	ir_comm c = tu_comm(IR_BCAST, 0, L);
	ir_plan_init(p, m, &c, "hand");
	for (size_t i = 0; i < k; i++) {
		while ((int)p->nphases <= e[i][0])
			assert_int_equal(ir_plan_phase(p), 0);
		ir_block b = {0, 0};
		assert_int_equal(ir_plan_add(p, e[i][1], e[i][2], &b, 1, 0), 0);
	}
}

/* One message inside a node: with a shared-memory cost it costs
 * shm_alpha + L*shm_beta (no hops, no receive overhead); two at once in
 * one node share its memory; without the cost it is a message of 0
 * hops, alpha + L*beta + gamma. */
static void test_node_memory(void **state)
{
	(void)state;
	/* cyclic: rank r on node r mod 4; 0, 4, 8, 12 share node 0 */
	const int one[][3] = {{0, 0, 4}};
	const int two[][3] = {{0, 0, 4}, {0, 8, 12}};
	const int other[][3] = {{0, 0, 4}, {0, 1, 5}};
	struct {
		const int (*rows)[3];
		size_t n;
		bool shm;
		double want;
	} k[] = {
	        {one, 1, true, 0.2 + 1.0},
	        {two, 2, true, 0.2 + 2.0},   /* node 0's memory shared */
	        {other, 2, true, 0.2 + 1.0}, /* nodes 0 and 1: apart */
	        {one, 1, false, 1.0 + 10.0 + 0.5},
	        {two, 2, false, 1.0 + 10.0 + 0.5},
	};
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
		ir_machine m = node_machine(IR_PLACE_CYCLIC, 0, k[i].shm);
		ir_plan p;
		node_plan(&p, &m, 1000, k[i].rows, k[i].n);
		/* each sender sends a block of its own */
		for (uint32_t b = 0; b < p.nblocks; b++)
			p.blocks[b].origin = p.transfers[b].src;
		struct model_sim s;
		simulate(&p, false, &s);
		EXACT(s.max_us, k[i].want);
		assert_int_equal(s.port_wait_us, 0);
		if (i == 1)
			assert_int_equal(s.max_share, 2);
		model_sim_fini(&s);
		ir_plan_fini(&p);
	}
}

/* Two ranks of node 0 send over the network on different links in one
 * phase (node contention allowed).  One network port: the second
 * message waits for the first's tail (11.1) and then arrives 10.6 us
 * later; two ports: both arrive at 11.6. */
static void test_node_ports(void **state)
{
	(void)state;
	const int rows[][3] = {{0, 0, 1}, {0, 4, 2}}; /* node 0 -> 1, 0 -> 2 */
	for (int ports = 1; ports <= 2; ports++) {
		ir_machine m = node_machine(IR_PLACE_CYCLIC, ports, false);
		ir_plan p;
		node_plan(&p, &m, 1000, rows, 2);
		for (uint32_t b = 0; b < p.nblocks; b++)
			p.blocks[b].origin = p.transfers[b].src;
		p.flags = IR_PLAN_NODE_CONTENTION;
		struct model_sim s;
		simulate(&p, false, &s);
		if (ports == 1) {
			EXACT(s.delivered[1], 11.6);
			EXACT(s.delivered[2], 11.1 + 0.1 + 10.0 + 0.5);
			EXACT(s.port_wait_us, 11.1 - 1.0);
		} else {
			EXACT(s.max_us, 11.6);
			EXACT(s.port_wait_us, 0);
		}
		model_sim_fini(&s);
		ir_plan_fini(&p);
	}
}

/* Contention-free plans on nodes, with barriers, against the unicast
 * model: equal to the last digit, with and without a shared-memory
 * cost, under both placements, links shared or first come first
 * served.  The plans are broadcasts: by recursive doubling over rank
 * numbers (cyclic placement: network phases, then phases inside nodes
 * with one and two transfers per node), and two whose ranks send inside
 * their node and over the network in the same phase (serialised
 * start-ups of both kinds), one of them with a rank's two sends inside
 * its node one start-up apart. */
static void test_against_unicast_nodes(void **state)
{
	(void)state;
	int rd[16][3];
	size_t nrd = 0;
	for (int k = 0; k < 4; k++)
		for (int r = 0; r < (1 << k); r++) {
			rd[nrd][0] = k;
			rd[nrd][1] = r;
			rd[nrd][2] = r + (1 << k);
			nrd++;
		}
	/* cyclic (rank r on node r mod 4): 0 -> 4 inside node 0, then
	 * 0 -> 1 to node 1; 1 -> 3 to node 3, then 1 -> 5 inside node 1;
	 * rank 2 twice inside node 2 */
	const int mixed[][3] = {{0, 0, 4},  {0, 0, 1},  {1, 0, 2},  {1, 1, 3},
	                        {1, 4, 8},  {1, 1, 5},  {2, 0, 12}, {2, 1, 9},
	                        {2, 2, 6},  {2, 2, 10}, {2, 3, 7},  {2, 3, 11},
	                        {2, 5, 13}, {3, 2, 14}, {3, 3, 15}};
	/* block (ranks 4v .. 4v+3 on node v): leaders first, 0 -> 8 to
	 * node 2, then 0 -> 1 inside node 0 */
	const int leaders[][3] = {
	        {0, 0, 4}, {1, 0, 8},  {1, 0, 1},  {1, 4, 12},  {2, 1, 3},
	        {2, 0, 2}, {2, 4, 5},  {2, 8, 9},  {2, 12, 13}, {3, 4, 6},
	        {3, 5, 7}, {3, 8, 10}, {3, 9, 11}, {3, 12, 14}, {3, 13, 15}};
	struct {
		const char *name;
		enum ir_placement pl;
		const int (*rows)[3];
		size_t n;
	} k[] = {
	        {"rd", IR_PLACE_CYCLIC, (const int(*)[3])rd, 15},
	        {"mixed", IR_PLACE_CYCLIC, mixed, 15},
	        {"leaders", IR_PLACE_BLOCK, leaders, 15},
	};
	const int64_t sizes[] = {100, 1000, 10000};
	print_message("  %-10s %-7s %3s %6s %9s %9s\n", "plan", "placing",
	              "shm", "bytes", "model", "barriers");
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
		for (int shm = 0; shm < 2; shm++)
			for (size_t j = 0; j < 3; j++) {
				ir_machine m = node_machine(k[i].pl, 0, shm);
				ir_plan p;
				node_plan(&p, &m, sizes[j], k[i].rows, k[i].n);
				ir_report r;
				assert_int_equal(ir_verify(&p, &r), 0);
				assert_true(r.max_link_load <= 1);
				assert_true(r.shm_transfers > 0);
				ir_report_fini(&r);
				double us = predict1(&p, NULL, MODEL_UNICAST);
				struct model_sim sb, so;
				simulate(&p, true, &sb);
				simulate_fifo(&p, true, &so);
				print_message(
				        "  %-10s %-7s %3s %6lld %9.3f "
				        "%9.3f\n",
				        k[i].name, ir_placement_names[k[i].pl],
				        shm ? "yes" : "no", (long long)sizes[j],
				        us, sb.max_us);
				EXACT(sb.max_us, us);
				EXACT(so.max_us, us);
				model_sim_fini(&sb);
				model_sim_fini(&so);
				ir_plan_fini(&p);
			}
}

/* ---- findings -------------------------------------------------------- */

/* Mean max and average delivery time of alg's broadcast over eight
 * sources (001 §3.3.5 picks sources at random and averages). */
static void bcast_mean(const char *alg, int n, int64_t L, double *mx,
                       double *avg)
{
	uint32_t x = 12345;
	*mx = *avg = 0;
	for (int k = 0; k < 8; k++) {
		x = x * 1103515245u + 12345u;
		int32_t root = (int32_t)((x >> 8) % (uint32_t)(n * n));
		struct gen_case gc = {alg, IR_MESH, 0, n, n, 1, root, false};
		ir_plan p;
		generate(&gc, L, &p);
		struct model_sim s;
		simulate(&p, false, &s);
		assert_int_equal(s.receivers, n * n - 1);
		*mx += s.max_us / 8;
		*avg += s.avg_us / 8;
		model_sim_fini(&s);
		ir_plan_fini(&p);
	}
}

/* EDN against RD on 2D all-port meshes, T3D parameters (001 §3.3.5,
 * Figures 3.16-3.17, simulated without barriers).  001 §3.3.4's own
 * estimate has EDN ahead once L > alpha / ((k - 1) beta) on a 2^k x 2^k
 * mesh (with alpha = gamma): 76 bytes at 16x16, 57 at 32x32; below that
 * RD may win by a little. */
static void test_edn_vs_rd(void **state)
{
	(void)state;
	const int ns[2] = {16, 32};
	print_message("  mesh    bytes  EDN max   RD max  gain   EDN avg   "
	              "RD avg  gain\n");
	for (int a = 0; a < 2; a++) {
		int n = ns[a], k = n == 16 ? 4 : 5;
		double cross = 0.75 / ((k - 1) * 0.0033);
		for (int64_t L = 32; L <= 2048; L *= 2) {
			double em, ea, rm, ra;
			bcast_mean("edn", n, L, &em, &ea);
			bcast_mean("rd", n, L, &rm, &ra);
			print_message("  %2dx%-2d %6lld %8.2f %8.2f %+5.1f%% "
			              "%8.2f %8.2f %+5.1f%%\n",
			              n, n, (long long)L, em, rm,
			              100 * (1 - em / rm), ea, ra,
			              100 * (1 - ea / ra));
			if ((double)L > cross)
				assert_true(em < rm);
			else
				assert_true(em < 1.05 * rm);
			if (L >= 512)
				assert_true(em < 0.75 * rm && ea < ra);
		}
	}
}

/* Simulate generator name's transpose of L bytes on an n x n all-port
 * mesh with the T3D parameters; NAN if it does not apply. */
static double transpose_time(const char *name, int n, int64_t L, bool barriers)
{
	ir_machine m = tu_machine(IR_MESH, 0, n, n, 0, 0);
	assert_int_equal(model_preset_apply(&m.cost, "t3d"), 0);
	ir_comm c = tu_comm(IR_TRANSPOSE, 0, L);
	const struct sch_generator *g = sch_find(name);
	char why[256];
	if (!g || sch_applies(g, &m, &c, why, sizeof why))
		return NAN;
	struct sch_options o = {.hpam_price = model_hpam_price};
	ir_plan p;
	assert_int_equal(g->generate(&m, &c, &o, &p), 0);
	struct model_sim s;
	simulate(&p, barriers, &s);
	double t = s.max_us;
	model_sim_fini(&s);
	ir_plan_fini(&p);
	return t;
}

/* The direct transpose (001 §3.6, Figure 3.27): one phase in which the
 * messages crowd onto the links near the diagonal, against the same
 * messages split into contention-free phases (run with barriers: without
 * them nothing holds the phases apart, every rank owning its block at
 * time 0).  The one-phase time also meets 003's model with beta_sat =
 * beta (f messages sharing a saturated link get 1/f of it each):
 * alpha + L f beta, plus the receive overhead 003 folds into alpha.
 * The EDN transpose (001 §3.6, Figures 3.28-3.29), when a generator for
 * it applies, is printed beside them. */
static void test_transpose(void **state)
{
	(void)state;
	print_message("  mesh    bytes  f  unicast  003+gam  one-phase "
	              "stretch  split (phases)  edn\n");
	double last_stretch[3] = {0, 0, 0};
	for (int n = 8; n <= 32; n *= 2) {
		int li = 0;
		for (int64_t L = 128; L <= 2048; L *= 4, li++) {
			ir_machine m = tu_machine(IR_MESH, 0, n, n, 0, 0);
			assert_int_equal(model_preset_apply(&m.cost, "t3d"), 0);
			m.cost.beta_sat = m.cost.beta;
			ir_comm c = tu_comm(IR_TRANSPOSE, 0, L);
			const struct sch_generator *g =
			        sch_find("transpose_direct");
			assert_non_null(g);
			ir_plan one, split;
			struct sch_options o = {.hpam_price = model_hpam_price};
			assert_int_equal(g->generate(&m, &c, &o, &one), 0);
			o.forbid_contention = true;
			assert_int_equal(g->generate(&m, &c, &o, &split), 0);
			ir_report r;
			assert_int_equal(ir_verify(&one, &r), 0);
			double uni = predict1(&one, &r, MODEL_UNICAST);
			double con = predict1(&one, &r, MODEL_CONTENTION) +
			             m.cost.gamma;
			double spl = predict1(&split, NULL, MODEL_UNICAST);
			struct model_sim s1, s2, s3;
			simulate(&one, false, &s1);
			simulate(&split, true, &s2);
			simulate(&split, false, &s3);
			double edn =
			        transpose_time("edn_transpose", n, L, false);
			double stretch = s1.max_us / uni;
			print_message("  %2dx%-2d %6lld %2u %8.2f %8.2f %9.2f "
			              "%6.1fx %8.2f (%2u) %8.2f\n",
			              n, n, (long long)L, r.max_link_load, uni,
			              con, s1.max_us, stretch, s2.max_us,
			              split.nphases, edn);
			/* the unicast model prices the contended phase by
			 * its link loads (every body sharing a link waits
			 * for the others), so it meets the simulator: the
			 * one phase is f bodies long, not one */
			double once = uni - (double)L * m.cost.beta *
			                            (r.max_link_load - 1);
			print_message("        unicast without contention "
			              "%.2f\n", once);
			assert_true(stretch > 0.8 && stretch < 1.25);
			assert_true(s1.max_us / once > last_stretch[li]);
			last_stretch[li] = s1.max_us / once;
			assert_true(s1.contended > 0);
			/* the split plan with barriers is its unicast sum */
			EXACT(s2.max_us, spl);
			assert_int_equal(s2.contended, 0);
			/* without barriers the split plan is the one phase */
			EXACT(s3.max_us, s1.max_us);
			/* 003's f*beta_sat term tracks the simulation */
			assert_true(fabs(s1.max_us - con) < 0.05 * s1.max_us);
			model_sim_fini(&s1);
			model_sim_fini(&s2);
			model_sim_fini(&s3);
			ir_report_fini(&r);
			ir_plan_fini(&one);
			ir_plan_fini(&split);
		}
	}
}

/* HPAM multicast plans (IR_XF_MCAST groups, one message each) and
 * reductions (every earlier contribution first) run to completion. */
static void test_mcast_and_reduce(void **state)
{
	(void)state;
	ir_machine h = tu_machine(IR_HPAM, 1, 2, 2, 8, 8);
	round_costs(&h);
	ir_comm c = tu_comm(IR_BCAST, 0, 1000);
	const struct sch_generator *g = sch_find("hpam_multicast");
	assert_non_null(g);
	struct sch_options o = {.forbid_contention = true,
	                        .hpam_price = model_hpam_price};
	ir_plan p;
	assert_int_equal(g->generate(&h, &c, &o, &p), 0);
	uint32_t mc = 0;
	for (uint32_t t = 0; t < p.ntransfers; t++)
		mc += (p.transfers[t].flags & IR_XF_MCAST) != 0;
	assert_true(mc > 0);
	struct model_sim s;
	simulate(&p, false, &s);
	assert_int_equal(s.receivers, h.nranks - 1);
	assert_true(s.messages < p.ntransfers);
	model_sim_fini(&s);
	/* without virtual channels too; and with phase barriers the
	 * contention-free phases are the same under both link models: each
	 * group's header takes its links in its longest route's time */
	simulate_fifo(&p, false, &s);
	assert_int_equal(s.receivers, h.nranks - 1);
	model_sim_fini(&s);
	simulate(&p, true, &s);
	double shared = s.max_us;
	model_sim_fini(&s);
	simulate_fifo(&p, true, &s);
	EXACT(s.max_us, shared);
	assert_int_equal(s.contended, 0);
	model_sim_fini(&s);
	ir_plan_fini(&p);

	ir_machine m = tu_machine(IR_MESH, 0, 16, 16, 0, 0);
	round_costs(&m);
	c = tu_comm(IR_REDUCE, 0, 1000);
	g = sch_find("edn_reduce");
	char why[256];
	if (!g || sch_applies(g, &m, &c, why, sizeof why))
		return; /* no reduction generator for this machine */
	o.forbid_contention = false;
	assert_int_equal(g->generate(&m, &c, &o, &p), 0);
	simulate(&p, false, &s);
	/* the root finishes last: it combines every partial */
	EXACT(s.delivered[0], s.max_us);
	EXACT(s.total_us, s.max_us);
	model_sim_fini(&s);
	ir_plan_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_one_message),
	        cmocka_unit_test(test_shared_link),
	        cmocka_unit_test(test_fifo_link),
	        cmocka_unit_test(test_fifo_chain),
	        cmocka_unit_test(test_fifo_deadlock),
	        cmocka_unit_test(test_rates_follow),
	        cmocka_unit_test(test_ports),
	        cmocka_unit_test(test_receiver),
	        cmocka_unit_test(test_forward),
	        cmocka_unit_test(test_half_duplex),
	        cmocka_unit_test(test_errors),
	        cmocka_unit_test(test_against_unicast),
	        cmocka_unit_test(test_combine),
	        cmocka_unit_test(test_node_memory),
	        cmocka_unit_test(test_node_ports),
	        cmocka_unit_test(test_against_unicast_nodes),
	        cmocka_unit_test(test_edn_vs_rd),
	        cmocka_unit_test(test_transpose),
	        cmocka_unit_test(test_mcast_and_reduce),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
