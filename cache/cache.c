/*
 * cache.c - the plan cache (cache.h): one SQLite file in WAL mode, one
 * row per key holding a plan image and what is known of it.  Opening
 * checks the file and the schema, migrates an older schema one step at a
 * time, and moves a damaged file aside so a compile never fails for a bad
 * cache.  Every write is one BEGIN IMMEDIATE transaction, retried while
 * other writers hold the file, so processes may share the cache freely.
 * The layout and the guarantees are in docs/cache.md.
 */
#define _XOPEN_SOURCE 700 /* S_ISVTX */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cache.h"
#include "ccplan_errors.h"
#include "codec.h"

_Static_assert(CACHE_NAME_MAX == IR_NAME_MAX,
               "cache and IR algorithm names differ in size");

#define CACHE_APP_ID 0x4343504c /* PRAGMA application_id: "CCPL" */
#define ASIDE_SUFFIX ".corrupt-"

struct cache {
	sqlite3 *db;    /* the connection */
	unsigned flags; /* CACHE_* given to cache_open */
	int64_t now;    /* fixed time (cache_set_time), 0 = the clock */
	char *path;     /* the file, as given */
	dev_t dev;      /* the file the connection opened, to tell whether */
	ino_t ino;      /* another process already replaced it */
	char err[512];  /* last failure */
};

/* ---- errors and time ------------------------------------------------- */

/* Record a one-line reason on c and return code, so that failures read
 * "return fail(c, ...)". */
static int fail(cache *c, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof c->err, fmt, ap);
	va_end(ap);
	return code;
}

/* The CCP_E* code closest to a SQLite result code. */
static int sql_code(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return 0;
	case SQLITE_NOMEM:
		return CCP_ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return CCP_ETIMEDOUT;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return CCP_EFORMAT;
	case SQLITE_TOOBIG:
		return CCP_ERANGE;
	case SQLITE_MISUSE:
	case SQLITE_ERROR:
		return CCP_EINTERNAL;
	default:
		return CCP_EIO;
	}
}

/* Whether a SQLite result says the file is damaged (as opposed to busy,
 * full, unreadable...). */
static bool is_damage(int rc)
{
	return (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB;
}

/* Whether the directory of path can be written; if not, errno says
 * why. */
static bool dir_writable(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		snprintf(dir, sizeof dir, "%.*s",
		         slash == path ? 1 : (int)(slash - path), path);
	return access(dir, W_OK) == 0;
}

/* A hint for a SQLite failure rc on c that SQLite's message leaves
 * unclear, into hint (" (...)", or ""): for a file it could not open,
 * whether its directory is writable ("unable to open database file" does
 * not say that the directory, where the -wal and -shm files are made, is
 * read-only). */
static void os_hint(const cache *c, int rc, char *hint, size_t len)
{
	hint[0] = '\0';
	if ((rc & 0xff) == SQLITE_CANTOPEN && !dir_writable(c->path))
		snprintf(hint, len, " (its directory cannot be written: %s)",
		         strerror(errno));
}

/* A failed SQLite call on c: what we were doing and SQLite's message. */
static int db_fail(cache *c, int rc, const char *what)
{
	char hint[128];
	os_hint(c, rc, hint, sizeof hint);
	return fail(c, sql_code(rc), "%s: %s: %s%s", c->path, what,
	            c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc), hint);
}

/* Unix seconds: the fixed time of cache_set_time, or the clock. */
static int64_t now_s(const cache *c)
{
	return c->now ? c->now : (int64_t)time(NULL);
}

