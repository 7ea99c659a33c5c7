/*
 * compile.h - the pipeline: parse -> generate -> verify -> lower -> emit,
 * and the reading side used by verify, explain and export.
 */
#ifndef CCP_COMPILE_H
#define CCP_COMPILE_H

#include "codec.h"
#include "front.h"
#include "ir.h"
#include "sched.h"

/* A plan together with everything the compiler knows of it. */
struct compiled {
	ir_plan plan;     /* the phases */
	ir_report report; /* what the verifier found */
	ir_slice *slices; /* per-rank operations, plan.machine.nranks */
};

/* Exit statuses of the command (docs/cli.md). */
enum {
	EXIT_OK = 0,
	EXIT_REJECTED = 1, /* the verifier rejected the plan */
	EXIT_BADINPUT = 2, /* an error in the user's input */
	EXIT_INTERNAL = 3  /* a bug or a resource failure */
};

/* Generate g's plan for in and verify it (the input's contention policy
 * and hash applied).  On failure why says so and p, r are released; on
 * success both are the caller's (ir_plan_fini, ir_report_fini). */
int compile_generate(const struct front_input *in,
                     const struct sch_generator *g, ir_plan *p, ir_report *r,
                     char *why, size_t len);

/* Generate, verify and lower what in asks for (`algorithm: auto`: the
 * best candidate of select_run, with the runner-up in plan.sel).  On failure d
 * says why (at the algorithm's position when the algorithm is at fault) and the
 * return is CCP_EPARSE/CCP_ENOTAPPLY (bad input), CCP_EVERIFY (rejected)
 * or another code.  c is valid only on success; compiled_fini frees it. */
int compile_input(const struct front_input *in, struct compiled *c,
                  struct diag *d);
void compiled_fini(struct compiled *c);

/* Encode c into a new .ccp image (*img malloc'd, freed by the caller). */
int compile_encode(const struct compiled *c, uint8_t **img, size_t *len,
                   char *err, size_t errlen);
/* Write len bytes to path atomically: a temporary file in the same
 * directory, synced, then renamed; nothing is left under path on
 * failure.  A symbolic link is kept and the file it names replaced; a
 * device or FIFO (/dev/null, a pipe) is written in place, since a rename
 * would replace it. */
int write_atomic(const char *path, const void *buf, size_t len, char *err,
                 size_t errlen);

/* Read the file at path whole into *out (malloc'd, the caller frees it;
 * len bytes, with slack behind them).  CCP_EIO with err set if it cannot
 * be opened or read, CCP_ENOMEM. */
int compile_read_file(const char *path, uint8_t **out, size_t *len,
                      char *err, size_t errlen);

/* Read a .ccp file whole, decode, and verify it again (the report is
 * recomputed, never trusted from the file).  The stored per-rank slices
 * are compared with a fresh lowering.  Returns CCP_E* with err set. */
int plan_load(const char *path, struct compiled *c, ir_file_info *fi, char *err,
              size_t errlen);
/* The same for an image already in memory (len bytes at img, borrowed);
 * path only names it in err.  fi must not be NULL. */
int plan_load_image(const uint8_t *img, size_t len, const char *path,
                    struct compiled *c, ir_file_info *fi, char *err,
                    size_t errlen);

/* A byte count written N, NK, NM or NG (powers of 1024), at most max;
 * -1 if malformed or larger.  Shared by the options that take sizes. */
int64_t parse_bytes(const char *s, int64_t max);

/* Map a CCP_E* code to the command's exit status. */
int exit_status(int rc);

#endif
