/*
 * sched.h - the generators: one table entry per algorithm, each saying
 * where it applies and emitting phase IR for the verifier.
 */
#ifndef CCP_SCHED_H
#define CCP_SCHED_H

#include "ir.h"

/* The time in microseconds of HPAM's plan for c on m with level 2 cut
 * into p2 x q2 sub-meshes, as the caller's cost model prices it (the
 * compiler gives model_hpam_price, 000's closed forms): 0, CCP_ENOTAPPLY
 * when the model has no price for that partition (it is skipped), or
 * another CCP_E* code, which ends the search.  ctx is the caller's. */
typedef int sch_hpam_price_fn(void *ctx, const ir_machine *m, const ir_comm *c,
                              bool multicast, int p2, int q2, double *us);

/* What the user asked of every generator, and the prices of the caller's
 * cost model for the generators that search among their own variants
 * (schedules/ has no cost model: it links ir/ only). */
struct sch_options {
	uint64_t seed;          /* for randomised generators */
	bool forbid_contention; /* the user wants a contention-free plan */
	sch_hpam_price_fn *hpam_price; /* HPAM's partition search; NULL:
	                                  hpam_* fail with CCP_EINVAL */
	void *hpam_ctx;                /* passed to hpam_price */
};

struct sch_generator {
	const char *name;    /* as written in the YAML's algorithm key */
	const char *summary; /* one line for --help and explain */
	/* 0 if the generator applies to this machine and communication;
	 * CCP_ENOTAPPLY with the reason in why otherwise. */
	int (*applies)(const ir_machine *m, const ir_comm *c, char *why,
	               size_t len);
	/* Build the plan into out (initialised by the generator). */
	int (*generate)(const ir_machine *m, const ir_comm *c,
	                const struct sch_options *o, ir_plan *out);
};

/* The generator called name, or NULL. */
const struct sch_generator *sch_find(const char *name);
/* All generators, NULL-terminated, in the order help lists them. */
extern const struct sch_generator *const sch_generators[];

/* Split every phase of p whose transfers share a directed link or exceed
 * a rank's ports into consecutive sub-phases that do not (first fit, in
 * transfer order), then clear the plan's contention flags.  Causality
 * holds: the sub-phases of a phase stay between its neighbours.  Used for
 * `contention: forbid` (schedules/split.c). */
int sch_split_contention(ir_plan *p);

/* An edge list (edges.c) for generators that find transfers out of phase
 * order: each is tagged with a phase number, and emit sorts them (stable)
 * into one plan phase per distinct number, in increasing order; within a
 * phase in the order they were added, or by source or destination rank
 * (then in the order added) when order says so.
 * The first error (CCP_ENOMEM) is sticky, so recursions need not check
 * each add; emit returns it.  Zero-initialise, then fini. */
struct sch_edge {
	uint32_t phase, seq;   /* phase number; insertion order */
	int32_t src, dst;
	size_t block;          /* first block in the pool */
	uint32_t nblocks, flags;
};
struct sch_edges {
	struct sch_edge *e;
	size_t n, cap;
	ir_block *b;           /* block pool */
	size_t nb, capb;
	int rc;                /* first error */
	enum sch_order {
		SCH_ORDER_ADDED, /* within a phase, the order of the adds */
		SCH_ORDER_SRC,   /* by source rank */
		SCH_ORDER_DST    /* by destination rank */
	} order;
};
void sch_edges_add(struct sch_edges *E, uint32_t phase, int32_t src,
                   int32_t dst, const ir_block *blocks, uint32_t nblocks,
                   uint32_t flags);
int sch_edges_emit(struct sch_edges *E, ir_plan *p);
/* Run the list backwards (a tree's reduce or gather from its broadcast
 * or scatter): phase k becomes the last but k, each transfer goes from
 * its destination to its source, carrying the blocks it was given. */
void sch_edges_reverse(struct sch_edges *E);
void sch_edges_fini(struct sch_edges *E);

/* U-mesh multicast (001 §3.2.2, McKinley et al.) over the ranks map[lo..hi)
 * listed in dimension-ordered chain order ((x, y, z) with x most
 * significant), from the holder at position h, starting in phase `phase`:
 * ceil(log2(hi - lo)) phases, contention-free under dimension-ordered
 * routing on a mesh (baselines.c). */
void sch_umesh(struct sch_edges *E, const int32_t *map, int32_t lo,
               int32_t hi, int32_t h, uint32_t phase, const ir_block *blocks,
               uint32_t nblocks);

/* The families (one file each). */
extern const struct sch_generator sch_binomial; /* binomial.c */
extern const struct sch_generator sch_linear;   /* linear.c */
/* complete exchange on meshes, 003 (alltoall.c) */
extern const struct sch_generator sch_pex, sch_pex_gen, sch_gen, sch_rex,
    sch_ipex;
/* irregular all-to-many, 004 (irregular.c) */
extern const struct sch_generator sch_ac, sch_lp, sch_rs_n, sch_rs_nl;
/* tree scatter and gather (000 eq. 9), direct transpose (mesh_collectives.c) */
extern const struct sch_generator sch_tree_scatter, sch_tree_gather,
    sch_transpose_direct;
/* EDN broadcast on 2D (square and rectangular) and 3D meshes, 001 ch. 3
 * (edn_mesh.c) */
extern const struct sch_generator sch_edn;
/* sld.c */
extern const struct sch_generator sch_sld;
/* edn_reduce.c */
extern const struct sch_generator sch_edn_reduce, sch_edn_gather;
/* edn_transpose.c */
extern const struct sch_generator sch_edn_transpose;
/* baseline broadcasts, 001 ch. 5 (baselines.c) */
extern const struct sch_generator sch_rd, sch_dimensional,
    sch_scatter_collect, sch_fibonacci;
/* EDN broadcast on 2D and 3D tori, {YT}/{YTF}, 001 ch. 4 (torus_yt.c) */
extern const struct sch_generator sch_edn_torus;
/* HPAM broadcast, scatter and gather, 000 (hpam.c; partition search in
 * hpam.h, priced by sch_options.hpam_price) */
extern const struct sch_generator sch_hpam_hybrid, sch_hpam_multicast;
/* hypercube broadcasts, 002 (hypercube.c) */
extern const struct sch_generator sch_sbt, sch_hokao, sch_reptree;
/* optimal, link-aware and size-grouping schedulers (coloring.c) */
extern const struct sch_generator sch_color, sch_link_aware, sch_sized;

#endif
