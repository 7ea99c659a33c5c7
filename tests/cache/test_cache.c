/*
 * test_cache.c - the plan cache: round trips of real encoded plans, keys
 * and their abbreviations, use times and garbage collection, damaged
 * files and damaged entries, read-only use, schema versions, and eight
 * processes writing one new cache at once.  Every test works in its own
 * directory under /tmp.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <pwd.h>
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

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cache.h"
#include "ccplan.h"
#include "codec.h"
#include "ir.h"
#include "sched.h"
#include "support.h"

/* ---- fixture: a fresh directory per test ------------------------------ */

struct fx {
	char dir[64];   /* the test's directory */
	char path[128]; /* dir/plans.db */
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	snprintf(f->dir, sizeof f->dir, "/tmp/ccp-cache-XXXXXX");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof f->path, "%s/plans.db", f->dir);
	*state = f;
	return 0;
}

/* Remove a directory tree (what the tests made under /tmp). */
static void rm_rf(const char *path)
{
	DIR *d = opendir(path);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char sub[512];
			snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
			rm_rf(sub);
		}
		closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

static int teardown(void **state)
{
	struct fx *f = *state;
	rm_rf(f->dir);
	free(f);
	return 0;
}

/* ---- plans and keys ---------------------------------------------------- */

/* A real plan image: a binomial broadcast of `bytes` bytes on a cols x 2
 * mesh, generated, verified, lowered and encoded, recording key as its
 * input hash (the caller frees *img). */
static void make_image(const uint8_t key[16], int cols, int64_t bytes,
                       uint8_t **img, size_t *len)
{
	ir_machine m = tu_machine(IR_MESH, 1, cols, 2, 0, 0);
	ir_comm c = {.coll = IR_BCAST,
	             .root = 0,
	             .bytes = bytes,
	             .segments = 1,
	             .dtype = IR_DT_BYTE,
	             .op = IR_OP_SUM};
	struct sch_options o = {0};
	ir_plan p;
	ir_report r;
	ir_slice *sl = NULL;
	assert_int_equal(sch_binomial.generate(&m, &c, &o, &p), 0);
	memcpy(p.input_hash, key, 16);
	assert_int_equal(ir_verify(&p, &r), 0);
	assert_int_equal(ir_lower(&p, &sl), 0);
	assert_int_equal(ir_plan_encode(&p, &r, sl, img, len, NULL, 0), 0);
	ir_slices_free(sl, p.machine.nranks);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* Key number n: distinct bytes for distinct n. */
static void key_n(uint8_t key[16], unsigned n)
{
	XXH128_hash_t h = XXH3_128bits(&n, sizeof n);
	memcpy(key, &h, 16);
}

/* A key from its 32 hex digits. */
static void key_hex(uint8_t key[16], const char *hex)
{
	assert_int_equal(cache_key_parse(hex, key), 0);
}

/* The meta a compile would store. */
static struct cache_meta meta_for(const char *algorithm, uint32_t phases,
                                  uint32_t lb, double predicted,
                                  char *canonical)
{
	struct cache_meta m;
	memset(&m, 0, sizeof m);
	snprintf(m.algorithm, sizeof m.algorithm, "%s", algorithm);
	m.phases = phases;
	m.lb_phases = lb;
	m.predicted = predicted;
	m.canonical = canonical;
	return m;
}

/* Put a fresh image for key (input hash key); its length in *len. */
static void put_new(cache *c, const uint8_t key[16], int64_t bytes, size_t *len)
{
	uint8_t *img;
	size_t n;
	make_image(key, 4, bytes, &img, &n);
	int rc = cache_put(c, key, img, n, NULL);
	if (rc)
		fail_msg("put: %s", cache_errmsg(c));
	free(img);
	if (len)
		*len = n;
}

static cache *open_ok(const char *path, unsigned flags, struct cache_event *ev)
{
	cache *c = NULL;
	char err[512] = "";
	int rc = cache_open(path, flags, &c, ev, err, sizeof err);
	if (rc)
		fail_msg("open %s: %s (%s)", path, ccp_strerror(rc), err);
	assert_non_null(c);
	return c;
}

/* ---- raw SQLite, to look at and damage the file ------------------------- */

static int64_t raw_int(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t v = -1;
	assert_int_equal(
	        sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL),
	        SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return v;
}

static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	assert_int_equal(
	        sqlite3_open_v2(path, &db,
	                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
	                        NULL),
	        SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* Whether the file at path is in WAL mode. */
static bool raw_is_wal(const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	bool wal;
	assert_int_equal(
	        sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL),
	        SQLITE_OK);
	assert_int_equal(
	        sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL),
	        SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	wal = strcmp((const char *)sqlite3_column_text(st, 0), "wal") == 0;
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return wal;
}

/* Replace the blob (and, when given, checksum and size) of key. */
static void raw_set_blob(const char *path, const uint8_t key[16],
                         const uint8_t *blob, size_t len, bool reseal)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	assert_int_equal(
	        sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL),
	        SQLITE_OK);
	const char *sql = reseal ? "UPDATE plans SET blob = ?2, checksum = ?3,"
	                           " size = ?4 WHERE key = ?1"
	                         : "UPDATE plans SET blob = ?2 WHERE key = ?1";
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_blob(st, 1, key, 16, SQLITE_TRANSIENT);
	sqlite3_bind_blob(st, 2, blob, (int)len, SQLITE_TRANSIENT);
	if (reseal) {
		uint64_t sum = XXH3_64bits(blob, len);
		int64_t s;
		memcpy(&s, &sum, sizeof s);
		sqlite3_bind_int64(st, 3, s);
		sqlite3_bind_int64(st, 4, (int64_t)len);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	assert_int_equal(sqlite3_changes(db), 1);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static off_t file_size(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? sb.st_size : -1;
}

/* ---- tests ----------------------------------------------------------------
 */

/* Environment variables in their order of precedence. */
static void test_default_path(void **state)
{
	(void)state;
	const char *names[] = {"CCPLAN_CACHE", "XDG_CACHE_HOME", "HOME"};
	char *saved[3];
	char buf[256];
	for (int i = 0; i < 3; i++) {
		const char *v = getenv(names[i]);
		saved[i] = v ? strdup(v) : NULL;
	}
	setenv("CCPLAN_CACHE", "/x/y.db", 1);
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	assert_int_equal(cache_default_path(buf, sizeof buf), 0);
	assert_string_equal(buf, "/x/y.db");
	setenv("CCPLAN_CACHE", "", 1);
	assert_int_equal(cache_default_path(buf, sizeof buf), 0);
	assert_string_equal(buf, "/xdg/ccplan/plans.db");
	unsetenv("CCPLAN_CACHE");
	setenv("XDG_CACHE_HOME", "relative", 1); /* ignored, as XDG says */
	assert_int_equal(cache_default_path(buf, sizeof buf), 0);
	assert_string_equal(buf, "/home/u/.cache/ccplan/plans.db");
	assert_int_equal(cache_default_path(buf, 10), CCP_ERANGE);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	assert_int_equal(cache_default_path(buf, sizeof buf), CCP_ENOTFOUND);
	for (int i = 0; i < 3; i++) {
		if (saved[i])
			setenv(names[i], saved[i], 1);
		else
			unsetenv(names[i]);
		free(saved[i]);
	}
}

/* Keys to hex and back, either case, and what is not a key. */
static void test_keys(void **state)
{
	(void)state;
	uint8_t k[16], back[16];
	char hex[CACHE_KEY_HEX];
	for (int i = 0; i < 16; i++)
		k[i] = (uint8_t)(0x0f + 0x11 * i);
	cache_key_hex(k, hex);
	assert_string_equal(hex, "0f2031425364758697a8b9cadbecfd0e");
	assert_int_equal(cache_key_parse(hex, back), 0);
	assert_memory_equal(k, back, 16);
	assert_int_equal(
	        cache_key_parse("0F2031425364758697A8B9CADBECFD0E", back), 0);
	assert_memory_equal(k, back, 16);
	assert_int_equal(
	        cache_key_parse("0f2031425364758697a8b9cadbecfd0", back),
	        CCP_EINVAL);
	assert_int_equal(
	        cache_key_parse("0f2031425364758697a8b9cadbecfd0ee", back),
	        CCP_EINVAL);
	assert_int_equal(
	        cache_key_parse("0g2031425364758697a8b9cadbecfd0e", back),
	        CCP_EINVAL);
	assert_int_equal(cache_key_parse(NULL, back), CCP_EINVAL);
}

/* A real plan in and out, byte for byte, with its description; what is
 * absent, bad, or filed under the wrong key; the file's settings. */
static void test_roundtrip(void **state)
{
	struct fx *f = *state;
	char path[256], sub[200];
	struct cache_event ev;
	snprintf(sub, sizeof sub, "%s/a/b", f->dir);
	snprintf(path, sizeof path, "%s/plans.db", sub);
	cache *c = open_ok(path, 0, &ev);
	assert_false(ev.moved_aside);
	assert_true(ev.migrated);
	assert_int_equal(ev.from_version, 0);
	struct stat sb;
	assert_int_equal(stat(sub, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0700);

	uint8_t k1[16], k2[16], k3[16], *img, *img2;
	size_t len, len2;
	key_n(k1, 1);
	key_n(k2, 2);
	key_n(k3, 3);
	make_image(k1, 4, 4096, &img, &len);
	char text[] = "machine: mesh 4x2\nbroadcast 4096\n";
	struct cache_meta m = meta_for("binomial", 3, 3, NAN, text);
	assert_int_equal(cache_put(c, k1, img, len, &m), 0);

	void *out = NULL;
	size_t outlen = 0;
	struct cache_meta got;
	assert_int_equal(cache_get(c, k1, &out, &outlen, &got), 0);
	assert_int_equal(outlen, len);
	assert_memory_equal(out, img, len);
	assert_memory_equal(got.key, k1, 16);
	assert_string_equal(got.algorithm, "binomial");
	assert_int_equal(got.phases, 3);
	assert_int_equal(got.lb_phases, 3);
	assert_true(isnan(got.predicted));
	assert_string_equal(got.canonical, text);
	assert_int_equal(got.size, len);
	/* the image is still a plan the codec reads, for key */
	ir_file_info fi;
	assert_int_equal(ir_file_info_read(out, outlen, &fi, NULL, 0), 0);
	assert_memory_equal(fi.input_hash, k1, 16);
	free(out);
	cache_meta_fini(&got);
	assert_null(got.canonical);

	/* absent */
	out = (void *)1;
	assert_int_equal(cache_get(c, k3, &out, &outlen, NULL), CCP_ENOTFOUND);
	assert_null(out);
	assert_int_equal(outlen, 0);
	assert_non_null(strstr(cache_errmsg(c), "no cached plan"));

	/* no meta: taken from the image's header */
	make_image(k2, 4, 100, &img2, &len2);
	assert_int_equal(cache_put(c, k2, img2, len2, NULL), 0);
	assert_int_equal(cache_get(c, k2, &out, &outlen, &got), 0);
	assert_int_equal(ir_file_info_read(out, outlen, &fi, NULL, 0), 0);
	assert_string_equal(got.algorithm, "binomial");
	assert_int_equal(got.phases, fi.nphases);
	assert_int_equal(got.lb_phases, fi.lb_phases);
	assert_string_equal(got.canonical, "");
	free(out);
	cache_meta_fini(&got);

	/* refused: a plan of another input, a cut image, a damaged one */
	assert_int_equal(cache_put(c, k3, img, len, &m), CCP_EINVAL);
	assert_int_equal(cache_put(c, k1, img, len - 1, &m), CCP_EINVAL);
	img[len / 2] ^= 1;
	assert_int_equal(cache_put(c, k1, img, len, &m), CCP_EINVAL);
	img[len / 2] ^= 1;
	assert_int_equal(cache_get(c, k3, &out, &outlen, NULL), CCP_ENOTFOUND);

	/* again under the same key: one row, the last put wins */
	m.predicted = 2.5;
	assert_int_equal(cache_put(c, k1, img, len, &m), 0);
	assert_int_equal(cache_get(c, k1, &out, &outlen, &got), 0);
	assert_true(got.predicted == 2.5);
	free(out);
	cache_meta_fini(&got);
	cache_close(c);

	assert_int_equal(raw_int(path, "SELECT count(*) FROM plans"), 2);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), CACHE_SCHEMA_VERSION);
	assert_int_equal(raw_int(path, "PRAGMA application_id"), 0x4343504c);
	assert_int_equal(raw_int(path, "PRAGMA auto_vacuum"), 2);
	assert_true(raw_is_wal(path));

	c = open_ok(path, 0, &ev);
	assert_false(ev.migrated);
	assert_false(ev.moved_aside);
	assert_int_equal(cache_get(c, k2, &out, &outlen, NULL), 0);
	assert_memory_equal(out, img2, len2);
	free(out);
	cache_close(c);
	free(img);
	free(img2);
}

