/*
 * edn_mesh.c - broadcast by dominating nodes on all-port meshes with
 * dimension-ordered (X-Y, X-Y-Z) routing: SLD and EDN (001 sections 3.2
 * to 3.4).
 *
 * SLD (001 §3.2): the source multicasts to a dominating set of the mesh
 * with U-mesh (lexicographic halving, 001 §3.2.2), then every dominating
 * node sends to its neighbours in one more step.
 *
 * EDN (001 §3.3, §3.4): a hierarchy of extended dominating sets.  The
 * mesh is cut into blocks; a base block (4x4, 5x5, 6x6, 7x7 in 2D,
 * 4x4x4 or 4x4x5 in 3D) carries a small broadcast tree of height 1 or 2
 * rooted at r "roots".  Four blocks, each a mirror image of the smaller
 * pattern, make a block twice as wide (001 Fig. 3.7-3.9); r of their 4r
 * roots become the roots of the bigger block, chosen so that they reach
 * the other 3r in one step over edge-disjoint routes.  In 3D, three
 * slabs stacked along Z make a block three times as deep, whose roots
 * are those of the middle slab (001 §3.4.2).  Broadcast is then the
 * startup (source to the top roots, 1 or 2 steps) followed by one step
 * per level of the hierarchy.
 *
 * The figures of the thesis are not available, so the base patterns were
 * found by a computer search (once, while developing; the sets are in
 * the tables below) and the choices of each larger level (mirror of each
 * quarter, which roots lead, who sends to whom) are found at generation
 * time by a small deterministic search; the verifier proves every plan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edn_mesh.h"
#include "sched.h"

#define EDN_MAXR 4    /* roots of one block */
#define EDN_MAXS 128  /* sends of one level of one block */
#define EDN_MAXL 32   /* levels */

/* One level of the hierarchy: a block, its roots, how it is built from
 * the level below and the sends it performs (local coordinates). */
struct edn_lvl {
	int ext[3];                 /* block extent x, y, z */
	int nroot;                  /* number of roots */
	int root[EDN_MAXR][3];      /* root coordinates in the block */
	int nchild;                 /* 0 base, 4 XY doubling, 3 Z tripling */
	int coff[4][3];             /* offset of each child in the block */
	int cmir[4];                /* mirror mask of each child (bit d) */
	int nsend;                  /* sends of this level */
	int ssrc[EDN_MAXS][3];      /* sender of each send */
	int sdst[EDN_MAXS][3];      /* receiver of each send */
	int sstep[EDN_MAXS];        /* base only: the step of the send */
	int nstep;                  /* steps this level takes (base: 1-2) */
};

