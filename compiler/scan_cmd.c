/*
 * scan_cmd.c - `ccplan scan` (scan_cmd.h): scan the sources, resolve the
 * names to YAML inputs, compile each input once (plans of equal inputs
 * share one key and one image), then write everything or nothing: the
 * plans and their names into the cache, or one C file holding every plan
 * (the emitter of emit_c.h) and the table `const struct ccp_plan_set
 * ccplan_plans` that ccp_plan_register takes.  Every check and every
 * compile happens before the first write.  docs/scan.md.
 */
/* realpath() is XSI, beyond the _POSIX_C_SOURCE the build defines */
#define _XOPEN_SOURCE 700

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "cached.h"
#include "compile.h"
#include "emit_c.h"
#include "scan.h"
#include "scan_cmd.h"

/* One distinct plan (name) and what became of it. */
struct job {
	const struct scan_plan *p;     /* the name and its YAML file */
	uint8_t key[CACHE_KEY_SIZE];   /* the input's key */
	char hex[CACHE_KEY_HEX];       /* the key in hex; "" until read */
	int same;                      /* the first job with this key, or -1 */
	uint8_t *img;                  /* the image (same == -1 only) */
	size_t len;                    /* its bytes */
	bool hit;                      /* the image came from the cache */
	struct cache_meta meta;        /* what cache_put stores (same == -1) */
	char sym[EMIT_C_NAME_MAX + 1]; /* --emit c: the plan's symbol */
};

static void jobs_free(struct job *jobs, size_t n)
{
	for (size_t i = 0; jobs && i < n; i++) {
		free(jobs[i].img);
		free(jobs[i].meta.canonical);
	}
	free(jobs);
}

static void print_diag(const struct diag *d)
{
	if (!d->file[0])
		fprintf(stderr, "ccplan scan: %s\n", d->message);
	else
		front_print_diag(stderr, d->file, d->line, d->column,
		                 d->message, d->source_line);
}

/* ---- scanning ----------------------------------------------------------- */

/* Scan every source and resolve the names; prints every problem.  0, or
 * the exit status. */
static int scan_all(const struct scan_opts *o, struct scan *s,
                    struct scan_plan **plans, size_t *nplans)
{
	int worst = 0;
	for (size_t i = 0; i < o->nfiles; i++) {
		int rc = scan_source(s, o->files[i], o->flags, o->nflags);
		if (rc == CCP_ENOMEM || rc == CCP_EINTERNAL)
			worst = EXIT_INTERNAL;
		else if (rc && worst == 0)
			worst = EXIT_BADINPUT;
	}
	if (o->verbose) {
		for (size_t i = 0; i < s->nreqs; i++) {
			const struct scan_req *r = &s->reqs[i];
			if (r->form == SCAN_CALL)
				fprintf(stderr,
				        "%s:%d:%d: plan '%s': asked for by "
				        "%s()\n",
				        r->at.file, r->at.line, r->at.column,
				        r->name, SCAN_LOOKUP_FN);
			else
				fprintf(stderr,
				        "%s:%d:%d: plan '%s': #pragma ccplan, "
				        "%s\n",
				        r->at.file, r->at.line, r->at.column,
				        r->name, r->yaml);
		}
		for (size_t i = 0; i < s->nnotes; i++)
			fprintf(stderr, "%s:%d:%d: %s\n", s->notes[i].at.file,
			        s->notes[i].at.line, s->notes[i].at.column,
			        s->notes[i].message);
	}
	if (worst == 0) {
		int rc = scan_resolve(s, o->dirs, o->ndirs, plans, nplans);
		if (rc)
			worst = rc == CCP_EPARSE ? EXIT_BADINPUT
			                         : EXIT_INTERNAL;
	}
	for (size_t i = 0; i < s->nerrors; i++)
		print_diag(&s->errors[i]);
	if (worst == 0 && o->verbose && *nplans == 0)
		fprintf(stderr, "ccplan scan: no plan requests found\n");
	return worst;
}

/* ---- compiling ---------------------------------------------------------- */

