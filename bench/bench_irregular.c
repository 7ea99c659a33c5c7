/*
 * bench_irregular.c - the optimal and link-aware irregular schedulers at
 * scale, and what grouping messages by size saves (schedules/coloring.c).
 *
 * Table 1: random d-regular patterns on X-Y routed one-port meshes,
 *   4,096 ranks (64x64, d = 64) and 16,384 ranks (128x128, d = 16), and
 *   on a 16-ary 3-tree of 4,096 hosts (d = 64) under d-mod-k and under
 *   adaptive routing (where the bound is the worst case's), for
 *   color, link_aware and rs_nl: scheduling time (median of REPS runs),
 *   peak memory, phases, the verifier's lower bound with its degree and
 *   link terms, phases / bound, and the verifier's verdict.  Each cell is
 *   measured in a forked child, so peaks do not mix; a scheduler whose
 *   first run takes over SLOW_S seconds is run once, and one that passes
 *   CAP_S seconds is killed and reported as skipped.
 * Table 2: sized against link_aware under 004's cost sum(tau + M*phi)
 *   with the iPSC/860's tau = 150 us, phi = 0.36 us/byte, on patterns
 *   with log-uniform (16 B .. 64 KiB) or bimodal (64 B, one in ten
 *   64 KiB) sizes; medians over 5 seeds.
 * Usage: bench_irregular [REPS]
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "ir.h"
#include "irregular.h"
#include "matrix.h"
#include "rng.h"

#define SLOW_S 4.0 /* a first run slower than this is not repeated */
#define CAP_S  25  /* a child still running after this is killed */

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_irregular: %s: %s\n", what, ccp_strerror(rc));
	exit(3);
}

static ir_machine mesh(int x, int y)
{
	ir_machine m;
	char err[256];
	memset(&m, 0, sizeof m);
	m.topo = IR_MESH;
	m.ndims = 2;
	m.dims[0] = x;
	m.dims[1] = y;
	m.dims[2] = 1;
	m.routing = IR_ROUTE_DIM_ORDER;
	m.ports = 1;
	m.cost.tau = m.cost.phi = NAN;
	if (ir_machine_check(&m, err, sizeof err) != 0) {
		fprintf(stderr, "bench_irregular: %s\n", err);
		exit(3);
	}
	return m;
}

static ir_machine hypercube(int dim)
{
	ir_machine m;
	char err[256];
	memset(&m, 0, sizeof m);
	m.topo = IR_HYPERCUBE;
	m.ndims = dim;
	m.dims[0] = m.dims[1] = m.dims[2] = 1;
	m.routing = IR_ROUTE_ECUBE;
	m.ports = 1;
	m.cost.tau = m.cost.phi = NAN;
	if (ir_machine_check(&m, err, sizeof err) != 0) {
		fprintf(stderr, "bench_irregular: %s\n", err);
		exit(3);
	}
	return m;
}

/* m with all ports and no costs, checked. */
static ir_machine all_port(ir_machine m)
{
	char err[256];
	m.ports = IR_PORTS_ALL;
	m.cost.tau = m.cost.phi = NAN;
	if (ir_machine_check(&m, err, sizeof err) != 0) {
		fprintf(stderr, "bench_irregular: %s\n", err);
		exit(3);
	}
	return m;
}

/* XGFT(3; k,k,k; 1,k,k), a k-ary 3-tree of k^3 hosts with one uplink
 * each, under routing r. */
static ir_machine fat_tree(int k, enum ir_routing r)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = IR_FAT_TREE;
	m.ndims = 3;
	for (int i = 0; i < 3; i++) {
		m.dims[i] = k;
		m.dims[IR_MAX_TREE + i] = i ? k : 1;
	}
	m.routing = r;
	return all_port(m);
}

/* The dragonfly of examples/dragonfly-allreduce.yaml: 33 groups of 8
 * routers, 4 hosts and 4 global links each (1,056 hosts, one global
 * link per pair of groups), relative arrangement. */
