/*
 * test_inspector.c - the inspector (ccplan_inspector.h) end to end over
 * the MPI transport, run with mpirun -n 2, 4 and 8 (inspector.cmake).
 *
 * Every rank builds the same whole pattern from a seed, gives the
 * inspector its own row (in a shuffled order, with zero-byte entries
 * mixed in), executes the plan several times with different execution
 * flags, and checks every received byte twice: against the value the
 * pattern says it must have, and against MPI_Alltoallv on the same send
 * buffer.  Then the cache: a miss and a store on the first inspection of
 * a pattern, a hit (and the same plan) on the second, a miss for another
 * pattern, seed or scheduler.  Then the errors every rank must agree on.
 *
 * Usage: test_inspector CACHE-FILE   (the file is removed first)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEST_NAME "test_inspector"
#include "insp_mpi_test.h"

/* ---- patterns ---------------------------------------------------------- */

enum kind { RANDOM, EMPTY, RING, DENSE, ZEROS };

/* The whole pattern: m[s*n + d] bytes from s to d. */
struct pattern {
	uint64_t *m;
	/* this rank's list as given to the inspector */
	int32_t *dst;
	uint64_t *bytes;
	size_t count;
};

static void pattern_make(struct pattern *p, enum kind k, uint64_t seed)
{
	int n = size;
	uint64_t s = seed * 1000003u + (uint64_t)k;
	p->m = calloc((size_t)n * n, sizeof *p->m);
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			if (a == b)
				continue;
			uint64_t v = 0, r = next(&s);
			switch (k) {
			case RANDOM:
				/* from 4 ranks on, rank 1 sends nothing and the
				 * last rank receives nothing; some messages are
				 * zero bytes */
				if (n >= 4 && (a == 1 || b == n - 1))
					break;
				if (r % 3 == 0)
					v = r % 7 == 0 ? 0
					               : 1 + (r >> 20) % 3000;
				break;
			case RING:
				if (b == (a + 1) % n || b == (a + n - 1) % n)
					v = 1 + (uint64_t)a * 17 +
					    (r >> 40) % 50;
				break;
			case DENSE:
				v = 1 + (r >> 33) % 700;
				break;
			case EMPTY:
			case ZEROS:
				break;
			}
			p->m[(size_t)a * n + b] = v;
		}
	/* the rank's list: every non-empty message, plus (ZEROS, RANDOM)
	 * zero-byte entries, in a shuffled order */
	p->dst = calloc((size_t)n + 1, sizeof *p->dst);
	p->bytes = calloc((size_t)n + 1, sizeof *p->bytes);
	p->count = 0;
	for (int b = 0; b < n; b++) {
		uint64_t v = p->m[(size_t)rank * n + b];
		bool zero_entry =
		        (k == ZEROS || (k == RANDOM && b % 2)) && v == 0;
		if (v || zero_entry) {
			p->dst[p->count] = b;
			p->bytes[p->count++] = v;
		}
	}
	uint64_t sh = seed ^ (uint64_t)rank * 77u;
	for (size_t i = p->count; i > 1; i--) {
		size_t j = (size_t)(next(&sh) % i);
		int32_t td = p->dst[i - 1];
		uint64_t tb = p->bytes[i - 1];
		p->dst[i - 1] = p->dst[j];
		p->bytes[i - 1] = p->bytes[j];
		p->dst[j] = td;
		p->bytes[j] = tb;
	}
}

static void pattern_free(struct pattern *p)
{
	free(p->m);
	free(p->dst);
	free(p->bytes);
}

static uint8_t val(int s, int d, uint64_t i, unsigned round)
{
	return (uint8_t)(s * 131 + d * 71 + (int)(i * 7) + (int)(i >> 8) +
	                 (int)round * 13 + 1);
}

/* ---- one plan, executed and checked ---------------------------------- */

static const unsigned exec_flags[] = {
        CCP_EXEC_S2, CCP_EXEC_S1, CCP_EXEC_S2 | CCP_EXEC_NO_BARRIER,
        CCP_EXEC_S1 | CCP_EXEC_NO_BARRIER | CCP_EXEC_NO_CHECK};

/* Bind, run rounds executions, check each against the pattern and
 * MPI_Alltoallv. */
