/*
 * baselines.c - the baseline wormhole broadcasts that thesis 001 compares
 * EDN with (001 section 5.3, and U-mesh of section 3.2.2): recursive
 * doubling by lexicographic halving (rd), dimensional broadcast
 * (dimensional), scatter-collect (scatter_collect) and the Fibonacci tree
 * with segmentation k (fibonacci).
 *
 * All four run on meshes under dimension-ordered routing (rd and
 * dimensional also on tori of 1-8 dimensions, in any routing order, with
 * nodes of several ranks: bl_spread).  Their contention freedom rests on
 * one property of the *dimension-ordered chain*: the ranks sorted
 * lexicographically by (x, y, z), x (the dimension routed first) most
 * significant.  For chain positions
 * u < v <= w < x, the routes u->v and w->x share no directed link, nor do
 * v->u and x->w, nor v->u and w->x (messages pointing away from each
 * other).  Only "inward" pairs (u->v with x->w) may collide.  rd and
 * fibonacci only ever put concurrent messages on interior-disjoint chain
 * intervals in one of the three safe patterns; dimensional and
 * scatter_collect work line by line.  The verifier checks every plan
 * anyway.  docs/baselines.md has the derivations and measurements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* Largest number of carried blocks a scatter_collect plan may have, and
 * of transfers a fibonacci plan may have: beyond that the plan would
 * take gigabytes, so sc_fits and ft_fits refuse. */
#define BL_MAX_ITEMS (INT64_C(1) << 25)

/* ---- shared checks and helpers -------------------------------------- */

/* Where the four apply: a broadcast on a mesh with dimension-ordered
 * routing; the chain argument above needs straight X-then-Y-then-Z
 * routes that never leave the box, which only a mesh gives (a torus
 * route may wrap around outside a chain interval). */
#define BL_DOMAIN                                                              \
	.colls = SCH_C(IR_BCAST), .topos = SCH_T(IR_MESH),                     \
	.routings = IR_RT(DIM_ORDER),                                          \
	.where = "whose lexicographic chain is contention-free (001 3.2.2)"

/* The dimension-ordered chain: map[i] is the rank at chain position i,
 * ranks sorted by (x, y, z) with x most significant (001 3.2.2, U-mesh's
 * lexicographic order).  The caller frees the array. */
static int32_t *bl_chain(const ir_machine *m)
{
	int32_t n = m->nranks;
	int X = m->dims[0], Y = m->dims[1], Z = m->dims[2];
	int32_t *map = malloc((size_t)n * sizeof *map);
	if (!map)
		return NULL;
	int32_t i = 0;
	for (int x = 0; x < X; x++)
		for (int y = 0; y < Y; y++)
			for (int z = 0; z < Z; z++)
				map[i++] = x + X * (y + Y * z);
	return map;
}

/* Number of halving steps for n items: ceil(log2 n). */
static uint32_t bl_ceil_log2(int64_t n)
{
	uint32_t k = 0;
	while ((INT64_C(1) << k) < n)
		k++;
	return k;
}

/* Every segment of the message, for the plans that move it whole. */
static ir_block *bl_all_segments(const ir_comm *c, uint32_t *nseg)
{
	int32_t k = c->segments > 0 ? c->segments : 1;
	ir_block *b = malloc((size_t)k * sizeof *b);
	if (!b)
		return NULL;
	for (int32_t s = 0; s < k; s++)
		b[s] = (ir_block){c->root, s};
	*nseg = (uint32_t)k;
	return b;
}

/* ---- U-mesh halving (001 3.2.2) -------------------------------------- */

/* U-mesh on the chain positions [lo, hi) of map, held at position h, in
 * phase `phase` onwards: the list is halved (lower half ceil(n/2)); a
 * holder in the lower half sends to the first node of the upper half, a
 * holder in the upper half to the last node of the lower half, and both
 * halves go on independently.  ceil(log2 n) phases (001 3.2.4).  Sub-lists
 * right of the source's are then all forward, left all backward, so every
 * phase is contention-free by the chain property. */
