/*
 * bench_verify.c - how long the verifier takes on large plans (issue 2):
 *   a 65,536-rank broadcast (binomial on a 256x256 all-port mesh), and
 *   a 4,096-rank irregular plan of degree 64 (64x64 mesh, X-Y routing,
 *   one-port), scheduled greedily so no rank sends or receives twice in a
 *   phase; its link contention is measured, not forbidden.
 * Each step runs REPS times; the table gives the median and the range.
 * Usage: bench_verify [REPS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"
#include "codec.h"
#include "ir.h"
#include "matrix.h"
#include "sched.h"

static void row(const char *what, double *t, int reps)
{
	qsort(t, (size_t)reps, sizeof *t, bench_cmp_double);
	printf("  %-34s %9.1f ms  (min %.1f, max %.1f)\n", what,
	       1e3 * t[reps / 2], 1e3 * t[0], 1e3 * t[reps - 1]);
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_verify: %s: %s\n", what, ccp_strerror(rc));
	exit(3);
}

static ir_machine mesh(int x, int y, int ports)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = IR_MESH;
	m.ndims = 2;
	m.dims[0] = x;
	m.dims[1] = y;
	m.dims[2] = 1;
	m.routing = IR_ROUTE_DIM_ORDER;
	m.ports = ports;
	char err[256];
	if (ir_machine_check(&m, err, sizeof err) != 0) {
		fprintf(stderr, "bench_verify: %s\n", err);
		exit(3);
	}
	return m;
}

/* Greedy phases: each rank sends its first waiting message whose
 * receiver is still free in this phase. */
static int greedy_plan(const ir_machine *m, const ir_comm *c, ir_plan *p)
{
	const ir_matrix *x = c->matrix;
	int32_t n = x->n;
	int64_t *next = malloc((size_t)n * sizeof *next);
	char *busy = malloc((size_t)n);
	char *done = calloc((size_t)x->nnz + 1, 1);
	if (!next || !busy || !done)
		return CCP_ENOMEM;
	ir_plan_init(p, m, c, "greedy");
	p->flags = IR_PLAN_LINK_CONTENTION;
	for (int32_t s = 0; s < n; s++)
		next[s] = x->row[s];
	int64_t left = x->nnz;
	while (left > 0) {
		memset(busy, 0, (size_t)n);
		int rc = ir_plan_phase(p);
		if (rc)
			return rc;
		for (int32_t s = 0; s < n; s++) {
			while (next[s] < x->row[s + 1] && done[next[s]])
				next[s]++;
			for (int64_t k = next[s]; k < x->row[s + 1]; k++) {
				if (done[k] || busy[x->dst[k]])
					continue;
				ir_block b = {s, x->dst[k]};
				if ((rc = ir_plan_add(p, s, x->dst[k], &b, 1,
				                      0)) != 0)
					return rc;
				busy[x->dst[k]] = 1;
				done[k] = 1;
				left--;
				break;
			}
		}
	}
	free(next);
	free(busy);
	free(done);
	return 0;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 7;
	if (reps < 1 || reps > 1000)
		reps = 7;
	double *tg = calloc((size_t)reps, sizeof *tg);
	double *tv = calloc((size_t)reps, sizeof *tv);
	double *tl = calloc((size_t)reps, sizeof *tl);
	double *te = calloc((size_t)reps, sizeof *te);
	ir_report r;
	int rc;

	printf("verifier time, median of %d runs\n\n", reps);

	/* 1. 65,536-rank broadcast */
	ir_machine m = mesh(256, 256, IR_PORTS_ALL);
	ir_comm c = {
	        .coll = IR_BCAST, .root = 32896, .bytes = 65536, .segments = 1};
	struct sch_options o = {0};
	for (int k = 0; k < reps; k++) {
		ir_plan p;
		ir_slice *s;
		uint8_t *img;
		size_t len;
		double t0 = bench_now();
		if ((rc = sch_binomial.generate(&m, &c, &o, &p)) != 0)
			die("generate", rc);
		double t1 = bench_now();
		if ((rc = ir_verify(&p, &r)) != 0)
			die(r.message, rc);
		double t2 = bench_now();
		if ((rc = ir_lower(&p, &s)) != 0)
			die("lower", rc);
		double t3 = bench_now();
		if ((rc = ir_plan_encode(&p, &r, s, &img, &len, NULL, 0)) != 0)
			die("encode", rc);
		double t4 = bench_now();
		tg[k] = t1 - t0;
		tv[k] = t2 - t1;
		tl[k] = t3 - t2;
		te[k] = t4 - t3;
		if (k == reps - 1)
			printf("broadcast, binomial, 256x256 mesh (65,536 "
			       "ranks): "
			       "%u phases (lower bound %u), %llu transfers, "
			       "plan file %zu bytes\n",
			       r.phases, r.lb_phases,
			       (unsigned long long)r.transfers, len);
		free(img);
		ir_slices_free(s, m.nranks);
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
	row("generate", tg, reps);
	row("verify", tv, reps);
	row("lower", tl, reps);
	row("encode", te, reps);

	/* 2. 4,096 ranks, degree 64 */
	ir_machine m2 = mesh(64, 64, 1);
	ir_comm c2 = {.coll = IR_IRREGULAR, .seed = 1};
	c2.matrix = ir_matrix_regular(4096, 64, 1024, 1);
	if (!c2.matrix)
		die("matrix", CCP_ENOMEM);
	ir_plan p2;
	if ((rc = greedy_plan(&m2, &c2, &p2)) != 0)
		die("schedule", rc);
	for (int k = 0; k < reps; k++) {
		double t0 = bench_now();
		if ((rc = ir_verify(&p2, &r)) != 0)
			die(r.message, rc);
		tv[k] = bench_now() - t0;
		if (k == reps - 1)
			printf("\nirregular, degree 64, 64x64 mesh (4,096 "
			       "ranks, "
			       "%lld messages): %u phases, lower bound %u "
			       "(degree "
			       "%u, link load %u), max link load %u\n",
			       (long long)c2.matrix->nnz, r.phases, r.lb_phases,
			       r.lb_degree, r.lb_link, r.max_link_load);
		ir_report_fini(&r);
	}
	row("verify (incl. lower bound)", tv, reps);
	ir_plan_fini(&p2);
	ir_comm_fini(&c2);

	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("\npeak memory %.1f MiB\n", (double)ru.ru_maxrss / 1024.0);
	free(tg);
	free(tv);
	free(tl);
	free(te);
	return 0;
}
