/*
 * cache.h - the plan cache: compiled plans (.ccp images) kept in one
 * SQLite file under the XXH3-128 key of their canonical input, so that a
 * second compile of the same input, or a runtime that knows the key, gets
 * the plan without compiling.  The compiler and the runtime both link it;
 * it needs SQLite and the plan codec only.  docs/cache.md describes the
 * file, its schema, what happens on damage, and the concurrency rules.
 *
 * Every function returns 0 or a negative CCP_E* code (ccplan_errors.h)
 * and never prints or exits.  cache_open reports into err; the functions
 * taking a handle keep their last message, read with cache_errmsg.  A
 * handle is used by one thread at a time; processes and other handles may
 * use the same file at once.
 */
#ifndef CCP_CACHE_H
#define CCP_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cache cache;

#define CACHE_SCHEMA_VERSION  4     /* PRAGMA user_version this code writes */
#define CACHE_KEY_SIZE        16    /* bytes of a key (XXH3-128) */
#define CACHE_KEY_HEX         33    /* a key in hex, with its NUL */
#define CACHE_NAME_MAX        32    /* algorithm names, as IR_NAME_MAX */
#define CACHE_BUSY_TIMEOUT_MS 10000 /* how long to wait for another writer */
#define CACHE_PLAN_NAME_MAX   256   /* bytes of a plan name, with its NUL */
#define CACHE_USE_GRAIN_S     60    /* a get records its use only when the
                                       last is this many seconds old */
#define CACHE_SIGNER_SIZE     16    /* bytes that name a sealer's key */
#define CACHE_SEAL_MAX        64    /* bytes of a seal, at most */

/* The environment variable that lets cache_open use a cache it would
 * refuse for its owners or modes: "*", or a colon-separated list of
 * cache files (as given, or naming the same file). */
#define CACHE_TRUST_ENV "CCPLAN_CACHE_TRUST"

/* cache_open flags */
#define CACHE_READONLY 1u /* never create, write, migrate or repair */
#define CACHE_NO_CHECK                                                         \
	2u /* skip PRAGMA quick_check (a full read of the                      \
	      file); the cheap checks are still made */

/* What cache_open did besides opening; zeroed by cache_open. */
struct cache_event {
	bool moved_aside; /* the file was damaged: renamed to aside and a
	                     new, empty cache made in its place */
	char aside[4096]; /* where the damaged file went (its -wal and -shm
	                     files, if any, went to aside-wal, aside-shm) */
	char reason[256]; /* what was wrong with it */
	bool migrated;    /* the schema was upgraded (or created) */
	int from_version; /* user_version before the upgrade (0: new) */
};

/* One entry.  cache_put reads algorithm, phases, lb_phases, predicted and
 * canonical; cache_get and cache_list fill every field. */
struct cache_meta {
	uint8_t key[CACHE_KEY_SIZE];    /* get, list */
	char algorithm[CACHE_NAME_MAX]; /* generator name */
	uint32_t phases;                /* phases of the plan */
	uint32_t lb_phases;             /* the verifier's lower bound */
	double predicted;               /* predicted time; NaN = unknown */
	char *canonical;                /* canonical input text.  put: borrowed,
	                                   NULL stores ""; get: malloc'd, freed
	                                   by cache_meta_fini; list: NULL */
	uint64_t size;                  /* bytes of the plan image */
	int64_t created;                /* unix seconds of the put */
	int64_t last_used;              /* unix seconds of the last get/put */
};

/* What cache_gc removed and kept. */
struct cache_gc_stats {
	uint64_t removed, removed_bytes; /* entries removed, their images */
	uint64_t kept, kept_bytes;       /* entries left, their images */
};

/* The cache's path into buf (len bytes): $CCPLAN_CACHE if set and not
 * empty, else $XDG_CACHE_HOME/ccplan/plans.db (XDG_CACHE_HOME absolute),
 * else $HOME/.cache/ccplan/plans.db.  CCP_ENOTFOUND if none of these is
 * set, CCP_ERANGE if the path does not fit. */
int cache_default_path(char *buf, size_t len);

/* Open (and unless CACHE_READONLY, create, upgrade or repair) the cache
 * at path (borrowed).  Read-write: missing directories are made (0700),
 * the file is put in WAL mode, the schema created or migrated to
 * CACHE_SCHEMA_VERSION, and a damaged file is renamed aside and rebuilt
 * (reported in ev).  Read-only: a missing file is CCP_ENOTFOUND, a damaged
 * one CCP_EFORMAT, another schema version CCP_EVERSION, and nothing is
 * written.  A file that is a SQLite database but not a ccplan cache is
 * refused with CCP_EFORMAT and left alone, as is one with a newer schema
 * (CCP_EVERSION).  Either way, a cache someone else could have written is
 * refused with CCP_EINVAL before it is opened (the file, its directory,
 * its -wal and -shm files or a directory or link on the way owned by
 * another user, or writable by group or others: docs/cache.md, "Who may
 * write it"), unless CACHE_TRUST_ENV names it.  *out gets a handle freed
 * with cache_close.  ev may be
 * NULL; err (may be NULL) gets a one-line reason on failure. */
