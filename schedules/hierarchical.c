/*
 * hierarchical.c - node-aware broadcast, reduce, gather, allreduce and
 * allgather for machines whose nodes hold several ranks
 * (docs/collectives.md, "Node-aware collectives").
 *
 * Three steps, each in phases of its own:
 *   1. inside every node at once, a binomial tree over the node's ranks
 *      brings their data to the node's leader (reduce, gather, allreduce,
 *      allgather): ceil(lg k) phases for k ranks per node, shared memory
 *      only, one transfer per rank and phase;
 *   2. the leaders run the collective among nodes: the plan of an
 *      existing generator on the node machine (the machine with one rank
 *      per node, its ports those of a leader: the tighter of the rank's
 *      ports and the node's network ports), node n played by its leader;
 *      of a short list of generators, the verified contention-free plan
 *      with the fewest phases (the first on a tie);
 *   3. inside every node, a binomial tree from the leader gives the
 *      result to the node's other ranks (broadcast, allreduce, allgather):
 *      ceil(lg k) phases.
 * The leader of a node is its rank of local index 0, except on a rooted
 * collective's root node, whose leader is the root.  One leader a node
 * carries every network transfer, so with several node ports and one
 * port per rank the network step uses one port of the node.
 *
 * Blocks of the node plan become the machine's: a broadcast's (root
 * node, s) the root's segment s, a reduction's partial (n, k) the
 * partial of n's leader, which combines its whole node by then, and a
 * gather's block of node n the blocks of every rank of n.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* What the three steps share. */
struct hier {
	const ir_machine *m;
	const ir_comm *c;
	ir_machine nm; /* the node machine: one rank per node */
	ir_comm nc;    /* the collective among nodes */
	int32_t k;     /* ranks per node */
	int32_t *lead; /* leader of each node */
	int32_t nblk;  /* broadcast: segments; reduction: element blocks */
	ir_block *tmp; /* room for the blocks of one transfer */
	int32_t *ks;   /* room for nblk element block indices */
	size_t cap;    /* entries of tmp */
};

/* A rank's index on its node (the inverse of ir_node_rank). */
static int32_t local_of(const ir_machine *m, int32_t rank)
{
	if (m->placement == IR_PLACE_CYCLIC)
		return rank / m->nnodes;
	return rank % m->ranks_per_node;
}

/* Per-phase transfers of a leader: a rank's ports and its node's
 * network ports both bound them, IR_PORTS_ALL the node's degree. */
static int leader_ports(const ir_machine *m)
{
	if (m->ports == IR_PORTS_ALL)
		return m->node_ports;
	if (m->node_ports == IR_PORTS_ALL || m->ports < m->node_ports)
		return m->ports;
	return m->node_ports;
}

/* Make sure tmp has room for n blocks. */
static int room(struct hier *h, size_t n)
{
	if (n <= h->cap)
		return 0;
	ir_block *q = realloc(h->tmp, n * sizeof *q);
	if (!q)
		return CCP_ENOMEM;
	h->tmp = q;
	h->cap = n;
	return 0;
}

/* ---- the collective among nodes ----------------------------------------- */

/* Whether plan t verifies on its (node) machine without contention. */
static int node_plan_ok(const ir_plan *t, bool *ok)
{
	ir_report rep;
	int rc = ir_verify(t, &rep);
	*ok = rc == 0 &&
	      !(t->flags & (IR_PLAN_LINK_CONTENTION | IR_PLAN_NODE_CONTENTION));
	ir_report_fini(&rep);
	return rc == CCP_EVERIFY ? 0 : rc;
}

/* The gather of the node machine along binomial's reduce tree: each
 * transfer of the reduce carries instead the blocks its sender holds
 * (its own and what it received before the phase).  out is set up for
 * nc (a gather to the same root). */
