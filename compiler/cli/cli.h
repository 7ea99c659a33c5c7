/*
 * cli.h - the ccplan program: one table of commands (name, handler,
 * usage, one-line summary, the options each takes), from which dispatch,
 * `ccplan --help`, `ccplan help COMMAND`, the bash completion and the
 * check of the man page all come; and the helpers the command files
 * share (reading inputs and plans, the cache options, messages).  Only
 * this program exits; the libraries below it return codes.
 */
#ifndef CCP_CLI_H
#define CCP_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli_opts.h"
#include "compile.h"

/* One command of the table. */
struct cli_command {
	const char *name;    /* as typed: "compile" */
	int (*run)(int argc, char **argv); /* argv[0] is the name; returns
	                                      the exit status (compile.h) */
	const char *usage;   /* its synopsis, after "ccplan ", for the list */
	const char *summary; /* what it does, in one line */
	const struct option *opts; /* the long options it takes, ended by
	                              a zeroed entry; never NULL */
	const char *shorts;  /* its short options, getopt's way ("o:v"; a
	                        leading '+': they end at the first operand) */
	const char *help;    /* its --help text; NULL when run prints it */
	const struct cli_sub *subs; /* its subcommands, ended by a NULL
	                               name; NULL when it has none */
	const char *const *args; /* what the value of each option that takes
	                            one is, indexed by the option's val ("a
	                            file name"), for "option '-o' needs a
	                            file name"; NULL when run parses itself */
};

/* The commands, in the order `ccplan --help` lists them, ended by an
 * entry whose name is NULL. */
extern const struct cli_command cli_commands[];

/* The command called name, or NULL. */
const struct cli_command *cli_find(const char *name);

