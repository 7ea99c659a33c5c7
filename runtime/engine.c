/*
 * engine.c - running one rank's operation list over a transport.
 *
 * A slice is a prologue of local COPYs, then one group per phase the rank
 * takes part in: PHASE, its receives, its sends, WAIT (ir/lower.c).  The
 * engine turns each group into transport calls under one of the two
 * schemes of 004 §3:
 *
 *   S2  post every receive of the phase; [barrier]; send; wait.
 *   S1  post every receive and tell each sender "ready" (a zero-byte
 *       token); a sender waits for its receivers' tokens, then sends
 *       straight into the posted receive; wait.
 *
 * With phase barriers (the default) every rank enters one barrier per
 * phase of the plan, also for the phases it has no part in, so phase k
 * starts only after every rank has finished phase k-1 and posted its
 * receives of phase k.  CCP_EXEC_NO_BARRIER drops them: the order of each
 * rank's operations and the transport's matching by (peer, phase) then
 * keep the schedule, as the papers run it.
 *
 * An execution is a state machine (see RUN_NEXT below) whose steps
 * either block (ccp_plan_execute, ccp_plan_wait) or stop where they
 * would block (ccp_plan_start, ccp_plan_test: the transport's test op),
 * so that blocking and non-blocking execution are the same code.
 *
 * A message made of several pieces (iovs) is packed into, or unpacked
 * from, a staging area sized on the first execution for the largest
 * phase; a received partial of a reduction is combined into the running
 * one after the phase's wait.  A prologue copy of the rank's own block
 * that only feeds sends or a first combine is folded away (fold_copy).
 * After the first execution nothing is allocated.
 */
#include <string.h>

#include "internal.h"

/* Where piece v lies in the bound buffers, or in the application's
 * pieces (ccp_plan_bind_pieces).  An empty piece may name a buffer the
 * application left NULL (length 0): it gets a valid address that nothing
 * reads or writes. */
static uint8_t *at(ccp_plan *p, const ir_iov *v)
{
	if (!v->len)
		return p->ready;
	if (p->pieces)
		return p->iov_at[v - p->slice.iovs];
	return p->buf[v->buf] + v->off;
}

/* ---- the combine kernels --------------------------------------------
 *
 * dst = x OP y over n elements of one type, one function per (type,
 * operation) pair, so that no switch runs per element, in two forms: in
 * place (x is dst: a partial combined into the running one) and to a
 * third place (dst = x OP y: the prologue's copy of the send buffer
 * folded into the first combine, see fold_copy).  The buffers may be
 * unaligned (scratch slots are packed), so elements go through memcpy,
 * which compilers turn into plain loads and stores.  The loop walks
 * blocks of 64 bytes, a fixed element count, which GCC's -O2 vectorises
 * (SLP; its cost model takes a loop of unknown count only at -O3)
 * because the pointers are restrict (the loader keeps a receive apart
 * from the partials it combines into, and bind keeps the buffers apart);
 * the scalar loop takes the rest.  Every element is combined on its own
 * either way, in the same expression, so no result changes by a bit.
 * Sums and products of integers are computed in U, the unsigned type of
 * T's width: the application's values may overflow, which is undefined
 * for a signed type and wraps modulo 2^bits for the unsigned one (what
 * two's complement hardware and MPI's reductions give). */
#define COMBINE_BLOCK_BYTES 64
#define COMBINE_ONE(T, k, dst, x, y, expr)                                     \
	do {                                                                   \
		T a, b;                                                        \
		memcpy(&a, (x) + (k) * sizeof(T), sizeof(T));                  \
		memcpy(&b, (y) + (k) * sizeof(T), sizeof(T));                  \
		a = (T)(expr);                                                 \
		memcpy((dst) + (k) * sizeof(T), &a, sizeof(T));                \
	} while (0)
#define COMBINE_LOOP(T, n, dst, x, y, expr)                                    \
	do {                                                                   \
		enum { B_ = COMBINE_BLOCK_BYTES / sizeof(T) };                 \
		size_t i_ = 0;                                                 \
		for (; i_ + B_ <= (n); i_ += B_)                               \
			for (size_t j_ = 0; j_ < B_; j_++)                     \
				COMBINE_ONE(T, i_ + j_, dst, x, y, expr);      \
		for (; i_ < (n); i_++)                                         \
			COMBINE_ONE(T, i_, dst, x, y, expr);                   \
	} while (0)

/* X(dtype, T, U): the element types the runtime combines */
#define COMBINE_TYPES(X)                                                       \
	X(BYTE, uint8_t, uint8_t)                                              \
	X(INT32, int32_t, uint32_t)                                            \
	X(INT64, int64_t, uint64_t)                                            \
	X(FLOAT, float, float)                                                 \
	X(DOUBLE, double, double)
