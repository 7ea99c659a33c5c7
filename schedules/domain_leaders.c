/*
 * domain_leaders.c - broadcast, reduce and allreduce through leaders of
 * network domains: nodes, then the hosts under one switch (a fat tree's
 * leaf, then each switch level up; a dragonfly's router, then its
 * group; a graph's switch), so that only one rank of each domain sends
 * or receives across the links above it (docs/collectives.md,
 * "Leaders of network domains").
 *
 * The domains nest: level 0 is the node (when it holds several ranks),
 * each level after it a union of domains of the level before, and the
 * last the whole machine; a level with the domains of the one before
 * it (one host a leaf switch, one router a group) is left out.  A domain's
 * leader is the root when the domain holds it, else its lowest rank, so the
 * leader of a domain is also the leader of the domain below it that holds it.
 * A broadcast runs down the levels, the last (the whole machine) first: at
 * level i every domain at once runs a binomial tree from its leader over the
 * leaders of the domains of level i - 1 inside it (ranks at level 0),
 * in ceil(lg c) phases for the most children c a domain of the level
 * has.  A reduce is the same trees backwards, up the levels, each
 * transfer combining the sender's partial into the receiver's; an
 * allreduce the reduce to rank 0 and the broadcast from it.
 *
 * The links above a domain carry, in each phase, at most the one
 * transfer its leader sends and the one it receives: a route between
 * two hosts of a domain stays in it (up/down routing to the nearest
 * common ancestor of a fat tree; local links inside a dragonfly group
 * under minimal routing; one switch of a graph), and the transfers of
 * the phases of one level run between the domains of the level below.
 * So a broadcast puts the message exactly once on the links into each
 * domain but the root's, and a reduce a partial once on the links out:
 * the bound on a fat tree's up links and a dragonfly's global links
 * (tests/schedules/test_domain_leaders.c computes it from the plans).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* The most domain levels: a node, IR_MAX_TREE - 1 switch levels of a
 * fat tree (the top switch level is the whole machine), the machine. */
#define MAX_LEVELS (IR_MAX_TREE + 1)

/* The levels of domains of a machine, and the tree's ranks. */
struct dom {
	const ir_machine *m;
	int nlev;                  /* levels, the last the machine */
	int32_t *key[MAX_LEVELS];  /* [nranks]: rank r's domain at each
	                              level, 0 .. nranks-1 */
	int32_t *lead[MAX_LEVELS]; /* [nranks]: leader of domain d */
	int32_t ndom;              /* domains of the last level */
	int32_t *list, *off, *cnt; /* scratch: children by domain */
};

/* The switch host h of graph g hangs from, or -1 when its cables do not
 * all lead to one switch. */
static int32_t graph_switch(const ir_graph *g, int32_t h)
{
	int32_t sw = -1;
	for (uint32_t i = g->out_off[h]; i < g->out_off[h + 1]; i++) {
		const struct ir_cable *c = &g->cables[g->out[i] / 2];
		int32_t v = c->a == h ? c->b : c->a;
		if (v < g->nhosts || (sw >= 0 && v != sw))
			return -1;
		sw = v;
	}
	return sw;
}

/* The network levels of m, finest first, as divisors of a host's index
 * (fat tree: the hosts under a level-l switch, l = 1 .. h-1; dragonfly:
 * a router's, a group's) into div[]; a graph's one level through
 * graph_switch.  Returns the number of levels. */
static int net_levels(const ir_machine *m, int64_t *div)
{
	int n = 0;
	if (m->topo == IR_FAT_TREE) {
		int64_t under = 1;
		for (int l = 1; l < m->ndims; l++) {
			under *= m->dims[l - 1];
			div[n++] = under;
		}
	} else if (m->topo == IR_DRAGONFLY) {
		div[n++] = m->dims[0];
		div[n++] = (int64_t)m->dims[0] * m->dims[1];
	}
	return n;
}

static void dom_fini(struct dom *d)
{
	for (int i = 0; i < MAX_LEVELS; i++) {
		free(d->key[i]);
		free(d->lead[i]);
	}
	free(d->list);
	free(d->off);
	free(d->cnt);
}

/* The levels of m with their leaders: root leads every domain holding
 * it.  A level whose domains are those of the level before it is left
 * out. */
