/*
 * coloring.c - three irregular schedulers beyond 004's randomised ones:
 *
 *   color       the optimal node-contention-free schedule.  The messages
 *               are the edges of a bipartite multigraph senders x
 *               receivers; König's theorem colours it with exactly
 *               Delta colours (Delta its largest degree), and each
 *               colour is one phase.  Ranks with k ports are split into
 *               k copies first, which gives exactly max ceil(degree /
 *               ports) phases: the verifier's degree bound, met on every
 *               input.  Euler partitions halve even degrees; odd ones
 *               take one colour more, then drop its smallest class along
 *               alternating paths.  Links are not considered.
 *   link_aware  node- and link-contention-free: the most congested
 *               messages first (the sum of the loads on their route),
 *               each placed into the earliest phase where its ports and
 *               every link of its route are free (phase bitsets); the
 *               colouring, repaired of its link conflicts, competes
 *               where the degree bound dominates; iterated greedy and a
 *               tabu search then remove phases on small patterns.
 *               Where the sender picks paths, fat trees are routed as
 *               Clos networks and dragonflies filled phase by phase.
 *               Close to max(ceil(Delta/k), L), L the largest number of
 *               routes over one directed link.
 *   sized       node- and link-free, and cheap under 004 section 2.1's
 *               cost tau + M*phi per phase (M the phase's largest
 *               message): big messages share phases, small ones too.
 *
 * docs/coloring.md gives the reasoning and the measured numbers.
 */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "irregular_int.h"
#include "rng.h"
#include "sched.h"

#define NONE UINT32_MAX
/* Most route entries the first-fit keeps whole (128 MiB); past it they
 * are kept run-coded (FF_RUNS). */
#define FF_STORE (UINT64_C(1) << 25)
/* Most words of the run-coded lists kept past FF_STORE (512 MiB, only
 * the pages written are used); past it routes are computed again. */
#define FF_RUNS (UINT64_C(1) << 27)
/* Resource visits the iterated-greedy rounds of link_aware may spend:
 * about a dozen first fits of a 4,096-message pattern on a hypercube,
 * none of a 262,144-message one on a 64x64 mesh. */
#define IG_WORK (UINT64_C(1) << 23)
/* Resource tests the tabu search may spend, and the most (resource,
 * phase) and (message, phase) cells it may keep. */
#define LS_WORK  (UINT64_C(1) << 20)
#define LS_CELLS (UINT64_C(1) << 22)

/* 004 section 2.1 costs on the iPSC/860, used when the machine has none:
 * tau per phase (us) and phi per byte (us/B). */
#define IPSC_TAU 150.0
#define IPSC_PHI 0.36

/* ---- shared helpers ------------------------------------------------- */

/* Transfers a rank may send (and, separately, receive) in one phase: the
 * verifier's rule, at least 1. */
static uint32_t port_cap(const ir_machine *m, int32_t r)
{
	int c = ir_port_limit(m, r);
	return c > 0 ? (uint32_t)c : 1;
}