/* Y(dtype, op, type computed in, expression of a and b) */
#define COMBINE_OPS(Y, e, T, U)                                                \
	Y(e, SUM, U, a + b)                                                    \
	Y(e, PROD, U, a *b)                                                    \
	Y(e, MIN, T, b < a ? b : a)                                            \
	Y(e, MAX, T, b > a ? b : a)
_Static_assert(IR_NDTYPES == 5 && IR_NREDOPS == 4,
               "a new element type or operation needs its combine kernels");

/* On x86-64 with GCC, each kernel is built twice, for AVX2 and for the
 * baseline, and the loader picks one for the CPU it runs on (an ifunc):
 * a reduce's combine reads two buffers and writes one, and with 32-byte
 * vectors a 256 KiB int32 sum in cache takes about a third less time.
 * Each element is still combined on its own by the same expression, so
 * the two versions give the same bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&         \
        defined(__ELF__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define COMBINE_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef COMBINE_CLONES
#define COMBINE_CLONES
#endif

#define COMBINE_KERNELS(e, o, T, expr)                                         \
	COMBINE_CLONES static void combine_in_##e##_##o(                       \
	        uint8_t *restrict dst, const uint8_t *restrict y, size_t n)    \
	{                                                                      \
		COMBINE_LOOP(T, n, dst, dst, y, expr);                         \
	}                                                                      \
	COMBINE_CLONES static void combine_to_##e##_##o(                       \
	        uint8_t *restrict dst, const uint8_t *restrict x,              \
	        const uint8_t *restrict y, size_t n)                           \
	{                                                                      \
		COMBINE_LOOP(T, n, dst, x, y, expr);                           \
	}
#define COMBINE_TYPE_KERNELS(e, T, U) COMBINE_OPS(COMBINE_KERNELS, e, T, U)
COMBINE_TYPES(COMBINE_TYPE_KERNELS)

struct combine_kernel {
	void (*in)(uint8_t *restrict, const uint8_t *restrict, size_t);
	void (*to)(uint8_t *restrict, const uint8_t *restrict,
	           const uint8_t *restrict, size_t);
};
#define COMBINE_ENTRY(e, o, T, expr)                                           \
	[IR_OP_##o] = {combine_in_##e##_##o, combine_to_##e##_##o},
#define COMBINE_ROW(e, T, U)                                                   \
	[IR_DT_##e] = {COMBINE_OPS(COMBINE_ENTRY, e, T, U)},
static const struct combine_kernel combine_kernels[IR_NDTYPES][IR_NREDOPS] = {
        COMBINE_TYPES(COMBINE_ROW)};

void ccp__combine(unsigned dt, unsigned op, uint8_t *dst, const uint8_t *x,
                  const uint8_t *y, uint64_t bytes)
{
	const struct combine_kernel *k = &combine_kernels[dt][op];
	size_t n = (size_t)(bytes / ir_dtype_size(dt));
	if (x == dst)
		k->in(dst, y, n);
	else
		k->to(dst, x, y, n);
}

/* ---- folding prologue copies away ------------------------------------
 *
 * A reduction's lowering starts each running partial with a prologue
 * COPY of the rank's own block from SEND.  Two uses of such a copy need
 * no copy:
 *
 *   - a partial in SCRATCH that is only sent (a leaf of the tree sends
 *     its block as it is): the sends read the COPY's source instead;
 *   - a partial whose first use is a combine: copying, then combining in
 *     place, reads and writes the block once more than combining the
 *     copy's source with the received partial straight into the
 *     destination (dst = from OP recv).
 *
 * The engine then skips the COPY; fold[] (per iov) holds, at the COPY's
 * destination, a mark (not NO_FOLD), and at each piece that now reads
 * the source instead, the COPY's destination iov (its source is the iov
 * before it).  Nothing else may read or write the destination in
 * between, nor write the source; the results are the same bytes (the
 * same operands in the same order).  Binding by pieces turns it off
 * (iovs then name arbitrary addresses, which this analysis by buffer
 * and offset cannot see). */
#define NO_FOLD UINT32_MAX

static bool overlaps(const ir_iov *v, const ir_iov *w)
{
	return v->len && w->len && v->buf == w->buf &&
	       v->off < w->off + w->len && w->off < v->off + v->len;
}

/* Whether op o writes its piece k (a receive lands in every piece of a
 * RECV, in piece 0 of a RECV_REDUCE and combines into the others). */
static bool writes(const ir_op *o, uint32_t k)
{
	return o->code == IR_OP_RECV || o->code == IR_OP_RECV_REDUCE ||
	       (o->code == IR_OP_COPY && k == 1);
}

