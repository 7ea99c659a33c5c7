/*
 * edn_mesh.c - broadcast by extended dominating nodes on all-port meshes
 * with dimension-ordered (X-Y, X-Y-Z) routing (001 sections 3.3 and 3.4;
 * SLD, section 3.2, is in sld.c).
 *
 * EDN (001 §3.3, §3.4): a hierarchy of extended dominating sets.  The
 * mesh is cut into blocks; a base block (bx x by with bx, by in 4..7 in
 * 2D, 4x4x4 or 4x4x5 in 3D) carries a small broadcast tree of height 1
 * or 2 rooted at r "roots": the roots reach the rest of a set D1 in one
 * step, and D1 reaches every other node of the block in one more (in 2D
 * its neighbours; in 3D also nodes farther away, over link-disjoint
 * X-Y-Z routes, 001 Definition 2).  Four blocks, each a mirror image of
 * the smaller pattern, make a block twice as wide and high (001 Fig.
 * 3.7-3.9, §3.4.1); r of their 4r roots become the roots of the bigger
 * block, chosen so that they reach the other 3r in one step over
 * link-disjoint routes.  A rectangular mesh grows its longer side alone
 * once the shorter is done: four blocks stacked along Y, or two side by
 * side along X (001 §3.3.2 says the approach applies to rectangles).  In
 * 3D, three slabs stacked along Z make a block three times as deep,
 * whose roots are those of the middle slab (001 §3.4.2).  Broadcast is
 * then the startup (source to the top roots, 1 or 2 steps) followed by
 * one step per level of the hierarchy.
 *
 * The figures of the thesis are not available, so the base patterns were
 * found by a computer search (once, while developing; the sets are in
 * the tables below, the search in docs/edn-mesh.md) and the choices of
 * each larger level (mirror of each quarter, which roots lead, who sends
 * to whom) are found at generation time by a small deterministic search,
 * started from seeds where the search would be slow; the verifier proves
 * every plan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edn_mesh.h"
#include "sched.h"

#define EDN_MAXR 4   /* roots of one block */
#define EDN_MAXD 20  /* nodes of a base block's dominating set D1 */
#define EDN_MAXS 128 /* sends of one level of one block */
#define EDN_MAXL 32  /* levels */

/* One level of the hierarchy: a block, its roots, how it is built from
 * the level below and the sends it performs (local coordinates). */
struct edn_lvl {
	int ext[3];            /* block extent x, y, z */
	int nroot;             /* number of roots */
	int root[EDN_MAXR][3]; /* root coordinates in the block */
	int nchild;            /* 0 base, 2 or 4 XY doubling or quadrupling
	                          (edn_double), 3 Z tripling */
	int coff[4][3];        /* offset of each child in the block */
	int cmir[4];           /* mirror mask of each child (bit d) */
	int nsend;             /* sends of this level */
	int ssrc[EDN_MAXS][3]; /* sender of each send */
	int sdst[EDN_MAXS][3]; /* receiver of each send */
	int sstep[EDN_MAXS];   /* base only: the step of the send */
	int nstep;             /* steps this level takes (base: 1-2) */
};

/* A whole hierarchy for one machine. */
struct edn_tree {
	int nlvl; /* levels, [0] is the base */
	struct edn_lvl lvl[EDN_MAXL];
};

/* ---- routes as segments ------------------------------------------- */

/* Whether the dimension-ordered routes a1->b1 and a2->b2 share a
 * directed link.  Each route is one straight segment per dimension; two
 * segments of the same dimension share a link when they lie on the same
 * line, go the same way and their link ranges overlap. */
static bool edn_conflict(const int *a1, const int *b1, const int *a2,
                         const int *b2)
{
	for (int d = 0; d < 3; d++) {
		if (a1[d] == b1[d] || a2[d] == b2[d])
			continue;
		if ((b1[d] > a1[d]) != (b2[d] > a2[d]))
			continue;
		bool same = true;
		for (int e = 0; e < 3 && same; e++) {
			if (e == d)
				continue;
			int f1 = e < d ? b1[e] : a1[e],
			    f2 = e < d ? b2[e] : a2[e];
			same = f1 == f2;
		}
		if (!same)
			continue;
		int lo1 = a1[d] < b1[d] ? a1[d] : b1[d];
		int hi1 = a1[d] < b1[d] ? b1[d] : a1[d];
		int lo2 = a2[d] < b2[d] ? a2[d] : b2[d];
		int hi2 = a2[d] < b2[d] ? b2[d] : a2[d];
		if (lo1 < hi2 && lo2 < hi1)
			return true;
	}
	return false;
}

/* ---- assignment search -------------------------------------------- */

/* Manhattan distance of two points. */
static int edn_dist(const int *a, const int *b)
{
	return abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]);
}

#define EDN_OCC 64 /* words of the link bitmap: 4096 directed links */

struct edn_assign {
	int ns, nt;
	const int (*snd)[3];             /* senders */
	const int (*tgt)[3];             /* targets */
	bool near;                       /* senders nearest the target first */
	uint8_t ord[EDN_MAXS][EDN_MAXD]; /* near: senders to try for each
	                                    target, nearest first */
	int who[EDN_MAXS];               /* sender chosen for each target */
	long budget;                     /* nodes left to explore */
	bool bits;             /* links tracked in occ, else pairwise */
	int lo[3], box[3];     /* bounding box of all routes (bits) */
	uint64_t occ[EDN_OCC]; /* links in use: bit 6 * node + 2 * d +
	                          (negative direction) */
};

/* Test (flip false) whether every link of the route a -> b is free, or
 * flip (flip true) the bits of its links in the bitmap. */
static bool edn_links(struct edn_assign *x, const int *a, const int *b,
                      bool flip)
{
	int p[3] = {a[0], a[1], a[2]};
	for (int d = 0; d < 3; d++) {
		int step = b[d] > p[d] ? 1 : -1;
		for (; p[d] != b[d]; p[d] += step) {
			int node = p[0] - x->lo[0] +
			           x->box[0] * (p[1] - x->lo[1] +
			                        x->box[1] * (p[2] - x->lo[2]));
			int id = 6 * node + 2 * d + (step < 0);
			uint64_t bit = UINT64_C(1) << (id & 63);
			if (flip)
				x->occ[id >> 6] ^= bit;
			else if (x->occ[id >> 6] & bit)
				return false;
		}
	}
	return true;
}

