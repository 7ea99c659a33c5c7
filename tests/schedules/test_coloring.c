/*
 * test_coloring.c - the optimal node scheduler, the link-aware one and the
 * size-grouping one (schedules/coloring.c): the colouring meets the degree
 * bound exactly on every kind of matrix and port model; the link-aware
 * plans are contention-free and never beat the verifier's bound; on the
 * 64-node hypercube of 004 the colouring takes exactly d phases and the
 * link-aware scheduler fewer than RS_NL; on meshes of 1,024 and 4,096
 * ranks it stays within 1.10 times the bound; lists kept whole,
 * run-coded or routed again give the same plan; the size-grouping plans
 * cost less under 004's tau + M*phi; and the generator table entries.
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
#include "irregular.h"
#include "irregular_int.h"
#include "matrix.h"
#include "rng.h"
#include "sched.h"
#include "support.h"

/* ---- helpers ---------------------------------------------------------- */

/* The machines the property tests run on: every topology, with one-,
 * k- and all-port ranks. */
static size_t machines(ir_machine *out)
{
	size_t n = 0;
	const int ports[] = {1, 2, IR_PORTS_ALL};
	for (int i = 0; i < 3; i++) {
		int p = ports[i];
		out[n++] = tu_machine(IR_MESH, p, 4, 4, 0, 0);
		out[n++] = tu_machine(IR_MESH, p, 2, 3, 2, 0);
		out[n++] = tu_machine(IR_MESH, p, 7, 0, 0, 0);
		out[n++] = tu_machine(IR_TORUS, p, 3, 4, 0, 0);
		out[n++] = tu_machine(IR_TORUS, p, 2, 5, 0, 0);
		out[n++] = tu_machine(IR_HYPERCUBE, p, 4, 0, 0, 0);
		out[n++] = tu_machine(IR_SWITCH, p, 9, 0, 0, 0);
		out[n++] = tu_machine(IR_HPAM, p, 2, 4, 3, 8);
	}
	out[n++] = tu_machine(IR_SWITCH, 3, 10, 0, 0, 0);
	out[n++] = tu_machine(IR_HYPERCUBE, 3, 5, 0, 0, 0);
	return n;
}

/* Ports a rank may use in one phase, by the verifier's rule. */
static uint32_t ports_of(const ir_machine *m, int32_t r)
{
	int c = m->ports == IR_PORTS_ALL ? ir_degree(m, r) : m->ports;
	return c > 0 ? (uint32_t)c : 1;
}

/* max over ranks of ceil(sent / ports) and ceil(received / ports). */
static uint32_t degree_bound(const ir_machine *m, const ir_matrix *x)
{
	uint32_t *in = calloc((size_t)x->n + 1, sizeof *in), t = 0;
	assert_non_null(in);
	for (int32_t s = 0; s < x->n; s++) {
		uint32_t out = (uint32_t)(x->row[s + 1] - x->row[s]);
		uint32_t q = ports_of(m, s), v = (out + q - 1) / q;
		t = v > t ? v : t;
		for (int64_t k = x->row[s]; k < x->row[s + 1]; k++)
			in[x->dst[k]]++;
	}
	for (int32_t d = 0; d < x->n; d++) {
		uint32_t q = ports_of(m, d), v = (in[d] + q - 1) / q;
		t = v > t ? v : t;
	}
	free(in);
	return t;
}

/* A matrix from an edge list, every message 100 bytes. */
static ir_matrix *from_pairs(int32_t n, const int32_t (*e)[2], size_t k)
{
	struct ir_edge *ed = calloc(k ? k : 1, sizeof *ed);
	ir_matrix *x = NULL;
	size_t bad;
	assert_non_null(ed);
	for (size_t i = 0; i < k; i++)
		ed[i] = (struct ir_edge){e[i][0], e[i][1], 100, i};
	assert_int_equal(ir_matrix_from_edges(n, ed, k, &x, &bad), 0);
	free(ed);
	return x;
}