/* A whole hierarchy for one machine. */
struct edn_tree {
	int nlvl;                   /* levels, [0] is the base */
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
			int f1 = e < d ? b1[e] : a1[e], f2 = e < d ? b2[e] : a2[e];
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

struct edn_assign {
	int ns, nt;
	const int (*snd)[3];  /* senders */
	const int (*tgt)[3];  /* targets */
	int who[EDN_MAXS];    /* sender chosen for each target */
	long budget;          /* nodes left to explore */
};

/* Give target t and the following ones a sender each so that no two
 * routes share a link; depth-first, senders in order. */
static bool edn_assign_from(struct edn_assign *a, int t)
{
	if (t == a->nt)
		return true;
	if (--a->budget < 0)
		return false;
	for (int s = 0; s < a->ns; s++) {
		if (memcmp(a->snd[s], a->tgt[t], sizeof a->snd[s]) == 0)
			continue;
		bool ok = true;
		for (int u = 0; u < t && ok; u++)
			ok = !edn_conflict(a->snd[s], a->tgt[t], a->snd[a->who[u]],
			                   a->tgt[u]);
		if (!ok)
			continue;
		a->who[t] = s;
		if (edn_assign_from(a, t + 1))
			return true;
	}
	return false;
}

/* Find senders for every target over link-disjoint routes, in one step;
 * who[] gets the sender index of each target.  A bounded search. */
static bool edn_assign(const int (*snd)[3], int ns, const int (*tgt)[3],
                       int nt, int *who)
{
	struct edn_assign a = {ns, nt, snd, tgt, {0}, 3000};
	if (nt > EDN_MAXS)
		return false;
	if (!edn_assign_from(&a, 0))
		return false;
	memcpy(who, a.who, (size_t)nt * sizeof *who);
	return true;
}

/* ---- base blocks (computer search, once; see docs/edn-mesh.md) ------ */

/* A base block: extent, dominating set D1 and the roots D2 (indices
 * into D1).  D2 reaches D1 - D2 in one step, D1 dominates the block. */
struct edn_base {
	int ext[3];
	int nd1;
	int d1[20][3];
	int nroot;
	int roots[EDN_MAXR]; /* indices into d1 */
	int nseed;           /* levels with a seed below */
	int seed[3][EDN_MAXR]; /* leading roots of doubling levels 1-3
	                          (mirrors 0), found once by edn_double */
};

/* 001 Fig. 3.2(d), 3.3: pattern B of the 4x4 mesh, a perfect dominating
 * set; its four nodes are the roots (tree height 1, 001 Table 3.1). */
static const struct edn_base edn_base4 = {
        {4, 4, 1}, 4, {{2, 0, 0}, {0, 1, 0}, {3, 2, 0}, {1, 3, 0}},
        4, {0, 1, 2, 3}, 3, {{0, 2, 5, 7}, {1, 2, 4, 13}, {1, 3, 4, 6}}};

/* 5x5, 6x6, 7x7 building blocks (001 Fig. 3.11): minimum dominating
 * sets (7, 10, 12 nodes, Cockayne's numbers) with two or three roots
 * that reach the rest in one step; tree height 2 (001 Tables 3.2-3.4).
 * Found by searching dominating sets for one whose roots also double
 * (edn_double) and give a one- or two-step startup. */
static const struct edn_base edn_base5 = {
        {5, 5, 1}, 7,
        {{0, 0, 0}, {2, 0, 0}, {4, 1, 0}, {1, 2, 0}, {3, 3, 0}, {0, 4, 0},
         {3, 4, 0}},
        2, {0, 4}, 0, {{0}}};
static const struct edn_base edn_base6 = {
        {6, 6, 1}, 10,
        {{1, 0, 0}, {3, 0, 0}, {5, 1, 0}, {0, 2, 0}, {2, 2, 0}, {4, 3, 0},
         {1, 4, 0}, {4, 4, 0}, {1, 5, 0}, {4, 5, 0}},
        2, {6, 7}, 0, {{0}}};
static const struct edn_base edn_base7 = {
        {7, 7, 1}, 12,
        {{1, 0, 0}, {3, 1, 0}, {5, 0, 0}, {0, 2, 0}, {6, 2, 0}, {2, 3, 0},
         {4, 3, 0}, {0, 4, 0}, {3, 5, 0}, {6, 4, 0}, {1, 6, 0}, {5, 6, 0}},
        3, {0, 1, 11}, 0, {{0}}};

/* Which widths have a base block (for the applies message). */
#define EDN_WIDTHS "4, 5, 6 or 7"

/* The base block for 2D width b (bz = 1) or 3D 4x4xbz, or NULL. */
static const struct edn_base *edn_base_of(int b, int bz)
{
	static const struct edn_base *const flat[] = {&edn_base4, &edn_base5,
	                                              &edn_base6, &edn_base7};
	if (bz == 1 && b >= 4 && b <= 7)
		return flat[b - 4];
	return NULL;
}

/* Build the base level from a base block: the roots' sends to the rest
 * of D1 (step 0, searched), then D1 to every other node (last step, each
 * node from its first dominating neighbour).  False if no such plan. */
static bool edn_base_level(const struct edn_base *b, struct edn_lvl *l)
{
	memset(l, 0, sizeof *l);
	memcpy(l->ext, b->ext, sizeof l->ext);
	int snd[EDN_MAXR][3], tgt[20][3], who[20], nt = 0;
	bool isroot[20] = {false};
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
		                (const int(*)[3])tgt, nt, who))
			return false;
		for (int t = 0; t < nt; t++) {
			memcpy(l->ssrc[l->nsend], snd[who[t]], sizeof snd[0]);
			memcpy(l->sdst[l->nsend], tgt[t], sizeof tgt[0]);
			l->sstep[l->nsend++] = 0;
		}
		step = 1;
	}
	/* last step: every node outside D1 from a dominating neighbour */
	int p[3];
	for (p[2] = 0; p[2] < b->ext[2]; p[2]++)
		for (p[1] = 0; p[1] < b->ext[1]; p[1]++)
			for (p[0] = 0; p[0] < b->ext[0]; p[0]++) {
				int from = -1;
				for (int i = 0; i < b->nd1; i++) {
					int dist = 0;
					for (int d = 0; d < 3; d++)
						dist += abs(b->d1[i][d] - p[d]);
					if (dist == 0) {
						from = -2;
						break;
					}
					if (dist == 1 && from == -1)
						from = i;
				}
				if (from == -2)
					continue;
				if (from < 0 || l->nsend >= EDN_MAXS)
					return false;
				memcpy(l->ssrc[l->nsend], b->d1[from], sizeof p);
				memcpy(l->sdst[l->nsend], p, sizeof p);
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
static bool edn_try_lead(struct edn_lvl *l, int (*cr)[3], int n, const int *lead,
                         int r)
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
	if (!edn_assign((const int(*)[3])snd, r, (const int(*)[3])tgt, nt, who))
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
 * take two steps from every source of a 4*2^k mesh. */
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

/* Level l: four copies of c side by side in X and Y, each mirrored, with
 * r leading roots (001 Fig. 3.7-3.9, App. A).  The hint (leading roots
 * hint_lead under mirrors hint_mir, from a seed or the level below) is
 * tried first, so a pattern that repeats costs nothing; NULL for none. */
static bool edn_double(const struct edn_lvl *c, struct edn_lvl *l,
                       const int *hint_lead, int hint_mir)
{
	memset(l, 0, sizeof *l);
	l->ext[0] = 2 * c->ext[0];
	l->ext[1] = 2 * c->ext[1];
	l->ext[2] = c->ext[2];
	l->nchild = 4;
	for (int k = 0; k < 4; k++) {
		l->coff[k][0] = (k & 1) ? c->ext[0] : 0;
		l->coff[k][1] = (k & 2) ? c->ext[1] : 0;
		l->coff[k][2] = 0;
	}
	int r = c->nroot, n = 4 * r;
	int cr[4 * EDN_MAXR][3];
	for (int pass = 0; pass < 2; pass++)
		for (int mm = 0; mm < 256; mm++) {
			int mir = mm;
			if (pass == 0) {
				if (!hint_lead || mm > 0)
					break;
				mir = hint_mir;
			}
			for (int k = 0; k < 4; k++)
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
			memcpy(l->ssrc[l->nsend], l->root[i], sizeof l->root[i]);
			memcpy(l->sdst[l->nsend], c->root[i], sizeof l->root[i]);
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

/* Whether m is a machine EDN handles; the shape in b, k, bz, mz. */
static bool edn_shape(const ir_machine *m, int *b, int *k, int *bz, int *mz)
{
	if (m->topo != IR_MESH || m->routing != IR_ROUTE_DIM_ORDER ||
	    m->ports != IR_PORTS_ALL)
		return false;
	int nd = m->ndims;
	while (nd > 1 && m->dims[nd - 1] == 1)
		nd--;
	if (nd < 2 || m->dims[0] != m->dims[1])
		return false;
	*b = edn_split2(m->dims[0], k);
	*bz = 1;
	*mz = 0;
	if (nd == 2)
		return *b != 0 && edn_base_of(*b, 1) != NULL;
	/* 3D (001 §3.4): edn_triple stacks slabs along Z, but no 4x4x4 or
	 * 4x4x5 base block is in edn_base_of yet, so none applies */
	if (*b != 4)
		return false;
	*bz = edn_split3(m->dims[2], mz);
	return *bz != 0 && edn_base_of(4, *bz) != NULL;
}

/* Build the hierarchy for the machine: base, XY doublings, Z triplings.
 * CCP_EINTERNAL if a level has no pattern (the search failed). */
static int edn_build(const ir_machine *m, struct edn_tree *t)
{
	int b, k, bz, mz;
	if (!edn_shape(m, &b, &k, &bz, &mz) || k + mz + 1 > EDN_MAXL)
		return CCP_EINVAL;
	t->nlvl = 1;
	if (!edn_base_level(edn_base_of(b, bz), &t->lvl[0]))
		return CCP_EINTERNAL;
	const struct edn_base *base = edn_base_of(b, bz);
	int lead[EDN_MAXR] = {0};
	for (int i = 0; i < k; i++) {
		const struct edn_lvl *c = &t->lvl[t->nlvl - 1];
		const int *hint = i > 0 ? lead : NULL;
		int mir = 0;
		if (i < base->nseed)
			hint = base->seed[i];
		else if (i > 0)
			for (int q = 0; q < 4; q++)
				mir |= c->cmir[q] << (2 * q);
		if (!edn_double(c, &t->lvl[t->nlvl], hint, mir))
			return CCP_EINTERNAL;
		edn_lead_of(&t->lvl[t->nlvl - 1], &t->lvl[t->nlvl], lead);
		t->nlvl++;
	}
	for (int i = 0; i < mz; i++) {
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
	if (edn_assign((const int(*)[3])s1, 1, (const int(*)[3])tgt, nt, who)) {
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
			int hold[EDN_MAXR + 1][3], nh = 1, rest[EDN_MAXR][3], nr = 0;
			bool ok = true;
			memcpy(hold[0], src, sizeof hold[0]);
			for (int i = 0; i < nt; i++) {
				if (!(mask >> i & 1)) {
					memcpy(rest[nr++], tgt[i], sizeof tgt[0]);
					continue;
				}
				for (int j = 1; j < nh && ok; j++)
					ok = !edn_conflict(src, tgt[i], src, hold[j]);
				memcpy(hold[nh++], tgt[i], sizeof tgt[0]);
			}
			if (!ok || !edn_assign((const int(*)[3])hold, nh,
			                       (const int(*)[3])rest, nr, who))
				continue;
			for (int j = 1; j < nh; j++) {
				memcpy(from[*nsend], src, sizeof hold[0]);
				memcpy(to[*nsend], hold[j], sizeof hold[0]);
				st[(*nsend)++] = 0;
			}
			for (int i = 0; i < nr; i++) {
				memcpy(from[*nsend], hold[who[i]], sizeof hold[0]);
				memcpy(to[*nsend], rest[i], sizeof hold[0]);
				st[(*nsend)++] = 1;
			}
			return 2;
		}
	return -1;
}

/* ---- emission ------------------------------------------------------- */

struct edn_edge {
	uint32_t phase;
	int32_t src, dst;
};

struct edn_emit {
	const ir_machine *m;
	const struct edn_tree *t;
	uint32_t start;        /* phases of the startup */
	int32_t root;          /* the source: never sent to again */
	struct edn_edge *e;    /* edges, at most nranks */
	size_t ne, cap;
};

/* Coordinates of rank r as x, y, z (z = 0 on a 2D mesh). */
static void edn_coords(const ir_machine *m, int32_t r, int *p)
{
	p[0] = r % m->dims[0];
	p[1] = r / m->dims[0] % m->dims[1];
	p[2] = r / m->dims[0] / m->dims[1];
}

static int32_t edn_rank(const ir_machine *m, const int *p)
{
	return p[0] + m->dims[0] * (p[1] + m->dims[1] * p[2]);
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
		int32_t dst = edn_rank(w->m, b);
		if (dst == w->root)
			continue;
		if (w->ne >= w->cap)
			return CCP_EINTERNAL;
		w->e[w->ne++] = (struct edn_edge){
		        ph + (i == 0 ? (uint32_t)l->sstep[s] : 0),
		        edn_rank(w->m, a), dst};
	}
	if (i == 0)
		return 0;
	const struct edn_lvl *c = &w->t->lvl[i - 1];
	for (int k = 0; k < l->nchild; k++) {
		int coff[3];
		for (int d = 0; d < 3; d++)
			coff[d] = off[d] + ((mir >> d & 1)
			                            ? l->ext[d] - l->coff[k][d] - c->ext[d]
			                            : l->coff[k][d]);
		int rc = edn_emit_block(w, i - 1, coff, mir ^ l->cmir[k]);
		if (rc)
			return rc;
	}
	return 0;
}

/* The startup steps and tree height (see edn_mesh.h). */
int sch__edn_steps(const ir_machine *m, int32_t root, int *startup,
                   int *height)
{
	struct edn_tree *t = malloc(sizeof *t);
	if (!t)
		return CCP_ENOMEM;
	int rc = edn_build(m, t);
	if (!rc) {
		int src[3] = {0, 0, 0}, from[2 * EDN_MAXR][3], to[2 * EDN_MAXR][3];
		int st[2 * EDN_MAXR], ns;
		edn_coords(m, root, src);
		*startup = edn_startup(&t->lvl[t->nlvl - 1], src, from, to, st, &ns);
		*height = t->nlvl - 1 + t->lvl[0].nstep;
		if (*startup < 0)
			rc = CCP_EINTERNAL;
	}
	free(t);
	return rc;
}

static int edn_applies(const ir_machine *m, const ir_comm *c, char *why,
                       size_t len)
{
	int b, k, bz, mz;
	if (c->coll != IR_BCAST) {
		snprintf(why, len, "edn is a broadcast; this is a %s",
		         ir_coll_name(c->coll));
		return CCP_ENOTAPPLY;
	}
	if (edn_shape(m, &b, &k, &bz, &mz))
		return 0;
	char shape[64];
	if (m->topo == IR_MESH && m->ndims == 3)
		snprintf(shape, sizeof shape, "a %dx%dx%d mesh", m->dims[0],
		         m->dims[1], m->dims[2]);
	else if (m->topo == IR_MESH && m->ndims == 2)
		snprintf(shape, sizeof shape, "a %dx%d mesh", m->dims[0],
		         m->dims[1]);
	else
		snprintf(shape, sizeof shape, "a %s", ir_topo_name(m->topo));
	if (m->topo == IR_MESH && m->ports != IR_PORTS_ALL)
		snprintf(shape + strlen(shape), sizeof shape - strlen(shape),
		         " with %d-port nodes", m->ports);
	snprintf(why, len,
	         "edn needs an all-port 2D n x n mesh with dimension-order "
	         "routing and n = %s times a power of two (it has no 3D "
	         "or rectangular form in this version); this machine is %s",
	         EDN_WIDTHS, shape);
	return CCP_ENOTAPPLY;
}

/* Order edges by phase (counting sort) and add them to the plan. */
static int edn_flush(ir_plan *p, const ir_comm *c, struct edn_edge *e,
                     size_t ne, uint32_t nphases)
{
	int rc = 0;
	int32_t nseg = c->segments > 0 ? c->segments : 1;
	size_t *cnt = calloc((size_t)nphases + 1, sizeof *cnt);
	struct edn_edge *o = malloc((ne + 1) * sizeof *o);
	ir_block *blocks = malloc((size_t)nseg * sizeof *blocks);
	if (!cnt || !o || !blocks) {
		rc = CCP_ENOMEM;
		goto out;
	}
	for (int32_t s = 0; s < nseg; s++)
		blocks[s] = (ir_block){c->root, s};
	for (size_t i = 0; i < ne; i++)
		cnt[e[i].phase + 1]++;
	for (uint32_t ph = 0; ph < nphases; ph++)
		cnt[ph + 1] += cnt[ph];
	for (size_t i = 0; i < ne; i++)
		o[cnt[e[i].phase]++] = e[i];
	for (size_t i = 0; i < ne; i++) {
		if ((i == 0 || o[i].phase != o[i - 1].phase) &&
		    (rc = ir_plan_phase(p)) != 0)
			goto out;
		if ((rc = ir_plan_add(p, o[i].src, o[i].dst, blocks,
		                      (uint32_t)nseg, 0)) != 0)
			goto out;
	}
out:
	free(cnt);
	free(o);
	free(blocks);
	return rc;
}

static int edn_generate(const ir_machine *m, const ir_comm *c,
                        const struct sch_options *o, ir_plan *p)
{
	(void)o;
	int rc;
	struct edn_emit w = {0};
	ir_plan_init(p, m, c, "edn");
	struct edn_tree *t = malloc(sizeof *t);
	if (!t)
		return CCP_ENOMEM;
	if ((rc = edn_build(m, t)) != 0)
		goto out_free_tree;
	int src[3] = {0, 0, 0}, from[2 * EDN_MAXR][3], to[2 * EDN_MAXR][3];
	int st[2 * EDN_MAXR], ns;
	edn_coords(m, c->root, src);
	int nst = edn_startup(&t->lvl[t->nlvl - 1], src, from, to, st, &ns);
	if (nst < 0) {
		rc = CCP_EINTERNAL;
		goto out_free_tree;
	}
	w = (struct edn_emit){m, t, (uint32_t)nst, c->root, NULL, 0,
	                      (size_t)m->nranks};
	w.e = malloc(w.cap * sizeof *w.e);
	if (!w.e) {
		rc = CCP_ENOMEM;
		goto out_free_tree;
	}
	for (int i = 0; i < ns; i++)
		w.e[w.ne++] = (struct edn_edge){(uint32_t)st[i],
		                                edn_rank(m, from[i]),
		                                edn_rank(m, to[i])};
	int off[3] = {0, 0, 0};
	if ((rc = edn_emit_block(&w, t->nlvl - 1, off, 0)) != 0)
		goto out_free_edges;
	rc = edn_flush(p, c, w.e, w.ne,
	               (uint32_t)(nst + t->nlvl - 1 + t->lvl[0].nstep));
out_free_edges:
	free(w.e);
out_free_tree:
	free(t);
	return rc;
}

const struct sch_generator sch_edn = {
        .name = "edn",
        .summary = "broadcast: extended dominating nodes on all-port 2D "
                   "meshes (001 §3.3, k+3 to k+4 phases on (b*2^k)^2 "
                   "meshes, b = 4..7)",
        .applies = edn_applies,
        .generate = edn_generate,
};
