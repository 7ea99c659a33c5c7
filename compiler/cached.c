/*
 * cached.c - the one cached pipeline (cached.h): key, look-up, a hit
 * verified before it is served, compile on a miss, encode, store.  Every
 * caller that keeps plans in the cache comes through here, so a hit is
 * checked, and damage is met, the same way everywhere; what happened is
 * reported in the result, for the command to print.
 */
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cached.h"
#include "select.h"

/* Add a line to w (printf-style); dropped when w is full or out of
 * memory, which loses a warning, never the compile. */
static void note(struct cached_notes *w, const char *fmt, ...)
{
	va_list ap;
	if (!w || w->n >= CACHED_NOTES_MAX)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!s)
		return;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	w->text[w->n++] = s;
}

void cached_notes_fini(struct cached_notes *w)
{
	for (int i = 0; i < w->n; i++)
		free(w->text[i]);
	memset(w, 0, sizeof *w);
}

void compile_cache_load_key(struct compile_cache *cc,
                            struct cached_notes *w)
{
	char kp[4096], err[512];
	if (seal_key_path(kp, sizeof kp) != 0)
		return;
	int rc = seal_key_load(kp, &cc->seal, err, sizeof err);
	if (rc == 0)
		cc->sealing = true;
	else if (rc == CCP_EINVAL)
		note(w, "%s; cached plans are verified in full", err);
}

void compile_cache_open(struct compile_cache *cc, const char *path,
                        unsigned flags, struct cached_notes *w)
{
	char err[512], rerr[512];
	struct cache_event ev;
	cc->k = NULL;
	cc->path = path;
	cc->ro = false;
	cc->sealing = false;
	if (!path)
		return;
	int rc = cache_open(path, flags, &cc->k, &ev, err, sizeof err);
	if (rc && (rc == CCP_EIO || rc == CCP_EINTERNAL) &&
	    cache_open(path, CACHE_READONLY | flags, &cc->k, NULL, rerr,
	               sizeof rerr) == 0) {
		note(w,
		     "cache %s: %s; reading it only, the plan will not be "
		     "stored",
		     path, err);
		cc->ro = true;
		compile_cache_load_key(cc, w);
		return;
	}
	if (rc) {
		cc->k = NULL;
		note(w, "cache %s: %s; compiling without it", path, err);
		return;
	}
	compile_cache_load_key(cc, w);
	if (ev.moved_aside)
		note(w,
		     "cache %s was damaged (%s); moved to %s and started "
		     "afresh",
		     path, ev.reason, ev.aside);
	const char *fs = cache_network_fs(path);
	if (fs)
		note(w,
		     "cache %s is on %s, a network file system, "
		     "where SQLite's locks are unreliable and every lookup "
		     "crosses the network; set CCPLAN_CACHE to a file on "
		     "local storage (such as $TMPDIR/ccplan/plans.db)",
		     path, fs);
}

void compile_cache_close(struct compile_cache *cc)
{
	cache_close(cc->k);
	cc->k = NULL;
	if (cc->sealing)
		seal_key_forget(&cc->seal);
	cc->sealing = false;
}

void compile_cache_seal(struct compile_cache *cc, const uint8_t *key,
                        const void *img, size_t len, struct cached_notes *w)
{
	uint8_t s[SEAL_BYTES];
	if (!cc->k || cc->ro || !cc->sealing)
		return;
	seal_make(&cc->seal, key, img, len, s);
	if (cache_seal(cc->k, key, cc->seal.signer, s, sizeof s) != 0)
		note(w, "cache: %s; the plan is not sealed",
		     cache_errmsg(cc->k));
}

/* After a get or put met damage in cc (CCP_EFORMAT): close it and, when
 * its path is known, open it again with PRAGMA quick_check, which moves a
 * damaged file aside and starts afresh.  cc->k is the new handle, or
 * NULL. */
static void reopen_checked(struct compile_cache *cc, struct cached_notes *w)
{
	note(w, "cache: %s; checking the file", cache_errmsg(cc->k));
	compile_cache_close(cc);
	if (cc->path)
		compile_cache_open(cc, cc->path, 0, w);
}