/* Messages from only some senders (the rest have empty rows), random
 * destinations, some receivers hit often. */
static ir_matrix *sparse_rows(struct ir_rng *r, int32_t n)
{
	size_t cap = (size_t)n * 4, k = 0;
	int32_t(*e)[2] = calloc(cap, sizeof *e);
	uint8_t *seen = calloc((size_t)n * (size_t)n, 1);
	assert_non_null(e);
	assert_non_null(seen);
	for (int32_t s = 0; s < n; s += 3)
		for (int j = 0; j < 4; j++) {
			int32_t d =
			        (int32_t)ir_rng_below(r, 3) == 0
			                ? 0
			                : (int32_t)ir_rng_below(r, (uint64_t)n);
			if (d == s || seen[(size_t)s * n + d] || k == cap)
				continue;
			seen[(size_t)s * n + d] = 1;
			e[k][0] = s;
			e[k][1] = d;
			k++;
		}
	ir_matrix *x = from_pairs(n, (const int32_t(*)[2])e, k);
	free(e);
	free(seen);
	return x;
}

/* Test matrix number kind for n ranks (NULL past the last kind). */
#define NKINDS 12
static ir_matrix *test_matrix(struct ir_rng *r, int32_t n, int kind)
{
	uint64_t seed = ir_rng_next(r);
	int32_t d = (int32_t)ir_rng_below(r, (uint64_t)n); /* 0..n-1 */
	static const int32_t one[1][2] = {{1, 0}};
	switch (kind) {
	case 0:
		return ir_matrix_regular(n, d, 64, seed);
	case 1:
		return ir_matrix_regular(n, n - 1, 64, seed); /* all-to-all */
	case 2:
		return ir_matrix_regular(n, 1, 64, seed);
	case 3:
		return ir_matrix_density(n, 0.1, 64, seed);
	case 4:
		return ir_matrix_density(n, 0.5, 64, seed);
	case 5:
		return ir_matrix_density(n, 0.9, 64, seed);
	case 6:
		return ir_matrix_skewed(n, d / 2, 1, 64, seed);
	case 7:
		return ir_matrix_skewed(n, 2, 3, 64, seed);
	case 8:
		return sparse_rows(r, n);
	case 9:
		return from_pairs(n, one, 1); /* a single message */
	case 10:
		return from_pairs(n, one, 0); /* nothing to send */
	case 11:
		return ir_matrix_density(n, 0.0, 64, seed);
	}
	return NULL;
}

/* Run the verifier and insist it accepts. */
static void verify_ok(const ir_plan *p, ir_report *r)
{
	int rc = ir_verify(p, r);
	if (rc)
		print_message("  verifier (%s): %s\n", p->algorithm,
		              r->message);
	assert_int_equal(rc, 0);
}

/* What every plan of these schedulers is: one transfer per message,
 * carrying exactly block (s, d) from s to d, each message once, no empty
 * phase. */
static void check_shape(const ir_plan *p, const ir_matrix *x)
{
	uint8_t *seen = calloc((size_t)x->nnz + 1, 1);
	assert_non_null(seen);
	assert_int_equal(p->ntransfers, (uint32_t)x->nnz);
	for (uint32_t i = 0; i < p->nphases; i++)
		assert_true(p->phases[i].ntransfers > 0);
	for (uint32_t t = 0; t < p->ntransfers; t++) {
		const ir_transfer *xf = &p->transfers[t];
		const ir_block *b = &p->blocks[xf->block];
		assert_int_equal(xf->nblocks, 1);
		assert_int_equal(b->origin, xf->src);
		assert_int_equal(b->index, xf->dst);
		int64_t k = x->row[xf->src];
		while (k < x->row[xf->src + 1] && x->dst[k] != xf->dst)
			k++;
		assert_true(k < x->row[xf->src + 1]);
		assert_false(seen[k]);
		seen[k] = 1;
	}
	free(seen);
}

