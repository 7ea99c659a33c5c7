/*
 * test_sld.c - SLD, single-level dominating node broadcast (001 section
 * 3.2; schedules/sld.c).
 *
 * Every plan must pass the verifier contention-free (flags 0, link load
 * at most 1, no duplicates) with exactly one transfer per receiving rank,
 * each carrying every segment.  The dominating set D is read back from
 * the plan, never from the generator: the root and the ranks that
 * receive before the last phase.  The test then checks, independently,
 * that the last phase only has members of D send to mesh neighbours
 * outside D (so D dominates the mesh), that no member but the root could
 * be dropped, that the plan has ceil(log2 |D|) + 1 phases (001 3.2.4:
 * U-mesh to D, then one step), and that it never has more than rd's
 * ceil(log2 N).  On small meshes |D| is compared with the smallest
 * dominating set containing the root, found by exhaustive search.  The
 * table of docs/sld.md is printed by test_table.
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

/* ---- helpers -------------------------------------------------------- */

/* An X x Y mesh (Y = 0: a line of X), dimension-order routing. */
static ir_machine mesh(int X, int Y, int ports)
{
	return tu_machine(IR_MESH, ports, X, Y, 0, 0);
}

static ir_comm bcast(int32_t root, int32_t segments)
{
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	c.root = root;
	c.bytes = 4096;
	c.segments = segments;
	return c;
}

static uint32_t ceil_log2(int64_t v)
{
	uint32_t k = 0;
	while ((INT64_C(1) << k) < v)
		k++;
	return k;
}

/* Manhattan distance of two ranks of a 2D (or 1D) mesh. */
static int dist(const ir_machine *m, int32_t a, int32_t b)
{
	int ca[IR_MAX_CUBE_DIM], cb[IR_MAX_CUBE_DIM];
	ir_coords(m, a, ca);
	ir_coords(m, b, cb);
	int d = 0;
	for (int k = 0; k < m->ndims; k++)
		d += abs(ca[k] - cb[k]);
	return d;
}

/* What one SLD plan measured. */
struct run {
	uint32_t phases; /* sld's phases */
	int32_t dsize;   /* |D|, the root counted */
};

/* Phases of a verified plan of generator g (which must apply). */
static uint32_t phases_of(const struct sch_generator *g, const ir_machine *m,
                          const ir_comm *c)
{
	char why[256] = "";
	struct sch_options o = {0};
	ir_plan p;
	ir_report r;
	memset(&r, 0, sizeof r);
	assert_int_equal(sch_applies(g, m, c, why, sizeof why), 0);
	assert_int_equal(g->generate(m, c, &o, &p), 0);
	assert_int_equal(ir_verify(&p, &r), 0);
	uint32_t n = r.phases;
	ir_report_fini(&r);
	ir_plan_fini(&p);
	return n;
}

/* Generate SLD from root with segs segments, verify it and check
 * everything the file comment lists; returns the phases and |D|. */
static struct run check(const ir_machine *m, int32_t root, int32_t segs)
{
	char why[256] = "";
	struct sch_options o = {0};
	ir_comm c = bcast(root, segs);
	ir_plan p;
	ir_report r;
	memset(&r, 0, sizeof r);
	int32_t n = m->nranks;
	int rc = sch_applies(&sch_sld, m, &c, why, sizeof why);
	if (rc)
		print_message("  sld: applies: %s\n", why);
	assert_int_equal(rc, 0);
	assert_int_equal(sch_sld.generate(m, &c, &o, &p), 0);
	assert_int_equal(p.flags, 0);
	rc = ir_verify(&p, &r);
	if (rc)
		print_message("  sld %dx%d root %d: verifier: %s\n", m->dims[0],
		              m->dims[1], (int)root, r.message);
	assert_int_equal(rc, 0);
	assert_true(r.ok);
	assert_int_equal(r.duplicates, 0);
	assert_true(r.max_link_load <= 1);
	assert_int_equal(r.transfers, (uint64_t)(n - 1));
	assert_int_equal(r.phases, p.nphases);

