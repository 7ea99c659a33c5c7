/*
 * test_machine.c - tests of the machine model (ir/machine.c): checking,
 * rank numbering, degrees, link ids and routes on every topology.  Routes
 * are compared against rank sequences worked out by hand, and every route
 * of several small machines is checked for chaining, length and
 * minimality.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir.h"

#define MAX_PATH 2048 /* longest route any test machine has */

/* ---- machine builders ------------------------------------------------ */

/* A checked mesh or torus with extents x, y, z over nd dimensions. */
static ir_machine grid(enum ir_topo topo, int nd, int x, int y, int z)
{
	ir_machine m;
	char err[128];

	memset(&m, 0, sizeof m);
	m.topo = topo;
	m.routing = IR_ROUTE_DIM_ORDER;
	m.ndims = nd;
	m.dims[0] = x;
	m.dims[1] = y;
	m.dims[2] = z;
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	return m;
}

static ir_machine mesh(int nd, int x, int y, int z)
{
	return grid(IR_MESH, nd, x, y, z);
}

static ir_machine torus(int nd, int x, int y, int z)
{
	return grid(IR_TORUS, nd, x, y, z);
}

/* A checked n-cube. */
static ir_machine cube(int n)
{
	ir_machine m;
	char err[128];

	memset(&m, 0, sizeof m);
	m.topo = IR_HYPERCUBE;
	m.routing = IR_ROUTE_ECUBE;
	m.ndims = n;
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	return m;
}

/* A checked two-level HPAM: level 1 is r1 x c1, level 2 is r2 x c2. */
static ir_machine hpam(int r1, int c1, int r2, int c2)
{
	ir_machine m;
	char err[128];

	memset(&m, 0, sizeof m);
	m.topo = IR_HPAM;
	m.routing = IR_ROUTE_HPAM_XY;
	m.levels[0][0] = r1;
	m.levels[0][1] = c1;
	m.levels[1][0] = r2;
	m.levels[1][1] = c2;
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	return m;
}

/* A checked switch of n ranks. */
static ir_machine sw(int n)
{
	ir_machine m;
	char err[128];

	memset(&m, 0, sizeof m);
	m.topo = IR_SWITCH;
	m.routing = IR_ROUTE_DIRECT;
	m.ndims = 1;
	m.dims[0] = n;
	m.dims[1] = 1;
	m.dims[2] = 1;
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	return m;
}

/* The small machines the exhaustive tests run over. */
static int sample_machines(ir_machine *out)
{
	int n = 0;

	out[n++] = mesh(1, 1, 1, 1);
	out[n++] = mesh(1, 5, 1, 1);
	out[n++] = mesh(2, 4, 3, 1);
	out[n++] = mesh(3, 3, 2, 4);
	out[n++] = mesh(3, 1, 4, 2);
	out[n++] = torus(1, 6, 1, 1);
	out[n++] = torus(1, 7, 1, 1);
	out[n++] = torus(1, 2, 1, 1);
	out[n++] = torus(2, 4, 5, 1);
	out[n++] = torus(2, 1, 4, 1);
	out[n++] = torus(3, 3, 4, 2);
	out[n++] = torus(3, 2, 2, 2);
	out[n++] = cube(1);
	out[n++] = cube(3);
	out[n++] = cube(5);
	out[n++] = hpam(1, 1, 4, 4);
	out[n++] = hpam(2, 2, 4, 8);
	out[n++] = hpam(2, 4, 3, 8);
	out[n++] = hpam(1, 2, 2, 2);
	out[n++] = hpam(3, 1, 1, 4);
	out[n++] = hpam(1, 4, 5, 16);
	out[n++] = sw(1);
	out[n++] = sw(5);
	return n;
}
#define NSAMPLES 32

/* ---- route helpers --------------------------------------------------- */

/* Route src -> dst and turn it into the ranks visited, checking that
 * every link exists and that consecutive links chain from src to dst.
 * Returns the number of ranks (hops + 1). */
static int route_ranks(const ir_machine *m, int32_t src, int32_t dst,
                       int32_t *ranks, uint64_t *links)
{
	int h = ir_route(m, src, dst, links), i;

	assert_true(h >= 0);
	assert_true(h <= ir_route_max(m));
	assert_int_equal(ir_hops(m, src, dst), h);
	ranks[0] = src;
	for (i = 0; i < h; i++) {
		int32_t from = -1, to = -1;

		assert_true(links[i] < ir_nlinks(m));
		assert_int_equal(ir_link_ends(m, links[i], &from, &to), 0);
		assert_int_equal(from, ranks[i]);
		ranks[i + 1] = to;
	}
	assert_int_equal(ranks[h], dst);
	return h + 1;
}

