/* edn_mesh.h - the EDN mesh broadcast's step counts, for tests and benches. */
#ifndef CCP_EDN_MESH_H
#define CCP_EDN_MESH_H

#include "ir.h"

/* The startup steps and tree height of an EDN broadcast from root on m
 * (the plan's phase count is their sum, 001 Tables 3.1-3.5).  0 or a
 * CCP_E* code. */
int sch__edn_steps(const ir_machine *m, int32_t root, int *startup,
                   int *height);

/* The fewest and most startup steps over every source of m, and the
 * tree height, from one build of the hierarchy (sch__edn_steps for every
 * root would rebuild it each time).  0 or a CCP_E* code. */
int sch__edn_step_range(const ir_machine *m, int *min_startup, int *max_startup,
                        int *height);

#endif
