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
 *                       rank r sends to r - 2^k what it holds
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

/* ---- shared ----------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Whether any directed link carries two transfers in one phase of p under
 * its machine's routing: 1 yes, 0 no, or CCP_ENOMEM. */
static int contended(const ir_plan *p)
{
	const ir_machine *m = &p->machine;
	int hmax = ir_max_hops(m), rc = 0;
	uint64_t *ids = NULL, cap = 0;
	for (uint32_t ph = 0; ph < p->nphases && rc == 0; ph++) {
		const ir_phase *f = &p->phases[ph];
		uint64_t need = (uint64_t)f->ntransfers * (uint64_t)hmax + 1;
		if (need > cap) {
			uint64_t *q = realloc(ids, need * sizeof *q);
			if (!q) {
				rc = CCP_ENOMEM;
				break;
			}
			ids = q;
			cap = need;
		}
		uint64_t k = 0;
		for (uint32_t t = 0; t < f->ntransfers; t++) {
			const ir_transfer *x = &p->transfers[f->transfer + t];
			k += (uint64_t)ir_route(m, x->src, x->dst, ids + k);
		}
		qsort(ids, k, sizeof *ids, cmp_u64);
		for (uint64_t j = 1; j < k && rc == 0; j++)
			rc = ids[j] == ids[j - 1];
	}
	free(ids);
	return rc;
}

/* Finish plan p: declare link contention where the machine's routing
 * makes some; when the user forbids it, split such phases into free
 * ones if the algorithm allows (split: no rank sends in a phase what it
 * receives in it), else CCP_ENOTAPPLY.  On failure p is released. */
static int finish(ir_plan *p, const struct sch_options *o, bool split, int rc)
{
	if (rc == 0) {
		ir_plan_trim(p);
		rc = contended(p);
		if (rc == 1) {
			p->flags |= IR_PLAN_LINK_CONTENTION;
			rc = 0;
			if (o && o->forbid_contention)
				rc = split ? sch_split_contention(p)
				           : CCP_ENOTAPPLY;
		}
	}
	if (rc)
		ir_plan_fini(p);
	return rc;
}

/* A transfer of the partials ks[0..nk) of src to dst (flags IR_XF_*),
 * leaving out empty blocks; nothing when every one is empty.  tmp has
 * room for nk blocks. */
static int partials(ir_plan *p, int32_t src, int32_t dst, const int32_t *ks,
                    int32_t nk, uint32_t flags, ir_block *tmp)
{
	uint32_t nb = 0;
	for (int32_t j = 0; j < nk; j++) {
		ir_block b = {src, ks[j]};
		if (ir_block_bytes(&p->comm, p->machine.nranks, b) > 0)
			tmp[nb++] = b;
	}
	return nb ? ir_plan_add(p, src, dst, tmp, nb, flags) : 0;
}

/* Partials [lo, hi) of src to dst: partials() of a range. */
static int partial_range(ir_plan *p, int32_t src, int32_t dst, int32_t lo,
                         int32_t hi, uint32_t flags, int32_t *ks,
                         ir_block *tmp)
{
	for (int32_t k = lo; k < hi; k++)
		ks[k - lo] = k;
	return partials(p, src, dst, ks, hi - lo, flags, tmp);
}

/* Largest power of two <= n (n >= 1). */
static int32_t pow2_floor(int32_t n)
{
	int32_t q = 1;
	while (q <= n / 2)
		q *= 2;
	return q;
}

/* The rank a block of a reduction of K blocks is cut into must not pass
 * the plan format's segment limit. */
static int blocks_fit(int64_t k, char *why, size_t len)
{
	if (k <= IR_MAX_SEGMENTS)
		return 0;
	snprintf(why, len,
	         "it cuts the vector into %lld blocks, more than the %d a "
	         "plan may have (IR_MAX_SEGMENTS)",
	         (long long)k, IR_MAX_SEGMENTS);
	return CCP_ENOTAPPLY;
}

/* ---- the ring --------------------------------------------------------- */

