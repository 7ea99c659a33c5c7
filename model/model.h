/*
 * model.h - what a plan costs: the papers' closed-form cost models over a
 * plan's phases (cost.c), 000's closed forms of its HPAM algorithms per
 * sub-mesh partition (cost.c), the named machines of the papers with
 * their measured parameters (cost.c), and an event-driven simulation of a
 * plan on a wormhole-routed network (sim.c).
 *
 * Every time is in microseconds, every per-byte cost in microseconds per
 * byte, as in ir_cost.  A cost field that nobody set is NaN; a model that
 * needs it fails with CCP_EINVAL and names the field.
 *
 * Papers (/work/shared/seeds): 000 HPAM (Ben Miled et al.), 001 Tsai's
 * thesis (EDN, tau-model), 002 Jeon-Kim (T3E), 003 Thakur-Choudhary
 * (all-to-all on meshes), 004 Wang-Ranka (unstructured communication).
 */
#ifndef CCP_MODEL_H
#define CCP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"

/* ---- presets (cost.c) ----------------------------------------------- */

/* A named machine: the cost parameters one paper gives for it.  Fields
 * the paper gives no value for are NaN; note says which and why. */
struct model_preset {
	const char *name;    /* as written after `preset:` */
	const char *machine; /* the system, and its software if measured */
	const char *source;  /* paper and table or section of every value */
	const char *note;    /* how values were mapped; what is left unset */
	ir_cost cost;        /* cost.preset is "" here */
};

/* All presets, in the order docs/cost-models.md lists them; *n gets the
 * count.  The table is constant and owned by the library. */
const struct model_preset *model_preset_list(size_t *n);
/* The preset called name, or NULL.  Borrowed from the table. */
const struct model_preset *model_preset_find(const char *name);
/* Fill every unset (NaN) field of c from preset name; fields the user
 * set win.  name NULL means c->preset.  Records the name in c->preset.
 * 0, CCP_EINVAL (no name given) or CCP_ENOTFOUND. */
int model_preset_apply(ir_cost *c, const char *name);
/* The HPAM parameters of 000 Table 1 for any ratio Q > 0 between the
 * level-2 and level-1 costs, into every unset field of c (the presets
 * hpam-q2, hpam-q8 and hpam-q32 are the ratios 000 evaluates).  0 or
 * CCP_EINVAL for Q <= 0 or NaN. */
int model_hpam_table1(double q, ir_cost *c);

/* ---- closed-form models (cost.c) ------------------------------------ */

enum model_kind {
	MODEL_UNICAST,     /* 001 §4.4.2: serialised start-ups, reads
	                      alpha, beta, hop, gamma */
	MODEL_HPAM,        /* 000 eq. 3 per transfer, reads c_send,
	                      c_recv, copy, lambda (level 2 only if used) */
	MODEL_CONTENTION,  /* 003 §2: alpha + L max(beta_ex, f beta_sat),
	                      reads alpha, beta (= beta_ex), beta_sat */
	MODEL_PERMUTATION, /* 004 §2.1: tau + M phi, reads tau, phi */
	MODEL_NKINDS
};

/* "unicast", "hpam", "contention", "permutation". */
const char *model_kind_name(enum model_kind k);
/* The kind called name: 0 or CCP_ENOTFOUND. */
int model_kind_find(const char *name, enum model_kind *k);

/* Predicted time of plan p under model k, the sum over its phases (each
 * model prices one phase; the phases run one after another; with several
 * ranks per node and a shared-memory cost, a phase is the larger of its
 * network part and its shared-memory part, docs/cost-models.md).  r, if not
 * NULL, is the verifier's report of p: the contention model then takes
 * each phase's link load from r->link_load instead of routing the phase
 * again.  phase_us, if not NULL, gets p->nphases per-phase times (caller
 * storage).  Returns 0, CCP_EINVAL with a one-line reason in err (a
 * parameter the model needs is unset or negative, or the plan is
 * malformed), or CCP_ENOMEM.  p and r are borrowed. */
/* One cost parameter a model or the simulator reads: its value, its
 * field name, what it is. */
struct model_param {
	double v;
	const char *field, *what;
};
/* 0 when every parameter of p[0..n) is set, finite and not negative;
 * else CCP_EINVAL with err naming the first bad value, or every unset
 * parameter at once ("the unicast model needs hop (...) and gamma
 * (...), which are unset: ..."); who starts the sentence. */
int model_need(const char *who, const struct model_param *p, int n,
               char *err, size_t len);

/* p, or p's shallow copy in tmp with the costs its topology makes zero
 * filled in when unset: on a switch every route is one hop, so the
 * per-hop cost is part of alpha and hop reads as 0.  Read only. */
const ir_plan *model_defaults(const ir_plan *p, ir_plan *tmp);

int model_predict(const ir_plan *p, const ir_report *r, enum model_kind k,
                  double *us, double *phase_us, char *err, size_t errlen);

/* The time, in microseconds, that 000's closed forms give for its own
 * HPAM algorithms on machine m: the broadcast (eqs. 5-8), scatter (eqs.
 * 10-14) or gather (priced as the scatter, 000 §5) of c, with level 2 cut
 * into initial sub-meshes of p2 rows x q2 columns; hybrid (eqs. 5, 7, 10,
 * 12) or, with multicast, the inter-level replication (eqs. 6, 8, 11,
 * 14).  S is c->bytes: the message, or the block of each rank.  No plan is
 * built: this is what the hpam_* generators search their partition with;
 * model_predict(MODEL_HPAM) prices the plan they then emit (the two agree
 * within 0.25%, docs/cost-models.md).  Returns 0; CCP_ENOTAPPLY with the
 * reason in err when 000 writes no equation for it (not HPAM, another
 * collective, the root outside level 1, sub-meshes that do not tile level
 * 2, or a partition outside the algorithm's: q2 = 1 for multicast, r2 x
 * c2/2 for eq. 7, q2 <= c2/c1 for eqs. 10, 12); CCP_EINVAL with the field
 * in err when a cost it reads (c_send, c_recv, copy of both levels,
 * lambda) is unset or negative.  *us is NaN on failure.  m and c are
 * borrowed; err may be NULL with errlen 0. */
