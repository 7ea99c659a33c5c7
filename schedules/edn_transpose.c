/*
 * edn_transpose.c - matrix transposition on a 2^k x 2^k all-port mesh
 * under X-Y routing in k phases, after the EDN transpose of 001 section
 * 3.6 (Figure 3.28): contention-free for even k; for odd k one phase has
 * the contention the thesis describes, unless contention is forbidden.
 *
 * The figures of the thesis are missing; the pattern is derived from its
 * text (docs/edn-transpose.md) and every plan is proved by ir_verify.
 *
 * Read x and y in base 4: digit i of both places a rank in a 4x4 grid of
 * spacing 4^i, a "basic block" of size (4x4)^i (001 §3.6).  Transposing
 * swaps the two digits at every level.  One level is a fold: the partners
 * (a,b) and (b,a) of the 4x4 grid send their data in a straight line to
 * the same diagonal node, (a,a) or (b,b), a corner of their square (table
 * edn_corner), and in the mirror step that node sends each block out
 * along the line its partner came in.  The diagonal nodes are the EDNs of
 * the transpose; the gather and the scatter of each level are one phase
 * each and link-disjoint, and a diagonal node serves at most its four
 * neighbouring lines, so all-port suffices.
 *
 *   phase i, i < k/2      gather of level i: the ranks whose lower digits
 *                         are diagonal (x = y mod 4^i) send all they hold
 *                         to their corner at level i; these are the
 *                         "corresponding EDNs on the diagonals in
 *                         separate blocks" of 001 §3.6 for i >= 1
 *   phase k-1-i           scatter of level i, the gather reversed
 *
 * Odd k adds a top level of 2x2 halves: in the middle phase each gathered
 * rank (h+t, t) of an off-diagonal half swaps with (t, h+t), h = n/2,
 * through the diagonal node (t,t) or (h+t,h+t).  The diagonal halves
 * transpose themselves as meshes of even exponent.  As in the thesis they
 * run without pause, so their last gather-level scatter shares the middle
 * phase with the swap ("some messages in those blocks along the major
 * diagonal may begin transmission at the same time", 001 §3.6): 3 of the
 * 4 corners of the fold send along the line a swap message uses, and
 * 3n/4 swap messages each share a link with one scatter message.  With
 * contention forbidden the diagonal halves wait one phase instead; the
 * plan is then contention-free in the same k phases.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sched.h"

/* The fold of one 4x4 level: the diagonal index t of the node where the
 * block at grid position (a,b) meets its partner (b,a); t is a or b, and
 * edn_corner[a][a] = a.  Found once, while developing, by exhaustive
 * search over the maps of the 16 positions into 4 nodes, one per row and
 * column, whose gather and scatter phases are both link-disjoint under
 * X-Y routing: only the diagonal admits any (256 maps; the dominating
 * patterns A and B of 001 §3.3 admit none), and two of them are
 * symmetric, as a pair must be to meet.  The verifier proves every plan
 * built from it.  Drawn in docs/edn-transpose.md. */
static const uint8_t edn_corner[4][4] = {
        {0, 1, 2, 0},
        {1, 1, 1, 3},
        {2, 1, 2, 2},
        {0, 3, 2, 3},
};

/* Shape of one transpose. */
struct edn_shape {
	int k;      /* the mesh is 2^k x 2^k */
	int n;      /* 2^k */
	int levels; /* base-4 levels, k / 2 */
	bool odd;   /* k odd: a top level of 2x2 halves */
	bool pause; /* odd k: diagonal halves idle in the middle phase */
};

/* One block moving in one phase. */
struct edn_move {
	int32_t src, dst, origin;
};

/* Digit i (base 4) of v, and v with it replaced by d. */
static int edn_digit(int v, int i)
{
	return (v >> (2 * i)) & 3;
}

static int edn_set_digit(int v, int i, int d)
{
	return (v & ~(3 << (2 * i))) | (d << (2 * i));
}

/* Is m a 2^k x 2^k mesh (k >= 1)?  Sets *k. */
static bool edn_is_pow2_square(const ir_machine *m, int *k)
{
	int n = m->dims[0];
	if (m->topo != IR_MESH || m->ndims != 2 || m->dims[1] != n || n < 2 ||
	    (n & (n - 1)) != 0)
		return false;
	for (*k = 0; (1 << *k) < n; (*k)++)
		;
	return true;
}

/* The rest of where it applies: a 2^k x 2^k mesh (the domain's words;
 * all-port, because a diagonal node sends to and receives from up to
 * its four neighbouring lines in one phase). */
static int edn_transpose_fits(const struct sch_generator *g,
                              const ir_machine *m, const ir_comm *c, char *why,
                              size_t len)
{
	int k;
	(void)g, (void)c, (void)why, (void)len;
	return edn_is_pow2_square(m, &k) ? 0 : CCP_ENOTAPPLY;
}
/* Where the block of origin (x0,y0), now at (*x,*y), goes in phase ph:
 * moves (*x,*y) and returns true if it moves. */
