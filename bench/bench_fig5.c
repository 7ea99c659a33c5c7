/*
 * bench_fig5.c - 004 Figure 5 recomputed: on the 64-node iPSC/860 (a
 * 6-cube, e-cube routing, one send and one receive at a time per node,
 * 004 §2.1 assumption 3 and §2.2), which of AC, LP and RS_NL moves a
 * random d-regular pattern of M-byte messages fastest, for every density
 * d and message size M of the sweep.  docs/fig5-regions.md shows and
 * discusses what it prints.
 *
 * Each plan is timed these ways (medians over the seeds):
 *   model     004 §2.1 assumption 1: a partial permutation costs
 *             tau + M*phi (model_predict, MODEL_PERMUTATION).  It applies
 *             to LP and RS_NL, whose phases the verifier proves to be
 *             contention-free partial permutations.  AC's single phase is
 *             not one, and 004 gives AC no cost (§3: its time "will
 *             depend on the congestion and contention on the nodes and
 *             the network").  Its closed-form floor under 004's own
 *             assumptions is max(D, f) permutation times, D the most
 *             messages one node sends or receives (assumption 3: one at a
 *             time), f the most circuits on one link (§5: a claimed path
 *             excludes the others).
 *   S2        the simulator (model_simulate) on the plan as it is, no
 *             barriers: 004 §6's scheme S2, "post all receives, send
 *             everything".  The scheme 004 ran AC with.
 *   S1        the simulator on fig5_s1_plan(plan): 004 §6's scheme S1,
 *             with a 0-byte ready signal from receiver to sender in
 *             every phase.  The scheme 004 ran LP and RS_NL with.
 *   barrier   the simulator with a global barrier after every phase: the
 *             phase synchronisation 004's algorithms assume (§6).
 * The simulator runs with the iPSC/860's node (model_sim_opts.half_duplex,
 * 004 §2.2 observation 1: a node's send and receive of different
 * partners go one after the other, a pairwise exchange overlaps), and,
 * for comparison, with independent send and receive ports ("full").
 * With full ports, hop = gamma = 0 and barriers the simulator must equal
 * the model on LP and RS_NL; that is printed as a check.
 *
 * Region maps (rows d, columns M, cell the winner's letter, lower case
 * when the runner-up is within CLOSE):
 *   (a)  the 004 model for LP and RS_NL, AC simulated under S2 (004
 *        measured AC; no closed form prices its contention);
 *   (a') the 004 model for all three, AC at its floor max(D, f);
 *   (b)  the simulator, iPSC/860 node, 004's schemes: AC S2, LP and
 *        RS_NL S1;
 *   (b0) the same with full ports (what map (b) was before the node
 *        behaviour was modelled);
 *   (b') the simulator, iPSC/860 node, every algorithm under S2.
 * Then 004 Table 1 beside (b), the cost of a phase in message times, and
 * every median.
 *
 * Usage: bench_fig5 [SEEDS [ALPHA [GAMMA [HOP]]]]
 *   SEEDS  patterns per density (default 25; 004 §6 used 50)
 *   ALPHA  start-up per message, us (default 65, the preset's T_s)
 *   GAMMA  receive overhead, us (default 0)
 *   HOP    header time per hop, us (default 0)
 * ALPHA, GAMMA and HOP change the simulator only, to see how far the
 * maps depend on them; the model keeps tau = 65 us.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "irregular.h"
#include "matrix.h"
#include "model.h"

#include "../tests/fig5_support.h"

#define NDIM      6  /* 2^6 = 64 nodes, 004 §6 */
#define M_MIN     16 /* 004 §6: "message sizes of range 16 bytes */
#define NSIZES    14 /* to 128K bytes": 16 .. 131072, powers of 2 */
#define MAX_SEEDS 200
#define CLOSE     0.05 /* a winner by less than 5% is printed lower case */

/* Densities: 004 Table 1's 4 .. 48, and 2 below it. */
static const int32_t dens[] = {2, 4, 8, 16, 32, 48};
#define NDENS (int)(sizeof dens / sizeof dens[0])

enum { AC = FIG5_AC, LP = FIG5_LP, RS = FIG5_RS, NALG = FIG5_NALG };
static const char letter[NALG] = {'A', 'L', 'R'};

