/*
 * bine.c - Bine (binomial negabinary) trees and butterflies on any
 * machine (De Sensi et al., "Bine Trees: Enhancing Collective
 * Operations by Optimizing Communication Locality", SC '25;
 * docs/collectives.md).
 *
 * Ranks stand on a ring in rank order, which on fat trees and
 * dragonflies is host order: the hosts of one leaf switch or one group
 * are consecutive.  Where a binomial tree or butterfly pairs a rank with
 * the one 2^k away, Bine pairs position v with v + rho(k) when v is
 * even and v - rho(k) when odd (mod the ring), rho(k) = sum_{i<=k}
 * (-2)^i = 1, -1, 3, -5, 11, -21, ...: k + 1 ones in negabinary (base
 * -2), the numbering the paper names the trees after and writes its
 * rules in (rank2nb, nb2rank).  A partner at step k is |rho(k)| ~
 * 2^(k+1) / 3 away instead of 2^k, about a third closer, and a subtree
 * spans consecutive ranks: what keeps messages inside a group where
 * a binomial one leaves it (the paper's "up to 33%"), when the groups
 * do not line up with the powers of two that a binomial tree's subtrees
 * follow (docs/collectives.md measures both cases).
 *
 *   bine          broadcast: the tree with distance halving, step j
 *                 pairing by rho(s - 1 - j), s = lg q, lg q phases;
 *                 reduce: the same tree backwards.  allreduce: the
 *                 butterfly's reduce-scatter with distance doubling
 *                 (the vector halves while the distance grows: the
 *                 largest messages travel least), then its allgather
 *                 backwards, 2 lg q phases; reduce_scatter and
 *                 allgather: either half.  Each step a position gives
 *                 its partner the blocks of the positions the partner
 *                 reaches in the steps left (Swing's rule, NSDI '24, on
 *                 one ring of every rank).
 *   bine_latency  allreduce: the whole vector to the butterfly's
 *                 partner, combined, lg q phases.
 *
 * Rank counts other than a power of two: q = the largest power of two
 * <= n positions take part, spread evenly over the ring (position v at
 * offset floor(v n / q) from the root, or from rank 0), so that every
 * rank left out follows a position directly and gives it its data
 * first (a reduction, an allgather) or takes the result from it last:
 * one phase more on each side where needed, and the extra rank's
 * message goes to its neighbour, not across the machine as the usual
 * fold (r to r - q) sends it.  The paper states its collectives for
 * powers of two; the fold is ours.
 *
 * Contention: the partners are ring distances, not the machine's
 * coordinates, so a phase may share links; sch_finish declares it and,
 * under `contention: forbid`, splits the phase (a rank never sends in
 * a phase what it receives in it).  bine_latency cannot split: its
 * ranks send what they receive.  Reductions: every block of bine is
 * combined along one tree and copied afterwards (reproducible);
 * bine_latency's partners combine the same two partials in opposite
 * orders, as swing_latency's.
 */
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* The ring: n ranks, q = pow2_floor(n) positions, s = lg q steps,
 * position 0 at rank base. */
struct bine {
	int32_t n, q;
	int s;
	int32_t base;
};

static void bine_init(struct bine *b, int32_t n, int32_t base)
{
	b->n = n;
	b->q = sch_pow2_floor(n);
	b->s = 0;
	while ((1 << b->s) < b->q)
		b->s++;
	b->base = base;
}

/* The rank at offset x (mod n) from position 0's. */
static int32_t at(const struct bine *b, int64_t x)
{
	return (int32_t)((b->base + x) % b->n);
}

/* The rank of position v. */
static int32_t rank_of(const struct bine *b, int32_t v)
{
	return at(b, (int64_t)v * b->n / b->q);
}

/* The rank left out that follows position v and folds into it, or -1
 * (positions are at most two ranks apart). */
static int32_t extra_of(const struct bine *b, int32_t v)
{
	int64_t x = (int64_t)v * b->n / b->q;
	int64_t next = (int64_t)(v + 1) * b->n / b->q;
	return next - x == 2 ? at(b, x + 1) : -1;
}

/* Position v's partner in butterfly step k (rho(k) = sum_{i<=k} (-2)^i,
 * sch_swing_rho). */
