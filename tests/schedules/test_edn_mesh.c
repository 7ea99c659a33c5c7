/*
 * test_edn_mesh.c - the EDN broadcast (001 §3.3, §3.4): every generated
 * plan must pass the verifier with no duplicates, and the phase counts
 * over the sources must reproduce the min/max of 001 Tables 3.1-3.4
 * (square 2D meshes) and the step counts of 001 Table 3.5 (3D meshes);
 * rectangular 2D meshes keep the phase counts measured when they were
 * added (docs/edn-mesh.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "edn_mesh.h"
#include "sched.h"

/* An all-port X x Y (x Z) mesh with dimension-order routing. */
static ir_machine mesh(int x, int y, int z, int ports)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = IR_MESH;
	m.routing = IR_ROUTE_DIM_ORDER;
	m.ndims = z > 1 ? 3 : 2;
	m.dims[0] = x;
	m.dims[1] = y;
	m.dims[2] = z;
	m.ports = ports;
	char err[128];
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	return m;
}

/* Generate and verify the broadcast from root; the phase count, and the
 * hops and transfers added to *hops, *xfers. */
static uint32_t run(const ir_machine *m, int32_t root, uint64_t *hops,
                    uint64_t *xfers)
{
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	c.root = root;
	c.bytes = 1000;
	c.segments = 1;
	ir_plan p;
	ir_report r;
	memset(&r, 0, sizeof r);
	assert_int_equal(sch_edn.generate(m, &c, NULL, &p), 0);
	int rc = ir_verify(&p, &r);
	if (rc)
		print_error("root %d: %s\n", root, r.message);
	assert_int_equal(rc, 0);
	assert_true(r.ok);
	assert_int_equal(r.duplicates, 0);
	assert_int_equal(r.transfers, (uint64_t)m->nranks - 1);
	assert_int_equal(p.flags, 0);
	*hops += r.hops;
	*xfers += r.transfers;
	uint32_t ph = r.phases;
	ir_report_fini(&r);
	ir_plan_fini(&p);
	return ph;
}

/* Whether v is in the list. */
static bool in(const int *l, int n, int v)
{
	for (int i = 0; i < n; i++)
		if (l[i] == v)
			return true;
	return false;
}

/* Add v and its neighbours (inside 0..n-1) to the list. */
static void pick_near(int *l, int *np, int v, int n, int spread)
{
	for (int o = -spread; o <= spread; o++)
		if (v + o >= 0 && v + o < n && *np < 32 && !in(l, *np, v + o))
			l[(*np)++] = v + o;
}

/* Phases of the broadcasts of an n x n mesh, min and max over every
 * source.  Small meshes: every source generated and verified.  Larger
 * ones: the sources whose x and y are each 0, n-1 or a top root's
 * coordinate (+-1 up to 64 wide) are generated and verified -- every
 * startup case, since the startup depends only on where the source lies
 * relative to the top roots -- and checked to have startup + tree
 * height phases; up to 64 wide min and max also come from that count
 * for all sources (bench_edn sweeps every source of the largest). */
