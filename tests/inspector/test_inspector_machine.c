/*
 * test_inspector_machine.c - the public machine model (ccplan_machine.h,
 * runtime/inspector/machine.c), used as an application would: machines
 * read from the machine: mapping of YAML text, by the compiler's front
 * end, with every topology, and the errors of bad text at their
 * line:column; machines built by ccp_machine_grid, and its errors (an
 * unknown topology name, a bad size or port count); an allocator that
 * fails.  Nothing may leak (the sanitizer build checks).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ccplan_machine.h"

/* A YAML machine: the code, the ranks or the start of the message. */
struct yaml_case {
	const char *text;
	int rc;          /* 0 or the code expected */
	int nranks;      /* when rc == 0 */
	const char *msg; /* when rc != 0: ccp_errmsg begins with it */
};

static const struct yaml_case yaml_cases[] = {
        {"machine:\n  topology: mesh\n  dims: [4, 4]\n", 0, 16, NULL},
        {"machine: {topology: torus, dims: [2, 3, 4], ports: 2}\n", 0, 24,
         NULL},
        {"machine:\n  topology: hypercube\n  dimension: 5\n"
         "  cost: {preset: ncube2}\n",
         0, 32, NULL},
        {"machine: {topology: switch, ranks: 7}", 0, 7, NULL},
        {"machine:\n  topology: hpam\n  levels:\n"
         "    - {rows: 2, cols: 2}\n    - {rows: 2, cols: 4}\n",
         0, 12, NULL}, /* r1 c1 + r2 c2 (docs/input-format.md) */
        {"machine:\n  topology: hpam\n  levels:\n"
         "    - {rows: 2, cols: 2}\n    - {rows: 2, cols: 3}\n",
         -1, 0,
         "5:23: machine: levels[1][1] (level-2 columns) must be a "
         "power of two"},
        {"# a comment\nmachine:\n  topology: mesh\n  dims: [3]\n"
         "  routing: dimension-order\n",
         0, 3, NULL},
        /* bad values, at their line and column */
        {"machine:\n  topology: mesh\n  dims: [4, 0]\n", -1, 0,
         "3:13: machine.dims[1]"},
        {"machine:\n  topology: meshh\n  dims: [4]\n", -1, 0,
         "2:13: machine.topology: unknown topology 'meshh'; did you mean "
         "'mesh'?"},
        {"machine:\n  topology: mesh\n", -1, 0,
         "2:3: machine: missing required key 'dims' for topology mesh"},
        {"machine:\n  topology: switch\n  ranks: 4\n  cost: {preset: x9}\n", -1,
         0, "4:18: machine.cost.preset: unknown preset 'x9'"},
        {"machine:\n  topology: mesh\n  dims: [2]\n  routing: e-cube\n", -1, 0,
         "4:12: machine.routing:"},
        /* the top level: one key, machine */
        {"machine: {topology: switch, ranks: 2}\ncommunication: {}\n", -1, 0,
         "2:1: unknown key 'communication' at top level; expected machine"},
        {"{}\n", -1, 0, "1:1: top level: missing required key 'machine'"},
        {"- 1\n", -1, 0, "1:1: top level: expected a mapping"},
        /* not YAML */
        {"machine: [\n", -1, 0, "2:1: YAML syntax error: "},
        {"machine:\n  topology: mesh\n dims: [2]\n", -1, 0,
         "3:2: YAML syntax error: "},
};

static void test_yaml(void **state)
{
	(void)state;
	ccp_context *ctx;
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	for (size_t i = 0; i < sizeof yaml_cases / sizeof yaml_cases[0]; i++) {
		const struct yaml_case *c = &yaml_cases[i];
		ccp_machine *m = (ccp_machine *)&m; /* not NULL: must be set */
		int rc = ccp_machine_from_yaml(ctx, c->text, strlen(c->text),
		                               &m);
		if (c->rc == 0) {
			if (rc != 0)
				fail_msg("case %zu: %s", i, ccp_errmsg(ctx));
			assert_non_null(m);
			if (ccp_machine_nranks(m) != c->nranks)
				fail_msg("case %zu: %d ranks, want %d", i,
				         ccp_machine_nranks(m), c->nranks);
			assert_string_equal(ccp_errmsg(ctx), "");
		} else {
			assert_int_equal(rc, CCP_EPARSE);
			assert_null(m);
			if (strncmp(ccp_errmsg(ctx), c->msg, strlen(c->msg)))
				fail_msg("case %zu: got \"%s\", want \"%s...\"",
				         i, ccp_errmsg(ctx), c->msg);
		}
		ccp_machine_free(m);
	}
	ccp_fini(ctx);
}

/* Only len bytes are read: the text needs no NUL, and what follows is not
 * part of it. */
static void test_yaml_len(void **state)
{
	(void)state;
	static const char text[] = "machine: {topology: switch, ranks: 9}"
	                           "\nnot: [yaml";
	ccp_context *ctx;
	ccp_machine *m = NULL;
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	assert_int_equal(
	        ccp_machine_from_yaml(ctx, text, strchr(text, '\n') - text, &m),
	        0);
	assert_int_equal(ccp_machine_nranks(m), 9);
	ccp_machine_free(m);
	/* empty text: no machine key */
	assert_int_equal(ccp_machine_from_yaml(ctx, text, 0, &m), CCP_EPARSE);
	assert_null(m);
	assert_int_equal(ccp_machine_from_yaml(ctx, NULL, 0, &m), CCP_EINVAL);
	assert_null(m);
	ccp_fini(ctx);
}

