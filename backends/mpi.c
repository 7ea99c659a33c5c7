/*
 * mpi.c - the MPI transport: moves the runtime's messages with
 * non-blocking point-to-point calls on a private duplicate of the
 * application's communicator (docs/mpi.md).
 *
 * The engine (runtime/engine.c) posts a phase's receives and sends as
 * requests numbered from 0 and completes them with wait and waitall; this
 * file maps each request to one MPI_Irecv or MPI_Isend of MPI_BYTEs and
 * checks, after completion, that every message had exactly the posted
 * length.  Only standard MPI-3 calls are used, so Open MPI and MPICH
 * both work.
 *
 * Tags.  A message of phase p and kind k (data, or the S1 ready token)
 * carries tag (p mod P) * 2 + k, where P = (MPI_TAG_UB + 1) / 2: at
 * least 16384 phases before the tags wrap (the standard guarantees
 * MPI_TAG_UB >= 32767; Open MPI and MPICH give 2^31 - 1 or so).  The
 * wrap is safe: MPI matches the messages of one sender to one receiver
 * with the same tag and communicator in the order they were sent and the
 * receives in the order they were posted (the non-overtaking rule), and
 * both ranks of a pair post their operations in phase order, because the
 * engine finishes a phase (waitall) before it posts anything of the next.
 * So the i-th message from A to B with tag t meets B's i-th receive from
 * A with tag t, whichever phases share t.  The tag's only real duty is to
 * keep the two kinds apart (in S1 a rank posts its data receive before
 * the token receive, the peer sends the token before the data); the
 * phase in it only makes mistakes easier to see.
 *
 * Communicator.  The transport duplicates the caller's communicator, so
 * that no message of a plan can match a receive of the application (or
 * the other way round), and sets MPI_ERRORS_RETURN on the duplicate:
 * every failed call becomes a CCP_E* code with MPI_Error_string's text.
 *
 * Memory.  The request tables grow (doubling) to the largest phase seen
 * and are reused: nothing is allocated once the largest phase has run.
 * Messages longer than INT_MAX bytes are refused (CCP_ERANGE): an MPI-3
 * count is an int.  The table states that limit (max_message), so the
 * engine refuses such a plan on every rank before any data moves.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ccplan_mpi.h"
#include "transport.h"

/* What one posted request is, for checks and messages. */
struct mpi_req {
	int32_t peer;   /* the other rank */
	uint32_t phase; /* the plan's phase */
	int len;        /* bytes posted */
	uint8_t kind;   /* enum ccp_tag_kind */
	uint8_t recv;   /* 1: a receive, 0: a send */
	uint8_t done;   /* completed and checked by an earlier wait */
};

struct mpi_transport {
	struct ccp_transport base; /* must be first */
	MPI_Comm comm;             /* our duplicate of the caller's comm */
	int64_t ntags;             /* phases before tags wrap: (ub + 1) / 2 */
	MPI_Request *req;          /* posted requests, numbered from 0 */
	MPI_Status *status;        /* their statuses, filled by wait */
	struct mpi_req *info;      /* what each request is */
	int nreq;                  /* requests posted since the last waitall */
	int cap;                   /* entries of the three tables */
	int broken;                /* 0, or the error that broke it */
	char why[200];             /* that error's message */
};

static const char *kind_name(unsigned kind)
{
	return kind == CCP_TAG_READY ? "ready token" : "data";
}

/* Cancel what is still posted, so that no MPI operation touches the
 * caller's buffers after an error or after destroy.  A cancelled receive
 * completes at once (or, if already matched, when its data has come, which
 * its sender is sending); a send cannot be cancelled reliably (Open MPI
 * ignores it), so its request is only freed and MPI finishes it alone. */
static void release_all(struct mpi_transport *m)
{
	for (int i = 0; i < m->nreq; i++) {
		if (m->req[i] == MPI_REQUEST_NULL)
			continue;
		if (m->info[i].recv) {
			MPI_Cancel(&m->req[i]);
			MPI_Wait(&m->req[i], MPI_STATUS_IGNORE);
		} else {
			MPI_Request_free(&m->req[i]);
		}
		m->req[i] = MPI_REQUEST_NULL;
	}
	m->nreq = 0;
}

/* Record a failure: the transport is broken from now on (transport.h),
 * pending requests are released, and the context gets the message. */
