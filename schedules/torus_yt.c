/*
 * torus_yt.c - EDN broadcast on all-port 2D and 3D tori (001 chapter 4).
 *
 * A 2^d x 2^d torus is covered by {YT} phases (001 Figure 4.5): in the Y
 * step every holder sends to three level-(t-1) EDNs, in the T step the
 * four resulting holders send to twelve more, so one holder becomes a 4x4
 * grid of spacing delta; delta shrinks by 4 per phase, and when d is odd
 * a final F step (001 Figure 4.9) turns the spacing-2 grid into the whole
 * plane (001 Theorem 1, Corollaries 1 and 2: d steps).  A 2^d x 2^d x z
 * torus first gives one node of every XY plane the message by splitting
 * the Z ring into at most 7 zones (pattern (a) of 001 Figure 4.12, with
 * wraparound) and then each zone into at most 6 sub-zones (pattern (b),
 * without wraparound in Z), and finally broadcasts in all planes at once
 * (001 Theorem 3).  The torus is symmetric, so every pattern is given as
 * offsets from the holder and works from any root.
 *
 * The offsets are the ones that verify under the machine's routing
 * (dimension order, minimal direction, ties at half the ring going +),
 * found by exhaustive search on the 4x4 torus; docs/torus-yt.md has the
 * pictures and the disagreement between the thesis' printed procedure
 * and its proof of Theorem 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* Roles a holder can have in the T step of a {YT} phase (001 Fig. 4.7). */
enum edn_role { ROLE_S, ROLE_A, ROLE_B, ROLE_C, NROLES };

struct off2 {
	int dx, dy;
};

/* Y step, in units of delta: the printed procedure of 001 Figure 4.7
 * ((X-d, Y-d), (X, Y+2d), (X+2d, Y)).  The offsets of the proof of 001
 * Theorem 2 ((X-d, Y-d), (X, Y+d), (X+d, Y)) admit no contention-free T
 * step at all on the 4x4 torus.  Entry k gives the node of role k+1. */
static const struct off2 y_pattern[3] = {{-1, -1}, {0, 2}, {2, 0}};

/* T step, in units of delta, per role (001 Figures 4.5 and 4.8): with the
 * Y step above, the sixteen nodes form a 4x4 grid of spacing delta, and
 * no directed link carries two messages even when 4*delta is the whole
 * ring (an offset of 2 is then the tie, routed +, as it is otherwise). */
static const struct off2 t_pattern[NROLES][3] = {
        [ROLE_S] = {{-1, 0}, {0, 1}, {1, 0}},
        [ROLE_A] = {{-1, -1}, {0, 2}, {2, 0}},
        [ROLE_B] = {{-1, 0}, {0, 1}, {1, 0}},
        [ROLE_C] = {{-1, 1}, {0, -1}, {0, 1}},
};

/* F step, delta = 1, from every node of a spacing-2 grid (001 Cor. 3). */
static const struct off2 f_pattern[3] = {{-1, 1}, {0, 1}, {1, 0}};

/* Pattern (a) of 001 Figure 4.12 for seven zones: zone j (1..6, counted
 * + from the root's zone) is reached through this column, (0, 0) being
 * the root's own column.  The text prints (x, y-1, z+1) for zone 1,
 * which shares the root's -Y link with (x, y-1, z+4); (x, y+1, z+1) is
 * the one that verifies. */
static const struct off2 zone7_column[7] = {{0, 0},  {0, 1}, {1, 0}, {0, 0},
                                            {0, -1}, {0, 0}, {-1, 0}};

/* Everything the generator works with. */
struct edn {
	const ir_machine *m;
	ir_plan *p;
	const ir_block *blocks; /* every segment of the message */
	uint32_t nseg;
	int ext[3];      /* X, Y, Z */
	int32_t *holder; /* ranks holding the message */
	uint8_t *role;   /* their role for the coming T step */
	uint32_t nholders;
};

/* One contiguous range of XY planes, planes (lo + i) mod Z, i < size,
 * with the rank that holds the message for it. */