/* Give target t and the following ones a sender each so that no two
 * routes share a link; depth-first, senders in order (of ord if near). */
static bool edn_assign_from(struct edn_assign *a, int t)
{
	if (t == a->nt)
		return true;
	if (--a->budget < 0)
		return false;
	for (int i = 0; i < a->ns; i++) {
		int s = a->near ? a->ord[t][i] : i;
		if (memcmp(a->snd[s], a->tgt[t], sizeof a->snd[s]) == 0)
			continue;
		bool ok = true;
		if (a->bits)
			ok = edn_links(a, a->snd[s], a->tgt[t], false);
		for (int u = 0; u < t && ok && !a->bits; u++)
			ok = !edn_conflict(a->snd[s], a->tgt[t],
			                   a->snd[a->who[u]], a->tgt[u]);
		if (!ok)
			continue;
		a->who[t] = s;
		if (a->bits)
			edn_links(a, a->snd[s], a->tgt[t], true);
		if (edn_assign_from(a, t + 1))
			return true;
		if (a->bits)
			edn_links(a, a->snd[s], a->tgt[t], true);
	}
	return false;
}

/* Find senders for every target over link-disjoint routes, in one step;
 * who[] gets the sender index of each target.  Link-disjoint routes from
 * one sender leave it on different links, so its port limit holds too.
 * A depth-first search of at most `budget` nodes, trying the senders in
 * order, or nearest the target first if near (ties in order).  Many
 * routes in a small box (a base block's last step) are checked against
 * a bitmap of the links in use, others pairwise (edn_conflict); both
 * give the same answer. */
static bool edn_assign(const int (*snd)[3], int ns, const int (*tgt)[3], int nt,
                       bool near, long budget, int *who)
{
	if (nt > EDN_MAXS || ns > EDN_MAXD)
		return false;
	struct edn_assign x, *a = &x;
	a->ns = ns;
	a->nt = nt;
	a->snd = snd;
	a->tgt = tgt;
	a->near = near;
	a->budget = budget;
	for (int t = 0; near && t < nt; t++)
		for (int i = 0; i < ns; i++) {
			int j = i, key = edn_dist(snd[i], tgt[t]);
			while (j > 0 &&
			       edn_dist(snd[a->ord[t][j - 1]], tgt[t]) > key) {
				a->ord[t][j] = a->ord[t][j - 1];
				j--;
			}
			a->ord[t][j] = (uint8_t)i;
		}
	int hi[3] = {0, 0, 0};
	for (int d = 0; d < 3; d++) {
		a->lo[d] = 1 << 30;
		for (int i = 0; i < ns + nt; i++) {
			int v = i < ns ? snd[i][d] : tgt[i - ns][d];
			a->lo[d] = v < a->lo[d] ? v : a->lo[d];
			hi[d] = v > hi[d] ? v : hi[d];
		}
		a->box[d] = hi[d] - a->lo[d] + 1;
	}
	a->bits = nt > 16 &&
	          (long)a->box[0] * a->box[1] * a->box[2] * 6 <= 64 * EDN_OCC;
	if (a->bits)
		memset(a->occ, 0, sizeof a->occ);
	if (!edn_assign_from(a, 0))
		return false;
	memcpy(who, a->who, (size_t)nt * sizeof *who);
	return true;
}

/* ---- base blocks (computer search, once; see docs/edn-mesh.md) ------ */

/* A base block: extent, dominating set D1 and the roots D2 (indices
 * into D1).  D2 reaches D1 - D2 in one step; D1 reaches every other node
 * of the block in one step (001 Definition 2: D1 is an extended
 * dominating set of the block; in 2D every node is next to D1). */
struct edn_base {
	int ext[3];            /* extent x, y, z */
	int nd1;               /* nodes of D1 */
	int d1[EDN_MAXD][3];   /* D1, local coordinates */
	int nroot;             /* roots (D2) */
	int roots[EDN_MAXR];   /* indices into d1 */
	int nseed;             /* 2 x 2 doubling levels with a seed below */
	int seed[3][EDN_MAXR]; /* leading roots of doubling levels 1-3 */
	int seedmir[3];        /* and the quarters' mirrors (2 bits each);
	                          both found once by edn_double */
	bool hasq;             /* a seed for the first 1 x 4 level: */
	int qseed[EDN_MAXR];   /* its leading roots and mirrors, valid */
	int qseedmir;          /* after any number of 2 x 2 levels */
};

/* The tables are kept compact, four points a line. */
/* clang-format off */
/* 001 Fig. 3.2(d), 3.3: pattern B of the 4x4 mesh, a perfect dominating
 * set; its four nodes are the roots (tree height 1, 001 Table 3.1).  The
 * seeds are the first choices edn_double finds for doubling levels 1-3
 * (the third repeats from then on); the 1 x 4 seed works after 0 to 5
 * 2 x 2 levels (checked; every build up to 7 doublings uses it). */
static const struct edn_base edn_base4 = {
	.ext = {4, 4, 1},
	.nd1 = 4,
	.d1 = {{2, 0, 0}, {0, 1, 0}, {3, 2, 0}, {1, 3, 0}},
	.nroot = 4,
	.roots = {0, 1, 2, 3},
	.nseed = 3,
	.seed = {{0, 2, 5, 7}, {1, 2, 4, 13}, {1, 3, 4, 6}},
	.hasq = true,
	.qseed = {6, 7, 10, 11},
	.qseedmir = 25,
};

/* 5x5, 6x6, 7x7 building blocks (001 Fig. 3.11): minimum dominating
 * sets (7, 10, 12 nodes, Cockayne's numbers) with two or three roots
 * that reach the rest in one step; tree height 2 (001 Tables 3.2-3.4).
 * Found by searching dominating sets for one whose roots also double
 * (edn_double) and give a one- or two-step startup. */
