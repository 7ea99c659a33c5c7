/*
 * cache_seal.c - seals on the plan cache's entries (cache_seal.h).
 *
 * A seal is 16 bytes of random nonce and a 16-byte Poly1305 tag of the
 * image.  The tag's key is used once: it is the keyed BLAKE2b, under the
 * user's secret, of a fixed text, the nonce, the entry's key and the
 * checksum the cache stores with the image, and a new seal takes a new
 * nonce.  Poly1305 reads the image about ten times
 * faster than BLAKE2b on the machines measured (docs/cache.md), and with
 * a one-time key it is a MAC: whoever can write the cache but lacks the
 * secret cannot make a seal that holds for other bytes or another key.
 */
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_seal.h"
#include "ccplan_errors.h"
#include "codec.h" /* IR_FILE_VERSION */

#define NONCE_BYTES 16u
#define TAG_BYTES   16u
_Static_assert(NONCE_BYTES + TAG_BYTES == SEAL_BYTES, "a seal's layout");
_Static_assert(TAG_BYTES == crypto_onetimeauth_BYTES, "Poly1305's tag");
_Static_assert(crypto_onetimeauth_KEYBYTES == 32, "Poly1305's key");

static const char SIGNER_TEXT[] = "ccplan cache signer v1";
/* A seal holds for the release and plan format of the ccplan that made
 * it: a newer one verifies each entry again, once, with its own
 * verifier, and seals it anew. */
#define STR_(x) #x
#define STR(x)  STR_(x)
static const char TAG_TEXT[] = "ccplan cache seal v1, ccplan " CCPLAN_VERSION
                               ", plan format " STR(IR_FILE_VERSION);

int seal_key_path(char *buf, size_t len)
{
	const char *env = getenv(SEAL_KEY_ENV);
	const char *home = getenv("HOME");
	int n;
	if (env && env[0])
		n = snprintf(buf, len, "%s", env);
	else if (home && home[0])
		n = snprintf(buf, len, "%s/.ccplan/cache-key", home);
	else
		return CCP_ENOTFOUND;
	return n < 0 || (size_t)n >= len ? CCP_ERANGE : 0;
}

/* Make the key file at path: a temporary file of 32 random bytes (0600,
 * as mkstemp makes it), synced, then linked to path, which fails if
 * another process made it first; 0, or EEXIST in that case, or errno. */
static int make_key(const char *path)
{
	uint8_t secret[SEAL_KEY_BYTES];
	char tmp[4200];
	char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
	if (!dir)
		return ENOMEM;
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			int e = errno;
			free(dir);
			return e;
		}
	}
	free(dir);
	if (snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >=
	    (int)sizeof tmp)
		return ENAMETOOLONG;
	int fd = mkstemp(tmp);
	if (fd < 0)
		return errno;
	randombytes_buf(secret, sizeof secret);
	int e = write(fd, secret, sizeof secret) == (ssize_t)sizeof secret &&
	                        fsync(fd) == 0
	                ? 0
	                : (errno ? errno : EIO);
	sodium_memzero(secret, sizeof secret);
	if (close(fd) != 0 && !e)
		e = errno;
	if (!e && link(tmp, path) != 0)
		e = errno;
	unlink(tmp);
	return e;
}

int seal_key_load(const char *path, struct seal_key *k, char *err,
                  size_t errlen)
{
	struct stat sb = {0};
	int fd = -1;
	memset(k, 0, sizeof *k);
	if (sodium_init() < 0) {
		snprintf(err, errlen, "libsodium could not be initialised");
		return CCP_EINTERNAL;
	}
	/* made when missing; a process that makes it at the same time
	 * wins (EEXIST), and its key is read */
	int e = 0;
	for (int tries = 0; fd < 0 && tries < 2 && !e; tries++) {
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		e = fd >= 0 ? 0 : errno;
		if (e == ENOENT && (e = make_key(path)) == EEXIST)
			e = 0;
	}
	if (fd < 0) {
		snprintf(err, errlen, "cannot use the cache key %s: %s", path,
		         strerror(e ? e : ENOENT));
		return CCP_EIO;
	}
	const char *bad = NULL;
	if (fstat(fd, &sb) != 0)
		bad = strerror(errno);
	else if (!S_ISREG(sb.st_mode))
		bad = "not a regular file";
	else if (sb.st_uid != geteuid())
		bad = "owned by another user";
	else if (sb.st_mode & 077)
		bad = "others can read or write it";
	else if (sb.st_size != SEAL_KEY_BYTES)
		bad = "not 32 bytes long";
	if (!bad && read(fd, k->secret, SEAL_KEY_BYTES) != SEAL_KEY_BYTES)
		bad = "it cannot be read";
	close(fd);
	if (bad) {
		sodium_memzero(k, sizeof *k);
		if (sb.st_mode & 077 && S_ISREG(sb.st_mode) &&
		    sb.st_uid == geteuid())
			snprintf(err, errlen,
			         "refusing the cache key %s: others can read "
			         "or write it (mode %04o); run chmod 600 '%s', "
			         "or remove it to have a new one made",
			         path, (unsigned)(sb.st_mode & 07777), path);
		else
			snprintf(err, errlen,
			         "refusing the cache key %s: %s; remove it to "
			         "have a new one made",
			         path, bad);
		return CCP_EINVAL;
	}
	crypto_generichash(k->signer, sizeof k->signer,
	                   (const uint8_t *)SIGNER_TEXT, sizeof SIGNER_TEXT - 1,
	                   k->secret, sizeof k->secret);
	return 0;
}

