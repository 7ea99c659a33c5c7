/*
 * bench_sim.c - speed of the wormhole simulator (model/sim.c): broadcasts
 * on square all-port meshes up to 256x256 (65,536 ranks) with the T3D
 * parameters of 001 §3.3.5, 1 KB messages; medians of 5 runs, wall and
 * processor time, and the events processed per second, with links shared
 * by virtual channels and without them (first come first served).  The
 * unicast model's time of the same plan is printed beside the simulated
 * ones.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "model.h"
#include "sched.h"

#define RUNS 5

static double clock_s(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One row: generate alg's broadcast on an n x n mesh, then time the
 * simulator on it, with or without phase barriers, over links. */
static void row(const char *alg, int n, bool barriers, enum model_links links)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = IR_MESH;
	m.routing = IR_ROUTE_DIM_ORDER;
	m.ndims = 2;
	m.dims[0] = m.dims[1] = n;
	m.dims[2] = 1;
	m.ports = IR_PORTS_ALL;
	char err[256];
	if (ir_machine_check(&m, err, sizeof err)) {
		printf("%s\n", err);
		return;
	}
	ir_cost *k = &m.cost;
	k->alpha = k->beta = k->hop = k->gamma = k->beta_sat = NAN;
	k->tau = k->phi = k->lambda = NAN;
	for (int l = 0; l < 2; l++)
		k->c_send[l] = k->c_recv[l] = k->copy[l] = NAN;
	model_preset_apply(k, "t3d");
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	c.bytes = 1024;
	c.segments = 1;
	c.root = n / 3 + n * (n / 2);
	const struct sch_generator *g = sch_find(alg);
	if (!g || sch_applies(g, &m, &c, err, sizeof err)) {
		printf("%-9s %3dx%-3d  not applicable: %s\n", alg, n, n,
		       g ? err : "no such generator");
		return;
	}
	struct sch_options o = {.hpam_price = model_hpam_price};
	ir_plan p;
	if (g->generate(&m, &c, &o, &p)) {
		printf("%-9s %3dx%-3d  generation failed\n", alg, n, n);
		return;
	}
	double model = 0;
	model_predict(&p, NULL, MODEL_UNICAST, &model, NULL, err, sizeof err);
	struct model_sim_opts so = {.barriers = barriers, .links = links};
	double wall[RUNS], cpu[RUNS];
	struct model_sim s;
	memset(&s, 0, sizeof s);
	for (int i = 0; i < RUNS; i++) {
		model_sim_fini(&s);
		double w0 = clock_s(CLOCK_MONOTONIC);
		double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		int rc = model_simulate(&p, &so, &s, err, sizeof err);
		cpu[i] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
		wall[i] = clock_s(CLOCK_MONOTONIC) - w0;
		if (rc) {
			printf("%-9s %3dx%-3d  simulation failed: %s\n", alg, n,
			       n, err);
			ir_plan_fini(&p);
			return;
		}
	}
	double w = bench_median(wall, RUNS), cp = bench_median(cpu, RUNS);
	printf("%-9s %3dx%-3d %-4s %-6s %6d %8u %9llu %8.3f %8.3f %6.2f "
	       "%9.2f %9.2f %9.2f\n",
	       alg, n, n, barriers ? "yes" : "no",
	       links == MODEL_LINKS_FIFO ? "fifo" : "shared", (int)m.nranks,
	       s.messages,
	       (unsigned long long)s.events, 1e3 * w, 1e3 * cp,
	       (double)s.events / cp / 1e6, s.max_us, s.avg_us, model);
	model_sim_fini(&s);
	ir_plan_fini(&p);
}

int main(void)
{
	printf("broadcast of 1 KB, T3D parameters (001 §3.3.5), all-port "
	       "mesh; medians of %d runs\n\n",
	       RUNS);
	printf("%-9s %-7s %-4s %-6s %6s %8s %9s %8s %8s %6s %9s %9s %9s\n",
	       "algorithm", "mesh", "bar", "links", "ranks", "messages",
	       "events",
	       "wall ms", "cpu ms", "Mev/s", "max us", "avg us", "model us");
	const int sizes[] = {64, 128, 256};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		row("edn", sizes[i], false, MODEL_LINKS_SHARED);
		row("edn", sizes[i], true, MODEL_LINKS_SHARED);
		row("edn", sizes[i], false, MODEL_LINKS_FIFO);
	}
	row("rd", 256, false, MODEL_LINKS_SHARED);
	row("rd", 256, false, MODEL_LINKS_FIFO);
	row("binomial", 256, false, MODEL_LINKS_SHARED);
	row("binomial", 256, false, MODEL_LINKS_FIFO);
	return 0;
}
