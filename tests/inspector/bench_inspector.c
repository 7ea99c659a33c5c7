/*
 * bench_inspector.c - what one rank's inspector costs at sizes a small
 * machine cannot run as processes: one process plays rank 0 of n, over a
 * stand-in transport that answers the allgather's receives from a pattern
 * it knows whole, and agrees with itself.  So the times are rank 0's own
 * work (gather bookkeeping, key, cache, scheduling, lowering, encoding,
 * loading), without any network.
 *
 *     bench_inspector [-a ALGORITHM] [N ...]   (default link_aware;
 *                                              256 1024 4096; degree 8)
 *     bench_inspector -r [N ...]               (default 256 1024 4096)
 *
 * For each n it times ccp_inspect with no cache, with a new cache file
 * (a miss and a store, the file created), with an existing cache that
 * lacks the key (another seed each time: a miss and a store), and with
 * the plan cached (a hit), each REPS times (medians printed).
 *
 * With -r it measures reorder (docs/inspector.md, "Reordering"): a 2D
 * five-point stencil whose parts were numbered at random, on an all-port
 * mesh of the same shape (n a square), inspected without a cache as
 * numbered and reordered: the bound and phases of both, and the time of
 * the placement and of the whole call (medians of REPS).
 *
 * The stand-in knows the inspector's allgather: the message counts (8
 * bytes each) in phases 0.., then the rows (12 bytes a message: dst,
 * bytes, little-endian) in phases 64..; rank 0's receive of round k
 * (phase 2k) holds the blocks of ranks 2^k .. 2^k+cnt-1.  If the
 * inspector's wire format changes, this file must follow.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache_files.h"
#include "ccplan_inspector.h"
#include "matrix.h"
#include "transport.h"

struct fake {
	struct ccp_transport base; /* rank 0 of n */
	uint8_t *counts;           /* every row's length, 8 bytes LE */
	uint8_t *rows;             /* every row, 12 bytes a message */
	uint64_t *roff;            /* n+1 offsets of the rows in rows */
	int nreq;                  /* requests posted */
};

