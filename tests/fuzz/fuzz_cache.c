/*
 * fuzz_cache.c - what the plan cache (cache/cache.c) does with an entry
 * read back from SQLite: arbitrary bytes are written straight into a row
 * of a real cache (a file in the scratch directory, under /dev/shm when
 * there is one), then read with cache_get as the compiler reads it, and
 * with ccp_plan_load_cache as a runtime does.
 *
 * Input: a control byte, 16 bytes of stored values, then the blob.
 *   bit 0  the row's size column is the blob's length (else bytes 1-8)
 *   bit 1  the row's checksum is the blob's XXH3_64 (else bytes 9-16)
 *   bit 2  the blob is resealed first (fuzz_seal_plan)
 *   bit 3  the key is the input hash the image records (else a fixed key)
 *   bit 4  read through a read-only handle and the runtime's loader
 *   bit 5  the blob is stored as TEXT instead of a BLOB
 * Properties: what cache_get returns is a valid image (ir_image_check)
 * that records the key asked for as its input (no other, and not none); what it refuses as damaged is removed from a
 * read-write cache and left in place in a read-only one; nothing else
 * fails.
 */
#include <string.h>

#include <sqlite3.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cache.h"
#include "ccplan.h"
#include "codec.h"
#include "fuzz.h"
#include "le.h"

enum {
	F_TRUE_SIZE = 1,
	F_TRUE_SUM = 2,
	F_SEAL = 4,
	F_KEY_FROM_IMAGE = 8,
	F_READONLY = 16,
	F_AS_TEXT = 32,
	PREFIX = 17,       /* control byte and stored values */
	INPUT_HASH_AT = 96 /* of the image's header (docs/plan-format.md) */
};

static char db_path[4200];
static cache *rw, *ro;
static sqlite3 *raw;
static ccp_context *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[256];
	(void)argc;
	(void)argv;
	snprintf(db_path, sizeof db_path, "%s/plans.db", fuzz_scratch_dir());
	FUZZ_CHECK(cache_open(db_path, 0, &rw, NULL, err, sizeof err) == 0);
	FUZZ_CHECK(cache_open(db_path, CACHE_READONLY | CACHE_NO_CHECK, &ro,
	                      NULL, err, sizeof err) == 0);
	FUZZ_CHECK(sqlite3_open_v2(db_path, &raw, SQLITE_OPEN_READWRITE,
	                           NULL) == SQLITE_OK);
	sqlite3_busy_timeout(raw, 10000);
	FUZZ_CHECK(ccp_init(&ctx, NULL, NULL) == 0);
	return 0;
}

/* Replace every row with one holding blob under key. */
static void store(const uint8_t key[CACHE_KEY_SIZE], const uint8_t *blob,
                  size_t len, uint64_t size, uint64_t sum, bool as_text)
{
	sqlite3_stmt *st;
	int64_t s64, sum64;
	memcpy(&s64, &size, sizeof s64);
	memcpy(&sum64, &sum, sizeof sum64);
	FUZZ_CHECK(sqlite3_exec(raw, "BEGIN IMMEDIATE; DELETE FROM plans", NULL,
	                        NULL, NULL) == SQLITE_OK);
	FUZZ_CHECK(
	        sqlite3_prepare_v2(
	                raw,
	                "INSERT INTO plans (key, checksum, size, algorithm,"
	                " phases, lower_bound, predicted, created,"
	                " last_used, canonical, blob) VALUES"
	                " (?1, ?2, ?3, 'fuzz', 1, 1, NULL, 0, 0, 'text', ?4)",
	                -1, &st, NULL) == SQLITE_OK);
	sqlite3_bind_blob(st, 1, key, CACHE_KEY_SIZE, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, sum64);
	sqlite3_bind_int64(st, 3, s64);
	if (as_text)
		sqlite3_bind_text(st, 4, (const char *)blob, (int)len,
		                  SQLITE_STATIC);
	else
		sqlite3_bind_blob(st, 4, len ? (const void *)blob : "",
		                  (int)len, SQLITE_STATIC);
	FUZZ_CHECK(sqlite3_step(st) == SQLITE_DONE);
	sqlite3_finalize(st);
	FUZZ_CHECK(sqlite3_exec(raw, "COMMIT", NULL, NULL, NULL) == SQLITE_OK);
}

