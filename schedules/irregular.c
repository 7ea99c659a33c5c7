/*
 * irregular.c - scheduling an irregular pattern COM into phases: the
 * library entry point sch_irregular (also callable by a runtime inspector),
 * the four algorithms of 004 (AC, LP, RS_N, RS_NL), and their generator
 * table entries for the compiler.  The optimal node scheduler, the
 * link-aware one and the size-grouping one live in coloring.c.
 *
 * Every algorithm emits one transfer per message COM[s][d], carrying the
 * single block (s, d), straight from s to d.  The randomised ones draw
 * only from ir/rng.h seeded with the caller's seed, and in a fixed order
 * (the row shuffles of the compression, then one start row per phase), so
 * a seed gives the same plan on every machine.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irregular.h"
#include "irregular_int.h"
#include "matrix.h"
#include "rng.h"
#include "sched.h"

/* Whether two messages of a phase can never share a link on m: on a
 * switch every ordered pair has its own link, and a matrix holds each
 * ordered pair once. */
static bool links_private(const ir_machine *m)
{
	return m->topo == IR_SWITCH;
}

/* Check that x is a well-formed CSR matrix (ir.h): offsets that tile the
 * arrays, destinations in range, never the row itself, strictly ascending
 * in each row.  The schedulers rely on all of it (RS_NL binary-searches
 * the rows), and a runtime inspector may hand us anything. */
static int check_matrix(const ir_matrix *x)
{
	if (!x || x->n < 1 || x->n > IR_MAX_RANKS || !x->row || x->nnz < 0 ||
	    x->nnz > IR_MATRIX_MAX_NNZ)
		return CCP_EINVAL;
	if (x->nnz > 0 && (!x->dst || !x->bytes))
		return CCP_EINVAL;
	if (x->row[0] != 0 || x->row[x->n] != x->nnz)
		return CCP_EINVAL;
	for (int32_t s = 0; s < x->n; s++) {
		if (x->row[s + 1] < x->row[s] || x->row[s + 1] > x->nnz)
			return CCP_EINVAL;
		for (int64_t e = x->row[s]; e < x->row[s + 1]; e++) {
			int32_t d = x->dst[e];
			if (d < 0 || d >= x->n || d == s)
				return CCP_EINVAL;
			if (e > x->row[s] && d <= x->dst[e - 1])
				return CCP_EINVAL;
		}
	}
	return 0;
}

/* Append message (s, d) to the current phase: one transfer, one block. */
static int add_msg(ir_plan *p, int32_t s, int32_t d)
{
	ir_block b = {s, d};
	return ir_plan_add(p, s, d, &b, 1, 0);
}

/* AC: every message in one phase, as each rank posts all its receives
 * and then sends everything (004 Fig. 1).  Nodes and links may contend;
 * the verifier measures how much. */
static int irr_ac(const ir_matrix *x, ir_plan *p)
{
	int rc;

	p->flags = IR_PLAN_LINK_CONTENTION | IR_PLAN_NODE_CONTENTION;
	if (x->nnz == 0)
		return 0;
	if ((rc = ir_plan_phase(p)) != 0)
		return rc;
	for (int32_t s = 0; s < x->n; s++)
		for (int64_t e = x->row[s]; e < x->row[s + 1]; e++)
			if ((rc = add_msg(p, s, x->dst[e])) != 0)
				return rc;
	return 0;
}

/* LP: phase k = 1 .. q-1 (q the power of two >= n) pairs rank i with
 * i XOR k; i sends to it if COM[i][i^k] exists (004 Fig. 2).  Messages are
 * bucketed by k = s XOR d (a counting sort, stable so each phase lists
 * senders in rank order), which costs O(nnz + q) instead of the figure's
 * O(n^2) probes; phases with no message are left out.  Each phase is a
 * set of pairwise exchanges: one send and one receive per rank, and on a
 * hypercube under e-cube routing (or a switch) no shared link. */
