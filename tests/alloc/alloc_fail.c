/*
 * alloc_fail.c - allocation-failure testing (STYLE.md, "a counting
 * allocator that can fail the N-th allocation", as Lua's Memcontrol).
 *
 * This program is linked with failing_malloc.c, which replaces malloc
 * and its kin for the whole process (libyaml, SQLite and glibc's own
 * allocations included).  Each scenario below runs a piece of the compiler,
 * the cache or the runtime once with the N-th allocation failing, for
 * N = 1, 2, ... until a run makes fewer than N allocations, i.e. ends with
 * no failure injected.  Every run must:
 *   - return an error (CCP_ENOMEM; the scenario states the other codes
 *     it may give, and why), or succeed with exactly the result of a
 *     run with no failure: an allocation that the code can do without;
 *   - leave as many live blocks behind as it found (nothing leaked);
 *   - not crash (a crash fails the whole program).
 *
 * The counting is armed only around the code under test, after one run
 * with no failure has made whatever a library keeps for the life of the
 * process (SQLite's global state).  Replacing malloc cannot work under
 * AddressSanitizer, which replaces it too: there the program reports
 * itself skipped (exit 77, SKIP_RETURN_CODE).  docs/reliability.md, "Memory"
 * lists what this found.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cache.h"
#include "ccplan.h"
#include "compile.h"
#include "front.h"
#include "tbuf.h"

#if defined(__SANITIZE_ADDRESS__)
#define ALLOC_FAIL_SKIP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ALLOC_FAIL_SKIP 1
#endif
#endif

#ifndef ALLOC_FAIL_SKIP
#include "failing_malloc.h"

/* ---- scenarios ---------------------------------------------------------- */

/* One piece of code under test.  setup and teardown run unarmed (either
 * may be NULL); body runs armed, returns 0 or a CCP_E* code, and on
 * success sets *digest to a hash of what it made, so that a success after
 * an injected failure can be compared with a clean run. */
struct scenario {
	const char *name;
	void (*setup)(void);
	int (*body)(uint64_t *digest);
	void (*teardown)(void);
	/* codes a failed run may return besides CCP_ENOMEM, each with the
	 * reason in the scenario's comment; 0 ends the list */
	int also[4];
};

static const char *tmpdir; /* a directory of this program's own */

/* Every N from 1 until a run makes fewer than N allocations.  Counts
 * (and prints the first few of) the leaks, the codes the scenario does not
 * allow, and the successes after an injected failure whose result differs
 * from the clean run's; returns how many there were. */
