/*
 * stress_compile.c - the first half of the load test (issue 9,
 * docs/reliability.md, "Load"): many random inputs compiled one after
 * another by one process, through one plan cache, as the library does it
 * for `ccplan compile` (front_parse_string, compile_cached).
 *
 * Inputs are YAML text written from a seeded generator: every algorithm
 * of the registry, and `auto`, takes turns (each block of as many fresh
 * inputs as there are algorithms holds each one once, in shuffled order),
 * each with a random machine and communication from where it applies
 * (topology and size, ports, cost presets, collective, root, bytes,
 * segments, element type, irregular matrices generated with seeds or
 * written inline), now and then from where another algorithm applies, so
 * that refusals happen too.  A share of inputs repeats an earlier one,
 * written in another style (flow or block mappings, root as a rank or
 * as coordinates, key order), which must hit the cache.
 *
 * Every result is checked: the verifier accepted the plan; its image
 * passes ir_image_check, decodes, and the decoded plan passes the
 * verifier again; the copy stored in the cache is byte for byte the
 * compiled image; a hit, and a miss, give exactly the bytes a fresh
 * compile of the same input (compile_input, no cache) gives.  An input an algorithm refuses as not applicable is
 * counted apart, not as a failure.
 *
 * Memory is sampled every K inputs: the allocator's live bytes, SQLite's
 * share of them (counted by an allocator given to SQLite), and the RSS.
 * After the warm-up, the live bytes outside SQLite must not grow at all,
 * and SQLite's must stay within its page cache's bound.
 *
 * Usage: stress_compile [-n N] [--seed S] [--every K] [--warmup W]
 *                       [--repeat PCT] [--cache PATH] [--dump I] [-v]
 * Exit status: 0 every check passed and no growth; 1 otherwise; 3 a
 * set-up failure.
 */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cache.h"
#include "cached.h"
#include "compile.h"
#include "rng.h"
#include "sched.h"
#include "stress.h"

#define MAX_ALGS     64  /* registry entries and auto */
#define MAX_FAILS    10  /* failures printed in full */
#define MAX_SAMPLES  256 /* memory samples kept */
#define MISMATCH_PCT 4   /* inputs drawn from another algorithm's domain */
#define ALLTOALL_MAX 256 /* ranks of a complete exchange (domains) */
/* SQLite may keep up to its page cache's size (the default cache_size of
 * -2000, 2000 KiB) of pages, and some statements and schema: growth of
 * its memory past the warm-up is judged against this bound. */
#define SQLITE_BOUND (4u << 20)

/* ---- the inputs ------------------------------------------------------ */

/* A machine, as the input will say it. */
struct shape {
	enum ir_topo topo;
	int nd;             /* mesh, torus: extents written */
	int dims[3];        /* mesh, torus */
	int cube;           /* hypercube dimension */
	int ranks;          /* switch */
	int lv[2][2];       /* hpam: rows, cols of level 1, then level 2 */
	int ports;          /* 0: all, 1: one, k */
	const char *preset; /* cost preset, or NULL */
	int alpha_tenths;   /* > 0: an explicit alpha (and beta) instead */
};

/* The irregular pattern's form. */
enum form { F_REGULAR, F_DENSITY, F_SKEWED, F_EDGES, F_MATRIX, F_NFORMS };

/* One input.  What is random in it is drawn from its own generator
 * (content), and how it is written from another (style), so that a
 * repeat can say the same thing differently. */
struct input {
	const char *alg;
	struct shape m;
	enum ir_coll coll;
	int32_t root;
	int64_t bytes;
	int segments;
	int dtype, op;  /* reductions */
	bool reproducible; /* reductions: reproducible: true */
	enum form form; /* irregular */
	int degree, hot, density_pct;
	uint64_t mseed; /* generated matrix seed; edges and matrix: their
	                   own draws */
	int contention; /* 0 default, 1 forbid, 2 allow */
	bool select_model;
	bool has_seed;
	uint64_t seed;
};

static int nranks(const struct shape *m)
{
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		return m->dims[0] * m->dims[1] * m->dims[2];
	case IR_HYPERCUBE:
		return 1 << m->cube;
	case IR_SWITCH:
		return m->ranks;
	case IR_HPAM:
		return m->lv[0][0] * m->lv[0][1] + m->lv[1][0] * m->lv[1][1];
	case IR_FAT_TREE: /* never drawn (domain_machine) */
	case IR_GRAPH:
	case IR_DRAGONFLY:
		break;
	}
	return 0;
}

/* The generator an input is drawn from, and its size class: 0 small (up
 * to about 64 ranks), 1 medium (about 500), 2 large (a few thousand). */
struct draw {
	struct ir_rng rng;
	int scale;
};

static int below(struct draw *r, int n)
{
	return (int)ir_rng_below(&r->rng, (uint64_t)n);
}

/* An integer in [lo, hi]. */
static int between(struct draw *r, int lo, int hi)
{
	return lo + below(r, hi - lo + 1);
}

static bool chance(struct draw *r, int pct)
{
	return below(r, 100) < pct;
}

/* A message size: zero now and then, mostly small, some large. */
static int64_t rand_bytes(struct draw *r)
{
	int k = below(r, 100);
	if (k < 4)
		return 0;
	if (k < 20)
		return between(r, 1, 16);
	if (k < 60)
		return between(r, 17, 1024);
	if (k < 96)
		return between(r, 1025, 65536);
	return between(r, 65537, 1 << 20);
}

/* ---- machines -------------------------------------------------------- */

/* The largest extent of a grid of nd dimensions in r's size class. */
static int side_max(const struct draw *r, int nd)
{
	static const int max[3][3] = {{64, 8, 4}, {512, 24, 8}, {4096, 64, 16}};
	return max[r->scale][nd - 1];
}

static void grid(struct shape *m, enum ir_topo t, int x, int y, int z)
{
	memset(m, 0, sizeof *m);
	m->topo = t;
	m->dims[0] = x;
	m->dims[1] = y > 0 ? y : 1;
	m->dims[2] = z > 0 ? z : 1;
	m->nd = z > 0 ? 3 : y > 0 ? 2 : 1;
}

