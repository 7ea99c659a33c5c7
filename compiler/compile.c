/*
 * compile.c - the pipeline, one pass after another, and the plan loader;
 * before the pipeline builds anything, the estimate of what it will cost
 * and the memory limit that refuses an input from it.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile.h"
#include "model.h"
#include "sched.h"
#include "select.h"

/* A diagnostic at the algorithm key of the input. */
static void at_algorithm(const struct front_input *in, struct diag *d,
                         const char *msg)
{
	d->line = in->algorithm_line;
	d->column = in->algorithm_column;
	snprintf(d->source_line, sizeof d->source_line, "%s",
	         in->algorithm_source);
	snprintf(d->message, sizeof d->message, "%s", msg);
}

/* ---- the size of a compile, before anything is built ------------------- */

/* What sets a generator's plan apart from the usual shape of its
 * collective, as measured (tests/compiler/test_estimate.c checks for every
 * generator that the bounds below hold). */
enum plan_kind {
	PK_TREE,            /* N - 1 transfers, short routes (the default) */
	PK_PIPELINED,       /* broadcast: one transfer per segment and rank */
	PK_SCATTER_COLLECT, /* broadcast: N pieces, scattered, then
	                       circulated along rows and columns */
	PK_LINEAR,          /* the root sends to every rank directly */
	PK_HPAM_MULTICAST,  /* scatter: each copy carries a whole band */
	PK_REX,             /* alltoall: half of all blocks every step
	                       (Bruck's too) */
	PK_IPEX,            /* alltoall: blocks forwarded once */
	PK_ONE_PHASE,       /* every transfer in one phase (AC) */
	PK_LOG,             /* allgather, reduce_scatter, allreduce: lg N
	                       steps of N transfers, not a ring's N */
	PK_RING_TREE,       /* broadcast, reduce: a binomial tree of N
	                       pieces and a ring of N - 1 steps over them */
	PK_TREE_TWICE,      /* allreduce: a tree reduce, then its broadcast */
	PK_BUCKET,          /* a ring along every line, one dimension after
	                       another: N transfers a step, sum(e - 1) steps */
	PK_NODES,           /* trees inside nodes around a plan among the
	                       nodes' leaders (hierarchical) */
	PK_NODE_AWARE       /* irregular through node leaders: each message
	                       in a gather, a network and a scatter transfer
	                       at most */
};

static const struct {
	const char *name;
	enum plan_kind kind;
} plan_kinds[] = {
        {"fibonacci", PK_PIPELINED},
        {"reptree", PK_PIPELINED},
        {"chain", PK_PIPELINED},
        {"scatter_collect", PK_SCATTER_COLLECT},
        {"linear", PK_LINEAR},
        {"hpam_multicast", PK_HPAM_MULTICAST},
        {"rex", PK_REX},
        {"ipex", PK_IPEX},
        {"ac", PK_ONE_PHASE},
        {"recursive_doubling", PK_LOG},
        {"bruck", PK_LOG},
        {"recursive_halving", PK_LOG},
        {"rabenseifner", PK_LOG},
        {"swing", PK_LOG},
        {"swing_latency", PK_LOG},
        {"bine", PK_LOG},
        {"bine_latency", PK_LOG},
        {"scatter_allgather", PK_RING_TREE},
        {"reduce_scatter_gather", PK_RING_TREE},
        {"reduce_bcast", PK_TREE_TWICE},
        {"domain_leaders", PK_TREE_TWICE},
        {"bucket", PK_BUCKET},
        {"hierarchical", PK_NODES},
        {"node_exchange", PK_NODE_AWARE},
};

/* Whether generator name's allreduce sends the whole vector, one block,
 * every step (PK_LOG otherwise halves it). */
static bool whole_vector(const char *name)
{
	return strcmp(name, "recursive_doubling") == 0 ||
	       strcmp(name, "swing_latency") == 0 ||
	       strcmp(name, "bine_latency") == 0;
}

/* Bounds of one generator's plan: transfers, blocks, phases, the hops of
 * all transfers and of the busiest phase, and what lowering gives. */
struct plan_size {
	double t, b, p;         /* transfers, blocks, phases */
	double hops, phase_hops;
	double ops, iovs, file; /* lowered operations and pieces, file */
	double peak_own;        /* the transient peak of this candidate */
	double plan;            /* the plan and its report, kept */
};

/* Mean route length of the machine (a uniform pair of ranks). */
static double mean_hops(const ir_machine *m)
{
	double h = 0;
	switch (m->topo) {
	case IR_MESH:
		for (int d = 0; d < m->ndims; d++)
			h += ((double)m->dims[d] * m->dims[d] - 1) /
			     (3.0 * m->dims[d]);
		return h;
	case IR_TORUS:
		for (int d = 0; d < m->ndims; d++)
			h += m->dims[d] / 4.0;
		return h;
	case IR_HYPERCUBE:
		return m->ndims / 2.0;
	case IR_HPAM:
		return (m->levels[0][0] + m->levels[0][1] + m->levels[1][0] +
		        m->levels[1][1]) /
		               3.0 +
		       1;
	case IR_FAT_TREE: /* most pairs meet at the top */
		return 2.0 * m->ndims;
	case IR_GRAPH: /* at most: the diameter, or an adaptive union */
		return ir_route_max(m);
	case IR_DRAGONFLY: /* most pairs are in different groups */
		return m->routing == IR_ROUTE_VALIANT ? 7.0 : 5.0;
	case IR_SWITCH:
		break;
	}
	return 1;
}

