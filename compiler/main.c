/*
 * main.c - the ccplan command: compile, explain, verify, export, cache.
 * Only this file exits; everything below it returns codes.
 * Exit status: 0 ok, 1 plan rejected by the verifier, 2 bad input,
 * 3 internal error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "cache.h"
#include "cached.h"
#include "compile.h"
#include "emit_c.h"
#include "explain.h"
#include "help_topics.h"
#include "json.h"
#include "model.h"
#include "progress.h"
#include "report.h"
#include "sched.h"
#include "select.h"
#include "show.h"
#include "suggest.h"
#include "scan_cmd.h"
#include "tau_cmd.h"
#include "sock_launch.h"

static const char *progname = "ccplan";

static void usage_main(FILE *out)
{
	fprintf(out,
	        "usage: ccplan COMMAND [ARGS]\n"
	        "\n"
	        "Compile collective communication schedules for a "
	        "parallel machine.\n"
	        "\n"
	        "commands:\n"
	        "  compile IN.yaml [-o OUT.ccp]   build, verify and write "
	        "a plan\n"
	        "  explain FILE                   show a plan (.ccp or "
	        ".yaml) phase by phase\n"
	        "  verify FILE.ccp                check a plan file "
	        "again, from scratch\n"
	        "  export --json FILE [-o OUT]    write a plan as JSON\n"
	        "  show FILE [--phase K] [--text] draw a plan's phases on "
	        "its machine (SVG, text)\n"
	        "  compare IN.yaml [--model]      rank every algorithm "
	        "that applies\n"
	        "  simulate FILE [--barriers]     run a plan through the "
	        "network simulator\n"
	        "  cache ls|show|rm|gc|path|export  look after the plan "
	        "cache\n"
	        "  scan FILE.c... [--emit c]      find the plans C sources "
	        "ask for; cache or emit them\n"
	        "  tau fit|plot ...               the tau-model: fit Ts, Tn; "
	        "draw the tau-plot\n"
	        "  run -n N PROGRAM [ARGS]        start N ranks of a sockets "
	        "job\n"
	        "  help TOPIC|COMMAND|ALGORITHM   a short reference: "
	        "input-format, plan-format,\n"
	        "                                 algorithms, presets, "
	        "environment, exit-status\n"
	        "\n");
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
	             "on stderr.\n"
	             "Exit status: 0 ok, 1 plan rejected by the verifier, 2 "
	             "bad input,\n"
	             "3 internal error.  Manual: man ccplan; docs/cli.md.\n");
}

static const char *const help_compile =
        "usage: ccplan compile IN.yaml [-o OUT.ccp] [-v] [--cache PATH | "
        "--no-cache]\n"
        "                      [--emit ccp|c] [--name NAME] [--max-memory "
        "SIZE]\n"
        "\n"
        "Read the machine and communication in IN.yaml, generate the plan with "
        "the\n"
        "algorithm it names, verify it, and write the binary plan.  Without -o "
        "the\n"
        "plan goes to the input's base name with .ccp, in the current "
        "directory.\n"
        "Nothing is written unless the verifier accepts the plan; the file "
        "appears\n"
        "whole or not at all.\n"
        "A plan compiled before from the same input (whatever its spelling) "
        "comes\n"
        "from the plan cache instead, verified again first as 'ccplan "
        "verify' does;\n"
        "one that fails is removed from the cache and compiled afresh "
        "(docs/cache.md).\n"
        "  -o FILE        output file\n"
        "  --emit ccp     write the binary plan (the default)\n"
        "  --emit c       write the plan as C tables with one symbol, "
        "a\n"
        "                 struct ccp_emitted_plan (docs/emit-c.md); "
        "without -o\n"
        "                 the file is the input's base name with .c\n"
        "  --name NAME    the C symbol (default: from the output file's "
        "name)\n"
        "  -v             print the summary of the plan, and cache hit or "
        "miss,\n"
        "                 on stderr\n"
        "  --cache PATH   the cache file (default $CCPLAN_CACHE, else\n"
        "                 $XDG_CACHE_HOME/ccplan/plans.db, else\n"
        "                 ~/.cache/ccplan/plans.db)\n"
        "  --no-cache     neither read nor write the cache\n"
        "  --max-memory SIZE\n"
        "                 refuse an input whose plan would need more than "
        "SIZE of\n"
        "                 memory to build, estimated before anything is "
        "built\n"
        "                 (SIZE as 512M or 16G; default $CCPLAN_MAX_MEMORY, "
        "else 4G)\n"
        "A cache another user owns, or that group or others can write (its "
        "file,\n"
        "directory, companions), is refused with a warning unless "
        "CCPLAN_CACHE_TRUST\n"
        "names it ('ccplan help environment').\n";
static const char *const help_explain =
        "usage: ccplan explain FILE [--summary | --rank R | --html "
        "OUT.html]\n"
        "\n"
        "Print a plan phase by phase: transfers, bytes, the busiest link, "
        "ports\n"
        "used and hops, then the plan against its lower bound.  FILE is a "
        ".ccp\n"
        "plan, or a .yaml input, compiled in memory.\n"
        "  --summary  the summary alone: phases, transfers, bytes, the lower "
        "bound,\n"
        "             link load, predicted time, the algorithm and why\n"
        "  --rank R   list rank R's operations in the order its runtime "
        "runs them:\n"
        "             address, op, phase, peer, bytes and the buffer "
        "pieces\n"
        "  --html F   write a report page instead: this text, a picture "
        "of every\n"
        "             phase, and for a .yaml the comparison of every "
        "algorithm\n"
        "             with its latency plot; one file, no scripts, no "
        "network\n"
        "             (docs/report.md)\n";
static const char *const help_verify =
        "usage: ccplan verify FILE.ccp\n"
        "\n"
        "Load a plan file, check its format and checksums, run the verifier "
        "on\n"
        "its phases again, and check that every rank's operations match them.\n"
        "Exit 0 when it holds, 1 when the verifier rejects it, 2 when the file "
        "is\n"
        "not a valid plan.\n";
static const char *const help_export =
        "usage: ccplan export --json FILE [-o OUT.json]\n"
        "\n"
        "Write the plan (a .ccp file, or a .yaml input compiled in memory) as "
        "JSON\n"
        "for other tools (shape in docs/plan-format.md); to stdout without "
        "-o.\n";

static bool is_help(const char *a)
{
	return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* An argument the command does not take: with the nearest of its options
 * when it looks like a misspelt one, else with the usage. */
