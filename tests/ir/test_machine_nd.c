/*
 * test_machine_nd.c - the machines of issue 18 (ir/machine.c, ir/verify.c):
 * meshes and tori of up to 8 dimensions with wraparound set per
 * dimension, a dimension order given by the input, and nodes of several
 * ranks with their placement and network ports.  Routes are compared
 * with link sequences worked out by hand (the arithmetic is in the
 * comments); every route of small machines is checked for chaining and
 * minimality; the verifier's node-port rule is broken once and its
 * shared-memory transfers are accepted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec.h"
#include "ir.h"
#include "support.h"

#define MAX_PATH 256

/* A checked mesh or torus of nd extents dims[], wrap mask (0: the
 * topology's default), order (NULL: x, y, z...), rpn ranks per node. */
static ir_machine grid(enum ir_topo topo, int nd, const int *dims,
                       unsigned wrap, const uint8_t *order, int rpn)
{
	return tu_grid(topo, nd, dims, wrap, order, rpn, IR_PLACE_BLOCK,
	               IR_PORTS_ALL, IR_PORTS_ALL);
}

/* The Tofu-D shape of Fugaku: X, Y, Z and B wrap, A and C do not. */
static const int tofu[6] = {24, 23, 24, 2, 3, 2};
#define TOFU_WRAP 0x17u /* x y z b */