/* Whether the image a hit gave (len bytes at img, under key) is a plan
 * this compiler would write for the input in: decoded, verified again,
 * every rank's operations those of a fresh lowering (plan_load_image, as
 * `ccplan verify` does), and its collective and machine those the input
 * asks for.  The cache checks only that the bytes are those stored for
 * the key; a plan that was stored wrong or replaced is refused here and
 * treated as a damaged entry: removed (unless the cache is read-only)
 * and compiled afresh, never served. */
static bool hit_verifies(const struct compile_cache *cc, const uint8_t *key,
                         const struct front_input *in, const void *img,
                         size_t len, struct cached_notes *w)
{
	struct compiled hc;
	ir_file_info fi;
	char err[512], what[64], hex[CACHE_KEY_HEX];
	cache_key_hex(key, hex);
	snprintf(what, sizeof what, "cached plan %s", hex);
	int rc = plan_load_image(img, len, what, &hc, &fi, err, sizeof err);
	if (rc == 0) {
		const ir_plan *p = &hc.plan;
		bool fits = p->comm.coll == in->comm.coll &&
		            p->machine.topo == in->machine.topo &&
		            p->machine.nranks == in->machine.nranks;
		if (!fits)
			snprintf(err, sizeof err,
			         "%s: a plan of %s on %d ranks (%s), where the "
			         "input asks for %s on %d ranks (%s)",
			         what, ir_coll_name(p->comm.coll),
			         (int)p->machine.nranks,
			         ir_topo_name(p->machine.topo),
			         ir_coll_name(in->comm.coll),
			         (int)in->machine.nranks,
			         ir_topo_name(in->machine.topo));
		compiled_fini(&hc);
		if (fits)
			return true;
	}
	/* out of memory says nothing about the plan: it stays, unserved */
	const char *fate = "the cache is read-only, left in place";
	if (rc == CCP_ENOMEM)
		fate = "not verified, left in place";
	else if (!cc->ro)
		fate = cache_drop(cc->k, key, img, len)
		               ? "it could not be removed"
		               : "removed";
	note(w, "cache: %s; %s; compiling", err, fate);
	return false;
}

/* Look key up in cc: true with out->img, out->len (and the stored meta
 * when asked) on a hit that verifies; false on a miss, or after a
 * failure that is a line in w. */
static bool look_up(struct compile_cache *cc, const struct front_input *in,
                    unsigned flags, struct cached_plan *out,
                    struct cached_notes *w)
{
	void *blob = NULL;
	struct cache_meta *m =
	        flags & COMPILE_CACHED_HIT_META ? &out->meta : NULL;
	struct cache_sealer s = {.check = seal_check, .arg = &cc->seal};
	memcpy(s.signer, cc->seal.signer, sizeof s.signer);
	int got = cache_get_sealed(cc->k, out->key, cc->sealing ? &s : NULL,
	                           &blob, &out->len, m, &out->sealed);
	if (got == CCP_EFORMAT && cc->path) {
		reopen_checked(cc, w);
		return false; /* a moved-aside cache is empty */
	}
	if (got == 0 && out->sealed) {
		out->img = blob;
		return true;
	}
	if (got == 0 && hit_verifies(cc, out->key, in, blob, out->len, w)) {
		compile_cache_seal(cc, out->key, blob, out->len, w);
		out->img = blob;
		return true;
	}
	if (got == 0) /* said: compiled afresh */
		got = CCP_EVERIFY;
	else if (got != CCP_ENOTFOUND)
		note(w, "cache: %s; compiling", cache_errmsg(cc->k));
	free(blob);
	if (m)
		cache_meta_fini(m);
	out->len = 0;
	return false;
}