static const struct edn_base edn_base5 = {
	.ext = {5, 5, 1},
	.nd1 = 7,
	.d1 = {{0, 0, 0}, {2, 0, 0}, {4, 1, 0}, {1, 2, 0},
	       {3, 3, 0}, {0, 4, 0}, {3, 4, 0}},
	.nroot = 2,
	.roots = {0, 4},
};
static const struct edn_base edn_base6 = {
	.ext = {6, 6, 1},
	.nd1 = 10,
	.d1 = {{1, 0, 0}, {3, 0, 0}, {5, 1, 0}, {0, 2, 0},
	       {2, 2, 0}, {4, 3, 0}, {1, 4, 0}, {4, 4, 0},
	       {1, 5, 0}, {4, 5, 0}},
	.nroot = 2,
	.roots = {6, 7},
};
static const struct edn_base edn_base7 = {
	.ext = {7, 7, 1},
	.nd1 = 12,
	.d1 = {{1, 0, 0}, {3, 1, 0}, {5, 0, 0}, {0, 2, 0},
	       {6, 2, 0}, {2, 3, 0}, {4, 3, 0}, {0, 4, 0},
	       {3, 5, 0}, {6, 4, 0}, {1, 6, 0}, {5, 6, 0}},
	.nroot = 3,
	.roots = {0, 1, 11},
};

/* Rectangular bx x by building blocks for meshes (bx*2^kx) x (by*2^ky)
 * (001 §3.3.2: "the approach can be applied to rectangular meshes"; the
 * thesis gives no pattern).  Each is a minimum dominating set (6 to 11
 * nodes) with two or three roots that reach the rest in one step.  Found
 * by an offline search (docs/edn-mesh.md): among the minimum dominating
 * sets and the fewest roots that build every shape with kx, ky <= 3
 * (edn_build) and give a startup of at most two steps from every source,
 * the one whose doublings are found fastest, then shortest routes. */
static const struct edn_base edn_base45 = {
	.ext = {4, 5, 1},
	.nd1 = 6,
	.d1 = {{1, 0, 0}, {3, 1, 0}, {0, 2, 0}, {3, 2, 0},
	       {1, 4, 0}, {2, 4, 0}},
	.nroot = 2,
	.roots = {1, 4},
};
static const struct edn_base edn_base54 = {
	.ext = {5, 4, 1},
	.nd1 = 6,
	.d1 = {{1, 0, 0}, {3, 1, 0}, {4, 1, 0}, {0, 2, 0},
	       {1, 2, 0}, {3, 3, 0}},
	.nroot = 2,
	.roots = {1, 3},
};
static const struct edn_base edn_base46 = {
	.ext = {4, 6, 1},
	.nd1 = 7,
	.d1 = {{2, 0, 0}, {0, 1, 0}, {2, 2, 0}, {3, 2, 0},
	       {0, 4, 0}, {1, 4, 0}, {3, 5, 0}},
	.nroot = 2,
	.roots = {2, 5},
};
static const struct edn_base edn_base64 = {
	.ext = {6, 4, 1},
	.nd1 = 7,
	.d1 = {{1, 0, 0}, {3, 0, 0}, {5, 1, 0}, {0, 2, 0},
	       {2, 2, 0}, {2, 3, 0}, {4, 3, 0}},
	.nroot = 2,
	.roots = {1, 5},
};
static const struct edn_base edn_base47 = {
	.ext = {4, 7, 1},
	.nd1 = 7,
	.d1 = {{1, 0, 0}, {3, 1, 0}, {0, 2, 0}, {2, 3, 0},
	       {0, 4, 0}, {3, 5, 0}, {1, 6, 0}},
	.nroot = 2,
	.roots = {3, 6},
};
static const struct edn_base edn_base74 = {
	.ext = {7, 4, 1},
	.nd1 = 7,
	.d1 = {{2, 0, 0}, {4, 0, 0}, {0, 1, 0}, {6, 1, 0},
	       {3, 2, 0}, {1, 3, 0}, {5, 3, 0}},
	.nroot = 3,
	.roots = {0, 1, 5},
};
static const struct edn_base edn_base56 = {
	.ext = {5, 6, 1},
	.nd1 = 8,
	.d1 = {{2, 0, 0}, {0, 1, 0}, {4, 1, 0}, {3, 2, 0},
	       {1, 3, 0}, {0, 4, 0}, {4, 4, 0}, {2, 5, 0}},
	.nroot = 3,
	.roots = {1, 5, 7},
};
static const struct edn_base edn_base65 = {
	.ext = {6, 5, 1},
	.nd1 = 8,
	.d1 = {{1, 0, 0}, {4, 0, 0}, {4, 1, 0}, {0, 2, 0},
	       {2, 2, 0}, {5, 3, 0}, {1, 4, 0}, {3, 4, 0}},
	.nroot = 2,
	.roots = {2, 6},
};
static const struct edn_base edn_base57 = {
	.ext = {5, 7, 1},
	.nd1 = 9,
	.d1 = {{2, 0, 0}, {0, 1, 0}, {4, 1, 0}, {1, 3, 0},
	       {2, 3, 0}, {3, 3, 0}, {0, 5, 0}, {4, 5, 0},
	       {2, 6, 0}},
	.nroot = 3,
	.roots = {2, 3, 4},
};
static const struct edn_base edn_base75 = {
	.ext = {7, 5, 1},
	.nd1 = 9,
	.d1 = {{2, 0, 0}, {5, 0, 0}, {0, 1, 0}, {5, 1, 0},
	       {3, 2, 0}, {1, 3, 0}, {6, 3, 0}, {1, 4, 0},
	       {4, 4, 0}},
	.nroot = 3,
	.roots = {1, 2, 5},
};
static const struct edn_base edn_base67 = {
	.ext = {6, 7, 1},
	.nd1 = 11,
	.d1 = {{2, 0, 0}, {5, 0, 0}, {0, 1, 0}, {2, 1, 0},
	       {4, 2, 0}, {1, 3, 0}, {3, 4, 0}, {5, 4, 0},
	       {0, 5, 0}, {2, 6, 0}, {4, 6, 0}},
	.nroot = 3,
	.roots = {0, 3, 10},
};
static const struct edn_base edn_base76 = {
	.ext = {7, 6, 1},
	.nd1 = 11,
	.d1 = {{0, 0, 0}, {4, 0, 0}, {6, 0, 0}, {2, 1, 0},
	       {0, 2, 0}, {5, 2, 0}, {3, 3, 0}, {1, 4, 0},
	       {6, 4, 0}, {1, 5, 0}, {4, 5, 0}},
	.nroot = 3,
	.roots = {5, 9, 10},
};

