/*
 * shmem.c - the OpenSHMEM transport: the runtime's two-sided interface
 * (runtime/transport.h) over one-sided puts.  Design and measurements in
 * docs/shmem.md.
 *
 * A receiver's buffers are the application's, not symmetric, so a sender
 * cannot put into them.  Every PE therefore owns a symmetric landing zone
 * of `chunks` slots of `chunk` bytes, and messages move receiver-driven
 * (the S1 scheme, in the transport itself):
 *
 *   1. irecv: the receiver takes a free landing slot and writes a record
 *      {phase, length, piece offset, slot} into the sender's mailbox,
 *      a ring of `depth` records per (receiver, kind); the record's
 *      sequence word is set last, after a fence.
 *   2. The sender, once its isend is posted, sees the record, checks the
 *      phase and length, puts the piece into the slot, fences, and sets
 *      the receiver's completion word for (sender, kind) to the record's
 *      number + 1 (after setting its refusal word to the same number, if
 *      the record does not match the send: both sides fail CCP_EPEER).
 *   3. The receiver sees the completion word pass its record, copies the
 *      slot into its buffer, frees the slot and announces the next piece.
 *
 * Record numbers count per (pair, kind) and only grow, so nothing is ever
 * reset; a message longer than a slot goes in pieces, at most `depth` in
 * flight per (pair, kind).  Records of a pair and kind are announced in
 * the order the receives were posted and consumed in the order the sends
 * were posted, which is the matching rule of transport.h.  Zero-byte
 * messages (the S1 tokens) carry no data: the sender adds one to a counter
 * on the receiver at once, and the receive completes when the counter
 * reaches its number; such a send never waits for its receiver.
 * A receive buffer on the symmetric heap (CCP_SHMEM_DIRECT) skips the
 * landing zone: its record names the buffer and the sender puts the whole
 * message there.  Progress happens only inside wait and waitall (and a
 * first try at posting); both progress every request, not only the ones
 * waited for.
 */
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <shmem.h>

#include "ccplan_shmem.h"
#include "transport.h"

#define DEF_CHUNK         ((size_t)64 << 10)
#define DEF_CHUNKS        16u
#define DEF_DEPTH         4u
#define NKINDS            2
#define REC_WORDS         8  /* one mailbox record, in unsigned long long */
#define SPIN_BEFORE_YIELD 32 /* idle polls before sched_yield */

/* Words of a mailbox record. */
enum {
	R_SEQ,   /* record number + 1, written last; 0: never written */
	R_PHASE, /* the receive's phase */
	R_TOTAL, /* the receive's length */
	R_OFF,   /* this piece's offset in the message */
	R_LEN,   /* this piece's length (> 0) */
	R_LAND,  /* where to put it: offset from the landing zone's base */
	R_FLAGS, /* REC_DIRECT or 0 */
	R_PAD
};
#define REC_DIRECT 1ull /* R_LAND names the receive buffer itself */

/* Symmetric scalars of the collectives (agree, the config check). */
struct sym_small {
	long long src[8], dst[8];              /* reduction operands */
	long long wrk[8];                      /* pWrk: >= nreduce / 2 + 1 */
	long psync[2][SHMEM_REDUCE_SYNC_SIZE]; /* alternated per reduction */
};

/* What this PE knows of one (peer, kind): index peer * NKINDS + kind. */
struct pair {
	/* as receiver from the peer */
	uint64_t ann;     /* records announced to the peer */
	uint64_t fin;     /* records the peer has completed */
	uint64_t zposted; /* zero-byte receives posted */
	uint32_t nunann;  /* receives not fully announced yet */
	uint32_t rstamp;  /* scan in which an older receive is stuck */
	/* as sender to the peer */
	uint64_t in;     /* the peer's records consumed */
	uint32_t nsend;  /* rendezvous sends not complete yet */
	uint32_t sstamp; /* scan in which an older send is stuck */
};

