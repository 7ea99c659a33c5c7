/*
 * sock_launch.h - `ccplan run`: the launcher of the sockets transport.  It
 * starts the ranks of a job, wires them up over TCP, serves their agree
 * and barrier, and stops the whole job when one rank fails
 * (docs/sockets.md).
 */
#ifndef CCP_SOCK_LAUNCH_H
#define CCP_SOCK_LAUNCH_H

/* `ccplan run -n N [--hostfile F] [--timeout S] [-v] PROGRAM ARGS...`,
 * called as cmd_run(argc - 1, argv + 1): argv[0] is "run".  Returns the
 * exit status: 0 when every rank exited 0 and the job did not fail, the
 * first failing rank's status (128 + signal for a rank killed by a
 * signal), 1 when every rank exited 0 but the job failed, 2 for bad
 * arguments, 3 when the launcher itself failed. */
int cmd_run(int argc, char **argv);

#endif
