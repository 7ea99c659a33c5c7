/* test_scan: plans whose YAML input cannot be found. */
#include "ccplan_lookup.h"

#pragma ccplan plan(lost, "lost/lost.yaml")

int missing(ccp_context *ctx, ccp_plan **p);
int missing(ccp_context *ctx, ccp_plan **p)
{
	return ccp_plan_lookup(ctx, "nowhere", 0, p) +
	       ccp_plan_lookup(ctx, "lost", 0, p);
}
