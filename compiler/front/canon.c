/*
 * canon.c - the canonical text of an input and its hash.  The text lists
 * every field that changes the plan, in a fixed order and spelling, so two
 * inputs that mean the same thing (whatever their key order, spacing,
 * comments, defaults written out or not, root as a rank or coordinates)
 * give the same text and so the same XXH3-128 hash, the key of the plan
 * cache and the input_hash a plan records.
 *
 * The text is written once, through a sink: into memory for
 * front_canonical, or straight into the hash state for front_input_hash,
 * so hashing a large matrix never needs its text in memory.  The format is
 * described in docs/input-format.md ("Canonical form").
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "codec.h"
#include "front.h"
#include "tbuf.h"

/* Where the text goes. */
struct sink {
	int (*write)(struct sink *s, const char *p, size_t n); /* 0 or error */
	struct tbuf text;   /* memory sink */
	XXH3_state_t *hash; /* hash sink */
};

/* Memory sink: append, growing the buffer. */
static int mem_write(struct sink *s, const char *p, size_t n)
{
	return tb_put(&s->text, p, n);
}

/* Hash sink: feed the state. */
static int hash_write(struct sink *s, const char *p, size_t n)
{
	return XXH3_128bits_update(s->hash, p, n) == XXH_OK ? 0 : CCP_EINTERNAL;
}

/* Write one formatted line (lines are short; 256 bytes is plenty). */
static int put(struct sink *s, const char *fmt, ...) FRONT_PRINTF(2, 3);

static int put(struct sink *s, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof line)
		return CCP_EINTERNAL;
	return s->write(s, line, (size_t)n);
}

/* A cost value: "unset" for NaN (not given), else %.17g, which round
 * trips a double exactly; -0 is written as 0. */
static int put_cost(struct sink *s, const char *name, const double *v,
                    int count)
{
	char line[200];
	size_t n = 0;

	n += (size_t)snprintf(line, sizeof line, "machine.cost.%s", name);
	for (int i = 0; i < count; i++) {
		double d = v[i] == 0 ? 0.0 : v[i];
		if (isnan(d))
			n += (size_t)snprintf(line + n, sizeof line - n,
			                      " unset");
		else
			n += (size_t)snprintf(line + n, sizeof line - n,
			                      " %.17g", d);
	}
	return put(s, "%s\n", line);
}

/* The name of value v in names[0..count), or "?" for a bad value. */
static const char *name_of(const char *const *names, size_t count, int v)
{
	return v >= 0 && (size_t)v < count && names[v] ? names[v] : "?";
}

/* A graph: its vertex and cable counts, then every cable in the order
 * given, with its ends (vertex ids: hosts, then switches), width,
 * bandwidth and latency (as put_cost writes them) and class, and the
 * hosts' route keys when it is a job's part of a graph.  The same
 * graph with its cables in another order gets another key: a cache
 * miss, never a wrong hit. */
static int put_graph(struct sink *s, const ir_graph *g)
{
	int rc = put(s, "machine.graph %d hosts %d switches %u cables\n",
	             (int)g->nhosts, (int)g->nswitches, g->ncables);
	for (uint32_t i = 0; i < g->ncables && rc == 0; i++) {
		const struct ir_cable *c = &g->cables[i];
		double lat = c->latency == 0 ? 0.0 : c->latency;
		if (isnan(lat))
			rc |= put(s, "machine.cable %d %d %d %.17g unset %s\n",
			          (int)c->a, (int)c->b, (int)c->width,
			          c->bandwidth,
			          name_of(ir_link_class_names,
			                  IR_NLINK_CLASSES, c->cls));
		else
			rc |= put(s, "machine.cable %d %d %d %.17g %.17g %s\n",
			          (int)c->a, (int)c->b, (int)c->width,
			          c->bandwidth, lat,
			          name_of(ir_link_class_names,
			                  IR_NLINK_CLASSES, c->cls));
	}
	if (g->next) { /* its forwarding table */
		struct ir_route_entry *e;
		uint32_t n;
		if (ir_graph_table(g, &e, &n) != 0)
			return CCP_ENOMEM;
		for (uint32_t i = 0; i < n && rc == 0; i++)
			rc |= put(s, "machine.route %d %d %d\n", (int)e[i].from,
			          (int)e[i].host, (int)e[i].to);
		free(e);
	}
	if (g->key) { /* a job's part of a graph: its hosts' route keys */
		rc |= put(s, "machine.graph_keys");
		for (int32_t i = 0; i < g->nhosts && rc == 0; i++)
			rc |= put(s, " %d", (int)g->key[i]);
		rc |= put(s, "\n");
	}
	return rc;
}