/* How one plan is timed (above): the model, the 003 contention model,
 * and the simulator with the iPSC/860 node (S2, S1, barriers) and with
 * full ports (S2F, S1F, BAR).  AC has a single phase, so S1 and barriers
 * do not apply to it: they are its S2. */
enum timing {
	T_MODEL,
	T_C003,
	T_S2,
	T_S1,
	T_BARH,
	T_S2F,
	T_S1F,
	T_BAR,
	NTIMING
};

/* Which timing of each algorithm a region map compares. */
struct map {
	const char *title;
	enum timing use[NALG];
};
static const struct map maps[] = {
        {"(a) 004 model (tau + M*phi per permutation) for LP and RS_NL; "
         "AC simulated under S2",
         {T_S2, T_MODEL, T_MODEL}},
        {"(a') 004 model for all three; AC at its floor max(D, f) "
         "permutations",
         {T_MODEL, T_MODEL, T_MODEL}},
        {"(b) simulator, iPSC/860 node (half-duplex), 004's schemes: AC "
         "S2, LP and RS_NL S1",
         {T_S2, T_S1, T_S1}},
        {"(b0) simulator, full ports (independent send and receive), "
         "004's schemes",
         {T_S2F, T_S1F, T_S1F}},
        {"(b') simulator, iPSC/860 node, every algorithm under S2",
         {T_S2, T_S2, T_S2}},
};
#define NMAPS  (int)(sizeof maps / sizeof maps[0])
#define MAP_A  0
#define MAP_B  2
#define MAP_B0 3

/* What one pattern's plans looked like (the same for every M). */
struct shape {
	double phases[NALG]; /* phases of each plan */
	double ac_degree;    /* AC: most messages one node sends or gets */
	double ac_load;      /* AC: most circuits on one directed link */
};

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench_fig5: %s: %s\n", what, why);
	exit(3);
}

/* Simulated time of plan p (fig5_simulate), us. */
static double simulate(const ir_plan *p, bool barriers, bool half_duplex)
{
	char err[256];
	double us;
	if (fig5_simulate(p, barriers, half_duplex, &us, err, sizeof err) != 0)
		die("simulator", err);
	return us;
}

/* Time pattern x (seed: its scheduler seed) under every algorithm and
 * timing, for every message size, into t (us); describe the plans in
 * sh. */
