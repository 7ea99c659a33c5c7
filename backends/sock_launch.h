/*
 * sock_launch.h - `ccplan run`: the launcher of the sockets transport.  It
 * starts the ranks of a job, wires them up over TCP, serves their agree
 * and barrier, and stops the whole job when one rank fails
 * (docs/sockets.md).
 */
#ifndef CCP_SOCK_LAUNCH_H
#define CCP_SOCK_LAUNCH_H

#include <stdbool.h>

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

#endif
