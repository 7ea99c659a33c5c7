/*
 * sld.c - single-level dominating node broadcast, SLD (001 section 3.2),
 * on all-port 1D and 2D meshes under dimension-ordered (X-Y) routing.
 *
 * The root multicasts the message to a dominating set D of the mesh with
 * U-mesh (001 3.2.2, sch_umesh over D plus the root, in dimension-ordered
 * chain order), then every rank outside D receives it from a neighbour
 * in D in one more phase: ceil(log2 |D|) + 1 phases, the root counted
 * in D (001 3.2.4).
 *
 * D comes from the perfect dominating pattern of the infinite grid that
 * 001 3.2.1 takes from Cockayne (Fig. 3.2): the nodes with
 * (x + k*y) mod 5 == c, k = 2 or 3 (the two mirror images), every other
 * node adjacent to exactly one of them.  A frame the size of the mesh
 * is laid on it; the root joins D for free (U-mesh starts there anyway);
 * frame nodes whose pattern dominator falls outside are repaired by
 * adding a node next to them (Cockayne's "move it inside"), and a
 * trimming pass drops members no node needs and replaces two nearby
 * members by one where a single node covers what only they covered.  Of
 * the ten patterns (five offsets c, two orientations k) the smallest
 * resulting D is kept.  On a line the path's pattern (x + y) mod 3 == c
 * is used the same way.  Two additions, where they pay: on meshes at
 * most 8 ranks across, tilings of the 4x4 mesh's minimum set (Fig.
 * 3.2(d)) are tried too; and on meshes of at most 64 ranks a budgeted
 * exact search looks for a set small enough to save a phase.  The
 * figures of the thesis are missing; the verifier proves every plan,
 * and docs/sld.md has the measurements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* Largest number of carried blocks (ranks times segments) a plan may
 * have: beyond that it would take gigabytes, so sld_fits refuses. */
#define SLD_MAX_ITEMS (INT64_C(1) << 25)

/* A candidate dominating set on an X x Y frame, with the root forced in.
 * cnt[r] counts the members in r's closed neighbourhood (at most 5), so
 * r is dominated when cnt[r] > 0 and privately by one member when it is
 * 1.  The arrays are owned by the set (sld_set_fini). */
struct sld_set {
	const ir_machine *m; /* the mesh: ranks and coordinates (ir_coords) */
	int X, Y;            /* frame extents */
	int32_t n;           /* X * Y */
	int32_t root;        /* the broadcast root, never removed */
	uint8_t *in;         /* in[r]: r is a member */
	uint8_t *cnt;        /* members in r's closed neighbourhood */
	uint8_t *edge; /* which neighbours r has: 1 y-1, 2 x-1, 4 x+1, 8 y+1
	                  (saves sld_nbhd two divisions) */
	int32_t size;  /* number of members */
	/* sld_trim's work list: a ring of ranks to look at again */
	int32_t *queue;  /* n entries */
	uint8_t *queued; /* queued[r]: r is in the ring */
	int32_t qhead, qlen;
};

/* ---- the set and its neighbourhoods --------------------------------- */

/* Column x and row y of rank r. */
static void sld_xy(const struct sld_set *S, int32_t r, int *x, int *y)
{
	int c[IR_MAX_CUBE_DIM];
	ir_coords(S->m, r, c);
	*x = c[0];
	*y = c[1];
}

/* The rank at column x, row y (inside the frame). */
static int32_t sld_rank(const struct sld_set *S, int x, int y)
{
	int c[IR_MAX_CUBE_DIM] = {x, y, 0};
	return ir_rank_of(S->m, c);
}

/* The closed neighbourhood of r (r and its mesh neighbours) into nb, in
 * rank order; returns how many (3 to 5 in 2D, 2 or 3 on a line). */
static int sld_nbhd(const struct sld_set *S, int32_t r, int32_t nb[5])
{
	uint8_t e = S->edge[r];
	int k = 0;
	if (e & 1u)
		nb[k++] = r - S->X;
	if (e & 2u)
		nb[k++] = r - 1;
	nb[k++] = r;
	if (e & 4u)
		nb[k++] = r + 1;
	if (e & 8u)
		nb[k++] = r + S->X;
	return k;
}