static int32_t partner(const struct bine *b, int32_t v, int k)
{
	int64_t r = sch_swing_rho(k), q = b->q;
	int64_t w = v % 2 == 0 ? v + r : v - r;
	return (int32_t)(((w % q) + q) % q);
}

/* The positions v reaches in steps i .. s - 1 (itself included),
 * appended to vs at *nv: what v keeps of a reduce-scatter from step i
 * on, and what it holds of an allgather before step i - 1. */
static void reach(const struct bine *b, int32_t v, int i, int32_t *vs,
                  int32_t *nv)
{
	if (i == b->s) {
		vs[(*nv)++] = v;
		return;
	}
	reach(b, v, i + 1, vs, nv);
	reach(b, partner(b, v, i), i + 1, vs, nv);
}

/* The ranks of positions vs[0..nv) and of the ranks that fold into them,
 * written to ks (room for 2 nv); returns how many. */
static int32_t ranks_of(const struct bine *b, const int32_t *vs, int32_t nv,
                        int32_t *ks)
{
	int32_t nk = 0;
	for (int32_t j = 0; j < nv; j++) {
		int32_t e = extra_of(b, vs[j]);
		ks[nk++] = rank_of(b, vs[j]);
		if (e >= 0)
			ks[nk++] = e;
	}
	return nk;
}

/* ---- trees: broadcast and reduce ---------------------------------------- */

/* The broadcast tree from the root (position 0) as edges: step j, every
 * position holding the message sends it to its partner of butterfly
 * step s - 1 - j (distance halving); then each position to the rank
 * that folds into it.  reduce: each edge carries the receiver's partial
 * (the caller reverses the list).  held has room for q positions. */
static void tree(const struct bine *b, struct sch_edges *E,
                 const ir_block *blocks, uint32_t nblocks, bool reduce,
                 int32_t *held)
{
	int32_t nh = 1;
	held[0] = 0;
	for (int j = 0; j < b->s; j++) {
		int32_t had = nh;
		for (int32_t t = 0; t < had; t++) {
			int32_t w = partner(b, held[t], b->s - 1 - j);
			int32_t from = rank_of(b, held[t]), to = rank_of(b, w);
			ir_block partial = {to, 0};
			if (reduce)
				sch_edges_add(E, (uint32_t)j, from, to,
				              &partial, 1, IR_XF_REDUCE);
			else
				sch_edges_add(E, (uint32_t)j, from, to, blocks,
				              nblocks, 0);
			held[nh++] = w;
		}
	}
	for (int32_t v = 0; v < b->q; v++) {
		int32_t e = extra_of(b, v);
		ir_block partial = {e, 0};
		if (e < 0)
			continue;
		if (reduce)
			sch_edges_add(E, (uint32_t)b->s, rank_of(b, v), e,
			              &partial, 1, IR_XF_REDUCE);
		else
			sch_edges_add(E, (uint32_t)b->s, rank_of(b, v), e,
			              blocks, nblocks, 0);
	}
}

static int tree_generate(const ir_machine *m, const ir_comm *c,
                         const struct sch_options *o, ir_plan *p)
{
	struct bine b;
	struct sch_edges E = {0};
	bool reduce = c->coll == IR_REDUCE;
	int32_t nseg = !reduce && c->segments > 0 ? c->segments : 1;
	bine_init(&b, m->nranks, c->root);
	ir_plan_init(p, m, c, "bine");
	if (reduce)
		p->comm.segments = 1; /* the vector travels whole */
	ir_block *blocks = malloc((size_t)nseg * sizeof *blocks);
	int32_t *held = malloc((size_t)b.q * sizeof *held);
	int rc = blocks && held ? 0 : CCP_ENOMEM;
	if (rc == 0) {
		/* every segment travels together: the tree is not
		 * pipelined */
		for (int32_t k = 0; k < nseg; k++)
			blocks[k] = (ir_block){c->root, k};
		E.order = SCH_ORDER_SRC;
		tree(&b, &E, blocks, (uint32_t)nseg, reduce, held);
		if (reduce) /* backwards: the partner's partial to the holder */
			sch_edges_reverse(&E);
		rc = sch_edges_emit(&E, p);
	}
	sch_edges_fini(&E);
	free(blocks);
	free(held);
	/* a tree's rank sends only what it received in an earlier phase */
	return sch_finish(p, o, true, rc);
}