void seal_key_forget(struct seal_key *k)
{
	sodium_memzero(k, sizeof *k);
}

/* The one-time Poly1305 key of nonce, key and checksum under k. */
static void tag_key(const struct seal_key *k, const uint8_t *nonce,
                    const uint8_t *key, uint64_t checksum,
                    uint8_t out[crypto_onetimeauth_KEYBYTES])
{
	uint8_t sum[8];
	for (int i = 0; i < 8; i++)
		sum[i] = (uint8_t)(checksum >> (8 * i));
	crypto_generichash_state st;
	crypto_generichash_init(&st, k->secret, sizeof k->secret,
	                        crypto_onetimeauth_KEYBYTES);
	crypto_generichash_update(&st, (const uint8_t *)TAG_TEXT,
	                          sizeof TAG_TEXT - 1);
	crypto_generichash_update(&st, nonce, NONCE_BYTES);
	crypto_generichash_update(&st, key, CACHE_KEY_SIZE);
	crypto_generichash_update(&st, sum, sizeof sum);
	crypto_generichash_final(&st, out, crypto_onetimeauth_KEYBYTES);
}

void seal_make(const struct seal_key *k, const uint8_t key[CACHE_KEY_SIZE],
               const void *img, size_t len, uint8_t out[SEAL_BYTES])
{
	uint8_t tk[crypto_onetimeauth_KEYBYTES];
	randombytes_buf(out, NONCE_BYTES);
	tag_key(k, out, key, cache_checksum(img, len), tk);
	crypto_onetimeauth(out + NONCE_BYTES, img, len, tk);
	sodium_memzero(tk, sizeof tk);
}

bool seal_check(const uint8_t key[CACHE_KEY_SIZE], uint64_t checksum,
                const void *img, size_t len, const void *seal, size_t n,
                void *arg)
{
	const struct seal_key *k = arg;
	const uint8_t *s = seal;
	uint8_t tk[crypto_onetimeauth_KEYBYTES];
	if (n != SEAL_BYTES)
		return false;
	tag_key(k, s, key, checksum, tk);
	bool ok = crypto_onetimeauth_verify(s + NONCE_BYTES, img, len, tk) ==
	          0;
	sodium_memzero(tk, sizeof tk);
	return ok;
}

bool seal_check_fd(const struct seal_key *k, const uint8_t key[CACHE_KEY_SIZE],
                   uint64_t checksum, int fd, uint64_t len, const void *seal,
                   size_t n, uint8_t *head, size_t headlen)
{
	static uint8_t buf[1 << 16];
	const uint8_t *s = seal;
	uint8_t tk[crypto_onetimeauth_KEYBYTES], tag[TAG_BYTES];
	crypto_onetimeauth_state st;
	uint64_t at = 0;
	if (n != SEAL_BYTES)
		return false;
	tag_key(k, s, key, checksum, tk);
	crypto_onetimeauth_init(&st, tk);
	sodium_memzero(tk, sizeof tk);
	while (at < len) {
		size_t want = len - at < sizeof buf ? (size_t)(len - at)
		                                    : sizeof buf;
		ssize_t got = read(fd, buf, want);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		if (at < headlen)
			memcpy(head + at, buf,
			       (size_t)got < headlen - at ? (size_t)got
			                                  : headlen - at);
		crypto_onetimeauth_update(&st, buf, (size_t)got);
		at += (uint64_t)got;
	}
	if (read(fd, buf, 1) != 0) /* more than len: not this image */
		return false;
	crypto_onetimeauth_final(&st, tag);
	return sodium_memcmp(tag, s + NONCE_BYTES, TAG_BYTES) == 0;
}
