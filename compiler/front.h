/*
 * front.h - the YAML front end: a machine and a communication, read with
 * libyaml, checked, with every problem reported at its file:line:column.
 * The format is documented in docs/input-format.md.
 */
#ifndef CCP_FRONT_H
#define CCP_FRONT_H

#include <stdint.h>
#include <stdio.h>

#include "front/hostlist.h"
#include "ir.h"

/* Most bytes of a YAML input, and of a matrix file it names: each is
 * read whole (YAML) or a line at a time into memory that grows with it. */
#define FRONT_MAX_FILE ((size_t)256 << 20)

/* The most memory an input may make the compiler use, estimated before
 * it is spent (docs/input-format.md, "Limits"): by default 4 GiB, enough
 * for every example and test while a 2^24-rank plan (13 GB) is refused.
 * One setting for the process: main sets it from CCPLAN_MAX_MEMORY or
 * `compile --max-memory`. */
#define FRONT_MAX_MEMORY_DEFAULT ((uint64_t)4 << 30)
#define FRONT_MAX_MEMORY_ENV     "CCPLAN_MAX_MEMORY"
/* How to raise it, for the messages that refuse an input. */
#define FRONT_MAX_MEMORY_HINT                                                  \
	"to go ahead, raise the limit: " FRONT_MAX_MEMORY_ENV "=SIZE, or "     \
	"ccplan compile --max-memory SIZE (SIZE as 512M or 16G)"
/* The least a message of an irregular pattern costs to compile: the
 * front end refuses a matrix whose messages would need more than the
 * limit at this rate before it builds it (compile_estimate, which comes
 * later, puts each message at 700 bytes or more; test_estimate checks
 * that it never puts one below this). */
#define FRONT_BYTES_PER_MESSAGE 512
/* Set the limit in bytes; 0 restores FRONT_MAX_MEMORY_DEFAULT. */
void front_set_max_memory(uint64_t bytes);
uint64_t front_max_memory(void);
/* A byte count as people read sizes, in powers of 1024: "20.3 GiB",
 * "812 MiB", "96 KiB"; into buf (len bytes). */
void front_format_bytes(char *buf, size_t len, uint64_t v);

/* A diagnostic: where and what.  line and column are 1-based; 0 when the
 * problem has no position (a file that cannot be opened). */
struct diag {
	char file[512];
	int line;
	int column;
	char message[512];
	char source_line[256]; /* the text of that line, for the caret, or "" */
};

/* Print a diagnostic the way every ccplan command does: file:line:column:
 * message (file: message when there is no line), then the source line
 * with a caret under the column.  All strings borrowed. */
void front_print_diag(FILE *out, const char *file, int line, int column,
                      const char *message, const char *source_line);

enum contention_policy {
	CONTENTION_DEFAULT, /* whatever the algorithm is defined to allow */
	CONTENTION_FORBID,  /* the user asks for a contention-free plan */
	CONTENTION_ALLOW    /* the user accepts contention */
};

/* What one input file asks for. */
/* How algorithm: auto ranks the candidates. */
enum select_by {
	SELECT_SIMULATED, /* by the simulator's last delivery (the default) */
	SELECT_MODEL      /* by the cost model: faster to compile */
};

struct front_input {
	ir_machine machine;          /* checked machine, nranks derived */
	ir_comm comm;                /* checked communication (owns matrix) */
	char algorithm[IR_NAME_MAX]; /* algorithm name as written */
	int algorithm_line, algorithm_column; /* where, for later errors */
	char algorithm_source[256]; /* the text of that line, for the caret */
	enum contention_policy contention;
	enum select_by select; /* algorithm: auto only */
	uint64_t seed;         /* top-level seed, 0 if none */
	bool has_seed;
	/* machine.hosts: the name of each node in node order (count 0 when
	 * the input names none); hostlist_find(&in->hosts, name) gives a
	 * name's node.  Names do not change the plan: they stay out of the
	 * canonical form and the plan file. */
	struct hostlist hosts;
};

/* Parse and check the YAML file at path.  0 on success; CCP_EPARSE with d
 * filled on any problem in the input (or a matrix file it names); CCP_EIO
 * if the file cannot be read; CCP_ENOMEM.  in is valid only on success
 * and is released with front_input_fini. */
int front_parse_file(const char *path, struct front_input *in, struct diag *d);
/* Same, from memory; name is used in diagnostics, and relative matrix
 * file names are resolved against the current directory. */
