/*
 * test_edn_reduce.c - EDN reduction and gather (001 §3.5) and the
 * binomial reduction baseline.  Every generated plan must pass the
 * verifier contention-free; the phase counts over roots are compared
 * with 001 Table 3.6 (min k+3, max k+4 on (b*2^k)^2 meshes) and with the
 * broadcast they reverse.  The construction's lemma (a dimension-ordered
 * route reversed is the dimension-ordered route of the mesh with its
 * dimensions in reverse order) is checked route by route.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "edn_mesh.h"
#include "sched.h"
#include "support.h"

/* An all-port X x Y (x Z) mesh (z = 0: 2D). */
static ir_machine mesh(int x, int y, int z)
{
	return tu_machine(IR_MESH, IR_PORTS_ALL, x, y, z, 0);
}

/* A reduce (sum of 100 doubles) or gather (64 bytes a rank) at root. */
static ir_comm coll(enum ir_coll k, int32_t root)
{
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = k;
	c.root = root;
	c.bytes = k == IR_REDUCE ? 800 : 64;
	c.segments = 1;
	c.dtype = IR_DT_DOUBLE;
	c.op = IR_OP_SUM;
	return c;
}

/* Generate with g and verify: contention-free (plan flags 0, link load
 * at most 1), no duplicates, one transfer per non-root rank.  Returns
 * the phase count. */
static uint32_t run(const struct sch_generator *g, const ir_machine *m,
                    const ir_comm *c)
{
	char why[256];
	ir_plan p;
	ir_report r;
	assert_int_equal(sch_applies(g, m, c, why, sizeof why), 0);
	assert_int_equal(g->generate(m, c, NULL, &p), 0);
	assert_int_equal(p.flags, 0);
	int rc = ir_verify(&p, &r);
	if (rc)
		print_error("%s root %d: %s\n", g->name, (int)c->root,
		            r.message);
	assert_int_equal(rc, 0);
	assert_true(r.ok);
	assert_int_equal(r.duplicates, 0);
	assert_int_equal(r.transfers, (uint64_t)m->nranks - 1);
	assert_true(r.max_link_load <= 1);
	uint32_t ph = r.phases;
	ir_report_fini(&r);
	ir_plan_fini(&p);
	return ph;
}

/* Phases of the EDN broadcast of the transposed square mesh from the
 * transposed root: what the reduce from root must take. */
static uint32_t bcast_steps(const ir_machine *m, int32_t root)
{
	int n = m->dims[0], su, h;
	int32_t t = root / n + n * (root % n);
	assert_int_equal(sch__edn_steps(m, t, &su, &h), 0);
	return (uint32_t)(su + h);
}

/* ---- the lemma --------------------------------------------------------- */

/* Whether, for every pair u, v of mt, the route T(v) -> T(u) on m is the
 * route u -> v on mt mapped by T and walked backwards; T sends
 * coordinate i of mt to coordinate perm[i] of m. */
static bool routes_reverse(const ir_machine *m, const ir_machine *mt,
                           const int *perm)
{
	uint64_t a[64], b[64];
	int c[IR_MAX_CUBE_DIM], d[IR_MAX_CUBE_DIM] = {0};
	int32_t T[512];
	assert_true(mt->nranks <= 512 && ir_route_max(m) <= 64);
	for (int32_t u = 0; u < mt->nranks; u++) {
		ir_coords(mt, u, c);
		for (int i = 0; i < 3; i++) /* perm names 3 dimensions */
			d[perm[i]] = c[i];
		T[u] = ir_rank_of(m, d);
	}
	for (int32_t u = 0; u < mt->nranks; u++)
		for (int32_t v = 0; v < mt->nranks; v++) {
			int h = ir_route(mt, u, v, a);
			if (ir_route(m, T[v], T[u], b) != h)
				return false;
			for (int j = 0; j < h; j++) {
				int32_t x, y, p, q;
				ir_link_ends(mt, a[h - 1 - j], &x, &y);
				ir_link_ends(m, b[j], &p, &q);
				if (p != T[y] || q != T[x])
					return false;
			}
		}
	return true;
}

/* The construction's lemma, on 2D and 3D meshes of odd and even sizes;
 * and why T must reverse the dimension order: in 3D swapping only x and
 * y does not give dimension-ordered routes back. */
