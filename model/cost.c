/*
 * cost.c - the papers' cost models, applied to a plan phase by phase, and
 * the table of named machines whose parameters the papers give.
 *
 * Each model prices one phase from what the phase contains (its
 * transfers, their sizes, route lengths and link loads under the
 * machine's routing); a plan's time is the sum over its phases, as every
 * paper sums its steps.  The models:
 *
 *   unicast      001 §4.4.2: a message over h hops costs
 *                alpha + h*hop + L*beta + gamma, and a rank's start-ups
 *                are serialised, so its k-th send of the phase arrives at
 *                k*alpha + h*hop + L*beta + gamma; the phase lasts until
 *                its last arrival.  For m equal sends from one rank this
 *                is 001's m*alpha + h*beta + L*beta + gamma.
 *   hpam         000 eq. 3: a transfer from level l to level k costs
 *                Gamma_lk + Omega_lk*S + Lambda*eta + t_cont; a rank's
 *                sends of one phase run one after another ("brute force",
 *                000 §3.1, as eq. 5 adds them); the phase lasts as long
 *                as its busiest sender.
 *   contention   003 §2: T = alpha + L*max(beta_ex, f*beta_sat), with L
 *                the phase's largest message and f its largest link load
 *                measured on the plan (not 003's per-algorithm formulas);
 *                in a plan that allows node contention, L*beta_ex is the
 *                most bytes through one rank's port (a body times the
 *                bodies before it on its sender's or receiver's ports).
 *   permutation  004 §2.1 assumption 1: tau + M*phi, M the phase's
 *                largest message.
 *
 * On a machine with several ranks per node, a transfer between two ranks
 * of one node uses no link: with a shared-memory cost (shm_alpha,
 * shm_beta) each model prices a phase as the larger of its network part
 * (its formula over the transfers between nodes) and its shared-memory
 * part, the busiest node's shm_alpha + (bytes of the phase's transfers
 * inside it) * shm_beta, plus every byte its receivers combine, the
 * node's memory being shared by them (the unicast model starts each at
 * its sender's serialised start-ups).
 * Without a shared-memory cost a transfer inside a node is priced as a
 * network transfer of 0 hops.
 *
 * Beside them, 000's closed forms (eqs. 5-14) of its own HPAM algorithms
 * for a given sub-mesh partition, without a plan: the HPAM generators
 * search their partition with them, and they take eq. 3's Gamma and
 * Omega from the same functions as the per-transfer hpam model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* ---- presets -------------------------------------------------------- */

#define U NAN /* the paper gives no value */

/* Positional ir_cost initialisers (designated ones would have to repeat
 * every unset field). */
#define COST(a, b, h, g, bs, t, f)                                             \
	{                                                                      \
		"", a, b, h, g, bs, t, f, {U, U}, {U, U}, {U, U}, U, U, U, U   \
	}
/* A machine of today: start-up, per byte on a link, and per byte through
 * a node's shared memory; the permutation model's tau and phi as alpha
 * and beta. */
#define COST_NODE(a, b, sb)                                                    \
	{                                                                      \
		"", a, b, U, U, U, a, b, {U, U}, {U, U}, {U, U}, U, U, U, sb   \
	}
/* 000 Table 1: C_send^1 = C_recv^1 = 2 us, C^2 = 2Q us, lambda'_1/W_1 =
 * 0.01 us/byte, lambda'_2/W_2 = 0.01Q us/byte, Lambda = 0.01 us/byte. */
#define HPAM_TABLE1(q)                                                         \
	{                                                                      \
		"", U, U, U, U, U, U, U, {2.0, 2.0 * (q)}, {2.0, 2.0 * (q)},   \
		        {0.01, 0.01 * (q)}, 0.01, U, U, U                      \
	}
/* One row of 001 Table 5.1 (ping-pong fits from [53], [86], [20] and the
 * author's own): T_s is the one-way start-up, T_n the time per byte, the
 * Hockney form T_s + T_n*L (001 §5.2). */
#define TABLE51(name, machine, ts, tn)                                         \
	{                                                                      \
		name, machine, "001 Table 5.1", NOTE51,                        \
		        COST(ts, tn, U, U, U, U, U)                            \
	}
#define NOTE51                                                                 \
	"alpha = T_s, beta = T_n; Table 5.1 fits one-way latency as "          \
	"T_s + T_n*L, with no separate per-hop or receive term: hop, "         \
	"gamma, beta_sat, tau, phi and the HPAM fields are unset"