static void run_and_check(const char *what, const struct pattern *p,
                          ccp_plan *plan, const ccp_inspect_result *res,
                          unsigned rounds)
{
	int n = size;
	uint64_t *M = p->m;
	/* the layout as the test computes it */
	int *sc = calloc((size_t)n, sizeof *sc),
	    *sd = calloc((size_t)n, sizeof *sd);
	int *rc = calloc((size_t)n, sizeof *rc),
	    *rd = calloc((size_t)n, sizeof *rd);
	uint64_t sbytes = 0, rbytes = 0;
	size_t ns = 0, nr = 0;
	for (int d = 0; d < n; d++) {
		sd[d] = (int)sbytes;
		sc[d] = (int)M[(size_t)rank * n + d];
		sbytes += M[(size_t)rank * n + d];
		ns += M[(size_t)rank * n + d] > 0;
		rd[d] = (int)rbytes;
		rc[d] = (int)M[(size_t)d * n + rank];
		rbytes += M[(size_t)d * n + rank];
		nr += M[(size_t)d * n + rank] > 0;
	}
	check(res->send_bytes == sbytes && res->recv_bytes == rbytes,
	      "%s: result says %llu/%llu bytes, the pattern %llu/%llu", what,
	      (unsigned long long)res->send_bytes,
	      (unsigned long long)res->recv_bytes, (unsigned long long)sbytes,
	      (unsigned long long)rbytes);
	check(res->nsend == ns && res->nrecv == nr,
	      "%s: result lists %zu/%zu messages, the pattern %zu/%zu", what,
	      res->nsend, res->nrecv, ns, nr);
	for (int d = 0; d < n; d++) {
		uint64_t off = 0, len = 0;
		int e = ccp_inspect_offset(res, CCP_INSPECT_SEND, d, &off,
		                           &len);
		if (sc[d])
			check(e == 0 && off == (uint64_t)sd[d] &&
			              len == (uint64_t)sc[d],
			      "%s: send offset of %d: %d %llu %llu", what, d, e,
			      (unsigned long long)off, (unsigned long long)len);
		else
			check(e == CCP_ENOTFOUND, "%s: send to %d listed", what,
			      d);
		e = ccp_inspect_offset(res, CCP_INSPECT_RECV, d, &off, &len);
		if (rc[d])
			check(e == 0 && off == (uint64_t)rd[d] &&
			              len == (uint64_t)rc[d],
			      "%s: recv offset of %d: %d %llu %llu", what, d, e,
			      (unsigned long long)off, (unsigned long long)len);
		else
			check(e == CCP_ENOTFOUND, "%s: recv from %d listed",
			      what, d);
	}
	ccp_plan_info info;
	if (check(ccp_plan_get_info(plan, &info) == 0, "%s: info", what))
		check(info.send_bytes == sbytes && info.recv_bytes == rbytes &&
		              info.nranks == n,
		      "%s: plan needs %llu/%llu bytes", what,
		      (unsigned long long)info.send_bytes,
		      (unsigned long long)info.recv_bytes);

	const uint64_t guard = 64;
	uint8_t *send = malloc(sbytes + 1);
	uint8_t *recv = malloc(rbytes + guard);
	uint8_t *ref = malloc(rbytes + 1);
	uint8_t *want = malloc(rbytes + 1);
	int rcode = ccp_plan_bind(plan, send, sbytes, recv, rbytes, NULL, 0);
	check(rcode == 0, "%s: bind: %s", what, ccp_strerror(rcode));
	for (unsigned k = 0; k < rounds; k++) {
		for (int d = 0; d < n; d++)
			for (int i = 0; i < sc[d]; i++)
				send[sd[d] + i] = val(rank, d, (uint64_t)i, k);
		for (int s = 0; s < n; s++)
			for (int i = 0; i < rc[s]; i++)
				want[rd[s] + i] = val(s, rank, (uint64_t)i, k);
		memset(recv, 0xee, rbytes + guard);
		unsigned fl = exec_flags[k % 4];
		rcode = ccp_plan_execute(plan, tr, fl);
		if (!check(rcode == 0, "%s: execute round %u (flags %u): %s",
		           what, k, fl, ccp_strerror(rcode)))
			break;
		int bad = -1;
		for (uint64_t i = 0; i < rbytes && bad < 0; i++)
			if (recv[i] != want[i])
				bad = (int)i;
		check(bad < 0, "%s: round %u: byte %d is %d, want %d", what, k,
		      bad, bad < 0 ? 0 : recv[bad], bad < 0 ? 0 : want[bad]);
		for (uint64_t i = rbytes; i < rbytes + guard; i++)
			if (!check(recv[i] == 0xee,
			           "%s: round %u: wrote past the buffer", what,
			           k))
				break;
		/* MPI's own answer on the same data */
		memset(ref, 0x11, rbytes + 1);
		int me = MPI_Alltoallv(send, sc, sd, MPI_BYTE, ref, rc, rd,
		                       MPI_BYTE, MPI_COMM_WORLD);
		check(me == MPI_SUCCESS, "%s: MPI_Alltoallv", what);
		check(memcmp(ref, recv, rbytes) == 0,
		      "%s: round %u: differs from MPI_Alltoallv", what, k);
	}
	free(send);
	free(recv);
	free(ref);
	free(want);
	free(sc);
	free(sd);
	free(rc);
	free(rd);
}