/* Rank at position i of a snake through the mesh or torus: x runs
 * forward on even lines and back on odd ones, lines likewise in each
 * plane, so that consecutive positions are neighbours and the way back
 * from the last to the first uses links the snake does not. */
static int32_t snake(const ir_machine *m, int32_t i)
{
	int c[IR_MAX_CUBE_DIM] = {0}, rem = i;
	for (int d = 0; d < m->ndims; d++) {
		c[d] = rem % m->dims[d];
		rem /= m->dims[d];
	}
	/* a coordinate runs backwards when the sum of the higher ones is
	 * odd: each line, then each plane, turns back */
	for (int d = m->ndims - 2; d >= 0; d--) {
		int s = 0;
		for (int e = d + 1; e < m->ndims; e++)
			s += c[e];
		if (s % 2)
			c[d] = m->dims[d] - 1 - c[d];
	}
	return ir_rank_of(m, c);
}

/* Whether the ring order[0..n) sends on disjoint links when every
 * position sends to the next at once: 1 yes, 0 no, or CCP_ENOMEM. */
static int ring_free(const ir_machine *m, const ir_comm *c,
                     const int32_t *order)
{
	ir_plan t;
	ir_plan_init(&t, m, c, "ring");
	int32_t n = m->nranks;
	int rc = ir_plan_phase(&t);
	ir_block b = {0, 0};
	for (int32_t i = 0; i < n && rc == 0 && n > 1; i++) {
		b.origin = order[i];
		rc = ir_plan_add(&t, order[i], order[(i + 1) % n], &b, 1, 0);
	}
	if (rc == 0)
		rc = contended(&t) == 0 ? 1 : 0;
	ir_plan_fini(&t);
	return rc;
}

/* The ring: a snake on meshes and tori, a Gray code on hypercubes, rank
 * order elsewhere, or rank order when the first has contention. */
static int ring_order(const ir_machine *m, const ir_comm *c, int32_t *order)
{
	int32_t n = m->nranks;
	for (int32_t i = 0; i < n; i++)
		order[i] = m->topo == IR_MESH || m->topo == IR_TORUS
		                   ? snake(m, i)
		           : m->topo == IR_HYPERCUBE ? (i ^ (i >> 1))
		                                     : i;
	ir_comm plain = *c; /* ring_free copies only its kind and sizes */
	plain.coll = IR_ALLGATHER;
	plain.matrix = NULL;
	int rc = ring_free(m, &plain, order);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	for (int32_t i = 0; i < n; i++)
		order[i] = i;
	return 0;
}

static int ring_fits(const struct sch_generator *g, const ir_machine *m,
                     const ir_comm *c, char *why, size_t len)
{
	(void)g;
	return c->coll == IR_ALLREDUCE ? blocks_fit(m->nranks, why, len) : 0;
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
	int rc = order && tmp ? ring_order(m, c, order) : CCP_ENOMEM;
	bool reduces = ir_coll_kind(c->coll) & IR_CK_REDUCES;
	/* reduce-scatter: in step j position i combines into i + 1 the
	 * block of position i - j - 1, so position i ends with its own
	 * block complete; allgather: position i passes on the block of
	 * position i - j.  Blocks are named by rank: reduce_scatter's
	 * block k must end at rank k. */
	for (int half = reduces ? 0 : 1; half < 2 && rc == 0; half++) {
		if (half == 1 && c->coll == IR_REDUCE_SCATTER)
			break;
		for (int32_t j = 0; j + 1 < n && rc == 0; j++) {
			rc = ir_plan_phase(p);
			for (int32_t i = 0; i < n && rc == 0; i++) {
				int32_t to = order[(i + 1) % n];
				int32_t at = half == 0 ? (i - j - 1 + 2 * n) % n
				                       : (i - j + n) % n;
				int32_t k = order[at];
				if (!reduces) {
					tmp[0] = (ir_block){k, 0};
					rc = ir_plan_add(p, order[i], to, tmp,
					                 1, 0);
					continue;
				}
				rc = partials(p, order[i], to, &k, 1,
				              half == 0 ? IR_XF_REDUCE : 0, tmp);
			}
		}
	}
	free(order);
	free(tmp);
	return finish(p, o, true, rc);
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
			rc = partial_range(p, r, r - q, 0, K, IR_XF_REDUCE, ks,
			                   tmp);
		}
	}
	return rc;
}

