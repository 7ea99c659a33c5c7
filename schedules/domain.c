/*
 * domain.c - where a generator applies.  Each generator states its
 * domain as data (struct sch_domain: the collectives, topologies,
 * routings and port model it takes, plus a predicate for the rest);
 * sch_applies checks it, and every refusal, every row of
 * docs/algorithms.md and every machine a message names is worded here,
 * once.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sched.h"

/* A sentence being written into buf: appends are cut at the end of the
 * buffer, never past it. */
struct words {
	char *buf;
	size_t len, at;
};

static void say(struct words *w, const char *fmt, ...)
{
	if (w->at + 1 >= w->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(w->buf + w->at, w->len - w->at, fmt, ap);
	va_end(ap);
	if (n > 0)
		w->at = w->at + (size_t)n < w->len ? w->at + (size_t)n
		                                   : w->len - 1;
}

/* "a" or "an" before word. */
static const char *article(const char *word)
{
	size_t digits = strspn(word, "0123456789");
	if (digits == 0)
		return word[0] && strchr("aeiouAEIOU", word[0]) ? "an" : "a";
	/* said aloud: eight..., eighty..., and eleven or eighteen (thousand,
	 * million) start with a vowel */
	if (word[0] == '8' ||
	    ((digits == 2 || digits == 5 || digits == 8) && word[0] == '1' &&
	     (word[1] == '1' || word[1] == '8')))
		return "an";
	return "a";
}

/* The names whose bits are set in `bits` as a list: "a, b or c". */
static void say_list(struct words *w, unsigned bits, int count,
                     const char *const *nouns,
                     const char *(*name)(unsigned v))
{
	int n = 0, total = 0;
	for (int v = 0; v < count; v++)
		total += (bits >> v) & 1u;
	for (int v = 0; v < count; v++) {
		if (!((bits >> v) & 1u))
			continue;
		const char *word = nouns && nouns[v] ? nouns[v] : name(v);
		say(w, "%s%s", n == 0 ? "" : n == total - 1 ? " or " : ", ",
		    word);
		n++;
	}
}

static const char *coll_name(unsigned v)
{
	return ir_coll_name((enum ir_coll)v);
}

static const char *topo_name(unsigned v)
{
	return ir_topo_name((enum ir_topo)v);
}

static const char *routing_name(unsigned v)
{
	return ir_routing_name((enum ir_routing)v);
}

/* The machine g needs, in words, with an article or without, and with
 * what its fits checks (`where`) or without. */
static void say_machine(struct words *w, const struct sch_generator *g,
                        bool with_article, bool with_where)
{
	const struct sch_domain *d = &g->domain;
	unsigned topos = d->topos & SCH_TOPOS_ANY;
	char first[64];
	struct words f = {first, sizeof first, 0};
	if (d->ports == SCH_PORTS_ALL)
		say(&f, "all-port");
	else if (topos != SCH_TOPOS_ANY)
		say_list(&f, topos, IR_NTOPOS, ir_topo_nouns, topo_name);
	else
		say(&f, "machine");
	if (with_article)
		say(w, "%s ", article(first));
	if (d->ports == SCH_PORTS_ALL)
		say(w, "all-port ");
	if (topos != SCH_TOPOS_ANY)
		say_list(w, topos, IR_NTOPOS, ir_topo_nouns, topo_name);
	else
		say(w, with_article ? "machine" : "any machine");
	if (d->routings) {
		say(w, " with ");
		say_list(w, d->routings, IR_NROUTINGS, NULL, routing_name);
		say(w, " routing");
	}
	if (d->where && with_where)
		say(w, ", %s", d->where);
}

/* The machine features g does not take (sch_domain.takes) among those
 * its topologies can have, as "; only 1-3 dimensions, one rank per
 * node": nothing when it takes them all. */
static void say_limits(struct words *w, const struct sch_generator *g)
{
	static const struct {
		unsigned bit;
		const char *only;
	} limits[] = {
	        {SCH_TAKES_ND, "1-3 dimensions"},
	        {SCH_TAKES_WRAP, "tori wrapping every dimension"},
	        {SCH_TAKES_ORDER, "x, y, z routing order"},
	        {SCH_TAKES_NODES, "one rank per node"},
	};
	unsigned topos = g->domain.topos, miss = ~g->domain.takes;
	if (!(topos & SCH_T(IR_TORUS)))
		miss &= ~SCH_TAKES_WRAP;
	if (!(topos & (SCH_T(IR_MESH) | SCH_T(IR_TORUS))))
		miss &= ~(SCH_TAKES_ORDER | SCH_TAKES_ND);
	for (int k = 0, n = 0; k < 4; k++)
		if (miss & limits[k].bit)
			say(w, "%s%s", n++ ? ", " : "; only ", limits[k].only);
}

void sch_domain_machine(const struct sch_generator *g, char *buf, size_t len)
{
	const struct sch_domain *d = &g->domain;
	struct words w = {buf, len, 0};
	if (len)
		buf[0] = '\0';
	if ((d->topos & SCH_TOPOS_ANY) == SCH_TOPOS_ANY && !d->routings &&
	    d->ports == SCH_PORTS_ANY && !d->where)
		say(&w, "any");
	else
		say_machine(&w, g, false, true);
	say_limits(&w, g);
}

void sch_domain_colls(const struct sch_generator *g, char *buf, size_t len)
{
	struct words w = {buf, len, 0};
	if (len)
		buf[0] = '\0';
	for (int v = 0, n = 0; v < IR_NCOLLS; v++)
		if (g->domain.colls & SCH_C(v))
			say(&w, "%s%s", n++ ? ", " : "", ir_coll_name(v));
}

/* The largest number of links a rank of m has. */
static int max_degree(const ir_machine *m)
{
	int deg = 0;
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		for (int d = 0; d < m->ndims; d++)
			deg += m->dims[d] >= 3 ? 2 : m->dims[d] - 1;
		return deg;
	case IR_HYPERCUBE:
		return m->ndims;
	case IR_SWITCH:
		return m->nnodes - 1;
	case IR_FAT_TREE: /* every host has the same uplinks */
	case IR_DRAGONFLY: /* and every host one link to its router */
		return ir_degree(m, 0);
	case IR_HPAM:
	case IR_GRAPH:
		break;
	}
	for (int32_t r = 0; r < m->nranks; r++) {
		int k = ir_degree(m, r);
		deg = k > deg ? k : deg;
	}
	return deg;
}

