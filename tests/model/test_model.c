/*
 * test_model.c - the closed-form cost models and the presets
 * (model/cost.c).
 *
 * Presets: every one names its source, the values are the papers'
 * (spot-checked here against 001 Table 5.1, 001 §3.3.5, 002, 003 §5 and
 * 000 Table 1), and the user's own fields win over a preset's.
 *
 * Models, on hand-built plans whose times are worked out by hand: the
 * unicast model's serialised start-ups (001 §4.4.2), 003's contention
 * term with f measured on the plan, 004's per-phase tau + M*phi, and
 * 000's eq. 3 per level.  000's closed forms (model_hpam_closed) against
 * values worked out by hand from eqs. 5 and 6, and the partitions they
 * refuse.  On the HPAM generators' plans, the per-phase evaluation of
 * eq. 3 must reproduce the closed forms of 000 eqs. 5-14 for the
 * partition the generators chose.
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
#include "model.h"
#include "sched.h"
#include "support.h"

/* The prices the compiler gives HPAM's partition search: 000's closed
 * forms (model_hpam_price). */
static const struct sch_options prices = {.hpam_price = model_hpam_price};

#define EXACT(a, b)                                                            \
	assert_true(fabs((double)(a) - (double)(b)) <                          \
	            1e-9 * (1 + fabs((double)(b))))

static double predict(const ir_plan *p, const ir_report *r, enum model_kind k)
{
	double us = -1;
	char err[256] = "";
	int rc = model_predict(p, r, k, &us, NULL, err, sizeof err);
	if (rc)
		fail_msg("model_predict %s: %s", model_kind_name(k), err);
	return us;
}

/* ---- presets --------------------------------------------------------- */

static void test_preset_table(void **state)
{
	(void)state;
	size_t n;
	const struct model_preset *ps = model_preset_list(&n);
	assert_true(n >= 30);
	for (size_t i = 0; i < n; i++) {
		assert_true(strlen(ps[i].name) > 0 &&
		            strlen(ps[i].name) < IR_NAME_MAX);
		/* the papers' machines cite the paper; today's machines
		 * their papers and data sheets (docs/cost-models.md) */
		bool today = !strcmp(ps[i].name, "tofu-d") ||
		             !strcmp(ps[i].name, "ib-ndr") ||
		             !strcmp(ps[i].name, "slingshot");
		assert_non_null(strstr(ps[i].source, today ? "; " : "00"));
		assert_true(strlen(ps[i].machine) > 0);
		assert_true(strlen(ps[i].note) > 0);
		assert_ptr_equal(model_preset_find(ps[i].name), &ps[i]);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(ps[i].name, ps[j].name);
	}
	assert_null(model_preset_find("no-such-machine"));
	assert_null(model_preset_find(NULL));

	/* 001 §3.3.5 / §3.4.5: 0.0033 us/byte per hop, 0.75 + 0.75 us */
	const ir_cost *t3d = &model_preset_find("t3d")->cost;
	EXACT(t3d->alpha, 0.75);
	EXACT(t3d->gamma, 0.75);
	EXACT(t3d->beta, 0.0033);
	EXACT(t3d->hop, 0.0033);
	assert_true(isnan(t3d->beta_sat) && isnan(t3d->tau));
	/* 001 Table 5.1: Paragon SUNMOS 1.6.2, T_s 25.0, T_n 0.00585 */
	const ir_cost *pg = &model_preset_find("paragon-sunmos")->cost;
	EXACT(pg->alpha, 25.0);
	EXACT(pg->beta, 0.00585);
	assert_true(isnan(pg->hop) && isnan(pg->gamma));
	/* 002: T3E T_s = 1 us, T_f = 0.0029 us */
	const ir_cost *t3e = &model_preset_find("t3e")->cost;
	EXACT(t3e->alpha, 1.0);
	EXACT(t3e->hop, 0.0029);
	/* 003 §5: Delta forced alpha 150, beta_ex 0.2, 2 beta_sat = beta_ex */
	const ir_cost *df = &model_preset_find("delta-forced")->cost;
	EXACT(df->alpha, 150.0);
	EXACT(df->beta, 0.2);
	EXACT(df->beta_sat, 0.1);
	EXACT(model_preset_find("delta-unforced")->cost.alpha, 75.0);
	/* 000 Table 1 with Q = 8 */
	const ir_cost *hq = &model_preset_find("hpam-q8")->cost;
	EXACT(hq->c_send[0], 2.0);
	EXACT(hq->c_recv[1], 16.0);
	EXACT(hq->copy[1], 0.08);
	EXACT(hq->lambda, 0.01);
	assert_true(isnan(hq->alpha));
	/* the iPSC/860 carries 004's tau and phi */
	const ir_cost *ip = &model_preset_find("ipsc860")->cost;
	EXACT(ip->tau, 65.0);
	EXACT(ip->phi, 0.333);
}

