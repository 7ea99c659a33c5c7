/*
 * test_hierarchical.c - the node-aware collectives
 * (schedules/hierarchical.c) on machines whose nodes hold several ranks:
 * a 4x4 mesh of 4-rank nodes placed block and cyclic, a 2x2x2 torus of
 * 2-rank nodes, the 6-D Tofu shape 2x3x2x2x3x2 (x, y, z and b wrap) of
 * 4-rank nodes and a switch of 8 nodes of 6 ranks, each with one port
 * (per rank and per node) and with all ports.
 *
 * Every plan must pass the verifier without contention, keep its network
 * transfers within the node's ports, and have the phases the generator
 * states: ceil(lg k) inside nodes before the network step (reduce,
 * gather, allreduce, allgather) and after it (broadcast, allreduce,
 * allgather), plus P for the plan among node leaders, whose value for
 * each machine is worked out in the table below.  Each intra-node sweep
 * is k - 1 shared-memory transfers a node.  A machine of one rank per
 * node is refused with the reason.
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
#include "model.h"
#include "sched.h"
#include "support.h"

/* ceil(lg n) */
static uint32_t clg(int32_t n)
{
	uint32_t l = 0;
	while ((INT64_C(1) << l) < n)
		l++;
	return l;
}

/* A checked machine: topology, nd extents, wrap mask (0: the default),
 * ranks per node, placement, and ports (per rank and per node). */
static ir_machine nodes(enum ir_topo topo, int nd, const int *dims,
                        unsigned wrap, int rpn, enum ir_placement pl, int ports)
{
	return tu_grid(topo, nd, dims, wrap, NULL, rpn, pl, ports, ports);
}

static ir_comm coll(enum ir_coll c, int32_t root)
{
	ir_comm x = tu_comm(c, root, 64);
	if (ir_coll_kind(c) & IR_CK_REDUCES) {
		x.dtype = IR_DT_INT32;
		x.op = IR_OP_SUM;
	}
	return x;
}

/* Generate, verify, check the network part and the intra-node sweeps;
 * returns the phases. */
static uint32_t make(const ir_machine *m, const ir_comm *c)
{
	const struct sch_generator *g = &sch_hierarchical;
	char why[256] = "";
	struct sch_options o = {0};
	ir_plan p;
	ir_report r;
	int rc = sch_applies(g, m, c, why, sizeof why);
	if (rc)
		print_message("applies: %s\n", why);
	assert_int_equal(rc, 0);
	assert_int_equal(g->generate(m, c, &o, &p), 0);
	rc = ir_verify(&p, &r);
	if (rc)
		print_message("verify: %s\n", r.message);
	assert_int_equal(rc, 0);
	assert_int_equal(p.flags, 0); /* no contention allowed, none made */
	if (p.nphases)
		assert_true(r.max_link_load <= 1);
	int np = m->node_ports;
	if (np != IR_PORTS_ALL) {
		assert_true(r.max_net_sends <= (uint32_t)np);
		assert_true(r.max_net_recvs <= (uint32_t)np);
	}
	bool up = c->coll != IR_BCAST;
	bool down =
	        !(ir_coll_kind(c->coll) & IR_CK_ROOTED) || c->coll == IR_BCAST;
	uint64_t sweeps = (uint64_t)up + (uint64_t)down;
	assert_int_equal(r.shm_transfers, sweeps * (uint64_t)m->nnodes *
	                                          (m->ranks_per_node - 1));
	uint32_t n = p.nphases;
	ir_report_fini(&r);
	ir_plan_fini(&p);
	return n;
}

/* The machines, and P (the phases among node leaders) for broadcast,
 * reduce, gather, allreduce and allgather, one port and all ports. */
struct tcase {
	const char *what;
	enum ir_topo topo;
	int nd, dims[6];
	unsigned wrap;
	int rpn;
	enum ir_placement pl;
	uint32_t P[2][5]; /* [one port, all ports][coll] */
};

static const enum ir_coll colls[5] = {IR_BCAST, IR_REDUCE, IR_GATHER,
                                      IR_ALLREDUCE, IR_ALLGATHER};

