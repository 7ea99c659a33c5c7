/*
 * large_messages.c - broadcast, reduce and reduce-scatter built from the
 * pieces of allreduce.c, and the allreduce baseline
 * (docs/collectives.md):
 *
 *   reduce_bcast           allreduce: the binomial reduce to rank 0,
 *                          then the same tree run forwards as a
 *                          broadcast of the result (one element block)
 *   scatter_allgather      broadcast: the root's message cut into one
 *                          segment per rank, scattered down a binomial
 *                          tree, then allgathered around a ring (van de
 *                          Geijn's large-message broadcast)
 *   reduce_scatter_gather  reduce: a ring reduce-scatter into one element
 *                          block per rank, then a binomial gather of the
 *                          finished blocks to the root
 *   pairwise               reduce_scatter: in step i every rank gives its
 *                          contribution to block r + i to rank r + i
 *   chain                  broadcast, reduce: the message (vector) cut
 *                          into K segments (element blocks) pipelined
 *                          along the ring from the root (towards it):
 *                          n - 2 + K phases
 *
 * All four reductions are reproducible: every block is combined along
 * one tree (a binomial tree, a chain around the ring, or arrivals at its
 * home rank one a phase), and everything else copies a result.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* ---- reduce, then broadcast ---------------------------------------------- */

static int rb_generate(const ir_machine *m, const ir_comm *c,
                       const struct sch_options *o, ir_plan *p)
{
	/* the reduce is binomial's, to rank 0, on one element block */
	ir_comm red = *c;
	red.coll = IR_REDUCE;
	red.root = 0;
	red.segments = 1;
	red.matrix = NULL;
	ir_plan t;
	int rc = sch_binomial.generate(m, &red, o, &t);
	if (rc)
		return rc;
	ir_plan_init(p, m, c, "reduce_bcast");
	p->comm.segments = 1;
	/* the same phases, then each reversed in reverse order: the holder
	 * of the tree gives its partner the result it combined */
	for (uint32_t ph = 0; ph < 2 * t.nphases && rc == 0; ph++) {
		bool down = ph >= t.nphases;
		const ir_phase *f =
		        &t.phases[down ? 2 * t.nphases - 1 - ph : ph];
		rc = ir_plan_phase(p);
		for (uint32_t k = 0; k < f->ntransfers && rc == 0; k++) {
			const ir_transfer *x = &t.transfers[f->transfer + k];
			int32_t from = down ? x->dst : x->src;
			int32_t to = down ? x->src : x->dst;
			ir_block b = {from, 0};
			rc = ir_plan_add(p, from, to, &b, 1,
			                 down ? 0 : IR_XF_REDUCE);
		}
	}
	ir_plan_fini(&t);
	/* a phase's receivers do not send in it: splitting keeps the tree */
	return sch_finish(p, o, true, rc);
}

const struct sch_generator sch_reduce_bcast = {
        .name = "reduce_bcast",
        .summary = "allreduce: binomial reduce to rank 0, then binomial "
                   "broadcast of the result (2 lg n phases); the "
                   "baseline",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_ALLREDUCE),
                   .topos = SCH_T(IR_MESH) | SCH_T(IR_TORUS) |
                            SCH_T(IR_HYPERCUBE) | SCH_T(IR_SWITCH) |
                            SCH_T(IR_FAT_TREE) | SCH_T(IR_GRAPH) |
                            SCH_T(IR_DRAGONFLY),
                   .takes = SCH_TAKES_WRAP | SCH_TAKES_ORDER | SCH_TAKES_ND,
                   .where = "whose binomial tree halves it as one box (a "
                            "dragonfly only with minimal routing)",
                   .fits = sch_fits_dfly_minimal},
        .generate = rb_generate,
};

/* ---- scatter, then allgather ----------------------------------------------- */

static int sa_fits(const struct sch_generator *g, const ir_machine *m,
                   const ir_comm *c, char *why, size_t len)
{
	(void)g;
	int32_t n = m->nranks;
	if (c->segments > 1 && c->segments != n) {
		snprintf(why, len,
		         "scatter_allgather cuts the message into one segment "
		         "per rank: segments must be 1 or %d (the number of "
		         "ranks), not %d",
		         (int)n, (int)c->segments);
		return CCP_ENOTAPPLY;
	}
	if (n > IR_MAX_SEGMENTS) {
		snprintf(why, len,
		         "scatter_allgather cuts the message into %d segments, "
		         "more than the %d a plan may have (IR_MAX_SEGMENTS)",
		         (int)n, IR_MAX_SEGMENTS);
		return CCP_ENOTAPPLY;
	}
	return 0;
}

/* Lowest set bit of v > 0. */
static int32_t low_bit(int32_t v)
{
	return v & -v;
}

/* Open a phase of p unless *opened says this step has one. */
static int open_once(ir_plan *p, bool *opened)
{
	if (*opened)
		return 0;
	*opened = true;
	return ir_plan_phase(p);
}