static void expect_links(const ir_machine *m, int32_t s, int32_t d,
                         const uint64_t *want, int n)
{
	uint64_t got[MAX_PATH];
	int h = ir_route(m, s, d, got);

	assert_int_equal(h, n);
	for (int i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

static void test_tofu_shape(void **state)
{
	(void)state;
	ir_machine m = grid(IR_TORUS, 6, tofu, TOFU_WRAP, NULL, 1);
	assert_int_equal(m.nranks, 158976);
	assert_int_equal(m.nnodes, 158976);
	assert_false(ir_machine_is_classic(&m));
	/* x, y, z, b wrap: 2 links each; a and c (extent 2) one each */
	assert_int_equal(ir_degree(&m, 0), 2 + 2 + 2 + 1 + 2 + 1);
	/* 12 + 11 + 12 + 1 + 1 + 1 */
	assert_int_equal(ir_route_max(&m), 38);
	assert_int_equal(ir_nlinks(&m), (uint64_t)158976 * 12);
	int c[IR_MAX_CUBE_DIM];
	/* 23 + 24*(0 + 23*(0 + 24*(1 + 2*(2 + 3*1)))) = 145751 */
	ir_coords(&m, 145751, c);
	assert_int_equal(c[0], 23);
	assert_int_equal(c[3], 1);
	assert_int_equal(c[4], 2);
	assert_int_equal(c[5], 1);
	assert_int_equal(ir_rank_of(&m, c), 145751);
}

static void test_tofu_route(void **state)
{
	(void)state;
	ir_machine m = grid(IR_TORUS, 6, tofu, TOFU_WRAP, NULL, 1);
	/* (0,0,0,0,0,0) -> (23,0,0,1,2,1), 12 link ids per node:
	 *   x wraps, 23 forward against 1 back: the - link of node 0 = 1,
	 *     to node 23;
	 *   a is open: + link 2*3 = 6 of node 23 = 282, to 23 + 13248;
	 *   b wraps, 2 forward against 1 back: - link 2*4+1 = 9 of node
	 *     13271 = 159261, to 13271 + 2*26496 = 66263;
	 *   c is open: + link 10 of 66263 = 795166, to 66263 + 79488. */
	const uint64_t want[] = {1, 282, 159261, 795166};
	expect_links(&m, 0, 145751, want, 4);
	/* the same machine with every dimension open walks x the long way
	 * (23 hops of the + link) and b two hops forward */
	ir_machine open = grid(IR_MESH, 6, tofu, 0, NULL, 1);
	uint64_t links[MAX_PATH];
	assert_int_equal(ir_route(&open, 0, 145751, links), 23 + 1 + 2 + 1);
	assert_int_equal(links[0], 0);
}

static void test_order(void **state)
{
	(void)state;
	static const int d4[3] = {4, 4, 4};
	static const uint8_t zxy[3] = {2, 0, 1};
	ir_machine m = grid(IR_MESH, 3, d4, 0, zxy, 1);
	/* (0,0,0) -> (1,1,1) = rank 21, 6 link ids per node: z first (+ link
	 * 4 of node 0, to 16), then x (+ link 0 of 16 = 96, to 17), then y
	 * (+ link 2 of 17 = 104, to 21). */
	const uint64_t want[] = {4, 96, 104};
	expect_links(&m, 0, 21, want, 3);
	assert_false(ir_machine_is_classic(&m));
	ir_machine xyz = grid(IR_MESH, 3, d4, 0, NULL, 1);
	assert_true(ir_machine_is_classic(&xyz));
	const uint64_t plain[] = {0, 6 + 2, 5 * 6 + 4};
	expect_links(&xyz, 0, 21, plain, 3);
}

static void test_mixed_wrap_degree(void **state)
{
	(void)state;
	static const int d33[2] = {3, 3};
	ir_machine m = grid(IR_TORUS, 2, d33, 1u, NULL, 1); /* x wraps */
	assert_int_equal(ir_degree(&m, 0), 3); /* corner: 2 in x, 1 in y */
	assert_int_equal(ir_degree(&m, 4), 4);
	assert_int_equal(ir_route_max(&m), 1 + 2);
	/* (0,0) -> (2,2): x back round the ring (1 hop), y 2 hops */
	uint64_t links[MAX_PATH];
	assert_int_equal(ir_route(&m, 0, 8, links), 3);
	assert_int_equal(links[0], 1); /* the - link of node 0 */
	int32_t f, t;
	assert_int_equal(ir_link_ends(&m, 1, &f, &t), 0);
	assert_int_equal(t, 2);
	/* y is open: the - link of row 0 does not exist */
	assert_int_equal(ir_link_ends(&m, 3, &f, &t), CCP_EINVAL);
}

/* Every route of small n-D machines chains link to link, ends where it
 * should, and is as short as the minimal direction allows. */
static void test_all_routes(void **state)
{
	(void)state;
	static const int d5[5] = {3, 2, 4, 1, 3};
	static const uint8_t ord[5] = {4, 2, 0, 3, 1};
	ir_machine ms[3] = {
	        grid(IR_TORUS, 5, d5, 0x15u, ord, 1),
	        grid(IR_MESH, 5, d5, 0, NULL, 1),
	        grid(IR_TORUS, 5, d5, 0, ord, 1),
	};
	for (int i = 0; i < 3; i++) {
		const ir_machine *m = &ms[i];
		for (int32_t s = 0; s < m->nranks; s++)
			for (int32_t d = 0; d < m->nranks; d++) {
				uint64_t links[MAX_PATH];
				int h = ir_route(m, s, d, links), want = 0;
				int32_t at = s, a = s, b = d;
				for (int k = 0; k < m->ndims; k++) {
					int e = m->dims[k], x = a % e, y = b % e;
					int f = ((y - x) % e + e) % e;
					a /= e;
					b /= e;
					want += m->wrap >> k & 1u
					                ? (f < e - f ? f : e - f)
					                : abs(x - y);
				}
				assert_int_equal(h, want);
				assert_true(h <= ir_route_max(m));
				for (int j = 0; j < h; j++) {
					int32_t f = -1, t = -1;
					assert_int_equal(
					        ir_link_ends(m, links[j], &f, &t),
					        0);
					assert_int_equal(f, at);
					at = t;
				}
				assert_int_equal(at, d);
			}
	}
}

static void test_nodes(void **state)
{
	(void)state;
	static const int d22[2] = {2, 2};
	ir_machine b = grid(IR_MESH, 2, d22, 0, NULL, 3);
	assert_int_equal(b.nranks, 12);
	assert_int_equal(b.nnodes, 4);
	assert_true(ir_machine_has_nodes(&b));
	assert_int_equal(ir_node_of(&b, 5), 1);
	assert_int_equal(ir_node_rank(&b, 1, 2), 5);
	uint64_t links[MAX_PATH];
	/* ranks 0 and 2 share node 0: no link */
	assert_int_equal(ir_route(&b, 0, 2, links), 0);
	/* rank 3 is on node 1, +x of node 0: link 0 */
	assert_int_equal(ir_route(&b, 2, 3, links), 1);
	assert_int_equal(links[0], 0);
	/* node degree, whichever rank asks */
	assert_int_equal(ir_degree(&b, 11), 2);

	ir_machine c = b;
	c.placement = IR_PLACE_CYCLIC;
	char err[160];
	assert_int_equal(ir_machine_check(&c, err, sizeof err), 0);
	/* rank r on node r mod 4 */
	assert_int_equal(ir_node_of(&c, 5), 1);
	assert_int_equal(ir_node_of(&c, 11), 3);
	assert_int_equal(ir_node_rank(&c, 3, 2), 11);
	for (int32_t r = 0; r < c.nranks; r++) {
		int32_t n = ir_node_of(&c, r);
		assert_int_equal(ir_node_rank(&c, n, r / c.nnodes), r);
		assert_int_equal(ir_node_rank(&b, ir_node_of(&b, r),
		                              r % b.ranks_per_node),
		                 r);
	}
	/* ranks 0 and 4 share node 0 under cyclic */
	assert_int_equal(ir_route(&c, 0, 4, links), 0);
	int co[IR_MAX_CUBE_DIM];
	ir_coords(&c, 7, co); /* node 3 = (1,1) */
	assert_int_equal(co[0], 1);
	assert_int_equal(co[1], 1);
	assert_int_equal(ir_rank_of(&c, co), 3); /* its first rank */
}

static void test_check_rejects(void **state)
{
	(void)state;
	static const struct {
		enum ir_topo topo;
		int nd;
		unsigned wrap;
		uint8_t order[3];
		int rpn;
		int node_ports;
		const char *want;
	} bad[] = {
	        {IR_MESH, 2, 1u, {0}, 1, 0, "wrap must be 0 on a mesh"},
	        {IR_TORUS, 2, 4u, {0}, 1, 0, "wrap 0x4 names a dimension"},
	        {IR_MESH, 3, 0, {0, 0, 1}, 1, 0, "order must list each"},
	        {IR_MESH, 2, 0, {1, 2}, 1, 0, "order must list each"},
	        {IR_MESH, 2, 0, {0}, -2, 0, "ranks_per_node must be >= 1"},
	        {IR_MESH, 2, 0, {0}, 2, -1, "node_ports must be"},
	        {IR_MESH, 9, 0, {0}, 1, 0, "ndims must be 1..8"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ir_machine m;
		char err[160];
		memset(&m, 0, sizeof m);
		m.topo = bad[i].topo;
		m.routing = IR_ROUTE_DIM_ORDER;
		m.ndims = bad[i].nd;
		for (int d = 0; d < IR_MAX_DIMS; d++)
			m.dims[d] = d < bad[i].nd ? 3 : 1;
		m.wrap = bad[i].wrap;
		memcpy(m.order, bad[i].order, 3);
		m.ranks_per_node = bad[i].rpn;
		m.node_ports = bad[i].node_ports;
		assert_int_equal(ir_machine_check(&m, err, sizeof err),
		                 CCP_EINVAL);
		if (!strstr(err, bad[i].want))
			fail_msg("case %zu: got '%s', want '%s'", i, err,
			         bad[i].want);
	}
}

/* A plan of one phase on a machine of two nodes of two ranks each. */
static void two_node_plan(ir_plan *p, const ir_machine *m,
                          const int32_t (*xf)[2], int n)
{
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_ALLGATHER;
	c.bytes = 8;
	ir_plan_init(p, m, &c, "test");
	assert_int_equal(ir_plan_phase(p), 0);
	for (int i = 0; i < n; i++) {
		ir_block b = {xf[i][0], 0};
		assert_int_equal(ir_plan_add(p, xf[i][0], xf[i][1], &b, 1, 0),
		                 0);
	}
}

static void test_verify_node_ports(void **state)
{
	(void)state;
	static const int d2[1] = {2};
	ir_machine m = grid(IR_MESH, 1, d2, 0, NULL, 2);
	m.node_ports = 1;
	/* ranks 0, 1 on node 0; 2, 3 on node 1 */
	static const int32_t two_out[2][2] = {{0, 2}, {1, 3}};
	ir_plan p;
	ir_report r;
	two_node_plan(&p, &m, two_out, 2);
	/* two transfers leave node 0 in one phase: its one network port
	 * allows one (they also share the link 0 -> 1) */
	assert_int_equal(ir_verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "node 0 sends 2"));
	ir_report_fini(&r);
	ir_plan_fini(&p);

	/* inside a node: no link, no network port, counted as shared
	 * memory; the rank's own port limit still holds */
	static const int32_t inside[2][2] = {{0, 1}, {2, 3}};
	two_node_plan(&p, &m, inside, 2);
	ir_verify(&p, &r);
	assert_int_equal(r.shm_transfers, 2);
	assert_int_equal(r.max_link_load, 0);
	assert_int_equal(r.max_net_sends, 0);
	assert_int_equal(r.hops, 0);
	ir_report_fini(&r);
	ir_plan_fini(&p);

	/* one out, one in, one inside: within every limit */
	static const int32_t mixed[3][2] = {{0, 2}, {3, 1}, {1, 0}};
	two_node_plan(&p, &m, mixed, 3);
	ir_verify(&p, &r);
	assert_non_null(r.link_load);
	assert_int_equal(r.max_net_sends, 1);
	assert_int_equal(r.max_net_recvs, 1);
	assert_int_equal(r.shm_transfers, 1);
	assert_int_equal(r.max_link_load, 1);
	ir_report_fini(&r);
	ir_plan_fini(&p);

	/* a repeated pair inside a node has no link to show it */
	static const int32_t twice[2][2] = {{0, 1}, {0, 1}};
	ir_machine two = m;
	two.ports = 2;
	two_node_plan(&p, &two, twice, 2);
	assert_int_equal(ir_verify(&p, &r), CCP_EVERIFY);
	assert_non_null(strstr(r.message, "two transfers 0 -> 1"));
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* A 4-D machine of two-rank nodes with a dimension order, a partial
 * wrap and shared-memory costs goes through the plan format (version 6)
 * and comes back the same; a classic machine stays at its old version. */
static void test_codec_v6(void **state)
{
	(void)state;
	static const int d4[4] = {2, 3, 1, 2};
	static const uint8_t ord[4] = {3, 1, 0, 2};
	ir_machine m = grid(IR_TORUS, 4, d4, 0x2u, ord, 2);
	m.placement = IR_PLACE_CYCLIC;
	m.node_ports = 1;
	m.cost.shm_beta = 0.0001;
	char err[160];
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	c.bytes = 64;
	c.segments = 1;
	ir_plan p;
	ir_plan_init(&p, &m, &c, "test");
	for (int32_t r = 1; r < m.nranks; r++) {
		ir_block b = {0, 0};
		assert_int_equal(ir_plan_phase(&p), 0);
		assert_int_equal(ir_plan_add(&p, 0, r, &b, 1, 0), 0);
	}
	ir_report rep;
	assert_int_equal(ir_verify(&p, &rep), 0);
	assert_int_equal(rep.shm_transfers, 1); /* 0 -> 12 share node 0 */
	ir_slice *sl = NULL;
	assert_int_equal(ir_lower(&p, &sl), 0);
	uint8_t *img = NULL;
	size_t len = 0;
	assert_int_equal(ir_plan_encode(&p, &rep, sl, &img, &len, err,
	                                sizeof err),
	                 0);
	ir_plan q;
	ir_file_info fi;
	if (ir_plan_decode(img, len, &q, &fi, err, sizeof err) != 0)
		fail_msg("decode: %s", err);
	assert_int_equal(fi.version, 6);
	const ir_machine *n = &q.machine;
	assert_int_equal(n->ndims, 4);
	assert_memory_equal(n->dims, m.dims, sizeof m.dims);
	assert_int_equal(n->wrap, 0x2u);
	assert_memory_equal(n->order, m.order, sizeof m.order);
	assert_int_equal(n->ranks_per_node, 2);
	assert_int_equal(n->placement, IR_PLACE_CYCLIC);
	assert_int_equal(n->node_ports, 1);
	assert_int_equal(n->nnodes, 12);
	assert_true(n->cost.shm_beta == 0.0001);
	assert_true(isnan(n->cost.shm_alpha));
	assert_true(isnan(n->cost.combine));
	ir_plan_fini(&q);
	free(img);
	ir_slices_free(sl, m.nranks);
	ir_report_fini(&rep);
	ir_plan_fini(&p);

	static const int d3[3] = {2, 2, 2};
	ir_machine classic = grid(IR_TORUS, 3, d3, 0, NULL, 1);
	uint16_t min_read;
	assert_int_equal(ir_file_version(&classic, &c, &min_read), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_tofu_shape),
	        cmocka_unit_test(test_tofu_route),
	        cmocka_unit_test(test_order),
	        cmocka_unit_test(test_mixed_wrap_degree),
	        cmocka_unit_test(test_all_routes),
	        cmocka_unit_test(test_nodes),
	        cmocka_unit_test(test_check_rejects),
	        cmocka_unit_test(test_verify_node_ports),
	        cmocka_unit_test(test_codec_v6),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