/* Make r a member (it must not be one). */
static void sld_add(struct sld_set *S, int32_t r)
{
	int32_t nb[5];
	int k = sld_nbhd(S, r, nb);
	for (int i = 0; i < k; i++)
		S->cnt[nb[i]]++;
	S->in[r] = 1;
	S->size++;
}

/* Remove member r. */
static void sld_del(struct sld_set *S, int32_t r)
{
	int32_t nb[5];
	int k = sld_nbhd(S, r, nb);
	for (int i = 0; i < k; i++)
		S->cnt[nb[i]]--;
	S->in[r] = 0;
	S->size--;
}

/* How many nodes of r's closed neighbourhood have cnt == v: with v = 0
 * the nodes r would newly dominate, with v = 1 and r a member the nodes
 * only r dominates (its private nodes). */
static int sld_count(const struct sld_set *S, int32_t r, uint8_t v)
{
	int32_t nb[5];
	int k = sld_nbhd(S, r, nb), c = 0;
	for (int i = 0; i < k; i++)
		c += S->cnt[nb[i]] == v;
	return c;
}

/* Allocate an empty set for the frame of m; CCP_ENOMEM. */
static int sld_set_init(struct sld_set *S, const ir_machine *m, int32_t root)
{
	memset(S, 0, sizeof *S);
	S->m = m;
	S->X = m->dims[0];
	S->Y = m->dims[1];
	S->n = m->nranks;
	S->root = root;
	S->in = calloc((size_t)S->n, 1);
	S->cnt = calloc((size_t)S->n, 1);
	S->queued = calloc((size_t)S->n, 1);
	S->queue = malloc((size_t)S->n * sizeof *S->queue);
	S->edge = malloc((size_t)S->n);
	if (!S->in || !S->cnt || !S->queued || !S->queue || !S->edge)
		return CCP_ENOMEM;
	for (int32_t r = 0; r < S->n; r++) {
		int x, y;
		sld_xy(S, r, &x, &y);
		S->edge[r] =
		        (uint8_t)((y > 0) | (x > 0) << 1 | (x < S->X - 1) << 2 |
		                  (y < S->Y - 1) << 3);
	}
	return 0;
}

static void sld_set_fini(struct sld_set *S)
{
	free(S->in);
	free(S->cnt);
	free(S->queued);
	free(S->queue);
	free(S->edge);
	memset(S, 0, sizeof *S);
}

/* ---- building a dominating set (001 3.2.1, Fig. 3.2) ---------------- */

/* Empty the set, then put the root in. */
static void sld_reset(struct sld_set *S)
{
	memset(S->in, 0, (size_t)S->n);
	memset(S->cnt, 0, (size_t)S->n);
	S->size = 0;
	sld_add(S, S->root);
}

/* Start from the pattern (x + k*y) mod p == c inside the frame, plus the
 * root: the frame laid on Cockayne's background (Fig. 3.2(b)).  p = 5,
 * k = 2 or 3 on a 2D mesh; p = 3, k = 1 on a line, where one of x, y is
 * always 0. */
static void sld_pattern(struct sld_set *S, int k, int p, int c)
{
	sld_reset(S);
	for (int32_t r = 0; r < S->n; r++) {
		int x, y;
		sld_xy(S, r, &x, &y);
		if (r != S->root && (x + k * y) % p == c)
			sld_add(S, r);
	}
}

/* Start from 4x4 blocks tiled over the frame, shifted by (ox, oy), each
 * holding the minimum dominating set of a 4x4 mesh (Fig. 3.2(d), Fig.
 * 3.3): {(0,1),(1,3),(2,0),(3,2)} or its mirror image
 * {(0,2),(1,0),(2,3),(3,1)}.  A block dominates itself, so the frame's
 * border costs nothing: on narrow meshes (up to about 8 ranks across)
 * this density N/4 beats the pattern's N/5 plus its border repairs. */
static void sld_blocks(struct sld_set *S, int mirror, int ox, int oy)
{
	static const uint8_t set[2][4][4] = {
	        /* set[mirror][x mod 4][y mod 4] */
	        {{0, 1, 0, 0}, {0, 0, 0, 1}, {1, 0, 0, 0}, {0, 0, 1, 0}},
	        {{0, 0, 1, 0}, {1, 0, 0, 0}, {0, 0, 0, 1}, {0, 1, 0, 0}}};
	sld_reset(S);
	for (int32_t r = 0; r < S->n; r++) {
		int x, y;
		sld_xy(S, r, &x, &y);
		if (r != S->root && set[mirror][(x + ox) % 4][(y + oy) % 4])
			sld_add(S, r);
	}
}

