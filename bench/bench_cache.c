/*
 * bench_cache.c - what the plan cache saves, and what checking a hit
 * costs (docs/cache.md, "What a hit costs"): for a few inputs, from a
 * 256-rank broadcast to 65,536-rank ones, the time of a compile that
 * misses (parse, hash, look up, generate, verify, lower, encode, store,
 * seal) against one that only looks up (parse, hash, the cache's own
 * checks of the image), one that hits and verifies the plan as `ccplan
 * compile` does without a seal (plan_load_image: decode, verify, lower
 * again, compare every rank's operations), and one that hits an entry
 * sealed with its key (one Poly1305 pass over the image, no
 * verification): the hit of `ccplan compile` once the plan is sealed.
 * Everything is what the command does before it writes the output file
 * (the miss and the hits through compile_cached, as the command), in
 * one process, on a fresh cache in a temporary directory.  Each hit
 * comes (by the cache's clock) seconds after the entry's last use,
 * within CACHE_USE_GRAIN_S, so that it writes nothing, as a hit in a
 * rebuild does.  Medians and ranges of REPS runs; then where a verified
 * hit's time goes, stage by stage.
 * Usage: bench_cache [REPS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cache.h"
#include "cached.h"
#include "compile.h"

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench_cache: %s: %s\n", what, why);
	exit(3);
}

enum how { MISS, HIT, HIT_VERIFIED, HIT_SEALED, NHOW };

/* The key the miss and the sealed hit seal with (a file of the bench's
 * own, never the user's). */
static struct seal_key sealer;

/* One compile as the command does it, through the cache k: a miss
 * compiles and stores, a hit (HIT_VERIFIED) is checked with
 * plan_load_image, both through compile_cached; a hit that skips the
 * check (HIT) takes the stored image with cache_get alone.  Dies if the
 * cache does not do what `how` expects.  The image size into *size. */
static void compile_once(cache *k, const char *text, enum how how,
                         size_t *size)
{
	struct front_input in;
	struct diag d;
	memset(&d, 0, sizeof d);
	if (front_parse_string("bench.yaml", text, strlen(text), &in, &d))
		die("parse", d.message);
	if (how == HIT) {
		uint8_t key[CACHE_KEY_SIZE];
		void *blob = NULL;
		front_input_hash(&in, key);
		if (cache_get(k, key, &blob, size, NULL))
			die("cache", "expected a hit");
		free(blob);
		front_input_fini(&in);
		return;
	}
	struct compile_cache cc = {.k = k, .sealing = how != HIT_VERIFIED,
	                           .seal = sealer};
	struct cached_plan cp;
	struct cached_notes w = {0};
	if (compile_cached(&in, NULL, &cc, 0, &cp, &w, &d))
		die("compile", cp.failed == CACHED_ENCODE ? cp.err : d.message);
	if (w.n)
		die("cache", w.text[0]);
	if (cp.hit != (how != MISS) || (how == MISS && !cp.stored) ||
	    cp.sealed != (how == HIT_SEALED))
		die("cache", how == MISS           ? "expected a miss, stored"
		             : how == HIT_SEALED ? "expected a sealed hit"
		                                 : "expected a verified hit");
	*size = cp.len;
	cached_plan_fini(&cp);
	front_input_fini(&in);
}

/* The key of text. */
static void key_of(const char *text, uint8_t key[CACHE_KEY_SIZE])
{
	struct front_input in;
	struct diag d;
	memset(&d, 0, sizeof d);
	if (front_parse_string("b.yaml", text, strlen(text), &in, &d))
		die("parse", d.message);
	front_input_hash(&in, key);
	front_input_fini(&in);
}

/* Milliseconds "median [min-max]" of v[0..n) (sorted in place). */
static void fmt_ms(double *v, int n, char *buf, size_t len)
{
	double m = bench_median(v, n);
	snprintf(buf, len, "%.2f [%.2f-%.2f]", 1e3 * m, 1e3 * v[0],
	         1e3 * v[n - 1]);
}