/* A mesh or torus of nd dimensions in r's size class. */
static void grid_nd(struct draw *r, struct shape *m, enum ir_topo t, int nd)
{
	int s = side_max(r, nd);
	grid(m, t, between(r, 1, s), nd > 1 ? between(r, 1, s) : 0,
	     nd > 2 ? between(r, 1, s) : 0);
}

/* A 1D or 2D mesh. */
static void mesh2d(struct draw *r, struct shape *m)
{
	grid_nd(r, m, IR_MESH, chance(r, 15) ? 1 : 2);
}

/* A mesh or torus of 1 to 3 dimensions. */
static void grid_any(struct draw *r, struct shape *m, enum ir_topo t)
{
	grid_nd(r, m, t, between(r, 1, 3));
}

static void cube(struct draw *r, struct shape *m)
{
	static const int lo[] = {1, 7, 10}, hi[] = {6, 9, 12};
	memset(m, 0, sizeof *m);
	m->topo = IR_HYPERCUBE;
	m->cube = between(r, lo[r->scale], hi[r->scale]);
}

static void xswitch(struct draw *r, struct shape *m, bool pow2)
{
	static const int lg[] = {6, 8, 10};
	memset(m, 0, sizeof *m);
	m->topo = IR_SWITCH;
	m->ranks = pow2 ? 1 << between(r, 0, lg[r->scale])
	                : between(r, 1, 1 << lg[r->scale]);
}

/* A two-level HPAM: any rows, power-of-two columns, cols1 <= cols2;
 * one-port nodes half the time, as in 000. */
static void hpam(struct draw *r, struct shape *m)
{
	static const int rows[] = {6, 16, 32}, lg[] = {2, 4, 5};
	memset(m, 0, sizeof *m);
	m->topo = IR_HPAM;
	m->ports = chance(r, 50) ? 1 : 0;
	m->lv[0][0] = between(r, 1, 4);
	m->lv[0][1] = 1 << between(r, 0, 2);
	m->lv[1][0] = between(r, 1, rows[r->scale]);
	m->lv[1][1] = m->lv[0][1] << between(r, 0, lg[r->scale] - 2);
}

/* Any machine of the topologies a generator's domain names (SCH_T
 * bits): one of them uniformly, HPAM only now and then when there are
 * others.  Fat trees, graphs and dragonflies are not drawn (this
 * benchmark's shapes have no switches, routers or groups); a generator
 * that takes only them is drawn on a switch. */
static void domain_machine(struct draw *r, unsigned topos, struct shape *m)
{
	topos &= SCH_TOPOS_ANY & ~SCH_T(IR_FAT_TREE) & ~SCH_T(IR_GRAPH) &
	         ~SCH_T(IR_DRAGONFLY);
	if (!topos)
		topos = SCH_T(IR_SWITCH);
	if ((topos & SCH_T(IR_HPAM)) &&
	    (topos == SCH_T(IR_HPAM) || chance(r, 10))) {
		hpam(r, m);
		return;
	}
	topos &= ~SCH_T(IR_HPAM);
	int n = 0, t = 0;
	for (int k = 0; k < IR_NTOPOS; k++)
		n += (topos >> k) & 1u;
	for (int k = below(r, n);; t++)
		if (((topos >> t) & 1u) && k-- == 0)
			break;
	switch ((enum ir_topo)t) {
	case IR_MESH:
	case IR_TORUS:
		grid_any(r, m, (enum ir_topo)t);
		break;
	case IR_HYPERCUBE:
		cube(r, m);
		break;
	case IR_SWITCH:
		xswitch(r, m, false);
		break;
	case IR_HPAM: /* not left: drawn above */
		hpam(r, m);
		break;
	case IR_FAT_TREE: /* not left: taken out above */
	case IR_GRAPH:
	case IR_DRAGONFLY:
		xswitch(r, m, false);
		break;
	}
}

/* Power-of-two ranks: a hypercube, a switch, or a mesh or torus with
 * power-of-two sides. */
static void pow2_machine(struct draw *r, struct shape *m)
{
	static const int lg[] = {3, 4, 6};
	int k = lg[r->scale];
	switch (below(r, 3)) {
	case 0:
		cube(r, m);
		break;
	case 1:
		xswitch(r, m, true);
		break;
	default:
		grid(m, chance(r, 50) ? IR_MESH : IR_TORUS,
		     1 << between(r, 0, k), 1 << between(r, 0, k),
		     chance(r, 30) ? 1 << between(r, 0, 2) : 0);
		break;
	}
}

/* A 2D mesh edn takes: each side b*2^k, b = 4..7. */
static void edn_mesh(struct draw *r, struct shape *m)
{
	int s[2];
	for (int d = 0; d < 2; d++) {
		s[d] = between(r, 4, 7);
		while (2 * s[d] <= side_max(r, 2) && chance(r, 50))
			s[d] *= 2;
	}
	grid(m, IR_MESH, s[0], s[1], 0);
}

/* ---- communications -------------------------------------------------- */

static void irregular(struct draw *r, struct input *in)
{
	int n = nranks(&in->m);
	in->coll = IR_IRREGULAR;
	in->bytes = rand_bytes(r);
	in->mseed = ir_rng_next(&r->rng) >> 1;
	in->form = (enum form)below(r, F_NFORMS);
	if (in->form == F_MATRIX && n > 16)
		in->form = F_EDGES;
	in->degree = between(r, 1, n - 1 < 16 ? n - 1 : 16);
	in->hot = between(r, 1, n < 3 ? n : 3);
	in->density_pct = between(r, 1, n > 256 ? 2 : 60);
	if (in->form == F_SKEWED && chance(r, 20))
		in->degree = 0;
}