/* Dominate every node the pattern left undominated (its dominator lies
 * outside the frame): for each, in rank order, add the node of its
 * closed neighbourhood that dominates most undominated nodes, the node
 * itself on a tie (the outside dominator moved inside, Fig. 3.2(c)). */
static void sld_repair(struct sld_set *S)
{
	for (int32_t r = 0; r < S->n; r++) {
		if (S->cnt[r])
			continue;
		int32_t nb[5], best = r;
		int k = sld_nbhd(S, r, nb), gain = sld_count(S, r, 0);
		for (int i = 0; i < k; i++) {
			int g = sld_count(S, nb[i], 0);
			if (g > gain) {
				gain = g;
				best = nb[i];
			}
		}
		sld_add(S, best);
	}
}

/* Whether w is in the closed neighbourhood of u. */
static bool sld_near(const struct sld_set *S, int32_t u, int32_t w)
{
	uint8_t e = S->edge[u];
	return w == u || (w == u - S->X && (e & 1u)) ||
	       (w == u - 1 && (e & 2u)) || (w == u + 1 && (e & 4u)) ||
	       (w == u + S->X && (e & 8u));
}

/* Try to replace members a and b (neither the root) by one node: the
 * nodes only they dominate are lost by removing both; if there are none,
 * or they share a closed neighbour w, remove a and b and add w (*added =
 * w, or a if nothing was needed).  Returns true if the set shrank;
 * otherwise it is left as it was. */
static bool sld_exchange(struct sld_set *S, int32_t a, int32_t b,
                         int32_t *added)
{
	int32_t na[5], nb[5], lost[10], cand[5];
	int ka = sld_nbhd(S, a, na), kb = sld_nbhd(S, b, nb), nl = 0;
	for (int i = 0; i < ka; i++)
		if (S->cnt[na[i]] == 1 + sld_near(S, na[i], b))
			lost[nl++] = na[i];
	for (int i = 0; i < kb; i++)
		if (!sld_near(S, nb[i], a) && S->cnt[nb[i]] == 1)
			lost[nl++] = nb[i];
	int32_t w = a;
	if (nl > 5)
		return false;
	if (nl > 0) {
		/* w must be in the closed neighbourhood of every lost node */
		int kc = sld_nbhd(S, lost[0], cand), i = 0;
		for (; i < kc; i++) {
			int j = 1;
			while (j < nl && sld_near(S, lost[j], cand[i]))
				j++;
			if (j == nl)
				break;
		}
		if (i == kc)
			return false;
		w = cand[i];
	}
	sld_del(S, a);
	sld_del(S, b);
	if (nl > 0)
		sld_add(S, w);
	*added = w;
	return true;
}

/* Queue every member (but the root) within distance 2 of r for
 * sld_trim: a change at r alters the counts within distance 1 of it,
 * and a member's private nodes and exchanges depend only on the counts
 * within distance 1 of it (an exchange is tried from both members). */
static void sld_requeue(struct sld_set *S, int32_t r)
{
	int x, y;
	sld_xy(S, r, &x, &y);
	for (int dy = -2; dy <= 2; dy++)
		for (int dx = abs(dy) - 2; dx <= 2 - abs(dy); dx++) {
			int qx = x + dx, qy = y + dy;
			if (qx < 0 || qx >= S->X || qy < 0 || qy >= S->Y)
				continue;
			int32_t q = sld_rank(S, qx, qy);
			if (!S->in[q] || q == S->root || S->queued[q])
				continue;
			S->queued[q] = 1;
			S->queue[(S->qhead + S->qlen++) % S->n] = q;
		}
}

/* Shrink a dominating set without losing domination: drop every member
 * (but the root) with no private node, and replace two members by one
 * where sld_exchange can.  Two members can share a replacement only if
 * each has a private node within distance 1 of it, so they are at most
 * 4 apart; and their private nodes must number at most 5 together, which
 * rules out the interior of the pattern (5 private nodes each) at once.
 * Members are looked at in rank order, then again whenever something
 * changed near them, until nothing changes: linear work plus the
 * changes, so the interior of a huge mesh costs one look per member. */