static int irr_lp(const ir_machine *m, const ir_matrix *x, ir_plan *p)
{
	int32_t q = 1;
	uint32_t *start;
	int32_t *order;
	int rc = 0;

	while (q < x->n)
		q <<= 1;
	bool free_links = links_private(m) || (m->topo == IR_HYPERCUBE &&
	                                       m->routing == IR_ROUTE_ECUBE);
	p->flags = free_links ? 0 : IR_PLAN_LINK_CONTENTION;
	if (x->nnz == 0)
		return 0;
	start = calloc((size_t)q + 1, sizeof *start);
	order = malloc((size_t)x->nnz * sizeof *order);
	if (!start || !order) {
		rc = CCP_ENOMEM;
		goto out_free;
	}
	for (int32_t s = 0; s < x->n; s++)
		for (int64_t e = x->row[s]; e < x->row[s + 1]; e++)
			start[(s ^ x->dst[e]) + 1]++;
	for (int32_t k = 0; k < q; k++)
		start[k + 1] += start[k];
	for (int32_t s = 0; s < x->n; s++)
		for (int64_t e = x->row[s]; e < x->row[s + 1]; e++)
			order[start[s ^ x->dst[e]]++] = (int32_t)e;
	/* start[k] is now the end of bucket k, i.e. the start of k + 1 */
	for (int32_t k = 1; k < q; k++) {
		uint32_t lo = start[k - 1], hi = start[k];
		if (lo == hi)
			continue;
		if ((rc = ir_plan_phase(p)) != 0)
			goto out_free;
		for (uint32_t t = lo; t < hi; t++) {
			int32_t d = x->dst[order[t]];
			if ((rc = add_msg(p, d ^ k, d)) != 0)
				goto out_free;
		}
	}
out_free:
	free(order);
	free(start);
	return rc;
}

/* One entry of CCOM: an unscheduled message of the row. */
struct rs_entry {
	int32_t e;        /* the message's CSR index */
	int32_t dst;      /* its destination: the figures' CCOM value */
	int32_t rev;      /* RS_NL: CSR index of the reverse message, or -1 */
	uint32_t hint[2]; /* RS_NL: the two links of its route that blocked
	                     it most recently (a search order, not state) */
};

/* State of the randomised schedulers RS_N and RS_NL (004 Figs. 3, 4).
 * Phases are numbered from 1, and a per-rank or per-link stamp equal to
 * the current phase number means "taken in this phase", so nothing is
 * cleared between phases (the figures reset Tsend, Trecv and PATHS). */
struct rs {
	const ir_machine *m;
	const ir_matrix *x;
	ir_plan *p;
	bool link_aware;       /* RS_NL: check and claim routes, pair first */
	bool check_links;      /* link_aware, and two routes can share a link */
	uint32_t ph;           /* current phase number */
	struct rs_entry *ccom; /* CCOM: row s's unscheduled messages,
	                          shuffled, at [row[s], row[s] + cnt[s]) */
	int32_t *cnt;      /* messages left in each row (the figures' prt+1) */
	int32_t *where;    /* RS_NL: position in ccom of message e, -1 once
	                      scheduled */
	uint32_t *sent;    /* last phase each rank sent in (Tsend) */
	uint32_t *recvd;   /* last phase each rank received in (Trecv) */
	uint32_t *link;    /* RS_NL: last phase each directed link was claimed
	                      in (the PATHS matrix of Fig. 4), and one spare
	                      entry at nl that no route claims */
	uint32_t *used;    /* RS_NL on links of several cables (a fat tree,
	                      a graph):
	                      transfers on each link in the phase its stamp
	                      names; NULL where every capacity is 1 */
	uint64_t nl;       /* RS_NL: ir_nlinks of the machine */
	uint64_t *ra, *rb; /* route buffers, ir_route_max entries each */
	int32_t *active;   /* rows with messages left, ascending */
	int32_t nactive;
};

/* Build CCOM: each row's messages moved to the front (in CSR they
 * already are) and randomly permuted, "to reduce collisions" (004 §4.2).
 * A Fisher-Yates shuffle per row, rows in order, draws from r. */
static void rs_compress(struct rs *st, struct ir_rng *r)
{
	const ir_matrix *x = st->x;

	for (int32_t s = 0; s < x->n; s++) {
		int64_t base = x->row[s];
		int32_t len = (int32_t)(x->row[s + 1] - base);
		struct rs_entry *c = st->ccom + base;
		for (int32_t j = 0; j < len; j++)
			c[j].e = (int32_t)(base + j);
		for (int32_t j = len - 1; j > 0; j--) {
			int32_t k = (int32_t)ir_rng_below(r, (uint64_t)j + 1);
			int32_t t = c[j].e;
			c[j].e = c[k].e;
			c[k].e = t;
		}
		for (int32_t j = 0; j < len; j++) {
			c[j].dst = x->dst[c[j].e];
			c[j].rev = -1;
			c[j].hint[0] = c[j].hint[1] = 0;
		}
		st->cnt[s] = len;
	}
}