static int gather_tree(const struct hier *h, ir_plan *out)
{
	ir_comm red = h->nc;
	red.coll = IR_REDUCE;
	red.segments = 1;
	ir_plan t;
	int32_t n = h->nm.nranks;
	int rc = sch_binomial.generate(&h->nm, &red, NULL, &t);
	if (rc)
		return rc;
	ir_plan_init(out, &h->nm, &h->nc, "binomial");
	/* held[r]: the nodes whose blocks r holds, as a linked list kept in
	 * arrival order: first[r] .. last[r] through next[] */
	int32_t *next = malloc(3 * (size_t)n * sizeof *next);
	int32_t *len = calloc((size_t)n, sizeof *len);
	ir_block *b = malloc((size_t)n * sizeof *b);
	if (!next || !len || !b) {
		rc = CCP_ENOMEM;
		goto out;
	}
	int32_t *first = next + n, *last = next + 2 * (size_t)n;
	for (int32_t r = 0; r < n; r++) {
		next[r] = -1;
		first[r] = last[r] = r;
		len[r] = 1;
	}
	for (uint32_t ph = 0; ph < t.nphases && rc == 0; ph++) {
		const ir_phase *f = &t.phases[ph];
		rc = ir_plan_phase(out);
		/* what each sender holds before the phase */
		for (uint32_t j = 0; j < f->ntransfers && rc == 0; j++) {
			const ir_transfer *x = &t.transfers[f->transfer + j];
			int32_t nb = 0;
			for (int32_t o = first[x->src];
			     o >= 0 && nb < len[x->src]; o = next[o])
				b[nb++] = (ir_block){o, 0};
			rc = ir_plan_add(out, x->src, x->dst, b, (uint32_t)nb,
			                 0);
		}
		/* then the receivers append them (a tree: each sends once) */
		for (uint32_t j = 0; j < f->ntransfers; j++) {
			const ir_transfer *x = &t.transfers[f->transfer + j];
			next[last[x->dst]] = first[x->src];
			last[x->dst] = last[x->src];
			len[x->dst] += len[x->src];
			len[x->src] = 0;
		}
	}
out:
	free(next);
	free(len);
	free(b);
	ir_plan_fini(&t);
	if (rc)
		ir_plan_fini(out);
	return rc;
}

/* The allgather of the node machine: gather_tree to node 0, then
 * binomial's broadcast from node 0 of every node's block. */
static int gather_bcast(const struct hier *h, ir_plan *out)
{
	struct hier g = *h;
	int32_t n = h->nm.nranks;
	g.nc.coll = IR_GATHER;
	g.nc.root = 0;
	ir_comm bc = g.nc;
	bc.coll = IR_BCAST;
	bc.segments = 1;
	ir_plan ga, bt;
	int rc = gather_tree(&g, &ga);
	if (rc)
		return rc;
	rc = sch_binomial.generate(&h->nm, &bc, NULL, &bt);
	if (rc) {
		ir_plan_fini(&ga);
		return rc;
	}
	ir_plan_init(out, &h->nm, &h->nc, "binomial");
	ir_block *b = malloc((size_t)n * sizeof *b);
	if (!b)
		rc = CCP_ENOMEM;
	for (int32_t o = 0; o < n && rc == 0; o++)
		b[o] = (ir_block){o, 0};
	/* the gather's phases as they are, then the broadcast's */
	for (int half = 0; half < 2 && rc == 0; half++) {
		const ir_plan *t = half ? &bt : &ga;
		for (uint32_t ph = 0; ph < t->nphases && rc == 0; ph++) {
			const ir_phase *f = &t->phases[ph];
			rc = ir_plan_phase(out);
			for (uint32_t j = 0; j < f->ntransfers && rc == 0;
			     j++) {
				const ir_transfer *x =
				        &t->transfers[f->transfer + j];
				rc = ir_plan_add(
				        out, x->src, x->dst,
				        half ? b : &t->blocks[x->block],
				        half ? (uint32_t)n : x->nblocks, 0);
			}
		}
	}
	free(b);
	ir_plan_fini(&ga);
	ir_plan_fini(&bt);
	if (rc)
		ir_plan_fini(out);
	return rc;
}

/* A candidate for the step among nodes: a generator of the registry
 * (tried where sch_applies accepts it), or a builder of this file or a
 * generator called directly, which hold on every mesh, torus, hypercube
 * and switch (binomial's halving keeps each message on one line inside
 * its box whatever the dimensions, their wraparound and their order;
 * binomial.c).  Every plan is verified before it is used. */
