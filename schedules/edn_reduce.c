/*
 * edn_reduce.c - reduction and gather by extended dominating nodes on
 * all-port meshes with dimension-ordered routing (001 §3.5, Fig. 3.26,
 * Tables 3.6-3.7).
 *
 *   edn_reduce  every rank's vector combined at the root
 *   edn_gather  every rank's block collected at the root
 *
 * Both run the EDN broadcast tree (edn_mesh.c) backwards.  Reversed as
 * is, the tree contends under X-Y routing: a message child -> parent
 * would have to retrace the broadcast route parent -> child, which goes
 * Y first and X last, but X-Y routing sends it X first.  For example the
 * broadcast (0,0) -> (1,1) [via (1,0)] and (0,0) -> (0,1) share no link;
 * reversed, (1,1) -> (0,0) goes via (0,1) and both use (0,1) -> (0,0).
 * The thesis' fix is to rotate the EDN pattern by 90 degrees before
 * reversing it (001 §3.5).  Here the rotation is a transpose: a rotation
 * is a transpose followed by a mirror, and a mirror maps X-Y routes to
 * X-Y routes, so the mirror is not needed.
 *
 * The construction.  Let M be the mesh with extents (d_0, ..., d_{k-1})
 * and M' the mesh with the extents in reverse order; T maps the node
 * (a_0, ..., a_{k-1}) of M' to the node (a_{k-1}, ..., a_0) of M (in 2D:
 * swap x and y).  T is a graph isomorphism, and maps dimension i of M'
 * to dimension k-1-i of M.  Build the EDN broadcast of M' from T^-1(root)
 * and turn each of its transfers u -> v in phase p of P into the
 * transfer T(v) -> T(u) in phase P-1-p.
 *
 * Lemma (routes).  The dimension-ordered route from T(v) to T(u) in M
 * is the route from u to v in M', mapped by T and walked backwards.
 * Proof: the route u -> v in M' corrects dimensions 0, 1, ..., k-1 in
 * that order, each by one straight monotone run.  Its image under T goes
 * from T(u) to T(v) correcting dimensions k-1, ..., 0 of M in that order;
 * walked backwards it goes from T(v) to T(u) correcting dimensions
 * 0, ..., k-1 in order, each by one straight monotone run.  On a mesh
 * that path is unique, and it is the dimension-ordered route. []
 *
 * Theorem.  The plan is contention-free (link and node), causal, and
 * delivers: the root's partial combines every rank's contribution once
 * (reduce), the root holds every block (gather).
 * Links: by the lemma, the links of a reduce transfer are the images of
 * the links of its broadcast transfer under l = (a -> b) |-> (T(b) ->
 * T(a)), which is injective on directed links.  The transfers of one
 * reduce phase come from one broadcast phase, whose routes are pairwise
 * link-disjoint; so are their images.  Ports: in reduce phase P-1-p a
 * rank T(x) receives as many messages as x sent in broadcast phase p and
 * sends as many as x received; T preserves degrees, and a port limit is
 * the same for sends and receives, so the limits hold.  Causality: each
 * rank v other than the broadcast root receives once, in phase q(v),
 * from its parent, which received in a phase before q(v) (broadcast
 * causality; if the broadcast delivered twice, only the first delivery
 * is kept, which leaves a valid broadcast with a subset of its links).
 * So T(v) sends once, in phase P-1-q(v), and every child w of v has
 * q(w) > q(v), so T(w) sent earlier: T(v) forwards its whole subtree.
 * Every non-root rank sends once, so the root's result counts every rank
 * once; the verifier's multiset hash checks exactly that (ir/verify.c).
 *
 * The phases are those of the broadcast from T^-1(root) on M': on the
 * square meshes EDN covers, M' = M, and min / max over roots are those of
 * 001 Tables 3.1-3.4.  docs/edn-reduce.md compares them with Table 3.6.
 * Everything leans on sch_edn; wherever it grows (3D, rectangular) these
 * generators follow, because the proof above holds in any dimension.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

/* Dimensions that count: trailing extents of 1 are ignored, so a 2D
 * mesh written as X x Y x 1 transposes to Y x X x 1. */
static int red_ndims(const ir_machine *m)
{
	int nd = m->ndims;
	while (nd > 1 && m->dims[nd - 1] == 1)
		nd--;
	return nd;
}

/* The machine M' of the construction: m with its extents reversed. */
static ir_machine red_transposed(const ir_machine *m)
{
	ir_machine t = *m;
	int nd = red_ndims(m);
	for (int d = 0; d < nd; d++)
		t.dims[d] = m->dims[nd - 1 - d];
	return t;
}

/* T: rank r of machine `from` to the rank of `to` with its coordinates
 * in reverse order.  T is its own inverse with from and to swapped. */
