/*
 * bench_bine.c - Bine trees and butterflies (schedules/bine.c) against
 * the binomial tree and the butterflies that pair ranks 2^k apart, by
 * their traffic on the links that cost most: a dragonfly's global links
 * and a tapered fat tree's up links (docs/collectives.md, "Bine").
 *
 * Machines: the dragonfly of examples/dragonfly-allreduce.yaml (33
 * groups of 8 routers of 4 hosts, 4 global links per router, relative,
 * minimal routing: 1,056 hosts, one global link per pair of groups),
 * and XGFT(2; 32,32; 1,16), 1,024 hosts under 32 leaf switches with 16
 * up links each for 32 hosts (2:1 at the leaves), d-mod-k.  One rank a
 * host, in host order.  Broadcast of M = 1 MiB from rank 0, and
 * allreduce of M = 1 MiB of doubles.
 *
 * Columns, per algorithm: phases; hops on the class (transfers times
 * the links of the class on their paths); MiB on the class (each
 * transfer's bytes times those links); the busiest link of the class
 * (MiB over the whole plan); the bound; and the bytes on the class
 * against the reference (binomial for the broadcast, recursive_doubling
 * for the allreduce), in %.  The bound is the least any plan must put
 * on the class: every group (leaf switch) but the root's must receive
 * the message, (G - 1) M for a broadcast; every group must receive the
 * combination of the others' vectors, G M for an allreduce; on either
 * machine a message between groups crosses one link of the class
 * (minimal routing; one up link under d-mod-k).  The allreduce's bound
 * counts what every group must receive; a plan in which each group
 * also sends its partial out once puts 2 (G - 1) M there, 2 (G - 1) / G
 * of the bound (1.94 for 33 groups, 1.94 for 32).
 * Usage: bench_bine [MIB]  (the message, 1 MiB by default)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ir.h"
#include "sched.h"

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_bine: %s: %s\n", what, ccp_strerror(rc));
	exit(1);
}

/* A checked machine with unset costs: ir_machine_check's message on
 * error. */
static ir_machine checked(ir_machine m)
{
	char err[256];
	ir_cost_unset(&m.cost);
	if (ir_machine_check(&m, err, sizeof err) != 0) {
		fprintf(stderr, "bench_bine: %s\n", err);
		exit(1);
	}
	return m;
}

static ir_machine dragonfly(void)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = IR_DRAGONFLY;
	m.routing = IR_ROUTE_MINIMAL;
	m.ports = IR_PORTS_ALL;
	m.dims[0] = 4;  /* hosts per router */
	m.dims[1] = 8;  /* routers per group */
	m.dims[2] = 33; /* groups */
	m.dims[3] = 4;  /* global links per router */
	m.dims[4] = IR_DFLY_RELATIVE;
	m.levels[0][0] = m.levels[0][1] = m.levels[1][0] = 1;
	return checked(m);
}

static ir_machine tapered_tree(void)
{
	ir_machine m;
	memset(&m, 0, sizeof m);
	m.topo = IR_FAT_TREE;
	m.routing = IR_ROUTE_D_MOD_K;
	m.ports = 1;
	m.ndims = 2;
	m.dims[0] = 32; /* hosts per leaf */
	m.dims[1] = 32; /* leaves */
	m.dims[IR_MAX_TREE + 0] = 1;
	m.dims[IR_MAX_TREE + 1] = 16; /* up links per leaf: 2:1 */
	m.levels[0][0] = m.levels[0][1] = 1;
	return checked(m);
}

/* What one plan puts on a class of links. */
struct row {
	uint32_t phases;
	uint64_t hops;  /* transfer-hops on the class */
	double mib;     /* MiB on the class */
	double busiest; /* MiB on its busiest link */
	uint32_t worst; /* busiest link's transfers in a phase */
	bool contended; /* the plan declares link contention */
};

static void measure(const ir_plan *p, enum ir_link_class cls, struct row *w)
{
	const ir_machine *m = &p->machine;
	uint64_t nl = ir_nlinks(m);
	double *per = calloc((size_t)nl, sizeof *per);
	uint64_t *l = malloc((size_t)ir_route_max(m) * sizeof *l);
	ir_class_load loads[IR_NLINK_CLASSES];
	if (!per || !l)
		die("measure", CCP_ENOMEM);
	memset(w, 0, sizeof *w);
	for (uint32_t t = 0; t < p->ntransfers; t++) {
		const ir_transfer *x = &p->transfers[t];
		int h = ir_path(m, x->src, x->dst, l);
		for (int k = 0; k < h; k++)
			if (ir_link_class(m, l[k]) == cls) {
				w->hops++;
				per[l[k]] += (double)x->bytes;
			}
	}
	for (uint64_t k = 0; k < nl; k++) {
		w->mib += per[k] / (1 << 20);
		if (per[k] / (1 << 20) > w->busiest)
			w->busiest = per[k] / (1 << 20);
	}
	int rc = ir_class_loads(p, loads);
	if (rc)
		die("ir_class_loads", rc);
	w->worst = loads[cls].worst;
	w->phases = p->nphases;
	w->contended = p->flags & IR_PLAN_LINK_CONTENTION;
	free(per);
	free(l);
}