static void test_route_lemma(void **state)
{
	(void)state;
	int swap2[3] = {1, 0, 2}, rev3[3] = {2, 1, 0}, swap3[3] = {1, 0, 2};
	ir_machine m = mesh(5, 7, 0), mt = mesh(7, 5, 0);
	assert_true(routes_reverse(&m, &mt, swap2));
	m = mesh(8, 8, 0);
	assert_true(routes_reverse(&m, &m, swap2));
	m = mesh(3, 4, 5);
	mt = mesh(5, 4, 3);
	assert_true(routes_reverse(&m, &mt, rev3));
	mt = mesh(4, 3, 5);
	assert_false(routes_reverse(&m, &mt, swap3));
	/* and without the transpose the reversal fails even in 2D */
	int id[3] = {0, 1, 2};
	m = mesh(4, 4, 0);
	assert_false(routes_reverse(&m, &m, id));
}

/* 001 §3.5: the EDN broadcast tree reversed as is contends under X-Y
 * routing.  Counted over every root; the rotated (transposed) tree of
 * edn_reduce is accepted from each of them (test_tables). */
static void test_naive_reversal_contends(void **state)
{
	(void)state;
	for (int n = 8; n <= 16; n += 8) {
		ir_machine m = mesh(n, n, 0);
		int bad = 0;
		for (int32_t root = 0; root < m.nranks; root++) {
			ir_comm bc = {.coll = IR_BCAST,
			              .root = root,
			              .bytes = 8,
			              .segments = 1};
			ir_comm rc = coll(IR_REDUCE, root);
			ir_plan b, p;
			ir_report r;
			assert_int_equal(sch_edn.generate(&m, &bc, NULL, &b),
			                 0);
			ir_plan_init(&p, &m, &rc, "naive");
			for (uint32_t ph = b.nphases; ph-- > 0;) {
				const ir_phase *f = &b.phases[ph];
				assert_int_equal(ir_plan_phase(&p), 0);
				for (uint32_t t = f->transfer;
				     t < f->transfer + f->ntransfers; t++) {
					ir_block blk = {b.transfers[t].dst, 0};
					assert_int_equal(
					        ir_plan_add(&p, blk.origin,
					                    b.transfers[t].src,
					                    &blk, 1,
					                    IR_XF_REDUCE),
					        0);
				}
			}
			int v = ir_verify(&p, &r);
			if (v) {
				assert_int_equal(v, CCP_EVERIFY);
				assert_non_null(strstr(r.message, "link: "));
				bad++;
			}
			ir_report_fini(&r);
			ir_plan_fini(&p);
			ir_plan_fini(&b);
		}
		printf("  %dx%d: the reversed edn tree contends from %d of %d "
		       "roots\n",
		       n, n, bad, (int)m.nranks);
		assert_true(bad > 0);
	}
}

/* ---- step tables ------------------------------------------------------- */

/* Reduce and gather from root on m: both verified, both with the
 * phases of the broadcast they reverse (want). */
static uint32_t both_want(const ir_machine *m, int32_t root, uint32_t want)
{
	ir_comm r = coll(IR_REDUCE, root), g = coll(IR_GATHER, root);
	uint32_t ph = run(&sch_edn_reduce, m, &r);
	assert_int_equal(ph, want);
	assert_int_equal(run(&sch_edn_gather, m, &g), want);
	return ph;
}

/* The same on a square mesh, where the broadcast's count is edn's own. */
static uint32_t both(const ir_machine *m, int32_t root)
{
	return both_want(m, root, bcast_steps(m, root));
}

/* Min and max phases over the roots of an n x n mesh.  n <= 20: every
 * root, and the count is shown to depend only on the root's row (the
 * broadcast startup depends only on the source's column in the
 * transposed mesh, docs/edn-reduce.md).  n <= 56 (k <= 3): one root per
 * row, in varying columns.  Larger: edn's step count over every row
 * picks the rows of the min and the max, and roots there and at two
 * corners are generated. */