/* Milliseconds of a monotonic clock, for retry deadlines. */
static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Back off before retry number attempt: 1, 2, 4 ... 32 ms. */
static void nap(int attempt)
{
	long ms = 1L << (attempt < 5 ? attempt : 5);
	struct timespec ts = {0, ms * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* ---- statements -------------------------------------------------------- */

/* Prepare sql on c; on failure the message is on c. */
static int prepare(cache *c, const char *sql, sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(c->db, sql, -1, st, NULL);
	return rc == SQLITE_OK ? 0 : rc;
}

/* Bind a 16-byte key as parameter i.  Not copied, so that the bind
 * cannot fail for want of memory (a key left unbound reads as NULL: a
 * lookup would miss, a put break a constraint); key must stay valid
 * until the statement is stepped. */
static int bind_key(sqlite3_stmt *st, int i, const uint8_t *key)
{
	return sqlite3_bind_blob(st, i, key, CACHE_KEY_SIZE, SQLITE_STATIC);
}

/* Run one statement of no result rows (a pragma that returns one row is
 * stepped to the end too); returns a SQLite code, 0 on success. */
static int exec(cache *c, const char *sql)
{
	int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : rc;
}

/* The first column of the first row of sql as an integer in *v (0 if
 * no row); returns a SQLite code, 0 on success. */
static int query_int(cache *c, const char *sql, int64_t *v)
{
	sqlite3_stmt *st;
	int rc = prepare(c, sql, &st);
	if (rc)
		return rc;
	*v = 0;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*v = sqlite3_column_int64(st, 0);
		rc = SQLITE_DONE;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : rc;
}

/* ---- transactions ------------------------------------------------------ */

/* A transaction body: 0, a positive SQLite code (a busy one makes the
 * whole transaction run again), or a negative CCP code with the reason
 * already on c. */
typedef int (*tx_body)(cache *c, void *arg);

/* End c's open transaction, if any, without its changes; returns a
 * SQLite code, 0 on success.  The ROLLBACK can fail as well (SQLite
 * cannot allocate to parse it): the connection is then still in the
 * transaction, holding its locks, and must not be used as if it were
 * not. */
static int rollback(cache *c)
{
	if (sqlite3_get_autocommit(c->db))
		return 0;
	int rc = exec(c, "ROLLBACK");
	return rc && !sqlite3_get_autocommit(c->db) ? rc : 0;
}

/* Run body in a BEGIN IMMEDIATE transaction and commit it.  SQLite's busy
 * handler waits for the write lock; a transaction that still meets
 * SQLITE_BUSY (a stale WAL snapshot, a lock it cannot wait for) is rolled
 * back and run again until CACHE_BUSY_TIMEOUT_MS have passed.  what names
 * the operation in messages. */
static int in_tx(cache *c, tx_body body, void *arg, const char *what)
{
	int64_t deadline = mono_ms() + CACHE_BUSY_TIMEOUT_MS;
	char msg[256];
	for (int attempt = 0;; attempt++) {
		/* a transaction an earlier failure left open ends first */
		int rc = rollback(c);
		if (rc == 0)
			rc = exec(c, "BEGIN IMMEDIATE");
		if (rc == 0) {
			rc = body(c, arg);
			if (rc == 0)
				rc = exec(c, "COMMIT");
		}
		if (rc == 0)
			return 0;
		if (rc > 0) {
			char hint[128];
			os_hint(c, rc, hint, sizeof hint);
			snprintf(msg, sizeof msg, "%s%s", sqlite3_errmsg(c->db),
			         hint);
		}
		int rb = rollback(c);
		if (rb)
			return db_fail(c, rb, what);
		if (rc < 0)
			return rc;
		if ((rc & 0xff) == SQLITE_BUSY && mono_ms() < deadline) {
			nap(attempt);
			continue;
		}
		if ((rc & 0xff) == SQLITE_BUSY)
			return fail(c, CCP_ETIMEDOUT,
			            "%s: %s: other writers held the cache for "
			            "%d ms",
			            c->path, what, CACHE_BUSY_TIMEOUT_MS);
		return fail(c, sql_code(rc), "%s: %s: %s", c->path, what, msg);
	}
}

/* ---- schema ------------------------------------------------------------ */

/* The steps from version `from` to from + 1, in order; migrations[i].from
 * is i.  A new schema version appends one step and bumps
 * CACHE_SCHEMA_VERSION.  Columns read for listing come first and the large
 * ones last, so that a list never reads a plan image. */
static const struct migration {
	int from;
	const char *sql;
} migrations[] = {
        {0, "CREATE TABLE plans ("
            " key BLOB PRIMARY KEY NOT NULL"
            "  CHECK (typeof(key) = 'blob' AND length(key) = 16),"
            " checksum INTEGER NOT NULL,"
            " size INTEGER NOT NULL,"
            " algorithm TEXT NOT NULL,"
            " phases INTEGER NOT NULL,"
            " lower_bound INTEGER NOT NULL,"
            " predicted REAL,"
            " created INTEGER NOT NULL,"
            " last_used INTEGER NOT NULL,"
            " canonical TEXT NOT NULL,"
            " blob BLOB NOT NULL);"
            "CREATE INDEX plans_last_used ON plans (last_used);"},
        /* 2: the plan names of `ccplan scan` (docs/scan.md) */
        {1, "CREATE TABLE names ("
            " name TEXT PRIMARY KEY NOT NULL"
            "  CHECK (typeof(name) = 'text' AND length(name) > 0),"
            " key BLOB NOT NULL"
            "  CHECK (typeof(key) = 'blob' AND length(key) = 16),"
            " yaml TEXT NOT NULL,"
            " created INTEGER NOT NULL);"},
        /* 3: the use time a get records, in a row of its own: updating
         * a column of a plans row makes SQLite read and rebuild the
         * whole row, image and all (for a plan of 18 MB, as long as
         * compiling it) */
        {2, "CREATE TABLE uses ("
            " key BLOB PRIMARY KEY NOT NULL"
            "  CHECK (typeof(key) = 'blob' AND length(key) = 16),"
            " last_used INTEGER NOT NULL) WITHOUT ROWID;"},
        /* 4: seals, a caller's proof that it checked an image (a MAC
         * under a key of its own), one per key and signer, out of the
         * plans row for the reason uses is */
        {3, "CREATE TABLE seals ("
            " key BLOB NOT NULL"
            "  CHECK (typeof(key) = 'blob' AND length(key) = 16),"
            " signer BLOB NOT NULL CHECK (typeof(signer) = 'blob'),"
            " seal BLOB NOT NULL CHECK (typeof(seal) = 'blob'),"
            " PRIMARY KEY (key, signer)) WITHOUT ROWID;"},
};

/* The last use of a plans row p: its put, or a later get recorded in the
 * uses row u joined to it (FROM_PLANS). */
#define USED       "max(p.last_used, coalesce(u.last_used, 0))"
#define FROM_PLANS "plans p LEFT JOIN uses u ON u.key = p.key"
/* uses rows whose plan is gone */
#define DROP_STALE_USES                                                        \
	"DELETE FROM uses WHERE key NOT IN (SELECT key FROM plans);"           \
	"DELETE FROM seals WHERE key NOT IN (SELECT key FROM plans)"
_Static_assert(sizeof migrations / sizeof migrations[0] == CACHE_SCHEMA_VERSION,
               "one migration step per schema version");

/* What inspect found. */
enum state {
	ST_OK,      /* our schema at version *version (maybe older) */
	ST_EMPTY,   /* a database with nothing in it: to be created */
	ST_DAMAGED, /* unreadable or failing its check; why says how */
	ST_FOREIGN, /* a SQLite database that is not a ccplan cache */
	ST_NEWER    /* our schema at a version newer than this code's */
};

/* inspect, within the read transaction it opens. */
static int inspect_tx(cache *c, enum state *st, int *version, char *why,
                      size_t whylen)
{
	int64_t app, ver, ntables, nplans, nnames, nuses, nseals;
	int rc;
	why[0] = '\0';
	if ((rc = query_int(c, "PRAGMA application_id", &app)) != 0 ||
	    (rc = query_int(c, "PRAGMA user_version", &ver)) != 0 ||
	    (rc = query_int(c,
	                    "SELECT count(*) FROM sqlite_master "
	                    "WHERE name NOT GLOB 'sqlite_*'",
	                    &ntables)) != 0 ||
	    (rc = query_int(c,
	                    "SELECT count(*) FROM sqlite_master "
	                    "WHERE type = 'table' AND name = 'plans'",
	                    &nplans)) != 0 ||
	    (rc = query_int(c,
	                    "SELECT count(*) FROM sqlite_master "
	                    "WHERE type = 'table' AND name = 'names'",
	                    &nnames)) != 0 ||
	    (rc = query_int(c,
	                    "SELECT count(*) FROM sqlite_master "
	                    "WHERE type = 'table' AND name = 'uses'",
	                    &nuses)) != 0 ||
	    (rc = query_int(c,
	                    "SELECT count(*) FROM sqlite_master "
	                    "WHERE type = 'table' AND name = 'seals'",
	                    &nseals)) != 0) {
		if (!is_damage(rc))
			return db_fail(c, rc, "reading the schema");
		snprintf(why, whylen, "%s", sqlite3_errmsg(c->db));
		*st = ST_DAMAGED;
		return 0;
	}
	*version = (int)ver;
	if (app != CACHE_APP_ID) {
		*st = app == 0 && ver == 0 && ntables == 0 ? ST_EMPTY
		                                           : ST_FOREIGN;
		if (*st == ST_FOREIGN)
			return 0;
	} else if (ver > CACHE_SCHEMA_VERSION) {
		*st = ST_NEWER;
		return 0;
	} else if (ver < 1 || nplans != 1 || (ver >= 2 && nnames != 1) ||
	           (ver >= 3 && nuses != 1) || (ver >= 4 && nseals != 1)) {
		snprintf(why, whylen, "schema version %d without its tables",
		         (int)ver);
		*st = ST_DAMAGED;
		return 0;
	} else {
		*st = ST_OK;
	}
	if (c->flags & CACHE_NO_CHECK)
		return 0;
	sqlite3_stmt *q;
	if ((rc = prepare(c, "PRAGMA quick_check", &q)) != 0)
		goto out_rc;
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		const char *r = (const char *)sqlite3_column_text(q, 0);
		if (!r || strcmp(r, "ok") != 0) {
			snprintf(why, whylen, "quick_check: %s", r ? r : "?");
			*st = ST_DAMAGED;
		}
		rc = 0;
	}
	sqlite3_finalize(q);
out_rc:
	if (rc == 0 || rc == SQLITE_DONE)
		return 0;
	if (!is_damage(rc))
		return db_fail(c, rc, "checking the file");
	snprintf(why, whylen, "%s", sqlite3_errmsg(c->db));
	*st = ST_DAMAGED;
	return 0;
}

/* Look at the opened file: its application id, schema version and
 * tables, and (unless CACHE_NO_CHECK) PRAGMA quick_check, all in one read
 * transaction so that a cache another process is creating is seen before
 * or after, never half made.  A negative return is a failure that says
 * nothing about the file (CCP code, message on c); otherwise *st says
 * what the file is. */
static int inspect(cache *c, enum state *st, int *version, char *why,
                   size_t whylen)
{
	int rc = exec(c, "BEGIN");
	if (rc)
		return db_fail(c, rc, "reading the schema");
	rc = inspect_tx(c, st, version, why, whylen);
	int rb = rollback(c);
	if (rb && rc >= 0)
		return db_fail(c, rb, "reading the schema");
	return rc;
}

struct migrate_arg {
	struct cache_event *ev;
};

/* Transaction body: bring the schema to CACHE_SCHEMA_VERSION, re-reading
 * the version under the write lock since another process may have done
 * it meanwhile. */
static int migrate_tx(cache *c, void *arg)
{
	struct migrate_arg *a = arg;
	int64_t app, ver, ntables;
	int rc;
	if (a->ev)
		a->ev->migrated = false; /* a retry may find it done */
	if ((rc = query_int(c, "PRAGMA application_id", &app)) != 0 ||
	    (rc = query_int(c, "PRAGMA user_version", &ver)) != 0 ||
	    (rc = query_int(c,
	                    "SELECT count(*) FROM sqlite_master "
	                    "WHERE name NOT GLOB 'sqlite_*'",
	                    &ntables)) != 0)
		return rc;
	if (app == CACHE_APP_ID && ver == CACHE_SCHEMA_VERSION)
		return 0;
	if (app != CACHE_APP_ID && !(app == 0 && ver == 0 && ntables == 0))
		return fail(c, CCP_EFORMAT,
		            "%s: a SQLite database but not a ccplan cache",
		            c->path);
	if (ver < 0 || ver > CACHE_SCHEMA_VERSION)
		return fail(c, CCP_EVERSION,
		            "%s: cache schema version %lld is newer than this "
		            "code (%d)",
		            c->path, (long long)ver, CACHE_SCHEMA_VERSION);
	for (int64_t v = ver; v < CACHE_SCHEMA_VERSION; v++) {
		if (migrations[v].from != v)
			return fail(c, CCP_EINTERNAL,
			            "migration table out of order at %lld",
			            (long long)v);
		if ((rc = exec(c, migrations[v].sql)) != 0)
			return rc;
	}
	char sql[96];
	snprintf(sql, sizeof sql,
	         "PRAGMA application_id = %d; PRAGMA user_version = %d",
	         CACHE_APP_ID, CACHE_SCHEMA_VERSION);
	if ((rc = exec(c, sql)) != 0)
		return rc;
	if (a->ev) {
		a->ev->migrated = true;
		a->ev->from_version = (int)ver;
	}
	return 0;
}

/* ---- trust: who could have written the file ---------------------------- *
 *
 * A cache hands out plans that programs run, so a file someone else could
 * have written is refused, as git refuses a repository another user owns
 * (safe.directory) and OpenSSH files others can write (StrictModes):
 * the file, its -wal and -shm companions and every directory on the way
 * to it must be owned by the user or root (root: by root), and none may be
 * writable by group or others.  A directory on the way may be writable by
 * others if it is sticky (/tmp): nobody else can rename what is in it.
 * The file's own directory may not, sticky or not: anyone could make the
 * -wal or -shm file SQLite reads there before the user does.  Symbolic
 * links are followed one by one, each owned by the user or root, so the
 * path checked is the path opened.  CCPLAN_CACHE_TRUST (CACHE_TRUST_ENV)
 * lifts all of this for the caches it names, on purpose. */

#define MAX_LINKS 40 /* as the kernel's ELOOP limit */

/* Whether a file of this owner may hold or lead to our cache. */
static bool owner_ok(uid_t uid)
{
	return uid == geteuid() || uid == 0;
}

/* Whether gid is the user's private group (the "user private group"
 * scheme of Debian and others, where each user has a group of their own
 * and umask 002 makes files group-writable): the user's primary group,
 * named as the user, with no other member.  Writable by that group is
 * writable by the user alone, as Debian's OpenSSH takes it. */
static bool private_group(gid_t gid)
{
	struct passwd *pw = getpwuid(geteuid());
	if (!pw || !pw->pw_name || pw->pw_gid != gid)
		return false;
	char user[256];
	snprintf(user, sizeof user, "%s", pw->pw_name);
	struct group *gr = getgrgid(gid);
	if (!gr || !gr->gr_name || strcmp(gr->gr_name, user) != 0)
		return false;
	for (char **m = gr->gr_mem; m && *m; m++)
		if (strcmp(*m, user) != 0)
			return false;
	return true;
}

/* "name, uid N" of a user, into buf. */
static void user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(uid);
	if (pw && pw->pw_name)
		snprintf(buf, len, "%s, uid %ld", pw->pw_name, (long)uid);
	else
		snprintf(buf, len, "uid %ld", (long)uid);
}

/* Whether two paths name the same existing file. */
static bool same_file(const char *a, const char *b)
{
	struct stat x, y;
	return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}

/* Whether CACHE_TRUST_ENV trusts the cache at path: "*", or a
 * colon-separated list one of whose entries is path, or names the same
 * file. */
static bool trusted(const char *path)
{
	const char *env = getenv(CACHE_TRUST_ENV);
	if (!env || !env[0])
		return false;
	if (strcmp(env, "*") == 0)
		return true;
	char item[PATH_MAX];
	for (const char *p = env; *p;) {
		size_t n = strcspn(p, ":");
		if (n > 0 && n < sizeof item) {
			memcpy(item, p, n);
			item[n] = '\0';
			if (strcmp(item, path) == 0 || same_file(item, path))
				return true;
		}
		p += n;
		if (*p == ':')
			p++;
	}
	return false;
}

