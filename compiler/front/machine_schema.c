/*
 * machine_schema.c - the machine mapping of an input (docs/input-format.md,
 * "machine"): its topology and size (dims, dimension, levels, ranks), the
 * routing, the ports and the cost (a preset and its overrides), read from
 * the node tree (tree.h) into an ir_machine that ir_machine_check accepts
 * (a dragonfly's shape is its own mapping, `dragonfly:`);
 * a message of ir_machine_check is placed at the value it names.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "tree.h"

/* ---- machine ---------------------------------------------------------- */

enum {
	MK_TOPOLOGY,
	MK_DIMS,
	MK_DIMENSION,
	MK_RANKS,
	MK_LEVELS,
	MK_ROUTING,
	MK_PORTS,
	MK_COST,
	MK_WRAP,
	MK_ORDER,
	MK_RANKS_PER_NODE,
	MK_PLACEMENT,
	MK_NODE_PORTS,
	MK_HOSTS,
	MK_GRAPH,
	MK_DRAGONFLY,
	MK_N
};
static const char *const machine_keys[MK_N] = {
        "topology",  "dims",           "dimension", "ranks",
        "levels",    "routing",        "ports",     "cost",
        "wrap",      "order",          "ranks_per_node",
        "placement", "node_ports",     "hosts",     "graph",
        "dragonfly",
};

/* The key that gives the size of each topology. */
static const int shape_key[] = {
        [IR_MESH] = MK_DIMS,           [IR_TORUS] = MK_DIMS,
        [IR_HYPERCUBE] = MK_DIMENSION, [IR_HPAM] = MK_LEVELS,
        [IR_SWITCH] = MK_RANKS,        [IR_FAT_TREE] = MK_LEVELS,
        [IR_GRAPH] = MK_GRAPH,
        [IR_DRAGONFLY] = MK_DRAGONFLY,
};

/* The nodes of the machine mapping, kept for placing the messages of
 * ir_machine_check. */
struct machine_nodes {
	uint32_t map;               /* the machine mapping */
	struct keys k;              /* its keys */
	uint32_t dims[IR_MAX_DIMS]; /* dims entries */
	uint32_t wrap[IR_MAX_DIMS]; /* wrap entries */
	uint32_t level[2][2];       /* levels[l] rows, cols values */
};

/* mesh/torus: dims, 1 to 3 extents, product at most IR_MAX_RANKS. */
static int parse_dims(struct ctx *x, uint32_t v, ir_machine *m,
                      struct machine_nodes *mn)
{
	char b[64], path[64];
	int64_t prod = 1, e;
	int rc;

	if (x->v[v].kind != YN_SEQ || x->v[v].a < 1 ||
	    x->v[v].a > IR_MAX_DIMS) {
		if (x->v[v].kind == YN_SEQ)
			snprintf(b, sizeof b, "%" PRIu32 " %s", x->v[v].a,
			         x->v[v].a == 1 ? "entry" : "entries");
		return tree_err_at(x, v,
		                   "machine.dims: expected 1 to %d extents "
		                   "([x], [x, y], [x, y, z] ... [x, y, z, a, "
		                   "b, c, d, e]), got %s",
		                   IR_MAX_DIMS,
		                   x->v[v].kind == YN_SEQ
		                           ? b
		                           : tree_desc(x, v, b, sizeof b));
	}
	m->ndims = (int)x->v[v].a;
	for (int i = 0; i < IR_MAX_DIMS; i++)
		m->dims[i] = 1;
	for (int i = 0; i < m->ndims; i++) {
		uint32_t c = child(x, v, (uint32_t)i);
		mn->dims[i] = c;
		snprintf(path, sizeof path, "machine.dims[%d]", i);
		rc = tree_get_int(x, c, path, 1, IR_MAX_RANKS, "(IR_MAX_RANKS)",
		                  &e);
		if (rc < 0)
			return rc;
		m->dims[i] = (int)e;
		prod *= e;
		if (prod > IR_MAX_RANKS)
			return tree_err_at(
			        x, v,
			        "machine.dims: the machine would have more "
			        "than %d ranks (IR_MAX_RANKS)",
			        IR_MAX_RANKS);
	}
	return 0;
}

enum { LK_ROWS, LK_COLS, LK_C_SEND, LK_C_RECV, LK_COPY, LK_N };
static const char *const level_keys[LK_N] = {
        "rows", "cols", "c_send", "c_recv", "copy",
};

/* hpam: levels, two mappings {rows, cols, c_send, c_recv, copy}. */
static int parse_levels(struct ctx *x, uint32_t v, ir_machine *m,
                        struct machine_nodes *mn)
{
	char b[64], path[64], kp[96];
	struct keys k = {level_keys, LK_N, {0}, {0}};
	double *costs[3];
	int64_t e;
	int rc;

	if (x->v[v].kind != YN_SEQ || x->v[v].a != 2) {
		if (x->v[v].kind == YN_SEQ)
			snprintf(b, sizeof b, "%" PRIu32 " %s", x->v[v].a,
			         x->v[v].a == 1 ? "entry" : "entries");
		return tree_err_at(
		        x, v,
		        "machine.levels: expected 2 levels, level 1 then "
		        "level 2, each {rows: R, cols: C}; got %s",
		        x->v[v].kind == YN_SEQ ? b
		                               : tree_desc(x, v, b, sizeof b));
	}
	for (int l = 0; l < 2; l++) {
		uint32_t c = child(x, v, (uint32_t)l);
		snprintf(path, sizeof path, "machine.levels[%d]", l);
		rc = tree_map_keys(x, c, path, &k);
		if (rc < 0)
			return rc;
		for (int j = LK_ROWS; j <= LK_COLS; j++) {
			if (k.val[j] == NONE)
				return tree_missing(x, c, path, level_keys[j],
				                    NULL);
			snprintf(kp, sizeof kp, "%s.%s", path, level_keys[j]);
			rc = tree_get_int(x, k.val[j], kp, 1, IR_MAX_RANKS,
			                  "(IR_MAX_RANKS)", &e);
			if (rc < 0)
				return rc;
			m->levels[l][j] = (int)e;
			mn->level[l][j] = k.val[j];
		}
		costs[0] = &m->cost.c_send[l];
		costs[1] = &m->cost.c_recv[l];
		costs[2] = &m->cost.copy[l];
		for (int j = LK_C_SEND; j < LK_N; j++) {
			if (k.val[j] == NONE)
				continue;
			snprintf(kp, sizeof kp, "%s.%s", path, level_keys[j]);
			rc = tree_get_num(x, k.val[j], kp,
			                  costs[j - LK_C_SEND]);
			if (rc < 0)
				return rc;
		}
	}
	m->ndims = 2;
	return 0;
}

