/*
 * hpam.h - the HPAM generators' partition search, exported for tests and
 * for explain.  The prices it searches with are the caller's
 * (sch_options.hpam_price; the compiler gives model_hpam_price, 000's
 * closed forms, eqs. 3-14).
 */
#ifndef CCP_HPAM_H
#define CCP_HPAM_H

#include "sched.h"

/* The p2 x q2 partition the generator will use for c on m, and its price
 * in microseconds by o->hpam_price.  0; CCP_ENOTAPPLY when no partition
 * has a price (not an HPAM machine, not a broadcast, scatter or gather,
 * the root outside level 1); CCP_EINVAL when o gives no prices, or the
 * error the pricing returned (CCP_EINVAL for a negative cost).  m, c and
 * o are borrowed; *t_us is INFINITY on failure. */
int sch_hpam_partition(const ir_machine *m, const ir_comm *c, bool multicast,
                       const struct sch_options *o, int *p2, int *q2,
                       double *t_us);

#endif
