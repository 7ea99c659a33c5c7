/*
 * bench_node_aware.c - node-aware irregular exchange (node_exchange,
 * schedules/node_exchange.c) against the flat link-aware schedule of the
 * same pattern, on tori of 16 to 1,024 nodes with 4, 16 and 48 ranks per
 * node.
 *
 * Patterns (4 KiB messages, ranks laid on a process grid in rank order,
 * rank = x + X*y..., no wraparound): the halo of a 2D 5-point stencil on
 * 2D tori (4x4 .. 32x32 nodes), of 3D 7- and 27-point stencils on 3D tori
 * (2x2x4 .. 8x8x16 nodes), and a random 8-regular pattern on the 2D tori.
 * Machine: block placement, NODE_PORTS network ports per node, and every
 * rank may make as many transfers per phase as its node has links
 * (`ports: all`).  Costs: alpha 2 us, beta 1e-4 us/B, hop 0.05 us, gamma
 * 0; shm_alpha 0.5 us and shm_beta 2e-5 us/B for a transfer inside a
 * node, whose memory the phase's transfers there share (docs/cost-models.md,
 * "nodes").
 *
 * For each pattern, machine and ranks per node, two plans:
 *   flat   link_aware on the ranks (sch_irregular), its phases then split
 *          where a node's network transfers pass its network ports (the
 *          verifier's node-port rule, which link_aware does not know);
 *   node   node_exchange.
 * Columns: network messages (transfers between nodes), phases, a bound,
 * the predicted time (unicast model) and the generation time (node:
 * median of REPS runs; flat: one run, with the split).  The flat bound is
 * the verifier's (degree and link terms of a direct plan).  A relayed
 * plan has only the spreading term (1), so for node_exchange the table
 * gives the bound of its exchange step instead: the verifier's bound of
 * the node pairs on the machine of nodes (xbound).  Flat plans of more
 * than FLAT_MAX messages are not made (the flat link-aware schedule would
 * take minutes); the row says "skipped".
 *
 * Before them, a table of the node-aware collectives (hierarchical,
 * schedules/hierarchical.c) with one leader a node and with several, one
 * lane each among nodes, against a flat plan: tori of 4x4, 8x8, 16x16
 * and 4x4x4 nodes of 4 ranks, one port a rank, 4 network ports a node
 * (6 on the 3D torus), the tofu-d preset's costs (tau 0.49 us, phi
 * 1/6800 us/B, shm_beta 4/1024000 us/B, shm_alpha unset), broadcasts,
 * allreduces and allgathers of 64 B, 64 KiB and 1 MiB (a rank's block
 * for the allgather).  One leader is the plan on the same machine with
 * one network port a node (where only one fits); flat is
 * scatter_allgather (broadcast) or ring on the ranks, which keep within
 * a node's ports.  Columns: phases, the most network transfers a
 * node sends in a phase, and the predicted time (permutation model,
 * shared-memory part included).
 * Usage: bench_node_aware [REPS] [MAX_NODES] (MAX_NODES 0: only the
 * collectives)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ir.h"
#include "irregular.h"
#include "matrix.h"
#include "model.h"
#include "sched.h"

#define NODE_PORTS 4         /* network transfers per node and phase */
#define BYTES      4096      /* every message */
#define FLAT_MAX   (1 << 19) /* most messages scheduled flat */

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_node_aware: %s: %s\n", what, ccp_strerror(rc));
	exit(3);
}

