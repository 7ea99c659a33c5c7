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

/* Counting sort by phase number: stable, O(edges + phases). */
int sch_edges_emit(struct sch_edges *E, ir_plan *p)
{
	int rc = 0;
	if (E->rc)
		return E->rc;
	uint32_t top = 0;
	for (size_t k = 0; k < E->n; k++)
		top = E->e[k].phase > top ? E->e[k].phase : top;
	size_t *cnt = calloc((size_t)top + 2, sizeof *cnt);
	size_t *order = malloc((E->n ? E->n : 1) * sizeof *order);
	if (!cnt || !order) {
		rc = CCP_ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < E->n; k++)
		cnt[E->e[k].phase + 1]++;
	for (uint32_t ph = 0; ph <= top; ph++)
		cnt[ph + 1] += cnt[ph];
	for (size_t k = 0; k < E->n; k++)
		order[cnt[E->e[k].phase]++] = k;
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
	return rc;
}

void sch_edges_fini(struct sch_edges *E)
{
	free(E->e);
	free(E->b);
	memset(E, 0, sizeof *E);
}
