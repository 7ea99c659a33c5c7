/*
 * test_alltoall.c - the complete-exchange generators of 003 (pex,
 * pex_gen, gen, rex, ipex) and the contention splitter (split.c).
 *
 * Every plan must pass the verifier (causality, delivery of every block)
 * on many machine sizes and lower to per-rank operations.  The measured
 * link load of every step is compared with the paper's f(i): where the
 * two agree the test asserts the paper's value; where they do not, it
 * asserts the value derived independently below (each derivation is in a
 * comment and in docs/alltoall.md) and prints the disagreement.  The
 * contention-free variants must verify with load 1 and are compared with
 * Scott's a^3/4 phases for a x a meshes.
 *
 * Sizes are written as the paper writes them, r x c (rows x columns),
 * while the machine takes dims = [c, r] (x = column fastest).
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

static const struct sch_generator *const algs[] = {
        &sch_pex, &sch_pex_gen, &sch_gen, &sch_rex, &sch_ipex};
#define NALGS (sizeof algs / sizeof algs[0])

/* ---- helpers -------------------------------------------------------- */

/* An r x c mesh (r rows, c columns), X-Y routing. */
static ir_machine mesh(int r, int c, int ports)
{
	return tu_machine(IR_MESH, ports, c, r > 1 ? r : 0, 0, 0);
}

static ir_machine other(enum ir_topo t, int ndims, int d0, int d1, int d2,
                        int ports)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = t;
	m.ndims = ndims;
	m.dims[0] = d0;
	m.dims[1] = d1;
	m.dims[2] = d2;
	m.ports = ports;
	m.routing = t == IR_HYPERCUBE ? IR_ROUTE_ECUBE
	            : t == IR_SWITCH  ? IR_ROUTE_DIRECT
	                              : IR_ROUTE_DIM_ORDER;
	char err[256];
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	return m;
}

static const ir_comm a2a = {.coll = IR_ALLTOALL, .bytes = 64};

/* Generate with g (which must apply) and verify; the report is the
 * caller's to release. */
static void make(const struct sch_generator *g, const ir_machine *m,
                 bool forbid, ir_plan *p, ir_report *r)
{
	char why[256] = "";
	struct sch_options o = {.forbid_contention = forbid};
	assert_int_equal(sch_applies(g, m, &a2a, why, sizeof why), 0);
	assert_int_equal(g->generate(m, &a2a, &o, p), 0);
	int rc = ir_verify(p, r);
	if (rc)
		print_message("  %s: verifier: %s\n", g->name, r->message);
	assert_int_equal(rc, 0);
	assert_true(r->ok);
}

static int ilog2_floor(int64_t v)
{
	int k = 0;
	while (v > 1) {
		v /= 2;
		k++;
	}
	return k;
}

static int ilog2_ceil(int64_t v)
{
	int k = 0;
	while (((int64_t)1 << k) < v)
		k++;
	return k;
}