static uint32_t div_up32(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

/* The sender of every message (CSR rows expanded); NULL when out of
 * memory. */
static int32_t *message_sources(const ir_matrix *x)
{
	int32_t *src = malloc(((size_t)x->nnz + 1) * sizeof *src);
	if (!src)
		return NULL;
	for (int32_t s = 0; s < x->n; s++)
		for (int64_t k = x->row[s]; k < x->row[s + 1]; k++)
			src[k] = s;
	return src;
}

/* Append the phases to p: message k goes to phase ph[k] (< nph), one
 * transfer per message carrying block (s, d), on path path[k] (path may
 * be NULL: the routing's); empty phases are skipped, and inside a phase
 * transfers keep message (sender) order. */
static int emit_phases(ir_plan *p, const ir_matrix *x, const int32_t *src,
                       const uint32_t *path, const uint32_t *ph, uint32_t nph)
{
	int rc = 0;
	uint32_t nnz = (uint32_t)x->nnz;
	uint32_t *start = calloc((size_t)nph + 1, sizeof *start);
	uint32_t *order = malloc(((size_t)nnz + 1) * sizeof *order);
	if (!start || !order) {
		rc = CCP_ENOMEM;
		goto out;
	}
	for (uint32_t k = 0; k < nnz; k++)
		start[ph[k] + 1]++;
	for (uint32_t c = 0; c < nph; c++)
		start[c + 1] += start[c];
	for (uint32_t k = 0; k < nnz; k++)
		order[start[ph[k]]++] = k;
	/* start[c] is now the end of phase c */
	for (uint32_t c = 0, k = 0; c < nph; c++) {
		if (k == start[c])
			continue;
		if ((rc = ir_plan_phase(p)) != 0)
			goto out;
		for (; k < start[c]; k++) {
			uint32_t e = order[k];
			ir_block b = {src[e], x->dst[e]};
			if ((rc = ir_plan_add_sized(p, b.origin, b.index, &b,
			                            1, 0, x->bytes[e])) != 0)
				goto out;
			if (path)
				p->transfers[p->ntransfers - 1].path = path[e];
		}
	}
out:
	free(start);
	free(order);
	return rc;
}

/* Stable LSD radix sort of n (key, value) pairs, ascending by key; byte
 * digits on which every key agrees are skipped, so small keys cost two
 * or three passes.  tk and tv are scratch of n entries each. */
static void radix_sort(uint64_t *key, uint32_t *val, uint64_t *tk, uint32_t *tv,
                       uint32_t n)
{
	uint64_t all_or = 0, all_and = ~UINT64_C(0);
	for (uint32_t i = 0; i < n; i++) {
		all_or |= key[i];
		all_and &= key[i];
	}
	for (int shift = 0; shift < 64; shift += 8) {
		if ((((all_or ^ all_and) >> shift) & 0xff) == 0)
			continue;
		uint32_t cnt[257] = {0};
		for (uint32_t i = 0; i < n; i++)
			cnt[((key[i] >> shift) & 0xff) + 1]++;
		for (int b = 0; b < 256; b++)
			cnt[b + 1] += cnt[b];
		for (uint32_t i = 0; i < n; i++) {
			uint32_t j = cnt[(key[i] >> shift) & 0xff]++;
			tk[j] = key[i];
			tv[j] = val[i];
		}
		memcpy(key, tk, (size_t)n * sizeof *key);
		memcpy(val, tv, (size_t)n * sizeof *val);
	}
}

/* ---- a uint64 -> uint32 hash map (open addressing) ------------------ */

/* Used for link ids from huge id spaces (a switch has n^2) and for the
 * per-phase use counts of ranks with more than one port. */
struct u64map {
	uint64_t *key; /* UINT64_MAX: empty */
	uint32_t *val;
	uint64_t mask; /* capacity - 1 */
	uint64_t count;
};

static int u64map_init(struct u64map *h, uint64_t expect)
{
	uint64_t cap = 64;
	while (cap < 2 * expect)
		cap *= 2;
	h->key = malloc(cap * sizeof *h->key);
	h->val = malloc(cap * sizeof *h->val);
	h->mask = cap - 1;
	h->count = 0;
	if (!h->key || !h->val)
		return CCP_ENOMEM;
	memset(h->key, 0xff, cap * sizeof *h->key);
	return 0;
}

static void u64map_fini(struct u64map *h)
{
	free(h->key);
	free(h->val);
	memset(h, 0, sizeof *h);
}

/* The slot of k: its entry, or the empty slot it would take. */
static uint64_t u64map_slot(const struct u64map *h, uint64_t k)
{
	uint64_t i = ir_mix64(k) & h->mask;
	while (h->key[i] != UINT64_MAX && h->key[i] != k)
		i = (i + 1) & h->mask;
	return i;
}

/* The value slot of k, inserted with value v0 if absent; NULL when out of
 * memory.  The pointer is good until the next insertion. */
static uint32_t *u64map_get(struct u64map *h, uint64_t k, uint32_t v0)
{
	uint64_t i = u64map_slot(h, k);
	if (h->key[i] == k)
		return &h->val[i];
	if (2 * (h->count + 1) > h->mask + 1) {
		struct u64map t;
		if (u64map_init(&t, h->mask + 1) != 0) {
			u64map_fini(&t);
			return NULL;
		}
		for (uint64_t j = 0; j <= h->mask; j++)
			if (h->key[j] != UINT64_MAX) {
				uint64_t s = u64map_slot(&t, h->key[j]);
				t.key[s] = h->key[j];
				t.val[s] = h->val[j];
			}
		t.count = h->count;
		u64map_fini(h);
		*h = t;
		i = u64map_slot(h, k);
	}
	h->key[i] = k;
	h->val[i] = v0;
	h->count++;
	return &h->val[i];
}

static void u64map_clear(struct u64map *h)
{
	if (h->key)
		memset(h->key, 0xff, (h->mask + 1) * sizeof *h->key);
	h->count = 0;
}

/* ---- König colouring of the bipartite message graph ----------------- */

/* The graph: a rank with c ports becomes min(c, degree) copies on each
 * side, its messages dealt round robin among them, so every copy has
 * degree at most T = max ceil(degree / ports), and a proper edge
 * colouring of the copies' graph with T colours puts at most c messages
 * of a rank in one colour.  Sender copies are vertices [0, nl), receiver
 * copies [nl, nv). */
struct bgraph {
	uint32_t nl, nv;   /* left vertices, all vertices */
	uint32_t t;        /* T, the colours needed */
	uint32_t *lv, *rv; /* per message: its sender and receiver copy */
	uint32_t *map;     /* per vertex: its id inside the current step,
	                      NONE between steps */
	uint32_t *cnt;     /* per vertex: scratch degree, 0 between steps */
	uint32_t *colour;  /* per message: the result */
};

static void bgraph_fini(struct bgraph *g)
{
	free(g->lv);
	free(g->rv);
	free(g->map);
	free(g->cnt);
	free(g->colour);
	memset(g, 0, sizeof *g);
}

/* Build the copies' graph of ne messages between n units: message k
 * from unit lu[k] to unit ru[k], unit u taking cap[u] messages in one
 * colour on each side. */
static int bgraph_units(struct bgraph *g, uint32_t n, uint32_t ne,
                        const uint32_t *lu, const uint32_t *ru,
                        const uint32_t *cap)
{
	int rc = CCP_ENOMEM;
	uint32_t nv = 0;
	uint32_t *outdeg = calloc((size_t)n + 1, sizeof *outdeg);
	uint32_t *indeg = calloc((size_t)n + 1, sizeof *indeg);
	uint32_t *lbase = malloc(((size_t)n + 1) * sizeof *lbase);
	uint32_t *rbase = malloc(((size_t)n + 1) * sizeof *rbase);
	uint32_t *lpos = calloc((size_t)n + 1, sizeof *lpos);
	uint32_t *rpos = calloc((size_t)n + 1, sizeof *rpos);
	memset(g, 0, sizeof *g);
	g->lv = malloc(((size_t)ne + 1) * sizeof *g->lv);
	g->rv = malloc(((size_t)ne + 1) * sizeof *g->rv);
	g->colour = malloc(((size_t)ne + 1) * sizeof *g->colour);
	if (!outdeg || !indeg || !lbase || !rbase || !lpos || !rpos ||
	    !g->lv || !g->rv || !g->colour)
		goto out;
	for (uint32_t k = 0; k < ne; k++) {
		outdeg[lu[k]]++;
		indeg[ru[k]]++;
	}
	for (int side = 0; side < 2; side++) {
		uint32_t *deg = side ? indeg : outdeg;
		uint32_t *base = side ? rbase : lbase;
		for (uint32_t u = 0; u < n; u++) {
			uint32_t c = cap[u] ? cap[u] : 1;
			base[u] = nv;
			nv += deg[u] < c ? deg[u] : c;
			if (deg[u] && div_up32(deg[u], c) > g->t)
				g->t = div_up32(deg[u], c);
		}
		if (side == 0)
			g->nl = nv;
	}
	/* a unit's messages dealt round robin among its copies */
	for (uint32_t k = 0; k < ne; k++) {
		uint32_t a = lu[k], b = ru[k];
		uint32_t ca = cap[a] ? cap[a] : 1, cb = cap[b] ? cap[b] : 1;
		g->lv[k] = lbase[a] + lpos[a]++ % (outdeg[a] < ca ? outdeg[a] : ca);
		g->rv[k] = rbase[b] + rpos[b]++ % (indeg[b] < cb ? indeg[b] : cb);
	}
	g->nv = nv;
	g->map = malloc(((size_t)nv + 1) * sizeof *g->map);
	g->cnt = calloc((size_t)nv + 1, sizeof *g->cnt);
	if (!g->map || !g->cnt)
		goto out;
	memset(g->map, 0xff, ((size_t)nv + 1) * sizeof *g->map);
	rc = 0;
out:
	free(outdeg);
	free(indeg);
	free(lbase);
	free(rbase);
	free(lpos);
	free(rpos);
	return rc;
}

/* Build the copies' graph of x on machine m: ranks with their ports. */
static int bgraph_init(struct bgraph *g, const ir_machine *m,
                       const ir_matrix *x)
{
	int rc = CCP_ENOMEM;
	uint32_t nnz = (uint32_t)x->nnz, n = (uint32_t)x->n;
	uint32_t *lu = malloc(((size_t)nnz + 1) * sizeof *lu);
	uint32_t *cap = malloc(((size_t)n + 1) * sizeof *cap);
	memset(g, 0, sizeof *g);
	if (lu && cap) {
		for (uint32_t s = 0; s < n; s++) {
			cap[s] = port_cap(m, (int32_t)s);
			for (int64_t k = x->row[s]; k < x->row[s + 1]; k++)
				lu[k] = s;
		}
		rc = bgraph_units(g, n, nnz, lu, (const uint32_t *)x->dst,
		                  cap);
	}
	free(lu);
	free(cap);
	return rc;
}

/* Number the vertices of messages e[0..ne) 0, 1, ... in g->map; glob
 * (2 ne entries) gets them back in order.  Returns their count. */
static uint32_t bgraph_local(struct bgraph *g, const uint32_t *e, uint32_t ne,
                             uint32_t *glob)
{
	uint32_t nvl = 0;
	for (uint32_t i = 0; i < ne; i++) {
		uint32_t ends[2] = {g->lv[e[i]], g->rv[e[i]]};
		for (int j = 0; j < 2; j++)
			if (g->map[ends[j]] == NONE) {
				g->map[ends[j]] = nvl;
				glob[nvl++] = ends[j];
			}
	}
	return nvl;
}

static void bgraph_unlocal(struct bgraph *g, const uint32_t *glob, uint32_t nvl)
{
	for (uint32_t v = 0; v < nvl; v++)
		g->map[glob[v]] = NONE;
}

/* Largest degree in the subgraph of messages e[0..ne). */
static uint32_t bgraph_degree(struct bgraph *g, const uint32_t *e, uint32_t ne)
{
	uint32_t d = 0;
	for (uint32_t i = 0; i < ne; i++) {
		uint32_t a = ++g->cnt[g->lv[e[i]]], b = ++g->cnt[g->rv[e[i]]];
		d = a > d ? a : d;
		d = b > d ? b : d;
	}
	for (uint32_t i = 0; i < ne; i++)
		g->cnt[g->lv[e[i]]] = g->cnt[g->rv[e[i]]] = 0;
	return d;
}

/* Euler partition: reorder e[0..ne) so that e[0..*n1) and e[*n1..ne)
 * each have at most ceil(deg/2) messages at every vertex of degree deg.
 * Odd-degree vertices get a dummy edge to a dummy vertex of the other
 * side (and the two dummies one between them if needed), so every degree
 * is even; then closed trails are walked from each vertex until its
 * edges are used, labelling edges alternately.  A closed trail in a
 * bipartite graph has even length, so every vertex gets as many edges
 * of each label as it has visits, plus or minus its dummy edge. */
static int euler_split(struct bgraph *g, uint32_t *e, uint32_t ne, uint32_t *n1)
{
	int rc = CCP_ENOMEM;
	size_t cap = 3 * (size_t)ne + 4; /* edges, dummies included */
	uint32_t *glob = malloc((2 * (size_t)ne + 2) * sizeof *glob);
	uint32_t *a = malloc(cap * sizeof *a), *b = malloc(cap * sizeof *b);
	uint32_t *deg = NULL, *off = NULL, *ptr = NULL, *adj = NULL;
	uint8_t *lab = malloc(cap);
	uint32_t nvl = 0;
	if (!glob || !a || !b || !lab)
		goto out;
	nvl = bgraph_local(g, e, ne, glob);
	uint32_t dl = nvl, dr = nvl + 1, nall = nvl + 2, m = ne;
	deg = calloc((size_t)nall + 1, sizeof *deg);
	off = calloc((size_t)nall + 2, sizeof *off);
	ptr = malloc(((size_t)nall + 1) * sizeof *ptr);
	if (!deg || !off || !ptr)
		goto out;
	for (uint32_t i = 0; i < ne; i++) {
		a[i] = g->map[g->lv[e[i]]];
		b[i] = g->map[g->rv[e[i]]];
		deg[a[i]]++;
		deg[b[i]]++;
	}
	for (uint32_t v = 0; v < nvl; v++)
		if (deg[v] % 2) {
			bool left = glob[v] < g->nl;
			a[m] = left ? v : dl;
			b[m] = left ? dr : v;
			deg[a[m]]++;
			deg[b[m]]++;
			m++;
		}
	if (deg[dl] % 2) { /* then deg[dr] is odd too: both are ne mod 2 */
		a[m] = dl;
		b[m] = dr;
		m++;
	}
	for (uint32_t j = 0; j < m; j++) {
		off[a[j] + 1]++;
		off[b[j] + 1]++;
	}
	for (uint32_t v = 0; v < nall; v++)
		off[v + 1] += off[v];
	/* adjacency: (edge, other end, twin entry) triples, so a walk
	 * reads one list and strikes the edge from the other end's */
	adj = malloc(3 * ((size_t)off[nall] + 1) * sizeof *adj);
	if (!adj)
		goto out;
	memcpy(ptr, off, (size_t)nall * sizeof *ptr);
	for (uint32_t j = 0; j < m; j++) {
		uint32_t ia = ptr[a[j]]++, ib = ptr[b[j]]++;
		uint32_t *pa = adj + 3 * (size_t)ia, *pb = adj + 3 * (size_t)ib;
		pa[0] = pb[0] = j;
		pa[1] = b[j];
		pb[1] = a[j];
		pa[2] = ib;
		pb[2] = ia;
	}
	memcpy(ptr, off, (size_t)nall * sizeof *ptr);
	for (uint32_t v = 0; v < nall; v++) {
		uint32_t x = v;
		uint8_t par = 0;
		for (;;) {
			uint32_t p = ptr[x], end = off[x + 1];
			while (p < end && adj[3 * (size_t)p] == NONE)
				p++;
			ptr[x] = p;
			if (p == end)
				break; /* only at v: every degree is even */
			uint32_t *q = adj + 3 * (size_t)p;
			lab[q[0]] = par;
			par ^= 1;
			adj[3 * (size_t)q[2]] = NONE;
			q[0] = NONE;
			x = q[1];
		}
	}
	/* stable partition: label 0 first (a and b reused as buffers) */
	uint32_t k0 = 0, k1 = 0;
	for (uint32_t i = 0; i < ne; i++) {
		if (lab[i] == 0)
			a[k0++] = e[i];
		else
			b[k1++] = e[i];
	}
	memcpy(e, a, (size_t)k0 * sizeof *e);
	memcpy(e + k0, b, (size_t)k1 * sizeof *e);
	*n1 = k0;
	rc = 0;
out:
	if (glob)
		bgraph_unlocal(g, glob, nvl);
	free(glob);
	free(a);
	free(b);
	free(lab);
	free(deg);
	free(off);
	free(ptr);
	free(adj);
	return rc;
}

/* Alternating-path recolouring on a subgraph, with local vertex ids.
 * Each vertex keeps its coloured edges in a small table keyed by colour
 * (a direct map when it can hold all t colours at no more than twice
 * the space of its degree, else open addressing), and a bitset of which
 * colours below its degree it uses; memory stays O(messages) even when
 * a hot rank makes t huge. */
struct kc {
	uint32_t nv;            /* vertices */
	uint32_t t;             /* colours */
	uint32_t *lv, *rv;      /* per local edge: its ends */
	uint32_t *deg;          /* per vertex degree */
	size_t *toff;           /* per vertex table offset (nv+1 entries) */
	uint32_t *tab;          /* local edge ids, NONE for empty */
	size_t *boff;           /* per vertex offset of its used-colour bits */
	uint64_t *used;         /* bit c set: colour c < deg is used here */
	uint32_t *colour;       /* per local edge, NONE while uncoloured */
	uint32_t *path, *path2; /* scratch for two alternating paths */
};

static void kc_fini(struct kc *k)
{
	free(k->lv);
	free(k->rv);
	free(k->deg);
	free(k->toff);
	free(k->tab);
	free(k->boff);
	free(k->used);
	free(k->colour);
	free(k->path);
	free(k->path2);
	memset(k, 0, sizeof *k);
}

/* Record coloured edge e at vertex v. */
static void kc_insert(struct kc *k, uint32_t v, uint32_t e)
{
	uint32_t *tab = k->tab + k->toff[v];
	size_t mask = k->toff[v + 1] - k->toff[v] - 1;
	uint32_t c = k->colour[e];
	size_t i = c & mask;
	while (tab[i] != NONE)
		i = (i + 1) & mask;
	tab[i] = e;
	if (c < k->deg[v])
		k->used[k->boff[v] + c / 64] |= UINT64_C(1) << (c % 64);
}

/* Set up the subgraph of messages e[0..ne) of g for t colours, with the
 * colours in pre (per position; NONE: to be coloured) recorded. */
static int kc_init(struct kc *k, struct bgraph *g, const uint32_t *e,
                   uint32_t ne, uint32_t t, const uint32_t *pre)
{
	int rc = CCP_ENOMEM;
	uint32_t *glob = malloc((2 * (size_t)ne + 2) * sizeof *glob);
	uint32_t nv = 0;
	memset(k, 0, sizeof *k);
	k->t = t;
	k->lv = malloc(((size_t)ne + 1) * sizeof *k->lv);
	k->rv = malloc(((size_t)ne + 1) * sizeof *k->rv);
	k->colour = malloc(((size_t)ne + 1) * sizeof *k->colour);
	if (!glob || !k->lv || !k->rv || !k->colour)
		goto out;
	nv = bgraph_local(g, e, ne, glob);
	k->nv = nv;
	k->deg = calloc((size_t)nv + 1, sizeof *k->deg);
	k->toff = malloc(((size_t)nv + 1) * sizeof *k->toff);
	k->boff = malloc(((size_t)nv + 1) * sizeof *k->boff);
	k->path = malloc(((size_t)nv + 1) * sizeof *k->path);
	k->path2 = malloc(((size_t)nv + 1) * sizeof *k->path2);
	if (!k->deg || !k->toff || !k->boff || !k->path || !k->path2)
		goto out;
	for (uint32_t i = 0; i < ne; i++) {
		k->lv[i] = g->map[g->lv[e[i]]];
		k->rv[i] = g->map[g->rv[e[i]]];
		k->deg[k->lv[i]]++;
		k->deg[k->rv[i]]++;
		k->colour[i] = pre[i];
	}
	size_t tsize = 0, bsize = 0;
	for (uint32_t v = 0; v < nv; v++) {
		size_t cap = 2, d2 = 2 * (size_t)k->deg[v];
		while (cap < d2)
			cap *= 2;
		if (t <= d2) /* direct map */
			while (cap < t)
				cap *= 2;
		k->toff[v] = tsize;
		k->boff[v] = bsize;
		tsize += cap;
		bsize += ((size_t)k->deg[v] + 63) / 64;
	}
	k->toff[nv] = tsize;
	k->boff[nv] = bsize;
	k->tab = malloc((tsize + 1) * sizeof *k->tab);
	k->used = calloc(bsize + 1, sizeof *k->used);
	if (!k->tab || !k->used)
		goto out;
	memset(k->tab, 0xff, (tsize + 1) * sizeof *k->tab);
	for (uint32_t i = 0; i < ne; i++)
		if (k->colour[i] != NONE) {
			kc_insert(k, k->lv[i], i);
			kc_insert(k, k->rv[i], i);
		}
	rc = 0;
out:
	if (glob)
		bgraph_unlocal(g, glob, nv);
	free(glob);
	return rc;
}

/* The edge of colour c at vertex v, or NONE. */
static uint32_t kc_find(const struct kc *k, uint32_t v, uint32_t c)
{
	const uint32_t *tab = k->tab + k->toff[v];
	size_t mask = k->toff[v + 1] - k->toff[v] - 1;
	if (mask + 1 >= k->t) /* a direct map */
		return tab[c];
	for (size_t i = c & mask;; i = (i + 1) & mask) {
		uint32_t e = tab[i];
		if (e == NONE || k->colour[e] == c)
			return e;
	}
}

/* Forget coloured edge e at vertex v (backward-shift deletion, so
 * lookups need no tombstones). */
static void kc_remove(struct kc *k, uint32_t v, uint32_t e)
{
	uint32_t *tab = k->tab + k->toff[v];
	size_t mask = k->toff[v + 1] - k->toff[v] - 1;
	uint32_t c = k->colour[e];
	size_t i = c & mask;
	if (c < k->deg[v])
		k->used[k->boff[v] + c / 64] &= ~(UINT64_C(1) << (c % 64));
	if (mask + 1 >= k->t) { /* a direct map: nothing was displaced */
		tab[i] = NONE;
		return;
	}
	while (tab[i] != e)
		i = (i + 1) & mask;
	for (size_t j = (i + 1) & mask; tab[j] != NONE; j = (j + 1) & mask) {
		size_t h = k->colour[tab[j]] & mask;
		/* tab[j] may fill the hole at i unless its home lies in the
		 * cyclic range (i, j] */
		bool stays = i <= j ? (h > i && h <= j) : (h > i || h <= j);
		if (!stays) {
			tab[i] = tab[j];
			i = j;
		}
	}
	tab[i] = NONE;
}

/* A colour below lim not used at v; with an uncoloured edge at v and
 * lim = deg(v) there is one, v having at most deg-1 coloured edges. */
static uint32_t kc_free(const struct kc *k, uint32_t v, uint32_t lim)
{
	const uint64_t *u = k->used + k->boff[v];
	for (uint32_t w = 0; (uint64_t)w * 64 < lim; w++)
		if (~u[w]) {
			uint32_t c = w * 64 + (uint32_t)__builtin_ctzll(~u[w]);
			return c < lim ? c : NONE;
		}
	return NONE;
}

/* A colour free at both u and v among those below both degrees, or
 * NONE. */
static uint32_t kc_common_free(const struct kc *k, uint32_t u, uint32_t v)
{
	uint32_t lim = k->deg[u] < k->deg[v] ? k->deg[u] : k->deg[v];
	const uint64_t *a = k->used + k->boff[u], *b = k->used + k->boff[v];
	for (uint32_t w = 0; (uint64_t)w * 64 < lim; w++) {
		uint64_t f = ~(a[w] | b[w]);
		if (f) {
			uint32_t c = w * 64 + (uint32_t)__builtin_ctzll(f);
			return c < lim ? c : NONE;
		}
	}
	return NONE;
}

/* Swap colours a and b on the len edges of path. */
static void kc_flip(struct kc *k, const uint32_t *path, uint32_t len,
                    uint32_t a, uint32_t b)
{
	for (uint32_t i = 0; i < len; i++) {
		kc_remove(k, k->lv[path[i]], path[i]);
		kc_remove(k, k->rv[path[i]], path[i]);
	}
	for (uint32_t i = 0; i < len; i++) {
		uint32_t f = path[i];
		k->colour[f] = k->colour[f] == a ? b : a;
		kc_insert(k, k->lv[f], f);
		kc_insert(k, k->rv[f], f);
	}
}

/* Colour edge e (ends u on the left, v on the right).  If no colour is
 * free at both ends, take a free at u and b free at v.  The a/b
 * alternating path from v (a first) cannot reach u: it enters left
 * vertices by a-edges and u has none; swapping a and b on it frees a at
 * v (König's argument).  Symmetrically the b/a path from u frees b at u.
 * Both are walked in step and the shorter one is swapped, which cuts
 * the long tail of path lengths. */
static void kc_colour(struct kc *k, uint32_t e)
{
	uint32_t u = k->lv[e], v = k->rv[e];
	uint32_t a = kc_common_free(k, u, v);
	if (a == NONE) {
		a = kc_free(k, u, k->deg[u]);
		uint32_t b = kc_free(k, v, k->deg[v]), ab = a ^ b;
		uint32_t n1 = 0, n2 = 0, x1 = v, x2 = u, c1 = a, c2 = b;
		for (;;) {
			uint32_t f = kc_find(k, x1, c1);
			if (f == NONE) {
				kc_flip(k, k->path, n1, a, b);
				break;
			}
			k->path[n1++] = f;
			x1 = k->lv[f] == x1 ? k->rv[f] : k->lv[f];
			c1 ^= ab;
			f = kc_find(k, x2, c2);
			if (f == NONE) {
				kc_flip(k, k->path2, n2, a, b);
				a = b;
				break;
			}
			k->path2[n2++] = f;
			x2 = k->lv[f] == x2 ? k->rv[f] : k->lv[f];
			c2 ^= ab;
		}
	}
	k->colour[e] = a;
	kc_insert(k, u, e);
	kc_insert(k, v, e);
}

/* Colour messages e[0..ne) with colours c0, c0+1, ...: as many as the
 * subgraph's largest degree D, so exactly T at the top.  Even D: an
 * Euler partition halves every degree, and each half is coloured with
 * D/2 colours.  Odd D: the same with D+1 colours, then the smallest
 * colour class is recoloured edge by edge into the other D along
 * alternating paths (only about ne/(D+1) edges need one).  O(ne log D)
 * for the partitions, plus the paths. */
static int colour_range(struct bgraph *g, uint32_t *e, uint32_t ne, uint32_t c0)
{
	uint32_t d = bgraph_degree(g, e, ne), n1, h;
	int rc;
	if (d <= 1) {
		for (uint32_t i = 0; i < ne; i++)
			g->colour[e[i]] = c0;
		return 0;
	}
	h = (d + 1) / 2;
	if ((rc = euler_split(g, e, ne, &n1)) != 0 ||
	    (rc = colour_range(g, e, n1, c0)) != 0 ||
	    (rc = colour_range(g, e + n1, ne - n1, c0 + h)) != 0)
		return rc;
	if (d % 2 == 0)
		return 0;
	/* 2h = d + 1 colours used: drop the smallest class */
	uint32_t *size = calloc(2 * (size_t)h, sizeof *size);
	uint32_t *pre = malloc(((size_t)ne + 1) * sizeof *pre);
	struct kc k;
	memset(&k, 0, sizeof k);
	if (!size || !pre) {
		rc = CCP_ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < ne; i++)
		size[g->colour[e[i]] - c0]++;
	uint32_t drop = 0;
	for (uint32_t c = 1; c < 2 * h; c++)
		drop = size[c] < size[drop] ? c : drop;
	/* local colours: the dropped one out, the last one takes its id */
	for (uint32_t i = 0; i < ne; i++) {
		uint32_t c = g->colour[e[i]] - c0;
		pre[i] = c == drop ? NONE : c == d ? drop : c;
	}
	if ((rc = kc_init(&k, g, e, ne, d, pre)) != 0)
		goto out;
	for (uint32_t i = 0; i < ne; i++)
		if (pre[i] == NONE)
			kc_colour(&k, i);
	for (uint32_t i = 0; i < ne; i++)
		g->colour[e[i]] = c0 + k.colour[i];
out:
	kc_fini(&k);
	free(size);
	free(pre);
	return rc;
}

/* Colour every message of x: colour[k] < *t for each message k, *t the
 * degree bound max ceil(degree / ports), met exactly.  colour is the
 * caller's (nnz entries). */
static int colour_messages(const ir_machine *m, const ir_matrix *x,
                           uint32_t *colour, uint32_t *t)
{
	struct bgraph g;
	uint32_t nnz = (uint32_t)x->nnz;
	uint32_t *e = malloc(((size_t)nnz + 1) * sizeof *e);
	int rc = bgraph_init(&g, m, x);
	*t = g.t;
	if (rc == 0 && !e)
		rc = CCP_ENOMEM;
	if (rc == 0) {
		for (uint32_t k = 0; k < nnz; k++)
			e[k] = k;
		rc = colour_range(&g, e, nnz, 0);
	}
	if (rc == 0)
		memcpy(colour, g.colour, (size_t)nnz * sizeof *colour);
	bgraph_fini(&g);
	free(e);
	return rc;
}

/* ---- routing whole phases through a fat tree ------------------------ */

/* A fat tree XGFT(h; m; w) as the scheduler needs it (ir.h ir_machine
 * keeps it in dims and levels): per level l = 1..h its children m_l,
 * parents w_l, link capacity cap_l, and the products W_l = w_1..w_l,
 * M_l = m_1..m_l. */
struct tree {
	int h;
	int64_t m[IR_MAX_TREE + 1], w[IR_MAX_TREE + 1], cap[IR_MAX_TREE + 1];
	int64_t W[IR_MAX_TREE + 1], M[IR_MAX_TREE + 1];
};

static void tree_shape(const ir_machine *m, struct tree *t)
{
	t->h = m->ndims;
	t->W[0] = t->M[0] = 1;
	for (int l = 1; l <= t->h; l++) {
		t->m[l] = m->dims[l - 1];
		t->w[l] = m->dims[IR_MAX_TREE + l - 1];
		t->cap[l] = m->levels[(l - 1) / 2][(l - 1) % 2];
		t->cap[l] = t->cap[l] > 0 ? t->cap[l] : 1;
		t->W[l] = t->W[l - 1] * t->w[l];
		t->M[l] = t->M[l - 1] * t->m[l];
	}
}

/* Route every phase's messages (message k in phase ph[k] < nph) through
 * a fat tree whose sender picks paths, as a Clos network is routed: at
 * each level l, the messages still climbing form a bipartite multigraph
 * between (phase, the sender's ancestor at level l-1) and (phase, the
 * receiver's ancestor at level l-1), and a König colouring of it with
 * each vertex taking cap_l messages a colour gives each message its up
 * port at level l; it comes down through the same port, so no link of
 * the level carries more than its capacity in a phase.  A message whose
 * colour is not a port (the level has fewer parents than the colouring
 * needs colours, as in a tapered tree) gets no path: out[k] = false.
 * Otherwise path[k] is its path, and on a tree of full bisection every
 * message gets one, so each phase needs no link beyond its capacity. */
static int tree_route_phases(const ir_machine *m, const ir_matrix *x,
                             const int32_t *src, const uint32_t *ph,
                             uint32_t nph, uint32_t *path, bool *out)
{
	struct tree t;
	uint32_t nnz = (uint32_t)x->nnz, ne = 0;
	int rc = CCP_ENOMEM;
	tree_shape(m, &t);
	int64_t *vs = malloc(((size_t)nnz + 1) * sizeof *vs);
	int64_t *vd = malloc(((size_t)nnz + 1) * sizeof *vd);
	uint8_t *top = malloc((size_t)nnz + 1);
	uint32_t *e = malloc(((size_t)nnz + 1) * sizeof *e);
	uint32_t *lu = malloc(((size_t)nnz + 1) * sizeof *lu);
	uint32_t *ru = malloc(((size_t)nnz + 1) * sizeof *ru);
	uint32_t *cap = NULL;
	if (!vs || !vd || !top || !e || !lu || !ru)
		goto out;
	for (uint32_t k = 0; k < nnz; k++) {
		int32_t a = ir_node_of(m, src[k]), b = ir_node_of(m, x->dst[k]);
		top[k] = 0;
		for (int i = 1; i <= t.h; i++)
			if (a / t.M[i - 1] % t.m[i] != b / t.M[i - 1] % t.m[i])
				top[k] = (uint8_t)i;
		vs[k] = a;
		vd[k] = b;
		path[k] = 0;
		out[k] = true;
	}
	for (int l = 1; l <= t.h; l++) {
		int64_t S = t.W[l - 1], nv = S * (t.M[t.h] / t.M[l - 1]);
		uint64_t units = (uint64_t)nph * (uint64_t)nv;
		if (units > UINT32_MAX / 2) {
			rc = CCP_ERANGE;
			goto out;
		}
		ne = 0;
		for (uint32_t k = 0; k < nnz; k++)
			if (out[k] && top[k] >= l) {
				lu[ne] = (uint32_t)((uint64_t)ph[k] * nv + vs[k]);
				ru[ne] = (uint32_t)((uint64_t)ph[k] * nv + vd[k]);
				e[ne++] = k;
			}
		if (ne == 0)
			break;
		free(cap);
		if (!(cap = malloc(((size_t)units + 1) * sizeof *cap)))
			goto out;
		for (uint64_t u = 0; u < units; u++)
			cap[u] = (uint32_t)t.cap[l];
		struct bgraph g;
		if ((rc = bgraph_units(&g, (uint32_t)units, ne, lu, ru, cap)) ==
		    0) {
			uint32_t *idx = lu; /* reused: the edges 0..ne-1 */
			for (uint32_t i = 0; i < ne; i++)
				idx[i] = i;
			rc = colour_range(&g, idx, ne, 0);
		}
		for (uint32_t i = 0; rc == 0 && i < ne; i++) {
			uint32_t k = e[i];
			int64_t p = g.colour[i], key = ir_node_of(m, x->dst[k]);
			if (p >= t.w[l]) {
				out[k] = false;
				continue;
			}
			uint32_t digit =
			        (uint32_t)((p - key / S % t.w[l] + t.w[l]) % t.w[l]);
			path[k] += digit * (uint32_t)t.W[l - 1];
			/* both ends climb to their ancestors through port p */
			vs[k] = vs[k] % S + S * (p + t.w[l] * (vs[k] / S / t.m[l]));
			vd[k] = vd[k] % S + S * (p + t.w[l] * (vd[k] / S / t.m[l]));
		}
		bgraph_fini(&g);
		if (rc)
			goto out;
	}
	rc = 0;
out:
	free(vs);
	free(vd);
	free(top);
	free(e);
	free(lu);
	free(ru);
	free(cap);
	return rc;
}

/* ---- path choice ---------------------------------------------------- */

/* Paths tried for a message in each round besides its own and path 0,
 * and the most rounds. */
#define PATH_TRIES  8
#define PATH_ROUNDS 4

/* The phases the links of route r (h links) would need with one more
 * message each, floored at floor: the first key of a path's choice; *sum
 * gets the second, the links' loads over their capacities. */
static uint32_t path_cost(const ir_machine *m, const uint32_t *load,
                          const uint64_t *r, int h, uint32_t floor,
                          uint64_t *sum)
{
	uint32_t worst = floor;
	*sum = 0;
	for (int i = 0; i < h; i++) {
		uint32_t c = (uint32_t)ir_link_capacity(m, r[i]);
		uint32_t t = ir_link_phases(m, r[i], (uint64_t)load[r[i]] + 1);
		worst = t > worst ? t : worst;
		*sum += load[r[i]] / c;
	}
	return worst;
}

/* Add (+1) or remove (-1) route r from the link loads. */
static void path_count(uint32_t *load, const uint64_t *r, int h, int dir)
{
	for (int i = 0; i < h; i++)
		load[r[i]] += (uint32_t)dir;
}

/* Where the sender picks paths (ir_routing_chooses), pick one for every
 * message so that the busiest link needs as few phases as can be found,
 * and no fewer than the degree bound, which no path changes: start from
 * the routing's paths (0), then in rounds take each message off its
 * path and put it on the cheapest of its own, path 0 and PATH_TRIES
 * others drawn from (seed, message, round); cheapest by the busiest
 * link's phases above the floor, then by the load along the path (so
 * a detour is taken only where it relieves a link that sets the bound).
 * Rounds stop when none moves a message.  *out gets the paths (malloc'd),
 * or NULL where the routing picks. */
static int choose_paths(const ir_machine *m, const ir_matrix *x,
                        const int32_t *src, uint64_t seed, uint32_t **out)
{
	uint32_t nnz = (uint32_t)x->nnz, floor = 0;
	uint64_t nl = ir_nlinks(m);
	int maxh = ir_route_max(m), rc = CCP_ENOMEM;

	*out = NULL;
	if (!ir_routing_chooses(m) || nnz == 0 || nl > (UINT64_C(1) << 28))
		return 0;
	if (m->topo == IR_FAT_TREE) /* routed phase by phase instead */
		return (*out = calloc(nnz, sizeof **out)) ? 0 : CCP_ENOMEM;
	uint32_t *path = calloc(nnz, sizeof *path);
	uint32_t *load = calloc(nl, sizeof *load);
	uint32_t *deg = calloc(2 * (size_t)x->n, sizeof *deg);
	uint64_t *r = malloc(((size_t)maxh + 1) * sizeof *r);
	uint64_t *best = malloc(((size_t)maxh + 1) * sizeof *best);
	if (!path || !load || !deg || !r || !best)
		goto out;
	for (uint32_t k = 0; k < nnz; k++) {
		path_count(load, r, ir_route(m, src[k], x->dst[k], r), +1);
		deg[src[k]]++;
		deg[x->n + x->dst[k]]++;
	}
	for (int32_t i = 0; i < 2 * x->n; i++) {
		uint32_t t = div_up32(deg[i], port_cap(m, i % x->n));
		floor = t > floor ? t : floor;
	}
	for (int round = 0; round < PATH_ROUNDS; round++) {
		uint32_t moved = 0;
		for (uint32_t k = 0; k < nnz; k++) {
			int32_t s = src[k], d = x->dst[k];
			uint32_t n = ir_path_count(m, s, d), cur = path[k];
			if (n < 2)
				continue;
			int h = ir_route_via(m, s, d, cur, r), bh = h;
			path_count(load, r, h, -1);
			uint64_t bsum, sum;
			uint32_t bw = path_cost(m, load, r, h, floor, &bsum);
			uint32_t pick = cur;
			memcpy(best, r, (size_t)h * sizeof *r);
			for (uint32_t j = 0; j <= PATH_TRIES && j <= n; j++) {
				uint32_t q = j == 0 ? 0
				                    : (uint32_t)(ir_mix64(
				                                   seed ^ (uint64_t)k << 24 ^
				                                   (uint64_t)round << 8 ^ j) %
				                           n);
				if (q == cur)
					continue;
				h = ir_route_via(m, s, d, q, r);
				uint32_t w = path_cost(m, load, r, h, floor, &sum);
				if (w < bw || (w == bw && sum < bsum)) {
					bw = w;
					bsum = sum;
					bh = h;
					pick = q;
					memcpy(best, r, (size_t)h * sizeof *r);
				}
			}
			path_count(load, best, bh, +1);
			moved += pick != cur;
			path[k] = pick;
		}
		if (moved == 0)
			break;
	}
	*out = path;
	path = NULL;
	rc = 0;
out:
	free(path);
	free(load);
	free(deg);
	free(r);
	free(best);
	return rc;
}

/* ---- first fit over phase-occupancy bitsets ------------------------- */

/* Resources: the send side of each rank (0..n-1), the receive side
 * (n..2n-1), then the directed links (2n..).  Occupancy is a bitset per
 * resource, 64 phases a word, stored word-major: bits[w * nres + r] bit
 * i is set when resource r is full in phase 64w + i.  Growing appends
 * rows and moves nothing; links numbered along the machine's lines put
 * the straight stretches of a route in few cache lines of a row. */
struct ff {
	const ir_machine *m;
	const ir_matrix *x;
	const int32_t *src;
	uint32_t *path;      /* per message: the path it takes (choose_paths),
	                        NULL where the routing picks */
	bool choose;         /* placing a message also picks its path */
	uint64_t seed;       /* draws the paths a placement tries */
	uint64_t work;       /* resource visits of one first fit */
	uint32_t *res2;      /* scratch: resources of the best path so far */
	int32_t n;
	uint32_t nres;       /* resources */
	uint32_t *lmap;      /* link id -> resource, NONE; dense id spaces */
	struct u64map lhash; /* the same for huge id spaces (switch) */
	uint32_t *load;      /* per resource: messages over it (links), or
	                        ceil(degree / ports) (rank sides) */
	uint32_t *cap;       /* per rank ports, NULL when every rank has 1 */
	struct u64map cnt;   /* (rank side, phase) -> transfers, with cap */
	uint64_t *bits;      /* occupancy, nw rows of nres words */
	uint32_t nw;         /* rows */
	uint32_t *low;       /* per resource: first row not all ones */
	uint64_t *route;     /* scratch: link ids of one route */
	uint32_t *res;       /* scratch: resources of one message */
	uint64_t *cong;      /* per message: sum of its resources' loads */
	uint64_t *roff;      /* per message: where its resources start in rl */
	uint32_t *rlen;      /* per message: how many there are */
	uint32_t *rl;        /* every message's resources, busiest first,
	                        when they fit FF_STORE entries; else NULL */
	uint32_t *rz;        /* else the same lists run-coded (ff_runs), when
	                        they fit FF_RUNS words; else NULL and routes
	                        are computed again */
	uint64_t *zoff;      /* per message: where its runs start in rz */
	uint64_t runs;       /* room for rz, in words (FF_RUNS) */
	uint16_t *zb;        /* per message: where its busiest resource is
	                        in the decoded runs, swapped to the front */
	uint32_t nphases;    /* phases used so far */
};

static void ff_fini(struct ff *f)
{
	free(f->path);
	free(f->lmap);
	u64map_fini(&f->lhash);
	free(f->load);
	free(f->cap);
	u64map_fini(&f->cnt);
	free(f->bits);
	free(f->low);
	free(f->route);
	free(f->res);
	free(f->res2);
	free(f->cong);
	free(f->roff);
	free(f->rlen);
	free(f->rl);
	free(f->rz);
	free(f->zoff);
	free(f->zb);
	memset(f, 0, sizeof *f);
}

/* Make rows up to w exist (half as many again, at least w + 4), zeroed. */
static int ff_grow(struct ff *f, uint32_t w)
{
	if (w < f->nw)
		return 0;
	uint32_t c = f->nw + f->nw / 2 + 4;
	if (c <= w + 4)
		c = w + 4;
	size_t old = (size_t)f->nw * f->nres, all = (size_t)c * f->nres;
	uint64_t *q = realloc(f->bits, (all + 1) * sizeof *q);
	if (!q)
		return CCP_ENOMEM;
	memset(q + old, 0, (all - old) * sizeof *q);
	f->bits = q;
	f->nw = c;
	return 0;
}

/* Empty every phase, keeping the allocation. */
static void ff_reset(struct ff *f)
{
	if (f->bits)
		memset(f->bits, 0, (size_t)f->nw * f->nres * sizeof *f->bits);
	memset(f->low, 0, (size_t)f->nres * sizeof *f->low);
	u64map_clear(&f->cnt);
	f->nphases = 0;
}

/* The resource of link id l, numbered on first sight; NONE when out of
 * memory. */
static uint32_t ff_link(struct ff *f, uint64_t l, uint32_t *next)
{
	uint32_t *r;
	if (f->lmap)
		r = &f->lmap[l];
	else if ((r = u64map_get(&f->lhash, l, NONE)) == NULL)
		return NONE;
	if (*r == NONE)
		*r = (*next)++;
	return *r;
}

/* Number every link of a dense id space up front, so the routing pass
 * only looks them up.  Mesh and torus: line by line (each dimension and
 * direction, then each line of the machine along it, in order), so a
 * route's straight stretches get consecutive resources; a link is found
 * as the route between two neighbours.  Other topologies: in id order,
 * the ids ir_link_ends accepts. */
static int ff_number_links(struct ff *f, uint32_t *next)
{
	const ir_machine *m = f->m;
	int c[IR_MAX_CUBE_DIM] = {0};
	if (m->topo != IR_MESH && m->topo != IR_TORUS) {
		uint64_t nl = ir_nlinks(m);
		for (uint64_t l = 0; l < nl; l++) {
			int32_t a, b;
			if (ir_link_ends(m, l, &a, &b) == 0)
				f->lmap[l] = (*next)++;
		}
		return 0;
	}
	for (int d = 0; d < m->ndims; d++)
		for (int sign = 1; sign >= -1; sign -= 2)
			for (int32_t i = 0; i < m->nranks; i++) {
				/* coordinates of the i-th rank with d fastest
				 */
				int32_t rest = i / m->dims[d];
				c[d] = i % m->dims[d];
				for (int e = 0; e < m->ndims; e++)
					if (e != d) {
						c[e] = rest % m->dims[e];
						rest /= m->dims[e];
					}
				int32_t r = ir_rank_of(m, c);
				int at = c[d] + sign, ext = m->dims[d];
				if (m->topo == IR_TORUS)
					at = (at + ext) % ext;
				if (at < 0 || at >= ext || at == c[d])
					continue;
				int keep = c[d];
				c[d] = at;
				int32_t q = ir_rank_of(m, c);
				c[d] = keep;
				if (ir_route(m, r, q, f->route) == 1 &&
				    ff_link(f, f->route[0], next) == NONE)
					return CCP_ENOMEM;
			}
	return 0;
}

/* Where the busiest of res[0..nr) is (the first of equals); *sum gets
 * the sum of their loads. */
static uint32_t ff_busiest(const struct ff *f, const uint32_t *res,
                           uint32_t nr, uint64_t *sum)
{
	uint32_t b = 0, lb = f->load[res[0]];
	*sum = lb;
	for (uint32_t i = 1; i < nr; i++) {
		uint32_t l = f->load[res[i]];
		*sum += l;
		if (l > lb) {
			lb = l;
			b = i;
		}
	}
	return b;
}

/* Swap res[0] and res[b]. */
static void swap_front(uint32_t *res, uint32_t b)
{
	uint32_t t = res[0];
	res[0] = res[b];
	res[b] = t;
}

/* Move the busiest of res[0..nr) to the front, where a phase test
 * starts (it stops early on a full word); the sum of their loads. */
static uint64_t ff_busiest_first(const struct ff *f, uint32_t *res, uint32_t nr)
{
	uint64_t sum;
	swap_front(res, ff_busiest(f, res, nr, &sum));
	return sum;
}

/* Resources of message k on path q into out (busiest first once the
 * loads are known); their count. */
static uint32_t ff_route_on(struct ff *f, uint32_t k, uint32_t q,
                            uint32_t *out)
{
	int32_t s = f->src[k], d = f->x->dst[k];
	int h = ir_route_via(f->m, s, d, q, f->route);
	uint32_t nr = 0;
	out[nr++] = (uint32_t)s;
	out[nr++] = (uint32_t)(f->n + d);
	for (int i = 0; i < h; i++)
		out[nr++] = f->lmap ? f->lmap[f->route[i]]
		                    : f->lhash.val[u64map_slot(&f->lhash,
		                                               f->route[i])];
	if (f->low)
		ff_busiest_first(f, out, nr);
	return nr;
}

/* Resources of message k routed afresh into f->res; their count. */
static uint32_t ff_route(struct ff *f, uint32_t k)
{
	return ff_route_on(f, k, f->path ? f->path[k] : 0, f->res);
}

/* Run-coding of a resource list, for lists too long to keep whole: a
 * run of resources that step by +1 or -1 (a straight stretch of a mesh
 * or torus route, numbered line by line) is two words, its first
 * resource and its length times 2 plus 1 when it steps down; a lone
 * resource is one word with the top bit set.  Resources stay below
 * 2^31 (ff_init).  Code res[0..nr) into out; the words written. */
#define RUN_ONE (UINT32_C(1) << 31)
static uint32_t ff_runs(const uint32_t *res, uint32_t nr, uint32_t *out)
{
	uint32_t w = 0;
	for (uint32_t i = 0; i < nr;) {
		uint32_t len = 1;
		if (i + 1 < nr &&
		    (res[i + 1] == res[i] + 1 || res[i + 1] + 1 == res[i])) {
			uint32_t down = res[i + 1] + 1 == res[i];
			len = 2;
			while (i + len < nr &&
			       res[i + len] == (down ? res[i + len - 1] - 1
			                             : res[i + len - 1] + 1))
				len++;
			out[w++] = res[i];
			out[w++] = len << 1 | down;
		} else {
			out[w++] = res[i] | RUN_ONE;
		}
		i += len;
	}
	return w;
}

/* Decode the runs z[0..nw) into out; the resources written. */
static uint32_t ff_unruns(const uint32_t *z, uint64_t nw, uint32_t *out)
{
	uint32_t nr = 0;
	for (uint64_t i = 0; i < nw; i++) {
		if (z[i] & RUN_ONE) {
			out[nr++] = z[i] & ~RUN_ONE;
			continue;
		}
		uint32_t r = z[i], len = z[i + 1] >> 1;
		if (z[++i] & 1)
			for (uint32_t j = 0; j < len; j++)
				out[nr++] = r - j;
		else
			for (uint32_t j = 0; j < len; j++)
				out[nr++] = r + j;
	}
	return nr;
}

/* Resources of message k, busiest first; *nr gets their count. */
static uint32_t *ff_resources(struct ff *f, uint32_t k, uint32_t *nr)
{
	if (f->rl) {
		*nr = f->rlen[k];
		return f->rl + f->roff[k];
	}
	if (f->rz) {
		*nr = ff_unruns(f->rz + f->zoff[k], f->zoff[k + 1] - f->zoff[k],
		                f->res);
		swap_front(f->res, f->zb[k]);
		return f->res;
	}
	*nr = ff_route(f, k);
	return f->res;
}

/* Room for n route entries (rl), NULL when out of memory.  From 2 MiB
 * up it is aligned to huge pages and asks the kernel for them: the first
 * fit reads the lists in an order far from theirs, and a TLB miss on
 * each message was a sixth of its time.  Only the pages written count
 * against memory, so room for the longest routes costs nothing more. */
static uint32_t *rl_alloc(uint64_t n)
{
	const size_t huge = (size_t)1 << 21;
	size_t bytes = (size_t)n * sizeof(uint32_t);
	if (bytes < huge)
		return malloc(bytes);
	bytes = (bytes + huge - 1) / huge * huge;
	uint32_t *q = aligned_alloc(huge, bytes);
#ifdef MADV_HUGEPAGE
	if (q)
		(void)madvise(q, bytes, MADV_HUGEPAGE); /* only advice */
#endif
	return q;
}

/* Drop the run-coded lists: routes are computed again. */
static void ff_runs_drop(struct ff *f)
{
	free(f->rz);
	free(f->zoff);
	free(f->zb);
	f->rz = NULL;
	f->zoff = NULL;
	f->zb = NULL;
}

/* The lists of messages 0..k-1, kept whole in rl (links, then the two
 * rank sides), run-coded into a fresh rz in ff_route's order (the rank
 * sides first); *zat gets the words written.  No rz when they do not
 * fit f->runs words. */
static int ff_runs_from(struct ff *f, uint32_t k, uint64_t *zat)
{
	uint32_t nnz = (uint32_t)f->x->nnz;
	f->zoff = malloc(((size_t)nnz + 1) * sizeof *f->zoff);
	f->zb = malloc(((size_t)nnz + 1) * sizeof *f->zb);
	f->rz = rl_alloc(f->runs);
	if (!f->zoff || !f->zb || !f->rz)
		return CCP_ENOMEM;
	*zat = 0;
	for (uint32_t j = 0; j < k; j++) {
		const uint32_t *l = f->rl + f->roff[j];
		uint32_t len = (uint32_t)(f->roff[j + 1] - f->roff[j]);
		if (*zat + len > f->runs) {
			ff_runs_drop(f);
			return 0;
		}
		f->res[0] = l[len - 2];
		f->res[1] = l[len - 1];
		memcpy(f->res + 2, l, (size_t)(len - 2) * sizeof *l);
		f->zoff[j] = *zat;
		*zat += ff_runs(f->res, len, f->rz + *zat);
	}
	return 0;
}

/* Number the links, count the load of each resource and the congestion
 * of each message, and keep the resource lists when they fit store
 * entries (FF_STORE), else run-coded when they fit runs words (FF_RUNS);
 * then every route is computed once. */
static int ff_init(struct ff *f, const ir_machine *m, const ir_matrix *x,
                   const int32_t *src, uint64_t seed, uint64_t store,
                   uint64_t runs)
{
	int rc = CCP_ENOMEM;
	int32_t n = x->n;
	uint32_t nnz = (uint32_t)x->nnz;
	uint64_t nl = ir_nlinks(m);
	int maxh = ir_route_max(m);
	memset(f, 0, sizeof *f);
	f->m = m;
	f->x = x;
	f->src = src;
	f->n = n;
	f->route = malloc(((size_t)maxh + 1) * sizeof *f->route);
	f->res = malloc(((size_t)maxh + 3) * sizeof *f->res);
	f->cong = malloc(((size_t)nnz + 1) * sizeof *f->cong);
	f->roff = malloc(((size_t)nnz + 1) * sizeof *f->roff);
	if (!f->route || !f->res || !f->cong || !f->roff)
		goto out;
	if ((rc = choose_paths(m, x, src, seed, &f->path)) != 0)
		goto out;
	rc = CCP_ENOMEM;
	f->seed = seed;
	f->runs = runs;
	/* a dense map for grid-like id spaces, a hash for a switch's */
	if (nl <= 64 * (uint64_t)n + 1024 && nl <= (UINT64_C(1) << 26)) {
		f->lmap = malloc((size_t)nl * sizeof *f->lmap);
		if (!f->lmap)
			goto out;
		memset(f->lmap, 0xff, (size_t)nl * sizeof *f->lmap);
	} else if (u64map_init(&f->lhash, nnz) != 0) {
		goto out;
	}
	uint32_t next = 2 * (uint32_t)n;
	if (f->lmap && (rc = ff_number_links(f, &next)) != 0)
		goto out;
	rc = CCP_ENOMEM;
	/* a placement picks among paths when every link has its number
	 * already; then a message's resources change, and are not kept */
	f->choose = f->path && f->lmap;
	if (f->choose && !(f->res2 = malloc(((size_t)maxh + 3) *
	                                     sizeof *f->res2)))
		goto out;
	/* one routing pass: map links, count loads, keep the lists (no
	 * memory is an error: the lists decide which searches run, in
	 * tabu_reduce, and a plan must depend on its input alone) */
	uint32_t capl = next + 1024;
	uint64_t at = 0, zat = 0;
	uint64_t caprl = (uint64_t)nnz * ((uint64_t)maxh + 2) + 1;
	bool keep = !f->choose;
	caprl = caprl < store ? caprl : store;
	if (keep && !(f->rl = rl_alloc(caprl)))
		goto out;
	f->work = 0;
	f->load = calloc(capl, sizeof *f->load);
	if (!f->load)
		goto out;
	for (uint32_t k = 0; k < nnz; k++) {
		int h = ir_route_via(m, src[k], x->dst[k],
		                     f->path ? f->path[k] : 0, f->route);
		if (h < 0) {
			rc = CCP_EINVAL;
			goto out;
		}
		if (keep && at + (uint64_t)h + 2 > caprl) {
			/* too big: run-coded where links are numbered
			 * already, else routed again later */
			f->roff[k] = at;
			if (f->lmap && f->runs > 0 && maxh + 3 <= UINT16_MAX &&
			    next < RUN_ONE &&
			    (rc = ff_runs_from(f, k, &zat)) != 0)
				goto out;
			rc = CCP_ENOMEM;
			free(f->rl);
			f->rl = NULL;
			keep = false;
		}
		f->roff[k] = at;
		f->work += (uint64_t)h + 2;
		if (f->rz) { /* ff_route's order: rank sides first */
			uint32_t *res = f->res;
			res[0] = (uint32_t)src[k];
			res[1] = (uint32_t)(n + x->dst[k]);
			for (int i = 0; i < h; i++) {
				res[2 + i] = f->lmap[f->route[i]];
				f->load[res[2 + i]]++;
			}
			if (zat + (uint64_t)h + 2 > f->runs) {
				ff_runs_drop(f); /* too big: route again */
				continue;
			}
			f->zoff[k] = zat;
			zat += ff_runs(res, (uint32_t)h + 2, f->rz + zat);
			continue;
		}
		if (f->lmap && keep) { /* every link numbered already */
			uint32_t *out = f->rl + at;
			for (int i = 0; i < h; i++) {
				uint32_t r = f->lmap[f->route[i]];
				f->load[r]++;
				out[i] = r;
			}
			at += (uint64_t)h;
			/* ports last: lightly used, they rarely end a test */
			f->rl[at++] = (uint32_t)src[k];
			f->rl[at++] = (uint32_t)(n + x->dst[k]);
			continue;
		}
		if (keep) {
			f->rl[at++] = (uint32_t)src[k];
			f->rl[at++] = (uint32_t)(n + x->dst[k]);
		}
		for (int i = 0; i < h; i++) {
			uint32_t r = ff_link(f, f->route[i], &next);
			if (r == NONE)
				goto out;
			if (r >= capl) {
				uint32_t c2 = capl * 2;
				uint32_t *q = realloc(f->load, c2 * sizeof *q);
				if (!q)
					goto out;
				memset(q + capl, 0, (c2 - capl) * sizeof *q);
				f->load = q;
				capl = c2;
			}
			f->load[r]++;
			if (keep)
				f->rl[at++] = r;
		}
	}
	if (keep) {
		f->roff[nnz] = at;
		if (!(f->rlen = malloc(((size_t)nnz + 1) * sizeof *f->rlen)))
			goto out;
		for (uint32_t k = 0; k < nnz; k++)
			f->rlen[k] = (uint32_t)(f->roff[k + 1] - f->roff[k]);
	} else {
		free(f->roff);
		f->roff = NULL;
	}
	if (f->rz)
		f->zoff[nnz] = zat;
	/* without the lists a first fit routes again: worth the iterated
	 * greedy only when a placement tries paths (PATH_TRIES + 2 each) */
	if (f->choose)
		f->work *= PATH_TRIES + 2;
	else if (!keep)
		f->work = IG_WORK + 1;
	f->nres = next;
	/* ranks: ports, and their load as a degree bound */
	bool multi = false;
	for (int32_t r = 0; r < n && !multi; r++)
		multi = port_cap(m, r) > 1;
	if (multi) {
		f->cap = malloc((size_t)n * sizeof *f->cap);
		if (!f->cap || u64map_init(&f->cnt, 2 * (uint64_t)nnz) != 0)
			goto out;
		for (int32_t r = 0; r < n; r++)
			f->cap[r] = port_cap(m, r);
	}
	for (uint32_t k = 0; k < nnz; k++) {
		f->load[src[k]]++;
		f->load[n + x->dst[k]]++;
	}
	if (f->cap)
		for (int32_t r = 0; r < n; r++) {
			f->load[r] = div_up32(f->load[r], f->cap[r]);
			f->load[n + r] = div_up32(f->load[n + r], f->cap[r]);
		}
	f->low = calloc((size_t)f->nres + 1, sizeof *f->low);
	if (!f->low)
		goto out;
	/* busiest resource first, congestion */
	for (uint32_t k = 0; k < nnz; k++) {
		if (f->rl) {
			uint32_t *res = f->rl + f->roff[k];
			f->cong[k] = ff_busiest_first(f, res, f->rlen[k]);
		} else if (f->rz) {
			uint32_t nr = ff_unruns(f->rz + f->zoff[k],
			                        f->zoff[k + 1] - f->zoff[k],
			                        f->res);
			f->zb[k] = (uint16_t)ff_busiest(f, f->res, nr,
			                                &f->cong[k]);
		} else {
			uint32_t nr = ff_route(f, k);
			f->cong[k] = 0;
			for (uint32_t i = 0; i < nr; i++)
				f->cong[k] += f->load[f->res[i]];
		}
	}
	/* rows for the largest load and an eighth more, so few grow */
	uint32_t most = 0;
	for (uint32_t r = 0; r < f->nres; r++)
		most = f->load[r] > most ? f->load[r] : most;
	if ((rc = ff_grow(f, (most + most / 8) / 64)) != 0)
		goto out;
	rc = 0;
out:
	return rc;
}

/* Resource r may have filled row low[r]: move low past full rows. */
static void ff_advance(struct ff *f, uint32_t r)
{
	while (f->low[r] < f->nw &&
	       f->bits[(size_t)f->low[r] * f->nres + r] == ~UINT64_C(0))
		f->low[r]++;
}

/* Take phase ph for the nr resources res (all free there).  A rank side
 * with several ports is marked full only when its count reaches them. */
static int ff_take(struct ff *f, const uint32_t *res, uint32_t nr, uint32_t ph)
{
	uint32_t w = ph / 64;
	uint64_t bit = UINT64_C(1) << (ph % 64);
	uint64_t *row = f->bits + (size_t)w * f->nres;
	if (!f->cap) {
		for (uint32_t i = 0; i < nr; i++) {
			uint32_t r = res[i];
			uint64_t v = row[r] | bit;
			row[r] = v;
			if (v == ~UINT64_C(0) && f->low[r] == w)
				ff_advance(f, r);
		}
		nr = 0; /* done */
	}
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t r = res[i];
		if (r < 2 * (uint32_t)f->n) {
			uint32_t *c =
			        u64map_get(&f->cnt, (uint64_t)r << 32 | ph, 0);
			if (!c)
				return CCP_ENOMEM;
			if (++*c < f->cap[r < (uint32_t)f->n ? r : r - f->n])
				continue;
		}
		row[r] |= bit;
		if (row[r] == ~UINT64_C(0) && f->low[r] == w)
			ff_advance(f, r);
	}
	if (ph + 1 > f->nphases)
		f->nphases = ph + 1;
	return 0;
}

