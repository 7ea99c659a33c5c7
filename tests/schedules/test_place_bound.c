/*
 * test_place_bound.c - the bound on every placement's link term
 * (tests/place_support.h: place_lambda2, place_any_bound), which
 * bench_place prints as "any >=" (docs/placement.md).
 *
 * The eigenvalue matches closed forms (a ring, a complete pattern) and
 * is never above them; the bound never exceeds the link term of the
 * best placement found by trying all of them on machines of 6 nodes,
 * and equals it where the cut is tight (a complete pattern on a line);
 * the degree term matches busy ranks to the nodes with most ports.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir.h"
#include "matrix.h"
#include "place.h"
#include "place_support.h"
#include "support.h"

/* Every rank i sends to i + 1 .. i + s (mod n), one message each. */
static ir_matrix *shifts(int32_t n, int32_t s)
{
	struct ir_edge e[128];
	ir_matrix *x = NULL;
	size_t k = 0, bad;

	assert_true((size_t)n * (size_t)s <= sizeof e / sizeof *e);
	for (int32_t i = 0; i < n; i++)
		for (int32_t j = 1; j <= s; j++)
			e[k] = (struct ir_edge){i, (i + j) % n, 8, k}, k++;
	assert_int_equal(ir_matrix_from_edges(n, e, k, &x, &bad), 0);
	return x;
}

/* A ring's Laplacian has lambda2 = 2 - 2 cos(2 pi / n); the complete
 * pattern (both ways between every two ranks: weight 2) 2 n. */
static void test_lambda2_closed_forms(void **state)
{
	(void)state;
	for (int32_t n = 3; n <= 9; n++) {
		ir_matrix *ring = shifts(n, 1), *all = shifts(n, n - 1);
		double want = 2 - 2 * cos(2 * acos(-1.0) / n);
		double l2 = place_lambda2(ring), la = place_lambda2(all);
		assert_true(l2 <= want && l2 > want - 1e-6);
		assert_true(la <= 2.0 * n && la > 2.0 * n - 1e-6);
		ir_matrix_free(ring);
		ir_matrix_free(all);
	}
}

/* The smallest link term (sch_place_eval's) over every placement of x
 * on m, by Heap's permutations of node[]; the smallest phase bound into
 * *bound. */
static uint32_t best_link(const ir_machine *m, const ir_matrix *x,
                          uint32_t *bound)
{
	int32_t n = m->nranks, node[8], c[8] = {0};
	uint32_t best = UINT32_MAX, b, l;
	uint64_t h;

	assert_true(n <= 8);
	for (int32_t i = 0; i < n; i++)
		node[i] = i;
	assert_int_equal(sch_place_eval(m, x, node, &b, &l, &h), 0);
	best = l;
	*bound = b;
	for (int32_t i = 1; i < n;) {
		if (c[i] < i) {
			int32_t j = i % 2 ? c[i] : 0, t = node[j];
			node[j] = node[i];
			node[i] = t;
			assert_int_equal(sch_place_eval(m, x, node, &b, &l, &h),
			                 0);
			if (l < best)
				best = l;
			if (b < *bound)
				*bound = b;
			c[i]++;
			i = 1;
		} else {
			c[i++] = 0;
		}
	}
	return best;
}

/* On a line of four ranks every placement of the complete pattern puts
 * two ranks each side of the middle link: 4 messages each way over it,
 * which is what the cut gives (lambda2 8, k = 2: 8 messages over two
 * links, one each way). */
static void test_tight_on_a_line(void **state)
{
	(void)state;
	int d[1] = {4};
	ir_machine m = tu_grid(IR_MESH, 1, d, 0, NULL, 1, IR_PLACE_BLOCK, 0,
	                       IR_PORTS_ALL);
	ir_matrix *x = shifts(4, 3);
	struct place_cut c;
	uint32_t bound;

	assert_int_equal(place_any_bound(&m, x, &c), 0);
	assert_int_equal(best_link(&m, x, &bound), 4);
	assert_int_equal(c.bound, 4);
	assert_int_equal(c.phases, bound);
	assert_int_equal(c.k, 2);
	assert_int_equal(c.cap, 2);
	ir_matrix_free(x);
}

