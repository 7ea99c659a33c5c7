/*
 * alltoall.c - complete exchange (IR_ALLTOALL) on meshes with wormhole
 * routing, the five algorithms of 003 (Thakur and Choudhary):
 *
 *   pex      3.1  pairwise exchange, rank j with j XOR i   p-1 steps
 *   pex_gen  3.2  pairwise exchange padded to a power of two q-1 steps
 *   gen      3.3  j sends to (j+i) mod p                   p-1 steps
 *   rex      4.1  recursive exchange by mirror halving     lg p steps
 *   ipex     4.2  row exchange, then column forwarding     p-1 steps
 *
 * and Bruck's alltoall (the `bruck` generator's alltoall, allreduce.c
 * dispatches here): ceil(lg p) steps of about p/2 blocks, any p.
 *
 * One step is one phase.  The paper runs these with a few messages
 * sharing a link (section 3: "allowing a small amount of link
 * contention"), so every plan sets IR_PLAN_LINK_CONTENTION and the
 * verifier measures the load of every step.  Under `contention: forbid`
 * each plan goes through sch_split_contention, which cuts every step
 * into link-disjoint sub-phases.
 *
 * Numbering: rank = x + c*y on an r x c mesh, c = dims[0] columns and
 * r = dims[1] rows (ir.h).  Block (s, d) is the bytes s sends to d.
 * docs/alltoall.md gives the measured contention against the paper's
 * f(i) and the split phase counts against Scott's a^3/4.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* ---- helpers -------------------------------------------------------- */

static bool is_pow2(int64_t v)
{
	return v > 0 && (v & (v - 1)) == 0;
}

/* Smallest power of two >= v (003 section 3.2 says "greater than"; with
 * >= a power-of-two p gives PEX's own p-1 steps). */
static int64_t pow2_at_least(int64_t v)
{
	int64_t q = 1;
	while (q < v)
		q *= 2;
	return q;
}

/* A mesh's or torus's extents as explain prints them, x first: "6x5". */
static void shape(const ir_machine *m, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int k = 0; k < m->ndims && k < IR_MAX_DIMS && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%d", k ? "x" : "",
		                      m->dims[k]);
}

/* Start a plan of one of these algorithms: contention allowed (003
 * section 3). */
static void plan_start(ir_plan *p, const ir_machine *m, const ir_comm *c,
                       const char *name)
{
	ir_plan_init(p, m, c, name);
	p->flags = IR_PLAN_LINK_CONTENTION;
}

/* Finish a plan: node contention declared where a node of several ranks
 * has more network transfers in a step than its network ports; the
 * contention-free variant when the user forbids contention; on any
 * failure the plan is released. */
static int plan_finish(ir_plan *p, const struct sch_options *o, int rc)
{
	if (rc == 0 && (rc = sch_node_ports_exceeded(p)) == 1) {
		p->flags |= IR_PLAN_NODE_CONTENTION;
		rc = 0;
	}
	if (rc == 0 && o && o->forbid_contention)
		rc = sch_split_contention(p);
	if (rc)
		ir_plan_fini(p);
	return rc;
}

/* Add transfer s -> d with the single block (s, d), opening the step's
 * phase first if it has none yet (steps with no pair leave no phase). */
static int direct(ir_plan *p, bool *opened, int32_t s, int32_t d)
{
	int rc;
	if (!*opened) {
		if ((rc = ir_plan_phase(p)) != 0)
			return rc;
		*opened = true;
	}
	ir_block b = {s, d};
	return ir_plan_add(p, s, d, &b, 1, 0);
}

/* ---- PEX, 003 section 3.1 ------------------------------------------- */

/* PEX needs the XOR pairing to cover every pair: a power-of-two p.  It
 * depends only on rank numbers, so it applies to any topology. */
static int pex_fits(const struct sch_generator *g, const ir_machine *m,
                    const ir_comm *c, char *why, size_t len)
{
	(void)g, (void)c;
	if (!is_pow2(m->nranks)) {
		char sh[96];
		if (m->topo == IR_MESH || m->topo == IR_TORUS) {
			shape(m, sh, sizeof sh);
			snprintf(why, len,
			         "pex needs a power-of-two number of ranks; "
			         "this "
			         "%s has %s = %d (pex_gen and gen work for any "
			         "number)",
			         ir_topo_name(m->topo), sh, (int)m->nranks);
		} else {
			sch_describe(m, sh, sizeof sh);
			snprintf(why, len,
			         "pex needs a power-of-two number of ranks; "
			         "this "
			         "%s has %d (pex_gen and gen work for any "
			         "number)",
			         sh, (int)m->nranks);
		}
		return CCP_ENOTAPPLY;
	}
	return 0;
}
/* Steps i = 1..q-1 of pairwise exchange: rank j exchanges with j XOR i,
 * both directions as two transfers; partners >= p are skipped (PEX-GEN,
 * 003 section 3.2), and a step with no pair leaves no phase. */
