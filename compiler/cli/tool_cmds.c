/*
 * tool_cmds.c - the options of `ccplan scan` and `ccplan run`, parsed
 * through cli_getopt into the struct their work takes: scan_run
 * (compiler/scan_cmd.c) and sock_run (backends/sock_launch.c, the sockets
 * transport's launcher).  Their tables of options are the ones the
 * command table (commands.c) gives completion and the man page check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "emit_c.h"
#include "progress.h"
#include "scan_cmd.h"
#include "sock_launch.h"

/* ---- scan ---------------------------------------------------------------- */

const char cli_scan_help[] =
        "usage: ccplan scan FILE.c... [--cache PATH | --emit c -o OUT.c "
        "[--symbol NAME]]\n"
        "                   [--yaml-dir DIR]... [-v] [-- COMPILER "
        "FLAGS...]\n"
        "\n"
        "Find the plans C sources ask for, by parsing them with libclang "
        "and the\n"
        "compiler flags after -- (so -D and -I work as in the build):\n"
        "  ccp_plan_lookup(ctx, \"NAME\", rank, &plan)    the name a "
        "literal after\n"
        "                                               macro "
        "expansion; its plan is\n"
        "                                               NAME.yaml in "
        "the file's directory\n"
        "                                               or a "
        "--yaml-dir\n"
        "  #pragma ccplan plan(NAME, \"FILE.yaml\")       FILE relative "
        "to the source\n"
        "Then compile each plan and store it in the plan cache under its "
        "name, or\n"
        "write every plan into one C file with the table ccplan_plans "
        "for\n"
        "ccp_plan_register (docs/scan.md).  Nothing is written if any "
        "source, pragma\n"
        "or plan has an error.  CCPLAN_SCAN is defined while parsing.\n"
        "  --cache PATH     the cache to fill (default $CCPLAN_CACHE, "
        "else\n"
        "                   $XDG_CACHE_HOME/ccplan/plans.db, else\n"
        "                   ~/.cache/ccplan/plans.db)\n"
        "  --emit c         write C source instead (needs -o)\n"
        "  -o OUT.c         the C file\n"
        "  --symbol NAME    the plan set's symbol (default ccplan_plans)\n"
        "  --depfile FILE   with --emit c: also write FILE, the make rule "
        "naming\n"
        "                   the sources and YAML files OUT.c depends on\n"
        "  --yaml-dir DIR   look for NAME.yaml in DIR too, after the "
        "calling file's\n"
        "                   directory (repeatable, searched in order)\n"
        "  -v               print every request with its position, and "
        "what became\n"
        "                   of every plan, on stderr\n";

/* The options of scan, and what their values are. */
const struct option cli_scan_opts[] = {
        {"cache", required_argument, NULL, 'C'},
        {"emit", required_argument, NULL, 'e'},
        {"symbol", required_argument, NULL, 'S'},
        {"depfile", required_argument, NULL, 'D'},
        {"yaml-dir", required_argument, NULL, 'Y'},
        {"help", no_argument, NULL, 'h'},
        {0},
};
const char *const cli_scan_args[128] = {
        ['C'] = "a cache file",
        ['e'] = "a format (c)",
        ['o'] = "a file name",
        ['S'] = "a C identifier",
        ['D'] = "a file name",
        ['Y'] = "a directory",
};

/* The index of the first "--" of argv, which ends scan's options and
 * begins the compiler flags, or argc. */
static int flags_at(int argc, char **argv)
{
	for (int k = 1; k < argc; k++)
		if (strcmp(argv[k], "--") == 0)
			return k;
	return argc;
}

/* Parse scan's options into *o (files and dirs point into argv, in the
 * arrays the caller frees); an exit status if they are wrong or asked for
 * help, else -1. */