/* The machine section. */
static int put_machine(struct sink *s, const ir_machine *m)
{
	const ir_cost *c = &m->cost;
	int rc = 0;

	rc |= put(s, "machine.topology %s\n", ir_topo_name(m->topo));
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		rc |= put(s, "machine.dims");
		for (int i = 0; i < m->ndims && i < IR_MAX_DIMS; i++)
			rc |= put(s, " %d", m->dims[i]);
		rc |= put(s, "\n");
		break;
	case IR_HYPERCUBE:
		rc |= put(s, "machine.dimension %d\n", m->ndims);
		break;
	case IR_HPAM:
		rc |= put(s, "machine.levels %d %d %d %d\n", m->levels[0][0],
		          m->levels[0][1], m->levels[1][0], m->levels[1][1]);
		break;
	case IR_SWITCH:
		rc |= put(s, "machine.ranks %d\n", m->dims[0]);
		break;
	case IR_FAT_TREE:
		/* a key of its own, so no older machine's form changes:
		 * down, up and width of each level, as XGFT spells them */
		rc |= put(s, "machine.tree");
		for (int i = 0; i < m->ndims && i < IR_MAX_TREE; i++)
			rc |= put(s, " %d/%d/%d", m->dims[i],
			          m->dims[IR_MAX_TREE + i],
			          m->levels[i / 2][i % 2]);
		rc |= put(s, "\n");
		break;
	case IR_GRAPH:
		rc |= put_graph(s, m->graph);
		break;
	case IR_DRAGONFLY:
		/* groups, routers, hosts and global links per router, the
		 * arrangement, host/local/global widths, Valiant's seed */
		rc |= put(s,
		          "machine.dragonfly %d/%d/%d/%d %s width %d/%d/%d "
		          "seed %u\n",
		          m->dims[2], m->dims[1], m->dims[0], m->dims[3],
		          name_of(ir_dfly_arrangement_names,
		                  IR_NDFLY_ARRANGEMENTS, m->dims[4]),
		          m->levels[0][0], m->levels[0][1], m->levels[1][0],
		          m->wrap);
		break;
	}
	rc |= put(s, "machine.nranks %" PRId32 "\n", m->nranks);
	rc |= put(s, "machine.routing %s\n",
	          ir_routing_name(m->routing));
	if (m->ports == IR_PORTS_ALL)
		rc |= put(s, "machine.ports all\n");
	else
		rc |= put(s, "machine.ports %d\n", m->ports);
	rc |= put(s, "machine.cost.preset %.*s\n", IR_NAME_MAX - 1,
	          c->preset[0] ? c->preset : "-");
	rc |= put_cost(s, "alpha", &c->alpha, 1);
	rc |= put_cost(s, "beta", &c->beta, 1);
	rc |= put_cost(s, "hop", &c->hop, 1);
	rc |= put_cost(s, "gamma", &c->gamma, 1);
	rc |= put_cost(s, "beta_sat", &c->beta_sat, 1);
	rc |= put_cost(s, "tau", &c->tau, 1);
	rc |= put_cost(s, "phi", &c->phi, 1);
	rc |= put_cost(s, "lambda", &c->lambda, 1);
	rc |= put_cost(s, "c_send", c->c_send, 2);
	rc |= put_cost(s, "c_recv", c->c_recv, 2);
	rc |= put_cost(s, "copy", c->copy, 2);
	/* after every key of the inputs before it existed, and only when
	 * given, so that their canonical forms (cache keys) stay */
	if (ir_cost_has_combine(c))
		rc |= put_cost(s, "combine", &c->combine, 1);
	/* likewise the keys of issue 18, each only when it is not the
	 * default, so a 1-3D machine of one rank per node keeps its key */
	if (c->shm_alpha > 0)
		rc |= put_cost(s, "shm_alpha", &c->shm_alpha, 1);
	if (c->shm_beta > 0)
		rc |= put_cost(s, "shm_beta", &c->shm_beta, 1);
	if (m->topo == IR_TORUS && m->wrap != (1u << m->ndims) - 1u) {
		rc |= put(s, "machine.wrap");
		for (int i = 0; i < m->ndims; i++)
			rc |= put(s, " %d", (int)(m->wrap >> i & 1u));
		rc |= put(s, "\n");
	}
	if (!ir_machine_is_classic(m) &&
	    (m->topo == IR_MESH || m->topo == IR_TORUS)) {
		bool given = false;
		for (int i = 0; i < m->ndims; i++)
			given |= m->order[i] != i;
		if (given) {
			rc |= put(s, "machine.order");
			for (int i = 0; i < m->ndims; i++)
				rc |= put(s, " %s", ir_dim_names[m->order[i]]);
			rc |= put(s, "\n");
		}
	}
	if (ir_machine_has_nodes(m)) {
		rc |= put(s, "machine.ranks_per_node %d\n",
		          (int)m->ranks_per_node);
		rc |= put(s, "machine.placement %s\n",
		          name_of(ir_placement_names, IR_NPLACEMENTS,
		                  (int)m->placement));
		if (m->node_ports == IR_PORTS_ALL)
			rc |= put(s, "machine.node_ports all\n");
		else
			rc |= put(s, "machine.node_ports %d\n", m->node_ports);
	} else if (m->place) {
		rc |= put(s, "machine.placement map\n");
	}
	if (m->place) { /* the map itself: the node of each rank */
		rc |= put(s, "machine.placement_nodes");
		for (int32_t r = 0; r < m->nranks; r++)
			rc |= put(s, " %d", (int)ir_node_of(m, r));
		rc |= put(s, "\n");
	}
	return rc ? CCP_ENOMEM : 0;
}

