/*
 * lower.c - from a verified plan to what each rank executes.
 *
 * Lowering decides where every block lives on every rank that holds it,
 * and turns the phases into per-rank operation lists:
 *
 *   COPY ...                 prologue: local blocks that stay local
 *   PHASE k                  for each phase the rank takes part in:
 *   RECV / RECV_REDUCE ...     post every receive,
 *   SEND ...                   then every send,
 *   WAIT                       then wait for all of them.
 *
 * Buffer layout (documented in docs/plan-format.md):
 *   broadcast  segment s at its offset in SEND (root) and RECV (all)
 *   scatter    block d at d*bytes in the root's SEND, at 0 in d's RECV
 *   gather     at 0 in r's SEND, at r*bytes in the root's RECV
 *   reduce, reduce_scatter, allreduce
 *              the vector at 0 in SEND; the running partial of element
 *              block k at its offset in RECV where the block's result
 *              must end (reduce_scatter: rank k's RECV holds block k at
 *              0), else at its offset in SCRATCH; a combined partial
 *              lands in a SCRATCH slot of its own and is then combined
 *              into the running ones, a replacing one lands in place
 *   allgather  at 0 in r's SEND, at r*bytes in every RECV
 *   alltoall   (s,d) at d*bytes in s's SEND and s*bytes in d's RECV
 *   transpose  at 0 in SEND and at 0 in the target's RECV
 *   irregular  (s,d) packed by d in s's SEND, packed by s in d's RECV
 * A block held by a rank that is neither its origin nor its destination
 * gets its own SCRATCH slot, allocated in phase order.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "rng.h"

const char *ir_op_name(enum ir_opcode op)
{
	static const char *const names[] = {
#define X(name, peer, comment) #name,
	        IR_OPS(X)
#undef X
	};
	return (unsigned)op < IR_NOPS ? names[op] : "?";
}

/* ---- where a block lives -------------------------------------------- */

struct place {
	int32_t rank, origin, index; /* rank < 0: empty */
	uint64_t off;                /* offset in SCRATCH */
};

struct lowering {
	const ir_plan *p;
	int32_t n;
	/* scratch slots of blocks in transit: open addressing */
	struct place *slot;
	uint64_t mask, count;
	/* irregular: offset of each matrix entry in its sender's SEND and
	 * its receiver's RECV buffer */
	uint64_t *send_off, *recv_off;
	uint64_t *send_size, *recv_size; /* per rank, irregular only */
	uint64_t *scratch;               /* per rank: scratch used so far */
};

static struct place *place_find(const struct lowering *L, int32_t r, ir_block b)
{
	uint64_t k = ir_mix64((uint64_t)(uint32_t)r << 32 ^
	                      (uint32_t)b.origin ^ ir_mix64((uint32_t)b.index)) &
	             L->mask;
	for (;;) {
		struct place *q = &L->slot[k];
		if (q->rank < 0 || (q->rank == r && q->origin == b.origin &&
		                    q->index == b.index))
			return q;
		k = (k + 1) & L->mask;
	}
}

/* The table of scratch slots, made when the first block in transit
 * arrives: a broadcast, an allgather and the reductions have none, and
 * at a million ranks it would be 100 MB written for nothing. */
static int open_slots(struct lowering *L)
{
	uint64_t cap = 64;
	while (cap < 2 * (uint64_t)L->p->nblocks + 2)
		cap *= 2;
	if (!(L->slot = malloc(cap * sizeof *L->slot)))
		return CCP_ENOMEM;
	for (uint64_t k = 0; k < cap; k++)
		L->slot[k].rank = -1;
	L->mask = cap - 1;
	return 0;
}

/* Offset of segment s of the broadcast. */
static uint64_t segment_off(const ir_comm *c, int32_t s)
{
	int32_t k = c->segments > 0 ? c->segments : 1;
	int64_t q = c->bytes / k, r = c->bytes % k;
	return (uint64_t)(s * q + (s < r ? s : r));
}

