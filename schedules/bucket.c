/*
 * bucket.c - the dimension-wise (bucket) allgather, reduce-scatter and
 * allreduce on meshes and tori of one to three dimensions
 * (docs/collectives.md).
 *
 * One dimension after another, every line of the machine along it runs
 * a ring of its e ranks at once: e - 1 phases a dimension, sum(e_d - 1)
 * in all.  A reduce-scatter along dimension d leaves the rank at
 * coordinate x of its line with the line's combination of the blocks
 * whose coordinate d is x; after every dimension rank r holds block r
 * complete (blocks are named by rank, as reduce_scatter's must be).  An
 * allgather along d gives every rank of a line what each of them holds.
 * The allreduce is the reduce-scatter on one block per rank, then the
 * allgather of the results.
 *
 *   swing  allreduce on tori of power-of-two extents (De Sensi et al.,
 *          NSDI 2024), the bandwidth-optimal variant: in step s along
 *          dimension d, the rank at coordinate x exchanges with
 *          x + rho(s) when x is even, x - rho(s) when odd, rho(s) =
 *          sum_{i<=s} (-2)^i (1, -1, 3, -5, 11, ...), the dimensions
 *          taken in turn; a reduce-scatter in lg n steps, each rank
 *          giving its peer the blocks of the ranks the peer reaches in
 *          the steps left, then the allgather in the reverse order.
 *          The peers are closer than recursive doubling's (about 2^s /
 *          1.5 hops), but routes of three and more hops share links,
 *          which the plan declares.
 *   swing_latency  the latency-optimal variant of the same paper: the
 *          same peers, each step exchanging and combining the whole
 *          vector, lg n phases (recursive doubling's count, on shorter
 *          routes).  Not reproducible: the two partners of a step
 *          combine the same two partials in opposite orders.
 *
 * Every ring step sends to the neighbour x + 1 of its line: on a torus
 * along the wrap-around link, on a mesh the last rank's message runs back
 * along the line on the links of the other direction, so no directed
 * link carries two messages of a phase under dimension-ordered routing.
 * Reproducible: each block is combined along one chain per line, the
 * chains of one dimension feeding those of the next (one tree), and
 * copied afterwards.
 */
#include <stdlib.h>
#include <string.h>

#include "sched.h"

static int bucket_fits(const struct sch_generator *g, const ir_machine *m,
                       const ir_comm *c, char *why, size_t len)
{
	(void)g;
	return c->coll == IR_ALLREDUCE ? sch_blocks_fit(m->nranks, why, len)
	                               : 0;
}

/* The blocks (blocks named by rank k) a rank with coordinates at sends
 * along dimension d in a ring step: those whose coordinate d is x, whose
 * coordinates in the dimensions `fixed` says (bit e) agree with at, and
 * any in the others.  Written to ks; returns how many. */
static int32_t line_blocks(const ir_machine *m, const int *at, int d, int x,
                           unsigned fixed, int32_t *ks)
{
	int32_t nk = 1;
	for (int e = 0; e < m->ndims; e++)
		if (e != d && !(fixed & (1u << e)))
			nk *= m->dims[e];
	for (int32_t i = 0; i < nk; i++) {
		int c[IR_MAX_CUBE_DIM];
		int32_t rem = i;
		for (int e = 0; e < m->ndims; e++) {
			if (e == d)
				c[e] = x;
			else if (fixed & (1u << e))
				c[e] = at[e];
			else {
				c[e] = rem % m->dims[e];
				rem /= m->dims[e];
			}
		}
		ks[i] = ir_rank_of(m, c);
	}
	return nk;
}

/* The phases of dimension d: in step j, every rank at coordinate x of
 * its line sends to x + 1 the blocks of coordinate x - j - 1 combined
 * (combine) or of x - j as they are (allgather). */
