/*
 * hypercube.c - broadcasts on an n-cube with e-cube routing (paper 002,
 * Jeon & Kim, pipelined broadcast with enhanced wormhole routers).
 *
 * Three generators:
 *   sbt      the one-port spanning binomial tree (002 §2, ref. [6]):
 *            n phases, the whole message per transfer.
 *   hokao    an all-port broadcast in the spirit of Ho and Kao (002 §2,
 *            ref. [7], cost eq. 1): each phase, every holder sends the
 *            whole message to up to n new ranks over e-cube routes that
 *            share no directed link with any other route of the phase.
 *            The targets are chosen greedily, farthest from every rank
 *            already reached first; this is not Ho and Kao's own
 *            construction (002 gives only its cost), see docs/hypercube.md.
 *   reptree  the replication tree of 002 §2 (Algorithms A and B of
 *            Fig. 5) in software: the message is cut into m segments that
 *            flow down the tree one phase behind each other, so the plan
 *            has depth + m - 1 = n + m - 1 phases (002 O(n+m-1)).
 *
 * The replication tree and the SBT are the same tree: the children of a
 * node T of a broadcast from S are T xor 2^i for every i below the lowest
 * set bit of S xor T (the root: every i < n).  Every tree edge is one
 * cube link, so no two transfers of a phase can share a link as long as
 * each edge carries at most one transfer per phase.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* Largest cube hokao searches: the greedy costs O(N^2) per plan. */
#define HOKAO_MAX_DIM 12

/* ---- helpers -------------------------------------------------------- */

/* Number of set bits; popcount without compiler builtins. */
static int bit_count(uint32_t x)
{
	int k = 0;
	for (; x; x &= x - 1)
		k++;
	return k;
}

/* The rest of where they apply: a plan of at most (N - 1) x segments
 * blocks, which fits the plan's 32-bit counters. */
static int cube_fits(const struct sch_generator *g, const ir_machine *m,
                     const ir_comm *c, char *why, size_t len)
{
	/* every non-root rank receives every segment once: one block each */
	uint64_t nseg = c->segments > 0 ? (uint64_t)c->segments : 1;
	uint64_t nblocks = ((uint64_t)m->nranks - 1) * nseg;
	if (nblocks > UINT32_MAX) {
		snprintf(
		        why, len,
		        "%s would carry (2^%d - 1) x %llu segment blocks, more "
		        "than a plan holds (2^32 - 1)",
		        g->name, m->ndims, (unsigned long long)nseg);
		return CCP_ENOTAPPLY;
	}
	return 0;
}

/* The segment blocks (root, 0..nseg) in blocks[]; freed by the caller. */
static ir_block *all_segments(const ir_comm *c, int32_t nseg)
{
	ir_block *b = malloc((size_t)nseg * sizeof *b);
	if (b)
		for (int32_t s = 0; s < nseg; s++)
			b[s] = (ir_block){c->root, s};
	return b;
}

/* ---- sbt: spanning binomial tree, one-port -------------------------- */

/* Phase j crosses dimension n-1-j: every rank that holds the message
 * (the root xor any pattern of the dimensions above) sends it across.
 * One send and one receive per rank and phase; every route is one link,
 * distinct per sender.  The replication tree's edges, taken one child
 * per phase (002 §2, SBT ref. [6]). */
static int sbt_generate(const ir_machine *m, const ir_comm *c,
                        const struct sch_options *o, ir_plan *p)
{
	(void)o;
	int rc = 0, n = m->ndims;
	int32_t nseg = c->segments > 0 ? c->segments : 1;
	uint32_t s = (uint32_t)c->root;
	ir_plan_init(p, m, c, "sbt");
	ir_block *blocks = all_segments(c, nseg);
	if (!blocks)
		return CCP_ENOMEM;
	for (int j = 0; j < n; j++) {
		int d = n - 1 - j;
		uint32_t low = (UINT32_C(1) << (d + 1)) - 1;
		if ((rc = ir_plan_phase(p)) != 0)
			goto out_free_blocks;
		for (uint32_t x = 0; x < (uint32_t)m->nranks; x++) {
			if (x & low) /* x = T xor S: only bits above d */
				continue;
			uint32_t t = x ^ s, u = t ^ (UINT32_C(1) << d);
			if ((rc = ir_plan_add(p, (int32_t)t, (int32_t)u, blocks,
			                      (uint32_t)nseg, 0)) != 0)
				goto out_free_blocks;
		}
	}
out_free_blocks:
	free(blocks);
	return rc;
}

/* ---- hokao: all-port, link-disjoint e-cube routes per phase ---------- */

/* Where hokao applies: cube_fits, and a machine its search finishes
 * on. */
