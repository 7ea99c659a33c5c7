/*
 * node_exchange.c - node-aware irregular exchange (after Bienz, Gropp and
 * Olson's node-aware communication): on a machine of several ranks per
 * node, every message from one node to another travels in one network
 * transfer per (source node, destination node) pair, through leaders:
 *
 *   1. gather    each rank passes its off-node messages, through shared
 *                memory, to the leader of its node that sends to the
 *                destination node (messages between two ranks of one
 *                node go straight to their destination in this step);
 *   2. exchange  each pair of nodes that communicates is one transfer,
 *                leader to leader, carrying every block between them;
 *                the pairs are scheduled by the link-aware scheduler
 *                (coloring.c) on the machine of nodes, whose ports are
 *                the node's network ports, so the phases are free of
 *                link and node-port contention;
 *   3. scatter   the receiving leaders forward each block, through
 *                shared memory, to its destination rank.
 *
 * Leaders: in each exchange phase, the i-th transfer a node sends leaves
 * from its local rank i (mod ranks per node), and the i-th it receives
 * arrives at its local rank i: one leader per network port, chosen per
 * destination (source) node.  The machine of nodes has at most as many
 * ports as the node's ranks can drive, so no rank exceeds its own ports.
 * The gather and the scatter are bipartite colourings of the shared-
 * memory transfers (coloring.c's optimal node scheduler): exactly
 * max ceil(degree / ports) phases each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irregular.h"
#include "matrix.h"
#include "sched.h"

/* One message on its way: a sort key and the message (CSR index). */
struct keyed {
	uint64_t key;
	uint32_t e;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->e > y->e) - (x->e < y->e);
}

/* Messages grouped into transfers: the sorted (key, message) list, and
 * for each group g its key, its messages at start[g] .. start[g + 1] of
 * the list, and its bytes.  A key names the group's (from, to). */
struct groups {
	struct keyed *m; /* messages, sorted by key */
	uint32_t nm;
	uint64_t *key;   /* one per group, ascending */
	uint32_t *start; /* ng + 1 offsets into m */
	int64_t *bytes;  /* total bytes of each group */
	uint32_t ng;
};

static void groups_fini(struct groups *g)
{
	free(g->m);
	free(g->key);
	free(g->start);
	free(g->bytes);
	memset(g, 0, sizeof *g);
}

/* Sort g->m[0..nm) (filled by the caller) and cut it into groups of
 * equal keys, summing the bytes of x's messages.  0 or CCP_ENOMEM. */
static int groups_make(struct groups *g, const ir_matrix *x)
{
	qsort(g->m, g->nm, sizeof *g->m, cmp_keyed);
	g->key = malloc(((size_t)g->nm + 1) * sizeof *g->key);
	g->start = malloc(((size_t)g->nm + 2) * sizeof *g->start);
	g->bytes = malloc(((size_t)g->nm + 1) * sizeof *g->bytes);
	if (!g->key || !g->start || !g->bytes)
		return CCP_ENOMEM;
	g->ng = 0;
	for (uint32_t i = 0; i < g->nm; i++) {
		if (i == 0 || g->m[i].key != g->m[i - 1].key) {
			g->key[g->ng] = g->m[i].key;
			g->start[g->ng] = i;
			g->bytes[g->ng++] = 0;
		}
		g->bytes[g->ng - 1] += x->bytes[g->m[i].e];
	}
	g->start[g->ng] = g->nm;
	return 0;
}