static int scan_args(int argc, char **argv, struct scan_opts *o,
                     const char **files, const char **dirs)
{
	int end = flags_at(argc, argv), v;
	size_t nf = 0, nd = 0;
	memset(o, 0, sizeof *o);
	while ((v = cli_getopt(end, argv)) >= 0) {
		if (v == 'C') {
			o->cache_path = optarg;
		} else if (v == 'e') {
			if (strcmp(optarg, "c") != 0) {
				fprintf(stderr,
				        "%s scan: --emit: unknown format '%s'; "
				        "expected c\n",
				        cli_prog, optarg);
				return EXIT_BADINPUT;
			}
			o->emit = true;
		} else if (v == 'o') {
			o->out = optarg;
		} else if (v == 'S') {
			o->symbol = optarg;
		} else if (v == 'D') {
			o->depfile = optarg;
		} else if (v == 'Y') {
			dirs[nd++] = optarg;
		} else if (v == 'v') {
			o->verbose = true;
		}
	}
	if (v != CLI_END)
		return cli_stop(v);
	for (int k = optind; k < end; k++)
		files[nf++] = argv[k];
	o->files = files;
	o->nfiles = nf;
	o->dirs = dirs;
	o->ndirs = nd;
	if (end < argc) {
		o->flags = (const char *const *)argv + end + 1;
		o->nflags = argc - end - 1;
	}
	const char *why = NULL;
	if (!o->nfiles)
		why = "no source files";
	else if (o->emit && o->cache_path)
		why = "--emit c writes a C file, --cache fills the cache: "
		      "give one";
	else if (o->emit && !o->out)
		why = "--emit c needs -o OUT.c";
	else if (!o->emit && (o->out || o->symbol || o->depfile))
		why = "-o, --symbol and --depfile go with --emit c";
	if (why)
		return cli_usage("scan", "%s", why);
	if (!o->symbol)
		o->symbol = SCAN_SYMBOL_DEFAULT;
	if (!emit_c_name_ok(o->symbol) || strlen(o->symbol) > SCAN_SYMBOL_MAX) {
		fprintf(stderr,
		        "ccplan scan: --symbol '%s': want a C identifier of at "
		        "most %d characters, not a keyword, not starting with "
		        "'_' or 'ccp_'\n",
		        o->symbol, SCAN_SYMBOL_MAX);
		return EXIT_BADINPUT;
	}
	summary_note("%zu source%s%s%s", nf, nf == 1 ? "" : "s",
	             o->out ? " -> " : "", o->out ? o->out : "");
	return -1;
}

int cli_scan(int argc, char **argv)
{
	struct scan_opts o;
	const char **files = calloc((size_t)argc, sizeof *files);
	const char **dirs = calloc((size_t)argc, sizeof *dirs);
	int rc = EXIT_INTERNAL;
	if (!files || !dirs)
		fprintf(stderr, "%s scan: out of memory\n", cli_prog);
	else if ((rc = scan_args(argc, argv, &o, files, dirs)) < 0)
		rc = scan_run(&o);
	free(files);
	free(dirs);
	return rc;
}

/* ---- run ----------------------------------------------------------------- */