static bool edn_step(const struct edn_shape *s, int x0, int y0, int ph, int *x,
                     int *y)
{
	int L = s->levels, h = s->n / 2;
	bool cross = s->odd && (((x0 ^ y0) >> (s->k - 1)) & 1);
	/* a diagonal half of odd k running its own even-k schedule */
	bool eager = s->odd && !cross && !s->pause;
	int nx = *x, ny = *y;
	if (ph < L) { /* gather of level ph */
		int t = edn_corner[edn_digit(x0, ph)][edn_digit(y0, ph)];
		nx = edn_set_digit(nx, ph, t);
		ny = edn_set_digit(ny, ph, t);
	} else if (s->odd && ph == L && !eager) { /* the swap of halves */
		if (cross) {
			nx ^= h;
			ny ^= h;
		}
	} else { /* scatter of a level, the gather reversed */
		int i = eager ? 2 * L - 1 - ph : s->k - 1 - ph;
		if (i < 0)
			return false; /* eager halves finished a phase early */
		nx = edn_set_digit(nx, i, edn_digit(y0, i));
		ny = edn_set_digit(ny, i, edn_digit(x0, i));
	}
	if (nx == *x && ny == *y)
		return false;
	*x = nx;
	*y = ny;
	return true;
}

static int edn_cmp_move(const void *a, const void *b)
{
	const struct edn_move *p = a, *q = b;
	if (p->src != q->src)
		return p->src < q->src ? -1 : 1;
	if (p->dst != q->dst)
		return p->dst < q->dst ? -1 : 1;
	return p->origin < q->origin ? -1 : p->origin > q->origin;
}

/* Replay every block phase by phase; in each phase the blocks that go
 * from one rank to the same next rank travel as one transfer. */
static int edn_transpose_generate(const ir_machine *m, const ir_comm *c,
                                  const struct sch_options *o, ir_plan *p)
{
	int rc = 0;
	struct edn_shape s;
	struct sch_edges E = {0};
	int32_t *at = NULL;
	struct edn_move *mv = NULL;
	ir_block *blocks = NULL;

	ir_plan_init(p, m, c, "edn_transpose");
	if (!edn_is_pow2_square(m, &s.k))
		return CCP_EINVAL;
	s.n = 1 << s.k;
	s.levels = s.k / 2;
	s.odd = s.k % 2 != 0;
	s.pause = o && o->forbid_contention;
	/* only a diagonal half with work in the middle phase contends */
	if (s.odd && s.levels > 0 && !s.pause)
		p->flags |= IR_PLAN_LINK_CONTENTION;

	int32_t nr = m->nranks;
	at = malloc((size_t)nr * sizeof *at);
	mv = malloc((size_t)nr * sizeof *mv);
	blocks = malloc((size_t)nr * sizeof *blocks);
	if (!at || !mv || !blocks) {
		rc = CCP_ENOMEM;
		goto out_free;
	}
	for (int32_t r = 0; r < nr; r++)
		at[r] = r;
	for (int ph = 0; ph < s.k; ph++) {
		size_t nm = 0;
		for (int32_t r = 0; r < nr; r++) {
			int o[IR_MAX_CUBE_DIM], h[IR_MAX_CUBE_DIM];
			ir_coords(m, r, o);
			ir_coords(m, at[r], h);
			if (!edn_step(&s, o[0], o[1], ph, &h[0], &h[1]))
				continue;
			int32_t to = ir_rank_of(m, h);
			mv[nm++] = (struct edn_move){at[r], to, r};
			at[r] = to;
		}
		qsort(mv, nm, sizeof *mv, edn_cmp_move);
		for (size_t a = 0, b; a < nm; a = b) {
			uint32_t nb = 0;
			for (b = a; b < nm && mv[b].src == mv[a].src &&
			            mv[b].dst == mv[a].dst;
			     b++)
				blocks[nb++] = (ir_block){mv[b].origin, 0};
			sch_edges_add(&E, (uint32_t)ph, mv[a].src, mv[a].dst,
			              blocks, nb, 0);
		}
	}
	rc = sch_edges_emit(&E, p);
out_free:
	sch_edges_fini(&E);
	free(at);
	free(mv);
	free(blocks);
	return rc;
}

const struct sch_generator sch_edn_transpose = {
        .name = "edn_transpose",
        .summary = "transpose: 4x4 folds through diagonal EDNs on a 2^k x "
                   "2^k all-port mesh, k phases, contention-free for even "
                   "k (001 section 3.6)",
        .doc = "edn-transpose.md",
        .domain = {.colls = SCH_C(IR_TRANSPOSE),
                   .topos = SCH_T(IR_MESH),
                   .routings = IR_RT(DIM_ORDER),
                   .ports = SCH_PORTS_ALL,
                   .where = "2^k x 2^k with k >= 1, whose 4x4 blocks it "
                            "folds (001 section 3.6)",
                   .fits = edn_transpose_fits},
        .generate = edn_transpose_generate,
};