int cache_open(const char *path, unsigned flags, cache **out,
               struct cache_event *ev, char *err, size_t errlen);
/* Close the handle (NULL is a no-op). */
void cache_close(cache *c);
/* The name of the network or cluster file system that holds path (its
 * directory when path does not exist yet): "NFS", "Lustre", "GPFS"...;
 * NULL on a local one, or when it cannot be told.  The cache belongs on
 * local storage (docs/cache.md): the compiler warns. */
const char *cache_network_fs(const char *path);
/* The same for the f_type statfs gives (exposed for tests). */
const char *cache_network_fs_type(long f_type);
/* The message of the last failure on c (borrowed, valid until the next
 * call on c); "" if none. */
const char *cache_errmsg(const cache *c);

/* Use now (unix seconds) as the time of every later put, get and gc on c
 * instead of the clock; 0 goes back to the clock.  For tests and for
 * reproducible tools. */
void cache_set_time(cache *c, int64_t now);

/* Store the plan image blob (len bytes, borrowed) under key, with meta
 * (borrowed; NULL takes the algorithm, phases and lower bound from the
 * image's header, with no prediction or text).  The image must pass the
 * codec's header and whole-image checks, and its input hash must be key
 * (CCP_EINVAL otherwise; an image that records no input, all zero, is
 * refused too).  Storing a key again replaces its content
 * (the last put wins, one row per key); created is kept when the image is
 * unchanged.  CCP_EINVAL on a read-only cache; CCP_ETIMEDOUT if other
 * writers held the file for CACHE_BUSY_TIMEOUT_MS. */
int cache_put(cache *c, const uint8_t key[CACHE_KEY_SIZE], const void *blob,
              size_t len, const struct cache_meta *meta);

/* The plan image stored under key into *blob (malloc'd, the caller frees
 * it with free()) and *len, and if meta is not NULL its description
 * (meta->canonical malloc'd: cache_meta_fini).  CCP_ENOTFOUND if absent.
 * The image is checked against the stored checksum, the codec's header
 * and plan hash, and its input hash against key: one that fails is never
 * returned but deleted (unless read-only) and reported as CCP_ECHECKSUM;
 * an image of a plan format newer than this codec is CCP_EVERSION and
 * kept.  A hit updates last_used when it is CACHE_USE_GRAIN_S or more
 * seconds old (not when read-only; a failure to update it does not fail
 * the get): most hits write nothing.  On failure *blob is NULL. */
int cache_get(cache *c, const uint8_t key[CACHE_KEY_SIZE], void **blob,
              size_t *len, struct cache_meta *meta);
/* ---- seals (schema version 4) -------------------------------------------
 *
 * A caller that checks every image it gets more deeply than the cache can
 * (the compiler verifies the plan) may leave a seal with an image it has
 * checked: bytes that prove, to it alone, that it checked these bytes
 * under this key (a MAC under a secret key of its own, docs/cache.md).  A
 * later get by the same signer whose seal holds skips the cache's own
 * checks of the image (the checksum, the codec's header and plan hash,
 * the input hash), and the caller skips its own.  The cache never makes
 * or judges a seal itself; a put, remove, drop or gc of the entry deletes
 * its seals. */

/* Whether seal (n bytes) proves that the caller checked the image (len
 * bytes at img) under key, stored with checksum (cache_checksum of the
 * image when it was sealed: a seal that covers it holds only while the
 * row's checksum fits its image, so the plain cache_get, which checks
 * the checksum, serves what the sealed one serves); arg is the
 * sealer's. */
typedef bool (*cache_seal_fn)(const uint8_t key[CACHE_KEY_SIZE],
                              uint64_t checksum, const void *img,
                              size_t len, const void *seal, size_t n,
                              void *arg);

/* Who seals, and how its seals are checked. */
struct cache_sealer {
	uint8_t signer[CACHE_SIGNER_SIZE]; /* names the sealer's key */
	cache_seal_fn check;               /* judges a seal of signer */
	void *arg;                         /* passed to check */
};

/* cache_get, with seals: s NULL is cache_get.  Else the seal signer left
 * with the entry, if any, is given to s->check with the image, and when
 * it holds, the image is returned without the cache's own checks and
 * *sealed (may be NULL) set; when it does not (no seal, another image,
 * another key), the image is checked as by cache_get. */
int cache_get_sealed(cache *c, const uint8_t key[CACHE_KEY_SIZE],
                     const struct cache_sealer *s, void **blob, size_t *len,
                     struct cache_meta *meta, bool *sealed);

/* What cache_get_sealed knows of the entry of key before it reads the
 * image: its description (meta, canonical NULL), the checksum stored with
 * it, and the seal signer left with it into seal (up to CACHE_SEAL_MAX
 * bytes; *n 0 if none).  For a caller that can check a copy of the image
 * it holds elsewhere against its seal without reading the image from
 * the cache; it counts as a use, recorded as cache_get records one.
 * CCP_ENOTFOUND if there is no entry. */
