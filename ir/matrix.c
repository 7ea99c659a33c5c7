/*
 * matrix.c - building communication matrices: the CSR builder every input
 * form goes through (so the rules of matrix.h are checked in one place),
 * edge lists, and the seeded generators of test patterns.
 */
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "rng.h"

/* ---- row-by-row builder --------------------------------------------- */

int ir_csr_init(struct ir_csr *b, int32_t n)
{
	memset(b, 0, sizeof *b);
	b->last = -1;
	if (n < 1)
		return CCP_EINVAL;
	b->n = n;
	b->row = calloc((size_t)n + 1, sizeof *b->row);
	b->colsum = calloc((size_t)n, sizeof *b->colsum);
	if (!b->row || !b->colsum)
		return CCP_ENOMEM;
	return 0;
}

/* Make room for one more entry, doubling the arrays. */
static int csr_grow(struct ir_csr *b)
{
	int64_t cap = b->cap ? b->cap * 2 : 1024;
	int32_t *dst;
	int64_t *bytes;

	dst = realloc(b->dst, (size_t)cap * sizeof *dst);
	if (!dst)
		return CCP_ENOMEM;
	b->dst = dst;
	bytes = realloc(b->bytes, (size_t)cap * sizeof *bytes);
	if (!bytes)
		return CCP_ENOMEM;
	b->bytes = bytes;
	b->cap = cap;
	return 0;
}

int ir_csr_reserve(struct ir_csr *b, int64_t nnz)
{
	int32_t *dst;
	int64_t *bytes;

	if (nnz <= b->cap)
		return 0;
	dst = realloc(b->dst, (size_t)nnz * sizeof *dst);
	if (!dst)
		return CCP_ENOMEM;
	b->dst = dst;
	bytes = realloc(b->bytes, (size_t)nnz * sizeof *bytes);
	if (!bytes)
		return CCP_ENOMEM;
	b->bytes = bytes;
	b->cap = nnz;
	return 0;
}

int ir_csr_add(struct ir_csr *b, int32_t dst, int64_t bytes)
{
	int rc;

	if (b->rows >= b->n || dst < 0 || dst >= b->n || dst == b->rows ||
	    dst <= b->last || bytes < 0)
		return CCP_EINVAL;
	b->last = dst;
	if (bytes == 0)
		return 0;
	if (bytes > INT64_MAX - b->rowsum) {
		b->col_overflow = false;
		return CCP_ERANGE;
	}
	if (bytes > INT64_MAX - b->colsum[dst]) {
		b->col_overflow = true;
		return CCP_ERANGE;
	}
	if (b->nnz == b->cap && (rc = csr_grow(b)) < 0)
		return rc;
	b->rowsum += bytes;
	b->colsum[dst] += bytes;
	b->dst[b->nnz] = dst;
	b->bytes[b->nnz] = bytes;
	b->nnz++;
	return 0;
}

int ir_csr_end_row(struct ir_csr *b)
{
	if (b->rows >= b->n)
		return CCP_EINVAL;
	b->rows++;
	b->row[b->rows] = b->nnz;
	b->last = -1;
	b->rowsum = 0;
	return 0;
}

int ir_csr_finish(struct ir_csr *b, ir_matrix **out)
{
	ir_matrix *x;

	*out = NULL;
	if (b->rows != b->n)
		return CCP_EINVAL;
	x = ir_matrix_new(b->n, b->nnz);
	if (!x)
		return CCP_ENOMEM;
	memcpy(x->row, b->row, ((size_t)b->n + 1) * sizeof *x->row);
	if (b->nnz) {
		memcpy(x->dst, b->dst, (size_t)b->nnz * sizeof *x->dst);
		memcpy(x->bytes, b->bytes, (size_t)b->nnz * sizeof *x->bytes);
	}
	*out = x;
	return 0;
}

void ir_csr_fini(struct ir_csr *b)
{
	free(b->row);
	free(b->dst);
	free(b->bytes);
	free(b->colsum);
	memset(b, 0, sizeof *b);
}

/* ---- edge lists ------------------------------------------------------- */

/* Order edges by source, destination, then tag (input order). */
static int edge_cmp(const void *pa, const void *pb)
{
	const struct ir_edge *a = pa, *b = pb;

	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	if (a->tag != b->tag)
		return a->tag < b->tag ? -1 : 1;
	return 0;
}

