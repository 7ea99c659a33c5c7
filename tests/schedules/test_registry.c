/*
 * test_registry.c - the generator list (schedules/generators.def) and
 * what comes from each generator's domain data: the registry, the
 * refusals sch_applies words from the data, and the algorithms table of
 * docs/algorithms.md, which must be exactly what the data gives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "help_topics.h"
#include "ir.h"
#include "matrix.h"
#include "sched.h"
#include "support.h"

/* Every entry of the list is in the table under its own name, once, and
 * states a domain. */
static void test_registry(void **state)
{
	(void)state;
	int n = 0;
#define SCH_GENERATOR(id)                                                      \
	assert_ptr_equal(sch_find(#id), &sch_##id);                            \
	assert_string_equal(sch_##id.name, #id);                               \
	n++;
#include "generators.def"
#undef SCH_GENERATOR
	int k = 0;
	for (; sch_generators[k]; k++) {
		const struct sch_generator *g = sch_generators[k];
		assert_non_null(g->summary);
		assert_non_null(g->generate);
		assert_true(g->domain.colls != 0);
		assert_true((g->domain.topos & SCH_TOPOS_ANY) != 0);
		for (int j = 0; j < k; j++)
			assert_string_not_equal(sch_generators[j]->name,
			                        g->name);
	}
	assert_int_equal(k, n);
	assert_null(sch_find("auto"));
}

/* A small machine of topology t, with the given ports. */
static ir_machine small(enum ir_topo t, int ports)
{
	switch (t) {
	case IR_MESH:
	case IR_TORUS:
		return tu_machine(t, ports, 4, 4, 0, 0);
	case IR_HYPERCUBE:
		return tu_machine(t, ports, 4, 0, 0, 0);
	case IR_HPAM:
		return tu_machine(t, ports, 2, 2, 4, 4);
	case IR_FAT_TREE: /* the 4-ary 2-tree: 16 hosts */
		return tu_machine(t, ports, 4, 2, 0, 0);
	case IR_GRAPH: { /* 16 hosts around one switch (release the graph) */
		struct ir_cable c[16];
		for (int i = 0; i < 16; i++)
			c[i] = (struct ir_cable){i, 16, 1, IR_CABLE_CLASS_DEFAULT,
			                         NAN, NAN};
		return tu_graph(16, 1, c, 16, IR_ROUTE_SHORTEST, ports);
	}
	case IR_DRAGONFLY: /* 5 groups of 2 routers of 2 hosts: 20 */
		return tu_machine(t, ports, 5, 2, 2, 2);
	case IR_SWITCH:
		break;
	}
	return tu_machine(IR_SWITCH, ports, 16, 0, 0, 0);
}

/* A communication of collective c on m that is right in every other
 * way. */
static ir_comm comm_of(enum ir_coll c, const ir_machine *m)
{
	ir_comm x = tu_comm(c, 0, 64);
	if (c == IR_IRREGULAR)
		x.matrix = ir_matrix_regular(m->nranks, 2, 64, 1);
	return x;
}

/* Where the data says no, sch_applies says no, and the words come from
 * the data: the collectives it takes, the machine it needs, and the
 * machine it got. */
static void test_refusals(void **state)
{
	(void)state;
	char why[256];
	for (int k = 0; sch_generators[k]; k++) {
		const struct sch_generator *g = sch_generators[k];
		const struct sch_domain *d = &g->domain;
		char need[64];
		/* a collective it does not take */
		for (int c = 0; c < IR_NCOLLS; c++) {
			if (d->colls & SCH_C(c))
				continue;
			ir_machine m = small(IR_MESH, IR_PORTS_ALL);
			ir_comm x = comm_of((enum ir_coll)c, &m);
			assert_int_equal(sch_applies(g, &m, &x, why, sizeof why),
			                 CCP_ENOTAPPLY);
			snprintf(need, sizeof need, "%s %s a", g->name,
			         d->colls == SCH_C(IR_IRREGULAR) ? "schedules"
			                                         : "is");
			assert_ptr_equal(strstr(why, need), why);
			snprintf(need, sizeof need, "; this is %s %s",
			         strchr("aeiou", ir_coll_name(c)[0]) ? "an" : "a",
			         ir_coll_name(c));
			assert_non_null(strstr(why, need));
			ir_comm_fini(&x);
		}
		/* a topology it does not run on, and a port model it does
		 * not take, for the first collective it does */
		enum ir_coll take = IR_BCAST;
		while (!(d->colls & SCH_C(take)))
			take++;
		for (int t = 0; t < IR_NTOPOS; t++) {
			ir_machine m = small((enum ir_topo)t, IR_PORTS_ALL);
			ir_comm x = comm_of(take, &m);
			snprintf(need, sizeof need, "%s needs a", g->name);
			if (!(d->topos & SCH_T(t))) {
				assert_int_equal(
				        sch_applies(g, &m, &x, why, sizeof why),
				        CCP_ENOTAPPLY);
				assert_ptr_equal(strstr(why, need), why);
				assert_non_null(
				        strstr(why, "; this machine is a "));
			} else if (d->ports == SCH_PORTS_ALL) {
				ir_comm_fini(&x);
				ir_graph_release(m.graph);
				m = small((enum ir_topo)t, 1);
				x = comm_of(take, &m);
				assert_int_equal(
				        sch_applies(g, &m, &x, why, sizeof why),
				        CCP_ENOTAPPLY);
				snprintf(need, sizeof need,
				         "%s needs an all-port", g->name);
				assert_ptr_equal(strstr(why, need), why);
				assert_non_null(strstr(why, "with 1-port nodes, "
				                            "and all-port here "
				                            "means"));
			}
			ir_comm_fini(&x);
			ir_graph_release(m.graph);
		}
	}
}

/* All-port is `ports: all` or as many ports as the busiest rank has
 * links: a 4x4 mesh needs 4, a 2x4 mesh 3, a 4-cube 4. */
static void test_all_port(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, 3, 4, 4, 0, 0);
	assert_false(sch_all_port(&m));
	m = tu_machine(IR_MESH, 4, 4, 4, 0, 0);
	assert_true(sch_all_port(&m));
	m = tu_machine(IR_MESH, 3, 2, 4, 0, 0);
	assert_true(sch_all_port(&m));
	m = tu_machine(IR_HYPERCUBE, 3, 4, 0, 0, 0);
	assert_false(sch_all_port(&m));
	m = tu_machine(IR_HYPERCUBE, IR_PORTS_ALL, 4, 0, 0, 0);
	assert_true(sch_all_port(&m));
	char d[128];
	m = tu_machine(IR_MESH, 2, 8, 8, 1, 0);
	sch_describe(&m, d, sizeof d);
	assert_string_equal(d, "8x8 mesh");
	m = tu_machine(IR_HPAM, 1, 2, 2, 4, 8);
	sch_describe(&m, d, sizeof d);
	assert_string_equal(d, "two-level HPAM (2x2 over 4x8)");
}

/* The algorithms table of docs/algorithms.md is what the generators'
 * data gives (help_algorithm_table): a generator added, or a domain
 * changed, without the page following fails here and writes the table
 * to paste to algorithms-table.md. */
static void test_docs_table(void **state)
{
	(void)state;
	char *want = NULL;
	size_t wlen = 0;
	FILE *f = open_memstream(&want, &wlen);
	assert_non_null(f);
	help_algorithm_table(f);
	assert_int_equal(fclose(f), 0);

	const char *dir = getenv("CCPLAN_SOURCE_DIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/docs/algorithms.md", dir ? dir : "..");
	FILE *doc = fopen(path, "r");
	assert_non_null(doc);
	char *line = NULL, *have = NULL;
	size_t cap = 0, hlen = 0;
	FILE *h = open_memstream(&have, &hlen);
	assert_non_null(h);
	bool in = false, done = false;
	while (getline(&line, &cap, doc) > 0 && !done) {
		if (!in && strncmp(line, "| name |", 8) == 0)
			in = true;
		if (in && line[0] != '|')
			done = true;
		else if (in)
			fputs(line, h);
	}
	free(line);
	fclose(doc);
	assert_int_equal(fclose(h), 0);
	if (strcmp(have, want) != 0) {
		/* cmocka cuts long messages: the table goes to a file. */
		FILE *out = fopen("algorithms-table.md", "w");
		if (out) {
			fputs(want, out);
			fclose(out);
		}
		fail_msg("%s: the algorithms table differs from the "
		         "generators' data; paste the table written to "
		         "algorithms-table.md (in the test's directory)",
		         path);
	}
	free(have);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_registry),
	        cmocka_unit_test(test_refusals),
	        cmocka_unit_test(test_all_port),
	        cmocka_unit_test(test_docs_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
