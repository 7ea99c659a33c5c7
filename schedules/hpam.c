/*
 * hpam.c - broadcast, scatter and gather on a two-level HPAM machine
 * (000 sections 3-5), without ("hybrid") and with ("multicast") the
 * inter-level replication hardware.
 *
 * Level 2 is cut into p2 x q2 initial sub-meshes (p2 rows, q2 columns);
 * the roots (i*p2, j*q2)_2 are reached over the inter-level links, then a
 * binary tree runs inside every sub-mesh.  The partition is chosen by
 * pricing every power-of-two p2, q2 with the caller's prices
 * (sch_options.hpam_price: the compiler gives the paper's closed forms,
 * 000 eqs. 3-14, model_hpam_price in model/); the plan is built for the
 * cheapest.
 *
 *   hybrid broadcast     one level-1 column: brute-force sends from the
 *                        root to every sub-mesh root, then the trees
 *                        (000 eq. 5); c1 >= 2: the level-1 split, one
 *                        inter-level step into two r2 x c2/2 halves, then
 *                        both levels' trees together (000 eq. 7)
 *   multicast broadcast  broadcast along the root's level-1 row, r2/p2
 *                        replicated inter-level sends (every level-1 row
 *                        node to the f level-2 columns under it), then
 *                        p2 x 1 column trees (000 eqs. 6, 8)
 *   hybrid scatter       scatter along the root's level-1 row, sequential
 *                        sends of each sub-mesh's blocks to its root, then
 *                        tree scatters in both levels (000 eqs. 10, 12)
 *   multicast scatter    as hybrid, but each inter-level step replicates
 *                        the blocks of a p2-row band (000 eqs. 11, 14)
 *   hybrid gather        the hybrid scatter reversed (000 section 5)
 *
 * The destinations are every rank of both levels; the root must be in
 * level 1.  A multicast is written as IR_XF_MCAST copies from one source
 * in one phase.  A multicast gather needs a combining router (000 section
 * 5), which the IR cannot express, so hpam_multicast refuses gathers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpam.h"
#include "sched.h"

/* ---- shape and partition ---------------------------------------------- */

/* The machine as the paper writes it, plus the root's level-1 place. */
struct shape {
	const ir_machine *m;
	int r1, c1, r2, c2; /* level l is r_l rows x c_l columns */
	int f;              /* c2 / c1 (000 eq. 1) */
	int x, y;           /* root column and row in level 1 */
};

static void shape_of(const ir_machine *m, int32_t root, struct shape *s)
{
	int c[IR_MAX_CUBE_DIM];
	s->m = m;
	s->r1 = m->levels[0][0];
	s->c1 = m->levels[0][1];
	s->r2 = m->levels[1][0];
	s->c2 = m->levels[1][1];
	s->f = s->c2 / s->c1;
	ir_coords(m, root, c); /* the root is in level 1 */
	s->x = c[0];
	s->y = c[1];
}

static int lg(int v)
{
	int k = 0;
	while ((1 << k) < v)
		k++;
	return k;
}

/* The cheapest partition by the caller's prices over every p2 that is a
 * power of two or r2 and every power-of-two q2.  The prices refuse what
 * they have no equation for (000's closed forms: another machine or
 * collective, a root outside level 1, and the partitions this file does
 * not build).  Ties go to the first found, taller sub-meshes first.
 * Exported for tests. */
int sch_hpam_partition(const ir_machine *m, const ir_comm *c, bool multicast,
                       const struct sch_options *o, int *p2, int *q2,
                       double *t_us)
{
	*t_us = INFINITY;
	*p2 = *q2 = 1;
	if (!o || !o->hpam_price)
		return CCP_EINVAL;
	int rc = CCP_ENOTAPPLY; /* until some partition is priced */
	int r2 = m->levels[1][0], c2 = m->levels[1][1];
	for (int p = r2; p >= 1; p = (p & (p - 1)) ? 1 << (lg(p) - 1) : p / 2)
		for (int q = c2; q >= 1; q /= 2) {
			double t;
			int r = o->hpam_price(o->hpam_ctx, m, c, multicast, p,
			                      q, &t);
			if (r == CCP_ENOTAPPLY)
				continue;
			if (r)
				return r;
			rc = 0;
			if (t < *t_us) {
				*t_us = t;
				*p2 = p;
				*q2 = q;
			}
		}
	return rc;
}

/* ---- edges -------------------------------------------------------------- */

