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
 * Table 3 (--scale only): link_aware from about 1,024 to SIDE x SIDE
 *   ranks (SIDE 256 unless given), in four steps of about 4x, at degrees
 *   16 and 64, on X-Y routed meshes, 3-D tori, fat trees and dragonflies
 *   (MACHINES: a list of mesh, torus, fattree, dragonfly; all unless
 *   given): time, phases against the bound, and the growth exponents of
 *   the time and of the route links between sizes and overall, next to
 *   the goal n^1.2; then (with mesh) 64x64, d = 64 against the goal
 *   0.25 s and against color.
 * Usage: bench_irregular [REPS] |
 *        bench_irregular --scale [REPS [SIDE [MACHINES]]]
 */
#define _DEFAULT_SOURCE /* getloadavg */
#include <math.h>
#include <signal.h>
#include <stdbool.h>
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
#define SCALE_CAP_S 900 /* the same for table 3's cells */

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_irregular: %s: %s\n", what, ccp_strerror(rc));
	exit(3);
}

/* A mesh or torus of x * y * z ranks in ndims dimensions, dimension
 * ordered (X-Y on a 2-D mesh), one port, checked. */
static ir_machine grid(enum ir_topo topo, int ndims, int x, int y, int z)
{
	ir_machine m;
	char err[256];
	memset(&m, 0, sizeof m);
	m.topo = topo;
	m.ndims = ndims;
	m.dims[0] = x;
	m.dims[1] = y;
	m.dims[2] = z;
	m.routing = IR_ROUTE_DIM_ORDER;
	m.ports = 1;
	m.cost.tau = m.cost.phi = NAN;
	if (ir_machine_check(&m, err, sizeof err) != 0) {
		fprintf(stderr, "bench_irregular: %s\n", err);
		exit(3);
	}
	return m;
}

static ir_machine mesh(int x, int y)
{
	return grid(IR_MESH, 2, x, y, 1);
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
	double c_med, c_min, c_max; /* CPU seconds of the same runs */
	double rss_base;            /* MiB after the matrix was made */
	double rss_peak;            /* MiB peak of the whole child */
	uint32_t phases, lb, lb_degree, lb_link;
	uint64_t hops; /* links over all the messages' routes */
	int verified; /* ir_verify accepted the plan */
	char message[256];
};

/* CPU seconds of this process: on a machine shared with other jobs it
 * grows with the work, where the wall clock also counts the waiting. */
static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* In a child: build the pattern, schedule it reps times, verify the last
 * plan, and write a struct cell to fd. */
static void run_cell(int fd, const ir_machine *m, int32_t d, uint64_t seed,
                     enum sch_irr_alg alg, int reps)
{
	struct cell c;
	struct rusage ru;
	double t[64], cpu[64];
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
		double t0 = bench_now(), c0 = cpu_now();
		if ((rc = sch_irregular(m, x, alg, seed, &p)) != 0)
			die(sch_irregular_name(alg), rc);
		t[k] = bench_now() - t0;
		cpu[k] = cpu_now() - c0;
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
	uint64_t *route = malloc(((size_t)ir_route_max(m) + 1) * sizeof *route);
	if (!route)
		die("route", CCP_ENOMEM);
	for (int32_t s = 0; s < x->n; s++)
		for (int64_t k = x->row[s]; k < x->row[s + 1]; k++) {
			int h = ir_route(m, s, x->dst[k], route);
			c.hops += h > 0 ? (uint64_t)h : 0;
		}
	free(route);
	ir_plan_fini(&p);
	ir_matrix_free(x);
	c.t_med = bench_median(t, c.runs); /* sorts t */
	c.t_min = t[0];
	c.t_max = t[c.runs - 1];
	c.c_med = bench_median(cpu, c.runs);
	c.c_min = cpu[0];
	c.c_max = cpu[c.runs - 1];
	c.ok = 1;
	if (write(fd, &c, sizeof c) != (ssize_t)sizeof c)
		exit(3);
}

/* Measure one cell in a forked child, killed after cap seconds. */
static struct cell measure(const ir_machine *m, int32_t d, uint64_t seed,
                           enum sch_irr_alg alg, int reps, int cap)
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
		alarm((unsigned)cap);
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
		                 ? cap
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
			        measure(&m, cases[i].d, 1, algs[a], reps,
			                CAP_S);
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

/* ---- table 3 ---------------------------------------------------------- */

/* The growth exponent of y from (n0, y0) to (n1, y1): y ~ n^e. */
static double growth(double n0, double y0, double n1, double y1)
{
	return log(y1 / y0) / log(n1 / n0);
}

/* XGFT(3; m1,m2,m3; 1,m1,m2), full bisection, d-mod-k routing. */
static ir_machine xgft3(int m1, int m2, int m3)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = IR_FAT_TREE;
	m.ndims = 3;
	m.dims[0] = m1;
	m.dims[1] = m2;
	m.dims[2] = m3;
	m.dims[IR_MAX_TREE] = 1;
	m.dims[IR_MAX_TREE + 1] = m1;
	m.dims[IR_MAX_TREE + 2] = m2;
	m.routing = IR_ROUTE_D_MOD_K;
	return all_port(m);
}