static void unexpected(const char *cmd, const char *arg, const char *help)
{
	char near[64];
	if (suggest_option(arg, help, near, sizeof near))
		fprintf(stderr,
		        "%s %s: unexpected argument '%s'; did you mean '%s'? "
		        "('%s %s --help' lists the options)\n",
		        progname, cmd, arg, near, progname, cmd);
	else
		fprintf(stderr, "%s %s: unexpected argument '%s'\n%s", progname,
		        cmd, arg, help);
}

/* The file name of path, for labels. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/* Print a diagnostic: file:line:column: message, the line and a caret. */
static void print_diag(const struct diag *d)
{
	if (!d->file[0] && d->line <= 0)
		fprintf(stderr, "%s: %s\n", progname, d->message);
	else
		front_print_diag(stderr, d->file, d->line, d->column,
		                 d->message, d->source_line);
}

/* Parse a YAML input; prints its own diagnostics. */
static int parse_yaml(const char *path, struct front_input *in)
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
		print_diag(&d);
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
	snprintf(label, sizeof label, "compile %.24s", base_name(path));
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
		print_diag(d);
}

/* Compile a parsed input; prints its own diagnostics. */
static int compile_parsed(const char *path, const struct front_input *in,
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

/* The plan of a parsed input through the cache cc (compile_cached);
 * prints the cache's warnings, then why it failed if it did. */
static int compile_through_cache(const char *path,
                                 const struct front_input *in,
                                 struct compile_cache *cc,
                                 struct cached_plan *cp,
                                 struct cached_notes *w)
{
	struct diag d;
	struct progress pg;
	compile_begin(&pg, &d, path);
	int rc = compile_cached(in, NULL, cc, 0, cp, w, &d);
	compile_end(&pg);
	for (int i = 0; i < w->n; i++)
		fprintf(stderr, "%s: warning: %s\n", progname, w->text[i]);
	if (rc && cp->failed == CACHED_ENCODE)
		fprintf(stderr, "%s: %s\n", progname, cp->err);
	else if (rc)
		print_compile_diag(path, rc, &d);
	return rc;
}

/* Parse and compile a YAML input; prints its own diagnostics. */
static int compile_yaml(const char *path, struct compiled *c)
{
	struct front_input in;
	int rc = parse_yaml(path, &in);
	if (rc)
		return rc;
	rc = compile_parsed(path, &in, c);
	front_input_fini(&in);
	return rc;
}

/* Load FILE as a plan (.ccp) or compile it (.yaml/.yml). */
static int load_any(const char *path, struct compiled *c)
{
	int rc;
	summary_note("%s", path);
	if (ends_with(path, ".yaml") || ends_with(path, ".yml")) {
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
static bool max_memory_arg(const char *what, const char *size)
{
	int64_t v = parse_bytes(size, INT64_MAX);
	if (v <= 0) {
		fprintf(stderr,
		        "%s%s '%s': want a size of memory, such as 512M or "
		        "16G\n",
		        progname, what, size);
		return false;
	}
	front_set_max_memory((uint64_t)v);
	return true;
}

/* Where the cache is, as the options say: --no-cache, --cache PATH, or
 * the default (CCPLAN_CACHE, XDG_CACHE_HOME, HOME). */
struct cache_opt {
	bool off;
	const char *path;
};

/* Take --cache PATH / --no-cache at argv[*k]; true if it was one. */
static bool cache_arg(struct cache_opt *o, int argc, char **argv, int *k)
{
	if (strcmp(argv[*k], "--no-cache") == 0) {
		o->off = true;
		return true;
	}
	if (strcmp(argv[*k], "--cache") == 0 && *k + 1 < argc) {
		o->path = argv[++*k];
		return true;
	}
	return false;
}

/* The cache's path into buf; false (with the reason printed when loud)
 * if there is none. */
static bool cache_where(const struct cache_opt *o, char *buf, size_t len,
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
		        progname);
	return rc == 0;
}

static int cmd_compile(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *cname = NULL;
	bool verbose = false, emit_c_src = false;
	struct cache_opt co = {0};
	for (int k = 1; k < argc; k++) {
		if (is_help(argv[k])) {
			fputs(help_compile, stdout);
			return EXIT_OK;
		} else if (cache_arg(&co, argc, argv, &k)) {
			continue;
		} else if (strcmp(argv[k], "-o") == 0 && k + 1 < argc) {
			out = argv[++k];
		} else if (strcmp(argv[k], "-v") == 0) {
			verbose = true;
		} else if (strcmp(argv[k], "--emit") == 0 && k + 1 < argc &&
		           (strcmp(argv[k + 1], "c") == 0 ||
		            strcmp(argv[k + 1], "ccp") == 0)) {
			emit_c_src = strcmp(argv[++k], "c") == 0;
		} else if (strcmp(argv[k], "--name") == 0 && k + 1 < argc) {
			cname = argv[++k];
		} else if (strcmp(argv[k], "--max-memory") == 0 &&
		           k + 1 < argc) {
			if (!max_memory_arg(" compile: --max-memory", argv[++k]))
				return EXIT_BADINPUT;
		} else if (argv[k][0] == '-' || in) {
			unexpected("compile", argv[k], help_compile);
			return EXIT_BADINPUT;
		} else {
			in = argv[k];
		}
	}
	if (!in) {
		fputs(help_compile, stderr);
		return EXIT_BADINPUT;
	}
	char defout[1024];
	if (!out) {
		const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
		size_t n = strcspn(base, ".");
		if (!ends_with(base, ".yaml") && !ends_with(base, ".yml"))
			n = strlen(base);
		snprintf(defout, sizeof defout, "%.*s.%s", (int)n, base,
		         emit_c_src ? "c" : "ccp");
		out = defout;
	}
	char cname_buf[EMIT_C_NAME_MAX + 1];
	if (emit_c_src && !cname) {
		emit_c_name_from_path(out, cname_buf);
		cname = cname_buf;
	}
	if (cname && (!emit_c_src || !emit_c_name_ok(cname))) {
		fprintf(stderr,
		        "%s compile: --name '%s': %s\n", progname, cname,
		        emit_c_src ? "want a C identifier (at most 63 "
		                     "characters, not a keyword, not starting "
		                     "with '_' or 'ccp_')"
		                   : "only with --emit c");
		return EXIT_BADINPUT;
	}
	summary_note("%s", in);
	struct front_input fin;
	int rc = parse_yaml(in, &fin);
	if (rc)
		return exit_status(rc);
	/* the cache, unless it is off: a plan compiled before comes from it,
	 * verified again; a new one goes into it */
	char err[512], path[4096];
	struct compile_cache cc;
	struct cached_notes w = {0};
	struct cached_plan cp;
	compile_cache_open(&cc,
	                   !co.off && cache_where(&co, path, sizeof path,
	                                          verbose)
	                           ? path
	                           : NULL,
	                   CACHE_NO_CHECK, &w);
	if ((rc = compile_through_cache(in, &fin, &cc, &cp, &w)) != 0)
		goto out_close;
	if (verbose && cp.hit)
		fprintf(stderr, "%s: cache hit %s\n", in, cp.hex);
	else if (verbose && cp.stored)
		fprintf(stderr, "%s: cache miss, stored %s\n", in, cp.hex);
	const uint8_t *img = cp.img;
	size_t len = cp.len;
	bool compiled = !cp.hit;
	if (emit_c_src) {
		char *src = NULL;
		size_t srclen = 0;
		rc = emit_c(img, len, cname, &src, &srclen, err, sizeof err);
		if (rc == 0)
			rc = write_atomic(out, src, srclen, err, sizeof err);
		free(src);
	} else {
		rc = write_atomic(out, img, len, err, sizeof err);
	}
	if (rc)
		fprintf(stderr, "%s: %s\n", progname, err);
	else if (verbose && compiled)
		fprintf(stderr,
		        "%s: %s, %u phases (lower bound %u), %llu transfers -> "
		        "%s\n",
		        in, cp.meta.algorithm, cp.meta.phases,
		        cp.meta.lb_phases, (unsigned long long)cp.transfers,
		        out);
	else if (verbose)
		fprintf(stderr, "%s: -> %s (from the cache)\n", in, out);
	ir_file_info fi;
	bool is_auto = strcmp(fin.algorithm, "auto") == 0;
	if (rc == 0 && ir_file_info_read(img, len, &fi, err, sizeof err) == 0)
		summary_note("%s -> %s, %s%s, %u phases (bound %u), %d ranks%s",
		             in, out, is_auto ? "auto: " : "", fi.algorithm,
		             fi.nphases, fi.lb_phases, (int)fi.nranks,
		             compiled ? "" : ", from the cache");
out_close:
	compile_cache_close(&cc);
	cached_plan_fini(&cp);
	cached_notes_fini(&w);
	front_input_fini(&fin);
	return rc == CCP_EIO ? EXIT_INTERNAL : exit_status(rc);
}

/* Commands that take one FILE and no options besides --help. */
static int one_file(int argc, char **argv, const char *help, const char **file)
{
	for (int k = 1; k < argc; k++) {
		if (is_help(argv[k])) {
			fputs(help, stdout);
			return 1;
		}
		if (argv[k][0] == '-' || *file) {
			unexpected(argv[0], argv[k], help);
			return -1;
		}
		*file = argv[k];
	}
	if (!*file) {
		fputs(help, stderr);
		return -1;
	}
	return 0;
}

static int cmd_explain(int argc, char **argv)
{
	const char *file = NULL, *html = NULL;
	long rank = -1;
	bool summary = false;
	for (int k = 1; k < argc; k++) {
		char *end;
		if (is_help(argv[k])) {
			fputs(help_explain, stdout);
			return EXIT_OK;
		} else if (strcmp(argv[k], "--summary") == 0) {
			summary = true;
		} else if (strcmp(argv[k], "--html") == 0 && k + 1 < argc) {
			html = argv[++k];
		} else if (strcmp(argv[k], "--rank") == 0 && k + 1 < argc) {
			rank = strtol(argv[++k], &end, 10);
			if (*end || end == argv[k] || rank < 0 ||
			    rank > INT32_MAX) {
				fprintf(stderr,
				        "%s explain: --rank '%s': want a rank "
				        "number\n",
				        progname, argv[k]);
				return EXIT_BADINPUT;
			}
		} else if (argv[k][0] == '-' || file) {
			unexpected("explain", argv[k], help_explain);
			return EXIT_BADINPUT;
		} else {
			file = argv[k];
		}
	}
	if (!file) {
		fputs(help_explain, stderr);
		return EXIT_BADINPUT;
	}
	if (html && (rank >= 0 || summary)) {
		fprintf(stderr,
		        "%s explain: --html makes the whole report; not "
		        "with --rank or --summary\n",
		        progname);
		return EXIT_BADINPUT;
	}
	struct compiled c;
	int rc = load_any(file, &c);
	if (rc)
		return exit_status(rc);
	if (html) {
		char err[512];
		rc = report_html_file(&c, file, html, err, sizeof err);
		if (rc) {
			fprintf(stderr, "%s explain: --html: %s\n", progname,
			        err);
			compiled_fini(&c);
			return rc == CCP_EIO ? EXIT_INTERNAL : exit_status(rc);
		}
		summary_note("%s: report -> %s", file, html);
	} else if (rank >= 0) {
		rc = explain_rank(&c, (int32_t)rank, stdout);
		if (rc)
			fprintf(stderr,
			        "%s explain: the plan has ranks 0..%d, not "
			        "%ld\n",
			        progname, (int)c.plan.machine.nranks - 1, rank);
	} else {
		printf("plan        %s\n", file);
		rc = summary ? explain_summary(&c, stdout)
		             : explain_plan(&c, stdout);
	}
	compiled_fini(&c);
	return rc == CCP_EINVAL ? EXIT_BADINPUT : exit_status(rc);
}

static int cmd_verify(int argc, char **argv)
{
	const char *file = NULL;
	int a = one_file(argc, argv, help_verify, &file);
	if (a)
		return a > 0 ? EXIT_OK : EXIT_BADINPUT;
	summary_note("%s", file);
	struct compiled c;
	ir_file_info fi;
	char err[512];
	int rc = plan_load(file, &c, &fi, err, sizeof err);
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return exit_status(rc);
	}
	printf("%s: ok: %s, %u phases (lower bound %u), %llu transfers, "
	       "%d ranks, max link load %u\n",
	       file, c.plan.algorithm, c.report.phases, c.report.lb_phases,
	       (unsigned long long)c.report.transfers,
	       (int)c.plan.machine.nranks, c.report.max_link_load);
	summary_note("%s: verified, %s, %u phases, %d ranks", file,
	             c.plan.algorithm, c.report.phases,
	             (int)c.plan.machine.nranks);
	compiled_fini(&c);
	return EXIT_OK;
}

static int cmd_export(int argc, char **argv)
{
	const char *file = NULL, *out = NULL;
	bool json = false;
	for (int k = 1; k < argc; k++) {
		if (is_help(argv[k])) {
			fputs(help_export, stdout);
			return EXIT_OK;
		} else if (strcmp(argv[k], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[k], "-o") == 0 && k + 1 < argc) {
			out = argv[++k];
		} else if (argv[k][0] == '-' || file) {
			unexpected("export", argv[k], help_export);
			return EXIT_BADINPUT;
		} else {
			file = argv[k];
		}
	}
	if (!file || !json) {
		fputs(help_export, stderr);
		return EXIT_BADINPUT;
	}
	struct compiled c;
	int rc = load_any(file, &c);
	if (rc)
		return exit_status(rc);
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem) {
		compiled_fini(&c);
		return EXIT_INTERNAL;
	}
	rc = json_export(&c.plan, &c.report, mem);
	fclose(mem);
	if (!rc && out) {
		char err[512];
		rc = write_atomic(out, text, len, err, sizeof err);
		if (rc)
			fprintf(stderr, "%s: %s\n", progname, err);
	} else if (!rc) {
		fwrite(text, 1, len, stdout);
	}
	if (!rc)
		summary_note("%s -> %s, %zu bytes of JSON", file,
		             out ? out : "stdout", len);
	free(text);
	compiled_fini(&c);
	return rc == CCP_EIO ? EXIT_INTERNAL : exit_status(rc);
}

