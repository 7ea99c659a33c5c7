/*
 * app.c - an application outside ccplan's tree that uses the installed
 * package: the inspector over the MPI transport.  Every rank exchanges
 * messages of different sizes with its ring neighbours at distance 1 and
 * 2 (a halo of an irregular partition in miniature), inspects that
 * pattern once on a ring of as many ranks, executes the plan a few times
 * with new data, and checks every byte it receives.  README.md says how
 * to build it with CMake and with pkg-config.
 *
 *     mpirun -n 4 ./inspector_mpi_app
 */
#include <ccplan_inspector.h>
#include <ccplan_mpi.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERATIONS 3

/* bytes that rank src sends to rank dst */
static uint64_t msg_len(int src, int dst)
{
	return 16 + 8 * (uint64_t)((src * 7 + dst * 3) % 11);
}

/* byte i of the message src -> dst in iteration it */
static unsigned char msg_byte(int src, int dst, uint64_t i, int it)
{
	return (unsigned char)(src * 31 + dst * 17 + (int)i + it * 5);
}

/* this rank's destinations: the ring neighbours at distance 1 and 2,
 * each once, never itself; returns how many */
static int neighbours(int rank, int n, int32_t dst[4])
{
	const int step[4] = {1, -1, 2, -2};
	int k = 0;
	for (int s = 0; s < 4; s++) {
		int32_t d = (int32_t)(((rank + step[s]) % n + n) % n);
		int seen = d == rank;
		for (int j = 0; j < k; j++)
			seen |= dst[j] == d;
		if (!seen)
			dst[k++] = d;
	}
	return k;
}

/* fill the send buffer, execute, check what arrived; 0 or -1 */
static int iterate(ccp_plan *plan, ccp_transport *t, ccp_inspect_result *r,
                   unsigned char *send, const unsigned char *recv,
                   int rank, int n, int it)
{
	int32_t peer[4];
	int k = neighbours(rank, n, peer);
	for (int j = 0; j < k; j++) {
		uint64_t off, len;
		if (ccp_inspect_offset(r, CCP_INSPECT_SEND, peer[j], &off,
		                       &len) != 0 ||
		    len != msg_len(rank, peer[j]))
			return -1;
		for (uint64_t i = 0; i < len; i++)
			send[off + i] = msg_byte(rank, peer[j], i, it);
	}
	int rc = ccp_plan_execute(plan, t,
	                          it ? CCP_EXEC_NO_CHECK : CCP_EXEC_DEFAULT);
	if (rc != 0) {
		fprintf(stderr, "rank %d: execute: %s\n", rank,
		        ccp_strerror(rc));
		return -1;
	}
	/* the sources are the same ring neighbours, as the pattern is
	 * symmetric in who talks to whom */
	if (r->nrecv != (size_t)k)
		return -1;
	for (int j = 0; j < k; j++) {
		uint64_t off, len;
		if (ccp_inspect_offset(r, CCP_INSPECT_RECV, peer[j], &off,
		                       &len) != 0 ||
		    len != msg_len(peer[j], rank))
			return -1;
		for (uint64_t i = 0; i < len; i++)
			if (recv[off + i] != msg_byte(peer[j], rank, i, it)) {
				fprintf(stderr,
				        "rank %d: byte %llu from %d wrong\n",
				        rank, (unsigned long long)i,
				        (int)peer[j]);
				return -1;
			}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rank, n, ok = 0, rc;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);

	ccp_context *ctx = NULL;
	ccp_transport *t = NULL;
	ccp_machine *ring = NULL;
	ccp_plan *plan = NULL;
	ccp_inspect_result r = {0};
	unsigned char *send = NULL, *recv = NULL;
	int32_t dst[4];
	uint64_t bytes[4];
	ccp_inspect_options o = {.seed = 1};
	int k = neighbours(rank, n, dst);
	for (int j = 0; j < k; j++)
		bytes[j] = msg_len(rank, dst[j]);

	if (ccp_init(&ctx, NULL, NULL) != 0)
		goto out;
	rc = ccp_mpi_transport(ctx, MPI_COMM_WORLD, &t);
	if (rc == 0)
		rc = ccp_machine_grid(ctx, "torus", 1, &n, CCP_MACHINE_ALL_PORTS,
		                      &ring);
	o.machine = ring;
	if (rc == 0)
		rc = ccp_inspect(ctx, t, dst, bytes, (size_t)k, &o, &plan, &r);
	if (rc == 0) {
		send = malloc(r.send_bytes ? r.send_bytes : 1);
		recv = malloc(r.recv_bytes ? r.recv_bytes : 1);
		rc = send && recv ? 0 : CCP_ENOMEM;
	}
	if (rc == 0)
		rc = ccp_plan_bind(plan, send, r.send_bytes, recv, r.recv_bytes,
		                   NULL, 0);
	if (rc != 0) {
		fprintf(stderr, "rank %d: %s: %s\n", rank, ccp_strerror(rc),
		        ccp_errmsg(ctx));
		goto out;
	}
	ok = 1;
	for (int it = 0; ok && it < ITERATIONS; it++)
		ok = iterate(plan, t, &r, send, recv, rank, n, it) == 0;

out:;
	int all = 0;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (rank == 0)
		printf("inspector over MPI on %d ranks: %lld messages, %u phases "
		       "(bound %u) by %s, %d iterations: %s\n",
		       n, (long long)r.messages, r.nphases, r.lb_phases,
		       r.algorithm, ITERATIONS,
		       all ? "every byte ok" : "FAILED");
	free(send);
	free(recv);
	ccp_inspect_result_fini(&r);
	ccp_plan_free(plan);
	ccp_machine_free(ring);
	ccp_transport_free(t);
	ccp_fini(ctx);
	MPI_Finalize();
	return all ? 0 : 1;
}