/* A torus of nodes with rpn ranks each and the costs above. */
static ir_machine torus(int nd, const int *dims, int rpn)
{
	ir_machine m;
	char err[256];
	memset(&m, 0, sizeof m);
	ir_cost_unset(&m.cost);
	m.topo = IR_TORUS;
	m.routing = IR_ROUTE_DIM_ORDER;
	m.ndims = nd;
	for (int d = 0; d < IR_MAX_DIMS; d++)
		m.dims[d] = d < nd ? dims[d] : 1;
	m.ports = IR_PORTS_ALL;
	m.ranks_per_node = rpn;
	m.placement = IR_PLACE_BLOCK;
	m.node_ports = NODE_PORTS;
	m.cost.alpha = 2;
	m.cost.beta = 1e-4;
	m.cost.hop = 0.05;
	m.cost.gamma = 0;
	m.cost.shm_alpha = 0.5;
	m.cost.shm_beta = 2e-5;
	if (ir_machine_check(&m, err, sizeof err) != 0) {
		fprintf(stderr, "bench_node_aware: %s\n", err);
		exit(3);
	}
	return m;
}

/* n ranks as a process grid of nd near-equal extents. */
static void factor(int32_t n, int nd, int32_t *g)
{
	for (int d = 0; d < nd; d++) {
		int32_t f =
		        (int32_t)floor(pow((double)n, 1.0 / (nd - d)) + 1e-9);
		while (f > 1 && n % f)
			f--;
		g[d] = f;
		n /= f;
	}
	g[nd - 1] *= n;
}

/* Split each phase of p where a node sends or receives more than
 * NODE_PORTS transfers over the network: first fit into sub-phases, in
 * transfer order (subsets of a phase keep its links and rank ports). */
static int split_node_ports(ir_plan *p)
{
	const ir_machine *m = &p->machine;
	ir_plan q;
	int rc = 0;
	uint32_t *sub = malloc(((size_t)p->ntransfers + 1) * sizeof *sub);
	uint32_t cap = 64, *used = NULL;
	if (!sub)
		return CCP_ENOMEM;
	ir_plan_init(&q, m, &p->comm, p->algorithm);
	for (uint32_t ph = 0; ph < p->nphases && rc == 0; ph++) {
		const ir_phase *f = &p->phases[ph];
		uint32_t nsub = 1;
		/* per sub-phase counts, nnodes x 2 each, grown as needed */
		free(used);
		used = calloc((size_t)cap * m->nnodes * 2, sizeof *used);
		if (!used) {
			rc = CCP_ENOMEM;
			break;
		}
		for (uint32_t t = 0; t < f->ntransfers; t++) {
			const ir_transfer *x = &p->transfers[f->transfer + t];
			int32_t a = ir_node_of(m, x->src),
			        b = ir_node_of(m, x->dst);
			uint32_t k = 0;
			if (a != b) {
				while (k < cap &&
				       (used[((size_t)k * m->nnodes + a) * 2] >=
				                NODE_PORTS ||
				        used[((size_t)k * m->nnodes + b) * 2 +
				             1] >= NODE_PORTS))
					k++;
				if (k == cap) {
					rc = CCP_ERANGE;
					break;
				}
				used[((size_t)k * m->nnodes + a) * 2]++;
				used[((size_t)k * m->nnodes + b) * 2 + 1]++;
			}
			sub[t] = k;
			nsub = k + 1 > nsub ? k + 1 : nsub;
		}
		for (uint32_t k = 0; k < nsub && rc == 0; k++) {
			if ((rc = ir_plan_phase(&q)) != 0)
				break;
			for (uint32_t t = 0; t < f->ntransfers && rc == 0;
			     t++) {
				const ir_transfer *x =
				        &p->transfers[f->transfer + t];
				if (sub[t] == k)
					rc = ir_plan_add(&q, x->src, x->dst,
					                 p->blocks + x->block,
					                 x->nblocks, x->flags);
			}
		}
	}
	free(used);
	free(sub);
	if (rc) {
		ir_plan_fini(&q);
		return rc;
	}
	q.flags = p->flags;
	ir_plan_trim(&q);
	ir_plan_fini(p);
	*p = q;
	return 0;
}

/* The verifier's bound of the node pairs of x on the machine of nodes of
 * m (one rank per node, NODE_PORTS ports): what the exchange step of
 * node_exchange cannot beat. */
