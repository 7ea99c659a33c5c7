/*
 * bench_scale.c - the scale goals of the n-dimensional machines: a
 * Fugaku-size broadcast compiled end to end, one rank's slice loaded
 * from its file, and the link-aware scheduler on a 3D stencil halo.
 *
 * Table 1: the dimensional and recursive-doubling broadcasts on the
 *   Tofu-D shape of Fugaku (24 x 23 x 24 x 2 x 3 x 2, x y z b wrapped,
 *   a c not; 158,976 nodes), with one rank per node and with four
 *   (635,904 ranks, block placement, node ports all): the time to
 *   generate, verify, lower, encode, and write the .ccp (atomically and
 *   synced, as `ccplan compile` does), each the median and range of REPS
 *   runs, their sum, and the CPU time the process used for them (on a
 *   shared machine the wall clock also counts others' turns on the
 *   cores and the disk), against the goal (2 s for one rank per node,
 *   8 s for four): "met" on the wall clock, "CPU met" on CPU time only.
 * Table 2: loading one rank's slice from each of those files with the
 *   runtime's loader (ccp_plan_load_file: header, one index entry, one
 *   section), for the root, the last rank and ranks spread over the
 *   machine: the median and largest load time against 1 ms, and the
 *   bytes the loader reads and allocates for the section against the
 *   rank's operations (most bytes per operation over those ranks) and
 *   the file's size.
 * Table 3: link_aware on the halo exchange of a 27-point stencil (each
 *   rank to its up to 26 neighbours, 1 KiB each) on a 32x32x32 one-port
 *   mesh (32,768 ranks): scheduling and verifying time, phases against
 *   the verifier's lower bound.
 * Table 4 (issue 20): what `ccplan compile --no-cache` does for a
 *   binomial broadcast of 1 KiB on a 1024 x 1024 mesh (1,048,576 ranks),
 *   end to end: the YAML parsed, the plan generated, verified, lowered,
 *   encoded and written (atomically and synced), each run in a child
 *   process of its own so that its peak memory is its own: wall clock,
 *   CPU (user and system) and peak resident memory, median and range,
 *   against the goal of 2 s; with --large also the 4096 x 4096 mesh
 *   (16,777,216 ranks, a 5.4 GB file; minutes and about 10 GB of memory),
 *   against 40 s and 6 GB (10^9 bytes).  "CPU met": the wall clock
 *   missed the goal but the CPU time met it (others had the cores).
 * Usage: bench_scale [--large] [--compile-only] [REPS [DIR]]  (REPS
 * default 3; the .ccp files go to DIR, default $TMPDIR or /tmp, and are
 * removed at the end; --compile-only runs table 4 alone)
 */
#define _DEFAULT_SOURCE /* wait4: a child's own peak memory */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "ccplan.h"
#include "codec.h"
#include "compile.h"
#include "front.h"
#include "ir.h"
#include "irregular.h"
#include "matrix.h"
#include "sched.h"

#define MAX_REPS 15
#define NLOADS   65 /* ranks whose slices table 2 loads */

static void die(const char *what, int rc, const char *msg)
{
	fprintf(stderr, "bench_scale: %s: %s%s%s\n", what, ccp_strerror(rc),
	        msg && *msg ? ": " : "", msg ? msg : "");
	exit(3);
}

/* A checked mesh or torus: nd extents, wrapped dimensions (0: a mesh),
 * ranks per node, one port per rank. */
static ir_machine grid(int nd, const int *dims, unsigned wrap, int rpn)
{
	ir_machine m;
	char err[256];
	memset(&m, 0, sizeof m);
	ir_cost_unset(&m.cost);
	m.topo = wrap ? IR_TORUS : IR_MESH;
	m.routing = IR_ROUTE_DIM_ORDER;
	m.ndims = nd;
	for (int d = 0; d < IR_MAX_DIMS; d++)
		m.dims[d] = d < nd ? dims[d] : 1;
	m.wrap = wrap;
	m.ports = 1;
	m.ranks_per_node = rpn;
	if (ir_machine_check(&m, err, sizeof err) != 0)
		die("machine", CCP_EINVAL, err);
	return m;
}

/* Seconds of CPU this process has used (user and system): on a shared
 * machine the wall clock also counts the time others had the cores. */