/* Positions on the ring count from the root's: position v gets segment v
 * in the scatter, whose binomial tree gives position w > 0 the segments
 * [w, w + min(lowbit(w), n - w)).  The ring then passes segment v - j
 * from v to v + 1 in step j, left out where v + 1 has it from the
 * scatter. */
static int sa_generate(const ir_machine *m, const ir_comm *c,
                       const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks;
	ir_plan_init(p, m, c, "scatter_allgather");
	p->comm.segments = n;
	int32_t *order = malloc((size_t)n * sizeof *order);
	ir_block *tmp = malloc((size_t)n * sizeof *tmp);
	int rc = order && tmp ? sch_ring_order(m, c, order) : CCP_ENOMEM;
	int32_t at = 0; /* the root's position */
	while (rc == 0 && order[at] != c->root)
		at++;
#define POS(v) order[(at + (v)) % n]
	int32_t top = 1;
	while (top < n)
		top *= 2;
	for (int32_t b = top / 2; b >= 1 && rc == 0; b /= 2) {
		rc = ir_plan_phase(p);
		for (int32_t v = 0; v + b < n && rc == 0; v += 2 * b) {
			int32_t hi = v + 2 * b < n ? v + 2 * b : n, nb = 0;
			for (int32_t s = v + b; s < hi; s++)
				tmp[nb++] = (ir_block){c->root, s};
			rc = ir_plan_add(p, POS(v), POS(v + b), tmp,
			                 (uint32_t)nb, 0);
		}
	}
	for (int32_t j = 0; j + 1 < n && rc == 0; j++) {
		bool opened = false;
		for (int32_t v = 0; v < n && rc == 0; v++) {
			int32_t w = (v + 1) % n, s = (v - j + n) % n;
			int32_t end = w ? w + low_bit(w) : n;
			if (w == 0 || (s >= w && s < end))
				continue; /* w has it from the scatter */
			rc = open_once(p, &opened);
			tmp[0] = (ir_block){c->root, s};
			if (rc == 0)
				rc = ir_plan_add(p, POS(v), POS(w), tmp, 1, 0);
		}
	}
#undef POS
	free(order);
	free(tmp);
	return sch_finish(p, o, true, rc);
}

const struct sch_generator sch_scatter_allgather = {
        .name = "scatter_allgather",
        .summary = "broadcast: the message cut into one segment per rank, "
                   "scattered by a binomial tree, then allgathered around "
                   "a ring (ceil(lg n) + n - 1 phases); for large messages",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_BCAST),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL,
                   .fits = sa_fits},
        .generate = sa_generate,
};

/* ---- reduce-scatter, then gather ------------------------------------------- */

static int rsg_fits(const struct sch_generator *g, const ir_machine *m,
                    const ir_comm *c, char *why, size_t len)
{
	(void)g, (void)c;
	return sch_blocks_fit(m->nranks, why, len);
}

/* The ring leaves rank r with element block r complete; a binomial tree
 * over the ranks counted from the root then gathers them: in the step
 * of b, v = r - root with v mod 2b == b gives v - b the blocks of
 * v .. v + b - 1, replacing its partials of them. */
static int rsg_generate(const ir_machine *m, const ir_comm *c,
                        const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks;
	ir_plan_init(p, m, c, "reduce_scatter_gather");
	p->comm.segments = n; /* one block per rank */
	int32_t *order = malloc((size_t)n * sizeof *order);
	int32_t *ks = malloc((size_t)n * sizeof *ks);
	ir_block *tmp = malloc((size_t)n * sizeof *tmp);
	int rc = order && ks && tmp ? sch_ring_order(m, c, order) : CCP_ENOMEM;
	if (rc == 0)
		rc = sch_ring_steps(p, order, true, tmp);
	for (int32_t b = 1; b < n && rc == 0; b *= 2) {
		rc = ir_plan_phase(p);
		for (int32_t v = b; v < n && rc == 0; v += 2 * b) {
			int32_t nk = 0;
			for (int32_t u = v; u < v + b && u < n; u++)
				ks[nk++] = (c->root + u) % n;
			rc = sch_partials(p, (c->root + v) % n,
			                  (c->root + v - b) % n, ks, nk, 0, tmp);
		}
	}
	free(order);
	free(ks);
	free(tmp);
	return sch_finish(p, o, true, rc);
}

const struct sch_generator sch_reduce_scatter_gather = {
        .name = "reduce_scatter_gather",
        .summary = "reduce: ring reduce-scatter into one element block per "
                   "rank, then a binomial gather of the blocks to the root "
                   "(n - 1 + ceil(lg n) phases); for large vectors",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_REDUCE),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL,
                   .fits = rsg_fits},
        .generate = rsg_generate,
};

/* ---- the pipelined chain ----------------------------------------------------- */

