/*
 * test_dragonfly.c - dragonflies as machines: the link numbering and a
 * minimal route checked by hand on a small one (docs/machine-model.md
 * works the same example), every route a walk from its source to its
 * destination with host links at the ends and at most one (minimal) or
 * two (Valiant) global links, adaptive routes the union of the minimal
 * and every Valiant path, the three global-link arrangements joining
 * every pair of groups the same number of times, link capacities in the
 * verifier, and every generator whose domain names dragonflies verified
 * on dragonflies of several shapes.
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
#include "matrix.h"
#include "sched.h"
#include "support.h"

#include "claims.h"

static const int w112[] = {1, 1, 2};

/* 5 groups of 2 routers of 2 hosts, 2 global links per router (one per
 * group pair), absolute: 20 hosts, 10 routers. */
static ir_machine small_dfly(enum ir_routing r)
{
	return tu_dragonfly(5, 2, 2, 2, IR_DFLY_ABSOLUTE, NULL, 1, r, 0,
	                    IR_PORTS_ALL);
}

/* The example of docs/machine-model.md: host links 0..39 (host x up
 * 2x, down 2x + 1), local links 40..59 (router rho to router s of its
 * group: 40 + 2 rho + s), global links 60..79 (router rho, port j:
 * 60 + 2 rho + j); vertices: hosts 0..19, router rho at 20 + rho. */
static void test_numbering(void **state)
{
	(void)state;
	ir_machine m = small_dfly(IR_ROUTE_MINIMAL);
	int32_t a, b;
	assert_int_equal(m.nnodes, 20);
	assert_int_equal(m.ndims, 3);
	assert_int_equal(ir_nlinks(&m), 80);
	assert_int_equal(ir_route_max(&m), 5);
	assert_int_equal(ir_degree(&m, 7), 1);
	/* host 7 (terminal 1 of router 3) up to vertex 23 and back */
	assert_int_equal(ir_link_ends(&m, 14, &a, &b), 0);
	assert_int_equal(a, 7);
	assert_int_equal(b, 23);
	assert_int_equal(ir_link_ends(&m, 15, &a, &b), 0);
	assert_int_equal(a, 23);
	assert_int_equal(b, 7);
	/* router 2 (group 1, router 0) to router 3 */
	assert_int_equal(ir_link_ends(&m, 40 + 2 * 2 + 1, &a, &b), 0);
	assert_int_equal(a, 22);
	assert_int_equal(b, 23);
	/* no local link from a router to itself */
	assert_int_equal(ir_link_ends(&m, 40 + 2 * 2 + 0, &a, &b), CCP_EINVAL);
	/* absolute: group 0's ports 0..3 reach groups 1..4; port 1
	 * (router 0, port 1) reaches group 2 at its port 0 (group 0's
	 * offset there), router 0 of group 2: vertex 20 + 4 */
	assert_int_equal(ir_link_ends(&m, 61, &a, &b), 0);
	assert_int_equal(a, 20);
	assert_int_equal(b, 24);
	assert_int_equal(ir_link_ends(&m, 80, &a, &b), CCP_EINVAL);
	for (uint64_t l = 0; l < 80; l++) {
		assert_int_equal(ir_link_capacity(&m, l), 1);
		assert_int_equal(ir_link_class(&m, l), l < 40   ? IR_LC_HOST
		                                       : l < 60 ? IR_LC_LOCAL
		                                                : IR_LC_GLOBAL);
	}
	int c[IR_MAX_CUBE_DIM];
	ir_coords(&m, 13, c); /* 13 = 1 + 2 * (0 + 2 * 3) */
	assert_int_equal(c[0], 1);
	assert_int_equal(c[1], 0);
	assert_int_equal(c[2], 3);
	assert_int_equal(ir_rank_of(&m, c), 13);
	c[2] = 5;
	assert_int_equal(ir_rank_of(&m, c), -1);
}

/* Host 1 (group 0, router 0) -> host 13 (group 3, router 0) by hand:
 * up (2); group 0 reaches group 3 through its port 2, router 1's port
 * 0, so local 0 -> 1 (41) and global 60 + 2 + 0 (62); group 3 holds
 * the other end at its port 0 (group 0's offset), router 0, which is
 * host 13's: down (27).  Inside a router: up and down; inside a group:
 * one local link between. */