static void communication(struct draw *r, struct input *in, enum ir_coll c)
{
	if (c == IR_IRREGULAR) {
		irregular(r, in);
		return;
	}
	int n = nranks(&in->m);
	in->coll = c;
	in->root = (int32_t)below(r, n);
	in->bytes = rand_bytes(r);
	in->segments = 1;
	if (c == IR_BCAST && in->bytes > 0 && chance(r, 40)) {
		int s = between(r, 2, 16);
		in->segments = s < in->bytes ? s : (int)in->bytes;
	}
	if (ir_coll_kind(c) & IR_CK_REDUCES) {
		static const int size[] = {1, 4, 8, 4, 8};
		in->dtype = below(r, 5);
		in->op = below(r, 4);
		in->bytes = (in->bytes / size[in->dtype]) * size[in->dtype];
		in->reproducible = chance(r, 30);
	}
}

/* scatter_collect cuts the message into one segment per rank, so at
 * least a byte per rank */
static void segment_per_rank(struct draw *r, struct input *in)
{
	int n = nranks(&in->m);
	in->segments = n;
	if (in->bytes < n)
		in->bytes = n + below(r, 4096);
}

/* the HPAM algorithms start at a level-1 root */
static void root_in_level1(struct draw *r, struct input *in)
{
	in->root = (int32_t)below(r, in->m.lv[0][0] * in->m.lv[0][1]);
}

/* ---- where each algorithm applies ------------------------------------ */

typedef void shape_fn(struct draw *r, struct shape *m);
typedef void fix_fn(struct draw *r, struct input *in);

/* A square 2D mesh or torus. */
static void square_grid(struct draw *r, struct shape *m)
{
	int n = between(r, 1, side_max(r, 2));
	grid(m, chance(r, 50) ? IR_MESH : IR_TORUS, n, n, 0);
}

/* edn's shapes: 2D, or 3D n x n x Z with n = 4*2^k, Z = 4*3^m or 5*3^m. */
static void edn_any(struct draw *r, struct shape *m)
{
	if (chance(r, 80)) {
		edn_mesh(r, m);
		return;
	}
	int n = 4 << below(r, r->scale + 1);
	grid(m, IR_MESH, n, n,
	     (chance(r, 50) ? 4 : 5) * (chance(r, 30) ? 3 : 1));
}

/* edn_transpose: a 2^k x 2^k mesh, k >= 1. */
static void pow2_square(struct draw *r, struct shape *m)
{
	int s = 2;
	while (2 * s <= side_max(r, 2) && chance(r, 60))
		s *= 2;
	grid(m, IR_MESH, s, s, 0);
}

/* edn_torus: a 2^d x 2^d torus, d >= 2, maybe with a third extent. */
static void edn_torus(struct draw *r, struct shape *m)
{
	int s = 4;
	while (2 * s <= side_max(r, 2) && chance(r, 50))
		s *= 2;
	grid(m, IR_TORUS, s, s, chance(r, 30) ? between(r, 2, 4) : 0);
}

/* ipex: a 1D or 2D mesh or torus. */
static void rows_and_columns(struct draw *r, struct shape *m)
{
	grid_nd(r, m, chance(r, 50) ? IR_MESH : IR_TORUS,
	        chance(r, 30) ? 1 : 2);
}

/* What a generator's data (its struct sch_domain: collectives,
 * topologies, ports) cannot say: how to draw a machine its fits
 * predicate takes, a size limit, and what to set after the draw.  A
 * generator without an entry draws any machine of its topologies, which
 * its predicate may refuse (counted as a refusal, not a failure). */
static const struct shapes {
	const char *name;
	shape_fn *machine; /* NULL: any machine of the domain's topologies */
	int max_ranks;     /* 0: no limit */
	fix_fn *fix;       /* NULL, or run after the communication is drawn */
} shapes[] = {
        {.name = "tree_scatter", .machine = mesh2d},
        {.name = "tree_gather", .machine = mesh2d},
        {.name = "transpose_direct", .machine = square_grid},
        {.name = "edn", .machine = edn_any},
        {.name = "sld", .machine = mesh2d},
        {.name = "edn_reduce", .machine = edn_mesh},
        {.name = "edn_gather", .machine = edn_mesh},
        {.name = "edn_transpose", .machine = pow2_square},
        {.name = "scatter_collect",
         .machine = mesh2d,
         .max_ranks = 256,
         .fix = segment_per_rank},
        {.name = "edn_torus", .machine = edn_torus},
        {.name = "hpam_hybrid", .fix = root_in_level1},
        {.name = "hpam_multicast", .fix = root_in_level1},
        {.name = "pex", .machine = pow2_machine},
        {.name = "rex", .machine = pow2_machine},
        {.name = "ipex", .machine = rows_and_columns},
        /* n(n-1) transfers, as a complete exchange */
        {.name = "pairwise", .max_ranks = 256},
};
#define NSHAPES ((int)(sizeof shapes / sizeof *shapes))

/* The algorithms taking turns: the registry's, then auto. */
static const char *algs[MAX_ALGS];
static const struct sch_generator *alg_gen[MAX_ALGS];
static const struct shapes *alg_shapes[MAX_ALGS];
static int nalgs;

static const struct shapes *find_shapes(const char *name)
{
	for (int k = 0; k < NSHAPES; k++)
		if (strcmp(shapes[k].name, name) == 0)
			return &shapes[k];
	return NULL;
}

static void setup_algs(void)
{
	for (int k = 0; sch_generators[k] && nalgs < MAX_ALGS - 1; k++) {
		algs[nalgs] = sch_generators[k]->name;
		alg_gen[nalgs] = sch_generators[k];
		alg_shapes[nalgs++] = find_shapes(sch_generators[k]->name);
	}
	algs[nalgs++] = "auto";
}

/* A machine and communication from where generator a (index into algs)
 * applies.  The collective comes first: a complete exchange carries n^2
 * blocks (a plan of 512 ranks is 50 MB), so at most ALLTOALL_MAX ranks
 * and no large class, and an irregular pattern needs two ranks. */
