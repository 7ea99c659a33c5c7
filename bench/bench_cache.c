/*
 * bench_cache.c - what the plan cache saves (issue 6): for a few inputs,
 * the time of a compile that misses (parse, generate, verify, lower,
 * encode, store) against one that hits (parse, hash, look up, check the
 * stored image).  Both are what `ccplan compile` does before it writes
 * the output file.  A fresh cache in a temporary directory; medians of
 * REPS runs.
 * Usage: bench_cache [REPS]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cache.h"
#include "compile.h"

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench_cache: %s: %s\n", what, why);
	exit(3);
}

/* One compile as the command does it, through the cache: returns whether
 * it was a hit, and the image size. */
static int compile_once(cache *k, const char *text, size_t *size)
{
	struct front_input in;
	struct diag d;
	uint8_t key[CACHE_KEY_SIZE];
	memset(&d, 0, sizeof d);
	if (front_parse_string("bench.yaml", text, strlen(text), &in, &d))
		die("parse", d.message);
	front_input_hash(&in, key);
	void *blob = NULL;
	size_t len = 0;
	int hit = cache_get(k, key, &blob, &len, NULL) == 0;
	if (!hit) {
		struct compiled c;
		char err[256];
		if (compile_input(&in, &c, &d))
			die("compile", d.message);
		uint8_t *img;
		if (compile_encode(&c, &img, &len, err, sizeof err))
			die("encode", err);
		struct cache_meta meta = {.phases = c.report.phases,
		                          .lb_phases = c.report.lb_phases,
		                          .predicted = NAN};
		snprintf(meta.algorithm, sizeof meta.algorithm, "%s",
		         c.plan.algorithm);
		if (cache_put(k, key, img, len, &meta))
			die("put", cache_errmsg(k));
		blob = img;
		compiled_fini(&c);
	}
	*size = len;
	free(blob);
	front_input_fini(&in);
	return hit;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 7;
	if (reps < 1)
		reps = 1;
	static const struct {
		const char *name, *text;
	} inputs[] = {
	        {"edn 32x32 broadcast",
	         "machine: {topology: mesh, dims: [32, 32], ports: all}\n"
	         "communication: {collective: broadcast, root: 7, bytes: "
	         "4096}\nalgorithm: edn\n"},
	        {"binomial 256x256 broadcast",
	         "machine: {topology: mesh, dims: [256, 256], ports: all}\n"
	         "communication: {collective: broadcast, bytes: 4096}\n"
	         "algorithm: binomial\n"},
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
	};
	char dir[] = "/tmp/ccplan-bench-cacheXXXXXX", path[256], err[256];
	if (!mkdtemp(dir))
		die("mkdtemp", "cannot make a temporary directory");
	snprintf(path, sizeof path, "%s/plans.db", dir);
	printf("plan cache: compile that misses vs compile that hits "
	       "(median of %d)\n\n",
	       reps);
	printf("  %-30s %10s %12s %12s %8s\n", "input", "plan bytes", "miss ms",
	       "hit ms", "speedup");
	double *tm = malloc((size_t)reps * sizeof *tm);
	double *th = malloc((size_t)reps * sizeof *th);
	if (!tm || !th)
		die("malloc", "out of memory");
	for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
		size_t size = 0;
		for (int r = 0; r < reps; r++) {
			cache *k;
			if (cache_open(path, 0, &k, NULL, err, sizeof err))
				die("open", err);
			/* a miss: the entry is removed first */
			struct front_input in;
			struct diag d;
			uint8_t key[CACHE_KEY_SIZE];
			if (front_parse_string("b.yaml", inputs[i].text,
			                       strlen(inputs[i].text), &in, &d))
				die("parse", d.message);
			front_input_hash(&in, key);
			front_input_fini(&in);
			cache_remove(k, key);
			double t0 = bench_now();
			if (compile_once(k, inputs[i].text, &size))
				die(inputs[i].name, "expected a miss");
			double t1 = bench_now();
			if (!compile_once(k, inputs[i].text, &size))
				die(inputs[i].name, "expected a hit");
			double t2 = bench_now();
			tm[r] = t1 - t0;
			th[r] = t2 - t1;
			cache_close(k);
		}
		double m = bench_median(tm, reps), h = bench_median(th, reps);
		printf("  %-30s %10zu %12.2f %12.2f %7.0fx\n", inputs[i].name,
		       size, 1e3 * m, 1e3 * h, m / h);
	}
	free(tm);
	free(th);
	unlink(path);
	char aux[300];
	snprintf(aux, sizeof aux, "%s-wal", path);
	unlink(aux);
	snprintf(aux, sizeof aux, "%s-shm", path);
	unlink(aux);
	rmdir(dir);
	return 0;
}
