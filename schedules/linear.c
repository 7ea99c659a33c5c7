/*
 * linear.c - the linear scatter: the root sends each rank its block, one
 * message per phase, in rank order.  N-1 phases; trivially free of
 * contention on any machine.  The baseline every scatter is measured
 * against, and the "brute force" of 000.
 */
#include "sched.h"

static int linear_generate(const ir_machine *m, const ir_comm *c,
                           const struct sch_options *o, ir_plan *p)
{
	(void)o;
	ir_plan_init(p, m, c, "linear");
	for (int32_t d = 0; d < m->nranks; d++) {
		if (d == c->root)
			continue;
		ir_block b = {c->root, d};
		int rc = ir_plan_phase(p);
		if (!rc)
			rc = ir_plan_add(p, c->root, d, &b, 1, 0);
		if (rc)
			return rc;
	}
	return 0;
}

const struct sch_generator sch_linear = {
        .name = "linear",
        .summary = "scatter: the root sends one block per phase (N-1 phases)",
        .domain = {.colls = SCH_C(IR_SCATTER),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = linear_generate,
};
