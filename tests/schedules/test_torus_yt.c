/*
 * test_torus_yt.c - the EDN torus broadcast (schedules/torus_yt.c, 001
 * chapter 4): every generated plan must pass the verifier with no
 * contention flags, reach every rank exactly once, and take the number of
 * steps of 001 Theorem 1, Corollaries 1-2 and Theorem 3, from every root
 * on the smaller machines and from a sample of roots on the larger ones.
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


static ir_machine torus(int x, int y, int z, int ports)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = IR_TORUS;
	m.routing = IR_ROUTE_DIM_ORDER;
	m.ports = ports;
	m.ndims = z > 0 ? 3 : 2;
	m.dims[0] = x;
	m.dims[1] = y;
	m.dims[2] = z > 0 ? z : 1;
	char err[256];
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	return m;
}

static ir_comm bcast(int32_t root, int32_t segs)
{
	return (ir_comm){.coll = IR_BCAST,
	                 .root = root,
	                 .bytes = 1000,
	                 .segments = segs};
}

/* log2 of a power of two. */
static int lg(int v)
{
	int d = 0;
	while ((1 << d) < v)
		d++;
	return d;
}

/* Steps 001 Theorem 3 gives for 2^d x 2^d x z (z = 1 is Corollary 2). */
static uint32_t theorem3(int d, int z)
{
	if (z <= 1)
		return (uint32_t)d;
	if (z <= 7)
		return (uint32_t)d + 1;
	long lo = 7, m = 0;
	while (z > lo * 6) {
		lo *= 6;
		m++;
	}
	return (uint32_t)(d + m + 2);
}

/* Generate from root, verify, and check the plan against the theorem;
 * returns the report's spreading bound for the tables. */
static uint32_t check_one(const ir_machine *m, int32_t root, uint32_t steps,
                          int32_t segs)
{
	ir_comm c = bcast(root, segs);
	ir_plan p;
	ir_report r;
	char why[200];
	assert_int_equal(sch_applies(&sch_edn_torus, m, &c, why, sizeof why), 0);
	assert_int_equal(sch_edn_torus.generate(m, &c, NULL, &p), 0);
	assert_int_equal(p.flags, 0);
	int rc = ir_verify(&p, &r);
	if (rc)
		print_message("  %dx%dx%d root %d: %s\n", m->dims[0],
		              m->dims[1], m->dims[2], root, r.message);
	assert_int_equal(rc, 0);
	assert_true(r.ok);
	assert_int_equal(r.phases, steps);
	assert_int_equal(r.duplicates, 0);
	assert_int_equal(r.transfers, (uint64_t)m->nranks - 1);
	assert_int_equal(r.max_link_load, 1);
	uint32_t lb = r.lb_spread;
	ir_report_fini(&r);
	ir_plan_fini(&p);
	return lb;
}

/* 4^k x 4^k: {YT}^k in 2k steps from every root (001 Theorem 1). */
static void test_square_4k(void **state)
{
	(void)state;
	static const int sizes[] = {4, 16};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		ir_machine m = torus(sizes[i], sizes[i], 0, IR_PORTS_ALL);
		for (int32_t r = 0; r < m.nranks; r++)
			check_one(&m, r, (uint32_t)lg(sizes[i]), 1);
	}
}

/* (2*4^k) x (2*4^k): {YT}^k F in 2k+1 steps from every root (001
 * Corollary 1). */
static void test_square_2x4k(void **state)
{
	(void)state;
	static const int sizes[] = {8, 32};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		ir_machine m = torus(sizes[i], sizes[i], 0, IR_PORTS_ALL);
		for (int32_t r = 0; r < m.nranks; r++)
			check_one(&m, r, (uint32_t)lg(sizes[i]), 1);
	}
}

/* 64, 128, 256: d steps from a sample of roots (001 Corollary 2), with a
 * segmented message on one of them. */
static void test_square_large(void **state)
{
	(void)state;
	static const int sizes[] = {64, 128, 256};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		ir_machine m = torus(sizes[i], sizes[i], 0, IR_PORTS_ALL);
		int32_t roots[] = {0, 1, sizes[i] + 3, m.nranks / 2 + 7,
		                   m.nranks - 1};
		for (size_t j = 0; j < sizeof roots / sizeof *roots; j++)
			check_one(&m, roots[j], (uint32_t)lg(sizes[i]),
			          j == 2 ? 5 : 1);
	}
}

/* 2^d x 2^d x z: pattern (a), then (b), then the plane broadcast, with
 * the step counts of 001 Theorem 3, every root for the small machines. */