/* Read the job's YAML and its key. */
static int read_input(struct job *j, struct front_input *in)
{
	struct diag d;
	memset(&d, 0, sizeof d);
	int rc = front_parse_file(j->p->yaml, in, &d);
	if (rc) {
		if (!d.message[0])
			snprintf(d.message, sizeof d.message, "%s",
			         ccp_strerror(rc));
		if (!d.file[0])
			snprintf(d.file, sizeof d.file, "%s", j->p->yaml);
		print_diag(&d);
		fprintf(stderr, "%s:%d:%d: note: plan '%s' asked for here\n",
		        j->p->by->at.file, j->p->by->at.line,
		        j->p->by->at.column, j->p->name);
		return rc;
	}
	if ((rc = front_input_hash(in, j->key)) != 0) {
		front_input_fini(in);
		return rc;
	}
	cache_key_hex(j->key, j->hex);
	return 0;
}

/* Print w's lines as scan's warnings and empty it. */
static void warn_notes(struct cached_notes *w)
{
	for (int i = 0; i < w->n; i++)
		fprintf(stderr, "ccplan scan: warning: %s\n", w->text[i]);
	cached_notes_fini(w);
}

/* Get the job's plan (compile_cached, through the read-only cache cc):
 * its image and meta, from the cache when it has the plan and it
 * verifies, else compiled.  Prints the warnings and what went wrong. */
static int compile_job(struct job *j, const struct front_input *in,
                       struct compile_cache *cc)
{
	struct cached_plan cp;
	struct cached_notes w = {0};
	struct diag d;
	memset(&d, 0, sizeof d);
	snprintf(d.file, sizeof d.file, "%s", j->p->yaml);
	int rc = compile_cached(in, j->key, cc,
	                        COMPILE_CACHED_NO_STORE | COMPILE_CACHED_HIT_META,
	                        &cp, &w, &d);
	warn_notes(&w);
	if (rc && cp.failed == CACHED_ENCODE) {
		fprintf(stderr, "ccplan scan: %s: %s\n", j->p->yaml, cp.err);
	} else if (rc) {
		if (rc == CCP_EVERIFY || d.line == 0)
			fprintf(stderr, "%s: %s\n", j->p->yaml, d.message);
		else
			print_diag(&d);
		fprintf(stderr, "%s:%d:%d: note: plan '%s' asked for here\n",
		        j->p->by->at.file, j->p->by->at.line,
		        j->p->by->at.column, j->p->name);
	} else {
		j->img = cp.img; /* the job's now */
		j->len = cp.len;
		j->meta = cp.meta; /* as stored on a hit, text too */
		j->hit = cp.hit;
	}
	return rc;
}

/* Read every input, share equal keys, and get each distinct plan: from
 * the cache k (read-only; may be NULL) when it has it, else compiled; a
 * hit that carries the seal of key (NULL: none) is served by it, any
 * other is verified in full.  0 or the worst CCP code (everything
 * printed). */
static int build_all(struct job *jobs, size_t n, cache *k,
                     const struct compile_cache *key)
{
	struct compile_cache cc = {.k = k, .ro = true};
	if (key && key->sealing) {
		cc.sealing = true;
		cc.seal = key->seal;
	}
	int worst = 0;
	for (size_t i = 0; i < n; i++) {
		struct job *j = &jobs[i];
		struct front_input in;
		j->same = -1;
		int rc = read_input(j, &in);
		if (rc) {
			worst = worst ? worst : rc;
			continue;
		}
		for (size_t q = 0; q < i && j->same < 0; q++)
			if (jobs[q].hex[0] &&
			    memcmp(jobs[q].key, j->key, sizeof j->key) == 0)
				j->same = (int)q;
		if (j->same < 0)
			rc = compile_job(j, &in, &cc);
		front_input_fini(&in);
		if (rc && (!worst || rc == CCP_EVERIFY))
			worst = rc;
	}
	if (cc.sealing)
		seal_key_forget(&cc.seal);
	return worst;
}


/* The image a job's plan is in. */
static const struct job *owner(const struct job *jobs, const struct job *j)
{
	return j->same < 0 ? j : &jobs[j->same];
}