/* RS_NL's extra tables: where each message sits in CCOM, its reverse
 * message (a binary search in the destination's row), so exchanges are
 * found in O(1), and the first and last links of its route as the
 * initial search hints. */
static int rs_prepare(struct rs *st)
{
	const ir_matrix *x = st->x;

	for (int32_t s = 0; s < x->n; s++) {
		for (int64_t i = x->row[s]; i < x->row[s + 1]; i++) {
			struct rs_entry *c = st->ccom + i;
			int32_t d = c->dst;
			int64_t lo = x->row[d], hi = x->row[d + 1];
			st->where[c->e] = (int32_t)i;
			while (lo < hi) {
				int64_t mid = lo + (hi - lo) / 2;
				if (x->dst[mid] < s)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < x->row[d + 1] && x->dst[lo] == s)
				c->rev = (int32_t)lo;
			if (st->check_links) {
				int h = ir_route(st->m, s, d, st->ra);
				if (h < 0)
					return CCP_EINTERNAL;
				/* ranks of one node: no link; the hints name
				 * the spare entry past the links, which no
				 * route claims */
				c->hint[0] = (uint32_t)(h ? st->ra[0] : st->nl);
				c->hint[1] =
				        (uint32_t)(h ? st->ra[h - 1] : st->nl);
			}
		}
	}
	return 0;
}

/* The route s -> d into buf; 0 hops when links need no checking. */
static int rs_route(struct rs *st, int32_t s, int32_t d, uint64_t *buf)
{
	int h;

	if (!st->check_links)
		return 0;
	h = ir_route(st->m, s, d, buf);
	return h > 0 ? h : 0;
}

/* Whether link l is full in this phase: claimed, as many times as its
 * cables (ir_link_capacity) where links have several. */
static bool rs_link_full(const struct rs *st, uint64_t l)
{
	if (st->link[l] != st->ph)
		return false;
	return !st->used || st->used[l] >= (uint32_t)ir_link_capacity(st->m, l);
}

/* Whether the route of entry c (from s) has no full link in this
 * phase (004 Fig. 4 Check_Path); the route is left in buf, its length in
 * *h.  The two links that blocked c most recently are looked at first,
 * before the route is computed: congested links are claimed early in
 * most phases, so a blocked message is usually rejected after one or two
 * looks.  The hints only order the look-ups; the answer is exact. */
static bool rs_route_free(struct rs *st, struct rs_entry *c, int32_t s,
                          uint64_t *buf, int *h)
{
	*h = 0;
	if (!st->check_links)
		return true;
	if (rs_link_full(st, c->hint[0]))
		return false;
	if (rs_link_full(st, c->hint[1])) {
		uint32_t t = c->hint[0];
		c->hint[0] = c->hint[1];
		c->hint[1] = t;
		return false;
	}
	*h = rs_route(st, s, c->dst, buf);
	for (int i = 0; i < *h; i++) {
		if (rs_link_full(st, buf[i])) {
			c->hint[1] = c->hint[0];
			c->hint[0] = (uint32_t)buf[i];
			return false;
		}
	}
	return true;
}

/* Claim (or, with stamp 0, release) the links of route r for this phase
 * (004 Fig. 4 Mark_Path); with counts, one use of each. */
static void rs_path_mark(struct rs *st, const uint64_t *r, int h,
                         uint32_t stamp)
{
	for (int i = 0; i < h; i++) {
		uint64_t l = r[i];
		if (!st->used)
			st->link[l] = stamp;
		else if (stamp && st->link[l] == stamp)
			st->used[l]++;
		else if (stamp) {
			st->link[l] = stamp;
			st->used[l] = 1;
		} else if (--st->used[l] == 0)
			st->link[l] = 0;
	}
}

/* Schedule CCOM(s, z) in this phase: record the sender and receiver,
 * emit the transfer, and remove the entry by moving the row's last entry
 * into its place (004 Fig. 3 step 2(c)ii). */
static int rs_take(struct rs *st, int32_t s, int32_t z)
{
	struct rs_entry *c = st->ccom + st->x->row[s];
	struct rs_entry taken = c[z];
	int32_t last = --st->cnt[s];

	st->sent[s] = st->ph;
	st->recvd[taken.dst] = st->ph;
	c[z] = c[last];
	if (st->where) {
		st->where[c[z].e] = (int32_t)(st->x->row[s] + z);
		st->where[taken.e] = -1;
	}
	return add_msg(st->p, s, taken.dst);
}