/* On 6-node meshes, tori, a fat tree and a dragonfly, for random
 * regular patterns, the bound never exceeds the best placement's link
 * term, and it is not trivial on all of them. */
static void test_never_above_best(void **state)
{
	(void)state;
	int d23[2] = {2, 3}, d6[1] = {6};
	int down[2] = {3, 2}, up[2] = {1, 2};
	ir_machine ms[4];
	ms[0] = tu_grid(IR_MESH, 2, d23, 0, NULL, 1, IR_PLACE_BLOCK, 0,
	                IR_PORTS_ALL);
	ms[1] = tu_grid(IR_TORUS, 1, d6, 0, NULL, 1, IR_PLACE_BLOCK, 0,
	                IR_PORTS_ALL);
	ms[2] = tu_fat_tree(2, down, up, NULL, 1, IR_ROUTE_D_MOD_K, 1);
	ms[3] = tu_dragonfly(3, 2, 1, 1, IR_DFLY_ABSOLUTE, NULL, 1,
	                     IR_ROUTE_MINIMAL, 0, 1);
	int nonzero = 0;
	for (int i = 0; i < 4; i++)
		for (int32_t deg = 1; deg <= 4; deg++)
			for (uint64_t seed = 1; seed <= 2; seed++) {
				ir_matrix *x = ir_matrix_regular(
				        ms[i].nranks, deg, 8, seed);
				struct place_cut c;
				assert_non_null(x);
				assert_int_equal(place_any_bound(&ms[i], x, &c),
				                 0);
				uint32_t bound, best = best_link(&ms[i], x,
				                                 &bound);
				if (c.bound > best || c.phases > bound)
					fail_msg("machine %d, degree %d, seed "
					         "%d: bound %u above %u or %u "
					         "above %u",
					         i, (int)deg, (int)seed,
					         c.bound, best, c.phases, bound);
				nonzero += c.bound > 1;
				ir_matrix_free(x);
			}
	assert_true(nonzero > 0);
}

/* The degree term: on a 3 x 2 mesh (corners 2 ports, the middle two 3)
 * two ranks sending 3 messages each fit the middle nodes (1 phase), a
 * third does not (2); and no placement's bound is below it. */
static void test_degree_sorted(void **state)
{
	(void)state;
	int d[2] = {3, 2};
	ir_machine m = tu_grid(IR_MESH, 2, d, 0, NULL, 1, IR_PLACE_BLOCK, 0,
	                       IR_PORTS_ALL);
	struct ir_edge e[16];
	size_t k = 0, bad;
	for (int32_t busy = 2; busy <= 3; busy++) {
		ir_matrix *x = NULL;
		uint32_t bound;
		k = 0;
		for (int32_t s = 0; s < busy; s++)
			for (int32_t j = 1; j <= 3; j++)
				e[k] = (struct ir_edge){s, (s + j) % 6, 8, k},
				k++;
		assert_int_equal(ir_matrix_from_edges(6, e, k, &x, &bad), 0);
		assert_int_equal(place_any_degree(&m, x), busy == 2 ? 1 : 2);
		best_link(&m, x, &bound);
		assert_true(place_any_degree(&m, x) <= bound);
		ir_matrix_free(x);
	}
}

/* Several ranks per node are refused. */
static void test_refuses_nodes(void **state)
{
	(void)state;
	int d[2] = {2, 2};
	ir_machine m = tu_grid(IR_MESH, 2, d, 0, NULL, 2, IR_PLACE_BLOCK, 0,
	                       IR_PORTS_ALL);
	ir_matrix *x = ir_matrix_regular(8, 2, 8, 1);
	struct place_cut c;

	assert_int_equal(place_any_bound(&m, x, &c), CCP_EINVAL);
	ir_matrix_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_lambda2_closed_forms),
	        cmocka_unit_test(test_tight_on_a_line),
	        cmocka_unit_test(test_never_above_best),
	        cmocka_unit_test(test_degree_sorted),
	        cmocka_unit_test(test_refuses_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
