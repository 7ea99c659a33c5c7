/*
 * ccplan_bench.c - ccplan-bench: a compiled plan executed over the MPI
 * transport against MPI's own collective, in one run, on the same ranks,
 * the same buffers and the same data (docs/bench-mpi.md).
 *
 * For every case (a collective and an algorithm) and every message size,
 * rank 0 compiles the plan in-process (the plan's bytes are part of the
 * plan), broadcasts the image, and every rank loads its slice from memory.
 * Then, per size:
 *   - once: MPI's collective, then a checked plan execution into a
 *     receive buffer filled with the complement of MPI's result; the two
 *     results must be byte-identical on every rank, so both did the same
 *     work (a float sum of non-integers, which rounds by order: within
 *     a rounding bound, its largest difference reported; an allreduce
 *     the verifier calls reproducible: the same bits on every rank);
 *   - OSU-style timing: warm-up iterations, then iterations with a barrier
 *     before each timed call; the plan's schemes and MPI's collectives
 *     take turns within each iteration (this machine is shared and noisy,
 *     so both see the same noise); an iteration's time is the largest over
 *     the ranks (MPI_Reduce MAX); the median and the minimum are reported.
 * The iteration count is the smaller of --iters and what fits in --budget
 * seconds per size (estimated from the warm-up, agreed on by every rank).
 *
 * Regular collectives go against MPI_Bcast, MPI_Scatter, MPI_Gather,
 * MPI_Reduce, MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block
 * (MPI_Reduce_scatter when the ranks do not divide the vector) and
 * MPI_Alltoall; irregular patterns against MPI_Alltoallv
 * and MPI_Neighbor_alltoallv on a distributed-graph communicator of the
 * same matrix.  --raw adds the plan's own schedule run on bare MPI
 * point-to-point calls, which tells the schedule's cost from the
 * runtime's.  --csv writes every measurement in the format `ccplan tau
 * fit` reads (columns bytes and us; phase_bytes and phase_us fit 004's
 * tau and phi).  This program is a benchmark, not a test: it prints
 * tables, and exits 1 only when a plan's result differs from MPI's.
 *
 * Usage: mpirun -n 8 ccplan-bench [options]   (ccplan-bench --help)
 */
#include <mpi.h>

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ccplan.h"
#include "ccplan_mpi.h"
#include "codec.h"
#include "compile.h"
#include "front.h"
#include "mpi_ir.h"

/* ---- options ------------------------------------------------------------- */

#define MAX_INPUTS 16
#define MAX_REPEAT 99

struct opts {
	int64_t min_size, max_size; /* regular collectives: message sizes */
	int64_t irr_min, irr_max;   /* irregular: bytes per message */
	int factor;                 /* sizes grow by this factor (2 or 4) */
	int iters_small;            /* most timed iterations, <= 8 KiB */
	int iters_large;            /* most timed iterations, above */
	int warmup;                 /* untimed iterations per size */
	double budget;              /* seconds of timed iterations per size */
	bool all_schemes;           /* also S1 and the phase-barrier runs */
	bool raw;                   /* also the plan's schedule on bare MPI */
	const char *only;           /* comma list of case names, or NULL */
	const char *csv;            /* measurement file, or NULL */
	const char *inputs[MAX_INPUTS]; /* --input files */
	int ninputs;
	bool builtin;     /* run the built-in cases */
	uint64_t seed;    /* seed of the generated patterns */
	const char *cost; /* the built-in machines' cost mapping, or NULL */
	int repeat;       /* timings per case and size (median of medians) */
	bool one_node;    /* the switch cases' ranks all on one node */
};

static int g_rank, g_size; /* in MPI_COMM_WORLD */

/* Print on rank 0 only. */
static void say(const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 1, 2)))
#endif
        ;
static void say(const char *fmt, ...)
{
	if (g_rank != 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/* A failure that leaves nothing to measure: every rank stops. */
static void die(const char *what, const char *why)
{
	fprintf(stderr, "ccplan-bench: rank %d: %s: %s\n", g_rank, what, why);
	MPI_Abort(MPI_COMM_WORLD, 3);
	exit(3);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("malloc", "out of memory");
	return p;
}

static const char *const usage_text =
        "usage: mpirun -n N ccplan-bench [options]\n"
        "\n"
        "Compiled plans over the MPI transport against MPI's collectives "
        "on the same\nranks and buffers (docs/bench-mpi.md).\n"
        "\n"
        "  --sizes MIN:MAX     regular collectives' message sizes "
        "(default 1:1M)\n"
        "  --irr-sizes MIN:MAX irregular patterns, bytes per message "
        "(default 1:64K)\n"
        "  --factor F          sizes grow by F, 2 or 4 (default 4)\n"
        "  --iters N[:M]       most timed iterations up to 8 KiB[, above] "
        "(default 1000:100)\n"
        "  --warmup N          untimed iterations per size (default 5)\n"
        "  --budget S          seconds of timing per case and size "
        "(default 1.0)\n"
        "  --repeat R          time each case and size R times; report "
        "the median of\n"
        "                      the R medians, their range, and sizes "
        "whose R ratios\n"
        "                      split into two groups (bimodal; R >= 4) "
        "(default 1)\n"
        "  --schemes main|all  main: S2, no phase barrier, no check; all: "
        "also S1 and\n"
        "                      both with phase barriers, and --raw "
        "(default main)\n"
        "  --raw               also run the plan's own schedule on bare "
        "MPI_Isend/\n"
        "                      MPI_Irecv/MPI_Waitall, without the "
        "runtime\n"
        "  --only LIST         run only these cases (comma-separated, "
        "see --list)\n"
        "  --input FILE.yaml   also run this ccplan input, its size "
        "swept (repeatable;\n"
        "                      its machine must have N ranks)\n"
        "  --no-builtin        only the --input files\n"
        "  --seed S            seed of the generated patterns (default "
        "1)\n"
        "  --cost MAP          the built-in machines' costs, a YAML "
        "mapping such as\n"
        "                      '{tau: 20, phi: 0.001, combine: 0.0004}' "
        "(what\n"
        "                      ccplan tau fit --costs prints): the auto "
        "cases then\n"
        "                      choose by them\n"
        "  --one-node          describe the switch cases' machine as one "
        "node of N ranks\n"
        "                      (ranks_per_node: N), as this host is: "
        "with shm_alpha and\n"
        "                      shm_beta in --cost, a phase costs the "
        "bytes the node moves\n"
        "  --csv FILE          write every measurement (ccplan tau fit "
        "reads it)\n"
        "  --list              list the built-in cases and exit\n"
        "Sizes take K and M (KiB, MiB).\n";

/* "64", "4K", "1M" -> bytes; -1 if malformed. */
static int64_t parse_size(const char *s)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || v < 0)
		return -1;
	if (*end == 'K' || *end == 'k')
		v *= 1024, end++;
	else if (*end == 'M' || *end == 'm')
		v *= 1024 * 1024, end++;
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	return *end ? -1 : (int64_t)v;
}

static bool parse_range(const char *s, int64_t *lo, int64_t *hi)
{
	char buf[64];
	const char *colon = strchr(s, ':');
	if (!colon || (size_t)(colon - s) >= sizeof buf)
		return false;
	memcpy(buf, s, (size_t)(colon - s));
	buf[colon - s] = 0;
	*lo = parse_size(buf);
	*hi = parse_size(colon + 1);
	return *lo >= 1 && *hi >= *lo && *hi <= (INT64_C(1) << 30);
}

/* Whether option a is one of those followed by a value. */
static bool takes_value(const char *a)
{
	static const char *const with_value[] = {
	        "--sizes",  "--irr-sizes", "--factor", "--iters", "--warmup",
	        "--budget", "--schemes",   "--only",   "--input", "--seed",
	        "--csv",    "--cost",      "--repeat"};
	for (size_t i = 0; i < sizeof with_value / sizeof *with_value; i++)
		if (!strcmp(a, with_value[i]))
			return true;
	return false;
}

