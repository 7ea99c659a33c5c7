/*
 * place.c - placement of a communication pattern's ranks onto a machine
 * (place.h, docs/placement.md).
 *
 * Four steps, all deterministic for a seed:
 *
 *   group   with several ranks per node, the ranks are cut into nodes'
 *           worth of ranks by recursive bisection of their communication
 *           graph (messages as edge weights), so that ranks which talk
 *           most share a node and their messages leave the network;
 *   map     the groups' graph is bisected recursively together with the
 *           machine: a mesh or torus is cut across its longest extent, a
 *           fat tree between subtrees, a dragonfly between groups and
 *           routers, a hypercube by a bit, a graph along its hosts' BFS
 *           order; each half of the groups goes to a half of the machine,
 *           leaning towards the groups placed before (terminal
 *           propagation, a tie-break against the cut);
 *   orient  on a mesh or torus, whole boxes of the map are mirrored or
 *           turned when that lowers the hops of the messages leaving
 *           them (a bisection may leave a half the wrong way round, which
 *           swaps of two groups cannot undo);
 *   refine  swaps of two groups' nodes, kept when they lower the most
 *           loaded link's phases (then the sum of squared link loads),
 *           tried for the groups whose messages cross the most loaded
 *           links, against groups sitting near their partners (Hoefler
 *           and Snir 2011, section 4.3).
 *
 * The bisection is this file's own: multilevel (heavy-edge matching,
 * greedy growth on the coarsest graph, Fiduccia-Mattheyses on the way
 * back), and beside it a cut between two of the set's corners (which
 * finds a grid's straight cut); the cheaper is kept, and Kernighan-Lin
 * swap passes finish it with both sizes exact (the machine's halves have
 * fixed sizes, so balance is a constraint, not a tolerance).  The result
 * is judged by the verifier's bound (sch_place_eval calls
 * ir_lower_bound), and the machine's own placement is kept when the
 * search does not beat it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "place.h"
#include "rng.h"

/* Refinement limits: links and messages past which it is skipped (its
 * tables would cost more than the placement is worth), and its passes. */
#define PLACE_MAX_LINKS (UINT64_C(1) << 26)
#define PLACE_MAX_MSGS  (INT64_C(1) << 26)
#define PLACE_PASSES    10
#define PLACE_SWEEPS    8 /* orientation sweeps over the boxes, at most */
/* ... and they stop after one that saved less than 1/this of the hops */
#define PLACE_SWEEP_GAIN 200
/* The groups' graph's weights are scaled by this while it is mapped, and
 * terminal propagation's pull is not: the pull then only breaks ties
 * between cuts of the same weight (a stencil's straight cuts across
 * either axis), and never buys a jog in a cut */
#define PLACE_CUT_SCALE 16
#define PLACE_TRIES     6 /* candidates tried per hot group and pass */
#define PLACE_KL_PASSES 4 /* Kernighan-Lin passes per bisection */
/* links the refinement's route cache may hold (4 bytes each, twice) */
#define PLACE_ROUTE_CACHE (UINT64_C(1) << 24)

/* An undirected weighted graph, both directions stored (CSR). */
struct wgraph {
	int32_t n;
	int64_t *off; /* [n + 1] */
	int32_t *adj; /* [off[n]] neighbours */
	int64_t *w;   /* [off[n]] weights */
};

/* An edge while building: a - b with weight w. */
struct wedge {
	int32_t a, b;
	int64_t w;
};