/* Fold prologue COPY c away, if its destination d is (a) in SCRATCH and
 * read by sends alone, each piece within d, until the end of the slice,
 * or (b) first combined into by a RECV_REDUCE piece equal to d, nothing
 * else touching d up to that group's WAIT (later combines into it in the
 * same group run after the fold, in post order); and nothing writes the
 * source in that span. */
static void fold_copy(ccp_plan *p, uint32_t c)
{
	const ir_slice *s = &p->slice;
	uint32_t from = s->ops[c].iov, to = from + 1;
	const ir_iov *f = &s->iovs[from], *d = &s->iovs[to];
	uint32_t piece = NO_FOLD, sends = 0, budget = 1u << 16, i;
	if (!d->len || overlaps(f, d))
		return;
	for (i = c + 1; i < s->nops; i++) {
		const ir_op *o = &s->ops[i];
		if (o->code == IR_OP_WAIT && piece != NO_FOLD)
			break;
		for (uint32_t k = 0; k < o->niov; k++) {
			const ir_iov *w = &s->iovs[o->iov + k];
			if (budget-- == 0)
				return;
			if (writes(o, k) && overlaps(w, f))
				return;
			if (!overlaps(w, d))
				continue;
			if (o->code == IR_OP_SEND && piece == NO_FOLD &&
			    d->buf == IR_BUF_SCRATCH && w->off >= d->off &&
			    w->off + w->len <= d->off + d->len) {
				sends++;
				continue;
			}
			if (sends || o->code != IR_OP_RECV_REDUCE || k == 0)
				return;
			if (piece == NO_FOLD) {
				if (w->off != d->off || w->len != d->len)
					return;
				piece = o->iov + k;
			}
		}
	}
	if (piece != NO_FOLD) {
		p->fold[to] = piece;
		p->fold[piece] = to;
		return;
	}
	if (!sends)
		return;
	p->fold[to] = to;
	for (i = c + 1; i < s->nops; i++) {
		const ir_op *o = &s->ops[i];
		for (uint32_t k = 0; o->code == IR_OP_SEND && k < o->niov; k++)
			if (overlaps(&s->iovs[o->iov + k], d))
				p->fold[o->iov + k] = to;
	}
}

/* fold[] for the slice's prologue, if it has copies and combines or
 * sends. */
static int fold_copies(ccp_plan *p)
{
	const ir_slice *s = &p->slice;
	bool copies = false, uses = false;
	for (uint32_t i = 0; i < s->nops; i++) {
		copies |= s->ops[i].code == IR_OP_COPY;
		uses |= s->ops[i].code == IR_OP_RECV_REDUCE ||
		        s->ops[i].code == IR_OP_SEND;
	}
	if (!copies || !uses)
		return 0;
	if (!p->fold)
		p->fold =
		        ccp__alloc(p->ctx, (size_t)s->niovs * sizeof *p->fold);
	if (!p->fold)
		return ccp__error(p->ctx, CCP_ENOMEM, "out of memory");
	for (uint32_t k = 0; k < s->niovs; k++)
		p->fold[k] = NO_FOLD;
	for (uint32_t i = 0; i < s->nops && s->ops[i].code == IR_OP_COPY; i++)
		fold_copy(p, i);
	return 0;
}

/* Where iov k's fold points (see above), or NO_FOLD. */
static uint32_t folded(const ccp_plan *p, uint32_t k)
{
	return p->fold && !p->pieces ? p->fold[k] : NO_FOLD;
}

/* Where to read iov k (a send's or a combine's operand) from: its place,
 * or, when the prologue copy that filled it was folded away, the same
 * bytes in the copy's source. */
static uint8_t *read_at(ccp_plan *p, uint32_t k)
{
	const ir_iov *w = &p->slice.iovs[k];
	uint32_t to = folded(p, k);
	if (to == NO_FOLD)
		return at(p, w);
	const ir_iov *d = &p->slice.iovs[to];
	return at(p, d - 1) + (w->off - d->off);
}

static bool is_recv(const ir_op *o)
{
	return o->code == IR_OP_RECV || o->code == IR_OP_RECV_REDUCE;
}

/* Size the staging area and the per-op tables, once, find the largest
 * message, which every transport must be able to carry, and lay out each
 * group (rt_group): its messages in posts[] (receives, then sends, each
 * in op order), its receives to unpack or combine after its WAIT in
 * post[].  The
 * loader has checked every rule the walk below relies on (ir_slice_check
 * in ccp__plan_new): pieces add up to their op's bytes, reductions have
 * their element type. */
