/*
 * machine.c - the machine model: checking a topology, mapping ranks to
 * coordinates and back, neighbours, directed link ids, and the routing
 * functions (dimension order on meshes and tori, e-cube on hypercubes,
 * extended X-Y on two-level HPAM machines, the direct link on a switch,
 * d-mod-k and s-mod-k on fat trees, shortest and adaptive on graphs,
 * minimal, Valiant and adaptive on dragonflies), and link capacities.
 *
 * Everything here is pure and allocation-free, but for the objects
 * machines share (placement maps, graphs with their distance tables),
 * made once before any routing.  ir_route runs once per
 * transfer of plans with tens of thousands of ranks, so it costs O(hops)
 * (hypercube: O(n)).  Every function except ir_machine_check and the
 * name functions assumes a machine ir_machine_check accepted (nranks
 * derived, no zero extents).  Numbering, link ids, the torus tie rule and
 * an HPAM worked example are in docs/machine-model.md.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "rng.h"

/* HPAM link directions: rank * HPAM_DIRS + dir. */
enum {
	HPAM_PX,   /* +x: next column, same row and level */
	HPAM_MX,   /* -x: previous column */
	HPAM_PY,   /* +y: next row (rows grow downwards, row 0 on top) */
	HPAM_MY,   /* -y: previous row */
	HPAM_UP,   /* level-2 top-row node -> its level-1 node (000 eq. 1) */
	HPAM_DOWN, /* level-1 bottom-row node -> this level-2 node */
	HPAM_DIRS
};

/* The shape of an HPAM machine, unpacked once per call. */
struct hpam {
	int32_t r1, c1; /* level-1 rows and columns */
	int32_t r2, c2; /* level-2 rows and columns */
	int32_t f;      /* c2 / c1: level-2 columns under one level-1 column */
	int32_t n1;     /* ranks in level 1, the first rank of level 2 */
};

/* A node of an HPAM machine. */
struct hpam_pos {
	int level; /* 0 = level 1 (top), 1 = level 2 */
	int32_t x; /* column */
	int32_t y; /* row, 0 on top */
};

/* Write a one-line message into err, if the caller gave room for one. */
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* True for 1, 2, 4, ...: 000 eq. 1 needs power-of-two column counts. */
/* Append link id to a route: links[h] unless links is NULL, where the
 * caller only counts hops (ir_hops).  Every route function writes
 * through it. */
static int put(uint64_t *links, int h, uint64_t id)
{
	if (links)
		links[h] = id;
	return h + 1;
}

static bool is_pow2(int v)
{
	return v > 0 && (v & (v - 1)) == 0;
}

/* Check a mesh or torus and derive its node count; the product is built
 * one factor at a time in 64 bits and stops once past IR_MAX_RANKS, so
 * extents near INT_MAX cannot overflow it.  Fills the defaults of wrap
 * (a torus wraps every dimension) and order (x, y, z...). */
static int check_grid(ir_machine *m, char *err, size_t errlen)
{
	const char *kind = ir_topo_name(m->topo);
	unsigned all, seen = 0;
	int64_t n = 1;
	int d;

	if (m->ndims < 1 || m->ndims > IR_MAX_DIMS) {
		set_err(err, errlen, "ndims must be 1..%d for a %s, got %d",
		        IR_MAX_DIMS, kind, m->ndims);
		return CCP_EINVAL;
	}
	for (d = 0; d < m->ndims; d++) {
		if (m->dims[d] < 1) {
			set_err(err, errlen, "dims[%d] must be >= 1, got %d", d,
			        m->dims[d]);
			return CCP_EINVAL;
		}
	}
	for (; d < IR_MAX_DIMS; d++) {
		if (m->dims[d] == 0)
			m->dims[d] = 1; /* unused and unset, as 0 fields are */
		if (m->dims[d] != 1) {
			set_err(err, errlen,
			        "dims[%d] must be 1 (unused by a "
			        "%d-dimensional %s), got %d",
			        d, m->ndims, kind, m->dims[d]);
			return CCP_EINVAL;
		}
	}
	for (d = 0; d < m->ndims; d++) {
		n *= m->dims[d];
		if (n > IR_MAX_RANKS) {
			set_err(err, errlen,
			        "dims make more than IR_MAX_RANKS (%d) nodes",
			        IR_MAX_RANKS);
			return CCP_EINVAL;
		}
	}
	all = (1u << m->ndims) - 1u;
	if (m->topo == IR_MESH && m->wrap != 0) {
		set_err(err, errlen,
		        "wrap must be 0 on a mesh (a machine with wrapped "
		        "dimensions is a torus), got %#x",
		        m->wrap);
		return CCP_EINVAL;
	}
	if (m->topo == IR_TORUS && m->wrap == 0)
		m->wrap = all;
	if (m->wrap & ~all) {
		set_err(err, errlen,
		        "wrap %#x names a dimension a %d-dimensional %s does "
		        "not have",
		        m->wrap, m->ndims, kind);
		return CCP_EINVAL;
	}
	for (d = 0; d < IR_MAX_DIMS && m->order[d] == 0; d++)
		;
	if (d == IR_MAX_DIMS)
		for (d = 0; d < IR_MAX_DIMS; d++)
			m->order[d] = (uint8_t)d;
	for (d = m->ndims; d < IR_MAX_DIMS; d++)
		m->order[d] = (uint8_t)d; /* unused dimensions, in place */
	for (d = 0; d < m->ndims; d++) {
		unsigned o = m->order[d];
		if (o >= (unsigned)m->ndims || (seen >> o & 1u)) {
			set_err(err, errlen,
			        "order must list each of the %d dimensions "
			        "once (entry %d is %u)",
			        m->ndims, d, o);
			return CCP_EINVAL;
		}
		seen |= 1u << o;
	}
	m->nnodes = (int32_t)n;
	return 0;
}

/* Check an HPAM machine against 000 §2.2: two meshes, c1 <= c2, both
 * column counts powers of two (eq. 1). */
static int check_hpam(ir_machine *m, char *err, size_t errlen)
{
	static const char *const what[2] = {"rows", "columns"};
	int64_t n;
	int l, k;

	for (l = 0; l < 2; l++) {
		for (k = 0; k < 2; k++) {
			if (m->levels[l][k] < 1) {
				set_err(err, errlen,
				        "levels[%d][%d] (level-%d %s) must be "
				        ">= 1, got %d",
				        l, k, l + 1, what[k], m->levels[l][k]);
				return CCP_EINVAL;
			}
		}
		if (!is_pow2(m->levels[l][1])) {
			set_err(err, errlen,
			        "levels[%d][1] (level-%d columns) must be a "
			        "power of two (000 eq. 1), got %d",
			        l, l + 1, m->levels[l][1]);
			return CCP_EINVAL;
		}
	}
	if (m->levels[0][1] > m->levels[1][1]) {
		set_err(err, errlen,
		        "levels[1][1] (level-2 columns) must be >= "
		        "levels[0][1] (level-1 columns), got %d < %d",
		        m->levels[1][1], m->levels[0][1]);
		return CCP_EINVAL;
	}
	/* each product < 2^62, their sum < 2^63 */
	n = (int64_t)m->levels[0][0] * m->levels[0][1] +
	    (int64_t)m->levels[1][0] * m->levels[1][1];
	if (n > IR_MAX_RANKS) {
		set_err(err, errlen,
		        "levels %dx%d + %dx%d make %" PRId64
		        " ranks, more than IR_MAX_RANKS (%d)",
		        m->levels[0][0], m->levels[0][1], m->levels[1][0],
		        m->levels[1][1], n, IR_MAX_RANKS);
		return CCP_EINVAL;
	}
	m->ndims = 2;
	m->nnodes = (int32_t)n;
	return 0;
}

/* ---- fat trees (XGFT) ----------------------------------------------- */

/* The shape of a fat tree XGFT(h; m_1..m_h; w_1..w_h), unpacked once per
 * call.  Vertices of level l (0 = hosts) are numbered in mixed radix
 * with digits d_1 (fastest) .. d_h: for i <= l the parent port b_i
 * (radix w_i) taken at level i, for i > l the place a_i (radix m_i)
 * under the level-i switch.  A level-(l-1) vertex reaches its parent
 * through port p by setting digit l to p; the directed links of level l
 * are link_off[l] + 2 * (child * w_l + p) + (0 up, 1 down). */
struct xgft {
	int h;
	int64_t m[IR_MAX_TREE + 1], w[IR_MAX_TREE + 1]; /* [1..h] */
	int cap[IR_MAX_TREE + 1];       /* cables per link of level l */
	int64_t W[IR_MAX_TREE + 1];     /* w_1 * .. * w_l, W[0] = 1 */
	int64_t M[IR_MAX_TREE + 1];     /* m_1 * .. * m_l, M[0] = 1 */
	int64_t n[IR_MAX_TREE + 1];     /* vertices of level l */
	int64_t base[IR_MAX_TREE + 2];  /* first vertex id of level l */
	uint64_t link_off[IR_MAX_TREE + 2]; /* first link id of level l */
};

/* The capacity a fat tree's level-i links have (levels[][] in ir.h). */
static int *tree_cap(ir_machine *m, int i)
{
	return &m->levels[(i - 1) / 2][(i - 1) % 2];
}

/* Unpack a checked fat tree. */
static void xgft_shape(const ir_machine *m, struct xgft *t)
{
	t->h = m->ndims;
	t->W[0] = t->M[0] = 1;
	t->base[0] = 0;
	t->link_off[1] = 0;
	for (int i = 1; i <= t->h; i++) {
		t->m[i] = m->dims[i - 1];
		t->w[i] = m->dims[IR_MAX_TREE + i - 1];
		t->cap[i] = *tree_cap((ir_machine *)m, i);
		t->W[i] = t->W[i - 1] * t->w[i];
		t->M[i] = t->M[i - 1] * t->m[i];
	}
	/* n[l] = W[l] * m_{l+1} * .. * m_h, without dividing: this runs
	 * once per route */
	int64_t above = 1;
	for (int l = t->h; l >= 0; l--) {
		t->n[l] = t->W[l] * above;
		above *= l >= 1 ? t->m[l] : 1;
	}
	for (int l = 0; l <= t->h; l++) {
		t->base[l + 1] = t->base[l] + t->n[l];
		if (l >= 1)
			t->link_off[l + 1] =
			        t->link_off[l] +
			        2u * (uint64_t)t->n[l - 1] * (uint64_t)t->w[l];
	}
}

/* Check a fat tree: 1..IR_MAX_TREE levels, every m_i, w_i and capacity
 * at least 1 (0 reads as 1 past level h, and as 1 for a width), at most IR_MAX_RANKS hosts
 * and fewer than 2^31 vertices in all, so vertex ids fit an int32_t. */
static int check_tree(ir_machine *m, char *err, size_t errlen)
{
	int64_t hosts = 1, total = 0;
	int h = m->ndims;

	if (h < 1 || h > IR_MAX_TREE) {
		set_err(err, errlen,
		        "ndims (levels) must be 1..%d for a fat tree, got %d",
		        IR_MAX_TREE, h);
		return CCP_EINVAL;
	}
	for (int d = 0; d < IR_MAX_DIMS; d++) {
		int i = d % IR_MAX_TREE + 1;
		if (i > h && m->dims[d] == 0)
			m->dims[d] = 1;
		if (i <= h && m->dims[d] < 1) {
			set_err(err, errlen, "dims[%d] (level %d %s) must be "
			        ">= 1, got %d", d, i,
			        d < IR_MAX_TREE ? "down" : "up", m->dims[d]);
			return CCP_EINVAL;
		}
		if (i > h && m->dims[d] != 1) {
			set_err(err, errlen,
			        "dims[%d] must be 1 (a %d-level fat tree has "
			        "no level %d), got %d",
			        d, h, i, m->dims[d]);
			return CCP_EINVAL;
		}
	}
	for (int i = 1; i <= IR_MAX_TREE; i++) {
		int *c = tree_cap(m, i);
		if (*c == 0)
			*c = 1; /* a plain link unless the input says more */
		if ((i <= h && *c < 1) || (i > h && *c != 1) ||
		    *c > IR_MAX_RANKS) {
			set_err(err, errlen,
			        "levels[%d][%d] (level %d link width) must be "
			        "%s, got %d",
			        (i - 1) / 2, (i - 1) % 2, i,
			        i > h ? "1 past the tree's levels"
			              : "1..IR_MAX_RANKS",
			        *c);
			return CCP_EINVAL;
		}
	}
	if (m->wrap != 0) {
		set_err(err, errlen, "wrap must be 0 on a fat tree, got %#x",
		        m->wrap);
		return CCP_EINVAL;
	}
	for (int i = 1; i <= h; i++) {
		hosts *= m->dims[i - 1];
		if (hosts > IR_MAX_RANKS) {
			set_err(err, errlen,
			        "dims (down) make more than IR_MAX_RANKS "
			        "(%d) hosts",
			        IR_MAX_RANKS);
			return CCP_EINVAL;
		}
	}
	/* level l has prod_{i<=l} w_i * prod_{i>l} m_i vertices */
	for (int l = 0; l <= h; l++) {
		int64_t v = 1;
		for (int i = 1; i <= h && v <= INT32_MAX; i++)
			v *= i <= l ? m->dims[IR_MAX_TREE + i - 1]
			            : m->dims[i - 1];
		total += v;
		if (total > INT32_MAX) {
			set_err(err, errlen,
			        "dims make a fat tree of more than %d "
			        "vertices (hosts and switches)",
			        INT32_MAX);
			return CCP_EINVAL;
		}
	}
	m->nnodes = (int32_t)hosts;
	return 0;
}