bool sch_all_port(const ir_machine *m)
{
	return m->ports == IR_PORTS_ALL || m->ports >= max_degree(m);
}

void sch_describe(const ir_machine *m, char *buf, size_t len)
{
	struct words w = {buf, len, 0};
	if (len)
		buf[0] = '\0';
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS: {
		int nd = m->ndims; /* a trailing extent of 1 adds nothing */
		while (nd > 1 && m->dims[nd - 1] == 1)
			nd--;
		for (int d = 0; d < nd; d++)
			say(&w, "%s%d", d ? "x" : "", m->dims[d]);
		say(&w, " %s", ir_topo_name(m->topo));
		if (m->topo == IR_TORUS && m->wrap != (1u << m->ndims) - 1u) {
			say(&w, " wrapping");
			for (int d = 0, n = 0; d < m->ndims; d++)
				if (m->wrap >> d & 1u)
					say(&w, "%s%s", n++ ? "," : " ",
					    ir_dim_names[d]);
		}
		if (sch_grid_order_given(m)) {
			say(&w, " routed");
			for (int k = 0; k < m->ndims; k++)
				say(&w, " %s", ir_dim_names[m->order[k]]);
		}
		break;
	}
	case IR_HYPERCUBE:
		say(&w, "hypercube of dimension %d", m->ndims);
		break;
	case IR_HPAM:
		say(&w, "two-level HPAM (%dx%d over %dx%d)", m->levels[0][0],
		    m->levels[0][1], m->levels[1][0], m->levels[1][1]);
		break;
	case IR_SWITCH:
		say(&w, "%d-port switch", (int)m->nnodes);
		break;
	case IR_FAT_TREE: {
		/* XGFT(h; m_1,..,m_h; w_1,..,w_h), as the literature writes
		 * it, and the widths when a level has parallel cables */
		bool wide = false;
		say(&w, "fat tree XGFT(%d;", m->ndims);
		for (int i = 0; i < m->ndims; i++)
			say(&w, "%s%d", i ? "," : " ", m->dims[i]);
		say(&w, ";");
		for (int i = 0; i < m->ndims; i++) {
			say(&w, "%s%d", i ? "," : " ",
			    m->dims[IR_MAX_TREE + i]);
			wide |= m->levels[i / 2][i % 2] > 1;
		}
		say(&w, ")");
		for (int i = 0; wide && i < m->ndims; i++)
			say(&w, "%s%d", i ? "," : " width ",
			    m->levels[i / 2][i % 2]);
		break;
	}
	case IR_GRAPH:
		say(&w, "graph of %d hosts, %d switches and %u cables",
		    (int)m->graph->nhosts, (int)m->graph->nswitches,
		    m->graph->ncables);
		if (m->graph->key) /* the rest of the hosts carry no rank */
			say(&w, " (a job's part: the other hosts count as "
			        "switches)");
		break;
	case IR_DRAGONFLY:
		/* g groups of a routers of p hosts and h global links */
		say(&w, "dragonfly of %d groups x %d routers x %d hosts, %d "
		    "global links per router, %s arrangement",
		    m->dims[2], m->dims[1], m->dims[0], m->dims[3],
		    ir_dfly_arrangement_names[m->dims[4]]);
		if (m->levels[0][0] > 1 || m->levels[0][1] > 1 ||
		    m->levels[1][0] > 1)
			say(&w, ", link widths %d/%d/%d", m->levels[0][0],
			    m->levels[0][1], m->levels[1][0]);
		break;
	}
	if (ir_machine_has_nodes(m))
		say(&w, " of %d-rank nodes", (int)m->ranks_per_node);
}