/* Refuse the cache of c (abs: its absolute path) because of what (a file
 * or directory on the way, described by why); the message says how to
 * allow it on purpose. */
static int untrusted(cache *c, const char *abs, const char *what,
                     const char *why)
{
	return fail(c, CCP_EINVAL,
	            "refusing the plan cache: %s %s; if you trust it, set "
	            "%s=%s (or '*' for any cache; docs/cache.md)",
	            what, why, CACHE_TRUST_ENV, abs);
}

/* Check one file met on the way (lstat sb): its owner, and that group
 * and others cannot write it (a directory: unless sticky, and never the
 * cache's own directory, strict).  Symbolic links have no mode that
 * counts. */
static int check_one(cache *c, const char *abs, const char *name,
                     const struct stat *sb, bool strict)
{
	char who[128], why[512];
	if (!owner_ok(sb->st_uid)) {
		char me[128];
		user_name(sb->st_uid, who, sizeof who);
		user_name(geteuid(), me, sizeof me);
		snprintf(why, sizeof why, "is owned by %s, not by you (%s)%s",
		         who, me, geteuid() == 0 ? "" : " or root");
		return untrusted(c, abs, name, why);
	}
	mode_t w = sb->st_mode & (S_IWGRP | S_IWOTH);
	if ((w & S_IWGRP) && !(w & S_IWOTH) && private_group(sb->st_gid))
		w = 0;
	if (S_ISLNK(sb->st_mode) || !w)
		return 0;
	if (S_ISDIR(sb->st_mode) && (sb->st_mode & S_ISVTX) && !strict)
		return 0;
	if (S_ISDIR(sb->st_mode) && strict)
		snprintf(
		        why, sizeof why,
		        "is the cache's directory and can be written by "
		        "%s (mode %04o): they could put the cache, or the "
		        "-wal and -shm files SQLite reads with it, there; keep "
		        "the cache in a directory only you can write, or run "
		        "chmod go-w '%s'",
		        sb->st_mode & S_IWOTH ? "others" : "its group",
		        (unsigned)(sb->st_mode & 07777), name);
	else
		snprintf(
		        why, sizeof why,
		        "can be written by %s (mode %04o); run chmod go-w '%s'",
		        sb->st_mode & S_IWOTH ? "others" : "its group",
		        (unsigned)(sb->st_mode & 07777), name);
	return untrusted(c, abs, name, why);
}

/* The companions SQLite keeps next to the file real (resolved): each
 * that exists must be a regular file passing check_one. */
static int check_companions(cache *c, const char *abs, const char *real)
{
	static const char *const suffix[] = {"-wal", "-shm", "-journal"};
	char name[PATH_MAX + 16];
	for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
		struct stat sb;
		snprintf(name, sizeof name, "%s%s", real, suffix[i]);
		if (lstat(name, &sb) != 0) {
			if (errno == ENOENT)
				continue;
			return fail(c, CCP_EIO, "%s: %s", name,
			            strerror(errno));
		}
		if (!S_ISREG(sb.st_mode))
			return untrusted(c, abs, name, "is not a regular file");
		int rc = check_one(c, abs, name, &sb, false);
		if (rc)
			return rc;
	}
	return 0;
}

/* The buffers of walk_path. */
struct walk {
	char rest[2 * PATH_MAX + 2]; /* what is left to walk */
	char cur[PATH_MAX];          /* where the walk is, resolved */
	char next[PATH_MAX];         /* the component being looked at */
	char tmp[2 * PATH_MAX + 2];  /* a link's target and what follows */
	char target[PATH_MAX];       /* a link's target */
	char abs[2 * PATH_MAX + 2];  /* the path as given, made absolute */
};

static int walk_path(cache *c, struct walk *w);

/* Whether the cache of c may be used: trusted (CACHE_TRUST_ENV), or
 * passing walk_path, whose buffers are on the heap rather than the stack
 * of whatever thread of an application opens the cache. */
static int check_trust(cache *c)
{
	if (trusted(c->path))
		return 0;
	struct walk *w = malloc(sizeof *w);
	if (!w)
		return fail(c, CCP_ENOMEM, "out of memory");
	int rc = walk_path(c, w);
	free(w);
	return rc;
}

/* Walk the path of c from the root, component by component, following
 * symbolic links by hand, and check every directory, link and the file
 * itself (check_one), then its companions.  A part that does not exist
 * yet ends the walk: what a read-write open makes there is its own (0700
 * directories, a file SQLite makes 0644). */
