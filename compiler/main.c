/*
 * main.c - the ccplan command: compile, explain, verify, export.
 * Only this file exits; everything below it returns codes.
 * Exit status: 0 ok, 1 plan rejected by the verifier, 2 bad input,
 * 3 internal error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "explain.h"
#include "json.h"
#include "sched.h"

#define CCPLAN_VERSION "0.1.0"

static const char *progname = "ccplan";

static void usage_main(FILE *out)
{
	fprintf(out, "usage: ccplan COMMAND [ARGS]\n"
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
	             "\n"
	             "algorithms:\n");
	for (int k = 0; sch_generators[k]; k++)
		fprintf(out, "  %-12s %s\n", sch_generators[k]->name,
		        sch_generators[k]->summary);
	fprintf(out, "\n"
	             "'ccplan COMMAND --help' describes a command.  Exit "
	             "status: 0 ok,\n"
	             "1 plan rejected by the verifier, 2 bad input, 3 internal "
	             "error.\n"
	             "Input format: docs/input-format.md; plan format: "
	             "docs/plan-format.md.\n");
}

static const char *const help_compile =
        "usage: ccplan compile IN.yaml [-o OUT.ccp] [-v]\n"
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
        "  -o FILE   output file\n"
        "  -v        print the summary of the plan on stderr\n";
static const char *const help_explain =
        "usage: ccplan explain FILE\n"
        "\n"
        "Print a plan phase by phase: transfers, bytes, the busiest link, "
        "ports\n"
        "used and hops, then the plan against its lower bound.  FILE is a "
        ".ccp\n"
        "plan, or a .yaml input, compiled in memory.\n";
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

/* Print a diagnostic: file:line:column: message, the line and a caret. */
static void print_diag(const struct diag *d)
{
	if (d->line > 0)
		fprintf(stderr, "%s:%d:%d: %s\n", d->file, d->line, d->column,
		        d->message);
	else if (d->file[0])
		fprintf(stderr, "%s: %s\n", d->file, d->message);
	else
		fprintf(stderr, "%s: %s\n", progname, d->message);
	if (d->line > 0 && d->source_line[0]) {
		fprintf(stderr, "%5d | %s\n      | ", d->line, d->source_line);
		for (int k = 1; k < d->column; k++)
			fputc(d->source_line[k - 1] == '\t' ? '\t' : ' ',
			      stderr);
		fprintf(stderr, "^\n");
	}
}

/* Parse and compile a YAML input; prints its own diagnostics. */
static int compile_yaml(const char *path, struct compiled *c)
{
	struct front_input in;
	struct diag d;
	memset(&d, 0, sizeof d);
	int rc = front_parse_file(path, &in, &d);
	if (rc) {
		if (!d.message[0])
			snprintf(d.message, sizeof d.message, "%s",
			         ccp_strerror(rc));
		if (!d.file[0])
			snprintf(d.file, sizeof d.file, "%s", path);
		print_diag(&d);
		return rc;
	}
	snprintf(d.file, sizeof d.file, "%s", path);
	rc = compile_input(&in, c, &d);
	if (rc) {
		if (rc == CCP_EVERIFY || d.line == 0)
			fprintf(stderr, "%s: %s\n", path, d.message);
		else
			print_diag(&d);
	}
	front_input_fini(&in);
	return rc;
}

/* Load FILE as a plan (.ccp) or compile it (.yaml/.yml). */
static int load_any(const char *path, struct compiled *c)
{
	if (ends_with(path, ".yaml") || ends_with(path, ".yml"))
		return compile_yaml(path, c);
	ir_file_info fi;
	char err[512];
	int rc = plan_load(path, c, &fi, err, sizeof err);
	if (rc)
		fprintf(stderr, "%s\n", err);
	return rc;
}

static int cmd_compile(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	bool verbose = false;
	for (int k = 1; k < argc; k++) {
		if (is_help(argv[k])) {
			fputs(help_compile, stdout);
			return EXIT_OK;
		} else if (strcmp(argv[k], "-o") == 0 && k + 1 < argc) {
			out = argv[++k];
		} else if (strcmp(argv[k], "-v") == 0) {
			verbose = true;
		} else if (argv[k][0] == '-' || in) {
			fprintf(stderr,
			        "%s compile: unexpected argument '%s'\n%s",
			        progname, argv[k], help_compile);
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
		snprintf(defout, sizeof defout, "%.*s.ccp", (int)n, base);
		out = defout;
	}
	struct compiled c;
	int rc = compile_yaml(in, &c);
	if (rc)
		return exit_status(rc);
	char err[512];
	rc = compile_write(&c, out, err, sizeof err);
	if (rc)
		fprintf(stderr, "%s: %s\n", progname, err);
	else if (verbose)
		fprintf(stderr,
		        "%s: %s, %u phases (lower bound %u), %llu transfers -> "
		        "%s\n",
		        in, c.plan.algorithm, c.report.phases,
		        c.report.lb_phases,
		        (unsigned long long)c.report.transfers, out);
	compiled_fini(&c);
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
			fprintf(stderr, "%s %s: unexpected argument '%s'\n%s",
			        progname, argv[0], argv[k], help);
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
	const char *file = NULL;
	int a = one_file(argc, argv, help_explain, &file);
	if (a)
		return a > 0 ? EXIT_OK : EXIT_BADINPUT;
	struct compiled c;
	int rc = load_any(file, &c);
	if (rc)
		return exit_status(rc);
	printf("plan        %s\n", file);
	rc = explain_plan(&c, stdout);
	compiled_fini(&c);
	return exit_status(rc);
}

static int cmd_verify(int argc, char **argv)
{
	const char *file = NULL;
	int a = one_file(argc, argv, help_verify, &file);
	if (a)
		return a > 0 ? EXIT_OK : EXIT_BADINPUT;
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
			fprintf(stderr,
			        "%s export: unexpected argument '%s'\n%s",
			        progname, argv[k], help_export);
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
	free(text);
	compiled_fini(&c);
	return rc == CCP_EIO ? EXIT_INTERNAL : exit_status(rc);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage_main(stderr);
		return EXIT_BADINPUT;
	}
	const char *cmd = argv[1];
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
	fprintf(stderr, "%s: unknown command '%s'\n\n", progname, cmd);
	usage_main(stderr);
	return EXIT_BADINPUT;
}
