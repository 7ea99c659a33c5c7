/*
 * place_support.h - what bench/bench_place.c and
 * tests/schedules/test_place.c share: a pattern with its ranks renamed
 * by a map (a placement, one rank per node) or by a seeded shuffle (a
 * stencil in a random rank order), and a lower bound on the link term
 * of the phases of any placement (place_any_bound).
 *
 * Header-only (the bench and the test are separate executables).  No
 * cmocka and no output: NULL when memory runs out.
 */
#ifndef CCP_PLACE_SUPPORT_H
#define CCP_PLACE_SUPPORT_H

#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "matrix.h"
#include "rng.h"

/* x with rank r renamed to[r] (to a permutation of x's ranks), bytes and
 * message order kept: x as it runs when rank r sits on node to[r]. */
static inline ir_matrix *place_renamed(const ir_matrix *x, const int32_t *to)
{
	struct ir_edge *e = malloc(((size_t)x->nnz + 1) * sizeof *e);
	ir_matrix *out = NULL;
	size_t bad;

	if (!e)
		return NULL;
	for (int32_t s = 0; s < x->n; s++)
		for (int64_t i = x->row[s]; i < x->row[s + 1]; i++)
			e[i] = (struct ir_edge){to[s], to[x->dst[i]],
			                        x->bytes[i], (uint64_t)i};
	if (ir_matrix_from_edges(x->n, e, (size_t)x->nnz, &out, &bad) != 0)
		out = NULL;
	free(e);
	return out;
}