static const struct model_preset presets[] = {
        /* 001 §3.3.5: "the simulated channel rate 0.45 microseconds per
         * byte, and a combined (sending and receiving) startup latency of
         * 170 microseconds" (Figures 3.14, 3.15). */
        {"ncube2", "nCUBE-2 latencies, as 001 simulates them on 3-port meshes",
         "001 §3.3.5",
         "beta 0.45 us/byte; the combined 170 us start-up split equally "
         "into alpha and gamma, as 001 §3.4.5 splits the T3D's; hop = "
         "beta because 001 §4.4.2 and §5.3 charge the header h*beta with "
         "the same beta (one-byte flits); beta_sat, tau, phi, HPAM unset",
         COST(85.0, 0.45, 0.45, 85.0, U, U, U)},
        /* 001 §4.4.3: "The simulated channel rate was 0.5 microseconds
         * per byte ... the sending latency and the receiving latency are
         * both set to 100 microseconds" (Figure 4.14(b)). */
        {"ncube2-torus", "nCUBE-2, as simulated for the torus in 001",
         "001 §4.4.3 (Figure 4.14(b))",
         "alpha = gamma = 100 us, beta 0.5 us/byte; hop = beta (001 "
         "§4.4.2); beta_sat, tau, phi, HPAM unset",
         COST(100.0, 0.5, 0.5, 100.0, U, U, U)},
        /* 001 §3.3.5: "300 MBytes/sec (0.0033 microseconds per byte, per
         * hop) and the combined sending and receiving latency is 1.5
         * microseconds"; §3.4.5: "1.5 microseconds (0.75 for sending,
         * and 0.75 for receiving)". */
        {"t3d", "Cray T3D, as simulated in 001 (MultiSim)",
         "001 §3.3.5, §3.4.5 (Figures 3.16, 3.17, 3.25(a))",
         "alpha = gamma = 0.75 us, beta = hop = 0.0033 us/byte per hop; "
         "beta_sat, tau, phi, HPAM unset",
         COST(0.75, 0.0033, 0.0033, 0.75, U, U, U)},
        /* 001 §3.4.5, Figure 3.25(b): "the sending latency is 0.075
         * microseconds, as is the receiving latency". */
        {"t3d-fast", "Cray T3D channels, start-up cut tenfold (001)",
         "001 §3.4.5 (Figure 3.25(b))",
         "alpha = gamma = 0.075 us, beta = hop = 0.0033 us/byte; "
         "beta_sat, tau, phi, HPAM unset",
         COST(0.075, 0.0033, 0.0033, 0.075, U, U, U)},
        /* 001 §5.4.2: "assume that alpha = gamma = 1.5, and beta = 0.009,
         * which are very similar to the T3D parameters [44]". */
        {"t3d-tau", "Cray T3D, as 001's tau-model example uses it",
         "001 §5.4.2",
         "alpha = gamma = 1.5 us, beta 0.009 us/byte; hop = beta (001 "
         "§5.3 latency alpha + h*beta + beta*L + gamma); beta_sat, tau, "
         "phi, HPAM unset",
         COST(1.5, 0.009, 0.009, 1.5, U, U, U)},
        /* 002 §3: "the parameters of Cray T3E, which are T_s = 1 usec,
         * T_f = 0.0029 usec [11]"; a message costs T_s + d*L_f/B + m/B
         * and the paper takes L_f = 1, so T_c = T_f. */
        {"t3e", "Cray T3E (002 Figure 6)", "002 §3 (Figure 6)",
         "alpha = T_s = 1 us, hop = T_f = 0.0029 us, beta = T_c = T_f "
         "(002 takes one-byte flits, L_f = 1); gamma (folded into T_s), "
         "beta_sat, tau, phi, HPAM unset",
         COST(1.0, 0.0029, 0.0029, U, U, U, U)},
        /* 003 §5: "for unforced messages alpha = 75us, beta_ex = 0.35us
         * and for forced messages alpha = 150us, beta_ex = 0.2us ... 2
         * beta_sat ~ beta_ex"; §2: beta_ex = 2^gamma beta_sat, gamma = 1
         * for the Delta. */
        {"delta-unforced",
         "Intel Touchstone Delta, unforced messages (< 1.5 KB)", "003 §5, §2",
         "alpha 75 us, beta = beta_ex 0.35 us/byte, beta_sat = beta_ex/2; "
         "003 assumes time independent of distance and gives no receive "
         "term: hop, gamma, tau, phi, HPAM unset",
         COST(75.0, 0.35, U, U, 0.175, U, U)},
        {"delta-forced", "Intel Touchstone Delta, forced messages (>= 1.5 KB)",
         "003 §5, §2",
         "alpha 150 us, beta = beta_ex 0.2 us/byte, beta_sat = beta_ex/2; "
         "hop, gamma, tau, phi, HPAM unset (as delta-unforced)",
         COST(150.0, 0.2, U, U, 0.1, U, U)},
        /* 000 Table 1, with the ratios 000 §3-5 evaluate (Q = 2, 8, 32) */
        {"hpam-q2", "two-level HPAM, level 2 twice as slow (Q = 2)",
         "000 Table 1",
         "C^1 = 2 us, C^2 = 2Q us, copy 0.01 and 0.01Q us/byte, Lambda "
         "0.01 us/byte; the unicast, contention and permutation fields "
         "are unset",
         HPAM_TABLE1(2.0)},
        {"hpam-q8", "two-level HPAM, Q = 8", "000 Table 1",
         "as hpam-q2 with Q = 8", HPAM_TABLE1(8.0)},
        {"hpam-q32", "two-level HPAM, Q = 32", "000 Table 1",
         "as hpam-q2 with Q = 32", HPAM_TABLE1(32.0)},
        /* 001 Table 5.1, one preset per row; the iPSC/860 row is also the
         * machine of 004, whose model it feeds. */
        TABLE51("t3d-max", "Cray T3D, MAX 1.2.0.2 (SM)", 3.0, 0.00781),
        TABLE51("paragon-sunmos", "Intel Paragon, SUNMOS 1.6.2", 25.0, 0.00585),
        TABLE51("delta-nx", "Intel Delta, NX 3.3.10", 77.0, 0.125),
        /* 004 gives no values for tau and phi (§2.1 defines them, §6
         * reports only measured totals); its machine is the iPSC/860
         * under NX, whose Table 5.1 row gives the same Hockney form. */
        {"ipsc860", "Intel iPSC/860, NX 3.3.2 (the machine of 004)",
         "001 Table 5.1; model of 004 §2.1",
         "alpha = tau = T_s, beta = phi = T_n: 004 prices a phase as "
         "tau + M*phi but gives no values, so the point-to-point fit of "
         "the same machine in 001 Table 5.1 stands in; hop, gamma, "
         "beta_sat, HPAM unset",
         COST(65.0, 0.333, U, U, U, 65.0, 0.333)},
        TABLE51("ipsc2-nx", "Intel iPSC/2, NX 3.3.2", 370.0, 0.357),
        TABLE51("sp1-mpl", "IBM SP-1, MPL", 270.0, 0.143),
        TABLE51("sp2-mpi", "IBM SP-2, MPI", 35.0, 0.0286),
        TABLE51("ksr1-osf", "KSR-1, OSF R1.2.2", 73.0, 0.125),
        TABLE51("cs2-solaris", "Meiko CS-2, Solaris 2.3 (SM)", 11.0, 0.0250),
        TABLE51("ncube2-vertex", "nCUBE-2, Vertex 2.0", 154.0, 0.589),
        TABLE51("ncube1-vertex", "nCUBE-1, Vertex 2.3", 384.0, 2.5),
        TABLE51("cenju3", "NEC Cenju-3, End. Rel. 1.5d (SM)", 34.0, 0.04),
        TABLE51("sgi-irix", "SGI, IRIX 6.1", 10.0, 0.0156),
        TABLE51("cm5-cmmd", "TMC CM-5, CMMD 2.0", 95.0, 0.111),
        TABLE51("ss20-atm-udp", "SPARCstation-20, FORE ASX-200, UDP", 716.0,
                0.16),
        TABLE51("ss20-atm-tcp", "SPARCstation-20, FORE ASX-200, TCP", 817.0,
                0.13),
        TABLE51("ss20-myrinet-udp", "SPARCstation-20, Myrinet, UDP", 746.0,
                0.18),
        TABLE51("ss20-myrinet-tcp", "SPARCstation-20, Myrinet, TCP", 807.0,
                0.152),
        TABLE51("ss20-unet-udp", "SPARCstation-20, U-Net, UDP", 65.0, 0.75),
        TABLE51("ss20-unet-tcp", "SPARCstation-20, U-Net, TCP", 75.0, 0.85),
        TABLE51("ss10-ethernet-tcp", "SPARCstation-10, Ethernet, TCP", 552.17,
                0.913),
        TABLE51("ss20-ethernet-tcp", "SPARCstation-20, Ethernet, TCP", 260.85,
                0.892),
        TABLE51("indy-ethernet-tcp", "SGI Indy, Ethernet, TCP", 294.45, 0.889),
        /* Machines of today (docs/machine-model.md, "Today's machines",
         * gives the shapes).  Tofu-D: a link carries 6.8 GB/s each way
         * (28 Gb/s x 2 lanes) and a put takes 0.49 us end to end (Ajima
         * et al., "The Tofu Interconnect D", IEEE Cluster 2018); an
         * A64FX node has 1,024 GB/s of HBM2 (Sato et al., SC20), and a
         * shared-memory transfer moves each byte four times (read and
         * write, into the shared buffer and out of it). */
        {"tofu-d", "Fugaku: Tofu-D links, A64FX node memory",
         "Ajima et al., IEEE Cluster 2018; Sato et al., SC20",
         "alpha = tau = 0.49 us (put latency), beta = phi = 1/6.8 GB/s; "
         "shm_beta = 4/1024 GB/s; hop, gamma, shm_alpha unset: fit them "
         "on the machine (ccplan tau fit)",
         COST_NODE(0.49, 1.0 / 6800.0, 4.0 / 1024000.0)},
        /* InfiniBand NDR: 400 Gb/s = 50 GB/s per port (IBTA); NVIDIA
         * states end-to-end latency below a microsecond for ConnectX-7,
         * taken as 1 us at the MPI level; a node of two AMD EPYC 9004
         * sockets has 2 x 12 DDR5-4800 channels, 921.6 GB/s. */
        {"ib-ndr", "InfiniBand NDR cluster, two-socket EPYC 9004 nodes",
         "IBTA NDR rate; NVIDIA ConnectX-7 data sheet; AMD EPYC 9004 "
         "memory channels",
         "alpha = tau = 1 us, beta = phi = 1/50 GB/s; shm_beta = "
         "4/921.6 GB/s; hop, gamma, shm_alpha unset: fit them on the "
         "machine (ccplan tau fit)",
         COST_NODE(1.0, 1.0 / 50000.0, 4.0 / 921600.0)},
        /* HPE Slingshot, a dragonfly of 64-port Rosetta switches, 200
         * Gb/s = 25 GB/s per port each way (De Sensi et al., "An
         * In-Depth Analysis of the Slingshot Interconnect", SC20; HPE's
         * data sheet).  Neither gives an end-to-end MPI latency in a
         * form to take, so alpha is an assumed 2 us, to be fitted. */
        {"slingshot", "HPE Slingshot dragonfly, 200 Gb/s ports",
         "De Sensi et al., SC20; HPE Slingshot data sheet",
         "alpha = tau = 2 us (assumed: fit it), beta = phi = 1/25 GB/s; "
         "hop, gamma, shm_alpha, shm_beta unset: fit them on the machine "
         "(ccplan tau fit)",
         COST(2.0, 1.0 / 25000.0, U, U, U, 2.0, 1.0 / 25000.0)},
};

