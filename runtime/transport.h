/*
 * transport.h - what a backend (backends/) gives the runtime: one const
 * table of functions, and the struct every transport handle starts with.
 *
 * The runtime's engine (runtime/engine.c) turns a rank's operation list
 * into calls of this table; a backend only moves contiguous bytes between
 * ranks and never sees the plan's buffers or operations.
 *
 * Rules every backend keeps:
 *  - Requests.  irecv and isend post a non-blocking operation and return
 *    its request number (0, 1, 2, ... in the order posted since the last
 *    waitall) or a negative CCP_E* code.  wait(first, count) completes
 *    requests [first, first + count); waitall completes every posted
 *    request and numbering restarts at 0.  A receive matches the sends of
 *    the same peer and tag in the order they were posted (as MPI's
 *    non-overtaking rule); a message of the right peer and tag but a
 *    different length is an error (CCP_EPEER), not a truncation.
 *  - Tags.  (phase, kind): kind is CCP_TAG_DATA or CCP_TAG_READY.  Tags
 *    never collide with the application's traffic (MPI: a duplicated
 *    communicator; sockets: the transport's own connections).
 *  - Memory.  Request tables and buffers grow to the largest phase seen
 *    and are reused: a plan executed again allocates nothing.
 *  - Errors.  A failing call returns a negative CCP_E* code and sets the
 *    context message (ccp__error).  After a failure the transport is
 *    broken: every later call returns an error at once, and destroy
 *    releases whatever is still posted.  A backend that can detect a dead
 *    or stalled peer (sockets) returns CCP_EPEER or CCP_ETIMEDOUT within
 *    its timeout; it never blocks forever.
 *  - Nothing is printed, nothing exits.
 */
#ifndef CCP_TRANSPORT_H
#define CCP_TRANSPORT_H

#include <stdarg.h>
#include <stdint.h>

#include "ccplan.h"

enum ccp_tag_kind {
	CCP_TAG_DATA = 0, /* a message of the plan */
	CCP_TAG_READY = 1 /* S1: zero-byte "my receive is posted" token */
};

/* One message of a prepared group (the ops prepare and start below): a
 * receive (recv = 1) or a send of len bytes at buf, with peer, phase and
 * kind as irecv and isend take them. */
struct ccp_post {
	void *buf;
	size_t len;
	int32_t peer;
	uint32_t phase;
	uint8_t kind; /* enum ccp_tag_kind */
	uint8_t recv; /* 1: a receive, 0: a send */
};

struct ccp_transport_ops {
	const char *name; /* "mpi", "shmem", "sockets" */

	/* Collective over every rank of the transport, before any data of
	 * an execution moves.  Each rank passes the plan hash and its local
	 * status (0 or a CCP_E* code).  On return *global is the same on
	 * every rank: 0 when every rank passed 0 and the same hash,
	 * CCP_EMISMATCH when the hashes differ, otherwise the most negative
	 * status passed.  The return value is 0, or the transport's own
	 * failure.  A backend whose frames carry the plan hash (sockets)
	 * takes it from here. */
	int (*agree)(ccp_transport *t, uint64_t hash, int status, int *global);
	/* Collective: returns once every rank has entered it. */
	int (*barrier)(ccp_transport *t);
	int (*irecv)(ccp_transport *t, int32_t peer, uint32_t phase,
	             enum ccp_tag_kind kind, void *buf, size_t len);
	int (*isend)(ccp_transport *t, int32_t peer, uint32_t phase,
	             enum ccp_tag_kind kind, const void *buf, size_t len);
	int (*wait)(ccp_transport *t, int first, int count);
	/* Progress without blocking: 1 when requests [first, first + count)
	 * are complete, 0 when not yet, or a negative CCP_E* code (and the
	 * transport is broken, as after a failed wait).  It never waits for
	 * a peer and never times out itself (a later wait does); waitall
	 * still ends the phase.  NULL: the backend cannot progress without
	 * blocking, and the engine's non-blocking step calls wait instead. */
	int (*test)(ccp_transport *t, int first, int count);
	int (*waitall)(ccp_transport *t);
	/* Prepared groups, optional (both NULL: the engine posts one
	 * message at a time with irecv and isend).  prepare checks posts
	 * [0, n) once, as irecv and isend would check each (peer, kind,
	 * length), without posting anything: 0, or a negative CCP_E* code
	 * with the context's message.  It neither communicates nor breaks
	 * the transport (the engine calls it before the agreement, so that
	 * a refusal reaches every rank).  start posts n entries of an array
	 * that prepare accepted on this transport (the engine's; unchanged
	 * since), in order, as irecv and isend would, without checking each
	 * again; it returns the first one's request number (the rest follow
	 * it) or a negative code.  Completion is unchanged: wait, test and
	 * waitall check every receive's length and every request's error. */
	int (*prepare)(ccp_transport *t, const struct ccp_post *q, uint32_t n);
	int (*start)(ccp_transport *t, const struct ccp_post *q, uint32_t n);
	/* Release everything, the handle included. */
	void (*destroy)(ccp_transport *t);
	/* The longest message irecv and isend take, in bytes; 0: no limit
	 * but size_t.  The engine refuses a plan with a longer message on
	 * every rank before any data moves. */
	uint64_t max_message;
};

/* Every backend's handle starts with this. */
struct ccp_transport {
	const struct ccp_transport_ops *ops;
	ccp_context *ctx; /* allocator and error message */
	int32_t rank, size;
	/* the plan whose execution is in flight on this transport
	 * (ccp_plan_start), NULL if none: the runtime's, never a backend's
	 * (handles are zeroed when made) */
	ccp_plan *busy;
};

/* ---- what the runtime gives backends (runtime/context.c) ----------- */

/* The context's allocator.  ccp__alloc(ctx, n) is NULL on failure;
 * ccp__realloc keeps the block on failure; ccp__free(ctx, p, n) takes the
 * size the block was allocated with. */
void *ccp__alloc(ccp_context *ctx, size_t n);
void *ccp__calloc(ccp_context *ctx, size_t n, size_t size);
void *ccp__realloc(ccp_context *ctx, void *p, size_t oldn, size_t newn);
void ccp__free(ccp_context *ctx, void *p, size_t n);

/* Set the context's message (printf format) and return code, so that
 * `return ccp__error(ctx, CCP_EPEER, "rank %d closed", r);` reads well. */
int ccp__error(ccp_context *ctx, int code, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;
/* Clear the context's message (a call that succeeded). */
void ccp__ok(ccp_context *ctx);

#endif
