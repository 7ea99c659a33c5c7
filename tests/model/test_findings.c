/*
 * test_findings.c - the thesis's simulation findings for EDN (001 §3.4.5
 * and §3.6), run through the simulator (model/sim.c) the way the runtime
 * runs plans: no phase barriers.
 *
 *  - 3D broadcast (001 §3.4.5, Figure 3.25): EDN against recursive
 *    doubling (RD) on all-port 4x4x4 and 8x8x4 meshes, X-Y-Z routing,
 *    T3D channel rate, start-up 0.75 + 0.75 us (preset t3d) and 0.075 +
 *    0.075 us (t3d-fast), messages of 32..2048 bytes, eight sources.  The
 *    thesis: EDN ahead by about 27% (4x4x4) and 30% (8x8x4), 32% and 36%
 *    with the faster start-up.
 *  - Transpose (001 §3.6, Figure 3.29): the EDN transpose against the
 *    one-phase direct transpose on 8x8, 16x16 and 32x32 meshes, blocks of
 *    128..2048 bytes, T3D parameters.  The thesis: EDN's maximum latency
 *    is below one third of the direct one on 32x32, its average about
 *    one half.
 *
 * Every number is printed; docs/findings.md records them.  This file is
 * built twice.  As test_findings it asserts the parts of the findings the
 * simulator reproduces, so they keep guarding CI.  test_findings_pending.c
 * defines CCP_FINDINGS_PENDING and includes it: that executable asserts
 * the findings as the thesis states them, fails where the simulator
 * disagrees, and is listed as pending (tests/CMakeLists.txt, README
 * "Known failures"); docs/findings.md says why.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "sched.h"
#include "support.h"

#ifndef CCP_FINDINGS_PENDING
#define CCP_FINDINGS_PENDING 0
#endif

/* ---- helpers -------------------------------------------------------- */

/* Generate alg's plan for c on m, verified; fails the test if alg does
 * not apply. */
static void fd_generate(const char *alg, const ir_machine *m, const ir_comm *c,
                        ir_plan *p)
{
	const struct sch_generator *g = sch_find(alg);
	assert_non_null(g);
	char why[256] = "";
	if (sch_applies(g, m, c, why, sizeof why))
		fail_msg("%s: %s", alg, why);
	struct sch_options o = {.hpam_price = model_hpam_price};
	assert_int_equal(g->generate(m, c, &o, p), 0);
	ir_report r;
	assert_int_equal(ir_verify(p, &r), 0);
	if (!r.ok)
		fail_msg("%s: %s", alg, r.message);
	ir_report_fini(&r);
}

static void fd_simulate(const ir_plan *p, bool barriers, enum model_links links,
                        struct model_sim *s)
{
	char err[256] = "";
	struct model_sim_opts o = {.barriers = barriers, .links = links};
	if (model_simulate(p, &o, s, err, sizeof err))
		fail_msg("model_simulate: %s", err);
}

/* 1 - a/b in percent: how much a is ahead of b. */
static double fd_gain(double a, double b)
{
	return 100 * (1 - a / b);
}

/* ---- 3D broadcast: EDN against RD (001 §3.4.5) ----------------------- */

#define BC_NMESH   2
#define BC_NPRESET 2
#define BC_NSIZE   7 /* 32, 64, ..., 2048 bytes */
#define BC_NSOURCE 8 /* 001 picks sources at random; ours are fixed */

static const int bc_mesh[BC_NMESH][3] = {{4, 4, 4}, {8, 8, 4}};
static const char *const bc_preset[BC_NPRESET] = {"t3d", "t3d-fast"};
/* The thesis's advantage of EDN over RD, per mesh and preset (001
 * §3.4.5: "approximately 30 percent in the larger mesh and 27 percent in
 * the smaller", then "36 percent and 32 percent, respectively, in the
 * large and small meshes"). */
static const double bc_thesis[BC_NMESH][BC_NPRESET] = {{27, 32}, {30, 36}};