static void sweep(int n, uint32_t *mn, uint32_t *mx, double *avg_hops)
{
	ir_machine m = mesh(n, n, 1, IR_PORTS_ALL);
	*mn = UINT32_MAX;
	*mx = 0;
	uint64_t hops = 0, xfers = 0;
	if (n <= 24) {
		for (int32_t r = 0; r < m.nranks; r++) {
			uint32_t ph = run(&m, r, &hops, &xfers);
			*mn = ph < *mn ? ph : *mn;
			*mx = ph > *mx ? ph : *mx;
		}
		*avg_hops = (double)hops / (double)xfers;
		return;
	}
	/* the top roots: receivers of the startup from corner 0 */
	int xs[32], ys[32], nx = 0, ny = 0, spread = n <= 64;
	pick_near(xs, &nx, 0, n, 0);
	pick_near(xs, &nx, n - 1, n, 0);
	pick_near(ys, &ny, 0, n, 0);
	pick_near(ys, &ny, n - 1, n, 0);
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	c.bytes = 1;
	c.segments = 1;
	for (int32_t src = 0; src < 2; src++) {
		c.root = src ? m.nranks - 1 : 0;
		ir_plan p;
		int su, h;
		assert_int_equal(sch_edn.generate(&m, &c, NULL, &p), 0);
		assert_int_equal(sch__edn_steps(&m, c.root, &su, &h), 0);
		for (uint32_t t = 0;
		     t < p.phases[(uint32_t)su - 1].transfer +
		                 p.phases[(uint32_t)su - 1].ntransfers;
		     t++) {
			pick_near(xs, &nx, p.transfers[t].dst % n, n, spread);
			pick_near(ys, &ny, p.transfers[t].dst / n, n, spread);
		}
		ir_plan_fini(&p);
	}
	for (int i = 0; i < nx; i++)
		for (int j = 0; j < ny; j++) {
			int32_t r = xs[i] + n * ys[j];
			uint32_t ph = run(&m, r, &hops, &xfers);
			int su, h;
			assert_int_equal(sch__edn_steps(&m, r, &su, &h), 0);
			assert_int_equal((int)ph, su + h);
			*mn = ph < *mn ? ph : *mn;
			*mx = ph > *mx ? ph : *mx;
		}
	for (int32_t r = 0; n <= 64 && r < m.nranks; r++) {
		int su, h;
		assert_int_equal(sch__edn_steps(&m, r, &su, &h), 0);
		uint32_t ph = (uint32_t)(su + h);
		*mn = ph < *mn ? ph : *mn;
		*mx = ph > *mx ? ph : *mx;
	}
	*avg_hops = (double)hops / (double)xfers;
}

/* 001 Tables 3.1-3.4: k+3 / k+3 for 4*2^k, k+3 / k+4 for 5, 6, 7 * 2^k,
 * k = 0..5. */
static void test_tables(void **state)
{
	(void)state;
	printf("  b   k    n  min  max  hops/transfer\n");
	for (int b = 4; b <= 7; b++)
		for (int k = 0; k <= 5; k++) {
			int n = b << k;
			uint32_t mn, mx;
			double hops;
			sweep(n, &mn, &mx, &hops);
			printf("  %d  %2d  %3d  %3u  %3u  %.3f\n", b, k, n, mn,
			       mx, hops);
			fflush(stdout);
			assert_int_equal(mn, (uint32_t)k + 3);
			assert_int_equal(mx, (uint32_t)k + (b == 4 ? 3 : 4));
		}
}

/* 001 §3.3.5: average path length of EDN on a 32x32 mesh (thesis: 1.86
 * hops; ours is reported, the patterns differ). */
static void test_path_length(void **state)
{
	(void)state;
	ir_machine m = mesh(32, 32, 1, IR_PORTS_ALL);
	uint64_t hops = 0, xfers = 0;
	for (int32_t r = 0; r < m.nranks; r += 37)
		run(&m, r, &hops, &xfers);
	double avg = (double)hops / (double)xfers;
	printf("  32x32: %.3f hops per transfer (thesis 1.86, RD 4.16)\n", avg);
	assert_true(avg > 1.0 && avg < 4.16);
}

/* Every 2D shape (bx*2^kx) x (by*2^ky) with bx, by = 4..7 and kx, ky <=
 * 3: the phases over every source (startup + height, sch__edn_step_range)
 * are those of the hierarchy edn_build makes -- base height (1 for 4x4,
 * else 2), one level per 2 x 2 doubling, one per 1 x 4 quadrupling or
 * 1 x 2 doubling of a taller mesh, one per 2 x 1 doubling of a wider one
 * -- plus a startup of 2 steps from every source of a 4x4-based mesh and
 * of 1 or 2 from the others, as measured (docs/edn-mesh.md). */