static ir_machine dragonfly(enum ir_routing r)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = IR_DRAGONFLY;
	m.ndims = 3;
	m.dims[0] = 4;
	m.dims[1] = 8;
	m.dims[2] = 33;
	m.dims[3] = 4;
	m.dims[4] = IR_DFLY_RELATIVE;
	m.routing = r;
	return all_port(m);
}

/* ---- table 1 ---------------------------------------------------------- */

/* What a child reports back through its pipe. */
struct cell {
	int ok;   /* 1: measured; 0: failed (message says why) */
	int runs; /* scheduling runs timed */
	double t_med, t_min, t_max; /* seconds */
	double rss_base;            /* MiB after the matrix was made */
	double rss_peak;            /* MiB peak of the whole child */
	uint32_t phases, lb, lb_degree, lb_link;
	int verified; /* ir_verify accepted the plan */
	char message[256];
};

/* In a child: build the pattern, schedule it reps times, verify the last
 * plan, and write a struct cell to fd. */
static void run_cell(int fd, const ir_machine *m, int32_t d, uint64_t seed,
                     enum sch_irr_alg alg, int reps)
{
	struct cell c;
	struct rusage ru;
	double t[64];
	ir_plan p;
	ir_report r;
	int rc;
	memset(&c, 0, sizeof c);
	ir_matrix *x = ir_matrix_regular(m->nranks, d, 1024, seed);
	if (!x)
		die("matrix", CCP_ENOMEM);
	getrusage(RUSAGE_SELF, &ru);
	c.rss_base = (double)ru.ru_maxrss / 1024.0;
	for (int k = 0; k < reps; k++) {
		double t0 = bench_now();
		if ((rc = sch_irregular(m, x, alg, seed, &p)) != 0)
			die(sch_irregular_name(alg), rc);
		t[k] = bench_now() - t0;
		c.runs = k + 1;
		if (k + 1 == reps || (k == 0 && t[0] > SLOW_S))
			break; /* keep the last plan for the verifier */
		ir_plan_fini(&p);
	}
	getrusage(RUSAGE_SELF, &ru);
	c.rss_peak = (double)ru.ru_maxrss / 1024.0;
	memset(&r, 0, sizeof r);
	rc = ir_verify(&p, &r);
	c.verified = rc == 0;
	snprintf(c.message, sizeof c.message, "%s", r.message);
	c.phases = r.phases;
	c.lb = r.lb_phases;
	c.lb_degree = r.lb_degree;
	c.lb_link = r.lb_link;
	ir_report_fini(&r);
	ir_plan_fini(&p);
	ir_matrix_free(x);
	qsort(t, (size_t)c.runs, sizeof t[0], bench_cmp_double);
	c.t_min = t[0];
	c.t_max = t[c.runs - 1];
	c.t_med = c.runs % 2 ? t[c.runs / 2]
	                     : 0.5 * (t[c.runs / 2 - 1] + t[c.runs / 2]);
	c.ok = 1;
	if (write(fd, &c, sizeof c) != (ssize_t)sizeof c)
		exit(3);
}

/* Measure one cell in a forked child, killed after CAP_S seconds. */
static struct cell measure(const ir_machine *m, int32_t d, uint64_t seed,
                           enum sch_irr_alg alg, int reps)
{
	struct cell c;
	int fd[2], status;
	memset(&c, 0, sizeof c);
	if (pipe(fd) != 0)
		die("pipe", CCP_EIO);
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		die("fork", CCP_EIO);
	if (pid == 0) {
		close(fd[0]);
		alarm(CAP_S);
		run_cell(fd[1], m, d, seed, alg, reps);
		_exit(0);
	}
	close(fd[1]);
	ssize_t got = read(fd[0], &c, sizeof c);
	close(fd[0]);
	waitpid(pid, &status, 0);
	if (got != (ssize_t)sizeof c) {
		memset(&c, 0, sizeof c);
		snprintf(c.message, sizeof c.message,
		         WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM
		                 ? "skipped: still running after %d s"
		                 : "child failed (%d)",
		         WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM
		                 ? CAP_S
		                 : status);
	}
	return c;
}