/* One posted operation. */
struct req {
	uint8_t *buf;   /* the caller's buffer */
	size_t len;     /* its length */
	int32_t peer;   /* the other PE */
	uint32_t phase; /* tag: phase */
	uint8_t kind;   /* tag: enum ccp_tag_kind */
	uint8_t send;   /* isend (1) or irecv (0) */
	uint8_t done;   /* complete */
	uint8_t direct; /* receive: the sender puts into buf itself */
	uint64_t zseq;  /* zero-byte receive: counter value that completes */
	uint64_t first; /* receive: its first record */
	uint64_t nrec;  /* receive: records it needs */
	uint64_t ann;   /* receive: records announced */
	uint64_t fin;   /* receive: records completed */
	uint64_t sent;  /* send: bytes put so far */
};

struct shm {
	struct ccp_transport base;
	/* configuration, the same on every PE */
	size_t chunk;        /* landing slot bytes */
	uint32_t nchunks;    /* landing slots */
	uint32_t depth;      /* records in flight per (pair, kind) */
	uint32_t timeout_ms; /* 0: wait forever */
	unsigned flags;      /* CCP_SHMEM_DIRECT */
	/* symmetric memory */
	struct sym_small *sm;     /* collectives */
	unsigned long long *ring; /* [kind][peer][depth] records from peers */
	unsigned long long *done; /* [kind][peer] completion of my records */
	unsigned long long *zcnt; /* [kind][peer] zero-byte messages seen */
	unsigned long long *err;  /* [kind][peer] record + 1 the peer refused */
	uint8_t *landing;         /* nchunks * chunk bytes */
	size_t words; /* unsigned long longs at ring (done, zcnt, err too) */
	unsigned reductions; /* reductions run: picks the pSync */
	/* local state */
	struct pair *pairs; /* [peer * NKINDS + kind] */
	int32_t *slot_of;   /* [pair][depth]: slot of an in-flight record */
	int32_t *freeslot;  /* stack of free landing slots */
	uint32_t nfree;     /* entries of freeslot */
	struct req *reqs;   /* posted since the last waitall */
	int nreq, capreq;
	uint32_t gen; /* scan counter for the stamps */
	int broken;   /* 0, or the error that broke the transport */
};

/* ---- helpers --------------------------------------------------------- */

/* Break the transport with code and say why, after "shmem: rank R: ". */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
fail(struct shm *s, int code, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	s->broken = code;
	return ccp__error(s->base.ctx, code, "shmem: rank %d: %s",
	                  (int)s->base.rank, msg);
}

/* The error that broke the transport, said again. */
static int broken(struct shm *s)
{
	return ccp__error(s->base.ctx, s->broken,
	                  "shmem: rank %d: the transport failed earlier (%s)",
	                  (int)s->base.rank, ccp_strerror(s->broken));
}

static size_t pidx(const struct shm *s, int32_t peer, unsigned kind)
{
	(void)s;
	return (size_t)peer * NKINDS + kind;
}

/* Flag and counter words, by (kind, peer). */
static unsigned long long *done_word(struct shm *s, unsigned kind, int32_t p)
{
	return &s->done[(size_t)kind * (size_t)s->base.size + (size_t)p];
}

static unsigned long long *err_word(struct shm *s, unsigned kind, int32_t p)
{
	return &s->err[(size_t)kind * (size_t)s->base.size + (size_t)p];
}

static unsigned long long *zcnt_word(struct shm *s, unsigned kind, int32_t p)
{
	return &s->zcnt[(size_t)kind * (size_t)s->base.size + (size_t)p];
}

/* Record `rec` from (kind, peer) in a mailbox: this PE's copy, or the
 * same symmetric address for a put to another PE. */
