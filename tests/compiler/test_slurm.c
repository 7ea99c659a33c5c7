/*
 * test_slurm.c - Slurm's topology.conf into a machine (compiler/front/
 * slurm.c): the YAML written for trees of two and three levels (node
 * order, compressed names, LinkSpeed as relative bandwidth, keys in any
 * case, comments), and every check of one tree refused at its
 * line:column with nothing written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "front/slurm.h"

/* Import text (must succeed) and compare with want. */
static void imports_to(const char *text, const char *want)
{
	struct diag d;
	char *yaml = NULL;
	int rc = slurm_import_text("topology.conf", text, strlen(text), NULL, &yaml,
	                           &d);

	if (rc != 0)
		fail_msg("%s:%d:%d: %s", d.file, d.line, d.column, d.message);
	if (strcmp(yaml, want) != 0)
		fail_msg("got:\n%s\nwant:\n%s", yaml, want);
	free(yaml);
}

static void test_two_levels(void **state)
{
	(void)state;
	imports_to("# 16 nodes under 4 leaves and a spine\n"
	           "SwitchName=s0 Nodes=n[0-3]\n"
	           "SwitchName=s1 Nodes=n[4-7]\n"
	           "switchname=s2 NODES=n[8-11]   # keys in any case\n"
	           "\n"
	           "  SwitchName=s3\tNodes=n[12-15]\r\n"
	           "SwitchName=top Switches=s[0-3]\n",
	           "# from topology.conf by ccplan import slurm\n"
	           "# 16 nodes, 5 switches; add communication: to compile "
	           "for it\n"
	           "machine:\n"
	           "  topology: graph\n"
	           "  routing: shortest\n"
	           "  hosts: \"n[0-15]\"   # node order: as listed under the "
	           "leaf switches\n"
	           "  graph:\n"
	           "    switches: \"s[0-3],top\"\n"
	           "    links:\n"
	           "      - [s0, \"n[0-3]\"]\n"
	           "      - [s1, \"n[4-7]\"]\n"
	           "      - [s2, \"n[8-11]\"]\n"
	           "      - [s3, \"n[12-15]\"]\n"
	           "      - [top, \"s[0-3]\"]\n"
	           "  ranks_per_node: 1   # set to the ranks (processes) each "
	           "node runs\n");
}

/* Three levels, the top first in the file, nodes out of order, padded
 * names, and LinkSpeed relative to the slowest. */
static void test_three_levels(void **state)
{
	(void)state;
	imports_to("SwitchName=core Switches=spine[1-2] LinkSpeed=400\n"
	           "SwitchName=leaf01 Nodes=cn[001-004] LinkSpeed=100\n"
	           "SwitchName=leaf02 Nodes=cn[007,005-006],gpu1 "
	           "LinkSpeed=100\n"
	           "SwitchName=leaf03 Nodes=cn[008-011] LinkSpeed=100\n"
	           "SwitchName=spine1 Switches=leaf02,leaf01 LinkSpeed=150\n"
	           "SwitchName=spine2 Switches=leaf03 LinkSpeed=150\n",
	           "# from topology.conf by ccplan import slurm\n"
	           "# 12 nodes, 6 switches; add communication: to compile "
	           "for it\n"
	           "machine:\n"
	           "  topology: graph\n"
	           "  routing: shortest\n"
	           "  hosts: \"cn[001-004,007,005-006],gpu1,cn[008-011]\"   "
	           "# node order: as listed under the leaf switches\n"
	           "  graph:\n"
	           "    switches: \"core,leaf[01-03],spine[1-2]\"\n"
	           "    links:\n"
	           "      - {ends: [core, \"spine[1-2]\"], bandwidth: 4}\n"
	           "      - {ends: [leaf01, \"cn[001-004]\"], bandwidth: 1}\n"
	           "      - {ends: [leaf02, \"cn[007,005-006],gpu1\"], "
	           "bandwidth: 1}\n"
	           "      - {ends: [leaf03, \"cn[008-011]\"], bandwidth: 1}\n"
	           "      - {ends: [spine1, \"leaf[02,01]\"], bandwidth: 1.5}\n"
	           "      - {ends: [spine2, leaf03], bandwidth: 1.5}\n"
	           "  ranks_per_node: 1   # set to the ranks (processes) each "
	           "node runs\n");
}