static uint32_t exchange_bound(const ir_machine *m, const ir_matrix *x)
{
	ir_machine nm = *m;
	char err[160];
	nm.ranks_per_node = 1;
	nm.node_ports = IR_PORTS_ALL;
	nm.ports = NODE_PORTS;
	if (ir_machine_check(&nm, err, sizeof err) != 0)
		die(err, CCP_EINVAL);
	int32_t nn = m->nnodes;
	struct ir_edge *e = malloc(((size_t)x->nnz + 1) * sizeof *e);
	if (!e)
		die("bound", CCP_ENOMEM);
	size_t ne = 0;
	/* one edge per node pair: keep the first message of each */
	uint64_t *seen = calloc(((size_t)nn * nn + 63) / 64, sizeof *seen);
	if (!seen)
		die("bound", CCP_ENOMEM);
	for (int32_t s = 0; s < x->n; s++)
		for (int64_t k = x->row[s]; k < x->row[s + 1]; k++) {
			int32_t a = ir_node_of(m, s),
			        b = ir_node_of(m, x->dst[k]);
			uint64_t bit = (uint64_t)a * nn + b;
			if (a == b || (seen[bit / 64] >> (bit % 64) & 1))
				continue;
			seen[bit / 64] |= UINT64_C(1) << (bit % 64);
			e[ne] = (struct ir_edge){a, b, 1, ne};
			ne++;
		}
	ir_matrix *px;
	size_t bad;
	int rc = ir_matrix_from_edges(nn, e, ne, &px, &bad);
	if (rc)
		die("bound", rc);
	ir_comm c = {.coll = IR_IRREGULAR, .matrix = px};
	ir_report r;
	memset(&r, 0, sizeof r);
	if ((rc = ir_lower_bound(&nm, &c, true, 0, 1, &r)) != 0)
		die("bound", rc);
	ir_matrix_free(px);
	free(seen);
	free(e);
	return r.lb_phases;
}

/* One plan's row: network messages, phases, bound, model time. */
struct row {
	uint64_t net;
	uint32_t phases, bound;
	double us, gen_s;
	char note[64];
};

/* Verify p and fill what the table shows of it. */
static void measure_plan(const ir_plan *p, struct row *w)
{
	ir_report r;
	char err[256];
	int rc = ir_verify(p, &r);
	if (rc)
		fprintf(stderr, "bench_node_aware: %s: %s\n", p->algorithm,
		        r.message);
	if (rc)
		die("verify", rc);
	w->net = r.transfers - r.shm_transfers;
	w->phases = r.phases;
	w->bound = r.lb_phases;
	if (model_predict(p, &r, MODEL_UNICAST, &w->us, NULL, err,
	                  sizeof err) != 0)
		w->us = NAN;
	ir_report_fini(&r);
}