/* The most links one rank has: its ports on an all-port machine. */
static double max_degree(const ir_machine *m)
{
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		return 2.0 * m->ndims;
	case IR_HYPERCUBE:
		return m->ndims;
	case IR_HPAM: /* four in a level, f down links or one up link */
		return 4.0 + m->levels[1][1] / m->levels[0][1];
	case IR_FAT_TREE: /* a host's uplinks */
		return (double)m->dims[IR_MAX_TREE] * m->levels[0][0];
	case IR_GRAPH: {
		int deg = 0;
		for (int32_t v = 0; v < m->nnodes; v++) {
			int k = ir_degree(m, ir_node_rank(m, v, 0));
			deg = k > deg ? k : deg;
		}
		return deg;
	}
	case IR_DRAGONFLY: /* a host's link to its router */
		return m->levels[0][0];
	case IR_SWITCH:
		break;
	}
	return m->nranks - 1.0;
}

/* Smallest power of two >= v (hash tables size themselves so). */
static double pow2_at_least(double v)
{
	double c = 64;
	while (c < v)
		c *= 2;
	return c;
}

/* Bounds for generator name on m and c, and the memory its compile
 * takes: the bytes per item are those of the structures (ir_transfer 32,
 * ir_block 8, ir_op 32, ir_iov 24, ir_slice 72, the verifier's and the
 * lowering's hash tables 12 and 24 per slot at most half full, the
 * simulator's about 320 per transfer, 48 per block and 40 per hop),
 * checked against peak resident sizes measured with /usr/bin/time -v. */