/* ---- butterflies: reduce_scatter, allgather, allreduce ------------------- */

/* Scratch of the butterflies: positions, ranks, blocks. */
struct room {
	int32_t *vs, *ks;
	ir_block *tmp;
};

/* Ranks ks[0..nk) as an allgather's blocks (rank, 0) from src to dst. */
static int gather_add(ir_plan *p, int32_t src, int32_t dst, const int32_t *ks,
                      int32_t nk, ir_block *tmp)
{
	for (int32_t j = 0; j < nk; j++)
		tmp[j] = (ir_block){ks[j], 0};
	return nk ? ir_plan_add(p, src, dst, tmp, (uint32_t)nk, 0) : 0;
}

/* The fold's first phase: every rank left out gives the position it
 * follows its block (allgather) or its K partials combined (a
 * reduction). */
static int fold_in(const struct bine *b, ir_plan *p, int32_t K, struct room *x)
{
	if (b->q == b->n)
		return 0;
	int rc = ir_plan_phase(p);
	for (int32_t v = 0; v < b->q && rc == 0; v++) {
		int32_t e = extra_of(b, v);
		if (e < 0)
			continue;
		if (p->comm.coll == IR_ALLGATHER)
			rc = gather_add(p, e, rank_of(b, v), &e, 1, x->tmp);
		else
			rc = sch_partial_range(p, e, rank_of(b, v), 0, K,
			                       IR_XF_REDUCE, x->ks, x->tmp);
	}
	return rc;
}

/* The fold's last phase: every position gives the rank that follows it
 * what that rank ends with: the K blocks of an allreduce, block e of a
 * reduce_scatter, every block but its own of an allgather. */
static int fold_out(const struct bine *b, ir_plan *p, int32_t K, struct room *x)
{
	if (b->q == b->n)
		return 0;
	int rc = ir_plan_phase(p);
	for (int32_t v = 0; v < b->q && rc == 0; v++) {
		int32_t e = extra_of(b, v), nk = 0, src = rank_of(b, v);
		if (e < 0)
			continue;
		switch (p->comm.coll) {
		case IR_ALLGATHER:
			for (int32_t k = 0; k < b->n; k++)
				if (k != e)
					x->ks[nk++] = k;
			rc = gather_add(p, src, e, x->ks, nk, x->tmp);
			break;
		case IR_REDUCE_SCATTER:
			rc = sch_partials(p, src, e, &e, 1, 0, x->tmp);
			break;
		default:
			rc = sch_partial_range(p, src, e, 0, K, 0, x->ks,
			                       x->tmp);
			break;
		}
	}
	return rc;
}

/* Butterfly step i of the reduce-scatter (combine) or of the allgather:
 * position v gives its partner w, combined, the blocks of the ranks w
 * keeps from step i + 1 on; or, as they are, those v holds, the ranks
 * v reaches from step i + 1 on.  Blocks are named by rank. */
static int step(const struct bine *b, ir_plan *p, int i, bool combine,
                struct room *x)
{
	bool gather = p->comm.coll == IR_ALLGATHER;
	int rc = ir_plan_phase(p);
	for (int32_t v = 0; v < b->q && rc == 0; v++) {
		int32_t w = partner(b, v, i), nv = 0;
		reach(b, combine ? w : v, i + 1, x->vs, &nv);
		int32_t nk = ranks_of(b, x->vs, nv, x->ks);
		if (gather)
			rc = gather_add(p, rank_of(b, v), rank_of(b, w), x->ks,
			                nk, x->tmp);
		else
			rc = sch_partials(p, rank_of(b, v), rank_of(b, w),
			                  x->ks, nk, combine ? IR_XF_REDUCE : 0,
			                  x->tmp);
	}
	return rc;
}