/* Digit i (1..h) of a level-l vertex v. */
static int64_t xgft_digit(const struct xgft *t, int l, int64_t v, int i)
{
	if (i < 1 || i > t->h || i > IR_MAX_TREE)
		return 0; /* no such digit */
	if (i <= l)
		return v / t->W[i - 1] % t->w[i];
	return v / (t->W[l] * (t->M[i - 1] / t->M[l])) % t->m[i];
}

/* The level of the nearest common ancestor of hosts src and dst: the
 * highest digit in which their places differ (0 for one host). */
static int xgft_top(const struct xgft *t, int32_t src, int32_t dst)
{
	int top = 0;
	for (int i = 1; i <= t->h; i++)
		if (xgft_digit(t, 0, src, i) != xgft_digit(t, 0, dst, i))
			top = i;
	return top;
}

/* Fat-tree routing to the nearest common ancestor and down: going up
 * from level l-1 the port is (key / W[l-1] + path digit l) mod w_l, key
 * the destination (d-mod-k, source routing) or the source (s-mod-k),
 * the digits path's in the mixed radix w_1, w_2, ... (all 0 but under
 * source routing); the way down is the only one.  Both hosts are nodes,
 * src != dst. */
static int route_tree(const ir_machine *m, int32_t src, int32_t dst,
                      uint32_t path, uint64_t *links)
{
	struct xgft t;
	int64_t key, v = src;
	int top, k = 0;

	xgft_shape(m, &t);
	key = m->routing == IR_ROUTE_S_MOD_K ? src : dst;
	top = xgft_top(&t, src, dst);
	for (int l = 1; l <= top; l++) {
		int64_t S = t.W[l - 1];
		int64_t p = (key / S + path % t.w[l]) % t.w[l];

		path /= (uint32_t)t.w[l];
		int64_t low = v % S, high = v / S / t.m[l];

		k = put(links, k,
		        t.link_off[l] + 2u * (uint64_t)(v * t.w[l] + p));
		v = low + S * (p + t.w[l] * high);
	}
	for (int l = top; l >= 1; l--) {
		int64_t S = t.W[l - 1], low = v % S;
		int64_t b = v / S % t.w[l], high = v / S / t.w[l];
		int64_t u = low + S * (xgft_digit(&t, 0, dst, l) +
		                       t.m[l] * high);

		k = put(links, k,
		        t.link_off[l] + 2u * (uint64_t)(u * t.w[l] + b) + 1u);
		v = u;
	}
	return k;
}

/* Put the W[l] level-l links of host's ancestors at level l-1, every
 * port of each: up links (dir 0) or down links (dir 1).  The ancestors
 * are the vertices low + W[l-1] * (host / M[l-1]), low < W[l-1]. */
static int put_level(uint64_t *links, int k, const struct xgft *t, int l,
                     int32_t host, unsigned dir)
{
	int64_t S = t->W[l - 1], high = host / t->M[l - 1];
	for (int64_t low = 0; low < S; low++)
		for (int64_t p = 0; p < t->w[l]; p++)
			k = put(links, k,
			        t->link_off[l] +
			                2u * (uint64_t)((low + S * high) * t->w[l] +
			                                p) +
			                dir);
	return k;
}

/* Adaptive fat-tree routing: every shortest path climbs to a common
 * ancestor at level top and comes down.  Going up from level l-1, any
 * of the W[l-1] level-(l-1) ancestors of src may be reached and any of
 * their w_l ports taken: W[l] links.  Coming down to level l-1, the
 * ancestors of dst are reached from any of their parents: W[l] links
 * again.  Every level-top ancestor of src is one of dst, so each of
 * these links lies on some path. */
static int route_tree_set(const ir_machine *m, int32_t src, int32_t dst,
                          uint64_t *links)
{
	struct xgft t;
	int k = 0;

	xgft_shape(m, &t);
	int top = xgft_top(&t, src, dst);
	for (int l = 1; l <= top; l++)
		k = put_level(links, k, &t, l, src, 0);
	for (int l = top; l >= 1; l--)
		k = put_level(links, k, &t, l, dst, 1);
	return k;
}

/* The level of a fat-tree link id (< ir_nlinks). */
static int xgft_link_level(const struct xgft *t, uint64_t link)
{
	int l = 1;
	while (l < t->h && link >= t->link_off[l + 1])
		l++;
	return l;
}

/* Ends of a fat-tree link as vertex ids (base[level] + index). */
static void tree_link_ends(const ir_machine *m, uint64_t link, int32_t *from,
                           int32_t *to)
{
	struct xgft t;
	xgft_shape(m, &t);
	int l = xgft_link_level(&t, link);
	uint64_t e = (link - t.link_off[l]) / 2u;
	int64_t v = (int64_t)(e / (uint64_t)t.w[l]);
	int64_t p = (int64_t)(e % (uint64_t)t.w[l]), S = t.W[l - 1];
	int64_t up = v % S + S * (p + t.w[l] * (v / S / t.m[l]));
	int32_t a = (int32_t)(t.base[l - 1] + v), b = (int32_t)(t.base[l] + up);

	*from = link % 2u ? b : a;
	*to = link % 2u ? a : b;
}

/* ---- dragonflies ---------------------------------------------------- */

/* The shape of a dragonfly, unpacked once per call.  Hosts (terminals)
 * are numbered t + p * (r + a * G): terminal t of router r of group G;
 * routers rho = r + a * G.  Directed link ids: a host's link to its
 * router 2 * host, back 2 * host + 1; the local link from router rho to
 * router s of its group local_off + rho * a + s (s != r); the global
 * link out of port j of router rho global_off + rho * h + j.  Vertex ids
 * (ir_link_ends): hosts, then router rho at nnodes + rho. */
struct dfly {
	int64_t p, a, g, h;      /* hosts/router, routers/group, groups,
	                            global links/router */
	int arr;                 /* enum ir_dfly_arrangement */
	int64_t c;               /* rounds: global links joining two groups
	                            (a * h / (g - 1)), 0 with one group */
	int64_t hosts, routers;
	uint64_t local_off, global_off, nlinks;
	int cap[3];              /* host, local, global link widths */
};

/* Unpack a checked dragonfly. */
static void dfly_shape(const ir_machine *m, struct dfly *d)
{
	d->p = m->dims[0];
	d->a = m->dims[1];
	d->g = m->dims[2];
	d->h = m->dims[3];
	d->arr = m->dims[4];
	d->c = d->g > 1 ? d->a * d->h / (d->g - 1) : 0;
	d->routers = d->a * d->g;
	d->hosts = d->p * d->routers;
	d->local_off = 2u * (uint64_t)d->hosts;
	d->global_off = d->local_off + (uint64_t)(d->routers * d->a);
	d->nlinks = d->global_off + (uint64_t)(d->routers * d->h);
	d->cap[0] = m->levels[0][0];
	d->cap[1] = m->levels[0][1];
	d->cap[2] = m->levels[1][0];
}

/* Check a dragonfly: every count at least 1 and within its limit, the
 * global ports of a group a whole number of rounds (each joins every
 * other group once: a * h a multiple of g - 1, so g <= a * h + 1), an
 * odd number of groups for the circulant arrangement, at most
 * IR_MAX_RANKS hosts.  Widths and unused fields 0 read as 1. */
static int check_dfly(ir_machine *m, char *err, size_t errlen)
{
	static const char *const what[4] = {
	        "hosts per router", "routers per group", "groups",
	        "global links per router"};
	static const int64_t most[4] = {IR_MAX_RANKS, IR_MAX_DFLY,
	                                IR_MAX_DFLY_GROUPS, IR_MAX_DFLY};
	static const char *const width[3] = {"host", "local", "global"};
	int *wp[4] = {&m->levels[0][0], &m->levels[0][1], &m->levels[1][0],
	              &m->levels[1][1]};

	for (int i = 0; i < 4; i++) {
		if (m->dims[i] < 1 || m->dims[i] > most[i]) {
			set_err(err, errlen,
			        "dims[%d] (%s) must be 1..%" PRId64 ", got %d",
			        i, what[i], most[i], m->dims[i]);
			return CCP_EINVAL;
		}
	}
	if ((unsigned)m->dims[4] >= IR_NDFLY_ARRANGEMENTS) {
		set_err(err, errlen,
		        "dims[4] (global-link arrangement) must be 0..%d "
		        "(absolute, relative, circulant), got %d",
		        IR_NDFLY_ARRANGEMENTS - 1, m->dims[4]);
		return CCP_EINVAL;
	}
	for (int i = 5; i < IR_MAX_DIMS; i++) {
		if (m->dims[i] == 0)
			m->dims[i] = 1;
		if (m->dims[i] != 1) {
			set_err(err, errlen,
			        "dims[%d] must be 1 (unused by a dragonfly), "
			        "got %d",
			        i, m->dims[i]);
			return CCP_EINVAL;
		}
	}
	for (int i = 0; i < 4; i++) {
		if (*wp[i] == 0)
			*wp[i] = 1; /* a plain link unless the input says more */
		if (*wp[i] < 1 || *wp[i] > IR_MAX_RANKS ||
		    (i == 3 && *wp[i] != 1)) {
			set_err(err, errlen,
			        "levels[%d][%d] (%s%s) must be %s, got %d",
			        i / 2, i % 2, i < 3 ? width[i] : "unused",
			        i < 3 ? " link width" : "",
			        i < 3 ? "1..IR_MAX_RANKS" : "1", *wp[i]);
			return CCP_EINVAL;
		}
	}
	int64_t a = m->dims[1], g = m->dims[2], h = m->dims[3];
	if (g > 1 && (a * h) % (g - 1) != 0) {
		set_err(err, errlen,
		        "dims[2] (groups) must be at most a * h + 1 = %" PRId64
		        " and one more than a divisor of a * h = %" PRId64
		        " (%" PRId64 " routers of %" PRId64 " global links: "
		        "every group pair gets the same number of global "
		        "links), got %d",
		        a * h + 1, a * h, a, h, m->dims[2]);
		return CCP_EINVAL;
	}
	if (m->dims[4] == IR_DFLY_CIRCULANT && g % 2 == 0) {
		set_err(err, errlen,
		        "dims[2] (groups) must be odd for the circulant "
		        "arrangement, which pairs offsets +i and -i, got %d",
		        m->dims[2]);
		return CCP_EINVAL;
	}
	for (int d = 0; d < IR_MAX_DIMS; d++) {
		if (m->order[d] != 0) {
			set_err(err, errlen,
			        "order must be unset on a dragonfly "
			        "(entry %d is %u)",
			        d, (unsigned)m->order[d]);
			return CCP_EINVAL;
		}
	}
	int64_t hosts = (int64_t)m->dims[0] * a * g;
	if (hosts > IR_MAX_RANKS || a * g > INT32_MAX - hosts) {
		set_err(err, errlen,
		        "dims make a dragonfly of %" PRId64 " hosts, more "
		        "than IR_MAX_RANKS (%d)",
		        hosts, IR_MAX_RANKS);
		return CCP_EINVAL;
	}
	m->ndims = 3;
	m->nnodes = (int32_t)hosts;
	return 0;
}

/* The offset (0..g-2) of group t among the global ports of group f, in
 * each round (ir.h, IR_DFLY_ARRANGEMENTS); f != t. */
