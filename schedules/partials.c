/*
 * partials.c - pieces shared by the generators of the collectives that
 * every rank ends with and of the large-message broadcast and reduce
 * (allreduce.c, large_messages.c, bucket.c): the contention check that
 * finishes a plan, transfers of a reduction's partials, and the ring laid
 * on the machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Whether any directed link carries more transfers than its capacity
 * (ir_link_capacity) in one phase of p under its machine's routing (the
 * worst case where the routing adapts): 1 yes, 0 no, or CCP_ENOMEM. */
int sch_contended(const ir_plan *p)
{
	const ir_machine *m = &p->machine;
	int hmax = ir_route_max(m), rc = 0;
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
			int h = ir_route_xfer(m, x, ids + k);
			k += h > 0 ? (uint64_t)h : 0;
		}
		qsort(ids, k, sizeof *ids, cmp_u64);
		for (uint64_t j = 1, run = 1; j < k && rc == 0; j++) {
			run = ids[j] == ids[j - 1] ? run + 1 : 1;
			rc = run > (uint64_t)ir_link_capacity(m, ids[j]);
		}
	}
	free(ids);
	return rc;
}

/* Whether a node's network ports are exceeded in some phase of p: the
 * network transfers each node sends and receives, counted per phase
 * (sched.h). */
int sch_node_ports_exceeded(const ir_plan *p)
{
	const ir_machine *m = &p->machine;
	if (!ir_machine_has_nodes(m))
		return 0;
	uint32_t *sends = calloc(2 * (size_t)m->nnodes, sizeof *sends);
	int32_t *touched = malloc(2 * (size_t)m->nnodes * sizeof *touched);
	uint32_t *recvs = sends ? sends + m->nnodes : NULL;
	int rc = 0;
	if (!sends || !touched) {
		rc = CCP_ENOMEM;
		goto out;
	}
	for (uint32_t ph = 0; ph < p->nphases && rc == 0; ph++) {
		const ir_phase *f = &p->phases[ph];
		uint32_t nt = 0;
		for (uint32_t t = 0; t < f->ntransfers; t++) {
			const ir_transfer *x = &p->transfers[f->transfer + t];
			int32_t a = ir_node_of(m, x->src);
			int32_t b = ir_node_of(m, x->dst);
			if (a == b)
				continue; /* shared memory: no port */
			if (sends[a]++ == 0 && recvs[a] == 0)
				touched[nt++] = a;
			if (recvs[b]++ == 0 && sends[b] == 0)
				touched[nt++] = b;
		}
		for (uint32_t k = 0; k < nt; k++) {
			int32_t q = touched[k];
			uint32_t lim = sch_node_port_limit(m, q);
			if (sends[q] > lim || recvs[q] > lim)
				rc = 1;
			sends[q] = recvs[q] = 0;
		}
	}
out:
	free(sends);
	free(touched);
	return rc;
}

/* Finish plan p: declare link contention where the machine's routing
 * makes some, node contention where a node's network ports are
 * exceeded; when the user forbids contention, split such phases into
 * free ones if the algorithm allows (split: no rank sends in a phase
 * what it receives in it), else CCP_ENOTAPPLY.  On failure p is
 * released. */
int sch_finish(ir_plan *p, const struct sch_options *o, bool split, int rc)
{
	if (rc == 0) {
		ir_plan_trim(p);
		rc = sch_contended(p);
		if (rc == 1) {
			p->flags |= IR_PLAN_LINK_CONTENTION;
			rc = 0;
		}
		if (rc == 0 && (rc = sch_node_ports_exceeded(p)) == 1) {
			p->flags |= IR_PLAN_NODE_CONTENTION;
			rc = 0;
		}
		if (rc == 0 && o && o->forbid_contention &&
		    (p->flags & (IR_PLAN_LINK_CONTENTION |
		                 IR_PLAN_NODE_CONTENTION)))
			rc = split ? sch_split_contention(p) : CCP_ENOTAPPLY;
	}
	if (rc)
		ir_plan_fini(p);
	return rc;
}