/* A rectangle of ranks in one level, columns [x0, x0+w), rows [y0, y0+h). */
struct box {
	int level, x0, y0, w, h;
};

struct build {
	const struct shape *s;
	const ir_comm *c;
	struct sch_edges E; /* the transfers, by phase */
	ir_block *tmp;      /* room for the blocks of one transfer */
	bool scatter;       /* carry destination boxes */
	bool row_blocks;    /* level-1 row tree: a column range stands for the
	                       level-1 columns and the level-2 columns below */
};

static int32_t rank_at(const struct shape *s, int level, int col, int row)
{
	int c[IR_MAX_CUBE_DIM] = {col, row, level};
	return ir_rank_of(s->m, c);
}

/* Blocks of one transfer: the broadcast segments, or for scatter
 * (gather) the block of every rank in its boxes that must travel. */
static uint32_t edge_blocks(const struct build *b, int nbox,
                            const struct box *bx, ir_block *out)
{
	const ir_comm *c = b->c;
	uint32_t n = 0;
	if (!nbox) {
		int32_t nseg = c->segments > 0 ? c->segments : 1;
		for (int32_t k = 0; k < nseg; k++)
			out[n++] = (ir_block){c->root, k};
		return n;
	}
	for (int k = 0; k < nbox; k++) {
		const struct box *x = &bx[k];
		for (int row = x->y0; row < x->y0 + x->h; row++)
			for (int col = x->x0; col < x->x0 + x->w; col++) {
				int32_t r = rank_at(b->s, x->level, col, row);
				if (r == c->root)
					continue;
				out[n++] = c->coll == IR_GATHER
				                   ? (ir_block){r, 0}
				                   : (ir_block){c->root, r};
			}
	}
	return n;
}

/* Add a transfer carrying the broadcast message (nbox = 0) or the blocks
 * of up to two boxes of destination ranks. */
static int edge_add(struct build *b, uint32_t phase, int32_t src, int32_t dst,
                    uint32_t flags, int nbox, const struct box *bx)
{
	uint32_t n = edge_blocks(b, nbox, bx, b->tmp);
	sch_edges_add(&b->E, phase, src, dst, b->tmp, n, flags);
	return b->E.rc;
}

/* Binary-tree broadcast or scatter inside box bx of one level from the
 * holder at (hx, hy), starting in phase ph: each step halves every box
 * across its longer side and the holder sends to the same place in the
 * other half (000 sec. 3, [3]); the message stays inside its box, so
 * boxes never contend.  lg w + lg h steps for power-of-two sides. */
static int tree(struct build *b, struct box bx, int hx, int hy, uint32_t ph)
{
	if (bx.w <= 1 && bx.h <= 1)
		return 0;
	bool cols = bx.w >= bx.h;
	int lo = cols ? bx.x0 : bx.y0, ext = cols ? bx.w : bx.h;
	int hc = cols ? hx : hy;
	int half = (ext + 1) / 2, mid = lo + half;
	int pc = hc < mid ? (hc + half < lo + ext ? hc + half : lo + ext - 1)
	                  : hc - half;
	struct box a = bx, z = bx; /* lower and upper halves */
	if (cols) {
		a.w = half;
		z.x0 = mid;
		z.w = ext - half;
	} else {
		a.h = half;
		z.y0 = mid;
		z.h = ext - half;
	}
	int px = cols ? pc : hx, py = cols ? hy : pc;
	struct box other = hc < mid ? z : a;
	struct box carry[2];
	int nbox = 0;
	if (b->scatter && b->row_blocks) {
		/* level-1 column range -> its columns in both levels */
		const struct shape *s = b->s;
		carry[0] = (struct box){0, other.x0, 0, other.w, s->r1};
		carry[1] = (struct box){1, other.x0 * s->f, 0, other.w * s->f,
		                        s->r2};
		nbox = 2;
	} else if (b->scatter) {
		carry[0] = other;
		nbox = 1;
	}
	int rc = edge_add(b, ph, rank_at(b->s, bx.level, hx, hy),
	                  rank_at(b->s, bx.level, px, py), 0, nbox, carry);
	if (rc)
		return rc;
	int ax = hc < mid ? hx : px, ay = hc < mid ? hy : py;
	int zx = hc < mid ? px : hx, zy = hc < mid ? py : hy;
	if ((rc = tree(b, a, ax, ay, ph + 1)) != 0)
		return rc;
	return tree(b, z, zx, zy, ph + 1);
}