static void plan_size(const ir_machine *m, const ir_comm *c,
                      const char *name, bool simulate, struct plan_size *z)
{
	enum plan_kind k = PK_TREE;
	for (size_t i = 0; i < sizeof plan_kinds / sizeof plan_kinds[0]; i++)
		if (!strcmp(plan_kinds[i].name, name))
			k = plan_kinds[i].kind;
	double n = m->nranks, lg = 1, s = c->segments > 0 ? c->segments : 1;
	if (!strcmp(name, "chain")) /* it may choose them */
		s = sch_chain_segments(m, c);
	while (pow(2, lg) < n)
		lg++;
	double steps = 0; /* a bucket's ring steps */
	for (int d = 0; d < m->ndims && k == PK_BUCKET; d++)
		steps += m->dims[d] - 1;
	double mean = mean_hops(m), local = 5; /* hops of a tree's transfer */
	double per = local;                      /* hops per transfer */
	double nnz = c->coll == IR_IRREGULAR && c->matrix ? c->matrix->nnz : 0;
	memset(z, 0, sizeof *z);
	switch (c->coll) {
	case IR_BCAST:
		z->b = (n - 1) * s;
		z->t = k == PK_PIPELINED ? z->b : n - 1;
		if (k == PK_SCATTER_COLLECT) {
			z->t = n * (m->dims[0] + m->dims[1]);
			z->b = (n - 1) * n;
		}
		if (k == PK_RING_TREE) {
			z->t = n * n;
			z->b = n * (n + lg);
		}
		break;
	case IR_SCATTER:
	case IR_GATHER:
		z->t = n - 1;
		z->b = k == PK_LINEAR ? n - 1 : n * (lg / 2 + 1);
		if (k == PK_HPAM_MULTICAST) /* f copies of f x p2 blocks */
			z->b += (double)m->levels[1][0] * m->levels[1][1] *
			        (m->levels[1][1] / m->levels[0][1]);
		break;
	case IR_REDUCE:
		z->t = z->b = k == PK_PIPELINED ? (n - 1) * s : n - 1;
		if (k == PK_RING_TREE) { /* only non-empty blocks travel */
			double es = (double)ir_dtype_size(c->dtype);
			double e = es > 0 ? fmin(n, (double)c->bytes / es) : n;
			z->t = n * (e + 1);
			z->b = n * (e + lg);
		}
		break;
	case IR_ALLTOALL:
		z->t = z->b = n * (n - 1);
		if (k == PK_REX || k == PK_LOG) { /* rex, bruck: lg N steps
		                                     of about N/2 blocks */
			z->t = n * lg;
			z->b = n * n * lg / 2;
		} else if (k == PK_IPEX) {
			z->b = 2 * n * (n - 1);
		}
		per = mean;
		break;
	case IR_TRANSPOSE:
		z->t = 2 * n;
		z->b = n * (lg / 2 + 1);
		per = mean;
		break;
	case IR_IRREGULAR:
		z->t = z->b = nnz;
		if (k == PK_NODE_AWARE) /* shared-memory transfers: 0 hops */
			z->t = z->b = 3 * nnz;
		per = mean;
		break;
	case IR_ALLGATHER: /* every block to every other rank */
		z->t = k == PK_LOG ? n * (lg + 2) : n * (n - 1);
		z->b = k == PK_LOG ? n * n : n * (n - 1);
		if (k == PK_BUCKET)
			z->t = n * steps;
		break;
	case IR_REDUCE_SCATTER: /* halving carries each block about lg
		                   times over, and the fold every block */
		z->t = k == PK_LOG ? n * (lg + 3) : n * (n - 1);
		z->b = k == PK_LOG ? 2 * n * n : n * (n - 1);
		if (k == PK_BUCKET)
			z->t = n * steps;
		break;
	case IR_ALLREDUCE: /* ring: two halves of n - 1 steps; recursive
		              doubling: one vector a step; Rabenseifner:
		              halving then doubling of n blocks */
		z->t = k == PK_LOG ? 2 * n * (lg + 1) : 2 * n * (n - 1);
		z->b = k != PK_LOG                         ? 2 * n * (n - 1)
		       : whole_vector(name)                 ? n * (lg + 2)
		                                             : 3 * n * n;
		if (k == PK_TREE_TWICE)
			z->t = z->b = 2 * (n - 1);
		if (k == PK_BUCKET)
			z->t = 2 * n * steps;
		break;
	}
	if (k == PK_NODES) {
		/* up and down the trees inside nodes (n - g transfers each,
		 * an allgather's down sweep every block), and among the g
		 * leaders a tree (g - 1), at most lg g + 1 steps of g
		 * transfers, or a gather and broadcast of all blocks */
		double g = m->nnodes, lgg = 1;
		while (pow(2, lgg) < g)
			lgg++;
		double steps_g = 2 * g * (lgg + 1);
		switch (c->coll) {
		case IR_ALLREDUCE: /* the vector in at most s blocks */
			z->t = 2 * n + steps_g;
			z->b = z->t * s;
			break;
		case IR_ALLGATHER:
			z->t = 2 * n + steps_g;
			z->b = n * (n + g + lg + 2);
			break;
		case IR_GATHER:
			z->t = 2 * n;
			z->b = n * (lg + 1);
			break;
		default: /* broadcast, reduce: every segment on every edge */
			z->t = 2 * n;
			z->b = z->t * s;
			break;
		}
	}
	/* the verifier's partial of each (rank, element block) */
	double blocks = c->coll == IR_REDUCE_SCATTER ? n
	                : c->coll == IR_ALLREDUCE && !whole_vector(name) &&
	                          k != PK_TREE_TWICE
	                        ? n
	                : c->coll == IR_REDUCE && k == PK_RING_TREE ? n
	                                                             : s;
	double partials = ir_coll_kind(c->coll) & IR_CK_REDUCES
	                          ? 36 * n * blocks + 12 * z->b
	                          : 0;
	if (k == PK_LINEAR)
		per = mean;
	z->p = z->t;
	z->hops = z->t * per;
	/* the busiest phase: every transfer in one (AC), else at most every
	 * port of every rank busy, and no link twice when contention is not
	 * allowed (the verifier lists the links of a phase) */
	double ports = m->ports == IR_PORTS_ALL ? max_degree(m) : m->ports;
	double nl = (double)ir_nlinks(m);
	bool direct = ir_coll_kind(c->coll) & IR_CK_DIRECT;
	z->phase_hops = k == PK_ONE_PHASE ? z->hops : fmin(z->t, n * ports) * per;
	if (!direct)
		z->phase_hops = fmin(z->phase_hops, nl);

	/* lowering: a prologue copy per rank, an op at each end of every
	 * transfer, PHASE and WAIT for each phase a rank takes part in; a
	 * piece per block at each end (ir_lower allocates that many), where
	 * the blocks of a broadcast, scatter or gather lie side by side and
	 * make one piece in the file */
	double pairs = k == PK_ONE_PHASE ? fmin(2 * z->t, n) : 2 * z->t;
	z->ops = n + 2 * z->t + 2 * pairs;
	double iov_bound = 2 * n + 2 * z->b + z->t;
	bool runs = c->coll == IR_BCAST || c->coll == IR_SCATTER ||
	            (c->coll == IR_GATHER && k != PK_NODES);
	/* the new collectives carry runs of neighbouring blocks (a ring
	 * one block; halving and doubling ranges, Bruck at most two); a
	 * bucket's blocks of a line and Swing's are strided, a piece each */
	bool ranges = c->coll >= IR_ALLGATHER && k != PK_BUCKET &&
	              k != PK_NODES &&
	              strcmp(name, "swing") != 0 && strcmp(name, "bine") != 0;
	z->iovs = runs     ? fmin(iov_bound, 2 * n + 3 * z->t)
	          : ranges ? fmin(iov_bound, 8 * n + 4 * z->t)
	                   : iov_bound;
	/* header, global fixed part, selection, combine cost, version 6's
	 * machine record (docs/plan-format.md) */
	z->file = 128 + 288 + 56 + 8 + 64 + 8 * z->p + 28 * z->t + 8 * z->b +
	          12 * nnz + 8 * (nnz ? n + 1 : 0) + 76 * n + 28 * z->ops +
	          20 * z->iovs;

	/* memory: the plan stays; each step's own structures come and go */
	z->plan = 32 * z->t + 8 * z->b + 12 * z->p;
	double gen = 40 * z->t + 8 * z->b; /* a generator's edge lists */
	double verify = 12 * pow2_at_least(2 * (z->b + 16)) + 16 * n +
	                (nl <= (1 << 25) ? 4 * nl : 0) +
	                (direct && nl <= (1 << 26) ? 4 * nl : 0) +
	                8 * z->phase_hops + 8 * fmin(z->t, n * ports) +
	                partials;
	double slices = 72 * n + 32 * z->ops + 24 * iov_bound;
	double lower = 24 * pow2_at_least(2 * z->b + 2) + 40 * n + slices +
	               16 * nnz;
	double sim = simulate ? 320 * z->t + 48 * z->b + 40 * z->hops : 0;
	/* the image, and the cache's copy of it while it is stored */
	double store = slices + 2 * z->file;
	z->peak_own = fmax(fmax(gen, verify), fmax(fmax(lower, store), sim));
}

