/*
 * test_select.c - algorithm selection: compare's ranking, algorithm:
 * auto's choice and what it records in the plan, and the crossovers.
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

#include "codec.h"
#include "compile.h"
#include "select.h"

/* A 16x16 all-port mesh with T3D costs broadcasting from (3, 5). */
static const char bcast16[] =
        "machine: {topology: mesh, dims: [16, 16], ports: all, cost: "
        "{preset: t3d}}\n"
        "communication: {collective: broadcast, root: [3, 5], bytes: %d}\n"
        "algorithm: auto\n%s";

/* Parse the input text into *in, which must hold. */
static void parse_text(struct front_input *in, const char *text)
{
	struct diag d;
	int rc = front_parse_string("t.yaml", text, strlen(text), in, &d);
	if (rc)
		print_error("%s\n", d.message);
	assert_int_equal(rc, 0);
}

static void parse(struct front_input *in, int bytes, const char *extra)
{
	char text[512];
	snprintf(text, sizeof text, bcast16, bytes, extra);
	parse_text(in, text);
}

/* Every candidate verified; ranked by simulated time, ties by phases. */
static void test_ranking(void **state)
{
	(void)state;
	struct front_input in;
	struct select_result sr;
	parse(&in, 1024, "");
	assert_int_equal(select_run(&in, true, false, &sr), 0);
	assert_true(sr.n >= 4);
	assert_false(sr.by_model);
	for (size_t i = 0; i < sr.n; i++) {
		assert_int_equal(sr.rows[i].rc, 0);
		assert_true(sr.rows[i].report.ok);
		assert_false(isnan(sr.rows[i].sim_max));
		assert_false(isnan(sr.rows[i].predicted));
		if (i > 0)
			assert_true(sr.rows[i - 1].sim_max <=
			            sr.rows[i].sim_max);
	}
	select_fini(&sr);
	/* by the model: ordered by predicted time instead */
	assert_int_equal(select_run(&in, false, true, &sr), 0);
	assert_true(sr.by_model);
	for (size_t i = 1; i < sr.n; i++)
		assert_true(sr.rows[i - 1].predicted <= sr.rows[i].predicted);
	select_fini(&sr);
	front_input_fini(&in);
}

/* auto takes the first of the ranking and records the runner-up, and the
 * record survives the plan file. */
static void test_auto_records(void **state)
{
	(void)state;
	struct front_input in;
	struct select_result sr;
	struct compiled c;
	struct diag d;
	parse(&in, 1024, "");
	assert_int_equal(select_run(&in, true, false, &sr), 0);
	memset(&d, 0, sizeof d);
	assert_int_equal(compile_input(&in, &c, &d), 0);
	assert_string_equal(c.plan.algorithm, sr.rows[0].g->name);
	assert_int_equal(c.plan.sel.method, IR_SELECT_SIMULATED);
	assert_int_equal(c.plan.sel.candidates, sr.n);
	assert_string_equal(c.plan.sel.runner_up, sr.rows[1].g->name);
	assert_true(c.plan.sel.time_us == sr.rows[0].sim_max);
	assert_true(c.plan.sel.runner_up_us == sr.rows[1].sim_max);
	uint8_t *img;
	size_t len;
	char err[256];
	ir_plan q;
	assert_int_equal(compile_encode(&c, &img, &len, err, sizeof err), 0);
	assert_int_equal(ir_plan_decode(img, len, &q, NULL, err, sizeof err),
	                 0);
	assert_int_equal(q.sel.method, IR_SELECT_SIMULATED);
	assert_string_equal(q.sel.runner_up, sr.rows[1].g->name);
	ir_plan_fini(&q);
	free(img);
	compiled_fini(&c);
	select_fini(&sr);
	front_input_fini(&in);
	/* select: model ranks by the model */
	parse(&in, 1024, "select: model\n");
	assert_int_equal(compile_input(&in, &c, &d), 0);
	assert_int_equal(c.plan.sel.method, IR_SELECT_MODEL);
	assert_true(c.plan.sel.time_us <= c.plan.sel.runner_up_us);
	compiled_fini(&c);
	front_input_fini(&in);
}

