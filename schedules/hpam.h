/*
 * hpam.h - the HPAM generators' cost model (000 eqs. 3-14) and partition
 * search, exported for tests and for explain.
 */
#ifndef CCP_HPAM_H
#define CCP_HPAM_H

#include "ir.h"

/* The p2 x q2 partition the generator will use for c on m, and its
 * modelled time in microseconds; CCP_ENOTAPPLY when it does not apply. */
int sch_hpam_partition(const ir_machine *m, const ir_comm *c, bool multicast,
                       int *p2, int *q2, double *t_us);
/* The model's time for a given partition, NAN if the algorithm cannot
 * build it. */
double sch_hpam_model(const ir_machine *m, const ir_comm *c, bool multicast,
                      int p2, int q2);

#endif