static int fail(struct mpi_transport *m, int code, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;
static int fail(struct mpi_transport *m, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->why, sizeof m->why, fmt, ap);
	va_end(ap);
	m->broken = code;
	release_all(m);
	return ccp__error(m->base.ctx, code, "%s", m->why);
}

/* The CCP_E* code for an MPI error code. */
static int ccp_code(int err)
{
	int cls = MPI_ERR_OTHER;
	if (MPI_Error_class(err, &cls) != MPI_SUCCESS)
		cls = MPI_ERR_OTHER;
	switch (cls) {
	case MPI_ERR_TRUNCATE: /* a message longer than the receive */
		return CCP_EPEER;
	case MPI_ERR_NO_MEM:
		return CCP_ENOMEM;
	case MPI_ERR_ARG:
	case MPI_ERR_BUFFER:
	case MPI_ERR_COUNT:
	case MPI_ERR_TYPE:
	case MPI_ERR_TAG:
	case MPI_ERR_COMM:
	case MPI_ERR_RANK:
	case MPI_ERR_REQUEST:
	case MPI_ERR_OP:
		return CCP_EINVAL;
	}
	return CCP_EIO;
}

/* MPI_Error_string's text for err, in buf. */
static const char *mpi_text(int err, char *buf)
{
	int len = 0;
	if (MPI_Error_string(err, buf, &len) != MPI_SUCCESS)
		snprintf(buf, MPI_MAX_ERROR_STRING, "MPI error %d", err);
	else
		buf[len < MPI_MAX_ERROR_STRING ? len
		                               : MPI_MAX_ERROR_STRING - 1] =
		        '\0';
	return buf;
}

/* A failed MPI call: its code and text. */
static int fail_mpi(struct mpi_transport *m, int err, const char *what)
{
	char text[MPI_MAX_ERROR_STRING];
	return fail(m, ccp_code(err), "mpi transport, rank %d: %s: %s",
	            (int)m->base.rank, what, mpi_text(err, text));
}

/* Every call on a broken transport fails at once with the first error. */
static int broken(struct mpi_transport *m)
{
	return ccp__error(m->base.ctx, m->broken,
	                  "mpi transport unusable after an earlier error: %s",
	                  m->why);
}

/* The tag of (phase, kind); see the top of the file. */
static int tag_of(const struct mpi_transport *m, uint32_t phase,
                  enum ccp_tag_kind kind)
{
	uint64_t q =
	        phase < (uint64_t)m->ntags ? phase : phase % (uint64_t)m->ntags;
	return (int)((int64_t)q * 2 + (int)kind);
}

/* Room for n more requests.  The tables are replaced, never shrunk. */
static int grow(struct mpi_transport *m, uint32_t n)
{
	ccp_context *ctx = m->base.ctx;
	if (n <= (uint32_t)(m->cap - m->nreq))
		return 0;
	int cap = m->cap ? m->cap : 16;
	while ((uint32_t)(cap - m->nreq) < n) {
		if (cap > INT_MAX / 2)
			return fail(m, CCP_ERANGE,
			            "mpi transport, rank %d: more than %d "
			            "requests in one phase",
			            (int)m->base.rank, cap);
		cap *= 2;
	}
	MPI_Request *req = ccp__calloc(ctx, (size_t)cap, sizeof *req);
	MPI_Status *st = ccp__calloc(ctx, (size_t)cap, sizeof *st);
	struct mpi_req *info = ccp__calloc(ctx, (size_t)cap, sizeof *info);
	if (!req || !st || !info) {
		ccp__free(ctx, req, (size_t)cap * sizeof *req);
		ccp__free(ctx, st, (size_t)cap * sizeof *st);
		ccp__free(ctx, info, (size_t)cap * sizeof *info);
		return fail(m, CCP_ENOMEM,
		            "mpi transport, rank %d: no memory for %d requests",
		            (int)m->base.rank, cap);
	}
	if (m->nreq) {
		memcpy(req, m->req, (size_t)m->nreq * sizeof *req);
		memcpy(st, m->status, (size_t)m->nreq * sizeof *st);
		memcpy(info, m->info, (size_t)m->nreq * sizeof *info);
	}
	ccp__free(ctx, m->req, (size_t)m->cap * sizeof *m->req);
	ccp__free(ctx, m->status, (size_t)m->cap * sizeof *m->status);
	ccp__free(ctx, m->info, (size_t)m->cap * sizeof *m->info);
	m->req = req;
	m->status = st;
	m->info = info;
	m->cap = cap;
	return 0;
}

