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
                   .fits = bucket_fits},
        .generate = bucket_generate,
};