#define NPRESETS (sizeof presets / sizeof presets[0])

const struct model_preset *model_preset_list(size_t *n)
{
	*n = NPRESETS;
	return presets;
}

const struct model_preset *model_preset_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < NPRESETS; i++)
		if (strcmp(presets[i].name, name) == 0)
			return &presets[i];
	return NULL;
}

/* Every cost field, for the loops that fill or check them all. */
#define NFIELDS 17
static void fields(ir_cost *c, double *f[NFIELDS])
{
	double *all[NFIELDS] = {&c->alpha,     &c->beta,      &c->hop,
	                        &c->gamma,     &c->beta_sat,  &c->tau,
	                        &c->phi,       &c->c_send[0], &c->c_send[1],
	                        &c->c_recv[0], &c->c_recv[1], &c->copy[0],
	                        &c->copy[1],   &c->lambda,    &c->combine,
	                        &c->shm_alpha, &c->shm_beta};
	memcpy(f, all, sizeof all);
}

/* Fill the unset fields of c from d (the user's values win). */
static void fill_unset(ir_cost *c, const ir_cost *d)
{
	double *fc[NFIELDS], *fd[NFIELDS];
	ir_cost copy = *d;
	fields(c, fc);
	fields(&copy, fd);
	for (int i = 0; i < NFIELDS; i++)
		if (isnan(*fc[i]))
			*fc[i] = *fd[i];
}

int model_preset_apply(ir_cost *c, const char *name)
{
	if (!name)
		name = c->preset;
	if (!name[0])
		return CCP_EINVAL;
	const struct model_preset *ps = model_preset_find(name);
	if (!ps)
		return CCP_ENOTFOUND;
	fill_unset(c, &ps->cost);
	if (c->preset != ps->name) {
		memset(c->preset, 0, sizeof c->preset);
		strncpy(c->preset, ps->name, sizeof c->preset - 1);
	}
	return 0;
}

int model_hpam_table1(double q, ir_cost *c)
{
	if (!(q > 0) || isinf(q))
		return CCP_EINVAL;
	ir_cost t = HPAM_TABLE1(q); /* 000 Table 1 */
	fill_unset(c, &t);
	return 0;
}

/* ---- model names ---------------------------------------------------- */

static const char *const kind_names[MODEL_NKINDS] = {
        "unicast", "hpam", "contention", "permutation"};

const char *model_kind_name(enum model_kind k)
{
	return (unsigned)k < MODEL_NKINDS ? kind_names[k] : "?";
}

int model_kind_find(const char *name, enum model_kind *k)
{
	for (int i = 0; i < MODEL_NKINDS; i++)
		if (name && strcmp(name, kind_names[i]) == 0) {
			*k = (enum model_kind)i;
			return 0;
		}
	return CCP_ENOTFOUND;
}

/* ---- parameter checks ----------------------------------------------- */

int model_need(const char *who, const struct model_param *p, int n,
                char *err, size_t len)
{
	size_t at = 0;
	int unset = 0, said = 0;

	for (int i = 0; i < n; i++) /* a bad value first: it is wrong, not missing */
		if (!isnan(p[i].v) && (p[i].v < 0 || isinf(p[i].v))) {
			snprintf(err, len,
			         "%s's %s (%s) is %g; it must be finite and not "
			         "negative",
			         who, p[i].field, p[i].what, p[i].v);
			return CCP_EINVAL;
		}
	for (int i = 0; i < n; i++)
		unset += isnan(p[i].v);
	if (!unset)
		return 0;
	/* every unset one at once: a user should not learn them one run at
	 * a time */
	at += (size_t)snprintf(err + at, at < len ? len - at : 0, "%s needs ",
	                       who);
	for (int i = 0; i < n; i++) {
		if (!isnan(p[i].v))
			continue;
		said++;
		at += (size_t)snprintf(err + at, at < len ? len - at : 0,
		                       "%s%s (%s)",
		                       said == 1       ? ""
		                       : said == unset ? " and "
		                                       : ", ",
		                       p[i].field, p[i].what);
	}
	snprintf(err + at, at < len ? len - at : 0,
	         ", which %s unset: give %s in the machine's cost, or a preset "
	         "that has %s",
	         unset > 1 ? "are" : "is", unset > 1 ? "them" : "it",
	         unset > 1 ? "them" : "it");
	return CCP_EINVAL;
}

/* The fields of 000 eq. 3 for the levels marked in used (0 = level 1):
 * c_send, c_recv and copy of each, and lambda.  Shared by the
 * per-transfer model and the closed forms. */
static int need_hpam(const ir_cost *c, const bool used[2], char *err,
                     size_t len)
{
	static const char *const field[2][3] = {
	        {"c_send[0] (level 1)", "c_recv[0] (level 1)",
	         "copy[0] (level 1)"},
	        {"c_send[1] (level 2)", "c_recv[1] (level 2)",
	         "copy[1] (level 2)"}};
	static const char *const what[3] = {"C_send, 000 eq. 3",
	                                    "C_recv, 000 eq. 3",
	                                    "lambda'/W, 000 eq. 3"};
	struct model_param want[7];
	int n = 0;
	for (int l = 0; l < 2; l++) {
		const double v[3] = {c->c_send[l], c->c_recv[l], c->copy[l]};
		for (int i = 0; i < 3 && used[l]; i++)
			want[n++] = (struct model_param){v[i], field[l][i],
			                                 what[i]};
	}
	want[n++] = (struct model_param){c->lambda, "lambda",
	                                 "Lambda = lambda/W, 000 eq. 3"};
	return model_need("the hpam model", want, n, err, len);
}


/* 000 eq. 3: Gamma_lk = C_send^l + C_recv^k and Omega_lk = lambda'_l/W_l +
 * lambda/W + lambda'_k/W_k for a message from level l to level k (0 =
 * level 1).  The one place both HPAM evaluations take them from. */
static double hpam_gamma(const ir_cost *c, int l, int k)
{
	return c->c_send[l] + c->c_recv[k];
}

static double hpam_omega(const ir_cost *c, int l, int k)
{
	return c->copy[l] + c->lambda + c->copy[k];
}

/* Level (0 or 1) of a rank: HPAM level, 0 on every other machine. */
static int level_of(const ir_machine *m, int32_t r)
{
	if (m->topo != IR_HPAM)
		return 0;
	int c[IR_MAX_CUBE_DIM];
	ir_coords(m, r, c);
	return c[2] == 1;
}