void sch_umesh(struct sch_edges *E, const int32_t *map, int32_t lo, int32_t hi,
               int32_t h, uint32_t phase, const ir_block *blocks,
               uint32_t nblocks)
{
	while (hi - lo > 1) {
		int32_t mid = lo + (hi - lo + 1) / 2;
		int32_t partner = h < mid ? mid : mid - 1;
		sch_edges_add(E, phase, map[h], map[partner], blocks, nblocks,
		              0);
		if (h < mid) {
			sch_umesh(E, map, mid, hi, partner, phase + 1, blocks,
			          nblocks);
			hi = mid;
		} else {
			sch_umesh(E, map, lo, mid, partner, phase + 1, blocks,
			          nblocks);
			lo = mid;
		}
		phase++;
	}
}

/* ---- rd and dimensional on n-D machines ------------------------------ */

/* Where rd and dimensional apply: a broadcast on a mesh or torus of 1 to
 * 8 dimensions, each wrapped or not, under dimension-order routing in
 * any order, with nodes of several ranks (bl_spread says why the plans
 * stay contention-free there). */
#define BL_ND_DOMAIN                                                           \
	.colls = SCH_C(IR_BCAST), .topos = SCH_T(IR_MESH) | SCH_T(IR_TORUS),   \
	.routings = IR_RT(DIM_ORDER), .takes = SCH_TAKES_ALL

/* One stage of a broadcast taken factor by factor: the dimensions it
 * spreads along (bit d for dimension d), and whether it also spreads
 * among the ranks of each node. */
struct bl_stage {
	unsigned dims;
	bool local;
};

/* Whether dimension d of m routes as a mesh dimension does: not wrapped,
 * or a ring of at most 2 nodes (one link each way, as on a mesh). */
static bool bl_mesh_like(const ir_machine *m, int d)
{
	return !(m->wrap >> d & 1u) || m->dims[d] <= 2;
}

/* Spread the root's message over the machine in the stages st[0..n), in
 * phase `phase` onwards; returns the first phase after the last stage.
 * Stage s runs U-mesh (sch_umesh) on the factor chain of its dimensions
 * (nodes in lexicographic order of their coordinates in routing order,
 * the dimension corrected first most significant, then the ranks of a
 * node in local order when the stage has them) from every rank whose
 * coordinates in the stage's and later stages' dimensions are the
 * root's, and whose local index is the root's while a later stage has
 * the locals: ceil(lg |factor|) phases.
 *
 * Contention-free under dimension-order routing in any order: a
 * transfer joins two ranks that differ only in the stage's dimensions,
 * so its route moves only along them (and is empty inside a node), and
 * the factor copies a stage runs on are disjoint.  Within a copy:
 * - a single dimension: U-mesh keeps one transfer per interval and
 *   phase, intervals disjoint; a mesh route stays inside its interval;
 *   a ring of e nodes carries one transfer in the first phase, then
 *   intervals of at most ceil(e/2) nodes, whose routes are shorter than
 *   half the ring and go the inside way;
 * - several dimensions, all routing as mesh ones (bl_mesh_like): the
 *   chain property of U-mesh (001 3.2.2), the chain taken in routing
 *   order; the ranks of a node sit together in the chain and talk
 *   through shared memory.  (A wrapped dimension of 3 or more nodes
 *   would let a route leave its interval the other way round the ring,
 *   so callers give those stages of their own.)
 * One send and one receive per rank and phase.  A node sends and
 * receives at most one network transfer per phase in a single-dimension
 * stage, and at most two in a multi-dimension one with locals (the
 * intervals that leave it, one each way). */