static void test_preset_apply(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 0, 4, 4, 0, 0);
	m.cost.alpha = 2.0; /* the user's own value wins */
	assert_int_equal(model_preset_apply(&m.cost, "t3d"), 0);
	EXACT(m.cost.alpha, 2.0);
	EXACT(m.cost.gamma, 0.75);
	EXACT(m.cost.beta, 0.0033);
	assert_true(isnan(m.cost.tau));
	assert_string_equal(m.cost.preset, "t3d");

	/* the name recorded in the cost is used when none is given */
	ir_machine k = tu_machine(IR_MESH, 0, 4, 4, 0, 0);
	strcpy(k.cost.preset, "delta-unforced");
	assert_int_equal(model_preset_apply(&k.cost, NULL), 0);
	EXACT(k.cost.beta, 0.35);
	EXACT(k.cost.beta_sat, 0.175);

	ir_machine z = tu_machine(IR_MESH, 0, 4, 4, 0, 0);
	assert_int_equal(model_preset_apply(&z.cost, NULL), CCP_EINVAL);
	assert_int_equal(model_preset_apply(&z.cost, "cray-9"), CCP_ENOTFOUND);
	assert_true(isnan(z.cost.alpha));

	/* 000 Table 1 for any Q */
	z.cost.c_send[1] = 1.0;
	assert_int_equal(model_hpam_table1(4.0, &z.cost), 0);
	EXACT(z.cost.c_send[1], 1.0);
	EXACT(z.cost.c_recv[1], 8.0);
	EXACT(z.cost.copy[1], 0.04);
	assert_int_equal(model_hpam_table1(0, &z.cost), CCP_EINVAL);
	assert_int_equal(model_hpam_table1(NAN, &z.cost), CCP_EINVAL);
}

static void test_kind_names(void **state)
{
	(void)state;
	for (int k = 0; k < MODEL_NKINDS; k++) {
		enum model_kind got;
		assert_int_equal(
		        model_kind_find(model_kind_name((enum model_kind)k),
		                        &got),
		        0);
		assert_int_equal(got, k);
	}
	enum model_kind got;
	assert_int_equal(model_kind_find("logp", &got), CCP_ENOTFOUND);
}

/* ---- models on hand-built plans -------------------------------------- */

/* On a 4x4 mesh: phase 0, rank 5 (1,1) sends to 1 (1 hop), 4 (1 hop)
 * and 15 (4 hops), and rank 0 to 3 (3 hops); phase 1, rank 15 sends to
 * 12 (3 hops).  1000 bytes each. */
static void hand_plan(ir_plan *p, const ir_machine *m)
{
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 1000);
	ir_plan_init(p, m, &c, "hand");
	assert_int_equal(ir_plan_phase(p), 0);
	tu_add_own(p, 5, 1);
	tu_add_own(p, 5, 4);
	tu_add_own(p, 5, 15);
	tu_add_own(p, 0, 3);
	assert_int_equal(ir_plan_phase(p), 0);
	tu_add_own(p, 15, 12);
}

/* 001 §4.4.2: the k-th send of a rank arrives at k*alpha + h*hop +
 * L*beta + gamma; phases add. */