static bool same_plan(const ir_plan *a, const ir_plan *b)
{
	if (a->nphases != b->nphases || a->ntransfers != b->ntransfers)
		return false;
	for (uint32_t i = 0; i < a->nphases; i++)
		if (a->phases[i].ntransfers != b->phases[i].ntransfers)
			return false;
	for (uint32_t t = 0; t < a->ntransfers; t++)
		if (a->transfers[t].src != b->transfers[t].src ||
		    a->transfers[t].dst != b->transfers[t].dst)
			return false;
	return true;
}

/* 004 section 2.1: sum over phases of tau + M*phi, M the largest message
 * of the phase (iPSC/860: tau 150 us, phi 0.36 us/byte). */
static double plan_cost(const ir_plan *p)
{
	double c = 0;
	for (uint32_t i = 0; i < p->nphases; i++) {
		int64_t big = 0;
		for (uint32_t t = 0; t < p->phases[i].ntransfers; t++) {
			int64_t b =
			        p->transfers[p->phases[i].transfer + t].bytes;
			big = b > big ? b : big;
		}
		c += 150.0 + 0.36 * (double)big;
	}
	return c;
}

/* Overwrite the sizes of x: log-uniform 16 B .. 64 KiB (mode 0) or a
 * bimodal mix, one message in ten 64 KiB and the rest 64 B (mode 1). */
static void resize(ir_matrix *x, uint64_t seed, int mode)
{
	struct ir_rng r;
	ir_rng_seed(&r, seed);
	for (int64_t k = 0; k < x->nnz; k++) {
		if (mode == 0) {
			double u = (double)(ir_rng_next(&r) >> 11) * 0x1p-53;
			x->bytes[k] = (int64_t)pow(2.0, 4.0 + 12.0 * u);
		} else {
			x->bytes[k] = ir_rng_below(&r, 10) == 0 ? 65536 : 64;
		}
	}
}

/* ---- the colouring ---------------------------------------------------- */

/* Exactly max ceil(degree / ports) phases (the verifier's degree bound),
 * on every matrix kind, machine and port model, and a valid plan. */
static void test_color_exact(void **state)
{
	ir_machine ms[32];
	size_t nm = machines(ms);
	struct ir_rng r;
	int cases = 0;
	(void)state;

	ir_rng_seed(&r, 4);
	for (size_t i = 0; i < nm; i++)
		for (int kind = 0; kind < NKINDS; kind++)
			for (int rep = 0; rep < 3; rep++) {
				const ir_machine *m = &ms[i];
				ir_matrix *x = test_matrix(&r, m->nranks, kind);
				ir_plan p;
				ir_report rp;
				assert_non_null(x);
				assert_int_equal(sch_irregular(m, x,
				                               SCH_IRR_COLOR, 7,
				                               &p),
				                 0);
				check_shape(&p, x);
				assert_int_equal(p.flags,
				                 IR_PLAN_LINK_CONTENTION);
				verify_ok(&p, &rp);
				assert_int_equal(p.nphases, degree_bound(m, x));
				assert_int_equal(p.nphases, rp.lb_degree);
				ir_report_fini(&rp);
				ir_plan_fini(&p);
				ir_matrix_free(x);
				cases++;
			}
	print_message("  %d patterns on %zu machines: all at the degree "
	              "bound\n",
	              cases, nm);
}

/* Every degree d = 0..n-1 of a random regular pattern, on one- and
 * k-port switches and hypercubes: d phases, ceil(d/k) with k ports. */
