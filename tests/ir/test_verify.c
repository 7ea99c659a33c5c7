/*
 * test_verify.c - the verifier and the lowering, on hand-made plans: each
 * rule is broken once and must be caught; valid plans must pass, with the
 * measured loads and lower bounds they really have.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ir.h"
#include "model.h"
#include "sched.h"
#include "support.h"

static ir_comm bcast(int32_t root, int64_t bytes, int32_t segs)
{
	return (ir_comm){.coll = IR_BCAST,
	                 .root = root,
	                 .bytes = bytes,
	                 .segments = segs};
}

/* Add one transfer carrying a single block. */
static void xfer(ir_plan *p, int32_t s, int32_t d, int32_t o, int32_t i)
{
	ir_block b = {o, i};
	assert_int_equal(ir_plan_add(p, s, d, &b, 1, 0), 0);
}

static int verify(const ir_plan *p, ir_report *r)
{
	int rc = ir_verify(p, r);
	if (rc && r->message[0])
		print_message("  verifier: %s\n", r->message);
	return rc;
}

/* A correct broadcast on a 1x4 line: 0->2, then 0->1 and 2->3. */
static void build_line_bcast(ir_plan *p, const ir_machine *m)
{
	ir_comm c = bcast(0, 100, 1);
	ir_plan_init(p, m, &c, "hand");
	ir_plan_phase(p);
	xfer(p, 0, 2, 0, 0);
	ir_plan_phase(p);
	xfer(p, 0, 1, 0, 0);
	xfer(p, 2, 3, 0, 0);
}

static void test_valid_broadcast(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 1, 4, 0, 0, 0);
	ir_plan p;
	ir_report r;
	build_line_bcast(&p, &m);
	assert_int_equal(verify(&p, &r), 0);
	assert_true(r.ok);
	assert_int_equal(r.phases, 2);
	assert_int_equal(r.transfers, 3);
	assert_int_equal(r.bytes, 300);
	assert_int_equal(r.max_link_load, 1);
	assert_int_equal(r.hops, 4);
	assert_int_equal(r.lb_phases, 2); /* ceil(log2 4), one-port */
	assert_int_equal(r.duplicates, 0);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

static void test_causality(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 1, 4, 0, 0, 0);
	ir_comm c = bcast(0, 100, 1);
	ir_plan p;
	ir_report r;
	ir_plan_init(&p, &m, &c, "hand");
	ir_plan_phase(&p);
	xfer(&p, 0, 1, 0, 0);
	xfer(&p, 1, 2, 0, 0); /* 1 receives and forwards in one phase */
	ir_plan_phase(&p);
	xfer(&p, 2, 3, 0, 0);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "causality: phase 0: rank 1"));
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

static void test_delivery(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 1, 4, 0, 0, 0);
	ir_comm c = bcast(0, 100, 1);
	ir_plan p;
	ir_report r;
	ir_plan_init(&p, &m, &c, "hand");
	ir_plan_phase(&p);
	xfer(&p, 0, 2, 0, 0);
	ir_plan_phase(&p);
	xfer(&p, 2, 3, 0, 0);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "delivery: rank 1"));
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

static void test_node_contention(void **state)
{
	(void)state;
	/* one-port: the root may not send twice in a phase */
	ir_machine m = tu_machine(IR_MESH, 1, 3, 0, 0, 0);
	ir_comm c = bcast(1, 8, 1);
	ir_plan p;
	ir_report r;
	ir_plan_init(&p, &m, &c, "hand");
	ir_plan_phase(&p);
	xfer(&p, 1, 0, 1, 0);
	xfer(&p, 1, 2, 1, 0);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "node: phase 0: rank 1 sends 2"));
	ir_report_fini(&r);
	/* the same plan with all ports: two links, no contention */
	p.machine = tu_machine(IR_MESH, IR_PORTS_ALL, 3, 0, 0, 0);
	assert_int_equal(verify(&p, &r), 0);
	assert_int_equal(r.max_node_sends, 2);
	assert_int_equal(r.lb_phases, 1); /* ceil(log3 3) */
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