/* Check that the route src -> dst visits exactly want[0..n). */
static void expect_path(const ir_machine *m, int32_t src, int32_t dst,
                        const int32_t *want, int n)
{
	int32_t got[MAX_PATH];
	uint64_t links[MAX_PATH];
	int k = route_ranks(m, src, dst, got, links), i;

	assert_int_equal(k, n);
	for (i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

/* Check that the route src -> dst uses exactly the link ids want[0..n). */
static void expect_links(const ir_machine *m, int32_t src, int32_t dst,
                         const uint64_t *want, int n)
{
	uint64_t links[MAX_PATH];
	int h = ir_route(m, src, dst, links), i;

	assert_int_equal(h, n);
	for (i = 0; i < n; i++)
		assert_int_equal(links[i], want[i]);
}

#define PATH(m, s, d, ...)                                                     \
	do {                                                                   \
		static const int32_t want_[] = {__VA_ARGS__};                  \
		expect_path((m), (s), (d), want_,                              \
		            (int)(sizeof want_ / sizeof want_[0]));            \
	} while (0)

#define LINKS(m, s, d, ...)                                                    \
	do {                                                                   \
		static const uint64_t want_[] = {__VA_ARGS__};                 \
		expect_links((m), (s), (d), want_,                             \
		             (int)(sizeof want_ / sizeof want_[0]));           \
	} while (0)

/* ---- names and checking ---------------------------------------------- */

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(ir_topo_name(IR_MESH), "mesh");
	assert_string_equal(ir_topo_name(IR_TORUS), "torus");
	assert_string_equal(ir_topo_name(IR_HYPERCUBE), "hypercube");
	assert_string_equal(ir_topo_name(IR_HPAM), "hpam");
	assert_string_equal(ir_topo_name(IR_SWITCH), "switch");
	assert_string_equal(ir_topo_name((enum ir_topo)42), "unknown");
	assert_string_equal(ir_routing_name(IR_ROUTE_DIM_ORDER), "dimension-order");
	assert_string_equal(ir_routing_name(IR_ROUTE_ECUBE), "e-cube");
	assert_string_equal(ir_routing_name(IR_ROUTE_HPAM_XY), "hpam-xy");
	assert_string_equal(ir_routing_name(IR_ROUTE_DIRECT), "direct");
	assert_string_equal(ir_routing_name((enum ir_routing)42), "unknown");
}

static void test_check_accepts(void **state)
{
	ir_machine m;

	(void)state;
	assert_int_equal(mesh(2, 4, 3, 1).nranks, 12);
	assert_int_equal(mesh(3, 3, 2, 4).nranks, 24);
	assert_int_equal(torus(1, 8, 1, 1).nranks, 8);
	assert_int_equal(cube(5).nranks, 32);
	m = hpam(2, 2, 4, 8);
	assert_int_equal(m.nranks, 36);
	assert_int_equal(m.ndims, 2); /* derived */
	assert_int_equal(sw(7).nranks, 7);
	/* the limits themselves are allowed */
	assert_int_equal(mesh(2, 4096, 4096, 1).nranks, IR_MAX_RANKS);
	assert_int_equal(cube(IR_MAX_CUBE_DIM).nranks, IR_MAX_RANKS);
	assert_int_equal(sw(IR_MAX_RANKS).nranks, IR_MAX_RANKS);
	assert_int_equal(hpam(1, 1, IR_MAX_RANKS - 1, 1).nranks, IR_MAX_RANKS);
	/* port models */
	m = mesh(2, 4, 3, 1);
	m.ports = 1;
	assert_int_equal(ir_machine_check(&m, NULL, 0), 0);
	m.ports = 4;
	assert_int_equal(ir_machine_check(&m, NULL, 0), 0);
}

/* One bad machine and the field its message must name. */
struct bad_case {
	enum ir_topo topo;
	enum ir_routing routing;
	int ndims;
	int dims[3];
	int levels[2][2];
	int ports;
	const char *field;
};

#define DO IR_ROUTE_DIM_ORDER
#define EC IR_ROUTE_ECUBE
#define HX IR_ROUTE_HPAM_XY
#define DI IR_ROUTE_DIRECT
static const struct bad_case bad_cases[] = {
        {(enum ir_topo)9, DO, 1, {4, 1, 1}, {{0}}, 0, "topo"},
        {IR_MESH, DO, 0, {4, 1, 1}, {{0}}, 0, "ndims"},
        {IR_MESH, DO, 9, {4, 1, 1}, {{0}}, 0, "ndims"},
        {IR_MESH, DO, 2, {4, 0, 1}, {{0}}, 0, "dims[1] must be >= 1, got 0"},
        {IR_MESH, DO, 1, {-3, 1, 1}, {{0}}, 0, "dims[0] must be >= 1, got -3"},
        {IR_MESH, DO, 2, {4, 4, 2}, {{0}}, 0, "dims[2] must be 1"},
        {IR_MESH, DO, 1, {4, 2, 1}, {{0}}, 0, "dims[1] must be 1"},
        {IR_TORUS, DO, 3, {4, 4, 0}, {{0}}, 0, "dims[2] must be >= 1"},
        {IR_MESH, EC, 1, {4, 1, 1}, {{0}}, 0, "routing must be dimension-order"},
        {IR_TORUS, DI, 1, {4, 1, 1}, {{0}}, 0, "routing must be dimension-order"},
        {IR_HYPERCUBE, DO, 3, {1, 1, 1}, {{0}}, 0, "routing must be e-cube"},
        {IR_HPAM,
         DO,
         2,
         {1, 1, 1},
         {{1, 1}, {2, 2}},
         0,
         "routing must be hpam-xy"},
        {IR_SWITCH, DO, 1, {4, 1, 1}, {{0}}, 0, "routing must be direct"},
        {IR_MESH, (enum ir_routing)7, 1, {4, 1, 1}, {{0}}, 0, "routing"},
        {IR_HYPERCUBE, EC, 0, {1, 1, 1}, {{0}}, 0, "ndims"},
        {IR_HYPERCUBE, EC, -1, {1, 1, 1}, {{0}}, 0, "ndims"},
        {IR_HPAM, HX, 2, {1, 1, 1}, {{0, 1}, {2, 2}}, 0, "levels[0][0]"},
        {IR_HPAM, HX, 2, {1, 1, 1}, {{1, 0}, {2, 2}}, 0, "levels[0][1]"},
        {IR_HPAM, HX, 2, {1, 1, 1}, {{1, 1}, {0, 2}}, 0, "levels[1][0]"},
        {IR_HPAM, HX, 2, {1, 1, 1}, {{1, 1}, {2, -2}}, 0, "levels[1][1]"},
        {IR_HPAM,
         HX,
         2,
         {1, 1, 1},
         {{1, 3}, {2, 4}},
         0,
         "levels[0][1] (level-1 columns) must be a power of two"},
        {IR_HPAM,
         HX,
         2,
         {1, 1, 1},
         {{1, 2}, {2, 6}},
         0,
         "levels[1][1] (level-2 columns) must be a power of two"},
        {IR_HPAM,
         HX,
         2,
         {1, 1, 1},
         {{1, 8}, {2, 4}},
         0,
         "levels[1][1] (level-2 columns) must be >= levels[0][1]"},
        {IR_SWITCH, DI, 1, {0, 1, 1}, {{0}}, 0, "dims[0]"},
        {IR_MESH, DO, 1, {4, 1, 1}, {{0}}, -1, "ports"},
        /* rank counts past the limit, including products past 2^63 */
        {IR_MESH, DO, 2, {4097, 4096, 1}, {{0}}, 0, "IR_MAX_RANKS"},
        {IR_MESH, DO, 3, {4096, 4096, 2}, {{0}}, 0, "IR_MAX_RANKS"},
        {IR_TORUS,
         DO,
         3,
         {INT_MAX, INT_MAX, INT_MAX},
         {{0}},
         0,
         "IR_MAX_RANKS"},
        {IR_TORUS, DO, 3, {65536, 65536, 65536}, {{0}}, 0, "IR_MAX_RANKS"},
        {IR_HYPERCUBE, EC, IR_MAX_CUBE_DIM + 1, {1, 1, 1}, {{0}}, 0, "ndims"},
        {IR_HYPERCUBE, EC, 31, {1, 1, 1}, {{0}}, 0, "ndims"},
        {IR_HPAM,
         HX,
         2,
         {1, 1, 1},
         {{1, 1}, {IR_MAX_RANKS, 1}},
         0,
         "IR_MAX_RANKS"},
        {IR_HPAM,
         HX,
         2,
         {1, 1, 1},
         {{INT_MAX, 1 << 30}, {INT_MAX, 1 << 30}},
         0,
         "IR_MAX_RANKS"},
        {IR_SWITCH, DI, 1, {IR_MAX_RANKS + 1, 1, 1}, {{0}}, 0, "dims[0]"},
        {IR_SWITCH, DI, 1, {INT_MAX, 1, 1}, {{0}}, 0, "dims[0]"},
};

static void test_check_rejects(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		const struct bad_case *b = &bad_cases[i];
		ir_machine m;
		char err[256];

		memset(&m, 0, sizeof m);
		m.topo = b->topo;
		m.routing = b->routing;
		m.ndims = b->ndims;
		memcpy(m.dims, b->dims, sizeof m.dims);
		memcpy(m.levels, b->levels, sizeof m.levels);
		m.ports = b->ports;
		strcpy(err, "stale");
		if (ir_machine_check(&m, err, sizeof err) != CCP_EINVAL)
			fail_msg("case %zu (%s) accepted", i, b->field);
		if (strstr(err, b->field) == NULL)
			fail_msg(
			        "case %zu: message \"%s\" does not name \"%s\"",
			        i, err, b->field);
		assert_null(strchr(err, '\n')); /* one line */
	}
}

