/*
 * halo3d.c - a 3D halo exchange written against the installed ccplan
 * package alone (README.md): the ranks form a periodic px x py x pz grid,
 * each owns a block of n x n x n values and exchanges its six faces with
 * its face neighbours.  The pattern is inspected once (ccp_inspect on a
 * torus of the grid's shape), bound by pieces straight onto the face
 * arrays (no packing: a piece must hold whole messages, so where a
 * neighbour gets two faces, on a side of two ranks, the two lie side by
 * side), and executed several times with start, test and
 * wait around the interior computation, as MPI_Ineighbor_alltoallv would
 * be used.  Every received value is checked; the exit status is 0 only
 * when every rank received every value right.
 *
 * Built twice from this file: halo3d_mpi over MPI (-DHALO_MPI), and
 * halo3d_sockets over TCP sockets, which runs under ccplan run, srun or
 * mpirun alike (docs/sockets.md).
 *
 *     mpirun -n 8 ./halo3d_mpi 16
 *     ccplan run -n 8 ./halo3d_sockets 16      (or srun, or mpirun)
 */
#include <ccplan_inspector.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HALO_MPI
#include <ccplan_mpi.h>
#include <mpi.h>
#else
#include <ccplan_sockets.h>
#endif

#define ITERATIONS 4
#define CHUNKS     8 /* pieces of interior work, a test after each */

static int dims[3], me, size;

/* the rank at grid coordinates c (x fastest), periodic */
static int rank_at(const int c[3])
{
	int r = 0;
	for (int k = 2; k >= 0; k--)
		r = r * dims[k] + ((c[k] % dims[k]) + dims[k]) % dims[k];
	return r;
}

/* face direction d (0: -x, 1: +x, 2: -y, 3: +y, 4: -z, 5: +z) of rank r:
 * its neighbour there */
static int neighbour(int r, int d)
{
	int c[3] = {r % dims[0], r / dims[0] % dims[1], r / dims[0] / dims[1]};
	c[d / 2] += d % 2 ? 1 : -1;
	return rank_at(c);
}

/* value i of the face rank r sends in direction d, in iteration it */
static double value(int r, int d, size_t i, int it)
{
	return (double)r * 1e7 + d * 1e6 + (double)i + it * 0.5;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)atoi(argv[1]) : 16, face = n * n;
	ccp_context *ctx;
	ccp_transport *t;
	ccp_machine *m = NULL;
	ccp_plan *plan = NULL;
	int rc, bad = 0;
#ifdef HALO_MPI
	MPI_Init(&argc, &argv);
#endif
	if (n < 1 || ccp_init(&ctx, NULL, NULL) != 0)
		return 2;
#ifdef HALO_MPI
	rc = ccp_mpi_transport(ctx, MPI_COMM_WORLD, &t);
#else
	rc = ccp_socket_transport(ctx, NULL, &t);
