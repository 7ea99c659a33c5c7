/*
 * test_baselines.c - the baseline broadcasts of 001 chapter 5 (rd,
 * dimensional, scatter_collect, fibonacci; schedules/baselines.c).
 *
 * Every plan must pass the verifier contention-free (flags 0, link load
 * 1, one send and one receive per rank and phase).  Step counts are
 * compared with the thesis, computed here and never in the generators:
 * RD ceil(lg N) (001 3.2.4), dimensional 2n on 2^n x 2^n (001 5.3),
 * scatter-collect 2(2^n - 1 + n) (001 Table 5.2 / 5.3), Fibonacci t(P, k)
 * from the recursion N(t,k) = N(t-k,k) + N(t-1,k) (001 5.3).  The test
 * prints the quantities Table 5.3 is made of, measured on the plans.
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

/* An X x Y x Z mesh (x fastest), dimension-order routing. */
static ir_machine mesh3(int X, int Y, int Z, int ports)
{
	return tu_machine(IR_MESH, ports, X, Z > 1 || Y > 1 ? Y : 0,
	                  Z > 1 ? Z : 0, 0);
}

static ir_comm bcast(int32_t root, int64_t bytes, int32_t segments)
{
	ir_comm c = tu_comm(IR_BCAST, root, bytes);
	c.segments = segments;
	return c;
}

/* Generate with g (which must apply), verify, and check the plan is
 * contention-free and within one port; returns the number of phases.
 * If r is given the report is left for the caller to release. */
static uint32_t make(const struct sch_generator *g, const ir_machine *m,
                     const ir_comm *c, ir_plan *p, ir_report *r)
{
	char why[256] = "";
	struct sch_options o = {0};
	int rc = sch_applies(g, m, c, why, sizeof why);
	if (rc)
		print_message("  %s: applies: %s\n", g->name, why);
	assert_int_equal(rc, 0);
	assert_int_equal(g->generate(m, c, &o, p), 0);
	assert_int_equal(p->flags, 0);
	rc = ir_verify(p, r);
	if (rc)
		print_message("  %s %dx%dx%d root %d: verifier: %s\n", g->name,
		              m->dims[0], m->dims[1], m->dims[2], (int)c->root,
		              r->message);
	assert_int_equal(rc, 0);
	assert_true(r->ok);
	assert_true(r->max_link_load <= 1);
	assert_true(r->max_node_sends <= 1);
	assert_true(r->max_node_recvs <= 1);
	assert_int_equal(r->duplicates, 0);
	return r->phases;
}

/* make(), releasing plan and report. */
static uint32_t phases_of(const struct sch_generator *g, const ir_machine *m,
                          const ir_comm *c)
{
	ir_plan p;
	ir_report r;
	memset(&r, 0, sizeof r);
	uint32_t n = make(g, m, c, &p, &r);
	ir_report_fini(&r);
	ir_plan_fini(&p);
	return n;
}

static uint32_t ceil_log2(int64_t v)
{
	uint32_t k = 0;
	while ((INT64_C(1) << k) < v)
		k++;
	return k;
}

/* 001 5.3: N(t,k) = N(t-k,k) + N(t-1,k) for t >= k, 1 otherwise;
 * t(P,k) is the least t with N(t,k) >= P. */
static uint32_t t_pk(int64_t P, int k)
{
	int64_t N[4096];
	for (int t = 0; t < 4096; t++) {
		N[t] = t < k ? 1 : N[t - k] + N[t - 1];
		if (N[t] >= P)
			return (uint32_t)t;
	}
	fail();
	return 0;
}

/* The Table 5.3 quantities of a plan: steps, the sum over steps of the
 * longest route (hops) in the step, and the sum over steps of the
 * largest transfer (bytes) in the step. */
struct t53 {
	uint32_t steps;
	uint64_t hops;   /* sum of per-step maximum hops */
	uint64_t bytes;  /* sum of per-step maximum bytes */
	double avg_hops; /* hops per transfer */
};

static struct t53 measure(const ir_plan *p, const ir_report *r)
{
	struct t53 q = {r->phases, 0, 0,
	                (double)r->hops / (double)r->transfers};
	uint64_t *links =
	        malloc((size_t)ir_route_max(&p->machine) * sizeof *links + 1);
	assert_non_null(links);
	for (uint32_t k = 0; k < p->nphases; k++) {
		int hmax = 0;
		int64_t bmax = 0;
		const ir_phase *ph = p->phases + k;
		for (uint32_t i = 0; i < ph->ntransfers; i++) {
			const ir_transfer *t = p->transfers + ph->transfer + i;
			int h = ir_route(&p->machine, t->src, t->dst, links);
			hmax = h > hmax ? h : hmax;
			bmax = t->bytes > bmax ? t->bytes : bmax;
		}
		q.hops += (uint64_t)hmax;
		q.bytes += (uint64_t)bmax;
	}
	free(links);
	return q;
}