/* Where a verified hit of text's plan (already in k) goes: the look-up
 * with the cache's checks, then the stages of plan_load_image timed one
 * by one (decode, verify, lower, every rank's slice read and compared is
 * the rest); medians of reps. */
static void stages(cache *k, const char *name, const char *text, int reps)
{
	enum { GET, DECODE, VERIFY, LOWER, ALL, NSTAGE };
	double *t[NSTAGE];
	for (int s = 0; s < NSTAGE; s++)
		if (!(t[s] = malloc((size_t)reps * sizeof *t[s])))
			die("malloc", "out of memory");
	uint8_t key[CACHE_KEY_SIZE];
	char err[512];
	key_of(text, key);
	int64_t now = (int64_t)time(NULL) + 1000;
	for (int r = 0; r < reps; r++) {
		void *blob;
		size_t len;
		cache_set_time(k, now + 5 * r); /* a use to record */
		double t0 = bench_now();
		if (cache_get(k, key, &blob, &len, NULL))
			die("get", cache_errmsg(k));
		double t1 = bench_now();
		ir_plan p;
		ir_report rep;
		ir_file_info fi;
		ir_slice *sl = NULL;
		if (ir_plan_decode(blob, len, &p, &fi, err, sizeof err))
			die("decode", err);
		double t2 = bench_now();
		if (ir_verify(&p, &rep))
			die("verify", rep.message);
		double t3 = bench_now();
		if (ir_lower(&p, &sl))
			die("lower", "failed");
		double t4 = bench_now();
		ir_slices_free(sl, p.machine.nranks);
		ir_report_fini(&rep);
		ir_plan_fini(&p);
		struct compiled c;
		double t5 = bench_now();
		if (plan_load_image(blob, len, "cached plan", &c, &fi, err,
		                    sizeof err))
			die("load", err);
		double t6 = bench_now();
		compiled_fini(&c);
		free(blob);
		t[GET][r] = t1 - t0;
		t[DECODE][r] = t2 - t1;
		t[VERIFY][r] = t3 - t2;
		t[LOWER][r] = t4 - t3;
		t[ALL][r] = t6 - t5;
	}
	double m[NSTAGE];
	for (int s = 0; s < NSTAGE; s++) {
		m[s] = 1e3 * bench_median(t[s], reps);
		free(t[s]);
	}
	double rest = m[ALL] - m[DECODE] - m[VERIFY] - m[LOWER];
	printf("  %-30s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", name, m[GET],
	       m[DECODE], m[VERIFY], m[LOWER], rest > 0 ? rest : 0,
	       m[GET] + m[ALL]);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 7;
	if (reps < 1)
		reps = 1;
	static const struct {
		const char *name, *text;
	} inputs[] = {
	        {"binomial 16x16 broadcast",
	         "machine: {topology: mesh, dims: [16, 16], routing: xy, "
	         "ports: all}\n"
	         "communication: {collective: broadcast, root: [8, 8], "
	         "bytes: 4096}\nalgorithm: binomial\n"},
	        {"edn 32x32 broadcast",
	         "machine: {topology: mesh, dims: [32, 32], ports: all}\n"
	         "communication: {collective: broadcast, root: 7, bytes: "
	         "4096}\nalgorithm: edn\n"},
	        {"rs_nl 1024 ranks, degree 16",
	         "machine: {topology: hypercube, dimension: 10, ports: one}\n"
	         "communication: {pattern: irregular, generate: {kind: "
	         "regular, degree: 16, bytes: 1024, seed: 3}}\n"
	         "algorithm: rs_nl\nseed: 1\n"},
	        {"auto 16x16 broadcast (T3D)",
	         "machine: {topology: mesh, dims: [16, 16], ports: all, cost: "
	         "{preset: t3d}}\n"
	         "communication: {collective: broadcast, bytes: 1024}\n"
	         "algorithm: auto\n"},
	        {"edn 256x256 broadcast",
	         "machine: {topology: mesh, dims: [256, 256], ports: all}\n"
	         "communication: {collective: broadcast, bytes: 4096}\n"
	         "algorithm: edn\n"},
	        {"binomial 256x256 broadcast",
	         "machine: {topology: mesh, dims: [256, 256], ports: all}\n"
	         "communication: {collective: broadcast, bytes: 4096}\n"
	         "algorithm: binomial\n"},
	};
	enum { NINPUTS = sizeof inputs / sizeof inputs[0] };
	char dir[] = "/tmp/ccplan-bench-cacheXXXXXX", path[256], err[256];
	if (!mkdtemp(dir))
		die("mkdtemp", "cannot make a temporary directory");
	snprintf(path, sizeof path, "%s/cache-key", dir);
	if (seal_key_load(path, &sealer, err, sizeof err))
		die("key", err);
	unlink(path);
	snprintf(path, sizeof path, "%s/plans.db", dir);
	printf("plan cache: a compile that misses (and seals what it "
	       "stores), the look-up\nalone, a hit verified in full, and a "
	       "sealed hit (ms: median [min-max] of %d;\nratios: medians, "
	       "over the miss; goal: a hit at most 0.100 of the miss)\n\n",
	       reps);
	printf("  %-28s %9s %20s %20s %20s %20s %8s %8s\n", "input", "bytes",
	       "miss", "look-up", "verified hit", "sealed hit", "verified",
	       "sealed");
	double *t[NHOW];
	for (int h = 0; h < NHOW; h++)
		if (!(t[h] = malloc((size_t)reps * sizeof *t[h])))
			die("malloc", "out of memory");
	cache *k;
	for (size_t i = 0; i < NINPUTS; i++) {
		size_t size = 0;
		uint8_t key[CACHE_KEY_SIZE];
		key_of(inputs[i].text, key);
		for (int r = 0; r < reps; r++) {
			if (cache_open(path, 0, &k, NULL, err, sizeof err))
				die("open", err);
			cache_remove(k, key); /* a miss */
			int64_t now = (int64_t)time(NULL);
			/* the sealed hit before the verified one: each
			 * hit right after a step that allocated little */
			static const enum how order[NHOW] = {
			        MISS, HIT, HIT_SEALED, HIT_VERIFIED};
			for (int o = 0; o < NHOW; o++) {
				int h = order[o];
				/* each hit a few seconds after the last use:
				 * within CACHE_USE_GRAIN_S, so that it writes
				 * nothing, as a hit in a rebuild does */
				cache_set_time(k, now + 5 * o);
				double t0 = bench_now();
				compile_once(k, inputs[i].text, (enum how)h,
				             &size);
				t[h][r] = bench_now() - t0;
			}
			cache_close(k);
		}
		char cm[48], ch[48], cv[48], cs[48];
		double mm = bench_median(t[MISS], reps);
		double mv = bench_median(t[HIT_VERIFIED], reps);
		double ms = bench_median(t[HIT_SEALED], reps);
		fmt_ms(t[MISS], reps, cm, sizeof cm);
		fmt_ms(t[HIT], reps, ch, sizeof ch);
		fmt_ms(t[HIT_VERIFIED], reps, cv, sizeof cv);
		fmt_ms(t[HIT_SEALED], reps, cs, sizeof cs);
		printf("  %-28s %9zu %20s %20s %20s %20s %8.3f %8.3f\n",
		       inputs[i].name, size, cm, ch, cv, cs, mv / mm, ms / mm);
	}
	for (int h = 0; h < NHOW; h++)
		free(t[h]);

	printf("\nwhere a verified hit goes (ms, medians of %d): the look-up "
	       "with the\ncache's checks, then plan_load_image's stages\n\n",
	       reps);
	printf("  %-30s %9s %9s %9s %9s %9s %9s\n", "input", "get", "decode",
	       "verify", "lower", "slices", "total");
	if (cache_open(path, 0, &k, NULL, err, sizeof err))
		die("open", err);
	for (size_t i = 0; i < NINPUTS; i++)
		stages(k, inputs[i].name, inputs[i].text, reps);
	cache_close(k);

	unlink(path);
	char aux[300];
	snprintf(aux, sizeof aux, "%s-wal", path);
	unlink(aux);
	snprintf(aux, sizeof aux, "%s-shm", path);
	unlink(aux);
	rmdir(dir);
	return 0;
}
