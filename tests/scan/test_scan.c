/*
 * test_scan.c - `ccplan scan` and plans by name (docs/scan.md): what the
 * libclang scan finds in the sample program (a name from a macro in an
 * included header, literals, a call inside a macro, a pragma in a header,
 * a pragma continued over two lines, a pragma in #if 0, a name that is
 * not a literal), where it reports bad pragmas, missing YAML files,
 * conflicting pragmas and compiler errors (positions checked exactly),
 * the cache's names table and its migration, the command end to end into
 * a temporary cache and into a C file (compiled with -Werror), and
 * ccp_plan_lookup: registered sets first, then the cache, and the cache's
 * path rule.  The set test_plans is emitted from the sample at build time
 * and linked in (tests/scan/scan.cmake), with app.c and more.c.
 */
/* realpath() and mkdtemp() are XSI/POSIX 2008 beyond the build's default */
#define _XOPEN_SOURCE 700

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "cache.h"
#include "ccplan_emitted.h"
#include "ccplan_lookup.h"
#include "scan.h"

/* The sample program (src/app.c, src/more.c) and its emitted plans. */
int app_plans(ccp_context *ctx, int32_t rank, const char *other,
              ccp_plan *plans[5]);
int more_plans(ccp_context *ctx, int32_t rank, ccp_plan **plan);
extern const struct ccp_plan_set test_plans;

static char root[2048];    /* the source tree */
static char dir[2100];     /* tests/scan */
static char tmp[2048];     /* this run's scratch directory */
static char flags[8192];   /* "-- -I... -I..." for the sample */
static const char *bin;    /* ccplan */
static char errout[65536]; /* stderr of the last run() */

/* ---- helpers --------------------------------------------------------------
 */

static int run(const char *fmt, ...) FRONT_PRINTF(1, 2);

static int run(const char *fmt, ...)
{
	char cmd[16384], full[20800], path[4200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	snprintf(path, sizeof path, "%s/stderr", tmp);
	snprintf(full, sizeof full, "%s >/dev/null 2>'%s'", cmd, path);
	int st = system(full);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(errout, 1, sizeof errout - 1, f) : 0;
	errout[n] = '\0';
	if (f)
		fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Fail with the command's stderr when it lacks s. */
static void err_has(const char *s)
{
	if (!strstr(errout, s))
		fail_msg("stderr lacks \"%s\":\n%s", s, errout);
}

static bool exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A file's contents (malloc'd). */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return b;
}

/* The request of name in form, or fail. */
static const struct scan_req *req(const struct scan *s, const char *name,
                                  enum scan_form form)
{
	for (size_t i = 0; i < s->nreqs; i++)
		if (strcmp(s->reqs[i].name, name) == 0 &&
		    s->reqs[i].form == form)
			return &s->reqs[i];
	fail_msg("no %s request of '%s'", form == SCAN_CALL ? "call" : "pragma",
	         name);
	return NULL;
}

/* p is at file (a path under dir), line, column. */
static void at(const struct scan_pos *p, const char *file, int line, int col)
{
	char want[4200];
	snprintf(want, sizeof want, "%s/%s", dir, file);
	assert_string_equal(p->file, want);
	assert_int_equal(p->line, line);
	assert_int_equal(p->column, col);
}

/* The error of s at file:line:column, or fail; its message must hold
 * text. */
static void error_at(const struct scan *s, const char *file, int line, int col,
                     const char *text)
{
	char want[4200];
	snprintf(want, sizeof want, "%s/%s", dir, file);
	for (size_t i = 0; i < s->nerrors; i++) {
		const struct diag *d = &s->errors[i];
		if (strcmp(d->file, want) == 0 && d->line == line &&
		    d->column == col) {
			if (!strstr(d->message, text))
				fail_msg("%s:%d:%d: '%s' lacks '%s'", file,
				         line, col, d->message, text);
			return;
		}
	}
	for (size_t i = 0; i < s->nerrors; i++)
		print_message("  have %s:%d:%d: %s\n", s->errors[i].file,
		              s->errors[i].line, s->errors[i].column,
		              s->errors[i].message);
	fail_msg("no error at %s:%d:%d", file, line, col);
}

/* Scan one source of tests/scan with the sample's flags. */
static int scan_one(struct scan *s, const char *file)
{
	char path[4200], inc1[4200], inc2[4200];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	snprintf(inc1, sizeof inc1, "-I%s/include", root);
	snprintf(inc2, sizeof inc2, "-I%s/inc", dir);
	const char *args[] = {inc1, inc2, "-std=c11"};
	return scan_source(s, path, args, 3);
}