/* Abbreviated keys: the range of a prefix is exact at both ends, and a
 * prefix of two keys is refused. */
static void test_prefix(void **state)
{
	struct fx *f = *state;
	cache *c = open_ok(f->path, 0, NULL);
	uint8_t a[16], b[16], d[16], e[16], k[16];
	key_hex(a, "ab120000000000000000000000000000");
	key_hex(b, "ab340000000000000000000000000000");
	key_hex(d, "ab1fffffffffffffffffffffffffffff");
	key_hex(e, "cd000000000000000000000000000000");
	put_new(c, a, 64, NULL);
	put_new(c, b, 64, NULL);
	put_new(c, e, 64, NULL);

	assert_int_equal(cache_find_prefix(c, "ab1", k), 0);
	assert_memory_equal(k, a, 16);
	assert_int_equal(cache_find_prefix(c, "AB3", k), 0);
	assert_memory_equal(k, b, 16);
	assert_int_equal(cache_find_prefix(c, "c", k), 0);
	assert_memory_equal(k, e, 16);
	assert_int_equal(cache_find_prefix(c, "ab", k), CCP_EINVAL);
	assert_non_null(strstr(cache_errmsg(c), "ambiguous"));
	assert_int_equal(cache_find_prefix(c, "a", k), CCP_EINVAL);
	assert_int_equal(cache_find_prefix(c, "ab2", k), CCP_ENOTFOUND);
	assert_int_equal(cache_find_prefix(c, "ef", k), CCP_ENOTFOUND);
	assert_int_equal(cache_find_prefix(c, "xyz", k), CCP_EINVAL);
	assert_int_equal(cache_find_prefix(c, "", k), CCP_EINVAL);
	assert_int_equal(
	        cache_find_prefix(c, "cd0000000000000000000000000000000", k),
	        CCP_EINVAL);
	assert_int_equal(
	        cache_find_prefix(c, "cd000000000000000000000000000000", k), 0);
	assert_memory_equal(k, e, 16);

	/* the highest key of a prefix is inside it */
	put_new(c, d, 64, NULL);
	assert_int_equal(cache_find_prefix(c, "ab1", k), CCP_EINVAL);
	assert_int_equal(cache_find_prefix(c, "ab1f", k), 0);
	assert_memory_equal(k, d, 16);
	assert_int_equal(cache_find_prefix(c, "ab12", k), 0);
	assert_memory_equal(k, a, 16);
	cache_close(c);
}

struct seen {
	int n;
	uint8_t keys[8][16];
	int64_t created[8], last_used[8];
	uint64_t size[8];
	int stop_after;
};

static int collect(const struct cache_meta *m, void *arg)
{
	struct seen *s = arg;
	assert_null(m->canonical);
	memcpy(s->keys[s->n], m->key, 16);
	s->created[s->n] = m->created;
	s->last_used[s->n] = m->last_used;
	s->size[s->n] = m->size;
	s->n++;
	return s->n == s->stop_after ? 42 : 0;
}

/* last_used follows gets (not read-only ones); created stays for the same
 * image; list goes most recent first and stops when asked. */