static int64_t dfly_offset(const struct dfly *d, int64_t f, int64_t t)
{
	int64_t s = (t - f + d->g) % d->g; /* 1..g-1 */

	switch (d->arr) {
	case IR_DFLY_ABSOLUTE:
		return t < f ? t : t - 1;
	case IR_DFLY_RELATIVE:
		return s - 1;
	default: /* circulant: +i at 2(i-1), -i at 2(i-1) + 1 */
		return s <= (d->g - 1) / 2 ? 2 * (s - 1)
		                           : 2 * (d->g - s - 1) + 1;
	}
}

/* The group that offset q of group f reaches: dfly_offset's inverse. */
static int64_t dfly_target(const struct dfly *d, int64_t f, int64_t q)
{
	switch (d->arr) {
	case IR_DFLY_ABSOLUTE:
		return q < f ? q : q + 1;
	case IR_DFLY_RELATIVE:
		return (f + q + 1) % d->g;
	default:
		return q % 2 ? (f - q / 2 - 1 + d->g) % d->g
		             : (f + q / 2 + 1) % d->g;
	}
}

/* Directed local link from router r to router s of group grp. */
static uint64_t dfly_local(const struct dfly *d, int64_t grp, int64_t r,
                           int64_t s)
{
	return d->local_off + (uint64_t)((r + d->a * grp) * d->a + s);
}

/* Leave router r of group *grp for group t through the global link of
 * round n: the local link to the router holding that port (unless r
 * holds it), the global link; *grp and *r become the router it reaches. */
static int dfly_hop(const struct dfly *d, int64_t *grp, int64_t *r,
                    int64_t t, int64_t n, uint64_t *links, int k)
{
	int64_t out = n * (d->g - 1) + dfly_offset(d, *grp, t);
	int64_t in = n * (d->g - 1) + dfly_offset(d, t, *grp);

	if (out / d->h != *r)
		k = put(links, k, dfly_local(d, *grp, *r, out / d->h));
	k = put(links, k,
	        d->global_off +
	                (uint64_t)((out / d->h + d->a * *grp) * d->h +
	                           out % d->h));
	*grp = t;
	*r = in / d->h;
	return k;
}

/* Group i (< g - 2) of those other than gs and gd, in increasing
 * order. */
static int64_t dfly_other(uint64_t i, int64_t gs, int64_t gd)
{
	int64_t lo = gs < gd ? gs : gd, hi = gs < gd ? gd : gs;
	int64_t o = (int64_t)i;

	if (o >= lo)
		o++;
	if (o >= hi)
		o++;
	return o;
}

/* Valiant's intermediate group of the message src -> dst (hosts of
 * groups gs != gd, g >= 3): one of the g - 2 others, the
 * ir_mix64(ir_mix64(seed) ^ (src << 32 | dst)) mod (g - 2)-th in
 * increasing order. */
static int64_t dfly_mid(const ir_machine *m, const struct dfly *d,
                        int32_t src, int32_t dst, int64_t gs, int64_t gd)
{
	uint64_t key = (uint64_t)(uint32_t)src << 32 | (uint32_t)dst;

	return dfly_other(ir_mix64(ir_mix64(m->wrap) ^ key) %
	                          (uint64_t)(d->g - 2),
	                  gs, gd);
}

/* A dragonfly route between two hosts (src != dst): the host link, then
 * minimal (to the destination's group through the global link of round
 * dst mod c, then to its router), Valiant (the same to an intermediate
 * group first) or, for adaptive, the union of the minimal path and
 * every Valiant path; then the host link down.  Messages inside one
 * group, and every message when there are fewer than 3 groups, go
 * minimal.  taken: only the path an adaptive message takes unhindered,
 * the minimal one (ir_path).  Under source routing path picks, between
 * groups, the round (dst + path) mod c and then by path / c minimal (0)
 * or Valiant through the (path / c - 1)-th other group. */
static int route_dfly(const ir_machine *m, int32_t src, int32_t dst,
                      uint32_t path, uint64_t *links, bool taken)
{
	struct dfly d;
	dfly_shape(m, &d);
	int64_t rs = src / d.p % d.a, gs = src / d.p / d.a;
	int64_t rd = dst / d.p % d.a, gd = dst / d.p / d.a;
	int64_t n = d.c ? dst % d.c : 0, r = rs, grp = gs, mid = -1;
	bool detour = gs != gd && d.g >= 3 && !taken;
	int k = put(links, 0, 2u * (uint64_t)src);

	if (m->routing == IR_ROUTE_SOURCE && gs != gd) {
		n = (n + (int64_t)(path % (uint64_t)d.c)) % d.c;
		path /= (uint32_t)d.c;
		if (path > 0)
			mid = dfly_other(path - 1, gs, gd);
	} else if (detour && m->routing == IR_ROUTE_VALIANT) {
		mid = dfly_mid(m, &d, src, dst, gs, gd);
	}
	if (mid >= 0) {
		k = dfly_hop(&d, &grp, &r, mid, n, links, k);
	} else if (detour && m->routing == IR_ROUTE_ADAPTIVE) {
		/* every port of round n leads somewhere on one of the
		 * paths: the routers holding them, reached from rs; then
		 * each intermediate group's own link on; and the routers of
		 * round n in gd, to rd */
		int64_t lo = n * (d.g - 1) / d.h;
		int64_t hi = (n * (d.g - 1) + d.g - 2) / d.h;
		for (int64_t s = lo; s <= hi; s++)
			if (s != rs)
				k = put(links, k, dfly_local(&d, gs, rs, s));
		for (int64_t q = 0; q < d.g - 1; q++) {
			int64_t t = dfly_target(&d, gs, q), tr = -1, tg = gs;
			int64_t out = n * (d.g - 1) + q;
			k = put(links, k,
			        d.global_off +
			                (uint64_t)((out / d.h + d.a * gs) * d.h +
			                           out % d.h));
			if (t == gd)
				continue;
			tg = t;
			tr = (n * (d.g - 1) + dfly_offset(&d, t, gs)) / d.h;
			k = dfly_hop(&d, &tg, &tr, gd, n, links, k);
		}
		for (int64_t s = lo; s <= hi; s++)
			if (s != rd)
				k = put(links, k, dfly_local(&d, gd, s, rd));
		return put(links, k, 2u * (uint64_t)dst + 1u);
	}
	if (grp != gd)
		k = dfly_hop(&d, &grp, &r, gd, n, links, k);
	if (r != rd)
		k = put(links, k, dfly_local(&d, gd, r, rd));
	return put(links, k, 2u * (uint64_t)dst + 1u);
}

/* Ends of a dragonfly link as vertex ids (hosts, then routers), or
 * CCP_EINVAL for the unused local ids (a router to itself). */
static int dfly_link_ends(const ir_machine *m, uint64_t link, int32_t *from,
                          int32_t *to)
{
	struct dfly d;
	dfly_shape(m, &d);
	int64_t H = d.hosts;

	if (link < d.local_off) {
		int64_t x = (int64_t)(link / 2u), rho = H + x / d.p;
		*from = (int32_t)(link % 2u ? rho : x);
		*to = (int32_t)(link % 2u ? x : rho);
		return 0;
	}
	if (link < d.global_off) {
		int64_t e = (int64_t)(link - d.local_off);
		int64_t rho = e / d.a, s = e % d.a;
		if (s == rho % d.a)
			return CCP_EINVAL;
		*from = (int32_t)(H + rho);
		*to = (int32_t)(H + rho - rho % d.a + s);
		return 0;
	}
	if (d.g == 1)
		return CCP_EINVAL; /* one group: its global ports lead nowhere */
	int64_t e = (int64_t)(link - d.global_off);
	int64_t rho = e / d.h, grp = rho / d.a;
	int64_t k = rho % d.a * d.h + e % d.h; /* the group's port */
	int64_t q = k % (d.g - 1), n = k / (d.g - 1);
	int64_t t = dfly_target(&d, grp, q);
	int64_t in = n * (d.g - 1) + dfly_offset(&d, t, grp);
	*from = (int32_t)(H + rho);
	*to = (int32_t)(H + t * d.a + in / d.h);
	return 0;
}

/* 0, 1, 2 for a dragonfly's host, local and global links (< nlinks). */
static int dfly_kind(const ir_machine *m, uint64_t link)
{
	struct dfly d;
	dfly_shape(m, &d);
	return link < d.local_off ? 0 : link < d.global_off ? 1 : 2;
}

/* The cables of a dragonfly link: its class's width (ir.h levels). */
static int dfly_capacity(const ir_machine *m, uint64_t link)
{
	struct dfly d;
	dfly_shape(m, &d);
	return d.cap[dfly_kind(m, link)];
}

static enum ir_link_class dfly_class(const ir_machine *m, uint64_t link)
{
	static const enum ir_link_class cls[3] = {IR_LC_HOST, IR_LC_LOCAL,
	                                          IR_LC_GLOBAL};
	return cls[dfly_kind(m, link)];
}

/* ---- graphs ---------------------------------------------------------- */

/* The vertex a directed link of a graph leads to, and the one it
 * leaves. */
static int32_t graph_to(const ir_graph *g, uint64_t link)
{
	const struct ir_cable *c = &g->cables[link / 2u];
	return link % 2u ? c->a : c->b;
}

static int32_t graph_from(const ir_graph *g, uint64_t link)
{
	const struct ir_cable *c = &g->cables[link / 2u];
	return link % 2u ? c->b : c->a;
}

