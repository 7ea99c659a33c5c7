/*
 * support.h - what several test programs share: a checked machine built
 * from a topology and its extents, or with its nodes and ports too; the
 * golden file of a bad input.
 * Header-only (each test is its own executable); include after
 * <cmocka.h>.
 */
#ifndef CCP_TEST_SUPPORT_H
#define CCP_TEST_SUPPORT_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* A checked machine with every cost unset (NaN), as the front end leaves
 * them.  mesh/torus: x, y, z extents (0 = unused); hypercube: x = the
 * dimension; switch: x = ranks; hpam: level 1 is x*y, level 2 is z*w;
 * fat tree: the x-ary y-tree (d-mod-k); dragonfly: x groups of y
 * routers of z hosts, w global links per router (absolute, minimal). */
static inline ir_machine tu_machine(enum ir_topo t, int ports, int x, int y,
                                    int z, int w)
{
	ir_machine m;
	char err[256];

	memset(&m, 0, sizeof m);
	m.topo = t;
	m.ports = ports;
	m.dims[0] = m.dims[1] = m.dims[2] = 1;
	ir_cost_unset(&m.cost);
	switch (t) {
	case IR_MESH:
	case IR_TORUS:
		m.dims[0] = x;
		m.dims[1] = y > 0 ? y : 1;
		m.dims[2] = z > 0 ? z : 1;
		m.ndims = z > 0 ? 3 : y > 0 ? 2 : 1;
		m.routing = IR_ROUTE_DIM_ORDER;
		break;
	case IR_HYPERCUBE:
		m.ndims = x;
		m.routing = IR_ROUTE_ECUBE;
		break;
	case IR_SWITCH:
		m.ndims = 1;
		m.dims[0] = x;
		m.routing = IR_ROUTE_DIRECT;
		break;
	case IR_HPAM:
		m.levels[0][0] = x;
		m.levels[0][1] = y;
		m.levels[1][0] = z;
		m.levels[1][1] = w;
		m.ndims = 2;
		m.routing = IR_ROUTE_HPAM_XY;
		break;
	case IR_FAT_TREE:
		m.ndims = y;
		for (int i = 0; i < y; i++) {
			m.dims[i] = x;
			m.dims[IR_MAX_TREE + i] = i ? x : 1;
		}
		m.routing = IR_ROUTE_D_MOD_K;
		break;
	case IR_GRAPH: /* a list of cables: tu_graph builds one */
		fail_msg("tu_machine makes no graph; use tu_graph");
		break;
	case IR_DRAGONFLY:
		m.dims[0] = z;
		m.dims[1] = y;
		m.dims[2] = x;
		m.dims[3] = w;
		m.routing = IR_ROUTE_MINIMAL;
		break;
	}
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	return m;
}

/* A checked dragonfly of g groups, a routers per group, p hosts per
 * router and h global links per router, arranged as arr, with widths
 * {host, local, global} (NULL: 1), rpn ranks per node (block), routing,
 * Valiant's seed and ports per rank; costs unset. */
static inline ir_machine tu_dragonfly(int g, int a, int p, int h,
                                      enum ir_dfly_arrangement arr,
                                      const int *width, int rpn,
                                      enum ir_routing routing, unsigned seed,
                                      int ports)
{
	ir_machine m;
	char err[256];

	memset(&m, 0, sizeof m);
	ir_cost_unset(&m.cost);
	m.topo = IR_DRAGONFLY;
	m.routing = routing;
	m.ports = ports;
	m.ranks_per_node = rpn;
	m.dims[0] = p;
	m.dims[1] = a;
	m.dims[2] = g;
	m.dims[3] = h;
	m.dims[4] = (int)arr;
	m.wrap = seed;
	m.levels[0][0] = width ? width[0] : 1;
	m.levels[0][1] = width ? width[1] : 1;
	m.levels[1][0] = width ? width[2] : 1;
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	return m;
}

/* A checked fat tree XGFT(h; down; up) with width[i] cables per link of
 * level i+1 (NULL: 1), rpn ranks per node (block placement), routing
 * and ports per rank; costs unset. */
static inline ir_machine tu_fat_tree(int h, const int *down, const int *up,
                                     const int *width, int rpn,
                                     enum ir_routing routing, int ports)
{
	ir_machine m;
	char err[256];

	memset(&m, 0, sizeof m);
	ir_cost_unset(&m.cost);
	m.topo = IR_FAT_TREE;
	m.routing = routing;
	m.ports = ports;
	m.ndims = h;
	m.ranks_per_node = rpn;
	for (int i = 0; i < h; i++) {
		m.dims[i] = down[i];
		m.dims[IR_MAX_TREE + i] = up[i];
		m.levels[i / 2][i % 2] = width ? width[i] : 1;
	}
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	return m;
}

/* A checked graph machine of nhosts hosts and nswitches switches joined
 * by the cables (copied), routing and ports per rank, one rank per node;
 * costs unset.  The machine holds the graph's one reference: release it
 * with ir_graph_release(m.graph). */
