/*
 * fig5_support.h - what bench/bench_fig5.c and tests/model/test_fig5.c share to
 * recompute 004 Figure 5: the 64-node iPSC/860, 004 §6's execution scheme
 * S1 written as a plan, the simulated time of a plan, medians, and 004
 * Table 1.  docs/fig5-regions.md explains the method.
 *
 * Header-only (the bench and the test are separate executables).  No
 * cmocka and no output: failures come back as CCP_* codes with a reason
 * in err where there is one.
 */
#ifndef CCP_FIG5_SUPPORT_H
#define CCP_FIG5_SUPPORT_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "irregular.h"
#include "model.h"

/* The algorithms Figure 5 compares, in the order of every table. */
enum fig5_alg { FIG5_AC, FIG5_LP, FIG5_RS, FIG5_NALG };
static const enum sch_irr_alg fig5_sched[FIG5_NALG] = {SCH_IRR_AC, SCH_IRR_LP,
                                                       SCH_IRR_RS_NL};
static const char *const fig5_name[FIG5_NALG] = {"AC", "LP", "RS_NL"};

/* 004 Table 1 (64-node iPSC/860, means of 50 random patterns): the
 * communication cost in ms of AC, LP and RS_NL for d = 4 .. 48 and
 * M = 256, 1K, 128K, and the phases ("# iters") of RS_NL (LP's are
 * 63.00 at every d: n - 1). */
#define FIG5_T1_ND 5
#define FIG5_T1_NM 3
static const int32_t fig5_t1_d[FIG5_T1_ND] = {4, 8, 16, 32, 48};
static const int64_t fig5_t1_m[FIG5_T1_NM] = {256, 1024, 131072};
static const double fig5_t1_ms[FIG5_T1_ND][FIG5_T1_NM][FIG5_NALG] = {
        {{2.70, 28.13, 3.63}, {5.91, 34.31, 6.51}, {579.25, 1318.44, 486.11}},
        {{6.05, 30.48, 7.10},
         {14.00, 40.24, 13.16},
         {1378.55, 1898.21, 1008.68}},
        {{14.02, 33.92, 13.75},
         {33.00, 48.12, 25.86},
         {3211.79, 2610.74, 2018.77}},
        {{31.60, 38.67, 26.38},
         {75.27, 57.42, 49.52},
         {7176.16, 3271.96, 3854.76}},
        {{49.82, 41.58, 37.79},
         {117.18, 62.73, 69.42},
         {11188.30, 3631.69, 5260.51}},
};
static const double fig5_t1_rs_iters[FIG5_T1_ND] = {7.10, 11.92, 20.74, 37.76,
                                                    53.74};

/* The iPSC/860 of 004 §2.2 as a dim-cube (004 §6: dim = 6, 64 nodes):
 * e-cube routing, one send and one receive per node at a time (`ports:
 * one`, 004 §2.1 assumption 3), with preset ipsc860 (alpha = tau =
 * 65 us, beta = phi = 0.333 us/byte: 001 Table 5.1, NX 3.3.2) and the
 * values the preset leaves unset:
 *   hop = 0       001 Table 5.1 fits a message as T_s + T_n*L with no
 *                 distance term; 004 §1 (distance "becoming relatively
 *                 less and less important") and §2.2 observation 2
 *   gamma = 0     the same fit's T_s is the whole one-way start-up; a
 *                 receive overhead on top would count part of it twice
 *   beta_sat = phi, for the 003 contention model only: a saturated link
 *                 shared by f messages gives each 1/f of it.
 * alpha < 0 keeps the preset's; gamma and hop are as given (the bench
 * varies them).  The node's half-duplex behaviour (004 §2.2 observation
 * 1) is not a machine field: it is model_sim_opts.half_duplex, which
 * fig5_simulate takes.  0, or CCP_EINVAL with a reason in err. */
static inline int fig5_ipsc860(int dim, double alpha, double gamma, double hop,
                               ir_machine *m, char *err, size_t len)
{
	int rc;
	memset(m, 0, sizeof *m);
	m->topo = IR_HYPERCUBE;
	m->ndims = dim;
	m->dims[0] = m->dims[1] = m->dims[2] = 1;
	m->routing = IR_ROUTE_ECUBE;
	m->ports = 1;
	double *c[] = {
	        &m->cost.alpha,     &m->cost.beta,      &m->cost.hop,
	        &m->cost.gamma,     &m->cost.beta_sat,  &m->cost.tau,
	        &m->cost.phi,       &m->cost.c_send[0], &m->cost.c_send[1],
	        &m->cost.c_recv[0], &m->cost.c_recv[1], &m->cost.copy[0],
	        &m->cost.copy[1],   &m->cost.lambda};
	for (size_t k = 0; k < sizeof c / sizeof c[0]; k++)
		*c[k] = NAN;
	if ((rc = ir_machine_check(m, err, len)) != 0)
		return rc;
	if (model_preset_apply(&m->cost, "ipsc860") != 0) {
		snprintf(err, len, "preset ipsc860 not found");
		return CCP_EINVAL;
	}
	if (alpha >= 0)
		m->cost.alpha = alpha;
	m->cost.gamma = gamma;
	m->cost.hop = hop;
	m->cost.beta_sat = m->cost.phi;
	return 0;
}

