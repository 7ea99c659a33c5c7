/*
 * bench_alltoall.c - the complete-exchange algorithms of 003 on meshes:
 * for each algorithm and mesh, the steps, the measured link load of
 * every step (the paper's f(i)) summed and at its largest, against the
 * paper's formulas; the phases of the contention-free variant (split.c)
 * against Scott's a^3/4 for a x a meshes; and the time to generate and
 * verify, median of REPS runs.  docs/alltoall.md quotes these tables.
 * Sizes are r x c (rows x columns) as in the paper; dims = [c, r].
 * Usage: bench_alltoall [REPS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "ir.h"
#include "sched.h"

static const struct sch_generator *const algs[] = {
        &sch_pex, &sch_pex_gen, &sch_gen, &sch_rex, &sch_ipex};
#define NALGS (sizeof algs / sizeof algs[0])

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "bench_alltoall: %s: %s\n", what, msg);
	exit(3);
}

static ir_machine mesh(int r, int c)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = IR_MESH;
	m.ndims = r > 1 ? 2 : 1;
	m.dims[0] = c;
	m.dims[1] = r;
	m.dims[2] = 1;
	m.routing = IR_ROUTE_DIM_ORDER;
	m.ports = 1;
	char err[256];
	if (ir_machine_check(&m, err, sizeof err) != 0)
		die("machine", err);
	return m;
}

static const ir_comm a2a = {.coll = IR_ALLTOALL, .bytes = 1024};

static int lg_floor(int64_t v)
{
	int k = 0;
	while (v > 1) {
		v /= 2;
		k++;
	}
	return k;
}

static int lg_ceil(int64_t v)
{
	int k = 0;
	while (((int64_t)1 << k) < v)
		k++;
	return k;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* The paper's f for phase k (0-based) of g on an r x c mesh, or -1 where
 * the paper gives no formula (PEX-GEN: "upper bounded by PEX").
 * PEX 3.1, GEN 3.3, REX 4.1, IPEX 4.2; integer divisions. */
static int64_t f_paper(const struct sch_generator *g, uint32_t k, int64_t r,
                       int64_t c)
{
	int64_t i = (int64_t)k + 1, p = r * c;
	if (g == &sch_pex)
		return (int64_t)1 << lg_ceil(max64(i % c, i / c));
	if (g == &sch_gen)
		return min64(i % c, c - i % c) + min64(i / c, (p - i) / c);
	if (g == &sch_rex)
		return i <= lg_floor(c) ? c >> i : r >> (i - lg_floor(c));
	if (g == &sch_ipex) {
		/* c-1 rounds of a row step and r-1 column steps, then
		 * r-1 final column steps */
		int64_t round = (int64_t)k / r, pos = (int64_t)k % r;
		int64_t step = round < c - 1 ? (pos == 0 ? round + 1 : pos)
		                             : (int64_t)k - (c - 1) * r + 1;
		return (int64_t)1 << lg_ceil(step);
	}
	return -1;
}

/* What one algorithm does on one mesh. */
struct result {
	bool applies;
	uint32_t steps;
	uint64_t sum_f, sum_paper; /* summed loads, measured and paper */
	uint32_t max_f;
	int64_t max_paper;
	uint32_t differ;       /* steps where the paper differs */
	uint32_t split;        /* contention-free phases */
	uint32_t lb_link;      /* verifier's link bound (direct) */
	double t_gen, t_split; /* median generate+verify, seconds */
};

/* Generate and verify g on m (split when forbid); the report is kept
 * for the last run. */
static double run(const struct sch_generator *g, const ir_machine *m,
                  bool forbid, int reps, ir_report *rep)
{
	double *t = calloc((size_t)reps, sizeof *t);
	if (!t)
		die("bench", "out of memory");
	struct sch_options o = {.forbid_contention = forbid};
	for (int k = 0; k < reps; k++) {
		ir_plan p;
		double t0 = bench_now();
		int rc = g->generate(m, &a2a, &o, &p);
		if (rc)
			die(g->name, ccp_strerror(rc));
		if ((rc = ir_verify(&p, rep)) != 0)
			die(g->name, rep->message);
		t[k] = bench_now() - t0;
		if (k < reps - 1)
			ir_report_fini(rep);
		ir_plan_fini(&p);
	}
	double med = bench_median(t, reps);
	free(t);
	return med;
}

