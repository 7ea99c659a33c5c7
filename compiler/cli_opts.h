/*
 * cli_opts.h - the option parsing every command of the ccplan program
 * shares: getopt_long over a command's table of options, with -h, -q and
 * -V for every command, and usage errors said in one line with a hint to
 * the command's --help.  The table of commands is compiler/cli/cli.h's;
 * this part is in the compiler library so that tau_cmd.c parses its
 * subcommands with it too.
 */
#ifndef CCP_CLI_OPTS_H
#define CCP_CLI_OPTS_H

#include <getopt.h>
#include <stdbool.h>

/* A subcommand (cache gc, tau fit): its name and the options only it
 * takes, for completion and the man page, and for one that parses its
 * own options (tau fit), what cli_getopt_sub needs. */
struct cli_sub {
	const char *name;          /* as typed: "gc" */
	const struct option *opts; /* its own long options; never NULL */
	const char *shorts;        /* its own short options ("o:") */
	const char *help;          /* its --help text, or NULL */
	const char *const *args;   /* what its options' values are, by val
	                              (as cli_command's), or NULL */
};

/* The program's name, for messages. */
extern const char *const cli_prog;

/* -q or --quiet was given: no summary line at the end. */
extern bool cli_quiet;

/* What cli_getopt returns besides an option's val. */
enum {
	CLI_END = -1,  /* no more options: the operands are argv[optind..] */
	CLI_DONE = -2, /* --help or --version printed what it prints: exit 0 */
	CLI_USAGE = -3 /* a usage error, said in one line with a hint: exit 2 */
};

/* The next option of the command called name (its messages say "ccplan
 * NAME: ..."), among lopts (ended by a zeroed entry) and shorts, with
 * its --help text and what its options' values are (args, indexed by
 * val; NULL: "a value"): what cli_getopt (compiler/cli/cli.h) does for a
 * command of the table. */
int cli_getopt_in(const char *name, const struct option *lopts,
                  const char *shorts, const char *help,
                  const char *const *args, int argc, char **argv);

/* cli_getopt for subcommand s of a command, called name in messages
 * ("tau fit"), with argv[0] the subcommand: its options, help and args. */
int cli_getopt_sub(const char *name, const struct cli_sub *s, int argc,
                   char **argv);

/* The exit status for what cli_getopt returned when it stopped. */
int cli_stop(int v);

/* Say a usage error of command cmd in one line, "ccplan CMD: MESSAGE;
 * try 'ccplan CMD --help'", and return EXIT_BADINPUT. */
int cli_usage(const char *cmd, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* Say that command cmd does not take argument arg, in one line: with the
 * nearest of the options in its help text when arg looks like a misspelt
 * one, else with a hint to its --help. */
void cli_unexpected(const char *cmd, const char *arg, const char *help);

#endif
