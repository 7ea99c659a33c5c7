/*
 * bench_place.c - placement (schedules/place.c) against the identity and
 * against Scotch's scotch_gmap, on the same patterns and machines.
 *
 * For each pattern and target: the verifier's phase bound (its link
 * term in brackets), the phases link_aware needs on the placed machine
 * (the plan verified), the hops of every message, and the time to place
 * (median and range of REPS runs, wall clock and then CPU; Scotch's
 * includes writing its graph and reading its map, since that is what
 * using it costs, and its CPU that of the scotch_gmap process too).  Patterns:
 * 2D and 3D 5/7-point stencils with their ranks in a random order,
 * random regular patterns (the irregular benchmarks' ones), and the
 * example graphs of Debian's libmetis-doc cut by gpmetis into 64, 256
 * and 1,024 parts (and 4,096 with --large), part a sending part b 8
 * bytes per vertex of a next to
 * b, part i on rank i of a square one-port mesh (the issue's own
 * measurement; "not installed" without libmetis-doc and metis).
 * Targets: 2D and 3D meshes and tori, a tapered two-level fat tree, a
 * dragonfly.
 * Scotch is given the same graph (messages between two ranks as the
 * edge weight) and the matching target: mesh2D/torus2D/mesh3D/torus3D,
 * tleaf for the fat tree and for the dragonfly (groups, routers, hosts:
 * Scotch has no dragonfly target).  When scotch_gmap is not on PATH its
 * column says "not installed".
 * Beside them, "any >=": the phases no placement at all can go below
 * (tests/place_support.h, place_any_bound): the degree term, and a cut
 * of the machine against the pattern's Laplacian (Fiedler's bound on
 * the messages any k ranks exchange with the rest).
 * Usage: bench_place [REPS] [--only TEXT] [--large]
 *   --only TEXT  only the cases whose name contains TEXT
 *   --large      the METIS graphs in 4,096 parts too (64x64 mesh); there
 *                link_aware's plan is not built (it takes minutes), so
 *                those rows give the verifier's bound, with "-" for
 *                link_aware's phases
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../tests/place_support.h"
#include "bench.h"
#include "ir.h"
#include "irregular.h"
#include "matrix.h"
#include "place.h"
#include "rng.h"

static const char *only; /* --only: a case's name must contain it */
static int large;        /* --large: the 4,096-part METIS rows */
static int bound_only;   /* rows without link_aware's plan */

static int wanted(const char *name)
{
	return !only || strstr(name, only) != NULL;
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_place: %s: %s\n", what, ccp_strerror(rc));
	exit(3);
}

/* m checked (its defaults filled); the bench stops on a bad one. */
static ir_machine checked(ir_machine m)
{
	char err[256];
	if (ir_machine_check(&m, err, sizeof err) != 0) {
		fprintf(stderr, "bench_place: %s\n", err);
		exit(3);
	}
	return m;
}

/* A machine of topology t, routing r and ports per rank, costs unset,
 * the rest to fill. */
static ir_machine blank(enum ir_topo t, enum ir_routing r, int ports)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	ir_cost_unset(&m.cost);
	m.topo = t;
	m.routing = r;
	m.ports = ports;
	return m;
}

static ir_machine grid(enum ir_topo t, int nd, const int *dims)
{
	ir_machine m = blank(t, IR_ROUTE_DIM_ORDER, IR_PORTS_ALL);
	m.ndims = nd;
	for (int d = 0; d < IR_MAX_DIMS; d++)
		m.dims[d] = d < nd ? dims[d] : 1;
	return checked(m);
}

/* A square 2D mesh of one-port ranks, as the measurement had. */
static ir_machine mesh_one_port(int side)
{
	int d[2] = {side, side};
	ir_machine m = grid(IR_MESH, 2, d);
	m.ports = 1;
	return checked(m);
}

/* The pattern of a METIS graph partitioned by gpmetis into p parts:
 * part a sends part b 8 bytes per vertex of a with a neighbour in b.
 * NULL (said on stdout) when gpmetis or the graph is missing. */
