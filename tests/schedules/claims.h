/*
 * claims.h - the check that test_fat_tree.c, test_graph.c and
 * test_dragonfly.c make of the generators that claim a topology: each
 * applies to some of the given machines and every plan it makes there
 * passes the verifier, with contention allowed and forbidden (then
 * within every link's capacity, for every path a message may take).
 * Header-only (each test is its own executable); include after
 * <cmocka.h> and support.h.
 */
#ifndef CCP_TESTS_CLAIMS_H
#define CCP_TESTS_CLAIMS_H

#include "ir.h"
#include "matrix.h"
#include "sched.h"

/* A communication of coll on m: a vector of one double per rank, root 5
 * (0 on small machines), a 3-regular pattern. */
static inline ir_comm claims_comm(enum ir_coll coll, const ir_machine *m)
{
	ir_comm c = tu_comm(coll, m->nranks > 5 ? 5 : 0, 8 * (int64_t)m->nranks);
	c.dtype = IR_DT_DOUBLE;
	c.op = IR_OP_SUM;
	c.seed = 11;
	if (coll == IR_IRREGULAR) {
		c.matrix = ir_matrix_regular(m->nranks, 3, 64, 7);
		assert_non_null(c.matrix);
	}
	return c;
}

/* Every generator whose domain names topology topo, on ms[0..n) (named
 * names[]): it applies to one at least, and each plan verifies.  Returns
 * how many generators claim topo. */
static inline int claims_verify(enum ir_topo topo, const ir_machine *ms,
                                const char *const *names, int n)
{
	int claiming = 0;
	for (int k = 0; sch_generators[k]; k++) {
		const struct sch_generator *g = sch_generators[k];
		if (!(g->domain.topos & SCH_T(topo)))
			continue;
		claiming++;
		int tried = 0;
		for (int i = 0; i < n; i++) {
			const ir_machine *m = &ms[i];
			for (int cl = 0; cl < IR_NCOLLS; cl++) {
				if (!(g->domain.colls & SCH_C(cl)))
					continue;
				ir_comm c = claims_comm((enum ir_coll)cl, m);
				if (sch_applies(g, m, &c, NULL, 0) != 0) {
					ir_comm_fini(&c);
					continue;
				}
				for (int forbid = 0; forbid < 2; forbid++) {
					struct sch_options o = {0};
					ir_plan p;
					ir_report r;
					o.forbid_contention = forbid;
					o.seed = 3;
					int rc = sch_generate(g, m, &c, &o, &p);
					if (rc == CCP_ENOTAPPLY && forbid)
						continue; /* cannot split */
					if (rc)
						fail_msg("%s %s on %s: %d", g->name,
						         ir_coll_name(c.coll),
						         names[i], rc);
					if (ir_verify(&p, &r) != 0)
						fail_msg("%s %s on %s%s: %s", g->name,
						         ir_coll_name(c.coll),
						         names[i],
						         forbid ? " (forbid)" : "",
						         r.message);
					if (forbid) {
						assert_int_equal(p.flags, 0);
						assert_true(r.max_link_load <= 1);
					}
					tried++;
					ir_report_fini(&r);
					ir_plan_fini(&p);
				}
				ir_comm_fini(&c);
			}
		}
		print_message("%s: %d verified plans\n", g->name, tried);
		assert_true(tried > 0);
	}
	return claiming;
}

#endif