static int butterfly_generate(const ir_machine *m, const ir_comm *c,
                              const struct sch_options *o, ir_plan *p)
{
	struct bine b;
	int32_t n = m->nranks;
	bine_init(&b, n, 0);
	ir_plan_init(p, m, c, "bine");
	if (c->coll == IR_ALLREDUCE)
		p->comm.segments = n; /* one block per rank */
	struct room x = {malloc((size_t)b.q * sizeof *x.vs),
	                 malloc((size_t)n * sizeof *x.ks),
	                 malloc((size_t)n * sizeof *x.tmp)};
	int rc = x.vs && x.ks && x.tmp ? fold_in(&b, p, n, &x) : CCP_ENOMEM;
	/* reduce-scatter with distance doubling: the blocks halve as the
	 * partners move apart */
	if (c->coll != IR_ALLGATHER)
		for (int i = 0; i < b.s && rc == 0; i++)
			rc = step(&b, p, i, true, &x);
	/* then the allgather backwards, the largest messages last and to
	 * the nearest partner */
	if (c->coll != IR_REDUCE_SCATTER)
		for (int i = b.s - 1; i >= 0 && rc == 0; i--)
			rc = step(&b, p, i, false, &x);
	if (rc == 0)
		rc = fold_out(&b, p, n, &x);
	free(x.vs);
	free(x.ks);
	free(x.tmp);
	/* a rank sends the blocks its partner keeps and receives those it
	 * keeps: splitting keeps the meaning */
	return sch_finish(p, o, true, rc);
}

static int bine_generate(const ir_machine *m, const ir_comm *c,
                         const struct sch_options *o, ir_plan *p)
{
	if (c->coll == IR_BCAST || c->coll == IR_REDUCE)
		return tree_generate(m, c, o, p);
	return butterfly_generate(m, c, o, p);
}

static int bine_fits(const struct sch_generator *g, const ir_machine *m,
                     const ir_comm *c, char *why, size_t len)
{
	(void)g;
	return c->coll == IR_ALLREDUCE ? sch_blocks_fit(m->nranks, why, len)
	                               : 0;
}

const struct sch_generator sch_bine = {
        .name = "bine",
        .summary = "broadcast, reduce: Bine tree (De Sensi et al. 2025), "
                   "partners at +-1, 3, 5, 11, ... on the ring of ranks; "
                   "allgather, reduce_scatter, allreduce: Bine butterfly "
                   "(lg n phases a tree or half butterfly; other rank "
                   "counts fold into neighbours, 1 more each side)",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_BCAST) | SCH_C(IR_REDUCE) |
                            SCH_C(IR_ALLGATHER) | SCH_C(IR_REDUCE_SCATTER) |
                            SCH_C(IR_ALLREDUCE),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL,
                   .fits = bine_fits},
        .generate = bine_generate,
};

/* The latency-optimal allreduce: the fold, the whole vector to the
 * butterfly's partner lg q times, the result back to the folded ranks. */
static int bine_latency_generate(const ir_machine *m, const ir_comm *c,
                                 const struct sch_options *o, ir_plan *p)
{
	struct bine b;
	bine_init(&b, m->nranks, 0);
	ir_plan_init(p, m, c, "bine_latency");
	p->comm.segments = 1; /* one block: the vector */
	int32_t ks[1] = {0};
	ir_block tmp[1];
	struct room x = {NULL, ks, tmp};
	int rc = fold_in(&b, p, 1, &x);
	for (int i = 0; i < b.s && rc == 0; i++) {
		rc = ir_plan_phase(p);
		for (int32_t v = 0; v < b.q && rc == 0; v++)
			rc = sch_partials(p, rank_of(&b, v),
			                  rank_of(&b, partner(&b, v, i)), ks, 1,
			                  IR_XF_REDUCE, tmp);
	}
	if (rc == 0)
		rc = fold_out(&b, p, 1, &x);
	/* every rank sends what it receives: no split */
	return sch_finish(p, o, false, rc);
}

const struct sch_generator sch_bine_latency = {
        .name = "bine_latency",
        .summary = "allreduce: Bine's latency-optimal butterfly (De Sensi "
                   "et al. 2025), the whole vector to the partners at "
                   "+-1, 3, 5, 11, ... on the ring of ranks (lg n phases, "
                   "2 more for other rank counts)",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_ALLREDUCE),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = bine_latency_generate,
};
