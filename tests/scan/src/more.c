/*
 * more.c - test_scan: a second source of the same program.  It includes
 * the same header (its pragma counts once), asks for bcast_1k again, and
 * maps another name to the same YAML with a pragma continued over two
 * lines and a comment: both names get one plan.
 */
#include "ccplan_lookup.h"
#include "scan_names.h"

#ifdef CCPLAN_SCAN
#pragma ccplan plan(bcast_alias, /* the same input */                          \
                    "bcast_1k.yaml")
#endif

int more_plans(ccp_context *ctx, int32_t rank, ccp_plan **plan);

int more_plans(ccp_context *ctx, int32_t rank, ccp_plan **plan)
{
	return ccp_plan_lookup(ctx, BCAST, rank, plan);
}