static unsigned long long *ring_rec(struct shm *s, unsigned kind, int32_t p,
                                    uint64_t rec)
{
	size_t i =
	        ((size_t)kind * (size_t)s->base.size + (size_t)p) * s->depth +
	        (size_t)(rec % s->depth);
	return s->ring + i * REC_WORDS;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- receiving ------------------------------------------------------- */

/* Write the next record of receive q into its sender's mailbox. */
static void announce(struct shm *s, struct req *q)
{
	struct pair *pr = &s->pairs[pidx(s, q->peer, q->kind)];
	uint64_t rec = pr->ann;
	unsigned long long body[REC_WORDS] = {0};
	if (q->ann == 0)
		q->first = rec;
	if (q->direct) {
		body[R_OFF] = 0;
		body[R_LEN] = q->len;
		body[R_LAND] = (unsigned long long)((uintptr_t)q->buf -
		                                    (uintptr_t)s->landing);
		body[R_FLAGS] = REC_DIRECT;
	} else {
		uint64_t off = q->ann * (uint64_t)s->chunk;
		uint64_t left = q->len - off;
		int32_t slot = s->freeslot[--s->nfree];
		s->slot_of[pidx(s, q->peer, q->kind) * s->depth +
		           rec % s->depth] = slot;
		body[R_OFF] = off;
		body[R_LEN] = left < s->chunk ? left : s->chunk;
		body[R_LAND] = (unsigned long long)slot * s->chunk;
	}
	body[R_PHASE] = q->phase;
	body[R_TOTAL] = q->len;
	unsigned long long *dst = ring_rec(s, q->kind, s->base.rank, rec);
	shmem_putmem(dst + 1, body + 1, (REC_WORDS - 1) * sizeof *body,
	             q->peer);
	shmem_fence();
	shmem_ulonglong_atomic_set(dst + R_SEQ, rec + 1, q->peer);
	pr->ann++;
	q->ann++;
	if (q->ann == q->nrec)
		pr->nunann--;
}

/* Announce what receive q may now: a free slot and room in the pair's
 * ring for each piece.  Returns whether anything was announced. */
static bool announce_some(struct shm *s, struct req *q)
{
	struct pair *pr = &s->pairs[pidx(s, q->peer, q->kind)];
	bool moved = false;
	while (q->ann < q->nrec && pr->ann - pr->fin < s->depth &&
	       (q->direct || s->nfree > 0)) {
		announce(s, q);
		moved = true;
	}
	return moved;
}

/* Finish the records of q that its sender has completed. */
static int collect(struct shm *s, struct req *q, bool *moved)
{
	struct pair *pr = &s->pairs[pidx(s, q->peer, q->kind)];
	unsigned long long *w = done_word(s, q->kind, q->peer);
	while (q->fin < q->ann) {
		uint64_t rec = q->first + q->fin;
		if (!shmem_ulonglong_test(w, SHMEM_CMP_GE, rec + 1))
			break;
		/* the sender sets err before done when it refuses */
		unsigned long long e = *(volatile unsigned long long *)err_word(
		        s, q->kind, q->peer);
		if (e == rec + 1)
			return fail(s, CCP_EPEER,
			            "rank %d refused the receive of %zu bytes "
			            "in phase %u (its message differs)",
			            (int)q->peer, q->len, (unsigned)q->phase);
		if (!q->direct) {
			size_t k = pidx(s, q->peer, q->kind) * s->depth +
			           rec % s->depth;
			int32_t slot = s->slot_of[k];
			uint64_t off = q->fin * (uint64_t)s->chunk;
			uint64_t left = q->len - off;
			size_t n = left < s->chunk ? (size_t)left : s->chunk;
			memcpy(q->buf + off,
			       s->landing + (size_t)slot * s->chunk, n);
			s->freeslot[s->nfree++] = slot;
		}
		q->fin++;
		pr->fin++;
		*moved = true;
	}
	if (q->fin == q->nrec)
		q->done = 1;
	return 0;
}

/* ---- sending --------------------------------------------------------- */

/* Serve the records the receiver of send q has written, in order. */
static int serve(struct shm *s, struct req *q, bool *moved)
{
	struct pair *pr = &s->pairs[pidx(s, q->peer, q->kind)];
	while (!q->done) {
		uint64_t rec = pr->in;
		unsigned long long *r = ring_rec(s, q->kind, q->peer, rec);
		if (!shmem_ulonglong_test(r + R_SEQ, SHMEM_CMP_EQ, rec + 1))
			break;
		unsigned long long b[REC_WORDS];
		for (int i = 0; i < REC_WORDS; i++)
			b[i] = ((volatile unsigned long long *)r)[i];
		unsigned long long *flag = done_word(s, q->kind, s->base.rank);
		bool direct = b[R_FLAGS] & REC_DIRECT;
		size_t zone = (size_t)s->nchunks * s->chunk;
		if (b[R_PHASE] != q->phase || b[R_TOTAL] != q->len ||
		    b[R_OFF] != q->sent || b[R_LEN] == 0 ||
		    b[R_LEN] > q->len - q->sent ||
		    (!direct &&
		     (b[R_LAND] > zone || b[R_LEN] > zone - b[R_LAND]))) {
			shmem_ulonglong_atomic_set(
			        err_word(s, q->kind, s->base.rank), rec + 1,
			        q->peer);
			shmem_fence();
			shmem_ulonglong_atomic_set(flag, rec + 1, q->peer);
			shmem_quiet();
			return fail(
			        s, CCP_EPEER,
			        "rank %d posted a receive of %llu bytes in "
			        "phase %llu for the message of %zu bytes in "
			        "phase %u",
			        (int)q->peer, b[R_TOTAL], b[R_PHASE], q->len,
			        (unsigned)q->phase);
		}
		/* the receiver's address, as this PE names the same symmetric
		 * location: landing base + offset */
		void *dst =
		        (void *)((uintptr_t)s->landing + (uintptr_t)b[R_LAND]);
		shmem_putmem(dst, q->buf + q->sent, (size_t)b[R_LEN], q->peer);
		shmem_fence();
		shmem_ulonglong_atomic_set(flag, rec + 1, q->peer);
		pr->in++;
		q->sent += b[R_LEN];
		*moved = true;
		if (q->sent == q->len) {
			q->done = 1;
			pr->nsend--;
		}
	}
	return 0;
}

/* ---- progress -------------------------------------------------------- */

/* One pass over every posted request.  *moved: anything happened. */
static int progress(struct shm *s, bool *moved)
{
	uint32_t rgen = ++s->gen, sgen = ++s->gen;
	int rc;
	for (int i = 0; i < s->nreq; i++) {
		struct req *q = &s->reqs[i];
		if (q->done || q->send)
			continue;
		if (q->nrec == 0) { /* zero bytes: the counter */
			if (shmem_ulonglong_test(zcnt_word(s, q->kind, q->peer),
			                         SHMEM_CMP_GE, q->zseq)) {
				q->done = 1;
				*moved = true;
			}
			continue;
		}
		if ((rc = collect(s, q, moved)) < 0)
			return rc;
		if (q->ann < q->nrec) {
			struct pair *pr = &s->pairs[pidx(s, q->peer, q->kind)];
			if (pr->rstamp == rgen)
				continue; /* an older receive goes first */
			if (announce_some(s, q))
				*moved = true;
			if (q->ann < q->nrec)
				pr->rstamp = rgen;
		}
	}
	for (int i = 0; i < s->nreq; i++) {
		struct req *q = &s->reqs[i];
		if (q->done || !q->send)
			continue;
		struct pair *pr = &s->pairs[pidx(s, q->peer, q->kind)];
		if (pr->sstamp == sgen)
			continue; /* an older send goes first */
		if ((rc = serve(s, q, moved)) < 0)
			return rc;
		if (!q->done)
			pr->sstamp = sgen;
	}
	return 0;
}

/* Progress until requests [first, first + count) are complete. */
static int wait_range(struct shm *s, int first, int count)
{
	uint64_t deadline = 0;
	unsigned idle = 0;
	int next = first, end = first + count;
	for (;;) {
		while (next < end && s->reqs[next].done)
			next++;
		if (next == end)
			return 0;
		bool moved = false;
		int rc = progress(s, &moved);
		if (rc < 0)
			return rc;
		if (moved) {
			idle = 0;
			deadline = 0;
			continue;
		}
		if (++idle > SPIN_BEFORE_YIELD)
			sched_yield();
		if (s->timeout_ms && (idle & 63) == 0) {
			uint64_t t = now_ms();
			if (!deadline)
				deadline = t + s->timeout_ms;
			else if (t >= deadline) {
				const struct req *q = &s->reqs[next];
				return fail(
				        s, CCP_ETIMEDOUT,
				        "nothing arrived for %u ms; waiting "
				        "for the %s of %zu bytes %s rank %d "
				        "in phase %u",
				        (unsigned)s->timeout_ms,
				        q->send ? "send" : "receive", q->len,
				        q->send ? "to" : "from", (int)q->peer,
				        (unsigned)q->phase);
			}
		}
	}
}

/* ---- the operations table ------------------------------------------- */

/* Max-reduce n values of s->sm->src into s->sm->dst over every PE. */
static void reduce_max(struct shm *s, int n)
{
	long *psync = s->sm->psync[s->reductions++ & 1];
	shmem_longlong_max_to_all(s->sm->dst, s->sm->src, n, 0, 0,
	                          (int)s->base.size, s->sm->wrk, psync);
}

static int op_agree(ccp_transport *t, uint64_t hash, int status, int *global)
{
	struct shm *s = (struct shm *)t;
	if (s->broken)
		return broken(s);
	if (status > 0)
		status = CCP_EINVAL;
	s->sm->src[0] = (long long)hash;
	s->sm->src[1] = (long long)~hash;
	s->sm->src[2] = -(long long)status;
	reduce_max(s, 3);
	/* max(~h) == ~min(h): the hashes agree iff max == min */
	if ((unsigned long long)s->sm->dst[0] !=
	    ~(unsigned long long)s->sm->dst[1])
		*global = CCP_EMISMATCH;
	else
		*global = (int)-s->sm->dst[2];
	return 0;
}

static int op_barrier(ccp_transport *t)
{
	struct shm *s = (struct shm *)t;
	if (s->broken)
		return broken(s);
	shmem_barrier_all();
	return 0;
}

/* A new request slot (the table grows to the largest phase). */
static struct req *new_req(struct shm *s, int32_t peer, unsigned kind,
                           const void *buf, size_t len, int *id)
{
	if (peer < 0 || peer >= s->base.size || kind >= NKINDS ||
	    (!buf && len)) {
		fail(s, CCP_EINVAL, "bad request (peer %d, kind %u, %zu bytes)",
		     (int)peer, kind, len);
		return NULL;
	}
	if (s->nreq == s->capreq) {
		int cap = s->capreq ? 2 * s->capreq : 16;
		if (cap <= s->capreq ||
		    (size_t)cap > SIZE_MAX / sizeof *s->reqs) {
			fail(s, CCP_ENOMEM, "too many requests");
			return NULL;
		}
		struct req *r = ccp__realloc(s->base.ctx, s->reqs,
		                             (size_t)s->capreq * sizeof *r,
		                             (size_t)cap * sizeof *r);
		if (!r) {
			fail(s, CCP_ENOMEM, "out of memory");
			return NULL;
		}
		s->reqs = r;
		s->capreq = cap;
	}
	*id = s->nreq++;
	struct req *q = &s->reqs[*id];
	memset(q, 0, sizeof *q);
	q->buf = (uint8_t *)(uintptr_t)buf;
	q->len = len;
	q->peer = peer;
	q->kind = (uint8_t)kind;
	return q;
}

/* May the sender put straight into buf (on the symmetric heap)? */
static bool direct_ok(struct shm *s, const void *buf, size_t len, int32_t peer)
{
	const uint8_t *b = buf;
	return (s->flags & CCP_SHMEM_DIRECT) && len > 0 &&
	       shmem_addr_accessible(b, peer) &&
	       shmem_addr_accessible(b + len - 1, peer);
}

static int op_irecv(ccp_transport *t, int32_t peer, uint32_t phase,
                    enum ccp_tag_kind kind, void *buf, size_t len)
{
	struct shm *s = (struct shm *)t;
	int id;
	if (s->broken)
		return broken(s);
	struct req *q = new_req(s, peer, (unsigned)kind, buf, len, &id);
	if (!q)
		return s->broken;
	struct pair *pr = &s->pairs[pidx(s, peer, (unsigned)kind)];
	q->phase = phase;
	if (len == 0) {
		q->zseq = ++pr->zposted;
		return id;
	}
	q->direct = direct_ok(s, buf, len, peer);
	q->nrec = q->direct ? 1 : (len - 1) / s->chunk + 1;
	/* announce now unless an older receive of the pair waits */
	if (pr->nunann++ == 0)
		announce_some(s, q);
	return id;
}

static int op_isend(ccp_transport *t, int32_t peer, uint32_t phase,
                    enum ccp_tag_kind kind, const void *buf, size_t len)
{
	struct shm *s = (struct shm *)t;
	int id;
	if (s->broken)
		return broken(s);
	struct req *q = new_req(s, peer, (unsigned)kind, buf, len, &id);
	if (!q)
		return s->broken;
	q->phase = phase;
	q->send = 1;
	if (len == 0) {
		shmem_ulonglong_atomic_inc(
		        zcnt_word(s, (unsigned)kind, s->base.rank), peer);
		q->done = 1;
		return id;
	}
	struct pair *pr = &s->pairs[pidx(s, peer, (unsigned)kind)];
	if (pr->nsend++ == 0) { /* the oldest send of the pair: serve now */
		bool moved = false;
		int rc = serve(s, q, &moved);
		if (rc < 0)
			return rc;
	}
	return id;
}

/* 0 when the transport works and [first, first + count) were posted;
 * what names the caller in the message. */
static int usable(struct shm *s, const char *what, int first, int count)
{
	if (s->broken)
		return broken(s);
	if (first < 0 || count < 0 || first > s->nreq ||
	    count > s->nreq - first)
		return fail(s, CCP_EINVAL,
		            "%s(%d, %d) outside the %d posted requests", what,
		            first, count, s->nreq);
	return 0;
}

static int op_wait(ccp_transport *t, int first, int count)
{
	struct shm *s = (struct shm *)t;
	int rc = usable(s, "wait", first, count);
	return rc ? rc : wait_range(s, first, count);
}

/* One round of progress, then whether [first, first + count) are done.
 * A stalled peer is found by the next wait's timeout. */
static int op_test(ccp_transport *t, int first, int count)
{
	struct shm *s = (struct shm *)t;
	int rc = usable(s, "test", first, count);
	if (rc)
		return rc;
	bool moved = false;
	rc = progress(s, &moved);
	if (rc < 0)
		return rc;
	for (int k = first; k < first + count; k++)
		if (!s->reqs[k].done)
			return 0;
	return 1;
}

static int op_waitall(ccp_transport *t)
{
	struct shm *s = (struct shm *)t;
	if (s->broken)
		return broken(s);
	int rc = wait_range(s, 0, s->nreq);
	if (rc < 0)
		return rc;
	s->nreq = 0;
	return 0;
}

/* Free the symmetric memory (collective) and the local state. */
static void release(struct shm *s)
{
	ccp_context *ctx = s->base.ctx;
	size_t np = (size_t)s->base.size * NKINDS;
	if (s->landing)
		shmem_free(s->landing);
	if (s->ring)
		shmem_free(s->ring);
	if (s->sm)
		shmem_free(s->sm);
	ccp__free(ctx, s->pairs, np * sizeof *s->pairs);
	ccp__free(ctx, s->slot_of, np * s->depth * sizeof *s->slot_of);
	ccp__free(ctx, s->freeslot, (size_t)s->nchunks * sizeof *s->freeslot);
	ccp__free(ctx, s->reqs, (size_t)s->capreq * sizeof *s->reqs);
	ccp__free(ctx, s, sizeof *s);
}

static void op_destroy(ccp_transport *t)
{
	release((struct shm *)t);
}

static const struct ccp_transport_ops shmem_ops = {
        .name = "shmem",
        .agree = op_agree,
        .barrier = op_barrier,
        .irecv = op_irecv,
        .isend = op_isend,
        .wait = op_wait,
        .test = op_test,
        .waitall = op_waitall,
        .destroy = op_destroy,
};

/* ---- making one ------------------------------------------------------ */

int ccp_shmem_transport_config(ccp_context *ctx,
                               const struct ccp_shmem_config *cfg,
                               ccp_transport **t)
{
	if (!ctx || !t)
		return CCP_EINVAL;
	*t = NULL;
	struct ccp_shmem_config c = {0};
	if (cfg)
		c = *cfg;
	if (!c.chunk_bytes)
		c.chunk_bytes = DEF_CHUNK;
	if (!c.chunks)
		c.chunks = DEF_CHUNKS;
	if (!c.depth)
		c.depth = DEF_DEPTH;
	/* the landing zone and the ring must be addressable as ints and
	 * size_t; a piece of a message is at most a chunk */
	if (c.chunks > INT32_MAX || c.depth > 65536 ||
	    c.chunk_bytes > (size_t)LLONG_MAX ||
	    c.chunk_bytes > SIZE_MAX / c.chunks)
		return ccp__error(ctx, CCP_EINVAL,
		                  "shmem: landing zone of %u x %zu bytes, "
		                  "depth %u: out of range",
		                  (unsigned)c.chunks, c.chunk_bytes,
		                  (unsigned)c.depth);

	struct shm *s = ccp__calloc(ctx, 1, sizeof *s);
	if (!s)
		return ccp__error(ctx, CCP_ENOMEM, "shmem: out of memory");
	s->base.ops = &shmem_ops;
	s->base.ctx = ctx;
	s->base.rank = shmem_my_pe();
	s->base.size = shmem_n_pes();
	s->chunk = c.chunk_bytes;
	s->nchunks = c.chunks;
	s->depth = c.depth;
	s->timeout_ms = c.timeout_ms;
	s->flags = c.flags;
	size_t npes = (size_t)s->base.size, np = npes * NKINDS;

	/* symmetric: collective, in the same order on every PE.  First the
	 * collectives' scalars (the same size everywhere), then a check that
	 * every PE asks for the same sizes, and only then the rest. */
	s->sm = shmem_malloc(sizeof *s->sm);
	if (!s->sm) {
		release(s);
		return ccp__error(ctx, CCP_ENOMEM,
		                  "shmem: symmetric heap exhausted");
	}
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < SHMEM_REDUCE_SYNC_SIZE; k++)
			s->sm->psync[i][k] = SHMEM_SYNC_VALUE;
	shmem_barrier_all(); /* pSync set everywhere before its first use */
	long long v[3] = {(long long)s->chunk, (long long)s->nchunks,
	                  (long long)s->depth};
	for (int i = 0; i < 3; i++) {
		s->sm->src[2 * i] = v[i];
		s->sm->src[2 * i + 1] = -v[i];
	}
	reduce_max(s, 6);
	for (int i = 0; i < 3; i++)
		if (s->sm->dst[2 * i] != -s->sm->dst[2 * i + 1]) {
			release(s);
			return ccp__error(ctx, CCP_EINVAL,
			                  "shmem: the PEs passed different "
			                  "landing-zone sizes or depths");
		}

	s->words = np * s->depth * REC_WORDS + 3 * np;
	s->ring = shmem_calloc(s->words, sizeof *s->ring);
	s->landing = shmem_malloc((size_t)s->nchunks * s->chunk);
	/* local */
	s->pairs = ccp__calloc(ctx, np, sizeof *s->pairs);
	s->slot_of = ccp__calloc(ctx, np * s->depth, sizeof *s->slot_of);
	s->freeslot = ccp__calloc(ctx, s->nchunks, sizeof *s->freeslot);
	bool ok =
	        s->ring && s->landing && s->pairs && s->slot_of && s->freeslot;
	if (s->ring) {
		s->done = s->ring + np * s->depth * REC_WORDS;
		s->zcnt = s->done + np;
		s->err = s->zcnt + np;
	}
	if (s->freeslot)
		for (uint32_t i = 0; i < s->nchunks; i++)
			s->freeslot[i] = (int32_t)(s->nchunks - 1 - i);
	s->nfree = s->nchunks;
	/* every PE must have got its memory */
	s->sm->src[0] = ok ? 0 : 1;
	reduce_max(s, 1);
	if (s->sm->dst[0]) {
		release(s);
		return ccp__error(ctx, CCP_ENOMEM,
		                  ok ? "shmem: another PE ran out of memory"
		                     : "shmem: out of memory (symmetric heap "
		                       "or local)");
	}
	*t = &s->base;
	ccp__ok(ctx);
	return 0;
}

int ccp_shmem_transport(ccp_context *ctx, ccp_transport **t)
{
	return ccp_shmem_transport_config(ctx, NULL, t);
}