/* One algorithm at one point: the means over the sources. */
struct bc_res {
	double max, avg; /* no barriers: max and mean delivery time */
	double fmax, favg; /* the same with links first come first served
	                      (MODEL_LINKS_FIFO: no virtual channels) */
	double bmax;     /* with phase barriers: max delivery time */
	double model;    /* the unicast model (001 §4.4.2), phase sum */
};

struct bc_cell {
	struct bc_res edn, rd;
};

static struct bc_cell bc_table[BC_NMESH][BC_NPRESET][BC_NSIZE];
static bool bc_done;

static int64_t bc_bytes(int s)
{
	return INT64_C(32) << s;
}

/* The eight sources: four corners, the centre, and three pseudo-random
 * ranks (a fixed LCG, so runs repeat). */
static void bc_sources(const ir_machine *m, int32_t src[BC_NSOURCE])
{
	int X = m->dims[0], Y = m->dims[1], Z = m->dims[2];
	const int at[5][3] = {{0, 0, 0},
	                      {X - 1, Y - 1, Z - 1},
	                      {X - 1, 0, Z - 1},
	                      {0, Y - 1, 0},
	                      {X / 2, Y / 2, Z / 2}};
	int k = 0;
	for (; k < 5; k++)
		src[k] = ir_rank_of(m, at[k]);
	uint32_t x = 12345;
	for (; k < BC_NSOURCE; k++) {
		x = x * 1103515245u + 12345u;
		src[k] = (int32_t)((x >> 8) % (uint32_t)m->nranks);
	}
}

/* alg's broadcast of L bytes on machine m, averaged over the sources. */
static void bc_run(const char *alg, const ir_machine *m, int64_t L,
                   struct bc_res *r)
{
	int32_t src[BC_NSOURCE];
	bc_sources(m, src);
	memset(r, 0, sizeof *r);
	for (int k = 0; k < BC_NSOURCE; k++) {
		ir_comm c = tu_comm(IR_BCAST, src[k], L);
		ir_plan p;
		fd_generate(alg, m, &c, &p);
		struct model_sim sf, sb, so;
		fd_simulate(&p, false, MODEL_LINKS_SHARED, &sf);
		fd_simulate(&p, true, MODEL_LINKS_SHARED, &sb);
		fd_simulate(&p, false, MODEL_LINKS_FIFO, &so);
		assert_int_equal(sf.receivers, m->nranks - 1);
		assert_int_equal(so.receivers, m->nranks - 1);
		double us;
		char err[256];
		if (model_predict(&p, NULL, MODEL_UNICAST, &us, NULL, err,
		                  sizeof err))
			fail_msg("model_predict: %s", err);
		r->max += sf.max_us / BC_NSOURCE;
		r->avg += sf.avg_us / BC_NSOURCE;
		r->bmax += sb.max_us / BC_NSOURCE;
		r->fmax += so.max_us / BC_NSOURCE;
		r->favg += so.avg_us / BC_NSOURCE;
		r->model += us / BC_NSOURCE;
		model_sim_fini(&sf);
		model_sim_fini(&sb);
		model_sim_fini(&so);
		ir_plan_fini(&p);
	}
}

