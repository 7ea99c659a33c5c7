/*
 * tree.h - private to the front end (compiler/front/): the tree of YAML
 * nodes that tree.c builds from libyaml's events, the context of one
 * parse, and the typed getters and diagnostics that the schema files
 * (machine_schema.c, comm_schema.c, document.c) read the tree with.  The
 * rest of the compiler includes front.h, never this.
 */
#ifndef CCP_FRONT_TREE_H
#define CCP_FRONT_TREE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "front.h"
#include "tbuf.h"

#define FRONT_MAX_DEPTH  64
#define FRONT_INLINE_MAX 4096 /* rows of an inline dense matrix */
#define FRONT_MAX_NODES  ((uint32_t)FRONT_INLINE_MAX * FRONT_INLINE_MAX + 65536)
#define FRONT_PATH_MAX   4096
#define FRONT_CARET_MAX  4096 /* widest column a caret is drawn under */
#define NONE             UINT32_MAX

/* ---- the node tree ---------------------------------------------------- */

/* ---- the node tree ---------------------------------------------------- */

enum { YN_SCALAR, YN_SEQ, YN_MAP };

/* One YAML value.  Nodes are stored in document order (pre-order), so a
 * collection's first child follows it and a child's next sibling follows
 * that child's last descendant. */
struct ynode {
	uint32_t line, col; /* 1-based start */
	uint32_t a;    /* scalar: offset of its text; collection: children */
	uint32_t b;    /* scalar: text length; collection: index one past
	                  its last descendant */
	uint8_t kind;  /* YN_* */
	uint8_t plain; /* scalar: written plain (unquoted, no block style) */
	uint8_t block; /* scalar: a literal (|) or folded (>) block */
};

/* Everything one parse works with. */
struct ctx {
	const char *name; /* file name for diagnostics */
	const char *buf;  /* the YAML text */
	size_t len;
	const char *dir; /* directory of matrix files, "" = current */
	struct diag *d;
	struct ynode *v; /* nodes */
	uint32_t n, cap;
	struct tbuf chars; /* scalar texts, each followed by its NUL */
	struct front_input *in;
};

/* The next sibling of node v. */
static inline uint32_t next_of(const struct ctx *x, uint32_t v)
{
	return x->v[v].kind == YN_SCALAR ? v + 1 : x->v[v].b;
}

/* The i-th child of collection v (i < its count). */
static inline uint32_t child(const struct ctx *x, uint32_t v, uint32_t i)
{
	uint32_t c = v + 1;

	while (i--)
		c = next_of(x, c);
	return c;
}

/* Text of scalar v. */
static inline const char *text(const struct ctx *x, uint32_t v)
{
	return x->chars.p + x->v[v].a;
}

/* Is scalar v a YAML null (empty, ~ or null, written plain)? */
static inline bool is_null(const struct ctx *x, uint32_t v)
{
	const char *s = text(x, v);

	return x->v[v].kind == YN_SCALAR && x->v[v].plain &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") ||
	        !strcmp(s, "Null") || !strcmp(s, "NULL"));
}

/* ---- mappings --------------------------------------------------------- */

/* The keys a mapping accepts and where each was found. */
struct keys {
	const char *const *names; /* accepted keys */
	size_t count;
	uint32_t key[16]; /* node of each key, NONE if absent */
	uint32_t val[16]; /* node of each value, NONE if absent */
};

/* The keys one mapping of the schema accepts, for the "it belongs in"
 * of an unknown key (document_key_home). */
struct key_names {
	const char *const *names;
	size_t count;
};
extern const struct key_names graph_schema_keys, graph_schema_link_keys;
extern const struct key_names machine_schema_keys, machine_schema_level_keys,
        machine_schema_tree_keys, machine_schema_cost_keys,
        machine_schema_dfly_keys, comm_schema_keys, comm_schema_gen_keys;

/* ---- tree.c: building the tree, diagnostics, typed getters ------------ */

int tree_build(struct ctx *x);
/* The text of line (1-based) of buf into out (cap bytes, cut there;
 * "" past the end): what a diagnostic shows above its caret. */
void tree_line_of(const char *buf, size_t len, uint32_t line, char *out,
                  size_t cap);