static int hokao_fits(const struct sch_generator *g, const ir_machine *m,
                      const ir_comm *c, char *why, size_t len)
{
	int rc = cube_fits(g, m, c, why, len);
	if (rc == 0 && m->ndims > HOKAO_MAX_DIM) {
		snprintf(
		        why, len,
		        "hokao's greedy route search is quadratic in ranks and "
		        "limited to %d-cubes; this machine is a %d-cube",
		        HOKAO_MAX_DIM, m->ndims);
		return CCP_ENOTAPPLY;
	}
	return rc;
}
/* State of the greedy, in labels relative to the root (x = T xor S);
 * xor with S is a cube automorphism that keeps e-cube routes'
 * bit order, so disjointness does not depend on the root. */
struct hk {
	const ir_machine *m;
	int n;          /* dimension */
	uint32_t nr;    /* ranks */
	uint32_t root;  /* S */
	uint8_t *dist;  /* distance to the nearest rank reached or
	                   targeted; 0 = has it or gets it this phase */
	uint8_t *used;  /* per directed link id: used this phase */
	uint32_t *hold; /* relative labels that hold the message */
	uint32_t nhold;
	uint64_t *route; /* scratch for ir_route */
};

/* A new target x: every rank's distance to the reached set shrinks. */
static void hk_reach(struct hk *h, uint32_t x)
{
	for (uint32_t y = 0; y < h->nr; y++) {
		int d = bit_count(x ^ y);
		if (d < h->dist[y])
			h->dist[y] = (uint8_t)d;
	}
}

/* Try to send from holder a to target x: true (and the links marked)
 * if the e-cube route shares no link with the phase's earlier routes. */
static bool hk_try(struct hk *h, uint32_t a, uint32_t x)
{
	int k = ir_route(h->m, (int32_t)(a ^ h->root), (int32_t)(x ^ h->root),
	                 h->route);
	for (int i = 0; i < k; i++)
		if (h->used[h->route[i]])
			return false;
	for (int i = 0; i < k; i++)
		h->used[h->route[i]] = 1;
	return true;
}

/* True when every link out of holder a is taken this phase. */
static bool hk_blocked(const struct hk *h, uint32_t a)
{
	uint64_t base = (uint64_t)(a ^ h->root) * (uint64_t)h->n;
	for (int b = 0; b < h->n; b++)
		if (!h->used[base + (uint64_t)b])
			return false;
	return true;
}

/* One phase: each holder, in order of label, takes up to n targets,
 * farthest from everything reached so far first (ties: lowest label),
 * whose route is link-disjoint from the phase's others.  Each rank is
 * a target at most once, so receives stay at one per rank.  The new
 * holders join at the end of the phase (causality).  Returns the
 * number of transfers added, or a negative code. */
static int hk_phase(struct hk *h, ir_plan *p, const ir_block *blocks,
                    uint32_t nseg, uint32_t *fresh)
{
	int rc;
	uint32_t nfresh = 0;
	memset(h->used, 0, (size_t)h->nr * (size_t)h->n);
	if ((rc = ir_plan_phase(p)) != 0)
		return rc;
	for (uint32_t i = 0; i < h->nhold; i++) {
		uint32_t a = h->hold[i];
		int sends = 0;
		for (int d = h->n; d >= 1 && sends < h->n; d--) {
			for (uint32_t x = 0; x < h->nr && sends < h->n; x++) {
				if (h->dist[x] != d || !hk_try(h, a, x))
					continue;
				rc = ir_plan_add(p, (int32_t)(a ^ h->root),
				                 (int32_t)(x ^ h->root), blocks,
				                 nseg, 0);
				if (rc)
					return rc;
				hk_reach(h, x);
				fresh[nfresh++] = x;
				sends++;
				if (hk_blocked(h, a))
					sends = h->n;
			}
		}
	}
	memcpy(h->hold + h->nhold, fresh, (size_t)nfresh * sizeof *fresh);
	h->nhold += nfresh;
	return (int)nfresh;
}

/* Phases of link-disjoint multi-target sends until every rank holds the
 * message (002 eq. 1 is the cost of Ho and Kao's version). */
static int hokao_generate(const ir_machine *m, const ir_comm *c,
                          const struct sch_options *o, ir_plan *p)
{
	(void)o;
	int rc = 0;
	int32_t nseg = c->segments > 0 ? c->segments : 1;
	struct hk h = {.m = m,
	               .n = m->ndims,
	               .nr = (uint32_t)m->nranks,
	               .root = (uint32_t)c->root};
	uint32_t *fresh = NULL;
	ir_block *blocks = NULL;
	ir_plan_init(p, m, c, "hokao");
	h.dist = malloc(h.nr);
	h.used = malloc((size_t)h.nr * (size_t)h.n);
	h.hold = malloc((size_t)h.nr * sizeof *h.hold);
	h.route = malloc((size_t)(h.n > 0 ? h.n : 1) * sizeof *h.route);
	fresh = malloc((size_t)h.nr * sizeof *fresh);
	blocks = all_segments(c, nseg);
	if (!h.dist || !h.used || !h.hold || !h.route || !fresh || !blocks) {
		rc = CCP_ENOMEM;
		goto out_free;
	}
	for (uint32_t y = 0; y < h.nr; y++)
		h.dist[y] = (uint8_t)bit_count(y);
	h.hold[h.nhold++] = 0;
	while (h.nhold < h.nr) {
		int k = hk_phase(&h, p, blocks, (uint32_t)nseg, fresh);
		if (k < 0) {
			rc = k;
			goto out_free;
		}
		if (k ==
		    0) { /* cannot happen: the first holder has free links */
			rc = CCP_EINTERNAL;
			goto out_free;
		}
	}
out_free:
	free(h.dist);
	free(h.used);
	free(h.hold);
	free(h.route);
	free(fresh);
	free(blocks);
	return rc;
}