/* Fill bc_table once per run and print it. */
static void bc_fill(void)
{
	if (bc_done)
		return;
	print_message("  3D broadcast, mean over %d sources; gain = 1 - "
	              "EDN/RD (001 §3.4.5: %.0f/%.0f%% t3d, %.0f/%.0f%% "
	              "t3d-fast)\n",
	              BC_NSOURCE, bc_thesis[0][0], bc_thesis[1][0],
	              bc_thesis[0][1], bc_thesis[1][1]);
	print_message("  mesh   preset    bytes  EDN max   RD max   gain  "
	              "EDN avg   RD avg   gain | barriers: EDN     RD   "
	              "gain | model: EDN     RD   gain | fifo: EDN     RD   "
	              "gain   avg gain\n");
	for (int a = 0; a < BC_NMESH; a++) {
		ir_machine m = tu_machine(IR_MESH, 0, bc_mesh[a][0],
		                          bc_mesh[a][1], bc_mesh[a][2], 0);
		for (int b = 0; b < BC_NPRESET; b++) {
			m.cost.alpha = m.cost.beta = m.cost.hop = m.cost.gamma =
			        NAN;
			assert_int_equal(
			        model_preset_apply(&m.cost, bc_preset[b]), 0);
			for (int s = 0; s < BC_NSIZE; s++) {
				struct bc_cell *x = &bc_table[a][b][s];
				bc_run("edn", &m, bc_bytes(s), &x->edn);
				bc_run("rd", &m, bc_bytes(s), &x->rd);
				print_message(
				        "  %dx%dx%d %-8s %6lld %8.2f %8.2f "
				        "%+5.1f%% %8.2f %8.2f %+5.1f%% | "
				        "%14.2f %6.2f %+5.1f%% | %11.2f "
				        "%6.2f %+5.1f%% | %10.2f %6.2f "
				        "%+5.1f%%   %+5.1f%%\n",
				        bc_mesh[a][0], bc_mesh[a][1],
				        bc_mesh[a][2], bc_preset[b],
				        (long long)bc_bytes(s), x->edn.max,
				        x->rd.max,
				        fd_gain(x->edn.max, x->rd.max),
				        x->edn.avg, x->rd.avg,
				        fd_gain(x->edn.avg, x->rd.avg),
				        x->edn.bmax, x->rd.bmax,
				        fd_gain(x->edn.bmax, x->rd.bmax),
				        x->edn.model, x->rd.model,
				        fd_gain(x->edn.model, x->rd.model),
				        x->edn.fmax, x->rd.fmax,
				        fd_gain(x->edn.fmax, x->rd.fmax),
				        fd_gain(x->edn.favg, x->rd.favg));
			}
		}
	}
	bc_done = true;
}

/* 001 §3.4.4's own estimate of where EDN overtakes RD on a (4*2^k) x
 * (4*2^k) x (4*2^m) mesh with alpha = gamma: L > (m + 3) alpha / ((k + 2)
 * beta) bytes (341 on 4x4x4, 227 on 8x8x4 with the T3D's start-up). */
static double bc_crossover(int a, const ir_cost *c)
{
	int k = 0, m = 0;
	while ((4 << k) < bc_mesh[a][0])
		k++;
	while ((4 << m) < bc_mesh[a][2])
		m++;
	return (m + 3) * c->alpha / ((k + 2) * c->beta);
}

/* ---- transpose: EDN against direct (001 §3.6) ------------------------- */

#define TR_NMESH 3 /* 8x8, 16x16, 32x32 */
#define TR_NSIZE 5 /* 128, 256, ..., 2048 bytes */

struct tr_cell {
	double dmax, davg; /* direct transpose, no barriers */
	double dserial;    /* the f messages of its busiest link back to
	                      back: alpha + f L beta + gamma (plus at most
	                      2(n-1) hop of header) */
	double emax, eavg; /* EDN transpose, no barriers */
	double ebmax;      /* EDN transpose with phase barriers */
	double emodel;     /* EDN transpose, unicast model without
	                      contention (the phase sum) */
	double lmax, lavg; /* the EDN pattern with every message L bytes,
	                      whatever it carries (what if 001's "message
	                      size" is that of every message) */
	double fdmax, fdavg, femax, feavg; /* direct and EDN, no barriers,
	                      links first come first served */
	double flmax, flavg; /* the L-byte what-if, links first come first
	                      served */
	uint32_t f;        /* direct: most messages on one link */
	uint32_t eblocks;  /* EDN: most blocks in one message */
	uint32_t eforward; /* EDN: most messages one block travels in */
};

static struct tr_cell tr_table[TR_NMESH][TR_NSIZE];
static bool tr_done;

static int tr_n(int a)
{
	return 8 << a;
}

static int64_t tr_bytes(int s)
{
	return INT64_C(128) << s;
}

