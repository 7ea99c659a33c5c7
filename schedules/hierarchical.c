/*
 * hierarchical.c - node-aware broadcast, reduce, gather, allreduce and
 * allgather for machines whose nodes hold several ranks
 * (docs/collectives.md, "Node-aware collectives").
 *
 * A node has L leaders, its ranks at places 0 .. L-1 (places count a
 * node's ranks from its first leader: the rank of local index 0, or on a
 * rooted collective's root node the root).  Three steps, each in phases
 * of its own:
 *   1. inside every node at once, a binomial tree over the node's ranks
 *      brings their data to the leaders (reduce, gather, allreduce,
 *      allgather): place v to leader v mod L, ceil(lg(k / L)) phases for
 *      k ranks per node, shared memory only, one transfer per rank and
 *      phase;
 *   2. among nodes, L lanes at once: lane j is the collective among
 *      nodes on its part of the data, played by leader j of every node.
 *      Its plan is an existing generator's on the node machine (the
 *      machine with one rank per node, its ports those of a leader: the
 *      tighter of the rank's ports and the node's network ports), node n
 *      played by leader j of node sigma_j(n) for a symmetry sigma_j of
 *      the mesh or torus; of a short list of generators, the verified
 *      contention-free plan of the lowest price (below), the first on a
 *      tie;
 *   3. inside every node, a binomial tree from the leaders gives the
 *      result to the node's other ranks (broadcast, allreduce,
 *      allgather): ceil(lg(k / L)) phases.
 * With several leaders, the leaders cut the data among them after step 1
 * (L - 1 phases: a reduction's reduce-scatter into element blocks j,
 * j + L, ...; the root giving leader j a broadcast's segments j, j + L,
 * ...; a gather's leader j already holds places j, j + L, ...) and put it
 * together again before step 3 (L - 1 phases: an allgather among them, or
 * each giving the root its part), so no leader ever sends data another
 * leader received over the network: each carries its own lane.
 *
 * The plan of one leader is always built.  Several are tried only on a
 * mesh or torus that gives network costs, whose ranks have a number of
 * ports (under `ports: all` one rank already uses all of its node's):
 * up to min(k, node ports / a leader's ports) lanes, sigma_j taken in the
 * order (dimensions rotated by 0, not reversed), (0, reversed), (1, not),
 * ... among the rotations that keep extents and wraparound, each kept
 * when none of its phases uses a directed link that a lane before it
 * uses in that phase (and it cuts its part as lane 0 does).  With two
 * lanes or more, the plan is verified and priced, and replaces the plan
 * of one leader only when its price is lower: the choice is
 * deterministic, and where the leaders' extra phases inside nodes cost
 * more than the bytes the lanes take off every network phase (small
 * messages), one leader stays.  The price is the model's permutation
 * form with the shared-memory part (price()): per phase the larger of
 * t + M b and the busiest node's shm_alpha + bytes shm_beta; without
 * costs, the phases.
 *
 * Blocks of lane j's node plan become the machine's: a broadcast's
 * (root node, s) the root's segment s L + j, a reduction's partial
 * (n, b) the element block b L + j of leader j of sigma_j(n), which
 * holds its whole node's partial of it by then, and a gather's block of
 * node n the blocks of the ranks at places j, j + L, ... of sigma_j(n).
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
	int32_t *lead; /* place 0 of each node: its first leader */
	int32_t L;     /* leaders a node, places 0 .. L-1: lanes */
	int32_t *map;  /* L x nnodes: node n of lane j's node plan is node
	                  map[j * nnodes + n]; NULL: the identity (L = 1) */
	const ir_plan **lane; /* L node plans, lane j's */
	int32_t nblk;  /* broadcast: segments; reduction: element blocks */
	ir_block *tmp; /* room for the blocks of one transfer */
	int32_t *ks;   /* room for nblk element block indices */
	size_t cap;    /* entries of tmp */
};

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

/* Whether plan t verifies on its machine (the node machine, or the
 * machine of a plan with several leaders a node) without contention. */
static int verified(const ir_plan *t, bool *ok)
{
	ir_report rep;
	int rc = ir_verify(t, &rep);
	*ok = rc == 0 &&
	      !(t->flags & (IR_PLAN_LINK_CONTENTION | IR_PLAN_NODE_CONTENTION));
	ir_report_fini(&rep);
	return rc == CCP_EVERIFY ? 0 : rc;
}