static int group_setup(void **state)
{
	(void)state;
	const char *r = getenv("CCPLAN_SOURCE_DIR");
	bin = getenv("CCPLAN_BIN");
	if (!r || !bin) {
		fprintf(stderr, "test_scan: CCPLAN_SOURCE_DIR and CCPLAN_BIN "
		                "must be set (ctest sets them)\n");
		return -1;
	}
	snprintf(root, sizeof root, "%s", r);
	snprintf(dir, sizeof dir, "%s/tests/scan", root);
	snprintf(flags, sizeof flags,
	         "--yaml-dir '%s/data' -- -I'%s/include' "
	         "-I'%s/inc'",
	         dir, root, dir);
	snprintf(tmp, sizeof tmp, "/tmp/test_scan.XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	unsetenv("CCPLAN_CACHE");
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[4200];
	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- the scan --------------------------------------------------------------
 */

/* The sample program: every request, where it is, what it maps to. */
static void test_requests(void **state)
{
	struct scan s;
	struct scan_plan *plans;
	size_t n;
	(void)state;
	assert_true(scan_available());
	scan_init(&s);
	assert_int_equal(scan_one(&s, "src/app.c"), 0);
	assert_int_equal(scan_one(&s, "src/more.c"), 0);
	assert_int_equal(s.nerrors, 0);

	/* the macro from the header, evaluated after expansion */
	at(&req(&s, "bcast_1k", SCAN_CALL)->at, "src/app.c", 27, 12);
	at(&req(&s, "gather64", SCAN_CALL)->at, "src/app.c", 29, 12);
	/* a call inside a macro: where the macro is expanded */
	at(&req(&s, "scatter16", SCAN_CALL)->at, "src/app.c", 31, 12);
	at(&req(&s, "alltoall-8", SCAN_CALL)->at, "src/app.c", 33, 12);
	/* pragmas: the name's and the file's positions, the file resolved
	 * against the directory of the file holding the pragma */
	const struct scan_req *g = req(&s, "gather64", SCAN_PRAGMA);
	at(&g->at, "src/app.c", 11, 21);
	at(&g->yaml_at, "src/app.c", 11, 31);
	char want[4200];
	snprintf(want, sizeof want, "%s/src/../data/gather64.yaml", dir);
	assert_string_equal(g->yaml, want);
	const struct scan_req *a = req(&s, "alltoall-8", SCAN_PRAGMA);
	at(&a->at, "inc/scan_names.h", 14, 21);
	at(&a->yaml_at, "inc/scan_names.h", 14, 35);
	/* continued over two lines, with a comment */
	const struct scan_req *b = req(&s, "bcast_alias", SCAN_PRAGMA);
	at(&b->at, "src/more.c", 11, 21);
	at(&b->yaml_at, "src/more.c", 12, 21);

	/* each once: the header's pragma and the two bcast_1k calls of two
	 * sources are distinct places, the pragma seen twice counts once */
	size_t calls = 0, pragmas = 0;
	for (size_t i = 0; i < s.nreqs; i++) {
		calls += s.reqs[i].form == SCAN_CALL;
		pragmas += s.reqs[i].form == SCAN_PRAGMA;
		assert_string_not_equal(s.reqs[i].name, "never"); /* #if 0 */
	}
	assert_int_equal(calls, 5);
	assert_int_equal(pragmas, 3);
	/* the name that is not a literal */
	assert_int_equal(s.nnotes, 1);
	at(&s.notes[0].at, "src/app.c", 35, 9);
	assert_non_null(strstr(s.notes[0].message, "not a literal"));

	/* resolution: sorted by name; pragma, own directory, --yaml-dir */
	char data[4200];
	snprintf(data, sizeof data, "%s/data", dir);
	const char *dirs[] = {"/nonexistent", data};
	assert_int_equal(scan_resolve(&s, dirs, 2, &plans, &n), 0);
	assert_int_equal(n, 5);
	const char *names[] = {"alltoall-8", "bcast_1k", "bcast_alias",
	                       "gather64", "scatter16"};
	const char *files[] = {"inc/../data/alltoall8.yaml",
	                       "src/bcast_1k.yaml", "src/bcast_1k.yaml",
	                       "src/../data/gather64.yaml",
	                       "data/scatter16.yaml"};
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(plans[i].name, names[i]);
		snprintf(want, sizeof want, "%s/%s", dir, files[i]);
		assert_string_equal(plans[i].yaml, want);
	}
	assert_int_equal(plans[1].by->form, SCAN_CALL);
	assert_int_equal(plans[3].by->form, SCAN_PRAGMA);
	scan_plans_free(plans, n);

	/* without the --yaml-dir, scatter16 is missing, at its call */
	assert_int_equal(scan_resolve(&s, NULL, 0, &plans, &n), CCP_EPARSE);
	assert_null(plans);
	assert_int_equal(s.nerrors, 1);
	error_at(&s, "src/app.c", 31, 12, "no scatter16.yaml in");
	scan_fini(&s);
}

/* Every malformed pragma, at the token that is wrong. */
static void test_bad_pragmas(void **state)
{
	struct scan s;
	(void)state;
	scan_init(&s);
	assert_int_equal(scan_one(&s, "bad/bad_pragma.c"), CCP_EPARSE);
	assert_int_equal(s.nreqs, 0);
	assert_int_equal(s.nerrors, 9);
	const char *f = "bad/bad_pragma.c";
	error_at(&s, f, 2, 16, "unknown word 'plam'; did you mean 'plan'?");
	error_at(&s, f, 3, 21, "missing plan name before ','");
	error_at(&s, f, 4, 22, "expected ',' after the plan name, not ')'");
	error_at(&s, f, 5, 24, "expected the YAML file as a string after ','");
	error_at(&s, f, 6, 32, "expected ')' after the file name");
	error_at(&s, f, 7, 15, "expected 'plan' after '#pragma ccplan'");
	error_at(&s, f, 8, 34, "unexpected 'extra' after ')'");
	error_at(&s, f, 9, 24, "empty file name");
	error_at(&s, f, 10, 24, "not 'L\"x.yaml\"'");
	/* with the caret's line */
	assert_string_equal(s.errors[0].source_line,
	                    "#pragma ccplan plam(x, \"x.yaml\")");
	scan_fini(&s);
}

/* Missing files, one name for two files, a compiler error. */
static void test_resolve_errors(void **state)
{
	struct scan s;
	struct scan_plan *plans;
	size_t n;
	(void)state;

	scan_init(&s);
	assert_int_equal(scan_one(&s, "bad/missing_yaml.c"), 0);
	assert_int_equal(scan_resolve(&s, NULL, 0, &plans, &n), CCP_EPARSE);
	assert_int_equal(s.nerrors, 2);
	/* the pragma's file string; the call of a name no pragma maps */
	error_at(&s, "bad/missing_yaml.c", 4, 27, "plan 'lost': cannot read");
	error_at(&s, "bad/missing_yaml.c", 9, 9,
	         "plan 'nowhere': no nowhere.yaml in");
	scan_fini(&s);

	scan_init(&s);
	assert_int_equal(scan_one(&s, "bad/conflict.c"), 0);
	assert_int_equal(scan_resolve(&s, NULL, 0, &plans, &n), CCP_EPARSE);
	/* the same file spelt two ways is no conflict */
	assert_int_equal(s.nerrors, 1);
	error_at(&s, "bad/conflict.c", 3, 21,
	         "plan 'twice' is already mapped to");
	scan_fini(&s);

	scan_init(&s);
	assert_int_equal(scan_one(&s, "bad/broken.c"), CCP_EPARSE);
	error_at(&s, "bad/broken.c", 2, 10, "file not found");
	scan_fini(&s);

	scan_init(&s);
	assert_int_equal(scan_one(&s, "no/such/source.c"), CCP_EIO);
	assert_int_equal(s.nerrors, 1);
	assert_int_equal(s.errors[0].line, 0);
	scan_fini(&s);
}

/* ---- the cache's names ----------------------------------------------------
 */

static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static int count_names(const char *name, const uint8_t *key, const char *yaml,
                       int64_t created, void *arg)
{
	(void)key;
	(void)yaml;
	(void)created;
	(void)name;
	++*(int *)arg;
	return 0;
}

/* A version-1 cache is migrated; names are put, got, replaced, listed. */
static void test_names_table(void **state)
{
	char path[4200], err[512];
	cache *c = NULL;
	struct cache_event ev;
	(void)state;
	snprintf(path, sizeof path, "%s/v1.db", tmp);
	/* a cache as schema version 1 made it */
	raw_exec(path,
	         "CREATE TABLE plans (key BLOB PRIMARY KEY NOT NULL CHECK "
	         "(typeof(key) = 'blob' AND length(key) = 16), checksum "
	         "INTEGER NOT NULL, size INTEGER NOT NULL, algorithm TEXT NOT "
	         "NULL, phases INTEGER NOT NULL, lower_bound INTEGER NOT NULL, "
	         "predicted REAL, created INTEGER NOT NULL, last_used INTEGER "
	         "NOT NULL, canonical TEXT NOT NULL, blob BLOB NOT NULL);"
	         "CREATE INDEX plans_last_used ON plans (last_used);"
	         "PRAGMA application_id = 1128484940; /* CCPL */"
	         "PRAGMA user_version = 1;");
	/* read-only cannot upgrade it */
	assert_int_equal(
	        cache_open(path, CACHE_READONLY, &c, NULL, err, sizeof err),
	        CCP_EVERSION);
	assert_int_equal(cache_open(path, 0, &c, &ev, err, sizeof err), 0);
	assert_true(ev.migrated);
	assert_int_equal(ev.from_version, 1);
	assert_false(ev.moved_aside);

	uint8_t k1[16], k2[16], got[16];
	char *yaml = NULL;
	int64_t created = 0;
	memset(k1, 0x11, 16);
	memset(k2, 0x22, 16);
	cache_set_time(c, 1000);
	assert_int_equal(cache_name_get(c, "a", got, NULL, NULL),
	                 CCP_ENOTFOUND);
	assert_int_equal(cache_name_put(c, "a", k1, "/x/a.yaml"), 0);
	assert_int_equal(cache_name_put(c, "b-2", k1, "/x/a.yaml"), 0);
	cache_set_time(c, 2000);
	assert_int_equal(cache_name_put(c, "a", k1, "/x/a.yaml"), 0);
	assert_int_equal(cache_name_get(c, "a", got, &yaml, &created), 0);
	assert_memory_equal(got, k1, 16);
	assert_string_equal(yaml, "/x/a.yaml");
	assert_int_equal(created, 1000); /* unchanged: kept */
	free(yaml);
	assert_int_equal(cache_name_put(c, "a", k2, "/x/a2.yaml"), 0);
	assert_int_equal(cache_name_get(c, "a", got, &yaml, &created), 0);
	assert_memory_equal(got, k2, 16);
	assert_string_equal(yaml, "/x/a2.yaml");
	assert_int_equal(created, 2000); /* replaced */
	free(yaml);
	int count = 0;
	assert_int_equal(cache_name_list(c, count_names, &count), 0);
	assert_int_equal(count, 2);
	/* bad names */
	char longname[300];
	memset(longname, 'n', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	assert_int_equal(cache_name_put(c, "", k1, ""), CCP_EINVAL);
	assert_int_equal(cache_name_put(c, "a\nb", k1, ""), CCP_EINVAL);
	assert_int_equal(cache_name_put(c, longname, k1, ""), CCP_EINVAL);
	longname[255] = '\0';
	assert_int_equal(cache_name_put(c, longname, k1, ""), 0);
	cache_close(c);

	/* read-only now: get works, put does not */
	assert_int_equal(
	        cache_open(path, CACHE_READONLY, &c, NULL, err, sizeof err), 0);
	assert_int_equal(cache_name_get(c, "b-2", got, NULL, NULL), 0);
	assert_memory_equal(got, k1, 16);
	assert_int_equal(cache_name_put(c, "c", k1, ""), CCP_EINVAL);
	cache_close(c);
}

/* ---- the command ------------------------------------------------------------
 */

/* Into a cache: every plan stored and named, the second time from the
 * cache; then looked up by name at run time. */
static void test_cli_cache(void **state)
{
	char db[4200], err[512];
	(void)state;
	snprintf(db, sizeof db, "%s/cli/plans.db", tmp);
	assert_int_equal(run("'%s' scan '%s/src/app.c' '%s/src/more.c' -v "
	                     "--cache '%s' %s",
	                     bin, dir, dir, db, flags),
	                 0);
	char line[4400];
	snprintf(line, sizeof line,
	         "%s/src/app.c:35:9: ccp_plan_lookup(): the plan name is not a "
	         "literal; ignored",
	         dir);
	err_has(line);
	snprintf(line, sizeof line,
	         "%s/src/app.c:27:12: plan 'bcast_1k': asked for by "
	         "ccp_plan_lookup()",
	         dir);
	err_has(line);
	err_has("plan 'gather64': ");
	err_has("compiled, stored and named");
	err_has("plan 'bcast_alias': ");
	err_has("the same plan as another name");

	cache *c = NULL;
	assert_int_equal(
	        cache_open(db, CACHE_READONLY, &c, NULL, err, sizeof err), 0);
	uint8_t kb[16], ka[16], kg[16];
	char *yaml = NULL, *real;
	assert_int_equal(cache_name_get(c, "bcast_1k", kb, &yaml, NULL), 0);
	snprintf(line, sizeof line, "%s/src/bcast_1k.yaml", dir);
	real = realpath(line, NULL);
	assert_non_null(real);
	assert_string_equal(yaml, real); /* recorded as an absolute path */
	free(real);
	free(yaml);
	assert_int_equal(cache_name_get(c, "bcast_alias", ka, NULL, NULL), 0);
	assert_memory_equal(ka, kb, 16);
	assert_int_equal(cache_name_get(c, "gather64", kg, NULL, NULL), 0);
	assert_memory_not_equal(kg, kb, 16);
	void *blob;
	size_t len;
	assert_int_equal(cache_get(c, kg, &blob, &len, NULL), 0);
	free(blob);
	int count = 0;
	assert_int_equal(cache_name_list(c, count_names, &count), 0);
	assert_int_equal(count, 5);
	cache_close(c);

	/* again: nothing to compile */
	assert_int_equal(run("'%s' scan '%s/src/app.c' '%s/src/more.c' -v "
	                     "--cache '%s' %s",
	                     bin, dir, dir, db, flags),
	                 0);
	err_has("already in the cache; named");
	assert_null(strstr(errout, "compiled, stored"));

	/* at run time, from the cache */
	ccp_context *ctx;
	ccp_plan *plan;
	ccp_plan_info info;
	assert_int_equal(setenv("CCPLAN_CACHE", db, 1), 0);
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	const char *names[] = {"bcast_1k", "gather64", "scatter16",
	                       "alltoall-8", "bcast_alias"};
	const char *colls[] = {"broadcast", "gather", "scatter", "alltoall",
	                       "broadcast"};
	const int32_t ranks[] = {8, 16, 16, 8, 8};
	for (int i = 0; i < 5; i++) {
		for (int32_t r = 0; r < ranks[i]; r += ranks[i] - 1) {
			int rc = ccp_plan_lookup(ctx, names[i], r, &plan);
			if (rc)
				fail_msg("%s: %s", names[i], ccp_errmsg(ctx));
			assert_int_equal(ccp_plan_get_info(plan, &info), 0);
			assert_int_equal(info.rank, r);
			assert_int_equal(info.nranks, ranks[i]);
			assert_string_equal(info.collective, colls[i]);
			ccp_plan_free(plan);
		}
	}
	/* a rank outside the plan: the loader's error, naming the plan */
	assert_int_not_equal(ccp_plan_lookup(ctx, "bcast_1k", 8, &plan), 0);
	assert_null(plan);
	assert_non_null(strstr(ccp_errmsg(ctx), "plan 'bcast_1k': "));
	/* an unknown name */
	assert_int_equal(ccp_plan_lookup(ctx, "no_such_plan", 0, &plan),
	                 CCP_ENOTFOUND);
	assert_null(plan);
	assert_non_null(strstr(ccp_errmsg(ctx), "plan 'no_such_plan'"));
	assert_non_null(strstr(ccp_errmsg(ctx), db));
	/* a name whose plan the cache no longer holds */
	assert_int_equal(cache_open(db, 0, &c, NULL, err, sizeof err), 0);
	assert_int_equal(cache_remove(c, kg), 0);
	cache_close(c);
	assert_int_equal(ccp_plan_lookup(ctx, "gather64", 0, &plan),
	                 CCP_ENOTFOUND);
	assert_non_null(strstr(ccp_errmsg(ctx), "no longer there"));
	/* no cache at all */
	snprintf(line, sizeof line, "%s/none/plans.db", tmp);
	assert_int_equal(setenv("CCPLAN_CACHE", line, 1), 0);
	assert_int_equal(ccp_plan_lookup(ctx, "bcast_1k", 0, &plan),
	                 CCP_ENOTFOUND);
	assert_non_null(strstr(ccp_errmsg(ctx), "no plan cache"));
	assert_false(exists(line)); /* read-only: nothing made */
	ccp_fini(ctx);
	unsetenv("CCPLAN_CACHE");
}

/* Errors: exit 2, the position, and nothing written. */
static void test_cli_errors(void **state)
{
	char db[4200], out[4200], line[4400];
	(void)state;
	snprintf(db, sizeof db, "%s/err/plans.db", tmp);
	snprintf(out, sizeof out, "%s/err.c", tmp);

	assert_int_equal(run("'%s' scan '%s/bad/bad_pragma.c' --cache '%s'",
	                     bin, dir, db),
	                 2);
	snprintf(line, sizeof line,
	         "%s/bad/bad_pragma.c:2:16: #pragma ccplan: unknown word "
	         "'plam'",
	         dir);
	err_has(line);
	snprintf(line, sizeof line,
	         "%s/bad/bad_pragma.c:6:32: #pragma ccplan: expected ')'", dir);
	err_has(line);
	err_has("    2 | #pragma ccplan plam(x, \"x.yaml\")\n"
	        "      |                ^\n");
	assert_false(exists(db));

	/* a file that is there already stays as it was */
	write_file(out, "/* before */\n");
	assert_int_equal(run("'%s' scan '%s/bad/missing_yaml.c' --emit c -o "
	                     "'%s' -- -I'%s/include'",
	                     bin, dir, out, root),
	                 2);
	snprintf(line, sizeof line,
	         "%s/bad/missing_yaml.c:9:9: plan 'nowhere': no nowhere.yaml",
	         dir);
	err_has(line);
	snprintf(line, sizeof line,
	         "%s/bad/missing_yaml.c:4:27: plan 'lost': cannot read", dir);
	err_has(line);
	char *text = read_file(out, NULL);
	assert_string_equal(text, "/* before */\n");
	free(text);

	/* a YAML input with an error: its position, then the request's */
	char src[4200], yaml[4200];
	snprintf(src, sizeof src, "%s/bady.c", tmp);
	snprintf(yaml, sizeof yaml, "%s/bady.yaml", tmp);
	write_file(yaml, "machine: {topology: mesh, dims: [4, 4]}\n"
	                 "communication: {collective: broadcast, bytes: 8}\n"
	                 "algorithm: no_such_algorithm\n");
	write_file(src, "#pragma ccplan plan(bady, \"bady.yaml\")\n");
	assert_int_equal(run("'%s' scan '%s' --cache '%s'", bin, src, db), 2);
	snprintf(line, sizeof line, "%s:3:12: ", yaml);
	err_has(line);
	snprintf(line, sizeof line, "%s:1:21: note: plan 'bady' asked for here",
	         src);
	err_has(line);
	assert_false(exists(db));

	/* a compiler error in a source */
	assert_int_equal(
	        run("'%s' scan '%s/bad/broken.c' --cache '%s'", bin, dir, db),
	        2);
	snprintf(line, sizeof line, "%s/bad/broken.c:2:10: ", dir);
	err_has(line);
	assert_false(exists(db));

	/* arguments */
	assert_int_equal(run("'%s' scan '%s/src/app.c' --emit c", bin, dir), 2);
	err_has("--emit c needs -o");
	assert_int_equal(run("'%s' scan '%s/src/app.c' --emit c -o x.c "
	                     "--cache '%s'",
	                     bin, dir, db),
	                 2);
	assert_int_equal(run("'%s' scan", bin), 2);
	assert_int_equal(run("'%s' scan '%s/src/app.c' --emit c -o '%s' "
	                     "--symbol ccp_bad",
	                     bin, dir, out),
	                 2);
	assert_false(exists(db));
	assert_int_equal(run("'%s' scan --help", bin), 0);
}

/* Into one C file that compiles with every warning an error, the same
 * bytes every time. */
static void test_cli_emit(void **state)
{
	char out[4200], again[4200], obj[4200];
	(void)state;
	snprintf(out, sizeof out, "%s/plans.c", tmp);
	snprintf(again, sizeof again, "%s/again", tmp);
	assert_int_equal(mkdir(again, 0700), 0);
	snprintf(again, sizeof again, "%s/again/plans.c", tmp);
	snprintf(obj, sizeof obj, "%s/plans.o", tmp);
	assert_int_equal(run("'%s' scan '%s/src/app.c' '%s/src/more.c' -v "
	                     "--emit c -o '%s' %s",
	                     bin, dir, dir, out, flags),
	                 0);
	err_has("emitted as ccplan_plans_1_bcast_1k in");
	assert_int_equal(run("'%s' scan '%s/src/more.c' '%s/src/app.c' "
	                     "--emit c -o '%s' %s",
	                     bin, dir, dir, again, flags),
	                 0);
	size_t la, lb;
	char *a = read_file(out, &la), *b = read_file(again, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la); /* sorted by name: order-free */
	free(b);
	assert_non_null(
	        strstr(a, "const struct ccp_plan_set ccplan_plans = {"));
	const char *order[] = {"{\"alltoall-8\", &ccplan_plans_0_alltoall_8}",
	                       "{\"bcast_1k\", &ccplan_plans_1_bcast_1k}",
	                       "{\"bcast_alias\", &ccplan_plans_1_bcast_1k}",
	                       "{\"gather64\", &ccplan_plans_3_gather64}",
	                       "{\"scatter16\", &ccplan_plans_4_scatter16}"};
	const char *p = a;
	for (int i = 0; i < 5; i++) {
		const char *q = strstr(p, order[i]);
		if (!q)
			fail_msg("missing or out of order: %s", order[i]);
		p = q;
	}
	free(a);
	assert_int_equal(run("'%s' -std=c11 -Wall -Wextra -Wpedantic -Werror "
	                     "-I'%s/include' -c '%s' -o '%s'",
	                     CCP_SCAN_CC, root, out, obj),
	                 0);
	assert_true(exists(obj));

	/* no plans at all: still a set, empty, that compiles */
	char src[4200];
	snprintf(src, sizeof src, "%s/none.c", tmp);
	/* and the build's -Werror does not make a scan fail on warnings */
	write_file(src, "int none_unused(void);\n"
	                "int none_unused(void) { int x; return 0; }\n"
	                "#pragma ccplan_not_ours\n");
	assert_int_equal(run("'%s' scan '%s' --emit c -o '%s' --symbol "
	                     "no_plans -- -Wall -Wextra -Werror",
	                     bin, src, out),
	                 0);
	a = read_file(out, NULL);
	assert_non_null(strstr(a, "\t.count = 0u,\n\t.entries = NULL,\n"));
	free(a);
	assert_int_equal(run("'%s' -std=c11 -Wall -Wextra -Wpedantic -Werror "
	                     "-I'%s/include' -c '%s' -o '%s'",
	                     CCP_SCAN_CC, root, out, obj),
	                 0);
}

/* ---- at run time -----------------------------------------------------------
 */

/* The plan hash of name in test_plans. */
static uint64_t set_hash(const char *name)
{
	for (uint32_t i = 0; i < test_plans.count; i++)
		if (strcmp(test_plans.entries[i].name, name) == 0)
			return test_plans.entries[i].plan->plan_hash;
	fail_msg("test_plans has no '%s'", name);
	return 0;
}

/* The linked set: the sample program gets every plan, the registered
 * set before the cache, the cache once it is unregistered. */
static void test_lookup_linked(void **state)
{
	ccp_context *ctx;
	ccp_plan *plans[5], *plan;
	ccp_plan_info info;
	(void)state;
	assert_int_equal(test_plans.count, 5);
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	unsetenv("CCPLAN_CACHE");
	setenv("HOME", tmp, 1); /* no cache there */
	unsetenv("XDG_CACHE_HOME");
	/* nothing registered, no cache */
	assert_int_equal(app_plans(ctx, 0, "gather64", plans), CCP_ENOTFOUND);
	assert_non_null(strstr(ccp_errmsg(ctx), "plan 'bcast_1k': not in the 0 "
	                                        "registered plan sets"));

	assert_int_equal(ccp_plan_register(ctx, &test_plans), 0);
	assert_int_equal(ccp_plan_register(ctx, &test_plans), 0); /* again */
	for (int32_t r = 0; r < 8; r++) {
		memset(plans, 0, sizeof plans);
		int rc = app_plans(ctx, r, "gather64", plans);
		if (rc)
			fail_msg("rank %d: %s", (int)r, ccp_errmsg(ctx));
		const char *names[] = {"bcast_1k", "gather64", "scatter16",
		                       "alltoall-8", "gather64"};
		for (int i = 0; i < 5; i++) {
			assert_int_equal(ccp_plan_get_info(plans[i], &info), 0);
			assert_int_equal(info.rank, r);
			assert_true(info.plan_hash == set_hash(names[i]));
			ccp_plan_free(plans[i]);
		}
		assert_int_equal(more_plans(ctx, r, &plan), 0);
		ccp_plan_free(plan);
	}
	assert_int_equal(ccp_plan_lookup(ctx, "nope", 0, &plan), CCP_ENOTFOUND);
	assert_non_null(strstr(ccp_errmsg(ctx), "plan 'nope'"));
	assert_non_null(strstr(ccp_errmsg(ctx), "1 registered plan sets"));

	/* a cache where bcast_1k is another plan */
	char src[4200], db[4200];
	snprintf(src, sizeof src, "%s/other.c", tmp);
	snprintf(db, sizeof db, "%s/other/plans.db", tmp);
	char text[4400];
	snprintf(
	        text, sizeof text,
	        "#pragma ccplan plan(bcast_1k, \"%s/data/bcast_other.yaml\")\n",
	        dir);
	write_file(src, text);
	assert_int_equal(run("'%s' scan '%s' --cache '%s'", bin, src, db), 0);
	assert_int_equal(setenv("CCPLAN_CACHE", db, 1), 0);
	/* registered first */
	assert_int_equal(ccp_plan_lookup(ctx, "bcast_1k", 0, &plan), 0);
	assert_int_equal(ccp_plan_get_info(plan, &info), 0);
	assert_true(info.plan_hash == set_hash("bcast_1k"));
	assert_int_equal(info.nranks, 8);
	ccp_plan_free(plan);
	/* then the cache */
	assert_int_equal(ccp_plan_unregister(ctx, &test_plans), 0);
	assert_int_equal(ccp_plan_unregister(ctx, &test_plans), CCP_ENOTFOUND);
	assert_int_equal(ccp_plan_lookup(ctx, "bcast_1k", 0, &plan), 0);
	assert_int_equal(ccp_plan_get_info(plan, &info), 0);
	assert_true(info.plan_hash != set_hash("bcast_1k"));
	assert_int_equal(info.nranks, 16);
	assert_string_equal(info.algorithm, "binomial");
	ccp_plan_free(plan);
	unsetenv("CCPLAN_CACHE");

	/* sets that are refused */
	static const struct ccp_plan_entry unsorted[2] = {
	        {"b", (const struct ccp_emitted_plan *)&test_plans},
	        {"a", (const struct ccp_emitted_plan *)&test_plans}};
	const struct ccp_plan_set bad_order = {CCP_PLAN_SET_ABI, 2, unsorted};
	const struct ccp_plan_set bad_abi = {CCP_PLAN_SET_ABI + 1, 0, NULL};
	const struct ccp_plan_set no_entries = {CCP_PLAN_SET_ABI, 1, NULL};
	assert_int_equal(ccp_plan_register(ctx, &bad_order), CCP_EINVAL);
	assert_int_equal(ccp_plan_register(ctx, &bad_abi), CCP_EVERSION);
	assert_int_equal(ccp_plan_register(ctx, &no_entries), CCP_EINVAL);
	assert_int_equal(ccp_plan_register(ctx, NULL), CCP_EINVAL);
	assert_int_equal(ccp_plan_lookup(ctx, "", 0, &plan), CCP_EINVAL);
	assert_int_equal(ccp_plan_lookup(ctx, NULL, 0, &plan), CCP_EINVAL);
	ccp_fini(ctx);
}

/* The cache's path: CCPLAN_CACHE, else an absolute XDG_CACHE_HOME, else
 * HOME, the same rule for ccplan scan and ccp_plan_lookup. */
static void test_default_path(void **state)
{
	char xdg[4200], home[4200], file[4400];
	ccp_context *ctx;
	ccp_plan *plan;
	(void)state;
	snprintf(xdg, sizeof xdg, "%s/xdg", tmp);
	snprintf(home, sizeof home, "%s/home", tmp);
	unsetenv("CCPLAN_CACHE");
	setenv("XDG_CACHE_HOME", xdg, 1);
	setenv("HOME", home, 1);
	assert_int_equal(run("'%s' scan '%s/src/more.c' %s", bin, dir, flags),
	                 0);
	snprintf(file, sizeof file, "%s/ccplan/plans.db", xdg);
	assert_true(exists(file));
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	assert_int_equal(ccp_plan_lookup(ctx, "bcast_alias", 3, &plan), 0);
	ccp_plan_free(plan);

	/* a relative XDG_CACHE_HOME does not count: HOME */
	setenv("XDG_CACHE_HOME", "relative", 1);
	assert_int_equal(ccp_plan_lookup(ctx, "bcast_alias", 3, &plan),
	                 CCP_ENOTFOUND);
	snprintf(file, sizeof file, "%s/.cache/ccplan/plans.db", home);
	assert_non_null(strstr(ccp_errmsg(ctx), file));
	assert_int_equal(run("'%s' scan '%s/src/more.c' %s", bin, dir, flags),
	                 0);
	assert_true(exists(file));
	assert_int_equal(ccp_plan_lookup(ctx, "bcast_alias", 3, &plan), 0);
	ccp_plan_free(plan);
	ccp_fini(ctx);
	unsetenv("XDG_CACHE_HOME");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_requests),
	        cmocka_unit_test(test_bad_pragmas),
	        cmocka_unit_test(test_resolve_errors),
	        cmocka_unit_test(test_names_table),
	        cmocka_unit_test(test_cli_cache),
	        cmocka_unit_test(test_cli_errors),
	        cmocka_unit_test(test_cli_emit),
	        cmocka_unit_test(test_lookup_linked),
	        cmocka_unit_test(test_default_path),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