/* Why post() cannot post (a broken transport, a peer, kind or length
 * out of range), or 0 once the tables have room for one more request. */
static int refuse(struct mpi_transport *m, int recv, int32_t peer,
                  uint32_t phase, enum ccp_tag_kind kind, size_t len)
{
	const char *dir = recv ? "receive from" : "send to";
	if (m->broken)
		return broken(m);
	if (peer < 0 || peer >= m->base.size)
		return fail(m, CCP_EINVAL,
		            "mpi transport, rank %d: %s rank %d, but the "
		            "communicator has %d ranks",
		            (int)m->base.rank, dir, (int)peer,
		            (int)m->base.size);
	if (kind != CCP_TAG_DATA && kind != CCP_TAG_READY)
		return fail(m, CCP_EINVAL,
		            "mpi transport, rank %d: unknown message kind %d",
		            (int)m->base.rank, (int)kind);
	if (len > INT_MAX)
		return fail(m, CCP_ERANGE,
		            "mpi transport, rank %d: %s rank %d of %zu bytes "
		            "(phase %u): MPI counts stop at %d",
		            (int)m->base.rank, dir, (int)peer, len,
		            (unsigned)phase, INT_MAX);
	return grow(m, 1);
}

/* What prepare() checks of each post, and post() of every call. */
static bool post_ok(const struct mpi_transport *m, int32_t peer,
                    enum ccp_tag_kind kind, size_t len)
{
	return (uint32_t)peer < (uint32_t)m->base.size &&
	       (unsigned)kind <= CCP_TAG_READY && len <= INT_MAX;
}

/* Post one receive (recv = 1) or send; returns the request number.
 * Every check of refuse() runs on every call, in one test: the fixed
 * cost of an execution is a few of these (docs/runtime.md). */
static int post(struct mpi_transport *m, int recv, int32_t peer, uint32_t phase,
                enum ccp_tag_kind kind, void *buf, size_t len)
{
	if (m->broken || !post_ok(m, peer, kind, len) || m->nreq >= m->cap) {
		int rc = refuse(m, recv, peer, phase, kind, len);
		if (rc)
			return rc;
	}
	int n = m->nreq, tag = tag_of(m, phase, kind), err;
	if (recv)
		err = MPI_Irecv(buf, (int)len, MPI_BYTE, peer, tag, m->comm,
		                &m->req[n]);
	else
		err = MPI_Isend(buf, (int)len, MPI_BYTE, peer, tag, m->comm,
		                &m->req[n]);
	if (err != MPI_SUCCESS) {
		char what[96];
		snprintf(what, sizeof what, "%s %d (phase %u, %s, %zu bytes)",
		         recv ? "MPI_Irecv from" : "MPI_Isend to", (int)peer,
		         (unsigned)phase, kind_name(kind), len);
		return fail_mpi(m, err, what);
	}
	m->info[n] = (struct mpi_req){.peer = peer,
	                              .phase = phase,
	                              .len = (int)len,
	                              .kind = (uint8_t)kind,
	                              .recv = (uint8_t)recv,
	                              .done = 0};
	m->nreq = n + 1;
	return n;
}

/* Prepared groups (transport.h): the checks of post(), once per array,
 * as refuse() words them, but without breaking the transport. */
static int mpi_prepare(ccp_transport *t, const struct ccp_post *q, uint32_t n)
{
	struct mpi_transport *m = (struct mpi_transport *)t;
	for (uint32_t k = 0; k < n; k++) {
		if (post_ok(m, q[k].peer, q[k].kind, q[k].len) && q[k].recv < 2)
			continue;
		return ccp__error(t->ctx,
		                  q[k].len > INT_MAX ? CCP_ERANGE : CCP_EINVAL,
		                  "mpi transport, rank %d: cannot %s rank %d "
		                  "(phase %u, kind %u, %zu bytes): the "
		                  "communicator has %d ranks, MPI counts stop "
		                  "at %d",
		                  (int)t->rank,
		                  q[k].recv ? "receive from" : "send to",
		                  (int)q[k].peer, (unsigned)q[k].phase,
		                  (unsigned)q[k].kind, q[k].len, (int)t->size,
		                  INT_MAX);
	}
	return 0;
}