/* The most blocks in one message of p, and the most messages that carry
 * one block (the EDN transpose forwards a block once per level). */
static void tr_shape(const ir_plan *p, uint32_t *blocks, uint32_t *forward)
{
	uint32_t *hits = calloc((size_t)p->machine.nranks, sizeof *hits);
	assert_non_null(hits);
	*blocks = *forward = 0;
	for (uint32_t t = 0; t < p->ntransfers; t++) {
		const ir_transfer *x = &p->transfers[t];
		if (x->nblocks > *blocks)
			*blocks = x->nblocks;
		for (uint32_t k = 0; k < x->nblocks; k++) {
			int32_t o = p->blocks[x->block + k].origin;
			if (++hits[o] > *forward)
				*forward = hits[o];
		}
	}
	free(hits);
}

/* One cell of the transpose table: both plans of L-byte blocks on m. */
static void tr_run(const ir_machine *m, int64_t L, struct tr_cell *x)
{
	ir_comm c = tu_comm(IR_TRANSPOSE, 0, L);
	ir_plan d, e;
	struct model_sim s;
	ir_report r;
	char err[256];

	fd_generate("transpose_direct", m, &c, &d);
	assert_int_equal(ir_verify(&d, &r), 0);
	x->f = r.max_link_load;
	ir_report_fini(&r);
	fd_simulate(&d, false, MODEL_LINKS_SHARED, &s);
	x->dmax = s.max_us;
	x->davg = s.avg_us;
	model_sim_fini(&s);
	fd_simulate(&d, false, MODEL_LINKS_FIFO, &s);
	x->fdmax = s.max_us;
	x->fdavg = s.avg_us;
	model_sim_fini(&s);
	x->dserial = m->cost.alpha + (double)x->f * (double)L * m->cost.beta +
	             m->cost.gamma;
	ir_plan_fini(&d);

	fd_generate("edn_transpose", m, &c, &e);
	fd_simulate(&e, false, MODEL_LINKS_SHARED, &s);
	x->emax = s.max_us;
	x->eavg = s.avg_us;
	model_sim_fini(&s);
	fd_simulate(&e, false, MODEL_LINKS_FIFO, &s);
	x->femax = s.max_us;
	x->feavg = s.avg_us;
	model_sim_fini(&s);
	fd_simulate(&e, true, MODEL_LINKS_SHARED, &s);
	x->ebmax = s.max_us;
	model_sim_fini(&s);
	/* the contention-free phase sum: the unicast model prices a plan
	 * that declares contention by its waits, so ask it without */
	uint32_t flags = e.flags;
	e.flags &= ~(IR_PLAN_LINK_CONTENTION | IR_PLAN_NODE_CONTENTION);
	if (model_predict(&e, NULL, MODEL_UNICAST, &x->emodel, NULL, err,
	                  sizeof err))
		fail_msg("model_predict: %s", err);
	e.flags = flags;
	tr_shape(&e, &x->eblocks, &x->eforward);
	for (uint32_t t = 0; t < e.ntransfers; t++)
		e.transfers[t].bytes = L;
	fd_simulate(&e, false, MODEL_LINKS_SHARED, &s);
	x->lmax = s.max_us;
	x->lavg = s.avg_us;
	model_sim_fini(&s);
	fd_simulate(&e, false, MODEL_LINKS_FIFO, &s);
	x->flmax = s.max_us;
	x->flavg = s.avg_us;
	model_sim_fini(&s);
	ir_plan_fini(&e);
}

