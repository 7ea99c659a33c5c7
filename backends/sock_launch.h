/*
 * sock_launch.h - `ccplan run`: the launcher of the sockets transport.  It
 * starts the ranks of a job, wires them up over TCP, serves their agree
 * and barrier, and stops the whole job when one rank fails
 * (docs/sockets.md).
 */
#ifndef CCP_SOCK_LAUNCH_H
#define CCP_SOCK_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#define RUN_MAX_RANKS 4096 /* two descriptors each in the launcher */

/* What `ccplan run` is asked (the command line parses it: compiler/cli/). */
struct run_opts {
	int n;                /* ranks to start, 1 to RUN_MAX_RANKS */
	const char *hostfile; /* --hostfile, or NULL */
	const char *hosts;    /* -H "a:2,b:2", or NULL; with neither, every
	                         rank here */
	double timeout_s;     /* --timeout in seconds, or 0: the default */
	bool verbose;         /* -v: say what the launcher does */
	char *const *prog;    /* PROGRAM ARGS..., ended by NULL */
};

/* Run the job o asks for.  Returns the exit status: 0 when every rank
 * exited 0 and the job did not fail, the first failing rank's status
 * (128 + signal for a rank killed by a signal), 1 when every rank exited
 * 0 but the job failed, 2 for a bad hostfile, 3 when the launcher itself
 * failed. */
int sock_run(const struct run_opts *o);

/* The coordinator of a job whose ranks someone else started (srun,
 * mpirun): the launcher's wire-up, agree, barrier and fault handling
 * without its processes, run by a thread of rank 0 (backends/sockets.c,
 * docs/sockets.md "Without ccplan run").  A rank ends when its control
 * connection closes; the loop ends when every rank has, or a while
 * after the job failed. */
struct sock_coord;

/* Listen (on every interface when remote, else on loopback) and draw the
 * job's key for n ranks: addr gets "IPv4:port", key the key.  rdv (may
 * be NULL, borrowed) is the rendezvous file, removed once every rank has
 * connected and when the coordinator is freed.  0, or -1 with the reason
 * on stderr. */
int sock_coord_open(struct sock_coord **c, int n, long long timeout_ms,
                    bool remote, const char *rdv, char *addr, size_t addrlen,
                    unsigned char key[32]);

/* Serve the job until it ends (the body of a thread: arg is the
 * coordinator; returns NULL). */
void *sock_coord_serve(void *c);

/* Ask the serving loop to fail the job and end soon (rank 0 could not
 * join it). */
void sock_coord_stop(struct sock_coord *c);

/* Free the coordinator once sock_coord_serve has returned (or was never
 * run). */
void sock_coord_free(struct sock_coord *c);

#endif