static int bl_spread(struct sch_edges *E, const ir_machine *m, const ir_comm *c,
                     const struct bl_stage *st, int n, const ir_block *blocks,
                     uint32_t nseg)
{
	int nd = m->ndims, at[IR_MAX_CUBE_DIM];
	int32_t k = m->ranks_per_node > 1 ? m->ranks_per_node : 1;
	int32_t stride[IR_MAX_DIMS], size = 1;
	for (int d = 0; d < nd; d++) {
		stride[d] = size;
		size *= m->dims[d];
	}
	int32_t rnode = ir_node_of(m, c->root), rl = 0;
	while (ir_node_rank(m, rnode, rl) != c->root)
		rl++;
	ir_coords(m, c->root, at);
	uint32_t phase = 0;
	for (int s = 0; s < n; s++) {
		unsigned later = 0;
		bool later_local = false;
		for (int t = s + 1; t < n; t++) {
			later |= st[t].dims;
			later_local = later_local || st[t].local;
		}
		/* the stage's dimensions in routing order, and the node
		 * offsets of its factor chain */
		int sd[IR_MAX_DIMS], ns = 0;
		int32_t nodes = 1;
		for (int j = 0; j < nd; j++)
			if (st[s].dims >> m->order[j] & 1u) {
				sd[ns++] = m->order[j];
				nodes *= m->dims[m->order[j]];
			}
		int32_t kk = st[s].local ? k : 1, len = nodes * kk;
		if (len <= 1)
			continue;
		int32_t *off = malloc((size_t)nodes * sizeof *off);
		int32_t *line = malloc((size_t)len * sizeof *line);
		if (!off || !line) {
			free(off);
			free(line);
			E->rc = CCP_ENOMEM;
			return E->rc;
		}
		int32_t hold = 0; /* the root's position in the chain */
		for (int32_t i = 0; i < nodes; i++) {
			int32_t q = i, o = 0;
			for (int j = ns - 1; j >= 0; j--) {
				o += q % m->dims[sd[j]] * stride[sd[j]];
				q /= m->dims[sd[j]];
			}
			off[i] = o;
		}
		for (int j = 0; j < ns; j++)
			hold = hold * m->dims[sd[j]] + at[sd[j]];
		hold = hold * kk + (st[s].local ? rl : 0);
		/* every node whose coordinates in the stage's and later
		 * dimensions are the root's starts a copy (odometer over
		 * the others, coordinates of the stage's read as 0) */
		unsigned fixed = st[s].dims | later;
		int cc[IR_MAX_DIMS] = {0};
		int32_t node = 0;
		for (int d = 0; d < nd; d++)
			if (later >> d & 1u)
				node += at[d] * stride[d];
		for (;;) {
			int32_t l0 = st[s].local || later_local ? rl : 0;
			int32_t l1 = st[s].local || later_local ? rl + 1 : k;
			for (int32_t l = l0; l < l1; l++) {
				for (int32_t i = 0; i < len; i++)
					line[i] = ir_node_rank(
					        m, node + off[i / kk],
					        st[s].local ? i % kk : l);
				sch_umesh(E, line, 0, len, hold, phase, blocks,
				          nseg);
			}
			int d = 0;
			for (; d < nd; d++) {
				if (fixed >> d & 1u)
					continue;
				if (++cc[d] < m->dims[d]) {
					node += stride[d];
					break;
				}
				node -= (cc[d] - 1) * stride[d];
				cc[d] = 0;
			}
			if (d == nd)
				break;
		}
		free(off);
		free(line);
		phase += bl_ceil_log2(len);
	}
	return E->rc;
}

/* Broadcast in the stages st[0..n) (bl_spread) into plan p. */
static int bl_staged(const ir_machine *m, const ir_comm *c, ir_plan *p,
                     const char *name, const struct bl_stage *st, int n)
{
	struct sch_edges E = {0};
	uint32_t nseg = 0;
	ir_block *blocks = bl_all_segments(c, &nseg);
	int rc = CCP_ENOMEM;
	ir_plan_init(p, m, c, name);
	if (blocks && bl_spread(&E, m, c, st, n, blocks, nseg) == 0)
		rc = sch_edges_emit(&E, p);
	sch_edges_fini(&E);
	free(blocks);
	return rc;
}