static int walk_path(cache *c, struct walk *w)
{
	char *rest = w->rest, *cur = w->cur, *next = w->next, *tmp = w->tmp;
	char *target = w->target, *abs = w->abs;
	struct stat sb;
	int links = 0;
	if (c->path[0] == '/') {
		snprintf(rest, sizeof w->rest, "%s", c->path);
	} else {
		if (!getcwd(cur, sizeof w->cur))
			return fail(c, CCP_EIO, "%s: the current directory: %s",
			            c->path, strerror(errno));
		if (snprintf(rest, sizeof w->rest, "%s/%s", cur, c->path) >=
		    (int)sizeof w->rest)
			return fail(c, CCP_ERANGE, "%s: path too long",
			            c->path);
	}
	memcpy(abs, rest, sizeof w->abs);
	cur[0] = '\0'; /* "" is the root */
	if (lstat("/", &sb) != 0)
		return fail(c, CCP_EIO, "/: %s", strerror(errno));
	int rc = check_one(c, abs, "/", &sb, false);
	char *p = rest;
	while (rc == 0) {
		while (*p == '/')
			p++;
		if (!*p)
			return 0; /* the path names a directory: SQLite says */
		size_t n = strcspn(p, "/");
		char *rest = p + n;
		while (*rest == '/')
			rest++;
		bool last = *rest == '\0';
		if ((n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			if (n == 2) {
				char *slash = strrchr(cur, '/');
				if (slash)
					*slash = '\0';
			}
			p = rest;
			continue;
		}
		size_t at = strlen(cur);
		if (at + 1 + n >= sizeof w->next)
			return fail(c, CCP_ERANGE, "%s: path too long",
			            c->path);
		memcpy(next, cur, at);
		next[at] = '/';
		memcpy(next + at + 1, p, n);
		next[at + 1 + n] = '\0';
		if (lstat(next, &sb) != 0) {
			if (errno == ENOENT)
				return 0; /* made by us, or not found later */
			return fail(c, CCP_EIO, "%s: %s", next,
			            strerror(errno));
		}
		if (S_ISLNK(sb.st_mode)) {
			if ((rc = check_one(c, abs, next, &sb, false)) != 0)
				break;
			ssize_t t =
			        readlink(next, target, sizeof w->target - 1);
			if (t < 0 || ++links > MAX_LINKS)
				return fail(c, CCP_EIO, "%s: %s", next,
				            t < 0 ? strerror(errno)
				                  : "too many symbolic links");
			target[t] = '\0';
			if (snprintf(tmp, sizeof w->tmp, "%s/%s", target,
			             rest) >= (int)sizeof w->tmp)
				return fail(c, CCP_ERANGE, "%s: path too long",
				            c->path);
			memcpy(rest, tmp, sizeof w->rest);
			p = rest;
			if (target[0] == '/')
				cur[0] = '\0';
			continue;
		}
		if (!last) {
			if (!S_ISDIR(sb.st_mode))
				return 0; /* not a directory: SQLite says */
			rc = check_one(c, abs, next, &sb, false);
			memcpy(cur, next, sizeof w->cur);
			p = rest;
			continue;
		}
		/* the file: its directory strictly, then it, then its
		 * companions */
		struct stat dir;
		const char *dname = cur[0] ? cur : "/";
		if (lstat(dname, &dir) != 0)
			return fail(c, CCP_EIO, "%s: %s", dname,
			            strerror(errno));
		if ((rc = check_one(c, abs, dname, &dir, true)) != 0 ||
		    (rc = check_one(c, abs, next, &sb, false)) != 0)
			break;
		return check_companions(c, abs, next);
	}
	return rc;
}

/* ---- opening ------------------------------------------------------------ */

/* Make the directories above path (borrowed) that are missing, 0700. */
static int make_parents(cache *c, const char *path)
{
	char *d = strdup(path);
	if (!d)
		return fail(c, CCP_ENOMEM, "out of memory");
	char *slash = strrchr(d, '/');
	int rc = 0;
	if (slash && slash != d) {
		*slash = '\0';
		for (char *p = d + 1;; p++) {
			bool end = *p == '\0';
			if (*p != '/' && !end)
				continue;
			*p = '\0';
			if (mkdir(d, 0700) != 0 && errno != EEXIST) {
				rc = fail(c, CCP_EIO, "%s: cannot create: %s",
				          d, strerror(errno));
				break;
			}
			if (end)
				break;
			*p = '/';
		}
	}
	free(d);
	return rc;
}

/* Open the connection of c on its path (or name, a URI with
 * SQLITE_OPEN_URI) with SQLite flags oflags and the busy timeout;
 * remember which file it is. */
static int db_connect_as(cache *c, const char *name, int oflags)
{
	int rc = sqlite3_open_v2(name, &c->db, oflags, NULL);
	if (rc != SQLITE_OK) {
		int code = db_fail(c, rc, "cannot open");
		sqlite3_close(c->db);
		c->db = NULL;
		return code;
	}
	sqlite3_extended_result_codes(c->db, 1);
	sqlite3_busy_timeout(c->db, CACHE_BUSY_TIMEOUT_MS);
	struct stat sb;
	if (stat(c->path, &sb) == 0) {
		c->dev = sb.st_dev;
		c->ino = sb.st_ino;
	}
	return 0;
}

static int db_connect(cache *c, int oflags)
{
	return db_connect_as(c, c->path, oflags);
}

static void disconnect(cache *c)
{
	sqlite3_close(c->db);
	c->db = NULL;
}

/* Whether a read-only open of c that failed with CCP_EIO may have failed
 * only because SQLite cannot make the -shm file a reader of a WAL-mode
 * file needs: the directory cannot be written (a read-only mount, another
 * user's directory) and there is no -wal file, so the file itself holds
 * every committed transaction and can be read as immutable. */
static bool needs_immutable(cache *c)
{
	size_t n = strlen(c->path) + 5;
	char *wal = malloc(n);
	if (!wal)
		return false;
	snprintf(wal, n, "%s-wal", c->path);
	struct stat sb;
	bool has_wal = stat(wal, &sb) == 0 || errno != ENOENT;
	free(wal);
	return !has_wal && !dir_writable(c->path);
}

/* Connect c read-only to its file as immutable (URI file:PATH?immutable=1,
 * the path percent-encoded): no locks, no -wal, no -shm. */
static int db_connect_immutable(cache *c)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(c->path);
	char *uri = malloc(3 * n + 32);
	if (!uri)
		return fail(c, CCP_ENOMEM, "out of memory");
	char *q = uri + sprintf(uri, "file:");
	for (const unsigned char *s = (const unsigned char *)c->path; *s;
	     s++) {
		if (*s == '%' || *s == '?' || *s == '#' || *s < 0x21 ||
		    *s > 0x7e) {
			*q++ = '%';
			*q++ = hex[*s >> 4];
			*q++ = hex[*s & 15];
		} else {
			*q++ = (char)*s;
		}
	}
	strcpy(q, "?immutable=1");
	int rc = db_connect_as(c, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
	free(uri);
	return rc;
}

/* Rename from + suffix to to + suffix if it exists; a stale -wal must not
 * be applied to the new file, so one that cannot be moved is removed. */
static int move_companion(cache *c, const char *from, const char *to,
                          const char *suffix)
{
	size_t nf = strlen(from) + strlen(suffix) + 1;
	size_t nt = strlen(to) + strlen(suffix) + 1;
	char *f = malloc(nf), *t = malloc(nt);
	int rc = 0;
	if (!f || !t) {
		rc = fail(c, CCP_ENOMEM, "out of memory");
		goto out_free;
	}
	snprintf(f, nf, "%s%s", from, suffix);
	snprintf(t, nt, "%s%s", to, suffix);
	if (rename(f, t) != 0 && errno != ENOENT && unlink(f) != 0 &&
	    errno != ENOENT)
		rc = fail(c, CCP_EIO, "%s: cannot move aside: %s", f,
		          strerror(errno));
out_free:
	free(f);
	free(t);
	return rc;
}

/* Rename the damaged file of c (closed) and its -wal and -shm to
 * PATH.corrupt-<unix time>[-N], and say so in ev.  If the file at the
 * path is no longer the one we found damaged, another process has already
 * done this, and there is nothing to move. */
static int move_aside(cache *c, const char *why, struct cache_event *ev)
{
	struct stat sb;
	if (stat(c->path, &sb) != 0 || sb.st_dev != c->dev ||
	    sb.st_ino != c->ino)
		return 0;
	size_t n = strlen(c->path) + sizeof ASIDE_SUFFIX + 48;
	char *to = malloc(n);
	if (!to)
		return fail(c, CCP_ENOMEM, "out of memory");
	long long t = (long long)time(NULL);
	snprintf(to, n, "%s%s%lld", c->path, ASIDE_SUFFIX, t);
	for (int k = 1; k < 1000 && lstat(to, &sb) == 0; k++)
		snprintf(to, n, "%s%s%lld-%d", c->path, ASIDE_SUFFIX, t, k);
	int rc = 0;
	if (rename(c->path, to) != 0) {
		rc = fail(c, CCP_EIO,
		          "%s: damaged (%s) and cannot be moved "
		          "aside: %s",
		          c->path, why, strerror(errno));
		goto out_free;
	}
	if ((rc = move_companion(c, c->path, to, "-wal")) != 0 ||
	    (rc = move_companion(c, c->path, to, "-shm")) != 0)
		goto out_free;
	if (ev) {
		ev->moved_aside = true;
		snprintf(ev->aside, sizeof ev->aside, "%s", to);
		snprintf(ev->reason, sizeof ev->reason, "%s", why);
	}
out_free:
	free(to);
	return rc;
}

/* Run a pragma that may need the write lock (setting auto_vacuum or WAL
 * mode), retried like a transaction while other processes hold it. */
static int exec_retry(cache *c, const char *sql)
{
	int64_t deadline = mono_ms() + CACHE_BUSY_TIMEOUT_MS;
	for (int attempt = 0;; attempt++) {
		int rc = exec(c, sql);
		if ((rc & 0xff) != SQLITE_BUSY || mono_ms() >= deadline)
			return rc;
		nap(attempt);
	}
}

/* Put a cache (empty: a file with nothing in it yet) in the modes it
 * is used in: incremental auto_vacuum, which only takes on a file with no
 * tables and before WAL mode writes the first page; WAL; and syncing at
 * checkpoints only.  A file system without shared memory leaves the file
 * in its old journal mode, which still works, one writer at a time. */
static int setup(cache *c, bool empty)
{
	int rc = 0;
	if (empty)
		rc = exec_retry(c, "PRAGMA auto_vacuum = INCREMENTAL");
	if (rc == 0)
		rc = exec_retry(c, "PRAGMA journal_mode = WAL");
	if (rc == 0)
		rc = exec(c, "PRAGMA synchronous = NORMAL");
	return rc;
}

/* Read-write open: connect (creating the file), look at the file before
 * changing anything, move it aside and start again once if it is
 * damaged, then set it up and migrate. */
static int open_rw(cache *c, struct cache_event *ev)
{
	/* checked before anything is made on the way, and again after, as
	 * another user may have made a missing part meanwhile */
	int rc = check_trust(c);
	if (rc == 0)
		rc = make_parents(c, c->path);
	if (rc == 0)
		rc = check_trust(c);
	if (rc)
		return rc;
	for (int pass = 0; pass < 2; pass++) {
		enum state st;
		int version = 0;
		char why[256] = "";
		rc = db_connect(c, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
		if (rc)
			return rc;
		if ((rc = inspect(c, &st, &version, why, sizeof why)) != 0)
			return rc;
		if (st == ST_OK || st == ST_EMPTY) {
			int sr = setup(c, st == ST_EMPTY);
			if (sr != 0 && !is_damage(sr))
				return db_fail(c, sr, "setting up");
			if (sr != 0) {
				snprintf(why, sizeof why, "%s",
				         sqlite3_errmsg(c->db));
				st = ST_DAMAGED;
			}
		}
		switch (st) {
		case ST_FOREIGN:
			return fail(c, CCP_EFORMAT,
			            "%s: a SQLite database but not a ccplan "
			            "cache; left alone",
			            c->path);
		case ST_NEWER:
			return fail(c, CCP_EVERSION,
			            "%s: cache schema version %d is newer than "
			            "this code (%d); left alone",
			            c->path, version, CACHE_SCHEMA_VERSION);
		case ST_DAMAGED:
			disconnect(c);
			if (pass == 1)
				return fail(
				        c, CCP_EIO,
				        "%s: a new cache is damaged too: %s",
				        c->path, why);
			if ((rc = move_aside(c, why, ev)) != 0)
				return rc;
			continue;
		case ST_EMPTY:
		case ST_OK:
			break;
		}
		if (st == ST_OK && version == CACHE_SCHEMA_VERSION)
			return 0;
		struct migrate_arg a = {ev};
		return in_tx(c, migrate_tx, &a, "creating the schema");
	}
	return fail(c, CCP_EINTERNAL, "%s: cannot open", c->path);
}

/* Read-only open: the file must exist and be a readable cache of this
 * schema version; nothing is written. */
static int open_ro(cache *c)
{
	struct stat sb;
	if (stat(c->path, &sb) != 0)
		return fail(c, errno == ENOENT ? CCP_ENOTFOUND : CCP_EIO,
		            "%s: %s", c->path, strerror(errno));
	int rc = check_trust(c);
	if (rc)
		return rc;
	rc = db_connect(c, SQLITE_OPEN_READONLY);
	if (rc)
		return rc;
	enum state st;
	int version = 0;
	char why[256];
	rc = inspect(c, &st, &version, why, sizeof why);
	if (rc == CCP_EIO && needs_immutable(c)) {
		disconnect(c);
		if ((rc = db_connect_immutable(c)) != 0)
			return rc;
		rc = inspect(c, &st, &version, why, sizeof why);
	}
	if (rc)
		return rc;
	switch (st) {
	case ST_OK:
		if (version == CACHE_SCHEMA_VERSION)
			return 0;
		return fail(c, CCP_EVERSION,
		            "%s: cache schema version %d is older than this "
		            "code's (%d); open it read-write once to upgrade",
		            c->path, version, CACHE_SCHEMA_VERSION);
	case ST_NEWER:
		return fail(c, CCP_EVERSION,
		            "%s: cache schema version %d is newer than this "
		            "code (%d)",
		            c->path, version, CACHE_SCHEMA_VERSION);
	case ST_EMPTY:
		return fail(c, CCP_EFORMAT,
		            "%s: an empty database, not a cache", c->path);
	case ST_FOREIGN:
		return fail(c, CCP_EFORMAT,
		            "%s: a SQLite database but not a ccplan cache",
		            c->path);
	case ST_DAMAGED:
		break;
	}
	return fail(c, CCP_EFORMAT, "%s: damaged cache: %s", c->path, why);
}

int cache_open(const char *path, unsigned flags, cache **out,
               struct cache_event *ev, char *err, size_t errlen)
{
	if (ev)
		memset(ev, 0, sizeof *ev);
	if (err && errlen)
		err[0] = '\0';
	if (!out)
		return CCP_EINVAL;
	*out = NULL;
	if (!path || !path[0] || (flags & ~(CACHE_READONLY | CACHE_NO_CHECK))) {
		if (err && errlen)
			snprintf(err, errlen, "cache_open: %s",
			         !path || !path[0] ? "no path"
			                           : "unknown flags");
		return CCP_EINVAL;
	}
	cache *c = calloc(1, sizeof *c);
	if (!c || !(c->path = strdup(path))) {
		free(c);
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", path);
		return CCP_ENOMEM;
	}
	c->flags = flags;
	int rc = flags & CACHE_READONLY ? open_ro(c) : open_rw(c, ev);
	if (rc) {
		if (err && errlen)
			snprintf(err, errlen, "%s", c->err);
		cache_close(c);
		return rc;
	}
	c->err[0] = '\0';
	*out = c;
	return 0;
}

void cache_close(cache *c)
{
	if (!c)
		return;
	sqlite3_close(c->db);
	free(c->path);
	free(c);
}

const char *cache_errmsg(const cache *c)
{
	return c ? c->err : "no cache";
}

void cache_set_time(cache *c, int64_t now)
{
	if (c)
		c->now = now;
}

int cache_default_path(char *buf, size_t len)
{
	const char *env = getenv("CCPLAN_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;
	if (!buf || !len)
		return CCP_EINVAL;
	if (env && env[0])
		n = snprintf(buf, len, "%s", env);
	else if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/ccplan/plans.db", xdg);
	else if (home && home[0])
		n = snprintf(buf, len, "%s/.cache/ccplan/plans.db", home);
	else
		return CCP_ENOTFOUND;
	return n < 0 || (size_t)n >= len ? CCP_ERANGE : 0;
}

/* ---- keys -------------------------------------------------------------- */

void cache_key_hex(const uint8_t key[CACHE_KEY_SIZE], char out[CACHE_KEY_HEX])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < CACHE_KEY_SIZE; i++) {
		out[2 * i] = digits[key[i] >> 4];
		out[2 * i + 1] = digits[key[i] & 0xf];
	}
	out[2 * CACHE_KEY_SIZE] = '\0';
}

/* Value of one hex digit, or -1. */
static int hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* The lowest and highest keys starting with the hex digits s (1 to 32 of
 * them); false if s is not such a prefix. */
static bool prefix_range(const char *s, uint8_t lo[CACHE_KEY_SIZE],
                         uint8_t hi[CACHE_KEY_SIZE])
{
	size_t n = strlen(s);
	if (n < 1 || n > 2 * CACHE_KEY_SIZE)
		return false;
	memset(lo, 0x00, CACHE_KEY_SIZE);
	memset(hi, 0xff, CACHE_KEY_SIZE);
	for (size_t i = 0; i < n; i++) {
		int d = hex_digit(s[i]);
		if (d < 0)
			return false;
		uint8_t *l = &lo[i / 2], *h = &hi[i / 2];
		if (i % 2 == 0) {
			*l = (uint8_t)(d << 4);
			*h = (uint8_t)(d << 4 | 0x0f);
		} else {
			*l = (uint8_t)(*l | d);
			*h = (uint8_t)((*h & 0xf0) | d);
		}
	}
	return true;
}

int cache_key_parse(const char *hex, uint8_t key[CACHE_KEY_SIZE])
{
	uint8_t hi[CACHE_KEY_SIZE];
	if (!hex || !key || strlen(hex) != 2 * CACHE_KEY_SIZE ||
	    !prefix_range(hex, key, hi))
		return CCP_EINVAL;
	return 0;
}

int cache_find_prefix(cache *c, const char *prefix, uint8_t key[CACHE_KEY_SIZE])
{
	uint8_t lo[CACHE_KEY_SIZE], hi[CACHE_KEY_SIZE];
	uint8_t found[2][CACHE_KEY_SIZE];
	int nfound = 0, rc;
	if (!c || !key)
		return CCP_EINVAL;
	if (!prefix || !prefix_range(prefix, lo, hi))
		return fail(c, CCP_EINVAL,
		            "'%s' is not a key or key prefix (1 to 32 hex "
		            "digits)",
		            prefix ? prefix : "");
	sqlite3_stmt *st;
	if ((rc = prepare(c,
	                  "SELECT key FROM plans WHERE key BETWEEN ?1 AND ?2 "
	                  "ORDER BY key LIMIT 2",
	                  &st)) != 0)
		return db_fail(c, rc, "looking up a key");
	bind_key(st, 1, lo);
	bind_key(st, 2, hi);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const void *k = sqlite3_column_blob(st, 0);
		if (k && sqlite3_column_bytes(st, 0) == CACHE_KEY_SIZE)
			memcpy(found[nfound++], k, CACHE_KEY_SIZE);
	}
	if (rc != SQLITE_DONE) {
		rc = db_fail(c, rc, "looking up a key");
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	if (nfound == 0)
		return fail(c, CCP_ENOTFOUND,
		            "no cached plan has a key "
		            "starting with '%s'",
		            prefix);
	if (nfound > 1) {
		char a[CACHE_KEY_HEX], b[CACHE_KEY_HEX];
		cache_key_hex(found[0], a);
		cache_key_hex(found[1], b);
		return fail(c, CCP_EINVAL,
		            "key prefix '%s' is ambiguous: %s, %s, maybe more",
		            prefix, a, b);
	}
	memcpy(key, found[0], CACHE_KEY_SIZE);
	return 0;
}

/* ---- checking images --------------------------------------------------- */

/* Whether the input hash an image records is key.  Nothing else fits:
 * an image that records no input (all zero) was made for no key, and
 * serving it under one would hand any input a plan of another. */
static bool hash_fits(const ir_file_info *fi, const uint8_t *key)
{
	return memcmp(fi->input_hash, key, CACHE_KEY_SIZE) == 0;
}

/* Whether an image records no input hash (all zero). */
static bool no_input(const ir_file_info *fi)
{
	static const uint8_t zero[CACHE_KEY_SIZE];
	return memcmp(fi->input_hash, zero, CACHE_KEY_SIZE) == 0;
}

/* A checksum as the SQLite integer with the same 64 bits, and back. */
static int64_t sum_to_db(uint64_t v)
{
	int64_t s;
	memcpy(&s, &v, sizeof s);
	return s;
}

static uint64_t sum_from_db(int64_t s)
{
	uint64_t v;
	memcpy(&v, &s, sizeof v);
	return v;
}

/* ---- put --------------------------------------------------------------- */

struct put_arg {
	const uint8_t *key;
	const void *blob;
	size_t len;
	uint64_t checksum;
	const char *algorithm;
	uint32_t phases, lb_phases;
	double predicted;
	const char *canonical;
	int64_t now;
};

/* Run one statement of no result rows with ?1 = key; a SQLite code, 0 on
 * success. */
static int exec_key(cache *c, const char *sql, const uint8_t *key)
{
	sqlite3_stmt *st;
	int rc = prepare(c, sql, &st);
	if (rc)
		return rc;
	bind_key(st, 1, key);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : rc;
}

/* Delete the uses row and the seals of key, which belong to the image a
 * put replaces or a remove deletes (SQLite code, 0 on success). */
static int forget_use(cache *c, const uint8_t *key)
{
	int rc = exec_key(c, "DELETE FROM uses WHERE key = ?1", key);
	return rc ? rc : exec_key(c, "DELETE FROM seals WHERE key = ?1", key);
}

/* Transaction body of cache_put: one upsert. */
static int put_tx(cache *c, void *arg)
{
	const struct put_arg *a = arg;
	sqlite3_stmt *st;
	int rc = prepare(
	        c,
	        "INSERT INTO plans (key, checksum, size, algorithm, phases,"
	        " lower_bound, predicted, created, last_used, canonical, blob)"
	        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9, ?10)"
	        " ON CONFLICT (key) DO UPDATE SET"
	        "  created = CASE WHEN checksum = excluded.checksum"
	        "   AND size = excluded.size THEN created"
	        "   ELSE excluded.created END,"
	        "  checksum = excluded.checksum, size = excluded.size,"
	        "  algorithm = excluded.algorithm, phases = excluded.phases,"
	        "  lower_bound = excluded.lower_bound,"
	        "  predicted = excluded.predicted,"
	        "  last_used = excluded.last_used,"
	        "  canonical = excluded.canonical, blob = excluded.blob",
	        &st);
	if (rc)
		return rc;
	bind_key(st, 1, a->key);
	sqlite3_bind_int64(st, 2, sum_to_db(a->checksum));
	sqlite3_bind_int64(st, 3, (sqlite3_int64)a->len);
	sqlite3_bind_text(st, 4, a->algorithm, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, a->phases);
	sqlite3_bind_int64(st, 6, a->lb_phases);
	if (isnan(a->predicted))
		sqlite3_bind_null(st, 7);
	else
		sqlite3_bind_double(st, 7, a->predicted);
	sqlite3_bind_int64(st, 8, a->now);
	sqlite3_bind_text(st, 9, a->canonical, -1, SQLITE_STATIC);
	rc = sqlite3_bind_blob64(st, 10, a->blob, a->len, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rc;
	/* the put is the last use: an older get's record goes */
	return forget_use(c, a->key);
}

int cache_put(cache *c, const uint8_t key[CACHE_KEY_SIZE], const void *blob,
              size_t len, const struct cache_meta *meta)
{
	ir_file_info fi;
	char why[256], hex[CACHE_KEY_HEX];
	if (!c)
		return CCP_EINVAL;
	if (!key || !blob)
		return fail(c, CCP_EINVAL, "cache_put: no key or no plan");
	if (c->flags & CACHE_READONLY)
		return fail(c, CCP_EINVAL, "%s: opened read-only", c->path);
	cache_key_hex(key, hex);
	if (ir_image_check(blob, len, &fi, why, sizeof why) != 0)
		return fail(c, CCP_EINVAL, "not caching a bad plan image: %s",
		            why);
	if (!hash_fits(&fi, key))
		return fail(c, CCP_EINVAL, "not caching under %s a plan %s",
		            hex,
		            no_input(&fi) ? "that records no input"
		                          : "made for another input");
	struct put_arg a = {
	        .key = key,
	        .blob = blob,
	        .len = len,
	        .checksum = XXH3_64bits(blob, len),
	        .algorithm = fi.algorithm,
	        .phases = fi.nphases,
	        .lb_phases = fi.lb_phases,
	        .predicted = NAN,
	        .canonical = "",
	        .now = now_s(c),
	};
	if (meta) {
		if (!memchr(meta->algorithm, '\0', sizeof meta->algorithm))
			return fail(c, CCP_EINVAL,
			            "cache_put: algorithm name not terminated");
		a.algorithm = meta->algorithm;
		a.phases = meta->phases;
		a.lb_phases = meta->lb_phases;
		a.predicted = meta->predicted;
		if (meta->canonical)
			a.canonical = meta->canonical;
	}
	return in_tx(c, put_tx, &a, "storing a plan");
}

/* ---- get --------------------------------------------------------------- */

struct key_arg {
	const uint8_t *key;
	int64_t value; /* the time, or the checksum to match */
};

/* Transaction body: record now as the last use of a key, if it is later,
 * in the key's uses row (its plans row, image and all, is not written). */
static int touch_tx(cache *c, void *arg)
{
	const struct key_arg *a = arg;
	sqlite3_stmt *st;
	int rc = prepare(c,
	                 "INSERT INTO uses (key, last_used)"
	                 " SELECT key, ?2 FROM plans"
	                 "  WHERE key = ?1 AND last_used < ?2"
	                 " ON CONFLICT (key) DO UPDATE SET"
	                 "  last_used = excluded.last_used"
	                 "  WHERE excluded.last_used > uses.last_used",
	                 &st);
	if (rc)
		return rc;
	bind_key(st, 1, a->key);
	sqlite3_bind_int64(st, 2, a->value);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : rc;
}

/* Transaction body: delete a damaged entry, but only the one we read (a
 * writer may have replaced it since with a good one). */
static int drop_tx(cache *c, void *arg)
{
	const struct key_arg *a = arg;
	sqlite3_stmt *st;
	int rc = prepare(
	        c, "DELETE FROM plans WHERE key = ?1 AND checksum = ?2", &st);
	if (rc)
		return rc;
	bind_key(st, 1, a->key);
	sqlite3_bind_int64(st, 2, a->value);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rc;
	return sqlite3_changes(c->db) ? forget_use(c, a->key) : 0;
}

/* Copy a text column into a fixed buffer of n bytes. */
static void column_name(sqlite3_stmt *st, int i, char *out, size_t n)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	snprintf(out, n, "%s", t ? (const char *)t : "");
}