int model_hpam_closed(const ir_machine *m, const ir_comm *c, bool multicast,
                      int p2, int q2, double *us, char *err, size_t errlen);

/* The preset whose 000 Table 1 costs (Q = 2) stand in for every HPAM
 * cost field a machine leaves unset when the hpam_* generators choose
 * their partition. */
#define MODEL_HPAM_DEFAULT_PRESET "hpam-q2"

/* The price of one partition for HPAM's partition search, with the
 * signature of sch_options.hpam_price (schedules/sched.h): the time of
 * model_hpam_closed on m with every HPAM cost m leaves unset taken from
 * MODEL_HPAM_DEFAULT_PRESET.  ctx is unused (NULL).  0, CCP_ENOTAPPLY
 * where 000 writes no equation for the partition, CCP_EINVAL for a
 * negative cost; *us NaN on failure. */
int model_hpam_price(void *ctx, const ir_machine *m, const ir_comm *c,
                     bool multicast, int p2, int q2, double *us);

/* ---- simulation (sim.c) --------------------------------------------- */

/* What a simulated run of a plan gives.  Filled by model_simulate; the
 * caller releases it with model_sim_fini. */
struct model_sim {
	int32_t nranks;        /* entries of delivered */
	double *delivered;     /* per rank: when its last receive completed
	                          (receive overhead included); NaN for a rank
	                          that receives nothing.  Owned. */
	double max_us;         /* largest delivery time over receiving ranks
	                          (001 §3.3.5 "maximum broadcast latency") */
	double avg_us;         /* mean delivery time over receiving ranks
	                          (001 §3.3.5 "average broadcast latency") */
	double total_us;       /* time of the last event: the run's makespan */
	int32_t receivers;     /* ranks that receive at least one transfer */
	uint32_t messages;     /* network messages (a multicast group is one) */
	uint64_t events;       /* events the simulator processed */
	uint32_t max_share;    /* most messages streaming on one link at once
	                          (MODEL_LINKS_FIFO: 1) */
	uint32_t contended;    /* messages that shared a link at some moment
	                          (MODEL_LINKS_FIFO: whose header waited for
	                          a busy link) */
	double stall_us;       /* link contention: the sum over messages of
	                          the time their streaming took beyond bytes *
	                          beta (MODEL_LINKS_FIFO: of the time their
	                          headers waited for busy links) */
	double port_wait_us;   /* sum over messages of the time spent waiting
	                          for an injection or ejection port */
	double duplex_wait_us; /* sum over messages of the time they held
	                          every port they need but waited for a
	                          half-duplex rank (model_sim_opts); 0
	                          without half_duplex */
};

/* How a link carries the messages that want it at the same time (001
 * §4.2 describes both: "In the absence of multiple virtual channels ...
 * one of the messages will be blocked until the other has relinquished
 * the channel.  The presence of virtual channels allows the messages to
 * share the physical channel in a round-robin manner"). */
enum model_links {
	MODEL_LINKS_SHARED, /* virtual channels: a link's bandwidth is split
	                       equally among the messages streaming on it */
	MODEL_LINKS_FIFO    /* no virtual channels: a header takes its route's
	                       links one by one, waits first come first served
	                       at a busy one, and holds what it has taken
	                       until its tail is in (chained blocking) */
};

/* How to run a plan.  A NULL options pointer means all fields 0. */
struct model_sim_opts {
	bool barriers;    /* a phase's sends start only once every transfer
	                     of the phases before it is delivered, as the
	                     closed-form models assume; false (the default):
	                     no barriers, the way the runtime runs plans */
	bool half_duplex; /* a rank's send and receive of different partners
	                     are serialised: it never streams a message out
	                     while it streams one in, except a pairwise
	                     exchange (it sends to and receives from the same
	                     rank in the same phase), whose two halves
	                     overlap.  The node of the iPSC/860 (004 §2.2
	                     observation 1; preset ipsc860); ir_machine has
	                     no field for it.  false (the default): every
	                     rank sends and receives independently, up to its
	                     ports */
	enum model_links links; /* how messages share a link: MODEL_LINKS_SHARED
	                     (the default, 0) or MODEL_LINKS_FIFO */
	void (*progress)(void *arg, double fraction); /* NULL, or called
	                     now and then with the fraction of transfers
	                     delivered (0..1); the command draws it
	                     (compiler/progress.h) */
	void *progress_arg; /* progress's first argument */
};

/* Run plan p on its machine (p->machine: topology, routing, ports, nodes
 * and cost) as a wormhole-routed network (sim.c explains the event model;
 * docs/simulator.md its limits).  Needs alpha, beta, hop and gamma.  o
 * may be NULL.  out is overwritten.  Returns 0, CCP_EINVAL with a reason
 * in err (unset parameter, malformed plan, a transfer that can never
 * become ready), or CCP_ENOMEM.  p and o are borrowed. */
int model_simulate(const ir_plan *p, const struct model_sim_opts *o,
                   struct model_sim *out, char *err, size_t errlen);
/* Release what model_simulate allocated; out may be zeroed or filled. */
void model_sim_fini(struct model_sim *out);

#endif