/* The earliest phase below lim where all of res[0..nr) are free: OR
 * their words, 64 phases at a time, from the first row none of them has
 * full; a word found full ends its row's test early, and the busiest
 * resource, tested first, fills most of them.  lim when there is none. */
static int ff_first_free(struct ff *f, const uint32_t *res, uint32_t nr,
                         uint32_t lim, uint32_t *ph)
{
	const uint64_t full = ~UINT64_C(0);
	uint32_t w = 0;
	for (uint32_t i = 0; i < nr; i++)
		w = f->low[res[i]] > w ? f->low[res[i]] : w;
	*ph = lim;
	for (; (uint64_t)w * 64 < lim; w++) {
		int rc = ff_grow(f, w);
		if (rc)
			return rc;
		const uint64_t *row = f->bits + (size_t)w * f->nres;
		uint64_t acc = row[res[0]];
		uint32_t i = 1;
		for (; i + 4 <= nr && acc != full; i += 4)
			acc |= row[res[i]] | row[res[i + 1]] | row[res[i + 2]] |
			       row[res[i + 3]];
		for (; i < nr && acc != full; i++)
			acc |= row[res[i]];
		if (acc != full) {
			uint32_t at = w * 64 + (uint32_t)__builtin_ctzll(~acc);
			if (at < lim)
				*ph = at;
			return 0;
		}
	}
	return 0;
}

