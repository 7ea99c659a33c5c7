/*
 * mesh_collectives.c - scatter, gather, reduction and transposition on
 * 2D meshes under X-Y routing.
 *
 *   tree_scatter      binary-tree scatter by recursive halving (000 eq. 9)
 *   tree_gather       the same tree run backwards (000 section 5)
 *   transpose_direct  every block straight to its place in one phase, with
 *                     the contention that brings (001 section 3.6)
 *
 * The EDN transpose, reduction and gather of 001 sections 3.5-3.6 are in
 * edn_transpose.c and edn_reduce.c.
 *
 * Every plan is proved by ir_verify; nothing here counts on the papers'
 * step counts, the tests compare them with what the verifier measures.
 * docs/mesh-collectives.md describes the patterns as built.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* ---- shared helpers ------------------------------------------------- */

/* The tree generators' shapes: a mesh of one or two dimensions (the
 * papers' r x c). */
static int tree_fits(const struct sch_generator *g, const ir_machine *m,
                     const ir_comm *c, char *why, size_t len)
{
	(void)g, (void)c, (void)why, (void)len;
	return m->ndims <= 2 && m->dims[2] == 1 ? 0 : CCP_ENOTAPPLY;
}

/* The transpose's shape: a square 2D mesh or torus. */
static int square_fits(const struct sch_generator *g, const ir_machine *m,
                       const ir_comm *c, char *why, size_t len)
{
	(void)g, (void)c, (void)why, (void)len;
	return m->ndims == 2 && m->dims[0] == m->dims[1] ? 0 : CCP_ENOTAPPLY;
}

/* Rank of column x, row y of a 1D or 2D mesh or torus. */
static int32_t at(const ir_machine *m, int x, int y)
{
	int c[IR_MAX_CUBE_DIM] = {x, y, 0};
	return ir_rank_of(m, c);
}

/* ---- binary-tree scatter and gather (000 eq. 9, section 5) ---------- */

struct tree_walk {
	const ir_machine *m;
	const ir_comm *c;
	struct sch_edges E; /* holder -> partner, in scatter order */
	ir_block *tmp;      /* room for the blocks of one half */
};

/* Split box [lo, hi), held at h, across its longer side (X on a tie), in
 * the given phase; the holder sends the other half's blocks to the rank
 * at its own place there, then both halves recurse.  Each message stays
 * inside its box on a straight line, so the messages of a phase are
 * link-disjoint (000 section 4: lg r + lg c steps).  A gather's blocks
 * are the ranks' own, to be sent the other way. */
static void tree_halve(struct tree_walk *w, int lo[2], int hi[2],
                       const int h[2], uint32_t phase)
{
	int d = hi[0] - lo[0] >= hi[1] - lo[1] ? 0 : 1;
	int ext = hi[d] - lo[d];
	if (ext <= 1)
		return;
	int half = (ext + 1) / 2, mid = lo[d] + half;
	int p[2] = {h[0], h[1]};
	if (h[d] < mid)
		p[d] = h[d] + half < hi[d] ? h[d] + half : hi[d] - 1;
	else
		p[d] = h[d] - half;
	/* the partner's half */
	int olo[2] = {lo[0], lo[1]}, ohi[2] = {hi[0], hi[1]};
	if (h[d] < mid)
		olo[d] = mid;
	else
		ohi[d] = mid;
	uint32_t nb = 0;
	for (int y = olo[1]; y < ohi[1]; y++)
		for (int x = olo[0]; x < ohi[0]; x++)
			w->tmp[nb++] = w->c->coll == IR_GATHER
			                       ? (ir_block){at(w->m, x, y), 0}
			                       : (ir_block){w->c->root,
			                                    at(w->m, x, y)};
	sch_edges_add(&w->E, phase, at(w->m, h[0], h[1]), at(w->m, p[0], p[1]),
	              w->tmp, nb, 0);
	const int *low = h[d] < mid ? h : p, *up = h[d] < mid ? p : h;
	int save = hi[d];
	hi[d] = mid;
	tree_halve(w, lo, hi, low, phase + 1);
	hi[d] = save;
	save = lo[d];
	lo[d] = mid;
	tree_halve(w, lo, hi, up, phase + 1);
	lo[d] = save;
}

/* Build the halving tree from the root, then emit it forwards (scatter:
 * the holder sends the partner's half of the root's blocks) or backwards
 * (gather: the partner returns its half's blocks, in the mirrored
 * phase); within a phase in order of the holders. */