/* ---- reptree: the pipelined replication tree ------------------------ */

/* A tree edge parent -> child, with the child's depth (its level). */
struct rt_edge {
	int depth;
	int32_t src, dst;
};

/* Order edges by depth, then sender, then receiver. */
static int cmp_rt_edge(const void *a, const void *b)
{
	const struct rt_edge *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* The replication tree of 002 §2: the root sends to all n neighbours
 * (Algorithm A); a node T forwards to T xor 2^i for every i below
 * last_one(S xor T) (Algorithm B), so T's parent is T with the lowest
 * set bit of S xor T flipped back and its depth is popcount(S xor T).
 * Segment s crosses an edge into depth L in phase L - 1 + s: an edge
 * carries one segment per phase, a node receives one segment per phase
 * and sends to all its children at once (all-port, as the replicating
 * router does), and the plan has n + m - 1 phases (002 O(n+m-1)). */
static int reptree_generate(const ir_machine *m, const ir_comm *c,
                            const struct sch_options *o, ir_plan *p)
{
	(void)o;
	int rc = 0, n = m->ndims;
	int32_t nseg = c->segments > 0 ? c->segments : 1;
	uint32_t s = (uint32_t)c->root, nr = (uint32_t)m->nranks;
	uint32_t ne = nr - 1, first[IR_MAX_CUBE_DIM + 2];
	ir_plan_init(p, m, c, "reptree");
	struct rt_edge *e = malloc((size_t)(ne ? ne : 1) * sizeof *e);
	if (!e)
		return CCP_ENOMEM;
	for (uint32_t x = 1, k = 0; x < nr; x++, k++) {
		uint32_t parent = x & (x - 1); /* lowest set bit cleared */
		e[k] = (struct rt_edge){bit_count(x), (int32_t)(parent ^ s),
		                        (int32_t)(x ^ s)};
	}
	qsort(e, ne, sizeof *e, cmp_rt_edge);
	/* first[L] = first edge into depth L, L = 1..n+1 */
	for (int l = 0, k = 0; l <= n + 1; l++) {
		while ((uint32_t)k < ne && e[k].depth < l)
			k++;
		first[l] = (uint32_t)k;
	}
	for (int32_t ph = 0; ph < n + nseg - 1; ph++) {
		if ((rc = ir_plan_phase(p)) != 0)
			goto out_free_edges;
		/* depth L carries segment ph - (L - 1) when that is in range */
		for (int l = 1; l <= n; l++) {
			int32_t seg = ph - (l - 1);
			if (seg < 0 || seg >= nseg)
				continue;
			ir_block b = {c->root, seg};
			for (uint32_t k = first[l]; k < first[l + 1]; k++)
				if ((rc = ir_plan_add(p, e[k].src, e[k].dst, &b,
				                      1, 0)) != 0)
					goto out_free_edges;
		}
	}
out_free_edges:
	free(e);
	return rc;
}

/* ---- the table entries ---------------------------------------------- */

const struct sch_generator sch_sbt = {
        .name = "sbt",
        .summary = "broadcast: one-port spanning binomial tree on a "
                   "hypercube (n phases, 002 ref. [6])",
        .doc = "hypercube.md",
        .domain = {.colls = SCH_C(IR_BCAST),
                   .topos = SCH_T(IR_HYPERCUBE),
                   .fits = cube_fits},
        .generate = sbt_generate,
};

const struct sch_generator sch_hokao = {
        .name = "hokao",
        .summary = "broadcast: all-port hypercube, each holder sends to up "
                   "to n ranks over link-disjoint e-cube routes per phase "
                   "(after Ho-Kao, 002 eq. 1)",
        .doc = "hypercube.md",
        .domain = {.colls = SCH_C(IR_BCAST),
                   .topos = SCH_T(IR_HYPERCUBE),
                   .ports = SCH_PORTS_ALL,
                   .fits = hokao_fits},
        .generate = hokao_generate,
};

const struct sch_generator sch_reptree = {
        .name = "reptree",
        .summary = "broadcast: replication tree, segments pipelined down "
                   "an all-port hypercube (n + m - 1 phases, 002)",
        .doc = "hypercube.md",
        .domain = {.colls = SCH_C(IR_BCAST),
                   .topos = SCH_T(IR_HYPERCUBE),
                   .ports = SCH_PORTS_ALL,
                   .fits = cube_fits},
        .generate = reptree_generate,
};