/* Path j (<= PATH_TRIES) of those a placement of message k tries
 * besides its own, of n: the routing's (0), then drawn from (seed, k). */
static uint32_t ff_try(const struct ff *f, uint32_t k, uint32_t j, uint32_t n)
{
	if (j == 0)
		return 0;
	return (uint32_t)(ir_mix64(f->seed ^ (uint64_t)k << 24 ^ j) % n);
}

/* Place message k in the earliest phase where all its resources are
 * free.  Where placements pick paths, on the path that frees it
 * earliest, of its own and those ff_try draws (its own on a tie). */
static int ff_place(struct ff *f, uint32_t k, uint32_t *ph)
{
	uint32_t nr, n;
	int rc;
	if (!f->choose ||
	    (n = ir_path_count(f->m, f->src[k], f->x->dst[k])) < 2) {
		const uint32_t *res = ff_resources(f, k, &nr);
		if ((rc = ff_first_free(f, res, nr, UINT32_MAX, ph)) != 0)
			return rc;
		return ff_take(f, res, nr, *ph);
	}
	uint32_t pick = f->path[k];
	nr = ff_route_on(f, k, pick, f->res2);
	if ((rc = ff_first_free(f, f->res2, nr, UINT32_MAX, ph)) != 0)
		return rc;
	for (uint32_t j = 0; j <= PATH_TRIES && j <= n; j++) {
		uint32_t q = ff_try(f, k, j, n), at;
		if (q == pick || q == f->path[k])
			continue;
		uint32_t nq = ff_route_on(f, k, q, f->res);
		if (nq > nr) /* no detour: it takes links from others */
			continue;
		if ((rc = ff_first_free(f, f->res, nq, *ph, &at)) != 0)
			return rc;
		if (at < *ph) {
			*ph = at;
			pick = q;
			nr = nq;
			memcpy(f->res2, f->res, (size_t)nq * sizeof *f->res);
		}
	}
	f->path[k] = pick;
	return ff_take(f, f->res2, nr, *ph);
}