	/* every transfer carries the whole message, in segment order */
	for (uint32_t t = 0; t < p.ntransfers; t++) {
		const ir_transfer *x = p.transfers + t;
		assert_int_equal(x->nblocks, (uint32_t)segs);
		for (uint32_t s = 0; s < x->nblocks; s++) {
			assert_int_equal(p.blocks[x->block + s].origin, root);
			assert_int_equal(p.blocks[x->block + s].index,
			                 (int32_t)s);
		}
	}

	/* D: the root and whoever receives before the last phase */
	uint8_t *in = calloc((size_t)n, 1);
	assert_non_null(in);
	in[root] = 1;
	int32_t dsize = 1;
	for (uint32_t k = 0; k + 1 < p.nphases; k++) {
		const ir_phase *ph = p.phases + k;
		for (uint32_t i = 0; i < ph->ntransfers; i++) {
			int32_t d = p.transfers[ph->transfer + i].dst;
			assert_int_equal(in[d], 0);
			in[d] = 1;
			dsize++;
		}
	}
	if (n > 1) {
		/* the last phase: members to neighbours outside D; with the
		 * verifier's delivery check this covers every other rank */
		const ir_phase *ph = p.phases + p.nphases - 1;
		assert_int_equal(ph->ntransfers, (uint32_t)(n - dsize));
		for (uint32_t i = 0; i < ph->ntransfers; i++) {
			const ir_transfer *x = p.transfers + ph->transfer + i;
			assert_int_equal(in[x->src], 1);
			assert_int_equal(in[x->dst], 0);
			assert_int_equal(dist(m, x->src, x->dst), 1);
		}
		/* 001 3.2.4: U-mesh to D, then one step */
		assert_int_equal(p.nphases, ceil_log2(dsize) + 1);
	} else {
		assert_int_equal(p.nphases, 0);
	}
	/* no member but the root is redundant: each dominates some rank
	 * that no other member dominates (cnt[v]: members next to or at v) */
	int X = m->dims[0], Y = m->dims[1];
	static const int step[5][2] = {
	        {0, 0}, {1, 0}, {-1, 0}, {0, 1}, {0, -1}};
	uint8_t *cnt = calloc((size_t)n, 1);
	assert_non_null(cnt);
	for (int32_t v = 0; v < n; v++)
		for (int i = 0; i < 5; i++) {
			int x = v % X + step[i][0], y = v / X + step[i][1];
			if (x >= 0 && x < X && y >= 0 && y < Y)
				cnt[v] += in[x + X * y];
		}
	for (int32_t d = 0; d < n; d++) {
		if (!in[d] || d == root)
			continue;
		bool private_node = false;
		for (int i = 0; i < 5; i++) {
			int x = d % X + step[i][0], y = d / X + step[i][1];
			if (x >= 0 && x < X && y >= 0 && y < Y)
				private_node |= cnt[x + X * y] == 1;
		}
		assert_true(private_node);
	}
	free(cnt);
	free(in);
	struct run out = {p.nphases, dsize};
	ir_report_fini(&r);
	ir_plan_fini(&p);
	return out;
}

/* Exhaustive search for small dominating sets on an X x Y mesh
 * (N <= 64, one bit per rank): to dominate the lowest undominated rank,
 * one of its at most 5 closed neighbours must be a member; try each. */
static uint64_t nbmask(int X, int Y, int r)
{
	int x = r % X, y = r / X;
	uint64_t b = UINT64_C(1) << r;
	if (x > 0)
		b |= UINT64_C(1) << (r - 1);
	if (x < X - 1)
		b |= UINT64_C(1) << (r + 1);
	if (y > 0)
		b |= UINT64_C(1) << (r - X);
	if (y < Y - 1)
		b |= UINT64_C(1) << (r + X);
	return b;
}

