/*
 * test_hpam.c - the HPAM broadcast, scatter and gather generators of 000
 * (hpam_hybrid, hpam_multicast) and their sub-mesh partition search.
 *
 * Every plan must pass the verifier with no contention allowed, on many
 * two-level shapes and every level-1 root.  The paper's findings are
 * reproduced from the search over model/'s closed forms of 000 eqs. 3-14
 * (model_hpam_closed, 000 Table 1 costs): the optimal partitions, the
 * multicast gains, and the phase structure the equations assume.  Sizes
 * are written rows x columns, as the paper.
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

#include "hpam.h"
#include "ir.h"
#include "model.h"
#include "sched.h"
#include "support.h"

/* The prices the compiler gives HPAM's partition search: 000's closed
 * forms (model_hpam_price). */
static const struct sch_options prices = {.hpam_price = model_hpam_price};

/* ---- helpers -------------------------------------------------------- */

/* A one-port HPAM machine, r1 x c1 over r2 x c2, with Table 1 costs for
 * ratio q (q = 0: every cost unset, so the generator's default). */
static ir_machine hpam(int r1, int c1, int r2, int c2, double q)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = IR_HPAM;
	m.routing = IR_ROUTE_HPAM_XY;
	m.levels[0][0] = r1;
	m.levels[0][1] = c1;
	m.levels[1][0] = r2;
	m.levels[1][1] = c2;
	m.ports = 1;
	ir_cost *k = &m.cost;
	k->alpha = k->beta = k->hop = k->gamma = NAN;
	k->beta_sat = k->tau = k->phi = NAN;
	k->lambda = q ? 0.01 : NAN;
	for (int l = 0; l < 2; l++) {
		double f = l ? q : 1;
		k->c_send[l] = k->c_recv[l] = q ? 2 * f : NAN; /* 000 Table 1 */
		k->copy[l] = q ? 0.01 * f : NAN;
	}
	char err[256];
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	return m;
}

/* model/'s closed-form time of partition p2 x q2, NAN where 000 writes no
 * equation for it; any other failure fails the test. */
static double closed(const ir_machine *m, const ir_comm *c, bool mc, int p2,
                     int q2)
{
	double us;
	char err[256];
	int rc = model_hpam_closed(m, c, mc, p2, q2, &us, err, sizeof err);
	if (rc == CCP_ENOTAPPLY)
		return NAN;
	if (rc)
		fail_msg("model_hpam_closed %dx%d: %s", p2, q2, err);
	return us;
}

/* Generate with g and verify with no contention; the caller releases
 * the plan and report. */
static void make(const struct sch_generator *g, const ir_machine *m,
                 const ir_comm *c, ir_plan *p, ir_report *r)
{
	char why[256] = "";
	struct sch_options o = {.forbid_contention = true,
	                        .hpam_price = model_hpam_price};
	int rc = sch_applies(g, m, c, why, sizeof why);
	if (rc)
		fail_msg("%s does not apply: %s", g->name, why);
	assert_int_equal(g->generate(m, c, &o, p), 0);
	assert_int_equal(p->flags, 0);
	rc = ir_verify(p, r);
	if (rc)
		fail_msg("%s %s r1c1=%dx%d r2c2=%dx%d root %d: %s", g->name,
		         ir_coll_name(c->coll), m->levels[0][0],
		         m->levels[0][1], m->levels[1][0], m->levels[1][1],
		         (int)c->root, r->message);
	assert_true(r->ok);
	assert_true(r->max_link_load <= 1);
	assert_true(r->max_node_sends <= 1);
	assert_true(r->max_node_recvs <= 1);
	assert_int_equal(r->duplicates, 0);
}

/* ---- applies -------------------------------------------------------- */