static int run_every_n(const struct scenario *s)
{
	uint64_t want = 0, got;
	long long before;
	int problems = 0;
#define PROBLEM(...)                                                           \
	do {                                                                   \
		if (problems++ < 10)                                           \
			print_error(__VA_ARGS__);                              \
	} while (0)

	/* a clean run first, armed but failing nothing: the reference
	 * result, and whatever a library keeps for the process */
	if (s->setup)
		s->setup();
	fm_calls = 0, fm_fail_at = 0, fm_failed = false, fm_armed = true;
	int rc = s->body(&want);
	fm_armed = false;
	if (s->teardown)
		s->teardown();
	if (rc) {
		print_error("%s: the clean run failed: %s\n", s->name,
		            ccp_strerror(rc));
		return 1;
	}

	/* ALLOC_FAIL_ONLY="NAME:N" runs only allocation N of scenario NAME
	 * (with a breakpoint on fm_injected, a debugger shows where it
	 * is) */
	const char *only = getenv("ALLOC_FAIL_ONLY");
	long long first = 1;
	if (only) {
		const char *colon = strrchr(only, ':');
		if (!colon || strncmp(only, s->name, (size_t)(colon - only)) ||
		    s->name[colon - only])
			return 0;
		first = atoll(colon + 1);
	}
	long long n, nomem = 0, other = 0, absorbed = 0;
	for (n = first; !only || n == first; n++) {
		if (s->setup)
			s->setup();
		before = fm_live;
		got = 0;
		fm_calls = 0, fm_fail_at = n, fm_failed = false,
		fm_armed = true;
		rc = s->body(&got);
		fm_armed = false;
		long long leaked = fm_live - before;
		if (s->teardown)
			s->teardown();
		if (!fm_failed)
			break; /* n is past the last allocation */
		if (leaked != 0)
			PROBLEM("%s: allocation %lld failed: %lld blocks "
			        "leaked (rc %d)\n",
			        s->name, n, leaked, rc);
		if (getenv("ALLOC_FAIL_VERBOSE"))
			print_message("%s: allocation %lld failed: %s\n",
			              s->name, n, ccp_strerror(rc));
		if (rc == 0) {
			if (got != want)
				PROBLEM("%s: allocation %lld failed, yet the "
				        "run succeeded with another result\n",
				        s->name, n);
			absorbed++;
			continue;
		}
		bool allowed = rc == CCP_ENOMEM;
		for (int k = 0; k < 4 && s->also[k]; k++)
			allowed = allowed || rc == s->also[k];
		if (!allowed)
			PROBLEM("%s: allocation %lld failed: returned %d "
			        "(%s), not CCP_ENOMEM\n",
			        s->name, n, rc, ccp_strerror(rc));
		if (rc == CCP_ENOMEM)
			nomem++;
		else
			other++;
	}
	print_message("%-16s %5lld allocation points: %lld CCP_ENOMEM, "
	              "%lld other errors, %lld absorbed; %d problems\n",
	              s->name, n - 1, nomem, other, absorbed, problems);
	return problems;
#undef PROBLEM
}

/* ---- inputs ------------------------------------------------------------- */

static const char yaml_bcast[] = "machine:\n"
                                 "  topology: mesh\n"
                                 "  dims: [4, 4]\n"
                                 "  routing: xy\n"
                                 "  ports: all\n"
                                 "communication:\n"
                                 "  collective: broadcast\n"
                                 "  root: [1, 2]\n"
                                 "  bytes: 1024\n"
                                 "algorithm: binomial\n";

static const char yaml_irregular[] = "machine:\n"
                                     "  topology: mesh\n"
                                     "  dims: [4, 2]\n"
                                     "  routing: xy\n"
                                     "  ports: one\n"
                                     "communication:\n"
                                     "  pattern: irregular\n"
                                     "  matrix:\n"
                                     "    - [0, 64, 0, 0, 0, 0, 0, 32]\n"
                                     "    - [0, 0, 64, 0, 0, 0, 0, 0]\n"
                                     "    - [16, 0, 0, 64, 0, 0, 0, 0]\n"
                                     "    - [0, 0, 0, 0, 64, 0, 8, 0]\n"
                                     "    - [0, 0, 0, 0, 0, 64, 0, 0]\n"
                                     "    - [0, 128, 0, 0, 0, 0, 64, 0]\n"
                                     "    - [0, 0, 0, 0, 0, 0, 0, 64]\n"
                                     "    - [64, 0, 0, 256, 0, 0, 0, 0]\n"
                                     "algorithm: ALGO\n";

static const char yaml_alltoall[] = "machine:\n"
                                    "  topology: mesh\n"
                                    "  dims: [4, 2]\n"
                                    "  routing: xy\n"
                                    "  ports: one\n"
                                    "communication:\n"
                                    "  collective: alltoall\n"
                                    "  bytes: 256\n"
                                    "algorithm: pex\n";

#define YAML_AUTO                                                              \
	"machine:\n"                                                           \
	"  topology: mesh\n"                                                   \
	"  dims: [4, 2]\n"                                                     \
	"  routing: xy\n"                                                      \
	"  ports: all\n"                                                       \
	"  cost: {preset: t3d}\n"                                              \
	"communication:\n"                                                     \
	"  collective: broadcast\n"                                            \
	"  root: [1, 1]\n"                                                     \
	"  bytes: 1024\n"                                                      \
	"algorithm: auto\n"