/* ---- into the cache ----------------------------------------------------- */

static int to_cache(const struct scan_opts *o, const struct scan_plan *plans,
                    size_t n)
{
	char path[4096], err[512];
	if (o->cache_path) {
		snprintf(path, sizeof path, "%s", o->cache_path);
	} else if (cache_default_path(path, sizeof path) != 0) {
		fprintf(stderr, "ccplan scan: no cache: set CCPLAN_CACHE, "
		                "XDG_CACHE_HOME "
		                "or HOME, or give --cache PATH or --emit c\n");
		return EXIT_BADINPUT;
	}
	if (n == 0)
		return EXIT_OK;
	struct job *jobs = calloc(n, sizeof *jobs);
	if (!jobs)
		return EXIT_INTERNAL;
	for (size_t i = 0; i < n; i++)
		jobs[i].p = &plans[i];
	/* what the cache has, read-only: nothing is written (not even a new
	 * cache file) before every plan is made */
	cache *k = NULL;
	struct cache_event ev;
	if (cache_open(path, CACHE_READONLY | CACHE_NO_CHECK, &k, NULL, err,
	               sizeof err) != 0)
		k = NULL; /* none yet, or unreadable: the open below says */
	/* the user's sealing key (docs/cache.md): hits it sealed are served
	 * without a second verification, and every plan stored is sealed */
	struct compile_cache sc = {0};
	struct cached_notes w = {0};
	compile_cache_load_key(&sc, &w);
	warn_notes(&w);
	int rc = build_all(jobs, n, k, &sc);
	cache_close(k);
	k = NULL;
	if (rc) {
		rc = exit_status(rc);
		goto out;
	}
	if ((rc = cache_open(path, 0, &k, &ev, err, sizeof err)) != 0) {
		fprintf(stderr, "ccplan scan: cache %s: %s\n", path, err);
		rc = exit_status(rc);
		goto out;
	}
	if (ev.moved_aside)
		fprintf(stderr,
		        "ccplan scan: warning: cache %s was damaged (%s); "
		        "moved "
		        "to %s and started afresh\n",
		        path, ev.reason, ev.aside);
	/* every plan is made: now write, plans first, then the names */
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct job *j = &jobs[i];
		if (j->same >= 0)
			continue; /* a hit is stored again: it stays used */
		if ((rc = cache_put(k, j->key, j->img, j->len, &j->meta)) != 0)
			fprintf(stderr, "ccplan scan: cache: %s\n",
			        cache_errmsg(k));
	}
	/* a put drops the entry's seals; every image here was verified
	 * (compiled, or a hit verified or sealed): seal it again */
	sc.k = k;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (jobs[i].same < 0)
			compile_cache_seal(&sc, jobs[i].key, jobs[i].img,
			                   jobs[i].len, &w);
	warn_notes(&w);
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct job *j = &jobs[i];
		char *abs = realpath(j->p->yaml, NULL);
		rc = cache_name_put(k, j->p->name, j->key,
		                    abs ? abs : j->p->yaml);
		free(abs);
		if (rc) {
			fprintf(stderr, "ccplan scan: cache: %s\n",
			        cache_errmsg(k));
			break;
		}
		if (!o->verbose)
			continue;
		const struct job *w = owner(jobs, j);
		fprintf(stderr,
		        "plan '%s': %s: %s, %u phases (lower bound %u), key "
		        "%s: %s\n",
		        j->p->name, j->p->yaml, w->meta.algorithm,
		        w->meta.phases, w->meta.lb_phases, j->hex,
		        j->same >= 0 ? "the same plan as another name"
		        : j->hit     ? "already in the cache; named"
		                     : "compiled, stored and named");
	}
	rc = rc ? EXIT_INTERNAL : EXIT_OK; /* a write failed */
out:
	if (sc.sealing)
		seal_key_forget(&sc.seal);
	cache_close(k);
	jobs_free(jobs, n);
	return rc;
}

/* ---- into a C file ------------------------------------------------------ */

/* Characters printed as they are in comments. */
static bool plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("_-.+,:=@/ ", c));
}