static const char *const help_show =
        "usage: ccplan show FILE [--phase K | --all] [--svg | --text "
        "[--ascii]]\n"
        "                   [-o OUT]\n"
        "\n"
        "Draw a plan (.ccp, or a .yaml compiled in memory) on its "
        "machine: every\n"
        "transfer of a phase as an arrow along its route, hop by hop; a "
        "link\n"
        "carrying more than one transfer in red with its count; the root "
        "and the\n"
        "ranks that hold data after the phase shaded (docs/show.md).\n"
        "  --phase K  one phase, numbered from 0 as explain numbers them\n"
        "  --all      every phase, as small multiples (the default)\n"
        "  --svg      an SVG document (the default)\n"
        "  --text     a drawing for the terminal: meshes and tori up to "
        "32x32\n"
        "             (3D: up to 32 planes), colour when stdout is a "
        "terminal\n"
        "  --ascii    the text drawing in plain ASCII (implies --text)\n"
        "  -o OUT     write to OUT, atomically, instead of stdout\n";

static int cmd_show(int argc, char **argv)
{
	const char *file = NULL, *out = NULL;
	struct show_opts o = {.phase = -1, .unicode = true};
	bool text = false, svg = false, all = false;
	for (int k = 1; k < argc; k++) {
		char *end;
		if (is_help(argv[k])) {
			fputs(help_show, stdout);
			return EXIT_OK;
		} else if (strcmp(argv[k], "--phase") == 0 && k + 1 < argc) {
			long ph = strtol(argv[++k], &end, 10);
			if (*end || end == argv[k] || ph < 0 ||
			    ph > INT32_MAX) {
				fprintf(stderr,
				        "%s show: --phase '%s': want a phase "
				        "number, from 0\n",
				        progname, argv[k]);
				return EXIT_BADINPUT;
			}
			o.phase = (int)ph;
		} else if (strcmp(argv[k], "--all") == 0) {
			all = true;
		} else if (strcmp(argv[k], "--svg") == 0) {
			svg = true;
		} else if (strcmp(argv[k], "--text") == 0) {
			text = true;
		} else if (strcmp(argv[k], "--ascii") == 0) {
			text = true;
			o.unicode = false;
		} else if (strcmp(argv[k], "-o") == 0 && k + 1 < argc) {
			out = argv[++k];
		} else if (argv[k][0] == '-' || file) {
			unexpected("show", argv[k], help_show);
			return EXIT_BADINPUT;
		} else {
			file = argv[k];
		}
	}
	if (all && o.phase >= 0) {
		fprintf(stderr, "%s show: --phase and --all: give one\n",
		        progname);
		return EXIT_BADINPUT;
	}
	if (svg && text) {
		fprintf(stderr, "%s show: --svg and --text: give one\n",
		        progname);
		return EXIT_BADINPUT;
	}
	if (!file) {
		fputs(help_show, stderr);
		return EXIT_BADINPUT;
	}
	struct compiled c;
	int rc = load_any(file, &c);
	if (rc)
		return exit_status(rc);
	o.title = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	o.color = text && !out && show_tty_color();
	struct tbuf b = {0};
	char err[512];
	rc = text ? show_text(&c.plan, &o, &b, err, sizeof err)
	          : show_svg(&c.plan, &o, &b, err, sizeof err);
	if (rc)
		fprintf(stderr, "%s show: %s: %s\n", progname, file, err);
	else if (out && (rc = write_atomic(out, b.p, b.len, err,
	                                   sizeof err)) != 0)
		fprintf(stderr, "%s: %s\n", progname, err);
	else if (!out)
		fwrite(b.p, 1, b.len, stdout);
	free(b.p);
	compiled_fini(&c);
	return rc == CCP_EIO ? EXIT_INTERNAL : exit_status(rc);
}