/* RS_N, one row: take the first entry of row s whose receiver is still
 * free in this phase (004 Fig. 3 step 2(c)i). */
static int rs_row_node(struct rs *st, int32_t s)
{
	const struct rs_entry *c = st->ccom + st->x->row[s];

	for (int32_t z = 0; z < st->cnt[s]; z++)
		if (st->recvd[c[z].dst] != st->ph)
			return rs_take(st, s, z);
	return 0;
}

/* RS_NL, one row: among the entries of row s whose receiver is free and
 * whose route has no link claimed in this phase, prefer one whose reverse
 * message can go in the same phase too (s still free to receive, the
 * partner still free to send, its route free once s's is claimed) and
 * take both, a pairwise exchange; otherwise take the first such entry
 * (004 Fig. 4 step 3(c)i: "priority is given to entries that can result
 * in pairwise exchange"). */
static int rs_row_link(struct rs *st, int32_t s)
{
	struct rs_entry *c = st->ccom + st->x->row[s];
	int32_t first = -1;
	int ha, hb, rc;

	if (st->sent[s] == st->ph) /* already sent, in an exchange */
		return 0;
	for (int32_t z = 0; z < st->cnt[s]; z++) {
		int32_t d = c[z].dst, b = c[z].rev;
		if (st->recvd[d] == st->ph)
			continue;
		bool pair = b >= 0 && st->recvd[s] != st->ph &&
		            st->sent[d] != st->ph && st->where[b] >= 0;
		if (!pair && first >= 0)
			continue; /* only an exchange can beat the first */
		if (!rs_route_free(st, &c[z], s, st->ra, &ha))
			continue;
		if (pair) {
			struct rs_entry *back = st->ccom + st->where[b];
			rs_path_mark(st, st->ra, ha, st->ph);
			if (rs_route_free(st, back, d, st->rb, &hb)) {
				int32_t zb =
				        st->where[b] - (int32_t)st->x->row[d];
				rs_path_mark(st, st->rb, hb, st->ph);
				if ((rc = rs_take(st, s, z)) != 0)
					return rc;
				return rs_take(st, d, zb);
			}
			rs_path_mark(st, st->ra, ha, 0);
		}
		if (first < 0)
			first = z;
	}
	if (first < 0)
		return 0;
	ha = rs_route(st, s, c[first].dst, st->ra);
	rs_path_mark(st, st->ra, ha, st->ph);
	return rs_take(st, s, first);
}

/* The phase loop shared by RS_N and RS_NL (004 Figs. 3, 4): each phase
 * starts at a random row x and visits rows x, x+1, ... mod n once.  Rows
 * with nothing left are skipped by walking a list of the others, which
 * visits the same rows in the same order as the figures' loop.  Every
 * phase schedules at least one message (the first row visited finds
 * every rank and link free), so the loop ends. */
static int rs_run(struct rs *st, struct ir_rng *r)
{
	const ir_matrix *x = st->x;
	int64_t left = x->nnz;
	int rc;

	st->nactive = 0;
	for (int32_t s = 0; s < x->n; s++)
		if (st->cnt[s] > 0)
			st->active[st->nactive++] = s;
	while (left > 0) {
		int32_t start = (int32_t)ir_rng_below(r, (uint64_t)x->n);
		int32_t lo = 0, hi = st->nactive, keep = 0;
		uint32_t before = st->p->ntransfers;

		st->ph++;
		if ((rc = ir_plan_phase(st->p)) != 0)
			return rc;
		while (lo < hi) { /* first active row >= start */
			int32_t mid = lo + (hi - lo) / 2;
			if (st->active[mid] < start)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int32_t k = 0; k < st->nactive; k++) {
			int32_t i = lo + k;
			int32_t s =
			        st->active[i < st->nactive ? i
			                                   : i - st->nactive];
			rc = st->link_aware ? rs_row_link(st, s)
			                    : rs_row_node(st, s);
			if (rc)
				return rc;
		}
		for (int32_t k = 0; k < st->nactive; k++)
			if (st->cnt[st->active[k]] > 0)
				st->active[keep++] = st->active[k];
		st->nactive = keep;
		if (st->p->ntransfers == before)
			return CCP_EINTERNAL; /* cannot happen, see above */
		left -= st->p->ntransfers - before;
	}
	return 0;
}