static void test_check_err_buffer(void **state)
{
	ir_machine m;
	char err[8];

	(void)state;
	memset(&m, 0, sizeof m);
	m.topo = IR_MESH;
	m.ndims = 2;
	m.dims[0] = 4;
	/* no buffer at all: still rejected, nothing written */
	assert_int_equal(ir_machine_check(&m, NULL, 0), CCP_EINVAL);
	/* a short buffer is truncated and terminated */
	memset(err, 'z', sizeof err);
	assert_int_equal(ir_machine_check(&m, err, sizeof err), CCP_EINVAL);
	assert_int_equal(strlen(err), sizeof err - 1);
	assert_memory_equal(err, "dims[1]", 7);
	/* success leaves an empty message */
	m.dims[1] = 3;
	m.dims[2] = 1;
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	assert_string_equal(err, "");
	assert_int_equal(m.nranks, 12);
}

/* ---- coordinates ----------------------------------------------------- */

static void test_coords_hand(void **state)
{
	ir_machine m;
	int c[IR_MAX_CUBE_DIM];

	(void)state;
	m = mesh(3, 4, 3, 2);
	ir_coords(&m, 17, c); /* 17 = 1 + 4*(1 + 3*1) */
	assert_int_equal(c[0], 1);
	assert_int_equal(c[1], 1);
	assert_int_equal(c[2], 1);
	ir_coords(&m, 23, c);
	assert_int_equal(c[0], 3);
	assert_int_equal(c[1], 2);
	assert_int_equal(c[2], 1);
	c[0] = 2, c[1] = 0, c[2] = 1;
	assert_int_equal(ir_rank_of(&m, c), 14);
	c[0] = 4; /* off the mesh */
	assert_int_equal(ir_rank_of(&m, c), -1);
	c[0] = 0, c[2] = -1;
	assert_int_equal(ir_rank_of(&m, c), -1);

	m = mesh(1, 5, 1, 1);
	ir_coords(&m, 3, c);
	assert_int_equal(c[0], 3);
	assert_int_equal(c[1], 0); /* unused dimensions read 0 */
	assert_int_equal(c[2], 0);

	m = cube(5);
	ir_coords(&m, 13, c); /* 01101 */
	assert_int_equal(c[0], 1);
	assert_int_equal(c[1], 0);
	assert_int_equal(c[2], 1);
	assert_int_equal(c[3], 1);
	assert_int_equal(c[4], 0);
	c[1] = 2;
	assert_int_equal(ir_rank_of(&m, c), -1);

	/* HPAM 2x2 over 4x8: level 1 ranks 0..3, level 2 rank 4 + x + 8y */
	m = hpam(2, 2, 4, 8);
	ir_coords(&m, 3, c);
	assert_int_equal(c[0], 1);
	assert_int_equal(c[1], 1);
	assert_int_equal(c[2], 0);
	ir_coords(&m, 25, c);
	assert_int_equal(c[0], 5);
	assert_int_equal(c[1], 2);
	assert_int_equal(c[2], 1);
	c[0] = 7, c[1] = 3, c[2] = 1;
	assert_int_equal(ir_rank_of(&m, c), 35);
	c[0] = 2, c[1] = 0, c[2] = 0; /* level 1 has 2 columns */
	assert_int_equal(ir_rank_of(&m, c), -1);
	c[0] = 0, c[1] = 0, c[2] = 2; /* no level 3 */
	assert_int_equal(ir_rank_of(&m, c), -1);

	m = sw(6);
	ir_coords(&m, 4, c);
	assert_int_equal(c[0], 4);
	c[0] = 6;
	assert_int_equal(ir_rank_of(&m, c), -1);

	/* a rank outside the machine has no coordinates */
	ir_coords(&m, 6, c);
	assert_int_equal(c[0], -1);
}

static void test_coords_roundtrip(void **state)
{
	ir_machine ms[NSAMPLES];
	int n = sample_machines(ms), i;

	(void)state;
	for (i = 0; i < n; i++) {
		int32_t r;

		for (r = 0; r < ms[i].nranks; r++) {
			int c[IR_MAX_CUBE_DIM];

			ir_coords(&ms[i], r, c);
			assert_int_equal(ir_rank_of(&ms[i], c), r);
			if (ms[i].topo == IR_MESH || ms[i].topo == IR_TORUS) {
				/* row-major, x fastest */
				assert_int_equal(
				        c[0] + ms[i].dims[0] *
				                        (c[1] +
				                         ms[i].dims[1] * c[2]),
				        r);
			}
		}
	}
}

/* ---- degrees and link ids ------------------------------------------- */