/* What both need of a machine beyond the domain's data: ranks that may
 * send at all (a lone node has no network link, so `ports: all` gives
 * its ranks none), and, for rd with nodes, two network ports. */
static int bl_nd_fits(const struct sch_generator *g, const ir_machine *m,
                      const ir_comm *c, char *why, size_t len)
{
	(void)c;
	if (m->nnodes == 1 && m->nranks > 1 && m->ports == IR_PORTS_ALL) {
		snprintf(why, len,
		         "%s needs ports of at least 1 on a machine of one "
		         "node: it has no network link, so ports: all gives "
		         "its ranks none",
		         g->name);
		return CCP_ENOTAPPLY;
	}
	if (g == &sch_rd && ir_machine_has_nodes(m) && m->node_ports == 1) {
		snprintf(why, len,
		         "%s needs node_ports of at least 2 (or all) on nodes "
		         "of several ranks: a node may send to the nodes "
		         "before and after it in the chain in one phase",
		         g->name);
		return CCP_ENOTAPPLY;
	}
	return 0;
}

/* ---- rd: recursive doubling / U-mesh broadcast ----------------------- */

/* RD (001 3.2.4, 5.3): U-mesh halving of the lexicographic chain, taken
 * in routing order with the ranks of a node together, from the root.
 * On a mesh that is one stage: ceil(lg N) phases for N ranks.  A
 * wrapped dimension of 3 or more nodes breaks the chain property (a
 * route may go round the ring outside its interval), so on a torus each
 * such ring gets a stage of its own first, in routing order, and the
 * chain covers the other dimensions and the nodes' ranks:
 * ceil(lg(k * M)) + sum of ceil(lg e) over those rings, M the product
 * of the other extents, k ranks per node. */
static int rd_generate(const ir_machine *m, const ir_comm *c,
                       const struct sch_options *o, ir_plan *p)
{
	(void)o;
	struct bl_stage st[IR_MAX_DIMS + 1];
	int n = 0;
	unsigned rest = 0;
	for (int j = 0; j < m->ndims; j++) {
		int d = m->order[j];
		if (bl_mesh_like(m, d))
			rest |= 1u << d;
		else
			st[n++] = (struct bl_stage){1u << d, false};
	}
	st[n++] = (struct bl_stage){rest, true};
	return bl_staged(m, c, p, "rd", st, n);
}

const struct sch_generator sch_rd = {
        .name = "rd",
        .summary = "broadcast: recursive doubling, U-mesh halving of the "
                   "lexicographic chain in routing order, a node's ranks "
                   "together (ceil(lg N) phases for N ranks on a mesh of "
                   "1-8 dimensions; on a torus first ceil(lg e) along "
                   "each ring of e >= 3 nodes, then ceil(lg) of the ranks "
                   "of the rest, 001 5.3)",
        .doc = "baselines.md",
        .domain = {BL_ND_DOMAIN, .fits = bl_nd_fits},
        .generate = rd_generate,
};

/* ---- dimensional broadcast ------------------------------------------ */

/* Dimensional broadcast (001 5.3, Figure 5.5): RD along the root's line
 * of dimension order[0], then from every node of it along its line of
 * order[1], and so on (any order would do: each stage keeps to lines of
 * one dimension); with several ranks per node, a last stage inside
 * every node.  The sum of ceil(lg e) over the extents e, plus ceil(lg k)
 * for k ranks per node: 2n phases on a 2^n x 2^n mesh. */
static int dim_generate(const ir_machine *m, const ir_comm *c,
                        const struct sch_options *o, ir_plan *p)
{
	(void)o;
	struct bl_stage st[IR_MAX_DIMS + 1];
	int n = 0;
	for (int j = 0; j < m->ndims; j++)
		st[n++] = (struct bl_stage){1u << m->order[j], false};
	st[n++] = (struct bl_stage){0, true};
	return bl_staged(m, c, p, "dimensional", st, n);
}

