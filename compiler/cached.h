/*
 * cached.h - the one cached pipeline: hash the canonical input once, look
 * the key up in the plan cache, verify a hit as `ccplan verify` would,
 * compile on a miss (or when the hit fails), encode, and store.  `ccplan
 * compile`, `ccplan scan`, the cache benchmark and the stress test all go
 * through compile_cached.  The library never prints: what happened (hit,
 * stored, the warnings of a damaged or unwritable cache) comes back in
 * struct cached_plan and struct cached_notes, and the command says it.
 */
#ifndef CCP_CACHED_H
#define CCP_CACHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "cache_seal.h"
#include "compile.h"

#define CACHED_NOTES_MAX 8 /* warnings one compile can give, at most */

/* The warnings of a cached compile, in the order they arose; each a line
 * without the program's name or "warning: " (the command adds both) and
 * without a newline.  Zero it before use; cached_notes_fini frees it. */
struct cached_notes {
	int n;                        /* lines in text */
	char *text[CACHED_NOTES_MAX]; /* malloc'd; one lost to ENOMEM is
	                                 left out */
};
void cached_notes_fini(struct cached_notes *w);

/* The cache a compile goes through. */
struct compile_cache {
	cache *k;         /* the handle; NULL: no cache (off, or unusable) */
	const char *path; /* its file (borrowed), to open it again with the
	                     full check after damage; NULL: never reopened */
	bool ro;          /* read-only: hits are served, nothing is stored */
	bool sealing;     /* seal holds the user's key: hits it sealed are
	                     served without verification, and verified
	                     plans are sealed (docs/cache.md) */
	struct seal_key seal;
};

/* Open the cache at path (borrowed; NULL: no cache) for compiles, as
 * `ccplan compile` does: flags as cache_open's (CACHE_NO_CHECK spares
 * the whole-file PRAGMA quick_check on every compile).  The user's
 * sealing key is loaded (seal_key_path; made on first use); a key that
 * is refused is a line in w, and every hit is then verified in full.  A cache that can
 * be read but not written (CCP_EIO, CCP_EINTERNAL: a read-only directory
 * or file system) is opened read-only, cc->ro set.  A cache that cannot
 * be opened leaves cc->k NULL: the compile goes on without it.  Either,
 * and a damaged file moved aside, is a line in w.  Never fails. */
void compile_cache_open(struct compile_cache *cc, const char *path,
                        unsigned flags, struct cached_notes *w);
/* The user's sealing key into cc (cc->sealing), as compile_cache_open
 * loads it.  Without one every hit is verified in full: a key file that
 * is refused (others may read it) says so in w; no $HOME, or a key that
 * cannot be made (a read-only home), is silent, as the cache is silent
 * when it is off.  seal_key_forget(&cc->seal) when done, unless
 * compile_cache_close does it. */
void compile_cache_load_key(struct compile_cache *cc,
                            struct cached_notes *w);
/* Seal the image (len bytes at img) of key in cc, when cc seals and can
 * be written: only a plan verified now (compiled, or a hit verified or
 * served by its seal); a failure is a line in w, and costs only the
 * next hit a full verification. */
void compile_cache_seal(struct compile_cache *cc, const uint8_t *key,
                        const void *img, size_t len, struct cached_notes *w);
/* Close cc's handle (none: a no-op) and forget its key. */
void compile_cache_close(struct compile_cache *cc);

/* compile_cached flags.  NO_STORE: never store, the caller stores
 * out->img under out->key itself (scan: every plan before the first
 * write).  HIT_META: on a hit, out->meta is the stored description,
 * canonical text too (to store it again). */
#define COMPILE_CACHED_NO_STORE 1u
#define COMPILE_CACHED_HIT_META 2u

/* Where compile_cached failed, for the command's message. */
enum cached_step {
	CACHED_HASH = 1, /* hashing the input (d->message) */
	CACHED_COMPILE,  /* compile_input_key (d as it fills it) */
	CACHED_ENCODE    /* compile_encode, or the meta (out->err) */
};

/* What compile_cached gives. */
struct cached_plan {
	uint8_t key[CACHE_KEY_SIZE]; /* the input's key */
	char hex[CACHE_KEY_HEX];     /* the key in hex */
	uint8_t *img;                /* the plan image (malloc'd) */
	size_t len;                  /* its bytes */
	bool hit;                    /* the image came from the cache,
	                                verified; else it was compiled */
	bool sealed;                 /* a hit whose seal held: verified
	                                when it was sealed, not again */
	bool stored;                 /* compiled and stored in the cache */
	struct cache_meta meta;      /* compiled: what is (or would be)
	                                stored, canonical malloc'd; a hit
	                                with COMPILE_CACHED_HIT_META: what
	                                was; else zero */
	uint64_t transfers;          /* compiled: transfers of the plan */
	uint32_t by_phases;          /* compiled by algorithm: auto with no
	                                costs to time the candidates: how
	                                many were ranked by phases alone */
	enum cached_step failed;     /* on failure: the step; else 0 */
	char err[512];               /* failed == CACHED_ENCODE: why */
};
/* Free the image and text compile_cached put in p (the rest stays). */
void cached_plan_fini(struct cached_plan *p);

/* The plan of the parsed input in, through the cache cc (NULL, or cc->k
 * NULL: compiled, never stored).  key is in's key (front_input_hash) when
 * the caller has it, else NULL: the canonical input is hashed here, once,
 * and the compile takes the key (compile_input_key) instead of hashing
 * again.  A hit that carries cc's seal, holding for its bytes and key, is
 * served as it is (out->sealed).  Any other hit is decoded, verified
 * again with every rank's operations compared to a fresh lowering
 * (plan_load_image) and checked to be of the input's collective and
 * machine; one that passes is sealed (cc writable and sealing), one that
 * fails is removed (unless cc is read-only or the check ran out of
 * memory) and the input compiled afresh.  Damage SQLite meets in a get or a put (CCP_EFORMAT)
 * reopens the cache with the full check, which moves a damaged file
 * aside (cc updated; only when cc->path is set).  A miss is compiled,
 * encoded and, unless cc is read-only or flags has
 * COMPILE_CACHED_NO_STORE, stored with its description (algorithm,
 * phases, lower bound, predicted time, canonical text) and sealed.  A cache that
 * fails never fails the compile: it is a line in w.  Returns 0 with out
 * filled (cached_plan_fini), or the compile's code with out->failed
 * saying where, and d (its file set by the caller, as for compile_input)
 * or out->err saying why. */
int compile_cached(const struct front_input *in, const uint8_t *key,
                   struct compile_cache *cc, unsigned flags,
                   struct cached_plan *out, struct cached_notes *w,
                   struct diag *d);

/* Whether the file at path already holds, byte for byte, the plan cc
 * has under key with cc's seal: its size is the entry's and the seal
 * holds for its bytes (one pass through the file; the image is not read
 * from the cache, nor verified again: it was, when it was sealed).
 * Then fi is the plan's header and the use is recorded as a hit's.
 * False, with nothing said, when cc does not seal, there is no entry or
 * no seal of cc's, or the file is missing or holds anything else: the
 * caller goes the usual way (compile_cached). */
bool compile_cached_in_file(struct compile_cache *cc,
                            const uint8_t key[CACHE_KEY_SIZE],
                            const char *path, ir_file_info *fi);

#endif