/* 4x4x4 and 4x4x5 building blocks (001 §3.4, Fig. 3.18-3.21).  D1 is
 * one 4-node extended dominating configuration of the 4x4 plane per
 * plane (001 Fig. 3.18, 3.19): the main diagonal, pattern A (the mirror
 * of 4x4 pattern B), the anti-diagonal and pattern B; each reaches the
 * other 12 nodes of its plane in one step.  Their 16 nodes lie in 16
 * different (x, y) columns, so in the 4x4x5 block the extra plane z = 3
 * is covered in the same step, mostly straight along Z (001 Fig. 3.20:
 * "under XYZ routing, these 16 level-1 EDNs can together dominate an
 * additional 4x4 plane"; edn_base_level finds the routes).  The
 * four roots (the "basic unit", 001 Fig. 3.21) have four different x,
 * which makes every startup take two steps (001 §3.4.3) and lets Z
 * tripling send straight along Z.  Found by an offline search over the
 * 46 extended dominating 4-sets of the 4x4 plane (docs/edn-mesh.md); the
 * seeds are the first two doublings edn_double finds, which repeat. */
static const struct edn_base edn_base444 = {
	.ext = {4, 4, 4},
	.nd1 = 16,
	.d1 = {{0, 0, 0}, {1, 1, 0}, {2, 2, 0}, {3, 3, 0},
	       {1, 0, 1}, {3, 1, 1}, {0, 2, 1}, {2, 3, 1},
	       {3, 0, 2}, {2, 1, 2}, {1, 2, 2}, {0, 3, 2},
	       {2, 0, 3}, {0, 1, 3}, {3, 2, 3}, {1, 3, 3}},
	.nroot = 4,
	.roots = {2, 6, 8, 15},
	.nseed = 2,
	.seed = {{0, 2, 5, 7}, {1, 2, 4, 6}},
};
static const struct edn_base edn_base445 = {
	.ext = {4, 4, 5},
	.nd1 = 16,
	.d1 = {{0, 0, 0}, {1, 1, 0}, {2, 2, 0}, {3, 3, 0},
	       {1, 0, 1}, {3, 1, 1}, {0, 2, 1}, {2, 3, 1},
	       {3, 0, 2}, {2, 1, 2}, {1, 2, 2}, {0, 3, 2},
	       {2, 0, 4}, {0, 1, 4}, {3, 2, 4}, {1, 3, 4}},
	.nroot = 4,
	.roots = {2, 6, 8, 15},
	.nseed = 2,
	.seed = {{0, 2, 5, 7}, {1, 2, 4, 6}},
};


/* The base blocks, looked up by extent. */
static const struct edn_base *const edn_bases[] = {
	&edn_base4,  &edn_base5,  &edn_base6,  &edn_base7,
	&edn_base45, &edn_base54, &edn_base46, &edn_base64,
	&edn_base47, &edn_base74, &edn_base56, &edn_base65,
	&edn_base57, &edn_base75, &edn_base67, &edn_base76,
	&edn_base444, &edn_base445,
};
/* clang-format on */

/* The base block of extent bx x by x bz, or NULL. */
static const struct edn_base *edn_base_of(int bx, int by, int bz)
{
	for (size_t i = 0; i < sizeof edn_bases / sizeof edn_bases[0]; i++)
		if (edn_bases[i]->ext[0] == bx && edn_bases[i]->ext[1] == by &&
		    edn_bases[i]->ext[2] == bz)
			return edn_bases[i];
	return NULL;
}

/* Build the base level from a base block: the roots' sends to the rest
 * of D1 (step 0, searched), then D1 to every other node (last step).  In
 * the last step a node next to D1 gets the message from a neighbour;
 * the others (the extra plane of the 4x4x5 block, 001 §3.4, Fig. 3.20)
 * from a farther D1 node over an X-Y-Z route sharing no link with the
 * rest of the step.  The search gives the farthest nodes their routes
 * first and tries the nearest senders first, so where every node has a
 * dominating neighbour it is exactly "each node from its first
 * dominating neighbour".  False if no such plan. */
static bool edn_base_level(const struct edn_base *b, struct edn_lvl *l)
{
	memset(l, 0, sizeof *l);
	memcpy(l->ext, b->ext, sizeof l->ext);
	int snd[EDN_MAXR][3], tgt[EDN_MAXS][3], who[EDN_MAXS], nt = 0;
	bool isroot[EDN_MAXD] = {false};
	for (int i = 0; i < b->nroot; i++) {
		memcpy(snd[i], b->d1[b->roots[i]], sizeof snd[i]);
		memcpy(l->root[i], snd[i], sizeof snd[i]);
		isroot[b->roots[i]] = true;
	}
	l->nroot = b->nroot;
	for (int i = 0; i < b->nd1; i++)
		if (!isroot[i])
			memcpy(tgt[nt++], b->d1[i], sizeof tgt[0]);
	int step = 0;
	if (nt > 0) {
		if (!edn_assign((const int(*)[3])snd, b->nroot,
		                (const int(*)[3])tgt, nt, false, 3000, who))
			return false;
		for (int t = 0; t < nt; t++) {
			memcpy(l->ssrc[l->nsend], snd[who[t]], sizeof snd[0]);
			memcpy(l->sdst[l->nsend], tgt[t], sizeof tgt[0]);
			l->sstep[l->nsend++] = 0;
		}
		step = 1;
	}
	/* last step: the nodes outside D1, farthest from D1 first */
	int far[EDN_MAXS], p[3], maxd = 0;
	nt = 0;
	for (p[2] = 0; p[2] < b->ext[2]; p[2]++)
		for (p[1] = 0; p[1] < b->ext[1]; p[1]++)
			for (p[0] = 0; p[0] < b->ext[0]; p[0]++) {
				int dmin = 1 << 20;
				for (int i = 0; i < b->nd1; i++) {
					int d = edn_dist(b->d1[i], p);
					dmin = d < dmin ? d : dmin;
				}
				if (dmin == 0)
					continue;
				if (nt >= EDN_MAXS)
					return false;
				far[nt] = dmin;
				memcpy(tgt[nt++], p, sizeof p);
				maxd = dmin > maxd ? dmin : maxd;
			}
	int ord[EDN_MAXS][3], no = 0;
	for (int d = maxd; d >= 1; d--)
		for (int t = 0; t < nt; t++)
			if (far[t] == d)
				memcpy(ord[no++], tgt[t], sizeof ord[0]);
	if (!edn_assign((const int(*)[3])b->d1, b->nd1, (const int(*)[3])ord,
	                no, true, 20000, who) ||
	    l->nsend + no > EDN_MAXS)
		return false;
	for (int t = 0; t < no; t++) {
		memcpy(l->ssrc[l->nsend], b->d1[who[t]], sizeof p);
		memcpy(l->sdst[l->nsend], ord[t], sizeof p);
		l->sstep[l->nsend++] = step;
	}
	l->nstep = step + 1;
	return true;
}