static int64_t next_pow2(int64_t v)
{
	return (int64_t)1 << ilog2_ceil(v);
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* ---- the paper's f(i) and the derived loads ------------------------- */

/* 003 section 3.1: f(i) = 2^ceil(lg max(mod(i,c), i/c)), i/c integer. */
static int64_t pex_paper(int64_t i, int64_t c)
{
	return (int64_t)1 << ilog2_ceil(max64(i % c, i / c));
}

/* PEX, derived.  With c a power of two, j XOR i moves column x to
 * x XOR ix and row y to y XOR iy (ix = i mod c, iy = i / c).  Under X-Y
 * routing the x legs of a row are a 1D pairwise exchange with ix, and the
 * y legs in a column come from a single source column, a 1D exchange with
 * iy; x and y links are distinct, so the load is the larger of the two.
 * In 1D with k: a transfer crossing the boundary b -> b+1 rightwards
 * starts in the lower half of the aligned block of 2^(h+1) (2^h the top
 * bit of k) that contains b, and every lower-half rank of that block
 * crosses its middle: load exactly 2^h = 2^floor(lg k).  So
 * f(i) = 2^floor(lg max(ix, iy)): the paper's ceil is one power of two
 * too high whenever max(ix, iy) is not a power of two. */
static int64_t pex_derived(int64_t i, int64_t c)
{
	return (int64_t)1 << ilog2_floor(max64(i % c, i / c));
}

/* 003 section 3.3: min(mod(i,c), c-mod(i,c)) + min(i/c, (p-i)/c), with
 * integer divisions. */
static int64_t gen_paper(int64_t i, int64_t r, int64_t c)
{
	int64_t p = r * c;
	return min64(i % c, c - i % c) + min64(i / c, (p - i) / c);
}

/* GEN, derived.  j -> (j+i) mod p with ix = i mod c, iy = i / c.  The x
 * leg of a row: ranks x < c-ix go right by ix, the others left by c-ix;
 * a rightward link k -> k+1 is crossed by the x in (k-ix, k] below c-ix,
 * at most min(ix, c-ix), reached; the leftward case is symmetric: the x
 * load is min(ix, c-ix) (0 if ix = 0).  The y leg in a destination
 * column comes from one source column and shifts every row by s
 * (mod r): s = iy in columns >= ix, s = iy+1 in columns < ix (those
 * sources carried into the next row); by the same argument its load is
 * min(s, r-s) with s taken mod r.  X and Y links are distinct, so f(i) is
 * the MAXIMUM of the two loads, where the paper ADDS its two terms. */
static int64_t gen_derived(int64_t i, int64_t r, int64_t c)
{
	int64_t ix = i % c, iy = i / c;
	int64_t x = ix ? min64(ix, c - ix) : 0;
	int64_t y = 0;
	for (int64_t carry = 0; carry <= (ix ? 1 : 0); carry++) {
		int64_t s = (iy + carry) % r;
		if (s)
			y = max64(y, min64(s, r - s));
	}
	return max64(x, y);
}

/* 003 section 4.1: c/2^i for i <= lg c, then r/2^(i - lg c).  Derived
 * the same way: in a range of width w every rank of the lower half sends
 * to its mirror in the upper half, across the middle link, and no other
 * link carries more: w/2.  Paper and measurement agree. */
static int64_t rex_paper(int64_t i, int64_t r, int64_t c)
{
	int lc = ilog2_floor(c);
	return i <= lc ? c >> i : r >> (i - lc);
}

/* 003 section 4.2: 2^ceil(lg i) for row or column step i; derived: each
 * row (column) step is a 1D pairwise exchange, 2^floor(lg i) (see
 * pex_derived). */
static int64_t ipex_paper(int64_t i)
{
	return (int64_t)1 << ilog2_ceil(i);
}

static int64_t ipex_derived(int64_t i)
{
	return (int64_t)1 << ilog2_floor(i);
}

/* For IPEX phase k on a power-of-two r x c mesh: the row or column step
 * number it is (rows: c-1 rounds of 1 row step + r-1 column steps, then
 * r-1 final column steps), and whether it is a row step. */
static int64_t ipex_step(uint32_t k, int64_t r, int64_t c, bool *row)
{
	int64_t round = (int64_t)k / r, pos = (int64_t)k % r;
	*row = false;
	if (round < c - 1 && pos == 0) {
		*row = true;
		return round + 1;
	}
	if (round < c - 1)
		return pos;
	return (int64_t)k - (c - 1) * r + 1; /* final column steps */
}

/* Compare every step's measured load with the paper and the derivation:
 * assert the derivation, print where the paper differs; return the
 * number of steps that differ from the paper. */
enum algo { A_PEX, A_GEN, A_REX, A_IPEX };

static int check_loads(enum algo a, int r, int c, int *nsteps)
{
	const struct sch_generator *g = a == A_PEX   ? &sch_pex
	                                : a == A_GEN ? &sch_gen
	                                : a == A_REX ? &sch_rex
	                                             : &sch_ipex;
	ir_machine m = mesh(r, c, 1);
	ir_plan p;
	ir_report rep;
	make(g, &m, false, &p, &rep);
	int differ = 0, shown = 0;
	*nsteps = (int)rep.phases;
	for (uint32_t k = 0; k < rep.phases; k++) {
		int64_t i = k + 1, paper, want;
		bool row = false;
		switch (a) {
		case A_PEX:
			paper = pex_paper(i, c);
			want = pex_derived(i, c);
			break;
		case A_GEN:
			paper = gen_paper(i, r, c);
			want = gen_derived(i, r, c);
			break;
		case A_REX:
			paper = want = rex_paper(i, r, c);
			break;
		default:
			i = ipex_step(k, r, c, &row);
			paper = ipex_paper(i);
			want = ipex_derived(i);
			break;
		}
		if (paper == want)
			assert_int_equal(rep.link_load[k], paper);
		else
			assert_int_equal(rep.link_load[k], want);
		if (paper != (int64_t)rep.link_load[k]) {
			differ++;
			if (shown++ < 6)
				print_message("  %s %dx%d phase %u (%s %lld): "
				              "paper %lld, measured %u\n",
				              g->name, r, c, k + 1,
				              a != A_IPEX ? "step"
				              : row       ? "row step"
				                          : "column step",
				              (long long)i, (long long)paper,
				              rep.link_load[k]);
		}
	}
	print_message("  %s %dx%d: %u steps, %d differ from the paper's "
	              "f(i)\n",
	              g->name, r, c, rep.phases, differ);
	ir_report_fini(&rep);
	ir_plan_fini(&p);
	return differ;
}

/* ---- tests ---------------------------------------------------------- */

/* Every generator on every size where it applies: verified, every block
 * delivered, the expected number of steps, lowered; elsewhere a reason. */
static void test_verify_sizes(void **state)
{
	(void)state;
	static const int sizes[][2] = {{2, 2},   {2, 4}, {4, 2}, {4, 4},
	                               {8, 8},   {5, 3}, {3, 5}, {6, 6},
	                               {16, 32}, {1, 8}, {1, 6}, {3, 8}};
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		int r = sizes[s][0], c = sizes[s][1];
		ir_machine m = mesh(r, c, 1);
		int64_t p = (int64_t)r * c;
		bool pow2 = (p & (p - 1)) == 0;
		bool sides = (r & (r - 1)) == 0 && (c & (c - 1)) == 0;
		for (size_t a = 0; a < NALGS; a++) {
			const struct sch_generator *g = algs[a];
			char why[256] = "";
			bool expect = g == &sch_pex   ? pow2
			              : g == &sch_rex ? sides
			                              : true;
			int rc = sch_applies(g, &m, &a2a, why, sizeof why);
			if (!expect) {
				assert_int_equal(rc, CCP_ENOTAPPLY);
				assert_true(strlen(why) > 20);
				assert_non_null(strstr(why, g->name));
				continue;
			}
			assert_int_equal(rc, 0);
			ir_plan pl;
			ir_report rep;
			make(g, &m, false, &pl, &rep);
			int64_t want =
			        g == &sch_pex || g == &sch_gen ? p - 1
			        : g == &sch_pex_gen ? next_pow2(p) - 1
			        : g == &sch_rex
			                ? ilog2_ceil(p)
			                : next_pow2(c) * next_pow2(r) - 1;
			assert_int_equal(rep.phases, want);
			assert_int_equal(pl.flags, IR_PLAN_LINK_CONTENTION);
			assert_int_equal(rep.duplicates, 0);
			/* direct algorithms send every block straight */
			if (g != &sch_rex && g != &sch_ipex)
				assert_true(rep.direct);
			else if (r > 1 && c > 1)
				assert_false(rep.direct);
			ir_slice *sl;
			assert_int_equal(ir_lower(&pl, &sl), 0);
			ir_slices_free(sl, m.nranks);
			ir_report_fini(&rep);
			ir_plan_fini(&pl);
		}
	}
}