/* The fields each model reads.  HPAM reads the level-2 fields only when
 * some transfer starts or ends in level 2. */
static int check_params(const ir_plan *p, enum model_kind k, char *err,
                        size_t len)
{
	const ir_cost *c = &p->machine.cost;
	switch (k) {
	case MODEL_UNICAST: {
		const struct model_param want[] = {
		        {c->alpha, "alpha", "start-up per message, 001 alpha"},
		        {c->beta, "beta", "time per byte, 001 beta"},
		        {c->hop, "hop", "header time per hop, 001 h*beta"},
		        {c->gamma, "gamma", "receive overhead, 001 gamma"}};
		return model_need("the unicast model", want, 4, err, len);
	}
	case MODEL_HPAM: {
		bool used[2] = {false, false};
		used[0] = true; /* every non-HPAM machine is one level */
		if (p->machine.topo == IR_HPAM) {
			used[0] = false;
			for (uint32_t t = 0; t < p->ntransfers; t++) {
				used[level_of(&p->machine,
				              p->transfers[t].src)] = true;
				used[level_of(&p->machine,
				              p->transfers[t].dst)] = true;
			}
		}
		return need_hpam(c, used, err, len);
	}
	case MODEL_CONTENTION: {
		const struct model_param want[] = {
		        {c->alpha, "alpha", "start-up per message, 003 alpha"},
		        {c->beta, "beta",
		         "003 beta_ex, per byte without conflicts"},
		        {c->beta_sat, "beta_sat",
		         "003 beta_sat, per byte on a saturated link"}};
		return model_need("the contention model", want, 3, err, len);
	}
	case MODEL_PERMUTATION: {
		const struct model_param want[] = {
		        {c->tau, "tau", "004 tau, latency of a permutation"},
		        {c->phi, "phi", "004 phi, inverse transmission rate"}};
		return model_need("the permutation model", want, 2, err, len);
	}
	default:
		snprintf(err, len, "unknown cost model %d", (int)k);
		return CCP_EINVAL;
	}
}

/* ---- one phase at a time -------------------------------------------- */

/* The time per byte of combining a received partial: the machine's
 * combine cost, 0 when not given. */
static double combine_per_byte(const ir_cost *c)
{
	return ir_cost_has_combine(c) ? c->combine : 0;
}

/* A shared-memory cost field (shm_alpha, shm_beta), 0 when not given:
 * like combine, a machine may give one without the other. */
static double shm_cost(double v)
{
	return v > 0 ? v : 0;
}

/* A (link, send) pair of a phase, for counting link loads. */
struct use {
	uint64_t link;
	uint32_t send; /* the phase's transfer that opens the send */
	uint32_t t;    /* the transfer (index within the phase) */
};

static int cmp_use(const void *a, const void *b)
{
	const struct use *x = a, *y = b;
	if (x->link != y->link)
		return x->link < y->link ? -1 : 1;
	return (x->send > y->send) - (x->send < y->send);
}

/* A transfer inside a node, for the node's shared-memory part: when it
 * starts streaming through the node's memory, and for how long alone. */
struct shm_use {
	int32_t node;
	double at;    /* start of its streaming */
	double work;  /* bytes * shm_beta */
	double merge; /* bytes * combine when the receiver combines it */
};

static int cmp_shm_use(const void *a, const void *b)
{
	const struct shm_use *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->at < y->at) - (x->at > y->at); /* latest first */
}

/* Scratch shared by the phases. */
struct scan {
	const ir_plan *p;
	int32_t n;
	bool nodes;      /* several ranks per node */
	bool shm;        /* ... and a shared-memory cost: transfers inside a
	                    node form the phase's shared-memory part */
	uint64_t *route; /* ir_route_max entries */
	int32_t *hops;   /* per transfer of the phase */
	uint32_t *pos;   /* its send's 1-based place among the rank's sends */
	uint32_t *rpos;  /* its 1-based place among its receiver's receives */
	uint32_t *send;  /* index of the transfer opening its send */
	uint32_t *load;  /* most sends on one link of its route */
	double *price;   /* HPAM: cost of the send a transfer opens */
	double *lead;    /* unicast: when its send's start-up is over */
	bool *inside;    /* both ranks share a node (shared memory) */
	uint32_t cap;    /* entries of the eight arrays above */
	struct use *use; /* link uses of the phase */
	size_t nuse, capuse;
	struct shm_use *su; /* the phase's transfers inside nodes */
	size_t capsu;
	uint32_t *count;  /* per rank: sends so far in the phase */
	uint32_t *rcount; /* per rank: receives so far in the phase */
	uint32_t *mcast;  /* per rank: 1 + the phase-index of its open
	                     multicast send, 0 if none */
	double *busy;     /* per rank: HPAM sender time in the phase */
	double *merged;   /* per rank: bytes it combines in the phase so far */
	uint32_t *nshm;   /* per rank: its sends inside its node so far */
	int32_t *touched; /* ranks whose counters to reset */
	uint32_t ntouched;
};

static void scan_fini(struct scan *s)
{
	free(s->route);
	free(s->merged);
	free(s->hops);
	free(s->pos);
	free(s->rpos);
	free(s->send);
	free(s->load);
	free(s->price);
	free(s->lead);
	free(s->inside);
	free(s->use);
	free(s->su);
	free(s->count);
	free(s->rcount);
	free(s->mcast);
	free(s->busy);
	free(s->nshm);
	free(s->touched);
}

static int scan_init(struct scan *s, const ir_plan *p)
{
	memset(s, 0, sizeof *s);
	s->p = p;
	s->n = p->machine.nranks;
	size_t n = s->n > 0 ? (size_t)s->n : 1;
	s->route = malloc(((size_t)ir_route_max(&p->machine) + 1) *
	                  sizeof *s->route);
	s->count = calloc(n, sizeof *s->count);
	s->rcount = calloc(n, sizeof *s->rcount);
	s->mcast = calloc(n, sizeof *s->mcast);
	s->busy = calloc(n, sizeof *s->busy);
	s->merged = calloc(n, sizeof *s->merged);
	s->nshm = calloc(n, sizeof *s->nshm);
	s->touched = malloc(2 * n * sizeof *s->touched); /* senders, receivers */
	s->nodes = ir_machine_has_nodes(&p->machine);
	s->shm = s->nodes && ir_cost_has_shm(&p->machine.cost);
	if (!s->route || !s->count || !s->rcount || !s->mcast || !s->busy ||
	    !s->merged || !s->nshm || !s->touched) {
		scan_fini(s);
		return CCP_ENOMEM;
	}
	return 0;
}

/* Resize the array *arr to n elements of size bytes; false when out of
 * memory, *arr then still the old block (scan_fini frees it). */
static bool resize(void **arr, size_t n, size_t size)
{
	void *q = realloc(*arr, n * size);
	if (q)
		*arr = q;
	return q != NULL;
}

/* Route every transfer of phase ph: hops, send places, and (with loads)
 * the largest number of sends sharing a link of each route, a multicast
 * group counting once on the links its copies share (ir.h
 * IR_XF_MCAST).  *maxload gets the phase's largest link load. */