static void test_color_every_degree(void **state)
{
	const ir_machine ms[] = {
	        tu_machine(IR_SWITCH, 1, 16, 0, 0, 0),
	        tu_machine(IR_HYPERCUBE, 1, 4, 0, 0, 0),
	        tu_machine(IR_SWITCH, 3, 16, 0, 0, 0),
	        tu_machine(IR_HYPERCUBE, 2, 4, 0, 0, 0),
	        tu_machine(IR_MESH, 1, 5, 3, 0, 0),
	};
	(void)state;
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		int32_t n = ms[i].nranks;
		uint32_t k = ms[i].ports;
		for (int32_t d = 0; d < n; d++)
			for (uint64_t seed = 1; seed <= 4; seed++) {
				ir_matrix *x = ir_matrix_regular(n, d, 8, seed);
				ir_plan p;
				ir_report rep;
				assert_non_null(x);
				assert_int_equal(sch_irregular(&ms[i], x,
				                               SCH_IRR_COLOR,
				                               seed, &p),
				                 0);
				verify_ok(&p, &rep);
				assert_int_equal(p.nphases,
				                 ((uint32_t)d + k - 1) / k);
				ir_report_fini(&rep);
				ir_plan_fini(&p);
				ir_matrix_free(x);
			}
	}
}

/* A larger pattern whose degree is odd and not a power of two (the
 * Euler partitions leave odd parts to the alternating paths), and one
 * with a hot spot far above every other degree. */
static void test_color_large(void **state)
{
	ir_machine m = tu_machine(IR_MESH, 1, 32, 32, 0, 0);
	const int32_t degs[] = {63, 45, 48, 17};
	(void)state;
	for (size_t i = 0; i < sizeof degs / sizeof degs[0]; i++) {
		ir_matrix *x = ir_matrix_regular(1024, degs[i], 8, 3 + i);
		ir_plan p;
		ir_report rep;
		assert_non_null(x);
		assert_int_equal(sch_irregular(&m, x, SCH_IRR_COLOR, 1, &p), 0);
		verify_ok(&p, &rep);
		assert_int_equal(p.nphases, (uint32_t)degs[i]);
		ir_report_fini(&rep);
		ir_plan_fini(&p);
		ir_matrix_free(x);
	}
	ir_matrix *x = ir_matrix_skewed(1024, 10, 2, 8, 9);
	ir_plan p;
	ir_report rep;
	assert_non_null(x);
	assert_int_equal(sch_irregular(&m, x, SCH_IRR_COLOR, 1, &p), 0);
	verify_ok(&p, &rep);
	assert_int_equal(p.nphases, 1023); /* the hot ranks receive n-1 */
	ir_report_fini(&rep);
	ir_plan_fini(&p);
	ir_matrix_free(x);
}

/* ---- the link-aware scheduler ---------------------------------------- */

/* No node or link contention (flags 0), never below the verifier's
 * bound, the same plan for the same input; on a switch, where links are
 * private, exactly the degree bound. */
static void test_link_aware_free(void **state)
{
	ir_machine ms[32];
	size_t nm = machines(ms);
	struct ir_rng r;
	int cases = 0, at_bound = 0;
	(void)state;

	ir_rng_seed(&r, 5);
	for (size_t i = 0; i < nm; i++)
		for (int kind = 0; kind < NKINDS; kind++)
			for (int rep = 0; rep < 2; rep++) {
				const ir_machine *m = &ms[i];
				ir_matrix *x = test_matrix(&r, m->nranks, kind);
				ir_plan p, q;
				ir_report rp;
				assert_non_null(x);
				assert_int_equal(
				        sch_irregular(m, x, SCH_IRR_LINK_AWARE,
				                      7, &p),
				        0);
				check_shape(&p, x);
				assert_int_equal(p.flags, 0);
				verify_ok(&p, &rp);
				assert_int_equal(rp.max_link_load > 1, 0);
				assert_true(p.nphases >= rp.lb_phases);
				assert_true(p.nphases >= rp.lb_degree);
				assert_true(p.nphases >= rp.lb_link);
				if (m->topo == IR_SWITCH)
					assert_int_equal(p.nphases,
					                 rp.lb_degree);
				at_bound += p.nphases == rp.lb_phases;
				assert_int_equal(
				        sch_irregular(m, x, SCH_IRR_LINK_AWARE,
				                      7, &q),
				        0);
				assert_true(same_plan(&p, &q));
				ir_plan_fini(&q);
				ir_report_fini(&rp);
				ir_plan_fini(&p);
				ir_matrix_free(x);
				cases++;
			}
	print_message("  %d patterns on %zu machines, %d at the lower "
	              "bound\n",
	              cases, nm, at_bound);
}

