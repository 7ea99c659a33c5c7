/*
 * replay.c - the main of a harness built as an ordinary program: run
 * LLVMFuzzerTestOneInput over every file named on the command line and
 * every file in every directory named (not recursively, dot files
 * skipped, in name order).  A failed property aborts; an input that
 * cannot be read, or no input at all, exits 1.  CTest runs each harness
 * this way over its corpus and regression inputs (tests/fuzz/fuzz.cmake).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compile.h"
#include "fuzz.h"

/* Read path whole and run the harness on it; 0, or -1 if unreadable. */
static int replay_file(const char *path)
{
	uint8_t *buf;
	size_t len;
	char err[512];
	int rc = compile_read_file(path, &buf, &len, err, sizeof err);
	if (rc) {
		fprintf(stderr, "%s\n", rc == CCP_ENOMEM ? "out of memory" : err);
		return -1;
	}
	/* exactly len bytes, as libFuzzer gives them: no slack behind */
	uint8_t *in = malloc(len ? len : 1);
	if (!in) {
		free(buf);
		return -1;
	}
	memcpy(in, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(in, len);
	free(in);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	long n = 0;
	int rc = 0;
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat sb;
		if (stat(argv[i], &sb) != 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			rc = 1;
			continue;
		}
		if (!S_ISDIR(sb.st_mode)) {
			if (replay_file(argv[i]) != 0)
				rc = 1;
			n++;
			continue;
		}
		struct dirent **names;
		int k = scandir(argv[i], &names, NULL, by_name);
		if (k < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			rc = 1;
			continue;
		}
		for (int j = 0; j < k; j++) {
			char path[4096];
			if (names[j]->d_name[0] != '.') {
				snprintf(path, sizeof path, "%s/%s", argv[i],
				         names[j]->d_name);
				if (stat(path, &sb) == 0 &&
				    S_ISREG(sb.st_mode)) {
					if (replay_file(path) != 0)
						rc = 1;
					n++;
				}
			}
			free(names[j]);
		}
		free(names);
	}
	printf("%s: %ld inputs replayed\n", argv[0], n);
	if (n == 0) {
		fprintf(stderr, "%s: no inputs\n", argv[0]);
		rc = 1;
	}
	return rc;
}