static void test_last_used(void **state)
{
	struct fx *f = *state;
	cache *c = open_ok(f->path, 0, NULL);
	uint8_t k1[16], k2[16], *img, *other;
	size_t len, olen;
	void *out;
	size_t outlen;
	struct cache_meta m;
	key_n(k1, 1);
	key_n(k2, 2);
	make_image(k1, 4, 64, &img, &len);
	make_image(k1, 4, 65, &other, &olen);

	cache_set_time(c, 1000);
	assert_int_equal(cache_put(c, k1, img, len, NULL), 0);
	cache_set_time(c, 1500);
	put_new(c, k2, 64, NULL);
	struct seen s = {0};
	assert_int_equal(cache_list(c, collect, &s), 0);
	assert_int_equal(s.n, 2);
	assert_memory_equal(s.keys[0], k2, 16);
	assert_int_equal(s.created[1], 1000);
	assert_int_equal(s.last_used[1], 1000);
	assert_int_equal(s.size[1], len);

	cache_set_time(c, 2000);
	assert_int_equal(cache_get(c, k1, &out, &outlen, &m), 0);
	assert_int_equal(m.last_used, 2000);
	assert_int_equal(m.created, 1000);
	free(out);
	cache_meta_fini(&m);
	memset(&s, 0, sizeof s);
	assert_int_equal(cache_list(c, collect, &s), 0);
	assert_memory_equal(s.keys[0], k1, 16);
	assert_int_equal(s.last_used[0], 2000);

	/* read-only: no update */
	cache *r = open_ok(f->path, CACHE_READONLY, NULL);
	cache_set_time(r, 3000);
	assert_int_equal(cache_get(r, k1, &out, &outlen, &m), 0);
	assert_int_equal(m.last_used, 2000);
	free(out);
	cache_meta_fini(&m);
	cache_close(r);
	/* (a get records its use in the uses table, schema version 3) */
	assert_int_equal(raw_int(f->path,
	                         "SELECT max(max(p.last_used,"
	                         " coalesce(u.last_used, 0))) FROM plans p"
	                         " LEFT JOIN uses u ON u.key = p.key"),
	                 2000);

	/* the same image again keeps created; another one does not */
	cache_set_time(c, 2500);
	assert_int_equal(cache_put(c, k1, img, len, NULL), 0);
	assert_int_equal(cache_get(c, k1, &out, &outlen, &m), 0);
	assert_int_equal(m.created, 1000);
	assert_int_equal(m.last_used, 2500);
	free(out);
	cache_meta_fini(&m);
	cache_set_time(c, 2600);
	assert_int_equal(cache_put(c, k1, other, olen, NULL), 0);
	assert_int_equal(cache_get(c, k1, &out, &outlen, &m), 0);
	assert_int_equal(m.created, 2600);
	assert_int_equal(outlen, olen);
	assert_memory_equal(out, other, olen);
	free(out);
	cache_meta_fini(&m);

	memset(&s, 0, sizeof s);
	s.stop_after = 1;
	assert_int_equal(cache_list(c, collect, &s), 42);
	assert_int_equal(s.n, 1);

	assert_int_equal(cache_remove(c, k1), 0);
	assert_int_equal(cache_remove(c, k1), CCP_ENOTFOUND);
	assert_int_equal(cache_get(c, k1, &out, &outlen, NULL), CCP_ENOTFOUND);
	cache_close(c);
	free(img);
	free(other);
}

/* By size: least recently used first, down to the limit. */
static void test_gc_size(void **state)
{
	struct fx *f = *state;
	cache *c = open_ok(f->path, 0, NULL);
	uint8_t k[4][16];
	size_t len = 0, l;
	void *out;
	struct cache_gc_stats gs;
	for (unsigned i = 0; i < 4; i++) {
		key_n(k[i], i);
		cache_set_time(c, 100 * (i + 1));
		put_new(c, k[i], 64, &l);
		assert_true(len == 0 || l == len);
		len = l;
	}
	cache_set_time(c, 500);
	assert_int_equal(cache_get(c, k[0], &out, &l, NULL), 0);
	free(out);

	assert_int_equal(cache_gc(c, -1, -1, &gs), 0);
	assert_int_equal(gs.removed, 0);
	assert_int_equal(gs.kept, 4);
	assert_int_equal(gs.kept_bytes, 4 * len);
	assert_int_equal(cache_gc(c, (int64_t)(2 * len), -1, &gs), 0);
	assert_int_equal(gs.removed, 2);
	assert_int_equal(gs.removed_bytes, 2 * len);
	assert_int_equal(gs.kept, 2);
	assert_int_equal(gs.kept_bytes, 2 * len);
	assert_int_equal(cache_get(c, k[1], &out, &l, NULL), CCP_ENOTFOUND);
	assert_int_equal(cache_get(c, k[2], &out, &l, NULL), CCP_ENOTFOUND);
	assert_int_equal(cache_get(c, k[3], &out, &l, NULL), 0);
	free(out);
	cache_set_time(c, 600);
	assert_int_equal(cache_get(c, k[0], &out, &l, NULL), 0);
	free(out);
	/* one byte under: the less recent of the two goes (k[3], used at
	 * 500) */
	assert_int_equal(cache_gc(c, (int64_t)(2 * len) - 1, -1, &gs), 0);
	assert_int_equal(gs.removed, 1);
	assert_int_equal(cache_get(c, k[3], &out, &l, NULL), CCP_ENOTFOUND);
	assert_int_equal(cache_gc(c, 0, -1, &gs), 0);
	assert_int_equal(gs.removed, 1);
	assert_int_equal(gs.kept, 0);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plans"), 0);
	assert_int_equal(cache_gc(c, -2, -1, &gs), CCP_EINVAL);
	assert_int_equal(cache_gc(c, -1, -5, &gs), CCP_EINVAL);
	cache_close(c);
}

/* By age: what was not used within the window goes; the boundary stays. */
static void test_gc_age(void **state)
{
	struct fx *f = *state;
	cache *c = open_ok(f->path, 0, NULL);
	uint8_t k[3][16];
	struct cache_gc_stats gs;
	void *out;
	size_t l;
	for (unsigned i = 0; i < 3; i++) {
		key_n(k[i], 10 + i);
		cache_set_time(c, 100 * (i + 1));
		put_new(c, k[i], 64, NULL);
	}
	cache_set_time(c, 1000);
	assert_int_equal(cache_gc(c, -1, 750, &gs), 0); /* before 250 */
	assert_int_equal(gs.removed, 2);
	assert_int_equal(gs.kept, 1);
	assert_int_equal(cache_get(c, k[0], &out, &l, NULL), CCP_ENOTFOUND);
	assert_int_equal(cache_get(c, k[1], &out, &l, NULL), CCP_ENOTFOUND);
	assert_int_equal(cache_gc(c, -1, 700, &gs), 0); /* before 300 */
	assert_int_equal(gs.removed, 0);
	assert_int_equal(cache_gc(c, -1, 699, &gs), 0);
	assert_int_equal(gs.removed, 1);
	assert_int_equal(gs.kept, 0);
	cache_close(c);
}

/* A get's use counts as the entry's last use everywhere (list, get, gc by
 * age and by size) although it is kept out of the plan's own row, which
 * keeps its put time; one within CACHE_USE_GRAIN_S of the last is not
 * written; a remove or a put again forgets it, and gc drops what a
 * removed entry left. */
static void test_uses(void **state)
{
	struct fx *f = *state;
	cache *c = open_ok(f->path, 0, NULL);
	uint8_t k[3][16];
	struct cache_gc_stats gs;
	struct cache_meta m;
	void *out;
	size_t l, len;
	for (unsigned i = 0; i < 3; i++) {
		key_n(k[i], 60 + i);
		cache_set_time(c, 100 * (i + 1));
		put_new(c, k[i], 64, &len);
	}
	/* a use within the grain of the last is not recorded */
	cache_set_time(c, 100 + CACHE_USE_GRAIN_S - 1);
	assert_int_equal(cache_get(c, k[0], &out, &l, &m), 0);
	assert_int_equal(m.last_used, 100);
	free(out);
	cache_meta_fini(&m);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM uses"), 0);
	cache_set_time(c, 5000);
	assert_int_equal(cache_get(c, k[0], &out, &l, &m), 0); /* used */
	assert_int_equal(m.last_used, 5000);
	free(out);
	cache_meta_fini(&m);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM uses"), 1);
	cache_set_time(c, 5000 + CACHE_USE_GRAIN_S - 1);
	assert_int_equal(cache_get(c, k[0], &out, &l, &m), 0);
	assert_int_equal(m.last_used, 5000);
	free(out);
	cache_meta_fini(&m);
	cache_set_time(c, 5000);
	assert_int_equal(raw_int(f->path, "SELECT min(last_used) FROM plans"),
	                 100);
	struct seen s = {0};
	assert_int_equal(cache_list(c, collect, &s), 0);
	assert_memory_equal(s.keys[0], k[0], 16);
	assert_int_equal(s.last_used[0], 5000);
	/* by size: the least recently used go first, k[1] then k[2] */
	assert_int_equal(cache_gc(c, (int64_t)(2 * len), -1, &gs), 0);
	assert_int_equal(gs.removed, 1);
	assert_int_equal(cache_get(c, k[1], &out, &l, NULL), CCP_ENOTFOUND);
	/* by age: k[0] was used at 5000, k[2] put at 300 */
	cache_set_time(c, 6000);
	assert_int_equal(cache_gc(c, -1, 2000, &gs), 0); /* before 4000 */
	assert_int_equal(gs.removed, 1);
	assert_int_equal(gs.kept, 1);
	assert_int_equal(cache_get(c, k[2], &out, &l, NULL), CCP_ENOTFOUND);
	assert_int_equal(cache_get(c, k[0], &out, &l, NULL), 0);
	free(out);
	/* a put again is the last use; a remove forgets the use */
	cache_set_time(c, 5500);
	put_new(c, k[0], 64, NULL);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM uses"), 0);
	assert_int_equal(cache_get(c, k[0], &out, &l, &m), 0);
	assert_int_equal(m.last_used, 5500);
	free(out);
	cache_meta_fini(&m);
	cache_set_time(c, 7000);
	assert_int_equal(cache_get(c, k[0], &out, &l, NULL), 0);
	free(out);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM uses"), 1);
	assert_int_equal(cache_remove(c, k[0]), 0);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM uses"), 0);
	/* what a removed entry left (an older ccplan's remove) goes at gc */
	raw_exec(f->path, "INSERT INTO uses VALUES (x'00112233445566778899aab"
	                  "bccddeeff', 1)");
	assert_int_equal(cache_gc(c, -1, -1, &gs), 0);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM uses"), 0);
	cache_close(c);
}