enum { TK_DOWN, TK_UP, TK_WIDTH, TK_N };
static const char *const tree_level_keys[TK_N] = {"down", "up", "width"};
enum { KN_K, KN_N, KN_N_KEYS };
static const char *const kary_keys[KN_N_KEYS] = {"k", "n"};

/* A k-ary n-tree, `levels: {k: K, n: N}`: XGFT(n; K, .., K; 1, K, .., K),
 * hosts with one uplink and K uplinks at every switch below the top. */
static int parse_kary(struct ctx *x, uint32_t v, ir_machine *m,
                      struct machine_nodes *mn)
{
	struct keys k = {kary_keys, KN_N_KEYS, {0}, {0}};
	int64_t e[KN_N_KEYS];
	int rc = tree_map_keys(x, v, "machine.levels", &k);

	if (rc < 0)
		return rc;
	for (int j = 0; j < KN_N_KEYS; j++) {
		char kp[32];
		if (k.val[j] == NONE)
			return tree_missing(x, v, "machine.levels",
			                    kary_keys[j],
			                    " (a k-ary n-tree: {k: K, n: N})");
		snprintf(kp, sizeof kp, "machine.levels.%s", kary_keys[j]);
		rc = j == KN_K ? tree_get_int(x, k.val[j], kp, 1, IR_MAX_RANKS,
		                              "(IR_MAX_RANKS)", &e[j])
		               : tree_get_int(x, k.val[j], kp, 1, IR_MAX_TREE,
		                              "(switch levels)", &e[j]);
		if (rc < 0)
			return rc;
	}
	m->ndims = (int)e[KN_N];
	for (int i = 0; i < m->ndims; i++) {
		m->dims[i] = (int)e[KN_K];
		m->dims[IR_MAX_TREE + i] = i ? (int)e[KN_K] : 1;
		mn->dims[i] = mn->dims[IR_MAX_TREE + i] = k.val[KN_K];
	}
	return 0;
}

/* fat_tree: levels, 1 to IR_MAX_TREE mappings {down, up, width} from the
 * leaf switches up (XGFT), or the k-ary n-tree shorthand {k, n}. */
static int parse_tree(struct ctx *x, uint32_t v, ir_machine *m,
                      struct machine_nodes *mn)
{
	char b[64], path[64], kp[96];
	struct keys k = {tree_level_keys, TK_N, {0}, {0}};
	int64_t e;
	int rc;

	if (x->v[v].kind == YN_MAP)
		return parse_kary(x, v, m, mn);
	if (x->v[v].kind != YN_SEQ || x->v[v].a < 1 ||
	    x->v[v].a > IR_MAX_TREE) {
		if (x->v[v].kind == YN_SEQ)
			snprintf(b, sizeof b, "%" PRIu32 " %s", x->v[v].a,
			         x->v[v].a == 1 ? "entry" : "entries");
		return tree_err_at(
		        x, v,
		        "machine.levels: expected 1 to %d switch levels from "
		        "the leaves up, each {down: M, up: W, width: C}, or "
		        "{k: K, n: N} for a k-ary n-tree; got %s",
		        IR_MAX_TREE,
		        x->v[v].kind == YN_SEQ ? b
		                               : tree_desc(x, v, b, sizeof b));
	}
	m->ndims = (int)x->v[v].a;
	for (int l = 0; l < m->ndims; l++) {
		uint32_t c = child(x, v, (uint32_t)l);
		int *into[TK_N] = {&m->dims[l], &m->dims[IR_MAX_TREE + l],
		                   &m->levels[l / 2][l % 2]};
		uint32_t *at[TK_N] = {&mn->dims[l], &mn->dims[IR_MAX_TREE + l],
		                      &mn->level[l / 2][l % 2]};
		snprintf(path, sizeof path, "machine.levels[%d]", l);
		rc = tree_map_keys(x, c, path, &k);
		if (rc < 0)
			return rc;
		for (int j = 0; j < TK_N; j++) {
			if (k.val[j] == NONE && j != TK_WIDTH)
				return tree_missing(x, c, path,
				                    tree_level_keys[j], NULL);
			if (k.val[j] == NONE) {
				*into[j] = 1;
				continue;
			}
			snprintf(kp, sizeof kp, "%s.%s", path,
			         tree_level_keys[j]);
			rc = tree_get_int(x, k.val[j], kp, 1, IR_MAX_RANKS,
			                  "(IR_MAX_RANKS)", &e);
			if (rc < 0)
				return rc;
			*into[j] = (int)e;
			*at[j] = k.val[j];
		}
	}
	return 0;
}

enum {
	DK_GROUPS,
	DK_ROUTERS,
	DK_HOSTS,
	DK_GLOBAL,
	DK_ARRANGEMENT,
	DK_HOST_WIDTH,
	DK_LOCAL_WIDTH,
	DK_GLOBAL_WIDTH,
	DK_SEED,
	DK_N
};
static const char *const dfly_keys[DK_N] = {
        "groups",       "routers",     "hosts_per_router",
        "global_per_router", "arrangement", "host_width",
        "local_width",  "global_width", "seed",
};

/* dragonfly: {groups, routers, hosts_per_router, global_per_router,
 * arrangement, host_width, local_width, global_width, seed}, the first
 * four required; into the fields ir.h gives a dragonfly (dims, levels,
 * wrap = seed).  ir_machine_check checks how they combine. */