static int rd_generate(const ir_machine *m, const ir_comm *c,
                       const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks, q = pow2_floor(n);
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
				rc = partials(p, r, to, ks, 1, IR_XF_REDUCE,
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
			rc = partials(p, r - q, r, ks, 1, 0, tmp);
			continue;
		}
		uint32_t nb = 0;
		for (int32_t s = 0; s < n; s++)
			if (s != r)
				tmp[nb++] = (ir_block){s, 0};
		rc = ir_plan_add(p, r - q, r, tmp, nb, 0);
	}
	free(tmp);
	return finish(p, o, !reduces, rc);
}

const struct sch_generator sch_recursive_doubling = {
        .name = "recursive_doubling",
        .summary = "allgather, allreduce: ranks r and r xor 2^d exchange all they hold (lg n "
                   "phases, 2 more to fold other rank counts); "
                   "latency-optimal",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_ALLGATHER) | SCH_C(IR_ALLREDUCE),
                   .topos = SCH_TOPOS_ANY},
        .generate = rd_generate,
};

/* ---- Bruck ------------------------------------------------------------- */

static int bruck_generate(const ir_machine *m, const ir_comm *c,
                          const struct sch_options *o, ir_plan *p)
{
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
	return finish(p, o, true, rc);
}

const struct sch_generator sch_bruck = {
        .name = "bruck",
        .summary = "allgather: rank r sends what it holds to r - 2^k "
                   "(ceil(lg n) phases for any rank count)",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_ALLGATHER), .topos = SCH_TOPOS_ANY},
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
			rc = partial_range(p, r, r ^ b, lo, hi, IR_XF_REDUCE,
			                   ks, tmp);
		}
	}
	return rc;
}

static int rh_generate(const ir_machine *m, const ir_comm *c,
                       const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks, q = pow2_floor(n), K = n;
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
			rc = partials(p, r, k, &k, 1, 0, tmp);
		}
	}
	free(tmp);
	free(ks);
	return finish(p, o, false, rc);
}

const struct sch_generator sch_recursive_halving = {
        .name = "recursive_halving",
        .summary = "reduce_scatter: pairs exchange and combine half of what they still "
                   "combine (lg n phases, 2 more to fold other rank "
                   "counts)",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_REDUCE_SCATTER),
                   .topos = SCH_TOPOS_ANY},
        .generate = rh_generate,
};

static int rab_fits(const struct sch_generator *g, const ir_machine *m,
                    const ir_comm *c, char *why, size_t len)
{
	(void)g, (void)c;
	return blocks_fit(pow2_floor(m->nranks), why, len);
}

static int rab_generate(const ir_machine *m, const ir_comm *c,
                        const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks, q = pow2_floor(n), K = q;
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
			rc = partial_range(p, r, r ^ b, lo, lo + b, 0, ks, tmp);
		}
	}
	if (rc == 0 && q < n)
		rc = ir_plan_phase(p);
	for (int32_t r = q; r < n && rc == 0; r++)
		rc = partial_range(p, r - q, r, 0, K, 0, ks, tmp);
	free(tmp);
	free(ks);
	return finish(p, o, false, rc);
}

const struct sch_generator sch_rabenseifner = {
        .name = "rabenseifner",
        .summary = "allreduce: recursive-halving reduce-scatter, then "
                   "recursive-doubling allgather (2 lg n phases, 2 more "
                   "to fold); bandwidth-optimal",
        .doc = "collectives.md",
        .domain = {.colls = SCH_C(IR_ALLREDUCE),
                   .topos = SCH_TOPOS_ANY,
                   .fits = rab_fits},
        .generate = rab_generate,
};
