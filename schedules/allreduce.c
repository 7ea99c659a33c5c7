/*
 * allreduce.c - the collectives that every rank ends with: allgather,
 * reduce_scatter and allreduce (docs/collectives.md).
 *
 *   ring                allgather, reduce_scatter, allreduce: n - 1
 *                       phases (allreduce 2(n - 1)) around a ring laid
 *                       on the machine so that its links are disjoint
 *                       where the machine allows (a snake on meshes and
 *                       tori, a Gray code on hypercubes)
 *   recursive_doubling  allgather, allreduce: ranks r and r ^ 2^d
 *                       exchange everything they hold, lg n phases
 *   bruck               allgather, any rank count: ceil(lg n) phases,
 *                       rank r sends to r - 2^k what it holds (its
 *                       alltoall is in alltoall.c)
 *   recursive_halving   reduce_scatter: pairs exchange half of what they
 *                       still combine, lg n phases
 *   rabenseifner        allreduce: recursive halving, then recursive
 *                       doubling of the results (reduce-scatter, then
 *                       allgather)
 *
 * A rank count that is not a power of two takes the usual fold: each of
 * the r - 2^k extra ranks first gives its data to a partner among the
 * first 2^k, which stand in for it and give the result back at the end.
 *
 * Every reduction here is reproducible: pairs combine the same two
 * partials (a op b == b op a bit for bit), and everything else copies a
 * result, so every rank ends with the same combining tree per block (the
 * verifier checks it, ir/verify.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* ---- the ring --------------------------------------------------------- */

static int ring_fits(const struct sch_generator *g, const ir_machine *m,
                     const ir_comm *c, char *why, size_t len)
{
	(void)g;
	return c->coll == IR_ALLREDUCE ? sch_blocks_fit(m->nranks, why, len) : 0;
}

static int ring_generate(const ir_machine *m, const ir_comm *c,
                         const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks;
	ir_plan_init(p, m, c, "ring");
	if (c->coll == IR_ALLREDUCE)
		p->comm.segments = n; /* one block per position */
	int32_t *order = malloc((size_t)n * sizeof *order);
	ir_block *tmp = malloc(sizeof *tmp);
	int rc = order && tmp ? sch_ring_order(m, c, order) : CCP_ENOMEM;
	bool reduces = ir_coll_kind(c->coll) & IR_CK_REDUCES;
	if (rc == 0 && reduces)
		rc = sch_ring_steps(p, order, true, tmp);
	if (rc == 0 && c->coll != IR_REDUCE_SCATTER)
		rc = sch_ring_steps(p, order, false, tmp);
	free(order);
	free(tmp);
	return sch_finish(p, o, true, rc);
}

const struct sch_generator sch_ring = {
        .name = "ring",
        .summary = "allgather, reduce_scatter, allreduce: every rank "
                   "passes a block to the next around a ring laid on the machine "
                   "(n-1 phases; allreduce 2(n-1)); bandwidth-optimal",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_ALLGATHER) | SCH_C(IR_REDUCE_SCATTER) |
                            SCH_C(IR_ALLREDUCE),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL,
                   .fits = ring_fits},
        .generate = ring_generate,
};

/* ---- recursive doubling ------------------------------------------------- */

/* The participant that stands in for rank r: itself among the first q,
 * else r - q. */
static int32_t stand_in(int32_t r, int32_t q)
{
	return r < q ? r : r - q;
}

/* The fold's first phase: each extra rank r >= q gives its data to
 * r - q (its own block for an allgather, its whole vector combined for
 * a reduction of K blocks). */
static int fold_in(ir_plan *p, int32_t q, int32_t K, int32_t *ks,
                   ir_block *tmp)
{
	int32_t n = p->machine.nranks;
	if (q == n)
		return 0;
	int rc = ir_plan_phase(p);
	for (int32_t r = q; r < n && rc == 0; r++) {
		if (!(ir_coll_kind(p->comm.coll) & IR_CK_REDUCES)) {
			tmp[0] = (ir_block){r, 0};
			rc = ir_plan_add(p, r, r - q, tmp, 1, 0);
		} else {
			rc = sch_partial_range(p, r, r - q, 0, K, IR_XF_REDUCE, ks,
			                   tmp);
		}
	}
	return rc;
}