static const char *const help_cache =
        "usage: ccplan cache [--cache PATH] COMMAND\n"
        "\n"
        "Look after the plan cache (docs/cache.md).  KEY is a key's hex "
        "digits, or\n"
        "any prefix of them that names one entry.  ls and show print "
        "stored text with\n"
        "control characters escaped (ESC as \\x1b).  A cache another "
        "user owns, or\n"
        "that group or others can write, is refused unless "
        "CCPLAN_CACHE_TRUST names it.\n"
        "  path                     print where the cache is\n"
        "  ls                       list the entries, most recently used "
        "first\n"
        "  show KEY                 one entry and its canonical input\n"
        "  rm KEY                   remove an entry\n"
        "  gc [--max-size N] [--older-than D]\n"
        "                           remove entries unused for D (s, m, h "
        "or d;\n"
        "                           seconds without a unit), then the least "
        "recently\n"
        "                           used until N bytes remain (K, M, G "
        "suffixes)\n"
        "  export KEY -o FILE.ccp   write an entry's plan to a file\n";

/* Ns, Nm, Nh, Nd (or N seconds) as seconds; -1 if malformed. */
static int64_t parse_age(const char *a)
{
	char *end;
	errno = 0;
	long long v = strtoll(a, &end, 10);
	if (errno || end == a || v < 0)
		return -1;
	int64_t unit = 1;
	if (*end == 'm')
		unit = 60;
	else if (*end == 'h')
		unit = 3600;
	else if (*end == 'd')
		unit = 86400;
	else if (*end && *end != 's')
		return -1;
	if (*end)
		end++;
	if (*end || v > INT64_MAX / unit)
		return -1;
	return (int64_t)v * unit;
}

/* Unix seconds as UTC "YYYY-MM-DD HH:MM". */
static void fmt_time(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, len, "%lld", (long long)t);
}