int ir_matrix_from_edges(int32_t n, struct ir_edge *e, size_t m,
                         ir_matrix **out, size_t *bad)
{
	struct ir_csr b;
	int32_t r = 0;
	size_t i;
	int rc;

	*out = NULL;
	*bad = 0;
	rc = ir_csr_init(&b, n);
	if (rc < 0)
		goto out_free_builder;
	if (m > 1)
		qsort(e, m, sizeof *e, edge_cmp);
	for (i = 0; i < m; i++) {
		*bad = i;
		rc = CCP_EINVAL;
		if (e[i].src < 0 || e[i].src >= n || e[i].dst < 0 ||
		    e[i].dst >= n || e[i].src == e[i].dst || e[i].bytes < 0)
			goto out_free_builder;
		if (i > 0 && e[i].src == e[i - 1].src &&
		    e[i].dst == e[i - 1].dst)
			goto out_free_builder;
		while (r < e[i].src) {
			ir_csr_end_row(&b);
			r++;
		}
		rc = ir_csr_add(&b, e[i].dst, e[i].bytes);
		if (rc < 0)
			goto out_free_builder;
	}
	while (r < n) {
		ir_csr_end_row(&b);
		r++;
	}
	rc = ir_csr_finish(&b, out);
out_free_builder:
	ir_csr_fini(&b);
	return rc;
}

/* ---- generators ------------------------------------------------------- */

/* A set of edges (src, dst): a bit matrix for up to IR_MATRIX_DENSE_MAX
 * ranks (32 MiB at most, touched only where used), else open addressing
 * over 64-bit keys, sized for the edges that will be added. */
struct edge_set {
	int32_t n;      /* ranks */
	uint64_t *bits; /* bit matrix, n*n bits, or NULL */
	uint64_t *slot; /* hash: key src << 32 | dst, or EMPTY */
	uint64_t mask;  /* hash: slots - 1, slots a power of two */
};

#define EMPTY UINT64_MAX

/* An empty set for n ranks and up to want edges.  0 or CCP_ENOMEM;
 * set_fini in every case. */
static int set_init(struct edge_set *s, int32_t n, uint64_t want)
{
	uint64_t slots = 16;

	s->n = n;
	if (n <= IR_MATRIX_DENSE_MAX) {
		s->bits = calloc(((uint64_t)n * (uint64_t)n + 63) / 64,
		                 sizeof *s->bits);
		return s->bits ? 0 : CCP_ENOMEM;
	}
	while (slots < 2 * want)
		slots *= 2;
	s->mask = slots - 1;
	s->slot = malloc(slots * sizeof *s->slot);
	if (!s->slot)
		return CCP_ENOMEM;
	memset(s->slot, 0xff, slots * sizeof *s->slot);
	return 0;
}

/* Release the set. */
static void set_fini(struct edge_set *s)
{
	free(s->bits);
	free(s->slot);
}

/* Is (src, dst) in the set? */
static bool set_has(const struct edge_set *s, int32_t src, int32_t dst)
{
	uint64_t k, i;

	if (s->bits) {
		k = (uint64_t)src * (uint64_t)s->n + (uint64_t)dst;
		return s->bits[k / 64] >> (k % 64) & 1;
	}
	k = (uint64_t)src << 32 | (uint32_t)dst;
	i = ir_mix64(k) & s->mask;
	while (s->slot[i] != EMPTY) {
		if (s->slot[i] == k)
			return true;
		i = (i + 1) & s->mask;
	}
	return false;
}

/* Add (src, dst); the caller never adds more than it sized the set for. */
static void set_add(struct edge_set *s, int32_t src, int32_t dst)
{
	uint64_t k, i;

	if (s->bits) {
		k = (uint64_t)src * (uint64_t)s->n + (uint64_t)dst;
		s->bits[k / 64] |= UINT64_C(1) << (k % 64);
		return;
	}
	k = (uint64_t)src << 32 | (uint32_t)dst;
	i = ir_mix64(k) & s->mask;
	while (s->slot[i] != EMPTY && s->slot[i] != k)
		i = (i + 1) & s->mask;
	s->slot[i] = k;
}

/* The state of the permutation being drawn for one round. */
struct round {
	int32_t n;
	int32_t *perm;  /* perm[i]: destination of rank i this round */
	int32_t *pos;   /* pos[c]: the rank whose destination is c */
	int32_t *from;  /* augmenting search: row that reached column c */
	int32_t *queue; /* augmenting search: rows to visit */
	const struct edge_set *used; /* edges of the earlier rounds, or NULL:
	                                then scan the table */
	const int32_t *tab; /* tab[i*k .. i*k+round): i's earlier edges */
	int32_t k;          /* rounds in all */
	int32_t round;      /* rounds drawn so far */
};