/* A balanced dragonfly (a = 2p = 2h routers a group, a*h + 1 groups,
 * one global link per pair of groups), minimal routing. */
static ir_machine dfly_balanced(int p)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = IR_DRAGONFLY;
	m.ndims = 3;
	m.dims[0] = p;
	m.dims[1] = 2 * p;
	m.dims[2] = 2 * p * p + 1;
	m.dims[3] = p;
	m.dims[4] = IR_DFLY_RELATIVE;
	m.routing = IR_ROUTE_MINIMAL;
	return all_port(m);
}

/* The machines of table 3, in families of growing size: step i of
 * family f into *m and its name; false past the family's last step
 * (about side_max^2 ranks). */
enum { FAM_MESH, FAM_TORUS, FAM_FAT_TREE, FAM_DRAGONFLY, FAMS };
static const char *const fam_name[FAMS] = {"mesh", "torus", "fattree",
                                           "dragonfly"};
static bool scale_machine(int f, int i, int side_max, ir_machine *m,
                          char *name, size_t len)
{
	static const int tor[4][3] = {
	        {8, 8, 16}, {16, 16, 16}, {16, 32, 32}, {32, 32, 64}};
	static const int ft[4][3] = {
	        {16, 8, 8}, {16, 16, 16}, {32, 16, 32}, {32, 32, 64}};
	static const int dp[4] = {4, 6, 8, 11};
	int side = 32 << i;
	if (i >= 4 || side > side_max)
		return false;
	switch (f) {
	case FAM_MESH:
		*m = mesh(side, side);
		snprintf(name, len, "%dx%d", side, side);
		break;
	case FAM_TORUS:
		*m = grid(IR_TORUS, 3, tor[i][0], tor[i][1], tor[i][2]);
		snprintf(name, len, "%dx%dx%d", tor[i][0], tor[i][1],
		         tor[i][2]);
		break;
	case FAM_FAT_TREE:
		*m = xgft3(ft[i][0], ft[i][1], ft[i][2]);
		snprintf(name, len, "%d,%d,%d", ft[i][0], ft[i][1], ft[i][2]);
		break;
	default:
		*m = dfly_balanced(dp[i]);
		snprintf(name, len, "p=%d", dp[i]);
		break;
	}
	return true;
}

/* link_aware from about 1,024 to side_max^2 ranks at degrees 16 and 64
 * on the families chosen (fams: a bit each), with the growth of its CPU
 * time and of the route links between successive sizes and overall
 * (from the first and the second size, where the improvement rounds no
 * longer run on a mesh), next to the goal n^1.2; then 64x64, d = 64
 * against the goal 0.25 s and against color in the same run (with the
 * mesh family).  A degree stops at the first size whose run takes over
 * STOP_S seconds. */