static int prepare(ccp_plan *p)
{
	ccp_context *ctx = p->ctx;
	const ir_slice *s = &p->slice;
	/* kept from a try that failed later, as ccp_plan_free frees them */
	if (!p->stage_off)
		p->stage_off =
		        ccp__alloc(ctx, (size_t)s->nops * sizeof *p->stage_off);
	if (!p->post)
		p->post = ccp__alloc(ctx, (size_t)s->nops * sizeof *p->post);
	if (!p->grp)
		p->grp = ccp__alloc(ctx, (size_t)s->nops * sizeof *p->grp);
	if (!p->posts)
		p->posts = ccp__alloc(ctx, (size_t)s->nops * sizeof *p->posts);
	if (!p->wire)
		p->wire = ccp__alloc(ctx, (size_t)s->nops * sizeof *p->wire);
	if (!p->stage_off || !p->post || !p->grp || !p->posts || !p->wire)
		return ccp__error(ctx, CCP_ENOMEM, "out of memory");
	uint64_t phase_len = 0, max_len = 0;
	uint32_t nposts = 0, nfin = 0;
	struct rt_group *g = NULL;
	p->max_msg = 0;
	for (uint32_t i = 0; i < s->nops; i++) {
		const ir_op *o = &s->ops[i];
		p->stage_off[i] = UINT64_MAX;
		p->grp[i] = (struct rt_group){0};
		if (o->code == IR_OP_PHASE) {
			phase_len = 0;
			g = &p->grp[i];
			g->first = nposts;
			g->fin = nfin;
		}
		if (o->code == IR_OP_WAIT) {
			g->end = i;
			nposts += g->nrecv + g->nsend;
		}
		if (o->code == IR_OP_COPY || o->code == IR_OP_PHASE ||
		    o->code == IR_OP_WAIT)
			continue;
		if (is_recv(o))
			g->nrecv++;
		else
			g->nsend++;
		if (o->bytes > p->max_msg) {
			p->max_msg = o->bytes;
			p->max_msg_op = i;
		}
		if (o->bytes > SIZE_MAX)
			return ccp__error(
			        ctx, CCP_ERANGE,
			        "rank %d op %u: a message of %llu "
			        "bytes does not fit this host's size_t",
			        (int)s->rank, (unsigned)i,
			        (unsigned long long)o->bytes);
		if (o->code != IR_OP_RECV_REDUCE && o->niov > 1) {
			if (o->bytes > UINT64_MAX - phase_len)
				return ccp__error(
				        ctx, CCP_ENOMEM,
				        "rank %d: phase %u stages more "
				        "than 2^64 bytes",
				        (int)s->rank, (unsigned)o->phase);
			p->stage_off[i] = phase_len;
			phase_len += o->bytes;
			if (phase_len > max_len)
				max_len = phase_len;
			g->pack |= o->code == IR_OP_SEND;
		}
		if (o->code == IR_OP_RECV_REDUCE ||
		    (o->code == IR_OP_RECV && p->stage_off[i] != UINT64_MAX)) {
			p->post[nfin++] = i;
			g->nfin++;
		}
	}
	if (max_len > SIZE_MAX)
		return ccp__error(
		        ctx, CCP_ENOMEM,
		        "rank %d: no memory for %llu bytes of staging",
		        (int)s->rank, (unsigned long long)max_len);
	if (max_len) {
		p->staging = ccp__alloc(ctx, (size_t)max_len);
		if (!p->staging)
			return ccp__error(ctx, CCP_ENOMEM,
			                  "no memory for %llu bytes of staging",
			                  (unsigned long long)max_len);
		p->staging_len = max_len;
	}
	int rc = fold_copies(p);
	if (rc)
		return rc;
	p->prepared = true;
	return 0;
}

/* Whether transport t carries the plan's largest message (an MPI count
 * is an int): checked before the agreement, so that every rank refuses
 * a plan one of them cannot run, before any data moves. */
static int fits_transport(ccp_plan *p, const ccp_transport *t)
{
	uint64_t max = t->ops->max_message;
	if (max == 0 || p->max_msg <= max)
		return 0;
	return ccp__error(p->ctx, CCP_ERANGE,
	                  "rank %d op %u: a message of %llu bytes, the %s "
	                  "transport carries at most %llu in one message",
	                  (int)p->slice.rank, (unsigned)p->max_msg_op,
	                  (unsigned long long)p->max_msg, t->ops->name,
	                  (unsigned long long)max);
}

/* Where op i's message lives on the wire side: its one iov, or its
 * place in staging. */
static uint8_t *msg_buf(ccp_plan *p, uint32_t i)
{
	const ir_op *o = &p->slice.ops[i];
	if (p->stage_off[i] != UINT64_MAX)
		return p->staging + p->stage_off[i];
	if (!o->niov)
		return (uint8_t *)p->ready;
	return o->code == IR_OP_SEND ? read_at(p, o->iov)
	                             : at(p, &p->slice.iovs[o->iov]);
}