static int parse_dfly(struct ctx *x, uint32_t v, ir_machine *m,
                      struct machine_nodes *mn)
{
	static const int dim_of[DK_ARRANGEMENT] = {2, 1, 0, 3};
	static const int64_t most[DK_ARRANGEMENT] = {
	        IR_MAX_DFLY_GROUPS, IR_MAX_DFLY, IR_MAX_RANKS, IR_MAX_DFLY};
	static const char *const limit[DK_ARRANGEMENT] = {
	        "(IR_MAX_DFLY_GROUPS)", "(IR_MAX_DFLY)", "(IR_MAX_RANKS)",
	        "(IR_MAX_DFLY)"};
	struct keys k = {dfly_keys, DK_N, {0}, {0}};
	int *width[3] = {&m->levels[0][0], &m->levels[0][1],
	                 &m->levels[1][0]};
	uint32_t *wnode[3] = {&mn->level[0][0], &mn->level[0][1],
	                      &mn->level[1][0]};
	char kp[64];
	int64_t e;
	int rc, arr;

	if (x->v[v].kind != YN_MAP) {
		char b[64];
		return tree_err_at(x, v,
		                   "machine.dragonfly: expected a mapping "
		                   "{groups: G, routers: A, hosts_per_router: "
		                   "P, global_per_router: H}, got %s",
		                   tree_desc(x, v, b, sizeof b));
	}
	if ((rc = tree_map_keys(x, v, "machine.dragonfly", &k)) < 0)
		return rc;
	for (int j = 0; j < DK_ARRANGEMENT; j++) {
		if (k.val[j] == NONE)
			return tree_missing(x, v, "machine.dragonfly",
			                    dfly_keys[j], NULL);
		snprintf(kp, sizeof kp, "machine.dragonfly.%s", dfly_keys[j]);
		rc = tree_get_int(x, k.val[j], kp, 1, most[j], limit[j], &e);
		if (rc < 0)
			return rc;
		m->dims[dim_of[j]] = (int)e;
		mn->dims[dim_of[j]] = k.val[j];
	}
	m->dims[4] = IR_DFLY_ABSOLUTE;
	if (k.val[DK_ARRANGEMENT] != NONE) {
		rc = tree_get_enum(x, k.val[DK_ARRANGEMENT],
		                   "machine.dragonfly.arrangement",
		                   "arrangement", ir_dfly_arrangement_names,
		                   IR_NDFLY_ARRANGEMENTS, &arr);
		if (rc < 0)
			return rc;
		m->dims[4] = arr;
		mn->dims[4] = k.val[DK_ARRANGEMENT];
	}
	for (int j = 0; j < 3; j++) {
		uint32_t c = k.val[DK_HOST_WIDTH + j];
		*width[j] = 1;
		if (c == NONE)
			continue;
		snprintf(kp, sizeof kp, "machine.dragonfly.%s",
		         dfly_keys[DK_HOST_WIDTH + j]);
		rc = tree_get_int(x, c, kp, 1, IR_MAX_RANKS, "(IR_MAX_RANKS)",
		                  &e);
		if (rc < 0)
			return rc;
		*width[j] = (int)e;
		*wnode[j] = c;
	}
	m->levels[1][1] = 1;
	for (int i = 5; i < IR_MAX_DIMS; i++)
		m->dims[i] = 1;
	m->wrap = 0;
	if (k.val[DK_SEED] != NONE) {
		rc = tree_get_int(x, k.val[DK_SEED], "machine.dragonfly.seed", 0,
		                  UINT32_MAX, "(2^32 - 1)", &e);
		if (rc < 0)
			return rc;
		m->wrap = (unsigned)e;
	}
	m->ndims = 3;
	return 0;
}

enum {
	CK_PRESET,
	CK_ALPHA,
	CK_BETA,
	CK_HOP,
	CK_GAMMA,
	CK_BETA_SAT,
	CK_TAU,
	CK_PHI,
	CK_LAMBDA,
	CK_COMBINE,
	CK_SHM_ALPHA,
	CK_SHM_BETA,
	CK_N
};
static const char *const cost_keys[CK_N] = {
        "preset",   "alpha",   "beta",      "hop",      "gamma",
        "beta_sat", "tau",     "phi",       "lambda",   "combine",
        "shm_alpha", "shm_beta",
};

/* A preset name must be one of model/cost.c's. */
static int check_preset(struct ctx *x, uint32_t v, const char *name)
{
	size_t n = 0;
	const struct model_preset *p = model_preset_list(&n);
	const char *names[128];
	char b[64];
	if (model_preset_find(name))
		return 0;
	if (n > 128)
		n = 128;
	for (size_t i = 0; i < n; i++)
		names[i] = p[i].name;
	const char *near = front_nearest(name, names, n);
	if (near)
		return tree_err_at(
		        x, v,
		        "machine.cost.preset: unknown preset %s; did you "
		        "mean '%s'?",
		        tree_desc(x, v, b, sizeof b), near);
	return tree_err_at(
	        x, v,
	        "machine.cost.preset: unknown preset %s (ccplan help "
	        "presets lists them)",
	        tree_desc(x, v, b, sizeof b));
}

/* cost: microseconds, finite and >= 0; a key not given stays NaN.  A
 * preset fills the fields the input leaves unset. */
static int parse_cost(struct ctx *x, uint32_t v, ir_cost *c)
{
	struct keys k = {cost_keys, CK_N, {0}, {0}};
	double *field[CK_N] = {
	        NULL,         &c->alpha,     &c->beta,     &c->hop,
	        &c->gamma,    &c->beta_sat,  &c->tau,      &c->phi,
	        &c->lambda,   &c->combine,   &c->shm_alpha, &c->shm_beta,
	};
	char path[64];
	int rc = tree_map_keys(x, v, "machine.cost", &k);

	if (rc < 0)
		return rc;
	if (k.val[CK_PRESET] != NONE) {
		rc = tree_get_name(x, k.val[CK_PRESET], "machine.cost.preset",
		                   c->preset);
		if (rc < 0)
			return rc;
		if ((rc = check_preset(x, k.val[CK_PRESET], c->preset)) < 0)
			return rc;
	}
	for (int j = CK_ALPHA; j < CK_N; j++) {
		if (k.val[j] == NONE)
			continue;
		snprintf(path, sizeof path, "machine.cost.%s", cost_keys[j]);
		rc = tree_get_num(x, k.val[j], path, field[j]);
		if (rc < 0)
			return rc;
	}
	/* the preset fills what the user left unset (model/cost.c) */
	if (c->preset[0])
		model_preset_apply(c, c->preset);
	return 0;
}