/* Whether k more members can dominate the ranks of full outside have. */
static bool bf_fill(const uint64_t *nb, int k, uint64_t have, uint64_t full)
{
	if (have == full)
		return true;
	uint64_t left = full & ~have;
	int n = 0, v = 0;
	for (uint64_t t = left; t; t &= t - 1)
		n++;
	if (n > 5 * k) /* one member dominates at most 5 ranks */
		return false;
	while (!(left >> v & 1u))
		v++;
	for (int w = 0; w < 64; w++)
		if ((nb[v] >> w & 1u) && bf_fill(nb, k - 1, have | nb[w], full))
			return true;
	return false;
}

/* Whether the X x Y mesh has a dominating set of at most size members
 * that holds root.  Searched on the transpose when X > Y (the same
 * graph; the search is much faster along the shorter side). */
static bool has_dominating(int X, int Y, int root, int size)
{
	if (X > Y)
		return has_dominating(Y, X, root / X + Y * (root % X), size);
	int n = X * Y;
	uint64_t nb[64];
	assert_true(n <= 64);
	if (size < 1)
		return false;
	for (int r = 0; r < n; r++)
		nb[r] = nbmask(X, Y, r);
	uint64_t full = n == 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
	return bf_fill(nb, size - 1, nb[root], full);
}

/* ---- tests ----------------------------------------------------------- */

/* Where SLD applies (001 3.2: all-port 2D mesh, dimension-ordered
 * routing), and that every refusal says why. */
static void test_applies(void **state)
{
	(void)state;
	char why[256];
	ir_comm c = bcast(0, 1);
	ir_machine ok[] = {mesh(4, 4, IR_PORTS_ALL), mesh(6, 9, 4),
	                   mesh(2, 2, 2), mesh(7, 0, IR_PORTS_ALL),
	                   mesh(7, 0, 2)};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		assert_int_equal(sch_applies(&sch_sld, ok + i, &c, why, sizeof why),
		                 0);
	ir_machine no[] = {tu_machine(IR_TORUS, IR_PORTS_ALL, 4, 4, 0, 0),
	                   tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 4, 0),
	                   tu_machine(IR_HYPERCUBE, IR_PORTS_ALL, 4, 0, 0, 0),
	                   tu_machine(IR_SWITCH, IR_PORTS_ALL, 16, 0, 0, 0),
	                   mesh(4, 4, 1),
	                   mesh(4, 4, 3),
	                   mesh(2, 2, 1)};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
		why[0] = '\0';
		assert_int_equal(sch_applies(&sch_sld, no + i, &c, why, sizeof why),
		                 CCP_ENOTAPPLY);
		assert_non_null(strstr(why, "sld"));
	}
	ir_machine t = tu_machine(IR_TORUS, IR_PORTS_ALL, 4, 4, 0, 0);
	sch_applies(&sch_sld, &t, &c, why, sizeof why);
	assert_non_null(strstr(why, "torus"));
	ir_comm sc = bcast(0, 1);
	sc.coll = IR_SCATTER;
	assert_int_equal(sch_applies(&sch_sld, ok, &sc, why, sizeof why),
	                 CCP_ENOTAPPLY);
	ir_machine big = mesh(128, 128, IR_PORTS_ALL);
	ir_comm many = bcast(0, 65536);
	assert_int_equal(sch_applies(&sch_sld, &big, &many, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "segments"));
}

/* 001 Fig. 3.3: 4x4 mesh, source (2,0), 3 steps.  The thesis' D,
 * {(0,2),(1,0),(2,3),(3,1)}, leaves the source out and reaches the 5
 * nodes in 2 steps with all-port sends; SLD here takes the mirror
 * pattern {(2,0),(0,1),(1,3),(3,2)}, which holds the source, and U-mesh
 * reaches it in 2 one-port steps: 3 in all, as in the thesis. */
static void test_fig33(void **state)
{
	(void)state;
	ir_machine m = mesh(4, 4, IR_PORTS_ALL);
	struct run r = check(&m, 2 + 4 * 0, 1);
	assert_int_equal(r.phases, 3);
	assert_int_equal(r.dsize, 4);
	/* the members reached by U-mesh: (0,1), (1,3), (3,2) */
	ir_comm c = bcast(2, 1);
	struct sch_options o = {0};
	ir_plan p;
	assert_int_equal(sch_sld.generate(&m, &c, &o, &p), 0);
	int reached = 0;
	for (uint32_t k = 0; k + 1 < p.nphases; k++)
		for (uint32_t i = 0; i < p.phases[k].ntransfers; i++) {
			int32_t d = p.transfers[p.phases[k].transfer + i].dst;
			assert_true(d == 0 + 4 * 1 || d == 1 + 4 * 3 ||
			            d == 3 + 4 * 2);
			reached++;
		}
	assert_int_equal(reached, 3);
	ir_plan_fini(&p);
}