/* ---- the algorithms ---------------------------------------------------- */

/* Hybrid broadcast, 000 eq. 7: the root splits level 1 across its
 * columns, both holders send down into the two r2 x c2/2 halves of level
 * 2 (each straight down its own column), then the trees of both levels
 * run together. */
static int bcast_split(struct build *b)
{
	const struct shape *s = b->s;
	int hc = s->c1 / 2, j = s->x, j2 = j < hc ? j + hc : j - hc;
	int rc = edge_add(b, 0, rank_at(s, 0, j, s->y), rank_at(s, 0, j2, s->y),
	                  0, 0, NULL);
	int jj[2] = {j, j2};
	for (int k = 0; k < 2 && !rc; k++)
		rc = edge_add(b, 1, rank_at(s, 0, jj[k], s->y),
		              rank_at(s, 1, jj[k] * s->f, 0), 0, 0, NULL);
	for (int k = 0; k < 2 && !rc; k++) {
		int left = jj[k] < hc ? 0 : 1;
		struct box l1 = {0, left * hc, 0, hc, s->r1};
		struct box l2 = {1, left * s->c2 / 2, 0, s->c2 / 2, s->r2};
		rc = tree(b, l1, jj[k], s->y, 2);
		if (!rc)
			rc = tree(b, l2, jj[k] * s->f, 0, 2);
	}
	return rc;
}

/* Hybrid broadcast or scatter with one level-1 column, and the hybrid
 * scatter in general (000 eqs. 5, 10, 12): a tree along the root's
 * level-1 row, then every row node sends to the roots of the p2 x q2
 * sub-meshes under its columns one at a time, then trees in the
 * sub-meshes and down the level-1 columns together. */
static int hybrid(struct build *b, int p2, int q2)
{
	const struct shape *s = b->s;
	struct box row = {0, 0, s->y, s->c1, 1};
	b->row_blocks = true;
	int rc = tree(b, row, s->x, s->y, 0);
	b->row_blocks = false;
	if (rc)
		return rc;
	uint32_t t = (uint32_t)lg(s->c1);
	for (int i = 0; i < s->r2 / p2; i++)
		for (int k = 0; k < s->f / q2; k++, t++)
			for (int j = 0; j < s->c1; j++) {
				int n = j * s->f + k * q2;
				struct box sub = {1, n, i * p2, q2, p2};
				rc = edge_add(b, t, rank_at(s, 0, j, s->y),
				              rank_at(s, 1, n, i * p2), 0,
				              b->scatter, &sub);
				if (rc)
					return rc;
			}
	for (int j = 0; j < s->c1 && !rc; j++) {
		struct box col = {0, j, 0, 1, s->r1};
		rc = tree(b, col, j, s->y, t);
	}
	for (int i = 0; i < s->r2 / p2 && !rc; i++)
		for (int n = 0; n < s->c2 && !rc; n += q2) {
			struct box sub = {1, n, i * p2, q2, p2};
			rc = tree(b, sub, n, i * p2, t);
		}
	return rc;
}

/* Multicast broadcast or scatter (000 eqs. 6, 8, 11, 14): a tree along
 * the root's level-1 row, then r2/p2 steps in which every row node
 * replicates one message onto the f level-2 columns under it, reaching
 * row i*p2 (scatter: the blocks of that p2-row band), then p2 x 1 column
 * trees in level 2 beside the level-1 column trees. */
static int multicast(struct build *b, int p2)
{
	const struct shape *s = b->s;
	struct box row = {0, 0, s->y, s->c1, 1};
	b->row_blocks = true;
	int rc = tree(b, row, s->x, s->y, 0);
	b->row_blocks = false;
	if (rc)
		return rc;
	uint32_t t = (uint32_t)lg(s->c1);
	uint32_t fl = s->f > 1 ? IR_XF_MCAST : 0;
	for (int i = 0; i < s->r2 / p2; i++, t++)
		for (int j = 0; j < s->c1; j++) {
			struct box band = {1, j * s->f, i * p2, s->f, p2};
			for (int k = 0; k < s->f; k++) {
				rc = edge_add(
				        b, t, rank_at(s, 0, j, s->y),
				        rank_at(s, 1, j * s->f + k, i * p2), fl,
				        b->scatter, &band);
				if (rc)
					return rc;
			}
		}
	for (int j = 0; j < s->c1 && !rc; j++) {
		struct box col = {0, j, 0, 1, s->r1};
		rc = tree(b, col, j, s->y, t);
	}
	for (int i = 0; i < s->r2 / p2 && !rc; i++)
		for (int n = 0; n < s->c2 && !rc; n++) {
			struct box sub = {1, n, i * p2, 1, p2};
			rc = tree(b, sub, n, i * p2, t);
		}
	return rc;
}