/* Local point p of a block with extent ext seen through mirror mask m. */
static void edn_mirror(const int *ext, int m, const int *p, int *q)
{
	for (int d = 0; d < 3; d++)
		q[d] = (m >> d & 1) ? ext[d] - 1 - p[d] : p[d];
}

/* The roots of the four (or three) children of level l, placed in l's
 * block: out[c*r + i] is root i of child c. */
static void edn_child_roots(const struct edn_lvl *c, const struct edn_lvl *l,
                            int (*out)[3])
{
	int r = c->nroot;
	for (int k = 0; k < l->nchild; k++)
		for (int i = 0; i < r; i++) {
			int q[3];
			edn_mirror(c->ext, l->cmir[k], c->root[i], q);
			for (int d = 0; d < 3; d++)
				out[k * r + i][d] = l->coff[k][d] + q[d];
		}
}

/* Try one choice of leading roots (indices lead[] into the children's
 * roots) for level l; fills roots and sends on success. */
static bool edn_try_lead(struct edn_lvl *l, int (*cr)[3], int n,
                         const int *lead, int r)
{
	int snd[EDN_MAXR][3], tgt[4 * EDN_MAXR][3], who[4 * EDN_MAXR], nt = 0;
	bool is_lead[4 * EDN_MAXR] = {false};
	for (int i = 0; i < r; i++) {
		memcpy(snd[i], cr[lead[i]], sizeof snd[i]);
		is_lead[lead[i]] = true;
	}
	for (int i = 0; i < n; i++)
		if (!is_lead[i])
			memcpy(tgt[nt++], cr[i], sizeof tgt[0]);
	if (!edn_assign((const int(*)[3])snd, r, (const int(*)[3])tgt, nt,
	                false, 3000, who))
		return false;
	l->nroot = r;
	memcpy(l->root, snd, (size_t)r * sizeof snd[0]);
	l->nsend = nt;
	for (int t = 0; t < nt; t++) {
		memcpy(l->ssrc[t], snd[who[t]], sizeof snd[0]);
		memcpy(l->sdst[t], tgt[t], sizeof tgt[0]);
		l->sstep[t] = 0;
	}
	l->nstep = 1;
	return true;
}

/* Whether the r roots have pairwise different X coordinates; the thesis'
 * highest-level EDNs do (001 App. A), and it is what makes the startup
 * take two steps from every source of a 4*2^k mesh, 2D or 3D (a source
 * reaches at most one root left of it, one right and one in its own
 * plane x = const in one step, 001 §3.4.3), and what lets edn_triple
 * send along Z without two roots sharing a column. */
static bool edn_distinct_x(int (*cr)[3], const int *lead, int r)
{
	for (int i = 0; i < r; i++)
		for (int j = i + 1; j < r; j++)
			if (cr[lead[i]][0] == cr[lead[j]][0])
				return false;
	return true;
}

/* Next r-combination of 0..n-1 in lexicographic order. */
static bool edn_next_comb(int *c, int r, int n)
{
	int i = r - 1;
	while (i >= 0 && c[i] == n - r + i)
		i--;
	if (i < 0)
		return false;
	c[i]++;
	for (int j = i + 1; j < r; j++)
		c[j] = c[j - 1] + 1;
	return true;
}

/* Level l: fx x fy copies of c side by side in X and Y (fx, fy in
 * {1, 2}), each mirrored in x and/or y, with r of their roots leading.
 * 2 x 2 is the thesis' doubling (001 Fig. 3.7-3.9, App. A, §3.4.1);
 * 2 x 1 and 1 x 2 double only one side, for rectangular meshes once the
 * shorter side is exhausted (001 §3.3.2: the approach "can be applied
 * to rectangular meshes").  The hint (leading roots hint_lead under
 * mirrors hint_mir, from a seed or the level below) is tried first, so
 * a pattern that repeats costs nothing; NULL for none. */
