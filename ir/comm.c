/*
 * comm.c - the communication a plan must perform: block sizes, names, and
 * the sparse matrix of irregular patterns.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* Segment s of an n-byte message cut into k segments: the first n % k
 * segments are one byte longer, so sizes differ by at most one. */
static int64_t segment_bytes(int64_t n, int32_t k, int32_t s)
{
	return n / k + (s < n % k ? 1 : 0);
}

int32_t ir_reduce_blocks(const ir_comm *c, int32_t nranks)
{
	if (c->coll == IR_REDUCE_SCATTER)
		return nranks;
	return c->segments > 0 ? c->segments : 1;
}

/* Elements of the vector, or 0 when the element type is unknown. */
static int64_t elements(const ir_comm *c)
{
	int64_t es = (int64_t)ir_dtype_size(c->dtype);
	return es ? c->bytes / es : 0;
}

int64_t ir_reduce_block_off(const ir_comm *c, int32_t nranks, int32_t k)
{
	int64_t e = elements(c), K = ir_reduce_blocks(c, nranks);
	int64_t q = e / K, r = e % K;
	return (k * q + (k < r ? k : r)) * (int64_t)ir_dtype_size(c->dtype);
}

int64_t ir_block_bytes(const ir_comm *c, int32_t nranks, ir_block b)
{
	if (b.origin < 0 || b.origin >= nranks || b.index < 0)
		return -1;
	if (ir_coll_kind(c->coll) & IR_CK_REDUCES) {
		int32_t k = ir_reduce_blocks(c, nranks);
		if (b.index >= k)
			return -1;
		return segment_bytes(elements(c), k, b.index) *
		       (int64_t)ir_dtype_size(c->dtype);
	}
	switch (c->coll) {
	case IR_BCAST: {
		int32_t k = c->segments > 0 ? c->segments : 1;
		if (b.origin != c->root || b.index >= k)
			return -1;
		return segment_bytes(c->bytes, k, b.index);
	}
	case IR_SCATTER:
		return b.origin == c->root && b.index < nranks ? c->bytes : -1;
	case IR_GATHER:
	case IR_TRANSPOSE:
	case IR_ALLGATHER:
		return b.index == 0 ? c->bytes : -1;
	case IR_ALLTOALL:
		return b.index < nranks ? c->bytes : -1;
	case IR_IRREGULAR: {
		if (!c->matrix || b.index >= c->matrix->n)
			return -1;
		const ir_matrix *x = c->matrix;
		const int32_t *lo = x->dst + x->row[b.origin];
		const int32_t *hi = x->dst + x->row[b.origin + 1];
		while (lo < hi) { /* binary search: the entry must exist */
			const int32_t *mid = lo + (hi - lo) / 2;
			if (*mid < b.index)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < x->dst + x->row[b.origin + 1] && *lo == b.index)
			return x->bytes[lo - x->dst];
		return -1;
	}
	case IR_REDUCE:
	case IR_REDUCE_SCATTER:
	case IR_ALLREDUCE:
		break; /* element blocks, above */
	}
	return -1;
}

/* The destination of every block, for the verifier (delivery, direct
 * plans, the lower bound) and the lowering (where a block is stored):
 * one rule, so the two cannot disagree.  A transpose sends rank (x, y)'s
 * block to (y, x). */
int32_t ir_block_home(const ir_machine *m, const ir_comm *c, ir_block b)
{
	switch (c->coll) {
	case IR_SCATTER:
	case IR_ALLTOALL:
	case IR_IRREGULAR:
		return b.index;
	case IR_GATHER:
	case IR_REDUCE:
		return c->root;
	case IR_REDUCE_SCATTER:
		return b.index;
	case IR_TRANSPOSE: {
		int x[IR_MAX_CUBE_DIM];
		ir_coords(m, b.origin, x);
		int t = x[0];
		x[0] = x[1];
		x[1] = t;
		return ir_rank_of(m, x);
	}
	case IR_BCAST:
	case IR_ALLGATHER:
	case IR_ALLREDUCE:
		break;
	}
	return -1;
}

int64_t ir_matrix_get(const ir_matrix *x, int32_t s, int32_t d)
{
	ir_comm c = {.coll = IR_IRREGULAR, .matrix = (ir_matrix *)x};
	int64_t v = ir_block_bytes(&c, x->n, (ir_block){s, d});
	return v < 0 ? 0 : v;
}

ir_matrix *ir_matrix_new(int32_t n, int64_t nnz)
{
	if (n <= 0 || nnz < 0)
		return NULL;
	ir_matrix *x = calloc(1, sizeof *x);
	if (!x)
		return NULL;
	x->n = n;
	x->nnz = nnz;
	x->row = calloc((size_t)n + 1, sizeof *x->row);
	x->dst = malloc((size_t)(nnz ? nnz : 1) * sizeof *x->dst);
	x->bytes = malloc((size_t)(nnz ? nnz : 1) * sizeof *x->bytes);
	if (!x->row || !x->dst || !x->bytes) {
		ir_matrix_free(x);
		return NULL;
	}
	return x;
}

void ir_matrix_free(ir_matrix *x)
{
	if (!x)
		return;
	free(x->row);
	free(x->dst);
	free(x->bytes);
	free(x);
}

void ir_comm_fini(ir_comm *c)
{
	ir_matrix_free(c->matrix);
	c->matrix = NULL;
}

int ir_comm_copy(ir_comm *dst, const ir_comm *src)
{
	*dst = *src;
	dst->matrix = NULL;
	if (!src->matrix)
		return 0;
	const ir_matrix *x = src->matrix;
	ir_matrix *y = ir_matrix_new(x->n, x->nnz);
	if (!y)
		return CCP_ENOMEM;
	memcpy(y->row, x->row, ((size_t)x->n + 1) * sizeof *y->row);
	memcpy(y->dst, x->dst, (size_t)x->nnz * sizeof *y->dst);
	memcpy(y->bytes, x->bytes, (size_t)x->nnz * sizeof *y->bytes);
	dst->matrix = y;
	return 0;
}

