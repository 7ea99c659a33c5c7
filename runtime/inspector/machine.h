/*
 * machine.h - what a ccp_machine (ccplan_machine.h) holds, for the
 * inspector, which schedules for the ir_machine inside.
 */
#ifndef CCP_INSPECTOR_MACHINE_H
#define CCP_INSPECTOR_MACHINE_H

#include "ccplan_machine.h"
#include "ir.h"

struct ccp_machine {
	ccp_context *ctx; /* whose allocator it was made with */
	ir_machine m;     /* checked: ir_machine_check accepted it */
};

/* Reset m to a machine of topology t with its default routing, one
 * dimension of extent 1 (dims 1), all ports, and no costs given (NaN, as
 * an input without machine.cost): what the caller then sizes and checks.
 * Shared by ccp_machine_grid and the inspector's default switch. */
void ccp__machine_blank(ir_machine *m, enum ir_topo t);

#endif