static int scan_phase(struct scan *s, uint32_t ph, bool loads,
                      uint32_t *maxload, char *err, size_t len)
{
	const ir_plan *p = s->p;
	const ir_machine *m = &p->machine;
	const ir_phase *f = &p->phases[ph];
	const ir_transfer *xs = p->transfers + f->transfer;
	uint32_t nt = f->ntransfers;
	if (nt > s->cap) {
		/* s->cap is raised only once all of them hold nt */
		if (!resize((void **)&s->hops, nt, sizeof *s->hops) ||
		    !resize((void **)&s->pos, nt, sizeof *s->pos) ||
		    !resize((void **)&s->rpos, nt, sizeof *s->rpos) ||
		    !resize((void **)&s->send, nt, sizeof *s->send) ||
		    !resize((void **)&s->load, nt, sizeof *s->load) ||
		    !resize((void **)&s->price, nt, sizeof *s->price) ||
		    !resize((void **)&s->lead, nt, sizeof *s->lead) ||
		    !resize((void **)&s->inside, nt, sizeof *s->inside))
			return CCP_ENOMEM;
		s->cap = nt;
	}
	s->nuse = 0;
	s->ntouched = 0;
	for (uint32_t t = 0; t < nt; t++) {
		const ir_transfer *x = &xs[t];
		int h = ir_route_xfer(m, x, s->route);
		bool inside = s->nodes &&
		              ir_node_of(m, x->src) == ir_node_of(m, x->dst);
		if (h < 0 || (h == 0 && !inside)) {
			snprintf(err, len,
			         "phase %u: no route from rank %d to rank %d",
			         ph, (int)x->src, (int)x->dst);
			return CCP_EINVAL;
		}
		/* a route set is longer than the path taken */
		s->hops[t] = ir_routing_adapts(m) ? ir_hops(m, x->src, x->dst)
		                                  : h;
		s->inside[t] = inside;
		if (s->count[x->src] == 0)
			s->touched[s->ntouched++] = x->src;
		if (s->rcount[x->dst] == 0)
			s->touched[s->ntouched++] = x->dst;
		s->rpos[t] = ++s->rcount[x->dst];
		if ((x->flags & IR_XF_MCAST) && s->mcast[x->src]) {
			s->send[t] = s->mcast[x->src] - 1; /* same send */
			s->pos[t] = s->pos[s->send[t]];
			s->lead[t] = s->lead[s->send[t]];
		} else {
			s->send[t] = t;
			s->pos[t] = ++s->count[x->src];
			if (x->flags & IR_XF_MCAST)
				s->mcast[x->src] = t + 1;
			/* the rank's start-ups so far: shm_alpha for each
			 * send inside its node, alpha for the others */
			uint32_t k = s->nshm[x->src] += s->shm && inside;
			s->lead[t] = (s->pos[t] - k) * m->cost.alpha +
			             (k ? k * shm_cost(m->cost.shm_alpha) : 0);
		}
		if (!loads)
			continue;
		if (s->nuse + (size_t)h > s->capuse) {
			size_t cap = s->capuse ? 2 * s->capuse : 1024;
			while (cap < s->nuse + (size_t)h)
				cap *= 2;
			struct use *u = realloc(s->use, cap * sizeof *u);
			if (!u)
				return CCP_ENOMEM;
			s->use = u;
			s->capuse = cap;
		}
		for (int j = 0; j < h; j++)
			s->use[s->nuse++] =
			        (struct use){s->route[j], s->send[t], t};
	}
	for (uint32_t k = 0; k < s->ntouched; k++) {
		s->count[s->touched[k]] = 0;
		s->rcount[s->touched[k]] = 0;
		s->mcast[s->touched[k]] = 0;
		s->nshm[s->touched[k]] = 0;
	}
	*maxload = 0;
	for (uint32_t t = 0; loads && t < nt; t++)
		s->load[t] = 0; /* a phase inside nodes only uses no link */
	if (!loads || !s->nuse)
		return 0;
	qsort(s->use, s->nuse, sizeof *s->use, cmp_use);
	for (size_t i = 0; i < s->nuse;) {
		size_t j = i;
		uint32_t sends = 0;
		for (; j < s->nuse && s->use[j].link == s->use[i].link; j++)
			if (j == i || s->use[j].send != s->use[j - 1].send)
				sends++;
		/* a link of capacity c carries c sends at full speed */
		sends = ir_link_phases(m, s->use[i].link, sends);
		for (size_t k = i; k < j; k++)
			if (sends > s->load[s->use[k].t])
				s->load[s->use[k].t] = sends;
		if (sends > *maxload)
			*maxload = sends;
		i = j;
	}
	return 0;
}

/* The largest message of phase ph, in bytes; skip, if not NULL, marks
 * transfers of the phase to leave out. */
static int64_t phase_max_bytes(const ir_plan *p, uint32_t ph,
                               const bool *skip)
{
	const ir_phase *f = &p->phases[ph];
	int64_t mx = 0;
	for (uint32_t t = 0; t < f->ntransfers; t++) {
		const ir_transfer *x = &p->transfers[f->transfer + t];
		if (skip && skip[t])
			continue;
		if (x->bytes > mx)
			mx = x->bytes;
	}
	return mx;
}

/* The most bytes one rank combines in phase ph: the partials it
 * receives (IR_XF_REDUCE) summed, for it combines them one after
 * another (a flat reduce's root combines N-1 of them); transfers marked
 * in skip (if not NULL) left out. */
static double phase_max_combined(struct scan *s, uint32_t ph, const bool *skip)
{
	const ir_phase *f = &s->p->phases[ph];
	const ir_transfer *xs = s->p->transfers + f->transfer;
	double most = 0;
	for (uint32_t t = 0; t < f->ntransfers; t++)
		if ((!skip || !skip[t]) && (xs[t].flags & IR_XF_REDUCE)) {
			s->merged[xs[t].dst] += (double)xs[t].bytes;
			most = fmax(most, s->merged[xs[t].dst]);
		}
	for (uint32_t t = 0; t < f->ntransfers; t++)
		s->merged[xs[t].dst] = 0;
	return most;
}

/* Whether phase ph has a transfer the network part prices: one between
 * nodes, or any when transfers inside a node are priced as network ones
 * (no shared-memory cost). */
static bool phase_has_net(const struct scan *s, uint32_t ph)
{
	uint32_t nt = s->p->phases[ph].ntransfers;
	for (uint32_t t = 0; t < nt; t++)
		if (!s->shm || !s->inside[t])
			return true;
	return false;
}

/* The phase's shared-memory part (s->shm): the transfers inside a node
 * stream through the node's memory, which passes shm_beta per byte in
 * all, shared by those streaming at once.  Transfer k starts at a_k
 * (serial: after its sender's start-ups, s->lead; otherwise shm_alpha
 * for all) with work w_k = bytes * shm_beta; the memory never idles
 * while work is left, so its last byte leaves at max_k (a_k + the work
 * of the transfers starting at or after a_k), shm_alpha + (bytes of the
 * node's transfers) * shm_beta when they start together.  The node's
 * combines follow, every byte its receivers combine (their sum: they
 * stream through the same memory, as the transfers do).  The largest
 * over nodes, in *us; 0 or CCP_ENOMEM. */