static void test_degree(void **state)
{
	ir_machine m;

	(void)state;
	m = mesh(2, 4, 3, 1);
	assert_int_equal(ir_degree(&m, 0), 2);  /* corner */
	assert_int_equal(ir_degree(&m, 1), 3);  /* edge */
	assert_int_equal(ir_degree(&m, 5), 4);  /* interior */
	assert_int_equal(ir_degree(&m, 11), 2); /* corner */
	assert_int_equal(ir_degree(&m, 12), CCP_EINVAL);
	m = mesh(3, 3, 3, 3);
	assert_int_equal(ir_degree(&m, 13), 6);
	assert_int_equal(ir_degree(&m, 0), 3);
	m = mesh(1, 1, 1, 1);
	assert_int_equal(ir_degree(&m, 0), 0);

	m = torus(3, 4, 2, 1);
	assert_int_equal(ir_degree(&m, 0), 3); /* 2 + 1 + 0 */
	m = torus(3, 5, 3, 6);
	assert_int_equal(ir_degree(&m, 7), 6);
	m = torus(1, 1, 1, 1);
	assert_int_equal(ir_degree(&m, 0), 0);

	m = cube(6);
	assert_int_equal(ir_degree(&m, 37), 6);

	/* HPAM 2x2 over 4x8, f = 4 */
	m = hpam(2, 2, 4, 8);
	assert_int_equal(ir_degree(&m, 0), 2); /* level-1 top row */
	assert_int_equal(ir_degree(&m, 2),
	                 2 + 4); /* bottom row: f down links */
	assert_int_equal(ir_degree(&m, 3), 2 + 4);
	assert_int_equal(ir_degree(&m, 4), 2 + 1); /* level-2 (0,0): up link */
	assert_int_equal(ir_degree(&m, 7), 3 + 1); /* level-2 (0,3) */
	assert_int_equal(ir_degree(&m, 15), 4);    /* level-2 (1,3) */
	assert_int_equal(ir_degree(&m, 35), 2);    /* level-2 (3,7) */
	m = hpam(1, 1, 2, 4);
	assert_int_equal(ir_degree(&m, 0), 4); /* lone top node: 4 down links */

	m = sw(9);
	assert_int_equal(ir_degree(&m, 3), 8);
	m = sw(1);
	assert_int_equal(ir_degree(&m, 0), 0);
}

static void test_nlinks(void **state)
{
	ir_machine m;

	(void)state;
	m = mesh(2, 4, 3, 1);
	assert_int_equal(ir_nlinks(&m), 12 * 4);
	m = torus(3, 3, 4, 2);
	assert_int_equal(ir_nlinks(&m), 24 * 6);
	m = cube(5);
	assert_int_equal(ir_nlinks(&m), 32 * 5);
	m = hpam(2, 2, 4, 8);
	assert_int_equal(ir_nlinks(&m), 36 * 6);
	m = sw(5);
	assert_int_equal(ir_nlinks(&m), 25);
	m = sw(IR_MAX_RANKS);
	assert_true(ir_nlinks(&m) == (uint64_t)IR_MAX_RANKS * IR_MAX_RANKS);
}

/* Every existing link id: its ends are distinct ranks, no two ids name
 * the same (from, to), each has its reverse, each rank has ir_degree
 * links out and in, and the route between its ends is that one link. */
static void test_links_match_degree(void **state)
{
	ir_machine ms[NSAMPLES];
	int n = sample_machines(ms), i;

	(void)state;
	for (i = 0; i < n; i++) {
		const ir_machine *m = &ms[i];
		int32_t nr = m->nranks, r;
		uint64_t id, nl = ir_nlinks(m);
		unsigned char *seen = calloc((size_t)nr * (size_t)nr, 1);
		int *out = calloc((size_t)nr, sizeof *out);
		int *in = calloc((size_t)nr, sizeof *in);

		assert_non_null(seen);
		assert_non_null(out);
		assert_non_null(in);
		for (id = 0; id < nl; id++) {
			int32_t from = -7, to = -7;
			uint64_t links[MAX_PATH];

			if (ir_link_ends(m, id, &from, &to) != 0) {
				/* untouched on failure */
				assert_int_equal(from, -7);
				assert_int_equal(to, -7);
				continue;
			}
			assert_true(from >= 0 && from < nr);
			assert_true(to >= 0 && to < nr);
			assert_int_not_equal(from, to);
			assert_int_equal(seen[(size_t)from * nr + to], 0);
			seen[(size_t)from * nr + to] = 1;
			out[from]++;
			in[to]++;
			assert_int_equal(ir_route(m, from, to, links), 1);
			assert_true(links[0] == id);
		}
		for (r = 0; r < nr; r++) {
			int32_t s;

			if (out[r] != ir_degree(m, r) ||
			    in[r] != ir_degree(m, r))
				fail_msg("%s machine %d rank %d: %d out, %d "
				         "in, degree %d",
				         ir_topo_name(m->topo), i, r, out[r],
				         in[r], ir_degree(m, r));
			for (s = 0; s < nr; s++)
				assert_int_equal(seen[(size_t)r * nr + s],
				                 seen[(size_t)s * nr + r]);
		}
		/* ids at and past the end do not exist */
		{
			int32_t from, to;

			assert_int_equal(ir_link_ends(m, nl, &from, &to),
			                 CCP_EINVAL);
			assert_int_equal(
			        ir_link_ends(m, UINT64_MAX, &from, &to),
			        CCP_EINVAL);
		}
		free(seen);
		free(out);
		free(in);
	}
}