/* Fill the fields of m that every query returns, from columns key,
 * algorithm, phases, lower_bound, predicted, size, created, last_used at
 * positions 0..7 of st. */
static void column_meta(sqlite3_stmt *st, struct cache_meta *m)
{
	const void *k = sqlite3_column_blob(st, 0);
	memset(m->key, 0, sizeof m->key);
	if (k && sqlite3_column_bytes(st, 0) == CACHE_KEY_SIZE)
		memcpy(m->key, k, CACHE_KEY_SIZE);
	column_name(st, 1, m->algorithm, sizeof m->algorithm);
	m->phases = (uint32_t)sqlite3_column_int64(st, 2);
	m->lb_phases = (uint32_t)sqlite3_column_int64(st, 3);
	m->predicted = sqlite3_column_type(st, 4) == SQLITE_NULL
	                       ? NAN
	                       : sqlite3_column_double(st, 4);
	m->size = (uint64_t)sqlite3_column_int64(st, 5);
	m->created = sqlite3_column_int64(st, 6);
	m->last_used = sqlite3_column_int64(st, 7);
	m->canonical = NULL;
}

/* Whether the image read for key is the one stored and a plan of that
 * key; the reason in why if not.  CCP_EVERSION is an intact image of a
 * newer plan format. */
static int entry_check(const uint8_t *img, size_t len, uint64_t stored_size,
                       uint64_t stored_sum, const uint8_t *key, char *why,
                       size_t whylen)
{
	ir_file_info fi;
	if ((uint64_t)len != stored_size) {
		snprintf(why, whylen, "%zu bytes where %llu were stored", len,
		         (unsigned long long)stored_size);
		return CCP_ECHECKSUM;
	}
	if (XXH3_64bits(img, len) != stored_sum) {
		snprintf(why, whylen, "cache checksum mismatch");
		return CCP_ECHECKSUM;
	}
	int rc = ir_image_check(img, len, &fi, why, whylen);
	if (rc == CCP_EVERSION)
		return rc;
	if (rc)
		return CCP_ECHECKSUM;
	if (!hash_fits(&fi, key)) {
		snprintf(why, whylen, "%s",
		         no_input(&fi) ? "the plan records no input"
		                       : "the plan was made for another input");
		return CCP_ECHECKSUM;
	}
	return 0;
}