/* Post n prepared messages: one MPI_Irecv or MPI_Isend each, with no
 * check but the transport's state and the tables' room. */
static int mpi_start(ccp_transport *t, const struct ccp_post *q, uint32_t n)
{
	struct mpi_transport *m = (struct mpi_transport *)t;
	if (m->broken)
		return broken(m);
	int rc = grow(m, n);
	if (rc)
		return rc;
	int first = m->nreq;
	for (uint32_t k = 0; k < n; k++) {
		int i = first + (int)k, err;
		int tag = tag_of(m, q[k].phase, (enum ccp_tag_kind)q[k].kind);
		if (q[k].recv)
			err = MPI_Irecv(q[k].buf, (int)q[k].len, MPI_BYTE,
			                q[k].peer, tag, m->comm, &m->req[i]);
		else
			err = MPI_Isend(q[k].buf, (int)q[k].len, MPI_BYTE,
			                q[k].peer, tag, m->comm, &m->req[i]);
		if (err != MPI_SUCCESS) {
			char what[96];
			m->nreq = i; /* what is posted, for release_all */
			snprintf(what, sizeof what,
			         "%s %d (phase %u, %s, %zu bytes)",
			         q[k].recv ? "MPI_Irecv from" : "MPI_Isend to",
			         (int)q[k].peer, (unsigned)q[k].phase,
			         kind_name(q[k].kind), q[k].len);
			return fail_mpi(m, err, what);
		}
		m->info[i] = (struct mpi_req){.peer = q[k].peer,
		                              .phase = q[k].phase,
		                              .len = (int)q[k].len,
		                              .kind = q[k].kind,
		                              .recv = q[k].recv,
		                              .done = 0};
	}
	m->nreq = first + (int)n;
	return first;
}

static int mpi_irecv(ccp_transport *t, int32_t peer, uint32_t phase,
                     enum ccp_tag_kind kind, void *buf, size_t len)
{
	return post((struct mpi_transport *)t, 1, peer, phase, kind, buf, len);
}

static int mpi_isend(ccp_transport *t, int32_t peer, uint32_t phase,
                     enum ccp_tag_kind kind, const void *buf, size_t len)
{
	/* MPI_Isend takes a const buffer; the cast only shares post() */
	return post((struct mpi_transport *)t, 0, peer, phase, kind,
	            (void *)(uintptr_t)buf, len);
}

/* A request that failed inside MPI_Waitall: say which and why. */
static int fail_request(struct mpi_transport *m, int i, int err)
{
	const struct mpi_req *q = &m->info[i];
	char text[MPI_MAX_ERROR_STRING];
	int cls = MPI_ERR_OTHER;
	MPI_Error_class(err, &cls);
	if (q->recv && cls == MPI_ERR_TRUNCATE)
		return fail(
		        m, CCP_EPEER,
		        "mpi transport, rank %d: rank %d sent more than the "
		        "%d bytes expected (phase %u, %s): %s",
		        (int)m->base.rank, (int)q->peer, q->len,
		        (unsigned)q->phase, kind_name(q->kind),
		        mpi_text(err, text));
	return fail(m, ccp_code(err),
	            "mpi transport, rank %d: %s rank %d (phase %u, %s, %d "
	            "bytes) failed: %s",
	            (int)m->base.rank, q->recv ? "receive from" : "send to",
	            (int)q->peer, (unsigned)q->phase, kind_name(q->kind),
	            q->len, mpi_text(err, text));
}

/* Requests [first, first + count) posted? */
static int check_range(struct mpi_transport *m, int first, int count)
{
	if (first < 0 || count < 0 || first > m->nreq ||
	    count > m->nreq - first)
		return fail(m, CCP_EINVAL,
		            "mpi transport, rank %d: wait for requests [%d, "
		            "%d), but %d are posted",
		            (int)m->base.rank, first, first + count, m->nreq);
	return 0;
}

/* After MPI_Waitall or a successful MPI_Testall of [first, first +
 * count), returning err: a failed request, or a receive completed by a
 * shorter message (compare lengths), is an error. */