const struct sch_generator sch_dimensional = {
        .name = "dimensional",
        .summary = "broadcast: RD along the root's line of each of 1-8 "
                   "dimensions in routing order, then inside each node "
                   "(sum of "
                   "ceil(lg e) over the extents e, plus ceil(lg k) for k "
                   "ranks per node; 2n on 2^n x 2^n, 001 5.3)",
        .doc = "baselines.md",
        .domain = {BL_ND_DOMAIN, .fits = bl_nd_fits},
        .generate = dim_generate,
};

/* ---- scatter-collect -------------------------------------------------- */

/* Scatter-collect works on a 1D or 2D mesh (dims[2] == 1), with the
 * message cut into exactly one segment per rank: segment r is the piece
 * rank r receives in the scatter. */
static int sc_fits(const struct sch_generator *g, const ir_machine *m,
                   const ir_comm *c, char *why, size_t len)
{
	(void)g;
	if (m->dims[2] != 1) {
		snprintf(why, len,
		         "scatter_collect scatters and circulates along rows "
		         "and columns of a 2D mesh (001 Table 5.2); this mesh "
		         "is 3D");
		return CCP_ENOTAPPLY;
	}
	if (c->segments != m->nranks) {
		snprintf(why, len,
		         "scatter_collect cuts the message into one piece per "
		         "rank: segments must be %d (the number of ranks), "
		         "got %d",
		         (int)m->nranks, (int)c->segments);
		return CCP_ENOTAPPLY;
	}
	int64_t n = m->nranks;
	if (n * n > BL_MAX_ITEMS) {
		snprintf(why, len,
		         "scatter_collect on %lld ranks would carry about %lld "
		         "blocks, more than the %lld this generator builds",
		         (long long)n, (long long)(n * n),
		         (long long)BL_MAX_ITEMS);
		return CCP_ENOTAPPLY;
	}
	return 0;
}

/* What the scatter recursion carries: the pieces of a rectangle of
 * ranks, columns [x0, x1) by rows [y0, y1). */
struct sc_ctx {
	struct sch_edges *E;
	const ir_machine *m;
	int32_t root;
	ir_block *tmp; /* room for N blocks */
	uint8_t *have; /* N x N bits: rank r holds piece i, bit r*N + i */
};

/* Whether rank r holds piece i, and mark it held. */
static bool sc_had(struct sc_ctx *s, int32_t r, int32_t i)
{
	uint64_t bit = (uint64_t)r * (uint64_t)s->m->nranks + (uint64_t)i;
	bool had = s->have[bit / 8] >> (bit % 8) & 1u;
	s->have[bit / 8] |= (uint8_t)(1u << (bit % 8));
	return had;
}

/* Send the k pieces in s->tmp from a to b in the given phase, leaving
 * out those b already holds (the rings would otherwise hand the root,
 * and the ranks the scatter passed through, pieces they have); a
 * transfer left empty is dropped.  Every transfer that reaches a rank
 * holding only its scatter share stays whole, so the per-phase maximum
 * of Table 5.2 is unchanged. */
static void sc_send(struct sc_ctx *s, uint32_t phase, int32_t a, int32_t b,
                    uint32_t k)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < k; i++)
		if (!sc_had(s, b, s->tmp[i].index))
			s->tmp[kept++] = s->tmp[i];
	if (kept > 0)
		sch_edges_add(s->E, phase, a, b, s->tmp, kept, 0);
}

static uint32_t sc_rect(struct sc_ctx *s, int x0, int x1, int y0, int y1)
{
	uint32_t k = 0;
	int X = s->m->dims[0];
	for (int y = y0; y < y1; y++)
		for (int x = x0; x < x1; x++)
			s->tmp[k++] = (ir_block){s->root, x + X * y};
	return k;
}

/* The logical ring on a line of e ranks, folded so that no ring step
 * is longer than two hops: place q of the ring (taken mod e) is
 * coordinate 2q for the first ceil(e/2) places, going out on the even
 * coordinates, and the odd ones coming back.  Out-going steps use only
 * + links and are disjoint, returning ones only - links, so a ring step
 * is contention-free; it is what makes Table 5.2's collect steps cost
 * about one hop (beta) each instead of a wrap-around across the line. */