/* A crossover is where the model's order of two algorithms flips: just
 * below it one wins, at it the other. */
static void test_crossovers(void **state)
{
	(void)state;
	struct front_input in;
	int64_t at[25];
	parse(&in, 1024, "");
	const struct sch_generator *a = sch_find("edn"),
	                           *b = sch_find("binomial");
	int n = select_crossovers(&in, a, b, at, 25);
	assert_true(n >= 1);
	front_input_fini(&in);
	for (int i = 0; i < n; i++) {
		double t[2][2];
		int64_t size[2] = {at[i] / 2, at[i]};
		for (int s = 0; s < 2; s++) {
			struct front_input x;
			parse(&x, (int)size[s], "");
			for (int g = 0; g < 2; g++) {
				ir_plan p;
				ir_report r;
				char why[256];
				enum model_kind k;
				assert_int_equal(compile_generate(&x, g ? b : a,
				                                  &p, &r, why,
				                                  sizeof why),
				                 0);
				t[s][g] = select_predict(&p, &r, &k, why,
				                         sizeof why);
				ir_plan_fini(&p);
				ir_report_fini(&r);
			}
			front_input_fini(&x);
		}
		assert_true((t[0][0] < t[0][1]) != (t[1][0] < t[1][1]));
	}
}

/* Without costs there are no times: the ranking falls back to phases. */
static void test_no_costs(void **state)
{
	(void)state;
	static const char text[] =
	        "machine: {topology: mesh, dims: [8, 8], ports: all}\n"
	        "communication: {collective: broadcast, bytes: 64}\n"
	        "algorithm: auto\n";
	struct front_input in;
	struct select_result sr;
	parse_text(&in, text);
	assert_int_equal(select_run(&in, true, false, &sr), 0);
	assert_true(sr.by_model);
	assert_non_null(strstr(sr.model_why, "alpha"));
	for (size_t i = 1; i < sr.n; i++)
		assert_true(select_serial_phases(&sr.rows[i - 1].report) <=
		            select_serial_phases(&sr.rows[i].report));
	select_fini(&sr);
	front_input_fini(&in);
}

/* Ranked by phases, a contended phase counts at its busiest link's load:
 * on a dragonfly without costs, an allreduce by recursive doubling takes
 * fewer phases (8) than reduce-then-broadcast (14), but several transfers
 * share a global link in most of them; the contention-free plan ranks
 * first.  (Counting every phase as one, recursive doubling came first.) */
static void test_no_costs_contention(void **state)
{
	(void)state;
	static const char text[] =
	        "machine:\n"
	        "  topology: dragonfly\n"
	        "  dragonfly: {groups: 9, routers: 4, hosts_per_router: 2, "
	        "global_per_router: 2, arrangement: relative}\n"
	        "  routing: minimal\n"
	        "communication: {collective: allreduce, bytes: 65536, "
	        "dtype: double, op: sum}\n"
	        "algorithm: auto\n";
	struct front_input in;
	struct select_result sr;
	parse_text(&in, text);
	assert_int_equal(select_run(&in, true, false, &sr), 0);
	assert_true(sr.n >= 3);
	const ir_report *first = &sr.rows[0].report;
	assert_true(first->max_link_load <= 1);
	bool fewer_contended = false;
	for (size_t i = 0; i < sr.n; i++) {
		const ir_report *r = &sr.rows[i].report;
		if (sr.rows[i].rc != 0)
			continue;
		if (i > 0 && sr.rows[i - 1].rc == 0)
			assert_true(
			        select_serial_phases(&sr.rows[i - 1].report) <=
			        select_serial_phases(r));
		fewer_contended |=
		        r->phases < first->phases && r->max_link_load > 1;
	}
	assert_true(fewer_contended);
	select_fini(&sr);
	front_input_fini(&in);
}

/* The ranking's row of `ac`, which must have made a verified plan. */
static const struct select_row *ac_row(const struct select_result *sr)
{
	for (size_t i = 0; i < sr->n; i++)
		if (sr->rows[i].rc == 0 &&
		    strcmp(sr->rows[i].g->name, "ac") == 0)
			return &sr->rows[i];
	fail_msg("no verified plan of ac among the %zu rows", sr->n);
	return NULL;
}

