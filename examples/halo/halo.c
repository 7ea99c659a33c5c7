/*
 * halo.c - a sparse halo exchange on an irregular mesh, with the ccplan
 * inspector and executor (include/ccplan_inspector.h).  Run with mpirun;
 * examples/halo/README.md says how to build and run it.
 *
 * The mesh is a random geometric graph: P points in the unit square,
 * joined when closer than r (about 6 neighbours each).  Recursive
 * coordinate bisection cuts it into one part per rank.  Each rank owns its
 * part's values and needs, as ghosts, the values of the vertices of other
 * parts adjacent to its own; so it exchanges boundary values with its few
 * neighbour parts, in messages of different sizes.  Every rank builds the
 * whole mesh from the seed (an application would know only its part).
 *
 * The program inspects the pattern once (a plan from the cache when an
 * earlier run stored it), then runs Jacobi sweeps x <- mean of x over each
 * vertex and its neighbours; each sweep is one execution of the plan.
 * Every received byte is compared with MPI_Alltoallv on the same send
 * buffer, and at the end rank 0 recomputes every sweep sequentially and
 * compares the result bit for bit.  --bench times the inspector (cold and
 * cached) and the executor against MPI_Alltoallv instead.
 */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "ccplan_inspector.h"
#include "ccplan_mpi.h"

/* The command line. */
struct args {
	long points;           /* vertices of the mesh */
	int iters;             /* Jacobi sweeps (executions) */
	int dof;               /* doubles per vertex in a message */
	uint64_t seed;         /* mesh and scheduler seed */
	const char *cache;     /* plan cache file; "" for none */
	const char *algorithm; /* scheduler, NULL for the default */
	int ports;             /* ports of the switch the plan is made for */
	int expect_hit;        /* -1: no expectation, 0 or 1 */
	bool bench;            /* time instead of checking */
};

static int rank, nparts;

#define PI 3.14159265358979323846

/* ---- the mesh --------------------------------------------------------- */

struct mesh {
	long n;        /* vertices */
	double *x, *y; /* coordinates */
	long *adj_row; /* n+1 offsets into adj */
	long *adj;     /* neighbours, ascending in each row */
	int *part;     /* owning rank of each vertex */
};

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static const struct mesh *sort_mesh; /* for the comparators */
static int sort_axis;

static int by_coord(const void *a, const void *b)
{
	long u = *(const long *)a, v = *(const long *)b;
	const double *c = sort_axis ? sort_mesh->y : sort_mesh->x;
	if (c[u] != c[v])
		return c[u] < c[v] ? -1 : 1;
	return (u > v) - (u < v);
}

static int by_long(const void *a, const void *b)
{
	long u = *(const long *)a, v = *(const long *)b;
	return (u > v) - (u < v);
}

/* Recursive coordinate bisection of ids[0..cnt) into parts first ..
 * first+parts-1, cut across the longer side, sizes in proportion. */
static void bisect(struct mesh *m, long *ids, long cnt, int first, int parts)
{
	if (parts == 1) {
		for (long i = 0; i < cnt; i++)
			m->part[ids[i]] = first;
		return;
	}
	double x0 = 1, x1 = 0, y0 = 1, y1 = 0;
	for (long i = 0; i < cnt; i++) {
		x0 = fmin(x0, m->x[ids[i]]);
		x1 = fmax(x1, m->x[ids[i]]);
		y0 = fmin(y0, m->y[ids[i]]);
		y1 = fmax(y1, m->y[ids[i]]);
	}
	sort_mesh = m;
	sort_axis = y1 - y0 > x1 - x0;
	qsort(ids, (size_t)cnt, sizeof *ids, by_coord);
	int left = parts / 2;
	long cut = cnt * left / parts;
	bisect(m, ids, cut, first, left);
	bisect(m, ids + cut, cnt - cut, first + left, parts - left);
}