static int tree_generate(const ir_machine *m, const ir_comm *c, bool gather,
                         ir_plan *p)
{
	int rc = 0;
	struct tree_walk w = {.m = m, .c = c};
	ir_plan_init(p, m, c, gather ? "tree_gather" : "tree_scatter");
	w.tmp = malloc((size_t)m->nranks * sizeof *w.tmp);
	if (!w.tmp) {
		rc = CCP_ENOMEM;
		goto out_free;
	}
	int lo[2] = {0, 0}, hi[2] = {m->dims[0], m->dims[1]};
	int h[IR_MAX_CUBE_DIM];
	ir_coords(m, c->root, h);
	tree_halve(&w, lo, hi, h, 0);
	w.E.order = gather ? SCH_ORDER_DST : SCH_ORDER_SRC;
	if (gather)
		sch_edges_reverse(&w.E);
	rc = sch_edges_emit(&w.E, p);
out_free:
	sch_edges_fini(&w.E);
	free(w.tmp);
	return rc;
}

static int tree_scatter_generate(const ir_machine *m, const ir_comm *c,
                                 const struct sch_options *o, ir_plan *p)
{
	(void)o;
	return tree_generate(m, c, false, p);
}

static int tree_gather_generate(const ir_machine *m, const ir_comm *c,
                                const struct sch_options *o, ir_plan *p)
{
	(void)o;
	return tree_generate(m, c, true, p);
}

/* ---- direct transpose (001 section 3.6, Figure 3.27) ---------------- */

/* Every off-diagonal rank sends its block straight to its transposed
 * place, all in one phase.  Under X-Y routing the messages crowd onto the
 * links near the diagonal; the plan declares link contention and the
 * verifier measures it (001 Figure 3.27).  With contention forbidden the
 * phase is split into link-disjoint sub-phases. */
static int direct_generate(const ir_machine *m, const ir_comm *c,
                           const struct sch_options *o, ir_plan *p)
{
	int rc;
	int nx = m->dims[0];
	ir_plan_init(p, m, c, "transpose_direct");
	p->flags |= IR_PLAN_LINK_CONTENTION;
	if ((rc = ir_plan_phase(p)) != 0)
		return rc;
	for (int y = 0; y < nx; y++)
		for (int x = 0; x < nx; x++) {
			if (x == y)
				continue;
			ir_block b = {at(m, x, y), 0};
			if ((rc = ir_plan_add(p, at(m, x, y), at(m, y, x), &b, 1,
			                      0)) != 0)
				return rc;
		}
	ir_plan_trim(p);
	return o->forbid_contention ? sch_split_contention(p) : 0;
}

const struct sch_generator sch_tree_scatter = {
        .name = "tree_scatter",
        .summary = "scatter: binary tree by recursive halving of the mesh, "
                   "one-port (000 eq. 9, lg r + lg c phases)",
        .doc = "mesh-collectives.md",
        .domain = {.colls = SCH_C(IR_SCATTER),
                   .topos = SCH_T(IR_MESH),
                   .takes = SCH_TAKES_ORDER | SCH_TAKES_ND,
                   .where = "1D or 2D, which it halves (000 section 4)",
                   .fits = tree_fits},
        .generate = tree_scatter_generate,
};

const struct sch_generator sch_tree_gather = {
        .name = "tree_gather",
        .summary = "gather: the binary-tree scatter run backwards, "
                   "one-port (000 section 5, lg r + lg c phases)",
        .doc = "mesh-collectives.md",
        .domain = {.colls = SCH_C(IR_GATHER),
                   .topos = SCH_T(IR_MESH),
                   .takes = SCH_TAKES_ORDER | SCH_TAKES_ND,
                   .where = "1D or 2D, which it halves (000 section 4)",
                   .fits = tree_fits},
        .generate = tree_gather_generate,
};

const struct sch_generator sch_transpose_direct = {
        .name = "transpose_direct",
        .summary = "transpose: every block straight to its place in one "
                   "phase, link contention allowed (001 Figure 3.27)",
        .doc = "mesh-collectives.md",
        .domain = {.colls = SCH_C(IR_TRANSPOSE),
                   .topos = SCH_T(IR_MESH) | SCH_T(IR_TORUS),
                   .takes = SCH_TAKES_WRAP | SCH_TAKES_ORDER | SCH_TAKES_ND,
                   .where = "2D and square",
                   .fits = square_fits},
        .generate = direct_generate,
};