/* A large switch (link ids n^2, kept in a hash rather than a table) and
 * an all-port torus: still contention-free, and on the switch exactly
 * the degree bound. */
static void test_link_aware_large(void **state)
{
	const ir_machine ms[] = {tu_machine(IR_SWITCH, 1, 600, 0, 0, 0),
	                         tu_machine(IR_SWITCH, 4, 600, 0, 0, 0),
	                         tu_machine(IR_TORUS, IR_PORTS_ALL, 8, 8, 4, 0)};
	(void)state;
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		ir_matrix *x = ir_matrix_skewed(ms[i].nranks, 6, 2, 8, 1 + i);
		ir_plan p;
		ir_report rp;
		assert_non_null(x);
		assert_int_equal(
		        sch_irregular(&ms[i], x, SCH_IRR_LINK_AWARE, 1, &p), 0);
		check_shape(&p, x);
		verify_ok(&p, &rp);
		assert_int_equal(p.flags, 0);
		assert_true(p.nphases >= rp.lb_phases);
		if (ms[i].topo == IR_SWITCH)
			assert_int_equal(p.nphases, degree_bound(&ms[i], x));
		ir_report_fini(&rp);
		ir_plan_fini(&p);
		ir_matrix_free(x);
	}
}

/* bench_irregular's meshes (X-Y routing, one port, random d-regular,
 * seed 1), small enough for a test: within 1.10 times the bound (issue
 * 20's goal) and no more phases than when the first fit was made faster
 * (2026-11-28), so a change for speed cannot cost phases unnoticed. */
static void test_link_aware_mesh(void **state)
{
	const struct {
		int side;
		int32_t d;
		uint32_t phases; /* measured 2026-11-28 */
	} cs[] = {{32, 16, 149}, {32, 64, 567}, {64, 16, 306}};
	(void)state;
	for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
		ir_machine m = tu_machine(IR_MESH, 1, cs[i].side, cs[i].side,
		                          0, 0);
		ir_matrix *x = ir_matrix_regular(m.nranks, cs[i].d, 1024, 1);
		ir_plan p;
		ir_report rp;
		assert_non_null(x);
		assert_int_equal(
		        sch_irregular(&m, x, SCH_IRR_LINK_AWARE, 1, &p), 0);
		verify_ok(&p, &rp);
		assert_int_equal(p.flags, 0);
		assert_true(p.nphases >= rp.lb_phases);
		assert_true(p.nphases <= cs[i].phases);
		assert_true((double)p.nphases <= 1.10 * rp.lb_phases);
		ir_report_fini(&rp);
		ir_plan_fini(&p);
		ir_matrix_free(x);
	}
}

/* link_aware with its lists kept up to store entries, run-coded up to
 * runs words, into *p (initialised as sch_irregular does). */
static void link_aware_kept(const ir_machine *m, const ir_matrix *x,
                            uint64_t store, uint64_t runs, ir_plan *p)
{
	ir_comm comm = {.coll = IR_IRREGULAR, .matrix = (ir_matrix *)x,
	                .seed = 1};
	ir_plan_init(p, m, &comm, "link_aware");
	assert_non_null(p->comm.matrix);
	assert_int_equal(sch__irr_link_aware_kept(m, x, 1, store, runs, p), 0);
}

/* Lists too long to keep whole are kept run-coded, or failing that
 * routed again at each placement: the three ways give the same plan,
 * transfer for transfer.  The lists stop fitting after the first few
 * hundred messages (so those are run-coded afterwards), and the runs
 * once halfway (so the rest are routed again); on a mesh, a torus whose
 * stretches wrap around, and a hypercube whose routes are not
 * stretches. */