static void test_link_contention(void **state)
{
	(void)state;
	/* 0->2 and 1->3 both cross the link 1->2 of a 1x4 line */
	ir_machine m = tu_machine(IR_MESH, 1, 4, 0, 0, 0);
	ir_comm c = {.coll = IR_ALLTOALL, .bytes = 4};
	ir_plan p;
	ir_report r;
	ir_plan_init(&p, &m, &c, "hand");
	ir_plan_phase(&p);
	xfer(&p, 0, 2, 0, 2);
	xfer(&p, 1, 3, 1, 3);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_non_null(
	        strstr(r.message, "link: phase 0: link 1 -> 2 carries 2"));
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* Pairwise exchange by XOR on n ranks: phase i pairs r with r^i. */
static void build_xor_alltoall(ir_plan *p, const ir_machine *m, uint32_t flags)
{
	ir_comm c = {.coll = IR_ALLTOALL, .bytes = 16};
	ir_plan_init(p, m, &c, "xor");
	p->flags = flags;
	for (int32_t i = 1; i < m->nranks; i++) {
		ir_plan_phase(p);
		for (int32_t s = 0; s < m->nranks; s++)
			xfer(p, s, s ^ i, s, s ^ i);
	}
}

/* With several ranks per node, a direct plan sends each message between
 * nodes as its own network transfer: the node's network ports bound the
 * phases as the ranks' ports do. */
static void test_node_degree_bound(void **state)
{
	(void)state;
	char err[160];
	ir_report r = {0};
	/* 2 nodes of 4 one-port ranks, one network port each: each node
	 * sends 4 x 4 = 16 network messages of an alltoall, a rank only 7 */
	ir_machine m = tu_machine(IR_SWITCH, 1, 2, 0, 0, 0);
	m.ranks_per_node = 4;
	m.node_ports = 1;
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 8);
	assert_int_equal(ir_lower_bound(&m, &c, true, 0, 1, &r), 0);
	assert_int_equal(r.lb_degree, 16);
	assert_int_equal(r.lb_phases, 16);
	/* two network ports: 8; the ranks' 7 alone on one node */
	m.node_ports = 2;
	assert_int_equal(ir_lower_bound(&m, &c, true, 0, 1, &r), 0);
	assert_int_equal(r.lb_degree, 8);
	m.node_ports = 4;
	assert_int_equal(ir_lower_bound(&m, &c, true, 0, 1, &r), 0);
	assert_int_equal(r.lb_degree, 7);
	/* a plan that may contend at nodes and links is not bound by it
	 * (the switch's one link per node carries the same 16) */
	m.node_ports = 1;
	assert_int_equal(ir_lower_bound(&m, &c, true,
	                                IR_PLAN_NODE_CONTENTION |
	                                        IR_PLAN_LINK_CONTENTION,
	                                1, &r),
	                 0);
	assert_int_equal(r.lb_link, 16);
	assert_int_equal(r.lb_phases, r.lb_spread);
	assert_true(r.lb_spread < 16);
}

static void test_contention_allowed_is_measured(void **state)
{
	(void)state;
	/* PEX on a 2x4 mesh (003): steps 2, 3, 6, 7 put two messages on a
	 * link, steps 1, 4, 5 none; measured, not failed */
	ir_machine m = tu_machine(IR_MESH, 1, 4, 2, 0, 0);
	ir_plan p;
	ir_report r;
	build_xor_alltoall(&p, &m, IR_PLAN_LINK_CONTENTION);
	assert_int_equal(verify(&p, &r), 0);
	assert_int_equal(r.phases, 7);
	assert_int_equal(r.max_link_load, 2);
	uint32_t want[7] = {1, 2, 2, 1, 1, 2, 2};
	for (int k = 0; k < 7; k++)
		assert_int_equal(r.link_load[k], want[k]);
	assert_true(r.direct);
	assert_int_equal(r.lb_degree, 7);
	/* X-Y routes of the 2 left sources of a row to the 4 right-hand
	 * ranks all cross that row's middle link: 8 messages */
	assert_int_equal(r.lb_link, 8);
	/* contention is allowed, so the link term is no bound for it */
	assert_int_equal(r.lb_phases, 7);
	ir_report_fini(&r);
	/* without the flag the same plan is rejected */
	p.flags = 0;
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* Transfers sharing a link are counted when contention is allowed: on a
 * 1x4 line, 0->2 and 1->3 share link 1->2; 0->1 before them shares none. */
static void test_contended_counted(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 1, 4, 0, 0, 0);
	ir_comm c = bcast(0, 100, 1);
	ir_plan p;
	ir_report r;
	ir_plan_init(&p, &m, &c, "hand");
	p.flags = IR_PLAN_LINK_CONTENTION;
	ir_plan_phase(&p);
	xfer(&p, 0, 1, 0, 0);
	ir_plan_phase(&p);
	xfer(&p, 0, 2, 0, 0);
	xfer(&p, 1, 3, 0, 0);
	assert_int_equal(verify(&p, &r), 0);
	assert_int_equal(r.contended, 2);
	assert_int_equal(r.link_load[0], 1);
	assert_int_equal(r.link_load[1], 2);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

static void test_alltoall_hypercube_free(void **state)
{
	(void)state;
	/* XOR exchange on a 3-cube with e-cube routing is free of contention */
	ir_machine m = tu_machine(IR_HYPERCUBE, 1, 3, 0, 0, 0);
	ir_plan p;
	ir_report r;
	build_xor_alltoall(&p, &m, 0);
	assert_int_equal(verify(&p, &r), 0);
	assert_int_equal(r.max_link_load, 1);
	assert_int_equal(r.lb_phases, 7); /* direct: 7 messages, one port */
	assert_int_equal(r.lb_spread, 3);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

static void test_duplicates_counted(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 1, 4, 0, 0, 0);
	ir_plan p;
	ir_report r;
	build_line_bcast(&p, &m);
	ir_plan_phase(&p);
	xfer(&p, 1, 0, 0, 0); /* back to the root, which has it */
	xfer(&p, 3, 2, 0, 0); /* and to rank 2 again */
	assert_int_equal(verify(&p, &r), 0);
	assert_int_equal(r.duplicates, 2);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

static void test_structure(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 1, 4, 0, 0, 0);
	ir_comm c = bcast(0, 100, 2);
	ir_plan p;
	ir_report r;
	/* self transfer */
	ir_plan_init(&p, &m, &c, "hand");
	xfer(&p, 0, 0, 0, 0);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "to itself"));
	ir_report_fini(&r);
	ir_plan_fini(&p);
	/* a rank outside the machine */
	ir_plan_init(&p, &m, &c, "hand");
	xfer(&p, 0, 9, 0, 0);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "outside the machine"));
	ir_report_fini(&r);
	ir_plan_fini(&p);
	/* a segment the broadcast does not have */
	ir_plan_init(&p, &m, &c, "hand");
	xfer(&p, 0, 1, 0, 2);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "which the broadcast does not have"));
	ir_report_fini(&r);
	ir_plan_fini(&p);
	/* bytes that do not match the blocks */
	ir_plan_init(&p, &m, &c, "hand");
	xfer(&p, 0, 1, 0, 0);
	p.transfers[0].bytes = 49;
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "says 49 bytes, its blocks hold 50"));
	ir_report_fini(&r);
	ir_plan_fini(&p);
	/* the same pair twice in a phase, contention allowed */
	ir_plan_init(&p, &m, &c, "hand");
	p.flags = IR_PLAN_LINK_CONTENTION | IR_PLAN_NODE_CONTENTION;
	xfer(&p, 0, 1, 0, 0);
	xfer(&p, 0, 1, 0, 1);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "two transfers 0 -> 1"));
	ir_report_fini(&r);
	ir_plan_fini(&p);
	/* phases that do not tile the transfers */
	build_line_bcast(&p, &m);
	p.phases[1].transfer = 2;
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "structure: phase 1"));
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* Reduce on 4 ranks of a switch: 1->0, 3->2, then 2->0. */
static void build_reduce(ir_plan *p, const ir_machine *m)
{
	ir_comm c = {.coll = IR_REDUCE,
	             .root = 0,
	             .bytes = 64,
	             .dtype = IR_DT_DOUBLE,
	             .op = IR_OP_SUM};
	ir_plan_init(p, m, &c, "hand");
	ir_block b1 = {1, 0}, b3 = {3, 0}, b2 = {2, 0};
	ir_plan_phase(p);
	ir_plan_add(p, 1, 0, &b1, 1, IR_XF_REDUCE);
	ir_plan_add(p, 3, 2, &b3, 1, IR_XF_REDUCE);
	ir_plan_phase(p);
	ir_plan_add(p, 2, 0, &b2, 1, IR_XF_REDUCE);
}

