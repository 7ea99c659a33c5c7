/*
 * ccplan_lookup.h - plans by name.  A program asks for a plan with a
 * literal name,
 *
 *     ccp_plan_lookup(ctx, "bcast_1k", rank, &plan);
 *
 * and `ccplan scan` (docs/scan.md), run over its sources before or during
 * the build, finds every such name (and every `#pragma ccplan plan(NAME,
 * "file.yaml")`), compiles the plans and either stores them in the plan
 * cache under their names or writes them into one C file holding a
 * `const struct ccp_plan_set ccplan_plans`, linked into the program and
 * registered once:
 *
 *     ccp_plan_register(ctx, &ccplan_plans);
 *
 * ccp_plan_lookup looks in the sets registered on the context first, in
 * the order they were registered, then in the plan cache: the file
 * $CCPLAN_CACHE, else $XDG_CACHE_HOME/ccplan/plans.db, else
 * $HOME/.cache/ccplan/plans.db (the rule of `ccplan cache path`), opened
 * read-only.  A name found nowhere is CCP_ENOTFOUND, and ccp_errmsg()
 * names the plan and where it was looked for.
 *
 * These functions are in the cache loader's library, ccp_runtime_cache
 * (CMake ccplan::runtime_cache, pkg-config ccplan-cache), which needs
 * SQLite; ccp_runtime alone does not.
 */
#ifndef CCPLAN_LOOKUP_H
#define CCPLAN_LOOKUP_H

#include <stdint.h>

#include "ccplan.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ccp_emitted_plan; /* ccplan_emitted.h */

/* Version of the structures below; ccp_plan_register refuses a set of
 * another (CCP_EVERSION). */
#define CCP_PLAN_SET_ABI 1u

/* One named plan of a set. */
struct ccp_plan_entry {
	const char *name;                    /* as the program asks for it */
	const struct ccp_emitted_plan *plan; /* its tables */
};

/* Plans linked into the program (`ccplan scan --emit c`): entries sorted
 * by name (strcmp), each name once. */
struct ccp_plan_set {
	uint32_t abi;                         /* CCP_PLAN_SET_ABI */
	uint32_t count;                       /* entries */
	const struct ccp_plan_entry *entries; /* count of them, NULL if 0 */
};

/* The set `ccplan scan --emit c` writes (its default --symbol). */
extern const struct ccp_plan_set ccplan_plans;

/* Add set (borrowed: it must outlive the context, or be unregistered
 * first) to the sets ctx looks names up in, after those registered
 * before.  Registering a set again does nothing.  CCP_EINVAL for a set
 * with a NULL name or plan, or names out of order or repeated;
 * CCP_EVERSION for another CCP_PLAN_SET_ABI; CCP_ENOMEM. */
CCP_EXTERN int ccp_plan_register(ccp_context *ctx,
                                 const struct ccp_plan_set *set);

/* Remove set from ctx's sets (before unloading the code that holds it);
 * CCP_ENOTFOUND if it is not registered. */
CCP_EXTERN int ccp_plan_unregister(ccp_context *ctx,
                                   const struct ccp_plan_set *set);

/* Load rank's slice of the plan named name (borrowed): from the first
 * registered set that has it (ccp_plan_load_emitted), else from the plan
 * cache (the name's key, then ccp_plan_load_cache).  CCP_ENOTFOUND if no
 * set has it and the cache does not exist or does not know the name (or
 * no longer holds its plan); what the loader returns otherwise. */
CCP_EXTERN int ccp_plan_lookup(ccp_context *ctx, const char *name, int32_t rank,
                               ccp_plan **plan);

#ifdef __cplusplus
}
#endif

#endif