/* Rows stored under key now. */
static int64_t rows(const uint8_t key[CACHE_KEY_SIZE])
{
	sqlite3_stmt *st;
	FUZZ_CHECK(sqlite3_prepare_v2(
	                   raw, "SELECT count(*) FROM plans WHERE key = ?1", -1,
	                   &st, NULL) == SQLITE_OK);
	sqlite3_bind_blob(st, 1, key, CACHE_KEY_SIZE, SQLITE_STATIC);
	FUZZ_CHECK(sqlite3_step(st) == SQLITE_ROW);
	int64_t n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static int count_entry(const struct cache_meta *m, void *arg)
{
	FUZZ_CHECK(memchr(m->algorithm, 0, sizeof m->algorithm) != NULL);
	++*(int *)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t fixed_key[CACHE_KEY_SIZE] = "ccplan-fuzz-key";
	uint8_t key[CACHE_KEY_SIZE];
	if (size < PREFIX || size - PREFIX > 1 << 24)
		return 0;
	unsigned flags = data[0];
	size_t len = size - PREFIX;
	uint8_t *blob = malloc(len ? len : 1);
	FUZZ_CHECK(blob != NULL);
	memcpy(blob, data + PREFIX, len);
	if (flags & F_SEAL)
		fuzz_seal_plan(blob, len);
	memcpy(key, fixed_key, sizeof key);
	if ((flags & F_KEY_FROM_IMAGE) && len >= INPUT_HASH_AT + CACHE_KEY_SIZE)
		memcpy(key, blob + INPUT_HASH_AT, sizeof key);
	uint64_t stored_size = flags & F_TRUE_SIZE ? len : le_get_u64(data + 1);
	uint64_t stored_sum = flags & F_TRUE_SUM ? XXH3_64bits(blob, len)
	                                         : le_get_u64(data + 9);
	store(key, blob, len, stored_size, stored_sum, flags & F_AS_TEXT);

	cache *c = flags & F_READONLY ? ro : rw;
	void *got = NULL;
	size_t got_len = 0;
	struct cache_meta meta;
	int rc = cache_get(c, key, &got, &got_len, &meta);
	if (rc == 0) {
		ir_file_info fi;
		char err[256];
		FUZZ_CHECK(got != NULL && got_len == len &&
		           memcmp(got, blob, len) == 0);
		FUZZ_CHECK(ir_image_check(got, got_len, &fi, err, sizeof err) ==
		           0);
		FUZZ_CHECK(memcmp(fi.input_hash, key, sizeof key) == 0);
		FUZZ_CHECK(meta.canonical != NULL && meta.size == got_len);
		cache_meta_fini(&meta);
		free(got);
	} else {
		FUZZ_CHECK(got == NULL && got_len == 0);
		FUZZ_CHECK(cache_errmsg(c)[0] != '\0');
		FUZZ_CHECK(rc == CCP_ECHECKSUM || rc == CCP_EVERSION);
		/* damaged: removed unless read-only; a newer format: kept */
		FUZZ_CHECK(rows(key) ==
		           (rc == CCP_ECHECKSUM && c == rw ? 0 : 1));
	}
	if (flags & F_READONLY) {
		char hex[CACHE_KEY_HEX];
		ccp_plan *plan = NULL;
		cache_key_hex(key, hex);
		int lr = ccp_plan_load_cache(ctx, db_path, hex, 0, &plan);
		FUZZ_CHECK(rc != 0 ? lr == rc : (lr == 0) == (plan != NULL));
		ccp_plan_free(plan);
	}
	int n = 0;
	FUZZ_CHECK(cache_list(rw, count_entry, &n) == 0);
	FUZZ_CHECK(n == (int)rows(key));
	free(blob);
	return 0;
}