/* 0: go on; 1: exit 0 (help); 2: bad usage. */
static int parse_opts(int argc, char **argv, struct opts *o, bool *list)
{
	*o = (struct opts){.min_size = 1,
	                   .max_size = 1 << 20,
	                   .irr_min = 1,
	                   .irr_max = 64 << 10,
	                   .factor = 4,
	                   .iters_small = 1000,
	                   .iters_large = 100,
	                   .warmup = 5,
	                   .budget = 1.0,
	                   .builtin = true,
	                   .seed = 1,
	                   .repeat = 1};
	*list = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			say("%s", usage_text);
			return 1;
		} else if (!strcmp(a, "--list")) {
			*list = true;
			takes = false;
		} else if (!strcmp(a, "--raw")) {
			o->raw = true;
			takes = false;
		} else if (!strcmp(a, "--no-builtin")) {
			o->builtin = false;
			takes = false;
		} else if (!strcmp(a, "--one-node")) {
			o->one_node = true;
			takes = false;
		} else if (!v && takes_value(a)) {
			say("ccplan-bench: %s needs a value\n", a);
			return 2;
		} else if (!strcmp(a, "--sizes")) {
			if (!parse_range(v, &o->min_size, &o->max_size))
				goto bad;
		} else if (!strcmp(a, "--irr-sizes")) {
			if (!parse_range(v, &o->irr_min, &o->irr_max))
				goto bad;
		} else if (!strcmp(a, "--factor")) {
			o->factor = atoi(v);
			if (o->factor != 2 && o->factor != 4)
				goto bad;
		} else if (!strcmp(a, "--iters")) {
			int s = 0, l = 0;
			int k = sscanf(v, "%d:%d", &s, &l);
			if (k < 1 || s < 1 || (k == 2 && l < 1))
				goto bad;
			o->iters_small = s;
			o->iters_large = k == 2 ? l : s;
		} else if (!strcmp(a, "--warmup")) {
			o->warmup = atoi(v);
			if (o->warmup < 1)
				goto bad;
		} else if (!strcmp(a, "--repeat")) {
			o->repeat = atoi(v);
			if (o->repeat < 1 || o->repeat > MAX_REPEAT)
				goto bad;
		} else if (!strcmp(a, "--budget")) {
			o->budget = atof(v);
			if (!(o->budget > 0))
				goto bad;
		} else if (!strcmp(a, "--schemes")) {
			if (!strcmp(v, "all"))
				o->all_schemes = o->raw = true;
			else if (strcmp(v, "main"))
				goto bad;
		} else if (!strcmp(a, "--only")) {
			o->only = v;
		} else if (!strcmp(a, "--input")) {
			if (o->ninputs == MAX_INPUTS) {
				say("ccplan-bench: at most %d inputs\n",
				    MAX_INPUTS);
				return 2;
			}
			o->inputs[o->ninputs++] = v;
		} else if (!strcmp(a, "--cost")) {
			o->cost = v;

		} else if (!strcmp(a, "--seed")) {
			o->seed = strtoull(v, NULL, 10);
		} else if (!strcmp(a, "--csv")) {
			o->csv = v;
		} else {
			say("ccplan-bench: unknown option %s\n\n%s", a,
			    usage_text);
			return 2;
		}
		if (takes)
			i++;
		continue;
	bad:
		say("ccplan-bench: bad value for %s: '%s'\n", a, v);
		return 2;
	}
	return 0;
}

/* Whether name is in the comma-separated list (NULL: every name). */
static bool selected(const char *list, const char *name)
{
	if (!list)
		return true;
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && !strncmp(p, name, n))
			return true;
		p += len + (e != NULL);
	}
	return false;
}

/* ---- the cases ----------------------------------------------------------- */

/* Machines the built-in cases run on, for N ranks. */
enum bmachine {
	BM_SWITCH, /* fully connected, all-port: what an MPI job looks like */
	BM_LINE    /* a 1-D mesh of N ranks (tree scatter and gather) */
};

/* A built-in case: one collective, one algorithm. */
struct builtin {
	const char *name;      /* what --only selects */
	enum bmachine machine; /* the machine of the input */
	const char *comm;      /* the communication mapping; irregular ones
	                          take the degree and the seed */
	const char *algorithm; /* generator */
	int degree_div;        /* irregular: degree max(1, N/div) */
	bool extra;            /* run only when --only names it */
	bool fractions;        /* a float sum of non-integers: results are
	                          compared within a rounding bound, not bit
	                          for bit (fill_send) */
};

static const struct builtin builtins[] = {
        {"bcast", BM_SWITCH, "{collective: broadcast, root: 0, bytes: 1}",
         "binomial", 0, false, false},
        {"scatter", BM_SWITCH, "{collective: scatter, root: 0, bytes: 1}",
         "linear", 0, false, false},
        {"scatter-tree", BM_LINE, "{collective: scatter, root: 0, bytes: 1}",
         "tree_scatter", 0, true, false},
        {"gather", BM_LINE, "{collective: gather, root: 0, bytes: 1}",
         "tree_gather", 0, false, false},
        {"scatter-binomial", BM_SWITCH,
         "{collective: scatter, root: 0, bytes: 1}", "binomial", 0, true,
         false},
        {"scatter-direct", BM_SWITCH,
         "{collective: scatter, root: 0, bytes: 1}", "direct", 0, true, false},
        {"scatter-auto", BM_SWITCH, "{collective: scatter, root: 0, bytes: 1}",
         "auto", 0, true, false},
        {"gather-binomial", BM_SWITCH,
         "{collective: gather, root: 0, bytes: 1}", "binomial", 0, true, false},
        {"gather-direct", BM_SWITCH, "{collective: gather, root: 0, bytes: 1}",
         "direct", 0, true, false},
        {"gather-auto", BM_SWITCH, "{collective: gather, root: 0, bytes: 1}",
         "auto", 0, true, false},
        {"bcast-auto", BM_SWITCH, "{collective: broadcast, root: 0, bytes: 1}",
         "auto", 0, true, false},
        {"bcast-sag", BM_SWITCH, "{collective: broadcast, root: 0, bytes: 1}",
         "scatter_allgather", 0, true, false},
        {"bcast-chain", BM_SWITCH, "{collective: broadcast, root: 0, bytes: 1}",
         "chain", 0, true, false},
        {"reduce", BM_SWITCH,
         "{collective: reduce, root: 0, bytes: 4, dtype: int32, op: sum}",
         "binomial", 0, false, false},
        {"reduce-auto", BM_SWITCH,
         "{collective: reduce, root: 0, bytes: 4, dtype: int32, op: sum}",
         "auto", 0, true, false},
        {"reduce-rsg", BM_SWITCH,
         "{collective: reduce, root: 0, bytes: 4, dtype: int32, op: sum}",
         "reduce_scatter_gather", 0, true, false},
        {"reduce-chain", BM_SWITCH,
         "{collective: reduce, root: 0, bytes: 4, dtype: int32, op: sum}",
         "chain", 0, true, false},
        {"allreduce", BM_SWITCH,
         "{collective: allreduce, bytes: 4, dtype: int32, op: sum}", "ring", 0,
         false, false},
        {"allreduce-rd", BM_SWITCH,
         "{collective: allreduce, bytes: 4, dtype: int32, op: sum}",
         "recursive_doubling", 0, true, false},
        {"allreduce-rab", BM_SWITCH,
         "{collective: allreduce, bytes: 4, dtype: int32, op: sum}",
         "rabenseifner", 0, true, false},
        {"allreduce-auto", BM_SWITCH,
         "{collective: allreduce, bytes: 4, dtype: int32, op: sum}", "auto", 0,
         true, false},
        {"allreduce-double", BM_SWITCH,
         "{collective: allreduce, bytes: 8, dtype: double, op: sum, "
         "reproducible: true}",
         "auto", 0, true, true},
        {"allgather", BM_SWITCH, "{collective: allgather, bytes: 1}", "ring", 0,
         false, false},
        {"allgather-rd", BM_SWITCH, "{collective: allgather, bytes: 1}",
         "recursive_doubling", 0, true, false},
        {"allgather-bruck", BM_SWITCH, "{collective: allgather, bytes: 1}",
         "bruck", 0, true, false},
        {"allgather-auto", BM_SWITCH, "{collective: allgather, bytes: 1}",
         "auto", 0, true, false},
        {"reduce-scatter", BM_SWITCH,
         "{collective: reduce_scatter, bytes: 4, dtype: int32, op: sum}",
         "ring", 0, false, false},
        {"reduce-scatter-rh", BM_SWITCH,
         "{collective: reduce_scatter, bytes: 4, dtype: int32, op: sum}",
         "recursive_halving", 0, true, false},
        {"reduce-scatter-auto", BM_SWITCH,
         "{collective: reduce_scatter, bytes: 4, dtype: int32, op: sum}",
         "auto", 0, true, false},
        {"reduce-scatter-double", BM_SWITCH,
         "{collective: reduce_scatter, bytes: 8, dtype: double, op: sum}",
         "recursive_halving", 0, true, true},
        {"alltoall", BM_SWITCH, "{collective: alltoall, bytes: 1}", "pex", 0,
         false, false},
        {"alltoall-gen", BM_SWITCH, "{collective: alltoall, bytes: 1}", "gen",
         0, true, false},
        {"alltoall-rex", BM_SWITCH, "{collective: alltoall, bytes: 1}", "rex",
         0, true, false},
        {"alltoall-direct", BM_SWITCH, "{collective: alltoall, bytes: 1}",
         "direct", 0, true, false},
        {"alltoall-bruck", BM_SWITCH, "{collective: alltoall, bytes: 1}",
         "bruck", 0, true, false},
        {"alltoall-auto", BM_SWITCH, "{collective: alltoall, bytes: 1}",
         "auto", 0, true, false},
        {"bcast-fib", BM_LINE,
         "{collective: broadcast, root: 0, bytes: 8, segments: 8}", "fibonacci",
         0, true, false},
        {"irr-sparse", BM_SWITCH,
         "{pattern: irregular, generate: {kind: regular, degree: %d, "
         "bytes: 1, seed: %llu}}",
         "color", 8, false, false},
        {"irr-dense", BM_SWITCH,
         "{pattern: irregular, generate: {kind: regular, degree: %d, "
         "bytes: 1, seed: %llu}}",
         "color", 2, false, false},
        {"irr-dense-ac", BM_SWITCH,
         "{pattern: irregular, generate: {kind: regular, degree: %d, "
         "bytes: 1, seed: %llu}}",
         "ac", 2, true, false},
};
#define NBUILTINS (sizeof builtins / sizeof builtins[0])