static void test_link_aware_runs(void **state)
{
	const ir_machine ms[] = {tu_machine(IR_MESH, 1, 16, 16, 0, 0),
	                         tu_machine(IR_TORUS, 1, 8, 4, 8, 0),
	                         tu_machine(IR_HYPERCUBE, 1, 8, 0, 0, 0)};
	(void)state;
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		ir_matrix *x = ir_matrix_regular(ms[i].nranks, 12, 1024, 2);
		ir_plan want, got;
		assert_non_null(x);
		uint64_t store = 3000, half = 0;
		/* routed again at every placement: the reference */
		link_aware_kept(&ms[i], x, store, 0, &want);
		for (uint32_t t = 0; t < want.ntransfers; t++)
			half += 2 + (uint64_t)ir_hops(&ms[i],
			                              want.transfers[t].src,
			                              want.transfers[t].dst);
		half /= 8; /* fewer words than the runs take */
		const uint64_t runs[] = {UINT64_C(1) << 24, half};
		for (size_t r = 0; r < 2; r++) {
			link_aware_kept(&ms[i], x, store, runs[r], &got);
			assert_int_equal(got.nphases, want.nphases);
			assert_int_equal(got.ntransfers, want.ntransfers);
			for (uint32_t f = 0; f < got.nphases; f++)
				assert_int_equal(got.phases[f].ntransfers,
				                 want.phases[f].ntransfers);
			for (uint32_t t = 0; t < got.ntransfers; t++) {
				assert_int_equal(got.transfers[t].src,
				                 want.transfers[t].src);
				assert_int_equal(got.transfers[t].dst,
				                 want.transfers[t].dst);
			}
			ir_plan_fini(&got);
		}
		ir_report rp;
		verify_ok(&want, &rp);
		assert_true(want.nphases >= rp.lb_phases);
		ir_report_fini(&rp);
		ir_plan_fini(&want);
		ir_matrix_free(x);
	}
}

/* 004's experiment: a 64-node hypercube, e-cube routing, one port, random
 * d-regular patterns, 50 seeds per d.  The colouring takes exactly d
 * phases; the link-aware scheduler fewer than RS_NL on average, and fewer
 * than the RS_NL means 004 reports (7.10, 11.92, 20.74, 37.76, 53.74). */
static void test_hypercube_means(void **state)
{
	ir_machine m = tu_machine(IR_HYPERCUBE, 1, 6, 0, 0, 0);
	const int32_t ds[] = {4, 8, 16, 32, 48};
	const double paper[] = {7.10, 11.92, 20.74, 37.76, 53.74};
	(void)state;

	print_message("  %4s %8s %8s %8s %8s %8s\n", "d", "color", "link",
	              "rs_nl", "004", "bound");
	for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
		double sc = 0, sl = 0, sr = 0, sb = 0;
		for (uint64_t seed = 1; seed <= 50; seed++) {
			ir_matrix *x = ir_matrix_regular(64, ds[i], 1024, seed);
			ir_plan p;
			ir_report rp;
			assert_non_null(x);
			assert_int_equal(
			        sch_irregular(&m, x, SCH_IRR_COLOR, seed, &p),
			        0);
			assert_int_equal(p.nphases, (uint32_t)ds[i]);
			sc += p.nphases;
			ir_plan_fini(&p);
			assert_int_equal(sch_irregular(&m, x,
			                               SCH_IRR_LINK_AWARE, seed,
			                               &p),
			                 0);
			verify_ok(&p, &rp);
			sl += p.nphases;
			sb += rp.lb_phases;
			ir_report_fini(&rp);
			ir_plan_fini(&p);
			assert_int_equal(
			        sch_irregular(&m, x, SCH_IRR_RS_NL, seed, &p),
			        0);
			sr += p.nphases;
			ir_plan_fini(&p);
			ir_matrix_free(x);
		}
		print_message("  %4d %8.2f %8.2f %8.2f %8.2f %8.2f\n", ds[i],
		              sc / 50, sl / 50, sr / 50, paper[i], sb / 50);
		assert_true(sc == 50.0 * ds[i]);
		assert_true(sl < sr);
		assert_true(sl / 50 < paper[i]);
	}
}