/* Hops from vertex v to host h. */
static int graph_dist(const ir_graph *g, int32_t v, int32_t h)
{
	return g->dist[(size_t)h * (size_t)g->nverts + (size_t)v];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The link a message toward host dst leaves vertex v by (v != dst): the
 * forwarding table's, else shortest's: among the links one hop nearer,
 * in link order, number (dst's key) mod their count; NONE_LINK when v
 * cannot reach dst. */
#define NONE_LINK UINT32_MAX
static uint32_t graph_next(const ir_graph *g, int32_t v, int32_t dst)
{
	uint32_t lo = g->out_off[v], hi = g->out_off[v + 1], n = 0, pick;
	int want = graph_dist(g, v, dst) - 1;

	if (g->next) {
		uint16_t t = g->next[(size_t)dst * (size_t)g->nverts + (size_t)v];
		if (t != UINT16_MAX)
			return g->out[lo + t];
	}
	if (want < 0 || want + 1 == UINT16_MAX)
		return NONE_LINK;
	for (uint32_t i = lo; i < hi; i++)
		n += graph_dist(g, graph_to(g, g->out[i]), dst) == want;
	pick = (uint32_t)(g->key ? g->key[dst] : dst) % n;
	for (uint32_t i = lo;; i++)
		if (graph_dist(g, graph_to(g, g->out[i]), dst) == want &&
		    pick-- == 0)
			return g->out[i];
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* Check the cables: ends in range and distinct, width, bandwidth,
 * class; resolve the defaults into g->cables and derive capacities.
 * Duplicates are found by sorting the (low end, high end) pairs. */
static int graph_check_cables(ir_graph *g, int64_t *bad, char *err,
                              size_t errlen)
{
	double minbw = INFINITY;
	uint64_t *pair = NULL;
	int rc = CCP_EINVAL;

	for (uint32_t i = 0; i < g->ncables; i++) {
		struct ir_cable *c = &g->cables[i];
		*bad = i;
		if (c->a < 0 || c->a >= g->nverts || c->b < 0 ||
		    c->b >= g->nverts) {
			set_err(err, errlen,
			        "cable %u joins vertex %d and %d; the graph's "
			        "vertices are 0..%d",
			        i, (int)c->a, (int)c->b, (int)g->nverts - 1);
			return CCP_EINVAL;
		}
		if (c->a == c->b) {
			set_err(err, errlen, "cable %u joins vertex %d to itself",
			        i, (int)c->a);
			return CCP_EINVAL;
		}
		if (c->width < 1 || c->width > IR_MAX_RANKS) {
			set_err(err, errlen,
			        "cable %u: width must be 1..%d, got %d", i,
			        IR_MAX_RANKS, (int)c->width);
			return CCP_EINVAL;
		}
		if (c->cls != IR_CABLE_CLASS_DEFAULT &&
		    c->cls >= IR_NLINK_CLASSES) {
			set_err(err, errlen, "cable %u: no link class %u", i,
			        (unsigned)c->cls);
			return CCP_EINVAL;
		}
		if (!isnan(c->bandwidth) &&
		    !(c->bandwidth > 0 && isfinite(c->bandwidth))) {
			set_err(err, errlen,
			        "cable %u: bandwidth must be above 0, got %g",
			        i, c->bandwidth);
			return CCP_EINVAL;
		}
		if (!isnan(c->latency) &&
		    !(c->latency >= 0 && isfinite(c->latency))) {
			set_err(err, errlen,
			        "cable %u: latency must be 0 or more, got %g",
			        i, c->latency);
			return CCP_EINVAL;
		}
		if (c->bandwidth < minbw) /* false for NaN */
			minbw = c->bandwidth;
	}
	if (isinf(minbw))
		minbw = 1; /* no cable gives one: all alike */
	for (uint32_t i = 0; i < g->ncables; i++) {
		struct ir_cable *c = &g->cables[i];
		double q;
		*bad = i;
		if (isnan(c->bandwidth))
			c->bandwidth = minbw;
		if (c->cls == IR_CABLE_CLASS_DEFAULT)
			c->cls = c->a < g->nhosts || c->b < g->nhosts
			                 ? IR_LC_HOST
			                 : IR_LC_LOCAL;
		q = c->width * (c->bandwidth / minbw);
		if (q > IR_MAX_RANKS || fabs(q - nearbyint(q)) > 1e-9 * q) {
			set_err(err, errlen,
			        "cable %u: width %d x bandwidth %g must be a "
			        "whole multiple (up to %d) of the smallest "
			        "bandwidth, %g",
			        i, (int)c->width, c->bandwidth, IR_MAX_RANKS,
			        minbw);
			return CCP_EINVAL;
		}
		g->cap[i] = (int32_t)nearbyint(q);
	}
	*bad = -1;
	if (g->ncables > 0 &&
	    !(pair = malloc((size_t)g->ncables * sizeof *pair))) {
		set_err(err, errlen, "out of memory");
		return CCP_ENOMEM;
	}
	for (uint32_t i = 0; i < g->ncables; i++) {
		const struct ir_cable *c = &g->cables[i];
		uint64_t lo = (uint64_t)(c->a < c->b ? c->a : c->b);
		uint64_t hi = (uint64_t)(c->a < c->b ? c->b : c->a);
		pair[i] = (lo << 32 | hi);
	}
	qsort(pair, g->ncables, sizeof *pair, cmp_u64);
	for (uint32_t i = 1; i < g->ncables; i++) {
		if (pair[i] != pair[i - 1])
			continue;
		int32_t lo = (int32_t)(pair[i] >> 32);
		int32_t hi = (int32_t)(pair[i] & 0xffffffffu);
		for (uint32_t k = 0, n = 0; k < g->ncables; k++) {
			const struct ir_cable *c = &g->cables[k];
			if ((c->a == lo && c->b == hi) ||
			    (c->a == hi && c->b == lo)) {
				if (n++ == 1) {
					*bad = k;
					break;
				}
			}
		}
		set_err(err, errlen,
		        "cable %" PRId64 " joins vertex %d and %d again "
		        "(parallel cables are one cable with a width)",
		        *bad, (int)g->cables[*bad].a, (int)g->cables[*bad].b);
		goto out;
	}
	rc = 0;
out:
	free(pair);
	return rc;
}

/* The most links an adaptive route between two hosts may hold.  Its
 * links at step k lead from distance k of the source to k + 1, and at
 * distance D - 1 - k of the destination to D - 2 - k: at most the
 * fewer of F[k] and F[D - 1 - k], F[k] the most links any host has
 * leading from its distance k to k + 1.  The sum over k, largest over
 * the distances D up to the diameter, bounds every union. */
static int graph_union_bound(const ir_graph *g, const uint32_t *F)
{
	uint64_t best = 0;
	for (int D = 1; D <= g->diameter; D++) {
		uint64_t sum = 0;
		for (int k = 0; k < D; k++)
			sum += F[k] < F[D - 1 - k] ? F[k] : F[D - 1 - k];
		best = sum > best ? sum : best;
	}
	if (best > 2u * (uint64_t)g->ncables)
		best = 2u * (uint64_t)g->ncables;
	return (int)best; /* 2 * IR_MAX_CABLES fits */
}

/* The outgoing links of each vertex (a counting sort keeps them in
 * increasing id order), distances from every vertex to every host (one
 * breadth-first search per host; cables go both ways, so the search
 * from h gives the distances to h), the diameter and the adaptive
 * bound. */
static int graph_tables(ir_graph *g, char *err, size_t errlen)
{
	size_t nv = (size_t)g->nverts, nl = 2u * (size_t)g->ncables;
	int32_t *queue = malloc((nv ? nv : 1) * sizeof *queue);
	uint32_t *fill = calloc(nv + 1, sizeof *fill);
	uint32_t *F = calloc(nv + 1, sizeof *F), *Fh = calloc(nv + 1, sizeof *Fh);
	int rc = CCP_ENOMEM;

	g->out_off = calloc(nv + 1, sizeof *g->out_off);
	g->out = malloc((nl ? nl : 1) * sizeof *g->out);
	g->dist = malloc((size_t)g->nhosts * nv * sizeof *g->dist);
	if (!queue || !fill || !F || !Fh || !g->out_off || !g->out ||
	    !g->dist) {
		set_err(err, errlen, "out of memory");
		goto out;
	}
	for (size_t l = 0; l < nl; l++)
		g->out_off[graph_from(g, l) + 1]++;
	for (size_t v = 0; v < nv; v++)
		g->out_off[v + 1] += g->out_off[v];
	for (size_t l = 0; l < nl; l++) {
		int32_t v = graph_from(g, l);
		g->out[g->out_off[v] + fill[v]++] = (uint32_t)l;
	}
	rc = CCP_EINVAL;
	g->diameter = 0;
	g->union_max = 0;
	for (int32_t h = 0; h < g->nhosts; h++) {
		uint16_t *d = g->dist + (size_t)h * nv;
		size_t head = 0, tail = 0;
		for (size_t v = 0; v < nv; v++)
			d[v] = UINT16_MAX;
		d[h] = 0;
		queue[tail++] = h;
		while (head < tail) {
			int32_t v = queue[head++];
			for (uint32_t i = g->out_off[v]; i < g->out_off[v + 1];
			     i++) {
				int32_t u = graph_to(g, g->out[i]);
				if (d[u] != UINT16_MAX)
					continue;
				if (d[v] + 1 >= UINT16_MAX) {
					set_err(err, errlen,
					        "the graph has paths of %d "
					        "hops or more, its limit",
					        UINT16_MAX - 1);
					goto out;
				}
				d[u] = (uint16_t)(d[v] + 1);
				queue[tail++] = u;
			}
		}
		for (int32_t k = 0; k < g->nhosts; k++) {
			if (d[k] == UINT16_MAX) {
				set_err(err, errlen,
				        "host %d cannot reach host %d: the "
				        "graph is not connected",
				        (int)k, (int)h);
				goto out;
			}
			if (d[k] > g->diameter)
				g->diameter = d[k];
		}
		/* links leading from distance k of h to k + 1, by k (a
		 * distance is below nv) */
		for (size_t k = 0; k < tail; k++)
			Fh[d[queue[k]]] = 0;
		for (size_t l = 0; l < nl; l++) {
			uint16_t a = d[graph_from(g, l)], b = d[graph_to(g, l)];
			if (a != UINT16_MAX && b == a + 1)
				Fh[a]++;
		}
		for (size_t k = 0; k < tail; k++)
			if (Fh[d[queue[k]]] > F[d[queue[k]]])
				F[d[queue[k]]] = Fh[d[queue[k]]];
	}
	g->union_max = graph_union_bound(g, F);
	rc = 0;
out:
	free(queue);
	free(fill);
	free(F);
	free(Fh);
	return rc;
}

ir_graph *ir_graph_new(int32_t nhosts, int32_t nswitches,
                       const struct ir_cable *cables, uint32_t ncables,
                       int *rc, int64_t *bad, char *err, size_t errlen)
{
	ir_graph *g = NULL;
	int64_t nv = (int64_t)nhosts + nswitches;

	*bad = -1;
	*rc = CCP_EINVAL;
	if (nhosts < 1 || nhosts > IR_MAX_RANKS || nswitches < 0 ||
	    nv > IR_MAX_RANKS) {
		set_err(err, errlen,
		        "a graph needs 1..%d hosts and at most %d vertices, "
		        "got %d hosts and %d switches",
		        IR_MAX_RANKS, IR_MAX_RANKS, (int)nhosts,
		        (int)nswitches);
		return NULL;
	}
	if (nv * nhosts > IR_MAX_GRAPH_TABLE) {
		set_err(err, errlen,
		        "%" PRId64 " vertices x %d hosts exceed the graph "
		        "limit of %" PRId64 " (IR_MAX_GRAPH_TABLE), the size "
		        "of its distance table",
		        nv, (int)nhosts, IR_MAX_GRAPH_TABLE);
		return NULL;
	}
	if (ncables > IR_MAX_CABLES) {
		set_err(err, errlen, "a graph has at most %d cables, got %u",
		        IR_MAX_CABLES, ncables);
		return NULL;
	}
	*rc = CCP_ENOMEM;
	if (!(g = calloc(1, sizeof *g)))
		goto out_nomem;
	g->refs = 1;
	g->nhosts = nhosts;
	g->nswitches = nswitches;
	g->nverts = (int32_t)nv;
	g->ncables = ncables;
	g->cables = malloc((ncables ? ncables : 1) * sizeof *g->cables);
	g->cap = malloc((ncables ? ncables : 1) * sizeof *g->cap);
	if (!g->cables || !g->cap)
		goto out_nomem;
	if (ncables)
		memcpy(g->cables, cables, ncables * sizeof *cables);
	if ((*rc = graph_check_cables(g, bad, err, errlen)) != 0)
		goto out_fail;
	if ((*rc = graph_tables(g, err, errlen)) != 0)
		goto out_fail;
	return g;

out_nomem:
	set_err(err, errlen, "out of memory");
out_fail:
	g = (ir_graph_release(g), NULL);
	return g;
}

void ir_graph_retain(ir_graph *g)
{
	if (g)
		g->refs++;
}

void ir_graph_release(ir_graph *g)
{
	if (!g || --g->refs != 0)
		return;
	free(g->cables);
	free(g->cap);
	free(g->out_off);
	free(g->out);
	free(g->dist);
	free(g->key);
	free(g->next);
	free(g);
}

int ir_graph_set_keys(ir_graph *g, const int32_t *key, char *err,
                      size_t errlen)
{
	int32_t n = g->nhosts;
	int32_t *k = malloc((size_t)n * sizeof *k);
	int32_t *sorted = malloc((size_t)n * sizeof *sorted);
	int rc = CCP_ENOMEM;

	if (!k || !sorted) {
		set_err(err, errlen, "out of memory");
		goto out;
	}
	memcpy(k, key, (size_t)n * sizeof *k);
	memcpy(sorted, key, (size_t)n * sizeof *sorted);
	qsort(sorted, (size_t)n, sizeof *sorted, cmp_i32);
	rc = CCP_EINVAL;
	for (int32_t i = 0; i < n; i++)
		if (sorted[i] < 0 || (i && sorted[i] == sorted[i - 1])) {
			set_err(err, errlen,
			        "route key %d of the graph's hosts is %s",
			        (int)sorted[i],
			        sorted[i] < 0 ? "negative" : "given twice");
			goto out;
		}
	free(g->key);
	g->key = k;
	k = NULL;
	rc = 0;
out:
	free(k);
	free(sorted);
	return rc;
}

int ir_graph_set_table(ir_graph *g, const struct ir_route_entry *e,
                       uint32_t n, int64_t *bad, char *err, size_t errlen)
{
	size_t nv = (size_t)g->nverts, cells = (size_t)g->nhosts * nv;
	uint16_t *next = malloc((cells ? cells : 1) * sizeof *next);
	int32_t *len = malloc((nv ? nv : 1) * sizeof *len);
	int32_t *walk = malloc((nv ? nv : 1) * sizeof *walk);
	int rc = CCP_ENOMEM, most = 0;

	*bad = -1;
	if (!next || !len || !walk) {
		set_err(err, errlen, "out of memory");
		goto out;
	}
	memset(next, 0xff, cells * sizeof *next);
	rc = CCP_EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		const struct ir_route_entry *t = &e[i];
		*bad = i;
		if (t->from < 0 || t->from >= g->nverts || t->host < 0 ||
		    t->host >= g->nhosts || t->to < 0 || t->to >= g->nverts) {
			set_err(err, errlen,
			        "the entry names a vertex past the graph's %d",
			        (int)g->nverts);
			goto out;
		}
		if (t->from == t->host) {
			set_err(err, errlen,
			        "a message toward host %d has arrived at it: "
			        "it takes no next hop there",
			        (int)t->host);
			goto out;
		}
		uint32_t lo = g->out_off[t->from], hi = g->out_off[t->from + 1],
		         at = lo;
		while (at < hi && graph_to(g, g->out[at]) != t->to)
			at++;
		if (at == hi) {
			set_err(err, errlen,
			        "vertex %d has no cable to vertex %d",
			        (int)t->from, (int)t->to);
			goto out;
		}
		uint16_t *c = &next[(size_t)t->host * nv + (size_t)t->from];
		if (*c != UINT16_MAX) {
			set_err(err, errlen,
			        "vertex %d's next hop toward host %d is given "
			        "twice",
			        (int)t->from, (int)t->host);
			goto out;
		}
		if (at - lo >= UINT16_MAX) {
			set_err(err, errlen, "vertex %d has too many cables",
			        (int)t->from);
			goto out;
		}
		*c = (uint16_t)(at - lo);
	}
	*bad = -1;
	free(g->next);
	g->next = next;
	next = NULL;
	/* every host reaches every other: walks with lengths kept, -1 not
	 * yet known, -2 on the current walk */
	for (int32_t h = 0; h < g->nhosts; h++) {
		for (size_t v = 0; v < nv; v++)
			len[v] = -1;
		len[h] = 0;
		for (int32_t s = 0; s < g->nhosts; s++) {
			int32_t v = s, depth = 0;
			while (len[v] == -1) {
				uint32_t l = graph_next(g, v, h);
				if (l == NONE_LINK) {
					set_err(err, errlen,
					        "toward host %d the table leads "
					        "to vertex %d, which cannot "
					        "reach it",
					        (int)h, (int)v);
					goto out_drop;
				}
				walk[depth++] = v;
				len[v] = -2;
				v = graph_to(g, l);
			}
			if (len[v] == -2) {
				set_err(err, errlen,
				        "toward host %d the table goes round "
				        "in a loop through vertex %d",
				        (int)h, (int)v);
				goto out_drop;
			}
			for (int32_t d = depth - 1; d >= 0; d--)
				len[walk[d]] = len[v] + (depth - d);
			most = len[s] > most ? len[s] : most;
		}
	}
	g->table_max = most;
	rc = 0;
	goto out;
out_drop:
	free(g->next);
	g->next = NULL;
out:
	free(next);
	free(len);
	free(walk);
	return rc;
}

int ir_graph_table(const ir_graph *g, struct ir_route_entry **out, uint32_t *n)
{
	size_t nv = (size_t)g->nverts, cells = (size_t)g->nhosts * nv, k = 0;

	*out = NULL;
	*n = 0;
	for (size_t c = 0; g->next && c < cells; c++)
		k += g->next[c] != UINT16_MAX;
	if (k == 0)
		return 0;
	if (!(*out = malloc(k * sizeof **out)))
		return CCP_ENOMEM;
	for (size_t c = 0; c < cells; c++) {
		uint16_t t = g->next[c];
		int32_t v = (int32_t)(c % nv);
		if (t != UINT16_MAX)
			(*out)[(*n)++] = (struct ir_route_entry){
			        v, (int32_t)(c / nv),
			        graph_to(g, g->out[g->out_off[v] + t])};
	}
	return 0;
}

ir_graph *ir_graph_subset(const ir_graph *g, const int32_t *hosts, int32_t n,
                          int *rc, char *err, size_t errlen)
{
	int32_t H = g->nhosts, *at = NULL, *key = NULL, next = n;
	struct ir_cable *c = NULL;
	ir_graph *s = NULL;
	int64_t bad;

	*rc = CCP_EINVAL;
	if (n < 1 || n > H) {
		set_err(err, errlen, "a job on %d of the graph's %d hosts",
		        (int)n, (int)H);
		return NULL;
	}
	*rc = CCP_ENOMEM;
	at = malloc((size_t)g->nverts * sizeof *at);
	key = malloc((size_t)n * sizeof *key);
	c = malloc((g->ncables ? g->ncables : 1) * sizeof *c);
	if (!at || !key || !c) {
		set_err(err, errlen, "out of memory");
		goto out;
	}
	*rc = CCP_EINVAL;
	for (int32_t v = 0; v < g->nverts; v++)
		at[v] = -1;
	for (int32_t i = 0; i < n; i++) {
		if (hosts[i] < 0 || hosts[i] >= H || at[hosts[i]] >= 0) {
			set_err(err, errlen,
			        "host %d is not one of the graph's %d hosts, "
			        "or is given twice",
			        (int)hosts[i], (int)H);
			goto out;
		}
		at[hosts[i]] = i;
		key[i] = g->key ? g->key[hosts[i]] : hosts[i];
	}
	for (int32_t v = 0; v < g->nverts; v++)
		if (at[v] < 0)
			at[v] = next++;
	for (uint32_t i = 0; i < g->ncables; i++) {
		c[i] = g->cables[i];
		c[i].a = at[c[i].a];
		c[i].b = at[c[i].b];
	}
	s = ir_graph_new(n, g->nverts - n, c, g->ncables, rc, &bad, err,
	                 errlen);
	if (s && (*rc = ir_graph_set_keys(s, key, err, errlen)) != 0)
		s = (ir_graph_release(s), NULL);
	if (s && g->next) { /* the same out lists: the indexes carry over */
		size_t cells = (size_t)n * (size_t)s->nverts;
		if (!(s->next = malloc(cells * sizeof *s->next))) {
			*rc = CCP_ENOMEM;
			set_err(err, errlen, "out of memory");
			s = (ir_graph_release(s), NULL);
			goto out;
		}
		for (int32_t i = 0; i < n; i++)
			for (int32_t v = 0; v < g->nverts; v++)
				s->next[(size_t)i * (size_t)s->nverts +
				        (size_t)at[v]] =
				        g->next[(size_t)hosts[i] *
				                        (size_t)g->nverts +
				                (size_t)v];
		s->table_max = g->table_max;
	}
out:
	free(at);
	free(key);
	free(c);
	return s;
}

/* A graph machine takes its hosts from the graph: one node per host. */
static int check_graph(ir_machine *m, char *err, size_t errlen)
{
	if (!m->graph) {
		set_err(err, errlen, "a graph machine needs its graph");
		return CCP_EINVAL;
	}
	if (m->wrap != 0) {
		set_err(err, errlen, "wrap must be 0 on a graph, got %#x",
		        m->wrap);
		return CCP_EINVAL;
	}
	if ((m->routing == IR_ROUTE_TABLE) != (m->graph->next != NULL)) {
		set_err(err, errlen,
		        m->graph->next ? "a graph with a forwarding table "
		                         "routes by it: routing: table"
		                       : "routing table needs the graph's "
		                         "forwarding table (graph.table)");
		return CCP_EINVAL;
	}
	m->ndims = 1;
	m->dims[0] = m->graph->nhosts;
	for (int d = 1; d < IR_MAX_DIMS; d++)
		m->dims[d] = 1;
	m->nnodes = m->graph->nhosts;
	return 0;
}

/* The route src -> dst (hosts, src != dst) hop by hop (graph_next),
 * which ir_graph_set_table has made sure ends at dst. */
static int route_graph_path(const ir_graph *g, int32_t src, int32_t dst,
                            uint64_t *links)
{
	int32_t v = src;
	int k = 0;

	while (v != dst) {
		uint32_t l = graph_next(g, v, dst);
		k = put(links, k, l);
		v = graph_to(g, l);
	}
	return k;
}

/* Adaptive routing: every link of every shortest path, layer by layer
 * from src.  Each layer is sorted by the vertex it leads to (packed as
 * vertex << 32 | link, unpacked once the next layer is built), so the
 * next layer leaves each of those vertices once: no scratch memory.
 * links may not be NULL (ir_hops counts ir_path, not this). */
static int route_graph_union(const ir_graph *g, int32_t src, int32_t dst,
                             uint64_t *links)
{
	int hops = graph_dist(g, src, dst), k = 0, start = 0, end = 0;

	for (int step = 0; step < hops; step++) {
		int from = k;
		for (int i = start; i < end || (step == 0 && i == 0); i++) {
			int32_t v = step == 0 ? src : (int32_t)(links[i] >> 32);
			if (step > 0 && i > start &&
			    links[i] >> 32 == links[i - 1] >> 32)
				continue;
			int want = graph_dist(g, v, dst) - 1;
			for (uint32_t j = g->out_off[v]; j < g->out_off[v + 1];
			     j++) {
				int32_t u = graph_to(g, g->out[j]);
				if (graph_dist(g, u, dst) == want)
					links[k++] = (uint64_t)u << 32 |
					             g->out[j];
			}
		}
		for (int i = start; i < end; i++)
			links[i] &= 0xffffffffu;
		qsort(links + from, (size_t)(k - from), sizeof *links,
		      cmp_u64);
		start = from;
		end = k;
	}
	for (int i = start; i < end; i++)
		links[i] &= 0xffffffffu;
	return k;
}

/* A graph's route between two hosts under its routing. */
static int route_graph(const ir_machine *m, int32_t src, int32_t dst,
                       uint64_t *links)
{
	if (m->routing == IR_ROUTE_ADAPTIVE)
		return route_graph_union(m->graph, src, dst, links);
	return route_graph_path(m->graph, src, dst, links);
}

/* A host's cables, each counted width times. */
static int graph_degree(const ir_graph *g, int32_t v)
{
	int64_t deg = 0;
	for (uint32_t i = g->out_off[v]; i < g->out_off[v + 1]; i++)
		deg += g->cables[g->out[i] / 2u].width;
	return deg > INT32_MAX ? INT32_MAX : (int)deg;
}

void ir_cost_unset(ir_cost *c)
{
	c->preset[0] = '\0';
	c->alpha = c->beta = c->hop = c->gamma = NAN;
	c->beta_sat = c->tau = c->phi = c->lambda = c->combine = NAN;
	c->shm_alpha = c->shm_beta = NAN;
	for (int l = 0; l < 2; l++)
		c->c_send[l] = c->c_recv[l] = c->copy[l] = NAN;
}

bool ir_cost_has_shm(const ir_cost *c)
{
	return c->shm_alpha > 0 || c->shm_beta > 0; /* false for NaN */
}

bool ir_cost_has_combine(const ir_cost *c)
{
	return c->combine > 0; /* false for NaN */
}

/* The ranks on each node: ranks_per_node (0 reads as 1), the placement,
 * the node's network ports; derives nranks from nnodes. */
static int check_nodes(ir_machine *m, char *err, size_t errlen)
{
	int64_t n;

	if (m->ranks_per_node == 0)
		m->ranks_per_node = 1;
	if (m->ranks_per_node < 1) {
		set_err(err, errlen, "ranks_per_node must be >= 1, got %d",
		        (int)m->ranks_per_node);
		return CCP_EINVAL;
	}
	if (m->topo == IR_HPAM && m->ranks_per_node > 1) {
		set_err(err, errlen,
		        "ranks_per_node must be 1 on an hpam machine (its "
		        "levels are ranks), got %d",
		        (int)m->ranks_per_node);
		return CCP_EINVAL;
	}
	if (m->placement >= IR_NPLACEMENTS) {
		set_err(err, errlen,
		        "placement must be block, cyclic or map, got %u",
		        m->placement);
		return CCP_EINVAL;
	}
	if (m->node_ports < 0) {
		set_err(err, errlen,
		        "node_ports must be %d (all) or >= 1, got %d",
		        IR_PORTS_ALL, m->node_ports);
		return CCP_EINVAL;
	}
	n = (int64_t)m->nnodes * m->ranks_per_node;
	if (n > IR_MAX_RANKS) {
		set_err(err, errlen,
		        "ranks_per_node %d x %d nodes make %" PRId64
		        " ranks, more than IR_MAX_RANKS (%d)",
		        (int)m->ranks_per_node, (int)m->nnodes, n,
		        IR_MAX_RANKS);
		return CCP_EINVAL;
	}
	m->nranks = (int32_t)n;
	if ((m->placement == IR_PLACE_MAP) != (m->place != NULL) ||
	    (m->place && m->place->n != m->nranks)) {
		set_err(err, errlen,
		        "placement map must list the node of each of the %d "
		        "ranks, got %d",
		        (int)m->nranks, m->place ? (int)m->place->n : 0);
		return CCP_EINVAL;
	}
	return 0;
}

/* Validate every field that shapes the network and derive nranks (and
 * ndims where the topology fixes it), so later code can trust them. */
int ir_machine_check(ir_machine *m, char *err, size_t errlen)
{
	int rc;

	set_err(err, errlen, "%s", "");
	if ((unsigned)m->topo >= IR_NTOPOS) {
		set_err(err, errlen,
		        "topo must be mesh, torus, hypercube, hpam, switch, "
		        "fat_tree, graph or dragonfly, "
		        "got %d",
		        (int)m->topo);
		return CCP_EINVAL;
	}
	unsigned allowed = ir_topo_routings(m->topo);
	if ((unsigned)m->routing >= IR_NROUTINGS ||
	    !(allowed & (1u << m->routing))) {
		char list[128] = "";
		size_t at = 0;
		int left = 0;
		for (int r = 0; r < IR_NROUTINGS; r++)
			left += (allowed >> r) & 1u;
		for (int r = 0, k = 0; r < IR_NROUTINGS; r++)
			if ((allowed & (1u << r)) && at < sizeof list)
				at += (size_t)snprintf(
				        list + at, sizeof list - at, "%s%s",
				        k++ == 0 ? "" : k == left ? " or " : ", ",
				        ir_routing_name(r));
		if ((unsigned)m->routing < IR_NROUTINGS)
			set_err(err, errlen,
			        "routing must be %s for topology %s, got %s",
			        list, ir_topo_name(m->topo),
			        ir_routing_name(m->routing));
		else
			set_err(err, errlen,
			        "routing must be %s for topology %s, got %d",
			        list, ir_topo_name(m->topo), (int)m->routing);
		return CCP_EINVAL;
	}
	if (m->ports < 0) {
		set_err(err, errlen,
		        "ports must be %d (all-port) or >= 1, got %d",
		        IR_PORTS_ALL, m->ports);
		return CCP_EINVAL;
	}
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		rc = check_grid(m, err, errlen);
		break;
	case IR_HYPERCUBE:
		if (m->ndims < 1 || m->ndims > IR_MAX_CUBE_DIM) {
			set_err(err, errlen,
			        "ndims must be 1..%d for a hypercube, got %d",
			        IR_MAX_CUBE_DIM, m->ndims);
			return CCP_EINVAL;
		}
		/* IR_MAX_CUBE_DIM is chosen so 2^n never exceeds the limit */
		m->nnodes = (int32_t)1 << m->ndims;
		rc = 0;
		break;
	case IR_HPAM:
		rc = check_hpam(m, err, errlen);
		break;
	case IR_FAT_TREE:
		rc = check_tree(m, err, errlen);
		break;
	case IR_GRAPH:
		rc = check_graph(m, err, errlen);
		break;
	case IR_DRAGONFLY:
		rc = check_dfly(m, err, errlen);
		break;
	case IR_SWITCH:
	default:
		if (m->dims[0] < 1 || m->dims[0] > IR_MAX_RANKS) {
			set_err(err, errlen,
			        "dims[0] (switch ranks) must be 1..%d "
			        "(IR_MAX_RANKS), got %d",
			        IR_MAX_RANKS, m->dims[0]);
			return CCP_EINVAL;
		}
		m->ndims = 1;
		m->nnodes = m->dims[0];
		rc = 0;
		break;
	}
	if (rc < 0)
		return rc;
	if (m->graph && m->topo != IR_GRAPH) {
		set_err(err, errlen, "a %s has no graph", ir_topo_name(m->topo));
		return CCP_EINVAL;
	}
	return check_nodes(m, err, errlen);
}

/* Unpack an HPAM machine's shape. */
static void hpam_shape(const ir_machine *m, struct hpam *h)
{
	h->r1 = m->levels[0][0];
	h->c1 = m->levels[0][1];
	h->r2 = m->levels[1][0];
	h->c2 = m->levels[1][1];
	h->f = h->c2 / h->c1;
	h->n1 = h->r1 * h->c1;
}

/* Level, column and row of an HPAM rank. */
static struct hpam_pos hpam_pos_of(const struct hpam *h, int32_t rank)
{
	struct hpam_pos p;

	if (rank < h->n1) {
		p.level = 0;
		p.x = rank % h->c1;
		p.y = rank / h->c1;
	} else {
		p.level = 1;
		p.x = (rank - h->n1) % h->c2;
		p.y = (rank - h->n1) / h->c2;
	}
	return p;
}

/* Rank of an HPAM node (level 0 or 1, column x, row y). */
static int32_t hpam_rank(const struct hpam *h, int level, int32_t x, int32_t y)
{
	return level == 0 ? x + h->c1 * y : h->n1 + x + h->c2 * y;
}

/* The level-1 column a level-2 column hangs from: b = floor(a / f),
 * 000 eq. 1. */
static int32_t hpam_parent_col(const struct hpam *h, int32_t a)
{
	return a / h->f;
}

/* The level-2 column where a message from column n of level 2 climbs to
 * column j of level 1: the nearest column whose up link reaches j,
 * 000 eq. 2. */
static int32_t hpam_chi(const struct hpam *h, int32_t n, int32_t j)
{
	if (n < j * h->f)
		return j * h->f;
	if (n > (j + 1) * h->f - 1)
		return (j + 1) * h->f - 1;
	return n;
}

/* Also on a machine ir_machine_check has not filled: wrap 0 on a torus
 * and an all-zero order are the defaults. */
bool ir_machine_is_classic(const ir_machine *m)
{
	if (m->topo == IR_FAT_TREE || m->topo == IR_GRAPH ||
	    m->topo == IR_DRAGONFLY)
		return false;
	if (m->topo == IR_MESH || m->topo == IR_TORUS) {
		bool zero = true;
		if (m->ndims > 3 ||
		    (m->topo == IR_TORUS && m->wrap != 0 &&
		     m->wrap != (1u << m->ndims) - 1u))
			return false;
		for (int d = 0; d < m->ndims; d++)
			zero &= m->order[d] == 0;
		for (int d = 0; d < m->ndims && !zero; d++)
			if (m->order[d] != d)
				return false;
	}
	return m->ranks_per_node <= 1 && m->node_ports == 0 &&
	       m->placement != IR_PLACE_MAP && !(m->cost.shm_alpha > 0) &&
	       !(m->cost.shm_beta > 0);
}

bool ir_machine_has_nodes(const ir_machine *m)
{
	return m->ranks_per_node > 1;
}

/* Block: a node's ranks are consecutive; cyclic: rank r on node r mod
 * nodes, as a round-robin launcher deals them; map: as the list says. */
int32_t ir_node_of(const ir_machine *m, int32_t rank)
{
	if (m->place)
		return m->place->pos[rank] / m->ranks_per_node;
	if (m->ranks_per_node <= 1)
		return rank;
	if (m->placement == IR_PLACE_CYCLIC)
		return rank % m->nnodes;
	return rank / m->ranks_per_node;
}

int32_t ir_node_rank(const ir_machine *m, int32_t node, int32_t local)
{
	if (m->place)
		return m->place->rank[node * m->ranks_per_node + local];
	if (m->ranks_per_node <= 1)
		return node;
	if (m->placement == IR_PLACE_CYCLIC)
		return node + local * m->nnodes;
	return node * m->ranks_per_node + local;
}

int32_t ir_node_local(const ir_machine *m, int32_t rank)
{
	if (m->place)
		return m->place->pos[rank] % m->ranks_per_node;
	if (m->ranks_per_node <= 1)
		return 0;
	if (m->placement == IR_PLACE_CYCLIC)
		return rank / m->nnodes;
	return rank % m->ranks_per_node;
}

/* Positions are dealt node by node: a node's ranks take its k slots in
 * increasing rank order, so the list alone fixes the placement. */
ir_place *ir_place_from_nodes(const int32_t *node, int32_t n, int32_t nnodes,
                              int32_t k, int *rc, int32_t *bad, char *err,
                              size_t errlen)
{
	ir_place *p = NULL;
	int32_t *fill = NULL;

	*bad = -1;
	*rc = CCP_EINVAL;
	if (n < 1 || k < 1 || nnodes < 1 || (int64_t)nnodes * k != n) {
		set_err(err, errlen,
		        "a placement map of %d ranks cannot fill %d nodes of "
		        "%d ranks",
		        (int)n, (int)nnodes, (int)k);
		return NULL;
	}
	*rc = CCP_ENOMEM;
	p = malloc(sizeof *p + 2 * (size_t)n * sizeof(int32_t));
	fill = calloc((size_t)nnodes, sizeof *fill);
	if (!p || !fill) {
		set_err(err, errlen, "out of memory");
		goto out_fail;
	}
	p->refs = 1;
	p->n = n;
	p->pos = (int32_t *)(p + 1);
	p->rank = p->pos + n;
	*rc = CCP_EINVAL;
	for (int32_t r = 0; r < n; r++) {
		int32_t q = node[r];
		if (q < 0 || q >= nnodes) {
			*bad = r;
			set_err(err, errlen,
			        "rank %d is placed on node %d; the machine's "
			        "nodes are 0..%d",
			        (int)r, (int)q, (int)nnodes - 1);
			goto out_fail;
		}
		if (fill[q] == k) {
			*bad = r;
			set_err(err, errlen,
			        "rank %d is placed on node %d, which already "
			        "holds its %d ranks",
			        (int)r, (int)q, (int)k);
			goto out_fail;
		}
		p->pos[r] = q * k + fill[q]++;
		p->rank[p->pos[r]] = r;
	}
	/* n == nnodes * k and no node overfilled: every node is full */
	free(fill);
	*rc = 0;
	return p;

out_fail:
	free(fill);
	free(p);
	return NULL;
}

void ir_place_retain(ir_place *p)
{
	if (p)
		p->refs++;
}

void ir_place_release(ir_place *p)
{
	if (p && --p->refs == 0)
		free(p);
}

int ir_port_limit(const ir_machine *m, int32_t rank)
{
	return m->ports == IR_PORTS_ALL ? ir_degree(m, rank) : m->ports;
}

/* The verifier, the splitter and the simulator all bound a node's
 * network transfers by this one number. */
int ir_node_port_limit(const ir_machine *m, int32_t node)
{
	if (m->node_ports == IR_PORTS_ALL)
		return ir_degree(m, ir_node_rank(m, node, 0));
	return m->node_ports;
}

/* Coordinates of a rank's node, derived from the one numbering (never
 * stored); all -1 for a rank outside the machine. */
void ir_coords(const ir_machine *m, int32_t rank, int c[IR_MAX_CUBE_DIM])
{
	int d;

	if (rank < 0 || rank >= m->nranks) {
		for (d = 0; d < IR_MAX_CUBE_DIM; d++)
			c[d] = -1;
		return;
	}
	rank = ir_node_of(m, rank);
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		/* unused dimensions read as 0, so 3D code works on 1D grids */
		for (d = 0; d < IR_MAX_DIMS; d++) {
			c[d] = rank % m->dims[d];
			rank /= m->dims[d];
		}
		break;
	case IR_HYPERCUBE:
		for (d = 0; d < m->ndims; d++)
			c[d] = (int)((rank >> d) & 1);
		break;
	case IR_HPAM: {
		struct hpam h;
		struct hpam_pos p;

		hpam_shape(m, &h);
		p = hpam_pos_of(&h, rank);
		c[0] = (int)p.x;
		c[1] = (int)p.y;
		c[2] = p.level;
		break;
	}
	case IR_DRAGONFLY: /* terminal, router, group */
		for (d = 0; d < 3; d++) {
			c[d] = rank % m->dims[d];
			rank /= m->dims[d];
		}
		break;
	case IR_FAT_TREE:
		/* the host's place a_i under each level (d-mod-k's digits) */
		for (d = 0; d < m->ndims; d++) {
			c[d] = rank % m->dims[d];
			rank /= m->dims[d];
		}
		break;
	case IR_SWITCH:
	default:
		c[0] = (int)rank;
		break;
	}
}