static void test_unicast(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 0, 4, 4, 0, 0);
	m.cost.alpha = 1.0;
	m.cost.hop = 0.1;
	m.cost.beta = 0.01;
	m.cost.gamma = 0.5;
	ir_plan p;
	hand_plan(&p, &m);
	/* phase 0: rank 5's third send, 4 hops: 3 + 0.4 + 10 + 0.5 */
	double ph[2];
	double us;
	char err[256];
	assert_int_equal(model_predict(&p, NULL, MODEL_UNICAST, &us, ph, err,
	                               sizeof err),
	                 0);
	EXACT(ph[0], 13.9);
	EXACT(ph[1], 1.0 + 0.3 + 10.0 + 0.5);
	EXACT(us, ph[0] + ph[1]);
	/* every field it reads must be set */
	const char *fields[] = {"alpha", "beta", "hop", "gamma"};
	double *vals[] = {&p.machine.cost.alpha, &p.machine.cost.beta,
	                  &p.machine.cost.hop, &p.machine.cost.gamma};
	for (int i = 0; i < 4; i++) {
		double keep = *vals[i];
		*vals[i] = NAN;
		assert_int_equal(model_predict(&p, NULL, MODEL_UNICAST, &us,
		                               NULL, err, sizeof err),
		                 CCP_EINVAL);
		assert_non_null(strstr(err, fields[i]));
		assert_non_null(strstr(err, "unset"));
		*vals[i] = keep;
	}
	p.machine.cost.beta = -0.01;
	assert_int_equal(model_predict(&p, NULL, MODEL_UNICAST, &us, NULL, err,
	                               sizeof err),
	                 CCP_EINVAL);
	/* every unset field in one message, not one a run */
	p.machine.cost.beta = 0.01;
	p.machine.cost.hop = p.machine.cost.gamma = NAN;
	assert_int_equal(model_predict(&p, NULL, MODEL_UNICAST, &us, NULL, err,
	                               sizeof err),
	                 CCP_EINVAL);
	assert_non_null(strstr(err, "needs hop ("));
	assert_non_null(strstr(err, ") and gamma ("));
	assert_non_null(strstr(err, "which are unset"));
	ir_plan_fini(&p);
}

/* On a switch every route is one hop: an unset hop reads as 0 (part of
 * alpha), for the model and the simulator alike; gamma is still needed. */
static void test_switch_hop_default(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_SWITCH, 1, 4, 0, 0, 0);
	m.cost.alpha = 2.0;
	m.cost.beta = 0.001;
	m.cost.gamma = 0.5;
	ir_comm c = tu_comm(IR_BCAST, 0, 1000);
	struct sch_options o = {0};
	ir_plan p;
	assert_int_equal(sch_find("binomial")->generate(&m, &c, &o, &p), 0);
	double us, with_zero;
	char err[512];
	assert_int_equal(model_predict(&p, NULL, MODEL_UNICAST, &us, NULL, err,
	                               sizeof err),
	                 0);
	p.machine.cost.hop = 0;
	assert_int_equal(model_predict(&p, NULL, MODEL_UNICAST, &with_zero,
	                               NULL, err, sizeof err),
	                 0);
	EXACT(us, with_zero);
	p.machine.cost.hop = NAN;
	struct model_sim s;
	assert_int_equal(model_simulate(&p, NULL, &s, err, sizeof err), 0);
	model_sim_fini(&s);
	p.machine.cost.gamma = NAN;
	assert_int_equal(model_predict(&p, NULL, MODEL_UNICAST, &us, NULL, err,
	                               sizeof err),
	                 CCP_EINVAL);
	assert_non_null(strstr(err, "needs gamma ("));
	assert_null(strstr(err, "hop"));
	ir_plan_fini(&p);
}

/* 003 §2: T = alpha + L max(beta_ex, f beta_sat), L the phase's largest
 * message, f its largest link load measured on the plan. */
