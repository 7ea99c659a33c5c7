/*
 * cache_poke.c - damage and inspect a plan cache file with SQLite
 * directly, behind the cache's back, for tests/faults/cache_faults.sh:
 *
 *   cache_poke DB check              PRAGMA integrity_check; prints its
 *                                    verdict, the number of plans and
 *                                    of seals; exit 0 only when it is
 *                                    "ok"
 *   cache_poke DB flip KEY OFFSET    xor 0x5a into byte OFFSET of the
 *                                    blob (negative: from the end)
 *   cache_poke DB reseal KEY         store the blob's real size and
 *                                    XXH3_64 in size and checksum, so
 *                                    that only the plan's own checks
 *                                    are left to find a damaged blob
 *   cache_poke DB cut KEY N          keep the first N bytes of the blob
 *   cache_poke DB set KEY COLUMN V   set an integer column (size,
 *                                    checksum, phases, ...) to V
 *   cache_poke DB xor KEY COLUMN V   xor an integer column with V
 *   cache_poke DB rekey KEY NEWKEY   move the row to another key
 *   cache_poke DB hash KEY HASH      record the input hash HASH (32 hex
 *                                    digits) in the plan's header, every
 *                                    checksum of the plan and of the row
 *                                    made to match again
 *   cache_poke DB overflow KEY       add 16 to the bytes of the first
 *                                    receive of the plan (more than its
 *                                    buffer pieces hold), resealed: only
 *                                    verifying the plan finds it
 *   cache_poke DB text KEY COLUMN S  set algorithm or canonical to S
 *                                    (bash's $'...' writes any byte)
 *
 * KEY is a hex prefix of the row's key; exactly one row must match.
 * Exit status: 0 done, 1 check failed or no such row, 2 usage or SQLite
 * error.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fuzz.h" /* fuzz_seal_plan */
#include "le.h"

/* Where the plan keeps what the commands change (docs/plan-format.md). */
enum {
	H_INPUT_HASH = 96,
	H_INDEX = 48,
	H_NRANKS = 24,
	SEC_NOPS = 4,
	SEC_OPS = 36, /* a section's fixed part */
	OP_SIZE = 28, /* code +0, phase +4, peer +8, bytes +12 */
	OP_RECV = 1
};

static sqlite3 *db;

static int die(const char *what)
{
	fprintf(stderr, "cache_poke: %s: %s\n", what, sqlite3_errmsg(db));
	return 2;
}

/* The rowid of the one row whose hex key starts with prefix, or -1. */
static int64_t row_of(const char *prefix)
{
	sqlite3_stmt *st;
	int64_t row = -1;
	int n = 0;
	if (sqlite3_prepare_v2(db,
	                       "SELECT rowid FROM plans "
	                       "WHERE hex(key) LIKE upper(?1) || '%'",
	                       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		row = sqlite3_column_int64(st, 0);
		n++;
	}
	sqlite3_finalize(st);
	if (n != 1)
		fprintf(stderr, "cache_poke: %d rows match key %s\n", n,
		        prefix);
	return n == 1 ? row : -1;
}

/* The blob of row into a malloc'd buffer (*len bytes). */
static uint8_t *read_blob(int64_t row, size_t *len)
{
	sqlite3_stmt *st;
	uint8_t *b = NULL;
	if (sqlite3_prepare_v2(db, "SELECT blob FROM plans WHERE rowid = ?1",
	                       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, row);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*len = (size_t)sqlite3_column_bytes(st, 0);
		b = malloc(*len + 1);
		if (b && *len)
			memcpy(b, sqlite3_column_blob(st, 0), *len);
	}
	sqlite3_finalize(st);
	return b;
}

/* Run sql with ?1 = row, ?2 = the blob (len bytes) or the integer v. */
static int write_row(const char *sql, int64_t row, const uint8_t *blob,
                     size_t len, int64_t v)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return die(sql);
	sqlite3_bind_int64(st, 1, row);
	if (blob)
		sqlite3_bind_blob64(st, 2, blob, len, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 2, v);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : die(sql);
}