/* Index of matrix entry (s,d), or -1. */
static int64_t entry_of(const ir_matrix *x, int32_t s, int32_t d)
{
	int64_t lo = x->row[s], hi = x->row[s + 1];
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (x->dst[mid] < d)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->row[s + 1] && x->dst[lo] == d ? lo : -1;
}

/* Where block b sits in its origin's SEND buffer. */
static uint64_t origin_off(const struct lowering *L, ir_block b)
{
	const ir_comm *c = &L->p->comm;
	switch (c->coll) {
	case IR_BCAST:
		return segment_off(c, b.index);
	case IR_SCATTER:
	case IR_ALLTOALL:
		return (uint64_t)b.index * (uint64_t)c->bytes;
	case IR_IRREGULAR:
		return L->send_off[entry_of(c->matrix, b.origin, b.index)];
	default:
		return 0;
	}
}

/* Where block b sits in its destination's RECV buffer. */
static uint64_t dest_off(const struct lowering *L, ir_block b)
{
	const ir_comm *c = &L->p->comm;
	switch (c->coll) {
	case IR_BCAST:
		return segment_off(c, b.index);
	case IR_GATHER:
	case IR_ALLTOALL:
	case IR_ALLGATHER:
		return (uint64_t)b.origin * (uint64_t)c->bytes;
	case IR_IRREGULAR:
		return L->recv_off[entry_of(c->matrix, b.origin, b.index)];
	default:
		return 0;
	}
}

/* The iov of block b at rank r, for a send (the block is held) or a
 * receive (a scratch slot is allocated on first arrival). */
static int locate(struct lowering *L, int32_t r, ir_block b, bool arriving,
                  ir_iov *out)
{
	const ir_plan *p = L->p;
	int rc;
	int64_t len = ir_block_bytes(&p->comm, L->n, b);
	int32_t d = ir_block_home(&p->machine, &p->comm, b);
	out->len = (uint64_t)len;
	if (ir_coll_kind(p->comm.coll) & IR_CK_REDUCES) { /* running partial */
		bool ends = d < 0 || d == r;
		out->buf = ends ? IR_BUF_RECV : IR_BUF_SCRATCH;
		out->off = ends && p->comm.coll == IR_REDUCE_SCATTER
		                   ? 0
		                   : (uint64_t)ir_reduce_block_off(
		                             &p->comm, L->n, b.index);
		return 0;
	}
	if (!arriving && r == b.origin) {
		out->buf = IR_BUF_SEND;
		out->off = origin_off(L, b);
		return 0;
	}
	if (d < 0 || d == r) {
		out->buf = IR_BUF_RECV;
		out->off = dest_off(L, b);
		return 0;
	}
	if (!L->slot && (rc = open_slots(L)) != 0)
		return rc;
	struct place *q = place_find(L, r, b);
	if (q->rank < 0) {
		if (!arriving)
			return CCP_EINTERNAL; /* the verifier let through a send
			                         of a block never received */
		*q = (struct place){r, b.origin, b.index, L->scratch[r]};
		L->scratch[r] += out->len;
		L->count++;
	}
	out->buf = IR_BUF_SCRATCH;
	out->off = q->off;
	return 0;
}

/* ---- building the slices -------------------------------------------- */

/* Append the iovs of a transfer's blocks at rank r, merging neighbours. */
static int add_iovs(struct lowering *L, ir_slice *s, const ir_transfer *x,
                    int32_t r, bool arriving)
{
	for (uint32_t k = 0; k < x->nblocks; k++) {
		ir_iov v;
		int rc = locate(L, r, L->p->blocks[x->block + k], arriving, &v);
		if (rc)
			return rc;
		if (v.len == 0)
			continue;
		ir_iov *last = s->niovs ? &s->iovs[s->niovs - 1] : NULL;
		if (k > 0 && last && last->buf == v.buf &&
		    last->off + last->len == v.off)
			last->len += v.len;
		else
			s->iovs[s->niovs++] = v;
	}
	return 0;
}

static void add_op(ir_slice *s, enum ir_opcode code, uint32_t phase,
                   int32_t peer, uint64_t bytes, uint32_t iov, uint32_t niov)
{
	s->ops[s->nops++] = (ir_op){.code = (uint8_t)code,
	                            .phase = phase,
	                            .peer = peer,
	                            .bytes = bytes,
	                            .iov = iov,
	                            .niov = niov};
}

