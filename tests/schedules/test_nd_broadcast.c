/*
 * test_nd_broadcast.c - the dimensional and recursive-doubling broadcasts
 * (dimensional, rd; schedules/baselines.c) on the machines of today:
 * meshes and tori of 4 to 8 dimensions, tori that wrap only some of
 * their dimensions, dimension orders other than x, y, z..., and nodes of
 * several ranks under both placements.
 *
 * Every plan must pass the verifier contention-free: no link carries two
 * transfers of a phase, one send and one receive per rank and phase, no
 * block delivered twice, and the network transfers of a node per phase
 * within its ports.  The phase counts are worked out here from the
 * machine, never read from the generators: dimensional takes
 * ceil(lg e) per extent e plus ceil(lg k) for k ranks per node; rd takes
 * ceil(lg N) on a mesh of N ranks, and on a torus ceil(lg e) per wrapped
 * dimension of 3 or more nodes plus ceil(lg(k * M)), M the product of
 * the other extents.
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
#include "sched.h"
#include "support.h"

/* A machine to build: extents, the wrapped dimensions (bit d; 0 makes a
 * mesh), the routing order (NULL: x, y, z...), ranks per node and their
 * placement, the ports of a rank and of a node. */
struct shape {
	int nd;
	int dims[IR_MAX_DIMS];
	unsigned wrap;
	const uint8_t *order;
	int rpn, placement, ports, node_ports;
};

static ir_machine build(const struct shape *s)
{
	return tu_grid(s->wrap ? IR_TORUS : IR_MESH, s->nd, s->dims, s->wrap,
	               s->order, s->rpn, (enum ir_placement)s->placement,
	               s->node_ports, s->ports);
}

static uint32_t lg(int64_t n)
{
	uint32_t k = 0;
	while ((INT64_C(1) << k) < n)
		k++;
	return k;
}

/* The phases each generator must take on m (see the file comment). */
static uint32_t want_phases(const char *gen, const ir_machine *m)
{
	int64_t k = m->ranks_per_node, rest = k;
	uint32_t n = 0;
	for (int d = 0; d < m->ndims; d++) {
		bool ring = (m->wrap >> d & 1u) && m->dims[d] >= 3;
		if (strcmp(gen, "dimensional") == 0 || ring)
			n += lg(m->dims[d]);
		else
			rest *= m->dims[d];
	}
	return n + lg(strcmp(gen, "dimensional") == 0 ? k : rest);
}

/* Generate with gen, which must apply, verify contention-free, and
 * check the phase count; the plan is released. */