static void sweep(int n, uint32_t *mn, uint32_t *mx, int *tried)
{
	ir_machine m = mesh(n, n, 0);
	*mn = UINT32_MAX;
	*mx = 0;
	*tried = 0;
	int32_t pick[2 * 64 + 4];
	int np = 0;
	if (n <= 20) {
		for (int y = 0; y < n; y++) {
			uint32_t row = both(&m, n * y);
			for (int x = 1; x < n; x++)
				both_want(&m, x + n * y, row);
			*mn = row < *mn ? row : *mn;
			*mx = row > *mx ? row : *mx;
		}
		*tried = n * n;
		return;
	}
	if (n <= 56) {
		for (int y = 0; y < n; y++)
			pick[np++] = (y * 7) % n + n * y;
	} else {
		int ymin = 0, ymax = 0;
		uint32_t lo = UINT32_MAX, hi = 0;
		for (int y = 0; y < n; y++) {
			uint32_t s = bcast_steps(&m, n * y);
			if (s < lo) {
				lo = s;
				ymin = y;
			}
			if (s > hi) {
				hi = s;
				ymax = y;
			}
		}
		pick[np++] = n * ymin + n / 2;
		pick[np++] = n * ymax + n - 1;
		pick[np++] = 0;
		pick[np++] = m.nranks - 1;
	}
	for (int i = 0; i < np; i++) {
		uint32_t ph = both(&m, pick[i]);
		*mn = ph < *mn ? ph : *mn;
		*mx = ph > *mx ? ph : *mx;
	}
	*tried = np;
}

/* 001 Table 3.6: min k+3, max k+4 phases on (4*2^k)^2 meshes; the text
 * gives the same totals for 5, 6, 7 * 2^k.  k = 0..5. */
static void test_tables(void **state)
{
	(void)state;
	printf("  b   k    n  roots  min  max  thesis\n");
	for (int b = 4; b <= 7; b++)
		for (int k = 0; k <= 5; k++) {
			int n = b << k, tried;
			uint32_t mn, mx;
			sweep(n, &mn, &mx, &tried);
			printf("  %d  %2d  %3d  %5d  %3u  %3u  %d/%d\n", b, k,
			       n, tried, mn, mx, k + 3, k + 4);
			fflush(stdout);
			assert_int_equal(mn, (uint32_t)k + 3);
			assert_true(mx <= (uint32_t)k + 4);
		}
}

/* ---- where it applies -------------------------------------------------- */

/* Refusals name the generator, the collective and the machine, and fit
 * the 256-byte buffer the compiler gives. */