/* A double count as uint64_t, saturating. */
static uint64_t sat(double v)
{
	return v >= 1.8e19 ? UINT64_MAX : v <= 0 ? 0 : (uint64_t)v;
}

void compile_estimate(const struct front_input *in, bool every, bool simulate,
                      struct compile_estimate *e)
{
	const ir_machine *m = &in->machine;
	const ir_comm *c = &in->comm;
	double kept = 0, peak = 0, biggest = -1;
	/* the input itself: the matrix of an irregular pattern */
	double input = c->coll == IR_IRREGULAR && c->matrix
	                       ? 12.0 * c->matrix->nnz + 8.0 * m->nranks
	                       : 0;
	/* the simulator runs only when the costs it needs are known */
	const ir_cost *cost = &m->cost;
	bool sim = simulate && isfinite(cost->alpha) && isfinite(cost->beta) &&
	           isfinite(cost->hop) && isfinite(cost->gamma);
	memset(e, 0, sizeof *e);
	for (int k = 0; sch_generators[k]; k++) {
		const struct sch_generator *g = sch_generators[k];
		char why[256];
		if (every ? sch_applies(g, m, c, why, sizeof why) != 0
		          : strcmp(g->name, in->algorithm) != 0)
			continue;
		struct plan_size z;
		plan_size(m, c, g->name, sim, &z);
		kept += z.plan;
		peak = fmax(peak, z.peak_own);
		e->candidates++;
		if (z.peak_own + z.plan > biggest) {
			biggest = z.peak_own + z.plan;
			e->algorithm = g->name;
			e->transfers = sat(z.t);
			e->blocks = sat(z.b);
			e->ops = sat(z.ops);
			e->file_bytes = sat(z.file);
		}
	}
	/* a fixed part: the program, libraries, the YAML read, the cache */
	e->peak_bytes = sat(input + kept + peak + (8u << 20));
}

int compile_check_size(const struct front_input *in, bool every,
                       bool simulate, struct diag *d)
{
	struct compile_estimate e;
	compile_estimate(in, every, simulate, &e);
	uint64_t max = front_max_memory();
	if (e.peak_bytes <= max)
		return 0;
	char peak[32], lim[32], file[32];
	front_format_bytes(peak, sizeof peak, e.peak_bytes);
	front_format_bytes(lim, sizeof lim, max);
	front_format_bytes(file, sizeof file, e.file_bytes);
	d->line = d->column = 0;
	snprintf(d->message, sizeof d->message,
	         "this input would need about %s of memory to compile (%s%s: "
	         "%llu transfers, %llu blocks, %llu operations, a %s plan "
	         "file), more than the limit of %s; %s",
	         peak, every ? "every algorithm that applies is built; the "
	                       "largest, "
	                     : "",
	         e.algorithm ? e.algorithm : in->algorithm,
	         (unsigned long long)e.transfers,
	         (unsigned long long)e.blocks, (unsigned long long)e.ops, file,
	         lim, FRONT_MAX_MEMORY_HINT);
	return CCP_ERANGE;
}

/* Whether g refused only because contention is forbidden: without
 * contention: forbid it makes a plan with contended phases, which it
 * cannot split. */
static bool forbid_refused(const struct front_input *in,
                           const struct sch_generator *g,
                           const struct sch_options *o)
{
	struct sch_options free_o = *o;
	ir_plan p;
	free_o.forbid_contention = false;
	if (sch_generate(g, &in->machine, &in->comm, &free_o, &p) != 0) {
		ir_plan_fini(&p);
		return false;
	}
	bool contended = p.flags & (IR_PLAN_LINK_CONTENTION |
	                            IR_PLAN_NODE_CONTENTION);
	ir_plan_fini(&p);
	return contended;
}