/* Plan p (partial permutations: at most one receive per rank and phase)
 * as 004 §6 runs it under S1: "whenever a node needs to receive data at
 * one communication phase, it first posts its message buffer, then sends
 * a signal (0 bytes message) to the sender node.  Once the sender node
 * receives the signal, it sends out the data."  Phase k of p becomes a
 * signal phase (every receiver d -> its sender s, 0 bytes) and a data
 * phase (s -> d).  The simulator starts a transfer once its sender holds
 * every block it carries, so the order is written as blocks:
 *   - the signal of d in phase k carries a token (d, n + k) of its own,
 *     and the data s -> d carries that token too: the data waits for it;
 *   - both also carry the block of the last message their sender
 *     received before phase k: a node enters phase k only when its
 *     phase k-1 receive is complete.  Its phase k-1 send is complete
 *     too, since a one-port sender's next message waits for the port.
 * A node with nothing to receive in a phase sends no signal, and one
 * with nothing to do skips the phase: S1 has no global barrier.  A
 * pairwise exchange of p stays one in q: both signals share a phase, and
 * both data transfers.  q is for model_simulate only (the verifier would
 * refuse the tokens).  q is initialised in every case, the caller's to
 * ir_plan_fini.  0 or CCP_ENOMEM. */
static inline int fig5_s1_plan(const ir_plan *p, ir_plan *q)
{
	int32_t n = p->machine.nranks;
	int32_t *last = malloc((size_t)n * sizeof *last);
	int rc = CCP_ENOMEM;
	ir_plan_init(q, &p->machine, &p->comm, "s1");
	if (!last)
		return rc;
	for (int32_t r = 0; r < n; r++)
		last[r] = -1; /* source of r's last receive */
	for (uint32_t k = 0; k < p->nphases; k++) {
		const ir_transfer *xs = p->transfers + p->phases[k].transfer;
		uint32_t nt = p->phases[k].ntransfers;
		int32_t tok = n + (int32_t)k;
		if ((rc = ir_plan_phase(q)) != 0)
			goto out;
		for (uint32_t t = 0; t < nt; t++) {
			int32_t s = xs[t].src, d = xs[t].dst;
			ir_block b[2] = {{d, tok}, {last[d], d}};
			if ((rc = ir_plan_add(q, d, s, b, last[d] < 0 ? 1 : 2,
			                      0)) != 0)
				goto out;
			q->transfers[q->ntransfers - 1].bytes = 0;
		}
		if ((rc = ir_plan_phase(q)) != 0)
			goto out;
		for (uint32_t t = 0; t < nt; t++) {
			int32_t s = xs[t].src, d = xs[t].dst;
			ir_block b[3] = {{s, d}, {d, tok}, {last[s], s}};
			if ((rc = ir_plan_add(q, s, d, b, last[s] < 0 ? 2 : 3,
			                      0)) != 0)
				goto out;
			q->transfers[q->ntransfers - 1].bytes = xs[t].bytes;
		}
		for (uint32_t t = 0; t < nt; t++)
			last[xs[t].dst] = xs[t].src;
	}
out:
	free(last);
	return rc;
}

/* Every message of p M bytes: the plan of an equal-size pattern does not
 * depend on the size (the schedulers draw no number from it), and the
 * model and the simulator read only the transfers' bytes.  0-byte
 * transfers (S1's signals) stay 0. */
static inline void fig5_set_bytes(ir_plan *p, int64_t M)
{
	for (uint32_t t = 0; t < p->ntransfers; t++)
		if (p->transfers[t].bytes > 0)
			p->transfers[t].bytes = M;
}

/* Whether a verified plan is what 004 §2.1 prices: a sequence of node-
 * and link-contention-free partial permutations. */
static inline bool fig5_permutations(const ir_plan *p, const ir_report *r)
{
	return !p->flags && r->max_link_load <= 1 && r->max_node_sends <= 1 &&
	       r->max_node_recvs <= 1;
}

/* The simulated time of plan p into *us: its last delivery, "the maximum
 * time spent by any processor" that 004 §6 reports.  half_duplex: the
 * iPSC/860 node (model_sim_opts).  0 or model_simulate's error. */
static inline int fig5_simulate(const ir_plan *p, bool barriers,
                                bool half_duplex, double *us, char *err,
                                size_t len)
{
	struct model_sim_opts o = {.barriers = barriers,
	                           .half_duplex = half_duplex};
	struct model_sim out;
	int rc = model_simulate(p, &o, &out, err, len);
	if (rc)
		return rc;
	*us = out.max_us;
	model_sim_fini(&out);
	return 0;
}

static inline int fig5_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median of v[0..n), n > 0 (v is sorted in place). */
static inline double fig5_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, fig5_cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The fastest of t[0..FIG5_NALG) (the first on a tie). */
static inline int fig5_best(const double t[FIG5_NALG])
{
	int best = 0;
	for (int a = 1; a < FIG5_NALG; a++)
		if (t[a] < t[best])
			best = a;
	return best;
}

#endif