static void test_3d(void **state)
{
	(void)state;
	static const int zs[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,
	                         10, 13, 14, 20, 41, 42, 43, 44, 100};
	for (size_t i = 0; i < sizeof zs / sizeof *zs; i++) {
		ir_machine m = torus(4, 4, zs[i], IR_PORTS_ALL);
		for (int32_t r = 0; r < m.nranks; r++)
			check_one(&m, r, theorem3(2, zs[i]), 1);
	}
	static const int big[][2] = {{8, 7},   {8, 43},  {16, 8},
	                             {4, 252}, {4, 253}, {8, 300}};
	for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
		int x = big[i][0], z = big[i][1];
		ir_machine m = torus(x, x, z, IR_PORTS_ALL);
		int32_t roots[] = {0, x * x * (z / 2) + x + 1, m.nranks - 1};
		for (size_t j = 0; j < sizeof roots / sizeof *roots; j++)
			check_one(&m, roots[j], theorem3(lg(x), z), 1);
	}
}

/* The step counts against the verifier's spreading bound, printed. */
static void test_table(void **state)
{
	(void)state;
	static const int rows[][2] = {{4, 0},  {8, 0},   {16, 0},  {32, 0},
	                              {64, 0}, {128, 0}, {256, 0}, {4, 2},
	                              {4, 7},  {4, 8},   {4, 42},  {4, 43},
	                              {8, 7},  {8, 43},  {16, 8}};
	print_message("  %-12s %6s %6s %6s\n", "torus", "ranks", "steps",
	              "spread");
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		int x = rows[i][0], z = rows[i][1];
		ir_machine m = torus(x, x, z, IR_PORTS_ALL);
		uint32_t steps = theorem3(lg(x), z);
		uint32_t lb = check_one(&m, 0, steps, 1);
		char name[32];
		if (z)
			snprintf(name, sizeof name, "%dx%dx%d", x, x, z);
		else
			snprintf(name, sizeof name, "%dx%d", x, x);
		print_message("  %-12s %6d %6u %6u\n", name, m.nranks, steps,
		              lb);
		assert_true(steps >= lb);
	}
}

/* Where it does not apply, it says why. */
static void test_applies(void **state)
{
	(void)state;
	char why[200];
	ir_comm c = bcast(0, 1);
	ir_machine m = torus(6, 6, 0, IR_PORTS_ALL);
	assert_int_equal(sch_applies(&sch_edn_torus, &m, &c, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "6x6"));
	m = torus(8, 8, 0, 1);
	assert_int_equal(sch_applies(&sch_edn_torus, &m, &c, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "1-port"));
	m = torus(2, 2, 0, IR_PORTS_ALL); /* d = 1: two links, three ranks */
	assert_int_equal(sch_applies(&sch_edn_torus, &m, &c, why, sizeof why),
	                 CCP_ENOTAPPLY);
	m = torus(8, 16, 0, IR_PORTS_ALL);
	assert_int_equal(sch_applies(&sch_edn_torus, &m, &c, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "8x16"));
	m = torus(8, 8, 0, IR_PORTS_ALL);
	m.topo = IR_MESH;
	assert_int_equal(sch_applies(&sch_edn_torus, &m, &c, why, sizeof why),
	                 CCP_ENOTAPPLY);
	ir_comm s = {.coll = IR_SCATTER, .root = 0, .bytes = 8};
	m = torus(8, 8, 0, IR_PORTS_ALL);
	assert_int_equal(sch_applies(&sch_edn_torus, &m, &s, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "scatter"));
}

/* Pattern (a) exactly as the text of 001 section 4.3 prints it, on a
 * 4x4x7 torus: (x, y-1, z+4) and (x, y-1, z+1) share the root's -Y link,
 * so the verifier must reject it; with (x, y+1, z+1) it passes. */
