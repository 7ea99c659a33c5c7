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

static void test_multicast(void **state)
{
	(void)state;
	/* one-port HPAM, 1x1 over 4x4: rank 0 is level 1; level-2 (x, y) is
	 * rank 1 + x + 4y.  Copies of one multicast count as one send, and
	 * links their routes share carry the message once. */
	ir_machine m = hpam_1x1_4x4();
	ir_comm c = bcast(0, 64, 1);
	ir_block b = {0, 0};
	int32_t col0[2] = {5, 9}, row0[4] = {1, 2, 3, 4};
	ir_plan p;
	ir_report r;
	for (int with = 0; with < 2; with++) {
		uint32_t f = with ? IR_XF_MCAST : 0;
		/* (0,1) and (0,2) below one column share the down-link */
		ir_plan_init(&p, &m, &c, "hand");
		ir_plan_phase(&p);
		for (int k = 0; k < 2; k++)
			ir_plan_add(&p, 0, col0[k], &b, 1, f);
		/* the plan is an incomplete broadcast: with multicast only
		 * delivery may fail, after the per-phase rules held */
		assert_int_equal(ir_verify(&p, &r), CCP_EVERIFY);
		if (with) {
			assert_non_null(strstr(r.message, "delivery:"));
			assert_int_equal(r.max_link_load, 1);
			assert_int_equal(r.max_node_sends, 1);
		} else {
			assert_non_null(strstr(r.message, "node: phase 0"));
		}
		ir_report_fini(&r);
		ir_plan_fini(&p);
		/* the whole top row at once: four copies, one send */
		ir_plan_init(&p, &m, &c, "hand");
		ir_plan_phase(&p);
		for (int k = 0; k < 4; k++)
			ir_plan_add(&p, 0, row0[k], &b, 1, f);
		assert_int_equal(ir_verify(&p, &r), CCP_EVERIFY);
		assert_non_null(strstr(r.message, with ? "delivery:"
		                                       : "rank 0 sends 4"));
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
	/* a multicast and an ordinary transfer on one link still contend */
	ir_plan_init(&p, &m, &c, "hand");
	p.machine.ports = IR_PORTS_ALL;
	ir_plan_phase(&p);
	ir_plan_add(&p, 0, 5, &b, 1, IR_XF_MCAST);
	ir_plan_add(&p, 0, 9, &b, 1, 0);
	assert_int_equal(ir_verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "link: phase 0"));
	ir_report_fini(&r);
	ir_plan_fini(&p);
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
	        cmocka_unit_test(test_gather_transpose_irregular),
	        cmocka_unit_test(test_multicast),
	        cmocka_unit_test(test_generators_verify),
	        cmocka_unit_test(test_lower_broadcast),
	        cmocka_unit_test(test_lower_scratch_and_reduce),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