static int dom_init(struct dom *d, const ir_machine *m, int32_t root)
{
	int32_t n = m->nranks;
	int64_t div[MAX_LEVELS];
	int nnet = net_levels(m, div), rc = 0;
	memset(d, 0, sizeof *d);
	d->m = m;
	d->list = malloc((size_t)n * sizeof *d->list);
	d->off = malloc(((size_t)n + 1) * sizeof *d->off);
	d->cnt = malloc((size_t)n * sizeof *d->cnt);
	if (!d->list || !d->off || !d->cnt)
		return CCP_ENOMEM;
	/* levels: the node (several ranks a node), each network level, a
	 * graph's switch, then the machine (key 0) */
	int total = (ir_machine_has_nodes(m) ? 1 : 0) + nnet +
	            (m->topo == IR_GRAPH ? 1 : 0) + 1;
	int32_t bound = m->topo == IR_GRAPH ? m->graph->nverts : n;
	int32_t *id = malloc((size_t)bound * sizeof *id);
	if (!id)
		return CCP_ENOMEM;
	for (int i = 0; i < total && rc == 0; i++) {
		int32_t *k = malloc((size_t)n * sizeof *k);
		int32_t *ld = malloc((size_t)n * sizeof *ld);
		if (!k || !ld) {
			free(k);
			free(ld);
			rc = CCP_ENOMEM;
			break;
		}
		/* rank r's domain, numbered 0, 1, ... as they first appear */
		int net = i - (ir_machine_has_nodes(m) ? 1 : 0);
		int32_t nd = 0;
		for (int32_t v = 0; v < bound; v++)
			id[v] = -1;
		for (int32_t r = 0; r < n; r++) {
			int32_t q = ir_node_of(m, r), v = 0;
			if (net < 0)
				v = q;
			else if (net < nnet)
				v = (int32_t)(q / div[net]);
			else if (i < total - 1 &&
			         (v = graph_switch(m->graph, q)) < 0)
				rc = CCP_ENOTAPPLY; /* leaders_fits says why */
			if (rc)
				break;
			if (id[v] < 0)
				id[v] = nd++;
			k[r] = id[v];
			ld[r] = -1;
		}
		/* as many domains as the level before (each a union of
		 * those): the same domains, left out */
		if (rc || (d->nlev > 0 && nd == d->ndom && i < total - 1)) {
			free(k);
			free(ld);
			continue;
		}
		for (int32_t r = n - 1; r >= 0; r--)
			ld[k[r]] = r; /* the lowest rank */
		ld[k[root]] = root;
		d->key[d->nlev] = k;
		d->lead[d->nlev] = ld;
		d->ndom = nd;
		d->nlev++;
	}
	free(id);
	return rc;
}

/* The leader of rank r's domain at level i, or r itself below level 0. */
static int32_t leader(const struct dom *d, int i, int32_t r)
{
	return i < 0 ? r : d->lead[i][d->key[i][r]];
}

/* Level i's domains with the leaders of their children: domain k's
 * are list[off[k] .. off[k] + cnt[k]), its own leader first, then the
 * others in increasing order.  Returns the most children of a domain. */
static int32_t children(struct dom *d, int i)
{
	int32_t n = d->m->nranks, most = 0;
	memset(d->cnt, 0, (size_t)n * sizeof *d->cnt);
	for (int32_t r = 0; r < n; r++)
		if (leader(d, i - 1, r) == r)
			d->cnt[d->key[i][r]]++;
	d->off[0] = 0;
	for (int32_t k = 0; k < n; k++) {
		d->off[k + 1] = d->off[k] + d->cnt[k];
		most = d->cnt[k] > most ? d->cnt[k] : most;
		d->cnt[k] = 0;
	}
	for (int32_t r = 0; r < n; r++) {
		if (leader(d, i - 1, r) != r)
			continue;
		int32_t k = d->key[i][r];
		int32_t *at = d->list + d->off[k];
		if (r == d->lead[i][k]) { /* first: shift the others on */
			memmove(at + 1, at, (size_t)d->cnt[k] * sizeof *at);
			at[0] = r;
		} else {
			at[d->cnt[k]] = r;
		}
		d->cnt[k]++;
	}
	return most;
}

/* What a transfer of the tree carries: a broadcast's segments of the
 * root, or the sender's partials of every element block (combined into
 * the receiver's on the way up, replacing them on the way down). */
struct load {
	const ir_comm *c;
	int32_t nblk;
	int32_t *ks;
	ir_block *tmp;
};

static int carry(ir_plan *p, const struct load *w, int32_t src, int32_t dst,
                 bool up)
{
	if (w->c->coll == IR_BCAST) {
		for (int32_t s = 0; s < w->nblk; s++)
			w->tmp[s] = (ir_block){w->c->root, s};
		return ir_plan_add(p, src, dst, w->tmp, (uint32_t)w->nblk, 0);
	}
	return sch_partial_range(p, src, dst, 0, w->nblk, up ? IR_XF_REDUCE : 0,
	                         w->ks, w->tmp);
}

