/*
 * ccplan.h - the ccplan runtime: execute a compiled communication plan
 * with the application's buffers, over a transport (MPI, OpenSHMEM or TCP
 * sockets; see ccplan_mpi.h, ccplan_shmem.h, ccplan_sockets.h).
 *
 * A typical rank:
 *
 *     ccp_context *ctx;  ccp_transport *t;  ccp_plan *plan;
 *     ccp_init(&ctx, NULL, NULL);
 *     ccp_mpi_transport(ctx, MPI_COMM_WORLD, &t);        (or another)
 *     ccp_plan_load_file(ctx, "bcast.ccp", ccp_transport_rank(t), &plan);
 *     ccp_plan_bind(plan, sendbuf, sendlen, recvbuf, recvlen, NULL, 0);
 *     for (...) ccp_plan_execute(plan, t, CCP_EXEC_DEFAULT);
 *     (or, to overlap computation: ccp_plan_start, then ccp_plan_test
 *     between pieces of work, then ccp_plan_wait)
 *     ccp_plan_free(plan);  ccp_transport_free(t);  ccp_fini(ctx);
 *
 * Every function returns 0 or a negative CCP_E* code (ccplan_errors.h);
 * ccp_strerror() gives the code's text and ccp_errmsg() the context's
 * last detailed message.  The library never exits and never prints.
 *
 * A context, and everything made from it, is used by one thread at a time.
 */
#ifndef CCPLAN_H
#define CCPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "ccplan_errors.h"
#include "ccplan_export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccp_context ccp_context;     /* allocator, last error */
typedef struct ccp_plan ccp_plan;           /* one rank's slice of a plan */
typedef struct ccp_transport ccp_transport; /* how bytes reach peers */

/* The allocator: one function, as in Lua.  nsize == 0 frees ptr (and
 * returns NULL); otherwise it behaves like realloc(ptr, nsize), osize
 * being the block's old size (0 for a new block).  NULL means malloc. */