/* The YAML text of built-in case b for n ranks (malloc'd), its machine
 * with the costs cost (a YAML mapping, or NULL); one_node puts a switch
 * case's ranks on one node, whose ranks reach each other through its
 * memory (n - 1 ports: every other rank in one phase). */
static char *builtin_yaml(const struct builtin *b, int n, uint64_t seed,
                          const char *cost, bool one_node)
{
	char comm[256], machine[128];
	if (b->degree_div) {
		int d = n / b->degree_div;
		if (d < 1)
			d = 1;
		if (d > n - 1)
			d = n - 1;
		snprintf(comm, sizeof comm, b->comm, d,
		         (unsigned long long)seed);
	} else {
		snprintf(comm, sizeof comm, "%s", b->comm);
	}
	if (b->machine == BM_SWITCH && one_node && n > 1)
		snprintf(machine, sizeof machine,
		         "{topology: switch, ranks: %d, ranks_per_node: %d, "
		         "ports: %d}",
		         n, n, n - 1);
	else if (b->machine == BM_SWITCH)
		snprintf(machine, sizeof machine,
		         "{topology: switch, ranks: %d, ports: all}", n);
	else
		snprintf(machine, sizeof machine,
		         "{topology: mesh, dims: [%d], ports: all}", n);
	size_t len = strlen(comm) + strlen(machine) + 128 +
	             (cost ? strlen(cost) : 0);
	char *y = xmalloc(len);
	/* the mapping's closing brace, then the costs */
	machine[strlen(machine) - 1] = '\0';
	snprintf(y, len, "machine: %s%s%s}\ncommunication: %s\nalgorithm: %s\n",
	         machine, cost ? ", cost: " : "", cost ? cost : "", comm,
	         b->algorithm);
	return y;
}

/* ---- MPI's side ---------------------------------------------------------- */

/* What MPI's collective of one size needs and where its result lies, on
 * this rank. */
struct mpi_side {
	enum ir_coll coll;
	int root;
	int count;         /* elements (bytes, or reduce elements) */
	MPI_Datatype type; /* MPI_BYTE, or the reduce element type */
	MPI_Op op;         /* reduce */
	size_t send_len;   /* send buffer MPI reads */
	size_t recv_len;   /* receive buffer MPI writes */
	size_t out_len;    /* bytes of the result on this rank */
	bool out_in_send;  /* the result is the send buffer (bcast root) */
	/* irregular: per peer, in bytes */
	int *scount, *sdispl, *rcount, *rdispl;
	/* neighbourhood: only the non-zero peers, in rank order */
	int *nscount, *nsdispl, *nrcount, *nrdispl;
	MPI_Comm graph; /* the pattern as a distributed graph */
};

/* Set up the irregular side from matrix x, every message `bytes` long:
 * packed by destination in the sender's buffer and by source in the
 * receiver's, in rank order (ir/lower.c). */
static void mpi_irregular(struct mpi_side *m, const ir_matrix *x)
{
	int n = g_size, me = g_rank;
	m->scount = calloc((size_t)n, sizeof(int));
	m->sdispl = calloc((size_t)n, sizeof(int));
	m->rcount = calloc((size_t)n, sizeof(int));
	m->rdispl = calloc((size_t)n, sizeof(int));
	m->nscount = calloc((size_t)n, sizeof(int));
	m->nsdispl = calloc((size_t)n, sizeof(int));
	m->nrcount = calloc((size_t)n, sizeof(int));
	m->nrdispl = calloc((size_t)n, sizeof(int));
	int *srcs = calloc((size_t)n, sizeof(int));
	int *dsts = calloc((size_t)n, sizeof(int));
	/* weights of 1 rather than MPI_UNWEIGHTED: Open MPI's constant is a
	 * fake pointer that GCC's access checks take for an empty array */
	int *ones = calloc((size_t)n, sizeof(int));
	if (!m->scount || !m->sdispl || !m->rcount || !m->rdispl ||
	    !m->nscount || !m->nsdispl || !m->nrcount || !m->nrdispl || !srcs ||
	    !dsts || !ones)
		die("calloc", "out of memory");
	for (int p = 0; p < n; p++)
		ones[p] = 1;
	for (int s = 0; s < n; s++)
		for (int64_t k = x->row[s]; k < x->row[s + 1]; k++) {
			if (s == me)
				m->scount[x->dst[k]] = (int)x->bytes[k];
			if (x->dst[k] == me)
				m->rcount[s] = (int)x->bytes[k];
		}
	int so = 0, ro = 0, ns = 0, nr = 0;
	for (int p = 0; p < n; p++) {
		m->sdispl[p] = so;
		m->rdispl[p] = ro;
		if (m->scount[p]) {
			dsts[ns] = p;
			m->nscount[ns] = m->scount[p];
			m->nsdispl[ns++] = so;
		}
		if (m->rcount[p]) {
			srcs[nr] = p;
			m->nrcount[nr] = m->rcount[p];
			m->nrdispl[nr++] = ro;
		}
		so += m->scount[p];
		ro += m->rcount[p];
	}
	m->send_len = (size_t)so;
	m->recv_len = m->out_len = (size_t)ro;
	if (MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nr, srcs, ones, ns,
	                                   dsts, ones, MPI_INFO_NULL, 0,
	                                   &m->graph) != MPI_SUCCESS)
		die("MPI_Dist_graph_create_adjacent", "failed");
	free(srcs);
	free(dsts);
	free(ones);
}

static void mpi_side_fini(struct mpi_side *m)
{
	free(m->scount);
	free(m->sdispl);
	free(m->rcount);
	free(m->rdispl);
	free(m->nscount);
	free(m->nsdispl);
	free(m->nrcount);
	free(m->nrdispl);
	if (m->graph != MPI_COMM_NULL)
		MPI_Comm_free(&m->graph);
	memset(m, 0, sizeof *m);
	m->graph = MPI_COMM_NULL;
}

/* MPI's side of communication c (bytes already set for this size). */
static void mpi_side_init(struct mpi_side *m, const ir_comm *c)
{
	int n = g_size, me = g_rank;
	memset(m, 0, sizeof *m);
	m->graph = MPI_COMM_NULL;
	m->coll = c->coll;
	m->root = c->root;
	m->type = MPI_BYTE;
	m->count = (int)c->bytes;
	size_t b = (size_t)c->bytes;
	switch (c->coll) {
	case IR_BCAST:
		m->send_len = me == m->root ? b : 0;
		m->recv_len = me == m->root ? 0 : b;
		m->out_len = b;
		m->out_in_send = me == m->root;
		break;
	case IR_SCATTER:
		m->send_len = me == m->root ? b * (size_t)n : 0;
		m->recv_len = m->out_len = b;
		break;
	case IR_GATHER:
		m->send_len = b;
		m->recv_len = m->out_len = me == m->root ? b * (size_t)n : 0;
		break;
	case IR_REDUCE:
	case IR_ALLREDUCE:
		m->type = ccp_mpi_ir_type(c->dtype);
		m->op = ccp_mpi_ir_op(c->op);
		m->count = (int)(b / ir_dtype_size(c->dtype));
		m->send_len = b;
		m->recv_len = m->out_len =
		        c->coll == IR_ALLREDUCE || me == m->root ? b : 0;
		break;
	case IR_REDUCE_SCATTER: {
		/* MPI_Reduce_scatter_block when the ranks divide the vector,
		 * else MPI_Reduce_scatter with the plan's uneven counts
		 * (docs/collectives.md), kept in rcount */
		size_t es = ir_dtype_size(c->dtype);
		m->type = ccp_mpi_ir_type(c->dtype);
		m->op = ccp_mpi_ir_op(c->op);
		m->send_len = b;
		m->recv_len = m->out_len =
		        (size_t)ir_block_bytes(c, n, (ir_block){me, me});
		m->count = (int)(m->out_len / es);
		if ((b / es) % (size_t)n) {
			m->rcount = calloc((size_t)n, sizeof(int));
			if (!m->rcount)
				die("calloc", "out of memory");
			for (int d = 0; d < n; d++)
				m->rcount[d] =
				        (int)(ir_block_bytes(c, n,
				                             (ir_block){d, d}) /
				              (int64_t)es);
		}
		break;
	}
	case IR_ALLGATHER:
		m->send_len = b;
		m->recv_len = m->out_len = b * (size_t)n;
		break;
	case IR_ALLTOALL:
		m->send_len = m->recv_len = m->out_len = b * (size_t)n;
		break;
	case IR_IRREGULAR:
		mpi_irregular(m, c->matrix);
		break;
	default:
		break;
	}
}