/* Fill tr_table once per run and print it. */
static void tr_fill(void)
{
	if (tr_done)
		return;
	print_message("  transpose, t3d; ratio = EDN/direct (001 §3.6: max < "
	              "1/3 on 32x32, average about 1/2)\n");
	print_message("  mesh    bytes  f  direct max    avg  serial |  EDN "
	              "max     avg  ratio max  avg | barriers   model blk "
	              "fwd | L-byte max  avg  ratio max  avg | fifo ratio "
	              "max  avg  L-byte max  avg\n");
	for (int a = 0; a < TR_NMESH; a++) {
		int n = tr_n(a);
		ir_machine m = tu_machine(IR_MESH, 0, n, n, 0, 0);
		assert_int_equal(model_preset_apply(&m.cost, "t3d"), 0);
		for (int s = 0; s < TR_NSIZE; s++) {
			struct tr_cell *x = &tr_table[a][s];
			tr_run(&m, tr_bytes(s), x);
			print_message(
			        "  %2dx%-2d %6lld %2u %10.2f %6.2f %7.2f | "
			        "%8.2f %7.2f %6.2f %5.2f | %8.2f %7.2f %3u "
			        "%3u | %10.2f %5.2f %6.2f %5.2f | %14.2f "
			        "%5.2f %11.2f %5.2f\n",
			        n, n, (long long)tr_bytes(s), x->f, x->dmax,
			        x->davg, x->dserial, x->emax, x->eavg,
			        x->emax / x->dmax, x->eavg / x->davg, x->ebmax,
			        x->emodel, x->eblocks, x->eforward, x->lmax,
			        x->lavg, x->lmax / x->dmax, x->lavg / x->davg,
			        x->femax / x->fdmax, x->feavg / x->fdavg,
			        x->flmax / x->fdmax, x->flavg / x->fdavg);
		}
	}
	tr_done = true;
}

/* ---- what the simulator reproduces (test_findings) ------------------- */

/* 001 §3.4.5, Figure 3.25(b): with the start-up cut tenfold (t3d-fast),
 * EDN's maximum and average broadcast latency are below RD's at every
 * size on both meshes. */
static void test_bcast_fast(void **state)
{
	(void)state;
	bc_fill();
	for (int a = 0; a < BC_NMESH; a++)
		for (int s = 0; s < BC_NSIZE; s++) {
			const struct bc_cell *x = &bc_table[a][1][s];
			assert_true(x->edn.max < x->rd.max);
			assert_true(x->edn.avg < x->rd.avg);
		}
}

/* 001 §3.4.5, Figure 3.25(a), T3D start-up (t3d): EDN's maximum latency
 * is below RD's for every message above 001 §3.4.4's own crossover (512
 * bytes and up on 4x4x4, 256 and up on 8x8x4), its average from 512
 * bytes.  Below the crossover RD's single send per step wins, by less
 * than 10%. */
static void test_bcast_t3d(void **state)
{
	(void)state;
	bc_fill();
	const struct model_preset *t3d = model_preset_find("t3d");
	assert_non_null(t3d);
	for (int a = 0; a < BC_NMESH; a++) {
		double cross = bc_crossover(a, &t3d->cost);
		for (int s = 0; s < BC_NSIZE; s++) {
			const struct bc_cell *x = &bc_table[a][0][s];
			if ((double)bc_bytes(s) > cross)
				assert_true(x->edn.max < x->rd.max);
			else
				assert_true(x->edn.max < 1.10 * x->rd.max);
			if (bc_bytes(s) >= 512)
				assert_true(x->edn.avg < x->rd.avg);
		}
	}
}

/* 001 §3.4.5's trends: the advantage is larger on the larger mesh (30%
 * against 27%, 36% against 32%) and grows when the start-up is cut (27%
 * to 32%, 30% to 36%).  The first is checked on the mean advantage over
 * the seven sizes (001 gives one figure per curve), the second at every
 * size. */