/* What test_seals' check expects, and how often it was asked. */
struct seal_want {
	const void *img;
	size_t len;
	int calls;
};

/* A seal check for test_seals: the seal holds when it is "ok" and the
 * image is the one the test expects (arg, a struct seal_want). */
static bool seal_is_ok(const uint8_t key[16], uint64_t checksum,
                       const void *img, size_t len, const void *seal,
                       size_t n, void *arg)
{
	struct seal_want *want = arg;
	(void)key;
	want->calls++;
	return n == 2 && memcmp(seal, "ok", 2) == 0 && len == want->len &&
	       memcmp(img, want->img, len) == 0 &&
	       checksum == cache_checksum(img, len);
}

/* Seals: a get with the signer's check is sealed when the seal holds, and
 * checked as by cache_get when it does not (no seal, another signer, a
 * seal that fails); cache_seal needs the entry; a put again, a remove
 * and gc drop an entry's seals; read-only refuses to seal. */
static void test_seals(void **state)
{
	struct fx *f = *state;
	cache *c = open_ok(f->path, 0, NULL);
	uint8_t k[16], k2[16];
	struct seal_want want = {0};
	struct cache_sealer sa = {.check = seal_is_ok, .arg = &want};
	struct cache_sealer sb = sa;
	memset(sa.signer, 'a', sizeof sa.signer);
	memset(sb.signer, 'b', sizeof sb.signer);
	void *out;
	size_t l;
	bool sealed = true;
	uint8_t *img;
	size_t len;
	key_n(k, 70);
	key_n(k2, 71);
	put_new(c, k, 256, &len);
	assert_int_equal(cache_get(c, k, &out, &l, NULL), 0);
	want.img = img = out;
	want.len = l;
	/* no seal yet: checked, not sealed */
	assert_int_equal(cache_get_sealed(c, k, &sa, &out, &l, NULL, &sealed),
	                 0);
	assert_false(sealed);
	assert_int_equal(want.calls, 0);
	free(out);
	assert_int_equal(cache_seal(c, k, sa.signer, "ok", 2), 0);
	assert_int_equal(cache_seal(c, k2, sa.signer, "ok", 2), 0); /* none */
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM seals"), 1);
	assert_int_equal(cache_get_sealed(c, k, &sa, &out, &l, NULL, &sealed),
	                 0);
	assert_true(sealed);
	assert_int_equal(want.calls, 1);
	assert_memory_equal(out, img, len);
	free(out);
	/* another signer's seal is not ours */
	assert_int_equal(cache_get_sealed(c, k, &sb, &out, &l, NULL, &sealed),
	                 0);
	assert_false(sealed);
	free(out);
	/* a seal that does not hold: the cache's own checks, which refuse
	 * an image whose bytes changed under an unchanged checksum */
	assert_int_equal(cache_seal(c, k, sa.signer, "no", 2), 0);
	assert_int_equal(cache_get_sealed(c, k, &sa, &out, &l, NULL, &sealed),
	                 0);
	assert_false(sealed);
	free(out);
	assert_int_equal(cache_seal(c, k, sa.signer, "ok", 2), 0);
	raw_exec(f->path, "UPDATE plans SET blob = substr(blob, 1, 100) ||"
	                  " x'ff' || substr(blob, 102)");
	assert_int_equal(cache_get_sealed(c, k, &sa, &out, &l, NULL, &sealed),
	                 CCP_ECHECKSUM); /* the seal saw other bytes */
	assert_false(sealed);
	assert_null(out);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM seals"), 0);
	/* a put again, a remove, gc drop seals */
	put_new(c, k, 256, NULL);
	assert_int_equal(cache_seal(c, k, sa.signer, "ok", 2), 0);
	put_new(c, k, 256, NULL);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM seals"), 0);
	assert_int_equal(cache_seal(c, k, sb.signer, "ok", 2), 0);
	assert_int_equal(cache_remove(c, k), 0);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM seals"), 0);
	raw_exec(f->path, "INSERT INTO seals VALUES (x'00112233445566778899aab"
	                  "bccddeeff', x'61', x'6f6b')");
	struct cache_gc_stats gs;
	assert_int_equal(cache_gc(c, -1, -1, &gs), 0);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM seals"), 0);
	assert_int_equal(cache_seal(c, k, sa.signer, "", 0), CCP_EINVAL);
	cache_close(c);
	c = open_ok(f->path, CACHE_READONLY, NULL);
	assert_int_equal(cache_seal(c, k, sa.signer, "ok", 2), CCP_EINVAL);
	cache_close(c);
	free(img);
}

/* A cache of schema version 2 (without the uses and seals tables):
 * read-only says to open it read-write once; read-write upgrades it,
 * keeping its plans; so is one of version 3 (without seals). */
static void test_migrate_v2(void **state)
{
	struct fx *f = *state;
	uint8_t k[16];
	void *out;
	size_t l;
	char err[512];
	struct cache_event ev;
	cache *c = open_ok(f->path, 0, NULL);
	key_n(k, 66);
	cache_set_time(c, 100);
	put_new(c, k, 64, NULL);
	cache_close(c);
	raw_exec(f->path,
	         "DROP TABLE uses; DROP TABLE seals; PRAGMA user_version = 2;");
	c = NULL;
	assert_int_equal(
	        cache_open(f->path, CACHE_READONLY, &c, NULL, err, sizeof err),
	        CCP_EVERSION);
	assert_non_null(strstr(err, "open it read-write once"));
	c = open_ok(f->path, 0, &ev);
	assert_true(ev.migrated);
	assert_int_equal(ev.from_version, 2);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"),
	                 CACHE_SCHEMA_VERSION);
	cache_set_time(c, 200);
	assert_int_equal(cache_get(c, k, &out, &l, NULL), 0);
	free(out);
	assert_int_equal(raw_int(f->path, "SELECT last_used FROM uses"), 200);
	cache_close(c);
	/* version 3 (without seals) takes the last step alone */
	raw_exec(f->path, "DROP TABLE seals; PRAGMA user_version = 3;");
	c = open_ok(f->path, 0, &ev);
	assert_true(ev.migrated);
	assert_int_equal(ev.from_version, 3);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM seals"), 0);
	cache_close(c);
	/* a version-3 file without its uses table is damaged, and a
	 * version-4 one without seals */
	raw_exec(f->path, "DROP TABLE uses; DROP TABLE seals;"
	                  " PRAGMA user_version = 3;");
	c = NULL;
	assert_int_equal(
	        cache_open(f->path, CACHE_READONLY, &c, NULL, err, sizeof err),
	        CCP_EFORMAT);
	raw_exec(f->path, "CREATE TABLE uses (key BLOB PRIMARY KEY,"
	                  " last_used INTEGER) WITHOUT ROWID;"
	                  " PRAGMA user_version = 4;");
	assert_int_equal(
	        cache_open(f->path, CACHE_READONLY, &c, NULL, err, sizeof err),
	        CCP_EFORMAT);
}

/* Write n bytes of text that is no database to path. */
static void write_garbage(const char *path, size_t n)
{
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	for (size_t i = 0; i < n; i++)
		fputc("not a database, just bytes\n"[i % 27], fp);
	assert_int_equal(fclose(fp), 0);
}

/* A file of garbage: read-only refuses it and leaves it; read-write moves
 * it aside, says where, and works. */