static void check(const char *gen, const struct shape *s, int32_t root)
{
	const struct sch_generator *g = sch_find(gen);
	ir_machine m = build(s);
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	c.root = root % m.nranks;
	c.bytes = 64;
	c.segments = 1;
	char why[256] = "", desc[128];
	sch_describe(&m, desc, sizeof desc);
	int rc = sch_applies(g, &m, &c, why, sizeof why);
	if (rc)
		print_message("  %s on %s: %s\n", gen, desc, why);
	assert_int_equal(rc, 0);
	struct sch_options o = {0};
	ir_plan p;
	assert_int_equal(g->generate(&m, &c, &o, &p), 0);
	assert_int_equal(p.flags, 0);
	ir_report r;
	memset(&r, 0, sizeof r);
	rc = ir_verify(&p, &r);
	if (rc || r.phases != want_phases(gen, &m))
		print_message("  %s on %s, root %d: %s, %u phases (want %u)\n",
		              gen, desc, (int)c.root, r.message, r.phases,
		              want_phases(gen, &m));
	assert_int_equal(rc, 0);
	assert_true(r.ok);
	assert_true(r.max_link_load <= 1);
	assert_true(r.max_node_sends <= 1);
	assert_true(r.max_node_recvs <= 1);
	assert_int_equal(r.duplicates, 0);
	assert_int_equal(r.transfers, (uint64_t)m.nranks - 1);
	if (ir_machine_has_nodes(&m)) {
		uint32_t net = strcmp(gen, "rd") == 0 ? 2 : 1;
		assert_true(r.max_net_sends <= net);
		assert_true(r.max_net_recvs <= net);
		assert_true(r.shm_transfers > 0);
	}
	assert_int_equal(r.phases, want_phases(gen, &m));
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

static void check_both(const struct shape *s, int32_t root)
{
	check("dimensional", s, root);
	check("rd", s, root);
}

static const uint8_t reversed[8] = {7, 6, 5, 4, 3, 2, 1, 0};
static const uint8_t mixed[8] = {2, 0, 5, 1, 7, 3, 6, 4};

/* Meshes of 4 to 8 dimensions, several sizes and roots, in the default
 * order, reversed, and mixed. */
static void test_meshes(void **state)
{
	(void)state;
	static const int ext[][8] = {
	        {2, 2, 2, 2, 1, 1, 1, 1}, {3, 4, 5, 2, 1, 1, 1, 1},
	        {5, 3, 2, 3, 2, 1, 1, 1}, {2, 3, 2, 3, 2, 3, 1, 1},
	        {3, 2, 2, 4, 2, 3, 2, 1}, {2, 2, 3, 2, 2, 3, 2, 2},
	};
	static const int nds[] = {4, 4, 5, 6, 7, 8};
	for (size_t i = 0; i < sizeof nds / sizeof nds[0]; i++) {
		struct shape s = {.nd = nds[i], .rpn = 1, .ports = 1};
		memcpy(s.dims, ext[i], sizeof s.dims);
		const uint8_t *orders[3] = {NULL, NULL, NULL};
		uint8_t rev[8], mix[8];
		/* the reversed and mixed orders restricted to nd dims */
		for (int d = 0, a = 0, b = 0; d < 8; d++) {
			if (reversed[d] < s.nd)
				rev[a++] = reversed[d];
			if (mixed[d] < s.nd)
				mix[b++] = mixed[d];
		}
		orders[1] = rev;
		orders[2] = mix;
		for (int o = 0; o < 3; o++) {
			s.order = orders[o];
			for (int32_t root = 0; root < 200; root += 37)
				check_both(&s, root);
		}
	}
}

/* Tori wrapping every dimension, some, and one; rings of 2 and 3 among
 * them (a ring of 2 routes as a mesh line, a ring of 3 does not). */
static void test_tori(void **state)
{
	(void)state;
	static const struct {
		int nd, dims[8];
		unsigned wrap;
	} t[] = {
	        {4, {4, 3, 5, 2}, 0xf},
	        {4, {5, 3, 4, 3}, 0x5},
	        {5, {3, 4, 3, 2, 3}, 0x1a},
	        {5, {6, 2, 3, 2, 2}, 0x1f},
	        {6, {6, 5, 6, 2, 3, 2}, 0x17},
	        {6, {3, 3, 3, 3, 3, 3}, 0x2a},
	        {7, {2, 3, 2, 3, 2, 3, 2}, 0x55},
	        {8, {3, 2, 2, 3, 2, 2, 3, 2}, 0x81},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct shape s = {
		        .nd = t[i].nd, .wrap = t[i].wrap, .rpn = 1, .ports = 1};
		memcpy(s.dims, t[i].dims, sizeof s.dims);
		uint8_t rev[8], mix[8];
		for (int d = 0, a = 0, b = 0; d < 8; d++) {
			if (reversed[d] < s.nd)
				rev[a++] = reversed[d];
			if (mixed[d] < s.nd)
				mix[b++] = mixed[d];
		}
		const uint8_t *orders[3] = {NULL, rev, mix};
		for (int o = 0; o < 3; o++) {
			s.order = orders[o];
			for (int32_t root = 0; root < 2000; root += 331)
				check_both(&s, root);
		}
	}
}

/* Nodes of 2 to 6 ranks, block and cyclic, on meshes and tori of 4 to 6
 * dimensions; all-port ranks and nodes of 2 ports. */
static void test_nodes(void **state)
{
	(void)state;
	static const struct {
		int nd, dims[8];
		unsigned wrap;
		int rpn;
	} t[] = {
	        {4, {3, 2, 2, 3}, 0, 2},       {4, {4, 3, 2, 2}, 0xb, 4},
	        {5, {3, 2, 3, 2, 2}, 0x15, 3}, {6, {4, 3, 4, 2, 3, 2}, 0x17, 4},
	        {6, {2, 2, 2, 2, 2, 2}, 0, 6},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		for (int v = 0; v < 4; v++) {
			struct shape s = {.nd = t[i].nd,
			                  .wrap = t[i].wrap,
			                  .rpn = t[i].rpn,
			                  .placement = v & 1,
			                  .ports = v & 2 ? IR_PORTS_ALL : 1,
			                  .node_ports = v & 2 ? 0 : 2,
			                  .order = v == 3 ? mixed : NULL};
			uint8_t mix[8];
			for (int d = 0, b = 0; d < 8; d++)
				if (mixed[d] < s.nd)
					mix[b++] = mixed[d];
			if (v == 3)
				s.order = mix;
			memcpy(s.dims, t[i].dims, sizeof s.dims);
			for (int32_t root = 0; root < 1500; root += 257)
				check_both(&s, root);
		}
	}
}

/* Worked by hand on a 2x2x2x2 mesh (rank x + 2y + 4z + 8a), root 0: the
 * first transfer of both runs along the dimension routed first, to rank
 * 1 in the order x, y, z, a and to rank 8 in the order a, z, y, x. */
static void test_first_dimension(void **state)
{
	(void)state;
	const char *gens[2] = {"dimensional", "rd"};
	struct shape s = {.nd = 4, .dims = {2, 2, 2, 2}, .rpn = 1, .ports = 1};
	for (int i = 0; i < 2; i++) {
		for (int o = 0; o < 2; o++) {
			s.order = o ? reversed + 4 : NULL;
			ir_machine m = build(&s);
			ir_comm c;
			memset(&c, 0, sizeof c);
			c.coll = IR_BCAST;
			c.bytes = 8;
			c.segments = 1;
			struct sch_options opt = {0};
			ir_plan p;
			assert_int_equal(
			        sch_find(gens[i])->generate(&m, &c, &opt, &p),
			        0);
			assert_int_equal(p.phases[0].ntransfers, 1);
			assert_int_equal(p.transfers[0].src, 0);
			assert_int_equal(p.transfers[0].dst, o ? 8 : 1);
			ir_plan_fini(&p);
		}
	}
}

/* Where they refuse: rd on nodes with one network port (a node may send
 * to both chain neighbours in a phase), both on a lone node under
 * ports: all (its ranks have no port). */
static void test_refusals(void **state)
{
	(void)state;
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	c.bytes = 8;
	c.segments = 1;
	char why[256];
	struct shape s = {.nd = 4,
	                  .dims = {3, 2, 2, 2},
	                  .rpn = 4,
	                  .ports = 1,
	                  .node_ports = 1};
	ir_machine m = build(&s);
	assert_int_equal(sch_applies(sch_find("rd"), &m, &c, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "node_ports of at least 2"));
	assert_int_equal(
	        sch_applies(sch_find("dimensional"), &m, &c, why, sizeof why),
	        0);
	check("dimensional", &s, 5);
	/* why: on a 5x3 mesh of 2-rank nodes from rank 6, a node of rd's
	 * plan sends to the nodes on both sides of it in one phase */
	struct shape two = {
	        .nd = 2, .dims = {5, 3}, .rpn = 2, .ports = 1, .node_ports = 2};
	ir_machine m2 = build(&two);
	ir_plan p;
	ir_report r;
	struct sch_options o = {0};
	c.root = 6;
	assert_int_equal(sch_find("rd")->generate(&m2, &c, &o, &p), 0);
	memset(&r, 0, sizeof r);
	assert_int_equal(ir_verify(&p, &r), 0);
	assert_int_equal(r.max_net_sends, 2);
	ir_report_fini(&r);
	ir_plan_fini(&p);
	c.root = 0;
	struct shape one = {
	        .nd = 1, .dims = {1}, .rpn = 4, .ports = IR_PORTS_ALL};
	m = build(&one);
	assert_int_equal(
	        sch_applies(sch_find("dimensional"), &m, &c, why, sizeof why),
	        CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "no network link"));
	one.ports = 1;
	check_both(&one, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_meshes),
	        cmocka_unit_test(test_tori),
	        cmocka_unit_test(test_nodes),
	        cmocka_unit_test(test_first_dimension),
	        cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