static void run(const char *pat, int nd, const int *dims, int rpn, int kind,
                int reps)
{
	ir_machine m = torus(nd, dims, rpn);
	int32_t g[3];
	ir_matrix *x;
	if (kind == 0) {
		factor(m.nranks, nd, g);
		x = ir_matrix_stencil(nd, g, false, BYTES);
	} else if (kind == 1) {
		factor(m.nranks, nd, g);
		x = ir_matrix_stencil(nd, g, true, BYTES);
	} else {
		x = ir_matrix_regular(m.nranks, 8, BYTES, 1);
	}
	if (!x)
		die("pattern", CCP_ENOMEM);
	char shape[32];
	if (nd == 2)
		snprintf(shape, sizeof shape, "%dx%d", dims[0], dims[1]);
	else
		snprintf(shape, sizeof shape, "%dx%dx%d", dims[0], dims[1],
		         dims[2]);
	ir_comm c = {.coll = IR_IRREGULAR, .matrix = x, .seed = 1};
	struct sch_options o = {.seed = 1};
	struct row flat = {0}, node = {0};
	ir_plan p;
	int rc;

	/* flat */
	if (x->nnz <= FLAT_MAX) {
		double t0 = bench_now();
		if ((rc = sch_irregular(&m, x, SCH_IRR_LINK_AWARE, 1, &p)) != 0)
			die("link_aware", rc);
		if ((rc = split_node_ports(&p)) != 0)
			die("split", rc);
		flat.gen_s = bench_now() - t0;
		measure_plan(&p, &flat);
		ir_plan_fini(&p);
	} else {
		flat.phases = 0;
		snprintf(flat.note, sizeof flat.note, "skipped");
	}
	/* node-aware */
	double t[16];
	for (int k = 0; k < reps; k++) {
		double t0 = bench_now();
		if ((rc = sch_node_exchange.generate(&m, &c, &o, &p)) != 0)
			die("node_exchange", rc);
		t[k] = bench_now() - t0;
		if (k + 1 < reps)
			ir_plan_fini(&p);
	}
	node.gen_s = bench_median(t, reps);
	measure_plan(&p, &node);
	ir_plan_fini(&p);
	uint32_t xb = exchange_bound(&m, x);

	char fl[160];
	if (flat.note[0])
		snprintf(fl, sizeof fl, "- | - | - | - | %s", flat.note);
	else
		snprintf(fl, sizeof fl, "%llu | %u | %u | %.1f | %.2f",
		         (unsigned long long)flat.net, flat.phases, flat.bound,
		         flat.us, flat.gen_s);
	printf("| %s | %s | %d | %d | %lld | %s | %llu | %u | %u | %.1f | "
	       "%.2f | %s |\n",
	       pat, shape, rpn, (int)m.nranks, (long long)x->nnz, fl,
	       (unsigned long long)node.net, node.phases, xb, node.us,
	       node.gen_s,
	       flat.note[0]        ? "-"
	       : node.us < flat.us ? "node"
	                           : "flat");
	fflush(stdout);
	ir_matrix_free(x);
}

/* A torus of nodes with 4 ranks each, one port a rank, np network
 * ports a node and the tofu-d costs. */
static ir_machine tofu(int nd, const int *dims, int np)
{
	ir_machine m = torus(nd, dims, 4);
	ir_cost_unset(&m.cost);
	if (model_preset_apply(&m.cost, "tofu-d") != 0)
		die("preset", CCP_ENOTFOUND);
	m.ports = 1;
	m.node_ports = np;
	return m;
}

/* One plan of a collectives row: its phases, the most network sends of
 * a node in a phase, and its predicted time. */
struct cell {
	uint32_t phases, net;
	double us;
};

static struct cell cell_of(const struct sch_generator *g, const ir_machine *m,
                           const ir_comm *c)
{
	struct sch_options o = {.forbid_contention = true};
	struct cell w = {0, 0, NAN};
	ir_plan p;
	ir_report r;
	char err[256];
	int rc = g->generate(m, c, &o, &p);
	if (rc)
		die(g->name, rc);
	rc = ir_verify(&p, &r);
	if (rc)
		die(r.message, rc);
	if (model_predict(&p, &r, MODEL_PERMUTATION, &w.us, NULL, err,
	                  sizeof err) != 0)
		die(err, CCP_EINVAL);
	w.phases = p.nphases;
	w.net = r.max_net_sends;
	ir_report_fini(&r);
	ir_plan_fini(&p);
	return w;
}