/* The messages say precisely why an algorithm does not apply. */
static void test_applies_messages(void **state)
{
	(void)state;
	char why[256];
	ir_machine m = mesh(5, 6, 1);
	assert_int_equal(sch_applies(&sch_pex, &m, &a2a, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "pex needs a power-of-two number of "
	                            "ranks; this mesh has 6x5 = 30"));
	m = mesh(4, 6, 1);
	assert_int_equal(sch_applies(&sch_rex, &m, &a2a, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "rex needs a mesh with power-of-two "
	                            "sides; this is 6x4"));
	m = other(IR_MESH, 3, 2, 2, 2, 1);
	assert_int_equal(sch_applies(&sch_ipex, &m, &a2a, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "1D or 2D mesh or torus; this is a 2x2x2"));
	ir_machine sw = other(IR_SWITCH, 1, 6, 1, 1, 1);
	assert_int_equal(sch_applies(&sch_pex, &sw, &a2a, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "this 6-port switch has 6"));
	assert_int_equal(sch_applies(&sch_rex, &sw, &a2a, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "on a switch; this 6-port switch has 6"));
	ir_machine cube = other(IR_HYPERCUBE, 5, 1, 1, 1, 1);
	assert_int_equal(sch_applies(&sch_ipex, &cube, &a2a, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "mesh or torus, 1D or 2D (it exchanges along "
	                            "rows and columns); this machine is a "
	                            "hypercube of dimension 5"));
	ir_comm b = {.coll = IR_BCAST, .bytes = 8, .segments = 1};
	for (size_t a = 0; a < NALGS; a++) {
		assert_int_equal(sch_applies(algs[a], &m, &b, why, sizeof why),
		                 CCP_ENOTAPPLY);
		assert_non_null(strstr(why, "this is a broadcast"));
	}
	/* generate refuses too, and leaves nothing to free */
	ir_plan p;
	struct sch_options o = {0};
	assert_int_equal(sch_rex.generate(&m, &b, &o, &p), CCP_ENOTAPPLY);
	assert_int_equal(p.ntransfers, 0);
	assert_null(p.transfers);
}