static int dimension(ir_plan *p, int d, bool combine, unsigned fixed,
                     int32_t *ks, ir_block *tmp)
{
	const ir_machine *m = &p->machine;
	bool reduces = ir_coll_kind(p->comm.coll) & IR_CK_REDUCES;
	int e = m->dims[d], rc = 0;
	for (int j = 0; j + 1 < e && rc == 0; j++) {
		rc = ir_plan_phase(p);
		for (int32_t r = 0; r < m->nranks && rc == 0; r++) {
			int c[IR_MAX_CUBE_DIM];
			ir_coords(m, r, c);
			int x = (c[d] - j - (combine ? 1 : 0) + 2 * e) % e;
			int32_t nk = line_blocks(m, c, d, x, fixed, ks);
			c[d] = (c[d] + 1) % e;
			int32_t to = ir_rank_of(m, c);
			if (reduces) {
				rc = sch_partials(p, r, to, ks, nk,
				                  combine ? IR_XF_REDUCE : 0, tmp);
				continue;
			}
			for (int32_t i = 0; i < nk; i++)
				tmp[i] = (ir_block){ks[i], 0};
			rc = ir_plan_add(p, r, to, tmp, (uint32_t)nk, 0);
		}
	}
	return rc;
}

static int bucket_generate(const ir_machine *m, const ir_comm *c,
                           const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks;
	ir_plan_init(p, m, c, "bucket");
	if (c->coll == IR_ALLREDUCE)
		p->comm.segments = n; /* one block per rank */
	int32_t *ks = malloc((size_t)n * sizeof *ks);
	ir_block *tmp = malloc((size_t)n * sizeof *tmp);
	int rc = ks && tmp ? 0 : CCP_ENOMEM;
	/* reduce-scatter: the dimensions done so far fix the blocks' own
	 * coordinates; allgather: the dimensions not yet done do */
	unsigned all = (1u << m->ndims) - 1, fixed = 0;
	if (c->coll != IR_ALLGATHER)
		for (int d = 0; d < m->ndims && rc == 0; d++) {
			rc = dimension(p, d, true, fixed, ks, tmp);
			fixed |= 1u << d;
		}
	if (c->coll != IR_REDUCE_SCATTER)
		for (int d = 0; d < m->ndims && rc == 0; d++) {
			fixed = all & ~((2u << d) - 1);
			rc = dimension(p, d, false, fixed, ks, tmp);
		}
	free(ks);
	free(tmp);
	return sch_finish(p, o, true, rc);
}

const struct sch_generator sch_bucket = {
        .name = "bucket",
        .summary = "allgather, reduce_scatter, allreduce: a ring along "
                   "every line of the mesh or torus, one dimension after "
                   "another (sum of (extent - 1) phases; allreduce twice)",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_ALLGATHER) | SCH_C(IR_REDUCE_SCATTER) |
                            SCH_C(IR_ALLREDUCE),
                   .topos = SCH_T(IR_MESH) | SCH_T(IR_TORUS),
                   .takes = SCH_TAKES_WRAP | SCH_TAKES_ORDER | SCH_TAKES_ND,
                   .fits = bucket_fits},
        .generate = bucket_generate,
};

/* ---- Swing ----------------------------------------------------------------- */

/* The steps of Swing on a torus: the dimension of each and its step
 * within that dimension, the dimensions taken in turn while they have
 * steps left (lg of each extent). */
struct swing {
	const ir_machine *m;
	int nsteps;
	int dim[IR_MAX_DIMS * 24];
	int step[IR_MAX_DIMS * 24];
};

static void swing_init(struct swing *w, const ir_machine *m)
{
	int left[IR_MAX_DIMS] = {0};
	w->m = m;
	w->nsteps = 0;
	for (int d = 0; d < m->ndims; d++)
		for (int e = 1; e < m->dims[d]; e *= 2)
			left[d]++;
	for (bool more = true; more;) {
		more = false;
		for (int d = 0; d < m->ndims; d++) {
			if (!left[d])
				continue;
			int done = 0;
			for (int e = 1; e < m->dims[d]; e *= 2)
				done++;
			w->dim[w->nsteps] = d;
			w->step[w->nsteps++] = done - left[d]--;
			more = true;
		}
	}
}

/* rho(s) = sum_{i<=s} (-2)^i (sched.h) */
int64_t sch_swing_rho(int s)
{
	int64_t r = 0, t = 1;
	for (int i = 0; i <= s; i++, t *= -2)
		r += t;
	return r;
}

/* Rank r's peer in step i. */
static int32_t swing_peer(const struct swing *w, int32_t r, int i)
{
	int c[IR_MAX_CUBE_DIM], d = w->dim[i];
	int64_t e = w->m->dims[d], rho = sch_swing_rho(w->step[i]);
	ir_coords(w->m, r, c);
	int64_t x = c[d] % 2 == 0 ? c[d] + rho : c[d] - rho;
	c[d] = (int)(((x % e) + e) % e);
	return ir_rank_of(w->m, c);
}