static void test_corrupt_garbage(void **state)
{
	struct fx *f = *state;
	struct cache_event ev;
	cache *c = NULL;
	char err[512];
	write_garbage(f->path, 4096);
	assert_int_equal(
	        cache_open(f->path, CACHE_READONLY, &c, NULL, err, sizeof err),
	        CCP_EFORMAT);
	assert_null(c);
	assert_true(err[0] != '\0');
	assert_int_equal(file_size(f->path), 4096);

	/* a stale -wal never reaches the new file */
	char wal[200], aside_wal[4200];
	snprintf(wal, sizeof wal, "%s-wal", f->path);
	write_garbage(wal, 1000);
	c = open_ok(f->path, 0, &ev);
	assert_true(ev.moved_aside);
	assert_true(ev.reason[0] != '\0');
	char prefix[200];
	snprintf(prefix, sizeof prefix, "%s.corrupt-", f->path);
	assert_memory_equal(ev.aside, prefix, strlen(prefix));
	assert_int_equal(file_size(ev.aside), 4096);
	/* (SQLite may delete a -wal it cannot use when it closes the
	 * damaged file; one that is left goes aside) */
	snprintf(aside_wal, sizeof aside_wal, "%s-wal", ev.aside);
	off_t moved = file_size(aside_wal);
	assert_true(moved == -1 || moved == 1000);
	assert_int_not_equal(file_size(wal), 1000);
	assert_true(ev.migrated);

	uint8_t k[16];
	void *out;
	size_t l, len;
	key_n(k, 7);
	put_new(c, k, 64, &len);
	assert_int_equal(cache_get(c, k, &out, &l, NULL), 0);
	assert_int_equal(l, len);
	free(out);
	cache_close(c);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), CACHE_SCHEMA_VERSION);
}

/* A real cache cut to half its size is found damaged (with and without
 * quick_check), moved aside with its companions, and rebuilt. */
static void test_corrupt_truncated(void **state)
{
	struct fx *f = *state;
	for (int pass = 0; pass < 2; pass++) {
		unsigned flags = pass ? CACHE_NO_CHECK : 0;
		struct cache_event ev;
		cache *c = open_ok(f->path, 0, NULL);
		uint8_t k[16];
		for (unsigned i = 0; i < 24; i++) {
			uint8_t *img;
			size_t len;
			key_n(k, 100 * pass + i);
			make_image(k, 8, 1 << 20, &img, &len);
			assert_int_equal(cache_put(c, k, img, len, NULL), 0);
			free(img);
		}
		cache_close(c);
		off_t size = file_size(f->path);
		assert_true(size > 64 * 1024);
		assert_int_equal(truncate(f->path, size / 2), 0);

		char err[512];
		c = NULL;
		assert_int_equal(cache_open(f->path, CACHE_READONLY | flags, &c,
		                            NULL, err, sizeof err),
		                 CCP_EFORMAT);
		assert_int_equal(file_size(f->path), size / 2);

		c = open_ok(f->path, flags, &ev);
		assert_true(ev.moved_aside);
		assert_int_equal(file_size(ev.aside), size / 2);
		void *out;
		size_t l;
		assert_int_equal(cache_get(c, k, &out, &l, NULL),
		                 CCP_ENOTFOUND);
		put_new(c, k, 64, NULL);
		assert_int_equal(cache_get(c, k, &out, &l, NULL), 0);
		free(out);
		cache_close(c);
		unlink(f->path);
	}
}

/* Entries damaged in the file: a flipped byte, one resealed with a
 * matching cache checksum (only the codec sees it), and a good plan filed
 * under another key.  None is returned; read-write removes them. */
static void test_damaged_entry(void **state)
{
	struct fx *f = *state;
	cache *c = open_ok(f->path, 0, NULL);
	uint8_t k[4][16], *img[4];
	size_t len[4];
	for (unsigned i = 0; i < 4; i++) {
		key_n(k[i], 20 + i);
		make_image(k[i], 4, 512 + i, &img[i], &len[i]);
		assert_int_equal(cache_put(c, k[i], img[i], len[i], NULL), 0);
	}
	cache_close(c);

	img[0][len[0] / 2] ^= 0x10;
	raw_set_blob(f->path, k[0], img[0], len[0], false);
	img[1][len[1] - 3] ^= 0x01;
	raw_set_blob(f->path, k[1], img[1], len[1], true);
	raw_set_blob(f->path, k[2], img[3], len[3], true);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plans"), 4);

	void *out = (void *)1;
	size_t l = 1;
	cache *r = open_ok(f->path, CACHE_READONLY, NULL);
	assert_int_equal(cache_get(r, k[0], &out, &l, NULL), CCP_ECHECKSUM);
	assert_null(out);
	assert_int_equal(l, 0);
	assert_non_null(strstr(cache_errmsg(r), "left in place"));
	cache_close(r);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plans"), 4);

	c = open_ok(f->path, 0, NULL);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(cache_get(c, k[i], &out, &l, NULL),
		                 CCP_ECHECKSUM);
		assert_null(out);
		assert_non_null(strstr(cache_errmsg(c), "has been removed"));
		assert_int_equal(cache_get(c, k[i], &out, &l, NULL),
		                 CCP_ENOTFOUND);
	}
	assert_int_equal(cache_get(c, k[3], &out, &l, NULL), 0);
	assert_memory_equal(out, img[3], len[3]);
	free(out);
	cache_close(c);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plans"), 1);
	for (unsigned i = 0; i < 4; i++)
		free(img[i]);
}

/* A plan image under key in a row whose size and checksum match it, put
 * there behind the cache's back (the row holds a good plan of key
 * first). */
static void raw_replace(const char *path, const uint8_t key[16],
                        const uint8_t *img, size_t len)
{
	cache *c = open_ok(path, 0, NULL);
	put_new(c, key, 64, NULL);
	cache_close(c);
	raw_set_blob(path, key, img, len, true);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM plans"), 1);
}

/* No wildcard key: an image that records no input (all zero), or the
 * input of another key, is never served under a key, by any reader:
 * cache_get read-write (which removes it) and read-only (which leaves
 * it), and the runtime's ccp_plan_load_cache; cache_put refuses to store
 * one. */
static void test_no_wildcard(void **state)
{
	struct fx *f = *state;
	static const uint8_t zero[16];
	uint8_t k[16], other[16], *img[2];
	size_t len[2];
	char hex[CACHE_KEY_HEX];
	key_n(k, 70);
	key_n(other, 71);
	cache_key_hex(k, hex);
	make_image(zero, 4, 256, &img[0], &len[0]);
	make_image(other, 4, 256, &img[1], &len[1]);
	static const char *const why[2] = {"the plan records no input",
	                                   "the plan was made for another "
	                                   "input"};
	ccp_context *ctx;
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	for (int i = 0; i < 2; i++) {
		cache *c = open_ok(f->path, 0, NULL);
		assert_int_equal(cache_put(c, k, img[i], len[i], NULL),
		                 CCP_EINVAL);
		assert_non_null(strstr(cache_errmsg(c), i ? "another input"
		                                          : "no input"));
		cache_close(c);

		raw_replace(f->path, k, img[i], len[i]);
		void *out = (void *)1;
		size_t l = 1;
		cache *r = open_ok(f->path, CACHE_READONLY | CACHE_NO_CHECK,
		                   NULL);
		assert_int_equal(cache_get(r, k, &out, &l, NULL),
		                 CCP_ECHECKSUM);
		assert_null(out);
		assert_non_null(strstr(cache_errmsg(r), why[i]));
		assert_non_null(strstr(cache_errmsg(r), "left in place"));
		cache_close(r);
		ccp_plan *plan = (ccp_plan *)1;
		assert_int_equal(ccp_plan_load_cache(ctx, f->path, hex, 0,
		                                     &plan),
		                 CCP_ECHECKSUM);
		assert_null(plan);
		assert_non_null(strstr(ccp_errmsg(ctx), why[i]));
		assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plans"),
		                 1);

		c = open_ok(f->path, 0, NULL);
		assert_int_equal(cache_get(c, k, &out, &l, NULL),
		                 CCP_ECHECKSUM);
		assert_null(out);
		assert_non_null(strstr(cache_errmsg(c), why[i]));
		assert_non_null(strstr(cache_errmsg(c), "has been removed"));
		cache_close(c);
		assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plans"),
		                 0);
		free(img[i]);
	}
	ccp_fini(ctx);
}

/* cache_drop removes the entry only while it holds the image given: a
 * caller that found a served plan bad never removes a good one another
 * process stored since. */
static void test_drop(void **state)
{
	struct fx *f = *state;
	cache *c = open_ok(f->path, 0, NULL);
	uint8_t k[16], *a, *b;
	size_t la, lb;
	key_n(k, 80);
	make_image(k, 4, 100, &a, &la);
	make_image(k, 4, 200, &b, &lb);
	assert_int_equal(cache_put(c, k, a, la, NULL), 0);
	assert_int_equal(cache_drop(c, k, b, lb), 0); /* not the one stored */
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plans"), 1);
	assert_int_equal(cache_drop(c, k, a, la), 0);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plans"), 0);
	assert_int_equal(cache_drop(c, k, a, la), 0); /* gone already */
	cache_close(c);
	cache *r = open_ok(f->path, CACHE_READONLY, NULL);
	assert_int_equal(cache_drop(r, k, a, la), CCP_EINVAL);
	cache_close(r);
	free(a);
	free(b);
}

