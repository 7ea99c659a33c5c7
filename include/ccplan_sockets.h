/*
 * ccplan_sockets.h - the TCP sockets transport of the ccplan runtime
 * (library ccp_backend_sockets, which needs libsodium; docs/sockets.md),
 * started by its launcher, `ccplan run`.
 *
 *     ccplan run -n 4 ./app bcast.ccp
 *
 *     ccp_init(&ctx, NULL, NULL);
 *     ccp_socket_transport(ctx, NULL, &t);     (rank, size from ccplan run)
 *     ... ccp_plan_load_file(ctx, path, ccp_transport_rank(t), &plan) ...
 *     ccp_transport_free(t);                   (before the process exits)
 *
 * POSIX sockets and poll(), and libsodium for authentication.  `ccplan
 * run` starts the ranks and tells each where to find it through the
 * environment (CCPLAN_RANK, CCPLAN_SIZE, CCPLAN_RUN_ADDR), and gives each
 * the job's secret key on an inherited descriptor (CCPLAN_RUN_KEY_FD),
 * never in a command line or the environment.  Every connection, to the
 * launcher or between two ranks, starts with a challenge and response in
 * which both sides prove that they know the key without sending it; data
 * is not encrypted.  The launcher serves the transport's agree and
 * barrier, and tells every rank at once when another one dies.  Data
 * moves on direct rank-to-rank connections, opened only between ranks
 * whose plan names each other.  Without CCPLAN_SIZE in the environment
 * the transport is rank 0 of 1 (a one-rank plan runs without the
 * launcher).  The wire protocol is private (backends/sock_wire.h).
 *
 * Started by srun, mpirun or mpiexec instead (docs/sockets.md, "Without
 * ccplan run"), the transport takes the rank and size from the
 * launcher's variables (SLURM_PROCID and SLURM_NTASKS, OMPI_COMM_WORLD_*,
 * PMI_RANK and PMI_SIZE), and rank 0 serves the job from a thread, as
 * ccplan run would, after leaving its address and a new key in a
 * rendezvous file (CCPLAN_RENDEZVOUS, default $HOME/.ccplan/rendezvous)
 * that the other ranks read.  Rank 0's ccp_transport_free then returns
 * once every other rank has freed its transport.
 *
 * Free the transport before the process exits: it tells the launcher
 * that the rank left on purpose.  A rank whose control connection closes
 * without that is taken as failed, and the other ranks are stopped.
 */
#ifndef CCPLAN_SOCKETS_H
#define CCPLAN_SOCKETS_H

#include <stdint.h>

#include "ccplan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccp_socket_options {
	/* How long any call may wait without a byte moving, in
	 * milliseconds, before it returns CCP_ETIMEDOUT.  0: the value of
	 * CCPLAN_TIMEOUT_MS (ccplan run --timeout sets it), else 30000. */
	uint32_t timeout_ms;
} ccp_socket_options;

/* Make the sockets transport of this process (opt may be NULL): connect
 * to the launcher, open this rank's listening socket, and wait until
 * every rank has done the same.  Call it once per process: the key can
 * be read only once.  Returns 0, or CCP_EINVAL (a malformed environment or
 * key), CCP_ENOMEM, CCP_EIO (a socket call failed), CCP_EPEER (another
 * rank failed before the wire-up ended, or what listens at
 * CCPLAN_RUN_ADDR does not know the job's key), CCP_ETIMEDOUT, with
 * ccp_errmsg(ctx) saying why. */
CCP_EXTERN int ccp_socket_transport(ccp_context *ctx,
                                    const ccp_socket_options *opt,
                                    ccp_transport **t);

/* ---- environment ---------------------------------------------------- */

#define CCP_SOCK_ENV_RANK        "CCPLAN_RANK"     /* this rank, 0..size-1 */
#define CCP_SOCK_ENV_SIZE        "CCPLAN_SIZE"     /* ranks of the job */
#define CCP_SOCK_ENV_ADDR        "CCPLAN_RUN_ADDR" /* launcher: IPv4:port */
#define CCP_SOCK_ENV_KEY_FD      "CCPLAN_RUN_KEY_FD" /* descriptor to read the
                                                       job key from, once */
#define CCP_SOCK_ENV_TIMEOUT     "CCPLAN_TIMEOUT_MS"    /* default timeout */
#define CCP_SOCK_ENV_FAULT       "CCPLAN_SOCKETS_FAULT" /* test hook only */
/* A job started by srun, mpirun or mpiexec instead (docs/sockets.md,
 * "Without ccplan run"): the job's name, when the launcher's own does not
 * serve, and the directory every host sees where rank 0 leaves the
 * rendezvous file ($HOME/.ccplan/rendezvous when unset). */
#define CCP_SOCK_ENV_JOB        "CCPLAN_JOB_ID"
#define CCP_SOCK_ENV_RENDEZVOUS "CCPLAN_RENDEZVOUS"
#define CCP_SOCK_TIMEOUT_DEFAULT 30000u                 /* ms */

#ifdef __cplusplus
}
#endif

#endif
