/*
 * test_hostlist.c - Slurm host lists (compiler/front/hostlist.c): the
 * expansion of ranges, zero padding, products of bracket groups and
 * comma lists; every malformed list refused at the byte at fault; the
 * limit on names; the hash index, and a failed call that leaves the
 * list as it was; compression that expands back to the
 * same names in the same order; and machine.hosts in an input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "front.h"

/* Expand s (must succeed) and compare with the names of want, joined
 * by single spaces. */
static void expands_to(const char *s, const char *want)
{
	struct hostlist h;
	struct hostlist_error e;
	char got[4096] = "";
	size_t n = 0;

	hostlist_init(&h, true);
	int rc = hostlist_expand(&h, s, 1000, &e);
	if (rc != 0)
		fail_msg("%s: byte %zu: %s", s, e.at, e.why);
	for (int32_t i = 0; i < h.count; i++)
		n += (size_t)snprintf(got + n, sizeof got - n, "%s%s",
		                      i ? " " : "", hostlist_name(&h, i));
	if (strcmp(got, want) != 0)
		fail_msg("%s gave '%s', want '%s'", s, got, want);
	hostlist_fini(&h);
}

/* Expand s (must fail with rc) at byte at, with why containing frag. */
static void refused(const char *s, int32_t max, int rc, size_t at,
                    const char *frag)
{
	struct hostlist h;
	struct hostlist_error e;

	hostlist_init(&h, true);
	int got = hostlist_expand(&h, s, max, &e);
	if (got != rc || e.at != at || !strstr(e.why, frag))
		fail_msg("'%s': rc %d at %zu '%s'; want rc %d at %zu '%s'", s,
		         got, e.at, e.why, rc, at, frag);
	hostlist_fini(&h);
}

static void test_expand(void **state)
{
	(void)state;
	expands_to("n1", "n1");
	expands_to("n[1-3]", "n1 n2 n3");
	expands_to("n[0-2,7,10-11]", "n0 n1 n2 n7 n10 n11");
	/* zero padding: the width of the range's first number */
	expands_to("n[01-03]", "n01 n02 n03");
	expands_to("n[08-11]", "n08 n09 n10 n11");
	expands_to("n[098-101]", "n098 n099 n100 n101");
	expands_to("n[9-10,01]", "n9 n10 n01");
	/* groups multiply out, the last varying fastest */
	expands_to("r[1-2]n[1-3]", "r1n1 r1n2 r1n3 r2n1 r2n2 r2n3");
	expands_to("c[1-2]-ib", "c1-ib c2-ib");
	/* items by commas or blanks; order kept, not sorted */
	expands_to("login,n[4-5],a3", "login n4 n5 a3");
	expands_to("  n3 n1 , n2 ", "n3 n1 n2");
	expands_to("n[5-5]", "n5");
}

static void test_refused(void **state)
{
	(void)state;
	refused("", 10, CCP_EPARSE, 0, "no host name");
	refused("n[1-3", 10, CCP_EPARSE, 1, "never closed");
	refused("n[3-1]", 10, CCP_EPARSE, 2, "goes down");
	refused("n[1-]", 10, CCP_EPARSE, 4, "expected a number");
	refused("n[1-", 10, CCP_EPARSE, 1, "never closed");
	refused("n[1,", 10, CCP_EPARSE, 1, "never closed");
	refused("n[]", 10, CCP_EPARSE, 2, "expected a number or a range");
	refused("n[a]", 10, CCP_EPARSE, 2, "expected a number or a range");
	refused("n[1;2]", 10, CCP_EPARSE, 3, "expected ',', '-' or ']'");
	refused("n1]", 10, CCP_EPARSE, 2, "']' without '['");
	refused("n1,,n2", 10, CCP_EPARSE, 3, "empty host name");
	refused(",n1", 10, CCP_EPARSE, 0, "empty host name");
	refused("n1,", 10, CCP_EPARSE, 3, "empty host name after ','");
	refused("n\"1", 10, CCP_EPARSE, 1, "may not hold '\"'");
	refused("n[1234567890]", 10, CCP_EPARSE, 2, "more than 9 digits");
	refused("n1,n[0-2],n1", 10, CCP_EPARSE, 3, "'n1' is listed twice");
	refused("n1,n[0-2]", 10, CCP_EPARSE, 3, "'n1' is listed twice");
	/* the limit counts names before making them */
	refused("a,n[0-99999999]", 10, CCP_ERANGE, 2, "too many host names");
	refused("r[0-99999]n[0-99999]", 1 << 24, CCP_ERANGE, 0,
	        "too many host names");
	refused("[1-2][1-2][1-2][1-2][1-2][1-2][1-2][1-2][1-2]", 1000,
	        CCP_EPARSE, 40, "more than 8 bracket groups");
}

