/*
 * linear.c - the linear scatter, and the direct scatter, gather and
 * alltoall.
 *
 *   linear  scatter: the root sends each rank its block, one message per
 *           phase, in rank order.  N-1 phases; trivially free of
 *           contention on any machine.  The baseline every scatter is
 *           measured against, and the "brute force" of 000.
 *   direct  scatter, gather, alltoall: every block straight to its
 *           place, as many at once as the ports allow.  A rank of k
 *           ports sends (and receives) k messages a phase: the scatter's
 *           root sends to k ranks a phase, the gather's receives from k,
 *           and alltoall phase t holds the shifts i = tk+1 .. (t+1)k,
 *           rank j sending to (j + i) mod N.  ceil((N-1)/k) phases: one
 *           on an all-port switch or crossbar (a rank has N-1 links),
 *           the lower bound of any plan.  What MPI libraries call the
 *           linear (non-blocking) algorithm.  Where routes share links (a
 *           mesh), the plan says so and the verifier measures the load;
 *           `contention: forbid` splits such phases.
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

/* ---- direct ------------------------------------------------------------ */

/* Messages a rank of m may send in one phase, for every rank (the
 * fewest over them), at least 1. */
static int32_t direct_ports(const ir_machine *m, const ir_comm *c)
{
	int32_t k = INT32_MAX;
	if (c->coll == IR_ALLTOALL) {
		for (int32_t r = 0; r < m->nranks; r++) {
			int l = ir_port_limit(m, r);
			k = l < k ? l : k;
		}
	} else {
		k = ir_port_limit(m, c->root);
	}
	return k < 1 ? 1 : k;
}

static int direct_generate(const ir_machine *m, const ir_comm *c,
                           const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks, k = direct_ports(m, c);
	int rc = 0;
	ir_plan_init(p, m, c, "direct");
	/* the i-th message of a rank goes in phase (i - 1) / k */
	for (int32_t i = 1; i < n && rc == 0; i++) {
		if ((i - 1) % k == 0)
			rc = ir_plan_phase(p);
		if (c->coll == IR_ALLTOALL) {
			for (int32_t j = 0; j < n && rc == 0; j++) {
				int32_t d = (int32_t)(((int64_t)j + i) % n);
				ir_block b = {j, d};
				rc = ir_plan_add(p, j, d, &b, 1, 0);
			}
			continue;
		}
		int32_t r = (int32_t)(((int64_t)c->root + i) % n);
		ir_block b = c->coll == IR_GATHER ? (ir_block){r, 0}
		                                  : (ir_block){c->root, r};
		if (rc == 0)
			rc = c->coll == IR_GATHER
			             ? ir_plan_add(p, r, c->root, &b, 1, 0)
			             : ir_plan_add(p, c->root, r, &b, 1, 0);
	}
	return sch_finish(p, o, true, rc);
}

const struct sch_generator sch_direct = {
        .name = "direct",
        .summary = "scatter, gather, alltoall: every block straight to its "
                   "place, as many at once as the ports allow "
                   "(ceil((N-1)/ports) phases: 1 when all-port on a "
                   "switch)",
        .doc = "alltoall.md",
        .domain = {.colls = SCH_C(IR_SCATTER) | SCH_C(IR_GATHER) |
                            SCH_C(IR_ALLTOALL),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = direct_generate,
};