/* Store b (len bytes) as row's blob, its size and checksum columns made
 * to match: the cache's own checks then pass. */
static int store_sealed(int64_t row, const uint8_t *b, size_t len)
{
	uint64_t sum = XXH3_64bits(b, len);
	int64_t ssum;
	memcpy(&ssum, &sum, sizeof ssum); /* as the cache stores it */
	int rc = write_row("UPDATE plans SET blob = ?2 WHERE rowid = ?1", row,
	                   b, len, 0);
	if (rc == 0)
		rc = write_row("UPDATE plans SET size = ?2 WHERE rowid = ?1",
		               row, NULL, 0, (int64_t)len);
	if (rc == 0)
		rc = write_row("UPDATE plans SET checksum = ?2 WHERE rowid = ?1",
		               row, NULL, 0, ssum);
	return rc;
}

/* The byte offset of the first receive's bytes field in plan b (len
 * bytes), or 0 if there is none. */
static size_t first_recv_bytes(const uint8_t *b, size_t len)
{
	uint32_t nranks = le_get_u32(b + H_NRANKS);
	uint64_t index = le_get_u64(b + H_INDEX);
	for (uint32_t r = 0; r < nranks; r++) {
		uint64_t e = index + 24 * (uint64_t)r;
		if (e + 16 > len)
			return 0;
		uint64_t off = le_get_u64(b + e), size = le_get_u64(b + e + 8);
		if (off > len || size > len - off || size < SEC_OPS)
			return 0;
		uint32_t nops = le_get_u32(b + off + SEC_NOPS);
		for (uint64_t i = 0; i < nops; i++) {
			uint64_t op = off + SEC_OPS + i * OP_SIZE;
			if (op + OP_SIZE > off + size)
				return 0;
			if (le_get_u32(b + op) == OP_RECV)
				return (size_t)op + 12;
		}
	}
	return 0;
}

static int check(void)
{
	sqlite3_stmt *st;
	int bad = 0, plans = -1;
	if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) !=
	    SQLITE_OK)
		return die("integrity_check");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *r = (const char *)sqlite3_column_text(st, 0);
		printf("integrity_check: %s\n", r ? r : "?");
		bad |= !r || strcmp(r, "ok") != 0;
	}
	if (sqlite3_finalize(st) != SQLITE_OK)
		return die("integrity_check");
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM plans", -1, &st,
	                       NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		plans = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	printf("plans: %d\n", plans);
	/* a cache of schema 4 or later also says how many seals it keeps */
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM seals", -1, &st,
	                       NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		printf("seals: %d\n", sqlite3_column_int(st, 0));
	sqlite3_finalize(st);
	return bad || plans < 0 ? 1 : 0;
}