static void draw_domain(struct draw *r, int a, struct input *in)
{
	const struct sch_domain *d = &alg_gen[a]->domain;
	const struct shapes *s = alg_shapes[a];
	enum ir_coll c[IR_NCOLLS];
	int nc = 0;
	for (int k = 0; k < IR_NCOLLS; k++)
		if (d->colls & SCH_C(k))
			c[nc++] = (enum ir_coll)k;
	enum ir_coll coll = c[below(r, nc)];
	int max = s ? s->max_ranks : 0, min = 0, n;
	if (coll == IR_ALLTOALL) {
		if (r->scale > 1)
			r->scale = 1;
		max = max && max < ALLTOALL_MAX ? max : ALLTOALL_MAX;
	}
	if (coll == IR_IRREGULAR)
		min = 2;
	do {
		if (s && s->machine)
			s->machine(r, &in->m);
		else
			domain_machine(r, d->topos, &in->m);
		n = nranks(&in->m);
	} while ((max && n > max) || n < min);
	if (d->ports == SCH_PORTS_ALL)
		in->m.ports = 0;
	communication(r, in, coll);
	if (s && s->fix)
		s->fix(r, in);
}

/* Draw input content for algorithm a (index into algs) from r: a size
 * class (70% small, 25% medium, 5% large), then the input. */
static void draw_input(struct draw *r, int a, struct input *in)
{
	memset(in, 0, sizeof *in);
	in->alg = algs[a];
	int k = below(r, 100);
	r->scale = k < 70 ? 0 : k < 95 ? 1 : 2;
	int from = a;
	/* auto takes an input of any algorithm; now and then an algorithm
	 * gets an input from another one's domain */
	if (strcmp(in->alg, "auto") == 0 || chance(r, MISMATCH_PCT))
		from = below(r, nalgs - 1);
	draw_domain(r, from, in);
	/* now and then a port limit where the domain left all ports (an
	 * algorithm that needs all-port then refuses) */
	static const int ports[] = {1, 2, 3, 4, 6};
	if (in->m.ports == 0 && chance(r, 10))
		in->m.ports = ports[below(r, 5)];
	static const char *const presets[] = {
	        "ncube2",       "t3d",     "t3d-fast", "t3e",
	        "delta-forced", "ipsc860", "sp2-mpi"};
	bool priced =
	        strcmp(in->alg, "auto") == 0 ? chance(r, 50) : chance(r, 15);
	if (priced) {
		if (in->m.topo == IR_HPAM)
			in->m.preset = chance(r, 50) ? "hpam-q2" : "hpam-q8";
		else if (chance(r, 70))
			in->m.preset = presets[below(r, 7)];
		else
			in->m.alpha_tenths = between(r, 1, 1000);
	}
	k = below(r, 100);
	in->contention = k < 10 ? 1 : k < 20 ? 2 : 0;
	in->select_model = strcmp(in->alg, "auto") == 0 && chance(r, 30);
	if (chance(r, 30)) {
		in->has_seed = true;
		in->seed = ir_rng_next(&r->rng) >> 1;
	}
}

/* ---- writing an input as YAML ---------------------------------------- */

struct style {
	bool flow;      /* machine and communication as flow mappings */
	bool coords;    /* a mesh or torus root as coordinates */
	bool alg_first; /* algorithm before machine */
};

/* Open a mapping called key at the top level: flow or block. */
static void open_map(FILE *f, const struct style *s, const char *key)
{
	fprintf(f, s->flow ? "%s: {" : "%s:\n", key);
}

/* One entry of such a mapping; first says whether it is the first. */
static void entry(FILE *f, const struct style *s, bool *first, const char *key)
{
	if (s->flow)
		fprintf(f, "%s%s: ", *first ? "" : ", ", key);
	else
		fprintf(f, "  %s: ", key);
	*first = false;
}

static void end_entry(FILE *f, const struct style *s)
{
	if (!s->flow)
		fputc('\n', f);
}

static void close_map(FILE *f, const struct style *s)
{
	if (s->flow)
		fputs("}\n", f);
}

static void write_machine(FILE *f, const struct style *s, const struct shape *m)
{
	bool first = true;
	open_map(f, s, "machine");
	entry(f, s, &first, "topology");
	fputs(ir_topo_name(m->topo), f);
	end_entry(f, s);
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		entry(f, s, &first, "dims");
		fputc('[', f);
		for (int k = 0; k < m->nd; k++)
			fprintf(f, "%s%d", k ? ", " : "", m->dims[k]);
		fputc(']', f);
		break;
	case IR_HYPERCUBE:
		entry(f, s, &first, "dimension");
		fprintf(f, "%d", m->cube);
		break;
	case IR_SWITCH:
		entry(f, s, &first, "ranks");
		fprintf(f, "%d", m->ranks);
		break;
	case IR_HPAM:
		entry(f, s, &first, "levels");
		fprintf(f, "[{rows: %d, cols: %d}, {rows: %d, cols: %d}]",
		        m->lv[0][0], m->lv[0][1], m->lv[1][0], m->lv[1][1]);
		break;
	case IR_FAT_TREE: /* never drawn (domain_machine) */
	case IR_GRAPH:
	case IR_DRAGONFLY:
		break;
	}
	end_entry(f, s);
	if (m->ports) {
		entry(f, s, &first, "ports");
		if (m->ports == 1 && s->coords)
			fputs("one", f);
		else
			fprintf(f, "%d", m->ports);
		end_entry(f, s);
	} else if (s->alg_first) {
		entry(f, s, &first, "ports");
		fputs("all", f);
		end_entry(f, s);
	}
	if (m->preset || m->alpha_tenths) {
		entry(f, s, &first, "cost");
		if (m->preset)
			fprintf(f, "{preset: %s}", m->preset);
		else
			fprintf(f, "{alpha: %d.%d, beta: 0.01, hop: 0.05}",
			        m->alpha_tenths / 10, m->alpha_tenths % 10);
		end_entry(f, s);
	}
	close_map(f, s);
}

/* An irregular pattern's matrix, inline: draws its own numbers from a
 * generator seeded with mseed, so any style writes the same matrix. */