/* Inverse of ir_coords; -1 for coordinates outside the machine. */
int32_t ir_rank_of(const ir_machine *m, const int *c)
{
	int32_t r = 0, stride = 1;
	int d;

	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
	case IR_FAT_TREE: /* a host: a_1 + m_1 * (a_2 + ...) */
		for (d = 0; d < m->ndims; d++) {
			if (c[d] < 0 || c[d] >= m->dims[d])
				return -1;
			r += c[d] * stride;
			stride *= m->dims[d];
		}
		return ir_node_rank(m, r, 0);
	case IR_DRAGONFLY: /* t + p * (r + a * G) */
		for (d = 0; d < 3; d++) {
			if (c[d] < 0 || c[d] >= m->dims[d])
				return -1;
			r += c[d] * stride;
			stride *= m->dims[d];
		}
		return ir_node_rank(m, r, 0);
	case IR_HYPERCUBE:
		for (d = 0; d < m->ndims; d++) {
			if (c[d] != 0 && c[d] != 1)
				return -1;
			r |= (int32_t)c[d] << d;
		}
		return ir_node_rank(m, r, 0);
	case IR_HPAM: {
		struct hpam h;
		int32_t rows, cols;

		hpam_shape(m, &h);
		if (c[2] != 0 && c[2] != 1)
			return -1;
		rows = c[2] == 0 ? h.r1 : h.r2;
		cols = c[2] == 0 ? h.c1 : h.c2;
		if (c[0] < 0 || c[0] >= cols || c[1] < 0 || c[1] >= rows)
			return -1;
		return hpam_rank(&h, c[2], c[0], c[1]);
	}
	case IR_SWITCH:
	default:
		return c[0] >= 0 && c[0] < m->nnodes ? ir_node_rank(m, c[0], 0)
		                                     : -1;
	}
}