/* A local copy from the SEND buffer to another place. */
static void add_copy(ir_slice *s, uint64_t from, uint8_t to_buf, uint64_t to,
                     uint64_t len)
{
	if (len == 0)
		return;
	uint32_t i = s->niovs;
	s->iovs[s->niovs++] = (ir_iov){IR_BUF_SEND, from, len};
	s->iovs[s->niovs++] = (ir_iov){to_buf, to, len};
	add_op(s, IR_OP_COPY, 0, -1, len, i, 2);
}

/* Buffer sizes and the prologue copies of rank r. */
static void prologue(struct lowering *L, ir_slice *s, int32_t r)
{
	const ir_comm *c = &L->p->comm;
	uint64_t b = (uint64_t)c->bytes, n = (uint64_t)L->n;
	switch (c->coll) {
	case IR_BCAST:
		s->send_bytes = r == c->root ? b : 0;
		s->recv_bytes = b;
		if (r == c->root)
			add_copy(s, 0, IR_BUF_RECV, 0, b);
		break;
	case IR_SCATTER:
		s->send_bytes = r == c->root ? n * b : 0;
		s->recv_bytes = b;
		if (r == c->root)
			add_copy(s, (uint64_t)r * b, IR_BUF_RECV, 0, b);
		break;
	case IR_GATHER:
		s->send_bytes = b;
		s->recv_bytes = r == c->root ? n * b : 0;
		if (r == c->root)
			add_copy(s, 0, IR_BUF_RECV, (uint64_t)r * b, b);
		break;
	case IR_REDUCE:
		s->send_bytes = b;
		s->recv_bytes = r == c->root ? b : 0;
		add_copy(s, 0, r == c->root ? IR_BUF_RECV : IR_BUF_SCRATCH, 0,
		         b);
		break;
	case IR_ALLREDUCE:
		s->send_bytes = s->recv_bytes = b;
		add_copy(s, 0, IR_BUF_RECV, 0, b);
		break;
	case IR_REDUCE_SCATTER: { /* rank r's block to RECV, the rest to
		                     SCRATCH at their offsets */
		uint64_t at = (uint64_t)ir_reduce_block_off(c, L->n, r);
		uint64_t len = (uint64_t)ir_block_bytes(c, L->n, (ir_block){r, r});
		s->send_bytes = b;
		s->recv_bytes = len;
		add_copy(s, 0, IR_BUF_SCRATCH, 0, at);
		add_copy(s, at, IR_BUF_RECV, 0, len);
		add_copy(s, at + len, IR_BUF_SCRATCH, at + len, b - at - len);
		break;
	}
	case IR_ALLGATHER:
		s->send_bytes = b;
		s->recv_bytes = n * b;
		add_copy(s, 0, IR_BUF_RECV, (uint64_t)r * b, b);
		break;
	case IR_ALLTOALL:
		s->send_bytes = s->recv_bytes = n * b;
		add_copy(s, (uint64_t)r * b, IR_BUF_RECV, (uint64_t)r * b, b);
		break;
	case IR_TRANSPOSE:
		s->send_bytes = s->recv_bytes = b;
		if (ir_block_home(&L->p->machine, c, (ir_block){r, 0}) == r)
			add_copy(s, 0, IR_BUF_RECV, 0, b);
		break;
	case IR_IRREGULAR:
		s->send_bytes = L->send_size[r];
		s->recv_bytes = L->recv_size[r];
		break;
	}
}

