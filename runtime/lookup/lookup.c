/*
 * lookup.c - plans by name (include/ccplan_lookup.h, docs/scan.md): the
 * plan sets a program registers on its context (plans `ccplan scan
 * --emit c` linked in), then the plan cache's names table (`ccplan scan
 * --cache`), opened read-only.  Needs the runtime's loaders
 * (ccp_plan_load_emitted, ccp_plan_load_cache) and so ccp_cache and
 * SQLite; no compiler code.  Built with load_cache.c into the cache
 * loader's library, ccp_runtime_cache, not into ccp_runtime.
 *
 * The registered sets belong to the context.  Until struct ccp_context
 * (runtime/internal.h) has a field for them, they are kept here in a
 * small table keyed by the context's address, behind a mutex; the one
 * place that knows is lookup_get/lookup_set below.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cache/cache.h" /* ccp_cache: SQLite and the codec only */
#include "../internal.h"
#include "ccplan_emitted.h"
#include "ccplan_lookup.h"

/* The sets registered on one context, in registration order; in the
 * context's allocator. */
struct ccp_lookup {
	const struct ccp_plan_set **sets; /* the sets, borrowed */
	size_t n, cap;                    /* used, allocated */
};

/* Free what ctx's registry holds; ccp_fini calls it through
 * ctx->lookup_fini, so that the runtime's own library does not need this
 * file (and with it the cache and SQLite). */
static void lookup_fini(ccp_context *ctx);

/* ---- where a context's registry is --------------------------------------
 *
 * ACCESSOR: lookup_get and lookup_set.  With the field in struct
 * ccp_context (internal.h):
 *
 *     struct ccp_lookup *lookup; (plan sets registered, NULL if none)
 *     #define CCP_CONTEXT_HAS_LOOKUP 1
 *
 * and ccp_fini calling ctx->lookup_fini(ctx) before it frees the context,
 * they read and write ctx->lookup and set ctx->lookup_fini.  Without it,
 * a table of (context, registry) pairs here; a context's entry goes when
 * its last set is unregistered, so a program must unregister its sets
 * before ccp_fini (a new context at the same address would otherwise see
 * them). */
#ifdef CCP_CONTEXT_HAS_LOOKUP

static struct ccp_lookup *lookup_get(const ccp_context *ctx)
{
	return ctx->lookup;
}

static int lookup_set(ccp_context *ctx, struct ccp_lookup *reg)
{
	ctx->lookup = reg;
	ctx->lookup_fini = reg ? lookup_fini : NULL;
	return 0;
}

#else

/* One context's entry of the table. */
struct slot {
	const ccp_context *ctx; /* whose */
	struct ccp_lookup *reg; /* its registry */
};

static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot *slots; /* nslots used, capslots allocated (malloc) */
static size_t nslots, capslots;

/* ctx's registry, NULL if none. */
static struct ccp_lookup *lookup_get(const ccp_context *ctx)
{
	struct ccp_lookup *reg = NULL;
	pthread_mutex_lock(&slots_lock);
	for (size_t i = 0; i < nslots && !reg; i++)
		if (slots[i].ctx == ctx)
			reg = slots[i].reg;
	pthread_mutex_unlock(&slots_lock);
	return reg;
}

/* Make reg ctx's registry (NULL: it has none); CCP_ENOMEM if the table
 * cannot grow. */
static int lookup_set(ccp_context *ctx, struct ccp_lookup *reg)
{
	int rc = 0;
	size_t i;
	pthread_mutex_lock(&slots_lock);
	for (i = 0; i < nslots && slots[i].ctx != ctx; i++)
		;
	if (i < nslots && reg) {
		slots[i].reg = reg;
	} else if (i < nslots) {
		slots[i] = slots[--nslots];
	} else if (reg) {
		if (nslots == capslots) {
			size_t cap = capslots ? capslots * 2 : 8;
			struct slot *q = realloc(slots, cap * sizeof *q);
			if (q) {
				slots = q;
				capslots = cap;
			}
		}
		if (nslots < capslots)
			slots[nslots++] = (struct slot){ctx, reg};
		else
			rc = CCP_ENOMEM;
	}
	if (nslots == 0) {
		free(slots);
		slots = NULL;
		capslots = 0;
	}
	pthread_mutex_unlock(&slots_lock);
	return rc;
}

#endif

/* ctx's registry, made if create; NULL if it has none (or no memory). */
static struct ccp_lookup *registry(ccp_context *ctx, bool create)
{
	struct ccp_lookup *l = lookup_get(ctx);
	if (l || !create)
		return l;
	if (!(l = ccp__calloc(ctx, 1, sizeof *l)))
		return NULL;
	if (lookup_set(ctx, l) != 0) {
		ccp__free(ctx, l, sizeof *l);
		return NULL;
	}
	return l;
}

static void lookup_fini(ccp_context *ctx)
{
	if (!ctx)
		return;
	struct ccp_lookup *l = lookup_get(ctx);
	if (!l)
		return;
	lookup_set(ctx, NULL);
	ccp__free(ctx, l->sets, l->cap * sizeof *l->sets);
	ccp__free(ctx, l, sizeof *l);
}

/* ---- registering -------------------------------------------------------- */