const char cli_run_help[] =
        "usage: ccplan run -n N [--hostfile FILE] [-H HOSTS] [--timeout S] "
        "[-v]\n"
        "                  PROGRAM [ARGS...]\n"
        "\n"
        "Start N ranks of PROGRAM, which uses the sockets transport "
        "(ccplan_sockets.h),\n"
        "and wire them up over TCP.  The launcher serves the ranks' agree "
        "and\n"
        "barrier and watches them: when one fails (exits with a status "
        "other than 0,\n"
        "is killed, drops its connection, or reports a transport error), "
        "every other\n"
        "rank is told at once and fails with CCP_EPEER.  Exit status: that "
        "of the\n"
        "first rank that failed (128 + signal when killed), 1 when every "
        "rank\n"
        "exited 0 but the job failed, 0 otherwise; 2 bad arguments, 3 "
        "launcher error.\n"
        "  -n N             ranks to start (1 to 4096)\n"
        "  --hostfile FILE  hosts to start them on: one per line, "
        "'HOST', 'HOST:K'\n"
        "                   or 'HOST slots=K',\n"
        "                   '#' comments; ranks fill each host's slots in "
        "order, then\n"
        "                   wrap round.  localhost, 127.0.0.1 and this "
        "host's name\n"
        "                   start locally, others through ssh (BatchMode)\n"
        "  -H, --host HOSTS the same as a list: 'a:2,b:2' or 'a,b' (after "
        "the\n"
        "                   hostfile's hosts when both are given)\n"
        "  --timeout S      seconds a rank may wait without progress before "
        "it fails\n"
        "                   (sets CCPLAN_TIMEOUT_MS; default 30); also the "
        "grace the\n"
        "                   other ranks get to exit after a failure, and "
        "when ranks\n"
        "                   not connected by then are named\n"
        "  -v               say what the launcher does, on stderr\n"
        "Environment given to each rank: CCPLAN_RANK, CCPLAN_SIZE, "
        "CCPLAN_RUN_ADDR,\n"
        "CCPLAN_RUN_KEY_FD (and CCPLAN_TIMEOUT_MS).  The job's key comes on "
        "that\n"
        "descriptor (through ssh's standard input for a remote rank), never "
        "in a\n"
        "command line; every connection authenticates by challenge and "
        "response.\n"
        "See docs/sockets.md.\n";

/* The options of run, and what their values are.  Its options end at
 * PROGRAM (the '+' of its shorts in the table): what follows is the
 * program's. */
const struct option cli_run_opts[] = {
        {"hostfile", required_argument, NULL, 'F'},
        {"host", required_argument, NULL, 'H'},
        {"timeout", required_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},
        {0},
};
const char *const cli_run_args[128] = {
        ['n'] = "a number of ranks",
        ['F'] = "a file name",
        ['H'] = "a list of hosts",
        ['T'] = "a number of seconds",
};

int cli_run(int argc, char **argv)
{
	struct run_opts o = {0};
	char *end;
	int v;
	static char n_opt[] = "-n";
	/* -np N, as mpirun spells it, is -n N: among the options, which
	 * end at PROGRAM */
	for (int k = 1; k < argc && argv[k][0] == '-'; k++) {
		if (strcmp(argv[k], "--") == 0)
			break;
		if (strcmp(argv[k], "-np") == 0)
			argv[k] = n_opt;
		if (!strcmp(argv[k], "-n") || !strcmp(argv[k], "--hostfile") ||
		    !strcmp(argv[k], "--timeout") || !strcmp(argv[k], "-H") ||
		    !strcmp(argv[k], "--host"))
			k++; /* its value */
	}
	while ((v = cli_getopt(argc, argv)) >= 0) {
		errno = 0;
		if (v == 'n') {
			long n = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || n < 1 ||
			    n > RUN_MAX_RANKS) {
				fprintf(stderr,
				        "ccplan run: -n %s: expected 1 to "
				        "%d ranks\n",
				        optarg, RUN_MAX_RANKS);
				return EXIT_BADINPUT;
			}
			o.n = (int)n;
		} else if (v == 'F') {
			o.hostfile = optarg;
		} else if (v == 'H') {
			o.hosts = optarg;
		} else if (v == 'T') {
			o.timeout_s = strtod(optarg, &end);
			if (errno || *end || end == optarg ||
			    !(o.timeout_s >= 0.001) || o.timeout_s > 86400) {
				fprintf(stderr,
				        "ccplan run: --timeout %s: "
				        "expected seconds, from 0.001 to "
				        "86400\n",
				        optarg);
				return EXIT_BADINPUT;
			}
		} else if (v == 'v') {
			o.verbose = true;
		}
	}
	if (v != CLI_END)
		return cli_stop(v);
	if (o.n == 0)
		return cli_usage("run", "-n N is required");
	if (optind >= argc)
		return cli_usage("run", "no program to run");
	o.prog = argv + optind;
	summary_note("%d ranks of %s", o.n, o.prog[0]);
	return sock_run(&o);
}