static struct result measure(const struct sch_generator *g, int r, int c,
                             int reps)
{
	struct result x;
	memset(&x, 0, sizeof x);
	ir_machine m = mesh(r, c);
	char why[256];
	if (sch_applies(g, &m, &a2a, why, sizeof why) != 0)
		return x;
	x.applies = true;
	ir_report rep;
	x.t_gen = run(g, &m, false, reps, &rep);
	x.steps = rep.phases;
	x.max_paper = -1;
	for (uint32_t k = 0; k < rep.phases; k++) {
		int64_t fp = f_paper(g, k, r, c);
		x.sum_f += rep.link_load[k];
		if (rep.link_load[k] > x.max_f)
			x.max_f = rep.link_load[k];
		if (fp >= 0) {
			x.sum_paper += (uint64_t)fp;
			x.max_paper = max64(x.max_paper, fp);
			x.differ += fp != (int64_t)rep.link_load[k];
		}
	}
	ir_report_fini(&rep);
	x.t_split = run(g, &m, true, reps, &rep);
	if (rep.max_link_load > 1)
		die(g->name, "split plan still contends");
	x.split = rep.phases;
	x.lb_link = rep.lb_link;
	ir_report_fini(&rep);
	return x;
}

/* Table 1: every algorithm on the power-of-two meshes. */
static void summary(int reps)
{
	static const int sizes[][2] = {
	        {2, 4}, {4, 4}, {8, 8}, {16, 16}, {16, 32}};
	printf("complete exchange on r x c meshes, X-Y routing, one-port, "
	       "1 KiB blocks; times are median of %d (generate + verify)\n\n",
	       reps);
	printf("%-8s %-6s %5s %7s %7s %5s %5s %6s %7s %7s %6s %7s %9s "
	       "%9s\n",
	       "alg", "mesh", "steps", "sum f", "paper", "max f", "paper",
	       "differ", "split", "a^3/4", "ratio", "link lb", "gen ms",
	       "split ms");
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		int r = sizes[s][0], c = sizes[s][1];
		for (size_t a = 0; a < NALGS; a++) {
			struct result x = measure(algs[a], r, c, reps);
			char mesh_s[32], paper[32], maxp[32], scott[32],
			        ratio[32];
			snprintf(mesh_s, sizeof mesh_s, "%dx%d", r, c);
			if (!x.applies) {
				printf("%-8s %-6s  (does not apply)\n",
				       algs[a]->name, mesh_s);
				continue;
			}
			snprintf(paper, sizeof paper, "-");
			snprintf(maxp, sizeof maxp, "-");
			if (x.max_paper >= 0) {
				snprintf(paper, sizeof paper, "%llu",
				         (unsigned long long)x.sum_paper);
				snprintf(maxp, sizeof maxp, "%lld",
				         (long long)x.max_paper);
			}
			snprintf(scott, sizeof scott, "-");
			snprintf(ratio, sizeof ratio, "-");
			if (r == c) {
				long long b = (long long)r * r * r / 4;
				snprintf(scott, sizeof scott, "%lld", b);
				snprintf(ratio, sizeof ratio, "%.2f",
				         (double)x.split / (double)b);
			}
			printf("%-8s %-6s %5u %7llu %7s %5u %5s %6u %7u %7s "
			       "%6s %7u %9.2f %9.2f\n",
			       algs[a]->name, mesh_s, x.steps,
			       (unsigned long long)x.sum_f, paper, x.max_f,
			       maxp, x.differ, x.split, scott, ratio, x.lb_link,
			       1e3 * x.t_gen, 1e3 * x.t_split);
		}
	}
}

/* Table 2: every step on 2x4 (003 figure 1), paper / measured. */
static void steps_2x4(void)
{
	ir_machine m = mesh(2, 4);
	ir_report reps[NALGS];
	memset(reps, 0, sizeof reps);
	printf("\nper step on 2x4 (r=2, c=4): paper f(i) / measured\n\n");
	printf("%5s", "step");
	for (size_t a = 0; a < NALGS; a++)
		printf(" %9s", algs[a]->name);
	printf("\n");
	for (size_t a = 0; a < NALGS; a++)
		run(algs[a], &m, false, 1, &reps[a]);
	for (uint32_t k = 0; k < 7; k++) {
		printf("%5u", k + 1);
		for (size_t a = 0; a < NALGS; a++) {
			char cell[32] = "";
			if (k < reps[a].phases) {
				int64_t fp = f_paper(algs[a], k, 2, 4);
				if (fp >= 0)
					snprintf(cell, sizeof cell, "%lld / %u",
					         (long long)fp,
					         reps[a].link_load[k]);
				else
					snprintf(cell, sizeof cell, "- / %u",
					         reps[a].link_load[k]);
			}
			printf(" %9s", cell);
		}
		printf("\n");
	}
	for (size_t a = 0; a < NALGS; a++)
		ir_report_fini(&reps[a]);
}

/* Table 3: where the paper and the measurement differ, as counts of
 * (paper, measured) pairs over all steps. */