/* Every source of small meshes (N <= 64), against exhaustive search:
 * no dominating set holding the source has two members fewer than
 * SLD's D (one fewer on the 4x4 of Fig. 3.2(d)), and none is small
 * enough to save a phase (2^(ceil(log2 |D|) - 1) members), so the
 * phases are the fewest any SLD plan can have: the generator's own
 * exact search for meshes of at most 64 ranks never misses. */
static void test_small_every_source(void **state)
{
	(void)state;
	static const int shapes[][2] = {{4, 4}, {5, 5},  {2, 2}, {3, 3}, {2, 9},
	                                {9, 2}, {3, 7},  {4, 5}, {5, 4}, {4, 6},
	                                {3, 8}, {5, 6},  {6, 6}, {7, 7}, {8, 7},
	                                {8, 8}, {4, 16}, {16, 4}};
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		int X = shapes[s][0], Y = shapes[s][1];
		ir_machine m = mesh(X, Y, IR_PORTS_ALL);
		ir_comm c0 = bcast(0, 1);
		uint32_t rd = phases_of(&sch_rd, &m, &c0);
		for (int32_t root = 0; root < m.nranks; root++) {
			struct run r = check(&m, root, 2);
			int32_t half = 1 << (ceil_log2(r.dsize) - 1);
			assert_false(has_dominating(X, Y, root, r.dsize - 2));
			if (r.dsize > 1)
				assert_false(has_dominating(X, Y, root, half));
			if (X == 4 && Y == 4)
				assert_false(has_dominating(X, Y, root,
				                            r.dsize - 1));
			assert_true(r.phases <= rd);
		}
	}
}

/* Lines (1D meshes): the path's pattern (x mod 3), any length. */
static void test_lines(void **state)
{
	(void)state;
	for (int X = 1; X <= 17; X++) {
		ir_machine m = mesh(X, 0, IR_PORTS_ALL);
		ir_machine v = mesh(1, X, IR_PORTS_ALL); /* a 1 x X column */
		for (int32_t root = 0; root < X; root++) {
			struct run r = check(&m, root, 1);
			struct run q = check(&v, root, 1);
			/* ceil(X / 3) covers a path; the root may cost one */
			assert_true(r.dsize <= (X + 2) / 3 + 1);
			assert_int_equal(r.dsize, q.dsize);
			if (X > 1)
				assert_true(r.phases <= ceil_log2(X));
		}
	}
}

/* Segments travel together, and a port count equal to the largest
 * degree is as good as all-port. */
static void test_segments_and_ports(void **state)
{
	(void)state;
	ir_machine m = mesh(6, 5, 4);
	for (int32_t root = 0; root < m.nranks; root += 7) {
		struct run a = check(&m, root, 5);
		struct run b = check(&m, root, 1);
		assert_int_equal(a.phases, b.phases);
		assert_int_equal(a.dsize, b.dsize);
	}
}

/* One row of the docs/sld.md table: every source (step 1) or a sample,
 * checked; |D| and phases min..max (and how many sources take the
 * fewer phases), against rd, the thesis, and for meshes at least 16 on
 * a side the domination number floor((X+2)(Y+2)/5) - 4 (Goncalves,
 * Pinlou, Rao and Thomasse, 2011), which D, holding the root, may only
 * exceed by a little. */