/* Inspect p with o; 0 or the code (plan and res filled on success). */
static int inspect(const struct pattern *p, const ccp_inspect_options *o,
                   ccp_plan **plan, ccp_inspect_result *res)
{
	return ccp_inspect(ctx, tr, p->dst, p->bytes, p->count, o, plan, res);
}

/* ---- the tests -------------------------------------------------------- */

static void test_patterns(void)
{
	static const struct {
		enum kind k;
		const char *name;
	} kinds[] = {{RANDOM, "random"},
	             {EMPTY, "empty"},
	             {ZEROS, "zero-byte only"},
	             {RING, "ring"},
	             {DENSE, "dense"}};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		struct pattern p;
		pattern_make(&p, kinds[i].k, 7 + i);
		ccp_plan *plan = NULL;
		ccp_inspect_result res;
		ccp_inspect_options o = {.seed = 42};
		int e = inspect(&p, &o, &plan, &res);
		if (check(e == 0, "%s: inspect: %s", kinds[i].name,
		          ccp_strerror(e))) {
			ccp_plan_info info;
			ccp_plan_get_info(plan, &info);
			check(all_same(info.plan_hash),
			      "%s: ranks hold different plans", kinds[i].name);
			check(res.nphases >= res.lb_phases,
			      "%s: %u phases below the bound %u", kinds[i].name,
			      res.nphases, res.lb_phases);
			check(strcmp(res.algorithm, "link_aware") == 0,
			      "%s: default scheduler is %s", kinds[i].name,
			      res.algorithm);
			if (kinds[i].k == EMPTY || kinds[i].k == ZEROS)
				check(res.nphases == 0 && res.messages == 0,
				      "%s: %u phases, %lld messages",
				      kinds[i].name, res.nphases,
				      (long long)res.messages);
			if (kinds[i].k == DENSE)
				/* the default switch, every port: one phase */
				check(res.nphases == 1, "dense: %u phases",
				      res.nphases);
			run_and_check(kinds[i].name, &p, plan, &res, 4);
		}
		ccp_inspect_result_fini(&res);
		ccp_plan_free(plan);
		if (kinds[i].k == DENSE) {
			/* one port (004's model): exactly n-1 phases */
			o.ports = 1;
			e = inspect(&p, &o, &plan, &res);
			if (check(e == 0, "dense, one port: inspect: %s",
			          ccp_strerror(e))) {
				check(res.nphases == (uint32_t)size - 1,
				      "dense, one port: %u phases",
				      res.nphases);
				run_and_check("dense, one port", &p, plan,
				              &res, 4);
			}
			ccp_inspect_result_fini(&res);
			ccp_plan_free(plan);
		}
		pattern_free(&p);
	}
}

