/*
 * ccplan_shmem.h - the OpenSHMEM transport of the ccplan runtime (library
 * ccp_backend_shmem; docs/shmem.md).
 *
 *     shmem_init();
 *     ccp_init(&ctx, NULL, NULL);
 *     ccp_shmem_transport(ctx, &t);          (every PE: collective)
 *     ... ccp_plan_load_file(ctx, path, ccp_transport_rank(t), &plan) ...
 *     ccp_transport_free(t);                 (every PE: collective)
 *     shmem_finalize();
 *
 * The transport's ranks are the PEs (shmem_my_pe, shmem_n_pes).  Messages
 * move by one-sided puts into a symmetric landing zone on the receiving
 * PE, which the receiver fills in its own buffers; a receive buffer that
 * lies on the symmetric heap can be written directly instead (see
 * CCP_SHMEM_DIRECT).  Making and freeing the transport allocate and free
 * symmetric memory, so, like shmem_malloc and shmem_free, every PE calls
 * them, in the same order, with the same configuration.  OpenSHMEM must
 * be initialised before and finalised after the transport's life; its
 * calls are made by the thread that uses the context.  Open MPI 4.1 over
 * UCX 1.13 crashes in shmem_finalize unless
 * OMPI_MCA_opal_common_ucx_opal_mem_hooks=0 (docs/shmem.md, "Finalize").
 */
#ifndef CCPLAN_SHMEM_H
#define CCPLAN_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "ccplan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Receive buffers (and the plan's staging and scratch) that lie on the
 * symmetric heap (shmem_malloc) are written by the sender directly,
 * without the landing zone and its copy.  Set it only when no receive
 * buffer is a static or global variable: those are symmetric too, but
 * in another segment. */
#define CCP_SHMEM_DIRECT 1u

/* The transport's configuration.  Zero fields take the defaults; every
 * PE must pass the same sizes (chunk_bytes, chunks, depth). */
struct ccp_shmem_config {
	size_t chunk_bytes;  /* landing-zone slot: a message larger than this
	                        goes in pieces; 0 = 64 KiB */
	uint32_t chunks;     /* slots of the landing zone; 0 = 16 */
	uint32_t depth;      /* pieces in flight per (peer, kind); 0 = 4 */
	uint32_t timeout_ms; /* a wait that sees nothing arrive for this long
	                        fails with CCP_ETIMEDOUT; 0 = wait forever */
	unsigned flags;      /* CCP_SHMEM_DIRECT or 0 */
};

/* Make an OpenSHMEM transport with the default configuration (collective
 * over every PE).  Returns 0, or CCP_ENOMEM (symmetric heap exhausted),
 * CCP_EINVAL, with ccp_errmsg(ctx) saying why.  Free it with
 * ccp_transport_free, on every PE, before shmem_finalize. */
CCP_EXTERN int ccp_shmem_transport(ccp_context *ctx, ccp_transport **t);

/* The same with an explicit configuration (cfg may be NULL).  PEs that
 * pass different sizes all get CCP_EINVAL. */
CCP_EXTERN int ccp_shmem_transport_config(ccp_context *ctx,
                                          const struct ccp_shmem_config *cfg,
                                          ccp_transport **t);

#ifdef __cplusplus
}
#endif

#endif
