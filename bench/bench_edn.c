/*
 * bench_edn.c - EDN broadcast (001 §3.3): generation and verification
 * time on large meshes (medians of 5), and the full sweep of phase
 * counts over every source of the n = b*2^5 meshes (001 Tables 3.1-3.4).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "edn_mesh.h"
#include "sched.h"


static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Time generate and verify of one broadcast on an x*y*z mesh. */
static void timing(int x, int y, int z)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = IR_MESH;
	m.routing = IR_ROUTE_DIM_ORDER;
	m.ndims = z > 1 ? 3 : 2;
	m.dims[0] = x;
	m.dims[1] = y;
	m.dims[2] = z;
	char err[256];
	if (ir_machine_check(&m, err, sizeof err))
		return;
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	c.bytes = 4096;
	c.segments = 1;
	c.root = m.nranks / 3;
	if (sch_edn.applies(&m, &c, err, sizeof err)) {
		printf("%4dx%dx%-3d  %8d  not applicable: %s\n", x, y, z,
		       m.nranks, err);
		return;
	}
	double g[5], v[5];
	uint32_t phases = 0;
	for (int i = 0; i < 5; i++) {
		ir_plan p;
		ir_report r;
		memset(&r, 0, sizeof r);
		double t0 = now();
		if (sch_edn.generate(&m, &c, NULL, &p))
			return;
		double t1 = now();
		int rc = ir_verify(&p, &r);
		double t2 = now();
		if (rc)
			printf("rejected: %s\n", r.message);
		phases = r.phases;
		g[i] = t1 - t0;
		v[i] = t2 - t1;
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
	qsort(g, 5, sizeof *g, cmp_d);
	qsort(v, 5, sizeof *v, cmp_d);
	printf("%4dx%dx%-3d  %8d  %6u  %9.1f  %9.1f\n", x, y, z, m.nranks,
	       phases, 1e3 * g[2], 1e3 * v[2]);
}

int main(void)
{
	printf("mesh          ranks  phases  gen ms    verify ms   (median of 5)\n");
	timing(256, 256, 1);
	timing(224, 224, 1);
	timing(64, 64, 45);
	printf("\nfull sweep, every source: phases = startup + tree height\n");
	printf("   n  sources  min  max\n");
	for (int b = 4; b <= 7; b++) {
		int n = b << 5;
		ir_machine m;
		memset(&m, 0, sizeof m);
		m.topo = IR_MESH;
		m.routing = IR_ROUTE_DIM_ORDER;
		m.ndims = 2;
		m.dims[0] = m.dims[1] = n;
		m.dims[2] = 1;
		char err[128];
		if (ir_machine_check(&m, err, sizeof err))
			return 1;
		int mn = 1 << 30, mx = 0;
		for (int32_t r = 0; r < m.nranks; r++) {
			int su, h;
			if (sch__edn_steps(&m, r, &su, &h))
				return 1;
			mn = su + h < mn ? su + h : mn;
			mx = su + h > mx ? su + h : mx;
		}
		printf(" %3d  %7d  %3d  %3d\n", n, m.nranks, mn, mx);
	}
	return 0;
}