static const char yaml_auto[] = YAML_AUTO;
/* the same, ranked by the model alone (no simulation) */
static const char yaml_auto_model[] = YAML_AUTO "select: model\n";

/* yaml_irregular with ALGO replaced by algo (static storage). */
static const char *irregular(const char *algo)
{
	static char buf[1024];
	const char *at = strstr(yaml_irregular, "ALGO");
	snprintf(buf, sizeof buf, "%.*s%s\n", (int)(at - yaml_irregular),
	         yaml_irregular, algo);
	return buf;
}

/* ---- the front end --------------------------------------------------------
 */

/* Parse and hash (the canonical text is made on the way). */
static int parse_body(uint64_t *digest)
{
	struct front_input in;
	struct diag d;
	uint8_t key[16];
	memset(&d, 0, sizeof d);
	int rc = front_parse_string("bcast.yaml", yaml_bcast,
	                            sizeof yaml_bcast - 1, &in, &d);
	if (rc)
		return rc;
	rc = front_input_hash(&in, key);
	if (rc == 0)
		*digest = XXH3_64bits(key, sizeof key);
	front_input_fini(&in);
	return rc;
}

/* The irregular matrix, inline, through the same front end. */
static int parse_irregular_body(uint64_t *digest)
{
	struct front_input in;
	struct diag d;
	memset(&d, 0, sizeof d);
	const char *text = irregular("rs_nl");
	int rc = front_parse_string("irr.yaml", text, strlen(text), &in, &d);
	if (rc)
		return rc;
	char *canon = front_canonical(&in);
	if (canon)
		*digest = XXH3_64bits(canon, strlen(canon));
	else
		rc = CCP_ENOMEM;
	free(canon);
	front_input_fini(&in);
	return rc;
}

/* ---- compile_input, one generator at a time -------------------------------
 */

static struct front_input parsed; /* the input of a compile scenario */

static void parse_or_die(const char *text)
{
	struct diag d;
	memset(&d, 0, sizeof d);
	assert_int_equal(
	        front_parse_string("in.yaml", text, strlen(text), &parsed, &d),
	        0);
}

static void setup_bcast(void)
{
	parse_or_die(yaml_bcast);
}
static void setup_link_aware(void)
{
	parse_or_die(irregular("link_aware"));
}
static void setup_rs_nl(void)
{
	parse_or_die(irregular("rs_nl"));
}
static void setup_alltoall(void)
{
	parse_or_die(yaml_alltoall);
}
static void setup_auto(void)
{
	parse_or_die(yaml_auto);
}
static void setup_auto_model(void)
{
	parse_or_die(yaml_auto_model);
}
static void teardown_parsed(void)
{
	front_input_fini(&parsed);
}

/* The digest of a compiled plan: its encoded image, made unarmed. */
static uint64_t image_digest(const struct compiled *c)
{
	bool was = fm_armed;
	uint8_t *img = NULL;
	size_t len = 0;
	char err[256];
	fm_armed = false;
	assert_int_equal(compile_encode(c, &img, &len, err, sizeof err), 0);
	uint64_t h = XXH3_64bits(img, len);
	free(img);
	fm_armed = was;
	return h;
}

static int compile_body(uint64_t *digest)
{
	struct compiled c;
	struct diag d;
	memset(&d, 0, sizeof d);
	int rc = compile_input(&parsed, &c, &d);
	if (rc)
		return rc;
	*digest = image_digest(&c);
	compiled_fini(&c);
	return 0;
}

/* ---- encoding
 * ---------------------------------------------------------------- */

static struct compiled compiled_plan; /* compiled unarmed */

static void setup_encode(void)
{
	struct diag d;
	setup_bcast();
	memset(&d, 0, sizeof d);
	assert_int_equal(compile_input(&parsed, &compiled_plan, &d), 0);
}

static void teardown_encode(void)
{
	compiled_fini(&compiled_plan);
	teardown_parsed();
}

/* The growable buffer every writer shares (ir/tbuf.h): formatted text
 * longer than its first try, bytes past the first capacity, another
 * buffer appended, then handed over.  A failed growth sticks and is
 * seen once, at the end; a failed shrink in tb_take is absorbed. */
