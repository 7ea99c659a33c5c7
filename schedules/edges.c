/*
 * edges.c - an edge list for generators that find their transfers out of
 * phase order (tree recursions, hierarchies): each transfer is tagged with
 * its phase number and the list is sorted into phases at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "sched.h"

void sch_edges_add(struct sch_edges *E, uint32_t phase, int32_t src,
                   int32_t dst, const ir_block *blocks, uint32_t nblocks,
                   uint32_t flags)
{
	if (E->rc)
		return;
	if (E->n == E->cap) {
		size_t cap = E->cap ? 2 * E->cap : 256;
		void *q = realloc(E->e, cap * sizeof *E->e);
		if (!q) {
			E->rc = CCP_ENOMEM;
			return;
		}
		E->e = q;
		E->cap = cap;
	}
	if (E->nb + nblocks > E->capb) {
		size_t cap = E->capb ? E->capb : 256;
		while (cap < E->nb + nblocks)
			cap *= 2;
		void *q = realloc(E->b, cap * sizeof *E->b);
		if (!q) {
			E->rc = CCP_ENOMEM;
			return;
		}
		E->b = q;
		E->capb = cap;
	}
	memcpy(E->b + E->nb, blocks, nblocks * sizeof *blocks);
	E->e[E->n] = (struct sch_edge){phase, (uint32_t)E->n, src,  dst,
	                               E->nb, nblocks,        flags};
	E->n++;
	E->nb += nblocks;
}

/* The key an edge is sorted by: its phase, or its rank of E->order. */
static uint32_t key_of(const struct sch_edges *E, size_t k, bool phase)
{
	const struct sch_edge *e = E->e + k;
	if (phase)
		return e->phase;
	return (uint32_t)(E->order == SCH_ORDER_SRC ? e->src : e->dst);
}

/* Stable counting sort of the indices in `in` by their key into `out`:
 * O(n + top), top the largest key.  cnt has room for top + 2 counts. */
static void sort_by(const struct sch_edges *E, const size_t *in, size_t *out,
                    size_t *cnt, uint32_t top, bool phase)
{
	memset(cnt, 0, ((size_t)top + 2) * sizeof *cnt);
	for (size_t k = 0; k < E->n; k++)
		cnt[key_of(E, in[k], phase) + 1]++;
	for (uint32_t v = 0; v <= top; v++)
		cnt[v + 1] += cnt[v];
	for (size_t k = 0; k < E->n; k++)
		out[cnt[key_of(E, in[k], phase)]++] = in[k];
}

/* Sort by phase (and first by rank, when E->order asks), stable: O(edges
 * + phases + ranks). */
int sch_edges_emit(struct sch_edges *E, ir_plan *p)
{
	int rc = 0;
	if (E->rc)
		return E->rc;
	bool by_rank = E->order != SCH_ORDER_ADDED;
	uint32_t top = 0, top_rank = 0;
	for (size_t k = 0; k < E->n; k++) {
		top = E->e[k].phase > top ? E->e[k].phase : top;
		if (by_rank && key_of(E, k, false) > top_rank)
			top_rank = key_of(E, k, false);
	}
	uint32_t most = top > top_rank ? top : top_rank;
	size_t n = E->n ? E->n : 1;
	size_t *cnt = malloc(((size_t)most + 2) * sizeof *cnt);
	size_t *order = malloc(n * sizeof *order);
	size_t *tmp = calloc(n, sizeof *tmp);
	if (!cnt || !order || !tmp) {
		rc = CCP_ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < E->n; k++)
		tmp[k] = k;
	if (by_rank) { /* least significant key first */
		sort_by(E, tmp, order, cnt, top_rank, false);
		memcpy(tmp, order, E->n * sizeof *tmp);
	}
	sort_by(E, tmp, order, cnt, top, true);
	for (size_t k = 0; k < E->n; k++) {
		const struct sch_edge *e = E->e + order[k];
		if ((k == 0 || e->phase != E->e[order[k - 1]].phase) &&
		    (rc = ir_plan_phase(p)) != 0)
			goto out;
		rc = ir_plan_add(p, e->src, e->dst, E->b + e->block, e->nblocks,
		                 e->flags);
		if (rc)
			goto out;
	}
out:
	free(cnt);
	free(order);
	free(tmp);
	return rc;
}

/* The tree run backwards: the last phase first, every transfer from its
 * destination to its source. */
void sch_edges_reverse(struct sch_edges *E)
{
	uint32_t top = 0;
	for (size_t k = 0; k < E->n; k++)
		top = E->e[k].phase > top ? E->e[k].phase : top;
	for (size_t k = 0; k < E->n; k++) {
		struct sch_edge *e = E->e + k;
		int32_t s = e->src;
		e->phase = top - e->phase;
		e->src = e->dst;
		e->dst = s;
	}
}

void sch_edges_fini(struct sch_edges *E)
{
	free(E->e);
	free(E->b);
	memset(E, 0, sizeof *E);
}
