/*
 * main.c - the ccplan program: dispatch through the table of commands
 * (commands.c), `ccplan --help` and `ccplan help`, and the one summary
 * line every command ends with on stderr.  Only this program exits;
 * everything below it returns codes.  Exit status: 0 ok, 1 plan rejected
 * by the verifier, 2 bad input, 3 internal error.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "front.h"
#include "help_topics.h"
#include "progress.h"
#include "sched.h"
#include "suggest.h"


/* Columns of the command list before the summaries. */
#define USAGE_COLS 30

/* The list of commands from the table: "  USAGE   SUMMARY", in 80
 * columns, the summary wrapped under itself. */
static void list_commands(FILE *out)
{
	for (const struct cli_command *c = cli_commands; c->name; c++) {
		char line[512];
		bool wide = strlen(c->usage) > USAGE_COLS;
		int n = snprintf(line, sizeof line, "  %-*s%s%s", USAGE_COLS,
		                 c->usage, wide ? "  " : " ", c->summary);
		if (n > 0 && (size_t)n < sizeof line)
			help_wrap(out, line, USAGE_COLS + 3, 80);
	}
}

/* `ccplan --help`: the commands, the algorithms, where to read more. */
static void usage_main(FILE *out)
{
	fprintf(out, "usage: ccplan COMMAND [ARGS]\n"
	             "\n"
	             "Compile collective communication schedules for a "
	             "parallel machine.\n"
	             "\n"
	             "commands:\n");
	list_commands(out);
	fprintf(out, "\n");
	char names[1024] = "algorithms:";
	size_t at = strlen(names);
	for (int k = 0; sch_generators[k] && at < sizeof names; k++)
		at += (size_t)snprintf(names + at, sizeof names - at, " %s",
		                       sch_generators[k]->name);
	if (at < sizeof names)
		snprintf(names + at, sizeof names - at, " auto");
	help_wrap(out, names, 2, 79);
	fprintf(out, "\n"
	             "'ccplan COMMAND --help' describes a command; 'ccplan "
	             "help algorithms' the\n"
	             "algorithms.  Every command ends with a one-line summary "
	             "on stderr\n"
	             "(-q: none).  -V: the version.\n"
	             "Exit status: 0 ok, 1 plan rejected by the verifier, 2 "
	             "bad input,\n"
	             "3 internal error.  Manual: man ccplan; docs/cli.md.\n");
}

/* Whether option o (a long option's name, or a short option's letter
 * when name is NULL) is one of sub's own. */
static bool sub_has(const struct cli_sub *sub, const char *name, char letter)
{
	if (!name)
		return letter && strchr(sub->shorts, letter);
	for (const struct option *o = sub->opts; o->name; o++)
		if (strcmp(o->name, name) == 0)
			return true;
	return false;
}

/* Print name, then the options of opts and shorts (-X, --NAME) that are
 * no subcommand's of subs (NULL: none), on one line. */
static void list_options(FILE *out, const char *name,
                         const struct option *opts, const char *shorts,
                         const struct cli_sub *subs)
{
	fputs(name, out);
	for (const char *s = shorts; *s; s++) {
		bool own = *s != ':' && *s != '+' && *s != 'h';
		for (const struct cli_sub *u = subs; own && u && u->name; u++)
			own = !sub_has(u, NULL, *s);
		if (own)
			fprintf(out, " -%c", *s);
	}
	for (const struct option *o = opts; o->name; o++) {
		bool own = true;
		for (const struct cli_sub *u = subs; own && u && u->name; u++)
			own = !sub_has(u, o->name, 0);
		if (own)
			fprintf(out, " --%s", o->name);
	}
	fputc('\n', out);
}

/* `ccplan --list-commands` (for the bash completion and the test of the
 * man page): one line per command of the table, its name and then its
 * options (-X, --NAME); then one per subcommand, "COMMAND:SUB" and the
 * options that are its own. */
static void list_for_tools(FILE *out)
{
	for (const struct cli_command *c = cli_commands; c->name; c++) {
		list_options(out, c->name, c->opts, c->shorts, c->subs);
		for (const struct cli_sub *u = c->subs; u && u->name; u++) {
			char name[64];
			snprintf(name, sizeof name, "%s:%s", c->name, u->name);
			list_options(out, name, u->opts, u->shorts, NULL);
		}
	}
}