static int completed(struct mpi_transport *m, int first, int count, int err,
                     const char *call)
{
	if (err == MPI_ERR_IN_STATUS) {
		for (int i = first; i < first + count; i++) {
			int e = m->status[i].MPI_ERROR;
			if (e != MPI_SUCCESS && e != MPI_ERR_PENDING)
				return fail_request(m, i, e);
		}
	}
	if (err != MPI_SUCCESS)
		return fail_mpi(m, err, call);
	for (int i = first; i < first + count; i++) {
		struct mpi_req *q = &m->info[i];
		if (q->done)
			continue;
		q->done = 1;
		if (!q->recv)
			continue;
		int got = 0;
		err = MPI_Get_count(&m->status[i], MPI_BYTE, &got);
		if (err != MPI_SUCCESS)
			return fail_mpi(m, err, "MPI_Get_count");
		if (got != q->len)
			return fail(m, CCP_EPEER,
			            "mpi transport, rank %d: rank %d sent %d "
			            "bytes, the receive expects %d (phase %u, "
			            "%s)",
			            (int)m->base.rank, (int)q->peer, got,
			            q->len, (unsigned)q->phase,
			            kind_name(q->kind));
	}
	return 0;
}

static int mpi_wait(ccp_transport *t, int first, int count)
{
	struct mpi_transport *m = (struct mpi_transport *)t;
	if (m->broken)
		return broken(m);
	int rc = check_range(m, first, count);
	if (rc || count == 0)
		return rc;
	int err = MPI_Waitall(count, m->req + first, m->status + first);
	return completed(m, first, count, err, "MPI_Waitall");
}

/* MPI_Testall: MPI progresses what it can and returns.  A request it
 * completed is MPI_REQUEST_NULL afterwards, and its status is checked
 * here, once (the later waitall skips the requests marked done). */
static int mpi_test(ccp_transport *t, int first, int count)
{
	struct mpi_transport *m = (struct mpi_transport *)t;
	if (m->broken)
		return broken(m);
	int rc = check_range(m, first, count);
	if (rc || count == 0)
		return rc < 0 ? rc : 1;
	int flag = 0;
	int err = MPI_Testall(count, m->req + first, &flag, m->status + first);
	if (err == MPI_SUCCESS && !flag)
		return 0;
	rc = completed(m, first, count, err, "MPI_Testall");
	return rc < 0 ? rc : 1;
}

static int mpi_waitall(ccp_transport *t)
{
	struct mpi_transport *m = (struct mpi_transport *)t;
	int rc = mpi_wait(t, 0, m->nreq);
	if (rc == 0)
		m->nreq = 0;
	return rc;
}

/* One MPI_Allreduce (MAX) of {hash, ~hash, -status}: max(hash) and
 * ~max(~hash) = min(hash) differ exactly when the hashes differ, and the
 * largest -status is the most negative status (a positive status, which
 * no caller should pass, counts as CCP_EINVAL). */
static int mpi_agree(ccp_transport *t, uint64_t hash, int status, int *global)
{
	struct mpi_transport *m = (struct mpi_transport *)t;
	if (m->broken)
		return broken(m);
	int64_t s = status < 0   ? -(int64_t)status
	            : status > 0 ? -CCP_EINVAL
	                         : 0;
	uint64_t in[3] = {hash, ~hash, (uint64_t)s}, out[3];
	int err = MPI_Allreduce(in, out, 3, MPI_UINT64_T, MPI_MAX, m->comm);
	if (err != MPI_SUCCESS)
		return fail_mpi(m, err, "MPI_Allreduce (agreement)");
	if (out[0] != ~out[1])
		*global = CCP_EMISMATCH;
	else if (out[2] > (uint64_t)INT_MAX)
		*global = CCP_EINTERNAL;
	else
		*global = -(int)out[2];
	return 0;
}

static int mpi_barrier(ccp_transport *t)
{
	struct mpi_transport *m = (struct mpi_transport *)t;
	if (m->broken)
		return broken(m);
	int err = MPI_Barrier(m->comm);
	return err == MPI_SUCCESS ? 0 : fail_mpi(m, err, "MPI_Barrier");
}

