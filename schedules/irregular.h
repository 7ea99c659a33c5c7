/*
 * irregular.h - scheduling an irregular all-to-many pattern (a sparse
 * n x n matrix COM of bytes) into phases: the library form, callable at
 * run time by an irregular-problem runtime's inspector as well as by the
 * compiler.  The algorithms are those of 004 (AC, LP, RS_N, RS_NL), an
 * optimal node-contention scheduler (bipartite edge colouring: exactly
 * Delta phases), a link-aware scheduler built on it, and a scheduler that
 * groups messages of similar size (004 section 2.1 cost tau + M*phi).
 */
#ifndef CCP_IRREGULAR_H
#define CCP_IRREGULAR_H

#include "ir.h"

enum sch_irr_alg {
	SCH_IRR_AC,         /* one phase with every message (004 Fig. 1) */
	SCH_IRR_LP,         /* XOR permutations, n-1 phases (004 Fig. 2) */
	SCH_IRR_RS_N,       /* randomised, no node contention (004 Fig. 3) */
	SCH_IRR_RS_NL,      /* randomised, no node or link contention, pairwise
	                       exchanges first (004 Fig. 4) */
	SCH_IRR_COLOR,      /* optimal node scheduler: Delta phases */
	SCH_IRR_LINK_AWARE, /* colouring, then link conflicts removed */
	SCH_IRR_SIZED       /* phases grouped by message size */
};

/* Schedule matrix x (n must equal m->nranks) on machine m with algorithm
 * alg; seed drives every random choice, so the same seed gives the same
 * plan on any machine.  out is initialised here (owned by the caller,
 * ir_plan_fini) and holds one transfer per message; it still has to be
 * verified.  With several ranks per node, phases that would exceed a
 * node's network ports (node_ports) are split, except AC's, which
 * declares its contention.  Returns 0, CCP_EINVAL or CCP_ENOMEM. */
int sch_irregular(const ir_machine *m, const ir_matrix *x,
                  enum sch_irr_alg alg, uint64_t seed, ir_plan *out);

/* Name of an algorithm as written in the YAML ("rs_nl"). */
const char *sch_irregular_name(enum sch_irr_alg alg);

#endif