/* A phase that overruns a rank's port is never priced as a free one:
 * under the contention model (003), ac's one phase of a one-port
 * hypercube in which rank 0 sends 1000 bytes to each of its 3
 * neighbours (each on a link of its own, link load 1) costs the three
 * bodies through that port, alpha + 3*1000*beta, not alpha + 1000*beta;
 * so it is no faster than the three contention-free phases of the
 * schedules, and no faster under any model the ranking uses. */
static void test_contended_phase_priced(void **state)
{
	(void)state;
	static const char text[] =
	        "machine: {topology: hypercube, dimension: 3, routing: e-cube, "
	        "ports: one,\n"
	        "  cost: {alpha: 10, beta: 1, beta_sat: 1, hop: 0, gamma: 0}}\n"
	        "communication:\n"
	        "  pattern: irregular\n"
	        "  edges: [[0, 1, 1000], [0, 2, 1000], [0, 4, 1000]]\n"
	        "algorithm: auto\n";
	struct front_input in;
	struct select_result sr;
	parse_text(&in, text);
	assert_int_equal(select_run(&in, false, true, &sr), 0);
	const struct select_row *r = ac_row(&sr);
	assert_int_equal(r->report.phases, 1);
	assert_int_equal(r->report.max_node_sends, 3);
	assert_int_equal(select_model_for(&r->plan), MODEL_CONTENTION);
	assert_true(fabs(r->predicted - (10 + 3 * 1000.0)) < 1e-9);
	/* every verified plan sends rank 0's 3000 bytes through one port */
	for (size_t i = 0; i < sr.n; i++)
		if (sr.rows[i].rc == 0)
			assert_true(sr.rows[i].predicted >= 3000);
	select_fini(&sr);
	front_input_fini(&in);
}

/* The same under the contention model on a machine of 2-rank nodes
 * with a shared-memory cost: ac's link loads (15 on one link) are
 * priced whether the model reads them from the verifier's report, as
 * the ranking does, or routes the plan again; the report's loads were
 * once dropped there, and the phase priced as if no link were shared. */
static void test_contended_phase_priced_nodes(void **state)
{
	(void)state;
	static const char text[] =
	        "machine: {topology: mesh, dims: [4, 4], ranks_per_node: 2, "
	        "ports: all,\n"
	        "  cost: {alpha: 1, beta: 0.01, beta_sat: 0.01, hop: 0.1, "
	        "gamma: 0.5,\n"
	        "         shm_alpha: 0.1, shm_beta: 0.001}}\n"
	        "communication:\n"
	        "  pattern: irregular\n"
	        "  generate: {kind: regular, degree: 6, bytes: 10000, seed: "
	        "3}\n"
	        "algorithm: auto\n";
	struct front_input in;
	struct select_result sr;
	parse_text(&in, text);
	assert_int_equal(select_run(&in, false, true, &sr), 0);
	const struct select_row *r = ac_row(&sr);
	assert_int_equal(select_model_for(&r->plan), MODEL_CONTENTION);
	assert_int_equal(r->report.phases, 1);
	uint32_t f = r->report.max_link_load;
	assert_true(f > 1);
	double again, want = 1 + 10000 * (f * 0.01);
	char err[256];
	assert_int_equal(model_predict(&r->plan, NULL, MODEL_CONTENTION, &again,
	                               NULL, err, sizeof err),
	                 0);
	assert_true(fabs(again - r->predicted) < 1e-9 * again);
	assert_true(r->predicted >= want - 1e-9);
	select_fini(&sr);
	front_input_fini(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_ranking),
	        cmocka_unit_test(test_auto_records),
	        cmocka_unit_test(test_crossovers),
	        cmocka_unit_test(test_no_costs),
	        cmocka_unit_test(test_no_costs_contention),
	        cmocka_unit_test(test_contended_phase_priced),
	        cmocka_unit_test(test_contended_phase_priced_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