int cache_peek_seal(cache *c, const uint8_t key[CACHE_KEY_SIZE],
                    const uint8_t signer[CACHE_SIGNER_SIZE],
                    struct cache_meta *meta, uint64_t *checksum, void *seal,
                    size_t *n);

/* The checksum the cache stores with an image of len bytes (XXH3_64,
 * seed 0), for a sealer to cover. */
uint64_t cache_checksum(const void *blob, size_t len);

/* Leave seal (n bytes, 1 to CACHE_SEAL_MAX; borrowed) of signer with the
 * entry of key, replacing signer's earlier one; nothing if there is no
 * entry.  CCP_EINVAL on a read-only cache; CCP_ETIMEDOUT as cache_put. */
int cache_seal(cache *c, const uint8_t key[CACHE_KEY_SIZE],
               const uint8_t signer[CACHE_SIGNER_SIZE], const void *seal,
               size_t n);

/* Free what cache_get put in meta (canonical) and clear it. */
void cache_meta_fini(struct cache_meta *meta);

/* Remove the entry of key; CCP_ENOTFOUND if there is none. */
int cache_remove(cache *c, const uint8_t key[CACHE_KEY_SIZE]);

/* Remove the entry of key if it still holds the image blob (len bytes,
 * borrowed), as cache_get does with an entry it finds damaged: for a
 * caller whose own checks of an image cache_get returned fail (the plan
 * does not verify).  An entry another process has stored since under the
 * same key is left alone; 0 then too, and when there is no entry.
 * CCP_EINVAL on a read-only cache. */
int cache_drop(cache *c, const uint8_t key[CACHE_KEY_SIZE], const void *blob,
               size_t len);

/* Call fn for every entry, most recently used first, with its meta
 * (borrowed for the call; canonical is NULL).  fn must not use c.  A
 * nonzero return from fn stops the walk and is returned. */
int cache_list(cache *c, int (*fn)(const struct cache_meta *m, void *arg),
               void *arg);

/* Garbage-collect: remove every entry not used within older_than seconds
 * (last_used < now - older_than; -1: no age limit), then the least
 * recently used entries until their images total at most max_bytes (-1:
 * no size limit), then give the freed pages back to the file system.
 * stats (may be NULL) says what went and what stayed. */
int cache_gc(cache *c, int64_t max_bytes, int64_t older_than,
             struct cache_gc_stats *stats);

/* Keys as text: 32 lowercase hex digits and a NUL. */
void cache_key_hex(const uint8_t key[CACHE_KEY_SIZE], char out[CACHE_KEY_HEX]);
/* Parse exactly 32 hex digits (either case); CCP_EINVAL otherwise. */
int cache_key_parse(const char *hex, uint8_t key[CACHE_KEY_SIZE]);
/* The one stored key starting with the hex digits prefix (1 to 32, either
 * case) into key.  CCP_ENOTFOUND if none, CCP_EINVAL if prefix is not hex
 * or more than one key starts with it (the message says which). */
int cache_find_prefix(cache *c, const char *prefix,
                      uint8_t key[CACHE_KEY_SIZE]);

/* ---- plan names (schema version 2) -------------------------------------
 *
 * A program asks for a plan by name (ccp_plan_lookup, docs/scan.md);
 * `ccplan scan` records which key each name stands for.  A name is 1 to
 * CACHE_PLAN_NAME_MAX - 1 bytes with no control character.  A name may
 * outlive its plan (cache_remove, cache_gc do not touch names): getting
 * the plan of such a name is the plan's CCP_ENOTFOUND. */

/* Record that name (borrowed) stands for key, compiled from the YAML file
 * yaml (borrowed; an absolute path, or "" if unknown).  Recording a name
 * again replaces its key and file (one row per name, the last put wins);
 * created is kept when neither changes.  CCP_EINVAL for a bad name or a
 * read-only cache; CCP_ETIMEDOUT as cache_put. */
int cache_name_put(cache *c, const char *name,
                   const uint8_t key[CACHE_KEY_SIZE], const char *yaml);

/* The key name stands for into key, and if not NULL the YAML file into
 * *yaml (malloc'd, freed by the caller with free()) and the unix seconds
 * it was recorded into *created.  CCP_ENOTFOUND if the name is not
 * recorded, CCP_EINVAL for a bad name. */
int cache_name_get(cache *c, const char *name, uint8_t key[CACHE_KEY_SIZE],
                   char **yaml, int64_t *created);

/* Call fn for every recorded name, in name order (strings borrowed for the
 * call).  fn must not use c.  A nonzero return from fn stops the walk and
 * is returned. */
int cache_name_list(cache *c,
                    int (*fn)(const char *name,
                              const uint8_t key[CACHE_KEY_SIZE],
                              const char *yaml, int64_t created, void *arg),
                    void *arg);

#endif