/* The native collective, or (alt) MPI_Neighbor_alltoallv. */
static int mpi_run(const struct mpi_side *m, uint8_t *send, uint8_t *recv,
                   bool alt)
{
	MPI_Comm w = MPI_COMM_WORLD;
	switch (m->coll) {
	case IR_BCAST:
		return MPI_Bcast(g_rank == m->root ? send : recv, m->count,
		                 MPI_BYTE, m->root, w);
	case IR_SCATTER:
		return MPI_Scatter(send, m->count, MPI_BYTE, recv, m->count,
		                   MPI_BYTE, m->root, w);
	case IR_GATHER:
		return MPI_Gather(send, m->count, MPI_BYTE, recv, m->count,
		                  MPI_BYTE, m->root, w);
	case IR_REDUCE:
		return MPI_Reduce(send, recv, m->count, m->type, m->op, m->root,
		                  w);
	case IR_ALLREDUCE:
		return MPI_Allreduce(send, recv, m->count, m->type, m->op, w);
	case IR_REDUCE_SCATTER:
		if (m->rcount)
			return MPI_Reduce_scatter(send, recv, m->rcount,
			                          m->type, m->op, w);
		return MPI_Reduce_scatter_block(send, recv, m->count, m->type,
		                                m->op, w);
	case IR_ALLGATHER:
		return MPI_Allgather(send, m->count, MPI_BYTE, recv, m->count,
		                     MPI_BYTE, w);
	case IR_ALLTOALL:
		return MPI_Alltoall(send, m->count, MPI_BYTE, recv, m->count,
		                    MPI_BYTE, w);
	case IR_IRREGULAR:
		if (alt)
			return MPI_Neighbor_alltoallv(
			        send, m->nscount, m->nsdispl, MPI_BYTE, recv,
			        m->nrcount, m->nrdispl, MPI_BYTE, m->graph);
		return MPI_Alltoallv(send, m->scount, m->sdispl, MPI_BYTE, recv,
		                     m->rcount, m->rdispl, MPI_BYTE, w);
	default:
		return MPI_ERR_OTHER;
	}
}

static const char *mpi_name(enum ir_coll c)
{
	switch (c) {
	case IR_BCAST:
		return "MPI_Bcast";
	case IR_SCATTER:
		return "MPI_Scatter";
	case IR_GATHER:
		return "MPI_Gather";
	case IR_REDUCE:
		return "MPI_Reduce";
	case IR_ALLREDUCE:
		return "MPI_Allreduce";
	case IR_REDUCE_SCATTER:
		return "MPI_Reduce_scatter_block";
	case IR_ALLGATHER:
		return "MPI_Allgather";
	case IR_ALLTOALL:
		return "MPI_Alltoall";
	case IR_IRREGULAR:
		return "MPI_Alltoallv";
	default:
		return "-";
	}
}

/* The send buffer's data: depends on rank and offset; for a reduction,
 * small integers (1..3) of the element type, so that sums and products
 * are exact in any order and MPI's result equals the plan's bit for
 * bit.  With fractions, a float or double reduction gets positive
 * non-integers between 1e-5 and 15 instead, whose sums round
 * differently in different orders: what a real float sum does. */
static void fill_send(uint8_t *buf, size_t len, const ir_comm *c,
                      bool fractions)
{
	if (!(ir_coll_kind(c->coll) & IR_CK_REDUCES)) {
		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)(g_rank * 37 + i * 11 + (i >> 8) * 5 +
			                   1);
		return;
	}
	size_t es = ir_dtype_size(c->dtype);
	for (size_t i = 0; i + es <= len; i += es) {
		int v = 1 + (int)((g_rank * 7 + i / es) % 3);
		double x = (double)((g_rank * 131 + (i / es) * 17) % 1000 + 1) /
		           7.0 * (g_rank % 2 ? 1e-1 : 1e-4);
		union {
			uint8_t u8;
			int32_t i32;
			int64_t i64;
			float f;
			double d;
		} e;
		switch (c->dtype) {
		case IR_DT_BYTE:
			e.u8 = (uint8_t)v;
			break;
		case IR_DT_INT32:
			e.i32 = v;
			break;
		case IR_DT_INT64:
			e.i64 = v;
			break;
		case IR_DT_FLOAT:
			e.f = fractions ? (float)x : (float)v;
			break;
		case IR_DT_DOUBLE:
			e.d = fractions ? x : v;
			break;
		}
		memcpy(buf + i, &e, es);
	}
}

/* ---- the plan's schedule on bare MPI ------------------------------------- */

/* One rank's slice run straight over MPI's point-to-point calls, without
 * the runtime: what the schedule itself costs on this MPI, so that a gap
 * between the plan and MPI's collective splits into the schedule's share
 * and the runtime's.  A received partial of a reduction is combined with
 * MPI_Reduce_local after the phase's wait, as MPI's own reductions do.
 * A message of several pieces goes as one MPI_Type_create_hindexed of
 * their addresses from MPI_BOTTOM, built once for the buffers it is
 * given, the way an MPI application sends a strided message. */
struct raw {
	ir_slice s;            /* this rank's slice, decoded from the image */
	bool usable;           /* on every rank */
	uint8_t *scratch;      /* s.scratch_bytes */
	MPI_Request *req;      /* s.nops */
	uint32_t *post;        /* RECV_REDUCE ops of the phase, to combine */
	MPI_Datatype *type;    /* s.nops: a message's pieces, or
	                          MPI_DATATYPE_NULL for one piece */
	uint8_t *typed_for[2]; /* the send and receive buffers of type[] */
	bool skip_recv_copies; /* as a plan bound without its receive
	                          buffer (a broadcast root) */
};

static MPI_Comm g_raw_comm = MPI_COMM_NULL; /* a duplicate of the world */

static void raw_init(struct raw *r, const uint8_t *img, size_t len)
{
	char err[256];
	memset(r, 0, sizeof *r);
	if (ir_slice_from_image(img, len, g_rank, &r->s, NULL, err, sizeof err))
		die("ir_slice_from_image", err);
	int ok = 1;
	for (uint32_t i = 0; i < r->s.nops; i++) {
		const ir_op *op = &r->s.ops[i];
		if ((op->code == IR_OP_RECV_REDUCE &&
		     r->s.dtype == IR_DT_UNKNOWN) ||
		    op->bytes > INT_MAX)
			ok = 0;
	}
	int all = 0;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	r->usable = all;
	size_t nops = r->s.nops ? r->s.nops : 1;
	r->scratch = xmalloc((size_t)r->s.scratch_bytes);
	r->req = xmalloc(sizeof(MPI_Request) * nops);
	r->post = xmalloc(sizeof(uint32_t) * nops);
	r->type = xmalloc(sizeof(MPI_Datatype) * nops);
	for (size_t i = 0; i < nops; i++)
		r->type[i] = MPI_DATATYPE_NULL;
}

static void raw_free_types(struct raw *r)
{
	for (uint32_t i = 0; i < r->s.nops; i++)
		if (r->type[i] != MPI_DATATYPE_NULL)
			MPI_Type_free(&r->type[i]);
	r->typed_for[0] = r->typed_for[1] = NULL;
}

/* The datatypes of the messages of several pieces, for these buffers:
 * the pieces of a SEND or RECV, a RECV_REDUCE's landing piece is one. */
static void raw_types(struct raw *r, uint8_t *const base[3])
{
	if (r->typed_for[0] == base[0] && r->typed_for[1] == base[1])
		return;
	raw_free_types(r);
	int cap = 0;
	int *len = NULL;
	MPI_Aint *at = NULL;
	for (uint32_t i = 0; i < r->s.nops; i++) {
		const ir_op *op = &r->s.ops[i];
		if ((op->code != IR_OP_SEND && op->code != IR_OP_RECV) ||
		    op->niov < 2)
			continue;
		if ((int)op->niov > cap) {
			cap = (int)op->niov;
			len = realloc(len, sizeof *len * (size_t)cap);
			at = realloc(at, sizeof *at * (size_t)cap);
			if (!len || !at)
				die("raw", "out of memory");
		}
		for (uint32_t k = 0; k < op->niov; k++) {
			const ir_iov *v = &r->s.iovs[op->iov + k];
			len[k] = (int)v->len;
			MPI_Get_address(base[v->buf] + v->off, &at[k]);
		}
		MPI_Type_create_hindexed((int)op->niov, len, at, MPI_BYTE,
		                         &r->type[i]);
		MPI_Type_commit(&r->type[i]);
	}
	free(len);
	free(at);
	r->typed_for[0] = base[0];
	r->typed_for[1] = base[1];
}

static void raw_fini(struct raw *r)
{
	raw_free_types(r);
	ir_slice_fini(&r->s);
	free(r->scratch);
	free(r->req);
	free(r->post);
	free(r->type);
}