/* Every op's address for the bound buffers, once per binding, so that
 * an execution resolves no piece, fold or binding: a message's
 * (msg_buf), and a prologue COPY's destination, or NULL when the copy
 * does not run (folded away, or into a receive buffer left out of the
 * bind: the send buffer is the result, ccp_plan_bind). */
static void wire_up(ccp_plan *p)
{
	const struct rt_group *g = NULL;
	uint32_t nrecv = 0, nsend = 0;
	for (uint32_t i = 0; i < p->slice.nops; i++) {
		const ir_op *o = &p->slice.ops[i];
		const ir_iov *v = &p->slice.iovs[o->iov];
		p->wire[i] = NULL;
		if (o->code == IR_OP_PHASE)
			g = &p->grp[i], nrecv = nsend = 0;
		if (o->code == IR_OP_SEND || is_recv(o)) {
			p->wire[i] = msg_buf(p, i);
			bool recv = is_recv(o);
			uint32_t k = g->first +
			             (recv ? nrecv++ : g->nrecv + nsend++);
			p->posts[k] = (struct ccp_post){
			        .buf = p->wire[i],
			        .len = (size_t)o->bytes,
			        .peer = o->peer,
			        .phase = o->phase,
			        .kind = CCP_TAG_DATA,
			        .recv = recv};
		} else if (o->code == IR_OP_COPY &&
		           !(p->no_recv && v[1].buf == IR_BUF_RECV) &&
		           folded(p, o->iov + 1) == NO_FOLD)
			p->wire[i] = at(p, v + 1);
	}
	p->prep_t = NULL; /* posts[] changed: to be checked again */
	p->wired = true;
}

/* Hand posts[] to transport t for its checks, once per binding and
 * transport (see prep_t): 0 when t takes prepared groups and accepted
 * them, 1 when it has no prepared groups, or a negative code. */
static int prepare_posts(ccp_plan *p, ccp_transport *t)
{
	const struct ccp_transport_ops *T = t->ops;
	if (!T->prepare || !T->start)
		return 1;
	if (p->prep_t == t && p->prep_ops == T && p->prep_size == t->size)
		return 0;
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->slice.nops; i++)
		if (p->slice.ops[i].code == IR_OP_PHASE)
			n += p->grp[i].nrecv + p->grp[i].nsend;
	int rc = T->prepare(t, p->posts, n);
	if (rc < 0)
		return rc;
	p->prep_t = t;
	p->prep_ops = T;
	p->prep_size = t->size;
	return 0;
}

/* Copy op i's pieces into (pack) or out of (unpack) staging. */
static void stage(ccp_plan *p, uint32_t i, bool pack)
{
	const ir_op *o = &p->slice.ops[i];
	uint8_t *q = p->staging + p->stage_off[i];
	for (uint32_t k = 0; k < o->niov; k++) {
		const ir_iov *v = &p->slice.iovs[o->iov + k];
		if (pack)
			memcpy(q, read_at(p, o->iov + k), (size_t)v->len);
		else
			memcpy(at(p, v), q, (size_t)v->len);
		q += v->len;
	}
}

/* The execution in flight runs as a small state machine, so that one
 * piece of code serves ccp_plan_execute (every step blocking) and
 * ccp_plan_start/test/wait (steps that stop where they would block):
 *
 *   RUN_NEXT    at op run.op: a prologue COPY, the end of the slice, or a
 *               group's PHASE, whose receives (S1: and ready tokens) it
 *               posts;
 *   RUN_TOKENS  S1: waiting for the receivers' tokens; then [barrier] and
 *               the group's sends;
 *   RUN_DATA    waiting for the group's requests; then unpack and
 *               combine, and on to the next op;
 *   RUN_DONE    complete, until a test or wait reports it (a start may
 *               complete an execution that nothing holds up).
 *
 * Barriers and the agreement are collectives without a test: a step
 * that reaches one enters it, blocking until every rank has. */
enum { RUN_NEXT, RUN_TOKENS, RUN_DATA, RUN_DONE };

/* Note request number rc (or an error) of the group in flight. */
static int posted(struct rt_run *r, int rc)
{
	if (rc >= 0 && rc + 1 > r->nreq)
		r->nreq = rc + 1;
	return rc;
}