/* The random geometric graph of n points, radius for ~6 neighbours. */
static int mesh_make(struct mesh *m, long n, uint64_t seed, int parts)
{
	memset(m, 0, sizeof *m);
	m->n = n;
	m->x = malloc((size_t)n * sizeof *m->x);
	m->y = malloc((size_t)n * sizeof *m->y);
	m->part = malloc((size_t)n * sizeof *m->part);
	m->adj_row = calloc((size_t)n + 1, sizeof *m->adj_row);
	long *ids = malloc((size_t)n * sizeof *ids);
	double r = sqrt(6.0 / (PI * (double)n));
	long g = (long)(1.0 / r);
	if (g < 1)
		g = 1;
	long *cell_row = calloc((size_t)(g * g + 1), sizeof *cell_row);
	long *cell = malloc((size_t)n * sizeof *cell);
	if (!m->x || !m->y || !m->part || !m->adj_row || !ids || !cell_row ||
	    !cell)
		return -1;
	for (long i = 0; i < n; i++) {
		m->x[i] = (double)(next(&seed) >> 11) * 0x1p-53;
		m->y[i] = (double)(next(&seed) >> 11) * 0x1p-53;
	}
	/* bucket the points in g x g cells of side >= r */
#define CELL(i) ((long)(m->x[i] * (double)g) + g * (long)(m->y[i] * (double)g))
	for (long i = 0; i < n; i++)
		cell_row[CELL(i) + 1]++;
	for (long c = 0; c < g * g; c++)
		cell_row[c + 1] += cell_row[c];
	long *fill = malloc((size_t)(g * g) * sizeof *fill);
	if (!fill)
		return -1;
	memcpy(fill, cell_row, (size_t)(g * g) * sizeof *fill);
	for (long i = 0; i < n; i++)
		cell[fill[CELL(i)]++] = i;
	/* two passes over the neighbourhoods: count, then fill */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			for (long i = 0; i < n; i++)
				m->adj_row[i + 1] += m->adj_row[i];
			m->adj = malloc((size_t)m->adj_row[n] * sizeof *m->adj +
			                1);
			if (!m->adj)
				return -1;
		}
		for (long i = 0; i < n; i++) {
			long cx = (long)(m->x[i] * (double)g),
			     cy = (long)(m->y[i] * (double)g), k = 0;
			for (long dy = -1; dy <= 1; dy++)
				for (long dx = -1; dx <= 1; dx++) {
					long X = cx + dx, Y = cy + dy;
					if (X < 0 || Y < 0 || X >= g || Y >= g)
						continue;
					long c = X + g * Y;
					for (long q = cell_row[c];
					     q < cell_row[c + 1]; q++) {
						long j = cell[q];
						double ex = m->x[i] - m->x[j],
						       ey = m->y[i] - m->y[j];
						if (j == i ||
						    ex * ex + ey * ey >= r * r)
							continue;
						if (pass == 0)
							m->adj_row[i + 1]++;
						else
							m->adj[m->adj_row[i] +
							       k++] = j;
					}
				}
			if (pass == 1)
				qsort(m->adj + m->adj_row[i], (size_t)k,
				      sizeof *m->adj, by_long);
		}
	}
#undef CELL
	for (long i = 0; i < n; i++)
		ids[i] = i;
	bisect(m, ids, n, 0, parts);
	free(ids);
	free(cell_row);
	free(cell);
	free(fill);
	return 0;
}

static void mesh_free(struct mesh *m)
{
	free(m->x);
	free(m->y);
	free(m->adj_row);
	free(m->adj);
	free(m->part);
}

/* ---- this rank's halo --------------------------------------------------- */

/* (part, vertex) pairs, sorted: who gets which value. */
struct pv {
	int part;
	long v;
};

static int by_pv(const void *a, const void *b)
{
	const struct pv *p = a, *q = b;
	if (p->part != q->part)
		return (p->part > q->part) - (p->part < q->part);
	return (p->v > q->v) - (p->v < q->v);
}

/* Deduplicated, sorted pairs. */
static size_t pv_unique(struct pv *a, size_t n)
{
	qsort(a, n, sizeof *a, by_pv);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (k == 0 || by_pv(&a[k - 1], &a[i]) != 0)
			a[k++] = a[i];
	return k;
}