static void test_algorithms(void)
{
	static const char *algs[] = {"ac",    "lp",         "rs_n", "rs_nl",
	                             "color", "link_aware", "sized"};
	struct pattern p;
	pattern_make(&p, RANDOM, 99);
	for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++) {
		for (int ports = -1; ports <= 2; ports += 3) {
			ccp_plan *plan = NULL;
			ccp_inspect_result res;
			ccp_inspect_options o = {.algorithm = algs[i],
			                         .seed = 5,
			                         .ports = ports};
			char what[64];
			snprintf(what, sizeof what, "%s ports %d", algs[i],
			         ports);
			int e = inspect(&p, &o, &plan, &res);
			if (check(e == 0, "%s: inspect: %s", what,
			          ccp_strerror(e))) {
				check(strcmp(res.algorithm, algs[i]) == 0,
				      "%s: plan made by %s", what,
				      res.algorithm);
				run_and_check(what, &p, plan, &res, 2);
			}
			ccp_inspect_result_fini(&res);
			ccp_plan_free(plan);
		}
	}
	/* a 2D mesh given as the machine, built as a user would: from the
	 * machine: mapping of an input, and with the grid constructor */
	char yaml[160];
	snprintf(yaml, sizeof yaml,
	         "machine:\n  topology: mesh\n  dims: [2, %d]\n"
	         "  ports: 1\n  cost: {preset: t3d}\n",
	         size / 2);
	ccp_machine *my = NULL, *mg = NULL;
	int e = ccp_machine_from_yaml(ctx, yaml, strlen(yaml), &my);
	check(e == 0 && my && ccp_machine_nranks(my) == size,
	      "mesh from YAML: %s, %d ranks", ccp_strerror(e),
	      ccp_machine_nranks(my));
	e = ccp_machine_grid(ctx, "mesh", 2, (const int[]){2, size / 2}, 1,
	                     &mg);
	check(e == 0 && mg && ccp_machine_nranks(mg) == size,
	      "mesh grid: %s, %d ranks", ccp_strerror(e),
	      ccp_machine_nranks(mg));
	ccp_plan *plan = NULL;
	ccp_inspect_result res, res2;
	ccp_inspect_options o = {.machine = mg, .seed = 3};
	e = inspect(&p, &o, &plan, &res);
	if (check(e == 0, "mesh: inspect: %s", ccp_strerror(e)))
		run_and_check("mesh", &p, plan, &res, 2);
	ccp_plan_free(plan);
	/* the YAML machine schedules on the same mesh (the phases), with
	 * its own costs (another key) */
	o.machine = my;
	e = inspect(&p, &o, &plan, &res2);
	if (check(e == 0, "mesh from YAML: inspect: %s", ccp_strerror(e))) {
		run_and_check("mesh from YAML", &p, plan, &res2, 2);
		check(res2.nphases == res.nphases &&
		              memcmp(res2.key, res.key, sizeof res.key) != 0,
		      "mesh from YAML: %u phases (grid %u), key differs",
		      (unsigned)res2.nphases, (unsigned)res.nphases);
	}
	ccp_inspect_result_fini(&res);
	ccp_inspect_result_fini(&res2);
	ccp_plan_free(plan);
	ccp_machine_free(my);
	ccp_machine_free(mg);
	/* a machine of the wrong size for the transport: every rank refuses */
	mg = NULL;
	e = ccp_machine_grid(ctx, "mesh", 2, (const int[]){2, size}, 1, &mg);
	check(e == 0, "mesh of 2n ranks: %s", ccp_strerror(e));
	o.machine = mg;
	e = inspect(&p, &o, &plan, &res);
	check(e == CCP_EINVAL && plan == NULL &&
	              strstr(ccp_errmsg(ctx), "ranks") != NULL,
	      "mesh of 2n ranks: %s", ccp_strerror(e));
	ccp_inspect_result_fini(&res);
	ccp_machine_free(mg);
	pattern_free(&p);
}