static void test_bcast_trends(void **state)
{
	(void)state;
	bc_fill();
	double mean[BC_NMESH][BC_NPRESET] = {{0}};
	for (int a = 0; a < BC_NMESH; a++)
		for (int b = 0; b < BC_NPRESET; b++)
			for (int s = 0; s < BC_NSIZE; s++) {
				const struct bc_cell *x = &bc_table[a][b][s];
				mean[a][b] += fd_gain(x->edn.max, x->rd.max) /
				              BC_NSIZE;
			}
	for (int b = 0; b < BC_NPRESET; b++) {
		print_message("  %s: mean max advantage %.1f%% (4x4x4, "
		              "001: %.0f%%), %.1f%% (8x8x4, 001: %.0f%%)\n",
		              bc_preset[b], mean[0][b], bc_thesis[0][b],
		              mean[1][b], bc_thesis[1][b]);
		assert_true(mean[1][b] > mean[0][b]);
	}
	for (int a = 0; a < BC_NMESH; a++)
		for (int s = 0; s < BC_NSIZE; s++) {
			const struct bc_cell *slow = &bc_table[a][0][s];
			const struct bc_cell *fast = &bc_table[a][1][s];
			assert_true(fd_gain(fast->edn.max, fast->rd.max) >
			            fd_gain(slow->edn.max, slow->rd.max));
		}
}

/* 001 §3.4.5's percentages, "approximately 30 percent in the larger mesh
 * and 27 percent in the smaller" and "36 percent and 32 percent" with the
 * faster start-up, are the large-message end of Figure 3.25: with links
 * that carry one worm at a time (MODEL_LINKS_FIFO, 001 §4.2's network
 * without virtual channels) EDN's advantage in maximum latency at 2048
 * bytes is within 1.5 points of each.  Fair sharing (virtual channels)
 * misses them by up to 12 points (docs/findings.md). */
static void test_bcast_fifo_percentages(void **state)
{
	(void)state;
	bc_fill();
	for (int a = 0; a < BC_NMESH; a++)
		for (int b = 0; b < BC_NPRESET; b++) {
			const struct bc_cell *x = &bc_table[a][b][BC_NSIZE - 1];
			double g = fd_gain(x->edn.fmax, x->rd.fmax);
			print_message("  %dx%dx%d %s 2048 bytes, links fifo: "
			              "EDN ahead by %.1f%% (001: %.0f%%)\n",
			              bc_mesh[a][0], bc_mesh[a][1],
			              bc_mesh[a][2], bc_preset[b], g,
			              bc_thesis[a][b]);
			assert_true(fabs(g - bc_thesis[a][b]) < 1.5);
		}
}

/* Why the transpose finding is not reproduced (docs/findings.md), kept
 * true: the direct transpose runs at the pace of its busiest link (its
 * f = n - 1 messages back to back, plus the header's hops); the EDN
 * plan forwards every block once per level (k times on a 2^k x 2^k
 * mesh) in messages of up to 5 (8x8, 16x16) or 25 (32x32) blocks, runs
 * no faster than its own contention-free phase sum, and that sum alone
 * is above a third of the direct transpose on 32x32.  With every message
 * L bytes, the same pattern is below a third at 2048 bytes. */
static void test_transpose_why(void **state)
{
	(void)state;
	tr_fill();
	const struct model_preset *t3d = model_preset_find("t3d");
	assert_non_null(t3d);
	double hop = t3d->cost.hop;
	for (int a = 0; a < TR_NMESH; a++) {
		int n = tr_n(a), k = 3 + a;
		for (int s = 0; s < TR_NSIZE; s++) {
			const struct tr_cell *x = &tr_table[a][s];
			assert_int_equal(x->f, n - 1);
			assert_true(x->dmax >= x->dserial);
			assert_true(x->dmax <= x->dserial + 2 * (n - 1) * hop);
			assert_int_equal(x->eforward, k);
			assert_int_equal(x->eblocks, n == 32 ? 25 : 5);
			assert_true(x->emax >= x->emodel);
			if (n == 32)
				assert_true(x->emodel > x->dmax / 3);
		}
	}
	const struct tr_cell *big = &tr_table[TR_NMESH - 1][TR_NSIZE - 1];
	assert_true(big->lmax < big->dmax / 3);
}

/* ---- the findings as 001 states them (test_findings_pending) --------- */

/* 001 §3.4.5, Figure 3.25: "the EDN algorithm is preferred to a
 * recursive doubling approach" -- EDN's broadcast latency, maximum and
 * average, below RD's at every size from 32 to 2048 bytes, on 4x4x4 and
 * 8x8x4, with both start-ups, under either link model.  Every cell is
 * checked and each failing one printed before the test fails. */