/* Bytes of the UTF-8 sequence at s that encodes a printable character
 * (not a C1 control, U+0080-U+009F, nor a bidirectional override or
 * isolate, U+202A-U+202E and U+2066-U+2069, which reorder what a
 * terminal shows), or 0 if it is not one: malformed, overlong, a
 * surrogate, beyond U+10FFFF. */
static int utf8_printable(const unsigned char *s)
{
	unsigned c = s[0], n, cp;
	if (c >= 0xc2 && c <= 0xdf)
		n = 1, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 2, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 3, cp = c & 0x07;
	else
		return 0;
	for (unsigned i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069))
		return 0;
	return (int)n + 1;
}

/* Print text read from the cache (which anyone who could write the file
 * chose) so that it cannot drive the terminal: printable ASCII and
 * printable UTF-8 as they are, a backslash as \\, every other byte (C0
 * and C1 controls such as ESC, DEL, bytes that are not UTF-8) as \xHH;
 * with lines, newlines and tabs are kept.  Returns the columns printed
 * (one per character), for padding. */
static size_t put_stored(FILE *out, const char *text, bool lines)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t cols = 0;
	while (*s) {
		int n;
		if (*s == '\\') {
			fputs("\\\\", out);
			cols += 2;
			s++;
		} else if ((*s >= 0x20 && *s < 0x7f) ||
		           (lines && (*s == '\n' || *s == '\t'))) {
			fputc(*s++, out);
			cols++;
		} else if (*s >= 0x80 && (n = utf8_printable(s)) > 0) {
			fwrite(s, 1, (size_t)n, out);
			s += n;
			cols++;
		} else {
			fprintf(out, "\\x%02x", *s++);
			cols += 4;
		}
	}
	return cols;
}

static int cache_ls_row(const struct cache_meta *m, void *arg)
{
	char hex[CACHE_KEY_HEX], used[32];
	++*(size_t *)arg; /* rows, for the summary */
	cache_key_hex(m->key, hex);
	fmt_time(m->last_used, used, sizeof used);
	printf("%-16.16s  ", hex);
	for (size_t w = put_stored(stdout, m->algorithm, false); w < 16; w++)
		putchar(' ');
	printf("  %6u  %5u  %10llu  %s\n", m->phases, m->lb_phases,
	       (unsigned long long)m->size, used);
	return 0;
}

/* Resolve a KEY argument (a unique prefix) against the cache. */
static int cache_key_arg(cache *k, const char *arg, uint8_t *key)
{
	int rc = cache_find_prefix(k, arg, key);
	if (rc)
		fprintf(stderr, "%s cache: %s\n", progname, cache_errmsg(k));
	return rc;
}

static int cmd_cache(int argc, char **argv)
{
	struct cache_opt co = {0};
	const char *sub = NULL, *key_arg = NULL, *out = NULL;
	int64_t max_size = -1, older = -1;
	for (int k = 1; k < argc; k++) {
		if (is_help(argv[k])) {
			fputs(help_cache, stdout);
			return EXIT_OK;
		} else if (cache_arg(&co, argc, argv, &k) && !co.off) {
			continue;
		} else if (sub && strcmp(argv[k], "-o") == 0 && k + 1 < argc) {
			out = argv[++k];
		} else if (sub && strcmp(argv[k], "--max-size") == 0 &&
		           k + 1 < argc) {
			if ((max_size = parse_bytes(argv[++k], INT64_MAX)) < 0) {
				fprintf(stderr,
				        "%s cache: --max-size '%s': want "
				        "bytes, "
				        "e.g. 500M\n",
				        progname, argv[k]);
				return EXIT_BADINPUT;
			}
		} else if (sub && strcmp(argv[k], "--older-than") == 0 &&
		           k + 1 < argc) {
			if ((older = parse_age(argv[++k])) < 0) {
				fprintf(stderr,
				        "%s cache: --older-than '%s': want a "
				        "duration, e.g. 30d\n",
				        progname, argv[k]);
				return EXIT_BADINPUT;
			}
		} else if (argv[k][0] != '-' && !sub) {
			sub = argv[k];
		} else if (argv[k][0] != '-' && !key_arg) {
			key_arg = argv[k];
		} else {
			unexpected("cache", argv[k], help_cache);
			return EXIT_BADINPUT;
		}
	}
	static const char *const subs[] = {"path", "ls", "show",
	                                   "rm",   "gc", "export"};
	int which = -1;
	for (int i = 0; sub && i < 6; i++)
		if (strcmp(sub, subs[i]) == 0)
			which = i;
	bool needs_key = which == 2 || which == 3 || which == 5;
	if (which < 0 || needs_key != (key_arg != NULL) ||
	    (which == 5) != (out != NULL) ||
	    (which != 4 && (max_size >= 0 || older >= 0))) {
		const char *near = sub && which < 0
		                           ? suggest_nearest(sub, subs, 6)
		                           : NULL;
		if (near) {
			fprintf(stderr,
			        "%s cache: unknown command '%s'; did you mean "
			        "'%s'?\n",
			        progname, sub, near);
			return EXIT_BADINPUT;
		}
		if (sub && which < 0)
			fprintf(stderr, "%s cache: unknown command '%s'\n",
			        progname, sub);
		fputs(help_cache, stderr);
		return EXIT_BADINPUT;
	}
	char path[4096], err[512];
	if (!cache_where(&co, path, sizeof path, true))
		return EXIT_BADINPUT;
	summary_note("%s", path);
	if (which == 0) {
		printf("%s\n", path);
		return EXIT_OK;
	}
	cache *k = NULL;
	bool ro = which == 1 || which == 2 || which == 5, unwritten = false;
	int rc = cache_open(path, ro ? CACHE_READONLY : 0, &k, NULL, err,
	                    sizeof err);
	if (rc == CCP_ENOTFOUND && ro) {
		if (which == 1)
			return EXIT_OK; /* no cache yet: nothing to list */
		fprintf(stderr, "%s cache: %s: no cache there yet\n", progname,
		        path);
		return EXIT_BADINPUT;
	}
	if (rc) {
		fprintf(stderr, "%s cache: %s: %s\n", progname, path, err);
		return exit_status(rc);
	}
	uint8_t key[CACHE_KEY_SIZE];
	if (needs_key && (rc = cache_key_arg(k, key_arg, key)) != 0)
		goto out;
	if (which == 1) {
		printf("%-16s  %-16s  %6s  %5s  %10s  %s\n", "key", "algorithm",
		       "phases", "bound", "bytes", "last used (UTC)");
		size_t rows = 0;
		rc = cache_list(k, cache_ls_row, &rows);
		summary_note("%s: %zu entr%s", path, rows,
		             rows == 1 ? "y" : "ies");
	} else if (which == 2 || which == 5) {
		void *blob = NULL;
		size_t len = 0;
		struct cache_meta m;
		memset(&m, 0, sizeof m);
		rc = cache_get(k, key, &blob, &len, which == 2 ? &m : NULL);
		if (rc) {
			fprintf(stderr, "%s cache: %s\n", progname,
			        cache_errmsg(k));
			goto out;
		}
		if (which == 5) {
			rc = write_atomic(out, blob, len, err, sizeof err);
			if (rc == CCP_EIO) /* exit 3, as every command's */
				unwritten = true;
			if (rc)
				fprintf(stderr, "%s: %s\n", progname, err);
			else
				summary_note("%s -> %s, %zu bytes", key_arg,
				             out, len);
		} else {
			char hex[CACHE_KEY_HEX], made[32], used[32];
			cache_key_hex(m.key, hex);
			fmt_time(m.created, made, sizeof made);
			fmt_time(m.last_used, used, sizeof used);
			printf("key         %s\nalgorithm   ", hex);
			put_stored(stdout, m.algorithm, false);
			printf("\nphases      %u (lower bound %u)\nbytes       "
			       "%llu\ncreated     %s UTC\nlast used   %s UTC\n",
			       m.phases, m.lb_phases,
			       (unsigned long long)m.size, made, used);
			if (!isnan(m.predicted))
				printf("predicted   %.3f us\n", m.predicted);
			printf("\n");
			put_stored(stdout, m.canonical ? m.canonical : "", true);
		}
		free(blob);
		cache_meta_fini(&m);
	} else if (which == 3) {
		if ((rc = cache_remove(k, key)) != 0)
			fprintf(stderr, "%s cache: %s\n", progname,
			        cache_errmsg(k));
		else
			summary_note("%s: removed %s", path, key_arg);
	} else {
		struct cache_gc_stats st;
		if ((rc = cache_gc(k, max_size, older, &st)) != 0)
			fprintf(stderr, "%s cache: %s\n", progname,
			        cache_errmsg(k));
		else
			printf("removed %llu entries (%llu bytes), kept %llu "
			       "(%llu bytes)\n",
			       (unsigned long long)st.removed,
			       (unsigned long long)st.removed_bytes,
			       (unsigned long long)st.kept,
			       (unsigned long long)st.kept_bytes);
		if (rc == 0)
			summary_note("%s: removed %llu, kept %llu", path,
			             (unsigned long long)st.removed,
			             (unsigned long long)st.kept);
	}
out:
	cache_close(k);
	if (unwritten)
		return EXIT_INTERNAL;
	return rc == CCP_ENOTFOUND ? EXIT_BADINPUT : exit_status(rc);
}

