/*
 * irregular_int.h - entry points shared by the irregular schedulers
 * (irregular.c dispatches; coloring.c holds the optimal node scheduler,
 * the link-aware one and the size-grouping one).  Each appends phases to
 * a plan that sch_irregular has initialised with the matrix, and sets the
 * plan's contention flags to what its result may contain.
 */
#ifndef CCP_IRREGULAR_INT_H
#define CCP_IRREGULAR_INT_H

#include "irregular.h"

int sch__irr_color(const ir_machine *m, const ir_matrix *x, uint64_t seed,
                   ir_plan *p);
int sch__irr_link_aware(const ir_machine *m, const ir_matrix *x,
                        uint64_t seed, ir_plan *p);
/* link_aware keeping its resource lists whole up to store entries
 * (FF_STORE in coloring.c), run-coded past them up to runs words
 * (FF_RUNS), and routing again past those: for the tests, which check
 * that the three give the same plan. */
int sch__irr_link_aware_kept(const ir_machine *m, const ir_matrix *x,
                             uint64_t seed, uint64_t store, uint64_t runs,
                             ir_plan *p);
int sch__irr_sized(const ir_machine *m, const ir_matrix *x, uint64_t seed,
                   ir_plan *p);

#endif