static bool edn_double(const struct edn_lvl *c, struct edn_lvl *l, int fx,
                       int fy, const int *hint_lead, int hint_mir)
{
	memset(l, 0, sizeof *l);
	l->ext[0] = fx * c->ext[0];
	l->ext[1] = fy * c->ext[1];
	l->ext[2] = c->ext[2];
	l->nchild = fx * fy;
	for (int k = 0; k < l->nchild; k++) {
		l->coff[k][0] = k % fx * c->ext[0];
		l->coff[k][1] = k / fx * c->ext[1];
		l->coff[k][2] = 0;
	}
	int r = c->nroot, n = l->nchild * r;
	int cr[4 * EDN_MAXR][3];
	for (int pass = 0; pass < 2; pass++)
		for (int mm = 0; mm < 1 << (2 * l->nchild); mm++) {
			int mir = mm;
			if (pass == 0) {
				if (!hint_lead || mm > 0)
					break;
				mir = hint_mir;
			}
			for (int k = 0; k < l->nchild; k++)
				l->cmir[k] = mir >> (2 * k) & 3;
			edn_child_roots(c, l, cr);
			int lead[EDN_MAXR];
			if (pass == 0) {
				memcpy(lead, hint_lead, sizeof lead);
				if (edn_distinct_x(cr, lead, r) &&
				    edn_try_lead(l, cr, n, lead, r))
					return true;
				continue;
			}
			for (int i = 0; i < r; i++)
				lead[i] = i;
			do {
				if (edn_distinct_x(cr, lead, r) &&
				    edn_try_lead(l, cr, n, lead, r)) {
					return true;
				}
			} while (edn_next_comb(lead, r, n));
		}
	return false;
}

/* Indices of l's roots among its children's roots (for the next level's
 * first try). */
static void edn_lead_of(const struct edn_lvl *c, const struct edn_lvl *l,
                        int *lead)
{
	int cr[4 * EDN_MAXR][3], n = l->nchild * c->nroot;
	edn_child_roots(c, l, cr);
	for (int i = 0; i < l->nroot; i++)
		for (int j = 0; j < n; j++)
			if (memcmp(cr[j], l->root[i], sizeof cr[j]) == 0)
				lead[i] = j;
}

/* Level l: three copies of c stacked along Z; the middle copy's roots
 * lead and each sends straight up and down to its twins (001 §3.4.2,
 * Fig. 3.23).  False if two roots share a Z column. */
static bool edn_triple(const struct edn_lvl *c, struct edn_lvl *l)
{
	memset(l, 0, sizeof *l);
	l->ext[0] = c->ext[0];
	l->ext[1] = c->ext[1];
	l->ext[2] = 3 * c->ext[2];
	l->nchild = 3;
	for (int k = 0; k < 3; k++)
		l->coff[k][2] = k * c->ext[2];
	l->nroot = c->nroot;
	for (int i = 0; i < c->nroot; i++) {
		memcpy(l->root[i], c->root[i], sizeof l->root[i]);
		l->root[i][2] += c->ext[2];
		for (int k = 0; k < 3; k += 2) {
			memcpy(l->ssrc[l->nsend], l->root[i],
			       sizeof l->root[i]);
			memcpy(l->sdst[l->nsend], c->root[i],
			       sizeof l->root[i]);
			l->sdst[l->nsend][2] += k * c->ext[2];
			l->nsend++;
		}
	}
	for (int i = 0; i < l->nsend; i++)
		for (int j = 0; j < i; j++)
			if (edn_conflict(l->ssrc[i], l->sdst[i], l->ssrc[j],
			                 l->sdst[j]))
				return false;
	l->nstep = 1;
	return true;
}

/* ---- shapes --------------------------------------------------------- */

/* n = b * 2^k with b in 4..7: b, or 0 if n has no such form. */
static int edn_split2(int n, int *k)
{
	*k = 0;
	while (n > 7 && n % 2 == 0) {
		n /= 2;
		(*k)++;
	}
	return n >= 4 && n <= 7 ? n : 0;
}

/* z = b * 3^m with b in {4, 5}: b, or 0. */
static int edn_split3(int z, int *m)
{
	*m = 0;
	while (z > 5 && z % 3 == 0) {
		z /= 3;
		(*m)++;
	}
	return z == 4 || z == 5 ? z : 0;
}

/* The shape of a machine EDN handles: base block, doublings, triplings. */
struct edn_shape {
	int b[3]; /* base block extent x, y, z (z = 1 in 2D) */
	int k[2]; /* the mesh is b[0]*2^k[0] x b[1]*2^k[1] x b[2]*3^m */
	int m;
};

/* Whether m is a machine EDN handles, and its shape.  2D: W x H with
 * W = bx*2^kx, H = by*2^ky, bx, by in 4..7 (001 §3.3; rectangles only
 * where a bx x by base block is in the table).  3D: n x n x Z with
 * n = 4*2^k, Z = 4*3^m or 5*3^m (001 §3.4). */
static bool edn_shape(const ir_machine *m, struct edn_shape *s)
{
	if (m->topo != IR_MESH || m->routing != IR_ROUTE_DIM_ORDER ||
	    !sch_all_port(m))
		return false;
	int nd = m->ndims;
	while (nd > 1 && m->dims[nd - 1] == 1)
		nd--;
	if (nd < 2)
		return false;
	memset(s, 0, sizeof *s);
	s->b[0] = edn_split2(m->dims[0], &s->k[0]);
	s->b[1] = edn_split2(m->dims[1], &s->k[1]);
	s->b[2] = 1;
	if (nd == 3) {
		if (m->dims[0] != m->dims[1] || s->b[0] != 4)
			return false;
		s->b[2] = edn_split3(m->dims[2], &s->m);
	}
	return s->b[0] && s->b[1] && s->b[2] &&
	       edn_base_of(s->b[0], s->b[1], s->b[2]) != NULL;
}

/* Build the hierarchy for the machine: the base block, 2 x 2 doublings
 * while both sides still double, then the rest of the longer side, then
 * Z triplings.  A taller block grows by 1 x 4 quadruplings while two
 * doublings of Y remain (and a 1 x 2 doubling for an odd one); a wider
 * one by 2 x 1 doublings only: under X-Y routing a leading root reaches
 * at most one block to its left and one to its right, never the three
 * of a 4 x 1 row.  CCP_EINTERNAL if a level has no pattern (the search
 * failed). */