static void test_rectangle_levels(void **state)
{
	(void)state;
	for (int bx = 4; bx <= 7; bx++)
		for (int by = 4; by <= 7; by++)
			for (int kx = 0; kx <= 3; kx++)
				for (int ky = 0; ky <= 3; ky++) {
					ir_machine m = mesh(bx << kx, by << ky,
					                    1, IR_PORTS_ALL);
					int sq = kx < ky ? kx : ky;
					int d = kx + ky - 2 * sq;
					int lv = sq +
					         (kx > ky ? d : d / 2 + d % 2);
					int four = bx == 4 && by == 4;
					int lo, hi, h;
					assert_int_equal(
					        sch__edn_step_range(&m, &lo,
					                            &hi, &h),
					        0);
					assert_int_equal(h,
					                 lv + (four ? 1 : 2));
					assert_int_equal(hi, 2);
					assert_int_equal(lo, four ? 2 : 1);
				}
}

/* Whether edn applies to an x*y*z mesh with the given ports; the reason
 * in why. */
static bool applies(int x, int y, int z, int ports, char *why, size_t len)
{
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	ir_machine m = mesh(x, y, z, ports);
	return sch_applies(&sch_edn, &m, &c, why, len) == 0;
}

/* applies: says where EDN works and why not elsewhere. */
static void test_applies(void **state)
{
	(void)state;
	char why[512];
	/* squares, rectangles, 3D (001 §3.3, §3.4) */
	assert_true(applies(224, 224, 1, IR_PORTS_ALL, why, sizeof why));
	assert_true(applies(8, 16, 1, IR_PORTS_ALL, why, sizeof why));
	assert_true(applies(6, 10, 1, IR_PORTS_ALL, why, sizeof why));
	assert_true(applies(7, 4, 1, IR_PORTS_ALL, why, sizeof why));
	assert_true(applies(4, 4, 4, IR_PORTS_ALL, why, sizeof why));
	assert_true(applies(64, 64, 45, IR_PORTS_ALL, why, sizeof why));
	assert_true(applies(8, 8, 108, IR_PORTS_ALL, why, sizeof why));
	/* widths with no b*2^k form */
	assert_false(applies(9, 9, 1, IR_PORTS_ALL, why, sizeof why));
	assert_non_null(strstr(why, "this machine is a 9x9 mesh"));
	assert_non_null(strstr(why, "W and H each 4, 5, 6 or 7 times a power"));
	assert_false(applies(6, 9, 1, IR_PORTS_ALL, why, sizeof why));
	assert_false(applies(3, 8, 1, IR_PORTS_ALL, why, sizeof why));
	/* 3D: n x n with n = 4*2^k, Z = 4*3^m or 5*3^m */
	assert_false(applies(8, 8, 6, IR_PORTS_ALL, why, sizeof why));
	assert_non_null(strstr(why, "3D n x n x Z with n = 4*2^k"));
	assert_non_null(strstr(why, "8x8x6 mesh"));
	assert_false(applies(8, 16, 5, IR_PORTS_ALL, why, sizeof why));
	assert_false(applies(6, 6, 4, IR_PORTS_ALL, why, sizeof why));
	assert_false(applies(8, 8, 10, IR_PORTS_ALL, why, sizeof why));
	/* all-port only */
	assert_false(applies(8, 8, 1, 1, why, sizeof why));
	assert_non_null(strstr(why, "1-port"));
	/* the longest reason fits the compiler's 256-byte buffer */
	assert_false(applies(1000, 1000, 16, 1, why, sizeof why));
	printf("  %s\n", why);
	assert_true(strlen(why) < 255);
	/* broadcast only */
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_SCATTER;
	ir_machine ok = mesh(224, 224, 1, IR_PORTS_ALL);
	assert_int_equal(sch_applies(&sch_edn, &ok, &c, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "broadcast"));
}