static void test_reduce(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_SWITCH, 1, 4, 0, 0, 0);
	ir_plan p;
	ir_report r;
	build_reduce(&p, &m);
	assert_int_equal(verify(&p, &r), 0);
	ir_report_fini(&r);
	/* rank 3's contribution reaches the root twice */
	ir_block b3 = {3, 0};
	ir_plan_phase(&p);
	ir_plan_add(&p, 3, 0, &b3, 1, IR_XF_REDUCE);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "combines 5 contributions"));
	ir_report_fini(&r);
	ir_plan_fini(&p);
	/* rank 3's contribution is lost */
	ir_comm c = {.coll = IR_REDUCE, .root = 0, .bytes = 64};
	ir_plan_init(&p, &m, &c, "hand");
	ir_block b1 = {1, 0}, b2 = {2, 0};
	ir_plan_phase(&p);
	ir_plan_add(&p, 1, 0, &b1, 1, IR_XF_REDUCE);
	ir_plan_phase(&p);
	ir_plan_add(&p, 2, 0, &b2, 1, IR_XF_REDUCE);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "combines 3 contributions"));
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* An allreduce of 3 ranks on an all-port switch in which rank 0
 * combines rank 1's contribution and then rank 2's, and rank 2 combines
 * rank 0's and then rank 1's: every rank ends with all three, but rank 0
 * as ((0 + 1) + 2) and rank 2 as ((2 + 0) + 1), which in floating point
 * may differ.  Rank 1 gets rank 0's result. */
static void build_unordered_allreduce(ir_plan *p, const ir_machine *m,
                                      bool reproducible)
{
	ir_comm c = {.coll = IR_ALLREDUCE, .bytes = 64, .dtype = IR_DT_DOUBLE,
	             .op = IR_OP_SUM, .reproducible = reproducible};
	ir_plan_init(p, m, &c, "hand");
	ir_block b0 = {0, 0}, b1 = {1, 0}, b2 = {2, 0};
	ir_plan_phase(p);
	ir_plan_add(p, 1, 0, &b1, 1, IR_XF_REDUCE);
	ir_plan_add(p, 2, 0, &b2, 1, IR_XF_REDUCE);
	ir_plan_add(p, 0, 2, &b0, 1, IR_XF_REDUCE);
	ir_plan_phase(p);
	ir_plan_add(p, 1, 2, &b1, 1, IR_XF_REDUCE);
	ir_plan_phase(p);
	ir_plan_add(p, 0, 1, &b0, 1, 0);
}

/* The reduction order: the same plan is accepted, and said not to be
 * reproducible, when the input does not ask for it, and rejected when it
 * does; a plan whose pairs combine the same two partials is. */
