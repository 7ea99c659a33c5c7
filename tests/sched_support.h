/*
 * sched_support.h - what the generator tests share: a plan made by one
 * generator, verified and lowered, with every failure printed and
 * failing the test.  Header-only; include after <cmocka.h>.
 */
#ifndef CCP_TEST_SCHED_SUPPORT_H
#define CCP_TEST_SCHED_SUPPORT_H

#include "ir.h"
#include "sched.h"

/* Generate with g (which must apply; forbid: contention forbidden),
 * verify (the report must be ok) and lower; the plan and the report are
 * the caller's to release. */
static inline void tu_make(const struct sch_generator *g, const ir_machine *m,
                           const ir_comm *c, bool forbid, ir_plan *p,
                           ir_report *r)
{
	char why[256] = "";
	struct sch_options o = {.forbid_contention = forbid};
	int rc = sch_applies(g, m, c, why, sizeof why);
	if (rc)
		print_message("  %s: %s\n", g->name, why);
	assert_int_equal(rc, 0);
	assert_int_equal(g->generate(m, c, &o, p), 0);
	rc = ir_verify(p, r);
	if (rc)
		print_message("  %s on %d ranks: verifier: %s\n", g->name,
		              (int)m->nranks, r->message);
	assert_int_equal(rc, 0);
	assert_true(r->ok);
	ir_slice *sl;
	assert_int_equal(ir_lower(p, &sl), 0);
	ir_slices_free(sl, m->nranks);
}

#endif