bool sch_phase_costs(const ir_machine *m, double *t, double *b)
{
	const ir_cost *k = &m->cost;
	*t = k->tau;
	*b = k->phi;
	if (!(*t > 0 && *b > 0)) {
		*t = k->alpha;
		*b = k->beta;
	}
	return *t > 0 && *b > 0;
}

int32_t sch_chain_segments(const ir_machine *m, const ir_comm *c)
{
	if (c->segments > 1)
		return c->segments;
	/* at most one segment per byte, or per element of a reduction */
	int64_t most = c->bytes;
	if (c->coll == IR_REDUCE)
		most /= ir_dtype_size(c->dtype) > 0 ? ir_dtype_size(c->dtype) : 1;
	if (most > IR_MAX_SEGMENTS)
		most = IR_MAX_SEGMENTS;
	/* (n - 2 + K)(t + (L/K) b) is least at K = sqrt((n - 2) L b / t),
	 * with t, b the machine's phase costs; without them, 64 KiB
	 * segments */
	double t, b;
	bool costs = sch_phase_costs(m, &t, &b);
	double want = costs
	                      ? sqrt((double)(m->nranks - 2 > 0 ? m->nranks - 2
	                                                        : 0) *
	                             (double)c->bytes * b / t)
	                      : ceil((double)c->bytes / 65536.0);
	if (!(want >= 1))
		want = 1;
	return want > (double)most ? (int32_t)(most > 0 ? most : 1)
	                           : (int32_t)llround(want);
}

/* Position v of the ring counted from the root passes segment t - v to
 * v + 1 in phase t (a broadcast); a reduce runs the other way, position
 * v giving v - 1 its partial of element block t - (n - 1 - v). */
static int chain_generate(const ir_machine *m, const ir_comm *c,
                          const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks, K = sch_chain_segments(m, c);
	bool reduce = c->coll == IR_REDUCE;
	ir_plan_init(p, m, c, "chain");
	p->comm.segments = K;
	int32_t *order = malloc((size_t)n * sizeof *order);
	ir_block *tmp = malloc(sizeof *tmp);
	int rc = order && tmp ? sch_ring_order(m, c, order) : CCP_ENOMEM;
	int32_t at = 0; /* the root's position */
	while (rc == 0 && order[at] != c->root)
		at++;
#define POS(v) order[(at + (v)) % n]
	for (int32_t t = 0; t < n - 2 + K && rc == 0; t++) {
		rc = ir_plan_phase(p);
		for (int32_t v = 0; v + 1 < n && rc == 0; v++) {
			int32_t s = reduce ? t - (n - 2 - v) : t - v;
			if (s < 0 || s >= K)
				continue;
			if (reduce) {
				rc = sch_partials(p, POS(v + 1), POS(v), &s, 1,
				                  IR_XF_REDUCE, tmp);
			} else {
				tmp[0] = (ir_block){c->root, s};
				rc = ir_plan_add(p, POS(v), POS(v + 1), tmp, 1,
				                 0);
			}
		}
	}
#undef POS
	free(order);
	free(tmp);
	/* a rank sends in a phase the segment it received the phase before,
	 * not the one it receives: phases may split */
	return sch_finish(p, o, true, rc);
}

const struct sch_generator sch_chain = {
        .name = "chain",
        .summary = "broadcast, reduce: the message cut into K segments "
                   "pipelined along a ring laid on the machine, from the "
                   "root (towards it for a reduce); n - 2 + K phases, K "
                   "a broadcast's segments when given, else sqrt((n-2) L "
                   "phi / tau) by the machine's costs (64 KiB segments "
                   "without them); for large messages",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_BCAST) | SCH_C(IR_REDUCE),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = chain_generate,
};

/* ---- pairwise ----------------------------------------------------------------- */

static int pw_generate(const ir_machine *m, const ir_comm *c,
                       const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks;
	ir_plan_init(p, m, c, "pairwise");
	ir_block tmp[1];
	int rc = 0;
	/* step i: rank r gives its own contribution to block r + i to its
	 * home, which combines one arrival a phase */
	for (int32_t i = 1; i < n && rc == 0; i++) {
		rc = ir_plan_phase(p);
		for (int32_t r = 0; r < n && rc == 0; r++) {
			int32_t k = (r + i) % n;
			rc = sch_partials(p, r, k, &k, 1, IR_XF_REDUCE, tmp);
		}
	}
	/* a rank sends block r + i and receives block r: splitting keeps
	 * the meaning */
	return sch_finish(p, o, true, rc);
}

const struct sch_generator sch_pairwise = {
        .name = "pairwise",
        .summary = "reduce_scatter: in step i every rank r gives its "
                   "contribution to block r + i to rank r + i (n - 1 "
                   "phases, each block sent once)",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_REDUCE_SCATTER),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = pw_generate,
};