/* Other machines where the definitions hold: torus, hypercube (where PEX
 * and REX are contention-free), a switch, a 3D mesh. */
static void test_other_topologies(void **state)
{
	(void)state;
	ir_machine ms[] = {
	        other(IR_TORUS, 2, 4, 4, 1, 1),
	        other(IR_TORUS, 2, 6, 3, 1, 1),
	        other(IR_HYPERCUBE, 5, 1, 1, 1, 1),
	        other(IR_SWITCH, 1, 8, 1, 1, 1),
	        other(IR_MESH, 3, 2, 4, 2, 1),
	};
	for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++)
		for (size_t a = 0; a < NALGS; a++) {
			char why[256];
			if (sch_applies(algs[a], &ms[k], &a2a, why, sizeof why)) {
				assert_true(strlen(why) > 20);
				continue;
			}
			ir_plan p;
			ir_report rep;
			make(algs[a], &ms[k], false, &p, &rep);
			if (ms[k].topo == IR_HYPERCUBE &&
			    (algs[a] == &sch_pex || algs[a] == &sch_rex))
				assert_int_equal(rep.max_link_load, 1);
			ir_report_fini(&rep);
			ir_plan_fini(&p);
		}
}

/* 003 section 3.1, figure 1: PEX on 2x4 is free in steps 1, 4, 5 and
 * has two messages on a link in steps 2, 3, 6, 7. */
static void test_pex_2x4_figure1(void **state)
{
	(void)state;
	static const uint32_t want[7] = {1, 2, 2, 1, 1, 2, 2};
	ir_machine m = mesh(2, 4, 1);
	ir_plan p;
	ir_report rep;
	make(&sch_pex, &m, false, &p, &rep);
	assert_int_equal(rep.phases, 7);
	for (int k = 0; k < 7; k++)
		assert_int_equal(rep.link_load[k], want[k]);
	ir_report_fini(&rep);
	ir_plan_fini(&p);
}

static const int fsizes[][2] = {{2, 4}, {8, 8}, {16, 32}};

/* PEX: the paper's f(i) rounds lg up; it overstates the load exactly at
 * the steps where max(i mod c, i / c) is not a power of two. */
static void test_f_pex(void **state)
{
	(void)state;
	int n, d;
	d = check_loads(A_PEX, 2, 4, &n);
	assert_int_equal(d, 2); /* steps 3 and 7: paper 4, measured 2 */
	d = check_loads(A_PEX, 8, 8, &n);
	assert_true(d > 0);
	d = check_loads(A_PEX, 16, 32, &n);
	assert_true(d > 0);
}

/* GEN: the paper adds the x and y loads; the links differ, so the
 * measurement is their maximum (and the y shift is iy or iy+1). */
static void test_f_gen(void **state)
{
	(void)state;
	int n;
	/* two rows: the y load is at most 1, and the sum's second term is
	 * 0 exactly when the carried columns wrap onto their own row */
	assert_int_equal(check_loads(A_GEN, 2, 4, &n), 0);
	assert_true(check_loads(A_GEN, 8, 8, &n) > 0);
	assert_true(check_loads(A_GEN, 16, 32, &n) > 0);
}

/* REX: paper and measurement agree at every step. */
static void test_f_rex(void **state)
{
	(void)state;
	for (size_t s = 0; s < 3; s++) {
		int n;
		assert_int_equal(
		        check_loads(A_REX, fsizes[s][0], fsizes[s][1], &n), 0);
	}
}