/* Other spellings of a routing: the dimension-order routing of a 1-2D
 * grid is also "xy", of a 3D grid "xyz" (X, then Y, then Z). */
static const char *routing_alias(const ir_machine *m, enum ir_routing r)
{
	if (r != IR_ROUTE_DIM_ORDER)
		return NULL;
	return m->ndims == 3 ? "xyz" : m->ndims <= 2 ? "xy" : NULL;
}

/* routing: one of the routings the topology allows (ir.h's table), by
 * name or by its alias; sets m->routing. */
static int parse_routing(struct ctx *x, uint32_t v, ir_machine *m)
{
	const char *ok[2 * IR_NROUTINGS], *all[IR_NROUTINGS + 2];
	enum ir_routing okr[2 * IR_NROUTINGS];
	size_t count = 0, nall = 0;
	unsigned allowed = ir_topo_routings(m->topo);
	const char *s, *near;
	char b[64], l[128], shape[64];
	int rc = tree_get_str(x, v, "machine.routing", 64, &s);

	if (rc < 0)
		return rc;
	all[nall++] = "xy";
	all[nall++] = "xyz";
	for (int r = 0; r < IR_NROUTINGS; r++) {
		all[nall++] = ir_routing_names[r];
		if (!(allowed & (1u << r)))
			continue;
		const char *alias = routing_alias(m, (enum ir_routing)r);
		if (alias) {
			okr[count] = (enum ir_routing)r;
			ok[count++] = alias;
		}
		okr[count] = (enum ir_routing)r;
		ok[count++] = ir_routing_names[r];
	}
	for (size_t i = 0; i < count; i++) {
		if (!strcmp(s, ok[i])) {
			m->routing = okr[i];
			return 0;
		}
	}
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		snprintf(shape, sizeof shape, "a %d-dimensional %s", m->ndims,
		         ir_topo_names[m->topo]);
		break;
	case IR_HPAM:
		snprintf(shape, sizeof shape, "an hpam machine");
		break;
	default:
		snprintf(shape, sizeof shape, "a %s", ir_topo_names[m->topo]);
		break;
	}
	tree_list_of(ok, count, l, sizeof l);
	for (size_t i = 0; i < nall; i++)
		if (!strcmp(s, all[i]))
			return tree_err_at(
			        x, v,
			        "machine.routing: routing %s is not valid "
			        "for %s; expected %s",
			        tree_desc(x, v, b, sizeof b), shape, l);
	near = front_nearest(s, ok, count);
	if (near)
		return tree_err_at(
		        x, v,
		        "machine.routing: unknown routing %s for %s; "
		        "did you mean '%s'?",
		        tree_desc(x, v, b, sizeof b), shape, near);
	return tree_err_at(
	        x, v, "machine.routing: unknown routing %s for %s; expected %s",
	        tree_desc(x, v, b, sizeof b), shape, l);
}

static int parse_place(struct ctx *x, uint32_t v, ir_machine *m);

/* ports: all (one transfer per link), one, or k >= 1, into *out (path
 * names the key: machine.ports, machine.node_ports). */
static int parse_port_count(struct ctx *x, uint32_t v, const char *path,
                            int *out);

/* ranks_per_node, placement, node_ports.  A switch's `ranks` counts
 * ranks, so its ports (nodes) are ranks / ranks_per_node. */
static int parse_nodes(struct ctx *x, const struct keys *k, ir_machine *m)
{
	static const char *const place[] = {
#define X(e, name, comment) name,
	        IR_PLACEMENTS(X)
#undef X
	};
	char b[64];
	int64_t e;
	int rc, pl;

	m->ranks_per_node = 1;
	if (k->val[MK_RANKS_PER_NODE] != NONE) {
		rc = tree_get_int(x, k->val[MK_RANKS_PER_NODE],
		                  "machine.ranks_per_node", 1, IR_MAX_RANKS,
		                  "(IR_MAX_RANKS)", &e);
		if (rc < 0)
			return rc;
		m->ranks_per_node = (int32_t)e;
	}
	uint32_t pv = k->val[MK_PLACEMENT];
	bool listed = pv != NONE && x->v[pv].kind != YN_SCALAR;
	for (int j = MK_PLACEMENT; j <= MK_NODE_PORTS; j++)
		if (k->key[j] != NONE && m->ranks_per_node == 1 &&
		    !(j == MK_PLACEMENT && listed))
			return tree_err_at(
			        x, k->key[j],
			        "machine.%s: needs ranks_per_node > 1 (with "
			        "one rank per node, %s)",
			        machine_keys[j],
			        j == MK_NODE_PORTS ? "ports gives the node's "
			                             "ports"
			                           : "block and cyclic are the "
			                             "same");
	/* a list or a file: read by parse_place once the ranks are known */
	if (pv != NONE && !listed && !strcmp(text(x, pv), "map"))
		return tree_err_at(x, pv,
		                   "machine.placement: a map is given as the "
		                   "list of each rank's node, [n0, n1, ...], "
		                   "or as a file of them, {file: NAME}");
	if (pv != NONE && !listed) {
		rc = tree_get_enum(x, pv, "machine.placement", "placement",
		                   place, IR_PLACE_MAP, &pl);
		if (rc < 0)
			return rc;
		m->placement = (uint32_t)pl;
	}
	if (k->val[MK_NODE_PORTS] != NONE) {
		rc = parse_port_count(x, k->val[MK_NODE_PORTS],
		                      "machine.node_ports", &m->node_ports);
		if (rc < 0)
			return rc;
	}
	if (m->topo == IR_SWITCH && m->ranks_per_node > 1) {
		if (m->dims[0] % m->ranks_per_node != 0)
			return tree_err_at(
			        x, k->val[MK_RANKS],
			        "machine.ranks: %s ranks do not fill nodes of "
			        "%d ranks (ranks_per_node)",
			        tree_desc(x, k->val[MK_RANKS], b, sizeof b),
			        (int)m->ranks_per_node);
		m->dims[0] /= m->ranks_per_node;
	}
	return 0;
}