static void test_text_pattern_a(void **state)
{
	(void)state;
	static const int printed[6][3] = {{0, 0, 3},  {1, 0, 2},   {0, 0, -2},
	                                  {0, -1, 4}, {-1, 0, -1}, {0, -1, 1}};
	ir_machine m = torus(4, 4, 7, IR_PORTS_ALL);
	for (int fix = 0; fix < 2; fix++) {
		ir_comm c = bcast(m.nranks / 2, 1);
		ir_plan p;
		ir_report r;
		ir_block b = {c.root, 0};
		int rootc[IR_MAX_CUBE_DIM];
		ir_coords(&m, c.root, rootc);
		/* phase 0: the pattern; then every plane's 4x4 broadcast,
		 * translated from the generator's plan for a 4x4 torus */
		ir_plan_init(&p, &m, &c, "hand");
		ir_plan_phase(&p);
		int32_t holders[7];
		holders[0] = c.root;
		for (int k = 0; k < 6; k++) {
			int t[3];
			for (int a = 0; a < 3; a++)
				t[a] = ((rootc[a] + printed[k][a] +
				         (fix && k == 5 && a == 1 ? 2 : 0)) %
				                m.dims[a] +
				        m.dims[a]) %
				       m.dims[a];
			holders[k + 1] = ir_rank_of(&m, t);
			ir_plan_add(&p, c.root, holders[k + 1], &b, 1, 0);
		}
		ir_machine m2 = torus(4, 4, 0, IR_PORTS_ALL);
		ir_plan q[7];
		for (int k = 0; k < 7; k++) {
			int h[IR_MAX_CUBE_DIM];
			ir_coords(&m, holders[k], h);
			ir_comm c2 = bcast(h[0] + 4 * h[1], 1);
			assert_int_equal(
			        sch_edn_torus.generate(&m2, &c2, NULL, &q[k]),
			        0);
		}
		for (uint32_t ph = 0; ph < q[0].nphases; ph++) {
			ir_plan_phase(&p);
			for (int k = 0; k < 7; k++) {
				int h[IR_MAX_CUBE_DIM];
				ir_coords(&m, holders[k], h);
				const ir_phase *f = &q[k].phases[ph];
				for (uint32_t t = f->transfer;
				     t < f->transfer + f->ntransfers; t++) {
					int32_t s = q[k].transfers[t].src +
					            16 * h[2],
					        d = q[k].transfers[t].dst +
					            16 * h[2];
					ir_plan_add(&p, s, d, &b, 1, 0);
				}
			}
		}
		for (int k = 0; k < 7; k++)
			ir_plan_fini(&q[k]);
		int rc = ir_verify(&p, &r);
		if (fix) {
			assert_int_equal(rc, 0);
			assert_int_equal(r.phases, 3);
			assert_int_equal(r.duplicates, 0);
		} else {
			assert_int_equal(rc, CCP_EVERIFY);
			print_message("  printed pattern (a): %s\n", r.message);
		}
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
}

/* The Y offsets of the proof of 001 Theorem 2, (x-d, y-d), (x, y+d),
 * (x+d, y), leave no contention-free T step on the 4x4 torus: try every
 * way of giving the twelve remaining nodes to the four holders, three
 * each, with the machine's own routes.  The printed ones, (x-d, y-d),
 * (x, y+2d), (x+2d, y), have solutions (the generator uses one). */
struct tsearch {
	const ir_machine *m;
	int32_t holder[4];
	int32_t rest[12];
	bool used_node[12];
	uint8_t link_used[16 * 4];
	long solutions;
};

static bool route_free(struct tsearch *t, int32_t s, int32_t d, int mark)
{
	uint64_t l[8];
	int n = ir_route(t->m, s, d, l);
	if (mark == 0)
		for (int k = 0; k < n; k++)
			if (t->link_used[l[k]])
				return false;
	for (int k = 0; k < n; k++)
		t->link_used[l[k]] = (uint8_t)(mark >= 0 ? 1 : 0);
	return true;
}

static void tsearch(struct tsearch *t, int h, int given, int from)
{
	if (h == 4) {
		t->solutions++;
		return;
	}
	if (given == 3) {
		tsearch(t, h + 1, 0, 0);
		return;
	}
	for (int i = from; i < 12; i++) {
		if (t->used_node[i] ||
		    !route_free(t, t->holder[h], t->rest[i], 0))
			continue;
		route_free(t, t->holder[h], t->rest[i], 1);
		t->used_node[i] = true;
		tsearch(t, h, given + 1, i + 1);
		t->used_node[i] = false;
		route_free(t, t->holder[h], t->rest[i], -1);
	}
}

static long count_t_steps(const int y[3][2])
{
	ir_machine m = torus(4, 4, 0, IR_PORTS_ALL);
	struct tsearch t;
	memset(&t, 0, sizeof t);
	t.m = &m;
	t.holder[0] = 0;
	for (int k = 0; k < 3; k++)
		t.holder[k + 1] = ((y[k][0] + 4) % 4) + 4 * ((y[k][1] + 4) % 4);
	int n = 0;
	for (int32_t r = 0; r < 16; r++)
		if (r != t.holder[0] && r != t.holder[1] && r != t.holder[2] &&
		    r != t.holder[3])
			t.rest[n++] = r;
	assert_int_equal(n, 12);
	tsearch(&t, 0, 0, 0);
	return t.solutions;
}

static void test_y_offsets(void **state)
{
	(void)state;
	static const int proof[3][2] = {{-1, -1}, {0, 1}, {1, 0}};
	static const int printed[3][2] = {{-1, -1}, {0, 2}, {2, 0}};
	long a = count_t_steps(proof), b = count_t_steps(printed);
	print_message("  contention-free T steps: proof offsets %ld, printed "
	              "offsets %ld\n",
	              a, b);
	assert_int_equal(a, 0);
	assert_true(b > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_applies),
	        cmocka_unit_test(test_square_4k),
	        cmocka_unit_test(test_square_2x4k),
	        cmocka_unit_test(test_square_large),
	        cmocka_unit_test(test_3d),
	        cmocka_unit_test(test_table),
	        cmocka_unit_test(test_text_pattern_a),
	        cmocka_unit_test(test_y_offsets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