static void test_cache(const char *path)
{
	cache_remove_all(path);
	struct pattern a, b;
	pattern_make(&a, size > 2 ? RANDOM : DENSE, 1234);
	pattern_make(&b, size > 2 ? RANDOM : DENSE, 4321);
	ccp_inspect_options o = {.seed = 11, .cache_path = path};
	struct {
		const struct pattern *p;
		const char *alg;
		uint64_t seed;
		int hit;
		const char *what;
	} steps[] = {
	        {&a, NULL, 11, 0, "A, first"},
	        {&a, NULL, 11, 1, "A, second"},
	        {&b, NULL, 11, 0, "B, first"},
	        {&a, NULL, 11, 1, "A, third"},
	        {&b, NULL, 11, 1, "B, second"},
	        {&a, NULL, 12, 0, "A, another seed"},
	        {&a, "color", 11, 0, "A, another scheduler"},
	        {&a, "color", 11, 1, "A, color again"},
	};
	uint64_t first_hash = 0;
	uint8_t first_key[16];
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		ccp_plan *plan = NULL;
		ccp_inspect_result res;
		o.algorithm = steps[i].alg;
		o.seed = steps[i].seed;
		int e = inspect(steps[i].p, &o, &plan, &res);
		if (!check(e == 0, "cache %s: inspect: %s", steps[i].what,
		           ccp_strerror(e)))
			continue;
		check(res.cache_hit == steps[i].hit,
		      "cache %s: hit %d, want %d", steps[i].what, res.cache_hit,
		      steps[i].hit);
		check(res.cache_status == 0, "cache %s: cache status %s",
		      steps[i].what, ccp_strerror(res.cache_status));
		if (rank == 0)
			check(res.cache_stored == !steps[i].hit,
			      "cache %s: stored %d", steps[i].what,
			      res.cache_stored);
		if (steps[i].hit)
			check(res.t_schedule == 0, "cache %s: scheduled",
			      steps[i].what);
		ccp_plan_info info;
		ccp_plan_get_info(plan, &info);
		check(all_same(info.plan_hash), "cache %s: plans differ",
		      steps[i].what);
		if (i == 0) {
			first_hash = info.plan_hash;
			memcpy(first_key, res.key, 16);
		}
		if (steps[i].p == &a && !steps[i].alg && steps[i].seed == 11) {
			/* the cached plan is the scheduled one, bit for bit */
			check(info.plan_hash == first_hash &&
			              memcmp(res.key, first_key, 16) == 0,
			      "cache %s: not the first plan", steps[i].what);
		} else {
			check(memcmp(res.key, first_key, 16) != 0,
			      "cache %s: same key as A", steps[i].what);
		}
		run_and_check(steps[i].what, steps[i].p, plan, &res, 2);
		ccp_inspect_result_fini(&res);
		ccp_plan_free(plan);
	}
	/* one rank cannot read the cache: every rank schedules, and rank 0
	 * does not store what it already has */
	if (size > 1) {
		ccp_plan *plan = NULL;
		ccp_inspect_result res;
		o.algorithm = NULL;
		o.seed = 11;
		o.cache_path =
		        rank == size - 1 ? "/nonexistent-ccplan/x.db" : path;
		int e = inspect(&a, &o, &plan, &res);
		if (check(e == 0, "cache, one rank blind: %s",
		          ccp_strerror(e))) {
			check(res.cache_hit == 0 && res.cache_stored == 0 &&
			              res.t_schedule > 0,
			      "cache, one rank blind: hit %d stored %d",
			      res.cache_hit, res.cache_stored);
			ccp_plan_info info;
			ccp_plan_get_info(plan, &info);
			check(info.plan_hash == first_hash,
			      "cache, one rank blind: another plan");
			run_and_check("one rank blind", &a, plan, &res, 1);
		}
		ccp_inspect_result_fini(&res);
		ccp_plan_free(plan);
	}
	/* a cache that cannot be made: the inspection still succeeds, and
	 * rank 0 says why it could not use the cache */
	{
		ccp_plan *plan = NULL;
		ccp_inspect_result res;
		o.cache_path = "/proc/ccplan-no-such-dir/plans.db";
		int e = inspect(&a, &o, &plan, &res);
		if (check(e == 0, "unusable cache: %s", ccp_strerror(e))) {
			check(res.cache_hit == 0 && res.cache_stored == 0,
			      "unusable cache: hit %d stored %d", res.cache_hit,
			      res.cache_stored);
			if (rank == 0)
				check(res.cache_status != 0 &&
				              res.cache_why[0] != '\0',
				      "unusable cache: status %d, '%s'",
				      res.cache_status, res.cache_why);
			run_and_check("unusable cache", &a, plan, &res, 1);
		}
		ccp_inspect_result_fini(&res);
		ccp_plan_free(plan);
	}
	pattern_free(&a);
	pattern_free(&b);
}

/* Every rank must return the same error, and the transport must still
 * work afterwards. */