/* The names of the job's nodes at v (a hostlist or a list of them)
 * into list, each a name of x->in->hosts, none twice; an unknown name
 * is reported at its item. */
static int read_node_names(struct ctx *x, uint32_t v, const ir_machine *m,
                           struct hostlist *list)
{
	const char *P = "machine.placement.nodes";
	const struct hostlist *hosts = &x->in->hosts;
	bool seq = x->v[v].kind == YN_SEQ;
	uint32_t n = seq ? x->v[v].a : 1, c = seq ? v + 1 : v;
	char path[96], b[64];
	int rc;

	if (seq && n == 0)
		return tree_err_at(x, v, "%s: expected node names, got an "
		                   "empty list", P);
	for (uint32_t i = 0; i < n; i++, c = next_of(x, c)) {
		int32_t before = list->count;
		if (seq)
			snprintf(path, sizeof path, "%s[%u]", P, (unsigned)i);
		else
			snprintf(path, sizeof path, "%s", P);
		if (x->v[c].kind != YN_SCALAR)
			return tree_err_at(x, c,
			                   "%s: expected a hostlist such as "
			                   "\"n[0-15]\", got %s",
			                   path, tree_desc(x, c, b, sizeof b));
		rc = tree_get_hostlist(x, c, path, m->nnodes, true, list);
		if (rc < 0)
			return rc;
		for (int32_t j = before; j < list->count; j++)
			if (hostlist_find(hosts, hostlist_name(list, j)) < 0)
				return tree_err_in(
				        x, c, list->item[j],
				        "%s: no node '%s' in machine.hosts",
				        path, hostlist_name(list, j));
	}
	return 0;
}

/* A job on some nodes of a graph or a switch, named in list: the
 * machine becomes the job's part, whose nodes are the list's in its
 * order: a switch of that many nodes, or the part of the graph
 * (ir_graph_subset) whose routes are the whole graph's.  Ranks go to
 * the nodes in blocks, and machine.hosts becomes the list. */
static int place_on_part(struct ctx *x, uint32_t v, ir_machine *m,
                         struct hostlist *list)
{
	int32_t n = list->count;
	int32_t *hosts = malloc((size_t)n * sizeof *hosts);
	char why[160];
	int rc;

	if (!hosts)
		return tree_err_nomem(x);
	if (m->topo == IR_SWITCH) {
		free(hosts);
		m->dims[0] = n;
		goto named;
	}
	for (int32_t i = 0; i < n; i++)
		hosts[i] = hostlist_find(&x->in->hosts, hostlist_name(list, i));
	ir_graph *g = ir_graph_subset(m->graph, hosts, n, &rc, why, sizeof why);
	free(hosts);
	if (!g)
		return rc == CCP_ENOMEM
		               ? tree_err_nomem(x)
		               : tree_err_at(x, v, "machine.placement.nodes: %s",
		                             why);
	ir_graph_release(m->graph);
	m->graph = g;
named:
	m->placement = IR_PLACE_BLOCK;
	hostlist_fini(&x->in->hosts);
	x->in->hosts = *list;
	hostlist_init(list, true);
	/* the ranks are the part's: its nodes x ranks_per_node */
	if (ir_machine_check(m, why, sizeof why) < 0)
		return tree_err_at(x, v, "machine.placement.nodes: %s", why);
	return 0;
}

/* placement: {nodes: "n[4-7,12]"}: the job's nodes by name, in order,
 * ranks_per_node consecutive ranks on each (Slurm's block distribution):
 * a map over the nodes of machine.hosts.  A machine's ranks are its nodes
 * x ranks_per_node: a list of every node places them; a list of some
 * nodes of a graph makes the machine the job's part (place_on_part). */
static int parse_place_nodes(struct ctx *x, uint32_t key, uint32_t v,
                             ir_machine *m)
{
	int32_t n = m->nranks, k = m->ranks_per_node, bad, *node;
	struct hostlist list;
	char why[160];
	int rc;

	if (x->in->hosts.count == 0)
		return tree_err_at(x, key,
		                   "machine.placement.nodes: names nodes of "
		                   "machine.hosts, which this machine does not "
		                   "have (add hosts: \"n[0-%d]\", one name per "
		                   "node in node order)",
		                   (int)m->nnodes - 1);
	hostlist_init(&list, true);
	rc = read_node_names(x, v, m, &list);
	if (rc == CCP_ERANGE) {
		rc = tree_err_at(x, v,
		                 "machine.placement.nodes: more than the "
		                 "machine's %d nodes",
		                 (int)m->nnodes);
		goto out_free_list;
	}
	if (rc == 0 && list.count < m->nnodes && m->topo != IR_GRAPH &&
	    m->topo != IR_SWITCH) {
		rc = tree_err_at(
		        x, v,
		        "machine.placement.nodes: %d of the machine's %d "
		        "nodes; a job on part of a machine needs the machine "
		        "as a graph (topology: graph, which `ccplan import "
		        "slurm` writes) or a switch, since a %s's routing is "
		        "defined on all its nodes",
		        (int)list.count, (int)m->nnodes,
		        ir_topo_nouns[m->topo]);
		goto out_free_list;
	}
	if (rc == 0 && list.count < m->nnodes) {
		rc = place_on_part(x, v, m, &list);
		goto out_free_list;
	}
	if (rc < 0)
		goto out_free_list;
	if (!(node = malloc((size_t)n * sizeof *node))) {
		rc = tree_err_nomem(x);
		goto out_free_list;
	}
	for (int32_t r = 0; r < n; r++)
		node[r] = hostlist_find(&x->in->hosts,
		                        hostlist_name(&list, r / k));
	m->place = ir_place_from_nodes(node, n, m->nnodes, k, &rc, &bad, why,
	                               sizeof why);
	free(node);
	if (rc == CCP_ENOMEM)
		rc = tree_err_nomem(x);
	else if (rc < 0) /* distinct names, one per node: cannot happen */
		rc = tree_err_at(x, v, "machine.placement.nodes: %s", why);
out_free_list:
	hostlist_fini(&list);
	return rc;
}

