/*
 * ccplan_inspector.h - the inspector of an irregular-problem runtime, in
 * the manner of PARTI/CHAOS: every rank says which ranks it sends how
 * many bytes to, once; the inspector turns the whole pattern into a
 * verified plan, and the executor (ccp_plan_bind, ccp_plan_execute of
 * ccplan.h) then runs that plan as often as the application likes.
 *
 *     ccp_inspect_options o = {.seed = 1, .cache_path = "plans.db"};
 *     ccp_inspect_result r;
 *     ccp_inspect(ctx, t, dst, bytes, count, &o, &plan, &r);
 *     ccp_plan_bind(plan, send, r.send_bytes, recv, r.recv_bytes, NULL, 0);
 *     for (...) { fill send; ccp_plan_execute(plan, t, 0); use recv; }
 *     ccp_inspect_result_fini(&r);  ccp_plan_free(plan);
 *
 * Buffer layout (that of every irregular plan, ir/lower.c): the send
 * buffer holds this rank's messages packed back to back in ascending
 * order of destination, whatever order they were given in; the receive
 * buffer holds the messages for this rank packed in ascending order of
 * source.  Zero-byte messages take no room and move nothing.  This is
 * MPI_Alltoallv's layout with displacements that are the prefix sums of
 * the counts.  ccp_inspect_result lists the offsets, and
 * ccp_inspect_offset looks one up.
 *
 * With options.reorder the inspector also suggests a new order of the
 * ranks (placement) and returns the plan for it: the application splits
 * its communicator by res.new_rank, hands part k's data to new rank k,
 * and executes over a transport in the new order (docs/inspector.md,
 * "Reordering").
 *
 * The inspector is its own library, ccp_inspector (CMake
 * ccplan::inspector, pkg-config ccplan-inspector; it pulls in the
 * scheduler, SQLite and libyaml); an application that only executes
 * plans links ccp_runtime alone.  The machine to schedule for is a
 * ccp_machine (ccplan_machine.h).  docs/inspector.md describes every
 * step, the cache key and the cost.
 */
#ifndef CCPLAN_INSPECTOR_H
#define CCPLAN_INSPECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "ccplan.h"
#include "ccplan_machine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ports of the default machine: one per link, i.e. every message of a
 * rank may go in the same phase */
#define CCP_INSPECT_ALL_PORTS CCP_MACHINE_ALL_PORTS

/* How to inspect.  All-zero (or a NULL pointer) gives the defaults.
 * Every rank must pass the same options except cache_path; ranks that
 * pass different ones all get CCP_EMISMATCH. */
typedef struct ccp_inspect_options {
	const char *algorithm;      /* irregular scheduler (docs/coloring.md,
	                               docs/irregular.md): "link_aware" (NULL),
	                               "color", "sized", "rs_nl", "rs_n", "lp",
	                               "ac" */
	uint64_t seed;              /* the scheduler's random choices: the same
	                               seed gives the same plan, byte for byte */
	const char *cache_path;     /* plan cache file (cache/cache.h); NULL or
	                               "": no cache.  Ranks may pass different
	                               paths (node-local files) */
	const ccp_machine *machine; /* machine to schedule for
	                               (ccplan_machine.h; borrowed for the
	                               call), of as many ranks as the
	                               transport; NULL: a switch of all
	                               ranks */
	int ports;   /* default machine: sends (and, separately, receives)
	                per rank and phase.  0 or CCP_INSPECT_ALL_PORTS: no
	                limit, every message of a rank may go in one phase
	                (measured fastest, docs/inspector.md "Defaults");
	                1: one (004's model); k: k */
	int reorder; /* 1: choose an order of the ranks in which the pattern
	                needs fewer phases on the machine, and return the
	                plan for that order (docs/inspector.md,
	                "Reordering"): new rank k does the work of the rank
	                k that passed row k, so the process given new rank k
	                takes over that rank's data, and the plan runs over
	                a transport in the new order, e.g. one over
	                MPI_Comm_split(comm, 0, res.new_rank, &c).  0: the
	                present order */
} ccp_inspect_options;

/* What the inspector did, and this rank's buffer layout.  Filled by
 * ccp_inspect (zeroed first); the arrays are the context's, released by
 * ccp_inspect_result_fini. */
