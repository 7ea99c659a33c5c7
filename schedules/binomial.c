/*
 * binomial.c - binomial-tree broadcast, reduce, scatter and gather by
 * recursive halving of the machine's coordinate box.
 *
 * Each phase, every box that still has more than one rank is cut in two
 * across its longest dimension, and the rank holding the message sends it
 * to the rank at the same place in the other half.  Every message then
 * travels in a straight line inside its own box, so no two messages of a
 * phase share a link under dimension-ordered routing, for any mesh or
 * torus size and any root (the binary-tree broadcast of 000 section 3,
 * lg r + lg c phases).  On a hypercube the boxes are subcubes and this is
 * the binomial spanning tree; on a switch the box is the range of ranks.
 *
 * Reduce is the same tree run backwards (the reduction baseline of 001
 * §3.5): the partner of tree phase p sends its partial to the holder in
 * phase P-1-p, after its own half has combined into it.  The reversed
 * message still runs along one straight line inside its box (one
 * dimension, so dimension-ordered routing takes the same links backwards;
 * on a torus a route can wrap around only when it spans half its ring,
 * which happens only when the box spans the whole ring, so it stays in
 * its box either way; e-cube and direct routes are single links), so the
 * messages of a phase stay link-disjoint, and every rank still sends and
 * receives at most one message per phase.
 *
 * Scatter is the broadcast's tree carrying, on each edge, the root's
 * blocks for every rank of the partner's half (lg N phases on a
 * power-of-two machine, the data halving each phase: the binomial
 * scatter of MPI libraries); gather is that tree run backwards, each
 * partner returning its half's blocks.
 *
 * A machine whose ranks all share one node (the ranks of one host: an
 * MPI job on a workstation) has no network to halve: the box is then
 * the line of ranks, as on a switch, and every transfer goes through the
 * node's memory.  Several nodes of several ranks are the node-aware
 * generators' (hierarchical, bine).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* The coordinate box the halving works in: ir_coords' coordinates of
 * the machine (a switch is a line of ranks, a fat tree the box of its
 * hosts' places a_1..a_h), and what each cut sends. */
struct walk {
	const ir_machine *m;
	int nd;                   /* dimensions */
	int ext[IR_MAX_CUBE_DIM]; /* extent of each */
	struct sch_edges E;       /* holder -> partner, by tree phase */
	const ir_block *blocks; /* broadcast: the segments every edge carries */
	uint32_t nblocks;
	bool reduce;   /* each edge carries the partner's partial */
	enum ir_coll coll; /* scatter or gather: the half's blocks */
	int32_t root;
	ir_block *tmp;     /* scatter, gather: room for a half's blocks */
	bool top_down; /* fat tree: halve the highest level first, so a
	                  phase's transfers leave distinct subtrees */
	bool ranks;    /* one node holds every rank: the box is the line of
	                  ranks, not of the machine's coordinates */
};

/* The rank at place at of the box. */
static int32_t rank_at(const struct walk *w, const int *at)
{
	return w->ranks ? (int32_t)at[0] : ir_rank_of(w->m, at);
}

static void walk_init(struct walk *w, const ir_machine *m)
{
	w->m = m;
	w->ranks = ir_machine_has_nodes(m) && m->nnodes == 1;
	switch (w->ranks ? IR_SWITCH : m->topo) {
	case IR_MESH:
	case IR_TORUS:
		w->nd = m->ndims;
		for (int k = 0; k < w->nd; k++)
			w->ext[k] = m->dims[k];
		break;
	case IR_HYPERCUBE:
		w->nd = m->ndims;
		for (int k = 0; k < w->nd; k++)
			w->ext[k] = 2;
		break;
	case IR_FAT_TREE:  /* a host's place a_i under each level */
	case IR_DRAGONFLY: /* terminal, router, group: groups first */
		w->top_down = true;
		w->nd = m->ndims;
		for (int k = 0; k < w->nd; k++)
			w->ext[k] = m->dims[k];
		break;
	default: /* a line of ranks */
		w->nd = 1;
		w->ext[0] = m->nranks;
		break;
	}
}

/* The blocks of every rank of box [lo, hi) into w->tmp: the root's
 * block for it (scatter) or its own (gather); their number. */
static uint32_t box_blocks(struct walk *w, const int *lo, const int *hi)
{
	int at[IR_MAX_CUBE_DIM] = {0};
	uint32_t nb = 0;
	for (int k = 0; k < w->nd; k++)
		if (lo[k] >= hi[k])
			return 0;
	memcpy(at, lo, (size_t)w->nd * sizeof *at);
	for (;;) {
		int32_t r = rank_at(w, at);
		w->tmp[nb++] = w->coll == IR_GATHER ? (ir_block){r, 0}
		                                    : (ir_block){w->root, r};
		int k = 0;
		while (k < w->nd && ++at[k] == hi[k]) {
			at[k] = lo[k];
			k++;
		}
		if (k == w->nd)
			return nb;
	}
}

/* Split box [lo, hi) held at h, in the given phase, across its longest
 * side (a fat tree: its highest level); recurse on halves. */