static int setup(struct lowering *L, const ir_plan *p)
{
	memset(L, 0, sizeof *L);
	L->p = p;
	L->n = p->machine.nranks;
	L->scratch = calloc((size_t)L->n, sizeof *L->scratch);
	if (!L->scratch)
		return CCP_ENOMEM;
	if (p->comm.coll == IR_REDUCE) /* running partials first */
		for (int32_t r = 0; r < L->n; r++)
			if (r != p->comm.root)
				L->scratch[r] = (uint64_t)p->comm.bytes;
	if (p->comm.coll == IR_REDUCE_SCATTER)
		for (int32_t r = 0; r < L->n; r++)
			L->scratch[r] = (uint64_t)p->comm.bytes;
	if (p->comm.coll == IR_IRREGULAR) {
		const ir_matrix *x = p->comm.matrix;
		size_t nnz = (size_t)x->nnz + 1;
		L->send_off = malloc(nnz * sizeof *L->send_off);
		L->recv_off = malloc(nnz * sizeof *L->recv_off);
		L->send_size = calloc((size_t)L->n, sizeof *L->send_size);
		L->recv_size = calloc((size_t)L->n, sizeof *L->recv_size);
		if (!L->send_off || !L->recv_off || !L->send_size ||
		    !L->recv_size)
			return CCP_ENOMEM;
		/* rows in order of s, so each receiver's blocks are packed
		 * by ascending source */
		for (int32_t s = 0; s < L->n; s++)
			for (int64_t k = x->row[s]; k < x->row[s + 1]; k++) {
				L->send_off[k] = L->send_size[s];
				L->send_size[s] += (uint64_t)x->bytes[k];
				L->recv_off[k] = L->recv_size[x->dst[k]];
				L->recv_size[x->dst[k]] +=
				        (uint64_t)x->bytes[k];
			}
	}
	return 0;
}

static void teardown(struct lowering *L)
{
	free(L->slot);
	free(L->scratch);
	free(L->send_off);
	free(L->recv_off);
	free(L->send_size);
	free(L->recv_size);
}

/* The prologue's counts of rank r: its copies, made on the side. */
static void prologue_size(struct lowering *L, int32_t r, uint64_t *nops,
                          uint64_t *niov)
{
	ir_op ops[3];
	ir_iov iovs[6];
	ir_slice t = {.ops = ops, .iovs = iovs};
	prologue(L, &t, r);
	*nops = t.nops;
	*niov = t.niovs;
}