static int raw_run(struct raw *r, uint8_t *send, uint8_t *recv)
{
	uint8_t *base[3] = {send, recv, r->scratch};
	const ir_iov *iov = r->s.iovs;
	int k = 0, npost = 0, rc = MPI_SUCCESS;
	raw_types(r, base);
	for (uint32_t i = 0; i < r->s.nops && rc == MPI_SUCCESS; i++) {
		const ir_op *op = &r->s.ops[i];
		const ir_iov *v = &iov[op->iov];
		int tag = (int)(op->phase % 32768u); /* MPI_TAG_UB >= 32767 */
		static uint8_t none; /* where an empty message points */
		uint8_t *one = op->niov ? base[v->buf] + v->off : &none;
		switch (op->code) {
		case IR_OP_COPY:
			if (r->skip_recv_copies && v[1].buf == IR_BUF_RECV)
				break;
			memmove(base[v[1].buf] + v[1].off,
			        base[v->buf] + v->off, (size_t)v->len);
			break;
		case IR_OP_RECV_REDUCE:
			r->post[npost++] = i;
			/* fall through */
		case IR_OP_RECV:
			if (r->type[i] != MPI_DATATYPE_NULL)
				rc = MPI_Irecv(MPI_BOTTOM, 1, r->type[i],
				               op->peer, tag, g_raw_comm,
				               &r->req[k++]);
			else
				rc = MPI_Irecv(one, (int)op->bytes, MPI_BYTE,
				               op->peer, tag, g_raw_comm,
				               &r->req[k++]);
			break;
		case IR_OP_SEND:
			if (r->type[i] != MPI_DATATYPE_NULL)
				rc = MPI_Isend(MPI_BOTTOM, 1, r->type[i],
				               op->peer, tag, g_raw_comm,
				               &r->req[k++]);
			else
				rc = MPI_Isend(one, (int)op->bytes, MPI_BYTE,
				               op->peer, tag, g_raw_comm,
				               &r->req[k++]);
			break;
		case IR_OP_WAIT:
			rc = MPI_Waitall(k, r->req, MPI_STATUSES_IGNORE);
			/* landed in piece 0; pieces 1.. are the partials
			 * it combines into, in order */
			for (int j = 0; j < npost && rc == MPI_SUCCESS; j++) {
				const ir_op *q = &r->s.ops[r->post[j]];
				const ir_iov *w = &iov[q->iov];
				const uint8_t *from = base[w->buf] + w->off;
				size_t es = ir_dtype_size(r->s.dtype);
				for (uint32_t p = 1;
				     p < q->niov && rc == MPI_SUCCESS; p++) {
					rc = MPI_Reduce_local(
					        from, base[w[p].buf] + w[p].off,
					        (int)(w[p].len / es),
					        ccp_mpi_ir_type(r->s.dtype),
					        ccp_mpi_ir_op(r->s.redop));
					from += w[p].len;
				}
			}
			k = npost = 0;
			break;
		default:
			break;
		}
	}
	return rc;
}

/* ---- one case ------------------------------------------------------------ */

/* What is timed: a plan scheme or one of MPI's calls. */
struct variant {
	const char *name; /* column and CSV name */
	int kind;         /* 0 plan, 1 MPI's collective, 2 neighbourhood,
	                     3 the schedule on bare MPI (struct raw) */
	unsigned flags;   /* plan: CCP_EXEC_* */
};

/* The results of one variant at one size, on rank 0: of one timing, or
 * with --repeat the median of the R timings' medians, their range, and
 * the smallest iteration of all. */
struct result {
	double med, min; /* seconds */
	double lo, hi;   /* the range of the R medians */
};

/* R values of one measure (the plan/MPI ratio of each timing),
 * summarised. */
struct spread {
	double med, lo, hi; /* their median and range */
	bool bimodal;       /* two groups far apart (see split) */
	double low, high;   /* bimodal: the median of each group */
};

/* Everything that stays the same over a case's sizes. */
struct bench {
	const struct opts *o;
	ccp_context *ctx;
	ccp_transport *t;
	FILE *csv;    /* rank 0 */
	int failures; /* sizes whose results differed */
};

/* Per-case summary of the main ratio. */
struct summary {
	int sizes, within5, beaten; /* sizes; plan <= 1.05 MPI; plan < MPI */
	double logsum;              /* sum of ln(ratio) */
	double worst;               /* largest ratio */
	int64_t worst_at;
	int over, nbimodal; /* steady sizes over the goal; bimodal */
	char over_list[400], bimodal_list[400]; /* " 1K 1.73", ... */
};

/* The goal of issue 20: plan/MPI at most this at every size. */
#define GOAL_RATIO 1.05
/* Bimodal: the R ratios, sorted, split into two groups of at least two
 * each, the step between the groups at least this factor and at least
 * as wide as either group (first to last). */
#define BIMODAL_STEP 1.5

/* The mean over p's phases of each phase's largest transfer: of every
 * transfer, or (reduced) of those a receiver combines: the M and R of
 * the permutation model with its combine cost (docs/cost-models.md). */
static double phase_mean_max(const ir_plan *p, bool reduced)
{
	double sum = 0;
	for (uint32_t k = 0; k < p->nphases; k++) {
		const ir_phase *ph = &p->phases[k];
		int64_t mx = 0;
		for (uint32_t j = 0; j < ph->ntransfers; j++) {
			const ir_transfer *x = &p->transfers[ph->transfer + j];
			if (x->bytes > mx &&
			    (!reduced || (x->flags & IR_XF_REDUCE)))
				mx = x->bytes;
		}
		sum += (double)mx;
	}
	return p->nphases ? sum / p->nphases : 0;
}

/* Compile in's plan (rank 0) and give every rank the image.  Returns the
 * image (malloc'd) or NULL with why set on every rank. */