/* ---- generators ---------------------------------------------------------- */

/* The rest of where they apply: the root in level 1. */
static int hpam_fits(const struct sch_generator *g, const ir_machine *m,
                     const ir_comm *c, char *why, size_t len)
{
	int n1 = m->levels[0][0] * m->levels[0][1];
	if (c->root < 0 || c->root >= n1) {
		snprintf(why, len,
		         "%s needs the root in level 1 (ranks 0..%d); root %d "
		         "is in level 2",
		         g->name, n1 - 1, (int)c->root);
		return CCP_ENOTAPPLY;
	}
	return 0;
}
/* Build the plan: search the partition, find the transfers, sort them
 * into phases (reversed, from destination to source, for gather). */
static int hpam_generate(const char *name, bool mc, const ir_machine *m,
                         const ir_comm *c, const struct sch_options *o,
                         ir_plan *p)
{
	char why[160];
	int rc = sch_applies(mc ? &sch_hpam_multicast : &sch_hpam_hybrid, m, c,
	                     why, sizeof why);
	ir_plan_init(p, m, c, name);
	if (rc)
		return rc;
	struct shape s;
	shape_of(m, c->root, &s);
	int p2, q2;
	double t;
	if ((rc = sch_hpam_partition(m, c, mc, o, &p2, &q2, &t)) != 0)
		return rc;
	struct build b = {.s = &s, .c = c, .scatter = c->coll != IR_BCAST};
	int32_t nseg = c->segments > 0 ? c->segments : 1;
	size_t nb = (size_t)m->nranks > (size_t)nseg ? (size_t)m->nranks
	                                             : (size_t)nseg;
	if (!(b.tmp = malloc(nb * sizeof *b.tmp))) {
		rc = CCP_ENOMEM;
		goto out;
	}
	if (mc)
		rc = multicast(&b, p2);
	else if (c->coll == IR_BCAST && s.c1 >= 2)
		rc = bcast_split(&b);
	else
		rc = hybrid(&b, p2, q2);
	if (rc)
		goto out;
	if (c->coll == IR_GATHER) /* the scatter run backwards */
		sch_edges_reverse(&b.E);
	rc = sch_edges_emit(&b.E, p);
out:
	sch_edges_fini(&b.E);
	free(b.tmp);
	return rc;
}

static int hybrid_generate(const ir_machine *m, const ir_comm *c,
                           const struct sch_options *o, ir_plan *p)
{
	return hpam_generate("hpam_hybrid", false, m, c, o, p);
}

static int multicast_generate(const ir_machine *m, const ir_comm *c,
                              const struct sch_options *o, ir_plan *p)
{
	return hpam_generate("hpam_multicast", true, m, c, o, p);
}

const struct sch_generator sch_hpam_hybrid = {
        .name = "hpam_hybrid",
        .summary = "HPAM broadcast/scatter/gather: brute-force inter-level "
                   "sends to p2 x q2 sub-mesh roots, then binary trees "
                   "(000 eqs. 5, 7, 10, 12)",
        .doc = "hpam.md",
        .domain = {.colls = SCH_C(IR_BCAST) | SCH_C(IR_SCATTER) |
                            SCH_C(IR_GATHER),
                   .topos = SCH_T(IR_HPAM),
                   .fits = hpam_fits},
        .generate = hybrid_generate,
};

const struct sch_generator sch_hpam_multicast = {
        .name = "hpam_multicast",
        .summary = "HPAM broadcast/scatter: replicated inter-level sends "
                   "to p2 x 1 sub-mesh roots, then column trees "
                   "(000 eqs. 6, 8, 11, 14)",
        .doc = "hpam.md",
        .domain = {.colls = SCH_C(IR_BCAST) | SCH_C(IR_SCATTER),
                   .topos = SCH_T(IR_HPAM),
                   .refused = {[IR_GATHER] =
                                       "a multicast gather needs an "
                                       "inter-level router that combines "
                                       "messages (000 section 5), which "
                                       "plans cannot express: use "
                                       "hpam_hybrid"},
                   .fits = hpam_fits},
        .generate = multicast_generate,
};
