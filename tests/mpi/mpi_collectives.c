/*
 * mpi_collectives.c - runs compiled plans over the MPI transport and
 * checks every received byte (run under mpirun; tests/mpi/mpi.cmake).
 *
 *     mpirun -n N mpi_collectives PLAN.ccp...
 *
 * Every plan must be for N ranks.  Each rank loads its slice, binds
 * pattern-filled buffers and runs the plan three times under each of S2,
 * S1, S2+NO_BARRIER and S1+NO_BARRIER, reusing the plan and the one
 * transport; after every run it compares its receive buffer with the
 * bytes derived from the plan's communication and with MPI's own
 * collective on the same data (run_plan, mpi_common.c).  The transport
 * is made on MPI_COMM_WORLD while the application keeps a wildcard
 * receive posted on MPI_COMM_WORLD: no message of a plan may match it.
 * Each rank prints one line; the exit status is 1 if a check failed on
 * any rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int size = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	t_prog = "mpi_collectives";
	double t0 = MPI_Wtime();

	/* the application's own traffic on the same communicator */
	MPI_Comm refcomm;
	MPI_Comm_dup(MPI_COMM_WORLD, &refcomm);
	int app_in = -1, app_out = 1000 + t_rank, flag = 0;
	MPI_Request app_req;
	MPI_Irecv(&app_in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
	          MPI_COMM_WORLD, &app_req);

	struct counter allocs = {0, 0};
	ccp_context *ctx = NULL;
	ccp_transport *t = NULL;
	int rc = ccp_init(&ctx, counting_alloc, &allocs);
	check(rc == 0, "ccp_init: %s", ccp_strerror(rc));
	rc = ccp_mpi_transport(ctx, MPI_COMM_WORLD, &t);
	check(rc == 0, "ccp_mpi_transport: %s (%s)", ccp_strerror(rc),
	      ccp_errmsg(ctx));
	unsigned plans = 0, execs = 0;
	if (rc == 0) {
		check(ccp_transport_rank(t) == t_rank &&
		              ccp_transport_size(t) == size,
		      "transport is rank %d of %d", (int)ccp_transport_rank(t),
		      (int)ccp_transport_size(t));
		check(strcmp(ccp_transport_name(t), "mpi") == 0,
		      "transport name %s", ccp_transport_name(t));
		check(argc > 1, "no plans given");
		for (int a = 1; a < argc; a++) {
			struct tplan tp;
			char err[300];
			if (!check(tplan_load(&tp, argv[a], err, sizeof err) ==
			                   0,
			           "%s", err))
				continue;
			bool alive = true;
			if (check(tp.n == size, "%s is a plan for %d ranks",
			          tp.name, (int)tp.n)) {
				alive = run_plan(&tp, ctx, &allocs, t, refcomm,
				                 3, a % 2 == 0, &execs);
				plans++;
			}
			tplan_fini(&tp);
			if (!alive)
				break;
		}
	}
	MPI_Test(&app_req, &flag, MPI_STATUS_IGNORE);
	check(!flag, "the application's wildcard receive matched a message "
	             "of the transport");
	ccp_transport_free(t);
	ccp_fini(ctx);
	check(allocs.live == 0, "%lld blocks of the context not freed",
	      (long long)allocs.live);
	MPI_Barrier(MPI_COMM_WORLD); /* every rank has tested its receive */

	/* the application's receive still works: from the left neighbour */
	MPI_Request sreq;
	MPI_Status st;
	MPI_Isend(&app_out, 1, MPI_INT, (t_rank + 1) % size, 5, MPI_COMM_WORLD,
	          &sreq);
	if (!flag)
		MPI_Wait(&app_req, &st);
	MPI_Wait(&sreq, MPI_STATUS_IGNORE);
	int left = (t_rank + size - 1) % size;
	check(flag || (st.MPI_SOURCE == left && st.MPI_TAG == 5 &&
	               app_in == 1000 + left),
	      "application message from %d tag %d value %d", st.MPI_SOURCE,
	      st.MPI_TAG, app_in);

	printf("%s rank %d/%d: %u plans, %u executions, %u checks, %u "
	       "failed, %.2f s\n",
	       t_prog, t_rank, size, plans, execs, t_checks, t_failures,
	       MPI_Wtime() - t0);
	fflush(stdout);
	bool failed = any_rank_failed();
	MPI_Comm_free(&refcomm);
	MPI_Finalize();
	return failed ? 1 : 0;
}
