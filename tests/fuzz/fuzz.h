/*
 * fuzz.h - what the fuzz harnesses share (tests/fuzz/, docs/reliability.md).
 *
 * Each harness defines LLVMFuzzerTestOneInput and LLVMFuzzerInitialize.
 * Built with clang -fsanitize=fuzzer (CCPLAN_FUZZ=ON) it is a libFuzzer
 * target; built with replay.c instead it is an ordinary program that runs
 * the same function over files and directories, which is how CTest replays
 * the corpora and the regression inputs in every build.
 */
#ifndef CCP_FUZZ_H
#define CCP_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A property the code under test must keep: on failure, say which and
 * abort, which libFuzzer reports as a crash and the replay as a failure. */
#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: fuzz check failed: %s\n",      \
			        __FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

/* Make every checksum of the .ccp image buf (len bytes) right for the
 * bytes around it: each rank section's trailing sum and its copy in the
 * rank index (for the entries and sections that lie inside buf), the plan
 * hash (if the size the header states fits in buf), then the header
 * checksum.  A mutated image then reaches the checks behind the checksums
 * instead of stopping at the first one.  false if buf does not start with
 * a header's magic. */
bool fuzz_seal_plan(uint8_t *buf, size_t len);

/* /dev/null open for writing, for output the harnesses make but do not
 * look at (diagnostics, explain); opened once, never closed. */
FILE *fuzz_devnull(void);

/* A directory for one process's scratch files (under /dev/shm when it
 * exists, else $TMPDIR or /tmp), made on first use and removed with
 * everything in it at exit.  The path is borrowed. */
const char *fuzz_scratch_dir(void);

#endif