/* Append the decimal text of v >= 0 and the character end to p. */
static char *put_dec(char *p, int64_t v, char end)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while (n > 0)
		*p++ = tmp[--n];
	*p++ = end;
	return p;
}

/* The matrix as "n nnz" then one "src dst bytes" line per message, in
 * CSR order (by source, then destination).  Lines are formatted by hand
 * and written in blocks: a matrix can have 2^28 of them. */
static int put_matrix(struct sink *s, const ir_matrix *x)
{
	char block[8192];
	char *p = block;
	int rc;

	if (!x)
		return put(s, "communication.matrix none\n");
	rc = put(s, "communication.matrix %" PRId32 " %" PRId64 "\n", x->n,
	         x->nnz);
	for (int32_t i = 0; i < x->n && rc == 0; i++) {
		for (int64_t k = x->row[i]; k < x->row[i + 1] && rc == 0; k++) {
			/* ranks and sizes are >= 0 in a checked matrix */
			p = put_dec(p, i, ' ');
			p = put_dec(p, x->dst[k] < 0 ? 0 : x->dst[k], ' ');
			p = put_dec(p, x->bytes[k] < 0 ? 0 : x->bytes[k], '\n');
			if (p - block > (ptrdiff_t)sizeof block - 64) {
				rc = s->write(s, block, (size_t)(p - block));
				p = block;
			}
		}
	}
	if (rc == 0 && p > block)
		rc = s->write(s, block, (size_t)(p - block));
	return rc;
}