/* A failed call leaves the list as it was, and the index agrees. */
static void test_index(void **state)
{
	struct hostlist h;
	struct hostlist_error e;
	char name[32];
	(void)state;

	hostlist_init(&h, true);
	assert_int_equal(hostlist_expand(&h, "n[0-4999]", 100000, &e), 0);
	assert_int_equal(hostlist_expand(&h, "m[0-9],n17", 100000, &e),
	                 CCP_EPARSE);
	assert_int_equal(h.count, 5000);
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof name, "n%d", i);
		assert_int_equal(hostlist_find(&h, name), i);
	}
	assert_int_equal(hostlist_find(&h, "m0"), -1);
	assert_int_equal(hostlist_find(&h, "n5000"), -1);
	assert_int_equal(hostlist_find(&h, "n"), -1);
	assert_int_equal(hostlist_expand(&h, "m[0-9]", 100000, &e), 0);
	assert_int_equal(hostlist_find(&h, "m9"), 5009);
	hostlist_fini(&h);
	/* a list that accepts repeats finds the first */
	hostlist_init(&h, false);
	assert_int_equal(hostlist_expand(&h, "a,b,a", 10, &e), 0);
	assert_int_equal(h.count, 3);
	assert_int_equal(hostlist_find(&h, "a"), 0);
	hostlist_fini(&h);
}

/* Compress s's expansion: the text must be want, and expand back to the
 * same names. */
static void compresses_to(const char *s, const char *want)
{
	struct hostlist h, back;
	struct hostlist_error e;

	hostlist_init(&h, false);
	hostlist_init(&back, false);
	assert_int_equal(hostlist_expand(&h, s, 100000, &e), 0);
	char *r = hostlist_ranged(&h, 0, h.count);
	assert_non_null(r);
	if (strcmp(r, want) != 0)
		fail_msg("%s compressed to '%s', want '%s'", s, r, want);
	assert_int_equal(hostlist_expand(&back, r, 100000, &e), 0);
	assert_int_equal(back.count, h.count);
	for (int32_t i = 0; i < h.count; i++)
		assert_string_equal(hostlist_name(&back, i),
		                    hostlist_name(&h, i));
	free(r);
	hostlist_fini(&h);
	hostlist_fini(&back);
}

static void test_ranged(void **state)
{
	(void)state;
	compresses_to("n0,n1,n2,n3", "n[0-3]");
	compresses_to("n[0-15,32-47]", "n[0-15,32-47]");
	compresses_to("n5", "n5");
	compresses_to("login,n[1-2],login2", "login,n[1-2],login2");
	compresses_to("n[01-16]", "n[01-16]");
	compresses_to("n[08-11]", "n[08-11]");
	compresses_to("n[9-10,01-02]", "n[9-10,01-02]");
	compresses_to("n1,n01,n001", "n[1,01,001]");
	compresses_to("n3,n2,n1", "n[3,2,1]");
	compresses_to("r[1-2]n[1-3]", "r1n[1-3],r2n[1-3]");
	compresses_to("c[1-3]-ib", "c1-ib,c2-ib,c3-ib");
	compresses_to("a1b,a2,a3", "a1b,a[2-3]");
	compresses_to("n[98-101]", "n[98-101]");
	compresses_to("n[098-101]", "n[098-101]");
	compresses_to("n1234567890", "n1234567890");
	compresses_to("n[0-2],m[0-1],n[3-4]", "n[0-2],m[0-1],n[3-4]");
}