static int rd_generate(const ir_machine *m, const ir_comm *c,
                       const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks, q = sch_pow2_floor(n);
	bool reduces = c->coll == IR_ALLREDUCE;
	ir_plan_init(p, m, c, "recursive_doubling");
	ir_block *tmp = malloc((size_t)n * sizeof *tmp);
	int32_t ks[1] = {0};
	int rc = tmp ? fold_in(p, q, 1, ks, tmp) : CCP_ENOMEM;
	/* step d: r and r ^ 2^d exchange all they hold: for an allgather
	 * the blocks of every rank whose stand-in agrees with r above bit
	 * d (its own and its extra's), for an allreduce the vector */
	for (int32_t d = 1; d < q && rc == 0; d *= 2) {
		rc = ir_plan_phase(p);
		for (int32_t r = 0; r < q && rc == 0; r++) {
			int32_t to = r ^ d;
			if (reduces) {
				rc = sch_partials(p, r, to, ks, 1, IR_XF_REDUCE,
				              tmp);
				continue;
			}
			uint32_t nb = 0;
			for (int32_t s = 0; s < n; s++)
				if ((stand_in(s, q) & ~(d - 1)) == (r & ~(d - 1)))
					tmp[nb++] = (ir_block){s, 0};
			rc = ir_plan_add(p, r, to, tmp, nb, 0);
		}
	}
	/* the fold's last phase: every result back to the extra ranks */
	if (rc == 0 && q < n)
		rc = ir_plan_phase(p);
	for (int32_t r = q; r < n && rc == 0; r++) {
		if (reduces) {
			rc = sch_partials(p, r - q, r, ks, 1, 0, tmp);
			continue;
		}
		uint32_t nb = 0;
		for (int32_t s = 0; s < n; s++)
			if (s != r)
				tmp[nb++] = (ir_block){s, 0};
		rc = ir_plan_add(p, r - q, r, tmp, nb, 0);
	}
	free(tmp);
	return sch_finish(p, o, !reduces, rc);
}

const struct sch_generator sch_recursive_doubling = {
        .name = "recursive_doubling",
        .summary = "allgather, allreduce: ranks r and r xor 2^d exchange all they hold (lg n "
                   "phases, 2 more to fold other rank counts); "
                   "latency-optimal",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_ALLGATHER) | SCH_C(IR_ALLREDUCE),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = rd_generate,
};

/* ---- Bruck ------------------------------------------------------------- */

static int bruck_generate(const ir_machine *m, const ir_comm *c,
                          const struct sch_options *o, ir_plan *p)
{
	if (c->coll == IR_ALLTOALL)
		return sch_bruck_alltoall(m, c, o, p);
	int32_t n = m->nranks;
	ir_plan_init(p, m, c, "bruck");
	ir_block *tmp = malloc((size_t)n * sizeof *tmp);
	int rc = tmp ? 0 : CCP_ENOMEM;
	/* before step k rank r holds the blocks of r .. r + 2^k - 1 (mod n);
	 * it sends them, or the n - 2^k still missing there, to r - 2^k */
	for (int64_t dist = 1; dist < n && rc == 0; dist *= 2) {
		int32_t cnt = (int32_t)(dist < n - dist ? dist : n - dist);
		rc = ir_plan_phase(p);
		for (int32_t r = 0; r < n && rc == 0; r++) {
			for (int32_t j = 0; j < cnt; j++)
				tmp[j] = (ir_block){(int32_t)((r + j) % n), 0};
			rc = ir_plan_add(p, r, (int32_t)((r - dist + n) % n),
			                 tmp, (uint32_t)cnt, 0);
		}
	}
	free(tmp);
	return sch_finish(p, o, true, rc);
}

const struct sch_generator sch_bruck = {
        .name = "bruck",
        .summary = "allgather, alltoall: rank r sends what it holds to "
                   "r -/+ 2^k (ceil(lg n) phases for any rank count; an "
                   "alltoall's messages carry about n/2 blocks)",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_ALLGATHER) | SCH_C(IR_ALLTOALL),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = bruck_generate,
};

/* ---- recursive halving and Rabenseifner ----------------------------------- */

/* Recursive halving among the first q ranks, over the K blocks that lo
 * cuts among them (participant r's share is [lo(r), lo(r + 1))): in the
 * step of bit b, r and r ^ 2^b still combine the shares of the 2^(b+1)
 * participants they agree with above bit b; each keeps the half of its
 * own side and sends the other half, combined, to its partner. */