typedef void *(*ccp_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

/* ---- context -------------------------------------------------------- */

CCP_EXTERN int ccp_init(ccp_context **ctx, ccp_alloc_fn alloc, void *ud);
CCP_EXTERN void ccp_fini(ccp_context *ctx);
/* The last error's message on this context, in one line naming what
 * failed ("rank 3 section: checksum mismatch", "recv buffer is 512 bytes,
 * the plan needs 1024"); "" when the last call succeeded. */
CCP_EXTERN const char *ccp_errmsg(const ccp_context *ctx);

/* ---- plans ---------------------------------------------------------- */

/* Load one rank's slice of a plan: from a .ccp file (only the header,
 * the rank's index entry and its section are read), from a complete
 * image in memory, or from the plan cache; an emitted C plan (ccplan
 * compile --emit c) loads with ccp_plan_load_emitted (ccplan_emitted.h).
 * Every check of the plan format runs first. */
CCP_EXTERN int ccp_plan_load_file(ccp_context *ctx, const char *path,
                                  int32_t rank, ccp_plan **plan);
CCP_EXTERN int ccp_plan_load_memory(ccp_context *ctx, const void *image,
                                    size_t len, int32_t rank, ccp_plan **plan);

/* Load rank's slice of the plan stored in the plan cache at cache_path
 * (docs/cache.md) under key: the full 32 hex digits, or a prefix of them
 * that only one stored key starts with.  The cache is opened read-only:
 * nothing is created, migrated, moved or written.  CCP_ENOTFOUND when
 * there is no cache file or no such key, CCP_EINVAL for a key that is not
 * hex or a prefix of several keys, or for a cache another user owns or
 * others can write (unless CCPLAN_CACHE_TRUST names it), CCP_ECHECKSUM
 * for a damaged entry or one made for another input (never loaded), then
 * what ccp_plan_load_memory returns: its load-time checks apply to a
 * cache entry as to any image.  In the library ccp_runtime_cache (CMake
 * ccplan::runtime_cache, pkg-config ccplan-cache), the only part of the
 * runtime that needs SQLite. */
CCP_EXTERN int ccp_plan_load_cache(ccp_context *ctx, const char *cache_path,
                                   const char *key, int32_t rank,
                                   ccp_plan **plan);
CCP_EXTERN void ccp_plan_free(ccp_plan *plan);

/* What a loaded plan is and needs on this rank. */
typedef struct ccp_plan_info {
	int32_t rank;           /* the rank this slice is for */
	int32_t nranks;         /* ranks the plan was compiled for */
	uint32_t nphases;       /* phases of the whole plan */
	uint64_t plan_hash;     /* ranks compare it to agree on the plan */
	uint64_t send_bytes;    /* send buffer to bind, at least */
	uint64_t recv_bytes;    /* receive buffer to bind, at least */
	uint64_t scratch_bytes; /* scratch the plan needs on this rank */
	const char *algorithm;  /* generator name */
	const char *collective; /* "broadcast", "scatter", ... */
} ccp_plan_info;
CCP_EXTERN int ccp_plan_get_info(const ccp_plan *plan, ccp_plan_info *info);

/* Bind the buffers the plan's operations address.  A buffer the plan
 * does not use on this rank may be NULL with length 0.  So may the
 * receive buffer of a rank whose plan only fills it by prologue copies
 * of the same bytes of its send buffer (a broadcast root): the copies
 * are skipped and the rank's result is its send buffer, as with
 * MPI_Bcast; any other NULL receive buffer is refused (CCP_EBUFFER).
 * scratch may be NULL: the runtime then allocates scratch_bytes itself,
 * once.  The plan only reads send.  A buffer shorter than the plan
 * needs is refused (CCP_EBUFFER), and so are buffers that overlap in the
 * bytes the plan uses (the first send_bytes, recv_bytes and
 * scratch_bytes of each; CCP_EINVAL, naming the two): one buffer bound
 * as both send and receive buffer is refused.  A refusal is
 * remembered, so that the next ccp_plan_execute fails on every rank, not
 * only here. */
CCP_EXTERN int ccp_plan_bind(ccp_plan *plan, const void *send, size_t send_len,
                             void *recv, size_t recv_len, void *scratch,
                             size_t scratch_len);

/* One piece of an application's buffer (ccp_plan_bind_pieces). */
typedef struct ccp_piece {
	void *ptr;  /* borrowed; may be NULL when len is 0 */
	size_t len; /* bytes */
} ccp_piece;

/* Bind the send and receive buffers as lists of pieces, so that an
 * application need not pack: the send pieces, laid end to end in list
 * order, are the send buffer the plan addresses (its send_bytes), and the
 * receive pieces the receive buffer.  For the inspector's exchanges
 * (ccplan_inspector.h) one piece per peer, in the order of its per-peer
 * offsets, is such a list.  The pointers are borrowed until the next
 * bind or ccp_plan_free; the lists themselves are read only during the
 * call.  Scratch is the runtime's own.  Refused, with nothing bound and
 * the refusal remembered as ccp_plan_bind's (the next execution fails on
 * every rank):
 *  - CCP_EBUFFER: a list's lengths do not add up to exactly the buffer
 *    the plan addresses; a piece of non-zero length is NULL; one run of
 *    bytes the plan moves in one go (one piece of one message) crosses
 *    a boundary between two pieces (the message names the offsets);
 *  - CCP_EINVAL: a receive piece shares a byte with any other piece
 *    (send pieces may share bytes with each other: the plan only reads
 *    them); a list of n > 0 pieces given as NULL;
 *  - CCP_EBUSY: an execution is in flight (nothing changes).
 * ccp_plan_bind afterwards binds contiguous buffers again. */
CCP_EXTERN int ccp_plan_bind_pieces(ccp_plan *plan, const ccp_piece *send,
                                    size_t nsend, const ccp_piece *recv,
                                    size_t nrecv);

/* Execution schemes (004 §3), one of: */
#define CCP_EXEC_S2 0u /* post every receive of the phase, then send */
#define CCP_EXEC_S1 1u /* receivers signal ready; senders then send
                          straight into the posted receive */
/* and optionally: */
#define CCP_EXEC_NO_BARRIER 2u /* no barrier between phases: the per-rank
                                  operation order alone keeps the schedule */
#define CCP_EXEC_NO_CHECK 4u   /* skip the agreement exchange before the
                                  first operation (only after an execution
                                  of the same plan on the same transport
                                  has passed it) */
/* The default: S2 without phase barriers, measured fastest (a barrier
 * per phase costs a collective; each rank's operation order alone keeps
 * the data right, docs/runtime.md "Defaults").  Pass CCP_EXEC_S2 (0) to
 * keep the phases apart in time, as the verifier's contention-free
 * phases assume; start/test overlap only without barriers. */
#define CCP_EXEC_DEFAULT (CCP_EXEC_S2 | CCP_EXEC_NO_BARRIER)

/* Run the plan once.  Before any data moves, every rank takes part in
 * one small exchange that compares the plan hash, the transport's size
 * against the plan's ranks and each rank's bind status: if any rank
 * disagrees, every rank returns the same error (CCP_EMISMATCH,
 * CCP_EBUFFER, CCP_EINVAL) and no byte has been sent.  A fault during
 * the run (a peer gone, a timeout, a damaged frame) returns an error,
 * never success.  After the first execution nothing is allocated.
 * ccp_plan_execute is ccp_plan_start followed by ccp_plan_wait. */
CCP_EXTERN int ccp_plan_execute(ccp_plan *plan, ccp_transport *t,
                                unsigned flags);

/* Non-blocking, persistent execution: start the plan, then make it
 * progress with ccp_plan_test (never waits for a peer) until *done, or
 * finish it with ccp_plan_wait, computing in between.  The buffers
 * belong to the plan from start until the execution ends (test sets
 * *done, wait returns, or either returns an error): the application
 * must not write the send buffer nor touch the receive buffer.
 *  - start runs the agreement of ccp_plan_execute (a small blocking
 *    collective, skipped under CCP_EXEC_NO_CHECK) and posts what it can
 *    of the first phase; each test posts the next phases as the earlier
 *    ones complete.  Phase barriers (without CCP_EXEC_NO_BARRIER) are
 *    collectives that a test enters and waits in: for overlap, use
 *    CCP_EXEC_NO_BARRIER.  Every transport of ccplan tests without
 *    blocking (MPI: MPI_Testall; sockets: one poll of zero timeout;
 *    OpenSHMEM: one round of progress); MPI itself may move a large
 *    message only inside MPI calls, i.e. inside test and wait.
 *  - Errors: a failure in flight ends the execution and is returned by
 *    the test or wait that meets it (on every rank, within the
 *    transport's timeout); a test never times out itself, a wait does.
 *  - Misuse: start or execute while an execution of the plan, or of
 *    any plan on the same transport, is in flight is CCP_EBUSY and
 *    changes nothing; so is a bind.  test or wait with no execution in
 *    flight (never started, or already ended) is CCP_EINVAL.
 *    ccp_plan_free of a plan in flight first waits for the execution;
 *    ccp_transport_free under one ends it, and its next test or wait
 *    returns CCP_EINVAL.
 * One execution per transport is in flight at a time. */
CCP_EXTERN int ccp_plan_start(ccp_plan *plan, ccp_transport *t, unsigned flags);
CCP_EXTERN int ccp_plan_test(ccp_plan *plan, int *done);
CCP_EXTERN int ccp_plan_wait(ccp_plan *plan);

/* ---- transports ----------------------------------------------------- */

/* Made by a backend (ccplan_mpi.h, ccplan_shmem.h, ccplan_sockets.h). */
CCP_EXTERN int32_t ccp_transport_rank(const ccp_transport *t);
CCP_EXTERN int32_t ccp_transport_size(const ccp_transport *t);
CCP_EXTERN const char *ccp_transport_name(const ccp_transport *t);
CCP_EXTERN void ccp_transport_free(ccp_transport *t);

#ifdef __cplusplus
}
#endif

#endif