struct candidate {
	const char *name;                /* registry generator, or NULL */
	const struct sch_generator *gen; /* called directly, or NULL */
	int (*build)(const struct hier *h, ir_plan *out);
};

/* The candidates for collective coll, ended by an empty entry. */
static const struct candidate *candidates(enum ir_coll coll)
{
	static const struct candidate bcast[] = {
	        {NULL, &sch_binomial, NULL}, {"dimensional", NULL, NULL},
	        {"rd", NULL, NULL},          {"edn", NULL, NULL},
	        {"edn_torus", NULL, NULL},   {"sld", NULL, NULL},
	        {"sbt", NULL, NULL},         {"hokao", NULL, NULL},
	        {NULL, NULL, NULL}};
	static const struct candidate reduce[] = {{NULL, &sch_binomial, NULL},
	                                          {"edn_reduce", NULL, NULL},
	                                          {NULL, NULL, NULL}};
	static const struct candidate gather[] = {{NULL, NULL, gather_tree},
	                                          {"tree_gather", NULL, NULL},
	                                          {"edn_gather", NULL, NULL},
	                                          {NULL, NULL, NULL}};
	static const struct candidate allgather[] = {
	        {"recursive_doubling", NULL, NULL},
	        {"bruck", NULL, NULL},
	        {"bucket", NULL, NULL},
	        {NULL, NULL, gather_bcast},
	        {"ring", NULL, NULL},
	        {NULL, NULL, NULL}};
	/* the allreduces that cut the vector (Rabenseifner, Swing, bucket,
	 * ring) take at least the 2 ceil(lg g) phases of reduce_bcast,
	 * which always applies and wins their ties: left out */
	static const struct candidate allreduce[] = {
	        {"recursive_doubling", NULL, NULL},
	        {"swing_latency", NULL, NULL},
	        {NULL, &sch_reduce_bcast, NULL},
	        {NULL, NULL, NULL}};
	switch (coll) {
	case IR_BCAST:
		return bcast;
	case IR_REDUCE:
		return reduce;
	case IR_GATHER:
		return gather;
	case IR_ALLGATHER:
		return allgather;
	default:
		return allreduce;
	}
}

/* The plan among nodes: the verified, contention-free candidate with the
 * fewest phases, into best; CCP_ENOTAPPLY when none is. */
static int among_nodes(const struct hier *h, const struct sch_options *o,
                       ir_plan *best)
{
	struct sch_options no = {0};
	if (o)
		no = *o;
	no.forbid_contention = true; /* split or refused, never contended */
	bool have = false;
	int rc = 0;
	for (const struct candidate *k = candidates(h->c->coll);
	     rc == 0 && (k->name || k->gen || k->build); k++) {
		ir_plan t;
		int r;
		memset(&t, 0, sizeof t); /* a refusal may leave it as it is */
		if (k->build) {
			r = k->build(h, &t);
		} else if (k->gen) {
			r = k->gen->generate(&h->nm, &h->nc, &no, &t);
		} else {
			const struct sch_generator *g = sch_find(k->name);
			char why[256];
			if (!g ||
			    sch_applies(g, &h->nm, &h->nc, why, sizeof why))
				continue;
			r = g->generate(&h->nm, &h->nc, &no, &t);
		}
		if (r == CCP_ENOMEM)
			rc = r;
		if (r) {
			ir_plan_fini(&t);
			continue; /* refused: the next one */
		}
		bool ok = false;
		rc = node_plan_ok(&t, &ok);
		if (rc == 0 && ok && (!have || t.nphases < best->nphases)) {
			if (have)
				ir_plan_fini(best);
			*best = t;
			have = true;
		} else {
			ir_plan_fini(&t);
		}
	}
	if (rc && have)
		ir_plan_fini(best);
	if (rc == 0 && !have)
		rc = CCP_ENOTAPPLY;
	return rc;
}

/* ---- inside nodes ---------------------------------------------------------
 */

/* The rank at place v of node n's tree, counted from its leader. */
static int32_t at(const struct hier *h, int32_t n, int32_t v)
{
	int32_t l0 = local_of(h->m, h->lead[n]);
	return ir_node_rank(h->m, n, (v + l0) % h->k);
}