static int halving(ir_plan *p, int32_t q, int32_t K, int32_t *ks, ir_block *tmp)
{
	int rc = 0;
	for (int32_t b = q / 2; b >= 1 && rc == 0; b /= 2) {
		rc = ir_plan_phase(p);
		for (int32_t r = 0; r < q && rc == 0; r++) {
			int32_t base = r & ~(2 * b - 1);
			int32_t give = (r & b) ? base : base + b; /* other half */
			int32_t lo = (int32_t)((int64_t)give * K / q);
			int32_t hi = (int32_t)((int64_t)(give + b) * K / q);
			rc = sch_partial_range(p, r, r ^ b, lo, hi, IR_XF_REDUCE,
			                   ks, tmp);
		}
	}
	return rc;
}

static int rh_generate(const ir_machine *m, const ir_comm *c,
                       const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks, q = sch_pow2_floor(n), K = n;
	ir_plan_init(p, m, c, "recursive_halving");
	ir_block *tmp = malloc((size_t)K * sizeof *tmp);
	int32_t *ks = malloc((size_t)K * sizeof *ks);
	int rc = tmp && ks ? fold_in(p, q, K, ks, tmp) : CCP_ENOMEM;
	if (rc == 0)
		rc = halving(p, q, K, ks, tmp);
	/* participant r now holds its share complete; every block it holds
	 * for another rank goes there (at most two: K < 2q), one a phase */
	for (int32_t j = 0; j < 2 && rc == 0; j++) {
		bool opened = false;
		for (int32_t r = 0; r < q && rc == 0; r++) {
			int32_t lo = (int32_t)((int64_t)r * K / q);
			int32_t hi = (int32_t)((int64_t)(r + 1) * K / q);
			int32_t seen = 0, k;
			for (k = lo; k < hi; k++)
				if (k != r && seen++ == j)
					break;
			if (k >= hi)
				continue;
			if (!opened && (rc = ir_plan_phase(p)) != 0)
				break;
			opened = true;
			rc = sch_partials(p, r, k, &k, 1, 0, tmp);
		}
	}
	free(tmp);
	free(ks);
	return sch_finish(p, o, false, rc);
}

const struct sch_generator sch_recursive_halving = {
        .name = "recursive_halving",
        .summary = "reduce_scatter: pairs exchange and combine half of what they still "
                   "combine (lg n phases, 2 more to fold other rank "
                   "counts)",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_REDUCE_SCATTER),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = rh_generate,
};

static int rab_fits(const struct sch_generator *g, const ir_machine *m,
                    const ir_comm *c, char *why, size_t len)
{
	(void)g, (void)c;
	return sch_blocks_fit(sch_pow2_floor(m->nranks), why, len);
}

static int rab_generate(const ir_machine *m, const ir_comm *c,
                        const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks, q = sch_pow2_floor(n), K = q;
	ir_plan_init(p, m, c, "rabenseifner");
	p->comm.segments = K; /* one block per participant */
	ir_block *tmp = malloc((size_t)K * sizeof *tmp);
	int32_t *ks = malloc((size_t)K * sizeof *ks);
	int rc = tmp && ks ? fold_in(p, q, K, ks, tmp) : CCP_ENOMEM;
	if (rc == 0)
		rc = halving(p, q, K, ks, tmp);
	/* participant r holds block r complete; recursive doubling from the
	 * lowest bit gives every participant every block */
	for (int32_t b = 1; b < q && rc == 0; b *= 2) {
		rc = ir_plan_phase(p);
		for (int32_t r = 0; r < q && rc == 0; r++) {
			int32_t lo = r & ~(b - 1);
			rc = sch_partial_range(p, r, r ^ b, lo, lo + b, 0, ks, tmp);
		}
	}
	if (rc == 0 && q < n)
		rc = ir_plan_phase(p);
	for (int32_t r = q; r < n && rc == 0; r++)
		rc = sch_partial_range(p, r - q, r, 0, K, 0, ks, tmp);
	free(tmp);
	free(ks);
	return sch_finish(p, o, false, rc);
}

const struct sch_generator sch_rabenseifner = {
        .name = "rabenseifner",
        .summary = "allreduce: recursive-halving reduce-scatter, then "
                   "recursive-doubling allgather (2 lg n phases, 2 more "
                   "to fold); bandwidth-optimal",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_ALLREDUCE),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL,
                   .fits = rab_fits},
        .generate = rab_generate,
};