static ir_matrix *metis_pattern(const char *graph, int32_t p)
{
	char dir[] = "/tmp/bench_place.XXXXXX", cmd[1024], path[512];
	FILE *f = fopen(graph, "r");
	ir_matrix *out = NULL;
	long long nv, ne;
	if (!f || system("command -v gpmetis >/dev/null 2>&1") != 0) {
		if (f)
			fclose(f);
		return NULL;
	}
	if (!mkdtemp(dir))
		die("mkdtemp", CCP_EIO);
	snprintf(cmd, sizeof cmd,
	         "cp %s %s/g.graph && gpmetis -seed=1 %s/g.graph %d "
	         ">/dev/null 2>&1",
	         graph, dir, dir, (int)p);
	if (system(cmd) != 0) {
		fclose(f);
		return NULL;
	}
	snprintf(path, sizeof path, "%s/g.graph.part.%d", dir, (int)p);
	FILE *pf = fopen(path, "r");
	if (!pf || fscanf(f, "%lld %lld%*[^\n]", &nv, &ne) != 2)
		die("metis graph", CCP_EIO);
	int32_t *part = malloc((size_t)nv * sizeof *part);
	/* the parts a vertex touches, marked per vertex */
	int32_t *seen = malloc((size_t)p * sizeof *seen);
	int64_t *cnt = calloc((size_t)p * (size_t)p, sizeof *cnt);
	if (!part || !seen || !cnt)
		die("metis", CCP_ENOMEM);
	for (long long v = 0; v < nv; v++)
		if (fscanf(pf, "%d", &part[v]) != 1)
			die("metis part", CCP_EIO);
	fclose(pf);
	for (int32_t q = 0; q < p; q++)
		seen[q] = -1;
	int c = fgetc(f); /* the header's newline */
	for (long long v = 0; v < nv && c != EOF; v++) {
		char line[1 << 16];
		if (!fgets(line, sizeof line, f))
			break;
		char *s = line, *e;
		for (long u; (u = strtol(s, &e, 10)), e != s; s = e) {
			int32_t q = part[u - 1];
			if (q != part[v] && seen[q] != (int32_t)v) {
				seen[q] = (int32_t)v;
				cnt[(size_t)part[v] * p + q]++;
			}
		}
	}
	fclose(f);
	struct ir_edge *ed = malloc((size_t)p * (size_t)p * sizeof *ed);
	size_t n = 0, bad;
	if (!ed)
		die("metis", CCP_ENOMEM);
	for (int32_t a = 0; a < p; a++)
		for (int32_t b = 0; b < p; b++)
			if (cnt[(size_t)a * p + b])
				ed[n++] = (struct ir_edge){
				        a, b, 8 * cnt[(size_t)a * p + b], n};
	if (ir_matrix_from_edges(p, ed, n, &out, &bad) != 0)
		die("metis matrix", CCP_EINVAL);
	free(ed);
	free(cnt);
	free(seen);
	free(part);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_place: could not remove %s\n", dir);
	return out;
}

/* XGFT(2; m1, m2; 1, w2) under d-mod-k, one port. */
static ir_machine fat_tree(int m1, int m2, int w2)
{
	ir_machine m = blank(IR_FAT_TREE, IR_ROUTE_D_MOD_K, 1);
	m.ndims = 2;
	m.dims[0] = m1;
	m.dims[1] = m2;
	m.dims[IR_MAX_TREE] = 1;
	m.dims[IR_MAX_TREE + 1] = w2;
	m.levels[0][0] = m.levels[0][1] = 1;
	return checked(m);
}

/* g groups of a routers of p hosts, h global links per router, minimal. */
static ir_machine dragonfly(int g, int a, int p, int h)
{
	ir_machine m = blank(IR_DRAGONFLY, IR_ROUTE_MINIMAL, 1);
	m.dims[0] = p;
	m.dims[1] = a;
	m.dims[2] = g;
	m.dims[3] = h;
	m.dims[4] = IR_DFLY_ABSOLUTE;
	m.levels[0][0] = m.levels[0][1] = m.levels[1][0] = 1;
	return checked(m);
}