static void test_contention(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 0, 4, 0, 0, 0);
	assert_int_equal(model_preset_apply(&m.cost, "delta-unforced"), 0);
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 1000);
	ir_plan p;
	ir_plan_init(&p, &m, &c, "hand");
	p.flags = IR_PLAN_LINK_CONTENTION;
	assert_int_equal(ir_plan_phase(&p), 0);
	tu_add_own(&p, 0, 3); /* links 0-1, 1-2, 2-3 */
	tu_add_own(&p, 1, 3); /* 1-2, 2-3 */
	tu_add_own(&p, 2, 3); /* 2-3: three messages on one link */
	assert_int_equal(ir_plan_phase(&p), 0);
	tu_add_own(&p, 0, 1); /* f = 1 */
	double want = (75 + 1000 * fmax(0.35, 3 * 0.175)) +
	              (75 + 1000 * fmax(0.35, 1 * 0.175));
	EXACT(predict(&p, NULL, MODEL_CONTENTION), want);
	/* with the Delta's 2 beta_sat = beta_ex, two messages on a link
	 * cost no more than one (003 §2) */
	p.transfers[0].dst = 2;
	EXACT(predict(&p, NULL, MODEL_CONTENTION), 75 + 350 + 75 + 350);
	ir_plan_fini(&p);

	/* the report's loads give the same answer as routing again */
	ir_machine t = tu_machine(IR_MESH, 0, 8, 8, 0, 0);
	assert_int_equal(model_preset_apply(&t.cost, "delta-forced"), 0);
	c = tu_comm(IR_TRANSPOSE, 0, 2048);
	const struct sch_generator *g = sch_find("transpose_direct");
	assert_non_null(g);
	struct sch_options o = {0};
	assert_int_equal(g->generate(&t, &c, &o, &p), 0);
	ir_report r;
	assert_int_equal(ir_verify(&p, &r), 0);
	assert_true(r.max_link_load > 2);
	double a = predict(&p, &r, MODEL_CONTENTION);
	EXACT(a, predict(&p, NULL, MODEL_CONTENTION));
	EXACT(a, 150 + 2048 * r.max_link_load * 0.1);
	print_message("  direct transpose 8x8, 2 KB, Delta forced: f = %u, "
	              "%.1f us\n",
	              r.max_link_load, a);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* 004 §2.1: each phase costs tau + M phi, M its largest message. */
static void test_permutation(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_HYPERCUBE, 1, 3, 0, 0, 0);
	assert_int_equal(model_preset_apply(&m.cost, "ipsc860"), 0);
	ir_matrix *x = ir_matrix_new(8, 3);
	assert_non_null(x);
	x->row[0] = 0;
	x->row[1] = 2;
	for (int i = 2; i <= 8; i++)
		x->row[i] = 3;
	x->dst[0] = 1;
	x->bytes[0] = 100;
	x->dst[1] = 2;
	x->bytes[1] = 300;
	x->dst[2] = 0;
	x->bytes[2] = 50;
	ir_comm c = tu_comm(IR_IRREGULAR, 0, 0);
	c.matrix = x;
	ir_plan p;
	ir_plan_init(&p, &m, &c, "hand");
	ir_comm_fini(&c);
	assert_int_equal(ir_plan_phase(&p), 0);
	ir_block b01 = {0, 1}, b02 = {0, 2}, b10 = {1, 0};
	assert_int_equal(ir_plan_add(&p, 0, 1, &b01, 1, 0), 0);
	assert_int_equal(ir_plan_add(&p, 1, 0, &b10, 1, 0), 0);
	assert_int_equal(ir_plan_phase(&p), 0);
	assert_int_equal(ir_plan_add(&p, 0, 2, &b02, 1, 0), 0);
	EXACT(predict(&p, NULL, MODEL_PERMUTATION),
	      (65 + 100 * 0.333) + (65 + 300 * 0.333));
	double us;
	char err[256];
	p.machine.cost.phi = NAN;
	assert_int_equal(model_predict(&p, NULL, MODEL_PERMUTATION, &us, NULL,
	                               err, sizeof err),
	                 CCP_EINVAL);
	assert_non_null(strstr(err, "phi"));
	ir_plan_fini(&p);
}