static int wedge_cmp(const void *x, const void *y)
{
	const struct wedge *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

static void wgraph_free(struct wgraph *g)
{
	free(g->off);
	free(g->adj);
	free(g->w);
	memset(g, 0, sizeof *g);
}

/* The graph on n vertices of the ne edges e (each stored both ways,
 * equal pairs merged, loops dropped); e is reordered and grown to 2 ne
 * entries, so it must have room for them. */
static int wgraph_build(int32_t n, struct wedge *e, size_t ne, struct wgraph *g)
{
	size_t m = 0;

	for (size_t i = 0; i < ne; i++)
		e[ne + i] = (struct wedge){e[i].b, e[i].a, e[i].w};
	ne *= 2;
	qsort(e, ne, sizeof *e, wedge_cmp);
	for (size_t i = 0; i < ne; i++) {
		if (e[i].a == e[i].b)
			continue;
		if (m && e[m - 1].a == e[i].a && e[m - 1].b == e[i].b)
			e[m - 1].w += e[i].w;
		else
			e[m++] = e[i];
	}
	g->n = n;
	g->off = calloc((size_t)n + 1, sizeof *g->off);
	g->adj = malloc((m + 1) * sizeof *g->adj);
	g->w = malloc((m + 1) * sizeof *g->w);
	if (!g->off || !g->adj || !g->w) {
		wgraph_free(g);
		return CCP_ENOMEM;
	}
	for (size_t i = 0; i < m; i++) {
		g->off[e[i].a + 1]++;
		g->adj[i] = e[i].b;
		g->w[i] = e[i].w;
	}
	for (int32_t v = 0; v < n; v++)
		g->off[v + 1] += g->off[v];
	return 0;
}

/* Scratch of the bisections of one graph, indexed by vertex. */
struct bis {
	const struct wgraph *g;
	struct ir_rng *rng;
	int8_t *side;   /* -1 outside the set being cut, else 0 or 1 */
	int64_t *gain;  /* cut weight a move of the vertex would save */
	uint32_t *mark; /* stamps: visited, locked */
	uint32_t stamp;
	int32_t *queue; /* BFS queue, [n] */
	int32_t *loc;   /* [n]: a vertex's index in the set being cut */
	int64_t *pref;  /* [n]: what side 1 costs a vertex more than side
	                   0 (messages to vertices placed before, times
	                   hops), or NULL */
};

/* Vertices of set S (ns of them) in BFS order from start, over edges
 * inside the set, into out; unreached ones follow in S's order.  The last
 * vertex the BFS reaches is returned (a far one). */
static int32_t bfs_order(struct bis *b, const int32_t *S, int32_t ns,
                         int32_t start, int32_t *out)
{
	const struct wgraph *g = b->g;
	int32_t head = 0, tail = 0, last = start;
	uint32_t st = ++b->stamp;

	out[tail++] = start;
	b->mark[start] = st;
	while (head < tail) {
		int32_t v = out[head++];
		last = v;
		for (int64_t i = g->off[v]; i < g->off[v + 1]; i++) {
			int32_t u = g->adj[i];
			if (b->side[u] >= 0 && b->mark[u] != st) {
				b->mark[u] = st;
				out[tail++] = u;
			}
		}
	}
	for (int32_t i = 0; i < ns; i++)
		if (b->mark[S[i]] != st)
			out[tail++] = S[i];
	return last;
}

/* The gain of moving v to the other side: weight to the other side less
 * weight to its own. */
static int64_t gain_of(const struct bis *b, int32_t v)
{
	const struct wgraph *g = b->g;
	int64_t x = 0;

	for (int64_t i = g->off[v]; i < g->off[v + 1]; i++) {
		int32_t u = g->adj[i];
		if (b->side[u] < 0)
			continue;
		x += b->side[u] != b->side[v] ? g->w[i] : -g->w[i];
	}
	if (b->pref)
		x += b->side[v] == 0 ? -b->pref[v] : b->pref[v];
	return x;
}

/* Weight of the edge u - v, 0 if none. */
static int64_t weight(const struct wgraph *g, int32_t u, int32_t v)
{
	for (int64_t i = g->off[u]; i < g->off[u + 1]; i++)
		if (g->adj[i] == v)
			return g->w[i];
	return 0;
}

/* Move v to the other side, updating its neighbours' gains. */
static void flip(struct bis *b, int32_t v)
{
	const struct wgraph *g = b->g;

	b->side[v] ^= 1;
	b->gain[v] = -b->gain[v];
	for (int64_t i = g->off[v]; i < g->off[v + 1]; i++) {
		int32_t u = g->adj[i];
		if (b->side[u] < 0)
			continue;
		/* v now on u's side: u's gain falls by 2w, else rises */
		b->gain[u] +=
		        b->side[u] == b->side[v] ? -2 * g->w[i] : 2 * g->w[i];
	}
}

/* Kernighan-Lin passes over set S: swap the best pair of unlocked
 * vertices, one from each side, lock both, and keep the prefix of swaps
 * that saved the most; sizes never change.  A pass stops early after a
 * run of swaps that never beat the best. */
static void kl_refine(struct bis *b, int32_t *S, int32_t ns, int32_t *hist)
{
	int32_t limit = ns / 2 < 256 ? ns / 2 : 256;

	for (int32_t v = 0; v < ns; v++)
		b->gain[S[v]] = gain_of(b, S[v]);
	for (int pass = 0; pass < PLACE_KL_PASSES; pass++) {
		uint32_t st = ++b->stamp;
		int64_t sum = 0, best = 0;
		int32_t nsw = 0, bestn = 0;
		for (int32_t t = 0; t < limit; t++) {
			int32_t a = -1, c = -1;
			for (int32_t i = 0; i < ns; i++) {
				int32_t v = S[i];
				if (b->mark[v] == st)
					continue;
				if (b->side[v] == 0) {
					if (a < 0 || b->gain[v] > b->gain[a])
						a = v;
				} else if (c < 0 || b->gain[v] > b->gain[c]) {
					c = v;
				}
			}
			if (a < 0 || c < 0)
				break;
			int64_t gsw = b->gain[a] + b->gain[c] -
			              2 * weight(b->g, a, c);
			flip(b, a);
			flip(b, c);
			b->mark[a] = b->mark[c] = st;
			hist[2 * nsw] = a;
			hist[2 * nsw + 1] = c;
			nsw++;
			sum += gsw;
			if (sum > best) {
				best = sum;
				bestn = nsw;
			} else if (nsw - bestn > 32) {
				break;
			}
		}
		for (int32_t i = nsw - 1; i >= bestn; i--) {
			flip(b, hist[2 * i]);
			flip(b, hist[2 * i + 1]);
		}
		if (best <= 0)
			break;
	}
}

/* The single-level start of a bisection: side 0 grown greedily by
 * gain from a pseudo-peripheral vertex (the far end of a BFS from a
 * random one) to s1 vertices.  What ml_bisect falls back on. */
static void grow(struct bis *b, int32_t *S, int32_t ns, int32_t s1,
                 int32_t *tmp)
{
	int32_t far =
	        bfs_order(b, S, ns, S[ir_rng_below(b->rng, (uint64_t)ns)], tmp);
	bfs_order(b, S, ns, far, tmp);
	for (int32_t i = 0; i < ns; i++)
		b->gain[S[i]] = 0;
	for (int32_t i = 0; i < ns; i++) {
		int32_t v = S[i];
		for (int64_t j = b->g->off[v]; j < b->g->off[v + 1]; j++)
			if (b->side[b->g->adj[j]] >= 0)
				b->gain[v] -= b->g->w[j];
	}
	for (int32_t t = 0, next = 0; t < s1; t++) {
		int32_t v = -1;
		for (int32_t i = 0; i < ns; i++) {
			int32_t u = tmp[i];
			if (b->side[u] == 1 &&
			    (v < 0 || b->gain[u] > b->gain[v]))
				v = u;
			if (t == 0)
				break; /* the far start first */
		}
		while (v < 0 && next < ns)
			if (b->side[tmp[next++]] == 1)
				v = tmp[next - 1];
		flip(b, v);
	}
}

/* ---- multilevel bisection ------------------------------------------- */

/* A graph local to one bisection, with vertex weights (the vertices of
 * the finer graph a coarse vertex stands for). */
struct lgraph {
	int32_t n;
	int64_t *off, *w, *vw;
	int64_t *pref; /* side 1's extra cost per vertex (struct bis) */
	int64_t *gain; /* scratch: each vertex's lg_gain, kept by lg_flip */
	int32_t *adj;
};

static void lg_free(struct lgraph *g)
{
	free(g->off);
	free(g->w);
	free(g->vw);
	free(g->adj);
	free(g->pref);
	free(g->gain);
	memset(g, 0, sizeof *g);
}

static int lg_alloc(struct lgraph *g, int32_t n, int64_t m)
{
	g->n = n;
	g->off = calloc((size_t)n + 1, sizeof *g->off);
	g->vw = malloc(((size_t)n + 1) * sizeof *g->vw);
	g->pref = calloc((size_t)n + 1, sizeof *g->pref);
	g->gain = malloc(((size_t)n + 1) * sizeof *g->gain);
	g->w = malloc(((size_t)m + 1) * sizeof *g->w);
	g->adj = malloc(((size_t)m + 1) * sizeof *g->adj);
	if (!g->off || !g->vw || !g->pref || !g->gain || !g->w || !g->adj) {
		lg_free(g);
		return CCP_ENOMEM;
	}
	return 0;
}

/* The subgraph of b's graph on set S (b->side marks it, loc[v] = v's
 * index in S). */
static int lg_from_set(const struct bis *b, const int32_t *S, int32_t ns,
                       const int32_t *loc, struct lgraph *g)
{
	const struct wgraph *G = b->g;
	int64_t m = 0;

	for (int32_t i = 0; i < ns; i++)
		m += G->off[S[i] + 1] - G->off[S[i]];
	if (lg_alloc(g, ns, m))
		return CCP_ENOMEM;
	m = 0;
	for (int32_t i = 0; i < ns; i++) {
		for (int64_t j = G->off[S[i]]; j < G->off[S[i] + 1]; j++)
			if (b->side[G->adj[j]] >= 0) {
				g->adj[m] = loc[G->adj[j]];
				g->w[m++] = G->w[j];
			}
		g->off[i + 1] = m;
		g->vw[i] = 1;
		g->pref[i] = b->pref ? b->pref[S[i]] : 0;
	}
	return 0;
}

/* Heavy-edge matching: each vertex, in a random order, pairs with its
 * unmatched neighbour of the heaviest edge (their weights together at
 * most maxvw); cmap[v] receives its coarse vertex.  The coarse graph
 * into c; its size returned (0 on failure). */
static int32_t lg_coarsen(const struct lgraph *g, struct ir_rng *rng,
                          int64_t maxvw, int32_t *cmap, struct lgraph *c)
{
	int32_t n = g->n, nc = 0, *match = malloc((size_t)n * sizeof *match),
	        *ord = malloc((size_t)n * sizeof *ord),
	        *rep = malloc((size_t)n * sizeof *rep);
	int64_t m = 0, *at = malloc((size_t)n * sizeof *at);

	if (!match || !ord || !at || !rep)
		goto fail;
	for (int32_t v = 0; v < n; v++) {
		match[v] = -1;
		ord[v] = v;
		at[v] = -1;
	}
	for (int32_t i = n - 1; i > 0; i--) {
		int32_t j = (int32_t)ir_rng_below(rng, (uint64_t)i + 1);
		int32_t t = ord[i];
		ord[i] = ord[j];
		ord[j] = t;
	}
	for (int32_t i = 0; i < n; i++) {
		int32_t v = ord[i], best = -1;
		if (match[v] >= 0)
			continue;
		for (int64_t j = g->off[v]; j < g->off[v + 1]; j++) {
			int32_t u = g->adj[j];
			if (u != v && match[u] < 0 &&
			    g->vw[u] + g->vw[v] <= maxvw &&
			    (best < 0 || g->w[j] > g->w[best]))
				best = (int32_t)j;
		}
		int32_t u = best < 0 ? v : g->adj[best];
		match[v] = u;
		match[u] = v;
		rep[nc] = v;
		cmap[v] = cmap[u] = nc++;
	}
	if (lg_alloc(c, nc, g->off[n]))
		goto fail;
	/* coarse vertex k's edges: both halves' edges, merged by at[] */
	for (int32_t k = 0; k < nc; k++) {
		int32_t v = rep[k], u = match[v];
		int64_t start = m;
		c->vw[k] = g->vw[v] + (u != v ? g->vw[u] : 0);
		c->pref[k] = g->pref[v] + (u != v ? g->pref[u] : 0);
		for (int t = 0; t < (u != v ? 2 : 1); t++) {
			int32_t x = t ? u : v;
			for (int64_t j = g->off[x]; j < g->off[x + 1]; j++) {
				int32_t ck = cmap[g->adj[j]];
				if (ck == k)
					continue;
				if (at[ck] >= start && at[ck] < m &&
				    c->adj[at[ck]] == ck) {
					c->w[at[ck]] += g->w[j];
				} else {
					at[ck] = m;
					c->adj[m] = ck;
					c->w[m++] = g->w[j];
				}
			}
		}
		c->off[k + 1] = m;
	}
	free(match);
	free(ord);
	free(at);
	free(rep);
	return nc;
fail:
	free(match);
	free(ord);
	free(at);
	free(rep);
	return 0;
}

/* Cut-saving gain of moving v to the other side. */
static int64_t lg_gain(const struct lgraph *g, const int8_t *side, int32_t v)
{
	int64_t x = 0;
	for (int64_t j = g->off[v]; j < g->off[v + 1]; j++)
		x += side[g->adj[j]] != side[v] ? g->w[j] : -g->w[j];
	return x + (side[v] == 0 ? -g->pref[v] : g->pref[v]);
}

/* Every vertex's gain into g->gain. */
static void lg_gains(const struct lgraph *g, const int8_t *side)
{
	for (int32_t v = 0; v < g->n; v++)
		g->gain[v] = lg_gain(g, side, v);
}

/* Move v to the other side, keeping g->gain. */
static void lg_flip(const struct lgraph *g, int8_t *side, int32_t v)
{
	side[v] ^= 1;
	g->gain[v] = -g->gain[v];
	for (int64_t j = g->off[v]; j < g->off[v + 1]; j++) {
		int32_t u = g->adj[j];
		g->gain[u] += side[u] != side[v] ? 2 * g->w[j] : -2 * g->w[j];
	}
}

/* The vertex of the best gain (g->gain, into *gv) among those a move may
 * take,
 * -1 if none.  With lock (FM): the unlocked ones whose move keeps side
 * 0's weight w0 within tol of target or brings it closer.  Without
 * (growing side 0): those on side 1 that fit side 0 below target and
 * half their own weight. */
static int32_t lg_best(const struct lgraph *g, const int8_t *side,
                       const uint8_t *lock, int64_t w0, int64_t target,
                       int64_t tol, int64_t *gv)
{
	int32_t v = -1;

	for (int32_t u = 0; u < g->n; u++) {
		if (lock) {
			int64_t nw = w0 + (side[u] == 0 ? -g->vw[u] : g->vw[u]);
			if (lock[u] ||
			    (llabs(nw - target) > tol &&
			     llabs(nw - target) >= llabs(w0 - target)))
				continue;
		} else if (side[u] != 1 ||
		           w0 + g->vw[u] > target + g->vw[u] / 2) {
			continue;
		}
		int64_t gu = g->gain[u];
		if (v < 0 || gu > *gv) {
			v = u;
			*gv = gu;
		}
	}
	return v;
}

/* Fiduccia-Mattheyses passes: move the best-gain unlocked vertex whose
 * move keeps side 0's weight within tol of target (or brings it
 * closer), keep the best prefix of each pass. */
static void lg_fm(const struct lgraph *g, int8_t *side, int64_t target,
                  int64_t tol, int32_t *hist, uint8_t *lock)
{
	int32_t n = g->n;
	int64_t w0 = 0;

	if (n <= 0)
		return;
	for (int32_t v = 0; v < n; v++)
		w0 += side[v] == 0 ? g->vw[v] : 0;
	lg_gains(g, side);
	for (int pass = 0; pass < PLACE_KL_PASSES; pass++) {
		int64_t sum = 0, best = 0, bestdev = llabs(w0 - target);
		int32_t nm = 0, bestn = 0, limit = n < 400 ? n : 400;
		memset(lock, 0, (size_t)n);
		for (int32_t t = 0; t < limit; t++) {
			int64_t gv = 0;
			int32_t v =
			        lg_best(g, side, lock, w0, target, tol, &gv);
			if (v < 0)
				break;
			w0 += side[v] == 0 ? -g->vw[v] : g->vw[v];
			lg_flip(g, side, v);
			lock[v] = 1;
			hist[nm++] = v;
			sum += gv;
			int64_t dev = llabs(w0 - target);
			if ((dev <= tol && (sum > best || bestdev > tol)) ||
			    (bestdev > tol && dev < bestdev)) {
				best = sum;
				bestn = nm;
				bestdev = dev;
			} else if (nm - bestn > 50) {
				break;
			}
		}
		for (int32_t i = nm - 1; i >= bestn; i--) {
			int32_t v = hist[i];
			w0 += side[v] == 0 ? -g->vw[v] : g->vw[v];
			lg_flip(g, side, v);
		}
		if (bestn == 0)
			break;
	}
}

/* Greedy growth of side 0 to weight target on g: from a far vertex, the
 * vertex with the best gain next. */
static void lg_grow(const struct lgraph *g, int64_t target, int8_t *side,
                    struct ir_rng *rng)
{
	int32_t n = g->n, start;
	int64_t w0 = 0;

	if (n <= 0)
		return;
	start = (int32_t)ir_rng_below(rng, (uint64_t)n);
	/* a far vertex: the last a BFS from a random one reaches */
	int32_t *q = malloc((size_t)n * sizeof *q), head = 0, tail = 0;
	if (q) {
		memset(side, 1, (size_t)n);
		q[tail++] = start;
		side[start] = 2;
		while (head < tail) {
			int32_t v = q[head++];
			start = v;
			for (int64_t j = g->off[v]; j < g->off[v + 1]; j++)
				if (side[g->adj[j]] == 1) {
					side[g->adj[j]] = 2;
					q[tail++] = g->adj[j];
				}
		}
		free(q);
	}
	memset(side, 1, (size_t)n);
	lg_gains(g, side);
	lg_flip(g, side, start);
	w0 = g->vw[start];
	while (w0 < target) {
		int64_t gv = 0;
		int32_t v = lg_best(g, side, NULL, w0, target, 0, &gv);
		if (v < 0)
			break;
		lg_flip(g, side, v);
		w0 += g->vw[v];
	}
}

/* Coarsen lv[0] into lv[1..] (cmap[l] maps level l onto l + 1) down to
 * about 48 vertices.  The number of levels, 0 when memory ran out. */
static int ml_coarsen(struct bis *b, struct lgraph *lv, int32_t **cmap,
                      int64_t maxvw)
{
	int nl = 1;

	while (lv[nl - 1].n > 48 && nl < 24) {
		const struct lgraph *g = &lv[nl - 1];
		if (!(cmap[nl - 1] = malloc((size_t)g->n * sizeof(int32_t))))
			return 0;
		int32_t nc = lg_coarsen(g, b->rng, maxvw > 1 ? maxvw : 1,
		                        cmap[nl - 1], &lv[nl]);
		if (nc == 0)
			return 0;
		nl++;
		if (nc > g->n - g->n / 10)
			break; /* hardly shrinks: stop here */
	}
	return nl;
}

/* From side on the coarsest of nl levels back to the finest: FM at each
 * level, then projected onto the finer one. */
static void ml_up(struct lgraph *lv, int32_t **cmap, int nl, int8_t *side,
                  int64_t s1, int32_t *hist, uint8_t *lock)
{
	for (int l = nl - 1; l >= 0; l--) {
		int64_t tol = 0;
		for (int32_t v = 0; v < lv[l].n; v++)
			tol = lv[l].vw[v] > tol ? lv[l].vw[v] : tol;
		lg_fm(&lv[l], side, s1, tol, hist, lock);
		if (l > 0) /* project onto the finer level */
			for (int32_t v = lv[l - 1].n - 1; v >= 0; v--)
				hist[v] = side[cmap[l - 1][v]];
		if (l > 0)
			for (int32_t v = 0; v < lv[l - 1].n; v++)
				side[v] = (int8_t)hist[v];
	}
}

/* Multilevel bisection of set S: coarsen by heavy-edge matching, grow
 * side 0 on the coarsest graph, and refine with FM on the way back; the
 * sides land in b->side (side 0 near s1 vertices, not yet exact).
 * Nonzero when memory ran out (b->side is then the caller's to set). */
static int ml_bisect(struct bis *b, const int32_t *S, int32_t ns, int32_t s1,
                     int32_t *loc)
{
	struct lgraph lv[24];
	int32_t *cmap[24] = {0}, nl = 0;
	int8_t *side = NULL;
	int32_t *hist = NULL;
	uint8_t *lock = NULL;
	int64_t maxvw = (s1 < ns - s1 ? s1 : ns - s1) / 4;
	int rc = CCP_ENOMEM;

	memset(lv, 0, sizeof lv);
	for (int32_t i = 0; i < ns; i++)
		loc[S[i]] = i;
	if (lg_from_set(b, S, ns, loc, &lv[0]))
		goto out;
	if ((nl = ml_coarsen(b, lv, cmap, maxvw)) == 0)
		goto out;
	side = malloc((size_t)ns);
	hist = malloc((size_t)ns * sizeof *hist);
	lock = malloc((size_t)ns);
	if (!side || !hist || !lock)
		goto out;
	/* the coarsest graph is small: the best of several starts */
	{
		const struct lgraph *c = &lv[nl - 1];
		int64_t tol = 0, best = -1;
		int8_t *try = malloc((size_t)c->n + 1);
		if (!try)
			goto out;
		for (int32_t v = 0; v < c->n; v++)
			tol = c->vw[v] > tol ? c->vw[v] : tol;
		for (int t = 0; t < 8; t++) {
			int64_t cut = 0;
			lg_grow(c, s1, try, b->rng);
			lg_fm(c, try, s1, tol, hist, lock);
			for (int32_t v = 0; v < c->n; v++)
				for (int64_t j = c->off[v]; j < c->off[v + 1];
				     j++)
					cut += try[v] != try[c->adj[j]]
					               ? c->w[j]
					               : 0;
			for (int32_t v = 0; v < c->n; v++)
				cut += try[v] == 1 ? c->pref[v] : 0;
			if (best < 0 || cut < best) {
				best = cut;
				memcpy(side, try, (size_t)c->n);
			}
		}
		free(try);
	}
	ml_up(lv, cmap, nl, side, s1, hist, lock);
	for (int32_t i = 0; i < ns; i++)
		b->side[S[i]] = side[i];
	rc = 0;
out:
	for (int32_t l = 0; l < 24; l++) {
		lg_free(&lv[l]);
		free(cmap[l]);
	}
	free(side);
	free(hist);
	free(lock);
	return rc;
}

/* One multilevel bisection of S into b->side, sizes exact. */
static void bisect_once(struct bis *b, int32_t *S, int32_t ns, int32_t s1,
                        int32_t *tmp)
{
	for (int32_t i = 0; i < ns; i++)
		b->side[S[i]] = 1;
	if (ml_bisect(b, S, ns, s1, b->loc) != 0)
		grow(b, S, ns, s1, tmp);
	/* exact sizes: move the best-gain vertices off the larger side */
	int32_t n0 = 0;
	for (int32_t i = 0; i < ns; i++) {
		n0 += b->side[S[i]] == 0;
		b->gain[S[i]] = gain_of(b, S[i]);
	}
	while (n0 != s1) {
		int8_t from = n0 > s1 ? 0 : 1;
		int32_t v = -1;
		for (int32_t i = 0; i < ns; i++)
			if (b->side[S[i]] == from &&
			    (v < 0 || b->gain[S[i]] > b->gain[v]))
				v = S[i];
		flip(b, v);
		n0 += from == 0 ? -1 : 1;
	}
	kl_refine(b, S, ns, tmp);
}

/* What the sides of set S cost: the weight cut (each edge once) and
 * side 1's extra cost (b->pref). */
static int64_t side_cost(const struct bis *b, const int32_t *S, int32_t ns)
{
	const struct wgraph *g = b->g;
	int64_t c = 0;

	for (int32_t i = 0; i < ns; i++) {
		int32_t v = S[i];
		for (int64_t j = g->off[v]; j < g->off[v + 1]; j++) {
			int32_t u = g->adj[j];
			if (b->side[u] >= 0 && b->side[u] != b->side[v] &&
			    u < v)
				c += g->w[j];
		}
		if (b->pref && b->side[v] == 1)
			c += b->pref[v];
	}
	return c;
}

/* BFS distances inside set S (b->side >= 0 marks it, b->loc[v] is v's
 * index in S) from S[src], into d by index; ns for the unreached.
 * queue holds ns entries. */
static void set_dist(const struct bis *b, const int32_t *S, int32_t ns,
                     int32_t src, int32_t *d, int32_t *queue)
{
	const struct wgraph *g = b->g;
	int32_t head = 0, tail = 0;

	for (int32_t i = 0; i < ns; i++)
		d[i] = -1;
	d[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		int32_t i = queue[head++], v = S[i];
		for (int64_t j = g->off[v]; j < g->off[v + 1]; j++) {
			int32_t u = g->adj[j];
			if (b->side[u] < 0 || d[b->loc[u]] >= 0)
				continue;
			d[b->loc[u]] = d[i] + 1;
			queue[tail++] = b->loc[u];
		}
	}
	for (int32_t i = 0; i < ns; i++)
		if (d[i] < 0)
			d[i] = ns;
}

/* Side 0 of set S the s1 vertices with the least da - dc (distances
 * from two corners, by index in S, each in 0..ns), ties by index: a
 * counting sort by the key, stable.  cnt holds 2 ns + 2 entries, o ns. */
static void corner_sides(struct bis *b, const int32_t *S, int32_t ns,
                         int32_t s1, const int32_t *da, const int32_t *dc,
                         int32_t *cnt, int32_t *o, int8_t *sl)
{
	int32_t nk = 2 * ns + 2, at = 0;

	memset(cnt, 0, (size_t)nk * sizeof *cnt);
	for (int32_t i = 0; i < ns; i++)
		cnt[da[i] - dc[i] + ns]++;
	for (int32_t key = 0; key < nk; key++) {
		int32_t c = cnt[key];
		cnt[key] = at;
		at += c;
	}
	for (int32_t i = 0; i < ns; i++)
		o[cnt[da[i] - dc[i] + ns]++] = i;
	for (int32_t i = 0; i < ns; i++)
		b->side[S[o[i]]] = sl[o[i]] = i < s1 ? 0 : 1;
}

/* S's edges inside it, each once, by index in S (b->loc), for
 * local_cost. */
struct local_edges {
	int32_t *a, *c;
	int64_t *w, n;
};

/* side_cost of S from its local edges, the sides by index in sl. */
static int64_t local_cost(const struct bis *b, const int32_t *S, int32_t ns,
                          const struct local_edges *le, const int8_t *sl)
{
	int64_t c = 0;

	for (int64_t j = 0; j < le->n; j++)
		c += sl[le->a[j]] != sl[le->c[j]] ? le->w[j] : 0;
	if (b->pref)
		for (int32_t i = 0; i < ns; i++)
			c += sl[i] == 1 ? b->pref[S[i]] : 0;
	return c;
}

/* Corners tried per bisection (corner_cut). */
#define PLACE_CORNERS 8

/* A second start for the bisection b->side holds, kept only when it
 * costs less (side_cost): the set's corners (its vertices of least
 * degree inside it, spread out: each the farthest from those before),
 * and for each two corners a and c, the s1 vertices nearer a than c
 * (by the difference of their BFS distances) as side 0, then
 * Kernighan-Lin.  On a grid, two corners along one edge give the
 * straight cut across it, which coarsening and FM often miss (a jog
 * they cannot undo); on other graphs it is one more candidate. */
static void corner_cut(struct bis *b, const int32_t *S, int32_t ns, int32_t s1,
                       int32_t *tmp)
{
	const struct wgraph *g = b->g;
	int32_t *d = malloc((size_t)PLACE_CORNERS * (size_t)ns * sizeof *d),
	        *deg = malloc((size_t)ns * sizeof *deg), k = 0, mindeg = -1;
	int32_t *o = malloc((size_t)ns * sizeof *o),
	        *cnt = malloc((2 * (size_t)ns + 2) * sizeof *cnt);
	int8_t *keep = malloc((size_t)ns), *sl = malloc((size_t)ns);
	int64_t was, best = -1, ne = 0;
	int ba = -1, bc = -1;
	struct local_edges le = {0};

	if (!d || !deg || !o || !cnt || !keep || !sl || ns < 8)
		goto out;
	for (int32_t i = 0; i < ns; i++)
		ne += g->off[S[i] + 1] - g->off[S[i]];
	le.a = malloc(((size_t)ne + 1) * sizeof *le.a);
	le.c = malloc(((size_t)ne + 1) * sizeof *le.c);
	le.w = malloc(((size_t)ne + 1) * sizeof *le.w);
	if (!le.a || !le.c || !le.w)
		goto out;
	was = side_cost(b, S, ns);
	for (int32_t i = 0; i < ns; i++) {
		b->loc[S[i]] = i;
		keep[i] = b->side[S[i]];
		deg[i] = 0;
		for (int64_t j = g->off[S[i]]; j < g->off[S[i] + 1]; j++)
			deg[i] += b->side[g->adj[j]] >= 0;
		if (mindeg < 0 || deg[i] < mindeg)
			mindeg = deg[i];
	}
	for (int32_t i = 0; i < ns; i++)
		for (int64_t j = g->off[S[i]]; j < g->off[S[i] + 1]; j++) {
			int32_t u = g->adj[j];
			if (b->side[u] >= 0 && u < S[i]) {
				le.a[le.n] = i;
				le.c[le.n] = b->loc[u];
				le.w[le.n++] = g->w[j];
			}
		}
	/* the corners: from the far end of a BFS from S[0], each next
	 * the one farthest from all before */
	set_dist(b, S, ns, 0, d, tmp);
	for (int32_t want = 0; want < PLACE_CORNERS; want++) {
		int32_t pick = -1, far = 0;
		for (int32_t i = 0; i < ns; i++) {
			int32_t m = INT32_MAX;
			if (deg[i] != mindeg)
				continue;
			for (int32_t c = 0; c < (k ? k : 1); c++)
				m = d[(size_t)c * ns + i] < m
				            ? d[(size_t)c * ns + i]
				            : m;
			if (m > far) {
				far = m;
				pick = i;
			}
		}
		if (pick < 0)
			break;
		set_dist(b, S, ns, pick, d + (size_t)k * ns, tmp);
		k++;
	}
	/* every ordered pair: side 0 the s1 vertices nearest a against c */
	for (int32_t a = 0; a < k; a++)
		for (int32_t c = 0; c < k; c++) {
			if (a == c)
				continue;
			corner_sides(b, S, ns, s1, d + (size_t)a * ns,
			             d + (size_t)c * ns, cnt, o, sl);
			int64_t cost = local_cost(b, S, ns, &le, sl);
			if (best < 0 || cost < best) {
				best = cost;
				ba = a;
				bc = c;
			}
		}
	if (ba >= 0) {
		corner_sides(b, S, ns, s1, d + (size_t)ba * ns,
		             d + (size_t)bc * ns, cnt, o, sl);
		kl_refine(b, (int32_t *)S, ns, tmp);
		if (side_cost(b, S, ns) < was)
			goto out; /* the corners' cut, kept */
	}
	for (int32_t i = 0; i < ns; i++) /* the multilevel cut, kept */
		b->side[S[i]] = keep[i];
out:
	free(le.a);
	free(le.c);
	free(le.w);
	free(sl);
	free(cnt);
	free(d);
	free(deg);
	free(o);
	free(keep);
}

/* Cut set S (ns vertices) into S[0..s1) and S[s1..ns), lowering the
 * weight between them.  tmp holds 2 ns entries. */
static void bisect(struct bis *b, int32_t *S, int32_t ns, int32_t s1,
                   int32_t *tmp)
{
	int32_t k = 0;

	if (s1 <= 0 || s1 >= ns)
		return;
	bisect_once(b, S, ns, s1, tmp);
	corner_cut(b, S, ns, s1, tmp);
	for (int32_t i = 0; i < ns; i++)
		if (b->side[S[i]] == 0)
			tmp[k++] = S[i];
	for (int32_t i = 0; i < ns; i++)
		if (b->side[S[i]] == 1)
			tmp[k++] = S[i];
	for (int32_t i = 0; i < ns; i++) {
		S[i] = tmp[i];
		b->side[S[i]] = -1;
	}
}

static int bis_init(struct bis *b, const struct wgraph *g, struct ir_rng *r)
{
	int32_t n = g->n;

	memset(b, 0, sizeof *b);
	b->g = g;
	b->rng = r;
	b->side = malloc((size_t)n + 1);
	b->gain = malloc(((size_t)n + 1) * sizeof *b->gain);
	b->mark = calloc((size_t)n + 1, sizeof *b->mark);
	b->queue = malloc(2 * ((size_t)n + 1) * sizeof *b->queue);
	b->loc = malloc(((size_t)n + 1) * sizeof *b->loc);
	if (!b->side || !b->gain || !b->mark || !b->queue || !b->loc)
		return CCP_ENOMEM;
	memset(b->side, -1, (size_t)n + 1);
	return 0;
}

static void bis_fini(struct bis *b)
{
	free(b->side);
	free(b->gain);
	free(b->mark);
	free(b->queue);
	free(b->loc);
	free(b->pref);
}

/* Deal the ns ranks of S to parts first .. first + nparts - 1, k ranks
 * each, by recursive bisection: group[v] receives v's part. */
static void group_rec(struct bis *b, int32_t *S, int32_t ns, int32_t nparts,
                      int32_t first, int32_t k, int32_t *group)
{
	if (nparts == 1) {
		for (int32_t i = 0; i < ns; i++)
			group[S[i]] = first;
		return;
	}
	int32_t p1 = nparts / 2;
	bisect(b, S, ns, p1 * k, b->queue);
	group_rec(b, S, p1 * k, p1, first, k, group);
	group_rec(b, S + p1 * k, ns - p1 * k, nparts - p1, first + p1, k,
	          group);
}

/* ---- the machine's bisections ---------------------------------------- */

/* How a machine is cut: by coordinates (mesh, torus, hypercube), or
 * along an order of its nodes at block boundaries (fat tree, dragonfly,
 * graph, the rest). */
struct mcut {
	int ncoord;   /* coordinates per node, 0 to cut along the order */
	int *coord;   /* [nnodes * ncoord] */
	int32_t *idx; /* [nnodes]: a node's place in the order */
	int64_t blocks[IR_MAX_TREE + 2]; /* block sizes, largest first */
	int nblocks;
};

/* Split the count nodes of M in two along the machine's own cut: M is
 * reordered and the size of the first half returned. */
static int32_t machine_split(const struct mcut *mc, int32_t *M, int32_t count,
                             int32_t *tmp)
{
	if (mc->ncoord > 0) {
		int lo[IR_MAX_CUBE_DIM], hi[IR_MAX_CUBE_DIM], best = 0;
		for (int d = 0; d < mc->ncoord; d++) {
			lo[d] = hi[d] =
			        mc->coord[(size_t)M[0] * mc->ncoord + d];
		}
		for (int32_t i = 1; i < count; i++)
			for (int d = 0; d < mc->ncoord; d++) {
				int c = mc->coord[(size_t)M[i] * mc->ncoord +
				                  d];
				lo[d] = c < lo[d] ? c : lo[d];
				hi[d] = c > hi[d] ? c : hi[d];
			}
		for (int d = 1; d < mc->ncoord; d++)
			if (hi[d] - lo[d] > hi[best] - lo[best])
				best = d;
		int cut = lo[best] + (hi[best] - lo[best] + 1) / 2;
		int32_t k = 0;
		for (int32_t i = 0; i < count; i++)
			if (mc->coord[(size_t)M[i] * mc->ncoord + best] < cut)
				tmp[k++] = M[i];
		int32_t s1 = k;
		for (int32_t i = 0; i < count; i++)
			if (mc->coord[(size_t)M[i] * mc->ncoord + best] >= cut)
				tmp[k++] = M[i];
		memcpy(M, tmp, (size_t)count * sizeof *M);
		return s1;
	}
	/* M is a run of the order: cut at the boundary of the largest
	 * block inside it nearest its middle */
	int64_t lo = mc->idx[M[0]], hi = lo + count, mid = lo + count / 2;
	for (int i = 0; i < mc->nblocks; i++) {
		int64_t B = mc->blocks[i], best = -1;
		if (B >= count)
			continue;
		for (int64_t c = (lo / B + 1) * B; c < hi; c += B)
			if (best < 0 || llabs(c - mid) < llabs(best - mid))
				best = c;
		if (best > lo)
			return (int32_t)(best - lo);
	}
	return count / 2;
}

/* The order of a graph machine's hosts: BFS over its vertices from host
 * 0, so hosts under one switch come together. */
static int graph_order(const ir_graph *g, int32_t *order)
{
	int32_t *q = malloc((size_t)g->nverts * sizeof *q), head = 0, tail = 0,
	        k = 0;
	uint8_t *seen = calloc((size_t)g->nverts, 1);

	if (!q || !seen) {
		free(q);
		free(seen);
		return CCP_ENOMEM;
	}
	q[tail++] = 0;
	seen[0] = 1;
	while (head < tail) {
		int32_t v = q[head++];
		if (v < g->nhosts)
			order[k++] = v;
		for (uint32_t i = g->out_off[v]; i < g->out_off[v + 1]; i++) {
			uint32_t c = g->out[i] / 2;
			int32_t u = g->cables[c].a == v ? g->cables[c].b
			                                : g->cables[c].a;
			if (!seen[u]) {
				seen[u] = 1;
				q[tail++] = u;
			}
		}
	}
	for (int32_t h = 0; h < g->nhosts; h++) /* not reached: cannot be */
		if (!seen[h])
			order[k++] = h;
	free(q);
	free(seen);
	return 0;
}

/* The cut of machine pm (placed by blocks), and its initial order of
 * nodes in order[]. */
static int mcut_init(const ir_machine *pm, struct mcut *mc, int32_t *order)
{
	int32_t nn = pm->nnodes, k = pm->ranks_per_node;
	int c[IR_MAX_CUBE_DIM];

	memset(mc, 0, sizeof *mc);
	for (int32_t v = 0; v < nn; v++)
		order[v] = v;
	switch (pm->topo) {
	case IR_MESH:
	case IR_TORUS:
	case IR_HYPERCUBE:
		mc->ncoord = pm->ndims;
		mc->coord = malloc((size_t)nn * (size_t)pm->ndims *
		                   sizeof *mc->coord);
		if (!mc->coord)
			return CCP_ENOMEM;
		for (int32_t v = 0; v < nn; v++) {
			ir_coords(pm, v * k, c);
			memcpy(mc->coord + (size_t)v * pm->ndims, c,
			       (size_t)pm->ndims * sizeof *c);
		}
		break;
	case IR_FAT_TREE: {
		int64_t b = 1;
		for (int i = 0; i < pm->ndims - 1; i++) {
			b *= pm->dims[i];
			mc->blocks[pm->ndims - 2 - i] = b;
		}
		mc->nblocks = pm->ndims - 1;
		break;
	}
	case IR_DRAGONFLY:
		mc->blocks[0] = (int64_t)pm->dims[0] * pm->dims[1];
		mc->blocks[1] = pm->dims[0];
		mc->nblocks = 2;
		break;
	case IR_GRAPH: {
		int rc = graph_order(pm->graph, order);
		if (rc)
			return rc;
		break;
	}
	default:
		break;
	}
	if (!(mc->idx = malloc((size_t)nn * sizeof *mc->idx)))
		return CCP_ENOMEM;
	for (int32_t i = 0; i < nn; i++)
		mc->idx[order[i]] = i;
	return 0;
}

/* The boxes map_rec cut the machine into: box i holds the nodes
 * M[start[i] .. start[i] + count[i]), at depth depth[i] of the
 * recursion (the whole machine at 0). */
struct mtree {
	const int32_t *base; /* the whole machine's M */
	int32_t *start, *count, *depth;
	int32_t n;
};

/* A symmetry of a box: axis d of a node's offset in the box goes to
 * axis perm[d], mirrored when mirror has bit d. */
struct boxsym {
	int perm[3];
	unsigned mirror;
};

/* The symmetries of a box with extents ext (nd <= 3 axes) other than
 * the identity: mirrors of every axis, and swaps of axes of the same
 * extent (and, on a torus, of the same ring).  Their count, into sym
 * (room for 48). */
static int box_syms(const ir_machine *pm, int nd, const int *ext,
                    struct boxsym *sym)
{
	static const int perms[6][3] = {{0, 1, 2}, {1, 0, 2}, {0, 2, 1},
	                                {2, 1, 0}, {1, 2, 0}, {2, 0, 1}};
	int np = nd == 1 ? 1 : nd == 2 ? 2 : 6, ns = 0;

	for (int p = 0; p < np; p++) {
		bool ok = true;
		for (int d = 0; d < nd; d++) {
			int e = perms[p][d];
			ok = ok && ext[e] == ext[d] &&
			     (pm->topo != IR_TORUS ||
			      pm->dims[e] == pm->dims[d]);
		}
		for (unsigned mi = 0; ok && mi < (1u << nd); mi++) {
			if (p == 0 && mi == 0)
				continue;
			memcpy(sym[ns].perm, perms[p], sizeof sym[ns].perm);
			sym[ns++].mirror = mi;
		}
	}
	return ns;
}

/* Node v under symmetry s of the box at lo with extents ext. */
static int32_t box_apply(const ir_machine *pm, const struct mcut *mc, int nd,
                         const int *lo, const int *ext, const struct boxsym *s,
                         int32_t v)
{
	int c[IR_MAX_CUBE_DIM] = {0};
	const int *cv = mc->coord + (size_t)v * mc->ncoord;

	for (int d = 0; d < mc->ncoord; d++)
		c[d] = cv[d];
	for (int d = 0; d < nd; d++) {
		int o = cv[d] - lo[d];
		if (s->mirror >> d & 1)
			o = ext[d] - 1 - o;
		c[s->perm[d]] = lo[s->perm[d]] + o;
	}
	return ir_rank_of(pm, c) /
	       (pm->ranks_per_node < 1 ? 1 : pm->ranks_per_node);
}

/* Hops on dimension d between coordinates a and b of a mesh or torus,
 * and between nodes a and b (dimension-order routing takes a shortest
 * path: the ring's shorter way on a dimension that wraps). */
static int dim_hops(const ir_machine *pm, int d, int a, int b)
{
	int x = a > b ? a - b : b - a;

	if (pm->wrap >> d & 1u && pm->dims[d] - x < x)
		x = pm->dims[d] - x;
	return x;
}

static int grid_hops(const ir_machine *pm, const struct mcut *mc, int32_t a,
                     int32_t b)
{
	const int *ca = mc->coord + (size_t)a * mc->ncoord,
	          *cb = mc->coord + (size_t)b * mc->ncoord;
	int h = 0;

	for (int d = 0; d < mc->ncoord; d++)
		h += dim_hops(pm, d, ca[d], cb[d]);
	return h;
}

/* dim_hops of dimension e from a table when ht[e] holds one (extents
 * up to PLACE_HOP_TABLE, filled by orient_boxes), else computed. */
#define PLACE_HOP_TABLE 2048
static inline int hop_t(const ir_machine *pm, int32_t *const *ht, int e,
                        int a, int b)
{
	return ht[e] ? ht[e][(size_t)a * (size_t)pm->dims[e] + (size_t)b]
	             : dim_hops(pm, e, a, b);
}

/* A box of a mesh or torus: extents ext from corner lo. */
struct box {
	int lo[3], ext[3];
};

/* Boxes at most this many nodes are tried at every offset too, not only
 * where the bisections cut them. */
#define PLACE_SLIDE_VOL 16

/* The boxes orient_boxes tries, into *out (*nout of them): the boxes
 * of t, deepest first (those that are whole boxes of the machine), then
 * every box of their small shapes (PLACE_SLIDE_VOL) at every offset,
 * since a defect may straddle two of the bisections' boxes. */
static int orient_list(const ir_machine *pm, const struct mcut *mc,
                       const int32_t *M, const struct mtree *t,
                       struct box **out, int64_t *nout)
{
	int nd = mc->ncoord;
	int64_t n = 0, cap = (int64_t)t->n + 1;
	int32_t maxd = 0;
	struct box *L = malloc((size_t)cap * sizeof *L);

	if (!L)
		return CCP_ENOMEM;
	for (int32_t i = 0; i < t->n; i++)
		maxd = t->depth[i] > maxd ? t->depth[i] : maxd;
	for (int32_t dep = maxd; dep >= 0; dep--)
		for (int32_t i = 0; i < t->n; i++) {
			const int32_t *B = M + t->start[i];
			int hi[3];
			int64_t vol = 1;
			struct box x;
			if (t->depth[i] != dep)
				continue;
			for (int d = 0; d < nd; d++)
				x.lo[d] = hi[d] =
				        mc->coord[(size_t)B[0] * nd + d];
			for (int32_t j = 1; j < t->count[i]; j++)
				for (int d = 0; d < nd; d++) {
					int c = mc->coord[(size_t)B[j] * nd +
					                  d];
					x.lo[d] = c < x.lo[d] ? c : x.lo[d];
					hi[d] = c > hi[d] ? c : hi[d];
				}
			for (int d = 0; d < nd; d++) {
				x.ext[d] = hi[d] - x.lo[d] + 1;
				vol *= x.ext[d];
			}
			if (vol == t->count[i]) /* a whole box */
				L[n++] = x;
		}
	/* their shapes, turned every way: the small ones at every offset,
	 * the others at every half of their extent */
	int64_t ntree = n;
	static const int perms[6][3] = {{0, 1, 2}, {1, 0, 2}, {0, 2, 1},
	                                {2, 1, 0}, {1, 2, 0}, {2, 0, 1}};
	struct box shape[6 * 64];
	int nsh = 0;
	for (int64_t i = 0; i < ntree; i++)
		for (int p = 0; p < (nd == 1 ? 1 : nd == 2 ? 2 : 6); p++) {
			struct box x = {{0}, {1, 1, 1}};
			int64_t vol = 1;
			bool seen = false;
			for (int d = 0; d < nd; d++) {
				x.ext[d] = L[i].ext[perms[p][d]];
				vol *= x.ext[d];
				seen = seen || x.ext[d] > pm->dims[d];
			}
			for (int j = 0; j < nsh && !seen; j++)
				seen = memcmp(shape[j].ext, x.ext,
				              sizeof x.ext) == 0;
			if (vol >= 2 && !seen && nsh < 6 * 64)
				shape[nsh++] = x;
		}
	for (int si = 0; si < nsh; si++) {
		int64_t cnt = 1, vol = 1;
		int step[3], span[3];
		for (int d = 0; d < nd; d++)
			vol *= shape[si].ext[d];
		for (int d = 0; d < nd; d++) {
			step[d] = vol <= PLACE_SLIDE_VOL || shape[si].ext[d] < 2
			                  ? 1
			                  : shape[si].ext[d] / 2;
			span[d] =
			        (pm->dims[d] - shape[si].ext[d]) / step[d] + 1;
			cnt *= span[d];
		}
		if (n + cnt > cap) {
			cap = 2 * (n + cnt);
			struct box *nl = realloc(L, (size_t)cap * sizeof *L);
			if (!nl) {
				free(L);
				return CCP_ENOMEM;
			}
			L = nl;
		}
		for (int64_t o = 0; o < cnt; o++) {
			struct box x = shape[si];
			int64_t r = o;
			for (int d = 0; d < nd; d++) {
				x.lo[d] = (int)(r % span[d]) * step[d];
				r /= span[d];
			}
			L[n++] = x;
		}
	}
	*out = L;
	*nout = n;
	return 0;
}

/* The hops of the messages leaving box x (nodes B, cnt of them; the
 * groups inside stamped st in mark) under its symmetries: hops are a
 * sum over dimensions, so a symmetry's hops are a sum of terms
 * part[d][e][m], the hops on dimension e when offset d goes to
 * dimension e, mirrored if m; the hops as they are, part[e][e][0]
 * summed over e.  Inlined for each nd (a constant there), so that its
 * loops over the dimensions unroll. */
static inline __attribute__((always_inline)) void
box_parts(const struct wgraph *g, const ir_machine *pm, const struct mcut *mc,
          int32_t *const *ht, int nd, const struct box *x, const int32_t *B,
          int32_t cnt, const int32_t *inv, const uint32_t *mark, uint32_t st,
          const int *gco, int64_t part[3][3][2])
{
	bool same[3][3]; /* d != e of the same extent */

	memset(part, 0, 3 * sizeof *part);
	for (int d = 0; d < nd; d++)
		for (int e = 0; e < nd; e++)
			same[d][e] = d != e && x->ext[e] == x->ext[d];
	for (int32_t i = 0; i < cnt; i++) {
		int32_t u = inv[B[i]];
		const int *cv = mc->coord + (size_t)B[i] * (size_t)nd;
		for (int64_t j = g->off[u]; j < g->off[u + 1]; j++) {
			int32_t gv = g->adj[j];
			if (mark[gv] == st)
				continue;
			const int *cw = gco + (size_t)gv * (size_t)nd;
			int64_t gw = g->w[j];
			for (int d = 0; d < nd; d++) {
				int o = cv[d] - x->lo[d],
				    om = x->ext[d] - 1 - o;
				part[d][d][0] +=
				        gw * hop_t(pm, ht, d, cv[d], cw[d]);
				part[d][d][1] +=
				        gw *
				        hop_t(pm, ht, d, x->lo[d] + om, cw[d]);
				for (int e = 0; e < nd; e++) {
					if (!same[d][e])
						continue;
					part[d][e][0] +=
					        gw * hop_t(pm, ht, e,
					                   x->lo[e] + o, cw[e]);
					part[d][e][1] +=
					        gw * hop_t(pm, ht, e,
					                   x->lo[e] + om,
					                   cw[e]);
				}
			}
		}
	}
}

/* Turn and mirror whole boxes of the map against the groups around
 * them: for each box (orient_list), the symmetry of the box that most
 * lowers the hops of the messages leaving it is applied (messages
 * inside keep their hops: the box's symmetries keep distances).  A
 * bisection places each half well but may leave it mirrored or turned
 * against its neighbours, which swaps of two groups cannot undo.  In
 * sweeps until one changes nothing.  Meshes and tori of up to 3
 * dimensions; pos and inv (node -> group) updated together. */
static int orient_boxes(const struct wgraph *g, const ir_machine *pm,
                        const struct mcut *mc, const int32_t *M,
                        const struct mtree *t, int32_t *pos, int32_t *inv)
{
	int nd = mc->ncoord,
	    k = pm->ranks_per_node < 1 ? 1 : pm->ranks_per_node;
	int32_t nn = pm->nnodes, *to = NULL, *grp = NULL, *B = NULL;
	uint32_t *mark = NULL, stamp = 0;
	/* touched[group]: 1 + the last sweep in which it or a partner of
	 * it moved; a box none of whose groups was touched since the sweep
	 * before is not tried again (its hops cannot have changed) */
	int *touched = NULL;
	int32_t *ht[3] = {NULL, NULL, NULL}; /* hop_t's tables */
	int *gco = NULL; /* [nn * nd]: each group's node's coordinates */
	struct boxsym sym[48];
	struct box *L = NULL;
	int64_t nl = 0;
	int rc;

	if ((pm->topo != IR_MESH && pm->topo != IR_TORUS) || nd < 1 || nd > 3)
		return 0;
	if ((rc = orient_list(pm, mc, M, t, &L, &nl)) != 0)
		return rc;
	for (int e = 0; e < nd; e++) {
		int de = pm->dims[e];
		if (de > PLACE_HOP_TABLE)
			continue;
		ht[e] = malloc((size_t)de * (size_t)de * sizeof *ht[e]);
		if (!ht[e]) {
			rc = CCP_ENOMEM;
			goto out;
		}
		for (int a = 0; a < de; a++)
			for (int b2 = 0; b2 < de; b2++)
				ht[e][(size_t)a * (size_t)de + (size_t)b2] =
				        dim_hops(pm, e, a, b2);
	}
	to = malloc((size_t)nn * sizeof *to);
	mark = calloc((size_t)nn, sizeof *mark);
	grp = malloc((size_t)nn * sizeof *grp);
	B = malloc((size_t)nn * sizeof *B);
	touched = calloc((size_t)nn, sizeof *touched);
	gco = malloc((size_t)nn * (size_t)nd * sizeof *gco);
	if (!to || !mark || !grp || !B || !touched || !gco) {
		rc = CCP_ENOMEM;
		goto out;
	}
	for (int32_t u = 0; u < nn; u++)
		memcpy(gco + (size_t)u * nd, mc->coord + (size_t)pos[u] * nd,
		       (size_t)nd * sizeof *gco);
	/* the hops of every message, for when to stop */
	int64_t total = 0;
	for (int32_t u = 0; u < nn; u++)
		for (int64_t j = g->off[u]; j < g->off[u + 1]; j++)
			total += g->w[j] *
			         grid_hops(pm, mc, pos[u], pos[g->adj[j]]);
	for (int sweep = 0; sweep < PLACE_SWEEPS; sweep++) {
		bool changed = false;
		int64_t saved = 0;
		for (int64_t bi = 0; bi < nl; bi++) {
			const struct box *x = &L[bi];
			int32_t cnt = 1;
			int c[IR_MAX_CUBE_DIM] = {0};
			for (int d = 0; d < nd; d++)
				cnt *= x->ext[d];
			for (int32_t i = 0; i < cnt; i++) { /* its nodes */
				int32_t r = i;
				for (int d = 0; d < nd; d++) {
					c[d] = x->lo[d] + r % x->ext[d];
					r /= x->ext[d];
				}
				B[i] = ir_rank_of(pm, c) / k;
			}
			bool stale = sweep == 0;
			for (int32_t i = 0; i < cnt && !stale; i++)
				stale = touched[inv[B[i]]] >= sweep;
			if (!stale)
				continue;
			int ns = box_syms(pm, nd, x->ext, sym), best = -1;
			int64_t bestd = 0;
			uint32_t st = ++stamp;
			for (int32_t i = 0; i < cnt; i++)
				mark[inv[B[i]]] = st;
			int64_t base = 0, part[3][3][2];
			if (nd == 2)
				box_parts(g, pm, mc, ht, 2, x, B, cnt, inv,
				          mark, st, gco, part);
			else if (nd == 3)
				box_parts(g, pm, mc, ht, 3, x, B, cnt, inv,
				          mark, st, gco, part);
			else
				box_parts(g, pm, mc, ht, 1, x, B, cnt, inv,
				          mark, st, gco, part);
			for (int e = 0; e < nd; e++)
				base += part[e][e][0];
			for (int s = 0; s < ns; s++) {
				int64_t delta = -base;
				for (int d = 0; d < nd; d++)
					delta += part[d][sym[s].perm[d]]
					             [sym[s].mirror >> d & 1];
				if (delta < bestd) {
					bestd = delta;
					best = s;
				}
			}
			if (best < 0)
				continue;
			for (int32_t i = 0; i < cnt; i++)
				to[B[i]] = box_apply(pm, mc, nd, x->lo, x->ext,
				                     &sym[best], B[i]);
			/* the groups move with their nodes */
			for (int32_t i = 0; i < cnt; i++)
				grp[i] = inv[B[i]];
			for (int32_t i = 0; i < cnt; i++) {
				int32_t u = grp[i];
				pos[u] = to[B[i]];
				inv[to[B[i]]] = u;
				memcpy(gco + (size_t)u * nd,
				       mc->coord + (size_t)pos[u] * nd,
				       (size_t)nd * sizeof *gco);
				touched[u] = sweep + 1;
				for (int64_t j = g->off[u]; j < g->off[u + 1];
				     j++)
					touched[g->adj[j]] = sweep + 1;
			}
			changed = true;
			saved -= 2 * bestd; /* total counts both ways */
		}
		total -= saved;
		/* a sweep that saved almost nothing ends them */
		if (!changed || saved * PLACE_SWEEP_GAIN < total)
			break;
	}
	rc = 0;
out:
	for (int e = 0; e < 3; e++)
		free(ht[e]);
	free(L);
	free(grp);
	free(to);
	free(mark);
	free(B);
	free(touched);
	free(gco);
	return rc;
}

/* Map the groups A to the machine's nodes M (count of each), recursing
 * down both bisections together: pos[group] receives its node (-1 until
 * then).  Each bisection of A leans every group towards the machine's
 * half nearer the groups it talks to that are placed already (terminal
 * propagation: recursive bisection alone may place a half mirrored).  M
 * ends in an order where nearby nodes are near in the network. */
static void map_rec(struct bis *b, const ir_machine *pm, const struct mcut *mc,
                    int32_t *A, int32_t *M, int32_t count, int32_t *pos,
                    int32_t *tmp, struct mtree *t, int32_t depth)
{
	if (count == 1) {
		pos[A[0]] = M[0];
		return;
	}
	t->start[t->n] = (int32_t)(M - t->base);
	t->count[t->n] = count;
	t->depth[t->n++] = depth;
	int32_t s1 = machine_split(mc, M, count, tmp);
	/* terminal propagation: each group leans to the half nearer the
	 * groups it talks to that are placed already */
	int32_t r0 = M[s1 / 2], r1 = M[s1 + (count - s1) / 2],
	        k = pm->ranks_per_node;
	for (int32_t i = 0; i < count; i++) {
		const struct wgraph *g = b->g;
		int32_t v = A[i];
		int64_t p = 0;
		for (int64_t j = g->off[v]; j < g->off[v + 1]; j++) {
			int32_t w = g->adj[j];
			if (pos[w] < 0)
				continue;
			p += g->w[j] * (ir_hops(pm, r1 * k, pos[w] * k) -
			                ir_hops(pm, r0 * k, pos[w] * k));
		}
		b->pref[v] = p / PLACE_CUT_SCALE; /* exact: p has the scale */
	}
	bisect(b, A, count, s1, b->queue);
	map_rec(b, pm, mc, A, M, s1, pos, tmp, t, depth + 1);
	map_rec(b, pm, mc, A + s1, M + s1, count - s1, pos, tmp, t, depth + 1);
}

/* ---- refinement -------------------------------------------------------- */

/* The refinement's state: the loads the groups' messages put on each
 * link of pm, with a histogram of the links' phases for the maximum. */
struct refine {
	const ir_machine *pm;
	int32_t k;
	const struct wedge *e;
	int64_t ne;
	int64_t *inc_off; /* [ng + 1]: messages of each group */
	int64_t *inc;     /* their indices */
	int32_t *pos, *inv;
	uint64_t *load;  /* [nlinks] */
	uint64_t *hist;  /* [maxp + 1]: links by phases */
	uint64_t hmax;   /* hist's last index */
	uint32_t maxp;   /* the busiest link's phases */
	uint64_t sumsq;  /* sum of squared loads */
	uint64_t *links; /* a route */
	uint32_t *mark;  /* [ne]: stamps */
	uint32_t stamp;
	/* each message's route where it sits now, or NULL (too large):
	 * removing a message and the hot test then need no routing */
	uint32_t *route; /* a pool: message i's route at route + roff[i]
	                    (links fit: PLACE_MAX_LINKS) */
	uint32_t *spare; /* the pool's size again, to compact into */
	int64_t *roff;   /* [ne] */
	int32_t *rlen;   /* [ne] */
	int32_t *rcap;   /* [ne]: room at roff[i] */
	int64_t pused, pcap;
	int rmax;
	/* try_swap's scratch with the cache: the two groups' messages and
	 * their routes at the new places */
	int64_t *list;
	uint32_t *scratch;
	uint32_t *links32; /* [rmax]: a route, without the cache */
	int32_t *slen;
	bool unit; /* every link's capacity is one message a phase */
	uint32_t *cap; /* [nlinks]: ir_link_capacity, when not unit */
	/* try_swap's judging with the cache: each touched link's change
	 * of load, the links touched, stamped in lmark */
	uint64_t nlinks;
	int64_t *delta;   /* [nlinks] */
	uint32_t *lmark;  /* [nlinks] */
	uint32_t lstamp;
	uint32_t *touched; /* [2 * (2 maxdeg + 1) * rmax] */
};

/* Message i's route at the groups' current nodes into out; its length
 * returned. */
static int route32(struct refine *f, int64_t i, uint32_t *out)
{
	const struct wedge *e = &f->e[i];
	int h = ir_route(f->pm, f->pos[e->a] * f->k, f->pos[e->b] * f->k,
	                 f->links);

	for (int j = 0; j < h; j++)
		out[j] = (uint32_t)f->links[j];
	return h;
}

/* Message i's route at the groups' current nodes, into *links; its
 * length returned.  Cached when f->route is set (the cache is refreshed
 * by apply's additions and try_swap's kept swaps). */
static int route_of(struct refine *f, int64_t i, const uint32_t **links)
{
	if (f->route) {
		*links = f->route + f->roff[i];
		return f->rlen[i];
	}
	*links = f->links32;
	return route32(f, i, f->links32);
}

static void cache_drop(struct refine *f)
{
	free(f->route);
	free(f->spare);
	f->route = f->spare = NULL;
}

/* Store r (h links) as message i's route in the pool: in its room when
 * it fits, else at the pool's end, compacting the pool (into spare) or
 * doubling it when full.  Out of memory or past PLACE_ROUTE_CACHE, the
 * cache is dropped and routes are computed each time. */
static void cache_put(struct refine *f, int64_t i, const uint32_t *r, int h)
{
	if (!f->route)
		return;
	if (h > f->rcap[i]) {
		if (f->pused + h > f->pcap) { /* compact */
			int64_t u = 0;
			for (int64_t m = 0; m < f->ne; m++) {
				memcpy(f->spare + u, f->route + f->roff[m],
				       (size_t)f->rlen[m] * sizeof *f->spare);
				f->roff[m] = u;
				f->rcap[m] = f->rlen[m];
				u += f->rlen[m];
			}
			uint32_t *t = f->route;
			f->route = f->spare;
			f->spare = t;
			f->pused = u;
		}
		if (f->pused + h > f->pcap) { /* grow */
			int64_t cap = 2 * (f->pused + h);
			uint32_t *a = NULL, *b = NULL;
			if ((uint64_t)cap <= PLACE_ROUTE_CACHE) {
				a = realloc(f->route, (size_t)cap * sizeof *a);
				if (a)
					f->route = a;
				b = realloc(f->spare, (size_t)cap * sizeof *b);
				if (b)
					f->spare = b;
			}
			if (!a || !b) {
				cache_drop(f);
				return;
			}
			f->pcap = cap;
		}
		f->roff[i] = f->pused;
		f->rcap[i] = h;
		f->pused += h;
	}
	memcpy(f->route + f->roff[i], r, (size_t)h * sizeof *r);
	f->rlen[i] = h;
}

/* A link's phases under load (ir_link_phases, inline, its capacity
 * looked up once per link in cap), at most hmax. */
static uint32_t phases_of(const struct refine *f, uint64_t l, uint64_t load)
{
	uint64_t p = f->unit ? load : (load + f->cap[l] - 1) / f->cap[l];
	return p > f->hmax ? (uint32_t)f->hmax : (uint32_t)p;
}

/* Add (sign 1) or remove (sign -1) w messages on the h links. */
static void apply_links(struct refine *f, const uint32_t *links, int h,
                        uint64_t w, int sign)
{
	for (int j = 0; j < h; j++) {
		uint64_t l = links[j], old = f->load[l];
		uint64_t nw = sign > 0 ? old + w : old - w;
		uint32_t po = phases_of(f, l, old), pn = phases_of(f, l, nw);
		f->load[l] = nw;
		f->hist[po]--;
		f->hist[pn]++;
		f->sumsq += nw * nw - old * old;
		if (pn > f->maxp)
			f->maxp = pn;
	}
	while (f->maxp > 0 && f->hist[f->maxp] == 0)
		f->maxp--;
}

/* Add (sign 1) or remove (sign -1) message i's load. */
static void apply(struct refine *f, int64_t i, int sign)
{
	const struct wedge *e = &f->e[i];
	const uint32_t *links;
	int h;

	if (sign > 0 && f->route) { /* a new place: route it, cache it */
		h = route32(f, i, f->links32);
		links = f->links32;
		cache_put(f, i, links, h);
	} else {
		h = route_of(f, i, &links);
	}
	apply_links(f, links, h, (uint64_t)e->w, sign);
}

/* Add or remove every message of groups u and v (once each). */
static void apply_pair(struct refine *f, int32_t u, int32_t v, int sign)
{
	uint32_t st = ++f->stamp;
	int32_t g[2] = {u, v};

	for (int t = 0; t < 2; t++)
		for (int64_t i = f->inc_off[g[t]]; i < f->inc_off[g[t] + 1];
		     i++) {
			int64_t m = f->inc[i];
			if (f->mark[m] == st)
				continue;
			f->mark[m] = st;
			apply(f, m, sign);
		}
}

static void swap_groups(struct refine *f, int32_t u, int32_t v)
{
	int32_t pu = f->pos[u], pv = f->pos[v];
	f->pos[u] = pv;
	f->pos[v] = pu;
	f->inv[pv] = u;
	f->inv[pu] = v;
}

/* Link l's change of load in the swap stamped ls, from 0 when the swap
 * first touches it (then listed in touched, *nt of them). */
static inline int64_t *delta_of(struct refine *f, uint32_t l, uint32_t ls,
                                int64_t *nt)
{
	if (f->lmark[l] != ls) {
		f->lmark[l] = ls;
		f->delta[l] = 0;
		f->touched[(*nt)++] = l;
	}
	return &f->delta[l];
}

/* Try swapping groups u and v: kept when (busiest link's phases, sum of
 * squared loads) falls.  With the route cache, the loads are not
 * touched to judge it: each link's change (delta_of) is summed from the
 * messages' cached routes and their new ones (routed once, into
 * scratch, until one pushes a link past the busiest phases), and
 * applied, with the new routes cached, only when the swap is kept. */
static bool try_swap(struct refine *f, int32_t u, int32_t v)
{
	uint32_t maxp = f->maxp, st = ++f->stamp;
	uint64_t sq = f->sumsq;
	int32_t g[2] = {u, v}, n = 0;

	if (!f->route) {
		apply_pair(f, u, v, -1);
		swap_groups(f, u, v);
		apply_pair(f, u, v, 1);
		if (f->maxp < maxp || (f->maxp == maxp && f->sumsq < sq))
			return true;
		apply_pair(f, u, v, -1);
		swap_groups(f, u, v);
		apply_pair(f, u, v, 1);
		return false;
	}
	for (int t = 0; t < 2; t++) /* the two groups' messages, once */
		for (int64_t i = f->inc_off[g[t]]; i < f->inc_off[g[t] + 1];
		     i++) {
			int64_t m = f->inc[i];
			if (f->mark[m] != st) {
				f->mark[m] = st;
				f->list[n++] = m;
			}
		}
	/* each touched link's change of load, judged without touching the
	 * loads: a swap that is undone (most are) costs one pass over its
	 * links instead of four.  The old routes come off first, so a link
	 * past the busiest phases while the new ones go on stays past them:
	 * the swap is undone there, before routing the rest */
	uint32_t ls = ++f->lstamp;
	int64_t nt = 0;
	if (ls == 0) { /* the stamps wrapped: start again */
		memset(f->lmark, 0, f->nlinks * sizeof *f->lmark);
		ls = f->lstamp = 1;
	}
	for (int32_t i = 0; i < n; i++) {
		int64_t w = f->e[f->list[i]].w;
		const uint32_t *links;
		int h = route_of(f, f->list[i], &links);
		for (int j = 0; j < h; j++) {
			uint32_t l = links[j];
			*delta_of(f, l, ls, &nt) -= w;
		}
	}
	swap_groups(f, u, v);
	for (int32_t i = 0; i < n; i++) {
		int64_t w = f->e[f->list[i]].w;
		uint32_t *r = f->scratch + (size_t)i * f->rmax;
		int h = f->slen[i] = route32(f, f->list[i], r);
		for (int j = 0; j < h; j++) {
			uint32_t l = r[j];
			*delta_of(f, l, ls, &nt) += w;
			if (phases_of(f, l, f->load[l] + (uint64_t)f->delta[l]) >
			    maxp) {
				swap_groups(f, u, v);
				return false;
			}
		}
	}
	swap_groups(f, u, v);
	uint64_t was = 0, now = 0, sq2 = sq;
	for (int64_t t = 0; t < nt; t++) {
		uint32_t l = f->touched[t];
		uint64_t old = f->load[l], nw = old + (uint64_t)f->delta[l];
		uint32_t po = phases_of(f, l, old), pn = phases_of(f, l, nw);
		was += po == maxp;
		now += pn == maxp;
		sq2 += nw * nw - old * old;
	}
	/* no link went past the busiest phases: kept when they fall (no
	 * link is left at them), or stay and the sum of squared loads
	 * falls */
	if (f->hist[maxp] - was + now > 0 && sq2 >= sq)
		return false;
	for (int64_t t = 0; t < nt; t++) {
		uint32_t l = f->touched[t];
		uint64_t old = f->load[l], nw = old + (uint64_t)f->delta[l];
		f->hist[phases_of(f, l, old)]--;
		f->hist[phases_of(f, l, nw)]++;
		f->load[l] = nw;
	}
	f->sumsq = sq2;
	while (f->maxp > 0 && f->hist[f->maxp] == 0)
		f->maxp--;
	swap_groups(f, u, v);
	for (int32_t i = 0; i < n; i++)
		cache_put(f, f->list[i], f->scratch + (size_t)i * f->rmax,
		          f->slen[i]);
	return true;
}

/* Whether message i crosses a link at the busiest phases. */
static bool is_hot(struct refine *f, int64_t i)
{
	const uint32_t *links;
	int h = route_of(f, i, &links);

	for (int j = 0; j < h; j++)
		if (phases_of(f, links[j], f->load[links[j]]) >= f->maxp)
			return true;
	return false;
}

/* Swap passes over the groups whose messages cross the busiest links:
 * each is tried against groups sitting near one of its partners in the
 * machine's order, and against a random one.  The number kept. */
static uint32_t refine_run(struct refine *f, int32_t ng, const int32_t *order,
                           const int32_t *idx, struct ir_rng *rng)
{
	int32_t *hot = malloc((size_t)ng * sizeof *hot);
	uint8_t *is = calloc((size_t)ng, 1);
	uint32_t kept = 0;

	if (!hot || !is)
		goto out;
	for (int pass = 0; pass < PLACE_PASSES && f->maxp > 0; pass++) {
		int32_t nh = 0;
		uint32_t before = kept;
		memset(is, 0, (size_t)ng);
		for (int64_t i = 0; i < f->ne; i++)
			if (is_hot(f, i)) {
				is[f->e[i].a] = is[f->e[i].b] = 1;
			}
		for (int32_t g = 0; g < ng; g++)
			if (is[g])
				hot[nh++] = g;
		for (int32_t i = nh - 1; i > 0; i--) { /* shuffle */
			int32_t j = (int32_t)ir_rng_below(rng, (uint64_t)i + 1);
			int32_t t = hot[i];
			hot[i] = hot[j];
			hot[j] = t;
		}
		for (int32_t h = 0; h < nh; h++) {
			int32_t u = hot[h];
			int64_t deg = f->inc_off[u + 1] - f->inc_off[u];
			for (int t = 0; t < PLACE_TRIES; t++) {
				int32_t v;
				if (t == PLACE_TRIES - 1 || deg == 0) {
					v = (int32_t)ir_rng_below(rng,
					                          (uint64_t)ng);
				} else {
					const struct wedge *e =
					        &f->e[f->inc[f->inc_off[u] +
					                     (int64_t)ir_rng_below(
					                             rng,
					                             (uint64_t)
					                                     deg)]];
					int32_t w = e->a == u ? e->b : e->a;
					int64_t at =
					        idx[f->pos[w]] +
					        (int64_t)ir_rng_below(rng, 5) -
					        2;
					if (at < 0 || at >= ng)
						continue;
					v = f->inv[order[at]];
				}
				if (v != u && try_swap(f, u, v))
					kept++;
			}
		}
		if (kept == before)
			break;
	}
out:
	free(hot);
	free(is);
	return kept;
}

/* ---- the whole ------------------------------------------------------------
 */

/* The verifier's bound (into *r) and the hops of every message of x,
 * rank r on node[r] of m. */
static int eval_report(const ir_machine *m, const ir_matrix *x,
                       const int32_t *node, ir_report *r, uint64_t *hops)
{
	ir_machine pm = *m;
	ir_comm c = {.coll = IR_IRREGULAR, .matrix = (ir_matrix *)x};
	int32_t bad;
	char err[128];
	int rc;

	pm.place = ir_place_from_nodes(node, m->nranks, m->nnodes,
	                               m->ranks_per_node, &rc, &bad, err,
	                               sizeof err);
	if (!pm.place)
		return rc;
	pm.placement = IR_PLACE_MAP;
	memset(r, 0, sizeof *r);
	rc = ir_lower_bound(&pm, &c, true, 0, 1, r);
	if (rc == 0) {
		uint64_t h = 0;
		for (int32_t s = 0; s < x->n; s++)
			for (int64_t i = x->row[s]; i < x->row[s + 1]; i++) {
				int t = ir_hops(&pm, s, x->dst[i]);
				h += t > 0 ? (uint64_t)t : 0;
			}
		*hops = h;
	}
	ir_place_release(pm.place);
	return rc;
}

int sch_place_eval(const ir_machine *m, const ir_matrix *x, const int32_t *node,
                   uint32_t *bound, uint32_t *link, uint64_t *hops)
{
	ir_report r;
	int rc = eval_report(m, x, node, &r, hops);

	if (rc == 0) {
		*bound = r.lb_phases;
		if (link)
			*link = r.lb_link;
	}
	return rc;
}

/* The groups' directed message counts, merged (messages inside a group
 * stay on its node and are dropped). */
static int group_msgs(const ir_matrix *x, const int32_t *group,
                      struct wedge **out, int64_t *nout)
{
	struct wedge *e = malloc(((size_t)x->nnz + 1) * sizeof *e);
	int64_t k = 0, m = 0;

	if (!e)
		return CCP_ENOMEM;
	for (int32_t s = 0; s < x->n; s++)
		for (int64_t i = x->row[s]; i < x->row[s + 1]; i++)
			if (group[s] != group[x->dst[i]])
				e[k++] = (struct wedge){group[s],
				                        group[x->dst[i]], 1};
	qsort(e, (size_t)k, sizeof *e, wedge_cmp);
	for (int64_t i = 0; i < k; i++) {
		if (m && e[m - 1].a == e[i].a && e[m - 1].b == e[i].b)
			e[m - 1].w++;
		else
			e[m++] = e[i];
	}
	*out = e;
	*nout = m;
	return 0;
}

/* Set up and run the refinement of pos (ng groups on ng nodes). */
static int refine_place(const ir_machine *pm, const struct wedge *e, int64_t ne,
                        int32_t ng, int32_t *pos, const int32_t *order,
                        const int32_t *idx, struct ir_rng *rng, uint32_t *kept)
{
	struct refine f = {.pm = pm,
	                   .k = pm->ranks_per_node,
	                   .e = e,
	                   .ne = ne,
	                   .pos = pos};
	uint64_t nl = ir_nlinks(pm), total = 0;
	int rc = CCP_ENOMEM;

	*kept = 0;
	for (int64_t i = 0; i < ne; i++)
		total += e[i].w;
	if (nl > PLACE_MAX_LINKS || (int64_t)total > PLACE_MAX_MSGS || ne == 0)
		return 0;
	f.hmax = total + 1;
	f.inc_off = calloc((size_t)ng + 1, sizeof *f.inc_off);
	f.inc = malloc(2 * ((size_t)ne + 1) * sizeof *f.inc);
	f.inv = malloc((size_t)ng * sizeof *f.inv);
	f.load = calloc(nl, sizeof *f.load);
	f.hist = calloc(f.hmax + 1, sizeof *f.hist);
	f.links = malloc(((size_t)ir_route_max(pm) + 1) * sizeof *f.links);
	f.links32 = malloc(((size_t)ir_route_max(pm) + 1) * sizeof *f.links32);
	f.mark = calloc((size_t)ne, sizeof *f.mark);
	if (!f.inc_off || !f.inc || !f.inv || !f.load || !f.hist || !f.links ||
	    !f.links32 || !f.mark)
		goto out;
	for (int64_t i = 0; i < ne; i++) {
		f.inc_off[e[i].a + 1]++;
		f.inc_off[e[i].b + 1]++;
	}
	int64_t maxdeg = 0;
	for (int32_t g = 0; g < ng; g++) {
		if (f.inc_off[g + 1] > maxdeg)
			maxdeg = f.inc_off[g + 1];
		f.inc_off[g + 1] += f.inc_off[g];
	}
	f.unit = pm->topo != IR_FAT_TREE && pm->topo != IR_GRAPH &&
	         pm->topo != IR_DRAGONFLY;
	if (!f.unit) {
		if (!(f.cap = malloc(nl * sizeof *f.cap)))
			goto out;
		for (uint64_t l = 0; l < nl; l++)
			f.cap[l] = (uint32_t)ir_link_capacity(pm, l);
	}
	f.rmax = ir_route_max(pm);
	f.pcap = 4 * ne + f.rmax;
	if ((uint64_t)f.pcap <= PLACE_ROUTE_CACHE) {
		size_t sl = 2 * (size_t)maxdeg + 1;
		f.route = malloc((size_t)f.pcap * sizeof *f.route);
		f.spare = malloc((size_t)f.pcap * sizeof *f.spare);
		f.roff = calloc((size_t)ne + 1, sizeof *f.roff);
		f.rlen = calloc((size_t)ne + 1, sizeof *f.rlen);
		f.rcap = calloc((size_t)ne + 1, sizeof *f.rcap);
		f.list = malloc(sl * sizeof *f.list);
		f.slen = malloc(sl * sizeof *f.slen);
		f.scratch = malloc(sl * (size_t)f.rmax * sizeof *f.scratch);
		f.nlinks = nl;
		f.delta = malloc(nl * sizeof *f.delta);
		f.lmark = calloc(nl, sizeof *f.lmark);
		f.touched = malloc(2 * sl * (size_t)f.rmax * sizeof *f.touched);
		if (!f.route || !f.spare || !f.roff || !f.rlen || !f.rcap ||
		    !f.list || !f.slen || !f.scratch || !f.delta || !f.lmark ||
		    !f.touched)
			cache_drop(&f); /* then without the cache */
	}
	{
		int64_t *fill = malloc(((size_t)ng + 1) * sizeof *fill);
		if (!fill)
			goto out;
		memcpy(fill, f.inc_off, (size_t)ng * sizeof *fill);
		for (int64_t i = 0; i < ne; i++) {
			f.inc[fill[e[i].a]++] = i;
			f.inc[fill[e[i].b]++] = i;
		}
		free(fill);
	}
	for (int32_t g = 0; g < ng; g++)
		f.inv[pos[g]] = g;
	f.hist[0] = nl;
	for (int64_t i = 0; i < ne; i++)
		apply(&f, i, 1);
	*kept = refine_run(&f, ng, order, idx, rng);
	rc = 0;
out:
	free(f.inc_off);
	free(f.inc);
	free(f.inv);
	free(f.load);
	free(f.hist);
	free(f.links);
	free(f.links32);
	free(f.mark);
	free(f.cap);
	cache_drop(&f);
	free(f.roff);
	free(f.rlen);
	free(f.rcap);
	free(f.list);
	free(f.slen);
	free(f.scratch);
	free(f.delta);
	free(f.lmark);
	free(f.touched);
	return rc;
}

int sch_place(const ir_machine *m, const ir_matrix *x, uint64_t seed,
              int32_t *node, struct sch_place_stats *st, char *err,
              size_t errlen)
{
	struct sch_place_stats s = {0};
	int32_t n = m->nranks, nn = m->nnodes, k = m->ranks_per_node;
	ir_machine pm = *m;
	struct ir_rng rng;
	struct wgraph gr = {0}, gg = {0};
	struct wedge *we = NULL;
	struct wedge *gm = NULL;
	struct bis b = {0}, b2 = {0};
	struct mcut mc = {0};
	int32_t *group = NULL, *S = NULL, *M = NULL, *pos = NULL, *ident = NULL,
	        *tmp = NULL, *order = NULL, *inv = NULL;
	struct mtree tree = {0};
	int64_t ngm = 0;
	ir_report r0, r1;
	int rc = CCP_ENOMEM;

	if (!x || x->n != n) {
		snprintf(err, errlen,
		         "the pattern has %d ranks; the machine has %d",
		         x ? (int)x->n : 0, (int)n);
		return CCP_EINVAL;
	}
	k = k < 1 ? 1 : k;
	pm.placement = IR_PLACE_BLOCK;
	pm.place = NULL;
	ir_rng_seed(&rng, seed);
	group = malloc((size_t)n * sizeof *group);
	S = malloc((size_t)n * sizeof *S);
	ident = malloc((size_t)n * sizeof *ident);
	M = malloc((size_t)nn * sizeof *M);
	pos = malloc((size_t)nn * sizeof *pos);
	order = malloc((size_t)nn * sizeof *order);
	tmp = malloc(2 * ((size_t)n + 1) * sizeof *tmp);
	we = malloc(2 * ((size_t)x->nnz + 1) * sizeof *we);
	inv = malloc((size_t)nn * sizeof *inv);
	tree.start = malloc((size_t)nn * sizeof *tree.start);
	tree.count = malloc((size_t)nn * sizeof *tree.count);
	tree.depth = malloc((size_t)nn * sizeof *tree.depth);
	if (!group || !S || !ident || !M || !pos || !order || !tmp || !we ||
	    !inv || !tree.start || !tree.count || !tree.depth)
		goto out;
	for (int32_t r = 0; r < n; r++)
		ident[r] = ir_node_of(m, r);

	/* group: ranks into nodes' worth, when nodes hold several */
	for (int32_t r = 0; r < n; r++)
		S[r] = group[r] = r;
	if (k > 1) {
		size_t ne = 0;
		for (int32_t sr = 0; sr < n; sr++)
			for (int64_t i = x->row[sr]; i < x->row[sr + 1]; i++)
				we[ne++] = (struct wedge){sr, x->dst[i], 1};
		if ((rc = wgraph_build(n, we, ne, &gr)) != 0 ||
		    (rc = bis_init(&b, &gr, &rng)) != 0)
			goto out;
		rc = CCP_ENOMEM;
		group_rec(&b, S, n, nn, 0, k, group);
	}

	/* map: the groups' graph onto the machine */
	if ((rc = group_msgs(x, group, &gm, &ngm)) != 0)
		goto out;
	for (int64_t i = 0; i < ngm; i++)
		we[i] = (struct wedge){gm[i].a, gm[i].b,
		                       gm[i].w * PLACE_CUT_SCALE};
	if ((rc = wgraph_build(nn, we, (size_t)ngm, &gg)) != 0 ||
	    (rc = bis_init(&b2, &gg, &rng)) != 0 ||
	    (rc = mcut_init(&pm, &mc, order)) != 0)
		goto out;
	rc = CCP_ENOMEM;
	if (!(b2.pref = calloc((size_t)nn, sizeof *b2.pref)))
		goto out;
	for (int32_t g = 0; g < nn; g++) {
		S[g] = g;
		pos[g] = -1;
	}
	memcpy(M, order, (size_t)nn * sizeof *M);
	tree.base = M;
	map_rec(&b2, &pm, &mc, S, M, nn, pos, tmp, &tree, 0);
	/* M is now the order the bisections left: near in it, near on the
	 * machine */
	for (int32_t i = 0; i < nn; i++)
		mc.idx[M[i]] = i;

	/* orient: whole boxes turned to face their neighbours */
	for (int32_t g = 0; g < nn; g++)
		inv[pos[g]] = g;
	if ((rc = orient_boxes(&gg, &pm, &mc, M, &tree, pos, inv)) != 0)
		goto out;

	/* refine: swaps against the busiest links */
	if ((rc = refine_place(&pm, gm, ngm, nn, pos, M, mc.idx, &rng,
	                       &s.swaps)) != 0)
		goto out;
	for (int32_t r = 0; r < n; r++)
		node[r] = pos[group[r]];

	/* judged by the verifier's bound, against the machine's own */
	if ((rc = eval_report(m, x, ident, &r0, &s.hops_before)) != 0 ||
	    (rc = eval_report(m, x, node, &r1, &s.hops_after)) != 0)
		goto out;
	if (r1.lb_phases > r0.lb_phases ||
	    (r1.lb_phases == r0.lb_phases && s.hops_after > s.hops_before)) {
		memcpy(node, ident, (size_t)n * sizeof *node);
		r1 = r0;
		s.hops_after = s.hops_before;
		s.kept_identity = true;
	}
	s.bound_before = r0.lb_phases;
	s.link_before = r0.lb_link;
	s.bound_after = r1.lb_phases;
	s.link_after = r1.lb_link;
	s.degree = r1.lb_degree;
	if (st)
		*st = s;
	rc = 0;
out:
	if (rc == CCP_ENOMEM)
		snprintf(err, errlen, "out of memory");
	wgraph_free(&gr);
	wgraph_free(&gg);
	bis_fini(&b);
	bis_fini(&b2);
	free(mc.coord);
	free(mc.idx);
	free(group);
	free(S);
	free(M);
	free(pos);
	free(ident);
	free(tmp);
	free(order);
	free(we);
	free(gm);
	free(inv);
	free(tree.start);
	free(tree.count);
	free(tree.depth);
	return rc;
}