static const char *const help_compare =
        "usage: ccplan compare IN.yaml [--model] [--svg OUT.svg [--sizes "
        "MIN:MAX]]\n"
        "\n"
        "Generate every algorithm that applies to the machine and "
        "communication of\n"
        "IN.yaml (its algorithm key is ignored), verify each, and rank "
        "them by\n"
        "simulated time (--model: by the cost model).  The table gives "
        "phases\n"
        "against the lower bound, the contention the plan allows, the "
        "model's\n"
        "time and the simulator's last and mean delivery; then the "
        "message sizes\n"
        "at which the model's order of the top two changes.  Times need "
        "the\n"
        "machine's costs (machine.cost, or a preset: ccplan help "
        "presets).\n"
        "  --svg FILE       also draw every ranked algorithm's time "
        "against the\n"
        "                   message size, log-log (simulated, or the "
        "model's with\n"
        "                   --model), the crossovers marked "
        "(docs/report.md)\n"
        "  --sizes MIN:MAX  the sizes drawn: powers of two from MIN to "
        "MAX bytes\n"
        "                   (K, M, G suffixes; default 8:1M)\n";
static const char *const help_simulate =
        "usage: ccplan simulate FILE [--barriers] [--half-duplex] "
        "[--links shared|fifo]\n"
        "\n"
        "Run a plan (.ccp, or a .yaml compiled in memory) through the "
        "wormhole\n"
        "network simulator (docs/simulator.md): per-hop header latency, "
        "links\n"
        "shared by messages that overlap in time, serialised start-ups, "
        "the\n"
        "machine's ports, no phase barriers unless --barriers.  Prints "
        "the last\n"
        "and the mean delivery time against the cost model's "
        "prediction.\n"
        "  --barriers      a phase starts when the one before it is "
        "delivered\n"
        "  --half-duplex   a rank's send and receive of different partners "
        "run one\n"
        "                  after the other, a pairwise exchange overlaps "
        "(the\n"
        "                  iPSC/860 node of 004 section 2.2)\n"
        "  --links shared  links with virtual channels: messages on a link "
        "share\n"
        "                  its bandwidth equally (the default)\n"
        "  --links fifo    links without virtual channels: a header takes "
        "its\n"
        "                  links one by one, first come first served, "
        "holding\n"
        "                  them until its tail is in (001 section 4.2)\n";

/* "1.5 us" style, or "-" for NaN. */
static void fmt_us(double us, char *buf, size_t len)
{
	if (isnan(us))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", us);
}