static void test_reproducible(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_SWITCH, IR_PORTS_ALL, 3, 0, 0, 0);
	ir_plan p;
	ir_report r;
	build_unordered_allreduce(&p, &m, false);
	assert_int_equal(verify(&p, &r), 0);
	assert_false(r.reproducible);
	ir_report_fini(&r);
	ir_plan_fini(&p);
	build_unordered_allreduce(&p, &m, true);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_string_equal(r.message,
	                    "reproducible: ranks 0 and 2 combine element "
	                    "block 0 in different orders, so their "
	                    "floating-point results may differ; the input "
	                    "asks for a reproducible allreduce");
	ir_report_fini(&r);
	ir_plan_fini(&p);
	/* recursive doubling on 4 ranks: both partners of a pair combine
	 * the same two partials, so every rank ends with one tree */
	ir_machine q = tu_machine(IR_SWITCH, 1, 4, 0, 0, 0);
	ir_comm c = {.coll = IR_ALLREDUCE, .bytes = 64, .dtype = IR_DT_DOUBLE,
	             .op = IR_OP_SUM, .reproducible = true};
	struct sch_options o = {0};
	assert_int_equal(sch_find("recursive_doubling")->generate(&q, &c, &o,
	                                                           &p),
	                 0);
	assert_int_equal(verify(&p, &r), 0);
	assert_true(r.reproducible);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* Contributions of an allreduce counted twice, or lost, at some rank,
 * and a partial replaced in the phase that sends it. */
static void test_allreduce_counts(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_SWITCH, IR_PORTS_ALL, 3, 0, 0, 0);
	ir_plan p;
	ir_report r;
	build_unordered_allreduce(&p, &m, false);
	ir_block b2 = {2, 0}, b1 = {1, 0};
	ir_plan_phase(&p); /* rank 2 gives rank 0 everything again */
	ir_plan_add(&p, 2, 0, &b2, 1, IR_XF_REDUCE);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_string_equal(r.message,
	                    "delivery: rank 0's result for element block 0 "
	                    "combines 6 contributions where 3 were expected");
	ir_report_fini(&r);
	ir_plan_fini(&p);
	/* rank 1 never gets the result */
	ir_comm c = {.coll = IR_ALLREDUCE, .bytes = 64, .dtype = IR_DT_INT32,
	             .op = IR_OP_SUM};
	ir_plan_init(&p, &m, &c, "hand");
	ir_plan_phase(&p);
	ir_plan_add(&p, 1, 0, &b1, 1, IR_XF_REDUCE);
	ir_plan_add(&p, 1, 2, &b1, 1, IR_XF_REDUCE);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_string_equal(r.message,
	                    "delivery: rank 0's result for element block 0 "
	                    "combines 2 contributions where 3 were expected");
	ir_report_fini(&r);
	/* rank 0 replaces its partial while it sends it */
	ir_block b0 = {0, 0};
	ir_plan_phase(&p);
	ir_plan_add(&p, 0, 2, &b0, 1, IR_XF_REDUCE);
	ir_plan_add(&p, 2, 0, &b2, 1, 0);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY);
	assert_string_equal(r.message,
	                    "structure: phase 1: rank 0 replaces its partial "
	                    "of element block 0 in the phase it sends it");
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

static void test_gather_transpose_irregular(void **state)
{
	(void)state;
	ir_report r;
	ir_plan p;
	/* gather on a 2x2 mesh at rank 3, forwarding through rank 1 */
	ir_machine m = tu_machine(IR_MESH, 1, 2, 2, 0, 0);
	ir_comm g = {.coll = IR_GATHER, .root = 3, .bytes = 10};
	ir_plan_init(&p, &m, &g, "hand");
	ir_plan_phase(&p);
	xfer(&p, 0, 1, 0, 0);
	xfer(&p, 2, 3, 2, 0);
	ir_plan_phase(&p);
	ir_block two[2] = {{0, 0}, {1, 0}};
	assert_int_equal(ir_plan_add(&p, 1, 3, two, 2, 0), 0);
	assert_int_equal(verify(&p, &r), 0);
	assert_int_equal(r.bytes, 40);
	assert_false(r.direct);
	ir_report_fini(&r);
	ir_plan_fini(&p);
	/* transpose on a 2x2 mesh: 1 <-> 2 */
	ir_comm t = {.coll = IR_TRANSPOSE, .bytes = 10};
	ir_plan_init(&p, &m, &t, "hand");
	ir_plan_phase(&p);
	xfer(&p, 1, 2, 1, 0);
	xfer(&p, 2, 1, 2, 0);
	assert_int_equal(verify(&p, &r), 0);
	assert_true(r.direct);
	ir_report_fini(&r);
	ir_plan_fini(&p);
	/* irregular: 0 sends 5 to 3, 3 sends 7 to 1 */
	ir_matrix *x = ir_matrix_new(4, 2);
	int64_t rows[5] = {0, 1, 1, 1, 2};
	memcpy(x->row, rows, sizeof rows);
	x->dst[0] = 3;
	x->bytes[0] = 5;
	x->dst[1] = 1;
	x->bytes[1] = 7;
	ir_comm ic = {.coll = IR_IRREGULAR, .matrix = x};
	ir_plan_init(&p, &m, &ic, "hand");
	ir_plan_phase(&p);
	xfer(&p, 0, 3, 0, 3);
	assert_int_equal(verify(&p, &r), CCP_EVERIFY); /* 3 -> 1 missing */
	assert_non_null(
	        strstr(r.message, "never receives the 7 bytes from rank 3"));
	ir_report_fini(&r);
	xfer(&p, 3, 1, 3, 1);
	assert_int_equal(verify(&p, &r), 0);
	assert_int_equal(r.bytes, 12);
	assert_int_equal(r.lb_phases, 1);
	ir_report_fini(&r);
	ir_plan_fini(&p);
	ir_matrix_free(x);
}

static ir_machine hpam_1x1_4x4(void)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = IR_HPAM;
	m.routing = IR_ROUTE_HPAM_XY;
	m.ports = 1;
	m.levels[0][0] = m.levels[0][1] = 1;
	m.levels[1][0] = m.levels[1][1] = 4;
	char err[256];
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	return m;
}