static void halve(struct walk *w, int *lo, int *hi, int *h, uint32_t phase)
{
	int d = -1, best = 1;
	for (int k = 0; k < w->nd; k++)
		if (hi[k] - lo[k] > (w->top_down ? 1 : best)) {
			best = hi[k] - lo[k];
			d = k;
		}
	if (d < 0)
		return;
	int half = (best + 1) / 2, mid = lo[d] + half;
	int partner[IR_MAX_CUBE_DIM];
	memcpy(partner, h, sizeof partner);
	if (h[d] < mid)
		partner[d] = h[d] + half < hi[d] ? h[d] + half : hi[d] - 1;
	else
		partner[d] = h[d] - half;
	int32_t from = rank_at(w, h), to = rank_at(w, partner);
	ir_block partial = {to, 0}; /* what the partner returns in a reduce */
	if (w->reduce) {
		sch_edges_add(&w->E, phase, from, to, &partial, 1,
		              IR_XF_REDUCE);
	} else if (w->tmp) { /* scatter, gather: the partner's half */
		int plo[IR_MAX_CUBE_DIM], phi[IR_MAX_CUBE_DIM];
		memcpy(plo, lo, sizeof plo);
		memcpy(phi, hi, sizeof phi);
		if (h[d] < mid)
			plo[d] = mid;
		else
			phi[d] = mid;
		sch_edges_add(&w->E, phase, from, to, w->tmp,
		              box_blocks(w, plo, phi), 0);
	} else
		sch_edges_add(&w->E, phase, from, to, w->blocks, w->nblocks, 0);
	/* the two halves, each with its holder */
	int save_lo = lo[d], save_hi = hi[d];
	int *lower = h[d] < mid ? h : partner,
	    *upper = h[d] < mid ? partner : h;
	hi[d] = mid;
	halve(w, lo, hi, lower, phase + 1);
	hi[d] = save_hi;
	lo[d] = mid;
	halve(w, lo, hi, upper, phase + 1);
	lo[d] = save_lo;
}

static int binomial_generate(const ir_machine *m, const ir_comm *c,
                             const struct sch_options *o, ir_plan *p)
{
	(void)o;
	int rc = 0;
	struct walk w = {0};
	int32_t nseg = c->segments > 0 ? c->segments : 1;
	ir_block *blocks = malloc((size_t)nseg * sizeof *blocks);
	ir_plan_init(p, m, c, "binomial");
	bool spread = c->coll == IR_SCATTER || c->coll == IR_GATHER;
	if (spread)
		w.tmp = malloc((size_t)m->nranks * sizeof *w.tmp);
	if (!blocks || (spread && !w.tmp)) {
		rc = CCP_ENOMEM;
		goto out;
	}
	/* every segment travels together: the tree is not pipelined */
	for (int32_t s = 0; s < nseg; s++)
		blocks[s] = (ir_block){c->root, s};
	walk_init(&w, m);
	w.blocks = blocks;
	w.nblocks = (uint32_t)nseg;
	w.reduce = c->coll == IR_REDUCE;
	w.coll = c->coll;
	w.root = c->root;
	/* within a phase, transfers in order of their senders (of their
	 * receivers, once a gather runs backwards) */
	w.E.order = c->coll == IR_GATHER ? SCH_ORDER_DST : SCH_ORDER_SRC;
	int lo[IR_MAX_CUBE_DIM] = {0}, hi[IR_MAX_CUBE_DIM], h[IR_MAX_CUBE_DIM];
	for (int k = 0; k < w.nd; k++)
		hi[k] = w.ext[k];
	if (w.ranks)
		h[0] = c->root;
	else
		ir_coords(m, c->root, h);
	halve(&w, lo, hi, h, 0);
	/* backwards: partner -> holder in the mirrored phase */
	if (w.reduce || c->coll == IR_GATHER)
		sch_edges_reverse(&w.E);
	rc = sch_edges_emit(&w.E, p);
out:
	sch_edges_fini(&w.E);
	free(w.tmp);
	free(blocks);
	return rc;
}

/* Several ranks per node only when one node holds them all. */
static int binomial_fits(const struct sch_generator *g, const ir_machine *m,
                         const ir_comm *c, char *why, size_t len)
{
	if (ir_machine_has_nodes(m) && m->nnodes > 1) {
		snprintf(why, len,
		         "binomial takes several ranks per node only when one "
		         "node holds them all; this machine has %d nodes of %d "
		         "ranks (the node-aware generators take it)",
		         (int)m->nnodes, (int)m->ranks_per_node);
		return CCP_ENOTAPPLY;
	}
	return sch_fits_dfly_minimal(g, m, c, why, len);
}

const struct sch_generator sch_binomial = {
        .name = "binomial",
        .summary = "broadcast, reduce, scatter and gather: binomial tree "
                   "by recursive halving of the machine (lg N phases on "
                   "power-of-two machines; a scatter's data halves each "
                   "phase)",
        .doc = "verifier.md",
        .domain = {.colls = SCH_C(IR_BCAST) | SCH_C(IR_REDUCE) |
                            SCH_C(IR_SCATTER) | SCH_C(IR_GATHER),
                   .topos = SCH_T(IR_MESH) | SCH_T(IR_TORUS) |
                            SCH_T(IR_HYPERCUBE) | SCH_T(IR_SWITCH) |
                            SCH_T(IR_FAT_TREE) | SCH_T(IR_GRAPH) |
                            SCH_T(IR_DRAGONFLY),
                   .takes = SCH_TAKES_WRAP | SCH_TAKES_ORDER |
                            SCH_TAKES_ND | SCH_TAKES_NODES,
                   .where = "which it halves as one box (a dragonfly only with "
                            "minimal routing; several ranks per node only "
                            "when one node holds them all)",
                   .fits = binomial_fits},
        .generate = binomial_generate,
};