struct halo {
	long nown;       /* vertices this rank owns */
	long *own;       /* them, ascending */
	long *where;     /* per vertex: index in own (>= 0), or -1 - index
	                    of its ghost in the receive buffer, or LONG_MIN */
	struct pv *send; /* (destination part, owned vertex), sorted */
	size_t nsend;
	struct pv *recv; /* (source part, ghost vertex), sorted */
	size_t nrecv;
	int32_t *dst;    /* the inspector's input: destinations */
	uint64_t *bytes; /* and message sizes */
	size_t count;    /* messages */
	int *scount, *sdispl, *rcount, *rdispl; /* MPI_Alltoallv's view */
};

static int halo_make(struct halo *h, const struct mesh *m, int dof)
{
	memset(h, 0, sizeof *h);
	size_t cap = 0;
	for (long v = 0; v < m->n; v++)
		if (m->part[v] == rank) {
			h->nown++;
			cap += (size_t)(m->adj_row[v + 1] - m->adj_row[v]);
		}
	h->own = malloc((size_t)h->nown * sizeof *h->own + 1);
	h->where = malloc((size_t)m->n * sizeof *h->where);
	h->send = malloc(cap * sizeof *h->send + 1);
	h->recv = malloc(cap * sizeof *h->recv + 1);
	h->dst = malloc((size_t)nparts * sizeof *h->dst);
	h->bytes = calloc((size_t)nparts, sizeof *h->bytes);
	h->scount = calloc((size_t)nparts, sizeof(int));
	h->sdispl = calloc((size_t)nparts, sizeof(int));
	h->rcount = calloc((size_t)nparts, sizeof(int));
	h->rdispl = calloc((size_t)nparts, sizeof(int));
	if (!h->own || !h->where || !h->send || !h->recv || !h->dst ||
	    !h->bytes || !h->scount || !h->sdispl || !h->rcount || !h->rdispl)
		return -1;
	long k = 0;
	for (long v = 0; v < m->n; v++) {
		h->where[v] = LONG_MIN;
		if (m->part[v] == rank) {
			h->where[v] = k;
			h->own[k++] = v;
		}
	}
	for (long i = 0; i < h->nown; i++) {
		long u = h->own[i];
		for (long e = m->adj_row[u]; e < m->adj_row[u + 1]; e++) {
			long v = m->adj[e];
			if (m->part[v] == rank)
				continue;
			h->send[h->nsend++] = (struct pv){m->part[v], u};
			h->recv[h->nrecv++] = (struct pv){m->part[v], v};
		}
	}
	h->nsend = pv_unique(h->send, h->nsend);
	h->nrecv = pv_unique(h->recv, h->nrecv);
	for (size_t i = 0; i < h->nrecv; i++)
		h->where[h->recv[i].v] = -1 - (long)i;
	/* one message per neighbour part; the list handed to the inspector
	 * goes in descending order, to show that any order will do */
	int sz = (int)sizeof(double) * dof;
	for (size_t i = 0; i < h->nsend; i++)
		h->scount[h->send[i].part] += sz;
	for (size_t i = 0; i < h->nrecv; i++)
		h->rcount[h->recv[i].part] += sz;
	for (int q = nparts - 1; q >= 0; q--)
		if (h->scount[q]) {
			h->dst[h->count] = q;
			h->bytes[h->count++] = (uint64_t)h->scount[q];
		}
	for (int q = 1; q < nparts; q++) {
		h->sdispl[q] = h->sdispl[q - 1] + h->scount[q - 1];
		h->rdispl[q] = h->rdispl[q - 1] + h->rcount[q - 1];
	}
	return 0;
}

static void halo_free(struct halo *h)
{
	free(h->own);
	free(h->where);
	free(h->send);
	free(h->recv);
	free(h->dst);
	free(h->bytes);
	free(h->scount);
	free(h->sdispl);
	free(h->rcount);
	free(h->rdispl);
}

/* ---- the sweep ------------------------------------------------------- */

static double initial(const struct mesh *m, long v)
{
	return (double)(v % 97) * 0.5 + m->x[v] - 2 * m->y[v];
}