/* Rank of HPAM node (x, y) of level l (0 or 1) on machine m. */
static int32_t hpam_rank(const ir_machine *m, int l, int x, int y)
{
	int c[IR_MAX_CUBE_DIM] = {x, y, l};
	int32_t r = ir_rank_of(m, c);
	assert_true(r >= 0);
	return r;
}

/* Expect rejection with a message holding every one of the strings. */
static void rejected(const ir_plan *p, const char *a, const char *b)
{
	ir_report r;
	assert_int_equal(verify(p, &r), CCP_EVERIFY);
	assert_false(r.ok);
	assert_non_null(strstr(r.message, a));
	if (b)
		assert_non_null(strstr(r.message, b));
	ir_report_fini(&r);
}

/* A one-phase broadcast plan on m in which src multicasts block (0,0)
 * to the n ranks dst (p initialised here). */
static void mcast_plan(ir_plan *p, const ir_machine *m, int32_t src,
                       const int32_t *dst, int n)
{
	ir_comm c = bcast(0, 64, 1);
	ir_block b = {0, 0};
	ir_plan_init(p, m, &c, "hand");
	ir_plan_phase(p);
	for (int k = 0; k < n; k++)
		assert_int_equal(ir_plan_add(p, src, dst[k], &b, 1, IR_XF_MCAST),
		                 0);
}