static void table3(int reps, int side_max, unsigned fams)
{
	enum { STOP_S = 60, SIDES = 8 };
	const double goal_exp = 1.2, goal_s = 0.25;
	const int32_t degs[] = {16, 64};

	printf("Table 3: link_aware's growth, random d-regular patterns, "
	       "1 KiB messages, seed 1, on\nX-Y routed one-port meshes "
	       "(mesh), dimension-ordered one-port 3-D tori (torus),\n"
	       "d-mod-k routed XGFT(3; m1,m2,m3; 1,m1,m2) fat trees "
	       "(fattree) and minimally routed\nbalanced dragonflies of p "
	       "hosts a router, 2p routers a group, 2p^2+1 groups\n"
	       "(dragonfly); wall and CPU seconds: median of %d runs "
	       "(min-max), * one run only, the\nfirst took over %.0f s; "
	       "route links: the links of every message's route, summed;\n"
	       "exp: the growth exponent from the size above (y ~ n^exp) "
	       "of the CPU time and of the\nroute links, goal %.1f for "
	       "the time\n\n",
	       reps, SLOW_S, goal_exp);
	double load[3];
	if (getloadavg(load, 3) == 3)
		printf("load average at the start: %.2f %.2f %.2f\n\n", load[0],
		       load[1], load[2]);
	printf("%-9s %3s %-9s %6s %8s %11s %22s %22s %8s %6s %6s %6s %5s "
	       "%5s\n",
	       "machine", "d", "size", "ranks", "messages", "route links",
	       "wall s (min-max)", "CPU s (min-max)", "peak MiB", "phases",
	       "bound", "ratio", "exp", "links");
	for (int f = 0; f < FAMS; f++) {
		if (!(fams >> f & 1))
			continue;
		for (size_t i = 0; i < sizeof degs / sizeof degs[0]; i++) {
			double n[SIDES], c[SIDES], h[SIDES];
			int got = 0;
			ir_machine m;
			char name[32];
			for (int step = 0;
			     got < SIDES && scale_machine(f, step, side_max, &m,
			                                  name, sizeof name);
			     step++) {
				struct cell r = measure(&m, degs[i], 1,
				                        SCH_IRR_LINK_AWARE,
				                        reps, SCALE_CAP_S);
				char tw[48], tc[48], e1[16] = "-",
				                     e2[16] = "-";
				if (!r.ok) {
					printf("%-9s %3d %-9s %6d %s\n",
					       fam_name[f], (int)degs[i], name,
					       m.nranks, r.message);
					break;
				}
				n[got] = m.nranks;
				c[got] = r.c_med;
				h[got] = (double)r.hops;
				if (got > 0) {
					snprintf(e1, sizeof e1, "%.2f",
					         growth(n[got - 1], c[got - 1],
					                n[got], c[got]));
					snprintf(e2, sizeof e2, "%.2f",
					         growth(n[got - 1], h[got - 1],
					                n[got], h[got]));
				}
				got++;
				const char *one = r.runs < reps ? "*" : "";
				snprintf(tw, sizeof tw, "%.3f (%.3f-%.3f)%s",
				         r.t_med, r.t_min, r.t_max, one);
				snprintf(tc, sizeof tc, "%.3f (%.3f-%.3f)%s",
				         r.c_med, r.c_min, r.c_max, one);
				printf("%-9s %3d %-9s %6d %8.0f %11.0f %22s "
				       "%22s %8.1f %6u %6u %6.3f %5s %5s%s\n",
				       fam_name[f], (int)degs[i], name,
				       m.nranks, (double)degs[i] * m.nranks,
				       (double)r.hops, tw, tc, r.rss_peak,
				       r.phases, r.lb,
				       r.lb ? (double)r.phases / r.lb : 0.0,
				       e1, e2,
				       r.verified ? "" : "  NOT VERIFIED");
				if (r.t_min > STOP_S) {
					printf("%-9s %3d stopped: one run took "
					       "over %d s\n",
					       fam_name[f], (int)degs[i],
					       STOP_S);
					break;
				}
			}
			for (int from = 0; from < 2 && from + 1 < got;
			     from++) {
				double e = growth(n[from], c[from], n[got - 1],
				                  c[got - 1]);
				printf("%-9s %3d overall %.0f to %.0f ranks: "
				       "CPU time n^%.2f (goal: growth <= "
				       "n^%.1f: %s), route links n^%.2f\n",
				       fam_name[f], (int)degs[i], n[from],
				       n[got - 1], e, goal_exp,
				       e <= goal_exp ? "met" : "NOT MET",
				       growth(n[from], h[from], n[got - 1],
				              h[got - 1]));
			}
		}
	}
	if (getloadavg(load, 3) == 3)
		printf("\nload average now: %.2f %.2f %.2f\n", load[0], load[1],
		       load[2]);
	if (!(fams & 1u << FAM_MESH))
		return;
	const ir_machine m = mesh(64, 64);
	struct cell la = measure(&m, 64, 1, SCH_IRR_LINK_AWARE, reps, CAP_S);
	struct cell co = measure(&m, 64, 1, SCH_IRR_COLOR, reps, CAP_S);
	if (la.ok && co.ok)
		printf("\n64x64, d = 64: link_aware %.3f s wall (%.3f-%.3f), "
		       "%.3f s CPU (%.3f-%.3f), goal %.2f s: %s (CPU);\n%u "
		       "phases, "
		       "%.3f x the bound (goal 1.10); color in the same run "
		       "%.3f s wall, %.3f s CPU:\nlink_aware / color = %.2f "
		       "(wall), %.2f (CPU)\n\n",
		       la.t_med, la.t_min, la.t_max, la.c_med, la.c_min,
		       la.c_max, goal_s,
		       la.c_med <= goal_s ? "met" : "not met", la.phases,
		       la.lb ? (double)la.phases / la.lb : 0.0, co.t_med,
		       co.c_med, la.t_med / co.t_med, la.c_med / co.c_med);
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
	bool scale = argc > 1 && strcmp(argv[1], "--scale") == 0;
	int a = scale ? 2 : 1;
	int reps = argc > a ? atoi(argv[a]) : 5;
	int side_max = scale && argc > a + 1 ? atoi(argv[a + 1]) : 256;
	unsigned fams = 0;
	if (reps < 1 || reps > 64)
		reps = 5;
	for (int f = 0; scale && argc > a + 2 && f < FAMS; f++)
		if (strstr(argv[a + 2], fam_name[f]) ||
		    strcmp(argv[a + 2], "all") == 0)
			fams |= 1u << f;
	if (scale && argc > a + 2 && !fams) {
		fprintf(stderr, "bench_irregular: machines: a list of mesh, "
		                "torus, fattree, dragonfly, or all\n");
		return 2;
	}
	if (scale) {
		table3(reps, side_max, fams ? fams : (1u << FAMS) - 1);
		return 0;
	}
	table1(reps);
	table2();
	return 0;
}