/* Neighbours of a rank: what the all-port model gives it as ports. */
int ir_degree(const ir_machine *m, int32_t rank)
{
	int deg = 0, d;

	if (rank < 0 || rank >= m->nranks)
		return CCP_EINVAL;
	rank = ir_node_of(m, rank);
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		/* a ring of 2 has one neighbour, a ring of 1 none */
		for (d = 0; d < m->ndims; d++) {
			int32_t a = rank % m->dims[d];

			rank /= m->dims[d];
			if (m->wrap >> d & 1u)
				deg += m->dims[d] >= 3 ? 2 : m->dims[d] - 1;
			else
				deg += (a > 0) + (a < m->dims[d] - 1);
		}
		return deg;
	case IR_HYPERCUBE:
		return m->ndims;
	case IR_HPAM: {
		struct hpam h;
		struct hpam_pos p;
		int32_t rows, cols;

		hpam_shape(m, &h);
		p = hpam_pos_of(&h, rank);
		rows = p.level == 0 ? h.r1 : h.r2;
		cols = p.level == 0 ? h.c1 : h.c2;
		deg = (p.x > 0) + (p.x < cols - 1) + (p.y > 0) +
		      (p.y < rows - 1);
		if (p.level == 0 && p.y == h.r1 - 1)
			deg += h.f; /* f down links, 000 eq. 1 */
		if (p.level == 1 && p.y == 0)
			deg += 1; /* the up link */
		return deg;
	}
	case IR_FAT_TREE:
		/* w_1 uplinks of levels[0][0] cables each */
		return m->dims[IR_MAX_TREE] * m->levels[0][0];
	case IR_GRAPH:
		return graph_degree(m->graph, rank);
	case IR_DRAGONFLY: /* its link to its router, of levels[0][0] cables */
		return m->levels[0][0];
	case IR_SWITCH:
	default:
		return m->nnodes - 1;
	}
}

