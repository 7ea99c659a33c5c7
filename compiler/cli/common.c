/*
 * common.c - what the commands of the ccplan program share: reading an
 * input or a plan with its diagnostics, the memory limit, where the
 * cache is, and the message for an argument a command does not take.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "cached.h"
#include "cli.h"
#include "progress.h"
#include "select.h"

bool cli_is_help(const char *a)
{
	return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

bool cli_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

int cli_getopt(int argc, char **argv)
{
	const struct cli_command *c = cli_find(argv[0]);
	return cli_getopt_in(c->name, c->opts, c->shorts, c->help, c->args,
	                     argc, argv);
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
void cli_warn_by_phases(const char *path, uint32_t candidates)
{
	if (candidates > 1)
		fprintf(stderr,
		        "%s: warning: %s: algorithm: auto ranked %u candidates "
		        "by their phases alone, the machine lacking the costs "
		        "to time them by; give machine.cost or a preset "
		        "('ccplan help presets')\n",
		        cli_prog, path, candidates);
}

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
	else if (c->plan.sel.method != IR_SELECT_NONE &&
	         isnan(c->plan.sel.time_us))
		cli_warn_by_phases(path, c->plan.sel.candidates);
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
	int64_t v = front_parse_size(size, INT64_MAX);
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

bool cli_out_begin(struct cli_out *o, const char *path)
{
	o->path = path;
	o->text = NULL;
	o->len = 0;
	o->f = open_memstream(&o->text, &o->len);
	if (!o->f)
		fprintf(stderr, "%s: out of memory\n", cli_prog);
	return o->f != NULL;
}

int cli_out_end(struct cli_out *o, bool keep)
{
	int rc = fclose(o->f) == 0 ? 0 : CCP_ENOMEM;
	o->f = NULL;
	if (rc == 0 && keep && o->path) {
		char err[512];
		rc = write_atomic(o->path, o->text, o->len, err, sizeof err);
		if (rc)
			fprintf(stderr, "%s: %s\n", cli_prog, err);
	} else if (rc == 0 && keep &&
	           (fwrite(o->text, 1, o->len, stdout) != o->len ||
	            fflush(stdout) != 0)) {
		rc = CCP_EIO;
	}
	free(o->text);
	o->text = NULL;
	return rc;
}