/* placement: [node of rank 0, node of rank 1, ...], {file: NAME} naming
 * a file of those numbers (front_read_place), relative to the YAML
 * file's directory, or {nodes: HOSTLIST} (parse_place_nodes).  Every
 * node gets ranks_per_node ranks. */
static int parse_place(struct ctx *x, uint32_t v, ir_machine *m)
{
	static const char *const file_key[] = {"file", "nodes"};
	const char *P = "machine.placement";
	int32_t n = m->nranks, k = m->ranks_per_node, bad, *node;
	char path[FRONT_PATH_MAX], b[64], why[160];
	int rc;

	if (x->v[v].kind == YN_MAP) {
		struct keys fk = {file_key, 2, {0}, {0}};
		if ((rc = tree_map_keys(x, v, P, &fk)) < 0)
			return rc;
		if (fk.val[0] != NONE && fk.val[1] != NONE)
			return tree_err_at(x, fk.key[1],
			                   "%s: file and nodes are two ways "
			                   "to give a map; give one",
			                   P);
		if (fk.val[1] != NONE) {
			if ((rc = parse_place_nodes(x, fk.key[1], fk.val[1],
			                            m)) < 0)
				return rc;
			/* a map, or blocks over the job's part of a graph */
			m->placement = m->place ? IR_PLACE_MAP : IR_PLACE_BLOCK;
			return 0;
		}
		if (fk.val[0] == NONE)
			return tree_missing(x, v, P, "file",
			                    " (or nodes: a hostlist)");
		if ((rc = tree_get_path(x, fk.val[0], "machine.placement.file",
		                        path)) < 0)
			return rc;
		rc = front_read_place(path, n, m->nnodes, k, &m->place, x->d);
		rc = tree_file_rc(x, fk.val[0], "machine.placement.file", rc);
	} else if (x->v[v].a != (uint32_t)n) {
		snprintf(b, sizeof b, "%" PRIu32 " %s", x->v[v].a,
		         x->v[v].a == 1 ? "entry" : "entries");
		return tree_err_at(x, v,
		                   "%s: expected the node of each of the %d "
		                   "ranks, got %s",
		                   P, (int)n, b);
	} else if (!(node = malloc((size_t)n * sizeof *node))) {
		return tree_err_nomem(x);
	} else {
		uint32_t c = v + 1;
		rc = 0;
		for (int32_t r = 0; r < n && rc == 0; r++, c = next_of(x, c)) {
			int64_t e = 0;
			snprintf(path, sizeof path, "%s[%d]", P, (int)r);
			rc = tree_get_int(x, c, path, 0, m->nnodes - 1,
			                  "(a node of this machine)", &e);
			node[r] = (int32_t)e;
		}
		if (rc == 0)
			m->place = ir_place_from_nodes(node, n, m->nnodes, k,
			                               &rc, &bad, why,
			                               sizeof why);
		free(node);
		if (rc == CCP_ENOMEM)
			return tree_err_nomem(x);
		if (rc == CCP_EINVAL)
			return tree_err_at(x, child(x, v, (uint32_t)bad),
			                   "%s: %s", P, why);
	}
	if (rc < 0)
		return rc;
	m->placement = IR_PLACE_MAP;
	return 0;
}

static int parse_ports(struct ctx *x, uint32_t v, ir_machine *m)
{
	return parse_port_count(x, v, "machine.ports", &m->ports);
}

static int parse_port_count(struct ctx *x, uint32_t v, const char *path,
                            int *out)
{
	static const char *const words[] = {"all", "one"};
	const char *near;
	char b[64];
	const char *s = x->v[v].kind == YN_SCALAR ? text(x, v) : "";
	int64_t k;
	int rc;

	if (x->v[v].kind == YN_SCALAR && x->v[v].plain && !is_null(x, v) &&
	    (tree_is_int_text(s) || tree_is_float_text(s))) {
		rc = tree_get_int(x, v, path, 1, IR_MAX_RANKS,
		                  "(IR_MAX_RANKS)", &k);
		if (rc < 0)
			return rc;
		*out = (int)k;
		return 0;
	}
	if (x->v[v].kind == YN_SCALAR && !strcmp(s, "all")) {
		*out = IR_PORTS_ALL;
		return 0;
	}
	if (x->v[v].kind == YN_SCALAR && !strcmp(s, "one")) {
		*out = 1;
		return 0;
	}
	if (x->v[v].kind == YN_SCALAR &&
	    (near = front_nearest(s, words, 2)) != NULL)
		return tree_err_at(
		        x, v,
		        "%s: expected all, one or an integer "
		        ">= 1, got %s; did you mean '%s'?",
		        path, tree_desc(x, v, b, sizeof b), near);
	return tree_err_at(
	        x, v,
	        "%s: expected all, one or an integer >= 1, "
	        "got %s",
	        path, tree_desc(x, v, b, sizeof b));
}

/* A sequence of exactly one entry per dimension, or an error at v. */
static int per_dim_seq(struct ctx *x, uint32_t v, const char *path,
                       const ir_machine *m, const char *what)
{
	char b[64];

	if (x->v[v].kind == YN_SEQ && x->v[v].a == (uint32_t)m->ndims)
		return 0;
	if (x->v[v].kind == YN_SEQ)
		snprintf(b, sizeof b, "%" PRIu32 " %s", x->v[v].a,
		         x->v[v].a == 1 ? "entry" : "entries");
	return tree_err_at(x, v, "%s: expected %s for each of the %d "
	                   "dimensions, got %s",
	                   path, what, m->ndims,
	                   x->v[v].kind == YN_SEQ ? b
	                                          : tree_desc(x, v, b, sizeof b));
}

