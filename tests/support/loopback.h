/*
 * loopback.h - an in-process transport for tests: the ranks of a job are
 * threads of one process, and every message goes through one locked
 * queue.  test_engine runs every generator's plans on it, and the
 * executing fuzz harness (tests/fuzz/fuzz_exec.c) every plan the loader
 * accepts.
 *
 * It keeps the rules of runtime/transport.h: requests numbered in posting
 * order, messages matched by (source, destination, phase, kind) in the
 * order they were sent, a message of the right tag but another length an
 * error (CCP_EPEER), and after a failure every later call fails.  Sends
 * are eager (the bytes are copied when the send is posted), receives are
 * filled when they are waited for.
 *
 * It never hangs.  The ranks share one view of who waits for what, so a
 * job whose ranks' operations do not match (a receive no rank will send,
 * a barrier a rank never enters, a rank that has left) is seen the moment
 * the last rank that could still move blocks: the world is then broken,
 * and every rank's current and later calls fail with CCP_EPEER and a
 * message naming a rank that waits and what for.  Any failure of one rank
 * breaks the world the same way, as the sockets launcher tells every rank
 * when one fails.  A wait that sees nothing for timeout_ms (a backstop;
 * it means the detection missed something) fails with CCP_ETIMEDOUT.
 */
#ifndef CCP_TEST_LOOPBACK_H
#define CCP_TEST_LOOPBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ccplan.h"

struct lb_world;

/* A world of n ranks (n >= 1); NULL when out of memory.  timeout_ms: how
 * long one wait may see nothing before it fails (0: no limit). */
struct lb_world *lb_world_new(int32_t n, unsigned timeout_ms);
/* Free w and the messages no rank received.  Every transport made from w
 * must have been freed (ccp_transport_free) first. */
void lb_world_free(struct lb_world *w);

/* Rank rank's transport in w, reporting errors on ctx (borrowed; it must
 * outlive the transport).  Free it with ccp_transport_free, which also
 * tells the others that this rank makes no more calls.  0, CCP_EINVAL
 * (rank outside the world) or CCP_ENOMEM. */
int lb_transport_new(struct lb_world *w, ccp_context *ctx, int32_t rank,
                     ccp_transport **t);

/* Whether transports made from now on take prepared groups (the ops
 * prepare and start of transport.h, posting through irecv and isend),
 * so that the engine's path for them runs; false by default. */
extern bool lb_prepared_groups;

/* Messages sent and never received. */
size_t lb_world_unreceived(struct lb_world *w);

/* 0, or the code the world failed with (CCP_EPEER for operations that do
 * not match, CCP_ETIMEDOUT for the backstop); *why (may be NULL) gets the
 * reason, valid until lb_world_free. */
int lb_world_failure(struct lb_world *w, const char **why);

/* One rank of lb_run. */
struct lb_job {
	int32_t rank;
	ccp_context *ctx; /* the rank's own; freed once every rank returned,
	                     so copy what its message says */
	ccp_transport *t; /* freed when fn returns: the rank leaves */
	void *arg;        /* the caller's, the same for every rank */
};

/* Run fn once for every rank of a new world of n ranks, each on its own
 * thread with its own context (default allocator) and transport, and
 * return when all have returned: the world's failure code
 * (lb_world_failure, 0 if none).  *unreceived (may be NULL) gets the
 * messages sent and never received.  The process aborts when the world,
 * a context or a thread cannot be made. */
int lb_run(int32_t n, unsigned timeout_ms, void (*fn)(struct lb_job *j),
           void *arg, size_t *unreceived);

#endif