static const int shapes[][3] = {
        {2, 1, 1},   {7, 1, 1},   {16, 1, 1}, {2, 2, 1}, {3, 3, 1},  {4, 4, 1},
        {5, 3, 1},   {3, 5, 1},   {8, 8, 1},  {7, 6, 1}, {16, 4, 1}, {4, 16, 1},
        {13, 11, 1}, {32, 32, 1}, {2, 2, 2},  {3, 3, 3}, {4, 4, 4},  {5, 3, 2},
        {2, 7, 3},   {8, 8, 8},   {6, 5, 7},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* ---- rd -------------------------------------------------------------- */

/* 001 3.2.4: U-mesh broadcast takes ceil(log2 N) steps, on every mesh
 * shape and from corner, middle and last roots; one-port is enough. */
static void test_rd_steps(void **state)
{
	(void)state;
	for (size_t s = 0; s < NSHAPES; s++) {
		for (int ports = 0; ports <= 1; ports++) {
			ir_machine m = mesh3(shapes[s][0], shapes[s][1],
			                     shapes[s][2], ports);
			int32_t roots[] = {0, m.nranks / 2, m.nranks - 1,
			                   (int32_t)(m.nranks * 2 / 7)};
			for (int i = 0; i < 4; i++) {
				ir_comm c = bcast(roots[i], 1000, 3);
				assert_int_equal(phases_of(&sch_rd, &m, &c),
				                 ceil_log2(m.nranks));
			}
		}
	}
}

/* Every root of the small meshes. */
static void test_rd_every_root(void **state)
{
	(void)state;
	static const int small[][3] = {{4, 4, 1}, {5, 3, 1}, {3, 7, 1},
	                               {8, 8, 1}, {6, 5, 1}, {3, 3, 3},
	                               {4, 2, 3}, {9, 1, 1}};
	for (size_t s = 0; s < sizeof small / sizeof small[0]; s++) {
		ir_machine m = mesh3(small[s][0], small[s][1], small[s][2], 1);
		for (int32_t r = 0; r < m.nranks; r++) {
			ir_comm c = bcast(r, 64, 1);
			assert_int_equal(phases_of(&sch_rd, &m, &c),
			                 ceil_log2(m.nranks));
		}
	}
}

/* 001 3.3.5 reports an average RD path of 4.16 hops on a 32x32 mesh;
 * print ours, from the corner and averaged over every root. */
static void test_rd_hops_32(void **state)
{
	(void)state;
	ir_machine m = mesh3(32, 32, 1, 0);
	uint64_t hops = 0, transfers = 0;
	double corner = 0;
	for (int32_t r = 0; r < m.nranks; r++) {
		ir_comm c = bcast(r, 64, 1);
		ir_plan p;
		ir_report rep;
		memset(&rep, 0, sizeof rep);
		make(&sch_rd, &m, &c, &p, &rep);
		assert_int_equal(rep.transfers, 1023);
		hops += rep.hops;
		transfers += rep.transfers;
		if (r == 0)
			corner = (double)rep.hops / (double)rep.transfers;
		ir_report_fini(&rep);
		ir_plan_fini(&p);
	}
	double all = (double)hops / (double)transfers;
	print_message("  rd 32x32: %.2f hops per transfer from rank 0, "
	              "%.2f over all 1024 roots (001 3.3.5: 4.16)\n",
	              corner, all);
	/* from the corner every halving moves a straight 2^j hops, 2^(9-j)
	 * times per axis...: sum_j 2^j (1 + 32) over j < 5 = 5*16 + 2560 */
	assert_true(corner * 1023 > 2639.5 && corner * 1023 < 2640.5);
}

/* ---- dimensional ----------------------------------------------------- */

/* 2n steps on 2^n x 2^n (001 5.3) from several roots; in general the
 * sum of ceil(lg extent) over the dimensions. */
static void test_dimensional_steps(void **state)
{
	(void)state;
	for (int n = 1; n <= 5; n++) {
		ir_machine m = mesh3(1 << n, 1 << n, 1, 1);
		for (int32_t r = 0; r < m.nranks; r += n >= 4 ? 37 : 1) {
			ir_comm c = bcast(r, 4096, 2);
			assert_int_equal(phases_of(&sch_dimensional, &m, &c),
			                 2 * n);
		}
	}
	for (size_t s = 0; s < NSHAPES; s++) {
		ir_machine m =
		        mesh3(shapes[s][0], shapes[s][1], shapes[s][2], 0);
		uint32_t want = ceil_log2(shapes[s][0]) +
		                ceil_log2(shapes[s][1]) +
		                ceil_log2(shapes[s][2]);
		int32_t roots[] = {0, m.nranks / 2, m.nranks - 1};
		for (int i = 0; i < 3; i++) {
			ir_comm c = bcast(roots[i], 100, 1);
			assert_int_equal(phases_of(&sch_dimensional, &m, &c),
			                 want);
		}
	}
}

/* ---- scatter-collect --------------------------------------------------- */

/* 001 Table 5.2: n + n scatter steps and (2^n - 1) + (2^n - 1) ring
 * steps on 2^n x 2^n, 2(2^n - 1 + n) in all (Table 5.3); in general
 * ceil(lg X) + ceil(lg Y) + (X - 1) + (Y - 1).  The bytes moved by the
 * longest transfers add up to 2(1 - 1/N) L on 2^n x 2^n (Table 5.3 T_n). */
static void test_sc_steps(void **state)
{
	(void)state;
	for (int n = 1; n <= 5; n++) {
		int side = 1 << n;
		ir_machine m = mesh3(side, side, 1, 1);
		int64_t L = (int64_t)m.nranks * 16;
		int32_t roots[] = {0, m.nranks / 2 + side / 3, m.nranks - 1};
		for (int i = 0; i < 3; i++) {
			ir_comm c = bcast(roots[i], L, m.nranks);
			ir_plan p;
			ir_report r;
			memset(&r, 0, sizeof r);
			uint32_t ph =
			        make(&sch_scatter_collect, &m, &c, &p, &r);
			assert_int_equal(ph, 2 * (side - 1 + n));
			struct t53 q = measure(&p, &r);
			/* 2(1 - 1/N) L: exact, every piece is 16 bytes */
			assert_int_equal(q.bytes, 2 * (L - 16));
			ir_report_fini(&r);
			ir_plan_fini(&p);
		}
	}
	static const int rect[][2] = {{2, 1}, {7, 1},  {5, 3}, {3, 5},
	                              {6, 7}, {16, 4}, {1, 6}};
	for (size_t s = 0; s < sizeof rect / sizeof rect[0]; s++) {
		int X = rect[s][0], Y = rect[s][1];
		ir_machine m = mesh3(X, Y, 1, 0);
		for (int32_t r = 0; r < m.nranks; r++) {
			ir_comm c = bcast(r, 1000, m.nranks);
			assert_int_equal(
			        phases_of(&sch_scatter_collect, &m, &c),
			        ceil_log2(X) + ceil_log2(Y) + (X - 1) +
			                (Y - 1));
		}
	}
}

/* ---- fibonacci --------------------------------------------------------- */

/* t(P, k) steps with the root at chain position 0 (rank 0), for k = 1,
 * 2, 4, 8 on 2^n x 2^n, n = 1..5; t(2^n * 2^n, 1) = 2n (001 5.3).  Other
 * roots split the tree in two and must verify; the extra steps they take
 * are printed. */
static void test_ft_steps(void **state)
{
	(void)state;
	static const int ks[] = {1, 2, 3, 4, 8};
	for (int n = 1; n <= 5; n++) {
		int side = 1 << n;
		ir_machine m = mesh3(side, side, 1, 1);
		for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
			int k = ks[i];
			ir_comm c = bcast(0, 8192, k);
			uint32_t want = t_pk(m.nranks, k);
			assert_int_equal(phases_of(&sch_fibonacci, &m, &c),
			                 want);
			if (k == 1)
				assert_int_equal(want, 2 * n);
			uint32_t worst = 0;
			for (int32_t r = 1; r < m.nranks;
			     r += n >= 4 ? 13 : 1) {
				c.root = r;
				uint32_t ph = phases_of(&sch_fibonacci, &m, &c);
				assert_true(ph >= want);
				worst = ph - want > worst ? ph - want : worst;
			}
			if (n == 5)
				print_message("  fibonacci 32x32 k=%d: t(P,k) "
				              "= %u from rank 0; other roots "
				              "at most +%u\n",
				              k, want, worst);
		}
	}
	for (size_t s = 0; s < NSHAPES; s++) {
		ir_machine m =
		        mesh3(shapes[s][0], shapes[s][1], shapes[s][2], 0);
		for (int k = 1; k <= 5; k += 2) {
			ir_comm c = bcast(0, 999, k);
			assert_int_equal(phases_of(&sch_fibonacci, &m, &c),
			                 t_pk(m.nranks, k));
			c.root = m.nranks / 2;
			assert_true(phases_of(&sch_fibonacci, &m, &c) >=
			            t_pk(m.nranks, k));
		}
	}
}