static int edn_build(const ir_machine *m, struct edn_tree *t)
{
	struct edn_shape s;
	if (!edn_shape(m, &s))
		return CCP_EINVAL;
	int sq = s.k[0] < s.k[1] ? s.k[0] : s.k[1];
	int wide = s.k[0] > s.k[1], d = s.k[0] + s.k[1] - 2 * sq;
	int nq = wide ? 0 : d / 2, nl = sq + nq + (d - 2 * nq);
	if (nl + s.m + 1 > EDN_MAXL)
		return CCP_EINVAL;
	const struct edn_base *base = edn_base_of(s.b[0], s.b[1], s.b[2]);
	t->nlvl = 1;
	if (!edn_base_level(base, &t->lvl[0]))
		return CCP_EINTERNAL;
	int lead[EDN_MAXR] = {0};
	for (int i = 0; i < nl; i++) {
		const struct edn_lvl *c = &t->lvl[t->nlvl - 1];
		/* this level's factors; j counts the levels of its kind */
		int f = i < sq || i >= sq + nq ? 2 : 4;
		int fx = i < sq || wide ? f : 1, fy = i < sq || !wide ? f : 1;
		int j = i < sq ? i : i < sq + nq ? i - sq : i - sq - nq;
		/* the first level of each kind starts from its seed or a full
		 * search, later ones from the pattern of the level below */
		const int *hint = j > 0 ? lead : NULL;
		int mir = 0;
		if (i < sq && j < base->nseed) {
			hint = base->seed[j];
			mir = base->seedmir[j];
		} else if (f == 4 && j == 0 && base->hasq) {
			hint = base->qseed;
			mir = base->qseedmir;
		} else if (j > 0)
			for (int q = 0; q < c->nchild; q++)
				mir |= c->cmir[q] << (2 * q);
		if (!edn_double(c, &t->lvl[t->nlvl], fx, fy, hint, mir))
			return CCP_EINTERNAL;
		edn_lead_of(&t->lvl[t->nlvl - 1], &t->lvl[t->nlvl], lead);
		t->nlvl++;
	}
	for (int i = 0; i < s.m; i++) {
		if (!edn_triple(&t->lvl[t->nlvl - 1], &t->lvl[t->nlvl]))
			return CCP_EINTERNAL;
		t->nlvl++;
	}
	return 0;
}

/* ---- startup -------------------------------------------------------- */

/* The startup (001 §3.3.2, Fig. 3.10): the source reaches the top roots
 * in one step if it can, else two.  Fills up to 2 steps of sends
 * (from[i] -> to[i] in step st[i]); returns the number of steps, or -1
 * if no two-step startup exists. */
static int edn_startup(const struct edn_lvl *top, const int *src,
                       int (*from)[3], int (*to)[3], int *st, int *nsend)
{
	int tgt[EDN_MAXR][3], nt = 0, who[EDN_MAXR];
	for (int i = 0; i < top->nroot; i++)
		if (memcmp(top->root[i], src, sizeof tgt[0]) != 0)
			memcpy(tgt[nt++], top->root[i], sizeof tgt[0]);
	*nsend = 0;
	if (nt == 0)
		return 0;
	int s1[1][3];
	memcpy(s1[0], src, sizeof s1[0]);
	if (edn_assign((const int(*)[3])s1, 1, (const int(*)[3])tgt, nt, false,
	               3000, who)) {
		for (int i = 0; i < nt; i++) {
			memcpy(from[i], src, sizeof s1[0]);
			memcpy(to[i], tgt[i], sizeof tgt[0]);
			st[i] = 0;
		}
		*nsend = nt;
		return 1;
	}
	/* two steps: subsets of the targets for step 1, largest first */
	for (int size = nt - 1; size >= 1; size--)
		for (unsigned mask = 1; mask < 1u << nt; mask++) {
			if (__builtin_popcount(mask) != size)
				continue;
			int hold[EDN_MAXR + 1][3], nh = 1, rest[EDN_MAXR][3],
			                           nr = 0;
			bool ok = true;
			memcpy(hold[0], src, sizeof hold[0]);
			for (int i = 0; i < nt; i++) {
				if (!(mask >> i & 1)) {
					memcpy(rest[nr++], tgt[i],
					       sizeof tgt[0]);
					continue;
				}
				for (int j = 1; j < nh && ok; j++)
					ok = !edn_conflict(src, tgt[i], src,
					                   hold[j]);
				memcpy(hold[nh++], tgt[i], sizeof tgt[0]);
			}
			if (!ok || !edn_assign((const int(*)[3])hold, nh,
			                       (const int(*)[3])rest, nr, false,
			                       3000, who))
				continue;
			for (int j = 1; j < nh; j++) {
				memcpy(from[*nsend], src, sizeof hold[0]);
				memcpy(to[*nsend], hold[j], sizeof hold[0]);
				st[(*nsend)++] = 0;
			}
			for (int i = 0; i < nr; i++) {
				memcpy(from[*nsend], hold[who[i]],
				       sizeof hold[0]);
				memcpy(to[*nsend], rest[i], sizeof hold[0]);
				st[(*nsend)++] = 1;
			}
			return 2;
		}
	return -1;
}

/* ---- emission ------------------------------------------------------- */

struct edn_emit {
	const ir_machine *m;
	const struct edn_tree *t;
	uint32_t start;         /* phases of the startup */
	int32_t root;           /* the source: never sent to again */
	struct sch_edges E;     /* the sends, by phase: at most nranks */
	const ir_block *blocks; /* the segments every send carries */
	uint32_t nseg;
};

/* Add send a -> b (coordinates) in phase ph; every rank but the root
 * receives once, so more sends than ranks is a bug. */
static int edn_send(struct edn_emit *w, uint32_t ph, const int *a, const int *b)
{
	if (w->E.n >= (size_t)w->m->nranks)
		return CCP_EINTERNAL;
	sch_edges_add(&w->E, ph, ir_rank_of(w->m, a), ir_rank_of(w->m, b),
	              w->blocks, w->nseg, 0);
	return w->E.rc;
}

/* Emit the sends of block (level i, offset off, mirror mir) and of every
 * block inside it. */
