/*
 * bench_edn.c - EDN broadcast (001 §3.3, §3.4): generation and
 * verification time on large 2D, rectangular and 3D meshes (medians of
 * 5), and the phase counts over every source of the n = b*2^5 meshes
 * (001 Tables 3.1-3.4) and of the largest 3D meshes (001 Table 3.5).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "edn_mesh.h"
#include "sched.h"

/* An all-port x*y*z mesh with dimension-order routing; 0 or an error. */
static int mesh(ir_machine *m, int x, int y, int z)
{
	char err[256];
	memset(m, 0, sizeof *m);
	m->topo = IR_MESH;
	m->routing = IR_ROUTE_DIM_ORDER;
	m->ndims = z > 1 ? 3 : 2;
	m->dims[0] = x;
	m->dims[1] = y;
	m->dims[2] = z;
	return ir_machine_check(m, err, sizeof err);
}

/* "256x256" or "64x64x45", for the tables. */
static const char *shape(int x, int y, int z)
{
	static char buf[32];
	if (z > 1)
		snprintf(buf, sizeof buf, "%dx%dx%d", x, y, z);
	else
		snprintf(buf, sizeof buf, "%dx%d", x, y);
	return buf;
}

/* Time generate and verify of one broadcast on an x*y*z mesh. */
static void timing(int x, int y, int z)
{
	ir_machine m;
	char err[256];
	if (mesh(&m, x, y, z))
		return;
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	c.bytes = 4096;
	c.segments = 1;
	c.root = m.nranks / 3;
	if (sch_applies(&sch_edn, &m, &c, err, sizeof err)) {
		printf("%-11s  %8d  not applicable: %s\n", shape(x, y, z),
		       m.nranks, err);
		return;
	}
	double g[5], v[5];
	uint32_t phases = 0;
	for (int i = 0; i < 5; i++) {
		ir_plan p;
		ir_report r;
		memset(&r, 0, sizeof r);
		double t0 = bench_now();
		if (sch_edn.generate(&m, &c, NULL, &p))
			return;
		double t1 = bench_now();
		int rc = ir_verify(&p, &r);
		double t2 = bench_now();
		if (rc)
			printf("rejected: %s\n", r.message);
		phases = r.phases;
		g[i] = t1 - t0;
		v[i] = t2 - t1;
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
	qsort(g, 5, sizeof *g, bench_cmp_double);
	qsort(v, 5, sizeof *v, bench_cmp_double);
	printf("%-11s  %8d  %6u  %9.1f  %9.1f\n", shape(x, y, z), m.nranks,
	       phases, 1e3 * g[2], 1e3 * v[2]);
}

/* Min and max phases over every source of an x*y*z mesh (startup +
 * height, sch__edn_step_range), one row of the sweep table. */
static int sweep(int x, int y, int z)
{
	ir_machine m;
	int lo, hi, h;
	double t0 = bench_now();
	if (mesh(&m, x, y, z) || sch__edn_step_range(&m, &lo, &hi, &h))
		return 1;
	printf("%-11s  %8d  %3d  %3d  %6.1f\n", shape(x, y, z), m.nranks,
	       lo + h, hi + h, 1e3 * (bench_now() - t0));
	return 0;
}

int main(void)
{
	printf("mesh            ranks  phases     gen ms  verify ms  (median "
	       "of "
	       "5)\n");
	timing(256, 256, 1);
	timing(224, 224, 1);
	timing(512, 128, 1);
	timing(128, 512, 1);
	timing(64, 64, 45);
	timing(32, 32, 135);
	printf("\nevery source: phases = startup + tree height\n");
	printf("mesh          sources  min  max      ms\n");
	for (int b = 4; b <= 7; b++)
		if (sweep(b << 5, b << 5, 1))
			return 1;
	static const int d3[][3] = {{8, 8, 45},
	                            {16, 16, 15},
	                            {32, 32, 5},
	                            {32, 32, 135},
	                            {64, 64, 45}};
	for (size_t i = 0; i < sizeof d3 / sizeof d3[0]; i++)
		if (sweep(d3[i][0], d3[i][1], d3[i][2]))
			return 1;
	return 0;
}