static void sld_trim(struct sld_set *S)
{
	S->qhead = S->qlen = 0;
	memset(S->queued, 0, (size_t)S->n);
	for (int32_t a = 0; a < S->n; a++)
		if (S->in[a] && a != S->root) {
			S->queued[a] = 1;
			S->queue[S->qlen++] = a;
		}
	while (S->qlen > 0) {
		int32_t a = S->queue[S->qhead];
		S->qhead = (S->qhead + 1) % S->n;
		S->qlen--;
		S->queued[a] = 0;
		if (!S->in[a])
			continue;
		int pa = sld_count(S, a, 1);
		if (pa == 0) {
			sld_del(S, a);
			sld_requeue(S, a);
			continue;
		}
		if (pa > 4)
			continue;
		int ax, ay;
		sld_xy(S, a, &ax, &ay);
		for (int dy = -4; dy <= 4 && S->in[a]; dy++) {
			int w = 4 - abs(dy);
			for (int dx = -w; dx <= w && S->in[a]; dx++) {
				int bx = ax + dx, by = ay + dy;
				if (bx < 0 || bx >= S->X || by < 0 ||
				    by >= S->Y || (dx == 0 && dy == 0))
					continue;
				int32_t b = sld_rank(S, bx, by), added;
				if (!S->in[b] || b == S->root ||
				    pa + sld_count(S, b, 1) > 5)
					continue;
				if (sld_exchange(S, a, b, &added)) {
					sld_requeue(S, a);
					sld_requeue(S, b);
					sld_requeue(S, added);
				}
			}
		}
	}
}

/* ---- exact search on small meshes ----------------------------------- */

/* Search nodes the exact search may visit, some 30 ms at most.  While
 * developing, the largest searches measured were 1.3 M nodes (a 7 x 9
 * mesh looking for 16 members) and 0.66 M (8 x 8 looking for 16); every
 * source of the shapes tested in tests/schedules/test_sld.c is settled. */
#define SLD_EXACT_BUDGET (INT32_C(1) << 21)

/* A branch and bound over meshes of at most 64 ranks, one bit per
 * rank (numbered by sld_bit). */
struct sld_bb {
	uint64_t nb[64];    /* closed neighbourhood of each bit */
	int8_t list[64][5]; /* the same as bit numbers */
	int8_t len[64];     /* entries of list */
	uint64_t full;      /* every rank */
	uint64_t found;     /* the members, once found */
	int32_t left;       /* search nodes left */
};