/* x with its ranks in a seeded random order. */
static ir_matrix *scrambled(const ir_matrix *x, uint64_t seed)
{
	ir_matrix *y = place_scrambled(x, seed);
	if (!y)
		die("scramble", CCP_ENOMEM);
	return y;
}

/* Edges by (src, dst). */
static int edge_cmp(const void *a, const void *b)
{
	const struct ir_edge *p = a, *q = b;
	if (p->src != q->src)
		return p->src < q->src ? -1 : 1;
	return p->dst < q->dst ? -1 : p->dst > q->dst;
}

/* One placement's row: bound, link term, link_aware's phases, hops. */
struct row {
	uint32_t bound, link, phases;
	uint64_t hops;
	double t_med, t_min, t_max;
	double c_med, c_min, c_max; /* CPU seconds, the same way */
	int have;
	int32_t moved; /* Scotch: ranks moved to make its map one-to-one */
	int planned;   /* link_aware's plan built (phases valid) */
	const char *note;
};

/* Judge node (one rank per node) by the verifier's bound and, unless
 * bound_only is set, by the phases of link_aware's verified plan. */
static void judge(const ir_machine *m, const ir_matrix *x, const int32_t *node,
                  struct row *w)
{
	ir_matrix *y = place_renamed(x, node);
	ir_plan p;
	ir_report r;
	int rc;
	if (!y)
		die("rename", CCP_ENOMEM);
	if ((rc = sch_place_eval(m, x, node, &w->bound, &w->link, &w->hops)))
		die("eval", rc);
	w->have = 1;
	if (bound_only) {
		ir_matrix_free(y);
		return;
	}
	w->planned = 1;
	if ((rc = sch_irregular(m, y, SCH_IRR_LINK_AWARE, 1, &p)) != 0)
		die("link_aware", rc);
	memset(&r, 0, sizeof r);
	rc = ir_verify(&p, &r);
	w->phases = rc == 0 && r.ok ? r.phases : 0;
	ir_report_fini(&r);
	ir_plan_fini(&p);
	ir_matrix_free(y);
	w->have = 1;
}

static void times(double *t, int n, struct row *w)
{
	w->t_med = bench_median(t, n);
	w->t_min = t[0];
	w->t_max = t[n - 1];
}

/* CPU seconds of this process, and of its children waited for (Scotch's
 * scotch_gmap and the shell that runs it): on a loaded machine the
 * CPU a placement takes moves less than its wall time. */