/* Read column col of the plans row rowid whole into a new buffer *out
 * (malloc'd, *n bytes, a NUL after them), through an incremental blob
 * handle: SQLite copies the pages straight into it, where reading the
 * column through a statement would first assemble the value in memory of
 * its own (for a plan of many megabytes, a second copy as large).  A
 * value that is neither a blob nor text (bytes false: a damaged row)
 * reads as no bytes. */
static int read_column(cache *c, int64_t rowid, const char *col, bool bytes,
                       uint8_t **out, size_t *n)
{
	sqlite3_blob *bh;
	*out = NULL;
	*n = 0;
	if (!bytes) {
		if (!(*out = calloc(1, 1)))
			return fail(c, CCP_ENOMEM, "out of memory");
		return 0;
	}
	int rc = sqlite3_blob_open(c->db, "main", "plans", col, rowid, 0, &bh);
	if (rc != SQLITE_OK)
		return db_fail(c, rc, "reading a plan");
	int size = sqlite3_blob_bytes(bh);
	uint8_t *b = malloc((size_t)size + 1);
	if (!b) {
		sqlite3_blob_close(bh);
		return fail(c, CCP_ENOMEM, "out of memory");
	}
	rc = size ? sqlite3_blob_read(bh, b, size, 0) : SQLITE_OK;
	sqlite3_blob_close(bh);
	if (rc != SQLITE_OK) {
		free(b);
		return db_fail(c, rc, "reading a plan");
	}
	b[size] = 0;
	*out = b;
	*n = (size_t)size;
	return 0;
}

/* The image of the plans row rowid into *img (*n bytes) and, if canonical
 * is not NULL, its canonical text into *canonical (both malloc'd); on
 * failure neither.  img_ok and text_ok: whether the columns hold bytes
 * (read_column). */
static int read_row(cache *c, int64_t rowid, bool img_ok, uint8_t **img,
                    size_t *n, char **canonical, bool text_ok)
{
	size_t tn;
	int rc = read_column(c, rowid, "blob", img_ok, img, n);
	if (rc == 0 && canonical &&
	    (rc = read_column(c, rowid, "canonical", text_ok,
	                      (uint8_t **)canonical, &tn)) != 0) {
		free(*img);
		*img = NULL;
	}
	return rc;
}

/* The entry of key (hex: the same in hex, for the message) as the row
 * of *st, ready: columns 0..7 for column_meta, 8 the checksum, 9 the
 * rowid, 10 and 11 whether the image and the text hold bytes, 12
 * signer's seal (NULL if none, or no signer); CCP_ENOTFOUND if there is
 * none.  The caller finalizes *st; on failure there is nothing to. */
static int find_entry(cache *c, const uint8_t *key, const uint8_t *signer,
                      const char *hex, sqlite3_stmt **st)
{
	int rc = prepare(c,
	                 "SELECT p.key, p.algorithm, p.phases, p.lower_bound,"
	                 " p.predicted, p.size, p.created, " USED ","
	                 " p.checksum, p.rowid,"
	                 " typeof(p.blob) IN ('blob', 'text'),"
	                 " typeof(p.canonical) IN ('blob', 'text'), s.seal"
	                 " FROM " FROM_PLANS " LEFT JOIN seals s"
	                 "  ON s.key = p.key AND s.signer = ?2"
	                 " WHERE p.key = ?1",
	                 st);
	if (rc)
		return db_fail(c, rc, "reading a plan");
	bind_key(*st, 1, key);
	if (signer)
		sqlite3_bind_blob(*st, 2, signer, CACHE_SIGNER_SIZE,
		                  SQLITE_STATIC);
	rc = sqlite3_step(*st);
	if (rc == SQLITE_ROW)
		return 0;
	rc = rc == SQLITE_DONE
	             ? fail(c, CCP_ENOTFOUND, "no cached plan for %s", hex)
	             : db_fail(c, rc, "reading a plan");
	sqlite3_finalize(*st);
	*st = NULL;
	return rc;
}

/* Record now as the last use of key (its meta m) if the last is
 * CACHE_USE_GRAIN_S or more seconds old, on a read-write handle.  A use
 * within the grain is not written: a hit then writes nothing, and its
 * process syncs nothing at close.  A failure is not the get's. */
static void record_use(cache *c, const uint8_t *key, struct cache_meta *m)
{
	if (!(c->flags & CACHE_READONLY) &&
	    m->last_used <= now_s(c) - CACHE_USE_GRAIN_S) {
		struct key_arg a = {key, now_s(c)};
		if (in_tx(c, touch_tx, &a, "updating the use time") == 0)
			m->last_used = a.value;
	}
}

int cache_peek_seal(cache *c, const uint8_t key[CACHE_KEY_SIZE],
                    const uint8_t signer[CACHE_SIGNER_SIZE],
                    struct cache_meta *meta, uint64_t *checksum, void *seal,
                    size_t *n)
{
	char hex[CACHE_KEY_HEX];
	struct cache_meta m;
	sqlite3_stmt *st;
	if (!c)
		return CCP_EINVAL;
	if (!key || !signer || !checksum || !seal || !n)
		return fail(c, CCP_EINVAL, "cache_peek_seal: no key or output");
	*n = 0;
	cache_key_hex(key, hex);
	int rc = find_entry(c, key, signer, hex, &st);
	if (rc)
		return rc;
	column_meta(st, &m);
	*checksum = sum_from_db(sqlite3_column_int64(st, 8));
	int sn = sqlite3_column_type(st, 12) == SQLITE_BLOB
	                 ? sqlite3_column_bytes(st, 12)
	                 : 0;
	if (sn > 0 && sn <= CACHE_SEAL_MAX) {
		memcpy(seal, sqlite3_column_blob(st, 12), (size_t)sn);
		*n = (size_t)sn;
	}
	sqlite3_finalize(st);
	record_use(c, key, &m);
	if (meta)
		*meta = m;
	return 0;
}