/* The time of plan p by its machine's costs, in the model's permutation
 * form (docs/cost-models.md, "nodes"): a phase costs the larger of
 * t + M b, M its largest transfer between nodes (sch_phase_costs), and
 * the busiest node's shm_alpha + shm_beta times the bytes of the phase's
 * transfers inside it (priced as network transfers when the machine
 * gives no shared-memory cost).  Without network costs, the phases.
 * This is what chooses among plans here: schedules/ links no model. */
static int price(const ir_plan *p, double *us)
{
	const ir_machine *m = &p->machine;
	double t, b;
	if (!sch_phase_costs(m, &t, &b)) {
		*us = p->nphases;
		return 0;
	}
	bool shm = ir_machine_has_nodes(m) && ir_cost_has_shm(&m->cost);
	double sa = m->cost.shm_alpha > 0 ? m->cost.shm_alpha : 0;
	double sb = m->cost.shm_beta > 0 ? m->cost.shm_beta : 0;
	int64_t *load = shm ? calloc((size_t)m->nnodes, sizeof *load) : NULL;
	int32_t *hit = shm ? malloc((size_t)m->nnodes * sizeof *hit) : NULL;
	if (shm && (!load || !hit)) {
		free(load);
		free(hit);
		return CCP_ENOMEM;
	}
	double sum = 0;
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		const ir_phase *f = &p->phases[ph];
		int64_t net = -1, most = -1; /* largest message, node load */
		int32_t nhit = 0;
		for (uint32_t j = 0; j < f->ntransfers; j++) {
			const ir_transfer *x = &p->transfers[f->transfer + j];
			int32_t q = ir_node_of(m, x->src);
			if (!shm || q != ir_node_of(m, x->dst)) {
				net = x->bytes > net ? x->bytes : net;
				continue;
			}
			if (load[q] == 0)
				hit[nhit++] = q;
			load[q] += x->bytes > 0 ? x->bytes : 1;
		}
		for (int32_t i = 0; i < nhit; i++) {
			most = load[hit[i]] > most ? load[hit[i]] : most;
			load[hit[i]] = 0;
		}
		double a = net >= 0 ? t + (double)net * b : 0;
		double z = most >= 0 ? sa + (double)most * sb : 0;
		sum += a > z ? a : z;
	}
	free(load);
	free(hit);
	*us = sum;
	return 0;
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
	bool cuts; /* cuts the message into a part a node: tried only up
	              to CUT_BLOCKS */
};

/* The broadcast and the allreduces that cut the message into a part a
 * node (scatter_allgather; rabenseifner, bucket) make the whole plan
 * carry its g parts (segments, element blocks) for g nodes in every
 * transfer inside nodes, about n g blocks for n ranks (and as many
 * pieces to lower and write): tried while n g is at most this, so that
 * a plan stays within some tens of megabytes (576 nodes of 4 ranks,
 * 1.3 million blocks, made a 38 MB plan file and took 5 s instead of
 * 0.07 s). */
#define CUT_BLOCKS (INT64_C(1) << 19)