/* combine: every model adds combine per byte of the largest partial a
 * phase combines (IR_XF_REDUCE); unset or 0 adds nothing.  On recursive
 * doubling's allreduce every transfer is a partial of the whole vector;
 * on the ring allgather none is. */
static void test_combine(void **state)
{
	(void)state;
	const int64_t L = 4096;
	ir_machine m = tu_machine(IR_SWITCH, 0, 4, 0, 0, 0);
	m.cost.tau = 20;
	m.cost.phi = 0.001;
	m.cost.alpha = 3;
	m.cost.beta = 0.002;
	m.cost.hop = m.cost.gamma = 0;
	ir_comm c = tu_comm(IR_ALLREDUCE, 0, L);
	c.dtype = IR_DT_INT32;
	c.op = IR_OP_SUM;
	c.segments = 1;
	ir_plan p;
	struct sch_options o = {0};
	const struct sch_generator *g = sch_find("recursive_doubling");
	assert_non_null(g);
	assert_int_equal(g->generate(&m, &c, &o, &p), 0);
	assert_int_equal(p.nphases, 2);
	EXACT(predict(&p, NULL, MODEL_PERMUTATION), 2 * (20 + L * 0.001));
	EXACT(predict(&p, NULL, MODEL_UNICAST), 2 * (3 + L * 0.002));
	p.machine.cost.combine = 0; /* given as 0: nothing */
	EXACT(predict(&p, NULL, MODEL_PERMUTATION), 2 * (20 + L * 0.001));
	p.machine.cost.combine = 0.0005;
	EXACT(predict(&p, NULL, MODEL_PERMUTATION),
	      2 * (20 + L * 0.001 + L * 0.0005));
	EXACT(predict(&p, NULL, MODEL_UNICAST),
	      2 * (3 + L * 0.002 + L * 0.0005));
	ir_plan_fini(&p);

	ir_comm a = tu_comm(IR_ALLGATHER, 0, L);
	m.cost.combine = 0.0005;
	g = sch_find("ring");
	assert_non_null(g);
	assert_int_equal(g->generate(&m, &a, &o, &p), 0);
	assert_int_equal(p.nphases, 3);
	EXACT(predict(&p, NULL, MODEL_PERMUTATION), 3 * (20 + L * 0.001));
	ir_plan_fini(&p);
}

/* 000 eq. 3 on a homogeneous mesh (level 1 everywhere): a rank's sends
 * add up; a link shared by f sends adds (f - 1) Lambda S. */
static void test_hpam_eq3(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 0, 4, 4, 0, 0);
	assert_int_equal(model_preset_apply(&m.cost, "hpam-q2"), 0);
	ir_plan p;
	hand_plan(&p, &m);
	/* A_11 = 2 + 2 + (0.01 + 0.01 + 0.01) * 1000 = 34 */
	double a = 34.0, L = 0.01;
	double want = (3 * a + L * (1 + 1 + 4)) + (a + L * 3);
	EXACT(predict(&p, NULL, MODEL_HPAM), want);
	/* rank 0 -> 3 now shares link 1 -> 2 with a second send 1 -> 2 */
	p.flags = IR_PLAN_LINK_CONTENTION;
	p.transfers[1].src = 1;
	p.transfers[1].dst = 2;
	p.blocks[p.transfers[1].block] = (ir_block){1, 2};
	want = fmax(2 * a + L * (1 + 4), a + L * 3 + L * 1000) + (a + L * 3);
	EXACT(predict(&p, NULL, MODEL_HPAM), want);
	double us;
	char err[256];
	p.machine.cost.lambda = NAN;
	assert_int_equal(
	        model_predict(&p, NULL, MODEL_HPAM, &us, NULL, err, sizeof err),
	        CCP_EINVAL);
	assert_non_null(strstr(err, "lambda"));
	ir_plan_fini(&p);
}