int cache_get(cache *c, const uint8_t key[CACHE_KEY_SIZE], void **blob,
              size_t *len, struct cache_meta *meta)
{
	return cache_get_sealed(c, key, NULL, blob, len, meta, NULL);
}

/* Whether the seal s found for the image (n bytes at img, under key) is
 * one the caller made: an image it checked itself, so the cache's own
 * checks are not needed.  The seal column is at position 12 of st. */
static bool seal_holds(const struct cache_sealer *s, sqlite3_stmt *st,
                       const uint8_t *key, const uint8_t *img, size_t n,
                       uint64_t stored_size)
{
	if (!s || sqlite3_column_type(st, 12) != SQLITE_BLOB ||
	    (uint64_t)n != stored_size)
		return false;
	return s->check(key, sum_from_db(sqlite3_column_int64(st, 8)), img, n,
	                sqlite3_column_blob(st, 12),
	                (size_t)sqlite3_column_bytes(st, 12), s->arg);
}

int cache_get_sealed(cache *c, const uint8_t key[CACHE_KEY_SIZE],
                     const struct cache_sealer *s, void **blob, size_t *len,
                     struct cache_meta *meta, bool *sealed)
{
	char hex[CACHE_KEY_HEX], why[256];
	struct cache_meta m;
	sqlite3_stmt *st;
	uint8_t *img = NULL;
	size_t n = 0;
	int64_t stored_sum;
	int rc;
	if (blob)
		*blob = NULL;
	if (len)
		*len = 0;
	if (meta)
		memset(meta, 0, sizeof *meta);
	if (sealed)
		*sealed = false;
	if (!c)
		return CCP_EINVAL;
	if (!key || !blob || !len || (s && !s->check))
		return fail(c, CCP_EINVAL, "cache_get: no key or no output");
	cache_key_hex(key, hex);
	if ((rc = find_entry(c, key, s ? s->signer : NULL, hex, &st)) != 0)
		return rc;
	column_meta(st, &m);
	stored_sum = sqlite3_column_int64(st, 8);
	/* the image and the text straight into our memory, while the
	 * statement still holds the read transaction that found the row */
	rc = read_row(c, sqlite3_column_int64(st, 9),
	              sqlite3_column_int(st, 10), &img, &n,
	              meta ? &m.canonical : NULL, sqlite3_column_int(st, 11));
	/* an image its reader sealed is checked once, by the seal: the
	 * cache's own checks would hash it twice more */
	bool by_seal = rc == 0 && seal_holds(s, st, key, img, n, m.size);
	sqlite3_finalize(st);
	if (rc)
		return rc;

	rc = by_seal ? 0
	             : entry_check(img, n, m.size, sum_from_db(stored_sum),
	                           key, why, sizeof why);
	if (rc == CCP_EVERSION) {
		rc = fail(c, rc, "cached plan %s is of a newer format: %s", hex,
		          why);
		goto out_free;
	}
	if (rc) {
		if (c->flags & CACHE_READONLY) {
			rc = fail(c, CCP_ECHECKSUM,
			          "cached plan %s is damaged (%s); read-only, "
			          "left in place",
			          hex, why);
			goto out_free;
		}
		struct key_arg a = {key, stored_sum};
		int dr = in_tx(c, drop_tx, &a, "removing a damaged plan");
		rc = fail(c, CCP_ECHECKSUM,
		          "cached plan %s was damaged (%s) and %s", hex, why,
		          dr ? "could not be removed" : "has been removed");
		goto out_free;
	}

	record_use(c, key, &m);
	*blob = img;
	*len = n;
	if (meta)
		*meta = m;
	if (sealed)
		*sealed = by_seal;
	return 0;
out_free:
	free(img);
	free(m.canonical);
	return rc;
}

void cache_meta_fini(struct cache_meta *meta)
{
	if (!meta)
		return;
	free(meta->canonical);
	memset(meta, 0, sizeof *meta);
}

/* ---- remove, list ------------------------------------------------------ */

/* Transaction body of cache_remove. */
static int remove_tx(cache *c, void *arg)
{
	const uint8_t *key = arg;
	int rc = exec_key(c, "DELETE FROM plans WHERE key = ?1", key);
	if (rc)
		return rc;
	if (sqlite3_changes(c->db) == 0) {
		char hex[CACHE_KEY_HEX];
		cache_key_hex(key, hex);
		return fail(c, CCP_ENOTFOUND, "no cached plan for %s", hex);
	}
	return forget_use(c, key);
}

int cache_remove(cache *c, const uint8_t key[CACHE_KEY_SIZE])
{
	if (!c)
		return CCP_EINVAL;
	if (!key)
		return fail(c, CCP_EINVAL, "cache_remove: no key");
	if (c->flags & CACHE_READONLY)
		return fail(c, CCP_EINVAL, "%s: opened read-only", c->path);
	return in_tx(c, remove_tx, (void *)key, "removing a plan");
}

int cache_drop(cache *c, const uint8_t key[CACHE_KEY_SIZE], const void *blob,
               size_t len)
{
	if (!c)
		return CCP_EINVAL;
	if (!key || !blob)
		return fail(c, CCP_EINVAL, "cache_drop: no key or no plan");
	if (c->flags & CACHE_READONLY)
		return fail(c, CCP_EINVAL, "%s: opened read-only", c->path);
	struct key_arg a = {key, sum_to_db(XXH3_64bits(blob, len))};
	return in_tx(c, drop_tx, &a, "removing a bad plan");
}

uint64_t cache_checksum(const void *blob, size_t len)
{
	return XXH3_64bits(blob, len);
}

struct seal_arg {
	const uint8_t *key, *signer;
	const void *seal;
	size_t n;
};

/* Transaction body of cache_seal: one upsert, while the plan is there. */
static int seal_tx(cache *c, void *arg)
{
	const struct seal_arg *a = arg;
	sqlite3_stmt *st;
	int rc = prepare(c,
	                 "INSERT INTO seals (key, signer, seal)"
	                 " SELECT ?1, ?2, ?3"
	                 "  WHERE EXISTS (SELECT 1 FROM plans WHERE key = ?1)"
	                 " ON CONFLICT (key, signer) DO UPDATE SET"
	                 "  seal = excluded.seal",
	                 &st);
	if (rc)
		return rc;
	bind_key(st, 1, a->key);
	sqlite3_bind_blob(st, 2, a->signer, CACHE_SIGNER_SIZE, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, a->seal, (int)a->n, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : rc;
}

int cache_seal(cache *c, const uint8_t key[CACHE_KEY_SIZE],
               const uint8_t signer[CACHE_SIGNER_SIZE], const void *seal,
               size_t n)
{
	if (!c)
		return CCP_EINVAL;
	if (!key || !signer || !seal || n == 0 || n > CACHE_SEAL_MAX)
		return fail(c, CCP_EINVAL, "cache_seal: no key or no seal");
	if (c->flags & CACHE_READONLY)
		return fail(c, CCP_EINVAL, "%s: opened read-only", c->path);
	struct seal_arg a = {key, signer, seal, n};
	return in_tx(c, seal_tx, &a, "sealing a plan");
}

int cache_list(cache *c, int (*fn)(const struct cache_meta *m, void *arg),
               void *arg)
{
	sqlite3_stmt *st;
	int rc;
	if (!c)
		return CCP_EINVAL;
	if (!fn)
		return fail(c, CCP_EINVAL, "cache_list: no function");
	if ((rc = prepare(c,
	                  "SELECT p.key, p.algorithm, p.phases, p.lower_bound,"
	                  " p.predicted, p.size, p.created, " USED
	                  " FROM " FROM_PLANS " ORDER BY 8 DESC, p.key",
	                  &st)) != 0)
		return db_fail(c, rc, "listing");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cache_meta m;
		column_meta(st, &m);
		int r = fn(&m, arg);
		if (r) {
			sqlite3_finalize(st);
			return r;
		}
	}
	rc = rc == SQLITE_DONE ? 0 : db_fail(c, rc, "listing");
	sqlite3_finalize(st);
	return rc;
}

/* ---- gc ---------------------------------------------------------------- */

struct gc_arg {
	int64_t max_bytes, older_than, now;
	struct cache_gc_stats s;
};

/* Count and total size of the entries into *n and *bytes: all of them,
 * or (before not NULL) those last used before *before. */
static int gc_count(cache *c, const int64_t *before, uint64_t *n,
                    uint64_t *bytes)
{
	sqlite3_stmt *st;
	*n = *bytes = 0;
	int rc = prepare(c,
	                 before ? "SELECT count(*), coalesce(sum(p.size), 0) "
	                          "FROM " FROM_PLANS " WHERE " USED " < ?1"
	                        : "SELECT count(*), coalesce(sum(size), 0) "
	                          "FROM plans",
	                 &st);
	if (rc)
		return rc;
	if (before)
		sqlite3_bind_int64(st, 1, *before);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*n = (uint64_t)sqlite3_column_int64(st, 0);
		*bytes = (uint64_t)sqlite3_column_int64(st, 1);
		rc = SQLITE_DONE;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : rc;
}

/* Delete the entries last used before `before`; add them to s. */
static int gc_age(cache *c, int64_t before, struct cache_gc_stats *s)
{
	uint64_t n, bytes;
	sqlite3_stmt *st;
	int rc = gc_count(c, &before, &n, &bytes);
	if (rc || n == 0)
		return rc;
	if ((rc = prepare(c,
	                  "DELETE FROM plans WHERE key IN (SELECT p.key "
	                  "FROM " FROM_PLANS " WHERE " USED " < ?1)",
	                  &st)))
		return rc;
	sqlite3_bind_int64(st, 1, before);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rc;
	s->removed += n;
	s->removed_bytes += bytes;
	return 0;
}

/* Delete least recently used entries until the images total at most
 * max_bytes; add them to s.  The victims are chosen first and deleted
 * after, so no row is deleted under a running query. */
