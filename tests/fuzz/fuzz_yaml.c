/*
 * fuzz_yaml.c - the YAML front end (compiler/front/) on arbitrary text.
 *
 * Every input is parsed as `ccplan compile` parses a file given as a
 * string; a refusal must come with a diagnostic that prints, and an
 * accepted input must have a canonical text whose XXH3-128 is the input
 * hash (the cache key).  A small accepted input (few ranks, segments and
 * messages, so one run stays in milliseconds) goes on through what a
 * compile does with it: generate, verify and lower, encode to a .ccp
 * image, and that image must load again through `ccplan verify`'s path
 * with the same hash: the compiler never writes a plan its reader
 * refuses.  Matrix files named by `file:` are read relative to the
 * current directory.
 *
 * Generated patterns (`generate:`) cost time and memory in proportion to
 * the messages they make, up to the documented 2^28 (gigabytes, and
 * seconds to minutes instrumented).  The harness is linked with
 * --wrap for the three generators (fuzz.cmake), and the wrappers below
 * refuse a pattern of more than GENERATE_MAX entries as out of memory,
 * which the front end reports like any other allocation failure.
 */
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "compile.h"
#include "front.h"
#include "fuzz.h"

/* Beyond these an input is only parsed: generating and verifying a plan
 * grows with ranks x segments x messages, and `auto` runs every
 * generator and the simulator. */
#define COMPILE_MAX_RANKS      64
#define COMPILE_MAX_AUTO_RANKS 16
#define COMPILE_MAX_SEGMENTS   64
#define COMPILE_MAX_MESSAGES   1024

/* Most entries a generator may make (or visit, for density) here. */
#define GENERATE_MAX (INT64_C(1) << 18)

ir_matrix *__real_ir_matrix_regular(int32_t n, int32_t d, int64_t bytes,
                                    uint64_t seed);
ir_matrix *__real_ir_matrix_density(int32_t n, double density, int64_t bytes,
                                    uint64_t seed);
ir_matrix *__real_ir_matrix_skewed(int32_t n, int32_t d, int32_t hot,
                                   int64_t bytes, uint64_t seed);
ir_matrix *__wrap_ir_matrix_regular(int32_t n, int32_t d, int64_t bytes,
                                    uint64_t seed);
ir_matrix *__wrap_ir_matrix_density(int32_t n, double density, int64_t bytes,
                                    uint64_t seed);
ir_matrix *__wrap_ir_matrix_skewed(int32_t n, int32_t d, int32_t hot,
                                   int64_t bytes, uint64_t seed);

ir_matrix *__wrap_ir_matrix_regular(int32_t n, int32_t d, int64_t bytes,
                                    uint64_t seed)
{
	if ((int64_t)n * d > GENERATE_MAX)
		return NULL;
	return __real_ir_matrix_regular(n, d, bytes, seed);
}

ir_matrix *__wrap_ir_matrix_density(int32_t n, double density, int64_t bytes,
                                    uint64_t seed)
{
	if ((int64_t)n * n > GENERATE_MAX)
		return NULL;
	return __real_ir_matrix_density(n, density, bytes, seed);
}

ir_matrix *__wrap_ir_matrix_skewed(int32_t n, int32_t d, int32_t hot,
                                   int64_t bytes, uint64_t seed)
{
	if ((int64_t)n * d + (int64_t)n * hot > GENERATE_MAX)
		return NULL;
	return __real_ir_matrix_skewed(n, d, hot, bytes, seed);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/* A diagnostic as the front end leaves it: a terminated message that
 * says something, terminated strings, and a position that is either
 * none or 1-based. */
static void check_diag(const struct diag *d)
{
	FUZZ_CHECK(memchr(d->message, 0, sizeof d->message) != NULL);
	FUZZ_CHECK(d->message[0] != '\0');
	FUZZ_CHECK(memchr(d->file, 0, sizeof d->file) != NULL);
	FUZZ_CHECK(memchr(d->source_line, 0, sizeof d->source_line) != NULL);
	FUZZ_CHECK(d->line >= 0 && d->column >= 0);
	FUZZ_CHECK(d->line == 0 || d->column >= 1);
	front_print_diag(fuzz_devnull(), d->file, d->line, d->column,
	                 d->message, d->source_line);
}

static bool cheap_to_compile(const struct front_input *in)
{
	const ir_comm *c = &in->comm;
	int32_t n = in->machine.nranks;
	if (n > COMPILE_MAX_RANKS || c->segments > COMPILE_MAX_SEGMENTS)
		return false;
	if (c->matrix && c->matrix->nnz > COMPILE_MAX_MESSAGES)
		return false;
	return strcmp(in->algorithm, "auto") != 0 ||
	       n <= COMPILE_MAX_AUTO_RANKS;
}

/* What `ccplan compile` does with a parsed input, then `ccplan verify`
 * with what it wrote. */
static void compile_and_reload(const struct front_input *in,
                               const uint8_t hash[16])
{
	struct compiled c, back;
	struct diag d;
	uint8_t *img = NULL;
	size_t len = 0;
	char err[512];
	ir_file_info fi;

	memset(&d, 0, sizeof d);
	int rc = compile_input(in, &c, &d);
	if (rc) {
		FUZZ_CHECK(rc < 0 && rc != CCP_EINTERNAL);
		FUZZ_CHECK(d.message[0] != '\0');
		/* a generator that applies makes a plan its own definition
		 * allows; only a stricter contention policy can refuse it */
		if (rc == CCP_EVERIFY && in->contention != CONTENTION_FORBID)
			fprintf(stderr, "rejected: %s\n", d.message);
		FUZZ_CHECK(rc != CCP_EVERIFY ||
		           in->contention == CONTENTION_FORBID);
		return;
	}
	FUZZ_CHECK(memcmp(c.plan.input_hash, hash, 16) == 0);
	rc = compile_encode(&c, &img, &len, err, sizeof err);
	FUZZ_CHECK(rc == 0);
	rc = plan_load_image(img, len, "fuzz.ccp", &back, &fi, err, sizeof err);
	if (rc)
		fprintf(stderr, "reload: %s\n", err);
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(memcmp(fi.input_hash, hash, 16) == 0);
	FUZZ_CHECK(back.report.phases == c.report.phases);
	compiled_fini(&back);
	free(img);
	compiled_fini(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct front_input in;
	struct diag d;
	uint8_t hash[16], want[16];

	int rc = front_parse_string("fuzz.yaml", (const char *)data, size, &in,
	                            &d);
	if (rc) {
		FUZZ_CHECK(rc == CCP_EPARSE || rc == CCP_EIO ||
		           rc == CCP_ENOMEM);
		check_diag(&d);
		return 0;
	}
	FUZZ_CHECK(in.machine.nranks >= 1 && in.machine.nranks <= IR_MAX_RANKS);
	char *text = front_canonical(&in);
	FUZZ_CHECK(text != NULL);
	FUZZ_CHECK(front_input_hash(&in, hash) == 0);
	XXH128_hash_t h = XXH3_128bits(text, strlen(text));
	for (int i = 0; i < 8; i++) {
		want[i] = (uint8_t)(h.high64 >> (56 - 8 * i));
		want[8 + i] = (uint8_t)(h.low64 >> (56 - 8 * i));
	}
	FUZZ_CHECK(memcmp(hash, want, sizeof hash) == 0);
	free(text);
	if (cheap_to_compile(&in))
		compile_and_reload(&in, hash);
	front_input_fini(&in);
	return 0;
}
