/*
 * test_cached.c - the one cached pipeline (compiler/cached.c): a miss
 * compiled and stored, a hit served, the key hashed once and recorded in
 * the plan under algorithm: auto, a hit that is not the input's plan
 * removed and compiled afresh (kept in a read-only cache), the caller's
 * store left to the caller, a compile that fails storing nothing, and
 * seals: a sealed hit served as it is, a replaced image under the old
 * seal refused, another key's seal verified in full, a key file others
 * can read refused, and a file known to hold a sealed plan.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "cached.h"
#include "codec.h"

static const char auto16[] =
        "machine: {topology: mesh, dims: [4, 4], ports: all, cost: "
        "{preset: t3d}}\n"
        "communication: {collective: broadcast, root: [1, 2], bytes: 256}\n"
        "algorithm: auto\n";
static const char reduce8[] =
        "machine: {topology: mesh, dims: [4, 2], ports: all}\n"
        "communication: {collective: reduce, root: 0, bytes: 64, dtype: "
        "double, op: sum}\n"
        "algorithm: binomial\n";
static const char bad_alg[] =
        "machine: {topology: hypercube, dimension: 3, ports: all}\n"
        "communication: {collective: broadcast, root: 0, bytes: 64}\n"
        "algorithm: edn\n";

/* The tests' directory, made once; each test has its own cache file in
 * it, path[] set by its setup. */
static char dir[64] = "/tmp/ccp-cached-XXXXXX";
static char path[128];
static int serial;

/* Use the key file dir/name for the caches opened from now on. */
static void use_key(const char *name)
{
	char kp[128];
	snprintf(kp, sizeof kp, "%s/%s", dir, name);
	assert_int_equal(setenv(SEAL_KEY_ENV, kp, 1), 0);
}

static int make_dir(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	use_key("key"); /* never the user's own */
	return 0;
}