/* Bits set in v (the classic SWAR sum, portable C). */
static int sld_popcount(uint64_t v)
{
	v = v - (v >> 1 & UINT64_C(0x5555555555555555));
	v = (v & UINT64_C(0x3333333333333333)) +
	    (v >> 2 & UINT64_C(0x3333333333333333));
	v = (v + (v >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (int)((v * UINT64_C(0x0101010101010101)) >> 56);
}

/* Whether at most k more members, added to chosen (which dominates
 * have, and every bit below v), dominate every rank: the first
 * undominated rank must get a member in its closed neighbourhood, so
 * branch on those (at most 5), and give up once no k members can cover
 * what is left (5 ranks each).  1 found (in B->found), 0 none exists,
 * -1 out of budget. */
static int sld_bb_search(struct sld_bb *B, uint64_t have, uint64_t chosen,
                         int k, int v)
{
	if (B->left-- <= 0)
		return -1;
	if (have == B->full) {
		B->found = chosen;
		return 1;
	}
	uint64_t und = B->full & ~have;
	if (k == 0 || sld_popcount(und) > 5 * k)
		return 0;
	while (!(und >> v & 1u))
		v++;
	for (int i = 0; i < B->len[v]; i++) {
		int w = B->list[v][i];
		int rc = sld_bb_search(B, have | B->nb[w],
		                       chosen | UINT64_C(1) << w, k - 1, v);
		if (rc)
			return rc;
	}
	return 0;
}

/* The bit of rank r in the exact search: ranks in rank order, or
 * column by column on a mesh wider than tall, so that the search always
 * sweeps the mesh along its shorter side (an 16 x 4 mesh took 6 times
 * the search nodes of a 4 x 16 one the other way round). */
static int sld_bit(const struct sld_set *S, int32_t r)
{
	if (S->X <= S->Y)
		return (int)r;
	int x, y;
	sld_xy(S, r, &x, &y);
	return y + S->Y * x;
}

/* On a mesh of at most 64 ranks, replace S by a dominating set of at
 * most `size` members holding the root, if the budgeted search finds
 * one.  Returns true if it did. */
static bool sld_exact(struct sld_set *S, int32_t size)
{
	struct sld_bb B;
	if (S->n > 64)
		return false;
	memset(&B, 0, sizeof B);
	for (int32_t r = 0; r < S->n; r++) {
		int32_t nb[5];
		int k = sld_nbhd(S, r, nb);
		for (int i = 0; i < k; i++)
			B.nb[sld_bit(S, r)] |= UINT64_C(1) << sld_bit(S, nb[i]);
	}
	for (int b = 0; b < S->n; b++) /* branch in increasing bit order */
		for (int w = 0; w < S->n; w++)
			if (B.nb[b] >> w & 1u)
				B.list[b][B.len[b]++] = (int8_t)w;
	B.full = S->n == 64 ? UINT64_MAX : (UINT64_C(1) << S->n) - 1;
	B.left = SLD_EXACT_BUDGET;
	int root = sld_bit(S, S->root);
	if (sld_bb_search(&B, B.nb[root], UINT64_C(1) << root, (int)size - 1,
	                  0) != 1)
		return false;
	sld_reset(S);
	for (int32_t r = 0; r < S->n; r++)
		if (r != S->root && (B.found >> sld_bit(S, r) & 1u))
			sld_add(S, r);
	return true;
}

/* ---- choosing D ------------------------------------------------------ */

/* Largest mesh on which the 32 block tilings are tried: a tiling is
 * denser than the pattern, so trimming it works all along the mesh, not
 * just at the border (about 0.4 s of CPU on an 8 x 8192 mesh, against
 * 0.05 s for the ten patterns). */
#define SLD_BLOCKS_MAX_RANKS 65536

/* Repair and trim the start in S; if the result is smaller than best,
 * swap the two (so S then holds the loser, to be overwritten). */
static void sld_keep(struct sld_set *S, struct sld_set *best)
{
	sld_repair(S);
	sld_trim(S);
	if (S->size < best->size) {
		struct sld_set t = *best;
		*best = *S;
		*S = t;
	}
}

/* The smallest dominating set holding the root found by: every offset c
 * and orientation k of the pattern; on meshes at most 8 ranks across
 * (where it can win: measured, it never did on wider ones) and of at
 * most SLD_BLOCKS_MAX_RANKS ranks, also every shift and mirror image of
 * the 4x4 block tiling; and on meshes of at most 64 ranks, an exact
 * search for a set of the largest power of two below |D|, which would
 * save a phase (ceil(log2 |D|) drops).  best receives it (initialised
 * here, the caller finis it). */
static int sld_dominate(const ir_machine *m, int32_t root, struct sld_set *best)
{
	struct sld_set S;
	int rc = sld_set_init(&S, m, root);
	if (!rc)
		rc = sld_set_init(best, m, root);
	if (rc)
		goto out;
	int X = m->dims[0], Y = m->dims[1];
	bool line = X == 1 || Y == 1;
	best->size = S.n + 1;
	for (int c = 0; c < (line ? 3 : 5); c++) {
		sld_pattern(&S, line ? 1 : 2, line ? 3 : 5, c);
		sld_keep(&S, best);
		if (!line) {
			sld_pattern(&S, 3, 5, c);
			sld_keep(&S, best);
		}
	}
	if (!line && (X <= 8 || Y <= 8) && S.n <= SLD_BLOCKS_MAX_RANKS)
		for (int i = 0; i < 32; i++) {
			sld_blocks(&S, i / 16, i % 4, i / 4 % 4);
			sld_keep(&S, best);
		}
	int32_t half = 1;
	while (2 * half < best->size)
		half *= 2; /* the largest power of two below |D| */
	if (best->size > 1 && sld_exact(&S, half)) {
		sld_trim(&S);
		struct sld_set t = *best;
		*best = S;
		S = t;
	}
out:
	sld_set_fini(&S);
	return rc;
}

/* ---- the generator --------------------------------------------------- */

/* SLD needs a broadcast on an all-port mesh of one or two dimensions
 * with dimension-ordered routing: U-mesh is contention-free only on a
 * mesh's chain, and the last phase has a dominating node send to all
 * its neighbours at once.  A port count at least the largest degree is
 * as good as all-port.  Large plans are refused like fibonacci's. */
/* The rest of where SLD applies: a 1D or 2D mesh (the domain's words),
 * and a plan of reasonable size. */
static int sld_fits(const struct sch_generator *g, const ir_machine *m,
                    const ir_comm *c, char *why, size_t len)
{
	(void)g;
	if (m->dims[2] != 1)
		return CCP_ENOTAPPLY;
	int64_t k = c->segments > 0 ? c->segments : 1;
	if ((int64_t)m->nranks * k > SLD_MAX_ITEMS) {
		snprintf(why, len,
		         "sld sends all %lld segments to each of %d ranks: "
		         "%lld blocks, more than the %lld this generator "
		         "builds",
		         (long long)k, (int)m->nranks,
		         (long long)(k * m->nranks), (long long)SLD_MAX_ITEMS);
		return CCP_ENOTAPPLY;
	}
	return 0;
}
/* SLD (001 3.2): U-mesh from the root over D in dimension-ordered chain
 * order ((x, y), x most significant; ceil(log2 |D|) phases, 001 3.2.2),
 * then one phase in which every rank outside D receives from its first
 * dominating neighbour (in rank order).  Every transfer carries all the
 * segments, as rd's do. */
static int sld_generate(const ir_machine *m, const ir_comm *c,
                        const struct sch_options *o, ir_plan *p)
{
	(void)o;
	int rc;
	struct sch_edges E = {0};
	struct sld_set D = {0};
	int32_t k = c->segments > 0 ? c->segments : 1, *map = NULL;
	ir_block *blocks = malloc((size_t)k * sizeof *blocks);
	ir_plan_init(p, m, c, "sld");
	if (!blocks) {
		rc = CCP_ENOMEM;
		goto out;
	}
	for (int32_t s = 0; s < k; s++)
		blocks[s] = (ir_block){c->root, s};
	rc = sld_dominate(m, c->root, &D);
	if (rc)
		goto out;
	map = malloc((size_t)D.size * sizeof *map);
	if (!map) {
		rc = CCP_ENOMEM;
		goto out;
	}
	int32_t nd = 0, h = 0;
	for (int x = 0; x < D.X; x++)
		for (int y = 0; y < D.Y; y++) {
			int32_t r = sld_rank(&D, x, y);
			if (!D.in[r])
				continue;
			if (r == c->root)
				h = nd;
			map[nd++] = r;
		}
	sch_umesh(&E, map, 0, nd, h, 0, blocks, (uint32_t)k);
	uint32_t last = 0;
	while ((INT32_C(1) << last) < nd)
		last++;
	for (int32_t r = 0; r < D.n; r++) {
		if (D.in[r])
			continue;
		int32_t nb[5];
		int kn = sld_nbhd(&D, r, nb), i = 0;
		while (i < kn && !D.in[nb[i]])
			i++;
		if (i == kn) { /* cannot happen: D dominates the mesh */
			rc = CCP_EINTERNAL;
			goto out;
		}
		sch_edges_add(&E, last, nb[i], r, blocks, (uint32_t)k, 0);
	}
	rc = sch_edges_emit(&E, p);
out:
	sch_edges_fini(&E);
	sld_set_fini(&D);
	free(map);
	free(blocks);
	return rc;
}

const struct sch_generator sch_sld = {
        .name = "sld",
        .summary = "broadcast: U-mesh to a Cockayne dominating set, then "
                   "one neighbour step (all-port 2D mesh, about "
                   "ceil(lg N) - 1 phases, 001 3.2)",
        .doc = "sld.md",
        .domain = {.colls = SCH_C(IR_BCAST),
                   .topos = SCH_T(IR_MESH),
                   .routings = IR_RT(DIM_ORDER),
                   .ports = SCH_PORTS_ALL,
                   .where = "1D or 2D (001 3.2: its last phase has a "
                            "dominating node send to all its neighbours "
                            "at once)",
                   .fits = sld_fits},
        .generate = sld_generate,
};