struct zone {
	int lo, size;
	int32_t holder;
};

static int wrap(int v, int e)
{
	v %= e;
	return v < 0 ? v + e : v;
}

/* The rank at offset (dx, dy, dz) from rank r, wrapping around. */
static int32_t shifted(const struct edn *s, int32_t r, int dx, int dy, int dz)
{
	int c[IR_MAX_CUBE_DIM];
	ir_coords(s->m, r, c);
	c[0] = wrap(c[0] + dx, s->ext[0]);
	c[1] = wrap(c[1] + dy, s->ext[1]);
	c[2] = wrap(c[2] + dz, s->ext[2]);
	return ir_rank_of(s->m, c);
}

/* The XY plane of rank r: its z. */
static int plane_of(const struct edn *s, int32_t r)
{
	int c[IR_MAX_CUBE_DIM];
	ir_coords(s->m, r, c);
	return c[2];
}

/* Add one transfer carrying the whole message. */
static int send(struct edn *s, int32_t src, int32_t dst)
{
	return ir_plan_add(s->p, src, dst, s->blocks, s->nseg, 0);
}

/* The Y step of a {YT} phase with spacing delta: every holder sends to
 * three nodes, which take roles A, B, C (001 Figure 4.7). */
static int step_y(struct edn *s, int delta)
{
	int rc = ir_plan_phase(s->p);
	uint32_t n = s->nholders;
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		s->role[i] = ROLE_S;
		for (int k = 0; k < 3 && rc == 0; k++) {
			int32_t d = shifted(s, s->holder[i],
			                    delta * y_pattern[k].dx,
			                    delta * y_pattern[k].dy, 0);
			rc = send(s, s->holder[i], d);
			s->holder[s->nholders] = d;
			s->role[s->nholders++] = (uint8_t)(ROLE_A + k);
		}
	}
	return rc;
}

/* A step where every holder sends to three nodes given by its role's
 * pattern (T) or by one pattern for all (F, pat != NULL). */
static int step_fan(struct edn *s, int delta, const struct off2 *pat)
{
	int rc = ir_plan_phase(s->p);
	uint32_t n = s->nholders;
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		const struct off2 *o = pat ? pat : t_pattern[s->role[i]];
		for (int k = 0; k < 3 && rc == 0; k++) {
			int32_t d = shifted(s, s->holder[i], delta * o[k].dx,
			                    delta * o[k].dy, 0);
			rc = send(s, s->holder[i], d);
			s->holder[s->nholders] = d;
			s->role[s->nholders++] = ROLE_S;
		}
	}
	return rc;
}

/* Broadcast in every XY plane at once from the current holders, one per
 * plane: {YT} with delta = X/4, X/16, ... then F when log2 X is odd
 * (001 Theorem 1, Corollaries 1-2). */
static int plane_bcast(struct edn *s)
{
	int rc = 0, delta = s->ext[0] / 4;
	for (; delta >= 1 && rc == 0; delta /= 4)
		if ((rc = step_y(s, delta)) == 0)
			rc = step_fan(s, delta, NULL);
	/* when log2 X is odd the last T left a spacing-2 grid */
	uint32_t all =
	        (uint32_t)s->ext[0] * (uint32_t)s->ext[1] * (uint32_t)s->ext[2];
	if (rc == 0 && s->nholders < all)
		rc = step_fan(s, 1, f_pattern);
	return rc;
}

/* Cut a zone of size planes into n contiguous parts as evenly as
 * possible, the larger parts last (so that in pattern (a) the zones the
 * root reaches going + stay within half the ring); start[j] is the
 * offset of part j, start[n] = size. */
static void cut(int size, int n, int *start)
{
	int q = size / n, r = size % n;
	start[0] = 0;
	for (int j = 0; j < n; j++)
		start[j + 1] = start[j] + q + (j >= n - r);
}

/* Route direction of a Z offset o (0 < o < Z) under the tie rule. */
static int z_dir(int o, int ze)
{
	return o <= ze - o ? 1 : -1;
}