/* wrap: [true, false, ...], one per dimension (Tofu mixes torus and mesh
 * dimensions).  A machine where some dimension wraps is a torus, one
 * where none does a mesh, whichever topology the input named. */
static int parse_wrap(struct ctx *x, uint32_t v, ir_machine *m,
                      struct machine_nodes *mn)
{
	static const char *const yes_no[] = {"false", "true"};
	char path[64];
	int rc, yes;

	if ((rc = per_dim_seq(x, v, "machine.wrap", m, "true or false")) < 0)
		return rc;
	m->wrap = 0;
	for (int d = 0; d < m->ndims; d++) {
		uint32_t c = child(x, v, (uint32_t)d);
		mn->wrap[d] = c;
		snprintf(path, sizeof path, "machine.wrap[%d]", d);
		rc = tree_get_enum(x, c, path, "value", yes_no, 2, &yes);
		if (rc < 0)
			return rc;
		m->wrap |= (unsigned)yes << d;
	}
	m->topo = m->wrap ? IR_TORUS : IR_MESH;
	return 0;
}

/* order: [z, x, y]: the dimensions in the order dimension-order routing
 * corrects them, by name (x y z a b c d e) or number (0 = x). */
static int parse_order(struct ctx *x, uint32_t v, ir_machine *m)
{
	char path[64], b[64];
	unsigned seen = 0;
	int rc;

	if ((rc = per_dim_seq(x, v, "machine.order", m, "a dimension")) < 0)
		return rc;
	for (int k = 0; k < m->ndims; k++) {
		uint32_t c = child(x, v, (uint32_t)k);
		int64_t e = -1;
		int d;
		snprintf(path, sizeof path, "machine.order[%d]", k);
		if (x->v[c].kind == YN_SCALAR && tree_is_int_text(text(x, c))) {
			rc = tree_get_int(x, c, path, 0, m->ndims - 1,
			                  "(a dimension of this machine)", &e);
			if (rc < 0)
				return rc;
			d = (int)e;
		} else {
			rc = tree_get_enum(x, c, path, "dimension",
			                   ir_dim_names, (size_t)m->ndims, &d);
			if (rc < 0)
				return rc;
		}
		if (seen >> d & 1u)
			return tree_err_at(x, c,
			                   "%s: dimension %s is listed twice",
			                   path, tree_desc(x, c, b, sizeof b));
		seen |= 1u << d;
		m->order[k] = (uint8_t)d;
	}
	return 0;
}

/* hosts: the names of the machine's nodes in node order, a hostlist or a
 * list of them (tree_get_hostlist), into x->in->hosts: as many names as
 * nodes, none twice. */
static int parse_hosts(struct ctx *x, const struct keys *k,
                       const ir_machine *m)
{
	struct hostlist *h = &x->in->hosts;
	int rc;

	hostlist_init(h, true);
	rc = tree_get_hostlist(x, k->val[MK_HOSTS], "machine.hosts",
	                       m->nnodes, true, h);
	if (rc < 0 && rc != CCP_ERANGE)
		return rc;
	if (rc == CCP_ERANGE || h->count != m->nnodes)
		return tree_err_at(x, k->key[MK_HOSTS],
		                   "machine.hosts: %s%d %s for the %d %s of "
		                   "this machine (one name per node, in node "
		                   "order)",
		                   rc == CCP_ERANGE ? "more than " : "",
		                   (int)(rc == CCP_ERANGE ? m->nnodes
		                                          : h->count),
		                   rc != CCP_ERANGE && h->count == 1 ? "name"
		                                                     : "names",
		                   (int)m->nnodes,
		                   m->nnodes == 1 ? "node" : "nodes");
	return 0;
}

/* Place a message of ir_machine_check at the value it names, if it
 * names one ("dims[1]", "levels[0][1]", "ports", "routing"). */
static uint32_t machine_err_node(const struct machine_nodes *mn,
                                 const char *err)
{
	int a, b;
	const char *p;

	if (sscanf(err, "levels[%d][%d]", &a, &b) == 2 && a >= 0 && a < 2 &&
	    b >= 0 && b < 2 && mn->level[a][b] != NONE)
		return mn->level[a][b];
	p = strstr(err, "levels[");
	if (p && sscanf(p, "levels[%d][%d]", &a, &b) == 2 && a >= 0 && a < 2 &&
	    b >= 0 && b < 2 && mn->level[a][b] != NONE)
		return mn->level[a][b];
	if (sscanf(err, "dims[%d]", &a) == 1 && a >= 0 && a < IR_MAX_DIMS &&
	    mn->dims[a] != NONE)
		return mn->dims[a];
	if (!strncmp(err, "ports", 5) && mn->k.val[MK_PORTS] != NONE)
		return mn->k.val[MK_PORTS];
	if (!strncmp(err, "routing", 7) && mn->k.val[MK_ROUTING] != NONE)
		return mn->k.val[MK_ROUTING];
	if (!strncmp(err, "node_ports", 10) &&
	    mn->k.val[MK_NODE_PORTS] != NONE)
		return mn->k.val[MK_NODE_PORTS];
	if (!strncmp(err, "ranks_per_node", 14) &&
	    mn->k.val[MK_RANKS_PER_NODE] != NONE)
		return mn->k.val[MK_RANKS_PER_NODE];
	return mn->map;
}

/* A machine that is one node of several ranks: `ports: all` gives a rank
 * one port per network link of its node (docs/machine-model.md "Nodes"),
 * and a lone node has none, so its ranks could make no transfer at all.
 * Refused here, at the ports (or at ranks_per_node when ports is left at
 * its default), with what to write instead. */