/*
 * P, one port: binomial's halving, lg 16 = 4 on the 4x4 mesh, 3 on the
 * 2x2x2 torus, 1+2+1+1+2+1 = 8 on the Tofu shape (a side of 3 takes 2),
 * 3 on the switch of 8 nodes; gather goes up the same tree.  Allreduce:
 * the binomial reduce and broadcast (2P), except on the 2x2x2 torus and
 * the switch, where recursive doubling is contention-free (3).
 * Allgather: the bucket (3 + 3) on the 4x4 mesh, recursive doubling (3)
 * on the torus and the switch, and the gather then broadcast of every
 * block on the Tofu shape (8 + 8).
 * All ports: the dimensional broadcast on the 4x4 mesh (3, every rank
 * sending on all its links); on the torus and switch the one-port
 * numbers (their candidates gain nothing from more ports here, or the
 * switch's direct broadcasts need more phases than lg); EDN reduce and
 * gather on the 4x4 mesh (3); the rest as with one port.
 */
static const struct tcase cases[] = {
        {"mesh 4x4 block",
         IR_MESH,
         2,
         {4, 4},
         0,
         4,
         IR_PLACE_BLOCK,
         {{4, 4, 4, 8, 6}, {3, 3, 3, 8, 6}}},
        {"mesh 4x4 cyclic",
         IR_MESH,
         2,
         {4, 4},
         0,
         4,
         IR_PLACE_CYCLIC,
         {{4, 4, 4, 8, 6}, {3, 3, 3, 8, 6}}},
        {"torus 2x2x2",
         IR_TORUS,
         3,
         {2, 2, 2},
         0,
         2,
         IR_PLACE_BLOCK,
         {{3, 3, 3, 3, 3}, {3, 3, 3, 3, 3}}},
        {"tofu 2x3x2x2x3x2",
         IR_TORUS,
         6,
         {2, 3, 2, 2, 3, 2},
         0x17u,
         4,
         IR_PLACE_BLOCK,
         {{8, 8, 8, 16, 8}, {8, 8, 8, 16, 8}}},
        {"switch 8x6",
         IR_SWITCH,
         1,
         {8},
         0,
         6,
         IR_PLACE_BLOCK,
         {{3, 3, 3, 3, 3}, {3, 3, 3, 3, 3}}},
};

static void test_phases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct tcase *t = &cases[i];
		for (int all = 0; all < 2; all++) {
			ir_machine m =
			        nodes(t->topo, t->nd, t->dims, t->wrap, t->rpn,
			              t->pl, all ? IR_PORTS_ALL : 1);
			uint32_t L = clg(t->rpn);
			for (int j = 0; j < 5; j++) {
				enum ir_coll k = colls[j];
				/* a root that is not its node's first rank */
				ir_comm c = coll(k, ir_node_rank(&m, 1, 1));
				bool up = k != IR_BCAST;
				bool down = k == IR_BCAST ||
				            k == IR_ALLREDUCE ||
				            k == IR_ALLGATHER;
				uint32_t want = (up ? L : 0) + t->P[all][j] +
				                (down ? L : 0);
				uint32_t got = make(&m, &c);
				if (got != want)
					print_message(
					        "%s, %s ports, %s: %u "
					        "phases, want %u\n",
					        t->what, all ? "all" : "1",
					        ir_coll_name(k), got, want);
				assert_int_equal(got, want);
			}
		}
	}
}

/* A broadcast's segments carry through every step, and a reproducible
 * allreduce stays reproducible (the plan among nodes chooses its element
 * blocks: the binomial reduce and broadcast take one). */