int compile_generate(const struct front_input *in,
                     const struct sch_generator *g, ir_plan *p, ir_report *r,
                     char *why, size_t len)
{
	struct sch_options o = {
	        .seed = in->has_seed ? in->seed : in->comm.seed,
	        .forbid_contention = in->contention == CONTENTION_FORBID,
	        .hpam_price = model_hpam_price, /* 000's closed forms */
	};
	memset(r, 0, sizeof *r);
	int rc = sch_generate(g, &in->machine, &in->comm, &o, p);
	if (rc == CCP_ENOTAPPLY && o.forbid_contention &&
	    forbid_refused(in, g, &o)) {
		snprintf(why, len,
		         "%s: its phases contend%s and cannot be split (a "
		         "rank receives in a phase what it sends in it), which "
		         "contention: forbid does not allow",
		         g->name,
		         ir_routing_adapts(&in->machine)
		                 ? " in the worst case of adaptive routing"
		                 : "");
		ir_plan_fini(p);
		return rc;
	}
	if (rc) {
		snprintf(why, len, "%s: %s", g->name, ccp_strerror(rc));
		ir_plan_fini(p);
		return rc;
	}
	ir_plan_trim(p);
	if (in->contention == CONTENTION_FORBID)
		p->flags &=
		        ~(IR_PLAN_LINK_CONTENTION | IR_PLAN_NODE_CONTENTION);

	/* verify: no plan leaves the compiler without it */
	if ((rc = ir_verify(p, r)) != 0) {
		snprintf(why, len, "%s: plan rejected by the verifier: %s",
		         g->name, r->message);
		ir_report_fini(r);
		ir_plan_fini(p);
	}
	return rc;
}

/* algorithm: auto -- the best verified candidate, with the runner-up
 * recorded in the plan. */
static int compile_auto(const struct front_input *in, struct compiled *c,
                        struct diag *d)
{
	struct select_result sr;
	int rc = select_run(in, in->select == SELECT_SIMULATED,
	                    in->select == SELECT_MODEL, &sr);
	if (rc) {
		snprintf(d->message, sizeof d->message, "auto: %s",
		         ccp_strerror(rc));
		return rc;
	}
	struct select_row *best =
	        sr.n > 0 && sr.rows[0].rc == 0 ? &sr.rows[0] : NULL;
	if (!best) {
		at_algorithm(
		        in, d,
		        sr.n ? "auto: no algorithm that applies made a "
		               "plan the verifier accepts"
		             : "auto: no algorithm applies to this machine "
		               "and communication");
		select_fini(&sr);
		return CCP_ENOTAPPLY;
	}
	c->plan = best->plan;
	c->report = best->report;
	memset(&best->plan, 0, sizeof best->plan);
	memset(&best->report, 0, sizeof best->report);
	best->rc = CCP_EINVAL; /* moved out: select_fini leaves it */
	ir_selection *s = &c->plan.sel;
	s->method = sr.by_model ? IR_SELECT_MODEL : IR_SELECT_SIMULATED;
	s->time_us = sr.by_model ? best->predicted : best->sim_max;
	s->runner_up_us = NAN;
	for (size_t i = 0; i < sr.n; i++)
		s->candidates += sr.rows[i].rc == 0 || &sr.rows[i] == best;
	if (sr.n > 1 && sr.rows[1].rc == 0) {
		snprintf(s->runner_up, sizeof s->runner_up, "%s",
		         sr.rows[1].g->name);
		s->runner_up_us =
		        sr.by_model ? sr.rows[1].predicted : sr.rows[1].sim_max;
	}
	select_fini(&sr);
	return 0;
}

/* After a named algorithm's refusal in msg (len bytes), the algorithms
 * that do apply to in, as many names as fit, or that none does. */
static void say_applying(const struct front_input *in, char *msg, size_t len)
{
	size_t at = strlen(msg);
	int n = 0, left = 0;
	for (int k = 0; sch_generators[k]; k++) {
		const struct sch_generator *g = sch_generators[k];
		if (sch_applies(g, &in->machine, &in->comm, NULL, 0) != 0)
			continue;
		/* room for this name and the tail said after the list */
		size_t need = strlen(g->name) + 2 + 40;
		if (left || at + need >= len) {
			left++;
			continue;
		}
		at += (size_t)snprintf(msg + at, len - at, "%s%s",
		                       n ? ", " : "; these apply: ", g->name);
		n++;
	}
	if (at >= len)
		return;
	if (n == 0)
		snprintf(msg + at, len - at, "; no algorithm applies to this "
		         "input");
	else if (left)
		snprintf(msg + at, len - at, " and %d more (or auto)", left);
	else
		snprintf(msg + at, len - at, " (or auto)");
}