/* The output of the shell command fmt (the command's stdout) into out,
 * NUL-terminated; its exit status. */
static int run_out(char *out, size_t cap, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Whether text holds a byte a terminal takes as a control: C0 (but a
 * newline or a tab), DEL, or the UTF-8 of a C1 control or of a bidirectional
 * override. */
static bool has_control(const char *text)
{
	for (const unsigned char *s = (const unsigned char *)text; *s; s++)
		if ((*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f ||
		    (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) ||
		    (s[0] == 0xe2 && s[1] == 0x80 && s[2] == 0xae))
			return true;
	return false;
}

/* `ccplan cache ls` and `cache show` print what the cache stores (the
 * algorithm name, the canonical text) with every control character
 * escaped: a row holding terminal escape sequences cannot reach the
 * terminal; printable UTF-8 and the text's lines are kept. */
static void test_stored_text_escaped(void **state)
{
	struct fx *f = *state;
	const char *bin = getenv("CCPLAN_BIN");
	if (!bin)
		skip();
	char canonical[] = "machine:\n\tcaf\xc3\xa9 \x1b[31mred\x1b[0m "
	                   "\xc2\x9b" "2J \xe2\x80\xae rev \xff\\ \x7f\n";
	struct cache_meta m = meta_for("x\x1b]0;pwned\x07" "y", 3, 3, NAN,
	                               canonical);
	uint8_t k[16], *img;
	size_t len;
	char hex[CACHE_KEY_HEX], out[8192];
	key_n(k, 90);
	cache_key_hex(k, hex);
	make_image(k, 4, 64, &img, &len);
	cache *c = open_ok(f->path, 0, NULL);
	assert_int_equal(cache_put(c, k, img, len, &m), 0);
	cache_close(c);
	free(img);

	assert_int_equal(run_out(out, sizeof out, "'%s' cache --cache '%s' ls",
	                         bin, f->path),
	                 0);
	assert_false(has_control(out));
	assert_non_null(strstr(out, "x\\x1b]0;pwned\\x07y"));

	assert_int_equal(run_out(out, sizeof out,
	                         "'%s' cache --cache '%s' show %.8s", bin,
	                         f->path, hex),
	                 0);
	assert_false(has_control(out));
	assert_non_null(strstr(out, "algorithm   x\\x1b]0;pwned\\x07y\n"));
	assert_non_null(strstr(out, "machine:\n\tcaf\xc3\xa9 "
	                            "\\x1b[31mred\\x1b[0m \\xc2\\x9b2J "
	                            "\\xe2\\x80\\xae rev \\xff\\\\ "
	                            "\\x7f\n"));
}

/* ---- who may write the cache ---------------------------------------- */

/* A cache with one plan at dir/plans.db (dir made 0700 if missing); its
 * path into path. */
static void trust_cache(const char *dir, char *path, size_t len)
{
	mkdir(dir, 0700);
	snprintf(path, len, "%s/plans.db", dir);
	cache *c = open_ok(path, 0, NULL);
	uint8_t k[16];
	key_n(k, 100);
	put_new(c, k, 64, NULL);
	cache_close(c);
}

/* The cache at path is refused, for what (a part of the message), by
 * every reader: read-write, read-only, the runtime's loader; and allowed
 * on purpose by CCPLAN_CACHE_TRUST naming it (among others), or '*'. */
static void refused_then_trusted(const char *path, const char *what)
{
	char err[1024], list[600];
	cache *c = NULL;
	unsetenv(CACHE_TRUST_ENV);
	assert_int_equal(cache_open(path, 0, &c, NULL, err, sizeof err),
	                 CCP_EINVAL);
	assert_null(c);
	if (!strstr(err, what) || !strstr(err, "refusing the plan cache") ||
	    !strstr(err, CACHE_TRUST_ENV "="))
		fail_msg("%s: wanted '%s': %s", path, what, err);
	assert_int_equal(cache_open(path, CACHE_READONLY | CACHE_NO_CHECK, &c,
	                            NULL, err, sizeof err),
	                 CCP_EINVAL);
	assert_non_null(strstr(err, what));
	ccp_context *ctx;
	ccp_plan *plan = NULL;
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	assert_int_equal(ccp_plan_load_cache(ctx, path, "0", 0, &plan),
	                 CCP_EINVAL);
	assert_null(plan);
	assert_non_null(strstr(ccp_errmsg(ctx), what));
	ccp_fini(ctx);

	const char *allow[] = {list, "*"};
	snprintf(list, sizeof list, "/nowhere/plans.db:%s:/x", path);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(setenv(CACHE_TRUST_ENV, allow[i], 1), 0);
		c = open_ok(path, CACHE_READONLY | CACHE_NO_CHECK, NULL);
		cache_close(c);
		c = open_ok(path, 0, NULL);
		cache_close(c);
	}
	unsetenv(CACHE_TRUST_ENV);
}

/* Files and directories that others could have written are refused,
 * with a message saying how to allow them: group- and world-writable
 * files and directories (the cache's own directory even when sticky, as
 * /tmp is), and as root, a file, directory, companion or symbolic link
 * another user owns (git's case of root in another user's repository).
 * A sticky world-writable directory further up, links the user owns, and
 * writable by the user's private group, are fine.  Changing a group or
 * an owner needs root: those parts are left out otherwise. */
static void test_trust(void **state)
{
	struct fx *f = *state;
	char dir[200], path[320], sub[256], link[320];
	bool root = geteuid() == 0;
	unsetenv(CACHE_TRUST_ENV);

	snprintf(dir, sizeof dir, "%s/modes", f->dir);
	trust_cache(dir, path, sizeof path);
	assert_int_equal(chmod(path, 0646), 0);
	refused_then_trusted(path, "can be written by others (mode 0646)");
	assert_int_equal(chmod(path, 0644), 0);
	if (root) {
		/* writable by a group others are in (chgrp needs root) */
		struct group *g = getgrnam("nogroup");
		assert_non_null(g);
		gid_t shared = g->gr_gid;
		assert_int_equal(chown(path, (uid_t)-1, shared), 0);
		assert_int_equal(chown(dir, (uid_t)-1, shared), 0);
		assert_int_equal(chmod(path, 0664), 0);
		refused_then_trusted(path, "can be written by its group (mode "
		                           "0664)");
		assert_int_equal(chmod(path, 0644), 0);
		assert_int_equal(chmod(dir, 0770), 0);
		refused_then_trusted(path, "modes can be written by its group "
		                           "(mode 0770)");
		/* by the user's private group (root's, here): the user alone */
		assert_int_equal(chown(path, (uid_t)-1, 0), 0);
		assert_int_equal(chown(dir, (uid_t)-1, 0), 0);
		assert_int_equal(chmod(path, 0664), 0);
		cache_close(open_ok(path, CACHE_READONLY, NULL));
		assert_int_equal(chmod(path, 0644), 0);
		cache_close(open_ok(path, 0, NULL));
	}
	assert_int_equal(chmod(dir, 0777), 0);
	refused_then_trusted(path, "can be written by others (mode 0777)");
	assert_int_equal(chmod(dir, 01777), 0); /* /tmp itself */
	refused_then_trusted(path, "modes is the cache's directory and can "
	                           "be written by others (mode 1777)");

	/* sticky further up: fine; not sticky: refused */
	snprintf(sub, sizeof sub, "%s/mine", dir);
	trust_cache(sub, path, sizeof path);
	cache_close(open_ok(path, 0, NULL));
	assert_int_equal(chmod(dir, 0777), 0);
	refused_then_trusted(path, "modes can be written by others");
	assert_int_equal(chmod(dir, 0700), 0);

	/* a link the user owns to a cache in a private directory is fine; a
	 * link to one in a directory others can write is not */
	snprintf(link, sizeof link, "%s/link.db", f->dir);
	assert_int_equal(symlink(path, link), 0);
	cache_close(open_ok(link, 0, NULL));
	assert_int_equal(chmod(sub, 0777), 0);
	refused_then_trusted(link, "mine can be written by others");
	assert_int_equal(chmod(sub, 0700), 0);

	if (!root)
		return; /* the rest needs chown */
	struct passwd *nobody = getpwnam("nobody");
	assert_non_null(nobody);
	uid_t other = nobody->pw_uid;
	assert_int_equal(chown(path, other, (gid_t)-1), 0);
	refused_then_trusted(path, "mine/plans.db is owned by nobody");
	assert_int_equal(chown(path, 0, (gid_t)-1), 0);
	assert_int_equal(chown(sub, other, (gid_t)-1), 0);
	refused_then_trusted(path, "mine is owned by nobody");
	assert_int_equal(chown(sub, 0, (gid_t)-1), 0);
	assert_int_equal(lchown(link, other, (gid_t)-1), 0);
	refused_then_trusted(link, "link.db is owned by nobody");
	/* a companion another user left (or planted) */
	char wal[340];
	snprintf(wal, sizeof wal, "%s-wal", path);
	int fd = open(wal, O_CREAT | O_WRONLY | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chown(wal, other, (gid_t)-1), 0);
	refused_then_trusted(path, "plans.db-wal is owned by nobody");
	unlink(wal);
	cache_close(open_ok(path, 0, NULL));
}

/* The command on a cache it refuses: compile warns, compiles without it
 * and stores nothing; cache ls fails with the message; both go on with
 * CCPLAN_CACHE_TRUST. */
static void test_trust_command(void **state)
{
	struct fx *f = *state;
	const char *bin = getenv("CCPLAN_BIN"), *src = getenv("CCPLAN_SOURCE_DIR");
	if (!bin || !src)
		skip();
	char dir[256], path[320], out[4096];
	snprintf(dir, sizeof dir, "%s/shared", f->dir);
	trust_cache(dir, path, sizeof path);
	assert_int_equal(chmod(dir, 0777), 0);
	unsetenv(CACHE_TRUST_ENV);
	assert_int_equal(run_out(out, sizeof out,
	                         "'%s' compile --cache '%s' "
	                         "'%s/examples/mesh16-broadcast.yaml' -o "
	                         "'%s/a.ccp' 2>&1",
	                         bin, path, src, f->dir),
	                 0);
	assert_non_null(strstr(out, "warning: cache"));
	assert_non_null(strstr(out, "refusing the plan cache"));
	assert_non_null(strstr(out, "compiling without it"));
	assert_int_equal(raw_int(path, "SELECT count(*) FROM plans"), 1);
	assert_int_equal(run_out(out, sizeof out,
	                         "'%s' cache --cache '%s' ls 2>&1", bin, path),
	                 2);
	assert_non_null(strstr(out, "refusing the plan cache"));
	assert_non_null(strstr(out, CACHE_TRUST_ENV "="));
	assert_int_equal(run_out(out, sizeof out,
	                         CACHE_TRUST_ENV "='%s' '%s' compile --cache "
	                         "'%s' '%s/examples/mesh16-broadcast.yaml' -o "
	                         "'%s/a.ccp' 2>&1",
	                         path, bin, path, src, f->dir),
	                 0);
	assert_null(strstr(out, "warning"));
	assert_int_equal(raw_int(path, "SELECT count(*) FROM plans"), 2);
}

/* The whole file at path (malloc'd, *len bytes), or NULL. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	uint8_t *b = NULL;
	if (fseek(fp, 0, SEEK_END) == 0) {
		long n = ftell(fp);
		if (n >= 0 && fseek(fp, 0, SEEK_SET) == 0 &&
		    (b = malloc((size_t)n + 1)) != NULL &&
		    fread(b, 1, (size_t)n, fp) != (size_t)n) {
			free(b);
			b = NULL;
		}
		*len = (size_t)n;
	}
	fclose(fp);
	return b;
}

/* Store img (len bytes) as the one row of the cache at path, under key,
 * with a matching size and checksum (behind the cache's back). */
static void raw_only_row(const char *path, const uint8_t key[16],
                         const uint8_t *img, size_t len)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	uint64_t sum = XXH3_64bits(img, len);
	int64_t s;
	memcpy(&s, &sum, sizeof s);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DELETE FROM plans", NULL, NULL, NULL),
	                 SQLITE_OK);
	assert_int_equal(
	        sqlite3_prepare_v2(db,
	                           "INSERT INTO plans VALUES (?1, ?2, ?3, 'bad',"
	                           " 1, 1, NULL, 0, 0, '', ?4)",
	                           -1, &st, NULL),
	        SQLITE_OK);
	sqlite3_bind_blob(st, 1, key, 16, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, s);
	sqlite3_bind_int64(st, 3, (int64_t)len);
	sqlite3_bind_blob(st, 4, img, (int)len, SQLITE_TRANSIENT);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* The runtime's cache loader applies the same load-time checks as every
 * other source: for each plan of the bad catalogue (the .ccp files of
 * tests/bad, most made from one good plan) stored under the key it
 * records, ccp_plan_load_cache gives every rank what
 * ccp_plan_load_memory gives for the same image, unless the cache itself
 * refuses the entry first (CCP_ECHECKSUM: it checks the whole image,
 * where a rank's loader reads its own part).  Whatever rule the loaders
 * add, a cache entry cannot get round it. */
static void test_loader_same_checks(void **state)
{
	struct fx *f = *state;
	DIR *d = opendir("bad"); /* tests/, where CTest runs this */
	if (!d)
		skip();
	cache_close(open_ok(f->path, 0, NULL));
	ccp_context *ctx;
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	int same_refusal = 0, loaded = 0, cache_refused = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t nl = strlen(e->d_name), len = 0;
		char file[512], hex[CACHE_KEY_HEX];
		if (nl < 5 || strcmp(e->d_name + nl - 4, ".ccp") != 0)
			continue;
		snprintf(file, sizeof file, "bad/%s", e->d_name);
		uint8_t *img = slurp(file, &len);
		assert_non_null(img);
		ir_file_info fi;
		if (ir_file_info_read(img, len, &fi, NULL, 0) != 0) {
			free(img); /* no key to store it under */
			continue;
		}
		raw_only_row(f->path, fi.input_hash, img, len);
		cache_key_hex(fi.input_hash, hex);
		for (int32_t r = 0; r < fi.nranks && r < 8; r++) {
			ccp_plan *pm = NULL, *pc = NULL;
			int rm = ccp_plan_load_memory(ctx, img, len, r, &pm);
			char why[512];
			snprintf(why, sizeof why, "%s", ccp_errmsg(ctx));
			int rcache = ccp_plan_load_cache(ctx, f->path, hex, r, &pc);
			if (rcache == CCP_ECHECKSUM) {
				cache_refused++; /* stricter: the whole image */
			} else if (rcache != rm) {
				fail_msg("%s rank %d: memory %s (%s), cache %s (%s)",
				         e->d_name, (int)r, ccp_strerror(rm), why,
				         ccp_strerror(rcache), ccp_errmsg(ctx));
			} else if (rm) {
				same_refusal++;
				assert_null(pc);
			} else {
				loaded++;
				assert_non_null(pc);
			}
			ccp_plan_free(pm);
			ccp_plan_free(pc);
		}
		free(img);
	}
	closedir(d);
	ccp_fini(ctx);
	/* rank sections refused by both, whole plans the cache refuses
	 * first, and good ranks loaded by both: the comparison saw all */
	assert_true(same_refusal > 0);
	assert_true(cache_refused > 0);
	assert_true(loaded > 0);
}