/* The phases of level i: down (a broadcast) the binomial tree of each
 * domain over its children's leaders, largest stride first; up (a
 * reduce) the same backwards, smallest stride first. */
static int level(struct dom *d, ir_plan *p, const struct load *w, int i,
                 bool up)
{
	int32_t most = children(d, i), top = 1, n = d->m->nranks;
	while (top < most)
		top *= 2;
	int rc = 0;
	for (int32_t s = up ? 1 : top / 2; s >= 1 && s < top && rc == 0;
	     s = up ? s * 2 : s / 2) {
		rc = ir_plan_phase(p);
		for (int32_t k = 0; k < n && rc == 0; k++) {
			const int32_t *x = d->list + d->off[k];
			int32_t c = d->off[k + 1] - d->off[k];
			for (int32_t j = 0; j + s < c && rc == 0; j += 2 * s)
				rc = up ? carry(p, w, x[j + s], x[j], true)
				        : carry(p, w, x[j], x[j + s], false);
		}
	}
	return rc;
}

static int leaders_generate(const ir_machine *m, const ir_comm *c,
                            const struct sch_options *o, ir_plan *p)
{
	bool rooted = ir_coll_kind(c->coll) & IR_CK_ROOTED;
	bool reduce = ir_coll_kind(c->coll) & IR_CK_REDUCES;
	struct dom d;
	struct load w = {c, 0, NULL, NULL};
	ir_plan_init(p, m, c, "domain_leaders");
	int rc = dom_init(&d, m, rooted ? c->root : 0);
	w.nblk = c->coll == IR_BCAST ? (c->segments > 0 ? c->segments : 1)
	                             : ir_reduce_blocks(&p->comm, m->nranks);
	w.ks = malloc((size_t)w.nblk * sizeof *w.ks);
	w.tmp = malloc((size_t)w.nblk * sizeof *w.tmp);
	if (rc == 0 && (!w.ks || !w.tmp))
		rc = CCP_ENOMEM;
	/* up the levels (reduce, allreduce), then down (broadcast,
	 * allreduce) */
	for (int i = 0; reduce && i < d.nlev && rc == 0; i++)
		rc = level(&d, p, &w, i, true);
	for (int i = d.nlev - 1; c->coll != IR_REDUCE && i >= 0 && rc == 0; i--)
		rc = level(&d, p, &w, i, false);
	free(w.ks);
	free(w.tmp);
	dom_fini(&d);
	/* no rank sends in a phase what it receives in it: split */
	return sch_finish(p, o, true, rc);
}

/* A machine with domains above the host: a fat tree of two switch
 * levels or more, a dragonfly, or a graph whose every host hangs from
 * one switch. */
static int leaders_fits(const struct sch_generator *g, const ir_machine *m,
                        const ir_comm *c, char *why, size_t len)
{
	(void)c;
	if (m->topo == IR_FAT_TREE && m->ndims < 2) {
		snprintf(why, len,
		         "%s: a fat tree of one switch level has no domain "
		         "between its hosts and the machine; use "
		         "`hierarchical` (leaders a node) or `binomial`",
		         g->name);
		return CCP_ENOTAPPLY;
	}
	if (m->topo != IR_GRAPH)
		return 0;
	for (int32_t h = 0; h < m->graph->nhosts; h++)
		if (graph_switch(m->graph, h) < 0) {
			snprintf(
			        why, len,
			        "%s: host %d of this graph has cables to "
			        "another host or to more than one switch, so "
			        "its hosts do not fall into the domains of one "
			        "switch each",
			        g->name, (int)h);
			return CCP_ENOTAPPLY;
		}
	return 0;
}

const struct sch_generator sch_domain_leaders = {
        .name = "domain_leaders",
        .summary = "broadcast, reduce, allreduce through leaders of "
                   "nodes, switches and groups: binomial trees inside "
                   "each domain, one rank of a domain crossing the links "
                   "above it (each domain receives the message once, "
                   "sends its partial once)",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_BCAST) | SCH_C(IR_REDUCE) |
                            SCH_C(IR_ALLREDUCE),
                   .topos = SCH_T(IR_FAT_TREE) | SCH_T(IR_DRAGONFLY) |
                            SCH_T(IR_GRAPH),
                   .takes = SCH_TAKES_ALL,
                   .where = "of at least two switch levels (a fat tree), "
                            "or whose hosts each hang from one switch (a "
                            "graph)",
                   .fits = leaders_fits},
        .generate = leaders_generate,
};