int sch_fits_dfly_minimal(const struct sch_generator *g, const ir_machine *m,
                          const ir_comm *c, char *why, size_t len)
{
	(void)c;
	if (m->topo != IR_DRAGONFLY || m->routing == IR_ROUTE_MINIMAL)
		return 0;
	snprintf(why, len,
	         "%s keeps each phase's transfers in groups of their own, "
	         "free of contention on a dragonfly only under minimal "
	         "routing (a %s route may cross the groups of another "
	         "transfer); this dragonfly routes %s",
	         g->name, ir_routing_name(m->routing),
	         ir_routing_name(m->routing));
	return CCP_ENOTAPPLY;
}

bool sch_grid_order_given(const ir_machine *m)
{
	if (m->topo != IR_MESH && m->topo != IR_TORUS)
		return false;
	for (int k = 0; k < m->ndims; k++)
		if (m->order[k] != k)
			return true;
	return false;
}

/* The SCH_TAKES_* features machine m has. */
static unsigned machine_features(const ir_machine *m)
{
	unsigned f = 0;
	if (m->topo == IR_TORUS && m->wrap != (1u << m->ndims) - 1u)
		f |= SCH_TAKES_WRAP;
	if (sch_grid_order_given(m))
		f |= SCH_TAKES_ORDER;
	if ((m->topo == IR_MESH || m->topo == IR_TORUS) && m->ndims > 3)
		f |= SCH_TAKES_ND;
	if (ir_machine_has_nodes(m))
		f |= SCH_TAKES_NODES;
	return f;
}

/* "X is built for ...; this machine is ...", for a feature of m that g
 * does not take. */