static int cmd_compare(int argc, char **argv)
{
	const char *file = NULL, *svg = NULL;
	bool by_model = false;
	struct report_sizes sizes = {REPORT_MIN_DEFAULT, REPORT_MAX_DEFAULT,
	                             false};
	for (int k = 1; k < argc; k++) {
		char why[160];
		if (is_help(argv[k])) {
			fputs(help_compare, stdout);
			return EXIT_OK;
		} else if (strcmp(argv[k], "--model") == 0) {
			by_model = true;
		} else if (strcmp(argv[k], "--svg") == 0 && k + 1 < argc) {
			svg = argv[++k];
		} else if (strcmp(argv[k], "--sizes") == 0 && k + 1 < argc) {
			if (report_parse_sizes(argv[++k], &sizes, why,
			                       sizeof why) != 0) {
				fprintf(stderr, "%s compare: --sizes '%s': %s\n",
				        progname, argv[k], why);
				return EXIT_BADINPUT;
			}
		} else if (argv[k][0] == '-' || file) {
			unexpected("compare", argv[k], help_compare);
			return EXIT_BADINPUT;
		} else {
			file = argv[k];
		}
	}
	if (!file) {
		fputs(help_compare, stderr);
		return EXIT_BADINPUT;
	}
	summary_note("%s", file);
	struct front_input in;
	int rc = parse_yaml(file, &in);
	if (rc)
		return exit_status(rc);
	/* compare builds every candidate, as auto does */
	struct diag d;
	memset(&d, 0, sizeof d);
	if ((rc = compile_check_size(&in, true, !by_model, &d)) != 0) {
		fprintf(stderr, "%s: %s\n", file, d.message);
		front_input_fini(&in);
		return exit_status(rc);
	}
	struct select_result sr;
	struct progress pg;
	char label[64];
	snprintf(label, sizeof label, "compare %.24s", base_name(file));
	progress_begin(&pg, label);
	select_set_progress(progress_report, &pg);
	rc = select_run(&in, !by_model, by_model, &sr);
	select_set_progress(NULL, NULL);
	progress_end(&pg);
	if (rc != 0) {
		fprintf(stderr, "%s compare: %s\n", progname, ccp_strerror(rc));
		front_input_fini(&in);
		return exit_status(rc);
	}
	printf("%-3s %-16s %6s %5s  %-10s %12s %12s %12s\n", "#", "algorithm",
	       "phases", "bound", "contention", "model us", "sim max us",
	       "sim mean us");
	int ranked = 0;
	for (size_t i = 0; i < sr.n; i++) {
		const struct select_row *r = &sr.rows[i];
		if (r->rc) {
			printf("-   %-16s %s\n", r->g->name, r->why);
			continue;
		}
		char a[32], b[32], c[32];
		fmt_us(r->predicted, a, sizeof a);
		fmt_us(r->sim_max, b, sizeof b);
		fmt_us(r->sim_avg, c, sizeof c);
		printf("%-3d %-16s %6u %5u  %-10s %12s %12s %12s\n", ++ranked,
		       r->g->name, r->report.phases, r->report.lb_phases,
		       r->plan.flags & IR_PLAN_LINK_CONTENTION   ? "link"
		       : r->plan.flags & IR_PLAN_NODE_CONTENTION ? "node"
		                                                 : "none",
		       a, b, c);
	}
	printf("\nranked by %s", sr.by_model ? "the model" : "simulated time");
	if (sr.n && sr.rows[0].rc == 0)
		printf(" (%s model)", model_kind_name(sr.model));
	printf("\n");
	if (sr.model_why[0])
		printf("model: %s\n", sr.model_why);
	if (sr.sim_why[0] && !by_model)
		printf("simulator: %s\n", sr.sim_why);
	if (sr.n > 1 && sr.rows[0].rc == 0 && sr.rows[1].rc == 0) {
		int64_t at[25];
		int n = select_crossovers(&in, sr.rows[0].g, sr.rows[1].g, at,
		                          25);
		if (n > 0) {
			printf("crossovers of %s and %s (model):",
			       sr.rows[0].g->name, sr.rows[1].g->name);
			for (int i = 0; i < n; i++)
				printf(" %lld", (long long)at[i]);
			printf(" bytes\n");
		} else if (n == 0 && in.comm.coll != IR_IRREGULAR &&
		           !isnan(sr.rows[0].predicted)) {
			printf("no crossover of %s and %s between 1 byte and "
			       "16 "
			       "MiB (model)\n",
			       sr.rows[0].g->name, sr.rows[1].g->name);
		}
	}
	printf("%d of %zu algorithms that apply made a verified plan\n", ranked,
	       sr.n);
	if (ranked > 0)
		summary_note("%s: %d of %zu algorithms made a verified plan, "
		             "best %s",
		             file, ranked, sr.n, sr.rows[0].g->name);
	else
		summary_note("%s: none of %zu algorithms made a verified plan",
		             file, sr.n);
	if (svg && ranked > 0) {
		char err[512], note[512];
		rc = report_sweep_file(&in, &sr, file, &sizes, svg, err,
		                       sizeof err);
		if (rc) {
			fprintf(stderr, "%s compare: --svg: %s\n", progname,
			        err);
			select_fini(&sr);
			front_input_fini(&in);
			return rc == CCP_EINVAL ? EXIT_BADINPUT
			       : rc == CCP_EIO  ? EXIT_INTERNAL
			                        : exit_status(rc);
		}
		snprintf(note, sizeof note, "%s", summary_get());
		summary_note("%s; plot -> %s", note, svg);
	}
	select_fini(&sr);
	front_input_fini(&in);
	return ranked > 0 ? EXIT_OK : EXIT_REJECTED;
}

static int cmd_simulate(int argc, char **argv)
{
	const char *file = NULL;
	struct model_sim_opts o = {0};
	for (int k = 1; k < argc; k++) {
		if (is_help(argv[k])) {
			fputs(help_simulate, stdout);
			return EXIT_OK;
		} else if (strcmp(argv[k], "--barriers") == 0) {
			o.barriers = true;
		} else if (strcmp(argv[k], "--half-duplex") == 0) {
			o.half_duplex = true;
		} else if (strcmp(argv[k], "--links") == 0 && k + 1 < argc) {
			static const char *const links[] = {"shared", "fifo"};
			const char *v = argv[++k], *near;
			if (strcmp(v, "shared") == 0) {
				o.links = MODEL_LINKS_SHARED;
			} else if (strcmp(v, "fifo") == 0) {
				o.links = MODEL_LINKS_FIFO;
			} else {
				near = front_nearest(v, links, 2);
				fprintf(stderr,
				        "%s simulate: --links '%s': expected "
				        "shared or fifo%s%s%s\n",
				        progname, v, near ? "; did you mean '" : "",
				        near ? near : "", near ? "'?" : "");
				return EXIT_BADINPUT;
			}
		} else if (argv[k][0] == '-' || file) {
			unexpected("simulate", argv[k], help_simulate);
			return EXIT_BADINPUT;
		} else {
			file = argv[k];
		}
	}
	if (!file) {
		fputs(help_simulate, stderr);
		return EXIT_BADINPUT;
	}
	struct compiled c;
	int rc = load_any(file, &c);
	if (rc)
		return exit_status(rc);
	struct model_sim s;
	char err[256], label[64];
	struct progress pg;
	snprintf(label, sizeof label, "simulate %.24s", base_name(file));
	progress_begin(&pg, label);
	o.progress = progress_report;
	o.progress_arg = &pg;
	rc = model_simulate(&c.plan, &o, &s, err, sizeof err);
	progress_end(&pg);
	if (rc != 0) {
		fprintf(stderr, "%s: cannot simulate: %s\n", file, err);
		compiled_fini(&c);
		return rc == CCP_EINVAL ? EXIT_BADINPUT : exit_status(rc);
	}
	enum model_kind k;
	char why[256], a[32];
	double us = select_predict(&c.plan, &c.report, &k, why, sizeof why);
	fmt_us(us, a, sizeof a);
	printf("plan        %s: %s, %u phases, %d ranks\n", file,
	       c.plan.algorithm, c.report.phases, (int)c.plan.machine.nranks);
	bool fifo = o.links == MODEL_LINKS_FIFO;
	const char *opt[3] = {o.barriers ? "phase barriers" : NULL,
	                      o.half_duplex ? "half-duplex nodes" : NULL,
	                      fifo ? "links without virtual channels" : NULL};
	char how[96] = "";
	for (int i = 0, n = 0; i < 3; i++)
		if (opt[i])
			n += snprintf(how + n, sizeof how - (size_t)n, "%s%s",
			              n ? ", " : " (", opt[i]);
	if (how[0])
		strcat(how, ")");
	printf("simulated   last delivery %.2f us, mean %.2f us over %d "
	       "receivers%s\n",
	       s.max_us, s.avg_us, (int)s.receivers, how);
	printf("model       %s us (%s model)%s%s\n", a, model_kind_name(k),
	       why[0] ? ": " : "", why);
	if (fifo)
		printf("network     %u messages, %llu events, %u headers "
		       "waited for a busy link, %.2f us in all; %.2f us "
		       "waiting for ports\n",
		       s.messages, (unsigned long long)s.events, s.contended,
		       s.stall_us, s.port_wait_us);
	else
		printf("network     %u messages, %llu events, at most %u on "
		       "one link at once, %u ever shared a link; %.2f us of "
		       "link stall, %.2f us waiting for ports\n",
		       s.messages, (unsigned long long)s.events, s.max_share,
		       s.contended, s.stall_us, s.port_wait_us);
	summary_note("%s: %s, last delivery %.2f us, %llu events", file,
	             c.plan.algorithm, s.max_us, (unsigned long long)s.events);
	model_sim_fini(&s);
	compiled_fini(&c);
	return EXIT_OK;
}

