/*
 * app.c - test_scan: a program that asks for its plans by name.  The
 * names come as a macro from a header, as literals, through a macro of
 * the call, and one at run time (not a literal: ccplan scan ignores it).
 * test_scan scans it and also links it, so it must build warning-free.
 */
#include "ccplan_lookup.h"
#include "scan_names.h"

#ifdef CCPLAN_SCAN
#pragma ccplan plan(gather64, "../data/gather64.yaml")
#endif

#if 0
#pragma ccplan plan(never, "never/never.yaml")
#endif

#define LOOKUP(name, r, p) ccp_plan_lookup(ctx, name, r, p)

int app_plans(ccp_context *ctx, int32_t rank, const char *other,
              ccp_plan *plans[5]);

int app_plans(ccp_context *ctx, int32_t rank, const char *other,
              ccp_plan *plans[5])
{
	int rc;
	if ((rc = ccp_plan_lookup(ctx, BCAST, rank, &plans[0])) != 0)
		return rc;
	if ((rc = ccp_plan_lookup(ctx, "gather64", rank, &plans[1])) != 0)
		return rc;
	if ((rc = LOOKUP("scatter16", rank, &plans[2])) != 0)
		return rc;
	if ((rc = ccp_plan_lookup(ctx, ALLTOALL, rank, &plans[3])) != 0)
		return rc;
	return ccp_plan_lookup(ctx, other, rank, &plans[4]);
}