/* `ccplan COMMAND --help`. */
static int command_help(const struct cli_command *c)
{
	if (c->help) {
		fputs(c->help, stdout);
		return EXIT_OK;
	}
	char name[32], help[] = "--help";
	snprintf(name, sizeof name, "%s", c->name);
	char *av[] = {name, help, NULL};
	return c->run(2, av);
}

/* ccplan help [TOPIC]: a topic (help_topics.c), a command's usage, or
 * what an algorithm is; else the nearest of all three.  Without a topic,
 * the usage of ccplan. */
int cli_help(int argc, char **argv)
{
	if (argc < 2 || cli_is_help(argv[1])) {
		usage_main(stdout);
		return EXIT_OK;
	}
	const char *topic = argv[1];
	if (help_topic_print(topic, stdout) == 0)
		return EXIT_OK;
	const struct cli_command *c = cli_find(topic);
	if (c)
		return strcmp(topic, "help") ? command_help(c)
		                             : cli_help(1, argv);
	if (help_algorithm_print(topic, stdout) == 0)
		return EXIT_OK;
	const char *names[128];
	size_t n = 0;
	for (int i = 0; help_topic_names[i] && n < 128; i++)
		names[n++] = help_topic_names[i];
	for (int i = 0; cli_commands[i].name && n < 128; i++)
		names[n++] = cli_commands[i].name;
	for (int k = 0; sch_generators[k] && n < 127; k++)
		names[n++] = sch_generators[k]->name;
	names[n++] = "auto";
	const char *near = suggest_nearest(topic, names, n);
	if (near)
		fprintf(stderr,
		        "%s help: no topic, command or algorithm '%s'; did you "
		        "mean '%s'?\n",
		        cli_prog, topic, near);
	else
		fprintf(stderr,
		        "%s help: no topic, command or algorithm '%s'; the "
		        "topics are input-format,\nplan-format, algorithms, "
		        "presets, environment and exit-status\n",
		        cli_prog, topic);
	return EXIT_BADINPUT;
}

