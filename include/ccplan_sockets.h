/*
 * ccplan_sockets.h - the TCP sockets transport of the ccplan runtime
 * (library ccp_backend_sockets; docs/sockets.md), and the wire protocol
 * it shares with its launcher, `ccplan run`.
 *
 *     ccplan run -n 4 ./app bcast.ccp
 *
 *     ccp_init(&ctx, NULL, NULL);
 *     ccp_socket_transport(ctx, NULL, &t);     (rank, size from ccplan run)
 *     ... ccp_plan_load_file(ctx, path, ccp_transport_rank(t), &plan) ...
 *     ccp_transport_free(t);                   (before the process exits)
 *
 * No dependency beyond POSIX sockets and poll().  `ccplan run` starts the
 * ranks and tells each where to find it through the environment
 * (CCPLAN_RANK, CCPLAN_SIZE, CCPLAN_RUN_ADDR, CCPLAN_RUN_KEY); it serves
 * the transport's agree and barrier, and tells every rank at once when
 * another one dies.  Data moves on direct rank-to-rank connections, opened
 * only between ranks whose plan names each other.  Without CCPLAN_SIZE in
 * the environment the transport is rank 0 of 1 (a one-rank plan runs
 * without the launcher).
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
 * every rank has done the same.  Returns 0, or CCP_EINVAL (a malformed
 * environment), CCP_ENOMEM, CCP_EIO (a socket call failed), CCP_EPEER
 * (another rank failed before the wire-up ended), CCP_ETIMEDOUT, with
 * ccp_errmsg(ctx) saying why. */
int ccp_socket_transport(ccp_context *ctx, const ccp_socket_options *opt,
                         ccp_transport **t);

/* ---- environment ---------------------------------------------------- */

#define CCP_SOCK_ENV_RANK        "CCPLAN_RANK"     /* this rank, 0..size-1 */
#define CCP_SOCK_ENV_SIZE        "CCPLAN_SIZE"     /* ranks of the job */
#define CCP_SOCK_ENV_ADDR        "CCPLAN_RUN_ADDR" /* launcher: IPv4:port */
#define CCP_SOCK_ENV_KEY         "CCPLAN_RUN_KEY"  /* job key, 16 hex digits */
#define CCP_SOCK_ENV_TIMEOUT     "CCPLAN_TIMEOUT_MS"    /* default timeout */
#define CCP_SOCK_ENV_FAULT       "CCPLAN_SOCKETS_FAULT" /* test hook only */
#define CCP_SOCK_TIMEOUT_DEFAULT 30000u                 /* ms */

/* ---- wire protocol (docs/sockets.md) ----------------------------------
 * Every integer is little-endian.  Control messages travel between a rank
 * and the launcher: a 16-byte header, then a body of the header's length. */

#define CCP_SOCK_CTL_MAGIC   0x43504343u /* "CCPC" */
#define CCP_SOCK_HELLO_MAGIC 0x48504343u /* "CCPH": data connection hello */
#define CCP_SOCK_DATA_MAGIC  0x44504343u /* "CCPD": data frame */

/* control header: u32 magic, u16 type, u16 0, u32 rank, u32 body length */
#define CCP_SOCK_CTL_HDR 16u
/* data hello: u32 magic, u32 from, u32 to, u32 0, u64 key */
#define CCP_SOCK_DHELLO_LEN 24u
/* frame header: u32 magic, u32 sender, u64 plan hash, u32 phase, u8 kind,
 * u8[3] 0, u64 length */
#define CCP_SOCK_FRAME_HDR 32u

enum ccp_sock_ctl {
	CCP_SOCK_HELLO = 1,   /* rank: u64 key, u32 size, u32 pid,
	                         u8[4] IPv4, u16 port, u16 0 */
	CCP_SOCK_TABLE = 2,   /* launcher: per rank u8[4] IPv4, u16 port,
	                         u16 0 */
	CCP_SOCK_AGREE = 3,   /* rank: u64 seq, u64 hash, i32 status, u32 0 */
	CCP_SOCK_AGREED = 4,  /* launcher: u64 seq, i32 global, u32 0 */
	CCP_SOCK_BARRIER = 5, /* rank: u64 seq */
	CCP_SOCK_RELEASE = 6, /* launcher: u64 seq */
	CCP_SOCK_FAIL = 7,    /* rank: i32 code, u32 0 (its transport broke) */
	CCP_SOCK_ABORT = 8,   /* launcher: u32 reason, i32 code, i32 status,
	                         u32 0; header rank = the rank that failed */
	CCP_SOCK_BYE = 9      /* rank: (no body) freed its transport */
};

#define CCP_SOCK_HELLO_LEN   24u
#define CCP_SOCK_AGREE_LEN   24u
#define CCP_SOCK_AGREED_LEN  16u
#define CCP_SOCK_BARRIER_LEN 8u
#define CCP_SOCK_RELEASE_LEN 8u
#define CCP_SOCK_FAIL_LEN    8u
#define CCP_SOCK_ABORT_LEN   16u
#define CCP_SOCK_ENTRY_LEN   8u /* one TABLE entry */

/* Why the launcher stops the job (ABORT reason). */
enum ccp_sock_reason {
	CCP_SOCK_EXITED = 1,      /* the rank exited with status != 0 */
	CCP_SOCK_SIGNALED = 2,    /* the rank was killed by signal status */
	CCP_SOCK_DROPPED = 3,     /* its control connection closed without
	                             BYE while it ran */
	CCP_SOCK_REPORTED = 4,    /* its transport failed with code */
	CCP_SOCK_LEFT = 5,        /* it left (BYE, or exited 0) and cannot
	                             join the collective the others entered */
	CCP_SOCK_INTERRUPTED = 6, /* the launcher got signal status */
	CCP_SOCK_PROTOCOL = 7     /* ranks entered different collectives, or
	                             a rank sent a malformed message */
};

#ifdef __cplusplus
}
#endif

#endif