/* Rounds up to which an earlier edge is looked up by scanning the rank's
 * row of the table (contiguous, cache-friendly) rather than in a set. */
#define SCAN_ROUNDS 64

/* May rank i send to c this round: not itself, not an earlier edge. */
static bool allowed(const struct round *w, int32_t i, int32_t c)
{
	const int32_t *row;

	if (i == c)
		return false;
	if (w->used)
		return !set_has(w->used, i, c);
	row = w->tab + (size_t)i * (size_t)w->k;
	for (int32_t s = 0; s < w->round; s++)
		if (row[s] == c)
			return false;
	return true;
}

/* Exchange the destinations of ranks i and j. */
static void swap_dst(struct round *w, int32_t i, int32_t j)
{
	int32_t t = w->perm[i];

	w->perm[i] = w->perm[j];
	w->perm[j] = t;
	w->pos[w->perm[i]] = i;
	w->pos[w->perm[j]] = j;
}

/* Give rank i an allowed destination by an augmenting path: the ranks
 * whose destinations are allowed form a partial matching of the allowed
 * bipartite graph, which is regular and so has a perfect matching; a
 * breadth-first search from i therefore reaches a column held by a rank
 * whose destination is not allowed, and shifting destinations along the
 * path makes i's allowed without spoiling another's.  Deterministic: no
 * numbers are drawn.  0, or CCP_EINTERNAL if no path was found. */
static int augment(struct round *w, int32_t i)
{
	int32_t n = w->n, head = 0, tail = 0;
	int32_t old_i = w->perm[i];

	for (int32_t c = 0; c < n; c++)
		w->from[c] = -1;
	w->queue[tail++] = i;
	while (head < tail) {
		int32_t r = w->queue[head++];
		for (int32_t c = 0; c < n; c++) {
			if (w->from[c] >= 0 || !allowed(w, r, c))
				continue;
			w->from[c] = r;
			int32_t h = w->pos[c];
			if (h != i && allowed(w, h, c)) {
				w->queue[tail++] =
				        h; /* visited once: one column */
				continue;
			}
			/* c is free: shift along the path back to i */
			int32_t col = c, row = r;
			for (;;) {
				int32_t prev = w->perm[row];
				w->perm[row] = col;
				w->pos[col] = row;
				if (row == i)
					break;
				col = prev;
				row = w->from[prev];
			}
			if (h != i) {
				w->perm[h] = old_i;
				w->pos[old_i] = h;
			}
			return 0;
		}
	}
	return CCP_EINTERNAL;
}

/* Draw one round: a uniformly shuffled permutation (Fisher-Yates from the
 * identity, i = n-1 down to 1 swapping i with below(i+1)), then, for
 * i = 0..n-1, repair a destination that is i itself or an edge of an
 * earlier round: up to 64 draws of j = below(n), swapping with the first
 * j where both i's and j's new destinations are allowed, else an
 * augmenting path (which always exists). */
static int draw_round(struct round *w, struct ir_rng *g)
{
	int32_t n = w->n;
	int rc;

	for (int32_t i = 0; i < n; i++)
		w->perm[i] = i;
	for (int32_t i = n - 1; i > 0; i--) {
		int32_t j = (int32_t)ir_rng_below(g, (uint64_t)i + 1);
		int32_t t = w->perm[i];
		w->perm[i] = w->perm[j];
		w->perm[j] = t;
	}
	for (int32_t i = 0; i < n; i++)
		w->pos[w->perm[i]] = i;
	for (int32_t i = 0; i < n; i++) {
		bool fixed = allowed(w, i, w->perm[i]);
		for (int t = 0; t < 64 && !fixed; t++) {
			int32_t j = (int32_t)ir_rng_below(g, (uint64_t)n);
			if (j != i && allowed(w, i, w->perm[j]) &&
			    allowed(w, j, w->perm[i])) {
				swap_dst(w, i, j);
				fixed = true;
			}
		}
		if (!fixed && (rc = augment(w, i)) < 0)
			return rc;
	}
	return 0;
}

/* Sift a[i] down the max-heap a[0..n). */
static void sift_down(int32_t *a, int32_t i, int32_t n)
{
	for (;;) {
		int32_t c = 2 * i + 1, t;
		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (a[i] >= a[c])
			return;
		t = a[i];
		a[i] = a[c];
		a[c] = t;
		i = c;
	}
}