/* The longest route: what callers size their link buffers by. */
int ir_route_max(const ir_machine *m)
{
	int h = 0, d;

	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		for (d = 0; d < m->ndims; d++)
			h += m->wrap >> d & 1u ? m->dims[d] / 2 : m->dims[d] - 1;
		return h;
	case IR_HYPERCUBE:
		return m->ndims;
	case IR_HPAM: {
		struct hpam s;
		int in1, in2, down, up;

		hpam_shape(m, &s);
		in1 = (s.c1 - 1) + (s.r1 - 1);
		in2 = (s.c2 - 1) + (s.r2 - 1);
		/* top row, far column of level 1 -> bottom row of level 2 */
		down = (s.c1 - 1) + (s.r1 - 1) + 1 + (s.r2 - 1);
		/* bottom corner of level 2 -> top row, far column of level 1:
		 * the row walk to chi (000 eq. 2) is at most c2 - f long */
		up = (s.c2 - s.f) + (s.r2 - 1) + 1 + (s.r1 - 1);
		h = in1;
		if (in2 > h)
			h = in2;
		if (down > h)
			h = down;
		if (up > h)
			h = up;
		return h;
	}
	case IR_FAT_TREE: {
		struct xgft t;
		int64_t set = 0;

		if (!ir_routing_adapts(m))
			return 2 * m->ndims;
		xgft_shape(m, &t);
		for (int l = 1; l <= t.h; l++)
			set += 2 * t.W[l];
		return set > INT32_MAX ? INT32_MAX : (int)set;
	}
	case IR_GRAPH:
		if (m->routing == IR_ROUTE_ADAPTIVE)
			return m->graph->union_max;
		return m->graph->next && m->graph->table_max > m->graph->diameter
		               ? m->graph->table_max
		               : m->graph->diameter;
	case IR_DRAGONFLY:
		/* adaptive: the union route_dfly writes; Valiant: host,
		 * local, global, local, global, local, host */
		if (m->routing == IR_ROUTE_ADAPTIVE)
			return 2 * m->dims[1] + 3 * m->dims[2];
		return m->routing == IR_ROUTE_VALIANT ||
		                       m->routing == IR_ROUTE_SOURCE
		               ? 7
		               : 5;
	case IR_SWITCH:
	default:
		return 1;
	}
}

/* Size of the link id space; some ids in it may be unused (edges). */
uint64_t ir_nlinks(const ir_machine *m)
{
	uint64_t n = (uint64_t)m->nnodes;

	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		return n * 2u * (uint64_t)m->ndims;
	case IR_HYPERCUBE:
		return n * (uint64_t)m->ndims;
	case IR_HPAM:
		return n * HPAM_DIRS;
	case IR_FAT_TREE: {
		struct xgft t;
		xgft_shape(m, &t);
		return t.link_off[t.h + 1];
	}
	case IR_GRAPH:
		return 2u * (uint64_t)m->graph->ncables;
	case IR_DRAGONFLY: {
		struct dfly d;
		dfly_shape(m, &d);
		return d.nlinks;
	}
	case IR_SWITCH:
	default:
		return n * n;
	}
}

/* Append the straight walk from coordinate a to b along one axis, the
 * rank moving by stride per step; link id = rank * per + code, code + 1
 * for the minus direction.  Used by meshes and HPAM levels. */
static int walk(uint64_t *links, int h, int32_t *cur, int32_t a, int32_t b,
                int32_t stride, uint64_t per, int code)
{
	for (; a < b; a++) {
		h = put(links, h, (uint64_t)*cur * per + (uint64_t)code);
		*cur += stride;
	}
	for (; a > b; a--) {
		h = put(links, h, (uint64_t)*cur * per + (uint64_t)code + 1u);
		*cur -= stride;
	}
	return h;
}

/* Dimension-order routing on a mesh or torus: one dimension after the
 * other, in the machine's order (x, y, z... unless the input gave one).
 * A wrapped dimension goes the shorter way round; at exactly half the
 * ring it goes the + way. */
static int route_grid(const ir_machine *m, int32_t src, int32_t dst,
                      uint64_t *links)
{
	uint64_t per = 2u * (uint64_t)m->ndims;
	int32_t stride[IR_MAX_DIMS], cur = src, st = 1;
	int h = 0, k, d;

	for (d = 0; d < m->ndims; d++) {
		stride[d] = st;
		st *= m->dims[d];
	}
	for (k = 0; k < m->ndims; k++) {
		d = m->order[k];
		int32_t ext = m->dims[d], s = stride[d];
		int32_t a = src / s % ext, b = dst / s % ext, fwd, i;

		fwd = (b - a + ext) % ext;
		if (!(m->wrap >> d & 1u)) {
			h = walk(links, h, &cur, a, b, s, per, 2 * d);
		} else if (fwd <= ext - fwd) {
			/* + way, also on the tie fwd == ext / 2 */
			for (i = 0; i < fwd; i++) {
				h = put(links, h,
				        (uint64_t)cur * per + 2u * (uint64_t)d);
				cur += a == ext - 1 ? -(ext - 1) * s : s;
				a = a == ext - 1 ? 0 : a + 1;
			}
		} else {
			for (i = 0; i < ext - fwd; i++) {
				h = put(links, h,
				        (uint64_t)cur * per + 2u * (uint64_t)d + 1u);
				cur += a == 0 ? (ext - 1) * s : -s;
				a = a == 0 ? ext - 1 : a - 1;
			}
		}
	}
	return h;
}

/* e-cube: fix the differing bits from the lowest up (004, iPSC/860). */
static int route_cube(const ir_machine *m, int32_t src, int32_t dst,
                      uint64_t *links)
{
	uint32_t diff = (uint32_t)(src ^ dst);
	uint64_t n = (uint64_t)m->ndims;
	int32_t cur = src;
	int h = 0, bit;

	for (bit = 0; diff != 0; bit++, diff >>= 1) {
		if (diff & 1u) {
			h = put(links, h, (uint64_t)cur * n + (uint64_t)bit);
			cur ^= (int32_t)1 << bit;
		}
	}
	return h;
}

/* Extended X-Y routing across the two HPAM levels, 000 §2.3.  Within a
 * level: columns (x) first, then rows (y).  Level 1 -> level 2 ends on
 * the down link of the destination column; level 2 -> level 1 climbs at
 * column chi (000 eq. 2). */
static int route_hpam(const ir_machine *m, int32_t src, int32_t dst,
                      uint64_t *links)
{
	struct hpam s;
	struct hpam_pos a, b;
	int32_t cur = src, col;
	int h = 0;

	hpam_shape(m, &s);
	a = hpam_pos_of(&s, src);
	b = hpam_pos_of(&s, dst);
	if (a.level == b.level) {
		int32_t cols = a.level == 0 ? s.c1 : s.c2;

		h = walk(links, h, &cur, a.x, b.x, 1, HPAM_DIRS, HPAM_PX);
		return walk(links, h, &cur, a.y, b.y, cols, HPAM_DIRS, HPAM_PY);
	}
	if (a.level == 0) {
		/* (i,j)1 -> (i,floor(n/f))1 -> (r1-1,floor(n/f))1 -> (0,n)2
		 * -> (m,n)2 */
		col = hpam_parent_col(&s, b.x);
		h = walk(links, h, &cur, a.x, col, 1, HPAM_DIRS, HPAM_PX);
		h = walk(links, h, &cur, a.y, s.r1 - 1, s.c1, HPAM_DIRS,
		         HPAM_PY);
		cur = hpam_rank(&s, 1, b.x, 0);
		h = put(links, h, (uint64_t)cur * HPAM_DIRS + HPAM_DOWN);
		return walk(links, h, &cur, 0, b.y, s.c2, HPAM_DIRS, HPAM_PY);
	}
	/* (m,n)2 -> (m,chi)2 -> (0,chi)2 -> (r1-1,j)1 -> (i,j)1 */
	col = hpam_chi(&s, a.x, b.x);
	h = walk(links, h, &cur, a.x, col, 1, HPAM_DIRS, HPAM_PX);
	h = walk(links, h, &cur, a.y, 0, s.c2, HPAM_DIRS, HPAM_PY);
	h = put(links, h, (uint64_t)cur * HPAM_DIRS + HPAM_UP);
	cur = hpam_rank(&s, 0, b.x, s.r1 - 1);
	return walk(links, h, &cur, s.r1 - 1, b.y, s.c1, HPAM_DIRS, HPAM_PY);
}

/* The route between two distinct nodes, through put (links may be
 * NULL): what ir_route and ir_hops share. */