static void test_link_ends_invalid(void **state)
{
	ir_machine m;
	int32_t from, to;

	(void)state;
	m = mesh(2, 4, 3, 1); /* id = rank*4 + 2*dim + (1 for -) */
	assert_int_equal(ir_link_ends(&m, 3 * 4 + 0, &from, &to), CCP_EINVAL);
	assert_int_equal(ir_link_ends(&m, 0 * 4 + 1, &from, &to), CCP_EINVAL);
	assert_int_equal(ir_link_ends(&m, 0 * 4 + 3, &from, &to), CCP_EINVAL);
	assert_int_equal(ir_link_ends(&m, 9 * 4 + 2, &from, &to), CCP_EINVAL);
	assert_int_equal(ir_link_ends(&m, 5 * 4 + 2, &from, &to), 0);
	assert_int_equal(from, 5);
	assert_int_equal(to, 9);
	assert_int_equal(ir_link_ends(&m, 5 * 4 + 1, &from, &to), 0);
	assert_int_equal(to, 4);

	m = torus(2, 4, 2, 1); /* y ring of 2: only its + link exists */
	assert_int_equal(ir_link_ends(&m, 0 * 4 + 2, &from, &to), 0);
	assert_int_equal(to, 4);
	assert_int_equal(ir_link_ends(&m, 0 * 4 + 3, &from, &to), CCP_EINVAL);
	assert_int_equal(ir_link_ends(&m, 0 * 4 + 1, &from, &to), 0);
	assert_int_equal(to, 3); /* x wraparound */
	m = torus(2, 1, 4, 1);   /* x ring of 1: no links */
	assert_int_equal(ir_link_ends(&m, 0, &from, &to), CCP_EINVAL);
	assert_int_equal(ir_link_ends(&m, 1, &from, &to), CCP_EINVAL);

	m = cube(3);
	assert_int_equal(ir_link_ends(&m, 5 * 3 + 2, &from, &to), 0);
	assert_int_equal(from, 5);
	assert_int_equal(to, 1);

	/* HPAM 2x2 over 4x8: id = rank*6 + dir */
	m = hpam(2, 2, 4, 8);
	assert_int_equal(ir_link_ends(&m, 9 * 6 + 4, &from, &to), 0);
	assert_int_equal(from, 9); /* (0,5) level 2 up to (1,1) level 1 */
	assert_int_equal(to, 3);
	assert_int_equal(ir_link_ends(&m, 9 * 6 + 5, &from, &to), 0);
	assert_int_equal(from, 3);
	assert_int_equal(to, 9);
	assert_int_equal(ir_link_ends(&m, 17 * 6 + 4, &from, &to), CCP_EINVAL);
	assert_int_equal(ir_link_ends(&m, 17 * 6 + 5, &from, &to), CCP_EINVAL);
	assert_int_equal(ir_link_ends(&m, 2 * 6 + 4, &from, &to), CCP_EINVAL);
	assert_int_equal(ir_link_ends(&m, 2 * 6 + 5, &from, &to), CCP_EINVAL);
	/* the level-1 mesh ends at its bottom row: +y is no link there */
	assert_int_equal(ir_link_ends(&m, 2 * 6 + 2, &from, &to), CCP_EINVAL);
	assert_int_equal(ir_link_ends(&m, 4 * 6 + 3, &from, &to), CCP_EINVAL);
	assert_int_equal(ir_link_ends(&m, 3 * 6 + 0, &from, &to), CCP_EINVAL);
	assert_int_equal(ir_link_ends(&m, 4 * 6 + 1, &from, &to), CCP_EINVAL);

	m = sw(5);
	assert_int_equal(ir_link_ends(&m, 3 * 5 + 3, &from, &to), CCP_EINVAL);
	assert_int_equal(ir_link_ends(&m, 3 * 5 + 1, &from, &to), 0);
	assert_int_equal(from, 3);
	assert_int_equal(to, 1);
}

/* ---- routes worked by hand ------------------------------------------ */

static void test_mesh_routes(void **state)
{
	ir_machine m;

	(void)state;
	/* 4 x 3 mesh, ranks
	 *   0  1  2  3
	 *   4  5  6  7
	 *   8  9 10 11    X first, then Y */
	m = mesh(2, 4, 3, 1);
	PATH(&m, 0, 11, 0, 1, 2, 3, 7, 11);
	LINKS(&m, 0, 11, 0 * 4 + 0, 1 * 4 + 0, 2 * 4 + 0, 3 * 4 + 2, 7 * 4 + 2);
	PATH(&m, 11, 0, 11, 10, 9, 8, 4, 0);
	LINKS(&m, 11, 0, 11 * 4 + 1, 10 * 4 + 1, 9 * 4 + 1, 8 * 4 + 3,
	      4 * 4 + 3);
	PATH(&m, 8, 3, 8, 9, 10, 11, 7, 3);
	PATH(&m, 6, 4, 6, 5, 4);
	PATH(&m, 1, 9, 1, 5, 9);
	PATH(&m, 5, 5, 5);
	/* 3 x 3 x 3: (2,0,0) -> (0,1,2) = rank 21: X-, Y+, Z+ */
	m = mesh(3, 3, 3, 3);
	PATH(&m, 2, 21, 2, 1, 0, 3, 12, 21);
	LINKS(&m, 2, 21, 2 * 6 + 1, 1 * 6 + 1, 0 * 6 + 2, 3 * 6 + 4,
	      12 * 6 + 4);
	/* and back: (0,1,2) -> (2,0,0) */
	PATH(&m, 21, 2, 21, 22, 23, 20, 11, 2);
}

static void test_torus_routes(void **state)
{
	ir_machine m;

	(void)state;
	/* ring of 8 */
	m = torus(1, 8, 1, 1);
	PATH(&m, 1, 7, 1, 0, 7); /* -2 beats +6: wraps through 0 */
	LINKS(&m, 1, 7, 1 * 2 + 1, 0 * 2 + 1);
	PATH(&m, 6, 1, 6, 7, 0, 1); /* +3 beats -5 */
	LINKS(&m, 6, 1, 6 * 2, 7 * 2, 0 * 2);
	/* the tie: exactly half the ring goes the + way, both directions */
	PATH(&m, 0, 4, 0, 1, 2, 3, 4);
	PATH(&m, 4, 0, 4, 5, 6, 7, 0);
	PATH(&m, 3, 7, 3, 4, 5, 6, 7);
	PATH(&m, 7, 3, 7, 0, 1, 2, 3);
	/* odd ring of 7 has no tie */
	m = torus(1, 7, 1, 1);
	PATH(&m, 0, 3, 0, 1, 2, 3);
	PATH(&m, 0, 4, 0, 6, 5, 4);
	PATH(&m, 4, 0, 4, 5, 6, 0);
	/* 4 x 4 torus:
	 *   0  1  2  3
	 *   4  5  6  7
	 *   8  9 10 11
	 *  12 13 14 15 */
	m = torus(2, 4, 4, 1);
	PATH(&m, 15, 0, 15, 12, 0); /* both wraps, + way */
	LINKS(&m, 15, 0, 15 * 4 + 0, 12 * 4 + 2);
	PATH(&m, 0, 15, 0, 3, 15); /* both wraps, - way */
	LINKS(&m, 0, 15, 0 * 4 + 1, 3 * 4 + 3);
	PATH(&m, 5, 15, 5, 6, 7, 11, 15);  /* ties in x and y: + */
	PATH(&m, 15, 5, 15, 12, 13, 1, 5); /* ties again: + with wraps */
	PATH(&m, 1, 14, 1, 2, 14);         /* y: -1 (wrap) beats +3 */
	LINKS(&m, 1, 14, 1 * 4 + 0, 2 * 4 + 3);
}