/* The communication section: only the fields its collective uses. */
static int put_comm(struct sink *s, const ir_comm *c)
{
	int rc = 0;

	rc |= put(s, "communication.collective %s\n",
	          ir_coll_name(c->coll));
	if (ir_coll_kind(c->coll) & IR_CK_ROOTED)
		rc |= put(s, "communication.root %" PRId32 "\n", c->root);
	if (c->coll != IR_IRREGULAR)
		rc |= put(s, "communication.bytes %" PRId64 "\n", c->bytes);
	if (c->coll == IR_BCAST)
		rc |= put(s, "communication.segments %" PRId32 "\n",
		          c->segments);
	if (ir_coll_kind(c->coll) & IR_CK_REDUCES) {
		rc |= put(s, "communication.dtype %s\n",
		          ir_dtype_name(c->dtype));
		rc |= put(s, "communication.op %s\n",
		          ir_redop_name(c->op));
	}
	/* only when asked, so that earlier inputs keep their keys */
	if (c->reproducible)
		rc |= put(s, "communication.reproducible true\n");
	rc |= put(s, "communication.seed %" PRIu64 "\n", c->seed);
	if (c->coll == IR_IRREGULAR)
		rc |= put_matrix(s, c->matrix);
	return rc ? CCP_ENOMEM : 0;
}

/* The whole canonical text into s. */
static int emit(struct sink *s, const struct front_input *in)
{
	static const char *const contention[] = {"default", "forbid", "allow"};
	int rc = 0;

	rc |= put(s, "ccplan-input 2\n");
	rc |= put_machine(s, &in->machine);
	rc |= put_comm(s, &in->comm);
	rc |= put(s, "algorithm %.*s\n", IR_NAME_MAX - 1, in->algorithm);
	rc |= put(s, "contention %s\n",
	          name_of(contention, 3, (int)in->contention));
	if (in->has_seed)
		rc |= put(s, "seed %" PRIu64 "\n", in->seed);
	else
		rc |= put(s, "seed none\n");
	if (strcmp(in->algorithm, "auto") == 0)
		rc |= put(s, "select %s\n",
		          in->select == SELECT_MODEL ? "model" : "simulated");
	/* a new compiler or plan format may build another plan: a new key
	 * (the format the plan is written in, so that a reader of a newer
	 * format keeps the keys of the plans it writes as before) */
	uint16_t min_read;
	rc |= put(s, "compiler %s\n", CCPLAN_VERSION);
	rc |= put(s, "plan-format %d\n",
	          (int)ir_file_version(&in->machine, &in->comm, &min_read));
	return rc ? CCP_ENOMEM : 0;
}

char *front_canonical(const struct front_input *in)
{
	struct sink s = {0};

	s.write = mem_write;
	if (emit(&s, in) < 0) {
		tb_free(&s.text);
		return NULL;
	}
	return s.text.p;
}

int front_input_hash(const struct front_input *in, uint8_t out[16])
{
	XXH3_state_t st;
	XXH128_hash_t h;
	struct sink s = {0};
	int rc;

	memset(out, 0, 16);
	if (XXH3_128bits_reset(&st) != XXH_OK)
		return CCP_EINTERNAL;
	s.write = hash_write;
	s.hash = &st;
	rc = emit(&s, in);
	if (rc < 0)
		return rc;
	h = XXH3_128bits_digest(&st);
	/* big-endian: high 64 bits first, each most significant byte first */
	for (int i = 0; i < 8; i++) {
		out[i] = (uint8_t)(h.high64 >> (56 - 8 * i));
		out[8 + i] = (uint8_t)(h.low64 >> (56 - 8 * i));
	}
	return 0;
}
