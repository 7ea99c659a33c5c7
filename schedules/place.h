/*
 * place.h - placement: where each rank of a communication pattern should
 * sit on a machine so that a direct plan of it needs few phases
 * (docs/placement.md).
 *
 * The phase bound of a direct plan is the verifier's (ir_lower_bound):
 * the busiest rank's or node's degree over its ports, and the busiest
 * link's messages over its capacity under the machine's routing.  The
 * degree part does not depend on where ranks sit, except through which
 * ranks share a node; the link part does.  sch_place looks for a map
 * that lowers that bound, then the hops the messages travel.
 */
#ifndef CCP_SCHED_PLACE_H
#define CCP_SCHED_PLACE_H

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

/* What a placement achieved, against the machine's own placement (the
 * one the input gives: block, cyclic or a map; "identity" below). */
struct sch_place_stats {
	uint32_t bound_before; /* ir_lower_bound's lb_phases, identity */
	uint32_t bound_after;  /* the same for the placement returned */
	uint32_t link_before;  /* its link term (lb_link), identity */
	uint32_t link_after;   /* the same for the placement returned */
	uint32_t degree;       /* its degree term (lb_degree) after */
	uint64_t hops_before;  /* hops of every message, identity */
	uint64_t hops_after;   /* the same for the placement returned */
	uint32_t swaps;        /* swaps the refinement kept */
	bool kept_identity;    /* the search found nothing better */
};

/* Find where each of m's ranks should sit for the pattern x (x->n ==
 * m->nranks): node[r] receives the node of rank r, every node getting
 * ranks_per_node ranks, the form ir_place_from_nodes and a `placement:`
 * map take.  Ranks that exchange the most messages are grouped onto
 * nodes first; the groups are then mapped onto the network by recursive
 * bisection of their communication graph aligned with the machine's
 * own bisections, and refined by swaps that lower the most loaded link
 * (Hoefler and Snir, "Generic topology mapping strategies", 2011).  The
 * result is never worse than m's own placement by (phase bound, hops):
 * when it would be, m's own is returned.  Deterministic for a seed.  m
 * and x borrowed; node holds m->nranks entries, the caller's; st may be
 * NULL.  0, CCP_EINVAL (message in err) if x does not fit m, CCP_ENOMEM. */
int sch_place(const ir_machine *m, const ir_matrix *x, uint64_t seed,
              int32_t *node, struct sch_place_stats *st, char *err,
              size_t errlen);

/* The phase bound (ir_lower_bound's lb_phases, with its link term in
 * *link when link is not NULL) and the hops of every message of x when
 * rank r sits on node[r] of m.  Used by sch_place, its tests and the
 * benchmark, so all three judge a placement by the verifier's rules. */
int sch_place_eval(const ir_machine *m, const ir_matrix *x, const int32_t *node,
                   uint32_t *bound, uint32_t *link, uint64_t *hops);

#endif