static int remove_entry(const char *p, const struct stat *sb, int flag,
                        struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int remove_dir(void **state)
{
	(void)state;
	return nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static int new_path(void **state)
{
	(void)state;
	snprintf(path, sizeof path, "%s/plans%d.db", dir, ++serial);
	return 0;
}

static void parse(struct front_input *in, const char *text)
{
	struct diag d;
	memset(&d, 0, sizeof d);
	int rc = front_parse_string("t.yaml", text, strlen(text), in, &d);
	if (rc)
		print_error("%s\n", d.message);
	assert_int_equal(rc, 0);
}

/* compile_cached of text through cc; its code, with the notes in w. */
static int run(const char *text, struct compile_cache *cc, unsigned flags,
               struct cached_plan *cp, struct cached_notes *w)
{
	struct front_input in;
	struct diag d;
	memset(&d, 0, sizeof d);
	parse(&in, text);
	int rc = compile_cached(&in, NULL, cc, flags, cp, w, &d);
	front_input_fini(&in);
	return rc;
}

/* A miss is compiled and stored with its description; the same input
 * again is a hit with the same bytes; under auto the plan records the
 * input's key, the one the cache files it under. */
static void test_miss_then_hit(void **state)
{
	(void)state;
	struct compile_cache cc;
	struct cached_notes w = {0};
	struct cached_plan a, b;
	struct front_input in;
	uint8_t key[CACHE_KEY_SIZE];
	ir_file_info fi;
	char err[256];

	compile_cache_open(&cc, path, CACHE_NO_CHECK, &w);
	assert_non_null(cc.k);
	assert_false(cc.ro);
	assert_int_equal(run(auto16, &cc, 0, &a, &w), 0);
	assert_false(a.hit);
	assert_true(a.stored);
	assert_int_equal(w.n, 0);
	assert_non_null(a.meta.canonical);
	assert_true(a.meta.phases > 0);
	assert_true(a.transfers > 0);

	parse(&in, auto16);
	assert_int_equal(front_input_hash(&in, key), 0);
	front_input_fini(&in);
	assert_memory_equal(a.key, key, sizeof key);
	assert_int_equal(ir_file_info_read(a.img, a.len, &fi, err, sizeof err),
	                 0);
	assert_memory_equal(fi.input_hash, key, sizeof key);

	assert_int_equal(run(auto16, &cc, 0, &b, &w), 0);
	assert_true(b.hit);
	assert_false(b.stored);
	assert_int_equal(w.n, 0);
	assert_int_equal(b.len, a.len);
	assert_memory_equal(b.img, a.img, a.len);
	assert_null(b.meta.canonical); /* not asked for */

	cached_plan_fini(&a);
	cached_plan_fini(&b);
	compile_cache_close(&cc);
	cached_notes_fini(&w);
}

/* Without a cache the plan is compiled and nothing is stored; a key the
 * caller gives is the one the plan records. */
static void test_no_cache(void **state)
{
	(void)state;
	struct cached_plan cp;
	struct front_input in;
	struct diag d;
	uint8_t key[CACHE_KEY_SIZE];
	ir_file_info fi;
	char err[256];
	memset(&d, 0, sizeof d);
	parse(&in, reduce8);
	assert_int_equal(front_input_hash(&in, key), 0);
	assert_int_equal(compile_cached(&in, key, NULL, 0, &cp, NULL, &d), 0);
	assert_false(cp.hit);
	assert_false(cp.stored);
	assert_memory_equal(cp.key, key, sizeof key);
	assert_int_equal(
	        ir_file_info_read(cp.img, cp.len, &fi, err, sizeof err), 0);
	assert_memory_equal(fi.input_hash, key, sizeof key);
	cached_plan_fini(&cp);
	front_input_fini(&in);
}

/* Store under auto16's key a sound plan of another input (reduce8's,
 * recording auto16's key, so that the cache takes it). */
static void plant_wrong_plan(cache *k)
{
	struct front_input a, r;
	struct compiled c;
	struct diag d;
	uint8_t key[CACHE_KEY_SIZE], *img = NULL;
	size_t len = 0;
	char err[256];
	memset(&d, 0, sizeof d);
	parse(&a, auto16);
	parse(&r, reduce8);
	assert_int_equal(front_input_hash(&a, key), 0);
	assert_int_equal(compile_input_key(&r, key, &c, &d), 0);
	assert_int_equal(compile_encode(&c, &img, &len, err, sizeof err), 0);
	assert_int_equal(cache_put(k, key, img, len, NULL), 0);
	free(img);
	compiled_fini(&c);
	front_input_fini(&a);
	front_input_fini(&r);
}

/* Open the test's cache, with the wrong plan under auto16's key. */
static void open_planted(struct compile_cache *cc, struct cached_notes *w)
{
	compile_cache_open(cc, path, CACHE_NO_CHECK, w);
	assert_non_null(cc->k);
	plant_wrong_plan(cc->k);
}

/* A hit that is not the input's plan is never served: it is removed,
 * said, compiled afresh and stored; the next compile hits the new one. */
static void test_wrong_hit_removed(void **state)
{
	(void)state;
	struct compile_cache cc;
	struct cached_notes w = {0};
	struct cached_plan cp;
	ir_file_info fi;
	char err[256];

	open_planted(&cc, &w);
	assert_int_equal(run(auto16, &cc, 0, &cp, &w), 0);
	assert_false(cp.hit);
	assert_true(cp.stored);
	assert_int_equal(w.n, 1);
	assert_non_null(strstr(w.text[0], "a plan of reduce on 8 ranks"));
	assert_non_null(strstr(w.text[0], "; removed; compiling"));
	assert_int_equal(
	        ir_file_info_read(cp.img, cp.len, &fi, err, sizeof err), 0);
	assert_int_equal(fi.nranks, 16);
	cached_plan_fini(&cp);
	cached_notes_fini(&w);

	assert_int_equal(run(auto16, &cc, 0, &cp, &w), 0);
	assert_true(cp.hit);
	assert_int_equal(w.n, 0);
	cached_plan_fini(&cp);
	compile_cache_close(&cc);
}

/* Read-only, the wrong plan stays where it is (said so) and nothing is
 * stored; with NO_STORE and HIT_META a sound hit comes with its stored
 * description, for the caller to store again. */
static void test_read_only(void **state)
{
	(void)state;
	struct compile_cache cc;
	struct cached_notes w = {0};
	struct cached_plan cp;

	open_planted(&cc, &w);
	assert_int_equal(run(reduce8, &cc, 0, &cp, &w), 0); /* stored */
	assert_true(cp.stored);
	cached_plan_fini(&cp);
	compile_cache_close(&cc);

	cache *k = NULL;
	assert_int_equal(cache_open(path, CACHE_READONLY | CACHE_NO_CHECK, &k,
	                            NULL, NULL, 0),
	                 0);
	struct compile_cache ro = {.k = k, .ro = true};
	unsigned fl = COMPILE_CACHED_NO_STORE | COMPILE_CACHED_HIT_META;
	assert_int_equal(run(auto16, &ro, fl, &cp, &w), 0);
	assert_false(cp.hit);
	assert_false(cp.stored);
	assert_int_equal(w.n, 1);
	assert_non_null(
	        strstr(w.text[0], "the cache is read-only, left in place"));
	assert_non_null(cp.meta.canonical); /* to store */
	cached_plan_fini(&cp);
	cached_notes_fini(&w);

	assert_int_equal(run(reduce8, &ro, fl, &cp, &w), 0);
	assert_true(cp.hit);
	assert_int_equal(w.n, 0);
	assert_non_null(cp.meta.canonical);
	assert_string_equal(cp.meta.algorithm, "binomial");
	cached_plan_fini(&cp);
	cache_close(k);
}

static int count(const struct cache_meta *m, void *arg)
{
	(void)m;
	++*(int *)arg;
	return 0;
}

/* A compile that fails says where, and stores nothing. */
static void test_failure(void **state)
{
	(void)state;
	struct compile_cache cc;
	struct cached_notes w = {0};
	struct cached_plan cp;
	int n = 0;

	compile_cache_open(&cc, path, CACHE_NO_CHECK, &w);
	assert_int_equal(run(bad_alg, &cc, 0, &cp, &w), CCP_ENOTAPPLY);
	assert_int_equal(cp.failed, CACHED_COMPILE);
	assert_null(cp.img);
	assert_false(cp.stored);
	assert_int_equal(w.n, 0);
	assert_int_equal(cache_list(cc.k, count, &n), 0);
	assert_int_equal(n, 0);
	compile_cache_close(&cc);
}

/* Run sql on the test's cache file directly; the first column of its
 * first row as an integer (0 if none). */
static int64_t raw(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t v = 0;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	const char *tail = sql;
	while (tail && *tail) {
		assert_int_equal(sqlite3_prepare_v2(db, tail, -1, &st, &tail),
		                 SQLITE_OK);
		if (!st)
			break;
		int rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			v = sqlite3_column_int64(st, 0);
		else
			assert_int_equal(rc, SQLITE_DONE);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return v;
}

/* Compile text through the test's cache (opened and closed here); the
 * notes' count, and what the compile gave in *hit and *sealed. */
static int once(const char *text, bool *hit, bool *sealed,
                struct cached_notes *w)
{
	struct compile_cache cc;
	struct cached_plan cp;
	compile_cache_open(&cc, path, CACHE_NO_CHECK, w);
	assert_non_null(cc.k);
	assert_int_equal(run(text, &cc, 0, &cp, w), 0);
	*hit = cp.hit;
	*sealed = cp.sealed;
	cached_plan_fini(&cp);
	compile_cache_close(&cc);
	return w->n;
}

/* A miss is stored with a seal; a hit that carries it is served sealed,
 * the same bytes. */
static void test_sealed_hit(void **state)
{
	(void)state;
	struct cached_notes w = {0};
	bool hit, sealed;
	use_key("key");
	assert_int_equal(once(reduce8, &hit, &sealed, &w), 0);
	assert_false(hit);
	assert_int_equal(raw("SELECT count(*) FROM seals"), 1);
	assert_int_equal(once(reduce8, &hit, &sealed, &w), 0);
	assert_true(hit);
	assert_true(sealed);
}

/* An image replaced (a sound plan of another input, with checksums that
 * match) under the seal of the old one: the seal does not hold, the full
 * verification refuses it, it is removed and the input compiled afresh,
 * stored and sealed again. */
static void test_replaced_under_seal(void **state)
{
	(void)state;
	struct compile_cache cc;
	struct cached_notes w = {0};
	bool hit, sealed;
	use_key("key");
	assert_int_equal(once(auto16, &hit, &sealed, &w), 0);
	assert_false(hit);
	raw("CREATE TABLE saved AS SELECT * FROM seals");
	compile_cache_open(&cc, path, CACHE_NO_CHECK, &w);
	plant_wrong_plan(cc.k); /* its put drops the seal */
	compile_cache_close(&cc);
	assert_int_equal(raw("SELECT count(*) FROM seals"), 0);
	raw("INSERT INTO seals SELECT * FROM saved; DROP TABLE saved");
	assert_int_equal(raw("SELECT count(*) FROM seals"), 1);
	assert_int_equal(once(auto16, &hit, &sealed, &w), 1);
	assert_false(hit);
	assert_non_null(strstr(w.text[0], "a plan of reduce on 8 ranks"));
	assert_non_null(strstr(w.text[0], "; removed; compiling"));
	cached_notes_fini(&w);
	assert_int_equal(once(auto16, &hit, &sealed, &w), 0);
	assert_true(hit);
	assert_true(sealed);
}

/* Another key's seal (another user's, through a trusted shared cache):
 * the hit is verified in full and then sealed with this key too; both
 * seals stay, each holding for its own key. */
static void test_other_key(void **state)
{
	(void)state;
	struct cached_notes w = {0};
	bool hit, sealed;
	use_key("key-a");
	assert_int_equal(once(reduce8, &hit, &sealed, &w), 0);
	assert_false(hit);
	use_key("key-b");
	assert_int_equal(once(reduce8, &hit, &sealed, &w), 0);
	assert_true(hit);
	assert_false(sealed);
	assert_int_equal(raw("SELECT count(*) FROM seals"), 2);
	assert_int_equal(once(reduce8, &hit, &sealed, &w), 0);
	assert_true(sealed);
	use_key("key-a");
	assert_int_equal(once(reduce8, &hit, &sealed, &w), 0);
	assert_true(hit);
	assert_true(sealed);
	use_key("key");
}

/* A key file others can read is refused with a message that says how to
 * fix it; hits are then verified in full, and served. */
static void test_key_refused(void **state)
{
	(void)state;
	struct cached_notes w = {0};
	char kp[128];
	bool hit, sealed;
	use_key("key-open");
	assert_int_equal(once(reduce8, &hit, &sealed, &w), 0); /* made */
	snprintf(kp, sizeof kp, "%s/key-open", dir);
	assert_int_equal(chmod(kp, 0644), 0);
	assert_int_equal(once(reduce8, &hit, &sealed, &w), 1);
	assert_true(hit);
	assert_false(sealed);
	assert_non_null(strstr(w.text[0], "refusing the cache key"));
	assert_non_null(strstr(w.text[0], "mode 0644"));
	assert_non_null(strstr(w.text[0], "chmod 600"));
	assert_non_null(strstr(w.text[0], "verified in full"));
	cached_notes_fini(&w);
	use_key("key");
}

/* Write len bytes of img to the file p. */
static void put_file(const char *p, const void *img, size_t len)
{
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(img, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* A file that holds the sealed plan is known as it (its header in fi);
 * one byte off, one byte more, a missing file, or a cache whose seal is
 * another key's is not. */
static void test_in_file(void **state)
{
	(void)state;
	struct compile_cache cc;
	struct cached_notes w = {0};
	struct cached_plan cp;
	ir_file_info fi;
	char fp[160];
	use_key("key");
	snprintf(fp, sizeof fp, "%s/held.ccp", dir);
	compile_cache_open(&cc, path, CACHE_NO_CHECK, &w);
	assert_int_equal(run(reduce8, &cc, 0, &cp, &w), 0);
	assert_false(compile_cached_in_file(&cc, cp.key, fp, &fi)); /* none */
	put_file(fp, cp.img, cp.len);
	memset(&fi, 0, sizeof fi);
	assert_true(compile_cached_in_file(&cc, cp.key, fp, &fi));
	assert_int_equal(fi.nranks, 8);
	assert_string_equal(fi.algorithm, "binomial");
	cp.img[cp.len / 2] ^= 1;
	put_file(fp, cp.img, cp.len);
	assert_false(compile_cached_in_file(&cc, cp.key, fp, &fi));
	cp.img[cp.len / 2] ^= 1;
	put_file(fp, cp.img, cp.len - 1);
	assert_false(compile_cached_in_file(&cc, cp.key, fp, &fi));
	put_file(fp, cp.img, cp.len);
	FILE *f = fopen(fp, "ab");
	assert_non_null(f);
	fputc(0, f);
	assert_int_equal(fclose(f), 0);
	assert_false(compile_cached_in_file(&cc, cp.key, fp, &fi));
	put_file(fp, cp.img, cp.len);
	compile_cache_close(&cc);
	use_key("key-other");
	compile_cache_open(&cc, path, CACHE_NO_CHECK, &w);
	assert_false(compile_cached_in_file(&cc, cp.key, fp, &fi));
	compile_cache_close(&cc);
	use_key("key");
	compile_cache_open(&cc, path, CACHE_NO_CHECK, &w);
	assert_true(compile_cached_in_file(&cc, cp.key, fp, &fi));
	compile_cache_close(&cc);
	assert_int_equal(w.n, 0);
	cached_plan_fini(&cp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup(test_miss_then_hit, new_path),
	        cmocka_unit_test(test_no_cache),
	        cmocka_unit_test_setup(test_wrong_hit_removed, new_path),
	        cmocka_unit_test_setup(test_read_only, new_path),
	        cmocka_unit_test_setup(test_failure, new_path),
	        cmocka_unit_test_setup(test_sealed_hit, new_path),
	        cmocka_unit_test_setup(test_replaced_under_seal, new_path),
	        cmocka_unit_test_setup(test_other_key, new_path),
	        cmocka_unit_test_setup(test_key_refused, new_path),
	        cmocka_unit_test_setup(test_in_file, new_path),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