typedef struct ccp_inspect_result {
	int cache_hit;       /* 1: every rank read the plan from the cache and
	                        nothing was scheduled */
	int cache_stored;    /* 1: rank 0 stored the new plan (rank 0 only) */
	int cache_status;    /* 0, or the CCP_E* code of a cache failure on
	                        this rank (the plan is good either way) */
	char cache_why[160]; /* that failure in words, "" if none */
	uint8_t key[16];     /* the pattern's key in the cache */
	char algorithm[32];  /* scheduler that made the plan */
	uint32_t nphases;    /* phases of the plan */
	uint32_t lb_phases;  /* the verifier's lower bound on phases */
	int64_t messages;    /* non-empty messages of the whole pattern */
	uint64_t plan_bytes; /* size of the whole encoded plan */
	/* this rank's layout (with reorder: that of new rank new_rank, in
	 * new ranks); peers ascending, zero-byte messages left out */
	size_t nsend;        /* messages this rank sends */
	int32_t *send_peer;  /* their destinations */
	uint64_t *send_off;  /* offset of each in the send buffer */
	uint64_t *send_len;  /* bytes of each */
	size_t nrecv;        /* messages this rank receives */
	int32_t *recv_peer;  /* their sources */
	uint64_t *recv_off;  /* offset of each in the receive buffer */
	uint64_t *recv_len;  /* bytes of each */
	uint64_t send_bytes; /* send buffer to bind (sum of send_len) */
	uint64_t recv_bytes; /* receive buffer to bind (sum of recv_len) */
	/* seconds on this rank, by step */
	double t_gather;   /* checks and the allgather of the matrix */
	double t_lookup;   /* the cache look-up and its agreement */
	double t_schedule; /* schedule, verify, lower, encode (0 on a hit) */
	double t_load;     /* loading the rank's slice, agreeing on it */
	double t_store;    /* rank 0: storing the plan in the cache */
	double t_total;    /* the whole call */
	double t_place;    /* reorder: finding the new order (sch_place,
	                      on every rank, hits included) */
	/* reorder only (new_ranks is NULL without it) */
	int32_t new_rank;   /* this rank's rank in the new order: the row
	                       (rank of the call) whose work it takes over.
	                       Without reorder, the rank itself */
	int32_t *new_ranks; /* [nranks]: new_ranks[r] = the new rank of rank
	                       r of t (the key r passes to MPI_Comm_split);
	                       the same on every rank */
	size_t nranks;      /* entries of new_ranks: t's ranks */
	uint32_t lb_phases_before; /* the bound on phases in the present
	                       order (lb_phases is the new order's) */
	ccp_context *ctx;          /* owner of the arrays */
} ccp_inspect_result;

/* Collective over every rank of t.  Rank r passes its messages: count
 * entries, message i goes to rank dst[i] and is bytes[i] long (any order;
 * zero-byte entries are ignored).  A destination outside the transport's
 * ranks, a non-empty message to the rank itself, the same destination
 * twice, or a message over 2^40 bytes is CCP_EINVAL (CCP_ERANGE for the
 * size) on every rank.
 *
 * The call gathers the whole matrix on every rank, looks its key up in
 * the cache, schedules, verifies, lowers and encodes the plan on a miss
 * (every rank, identically), stores it (rank 0), and loads this rank's
 * slice into *plan, ready for ccp_plan_bind.  Every rank returns the same
 * code; on failure *plan is NULL.  res (may be NULL) gets the layout and
 * what was done.  While an execution is in flight on t (ccp_plan_start),
 * the call is CCP_EBUSY and changes nothing but *plan and res (zeroed). */
CCP_EXTERN int ccp_inspect(ccp_context *ctx, ccp_transport *t,
                           const int32_t *dst, const uint64_t *bytes,
                           size_t count, const ccp_inspect_options *opt,
                           ccp_plan **plan, ccp_inspect_result *res);

/* Release the arrays of a result (a zeroed result is fine). */
CCP_EXTERN void ccp_inspect_result_fini(ccp_inspect_result *res);

/* Where the message exchanged with peer lies: side CCP_INSPECT_SEND
 * (this rank's message to peer, in the send buffer) or CCP_INSPECT_RECV
 * (peer's message to this rank, in the receive buffer).  0 with *off and
 * *len, or CCP_ENOTFOUND when there is no such (non-empty) message. */
#define CCP_INSPECT_SEND 0
#define CCP_INSPECT_RECV 1
CCP_EXTERN int ccp_inspect_offset(const ccp_inspect_result *res, int side,
                                  int32_t peer, uint64_t *off, uint64_t *len);

#ifdef __cplusplus
}
#endif

#endif