static void test_segments_reproducible(void **state)
{
	(void)state;
	const int d[2] = {4, 4};
	ir_machine m = nodes(IR_MESH, 2, d, 0, 4, IR_PLACE_CYCLIC, 1);
	ir_comm b = coll(IR_BCAST, 7);
	b.segments = 3;
	ir_comm a = coll(IR_ALLREDUCE, 0);
	a.bytes = 4000;
	a.segments = 5;
	a.reproducible = true;
	for (int k = 0; k < 2; k++) {
		ir_plan p;
		ir_report r;
		struct sch_options o = {0};
		const ir_comm *c = k ? &a : &b;
		assert_int_equal(sch_hierarchical.generate(&m, c, &o, &p), 0);
		assert_int_equal(p.comm.segments, k ? 1 : 3);
		assert_int_equal(ir_verify(&p, &r), 0);
		assert_true(r.reproducible);
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
}

/* A 4x4 torus of 4-rank nodes, one port a rank, np network ports a
 * node, the Tofu-D costs (alpha = tau, beta = phi, shm_beta; the preset
 * leaves shm_alpha unset, sa gives one when above 0). */
static ir_machine tofu_torus(int np, double sa)
{
	const int d[2] = {4, 4};
	ir_machine m = nodes(IR_TORUS, 2, d, 0, 4, IR_PLACE_BLOCK, 1);
	m.node_ports = np;
	if (sa > 0)
		m.cost.shm_alpha = sa;
	assert_int_equal(model_preset_apply(&m.cost, "tofu-d"), 0);
	return m;
}

/* Generate c on m, check it as make does, and return its predicted time
 * (the permutation model, shared-memory part included), its phases and
 * the most network transfers a node sends in a phase. */
static double timed(const ir_machine *m, const ir_comm *c, uint32_t *phases,
                    uint32_t *net)
{
	ir_plan p;
	ir_report r;
	struct sch_options o = {0};
	char err[160];
	double us = -1;
	assert_int_equal(sch_hierarchical.generate(m, c, &o, &p), 0);
	int rc = ir_verify(&p, &r);
	if (rc)
		print_message("verify: %s\n", r.message);
	assert_int_equal(rc, 0);
	assert_int_equal(p.flags, 0);
	assert_true(r.max_link_load <= 1);
	assert_true(r.max_net_sends <= (uint32_t)m->node_ports);
	assert_true(r.max_net_recvs <= (uint32_t)m->node_ports);
	assert_int_equal(model_predict(&p, &r, MODEL_PERMUTATION, &us, NULL,
	                               err, sizeof err),
	                 0);
	*phases = p.nphases;
	*net = r.max_net_sends;
	ir_report_fini(&r);
	ir_plan_fini(&p);
	return us;
}

/* Several leaders a node: with 4 network ports a node and a large
 * message, the lanes of leaders 0 .. L-1 (each its own symmetry of the
 * torus, one port each) carry a part of the data each, so a node sends
 * more than one network transfer in some phase and the predicted time
 * drops below one leader's (the same machine with one network port a
 * node, where only one leader fits): a broadcast of 64 KiB in 2 lanes (a
 * binomial tree and its transpose; the reversed trees would share
 * links), an allreduce of 1 MiB in 4 (the dimension-wise rings both
 * ways along x and y).  Never dearer.  For a small broadcast or reduce
 * on nodes whose memory has a start-up (shm_alpha 0.3 us), the phase the
 * leaders add inside nodes costs more than halving the bytes saves, and
 * the generator keeps one leader: the same phases and time as with one
 * port.  (The other collectives' leaders add no phase: the trees up to
 * and down from L leaders are shorter by the phases the leaders take to
 * trade their parts, so halving the bytes wins even at 64 B.)
 * One leader alone chooses among nodes by the costs too: for 1 MiB the
 * broadcast and the allreduce that cut the message (scatter_allgather,
 * 4 + 15 phases; bucket, 2 (3 + 3)) beat the whole message in the
 * 4 phases of binomial's tree and the 2 x 4 of its reduce and broadcast.
 * Every collective, and a broadcast and a reduce from many roots, verify:
 * their data delivered, a reduction's contributions combined once each. */
static void test_several_leaders(void **state)
{
	(void)state;
	static const int64_t sizes[3] = {64, 65536, 1 << 20};
	const double whole = (1 << 20) / 6800.0; /* 1 MiB over a link */
	for (int j = 0; j < 5; j++) {
		for (int z = 0; z < 3; z++) {
			double sa = z ? 0 : 0.3;
			ir_machine one = tofu_torus(1, sa), four = tofu_torus(4, sa);
			ir_comm c = coll(colls[j], ir_node_rank(&four, 5, 2));
			c.bytes = sizes[z];
			uint32_t p1, p4, n1, n4;
			double t1 = timed(&one, &c, &p1, &n1);
			double t4 = timed(&four, &c, &p4, &n4);
			print_message("%s %lld B: one leader %u phases %.1f us, "
			              "up to 4 leaders %u phases %.1f us, "
			              "%u network sends a node\n",
			              ir_coll_name(colls[j]),
			              (long long)c.bytes, p1, t1, p4, t4, n4);
			assert_int_equal(n1, 1);
			assert_true(t4 <= t1);
			bool bc = colls[j] == IR_BCAST;
			bool ar = colls[j] == IR_ALLREDUCE;
			if (z == 0 && (bc || colls[j] == IR_REDUCE)) {
				assert_int_equal(n4, 1);
				assert_int_equal(p4, p1);
				assert_true(t4 == t1);
			}
			if (z == 1 && bc) {
				assert_int_equal(n4, 2);
				assert_true(t4 < 0.85 * t1);
			}
			if (z == 2 && bc) {
				assert_int_equal(p1, 4 + 15 + 2);
				assert_true(t1 < 4 * whole);
			}
			if (z == 2 && ar) {
				assert_int_equal(n4, 4);
				assert_true(t4 < 0.4 * t1);
				assert_int_equal(p1, 2 + 12 + 2);
				assert_true(t1 < 8 * whole);
			}
		}
	}
	/* many roots */
	ir_machine four = tofu_torus(4, 0);
	for (int32_t r = 0; r < four.nranks; r += 3) {
		ir_comm b = coll(IR_BCAST, r), g = coll(IR_REDUCE, r);
		b.bytes = g.bytes = 1 << 16;
		uint32_t ph, n;
		timed(&four, &b, &ph, &n);
		timed(&four, &g, &ph, &n);
	}
	/* cyclic placement, a reproducible allreduce, and a broadcast
	 * whose 4 given segments the 2 lanes share (cut for 4 lanes first,
	 * then again for the 2 that fit) */
	four.placement = IR_PLACE_CYCLIC;
	for (int j = 0; j < 5; j++) {
		ir_comm c = coll(colls[j], 9);
		c.bytes = 1 << 16;
		c.reproducible = colls[j] == IR_ALLREDUCE;
		c.segments = colls[j] == IR_BCAST ? 4 : 0;
		uint32_t ph, n;
		timed(&four, &c, &ph, &n);
		assert_true(n > 1); /* several leaders took it */
	}
}

/* One rank per node: refused, and said why. */
static void test_refused(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 1, 4, 4, 0, 0);
	ir_comm c = coll(IR_BCAST, 0);
	char why[256];
	assert_int_equal(
	        sch_applies(&sch_hierarchical, &m, &c, why, sizeof why),
	        CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "one rank per node"));
	/* nor a collective it does not take */
	const int d[2] = {2, 2};
	ir_machine n = nodes(IR_MESH, 2, d, 0, 2, IR_PLACE_BLOCK, 1);
	/* one node of all-port ranks: no link, so no port */
	const int one[1] = {1};
	ir_machine lone =
	        nodes(IR_MESH, 1, one, 0, 4, IR_PLACE_BLOCK, IR_PORTS_ALL);
	assert_int_equal(
	        sch_applies(&sch_hierarchical, &lone, &c, why, sizeof why),
	        CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "no network link"));
	/* with a port each, its one node is the whole plan: 2 + 2 phases */
	lone = nodes(IR_MESH, 1, one, 0, 4, IR_PLACE_BLOCK, 1);
	ir_comm ar = coll(IR_ALLREDUCE, 0);
	assert_int_equal(make(&lone, &ar), 4);
	ir_comm s = coll(IR_SCATTER, 0);
	assert_int_equal(
	        sch_applies(&sch_hierarchical, &n, &s, why, sizeof why),
	        CCP_ENOTAPPLY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_phases),
	        cmocka_unit_test(test_segments_reproducible),
	        cmocka_unit_test(test_refused),
	        cmocka_unit_test(test_several_leaders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