static void test_multicast(void **state)
{
	(void)state;
	/* one-port HPAM, 1x1 over 4x4: rank 0 is level 1 and its router
	 * copies a message onto its four down links; level-2 (x, y) is rank
	 * 1 + x + 4y.  Copies of one multicast count as one send. */
	ir_machine m = hpam_1x1_4x4();
	ir_comm c = bcast(0, 64, 1);
	ir_block b = {0, 0};
	int32_t row0[4] = {1, 2, 3, 4};
	ir_plan p;
	ir_report r;
	for (int with = 0; with < 2; with++) {
		uint32_t f = with ? IR_XF_MCAST : 0;
		/* the whole top row at once: four copies, one send */
		ir_plan_init(&p, &m, &c, "hand");
		ir_plan_phase(&p);
		for (int k = 0; k < 4; k++)
			ir_plan_add(&p, 0, row0[k], &b, 1, f);
		/* an incomplete broadcast: with multicast only delivery
		 * fails, after the per-phase rules held */
		assert_int_equal(ir_verify(&p, &r), CCP_EVERIFY);
		assert_non_null(strstr(r.message, with ? "delivery:"
		                                       : "rank 0 sends 4"));
		if (with) {
			assert_int_equal(r.max_link_load, 1);
			assert_int_equal(r.max_node_sends, 1);
		}
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
	/* the complete broadcast: the multicast, then the column trees */
	ir_plan_init(&p, &m, &c, "hand");
	ir_plan_phase(&p);
	for (int k = 0; k < 4; k++)
		ir_plan_add(&p, 0, row0[k], &b, 1, IR_XF_MCAST);
	ir_plan_phase(&p);
	for (int x = 0; x < 4; x++)
		xfer(&p, 1 + x, 9 + x, 0, 0);
	ir_plan_phase(&p);
	for (int x = 0; x < 4; x++) {
		xfer(&p, 1 + x, 5 + x, 0, 0);
		xfer(&p, 9 + x, 13 + x, 0, 0);
	}
	assert_int_equal(verify(&p, &r), 0);
	assert_int_equal(r.phases, 3);
	assert_int_equal(r.max_node_sends, 1);
	assert_int_equal(r.max_link_load, 1);
	assert_int_equal(r.lb_spread, 2); /* (1 + 1 x 4)^2 >= 17 */
	ir_report_fini(&r);
	ir_plan_fini(&p);
	/* a multicast and an ordinary transfer on one link still contend,
	 * before the split (the down link of column 0) as after it (the
	 * link from level-2 (0,0) to (0,1), which the copy to 5 takes) */
	for (int k = 0; k < 2; k++) {
		ir_plan_init(&p, &m, &c, "hand");
		p.machine.ports = IR_PORTS_ALL;
		ir_plan_phase(&p);
		if (k == 1) {
			xfer(&p, 0, 1, 0, 0);
			ir_plan_phase(&p);
		}
		ir_plan_add(&p, 0, 5, &b, 1, IR_XF_MCAST);
		ir_plan_add(&p, 0, 2, &b, 1, IR_XF_MCAST);
		if (k == 0)
			xfer(&p, 0, 9, 0, 0);
		else
			xfer(&p, 1, 9, 0, 0);
		rejected(&p, k ? "link: phase 1: link 1 -> 5" : "link: phase 0",
		         "carries 2 transfers");
		ir_plan_fini(&p);
	}
}

/* The multicast rule follows the machine: each way of breaking it, one
 * test each. */

/* 1. no router of a mesh replicates: rank 0 "multicasting" to the other
 * 7 ranks of a one-port line was one send before; nor of a switch, a
 * hypercube or a torus */
static void test_multicast_no_replicating_router(void **state)
{
	(void)state;
	ir_plan p;
	const int32_t all[] = {1, 2, 3, 4, 5, 6, 7};
	ir_machine line = tu_machine(IR_MESH, 1, 8, 0, 0, 0);
	mcast_plan(&p, &line, 0, all, 7);
	rejected(&p, "multicast: phase 0: rank 0 sends rank 1 a multicast copy",
	         "no router of a mesh replicates");
	ir_plan_fini(&p);
	ir_machine other[] = {
	        tu_machine(IR_SWITCH, 1, 4, 0, 0, 0),
	        tu_machine(IR_HYPERCUBE, 1, 2, 0, 0, 0),
	        tu_machine(IR_TORUS, 1, 4, 0, 0, 0),
	};
	for (size_t k = 0; k < sizeof other / sizeof other[0]; k++) {
		mcast_plan(&p, &other[k], 0, all, 3);
		rejected(&p, "no router of a", "replicates");
		ir_plan_fini(&p);
	}
}

/* 2. on HPAM, a copy must cross a replicating router: level 1 to level
 * 1, and level 2 up to level 1, do not */
static void test_multicast_off_the_router(void **state)
{
	(void)state;
	ir_plan p;
	ir_block b = {0, 0};
	ir_comm c = bcast(0, 64, 1);
	ir_machine h = tu_machine(IR_HPAM, 1, 2, 2, 4, 4);
	const int32_t level1[] = {1, 2};
	mcast_plan(&p, &h, 0, level1, 2);
	rejected(&p, "rank 0's multicast copy to rank 1 crosses no "
	             "replicating router",
	         NULL);
	ir_plan_fini(&p);
	ir_plan_init(&p, &h, &c, "hand");
	ir_plan_phase(&p);
	ir_plan_add(&p, 0, hpam_rank(&h, 1, 0, 0), &b, 1, 0);
	ir_plan_phase(&p);
	ir_plan_add(&p, hpam_rank(&h, 1, 0, 0), 1, &b, 1, IR_XF_MCAST);
	ir_plan_add(&p, hpam_rank(&h, 1, 0, 0), 3, &b, 1, IR_XF_MCAST);
	rejected(&p, "multicast: phase 1", "crosses no replicating router");
	ir_plan_fini(&p);
}

/* 3. every copy carries the same blocks: a scatter whose one multicast
 * sends each top-row rank its own column's four blocks (then the column
 * trees finish it) passed as one send before; so did the same band in
 * another order */
static void test_multicast_different_blocks(void **state)
{
	(void)state;
	ir_plan p;
	ir_machine m = hpam_1x1_4x4();
	ir_comm s = tu_comm(IR_SCATTER, 0, 16);
	for (int variant = 0; variant < 2; variant++) {
		ir_plan_init(&p, &m, &s, "hand");
		ir_plan_phase(&p);
		for (int x = 0; x < 4; x++) {
			ir_block col[4], all[16];
			for (int y = 0; y < 4; y++)
				col[y] = (ir_block){0, 1 + x + 4 * y};
			/* variant 1: the whole band, in another order for
			 * every copy but the first */
			for (int k = 0; k < 16; k++)
				all[k] = (ir_block){
				        0, 1 + (x == 0 ? k : 15 - k)};
			assert_int_equal(ir_plan_add(&p, 0, 1 + x,
			                             variant ? all : col,
			                             variant ? 16 : 4,
			                             IR_XF_MCAST),
			                 0);
		}
		ir_plan_phase(&p);
		for (int x = 0; x < 4; x++) {
			ir_block two[2] = {{0, 9 + x}, {0, 13 + x}};
			assert_int_equal(ir_plan_add(&p, 1 + x, 9 + x, two, 2, 0),
			                 0);
		}
		ir_plan_phase(&p);
		for (int x = 0; x < 4; x++) {
			xfer(&p, 1 + x, 5 + x, 0, 5 + x);
			xfer(&p, 9 + x, 13 + x, 0, 13 + x);
		}
		rejected(&p, "multicast: phase 0: rank 0's copies to ranks 1 "
		             "and 2 carry different blocks",
		         NULL);
		/* the same plan without the flag is a valid unicast plan
		 * on an all-port machine */
		for (uint32_t t = 0; t < 4; t++)
			p.transfers[t].flags = 0;
		p.machine.ports = IR_PORTS_ALL;
		ir_report r;
		assert_int_equal(verify(&p, &r), 0);
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
}

/* 4. the copies share their route up to one replicating router: on 2x2
 * over 4x4, level-1 rank 0 (column 0) reaches level-2 columns 0 and 2
 * through the routers of level-1 columns 0 and 1; columns 0 and 1, under
 * one router, share the link down level 1 once */
static void test_multicast_split_apart(void **state)
{
	(void)state;
	ir_plan p;
	ir_machine h = tu_machine(IR_HPAM, 1, 2, 2, 4, 4);
	const int32_t apart[] = {hpam_rank(&h, 1, 0, 0), hpam_rank(&h, 1, 2, 0)};
	const int32_t under[] = {hpam_rank(&h, 1, 0, 0), hpam_rank(&h, 1, 1, 0)};
	mcast_plan(&p, &h, 0, apart, 2);
	rejected(&p, "split at different places (ranks 2 and 3)", NULL);
	ir_plan_fini(&p);
	mcast_plan(&p, &h, 0, under, 2);
	ir_report r;
	assert_int_equal(ir_verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "delivery:"));
	assert_int_equal(r.max_link_load, 1);
	assert_int_equal(r.hops, 4); /* 0->2, 2->(0,0)2; 0->2, 2->(1,0)2 */
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* 5. after the split each copy has its own links: two copies down one
 * level-2 column (rows 1 and 2) both take its down link, which the
 * router cannot do, even where the plan allows contention */
static void test_multicast_two_copies_on_a_link(void **state)
{
	(void)state;
	ir_plan p;
	ir_machine m = hpam_1x1_4x4();
	const int32_t column0[] = {5, 9};
	for (int allow = 0; allow < 2; allow++) {
		mcast_plan(&p, &m, 0, column0, 2);
		p.flags = allow ? IR_PLAN_LINK_CONTENTION : 0;
		rejected(&p, "multicast: phase 0: link 0 -> 1 carries two "
		             "copies of rank 0's multicast (to ranks 5 and 9)",
		         NULL);
		ir_plan_fini(&p);
	}
}

/* Every multicast plan of the HPAM generators verifies, from every
 * level-1 root, with one send per multicast and no contended link. */
static void test_multicast_generators(void **state)
{
	(void)state;
	int shapes[][4] = {{1, 1, 4, 4},  {2, 2, 4, 8},  {2, 4, 8, 16},
	                   {4, 4, 16, 16}, {1, 2, 8, 8}, {3, 2, 5, 4}};
	enum ir_coll colls[] = {IR_BCAST, IR_SCATTER};
	struct sch_options o = {.hpam_price = model_hpam_price};
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
		ir_machine m = tu_machine(IR_HPAM, 1, shapes[k][0],
		                          shapes[k][1], shapes[k][2],
		                          shapes[k][3]);
		for (size_t j = 0; j < 2; j++)
			for (int32_t root = 0;
			     root < shapes[k][0] * shapes[k][1]; root++) {
				ir_comm c = tu_comm(colls[j], root, 1024);
				if (colls[j] == IR_BCAST)
					c.segments = 3;
				ir_plan p;
				ir_report r;
				assert_int_equal(sch_hpam_multicast.generate(
				                         &m, &c, &o, &p),
				                 0);
				uint32_t mc = 0;
				for (uint32_t t = 0; t < p.ntransfers; t++)
					mc += (p.transfers[t].flags &
					       IR_XF_MCAST) != 0;
				assert_true(mc > 0 || shapes[k][1] ==
				                              shapes[k][3]);
				assert_int_equal(verify(&p, &r), 0);
				assert_int_equal(r.max_node_sends, 1);
				assert_int_equal(r.max_link_load, 1);
				ir_report_fini(&r);
				ir_plan_fini(&p);
			}
	}
}

static void test_generators_verify(void **state)
{
	(void)state;
	/* the binomial broadcast verifies from every root, on meshes and
	 * tori of odd and even sizes, a hypercube and a switch */
	ir_machine ms[] = {
	        tu_machine(IR_MESH, 1, 16, 16, 0, 0),
	        tu_machine(IR_MESH, 1, 5, 7, 0, 0),
	        tu_machine(IR_MESH, IR_PORTS_ALL, 3, 4, 5, 0),
	        tu_machine(IR_TORUS, 1, 6, 6, 0, 0),
	        tu_machine(IR_TORUS, 1, 8, 0, 0, 0),
	        tu_machine(IR_HYPERCUBE, 1, 5, 0, 0, 0),
	        tu_machine(IR_SWITCH, 1, 13, 0, 0, 0),
	};
	struct sch_options o = {0};
	for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
		for (int32_t root = 0; root < ms[k].nranks; root++) {
			ir_comm c = bcast(root, 1000, 3);
			ir_plan p;
			ir_report r;
			char why[128];
			assert_int_equal(sch_applies(&sch_binomial, &ms[k], &c, why,
			                                      sizeof why),
			                 0);
			assert_int_equal(
			        sch_binomial.generate(&ms[k], &c, &o, &p), 0);
			assert_int_equal(verify(&p, &r), 0);
			assert_int_equal(r.transfers, ms[k].nranks - 1);
			ir_report_fini(&r);
			ir_plan_fini(&p);
		}
	}
	/* ceil(log2 N) phases on power-of-two machines */
	ir_comm c = bcast(37, 64, 1);
	ir_plan p;
	ir_report r;
	assert_int_equal(sch_binomial.generate(&ms[0], &c, &o, &p), 0);
	assert_int_equal(verify(&p, &r), 0);
	assert_int_equal(r.phases, 8);
	ir_report_fini(&r);
	ir_plan_fini(&p);
	/* linear scatter: N-1 phases */
	ir_comm s = {.coll = IR_SCATTER, .root = 5, .bytes = 32};
	assert_int_equal(sch_linear.generate(&ms[5], &s, &o, &p), 0);
	assert_int_equal(verify(&p, &r), 0);
	assert_int_equal(r.phases, 31);
	assert_int_equal(r.lb_phases, 5);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

static void test_lower_broadcast(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 1, 4, 0, 0, 0);
	ir_plan p;
	ir_report r;
	build_line_bcast(&p, &m);
	assert_int_equal(verify(&p, &r), 0);
	ir_slice *s;
	assert_int_equal(ir_lower(&p, &s), 0);
	/* root: COPY, PHASE 0, SEND 2, WAIT, PHASE 1, SEND 1, WAIT */
	const ir_slice *z = &s[0];
	assert_int_equal(z->nops, 7);
	assert_int_equal(z->ops[0].code, IR_OP_COPY);
	assert_int_equal(z->ops[1].code, IR_OP_PHASE);
	assert_int_equal(z->ops[2].code, IR_OP_SEND);
	assert_int_equal(z->ops[2].peer, 2);
	assert_int_equal(z->iovs[z->ops[2].iov].buf, IR_BUF_SEND);
	assert_int_equal(z->ops[3].code, IR_OP_WAIT);
	assert_int_equal(z->send_bytes, 100);
	assert_int_equal(z->recv_bytes, 100);
	/* rank 2: receives into RECV, then forwards from RECV */
	const ir_slice *t = &s[2];
	assert_int_equal(t->ops[0].code, IR_OP_PHASE);
	assert_int_equal(t->ops[1].code, IR_OP_RECV);
	assert_int_equal(t->ops[1].peer, 0);
	assert_int_equal(t->iovs[t->ops[1].iov].buf, IR_BUF_RECV);
	assert_int_equal(t->ops[4].code, IR_OP_SEND);
	assert_int_equal(t->iovs[t->ops[4].iov].buf, IR_BUF_RECV);
	assert_int_equal(t->scratch_bytes, 0);
	ir_slices_free(s, m.nranks);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

static void test_lower_scratch_and_reduce(void **state)
{
	(void)state;
	/* gather through rank 1: rank 0's block sits in 1's scratch */
	ir_machine m = tu_machine(IR_MESH, 1, 2, 2, 0, 0);
	ir_comm g = {.coll = IR_GATHER, .root = 3, .bytes = 10};
	ir_plan p;
	ir_report r;
	ir_slice *s;
	ir_plan_init(&p, &m, &g, "hand");
	ir_plan_phase(&p);
	xfer(&p, 0, 1, 0, 0);
	ir_plan_phase(&p);
	ir_block two[2] = {{0, 0}, {1, 0}};
	ir_plan_add(&p, 1, 3, two, 2, 0);
	ir_plan_phase(&p);
	xfer(&p, 2, 3, 2, 0);
	assert_int_equal(verify(&p, &r), 0);
	assert_int_equal(ir_lower(&p, &s), 0);
	assert_int_equal(s[1].scratch_bytes, 10);
	/* rank 1 sends scratch[0..10) then its own SEND[0..10) */
	const ir_op *snd = &s[1].ops[s[1].nops - 2];
	assert_int_equal(snd->code, IR_OP_SEND);
	assert_int_equal(snd->niov, 2);
	assert_int_equal(s[1].iovs[snd->iov].buf, IR_BUF_SCRATCH);
	assert_int_equal(s[1].iovs[snd->iov + 1].buf, IR_BUF_SEND);
	/* the root receives both into RECV at 0 and 10: one merged iov */
	const ir_op *rcv = &s[3].ops[2];
	assert_int_equal(rcv->code, IR_OP_RECV);
	assert_int_equal(rcv->niov, 1);
	assert_int_equal(s[3].iovs[rcv->iov].off, 0);
	assert_int_equal(s[3].iovs[rcv->iov].len, 20);
	assert_int_equal(s[3].recv_bytes, 40);
	ir_slices_free(s, m.nranks);
	ir_report_fini(&r);
	ir_plan_fini(&p);
	/* reduce: partials combine into a scratch accumulator */
	ir_machine sw = tu_machine(IR_SWITCH, 1, 4, 0, 0, 0);
	build_reduce(&p, &sw);
	assert_int_equal(verify(&p, &r), 0);
	assert_int_equal(ir_lower(&p, &s), 0);
	assert_int_equal(s[2].scratch_bytes, 128); /* accumulator + 1 in */
	const ir_op *rr = &s[2].ops[2];
	assert_int_equal(rr->code, IR_OP_RECV_REDUCE);
	assert_int_equal(s[2].iovs[rr->iov].buf, IR_BUF_SCRATCH);
	assert_int_equal(s[2].iovs[rr->iov].off, 64);
	assert_int_equal(s[2].iovs[rr->iov + 1].off, 0);
	assert_int_equal(s[0].iovs[s[0].ops[0].iov + 1].buf, IR_BUF_RECV);
	ir_slices_free(s, sw.nranks);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_valid_broadcast),
	        cmocka_unit_test(test_causality),
	        cmocka_unit_test(test_delivery),
	        cmocka_unit_test(test_node_contention),
	        cmocka_unit_test(test_link_contention),
	        cmocka_unit_test(test_contention_allowed_is_measured),
	        cmocka_unit_test(test_contended_counted),
	        cmocka_unit_test(test_alltoall_hypercube_free),
	        cmocka_unit_test(test_duplicates_counted),
	        cmocka_unit_test(test_structure),
	        cmocka_unit_test(test_reduce),
	        cmocka_unit_test(test_reproducible),
	        cmocka_unit_test(test_allreduce_counts),
	        cmocka_unit_test(test_gather_transpose_irregular),
	        cmocka_unit_test(test_multicast),
	        cmocka_unit_test(test_multicast_no_replicating_router),
	        cmocka_unit_test(test_multicast_off_the_router),
	        cmocka_unit_test(test_multicast_different_blocks),
	        cmocka_unit_test(test_multicast_split_apart),
	        cmocka_unit_test(test_multicast_two_copies_on_a_link),
	        cmocka_unit_test(test_multicast_generators),
	        cmocka_unit_test(test_generators_verify),
	        cmocka_unit_test(test_node_degree_bound),
	        cmocka_unit_test(test_lower_broadcast),
	        cmocka_unit_test(test_lower_scratch_and_reduce),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