/* s inside a comment: anything not plain as '_' (no comment end, no
 * trigraph, no line splice). */
static void put_comment_text(struct tbuf *t, const char *s)
{
	for (const unsigned char *q = (const unsigned char *)s; *q; q++)
		tb_printf(t, "%c", plain(*q) ? *q : '_');
}

/* The symbol of job number i: SET_I_NAME, the name's characters that
 * cannot be in an identifier as '_', cut to EMIT_C_NAME_MAX. */
static void job_symbol(const char *set, size_t i, const char *name,
                       char out[EMIT_C_NAME_MAX + 1])
{
	int n = snprintf(out, EMIT_C_NAME_MAX + 1, "%s_%zu_", set, i);
	for (const char *q = name; *q && n < EMIT_C_NAME_MAX; q++, n++) {
		char c = *q;
		bool id = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		          (c >= '0' && c <= '9') || c == '_';
		out[n] = id ? c : '_';
	}
	out[n] = '\0';
}

/* One path of a make rule: spaces, '#' and '$' escaped as make wants. */
static void put_make_path(struct tbuf *t, const char *path, bool lead)
{
	if (lead)
		tb_printf(t, " ");
	for (const char *q = path; *q; q++) {
		if (*q == ' ' || *q == '#' || *q == '\\')
			tb_printf(t, "\\");
		if (*q == '$')
			tb_printf(t, "$");
		tb_printf(t, "%c", *q);
	}
}

/* The depfile of --emit c: OUT.c depends on every source and every YAML
 * the plans came from, so a build system scans again when one changes
 * (CMake's DEPFILE, in ccplan_scan_sources). */
static int write_depfile(const struct scan_opts *o, const struct scan_plan *plans,
                         size_t n, char *err, size_t errlen)
{
	struct tbuf t = {NULL, 0, 0, false};
	put_make_path(&t, o->out, false);
	tb_printf(&t, ":");
	for (size_t i = 0; i < o->nfiles; i++)
		put_make_path(&t, o->files[i], true);
	for (size_t i = 0; i < n; i++)
		put_make_path(&t, plans[i].yaml, true);
	tb_printf(&t, "\n");
	int rc = t.nomem ? CCP_ENOMEM
	                 : write_atomic(o->depfile, t.p, t.len, err, errlen);
	if (t.nomem)
		snprintf(err, errlen, "out of memory");
	free(t.p);
	return rc;
}

