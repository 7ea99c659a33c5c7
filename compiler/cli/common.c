/*
 * common.c - what the commands of the ccplan program share: reading an
 * input or a plan with its diagnostics, the memory limit, where the
 * cache is, and the message for an argument a command does not take.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "cached.h"
#include "cli.h"
#include "progress.h"
#include "select.h"
#include "suggest.h"

bool cli_is_help(const char *a)
{
	return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

bool cli_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

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

/* cli_getopt and cli_getopt_sub: the next option of the command called
 * name (its messages say "ccplan NAME: ..."), among lopts and shorts (a
 * leading '+' stops at the first operand), with its help text and what
 * its options' values are (args, by val; NULL: "a value"). */
static int getopt_in(const char *name, const struct option *lopts,
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
	static bool parsing; /* a command line is being read */
	if (!parsing)
		optind = 0; /* a new one: getopt_long starts afresh */
	parsing = true;
	opterr = 0;
	for (;;) {
		int v = getopt_long(argc, argv, sh, opts, NULL);
		if (v == 'h' || v == 'V' || v == ':' || v == '?' || v < 0)
			parsing = false;
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

int cli_getopt(int argc, char **argv)
{
	const struct cli_command *c = cli_find(argv[0]);
	return getopt_in(c->name, c->opts, c->shorts, c->help, c->args, argc,
	                 argv);
}

int cli_getopt_sub(const char *name, const struct cli_sub *s, int argc,
                   char **argv)
{
	return getopt_in(name, s->opts, s->shorts, s->help, s->args, argc,
	                 argv);
}

int cli_stop(int v)
{
	return v == CLI_DONE ? EXIT_OK : EXIT_BADINPUT;
}

const char *cli_operand(int argc, char **argv, const char *what)
{
	if (optind >= argc) {
		cli_usage(argv[0], "missing %s", what);
		return NULL;
	}
	if (optind + 1 < argc) {
		cli_unexpected(argv[0], argv[optind + 1], "");
		return NULL;
	}
	return argv[optind];
}

/* The file name of path, for labels. */
const char *cli_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/* Print a diagnostic: file:line:column: message, the line and a caret. */
void cli_print_diag(const struct diag *d)
{
	if (!d->file[0] && d->line <= 0)
		fprintf(stderr, "%s: %s\n", cli_prog, d->message);
	else
		front_print_diag(stderr, d->file, d->line, d->column,
		                 d->message, d->source_line);
}

/* Parse a YAML input; prints its own diagnostics. */
int cli_parse_yaml(const char *path, struct front_input *in)
{
	struct diag d;
	memset(&d, 0, sizeof d);
	int rc = front_parse_file(path, in, &d);
	if (rc) {
		if (!d.message[0])
			snprintf(d.message, sizeof d.message, "%s",
			         ccp_strerror(rc));
		if (!d.file[0])
			snprintf(d.file, sizeof d.file, "%s", path);
		cli_print_diag(&d);
	}
	return rc;
}

/* Start compiling path: d cleared and naming it, and a bar on a
 * terminal when it takes long (algorithm: auto reports its candidates,
 * anything else shows a spinner); compile_end takes the bar away. */
static void compile_begin(struct progress *pg, struct diag *d,
                          const char *path)
{
	memset(d, 0, sizeof *d);
	snprintf(d->file, sizeof d->file, "%s", path);
	char label[64];
	snprintf(label, sizeof label, "compile %.24s", cli_base_name(path));
	progress_begin(pg, label);
	select_set_progress(progress_report, pg);
}

static void compile_end(struct progress *pg)
{
	select_set_progress(NULL, NULL);
	progress_end(pg);
}

/* Print why compiling path failed (rc, d). */
static void print_compile_diag(const char *path, int rc,
                               const struct diag *d)
{
	if (rc == CCP_EVERIFY || d->line == 0)
		fprintf(stderr, "%s: %s\n", path, d->message);
	else
		cli_print_diag(d);
}

/* Compile a parsed input; prints its own diagnostics. */
int cli_compile_parsed(const char *path, const struct front_input *in,
                       struct compiled *c)
{
	struct diag d;
	struct progress pg;
	compile_begin(&pg, &d, path);
	int rc = compile_input(in, c, &d);
	compile_end(&pg);
	if (rc)
		print_compile_diag(path, rc, &d);
	return rc;
}

int cli_compile_cached(const char *path, const struct front_input *in,
                       struct compile_cache *cc, struct cached_plan *cp,
                       struct cached_notes *w)
{
	struct diag d;
	struct progress pg;
	compile_begin(&pg, &d, path);
	int rc = compile_cached(in, NULL, cc, 0, cp, w, &d);
	compile_end(&pg);
	for (int i = 0; i < w->n; i++)
		fprintf(stderr, "%s: warning: %s\n", cli_prog, w->text[i]);
	if (rc && cp->failed == CACHED_ENCODE)
		fprintf(stderr, "%s: %s\n", cli_prog, cp->err);
	else if (rc)
		print_compile_diag(path, rc, &d);
	return rc;
}

/* Parse and compile a YAML input; prints its own diagnostics. */
static int compile_yaml(const char *path, struct compiled *c)
{
	struct front_input in;
	int rc = cli_parse_yaml(path, &in);
	if (rc)
		return rc;
	rc = cli_compile_parsed(path, &in, c);
	front_input_fini(&in);
	return rc;
}

/* Load FILE as a plan (.ccp) or compile it (.yaml/.yml). */
int cli_load_any(const char *path, struct compiled *c)
{
	int rc;
	summary_note("%s", path);
	if (cli_ends_with(path, ".yaml") || cli_ends_with(path, ".yml")) {
		rc = compile_yaml(path, c);
	} else {
		ir_file_info fi;
		char err[512];
		rc = plan_load(path, c, &fi, err, sizeof err);
		if (rc)
			fprintf(stderr, "%s\n", err);
	}
	if (rc == 0) /* the summary of the commands that read a plan */
		summary_note("%s: %s, %u phases, %d ranks", path,
		             c->plan.algorithm, c->report.phases,
		             (int)c->plan.machine.nranks);
	return rc;
}

/* Set the limit on a compile's estimated memory from a size (--max-memory
 * or CCPLAN_MAX_MEMORY, named by what, which follows the program's name
 * in a message); false, with a message, if the size is not one. */
bool cli_max_memory(const char *what, const char *size)
{
	int64_t v = parse_bytes(size, INT64_MAX);
	if (v <= 0) {
		fprintf(stderr,
		        "%s%s '%s': want a size of memory, such as 512M or "
		        "16G\n",
		        cli_prog, what, size);
		return false;
	}
	front_set_max_memory((uint64_t)v);
	return true;
}

/* The cache's path into buf; false (with the reason printed when loud)
 * if there is none. */
bool cli_cache_where(const struct cli_cache_opt *o, char *buf, size_t len,
                        bool loud)
{
	if (o->path) {
		snprintf(buf, len, "%s", o->path);
		return true;
	}
	int rc = cache_default_path(buf, len);
	if (rc && loud)
		fprintf(stderr,
		        "%s: no cache: set CCPLAN_CACHE, XDG_CACHE_HOME or "
		        "HOME, "
		        "or give --cache PATH\n",
		        cli_prog);
	return rc == 0;
}