static int sc_ring(int e, int q)
{
	int half = (e + 1) / 2;
	q = (q % e + e) % e;
	return q < half ? 2 * q : 2 * (e - 1 - q) + 1;
}

/* Scatter by recursive halving along one line (001 Table 5.2, rows
 * "scatter in row/column"): positions [lo, hi) of the line, held at h.
 * The holder sends the other half's pieces to the U-mesh partner.  Along
 * row `row` (col < 0) the positions are columns and a position's pieces
 * are its whole column; along column `col` (col >= 0) the positions are
 * rows and a position's piece is the rank's own. */
static void sc_scatter(struct sc_ctx *s, int lo, int hi, int h, uint32_t phase,
                       int col, int row)
{
	int X = s->m->dims[0], Y = s->m->dims[1];
	while (hi - lo > 1) {
		int mid = lo + (hi - lo + 1) / 2;
		int partner = h < mid ? mid : mid - 1;
		int olo = h < mid ? mid : lo, ohi = h < mid ? hi : mid;
		uint32_t k;
		int32_t a, b;
		if (col < 0) { /* along row `row`: positions are columns */
			k = sc_rect(s, olo, ohi, 0, Y);
			a = h + X * row;
			b = partner + X * row;
		} else { /* along column `col`: positions are rows */
			k = sc_rect(s, col, col + 1, olo, ohi);
			a = col + X * h;
			b = col + X * partner;
		}
		sc_send(s, phase, a, b, k);
		if (h < mid) {
			sc_scatter(s, mid, hi, partner, phase + 1, col, row);
			hi = mid;
		} else {
			sc_scatter(s, lo, mid, partner, phase + 1, col, row);
			lo = mid;
		}
		phase++;
	}
}

/* Scatter-collect (001 5.3, Figure 5.6, Table 5.2): scatter along the
 * root's row (ceil(lg X) phases), scatter along every column (ceil(lg Y)),
 * then a logical ring in every row (X - 1 phases, one piece per
 * transfer) and in every column (Y - 1 phases, a row's X pieces per
 * transfer).  The rings are folded (sc_ring), so each ring step is
 * contention-free and at most 2 hops long.  2(2^n - 1 + n) phases on
 * 2^n x 2^n. */
static int sc_generate(const ir_machine *m, const ir_comm *c,
                       const struct sch_options *o, ir_plan *p)
{
	(void)o;
	int rc = 0;
	struct sch_edges E = {0};
	int X = m->dims[0], Y = m->dims[1];
	struct sc_ctx s = {&E, m, c->root, NULL, NULL};
	int64_t n = m->nranks;
	ir_plan_init(p, m, c, "scatter_collect");
	s.tmp = malloc((size_t)n * sizeof *s.tmp);
	s.have = calloc((size_t)((n * n + 7) / 8), 1);
	if (!s.tmp || !s.have) {
		rc = CCP_ENOMEM;
		goto out;
	}
	int at[IR_MAX_CUBE_DIM]; /* the root's coordinates */
	ir_coords(m, c->root, at);
	for (int32_t i = 0; i < n; i++)
		sc_had(&s, c->root, i);
	uint32_t base = 0;
	sc_scatter(&s, 0, X, at[0], base, -1, at[1]);
	base += bl_ceil_log2(X);
	for (int x = 0; x < X; x++)
		sc_scatter(&s, 0, Y, at[1], base, x, -1);
	base += bl_ceil_log2(Y);
	/* collect in rows: at ring step t, the rank at ring place q of its
	 * row forwards the piece of the rank at place q - t, which it got at
	 * step t - 1 */
	for (int t = 0; t < X - 1; t++, base++)
		for (int y = 0; y < Y; y++)
			for (int q = 0; q < X; q++) {
				int x = sc_ring(X, q), to = sc_ring(X, q + 1);
				int from = sc_ring(X, q - t);
				s.tmp[0] = (ir_block){c->root, from + X * y};
				sc_send(&s, base, x + X * y, to + X * y, 1);
			}
	/* collect in columns: at step t, the rank at ring place q of its
	 * column forwards all X pieces of the row at place q - t */
	for (int t = 0; t < Y - 1; t++, base++)
		for (int q = 0; q < Y; q++)
			for (int x = 0; x < X; x++) {
				int y = sc_ring(Y, q), to = sc_ring(Y, q + 1);
				int from = sc_ring(Y, q - t);
				uint32_t k = sc_rect(&s, 0, X, from, from + 1);
				sc_send(&s, base, x + X * y, x + X * to, k);
			}
	rc = sch_edges_emit(&E, p);
out:
	sch_edges_fini(&E);
	free(s.tmp);
	free(s.have);
	return rc;
}