/* A transfer of the partials ks[0..nk) of src to dst (flags IR_XF_*),
 * leaving out empty blocks; nothing when every one is empty.  tmp has
 * room for nk blocks. */
int sch_partials(ir_plan *p, int32_t src, int32_t dst, const int32_t *ks,
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

/* Partials [lo, hi) of src to dst: sch_partials() of a range. */
int sch_partial_range(ir_plan *p, int32_t src, int32_t dst, int32_t lo,
                         int32_t hi, uint32_t flags, int32_t *ks,
                         ir_block *tmp)
{
	for (int32_t k = lo; k < hi; k++)
		ks[k - lo] = k;
	return sch_partials(p, src, dst, ks, hi - lo, flags, tmp);
}

/* Largest power of two <= n (n >= 1). */
int32_t sch_pow2_floor(int32_t n)
{
	int32_t q = 1;
	while (q <= n / 2)
		q *= 2;
	return q;
}

/* The rank a block of a reduction of K blocks is cut into must not pass
 * the plan format's segment limit. */
int sch_blocks_fit(int64_t k, char *why, size_t len)
{
	if (k <= IR_MAX_SEGMENTS)
		return 0;
	snprintf(why, len,
	         "it cuts the vector into %lld blocks, more than the %d a "
	         "plan may have (IR_MAX_SEGMENTS)",
	         (long long)k, IR_MAX_SEGMENTS);
	return CCP_ENOTAPPLY;
}

/* ---- the ring ---------------------------------------------------------- */

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
		rc = sch_contended(&t) == 0 ? 1 : 0;
	ir_plan_fini(&t);
	return rc;
}

/* The ring: a snake on meshes and tori, a Gray code on hypercubes, node
 * order elsewhere, through the nodes, and through the ranks of each node
 * one after the other (so that one transfer of the ring leaves each
 * node); or rank order when the first has link contention. */
int sch_ring_order(const ir_machine *m, const ir_comm *c, int32_t *order)
{
	int32_t n = m->nranks, k = m->ranks_per_node > 1 ? m->ranks_per_node : 1;
	for (int32_t i = 0; i < n; i++) {
		int32_t j = i / k, at = m->topo == IR_MESH ||
		                                m->topo == IR_TORUS
		                        ? snake(m, j)
		                : m->topo == IR_HYPERCUBE ? (j ^ (j >> 1))
		                                          : j;
		/* snake names the node by its first rank */
		int32_t node = m->topo == IR_MESH || m->topo == IR_TORUS
		                       ? ir_node_of(m, at)
		                       : at;
		order[i] = ir_node_rank(m, node, i % k);
	}
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


/* The n - 1 steps of one half of the ring order[0..n) in new phases of
 * p: reduce-scatter (combine) or allgather.  Reduce-scatter: in step j
 * position i combines into i + 1 the block of position i - j - 1, so
 * position i ends with its own block complete; allgather: position i
 * passes on the block of position i - j (a reduction's partials replace,
 * an allgather's blocks are (rank, 0)).  Blocks are named by rank:
 * reduce_scatter's block k must end at rank k.  tmp has room for one
 * block. */
int sch_ring_steps(ir_plan *p, const int32_t *order, bool combine,
                   ir_block *tmp)
{
	int32_t n = p->machine.nranks;
	bool reduces = ir_coll_kind(p->comm.coll) & IR_CK_REDUCES;
	int rc = 0;
	for (int32_t j = 0; j + 1 < n && rc == 0; j++) {
		rc = ir_plan_phase(p);
		for (int32_t i = 0; i < n && rc == 0; i++) {
			int32_t to = order[(i + 1) % n];
			int32_t at = combine ? (i - j - 1 + 2 * n) % n
			                     : (i - j + n) % n;
			int32_t k = order[at];
			if (!reduces) {
				tmp[0] = (ir_block){k, 0};
				rc = ir_plan_add(p, order[i], to, tmp, 1, 0);
				continue;
			}
			rc = sch_partials(p, order[i], to, &k, 1,
			                  combine ? IR_XF_REDUCE : 0, tmp);
		}
	}
	return rc;
}
