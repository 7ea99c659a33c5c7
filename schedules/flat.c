/*
 * flat.c - the flat (one-level) broadcast and reduce: the root and every
 * other rank exchange directly.
 *
 *   flat  broadcast: the root sends its whole message (every segment in
 *         one transfer) to each rank; reduce: each rank gives the root
 *         its contribution, which the root combines.  As many at once as
 *         the root's ports allow: ceil((N-1)/k) phases for k ports, one
 *         on an all-port switch.  Every rank but the root takes part in
 *         one transfer, so nothing waits for a rank in the middle of a
 *         tree to be scheduled and forward: on ranks that share a few
 *         cores (an oversubscribed MPI job) that is what decides, and
 *         it is the linear algorithm MPI libraries run for mid-sized
 *         and large broadcasts on a few ranks (docs/collectives.md).
 *
 * The reduce is reproducible: the root combines the contributions in
 * the order of the phase's transfers, rank order from the root, the same
 * every run.
 */
#include <stdlib.h>

#include "sched.h"

static int flat_generate(const ir_machine *m, const ir_comm *c,
                         const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks, k = ir_port_limit(m, c->root);
	bool reduce = c->coll == IR_REDUCE;
	int32_t nseg = !reduce && c->segments > 1 ? c->segments : 1;
	ir_block *b = malloc((size_t)nseg * sizeof *b);
	int rc = b ? 0 : CCP_ENOMEM;
	if (k < 1)
		k = 1;
	ir_plan_init(p, m, c, "flat");
	p->comm.segments = nseg;
	/* the i-th rank after the root in phase (i - 1) / k */
	for (int32_t i = 1; i < n && rc == 0; i++) {
		int32_t r = (int32_t)(((int64_t)c->root + i) % n);
		if ((i - 1) % k == 0)
			rc = ir_plan_phase(p);
		if (rc)
			break;
		if (reduce) {
			b[0] = (ir_block){r, 0};
			rc = ir_plan_add(p, r, c->root, b, 1, IR_XF_REDUCE);
			continue;
		}
		for (int32_t s = 0; s < nseg; s++)
			b[s] = (ir_block){c->root, s};
		rc = ir_plan_add(p, c->root, r, b, (uint32_t)nseg, 0);
	}
	free(b);
	return sch_finish(p, o, true, rc);
}

const struct sch_generator sch_flat = {
        .name = "flat",
        .summary = "broadcast, reduce: the root and every rank exchange "
                   "directly, as many at once as the root's ports allow "
                   "(ceil((N-1)/ports) phases: 1 when all-port on a "
                   "switch); MPI's linear algorithm",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_BCAST) | SCH_C(IR_REDUCE),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = flat_generate,
};