static void test_torus_extent2(void **state)
{
	ir_machine m;

	(void)state;
	/* ring of 2: one link each way, both + links */
	m = torus(1, 2, 1, 1);
	LINKS(&m, 0, 1, 0 * 2 + 0);
	LINKS(&m, 1, 0, 1 * 2 + 0);
	assert_int_equal(ir_route_max(&m), 1);
	/* 2 x 2 x 2: one hop per differing coordinate, x, y, z order */
	m = torus(3, 2, 2, 2);
	PATH(&m, 0, 7, 0, 1, 3, 7);
	PATH(&m, 7, 0, 7, 6, 4, 0);
	LINKS(&m, 7, 0, 7 * 6 + 0, 6 * 6 + 2, 4 * 6 + 4);
}

static void test_ecube_order(void **state)
{
	ir_machine m;

	(void)state;
	m = cube(4);
	/* 0000 -> 1011: bits 0, 1, 3 */
	PATH(&m, 0, 11, 0, 1, 3, 11);
	LINKS(&m, 0, 11, 0 * 4 + 0, 1 * 4 + 1, 3 * 4 + 3);
	/* 1101 -> 0110: differ in 1011: 1101 -> 1100 -> 1110 -> 0110 */
	PATH(&m, 13, 6, 13, 12, 14, 6);
	LINKS(&m, 13, 6, 13 * 4 + 0, 12 * 4 + 1, 14 * 4 + 3);
	/* 1000 -> 0001: bit 0 first, not bit 3 */
	PATH(&m, 8, 1, 8, 9, 1);
	PATH(&m, 15, 0, 15, 14, 12, 8, 0);
	PATH(&m, 0, 15, 0, 1, 3, 7, 15);
}

/*
 * HPAM worked example: level 1 is 2 x 2, level 2 is 4 x 8, f = 8/2 = 4.
 * Papers' (row, column); ranks: level 1 = column + 2*row, level 2 =
 * 4 + column + 8*row.
 *
 *   level 1:  (0,0)=0  (0,1)=1
 *             (1,0)=2  (1,1)=3      3 hangs over level-2 columns 4..7,
 *                                   2 over columns 0..3 (eq. 1)
 *   level 2:   4  5  6  7  8  9 10 11
 *             12 13 14 15 16 17 18 19
 *             20 21 22 23 24 25 26 27
 *             28 29 30 31 32 33 34 35
 */
static void test_hpam_down_routes(void **state)
{
	ir_machine m = hpam(2, 2, 4, 8);

	(void)state;
	/* (0,0)1 -> (2,5)2: b = floor(5/4) = 1; (0,0)->(0,1) along the row,
	 * ->(1,1) down the column, ->(0,5)2 over its link, ->(2,5)2 */
	PATH(&m, 0, 25, 0, 1, 3, 9, 17, 25);
	LINKS(&m, 0, 25, 0 * 6 + 0, 1 * 6 + 2, 9 * 6 + 5, 9 * 6 + 2,
	      17 * 6 + 2);
	/* (0,1)1 -> (3,0)2: b = 0; -x, +y, down into (0,0)2, down 3 rows */
	PATH(&m, 1, 28, 1, 0, 2, 4, 12, 20, 28);
	/* (1,1)1 -> (0,4)2: already above it, one link */
	PATH(&m, 3, 8, 3, 8);
	LINKS(&m, 3, 8, 8 * 6 + 5);
	/* (1,1)1 -> (1,3)2: b = 0, one step -x then down into column 3 */
	PATH(&m, 3, 15, 3, 2, 7, 15);
	/* (0,0)1 -> (0,7)2 */
	PATH(&m, 0, 11, 0, 1, 3, 11);
}

static void test_hpam_up_routes(void **state)
{
	ir_machine m = hpam(2, 2, 4, 8);

	(void)state;
	/* (2,5)2 -> (0,0)1: j = 0, n = 5 > (0+1)*4-1 = 3, so chi = 3 (eq. 2):
	 * (2,5)->(2,3) along the row, ->(0,3) up, ->(1,0)1, ->(0,0)1 */
	PATH(&m, 25, 0, 25, 24, 23, 15, 7, 2, 0);
	LINKS(&m, 25, 0, 25 * 6 + 1, 24 * 6 + 1, 23 * 6 + 3, 15 * 6 + 3,
	      7 * 6 + 4, 2 * 6 + 3);
	/* (3,0)2 -> (0,1)1: j = 1, n = 0 < 1*4, so chi = 4 (eq. 2) */
	PATH(&m, 28, 1, 28, 29, 30, 31, 32, 24, 16, 8, 3, 1);
	/* (1,2)2 -> (1,0)1: j = 0, 0 <= 2 <= 3, so chi = n = 2 (eq. 2) */
	PATH(&m, 14, 2, 14, 6, 2);
	LINKS(&m, 14, 2, 14 * 6 + 3, 6 * 6 + 4);
	/* (0,7)2 -> (0,1)1: chi = 7, straight up */
	PATH(&m, 11, 1, 11, 3, 1);
	/* (3,6)2 -> (1,0)1: chi = 3 */
	PATH(&m, 34, 2, 34, 33, 32, 31, 23, 15, 7, 2);
	/* the up route is not the reverse of the down route */
	PATH(&m, 9, 0, 9, 8, 7, 2, 0);
	PATH(&m, 0, 9, 0, 1, 3, 9);
}

static void test_hpam_within_level(void **state)
{
	ir_machine m = hpam(2, 2, 4, 8);

	(void)state;
	/* level 2, X first: (3,7) -> (0,0) */
	PATH(&m, 35, 4, 35, 34, 33, 32, 31, 30, 29, 28, 20, 12, 4);
	/* level 2 never uses level 1, even between far top-row nodes */
	PATH(&m, 4, 11, 4, 5, 6, 7, 8, 9, 10, 11);
	/* level 1: (1,1) -> (0,0), column first */
	PATH(&m, 3, 0, 3, 2, 0);
	PATH(&m, 0, 3, 0, 1, 3);
}