static void table1(int reps)
{
	struct {
		const char *name;
		ir_machine m;
		int32_t d;
	} cases[] = {
	        {"64x64 d=64", mesh(64, 64), 64},
	        {"128x128 d=16", mesh(128, 128), 16},
	        {"ft16 d-mod-k d=64", fat_tree(16, IR_ROUTE_D_MOD_K), 64},
	        {"ft16 adaptive d=64", fat_tree(16, IR_ROUTE_ADAPTIVE), 64},
	        {"ft16 source d=64", fat_tree(16, IR_ROUTE_SOURCE), 64},
	        {"dfly minimal d=64", dragonfly(IR_ROUTE_MINIMAL), 64},
	        {"dfly source d=64", dragonfly(IR_ROUTE_SOURCE), 64},
	};
	const enum sch_irr_alg algs[] = {SCH_IRR_COLOR, SCH_IRR_LINK_AWARE,
	                                 SCH_IRR_RS_NL};

	printf("Table 1: random d-regular patterns, 1 KiB messages, seed 1, "
	       "on X-Y routed one-port\nmeshes, on ft16, the 16-ary "
	       "3-tree XGFT(3; 16,16,16; 1,16,16) of 4,096 hosts, and on\n"
	       "dfly, a dragonfly of 33 groups x 8 routers x 4 hosts "
	       "(1,056 hosts, one global link per\npair of groups); "
	       "source: the sender picks paths, and link_aware picks "
	       "them\n");
	printf("(time: median of %d runs, min-max; memory: peak RSS of a "
	       "child that made the matrix\nand scheduled it, and the part "
	       "above the matrix alone)\n\n",
	       reps);
	printf("%-18s %-10s %22s %18s %7s %6s %6s %6s %6s  %s\n", "machine",
	       "algorithm", "time s (min-max)", "peak MiB (+sched)", "phases",
	       "bound", "degree", "link", "ratio", "verifier");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const ir_machine m = cases[i].m;
		const char *name = cases[i].name;
		for (size_t a = 0; a < sizeof algs / sizeof algs[0]; a++) {
			struct cell c =
			        measure(&m, cases[i].d, 1, algs[a], reps);
			if (!c.ok) {
				printf("%-18s %-10s %s\n", name,
				       sch_irregular_name(algs[a]), c.message);
				continue;
			}
			char tm[48], mem[32];
			snprintf(tm, sizeof tm, "%.3f (%.3f-%.3f)%s", c.t_med,
			         c.t_min, c.t_max, c.runs < reps ? "*" : "");
			snprintf(mem, sizeof mem, "%.1f (+%.1f)", c.rss_peak,
			         c.rss_peak - c.rss_base);
			printf("%-18s %-10s %22s %18s %7u %6u %6u %6u %6.3f  "
			       "%s\n",
			       name, sch_irregular_name(algs[a]), tm, mem,
			       c.phases, c.lb, c.lb_degree, c.lb_link,
			       c.lb ? (double)c.phases / c.lb : 0.0,
			       c.verified ? "ok" : c.message);
		}
	}
	printf("\n* one run only: the first took over %.0f s.  The bound "
	       "counts the link term only for\nplans that forbid link "
	       "contention (color allows it, so its bound is the degree "
	       "term).\n\n",
	       SLOW_S);
}

/* ---- table 2 ---------------------------------------------------------- */

/* 004 section 2.1 with the iPSC/860's tau and phi, in milliseconds. */
static double plan_cost_ms(const ir_plan *p)
{
	double c = 0;
	for (uint32_t i = 0; i < p->nphases; i++) {
		int64_t big = 0;
		for (uint32_t t = 0; t < p->phases[i].ntransfers; t++) {
			int64_t b =
			        p->transfers[p->phases[i].transfer + t].bytes;
			big = b > big ? b : big;
		}
		c += 150.0 + 0.36 * (double)big;
	}
	return c / 1000.0;
}

/* Sizes: log-uniform 16 B .. 64 KiB (mode 0), or bimodal: one message
 * in ten 64 KiB, the rest 64 B (mode 1). */