/* RS_N (link_aware false) and RS_NL (true): allocate the state, compress
 * COM into CCOM, run the phases, free everything. */
static int irr_rs(const ir_machine *m, const ir_matrix *x, uint64_t seed,
                  bool link_aware, ir_plan *p)
{
	struct rs st;
	struct ir_rng r;
	size_t n = (size_t)x->n, nnz = (size_t)x->nnz;
	int rc = CCP_ENOMEM;

	memset(&st, 0, sizeof st);
	st.m = m;
	st.x = x;
	st.p = p;
	st.link_aware = link_aware;
	st.check_links = link_aware && !links_private(m);
	p->flags = link_aware || links_private(m) ? 0 : IR_PLAN_LINK_CONTENTION;
	if (x->nnz == 0)
		return 0;
	st.ccom = malloc(nnz * sizeof *st.ccom);
	st.cnt = malloc(n * sizeof *st.cnt);
	st.sent = calloc(n, sizeof *st.sent);
	st.recvd = calloc(n, sizeof *st.recvd);
	st.active = malloc(n * sizeof *st.active);
	if (!st.ccom || !st.cnt || !st.sent || !st.recvd || !st.active)
		goto out_free;
	if (link_aware && !(st.where = malloc(nnz * sizeof *st.where)))
		goto out_free;
	if (st.check_links) {
		size_t hops = (size_t)ir_route_max(m) + 1;
		uint64_t nl = ir_nlinks(m);
		if (nl >= UINT32_MAX) { /* hints keep link ids in 32 bits */
			rc = CCP_ERANGE;
			goto out_free;
		}
		st.nl = nl;
		st.link = calloc((size_t)nl + 1, sizeof *st.link);
		bool wide = m->topo == IR_FAT_TREE || m->topo == IR_GRAPH ||
		            m->topo == IR_DRAGONFLY;
		if (wide)
			st.used = calloc((size_t)nl + 1, sizeof *st.used);
		st.ra = malloc(hops * sizeof *st.ra);
		st.rb = malloc(hops * sizeof *st.rb);
		if (!st.link || !st.ra || !st.rb || (wide && !st.used))
			goto out_free;
	}
	ir_rng_seed(&r, seed);
	rs_compress(&st, &r);
	if (link_aware && (rc = rs_prepare(&st)) != 0)
		goto out_free;
	rc = rs_run(&st, &r);
out_free:
	free(st.rb);
	free(st.ra);
	free(st.link);
	free(st.used);
	free(st.where);
	free(st.active);
	free(st.recvd);
	free(st.sent);
	free(st.cnt);
	free(st.ccom);
	return rc;
}

const char *sch_irregular_name(enum sch_irr_alg alg)
{
	switch (alg) {
	case SCH_IRR_AC:
		return "ac";
	case SCH_IRR_LP:
		return "lp";
	case SCH_IRR_RS_N:
		return "rs_n";
	case SCH_IRR_RS_NL:
		return "rs_nl";
	case SCH_IRR_COLOR:
		return "color";
	case SCH_IRR_LINK_AWARE:
		return "link_aware";
	case SCH_IRR_SIZED:
		return "sized";
	}
	return "?";
}

/* On a machine of several ranks per node, a schedule built rank by rank
 * may have more network transfers leave or enter a node in one phase
 * than its network ports allow, and two ranks of one node may share a
 * link the algorithm took for private: such plans have their phases
 * split (each transfer is a message from its origin to its destination,
 * so any split of a phase is causal).  AC, which declares node and link
 * contention, is left as it is. */
static int irr_nodes(ir_plan *p)
{
	if (!ir_machine_has_nodes(&p->machine) ||
	    (p->flags & IR_PLAN_NODE_CONTENTION))
		return 0;
	int over = sch_node_ports_exceeded(p);
	if (over == 0 && !(p->flags & IR_PLAN_LINK_CONTENTION))
		over = sch_contended(p);
	if (over < 0)
		return over;
	return over ? sch_split_contention(p) : 0;
}

/* The library entry: validate, start the plan with a copy of the matrix,
 * and run the algorithm.  On failure out is left empty (already
 * finalised), so the caller's ir_plan_fini is harmless either way. */
