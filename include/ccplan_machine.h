/*
 * ccplan_machine.h - a machine model to schedule for: the topology, its
 * size, the routing, the ports of a rank and the costs, as the compiler's
 * input describes them (docs/input-format.md, "machine").  The inspector
 * (ccplan_inspector.h) schedules for one (ccp_inspect_options.machine).
 *
 *     const char *y = "machine: {topology: mesh, dims: [4, 4]}";
 *     ccp_machine *a, *b;
 *     ccp_machine_from_yaml(ctx, y, strlen(y), &a);
 *     ccp_machine_grid(ctx, "mesh", 2, (int[]){4, 4}, 1, &b);
 *     ccp_inspect_options o = {.machine = a};
 *     ...
 *     ccp_machine_free(a);  ccp_machine_free(b);
 *
 * ccp_machine_from_yaml reads the machine: mapping with the compiler's own
 * front end, so every machine the compiler takes reaches the inspector
 * with no new function; ccp_machine_grid builds the common regular
 * machines without YAML.  The functions are in the inspector's library,
 * ccp_inspector (CMake ccplan::inspector, pkg-config ccplan-inspector).
 */
#ifndef CCPLAN_MACHINE_H
#define CCPLAN_MACHINE_H

#include <stddef.h>

#include "ccplan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A checked machine model; immutable once made, so one may be shared by
 * many inspections (and threads). */
typedef struct ccp_machine ccp_machine;

/* ports of ccp_machine_grid: one per link of a rank (every message of a
 * rank may go in the same phase), as a machine: mapping without ports */
#define CCP_MACHINE_ALL_PORTS (-1)

/* Read a machine from YAML text (len bytes, borrowed; no NUL needed): a
 * mapping whose one key is machine,
 * e.g. "machine:\n  topology: mesh\n  dims: [4, 4]\n", the machine: of a
 * compiler input copied as it is.  0 with *out the machine (the caller's,
 * ccp_machine_free); else *out is NULL and the code is CCP_EPARSE for a
 * problem in the text, with ccp_errmsg(ctx) "line:column: message",
 * CCP_EINVAL for a NULL argument, or CCP_ENOMEM. */
CCP_EXTERN int ccp_machine_from_yaml(ccp_context *ctx, const char *text,
                                     size_t len, ccp_machine **out);

/* A regular machine without YAML: topology "mesh" or "torus" of ndims
 * (1 to 8) extents dims[0..ndims) (borrowed), "hypercube" of ndims = 1
 * and dims[0] its dimension n (2^n ranks), or "switch" of ndims = 1 and
 * dims[0] ranks.  ports: sends (and, separately, receives) per rank and
 * phase, >= 1, or CCP_MACHINE_ALL_PORTS.  The topology's default routing
 * and no costs, one rank per node (an hpam machine, another routing,
 * wrap or dimension order, several ranks per node or costs: from YAML).
 * 0 with *out the machine (ccp_machine_free); else *out is NULL and the
 * code is CCP_EINVAL (an unknown topology, a bad size or port count;
 * ccp_errmsg says which) or CCP_ENOMEM. */
CCP_EXTERN int ccp_machine_grid(ccp_context *ctx, const char *topology,
                                int ndims, const int *dims, int ports,
                                ccp_machine **out);

/* The number of ranks of machine m. */
CCP_EXTERN int ccp_machine_nranks(const ccp_machine *m);

/* Release m (NULL is fine). */
CCP_EXTERN void ccp_machine_free(ccp_machine *m);

#ifdef __cplusplus
}
#endif

#endif