static void test_minimal_by_hand(void **state)
{
	(void)state;
	uint64_t l[8];
	ir_machine m = small_dfly(IR_ROUTE_MINIMAL);
	assert_int_equal(ir_route(&m, 1, 13, l), 4);
	assert_int_equal(l[0], 2);
	assert_int_equal(l[1], 41);
	assert_int_equal(l[2], 62);
	assert_int_equal(l[3], 27);
	assert_int_equal(ir_route(&m, 0, 1, l), 2);
	assert_int_equal(l[0], 0);
	assert_int_equal(l[1], 3);
	assert_int_equal(ir_route(&m, 0, 3, l), 3);
	assert_int_equal(l[1], 41);
	assert_int_equal(ir_route(&m, 4, 4, l), 0);
	assert_false(ir_routing_adapts(&m));
}

/* The links of a route, checked: a walk from src to dst (vertex ids),
 * host links first and last only, at most most_global global links, no
 * link twice; its length. */
static int check_walk(const ir_machine *m, int32_t src, int32_t dst,
                      int most_global)
{
	uint64_t l[16];
	int h = ir_route(m, src, dst, l);
	int32_t at = src, f, to;
	int global = 0;
	assert_true(h >= 0 && h <= ir_route_max(m));
	for (int k = 0; k < h; k++) {
		assert_int_equal(ir_link_ends(m, l[k], &f, &to), 0);
		assert_int_equal(f, at);
		at = to;
		enum ir_link_class c = ir_link_class(m, l[k]);
		assert_int_equal(c == IR_LC_HOST, k == 0 || k == h - 1);
		global += c == IR_LC_GLOBAL;
		for (int j = 0; j < k; j++)
			assert_true(l[j] != l[k]);
	}
	assert_int_equal(at, dst);
	assert_true(global <= most_global);
	return h;
}

/* Shapes every arrangement takes: g = a h + 1 (one global link per
 * pair), and fewer groups with 2 and 3 links per pair. */