/* Store the compiled out under its key; a failure is a line in w. */
static void store(struct compile_cache *cc, struct cached_plan *out,
                  struct cached_notes *w)
{
	int put = cache_put(cc->k, out->key, out->img, out->len, &out->meta);
	if (put == CCP_EFORMAT && cc->path) {
		reopen_checked(cc, w);
		put = cc->k && !cc->ro ? cache_put(cc->k, out->key, out->img,
		                                   out->len, &out->meta)
		                       : 0;
	}
	if (put)
		note(w, "cache: %s; the plan is not cached",
		     cache_errmsg(cc->k));
	else if ((out->stored = cc->k && !cc->ro))
		compile_cache_seal(cc, out->key, out->img, out->len, w);
}

/* Compile in under out->key, encode it, and describe it in out->meta. */
static int build(const struct front_input *in, struct cached_plan *out,
                 struct diag *d)
{
	struct compiled c;
	int rc = compile_input_key(in, out->key, &c, d);
	if (rc) {
		out->failed = CACHED_COMPILE;
		return rc;
	}
	if (c.plan.sel.method != IR_SELECT_NONE && isnan(c.plan.sel.time_us))
		out->by_phases = c.plan.sel.candidates;
	rc = compile_encode(&c, &out->img, &out->len, out->err,
	                    sizeof out->err);
	if (rc == 0) {
		enum model_kind mk;
		char why[256];
		out->meta.phases = c.report.phases;
		out->meta.lb_phases = c.report.lb_phases;
		out->meta.predicted = select_predict(&c.plan, &c.report, &mk,
		                                     why, sizeof why);
		snprintf(out->meta.algorithm, sizeof out->meta.algorithm, "%s",
		         c.plan.algorithm);
		out->transfers = c.report.transfers;
		if (!(out->meta.canonical = front_canonical(in))) {
			rc = CCP_ENOMEM;
			snprintf(out->err, sizeof out->err,
			         "the canonical input: %s", ccp_strerror(rc));
		}
	}
	if (rc)
		out->failed = CACHED_ENCODE;
	compiled_fini(&c);
	return rc;
}

int compile_cached(const struct front_input *in, const uint8_t *key,
                   struct compile_cache *cc, unsigned flags,
                   struct cached_plan *out, struct cached_notes *w,
                   struct diag *d)
{
	uint8_t given[CACHE_KEY_SIZE];
	if (key) /* it may be out's own */
		memcpy(given, key, sizeof given);
	memset(out, 0, sizeof *out);
	int rc = 0;
	if (key)
		memcpy(out->key, given, sizeof out->key);
	else
		rc = front_input_hash(in, out->key);
	if (rc) {
		out->failed = CACHED_HASH;
		snprintf(d->message, sizeof d->message, "hashing the input: %s",
		         ccp_strerror(rc));
		return rc;
	}
	cache_key_hex(out->key, out->hex);
	if (cc && cc->k && look_up(cc, in, flags, out, w)) {
		out->hit = true;
		return 0;
	}
	if ((rc = build(in, out, d)) != 0) {
		cached_plan_fini(out);
		return rc;
	}
	if (cc && cc->k && !cc->ro && !(flags & COMPILE_CACHED_NO_STORE))
		store(cc, out, w);
	return 0;
}

void cached_plan_fini(struct cached_plan *p)
{
	free(p->img);
	free(p->meta.canonical);
	p->img = NULL;
	p->meta.canonical = NULL;
	p->len = 0;
}

bool compile_cached_in_file(struct compile_cache *cc,
                            const uint8_t key[CACHE_KEY_SIZE],
                            const char *path, ir_file_info *fi)
{
	uint8_t seal[CACHE_SEAL_MAX], head[IR_FILE_HEADER_MIN];
	struct cache_meta m;
	struct stat sb;
	uint64_t sum;
	size_t n;
	char err[256];
	if (!cc || !cc->k || !cc->sealing ||
	    cache_peek_seal(cc->k, key, cc->seal.signer, &m, &sum, seal, &n) ||
	    n != SEAL_BYTES || m.size < IR_FILE_HEADER_MIN)
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	bool same = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	            (uint64_t)sb.st_size == m.size &&
	            seal_check_fd(&cc->seal, key, sum, fd, m.size, seal, n,
	                          head, sizeof head);
	close(fd);
	return same && ir_file_info_read(head, sizeof head, fi, err,
	                                 sizeof err) == 0;
}