/* Where the front end puts machine.hosts and its errors. */
static void test_machine_hosts(void **state)
{
	struct front_input in;
	struct diag d;
	(void)state;
	const char *good =
	        "machine: {topology: mesh, dims: [2, 3], hosts: [\"n[0-2]\", "
	        "login, \"x[7,5]\"]}\n"
	        "communication: {collective: broadcast, root: 0, bytes: 8}\n";
	assert_int_equal(
	        front_parse_string("t.yaml", good, strlen(good), &in, &d), 0);
	assert_int_equal(in.hosts.count, 6);
	assert_int_equal(hostlist_find(&in.hosts, "login"), 3);
	assert_int_equal(hostlist_find(&in.hosts, "x5"), 5);
	assert_int_equal(hostlist_find(&in.hosts, "n2"), 2);
	assert_int_equal(hostlist_find(&in.hosts, "n3"), -1);
	/* names do not change the plan: the same cache key without them */
	uint8_t with[16], without[16];
	assert_int_equal(front_input_hash(&in, with), 0);
	front_input_fini(&in);
	const char *plain =
	        "machine: {topology: mesh, dims: [2, 3]}\n"
	        "communication: {collective: broadcast, root: 0, bytes: 8}\n";
	assert_int_equal(
	        front_parse_string("t.yaml", plain, strlen(plain), &in, &d), 0);
	assert_int_equal(in.hosts.count, 0);
	assert_int_equal(front_input_hash(&in, without), 0);
	assert_memory_equal(with, without, 16);
	front_input_fini(&in);

	static const struct {
		const char *text;
		int line, col;
		const char *msg;
	} bad[] = {
	        {"machine:\n  topology: switch\n  ranks: 4\n  hosts: "
	         "\"n[0-2]\"\n",
	         4, 3,
	         "machine.hosts: 3 names for the 4 nodes of this machine"},
	        {"machine:\n  topology: switch\n  ranks: 4\n  hosts: "
	         "\"n[0-9]\"\n",
	         4, 3, "machine.hosts: more than 4 names for the 4 nodes"},
	        {"machine:\n  topology: switch\n  ranks: 4\n  hosts: "
	         "\"n[0-2],n1\"\n",
	         4, 18, "machine.hosts: host 'n1' is listed twice"},
	        {"machine:\n  topology: switch\n  ranks: 4\n  hosts: "
	         "n[0-2,x]\n",
	         4, 16, "machine.hosts: expected a number or a range"},
	        {"machine:\n  topology: switch\n  ranks: 4\n  hosts: "
	         "[n0, 'n[1-', n3]\n",
	         4, 17, "machine.hosts[1]: '[' is never closed"},
	        {"machine:\n  topology: switch\n  ranks: 4\n  hosts: "
	         "[n0, [n1]]\n",
	         4, 15, "machine.hosts[1]: expected a hostlist"},
	        {"machine:\n  topology: switch\n  ranks: 4\n  hosts: []\n", 4,
	         10, "machine.hosts: expected host names, got an empty list"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[512];
		snprintf(text, sizeof text,
		         "%scommunication: {collective: broadcast, root: 0, "
		         "bytes: 8}\n",
		         bad[i].text);
		int rc = front_parse_string("t.yaml", text, strlen(text), &in,
		                            &d);
		if (rc != CCP_EPARSE || d.line != bad[i].line ||
		    d.column != bad[i].col || !strstr(d.message, bad[i].msg))
			fail_msg("case %zu: rc %d %d:%d %s; want %d:%d %s", i,
			         rc, d.line, d.column, d.message, bad[i].line,
			         bad[i].col, bad[i].msg);
	}
}

/* placement: {nodes: ...}: ranks in blocks on the listed nodes, in list
 * order; the same map as the list of node numbers; errors at the entry
 * at fault. */
static void test_place_nodes(void **state)
{
	struct front_input in, num;
	struct diag d;
	(void)state;
	const char *fmt =
	        "machine:\n"
	        "  topology: switch\n"
	        "  ranks: 8\n"
	        "  ranks_per_node: 2\n"
	        "  ports: one\n"
	        "  hosts: \"n[1-4]\"\n"
	        "  placement: %s\n"
	        "communication: {collective: broadcast, root: 0, bytes: 8}\n";
	char text[1024];
	snprintf(text, sizeof text, fmt, "{nodes: \"n[3-4],n1,n2\"}");
	assert_int_equal(
	        front_parse_string("t.yaml", text, strlen(text), &in, &d), 0);
	static const int32_t want[8] = {2, 2, 3, 3, 0, 0, 1, 1};
	for (int32_t r = 0; r < 8; r++)
		assert_int_equal(ir_node_of(&in.machine, r), want[r]);
	/* a YAML list of hostlists means the same, and so does the list
	 * of each rank's node number: one cache key */
	uint8_t a[16], b[16];
	assert_int_equal(front_input_hash(&in, a), 0);
	front_input_fini(&in);
	snprintf(text, sizeof text, fmt, "{nodes: [n3, n4, \"n[1-2]\"]}");
	assert_int_equal(
	        front_parse_string("t.yaml", text, strlen(text), &in, &d), 0);
	assert_int_equal(front_input_hash(&in, b), 0);
	assert_memory_equal(a, b, 16);
	snprintf(text, sizeof text, fmt, "[2, 2, 3, 3, 0, 0, 1, 1]");
	assert_int_equal(
	        front_parse_string("t.yaml", text, strlen(text), &num, &d), 0);
	assert_int_equal(front_input_hash(&num, b), 0);
	assert_memory_equal(a, b, 16);
	front_input_fini(&num);
	front_input_fini(&in);

	static const struct {
		const char *place;
		int col;
		const char *msg;
	} bad[] = {
	        {"{nodes: \"n[1-3],n7\"}", 30,
	         "machine.placement.nodes: no node 'n7' in machine.hosts"},
	        {"{nodes: [n1, \"n[2-3,9]\"]}", 28,
	         "machine.placement.nodes[1]: no node 'n9' in machine.hosts"},
	        {"{nodes: \"n[1-3],n2\"}", 30,
	         "machine.placement.nodes: host 'n2' is listed twice"},
	        {"{nodes: \"n[1-4],x[1-9]\"}", 22,
	         "machine.placement.nodes: more than the machine's 4 nodes"},
	        {"{nodes: \"n[1-4]\", file: p.txt}", 15,
	         "machine.placement: file and nodes are two ways"},
	        {"{nodes: []}", 22,
	         "machine.placement.nodes: expected node names"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(text, sizeof text, fmt, bad[i].place);
		int rc = front_parse_string("t.yaml", text, strlen(text), &in,
		                            &d);
		if (rc != CCP_EPARSE || d.line != 7 || d.column != bad[i].col ||
		    !strstr(d.message, bad[i].msg))
			fail_msg("case %zu: rc %d %d:%d %s; want 7:%d %s", i,
			         rc, d.line, d.column, d.message, bad[i].col,
			         bad[i].msg);
	}
	/* a job on 3 of the switch's 4 nodes: a switch of 3, its 6 ranks
	 * in blocks on n3, n1, n2, which machine.hosts becomes */
	snprintf(text, sizeof text, fmt, "{nodes: \"n3,n[1-2]\"}");
	assert_int_equal(
	        front_parse_string("t.yaml", text, strlen(text), &in, &d), 0);
	assert_int_equal(in.machine.nranks, 6);
	assert_int_equal(in.machine.nnodes, 3);
	assert_int_equal(in.machine.placement, IR_PLACE_BLOCK);
	assert_int_equal(in.hosts.count, 3);
	assert_string_equal(hostlist_name(&in.hosts, 0), "n3");
	front_input_fini(&in);
	/* without hosts, names mean nothing */
	const char *nohosts =
	        "machine: {topology: switch, ranks: 4, placement: {nodes: "
	        "\"n[0-3]\"}}\n"
	        "communication: {collective: broadcast, root: 0, bytes: 8}\n";
	assert_int_equal(
	        front_parse_string("t.yaml", nohosts, strlen(nohosts), &in, &d),
	        CCP_EPARSE);
	assert_non_null(strstr(d.message, "which this machine does not have"));
	assert_int_equal(d.column, 51);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_expand),
	        cmocka_unit_test(test_refused),
	        cmocka_unit_test(test_index),
	        cmocka_unit_test(test_ranged),
	        cmocka_unit_test(test_machine_hosts),
	        cmocka_unit_test(test_place_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