/* The handlers of the table, by file. */
int cli_compile(int argc, char **argv);  /* compile_cmds.c */
int cli_compare(int argc, char **argv);
int cli_simulate(int argc, char **argv);
int cli_explain(int argc, char **argv);  /* plan_cmds.c */
int cli_verify(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_show(int argc, char **argv);
int cli_cache(int argc, char **argv);    /* cache_cmd.c */
int cli_help(int argc, char **argv);     /* main.c */
int cli_scan(int argc, char **argv);     /* tool_cmds.c */
int cli_tau(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_import(int argc, char **argv);   /* import_cmd.c */
int cli_place(int argc, char **argv);    /* place_cmd.c */

/* Their options (the table's opts and shorts), next to their handlers. */
extern const struct option cli_compile_opts[], cli_compare_opts[],
        cli_simulate_opts[], cli_explain_opts[], cli_verify_opts[],
        cli_export_opts[], cli_show_opts[], cli_cache_opts[],
        cli_scan_opts[], cli_tau_opts[], cli_run_opts[], cli_import_opts[];
extern const struct option cli_place_opts[];
extern const struct cli_sub cli_cache_subs[], cli_tau_subs[],
        cli_import_subs[];

/* What their options' values are, indexed by the options' vals. */
extern const char *const cli_compile_args[], *const cli_compare_args[],
        *const cli_simulate_args[], *const cli_explain_args[],
        *const cli_plan_args[], *const cli_cache_args[],
        *const cli_scan_args[], *const cli_run_args[],
        *const cli_import_args[];
extern const char *const cli_place_args[];

/* Their --help texts. */
extern const char cli_compile_help[], cli_compare_help[],
        cli_simulate_help[], cli_explain_help[], cli_verify_help[],
        cli_export_help[], cli_show_help[], cli_cache_help[],
        cli_scan_help[], cli_tau_help[], cli_run_help[], cli_import_help[];
extern const char cli_place_help[];

/* ---- shared by the commands (common.c) ---------------------------------- */

/* The next option of the command argv[0] (of the table), as getopt_long
 * finds it among the command's opts and shorts, anywhere on the line
 * until "--": its val, the value (if any) in optarg.  -h/--help,
 * -V/--version and -q/--quiet are handled here, for every command.  An
 * option it does not know, one whose value is missing, or a value given
 * to one that takes none is said in one line naming the option, with a
 * hint to the command's --help (CLI_USAGE).  Call it until it returns
 * less than 0; cli_stop gives the exit status for CLI_DONE and
 * CLI_USAGE.  Shorts that begin with '+' end the options at the first
 * operand (run: PROGRAM's own options follow it).  A second command
 * line in one process (a subcommand's, after its command's) begins with
 * optind = 0, which makes getopt_long start afresh. */
int cli_getopt(int argc, char **argv);

/* The one operand of a command after its options (argv[optind]): NULL,
 * said with cli_usage, when there is none ("missing WHAT") or more than
 * one. */
const char *cli_operand(int argc, char **argv, const char *what);

/* Whether a is --help or -h. */
bool cli_is_help(const char *a);

/* Whether s ends with suffix. */
bool cli_ends_with(const char *s, const char *suffix);

/* The file name of path, for labels. */
const char *cli_base_name(const char *path);

/* Print a diagnostic: file:line:column: message, the line and a caret. */
void cli_print_diag(const struct diag *d);

/* Parse a YAML input into *in; prints its own diagnostics. */
int cli_parse_yaml(const char *path, struct front_input *in);

/* Warn on stderr that algorithm: auto ranked candidates (of the input
 * path) by their phases, the machine lacking costs; nothing for one
 * candidate or none.  compile's, and every command's that compiles a
 * .yaml in memory (cli_compile_parsed). */
void cli_warn_by_phases(const char *path, uint32_t candidates);

/* Compile a parsed input into *c, with a progress bar on a terminal;
 * prints its own diagnostics, and cli_warn_by_phases's warning. */
int cli_compile_parsed(const char *path, const struct front_input *in,
                       struct compiled *c);
/* The plan of a parsed input through the cache cc (compile_cached);
 * prints the cache's warnings, then why it failed if it did. */
struct compile_cache;
struct cached_plan;
struct cached_notes;
int cli_compile_cached(const char *path, const struct front_input *in,
                       struct compile_cache *cc, struct cached_plan *cp,
                       struct cached_notes *w);

/* Load FILE as a plan (.ccp) or compile it (.yaml/.yml) into *c, noting
 * the summary; prints its own diagnostics. */
int cli_load_any(const char *path, struct compiled *c);

/* Set the limit on a compile's estimated memory from size (--max-memory
 * or CCPLAN_MAX_MEMORY, named by what, which follows the program's name
 * in a message); false, with a message, if size is not a size. */
bool cli_max_memory(const char *what, const char *size);

/* Where the cache is, as the options say: --no-cache, --cache PATH, or
 * the default (CCPLAN_CACHE, XDG_CACHE_HOME, HOME). */
struct cli_cache_opt {
	bool off;         /* --no-cache */
	const char *path; /* --cache PATH, or NULL */
};

/* The cache's path into buf; false (with the reason printed when loud)
 * if there is none. */
bool cli_cache_where(const struct cli_cache_opt *o, char *buf, size_t len,
                     bool loud);

/* A document written whole or not at all (export --json, the --json of
 * compare, explain, simulate and cache ls, with -o): cli_out_begin opens
 * f on memory, for path (borrowed; NULL: stdout), false with a message
 * if it cannot; cli_out_end closes it and, when keep, writes the text to
 * path atomically (write_atomic, its error printed) or to stdout.
 * Returns 0, CCP_ENOMEM or CCP_EIO; the memory is freed either way,
 * len is left as the length of the document. */
struct cli_out {
	FILE *f;          /* write the document here */
	char *text;       /* open_memstream's buffer */
	size_t len;       /* its length */
	const char *path; /* -o, or NULL */
};
bool cli_out_begin(struct cli_out *o, const char *path);
int cli_out_end(struct cli_out *o, bool keep);

#endif