static int gc_size(cache *c, int64_t max_bytes, struct cache_gc_stats *s)
{
	uint64_t n, total;
	int rc = gc_count(c, NULL, &n, &total);
	if (rc || total <= (uint64_t)max_bytes)
		return rc;
	uint8_t(*victims)[CACHE_KEY_SIZE] = malloc(n * sizeof *victims);
	uint64_t nv = 0, freed = 0;
	sqlite3_stmt *st = NULL;
	if (!victims)
		return fail(c, CCP_ENOMEM, "out of memory");
	if ((rc = prepare(c,
	                  "SELECT p.key, p.size FROM " FROM_PLANS
	                  " ORDER BY " USED ", p.created, p.key",
	                  &st)))
		goto out_free;
	while (total - freed > (uint64_t)max_bytes && nv < n &&
	       (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const void *k = sqlite3_column_blob(st, 0);
		if (!k || sqlite3_column_bytes(st, 0) != CACHE_KEY_SIZE)
			continue;
		memcpy(victims[nv++], k, CACHE_KEY_SIZE);
		freed += (uint64_t)sqlite3_column_int64(st, 1);
	}
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		rc = 0;
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		goto out_free;
	if ((rc = prepare(c, "DELETE FROM plans WHERE key = ?1", &st)))
		goto out_free;
	for (uint64_t i = 0; i < nv; i++) {
		bind_key(st, 1, victims[i]);
		if ((rc = sqlite3_step(st)) != SQLITE_DONE)
			goto out_free;
		sqlite3_reset(st);
		rc = 0;
	}
	s->removed += nv;
	s->removed_bytes += freed;
out_free:
	sqlite3_finalize(st);
	free(victims);
	return rc;
}

/* Transaction body of cache_gc: by age, then by size, then the counts of
 * what is left, and the freed pages handed back (incremental vacuum). */
static int gc_tx(cache *c, void *arg)
{
	struct gc_arg *a = arg;
	int rc;
	memset(&a->s, 0, sizeof a->s);
	if (a->older_than >= 0 &&
	    (rc = gc_age(c, a->now - a->older_than, &a->s)) != 0)
		return rc;
	if (a->max_bytes >= 0 && (rc = gc_size(c, a->max_bytes, &a->s)) != 0)
		return rc;
	if ((rc = gc_count(c, NULL, &a->s.kept, &a->s.kept_bytes)) != 0 ||
	    (rc = exec(c, DROP_STALE_USES)) != 0)
		return rc;
	return a->s.removed ? exec(c, "PRAGMA incremental_vacuum") : 0;
}

int cache_gc(cache *c, int64_t max_bytes, int64_t older_than,
             struct cache_gc_stats *stats)
{
	if (stats)
		memset(stats, 0, sizeof *stats);
	if (!c)
		return CCP_EINVAL;
	if (max_bytes < -1 || older_than < -1)
		return fail(c, CCP_EINVAL, "cache_gc: negative limit");
	if (c->flags & CACHE_READONLY)
		return fail(c, CCP_EINVAL, "%s: opened read-only", c->path);
	struct gc_arg a = {max_bytes, older_than, now_s(c), {0, 0, 0, 0}};
	int rc = in_tx(c, gc_tx, &a, "collecting garbage");
	if (rc)
		return rc;
	/* let the main file shrink now if no reader needs the old pages;
	 * otherwise a later checkpoint does it */
	if (a.s.removed)
		sqlite3_wal_checkpoint_v2(
		        c->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	if (stats)
		*stats = a.s;
	return 0;
}

/* ---- plan names -------------------------------------------------------- */

/* Whether name can be recorded: 1 to CACHE_PLAN_NAME_MAX - 1 bytes, no
 * control character; the reason on c if not. */
static int name_check(cache *c, const char *name)
{
	if (!name || !name[0])
		return fail(c, CCP_EINVAL, "no plan name");
	size_t n = strnlen(name, CACHE_PLAN_NAME_MAX);
	if (n >= CACHE_PLAN_NAME_MAX)
		return fail(c, CCP_EINVAL,
		            "plan name longer than %d bytes: '%.40s...'",
		            CACHE_PLAN_NAME_MAX - 1, name);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return fail(c, CCP_EINVAL,
			            "plan name with a control character");
	return 0;
}

struct name_arg {
	const char *name;
	const uint8_t *key;
	const char *yaml;
	int64_t now;
};

/* Transaction body of cache_name_put: one upsert. */
static int name_put_tx(cache *c, void *arg)
{
	const struct name_arg *a = arg;
	sqlite3_stmt *st;
	int rc = prepare(c,
	                 "INSERT INTO names (name, key, yaml, created)"
	                 " VALUES (?1, ?2, ?3, ?4)"
	                 " ON CONFLICT (name) DO UPDATE SET"
	                 "  created = CASE WHEN key = excluded.key"
	                 "   AND yaml = excluded.yaml THEN created"
	                 "   ELSE excluded.created END,"
	                 "  key = excluded.key, yaml = excluded.yaml",
	                 &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, a->name, -1, SQLITE_STATIC);
	bind_key(st, 2, a->key);
	sqlite3_bind_text(st, 3, a->yaml, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, a->now);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : rc;
}

int cache_name_put(cache *c, const char *name,
                   const uint8_t key[CACHE_KEY_SIZE], const char *yaml)
{
	int rc;
	if (!c)
		return CCP_EINVAL;
	if ((rc = name_check(c, name)) != 0)
		return rc;
	if (!key)
		return fail(c, CCP_EINVAL, "cache_name_put: no key");
	if (c->flags & CACHE_READONLY)
		return fail(c, CCP_EINVAL, "%s: opened read-only", c->path);
	struct name_arg a = {name, key, yaml ? yaml : "", now_s(c)};
	return in_tx(c, name_put_tx, &a, "naming a plan");
}

int cache_name_get(cache *c, const char *name, uint8_t key[CACHE_KEY_SIZE],
                   char **yaml, int64_t *created)
{
	sqlite3_stmt *st;
	int rc;
	if (yaml)
		*yaml = NULL;
	if (!c)
		return CCP_EINVAL;
	if ((rc = name_check(c, name)) != 0)
		return rc;
	if (!key)
		return fail(c, CCP_EINVAL, "cache_name_get: no output");
	if ((rc = prepare(
	             c, "SELECT key, yaml, created FROM names WHERE name = ?1",
	             &st)) != 0)
		return db_fail(c, rc, "reading a plan name");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		rc = rc == SQLITE_DONE ? fail(c, CCP_ENOTFOUND,
		                              "no plan named '%s'", name)
		                       : db_fail(c, rc, "reading a plan name");
		sqlite3_finalize(st);
		return rc;
	}
	const void *k = sqlite3_column_blob(st, 0);
	if (!k || sqlite3_column_bytes(st, 0) != CACHE_KEY_SIZE) {
		sqlite3_finalize(st);
		return fail(c, CCP_EFORMAT, "plan name '%s': a damaged key",
		            name);
	}
	memcpy(key, k, CACHE_KEY_SIZE);
	if (created)
		*created = sqlite3_column_int64(st, 2);
	if (yaml) {
		const unsigned char *t = sqlite3_column_text(st, 1);
		if (!(*yaml = strdup(t ? (const char *)t : ""))) {
			sqlite3_finalize(st);
			return fail(c, CCP_ENOMEM, "out of memory");
		}
	}
	sqlite3_finalize(st);
	return 0;
}

int cache_name_list(cache *c,
                    int (*fn)(const char *name,
                              const uint8_t key[CACHE_KEY_SIZE],
                              const char *yaml, int64_t created, void *arg),
                    void *arg)
{
	sqlite3_stmt *st;
	int rc;
	if (!c)
		return CCP_EINVAL;
	if (!fn)
		return fail(c, CCP_EINVAL, "cache_name_list: no function");
	if ((rc = prepare(c,
	                  "SELECT name, key, yaml, created FROM names"
	                  " ORDER BY name",
	                  &st)) != 0)
		return db_fail(c, rc, "listing plan names");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *name = sqlite3_column_text(st, 0);
		const unsigned char *yaml = sqlite3_column_text(st, 2);
		const void *k = sqlite3_column_blob(st, 1);
		uint8_t key[CACHE_KEY_SIZE] = {0};
		if (k && sqlite3_column_bytes(st, 1) == CACHE_KEY_SIZE)
			memcpy(key, k, CACHE_KEY_SIZE);
		int r = fn(name ? (const char *)name : "", key,
		           yaml ? (const char *)yaml : "",
		           sqlite3_column_int64(st, 3), arg);
		if (r) {
			sqlite3_finalize(st);
			return r;
		}
	}
	rc = rc == SQLITE_DONE ? 0 : db_fail(c, rc, "listing plan names");
	sqlite3_finalize(st);
	return rc;
}

/* Magic numbers of statfs's f_type for file systems shared over a
 * network (linux/magic.h and the file systems' own headers).  FUSE and
 * 9P are left out: containers mount local trees with them. */
const char *cache_network_fs_type(long f_type)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} net[] = {
	        {0x6969, "NFS"},           {0x517b, "SMB"},
	        {0xff534d42, "CIFS"},      {0xfe534d42, "SMB2"},
	        {0x47504653, "GPFS"},      {0x0bd00bd0, "Lustre"},
	        {0x19830326, "BeeGFS"},    {0x00c36400, "CephFS"},
	        {0x564c, "NCP"},           {0x6b414653, "AFS"},
	        {0x5346414f, "OpenAFS"},   {0x73757245, "Coda"},
	};
	for (size_t i = 0; i < sizeof net / sizeof net[0]; i++)
		if ((unsigned long)f_type == net[i].magic)
			return net[i].name;
	return NULL;
}

const char *cache_network_fs(const char *path)
{
	struct statfs sf;
	char dir[PATH_MAX];
	const char *slash;

	if (!path || !path[0])
		return NULL;
	if (statfs(path, &sf) == 0)
		return cache_network_fs_type((long)sf.f_type);
	slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	if (statfs(dir, &sf) == 0)
		return cache_network_fs_type((long)sf.f_type);
	return NULL;
}