/* ---- the size-grouping scheduler ------------------------------------- */

/* Contention-free, and cheaper than the link-aware plan under tau + M*phi
 * on patterns of mixed sizes; with equal sizes never dearer. */
static void test_sized_cost(void **state)
{
	const ir_machine ms[] = {
	        tu_machine(IR_HYPERCUBE, 1, 6, 0, 0, 0),
	        tu_machine(IR_MESH, 1, 8, 8, 0, 0),
	        tu_machine(IR_TORUS, 2, 4, 4, 0, 0),
	};
	const int32_t ds[] = {8, 16, 32};
	(void)state;
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
		for (size_t j = 0; j < sizeof ds / sizeof ds[0]; j++)
			for (int mode = 0; mode < 3; mode++) {
				int32_t n = ms[i].nranks;
				ir_matrix *x = ir_matrix_regular(
				        n, ds[j] < n ? ds[j] : n - 1, 1024,
				        10 + j);
				ir_plan la, sz;
				ir_report rp;
				assert_non_null(x);
				if (mode < 2)
					resize(x, 99 + i * 7 + j, mode);
				assert_int_equal(
				        sch_irregular(&ms[i], x,
				                      SCH_IRR_LINK_AWARE, 1,
				                      &la),
				        0);
				assert_int_equal(sch_irregular(&ms[i], x,
				                               SCH_IRR_SIZED, 1,
				                               &sz),
				                 0);
				check_shape(&sz, x);
				assert_int_equal(sz.flags, 0);
				verify_ok(&sz, &rp);
				ir_report_fini(&rp);
				double cl = plan_cost(&la), cs = plan_cost(&sz);
				if (mode < 2)
					assert_true(cs < cl);
				else
					assert_true(cs <= cl);
				if (j == 1 && mode < 2)
					print_message(
					        "  %s d=%d %s: link_aware "
					        "%u phases %.1f ms, sized "
					        "%u phases %.1f ms\n",
					        ir_topo_name(ms[i].topo), ds[j],
					        mode ? "bimodal"
					             : "log-uniform",
					        la.nphases, cl / 1000,
					        sz.nphases, cs / 1000);
				ir_plan_fini(&la);
				ir_plan_fini(&sz);
				ir_matrix_free(x);
			}
}

/* The machine's own tau and phi steer the grouping: with phi = 0 only
 * the phase count matters, so sized is then as short as link_aware. */
static void test_sized_machine_cost(void **state)
{
	ir_machine m = tu_machine(IR_HYPERCUBE, 1, 6, 0, 0, 0);
	ir_matrix *x = ir_matrix_regular(64, 16, 1024, 3);
	ir_plan la, sz;
	(void)state;
	assert_non_null(x);
	resize(x, 5, 0);
	m.cost.tau = 150;
	m.cost.phi = 0;
	assert_int_equal(sch_irregular(&m, x, SCH_IRR_LINK_AWARE, 1, &la), 0);
	assert_int_equal(sch_irregular(&m, x, SCH_IRR_SIZED, 1, &sz), 0);
	assert_true(sz.nphases <= la.nphases);
	ir_plan_fini(&la);
	ir_plan_fini(&sz);
	ir_matrix_free(x);
}

/* ---- arguments and the generator table ------------------------------- */