int compile_input(const struct front_input *in, struct compiled *c,
                  struct diag *d)
{
	uint8_t key[16];
	int rc = front_input_hash(in, key);
	if (rc) {
		memset(c, 0, sizeof *c);
		snprintf(d->message, sizeof d->message,
		         "hashing the input: %s", ccp_strerror(rc));
		return rc;
	}
	return compile_input_key(in, key, c, d);
}

int compile_input_key(const struct front_input *in, const uint8_t key[16],
                      struct compiled *c, struct diag *d)
{
	int rc;
	char msg[512], why[256];
	memset(c, 0, sizeof *c);

	if (strcmp(in->algorithm, "auto") == 0) {
		if ((rc = compile_check_size(in, true,
		                             in->select == SELECT_SIMULATED,
		                             d)) != 0)
			return rc;
		if ((rc = compile_auto(in, c, d)) != 0)
			return rc;
		goto lower;
	}
	/* generate */
	const struct sch_generator *g = sch_find(in->algorithm);
	if (!g) {
		const char *names[64];
		size_t count = 0;
		for (int k = 0; sch_generators[k] && count < 63; k++)
			names[count++] = sch_generators[k]->name;
		names[count++] = "auto";
		const char *near = front_nearest(in->algorithm, names, count);
		if (near)
			snprintf(msg, sizeof msg,
			         "unknown algorithm '%s'; did you mean '%s'?",
			         in->algorithm, near);
		else
			snprintf(msg, sizeof msg,
			         "unknown algorithm '%s' (ccplan --help lists "
			         "them)",
			         in->algorithm);
		at_algorithm(in, d, msg);
		return CCP_EPARSE;
	}
	if ((rc = sch_applies(g, &in->machine, &in->comm, why, sizeof why)) != 0) {
		snprintf(msg, sizeof msg, "%s", why);
		say_applying(in, msg, sizeof msg);
		at_algorithm(in, d, msg);
		return rc;
	}
	if ((rc = compile_check_size(in, false, false, d)) != 0)
		return rc;
	if ((rc = compile_generate(in, g, &c->plan, &c->report, msg,
	                           sizeof msg)) != 0) {
		/* a refusal of the input points at the algorithm it names */
		if (rc == CCP_ENOTAPPLY)
			at_algorithm(in, d, msg);
		else
			snprintf(d->message, sizeof d->message, "%s", msg);
		return rc;
	}

lower:
	/* the plan records its input's key, hashed once whatever the
	 * candidates */
	memcpy(c->plan.input_hash, key, sizeof c->plan.input_hash);
	if ((rc = ir_lower(&c->plan, &c->slices)) != 0) {
		snprintf(d->message, sizeof d->message, "lowering: %s",
		         ccp_strerror(rc));
		goto out_free;
	}
	return 0;

out_free:
	compiled_fini(c);
	return rc;
}

void compiled_fini(struct compiled *c)
{
	ir_slices_free(c->slices, c->plan.machine.nranks);
	ir_report_fini(&c->report);
	ir_plan_fini(&c->plan);
	memset(c, 0, sizeof *c);
}

/* Bytes handed to one write(2): a plan of hundreds of megabytes in one
 * call took the kernel 0.1 to 1.7 s to copy into the page cache, in
 * pieces of 1 MiB a steady 0.15-0.25 s (issue 20). */
#define WRITE_PIECE ((size_t)1 << 20)

/* Write all len bytes of buf to fd; false with errno set if not. */
static bool write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t w = write(fd, p, len < WRITE_PIECE ? len : WRITE_PIECE);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return false;
		}
		p += w;
		len -= (size_t)w;
	}
	return true;
}

/* The path a symbolic link names, relative to the link's directory
 * (malloc'd), or NULL. */
static char *link_target(const char *link)
{
	char to[4096];
	ssize_t n = readlink(link, to, sizeof to - 1);
	if (n <= 0 || (size_t)n >= sizeof to - 1)
		return NULL;
	to[n] = '\0';
	const char *slash = strrchr(link, '/');
	int dir = to[0] == '/' || !slash ? 0 : (int)(slash - link + 1);
	size_t cap = (size_t)dir + (size_t)n + 1;
	char *p = malloc(cap);
	if (p)
		snprintf(p, cap, "%.*s%s", dir, link, to);
	return p;
}

/* Fill the file open at fd: 0, or a code with errno telling why. */
typedef int (*fill_fn)(int fd, void *ctx);

/* Replace the regular file at path (or make it) with what fill writes,
 * atomically: a temporary file beside it, synced, then renamed over it;
 * a symbolic link stays one and the file it names is replaced. */