/* 000's closed forms on a 4x4 second level under one level-1 node, Q = 2,
 * S = 0 (Gamma_12 = 6, Gamma_22 = 8 us, Lambda = 0.01): eq. 5 for 4x2 is
 * 2 (A_12 + Lambda) + 3 A_22 + Lambda/2 (lg4+ + lg2+), and for 2x4 the
 * second root sits two rows further down; eq. 6 for 2x1 is
 * 2 (A_12 + 2 Lambda) + A_22 + Lambda/2 lg2+. */
static void test_hpam_closed(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_HPAM, 1, 1, 1, 4, 4);
	assert_int_equal(model_preset_apply(&m.cost, "hpam-q2"), 0);
	ir_comm b = tu_comm(IR_BCAST, 0, 0);
	double us;
	char err[256];
	assert_int_equal(
	        model_hpam_closed(&m, &b, false, 4, 2, &us, err, sizeof err),
	        0);
	EXACT(us, 2 * (6 + 0.01) + 3 * 8 + 0.005 * (6 + 2));
	EXACT(us, 36.06);
	assert_int_equal(
	        model_hpam_closed(&m, &b, false, 2, 4, &us, err, sizeof err),
	        0);
	EXACT(us, 2 * (6 + 0.02) + 3 * 8 + 0.005 * (2 + 6));
	assert_int_equal(
	        model_hpam_closed(&m, &b, true, 2, 1, &us, err, sizeof err), 0);
	EXACT(us, 2 * (6 + 0.02) + 8 + 0.005 * 2);
	/* a gather is priced as the scatter (000 §5) */
	ir_comm sc = tu_comm(IR_SCATTER, 0, 100), ga = tu_comm(IR_GATHER, 0, 100);
	double ts, tg;
	assert_int_equal(model_hpam_closed(&m, &sc, false, 2, 2, &ts, NULL, 0),
	                 0);
	assert_int_equal(model_hpam_closed(&m, &ga, false, 2, 2, &tg, NULL, 0),
	                 0);
	EXACT(ts, tg);

	/* the partitions 000 writes no equation for */
	struct {
		int r1, c1;
		enum ir_coll coll;
		bool mc;
		int p2, q2;
		const char *why;
	} no[] = {
	        {1, 1, IR_BCAST, false, 3, 2, "do not tile"},
	        {1, 1, IR_BCAST, false, 0, 2, "do not tile"},
	        {1, 1, IR_BCAST, true, 2, 2, "p2 x 1"},
	        {2, 2, IR_BCAST, false, 2, 2, "eq. 7"},
	        {2, 2, IR_SCATTER, false, 1, 4, "q2 <= f"},
	        {1, 1, IR_REDUCE, false, 2, 2, "this is a reduce"},
	};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
		ir_machine k = tu_machine(IR_HPAM, 1, no[i].r1, no[i].c1, 4, 4);
		assert_int_equal(model_hpam_table1(8, &k.cost), 0);
		ir_comm c = tu_comm(no[i].coll, 0, 64);
		assert_int_equal(model_hpam_closed(&k, &c, no[i].mc, no[i].p2,
		                                   no[i].q2, &us, err,
		                                   sizeof err),
		                 CCP_ENOTAPPLY);
		assert_true(isnan(us));
		if (!strstr(err, no[i].why))
			fail_msg("case %zu: %s", i, err);
	}
	ir_comm deep = tu_comm(IR_BCAST, 1, 64); /* rank 1 is in level 2 */
	assert_int_equal(
	        model_hpam_closed(&m, &deep, false, 4, 2, &us, err, sizeof err),
	        CCP_ENOTAPPLY);
	assert_non_null(strstr(err, "root 1"));
	ir_machine mesh = tu_machine(IR_MESH, 1, 4, 4, 0, 0);
	assert_int_equal(model_hpam_table1(2, &mesh.cost), 0);
	assert_int_equal(
	        model_hpam_closed(&mesh, &b, false, 1, 1, &us, err, sizeof err),
	        CCP_ENOTAPPLY);
	assert_non_null(strstr(err, "mesh"));

	/* both levels' fields are read, as model_predict names them */
	m.cost.copy[1] = NAN;
	assert_int_equal(
	        model_hpam_closed(&m, &b, false, 4, 2, &us, err, sizeof err),
	        CCP_EINVAL);
	assert_non_null(strstr(err, "copy[1] (level 2)"));
	m.cost.copy[1] = -1;
	assert_int_equal(
	        model_hpam_closed(&m, &b, false, 4, 2, &us, err, sizeof err),
	        CCP_EINVAL);
	assert_non_null(strstr(err, "not negative"));
}