static int tbuf_body(uint64_t *digest)
{
	struct tbuf a = {0}, b = {0};
	char big[5000];
	size_t len = 0;

	memset(big, 'x', sizeof big);
	for (int i = 0; i < 100; i++)
		tb_printf(&a, "line %d: %.*s\n", i, 200, big);
	tb_put(&a, big, sizeof big);
	tb_printf(&b, "%.*s", 300, big);
	tb_append(&a, &b);
	tb_free(&b);
	char *p = tb_take(&a, &len);
	if (!p)
		return CCP_ENOMEM;
	*digest = XXH3_64bits(p, len);
	free(p);
	return 0;
}

static int encode_body(uint64_t *digest)
{
	uint8_t *img = NULL;
	size_t len = 0;
	char err[256];
	int rc = compile_encode(&compiled_plan, &img, &len, err, sizeof err);
	if (rc)
		return rc;
	*digest = XXH3_64bits(img, len);
	free(img);
	return 0;
}

/* ---- the cache ------------------------------------------------------------
 */

static char db[512];   /* tmpdir/plans.db */
static uint8_t *image; /* an encoded plan, made unarmed */
static size_t image_len;
static uint8_t image_key[CACHE_KEY_SIZE];

static void remove_db(void)
{
	char p[600];
	const char *suffix[] = {"", "-wal", "-shm", "-journal"};
	for (int k = 0; k < 4; k++) {
		snprintf(p, sizeof p, "%s%s", db, suffix[k]);
		unlink(p);
	}
}

/* An image and its key (the compiled broadcast). */
static void make_image(void)
{
	char err[256];
	setup_encode();
	assert_int_equal(compile_encode(&compiled_plan, &image, &image_len, err,
	                                sizeof err),
	                 0);
	assert_int_equal(front_input_hash(&parsed, image_key), 0);
	teardown_encode();
}

static void free_image(void)
{
	free(image);
	image = NULL;
}

/* After a failed run the file must still open and give back either
 * nothing or the whole plan; a damaged file (moved aside) fails. */
static void check_db_after(void)
{
	cache *k = NULL;
	struct cache_event ev;
	char err[256] = "";
	struct stat sb;
	if (stat(db, &sb) != 0)
		return; /* never made */
	int rc = cache_open(db, 0, &k, &ev, err, sizeof err);
	if (rc) {
		print_error("cache left unusable: %s\n", err);
		fail();
	}
	if (ev.moved_aside) {
		print_error("cache moved aside after a failed run: %s\n",
		            ev.reason);
		fail();
	}
	void *blob = NULL;
	size_t len = 0;
	rc = cache_get(k, image_key, &blob, &len, NULL);
	if (rc == 0 && (len != image_len || memcmp(blob, image, len) != 0)) {
		print_error("cache serves another plan after a failed put\n");
		fail();
	} else if (rc != 0 && rc != CCP_ENOTFOUND) {
		print_error("cache get after a failed run: %s\n",
		            ccp_strerror(rc));
		fail();
	}
	free(blob);
	cache_close(k);
}

static void setup_put(void)
{
	remove_db();
}

static void teardown_put(void)
{
	check_db_after();
	remove_db();
}

/* Open a new cache, store the plan, close. */
static int put_body(uint64_t *digest)
{
	cache *k = NULL;
	char err[256];
	int rc = cache_open(db, 0, &k, NULL, err, sizeof err);
	if (rc)
		return rc;
	struct cache_meta meta = {.phases = 4,
	                          .lb_phases = 4,
	                          .predicted = 1.5,
	                          .canonical = "text"};
	snprintf(meta.algorithm, sizeof meta.algorithm, "binomial");
	rc = cache_put(k, image_key, image, image_len, &meta);
	cache_close(k);
	*digest = 1;
	return rc;
}