/* One transfer inside a node, src at place v of it: reduction partials
 * (combined on the way up, replacing on the way down), a broadcast's
 * segments, or blocks of the ranks at places v, v + step, v + 2 step...
 * (a gather on the way up); an allgather down carries every block. */
static int intra(struct hier *h, ir_plan *p, int32_t n, int32_t v, int32_t src,
                 int32_t dst, bool up, int32_t step)
{
	const ir_comm *c = h->c;
	uint32_t nb = 0;
	switch (c->coll) {
	case IR_REDUCE:
	case IR_ALLREDUCE:
		return sch_partial_range(p, src, dst, 0, h->nblk,
		                         up ? IR_XF_REDUCE : 0, h->ks, h->tmp);
	case IR_BCAST:
		for (int32_t s = 0; s < h->nblk; s++)
			h->tmp[nb++] = (ir_block){c->root, s};
		break;
	default:
		if (up)
			for (int32_t u = v; u < h->k; u += step)
				h->tmp[nb++] = (ir_block){at(h, n, u), 0};
		else
			for (int32_t r = 0; r < h->m->nranks; r++)
				h->tmp[nb++] = (ir_block){r, 0};
		break;
	}
	return ir_plan_add(p, src, dst, h->tmp, nb, 0);
}

/* Step 1 (up: every node's ranks to its leader, largest stride first)
 * or step 3 (down: from the leader, smallest stride first), all nodes
 * in the same phases. */
static int inside(struct hier *h, ir_plan *p, bool up)
{
	int32_t top = 1;
	while (top < h->k)
		top *= 2;
	int rc = 0;
	for (int32_t s = up ? top / 2 : 1; s >= 1 && s < top && rc == 0;
	     s = up ? s / 2 : s * 2) {
		rc = ir_plan_phase(p);
		for (int32_t n = 0; n < h->m->nnodes && rc == 0; n++)
			for (int32_t v = up ? s : 0;
			     v < (up ? 2 * s : s) && rc == 0; v++) {
				int32_t w = up ? v - s : v + s;
				if ((up ? v : w) >= h->k)
					break;
				int32_t a = at(h, n, v), b = at(h, n, w);
				rc = intra(h, p, n, v, a, b, up, 2 * s);
			}
	}
	return rc;
}

/* Step 2: the node plan t with node n played by its leader. */
static int between(struct hier *h, ir_plan *p, const ir_plan *t)
{
	bool many = h->c->coll == IR_GATHER || h->c->coll == IR_ALLGATHER;
	int rc = 0;
	for (uint32_t ph = 0; ph < t->nphases && rc == 0; ph++) {
		const ir_phase *f = &t->phases[ph];
		rc = ir_plan_phase(p);
		for (uint32_t j = 0; j < f->ntransfers && rc == 0; j++) {
			const ir_transfer *x = &t->transfers[f->transfer + j];
			size_t need = (size_t)x->nblocks * (many ? h->k : 1);
			rc = room(h, need);
			uint32_t nb = 0;
			for (uint32_t i = 0; i < x->nblocks && rc == 0; i++) {
				ir_block b = t->blocks[x->block + i];
				if (h->c->coll == IR_BCAST)
					h->tmp[nb++] =
					        (ir_block){h->c->root, b.index};
				else if (!many)
					h->tmp[nb++] = (ir_block){
					        h->lead[b.origin], b.index};
				else
					for (int32_t l = 0; l < h->k; l++)
						h->tmp[nb++] = (ir_block){
						        ir_node_rank(h->m,
						                     b.origin,
						                     l),
						        0};
			}
			if (rc == 0)
				rc = ir_plan_add(p, h->lead[x->src],
				                 h->lead[x->dst], h->tmp, nb,
				                 x->flags);
		}
	}
	return rc;
}