/* Read-only: a missing file is an error and nothing is made; an existing
 * cache can be read (also while a writer adds to it) but not changed. */
static void test_readonly(void **state)
{
	struct fx *f = *state;
	char path[256], dir[200], err[512] = "";
	cache *r = NULL;
	snprintf(dir, sizeof dir, "%s/none", f->dir);
	snprintf(path, sizeof path, "%s/plans.db", dir);
	assert_int_equal(
	        cache_open(path, CACHE_READONLY, &r, NULL, err, sizeof err),
	        CCP_ENOTFOUND);
	assert_null(r);
	assert_true(err[0] != '\0');
	struct stat sb;
	assert_int_not_equal(stat(dir, &sb), 0);

	cache *c = open_ok(f->path, 0, NULL);
	uint8_t k1[16], k2[16], k[16], *img;
	size_t len, l;
	void *out;
	key_n(k1, 31);
	key_n(k2, 32);
	put_new(c, k1, 64, NULL);

	r = open_ok(f->path, CACHE_READONLY, NULL);
	assert_int_equal(cache_get(r, k1, &out, &l, NULL), 0);
	free(out);
	make_image(k2, 4, 64, &img, &len);
	assert_int_equal(cache_put(r, k2, img, len, NULL), CCP_EINVAL);
	assert_non_null(strstr(cache_errmsg(r), "read-only"));
	assert_int_equal(cache_remove(r, k1), CCP_EINVAL);
	assert_int_equal(cache_gc(r, 0, 0, NULL), CCP_EINVAL);
	char hex[CACHE_KEY_HEX];
	cache_key_hex(k1, hex);
	hex[6] = '\0';
	assert_int_equal(cache_find_prefix(r, hex, k), 0);
	assert_memory_equal(k, k1, 16);
	/* a writer's new entry is visible to the reader */
	assert_int_equal(cache_put(c, k2, img, len, NULL), 0);
	assert_int_equal(cache_get(r, k2, &out, &l, NULL), 0);
	assert_int_equal(l, len);
	free(out);
	struct seen s = {0};
	assert_int_equal(cache_list(r, collect, &s), 0);
	assert_int_equal(s.n, 2);
	cache_close(r);
	cache_close(c);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plans"), 2);
	free(img);
}

