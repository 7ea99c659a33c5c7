/*
 * test_cli_json.c - the --json of compare, explain, simulate and cache
 * ls: each document parses (json_read.h) and says what the text of the
 * same command says, row by row; -o writes the same document; compare
 * --svg's text gives the crossovers its plot marks; explain warns when
 * algorithm: auto ranked by phases.  Runs the ccplan program
 * (CCPLAN_BIN).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "json_read.h"

/* An 8x8 all-port mesh with the T3D's costs, broadcasting 256 bytes. */
static const char mesh8[] =
        "machine: {topology: mesh, dims: [8, 8], ports: all, cost: "
        "{preset: t3d}}\n"
        "communication: {collective: broadcast, root: [3, 5], bytes: 256}\n"
        "algorithm: auto\n";
/* The same machine without costs. */
static const char nocost[] =
        "machine: {topology: mesh, dims: [4, 4], ports: all}\n"
        "communication: {collective: broadcast, root: 0, bytes: 256}\n";

static char dir[64];

static const char *bin(void)
{
	const char *v = getenv("CCPLAN_BIN");
	assert_non_null(v);
	return v;
}

/* dir/name holding text; its path in path. */
static void put(const char *name, const char *text, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* A whole file (malloc'd, NUL-terminated), or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *text = NULL, buf[4096];
	size_t len = 0, n;
	FILE *m = open_memstream(&text, &len);
	while (m && (n = fread(buf, 1, sizeof buf, f)) > 0)
		fwrite(buf, 1, n, m);
	fclose(f);
	if (m)
		fclose(m);
	return text;
}

/* Run the shell command fmt; its stdout (malloc'd) and exit status. */
static char *run(int *status, const char *fmt, ...)
{
	char cmd[2048], out[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof cmd - 64);
	snprintf(out, sizeof out, "%s/stdout", dir);
	snprintf(cmd + n, sizeof cmd - (size_t)n, " >'%s'", out);
	int st = system(cmd);
	*status = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	char *text = slurp(out);
	assert_non_null(text);
	return text;
}

/* ccplan ARGS -o FILE writes doc, what ARGS wrote to stdout, to FILE;
 * a FILE that cannot be written is exit 3, as for every command. */
static void check_o(const char *args, const char *doc)
{
	char path[256];
	int st;
	snprintf(path, sizeof path, "%s/o.json", dir);
	free(run(&st, "'%s' -q %s -o '%s'", bin(), args, path));
	assert_int_equal(st, 0);
	char *file = slurp(path);
	assert_non_null(file);
	assert_string_equal(file, doc);
	free(file);
	free(run(&st, "'%s' -q %s -o '%s/no/o.json' 2>/dev/null", bin(), args,
	         dir));
	assert_int_equal(st, 3);
}

/* Parse a document that must be one JSON object of format fmt. */
static struct jr *parse(const char *text, const char *fmt)
{
	struct jr *v = jr_parse(text, strlen(text));
	assert_non_null(v);
	assert_int_equal(v->kind, JR_OBJ);
	const struct jr *f = jr_get(v, "format");
	assert_non_null(f);
	assert_string_equal(f->str, fmt);
	assert_int_equal(jr_get(v, "version")->i, 1);
	return v;
}

/* The line of text that begins with prefix, up to its newline, into
 * buf; false if there is none. */
static bool line_of(const char *text, const char *prefix, char *buf, size_t len)
{
	for (const char *s = text; s && *s; s = strchr(s, '\n'), s += !!s) {
		if (strncmp(s, prefix, strlen(prefix)) != 0)
			continue;
		size_t n = strcspn(s, "\n");
		snprintf(buf, len, "%.*s", (int)n, s);
		return true;
	}
	return false;
}

/* A time of the JSON as the text prints it: "%.2f", or "-" for null. */
static void as_text(const struct jr *v, char *buf, size_t len)
{
	assert_non_null(v);
	if (v->kind == JR_NULL)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", v->num);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/ccp-json-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* compare: every ranked row of the table, in order, with its numbers;
 * the algorithms that do not apply with their reasons; the crossovers. */
static void test_compare(void **state)
{
	(void)state;
	char in[256];
	int st;
	put("mesh8.yaml", mesh8, in, sizeof in);
	char *text = run(&st, "'%s' -q compare '%s'", bin(), in);
	assert_int_equal(st, 0);
	char *js = run(&st, "'%s' -q compare --json '%s'", bin(), in);
	assert_int_equal(st, 0);
	struct jr *v = parse(js, "ccplan-compare");
	assert_string_equal(jr_get(v, "ranked_by")->str, "simulated");
	assert_string_equal(jr_get(v, "model")->str, "unicast");
	const struct jr *rows = jr_get(v, "ranked");
	assert_true(rows && rows->n >= 2);
	for (size_t i = 0; i < rows->n; i++) {
		const struct jr *r = jr_at(rows, i);
		char want[256], got[256], a[32], b[32], c[32];
		as_text(jr_get(r, "model_us"), a, sizeof a);
		as_text(jr_get(r, "sim_max_us"), b, sizeof b);
		as_text(jr_get(r, "sim_mean_us"), c, sizeof c);
		assert_int_equal(jr_get(r, "rank")->i, (int64_t)i + 1);
		snprintf(want, sizeof want, "%-3d ", (int)i + 1);
		assert_true(line_of(text, want, got, sizeof got));
		char name[64], cont[16], ta[32], tb[32], tc[32];
		unsigned ph, lb;
		assert_int_equal(sscanf(got + 4,
		                        "%63s %u %u %15s %31s %31s %31s", name,
		                        &ph, &lb, cont, ta, tb, tc),
		                 7);
		assert_string_equal(jr_get(r, "algorithm")->str, name);
		assert_int_equal(jr_get(r, "phases")->i, ph);
		assert_int_equal(jr_get(r, "bound")->i, lb);
		assert_string_equal(jr_get(r, "contention")->str, cont);
		assert_string_equal(a, ta);
		assert_string_equal(b, tb);
		assert_string_equal(c, tc);
		assert_int_equal(jr_get(r, "model_us")->kind, JR_NUM);
	}
	/* every algorithm that does not apply, as the text lists them */
	const struct jr *na = jr_get(v, "not_applicable");
	assert_true(na && na->n > 0);
	for (size_t i = 0; i < na->n; i++) {
		char want[512], got[512];
		snprintf(want, sizeof want, "-   %s ",
		         jr_get(jr_at(na, i), "algorithm")->str);
		assert_true(line_of(text, want, got, sizeof got));
		assert_non_null(
		        strstr(got, jr_get(jr_at(na, i), "reason")->str));
	}
	assert_int_equal(jr_get(v, "failed")->n, 0);
	assert_true(jr_get(v, "other_collectives")->n > 0);
	/* the crossovers of the top two, as the text's line */
	const struct jr *x = jr_get(v, "crossovers");
	assert_int_equal(x->kind, JR_OBJ);
	char line[512], want[512];
	int n = snprintf(want, sizeof want, "crossovers of %s and %s (model):",
	                 jr_get(x, "first")->str, jr_get(x, "second")->str);
	const struct jr *at = jr_get(x, "bytes");
	assert_true(at->n > 0);
	for (size_t i = 0; i < at->n; i++)
		n += snprintf(want + n, sizeof want - (size_t)n, " %lld",
		              (long long)jr_at(at, i)->i);
	snprintf(want + n, sizeof want - (size_t)n, " bytes");
	assert_true(line_of(text, "crossovers of", line, sizeof line));
	assert_string_equal(line, want);
	assert_int_equal(jr_get(v, "plot_crossovers")->kind, JR_NULL);
	/* -o: the same document, in a file; -o alone is a usage error */
	char args[512], path[256];
	snprintf(args, sizeof args, "compare --json '%s'", in);
	check_o(args, js);
	snprintf(path, sizeof path, "%s/c.json", dir);
	free(run(&st, "'%s' -q compare '%s' -o '%s' 2>/dev/null", bin(), in,
	         path));
	assert_int_equal(st, 2);
	jr_free(v);
	free(js);
	free(text);
}

/* compare --svg: the text and the JSON give the crossovers the plot
 * marks (the sizes where the fastest changes), not the first two's. */
static void test_compare_svg_crossovers(void **state)
{
	(void)state;
	char in[256], svg[256], line[1024];
	int st;
	put("mesh8.yaml", mesh8, in, sizeof in);
	snprintf(svg, sizeof svg, "%s/c.svg", dir);
	char *text =
	        run(&st, "'%s' -q compare '%s' --svg '%s'", bin(), in, svg);
	assert_int_equal(st, 0);
	char *plot = slurp(svg);
	assert_non_null(plot);
	assert_true(line_of(text, "crossovers", line, sizeof line));
	assert_null(strstr(text, "crossovers of"));
	/* every crossover of the text is labelled so on the plot: "A -> B
	 * at S" in the text, "A → B  S" on the plot */
	const char *p = strchr(line, ':');
	assert_non_null(p);
	int seen = 0;
	char a[64], b[64], size[32], unit[8];
	while (p && sscanf(p + 1, " %63s -> %63s at %31s %7[A-Za-z]", a, b,
	                   size, unit) == 4) {
		char label[256];
		snprintf(label, sizeof label, "%s \xe2\x86\x92 %s  %s %s", a, b,
		         size, unit);
		assert_non_null(strstr(plot, label));
		seen++;
		p = strchr(p + 1, ',');
	}
	assert_true(seen > 0);
	/* as many as the plot has dashed lines, and so in the JSON */
	int marked = 0;
	for (const char *q = plot; (q = strstr(q, " \xe2\x86\x92 ")); q++)
		marked++;
	assert_int_equal(seen, marked);
	char *js = run(&st, "'%s' -q compare --json '%s' --svg '%s'", bin(), in,
	               svg);
	assert_int_equal(st, 0);
	struct jr *v = parse(js, "ccplan-compare");
	const struct jr *pc = jr_get(v, "plot_crossovers");
	assert_int_equal(pc->kind, JR_ARR);
	assert_int_equal((int)pc->n, seen);
	for (size_t i = 0; i < pc->n; i++) {
		const struct jr *c = jr_at(pc, i);
		char label[256];
		snprintf(label, sizeof label, "%s -> %s at ",
		         jr_get(c, "from")->str, jr_get(c, "to")->str);
		assert_non_null(strstr(line, label));
		const struct jr *bw = jr_get(c, "between");
		assert_true(jr_at(bw, 0)->num <= jr_get(c, "bytes")->num);
		assert_true(jr_get(c, "bytes")->num <= jr_at(bw, 1)->num);
	}
	assert_int_equal(jr_get(v, "crossovers")->kind, JR_NULL);
	jr_free(v);
	free(js);
	free(plot);
	free(text);
}

/* explain: the header's choice, the totals, the bound and the
 * prediction as the text prints them. */
static void test_explain(void **state)
{
	(void)state;
	char in[256], line[512], want[512];
	int st;
	put("mesh8.yaml", mesh8, in, sizeof in);
	char *text = run(&st, "'%s' -q explain '%s'", bin(), in);
	assert_int_equal(st, 0);
	char *js = run(&st, "'%s' -q explain --json '%s'", bin(), in);
	assert_int_equal(st, 0);
	struct jr *v = parse(js, "ccplan-explain");
	const char *alg = jr_get(v, "algorithm")->str;
	snprintf(want, sizeof want, "algorithm   %s ", alg);
	assert_true(line_of(text, want, line, sizeof line));
	const struct jr *sel = jr_get(v, "selection");
	assert_int_equal(sel->kind, JR_OBJ);
	snprintf(want, sizeof want,
	         "chosen by   algorithm: auto, by simulated time, among %lld "
	         "candidates: %.2f us; runner-up %s, %.2f us",
	         (long long)jr_get(sel, "candidates")->i,
	         jr_get(sel, "time_us")->num, jr_get(sel, "runner_up")->str,
	         jr_get(sel, "runner_up_us")->num);
	assert_true(line_of(text, "chosen by", line, sizeof line));
	assert_string_equal(line, want);
	const struct jr *phases = jr_get(v, "phases");
	snprintf(want, sizeof want,
	         "total       %zu phases, %lld transfers, %lld bytes, %lld "
	         "hops",
	         phases->n, (long long)jr_get(v, "transfers")->i,
	         (long long)jr_get(v, "bytes")->i,
	         (long long)jr_get(v, "hops")->i);
	assert_true(line_of(text, "total", line, sizeof line));
	assert_non_null(strstr(line, want));
	int64_t bytes = 0;
	for (size_t i = 0; i < phases->n; i++) {
		const struct jr *ph = jr_at(phases, i);
		char row[64];
		bytes += jr_get(ph, "bytes")->i;
		snprintf(row, sizeof row, "%5zu  %9lld  %12lld  %8lld ", i,
		         (long long)jr_get(ph, "transfers")->i,
		         (long long)jr_get(ph, "bytes")->i,
		         (long long)jr_get(ph, "max_link")->i);
		assert_true(line_of(text, row, line, sizeof line));
	}
	assert_int_equal(bytes, jr_get(v, "bytes")->i);
	const struct jr *lb = jr_get(v, "lower_bound");
	snprintf(want, sizeof want, "lower bound %lld phases",
	         (long long)jr_get(lb, "phases")->i);
	assert_true(line_of(text, want, line, sizeof line));
	snprintf(want, sizeof want, "(plan is %.2fx the bound)",
	         jr_get(v, "bound_ratio")->num);
	assert_non_null(strstr(line, want));
	snprintf(want, sizeof want, "predicted   %.2f us by the %s model",
	         jr_get(v, "predicted_us")->num, jr_get(v, "model")->str);
	assert_true(line_of(text, "predicted", line, sizeof line));
	assert_string_equal(line, want);
	assert_true(jr_get(v, "verified")->b);
	assert_int_equal(jr_get(v, "model_note")->kind, JR_NULL);
	char args[512];
	snprintf(args, sizeof args, "explain --json '%s'", in);
	check_o(args, js);
	/* --json with another view, or -o without it: usage errors */
	free(run(&st, "'%s' -q explain --json --summary '%s' 2>/dev/null",
	         bin(), in));
	assert_int_equal(st, 2);
	free(run(&st, "'%s' -q explain '%s' -o x.json 2>/dev/null", bin(), in));
	assert_int_equal(st, 2);
	jr_free(v);
	free(js);
	free(text);
}

/* simulate: the simulated and modelled times and the counts. */
static void test_simulate(void **state)
{
	(void)state;
	char in[256], line[512], want[512];
	int st;
	put("mesh8.yaml", mesh8, in, sizeof in);
	char *text = run(&st, "'%s' -q simulate --links fifo '%s'", bin(), in);
	assert_int_equal(st, 0);
	char *js = run(&st, "'%s' -q simulate --links fifo --json '%s'", bin(),
	               in);
	assert_int_equal(st, 0);
	struct jr *v = parse(js, "ccplan-simulate");
	assert_string_equal(jr_get(v, "links")->str, "fifo");
	assert_false(jr_get(v, "barriers")->b);
	snprintf(want, sizeof want,
	         "simulated   last delivery %.2f us, mean %.2f us over %lld "
	         "receivers",
	         jr_get(v, "last_delivery_us")->num,
	         jr_get(v, "mean_delivery_us")->num,
	         (long long)jr_get(v, "receivers")->i);
	assert_true(line_of(text, "simulated", line, sizeof line));
	assert_non_null(strstr(line, want));
	snprintf(want, sizeof want, "model       %.2f us (%s model)",
	         jr_get(v, "model_us")->num, jr_get(v, "model")->str);
	assert_true(line_of(text, "model", line, sizeof line));
	assert_string_equal(line, want);
	snprintf(want, sizeof want,
	         "network     %lld messages, %lld events, %lld headers waited "
	         "for a busy link, %.2f us in all; %.2f us waiting for ports",
	         (long long)jr_get(v, "messages")->i,
	         (long long)jr_get(v, "events")->i,
	         (long long)jr_get(v, "contended")->i,
	         jr_get(v, "stall_us")->num, jr_get(v, "port_wait_us")->num);
	assert_true(line_of(text, "network", line, sizeof line));
	assert_string_equal(line, want);
	assert_int_equal(jr_get(v, "max_share")->kind, JR_NULL);
	char args[512];
	snprintf(args, sizeof args, "simulate --links fifo --json '%s'", in);
	check_o(args, js);
	jr_free(v);
	free(js);
	free(text);
}

/* cache ls: every entry as the table lists it; an empty cache. */
static void test_cache_ls(void **state)
{
	(void)state;
	char in[256], db[256], ccp[256], line[512];
	int st;
	put("mesh8.yaml", mesh8, in, sizeof in);
	snprintf(db, sizeof db, "%s/cache/plans.db", dir);
	snprintf(ccp, sizeof ccp, "%s/m.ccp", dir);
	char *js = run(&st, "'%s' -q cache --cache '%s' ls --json", bin(), db);
	assert_int_equal(st, 0);
	struct jr *v = parse(js, "ccplan-cache");
	assert_string_equal(jr_get(v, "path")->str, db);
	assert_int_equal(jr_get(v, "entries")->n, 0);
	jr_free(v);
	free(js);
	free(run(&st,
	         "mkdir -m 700 '%s/cache' && '%s' -q compile '%s' "
	         "--cache '%s' -o '%s'",
	         dir, bin(), in, db, ccp));
	assert_int_equal(st, 0);
	char *text = run(&st, "'%s' -q cache --cache '%s' ls", bin(), db);
	assert_int_equal(st, 0);
	js = run(&st, "'%s' -q cache ls --json --cache '%s'", bin(), db);
	assert_int_equal(st, 0);
	v = parse(js, "ccplan-cache");
	const struct jr *e = jr_get(v, "entries");
	assert_int_equal(e->n, 1);
	const struct jr *r = jr_at(e, 0);
	char prefix[17];
	snprintf(prefix, sizeof prefix, "%.16s", jr_get(r, "key")->str);
	assert_true(line_of(text, prefix, line, sizeof line));
	char alg[64];
	unsigned ph, lb;
	unsigned long long size;
	assert_int_equal(
	        sscanf(line + 16, " %63s %u %u %llu", alg, &ph, &lb, &size), 4);
	assert_string_equal(jr_get(r, "algorithm")->str, alg);
	assert_int_equal(jr_get(r, "phases")->i, ph);
	assert_int_equal(jr_get(r, "bound")->i, lb);
	assert_int_equal(jr_get(r, "bytes")->i, (int64_t)size);
	assert_true(jr_get(r, "last_used")->i >= jr_get(r, "created")->i);
	assert_int_equal(jr_get(r, "predicted_us")->kind, JR_NUM);
	char args[512];
	snprintf(args, sizeof args, "cache ls --json --cache '%s'", db);
	check_o(args, js);
	/* --json goes with ls alone */
	free(run(&st, "'%s' -q cache --cache '%s' path --json 2>/dev/null",
	         bin(), db));
	assert_int_equal(st, 2);
	jr_free(v);
	free(js);
	free(text);
}

/* Without costs: null times, "phases" as the ranking, and the warning
 * on stderr from every command that ranks, explain of a .yaml too. */
static void test_no_costs(void **state)
{
	(void)state;
	char in[256], err[256];
	int st;
	put("nocost.yaml", nocost, in, sizeof in);
	snprintf(err, sizeof err, "%s/err", dir);
	char *js =
	        run(&st, "'%s' -q compare --json '%s' 2>'%s'", bin(), in, err);
	assert_int_equal(st, 0);
	struct jr *v = parse(js, "ccplan-compare");
	assert_string_equal(jr_get(v, "ranked_by")->str, "phases");
	assert_int_equal(jr_get(v, "model")->kind, JR_NULL);
	const struct jr *r = jr_at(jr_get(v, "ranked"), 0);
	assert_int_equal(jr_get(r, "model_us")->kind, JR_NULL);
	assert_int_equal(jr_get(r, "sim_max_us")->kind, JR_NULL);
	assert_int_equal(jr_get(v, "model_note")->kind, JR_STR);
	char *e = slurp(err);
	assert_non_null(strstr(e, "warning: "));
	assert_non_null(strstr(e, "phases alone"));
	free(e);
	jr_free(v);
	free(js);
	const char *cmds[] = {"explain", "explain --json",
	                      "compile --no-cache"};
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		char out[256];
		snprintf(out, sizeof out, "%s/nc.ccp", dir);
		free(run(&st, "cd '%s' && '%s' -q %s '%s' 2>'%s'", dir, bin(),
		         cmds[i], in, err));
		assert_int_equal(st, 0);
		e = slurp(err);
		assert_non_null(strstr(e, "algorithm: auto ranked "));
		assert_non_null(strstr(e, "by their phases alone"));
		free(e);
	}
	js = run(&st, "'%s' -q explain --json '%s' 2>/dev/null", bin(), in);
	v = parse(js, "ccplan-explain");
	assert_string_equal(jr_get(jr_get(v, "selection"), "by")->str,
	                    "phases");
	assert_int_equal(jr_get(v, "predicted_us")->kind, JR_NULL);
	assert_int_equal(jr_get(v, "model_note")->kind, JR_STR);
	jr_free(v);
	free(js);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_compare),
	        cmocka_unit_test(test_compare_svg_crossovers),
	        cmocka_unit_test(test_explain),
	        cmocka_unit_test(test_simulate),
	        cmocka_unit_test(test_cache_ls),
	        cmocka_unit_test(test_no_costs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