int ir_lower(const ir_plan *p, ir_slice **out)
{
	int rc;
	int32_t n = p->machine.nranks;
	struct lowering L;
	ir_slice *s = NULL;
	uint32_t *mark = NULL;
	uint64_t *nops = NULL, *niov = NULL;
	if ((rc = setup(&L, p)) != 0)
		goto out;
	mark = malloc((size_t)n * sizeof *mark);
	nops = malloc((size_t)n * sizeof *nops);
	niov = malloc((size_t)n * sizeof *niov);
	if (!mark || !nops || !niov) {
		rc = CCP_ENOMEM;
		goto out;
	}

	/* pass 1: the ops of each rank and an upper bound of its iovs */
	for (int32_t r = 0; r < n; r++) {
		prologue_size(&L, r, &nops[r], &niov[r]);
		mark[r] = UINT32_MAX;
	}
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		const ir_phase *f = &p->phases[ph];
		for (uint32_t t = f->transfer; t < f->transfer + f->ntransfers;
		     t++) {
			const ir_transfer *x = &p->transfers[t];
			int32_t ends[2] = {x->src, x->dst};
			for (int e = 0; e < 2; e++) {
				if (mark[ends[e]] != ph) { /* PHASE and WAIT */
					mark[ends[e]] = ph;
					nops[ends[e]] += 2;
				}
				nops[ends[e]]++;
				niov[ends[e]] +=
				        x->nblocks + (e == 1 && x->flags & IR_XF_REDUCE);
			}
		}
	}
	/* one allocation for the slices and every rank's ops and iovs, in
	 * rank order (ir_slices_free frees it): a million ranks are three
	 * arrays, not two million small blocks */
	uint64_t tops = 0, tiov = 0;
	for (int32_t r = 0; r < n; r++) {
		if (nops[r] > UINT32_MAX || niov[r] > UINT32_MAX) {
			rc = CCP_ERANGE;
			goto out;
		}
		tops += nops[r];
		tiov += niov[r];
	}
	uint64_t head = (uint64_t)n * sizeof *s;
	uint64_t size = head + tops * sizeof(ir_op) + tiov * sizeof(ir_iov);
	if (size > SIZE_MAX || !(s = malloc(size ? (size_t)size : 1))) {
		rc = CCP_ENOMEM;
		goto out;
	}
	memset(s, 0, (size_t)head);
	ir_op *op_at = (ir_op *)((char *)s + head);
	ir_iov *iov_at = (ir_iov *)(op_at + tops);
	for (int32_t r = 0; r < n; r++) {
		s[r].rank = r;
		s[r].dtype = (uint8_t)p->comm.dtype;
		s[r].redop = (uint8_t)p->comm.op;
		s[r].ops = op_at;
		s[r].iovs = iov_at;
		op_at += nops[r];
		iov_at += niov[r];
		prologue(&L, &s[r], r);
		mark[r] = UINT32_MAX;
	}
	free(nops);
	free(niov);
	nops = niov = NULL;

	/* pass 2: per phase, PHASE, receives, sends, WAIT on each rank */
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		const ir_phase *f = &p->phases[ph];
		uint32_t end = f->transfer + f->ntransfers;
		for (uint32_t t = f->transfer; t < end; t++) {
			const ir_transfer *x = &p->transfers[t];
			int32_t ends[2] = {x->src, x->dst};
			for (int e = 0; e < 2; e++)
				if (mark[ends[e]] != ph) {
					mark[ends[e]] = ph;
					add_op(&s[ends[e]], IR_OP_PHASE, ph, -1,
					       0, 0, 0);
				}
			ir_slice *d = &s[x->dst];
			uint32_t first = d->niovs;
			if (x->flags & IR_XF_REDUCE) {
				/* a fresh scratch slot for the incoming
				 * partials, then the running partials they
				 * combine into, in the same order */
				uint64_t len = (uint64_t)x->bytes;
				d->iovs[d->niovs++] = (ir_iov){
				        IR_BUF_SCRATCH, L.scratch[x->dst], len};
				L.scratch[x->dst] += len;
				if ((rc = add_iovs(&L, d, x, x->dst, false)) !=
				    0)
					goto out;
				if (d->niovs - first == 1) { /* 0 bytes: still
				                                 a pair */
					if ((rc = locate(&L, x->dst,
					                 p->blocks[x->block],
					                 false,
					                 &d->iovs[d->niovs])) != 0)
						goto out;
					d->iovs[d->niovs++].len = 0;
				}
				add_op(d, IR_OP_RECV_REDUCE, ph, x->src, len,
				       first, d->niovs - first);
			} else {
				if ((rc = add_iovs(&L, d, x, x->dst, true)) !=
				    0)
					goto out;
				add_op(d, IR_OP_RECV, ph, x->src,
				       (uint64_t)x->bytes, first,
				       d->niovs - first);
			}
		}
		for (uint32_t t = f->transfer; t < end; t++) {
			const ir_transfer *x = &p->transfers[t];
			ir_slice *o = &s[x->src];
			uint32_t first = o->niovs;
			if ((rc = add_iovs(&L, o, x, x->src, false)) != 0)
				goto out;
			add_op(o, IR_OP_SEND, ph, x->dst, (uint64_t)x->bytes,
			       first, o->niovs - first);
			o->ops[o->nops - 1].path = x->path;
		}
		for (uint32_t t = f->transfer; t < end; t++) {
			int32_t ends[2] = {p->transfers[t].src,
			                   p->transfers[t].dst};
			for (int e = 0; e < 2; e++)
				if (mark[ends[e]] == ph) {
					mark[ends[e]] = UINT32_MAX - 1;
					add_op(&s[ends[e]], IR_OP_WAIT, ph, -1,
					       0, 0, 0);
				}
		}
	}
	for (int32_t r = 0; r < n; r++)
		s[r].scratch_bytes = L.scratch[r];
out:
	teardown(&L);
	free(mark);
	free(nops);
	free(niov);
	if (rc) {
		ir_slices_free(s, n);
		s = NULL;
	}
	*out = s;
	return rc;
}

void ir_slices_free(ir_slice *s, int32_t n)
{
	(void)n; /* one allocation holds them all (ir_lower) */
	free(s);
}