/* One zone-splitting step for one zone: the holder sends to one plane of
 * every other part, first hop in X or Y to a column of its own so that
 * no two messages share a link, then along Z (001 Figure 4.12).  first
 * marks pattern (a), where the zone is the whole ring and routes may
 * wrap; otherwise pattern (b), where each message stays in the zone. */
static int split_zone(struct edn *s, const struct zone *zn, bool first,
                      struct zone *out, uint32_t *nout)
{
	int ze = s->ext[2], limit = first ? 7 : 6;
	int n = zn->size < limit ? zn->size : limit;
	int start[8], hz = plane_of(s, zn->holder);
	int hp = wrap(hz - zn->lo, ze); /* holder's place in the zone */
	int tgt[7], dir[7], mine = 0;
	struct off2 col[7];
	cut(zn->size, n, start);
	for (int j = 0; j < n; j++) {
		if (hp >= start[j] && hp < start[j + 1])
			mine = j;
	}
	/* the target plane of each other part: its end nearest the holder
	 * along the route the machine will take */
	for (int j = 0; j < n; j++) {
		if (j == mine)
			continue;
		int o = start[j] - hp; /* offset of the part's first plane */
		if (first) {
			tgt[j] = z_dir(o, ze) > 0 ? o : start[j + 1] - 1 - hp;
			dir[j] = z_dir(tgt[j], ze);
		} else if (j > mine) {
			tgt[j] = o;
			dir[j] = 1;
		} else {
			tgt[j] = start[j + 1] - 1 - hp;
			dir[j] = -1;
		}
	}
	/* columns: pattern (a) of the thesis for seven zones when its
	 * straight messages go the way it draws them, else the farthest
	 * message each way goes straight and the rest take X+, X-, Y+, Y- */
	bool table = first && n == 7 && mine == 0 && dir[3] > 0 && dir[5] < 0;
	if (table) {
		for (int j = 1; j < 7; j++)
			col[j] = zone7_column[j];
	} else {
		static const struct off2 side[4] = {
		        {1, 0}, {-1, 0}, {0, 1}, {0, -1}};
		int up = -1, down = -1, nside = 0;
		for (int j = 0; j < n; j++) {
			if (j == mine)
				continue;
			int dist = dir[j] > 0 ? wrap(tgt[j], ze)
			                      : wrap(-tgt[j], ze);
			int *best = dir[j] > 0 ? &up : &down;
			int bd = *best < 0    ? -1
			         : dir[j] > 0 ? wrap(tgt[*best], ze)
			                      : wrap(-tgt[*best], ze);
			if (dist > bd)
				*best = j;
		}
		for (int j = 0; j < n; j++) {
			if (j == mine)
				continue;
			if (j == up || j == down)
				col[j] = (struct off2){0, 0};
			else if (nside < 4)
				col[j] = side[nside++];
			else /* more than six messages: cannot happen */
				return CCP_EINTERNAL;
		}
	}
	for (int j = 0; j < n; j++) {
		struct zone *z = &out[(*nout)++];
		z->lo = wrap(zn->lo + start[j], ze);
		z->size = start[j + 1] - start[j];
		if (j == mine) {
			z->holder = zn->holder;
			continue;
		}
		z->holder =
		        shifted(s, zn->holder, col[j].dx, col[j].dy, tgt[j]);
		int rc = send(s, zn->holder, z->holder);
		if (rc)
			return rc;
	}
	return 0;
}

/* Give one node of every XY plane the message: pattern (a) once, then
 * pattern (b) until every zone is a single plane (001 Theorem 3).  On
 * return the holders are those nodes, one per plane. */