/* Fill d with a problem at line:col (1-based; 0: no position) of the
 * text buf (len bytes) of the file named file: the message from fmt and
 * ap, the source line for the caret.  Returns CCP_EPARSE.  What every
 * reader of the front end reports through (tree_err_at, slurm.c). */
int tree_diag_v(struct diag *d, const char *file, const char *buf, size_t len,
                uint32_t line, uint32_t col, const char *fmt, va_list ap)
        FRONT_PRINTF(7, 0);
int tree_err_at(struct ctx *x, uint32_t v, const char *fmt, ...)
        FRONT_PRINTF(3, 4);
int tree_err_nomem(struct ctx *x);
const char *tree_desc(const struct ctx *x, uint32_t v, char *buf, size_t cap);
bool tree_is_int_text(const char *s);
bool tree_is_float_text(const char *s);
int tree_get_int(struct ctx *x, uint32_t v, const char *path, int64_t lo,
                 int64_t hi, const char *why, int64_t *out);
bool tree_quick_int(const struct ctx *x, uint32_t v, int64_t lo, int64_t hi,
                    int64_t *out);
/* A byte count at scalar v: an integer as tree_get_int reads it (0 to
 * hi), or one with a unit, 4K or 4KiB (front_parse_size). */
int tree_get_size(struct ctx *x, uint32_t v, const char *path, int64_t hi,
                  const char *why, int64_t *out);
int tree_get_num(struct ctx *x, uint32_t v, const char *path, double *out);
int tree_get_str(struct ctx *x, uint32_t v, const char *path, size_t max,
                 const char **out);
/* A file name at scalar v (key names it), into path: as written when
 * absolute or when the input has no directory, else relative to the
 * YAML file's directory. */
int tree_get_path(struct ctx *x, uint32_t v, const char *key,
                  char path[FRONT_PATH_MAX]);
/* A problem at byte at of scalar v's text: at its column when the
 * scalar is one line (plain, or quoted: one past the quote; escapes are
 * not counted), else at v.  Returns CCP_EPARSE. */
int tree_err_in(struct ctx *x, uint32_t v, size_t at, const char *fmt, ...)
        FRONT_PRINTF(4, 5);
/* Host names at v, a hostlist string ("n[0-15],login") or a sequence
 * of them, appended to h, at most max names in h: 0, or CCP_EPARSE at
 * the column of the fault (a name listed twice when h is unique, a bad
 * bracket, too many names), CCP_ENOMEM.  path names the key.  With tell,
 * more than max names return CCP_ERANGE without a message, for the
 * caller to say what the limit is. */
int tree_get_hostlist(struct ctx *x, uint32_t v, const char *path, int32_t max,
                      bool tell, struct hostlist *h);
/* What reading the file named at v returned (front_read_matrix's
 * codes): CCP_EIO and CCP_EINVAL, whose message has no position, are
 * reported at v; the rest as they are. */
int tree_file_rc(struct ctx *x, uint32_t v, const char *key, int rc);
int tree_get_name(struct ctx *x, uint32_t v, const char *path, char *out);
const char *tree_list_of(const char *const *names, size_t count, char *buf,
                         size_t cap);
int tree_get_enum(struct ctx *x, uint32_t v, const char *path, const char *what,
                  const char *const *names, size_t count, int *out);
int tree_map_keys(struct ctx *x, uint32_t m, const char *path, struct keys *k);
int tree_missing(struct ctx *x, uint32_t m, const char *path, const char *key,
                 const char *extra);

/* ---- the schema --------------------------------------------------------- */

/* machine_schema.c: the machine mapping at node v into *m. */
int machine_schema_parse(struct ctx *x, uint32_t v, ir_machine *m);
/* graph_schema.c: a graph machine's graph at node v (machine.graph),
 * its hosts named by machine.hosts at node hosts (NONE: graph.hosts
 * counts them), into m->graph (one reference). */
int graph_schema_parse(struct ctx *x, uint32_t v, uint32_t hosts,
                       ir_machine *m);
/* comm_schema.c: the communication mapping at node v, for machine m. */
int comm_schema_parse(struct ctx *x, uint32_t v, const ir_machine *m,
                      ir_comm *c);
/* document.c: where an unknown key belongs instead, for its message. */
bool document_key_home(const char *key, const char *path, char *buf,
                       size_t cap);

#endif