int sch_irregular(const ir_machine *m, const ir_matrix *x, enum sch_irr_alg alg,
                  uint64_t seed, ir_plan *out)
{
	ir_comm comm;
	int rc;

	if (!out)
		return CCP_EINVAL;
	memset(out, 0, sizeof *out);
	if (!m || check_matrix(x) != 0 || x->n != m->nranks)
		return CCP_EINVAL;
	comm = (ir_comm){
	        .coll = IR_IRREGULAR, .matrix = (ir_matrix *)x, .seed = seed};
	ir_plan_init(out, m, &comm, sch_irregular_name(alg));
	if (!out->comm.matrix) {
		ir_plan_fini(out);
		return CCP_ENOMEM;
	}
	switch (alg) {
	case SCH_IRR_AC:
		rc = irr_ac(x, out);
		break;
	case SCH_IRR_LP:
		rc = irr_lp(m, x, out);
		break;
	case SCH_IRR_RS_N:
		rc = irr_rs(m, x, seed, false, out);
		break;
	case SCH_IRR_RS_NL:
		rc = irr_rs(m, x, seed, true, out);
		break;
	case SCH_IRR_COLOR:
		rc = sch__irr_color(m, x, seed, out);
		break;
	case SCH_IRR_LINK_AWARE:
		rc = sch__irr_link_aware(m, x, seed, out);
		break;
	case SCH_IRR_SIZED:
		rc = sch__irr_sized(m, x, seed, out);
		break;
	default:
		rc = CCP_EINVAL;
		break;
	}
	if (rc == 0)
		rc = irr_nodes(out);
	if (rc)
		ir_plan_fini(out);
	return rc;
}

/* ---- generator table entries (schedules/sched.h) ---------------------- */

/* Generate with alg; under `contention: forbid`, a plan that may contend
 * (AC, LP off the hypercube, RS_N) is split into contention-free
 * sub-phases. */
static int irr_generate(enum sch_irr_alg alg, const ir_machine *m,
                        const ir_comm *c, const struct sch_options *o,
                        ir_plan *out)
{
	int rc = sch_irregular(m, c->matrix, alg, o->seed, out);

	if (rc == 0 && o->forbid_contention &&
	    (out->flags &
	     (IR_PLAN_LINK_CONTENTION | IR_PLAN_NODE_CONTENTION)) != 0)
		rc = sch_split_contention(out);
	return rc;
}

/* One generate function per algorithm, as the table needs.  They apply
 * to an irregular pattern on any topology, routing and port model (one
 * send and one receive per rank and phase, which every model allows). */
static int ac_generate(const ir_machine *m, const ir_comm *c,
                       const struct sch_options *o, ir_plan *p)
{
	return irr_generate(SCH_IRR_AC, m, c, o, p);
}

const struct sch_generator sch_ac = {
        .name = "ac",
        .summary = "irregular: every message in one phase; nodes and links may "
                   "contend (004 Fig. 1)",
        .doc = "irregular.md",
        .domain = {.colls = SCH_C(IR_IRREGULAR),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = ac_generate,
};

static int lp_generate(const ir_machine *m, const ir_comm *c,
                       const struct sch_options *o, ir_plan *p)
{
	return irr_generate(SCH_IRR_LP, m, c, o, p);
}

const struct sch_generator sch_lp = {
        .name = "lp",
        .summary = "irregular: XOR pairwise exchanges i <-> i^k, up to n-1 "
                   "phases; contention-free on a hypercube (004 Fig. 2)",
        .doc = "irregular.md",
        .domain = {.colls = SCH_C(IR_IRREGULAR),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = lp_generate,
};

static int rs_n_generate(const ir_machine *m, const ir_comm *c,
                         const struct sch_options *o, ir_plan *p)
{
	return irr_generate(SCH_IRR_RS_N, m, c, o, p);
}

const struct sch_generator sch_rs_n = {
        .name = "rs_n",
        .summary = "irregular: randomised partial permutations, no node "
                   "contention (004 Fig. 3)",
        .doc = "irregular.md",
        .domain = {.colls = SCH_C(IR_IRREGULAR),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = rs_n_generate,
};

static int rs_nl_generate(const ir_machine *m, const ir_comm *c,
                          const struct sch_options *o, ir_plan *p)
{
	return irr_generate(SCH_IRR_RS_NL, m, c, o, p);
}

const struct sch_generator sch_rs_nl = {
        .name = "rs_nl",
        .summary =
                "irregular: randomised, no node or link contention, pairwise "
                "exchanges first (004 Fig. 4)",
        .doc = "irregular.md",
        .domain = {.colls = SCH_C(IR_IRREGULAR),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = rs_nl_generate,
};