static int32_t red_map(const ir_machine *from, const ir_machine *to, int32_t r)
{
	int a[IR_MAX_CUBE_DIM], b[IR_MAX_CUBE_DIM] = {0};
	int nd = red_ndims(from);
	ir_coords(from, r, a);
	for (int d = 0; d < IR_MAX_DIMS; d++)
		b[d] = d < nd ? a[nd - 1 - d] : a[d];
	return ir_rank_of(to, b);
}

/* The rest of where the reversed broadcast applies (the domain says a
 * mesh with dimension-ordered routing, which the lemma needs for unique
 * reversible routes): an EDN broadcast on the transposed mesh. */
static int red_fits(const struct sch_generator *g, const ir_machine *m,
                    const ir_comm *c, char *why, size_t len)
{
	const char *name = g->name;
	char shape[128], ewhy[256];
	ir_machine t = red_transposed(m);
	ir_comm bc = {.coll = IR_BCAST, .bytes = 1, .segments = 1};
	bc.root = c->root >= 0 && c->root < m->nranks ? red_map(m, &t, c->root)
	                                              : 0;
	if (sch_applies(&sch_edn, &t, &bc, ewhy, sizeof ewhy) == 0)
		return 0;
	/* keep what edn needs, drop its description of the transposed
	 * machine: ours names the machine the user gave */
	char *tail = strstr(ewhy, "; this machine is");
	if (tail)
		*tail = '\0';
	sch_describe(m, shape, sizeof shape);
	int w = snprintf(why, len,
	                 "%s needs edn on the transposed mesh; this %s is on "
	                 "a %s, and %s",
	                 name, ir_coll_name(c->coll), shape, ewhy);
	if (w < 0 || (size_t)w >= len) /* too long for the caller: short */
		snprintf(why, len,
		         "%s needs a mesh whose transpose has an edn broadcast "
		         "(see edn); this %s is on a %s",
		         name, ir_coll_name(c->coll), shape);
	return CCP_ENOTAPPLY;
}

/* The broadcast tree of M', pruned to first deliveries (see the
 * theorem): parent[v] and phase[v] of each rank v of M', parent -1 at
 * the root; *nph gets the broadcast's phase count.  CCP_EINTERNAL if the
 * broadcast is not causal or misses a rank. */
static int red_tree(const ir_machine *t, int32_t troot,
                    const struct sch_options *o, int32_t *parent,
                    uint32_t *phase, uint32_t *nph)
{
	ir_comm bc = {
	        .coll = IR_BCAST, .root = troot, .bytes = 1, .segments = 1};
	ir_plan b;
	ir_plan_init(&b, NULL, NULL, NULL); /* safe to fini on any error */
	int rc = sch_edn.generate(t, &bc, o, &b);
	if (rc)
		goto out_free_plan;
	for (int32_t v = 0; v < t->nranks; v++)
		parent[v] = -1;
	for (uint32_t ph = 0; ph < b.nphases; ph++) {
		const ir_phase *f = &b.phases[ph];
		for (uint32_t k = f->transfer; k < f->transfer + f->ntransfers;
		     k++) {
			int32_t u = b.transfers[k].src, v = b.transfers[k].dst;
			if (u != troot && (parent[u] < 0 || phase[u] >= ph)) {
				rc = CCP_EINTERNAL; /* sends before it holds */
				goto out_free_plan;
			}
			if (v == troot || parent[v] >= 0)
				continue; /* a second delivery: dropped */
			parent[v] = u;
			phase[v] = ph;
		}
	}
	for (int32_t v = 0; v < t->nranks; v++)
		if (v != troot && parent[v] < 0) {
			rc = CCP_EINTERNAL; /* the broadcast missed v */
			goto out_free_plan;
		}
	*nph = b.nphases;
out_free_plan:
	ir_plan_fini(&b);
	return rc;
}

/* Gather: each rank's subtree (the ranks of M, ascending, whose blocks
 * it forwards) in CSR form, sub[off[v] .. off[v+1]) for rank v of M'. */
static int red_subtrees(const ir_machine *m, const ir_machine *t, int32_t troot,
                        const int32_t *parent, size_t **off, int32_t **sub)
{
	int32_t n = m->nranks;
	size_t *o = calloc((size_t)n + 1, sizeof *o), *fill = NULL;
	int32_t *s = NULL;
	if (!o)
		goto out_nomem;
	/* every rank is in the subtree of itself and of each ancestor,
	 * the root excepted (it sends nothing) */
	for (int32_t r = 0; r < n; r++)
		for (int32_t w = red_map(m, t, r); w != troot; w = parent[w])
			o[w + 1]++;
	for (int32_t v = 0; v < n; v++)
		o[v + 1] += o[v];
	s = malloc((o[n] ? o[n] : 1) * sizeof *s);
	fill = malloc((size_t)n * sizeof *fill);
	if (!s || !fill)
		goto out_nomem;
	memcpy(fill, o, (size_t)n * sizeof *fill);
	for (int32_t r = 0; r < n; r++) /* ascending r: sorted lists */
		for (int32_t w = red_map(m, t, r); w != troot; w = parent[w])
			s[fill[w]++] = r;
	free(fill);
	*off = o;
	*sub = s;
	return 0;
out_nomem:
	free(o);
	free(s);
	free(fill);
	return CCP_ENOMEM;
}