/* Route length of the HPAM extended X-Y route, written out from 000
 * §2.3, for the all-pairs check below. */
static int hpam_len(const ir_machine *m, int32_t s, int32_t d, int32_t *cross)
{
	int r1 = m->levels[0][0], c1 = m->levels[0][1];
	int c2 = m->levels[1][1], f = c2 / c1, n1 = r1 * c1;
	int ls = s >= n1, ld = d >= n1;
	int xs = ls ? (s - n1) % c2 : s % c1, ys = ls ? (s - n1) / c2 : s / c1;
	int xd = ld ? (d - n1) % c2 : d % c1, yd = ld ? (d - n1) / c2 : d / c1;

	*cross = -1;
	if (ls == ld)
		return abs(xs - xd) + abs(ys - yd);
	if (!ls) {
		*cross = xd; /* the level-2 column entered */
		return abs(xs - xd / f) + (r1 - 1 - ys) + 1 + yd;
	} else {
		int lo = xd * f, hi = (xd + 1) * f - 1;
		int chi = xs < lo ? lo : xs > hi ? hi : xs;

		*cross = chi; /* the level-2 column left */
		return abs(xs - chi) + ys + 1 + (r1 - 1 - yd);
	}
}

/* Every pair of several HPAM machines: length as in 000 §2.3, exactly one
 * inter-level link between levels and at eq. 2's column chi, and the
 * longest route equal to ir_route_max. */
static void test_hpam_eq2_all_pairs(void **state)
{
	static const int shapes[][4] = {
	        {2, 2, 4, 8}, {1, 1, 4, 4},  {2, 4, 3, 8},  {1, 2, 2, 2},
	        {3, 1, 1, 4}, {1, 4, 5, 16}, {4, 2, 2, 16},
	};
	size_t k;

	(void)state;
	for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
		ir_machine m = hpam(shapes[k][0], shapes[k][1], shapes[k][2],
		                    shapes[k][3]);
		int n1 = shapes[k][0] * shapes[k][1], c2 = shapes[k][3];
		int32_t s, d;
		int longest = 0;

		for (s = 0; s < m.nranks; s++) {
			for (d = 0; d < m.nranks; d++) {
				uint64_t links[MAX_PATH];
				int32_t ranks[MAX_PATH], cross;
				int n = route_ranks(&m, s, d, ranks, links) - 1;
				int want = hpam_len(&m, s, d, &cross), i,
				    ups = 0, downs = 0;

				assert_int_equal(n, want);
				if (n > longest)
					longest = n;
				for (i = 0; i < n; i++) {
					int dir = (int)(links[i] % 6);
					int32_t at = (int32_t)(links[i] / 6);

					if (dir == 4) {
						ups++;
						assert_int_equal((at - n1) % c2,
						                 cross);
					} else if (dir == 5) {
						downs++;
						assert_int_equal((at - n1) % c2,
						                 cross);
					}
				}
				assert_int_equal(ups, s >= n1 && d < n1);
				assert_int_equal(downs, s < n1 && d >= n1);
			}
		}
		assert_int_equal(longest, ir_route_max(&m));
	}
}

static void test_switch_routes(void **state)
{
	ir_machine m = sw(8);
	uint64_t links[1];

	(void)state;
	LINKS(&m, 3, 5, 3 * 8 + 5);
	LINKS(&m, 5, 3, 5 * 8 + 3);
	PATH(&m, 7, 0, 7, 0);
	assert_int_equal(ir_route(&m, 4, 4, links), 0);
	assert_int_equal(ir_route_max(&m), 1);
}

/* ---- properties over all pairs -------------------------------------- */

/* Minimal hop count between two ranks of a mesh, torus or hypercube,
 * from the numbering alone. */
static int min_dist(const ir_machine *m, int32_t s, int32_t d)
{
	int dist = 0, k;

	if (m->topo == IR_HYPERCUBE) {
		uint32_t x = (uint32_t)(s ^ d);

		for (; x; x &= x - 1)
			dist++;
		return dist;
	}
	for (k = 0; k < m->ndims; k++) {
		int ext = m->dims[k], a = s % ext, b = d % ext;
		int fwd = ((b - a) % ext + ext) % ext;

		s /= ext;
		d /= ext;
		if (m->topo == IR_MESH)
			dist += abs(a - b);
		else
			dist += fwd < ext - fwd ? fwd : ext - fwd;
	}
	return dist;
}

static void test_route_properties(void **state)
{
	ir_machine ms[NSAMPLES];
	int n = sample_machines(ms), i;

	(void)state;
	for (i = 0; i < n; i++) {
		const ir_machine *m = &ms[i];
		int32_t s, d;
		int longest = 0;
		unsigned *visit = calloc((size_t)m->nranks, sizeof *visit);
		unsigned stamp = 0;

		assert_non_null(visit);
		for (s = 0; s < m->nranks; s++) {
			for (d = 0; d < m->nranks; d++) {
				uint64_t links[MAX_PATH];
				int32_t ranks[MAX_PATH];
				int k = route_ranks(m, s, d, ranks, links), j;

				if (k - 1 > longest)
					longest = k - 1;
				if (m->topo == IR_SWITCH)
					assert_int_equal(k - 1, s != d);
				else if (m->topo != IR_HPAM)
					assert_int_equal(k - 1,
					                 min_dist(m, s, d));
				/* no rank twice: routes are simple paths */
				stamp++;
				for (j = 0; j < k; j++) {
					assert_int_not_equal(visit[ranks[j]],
					                     stamp);
					visit[ranks[j]] = stamp;
				}
				/* deterministic */
				{
					uint64_t again[MAX_PATH];

					assert_int_equal(
					        ir_route(m, s, d, again),
					        k - 1);
					assert_memory_equal(
					        again, links,
					        (size_t)(k - 1) *
					                sizeof *links);
				}
			}
		}
		/* the bound is reached on every sample but a 1-rank switch */
		if (m->topo != IR_SWITCH || m->nranks > 1)
			assert_int_equal(longest, ir_route_max(m));
		free(visit);
	}
}