static void mpi_destroy(ccp_transport *t)
{
	struct mpi_transport *m = (struct mpi_transport *)t;
	ccp_context *ctx = t->ctx;
	int done = 1;
	/* after MPI_Finalize no MPI call is allowed: only memory is freed */
	if (MPI_Finalized(&done) == MPI_SUCCESS && !done) {
		release_all(m);
		if (m->comm != MPI_COMM_NULL)
			MPI_Comm_free(&m->comm);
	}
	ccp__free(ctx, m->req, (size_t)m->cap * sizeof *m->req);
	ccp__free(ctx, m->status, (size_t)m->cap * sizeof *m->status);
	ccp__free(ctx, m->info, (size_t)m->cap * sizeof *m->info);
	ccp__free(ctx, m, sizeof *m);
}

static const struct ccp_transport_ops mpi_ops = {
        .name = "mpi",
        .agree = mpi_agree,
        .barrier = mpi_barrier,
        .irecv = mpi_irecv,
        .isend = mpi_isend,
        .wait = mpi_wait,
        .test = mpi_test,
        .waitall = mpi_waitall,
        .prepare = mpi_prepare,
        .start = mpi_start,
        .destroy = mpi_destroy,
        .max_message = INT_MAX, /* an MPI-3 count is an int */
};

/* The largest tag: the communicator's MPI_TAG_UB, else MPI_COMM_WORLD's,
 * else the standard's minimum. */
static int tag_ub(MPI_Comm comm)
{
	int *ub = NULL, flag = 0;
	if (MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS &&
	    flag && ub)
		return *ub;
	if (MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag) ==
	            MPI_SUCCESS &&
	    flag && ub)
		return *ub;
	return 32767;
}

int ccp_mpi_transport(ccp_context *ctx, MPI_Comm comm, ccp_transport **t)
{
	if (!t)
		return ccp__error(ctx, CCP_EINVAL, "mpi transport: no handle");
	*t = NULL;
	if (!ctx)
		return CCP_EINVAL;
	int flag = 0;
	if (MPI_Initialized(&flag) != MPI_SUCCESS || !flag)
		return ccp__error(ctx, CCP_EINVAL,
		                  "mpi transport: MPI is not initialised "
		                  "(call MPI_Init first)");
	if (MPI_Finalized(&flag) != MPI_SUCCESS || flag)
		return ccp__error(ctx, CCP_EINVAL,
		                  "mpi transport: MPI is already finalised");
	if (comm == MPI_COMM_NULL)
		return ccp__error(ctx, CCP_EINVAL,
		                  "mpi transport: the communicator is "
		                  "MPI_COMM_NULL");
	/* these two run under the caller's error handler */
	if (MPI_Comm_test_inter(comm, &flag) != MPI_SUCCESS || flag)
		return ccp__error(ctx, CCP_EINVAL,
		                  "mpi transport: an intercommunicator (or an "
		                  "invalid one); pass an intracommunicator");
	struct mpi_transport *m = ccp__calloc(ctx, 1, sizeof *m);
	if (!m)
		return ccp__error(ctx, CCP_ENOMEM, "out of memory");
	char text[MPI_MAX_ERROR_STRING];
	int err = MPI_Comm_dup(comm, &m->comm);
	if (err != MPI_SUCCESS) {
		ccp__free(ctx, m, sizeof *m);
		return ccp__error(ctx, ccp_code(err),
		                  "mpi transport: MPI_Comm_dup: %s",
		                  mpi_text(err, text));
	}
	int rank = 0, size = 0;
	err = MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN);
	if (err == MPI_SUCCESS)
		err = MPI_Comm_rank(m->comm, &rank);
	if (err == MPI_SUCCESS)
		err = MPI_Comm_size(m->comm, &size);
	if (err != MPI_SUCCESS) {
		MPI_Comm_free(&m->comm);
		ccp__free(ctx, m, sizeof *m);
		return ccp__error(ctx, ccp_code(err),
		                  "mpi transport: setting up the communicator: "
		                  "%s",
		                  mpi_text(err, text));
	}
	MPI_Comm_set_name(m->comm, "ccplan");
	int ub = tag_ub(m->comm);
	m->ntags = ((int64_t)(ub < 1 ? 1 : ub) + 1) / 2;
	m->base.ops = &mpi_ops;
	m->base.ctx = ctx;
	m->base.rank = rank;
	m->base.size = size;
	*t = &m->base;
	ccp__ok(ctx);
	return 0;
}