/* ---- where they do not apply --------------------------------------- */

static void test_applies(void **state)
{
	(void)state;
	const struct sch_generator *g[] = {&sch_rd, &sch_dimensional,
	                                   &sch_scatter_collect,
	                                   &sch_fibonacci};
	char why[256];
	ir_machine m = mesh3(4, 4, 1, 0);
	ir_machine t = m;
	t.topo = IR_TORUS;
	ir_comm c = bcast(0, 64, 16);
	ir_comm sc = c;
	sc.coll = IR_SCATTER;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(sch_applies(g[i], &m, &c, why, sizeof why), 0);
		/* rd and dimensional take tori (test_nd_broadcast) */
		if (i < 2) {
			assert_int_equal(
			        sch_applies(g[i], &t, &c, why, sizeof why), 0);
		} else {
			assert_int_equal(
			        sch_applies(g[i], &t, &c, why, sizeof why),
			        CCP_ENOTAPPLY);
			assert_non_null(strstr(why, "torus"));
		}
		assert_int_equal(sch_applies(g[i], &m, &sc, why, sizeof why),
		                 CCP_ENOTAPPLY);
		assert_non_null(strstr(why, "scatter"));
	}
	c.segments = 4;
	assert_int_equal(sch_applies(&sch_scatter_collect, &m, &c, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "segments must be 16"));
	ir_machine m3 = mesh3(2, 2, 2, 0);
	c.segments = 8;
	assert_int_equal(sch_applies(&sch_scatter_collect, &m3, &c, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "3D"));
	ir_machine big = mesh3(256, 256, 1, 0);
	c.segments = 65536;
	assert_int_equal(sch_applies(&sch_scatter_collect, &big, &c, why, sizeof why),
	                 CCP_ENOTAPPLY);
	c.segments = 4096;
	assert_int_equal(sch_applies(&sch_fibonacci, &big, &c, why, sizeof why),
	                 CCP_ENOTAPPLY);
}