/* Schema versions: an empty version-0 database is migrated; a foreign
 * database and a newer schema are refused and left alone. */
static void test_schema(void **state)
{
	struct fx *f = *state;
	char path[256], err[512];
	struct cache_event ev;
	cache *c = NULL;

	/* version 0, no tables: a file SQLite has written, but empty */
	raw_exec(f->path, "CREATE TABLE t (x); DROP TABLE t;");
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 0);
	assert_true(file_size(f->path) > 0);
	assert_int_equal(
	        cache_open(f->path, CACHE_READONLY, &c, NULL, err, sizeof err),
	        CCP_EFORMAT);
	c = open_ok(f->path, 0, &ev);
	assert_true(ev.migrated);
	assert_int_equal(ev.from_version, 0);
	assert_false(ev.moved_aside);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"),
	                 CACHE_SCHEMA_VERSION);
	uint8_t k[16];
	key_n(k, 40);
	put_new(c, k, 64, NULL);
	cache_close(c);

	/* newer: refused both ways, untouched */
	raw_exec(f->path, "PRAGMA user_version = 99");
	c = NULL;
	assert_int_equal(cache_open(f->path, 0, &c, &ev, err, sizeof err),
	                 CCP_EVERSION);
	assert_null(c);
	assert_false(ev.moved_aside);
	assert_int_equal(
	        cache_open(f->path, CACHE_READONLY, &c, NULL, err, sizeof err),
	        CCP_EVERSION);
	assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 99);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plans"), 1);

	/* foreign: someone else's database */
	snprintf(path, sizeof path, "%s/other.db", f->dir);
	raw_exec(path, "CREATE TABLE notes (t TEXT); "
	               "INSERT INTO notes VALUES ('mine');");
	assert_int_equal(cache_open(path, 0, &c, &ev, err, sizeof err),
	                 CCP_EFORMAT);
	assert_false(ev.moved_aside);
	assert_non_null(strstr(err, "not a ccplan cache"));
	assert_int_equal(raw_int(path, "SELECT count(*) FROM notes"), 1);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 0);
	assert_false(raw_is_wal(path));
}

#define NPROC   8
#define NSHARED 2

/* Eight processes open one cache that does not exist yet, all at once,
 * and each puts two keys every process puts and two of its own: all
 * succeed and there is exactly one row per distinct key. */
static void test_concurrency(void **state)
{
	struct fx *f = *state;
	uint8_t shared[NSHARED][16], own[NPROC][2][16];
	uint8_t *simg[NSHARED], *oimg[NPROC][2];
	size_t slen[NSHARED], olen[NPROC][2];
	for (unsigned i = 0; i < NSHARED; i++) {
		key_n(shared[i], 500 + i);
		make_image(shared[i], 4, 1000 + i, &simg[i], &slen[i]);
	}
	for (unsigned p = 0; p < NPROC; p++)
		for (unsigned j = 0; j < 2; j++) {
			key_n(own[p][j], 600 + 2 * p + j);
			make_image(own[p][j], 4, 2000 + 2 * p + j, &oimg[p][j],
			           &olen[p][j]);
		}

	int gate[2];
	assert_int_equal(pipe(gate), 0);
	pid_t pid[NPROC];
	for (unsigned p = 0; p < NPROC; p++) {
		pid[p] = fork();
		assert_true(pid[p] >= 0);
		if (pid[p] > 0)
			continue;
		/* child: wait for the gate to open, then race */
		char ch;
		close(gate[1]);
		while (read(gate[0], &ch, 1) < 0 && errno == EINTR)
			;
		cache *c = NULL;
		char err[512];
		int rc = cache_open(f->path, 0, &c, NULL, err, sizeof err);
		if (rc) {
			fprintf(stderr, "child %u: open: %s\n", p, err);
			_exit(10);
		}
		for (unsigned j = 0; j < 4 && rc == 0; j++) {
			unsigned s = (j + p) % NSHARED;
			rc = j % 2 ? cache_put(c, own[p][j / 2], oimg[p][j / 2],
			                       olen[p][j / 2], NULL)
			           : cache_put(c, shared[s], simg[s], slen[s],
			                       NULL);
		}
		if (rc)
			fprintf(stderr, "child %u: put: %s\n", p,
			        cache_errmsg(c));
		cache_close(c);
		_exit(rc ? 11 : 0);
	}
	close(gate[0]);
	close(gate[1]); /* every child starts now */
	for (unsigned p = 0; p < NPROC; p++) {
		int status;
		assert_int_equal(waitpid(pid[p], &status, 0), pid[p]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}

	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM plans"),
	                 NSHARED + 2 * NPROC);
	assert_int_equal(
	        raw_int(f->path, "SELECT count(DISTINCT key) FROM plans"),
	        NSHARED + 2 * NPROC);
	cache *c = open_ok(f->path, 0, NULL);
	void *out;
	size_t l;
	for (unsigned i = 0; i < NSHARED; i++) {
		assert_int_equal(cache_get(c, shared[i], &out, &l, NULL), 0);
		assert_int_equal(l, slen[i]);
		assert_memory_equal(out, simg[i], l);
		free(out);
		free(simg[i]);
	}
	for (unsigned p = 0; p < NPROC; p++)
		for (unsigned j = 0; j < 2; j++) {
			assert_int_equal(
			        cache_get(c, own[p][j], &out, &l, NULL), 0);
			assert_memory_equal(out, oimg[p][j], olen[p][j]);
			free(out);
			free(oimg[p][j]);
		}
	cache_close(c);
}

/* Bad arguments are errors, not crashes. */
static void test_arguments(void **state)
{
	struct fx *f = *state;
	cache *c = NULL;
	char err[128];
	assert_int_equal(cache_open(NULL, 0, &c, NULL, err, sizeof err),
	                 CCP_EINVAL);
	assert_int_equal(cache_open("", 0, &c, NULL, err, sizeof err),
	                 CCP_EINVAL);
	assert_int_equal(cache_open(f->path, 0x80, &c, NULL, err, sizeof err),
	                 CCP_EINVAL);
	assert_int_equal(cache_open(f->path, 0, NULL, NULL, NULL, 0),
	                 CCP_EINVAL);
	assert_null(c);
	c = open_ok(f->path, 0, NULL);
	uint8_t k[16] = {0};
	void *out;
	size_t l;
	assert_int_equal(cache_get(c, NULL, &out, &l, NULL), CCP_EINVAL);
	assert_int_equal(cache_put(c, k, NULL, 0, NULL), CCP_EINVAL);
	assert_int_equal(cache_list(c, NULL, NULL), CCP_EINVAL);
	assert_int_equal(cache_get(NULL, k, &out, &l, NULL), CCP_EINVAL);
	cache_close(c);
	cache_close(NULL);
}

/* A cache on a network file system is named by its statfs magic, and a
 * path that does not exist yet is judged by its directory. */
static void test_network_fs(void **state)
{
	(void)state;
	assert_string_equal(cache_network_fs_type(0x6969), "NFS");
	assert_string_equal(cache_network_fs_type(0x0bd00bd0), "Lustre");
	assert_string_equal(cache_network_fs_type(0x47504653), "GPFS");
	assert_string_equal(cache_network_fs_type(0x19830326), "BeeGFS");
	assert_null(cache_network_fs_type(0xef53));     /* ext4 */
	assert_null(cache_network_fs_type(0x01021994)); /* tmpfs */
	assert_null(cache_network_fs(NULL));
	assert_null(cache_network_fs(""));
	/* a file yet to be made reads as its directory */
	const char *d = cache_network_fs("/");
	const char *f = cache_network_fs("/no-such-ccplan-cache.db");
	assert_true(d == f || (d && f && !strcmp(d, f)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_default_path),
	        cmocka_unit_test(test_keys),
	        cmocka_unit_test_setup_teardown(test_roundtrip, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_prefix, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_last_used, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_gc_size, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_gc_age, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_uses, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_seals, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_migrate_v2, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_corrupt_garbage, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_corrupt_truncated, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_damaged_entry, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_no_wildcard, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_drop, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_loader_same_checks, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_stored_text_escaped, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_trust, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_trust_command, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_readonly, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_schema, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_concurrency, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_arguments, setup,
	                                        teardown),
	        cmocka_unit_test(test_network_fs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