/* The group of key k, or UINT32_MAX. */
static uint32_t groups_find(const struct groups *g, uint64_t k)
{
	uint32_t lo = 0, hi = g->ng;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (g->key[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->ng && g->key[lo] == k ? lo : UINT32_MAX;
}

/* The groups as an n x n matrix, key = from * n + to (from != to): row
 * `from`, column `to`, the group's bytes.  0, CCP_ERANGE (a row or
 * column total past INT64_MAX) or CCP_ENOMEM. */
static int groups_matrix(const struct groups *g, int32_t n, ir_matrix **out)
{
	struct ir_csr b;
	int rc = ir_csr_init(&b, n);
	if (rc == 0)
		rc = ir_csr_reserve(&b, g->ng);
	uint32_t k = 0;
	for (int32_t r = 0; r < n && rc == 0; r++) {
		for (; k < g->ng && g->key[k] / (uint64_t)n == (uint64_t)r &&
		       rc == 0;
		     k++)
			/* a group of zero-byte messages must be scheduled
			 * too (its blocks are delivered), and the matrix
			 * drops zero-byte entries: it counts as 1 byte here,
			 * where only the phases are decided */
			rc = ir_csr_add(&b, (int32_t)(g->key[k] % (uint64_t)n),
			                g->bytes[k] > 0 ? g->bytes[k] : 1);
		if (rc == 0)
			rc = ir_csr_end_row(&b);
	}
	if (rc == 0)
		rc = ir_csr_finish(&b, out);
	ir_csr_fini(&b);
	return rc;
}

/* Append to p one transfer per group, each group g in the phase that q's
 * phase-scheduled plan of g's matrix (one single-block transfer (from,
 * to) per group, from sch_irregular) gives it, with the blocks of its
 * messages; src[e] is message e's sender.  tmp holds the blocks of the
 * largest group. */
static int emit_groups(ir_plan *p, const ir_plan *q, const struct groups *g,
                       int32_t n, const ir_matrix *x, const int32_t *src,
                       ir_block *tmp)
{
	int rc;
	for (uint32_t ph = 0; ph < q->nphases; ph++) {
		const ir_phase *f = &q->phases[ph];
		if (f->ntransfers == 0)
			continue;
		if ((rc = ir_plan_phase(p)) != 0)
			return rc;
		for (uint32_t t = 0; t < f->ntransfers; t++) {
			const ir_transfer *y = &q->transfers[f->transfer + t];
			uint32_t k = groups_find(
			        g, (uint64_t)y->src * (uint64_t)n + y->dst);
			if (k == UINT32_MAX)
				return CCP_EINVAL; /* not a transfer of ours */
			uint32_t nb = 0;
			for (uint32_t i = g->start[k]; i < g->start[k + 1];
			     i++) {
				uint32_t e = g->m[i].e;
				tmp[nb++] = (ir_block){src[e], x->dst[e]};
			}
			if ((rc = ir_plan_add(p, y->src, y->dst, tmp, nb, 0)) !=
			    0)
				return rc;
		}
	}
	return 0;
}

/* Schedule the shared-memory transfers of g on m (the optimal node
 * scheduler: no link is used inside a node) and append them to p. */
static int shm_step(ir_plan *p, const ir_machine *m, const struct groups *g,
                    const ir_matrix *x, const int32_t *src, ir_block *tmp)
{
	ir_matrix *gx = NULL;
	ir_plan q;
	int rc = groups_matrix(g, m->nranks, &gx);
	if (rc)
		return rc;
	if ((rc = sch_irregular(m, gx, SCH_IRR_COLOR, 0, &q)) == 0)
		rc = emit_groups(p, &q, g, m->nranks, x, src, tmp);
	ir_plan_fini(&q);
	ir_matrix_free(gx);
	return rc;
}

/* The machine of nodes: m with one rank per node, each with the
 * network transfers its node may make in a phase: node_ports, and no
 * more than its ranks can make with their own ports.  (With node_ports
 * `all`, the link-aware plan uses each link once, so no node sends or
 * receives more than its links.) */
static int node_machine(const ir_machine *m, ir_machine *nm)
{
	char err[160];
	*nm = *m;
	nm->ranks_per_node = 1;
	nm->placement = IR_PLACE_BLOCK;
	nm->node_ports = IR_PORTS_ALL;
	nm->ports = m->node_ports;
	if (m->ports != IR_PORTS_ALL) {
		int64_t k = (int64_t)m->ranks_per_node * m->ports;
		if (k > INT32_MAX / 2)
			k = INT32_MAX / 2;
		if (nm->ports == IR_PORTS_ALL || nm->ports > k)
			nm->ports = (int)k;
	}
	return ir_machine_check(nm, err, sizeof err);
}

/* Build the node-aware plan of c's matrix on m into out. */
static int node_exchange_generate(const ir_machine *m, const ir_comm *c,
                                  const struct sch_options *o, ir_plan *out)
{
	const ir_matrix *x = c->matrix;
	int32_t n = m->nranks, nn = m->nnodes, rpn = m->ranks_per_node;
	uint32_t nnz = (uint32_t)x->nnz;
	struct groups pair = {0}, gat = {0}, sca = {0};
	ir_machine nm;
	ir_matrix *px = NULL;
	ir_plan np;
	int rc;

	memset(&np, 0, sizeof np);
	memset(out, 0, sizeof *out);
	if (x->nnz > (int64_t)UINT32_MAX / 2)
		return CCP_ERANGE;
	ir_plan_init(out, m, c, "node_exchange");
	out->flags = 0;
	if (!out->comm.matrix) {
		ir_plan_fini(out);
		return CCP_ENOMEM;
	}
	int32_t *src = malloc(((size_t)nnz + 1) * sizeof *src);
	uint32_t *lsend = NULL, *lrecv = NULL, *cnt_s = NULL, *cnt_r = NULL;
	ir_block *tmp = malloc(((size_t)nnz + 1) * sizeof *tmp);
	pair.m = malloc(((size_t)nnz + 1) * sizeof *pair.m);
	gat.m = malloc(((size_t)nnz + 1) * sizeof *gat.m);
	sca.m = malloc(((size_t)nnz + 1) * sizeof *sca.m);
	if (!src || !tmp || !pair.m || !gat.m || !sca.m)
		goto out_nomem;
	for (int32_t s = 0; s < n; s++)
		for (int64_t e = x->row[s]; e < x->row[s + 1]; e++)
			src[e] = s;

	/* the node pairs: messages between nodes, by (from, to) node */
	for (uint32_t e = 0; e < nnz; e++) {
		int32_t a = ir_node_of(m, src[e]), b = ir_node_of(m, x->dst[e]);
		if (a != b)
			pair.m[pair.nm++] = (struct keyed){
			        (uint64_t)a * (uint64_t)nn + (uint64_t)b, e};
	}
	if ((rc = groups_make(&pair, x)) != 0)
		goto out;

	/* 2. the exchange: the pairs on the machine of nodes */
	if ((rc = node_machine(m, &nm)) != 0)
		goto out;
	if ((rc = groups_matrix(&pair, nn, &px)) != 0)
		goto out;
	if ((rc = sch_irregular(&nm, px, SCH_IRR_LINK_AWARE, o->seed, &np)) !=
	    0)
		goto out;
	/* the leaders of each pair: the i-th send (receive) of a node in
	 * an exchange phase is its local rank i's */
	lsend = malloc(((size_t)pair.ng + 1) * sizeof *lsend);
	lrecv = malloc(((size_t)pair.ng + 1) * sizeof *lrecv);
	cnt_s = calloc((size_t)nn, sizeof *cnt_s);
	cnt_r = calloc((size_t)nn, sizeof *cnt_r);
	if (!lsend || !lrecv || !cnt_s || !cnt_r)
		goto out_nomem;
	for (uint32_t ph = 0; ph < np.nphases; ph++) {
		const ir_transfer *xs = np.transfers + np.phases[ph].transfer;
		uint32_t nt = np.phases[ph].ntransfers;
		for (uint32_t t = 0; t < nt; t++) {
			uint32_t k = groups_find(
			        &pair, (uint64_t)xs[t].src * (uint64_t)nn +
			                       (uint64_t)xs[t].dst);
			if (k == UINT32_MAX) {
				rc = CCP_EINVAL;
				goto out;
			}
			lsend[k] = (uint32_t)ir_node_rank(
			        m, xs[t].src,
			        (int32_t)(cnt_s[xs[t].src]++ % rpn));
			lrecv[k] = (uint32_t)ir_node_rank(
			        m, xs[t].dst,
			        (int32_t)(cnt_r[xs[t].dst]++ % rpn));
		}
		for (uint32_t t = 0; t < nt; t++)
			cnt_s[xs[t].src] = cnt_r[xs[t].dst] = 0;
	}

	/* 1. the gather (and the messages inside a node), 3. the scatter:
	 * keyed by (from, to) rank */
	for (uint32_t e = 0; e < nnz; e++) {
		int32_t s = src[e], d = x->dst[e];
		int32_t a = ir_node_of(m, s), b = ir_node_of(m, d);
		uint64_t to = (uint64_t)d;
		if (a != b) {
			uint32_t k =
			        groups_find(&pair, (uint64_t)a * (uint64_t)nn +
			                                   (uint64_t)b);
			to = lsend[k];
			if (lrecv[k] != (uint32_t)d)
				sca.m[sca.nm++] = (struct keyed){
				        (uint64_t)lrecv[k] * (uint64_t)n +
				                (uint64_t)d,
				        e};
		}
		if (to != (uint64_t)s)
			gat.m[gat.nm++] = (struct keyed){
			        (uint64_t)s * (uint64_t)n + to, e};
	}
	if ((rc = groups_make(&gat, x)) != 0 ||
	    (rc = groups_make(&sca, x)) != 0)
		goto out;

	/* the plan: gather, exchange (leader to leader), scatter */
	if ((rc = shm_step(out, m, &gat, x, src, tmp)) != 0)
		goto out;
	for (uint32_t ph = 0; ph < np.nphases; ph++) {
		const ir_transfer *xs = np.transfers + np.phases[ph].transfer;
		uint32_t nt = np.phases[ph].ntransfers;
		if (nt == 0)
			continue;
		if ((rc = ir_plan_phase(out)) != 0)
			goto out;
		for (uint32_t t = 0; t < nt; t++) {
			uint32_t k = groups_find(
			        &pair, (uint64_t)xs[t].src * (uint64_t)nn +
			                       (uint64_t)xs[t].dst);
			uint32_t nb = 0;
			for (uint32_t i = pair.start[k]; i < pair.start[k + 1];
			     i++) {
				uint32_t e = pair.m[i].e;
				tmp[nb++] = (ir_block){src[e], x->dst[e]};
			}
			if ((rc = ir_plan_add(out, (int32_t)lsend[k],
			                      (int32_t)lrecv[k], tmp, nb, 0)) !=
			    0)
				goto out;
		}
	}
	rc = shm_step(out, m, &sca, x, src, tmp);
	goto out;

out_nomem:
	rc = CCP_ENOMEM;
out:
	ir_plan_fini(&np);
	ir_matrix_free(px);
	groups_fini(&pair);
	groups_fini(&gat);
	groups_fini(&sca);
	free(src);
	free(tmp);
	free(lsend);
	free(lrecv);
	free(cnt_s);
	free(cnt_r);
	if (rc)
		ir_plan_fini(out);
	return rc;
}

/* Several ranks per node: with one, every message already is its own
 * network message (link_aware schedules it). */
static int node_exchange_fits(const struct sch_generator *g,
                              const ir_machine *m, const ir_comm *c, char *why,
                              size_t len)
{
	(void)c;
	if (ir_machine_has_nodes(m))
		return 0;
	snprintf(why, len,
	         "%s combines the messages of the ranks of one node; this "
	         "machine has one rank per node, where every message is "
	         "already its own network message (link_aware schedules "
	         "them)",
	         g->name);
	return CCP_ENOTAPPLY;
}

const struct sch_generator sch_node_exchange = {
        .name = "node_exchange",
        .summary = "irregular, several ranks per node: gather to leaders "
                   "in the node, one network transfer per node pair "
                   "(link_aware), scatter in the node",
        .doc = "node-aware.md",
        .domain = {.colls = SCH_C(IR_IRREGULAR),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL,
                   .where = "several ranks per node",
                   .fits = node_exchange_fits},
        .generate = node_exchange_generate,
};