/* ---- Table 5.3, measured ---------------------------------------------- */

/* The quantities 001 Table 5.3 is built from, on 32x32 (n = 5) with a
 * 1 MiB message from rank 0: steps (the alpha + gamma coefficient), the
 * longest route of each step summed (the beta coefficient of T_s) and
 * the largest transfer of each step summed (T_n, as a multiple of L).
 * Every plan also lowers to per-rank operations. */
static void test_table53(void **state)
{
	(void)state;
	ir_machine m = mesh3(32, 32, 1, 1);
	const int64_t L = 1 << 20;
	struct {
		const struct sch_generator *g;
		int32_t segments;
	} rows[] = {{&sch_rd, 1},
	            {&sch_dimensional, 1},
	            {&sch_scatter_collect, 1024},
	            {&sch_fibonacci, 1},
	            {&sch_fibonacci, 2},
	            {&sch_fibonacci, 4},
	            {&sch_fibonacci, 8}};
	print_message("  32x32, L = %lld bytes, root 0\n", (long long)L);
	print_message("  %-16s %3s %6s %14s %8s %9s\n", "algorithm", "k",
	              "steps", "sum max hops", "T_n/L", "hops/xfer");
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		ir_comm c = bcast(0, L, rows[i].segments);
		ir_plan p;
		ir_report r;
		memset(&r, 0, sizeof r);
		make(rows[i].g, &m, &c, &p, &r);
		struct t53 q = measure(&p, &r);
		print_message("  %-16s %3d %6u %14llu %8.4f %9.2f\n",
		              rows[i].g->name, (int)rows[i].segments, q.steps,
		              (unsigned long long)q.hops,
		              (double)q.bytes / (double)L, q.avg_hops);
		/* Table 5.3 with n = 5: RD's beta term 2(2^n - 1) = 62 hops
		 * and T_n = 2n L; SC's 6(2^n - 1) = 186 hops */
		if (rows[i].g == &sch_rd || rows[i].g == &sch_dimensional ||
		    (rows[i].g == &sch_fibonacci && rows[i].segments == 1)) {
			assert_int_equal(q.hops, 62);
			assert_int_equal(q.bytes, (uint64_t)(10 * L));
		}
		if (rows[i].g == &sch_scatter_collect)
			assert_int_equal(q.hops, 186);
		if (rows[i].g == &sch_fibonacci)
			assert_int_equal(
			        q.bytes,
			        (uint64_t)(q.steps * (L / rows[i].segments)));
		ir_slice *sl = NULL;
		assert_int_equal(ir_lower(&p, &sl), 0);
		ir_slices_free(sl, m.nranks);
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_rd_steps),
	        cmocka_unit_test(test_rd_every_root),
	        cmocka_unit_test(test_rd_hops_32),
	        cmocka_unit_test(test_dimensional_steps),
	        cmocka_unit_test(test_sc_steps),
	        cmocka_unit_test(test_ft_steps),
	        cmocka_unit_test(test_applies),
	        cmocka_unit_test(test_table53),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