/* The group's receives, and S1's tokens: ops [run.op, run.end]. */
static int post_recvs(ccp_plan *p, ccp_transport *t)
{
	const struct ccp_transport_ops *T = t->ops;
	struct rt_run *r = &p->run;
	const ir_op *ops = p->slice.ops;
	uint32_t phase = ops[r->op].phase;
	bool s1 = r->flags & CCP_EXEC_S1;
	int rc;

	r->nreq = 0;
	r->tok_count = 0;
	if (r->fast) {
		const struct rt_group *g = &p->grp[r->op];
		if (!g->nrecv)
			return 0;
		if ((rc = T->start(t, p->posts + g->first, g->nrecv)) < 0)
			return rc;
		r->nreq = rc + (int)g->nrecv;
		return 0;
	}
	for (uint32_t i = r->op; i < r->end; i++) {
		const ir_op *o = &ops[i];
		if (!is_recv(o))
			continue;
		rc = posted(r, T->irecv(t, o->peer, phase, CCP_TAG_DATA,
		                        p->wire[i], (size_t)o->bytes));
		if (rc < 0)
			return rc;
		if (s1 &&
		    (rc = posted(r, T->isend(t, o->peer, phase, CCP_TAG_READY,
		                             p->ready, 0))) < 0)
			return rc;
	}
	if (!s1)
		return 0;
	for (uint32_t i = r->op; i < r->end; i++) { /* the receivers' tokens */
		const ir_op *o = &ops[i];
		if (o->code != IR_OP_SEND)
			continue;
		rc = posted(r, T->irecv(t, o->peer, phase, CCP_TAG_READY,
		                        p->ready + 1, 0));
		if (rc < 0)
			return rc;
		if (r->tok_count++ == 0)
			r->tok_first = rc;
	}
	return 0;
}

/* Pack the sends of the group at PHASE op g that go out of staging. */
static void pack_sends(ccp_plan *p, uint32_t g)
{
	if (!p->grp[g].pack)
		return;
	for (uint32_t i = g; i < p->grp[g].end; i++)
		if (p->slice.ops[i].code == IR_OP_SEND &&
		    p->stage_off[i] != UINT64_MAX)
			stage(p, i, true);
}

