/*
 * import_cmd.c - `ccplan import slurm topology.conf|topology.yaml
 * [--topology NAME] [-o machine.yaml]`:
 * a machine description written from another tool's file.  The reading
 * is compiler/front/slurm.c's; this file parses the command line and
 * writes the result, to stdout or atomically to -o's file (docs/slurm.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "front/slurm.h"
#include "progress.h"
#include "suggest.h"

const char cli_import_help[] =
        "usage: ccplan import slurm TOPOLOGY.conf|TOPOLOGY.yaml "
        "[--topology NAME]\n"
        "                           [-o MACHINE.yaml]\n"
        "\n"
        "Write a machine from Slurm's tree topology.conf (SwitchName= "
        "with Switches=\n"
        "or Nodes=, LinkSpeed=) or the tree of its topology.yaml (a file "
        "named *.yaml\n"
        "or *.yml: switches: [{switch: NAME, children: ... or nodes: "
        "...}]): a graph of\n"
        "the switches and nodes, with the node names as hosts, so that "
        "placement:\n"
        "{nodes: $SLURM_JOB_NODELIST} works (docs/slurm.md).  The file "
        "must describe\n"
        "one tree; every problem is reported at its file:line:column and "
        "nothing is\n"
        "written.\n"
        "  --topology NAME  topology.yaml: the tree topology NAME "
        "(default: the one\n"
        "                   marked cluster_default, or the only tree)\n"
        "  -o FILE          write the machine to FILE (replaced whole, or "
        "not at all);\n"
        "                   without it, to standard output\n";

const struct option cli_import_opts[] = {
        {"topology", required_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},
        {0},
};
const char *const cli_import_args[128] = {
        ['o'] = "a file name",
        ['T'] = "a topology name",
};
static const struct option slurm_opts[] = {
        {"topology", required_argument, NULL, 'T'},
        {0},
};
const struct cli_sub cli_import_subs[] = {
        {.name = "slurm", .opts = slurm_opts, .shorts = "o:"},
        {0},
};

int cli_import(int argc, char **argv)
{
	const char *out = NULL, *sub, *in, *topology = NULL;
	char *yaml = NULL, err[512];
	struct diag d;
	int v, rc;

	while ((v = cli_getopt(argc, argv)) >= 0)
		if (v == 'o')
			out = optarg;
		else if (v == 'T')
			topology = optarg;
	if (v != CLI_END)
		return cli_stop(v);
	if (optind >= argc)
		return cli_usage("import", "missing FORMAT: slurm");
	sub = argv[optind++];
	if (strcmp(sub, "slurm") != 0) {
		static const char *const formats[] = {"slurm"};
		const char *near = suggest_nearest(sub, formats, 1);
		if (near) {
			fprintf(stderr,
			        "%s import: unknown format '%s'; did you mean "
			        "'%s'?\n",
			        cli_prog, sub, near);
			return EXIT_BADINPUT;
		}
		return cli_usage("import",
		                 "unknown format '%s'; expected slurm", sub);
	}
	if (optind >= argc)
		return cli_usage("import", "slurm: missing TOPOLOGY.conf");
	in = argv[optind++];
	if (optind < argc) {
		cli_unexpected("import", argv[optind], cli_import_help);
		return EXIT_BADINPUT;
	}
	summary_note("%s%s%s", in, out ? " -> " : "", out ? out : "");
	rc = slurm_import_file(in, topology, &yaml, &d);
	if (rc) {
		cli_print_diag(&d);
		return exit_status(rc);
	}
	if (out) {
		rc = write_atomic(out, yaml, strlen(yaml), err, sizeof err);
		if (rc)
			fprintf(stderr, "%s import: %s\n", cli_prog, err);
	} else if (fputs(yaml, stdout) < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "%s import: cannot write the output\n",
		        cli_prog);
		rc = CCP_EIO;
	}
	free(yaml);
	return rc ? exit_status(rc) : EXIT_OK;
}