static void test_applies(void **state)
{
	(void)state;
	char why[256];
	ir_machine mesh;
	memset(&mesh, 0, sizeof mesh);
	mesh.topo = IR_MESH;
	mesh.ndims = 2;
	mesh.dims[0] = mesh.dims[1] = 4;
	mesh.dims[2] = 1;
	mesh.routing = IR_ROUTE_DIM_ORDER;
	mesh.ports = 1;
	assert_int_equal(ir_machine_check(&mesh, why, sizeof why), 0);
	ir_comm b = tu_comm(IR_BCAST, 0, 64);
	assert_int_equal(sch_applies(&sch_hpam_multicast, &mesh, &b, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_string_equal(why, "hpam_multicast needs a two-level HPAM "
	                         "machine; this machine is a 4x4 mesh with "
	                         "1-port nodes");
	assert_int_equal(sch_applies(&sch_hpam_hybrid, &mesh, &b, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_string_equal(why, "hpam_hybrid needs a two-level HPAM "
	                         "machine; this machine is a 4x4 mesh with "
	                         "1-port nodes");

	ir_machine m = hpam(2, 2, 4, 4, 0);
	ir_comm red = tu_comm(IR_REDUCE, 0, 64);
	assert_int_equal(sch_applies(&sch_hpam_hybrid, &m, &red, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_string_equal(why, "hpam_hybrid is a broadcast, scatter or "
	                         "gather; this is a reduce");
	ir_comm deep = tu_comm(IR_SCATTER, 5, 64);
	assert_int_equal(sch_applies(&sch_hpam_hybrid, &m, &deep, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_string_equal(why, "hpam_hybrid needs the root in level 1 "
	                         "(ranks 0..3); root 5 is in level 2");
	ir_comm g = tu_comm(IR_GATHER, 0, 64);
	assert_int_equal(sch_applies(&sch_hpam_hybrid, &m, &g, why, sizeof why), 0);
	assert_int_equal(sch_applies(&sch_hpam_multicast, &m, &g, why, sizeof why),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(why, "combines messages"));
	ir_plan p;
	assert_int_equal(sch_hpam_multicast.generate(&m, &g, NULL, &p),
	                 CCP_ENOTAPPLY);
	ir_plan_fini(&p);
	/* the search finds no partition where the model has no equation */
	int p2, q2;
	double t;
	assert_int_equal(
	        sch_hpam_partition(&mesh, &b, false, &prices, &p2, &q2, &t),
	        CCP_ENOTAPPLY);
	assert_int_equal(
	        sch_hpam_partition(&m, &red, true, &prices, &p2, &q2, &t),
	        CCP_ENOTAPPLY);
	assert_int_equal(
	        sch_hpam_partition(&m, &deep, false, &prices, &p2, &q2, &t),
	        CCP_ENOTAPPLY);
	assert_true(isinf(t));
}

/* ---- costs ---------------------------------------------------------- */

/* Every HPAM cost the machine leaves unset comes from preset hpam-q2 (000
 * Table 1, Q = 2), a field it sets wins, and a negative one is refused by
 * the model, so by the search and the generators. */
static void test_default_costs(void **state)
{
	(void)state;
	const int shp[][4] = {{1, 1, 16, 16}, {4, 4, 16, 16}, {2, 4, 8, 32}};
	const enum ir_coll colls[] = {IR_BCAST, IR_SCATTER, IR_GATHER};
	for (int s = 0; s < 3; s++)
		for (int k = 0; k < 3; k++)
			for (int mc = 0; mc < 2; mc++) {
				const int *d = shp[s];
				ir_machine unset =
				        hpam(d[0], d[1], d[2], d[3], 0);
				ir_machine pre =
				        hpam(d[0], d[1], d[2], d[3], 0);
				assert_int_equal(model_preset_apply(&pre.cost,
				                                    "hpam-q2"),
				                 0);
				ir_comm c = tu_comm(colls[k], 0, 256);
				int p2, q2, pp, qq;
				double t, tt;
				assert_int_equal(sch_hpam_partition(
				                         &unset, &c, mc,
				                         &prices, &p2, &q2, &t),
				                 0);
				assert_int_equal(sch_hpam_partition(
				                         &pre, &c, mc, &prices,
				                         &pp, &qq, &tt),
				                 0);
				assert_int_equal(p2, pp);
				assert_int_equal(q2, qq);
				assert_true(t == tt);
			}
	/* the machine's own field wins over the preset */
	ir_machine own = hpam(1, 1, 16, 16, 0), q32 = hpam(1, 1, 16, 16, 32);
	own.cost.c_recv[1] = q32.cost.c_recv[1];
	ir_machine want = hpam(1, 1, 16, 16, 2);
	want.cost.c_recv[1] = q32.cost.c_recv[1];
	ir_comm c = tu_comm(IR_SCATTER, 0, 64);
	int p2, q2, pp, qq;
	double t, tt;
	assert_int_equal(
	        sch_hpam_partition(&own, &c, false, &prices, &p2, &q2, &t), 0);
	assert_int_equal(
	        sch_hpam_partition(&want, &c, false, &prices, &pp, &qq, &tt),
	        0);
	assert_true(t == tt && p2 == pp && q2 == qq);
	own.cost.lambda = -0.01;
	assert_int_equal(
	        sch_hpam_partition(&own, &c, false, &prices, &p2, &q2, &t),
	        CCP_EINVAL);
	ir_plan p;
	assert_int_equal(sch_hpam_hybrid.generate(&own, &c, &prices, &p),
	                 CCP_EINVAL);
	ir_plan_fini(&p);
}

/* ---- prices from the caller ---------------------------------------- */

/* The model's price, except that the partition ctx names costs nothing:
 * a caller's own prices. */
static int favour(void *ctx, const ir_machine *m, const ir_comm *c,
                  bool multicast, int p2, int q2, double *us)
{
	const int *want = ctx;
	int rc = model_hpam_price(NULL, m, c, multicast, p2, q2, us);
	if (rc == 0 && p2 == want[0] && q2 == want[1])
		*us = 0;
	return rc;
}

/* The partition search has no prices of its own (schedules/ does not
 * link the model): without the caller's it refuses, and with another
 * caller's it follows them. */
static void test_caller_prices(void **state)
{
	(void)state;
	ir_machine m = hpam(1, 1, 16, 16, 2);
	ir_comm c = tu_comm(IR_SCATTER, 0, 256);
	int p2, q2, fp2, fq2;
	double t;
	ir_plan p;
	assert_int_equal(sch_hpam_partition(&m, &c, false, NULL, &p2, &q2, &t),
	                 CCP_EINVAL);
	struct sch_options none = {.forbid_contention = true};
	assert_int_equal(sch_hpam_hybrid.generate(&m, &c, &none, &p),
	                 CCP_EINVAL);
	ir_plan_fini(&p);
	assert_int_equal(sch_hpam_hybrid.generate(&m, &c, NULL, &p),
	                 CCP_EINVAL);
	ir_plan_fini(&p);
	/* the model's choice, then a caller that prefers 1 x 1 */
	assert_int_equal(
	        sch_hpam_partition(&m, &c, false, &prices, &p2, &q2, &t), 0);
	assert_false(p2 == 1 && q2 == 1);
	int want[2] = {1, 1};
	struct sch_options own = {.hpam_price = favour, .hpam_ctx = want};
	assert_int_equal(
	        sch_hpam_partition(&m, &c, false, &own, &fp2, &fq2, &t), 0);
	assert_int_equal(fp2, 1);
	assert_int_equal(fq2, 1);
	assert_true(t == 0);
	/* and the plan is built for that partition, and verifies */
	ir_plan mine;
	ir_report r;
	assert_int_equal(sch_hpam_hybrid.generate(&m, &c, &own, &mine), 0);
	assert_int_equal(sch_hpam_hybrid.generate(&m, &c, &prices, &p), 0);
	assert_int_equal(ir_verify(&mine, &r), 0);
	ir_report_fini(&r);
	assert_true(mine.nphases != p.nphases ||
	            mine.ntransfers != p.ntransfers);
	ir_plan_fini(&mine);
	ir_plan_fini(&p);
}

/* ---- every plan verifies ------------------------------------------ */

static const int shapes[][4] = {
        {1, 1, 4, 4},   {1, 1, 8, 8}, {1, 1, 16, 16}, {1, 1, 6, 4},
        {1, 1, 3, 8},   {1, 1, 1, 8}, {1, 1, 8, 1},   {2, 2, 4, 8},
        {4, 4, 16, 16}, {2, 1, 4, 4}, {1, 2, 4, 4},   {4, 4, 4, 4},
        {2, 4, 8, 8},   {3, 2, 5, 8}, {1, 4, 2, 16},  {4, 2, 8, 32},
};

static void test_verify_all(void **state)
{
	(void)state;
	const enum ir_coll colls[] = {IR_BCAST, IR_SCATTER, IR_GATHER};
	const double qs[] = {0, 2, 32};
	unsigned plans = 0;
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
		for (size_t qi = 0; qi < 3; qi++) {
			const int *d = shapes[s];
			ir_machine m = hpam(d[0], d[1], d[2], d[3], qs[qi]);
			for (int32_t root = 0; root < d[0] * d[1]; root++)
				for (int k = 0; k < 3; k++)
					for (int mc = 0; mc < 2; mc++) {
						if (mc && colls[k] == IR_GATHER)
							continue;
						ir_comm c = tu_comm(colls[k], root,
						                 qi == 2 ? 4096
						                         : 8);
						ir_plan p;
						ir_report r;
						make(mc ? &sch_hpam_multicast
						        : &sch_hpam_hybrid,
						     &m, &c, &p, &r);
						ir_report_fini(&r);
						ir_plan_fini(&p);
						plans++;
					}
		}
	printf("hpam: %u plans verified\n", plans);
}

/* Segmented broadcasts and lowering. */
static void test_segments_lower(void **state)
{
	(void)state;
	ir_machine m = hpam(2, 2, 8, 8, 8);
	for (int mc = 0; mc < 2; mc++)
		for (int k = 0; k < 2; k++) {
			ir_comm c = tu_comm(k ? IR_SCATTER : IR_BCAST, 3, 100);
			c.segments = k ? 1 : 3;
			ir_plan p;
			ir_report r;
			make(mc ? &sch_hpam_multicast : &sch_hpam_hybrid, &m,
			     &c, &p, &r);
			ir_slice *sl = NULL;
			assert_int_equal(ir_lower(&p, &sl), 0);
			ir_slices_free(sl, m.nranks);
			ir_report_fini(&r);
			ir_plan_fini(&p);
		}
}

/* ---- the paper's findings ----------------------------------------- */

static const int64_t sizes[] = {0, 16, 256, 4096, 65536, 1 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])
static const double qvals[] = {2, 8, 32};

/* 000 sec. 3.1: with one level-1 processor the best hybrid partition is
 * two full-height halves, r2 x c2/2 (the paper's 4x2 for 4x4), and the
 * best multicast one r2/2 x 1, for every Q and message size; brute force
 * (1x1) is the worst hybrid. */
static void test_bcast_partition(void **state)
{
	(void)state;
	const int sides[] = {4, 8, 16, 64, 256};
	for (size_t a = 0; a < 5; a++)
		for (size_t qi = 0; qi < 3; qi++)
			for (size_t si = 0; si < NSIZES; si++) {
				int n = sides[a];
				ir_machine m = hpam(1, 1, n, n, qvals[qi]);
				ir_comm c = tu_comm(IR_BCAST, 0, sizes[si]);
				int p2, q2;
				double th, tm;
				assert_int_equal(sch_hpam_partition(
				                         &m, &c, false, &prices,
				                         &p2, &q2, &th),
				                 0);
				assert_int_equal(p2, n);
				assert_int_equal(q2, n / 2);
				assert_int_equal(sch_hpam_partition(
				                         &m, &c, true, &prices,
				                         &p2, &q2, &tm),
				                 0);
				assert_int_equal(p2, n / 2);
				assert_int_equal(q2, 1);
				double brute = closed(&m, &c, false, 1, 1);
				for (int p = 1; p <= n; p *= 2)
					for (int q = 1; q <= n; q *= 2)
						assert_true(closed(&m, &c,
						                   false, p,
						                   q) <= brute);
				/* the row-wise cut is worse than the column one
				 */
				assert_true(closed(&m, &c, false, n / 2, n) >
				            th);
				/* the search reports the model's time */
				assert_true(closed(&m, &c, false, n, n / 2) ==
				            th);
				assert_true(closed(&m, &c, true, n / 2, 1) ==
				            tm);
			}
}

/* 000 sec. 3.1: multicast gain 100 (hybrid - multicast) / hybrid above
 * 43% for a 4x4 second level and above 46% for 16x16 .. 256x256. */
static void test_bcast_gain(void **state)
{
	(void)state;
	const int sides[] = {4, 8, 16, 64, 256};
	for (size_t a = 0; a < 5; a++) {
		double lo = 100, hi = 0;
		for (size_t qi = 0; qi < 3; qi++)
			for (size_t si = 0; si < NSIZES; si++) {
				int n = sides[a], p2, q2;
				ir_machine m = hpam(1, 1, n, n, qvals[qi]);
				ir_comm c = tu_comm(IR_BCAST, 0, sizes[si]);
				double th, tm;
				sch_hpam_partition(&m, &c, false, &prices, &p2,
				                   &q2, &th);
				sch_hpam_partition(&m, &c, true, &prices, &p2,
				                   &q2, &tm);
				double g = 100 * (th - tm) / th;
				lo = g < lo ? g : lo;
				hi = g > hi ? g : hi;
			}
		printf("hpam: broadcast gain %dx%d: %.1f%% .. %.1f%%\n",
		       sides[a], sides[a], lo, hi);
		assert_true(lo > (sides[a] < 16 ? 43 : 46));
	}
}

/* The plans have the phase structure the equations assume: hybrid, one
 * level-1 node: (r2/p2)(c2/q2) single inter-level sends then
 * lg p2 + lg q2 tree steps (000 eq. 5); multicast: r2/p2 replicated sends
 * then lg p2 steps (000 eq. 6); eq. 7: 1 + 1 + max of the two trees. */
static void test_phase_structure(void **state)
{
	(void)state;
	const int sides[] = {4, 8, 16};
	for (size_t a = 0; a < 3; a++)
		for (int mc = 0; mc < 2; mc++) {
			int n = sides[a], p2, q2, l = 0;
			while ((1 << l) < n)
				l++;
			ir_machine m = hpam(1, 1, n, n, 8);
			ir_comm c = tu_comm(IR_BCAST, 0, 1024);
			double t;
			sch_hpam_partition(&m, &c, mc, &prices, &p2, &q2, &t);
			ir_plan p;
			ir_report r;
			make(mc ? &sch_hpam_multicast : &sch_hpam_hybrid, &m,
			     &c, &p, &r);
			uint32_t inter = mc ? (uint32_t)(n / p2)
			                    : (uint32_t)((n / p2) * (n / q2));
			uint32_t steps =
			        mc ? (uint32_t)(l - 1) : (uint32_t)(2 * l - 1);
			assert_int_equal(p.nphases, inter + steps);
			for (uint32_t ph = 0; ph < inter; ph++) {
				const ir_phase *f = &p.phases[ph];
				assert_int_equal(f->ntransfers,
				                 mc ? (uint32_t)n : 1);
				for (uint32_t k = 0; k < f->ntransfers; k++) {
					const ir_transfer *x =
					        &p.transfers[f->transfer + k];
					assert_int_equal(x->src, 0);
					assert_int_equal(x->flags,
					                 mc ? IR_XF_MCAST : 0);
				}
			}
			for (uint32_t ph = inter; ph < p.nphases; ph++) {
				const ir_phase *f = &p.phases[ph];
				for (uint32_t k = 0; k < f->ntransfers; k++)
					assert_true(p.transfers[f->transfer + k]
					                    .src >= 1);
			}
			ir_report_fini(&r);
			ir_plan_fini(&p);
		}
	/* 000 eq. 7 on 4x4 over 16x16: 1 + 1 + (lg 16 + lg 16 - 1) */
	ir_machine m = hpam(4, 4, 16, 16, 8);
	ir_comm c = tu_comm(IR_BCAST, 0, 1024);
	ir_plan p;
	ir_report r;
	make(&sch_hpam_hybrid, &m, &c, &p, &r);
	assert_int_equal(p.nphases, 2 + 7);
	assert_int_equal(p.phases[1].ntransfers, 2);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* 000 sec. 3.2: several level-1 processors (4x4 over 16x16 and 64x64);
 * the paper reports multicast gains above 31%, 41%, 45% for Q = 2, 8, 32
 * and 38% to 46% on 64x64.  Printed, and asserted to be positive and to
 * grow with Q. */
static void test_bcast_multi(void **state)
{
	(void)state;
	const int sides[] = {16, 64};
	for (size_t a = 0; a < 2; a++) {
		double prev = -1;
		for (size_t qi = 0; qi < 3; qi++) {
			ir_machine m =
			        hpam(4, 4, sides[a], sides[a], qvals[qi]);
			ir_comm c = tu_comm(IR_BCAST, 0, 1024);
			int p2, q2, mp2, mq2;
			double th, tm;
			sch_hpam_partition(&m, &c, false, &prices, &p2, &q2,
			                   &th);
			sch_hpam_partition(&m, &c, true, &prices, &mp2, &mq2,
			                   &tm);
			double g = 100 * (th - tm) / th;
			printf("hpam: 4x4/%dx%d Q=%g hybrid %dx%d %.1f us, "
			       "multicast %dx%d %.1f us, gain %.1f%%\n",
			       sides[a], sides[a], qvals[qi], p2, q2, th, mp2,
			       mq2, tm, g);
			assert_int_equal(mp2, sides[a] / 2);
			assert_true(g > prev);
			prev = g;
		}
	}
}

/* 000 sec. 4: the scatter partition depends on the message size: large
 * sub-meshes for small blocks, small ones for large blocks; the hybrid
 * optimum satisfies q2 <= f; multicast gains shrink as blocks grow. */
static void test_scatter_partition(void **state)
{
	(void)state;
	const int sides[] = {4, 16, 64};
	for (size_t a = 0; a < 3; a++)
		for (size_t qi = 0; qi < 3; qi++) {
			int n = sides[a];
			ir_machine m = hpam(1, 1, n, n, qvals[qi]);
			int small = 0, large = 0;
			double gprev = 101;
			for (size_t si = 0; si < NSIZES; si++) {
				ir_comm c = tu_comm(IR_SCATTER, 0, sizes[si]);
				int p2, q2, mp2, mq2;
				double th, tm;
				sch_hpam_partition(&m, &c, false, &prices, &p2,
				                   &q2, &th);
				sch_hpam_partition(&m, &c, true, &prices, &mp2,
				                   &mq2, &tm);
				double g = 100 * (th - tm) / th;
				printf("hpam: scatter %dx%d Q=%g S=%lld hybrid "
				       "%dx%d multicast %dx%d gain %.1f%%\n",
				       n, n, qvals[qi], (long long)sizes[si],
				       p2, q2, mp2, mq2, g);
				if (si == 0)
					small = p2 * q2;
				large = p2 * q2;
				if (si > 0)
					assert_true(g <= gprev + 1e-9);
				gprev = g;
			}
			assert_true(large <= small);
		}
}

/* Large machines, and the multicast flag is what makes the replicated
 * sends legal: without it the same plan breaks the one-port rule. */
static void test_large_and_flag(void **state)
{
	(void)state;
	const int shp[][4] = {{1, 1, 64, 64}, {4, 4, 64, 64}, {2, 8, 32, 128}};
	for (int s = 0; s < 3; s++)
		for (int k = 0; k < 3; k++)
			for (int mc = 0; mc < 2; mc++) {
				if (mc && k == 2)
					continue;
				ir_machine m = hpam(shp[s][0], shp[s][1],
				                    shp[s][2], shp[s][3], 8);
				ir_comm c =
				        tu_comm(k == 0   ? IR_BCAST
				             : k == 1 ? IR_SCATTER
				                      : IR_GATHER,
				             1 % (shp[s][0] * shp[s][1]), 512);
				ir_plan p;
				ir_report r;
				make(mc ? &sch_hpam_multicast
				        : &sch_hpam_hybrid,
				     &m, &c, &p, &r);
				ir_report_fini(&r);
				if (mc) {
					for (uint32_t t = 0; t < p.ntransfers;
					     t++)
						p.transfers[t].flags = 0;
					assert_int_equal(ir_verify(&p, &r),
					                 CCP_EVERIFY);
					assert_non_null(
					        strstr(r.message, "node"));
					ir_report_fini(&r);
				}
				ir_plan_fini(&p);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_applies),
	        cmocka_unit_test(test_default_costs),
	        cmocka_unit_test(test_caller_prices),
	        cmocka_unit_test(test_verify_all),
	        cmocka_unit_test(test_segments_lower),
	        cmocka_unit_test(test_bcast_partition),
	        cmocka_unit_test(test_bcast_gain),
	        cmocka_unit_test(test_phase_structure),
	        cmocka_unit_test(test_bcast_multi),
	        cmocka_unit_test(test_scatter_partition),
	        cmocka_unit_test(test_large_and_flag),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