static int check_lone_node(struct ctx *x, const struct keys *k,
                           const ir_machine *m)
{
	if (m->nnodes != 1 || m->nranks < 2 || m->ports != IR_PORTS_ALL)
		return 0;
	bool given = k->val[MK_PORTS] != NONE;
	uint32_t at = given ? k->val[MK_PORTS] : k->val[MK_RANKS_PER_NODE];
	return tree_err_at(x, at,
	                   "machine.%s: the %d ranks share one node, which "
	                   "has no network link, so `ports: all`%s gives them "
	                   "no port: give them ports (`ports: one`, or up to "
	                   "`ports: %d` to reach every other rank of the node "
	                   "in one phase)",
	                   given ? "ports" : "ranks_per_node", (int)m->nranks,
	                   given ? "" : " (the default)", (int)m->nranks - 1);
}

/* The machine mapping: topology, its size, routing, ports, cost. */
int machine_schema_parse(struct ctx *x, uint32_t v, ir_machine *m)
{
	struct machine_nodes mn;
	struct keys *k = &mn.k;
	char err[256], extra[64];
	int64_t e = 0;
	int topo = 0, sk, rc;

	memset(&mn, 0xff, sizeof mn); /* every node NONE */
	mn.map = v;
	k->names = machine_keys;
	k->count = MK_N;
	rc = tree_map_keys(x, v, "machine", k);
	if (rc < 0)
		return rc;
	if (k->val[MK_TOPOLOGY] == NONE)
		return tree_missing(x, v, "machine", "topology", NULL);
	rc = tree_get_enum(x, k->val[MK_TOPOLOGY], "machine.topology",
	                   "topology", ir_topo_names, IR_NTOPOS, &topo);
	if (rc < 0)
		return rc;
	m->topo = (enum ir_topo)topo;
	m->routing = ir_topo_default_routing(m->topo);
	sk = shape_key[topo];
	for (int j = MK_DIMS; j <= MK_DRAGONFLY; j++) {
		if (j > MK_LEVELS && j < MK_GRAPH)
			continue; /* not a size */
		if (j != sk && k->key[j] != NONE)
			return tree_err_at(
			        x, k->key[j],
			        "machine.%s: does not apply to topology %s "
			        "(its size is given by '%s')",
			        machine_keys[j], ir_topo_names[topo],
			        machine_keys[sk]);
	}
	if (k->val[sk] == NONE) {
		snprintf(extra, sizeof extra, " for topology %s",
		         ir_topo_names[topo]);
		return tree_missing(x, v, "machine", machine_keys[sk], extra);
	}
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		rc = parse_dims(x, k->val[sk], m, &mn);
		break;
	case IR_HYPERCUBE:
		rc = tree_get_int(x, k->val[sk], "machine.dimension", 1,
		                  IR_MAX_CUBE_DIM, "(IR_MAX_CUBE_DIM)", &e);
		if (rc == 0)
			m->ndims = (int)e;
		break;
	case IR_SWITCH:
		rc = tree_get_int(x, k->val[sk], "machine.ranks", 1,
		                  IR_MAX_RANKS, "(IR_MAX_RANKS)", &e);
		if (rc == 0) {
			m->ndims = 1;
			m->dims[0] = (int)e;
		}
		break;
	case IR_FAT_TREE:
		rc = parse_tree(x, k->val[sk], m, &mn);
		break;
	case IR_GRAPH: /* its hosts are machine.hosts, or it counts them */
		rc = graph_schema_parse(x, k->val[sk], k->val[MK_HOSTS], m);
		break;
	case IR_DRAGONFLY:
		rc = parse_dfly(x, k->val[sk], m, &mn);
		break;
	case IR_HPAM:
	default:
		rc = parse_levels(x, k->val[sk], m, &mn);
		break;
	}
	if (rc < 0)
		return rc;
	for (int j = MK_WRAP; j <= MK_ORDER; j++)
		if (k->key[j] != NONE && m->topo != IR_MESH &&
		    m->topo != IR_TORUS)
			return tree_err_at(x, k->key[j],
			                   "machine.%s: applies to a mesh or "
			                   "torus only, not to a %s",
			                   machine_keys[j], ir_topo_names[topo]);
	if (k->val[MK_WRAP] != NONE &&
	    (rc = parse_wrap(x, k->val[MK_WRAP], m, &mn)) < 0)
		return rc;
	if (k->val[MK_ORDER] != NONE &&
	    (rc = parse_order(x, k->val[MK_ORDER], m)) < 0)
		return rc;
	if (k->val[MK_ROUTING] != NONE &&
	    (rc = parse_routing(x, k->val[MK_ROUTING], m)) < 0)
		return rc;
	if ((rc = parse_nodes(x, k, m)) < 0)
		return rc;
	m->ports = IR_PORTS_ALL;
	if (k->val[MK_PORTS] != NONE &&
	    (rc = parse_ports(x, k->val[MK_PORTS], m)) < 0)
		return rc;
	if (k->val[MK_COST] != NONE &&
	    (rc = parse_cost(x, k->val[MK_COST], &m->cost)) < 0)
		return rc;
	err[0] = '\0';
	if (ir_machine_check(m, err, sizeof err) < 0)
		return tree_err_at(x, machine_err_node(&mn, err), "machine: %s",
		                   err[0] ? err : "invalid machine");
	if ((rc = check_lone_node(x, k, m)) < 0)
		return rc;
	if (k->val[MK_HOSTS] != NONE && m->topo != IR_GRAPH &&
	    (rc = parse_hosts(x, k, m)) < 0)
		return rc;
	if (k->val[MK_PLACEMENT] != NONE &&
	    x->v[k->val[MK_PLACEMENT]].kind != YN_SCALAR)
		return parse_place(x, k->val[MK_PLACEMENT], m);
	return 0;
}

/* The keys of the machine's mappings, for document_key_home. */
const struct key_names machine_schema_keys = {machine_keys, MK_N};
const struct key_names machine_schema_level_keys = {level_keys, LK_N};
const struct key_names machine_schema_tree_keys = {tree_level_keys, TK_N};
const struct key_names machine_schema_cost_keys = {cost_keys, CK_N};
const struct key_names machine_schema_dfly_keys = {dfly_keys, DK_N};