/* IPEX: 2^ceil(lg i) against the measured 2^floor(lg i). */
static void test_f_ipex(void **state)
{
	(void)state;
	int n, d;
	d = check_loads(A_IPEX, 2, 4, &n);
	assert_int_equal(d, 1); /* row step 3: paper 4, measured 2 */
	d = check_loads(A_IPEX, 8, 8, &n);
	assert_true(d > 0);
	d = check_loads(A_IPEX, 16, 32, &n);
	assert_true(d > 0);
}

/* Sum of the measured loads of the contention-allowing plan: no split
 * can use fewer phases, since a step with load f needs f sub-phases. */
static uint64_t load_sum(const struct sch_generator *g, const ir_machine *m,
                         uint64_t *transfers)
{
	ir_plan p;
	ir_report rep;
	make(g, m, false, &p, &rep);
	uint64_t sum = 0;
	for (uint32_t k = 0; k < rep.phases; k++)
		sum += rep.link_load[k];
	*transfers = rep.transfers;
	ir_report_fini(&rep);
	ir_plan_fini(&p);
	return sum;
}

/* forbid_contention: every plan verifies with flags 0, load 1, the same
 * transfers, and at least as many phases as the loads add up to. */
static void test_forbid(void **state)
{
	(void)state;
	static const int sizes[][2] = {{2, 2}, {2, 4}, {4, 4},   {8, 8},
	                               {5, 3}, {6, 6}, {16, 16}, {16, 32}};
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		ir_machine m = mesh(sizes[s][0], sizes[s][1], 1);
		for (size_t a = 0; a < NALGS; a++) {
			char why[256];
			if (sch_applies(algs[a], &m, &a2a, why, sizeof why))
				continue;
			uint64_t nt;
			uint64_t sum = load_sum(algs[a], &m, &nt);
			ir_plan p;
			ir_report rep;
			make(algs[a], &m, true, &p, &rep);
			assert_int_equal(p.flags, 0);
			assert_int_equal(rep.max_link_load, 1);
			assert_int_equal(rep.transfers, nt);
			assert_true(rep.phases >= sum);
			ir_report_fini(&rep);
			ir_plan_fini(&p);
		}
	}
}

/* Scott's a^3/4 (003 section 3) bounds the contention-free phases of a
 * complete exchange in which every message carries one block: it holds
 * for pex, pex_gen and gen.  IPEX's row messages carry a blocks, so the
 * bound is not a theorem for it; its split count is derived instead:
 * each step splits into exactly its load (1D exchanges are intervals on
 * a line, taken in order of their left (rightward) or right (leftward)
 * ends, where first fit is optimal), so sum 2^floor(lg i) over the a-1
 * row and the (a-1) column steps of each of the a column groups:
 * (a^2-1)/3 * (a+1), which is above a^3/4.  REX combines p/2 blocks per
 * message and escapes the bound entirely: the ranges of a halving all
 * meet at their middle link, so each step splits into its load, w/2,
 * 2(a-1) phases in all, far below a^3/4. */
static void test_scott(void **state)
{
	(void)state;
	for (int a = 4; a <= 16; a *= 2) {
		ir_machine m = mesh(a, a, 1);
		int64_t scott = (int64_t)a * a * a / 4;
		for (size_t k = 0; k < NALGS; k++) {
			const struct sch_generator *g = algs[k];
			ir_plan p;
			ir_report rep;
			make(g, &m, true, &p, &rep);
			print_message(
			        "  %dx%d %-8s %5u contention-free phases, "
			        "a^3/4 = %lld, ratio %.2f\n",
			        a, a, g->name, rep.phases, (long long)scott,
			        (double)rep.phases / (double)scott);
			if (g == &sch_rex) {
				assert_int_equal(rep.phases, 2 * (a - 1));
				assert_true(rep.phases < scott);
			} else if (g == &sch_ipex) {
				assert_int_equal(rep.phases,
				                 (a * a - 1) / 3 * (a + 1));
				assert_true(rep.phases >= scott);
			} else {
				assert_true(rep.phases >= scott);
			}
			ir_report_fini(&rep);
			ir_plan_fini(&p);
		}
	}
}

/* PEX-GEN never leaves a step empty: q-1 phases for every p. */
static void test_pex_gen_no_empty_step(void **state)
{
	(void)state;
	for (int n = 2; n <= 70; n++) {
		ir_machine m = mesh(1, n, 1);
		ir_plan p;
		ir_report rep;
		make(&sch_pex_gen, &m, false, &p, &rep);
		assert_int_equal(rep.phases, next_pow2(n) - 1);
		ir_report_fini(&rep);
		ir_plan_fini(&p);
	}
}

