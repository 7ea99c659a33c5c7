/*
 * ccplan_overlap.c - ccplan-overlap: does a halo exchange overlap
 * computation?  A 3D halo exchange (26 neighbours on a non-periodic grid
 * of ranks, MPI_Dims_create) plus an equal amount of computation, run
 * five ways in the same run, on the same ranks and buffers:
 *
 *   ccp start/test   ccp_plan_start, the computation in chunks with a
 *                    ccp_plan_test after each, ccp_plan_wait
 *   ccp serial       ccp_plan_execute, then the computation
 *   ineighbor        MPI_Ineighbor_alltoallv (distributed-graph
 *                    communicator of the same neighbours), the same
 *                    chunks with an MPI_Test after each, MPI_Wait
 *   alltoallv        MPI_Alltoallv, then the computation (the baseline)
 *
 * and the parts alone: the computation, ccp_plan_execute, and
 * MPI_Ineighbor_alltoallv with MPI_Wait.  The computation is calibrated
 * to take as long as the ccplan exchange alone.  For each, the median
 * and range over the iterations of the slowest rank's time, the time
 * without overlap (computation + that method's exchange) and the lower
 * bound max(computation, exchange).  The plan comes from the inspector
 * (all ports, no phase barriers: CCP_EXEC_NO_BARRIER | NO_CHECK after
 * the first run).  Every received byte is checked once per size.
 *
 *   mpirun -n 8 --oversubscribe --allow-run-as-root \
 *          build/bench/ccplan-overlap [--sizes 4,16,64] [--iters 30]
 *
 * docs/bench-mpi.md, "Overlap", says what it can show on a machine with
 * fewer cores than ranks.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccplan.h"
#include "ccplan_inspector.h"
#include "ccplan_mpi.h"

#define CHUNKS 16 /* pieces of the computation, a test after each */
#define MAXN   26

enum {
	M_COMPUTE,
	M_CCP_X,
	M_NBR_X,
	M_A2A_X,
	M_CCP_NB,
	M_CCP_SER,
	M_NBR_NB,
	M_A2A_SER,
	NM
};
static const char *const mname[NM] = {"compute alone",   "ccp execute alone",
                                      "ineighbor alone", "alltoallv alone",
                                      "ccp start/test",  "ccp serial",
                                      "ineighbor+test",  "alltoallv serial"};

static int me, np;

static double now(void)
{
	return MPI_Wtime();
}