static void test_bad_arguments(void **state)
{
	ir_machine m = tu_machine(IR_MESH, 1, 4, 4, 0, 0);
	ir_matrix *x = ir_matrix_regular(8, 2, 8, 1); /* 8 ranks, not 16 */
	ir_plan p;
	(void)state;
	assert_non_null(x);
	memset(&p, 0, sizeof p);
	assert_int_equal(sch__irr_color(&m, x, 1, &p), CCP_EINVAL);
	assert_int_equal(sch__irr_link_aware(&m, x, 1, &p), CCP_EINVAL);
	assert_int_equal(sch__irr_sized(&m, x, 1, &p), CCP_EINVAL);
	assert_int_equal(sch__irr_color(NULL, x, 1, &p), CCP_EINVAL);
	assert_int_equal(sch__irr_link_aware(&m, NULL, 1, &p), CCP_EINVAL);
	assert_int_equal(sch__irr_sized(&m, x, 1, NULL), CCP_EINVAL);
	assert_int_equal(sch_irregular(&m, x, SCH_IRR_COLOR, 1, &p),
	                 CCP_EINVAL);
	ir_matrix_free(x);
}

static void test_generators(void **state)
{
	const struct sch_generator *g[] = {&sch_color, &sch_link_aware,
	                                   &sch_sized};
	const char *names[] = {"color", "link_aware", "sized"};
	ir_machine m = tu_machine(IR_MESH, 1, 4, 4, 0, 0);
	ir_comm bc = {.coll = IR_BCAST, .root = 0, .bytes = 8, .segments = 1};
	ir_comm ir = {.coll = IR_IRREGULAR, .seed = 3};
	ir_comm wrong = {.coll = IR_IRREGULAR};
	char why[256];
	(void)state;

	ir.matrix = ir_matrix_regular(16, 5, 100, 3);
	wrong.matrix = ir_matrix_regular(8, 2, 100, 3);
	assert_non_null(ir.matrix);
	assert_non_null(wrong.matrix);
	for (int i = 0; i < 3; i++) {
		ir_plan p;
		ir_report rp;
		assert_string_equal(g[i]->name, names[i]);
		assert_ptr_equal(sch_find(names[i]), g[i]);
		assert_non_null(g[i]->summary);
		why[0] = 0;
		assert_int_equal(sch_applies(g[i], &m, &bc, why, sizeof why),
		                 CCP_ENOTAPPLY);
		assert_non_null(strstr(why, names[i]));
		assert_non_null(strstr(why, "broadcast"));
		assert_int_equal(sch_applies(g[i], &m, &wrong, why, sizeof why),
		                 CCP_ENOTAPPLY);
		assert_int_equal(sch_applies(g[i], &m, &ir, why, sizeof why), 0);
		for (int forbid = 0; forbid < 2; forbid++) {
			struct sch_options o = {.seed = 3,
			                        .forbid_contention = forbid};
			assert_int_equal(g[i]->generate(&m, &ir, &o, &p), 0);
			assert_string_equal(p.algorithm, names[i]);
			verify_ok(&p, &rp);
			if (forbid || i > 0)
				assert_int_equal(p.flags, 0);
			else
				assert_int_equal(p.flags,
				                 IR_PLAN_LINK_CONTENTION);
			if (forbid)
				assert_int_equal(rp.max_link_load, 1);
			ir_report_fini(&rp);
			ir_plan_fini(&p);
		}
	}
	ir_comm_fini(&ir);
	ir_comm_fini(&wrong);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_bad_arguments),
	        cmocka_unit_test(test_generators),
	        cmocka_unit_test(test_color_exact),
	        cmocka_unit_test(test_color_every_degree),
	        cmocka_unit_test(test_color_large),
	        cmocka_unit_test(test_link_aware_free),
	        cmocka_unit_test(test_link_aware_large),
	        cmocka_unit_test(test_link_aware_mesh),
	        cmocka_unit_test(test_link_aware_runs),
	        cmocka_unit_test(test_hypercube_means),
	        cmocka_unit_test(test_sized_cost),
	        cmocka_unit_test(test_sized_machine_cost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