#endif
	if (rc) {
		fprintf(stderr, "transport: %s\n", ccp_errmsg(ctx));
		return 3;
	}
	me = (int)ccp_transport_rank(t);
	size = (int)ccp_transport_size(t);
	/* the grid: the size's factors dealt out, largest dimension first */
	dims[0] = dims[1] = dims[2] = 1;
	for (int left = size, f = 2; left > 1;) {
		if (left % f) {
			f++;
			continue;
		}
		int k = dims[0] <= dims[1] ? (dims[0] <= dims[2] ? 0 : 2)
		                           : (dims[1] <= dims[2] ? 1 : 2);
		dims[k] *= f;
		left /= f;
	}

	/* faces: out + d * face goes out in direction d; in + d * face holds
	 * what comes from direction d ^ 1 (the side the neighbour sent it
	 * towards), so that the faces of one message lie side by side in
	 * both arrays */
	double *out = malloc(6 * face * sizeof *out);
	double *in = malloc(6 * face * sizeof *in);
	double *interior = calloc(n * n * n, sizeof *interior);
	int32_t dst[6];
	uint64_t len[6];
	size_t npeer = 0;
	if (!out || !in || !interior)
		return 2;
	/* one message per distinct neighbour (not this rank): its faces
	 * towards it, in direction order; peers ascending */
	for (int p = 0; p < size; p++) {
		if (p == me)
			continue;
		uint64_t b = 0;
		for (int d = 0; d < 6; d++)
			b += neighbour(me, d) == p ? face * sizeof(double) : 0;
		if (b) {
			dst[npeer] = p;
			len[npeer++] = b;
		}
	}
	/* the machine: a torus of the grid's shape (its dimensions of more
	 * than one rank), every port */
	ccp_inspect_result res;
	ccp_inspect_options o = {.seed = 1};
	int nd = 0, dd[3];
	for (int k = 0; k < 3; k++)
		if (dims[k] > 1)
			dd[nd++] = dims[k];
	rc = nd ? ccp_machine_grid(ctx, "torus", nd, dd, CCP_MACHINE_ALL_PORTS,
	                           &m)
	        : 0;
	o.machine = m;
	if (rc == 0)
		rc = ccp_inspect(ctx, t, dst, len, npeer, &o, &plan, &res);
	if (rc) {
		fprintf(stderr, "rank %d: inspect: %s\n", me, ccp_errmsg(ctx));
		return 3;
	}
	/* bind by pieces: one per peer and way, its faces in direction
	 * order (the peer sends its faces d with neighbour(peer, d) == me,
	 * which arrive from direction d ^ 1) */
	ccp_piece sp[6], rp[6];
	size_t ns = 0, nr = 0;
	for (size_t k = 0; k < npeer; k++) {
		size_t s0 = ns, r0 = nr;
		for (int d = 0; d < 6; d++) {
			if (neighbour(me, d) == dst[k])
				sp[ns++] = (ccp_piece){out + d * face,
				                       face * sizeof(double)};
			if (neighbour(dst[k], d) == me)
				rp[nr++] = (ccp_piece){in + d * face,
				                       face * sizeof(double)};
		}
		/* faces side by side: one piece */
		for (; ns > s0 + 1; ns--)
			sp[s0].len += sp[ns - 1].len;
		for (; nr > r0 + 1; nr--)
			rp[r0].len += rp[nr - 1].len;
	}
	if ((rc = ccp_plan_bind_pieces(plan, sp, ns, rp, nr)) != 0) {
		fprintf(stderr, "rank %d: bind: %s\n", me, ccp_errmsg(ctx));
		return 3;
	}

	for (int it = 0; it < ITERATIONS && rc == 0; it++) {
		for (int d = 0; d < 6; d++)
			for (size_t i = 0; i < face; i++)
				out[d * face + i] = value(me, d, i, it);
		memset(in, 0, 6 * face * sizeof *in);
		rc = ccp_plan_start(plan, t,
		                    it ? CCP_EXEC_DEFAULT | CCP_EXEC_NO_CHECK
		                       : CCP_EXEC_DEFAULT);
		/* the interior, in chunks, while the faces travel */
		int done = 0;
		for (int c = 0; c < CHUNKS && rc == 0; c++) {
			for (size_t i = c * n * n * n / CHUNKS;
			     i < (c + 1) * n * n * n / CHUNKS; i++)
				interior[i] = 0.5 * interior[i] + it;
			if (!done)
				rc = ccp_plan_test(plan, &done);
		}
		if (rc == 0 && !done)
			rc = ccp_plan_wait(plan);
		/* each ghost face: what the neighbour in direction d sent
		 * (its face d ^ 1, kept at in + (d ^ 1) * face) */
		for (int d = 0; d < 6 && rc == 0; d++) {
			int from = neighbour(me, d);
			if (from == me)
				continue;
			for (size_t i = 0; i < face; i++)
				bad += in[(d ^ 1) * face + i] !=
				       value(from, d ^ 1, i, it);
		}
	}
	if (rc)
		fprintf(stderr, "rank %d: exchange: %s\n", me, ccp_errmsg(ctx));
	printf("halo3d rank %d of %d (grid %dx%dx%d, %zu peers, %u phases): "
	       "%s\n",
	       me, size, dims[0], dims[1], dims[2], npeer, res.nphases,
	       rc    ? "FAILED"
	       : bad ? "WRONG DATA"
	             : "every value ok");
	ccp_inspect_result_fini(&res);
	ccp_plan_free(plan);
	ccp_machine_free(m);
	ccp_transport_free(t);
	ccp_fini(ctx);
	free(out);
	free(in);
	free(interior);
#ifdef HALO_MPI
	MPI_Finalize();
#endif
	return rc ? 1 : bad ? 2 : 0;
}