static int xor_steps(ir_plan *p, int32_t n, int64_t q)
{
	int rc = 0;
	for (int64_t i = 1; i < q && rc == 0; i++) {
		bool opened = false;
		for (int32_t j = 0; j < n && rc == 0; j++) {
			int64_t k = j ^ i;
			if (k < n)
				rc = direct(p, &opened, j, (int32_t)k);
		}
	}
	return rc;
}

/* 003 section 3.1: p-1 steps, step i pairs j with j XOR i. */
static int pex_generate(const ir_machine *m, const ir_comm *c,
                        const struct sch_options *o, ir_plan *p)
{
	char why[256];
	int rc = sch_applies(&sch_pex, m, c, why, sizeof why);
	plan_start(p, m, c, "pex");
	if (rc == 0)
		rc = xor_steps(p, m->nranks, m->nranks);
	return plan_finish(p, o, rc);
}

const struct sch_generator sch_pex = {
        .name = "pex",
        .summary = "alltoall: pairwise exchange j <-> j XOR i, p-1 steps, "
                   "power-of-two ranks (003 3.1)",
        .doc = "alltoall.md",
        .domain = {.colls = SCH_C(IR_ALLTOALL),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL,
                   .where = "with a power-of-two number of ranks",
                   .fits = pex_fits},
        .generate = pex_generate,
};

/* ---- PEX-GEN, 003 section 3.2 --------------------------------------- */

/* 003 section 3.2: q-1 steps of PEX for q the smallest power of two >= p,
 * skipping partners >= p.  No step is ever empty (docs/alltoall.md): for
 * i >= q/2 rank q/2 pairs with i - q/2, for i < q/2 rank 0 pairs with i. */
static int pex_gen_generate(const ir_machine *m, const ir_comm *c,
                            const struct sch_options *o, ir_plan *p)
{
	char why[256];
	int rc = sch_applies(&sch_pex_gen, m, c, why, sizeof why);
	plan_start(p, m, c, "pex_gen");
	if (rc == 0)
		rc = xor_steps(p, m->nranks, pow2_at_least(m->nranks));
	return plan_finish(p, o, rc);
}

const struct sch_generator sch_pex_gen = {
        .name = "pex_gen",
        .summary = "alltoall: pairwise exchange padded to the next power of "
                   "two q, q-1 steps, any ranks (003 3.2)",
        .doc = "alltoall.md",
        .domain = {.colls = SCH_C(IR_ALLTOALL),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = pex_gen_generate,
};

/* ---- GEN, 003 section 3.3 ------------------------------------------- */

/* 003 section 3.3: p-1 steps, step i: j sends to (j + i) mod p (and
 * receives from (j - i) mod p). */
static int gen_generate(const ir_machine *m, const ir_comm *c,
                        const struct sch_options *o, ir_plan *p)
{
	char why[256];
	int rc = sch_applies(&sch_gen, m, c, why, sizeof why);
	int32_t n = m->nranks;
	plan_start(p, m, c, "gen");
	for (int32_t i = 1; i < n && rc == 0; i++) {
		bool opened = false;
		for (int32_t j = 0; j < n && rc == 0; j++)
			rc = direct(p, &opened, j,
			            (int32_t)(((int64_t)j + i) % n));
	}
	return plan_finish(p, o, rc);
}

const struct sch_generator sch_gen = {
        .name = "gen",
        .summary = "alltoall: step i sends j -> (j+i) mod p, p-1 steps, any "
                   "ranks (003 3.3)",
        .doc = "alltoall.md",
        .domain = {.colls = SCH_C(IR_ALLTOALL),
                   .topos = SCH_TOPOS_ANY,
                   .takes = SCH_TAKES_ALL},
        .generate = gen_generate,
};

/* ---- REX, 003 section 4.1 ------------------------------------------- */

/* The coordinate space REX halves, x fastest: rank = sum c[k]*stride[k]. */
struct grid {
	int nd;                              /* dimensions */
	int32_t ext[IR_MAX_CUBE_DIM];        /* extent of each */
	int64_t stride[IR_MAX_CUBE_DIM + 1]; /* stride[nd] = ranks */
};

/* The halving space of m: mesh/torus dimensions, hypercube bits, the
 * ports of a switch in a line; false for HPAM (two meshes), fat trees,
 * graphs and dragonflies (REX's halving follows a grid's links, which
 * they do not have). */
static bool grid_of(const ir_machine *m, struct grid *g)
{
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		g->nd = m->ndims;
		for (int k = 0; k < g->nd; k++)
			g->ext[k] = m->dims[k];
		break;
	case IR_HYPERCUBE:
		g->nd = m->ndims;
		for (int k = 0; k < g->nd; k++)
			g->ext[k] = 2;
		break;
	case IR_SWITCH:
		g->nd = 1;
		g->ext[0] = m->nranks;
		break;
	case IR_HPAM:
	case IR_FAT_TREE:
	case IR_GRAPH:
	case IR_DRAGONFLY:
		return false;
	}
	g->stride[0] = 1;
	for (int k = 0; k < g->nd; k++)
		g->stride[k + 1] = g->stride[k] * g->ext[k];
	return true;
}

