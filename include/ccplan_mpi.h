/*
 * ccplan_mpi.h - the MPI transport of the ccplan runtime (library
 * ccp_backend_mpi; docs/mpi.md).
 *
 *     MPI_Init(&argc, &argv);
 *     ccp_init(&ctx, NULL, NULL);
 *     ccp_mpi_transport(ctx, MPI_COMM_WORLD, &t);
 *     ... ccp_plan_load_file(ctx, path, ccp_transport_rank(t), &plan) ...
 *     ccp_transport_free(t);               (before MPI_Finalize)
 *     MPI_Finalize();
 *
 * Any intracommunicator will do: the transport's ranks are the
 * communicator's ranks, and a plan runs only on a communicator of exactly
 * the plan's size.  The transport works on its own duplicate of the
 * communicator (MPI_Comm_dup, a collective call on it), so the plan's
 * messages never match the application's, and errors on the duplicate
 * come back as CCP_E* codes instead of aborting.  MPI must be initialised
 * before and finalised after the transport's life; its calls are made by
 * the thread that uses the context.
 */
#ifndef CCPLAN_MPI_H
#define CCPLAN_MPI_H

#include <mpi.h>

#include "ccplan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Make an MPI transport over comm (collective over comm).  Returns 0, or
 * CCP_EINVAL (MPI not initialised, MPI_COMM_NULL, an intercommunicator),
 * CCP_ENOMEM, or the code of a failed MPI call, with ccp_errmsg(ctx)
 * saying why.  Free it with ccp_transport_free before MPI_Finalize. */
CCP_EXTERN int ccp_mpi_transport(ccp_context *ctx, MPI_Comm comm,
                                 ccp_transport **t);

#ifdef __cplusplus
}
#endif

#endif