static int phase_shm(struct scan *s, uint32_t ph, bool serial, double *us)
{
	const ir_plan *p = s->p;
	const ir_cost *c = &p->machine.cost;
	const ir_phase *f = &p->phases[ph];
	size_t nu = 0;
	*us = 0;
	if (f->ntransfers > s->capsu) {
		struct shm_use *q = realloc(s->su, f->ntransfers * sizeof *q);
		if (!q)
			return CCP_ENOMEM;
		s->su = q;
		s->capsu = f->ntransfers;
	}
	for (uint32_t t = 0; t < f->ntransfers; t++) {
		const ir_transfer *x = &p->transfers[f->transfer + t];
		if (!s->inside[t])
			continue;
		double L = (double)x->bytes;
		s->su[nu++] = (struct shm_use){
		        ir_node_of(&p->machine, x->src),
		        serial ? s->lead[t] : shm_cost(c->shm_alpha),
		        L * shm_cost(c->shm_beta),
		        (x->flags & IR_XF_REDUCE) ? L * combine_per_byte(c)
		                                  : 0};
	}
	if (nu > 1)
		qsort(s->su, nu, sizeof *s->su, cmp_shm_use);
	for (size_t i = 0; i < nu;) {
		double run = 0, end = 0, merge = 0;
		size_t j = i;
		for (; j < nu && s->su[j].node == s->su[i].node; j++) {
			run += s->su[j].work;
			end = fmax(end, s->su[j].at + run);
			merge += s->su[j].merge;
		}
		*us = fmax(*us, end + merge);
		i = j;
	}
	return 0;
}

/* *us becomes the larger of itself (a phase's network part) and the
 * phase's shared-memory part with every transfer starting at shm_alpha
 * (the contention and permutation models have no serialised start-ups). */
static int phase_shm_max(struct scan *s, uint32_t ph, double *us)
{
	double shm;
	int rc = phase_shm(s, ph, false, &shm);
	if (!rc && shm > *us)
		*us = shm;
	return rc;
}

/* 001 §4.4.2: the k-th send of a rank leaves after k serialised
 * start-ups; a transfer over h hops then arrives h*hop + L*beta + gamma
 * later, and a partial is combined L*combine after that.  The phase ends
 * at its last arrival, or when the shared-memory part ends (phase_shm,
 * its transfers starting after their senders' start-ups), if later. */
/* How many bodies transfer t of phase ph (scanned) waits out, its own
 * included: 1 in a plan without contention.  A plan that allows it pays
 * for it: sends past the sender's ports, receives past the receiver's
 * (port_waits), and the sends sharing a link of its route (with link
 * contention the scan counted them) go one after another. */
static uint32_t port_waits(const struct scan *s, uint32_t ph, uint32_t t)
{
	const ir_plan *p = s->p;
	const ir_transfer *x = &p->transfers[p->phases[ph].transfer + t];
	uint32_t ps = (uint32_t)ir_port_limit(&p->machine, x->src);
	uint32_t pr = (uint32_t)ir_port_limit(&p->machine, x->dst);
	ps = ps ? ps : 1;
	pr = pr ? pr : 1;
	uint32_t w = (s->pos[t] + ps - 1) / ps, r = (s->rpos[t] + pr - 1) / pr;
	return r > w ? r : w ? w : 1;
}

static uint32_t waits(const struct scan *s, uint32_t ph, uint32_t t)
{
	const ir_plan *p = s->p;
	if (!(p->flags & (IR_PLAN_LINK_CONTENTION | IR_PLAN_NODE_CONTENTION)))
		return 1;
	uint32_t w = port_waits(s, ph, t);
	if ((p->flags & IR_PLAN_LINK_CONTENTION) && s->load[t] > w)
		w = s->load[t];
	return w;
}

/* The most bytes one transfer of phase ph (scanned) waits out, its own
 * included: its bytes times the bodies it waits for, on its ranks' ports
 * alone (ports) or on its ports and links (waits); transfers marked in
 * skip (if not NULL) left out. */
static double waited_bytes(const struct scan *s, uint32_t ph, const bool *skip,
                           bool ports)
{
	const ir_phase *f = &s->p->phases[ph];
	double most = 0;
	for (uint32_t t = 0; t < f->ntransfers; t++) {
		if (skip && skip[t])
			continue;
		double b = (double)s->p->transfers[f->transfer + t].bytes *
		           (ports ? port_waits(s, ph, t) : waits(s, ph, t));
		if (b > most)
			most = b;
	}
	return most;
}

static int phase_unicast(struct scan *s, uint32_t ph, double *us)
{
	const ir_plan *p = s->p;
	const ir_cost *c = &p->machine.cost;
	const ir_phase *f = &p->phases[ph];
	double worst = 0;
	int rc;
	if (s->shm && (rc = phase_shm(s, ph, true, &worst)) != 0)
		return rc;
	for (uint32_t t = 0; t < f->ntransfers; t++) {
		const ir_transfer *x = &p->transfers[f->transfer + t];
		if (s->shm && s->inside[t])
			continue;
		double at = s->lead[t] + s->hops[t] * c->hop +
		            (double)x->bytes * c->beta * waits(s, ph, t) +
		            c->gamma;
		if (x->flags & IR_XF_REDUCE) {
			/* after the partials its receiver combined before */
			s->merged[x->dst] += (double)x->bytes;
			at += s->merged[x->dst] * combine_per_byte(c);
		}
		if (at > worst)
			worst = at;
	}
	for (uint32_t t = 0; t < f->ntransfers; t++)
		s->merged[p->transfers[f->transfer + t].dst] = 0;
	*us = worst;
	return 0;
}

/* 000 eq. 3: t_comm^lk = Gamma_lk + Omega_lk*S + Lambda*eta + t_cont,
 * Gamma_lk = C_send^l + C_recv^k, Omega_lk = lambda'_l/W_l + lambda/W +
 * lambda'_k/W_k, Lambda = lambda/W.  t_cont, the time a message is
 * blocked (000 §2.4 gives no formula), is taken as (f - 1)*Lambda*S:
 * with f sends sharing a link round-robin, a message also waits out the
 * others' network time.  A rank's sends of a phase run one after another
 * (000 §3.1 "brute force", summed in eq. 5); a multicast group is one
 * send (000 §3.1 replication in the inter-level router), priced at its
 * costliest copy.  The phase lasts as long as its busiest sender. */
static double phase_hpam(struct scan *s, uint32_t ph)
{
	const ir_plan *p = s->p;
	const ir_machine *m = &p->machine;
	const ir_cost *c = &m->cost;
	const ir_phase *f = &p->phases[ph];
	const ir_transfer *xs = p->transfers + f->transfer;
	uint32_t nt = f->ntransfers;
	for (uint32_t t = 0; t < nt; t++)
		s->price[t] = 0;
	for (uint32_t t = 0; t < nt; t++) {
		const ir_transfer *x = &xs[t];
		int l = level_of(m, x->src), k = level_of(m, x->dst);
		double S = (double)x->bytes;
		double gam = hpam_gamma(c, l, k);
		double om = hpam_omega(c, l, k);
		double cont = (double)(s->load[t] > 1 ? s->load[t] - 1 : 0) *
		              c->lambda * S;
		double tc = gam + om * S + c->lambda * s->hops[t] + cont;
		if (tc > s->price[s->send[t]])
			s->price[s->send[t]] = tc;
	}
	s->ntouched = 0;
	for (uint32_t t = 0; t < nt; t++) {
		int32_t r = xs[t].src;
		if (s->send[t] != t)
			continue;
		if (s->count[r]++ == 0)
			s->touched[s->ntouched++] = r;
		s->busy[r] += s->price[t];
	}
	double worst = 0;
	for (uint32_t k = 0; k < s->ntouched; k++) {
		int32_t r = s->touched[k];
		if (s->busy[r] > worst)
			worst = s->busy[r];
		s->busy[r] = 0;
		s->count[r] = 0;
	}
	return worst;
}

/* The plan's shape, before any phase is priced: phases inside the
 * transfer array, ranks inside the machine, no transfer to itself. */
