/*
 * binomial.c - binomial-tree broadcast and reduce by recursive halving of
 * the machine's coordinate box.
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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* The coordinate space the halving works in. */
struct space {
	const ir_machine *m;
	int nd;                   /* dimensions */
	int ext[IR_MAX_CUBE_DIM]; /* extent of each */
};

struct edge {
	uint32_t phase;
	int32_t src, dst;
};

struct walk {
	const struct space *sp;
	struct edge *e;
	uint32_t ne;
	uint32_t nphases;
};

static void space_init(struct space *sp, const ir_machine *m)
{
	sp->m = m;
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		sp->nd = m->ndims;
		for (int k = 0; k < sp->nd; k++)
			sp->ext[k] = m->dims[k];
		break;
	case IR_HYPERCUBE:
		sp->nd = m->ndims;
		for (int k = 0; k < sp->nd; k++)
			sp->ext[k] = 2;
		break;
	default: /* a line of ranks */
		sp->nd = 1;
		sp->ext[0] = m->nranks;
		break;
	}
}

static int32_t space_rank(const struct space *sp, const int *c)
{
	if (sp->m->topo == IR_MESH || sp->m->topo == IR_TORUS ||
	    sp->m->topo == IR_HYPERCUBE)
		return ir_rank_of(sp->m, c);
	return c[0];
}

static void space_coords(const struct space *sp, int32_t r, int *c)
{
	if (sp->m->topo == IR_MESH || sp->m->topo == IR_TORUS ||
	    sp->m->topo == IR_HYPERCUBE)
		ir_coords(sp->m, r, c);
	else
		c[0] = r;
}

/* Split box [lo, hi) held at h, in the given phase; recurse on halves. */
static void halve(struct walk *w, int *lo, int *hi, int *h, uint32_t phase)
{
	const struct space *sp = w->sp;
	int d = -1, best = 1;
	for (int k = 0; k < sp->nd; k++)
		if (hi[k] - lo[k] > best) {
			best = hi[k] - lo[k];
			d = k;
		}
	if (d < 0) {
		if (phase > w->nphases)
			w->nphases = phase;
		return;
	}
	int half = (best + 1) / 2, mid = lo[d] + half;
	int partner[IR_MAX_CUBE_DIM];
	memcpy(partner, h, sizeof partner);
	if (h[d] < mid)
		partner[d] = h[d] + half < hi[d] ? h[d] + half : hi[d] - 1;
	else
		partner[d] = h[d] - half;
	w->e[w->ne++] = (struct edge){phase, space_rank(sp, h),
	                              space_rank(sp, partner)};
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

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->phase != y->phase)
		return x->phase < y->phase ? -1 : 1;
	return x->src < y->src ? -1 : x->src > y->src;
}

static int binomial_applies(const ir_machine *m, const ir_comm *c, char *why,
                            size_t len)
{
	if (c->coll != IR_BCAST && c->coll != IR_REDUCE) {
		snprintf(why, len,
		         "binomial is a broadcast or reduce; this is a %s",
		         ir_coll_name(c->coll));
		return CCP_ENOTAPPLY;
	}
	if (m->topo == IR_HPAM) {
		snprintf(why, len,
		         "binomial halves a single mesh, torus, hypercube or "
		         "switch; this machine is a two-level HPAM");
		return CCP_ENOTAPPLY;
	}
	return 0;
}

static int binomial_generate(const ir_machine *m, const ir_comm *c,
                             const struct sch_options *o, ir_plan *p)
{
	(void)o;
	int rc = 0;
	struct space sp;
	space_init(&sp, m);
	struct walk w = {&sp, NULL, 0, 0};
	ir_block *blocks = NULL;
	int32_t nseg = c->segments > 0 ? c->segments : 1;
	ir_plan_init(p, m, c, "binomial");
	w.e = malloc(((size_t)m->nranks + 1) * sizeof *w.e);
	blocks = malloc((size_t)nseg * sizeof *blocks);
	if (!w.e || !blocks) {
		rc = CCP_ENOMEM;
		goto out;
	}
	int lo[IR_MAX_CUBE_DIM] = {0}, hi[IR_MAX_CUBE_DIM], h[IR_MAX_CUBE_DIM];
	for (int k = 0; k < sp.nd; k++)
		hi[k] = sp.ext[k];
	space_coords(&sp, c->root, h);
	halve(&w, lo, hi, h, 0);
	bool reduce = c->coll == IR_REDUCE;
	if (reduce) /* backwards: partner -> holder in the mirrored phase */
		for (uint32_t k = 0; k < w.ne; k++)
			w.e[k] = (struct edge){w.nphases - 1 - w.e[k].phase,
			                       w.e[k].dst, w.e[k].src};
	qsort(w.e, w.ne, sizeof *w.e, cmp_edge);
	/* every segment travels together: the tree is not pipelined */
	for (int32_t s = 0; s < nseg; s++)
		blocks[s] = (ir_block){c->root, s};
	for (uint32_t k = 0; k < w.ne; k++) {
		if ((k == 0 || w.e[k].phase != w.e[k - 1].phase) &&
		    (rc = ir_plan_phase(p)) != 0)
			goto out;
		ir_block partial = {w.e[k].src, 0}; /* the sender's */
		if ((rc = reduce ? ir_plan_add(p, w.e[k].src, w.e[k].dst,
		                               &partial, 1, IR_XF_REDUCE)
		                 : ir_plan_add(p, w.e[k].src, w.e[k].dst,
		                               blocks, (uint32_t)nseg, 0)) != 0)
			goto out;
	}
out:
	free(w.e);
	free(blocks);
	return rc;
}

const struct sch_generator sch_binomial = {
        .name = "binomial",
        .summary = "broadcast and reduce: binomial tree by recursive "
                   "halving of the machine (lg N phases on power-of-two "
                   "machines)",
        .applies = binomial_applies,
        .generate = binomial_generate,
};