static void resize(ir_matrix *x, uint64_t seed, int mode)
{
	struct ir_rng r;
	ir_rng_seed(&r, seed);
	for (int64_t k = 0; k < x->nnz; k++) {
		if (mode == 0) {
			double u = (double)(ir_rng_next(&r) >> 11) * 0x1p-53;
			x->bytes[k] = (int64_t)pow(2.0, 4.0 + 12.0 * u);
		} else {
			x->bytes[k] = ir_rng_below(&r, 10) == 0 ? 65536 : 64;
		}
	}
}

static void table2(void)
{
	struct {
		const char *name;
		int kind; /* 0: hypercube of dimension a; 1: a x a mesh */
		int a;
		int32_t d;
	} cases[] = {
	        {"6-cube", 0, 6, 8},       {"6-cube", 0, 6, 16},
	        {"6-cube", 0, 6, 32},      {"16x16 mesh", 1, 16, 16},
	        {"32x32 mesh", 1, 32, 16}, {"64x64 mesh", 1, 64, 16},
	};
	enum { SEEDS = 5 };

	printf("Table 2: sized against link_aware, cost sum over phases of "
	       "tau + M*phi (tau 150 us,\nphi 0.36 us/B, M the phase's "
	       "largest message); medians over %d seeds\n\n",
	       SEEDS);
	printf("%-11s %3s %-11s %16s %16s %7s %18s\n", "machine", "d", "sizes",
	       "link_aware ph/ms", "sized ph/ms", "ratio", "time ms la/sized");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		for (int mode = 0; mode < 2; mode++) {
			ir_machine m = cases[i].kind == 0
			                       ? hypercube(cases[i].a)
			                       : mesh(cases[i].a, cases[i].a);
			double pl[SEEDS], cl[SEEDS], ps[SEEDS], cs[SEEDS],
			        ratio[SEEDS], tl[SEEDS], ts[SEEDS];
			for (int s = 0; s < SEEDS; s++) {
				ir_matrix *x = ir_matrix_regular(
				        m.nranks, cases[i].d, 1024, 1 + s);
				ir_plan la, sz;
				ir_report r;
				int rc;
				if (!x)
					die("matrix", CCP_ENOMEM);
				resize(x, 100 + s, mode);
				double t0 = bench_now();
				if ((rc = sch_irregular(&m, x,
				                        SCH_IRR_LINK_AWARE,
				                        1 + s, &la)) != 0)
					die("link_aware", rc);
				double t1 = bench_now();
				if ((rc = sch_irregular(&m, x, SCH_IRR_SIZED,
				                        1 + s, &sz)) != 0)
					die("sized", rc);
				double t2 = bench_now();
				if ((rc = ir_verify(&sz, &r)) != 0)
					die(r.message, rc);
				ir_report_fini(&r);
				pl[s] = la.nphases;
				ps[s] = sz.nphases;
				cl[s] = plan_cost_ms(&la);
				cs[s] = plan_cost_ms(&sz);
				ratio[s] = cs[s] / cl[s];
				tl[s] = 1e3 * (t1 - t0);
				ts[s] = 1e3 * (t2 - t1);
				ir_plan_fini(&la);
				ir_plan_fini(&sz);
				ir_matrix_free(x);
			}
			char a[32], b[32], t[32];
			snprintf(a, sizeof a, "%.0f / %.1f",
			         bench_median(pl, SEEDS),
			         bench_median(cl, SEEDS));
			snprintf(b, sizeof b, "%.0f / %.1f",
			         bench_median(ps, SEEDS),
			         bench_median(cs, SEEDS));
			snprintf(t, sizeof t, "%.1f / %.1f",
			         bench_median(tl, SEEDS),
			         bench_median(ts, SEEDS));
			printf("%-11s %3d %-11s %16s %16s %7.3f %18s\n",
			       cases[i].name, (int)cases[i].d,
			       mode ? "bimodal" : "log-uniform", a, b,
			       bench_median(ratio, SEEDS), t);
		}
	printf("\n");
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	if (reps < 1 || reps > 64)
		reps = 5;
	table1(reps);
	table2();
	return 0;
}