/* The HPAM generators' plans, priced phase by phase with eq. 3, against
 * 000's closed forms of eqs. 5-14 for the partition they chose. */
static void test_hpam_plans(void **state)
{
	(void)state;
	struct {
		int r1, c1, r2, c2;
		enum ir_coll coll;
	} shapes[] = {{1, 1, 4, 4, IR_BCAST},
	              {4, 4, 16, 16, IR_BCAST},
	              {4, 4, 16, 16, IR_SCATTER},
	              {2, 2, 8, 8, IR_GATHER}};
	const double qs[] = {2, 8, 32};
	const int64_t sizes[] = {0, 64, 4096};
	double worst = 0;
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		for (int mc = 0; mc < 2; mc++)
			for (int qi = 0; qi < 3; qi++)
				for (int si = 0; si < 3; si++) {
					if (mc && shapes[i].coll == IR_GATHER)
						continue;
					ir_machine m = tu_machine(
					        IR_HPAM, 1, shapes[i].r1,
					        shapes[i].c1, shapes[i].r2,
					        shapes[i].c2);
					assert_int_equal(
					        model_hpam_table1(qs[qi],
					                          &m.cost),
					        0);
					ir_comm c = tu_comm(shapes[i].coll, 0,
					                 sizes[si]);
					const struct sch_generator *g =
					        sch_find(mc ? "hpam_multicast"
					                    : "hpam_hybrid");
					assert_non_null(g);
					struct sch_options o = {
					        .forbid_contention = true,
					        .hpam_price = model_hpam_price};
					ir_plan p;
					ir_report r;
					assert_int_equal(
					        g->generate(&m, &c, &o, &p), 0);
					assert_int_equal(ir_verify(&p, &r), 0);
					int p2, q2;
					double paper;
					assert_int_equal(
					        sch_hpam_partition(&m, &c, mc,
					                           &prices, &p2,
					                           &q2, &paper),
					        0);
					double us = predict(&p, &r, MODEL_HPAM);
					double d = fabs(us - paper) / paper;
					if (d > worst)
						worst = d;
					assert_true(d < 0.005);
					ir_report_fini(&r);
					ir_plan_fini(&p);
				}
	print_message("  HPAM plans vs 000 eqs. 5-14: worst difference "
	              "%.3f%%\n",
	              100 * worst);
}

/* Phases with no transfers cost nothing; a plan with none costs 0. */
static void test_empty(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 0, 4, 0, 0, 0);
	assert_int_equal(model_preset_apply(&m.cost, "ncube2"), 0);
	m.cost.beta_sat = m.cost.beta;
	m.cost.tau = m.cost.phi = 1;
	assert_int_equal(model_hpam_table1(2, &m.cost), 0);
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 10);
	ir_plan p;
	ir_plan_init(&p, &m, &c, "hand");
	assert_int_equal(ir_plan_phase(&p), 0);
	for (int k = 0; k < MODEL_NKINDS; k++)
		EXACT(predict(&p, NULL, (enum model_kind)k), 0);
	ir_plan_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_preset_table),
	        cmocka_unit_test(test_preset_apply),
	        cmocka_unit_test(test_kind_names),
	        cmocka_unit_test(test_unicast),
	        cmocka_unit_test(test_contention),
	        cmocka_unit_test(test_permutation),
	        cmocka_unit_test(test_combine),
	        cmocka_unit_test(test_hpam_eq3),
	        cmocka_unit_test(test_hpam_closed),
	        cmocka_unit_test(test_hpam_plans),
	        cmocka_unit_test(test_empty),
	        cmocka_unit_test(test_switch_hop_default),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