int front_parse_string(const char *name, const char *text, size_t len,
                       struct front_input *in, struct diag *d);
void front_input_fini(struct front_input *in);
/* A machine alone: text is a YAML mapping whose one key is machine, the
 * same machine mapping as an input's, read by the same schema.  0 with *m
 * checked (nranks derived; a placement map's reference is the caller's,
 * ir_place_release(m->place)); CCP_EPARSE with d filled (name in d->file)
 * on any problem; CCP_ENOMEM.  The inspector's ccp_machine_from_yaml. */
int front_parse_machine(const char *name, const char *text, size_t len,
                        ir_machine *m, struct diag *d);

/* The canonical text of an input: every field that changes the plan, in
 * a fixed order and spelling, so equal inputs give equal text whatever
 * their key order, spacing or comments.  Returns a malloc'd string. */
char *front_canonical(const struct front_input *in);
/* XXH3-128 of front_canonical(in), big-endian into out. */
int front_input_hash(const struct front_input *in, uint8_t out[16]);

/* printf-style format checking, where the compiler has it. */
#if defined(__GNUC__)
#define FRONT_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define FRONT_PRINTF(fmt, args)
#endif

/* Fill d: the file, the 1-based line and column (0 when unknown), the text
 * of that line (borrowed, copied, may be NULL) and a printf-style message.
 * Long parts are cut to fit.  Shared by the front end's readers. */
void front_diag(struct diag *d, const char *file, int line, int column,
                const char *source_line, const char *fmt, ...)
        FRONT_PRINTF(6, 7);

/* Open the user's file path with fopen mode into *out: 0, or CCP_ENOMEM
 * ("out of memory") or CCP_EIO (prefix, then why) with d filled, without
 * a position.  Shared by the readers of YAML and matrix files. */
int front_fopen(const char *path, const char *mode, const char *prefix,
                FILE **out, struct diag *d);

/* Open the user's matrix file path for reading into *out: 0 only for a
 * regular file of at most max bytes.  Opening never waits (a FIFO with no
 * writer is refused, not waited for).  CCP_EINVAL when path is not a
 * regular file or is larger than max, CCP_EIO when it cannot be opened,
 * CCP_ENOMEM; d then says why, without a position. */
int front_fopen_regular(const char *path, uint64_t max, FILE **out,
                        struct diag *d);

/* Read a communication matrix file for n ranks: a dense CSV if path ends
 * in ".csv" (n <= IR_MATRIX_DENSE_MAX), else an edge list of lines
 * "src dst bytes" ('#' starts a comment).  The file must be a regular
 * file of at most FRONT_MAX_FILE bytes.  0 with *out the matrix (the
 * caller's, ir_matrix_free); CCP_EPARSE with d at path:line:column;
 * CCP_EIO if the file cannot be read, CCP_EINVAL if it is not a regular
 * file or is too large (d says why, without a position); CCP_ENOMEM.
 * The format is in docs/input-format.md. */
int front_read_matrix(const char *path, int32_t n, ir_matrix **out,
                      struct diag *d);
/* The same from an open stream f (borrowed, left open; it must allow
 * rewind, which a duplicate edge's message uses to show its first line);
 * path names it in diagnostics and chooses the format as above. */
int front_read_matrix_stream(FILE *f, const char *path, int32_t n,
                             ir_matrix **out, struct diag *d);

/* Read a placement file: the node of each of n ranks (nnodes nodes of k
 * ranks each), as whitespace-separated numbers, '#' starting a comment.
 * 0 with *out the placement (one reference, the caller's); errors as
 * front_read_matrix's.  The format is in docs/input-format.md. */
int front_read_place(const char *path, int32_t n, int32_t nnodes, int32_t k,
                     ir_place **out, struct diag *d);

/* A byte count written N, or N with K, M, G or T, alone or followed by
 * iB (KiB ...), all powers of 1024, at most max; -1 if malformed or
 * larger.  Every size of the command line and of the input reads this
 * way. */
int64_t front_parse_size(const char *s, int64_t max);

/* The name of names[0..count) closest to s, if close enough to be a
 * likely typo (suggest_nearest: edit distance 1 up to 3 characters, 2 up
 * to 9, 3 beyond, or a unique name s begins); else NULL.  Used for every
 * "did you mean" of the front end and the compiler. */
const char *front_nearest(const char *s, const char *const *names,
                          size_t count);

#endif