int ccp_plan_register(ccp_context *ctx, const struct ccp_plan_set *set)
{
	if (!ctx)
		return CCP_EINVAL;
	if (!set)
		return ccp__error(ctx, CCP_EINVAL, "no plan set");
	if (set->abi != CCP_PLAN_SET_ABI)
		return ccp__error(ctx, CCP_EVERSION,
		                  "plan set: ABI %lu, this runtime reads ABI "
		                  "%lu; scan the sources again",
		                  (unsigned long)set->abi,
		                  (unsigned long)CCP_PLAN_SET_ABI);
	if (set->count && !set->entries)
		return ccp__error(ctx, CCP_EINVAL, "plan set: no entries");
	for (uint32_t i = 0; i < set->count; i++) {
		const struct ccp_plan_entry *e = &set->entries[i];
		if (!e->name || !e->plan)
			return ccp__error(ctx, CCP_EINVAL,
			                  "plan set: entry %lu has no %s",
			                  (unsigned long)i,
			                  e->name ? "plan" : "name");
		if (i && strcmp(set->entries[i - 1].name, e->name) >= 0)
			return ccp__error(ctx, CCP_EINVAL,
			                  "plan set: '%s' is out of order or "
			                  "repeated",
			                  e->name);
	}
	struct ccp_lookup *l = registry(ctx, true);
	if (!l)
		return ccp__error(ctx, CCP_ENOMEM, "out of memory");
	for (size_t i = 0; i < l->n; i++)
		if (l->sets[i] == set) {
			ccp__ok(ctx);
			return 0;
		}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4;
		const struct ccp_plan_set **q = ccp__realloc(
		        ctx, l->sets, l->cap * sizeof *q, cap * sizeof *q);
		if (!q)
			return ccp__error(ctx, CCP_ENOMEM, "out of memory");
		l->sets = q;
		l->cap = cap;
	}
	l->sets[l->n++] = set;
	ccp__ok(ctx);
	return 0;
}

int ccp_plan_unregister(ccp_context *ctx, const struct ccp_plan_set *set)
{
	if (!ctx)
		return CCP_EINVAL;
	struct ccp_lookup *l = registry(ctx, false);
	for (size_t i = 0; l && i < l->n; i++) {
		if (l->sets[i] != set)
			continue;
		memmove(&l->sets[i], &l->sets[i + 1],
		        (l->n - i - 1) * sizeof *l->sets);
		if (--l->n == 0)
			lookup_fini(ctx);
		ccp__ok(ctx);
		return 0;
	}
	return ccp__error(ctx, CCP_ENOTFOUND, "plan set not registered");
}

/* ---- looking up --------------------------------------------------------- */

static int entry_cmp(const void *key, const void *elem)
{
	const struct ccp_plan_entry *e = elem;
	return strcmp(key, e->name);
}

/* Prefix the context's message with the plan's name. */
static int named(ccp_context *ctx, int rc, const char *name)
{
	char msg[sizeof ctx->msg];
	snprintf(msg, sizeof msg, "%s", ccp_errmsg(ctx));
	return ccp__error(ctx, rc, "plan '%s': %s", name, msg);
}

int ccp_plan_lookup(ccp_context *ctx, const char *name, int32_t rank,
                    ccp_plan **plan)
{
	if (!ctx || !plan)
		return CCP_EINVAL;
	*plan = NULL;
	if (!name || !name[0])
		return ccp__error(ctx, CCP_EINVAL, "no plan name");
	struct ccp_lookup *l = registry(ctx, false);
	size_t nsets = l ? l->n : 0;
	for (size_t i = 0; i < nsets; i++) {
		const struct ccp_plan_set *s = l->sets[i];
		const struct ccp_plan_entry *e =
		        s->count ? bsearch(name, s->entries, s->count,
		                           sizeof *s->entries, entry_cmp)
		                 : NULL;
		if (!e)
			continue;
		int rc = ccp_plan_load_emitted(ctx, e->plan, rank, plan);
		return rc ? named(ctx, rc, name) : 0;
	}

	/* the plan cache, as `ccplan cache path` finds it */
	char path[4096], err[256];
	int rc = cache_default_path(path, sizeof path);
	if (rc == CCP_ENOTFOUND)
		return ccp__error(ctx, rc,
		                  "plan '%s': not in the %zu registered plan "
		                  "sets, and no plan cache (CCPLAN_CACHE, "
		                  "XDG_CACHE_HOME and HOME are unset)",
		                  name, nsets);
	if (rc)
		return ccp__error(
		        ctx, rc, "plan '%s': the plan cache's path is too long",
		        name);
	cache *c = NULL;
	rc = cache_open(path, CACHE_READONLY | CACHE_NO_CHECK, &c, NULL, err,
	                sizeof err);
	if (rc == CCP_ENOTFOUND)
		return ccp__error(ctx, rc,
		                  "plan '%s': not in the %zu registered plan "
		                  "sets, and there is no plan cache %s",
		                  name, nsets, path);
	if (rc)
		return ccp__error(ctx, rc, "plan '%s': plan cache: %s", name,
		                  err);
	uint8_t key[CACHE_KEY_SIZE];
	rc = cache_name_get(c, name, key, NULL, NULL);
	if (rc == CCP_ENOTFOUND)
		rc = ccp__error(
		        ctx, rc,
		        "plan '%s': not in the %zu registered plan sets "
		        "nor named in the plan cache %s (ccplan scan "
		        "names the plans of a program's sources)",
		        name, nsets, path);
	else if (rc)
		rc = ccp__error(ctx, rc, "plan '%s': plan cache %s: %s", name,
		                path, cache_errmsg(c));
	cache_close(c);
	if (rc)
		return rc;
	char hex[CACHE_KEY_HEX];
	cache_key_hex(key, hex);
	rc = ccp_plan_load_cache(ctx, path, hex, rank, plan);
	if (rc == CCP_ENOTFOUND)
		return ccp__error(ctx, rc,
		                  "plan '%s': named in the plan cache %s, but "
		                  "its plan %s is no longer there; run ccplan "
		                  "scan again",
		                  name, path, hex);
	return rc ? named(ctx, rc, name) : 0;
}