/* [The phase barrier, then] the group's sends. */
static int post_sends(ccp_plan *p, ccp_transport *t)
{
	const struct ccp_transport_ops *T = t->ops;
	struct rt_run *r = &p->run;
	const ir_op *ops = p->slice.ops;
	int rc;

	if (!(r->flags & CCP_EXEC_NO_BARRIER) && (rc = T->barrier(t)) < 0)
		return rc;
	pack_sends(p, r->op);
	if (r->fast) {
		const struct rt_group *g = &p->grp[r->op];
		if (!g->nsend)
			return 0;
		if ((rc = T->start(t, p->posts + g->first + g->nrecv,
		                   g->nsend)) < 0)
			return rc;
		r->nreq = rc + (int)g->nsend;
		return 0;
	}
	for (uint32_t i = r->op; i < r->end; i++) {
		const ir_op *o = &ops[i];
		if (o->code != IR_OP_SEND)
			continue;
		rc = posted(r, T->isend(t, o->peer, o->phase, CCP_TAG_DATA,
		                        p->wire[i], (size_t)o->bytes));
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* After the waitall of group g: unpack staged receives, combine
 * partials. */
static void finish_group(ccp_plan *p, const struct rt_group *g)
{
	const ir_op *ops = p->slice.ops;
	for (uint32_t k = g->fin; k < g->fin + g->nfin; k++) {
		uint32_t i = p->post[k];
		const ir_op *o = &ops[i];
		if (o->code == IR_OP_RECV_REDUCE) {
			/* the message landed in piece 0; pieces 1.. are
			 * the partials it combines into, in its order */
			const ir_iov *v = &p->slice.iovs[o->iov];
			const uint8_t *from = at(p, v);
			for (uint32_t k = 1; k < o->niov; k++) {
				ccp__combine(p->slice.dtype, p->slice.redop,
				             at(p, v + k),
				             read_at(p, o->iov + k), from,
				             v[k].len);
				from += v[k].len;
			}
		} else {
			stage(p, i, false);
		}
	}
}

/* Requests [first, first + count): blocking, wait for them; otherwise
 * test them (a transport without a test op waits).  1 when complete, 0
 * when not yet, or a negative code. */
static int settle(ccp_transport *t, int first, int count, bool block)
{
	if (count == 0)
		return 1;
	if (!block && t->ops->test)
		return t->ops->test(t, first, count);
	int rc = t->ops->wait(t, first, count);
	return rc < 0 ? rc : 1;
}

/* The barriers of phases [*next, upto) that this rank has no part in. */
static int idle_barriers(ccp_transport *t, uint32_t *next, uint32_t upto)
{
	for (; *next < upto; (*next)++) {
		int rc = t->ops->barrier(t);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Every rank's verdict on the plan, before any data moves. */
static int check(ccp_plan *p, ccp_transport *t, int status)
{
	int global = 0;
	int rc = t->ops->agree(t, p->plan_hash, status, &global);
	if (rc < 0)
		return rc;
	if (global == 0)
		return 0;
	if (status != 0 && status == global)
		return status; /* the context already says why */
	if (global == CCP_EMISMATCH)
		return ccp__error(p->ctx, CCP_EMISMATCH,
		                  "rank %d: ranks disagree on the plan (this "
		                  "rank's plan hash is %016llx)",
		                  (int)t->rank,
		                  (unsigned long long)p->plan_hash);
	return ccp__error(p->ctx, global,
	                  "rank %d: another rank refused the plan: %s",
	                  (int)t->rank, ccp_strerror(global));
}

/* Prologue COPY i, unless it does not run (see wire_up). */
static void prologue_copy(ccp_plan *p, uint32_t i)
{
	const ir_iov *v = &p->slice.iovs[p->slice.ops[i].iov];
	if (p->wire[i])
		memmove(p->wire[i], at(p, v), (size_t)v->len);
}

/* Move the execution in flight as far as it goes: to its end (1), to a
 * wait that would block when !block (0), or to an error (< 0).  The
 * slice is a prologue of COPYs, then groups PHASE ... WAIT in increasing
 * phases (ir_slice_check made sure at load). */
static int advance(ccp_plan *p, bool block)
{
	struct rt_run *r = &p->run;
	ccp_transport *t = r->t;
	const ir_slice *s = &p->slice;
	bool barrier = !(r->flags & CCP_EXEC_NO_BARRIER);
	int rc;

	for (;;) {
		switch (r->stage) {
		case RUN_NEXT: {
			if (r->op == s->nops) {
				if (barrier &&
				    (rc = idle_barriers(t, &r->barrier,
				                        p->nphases)) < 0)
					return rc;
				r->stage = RUN_DONE;
				return 1;
			}
			const ir_op *o = &s->ops[r->op];
			if (o->code == IR_OP_COPY) {
				prologue_copy(p, r->op++);
				continue;
			}
			r->end = p->grp[r->op].end;
			if (barrier) {
				if ((rc = idle_barriers(t, &r->barrier,
				                        o->phase)) < 0)
					return rc;
				r->barrier = o->phase + 1;
			}
			if ((rc = post_recvs(p, t)) < 0)
				return rc;
			r->stage = RUN_TOKENS;
			continue;
		}
		case RUN_TOKENS:
			rc = settle(t, r->tok_first, r->tok_count, block);
			if (rc <= 0)
				return rc;
			if ((rc = post_sends(p, t)) < 0)
				return rc;
			r->stage = RUN_DATA;
			continue;
		case RUN_DATA:
			if (!block && (rc = settle(t, 0, r->nreq, false)) <= 0)
				return rc;
			if ((rc = t->ops->waitall(t)) < 0)
				return rc;
			finish_group(p, &p->grp[r->op]);
			r->op = r->end + 1;
			r->stage = RUN_NEXT;
			continue;
		case RUN_DONE:
			return 1;
		}
	}
}

/* End the execution in flight with result rc (the transport's message,
 * if any, is on the context already). */
static int run_end(ccp_plan *p, int rc)
{
	if (p->run.t)
		p->run.t->busy = NULL;
	p->run.t = NULL;
	if (rc == 0)
		ccp__ok(p->ctx);
	return rc;
}

/* A step of the execution in flight; ends it when it fails, or when it
 * is complete and report says the caller tells the application.  1
 * done, 0 not yet, or a negative code. */
static int step(ccp_plan *p, bool block, bool report)
{
	int rc = advance(p, block);
	if (rc < 0)
		return run_end(p, rc);
	if (rc == 1 && report)
		run_end(p, 0);
	return rc;
}

/* Every check before an execution, the agreement included, then the
 * execution in flight set up (nothing posted yet). */
static int begin(ccp_plan *p, ccp_transport *t, unsigned flags, bool *fast)
{
	if (!p || !t)
		return CCP_EINVAL;
	ccp_context *ctx = p->ctx;
	const ir_slice *s = &p->slice;
	int rc;

	if (p->run.t || t->busy)
		return ccp__error(ctx, CCP_EBUSY,
		                  "rank %d: %s has an execution in flight; "
		                  "finish it with ccp_plan_test or "
		                  "ccp_plan_wait first",
		                  (int)s->rank,
		                  p->run.t ? "the plan" : "the transport");
	p->run.err = 0;
	/* every rank that loaded a slice sees the same sizes: no exchange
	 * is needed to refuse the wrong communicator on all of them */
	if (t->size != p->nranks)
		return ccp__error(ctx, CCP_EINVAL,
		                  "the plan is for %d ranks, the %s transport "
		                  "has %d",
		                  (int)p->nranks, t->ops->name, (int)t->size);
	int status = 0;
	if (t->rank != s->rank)
		status = ccp__error(ctx, CCP_EINVAL,
		                    "rank %d executes the slice of rank %d",
		                    (int)t->rank, (int)s->rank);
	else if (!p->bound)
		status = p->bind_status
		                 ? p->bind_status
		                 : ccp__error(ctx, CCP_EINVAL,
		                              "rank %d: no buffers bound",
		                              (int)s->rank);
	else if (!p->prepared)
		status = prepare(p);
	if (status == 0 && !p->wired)
		wire_up(p);
	if (status == 0)
		status = fits_transport(p, t);
	*fast = false;
	if (status == 0 && !(flags & CCP_EXEC_S1)) {
		status = prepare_posts(p, t);
		*fast = status == 0;
		if (status > 0)
			status = 0;
	}
	if (!(flags & CCP_EXEC_NO_CHECK))
		rc = check(p, t, status);
	else
		rc = status;
	if (rc)
		return rc;
	p->run = (struct rt_run){
	        .t = t, .flags = flags, .stage = RUN_NEXT, .fast = *fast};
	t->busy = p;
	return 0;
}

/* A blocking execution of prepared groups (run.fast): what advance()
 * does, as one straight loop, one start per group's receives and one
 * per its sends. */
static int run_groups(ccp_plan *p, ccp_transport *t, unsigned flags)
{
	const struct ccp_transport_ops *T = t->ops;
	const ir_slice *s = &p->slice;
	bool barrier = !(flags & CCP_EXEC_NO_BARRIER);
	uint32_t i = 0, next = 0;
	int rc;

	for (; i < s->nops && s->ops[i].code == IR_OP_COPY; i++)
		prologue_copy(p, i);
	while (i < s->nops) {
		const struct rt_group *g = &p->grp[i];
		const struct ccp_post *q = p->posts + g->first;
		if (barrier) {
			if ((rc = idle_barriers(t, &next, s->ops[i].phase)) < 0)
				return rc;
			next = s->ops[i].phase + 1;
		}
		if (g->nrecv && (rc = T->start(t, q, g->nrecv)) < 0)
			return rc;
		if (barrier && (rc = T->barrier(t)) < 0)
			return rc;
		if (g->pack)
			pack_sends(p, i);
		if (g->nsend && (rc = T->start(t, q + g->nrecv, g->nsend)) < 0)
			return rc;
		if ((rc = T->waitall(t)) < 0)
			return rc;
		if (g->nfin)
			finish_group(p, g);
		i = g->end + 1;
	}
	if (barrier && (rc = idle_barriers(t, &next, p->nphases)) < 0)
		return rc;
	return 0;
}

int ccp_plan_execute(ccp_plan *p, ccp_transport *t, unsigned flags)
{
	bool fast;
	int rc = begin(p, t, flags, &fast);
	if (rc)
		return rc;
	if (fast)
		return run_end(p, run_groups(p, t, flags));
	rc = step(p, true, true);
	return rc < 0 ? rc : 0;
}

int ccp_plan_start(ccp_plan *p, ccp_transport *t, unsigned flags)
{
	bool fast;
	int rc = begin(p, t, flags, &fast);
	if (rc)
		return rc;
	rc = step(p, false, false);
	return rc < 0 ? rc : 0;
}

/* The error of a test or wait with no execution in flight. */
static int not_started(ccp_plan *p)
{
	int err = p->run.err;
	if (err) { /* the transport was freed under the execution */
		p->run.err = 0;
		return ccp__error(p->ctx, err,
		                  "rank %d: the transport was freed while an "
		                  "execution was in flight",
		                  (int)p->slice.rank);
	}
	return ccp__error(p->ctx, CCP_EINVAL,
	                  "rank %d: no execution in flight (ccp_plan_start "
	                  "first; a test that reported done ended it)",
	                  (int)p->slice.rank);
}

int ccp_plan_test(ccp_plan *p, int *done)
{
	if (!p || !done)
		return CCP_EINVAL;
	*done = 0;
	if (!p->run.t)
		return not_started(p);
	int rc = step(p, false, true);
	if (rc < 0)
		return rc;
	*done = rc;
	return 0;
}

int ccp_plan_wait(ccp_plan *p)
{
	if (!p)
		return CCP_EINVAL;
	if (!p->run.t)
		return not_started(p);
	int rc = step(p, true, true);
	return rc < 0 ? rc : 0;
}

void ccp__run_abandon(ccp_transport *t)
{
	ccp_plan *p = t->busy;
	if (!p)
		return;
	p->run.t = NULL;
	p->run.err = CCP_EINVAL;
	t->busy = NULL;
}