/* The computation: `work` passes of a dependent multiply-add over v. */
static double v[4096];
static void compute(long work)
{
	for (long k = 0; k < work; k++)
		for (int i = 0; i < 4096; i++)
			v[i] = v[i] * 0.999999 + 1e-7;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void die(const char *what, int rc, ccp_context *ctx)
{
	fprintf(stderr, "rank %d: %s: %s: %s\n", me, what, ccp_strerror(rc),
	        ctx ? ccp_errmsg(ctx) : "");
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The neighbours of this rank (ascending), and the bytes to each. */
static int neighbours(const int *dims, int n, int32_t *peer, uint64_t *bytes)
{
	int c[3] = {me / (dims[1] * dims[2]), me / dims[2] % dims[1],
	            me % dims[2]};
	int k = 0;
	for (int r = 0; r < np; r++) {
		int d[3] = {r / (dims[1] * dims[2]), r / dims[2] % dims[1],
		            r % dims[2]};
		int nz = 0, far = 0;
		for (int i = 0; i < 3; i++) {
			int x = d[i] - c[i];
			far |= x < -1 || x > 1;
			nz += x != 0;
		}
		if (far || nz == 0)
			continue;
		uint64_t el = nz == 1   ? (uint64_t)n * n
		              : nz == 2 ? (uint64_t)n
		                        : 1;
		peer[k] = r;
		bytes[k++] = el * sizeof(double);
	}
	return k;
}

/* The slowest rank's time of one iteration. */
static double slowest(double t)
{
	double m;
	MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return m;
}

static void run_size(ccp_context *ctx, ccp_transport *t, int n, int iters,
                     const int *dims)
{
	int32_t peer[MAXN];
	uint64_t bytes[MAXN];
	int k = neighbours(dims, n, peer, bytes);
	ccp_inspect_options o = {.seed = 1, .ports = CCP_INSPECT_ALL_PORTS};
	ccp_inspect_result res;
	ccp_plan *plan;
	int rc = ccp_inspect(ctx, t, peer, bytes, (size_t)k, &o, &plan, &res);
	if (rc)
		die("ccp_inspect", rc, ctx);
	uint8_t *s = malloc(res.send_bytes + 1),
	        *r = malloc(res.recv_bytes + 1);
	for (uint64_t i = 0; i < res.send_bytes; i++)
		s[i] = (uint8_t)(me * 31 + i * 7);
	if ((rc = ccp_plan_bind(plan, s, res.send_bytes, r, res.recv_bytes,
	                        NULL, 0)))
		die("bind", rc, ctx);
	/* MPI's views of the same layout */
	int sc[MAXN], sd[MAXN], rcn[MAXN], rd[MAXN], src[MAXN];
	int *acnt = calloc((size_t)np * 4, sizeof *acnt);
	for (size_t i = 0; i < res.nsend; i++) {
		sc[i] = (int)res.send_len[i];
		sd[i] = (int)res.send_off[i];
		acnt[res.send_peer[i]] = sc[i];
		acnt[np + res.send_peer[i]] = sd[i];
	}
	for (size_t i = 0; i < res.nrecv; i++) {
		rcn[i] = (int)res.recv_len[i];
		rd[i] = (int)res.recv_off[i];
		src[i] = res.recv_peer[i];
		acnt[2 * np + res.recv_peer[i]] = rcn[i];
		acnt[3 * np + res.recv_peer[i]] = rd[i];
	}
	MPI_Comm g;
	int ones[MAXN]; /* weights (MPI_UNWEIGHTED trips GCC's overread check)
	                 */
	for (int i = 0; i < MAXN; i++)
		ones[i] = 1;
	if (MPI_Dist_graph_create_adjacent(
	            MPI_COMM_WORLD, (int)res.nrecv, src, ones, (int)res.nsend,
	            res.send_peer, ones, MPI_INFO_NULL, 0, &g) != MPI_SUCCESS)
		die("MPI_Dist_graph_create_adjacent", CCP_EPEER, NULL);
	uint8_t *r2 = malloc(res.recv_bytes + 1);
	/* check: ccplan's bytes are MPI's */
	unsigned fl = CCP_EXEC_NO_BARRIER;
	if ((rc = ccp_plan_execute(plan, t, fl)))
		die("execute", rc, ctx);
	MPI_Neighbor_alltoallv(s, sc, sd, MPI_BYTE, r2, rcn, rd, MPI_BYTE, g);
	int bad = memcmp(r, r2, res.recv_bytes) != 0, anybad;
	MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (anybad) {
		if (me == 0)
			fprintf(stderr,
			        "n=%d: ccplan's bytes differ from MPI's\n", n);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	fl |= CCP_EXEC_NO_CHECK;

	/* calibrate: the computation as long as ccp's exchange alone */
	double tx[64];
	for (int i = 0; i < 16; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = now();
		ccp_plan_execute(plan, t, fl);
		tx[i] = slowest(now() - t0);
	}
	qsort(tx, 16, sizeof *tx, cmp_double);
	double t0 = now();
	compute(200);
	double per = (now() - t0) / 200, per_max;
	MPI_Allreduce(&per, &per_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	long work = (long)(tx[8] / per_max + 0.5);
	if (work < CHUNKS)
		work = CHUNKS;
	long chunk = work / CHUNKS;
	work = chunk * CHUNKS;

	double *tm = calloc((size_t)NM * iters, sizeof *tm);
	for (int it = 0; it < iters + 2; it++) {
		for (int m = 0; m < NM; m++) {
			MPI_Request q;
			int done = 0;
			MPI_Barrier(MPI_COMM_WORLD);
			double a = now();
			switch (m) {
			case M_COMPUTE:
				compute(work);
				break;
			case M_CCP_X:
			case M_CCP_SER:
				rc = ccp_plan_execute(plan, t, fl);
				if (m == M_CCP_SER)
					compute(work);
				break;
			case M_CCP_NB:
				rc = ccp_plan_start(plan, t, fl);
				for (int c = 0; c < CHUNKS && !rc; c++) {
					compute(chunk);
					if (!done)
						rc = ccp_plan_test(plan, &done);
				}
				if (!rc && !done)
					rc = ccp_plan_wait(plan);
				break;
			case M_NBR_X:
			case M_NBR_NB:
				MPI_Ineighbor_alltoallv(s, sc, sd, MPI_BYTE, r2,
				                        rcn, rd, MPI_BYTE, g,
				                        &q);
				for (int c = 0; m == M_NBR_NB && c < CHUNKS;
				     c++) {
					compute(chunk);
					if (!done)
						MPI_Test(&q, &done,
						         MPI_STATUS_IGNORE);
				}
				if (!done)
					MPI_Wait(&q, MPI_STATUS_IGNORE);
				break;
			case M_A2A_X:
			case M_A2A_SER:
				MPI_Alltoallv(s, acnt, acnt + np, MPI_BYTE, r2,
				              acnt + 2 * np, acnt + 3 * np,
				              MPI_BYTE, MPI_COMM_WORLD);
				if (m == M_A2A_SER)
					compute(work);
				break;
			}
			if (rc)
				die(mname[m], rc, ctx);
			double e = slowest(now() - a);
			if (it >= 2) /* two warm-up rounds */
				tm[m * iters + it - 2] = e * 1e6;
		}
	}
	/* the check again, after the timed runs of start/test */
	bad = memcmp(r, r2, res.recv_bytes) != 0;
	MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (anybad) {
		if (me == 0)
			fprintf(stderr, "n=%d: bytes differ after the runs\n",
			        n);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	double med[NM], lo[NM], hi[NM];
	for (int m = 0; m < NM; m++) {
		double *x = tm + (size_t)m * iters;
		qsort(x, (size_t)iters, sizeof *x, cmp_double);
		med[m] = x[iters / 2];
		lo[m] = x[0];
		hi[m] = x[iters - 1];
	}
	if (me == 0) {
		uint64_t face = (uint64_t)n * n * sizeof(double);
		printf("\nn=%d (face %llu B, %llu B sent by rank 0 to %d "
		       "peers, "
		       "%u phase%s), %d iterations, us, slowest rank\n",
		       n, (unsigned long long)face,
		       (unsigned long long)res.send_bytes, k, res.nphases,
		       res.nphases == 1 ? "" : "s", iters);
		printf("  %-18s %10s %21s %10s %10s %7s\n", "method", "median",
		       "range", "no-overlap", "bound", "x bound");
		for (int m = 0; m < NM; m++) {
			int x = m == M_CCP_NB || m == M_CCP_SER ? M_CCP_X
			        : m == M_NBR_NB                 ? M_NBR_X
			        : m == M_A2A_SER                ? M_A2A_X
			                                        : -1;
			char serial[16] = "", bound[16] = "", ratio[16] = "";
			if (x >= 0) {
				double b = med[x] > med[M_COMPUTE]
				                   ? med[x]
				                   : med[M_COMPUTE];
				snprintf(serial, sizeof serial, "%.0f",
				         med[x] + med[M_COMPUTE]);
				snprintf(bound, sizeof bound, "%.0f", b);
				snprintf(ratio, sizeof ratio, "%.2f",
				         med[m] / b);
			}
			char range[32];
			snprintf(range, sizeof range, "%.0f-%.0f", lo[m],
			         hi[m]);
			printf("  %-18s %10.0f %21s %10s %10s %7s\n", mname[m],
			       med[m], range, serial, bound, ratio);
		}
		fflush(stdout);
	}
	free(tm);
	free(r2);
	free(acnt);
	MPI_Comm_free(&g);
	ccp_plan_free(plan);
	ccp_inspect_result_fini(&res);
	free(s);
	free(r);
}

int main(int argc, char **argv)
{
	int sizes[16] = {4, 16, 64}, nsizes = 3, iters = 30;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	static const char usage[] =
	        "usage: mpirun -n N ccplan-overlap [--sizes N,N,...] "
	        "[--iters N]\n\n"
	        "A 3D halo exchange overlapped with computation: ccplan's\n"
	        "ccp_plan_start/test/wait against MPI_Ineighbor_alltoallv\n"
	        "(docs/bench-mpi.md, \"Overlap\").\n\n"
	        "  --sizes N,N,...  edges of each rank's cube of doubles: a "
	        "face sends N*N,\n"
	        "                   an edge N, a corner 1 (default 4,16,64; "
	        "at most 16 sizes)\n"
	        "  --iters N        timed iterations per size (default 30)\n";
	const char *bad = NULL;
	for (int i = 1; i < argc && !bad; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			if (me == 0)
				fputs(usage, stdout);
			MPI_Finalize();
			return 0;
		} else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || v < 1 || v > 1000000)
				bad = "--iters takes a count from 1 to 1000000";
			iters = (int)v;
		} else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
			nsizes = 0;
			for (char *p = argv[++i]; *p && !bad;) {
				long v = strtol(p, &p, 10);
				if (v < 1 || v > 4096 || nsizes == 16 ||
				    (*p && *p != ','))
					bad = "--sizes takes 1 to 16 edges from 1 "
					      "to 4096, separated by commas";
				else
					sizes[nsizes++] = (int)v;
				if (*p == ',')
					p++;
			}
			if (nsizes == 0 && !bad)
				bad = "--sizes takes 1 to 16 edges";
		} else {
			bad = "unknown option";
		}
	}
	if (bad) {
		if (me == 0)
			fprintf(stderr, "ccplan-overlap: %s\n%s", bad, usage);
		MPI_Finalize();
		return 2;
	}
	int dims[3] = {0, 0, 0};
	MPI_Dims_create(np, 3, dims);
	ccp_context *ctx;
	ccp_transport *t;
	int rc = ccp_init(&ctx, NULL, NULL);
	if (rc || (rc = ccp_mpi_transport(ctx, MPI_COMM_WORLD, &t)))
		die("transport", rc, NULL);
	if (me == 0)
		printf("ccplan-overlap: %d ranks, grid %dx%dx%d, 26-neighbour "
		       "halo of n x n x n doubles per rank; computation = "
		       "ccp's exchange time, in %d chunks\n",
		       np, dims[0], dims[1], dims[2], CHUNKS);
	for (int i = 0; i < nsizes; i++)
		run_size(ctx, t, sizes[i], iters, dims);
	ccp_transport_free(t);
	ccp_fini(ctx);
	MPI_Finalize();
	return 0;
}