static bool say_features(struct words *w, const struct sch_generator *g,
                         const ir_machine *m)
{
	static const char *const what[] = {
	        "tori whose every dimension wraps",
	        "dimension-order routing in the order x, y, z...",
	        "meshes and tori of at most 3 dimensions",
	        "one rank per node",
	};
	unsigned miss = machine_features(m) & ~g->domain.takes;
	if (!miss)
		return false;
	int f = 0;
	while (!(miss >> f & 1u))
		f++;
	char desc[160];
	sch_describe(m, desc, sizeof desc);
	say(w, "%s is built for %s; this machine is %s %s", g->name, what[f],
	    article(desc), desc);
	if (f == 3)
		say(w, " (the node-aware generators take it)");
	return true;
}

/* Why the data refuses a machine. */
enum refusal { FITS, TOPOLOGY, ROUTING, PORTS };

/* "X needs a <machine>; this machine is a(n) <description>", with what
 * failed when the description alone does not show it.  A refusal for
 * the ports says how many would do instead of the shapes fits takes,
 * which would not help and might not fit the caller's line. */
static void say_refusal(struct words *w, const struct sch_generator *g,
                        const ir_machine *m, enum refusal why)
{
	char desc[128];
	sch_describe(m, desc, sizeof desc);
	say(w, "%s needs ", g->name);
	say_machine(w, g, true, why != PORTS);
	say(w, "; this machine is %s %s", article(desc), desc);
	if (m->ports != IR_PORTS_ALL)
		say(w, " with %d-port nodes", m->ports);
	if (why == ROUTING)
		say(w, " with %s routing", ir_routing_name(m->routing));
	if (why == PORTS)
		say(w, ", and all-port here means ports: all or at least %d",
		    max_degree(m));
}

int sch_applies(const struct sch_generator *g, const ir_machine *m,
                const ir_comm *c, char *why, size_t len)
{
	const struct sch_domain *d = &g->domain;
	struct words w = {why, len, 0};
	if (m->place) /* over positions, as sch_generate builds it */
		return sch_applies_placed(g, m, c, why, len);
	if (len)
		why[0] = '\0';
	if (!(d->colls & SCH_C(c->coll))) {
		/* "X is a broadcast or reduce; this is a scatter" */
		unsigned colls = d->colls & (SCH_C(IR_NCOLLS) - 1);
		int first = 0;
		while (first < IR_NCOLLS && !(colls & SCH_C(first)))
			first++;
		const char *noun = first < IR_NCOLLS ? ir_coll_nouns[first] : "";
		say(&w, "%s %s %s ", g->name,
		    colls == SCH_C(IR_IRREGULAR) ? "schedules" : "is",
		    article(noun));
		say_list(&w, colls, IR_NCOLLS, ir_coll_nouns, coll_name);
		say(&w, "; this is %s %s", article(ir_coll_name(c->coll)),
		    ir_coll_name(c->coll));
		if ((unsigned)c->coll < IR_NCOLLS && d->refused[c->coll])
			say(&w, ", and %s", d->refused[c->coll]);
		return CCP_ENOTAPPLY;
	}
	if (c->coll == IR_IRREGULAR &&
	    (!c->matrix || c->matrix->n != m->nranks)) {
		say(&w, "%s: the matrix has %ld ranks, the machine %ld",
		    g->name, c->matrix ? (long)c->matrix->n : 0L,
		    (long)m->nranks);
		return CCP_ENOTAPPLY;
	}
	enum refusal r = FITS;
	if ((d->topos & SCH_T(m->topo)) && say_features(&w, g, m))
		return CCP_ENOTAPPLY;
	if (!(d->topos & SCH_T(m->topo)))
		r = TOPOLOGY;
	else if (d->routings && !(d->routings & (1u << m->routing)))
		r = ROUTING;
	else if (d->ports == SCH_PORTS_ALL && !sch_all_port(m))
		r = PORTS;
	if (r == FITS) {
		if (!d->fits)
			return 0;
		int rc = d->fits(g, m, c, why, len);
		if (rc != CCP_ENOTAPPLY || (len && why[0]))
			return rc;
	}
	say_refusal(&w, g, m, r);
	return CCP_ENOTAPPLY;
}