static void test_max_hops(void **state)
{
	ir_machine m;

	(void)state;
	m = mesh(3, 4, 3, 2);
	assert_int_equal(ir_route_max(&m), 3 + 2 + 1);
	m = torus(3, 5, 4, 2);
	assert_int_equal(ir_route_max(&m), 2 + 2 + 1);
	m = torus(2, 1, 6, 1);
	assert_int_equal(ir_route_max(&m), 3);
	m = cube(7);
	assert_int_equal(ir_route_max(&m), 7);
	/* 2x2 over 4x8: level 2 -> level 1 takes at most
	 * c2 - f + r2 + r1 - 1 = 8 - 4 + 4 + 2 - 1 = 9 hops, but corner to
	 * corner within level 2 takes c2 - 1 + r2 - 1 = 10 */
	m = hpam(2, 2, 4, 8);
	assert_int_equal(ir_route_max(&m), 10);
	/* 3x2 over 2x4, f = 2: the up route is the longest,
	 * (1,3)2 -> (1,1)2 -> (0,1)2 -> (2,0)1 -> (0,0)1 = 2 + 1 + 1 + 2;
	 * down takes 1 + 2 + 1 + 1, level 1 alone 3, level 2 alone 4 */
	m = hpam(3, 2, 2, 4);
	assert_int_equal(ir_route_max(&m), 6);
	PATH(&m, 13, 0, 13, 12, 11, 7, 4, 2, 0);
	/* a tall level 1: between the levels, 1 + 7 + 1 + 0 either way */
	m = hpam(8, 2, 1, 2);
	assert_int_equal(ir_route_max(&m), 9);
	/* a tall level 2, f = 1: between the levels, down
	 * c1 - 1 + r1 - 1 + 1 + r2 - 1 = 3 + 0 + 1 + 9 and up
	 * c2 - f + r2 - 1 + 1 + r1 - 1 = 3 + 9 + 1 + 0, one more than
	 * corner to corner in level 2 */
	m = hpam(1, 4, 10, 4);
	assert_int_equal(ir_route_max(&m), 13);
	/* a wide level 2 with one row: within level 2, c2 - 1 */
	m = hpam(1, 1, 1, 64);
	assert_int_equal(ir_route_max(&m), 63);
	m = sw(3);
	assert_int_equal(ir_route_max(&m), 1);
}

static void test_route_bad_rank(void **state)
{
	ir_machine m = mesh(2, 4, 3, 1);
	uint64_t links[16];

	(void)state;
	assert_int_equal(ir_route(&m, -1, 3, links), CCP_EINVAL);
	assert_int_equal(ir_route(&m, 3, 12, links), CCP_EINVAL);
	m = hpam(2, 2, 4, 8);
	assert_int_equal(ir_route(&m, 36, 0, links), CCP_EINVAL);
	assert_int_equal(ir_degree(&m, -1), CCP_EINVAL);
}

/* Machines at full size: routes stay within the bound and chain. */
static void test_large_machines(void **state)
{
	ir_machine m;
	int32_t ranks[MAX_PATH];
	uint64_t links[MAX_PATH];

	(void)state;
	m = torus(2, 256, 256, 1); /* 65,536 ranks */
	assert_int_equal(ir_route_max(&m), 256);
	/* (0,0) -> (128,128): both ties, + way, 256 hops */
	assert_int_equal(route_ranks(&m, 0, 128 + 128 * 256, ranks, links),
	                 257);
	assert_int_equal(ranks[128], 128);
	assert_int_equal(ranks[129], 128 + 256);
	/* (255,255) -> (0,0): one wrap in each dimension */
	assert_int_equal(route_ranks(&m, 65535, 0, ranks, links), 3);
	assert_int_equal(ranks[1], 65280);

	m = mesh(3, 256, 256, 256); /* the full 2^24 */
	assert_int_equal(m.nranks, IR_MAX_RANKS);
	assert_int_equal(route_ranks(&m, 0, IR_MAX_RANKS - 1, ranks, links),
	                 766);
	assert_true(links[764] < ir_nlinks(&m));

	m = cube(IR_MAX_CUBE_DIM);
	assert_int_equal(route_ranks(&m, 0, IR_MAX_RANKS - 1, ranks, links),
	                 25);
	assert_int_equal(ranks[24], IR_MAX_RANKS - 1);
	assert_int_equal(ranks[1], 1);

	m = hpam(4, 16, 256, 1024); /* 262,208 ranks, f = 64 */
	/* (0,0)1 -> (255,1023)2: 15 along, 3 down, the link, 255 down */
	assert_int_equal(route_ranks(&m, 0, m.nranks - 1, ranks, links) - 1,
	                 15 + 3 + 1 + 255);
	/* and back: chi = 63, so 960 along, 255 up, the link, 3 up */
	assert_int_equal(route_ranks(&m, m.nranks - 1, 0, ranks, links) - 1,
	                 960 + 255 + 1 + 3);
	assert_int_equal(ranks[960], m.nranks - 1 - 960);
	/* the longest is corner to corner within level 2 */
	assert_int_equal(ir_route_max(&m), 1023 + 255);
	assert_int_equal(route_ranks(&m, m.nranks - 1, 64, ranks, links) - 1,
	                 ir_route_max(&m));

	m = sw(IR_MAX_RANKS);
	assert_int_equal(route_ranks(&m, IR_MAX_RANKS - 1, 0, ranks, links), 2);
	assert_true(links[0] == (uint64_t)(IR_MAX_RANKS - 1) * IR_MAX_RANKS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_names),
	        cmocka_unit_test(test_check_accepts),
	        cmocka_unit_test(test_check_rejects),
	        cmocka_unit_test(test_check_err_buffer),
	        cmocka_unit_test(test_coords_hand),
	        cmocka_unit_test(test_coords_roundtrip),
	        cmocka_unit_test(test_degree),
	        cmocka_unit_test(test_nlinks),
	        cmocka_unit_test(test_links_match_degree),
	        cmocka_unit_test(test_link_ends_invalid),
	        cmocka_unit_test(test_mesh_routes),
	        cmocka_unit_test(test_torus_routes),
	        cmocka_unit_test(test_torus_extent2),
	        cmocka_unit_test(test_ecube_order),
	        cmocka_unit_test(test_hpam_down_routes),
	        cmocka_unit_test(test_hpam_up_routes),
	        cmocka_unit_test(test_hpam_within_level),
	        cmocka_unit_test(test_hpam_eq2_all_pairs),
	        cmocka_unit_test(test_switch_routes),
	        cmocka_unit_test(test_route_properties),
	        cmocka_unit_test(test_max_hops),
	        cmocka_unit_test(test_route_bad_rank),
	        cmocka_unit_test(test_large_machines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
