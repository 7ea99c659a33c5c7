/*
 * fuzz_util.c - helpers of the fuzz harnesses (fuzz.h): resealing a
 * mutated plan image, /dev/null, and a scratch directory removed at
 * exit.
 */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "codec.h"
#include "fuzz.h"
#include "le.h"

/* Where the header keeps what sealing needs (docs/plan-format.md). */
enum {
	HDR_NRANKS = 24,
	HDR_INDEX_OFF = 48,
	HDR_FILE_SIZE = 56,
	HDR_PLAN_HASH = 112,
	HDR_CHECKSUM = 120,
	HDR_SIZE = 128,
	SECTION_SUM = 8 /* a rank section's trailing checksum */
};

static const uint8_t plan_magic[8] = {0x89, 'C',  'C',  'P',
                                      '\r', '\n', 0x1a, '\n'};

bool fuzz_seal_plan(uint8_t *buf, size_t len)
{
	if (len < HDR_SIZE || memcmp(buf, plan_magic, sizeof plan_magic) != 0)
		return false;
	uint64_t nranks = le_get_u32(buf + HDR_NRANKS);
	uint64_t index = le_get_u64(buf + HDR_INDEX_OFF);
	uint64_t fsize = le_get_u64(buf + HDR_FILE_SIZE);
	for (uint64_t r = 0; r < nranks; r++) {
		if (index > len || r > (len - index) / IR_FILE_INDEX_ENTRY ||
		    (len - index) / IR_FILE_INDEX_ENTRY - r < 1)
			break;
		uint8_t *e = buf + index + r * IR_FILE_INDEX_ENTRY;
		uint64_t off = le_get_u64(e), size = le_get_u64(e + 8);
		if (size < SECTION_SUM || off > len || size > len - off)
			continue;
		uint8_t *sum = buf + off + size - SECTION_SUM;
		uint64_t v = XXH3_64bits(buf + off, (size_t)size - SECTION_SUM);
		le_set_u64(sum, v);
		le_set_u64(e + 16, v);
	}
	if (fsize >= HDR_SIZE && fsize <= len)
		le_set_u64(
		        buf + HDR_PLAN_HASH,
		        XXH3_64bits(buf + HDR_SIZE, (size_t)fsize - HDR_SIZE));
	le_set_u64(buf + HDR_CHECKSUM, XXH3_64bits(buf, HDR_CHECKSUM));
	return true;
}

FILE *fuzz_devnull(void)
{
	static FILE *f;
	if (!f)
		f = fopen("/dev/null", "w");
	FUZZ_CHECK(f != NULL);
	return f;
}

static char scratch[PATH_MAX];

/* Remove the scratch directory and the files in it (it has no
 * subdirectories). */
static void scratch_remove(void)
{
	DIR *d = opendir(scratch);
	if (d) {
		struct dirent *e;
		char path[PATH_MAX + 256];
		while ((e = readdir(d)) != NULL) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(path, sizeof path, "%s/%s", scratch,
			         e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(scratch);
}

const char *fuzz_scratch_dir(void)
{
	if (scratch[0])
		return scratch;
	struct stat sb;
	const char *base = getenv("TMPDIR");
	if (stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) &&
	    access("/dev/shm", W_OK) == 0)
		base = "/dev/shm";
	else if (!base || !base[0])
		base = "/tmp";
	snprintf(scratch, sizeof scratch, "%s/ccplan-fuzz-XXXXXX", base);
	if (!mkdtemp(scratch)) {
		perror("fuzz: cannot make a scratch directory");
		abort();
	}
	atexit(scratch_remove);
	return scratch;
}