static void write_matrix(FILE *f, const struct input *in, int n)
{
	struct draw r = {.scale = 0};
	ir_rng_seed(&r.rng, in->mseed);
	uint64_t b = in->bytes > 0 ? (uint64_t)in->bytes : 1;
	if (in->form == F_MATRIX) {
		fputc('[', f);
		for (int i = 0; i < n; i++) {
			fputs(i ? ", [" : "[", f);
			for (int j = 0; j < n; j++) {
				uint64_t v =
				        i != j && chance(&r, 30)
				                ? 1 + ir_rng_below(&r.rng, b)
				                : 0;
				fprintf(f, "%s%" PRIu64, j ? ", " : "", v);
			}
			fputc(']', f);
		}
		fputc(']', f);
		return;
	}
	/* edges: up to 3n draws in a random order, a pair only at its first
	 * draw, some of 0 bytes (no message) */
	char *seen = calloc((size_t)n * (size_t)n, 1);
	int m = between(&r, 0, 3 * n);
	bool first = true;
	fputc('[', f);
	for (int e = 0; e < m && seen; e++) {
		int i = below(&r, n), j = below(&r, n);
		uint64_t v = ir_rng_below(&r.rng, b + 1);
		if (i == j || seen[(size_t)i * (size_t)n + (size_t)j])
			continue;
		seen[(size_t)i * (size_t)n + (size_t)j] = 1;
		fprintf(f, "%s[%d, %d, %" PRIu64 "]", first ? "" : ", ", i, j,
		        v);
		first = false;
	}
	fputc(']', f);
	free(seen);
}

static void write_comm(FILE *f, const struct style *s, const struct input *in)
{
	const struct shape *m = &in->m;
	int n = nranks(m);
	bool first = true;
	open_map(f, s, "communication");
	if (in->coll == IR_IRREGULAR) {
		entry(f, s, &first, "pattern");
		fputs("irregular", f);
		end_entry(f, s);
		switch (in->form) {
		case F_REGULAR:
			entry(f, s, &first, "generate");
			fprintf(f,
			        "{kind: regular, degree: %d, bytes: %" PRId64
			        ", seed: %" PRIu64 "}",
			        in->degree, in->bytes, in->mseed);
			break;
		case F_DENSITY:
			entry(f, s, &first, "generate");
			fprintf(f,
			        "{kind: density, density: 0.%02d, bytes: "
			        "%" PRId64 ", seed: %" PRIu64 "}",
			        in->density_pct, in->bytes, in->mseed);
			break;
		case F_SKEWED:
			entry(f, s, &first, "generate");
			fprintf(f,
			        "{kind: skewed, degree: %d, hot: %d, bytes: "
			        "%" PRId64 ", seed: %" PRIu64 "}",
			        in->degree, in->hot, in->bytes, in->mseed);
			break;
		case F_EDGES:
		case F_MATRIX:
			entry(f, s, &first,
			      in->form == F_EDGES ? "edges" : "matrix");
			write_matrix(f, in, n);
			break;
		case F_NFORMS:
			break;
		}
		end_entry(f, s);
		close_map(f, s);
		return;
	}
	entry(f, s, &first, "collective");
	fputs(ir_coll_name(in->coll), f);
	end_entry(f, s);
	if (ir_coll_kind(in->coll) & IR_CK_ROOTED) {
		entry(f, s, &first, "root");
		if (s->coords && (m->topo == IR_MESH || m->topo == IR_TORUS)) {
			int32_t r = in->root;
			fputc('[', f);
			for (int k = 0; k < m->nd; k++) {
				fprintf(f, "%s%d", k ? ", " : "",
				        (int)(r % m->dims[k]));
				r /= m->dims[k];
			}
			fputc(']', f);
		} else {
			fprintf(f, "%d", (int)in->root);
		}
		end_entry(f, s);
	}
	entry(f, s, &first, "bytes");
	fprintf(f, "%" PRId64, in->bytes);
	end_entry(f, s);
	if (in->coll == IR_BCAST && (in->segments > 1 || s->coords)) {
		entry(f, s, &first, "segments");
		fprintf(f, "%d", in->segments);
		end_entry(f, s);
	}
	if (ir_coll_kind(in->coll) & IR_CK_REDUCES) {
		entry(f, s, &first, "dtype");
		fputs(ir_dtype_name(in->dtype), f);
		end_entry(f, s);
		entry(f, s, &first, "op");
		fputs(ir_redop_name(in->op), f);
		end_entry(f, s);
	}
	if (in->reproducible) {
		entry(f, s, &first, "reproducible");
		fputs("true", f);
		end_entry(f, s);
	}
	close_map(f, s);
}