/* Run the command of argv[1]. */
static int dispatch(int argc, char **argv)
{
	if (argc < 2) {
		usage_main(stderr);
		return EXIT_BADINPUT;
	}
	const char *cmd = argv[1];
	if (cli_is_help(cmd)) {
		usage_main(stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("ccplan %s (plan format %d)\n", CCPLAN_VERSION,
		       IR_FILE_VERSION);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--list-commands") == 0) {
		list_for_tools(stdout);
		return EXIT_OK;
	}
	const struct cli_command *c = cli_find(cmd);
	if (c)
		return c->run(argc - 1, argv + 1);
	const char *names[64];
	size_t n = 0;
	for (; cli_commands[n].name && n < 64; n++)
		names[n] = cli_commands[n].name;
	const char *near = suggest_nearest(cmd, names, n);
	if (near) {
		fprintf(stderr,
		        "%s: unknown command '%s'; did you mean '%s'? ('%s "
		        "--help' lists the commands)\n",
		        cli_prog, cmd, near, cli_prog);
		return EXIT_BADINPUT;
	}
	fprintf(stderr, "%s: unknown command '%s'\n\n", cli_prog, cmd);
	usage_main(stderr);
	return EXIT_BADINPUT;
}

/* Does the command line ask for a command's help or the version (then
 * its output is the point, and there is no summary)?  Only the command's own options
 * count: not the arguments of ccplan run's PROGRAM, nor the compiler
 * flags after scan's "--". */
static bool asks_help(int argc, char **argv)
{
	bool run = strcmp(argv[1], "run") == 0;
	for (int k = 2; k < argc; k++) {
		if (strcmp(argv[k], "--") == 0)
			return false;
		if (cli_is_help(argv[k]) || strcmp(argv[k], "-V") == 0 ||
		    strcmp(argv[k], "--version") == 0)
			return true;
		if (run && argv[k][0] != '-')
			return false; /* PROGRAM */
		if (run && strcmp(argv[k], "-v") != 0)
			k++; /* an option's value */
	}
	return false;
}

/* The value of option opt in argv[from..argc), or NULL. */
static const char *option(int argc, char **argv, int from, const char *opt)
{
	for (int k = from; k + 1 < argc; k++) {
		if (strcmp(argv[k], "--") == 0)
			return NULL;
		if (strcmp(argv[k], opt) == 0)
			return argv[k + 1];
	}
	return NULL;
}

/* The command as the summary names it ("compile", "cache ls", "tau
 * fit"), and a first note for the commands whose code does not make one
 * (scan, tau, run), from the command line. */
static void summary_start(int argc, char **argv, char *name, size_t cap)
{
	const char *cmd = argv[1], *sub = NULL, *out;
	int k = 2;
	if (strcmp(cmd, "cache") == 0) {
		while (k < argc && (argv[k][0] == '-' || (k > 2 &&
		       strcmp(argv[k - 1], "--cache") == 0)))
			k++;
		sub = k < argc ? argv[k] : NULL;
	} else if ((strcmp(cmd, "tau") == 0 || strcmp(cmd, "import") == 0) &&
	           argc > 2 && argv[2][0] != '-') {
		sub = argv[2];
	}
	snprintf(name, cap, "%s%s%.16s", cmd, sub ? " " : "", sub ? sub : "");
	out = option(argc, argv, 2, "-o");
	if (strcmp(cmd, "scan") == 0) {
		int n = 0;
		for (k = 2; k < argc && strcmp(argv[k], "--") != 0; k++) {
			if (argv[k][0] == '-' && strcmp(argv[k], "-v") != 0)
				k++; /* an option and its value */
			else if (argv[k][0] != '-')
				n++;
		}
		summary_note("%d source%s%s%s", n, n == 1 ? "" : "s",
		             out ? " -> " : "", out ? out : "");
	} else if (strcmp(cmd, "run") == 0) {
		const char *ranks = option(argc, argv, 2, "-n");
		for (k = 2; k < argc && argv[k][0] == '-'; k++)
			if (strcmp(argv[k], "-v") != 0 &&
			    strcmp(argv[k], "--") != 0)
				k++;
		summary_note("%s ranks of %s", ranks ? ranks : "?",
		             k < argc ? argv[k] : "?");
	} else if (sub && strcmp(cmd, "tau") == 0) {
		if (out)
			summary_note("-> %s", out);
		else if (argc > 3 && argv[3][0] != '-')
			summary_note("%s", argv[3]);
	}
}

int main(int argc, char **argv)
{
	/* a file size limit (ulimit -f) makes a write fail with EFBIG, which
	 * the commands report, instead of killing the process mid-write;
	 * not for run, whose ranks would inherit the ignored signal */
	if (argc < 2 || strcmp(argv[1], "run") != 0)
		signal(SIGXFSZ, SIG_IGN);
	/* -q before the command is every command's -q: no summary line */
	while (argc > 1 && (strcmp(argv[1], "-q") == 0 ||
	                    strcmp(argv[1], "--quiet") == 0)) {
		cli_quiet = true;
		argv[1] = argv[0];
		argc--, argv++;
	}
	if (argc < 2 || !cli_find(argv[1]) || strcmp(argv[1], "help") == 0 ||
	    asks_help(argc, argv))
		return dispatch(argc, argv);
	/* every command ends with one line on stderr: what it did, or its
	 * exit status in words, and how long it took */
	char name[64], line[1024];
	double t0 = progress_now(NULL);
	summary_start(argc, argv, name, sizeof name);
	/* the limit on what a compile may build, for every command that
	 * builds plans (compile --max-memory overrides it) */
	const char *lim = getenv(FRONT_MAX_MEMORY_ENV);
	int status = lim && *lim && strcmp(argv[1], "run") != 0 &&
	                             !cli_max_memory(": " FRONT_MAX_MEMORY_ENV, lim)
	                     ? EXIT_BADINPUT
	                     : dispatch(argc, argv);
	int shown = status;
	if (status != 0 && strcmp(argv[1], "run") == 0) {
		/* run passes on a rank's status: not one of ours to name */
		char note[512];
		snprintf(note, sizeof note, "%s", summary_get());
		summary_note("%s: exit %d", note, status);
		shown = 0;
	}
	summary_format(line, sizeof line, name, shown,
	               progress_now(NULL) - t0);
	fflush(stdout);
	if (!cli_quiet)
		fprintf(stderr, "%s\n", line);
	return status;
}
