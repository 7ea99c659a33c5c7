/*
 * plan.c - building a plan: phases appended in order, transfers appended
 * to the last phase, blocks appended to the last transfer.  The arrays
 * grow geometrically; operands are indices, so growth moves nothing that
 * anyone points to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

void ir_plan_init(ir_plan *p, const ir_machine *m, const ir_comm *c,
                  const char *algorithm)
{
	memset(p, 0, sizeof *p);
	if (m) {
		p->machine = *m;
		ir_place_retain(p->machine.place);
		ir_graph_retain(p->machine.graph);
	}
	if (c && ir_comm_copy(&p->comm, c) != 0)
		p->comm.matrix =
		        NULL; /* reported by the verifier as unusable */
	if (algorithm)
		snprintf(p->algorithm, sizeof p->algorithm, "%s", algorithm);
}

void ir_plan_fini(ir_plan *p)
{
	free(p->phases);
	free(p->transfers);
	free(p->blocks);
	ir_place_release(p->machine.place);
	ir_graph_release(p->machine.graph);
	ir_comm_fini(&p->comm);
	memset(p, 0, sizeof *p);
}

/* Grow *arr (of elem-byte items, *cap of them) to hold need items. */
static int grow(void **arr, uint32_t *cap, uint64_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	if (need > UINT32_MAX)
		return CCP_ERANGE;
	uint64_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	if (n > UINT32_MAX)
		n = UINT32_MAX;
	void *q = realloc(*arr, (size_t)n * elem);
	if (!q)
		return CCP_ENOMEM;
	*arr = q;
	*cap = (uint32_t)n;
	return 0;
}

int ir_plan_phase(ir_plan *p)
{
	int rc = grow((void **)&p->phases, &p->cap_phases,
	              (uint64_t)p->nphases + 1, sizeof *p->phases);
	if (rc)
		return rc;
	p->phases[p->nphases++] = (ir_phase){p->ntransfers, 0};
	return 0;
}

int ir_plan_add(ir_plan *p, int32_t src, int32_t dst, const ir_block *blocks,
                uint32_t nblocks, uint32_t flags)
{
	int64_t bytes = 0;
	for (uint32_t i = 0; i < nblocks; i++) {
		int64_t b =
		        ir_block_bytes(&p->comm, p->machine.nranks, blocks[i]);
		bytes += b > 0 ? b : 0; /* an invalid block is the verifier's */
	}
	return ir_plan_add_sized(p, src, dst, blocks, nblocks, flags, bytes);
}

int ir_plan_add_sized(ir_plan *p, int32_t src, int32_t dst,
                      const ir_block *blocks, uint32_t nblocks,
                      uint32_t flags, int64_t bytes)
{
	int rc;
	if (p->nphases == 0 && (rc = ir_plan_phase(p)) != 0)
		return rc;
	rc = grow((void **)&p->transfers, &p->cap_transfers,
	          (uint64_t)p->ntransfers + 1, sizeof *p->transfers);
	if (rc)
		return rc;
	rc = grow((void **)&p->blocks, &p->cap_blocks,
	          (uint64_t)p->nblocks + nblocks, sizeof *p->blocks);
	if (rc)
		return rc;
	memcpy(p->blocks + p->nblocks, blocks, nblocks * sizeof *blocks);
	p->transfers[p->ntransfers++] = (ir_transfer){.src = src,
	                                              .dst = dst,
	                                              .bytes = bytes,
	                                              .block = p->nblocks,
	                                              .nblocks = nblocks,
	                                              .flags = flags};
	p->nblocks += nblocks;
	p->phases[p->nphases - 1].ntransfers++;
	return 0;
}

void ir_plan_trim(ir_plan *p)
{
	while (p->nphases > 0 && p->phases[p->nphases - 1].ntransfers == 0)
		p->nphases--;
}