/* The input as YAML text (malloc'd, *len bytes). */
static char *write_input(const struct input *in, const struct style *s,
                         size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	if (!f)
		return NULL;
	fprintf(f, "# stress input\n");
	if (s->alg_first)
		fprintf(f, "algorithm: %s\n", in->alg);
	write_machine(f, s, &in->m);
	write_comm(f, s, in);
	if (!s->alg_first)
		fprintf(f, "algorithm: %s\n", in->alg);
	if (in->select_model)
		fprintf(f, "select: model\n");
	if (in->contention)
		fprintf(f, "contention: %s\n",
		        in->contention == 1 ? "forbid" : "allow");
	if (in->has_seed)
		fprintf(f, "seed: %" PRIu64 "\n", in->seed);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* ---- the run --------------------------------------------------------- */

/* What happened to the inputs of one algorithm. */
struct tally {
	int inputs, compiled, hits, refused, failed;
	int most_ranks; /* the largest machine */
	double seconds; /* compiling through the cache (misses) */
};

/* Input i of the run, as the sequence decides it. */
struct plan_of_input {
	int alg;          /* index into algs */
	uint64_t content; /* seed of the content generator */
	uint64_t style;   /* seed of the style generator */
	int repeat_of;    /* -1, or the input it repeats */
};

struct run {
	cache *k;
	struct tally tally[MAX_ALGS];
	int failures;
	int unexpected_miss; /* repeats that missed (counted in failures) */
	bool verbose;
	/* keys seen, to tell a repeat's expected hit */
	uint8_t (*keys)[CACHE_KEY_SIZE];
	bool *stored;
};

static void fail(struct run *R, int i, const struct plan_of_input *pi,
                 const char *text, const char *what, const char *why)
{
	R->failures++;
	R->tally[pi->alg].failed++;
	if (R->failures > MAX_FAILS)
		return;
	printf("FAIL input %d (%s%s): %s: %s\n--- input %d ---\n%s---\n", i,
	       algs[pi->alg], pi->repeat_of >= 0 ? ", a repeat" : "", what, why,
	       i, text);
	fflush(stdout);
}

/* Check a plan image from scratch: whole-image checks, decode, verify the
 * decoded plan again.  0, or -1 with why. */
static int check_image(const uint8_t *img, size_t len, char *why, size_t wlen)
{
	ir_file_info fi;
	if (ir_image_check(img, len, &fi, why, wlen) != 0)
		return -1;
	ir_plan p;
	if (ir_plan_decode(img, len, &p, &fi, why, wlen) != 0)
		return -1;
	ir_report rep;
	memset(&rep, 0, sizeof rep);
	int rc = ir_verify(&p, &rep);
	if (rc != 0 || !rep.ok)
		snprintf(why, wlen, "the decoded plan fails the verifier: %s",
		         rep.message);
	ir_report_fini(&rep);
	ir_plan_fini(&p);
	return rc != 0 || !rep.ok ? -1 : 0;
}

/* Compile in fresh, without the cache: 0 with the image (malloc'd);
 * CCP_ENOTAPPLY when the algorithm does not apply; another code; both
 * with why.  The plan the cached pipeline gives must be this one. */
static int compile_fresh(const struct front_input *in, uint8_t **img,
                         size_t *len, char *why, size_t wlen)
{
	struct compiled c;
	struct diag d;
	memset(&d, 0, sizeof d);
	int rc = compile_input(in, &c, &d);
	if (rc) {
		snprintf(why, wlen, "%s", d.message);
		return rc;
	}
	if (!c.report.ok) {
		snprintf(why, wlen,
		         "compile_input returned a plan the verifier did not "
		         "accept: %s",
		         c.report.message);
		compiled_fini(&c);
		return CCP_EVERIFY;
	}
	rc = compile_encode(&c, img, len, why, wlen);
	compiled_fini(&c);
	return rc;
}

static void one_input(struct run *R, int i, const struct plan_of_input *pi,
                      const char *text, size_t tlen)
{
	struct tally *t = &R->tally[pi->alg];
	char why[600];
	struct front_input in;
	struct diag d;
	memset(&d, 0, sizeof d);
	t->inputs++;
	if (front_parse_string("stress.yaml", text, tlen, &in, &d) != 0) {
		snprintf(why, sizeof why, "%d:%d: %s", d.line, d.column,
		         d.message);
		fail(R, i, pi, text, "the front end refused it", why);
		return;
	}
	if (in.machine.nranks > t->most_ranks)
		t->most_ranks = in.machine.nranks;
	/* through the cache as `ccplan compile` goes: a hit verified, a
	 * miss compiled and stored; the cache is never reopened, so that
	 * damage is a warning, and every warning a failure */
	struct compile_cache cc = {.k = R->k};
	struct cached_plan cp;
	struct cached_notes w = {0};
	void *blob = NULL;
	size_t blen = 0;
	uint8_t *img = NULL;
	size_t len = 0;
	double t0 = bench_now();
	int crc = compile_cached(&in, NULL, &cc, 0, &cp, &w, &d);
	if (!cp.hit)
		t->seconds += bench_now() - t0;
	uint8_t *key = R->keys[i];
	memcpy(key, cp.key, CACHE_KEY_SIZE);
	if (w.n) {
		fail(R, i, pi, text, "the cache", w.text[0]);
		goto out;
	}
	if (!cp.hit && pi->repeat_of >= 0 && R->stored[pi->repeat_of]) {
		R->unexpected_miss++;
		fail(R, i, pi, text, "a repeat missed the cache",
		     memcmp(R->keys[pi->repeat_of], key, CACHE_KEY_SIZE)
		             ? "its key differs from the first's"
		             : "same key");
	}
	/* every plan is compiled again too: a hit's bytes, and a miss's,
	 * must be a fresh compile's */
	int rc = compile_fresh(&in, &img, &len, why, sizeof why);
	if (rc == CCP_ENOTAPPLY) {
		if (cp.hit)
			fail(R, i, pi, text,
			     "the cache had a plan of an input that does not "
			     "apply",
			     why);
		else
			t->refused++;
		if (R->verbose)
			printf("input %d: %s refused: %s\n", i, algs[pi->alg],
			       why);
		goto out;
	}
	if (rc) {
		fail(R, i, pi, text, ccp_strerror(rc), why);
		goto out;
	}
	if (crc) {
		fail(R, i, pi, text, "the cached pipeline failed",
		     cp.failed == CACHED_ENCODE ? cp.err : d.message);
		goto out;
	}
	if (check_image(img, len, why, sizeof why) != 0) {
		fail(R, i, pi, text, "the compiled image", why);
		goto out;
	}
	if (cp.len != len || memcmp(cp.img, img, len) != 0) {
		fail(R, i, pi, text, cp.hit ? "cache hit" : "cache miss",
		     cp.hit ? "the cached image differs from a fresh compile"
		            : "the compiled image differs from a fresh "
		              "compile");
		goto out;
	}
	if (cp.hit) {
		t->hits++;
		goto out;
	}
	t->compiled++;
	if (R->verbose)
		printf("input %d: %s, %d ranks, %zu bytes, %.1f ms\n", i,
		       algs[pi->alg], (int)in.machine.nranks, len,
		       1e3 * (bench_now() - t0));
	if (!cp.stored) {
		fail(R, i, pi, text, "cache_put", "the plan was not stored");
		goto out;
	}
	R->stored[i] = true;
	if ((rc = cache_get(R->k, key, &blob, &blen, NULL)) != 0) {
		snprintf(why, sizeof why, "%s", cache_errmsg(R->k));
		fail(R, i, pi, text, "cache_get after put", why);
	} else if (blen != len || memcmp(blob, img, len) != 0) {
		fail(R, i, pi, text, "cache_get after put",
		     "the stored image differs from the compiled one");
	}
out:
	cached_notes_fini(&w);
	cached_plan_fini(&cp);
	free(blob);
	free(img);
	front_input_fini(&in);
}

/* Decide every input of the run from the seed: algorithm, content seed,
 * style seed, and whether it repeats an earlier input. */
static void plan_run(uint64_t seed, int n, int repeat_pct,
                     struct plan_of_input *pi)
{
	struct draw r = {.scale = 0};
	ir_rng_seed(&r.rng, seed);
	int order[MAX_ALGS], left = 0, fresh = 0;
	for (int i = 0; i < n; i++) {
		pi[i].style = ir_rng_next(&r.rng);
		if (fresh > 0 && chance(&r, repeat_pct)) {
			/* an earlier fresh input, said another way */
			int j;
			do
				j = below(&r, i);
			while (pi[j].repeat_of >= 0);
			pi[i] = (struct plan_of_input){.alg = pi[j].alg,
			                               .content = pi[j].content,
			                               .style = pi[i].style,
			                               .repeat_of = j};
			continue;
		}
		if (left == 0) { /* a new shuffled turn of every algorithm */
			for (int k = 0; k < nalgs; k++)
				order[k] = k;
			for (int k = nalgs - 1; k > 0; k--) {
				int j = below(&r, k + 1), x = order[k];
				order[k] = order[j];
				order[j] = x;
			}
			left = nalgs;
		}
		pi[i].alg = order[--left];
		pi[i].content = ir_rng_next(&r.rng);
		pi[i].repeat_of = -1;
		fresh++;
	}
}

/* The text of input i (malloc'd). */
static char *input_text(const struct plan_of_input *pi, size_t *len)
{
	struct draw c = {.scale = 0}, s = {.scale = 0};
	struct input in;
	ir_rng_seed(&c.rng, pi->content);
	ir_rng_seed(&s.rng, pi->style);
	draw_input(&c, pi->alg, &in);
	struct style st = {chance(&s, 50), chance(&s, 50), chance(&s, 50)};
	return write_input(&in, &st, len);
}

/* ---- SQLite's share of the memory ---------------------------------- */

/* SQLite's allocator, installed before the cache opens: malloc's, with
 * SQLite's blocks counted the way mallinfo2 counts them (a chunk is its
 * usable size and one size_t of header), so that they can be told apart
 * from the rest of the live bytes exactly. */
static int64_t sqlite_bytes;

static int64_t chunk_of(void *p)
{
	return p ? (int64_t)(malloc_usable_size(p) + sizeof(size_t)) : 0;
}

static void *sq_malloc(int n)
{
	void *p = malloc((size_t)n);
	sqlite_bytes += chunk_of(p);
	return p;
}

static void sq_free(void *p)
{
	sqlite_bytes -= chunk_of(p);
	free(p);
}

static void *sq_realloc(void *p, int n)
{
	int64_t old = chunk_of(p);
	void *q = realloc(p, (size_t)n);
	if (q)
		sqlite_bytes += chunk_of(q) - old;
	return q;
}

static int sq_size(void *p)
{
	return (int)malloc_usable_size(p);
}

static int sq_roundup(int n)
{
	return n;
}

static int sq_init(void *arg)
{
	(void)arg;
	return SQLITE_OK;
}

static void sq_shutdown(void *arg)
{
	(void)arg;
}

static const sqlite3_mem_methods sq_methods = {
        sq_malloc,  sq_free, sq_realloc,  sq_size,
        sq_roundup, sq_init, sq_shutdown, NULL};

struct sample {
	int after;
	struct stress_mem mem;
	int64_t sqlite;
	int entries;
	uint64_t file;
};

static int count_entry(const struct cache_meta *m, void *arg)
{
	(void)m;
	(*(int *)arg)++;
	return 0;
}

static uint64_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static void take_sample(struct run *R, const char *db, int after,
                        struct sample *s)
{
	s->after = after;
	s->entries = 0;
	cache_list(R->k, count_entry, &s->entries);
	size_t wlen = strlen(db) + sizeof "-wal";
	char *wal = malloc(wlen);
	s->file = file_size(db);
	if (wal) {
		snprintf(wal, wlen, "%s-wal", db);
		s->file += file_size(wal);
		free(wal);
	}
	/* last: nothing of the run is held now */
	s->sqlite = sqlite_bytes;
	stress_mem_sample(&s->mem);
}

static void usage(void)
{
	fprintf(stderr, "usage: stress_compile [-n N] [--seed S] [--every K] "
	                "[--warmup W]\n"
	                "                      [--repeat PCT] [--cache PATH] "
	                "[--dump I] [-v]\n");
	exit(3);
}

int main(int argc, char **argv)
{
	int n = 1000, every = 100, warmup = -1, repeat_pct = 15, dump = -1;
	bool verbose = false, seeded = false;
	uint64_t seed = 0;
	const char *db = NULL;
	for (int a = 1; a < argc; a++) {
		const char *o = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
		if (!strcmp(o, "-v"))
			verbose = true;
		else if (!v)
			usage();
		else if (!strcmp(o, "-n"))
			n = atoi(v), a++;
		else if (!strcmp(o, "--seed"))
			seed = strtoull(v, NULL, 0), seeded = true, a++;
		else if (!strcmp(o, "--every"))
			every = atoi(v), a++;
		else if (!strcmp(o, "--warmup"))
			warmup = atoi(v), a++;
		else if (!strcmp(o, "--repeat"))
			repeat_pct = atoi(v), a++;
		else if (!strcmp(o, "--cache"))
			db = v, a++;
		else if (!strcmp(o, "--dump"))
			dump = atoi(v), a++;
		else
			usage();
	}
	if (n < 1 || every < 1 || repeat_pct < 0 || repeat_pct > 90)
		usage();
	if (warmup < 0)
		warmup = every;
	if (!seeded)
		seed = (uint64_t)time(NULL);
	setup_algs();

	struct plan_of_input *pi = calloc((size_t)n, sizeof *pi);
	struct run R = {.verbose = verbose};
	R.keys = calloc((size_t)n, sizeof *R.keys);
	R.stored = calloc((size_t)n, sizeof *R.stored);
	if (!pi || !R.keys || !R.stored)
		return 3;
	plan_run(seed, n, repeat_pct, pi);
	if (dump >= 0) { /* print one input, to reproduce it */
		if (dump >= n)
			usage();
		size_t len;
		char *text = input_text(&pi[dump], &len);
		fputs(text ? text : "", stdout);
		free(text);
		return 0;
	}

	char dir[] = "/tmp/ccplan-stress-XXXXXX", path[4200];
	bool own = !db;
	if (own) {
		if (!mkdtemp(dir)) {
			perror("stress_compile: mkdtemp");
			return 3;
		}
		snprintf(path, sizeof path, "%s/plans.db", dir);
		db = path;
	}
	char err[512];
	if (sqlite3_config(SQLITE_CONFIG_MALLOC, &sq_methods) != SQLITE_OK) {
		fprintf(stderr, "stress_compile: cannot count SQLite's "
		                "memory\n");
		return 3;
	}
	if (cache_open(db, 0, &R.k, NULL, err, sizeof err) != 0) {
		fprintf(stderr, "stress_compile: %s\n", err);
		return 3;
	}

	printf("stress_compile: %d inputs, seed %" PRIu64 " (--seed %" PRIu64
	       " repeats this run), %d%% repeats, "
	       "cache %s\n",
	       n, seed, seed, repeat_pct, db);
	if (!stress_tcache_off())
		printf("note: glibc's tcache is on, so live bytes are "
		       "approximate (bench/stress.sh turns it off)\n");
	fflush(stdout);

	struct sample samples[MAX_SAMPLES];
	int nsamples = 0;
	double t0 = bench_now();
	for (int i = 0; i < n; i++) {
		size_t len;
		char *text = input_text(&pi[i], &len);
		if (!text) {
			fprintf(stderr, "stress_compile: out of memory\n");
			return 3;
		}
		one_input(&R, i, &pi[i], text, len);
		free(text);
		if ((i + 1) % every == 0 && i + 1 >= warmup &&
		    nsamples < MAX_SAMPLES)
			take_sample(&R, db, i + 1, &samples[nsamples++]);
	}
	double total = bench_now() - t0;

	/* inputs by algorithm */
	printf("\n%-17s %6s %8s %5s %7s %6s %10s %10s\n", "algorithm", "inputs",
	       "compiled", "hits", "refused", "failed", "compile s",
	       "most ranks");
	struct tally all = {0};
	for (int a = 0; a < nalgs; a++) {
		const struct tally *t = &R.tally[a];
		printf("%-17s %6d %8d %5d %7d %6d %10.2f %10d\n", algs[a],
		       t->inputs, t->compiled, t->hits, t->refused, t->failed,
		       t->seconds, t->most_ranks);
		all.inputs += t->inputs;
		all.compiled += t->compiled;
		all.hits += t->hits;
		all.refused += t->refused;
		all.failed += t->failed;
		all.seconds += t->seconds;
		if (t->most_ranks > all.most_ranks)
			all.most_ranks = t->most_ranks;
	}
	printf("%-17s %6d %8d %5d %7d %6d %10.2f %10d\n", "total", all.inputs,
	       all.compiled, all.hits, all.refused, all.failed, all.seconds,
	       all.most_ranks);

	/* memory after the warm-up */
	printf("\n%8s %12s %12s %12s %9s %9s %8s %10s\n", "after", "live bytes",
	       "SQLite", "other", "RSS KiB", "trimmed", "entries", "cache KiB");
	for (int s = 0; s < nsamples; s++) {
		const struct sample *x = &samples[s];
		printf("%8d %12" PRIu64 " %12" PRId64 " %12" PRId64 " %9" PRIu64
		       " %9" PRIu64 " %8d %10" PRIu64 "\n",
		       x->after, x->mem.live, x->sqlite,
		       (int64_t)x->mem.live - x->sqlite, x->mem.rss / 1024,
		       x->mem.rss_trim / 1024, x->entries, x->file / 1024);
	}
	int64_t other_growth = 0, sqlite_peak = 0;
	int64_t rss_growth = 0;
	if (nsamples > 1) {
		const struct sample *a = &samples[0],
		                    *b = &samples[nsamples - 1];
		other_growth = ((int64_t)b->mem.live - b->sqlite) -
		               ((int64_t)a->mem.live - a->sqlite);
		rss_growth =
		        (int64_t)b->mem.rss_trim - (int64_t)a->mem.rss_trim;
		for (int s = 0; s < nsamples; s++)
			if (samples[s].sqlite > sqlite_peak)
				sqlite_peak = samples[s].sqlite;
	}
	bool measured = nsamples > 0 && stress_live_measured(&samples[0].mem);
	bool grew = measured &&
	            (other_growth > 0 || sqlite_peak > (int64_t)SQLITE_BOUND);
	printf("\ntime %.1f s for %d inputs (%.1f ms each); %d failures "
	       "(%d repeats missed the cache), %d refused as not applicable\n",
	       total, n, 1e3 * total / n, R.failures, R.unexpected_miss,
	       all.refused);
	if (nsamples > 1 && !measured)
		printf("growth not judged: the allocator reports no live bytes "
		       "(a sanitizer build?)\n");
	else if (nsamples > 1)
		printf("growth from %d to %d inputs: other live bytes %+" PRId64
		       ", trimmed RSS %+" PRId64 " KiB; SQLite at most %" PRId64
		       " bytes (bound %u)%s\n",
		       samples[0].after, samples[nsamples - 1].after,
		       other_growth, rss_growth / 1024, sqlite_peak,
		       SQLITE_BOUND, grew ? ": GROWTH" : ": none");
	printf("seed %" PRIu64 "\n", seed);

	cache_close(R.k);
	if (own) {
		char p[4300];
		static const char *const sfx[] = {"", "-wal", "-shm"};
		for (int k = 0; k < 3; k++) {
			snprintf(p, sizeof p, "%s%s", path, sfx[k]);
			unlink(p);
		}
		rmdir(dir);
	}
	free(pi);
	free(R.keys);
	free(R.stored);
	return R.failures || grew ? 1 : 0;
}