static void test_errors(void)
{
	struct pattern p;
	pattern_make(&p, RING, 3);
	ccp_plan *plan = (ccp_plan *)&p; /* must become NULL */
	ccp_inspect_result res;
	ccp_inspect_options o = {.seed = 1};
	int32_t keep = p.dst[0];

	/* a destination out of range on the last rank */
	if (rank == size - 1 && p.count)
		p.dst[0] = size;
	int e = inspect(&p, &o, &plan, &res);
	check(e == CCP_EINVAL && plan == NULL, "bad destination: %s",
	      ccp_strerror(e));
	p.dst[0] = keep;

	/* a message to itself on rank 0 */
	int32_t self[1] = {rank};
	uint64_t one[1] = {8};
	e = ccp_inspect(ctx, tr, rank == 0 ? self : p.dst,
	                rank == 0 ? one : p.bytes, rank == 0 ? 1 : p.count, &o,
	                &plan, &res);
	check(e == CCP_EINVAL && plan == NULL, "message to itself: %s",
	      ccp_strerror(e));
	/* but a zero-byte one is ignored */
	one[0] = 0;
	e = ccp_inspect(ctx, tr, self, one, 1, &o, &plan, &res);
	check(e == 0 && res.messages == 0, "zero-byte self message: %s",
	      ccp_strerror(e));
	ccp_inspect_result_fini(&res);
	ccp_plan_free(plan);

	/* the same destination twice */
	int32_t two[2] = {(rank + 1) % size, (rank + 1) % size};
	uint64_t sz[2] = {4, 4};
	e = ccp_inspect(ctx, tr, two, sz, 2, &o, &plan, &res);
	check(e == CCP_EINVAL && plan == NULL, "duplicate destination: %s",
	      ccp_strerror(e));

	/* different seeds */
	o.seed = rank == 0 ? 2 : 1;
	e = inspect(&p, &o, &plan, &res);
	check(e == CCP_EMISMATCH && plan == NULL, "different seeds: %s",
	      ccp_strerror(e));
	o.seed = 1;

	/* an unknown scheduler everywhere */
	o.algorithm = "rs_nll";
	e = inspect(&p, &o, &plan, &res);
	check(e == CCP_EINVAL && plan == NULL, "unknown scheduler: %s",
	      ccp_strerror(e));
	o.algorithm = NULL;

	/* bad ports */
	o.ports = -5;
	e = inspect(&p, &o, &plan, &res);
	check(e == CCP_EINVAL && plan == NULL, "ports -5: %s", ccp_strerror(e));
	o.ports = 0;

	/* after all that, the transport still works */
	e = inspect(&p, &o, &plan, &res);
	if (check(e == 0, "after the errors: %s", ccp_strerror(e)))
		run_and_check("after the errors", &p, plan, &res, 2);

	/* an inspection while an execution is in flight on the transport
	 * is refused on every rank and changes nothing: the execution ends
	 * well and the transport inspects again afterwards */
	if (plan) {
		uint8_t *sb = calloc(res.send_bytes + 1, 1),
		        *rb = calloc(res.recv_bytes + 1, 1);
		ccp_plan *other = (ccp_plan *)&p; /* must become NULL */
		ccp_inspect_result r2;
		check(ccp_plan_bind(plan, sb, res.send_bytes, rb,
		                    res.recv_bytes, NULL, 0) == 0,
		      "in flight: bind");
		e = ccp_plan_start(plan, tr, CCP_EXEC_NO_BARRIER);
		check(e == 0, "in flight: start: %s", ccp_strerror(e));
		e = inspect(&p, &o, &other, &r2);
		check(e == CCP_EBUSY && other == NULL &&
		              strstr(ccp_errmsg(ctx), "in flight"),
		      "inspect in flight: %s (%s)", ccp_strerror(e),
		      ccp_errmsg(ctx));
		e = ccp_plan_wait(plan);
		check(e == 0, "in flight: wait: %s", ccp_strerror(e));
		free(sb);
		free(rb);
	}
	ccp_inspect_result_fini(&res);
	ccp_plan_free(plan);
	e = inspect(&p, &o, &plan, &res);
	if (check(e == 0, "after the refusal: %s", ccp_strerror(e)))
		run_and_check("after the refusal", &p, plan, &res, 1);
	ccp_inspect_result_fini(&res);
	ccp_plan_free(plan);
	pattern_free(&p);
}

int main(int argc, char **argv)
{
	if (test_start(&argc, &argv, 0, "test_inspector CACHE-FILE"))
		return 2;
	test_patterns();
	test_algorithms();
	test_cache(argv[1]);
	test_errors();
	return test_finish();
}