/* The commands: for "did you mean" and the summary line. */
static const char *const commands[] = {
        "compile", "explain", "verify", "export", "show", "compare",
        "simulate", "cache", "scan", "tau", "run", "help", NULL,
};

static int dispatch(int argc, char **argv);

/* ccplan help TOPIC: a topic (help_topics.c), a command's usage, or what
 * an algorithm is; else the nearest of all three. */
static int cmd_help(const char *topic)
{
	if (help_topic_print(topic, stdout) == 0)
		return EXIT_OK;
	for (int i = 0; commands[i]; i++) {
		if (strcmp(topic, commands[i]) != 0)
			continue;
		char prog[] = "ccplan", cmd[16], help[] = "--help";
		snprintf(cmd, sizeof cmd, "%s", topic);
		char *av[] = {prog, cmd, help, NULL};
		return dispatch(strcmp(topic, "help") ? 3 : 2, av);
	}
	if (help_algorithm_print(topic, stdout) == 0)
		return EXIT_OK;
	const char *names[128];
	size_t n = 0;
	for (int i = 0; help_topic_names[i] && n < 128; i++)
		names[n++] = help_topic_names[i];
	for (int i = 0; commands[i] && n < 128; i++)
		names[n++] = commands[i];
	for (int k = 0; sch_generators[k] && n < 127; k++)
		names[n++] = sch_generators[k]->name;
	names[n++] = "auto";
	const char *near = suggest_nearest(topic, names, n);
	if (near)
		fprintf(stderr,
		        "%s help: no topic, command or algorithm '%s'; did you "
		        "mean '%s'?\n",
		        progname, topic, near);
	else
		fprintf(stderr,
		        "%s help: no topic, command or algorithm '%s'; the "
		        "topics are input-format,\nplan-format, algorithms, "
		        "presets, environment and exit-status\n",
		        progname, topic);
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
	if (strcmp(cmd, "help") == 0 && argc > 2)
		return cmd_help(argv[2]);
	if (is_help(cmd) || strcmp(cmd, "help") == 0) {
		usage_main(stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("ccplan %s (plan format %d)\n", CCPLAN_VERSION,
		       IR_FILE_VERSION);
		return EXIT_OK;
	}
	if (strcmp(cmd, "compile") == 0)
		return cmd_compile(argc - 1, argv + 1);
	if (strcmp(cmd, "explain") == 0)
		return cmd_explain(argc - 1, argv + 1);
	if (strcmp(cmd, "verify") == 0)
		return cmd_verify(argc - 1, argv + 1);
	if (strcmp(cmd, "export") == 0)
		return cmd_export(argc - 1, argv + 1);
	if (strcmp(cmd, "show") == 0)
		return cmd_show(argc - 1, argv + 1);
	if (strcmp(cmd, "cache") == 0)
		return cmd_cache(argc - 1, argv + 1);
	if (strcmp(cmd, "scan") == 0)
		return cmd_scan(argc - 1, argv + 1);
	if (strcmp(cmd, "compare") == 0)
		return cmd_compare(argc - 1, argv + 1);
	if (strcmp(cmd, "simulate") == 0)
		return cmd_simulate(argc - 1, argv + 1);
	if (strcmp(cmd, "tau") == 0)
		return cmd_tau(argc - 1, argv + 1);
	if (strcmp(cmd, "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	const char *near = suggest_nearest(cmd, commands, 12);
	if (near) {
		fprintf(stderr,
		        "%s: unknown command '%s'; did you mean '%s'? ('%s "
		        "--help' lists the commands)\n",
		        progname, cmd, near, progname);
		return EXIT_BADINPUT;
	}
	fprintf(stderr, "%s: unknown command '%s'\n\n", progname, cmd);
	usage_main(stderr);
	return EXIT_BADINPUT;
}

/* Does the command line ask for a command's help (then its output is
 * the point, and there is no summary)?  Only the command's own options
 * count: not the arguments of ccplan run's PROGRAM, nor the compiler
 * flags after scan's "--". */
static bool asks_help(int argc, char **argv)
{
	bool run = strcmp(argv[1], "run") == 0;
	for (int k = 2; k < argc; k++) {
		if (strcmp(argv[k], "--") == 0)
			return false;
		if (is_help(argv[k]))
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
	} else if (strcmp(cmd, "tau") == 0 && argc > 2 && argv[2][0] != '-') {
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
	bool known = false;
	for (int i = 0; argc > 1 && commands[i]; i++)
		known |= strcmp(argv[1], commands[i]) == 0;
	if (!known || strcmp(argv[1], "help") == 0 || asks_help(argc, argv))
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
	                             !max_memory_arg(": " FRONT_MAX_MEMORY_ENV, lim)
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
	fprintf(stderr, "%s\n", line);
	return status;
}