struct shape {
	int g, a, p, h;
};
static const struct shape shapes[] = {
        {5, 2, 2, 2}, {9, 4, 1, 2}, {3, 2, 2, 2}, {7, 3, 1, 4}, {4, 2, 1, 3},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* Minimal and Valiant routes are walks from source to destination with
 * at most one and two global links; a minimal route between groups has
 * exactly one; Valiant's intermediate group changes with the seed and
 * stays the same for the same seed; every arrangement, every shape. */
static void test_walks(void **state)
{
	(void)state;
	for (size_t s = 0; s < NSHAPES; s++)
		for (int arr = 0; arr < IR_NDFLY_ARRANGEMENTS; arr++) {
			const struct shape *x = &shapes[s];
			if (arr == IR_DFLY_CIRCULANT && x->g % 2 == 0)
				continue;
			ir_machine mn = tu_dragonfly(
			        x->g, x->a, x->p, x->h,
			        (enum ir_dfly_arrangement)arr, NULL, 1,
			        IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL);
			ir_machine va = tu_dragonfly(
			        x->g, x->a, x->p, x->h,
			        (enum ir_dfly_arrangement)arr, NULL, 1,
			        IR_ROUTE_VALIANT, 7, IR_PORTS_ALL);
			int32_t n = mn.nnodes, per = x->a * x->p;
			for (int32_t a = 0; a < n; a++)
				for (int32_t b = 0; b < n; b++) {
					int h = check_walk(&mn, a, b, 1);
					if (a / per != b / per)
						assert_true(h >= 3);
					int hv = check_walk(&va, a, b, 2);
					assert_int_equal(ir_hops(&va, a, b),
					                 hv);
					if (a / per == b / per || x->g < 3)
						assert_int_equal(hv, h);
				}
		}
}

/* The group a Valiant route from a to b passes through: where its
 * first global link ends. */
static int32_t mid_group(const ir_machine *m, int32_t a, int32_t b)
{
	uint64_t l[16];
	int h = ir_route(m, a, b, l);
	int32_t f, t;
	for (int k = 0; k < h; k++)
		if (ir_link_class(m, l[k]) == IR_LC_GLOBAL) {
			ir_link_ends(m, l[k], &f, &t);
			return (t - m->nnodes) / m->dims[1];
		}
	return -1;
}

/* Valiant picks its intermediate group from (seed, source,
 * destination): never the source's or destination's group, every
 * other group for some seed, a fixed one for a fixed seed. */
static void test_valiant_seed(void **state)
{
	(void)state;
	bool seen[9] = {false};
	for (unsigned seed = 0; seed < 64; seed++) {
		ir_machine v =
		        tu_dragonfly(9, 4, 1, 2, IR_DFLY_RELATIVE, NULL, 1,
		                     IR_ROUTE_VALIANT, seed, IR_PORTS_ALL);
		int32_t g = mid_group(&v, 1, 30); /* group 0 -> group 7 */
		assert_true(g >= 0 && g < 9 && g != 0 && g != 7);
		assert_int_equal(mid_group(&v, 1, 30), g);
		seen[g] = true;
	}
	for (int g = 1; g < 9; g++)
		assert_true(seen[g] == (g != 7));
}

/* True when route l[0..n) holds link id. */
static bool holds(const uint64_t *l, int n, uint64_t id)
{
	for (int k = 0; k < n; k++)
		if (l[k] == id)
			return true;
	return false;
}

/* An adaptive route is the union of the minimal path and every Valiant
 * path (each intermediate group, seeds 0..63 reach them all), without
 * a link twice; ir_hops counts the minimal path, the one a message
 * takes unhindered; within a group it is the minimal route. */
static void test_adaptive_union(void **state)
{
	(void)state;
	for (size_t s = 0; s < NSHAPES; s++) {
		const struct shape *x = &shapes[s];
		ir_machine ad = tu_dragonfly(
		        x->g, x->a, x->p, x->h, IR_DFLY_ABSOLUTE, NULL, 1,
		        IR_ROUTE_ADAPTIVE, 0, IR_PORTS_ALL);
		ir_machine mn = ad;
		mn.routing = IR_ROUTE_MINIMAL;
		assert_true(ir_routing_adapts(&ad));
		assert_int_equal(ir_route_max(&ad), 2 * x->a + 3 * x->g);
		int32_t n = ad.nnodes;
		uint64_t *u = malloc((size_t)ir_route_max(&ad) * sizeof *u);
		assert_non_null(u);
		for (int32_t a = 0; a < n; a += 1 + n / 7)
			for (int32_t b = 0; b < n; b++) {
				uint64_t l[16];
				int k = ir_route(&ad, a, b, u);
				assert_true(k <= ir_route_max(&ad));
				for (int i = 0; i < k; i++)
					for (int j = 0; j < i; j++)
						assert_true(u[i] != u[j]);
				int h = ir_route(&mn, a, b, l);
				assert_int_equal(ir_hops(&ad, a, b), h);
				for (int i = 0; i < h; i++)
					assert_true(holds(u, k, l[i]));
				int paths = 0;
				for (unsigned seed = 0; seed < 64; seed++) {
					ir_machine v = mn;
					v.routing = IR_ROUTE_VALIANT;
					v.wrap = seed;
					int hv = ir_route(&v, a, b, l);
					for (int i = 0; i < hv; i++)
						assert_true(holds(u, k, l[i]));
					paths++;
				}
				assert_int_equal(paths, 64);
				if (a == b)
					assert_int_equal(k, 0);
				/* across groups with a third group: more
				 * than the minimal path; else just it */
				int per = x->a * x->p;
				if (a / per != b / per && x->g >= 3)
					assert_true(k > h);
				else
					assert_int_equal(k, h);
			}
		free(u);
	}
}

/* Every arrangement joins every ordered pair of distinct groups by
 * a * h / (g - 1) global links, each one way of a cable whose other way
 * is also a link (the two directions pair up), never a group to itself;
 * with one link per pair, relative and absolute differ and match their
 * definitions on a hand-checked port. */
static void test_arrangements(void **state)
{
	(void)state;
	for (size_t s = 0; s < NSHAPES; s++)
		for (int arr = 0; arr < IR_NDFLY_ARRANGEMENTS; arr++) {
			const struct shape *x = &shapes[s];
			if (arr == IR_DFLY_CIRCULANT && x->g % 2 == 0)
				continue;
			ir_machine m = tu_dragonfly(
			        x->g, x->a, x->p, x->h,
			        (enum ir_dfly_arrangement)arr, NULL, 1,
			        IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL);
			int g = x->g, R = g * x->a;
			int *pair = calloc((size_t)(g * g), sizeof *pair);
			int *rr = calloc((size_t)(R * R), sizeof *rr);
			assert_non_null(pair);
			assert_non_null(rr);
			uint64_t first = ir_nlinks(&m) - (uint64_t)(R * x->h);
			for (uint64_t l = first; l < ir_nlinks(&m); l++) {
				int32_t f, t;
				assert_int_equal(ir_link_ends(&m, l, &f, &t),
				                 0);
				assert_int_equal(ir_link_class(&m, l),
				                 IR_LC_GLOBAL);
				f -= m.nnodes;
				t -= m.nnodes;
				assert_true(f / x->a != t / x->a);
				pair[f / x->a * g + t / x->a]++;
				rr[f * R + t]++;
			}
			int c = x->a * x->h / (g - 1);
			for (int i = 0; i < g; i++)
				for (int j = 0; j < g; j++)
					assert_int_equal(pair[i * g + j],
					                 i == j ? 0 : c);
			for (int i = 0; i < R; i++)
				for (int j = 0; j < R; j++)
					assert_int_equal(rr[i * R + j],
					                 rr[j * R + i]);
			free(pair);
			free(rr);
		}
	/* 9 groups of 4 routers, h = 2: port k = 2r + j.  Group 3's
	 * port 5 (router 2, port 1): absolute reaches group 6 (5 + 1, as
	 * 5 >= 3), relative group 3 + 5 + 1 = 0 (mod 9), circulant
	 * offset 5 = 2 * 2 + 1: group 3 - 3 = 0 */
	static const int want[IR_NDFLY_ARRANGEMENTS] = {6, 0, 0};
	static const int back[IR_NDFLY_ARRANGEMENTS] = {
	        /* group 6's offset for 3 is 3: router 1 */
	        1,
	        /* group 0's offset for 3 is 2: router 1 */
	        1,
	        /* 3 = 0 + 3: offset 2 * 2 = 4: router 2 */
	        2};
	for (int arr = 0; arr < IR_NDFLY_ARRANGEMENTS; arr++) {
		ir_machine m = tu_dragonfly(
		        9, 4, 1, 2, (enum ir_dfly_arrangement)arr, NULL, 1,
		        IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL);
		uint64_t first = ir_nlinks(&m) - 36 * 2;
		int32_t f, t;
		assert_int_equal(
		        ir_link_ends(&m, first + (3 * 4 + 2) * 2 + 1, &f, &t),
		        0);
		assert_int_equal(f - m.nnodes, 3 * 4 + 2);
		assert_int_equal((t - m.nnodes) / 4, want[arr]);
		assert_int_equal((t - m.nnodes) % 4, back[arr]);
	}
}

/* Two transfers on one global link: hosts 2 and 3 (router 1 of group
 * 0, which holds group 0's port to group 3) to hosts 12 and 13 (router
 * 0 of group 3, which holds the other end) share only global link 62.
 * Refused with one cable, accepted with global_width 2; the widths
 * read back as capacities. */
static void test_capacity(void **state)
{
	(void)state;
	for (int wide = 0; wide < 2; wide++) {
		ir_machine m = tu_dragonfly(5, 2, 2, 2, IR_DFLY_ABSOLUTE,
		                            wide ? w112 : NULL, 1,
		                            IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL);
		assert_int_equal(ir_link_capacity(&m, 62), wide ? 2 : 1);
		assert_int_equal(ir_link_capacity(&m, 41), 1);
		assert_int_equal(ir_link_phases(&m, 62, 2), wide ? 1 : 2);
		ir_comm c = tu_comm(IR_ALLTOALL, 0, 8);
		ir_plan p;
		ir_report r;
		ir_plan_init(&p, &m, &c, "hand");
		assert_int_equal(ir_plan_phase(&p), 0);
		for (int32_t s = 2; s < 4; s++) {
			ir_block b = {s, 10 + s};
			assert_int_equal(ir_plan_add(&p, s, 10 + s, &b, 1, 0),
			                 0);
		}
		int rc = ir_verify(&p, &r);
		assert_int_equal(rc, CCP_EVERIFY); /* blocks not delivered */
		assert_int_equal(r.max_link_load, wide ? 1 : 2);
		if (wide)
			assert_null(strstr(r.message, "link:"));
		else
			assert_non_null(strstr(r.message, "link:"));
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
}

/* Adaptive routing holds a plan to its worst case: hosts 0 -> 12 and
 * 4 -> 16 (groups 0 -> 3 and 1 -> 4) share no link on their minimal
 * paths, so minimal routing verifies the phase, but some Valiant path
 * of each crosses the other's, so adaptive routing refuses it. */
static void test_adaptive_worst_case(void **state)
{
	(void)state;
	for (int adapt = 0; adapt < 2; adapt++) {
		ir_machine m = small_dfly(adapt ? IR_ROUTE_ADAPTIVE
		                                : IR_ROUTE_MINIMAL);
		ir_comm c = tu_comm(IR_ALLTOALL, 0, 8);
		ir_plan p;
		ir_report r;
		ir_plan_init(&p, &m, &c, "hand");
		assert_int_equal(ir_plan_phase(&p), 0);
		static const int32_t pr[2][2] = {{0, 12}, {4, 16}};
		for (int i = 0; i < 2; i++) {
			ir_block b = {pr[i][0], pr[i][1]};
			assert_int_equal(
			        ir_plan_add(&p, pr[i][0], pr[i][1], &b, 1, 0),
			        0);
		}
		assert_int_equal(ir_verify(&p, &r), CCP_EVERIFY);
		assert_int_equal(r.max_link_load, adapt ? 2 : 1);
		if (adapt)
			assert_non_null(strstr(r.message, "link:"));
		else
			assert_null(strstr(r.message, "link:"));
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
}

/* What ir_machine_check refuses, naming the field. */
static void test_refused(void **state)
{
	(void)state;
	ir_machine m = small_dfly(IR_ROUTE_MINIMAL);
	char err[256];
	ir_machine b = m;
	b.dims[2] = 4; /* a h = 4 is not a multiple of 3 */
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	assert_non_null(strstr(err, "dims[2] (groups)"));
	b = m;
	b.dims[2] = 6; /* more than a h + 1 */
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	b = m;
	b.dims[2] = 3; /* two links per pair: fine */
	assert_int_equal(ir_machine_check(&b, err, sizeof err), 0);
	b.dims[4] = IR_DFLY_CIRCULANT; /* 3 groups: odd, fine */
	assert_int_equal(ir_machine_check(&b, err, sizeof err), 0);
	b = m;
	b.dims[2] = 2;
	b.dims[4] = IR_DFLY_CIRCULANT;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	assert_non_null(strstr(err, "odd"));
	b = m;
	b.dims[4] = IR_NDFLY_ARRANGEMENTS;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	assert_non_null(strstr(err, "dims[4] (global-link arrangement)"));
	b = m;
	b.dims[1] = 0;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	assert_non_null(strstr(err, "dims[1] (routers per group)"));
	b = m;
	b.dims[6] = 2;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	b = m;
	b.levels[1][0] = -1;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	assert_non_null(strstr(err, "global link width"));
	b = m;
	b.levels[1][1] = 2;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	b = m;
	b.order[1] = 1;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	b = m;
	b.routing = IR_ROUTE_D_MOD_K;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	assert_non_null(strstr(err, "adaptive, minimal, valiant or source"));
	b = m;
	b.dims[0] = 1 << 22; /* 2^22 x 10 routers */
	assert_int_equal(ir_machine_check(&b, err, sizeof err), CCP_EINVAL);
	assert_non_null(strstr(err, "IR_MAX_RANKS"));
	/* one group: no global link leads anywhere */
	b = m;
	b.dims[2] = 1;
	assert_int_equal(ir_machine_check(&b, err, sizeof err), 0);
	int32_t f, t;
	assert_int_equal(ir_link_ends(&b, ir_nlinks(&b) - 1, &f, &t),
	                 CCP_EINVAL);
	assert_int_equal(check_walk(&b, 0, 3, 0), 3);
}

/* ---- generators ------------------------------------------------------ */

#define NDFLY 10
static ir_machine dfly[NDFLY];
static const char *dfly_names[NDFLY];

static void make_dfly(void)
{
	int k = 0;
	if (dfly_names[0])
		return;
	dfly_names[k] = "5x2x2 h2 absolute minimal";
	dfly[k++] = small_dfly(IR_ROUTE_MINIMAL);
	dfly_names[k] = "5x2x2 h2 absolute valiant";
	dfly[k++] = small_dfly(IR_ROUTE_VALIANT);
	dfly_names[k] = "5x2x2 h2 absolute adaptive";
	dfly[k++] = small_dfly(IR_ROUTE_ADAPTIVE);
	dfly_names[k] = "9x4x1 h2 relative minimal";
	dfly[k++] = tu_dragonfly(9, 4, 1, 2, IR_DFLY_RELATIVE, NULL, 1,
	                         IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL);
	dfly_names[k] = "3x2x2 h2 circulant valiant, global width 2";
	dfly[k++] = tu_dragonfly(3, 2, 2, 2, IR_DFLY_CIRCULANT, w112, 1,
	                         IR_ROUTE_VALIANT, 5, IR_PORTS_ALL);
	dfly_names[k] = "4x2x2 h3 relative adaptive, 2-rank nodes";
	dfly[k++] = tu_dragonfly(4, 2, 2, 3, IR_DFLY_RELATIVE, NULL, 2,
	                         IR_ROUTE_ADAPTIVE, 0, IR_PORTS_ALL);
	dfly_names[k] = "5x2x2 h2 circulant minimal, 2-rank nodes";
	dfly[k++] = tu_dragonfly(5, 2, 2, 2, IR_DFLY_CIRCULANT, NULL, 2,
	                         IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL);
	dfly_names[k] = "5x2x2 h2 absolute valiant, 2-rank nodes";
	dfly[k++] = tu_dragonfly(5, 2, 2, 2, IR_DFLY_ABSOLUTE, NULL, 2,
	                         IR_ROUTE_VALIANT, 1, IR_PORTS_ALL);
	dfly_names[k] = "7x3x2 h2 relative minimal, 2-rank nodes, width 2";
	dfly[k++] = tu_dragonfly(7, 3, 2, 2, IR_DFLY_RELATIVE, w112, 2,
	                         IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL);
	dfly_names[k] = "7x3x1 h2 absolute minimal, one port";
	dfly[k++] = tu_dragonfly(7, 3, 1, 2, IR_DFLY_ABSOLUTE, NULL, 1,
	                         IR_ROUTE_MINIMAL, 0, 1);
	assert_int_equal(k, NDFLY);
}

/* Every generator whose domain names dragonflies verifies on each of them it
 * applies to (claims.h). */
static void test_generators(void **state)
{
	(void)state;
	make_dfly();
	int claiming = claims_verify(IR_DRAGONFLY, dfly, dfly_names, NDFLY);
	print_message("%d generators claim dragonflies\n", claiming);
	assert_true(claiming >= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_numbering),
	        cmocka_unit_test(test_minimal_by_hand),
	        cmocka_unit_test(test_walks),
	        cmocka_unit_test(test_valiant_seed),
	        cmocka_unit_test(test_adaptive_union),
	        cmocka_unit_test(test_arrangements),
	        cmocka_unit_test(test_capacity),
	        cmocka_unit_test(test_adaptive_worst_case),
	        cmocka_unit_test(test_refused),
	        cmocka_unit_test(test_generators),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