/* REX halves every dimension down to one rank: power-of-two extents on a
 * mesh, torus, hypercube or switch. */
static int rex_fits(const struct sch_generator *g, const ir_machine *m,
                    const ir_comm *c, char *why, size_t len)
{
	(void)g, (void)c;
	struct grid g2;
	char sh[96];
	sch_describe(m, sh, sizeof sh);
	if (!grid_of(m, &g2))
		return CCP_ENOTAPPLY; /* the domain has no HPAM */
	if (m->topo == IR_SWITCH && !is_pow2(m->nranks)) {
		snprintf(why, len,
		         "rex needs a power-of-two number of ranks on a "
		         "switch; this %s has %d",
		         sh, (int)m->nranks);
		return CCP_ENOTAPPLY;
	}
	for (int k = 0; k < g2.nd; k++)
		if (!is_pow2(g2.ext[k])) { /* a mesh or torus: cubes have 2s */
			shape(m, sh, sizeof sh);
			snprintf(why, len,
			         "rex needs a %s with power-of-two sides; this "
			         "is %s and %d (dims[%d]) is not a power of "
			         "two (pex_gen and gen work on any mesh)",
			         ir_topo_name(m->topo), sh, (int)g2.ext[k], k);
			return CCP_ENOTAPPLY;
		}
	return 0;
}
/* One REX step, 003 section 4.1: halving dimension k for the t-th time
 * (t >= 1).  Each rank exchanges with its mirror image in the other half
 * of its current range, u' = u XOR (w - 1) for a range of width w, and
 * sends every block it holds whose destination lies in that other half:
 * p/2 blocks.  What it holds: sources that agree with it above k, any
 * coordinate below k, and a dimension-k coordinate in u XOR span, span
 * being every combination of the masks of the earlier halvings of k;
 * destinations that agree with it below k, lie in its current range in
 * k, and are anything above k.  span has room for 2^(t-1) masks. */
static int rex_step(ir_plan *p, const struct grid *g, int k, int t,
                    ir_block *buf, int32_t *span)
{
	int32_t n = (int32_t)g->stride[g->nd];
	int32_t e = g->ext[k], w = e >> (t - 1), half = w / 2;
	int64_t below = g->stride[k], above = n / g->stride[k + 1];
	int32_t nspan = (int32_t)1 << (t - 1);
	span[0] = 0;
	for (int s = 0; s < t - 1; s++)
		for (int32_t v = 0; v < (int32_t)1 << s; v++)
			span[((int32_t)1 << s) + v] = span[v] ^ ((e >> s) - 1);
	int rc = ir_plan_phase(p);
	for (int32_t R = 0; R < n && rc == 0; R++) {
		int c[IR_MAX_CUBE_DIM];
		ir_coords(&p->machine, R, c); /* the grid's coordinates */
		int32_t u = c[k], mirror = u ^ (w - 1);
		int32_t other = (mirror / half) * half; /* the other half */
		int64_t low = R % below, high = R - R % g->stride[k + 1];
		uint32_t nb = 0;
		for (int64_t a = 0; a < below; a++)
			for (int32_t v = 0; v < nspan; v++) {
				int64_t src = high + (u ^ span[v]) * below + a;
				for (int32_t du = other; du < other + half;
				     du++)
					for (int64_t b = 0; b < above; b++)
						buf[nb++] = (ir_block){
						        (int32_t)src,
						        (int32_t)(low +
						                  du * below +
						                  b * below *
						                          e)};
			}
		rc = ir_plan_add(p, R, (int32_t)(R + (mirror - u) * below), buf,
		                 nb, 0);
	}
	return rc;
}