static void run_pattern(const ir_machine *m, const ir_matrix *x, uint64_t seed,
                        double t[NSIZES][NALG][NTIMING], struct shape *sh)
{
	char err[256];
	for (int a = 0; a < NALG; a++) {
		ir_plan p, q;
		ir_report r;
		uint32_t D = 0, f = 0;
		memset(&r, 0, sizeof r);
		if (sch_irregular(m, x, fig5_sched[a], seed, &p) != 0)
			die(fig5_name[a], "scheduling failed");
		if (ir_verify(&p, &r) != 0)
			die(fig5_name[a], r.message);
		if (a != AC && !fig5_permutations(&p, &r))
			die(fig5_name[a],
			    "not a sequence of contention-free permutations");
		sh->phases[a] = p.nphases;
		if (a == AC) {
			D = r.max_node_sends > r.max_node_recvs
			            ? r.max_node_sends
			            : r.max_node_recvs;
			f = r.max_link_load;
			sh->ac_degree = D;
			sh->ac_load = f;
		} else if (fig5_s1_plan(&p, &q) != 0) {
			die("s1", "out of memory");
		}
		for (int k = 0; k < NSIZES; k++) {
			double *tk = t[k][a], us;
			fig5_set_bytes(&p, (int64_t)M_MIN << k);
			if (model_predict(&p, &r, MODEL_PERMUTATION, &us, NULL,
			                  err, sizeof err) != 0)
				die("model", err);
			/* AC: 004 assumption 3 and §5, its floor */
			tk[T_MODEL] = a == AC ? us * (D > f ? D : f) : us;
			if (model_predict(&p, &r, MODEL_CONTENTION, &us, NULL,
			                  err, sizeof err) != 0)
				die("model", err);
			tk[T_C003] = us;
			tk[T_S2] = simulate(&p, false, true);
			tk[T_S2F] = simulate(&p, false, false);
			if (a == AC) {
				tk[T_S1] = tk[T_BARH] = tk[T_S2];
				tk[T_S1F] = tk[T_BAR] = tk[T_S2F];
				continue;
			}
			tk[T_BARH] = simulate(&p, true, true);
			tk[T_BAR] = simulate(&p, true, false);
			fig5_set_bytes(&q, (int64_t)M_MIN << k);
			tk[T_S1] = simulate(&q, false, true);
			tk[T_S1F] = simulate(&q, false, false);
		}
		if (a != AC)
			ir_plan_fini(&q);
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
}

/* Medians over the seeds, ms (as 004 Table 1): med[d][M][alg][timing]. */
static double med[NDENS][NSIZES][NALG][NTIMING];
static double shape_med[NDENS][NALG + 2];
static double worst_barrier_gap; /* largest |barrier - model| / model */

static void sweep(const ir_machine *m, int seeds)
{
	static double v[NSIZES][NALG][NTIMING][MAX_SEEDS];
	static double sv[NALG + 2][MAX_SEEDS];
	static double t[NSIZES][NALG][NTIMING];
	for (int di = 0; di < NDENS; di++) {
		int32_t d = dens[di];
		for (int s = 0; s < seeds; s++) {
			/* test_irregular's Table 1 matrix seeds; RS_NL
			 * is scheduled with the same number */
			uint64_t seed = 1000 * (uint64_t)d + (uint64_t)s;
			ir_matrix *x = ir_matrix_regular(m->nranks, d, 1, seed);
			struct shape sh = {0};
			if (!x)
				die("matrix", "ir_matrix_regular failed");
			run_pattern(m, x, seed, t, &sh);
			for (int k = 0; k < NSIZES; k++)
				for (int a = 0; a < NALG; a++) {
					for (int e = 0; e < NTIMING; e++)
						v[k][a][e][s] = t[k][a][e];
					double g = fabs(t[k][a][T_BAR] -
					                t[k][a][T_MODEL]) /
					           t[k][a][T_MODEL];
					if (a != AC && g > worst_barrier_gap)
						worst_barrier_gap = g;
				}
			for (int a = 0; a < NALG; a++)
				sv[a][s] = sh.phases[a];
			sv[NALG][s] = sh.ac_degree;
			sv[NALG + 1][s] = sh.ac_load;
			ir_matrix_free(x);
		}
		for (int k = 0; k < NSIZES; k++)
			for (int a = 0; a < NALG; a++)
				for (int e = 0; e < NTIMING; e++)
					med[di][k][a][e] =
					        fig5_median(v[k][a][e], seeds) /
					        1e3;
		for (int j = 0; j < NALG + 2; j++)
			shape_med[di][j] = fig5_median(sv[j], seeds);
	}
}

/* The winner among t[0..NALG): its letter, lower case if the runner-up
 * is within CLOSE of it. */
static char winner(const double t[NALG])
{
	int best = fig5_best(t), second = -1;
	for (int a = 0; a < NALG; a++)
		if (a != best && (second < 0 || t[a] < t[second]))
			second = a;
	char c = letter[best];
	if (t[second] < t[best] * (1 + CLOSE))
		c = (char)(c - 'A' + 'a');
	return c;
}

static char map_cell(const struct map *mp, int di, int k)
{
	double t[NALG];
	for (int a = 0; a < NALG; a++)
		t[a] = med[di][k][a][mp->use[a]];
	return winner(t);
}

static void size_label(char *buf, size_t len, int64_t M)
{
	if (M >= 1024)
		snprintf(buf, len, "%lldK", (long long)(M / 1024));
	else
		snprintf(buf, len, "%lld", (long long)M);
}

static void print_map(const struct map *mp)
{
	char lab[32];
	printf("\n%s\n\n| d \\ M |", mp->title);
	for (int k = 0; k < NSIZES; k++) {
		size_label(lab, sizeof lab, (int64_t)M_MIN << k);
		printf(" %s |", lab);
	}
	printf("\n|---|");
	for (int k = 0; k < NSIZES; k++)
		printf("---|");
	printf("\n");
	for (int di = 0; di < NDENS; di++) {
		printf("| %d |", (int)dens[di]);
		for (int k = 0; k < NSIZES; k++)
			printf(" %c |", map_cell(mp, di, k));
		printf("\n");
	}
}

/* 004 Table 1 beside map (b): the measured ms and winner, the simulated
 * ms and winner, and the winners of maps (b0) and (a). */
static void print_table1(void)
{
	char lab[32];
	printf("\n004 Table 1 (iPSC/860, ms, means of 50) beside the "
	       "simulator, iPSC/860 node, under\n004's schemes (ms, "
	       "medians), and the winners of maps (b), (b0) and (a)\n\n"
	       "| d | M | 004 AC | 004 LP | 004 RS_NL | sim AC | sim LP | "
	       "sim RS_NL | 004 | (b) | (b0) | (a) |\n"
	       "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < FIG5_T1_ND; i++) {
		int di = 0;
		while (dens[di] != fig5_t1_d[i])
			di++;
		for (int j = 0; j < FIG5_T1_NM; j++) {
			int k = 0;
			while (((int64_t)M_MIN << k) != fig5_t1_m[j])
				k++;
			double(*c)[NTIMING] = med[di][k];
			const double *t1 = fig5_t1_ms[i][j];
			size_label(lab, sizeof lab, fig5_t1_m[j]);
			printf("| %d | %s | %.2f | %.2f | %.2f | %.2f | %.2f | "
			       "%.2f | %c | %c | %c | %c |\n",
			       (int)fig5_t1_d[i], lab, t1[AC], t1[LP], t1[RS],
			       c[AC][T_S2], c[LP][T_S1], c[RS][T_S1],
			       winner(t1), map_cell(&maps[MAP_B], di, k),
			       map_cell(&maps[MAP_B0], di, k),
			       map_cell(&maps[MAP_A], di, k));
		}
	}
}

/* What one phase of LP and RS_NL costs at 128K, in message times
 * (alpha + M*beta): 004 Table 1 (its cost over its "# iters"; LP 63),
 * and the simulator's medians over the median phase count. */
static void print_phase_cost(const ir_machine *m)
{
	int k = NSIZES - 1;
	double M = (double)((int64_t)M_MIN << k);
	double unit = (m->cost.tau + M * m->cost.phi) / 1e3; /* ms */
	printf("\nOne phase at %gK, in message times (tau + M*phi = %.2f "
	       "ms): 004 Table 1, and the\nsimulator with the iPSC/860 "
	       "node (S1, barriers) and with full ports (S1)\n\n| d | 004 "
	       "LP | 004 RS_NL | S1 LP | S1 RS_NL | barrier LP | barrier "
	       "RS_NL | full S1 LP | full S1 RS_NL |\n|---|---|---|---|---|"
	       "---|---|---|---|\n",
	       M / 1024, unit);
	for (int i = 0; i < FIG5_T1_ND; i++) {
		int di = 0;
		while (dens[di] != fig5_t1_d[i])
			di++;
		double lp = unit * shape_med[di][LP],
		       rs = unit * shape_med[di][RS];
		double(*c)[NTIMING] = med[di][k];
		printf("| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f "
		       "| %.2f |\n",
		       (int)fig5_t1_d[i],
		       fig5_t1_ms[i][FIG5_T1_NM - 1][LP] / (63 * unit),
		       fig5_t1_ms[i][FIG5_T1_NM - 1][RS] /
		               (fig5_t1_rs_iters[i] * unit),
		       c[LP][T_S1] / lp, c[RS][T_S1] / rs, c[LP][T_BARH] / lp,
		       c[RS][T_BARH] / rs, c[LP][T_S1F] / lp,
		       c[RS][T_S1F] / rs);
	}
}

static void print_medians(void)
{
	char lab[32];
	printf("\nMedians, ms.  model: 004 §2.1 (AC: its floor); AC 003: "
	       "the 003 contention model;\nS2, S1, bar (barriers): the "
	       "simulator, iPSC/860 node; full: full ports\n\n| d | M | "
	       "model AC | model LP | model RS_NL | AC 003 | S2 AC | S1 LP | "
	       "S1 RS_NL | S2 LP | S2 RS_NL | bar LP | bar RS_NL | full S2 "
	       "AC | full S1 LP | full S1 RS_NL |\n|---|---|---|---|---|---|"
	       "---|---|---|---|---|---|---|---|---|---|\n");
	for (int di = 0; di < NDENS; di++)
		for (int k = 0; k < NSIZES; k++) {
			double(*c)[NTIMING] = med[di][k];
			size_label(lab, sizeof lab, (int64_t)M_MIN << k);
			printf("| %d | %s | %.3f | %.3f | %.3f | %.3f | %.3f "
			       "| %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | "
			       "%.3f | %.3f | %.3f |\n",
			       (int)dens[di], lab, c[AC][T_MODEL],
			       c[LP][T_MODEL], c[RS][T_MODEL], c[AC][T_C003],
			       c[AC][T_S2], c[LP][T_S1], c[RS][T_S1],
			       c[LP][T_S2], c[RS][T_S2], c[LP][T_BARH],
			       c[RS][T_BARH], c[AC][T_S2F], c[LP][T_S1F],
			       c[RS][T_S1F]);
		}
}

/* argv[i] as a number >= 0 into *v (left alone if absent); false if it
 * is present but not such a number. */
static bool arg(int argc, char **argv, int i, double *v)
{
	char *end;
	if (argc <= i)
		return true;
	*v = strtod(argv[i], &end);
	return end != argv[i] && *end == '\0' && *v >= 0 && isfinite(*v);
}

int main(int argc, char **argv)
{
	double seeds_d = 25, alpha = -1, gamma = 0,
	       hop = 0; /* alpha -1: preset */
	if (!arg(argc, argv, 1, &seeds_d) || !arg(argc, argv, 2, &alpha) ||
	    !arg(argc, argv, 3, &gamma) || !arg(argc, argv, 4, &hop) ||
	    argc > 5 || seeds_d < 1 || seeds_d > MAX_SEEDS ||
	    seeds_d != floor(seeds_d)) {
		fprintf(stderr,
		        "usage: bench_fig5 [SEEDS 1..%d [ALPHA [GAMMA "
		        "[HOP]]]] (us, >= 0)\n",
		        MAX_SEEDS);
		return 2;
	}
	int seeds = (int)seeds_d;
	ir_machine m;
	char err[256];
	if (fig5_ipsc860(NDIM, alpha, gamma, hop, &m, err, sizeof err) != 0)
		die("machine", err);
	printf("004 Figure 5 recomputed: 64-node hypercube, e-cube routing, "
	       "one port,\nhalf-duplex node (and full ports for "
	       "comparison);\nrandom d-regular patterns "
	       "ir_matrix_regular(64, d, M, 1000*d + i), i < %d;\nmedians.  "
	       "Model: tau = %g us, phi = %g us/B (preset ipsc860).\n"
	       "Simulator: alpha = %g us, beta = %g us/B, gamma = %g us, "
	       "hop = %g us.\nLetters: A = AC, L = LP, R = RS_NL; lower "
	       "case: the runner-up is within %.0f%%.\n",
	       seeds, m.cost.tau, m.cost.phi, m.cost.alpha, m.cost.beta,
	       m.cost.gamma, m.cost.hop, 100 * CLOSE);
	sweep(&m, seeds);
	printf("\nPlans (medians): phases of LP and RS_NL; AC's largest "
	       "node degree D and link\nload f\n\n| d | LP phases | RS_NL "
	       "phases | AC D | AC f |\n|---|---|---|---|---|\n");
	for (int di = 0; di < NDENS; di++)
		printf("| %d | %.1f | %.1f | %.0f | %.0f |\n", (int)dens[di],
		       shape_med[di][LP], shape_med[di][RS],
		       shape_med[di][NALG], shape_med[di][NALG + 1]);
	printf("\nCheck: the simulator with full ports and global barriers "
	       "against the 004\nmodel on LP and RS_NL: largest relative "
	       "difference %.2g%s\n",
	       worst_barrier_gap,
	       m.cost.alpha == m.cost.tau && gamma == 0 && hop == 0
	               ? ""
	               : " (expected: alpha, gamma or hop changed)");
	for (int i = 0; i < NMAPS; i++)
		print_map(&maps[i]);
	print_table1();
	print_phase_cost(&m);
	print_medians();
	return 0;
}
