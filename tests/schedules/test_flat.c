/*
 * test_flat.c - the flat broadcast and reduce (schedules/flat.c): the
 * root and every other rank exchange directly, as many at once as the
 * root's ports allow (issue 20: MPI's linear algorithm, which its
 * decision rules take for mid-sized and large broadcasts on a few
 * ranks).
 *
 * The phase counts and what each message carries are derived here from
 * the definition, not read back from the generator; every plan passes
 * the verifier and lowers.  The models must charge the flat reduce's
 * root for every partial it combines, one after another (model/cost.c),
 * or it would pass for as cheap as a single combine at every size.
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

#include "front.h"
#include "ir.h"
#include "model.h"
#include "sched.h"
#include "sched_support.h"
#include "select.h"
#include "support.h"

/* Every rank but the root in exactly one transfer, with the root, k to a
 * phase: ceil((N-1)/k) phases; a broadcast's transfer carries every
 * segment, a reduce's the sender's partial, combined at the root. */
static void test_flat_shape(void **state)
{
	(void)state;
	for (int32_t n = 1; n <= 17; n++) {
		int ports[] = {IR_PORTS_ALL, 1, 2, 3};
		for (size_t i = 0; i < sizeof ports / sizeof *ports; i++) {
			ir_machine m =
			        tu_machine(IR_SWITCH, ports[i], n, 0, 0, 0);
			int32_t k = ports[i] == IR_PORTS_ALL ? n - 1 : ports[i];
			for (int w = 0; w < 3; w++) {
				ir_comm c =
				        tu_comm(w == 2 ? IR_REDUCE : IR_BCAST,
				                (n - 1) / 2, 96);
				if (w == 1)
					c.segments = 3;
				if (w == 2) {
					c.dtype = IR_DT_DOUBLE;
					c.op = IR_OP_SUM;
				}
				ir_plan p;
				ir_report r;
				tu_make(&sch_flat, &m, &c, false, &p, &r);
				uint32_t want =
				        n > 1 ? (uint32_t)((n - 2) / k + 1) : 0;
				assert_int_equal(r.phases, want);
				assert_int_equal(r.transfers,
				                 (uint64_t)(n - 1));
				assert_int_equal(p.flags, 0);
				assert_true(r.reproducible);
				int32_t *seen = calloc((size_t)n, sizeof *seen);
				assert_non_null(seen);
				for (uint32_t t = 0; t < p.ntransfers; t++) {
					const ir_transfer *x = &p.transfers[t];
					int32_t other =
					        w == 2 ? x->src : x->dst;
					assert_int_equal(w == 2 ? x->dst
					                        : x->src,
					                 c.root);
					assert_int_not_equal(other, c.root);
					seen[other]++;
					assert_int_equal(x->nblocks,
					                 w == 1 ? 3u : 1u);
					assert_int_equal(
					        (x->flags & IR_XF_REDUCE) != 0,
					        w == 2);
				}
				for (int32_t v = 0; v < n; v++)
					assert_int_equal(seen[v], v != c.root);
				free(seen);
				ir_report_fini(&r);
				ir_plan_fini(&p);
			}
		}
	}
}

/* A flat reduce of L bytes on 8 all-port ranks is one phase in which the
 * root combines 7 partials: tau + L phi + 7 L combine under the
 * permutation model, not tau + L (phi + combine); the unicast model's
 * last arrival likewise waits for the 6 combines before it.  Binomial's
 * 3 phases each combine one partial at a receiver. */
