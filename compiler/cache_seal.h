/*
 * cache_seal.h - the compiler's seals on the plan cache (docs/cache.md,
 * "Sealed entries"): a MAC, under a secret key of the user's, of each
 * image the compiler has verified, kept with the entry (cache_seal), so
 * that a later hit is served after one pass over its bytes instead of a
 * full verification.  The key is 32 random bytes in a file only its
 * owner can read or write ($CCPLAN_CACHE_KEY, else
 * $HOME/.ccplan/cache-key), made on first use.
 */
#ifndef CCP_CACHE_SEAL_H
#define CCP_CACHE_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"

#define SEAL_KEY_ENV   "CCPLAN_CACHE_KEY" /* the key file, if set */
#define SEAL_KEY_BYTES 32u                /* bytes of the secret key */
#define SEAL_BYTES     32u                /* a seal: nonce and tag */

/* A loaded key: the secret and the signer it is known by in the cache
 * (a keyed hash of a fixed text: it names the key, and tells nothing of
 * it). */
struct seal_key {
	uint8_t secret[SEAL_KEY_BYTES];
	uint8_t signer[CACHE_SIGNER_SIZE];
};

/* The key file's path into buf: $CCPLAN_CACHE_KEY if set and not empty,
 * else $HOME/.ccplan/cache-key.  CCP_ENOTFOUND if neither is set,
 * CCP_ERANGE if the path does not fit. */
int seal_key_path(char *buf, size_t len);

/* Read the key at path into k, making the file (and its directory, 0700)
 * if it does not exist: 32 random bytes, mode 0600, put in place
 * atomically (a process that makes it at the same time wins, and both
 * use its key).  A key file that is not a regular file of the effective
 * user with no permission for group or others, or not 32 bytes, is
 * refused with CCP_EINVAL; err says why and how to fix it. */
int seal_key_load(const char *path, struct seal_key *k, char *err,
                  size_t errlen);

/* Wipe k's secret from memory. */
void seal_key_forget(struct seal_key *k);

/* The seal of the image (len bytes at img) under key, stored with its
 * cache_checksum: a fresh random nonce, and the Poly1305 tag of the
 * image under a one-time key derived (keyed BLAKE2b) from the secret,
 * the nonce, key and the checksum. */
void seal_make(const struct seal_key *k, const uint8_t key[CACHE_KEY_SIZE],
               const void *img, size_t len, uint8_t out[SEAL_BYTES]);

/* Whether seal (n bytes) is seal_make's for this image, key and checksum
 * under k; a cache_seal_fn, arg the struct seal_key. */
bool seal_check(const uint8_t key[CACHE_KEY_SIZE], uint64_t checksum,
                const void *img, size_t len, const void *seal, size_t n,
                void *arg);

/* seal_check for the len bytes read from fd (from where it stands)
 * instead of an image in memory: true when they are all there, no more,
 * and the seal holds for them.  The first headlen of them are copied to
 * head (fewer if len is smaller). */
bool seal_check_fd(const struct seal_key *k, const uint8_t key[CACHE_KEY_SIZE],
                   uint64_t checksum, int fd, uint64_t len, const void *seal,
                   size_t n, uint8_t *head, size_t headlen);

#endif