static int check_plan(const ir_plan *p, char *err, size_t len)
{
	int32_t n = p->machine.nranks;
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		const ir_phase *f = &p->phases[ph];
		if (f->transfer > p->ntransfers ||
		    f->ntransfers > p->ntransfers - f->transfer) {
			snprintf(err, len,
			         "phase %u names transfers [%u, +%u) outside "
			         "the plan's %u",
			         ph, f->transfer, f->ntransfers, p->ntransfers);
			return CCP_EINVAL;
		}
	}
	for (uint32_t t = 0; t < p->ntransfers; t++) {
		const ir_transfer *x = &p->transfers[t];
		if (x->src < 0 || x->src >= n || x->dst < 0 || x->dst >= n ||
		    x->src == x->dst || x->bytes < 0) {
			snprintf(err, len,
			         "transfer %u (%d -> %d, %lld bytes) does not "
			         "fit the machine's %d ranks",
			         t, (int)x->src, (int)x->dst,
			         (long long)x->bytes, (int)n);
			return CCP_EINVAL;
		}
	}
	return 0;
}

const ir_plan *model_defaults(const ir_plan *p, ir_plan *tmp)
{
	if (p->machine.topo != IR_SWITCH || !isnan(p->machine.cost.hop))
		return p;
	*tmp = *p; /* shallow: read only, never finalised */
	tmp->machine.cost.hop = 0;
	return tmp;
}

int model_predict(const ir_plan *p, const ir_report *r, enum model_kind k,
                  double *us, double *phase_us, char *err, size_t errlen)
{
	int rc;
	struct scan s;
	ir_plan tmp;
	p = model_defaults(p, &tmp);
	*us = 0;
	if (errlen)
		err[0] = '\0';
	if ((rc = check_params(p, k, err, errlen)) != 0 ||
	    (rc = check_plan(p, err, errlen)) != 0)
		return rc;
	const ir_cost *c = &p->machine.cost;
	bool report_loads = r && r->link_load && r->phases == p->nphases;
	if ((rc = scan_init(&s, p)) != 0)
		return rc;
	double total = 0;
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		double t = 0;
		uint32_t f = 0;
		switch (k) {
		case MODEL_UNICAST:
			rc = scan_phase(&s, ph,
			                (p->flags & IR_PLAN_LINK_CONTENTION) != 0,
			                &f, err, errlen);
			if (!rc)
				rc = phase_unicast(&s, ph, &t);
			break;
		case MODEL_HPAM:
			rc = scan_phase(&s, ph, true, &f, err, errlen);
			if (!rc)
				t = phase_hpam(&s, ph);
			break;
		case MODEL_CONTENTION: {
			/* 003 §2: T = alpha + L max(beta_ex, f(i) beta_sat),
			 * and R*combine for the largest partial R combined;
			 * with a shared-memory cost, over the transfers
			 * between nodes, against the shared-memory part */
			bool ports = p->flags & IR_PLAN_NODE_CONTENTION;
			if ((!report_loads || s.shm || ports) &&
			    (rc = scan_phase(&s, ph, !report_loads, &f, err,
			                     errlen)) != 0)
				break;
			if (report_loads) /* the scan counted none */
				f = r->link_load[ph];
			const bool *skip = s.shm ? s.inside : NULL;
			double L = (double)phase_max_bytes(p, ph, skip);
			double R = phase_max_combined(&s, ph, skip);
			/* a phase that overruns a rank's ports (a plan that
			 * allows node contention) is no phase of 003: the
			 * bodies through one port go one after another at
			 * beta_ex (port_waits), whatever the links' load f */
			double P = ports ? fmax(L, waited_bytes(&s, ph, skip,
			                                        true))
			                 : L;
			if (p->phases[ph].ntransfers && phase_has_net(&s, ph))
				t = c->alpha +
				    fmax(P * c->beta, L * f * c->beta_sat) +
				    R * combine_per_byte(c);
			if (s.shm)
				rc = phase_shm_max(&s, ph, &t);
			break;
		}
		case MODEL_PERMUTATION: {
			/* 004 §2.1: tau + M phi, and R*combine for the
			 * largest partial R combined; with a shared-memory
			 * cost, as the contention model */
			bool contended = p->flags & (IR_PLAN_LINK_CONTENTION |
			                             IR_PLAN_NODE_CONTENTION);
			if ((s.shm || contended) &&
			    (rc = scan_phase(&s, ph,
			                     (p->flags &
			                      IR_PLAN_LINK_CONTENTION) != 0,
			                     &f, err, errlen)) != 0)
				break;
			const bool *skip = s.shm ? s.inside : NULL;
			double M = (double)phase_max_bytes(p, ph, skip);
			/* a phase that is no permutation: the bodies that
			 * wait for each other (waits) */
			if (contended)
				M = fmax(M, waited_bytes(&s, ph, skip, false));
			double R = phase_max_combined(&s, ph, skip);
			if (p->phases[ph].ntransfers && phase_has_net(&s, ph))
				t = c->tau + M * c->phi + R * combine_per_byte(c);
			if (s.shm)
				rc = phase_shm_max(&s, ph, &t);
			break;
		}
		default:
			rc = CCP_EINVAL;
		}
		if (rc)
			goto out;
		if (phase_us)
			phase_us[ph] = t;
		total += t;
	}
	*us = total;
out:
	scan_fini(&s);
	return rc;
}

/* ---- 000's closed forms --------------------------------------------- */

/* An HPAM machine as 000 writes it, and the root's row in level 1. */
struct hpam_shape {
	int r1, c1, r2, c2; /* level l is r_l rows x c_l columns */
	int f;              /* c2 / c1 (000 eq. 1) */
	int y;              /* root row in level 1 */
};

/* ceil(lg v); 000's lg of a power of two. */
static int lg(int v)
{
	int k = 0;
	while ((1 << k) < v)
		k++;
	return k;
}

/* lg a (lg a + 1) and lg a (lg a - 1): 000's lg+ and lg- */
static double lgp(int v)
{
	return (double)lg(v) * (lg(v) + 1);
}

static double lgm(int v)
{
	return (double)lg(v) * (lg(v) - 1);
}

/* Whether 000 writes an equation for c on m with initial sub-meshes
 * p2 x q2: a two-level machine, broadcast, scatter or gather, the root in
 * level 1, sub-meshes tiling level 2, and the partition the algorithm's
 * equation is written for.  0 and *s filled, or CCP_ENOTAPPLY with the
 * reason in err. */