/* One Jacobi sweep at vertex u: the mean over u and its neighbours, in
 * the order of the adjacency list.  get(v) is the value of v. */
#define SWEEP(m, u, get, out)                                                  \
	do {                                                                   \
		double s_ = get(u);                                            \
		for (long e_ = (m)->adj_row[u]; e_ < (m)->adj_row[(u) + 1];    \
		     e_++)                                                     \
			s_ += get((m)->adj[e_]);                               \
		(out) = s_ /                                                   \
		        (double)(1 + (m)->adj_row[(u) + 1] - (m)->adj_row[u]); \
	} while (0)

/* Pack the values of the boundary vertices into the send buffer: the
 * message to part q at the offset the inspector gives, its vertices in
 * ascending order, dof copies each (the first the value, then value+j). */
static void pack(const struct halo *h, const ccp_inspect_result *res,
                 const double *x, int dof, double *send)
{
	size_t i = 0;
	while (i < h->nsend) {
		uint64_t off = 0;
		ccp_inspect_offset(res, CCP_INSPECT_SEND, h->send[i].part, &off,
		                   NULL);
		double *p = send + off / sizeof(double);
		int q = h->send[i].part;
		for (; i < h->nsend && h->send[i].part == q; i++)
			for (int j = 0; j < dof; j++)
				*p++ = x[h->where[h->send[i].v]] + j;
	}
}

/* ---- main ----------------------------------------------------------- */

static void usage(void)
{
	if (rank == 0)
		fprintf(stderr,
		        "usage: mpirun -n N halo [--points P] [--iters K] "
		        "[--dof D] [--seed S]\n"
		        "       [--cache FILE | --no-cache] [--algorithm A] "
		        "[--ports all|K]\n"
		        "       [--expect-hit yes|no] [--bench]\n");
}

static int parse(int argc, char **argv, struct args *a)
{
	*a = (struct args){.points = 20000,
	                   .iters = 10,
	                   .dof = 1,
	                   .seed = 1,
	                   .cache = "halo-plans.db",
	                   .ports = 0,
	                   .expect_hit = -1};
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(o, "--bench")) {
			a->bench = true;
			continue;
		}
		if (!strcmp(o, "--no-cache")) {
			a->cache = "";
			continue;
		}
		if (!v)
			return -1;
		i++;
		if (!strcmp(o, "--points"))
			a->points = atol(v);
		else if (!strcmp(o, "--iters"))
			a->iters = atoi(v);
		else if (!strcmp(o, "--dof"))
			a->dof = atoi(v);
		else if (!strcmp(o, "--seed"))
			a->seed = strtoull(v, NULL, 10);
		else if (!strcmp(o, "--cache"))
			a->cache = v;
		else if (!strcmp(o, "--algorithm"))
			a->algorithm = v;
		else if (!strcmp(o, "--ports"))
			a->ports = !strcmp(v, "all") ? CCP_INSPECT_ALL_PORTS
			                             : atoi(v);
		else if (!strcmp(o, "--expect-hit"))
			a->expect_hit = !strcmp(v, "yes");
		else
			return -1;
	}
	return a->points >= nparts && a->iters >= 1 && a->dof >= 1 ? 0 : -1;
}

static double max_over_ranks(double v)
{
	double m;
	MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return m;
}

