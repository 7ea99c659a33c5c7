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

/* What building the plan for an input will cost, estimated from the
 * machine and the communication alone, before anything is built: for a
 * named algorithm its own plan, for `auto` every candidate (all are
 * built, verified and simulated, and kept until the best is chosen).
 * The counts are those of the largest plan; peak_bytes is the peak
 * memory of the whole compile (docs/input-format.md, "Limits"). */
struct compile_estimate {
	uint64_t transfers;  /* transfers of the plan */
	uint64_t blocks;     /* block references the transfers carry */
	uint64_t ops;        /* lowered operations over all ranks */
	uint64_t file_bytes; /* size of the .ccp file */
	uint64_t peak_bytes; /* peak memory of the compile */
	uint32_t candidates; /* plans built: 1, or the candidates of auto */
	const char *algorithm; /* the generator the counts are of (static),
	                          NULL when none applies */
};

/* Estimate what building in's plan will cost (cheap: a few operations
 * per candidate, nothing allocated): its algorithm's plan, or with every
 * set, every algorithm that applies (auto, compare), each simulated too
 * when simulate is set and the machine's costs allow it. */
void compile_estimate(const struct front_input *in, bool every, bool simulate,
                      struct compile_estimate *e);
/* 0 when compile_estimate(in, every, simulate) is within the limit of
 * front_max_memory();
 * else CCP_ERANGE with d->message giving the estimate, the limit and how
 * to raise it (no position: the input as a whole is too large). */
int compile_check_size(const struct front_input *in, bool every,
                       bool simulate, struct diag *d);

/* Generate g's plan for in and verify it (the input's contention policy
 * applied; the plan's input_hash is left 0: compile_input_key records
 * the key of the plan it keeps).  On failure why says so and p, r are
 * released; on success both are the caller's (ir_plan_fini,
 * ir_report_fini). */
int compile_generate(const struct front_input *in,
                     const struct sch_generator *g, ir_plan *p, ir_report *r,
                     char *why, size_t len);

/* Generate, verify and lower what in asks for (`algorithm: auto`: the
 * best candidate of select_run, with the runner-up in plan.sel).  Nothing
 * is built when compile_check_size refuses the input (CCP_ERANGE).  On
 * failure d says why (at the algorithm's position when the algorithm is at
 * fault) and the return is CCP_EPARSE/CCP_ENOTAPPLY/CCP_ERANGE (bad input),
 * CCP_EVERIFY (rejected) or another code.  c is valid only on success; compiled_fini frees it. */
int compile_input(const struct front_input *in, struct compiled *c,
                  struct diag *d);
/* The same, with in's key (front_input_hash) already computed: the plan
 * records it, and nothing hashes the input again (compile_cached). */
int compile_input_key(const struct front_input *in, const uint8_t key[16],
                      struct compiled *c, struct diag *d);
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
/* Encode c straight into the file at path, as write_atomic writes it,
 * without the image in memory (ir_plan_encode_to); the same bytes as
 * compile_encode.  A device or FIFO gets the image made in memory. */
int compile_write(const struct compiled *c, const char *path, char *err,
                  size_t errlen);
/* write_atomic, unless path is already a regular file of exactly these
 * bytes: then it is left as it is, its times set to now (a build system
 * that compares times sees it made afresh), and *same is set. */
int write_unless_same(const char *path, const void *buf, size_t len,
                      bool *same, char *err, size_t errlen);

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

/* Map a CCP_E* code to the command's exit status. */
int exit_status(int rc);

#endif