/* Whether all of res[0..nr) are free in phase ph. */
static int ff_free_at(struct ff *f, const uint32_t *res, uint32_t nr,
                      uint32_t ph, bool *ok)
{
	int rc = ff_grow(f, ph / 64);
	*ok = false;
	if (rc)
		return rc;
	const uint64_t *row = f->bits + (size_t)(ph / 64) * f->nres;
	uint64_t acc = 0;
	for (uint32_t i = 0; i < nr; i++)
		acc |= row[res[i]];
	*ok = !(acc >> (ph % 64) & 1);
	return 0;
}

/* Place message k in phase ph if all its resources are free there
 * (where placements pick paths, on its own path or one ff_try draws);
 * *ok says whether it was. */
static int ff_place_at(struct ff *f, uint32_t k, uint32_t ph, bool *ok)
{
	uint32_t nr, n = 1;
	const uint32_t *res = ff_resources(f, k, &nr);
	int rc = ff_free_at(f, res, nr, ph, ok);
	if (rc || *ok)
		return rc ? rc : ff_take(f, res, nr, ph);
	if (f->choose)
		n = ir_path_count(f->m, f->src[k], f->x->dst[k]);
	for (uint32_t j = 0; n > 1 && j <= PATH_TRIES && j <= n; j++) {
		uint32_t q = ff_try(f, k, j, n);
		if (q == f->path[k])
			continue;
		uint32_t nq = ff_route_on(f, k, q, f->res);
		if (nq > nr) /* no detour: it takes links from others */
			continue;
		if ((rc = ff_free_at(f, f->res, nq, ph, ok)) != 0)
			return rc;
		if (*ok) {
			f->path[k] = q;
			return ff_take(f, f->res, nq, ph);
		}
	}
	return 0;
}

/* A first fit takes messages in an order far from that of their lists
 * in rl, so where a list is and the list itself each missed the cache
 * and the TLB on every message: more than half of a test's time.  Ask
 * for both early, the list FF_AHEAD messages ahead, where it is twice as
 * far. */
#define FF_AHEAD 8
static void ff_prefetch(const struct ff *f, const uint32_t *order,
                        uint32_t cnt, uint32_t i)
{
	if (f->rz) { /* run-coded: a few words a message */
		if (i + 2 * FF_AHEAD < cnt)
			__builtin_prefetch(&f->zoff[order[i + 2 * FF_AHEAD]]);
		if (i + FF_AHEAD < cnt)
			__builtin_prefetch(f->rz + f->zoff[order[i + FF_AHEAD]]);
		return;
	}
	if (i + 2 * FF_AHEAD < cnt) {
		__builtin_prefetch(&f->roff[order[i + 2 * FF_AHEAD]]);
		__builtin_prefetch(&f->rlen[order[i + 2 * FF_AHEAD]]);
	}
	if (i + FF_AHEAD < cnt) {
		uint32_t k = order[i + FF_AHEAD];
		const uint32_t *q = f->rl + f->roff[k];
		for (uint32_t j = 0; j < f->rlen[k]; j += 16)
			__builtin_prefetch(q + j);
	}
}

/* First fit of the messages in order[0..cnt) after an ff_reset; ph[k]
 * gets each one's phase. */