static int route_nodes(const ir_machine *m, int32_t src, int32_t dst,
                       uint64_t *links)
{
	if (m->topo == IR_GRAPH)
		return route_graph(m, src, dst, links);
	if (m->topo == IR_DRAGONFLY)
		return route_dfly(m, src, dst, 0, links, false);
	switch (m->routing) {
	case IR_ROUTE_DIM_ORDER:
		return route_grid(m, src, dst, links);
	case IR_ROUTE_ECUBE:
		return route_cube(m, src, dst, links);
	case IR_ROUTE_HPAM_XY:
		return route_hpam(m, src, dst, links);
	case IR_ROUTE_D_MOD_K:
	case IR_ROUTE_S_MOD_K:
	case IR_ROUTE_SOURCE:
		return route_tree(m, src, dst, 0, links);
	case IR_ROUTE_ADAPTIVE:
		return route_tree_set(m, src, dst, links);
	case IR_ROUTE_DIRECT:
	default:
		return put(links, 0,
		           (uint64_t)src * (uint64_t)m->nnodes + (uint64_t)dst);
	}
}

/* The route src -> dst as directed link ids; their count, or
 * CCP_EINVAL for a rank outside the machine. */
int ir_route(const ir_machine *m, int32_t src, int32_t dst, uint64_t *links)
{
	if (src < 0 || src >= m->nranks || dst < 0 || dst >= m->nranks)
		return CCP_EINVAL;
	src = ir_node_of(m, src);
	dst = ir_node_of(m, dst);
	return src == dst ? 0 : route_nodes(m, src, dst, links);
}

/* One path of the route: under adaptive routing the deterministic path
 * it adapts from, d-mod-k on a fat tree (route_tree takes every key but
 * s-mod-k's as d-mod-k), the shortest routing's on a graph, the minimal
 * one on a dragonfly (the path a message takes when nothing holds it
 * up, docs/machine-model.md). */
int ir_path(const ir_machine *m, int32_t src, int32_t dst, uint64_t *links)
{
	if (!ir_routing_adapts(m))
		return ir_route(m, src, dst, links);
	if (src < 0 || src >= m->nranks || dst < 0 || dst >= m->nranks)
		return CCP_EINVAL;
	src = ir_node_of(m, src);
	dst = ir_node_of(m, dst);
	if (src == dst)
		return 0;
	if (m->topo == IR_GRAPH)
		return route_graph_path(m->graph, src, dst, links);
	if (m->topo == IR_DRAGONFLY)
		return route_dfly(m, src, dst, 0, links, true);
	return route_tree(m, src, dst, 0, links);
}

/* Hops of the path a message takes, counted without writing it. */
int ir_hops(const ir_machine *m, int32_t src, int32_t dst)
{
	return ir_path(m, src, dst, NULL);
}

/* Only the adaptive routing chooses among paths. */
bool ir_routing_adapts(const ir_machine *m)
{
	return m->routing == IR_ROUTE_ADAPTIVE;
}

bool ir_routing_chooses(const ir_machine *m)
{
	return m->routing == IR_ROUTE_SOURCE;
}

/* Fat tree: one path per up port at each level below the top, W[top];
 * dragonfly, between groups: c rounds, each minimal or through one of
 * the g - 2 other groups. */
uint32_t ir_path_count(const ir_machine *m, int32_t src, int32_t dst)
{
	if (!ir_routing_chooses(m) || src < 0 || src >= m->nranks || dst < 0 ||
	    dst >= m->nranks)
		return 1;
	src = ir_node_of(m, src);
	dst = ir_node_of(m, dst);
	if (src == dst)
		return 1;
	if (m->topo == IR_FAT_TREE) {
		struct xgft t;
		xgft_shape(m, &t);
		return (uint32_t)t.W[xgft_top(&t, src, dst)];
	}
	struct dfly d;
	dfly_shape(m, &d);
	if (src / d.p / d.a == dst / d.p / d.a)
		return 1;
	uint64_t n = (uint64_t)d.c * (uint64_t)(d.g >= 3 ? d.g - 1 : 1);
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

int ir_route_via(const ir_machine *m, int32_t src, int32_t dst, uint32_t path,
                 uint64_t *links)
{
	if (path == 0)
		return ir_route(m, src, dst, links);
	if (path >= ir_path_count(m, src, dst))
		return CCP_EINVAL;
	src = ir_node_of(m, src);
	dst = ir_node_of(m, dst);
	if (m->topo == IR_FAT_TREE)
		return route_tree(m, src, dst, path, links);
	return route_dfly(m, src, dst, path, links, false);
}

int ir_route_xfer(const ir_machine *m, const ir_transfer *x, uint64_t *links)
{
	return ir_route_via(m, x->src, x->dst, x->path, links);
}

/* Every shortest path of a fat tree climbs and comes down the same
 * levels, so path 0 has the least of each class.  A dragonfly's paths
 * differ: up to DFLY_LEAST_PATHS of them are looked at, past that a
 * message between groups counts its host links and one global link. */
#define DFLY_LEAST_PATHS 1024
void ir_path_least(const ir_machine *m, int32_t src, int32_t dst,
                   uint32_t least[IR_NLINK_CLASSES])
{
	uint64_t links[2 * IR_MAX_TREE + 8];
	uint32_t n = ir_path_count(m, src, dst), cnt[IR_NLINK_CLASSES];

	memset(least, 0, IR_NLINK_CLASSES * sizeof *least);
	if (m->topo == IR_DRAGONFLY && n > DFLY_LEAST_PATHS) {
		least[IR_LC_HOST] = 2;
		least[IR_LC_GLOBAL] = 1;
		return;
	}
	if (m->topo != IR_DRAGONFLY)
		n = 1;
	for (uint32_t p = 0; p < n; p++) {
		int h = ir_route_via(m, src, dst, p, links);
		memset(cnt, 0, sizeof cnt);
		for (int i = 0; i < h; i++)
			cnt[ir_link_class(m, links[i])]++;
		for (int c = 0; c < IR_NLINK_CLASSES; c++)
			if (p == 0 || cnt[c] < least[c])
				least[c] = cnt[c];
	}
}

/* Ends of a mesh or torus link, or CCP_EINVAL where the neighbour is
 * missing (mesh edge, torus ring of 1, the - link of a ring of 2). */
static int grid_link_ends(const ir_machine *m, uint64_t link, int32_t *from,
                          int32_t *to)
{
	uint64_t per = 2u * (uint64_t)m->ndims;
	int32_t rank = (int32_t)(link / per);
	int d = (int)(link % per) / 2, minus = (int)(link % 2u);
	int32_t stride = 1, ext, a;
	int k;

	for (k = 0; k < d; k++)
		stride *= m->dims[k];
	ext = m->dims[d];
	a = rank / stride % ext;
	if (!(m->wrap >> d & 1u)) {
		if (minus ? a == 0 : a == ext - 1)
			return CCP_EINVAL;
		*to = rank + (minus ? -stride : stride);
	} else {
		if (ext == 1 || (ext == 2 && minus))
			return CCP_EINVAL;
		if (!minus)
			*to = rank +
			      (a == ext - 1 ? -(ext - 1) * stride : stride);
		else
			*to = rank + (a == 0 ? (ext - 1) * stride : -stride);
	}
	*from = rank;
	return 0;
}

/* Ends of an HPAM link, or CCP_EINVAL where it does not exist. */
static int hpam_link_ends(const ir_machine *m, uint64_t link, int32_t *from,
                          int32_t *to)
{
	struct hpam s;
	struct hpam_pos p;
	int32_t rank = (int32_t)(link / HPAM_DIRS), rows, cols, up;
	int dir = (int)(link % HPAM_DIRS);

	hpam_shape(m, &s);
	p = hpam_pos_of(&s, rank);
	rows = p.level == 0 ? s.r1 : s.r2;
	cols = p.level == 0 ? s.c1 : s.c2;
	*from = rank;
	switch (dir) {
	case HPAM_PX:
		*to = rank + 1;
		return p.x < cols - 1 ? 0 : CCP_EINVAL;
	case HPAM_MX:
		*to = rank - 1;
		return p.x > 0 ? 0 : CCP_EINVAL;
	case HPAM_PY:
		*to = rank + cols;
		return p.y < rows - 1 ? 0 : CCP_EINVAL;
	case HPAM_MY:
		*to = rank - cols;
		return p.y > 0 ? 0 : CCP_EINVAL;
	default:
		if (p.level != 1 || p.y != 0)
			return CCP_EINVAL;
		up = hpam_rank(&s, 0, hpam_parent_col(&s, p.x), s.r1 - 1);
		if (dir == HPAM_UP) {
			*to = up;
		} else {
			*from = up;
			*to = rank;
		}
		return 0;
	}
}

/* Only HPAM has replicating routers: the inter-level router of each
 * level-1 bottom-row node can send one incoming message down all its f
 * inter-level links at once (000 section 3).  Meshes, tori, hypercubes
 * and switches route each message on one path. */
bool ir_machine_replicates(const ir_machine *m)
{
	return m->topo == IR_HPAM;
}

/* An HPAM down link (level-1 bottom row -> level-2 top row) leaves a
 * replicating router; no other link of any machine does. */
bool ir_link_replicates(const ir_machine *m, uint64_t link)
{
	return m->topo == IR_HPAM && link < ir_nlinks(m) &&
	       link % HPAM_DIRS == HPAM_DOWN;
}

/* The two ranks a directed link joins, so verifiers and tools can name
 * a link; CCP_EINVAL (from/to untouched) for an id no link has. */
int ir_link_ends(const ir_machine *m, uint64_t link, int32_t *from, int32_t *to)
{
	int32_t f = -1, t = -1;
	int rc = 0;

	if (link >= ir_nlinks(m))
		return CCP_EINVAL;
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		rc = grid_link_ends(m, link, &f, &t);
		break;
	case IR_HYPERCUBE: {
		uint64_t n = (uint64_t)m->ndims;

		f = (int32_t)(link / n);
		t = f ^ ((int32_t)1 << (link % n));
		break;
	}
	case IR_HPAM:
		rc = hpam_link_ends(m, link, &f, &t);
		break;
	case IR_FAT_TREE:
		tree_link_ends(m, link, &f, &t);
		break;
	case IR_GRAPH:
		f = graph_from(m->graph, link);
		t = graph_to(m->graph, link);
		break;
	case IR_DRAGONFLY:
		rc = dfly_link_ends(m, link, &f, &t);
		break;
	case IR_SWITCH:
	default:
		f = (int32_t)(link / (uint64_t)m->nnodes);
		t = (int32_t)(link % (uint64_t)m->nnodes);
		if (f == t)
			rc = CCP_EINVAL;
		break;
	}
	if (rc == 0) {
		*from = f;
		*to = t;
	}
	return rc;
}

/* Parallel cables between the same two vertices are one link id: a fat
 * tree's level gives their number, a graph's cable its width times its
 * bandwidth over the slowest, a dragonfly's link class its width; every
 * other machine has 1. */
int ir_link_capacity(const ir_machine *m, uint64_t link)
{
	if (m->topo == IR_GRAPH && link < ir_nlinks(m))
		return m->graph->cap[link / 2u];
	if (m->topo == IR_DRAGONFLY)
		return link < ir_nlinks(m) ? dfly_capacity(m, link) : 1;
	if (m->topo != IR_FAT_TREE || link >= ir_nlinks(m))
		return 1;
	struct xgft t;
	xgft_shape(m, &t);
	return t.cap[xgft_link_level(&t, link)];
}

/* A fat tree's level-1 links join hosts to their leaf switches; above
 * them, even ids go up and odd ids down.  A graph's cable says its own.
 * A dragonfly has host, local (in a group) and global links.  Every link
 * of the other machines joins two routers of one network. */
enum ir_link_class ir_link_class(const ir_machine *m, uint64_t link)
{
	if (m->topo == IR_GRAPH && link < ir_nlinks(m))
		return (enum ir_link_class)m->graph->cables[link / 2u].cls;
	if (m->topo == IR_DRAGONFLY && link < ir_nlinks(m))
		return dfly_class(m, link);
	if (m->topo != IR_FAT_TREE || link >= ir_nlinks(m))
		return IR_LC_LOCAL;
	struct xgft t;
	xgft_shape(m, &t);
	if (xgft_link_level(&t, link) == 1)
		return IR_LC_HOST;
	return link % 2u ? IR_LC_DOWN : IR_LC_UP;
}

uint32_t ir_link_phases(const ir_machine *m, uint64_t link, uint64_t load)
{
	if (m->topo != IR_FAT_TREE && m->topo != IR_GRAPH &&
	    m->topo != IR_DRAGONFLY)
		return load > UINT32_MAX ? UINT32_MAX : (uint32_t)load;
	uint64_t c = (uint64_t)ir_link_capacity(m, link);
	uint64_t q = (load + c - 1) / c;
	return q > UINT32_MAX ? UINT32_MAX : (uint32_t)q;
}