/* A grid: its ranks, or the code and the start of the message. */
struct grid_case {
	const char *topo;
	int ndims;
	int dims[4];
	int ports;
	int nranks;      /* when msg is NULL */
	const char *msg; /* else CCP_EINVAL, ccp_errmsg contains it */
};

static const struct grid_case grid_cases[] = {
        {"mesh", 2, {2, 3}, 1, 6, NULL},
        {"mesh", 1, {5}, CCP_MACHINE_ALL_PORTS, 5, NULL},
        {"torus", 3, {2, 3, 4}, 2, 24, NULL},
        {"hypercube", 1, {4}, 1, 16, NULL},
        {"switch", 1, {7}, CCP_MACHINE_ALL_PORTS, 7, NULL},
        {"meshh",
         2,
         {2, 2},
         1,
         0,
         "unknown topology 'meshh'; did you mean "
         "'mesh'?"},
        {"ring",
         1,
         {4},
         1,
         0,
         "unknown topology 'ring'; expected mesh, "
         "torus, hypercube, switch"},
        {"hpam", 2, {2, 2}, 1, 0, "describe it in YAML"},
        {"mesh", 0, {2}, 1, 0, "1 to 8 extents, got ndims 0"},
        {"torus", 9, {2, 2, 2, 2}, 1, 0, "1 to 8 extents, got ndims 9"},
        {"mesh", 2, {2, 0}, 1, 0, "ccp_machine_grid: mesh: "},
        {"mesh", 2, {2, -3}, 1, 0, "ccp_machine_grid: mesh: "},
        {"hypercube",
         2,
         {2, 2},
         1,
         0,
         "(dims[0], its dimension), got "
         "ndims 2"},
        {"hypercube", 1, {0}, 1, 0, "ccp_machine_grid: hypercube: "},
        {"switch", 1, {0}, 1, 0, "ccp_machine_grid: switch: "},
        {"mesh",
         2,
         {2, 2},
         0,
         0,
         "ports must be >= 1 or "
         "CCP_MACHINE_ALL_PORTS, got 0"},
        {"mesh", 2, {2, 2}, -2, 0, "got -2"},
};

static void test_grid(void **state)
{
	(void)state;
	ccp_context *ctx;
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	for (size_t i = 0; i < sizeof grid_cases / sizeof grid_cases[0]; i++) {
		const struct grid_case *c = &grid_cases[i];
		ccp_machine *m = (ccp_machine *)&m;
		int rc = ccp_machine_grid(ctx, c->topo, c->ndims, c->dims,
		                          c->ports, &m);
		if (!c->msg) {
			if (rc != 0)
				fail_msg("case %zu: %s", i, ccp_errmsg(ctx));
			assert_int_equal(ccp_machine_nranks(m), c->nranks);
		} else {
			assert_int_equal(rc, CCP_EINVAL);
			assert_null(m);
			if (!strstr(ccp_errmsg(ctx), c->msg))
				fail_msg("case %zu: got \"%s\", want \"%s\"", i,
				         ccp_errmsg(ctx), c->msg);
		}
		ccp_machine_free(m);
	}
	ccp_machine *m = NULL;
	assert_int_equal(ccp_machine_grid(ctx, NULL, 1, (int[]){2}, 1, &m),
	                 CCP_EINVAL);
	assert_null(m);
	assert_int_equal(ccp_machine_grid(ctx, "mesh", 1, NULL, 1, &m),
	                 CCP_EINVAL);
	assert_int_equal(ccp_machine_nranks(NULL), 0);
	ccp_machine_free(NULL);
	ccp_fini(ctx);
}

/* An allocator that fails every allocation once armed. */
static int fail_armed;
static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	(void)ud;
	(void)osize;
	if (nsize == 0) {
		free(ptr);
		return NULL;
	}
	return fail_armed ? NULL : realloc(ptr, nsize);
}

static void test_nomem(void **state)
{
	(void)state;
	static const char text[] = "machine: {topology: mesh, dims: [2, 2]}";
	ccp_context *ctx;
	ccp_machine *m = (ccp_machine *)&m;
	assert_int_equal(ccp_init(&ctx, failing_alloc, NULL), 0);
	fail_armed = 1;
	assert_int_equal(ccp_machine_from_yaml(ctx, text, strlen(text), &m),
	                 CCP_ENOMEM);
	assert_null(m);
	assert_int_equal(ccp_machine_grid(ctx, "mesh", 2, (int[]){2, 2}, 1, &m),
	                 CCP_ENOMEM);
	assert_null(m);
	assert_string_equal(ccp_errmsg(ctx), "out of memory");
	fail_armed = 0;
	ccp_fini(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_yaml),
	        cmocka_unit_test(test_yaml_len),
	        cmocka_unit_test(test_grid),
	        cmocka_unit_test(test_nomem),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