static void setup_get(void)
{
	cache *k = NULL;
	char err[256];
	remove_db();
	assert_int_equal(cache_open(db, 0, &k, NULL, err, sizeof err), 0);
	assert_int_equal(cache_put(k, image_key, image, image_len, NULL), 0);
	cache_close(k);
}

/* Open the cache, get the plan with its description, close. */
static int get_body(uint64_t *digest)
{
	cache *k = NULL;
	char err[256];
	int rc = cache_open(db, 0, &k, NULL, err, sizeof err);
	if (rc)
		return rc;
	void *blob = NULL;
	size_t len = 0;
	struct cache_meta meta;
	rc = cache_get(k, image_key, &blob, &len, &meta);
	if (rc == 0) {
		*digest = XXH3_64bits(blob, len) ^ meta.phases;
		cache_meta_fini(&meta);
	}
	free(blob);
	cache_close(k);
	return rc;
}

/* ---- the runtime, through ccp_init's allocator ------------------------- */

/* The application's allocator, on the contract of ccp_alloc_fn (Lua's
 * lua_Alloc): keeps in *ud the bytes the runtime holds, by the sizes the
 * runtime states, which must come back to zero at ccp_fini. */
static void *app_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	long long *held = ud;
	if (nsize == 0) {
		free(ptr);
		*held -= (long long)osize;
		return NULL;
	}
	void *q = realloc(ptr, nsize);
	if (q)
		*held += (long long)nsize - (long long)osize;
	return q;
}

/* Load every rank's slice from memory, and rank 3's from a file and bind
 * it (the runtime allocates the scratch), then free everything. */
static int runtime_body(uint64_t *digest)
{
	ccp_context *ctx = NULL;
	long long held = 0;
	int rc = ccp_init(&ctx, app_alloc, &held);
	if (rc)
		return rc;
	uint64_t h = 0;
	for (int32_t r = 0; r < 16 && rc == 0; r++) {
		ccp_plan *p = NULL;
		ccp_plan_info info;
		rc = ccp_plan_load_memory(ctx, image, image_len, r, &p);
		if (rc == 0 && (rc = ccp_plan_get_info(p, &info)) == 0)
			h = h * 31 + info.plan_hash + info.recv_bytes +
			    info.scratch_bytes;
		ccp_plan_free(p);
	}
	if (rc == 0) {
		char path[600];
		ccp_plan *p = NULL;
		snprintf(path, sizeof path, "%s/plan.ccp", tmpdir);
		rc = ccp_plan_load_file(ctx, path, 3, &p);
		static uint8_t recv[1024];
		if (rc == 0)
			rc = ccp_plan_bind(p, NULL, 0, recv, sizeof recv, NULL,
			                   0);
		ccp_plan_free(p);
	}
	ccp_fini(ctx);
	if (held != 0) {
		print_error("runtime: %lld bytes held after ccp_fini\n", held);
		return CCP_EINTERNAL;
	}
	*digest = h;
	return rc;
}

static void setup_runtime_file(void)
{
	char path[600], err[256];
	snprintf(path, sizeof path, "%s/plan.ccp", tmpdir);
	assert_int_equal(write_atomic(path, image, image_len, err, sizeof err),
	                 0);
}

/* ---- the harness itself
 * ------------------------------------------------------ */

/* Three allocations; when the second fails the first is leaked. */
static int leaky_body(uint64_t *digest)
{
	char *a = malloc(8), *b = NULL, *c = NULL;
	if (!a)
		return CCP_ENOMEM;
	if (!(b = malloc(8)))
		return CCP_ENOMEM; /* a leaks */
	c = malloc(8);
	*digest = c ? 1 : 2; /* a failed third: success, another result */
	free(a);
	free(b);
	free(c);
	return 0;
}

/* One allocation failing with the wrong code. */
static int wrong_code_body(uint64_t *digest)
{
	char *a = malloc(8);
	*digest = 1;
	free(a);
	return a ? 0 : CCP_EIO;
}

/* The harness finds what it is for: a leak, a success with another
 * result, a code other than CCP_ENOMEM. */