static int z_distribute(struct edn *s, int32_t root)
{
	int rc = 0, ze = s->ext[2];
	struct zone *cur = malloc((size_t)ze * sizeof *cur),
	            *next = malloc((size_t)ze * sizeof *next);
	uint32_t ncur = 1;
	if (!cur || !next) {
		rc = CCP_ENOMEM;
		goto out_free;
	}
	cur[0] = (struct zone){plane_of(s, root), ze, root};
	for (bool first = true; rc == 0; first = false) {
		bool more = false;
		for (uint32_t i = 0; i < ncur; i++)
			more |= cur[i].size > 1;
		if (!more)
			break;
		if ((rc = ir_plan_phase(s->p)) != 0)
			break;
		uint32_t nnext = 0;
		for (uint32_t i = 0; i < ncur && rc == 0; i++)
			rc = split_zone(s, &cur[i], first, next, &nnext);
		struct zone *t = cur;
		cur = next;
		next = t;
		ncur = nnext;
	}
	s->nholders = 0;
	for (uint32_t i = 0; i < ncur && rc == 0; i++) {
		s->holder[s->nholders] = cur[i].holder;
		s->role[s->nholders++] = ROLE_S;
	}
out_free:
	free(cur);
	free(next);
	return rc;
}

/* Whether v is a power of two of at least 4. */
static bool is_pow2_ge4(int v)
{
	return v >= 4 && (v & (v - 1)) == 0;
}

/* Applies to a broadcast on an all-port 2^d x 2^d torus with d >= 2,
 * possibly with a third dimension of any extent (001 Corollary 2,
 * Theorem 3); d = 1 cannot be done in d steps (a 2x2 node has only two
 * links, and three ranks to reach). */
/* The rest of where it applies: a 2^d x 2^d torus, d >= 2, with or
 * without a third extent (the domain's words). */
static int edn_fits(const struct sch_generator *g, const ir_machine *m,
                    const ir_comm *c, char *why, size_t len)
{
	(void)g, (void)c, (void)why, (void)len;
	return (m->ndims == 2 || m->ndims == 3) && m->dims[0] == m->dims[1] &&
	                       is_pow2_ge4(m->dims[0])
	               ? 0
	               : CCP_ENOTAPPLY;
}
/* Build the plan: zones along Z (if any), then the 2D broadcast in every
 * plane; every segment travels together. */
static int edn_generate(const ir_machine *m, const ir_comm *c,
                        const struct sch_options *o, ir_plan *p)
{
	(void)o;
	int rc = 0;
	uint32_t nseg = c->segments > 0 ? (uint32_t)c->segments : 1;
	ir_block *blocks = NULL;
	struct edn s = {.m = m, .p = p, .nseg = nseg};
	ir_plan_init(p, m, c, "edn_torus");
	char why[160];
	if ((rc = sch_applies(&sch_edn_torus, m, c, why, sizeof why)) != 0)
		return rc;
	for (int k = 0; k < 3; k++)
		s.ext[k] = k < m->ndims ? m->dims[k] : 1;
	blocks = malloc(nseg * sizeof *blocks);
	s.holder = malloc((size_t)m->nranks * sizeof *s.holder);
	s.role = malloc((size_t)m->nranks * sizeof *s.role);
	if (!blocks || !s.holder || !s.role) {
		rc = CCP_ENOMEM;
		goto out_free;
	}
	for (uint32_t k = 0; k < nseg; k++)
		blocks[k] = (ir_block){c->root, (int32_t)k};
	s.blocks = blocks;
	if ((rc = z_distribute(&s, c->root)) == 0)
		rc = plane_bcast(&s);
out_free:
	free(blocks);
	free(s.holder);
	free(s.role);
	return rc;
}

const struct sch_generator sch_edn_torus = {
        .name = "edn_torus",
        .summary = "broadcast: EDN {YT}/{YTF} patterns on an all-port "
                   "2^d x 2^d (x z) torus (001 ch. 4, d steps in 2D)",
        .doc = "torus-yt.md",
        .domain = {.colls = SCH_C(IR_BCAST),
                   .topos = SCH_T(IR_TORUS),
                   .routings = IR_RT(DIM_ORDER),
                   .ports = SCH_PORTS_ALL,
                   .where = "2^d x 2^d (or 2^d x 2^d x z), d >= 2",
                   .fits = edn_fits},
        .generate = edn_generate,
};