static void table_row(int X, int Y, int step)
{
	ir_machine m = mesh(X, Y, IR_PORTS_ALL);
	int32_t n = m.nranks, dmin = n, dmax = 0, tried = 0, fewer = 0;
	uint32_t pmin = UINT32_MAX, pmax = 0, rd = 0;
	uint32_t *ph = calloc((size_t)n, sizeof *ph);
	assert_non_null(ph);
	for (int32_t root = 0; root < n; root += step, tried++) {
		struct run r = check(&m, root, 1);
		ph[tried] = r.phases;
		dmin = r.dsize < dmin ? r.dsize : dmin;
		dmax = r.dsize > dmax ? r.dsize : dmax;
		pmin = r.phases < pmin ? r.phases : pmin;
		pmax = r.phases > pmax ? r.phases : pmax;
	}
	for (int32_t i = 0; i < tried; i++)
		fewer += ph[i] == pmin;
	free(ph);
	ir_comm c = bcast(n / 3, 1);
	rd = phases_of(&sch_rd, &m, &c);
	assert_int_equal(rd, ceil_log2(n));
	assert_true(pmax <= rd);
	char gamma[16] = "-";
	if (X >= 16 && Y >= 16) {
		int g = (X + 2) * (Y + 2) / 5 - 4;
		assert_true(dmax <= g + 2);
		snprintf(gamma, sizeof gamma, "%d", g);
	}
	char phases[64];
	if (pmin == pmax)
		snprintf(phases, sizeof phases, "%u", pmin);
	else
		snprintf(phases, sizeof phases, "%u-%u (%d of %d: %u)", pmin,
		         pmax, (int)fewer, (int)tried, pmin);
	print_message("  | %dx%d | %d | %d | %d-%d | %s | %.1f | %.1f | %s | "
	              "%u | %u |\n",
	              X, Y > 0 ? Y : 1, (int)n, (int)tried, (int)dmin,
	              (int)dmax, gamma, n / 5.0, n / 4.0, phases, rd,
	              ceil_log2(n) - 1);
}

/* The measured table of docs/sld.md. */
static void test_table(void **state)
{
	(void)state;
	print_message("  | mesh | N | sources | D | gamma | N/5 | N/4 | sld | "
	              "rd | thesis |\n");
	table_row(4, 4, 1);
	table_row(5, 5, 1);
	table_row(6, 9, 1);
	table_row(9, 6, 1);
	table_row(8, 8, 1);
	table_row(10, 10, 1);
	table_row(12, 12, 1);
	table_row(4, 16, 1);
	table_row(2, 32, 1);
	table_row(3, 40, 1);
	table_row(4, 32, 1);
	table_row(16, 8, 1);
	table_row(8, 32, 3);
	table_row(16, 16, 1);
	table_row(20, 20, 7);
	table_row(32, 32, 13);
	table_row(64, 16, 29);
	table_row(64, 64, 331);
	table_row(128, 128, 4099);
	table_row(32, 0, 1);
	table_row(100, 0, 1);
}

/* Square meshes of 2^n x 2^n reach the thesis' ceil(log2 N) - 1
 * (001 3.2.4): 8x8 from every source (the exact search finds a 16-node
 * D for each), the larger ones from corners and the middle. */
static void test_thesis_steps(void **state)
{
	(void)state;
	ir_machine m8 = mesh(8, 8, IR_PORTS_ALL);
	for (int32_t root = 0; root < m8.nranks; root++)
		assert_int_equal(check(&m8, root, 1).phases, 5);
	static const int shapes[][2] = {{32, 32}, {128, 128}, {16, 16}};
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		ir_machine m = mesh(shapes[s][0], shapes[s][1], IR_PORTS_ALL);
		int32_t roots[] = {0, m.nranks - 1, m.nranks / 2 + 3,
		                   m.dims[0] - 1};
		for (int i = 0; i < 4; i++) {
			struct run r = check(&m, roots[i], 1);
			assert_int_equal(r.phases, ceil_log2(m.nranks) - 1);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_applies),
	        cmocka_unit_test(test_fig33),
	        cmocka_unit_test(test_small_every_source),
	        cmocka_unit_test(test_lines),
	        cmocka_unit_test(test_segments_and_ports),
	        cmocka_unit_test(test_table),
	        cmocka_unit_test(test_thesis_steps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