/* Segmented broadcasts carry every segment. */
static void test_segments(void **state)
{
	(void)state;
	ir_machine m = mesh(10, 10, 1, IR_PORTS_ALL);
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	c.root = 57;
	c.bytes = 1001;
	c.segments = 4;
	ir_plan p;
	ir_report r;
	memset(&r, 0, sizeof r);
	assert_int_equal(sch_edn.generate(&m, &c, NULL, &p), 0);
	assert_int_equal(ir_verify(&p, &r), 0);
	assert_int_equal(r.bytes, (uint64_t)99 * 1001);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* Generate and verify the broadcast from root, check that its phases are
 * the startup plus tree height sch__edn_steps reports, and fold them into
 * *mn / *mx. */
static void run_counted(const ir_machine *m, int32_t root, uint32_t *mn,
                        uint32_t *mx, uint64_t *hops, uint64_t *xfers)
{
	int su, h;
	uint32_t ph = run(m, root, hops, xfers);
	assert_int_equal(sch__edn_steps(m, root, &su, &h), 0);
	assert_int_equal((int)ph, su + h);
	*mn = ph < *mn ? ph : *mn;
	*mx = ph > *mx ? ph : *mx;
}

/* The top roots of m: the receivers of the startup from rank 0 and from
 * the last rank (between them every top root is reached). */
static int top_roots(const ir_machine *m, int32_t *out)
{
	int n = 0;
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	c.bytes = 1;
	c.segments = 1;
	for (int s = 0; s < 2; s++) {
		c.root = s ? m->nranks - 1 : 0;
		ir_plan p;
		int su, h;
		assert_int_equal(sch_edn.generate(m, &c, NULL, &p), 0);
		assert_int_equal(sch__edn_steps(m, c.root, &su, &h), 0);
		const ir_phase *last = &p.phases[su - 1];
		for (uint32_t t = 0; t < last->transfer + last->ntransfers; t++)
			if (!in(out, n, p.transfers[t].dst) && n < 8)
				out[n++] = p.transfers[t].dst;
		ir_plan_fini(&p);
	}
	return n;
}

/* Min and max phases of the broadcasts on m over its sources.  Up to
 * `every` ranks: every source generated and verified.  Larger meshes:
 * the corners, the centre, the top roots and their neighbours, and
 * every 7th node of the top roots' Z columns, generated and verified;
 * plus startup + height (sch__edn_step_range) for every source. */
static void sweep_any(const ir_machine *m, int32_t every, uint32_t *mn,
                      uint32_t *mx, double *avg_hops)
{
	uint64_t hops = 0, xfers = 0;
	*mn = UINT32_MAX;
	*mx = 0;
	if (m->nranks <= every) {
		for (int32_t r = 0; r < m->nranks; r++)
			run_counted(m, r, mn, mx, &hops, &xfers);
		*avg_hops = (double)hops / (double)xfers;
		return;
	}
	int X = m->dims[0], Y = m->dims[1], Z = m->ndims > 2 ? m->dims[2] : 1;
	int32_t tops[8];
	int nt = top_roots(m, tops);
	for (int32_t r = 0; r < m->nranks; r++) {
		int x = r % X, y = r / X % Y, z = r / X / Y;
		bool pick = (x == 0 || x == X - 1) && (y == 0 || y == Y - 1) &&
		            (z == 0 || z == Z - 1);
		pick = pick || (x == X / 2 && y == Y / 2 && z == Z / 2);
		for (int i = 0; i < nt && !pick; i++) {
			int tx = tops[i] % X, ty = tops[i] / X % Y;
			int tz = tops[i] / X / Y;
			/* the root's column, and the root's neighbours */
			pick = (x == tx && y == ty &&
			        (z % 7 == 0 || z == tz)) ||
			       abs(x - tx) + abs(y - ty) + abs(z - tz) <= 1;
		}
		if (pick)
			run_counted(m, r, mn, mx, &hops, &xfers);
	}
	int lo, hi, h;
	assert_int_equal(sch__edn_step_range(m, &lo, &hi, &h), 0);
	*mn = (uint32_t)(lo + h) < *mn ? (uint32_t)(lo + h) : *mn;
	*mx = (uint32_t)(hi + h) > *mx ? (uint32_t)(hi + h) : *mx;
	*avg_hops = (double)hops / (double)xfers;
}

/* 001 Table 3.5: EDN steps on (4*2^k) x (4*2^k) x (4*3^m or 5*3^m)
 * meshes, k + m + 4 from every source (two startup steps, "regardless of
 * the location of the source", 001 §3.4.3). */
static void test_table_3_5(void **state)
{
	(void)state;
	static const int rows[][4] = {
	        {4, 4, 4, 4},   {4, 4, 5, 4},   {4, 4, 12, 5},  {4, 4, 15, 5},
	        {8, 8, 4, 5},   {8, 8, 5, 5},   {4, 4, 36, 6},  {4, 4, 45, 6},
	        {8, 8, 12, 6},  {8, 8, 15, 6},  {16, 16, 4, 6}, {16, 16, 5, 6},
	        {4, 4, 108, 7}, {4, 4, 135, 7}, {8, 8, 36, 7},  {8, 8, 45, 7},
	};
	printf("  mesh        nodes  min  max  thesis  hops/transfer\n");
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		ir_machine m =
		        mesh(rows[i][0], rows[i][1], rows[i][2], IR_PORTS_ALL);
		uint32_t mn, mx;
		double hops;
		sweep_any(&m, 320, &mn, &mx, &hops);
		printf("  %2dx%2dx%-3d  %5d  %3u  %3u  %6d  %.3f\n", rows[i][0],
		       rows[i][1], rows[i][2], m.nranks, mn, mx, rows[i][3],
		       hops);
		fflush(stdout);
		assert_int_equal(mn, (uint32_t)rows[i][3]);
		assert_int_equal(mx, (uint32_t)rows[i][3]);
	}
}

