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

struct sch_generator;

/* Bits of a domain: a collective (enum ir_coll), a topology (enum
 * ir_topo); routings are IR_RT bits (ir.h). */
#define SCH_C(c)      (1u << (c))
#define SCH_T(t)      (1u << (t))
#define SCH_TOPOS_ANY ((1u << IR_NTOPOS) - 1)

/* The port model a generator needs. */
enum sch_ports {
	SCH_PORTS_ANY, /* one-port, k-port or all-port */
	SCH_PORTS_ALL  /* all-port: `ports: all`, or at least as many ports
	                  as the machine's busiest rank has links */
};

/* Machine features a generator must declare it takes (sch_domain.takes):
 * a torus whose dimensions do not all wrap, a dimension order other than
 * x, y, z..., more than three dimensions, and several ranks per node. */
#define SCH_TAKES_WRAP  1u
#define SCH_TAKES_ORDER 2u
#define SCH_TAKES_ND    4u
#define SCH_TAKES_NODES 8u
#define SCH_TAKES_ALL   15u

/* Where a generator applies, as data.  sch_applies checks it in this
 * order (collective, topology, routing, ports, then fits) and words the
 * refusal from it; the same words give the generator's row of
 * docs/algorithms.md, and the stress test draws its inputs from it. */
struct sch_domain {
	unsigned colls;       /* SCH_C bits: the collectives it takes */
	unsigned topos;       /* SCH_T bits: the topologies it runs on */
	unsigned routings;    /* IR_RT bits it is built for; 0: whatever
	                         routing its topologies allow */
	enum sch_ports ports; /* the port model it needs */
	unsigned takes;       /* SCH_TAKES_* bits: the machines of issue 18
	                         it was built and tested for; without a bit,
	                         sch_applies refuses such machines */
	/* What fits checks, in words that follow the machine's (", " joins
	 * them): "either 2D W x H ..., or 3D ...".  NULL if nothing. */
	const char *where;
	/* Why it does not take a collective, where the reason is worth
	 * giving: said after the refusal ([IR_GATHER] = "..."). */
	const char *refused[IR_NCOLLS];
	/* The rest of the domain (sizes, shapes, the root): 0, or
	 * CCP_ENOTAPPLY with the reason in why, or with why left "" for the
	 * domain's own sentence ("X needs a <machine>, <where>; this machine
	 * is a ...").  Called only on what the data above accepts.  NULL:
	 * nothing more. */
	int (*fits)(const struct sch_generator *g, const ir_machine *m,
	            const ir_comm *c, char *why, size_t len);
};

struct sch_generator {
	const char *name;    /* as written in the YAML's algorithm key */
	const char *summary; /* one line for --help and explain */
	const char *doc;     /* the page of docs/ that describes it, or NULL */
	struct sch_domain domain; /* where it applies (sch_applies) */
	/* Build the plan into out (initialised by the generator); called
	 * only where sch_applies accepts. */
	int (*generate)(const ir_machine *m, const ir_comm *c,
	                const struct sch_options *o, ir_plan *out);
};

/* The generator called name, or NULL. */
const struct sch_generator *sch_find(const char *name);
/* All generators, NULL-terminated, in the order help lists them
 * (generators.def). */
extern const struct sch_generator *const sch_generators[];

/* 0 if g applies to this machine and communication; CCP_ENOTAPPLY with
 * the reason in why (len bytes) otherwise.  The irregular pattern's
 * matrix must have as many ranks as the machine. */
int sch_applies(const struct sch_generator *g, const ir_machine *m,
                const ir_comm *c, char *why, size_t len);
/* Build g's plan for m and c into out (initialised in every case):
 * g->generate itself, except on a machine placed by a map, where g
 * builds the plan over positions and the ranks are renamed
 * (schedules/placed.c).  Call it, not g->generate, on a user's machine. */
int sch_generate(const struct sch_generator *g, const ir_machine *m,
                 const ir_comm *c, const struct sch_options *o, ir_plan *out);
/* sch_applies on a machine placed by a map: whether g applies over
 * positions (placed.c). */
int sch_applies_placed(const struct sch_generator *g, const ir_machine *m,
                       const ir_comm *c, char *why, size_t len);
/* Where g applies, in words: the collectives it takes ("broadcast,
 * reduce"), and the machine ("all-port mesh with dimension-order
 * routing, either 2D ..."; "any" for every machine), followed by the
 * features of today's machines it does not take ("; only 1-3
 * dimensions, one rank per node"). */
void sch_domain_colls(const struct sch_generator *g, char *buf, size_t len);
void sch_domain_machine(const struct sch_generator *g, char *buf, size_t len);
/* The machine in the words refusals use: "8x8 mesh", "hypercube of
 * dimension 4", "6-port switch", "two-level HPAM (2x2 over 4x4)" (a
 * trailing extent of 1 left out; the port model is not said). */
void sch_describe(const ir_machine *m, char *buf, size_t len);
/* Whether a mesh or torus routes in an order other than x, y, z... */
bool sch_grid_order_given(const ir_machine *m);
/* Whether every rank may use all its links at once: `ports: all`, or at
 * least as many ports as the busiest rank has links. */