static void test_applies(void **state)
{
	(void)state;
	char why[256];
	ir_comm r = coll(IR_REDUCE, 0), g = coll(IR_GATHER, 0);
	ir_machine ok = mesh(224, 224, 0);
	assert_int_equal(sch_applies(&sch_edn_reduce, &ok, &r, why, sizeof why), 0);
	assert_int_equal(sch_applies(&sch_edn_gather, &ok, &g, why, sizeof why), 0);
	/* the wrong collective */
	assert_int_equal(sch_applies(&sch_edn_reduce, &ok, &g, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_string_equal(why, "edn_reduce is a reduce; this is a gather");
	assert_int_equal(sch_applies(&sch_edn_gather, &ok, &r, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_string_equal(why, "edn_gather is a gather; this is a reduce");
	/* a mesh edn has no pattern for, a one-port mesh, a torus */
	ir_machine bad[] = {
	        mesh(9, 9, 0),
	        tu_machine(IR_MESH, 1, 8, 8, 0, 0),
	        tu_machine(IR_TORUS, IR_PORTS_ALL, 8, 8, 0, 0),
	        tu_machine(IR_HYPERCUBE, IR_PORTS_ALL, 4, 0, 0, 0),
	};
	const char *shape[] = {"a 9x9 mesh", "an 8x8 mesh with 1-port nodes",
	                       "an 8x8 torus", "a hypercube"};
	/* edn refuses the transpose of the first, which names the
	 * collective; the domain's data refuses the others */
	const char *on[][2] = {{"this reduce is on", "this gather is on"},
	                       {"this machine is", "this machine is"},
	                       {"this machine is", "this machine is"},
	                       {"this machine is", "this machine is"}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(
		        sch_applies(&sch_edn_reduce, &bad[i], &r, why, sizeof why),
		        CCP_ENOTAPPLY);
		assert_non_null(strstr(why, "edn_reduce"));
		assert_non_null(strstr(why, on[i][0]));
		assert_non_null(strstr(why, shape[i]));
		assert_true(strlen(why) < sizeof why - 1); /* not cut off */
		printf("  %s\n", why);
		ir_plan p;
		assert_int_equal(sch_edn_reduce.generate(&bad[i], &r, NULL, &p),
		                 CCP_ENOTAPPLY);
		ir_plan_fini(&p);
		assert_int_equal(
		        sch_applies(&sch_edn_gather, &bad[i], &g, why, sizeof why),
		        CCP_ENOTAPPLY);
		assert_non_null(strstr(why, on[i][1]));
	}
}

/* The generators apply exactly where edn applies to the transposed
 * machine, whatever shapes edn covers (rectangles and 3D are being
 * added to it); where they apply, the plans verify. */
static void test_follows_edn(void **state)
{
	(void)state;
	struct {
		ir_machine m, t;
	} s[] = {
	        {mesh(8, 16, 0), mesh(16, 8, 0)},
	        {mesh(20, 10, 0), mesh(10, 20, 0)},
	        {mesh(6, 7, 0), mesh(7, 6, 0)},
	        {mesh(8, 8, 1), mesh(8, 8, 1)},
	        {mesh(16, 16, 1), mesh(16, 16, 1)},
	        {mesh(4, 4, 4), mesh(4, 4, 4)},
	        {mesh(8, 8, 12), mesh(12, 8, 8)},
	        {mesh(4, 4, 5), mesh(5, 4, 4)},
	};
	char why[256];
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
		ir_comm bc = {.coll = IR_BCAST, .bytes = 1, .segments = 1};
		ir_comm r = coll(IR_REDUCE, 0);
		int want = sch_applies(&sch_edn, &s[i].t, &bc, why, sizeof why);
		assert_int_equal(
		        sch_applies(&sch_edn_reduce, &s[i].m, &r, why, sizeof why),
		        want);
		printf("  %dx%dx%d: %s\n", s[i].m.dims[0], s[i].m.dims[1],
		       s[i].m.dims[2],
		       want ? "refused, as edn refuses the "
		              "transpose"
		            : "applies, verified");
		if (want)
			continue;
		for (int32_t root = 0; root < s[i].m.nranks; root += 13) {
			/* T: coordinates in reverse order (trailing 1s
			 * kept in place) */
			int c[IR_MAX_CUBE_DIM], d[IR_MAX_CUBE_DIM] = {0};
			int nd = s[i].m.ndims;
			while (nd > 1 && s[i].m.dims[nd - 1] == 1)
				nd--;
			ir_coords(&s[i].m, root, c);
			for (int k = 0; k < IR_MAX_DIMS; k++)
				d[k] = k < nd ? c[nd - 1 - k] : c[k];
			bc.root = ir_rank_of(&s[i].t, d);
			ir_plan b;
			assert_int_equal(
			        sch_edn.generate(&s[i].t, &bc, NULL, &b), 0);
			both_want(&s[i].m, root, b.nphases);
			ir_plan_fini(&b);
		}
	}
}

/* ---- lowering ---------------------------------------------------------- */

/* The plans lower: the root posts one RECV_REDUCE (gather: RECV) per
 * child, every other rank sends exactly once, the gather root's output
 * holds every block. */
static void test_lower(void **state)
{
	(void)state;
	struct {
		int n;
		int32_t root;
	} s[] = {{4, 5}, {16, 37}, {20, 399}, {56, 1500}};
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		for (int gth = 0; gth < 2; gth++) {
			ir_machine m = mesh(s[i].n, s[i].n, 0);
			ir_comm c =
			        coll(gth ? IR_GATHER : IR_REDUCE, s[i].root);
			const struct sch_generator *g =
			        gth ? &sch_edn_gather : &sch_edn_reduce;
			ir_plan p;
			ir_report r;
			ir_slice *sl = NULL;
			assert_int_equal(g->generate(&m, &c, NULL, &p), 0);
			assert_int_equal(ir_verify(&p, &r), 0);
			assert_int_equal(ir_lower(&p, &sl), 0);
			uint32_t children = 0;
			for (uint32_t t = 0; t < p.ntransfers; t++)
				children += p.transfers[t].dst == c.root;
			for (int32_t q = 0; q < m.nranks; q++) {
				uint32_t sends = 0, recvs = 0;
				for (uint32_t k = 0; k < sl[q].nops; k++) {
					sends +=
					        sl[q].ops[k].code == IR_OP_SEND;
					recvs += sl[q].ops[k].code ==
					         (gth ? IR_OP_RECV
					              : IR_OP_RECV_REDUCE);
				}
				assert_int_equal(sends, q == c.root ? 0 : 1);
				if (q == c.root)
					assert_int_equal(recvs, children);
			}
			if (gth)
				assert_int_equal(sl[c.root].recv_bytes,
				                 (uint64_t)m.nranks * 64);
			else
				assert_int_equal(sl[c.root].recv_bytes, 800);
			ir_slices_free(sl, m.nranks);
			ir_report_fini(&r);
			ir_plan_fini(&p);
		}
}

/* ---- the binomial reduction baseline ----------------------------------- */

/* binomial reduces from every root on meshes, tori (odd and even, 1D to
 * 3D), a hypercube and a switch: verified, one-port where the machine
 * is, in exactly the phases of its broadcast from the same root. */
static void test_binomial_reduce(void **state)
{
	(void)state;
	ir_machine ms[] = {
	        tu_machine(IR_MESH, 1, 16, 16, 0, 0),
	        tu_machine(IR_MESH, 1, 5, 7, 0, 0),
	        tu_machine(IR_MESH, IR_PORTS_ALL, 3, 4, 5, 0),
	        tu_machine(IR_MESH, 1, 8, 0, 0, 0),
	        tu_machine(IR_TORUS, 1, 6, 6, 0, 0),
	        tu_machine(IR_TORUS, 1, 5, 3, 0, 0),
	        tu_machine(IR_TORUS, 1, 8, 0, 0, 0),
	        tu_machine(IR_TORUS, 1, 4, 4, 4, 0),
	        tu_machine(IR_HYPERCUBE, 1, 5, 0, 0, 0),
	        tu_machine(IR_SWITCH, 1, 13, 0, 0, 0),
	};
	char why[256];
	for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++)
		for (int32_t root = 0; root < ms[k].nranks; root++) {
			ir_comm r = coll(IR_REDUCE, root);
			ir_comm bc = {.coll = IR_BCAST,
			              .root = root,
			              .bytes = 800,
			              .segments = 1};
			ir_plan b;
			assert_int_equal(
			        sch_binomial.generate(&ms[k], &bc, NULL, &b),
			        0);
			uint32_t ph = run(&sch_binomial, &ms[k], &r);
			assert_int_equal(ph, b.nphases);
			ir_plan_fini(&b);
		}
	/* one-port really holds: at most one send and receive per phase */
	ir_comm r = coll(IR_REDUCE, 77);
	ir_plan p;
	ir_report rep;
	ir_slice *sl;
	assert_int_equal(sch_binomial.generate(&ms[0], &r, NULL, &p), 0);
	assert_int_equal(ir_verify(&p, &rep), 0);
	assert_int_equal(rep.phases, 8);
	assert_int_equal(rep.max_node_sends, 1);
	assert_int_equal(rep.max_node_recvs, 1);
	assert_int_equal(ir_lower(&p, &sl), 0);
	ir_slices_free(sl, ms[0].nranks);
	ir_report_fini(&rep);
	ir_plan_fini(&p);
	/* no alltoall (a tree has one root), and no HPAM */
	ir_comm sc = coll(IR_ALLTOALL, 0);
	assert_int_equal(sch_applies(&sch_binomial, &ms[0], &sc, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_string_equal(why, "binomial is a broadcast, scatter, gather or "
	                         "reduce; this is an alltoall");
	ir_machine h = tu_machine(IR_HPAM, 1, 1, 1, 4, 4);
	assert_int_equal(sch_applies(&sch_binomial, &h, &r, why, sizeof why),
	                 CCP_ENOTAPPLY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_route_lemma),
	        cmocka_unit_test(test_naive_reversal_contends),
	        cmocka_unit_test(test_applies),
	        cmocka_unit_test(test_follows_edn),
	        cmocka_unit_test(test_lower),
	        cmocka_unit_test(test_binomial_reduce),
	        cmocka_unit_test(test_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