/* x with its ranks renamed by a shuffle seeded with seed. */
static inline ir_matrix *place_scrambled(const ir_matrix *x, uint64_t seed)
{
	int32_t n = x->n, *perm = malloc(((size_t)n + 1) * sizeof *perm);
	struct ir_rng r;
	ir_matrix *out;

	if (!perm)
		return NULL;
	ir_rng_seed(&r, seed);
	for (int32_t i = 0; i < n; i++)
		perm[i] = i;
	for (int32_t i = n - 1; i > 0; i--) {
		int32_t j = (int32_t)ir_rng_below(&r, (uint64_t)i + 1);
		int32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	out = place_renamed(x, perm);
	free(perm);
	return out;
}

/* ---- a bound on every placement ------------------------------------------
 *
 * Cut the machine's vertices into a side holding k of its hosts and the
 * rest.  Whatever the placement, some k ranks S sit on the side, and
 * every message between S and the other n - k ranks crosses one of the
 * links between the two sides, whichever way it is routed.  If those
 * links carry C messages a phase in all (both directions), the busiest
 * of them needs at least cut(S) / C phases, where cut(S) counts the
 * messages between S and the rest.  cut(S) >= lambda2 k (n - k) / n for
 * every k-set S, lambda2 the second smallest eigenvalue of the Laplacian
 * of the pattern's graph (an edge weighted by the messages between two
 * ranks, both ways): Fiedler's bound, the two-part case of Donath and
 * Hoffman's.  So no placement's link term is below
 * ceil(ceil(lambda2 k (n - k) / n) / C), for every cut tried. */

/* The second smallest eigenvalue of the Laplacian of x's message graph
 * (w_ij = messages i -> j plus j -> i), minus a margin for rounding, so
 * never above the true one; -1 when out of memory or when LAPACK fails.
 * LAPACK's dsyevr (through LAPACKE) reduces the dense matrix to
 * tridiagonal form and finds the one eigenvalue by bisection.  O(n^3)
 * time and n^2 doubles: meant for n up to a few thousand. */
static inline double place_lambda2(const ir_matrix *x)
{
	lapack_int n = x->n, found = 0, isuppz[2];
	double scale = 0, z[1];

	if (n < 2)
		return 0;
	/* w: dsyevr writes n entries (the found ones first), not one */
	double *a = calloc((size_t)n * (size_t)n, sizeof *a),
	       *w = malloc((size_t)n * sizeof *w);
	if (!a || !w) {
		free(a);
		free(w);
		return -1;
	}
#define PA(i, j) a[(size_t)(i) * (size_t)n + (size_t)(j)]
	for (int32_t s = 0; s < n; s++)
		for (int64_t i = x->row[s]; i < x->row[s + 1]; i++) {
			int32_t t = x->dst[i];
			if (t == s)
				continue;
			PA(s, t) -= 1;
			PA(t, s) -= 1;
			PA(s, s) += 1;
			PA(t, t) += 1;
		}
	for (int32_t i = 0; i < n; i++)
		scale = fmax(scale, 2 * PA(i, i));
#undef PA
	/* eigenvalues only (N), the 2nd to the 2nd smallest (I, 2, 2), of
	 * the upper triangle; abstol 0 asks for full accuracy */
	lapack_int rc = LAPACKE_dsyevr(LAPACK_ROW_MAJOR, 'N', 'I', 'U', n, a,
	                               n, 0, 0, 2, 2, 0, &found, w, z, 1,
	                               isuppz);
	double l2 = w[0];
	free(a);
	free(w);
	if (rc != 0 || found != 1)
		return -1;
	/* dsyevr is backward stable: the eigenvalues it returns are those
	 * of a matrix within about n eps |A| of the Laplacian; a generous
	 * margin keeps the result below the true one */
	double lo = l2 - 1e-10 * (double)n * (scale + 1);
	return lo > 0 ? lo : 0;
}

static inline int place_u32_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* The degree term of the phase bound (ir_lower_bound's lb_degree: a
 * rank's messages out or in over its node's ports) that no placement of
 * x onto m (one rank per node, m's own placement the identity) goes
 * below.  The i-th busiest rank, like the i - 1 busier ones, must sit
 * on a node with at most the i-th most ports, so the ranks sorted by
 * messages matched to the nodes sorted by ports is the least any
 * placement reaches.  0 when out of memory. */
static inline uint32_t place_any_degree(const ir_machine *m,
                                        const ir_matrix *x)
{
	int32_t n = x->n;
	uint32_t *deg = calloc((size_t)n + 1, sizeof *deg),
	         *in = calloc((size_t)n + 1, sizeof *in),
	         *port = malloc(((size_t)n + 1) * sizeof *port), best = 0;

	if (!deg || !in || !port) {
		free(deg);
		free(in);
		free(port);
		return 0;
	}
	for (int32_t s = 0; s < n; s++) {
		deg[s] = (uint32_t)(x->row[s + 1] - x->row[s]);
		for (int64_t i = x->row[s]; i < x->row[s + 1]; i++)
			in[x->dst[i]]++;
		int q = ir_port_limit(m, s);
		port[s] = q > 0 ? (uint32_t)q : 1;
	}
	for (int32_t s = 0; s < n; s++)
		deg[s] = deg[s] > in[s] ? deg[s] : in[s];
	qsort(deg, (size_t)n, sizeof *deg, place_u32_desc);
	qsort(port, (size_t)n, sizeof *port, place_u32_desc);
	for (int32_t i = 0; i < n; i++) {
		uint32_t t = (deg[i] + port[i] - 1) / port[i];
		best = t > best ? t : best;
	}
	free(deg);
	free(in);
	free(port);
	return best;
}

/* What place_any_bound found: the bound and the cut that gave it. */
struct place_cut {
	uint32_t phases; /* the larger of degree and bound */
	uint32_t degree; /* place_any_degree */
	uint32_t bound;  /* ceil(ceil(lambda2 k (n - k) / n) / cap) */
	int32_t k;       /* hosts on the cut's side */
	uint64_t cap;    /* messages a phase over its links, both ways */
	double lambda2;  /* the Laplacian's, certified from below */
};

/* The link term of the phase bound (ir_lower_bound's lb_link) no
 * placement of x onto m (one rank per node) can go below, by the cuts
 * above, into out->bound, and with the degree term (place_any_degree)
 * the phase bound no placement goes below, into out->phases.  The sides tried: for every order of the hosts (the node
 * order and, on a mesh or torus, each dimension slowest), each prefix
 * of it, and each switch with the side of its nearest host (ties going
 * to the lower or, in a second try, the higher host).  0 and
 * CCP_ENOMEM, CCP_EINVAL when m has several ranks per node. */
static inline int place_any_bound(const ir_machine *m, const ir_matrix *x,
                                  struct place_cut *out)
{
	int32_t n = m->nnodes, nv = n;
	uint64_t nl = ir_nlinks(m);
	int rc = CCP_ENOMEM;

	memset(out, 0, sizeof *out);
	if (m->ranks_per_node > 1 || x->n != n)
		return CCP_EINVAL;
	if (n < 2)
		return 0;
	int32_t *from = malloc((nl + 1) * sizeof *from);
	int32_t *to = malloc((nl + 1) * sizeof *to);
	uint32_t *cap = malloc((nl + 1) * sizeof *cap);
	int32_t *order = malloc((size_t)n * sizeof *order);
	int32_t *at = malloc((size_t)n * sizeof *at);
	int32_t *own[2] = {NULL, NULL}, *dist = NULL, *queue = NULL;
	int64_t *adj_off = NULL;
	int32_t *adj = NULL;
	double l2 = place_lambda2(x);
	if (!from || !to || !cap || !order || !at || l2 < 0)
		goto out;
	for (uint64_t l = 0; l < nl; l++) {
		if (ir_link_ends(m, l, &from[l], &to[l]) != 0) {
			from[l] = to[l] = -1;
			continue;
		}
		cap[l] = (uint32_t)ir_link_capacity(m, l);
		if (from[l] >= nv)
			nv = from[l] + 1;
		if (to[l] >= nv)
			nv = to[l] + 1;
	}
	own[0] = malloc((size_t)nv * sizeof *own[0]);
	own[1] = malloc((size_t)nv * sizeof *own[1]);
	dist = malloc((size_t)nv * sizeof *dist);
	queue = malloc((size_t)nv * sizeof *queue);
	adj_off = calloc((size_t)nv + 1, sizeof *adj_off);
	adj = malloc((2 * nl + 1) * sizeof *adj);
	if (!own[0] || !own[1] || !dist || !queue || !adj_off || !adj)
		goto out;
	/* each vertex's nearest host, ties to the lower (own[0]) or the
	 * higher (own[1]) host: breadth first from every host at once */
	for (uint64_t l = 0; l < nl; l++)
		if (from[l] >= 0) {
			adj_off[from[l] + 1]++;
			adj_off[to[l] + 1]++;
		}
	for (int32_t u = 0; u < nv; u++)
		adj_off[u + 1] += adj_off[u];
	{
		int64_t *fill = malloc(((size_t)nv + 1) * sizeof *fill);
		if (!fill)
			goto out;
		memcpy(fill, adj_off, (size_t)nv * sizeof *fill);
		for (uint64_t l = 0; l < nl; l++)
			if (from[l] >= 0) {
				adj[fill[from[l]]++] = to[l];
				adj[fill[to[l]]++] = from[l];
			}
		free(fill);
	}
	for (int t = 0; t < 2; t++) {
		int32_t head = 0, tail = 0;
		for (int32_t u = 0; u < nv; u++) {
			dist[u] = u < n ? 0 : -1;
			own[t][u] = u < n ? u : -1;
		}
		for (int32_t h = 0; h < n; h++)
			queue[tail++] = t ? n - 1 - h : h;
		while (head < tail) {
			int32_t u = queue[head++];
			for (int64_t j = adj_off[u]; j < adj_off[u + 1]; j++) {
				int32_t w = adj[j];
				if (dist[w] < 0) {
					dist[w] = dist[u] + 1;
					own[t][w] = own[t][u];
					queue[tail++] = w;
				}
			}
		}
	}
	out->lambda2 = l2;
	int nord = 1;
	if (m->topo == IR_MESH || m->topo == IR_TORUS)
		nord = 1 + m->ndims;
	for (int o = 0; o < nord; o++) {
		/* hosts ordered with dimension o - 1 slowest (a stable
		 * counting sort of the node order by that coordinate) */
		for (int32_t h = 0; h < n; h++)
			order[h] = h;
		if (o > 0) {
			int32_t stride = 1, ext = m->dims[o - 1], i = 0;
			for (int dd = 0; dd < o - 1; dd++)
				stride *= m->dims[dd];
			for (int32_t cval = 0; cval < ext; cval++)
				for (int32_t h = 0; h < n; h++)
					if ((h / stride) % ext == cval)
						order[i++] = h;
		}
		for (int32_t h = 0; h < n; h++)
			at[order[h]] = h;
		for (int32_t k = 1; k < n; k++)
			for (int t = 0; t < 2; t++) {
				/* side: vertices whose host is among the
				 * first k of the order */
				uint64_t c = 0;
				for (uint64_t l = 0; l < nl; l++) {
					if (from[l] < 0)
						continue;
					int a = at[own[t][from[l]]] < k,
					    b = at[own[t][to[l]]] < k;
					if (a != b)
						c += cap[l];
				}
				if (c == 0)
					continue;
				double w = l2 * (double)k * (double)(n - k) /
				           (double)n;
				uint64_t cut = (uint64_t)ceil(w - 1e-9);
				uint32_t bd = (uint32_t)((cut + c - 1) / c);
				if (bd > out->bound) {
					out->bound = bd;
					out->k = k;
					out->cap = c;
				}
			}
	}
	rc = 0;
out:
	if (rc == 0) {
		out->degree = place_any_degree(m, x);
		out->phases = out->degree > out->bound ? out->degree
		                                       : out->bound;
	}
	free(from);
	free(to);
	free(cap);
	free(order);
	free(at);
	free(own[0]);
	free(own[1]);
	free(dist);
	free(queue);
	free(adj_off);
	free(adj);
	return rc;
}

#endif