/* Build the reversed, transposed EDN tree into p (see the theorem). */
static int red_generate(const ir_machine *m, const ir_comm *c,
                        const struct sch_options *o, bool gather, ir_plan *p)
{
	int rc;
	char why[256];
	int32_t n = m->nranks, *parent = NULL, *sub = NULL;
	uint32_t *phase = NULL, nph = 0;
	size_t *off = NULL;
	ir_block *blocks = NULL;
	struct sch_edges E = {0};
	ir_plan_init(p, m, c, gather ? "edn_gather" : "edn_reduce");
	if ((rc = sch_applies(gather ? &sch_edn_gather : &sch_edn_reduce, m, c,
	                      why, sizeof why)) != 0 ||
	    c->root < 0 || c->root >= n)
		return CCP_ENOTAPPLY;
	ir_machine t = red_transposed(m);
	int32_t troot = red_map(m, &t, c->root);
	parent = malloc((size_t)n * sizeof *parent);
	phase = malloc((size_t)n * sizeof *phase);
	blocks = malloc((size_t)n * sizeof *blocks);
	if (!parent || !phase || !blocks) {
		rc = CCP_ENOMEM;
		goto out;
	}
	if ((rc = red_tree(&t, troot, o, parent, phase, &nph)) != 0)
		goto out;
	if (gather &&
	    (rc = red_subtrees(m, &t, troot, parent, &off, &sub)) != 0)
		goto out;
	/* one transfer per non-root rank, to its parent, in the mirrored
	 * phase; ranks in ascending order so each phase is sorted by
	 * sender */
	for (int32_t r = 0; r < n; r++) {
		int32_t v = red_map(m, &t, r);
		if (v == troot)
			continue;
		int32_t dst = red_map(&t, m, parent[v]);
		if (gather) {
			uint32_t nb = (uint32_t)(off[v + 1] - off[v]);
			for (uint32_t k = 0; k < nb; k++)
				blocks[k] = (ir_block){sub[off[v] + k], 0};
			sch_edges_add(&E, nph - 1 - phase[v], r, dst, blocks,
			              nb, 0);
		} else {
			/* the sender's partial, combined at the parent */
			ir_block b = {r, 0};
			sch_edges_add(&E, nph - 1 - phase[v], r, dst, &b, 1,
			              IR_XF_REDUCE);
		}
	}
	rc = sch_edges_emit(&E, p);
out:
	sch_edges_fini(&E);
	free(parent);
	free(phase);
	free(blocks);
	free(off);
	free(sub);
	return rc;
}

static int edn_reduce_generate(const ir_machine *m, const ir_comm *c,
                               const struct sch_options *o, ir_plan *p)
{
	return red_generate(m, c, o, false, p);
}

static int edn_gather_generate(const ir_machine *m, const ir_comm *c,
                               const struct sch_options *o, ir_plan *p)
{
	return red_generate(m, c, o, true, p);
}

const struct sch_generator sch_edn_reduce = {
        .name = "edn_reduce",
        .summary = "reduce: the edn broadcast of the transposed mesh run "
                   "backwards, contention-free (001 §3.5, k+3 to k+4 "
                   "phases on (b*2^k)^2 meshes, b = 4..7)",
        .doc = "edn-reduce.md",
        .domain = {.colls = SCH_C(IR_REDUCE),
                   .topos = SCH_T(IR_MESH),
                   .routings = IR_RT(DIM_ORDER),
                   .ports = SCH_PORTS_ALL,
                   .where = "whose transpose has an edn broadcast (see "
                            "edn)",
                   .fits = red_fits},
        .generate = edn_reduce_generate,
};

const struct sch_generator sch_edn_gather = {
        .name = "edn_gather",
        .summary = "gather: the edn broadcast of the transposed mesh run "
                   "backwards, each rank forwarding its subtree's blocks "
                   "(001 §3.5)",
        .doc = "edn-reduce.md",
        .domain = {.colls = SCH_C(IR_GATHER),
                   .topos = SCH_T(IR_MESH),
                   .routings = IR_RT(DIM_ORDER),
                   .ports = SCH_PORTS_ALL,
                   .where = "whose transpose has an edn broadcast (see "
                            "edn)",
                   .fits = red_fits},
        .generate = edn_gather_generate,
};
