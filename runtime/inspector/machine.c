/*
 * machine.c - the public machine model (ccplan_machine.h): an ir_machine
 * that ir_machine_check accepted, made from the machine: mapping of YAML
 * text by the compiler's front end (front_parse_machine, so every machine
 * the compiler takes is one here too), or from a topology name and its
 * extents.  The names are those of ir/ir.h's topology table.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "front.h"
#include "internal.h"
#include "machine.h"

void ccp__machine_blank(ir_machine *m, enum ir_topo t)
{
	ir_cost *c = &m->cost;

	memset(m, 0, sizeof *m);
	m->topo = t;
	m->routing = ir_topo_default_routing(t);
	m->ndims = 1;
	for (int i = 0; i < IR_MAX_DIMS; i++)
		m->dims[i] = 1;
	ir_cost_unset(c);
}

/* Copy the checked machine m into a new handle *out of ctx. */
static int machine_new(ccp_context *ctx, const ir_machine *m, ccp_machine **out)
{
	ccp_machine *h = ccp__alloc(ctx, sizeof *h);

	if (!h)
		return ccp__error(ctx, CCP_ENOMEM, "out of memory");
	h->ctx = ctx;
	h->m = *m;
	*out = h;
	ccp__ok(ctx);
	return 0;
}

int ccp_machine_from_yaml(ccp_context *ctx, const char *text, size_t len,
                          ccp_machine **out)
{
	struct diag d;
	ir_machine m;
	int rc;

	if (!ctx || !out)
		return CCP_EINVAL;
	*out = NULL;
	if (!text)
		return ccp__error(ctx, CCP_EINVAL,
		                  "ccp_machine_from_yaml: text is NULL");
	rc = front_parse_machine("machine", text, len, &m, &d);
	if (rc == CCP_ENOMEM)
		return ccp__error(ctx, rc, "out of memory");
	if (rc < 0 && d.line > 0)
		return ccp__error(ctx, rc, "%d:%d: %s", d.line, d.column,
		                  d.message);
	if (rc < 0)
		return ccp__error(ctx, rc, "%s", d.message);
	if (m.place) { /* ranks sit where the transport has them; only
		          reorder chooses a map */
		ir_place_release(m.place);
		return ccp__error(ctx, CCP_EINVAL,
		                  "ccp_machine_from_yaml: a placement map "
		                  "(placement: [...]) is for ccplan compile; "
		                  "the inspector schedules ranks where block "
		                  "or cyclic placement puts them");
	}
	return machine_new(ctx, &m, out);
}

/* The topologies ccp_machine_grid builds: all but hpam, whose two levels
 * of rows and columns are not a list of extents, and graph, which is a
 * list of cables. */
static bool is_grid_topo(int t)
{
	return t >= 0 && t != IR_HPAM && t != IR_GRAPH;
}

/* CCP_EINVAL for an unknown topology name s, with the nearest name or the
 * list of those ccp_machine_grid builds. */
static int unknown_topology(ccp_context *ctx, const char *s)
{
	const char *near = front_nearest(s, ir_topo_names, IR_NTOPOS);
	char list[128] = "";
	size_t at = 0;

	if (near)
		return ccp__error(
		        ctx, CCP_EINVAL,
		        "ccp_machine_grid: unknown topology '%s'; did "
		        "you mean '%s'?",
		        s, near);
	for (int t = 0; t < IR_NTOPOS; t++)
		if (is_grid_topo(t) && at < sizeof list)
			at += (size_t)snprintf(list + at, sizeof list - at,
			                       "%s%s", at ? ", " : "",
			                       ir_topo_names[t]);
	return ccp__error(ctx, CCP_EINVAL,
	                  "ccp_machine_grid: unknown topology '%s'; expected "
	                  "%s",
	                  s, list);
}

int ccp_machine_grid(ccp_context *ctx, const char *topology, int ndims,
                     const int *dims, int ports, ccp_machine **out)
{
	char why[200];
	ir_machine m;
	int t;

	if (!ctx || !out)
		return CCP_EINVAL;
	*out = NULL;
	if (!topology || !dims)
		return ccp__error(ctx, CCP_EINVAL,
		                  "ccp_machine_grid: %s is NULL",
		                  topology ? "dims" : "topology");
	t = ir_name_find(ir_topo_names, IR_NTOPOS, topology);
	if (t < 0)
		return unknown_topology(ctx, topology);
	if (!is_grid_topo(t))
		return ccp__error(ctx, CCP_EINVAL,
		                  "ccp_machine_grid: topology %s is not a list "
		                  "of extents (%s); describe it in YAML "
		                  "(ccp_machine_from_yaml)",
		                  topology,
		                  t == IR_HPAM ? "it has levels of rows and "
		                                 "columns"
		                               : "it is a list of cables");
	ccp__machine_blank(&m, (enum ir_topo)t);
	if (m.topo == IR_MESH || m.topo == IR_TORUS) {
		if (ndims < 1 || ndims > IR_MAX_DIMS)
			return ccp__error(ctx, CCP_EINVAL,
			                  "ccp_machine_grid: a %s has 1 to %d "
			                  "extents, got ndims %d",
			                  topology, IR_MAX_DIMS, ndims);
		m.ndims = ndims;
		for (int i = 0; i < ndims; i++)
			m.dims[i] = dims[i];
	} else if (ndims != 1) {
		return ccp__error(
		        ctx, CCP_EINVAL,
		        "ccp_machine_grid: a %s has one size "
		        "(dims[0], its %s), got ndims %d",
		        topology,
		        m.topo == IR_HYPERCUBE ? "dimension" : "ranks", ndims);
	} else if (m.topo == IR_HYPERCUBE) {
		m.ndims = dims[0];
	} else {
		m.dims[0] = dims[0];
	}
	if (ports == CCP_MACHINE_ALL_PORTS)
		m.ports = IR_PORTS_ALL;
	else if (ports >= 1)
		m.ports = ports;
	else
		return ccp__error(ctx, CCP_EINVAL,
		                  "ccp_machine_grid: ports must be >= 1 or "
		                  "CCP_MACHINE_ALL_PORTS, got %d",
		                  ports);
	why[0] = '\0';
	if (ir_machine_check(&m, why, sizeof why) != 0)
		return ccp__error(ctx, CCP_EINVAL, "ccp_machine_grid: %s: %s",
		                  topology, why);
	return machine_new(ctx, &m, out);
}

int ccp_machine_nranks(const ccp_machine *m)
{
	return m ? (int)m->m.nranks : 0;
}

void ccp_machine_free(ccp_machine *m)
{
	if (!m)
		return;
	ir_graph_release(m->m.graph);
	ccp__free(m->ctx, m, sizeof *m);
}