const struct sch_generator sch_scatter_collect = {
        .name = "scatter_collect",
        .summary = "broadcast: scatter along the root's row and every "
                   "column, then ring collect in rows and columns "
                   "(segments = ranks; 2(2^n-1+n) phases, 001 Table 5.2)",
        .doc = "baselines.md",
        .domain = {BL_DOMAIN, .fits = sc_fits},
        .generate = sc_generate,
};

/* ---- Fibonacci tree with segmentation k ------------------------------ */

/* Where the Fibonacci tree applies: a plan of reasonable size. */
static int ft_fits(const struct sch_generator *g, const ir_machine *m,
                   const ir_comm *c, char *why, size_t len)
{
	(void)g;
	int64_t k = c->segments > 0 ? c->segments : 1;
	if ((int64_t)m->nranks * k > BL_MAX_ITEMS) {
		snprintf(why, len,
		         "fibonacci sends every one of the %lld segments to "
		         "each of %d ranks: %lld transfers, more than the %lld "
		         "this generator builds",
		         (long long)k, (int)m->nranks,
		         (long long)(k * m->nranks), (long long)BL_MAX_ITEMS);
		return CCP_ENOTAPPLY;
	}
	return 0;
}

/* The tree being built: T phases in all, k segments. */
struct ft_ctx {
	struct sch_edges *E;
	const int32_t *map; /* chain position -> rank */
	int32_t root;       /* message origin */
	int64_t T;          /* steps */
	int32_t k;          /* segments */
	int64_t *cap;       /* cap[u]: most ranks a subtree with u steps left
	                       can complete, N(u, k) of 001 5.3, saturated */
};

/* Capacities N(u, k) for u = 0..T (001 5.3: N(t,k) = N(t-k,k) +
 * N(t-1,k) for t >= k, 1 otherwise), saturated at limit. */
static void ft_capacities(int64_t *cap, int64_t T, int32_t k, int64_t limit)
{
	for (int64_t u = 0; u <= T; u++) {
		int64_t v = u < k ? 1 : cap[u - 1] + cap[u - k];
		cap[u] = v > limit ? limit : v;
	}
}

/* Send the k segments from rank-position `from` to `to`, the first in
 * step s (1-based), one per step (the pipeline of 001 Figure 5.7). */
static void ft_feed(struct ft_ctx *f, int32_t from, int32_t to, int64_t s)
{
	for (int32_t j = 0; j < f->k; j++) {
		ir_block b = {f->root, j};
		sch_edges_add(f->E, (uint32_t)(s + j - 1), f->map[from],
		              f->map[to], &b, 1, 0);
	}
}

/* The subtree of the node at chain position a, which got its first
 * segment in step b (the root: b = 0), covering the m positions
 * a, a + dir, ..., a + dir*(m - 1).  Child i gets its segments in steps
 * b + 1 + i*k ... b + i*k + k (one send per step: the node forwards
 * segment j the step after it got it, then moves to the next child).
 * Children take the chunks from the far end inwards, each at the near
 * end of its chunk, so every concurrent transfer spans a chain interval
 * of its own, all in direction dir. */