static int edn_emit_block(struct edn_emit *w, int i, const int *off, int mir)
{
	const struct edn_lvl *l = &w->t->lvl[i];
	uint32_t ph = w->start + (uint32_t)(w->t->nlvl - 1 - i);
	for (int s = 0; s < l->nsend; s++) {
		int a[3], b[3];
		edn_mirror(l->ext, mir, l->ssrc[s], a);
		edn_mirror(l->ext, mir, l->sdst[s], b);
		for (int d = 0; d < 3; d++) {
			a[d] += off[d];
			b[d] += off[d];
		}
		if (ir_rank_of(w->m, b) == w->root)
			continue;
		int rc = edn_send(w, ph + (i == 0 ? (uint32_t)l->sstep[s] : 0),
		                  a, b);
		if (rc)
			return rc;
	}
	if (i == 0)
		return 0;
	const struct edn_lvl *c = &w->t->lvl[i - 1];
	for (int k = 0; k < l->nchild; k++) {
		int coff[3];
		for (int d = 0; d < 3; d++)
			coff[d] = off[d] +
			          ((mir >> d & 1) ? l->ext[d] - l->coff[k][d] -
			                                    c->ext[d]
			                          : l->coff[k][d]);
		int rc = edn_emit_block(w, i - 1, coff, mir ^ l->cmir[k]);
		if (rc)
			return rc;
	}
	return 0;
}

/* The startup steps and tree height (see edn_mesh.h). */
int sch__edn_steps(const ir_machine *m, int32_t root, int *startup, int *height)
{
	struct edn_tree *t = malloc(sizeof *t);
	if (!t)
		return CCP_ENOMEM;
	int rc = edn_build(m, t);
	if (!rc) {
		int src[IR_MAX_CUBE_DIM] = {0}, from[2 * EDN_MAXR][3],
		    to[2 * EDN_MAXR][3];
		int st[2 * EDN_MAXR], ns;
		ir_coords(m, root, src);
		*startup = edn_startup(&t->lvl[t->nlvl - 1], src, from, to, st,
		                       &ns);
		*height = t->nlvl - 1 + t->lvl[0].nstep;
		if (*startup < 0)
			rc = CCP_EINTERNAL;
	}
	free(t);
	return rc;
}

/* The fewest and most startup steps over every source, and the tree
 * height (see edn_mesh.h): one hierarchy, every source's startup. */
int sch__edn_step_range(const ir_machine *m, int *min_startup, int *max_startup,
                        int *height)
{
	struct edn_tree *t = malloc(sizeof *t);
	if (!t)
		return CCP_ENOMEM;
	int rc = edn_build(m, t);
	*min_startup = 1 << 30;
	*max_startup = 0;
	for (int32_t r = 0; !rc && r < m->nranks; r++) {
		int src[IR_MAX_CUBE_DIM], from[2 * EDN_MAXR][3],
		        to[2 * EDN_MAXR][3];
		int st[2 * EDN_MAXR], ns;
		ir_coords(m, r, src);
		int su = edn_startup(&t->lvl[t->nlvl - 1], src, from, to, st,
		                     &ns);
		if (su < 0)
			rc = CCP_EINTERNAL;
		*min_startup = su < *min_startup ? su : *min_startup;
		*max_startup = su > *max_startup ? su : *max_startup;
	}
	if (!rc)
		*height = t->nlvl - 1 + t->lvl[0].nstep;
	free(t);
	return rc;
}

/* The rest of where EDN applies: a shape edn_shape accepts (its words
 * are the domain's `where`). */
static int edn_fits(const struct sch_generator *g, const ir_machine *m,
                    const ir_comm *c, char *why, size_t len)
{
	struct edn_shape s;
	(void)g, (void)c, (void)why, (void)len;
	return edn_shape(m, &s) ? 0 : CCP_ENOTAPPLY;
}
static int edn_generate(const ir_machine *m, const ir_comm *c,
                        const struct sch_options *o, ir_plan *p)
{
	(void)o;
	int rc;
	struct edn_emit w = {0};
	int32_t nseg = c->segments > 0 ? c->segments : 1;
	ir_block *blocks = malloc((size_t)nseg * sizeof *blocks);
	struct edn_tree *t = malloc(sizeof *t);
	ir_plan_init(p, m, c, "edn");
	if (!t || !blocks) {
		rc = CCP_ENOMEM;
		goto out;
	}
	for (int32_t s = 0; s < nseg; s++)
		blocks[s] = (ir_block){c->root, s};
	if ((rc = edn_build(m, t)) != 0)
		goto out;
	int src[IR_MAX_CUBE_DIM] = {0}, from[2 * EDN_MAXR][3],
	    to[2 * EDN_MAXR][3];
	int st[2 * EDN_MAXR], ns;
	ir_coords(m, c->root, src);
	int nst = edn_startup(&t->lvl[t->nlvl - 1], src, from, to, st, &ns);
	if (nst < 0) {
		rc = CCP_EINTERNAL;
		goto out;
	}
	w = (struct edn_emit){.m = m,
	                      .t = t,
	                      .start = (uint32_t)nst,
	                      .root = c->root,
	                      .blocks = blocks,
	                      .nseg = (uint32_t)nseg};
	for (int i = 0; i < ns && !rc; i++)
		rc = edn_send(&w, (uint32_t)st[i], from[i], to[i]);
	int off[3] = {0, 0, 0};
	if (!rc)
		rc = edn_emit_block(&w, t->nlvl - 1, off, 0);
	if (!rc)
		rc = sch_edges_emit(&w.E, p);
out:
	sch_edges_fini(&w.E);
	free(blocks);
	free(t);
	return rc;
}

const struct sch_generator sch_edn = {
        .name = "edn",
        .summary = "broadcast: extended dominating nodes on all-port "
                   "meshes (001 §3.3-3.4): 2D (bx*2^kx) x (by*2^ky), "
                   "bx, by = 4..7 (k+3 to k+4 phases when square); 3D "
                   "(4*2^k)^2 x (4 or 5)*3^m (k+m+4 phases)",
        .doc = "edn-mesh.md",
        .domain = {.colls = SCH_C(IR_BCAST),
                   .topos = SCH_T(IR_MESH),
                   .routings = IR_RT(DIM_ORDER),
                   .ports = SCH_PORTS_ALL,
                   .where = "either 2D W x H with W and H each 4, 5, 6 "
                            "or 7 times a power of two, or 3D n x n x Z "
                            "with n = 4*2^k and Z = 4*3^m or 5*3^m",
                   .fits = edn_fits},
        .generate = edn_generate,
};