static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The median of t[0..n) and its range, in milliseconds, as a cell. */
static void cell(char *buf, size_t len, double *t, int n)
{
	double med = bench_median(t, n); /* sorts t */
	snprintf(buf, len, "%.0f (%.0f-%.0f)", 1e3 * med, 1e3 * t[0],
	         1e3 * t[n - 1]);
}

/* ---- tables 1 and 2 ---------------------------------------------------- */

/* One broadcast compiled reps times; the file of the last run is left at
 * path for table 2.  Prints its row of table 1. */
static void compile_row(const char *gen, const ir_machine *m, int reps,
                        double goal, const char *path, uint32_t *phases)
{
	const struct sch_generator *g = sch_find(gen);
	double t[7][MAX_REPS];
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	c.root = 0;
	c.bytes = 1024;
	c.segments = 1;
	char why[256];
	int rc = sch_applies(g, m, &c, why, sizeof why);
	if (rc)
		die(gen, rc, why);
	for (int k = 0; k < reps; k++) {
		struct sch_options o = {0};
		ir_plan p;
		ir_report r;
		ir_slice *s = NULL;
		uint8_t *img = NULL;
		size_t len = 0;
		char err[256] = "";
		double c0 = cpu_now(), t0 = bench_now();
		if ((rc = g->generate(m, &c, &o, &p)))
			die("generate", rc, gen);
		double t1 = bench_now();
		memset(&r, 0, sizeof r);
		if ((rc = ir_verify(&p, &r)))
			die("verify", rc, r.message);
		double t2 = bench_now();
		if ((rc = ir_lower(&p, &s)))
			die("lower", rc, gen);
		double t3 = bench_now();
		if ((rc = ir_plan_encode(&p, &r, s, &img, &len, err,
		                         sizeof err)))
			die("encode", rc, err);
		double t3w = bench_now();
		if ((rc = write_atomic(path, img, len, err, sizeof err)))
			die("write", rc, err);
		double t4 = bench_now();
		t[0][k] = t1 - t0;
		t[1][k] = t2 - t1;
		t[2][k] = t3 - t2;
		t[3][k] = t3w - t3;
		t[4][k] = t4 - t3w;
		t[5][k] = t4 - t0;
		t[6][k] = cpu_now() - c0;
		*phases = r.phases;
		free(img);
		ir_slices_free(s, m->nranks);
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
	char col[7][48];
	for (int i = 0; i < 7; i++)
		cell(col[i], sizeof col[i], t[i], reps);
	double total = t[5][reps / 2], cpu = t[6][reps / 2]; /* sorted */
	if (reps % 2 == 0) {
		total = 0.5 * (t[5][reps / 2 - 1] + t[5][reps / 2]);
		cpu = 0.5 * (t[6][reps / 2 - 1] + t[6][reps / 2]);
	}
	printf("| %s | %d x %d | %u | %s | %s | %s | %s | %s | %s | %s "
	       "| %.0f | %s |\n",
	       gen, (int)m->nnodes, (int)m->ranks_per_node, *phases, col[0],
	       col[1], col[2], col[3], col[4], col[5], col[6], 1e3 * goal,
	       total < goal ? "met"
	       : cpu < goal ? "CPU met"
	                    : "MISSED");
}

/* The size of rank's section in the file at path (what the loader reads
 * and allocates besides the header and one index entry), and the number
 * of operations it decodes to. */
static uint64_t section_size(const char *path, int32_t rank, uint32_t *nops)
{
	uint8_t head[IR_FILE_HEADER_MIN], entry[IR_FILE_INDEX_ENTRY];
	ir_file_info fi;
	uint64_t at = 0, off = 0, size = 0;
	char err[256];
	FILE *f = fopen(path, "rb");
	if (!f || fread(head, 1, sizeof head, f) != sizeof head)
		die("read", CCP_EIO, path);
	int rc = ir_file_info_read(head, sizeof head, &fi, err, sizeof err);
	if (!rc)
		rc = ir_slice_locate(head, sizeof head, &fi, rank, &at, err,
		                     sizeof err);
	if (rc)
		die("locate", rc, err);
	if (fseek(f, (long)at, SEEK_SET) != 0 ||
	    fread(entry, 1, sizeof entry, f) != sizeof entry)
		die("read", CCP_EIO, path);
	if ((rc = ir_slice_entry(entry, &fi, &off, &size, err, sizeof err)))
		die("entry", rc, err);
	uint8_t *sec = malloc(size ? size : 1);
	ir_slice sl;
	if (!sec)
		die("section", CCP_ENOMEM, NULL);
	if (fseek(f, (long)off, SEEK_SET) != 0 ||
	    fread(sec, 1, size, f) != size)
		die("read", CCP_EIO, path);
	if ((rc = ir_slice_decode(sec, size, &fi, rank, &sl, err, sizeof err)))
		die("decode", rc, err);
	*nops = sl.nops;
	ir_slice_fini(&sl);
	free(sec);
	fclose(f);
	return size;
}

/* Load NLOADS ranks' slices from path (the root, the last rank, and
 * ranks spread evenly), reps times each; prints its row of table 2. */
static void load_row(const char *gen, const ir_machine *m, const char *path,
                     int reps)
{
	static double t[NLOADS * MAX_REPS];
	int n = 0;
	double worst_bpo = 0;
	uint32_t max_ops = 0;
	uint64_t max_sec = 0;
	ccp_context *ctx;
	int rc = ccp_init(&ctx, NULL, NULL);
	if (rc)
		die("ccp_init", rc, NULL);
	for (int i = 0; i < NLOADS; i++) {
		int32_t rank = i == 0   ? 0
		               : i == 1 ? m->nranks - 1
		                        : (int32_t)((int64_t)m->nranks *
		                                    (i - 1) / (NLOADS - 1));
		for (int k = 0; k < reps; k++) {
			ccp_plan *plan;
			double t0 = bench_now();
			if ((rc = ccp_plan_load_file(ctx, path, rank, &plan)))
				die("load", rc, ccp_errmsg(ctx));
			t[n++] = bench_now() - t0;
			ccp_plan_free(plan);
		}
		uint32_t nops = 0;
		uint64_t sec = section_size(path, rank, &nops);
		double bpo = (double)sec / (double)(nops ? nops : 1);
		worst_bpo = bpo > worst_bpo ? bpo : worst_bpo;
		max_ops = nops > max_ops ? nops : max_ops;
		max_sec = sec > max_sec ? sec : max_sec;
	}
	ccp_fini(ctx);
	struct stat sb;
	if (stat(path, &sb) != 0)
		die("stat", CCP_EIO, path);
	double med = bench_median(t, n);
	printf("| %s | %d | %.3f | %.3f | %u | %llu | %.0f | %.1f | %s |\n",
	       gen, (int)m->nranks, 1e3 * med, 1e3 * t[n - 1], max_ops,
	       (unsigned long long)max_sec, worst_bpo,
	       (double)sb.st_size / (1024.0 * 1024.0),
	       t[n - 1] < 1e-3 ? "met"
	       : med < 1e-3    ? "median met"
	                       : "MISSED");
}

/* ---- table 3 ------------------------------------------------------------ */

/* The halo of a 27-point stencil on an X x Y x Z mesh: every rank sends
 * bytes to each of its up to 26 neighbours (coordinates differing by at
 * most 1 in each dimension, not all 0). */
static ir_matrix *halo27(const ir_machine *m, int64_t bytes)
{
	struct ir_csr b;
	ir_matrix *x = NULL;
	int X = m->dims[0], Y = m->dims[1], Z = m->dims[2];
	if (ir_csr_init(&b, m->nranks) ||
	    ir_csr_reserve(&b, (int64_t)m->nranks * 26))
		die("halo", CCP_ENOMEM, NULL);
	for (int32_t r = 0; r < m->nranks; r++) {
		int x0 = r % X, y0 = r / X % Y, z0 = r / X / Y;
		for (int dz = -1; dz <= 1; dz++)
			for (int dy = -1; dy <= 1; dy++)
				for (int dx = -1; dx <= 1; dx++) {
					int x1 = x0 + dx, y1 = y0 + dy,
					    z1 = z0 + dz;
					if ((!dx && !dy && !dz) || x1 < 0 ||
					    x1 >= X || y1 < 0 || y1 >= Y ||
					    z1 < 0 || z1 >= Z)
						continue;
					if (ir_csr_add(&b,
					               x1 + X * (y1 + Y * z1),
					               bytes))
						die("halo", CCP_ENOMEM, NULL);
				}
		if (ir_csr_end_row(&b))
			die("halo", CCP_ENOMEM, NULL);
	}
	if (ir_csr_finish(&b, &x))
		die("halo", CCP_ENOMEM, NULL);
	ir_csr_fini(&b);
	return x;
}

static void stencil_row(int reps)
{
	static const int dims[3] = {32, 32, 32};
	ir_machine m = grid(3, dims, 0, 1);
	ir_matrix *x = halo27(&m, 1024);
	double ts[MAX_REPS], tv[MAX_REPS];
	ir_report r;
	for (int k = 0; k < reps; k++) {
		ir_plan p;
		double t0 = bench_now();
		int rc = sch_irregular(&m, x, SCH_IRR_LINK_AWARE, 1, &p);
		if (rc)
			die("link_aware", rc, NULL);
		double t1 = bench_now();
		memset(&r, 0, sizeof r);
		if ((rc = ir_verify(&p, &r)))
			die("verify", rc, r.message);
		tv[k] = bench_now() - t1;
		ts[k] = t1 - t0;
		ir_plan_fini(&p);
		if (k + 1 < reps)
			ir_report_fini(&r);
	}
	char a[48], b[48];
	cell(a, sizeof a, ts, reps);
	cell(b, sizeof b, tv, reps);
	printf("| 27-point halo, 32x32x32 mesh | %d | %lld | %s | %s | %u | "
	       "%u (degree %u, link %u) | %.2f |\n",
	       (int)m.nranks, (long long)x->nnz, a, b, r.phases, r.lb_phases,
	       r.lb_degree, r.lb_link,
	       (double)r.phases / (double)(r.lb_phases ? r.lb_phases : 1));
	ir_report_fini(&r);
	ir_matrix_free(x);
}

/* ---- table 4 ------------------------------------------------------------ */

/* The binomial broadcast on a side x side mesh as `ccplan compile
 * --no-cache` compiles it, in this (child) process: parse, compile, and
 * encode straight into the file at path (compile_write).  Exits 0, or 3
 * with the reason. */
static void compile_child(int side, const char *path)
{
	char yaml[512], err[512];
	int len = snprintf(yaml, sizeof yaml,
	                   "machine:\n  topology: mesh\n  dims: [%d, %d]\n"
	                   "  routing: xy\n  ports: all\n"
	                   "communication:\n  collective: broadcast\n"
	                   "  root: [0, 0]\n  bytes: 1024\n"
	                   "algorithm: binomial\n",
	                   side, side);
	struct front_input in;
	struct diag d;
	struct compiled c;
	memset(&d, 0, sizeof d);
	front_set_max_memory((uint64_t)64 << 30); /* --max-memory 64G */
	int rc = front_parse_string("bench.yaml", yaml, (size_t)len, &in, &d);
	if (rc)
		die("parse", rc, d.message);
	if ((rc = compile_input(&in, &c, &d)))
		die("compile", rc, d.message);
	if ((rc = compile_write(&c, path, err, sizeof err)))
		die("write", rc, err);
	compiled_fini(&c);
	front_input_fini(&in);
	exit(0);
}

/* Table 4's row for a side x side mesh: reps runs, each in a child. */
static void end_to_end_row(int side, int reps, double goal_s,
                           double goal_gb, const char *path)
{
	double wall[MAX_REPS], cpu[MAX_REPS], peak[MAX_REPS];
	for (int k = 0; k < reps; k++) {
		fflush(stdout);
		double t0 = bench_now();
		pid_t pid = fork();
		if (pid < 0)
			die("fork", CCP_EIO, NULL);
		if (pid == 0)
			compile_child(side, path);
		int status;
		struct rusage ru;
		if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			die("compile", CCP_EINTERNAL, "the child failed");
		wall[k] = bench_now() - t0;
		cpu[k] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		         1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
		peak[k] = (double)ru.ru_maxrss * 1024.0 / 1e9; /* GB */
	}
	struct stat sb;
	if (stat(path, &sb) != 0)
		die("stat", CCP_EIO, path);
	remove(path);
	char w[48], c[48];
	cell(w, sizeof w, wall, reps);
	cell(c, sizeof c, cpu, reps);
	double pk = bench_median(peak, reps);
	bool time_met = wall[reps / 2] <= goal_s;
	bool mem_met = goal_gb <= 0 || pk <= goal_gb;
	char goal[64];
	if (goal_gb > 0)
		snprintf(goal, sizeof goal, "%.0f ms, %.0f GB", 1e3 * goal_s,
		         goal_gb);
	else
		snprintf(goal, sizeof goal, "%.0f ms", 1e3 * goal_s);
	printf("| %dx%d | %d | %s | %s | %.2f (%.2f-%.2f) | %.0f | %s | %s "
	       "|\n",
	       side, side, side * side, w, c, pk, peak[0], peak[reps - 1],
	       (double)sb.st_size / (double)(side * side), goal,
	       time_met && mem_met ? "met"
	       : !mem_met          ? "MISSED (memory)"
	       : cpu[reps / 2] <= goal_s ? "CPU met"
	                                 : "MISSED");
}

static void end_to_end_table(bool large, int reps, const char *dir)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/bench_scale_e2e.ccp", dir);
	printf("\nTable 4: `ccplan compile --no-cache` of a binomial broadcast "
	       "of 1 KiB on a mesh, end to end (parse, generate, verify, "
	       "lower, encode, write), each run a process of its own, "
	       "median (min-max) of %d runs\n\n",
	       reps);
	printf("| mesh | ranks | wall ms | CPU ms | peak GB | file B/rank | "
	       "goal | |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	end_to_end_row(1024, reps, 2.0, 0, path);
	if (large)
		end_to_end_row(4096, reps, 40.0, 6.0, path);
}

int main(int argc, char **argv)
{
	bool large = false, only4 = false;
	while (argc > 1 && argv[1][0] == '-' && argv[1][1] == '-') {
		if (strcmp(argv[1], "--large") == 0)
			large = true;
		else if (strcmp(argv[1], "--compile-only") == 0)
			only4 = true;
		else {
			fprintf(stderr, "bench_scale: unknown option %s\n",
			        argv[1]);
			return 2;
		}
		argc--;
		argv++;
	}
	int reps = argc > 1 ? atoi(argv[1]) : 3;
	if (reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "bench_scale: REPS must be 1..%d\n", MAX_REPS);
		return 2;
	}
	const char *dir = argc > 2 ? argv[2] : getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	if (only4) {
		end_to_end_table(large, reps, dir);
		return 0;
	}
	/* Tofu-D: x y z b wrap, a c do not */
	static const int tofu[6] = {24, 23, 24, 2, 3, 2};
	const unsigned wrap = 0x17u;
	const char *gens[2] = {"dimensional", "rd"};
	const int rpns[2] = {1, 4};
	const double goals[2] = {2.0, 8.0};
	char paths[2][2][4096];
	ir_machine ms[2];
	printf("Table 1: broadcast of 1 KiB from rank 0 on Fugaku's shape "
	       "(24x23x24x2x3x2, wrap x y z b), ms, median (min-max) of %d "
	       "runs\n\n",
	       reps);
	printf("| algorithm | nodes x ranks | phases | generate | verify | "
	       "lower | encode | write | total | total CPU | goal | |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < 2; i++) {
		ms[i] = grid(6, tofu, wrap, rpns[i]);
		for (int j = 0; j < 2; j++) {
			uint32_t ph;
			snprintf(paths[i][j], sizeof paths[i][j],
			         "%s/bench_scale_%s_%d.ccp", dir, gens[j],
			         rpns[i]);
			compile_row(gens[j], &ms[i], reps, goals[i],
			            paths[i][j], &ph);
			fflush(stdout);
		}
	}
	printf("\nTable 2: one rank's slice loaded from those files "
	       "(ccp_plan_load_file), %d ranks x %d runs; section: the bytes "
	       "the loader reads and allocates besides the header and one "
	       "index entry\n\n",
	       NLOADS, reps);
	printf("| algorithm | ranks | load median ms | load max ms | most ops "
	       "of a rank | largest section B | most B per op | file MiB | "
	       "1 ms |\n");
	printf("|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			load_row(gens[j], &ms[i], paths[i][j], reps);
			remove(paths[i][j]);
			fflush(stdout);
		}
	printf("\nTable 3: link_aware on a 3D stencil halo, one-port, ms, "
	       "median (min-max) of %d runs\n\n",
	       reps);
	printf("| pattern | ranks | messages | schedule | verify | phases | "
	       "lower bound | phases / bound |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	stencil_row(reps);
	end_to_end_table(large, reps, dir);
	return 0;
}