static void ft_build(struct ft_ctx *f, int32_t a, int dir, int64_t b, int64_t m)
{
	int64_t hi = m; /* chunks are taken from [1, hi) */
	for (int64_t i = 0; hi > 1; i++) {
		int64_t s = b + 1 + i * f->k;
		int64_t u = f->T - s; /* steps left to the child */
		if (u < f->k - 1)
			break; /* cannot happen: m was within capacity */
		int64_t size = f->cap[u] < hi - 1 ? f->cap[u] : hi - 1;
		int32_t child = a + dir * (int32_t)(hi - size);
		ft_feed(f, a, child, s);
		ft_build(f, child, dir, s, size);
		hi -= size;
	}
}

/* The root's tree with T steps, root at chain position r of n: children
 * go to whichever side has more ranks left, the right side forward and
 * the left side backward, so the two sides point away from each other.
 * Returns false if the n ranks do not fit in T steps this way. */
static bool ft_root(struct ft_ctx *f, int32_t r, int32_t n, bool build)
{
	int64_t left = r, right = n - 1 - (int64_t)r; /* ranks to place */
	for (int64_t i = 0; left + right > 0; i++) {
		int64_t s = 1 + i * f->k, u = f->T - s;
		if (u < f->k - 1)
			return false;
		bool go_right = right >= left;
		int64_t *rem = go_right ? &right : &left;
		int64_t size = f->cap[u] < *rem ? f->cap[u] : *rem;
		int dir = go_right ? 1 : -1;
		/* the far end of the remaining side: distance rem from r */
		int32_t child = r + dir * (int32_t)(*rem - size + 1);
		if (build) {
			ft_feed(f, r, child, s);
			ft_build(f, child, dir, s, size);
		}
		*rem -= size;
	}
	return true;
}

/* Fibonacci tree (001 5.3, [50]): the message in k = segments pieces,
 * pipelined down a tree on the lexicographic chain.  The number of steps
 * is the least T with N(T, k) >= N when the root is an end of the chain,
 * t(P, k) of 001 Table 5.3 (2n for k = 1 on 2^n x 2^n); a root inside
 * the chain splits the tree in two sides and may need more. */
static int ft_generate(const ir_machine *m, const ir_comm *c,
                       const struct sch_options *o, ir_plan *p)
{
	(void)o;
	int rc = 0;
	struct sch_edges E = {0};
	int32_t k = c->segments > 0 ? c->segments : 1;
	int32_t n = m->nranks;
	int32_t *map = bl_chain(m);
	/* N(T, k) grows by at least one per step once T >= k, so with
	 * T = n + 2k + 2 the root's first child alone can take the larger
	 * side and its second child the other side, for any root */
	int64_t Tmax = (int64_t)n + 2 * (int64_t)k + 2;
	int64_t *cap = malloc((size_t)(Tmax + 1) * sizeof *cap);
	ir_plan_init(p, m, c, "fibonacci");
	if (!map || !cap) {
		rc = CCP_ENOMEM;
		goto out;
	}
	int32_t r = 0;
	while (map[r] != c->root)
		r++;
	ft_capacities(cap, Tmax, k, (int64_t)n + 1);
	struct ft_ctx f = {&E, map, c->root, 0, k, cap};
	for (f.T = 0; f.T <= Tmax; f.T++)
		if (cap[f.T] >= n && ft_root(&f, r, n, false))
			break;
	if (f.T > Tmax) {
		rc = CCP_EINVAL; /* unreachable: the chain always fits */
		goto out;
	}
	ft_root(&f, r, n, true);
	rc = sch_edges_emit(&E, p);
out:
	sch_edges_fini(&E);
	free(map);
	free(cap);
	return rc;
}

const struct sch_generator sch_fibonacci = {
        .name = "fibonacci",
        .summary = "broadcast: Fibonacci tree, k = segments pipelined on "
                   "the lexicographic chain (t(P,k) phases, 001 5.3)",
        .doc = "baselines.md",
        .domain = {BL_DOMAIN, .fits = ft_fits},
        .generate = ft_generate,
};