/* Sort a row of destinations ascending: insertion sort for short rows,
 * heapsort for long ones (no comparison callbacks on the hot path). */
static void sort_row(int32_t *a, int32_t k)
{
	if (k <= 64) {
		for (int32_t i = 1; i < k; i++) {
			int32_t v = a[i], j = i;
			while (j > 0 && a[j - 1] > v) {
				a[j] = a[j - 1];
				j--;
			}
			a[j] = v;
		}
		return;
	}
	for (int32_t i = k / 2 - 1; i >= 0; i--)
		sift_down(a, i, k);
	for (int32_t end = k - 1; end > 0; end--) {
		int32_t t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift_down(a, 0, end);
	}
}

/* The d-regular digraph as a table: row i's k destinations at
 * tab[i*k .. i*k+k), sorted, where k = d, or k = n-1-d and the table holds
 * the complement when d > (n-1)/2 (so every round draws from an allowed
 * graph of degree at least (n-1)/2, where repairs are quick).
 * *tab is malloc'd (NULL when k == 0). */
static int regular_table(int32_t n, int32_t d, uint64_t seed, int32_t **tab,
                         int32_t *k, bool *complement)
{
	struct ir_rng g;
	struct edge_set used = {0};
	struct round w = {0};
	int32_t *t = NULL;
	int rc = CCP_ENOMEM;

	*tab = NULL;
	*complement = 2 * (int64_t)d > (int64_t)n - 1;
	*k = *complement ? n - 1 - d : d;
	if (*k == 0)
		return 0;
	ir_rng_seed(&g, seed);
	w.n = n;
	w.k = *k;
	t = malloc((size_t)n * (size_t)*k * sizeof *t);
	w.tab = t;
	w.perm = malloc((size_t)n * sizeof *w.perm);
	w.pos = malloc((size_t)n * sizeof *w.pos);
	w.from = malloc((size_t)n * sizeof *w.from);
	w.queue = malloc((size_t)n * sizeof *w.queue);
	if (!t || !w.perm || !w.pos || !w.from || !w.queue)
		goto out_free_round;
	if (*k > SCAN_ROUNDS) {
		w.used = &used;
		if (set_init(&used, n, (uint64_t)n * (uint64_t)*k) < 0)
			goto out_free_set;
	}
	for (int32_t s = 0; s < *k; s++) {
		w.round = s;
		rc = draw_round(&w, &g);
		if (rc < 0)
			goto out_free_set;
		for (int32_t i = 0; i < n; i++) {
			if (w.used)
				set_add(&used, i, w.perm[i]);
			t[(size_t)i * (size_t)*k + (size_t)s] = w.perm[i];
		}
	}
	for (int32_t i = 0; i < n; i++)
		sort_row(t + (size_t)i * (size_t)*k, *k);
	*tab = t;
	t = NULL;
	rc = 0;
out_free_set:
	set_fini(&used);
out_free_round:
	free(t);
	free(w.perm);
	free(w.pos);
	free(w.from);
	free(w.queue);
	return rc;
}

/* Add row i of the d-regular digraph to b, merged with the hot ranks
 * 0..hot-1 (hot == 0 for the plain regular matrix).  A complement table
 * is a full scan of the row; a direct one is a merge of two short sorted
 * lists, so sparse rows cost O(k + hot), not O(n). */
static int regular_row(struct ir_csr *b, int32_t i, const int32_t *row,
                       int32_t k, bool complement, int32_t hot, int64_t bytes)
{
	int32_t p = 0, h = 0;
	int rc;

	if (complement) {
		for (int32_t c = 0; c < b->n; c++) {
			bool in_tab = p < k && row[p] == c;
			if (in_tab)
				p++;
			if (c == i || (in_tab && c >= hot))
				continue;
			if ((rc = ir_csr_add(b, c, bytes)) < 0)
				return rc;
		}
		return ir_csr_end_row(b);
	}
	while (p < k || h < hot) {
		int32_t c;
		if (h < hot && (p >= k || h <= row[p])) {
			c = h++;
			if (p < k && row[p] == c)
				p++;
		} else {
			c = row[p++];
		}
		if (c != i && (rc = ir_csr_add(b, c, bytes)) < 0)
			return rc;
	}
	return ir_csr_end_row(b);
}