static int ff_run(struct ff *f, const uint32_t *order, uint32_t cnt,
                  uint32_t *ph)
{
	for (uint32_t i = 0; i < cnt; i++) {
		if (f->rl || f->rz)
			ff_prefetch(f, order, cnt, i);
		int rc = ff_place(f, order[i], &ph[order[i]]);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- orders --------------------------------------------------------- */

/* Scratch for the sorts: keys and a second key/value buffer. */
struct sorter {
	uint64_t *key, *tk;
	uint32_t *tv;
	uint32_t n;
};

static int sorter_init(struct sorter *s, uint32_t n)
{
	s->n = n;
	s->key = malloc(((size_t)n + 1) * sizeof *s->key);
	s->tk = malloc(((size_t)n + 1) * sizeof *s->tk);
	s->tv = malloc(((size_t)n + 1) * sizeof *s->tv);
	return s->key && s->tk && s->tv ? 0 : CCP_ENOMEM;
}

static void sorter_fini(struct sorter *s)
{
	free(s->key);
	free(s->tk);
	free(s->tv);
}

/* Stable sort of order[0..n) by key_of(message), ascending. */
static void sort_by(struct sorter *s, uint32_t *order, uint32_t n,
                    uint64_t (*key_of)(const void *, uint32_t), const void *ctx)
{
	for (uint32_t i = 0; i < n; i++)
		s->key[i] = key_of(ctx, order[i]);
	radix_sort(s->key, order, s->tk, s->tv, n);
}

/* Most congested first: the larger sum of the loads of its resources
 * (its ports' degree bounds and the message counts of its links), which
 * weighs both how busy its route is and how long (complemented, for an
 * ascending sort). */
static uint64_t key_cong(const void *ctx, uint32_t k)
{
	return ~((const struct ff *)ctx)->cong[k];
}

/* A phase order (the phase numbers of a previous schedule) as a key. */
static uint64_t key_phase(const void *ctx, uint32_t k)
{
	return ((const uint32_t *)ctx)[k];
}

/* Larger messages first. */
static uint64_t key_size_desc(const void *ctx, uint32_t k)
{
	return ~(uint64_t)((const ir_matrix *)ctx)->bytes[k];
}

/* Larger messages first, by size class: half-octaves (floor of
 * 2 log2 bytes), so messages within a factor sqrt 2 tie and keep the
 * congestion order among themselves. */
static uint64_t key_size_class(const void *ctx, uint32_t k)
{
	uint64_t b = (uint64_t)((const ir_matrix *)ctx)->bytes[k];
	int lg = 63 - __builtin_clzll(b | 1);
	/* second half of the octave when b >= 2^lg * sqrt 2 */
	uint64_t half = (double)b >= ldexp(1.4142135623730951, lg);
	return ~(uint64_t)(2 * (uint64_t)lg + half);
}

/* ---- phase by phase, paths picked on the way ------------------------ */

/* Where the sender picks paths on a dragonfly, a first fit message by
 * message fills phases with long detours: a message takes a Valiant
 * path because its own global link is taken in its earliest phase, and
 * so takes two global links from messages still to come.  The wave
 * fills one phase at a time instead, in three steps:
 *   1. the messages left, ordered by the work left on their resources
 *      (the largest of their ranks' messages left over their ports and
 *      their routing paths' links' messages left, then the sum), each
 *      on its routing's path (path 0) where that is free;
 *   2. the messages still out whose ports are free, on any of their
 *      paths that is free, from one drawn from (seed, message, phase):
 *      so detours take only links no direct path wanted;
 *   3. swaps of one message of the phase for two that only it blocks
 *      (on their routing's paths), a classic step of set packing, then
 *      1. again on what the swaps freed (2. again costs a third of the
 *      time and gained nothing measured).
 * A resource is free in phase t when stamp[r] != t + 1 or, for a rank
 * side with several ports, use[r] is below them; owner[r] is the
 * message that took r last in the phase. */
struct wave {
	struct ff *f;
	uint32_t t;          /* the phase being filled */
	uint32_t n2;         /* 2 n: resources below it are rank sides */
	uint32_t *stamp, *use, *owner;
	uint32_t *ph;        /* per message: phase, NONE while left */
	uint32_t *ncand;     /* per message of the phase: candidates seen */
	uint32_t *cand;      /* WAVE_CANDS per message of the phase */
	uint32_t *res3;      /* scratch: a third route */
	uint32_t *r0;        /* per message: its routing path's resources,
	                        maxr apart */
	uint8_t *n0;         /* their count */
	uint32_t maxr;
};

/* The resources of message k's routing path (path 0). */
static const uint32_t *wave_r0(const struct wave *w, uint32_t k,
                               uint32_t *nr)
{
	*nr = w->n0[k];
	return w->r0 + (size_t)k * w->maxr;
}

/* Candidates kept per message of the phase for a swap. */
#define WAVE_CANDS 6
/* Rounds of swaps per phase. */
#define WAVE_SWAP_ROUNDS 4
/* Most paths step 2 tries per message (a dragonfly of g groups and c
 * global links per pair of groups has c (g - 1)). */
#define WAVE_PATHS 64

static bool wave_free(const struct wave *w, uint32_t r)
{
	if (w->stamp[r] != w->t + 1)
		return true;
	const struct ff *f = w->f;
	return r < w->n2 && f->cap &&
	       w->use[r] < f->cap[r < (uint32_t)f->n ? r : r - f->n];
}

static bool wave_fits(const struct wave *w, const uint32_t *res, uint32_t nr)
{
	for (uint32_t e = 0; e < nr; e++)
		if (!wave_free(w, res[e]))
			return false;
	return true;
}

/* Put message k on path q (resources res[0..nr)) into the phase. */
static void wave_take(struct wave *w, uint32_t k, uint32_t q,
                      const uint32_t *res, uint32_t nr)
{
	for (uint32_t e = 0; e < nr; e++) {
		uint32_t r = res[e];
		if (r < w->n2)
			w->use[r] = w->stamp[r] == w->t + 1 ? w->use[r] + 1 : 1;
		w->stamp[r] = w->t + 1;
		w->owner[r] = k;
	}
	w->ph[k] = w->t;
	w->f->path[k] = q;
}

/* Take message k out of the phase again. */
static void wave_drop(struct wave *w, uint32_t k)
{
	uint32_t nr = ff_route_on(w->f, k, w->f->path[k], w->res3);
	for (uint32_t e = 0; e < nr; e++) {
		uint32_t r = w->res3[e];
		if (r < w->n2 && --w->use[r] > 0)
			continue;
		w->stamp[r] = 0;
	}
	w->ph[k] = NONE;
}

/* Steps 1 (pass 0) and 2 (pass 1) over left[0..nleft). */
static void wave_fill(struct wave *w, const uint32_t *left, uint32_t nleft,
                      int pass)
{
	struct ff *f = w->f;
	uint32_t n = (uint32_t)f->n;
	for (uint32_t i = 0; i < nleft; i++) {
		uint32_t k = left[i];
		int32_t d = f->x->dst[k];
		if (w->ph[k] != NONE || !wave_free(w, (uint32_t)f->src[k]) ||
		    !wave_free(w, n + (uint32_t)d))
			continue;
		if (!pass) {
			uint32_t nr;
			const uint32_t *res = wave_r0(w, k, &nr);
			if (wave_fits(w, res, nr))
				wave_take(w, k, 0, res, nr);
			continue;
		}
		uint32_t np = ir_path_count(f->m, f->src[k], d);
		uint32_t q0 = (uint32_t)(ir_mix64(f->seed ^ (uint64_t)k << 24 ^
		                                  w->t) %
		                         np);
		for (uint32_t j = 0; j < np && j < WAVE_PATHS; j++) {
			uint32_t q = (q0 + j) % np;
			if (q == 0)
				continue;
			uint32_t nr = ff_route_on(f, k, q, f->res);
			if (wave_fits(w, f->res, nr)) {
				wave_take(w, k, q, f->res, nr);
				break;
			}
		}
	}
}

/* Whether two resource lists share a resource. */
static bool wave_meet(const uint32_t *a, uint32_t na, const uint32_t *b,
                      uint32_t nb)
{
	for (uint32_t i = 0; i < na; i++)
		for (uint32_t j = 0; j < nb; j++)
			if (a[i] == b[j])
				return true;
	return false;
}

/* Step 3: one round of swaps; the swaps made. */
static uint32_t wave_swaps(struct wave *w, const uint32_t *left,
                           uint32_t nleft, uint32_t *touched)
{
	struct ff *f = w->f;
	uint32_t nt = 0, made = 0;
	if (f->cap) /* a side of several ports has no one owner */
		return 0;
	for (uint32_t i = 0; i < nleft; i++) {
		uint32_t k = left[i], j = NONE, e;
		if (w->ph[k] != NONE)
			continue;
		uint32_t nr;
		const uint32_t *res = wave_r0(w, k, &nr);
		for (e = 0; e < nr; e++) {
			uint32_t r = res[e];
			if (wave_free(w, r))
				continue;
			if (j == NONE)
				j = w->owner[r];
			else if (w->owner[r] != j)
				break;
		}
		if (e < nr || j == NONE)
			continue;
		if (w->ncand[j] == 0)
			touched[nt++] = j;
		if (w->ncand[j] < WAVE_CANDS)
			w->cand[(size_t)j * WAVE_CANDS + w->ncand[j]] = k;
		w->ncand[j]++;
	}
	for (uint32_t i = 0; i < nt; i++) {
		uint32_t j = touched[i];
		uint32_t c = w->ncand[j] < WAVE_CANDS ? w->ncand[j] : WAVE_CANDS;
		const uint32_t *cj = w->cand + (size_t)j * WAVE_CANDS;
		w->ncand[j] = 0;
		if (c < 2 || w->ph[j] != w->t)
			continue;
		for (uint32_t a = 0; a < c; a++) {
			uint32_t na, nb;
			const uint32_t *ra = wave_r0(w, cj[a], &na);
			for (uint32_t b = a + 1; b < c; b++) {
				const uint32_t *rb = wave_r0(w, cj[b], &nb);
				if (wave_meet(ra, na, rb, nb))
					continue;
				uint32_t qj = f->path[j];
				wave_drop(w, j);
				if (wave_fits(w, ra, na) && wave_fits(w, rb, nb)) {
					wave_take(w, cj[a], 0, ra, na);
					wave_take(w, cj[b], 0, rb, nb);
					made++;
				} else { /* an earlier swap took a resource */
					uint32_t nj = ff_route_on(f, j, qj,
					                          w->res3);
					wave_take(w, j, qj, w->res3, nj);
				}
				a = b = c; /* done with j */
			}
		}
	}
	return made;
}

/* The wave: ph gets the phases, f->path the paths; *nph the count. */
static int wave_schedule(struct ff *f, struct sorter *s, uint32_t *ph,
                         uint32_t *nph)
{
	const ir_matrix *x = f->x;
	uint32_t nnz = (uint32_t)x->nnz, n = (uint32_t)f->n, nleft = nnz;
	uint32_t maxr = (uint32_t)ir_route_max(f->m) + 3;
	struct wave w = {.f = f, .n2 = 2 * n, .ph = ph};
	uint32_t *left = malloc(((size_t)nnz + 1) * sizeof *left);
	uint32_t *touched = malloc(((size_t)nnz + 1) * sizeof *touched);
	uint32_t *rem = calloc((size_t)f->nres + 1, sizeof *rem);
	uint32_t *r0 = malloc(((size_t)nnz * maxr + 1) * sizeof *r0);
	uint8_t *n0 = malloc((size_t)nnz + 1);
	w.stamp = calloc((size_t)f->nres + 1, sizeof *w.stamp);
	w.use = calloc(2 * (size_t)n + 1, sizeof *w.use);
	w.owner = malloc(((size_t)f->nres + 1) * sizeof *w.owner);
	w.ncand = calloc((size_t)nnz + 1, sizeof *w.ncand);
	w.cand = malloc(((size_t)nnz * WAVE_CANDS + 1) * sizeof *w.cand);
	w.res3 = malloc(((size_t)maxr + 1) * sizeof *w.res3);
	w.r0 = r0;
	w.n0 = n0;
	w.maxr = maxr;
	int rc = CCP_ENOMEM;
	if (!left || !touched || !rem || !r0 || !n0 || !w.stamp || !w.use ||
	    !w.owner || !w.ncand || !w.cand || !w.res3)
		goto out;
	/* the work left on each resource, along the routing's paths */
	for (uint32_t k = 0; k < nnz; k++) {
		uint32_t *o = r0 + (size_t)k * maxr;
		left[k] = k;
		ph[k] = NONE;
		n0[k] = (uint8_t)ff_route_on(f, k, 0, o);
		for (uint32_t e = 0; e < n0[k]; e++)
			rem[o[e]]++;
	}
	for (w.t = 0; nleft > 0; w.t++) {
		for (uint32_t i = 0; i < nleft; i++) {
			uint32_t k = left[i], most = 0, sum = 0;
			const uint32_t *o = r0 + (size_t)k * maxr;
			for (uint32_t e = 0; e < n0[k]; e++) {
				uint32_t r = o[e], v = rem[r];
				if (r < w.n2 && f->cap)
					v = div_up32(v, f->cap[r < n ? r : r - n]);
				most = v > most ? v : most;
				sum += v;
			}
			s->key[i] = ~((uint64_t)most << 32 | sum);
		}
		radix_sort(s->key, left, s->tk, s->tv, nleft);
		wave_fill(&w, left, nleft, 0);
		wave_fill(&w, left, nleft, 1);
		for (int round = 0; round < WAVE_SWAP_ROUNDS; round++) {
			if (wave_swaps(&w, left, nleft, touched) == 0)
				break;
			wave_fill(&w, left, nleft, 0);
		}
		uint32_t kept = 0;
		for (uint32_t i = 0; i < nleft; i++) {
			uint32_t k = left[i];
			if (ph[k] == NONE) {
				left[kept++] = k;
				continue;
			}
			const uint32_t *o = r0 + (size_t)k * maxr;
			for (uint32_t e = 0; e < n0[k]; e++)
				rem[o[e]]--;
		}
		if (kept == nleft) { /* an empty phase takes any message */
			rc = CCP_EINVAL;
			goto out;
		}
		nleft = kept;
	}
	*nph = w.t;
	rc = 0;
out:
	free(left);
	free(touched);
	free(rem);
	free(r0);
	free(n0);
	free(w.stamp);
	free(w.use);
	free(w.owner);
	free(w.ncand);
	free(w.cand);
	free(w.res3);
	return rc;
}

/* ---- iterated greedy ------------------------------------------------ */

/* One round of Culberson's iterated greedy: re-run first fit with the
 * messages grouped by their phase in ph, the groups in the order given
 * by rank[phase] (ascending).  The messages of one phase are compatible,
 * so group j lands in phase j or earlier: the phase count never grows.
 * ph is replaced by the new schedule, *nph by its phase count. */
static int iterate_greedy(struct ff *f, struct sorter *s, uint32_t *order,
                          uint32_t *ph, uint32_t *grp, const uint32_t *rank,
                          uint32_t *nph)
{
	uint32_t nnz = (uint32_t)f->x->nnz;
	for (uint32_t k = 0; k < nnz; k++)
		grp[k] = rank[ph[k]];
	sort_by(s, order, nnz, key_phase, grp);
	ff_reset(f);
	int rc = ff_run(f, order, nnz, ph);
	*nph = f->nphases;
	return rc;
}

/* Phase ranks for one round: reversed order on even rounds, fullest
 * phase first on odd ones (both classic choices). */
static void greedy_ranks(const uint32_t *ph, uint32_t nnz, uint32_t nph,
                         int round, uint32_t *rank, struct sorter *s)
{
	if (round % 2 == 0) {
		for (uint32_t c = 0; c < nph; c++)
			rank[c] = nph - 1 - c;
		return;
	}
	uint32_t *size = calloc((size_t)nph + 1, sizeof *size);
	uint32_t *ord = malloc(((size_t)nph + 1) * sizeof *ord);
	if (!size || !ord || nph > s->n) { /* fall back to reversal */
		for (uint32_t c = 0; c < nph; c++)
			rank[c] = nph - 1 - c;
		free(size);
		free(ord);
		return;
	}
	for (uint32_t k = 0; k < nnz; k++)
		size[ph[k]]++;
	for (uint32_t c = 0; c < nph; c++) {
		ord[c] = c;
		s->key[c] = ~(uint64_t)size[c];
	}
	radix_sort(s->key, ord, s->tk, s->tv, nph);
	for (uint32_t c = 0; c < nph; c++)
		rank[ord[c]] = c;
	free(size);
	free(ord);
}

/* ---- tabu search: fewer phases for small patterns ------------------- */

/* Min-conflicts tabu search with a fixed phase count P (in the manner of
 * Hertz and de Werra's TabuCol for graph colouring): every message has a
 * phase in [0, P); a resource used beyond its capacity in a phase is a
 * violation.  Each step takes a message of a random violation and moves
 * it to the phase that adds the fewest violations, a phase it just left
 * being tabu for a while unless the move beats the best state seen.
 * Starting from a valid plan of P phases, the last phase is emptied into
 * the others and the search runs until no violation is left (P - 1
 * phases then), or its budget of resource tests is spent. */
struct ls {
	struct ff *f;
	uint32_t p;     /* phases */
	uint32_t *use;  /* use[r * p + q]: messages of phase q on r */
	uint32_t *vpos; /* position of (r, q) in viol, NONE if none */
	uint32_t *viol; /* violated (r, q) as r * p + q */
	uint32_t nviol;
	uint32_t *inv; /* messages using each resource (CSR) */
	uint64_t *ioff;
	uint32_t *tabu; /* tabu[k * p + q]: step until which k may not
	                   go back to phase q */
	struct ir_rng rng;
};

/* Capacity of resource r in one phase. */
static uint32_t ls_cap(const struct ls *s, uint32_t r)
{
	const struct ff *f = s->f;
	if (f->cap && r < 2 * (uint32_t)f->n)
		return f->cap[r < (uint32_t)f->n ? r : r - f->n];
	return 1;
}

/* Count message k in or out (+1 / -1) of phase q, keeping the set of
 * violations. */
static void ls_count(struct ls *s, uint32_t k, uint32_t q, int dir)
{
	struct ff *f = s->f;
	uint32_t nr;
	const uint32_t *res = ff_resources(f, k, &nr);
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t v = res[i] * s->p + q;
		s->use[v] = dir > 0 ? s->use[v] + 1 : s->use[v] - 1;
		bool bad = s->use[v] > ls_cap(s, res[i]);
		if (bad && s->vpos[v] == NONE) {
			s->vpos[v] = s->nviol;
			s->viol[s->nviol++] = v;
		} else if (!bad && s->vpos[v] != NONE) {
			uint32_t last = s->viol[--s->nviol];
			s->viol[s->vpos[v]] = last;
			s->vpos[last] = s->vpos[v];
			s->vpos[v] = NONE;
		}
	}
}

/* Violations message k would add in phase q (not counting itself). */
static uint32_t ls_adds(const struct ls *s, const uint32_t *res, uint32_t nr,
                        uint32_t q)
{
	uint32_t a = 0;
	for (uint32_t i = 0; i < nr; i++)
		a += s->use[res[i] * s->p + q] >= ls_cap(s, res[i]);
	return a;
}

/* The phase in [0, s->p) other than from where message k adds fewest
 * violations; tabu phases only if they reach below best_v; ties broken
 * at random.  *adds gets the count, NONE as phase if every one is
 * tabu. */
static uint32_t ls_best_phase(struct ls *s, uint32_t k, uint32_t from,
                              uint32_t step, uint32_t now_v, uint32_t best_v,
                              uint32_t *adds)
{
	uint32_t nr, best = NONE, ba = UINT32_MAX, ties = 0;
	const uint32_t *res = ff_resources(s->f, k, &nr);
	uint32_t here = from == NONE ? 0 : ls_adds(s, res, nr, from);
	for (uint32_t q = 0; q < s->p; q++) {
		if (q == from)
			continue;
		uint32_t a = ls_adds(s, res, nr, q);
		/* total after the move: now - (k's share of from) + a */
		bool tabu = s->tabu && s->tabu[(size_t)k * s->p + q] > step;
		if (tabu && now_v - here + a >= best_v)
			continue;
		if (a < ba) {
			ba = a;
			best = q;
			ties = 1;
		} else if (a == ba && ir_rng_below(&s->rng, ++ties) == 0) {
			best = q;
		}
	}
	*adds = ba;
	return best;
}

static void ls_fini(struct ls *s)
{
	free(s->use);
	free(s->vpos);
	free(s->viol);
	free(s->inv);
	free(s->ioff);
	free(s->tabu);
}

/* Try to bring the valid schedule ph of *nph phases down towards lb with
 * at most budget resource tests; ph and *nph get the best valid result.
 * Only for patterns whose resource lists are kept. */
static int tabu_reduce(struct ff *f, uint32_t *ph, uint32_t *nph, uint32_t lb,
                       uint64_t seed, uint64_t budget)
{
	uint32_t nnz = (uint32_t)f->x->nnz, p = *nph;
	struct ls s;
	int rc = CCP_ENOMEM;
	memset(&s, 0, sizeof s);
	s.f = f;
	if (!f->rl || p <= lb || p < 2)
		return 0;
	uint32_t *cur = malloc(((size_t)nnz + 1) * sizeof *cur);
	s.inv = malloc(((size_t)f->roff[nnz] + 1) * sizeof *s.inv);
	s.ioff = calloc((size_t)f->nres + 2, sizeof *s.ioff);
	if (!cur || !s.inv || !s.ioff)
		goto out;
	for (uint64_t i = 0; i < f->roff[nnz]; i++)
		s.ioff[f->rl[i] + 2]++;
	for (uint32_t r = 0; r < f->nres; r++)
		s.ioff[r + 2] += s.ioff[r + 1];
	for (uint32_t k = 0; k < nnz; k++)
		for (uint64_t i = f->roff[k]; i < f->roff[k] + f->rlen[k]; i++)
			s.inv[s.ioff[f->rl[i] + 1]++] = k;
	ir_rng_seed(&s.rng, seed);
	memcpy(cur, ph, (size_t)nnz * sizeof *cur);
	uint64_t spent = 0;
	while (p > lb && spent < budget) {
		/* p - 1 phases: fresh counts, then empty the last phase */
		uint32_t np = p - 1;
		free(s.use);
		free(s.vpos);
		free(s.viol);
		free(s.tabu);
		s.p = np;
		s.nviol = 0;
		s.use = calloc((size_t)f->nres * np + 1, sizeof *s.use);
		s.vpos = malloc(((size_t)f->nres * np + 1) * sizeof *s.vpos);
		s.viol = malloc(((size_t)f->nres * np + 1) * sizeof *s.viol);
		s.tabu = calloc((size_t)nnz * np + 1, sizeof *s.tabu);
		if (!s.use || !s.vpos || !s.viol || !s.tabu)
			goto out;
		memset(s.vpos, 0xff,
		       ((size_t)f->nres * np + 1) * sizeof *s.vpos);
		for (uint32_t k = 0; k < nnz; k++)
			if (cur[k] < np)
				ls_count(&s, k, cur[k], 1);
		for (uint32_t k = 0; k < nnz; k++)
			if (cur[k] >= np) {
				uint32_t a;
				cur[k] =
				        ls_best_phase(&s, k, NONE, 0, 0, 0, &a);
				ls_count(&s, k, cur[k], 1);
				spent += (uint64_t)np * 8;
			}
		uint32_t best_v = s.nviol;
		for (uint32_t step = 1; s.nviol > 0 && spent < budget; step++) {
			uint32_t v = s.viol[ir_rng_below(&s.rng, s.nviol)];
			uint32_t r = v / np, q = v % np, k = NONE, seen = 0;
			for (uint64_t i = s.ioff[r]; i < s.ioff[r + 1]; i++)
				if (cur[s.inv[i]] == q &&
				    ir_rng_below(&s.rng, ++seen) == 0)
					k = s.inv[i];
			uint32_t nr, a;
			if (k == NONE)
				continue;
			ff_resources(f, k, &nr);
			spent +=
			        (uint64_t)np * nr + (s.ioff[r + 1] - s.ioff[r]);
			uint32_t to = ls_best_phase(&s, k, q, step, s.nviol,
			                            best_v, &a);
			if (to == NONE)
				continue;
			ls_count(&s, k, q, -1);
			ls_count(&s, k, to, 1);
			cur[k] = to;
			s.tabu[(size_t)k * np + q] =
			        step + 10 + (uint32_t)ir_rng_below(&s.rng, 10) +
			        s.nviol * 6 / 10;
			best_v = s.nviol < best_v ? s.nviol : best_v;
		}
		if (s.nviol > 0)
			break;
		p = np;
		memcpy(ph, cur, (size_t)nnz * sizeof *ph);
		*nph = p;
	}
	rc = 0;
out:
	free(cur);
	ls_fini(&s);
	return rc;
}

/* ---- link-aware ----------------------------------------------------- */

/* The degree bound of f's messages: the most phases any rank side
 * needs. */
static uint32_t lb_of(const struct ff *f)
{
	uint32_t lb = 0;
	for (uint32_t r = 0; r < 2 * (uint32_t)f->n; r++)
		lb = f->load[r] > lb ? f->load[r] : lb;
	return lb;
}

/* Where placements pick paths, the paths of the schedule kept: copy them
 * out of f (save) or back into it. */
static void paths_keep(struct ff *f, uint32_t *kept, bool save)
{
	size_t len = (size_t)f->x->nnz * sizeof *kept;
	if (f->choose)
		memcpy(save ? kept : f->path, save ? f->path : kept, len);
}

/* The first fit just run (alt, f->nphases phases) becomes the best so
 * far (ph, *nph, the paths in kept) when it has fewer phases. */
static void keep_if_fewer(struct ff *f, const uint32_t *alt, uint32_t *ph,
                          uint32_t *nph, uint32_t *kept)
{
	if (f->nphases >= *nph)
		return;
	*nph = f->nphases;
	memcpy(ph, alt, (size_t)f->x->nnz * sizeof *ph);
	paths_keep(f, kept, true);
}

/* The link-aware schedule of ff's messages into ph (phase per message);
 * *nph gets the phase count.  Candidates, best kept:
 *   0. on a dragonfly whose sender picks paths, the wave: phases
 *      filled one at a time, paths picked as they fill;
 *   1. first fit, most congested message first;
 *   2. where the degree bound is the larger one, the König colouring,
 *      each colour kept (most congested first) as far as its links
 *      allow, the evicted messages then placed first fit (on a switch,
 *      where links never conflict, this is the optimal colouring);
 *   3. rounds of iterated greedy on the best while they gain, as many
 *      as IG_WORK resource visits allow (none on very large inputs,
 *      where one first fit is already within a few percent). */
static int link_aware_schedule(const ir_machine *m, struct ff *f, uint64_t seed,
                               uint32_t *ph, uint32_t *nph)
{
	const ir_matrix *x = f->x;
	uint32_t nnz = (uint32_t)x->nnz;
	int rc = CCP_ENOMEM;
	struct sorter s;
	uint32_t *order = malloc(((size_t)nnz + 1) * sizeof *order);
	uint32_t *alt = malloc(((size_t)nnz + 1) * sizeof *alt);
	uint32_t *grp = malloc(((size_t)nnz + 1) * sizeof *grp);
	uint32_t *rank = NULL;
	uint32_t *kept = f->choose ? malloc(((size_t)nnz + 1) * sizeof *kept)
	                           : NULL;
	if (sorter_init(&s, nnz) != 0 || !order || !alt || !grp ||
	    (f->choose && !kept))
		goto out;
	for (uint32_t k = 0; k < nnz; k++)
		order[k] = k;
	sort_by(&s, order, nnz, key_cong, f);

	/* lower bounds: degree and link terms; where placements pick paths
	 * the links' loads are those of the paths first picked, no bound */
	uint32_t lb_deg = lb_of(f), lb_link = 0;
	for (uint32_t r = 2 * (uint32_t)f->n; r < f->nres; r++)
		lb_link = f->load[r] > lb_link ? f->load[r] : lb_link;
	uint32_t lb = f->choose || lb_deg > lb_link ? lb_deg : lb_link;
	/* on a fat tree whose sender picks paths, the colouring (2) comes
	 * first: routed as a Clos network, it usually meets the bound */
	bool clos = f->choose && m->topo == IR_FAT_TREE;
	*nph = UINT32_MAX;

	/* 0. on a dragonfly whose sender picks paths, phase by phase (the
	 * wave keeps every message's route: not on the very largest) */
	if (f->choose && m->topo == IR_DRAGONFLY &&
	    (uint64_t)nnz * ((uint64_t)ir_route_max(m) + 3) <= FF_STORE) {
		if ((rc = wave_schedule(f, &s, ph, nph)) != 0)
			goto out;
		paths_keep(f, kept, true);
	}

	/* 1. congestion first fit */
	if (!clos) {
		ff_reset(f);
		if ((rc = ff_run(f, order, nnz, alt)) != 0)
			goto out;
		keep_if_fewer(f, alt, ph, nph, kept);
	}

	/* 2. the colouring, repaired; on a fat tree whose sender picks
	 * paths, each colour routed through the tree first */
	if (*nph > lb && (lb_deg >= lb_link || f->choose)) {
		uint32_t t;
		if ((rc = colour_messages(m, x, alt, &t)) != 0)
			goto out;
		if (clos) {
			bool *routed = malloc((size_t)nnz + 1);
			if (!routed) {
				rc = CCP_ENOMEM;
				goto out;
			}
			rc = tree_route_phases(m, x, f->src, alt, t, f->path,
			                       routed);
			free(routed);
			if (rc)
				goto out;
		}
		/* by colour, most congested first inside a colour */
		uint32_t *ord2 = malloc(((size_t)nnz + 1) * sizeof *ord2);
		if (!ord2) {
			rc = CCP_ENOMEM;
			goto out;
		}
		memcpy(ord2, order, (size_t)nnz * sizeof *ord2);
		sort_by(&s, ord2, nnz, key_phase, alt);
		ff_reset(f);
		uint32_t nev = 0;
		for (uint32_t i = 0; i < nnz && rc == 0; i++) {
			bool ok;
			uint32_t k = ord2[i];
			rc = ff_place_at(f, k, alt[k], &ok);
			if (!ok)
				grp[nev++] = k; /* evicted, in colour order */
		}
		/* the evicted ones first fit, most congested first */
		if (rc == 0) {
			sort_by(&s, grp, nev, key_cong, f);
			rc = ff_run(f, grp, nev, alt);
		}
		free(ord2);
		if (rc)
			goto out;
		keep_if_fewer(f, alt, ph, nph, kept);
	}
	if (clos && *nph > lb) { /* 1., after all */
		ff_reset(f);
		if ((rc = ff_run(f, order, nnz, alt)) != 0)
			goto out;
		keep_if_fewer(f, alt, ph, nph, kept);
	}

	/* 3. iterated greedy while it gains, from the best's paths */
	paths_keep(f, kept, false);
	rank = malloc(((size_t)*nph + 1) * sizeof *rank);
	if (!rank) {
		rc = CCP_ENOMEM;
		goto out;
	}
	memcpy(alt, ph, (size_t)nnz * sizeof *alt);
	uint64_t work = f->work;
	for (int round = 0, idle = 0; *nph > lb && idle < 4 && round < 40 &&
	                              (uint64_t)(round + 1) * work <= IG_WORK;
	     round++) {
		uint32_t cur = *nph, got;
		greedy_ranks(alt, nnz, cur, round, rank, &s);
		if ((rc = iterate_greedy(f, &s, order, alt, grp, rank, &got)) !=
		    0)
			goto out;
		if (got < *nph) {
			*nph = got;
			memcpy(ph, alt, (size_t)nnz * sizeof *ph);
			paths_keep(f, kept, true);
			idle = 0;
		} else {
			idle++;
		}
	}

	/* the kept schedule's paths, which tabu_reduce keeps */
	paths_keep(f, kept, false);

	/* 4. tabu search below that, on small patterns */
	if (*nph > lb && work <= IG_WORK &&
	    (uint64_t)f->nres * *nph <= LS_CELLS &&
	    (uint64_t)nnz * *nph <= LS_CELLS)
		rc = tabu_reduce(f, ph, nph, lb, seed, LS_WORK);
out:
	free(kept);
	sorter_fini(&s);
	free(order);
	free(alt);
	free(grp);
	free(rank);
	return rc;
}

/* ---- the entry points ----------------------------------------------- */

/* Arguments every scheduler needs; CCP_EINVAL otherwise. */
static int check_args(const ir_machine *m, const ir_matrix *x, ir_plan *p)
{
	if (!m || !x || !p || x->n != m->nranks || x->nnz < 0 ||
	    x->nnz > (int64_t)UINT32_MAX / 2)
		return CCP_EINVAL;
	return 0;
}

/* The optimal node scheduler: exactly max ceil(degree / ports) phases
 * (the degree bound), each a colour of the König colouring.  Links are
 * ignored, so the plan declares that they may contend.  The seed is not
 * needed: the colouring is deterministic. */
int sch__irr_color(const ir_machine *m, const ir_matrix *x, uint64_t seed,
                   ir_plan *p)
{
	(void)seed;
	int rc = check_args(m, x, p);
	if (rc)
		return rc;
	p->flags = IR_PLAN_LINK_CONTENTION;
	uint32_t t = 0;
	uint32_t *colour = malloc(((size_t)x->nnz + 1) * sizeof *colour);
	int32_t *src = message_sources(x);
	if (!colour || !src) {
		rc = CCP_ENOMEM;
		goto out;
	}
	if ((rc = colour_messages(m, x, colour, &t)) == 0)
		rc = emit_phases(p, x, src, NULL, colour, t);
out:
	free(colour);
	free(src);
	return rc;
}

/* Node- and link-contention-free schedule in as few phases as the
 * heuristics of link_aware_schedule find; the seed drives only the tabu
 * search's random choices. */
int sch__irr_link_aware(const ir_machine *m, const ir_matrix *x, uint64_t seed,
                        ir_plan *p)
{
	return sch__irr_link_aware_kept(m, x, seed, FF_STORE, FF_RUNS, p);
}

int sch__irr_link_aware_kept(const ir_machine *m, const ir_matrix *x,
                             uint64_t seed, uint64_t store, uint64_t runs,
                             ir_plan *p)
{
	int rc = check_args(m, x, p);
	if (rc)
		return rc;
	p->flags = 0;
	struct ff f, f0;
	uint32_t nph = 0, nph0 = 0, *ph0 = NULL;
	uint32_t *ph = malloc(((size_t)x->nnz + 1) * sizeof *ph);
	int32_t *src = message_sources(x);
	memset(&f, 0, sizeof f);
	memset(&f0, 0, sizeof f0);
	if (!ph || !src) {
		rc = CCP_ENOMEM;
		goto out;
	}
	if ((rc = ff_init(&f, m, x, src, seed, store, runs)) != 0)
		goto out;
	if ((rc = link_aware_schedule(m, &f, seed, ph, &nph)) != 0)
		goto out;
	if (f.choose && nph > lb_of(&f)) {
		/* picking paths is a heuristic: never worse than the
		 * routing's own paths, which the machine keeps as path 0 */
		ir_machine m0 = *m;
		m0.routing = ir_topo_default_routing(m->topo);
		if (!(ph0 = malloc(((size_t)x->nnz + 1) * sizeof *ph0))) {
			rc = CCP_ENOMEM;
			goto out;
		}
		if ((rc = ff_init(&f0, &m0, x, src, seed, store, runs)) != 0 ||
		    (rc = link_aware_schedule(&m0, &f0, seed, ph0, &nph0)) != 0)
			goto out;
		if (nph0 < nph) {
			rc = emit_phases(p, x, src, NULL, ph0, nph0);
			goto out;
		}
	}
	rc = emit_phases(p, x, src, f.path, ph, nph);
out:
	ff_fini(&f0);
	free(ph0);
	ff_fini(&f);
	free(ph);
	free(src);
	return rc;
}

/* 004 section 2.1: sum over phases of tau + M*phi, M the phase's
 * largest message. */
static double plan_cost(const ir_matrix *x, const uint32_t *ph, uint32_t nph,
                        double tau, double phi, int64_t *maxb)
{
	memset(maxb, 0xff, (size_t)nph * sizeof *maxb);
	for (uint32_t k = 0; k < (uint32_t)x->nnz; k++)
		if (x->bytes[k] > maxb[ph[k]])
			maxb[ph[k]] = x->bytes[k];
	double c = 0;
	for (uint32_t i = 0; i < nph; i++)
		if (maxb[i] >= 0)
			c += tau + (double)maxb[i] * phi;
	return c;
}

/* Node- and link-free schedule that groups messages of similar size so
 * that the sum of tau + M*phi is small.  Candidates, cheapest kept:
 * first fit by exact size (largest first), by half-octave size class
 * (congestion inside a class), each also re-run as an iterated-greedy
 * round with its phases in decreasing-M order (neither the phase count
 * nor any phase's M can grow, so the cost cannot), and the link-aware
 * schedule itself, so sized is never dearer than link_aware.  tau and
 * phi are the machine's, 004's iPSC/860 values when not given; the seed
 * goes to link_aware's tabu search. */
int sch__irr_sized(const ir_machine *m, const ir_matrix *x, uint64_t seed,
                   ir_plan *p)
{
	int rc = check_args(m, x, p);
	if (rc)
		return rc;
	p->flags = 0;
	uint32_t nnz = (uint32_t)x->nnz;
	double tau = m->cost.tau, phi = m->cost.phi;
	if (!(tau >= 0) || !isfinite(tau))
		tau = IPSC_TAU;
	if (!(phi >= 0) || !isfinite(phi))
		phi = IPSC_PHI;
	struct ff f;
	struct sorter s;
	uint32_t best_n = 0, cur_n;
	double best_cost = INFINITY;
	uint32_t *best = malloc(((size_t)nnz + 1) * sizeof *best);
	uint32_t *cur = malloc(((size_t)nnz + 1) * sizeof *cur);
	uint32_t *order = malloc(((size_t)nnz + 1) * sizeof *order);
	uint32_t *grp = malloc(((size_t)nnz + 1) * sizeof *grp);
	uint32_t *rank = NULL;
	int64_t *maxb = NULL;
	int32_t *src = message_sources(x);
	uint32_t *kept = NULL;
	memset(&f, 0, sizeof f);
	memset(&s, 0, sizeof s);
	if (!best || !cur || !order || !grp || !src ||
	    sorter_init(&s, nnz) != 0) {
		rc = CCP_ENOMEM;
		goto out;
	}
	if ((rc = ff_init(&f, m, x, src, seed, FF_STORE, FF_RUNS)) != 0)
		goto out;
	/* candidate 0: link-aware (fewest phases, sizes ignored) */
	if ((rc = link_aware_schedule(m, &f, seed, best, &best_n)) != 0)
		goto out;
	if (f.choose && !(kept = malloc(((size_t)nnz + 1) * sizeof *kept))) {
		rc = CCP_ENOMEM;
		goto out;
	}
	paths_keep(&f, kept, true);
	/* phase counts only shrink below here except for the size orders;
	 * size the per-phase arrays for the worst case, nnz phases */
	rank = malloc(((size_t)nnz + 1) * sizeof *rank);
	maxb = malloc(((size_t)nnz + 1) * sizeof *maxb);
	if (!rank || !maxb) {
		rc = CCP_ENOMEM;
		goto out;
	}
	best_cost = plan_cost(x, best, best_n, tau, phi, maxb);
	for (int cand = 0; cand < 2; cand++) {
		for (uint32_t k = 0; k < nnz; k++)
			order[k] = k;
		sort_by(&s, order, nnz, key_cong, &f);
		sort_by(&s, order, nnz,
		        cand == 0 ? key_size_desc : key_size_class, x);
		ff_reset(&f);
		if ((rc = ff_run(&f, order, nnz, cur)) != 0)
			goto out;
		cur_n = f.nphases;
		for (int round = 0; round < 2; round++) {
			double c = plan_cost(x, cur, cur_n, tau, phi, maxb);
			if (c < best_cost) {
				best_cost = c;
				best_n = cur_n;
				memcpy(best, cur, (size_t)nnz * sizeof *best);
				paths_keep(&f, kept, true);
			}
			if (round == 1)
				break;
			/* regroup: phases by decreasing M */
			uint32_t *ord = grp;
			for (uint32_t i = 0; i < cur_n; i++) {
				ord[i] = i;
				s.key[i] = ~(uint64_t)maxb[i];
			}
			radix_sort(s.key, ord, s.tk, s.tv, cur_n);
			for (uint32_t i = 0; i < cur_n; i++)
				rank[ord[i]] = i;
			if ((rc = iterate_greedy(&f, &s, order, cur, grp, rank,
			                         &cur_n)) != 0)
				goto out;
		}
	}
	paths_keep(&f, kept, false);
	rc = emit_phases(p, x, src, f.path, best, best_n);
out:
	free(kept);
	ff_fini(&f);
	sorter_fini(&s);
	free(best);
	free(cur);
	free(order);
	free(grp);
	free(rank);
	free(maxb);
	free(src);
	return rc;
}

/* ---- generator table entries ---------------------------------------- */

/* The three apply to an irregular pattern on any machine: the colouring
 * needs only the port model, the others also the routing function,
 * which every topology has.  Other collectives have their own
 * generators (their blocks are not one message per matrix entry). */
#define COL_DOMAIN                                                             \
	{.colls = SCH_C(IR_IRREGULAR), .topos = SCH_TOPOS_ANY,                 \
	 .takes = SCH_TAKES_ALL}

/* color may leave links contended; under `contention: forbid` its phases
 * are split (schedules/split.c). */
static int color_generate(const ir_machine *m, const ir_comm *c,
                          const struct sch_options *o, ir_plan *p)
{
	int rc = sch_irregular(m, c->matrix, SCH_IRR_COLOR, o->seed, p);
	if (rc == 0 && o->forbid_contention)
		rc = sch_split_contention(p);
	return rc;
}

static int link_aware_generate(const ir_machine *m, const ir_comm *c,
                               const struct sch_options *o, ir_plan *p)
{
	return sch_irregular(m, c->matrix, SCH_IRR_LINK_AWARE, o->seed, p);
}

static int sized_generate(const ir_machine *m, const ir_comm *c,
                          const struct sch_options *o, ir_plan *p)
{
	return sch_irregular(m, c->matrix, SCH_IRR_SIZED, o->seed, p);
}

const struct sch_generator sch_color = {
        .name = "color",
        .summary = "irregular: optimal node-contention-free schedule, "
                   "bipartite edge colouring in exactly ceil(Delta/ports) "
                   "phases; links may contend",
        .doc = "coloring.md",
        .domain = COL_DOMAIN,
        .generate = color_generate,
};

const struct sch_generator sch_link_aware = {
        .name = "link_aware",
        .summary = "irregular: no node or link contention, congested "
                   "messages first fit, near max(Delta/ports, link load)",
        .doc = "coloring.md",
        .domain = COL_DOMAIN,
        .generate = link_aware_generate,
};

const struct sch_generator sch_sized = {
        .name = "sized",
        .summary = "irregular: no node or link contention, messages of "
                   "similar size share phases (cost tau + M*phi, 004)",
        .doc = "coloring.md",
        .domain = COL_DOMAIN,
        .generate = sized_generate,
};