static int hier_generate(const ir_machine *m, const ir_comm *c,
                         const struct sch_options *o, ir_plan *p)
{
	struct hier h = {
	        .m = m, .c = c, .nm = *m, .nc = *c, .k = m->ranks_per_node};
	bool rooted = ir_coll_kind(c->coll) & IR_CK_ROOTED;
	int32_t root_node = rooted ? ir_node_of(m, c->root) : -1;
	ir_plan t;
	int rc;
	ir_plan_init(p, m, c, "hierarchical");
	/* the node machine and the collective on it */
	h.nm.ranks_per_node = 1;
	h.nm.placement = IR_PLACE_BLOCK;
	h.nm.ports = leader_ports(m);
	h.nm.node_ports = IR_PORTS_ALL;
	h.nm.nranks = m->nnodes;
	h.nc.root = rooted ? root_node : 0;
	h.nc.matrix = NULL;
	if (c->coll == IR_GATHER || c->coll == IR_ALLGATHER)
		h.nc.bytes = c->bytes * h.k;
	h.lead = malloc((size_t)m->nnodes * sizeof *h.lead);
	if (!h.lead)
		return CCP_ENOMEM;
	for (int32_t n = 0; n < m->nnodes; n++)
		h.lead[n] = n == root_node ? c->root : ir_node_rank(m, n, 0);
	rc = among_nodes(&h, o, &t);
	if (rc)
		goto out;
	/* the node plan chose the segments (element blocks) */
	p->comm.segments = t.comm.segments;
	h.nblk = c->coll == IR_BCAST
	                 ? (t.comm.segments > 0 ? t.comm.segments : 1)
	         : c->coll == IR_REDUCE || c->coll == IR_ALLREDUCE
	                 ? ir_reduce_blocks(&p->comm, m->nranks)
	                 : 1;
	size_t cap = (size_t)m->nranks > (size_t)h.nblk ? (size_t)m->nranks
	                                                : (size_t)h.nblk;
	h.ks = malloc((size_t)h.nblk * sizeof *h.ks);
	rc = h.ks ? room(&h, cap) : CCP_ENOMEM;
	bool up = c->coll != IR_BCAST, down = !rooted;
	if (rc == 0 && up)
		rc = inside(&h, p, true);
	if (rc == 0)
		rc = between(&h, p, &t);
	if (rc == 0 && (down || c->coll == IR_BCAST))
		rc = inside(&h, p, false);
	ir_plan_fini(&t);
	if (rc == 0)
		ir_plan_trim(p);
out:
	free(h.lead);
	free(h.tmp);
	free(h.ks);
	return rc;
}

/* Several ranks per node, which the one-rank machines do not have, and
 * ports for the transfers inside a node. */
static int hier_fits(const struct sch_generator *g, const ir_machine *m,
                     const ir_comm *c, char *why, size_t len)
{
	(void)g;
	(void)c;
	if (!ir_machine_has_nodes(m)) {
		snprintf(why, len,
		         "hierarchical needs nodes of several ranks "
		         "(ranks_per_node > 1); this machine has one rank per "
		         "node, where the collective among nodes is the whole "
		         "collective: name that generator instead");
		return CCP_ENOTAPPLY;
	}
	/* all-port gives a rank one port per network link of its node, and
	 * a lone node has none: the verifier would allow it no transfer */
	if (m->nnodes == 1 && m->ports == IR_PORTS_ALL) {
		snprintf(why, len,
		         "hierarchical: this machine is one node, whose ranks "
		         "have no network link and so no port under `ports: "
		         "all`; give them ports (for example `ports: one`)");
		return CCP_ENOTAPPLY;
	}
	return 0;
}

const struct sch_generator sch_hierarchical = {
        .name = "hierarchical",
        .summary = "broadcast, reduce, gather, allreduce, allgather on "
                   "nodes of several ranks: binomial trees inside nodes, "
                   "the best verified plan among node leaders between "
                   "them (ceil(lg k) + P (+ ceil(lg k)) phases)",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_BCAST) | SCH_C(IR_REDUCE) |
                            SCH_C(IR_GATHER) | SCH_C(IR_ALLREDUCE) |
                            SCH_C(IR_ALLGATHER),
                   .topos = SCH_T(IR_MESH) | SCH_T(IR_TORUS) |
                            SCH_T(IR_HYPERCUBE) | SCH_T(IR_SWITCH),
                   .takes = SCH_TAKES_ALL,
                   .where = "of nodes with several ranks",
                   .fits = hier_fits},
        .generate = hier_generate,
};