/* Run the inspector; print what it did on rank 0. */
static int inspect(ccp_context *ctx, ccp_transport *t, const struct halo *h,
                   const struct args *a, const char *cache, ccp_plan **plan,
                   ccp_inspect_result *res)
{
	ccp_inspect_options o = {.algorithm = a->algorithm,
	                         .seed = a->seed,
	                         .cache_path = cache[0] ? cache : NULL,
	                         .ports = a->ports};
	int e = ccp_inspect(ctx, t, h->dst, h->bytes, h->count, &o, plan, res);
	if (e && rank == 0)
		fprintf(stderr, "halo: inspector: %s: %s\n", ccp_strerror(e),
		        ccp_errmsg(ctx));
	return e;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Remove a cache file and its WAL companions (rank 0), then wait. */
static void remove_cache(const char *path)
{
	if (rank == 0) {
		char aux[4300];
		unlink(path);
		snprintf(aux, sizeof aux, "%s-wal", path);
		unlink(aux);
		snprintf(aux, sizeof aux, "%s-shm", path);
		unlink(aux);
	}
	MPI_Barrier(MPI_COMM_WORLD);
}

/* --bench: the inspector without a cache, with a new cache file (a miss
 * and a store), with an existing file that lacks the key (another
 * scheduler seed each time: a miss and a store), and with the plan
 * cached, each BENCH_REPS times (medians of the per-call maxima over
 * ranks); then the executor against MPI_Alltoallv. */
#define BENCH_REPS 5
static int bench(ccp_context *ctx, ccp_transport *t, const struct halo *h,
                 const struct args *a)
{
	char path[4200];
	snprintf(path, sizeof path, "%s.bench",
	         a->cache[0] ? a->cache : "halo-plans.db");
	remove_cache(path);
	const char *label[] = {"no cache", "new file", "miss", "hit"};
	const char *where[] = {"", path, path, path};
	struct args other = *a;
	ccp_plan *plan = NULL;
	ccp_inspect_result res;
	memset(&res, 0, sizeof res);
	if (rank == 0)
		printf("%-12s %9s %9s %9s %9s %9s %9s  (ms, median of %d, "
		       "each the max over ranks)\n",
		       "inspector", "gather", "lookup", "schedule", "load",
		       "store", "total", BENCH_REPS);
	for (int k = 0; k < 4; k++) {
		double v[6][BENCH_REPS];
		int hits = 0;
		for (int rep = 0; rep < BENCH_REPS; rep++) {
			if (k == 1)
				remove_cache(path);
			ccp_inspect_result_fini(&res);
			ccp_plan_free(plan);
			plan = NULL;
			other.seed = a->seed + 1000 + (uint64_t)rep;
			MPI_Barrier(MPI_COMM_WORLD);
			if (inspect(ctx, t, h, k == 2 ? &other : a, where[k],
			            &plan, &res))
				return 1;
			double x[6] = {res.t_gather,   res.t_lookup,
			               res.t_schedule, res.t_load,
			               res.t_store,    res.t_total};
			for (int j = 0; j < 6; j++)
				v[j][rep] = max_over_ranks(x[j]) * 1e3;
			hits += res.cache_hit;
		}
		for (int j = 0; j < 6; j++)
			qsort(v[j], BENCH_REPS, sizeof(double), by_double);
		if (rank == 0)
			printf("%-12s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f  "
			       "hits %d/%d\n",
			       label[k], v[0][BENCH_REPS / 2],
			       v[1][BENCH_REPS / 2], v[2][BENCH_REPS / 2],
			       v[3][BENCH_REPS / 2], v[4][BENCH_REPS / 2],
			       v[5][BENCH_REPS / 2], hits, BENCH_REPS);
	}
	int64_t tot = (int64_t)h->count, edges;
	MPI_Allreduce(&tot, &edges, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("pattern: %d ranks, %lld messages, %u phases (bound "
		       "%u), %s, plan %llu bytes\n",
		       nparts, (long long)edges, res.nphases, res.lb_phases,
		       res.algorithm, (unsigned long long)res.plan_bytes);

	/* the executor, against MPI_Alltoallv on the same buffers */
	double *send =
	        calloc(res.send_bytes / sizeof(double) + 1, sizeof(double));
	double *recv =
	        calloc(res.recv_bytes / sizeof(double) + 1, sizeof(double));
	ccp_plan_bind(plan, send, res.send_bytes, recv, res.recv_bytes, NULL,
	              0);
	const unsigned fl[] = {CCP_EXEC_S2, CCP_EXEC_S2 | CCP_EXEC_NO_BARRIER,
	                       CCP_EXEC_S1 | CCP_EXEC_NO_BARRIER};
	const char *fname[] = {"plan, S2", "plan, S2 no barrier",
	                       "plan, S1 no barrier"};
	int e = ccp_plan_execute(plan, t, 0); /* the agreement, once */
	int reps = a->iters;
	for (int k = 0; k < 4 && e == 0; k++) {
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		for (int i = 0; i < reps && e == 0; i++)
			if (k < 3)
				e = ccp_plan_execute(plan, t,
				                     fl[k] | CCP_EXEC_NO_CHECK);
			else
				MPI_Alltoallv(send, h->scount, h->sdispl,
				              MPI_BYTE, recv, h->rcount,
				              h->rdispl, MPI_BYTE,
				              MPI_COMM_WORLD);
		double us = max_over_ranks(MPI_Wtime() - t0) / reps * 1e6;
		if (rank == 0)
			printf("%-22s %10.1f us per exchange\n",
			       k < 3 ? fname[k] : "MPI_Alltoallv", us);
	}
	if (e && rank == 0)
		fprintf(stderr, "halo: execute: %s\n", ccp_strerror(e));
	free(send);
	free(recv);
	ccp_inspect_result_fini(&res);
	ccp_plan_free(plan);
	return e != 0;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nparts);
	struct args a;
	if (parse(argc, argv, &a)) {
		usage();
		MPI_Finalize();
		return 2;
	}
	ccp_context *ctx = NULL;
	ccp_transport *t = NULL;
	int e = ccp_init(&ctx, NULL, NULL);
	if (e == 0)
		e = ccp_mpi_transport(ctx, MPI_COMM_WORLD, &t);
	struct mesh m;
	struct halo h;
	if (e || mesh_make(&m, a.points, a.seed, nparts) ||
	    halo_make(&h, &m, a.dof)) {
		fprintf(stderr, "halo: rank %d: setup failed: %s\n", rank,
		        e ? ccp_strerror(e) : "out of memory");
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	if (a.bench) {
		int bad = bench(ctx, t, &h, &a);
		halo_free(&h);
		mesh_free(&m);
		ccp_transport_free(t);
		ccp_fini(ctx);
		MPI_Finalize();
		return bad;
	}

	/* inspect once */
	ccp_plan *plan = NULL;
	ccp_inspect_result res;
	if (inspect(ctx, t, &h, &a, a.cache, &plan, &res))
		MPI_Abort(MPI_COMM_WORLD, 1);
	double tins = max_over_ranks(res.t_total);
	int64_t cnt = (int64_t)h.count, msgs, maxdeg;
	MPI_Allreduce(&cnt, &msgs, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(&cnt, &maxdeg, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
	if (rank == 0) {
		char key[33];
		for (int i = 0; i < 16; i++)
			snprintf(key + 2 * i, 3, "%02x", res.key[i]);
		printf("halo: %ld points, %d parts, %lld messages (at most "
		       "%lld "
		       "per rank)\n",
		       a.points, nparts, (long long)msgs, (long long)maxdeg);
		printf("inspector: %s, %u phases (bound %u), plan %llu bytes, "
		       "%.1f ms\n",
		       res.algorithm, res.nphases, res.lb_phases,
		       (unsigned long long)res.plan_bytes, tins * 1e3);
		if (!a.cache[0])
			printf("cache: none (--no-cache)\n");
		else if (res.cache_hit)
			printf("cache: hit, the plan came from %s (key %s)\n",
			       a.cache, key);
		else
			printf("cache: miss, scheduled in %.1f ms%s (key %s)\n",
			       res.t_schedule * 1e3,
			       res.cache_stored ? " and stored" : "", key);
	}

	/* the executor, once per sweep */
	long nghost = (long)h.nrecv;
	double *x = malloc((size_t)h.nown * sizeof *x + 1);
	double *xn = malloc((size_t)h.nown * sizeof *xn + 1);
	double *send = malloc(res.send_bytes + 8);
	double *recv = malloc(res.recv_bytes + 8);
	uint8_t *ref = malloc(res.recv_bytes + 8);
	if (!x || !xn || !send || !recv || !ref)
		MPI_Abort(MPI_COMM_WORLD, 3);
	for (long i = 0; i < h.nown; i++)
		x[i] = initial(&m, h.own[i]);
	e = ccp_plan_bind(plan, send, res.send_bytes, recv, res.recv_bytes,
	                  NULL, 0);
	long bad = 0;
	for (int it = 0; it < a.iters && e == 0; it++) {
		pack(&h, &res, x, a.dof, send);
		e = ccp_plan_execute(plan, t,
		                     it ? CCP_EXEC_NO_CHECK : CCP_EXEC_DEFAULT);
		if (e)
			break;
		MPI_Alltoallv(send, h.scount, h.sdispl, MPI_BYTE, ref, h.rcount,
		              h.rdispl, MPI_BYTE, MPI_COMM_WORLD);
		if (memcmp(ref, recv, res.recv_bytes) != 0)
			bad++;
			/* the ghost of vertex v: its first copy in the message
			 * of its part */
#define VAL(v)                                                                 \
	(h.where[v] >= 0 ? x[h.where[v]] : recv[(-1 - h.where[v]) * a.dof])
		for (long i = 0; i < h.nown; i++)
			SWEEP(&m, h.own[i], VAL, xn[i]);
#undef VAL
		double *tmp = x;
		x = xn;
		xn = tmp;
	}
	(void)nghost;
	if (e)
		fprintf(stderr, "halo: rank %d: execute: %s: %s\n", rank,
		        ccp_strerror(e), ccp_errmsg(ctx));
	long allbad;
	MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);

	/* rank 0 repeats the sweeps alone and compares, bit for bit */
	int *counts = rank == 0 ? calloc((size_t)nparts, sizeof(int)) : NULL;
	int *displs = rank == 0 ? calloc((size_t)nparts, sizeof(int)) : NULL;
	double *all = rank == 0 ? malloc((size_t)a.points * sizeof *all) : NULL;
	int nown = (int)h.nown;
	MPI_Gather(&nown, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0)
		for (int q = 1; q < nparts; q++)
			displs[q] = displs[q - 1] + counts[q - 1];
	MPI_Gatherv(x, nown, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0,
	            MPI_COMM_WORLD);
	long wrong = 0;
	if (rank == 0) {
		double *s = malloc((size_t)a.points * sizeof *s);
		double *sn = malloc((size_t)a.points * sizeof *sn);
		for (long v = 0; v < a.points; v++)
			s[v] = initial(&m, v);
		for (int it = 0; it < a.iters; it++) {
#define VAL(v) s[v]
			for (long v = 0; v < a.points; v++)
				SWEEP(&m, v, VAL, sn[v]);
#undef VAL
			double *tmp = s;
			s = sn;
			sn = tmp;
		}
		/* all[] holds each part's vertices in ascending order */
		int *seen = calloc((size_t)nparts, sizeof *seen);
		for (long v = 0; v < a.points; v++) {
			int q = m.part[v];
			if (memcmp(&all[displs[q] + seen[q]++], &s[v],
			           sizeof(double)) != 0)
				wrong++;
		}
		free(seen);
		free(s);
		free(sn);
	}
	int ok = e == 0 && allbad == 0 && wrong == 0;
	int hit_ok = a.expect_hit < 0 || a.expect_hit == res.cache_hit;
	if (rank == 0) {
		printf("executor: %d sweeps; received bytes %s MPI_Alltoallv's "
		       "(%ld sweeps differ); %ld of %ld values differ from the "
		       "sequential sweeps\n",
		       a.iters, allbad ? "differ from" : "identical to", allbad,
		       wrong, a.points);
		if (!hit_ok)
			printf("halo: expected a cache %s\n",
			       a.expect_hit ? "hit" : "miss");
		printf("halo: %s\n", ok && hit_ok ? "OK" : "FAILED");
	}
	free(counts);
	free(displs);
	free(all);
	free(x);
	free(xn);
	free(send);
	free(recv);
	free(ref);
	ccp_inspect_result_fini(&res);
	ccp_plan_free(plan);
	halo_free(&h);
	mesh_free(&m);
	ccp_transport_free(t);
	ccp_fini(ctx);
	MPI_Finalize();
	return ok && hit_ok ? 0 : 1;
}
