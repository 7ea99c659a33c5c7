/*
 * hpam.h - the HPAM generators' partition search, exported for tests and
 * for explain.  The cost model it searches with is model/'s
 * (model_hpam_closed, 000 eqs. 3-14).
 */
#ifndef CCP_HPAM_H
#define CCP_HPAM_H

#include "ir.h"

/* The p2 x q2 partition the generator will use for c on m, and its time
 * in microseconds by 000's closed forms, every HPAM cost m leaves unset
 * taken from preset hpam-q2 (000 Table 1, Q = 2).  0; CCP_ENOTAPPLY when
 * no partition applies (not an HPAM machine, not a broadcast, scatter or
 * gather, the root outside level 1); CCP_EINVAL when a cost m sets is
 * negative.  m and c are borrowed; *t_us is INFINITY on failure. */
int sch_hpam_partition(const ir_machine *m, const ir_comm *c, bool multicast,
                       int *p2, int *q2, double *t_us);

#endif