/* The ranks q reaches in steps i .. nsteps - 1 (itself included),
 * appended to ks at *nk: the blocks q keeps from step i on. */
static void swing_reach(const struct swing *w, int32_t q, int i, int32_t *ks,
                        int32_t *nk)
{
	if (i == w->nsteps) {
		ks[(*nk)++] = q;
		return;
	}
	swing_reach(w, q, i + 1, ks, nk);
	swing_reach(w, swing_peer(w, q, i), i + 1, ks, nk);
}

static int swing_fits(const struct sch_generator *g, const ir_machine *m,
                      const ir_comm *c, char *why, size_t len)
{
	(void)g, (void)c;
	for (int d = 0; d < m->ndims; d++)
		if (m->dims[d] & (m->dims[d] - 1))
			return CCP_ENOTAPPLY; /* the domain's sentence */
	return sch_blocks_fit(m->nranks, why, len);
}

static int swing_generate(const ir_machine *m, const ir_comm *c,
                          const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks;
	struct swing w;
	swing_init(&w, m);
	ir_plan_init(p, m, c, "swing");
	p->comm.segments = n; /* one block per rank */
	int32_t *ks = malloc((size_t)n * sizeof *ks);
	ir_block *tmp = malloc((size_t)n * sizeof *tmp);
	int rc = ks && tmp ? 0 : CCP_ENOMEM;
	/* reduce-scatter: give the peer, combined, what it keeps; then the
	 * allgather backwards: give the peer what this rank kept */
	for (int h = 0; h < 2 * w.nsteps && rc == 0; h++) {
		bool gather = h >= w.nsteps;
		int i = gather ? 2 * w.nsteps - 1 - h : h;
		rc = ir_plan_phase(p);
		for (int32_t r = 0; r < n && rc == 0; r++) {
			int32_t q = swing_peer(&w, r, i), nk = 0;
			swing_reach(&w, gather ? r : q, i + 1, ks, &nk);
			rc = sch_partials(p, r, q, ks, nk,
			                  gather ? 0 : IR_XF_REDUCE, tmp);
		}
	}
	free(ks);
	free(tmp);
	/* a rank sends the blocks its peer keeps and receives those it
	 * keeps: splitting keeps the meaning */
	return sch_finish(p, o, true, rc);
}

/* The latency-optimal variant: the whole vector to the step's peer,
 * combined, lg n times. */
static int swing_latency_generate(const ir_machine *m, const ir_comm *c,
                                  const struct sch_options *o, ir_plan *p)
{
	struct swing w;
	swing_init(&w, m);
	ir_plan_init(p, m, c, "swing_latency");
	p->comm.segments = 1; /* one block: the vector */
	int32_t ks[1] = {0};
	ir_block tmp[1];
	int rc = 0;
	for (int i = 0; i < w.nsteps && rc == 0; i++) {
		rc = ir_plan_phase(p);
		for (int32_t r = 0; r < m->nranks && rc == 0; r++)
			rc = sch_partials(p, r, swing_peer(&w, r, i), ks, 1,
			                  IR_XF_REDUCE, tmp);
	}
	/* every rank sends what it receives: no split */
	return sch_finish(p, o, false, rc);
}

const struct sch_generator sch_swing_latency = {
        .name = "swing_latency",
        .summary = "allreduce: Swing's latency-optimal variant (De Sensi "
                   "et al. 2024), the whole vector to the peers at +-1, "
                   "3, 5, 11, ... along each dimension in turn (lg n "
                   "phases)",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_ALLREDUCE),
                   .topos = SCH_T(IR_TORUS),
                   .takes = SCH_TAKES_WRAP | SCH_TAKES_ORDER | SCH_TAKES_ND,
                   .where = "with power-of-two sides",
                   .fits = swing_fits},
        .generate = swing_latency_generate,
};

const struct sch_generator sch_swing = {
        .name = "swing",
        .summary = "allreduce: Swing (De Sensi et al. 2024), peers at "
                   "+-1, 3, 5, 11, ... along each dimension in turn; "
                   "reduce-scatter, then allgather (2 lg n phases)",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_ALLREDUCE),
                   .topos = SCH_T(IR_TORUS),
                   .takes = SCH_TAKES_WRAP | SCH_TAKES_ORDER | SCH_TAKES_ND,
                   .where = "with power-of-two sides",
                   .fits = swing_fits},
        .generate = swing_generate,
};