/* 003 section 4.1: lg c halvings in x, then lg r in y (and lg of every
 * further extent), each rank forwarding p/2 blocks per step; lg p steps.
 * Blocks pass through intermediate ranks. */
static int rex_generate(const ir_machine *m, const ir_comm *c,
                        const struct sch_options *o, ir_plan *p)
{
	char why[256];
	struct grid g;
	ir_block *buf = NULL;
	int32_t *span = NULL;
	int rc = sch_applies(&sch_rex, m, c, why, sizeof why);
	plan_start(p, m, c, "rex");
	if (rc)
		goto out;
	grid_of(m, &g);
	buf = malloc(((size_t)m->nranks / 2 + 1) * sizeof *buf);
	span = malloc(((size_t)m->nranks / 2 + 1) * sizeof *span);
	if (!buf || !span) {
		rc = CCP_ENOMEM;
		goto out;
	}
	for (int k = 0; k < g.nd && rc == 0; k++)
		for (int t = 1; (g.ext[k] >> (t - 1)) > 1 && rc == 0; t++)
			rc = rex_step(p, &g, k, t, buf, span);
out:
	free(buf);
	free(span);
	return plan_finish(p, o, rc);
}

const struct sch_generator sch_rex = {
        .name = "rex",
        .summary = "alltoall: recursive exchange by mirror halving, lg p "
                   "steps of p/2 blocks, power-of-two sides (003 4.1)",
        .doc = "alltoall.md",
        .domain = {.colls = SCH_C(IR_ALLTOALL),
                   .topos = SCH_T(IR_MESH) | SCH_T(IR_TORUS) |
                            SCH_T(IR_HYPERCUBE) | SCH_T(IR_SWITCH),
                   .takes = SCH_TAKES_WRAP | SCH_TAKES_ORDER | SCH_TAKES_ND,
                   .where = "with power-of-two extents, which it halves",
                   .fits = rex_fits},
        .generate = rex_generate,
};

/* ---- IPEX, 003 section 4.2 ------------------------------------------ */

/* IPEX works on rows and columns: a 1D or 2D mesh or torus. */
static int ipex_fits(const struct sch_generator *g, const ir_machine *m,
                     const ir_comm *c, char *why, size_t len)
{
	(void)g, (void)c;
	if (m->ndims > 2) {
		char sh[96];
		sch_describe(m, sh, sizeof sh);
		snprintf(why, len,
		         "ipex exchanges along rows and columns, so it needs a "
		         "1D or 2D mesh or torus; this is a %s",
		         sh);
		return CCP_ENOTAPPLY;
	}
	return 0;
}
/* 003 section 4.2, for row step i (and its q_r - 1 column steps) or, when
 * i == 0, the final column steps:
 *   row step i      (x,y) <-> (x^i, y), the r blocks for column x^i;
 *   column step j   (x,y) <-> (x, y^j), forwarding the block received in
 *                   row step i for (x, y^j) (origin (x^i, y)); with
 *                   i == 0 the rank's own block for (x, y^j).
 * Partners outside the mesh are skipped, as in PEX-GEN. */
static int ipex_round(ir_plan *p, int32_t c, int32_t r, int32_t qr, int32_t i,
                      ir_block *buf)
{
	int rc = 0;
	if (i > 0) {
		bool opened = false;
		for (int32_t y = 0; y < r && rc == 0; y++)
			for (int32_t x = 0; x < c && rc == 0; x++) {
				int32_t px = x ^ i;
				if (px >= c)
					continue;
				if (!opened && (rc = ir_plan_phase(p)) != 0)
					break;
				opened = true;
				for (int32_t yy = 0; yy < r; yy++)
					buf[yy] = (ir_block){x + c * y,
					                     px + c * yy};
				rc = ir_plan_add(p, x + c * y, px + c * y, buf,
				                 (uint32_t)r, 0);
			}
	}
	for (int32_t j = 1; j < qr && rc == 0; j++) {
		bool opened = false;
		for (int32_t y = 0; y < r && rc == 0; y++)
			for (int32_t x = 0; x < c && rc == 0; x++) {
				int32_t py = y ^ j, ox = x ^ i;
				if (py >= r || ox >= c)
					continue;
				ir_block b = {ox + c * y, x + c * py};
				if (!opened && (rc = ir_plan_phase(p)) != 0)
					break;
				opened = true;
				rc = ir_plan_add(p, x + c * y, x + c * py, &b,
				                 1, 0);
			}
	}
	return rc;
}