/* ---- the splitter --------------------------------------------------- */

static void add1(ir_plan *p, int32_t s, int32_t d)
{
	ir_block b = {s, d};
	assert_int_equal(ir_plan_add(p, s, d, &b, 1, 0), 0);
}

static void expect_phase(const ir_plan *p, uint32_t ph, int n,
                         const int32_t *pairs)
{
	assert_true(ph < p->nphases);
	assert_int_equal(p->phases[ph].ntransfers, n);
	for (int k = 0; k < n; k++) {
		const ir_transfer *x =
		        &p->transfers[p->phases[ph].transfer + (uint32_t)k];
		assert_int_equal(x->src, pairs[2 * k]);
		assert_int_equal(x->dst, pairs[2 * k + 1]);
		assert_int_equal(p->blocks[x->block].origin, pairs[2 * k]);
		assert_int_equal(p->blocks[x->block].index, pairs[2 * k + 1]);
	}
}

/* First fit on a line of 4: 0->2 and 1->3 share link 1->2; 3->0 goes
 * back to the first sub-phase; an empty phase stays; flags cleared. */
static void test_split_first_fit(void **state)
{
	(void)state;
	ir_machine m = mesh(1, 4, 1);
	ir_plan p;
	ir_report rep;
	ir_plan_init(&p, &m, &a2a, "hand");
	p.flags = IR_PLAN_LINK_CONTENTION | IR_PLAN_NODE_CONTENTION;
	ir_plan_phase(&p);
	add1(&p, 0, 2);
	add1(&p, 1, 3);
	add1(&p, 3, 0);
	ir_plan_phase(&p); /* empty */
	ir_plan_phase(&p);
	add1(&p, 2, 1);
	assert_int_equal(sch_split_contention(&p), 0);
	assert_int_equal(p.flags, 0);
	assert_int_equal(p.nphases, 4);
	expect_phase(&p, 0, 2, (const int32_t[]){0, 2, 3, 0});
	expect_phase(&p, 1, 1, (const int32_t[]){1, 3});
	expect_phase(&p, 2, 0, NULL);
	expect_phase(&p, 3, 1, (const int32_t[]){2, 1});
	assert_int_equal(ir_verify(&p, &rep), CCP_EVERIFY); /* undelivered */
	assert_int_equal(rep.max_link_load, 1);
	ir_report_fini(&rep);
	ir_plan_fini(&p);
}

/* Ports: on a switch (private links) only the port limit splits; 2 ports
 * let rank 0 send twice per sub-phase. */
static void test_split_ports(void **state)
{
	(void)state;
	for (int ports = 1; ports <= 2; ports++) {
		ir_machine m = other(IR_SWITCH, 1, 4, 1, 1, ports);
		ir_plan p;
		ir_plan_init(&p, &m, &a2a, "hand");
		p.flags = IR_PLAN_NODE_CONTENTION;
		ir_plan_phase(&p);
		add1(&p, 0, 1);
		add1(&p, 0, 2);
		add1(&p, 0, 3);
		add1(&p, 1, 2);
		assert_int_equal(sch_split_contention(&p), 0);
		if (ports == 1) {
			/* 1 -> 2 joins 0 -> 1: a rank's send and receive
			 * sides are separate ports */
			assert_int_equal(p.nphases, 3);
			expect_phase(&p, 0, 2, (const int32_t[]){0, 1, 1, 2});
			expect_phase(&p, 1, 1, (const int32_t[]){0, 2});
			expect_phase(&p, 2, 1, (const int32_t[]){0, 3});
		} else {
			assert_int_equal(p.nphases, 2);
			expect_phase(&p, 0, 3,
			             (const int32_t[]){0, 1, 0, 2, 1, 2});
			expect_phase(&p, 1, 1, (const int32_t[]){0, 3});
		}
		ir_plan_fini(&p);
	}
}

/* More than 64 sub-phases (the bitsets grow), on a dense-array machine
 * and on a switch with 2^26 link ids (the hash table). */