static int hpam_domain(const ir_machine *m, const ir_comm *c, bool multicast,
                       int p2, int q2, struct hpam_shape *s, char *err,
                       size_t len)
{
	if (m->topo != IR_HPAM) {
		snprintf(err, len,
		         "000's closed forms are for a two-level HPAM "
		         "machine; this is a %s",
		         ir_topo_name(m->topo));
		return CCP_ENOTAPPLY;
	}
	if (c->coll != IR_BCAST && c->coll != IR_SCATTER &&
	    c->coll != IR_GATHER) {
		snprintf(err, len,
		         "000's closed forms are for broadcast, scatter and "
		         "gather; this is a %s",
		         ir_coll_name(c->coll));
		return CCP_ENOTAPPLY;
	}
	s->r1 = m->levels[0][0];
	s->c1 = m->levels[0][1];
	s->r2 = m->levels[1][0];
	s->c2 = m->levels[1][1];
	int n1 = s->r1 * s->c1;
	if (s->r1 < 1 || s->c1 < 1 || s->r2 < 1 || s->c2 < s->c1) {
		snprintf(err, len,
		         "HPAM levels %dx%d over %dx%d: not a machine", s->r1,
		         s->c1, s->r2, s->c2);
		return CCP_ENOTAPPLY;
	}
	s->f = s->c2 / s->c1;
	if (c->root < 0 || c->root >= n1) {
		snprintf(err, len,
		         "000's closed forms have the root in level 1 (ranks "
		         "0..%d); root %d is not",
		         n1 - 1, (int)c->root);
		return CCP_ENOTAPPLY;
	}
	s->y = c->root / s->c1;
	if (p2 < 1 || q2 < 1 || s->r2 % p2 || s->c2 % q2) {
		snprintf(err, len,
		         "%dx%d sub-meshes do not tile the %dx%d second level",
		         p2, q2, s->r2, s->c2);
		return CCP_ENOTAPPLY;
	}
	if (multicast && q2 != 1) {
		snprintf(err, len,
		         "000 eqs. 6, 8, 11, 14 (multicast) are written for "
		         "p2 x 1 sub-meshes; q2 is %d",
		         q2);
		return CCP_ENOTAPPLY;
	}
	if (!multicast && c->coll == IR_BCAST && s->c1 >= 2 &&
	    (p2 != s->r2 || q2 != s->c2 / 2)) {
		snprintf(err, len,
		         "000 eq. 7 (hybrid broadcast, c1 >= 2) is written "
		         "for the r2 x c2/2 partition, %dx%d; %dx%d is not it",
		         s->r2, s->c2 / 2, p2, q2);
		return CCP_ENOTAPPLY;
	}
	if (!multicast && c->coll != IR_BCAST && q2 > s->f) {
		snprintf(err, len,
		         "000 eqs. 10, 12 (hybrid scatter) are written for "
		         "q2 <= f = c2/c1 = %d (case a; eq. 13 is not "
		         "modelled); q2 is %d",
		         s->f, q2);
		return CCP_ENOTAPPLY;
	}
	return 0;
}

/* The time of the hybrid or multicast algorithm for collective coll
 * (gather priced as scatter, 000 §5) with partition p2 x q2 and message
 * (broadcast) or block (scatter) size S, by the equations of 000 §3-5.
 * The level-1 hop term uses the root's row y (000 below eq. 7:
 * Lambda*(r1 - x) for a source in row x; the worst case is row 0). */
static double hpam_closed(const struct hpam_shape *s, const ir_cost *c,
                          enum ir_coll coll, bool multicast, double S, int p2,
                          int q2)
{
	double gam[2][2], om[2][2];
	for (int l = 0; l < 2; l++)
		for (int k = 0; k < 2; k++) {
			gam[l][k] = hpam_gamma(c, l, k); /* 000 eq. 3 */
			om[l][k] = hpam_omega(c, l, k);
		}
	double L = c->lambda;
	double A11 = gam[0][0] + om[0][0] * S; /* A_lk^S, 000 §3 */
	double A12 = gam[0][1] + om[0][1] * S;
	double A22 = gam[1][1] + om[1][1] * S;
	double down = (double)(s->r1 - s->y); /* hops to level-2 row 0 */
	double bands = (double)s->r2 / p2;
	double avg = down + (double)(s->r2 - p2) / 2; /* mean hops to a root */
	bool one = s->r1 * s->c1 == 1;
	/* B_lk^S(a, b) = a*Gamma_lk + b*S*Omega_lk (000 §4) */
#define B(l, k, a, b) ((a)*gam[l][k] + (b)*S * om[l][k])
	if (coll == IR_BCAST && !multicast && s->c1 >= 2) {
		/* 000 eq. 7 (fixed partition r2 x c2/2) */
		double t1 = (lg(s->r1) + lg(s->c1) - 1) * A11 +
		            L / 2 * (lgp(s->r1) + lgm(s->c1));
		double t2 = (lg(s->r2) + lg(s->c2) - 1) * A22 +
		            L / 2 * (lgp(s->r2) + lgm(s->c2));
		return A11 + L * s->c1 / 2 + A12 + L * down + fmax(t1, t2);
	}
	if (coll == IR_BCAST && !multicast) {
		/* 000 eq. 5, with the level-1 column tree beside level 2's */
		double t1 = lg(s->r1) * A11 + L / 2 * lgp(s->r1);
		double t2 =
		        (lg(p2) + lg(q2)) * A22 + L / 2 * (lgp(p2) + lgp(q2));
		return bands * ((double)s->c2 / q2) * (A12 + L * avg) +
		       fmax(t1, t2);
	}
	if (coll == IR_BCAST) {
		/* 000 eq. 8 for any p2 (eq. 6 when level 1 is one node) */
		double t0 = lg(s->c1) * (A11 + L / 2 * (lg(s->c1) + 1));
		double t1 = lg(s->r1) * A11 + L / 2 * lgp(s->r1);
		double t2 = lg(p2) * A22 + L / 2 * lgp(p2);
		return t0 + bands * (A12 + L * avg) + fmax(t1, t2);
	}
	/* scatter and gather (000 §5: gather is the reverse) */
	double t0 = 0, t1 = B(0, 0, lg(s->r1), s->r1 - 1) + L / 2 * lgp(s->r1);
	if (!one) /* partial scatter in the root's row, 000 eqs. 12, 14 */
		t0 = B(0, 0, lg(s->c1),
		       ((double)s->r2 * s->f + s->r1) * (s->c1 - 1)) +
		     L / 2 * lgp(s->c1);
	if (!multicast) { /* 000 eqs. 10, 12 (case a, q2 <= f) */
		double t2 = B(1, 1, lg(p2) + lg(q2), p2 * q2 - 1) +
		            L / 2 * (lgp(p2) + lgp(q2));
		return t0 +
		       ((double)s->f / q2) * bands *
		               (B(0, 1, 1, p2 * q2) + L * avg) +
		       fmax(t1, t2);
	}
	/* 000 eqs. 11, 14; eq. 11 prints the hop term as Lambda alone */
	double t2 = B(1, 1, lg(p2), p2 - 1) + L / 2 * lgp(p2);
	return t0 +
	       bands * (B(0, 1, 1, (double)p2 * s->f) + (one ? L : L * avg)) +
	       fmax(t1, t2);
#undef B
}

int model_hpam_closed(const ir_machine *m, const ir_comm *c, bool multicast,
                      int p2, int q2, double *us, char *err, size_t errlen)
{
	static const bool both[2] = {true, true};
	struct hpam_shape s;
	int rc;
	*us = NAN;
	if (errlen)
		err[0] = '\0';
	if ((rc = hpam_domain(m, c, multicast, p2, q2, &s, err, errlen)) ||
	    (rc = need_hpam(&m->cost, both, err, errlen)))
		return rc;
	enum ir_coll coll = c->coll == IR_GATHER ? IR_SCATTER : c->coll;
	*us = hpam_closed(&s, &m->cost, coll, multicast, (double)c->bytes, p2,
	                  q2);
	return 0;
}

/* The HPAM generators search their partition with the closed forms
 * (schedules/ has no model of its own: sch_options.hpam_price).  Every
 * HPAM cost the machine leaves unset comes from the preset of 000 Table
 * 1 with Q = 2, so an input that gives no costs still gets the paper's
 * choice of partition. */
int model_hpam_price(void *ctx, const ir_machine *m, const ir_comm *c,
                     bool multicast, int p2, int q2, double *us)
{
	(void)ctx;
	ir_machine full = *m; /* m, its unset HPAM costs filled */
	int rc = model_preset_apply(&full.cost, MODEL_HPAM_DEFAULT_PRESET);
	if (rc) {
		*us = NAN;
		return rc;
	}
	return model_hpam_closed(&full, c, multicast, p2, q2, us, NULL, 0);
}