static int replace_file(const char *path, fill_fn fill, void *ctx, char *err,
                        size_t errlen)
{
	struct stat sb;
	char *real = NULL;
	int rc = CCP_EIO;
	if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
		real = realpath(path, NULL);
		if (!real && errno == ENOENT)
			real = link_target(path);
		if (real)
			path = real;
	}
	size_t n = strlen(path);
	char *tmp = malloc(n + 16);
	if (!tmp) {
		free(real);
		return CCP_ENOMEM;
	}
	snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot create: %s", path,
		         strerror(errno));
		free(tmp);
		free(real);
		return CCP_EIO;
	}
	if ((rc = fill(fd, ctx)) != 0)
		goto out_unlink;
	rc = CCP_EIO;
	/* mkstemp made it 0600; an output file gets the usual 0666 less the
	 * umask (read back by setting it) */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0 || fsync(fd) != 0)
		goto out_unlink;
	if (close(fd) != 0) {
		fd = -1;
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto out_unlink;
	free(tmp);
	free(real);
	return 0;
out_unlink:
	if (rc == CCP_EIO)
		snprintf(err, errlen, "%s: cannot write: %s", path,
		         strerror(errno));
	else
		snprintf(err, errlen, "%s: %s", path, ccp_strerror(rc));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	free(real);
	return rc;
}

/* A buffer to write. */
struct bytes {
	const void *buf;
	size_t len;
};

static int fill_bytes(int fd, void *ctx)
{
	const struct bytes *b = ctx;
	return write_all(fd, b->buf, b->len) ? 0 : CCP_EIO;
}

/* Whether path names something that is neither a regular file nor a
 * link nor absent: a device or FIFO (-o /dev/null, /dev/stdout to a
 * pipe), written in place, or a directory. */
static bool is_special(const char *path, struct stat *sb)
{
	return stat(path, sb) == 0 && !S_ISREG(sb->st_mode);
}

int write_atomic(const char *path, const void *buf, size_t len, char *err,
                 size_t errlen)
{
	struct stat sb;
	if (is_special(path, &sb)) {
		/* renaming over it would replace it with a file, so it is
		 * written in place; a directory is refused */
		int fd = S_ISDIR(sb.st_mode) ? (errno = EISDIR, -1)
		                             : open(path, O_WRONLY);
		bool ok = fd >= 0 && write_all(fd, buf, len);
		int e = errno;
		if (fd >= 0 && close(fd) != 0 && ok) {
			ok = false;
			e = errno;
		}
		if (ok)
			return 0;
		snprintf(err, errlen, "%s: cannot write: %s", path,
		         strerror(e));
		return CCP_EIO;
	}
	struct bytes b = {buf, len};
	return replace_file(path, fill_bytes, &b, err, errlen);
}

/* ---- a plan encoded straight into its file ------------------------------ */

static int sink_put(void *ctx, const void *buf, size_t len)
{
	return write_all(*(int *)ctx, buf, len) ? 0 : CCP_EIO;
}

static int sink_put_head(void *ctx, const void *head, size_t len)
{
	ssize_t w = pwrite(*(int *)ctx, head, len, 0);
	if (w >= 0 && (size_t)w != len)
		errno = EIO;
	return w >= 0 && (size_t)w == len ? 0 : CCP_EIO;
}

struct plan_fill {
	const struct compiled *c;
	char *why;
	size_t whylen;
};

static int fill_plan(int fd, void *ctx)
{
	const struct plan_fill *f = ctx;
	ir_sink sink = {sink_put, sink_put_head, &fd};
	return ir_plan_encode_to(&f->c->plan, &f->c->report, f->c->slices,
	                         &sink, NULL, f->why, f->whylen);
}

int compile_write(const struct compiled *c, const char *path, char *err,
                  size_t errlen)
{
	struct stat sb;
	if (is_special(path, &sb)) { /* no seeking back: in memory */
		uint8_t *img = NULL;
		size_t len = 0;
		int rc = compile_encode(c, &img, &len, err, errlen);
		if (rc == 0)
			rc = write_atomic(path, img, len, err, errlen);
		free(img);
		return rc;
	}
	char why[256] = "";
	struct plan_fill f = {c, why, sizeof why};
	int rc = replace_file(path, fill_plan, &f, err, errlen);
	if (rc == CCP_EINVAL || rc == CCP_EINTERNAL)
		snprintf(err, errlen, "encoding the plan: %s%s%s",
		         ccp_strerror(rc), why[0] ? ": " : "", why);
	return rc;
}

/* Whether path is a regular file of exactly the len bytes at buf.  A
 * FIFO is opened without waiting for a writer, and is not one. */
static bool holds_bytes(const char *path, const void *buf, size_t len)
{
	struct stat sb;
	static char chunk[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	bool same = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	            (uint64_t)sb.st_size == (uint64_t)len;
	for (size_t at = 0; same && at < len;) {
		size_t want = len - at < sizeof chunk ? len - at : sizeof chunk;
		ssize_t got = read(fd, chunk, want);
		if (got < 0 && errno == EINTR)
			continue;
		same = got > 0 &&
		       memcmp(chunk, (const char *)buf + at, (size_t)got) == 0;
		at += got > 0 ? (size_t)got : 0;
	}
	close(fd);
	return same;
}

int write_unless_same(const char *path, const void *buf, size_t len,
                      bool *same, char *err, size_t errlen)
{
	*same = holds_bytes(path, buf, len) &&
	        utimensat(AT_FDCWD, path, NULL, 0) == 0;
	return *same ? 0 : write_atomic(path, buf, len, err, errlen);
}

int compile_encode(const struct compiled *c, uint8_t **img, size_t *len,
                   char *err, size_t errlen)
{
	char why[256] = "";
	int rc = ir_plan_encode(&c->plan, &c->report, c->slices, img, len, why,
	                        sizeof why);
	if (rc)
		snprintf(err, errlen, "encoding the plan: %s%s%s",
		         ccp_strerror(rc), why[0] ? ": " : "", why);
	return rc;
}

int compile_read_file(const char *path, uint8_t **out, size_t *len,
                      char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return CCP_EIO;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fclose(f);
			return CCP_ENOMEM;
		}
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		uint8_t *q = realloc(buf, cap);
		if (!q)
			free(buf);
		buf = q;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		snprintf(err, errlen, "%s: read error", path);
		return CCP_EIO;
	}
	*out = buf;
	*len = n;
	return 0;
}