/* Rectangular 2D meshes (bx*2^kx) x (by*2^ky): the min / max phases
 * measured when rectangles were added (docs/edn-mesh.md), so that a
 * change of pattern or search shows. */
static void test_rectangles(void **state)
{
	(void)state;
	static const int rows[][4] = {
	        /* W, H, min, max */
	        {8, 4, 4, 4},   {4, 8, 4, 4},   {16, 4, 5, 5}, {4, 16, 4, 4},
	        {8, 32, 5, 5},  {64, 4, 7, 7},  {4, 64, 5, 5}, {10, 20, 5, 6},
	        {6, 24, 4, 5},  {4, 5, 3, 4},   {5, 4, 3, 4},  {6, 7, 3, 4},
	        {7, 6, 3, 4},   {10, 12, 4, 5}, {28, 8, 5, 6}, {12, 56, 5, 6},
	        {56, 14, 6, 7}, {14, 40, 5, 6},
	};
	printf("  mesh     nodes  min  max  hops/transfer\n");
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		ir_machine m = mesh(rows[i][0], rows[i][1], 1, IR_PORTS_ALL);
		uint32_t mn, mx;
		double hops;
		sweep_any(&m, 256, &mn, &mx, &hops);
		printf("  %2dx%-3d  %5d  %3u  %3u  %.3f\n", rows[i][0],
		       rows[i][1], m.nranks, mn, mx, hops);
		fflush(stdout);
		assert_int_equal(mn, (uint32_t)rows[i][2]);
		assert_int_equal(mx, (uint32_t)rows[i][3]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_applies),
	        cmocka_unit_test(test_segments),
	        cmocka_unit_test(test_path_length),
	        cmocka_unit_test(test_tables),
	        cmocka_unit_test(test_table_3_5),
	        cmocka_unit_test(test_rectangles),
	        cmocka_unit_test(test_rectangle_levels),
	};
	/* EDN_TEST_FILTER=test_rectangles runs one test (while developing) */
	if (getenv("EDN_TEST_FILTER"))
		cmocka_set_test_filter(getenv("EDN_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