/* 003 section 4.2: for each row step i = 1..c-1, one row exchange and
 * r-1 column steps; then r-1 column steps of the ranks' own blocks.
 * r(c-1) + (r-1) = p-1 steps on a power-of-two mesh; q_c q_r - 1 with
 * the PEX-GEN padding otherwise. */
static int ipex_generate(const ir_machine *m, const ir_comm *c,
                         const struct sch_options *o, ir_plan *p)
{
	char why[256];
	ir_block *buf = NULL;
	int rc = sch_applies(&sch_ipex, m, c, why, sizeof why);
	plan_start(p, m, c, "ipex");
	if (rc)
		goto out;
	int32_t cols = m->dims[0], rows = m->ndims == 2 ? m->dims[1] : 1;
	int32_t qc = (int32_t)pow2_at_least(cols);
	int32_t qr = (int32_t)pow2_at_least(rows);
	if (!(buf = malloc((size_t)rows * sizeof *buf))) {
		rc = CCP_ENOMEM;
		goto out;
	}
	for (int32_t i = 1; i < qc && rc == 0; i++)
		rc = ipex_round(p, cols, rows, qr, i, buf);
	if (rc == 0)
		rc = ipex_round(p, cols, rows, qr, 0, buf);
out:
	free(buf);
	return plan_finish(p, o, rc);
}

const struct sch_generator sch_ipex = {
        .name = "ipex",
        .summary = "alltoall: indirect pairwise exchange, row steps then "
                   "column forwarding, p-1 steps (003 4.2)",
        .doc = "alltoall.md",
        .domain = {.colls = SCH_C(IR_ALLTOALL),
                   .topos = SCH_T(IR_MESH) | SCH_T(IR_TORUS),
                   .takes = SCH_TAKES_WRAP | SCH_TAKES_ORDER | SCH_TAKES_ND,
                   .where = "1D or 2D (it exchanges along rows and columns)",
                   .fits = ipex_fits},
        .generate = ipex_generate,
};

/* ---- Bruck's alltoall --------------------------------------------------- */

/* Bruck et al.'s index algorithm, without its local rotations (the plan
 * names blocks, so where a block sits in a buffer is the lowering's
 * business): block (s, d) travels the distance e = (d - s) mod p in hops
 * of 2^k, one for each bit k set in e, in increasing k.  Before step k
 * it sits at s + (e mod 2^k); in step k every rank r sends to r + 2^k,
 * as one message, every block it holds whose e has bit k set: for each
 * such e in 1..p-1, the block (r - (e mod 2^k), r - (e mod 2^k) + e).
 * ceil(lg p) steps for any p, each rank sending about p/2 blocks a step,
 * against p-1 steps of one block for pex and gen: fewer start-ups, more
 * bytes. */
int sch_bruck_alltoall(const ir_machine *m, const ir_comm *c,
                       const struct sch_options *o, ir_plan *p)
{
	int32_t n = m->nranks;
	ir_plan_init(p, m, c, "bruck");
	ir_block *buf = malloc((size_t)n * sizeof *buf);
	int rc = buf ? 0 : CCP_ENOMEM;
	for (int64_t bit = 1; bit < n && rc == 0; bit *= 2) {
		rc = ir_plan_phase(p);
		for (int32_t r = 0; r < n && rc == 0; r++) {
			uint32_t nb = 0;
			for (int64_t e = bit; e < n; e++) {
				if (!(e & bit))
					continue;
				int64_t s = ((r - (e & (bit - 1))) % n + n) % n;
				buf[nb++] = (ir_block){(int32_t)s,
				                       (int32_t)((s + e) % n)};
			}
			rc = ir_plan_add(p, r, (int32_t)((r + bit) % n), buf,
			                 nb, 0);
		}
	}
	free(buf);
	return sch_finish(p, o, true, rc);
}