bool sch_all_port(const ir_machine *m);

/* A domain's fits for generators that keep a phase's transfers in
 * disjoint boxes of groups (binomial halving): 0, or CCP_ENOTAPPLY with
 * the reason in why on a dragonfly routed other than minimal, where a
 * detour through a third group may meet another transfer. */
int sch_fits_dfly_minimal(const struct sch_generator *g, const ir_machine *m,
                          const ir_comm *c, char *why, size_t len);

/* Bruck's alltoall, the `bruck` generator's alltoall (alltoall.c):
 * ceil(lg N) phases, rank r sending to r + 2^k the blocks whose distance
 * has bit k set. */
int sch_bruck_alltoall(const ir_machine *m, const ir_comm *c,
                       const struct sch_options *o, ir_plan *p);

/* Split every phase of p whose transfers share a directed link, exceed
 * a rank's ports or a node's network ports (node_ports) into consecutive
 * sub-phases that do not (first fit, in transfer order), then clear the
 * plan's contention flags.  Causality
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

/* Pieces shared by the generators of the collectives every rank ends
 * with and of the large-message broadcast and reduce (partials.c). */
/* Whether some directed link carries two transfers in one phase of p
 * under its machine's routing: 1 yes, 0 no, or CCP_ENOMEM. */
int sch_contended(const ir_plan *p);
/* Network transfers node q may send, and separately receive, in one
 * phase (ir_node_port_limit), at least 1 so that every transfer fits
 * some sub-phase (split.c). */
uint32_t sch_node_port_limit(const ir_machine *m, int32_t q);
/* Whether some phase of p has a node of several ranks send or receive
 * more network transfers than its network ports allow (node_ports): 1
 * yes, 0 no (always with one rank per node), or CCP_ENOMEM. */
int sch_node_ports_exceeded(const ir_plan *p);
/* Finish plan p built with result rc: trim it, declare link contention
 * where the routing makes some and node contention where a node's
 * network ports are exceeded (sch_node_ports_exceeded), and under
 * `contention: forbid` split such phases when split says the algorithm
 * allows it (no rank sends in a phase what it receives in it), else
 * CCP_ENOTAPPLY.  On failure p is released. */
int sch_finish(ir_plan *p, const struct sch_options *o, bool split, int rc);
/* A transfer of src's partials of the element blocks ks[0..nk) to dst
 * (IR_XF_* flags), leaving out empty blocks, nothing when all are empty;
 * sch_partial_range: of the blocks [lo, hi), writing them to ks.  tmp
 * has room for nk (hi - lo) blocks. */
int sch_partials(ir_plan *p, int32_t src, int32_t dst, const int32_t *ks,
                 int32_t nk, uint32_t flags, ir_block *tmp);
int sch_partial_range(ir_plan *p, int32_t src, int32_t dst, int32_t lo,
                      int32_t hi, uint32_t flags, int32_t *ks, ir_block *tmp);
/* Largest power of two <= n (n >= 1). */
int32_t sch_pow2_floor(int32_t n);
/* 0 when a reduction may be cut into k element blocks (IR_MAX_SEGMENTS),
 * else CCP_ENOTAPPLY with the reason in why. */
int sch_blocks_fit(int64_t k, char *why, size_t len);
/* A ring of every rank, order[0..n), laid on the machine so that its
 * links are disjoint where it can be: a snake on meshes and tori, a Gray
 * code on hypercubes, else rank order.  0 or CCP_ENOMEM. */
int sch_ring_order(const ir_machine *m, const ir_comm *c, int32_t *order);
/* The machine's price of a phase, t + M b for M its largest message:
 * the per-phase costs (tau, phi) when both are above 0, else the per
 * message ones (alpha, beta); false when neither pair is. */
bool sch_phase_costs(const ir_machine *m, double *t, double *b);
/* The segments (element blocks) the chain cuts c's message into: c's
 * when above 1, else the count that minimises the pipeline's time under
 * the machine's per-phase (tau, phi) or per-message (alpha, beta)
 * costs, or 64 KiB segments without costs; at most one per byte (per
 * element of a reduction) and IR_MAX_SEGMENTS. */
int32_t sch_chain_segments(const ir_machine *m, const ir_comm *c);
/* One half of the ring over order in n - 1 new phases of p: combine
 * (reduce-scatter: position i ends with the block of rank order[i]) or
 * allgather (of a reduction's partials, which replace, or of an
 * allgather's blocks).  tmp has room for one block. */
int sch_ring_steps(ir_plan *p, const int32_t *order, bool combine,
                   ir_block *tmp);

/* Swing's and Bine's step distance rho(s) = sum_{i<=s} (-2)^i: 1, -1,
 * 3, -5, 11, -21, ... (bucket.c). */
int64_t sch_swing_rho(int s);

/* Every generator: sch_<name>, defined in its family's file. */
#define SCH_GENERATOR(name) extern const struct sch_generator sch_##name;
#include "generators.def"
#undef SCH_GENERATOR

#endif