/* The table of one collective on one machine: each generator's row,
 * against ref's bytes and the bound (in units of the message). */
static void table(const ir_machine *m, const char *mname, enum ir_coll coll,
                  enum ir_link_class cls, int groups, int64_t bytes,
                  const char *const *names, const char *ref)
{
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = coll;
	c.bytes = bytes;
	c.segments = 1;
	c.dtype = IR_DT_DOUBLE;
	c.op = IR_OP_SUM;
	double msg = (double)bytes / (1 << 20);
	double bound = (coll == IR_BCAST ? groups - 1 : groups) * msg;
	double ref_mib = 0;
	printf("\n%s %s of %.0f MiB, %s links (%d groups; bound %.0f MiB)\n",
	       mname, ir_coll_name(coll), msg, ir_link_class_names[cls], groups,
	       bound);
	printf("%-20s %6s %10s %12s %10s %6s %8s %9s\n", "algorithm", "phases",
	       "hops", "MiB", "busiest", "worst", "/bound", "vs ref");
	for (int k = 0; names[k]; k++) {
		const struct sch_generator *g = sch_find(names[k]);
		char why[256];
		ir_plan p;
		ir_report r;
		struct row w;
		if (!g)
			die(names[k], CCP_ENOTFOUND);
		if (sch_applies(g, m, &c, why, sizeof why) != 0) {
			printf("%-20s does not apply: %s\n", names[k], why);
			continue;
		}
		int rc = sch_generate(g, m, &c, NULL, &p);
		if (rc)
			die(names[k], rc);
		if (ir_verify(&p, &r) != 0) {
			fprintf(stderr, "bench_bine: %s: %s\n", names[k],
			        r.message);
			exit(1);
		}
		ir_report_fini(&r);
		measure(&p, cls, &w);
		ir_plan_fini(&p);
		if (!strcmp(names[k], ref))
			ref_mib = w.mib;
		printf("%-20s %6u %10llu %12.1f %10.1f %6u %8.2f", names[k],
		       w.phases, (unsigned long long)w.hops, w.mib, w.busiest,
		       w.worst, w.mib / bound);
		if (ref_mib > 0)
			printf(" %+8.1f%%",
			       100.0 * (w.mib - ref_mib) / ref_mib);
		printf("%s\n", w.contended ? "  (declares contention)" : "");
	}
}

int main(int argc, char **argv)
{
	int64_t mib = argc > 1 ? atoll(argv[1]) : 1;
	if (mib < 1) {
		fprintf(stderr, "usage: bench_bine [MIB]\n");
		return 2;
	}
	static const char *const bcast[] = {"binomial", "bine",
	                                    "domain_leaders", NULL};
	static const char *const allreduce[] = {"recursive_doubling",
	                                        "bine_latency",
	                                        "rabenseifner",
	                                        "bine",
	                                        "reduce_bcast",
	                                        "ring",
	                                        "swing",
	                                        "domain_leaders",
	                                        NULL};
	ir_machine d = dragonfly(), t = tapered_tree();
	int64_t bytes = mib << 20;
	printf("Bine against binomial trees and butterflies: bytes on the "
	       "links between groups\n(vs ref: binomial for broadcast, "
	       "recursive_doubling for allreduce; busiest in MiB over the "
	       "plan, worst: transfers in its busiest phase)\n");
	table(&d, "dragonfly 33x8x4 (1,056 hosts)", IR_BCAST, IR_LC_GLOBAL, 33,
	      bytes, bcast, "binomial");
	table(&d, "dragonfly 33x8x4 (1,056 hosts)", IR_ALLREDUCE, IR_LC_GLOBAL,
	      33, bytes, allreduce, "recursive_doubling");
	table(&t, "fat tree XGFT(2; 32,32; 1,16), 2:1 (1,024 hosts)", IR_BCAST,
	      IR_LC_UP, 32, bytes, bcast, "binomial");
	table(&t, "fat tree XGFT(2; 32,32; 1,16), 2:1 (1,024 hosts)",
	      IR_ALLREDUCE, IR_LC_UP, 32, bytes, allreduce,
	      "recursive_doubling");
	return 0;
}