static double cpu_self(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_children(void)
{
	struct rusage u;
	getrusage(RUSAGE_CHILDREN, &u);
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
	       (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

static void cpu_times(double *c, int n, struct row *w)
{
	w->c_med = bench_median(c, n);
	w->c_min = c[0];
	w->c_max = c[n - 1];
}

/* Scotch's map of x onto target tgt (its text), or have = 0 with a note;
 * node[] receives the map. */
static void scotch(const ir_machine *m, const ir_matrix *x, const char *tgt,
                   int reps, int32_t *node, struct row *w)
{
	char dir[] = "/tmp/bench_place.XXXXXX", cmd[512], path[256];
	double t[16], c[16];
	int32_t n = x->n;
	memset(w, 0, sizeof *w);
	if (system("command -v scotch_gmap >/dev/null 2>&1") != 0) {
		w->note = "not installed";
		return;
	}
	if (!tgt) {
		w->note = "no target";
		return;
	}
	if (!mkdtemp(dir))
		die("mkdtemp", CCP_EIO);
	for (int k = 0; k < reps; k++) {
		double t0 = bench_now(), c0 = cpu_self() + cpu_children();
		/* the graph: both directions' messages as one weight,
		 * pairs sorted and merged */
		struct ir_edge *e =
		        malloc(2 * ((size_t)x->nnz + 1) * sizeof *e);
		int64_t ne = 0, m2 = 0,
		        *off = calloc((size_t)n + 1, sizeof *off);
		if (!e || !off)
			die("scotch", CCP_ENOMEM);
		for (int32_t s = 0; s < n; s++)
			for (int64_t i = x->row[s]; i < x->row[s + 1]; i++) {
				int32_t d = x->dst[i];
				if (d == s)
					continue;
				e[ne++] = (struct ir_edge){s, d, 1, 0};
				e[ne++] = (struct ir_edge){d, s, 1, 0};
			}
		qsort(e, (size_t)ne, sizeof *e, edge_cmp);
		for (int64_t i = 0; i < ne; i++) {
			if (m2 && e[m2 - 1].src == e[i].src &&
			    e[m2 - 1].dst == e[i].dst)
				e[m2 - 1].bytes++;
			else
				e[m2++] = e[i];
		}
		for (int64_t i = 0; i < m2; i++)
			off[e[i].src + 1]++;
		for (int32_t v = 0; v < n; v++)
			off[v + 1] += off[v];
		snprintf(path, sizeof path, "%s/g.grf", dir);
		FILE *f = fopen(path, "w");
		if (!f)
			die("scotch graph", CCP_EIO);
		fprintf(f, "0\n%d %lld\n0\t010\n", (int)n, (long long)m2);
		for (int32_t v = 0; v < n; v++) {
			fprintf(f, "%lld", (long long)(off[v + 1] - off[v]));
			for (int64_t i = off[v]; i < off[v + 1]; i++)
				fprintf(f, " %lld %d", (long long)e[i].bytes,
				        (int)e[i].dst);
			fputc('\n', f);
		}
		fclose(f);
		free(e);
		free(off);
		snprintf(path, sizeof path, "%s/t.tgt", dir);
		if (!(f = fopen(path, "w")))
			die("scotch target", CCP_EIO);
		fprintf(f, "%s\n", tgt);
		fclose(f);
		snprintf(cmd, sizeof cmd,
		         "scotch_gmap -Cd %s/g.grf %s/t.tgt %s/o.map "
		         "2>/dev/null",
		         dir, dir, dir);
		if (system(cmd) != 0) {
			w->note = "scotch_gmap failed";
			return;
		}
		snprintf(path, sizeof path, "%s/o.map", dir);
		if (!(f = fopen(path, "r")))
			die("scotch map", CCP_EIO);
		int cnt, v, p;
		if (fscanf(f, "%d", &cnt) != 1)
			die("scotch map", CCP_EIO);
		for (int i = 0; i < cnt && fscanf(f, "%d %d", &v, &p) == 2; i++)
			if (v >= 0 && v < n)
				node[v] = p;
		fclose(f);
		t[k] = bench_now() - t0;
		c[k] = cpu_self() + cpu_children() - c0;
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_place: could not remove %s\n", dir);
	/* Scotch balances loads within a tolerance, so its map may put two
	 * ranks on one node (its default, which maps best; -b0 -cb maps
	 * worse): those past the first go to the
	 * free nodes in order, and the row says how many moved */
	char *seen = calloc((size_t)n, 1);
	int32_t free_at = 0;
	if (!seen)
		die("scotch", CCP_ENOMEM);
	for (int32_t r = 0; r < n; r++) {
		if (node[r] >= 0 && node[r] < n && !seen[node[r]])
			seen[node[r]] = 1;
		else
			node[r] = -1;
	}
	for (int32_t r = 0; r < n; r++)
		if (node[r] < 0) {
			while (seen[free_at])
				free_at++;
			node[r] = free_at;
			seen[free_at] = 1;
			w->moved++;
		}
	free(seen);
	judge(m, x, node, w);
	times(t, reps, w);
	cpu_times(c, reps, w);
}

static void print_row(const char *who, const struct row *w)
{
	if (!w->have) {
		printf("  %-9s %s\n", who, w->note ? w->note : "-");
		return;
	}
	printf("  %-9s %6u (%4u) ", who, w->bound, w->link);
	if (w->planned)
		printf("%7u", w->phases);
	else
		printf("%7s", "-");
	printf(" %9llu  %8.3f [%.3f, %.3f]  %6.3f [%.3f, %.3f]",
	       (unsigned long long)w->hops, w->t_med, w->t_min, w->t_max,
	       w->c_med, w->c_min, w->c_max);
	if (w->moved)
		printf("  (%d ranks moved: two on a node)", (int)w->moved);
	putchar('\n');
}

/* The phases no placement can go below (place_any_bound): the degree
 * term (ranks sorted by messages onto nodes sorted by ports) and a cut
 * of the machine against the pattern's Laplacian on the link term.
 * Past PLACE_ANY_MAX ranks the eigenvalue takes too long, and the row
 * gives the degree term only. */
#define PLACE_ANY_MAX 1024
static void any_row(const ir_machine *m, const ir_matrix *x)
{
	struct place_cut c;
	int rc;
	if (m->nranks > PLACE_ANY_MAX) {
		printf("  %-9s %6u (   -)   (degree only: past %d ranks the "
		       "cut is not computed)\n",
		       "any >=", place_any_degree(m, x), PLACE_ANY_MAX);
		return;
	}
	if ((rc = place_any_bound(m, x, &c)) != 0)
		die("any placement", rc);
	printf("  %-9s %6u (%4u)   (degree %u; cut: %d of %d ranks on one "
	       "side, %llu messages a phase across, lambda2 %.4f)\n",
	       "any >=", c.phases, c.bound, c.degree, (int)c.k,
	       (int)m->nranks, (unsigned long long)c.cap, c.lambda2);
}

/* One case: pattern x on machine m, Scotch's target tgt (NULL: none). */
static void one(const char *name, const ir_machine *m, const ir_matrix *x,
                const char *tgt, int reps)
{
	int32_t n = m->nranks, *node = calloc((size_t)n, sizeof *node);
	struct row id = {0}, pl = {0}, sc = {0};
	struct sch_place_stats st;
	double t[16], cp[16];
	char err[256];
	int rc;
	if (!node)
		die("node", CCP_ENOMEM);
	if (!wanted(name)) {
		free(node);
		return;
	}
	for (int32_t r = 0; r < n; r++)
		node[r] = r;
	judge(m, x, node, &id);
	for (int k = 0; k < reps; k++) {
		double t0 = bench_now(), c0 = cpu_self();
		if ((rc = sch_place(m, x, 1, node, &st, err, sizeof err)) != 0)
			die(err, rc);
		t[k] = bench_now() - t0;
		cp[k] = cpu_self() - c0;
	}
	judge(m, x, node, &pl);
	times(t, reps, &pl);
	cpu_times(cp, reps, &pl);
	scotch(m, x, tgt, reps, node, &sc);
	printf("%s, %d ranks\n", name, (int)n);
	any_row(m, x);
	print_row("identity", &id);
	print_row("ccplan", &pl);
	print_row("scotch", &sc);
	fflush(stdout);
	free(node);
}

/* The nd-dimensional 5/7-point stencil of extents dims, its ranks
 * scrambled by seed, on a mesh of its shape and, with torus, on a torus
 * too. */
static void stencil_case(int nd, const int *dims, uint64_t seed, int torus,
                         int reps)
{
	ir_matrix *s = ir_matrix_stencil(nd, dims, false, 64);
	ir_matrix *x = scrambled(s, seed);
	char name[128], ext[64], tgt[128];
	int at = 0;
	for (int d = 0; d < nd; d++)
		at += snprintf(ext + at, sizeof ext - (size_t)at, "%s%d",
		               d ? "x" : "", dims[d]);
	for (int t = 0; t <= torus; t++) {
		ir_machine m = grid(t ? IR_TORUS : IR_MESH, nd, dims);
		snprintf(name, sizeof name, "%dD stencil, random order, %s %s",
		         nd, ext, t ? "torus" : "mesh");
		at = snprintf(tgt, sizeof tgt, "%s%dD", t ? "torus" : "mesh",
		              nd);
		for (int d = 0; d < nd; d++)
			at += snprintf(tgt + at, sizeof tgt - (size_t)at, " %d",
			               dims[d]);
		one(name, &m, x, tgt, reps);
	}
	ir_matrix_free(x);
	ir_matrix_free(s);
}

int main(int argc, char **argv)
{
	int reps = 3;
	char tgt[128];
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--large") == 0)
			large = 1;
		else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
			only = argv[++i];
		else
			reps = atoi(argv[i]);
	}
	if (reps < 1 || reps > 16)
		reps = 3;
	printf("placement: the verifier's phase bound (its link term), "
	       "link_aware's phases\non the placed machine (verified), hops "
	       "of every message, and the time to place\n(median [min, max] "
	       "of %d runs, seconds: wall, then CPU, Scotch's with its "
	       "child\nprocesses); \"any >=\": no placement's bound is "
	       "lower\n\n",
	       reps);
	printf("  %-9s %6s %6s %7s %9s  %-24s %s\n", "placement", "bound",
	       "(link)", "phases", "hops", "time", "cpu");

	/* stencils in a random order on meshes and tori of their shape */
	int d16[2] = {16, 16}, d32[2] = {32, 32}, d8[3] = {8, 8, 8};
	stencil_case(2, d16, 1, 1, reps);
	stencil_case(2, d32, 2, 0, reps);
	stencil_case(3, d8, 3, 1, reps);
	ir_matrix *x;
	ir_machine m;

	/* random regular patterns */
	m = grid(IR_MESH, 2, d16);
	x = ir_matrix_regular(m.nranks, 6, 1024, 11);
	one("random 6-regular, 16x16 mesh", &m, x, "mesh2D 16 16", reps);
	m = grid(IR_TORUS, 3, d8);
	ir_matrix_free(x);
	x = ir_matrix_regular(m.nranks, 6, 1024, 12);
	one("random 6-regular, 8x8x8 torus", &m, x, "torus3D 8 8 8", reps);
	ir_matrix_free(x);
	m = fat_tree(16, 16, 4);
	x = ir_matrix_regular(m.nranks, 6, 1024, 13);
	one("random 6-regular, fat tree XGFT(2;16,16;1,4)", &m, x,
	    "tleaf 2 16 10 16 1", reps);
	ir_matrix_free(x);
	m = dragonfly(9, 4, 4, 2);
	snprintf(tgt, sizeof tgt, "tleaf 3 9 10 4 3 4 1");
	x = ir_matrix_regular(m.nranks, 6, 1024, 14);
	one("random 6-regular, dragonfly 9 groups x 4 routers x 4 hosts", &m, x,
	    tgt, reps);
	ir_matrix_free(x);

	/* libmetis-doc's example graphs cut by gpmetis, part i on rank i
	 * of a square one-port mesh (the measurement) */
	static const char *const graphs[] = {"4elt", "copter2", "mdual"};
	static const int sides[] = {8, 16, 32, 64};
	size_t nsides = large ? 4 : 3;
	for (size_t gi = 0; gi < sizeof graphs / sizeof *graphs; gi++)
		for (size_t si = 0; si < nsides; si++) {
			char path[256], name[160];
			snprintf(path, sizeof path,
			         "/usr/share/doc/libmetis-dev/examples/graphs/"
			         "%s.graph",
			         graphs[gi]);
			/* 4,096 parts: the bound only (--large) */
			bound_only = sides[si] == 64;
			snprintf(name, sizeof name,
			         "%s in %d parts (gpmetis), %dx%d one-port "
			         "mesh%s",
			         graphs[gi], sides[si] * sides[si], sides[si],
			         sides[si],
			         bound_only
			                 ? " (bound only: link_aware not run)"
			                 : "");
			if (!wanted(name))
				continue;
			x = metis_pattern(path, sides[si] * sides[si]);
			if (!x) {
				printf("%s: not installed (libmetis-doc, "
				       "metis)\n",
				       graphs[gi]);
				break;
			}
			m = mesh_one_port(sides[si]);
			snprintf(tgt, sizeof tgt, "mesh2D %d %d", sides[si],
			         sides[si]);
			one(name, &m, x, tgt, reps);
			ir_matrix_free(x);
		}
	bound_only = 0;

	/* a 2D stencil with 4,096 ranks: the time goal */
	int d64[2] = {64, 64};
	stencil_case(2, d64, 4, 0, reps);
	return 0;
}