static void put_le(uint8_t *p, uint64_t v, int k)
{
	for (int i = 0; i < k; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int f_agree(ccp_transport *t, uint64_t hash, int status, int *global)
{
	(void)t;
	(void)hash;
	*global = status;
	return 0;
}

static int f_barrier(ccp_transport *t)
{
	(void)t;
	return 0;
}

static int f_irecv(ccp_transport *t, int32_t peer, uint32_t phase,
                   enum ccp_tag_kind kind, void *buf, size_t len)
{
	struct fake *f = (struct fake *)t;
	(void)peer;
	(void)kind;
	int rows = phase >= 64;
	uint32_t round = (rows ? phase - 64 : phase) / 2;
	int64_t first = (int64_t)1 << round; /* rank 0 never wraps */
	const uint8_t *src =
	        rows ? f->rows + f->roff[first] : f->counts + 8 * first;
	memcpy(buf, src, len);
	return f->nreq++;
}

static int f_isend(ccp_transport *t, int32_t peer, uint32_t phase,
                   enum ccp_tag_kind kind, const void *buf, size_t len)
{
	(void)peer;
	(void)phase;
	(void)kind;
	(void)buf;
	(void)len;
	return ((struct fake *)t)->nreq++;
}

static int f_wait(ccp_transport *t, int first, int count)
{
	(void)t;
	(void)first;
	(void)count;
	return 0;
}

static int f_waitall(ccp_transport *t)
{
	((struct fake *)t)->nreq = 0;
	return 0;
}

static void f_destroy(ccp_transport *t)
{
	(void)t;
}

static const struct ccp_transport_ops fake_ops = {
        .name = "stand-in",
        .agree = f_agree,
        .barrier = f_barrier,
        .irecv = f_irecv,
        .isend = f_isend,
        .wait = f_wait,
        .waitall = f_waitall,
        .destroy = f_destroy,
};

#define REPS 5          /* runs of each case */
#define M    (REPS / 2) /* the median's index */

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static const char *algorithm; /* -a, NULL: the default */

/* A w x w five-point stencil, 4 KiB a message, whose parts were numbered
 * at random (seeded): part v sits at cell at[v] of the grid. */
static ir_matrix *scrambled_stencil(int32_t w)
{
	int32_t n = w * w, *at = malloc((size_t)n * sizeof *at),
	        *who = malloc((size_t)n * sizeof *who);
	struct ir_edge *e = malloc((size_t)n * 4 * sizeof *e);
	ir_matrix *x = NULL;
	size_t ne = 0, bad;
	uint64_t s = 7;
	if (!at || !who || !e)
		goto out;
	for (int32_t i = 0; i < n; i++)
		at[i] = i;
	for (int32_t i = n; i > 1; i--) {
		s = s * 6364136223846793005u + 1442695040888963407u;
		int32_t j = (int32_t)((s >> 33) % (uint64_t)i), t = at[i - 1];
		at[i - 1] = at[j];
		at[j] = t;
	}
	for (int32_t v = 0; v < n; v++)
		who[at[v]] = v;
	for (int32_t v = 0; v < n; v++) {
		int32_t cx = at[v] % w, cy = at[v] / w;
		static const int d[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
		for (int k = 0; k < 4; k++) {
			int32_t X = cx + d[k][0], Y = cy + d[k][1];
			if (X < 0 || X >= w || Y < 0 || Y >= w)
				continue;
			e[ne] = (struct ir_edge){v, who[X + w * Y], 4096,
			                         (uint64_t)ne};
			ne++;
		}
	}
	if (ir_matrix_from_edges(n, e, ne, &x, &bad) != 0)
		x = NULL;
out:
	free(at);
	free(who);
	free(e);
	return x;
}

/* The four cache cases (no cache, a new file, a miss, a hit), each REPS
 * times, on the pattern x that f answers; one line each. */
static int bench_cache(ccp_context *ctx, struct fake *f, const ir_matrix *x,
                       const int32_t *dst, const uint64_t *len, size_t cnt)
{
	int32_t n = x->n;
	/* a directory of its own: a cache right in /tmp, where anyone can
	 * make files, is refused (docs/cache.md) */
	char dir[] = "/tmp/bench_inspector_XXXXXX", path[64];
	if (!mkdtemp(dir)) {
		perror("bench_inspector: mkdtemp");
		return 1;
	}
	snprintf(path, sizeof path, "%s/plans.db", dir);
	const char *label[] = {"no cache", "new file", "miss", "hit"};
	int rc = 0;
	for (int mode = 0; mode < 4 && rc == 0; mode++) {
		double v[7][REPS];
		ccp_inspect_result res;
		memset(&res, 0, sizeof res);
		for (int rep = 0; rep < REPS && rc == 0; rep++) {
			if (mode == 1)
				remove_cache(path);
			/* one port, as docs/inspector.md's table: a
			 * schedule of Delta phases to make (every port
			 * gives one phase, and little to time) */
			ccp_inspect_options o = {
			        .algorithm = algorithm,
			        .seed = mode == 2 ? 100 + rep : 1,
			        .cache_path = mode ? path : NULL,
			        .ports = 1};
			ccp_plan *plan = NULL;
			ccp_inspect_result_fini(&res);
			rc = ccp_inspect(ctx, &f->base, dst, len, cnt, &o,
			                 &plan, &res);
			if (rc) {
				fprintf(stderr, "bench_inspector: %s\n",
				        ccp_errmsg(ctx));
				break;
			}
			if (res.cache_hit != (mode == 3)) {
				fprintf(stderr,
				        "bench_inspector: n=%d %s: hit "
				        "%d\n",
				        (int)n, label[mode], res.cache_hit);
				rc = 1;
			}
			double t[7] = {res.t_gather,          res.t_lookup,
			               res.t_schedule,        res.t_load,
			               res.t_store,           res.t_total,
			               (double)res.plan_bytes};
			for (int j = 0; j < 7; j++)
				v[j][rep] = t[j];
			ccp_plan_free(plan);
		}
		if (rc == 0) {
			for (int j = 0; j < 7; j++)
				qsort(v[j], REPS, sizeof(double), by_double);
			printf("%6d %7lld %-9s %8.2f %8.2f %9.2f %7.2f %7.2f "
			       "%8.2f  %4u  %.1f MiB\n",
			       (int)n, (long long)x->nnz, label[mode],
			       v[0][M] * 1e3, v[1][M] * 1e3, v[2][M] * 1e3,
			       v[3][M] * 1e3, v[4][M] * 1e3, v[5][M] * 1e3,
			       res.nphases, v[6][M] / 1048576.0);
		}
		ccp_inspect_result_fini(&res);
	}
	remove_cache(path);
	rmdir(dir);
	return rc;
}

/* -r: reorder on a randomly numbered stencil (n a square). */
static int bench_reorder(ccp_context *ctx, struct fake *f, const ir_matrix *x,
                         const int32_t *dst, const uint64_t *len, size_t cnt)
{
	int32_t n = x->n, w = (int32_t)lround(sqrt((double)n));
	ccp_machine *mesh = NULL;
	int rc = ccp_machine_grid(ctx, "mesh", 2, (const int[]){w, w},
	                          CCP_MACHINE_ALL_PORTS, &mesh);
	for (int re = 0; re < 2 && rc == 0; re++) {
		double place[REPS], total[REPS];
		ccp_inspect_result res;
		memset(&res, 0, sizeof res);
		for (int rep = 0; rep < REPS && rc == 0; rep++) {
			ccp_inspect_options o = {
			        .seed = 1, .machine = mesh, .reorder = re};
			ccp_plan *plan = NULL;
			ccp_inspect_result_fini(&res);
			rc = ccp_inspect(ctx, &f->base, dst, len, cnt, &o,
			                 &plan, &res);
			if (rc)
				fprintf(stderr, "bench_inspector: %s\n",
				        ccp_errmsg(ctx));
			place[rep] = res.t_place;
			total[rep] = res.t_total;
			ccp_plan_free(plan);
		}
		if (rc == 0) {
			qsort(place, REPS, sizeof(double), by_double);
			qsort(total, REPS, sizeof(double), by_double);
			printf("%6d %7lld %-9s %5u %6u %9.2f %9.2f\n", (int)n,
			       (long long)x->nnz, re ? "reordered" : "numbered",
			       res.lb_phases, res.nphases, place[M] * 1e3,
			       total[M] * 1e3);
		}
		ccp_inspect_result_fini(&res);
	}
	ccp_machine_free(mesh);
	return rc;
}

static int bench(ccp_context *ctx, int32_t n, int32_t degree, bool reorder)
{
	ir_matrix *x =
	        reorder ? scrambled_stencil((int32_t)lround(sqrt((double)n)))
	                : ir_matrix_regular(n, degree, 4096, 42);
	if (!x)
		return 1;
	n = x->n;
	struct fake f;
	memset(&f, 0, sizeof f);
	f.base.ops = &fake_ops;
	f.base.ctx = ctx;
	f.base.rank = 0;
	f.base.size = n;
	f.counts = calloc((size_t)n, 8);
	f.rows = malloc((size_t)x->nnz * 12 + 1);
	f.roff = calloc((size_t)n + 1, sizeof *f.roff);
	for (int32_t s = 0; s < n; s++) {
		put_le(f.counts + 8 * s, (uint64_t)(x->row[s + 1] - x->row[s]),
		       8);
		f.roff[s + 1] = (uint64_t)x->row[s + 1] * 12;
		for (int64_t k = x->row[s]; k < x->row[s + 1]; k++) {
			put_le(f.rows + 12 * k, (uint64_t)x->dst[k], 4);
			put_le(f.rows + 12 * k + 4, (uint64_t)x->bytes[k], 8);
		}
	}
	size_t cnt = (size_t)(x->row[1] - x->row[0]);
	int32_t *dst = malloc(cnt * sizeof *dst + 1);
	uint64_t *len = malloc(cnt * sizeof *len + 1);
	for (size_t i = 0; i < cnt; i++) {
		dst[i] = x->dst[i];
		len[i] = (uint64_t)x->bytes[i];
	}
	int rc = reorder ? bench_reorder(ctx, &f, x, dst, len, cnt)
	                 : bench_cache(ctx, &f, x, dst, len, cnt);
	free(dst);
	free(len);
	free(f.counts);
	free(f.rows);
	free(f.roff);
	ir_matrix_free(x);
	return rc;
}

int main(int argc, char **argv)
{
	ccp_context *ctx;
	if (ccp_init(&ctx, NULL, NULL))
		return 3;
	int rc = 0, i = 1;
	bool reorder = argc > 1 && strcmp(argv[1], "-r") == 0;
	if (reorder)
		printf("%6s %7s %-9s %5s %6s %9s %9s\n", "ranks", "msgs",
		       "order", "bound", "phases", "place",
		       "total (ms; "
		       "median of 5; rank 0; link_aware, no cache)");
	else
		printf("%6s %7s %-9s %8s %8s %9s %7s %7s %8s  %4s  %s\n",
		       "ranks", "msgs", "cache", "gather", "lookup", "schedule",
		       "load", "store", "total", "phs",
		       "plan (ms; median of 5; rank 0)");
	if (reorder)
		i = 2;
	else if (argc > 2 && strcmp(argv[1], "-a") == 0) {
		algorithm = argv[2];
		i = 3;
	}
	if (argc > i)
		for (; i < argc && rc == 0; i++)
			rc = bench(ctx, (int32_t)atoi(argv[i]), 8, reorder);
	else
		for (int32_t n = 256; n <= 4096 && rc == 0; n *= 4)
			rc = bench(ctx, n, 8, reorder);
	ccp_fini(ctx);
	return rc;
}