/* The candidates for collective coll, ended by an empty entry. */
static const struct candidate *candidates(enum ir_coll coll)
{
	static const struct candidate bcast[] = {
	        {NULL, &sch_binomial, NULL, false},
	        {"dimensional", NULL, NULL, false},
	        {"rd", NULL, NULL, false},
	        {"edn", NULL, NULL, false},
	        {"edn_torus", NULL, NULL, false},
	        {"sld", NULL, NULL, false},
	        {"sbt", NULL, NULL, false},
	        {"hokao", NULL, NULL, false},
	        {"scatter_allgather", NULL, NULL, true},
	        {NULL, NULL, NULL, false}};
	static const struct candidate reduce[] = {
	        {NULL, &sch_binomial, NULL, false},
	        {"edn_reduce", NULL, NULL, false},
	        {NULL, NULL, NULL, false}};
	static const struct candidate gather[] = {
	        {NULL, NULL, gather_tree, false},
	        {"tree_gather", NULL, NULL, false},
	        {"edn_gather", NULL, NULL, false},
	        {NULL, NULL, NULL, false}};
	static const struct candidate allgather[] = {
	        {"recursive_doubling", NULL, NULL, false},
	        {"bruck", NULL, NULL, false},
	        {"bucket", NULL, NULL, false},
	        {NULL, NULL, gather_bcast, false},
	        {"ring", NULL, NULL, false},
	        {NULL, NULL, NULL, false}};
	/* the allreduces that cut the vector (Rabenseifner, bucket) take
	 * at least the 2 ceil(lg g) phases of reduce_bcast, which comes
	 * first and wins their ties on phases; by the machine's costs they
	 * win on large vectors, each phase carrying a part of it */
	static const struct candidate allreduce[] = {
	        {"recursive_doubling", NULL, NULL, false},
	        {"swing_latency", NULL, NULL, false},
	        {NULL, &sch_reduce_bcast, NULL, false},
	        {"rabenseifner", NULL, NULL, true},
	        {"bucket", NULL, NULL, true},
	        {NULL, NULL, NULL, false}};
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

/* The plan among nodes: the verified, contention-free candidate of the
 * lowest price (the fewest phases without costs), the first on a tie,
 * into best; CCP_ENOTAPPLY when none is. */
static int among_nodes(const struct hier *h, const struct sch_options *o,
                       ir_plan *best)
{
	struct sch_options no = {0};
	if (o)
		no = *o;
	no.forbid_contention = true; /* split or refused, never contended */
	bool have = false;
	double best_us = 0;
	int rc = 0;
	for (const struct candidate *k = candidates(h->c->coll);
	     rc == 0 && (k->name || k->gen || k->build); k++) {
		if (k->cuts &&
		    (int64_t)h->m->nranks * h->nm.nranks > CUT_BLOCKS)
			continue;
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
		double us = 0;
		rc = verified(&t, &ok);
		if (rc == 0 && ok)
			rc = price(&t, &us);
		if (rc == 0 && ok && (!have || us < best_us)) {
			if (have)
				ir_plan_fini(best);
			*best = t;
			best_us = us;
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

/* The rank at place v of node n, counted from its leader (place 0); the
 * leaders are places 0 .. L-1. */
static int32_t at(const struct hier *h, int32_t n, int32_t v)
{
	int32_t l0 = ir_node_local(h->m, h->lead[n]);
	return ir_node_rank(h->m, n, (v + l0) % h->k);
}

/* Whether the collective combines vectors (reduce, allreduce). */
static bool reduces(const struct hier *h)
{
	return ir_coll_kind(h->c->coll) & IR_CK_REDUCES;
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

/* Step 1 (up: every node's ranks to its L leaders, largest stride
 * first) or step 3 (down: from the L leaders, smallest stride first),
 * all nodes in the same phases.  The strides are L, 2L, 4L, ... below
 * k, so place v ends up at (or comes from) leader v mod L, and a gather
 * leader l holds the blocks of the places l, l + L, l + 2L, ... */
static int inside(struct hier *h, ir_plan *p, bool up)
{
	int32_t top = h->L;
	while (top < h->k)
		top *= 2;
	int rc = 0;
	for (int32_t s = up ? top / 2 : h->L; s >= h->L && s < top && rc == 0;
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

/* A transfer from src to dst of class j, what lane j carries among
 * nodes: a broadcast's segments j, j + L, j + 2L, ..., a reduction's
 * partials of those element blocks (flags IR_XF_*), or the blocks of the
 * ranks at places j, j + L, ... of every node (gather, allgather). */
static int give(struct hier *h, ir_plan *p, int32_t src, int32_t dst, int32_t j,
                uint32_t flags)
{
	uint32_t nb = 0;
	if (reduces(h)) {
		int32_t nk = 0;
		for (int32_t b = j; b < h->nblk; b += h->L)
			h->ks[nk++] = b;
		return sch_partials(p, src, dst, h->ks, nk, flags, h->tmp);
	}
	if (h->c->coll == IR_BCAST)
		for (int32_t s = j; s < h->nblk; s += h->L)
			h->tmp[nb++] = (ir_block){h->c->root, s};
	else
		for (int32_t n = 0; n < h->m->nnodes; n++)
			for (int32_t v = j; v < h->k; v += h->L)
				h->tmp[nb++] = (ir_block){at(h, n, v), 0};
	return ir_plan_add(p, src, dst, h->tmp, nb, flags);
}

/* How the L leaders of a node trade classes, in L - 1 phases of
 * shared-memory transfers, one send and one receive a leader: in phase
 * s = 1 .. L-1, */
enum mix {
	MIX_SCATTER, /* the root (place 0) gives place s its class s */
	MIX_COMBINE, /* place i gives place i + s (mod L) its partials of
	                that place's class, combined there: a reduce-scatter
	                (leader d ends with its node's partials of class d) */
	MIX_SHARE,   /* place i gives place i + s its own class: an
	                allgather (every leader ends with every class) */
	MIX_COLLECT  /* place s gives the root its class s */
};

/* The L - 1 phases of mix `how`, in every node at once (the root's node
 * only for MIX_SCATTER and MIX_COLLECT); none with one leader. */
static int mix(struct hier *h, ir_plan *p, enum mix how)
{
	bool rooted = ir_coll_kind(h->c->coll) & IR_CK_ROOTED;
	int32_t rn = rooted ? ir_node_of(h->m, h->c->root) : -1;
	bool at_root = how == MIX_SCATTER || how == MIX_COLLECT;
	int rc = 0;
	for (int32_t s = 1; s < h->L && rc == 0; s++) {
		rc = ir_plan_phase(p);
		for (int32_t n = 0; n < h->m->nnodes && rc == 0; n++) {
			if (at_root) {
				if (n != rn)
					continue;
				int32_t a = at(h, n, 0), b = at(h, n, s);
				rc = how == MIX_SCATTER
				             ? give(h, p, a, b, s, 0)
				             : give(h, p, b, a, s, 0);
				continue;
			}
			for (int32_t i = 0; i < h->L && rc == 0; i++) {
				int32_t d = (i + s) % h->L;
				bool comb = how == MIX_COMBINE;
				rc = give(h, p, at(h, n, i), at(h, n, d),
				          comb ? d : i,
				          comb ? IR_XF_REDUCE : 0);
			}
		}
	}
	return rc;
}

/* ---- among nodes, several leaders a node ----------------------------------
 */

/* Node n of lane j's node plan: the machine's node it stands for. */
static int32_t lane_node(const struct hier *h, int32_t j, int32_t n)
{
	return h->map ? h->map[(size_t)j * (size_t)h->m->nnodes + n] : n;
}

/* Step 2: every lane's node plan at once, lane j's node n played by the
 * leader at place j of node lane_node(j, n), phase by phase.  Lane j's
 * segment (element block) b is the machine's b L + j; its block of node
 * n the blocks of n's ranks at places j, j + L, ... */
static int between(struct hier *h, ir_plan *p)
{
	bool many = h->c->coll == IR_GATHER || h->c->coll == IR_ALLGATHER;
	uint32_t most = 0;
	for (int32_t j = 0; j < h->L; j++)
		if (h->lane[j]->nphases > most)
			most = h->lane[j]->nphases;
	int rc = 0;
	for (uint32_t ph = 0; ph < most && rc == 0; ph++) {
		rc = ir_plan_phase(p);
		for (int32_t j = 0; j < h->L && rc == 0; j++) {
			const ir_plan *t = h->lane[j];
			if (ph >= t->nphases)
				continue;
			const ir_phase *f = &t->phases[ph];
			for (uint32_t i = 0; i < f->ntransfers && rc == 0;
			     i++) {
				const ir_transfer *x =
				        &t->transfers[f->transfer + i];
				size_t need = (size_t)x->nblocks *
				              (many ? (size_t)h->k : 1);
				rc = room(h, need);
				uint32_t nb = 0;
				for (uint32_t q = 0; q < x->nblocks && rc == 0;
				     q++) {
					ir_block b = t->blocks[x->block + q];
					int32_t o = lane_node(h, j, b.origin);
					int32_t s = b.index * h->L + j;
					if (h->c->coll == IR_BCAST)
						h->tmp[nb++] = (ir_block){
						        h->c->root, s};
					else if (!many)
						h->tmp[nb++] = (ir_block){
						        at(h, o, j), s};
					else
						for (int32_t v = j; v < h->k;
						     v += h->L)
							h->tmp[nb++] =
							        (ir_block){
							                at(h, o,
							                   v),
							                0};
				}
				int32_t a = at(h, lane_node(h, j, x->src), j);
				int32_t d = at(h, lane_node(h, j, x->dst), j);
				if (rc == 0)
					rc = ir_plan_add(p, a, d, h->tmp, nb,
					                 x->flags);
			}
		}
	}
	return rc;
}

/* The whole plan of h's L lanes (node plans h->lane) into p:
 *   up the trees to the L leaders (not a broadcast), then the leaders
 *   cut the data among them (a reduction: MIX_COMBINE; a broadcast's
 *   root: MIX_SCATTER); the lanes among nodes; then the leaders put it
 *   together again (broadcast, allreduce, allgather: MIX_SHARE; reduce,
 *   gather: MIX_COLLECT at the root) and, every rank wanting the
 *   result, down the trees from the L leaders.  With one leader the mix
 *   steps are empty. */
static int assemble(struct hier *h, ir_plan *p)
{
	const ir_machine *m = h->m;
	const ir_comm *c = h->c;
	const ir_plan *t = h->lane[0];
	bool rooted = ir_coll_kind(c->coll) & IR_CK_ROOTED;
	ir_plan_init(p, m, c, "hierarchical");
	/* the node plans chose the segments (element blocks) of a lane */
	int32_t per = c->coll == IR_BCAST
	                      ? (t->comm.segments > 0 ? t->comm.segments : 1)
	              : reduces(h) ? ir_reduce_blocks(&t->comm, h->nm.nranks)
	                           : 1;
	p->comm.segments = h->L > 1 && (c->coll == IR_BCAST || reduces(h))
	                           ? per * h->L
	                           : t->comm.segments;
	h->nblk = c->coll == IR_BCAST
	                  ? (p->comm.segments > 0 ? p->comm.segments : 1)
	          : reduces(h) ? ir_reduce_blocks(&p->comm, m->nranks)
	                       : 1;
	size_t cap = (size_t)m->nranks > (size_t)h->nblk ? (size_t)m->nranks
	                                                 : (size_t)h->nblk;
	free(h->ks);
	h->ks = malloc((size_t)h->nblk * sizeof *h->ks);
	int rc = h->ks ? room(h, cap) : CCP_ENOMEM;
	bool up = c->coll != IR_BCAST, down = !rooted;
	if (rc == 0 && up)
		rc = inside(h, p, true);
	if (rc == 0 && (reduces(h) || c->coll == IR_BCAST))
		rc = mix(h, p, reduces(h) ? MIX_COMBINE : MIX_SCATTER);
	if (rc == 0)
		rc = between(h, p);
	if (rc == 0)
		rc = mix(h, p,
		         down || c->coll == IR_BCAST ? MIX_SHARE : MIX_COLLECT);
	if (rc == 0 && (down || c->coll == IR_BCAST))
		rc = inside(h, p, false);
	if (rc == 0)
		ir_plan_trim(p);
	else
		ir_plan_fini(p);
	return rc;
}

/* Symmetry (s, r) of the node machine (a mesh or torus): the node at
 * coordinates c goes to the one at c' with c'[d] = c[(d + s) mod nd],
 * reversed (c'[d] = extent - 1 - c'[d]) in every dimension when r; into
 * map[0 .. nnodes).  False when rotating by s does not keep every
 * dimension's extent and wraparound. */
static bool symmetry(const ir_machine *nm, int s, bool r, int32_t *map)
{
	int nd = nm->ndims;
	for (int d = 0; d < nd; d++) {
		int e = (d + s) % nd;
		if (nm->dims[e] != nm->dims[d] ||
		    (((nm->wrap >> e) ^ (nm->wrap >> d)) & 1u))
			return false;
	}
	int cd[IR_MAX_CUBE_DIM], q[IR_MAX_CUBE_DIM];
	memset(q, 0, sizeof q);
	for (int32_t n = 0; n < nm->nranks; n++) {
		ir_coords(nm, n, cd);
		for (int d = 0; d < nd; d++) {
			int v = cd[(d + s) % nd];
			q[d] = r ? nm->dims[d] - 1 - v : v;
		}
		map[n] = ir_rank_of(nm, q);
	}
	return true;
}

/* The directed links each phase of the lanes taken so far uses, sorted:
 * id[ph][0 .. n[ph]). */
struct links {
	uint64_t **id;
	size_t *n;
	uint32_t nph;
};

static void links_fini(struct links *l)
{
	for (uint32_t ph = 0; ph < l->nph; ph++)
		free(l->id[ph]);
	free(l->id);
	free(l->n);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Whether node plan t, its node n standing for node map[n], would use a
 * directed link twice in some phase, or one that the lanes of l use in
 * that phase (*clash); without a clash and with add, its links join l. */
static int links_check(struct links *l, const ir_machine *nm, const ir_plan *t,
                       const int32_t *map, bool add, bool *clash)
{
	int hmax = ir_route_max(nm);
	int rc = 0;
	*clash = false;
	if (add && t->nphases > l->nph) {
		uint64_t **id = realloc(l->id, t->nphases * sizeof *id);
		if (id)
			l->id = id;
		size_t *n = id ? realloc(l->n, t->nphases * sizeof *n) : NULL;
		if (!n)
			return CCP_ENOMEM;
		l->n = n;
		for (uint32_t ph = l->nph; ph < t->nphases; ph++) {
			l->id[ph] = NULL;
			l->n[ph] = 0;
		}
		l->nph = t->nphases;
	}
	for (uint32_t ph = 0; ph < t->nphases && rc == 0 && !*clash; ph++) {
		const ir_phase *f = &t->phases[ph];
		size_t old = ph < l->nph ? l->n[ph] : 0;
		uint64_t *ids = malloc(
		        ((size_t)f->ntransfers * (size_t)hmax + old + 1) *
		        sizeof *ids);
		if (!ids) {
			rc = CCP_ENOMEM;
			break;
		}
		size_t k = 0;
		if (old)
			memcpy(ids, l->id[ph], old * sizeof *ids);
		k = old;
		for (uint32_t j = 0; j < f->ntransfers; j++) {
			const ir_transfer *x = &t->transfers[f->transfer + j];
			k += (size_t)ir_route(nm, map[x->src], map[x->dst],
			                      ids + k);
		}
		qsort(ids, k, sizeof *ids, cmp_u64);
		for (size_t i = 1; i < k && !*clash; i++)
			*clash = ids[i] == ids[i - 1];
		if (add && !*clash) {
			free(l->id[ph]);
			l->id[ph] = ids;
			l->n[ph] = k;
		} else {
			free(ids);
		}
	}
	return rc;
}

/* The most leaders a node may have: each plays its own lane with the
 * ports of a leader (leader_ports), and together they fit the node's
 * network ports; at most k.  1 (one leader) where lanes are not tried:
 * a machine without costs, which cannot price the choice (the lanes add
 * phases inside nodes and cut the bytes of the network phases), a
 * machine other than a mesh or torus (its symmetries are not built
 * here), and all-port ranks, each of which uses every port of its node
 * alone. */
static int32_t lanes_max(const struct hier *h)
{
	const ir_machine *m = h->m;
	double t, b;
	if ((m->topo != IR_MESH && m->topo != IR_TORUS) ||
	    m->ports == IR_PORTS_ALL || !sch_phase_costs(m, &t, &b))
		return 1;
	uint32_t lim = UINT32_MAX;
	if (m->node_ports != IR_PORTS_ALL)
		lim = (uint32_t)m->node_ports;
	else
		for (int32_t n = 0; n < m->nnodes; n++) {
			uint32_t q = sch_node_port_limit(m, n);
			lim = q < lim ? q : lim;
		}
	uint32_t L = lim / (uint32_t)leader_ports(m);
	return L < (uint32_t)h->k ? (int32_t)L : h->k;
}

/* Segments (element blocks) lane plan t cuts its part into. */
static int32_t lane_parts(const struct hier *h, const ir_plan *t)
{
	if (h->c->coll == IR_BCAST)
		return t->comm.segments > 0 ? t->comm.segments : 1;
	return reduces(h) ? ir_reduce_blocks(&t->comm, h->nm.nranks) : 1;
}

/* Up to `want` lanes into h (h->L, h->map, h->lane), their plans in
 * own[]: lane j is the node plan of the collective among nodes (for a
 * rooted one, rooted where the symmetry takes the root's node) moved by
 * the j-th symmetry of the node machine in the order (rotation 0,
 * reversed or not), (rotation 1, ...), ... that keeps every phase free of
 * a directed link shared with the lanes before it, and cuts its part
 * into as many segments as lane 0.  h->L is 1 when no second lane fits. */
static int find_lanes(struct hier *h, const struct sch_options *o, int32_t want,
                      ir_plan *own, int32_t *nownp)
{
	int32_t nn = h->m->nnodes;
	bool rooted = ir_coll_kind(h->c->coll) & IR_CK_ROOTED;
	int32_t rn = rooted ? ir_node_of(h->m, h->c->root) : 0;
	int32_t *inv = malloc((size_t)nn * sizeof *inv);
	h->map = malloc((size_t)want * (size_t)nn * sizeof *h->map);
	struct links l = {NULL, NULL, 0};
	int32_t L = 0, nown = 0;
	int rc = inv && h->map ? 0 : CCP_ENOMEM;
	for (int s = 0; s < h->nm.ndims && L < want && rc == 0; s++)
		for (int r = 0; r < 2 && L < want && rc == 0; r++) {
			int32_t *mj = h->map + (size_t)L * (size_t)nn;
			if (!symmetry(&h->nm, s, r, mj))
				continue;
			const ir_plan *t = &own[0];
			bool fresh = rooted || L == 0;
			if (fresh) {
				for (int32_t n = 0; n < nn; n++)
					inv[mj[n]] = n;
				struct hier g = *h;
				g.nc.root = inv[rn];
				ir_plan *u = &own[nown];
				int r2 = among_nodes(&g, o, u);
				if (r2 == CCP_ENOTAPPLY)
					continue;
				if ((rc = r2) != 0)
					break;
				nown++;
				t = u;
			}
			bool clash = L > 0 && lane_parts(h, t) !=
			                              lane_parts(h, h->lane[0]);
			if (!clash)
				rc = links_check(&l, &h->nm, t, mj, false,
				                 &clash);
			if (rc == 0 && !clash)
				rc = links_check(&l, &h->nm, t, mj, true,
				                 &clash);
			if (rc == 0 && !clash)
				h->lane[L++] = t;
			else if (fresh)
				ir_plan_fini(&own[--nown]);
		}
	links_fini(&l);
	free(inv);
	h->L = L > 0 ? L : 1;
	*nownp = nown;
	return rc;
}

/* The collective a lane carries among nodes, into h->nc: its part of a
 * broadcast's message or of a reduction's vector, want lanes cutting it
 * (a broadcast's given segments shared among them), or the blocks of
 * ceil(k / want) ranks a node (gather, allgather).  False when the data
 * does not cut into want parts. */
static bool lane_comm(struct hier *h, int32_t want)
{
	const ir_comm *c = h->c;
	if (c->coll == IR_BCAST) {
		if (c->segments > 1 && c->segments % want)
			return false;
		h->nc.segments =
		        c->segments > 1 ? c->segments / want : c->segments;
		h->nc.bytes = (c->bytes + want - 1) / want;
		return c->bytes >= want;
	}
	if (reduces(h)) {
		int64_t es = ir_dtype_size(c->dtype);
		int64_t e = es > 0 ? c->bytes / es : 0;
		h->nc.bytes = (e + want - 1) / want * es;
		return e >= want;
	}
	h->nc.bytes = c->bytes * ((h->k + want - 1) / want);
	return true;
}

/* One try of want lanes (find_lanes): the plan they make verified and
 * priced against p (one leader's, or an earlier try's), and kept in p
 * only when cheaper.  *retry: the lanes found when they are fewer than
 * want (and more than one), else 0: their parts were cut and priced for
 * want (lane_comm), so a try cut for as many as fit may do better (or,
 * its lane 0 another generator, find fewer: p keeps the cheaper). */
static int lanes_once(struct hier *h, const struct sch_options *o, int32_t want,
                      ir_plan *p, int32_t *retry)
{
	ir_plan *own = calloc((size_t)want, sizeof *own);
	const ir_plan **lane = malloc((size_t)want * sizeof *lane);
	int32_t nown = 0;
	int rc = own && lane ? 0 : CCP_ENOMEM;
	*retry = 0;
	h->lane = lane;
	if (rc == 0)
		rc = find_lanes(h, o, want, own, &nown);
	/* a broadcast's given segments, and a reduction's element blocks,
	 * must cut into the lanes found */
	int64_t parts = rc == 0 && h->L > 1
	                        ? (int64_t)lane_parts(h, lane[0]) * h->L
	                        : 0;
	int64_t es = ir_dtype_size(h->c->dtype);
	bool fits = h->L > 1;
	if (fits && h->c->coll == IR_BCAST)
		fits = h->c->segments > 1 ? parts == h->c->segments
		                          : parts <= h->c->bytes;
	else if (fits && reduces(h))
		fits = es > 0 && parts <= h->c->bytes / es &&
		       parts <= IR_MAX_SEGMENTS;
	if (rc == 0 && h->L > 1 && h->L < want)
		*retry = h->L;
	ir_plan q;
	if (rc == 0 && fits && (rc = assemble(h, &q)) == 0) {
		bool ok = false;
		double one = 0, many = 0;
		rc = verified(&q, &ok);
		if (rc == 0 && ok)
			rc = price(p, &one);
		if (rc == 0 && ok)
			rc = price(&q, &many);
		if (rc == 0 && ok && many < one) {
			ir_plan_fini(p);
			*p = q;
		} else {
			ir_plan_fini(&q);
		}
	}
	for (int32_t j = 0; j < nown; j++)
		ir_plan_fini(&own[j]);
	free(own);
	free(lane);
	free(h->map);
	h->map = NULL;
	h->lane = NULL;
	return rc;
}

/* Several leaders a node, when the machine's costs say they pay: up to
 * lanes_max lanes, fewer when the data does not cut into that many
 * parts (lane_comm), and once more with the lanes found when fewer
 * symmetries fit than were wanted. */
static int try_lanes(struct hier *h, const struct sch_options *o, ir_plan *p)
{
	int32_t want = lanes_max(h);
	int rc = 0;
	while (rc == 0 && want >= 2) {
		if (!lane_comm(h, want)) {
			want--;
			continue;
		}
		int32_t retry;
		rc = lanes_once(h, o, want, p, &retry);
		want = retry;
	}
	return rc;
}

static int hier_generate(const ir_machine *m, const ir_comm *c,
                         const struct sch_options *o, ir_plan *p)
{
	struct hier h = {.m = m,
	                 .c = c,
	                 .nm = *m,
	                 .nc = *c,
	                 .k = m->ranks_per_node,
	                 .L = 1};
	bool rooted = ir_coll_kind(c->coll) & IR_CK_ROOTED;
	int32_t root_node = rooted ? ir_node_of(m, c->root) : -1;
	ir_plan t;
	int rc;
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
	/* one leader a node */
	rc = among_nodes(&h, o, &t);
	if (rc)
		goto out;
	const ir_plan *one[1] = {&t};
	h.lane = one;
	rc = assemble(&h, p);
	ir_plan_fini(&t);
	if (rc == 0 && (rc = try_lanes(&h, o, p)) != 0)
		ir_plan_fini(p);
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
	/* among nodes a reduce has only the binomial tree and a gather only
	 * gather trees, which a detour through a third group may cross */
	if (m->topo == IR_DRAGONFLY && m->routing != IR_ROUTE_MINIMAL &&
	    (c->coll == IR_REDUCE || c->coll == IR_GATHER)) {
		snprintf(why, len,
		         "hierarchical: its %s among node leaders is a tree "
		         "free of contention on a dragonfly only under minimal "
		         "routing; this dragonfly routes %s",
		         ir_coll_name(c->coll), ir_routing_name(m->routing));
		return CCP_ENOTAPPLY;
	}
	return 0;
}

const struct sch_generator sch_hierarchical = {
        .name = "hierarchical",
        .summary = "broadcast, reduce, gather, allreduce, allgather on "
                   "nodes of several ranks: binomial trees inside nodes, "
                   "the best verified plan among node leaders between "
                   "them (ceil(lg k) + P (+ ceil(lg k)) phases); several "
                   "leaders a node, a lane each among nodes, where the "
                   "machine's costs favour them",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_BCAST) | SCH_C(IR_REDUCE) |
                            SCH_C(IR_GATHER) | SCH_C(IR_ALLREDUCE) |
                            SCH_C(IR_ALLGATHER),
                   .topos = SCH_T(IR_MESH) | SCH_T(IR_TORUS) |
                            SCH_T(IR_HYPERCUBE) | SCH_T(IR_SWITCH) |
                            SCH_T(IR_FAT_TREE) | SCH_T(IR_GRAPH) |
                            SCH_T(IR_DRAGONFLY),
                   .takes = SCH_TAKES_ALL,
                   .where = "of nodes with several ranks (reduce and "
                            "gather on a dragonfly only with minimal "
                            "routing)",
                   .fits = hier_fits},
        .generate = hier_generate,
};
