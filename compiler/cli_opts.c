/*
 * cli_opts.c - the option parsing every command of the ccplan program
 * shares (cli_opts.h): getopt_long with one-line usage errors and a hint,
 * -q and -V.  It is in the compiler library, not in compiler/cli/, so that
 * tau_cmd.c, whose command is also tested in process (tests/test_tau.c),
 * parses its subcommands' options the same way.  It prints: it is the
 * command line's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli_opts.h"
#include "compile.h"
#include "suggest.h"

const char *const cli_prog = "ccplan";

bool cli_quiet;

void cli_unexpected(const char *cmd, const char *arg, const char *help)
{
	char near[64];
	if (suggest_option(arg, help, near, sizeof near))
		fprintf(stderr,
		        "%s %s: unexpected argument '%s'; did you mean '%s'? "
		        "('%s %s --help' lists the options)\n",
		        cli_prog, cmd, arg, near, cli_prog, cmd);
	else
		cli_usage(cmd, "unexpected argument '%s'", arg);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s %s: ", cli_prog, cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; try '%s %s --help'\n", cli_prog, cmd);
	return EXIT_BADINPUT;
}

/* The option of opts that has val v, as the user spelt it in arg: "-o"
 * or "--emit". */
static void option_name(const struct option *opts, int v, const char *arg,
                        char *buf, size_t cap)
{
	if (strncmp(arg, "--", 2) == 0)
		for (const struct option *o = opts; o->name; o++)
			if (o->val == v) {
				snprintf(buf, cap, "--%s", o->name);
				return;
			}
	snprintf(buf, cap, "-%c", v);
}

/* The argument getopt_long has just refused: the element that holds the
 * short option opt when it is one of a cluster still being read, else
 * the element before optind. */
static const char *refused(int argc, char **argv, int opt)
{
	const char *a = optind < argc ? argv[optind] : NULL;
	if (opt && a && a[0] == '-' && a[1] != '-' && strchr(a + 1, opt))
		return a;
	return argv[optind - 1];
}

/* Whether the long option arg ("--a", "--a=1") begins more than one
 * name of opts, which getopt_long then refuses. */
static bool ambiguous(const struct option *opts, const char *arg)
{
	if (strncmp(arg, "--", 2) != 0)
		return false;
	size_t len = strcspn(arg + 2, "="), n = 0;
	for (const struct option *o = opts; o->name; o++)
		n += strncmp(o->name, arg + 2, len) == 0;
	return n > 1;
}

int cli_getopt_in(const char *name, const struct option *lopts,
                     const char *shorts, const char *help,
                     const char *const *args, int argc, char **argv)
{
	static const struct option common[] = {
	        {"quiet", no_argument, NULL, 'q'},
	        {"version", no_argument, NULL, 'V'},
	};
	struct option opts[48];
	char sh[48];
	size_t n = 0;
	for (; lopts[n].name && n < 45; n++)
		opts[n] = lopts[n];
	opts[n++] = common[0];
	opts[n++] = common[1];
	memset(&opts[n], 0, sizeof opts[n]);
	/* ':' first (after a '+'): a missing value is ':', not '?' */
	bool in_order = shorts[0] == '+';
	snprintf(sh, sizeof sh, "%s:%sqV", in_order ? "+" : "",
	         shorts + in_order);
	opterr = 0;
	for (;;) {
		int v = getopt_long(argc, argv, sh, opts, NULL);
		char oname[64];
		if (v == 'q') {
			cli_quiet = true;
			continue;
		}
		if (v == 'V') {
			printf("ccplan %s (plan format %d)\n", CCPLAN_VERSION,
			       IR_FILE_VERSION);
			return CLI_DONE;
		}
		if (v == 'h') {
			fputs(help, stdout);
			return CLI_DONE;
		}
		if (v == ':') {
			option_name(opts, optopt, argv[optind - 1], oname,
			            sizeof oname);
			const char *what = args && optopt > 0 && optopt < 128
			                           ? args[optopt]
			                           : NULL;
			cli_usage(name, "option '%s' needs %s", oname,
			          what ? what : "a value");
			return CLI_USAGE;
		}
		if (v == '?') {
			const char *arg = refused(argc, argv, optopt);
			if (optopt && strncmp(arg, "--", 2) == 0 &&
			    strchr(arg, '=')) {
				option_name(opts, optopt, arg, oname,
				            sizeof oname);
				cli_usage(name, "option '%s' takes no value",
				          oname);
			} else if (!optopt && ambiguous(opts, arg)) {
				cli_usage(name, "option '%s' is ambiguous",
				          arg);
			} else {
				cli_unexpected(name, arg, help);
			}
			return CLI_USAGE;
		}
		return v < 0 ? CLI_END : v;
	}
}

int cli_getopt_sub(const char *name, const struct cli_sub *s, int argc,
                   char **argv)
{
	return cli_getopt_in(name, s->opts, s->shorts, s->help, s->args,
	                     argc, argv);
}

int cli_stop(int v)
{
	return v == CLI_DONE ? EXIT_OK : EXIT_BADINPUT;
}