static int to_c(const struct scan_opts *o, const struct scan_plan *plans, size_t n)
{
	struct job *jobs = calloc(n ? n : 1, sizeof *jobs);
	struct tbuf t = {NULL, 0, 0, false};
	char err[512];
	int rc = 0;
	if (!jobs)
		return EXIT_INTERNAL;
	for (size_t i = 0; i < n; i++)
		jobs[i].p = &plans[i];
	if ((rc = build_all(jobs, n, NULL, NULL)) != 0) {
		rc = exit_status(rc);
		goto out;
	}

	tb_printf(&t, "/*\n * %s - the plans ccplan scan found",
	    strrchr(o->out, '/') ? strrchr(o->out, '/') + 1 : o->out);
	tb_printf(&t,
	    " (ccplan %s, --emit c);\n"
	    " * do not edit, scan the sources again.\n *\n",
	    CCPLAN_VERSION);
	size_t width = 0;
	for (size_t i = 0; i < n; i++)
		if (strlen(jobs[i].p->name) > width)
			width = strlen(jobs[i].p->name);
	width = width > 24 ? 24 : width;
	for (size_t i = 0; i < n; i++) {
		tb_printf(&t, " *   ");
		put_comment_text(&t, jobs[i].p->name);
		tb_printf(&t, "%*s  ",
		    (int)(width - (strlen(jobs[i].p->name) < width
		                           ? strlen(jobs[i].p->name)
		                           : width)),
		    "");
		put_comment_text(&t, jobs[i].p->yaml);
		tb_printf(&t, "  %s, %u phases\n",
		    owner(jobs, &jobs[i])->meta.algorithm,
		    owner(jobs, &jobs[i])->meta.phases);
	}
	if (n == 0)
		tb_printf(&t, " *   (no plans)\n");
	tb_printf(&t,
	    " *\n"
	    " * Link it with the ccplan runtime and register the set once:\n"
	    " *     ccp_plan_register(ctx, &%s);\n"
	    " * then ccp_plan_lookup(ctx, \"NAME\", rank, &plan) loads these "
	    "plans.\n"
	    " */\n"
	    "#include <stddef.h>\n"
	    "#include <stdint.h>\n"
	    "\n"
	    "#include \"ccplan_emitted.h\"\n"
	    "#include \"ccplan_lookup.h\"\n"
	    "\n"
	    "#if CCP_PLAN_SET_ABI != 1\n"
	    "#error \"emitted for ccplan_lookup.h set ABI 1: scan again\"\n"
	    "#endif\n",
	    o->symbol);
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct job *j = &jobs[i];
		if (j->same >= 0) {
			memcpy(j->sym, jobs[j->same].sym, sizeof j->sym);
			continue;
		}
		job_symbol(o->symbol, i, j->p->name, j->sym);
		char *src = NULL;
		size_t len = 0;
		rc = emit_c(j->img, j->len, j->sym, &src, &len, err,
		            sizeof err);
		if (rc) {
			fprintf(stderr, "ccplan scan: %s: %s\n", j->p->yaml,
			        err);
			rc = EXIT_INTERNAL;
			break;
		}
		tb_printf(&t, "\n/* ---- plan '");
		put_comment_text(&t, j->p->name);
		tb_printf(&t, "' ---- */\n\n%s", src);
		free(src);
	}
	if (rc)
		goto out;
	if (n) {
		tb_printf(&t,
		    "\n/* Plan names, sorted, and their plans. */\n"
		    "static const struct ccp_plan_entry %s_entries[%zu] = {\n",
		    o->symbol, n);
		for (size_t i = 0; i < n; i++) {
			tb_printf(&t, "\t{");
			tb_literal(&t, jobs[i].p->name);
			tb_printf(&t, ", &%s},\n", jobs[i].sym);
		}
		tb_printf(&t, "};\n");
	}
	tb_printf(&t,
	    "\n/* The set: ccp_plan_register(ctx, &%s). */\n"
	    "const struct ccp_plan_set %s = {\n"
	    "\t.abi = CCP_PLAN_SET_ABI,\n"
	    "\t.count = %zuu,\n"
	    "\t.entries = %s%s,\n"
	    "};\n",
	    o->symbol, o->symbol, n, n ? o->symbol : "NULL",
	    n ? "_entries" : "");
	if (t.nomem) {
		fprintf(stderr, "ccplan scan: out of memory\n");
		rc = EXIT_INTERNAL;
		goto out;
	}
	if (write_atomic(o->out, t.p, t.len, err, sizeof err) != 0 ||
	    (o->depfile && write_depfile(o, plans, n, err, sizeof err) != 0)) {
		fprintf(stderr, "ccplan scan: %s\n", err);
		rc = EXIT_INTERNAL;
		goto out;
	}
	for (size_t i = 0; o->verbose && i < n; i++) {
		const struct job *w = owner(jobs, &jobs[i]);
		fprintf(stderr,
		        "plan '%s': %s: %s, %u phases (lower bound %u), key "
		        "%s: emitted as %s in %s\n",
		        jobs[i].p->name, jobs[i].p->yaml, w->meta.algorithm,
		        w->meta.phases, w->meta.lb_phases, jobs[i].hex,
		        jobs[i].sym, o->out);
	}
out:
	free(t.p);
	jobs_free(jobs, n);
	return rc;
}

int scan_run(const struct scan_opts *o)
{
	struct scan s;
	struct scan_plan *plans = NULL;
	size_t nplans = 0;
	scan_init(&s);
	int rc = scan_all(o, &s, &plans, &nplans);
	if (rc == 0)
		rc = o->emit ? to_c(o, plans, nplans)
		             : to_cache(o, plans, nplans);
	scan_plans_free(plans, nplans);
	scan_fini(&s);
	return rc;
}
