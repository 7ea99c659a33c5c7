/*
 * load_cache.c - one rank's slice of a plan stored in the plan cache
 * (docs/cache.md), for a runtime that knows the input's key and has no
 * .ccp file.
 *
 * The cache is opened read-only (cache_open with CACHE_READONLY: SQLite
 * opens the file SQLITE_OPEN_READONLY; nothing is created, migrated,
 * moved aside, touched or deleted, whatever state the file is in) and
 * without PRAGMA quick_check (CACHE_NO_CHECK), which would read the whole
 * file on every rank.  cache_open refuses a cache another user owns or
 * others could write (docs/cache.md, "Who may write it").  The key may be
 * abbreviated as `ccplan cache show` accepts.  cache_get checks the entry
 * before handing it out (its stored checksum, the codec's whole-image
 * checks, its input hash equal to the key), so a damaged entry, or one
 * made for another input or for none, is refused with CCP_ECHECKSUM and
 * never loaded; the image then goes through ccp_plan_load_memory, the
 * same loader, with the same load-time checks (ccp__plan_new), as any
 * image in memory.  The seals the compiler leaves with the plans it has
 * verified are neither read nor needed here (docs/cache.md, "Sealed
 * entries"): a plan the runtime loads from the cache was checked as
 * above, never verified phase by phase.  Only cache/ and SQLite are used
 * here, no compiler code.
 */
#include <stdlib.h>

#include "cache.h" /* ccp_cache: SQLite and the codec only */
#include "ccplan_emitted.h"
#include "internal.h"

int ccp_plan_load_cache(ccp_context *ctx, const char *cache_path,
                        const char *key, int32_t rank, ccp_plan **plan)
{
	if (!ctx || !plan)
		return CCP_EINVAL;
	*plan = NULL;
	if (!cache_path || !cache_path[0] || !key)
		return ccp__error(ctx, CCP_EINVAL,
		                  "no plan cache path or no key");
	cache *c = NULL;
	char err[256];
	int rc = cache_open(cache_path, CACHE_READONLY | CACHE_NO_CHECK, &c,
	                    NULL, err, sizeof err);
	if (rc)
		return ccp__error(ctx, rc, "plan cache: %s", err);
	uint8_t k[CACHE_KEY_SIZE];
	void *blob = NULL;
	size_t len = 0;
	if ((rc = cache_find_prefix(c, key, k)) != 0 ||
	    (rc = cache_get(c, k, &blob, &len, NULL)) != 0) {
		rc = ccp__error(ctx, rc, "plan cache %s: %s", cache_path,
		                cache_errmsg(c));
		cache_close(c);
		return rc;
	}
	cache_close(c);
	rc = ccp_plan_load_memory(ctx, blob, len, rank, plan);
	free(blob);
	return rc;
}