/* Whether s names an integer column a test may damage. */
static bool int_column(const char *s)
{
	static const char *const cols[] = {"size",    "checksum",  "phases",
	                                   "created", "last_used", NULL};
	for (int i = 0; cols[i]; i++)
		if (strcmp(s, cols[i]) == 0 || strcmp(s, "lower_bound") == 0)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: cache_poke DB check|flip|reseal|cut|"
		                "set|xor|rekey|hash|overflow|text [KEY ARGS]\n");
		return 2;
	}
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK)
		return die(argv[1]);
	sqlite3_busy_timeout(db, 10000);
	const char *cmd = argv[2];
	int rc = 2;
	if (strcmp(cmd, "check") == 0) {
		rc = check();
		goto out;
	}
	if (argc < 4)
		goto out;
	int64_t row = row_of(argv[3]);
	if (row < 0) {
		rc = 1;
		goto out;
	}
	size_t len = 0;
	uint8_t *b = NULL;
	if (strcmp(cmd, "flip") == 0 && argc == 5) {
		long long off = strtoll(argv[4], NULL, 10);
		if (!(b = read_blob(row, &len)) || len == 0)
			goto out;
		if (off < 0)
			off += (long long)len;
		if (off < 0 || (size_t)off >= len) {
			fprintf(stderr, "cache_poke: offset %s outside %zu\n",
			        argv[4], len);
			goto out_free;
		}
		b[off] ^= 0x5a;
		rc = write_row("UPDATE plans SET blob = ?2 WHERE rowid = ?1",
		               row, b, len, 0);
	} else if (strcmp(cmd, "cut") == 0 && argc == 5) {
		size_t keep = (size_t)strtoull(argv[4], NULL, 10);
		if (!(b = read_blob(row, &len)))
			goto out;
		rc = write_row("UPDATE plans SET blob = ?2 WHERE rowid = ?1",
		               row, b, keep < len ? keep : len, 0);
	} else if (strcmp(cmd, "reseal") == 0 && argc == 4) {
		if (!(b = read_blob(row, &len)))
			goto out;
		rc = store_sealed(row, b, len);
	} else if ((strcmp(cmd, "set") == 0 || strcmp(cmd, "xor") == 0) &&
	           argc == 6 && int_column(argv[4])) {
		char sql[160];
		const char *c = argv[4];
		if (strcmp(cmd, "set") == 0)
			snprintf(sql, sizeof sql,
			         "UPDATE plans SET %s = ?2 WHERE rowid = ?1", c);
		else /* SQLite has no ^: a xor b = (a | b) - (a & b) */
			snprintf(sql, sizeof sql,
			         "UPDATE plans SET %s = (%s | ?2) - (%s & ?2) "
			         "WHERE rowid = ?1",
			         c, c, c);
		rc = write_row(sql, row, NULL, 0,
		               (int64_t)strtoll(argv[5], NULL, 0));
	} else if (strcmp(cmd, "hash") == 0 && argc == 5 &&
	           strlen(argv[4]) == 32) {
		if (!(b = read_blob(row, &len)) || len < H_INPUT_HASH + 16)
			goto out_free;
		for (int i = 0; i < 16; i++) {
			unsigned v;
			if (sscanf(argv[4] + 2 * i, "%2x", &v) != 1)
				goto out_free;
			b[H_INPUT_HASH + i] = (uint8_t)v;
		}
		if (fuzz_seal_plan(b, len))
			rc = store_sealed(row, b, len);
	} else if (strcmp(cmd, "overflow") == 0 && argc == 4) {
		if (!(b = read_blob(row, &len)))
			goto out;
		size_t at = first_recv_bytes(b, len);
		if (at == 0) {
			fprintf(stderr, "cache_poke: the plan has no receive\n");
			goto out_free;
		}
		le_set_u64(b + at, le_get_u64(b + at) + 16);
		if (fuzz_seal_plan(b, len))
			rc = store_sealed(row, b, len);
	} else if (strcmp(cmd, "text") == 0 && argc == 6 &&
	           (strcmp(argv[4], "algorithm") == 0 ||
	            strcmp(argv[4], "canonical") == 0)) {
		char sql[96];
		sqlite3_stmt *st;
		snprintf(sql, sizeof sql,
		         "UPDATE plans SET %s = ?2 WHERE rowid = ?1", argv[4]);
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
			rc = die(sql);
			goto out;
		}
		sqlite3_bind_int64(st, 1, row);
		sqlite3_bind_text(st, 2, argv[5], -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : die(sql);
		sqlite3_finalize(st);
	} else if (strcmp(cmd, "rekey") == 0 && argc == 5 &&
	           strlen(argv[4]) == 32) {
		uint8_t k[16];
		for (int i = 0; i < 16; i++) {
			unsigned v;
			if (sscanf(argv[4] + 2 * i, "%2x", &v) != 1)
				goto out;
			k[i] = (uint8_t)v;
		}
		rc = write_row("UPDATE plans SET key = ?2 WHERE rowid = ?1",
		               row, k, sizeof k, 0);
	}
out_free:
	free(b);
out:
	if (rc == 2 && !strcmp(sqlite3_errmsg(db), "not an error"))
		fprintf(stderr, "cache_poke: bad arguments\n");
	sqlite3_close(db);
	return rc;
}