static uint8_t *compile_bcast(const struct front_input *in, size_t *len,
                              double phase_bytes[2], bool *reproducible,
                              char *why, size_t whylen)
{
	uint64_t n = 0, repro = 0;
	uint8_t *img = NULL;
	char msg[512] = "";
	if (g_rank == 0) {
		struct compiled c;
		struct diag d;
		memset(&d, 0, sizeof d);
		if (compile_input(in, &c, &d)) {
			snprintf(msg, sizeof msg, "%s", d.message);
		} else {
			size_t l = 0;
			if (compile_encode(&c, &img, &l, msg, sizeof msg))
				img = NULL;
			n = l;
			phase_bytes[0] = phase_mean_max(&c.plan, false);
			phase_bytes[1] = phase_mean_max(&c.plan, true);
			repro = c.report.reproducible;
			compiled_fini(&c);
		}
		if (!img)
			n = 0;
	}
	uint64_t hdr[2] = {n, repro};
	MPI_Bcast(hdr, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	n = hdr[0];
	*reproducible = hdr[1] != 0;
	if (n == 0) {
		MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, 0, MPI_COMM_WORLD);
		snprintf(why, whylen, "%s", msg);
		return NULL;
	}
	if (n > INT_MAX)
		die("plan image", "larger than 2 GiB");
	if (g_rank != 0)
		img = xmalloc((size_t)n);
	MPI_Bcast(img, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
	*len = (size_t)n;
	return img;
}

/* Sort v[0..n) and summarise it in *sp.  Bimodal: among the cuts that
 * leave at least two values on each side, the one with the widest step
 * v[c] / v[c-1]; the values split when that step is at least
 * BIMODAL_STEP and at least each group's own width, last / first (two
 * tight groups far apart, not one broad spread). */
static void split(double *v, int n, struct spread *sp)
{
	sp->med = bench_median(v, n);
	sp->lo = v[0];
	sp->hi = v[n - 1];
	sp->bimodal = false;
	double best = 0;
	int cut = 0;
	for (int c = 2; c + 2 <= n; c++) {
		if (!(v[c - 1] > 0))
			continue;
		double step = v[c] / v[c - 1];
		if (step > best)
			best = step, cut = c;
	}
	if (cut == 0 || best < BIMODAL_STEP || !(v[0] > 0))
		return;
	if (best < v[cut - 1] / v[0] || best < v[n - 1] / v[cut])
		return;
	sp->bimodal = true;
	sp->low = bench_median(v, cut);
	sp->high = bench_median(v + cut, n - cut);
}

/* Time the variants, taking turns; res[v] on rank 0. */
static void time_variants(struct bench *B, ccp_plan *plan, struct raw *raw,
                          const struct mpi_side *m, uint8_t *send,
                          uint8_t *recv, const struct variant *v, int nv,
                          int64_t size, struct result *res, int *iters_out)
{
	const struct opts *o = B->o;
	int max_iters = size <= 8192 ? o->iters_small : o->iters_large;
	double *t = xmalloc(sizeof(double) * (size_t)nv * (size_t)max_iters);
	double *tmax = xmalloc(sizeof(double) * (size_t)max_iters);
	double warm = 0;
	int iters = 0;
	for (int phase = 0; phase < 2; phase++) {
		int count = phase == 0 ? o->warmup : iters;
		for (int i = 0; i < count; i++) {
			for (int k = 0; k < nv; k++) {
				/* rotate the order: each variant goes first in
				 * turn */
				int j = (i + k) % nv, rc;
				if (v[j].kind == 3 && !raw->usable)
					continue;
				MPI_Barrier(MPI_COMM_WORLD);
				double t0 = bench_now();
				if (v[j].kind == 0)
					rc = ccp_plan_execute(plan, B->t,
					                      v[j].flags);
				else if (v[j].kind == 3)
					rc = raw_run(raw, send, recv);
				else
					rc = mpi_run(m, send, recv,
					             v[j].kind == 2);
				double dt = bench_now() - t0;
				if (rc)
					die(v[j].name,
					    v[j].kind == 0 ? ccp_errmsg(B->ctx)
					                   : "MPI call failed");
				if (phase == 0)
					warm += dt;
				else
					t[(size_t)j * (size_t)max_iters +
					  (size_t)i] = dt;
			}
		}
		if (phase == 0) {
			/* every rank takes the same count */
			double per = warm / o->warmup, pmax = 0;
			MPI_Allreduce(&per, &pmax, 1, MPI_DOUBLE, MPI_MAX,
			              MPI_COMM_WORLD);
			double fit = pmax > 0 ? o->budget / pmax : max_iters;
			iters = fit < max_iters ? (int)fit : max_iters;
			if (iters < 5)
				iters = 5 < max_iters ? 5 : max_iters;
		}
	}
	for (int j = 0; j < nv; j++) {
		if (v[j].kind == 3 && !raw->usable) {
			res[j].med = res[j].min = NAN;
			continue;
		}
		MPI_Reduce(t + (size_t)j * (size_t)max_iters, tmax, iters,
		           MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
		if (g_rank == 0) {
			double mn = tmax[0];
			for (int i = 1; i < iters; i++)
				if (tmax[i] < mn)
					mn = tmax[i];
			res[j].min = mn;
			res[j].med = bench_median(tmax, iters);
		}
	}
	*iters_out = iters;
	free(t);
	free(tmax);
}

/* Time the variants o->repeat times (time_variants); res[v] on rank 0:
 * the median of the R medians and their range; of each timing's ratios,
 * summarised: ratio[0] plan/MPI, [1] plan/neighbourhood (irregular),
 * [2] raw/MPI and [3] plan/raw (variant iraw, the bare schedule, if
 * iraw >= 0). */
static void time_repeated(struct bench *B, ccp_plan *plan, struct raw *raw,
                          const struct mpi_side *m, uint8_t *send,
                          uint8_t *recv, const struct variant *v, int nv,
                          int impi, int iraw, bool irr, int64_t size,
                          struct result *res, struct spread ratio[4],
                          int *iters_out)
{
	int R = B->o->repeat;
	double *med = xmalloc(sizeof(double) * (size_t)nv * (size_t)R);
	double *rat = xmalloc(sizeof(double) * 4 * (size_t)R);
	for (int j = 0; j < nv; j++)
		res[j].min = INFINITY;
	for (int r = 0; r < R; r++) {
		struct result one[8];
		time_variants(B, plan, raw, m, send, recv, v, nv, size, one,
		              iters_out);
		if (g_rank != 0)
			continue;
		for (int j = 0; j < nv; j++) {
			med[(size_t)j * (size_t)R + (size_t)r] = one[j].med;
			if (!(one[j].min >= res[j].min))
				res[j].min = one[j].min; /* NaN too */
		}
		rat[r] = one[0].med / one[impi].med;
		rat[R + r] = irr ? one[0].med / one[impi + 1].med : 1;
		double raw_us = iraw >= 0 ? one[iraw].med : NAN;
		rat[2 * R + r] = raw_us / one[impi].med;
		rat[3 * R + r] = one[0].med / raw_us;
	}
	if (g_rank == 0) {
		for (int j = 0; j < nv; j++) {
			struct spread sp;
			split(med + (size_t)j * (size_t)R, R, &sp);
			res[j].med = sp.med;
			res[j].lo = sp.lo;
			res[j].hi = sp.hi;
		}
		for (int k = 0; k < 4; k++)
			split(rat + k * R, R, &ratio[k]);
	}
	free(med);
	free(rat);
}

static void size_label(int64_t b, char *out, size_t len)
{
	if (b >= (1 << 20) && b % (1 << 20) == 0)
		snprintf(out, len, "%lldM", (long long)(b >> 20));
	else if (b >= 1024 && b % 1024 == 0)
		snprintf(out, len, "%lldK", (long long)(b >> 10));
	else
		snprintf(out, len, "%lld", (long long)b);
}

/* Whether the plan's float or double result got (len bytes) is within
 * rounding of MPI's, want: two sums of the same n terms in different
 * orders differ by at most 2(n-1)u times the sum of their magnitudes
 * (u = eps/2), which is the result itself for fill_send's positive
 * terms.  *maxrel: the largest relative difference. */
static bool within_rounding(const uint8_t *got, const uint8_t *want, size_t len,
                            enum ir_dtype dt, int n, double *maxrel)
{
	size_t es = ir_dtype_size(dt);
	double eps = dt == IR_DT_FLOAT ? FLT_EPSILON : DBL_EPSILON;
	bool ok = true;
	for (size_t i = 0; i + es <= len; i += es) {
		double p, w;
		if (dt == IR_DT_FLOAT) {
			float pf, wf;
			memcpy(&pf, got + i, es);
			memcpy(&wf, want + i, es);
			p = pf, w = wf;
		} else {
			memcpy(&p, got + i, es);
			memcpy(&w, want + i, es);
		}
		double d = fabs(p - w);
		if (!(d <= 2.0 * n * eps * fabs(w)))
			ok = false; /* NaN too */
		else if (w != 0 && d / fabs(w) > *maxrel)
			*maxrel = d / fabs(w);
	}
	return ok;
}

/* Whether buf (len bytes) is the same on every rank as on rank 0: rank
 * 0's copy is broadcast and compared; 1 on every rank, or 0. */
static int same_on_all(const uint8_t *buf, size_t len)
{
	if (len > INT_MAX)
		die("result", "larger than 2 GiB");
	uint8_t *r0 = xmalloc(len);
	if (g_rank == 0)
		memcpy(r0, buf, len);
	MPI_Bcast(r0, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
	int same = !memcmp(r0, buf, len), all = 0;
	MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	free(r0);
	return all;
}

/* The 1-, 5- and 15-minute load averages (/proc/loadavg), or "?": the
 * tables are read with the machine's load in view. */
static void load_average(char *out, size_t len)
{
	double l[3];
	FILE *f = fopen("/proc/loadavg", "r");
	if (f && fscanf(f, "%lf %lf %lf", &l[0], &l[1], &l[2]) == 3)
		snprintf(out, len, "%.2f %.2f %.2f", l[0], l[1], l[2]);
	else
		snprintf(out, len, "?");
	if (f)
		fclose(f);
}

/* Seconds t in microseconds, to about three digits: buf. */
static const char *us(double t, char buf[24])
{
	double u = 1e6 * t;
	snprintf(buf, 24, u < 10 ? "%.2f" : "%.1f", u);
	return buf;
}

/* Count a size's ratio towards the goal: a bimodal one apart. */
static void note_goal(struct summary *S, const char *lab,
                      const struct spread *r)
{
	size_t n;
	if (r->bimodal) {
		S->nbimodal++;
		n = strlen(S->bimodal_list);
		snprintf(S->bimodal_list + n, sizeof S->bimodal_list - n,
		         " %s %.2f|%.2f", lab, r->low, r->high);
	} else if (r->med > GOAL_RATIO) {
		S->over++;
		n = strlen(S->over_list);
		snprintf(S->over_list + n, sizeof S->over_list - n, " %s %.2f",
		         lab, r->med);
	}
}

/* The goal line: met only when every steady size is within the goal
 * and none is bimodal; a bimodal size is never counted either way, but
 * listed with its two groups. */
static void say_goal(const char *name, const struct summary *S)
{
	int steady = S->sizes - S->nbimodal;
	if (S->over)
		say("   %s: goal plan/MPI <= %.2f at every size: NOT MET, over "
		    "at %d of %d steady sizes:%s",
		    name, GOAL_RATIO, S->over, steady, S->over_list);
	else if (S->nbimodal)
		say("   %s: goal plan/MPI <= %.2f at every size: UNDECIDED, "
		    "met at the %d steady sizes",
		    name, GOAL_RATIO, steady);
	else
		say("   %s: goal plan/MPI <= %.2f at every size: met at all "
		    "%d",
		    name, GOAL_RATIO, S->sizes);
	if (S->nbimodal)
		say("; bimodal (not judged, low|high group):%s",
		    S->bimodal_list);
	say("\n");
}

/* Run one case over its sizes.  in is parsed on every rank; fractions:
 * a float reduction gets non-integer data (struct builtin). */
static void run_case(struct bench *B, const char *name, struct front_input *in,
                     bool fractions)
{
	const struct opts *o = B->o;
	ir_comm *c = &in->comm;
	bool irr = c->coll == IR_IRREGULAR;
	bool reduces = ir_coll_kind(c->coll) & IR_CK_REDUCES;
	bool inexact = fractions && reduces &&
	               (c->dtype == IR_DT_FLOAT || c->dtype == IR_DT_DOUBLE);
	if (in->machine.nranks != g_size) {
		say("\n== %s: skipped: the input's machine has %d ranks, the "
		    "job %d\n",
		    name, (int)in->machine.nranks, g_size);
		return;
	}
	if (c->coll == IR_TRANSPOSE) {
		say("\n== %s: skipped: MPI has no transpose collective\n",
		    name);
		return;
	}
	/* the variants */
	struct variant v[8];
	int nv = 0;
	v[nv++] = (struct variant){"s2-nb", 0,
	                           CCP_EXEC_S2 | CCP_EXEC_NO_BARRIER |
	                                   CCP_EXEC_NO_CHECK};
	if (o->all_schemes) {
		v[nv++] = (struct variant){"s1-nb", 0,
		                           CCP_EXEC_S1 | CCP_EXEC_NO_BARRIER |
		                                   CCP_EXEC_NO_CHECK};
		v[nv++] = (struct variant){"s2-bar", 0,
		                           CCP_EXEC_S2 | CCP_EXEC_NO_CHECK};
		v[nv++] = (struct variant){"s1-bar", 0,
		                           CCP_EXEC_S1 | CCP_EXEC_NO_CHECK};
	}
	if (o->raw)
		v[nv++] = (struct variant){"raw", 3, 0};
	int impi = nv;
	v[nv++] = (struct variant){irr ? "alltoallv" : "mpi", 1, 0};
	if (irr)
		v[nv++] = (struct variant){"neighbor", 2, 0};

	char what[160] = "";
	if (irr)
		snprintf(what, sizeof what, "%lld messages",
		         (long long)c->matrix->nnz);
	else if (c->coll == IR_REDUCE)
		snprintf(what, sizeof what, "%s %s, root %d",
		         ir_dtype_name(c->dtype), ir_redop_name(c->op),
		         (int)c->root);
	else if (reduces)
		snprintf(what, sizeof what, "%s %s%s", ir_dtype_name(c->dtype),
		         ir_redop_name(c->op),
		         inexact ? ", non-integer data" : "");
	else if (ir_coll_kind(c->coll) & IR_CK_ROOTED)
		snprintf(what, sizeof what, "root %d", (int)c->root);
	char load[64];
	load_average(load, sizeof load);
	say("\n== %s: %s %s, %d ranks%s%s; against %s%s; load average %s\n",
	    name, ir_coll_name(c->coll), in->algorithm, g_size,
	    *what ? ", " : "", what, mpi_name(c->coll),
	    irr ? " and MPI_Neighbor_alltoallv" : "", load);
	bool rep = o->repeat > 1;
	say("%8s %4s %4s", "bytes", "ph", "lb");
	for (int j = 0; j < nv; j++) {
		char h[40];
		snprintf(h, sizeof h, "%s_us", j == 0 ? "plan" : v[j].name);
		say(" %10s", h);
		if (j == 0 || j >= impi)
			say(rep ? " %15s" : " %8s", rep ? "(range)" : "(min)");
	}
	say(" %9s", irr ? "plan/av" : "plan/mpi");
	if (rep)
		say(" %11s", "(range)");
	if (irr)
		say(" %9s", "plan/nbr");
	if (o->raw)
		say(" %8s %8s", "raw/mpi", "plan/raw");
	if (inexact)
		say(" %9s", "maxrel");
	say(" %6s\n", "iters");

	struct summary S = {0};
	int nrepro = 0, plan_same_n = 0, mpi_same_n = 0;
	double maxrel_all = 0;
	int64_t lo = irr ? o->irr_min : o->min_size;
	int64_t hi = irr ? o->irr_max : o->max_size;
	int32_t seg0 = c->segments;
	for (int64_t size = lo; size <= hi; size *= o->factor) {
		/* this size's communication */
		if (irr) {
			for (int64_t k = 0; k < c->matrix->nnz; k++)
				c->matrix->bytes[k] = size;
		} else {
			if (reduces && size % (int64_t)ir_dtype_size(c->dtype))
				continue;
			c->bytes = size;
			if (c->coll == IR_BCAST)
				c->segments =
				        seg0 > size ? (int32_t)size : seg0;
		}
		char why[512], lab[32];
		size_label(size, lab, sizeof lab);
		size_t ilen = 0;
		double phase_bytes[2] = {0, 0};
		bool repro = false;
		uint8_t *img = compile_bcast(in, &ilen, phase_bytes, &repro,
		                             why, sizeof why);
		if (!img) {
			say("%8s   not compiled: %s\n", lab, why);
			continue;
		}
		ir_file_info fi;
		char err[256];
		if (ir_file_info_read(img, ilen, &fi, err, sizeof err))
			die("plan header", err);
		ccp_plan *plan;
		if (ccp_plan_load_memory(B->ctx, img, ilen, g_rank, &plan))
			die("ccp_plan_load_memory", ccp_errmsg(B->ctx));
		struct raw raw;
		raw_init(&raw, img, ilen);
		free(img);
		ccp_plan_info info;
		ccp_plan_get_info(plan, &info);

		struct mpi_side m;
		mpi_side_init(&m, c);
		size_t slen = m.send_len > info.send_bytes
		                      ? m.send_len
		                      : (size_t)info.send_bytes;
		size_t rlen = m.recv_len > info.recv_bytes
		                      ? m.recv_len
		                      : (size_t)info.recv_bytes;
		uint8_t *send = xmalloc(slen), *recv = xmalloc(rlen);
		uint8_t *want = xmalloc(m.out_len);
		fill_send(send, slen, c, inexact);
		memset(recv, 0, rlen);
		/* a broadcast root's result is its send buffer, as
		 * MPI_Bcast's: bound without a receive buffer, the plan
		 * skips the prologue's copy into it, and so does the bare
		 * schedule; a root whose plan sends from its receive buffer
		 * is refused, and binds it */
		bool root_send =
		        c->coll == IR_BCAST && m.out_in_send &&
		        ccp_plan_bind(plan, send, slen, NULL, 0, NULL, 0) == 0;
		if (!root_send &&
		    ccp_plan_bind(plan, send, slen, recv, rlen, NULL, 0))
			die("ccp_plan_bind", ccp_errmsg(B->ctx));
		raw.skip_recv_copies = root_send;

		/* once: MPI's result, then the plan's (a checked execution,
		 * into a buffer holding the complement of MPI's result) */
		if (mpi_run(&m, send, recv, false) != MPI_SUCCESS)
			die(mpi_name(c->coll), "failed");
		memcpy(want, m.out_in_send ? send : recv, m.out_len);
		bool plan_fills = !root_send && !(m.out_in_send &&
		                                  info.recv_bytes < m.out_len);
		for (size_t i = 0; i < m.out_len && plan_fills; i++)
			recv[i] = (uint8_t)~want[i];
		int rc = ccp_plan_execute(plan, B->t, CCP_EXEC_DEFAULT);
		if (rc)
			die("ccp_plan_execute", ccp_errmsg(B->ctx));
		/* float sums of fractions round by order: within a bound of
		 * MPI's, and the raw schedule (the same order) bit for bit */
		double maxrel = 0;
		int ok;
		if (!plan_fills) /* a root's result: its send buffer */
			ok = !memcmp(send, want, m.out_len);
		else if (inexact)
			ok = within_rounding(recv, want, m.out_len, c->dtype,
			                     g_size, &maxrel);
		else
			ok = !memcmp(recv, want, m.out_len);
		uint8_t *got = xmalloc(m.out_len);
		memcpy(got, inexact ? recv : want, m.out_len);
		/* an allreduce the verifier calls reproducible gives the same
		 * bits on every rank; MPI's is only reported */
		int plan_same = 1, mpi_same = 1;
		if (c->coll == IR_ALLREDUCE) {
			plan_same = same_on_all(recv, m.out_len);
			mpi_same = same_on_all(want, m.out_len);
			nrepro += repro;
			plan_same_n += plan_same;
			mpi_same_n += mpi_same;
			if (repro && !plan_same)
				ok = 0;
		}
		if (irr) { /* the neighbourhood collective gives the same */
			for (size_t i = 0; i < m.out_len; i++)
				recv[i] = (uint8_t)~want[i];
			if (mpi_run(&m, send, recv, true) != MPI_SUCCESS)
				die("MPI_Neighbor_alltoallv", "failed");
			ok = ok && !memcmp(recv, want, m.out_len);
		}
		if (o->raw && raw.usable) { /* and so does the bare schedule */
			for (size_t i = 0; i < m.out_len && plan_fills; i++)
				recv[i] = (uint8_t)~want[i];
			if (raw_run(&raw, send, recv) != MPI_SUCCESS)
				die("raw schedule", "an MPI call failed");
			ok = ok &&
			     (!plan_fills || !memcmp(recv, got, m.out_len));
		}
		free(got);
		int all_ok = 0;
		MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN,
		              MPI_COMM_WORLD);
		double maxrel_size = 0;
		MPI_Reduce(&maxrel, &maxrel_size, 1, MPI_DOUBLE, MPI_MAX, 0,
		           MPI_COMM_WORLD);
		if (maxrel_size > maxrel_all)
			maxrel_all = maxrel_size;

		struct result res[8];
		struct spread rs[4]; /* plan/MPI, plan/nbr, raw/MPI, plan/raw */
		int iters = 0;
		time_repeated(B, plan, &raw, &m, send, recv, v, nv, impi,
		              o->raw ? impi - 1 : -1, irr, size, res, rs,
		              &iters);

		if (g_rank == 0) {
			printf("%8s %4u %4u", lab, (unsigned)fi.nphases,
			       (unsigned)fi.lb_phases);
			for (int j = 0; j < nv; j++) {
				char a[24], b[24];
				if (isnan(res[j].med))
					printf(" %10s", "-");
				else
					printf(" %10s", us(res[j].med, a));
				if ((j == 0 || j >= impi) && rep) {
					char r[60];
					snprintf(r, sizeof r, "%s-%s",
					         us(res[j].lo, a),
					         us(res[j].hi, b));
					printf(" %15s", r);
				} else if (j == 0 || j >= impi) {
					printf(" %8s", us(res[j].min, a));
				}
			}
			/* the median of the R timings' ratios */
			double ratio = rs[0].med;
			printf(" %9.2f", ratio);
			if (rep) {
				char r[40];
				snprintf(r, sizeof r, "%.2f-%.2f", rs[0].lo,
				         rs[0].hi);
				printf(" %11s", r);
			}
			if (irr)
				printf(" %9.2f", rs[1].med);
			if (o->raw)
				printf(" %8.2f %8.2f", rs[2].med, rs[3].med);
			if (inexact)
				printf(" %9.1e", maxrel_size);
			/* what `auto` chose */
			bool chose = strcmp(in->algorithm, fi.algorithm) != 0;
			char flag[80] = "";
			if (rs[0].bimodal)
				snprintf(flag, sizeof flag,
				         "  BIMODAL %.2f | %.2f", rs[0].low,
				         rs[0].high);
			printf(" %6d%s%s%s%s%s\n", iters, chose ? " " : "",
			       chose ? fi.algorithm : "", flag,
			       all_ok ? "" : "  RESULT DIFFERS FROM MPI",
			       repro && !plan_same ? " (OR BETWEEN RANKS, "
			                             "REPRODUCIBLE PLAN)"
			                           : "");
			fflush(stdout);
			S.sizes++;
			S.within5 += ratio <= GOAL_RATIO;
			S.beaten += ratio < 1.0;
			S.logsum += log(ratio);
			if (ratio > S.worst) {
				S.worst = ratio;
				S.worst_at = size;
			}
			note_goal(&S, lab, &rs[0]);
			for (int j = 0; B->csv && j < nv; j++) {
				if (isnan(res[j].med))
					continue;
				fprintf(B->csv,
				        "%s,%s,%s,%d,%s,%lld,%.3f,%.3f,%d",
				        ir_coll_name(c->coll), fi.algorithm,
				        name, g_size, v[j].name,
				        (long long)size, 1e6 * res[j].med,
				        1e6 * res[j].min, iters);
				if (v[j].kind == 0 || v[j].kind == 3)
					fprintf(B->csv,
					        ",%u,%u,%.1f,%.3f,%.1f\n",
					        (unsigned)fi.nphases,
					        (unsigned)fi.lb_phases,
					        phase_bytes[0],
					        fi.nphases ? 1e6 * res[j].med /
					                             fi.nphases
					                   : 0.0,
					        phase_bytes[1]);
				else
					fprintf(B->csv, ",,,,,\n");
			}
		}
		if (!all_ok)
			B->failures++;
		ccp_plan_free(plan);
		raw_fini(&raw);
		mpi_side_fini(&m);
		free(send);
		free(recv);
		free(want);
	}
	if (S.sizes) {
		char lab[32];
		size_label(S.worst_at, lab, sizeof lab);
		say("   %s: plan within 5%% of %s at %d of %d sizes, faster at "
		    "%d; geometric mean plan/MPI %.2f, worst %.2f at %s\n",
		    name, mpi_name(c->coll), S.within5, S.sizes, S.beaten,
		    exp(S.logsum / S.sizes), S.worst, lab);
		say_goal(name, &S);
	}
	if (S.sizes && c->coll == IR_ALLREDUCE)
		say("   %s: reproducible plan (verifier) at %d of %d sizes; "
		    "result the same on every rank: plan at %d, %s at %d\n",
		    name, nrepro, S.sizes, plan_same_n, mpi_name(c->coll),
		    mpi_same_n);
	if (S.sizes && inexact)
		say("   %s: largest relative difference from %s %.1e "
		    "(bound 2 n eps = %.1e)\n",
		    name, mpi_name(c->coll), maxrel_all,
		    2.0 * g_size *
		            (c->dtype == IR_DT_FLOAT ? FLT_EPSILON
		                                     : DBL_EPSILON));
}

/* ---- main ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &g_size);

	struct opts o;
	bool list;
	int prc = parse_opts(argc, argv, &o, &list);
	if (prc) {
		MPI_Finalize();
		return prc == 1 ? 0 : 2;
	}
	if (list) {
		say("built-in cases (* runs by default; others with "
		    "--only):\n");
		for (size_t i = 0; i < NBUILTINS; i++) {
			char *y = builtin_yaml(&builtins[i], g_size, o.seed,
			                       o.cost, o.one_node);
			for (char *p = y; *p; p++)
				if (*p == '\n')
					*p = ' ';
			say(" %c %-14s %s\n", builtins[i].extra ? ' ' : '*',
			    builtins[i].name, y);
			free(y);
		}
		MPI_Finalize();
		return 0;
	}

	struct bench B = {.o = &o};
	if (ccp_init(&B.ctx, NULL, NULL))
		die("ccp_init", "failed");
	if (ccp_mpi_transport(B.ctx, MPI_COMM_WORLD, &B.t))
		die("ccp_mpi_transport", ccp_errmsg(B.ctx));
	MPI_Comm_dup(MPI_COMM_WORLD, &g_raw_comm);
	if (g_rank == 0 && o.csv) {
		B.csv = fopen(o.csv, "w");
		if (!B.csv)
			die(o.csv, strerror(errno));
		fprintf(B.csv,
		        "# ccplan-bench, %d ranks; us = median of the "
		        "iterations' slowest rank; `ccplan tau fit` "
		        "reads bytes,us (or --columns "
		        "phase_bytes,phase_us; --costs fits tau, phi and "
		        "combine)\n",
		        g_size);
		fprintf(B.csv, "collective,algorithm,case,ranks,variant,bytes,"
		               "us,min_us,iters,phases,lb_phases,phase_bytes,"
		               "phase_us,phase_combine\n");
	}
	say("ccplan-bench: %d ranks, %s transport; median (and min) over "
	    "iterations of the slowest rank, microseconds\n"
	    "plan = CCP_EXEC_S2|NO_BARRIER|NO_CHECK after one checked run "
	    "whose result equals MPI's; ph = plan phases, lb = lower bound\n",
	    g_size, ccp_transport_name(B.t));

	for (size_t i = 0; o.builtin && i < NBUILTINS; i++) {
		const struct builtin *b = &builtins[i];
		if (o.only ? !selected(o.only, b->name) : b->extra)
			continue;
		char *y = builtin_yaml(b, g_size, o.seed, o.cost, o.one_node);
		struct front_input in;
		struct diag d;
		memset(&d, 0, sizeof d);
		if (front_parse_string(b->name, y, strlen(y), &in, &d))
			die(b->name, d.message);
		free(y);
		run_case(&B, b->name, &in, b->fractions);
		front_input_fini(&in);
	}
	for (int i = 0; i < o.ninputs; i++) {
		struct front_input in;
		struct diag d;
		memset(&d, 0, sizeof d);
		if (front_parse_file(o.inputs[i], &in, &d)) {
			say("\n== %s: skipped: %s:%d:%d: %s\n", o.inputs[i],
			    d.file, d.line, d.column, d.message);
			continue;
		}
		run_case(&B, o.inputs[i], &in, false);
		front_input_fini(&in);
	}
	char load[64];
	load_average(load, sizeof load);
	say("\nccplan-bench: done; load average %s\n", load);
	if (B.failures)
		say("\nccplan-bench: %d sizes where the plan's result differs "
		    "from MPI's\n",
		    B.failures);
	if (B.csv)
		fclose(B.csv);
	MPI_Comm_free(&g_raw_comm);
	ccp_transport_free(B.t);
	ccp_fini(B.ctx);
	int failures = B.failures;
	MPI_Finalize();
	return failures ? 1 : 0;
}