/* One switch alone, names YAML would misread quoted. */
static void test_one_switch(void **state)
{
	(void)state;
	imports_to("SwitchName=on Nodes=true,n1:a LinkSpeed=5\n",
	           "# from topology.conf by ccplan import slurm\n"
	           "# 2 nodes, 1 switch; add communication: to compile for "
	           "it\n"
	           "machine:\n"
	           "  topology: graph\n"
	           "  routing: shortest\n"
	           "  hosts: \"true,n1:a\"   # node order: as listed under the "
	           "leaf switches\n"
	           "  graph:\n"
	           "    switches: \"on\"\n"
	           "    links:\n"
	           "      - [\"on\", \"true,n1:a\"]\n"
	           "  ranks_per_node: 1   # set to the ranks (processes) each "
	           "node runs\n");
}

static void test_refused(void **state)
{
	static const struct {
		const char *text;
		int line, col;
		const char *msg;
	} bad[] = {
	        {"SwitchName=s0 Nodes=n[0-3]\nSwitchName=s0 Nodes=n[4-7]\n", 2,
	         12, "switch 's0' is defined twice (first on line 1)"},
	        {"SwitchName=s0 Nodes=n[0-3]\nSwitchName=t Switches=s[0-1]\n",
	         2, 23, "Switches: no switch 's1' (no line SwitchName=s1)"},
	        {"SwitchName=s0 Nodes=n1\nSwitchName=a Switches=s0\n"
	         "SwitchName=b Switches=s0\n",
	         3, 23,
	         "Switches: switch 's0' is already under switch 'a' (line 2)"},
	        {"SwitchName=a Switches=b\nSwitchName=b Switches=c\n"
	         "SwitchName=c Switches=a\n",
	         1, 12,
	         "switch 'a' is its own ancestor (a under c under b under a)"},
	        {"SwitchName=a Switches=a\n", 1, 23,
	         "Switches: switch 'a' lists itself"},
	        {"SwitchName=s0 Nodes=n[0-3]\nSwitchName=s1 Nodes=x,n[3-4]\n"
	         "SwitchName=t Switches=s[0-1]\n",
	         2, 23,
	         "Nodes: node 'n3' is already under switch 's0' (line 1)"},
	        {"SwitchName=s0 Nodes=n1,n2,n1\n", 1, 27,
	         "Nodes: 'n1' is listed twice"},
	        {"SwitchName=s0 Nodes=n[0-3]\nSwitchName=s1 Nodes=n[4-7]\n", 2,
	         12, "switch 's1' is a second top switch (the first is 's0'"},
	        {"SwitchName=s0 Node=n[0-3]\n", 1, 15,
	         "unknown parameter 'Node'; did you mean 'Nodes'?"},
	        {"SwitchName=s0 Nodes=n[0-3\n", 1, 22,
	         "Nodes: '[' is never closed"},
	        {"SwitchName=s0 Nodes=n1 LinkSpeed=1\n"
	         "SwitchName=s1 Nodes=n2\n"
	         "SwitchName=t Switches=s[0-1] LinkSpeed=2\n",
	         2, 1, "switch 's1' has no LinkSpeed, which line 1 gives"},
	        {"SwitchName=s0 Nodes=n1 Switches=x\n", 1, 24,
	         "switch 's0' has both Switches= and Nodes="},
	        {"SwitchName=s0\n", 1, 1, "switch 's0' has no children"},
	        {"# nothing here\n\n", 2, 1, "no switch"},
	        {"", 1, 1, "no switch"},
	        {"BlockName=b1 Nodes=n[0-3]\n", 1, 1,
	         "BlockName belongs to Slurm's topology/block plugin"},
	        {"SwitchName=s0 Nodes=n1,s0\n", 1, 24,
	         "Nodes: 's0' is the name of a switch (line 1)"},
	        {"SwitchName=s0 Nodes=n1\nSwitchName=t Switches=s0,n1\n", 2, 26,
	         "Switches: 'n1' is a node (of switch 's0'), not a switch"},
	        {"Nodes=n1\n", 1, 1, "defines a switch: SwitchName=NAME"},
	        {"SwitchName=s0 Nodes=\n", 1, 21, "Nodes: the value is empty"},
	        {"SwitchName=s0 Nodes=n1 nodes=n2\n", 1, 24,
	         "Nodes is given twice on this line (first at column 15)"},
	        {"SwitchName=s[0-1] Nodes=n1\n", 1, 13,
	         "SwitchName: one name of letters"},
	        {"SwitchName=s0 Nodes=n1 LinkSpeed=fast\n", 1, 34,
	         "LinkSpeed: expected a whole number"},
	        {"SwitchName=s0 Nodes=n1 LinkSpeed=0\n", 1, 34,
	         "LinkSpeed: expected a whole number"},
	        {"SwitchName=s0 Nodes=n1 LinkSpeed\n", 1, 24,
	         "expected Key=Value, got 'LinkSpeed'"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct diag d;
		char *yaml = (char *)"untouched";
		int rc = slurm_import_text("t.conf", bad[i].text,
		                           strlen(bad[i].text), NULL, &yaml, &d);
		if (rc != CCP_EPARSE || yaml != NULL ||
		    strcmp(d.file, "t.conf") != 0 || d.line != bad[i].line ||
		    d.column != bad[i].col || !strstr(d.message, bad[i].msg))
			fail_msg("case %zu: rc %d %s:%d:%d %s; want %d:%d %s",
			         i, rc, d.file, d.line, d.column, d.message,
			         bad[i].line, bad[i].col, bad[i].msg);
	}
}

/* A file that cannot be read: CCP_EIO, without a position. */
static void test_missing_file(void **state)
{
	struct diag d;
	char *yaml = NULL;
	(void)state;

	assert_int_equal(
	        slurm_import_file("/nonexistent/topology.conf", NULL, &yaml, &d),
	        CCP_EIO);
	assert_null(yaml);
	assert_int_equal(d.line, 0);
	assert_non_null(strstr(d.message, "cannot open"));
}

/* topology.yaml: the tree marked cluster_default, its switches as
 * topology.conf's lines; the other topologies skipped; problems at
 * their line:column, in the YAML's own key names. */
static void test_yaml(void **state)
{
	(void)state;
	const char *text = "- topology: blocks\n"
	                   "  block: {block_sizes: [2], blocks: []}\n"
	                   "- topology: fabric\n"
	                   "  cluster_default: True\n"
	                   "  tree:\n"
	                   "    switches:\n"
	                   "    - switch: s0\n"
	                   "      nodes: \"n[0-1]\"\n"
	                   "    - {switch: s1, nodes: \"n[2-3]\"}\n"
	                   "    - switch: top\n"
	                   "      children: s[0-1]\n";
	struct diag d;
	char *yaml = NULL;
	int rc = slurm_import_text("topology.yaml", text, strlen(text), NULL,
	                           &yaml, &d);
	if (rc != 0)
		fail_msg("%s:%d:%d: %s", d.file, d.line, d.column, d.message);
	assert_non_null(strstr(yaml, "# from topology.yaml by ccplan import "
	                             "slurm\n"));
	assert_non_null(strstr(yaml, "  hosts: \"n[0-3]\""));
	assert_non_null(strstr(yaml, "      - [top, \"s[0-1]\"]\n"));
	free(yaml);
	/* the same tree named; a name that is no tree */
	rc = slurm_import_text("t.yml", text, strlen(text), "fabric", &yaml,
	                       &d);
	assert_int_equal(rc, 0);
	free(yaml);
	static const struct {
		const char *text, *topology, *msg;
		int line, col;
	} bad[] = {
	        {"- topology: a\n  tree:\n    switches:\n    - switch: s\n"
	         "      nodes: n[1-2]\n      children: t\n",
	         NULL, "switch 's' has both children and nodes", 6, 7},
	        {"- topology: a\n  tree:\n    switches:\n    - switch: s\n"
	         "      children: t\n",
	         NULL, "children: no switch 't' (no entry switch: t)", 5, 17},
	        {"- topology: a\n  tree:\n    switches:\n    - switch: s\n"
	         "      nodes: [n1, n2]\n",
	         NULL, "tree.switches[0].nodes: expected a hostlist", 5, 14},
	        {"- topology: a\n  tree:\n    switches:\n    - switch: s\n"
	         "      nodes: n1\n",
	         "b", "no tree topology 'b' (its trees: a)", 1, 1},
	        {"- topology: a\n  flat: true\n", NULL,
	         "no tree topology (block and flat", 1, 1},
	        {"- topology: a\n  cluster_default: yes\n  flat: true\n",
	         NULL, "[0].cluster_default: expected true or false", 2, 20},
	        {"topology: a\n", NULL, "expected a list of topologies", 1, 1},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		yaml = (char *)"untouched";
		rc = slurm_import_text("t.yaml", bad[i].text,
		                       strlen(bad[i].text), bad[i].topology,
		                       &yaml, &d);
		if (rc != CCP_EPARSE || yaml != NULL ||
		    d.line != bad[i].line || d.column != bad[i].col ||
		    !strstr(d.message, bad[i].msg))
			fail_msg("case %zu: rc %d %d:%d %s; want %d:%d %s", i,
			         rc, d.line, d.column, d.message, bad[i].line,
			         bad[i].col, bad[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_two_levels),
	        cmocka_unit_test(test_three_levels),
	        cmocka_unit_test(test_one_switch),
	        cmocka_unit_test(test_refused),
	        cmocka_unit_test(test_missing_file),
	        cmocka_unit_test(test_yaml),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