/* The regular and skewed generators: the d-regular table, then rows. */
static ir_matrix *regular_hot(int32_t n, int32_t d, int32_t hot, int64_t bytes,
                              uint64_t seed)
{
	struct ir_csr b;
	ir_matrix *x = NULL;
	int32_t *tab = NULL, k;
	bool complement;

	if (n < 1 || d < 0 || d > n - 1 || hot < 0 || hot > n || bytes < 0)
		return NULL;
	if (ir_csr_init(&b, n) < 0)
		goto out_free_builder;
	/* every row gets d entries and at most hot more */
	if (bytes > 0 && ir_csr_reserve(&b, (int64_t)n * (d + hot) + 1) < 0)
		goto out_free_builder;
	if (regular_table(n, d, seed, &tab, &k, &complement) < 0)
		goto out_free_builder;
	for (int32_t i = 0; i < n; i++) {
		const int32_t *row = tab ? tab + (size_t)i * (size_t)k : NULL;
		if (regular_row(&b, i, row, k, complement, hot, bytes) < 0)
			goto out_free_table;
	}
	ir_csr_finish(&b, &x);
out_free_table:
	free(tab);
out_free_builder:
	ir_csr_fini(&b);
	return x;
}

ir_matrix *ir_matrix_regular(int32_t n, int32_t d, int64_t bytes, uint64_t seed)
{
	return regular_hot(n, d, 0, bytes, seed);
}

ir_matrix *ir_matrix_skewed(int32_t n, int32_t d, int32_t hot, int64_t bytes,
                            uint64_t seed)
{
	return regular_hot(n, d, hot, bytes, seed);
}

ir_matrix *ir_matrix_density(int32_t n, double density, int64_t bytes,
                             uint64_t seed)
{
	struct ir_csr b;
	struct ir_rng g;
	ir_matrix *x = NULL;
	uint64_t limit;

	if (n < 1 || !(density >= 0.0 && density <= 1.0) || bytes < 0)
		return NULL;
	/* entry present when the top 53 bits of a draw, as an integer, are
	 * below density * 2^53 (exact: scaling by a power of two), so the
	 * outcome involves no rounding that could differ between machines */
	limit = (uint64_t)(density * 9007199254740992.0);
	ir_rng_seed(&g, seed);
	if (ir_csr_init(&b, n) < 0)
		goto out_free_builder;
	for (int32_t i = 0; i < n; i++) {
		for (int32_t c = 0; c < n; c++) {
			if (c == i)
				continue;
			if ((ir_rng_next(&g) >> 11) < limit &&
			    ir_csr_add(&b, c, bytes) < 0)
				goto out_free_builder;
		}
		ir_csr_end_row(&b);
	}
	ir_csr_finish(&b, &x);
out_free_builder:
	ir_csr_fini(&b);
	return x;
}

/* Ascending order of int32. */
static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

ir_matrix *ir_matrix_stencil(int nd, const int32_t *dims, bool box,
                             int64_t bytes)
{
	struct ir_csr b;
	ir_matrix *x = NULL;
	int64_t n = 1;
	int32_t *nb = NULL, noff = 1;

	if (nd < 1 || nd > IR_MAX_DIMS || !dims || bytes < 0)
		return NULL;
	for (int d = 0; d < nd; d++) {
		if (dims[d] < 1)
			return NULL;
		n *= dims[d];
		noff *= 3;
		if (n > IR_MAX_RANKS)
			return NULL;
	}
	if (ir_csr_init(&b, (int32_t)n) < 0 ||
	    !(nb = malloc((size_t)noff * sizeof *nb)))
		goto out_free;
	for (int32_t r = 0; r < (int32_t)n; r++) {
		int32_t c[IR_MAX_DIMS], k = 0;
		for (int d = 0, q = r; d < nd; q /= dims[d], d++)
			c[d] = q % dims[d];
		/* offset o in base 3, digit d - 1 the step in dimension d */
		for (int32_t o = 0; o < noff; o++) {
			int32_t to = 0, stride = 1, moved = 0;
			bool inside = true;
			for (int d = 0, q = o; d < nd; q /= 3, d++) {
				int v = c[d] + q % 3 - 1;
				inside &= v >= 0 && v < dims[d];
				moved += q % 3 != 1;
				to += v * stride;
				stride *= dims[d];
			}
			if (inside && moved > 0 && (box || moved == 1))
				nb[k++] = to;
		}
		qsort(nb, (size_t)k, sizeof *nb, cmp_i32);
		for (int32_t i = 0; i < k; i++)
			if (ir_csr_add(&b, nb[i], bytes) < 0)
				goto out_free;
		ir_csr_end_row(&b);
	}
	ir_csr_finish(&b, &x);
out_free:
	free(nb);
	ir_csr_fini(&b);
	return x;
}