static void test_flat_reduce_priced(void **state)
{
	(void)state;
	const double tau = 10, phi = 0.0004, comb = 0.0003, L = 65536;
	ir_machine m = tu_machine(IR_SWITCH, IR_PORTS_ALL, 8, 0, 0, 0);
	m.cost.tau = tau;
	m.cost.phi = phi;
	m.cost.combine = comb;
	ir_comm c = tu_comm(IR_REDUCE, 0, (int64_t)L);
	c.dtype = IR_DT_INT32;
	c.op = IR_OP_SUM;
	ir_plan p;
	ir_report r;
	tu_make(&sch_flat, &m, &c, false, &p, &r);
	double us;
	char err[256] = "";
	assert_int_equal(model_predict(&p, &r, MODEL_PERMUTATION, &us, NULL,
	                               err, sizeof err),
	                 0);
	assert_true(fabs(us - (tau + L * phi + 7 * L * comb)) < 1e-6);
	ir_report_fini(&r);
	ir_plan_fini(&p);

	ir_plan b;
	assert_int_equal(
	        sch_binomial.generate(&m, &c, &(struct sch_options){0}, &b), 0);
	assert_int_equal(ir_verify(&b, &r), 0);
	assert_int_equal(model_predict(&b, &r, MODEL_PERMUTATION, &us, NULL,
	                               err, sizeof err),
	                 0);
	assert_true(fabs(us - 3 * (tau + L * phi + L * comb)) < 1e-6);
	ir_report_fini(&r);
	ir_plan_fini(&b);

	/* unicast: start-up alpha, then L beta + gamma; the root's k-th
	 * combine ends after k of them */
	m.cost.tau = m.cost.phi = NAN;
	m.cost.alpha = 5;
	m.cost.beta = 0.001;
	m.cost.gamma = 1;
	m.cost.hop = 0;
	tu_make(&sch_flat, &m, &c, false, &p, &r);
	assert_int_equal(model_predict(&p, &r, MODEL_UNICAST, &us, NULL, err,
	                               sizeof err),
	                 0);
	double one = L * m.cost.beta + m.cost.gamma;
	assert_true(us >= 5 + one + 7 * L * comb - 1e-6);
	assert_true(us <= 7 * 5 + one + 7 * L * comb + 1e-6);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* The generator `auto` ranks first for a switch of n ranks with the
 * given ports and costs (a YAML mapping, or "" for none), collective
 * coll of bytes. */
static const char *first(int n, const char *ports, const char *cost,
                         const char *coll, int bytes)
{
	char text[512];
	snprintf(text, sizeof text,
	         "machine: {topology: switch, ranks: %d, ports: %s%s}\n"
	         "communication: {collective: %s, root: 0, bytes: %d%s}\n"
	         "algorithm: auto\nselect: model\n",
	         n, ports, cost, coll, bytes,
	         strcmp(coll, "reduce") ? "" : ", dtype: int32, op: sum");
	struct front_input in;
	struct diag d;
	int rc = front_parse_string("t.yaml", text, strlen(text), &in, &d);
	if (rc)
		print_error("%s\n", d.message);
	assert_int_equal(rc, 0);
	struct select_result sr;
	assert_int_equal(select_run(&in, false, true, &sr), 0);
	assert_true(sr.n > 0);
	assert_int_equal(sr.rows[0].rc, 0);
	const char *name = sr.rows[0].g->name;
	select_fini(&sr);
	front_input_fini(&in);
	return name;
}

/* Without costs auto ranks by phases: one for flat on an all-port
 * switch, so it takes flat at every size (ccplan-bench's bcast-auto and
 * reduce-auto); on 2 ranks both are one transfer and binomial, first in
 * the registry, stays; on a one-port switch flat's N-1 phases lose to
 * binomial's lg N.  With costs the reduce changes by size, the root's
 * N-1 combines priced: flat for short vectors, not for long ones. */
static void test_flat_chosen(void **state)
{
	(void)state;
	static const char *colls[] = {"broadcast", "reduce"};
	static const int sizes[] = {8, 1024, 65536, 1 << 20};
	static const struct {
		int n;
		const char *ports, *want;
	} cases[] = {{2, "all", "binomial"},
	             {4, "all", "flat"},
	             {8, "all", "flat"},
	             {8, "1", "binomial"}};
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 4; j++)
				assert_string_equal(first(cases[j].n,
				                          cases[j].ports, "",
				                          colls[k], sizes[i]),
				                    cases[j].want);
	const char *cost = ", cost: {tau: 10.65, phi: 0.000406, "
	                   "combine: 0.000348}";
	assert_string_equal(first(8, "all", cost, "reduce", 1024), "flat");
	assert_string_equal(first(8, "all", cost, "broadcast", 1 << 20),
	                    "flat");
	assert_string_not_equal(first(8, "all", cost, "reduce", 1 << 20),
	                        "flat");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_flat_shape),
	        cmocka_unit_test(test_flat_reduce_priced),
	        cmocka_unit_test(test_flat_chosen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