static void test_split_many(void **state)
{
	(void)state;
	/* line of 202: i -> 101+i all cross the link 100 -> 101 */
	ir_machine m = mesh(1, 202, 1);
	ir_plan p;
	ir_plan_init(&p, &m, &a2a, "hand");
	p.flags = IR_PLAN_LINK_CONTENTION;
	ir_plan_phase(&p);
	for (int32_t i = 0; i <= 100; i++)
		add1(&p, i, 101 + i);
	assert_int_equal(sch_split_contention(&p), 0);
	assert_int_equal(p.nphases, 101);
	for (uint32_t k = 0; k < 101; k++)
		expect_phase(&p, k, 1,
		             (const int32_t[]){(int32_t)k, 101 + (int32_t)k});
	ir_plan_fini(&p);

	/* switch of 8192, one port: rank 0 sends to 100, rank 1 to 50, and
	 * 100 pairs of their own; needs 100 sub-phases */
	m = other(IR_SWITCH, 1, 8192, 1, 1, 1);
	assert_true(ir_nlinks(&m) > (UINT64_C(1) << 25));
	ir_plan_init(&p, &m, &a2a, "hand");
	p.flags = IR_PLAN_NODE_CONTENTION;
	ir_plan_phase(&p);
	for (int32_t d = 1; d <= 100; d++)
		add1(&p, 0, 1000 + d);
	for (int32_t d = 1; d <= 50; d++)
		add1(&p, 1, 1000 + d);
	for (int32_t d = 0; d < 100; d++)
		add1(&p, 2000 + d, 3000 + d);
	assert_int_equal(sch_split_contention(&p), 0);
	assert_int_equal(p.nphases, 100);
	/* first fit, back-filling: 0 -> 1000+d sits in sub-phase d-1; rank
	 * 1 alternates around it (1 -> 1001 in 1, 1 -> 1002 back in 0,
	 * 1 -> 1003 in 3, 1 -> 1004 in 2, ...); the 100 free pairs go to 0 */
	assert_int_equal(p.phases[0].ntransfers, 2 + 100);
	assert_int_equal(p.phases[1].ntransfers, 2);
	assert_int_equal(p.transfers[p.phases[0].transfer + 1].src, 1);
	assert_int_equal(p.transfers[p.phases[0].transfer + 1].dst, 1002);
	assert_int_equal(p.transfers[p.phases[1].transfer + 1].dst, 1001);
	assert_int_equal(p.transfers[p.phases[2].transfer + 1].dst, 1004);
	assert_int_equal(p.transfers[p.phases[3].transfer + 1].dst, 1003);
	ir_report rep;
	assert_int_equal(ir_verify(&p, &rep), CCP_EVERIFY); /* undelivered */
	assert_int_equal(rep.max_node_sends, 1);
	assert_int_equal(rep.max_node_recvs, 1);
	ir_report_fini(&rep);
	ir_plan_fini(&p);
}

/* A bad rank or a malformed phase list leaves the plan as it was. */
static void test_split_bad_rank(void **state)
{
	(void)state;
	ir_machine m = mesh(1, 4, 1);
	ir_plan p;
	ir_plan_init(&p, &m, &a2a, "hand");
	p.flags = IR_PLAN_LINK_CONTENTION;
	ir_plan_phase(&p);
	add1(&p, 0, 2);
	p.transfers[0].dst = 9;
	assert_int_equal(sch_split_contention(&p), CCP_EINVAL);
	assert_int_equal(p.flags, IR_PLAN_LINK_CONTENTION);
	assert_int_equal(p.nphases, 1);
	/* phases that do not tile the transfers */
	p.transfers[0].dst = 2;
	p.phases[0].ntransfers = 2;
	assert_int_equal(sch_split_contention(&p), CCP_EINVAL);
	assert_int_equal(p.flags, IR_PLAN_LINK_CONTENTION);
	ir_plan_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_verify_sizes),
	        cmocka_unit_test(test_applies_messages),
	        cmocka_unit_test(test_other_topologies),
	        cmocka_unit_test(test_pex_2x4_figure1),
	        cmocka_unit_test(test_f_pex),
	        cmocka_unit_test(test_f_gen),
	        cmocka_unit_test(test_f_rex),
	        cmocka_unit_test(test_f_ipex),
	        cmocka_unit_test(test_forbid),
	        cmocka_unit_test(test_scott),
	        cmocka_unit_test(test_pex_gen_no_empty_step),
	        cmocka_unit_test(test_split_first_fit),
	        cmocka_unit_test(test_split_ports),
	        cmocka_unit_test(test_split_many),
	        cmocka_unit_test(test_split_bad_rank),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