static void test_thesis_bcast(void **state)
{
	(void)state;
	bc_fill();
	int bad = 0, cells = 0;
	for (int a = 0; a < BC_NMESH; a++)
		for (int b = 0; b < BC_NPRESET; b++)
			for (int s = 0; s < BC_NSIZE; s++) {
				const struct bc_cell *x = &bc_table[a][b][s];
				const char *what[4] = {"max", "average",
				                       "max (fifo)",
				                       "average (fifo)"};
				double e[4] = {x->edn.max, x->edn.avg,
				               x->edn.fmax, x->edn.favg};
				double r[4] = {x->rd.max, x->rd.avg,
				               x->rd.fmax, x->rd.favg};
				for (int w = 0; w < 4; w++, cells++) {
					if (e[w] < r[w])
						continue;
					bad++;
					print_message(
					        "  not reproduced: %dx%dx%d %s "
					        "%lld bytes: EDN %s %.2f us >= "
					        "RD %.2f us\n",
					        bc_mesh[a][0], bc_mesh[a][1],
					        bc_mesh[a][2], bc_preset[b],
					        (long long)bc_bytes(s), what[w],
					        e[w], r[w]);
				}
			}
	if (bad)
		fail_msg("EDN is not ahead of RD in %d of %d cells", bad,
		         cells);
}

/* 001 §3.6, Figure 3.29: "the maximum latency of the EDN algorithm is
 * less than one-third that of the direct approach in a 32x32 mesh, and
 * the average transpose latency of the EDN algorithm is approximately
 * one-half" (taken as at most 0.6); and "the advantage of the EDN
 * transpose algorithm is clear" on 8x8 and 16x16 (EDN below direct,
 * maximum and average), under either link model.  Every cell is checked
 * and each failing one printed before the test fails. */
static void test_thesis_transpose(void **state)
{
	(void)state;
	tr_fill();
	int bad = 0, cells = 0;
	for (int a = 0; a < TR_NMESH; a++)
		for (int s = 0; s < TR_NSIZE; s++) {
			const struct tr_cell *x = &tr_table[a][s];
			bool big = tr_n(a) == 32;
			double lim[2] = {big ? 1.0 / 3 : 1, big ? 0.6 : 1};
			double ratio[4] = {x->emax / x->dmax,
			                   x->eavg / x->davg,
			                   x->femax / x->fdmax,
			                   x->feavg / x->fdavg};
			const char *what[4] = {"max", "average", "max (fifo)",
			                       "average (fifo)"};
			for (int w = 0; w < 4; w++, cells++) {
				if (ratio[w] < lim[w % 2])
					continue;
				bad++;
				print_message("  not reproduced: %dx%d %lld "
				              "bytes: EDN/direct %s %.2f, 001 "
				              "< %.2f\n",
				              tr_n(a), tr_n(a),
				              (long long)tr_bytes(s), what[w],
				              ratio[w], lim[w % 2]);
			}
		}
	if (bad)
		fail_msg("the EDN transpose misses 001's ratio in %d of %d "
		         "cells",
		         bad, cells);
}

int main(void)
{
	const struct CMUnitTest reproduced[] = {
	        cmocka_unit_test(test_bcast_fast),
	        cmocka_unit_test(test_bcast_t3d),
	        cmocka_unit_test(test_bcast_trends),
	        cmocka_unit_test(test_bcast_fifo_percentages),
	        cmocka_unit_test(test_transpose_why),
	};
	const struct CMUnitTest as_stated[] = {
	        cmocka_unit_test(test_thesis_bcast),
	        cmocka_unit_test(test_thesis_transpose),
	};
	if (CCP_FINDINGS_PENDING)
		return cmocka_run_group_tests(as_stated, NULL, NULL);
	return cmocka_run_group_tests(reproduced, NULL, NULL);
}