static void disagreements(int r, int c)
{
	ir_machine m = mesh(r, c);
	printf("\n%dx%d: steps where the paper's f(i) differs, "
	       "as paper->measured x count\n",
	       r, c);
	for (size_t a = 0; a < NALGS; a++) {
		if (algs[a] == &sch_pex_gen)
			continue;
		ir_report rep;
		run(algs[a], &m, false, 1, &rep);
		/* pairs of small loads: count[paper][measured] */
		enum { MAXF = 64 };
		static uint32_t count[MAXF][MAXF];
		memset(count, 0, sizeof count);
		uint32_t total = 0;
		for (uint32_t k = 0; k < rep.phases; k++) {
			int64_t fp = f_paper(algs[a], k, r, c);
			uint32_t fm = rep.link_load[k];
			if (fp == (int64_t)fm)
				continue;
			total++;
			if (fp < MAXF && fm < MAXF)
				count[fp][fm]++;
		}
		printf("  %-5s %3u of %u steps:", algs[a]->name, total,
		       rep.phases);
		for (int x = 0; x < MAXF; x++)
			for (int y = 0; y < MAXF; y++)
				if (count[x][y])
					printf(" %d->%d x%u", x, y,
					       count[x][y]);
		printf("\n");
		ir_report_fini(&rep);
	}
}

/* Table 4: the algorithms for any mesh on non-power-of-two meshes. */
static void general(int reps)
{
	static const int sizes[][2] = {
	        {5, 3}, {6, 6}, {5, 5}, {12, 20}, {15, 31}};
	printf("\nnon-power-of-two meshes (steps include none dropped: "
	       "pex_gen and ipex never have an empty step)\n\n");
	printf("%-8s %-6s %5s %5s %7s %5s %7s %9s %9s\n", "alg", "mesh", "p",
	       "steps", "sum f", "max f", "split", "gen ms", "split ms");
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		int r = sizes[s][0], c = sizes[s][1];
		for (size_t a = 0; a < NALGS; a++) {
			struct result x = measure(algs[a], r, c, reps);
			if (!x.applies)
				continue;
			char mesh_s[16];
			snprintf(mesh_s, sizeof mesh_s, "%dx%d", r, c);
			printf("%-8s %-6s %5d %5u %7llu %5u %7u %9.2f %9.2f\n",
			       algs[a]->name, mesh_s, r * c, x.steps,
			       (unsigned long long)x.sum_f, x.max_f, x.split,
			       1e3 * x.t_gen, 1e3 * x.t_split);
		}
	}
}

/* Table 5: the splitter alone on large plans: time per hop. */
static void splitter(int reps)
{
	static const int sizes[][2] = {{16, 32}, {32, 32}};
	printf("\nthe splitter alone (sch_split_contention), median of %d\n\n",
	       reps);
	printf("%-8s %-6s %9s %10s %7s %9s %8s\n", "alg", "mesh", "transfers",
	       "hops", "phases", "split ms", "ns/hop");
	double *t = calloc((size_t)reps, sizeof *t);
	if (!t)
		die("bench", "out of memory");
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		int r = sizes[s][0], c = sizes[s][1];
		ir_machine m = mesh(r, c);
		for (size_t a = 0; a < NALGS; a++) {
			if (algs[a] == &sch_pex_gen || algs[a] == &sch_rex)
				continue;
			struct sch_options o = {0};
			ir_report rep;
			memset(&rep, 0, sizeof rep);
			for (int k = 0; k < reps; k++) {
				ir_plan p;
				int rc = algs[a]->generate(&m, &a2a, &o, &p);
				if (rc)
					die(algs[a]->name, ccp_strerror(rc));
				double t0 = bench_now();
				if ((rc = sch_split_contention(&p)) != 0)
					die("split", ccp_strerror(rc));
				t[k] = bench_now() - t0;
				if (k == reps - 1 && ir_verify(&p, &rep) != 0)
					die(algs[a]->name, rep.message);
				ir_plan_fini(&p);
			}
			double med = bench_median(t, reps);
			char mesh_s[32];
			snprintf(mesh_s, sizeof mesh_s, "%dx%d", r, c);
			printf("%-8s %-6s %9llu %10llu %7u %9.2f %8.1f\n",
			       algs[a]->name, mesh_s,
			       (unsigned long long)rep.transfers,
			       (unsigned long long)rep.hops, rep.phases,
			       1e3 * med, 1e9 * med / (double)rep.hops);
			ir_report_fini(&rep);
		}
	}
	free(t);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	if (reps < 1 || reps > 1000)
		reps = 5;
	summary(reps);
	steps_2x4();
	disagreements(8, 8);
	disagreements(16, 32);
	general(reps);
	splitter(reps);
	return 0;
}