static bool slices_equal(const ir_slice *a, const ir_slice *b)
{
	if (a->rank != b->rank || a->send_bytes != b->send_bytes ||
	    a->recv_bytes != b->recv_bytes ||
	    a->scratch_bytes != b->scratch_bytes || a->nops != b->nops ||
	    a->niovs != b->niovs)
		return false;
	for (uint32_t k = 0; k < a->nops; k++) {
		const ir_op *x = &a->ops[k], *y = &b->ops[k];
		if (x->code != y->code || x->phase != y->phase ||
		    x->peer != y->peer || x->bytes != y->bytes ||
		    x->iov != y->iov || x->niov != y->niov)
			return false;
	}
	for (uint32_t k = 0; k < a->niovs; k++) {
		const ir_iov *x = &a->iovs[k], *y = &b->iovs[k];
		if (x->buf != y->buf || x->off != y->off || x->len != y->len)
			return false;
	}
	return true;
}

int plan_load_image(const uint8_t *img, size_t len, const char *path,
                    struct compiled *c, ir_file_info *fi, char *err,
                    size_t errlen)
{
	char why[256] = "";
	int rc;
	memset(c, 0, sizeof *c);
	if ((rc = ir_plan_decode(img, len, &c->plan, fi, why, sizeof why)) !=
	    0) {
		snprintf(err, errlen, "%s: %s", path, why);
		goto out;
	}
	char mwhy[256];
	if ((rc = ir_machine_check(&c->plan.machine, mwhy, sizeof mwhy)) != 0) {
		snprintf(err, errlen, "%s: bad machine in plan: %s", path,
		         mwhy);
		goto out;
	}
	if ((rc = ir_verify(&c->plan, &c->report)) != 0) {
		snprintf(err, errlen, "%s: plan rejected by the verifier: %s",
		         path, c->report.message);
		goto out;
	}
	if (c->report.lb_phases != fi->lb_phases) {
		snprintf(err, errlen,
		         "%s: the file records a lower bound of %u phases, the "
		         "verifier finds %u",
		         path, fi->lb_phases, c->report.lb_phases);
		rc = CCP_EVERIFY;
		goto out;
	}
	if ((rc = ir_lower(&c->plan, &c->slices)) != 0) {
		snprintf(err, errlen, "%s: lowering: %s", path,
		         ccp_strerror(rc));
		goto out;
	}
	for (int32_t r = 0; r < c->plan.machine.nranks; r++) {
		ir_slice s;
		/* ir_plan_decode checked the whole image: hashed once */
		rc = ir_slice_from_checked(img, len, fi, r, &s, why,
		                           sizeof why);
		if (rc) {
			snprintf(err, errlen, "%s: rank %d: %s", path, (int)r,
			         why);
			goto out;
		}
		bool same = slices_equal(&s, &c->slices[r]);
		ir_slice_fini(&s);
		if (!same) {
			snprintf(err, errlen,
			         "%s: rank %d's operations do not match the "
			         "plan's "
			         "phases",
			         path, (int)r);
			rc = CCP_EVERIFY;
			goto out;
		}
	}
out:
	if (rc)
		compiled_fini(c);
	return rc;
}

int plan_load(const char *path, struct compiled *c, ir_file_info *fi, char *err,
              size_t errlen)
{
	uint8_t *img = NULL;
	size_t len = 0;
	memset(c, 0, sizeof *c);
	int rc = compile_read_file(path, &img, &len, err, errlen);
	if (rc)
		return rc;
	rc = plan_load_image(img, len, path, c, fi, err, errlen);
	free(img);
	return rc;
}

int exit_status(int rc)
{
	switch (rc) {
	case 0:
		return EXIT_OK;
	case CCP_EVERIFY:
		return EXIT_REJECTED;
	case CCP_EPARSE:
	case CCP_ENOTAPPLY:
	case CCP_EFORMAT:
	case CCP_EVERSION:
	case CCP_ECHECKSUM:
	case CCP_ETRUNC:
	case CCP_ERANGE:
	case CCP_EINVAL:
	case CCP_EIO:
		return EXIT_BADINPUT;
	default:
		return EXIT_INTERNAL;
	}
}