static void test_harness(void **state)
{
	(void)state;
	const struct scenario leaky = {"leaky", NULL, leaky_body, NULL, {0}};
	const struct scenario wrong = {
	        "wrong code", NULL, wrong_code_body, NULL, {0}};
	const struct scenario allowed = {
	        "allowed code", NULL, wrong_code_body, NULL, {CCP_EIO}};
	print_message("(three problems expected here)\n");
	assert_int_equal(run_every_n(&leaky), 2);
	assert_int_equal(run_every_n(&wrong), 1);
	assert_int_equal(run_every_n(&allowed), 0);
}

/* ---- the tests -------------------------------------------------------------
 */

static void test_parse(void **state)
{
	(void)state;
	const struct scenario s = {"parse", NULL, parse_body, NULL, {0}};
	const struct scenario m = {
	        "parse matrix", NULL, parse_irregular_body, NULL, {0}};
	int problems = run_every_n(&s);
	problems += run_every_n(&m);
	assert_int_equal(problems, 0);
}

static void test_compile(void **state)
{
	(void)state;
	const struct scenario s[] = {
	        {"binomial", setup_bcast, compile_body, teardown_parsed, {0}},
	        {"link_aware",
	         setup_link_aware,
	         compile_body,
	         teardown_parsed,
	         {0}},
	        {"rs_nl", setup_rs_nl, compile_body, teardown_parsed, {0}},
	        {"pex", setup_alltoall, compile_body, teardown_parsed, {0}},
	        {"auto", setup_auto, compile_body, teardown_parsed, {0}},
	        {"auto model",
	         setup_auto_model,
	         compile_body,
	         teardown_parsed,
	         {0}},
	};
	int problems = 0;
	for (size_t k = 0; k < sizeof s / sizeof s[0]; k++)
		problems += run_every_n(&s[k]);
	assert_int_equal(problems, 0);
}

static void test_encode(void **state)
{
	(void)state;
	const struct scenario s = {
	        "encode", setup_encode, encode_body, teardown_encode, {0}};
	assert_int_equal(run_every_n(&s), 0);
}

static void test_tbuf(void **state)
{
	(void)state;
	const struct scenario s = {"text buffer", NULL, tbuf_body, NULL, {0}};
	assert_int_equal(run_every_n(&s), 0);
}

static void test_cache(void **state)
{
	(void)state;
	make_image();
	const struct scenario put = {
	        "cache put", setup_put, put_body, teardown_put, {0}};
	const struct scenario get = {
	        "cache get", setup_get, get_body, remove_db, {0}};
	int problems = run_every_n(&put);
	problems += run_every_n(&get);
	free_image();
	assert_int_equal(problems, 0);
}

static void test_runtime(void **state)
{
	(void)state;
	make_image();
	setup_runtime_file();
	const struct scenario s = {"runtime", NULL, runtime_body, NULL, {0}};
	int problems = run_every_n(&s);
	free_image();
	assert_int_equal(problems, 0);
}

int main(void)
{
	/* in memory where possible: a cache is synced on creation */
	static char dir[64];
	bool shm = access("/dev/shm", W_OK) == 0;
	snprintf(dir, sizeof dir, "%s/ccp-allocfail-XXXXXX",
	         shm ? "/dev/shm" : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	tmpdir = dir;
	snprintf(db, sizeof db, "%s/plans.db", dir);
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_harness), cmocka_unit_test(test_parse),
	        cmocka_unit_test(test_compile), cmocka_unit_test(test_encode),
	        cmocka_unit_test(test_tbuf),    cmocka_unit_test(test_cache),
	        cmocka_unit_test(test_runtime),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char path[600];
	remove_db();
	snprintf(path, sizeof path, "%s/plan.ccp", dir);
	unlink(path);
	rmdir(dir);
	return rc;
}

#else /* ALLOC_FAIL_SKIP */

int main(void)
{
	printf("alloc_fail: skipped: AddressSanitizer replaces malloc "
	       "itself, so this program cannot\n");
	return 77;
}

#endif