/* The collectives table (see the opening comment). */
static void collectives(void)
{
	static const struct {
		int nd, dims[3], np;
	} ms[] = {{2, {4, 4, 1}, 4},
	          {2, {8, 8, 1}, 4},
	          {2, {16, 16, 1}, 4},
	          {3, {4, 4, 4}, 6}};
	static const enum ir_coll cs[] = {IR_BCAST, IR_ALLREDUCE,
	                                  IR_ALLGATHER};
	static const int64_t sizes[] = {64, 65536, 1 << 20};
	printf("hierarchical with one leader a node and with several (a lane "
	       "each among nodes), against flat:\ntori of nodes of 4 ranks, "
	       "one port a rank, 4 network ports a node (6 in 3D), tofu-d "
	       "costs (permutation model)\n\n");
	printf("| nodes | collective | bytes | flat phases | flat us | one "
	       "leader phases | one leader us | leaders phases | leaders net "
	       "sends | leaders us | one / leaders |\n");
	printf("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		ir_machine one = tofu(ms[i].nd, ms[i].dims, 1);
		ir_machine many = tofu(ms[i].nd, ms[i].dims, ms[i].np);
		char shape[32];
		if (ms[i].nd == 2)
			snprintf(shape, sizeof shape, "%dx%d", ms[i].dims[0],
			         ms[i].dims[1]);
		else
			snprintf(shape, sizeof shape, "%dx%dx%d",
			         ms[i].dims[0], ms[i].dims[1], ms[i].dims[2]);
		for (size_t j = 0; j < sizeof cs / sizeof cs[0]; j++)
			for (size_t b = 0; b < sizeof sizes / sizeof sizes[0];
			     b++) {
				ir_comm c;
				memset(&c, 0, sizeof c);
				c.coll = cs[j];
				c.bytes = sizes[b];
				if (cs[j] == IR_ALLREDUCE) {
					c.dtype = IR_DT_INT32;
					c.op = IR_OP_SUM;
				}
				const struct sch_generator *fg =
				        cs[j] == IR_BCAST ? &sch_scatter_allgather
				                                : &sch_ring;
				struct cell f = cell_of(fg, &many, &c);
				struct cell o = cell_of(&sch_hierarchical, &one,
				                        &c);
				struct cell l = cell_of(&sch_hierarchical, &many,
				                        &c);
				printf("| %s | %s | %lld | %u | %.1f | %u | %.1f "
				       "| %u | %u | %.1f | %.2f |\n",
				       shape, ir_coll_name(cs[j]),
				       (long long)c.bytes, f.phases, f.us,
				       o.phases, o.us, l.phases, l.net, l.us,
				       o.us / l.us);
				fflush(stdout);
			}
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 3;
	int max_nodes = argc > 2 ? atoi(argv[2]) : 1024;
	if (reps < 1 || reps > 16)
		reps = 3;
	static const int d2[][2] = {{4, 4}, {8, 8}, {16, 16}, {32, 32}};
	static const int d3[][3] = {
	        {2, 2, 4}, {4, 4, 4}, {8, 8, 8}, {8, 8, 16}};
	static const int rpns[] = {4, 16, 48};
	collectives();
	if (max_nodes < 1)
		return 0;
	printf("node_exchange against flat link_aware: tori of nodes, "
	       "block placement, %d network ports per node, ports: all, "
	       "%d-byte messages;\nalpha 2 us, beta 1e-4 us/B, hop 0.05 us "
	       "(unicast model); shm_alpha 0.5 us, shm_beta 2e-5 us/B inside "
	       "a node;\ngeneration: node median of %d runs, flat one run "
	       "(with the node-port split); flat skipped above %d messages\n\n",
	       NODE_PORTS, BYTES, reps, FLAT_MAX);
	printf("| pattern | nodes | rpn | ranks | messages | flat net | "
	       "flat phases | flat bound | flat us | flat gen s | node net | "
	       "node phases | xbound | node us | node gen s | faster |\n");
	printf("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
	       "--:|---|\n");
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < 4; i++) {
			if (d2[i][0] * d2[i][1] > max_nodes)
				continue;
			run("2D 5-pt", 2, d2[i], rpns[r], 0, reps);
			run("random 8", 2, d2[i], rpns[r], 2, reps);
		}
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < 4; i++) {
			if (d3[i][0] * d3[i][1] * d3[i][2] > max_nodes)
				continue;
			run("3D 7-pt", 3, d3[i], rpns[r], 0, reps);
			run("3D 27-pt", 3, d3[i], rpns[r], 1, reps);
		}
	return 0;
}