static inline ir_machine tu_graph(int32_t nhosts, int32_t nswitches,
                                  const struct ir_cable *cables,
                                  uint32_t ncables, enum ir_routing routing,
                                  int ports)
{
	ir_machine m;
	char err[256];
	int rc;
	int64_t bad;

	memset(&m, 0, sizeof m);
	ir_cost_unset(&m.cost);
	m.topo = IR_GRAPH;
	m.routing = routing;
	m.ports = ports;
	m.graph = ir_graph_new(nhosts, nswitches, cables, ncables, &rc, &bad,
	                       err, sizeof err);
	if (!m.graph)
		fail_msg("ir_graph_new: %s", err);
	if (ir_machine_check(&m, err, sizeof err) != 0)
		fail_msg("ir_machine_check: %s", err);
	return m;
}

/* A checked machine of nd extents dims[] (a mesh or torus; also a
 * hypercube of nd dimensions or a switch of dims[0] ranks), wrap mask
 * (0: the topology's default), order (NULL: x, y, z...), rpn ranks per
 * node placed as place, node_ports network ports per node and ports per
 * rank (IR_PORTS_ALL: one per link); costs unset. */
static inline ir_machine tu_grid(enum ir_topo topo, int nd, const int *dims,
                                 unsigned wrap, const uint8_t *order, int rpn,
                                 enum ir_placement place, int node_ports,
                                 int ports)
{
	ir_machine m;
	char err[256];

	memset(&m, 0, sizeof m);
	ir_cost_unset(&m.cost);
	m.topo = topo;
	m.routing = topo == IR_HYPERCUBE ? IR_ROUTE_ECUBE
	            : topo == IR_SWITCH  ? IR_ROUTE_DIRECT
	                                 : IR_ROUTE_DIM_ORDER;
	m.ndims = nd;
	for (int d = 0; d < IR_MAX_DIMS; d++)
		m.dims[d] = d < nd ? dims[d] : 1;
	m.wrap = wrap;
	if (order)
		memcpy(m.order, order, (size_t)nd);
	m.ranks_per_node = rpn;
	m.placement = place;
	m.node_ports = node_ports;
	m.ports = ports;
	if (ir_machine_check(&m, err, sizeof err) != 0)
		fail_msg("tu_grid: %s", err);
	return m;
}

/* m with nodes of rpn ranks placed as pl, each node with np network
 * ports (IR_PORTS_ALL: one per link); checked again. */
static inline ir_machine tu_with_nodes(ir_machine m, int rpn,
                                       enum ir_placement pl, int np)
{
	char err[256];

	m.ranks_per_node = rpn;
	m.placement = pl;
	m.node_ports = np;
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	return m;
}

/* A communication of coll from root with bytes per block (one segment);
 * everything else zero. */
static inline ir_comm tu_comm(enum ir_coll coll, int32_t root, int64_t bytes)
{
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = coll;
	c.root = root;
	c.bytes = bytes;
	c.segments = 1;
	return c;
}

/* A golden NAME.err of the bad-input catalogue (tests/bad): its first
 * line, the message, into msg (cap bytes), and the exit status of its
 * "exit: N" line into *status; false if either is missing. */
static inline bool tu_read_golden(const char *path, char *msg, size_t cap,
                                  int *status)
{
	FILE *f = fopen(path, "r");
	char line[64];
	bool ok;

	if (!f)
		return false;
	ok = fgets(msg, (int)cap, f) != NULL;
	*status = -1;
	while (ok && fgets(line, sizeof line, f))
		if (sscanf(line, "exit: %d", status) == 1)
			break;
	fclose(f);
	if (ok)
		msg[strcspn(msg, "\r\n")] = '\0';
	return ok && *status >= 0;
}

/* Add the transfer src -> dst carrying alltoall block (src, dst). */
static inline void tu_add_own(ir_plan *p, int32_t src, int32_t dst)
{
	ir_block b = {src, dst};
	assert_int_equal(ir_plan_add(p, src, dst, &b, 1, 0), 0);
}

/* Bytes plan p puts on links of class cls: every transfer's bytes times
 * the links of that class on its path (ir_path: the one it takes). */
static inline uint64_t tu_class_bytes(const ir_plan *p, enum ir_link_class cls)
{
	const ir_machine *m = &p->machine;
	uint64_t *l = malloc((size_t)ir_route_max(m) * sizeof *l), sum = 0;
	assert_non_null(l);
	for (uint32_t t = 0; t < p->ntransfers; t++) {
		const ir_transfer *x = &p->transfers[t];
		int h = ir_path(m, x->src, x->dst, l);
		for (int k = 0; k < h; k++)
			if (ir_link_class(m, l[k]) == cls)
				sum += (uint64_t)x->bytes;
	}
	free(l);
	return sum;
}

#endif
