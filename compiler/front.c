/*
 * front.c - the YAML front end: libyaml's parser events become a small
 * tree of nodes that remember where they started, the tree is checked
 * against the schema of docs/input-format.md, and a struct front_input
 * comes out.  Every problem is reported once, as file:line:column with the
 * source line, in words that say what was expected.
 *
 * Limits (each one documented, each one checked before memory is spent):
 * nesting depth 64, FRONT_MAX_NODES values (enough for a 4096 x 4096
 * inline matrix), FRONT_MAX_FILE bytes of YAML, no aliases.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "front.h"
#include "matrix.h"
#include "model.h"
#include "suggest.h"

#define FRONT_MAX_DEPTH  64
#define FRONT_INLINE_MAX 4096 /* rows of an inline dense matrix */
#define FRONT_MAX_NODES  ((uint32_t)FRONT_INLINE_MAX * FRONT_INLINE_MAX + 65536)
#define FRONT_PATH_MAX   4096
#define FRONT_CARET_MAX  4096 /* widest column a caret is drawn under */
#define NONE             UINT32_MAX

/* ---- diagnostics ------------------------------------------------------ */

/* ---- the memory limit ---------------------------------------------------- */

static uint64_t max_memory = FRONT_MAX_MEMORY_DEFAULT;

void front_set_max_memory(uint64_t bytes)
{
	max_memory = bytes ? bytes : FRONT_MAX_MEMORY_DEFAULT;
}

uint64_t front_max_memory(void)
{
	return max_memory;
}

void front_format_bytes(char *buf, size_t len, uint64_t v)
{
	if (v >= UINT64_C(1) << 60)
		snprintf(buf, len, "more than an EiB");
	else if (v >= UINT64_C(1) << 30)
		snprintf(buf, len, "%.1f GiB", (double)v / 1073741824.0);
	else if (v >= UINT64_C(1) << 20)
		snprintf(buf, len, "%.0f MiB", (double)v / 1048576.0);
	else
		snprintf(buf, len, "%.0f KiB", (double)v / 1024.0);
}

/* Copy src into dst of cap bytes, cutting it if needed. */
static void copy_cut(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void front_diag(struct diag *d, const char *file, int line, int column,
                const char *source_line, const char *fmt, ...)
{
	va_list ap;

	copy_cut(d->file, sizeof d->file, file ? file : "");
	d->line = line;
	d->column = column;
	copy_cut(d->source_line, sizeof d->source_line,
	         source_line ? source_line : "");
	va_start(ap, fmt);
	vsnprintf(d->message, sizeof d->message, fmt, ap);
	va_end(ap);
}

/* The text of 1-based line `line` of buf, without its line break, cut to
 * fit out (cap bytes); "" if there is no such line. */
static void line_of(const char *buf, size_t len, uint32_t line, char *out,
                    size_t cap)
{
	size_t i = 0, n = 0;

	out[0] = '\0';
	if (!buf || line == 0)
		return;
	for (uint32_t l = 1; l < line; l++) {
		const char *nl = memchr(buf + i, '\n', len - i);
		if (!nl)
			return;
		i = (size_t)(nl - buf) + 1;
	}
	while (i + n < len && buf[i + n] != '\n' && buf[i + n] != '\r' &&
	       n + 1 < cap)
		n++;
	memcpy(out, buf + i, n);
	out[n] = '\0';
}

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
	char *chars; /* scalar texts, each NUL-terminated */
	size_t nchars, capchars;
	struct front_input *in;
};

/* Report a problem at node v (NONE: no position) in the YAML file. */
static int err_at(struct ctx *x, uint32_t v, const char *fmt, ...)
        FRONT_PRINTF(3, 4);

static int err_at(struct ctx *x, uint32_t v, const char *fmt, ...)
{
	char msg[sizeof x->d->message];
	char src[sizeof x->d->source_line];
	uint32_t line = v == NONE ? 0 : x->v[v].line;
	uint32_t col = v == NONE ? 0 : x->v[v].col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	line_of(x->buf, x->len, line, src, sizeof src);
	front_diag(x->d, x->name, (int)line, (int)col, src, "%s", msg);
	return CCP_EPARSE;
}

/* Report a problem at a libyaml mark (0-based). */
static int err_mark(struct ctx *x, yaml_mark_t m, const char *fmt, ...)
        FRONT_PRINTF(3, 4);

static int err_mark(struct ctx *x, yaml_mark_t m, const char *fmt, ...)
{
	char msg[sizeof x->d->message];
	char src[sizeof x->d->source_line];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	line_of(x->buf, x->len, (uint32_t)m.line + 1, src, sizeof src);
	front_diag(x->d, x->name, (int)m.line + 1, (int)m.column + 1, src, "%s",
	           msg);
	return CCP_EPARSE;
}

/* Out of memory: no position, a plain message. */
static int err_nomem(struct ctx *x)
{
	front_diag(x->d, x->name, 0, 0, NULL, "out of memory");
	return CCP_ENOMEM;
}

/* Append a node of the given kind at libyaml mark m; its index in *out. */
static int node_add(struct ctx *x, int kind, yaml_mark_t m, uint32_t *out)
{
	if (x->n >= FRONT_MAX_NODES)
		return err_mark(x, m,
		                "input too large: more than %" PRIu32
		                " YAML values (an inline matrix holds at most "
		                "%d x %d entries; use file: for larger ones)",
		                FRONT_MAX_NODES, FRONT_INLINE_MAX,
		                FRONT_INLINE_MAX);
	if (x->n == x->cap) {
		uint32_t cap = x->cap ? x->cap * 2 : 256;
		struct ynode *v;
		if (cap > FRONT_MAX_NODES)
			cap = FRONT_MAX_NODES;
		v = realloc(x->v, (size_t)cap * sizeof *v);
		if (!v)
			return err_nomem(x);
		x->v = v;
		x->cap = cap;
	}
	memset(&x->v[x->n], 0, sizeof x->v[x->n]);
	x->v[x->n].kind = (uint8_t)kind;
	x->v[x->n].line = (uint32_t)m.line + 1;
	x->v[x->n].col = (uint32_t)m.column + 1;
	*out = x->n++;
	return 0;
}

/* Keep a scalar's text (len bytes, may hold NULs) for node v. */
static int text_add(struct ctx *x, uint32_t v, const unsigned char *s,
                    size_t len)
{
	if (len + 1 > x->capchars - x->nchars) {
		size_t cap = x->capchars ? x->capchars : 4096;
		char *c;
		while (len + 1 > cap - x->nchars)
			cap *= 2;
		c = realloc(x->chars, cap);
		if (!c)
			return err_nomem(x);
		x->chars = c;
		x->capchars = cap;
	}
	memcpy(x->chars + x->nchars, s, len);
	x->chars[x->nchars + len] = '\0';
	x->v[v].a = (uint32_t)x->nchars;
	x->v[v].b = (uint32_t)len;
	x->nchars += len + 1;
	return 0;
}

/* Turn a libyaml parser failure into a diagnostic. */
static int err_syntax(struct ctx *x, const yaml_parser_t *p)
{
	yaml_mark_t m = p->problem_mark;
	const char *problem = p->problem ? p->problem : "unknown problem";

	if (p->error == YAML_MEMORY_ERROR)
		return err_nomem(x);
	if (p->error == YAML_READER_ERROR) {
		/* reader errors give a byte offset, not a mark */
		size_t off =
		        p->problem_offset < x->len ? p->problem_offset : x->len;
		memset(&m, 0, sizeof m);
		for (size_t i = 0; i < off; i++) {
			if (x->buf[i] == '\n') {
				m.line++;
				m.column = 0;
			} else {
				m.column++;
			}
		}
		return err_mark(x, m, "cannot read the YAML text: %s", problem);
	}
	if (p->context)
		return err_mark(x, m,
		                "YAML syntax error: %s (%s at line %zu, "
		                "column %zu)",
		                problem, p->context, p->context_mark.line + 1,
		                p->context_mark.column + 1);
	return err_mark(x, m, "YAML syntax error: %s", problem);
}

/* Handle one parser event: grow the tree, or refuse what is not
 * supported.  stack/depth hold the open collections.  *done is set at
 * the end of the stream. */
static int tree_event(struct ctx *x, const yaml_event_t *e, uint32_t *stack,
                      int *depth, bool *docs, bool *done)
{
	uint32_t v = 0;
	const yaml_char_t *tag = NULL;
	int kind, rc;

	switch (e->type) {
	case YAML_STREAM_START_EVENT:
	case YAML_DOCUMENT_END_EVENT:
	case YAML_NO_EVENT:
		return 0;
	case YAML_STREAM_END_EVENT:
		*done = true;
		return 0;
	case YAML_DOCUMENT_START_EVENT:
		if (*docs)
			return err_mark(x, e->start_mark,
			                "multiple documents are not supported; "
			                "the input must be one YAML document");
		*docs = true;
		return 0;
	case YAML_ALIAS_EVENT:
		return err_mark(x, e->start_mark,
		                "aliases are not supported (write the value "
		                "out in full)");
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		v = stack[--*depth];
		x->v[v].b = x->n;
		return 0;
	case YAML_SCALAR_EVENT:
		kind = YN_SCALAR;
		tag = e->data.scalar.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		kind = YN_SEQ;
		tag = e->data.sequence_start.tag;
		break;
	case YAML_MAPPING_START_EVENT:
	default:
		kind = YN_MAP;
		tag = e->data.mapping_start.tag;
		break;
	}
	if (tag)
		return err_mark(x, e->start_mark,
		                "YAML tags such as '%s' are not supported",
		                (const char *)tag);
	if (kind != YN_SCALAR && *depth >= FRONT_MAX_DEPTH)
		return err_mark(x, e->start_mark,
		                "nesting deeper than %d levels",
		                FRONT_MAX_DEPTH);
	rc = node_add(x, kind, e->start_mark, &v);
	if (rc < 0)
		return rc;
	if (*depth > 0)
		x->v[stack[*depth - 1]].a++;
	if (kind == YN_SCALAR) {
		x->v[v].plain = e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		x->v[v].block =
		        e->data.scalar.style == YAML_LITERAL_SCALAR_STYLE ||
		        e->data.scalar.style == YAML_FOLDED_SCALAR_STYLE;
		return text_add(x, v, e->data.scalar.value,
		                e->data.scalar.length);
	}
	stack[(*depth)++] = v;
	return 0;
}

/* Parse x->buf into the node tree; node 0 is the document's root. */
static int tree_build(struct ctx *x)
{
	yaml_parser_t p;
	yaml_event_t e;
	uint32_t stack[FRONT_MAX_DEPTH];
	int depth = 0, rc = 0;
	bool docs = false, done = false;

	if (!yaml_parser_initialize(&p))
		return err_nomem(x);
	yaml_parser_set_input_string(&p, (const unsigned char *)x->buf, x->len);
	/* UTF-8 only: line texts and columns are then both in its terms */
	yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
	while (!done) {
		if (!yaml_parser_parse(&p, &e)) {
			rc = err_syntax(x, &p);
			goto out_delete_parser;
		}
		rc = tree_event(x, &e, stack, &depth, &docs, &done);
		yaml_event_delete(&e);
		if (rc < 0)
			goto out_delete_parser;
	}
	if (x->n == 0) {
		yaml_mark_t m = {0, 0, 0};
		rc = err_mark(x, m,
		              "empty input: expected a mapping with the keys "
		              "machine, communication and algorithm");
	}
out_delete_parser:
	yaml_parser_delete(&p);
	return rc;
}

/* The next sibling of node v. */
static uint32_t next_of(const struct ctx *x, uint32_t v)
{
	return x->v[v].kind == YN_SCALAR ? v + 1 : x->v[v].b;
}

/* The i-th child of collection v (i < its count). */
static uint32_t child(const struct ctx *x, uint32_t v, uint32_t i)
{
	uint32_t c = v + 1;

	while (i--)
		c = next_of(x, c);
	return c;
}

/* Text of scalar v. */
static const char *text(const struct ctx *x, uint32_t v)
{
	return x->chars + x->v[v].a;
}

/* Is scalar v a YAML null (empty, ~ or null, written plain)? */
static bool is_null(const struct ctx *x, uint32_t v)
{
	const char *s = text(x, v);

	return x->v[v].kind == YN_SCALAR && x->v[v].plain &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") ||
	        !strcmp(s, "Null") || !strcmp(s, "NULL"));
}

/* A short description of what node v is, for "got ..." in messages. */
static const char *desc(const struct ctx *x, uint32_t v, char *buf, size_t cap)
{
	const char *s;
	size_t n = 0, i;

	if (x->v[v].kind == YN_MAP)
		return "a mapping";
	if (x->v[v].kind == YN_SEQ)
		return "a sequence";
	if (is_null(x, v))
		return "nothing";
	s = text(x, v);
	buf[n++] = '\'';
	for (i = 0; i < x->v[v].b && n + 6 < cap; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n' || c == '\t') {
			buf[n++] = '\\';
			buf[n++] = c == '\n' ? 'n' : 't';
		} else {
			buf[n++] = c >= 0x20 && c != 0x7f ? (char)c : '?';
		}
	}
	if (i < x->v[v].b) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n++] = '\'';
	buf[n] = '\0';
	return buf;
}

/* ---- scalars ---------------------------------------------------------- */

/* Is s (NUL-terminated) a decimal integer: optional sign, digits? */
static bool is_int_text(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Is s a YAML decimal floating-point number (not an integer)? */
static bool is_float_text(const char *s)
{
	bool digits = false, dot = false;

	if (*s == '-' || *s == '+')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits = true;
	if (*s == '.') {
		dot = true;
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits = true;
	}
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
		return !*s;
	}
	return !*s && dot;
}

/* Is s one of YAML's spellings of NaN or infinity? */
static bool is_special_float(const char *s)
{
	static const char *const names[] = {
	        ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF",
	};

	if (*s == '-' || *s == '+')
		s++;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(s, names[i]))
			return true;
	return false;
}

/* Read node v as an integer in [lo, hi]; path names it in messages and
 * why, if not NULL, explains the upper limit. */
static int get_int(struct ctx *x, uint32_t v, const char *path, int64_t lo,
                   int64_t hi, const char *why, int64_t *out)
{
	char b[64];
	const char *s = text(x, v);
	const char *digits;
	long long r;
	char *end;

	if (x->v[v].kind != YN_SCALAR || is_null(x, v))
		return err_at(x, v, "%s: expected an integer, got %s", path,
		              desc(x, v, b, sizeof b));
	if (!x->v[v].plain)
		return err_at(x, v,
		              "%s: expected an integer, got the %s %s (write "
		              "numbers plain)",
		              path,
		              x->v[v].block ? "block scalar" : "quoted string",
		              desc(x, v, b, sizeof b));
	if (is_float_text(s) || is_special_float(s))
		return err_at(x, v,
		              "%s: expected an integer, got the floating-point "
		              "number %s",
		              path, desc(x, v, b, sizeof b));
	if (!is_int_text(s))
		return err_at(x, v, "%s: expected an integer, got %s", path,
		              desc(x, v, b, sizeof b));
	digits = s + (*s == '-' || *s == '+');
	if (digits[0] == '0' && digits[1])
		return err_at(
		        x, v,
		        "%s: %s has a leading zero; write decimal integers "
		        "without one (YAML could read it as octal)",
		        path, desc(x, v, b, sizeof b));
	errno = 0;
	r = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return err_at(x, v,
		              "%s: integer %s is out of range (it does not fit "
		              "in 64 bits)",
		              path, desc(x, v, b, sizeof b));
	if (r < lo) {
		if (lo == 0)
			return err_at(x, v,
			              "%s: must not be negative, got %lld",
			              path, r);
		return err_at(x, v, "%s: must be at least %lld, got %lld", path,
		              (long long)lo, r);
	}
	if (r > hi)
		return err_at(x, v, "%s: must be at most %lld%s%s, got %lld",
		              path, (long long)hi, why ? " " : "",
		              why ? why : "", r);
	*out = r;
	return 0;
}

/* The fast path for the many integers of a matrix: a plain decimal of
 * at most 18 digits in [lo, hi] is read here, without building the path
 * a message would need.  false for anything else; the caller then goes
 * through get_int, which reports it. */
static bool quick_int(const struct ctx *x, uint32_t v, int64_t lo, int64_t hi,
                      int64_t *out)
{
	const char *s = text(x, v);
	uint32_t len = x->v[v].b, i = 0;
	int64_t val = 0;
	bool neg;

	if (x->v[v].kind != YN_SCALAR || !x->v[v].plain || len == 0 || len > 18)
		return false;
	neg = s[0] == '-';
	if (s[0] == '-' || s[0] == '+')
		i = 1;
	if (i == len || (s[i] == '0' && i + 1 < len))
		return false;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		val = val * 10 + (s[i] - '0');
	}
	if (neg)
		val = -val;
	if (val < lo || val > hi)
		return false;
	*out = val;
	return true;
}

/* Read node v as a finite number >= 0 (an integer or a decimal
 * floating-point number); -0 becomes 0. */
static int get_num(struct ctx *x, uint32_t v, const char *path, double *out)
{
	char b[64];
	const char *s = text(x, v);
	double r;
	char *end;

	if (x->v[v].kind != YN_SCALAR || is_null(x, v) || !x->v[v].plain)
		return err_at(x, v, "%s: expected a number, got %s", path,
		              desc(x, v, b, sizeof b));
	if (is_special_float(s))
		return err_at(x, v, "%s: expected a finite number, got %s",
		              path, desc(x, v, b, sizeof b));
	if (!is_int_text(s) && !is_float_text(s))
		return err_at(x, v, "%s: expected a number, got %s", path,
		              desc(x, v, b, sizeof b));
	errno = 0;
	r = strtod(s, &end);
	if (!isfinite(r) || (errno == ERANGE && fabs(r) > 1.0))
		return err_at(x, v,
		              "%s: %s is out of range (not a finite double)",
		              path, desc(x, v, b, sizeof b));
	if (r < 0)
		return err_at(x, v, "%s: must not be negative, got %s", path,
		              desc(x, v, b, sizeof b));
	*out = r + 0.0;
	return 0;
}

/* Read node v as a string (any scalar style) of at most max bytes. */
static int get_str(struct ctx *x, uint32_t v, const char *path, size_t max,
                   const char **out)
{
	char b[64];

	if (x->v[v].kind != YN_SCALAR || is_null(x, v))
		return err_at(x, v, "%s: expected a string, got %s", path,
		              desc(x, v, b, sizeof b));
	if (strlen(text(x, v)) != x->v[v].b)
		return err_at(x, v, "%s: the string contains a NUL character",
		              path);
	if (x->v[v].b > max)
		return err_at(x, v, "%s: longer than %zu characters", path,
		              max);
	*out = text(x, v);
	return 0;
}

/* Closest name to s, for "did you mean" (see front.h; the rules are
 * suggest.c's). */
const char *front_nearest(const char *s, const char *const *names, size_t count)
{
	return suggest_nearest(s, names, count);
}

/* "a, b or c" from names[0..count) into buf. */
static const char *list_of(const char *const *names, size_t count, char *buf,
                           size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < count; i++) {
		const char *sep = i == 0 ? "" : i + 1 == count ? " or " : ", ";
		int w = snprintf(buf + n, cap - n, "%s%s", sep, names[i]);
		if (w < 0 || (size_t)w >= cap - n)
			break;
		n += (size_t)w;
	}
	return buf;
}

/* Read node v as one of names[0..count); *out gets its index.  what is
 * the kind of value ("topology"), for the message. */
static int get_enum(struct ctx *x, uint32_t v, const char *path,
                    const char *what, const char *const *names, size_t count,
                    int *out)
{
	char b[64], l[256];
	const char *s, *near;
	int rc = get_str(x, v, path, 64, &s);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < count; i++) {
		if (!strcmp(s, names[i])) {
			*out = (int)i;
			return 0;
		}
	}
	near = front_nearest(s, names, count);
	if (near)
		return err_at(x, v, "%s: unknown %s %s; did you mean '%s'?",
		              path, what, desc(x, v, b, sizeof b), near);
	return err_at(x, v, "%s: unknown %s %s; expected %s", path, what,
	              desc(x, v, b, sizeof b),
	              list_of(names, count, l, sizeof l));
}

/* ---- mappings --------------------------------------------------------- */

/* The keys a mapping accepts and where each was found. */
struct keys {
	const char *const *names; /* accepted keys */
	size_t count;
	uint32_t key[16]; /* node of each key, NONE if absent */
	uint32_t val[16]; /* node of each value, NONE if absent */
};

static bool key_home(const char *key, const char *path, char *buf,
                     size_t cap);

/* Check mapping m (at path, "" for the top level): a mapping, every key a
 * string it accepts, none twice.  Fills k->key and k->val. */
static int map_keys(struct ctx *x, uint32_t m, const char *path, struct keys *k)
{
	char b[64], l[256], where[96];
	uint32_t c;

	if (*path)
		snprintf(where, sizeof where, "in %s", path);
	else
		snprintf(where, sizeof where, "at top level");
	for (size_t i = 0; i < k->count; i++)
		k->key[i] = k->val[i] = NONE;
	if (x->v[m].kind != YN_MAP)
		return err_at(x, m,
		              "%s: expected a mapping of keys (%s), got %s",
		              *path ? path : "top level",
		              list_of(k->names, k->count, l, sizeof l),
		              desc(x, m, b, sizeof b));
	c = m + 1;
	for (uint32_t i = 0; i < x->v[m].a; i += 2) {
		uint32_t val = next_of(x, c);
		size_t j;
		const char *s, *near;
		if (x->v[c].kind != YN_SCALAR)
			return err_at(x, c,
			              "%s: a key must be a string, got %s",
			              *path ? path : "top level",
			              desc(x, c, b, sizeof b));
		s = text(x, c);
		for (j = 0; j < k->count; j++)
			if (strlen(s) == x->v[c].b && !strcmp(s, k->names[j]))
				break;
		if (j == k->count) {
			near = front_nearest(s, k->names, k->count);
			if (near)
				return err_at(
				        x, c,
				        "unknown key %s %s; did you mean '%s'?",
				        desc(x, c, b, sizeof b), where, near);
			if (key_home(s, path, l, sizeof l))
				return err_at(x, c,
				              "unknown key %s %s; it belongs in "
				              "%s",
				              desc(x, c, b, sizeof b), where, l);
			return err_at(x, c, "unknown key %s %s; expected %s",
			              desc(x, c, b, sizeof b), where,
			              list_of(k->names, k->count, l, sizeof l));
		}
		if (k->key[j] != NONE)
			return err_at(
			        x, c,
			        "duplicate key '%s' %s (first at line %" PRIu32
			        ", column %" PRIu32 ")",
			        k->names[j], where, x->v[k->key[j]].line,
			        x->v[k->key[j]].col);
		k->key[j] = c;
		k->val[j] = val;
		c = next_of(x, val);
	}
	return 0;
}

/* Report a required key that is missing from mapping m. */
static int missing(struct ctx *x, uint32_t m, const char *path, const char *key,
                   const char *extra)
{
	return err_at(x, m, "%s: missing required key '%s'%s",
	              *path ? path : "top level", key, extra ? extra : "");
}

/* ---- machine ---------------------------------------------------------- */

enum {
	MK_TOPOLOGY,
	MK_DIMS,
	MK_DIMENSION,
	MK_RANKS,
	MK_LEVELS,
	MK_ROUTING,
	MK_PORTS,
	MK_COST,
	MK_N
};
static const char *const machine_keys[MK_N] = {
        "topology", "dims",    "dimension", "ranks",
        "levels",   "routing", "ports",     "cost",
};

/* The key that gives the size of each topology. */
static const int shape_key[] = {
        [IR_MESH] = MK_DIMS,           [IR_TORUS] = MK_DIMS,
        [IR_HYPERCUBE] = MK_DIMENSION, [IR_HPAM] = MK_LEVELS,
        [IR_SWITCH] = MK_RANKS,
};

/* The nodes of the machine mapping, kept for placing the messages of
 * ir_machine_check. */
struct machine_nodes {
	uint32_t map;               /* the machine mapping */
	struct keys k;              /* its keys */
	uint32_t dims[IR_MAX_DIMS]; /* dims entries */
	uint32_t level[2][2];       /* levels[l] rows, cols values */
};

/* mesh/torus: dims, 1 to 3 extents, product at most IR_MAX_RANKS. */
static int parse_dims(struct ctx *x, uint32_t v, ir_machine *m,
                      struct machine_nodes *mn)
{
	char b[64], path[64];
	int64_t prod = 1, e;
	int rc;

	if (x->v[v].kind != YN_SEQ || x->v[v].a < 1 ||
	    x->v[v].a > IR_MAX_DIMS) {
		if (x->v[v].kind == YN_SEQ)
			snprintf(b, sizeof b, "%" PRIu32 " %s", x->v[v].a,
			         x->v[v].a == 1 ? "entry" : "entries");
		return err_at(x, v,
		              "machine.dims: expected 1 to %d extents "
		              "([x], [x, y] or [x, y, z]), got %s",
		              IR_MAX_DIMS,
		              x->v[v].kind == YN_SEQ ? b
		                                     : desc(x, v, b, sizeof b));
	}
	m->ndims = (int)x->v[v].a;
	for (int i = 0; i < IR_MAX_DIMS; i++)
		m->dims[i] = 1;
	for (int i = 0; i < m->ndims; i++) {
		uint32_t c = child(x, v, (uint32_t)i);
		mn->dims[i] = c;
		snprintf(path, sizeof path, "machine.dims[%d]", i);
		rc = get_int(x, c, path, 1, IR_MAX_RANKS, "(IR_MAX_RANKS)", &e);
		if (rc < 0)
			return rc;
		m->dims[i] = (int)e;
		prod *= e;
		if (prod > IR_MAX_RANKS)
			return err_at(
			        x, v,
			        "machine.dims: the machine would have more "
			        "than %d ranks (IR_MAX_RANKS)",
			        IR_MAX_RANKS);
	}
	return 0;
}

enum { LK_ROWS, LK_COLS, LK_C_SEND, LK_C_RECV, LK_COPY, LK_N };
static const char *const level_keys[LK_N] = {
        "rows", "cols", "c_send", "c_recv", "copy",
};

/* hpam: levels, two mappings {rows, cols, c_send, c_recv, copy}. */
static int parse_levels(struct ctx *x, uint32_t v, ir_machine *m,
                        struct machine_nodes *mn)
{
	char b[64], path[64], kp[96];
	struct keys k = {level_keys, LK_N, {0}, {0}};
	double *costs[3];
	int64_t e;
	int rc;

	if (x->v[v].kind != YN_SEQ || x->v[v].a != 2) {
		if (x->v[v].kind == YN_SEQ)
			snprintf(b, sizeof b, "%" PRIu32 " %s", x->v[v].a,
			         x->v[v].a == 1 ? "entry" : "entries");
		return err_at(x, v,
		              "machine.levels: expected 2 levels, level 1 then "
		              "level 2, each {rows: R, cols: C}; got %s",
		              x->v[v].kind == YN_SEQ ? b
		                                     : desc(x, v, b, sizeof b));
	}
	for (int l = 0; l < 2; l++) {
		uint32_t c = child(x, v, (uint32_t)l);
		snprintf(path, sizeof path, "machine.levels[%d]", l);
		rc = map_keys(x, c, path, &k);
		if (rc < 0)
			return rc;
		for (int j = LK_ROWS; j <= LK_COLS; j++) {
			if (k.val[j] == NONE)
				return missing(x, c, path, level_keys[j], NULL);
			snprintf(kp, sizeof kp, "%s.%s", path, level_keys[j]);
			rc = get_int(x, k.val[j], kp, 1, IR_MAX_RANKS,
			             "(IR_MAX_RANKS)", &e);
			if (rc < 0)
				return rc;
			m->levels[l][j] = (int)e;
			mn->level[l][j] = k.val[j];
		}
		costs[0] = &m->cost.c_send[l];
		costs[1] = &m->cost.c_recv[l];
		costs[2] = &m->cost.copy[l];
		for (int j = LK_C_SEND; j < LK_N; j++) {
			if (k.val[j] == NONE)
				continue;
			snprintf(kp, sizeof kp, "%s.%s", path, level_keys[j]);
			rc = get_num(x, k.val[j], kp, costs[j - LK_C_SEND]);
			if (rc < 0)
				return rc;
		}
	}
	m->ndims = 2;
	return 0;
}

enum {
	CK_PRESET,
	CK_ALPHA,
	CK_BETA,
	CK_HOP,
	CK_GAMMA,
	CK_BETA_SAT,
	CK_TAU,
	CK_PHI,
	CK_LAMBDA,
	CK_N
};
static const char *const cost_keys[CK_N] = {
        "preset",   "alpha", "beta", "hop",    "gamma",
        "beta_sat", "tau",   "phi",  "lambda",
};

/* Is s a name: letters, digits, '_', '-', '.', '+', not empty? */
static bool is_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		char c = *s;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		      c == '.' || c == '+'))
			return false;
	}
	return true;
}

/* Read a name (algorithm, preset) into out[IR_NAME_MAX]. */
static int get_name(struct ctx *x, uint32_t v, const char *path, char *out)
{
	char b[64];
	const char *s = NULL;
	int rc = get_str(x, v, path, IR_NAME_MAX - 1, &s);

	if (rc < 0)
		return rc;
	if (!is_name(s))
		return err_at(x, v,
		              "%s: %s is not a valid name (letters, digits, "
		              "'_', '-', '.' and '+')",
		              path, desc(x, v, b, sizeof b));
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

/* A preset name must be one of model/cost.c's. */
static int check_preset(struct ctx *x, uint32_t v, const char *name)
{
	size_t n = 0;
	const struct model_preset *p = model_preset_list(&n);
	const char *names[128];
	char b[64];
	if (model_preset_find(name))
		return 0;
	if (n > 128)
		n = 128;
	for (size_t i = 0; i < n; i++)
		names[i] = p[i].name;
	const char *near = front_nearest(name, names, n);
	if (near)
		return err_at(x, v,
		              "machine.cost.preset: unknown preset %s; did you "
		              "mean '%s'?",
		              desc(x, v, b, sizeof b), near);
	return err_at(x, v,
	              "machine.cost.preset: unknown preset %s (ccplan help "
	              "presets lists them)",
	              desc(x, v, b, sizeof b));
}

/* cost: microseconds, finite and >= 0; a key not given stays NaN.  A
 * preset fills the fields the input leaves unset. */
static int parse_cost(struct ctx *x, uint32_t v, ir_cost *c)
{
	struct keys k = {cost_keys, CK_N, {0}, {0}};
	double *field[CK_N] = {
	        NULL,         &c->alpha, &c->beta, &c->hop,    &c->gamma,
	        &c->beta_sat, &c->tau,   &c->phi,  &c->lambda,
	};
	char path[64];
	int rc = map_keys(x, v, "machine.cost", &k);

	if (rc < 0)
		return rc;
	if (k.val[CK_PRESET] != NONE) {
		rc = get_name(x, k.val[CK_PRESET], "machine.cost.preset",
		              c->preset);
		if (rc < 0)
			return rc;
		if ((rc = check_preset(x, k.val[CK_PRESET], c->preset)) < 0)
			return rc;
	}
	for (int j = CK_ALPHA; j < CK_N; j++) {
		if (k.val[j] == NONE)
			continue;
		snprintf(path, sizeof path, "machine.cost.%s", cost_keys[j]);
		rc = get_num(x, k.val[j], path, field[j]);
		if (rc < 0)
			return rc;
	}
	/* the preset fills what the user left unset (model/cost.c) */
	if (c->preset[0])
		model_preset_apply(c, c->preset);
	return 0;
}

/* Other spellings of a routing: the dimension-order routing of a 1-2D
 * grid is also "xy", of a 3D grid "xyz" (X, then Y, then Z). */
static const char *routing_alias(const ir_machine *m, enum ir_routing r)
{
	if (r != IR_ROUTE_DIM_ORDER)
		return NULL;
	return m->ndims == 3 ? "xyz" : "xy";
}

/* routing: one of the routings the topology allows (ir.h's table), by
 * name or by its alias; sets m->routing. */
static int parse_routing(struct ctx *x, uint32_t v, ir_machine *m)
{
	const char *ok[2 * IR_NROUTINGS], *all[IR_NROUTINGS + 2];
	enum ir_routing okr[2 * IR_NROUTINGS];
	size_t count = 0, nall = 0;
	unsigned allowed = ir_topo_routings(m->topo);
	const char *s, *near;
	char b[64], l[128], shape[64];
	int rc = get_str(x, v, "machine.routing", 64, &s);

	if (rc < 0)
		return rc;
	all[nall++] = "xy";
	all[nall++] = "xyz";
	for (int r = 0; r < IR_NROUTINGS; r++) {
		all[nall++] = ir_routing_names[r];
		if (!(allowed & (1u << r)))
			continue;
		const char *alias = routing_alias(m, (enum ir_routing)r);
		if (alias) {
			okr[count] = (enum ir_routing)r;
			ok[count++] = alias;
		}
		okr[count] = (enum ir_routing)r;
		ok[count++] = ir_routing_names[r];
	}
	for (size_t i = 0; i < count; i++) {
		if (!strcmp(s, ok[i])) {
			m->routing = okr[i];
			return 0;
		}
	}
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		snprintf(shape, sizeof shape, "a %d-dimensional %s", m->ndims,
		         ir_topo_names[m->topo]);
		break;
	case IR_HPAM:
		snprintf(shape, sizeof shape, "an hpam machine");
		break;
	default:
		snprintf(shape, sizeof shape, "a %s", ir_topo_names[m->topo]);
		break;
	}
	list_of(ok, count, l, sizeof l);
	for (size_t i = 0; i < nall; i++)
		if (!strcmp(s, all[i]))
			return err_at(
			        x, v,
			        "machine.routing: routing %s is not valid "
			        "for %s; expected %s",
			        desc(x, v, b, sizeof b), shape, l);
	near = front_nearest(s, ok, count);
	if (near)
		return err_at(x, v,
		              "machine.routing: unknown routing %s for %s; "
		              "did you mean '%s'?",
		              desc(x, v, b, sizeof b), shape, near);
	return err_at(x, v,
	              "machine.routing: unknown routing %s for %s; expected %s",
	              desc(x, v, b, sizeof b), shape, l);
}

/* ports: all (one transfer per link), one, or k >= 1. */
static int parse_ports(struct ctx *x, uint32_t v, ir_machine *m)
{
	static const char *const words[] = {"all", "one"};
	const char *near;
	char b[64];
	const char *s = x->v[v].kind == YN_SCALAR ? text(x, v) : "";
	int64_t k;
	int rc;

	if (x->v[v].kind == YN_SCALAR && x->v[v].plain && !is_null(x, v) &&
	    (is_int_text(s) || is_float_text(s))) {
		rc = get_int(x, v, "machine.ports", 1, IR_MAX_RANKS,
		             "(IR_MAX_RANKS)", &k);
		if (rc < 0)
			return rc;
		m->ports = (int)k;
		return 0;
	}
	if (x->v[v].kind == YN_SCALAR && !strcmp(s, "all")) {
		m->ports = IR_PORTS_ALL;
		return 0;
	}
	if (x->v[v].kind == YN_SCALAR && !strcmp(s, "one")) {
		m->ports = 1;
		return 0;
	}
	if (x->v[v].kind == YN_SCALAR &&
	    (near = front_nearest(s, words, 2)) != NULL)
		return err_at(x, v,
		              "machine.ports: expected all, one or an integer "
		              ">= 1, got %s; did you mean '%s'?",
		              desc(x, v, b, sizeof b), near);
	return err_at(x, v,
	              "machine.ports: expected all, one or an integer >= 1, "
	              "got %s",
	              desc(x, v, b, sizeof b));
}

/* Place a message of ir_machine_check at the value it names, if it
 * names one ("dims[1]", "levels[0][1]", "ports", "routing"). */
static uint32_t machine_err_node(const struct machine_nodes *mn,
                                 const char *err)
{
	int a, b;
	const char *p;

	if (sscanf(err, "levels[%d][%d]", &a, &b) == 2 && a >= 0 && a < 2 &&
	    b >= 0 && b < 2 && mn->level[a][b] != NONE)
		return mn->level[a][b];
	p = strstr(err, "levels[");
	if (p && sscanf(p, "levels[%d][%d]", &a, &b) == 2 && a >= 0 && a < 2 &&
	    b >= 0 && b < 2 && mn->level[a][b] != NONE)
		return mn->level[a][b];
	if (sscanf(err, "dims[%d]", &a) == 1 && a >= 0 && a < IR_MAX_DIMS &&
	    mn->dims[a] != NONE)
		return mn->dims[a];
	if (!strncmp(err, "ports", 5) && mn->k.val[MK_PORTS] != NONE)
		return mn->k.val[MK_PORTS];
	if (!strncmp(err, "routing", 7) && mn->k.val[MK_ROUTING] != NONE)
		return mn->k.val[MK_ROUTING];
	return mn->map;
}

/* The machine mapping: topology, its size, routing, ports, cost. */
static int parse_machine(struct ctx *x, uint32_t v, ir_machine *m)
{
	struct machine_nodes mn;
	struct keys *k = &mn.k;
	char err[256], extra[64];
	int64_t e = 0;
	int topo = 0, sk, rc;

	memset(&mn, 0xff, sizeof mn); /* every node NONE */
	mn.map = v;
	k->names = machine_keys;
	k->count = MK_N;
	rc = map_keys(x, v, "machine", k);
	if (rc < 0)
		return rc;
	if (k->val[MK_TOPOLOGY] == NONE)
		return missing(x, v, "machine", "topology", NULL);
	rc = get_enum(x, k->val[MK_TOPOLOGY], "machine.topology", "topology",
	              ir_topo_names, IR_NTOPOS, &topo);
	if (rc < 0)
		return rc;
	m->topo = (enum ir_topo)topo;
	m->routing = ir_topo_default_routing(m->topo);
	sk = shape_key[topo];
	for (int j = MK_DIMS; j <= MK_LEVELS; j++) {
		if (j != sk && k->key[j] != NONE)
			return err_at(
			        x, k->key[j],
			        "machine.%s: does not apply to topology %s "
			        "(its size is given by '%s')",
			        machine_keys[j], ir_topo_names[topo],
			        machine_keys[sk]);
	}
	if (k->val[sk] == NONE) {
		snprintf(extra, sizeof extra, " for topology %s",
		         ir_topo_names[topo]);
		return missing(x, v, "machine", machine_keys[sk], extra);
	}
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		rc = parse_dims(x, k->val[sk], m, &mn);
		break;
	case IR_HYPERCUBE:
		rc = get_int(x, k->val[sk], "machine.dimension", 1,
		             IR_MAX_CUBE_DIM, "(IR_MAX_CUBE_DIM)", &e);
		if (rc == 0)
			m->ndims = (int)e;
		break;
	case IR_SWITCH:
		rc = get_int(x, k->val[sk], "machine.ranks", 1, IR_MAX_RANKS,
		             "(IR_MAX_RANKS)", &e);
		if (rc == 0) {
			m->ndims = 1;
			m->dims[0] = (int)e;
		}
		break;
	case IR_HPAM:
	default:
		rc = parse_levels(x, k->val[sk], m, &mn);
		break;
	}
	if (rc < 0)
		return rc;
	if (k->val[MK_ROUTING] != NONE &&
	    (rc = parse_routing(x, k->val[MK_ROUTING], m)) < 0)
		return rc;
	m->ports = IR_PORTS_ALL;
	if (k->val[MK_PORTS] != NONE &&
	    (rc = parse_ports(x, k->val[MK_PORTS], m)) < 0)
		return rc;
	if (k->val[MK_COST] != NONE &&
	    (rc = parse_cost(x, k->val[MK_COST], &m->cost)) < 0)
		return rc;
	err[0] = '\0';
	if (ir_machine_check(m, err, sizeof err) < 0)
		return err_at(x, machine_err_node(&mn, err), "machine: %s",
		              err[0] ? err : "invalid machine");
	return 0;
}

/* ---- communication ---------------------------------------------------- */

enum {
	CM_COLLECTIVE,
	CM_PATTERN,
	CM_ROOT,
	CM_BYTES,
	CM_SEGMENTS,
	CM_DTYPE,
	CM_OP,
	CM_MATRIX,
	CM_EDGES,
	CM_FILE,
	CM_GENERATE,
	CM_N
};
static const char *const comm_keys[CM_N] = {
        "collective", "pattern", "root",  "bytes", "segments", "dtype",
        "op",         "matrix",  "edges", "file",  "generate",
};


/* root: a rank, or [x, y(, z)] coordinates on a mesh or torus. */
static int parse_root(struct ctx *x, uint32_t v, const ir_machine *m,
                      int32_t *root)
{
	static const char axis[] = "xyz";
	char path[64], b[64];
	int64_t r, c[IR_MAX_DIMS] = {0, 0, 0};
	int rc;

	if (x->v[v].kind != YN_SEQ) {
		snprintf(b, sizeof b, "(ranks 0..%" PRId32 ")", m->nranks - 1);
		if (x->v[v].kind == YN_SCALAR && x->v[v].plain &&
		    is_int_text(text(x, v))) {
			rc = get_int(x, v, "communication.root", 0, INT64_MAX,
			             NULL, &r);
			if (rc < 0)
				return rc;
			if (r >= m->nranks)
				return err_at(
				        x, v,
				        "communication.root: rank %lld is "
				        "outside the machine %s",
				        (long long)r, b);
		} else {
			rc = get_int(x, v, "communication.root", 0,
			             m->nranks - 1, b, &r);
			if (rc < 0)
				return rc;
		}
		*root = (int32_t)r;
		return 0;
	}
	if (m->topo != IR_MESH && m->topo != IR_TORUS)
		return err_at(
		        x, v,
		        "communication.root: coordinates are only accepted "
		        "on a mesh or torus; give the root as a rank");
	if (x->v[v].a != (uint32_t)m->ndims)
		return err_at(
		        x, v,
		        "communication.root: expected %d coordinates for a "
		        "%d-dimensional %s, got %" PRIu32,
		        m->ndims, m->ndims, ir_topo_names[m->topo], x->v[v].a);
	for (int i = 0; i < m->ndims; i++) {
		uint32_t e = child(x, v, (uint32_t)i);
		snprintf(path, sizeof path, "communication.root[%d]", i);
		rc = get_int(x, e, path, 0, INT64_MAX, NULL, &c[i]);
		if (rc < 0)
			return rc;
		if (c[i] >= m->dims[i])
			return err_at(x, e,
			              "%s: %c = %lld is outside the machine "
			              "(0..%d)",
			              path, axis[i], (long long)c[i],
			              m->dims[i] - 1);
	}
	int at[IR_MAX_DIMS] = {0};
	for (int i = 0; i < m->ndims; i++)
		at[i] = (int)c[i]; /* inside the machine: checked above */
	*root = ir_rank_of(m, at);
	return 0;
}

/* Which communication keys a collective takes besides its name. */
static bool coll_takes(enum ir_coll c, int key)
{
	switch (key) {
	case CM_ROOT:
		return c == IR_BCAST || c == IR_SCATTER || c == IR_GATHER ||
		       c == IR_REDUCE;
	case CM_BYTES:
		return true;
	case CM_SEGMENTS:
		return c == IR_BCAST;
	case CM_DTYPE:
	case CM_OP:
		return c == IR_REDUCE;
	default:
		return false;
	}
}

/* A collective: name, root, bytes, segments, dtype and op as it needs. */
static int parse_collective(struct ctx *x, uint32_t v, const struct keys *k,
                            const ir_machine *m, ir_comm *c)
{
	int64_t e = 0;
	int idx = 0, rc;
	uint32_t cv = k->val[CM_COLLECTIVE];

	if (x->v[cv].kind == YN_SCALAR && !strcmp(text(x, cv), "irregular"))
		return err_at(x, cv,
		              "communication.collective: 'irregular' is not a "
		              "collective; write 'pattern: irregular' and give "
		              "the matrix");
	rc = get_enum(x, cv, "communication.collective", "collective",
	              ir_coll_names, IR_IRREGULAR, &idx);
	if (rc < 0)
		return rc;
	c->coll = (enum ir_coll)idx;
	for (int j = CM_ROOT; j < CM_N; j++) {
		if (k->key[j] == NONE || coll_takes(c->coll, j))
			continue;
		if (j >= CM_MATRIX)
			return err_at(x, k->key[j],
			              "communication.%s: does not apply to a "
			              "collective (it belongs with 'pattern: "
			              "irregular')",
			              comm_keys[j]);
		return err_at(x, k->key[j],
		              "communication.%s: does not apply to %s",
		              comm_keys[j], ir_coll_names[c->coll]);
	}
	if (c->coll == IR_TRANSPOSE &&
	    !((m->topo == IR_MESH || m->topo == IR_TORUS) && m->ndims == 2 &&
	      m->dims[0] == m->dims[1]))
		return err_at(
		        x, cv,
		        "communication.collective: transpose needs a "
		        "square 2-dimensional mesh or torus (dims [n, n])");
	/* every rank sends to every other: as many messages as a dense
	 * matrix of the same size, and held to the same limit, so that the
	 * plan's memory has a bound */
	if ((c->coll == IR_ALLTOALL || c->coll == IR_TRANSPOSE) &&
	    m->nranks > IR_MATRIX_DENSE_MAX)
		return err_at(x, cv,
		              "communication.collective: %s on %" PRId32
		              " ranks is more than 2^28 messages "
		              "(IR_MATRIX_MAX_NNZ); at most %d ranks",
		              ir_coll_names[c->coll], m->nranks,
		              IR_MATRIX_DENSE_MAX);
	if (k->val[CM_BYTES] == NONE)
		return missing(x, v, "communication", "bytes", NULL);
	rc = get_int(x, k->val[CM_BYTES], "communication.bytes", 0,
	             IR_MAX_BYTES, "(IR_MAX_BYTES, 1 TiB)", &c->bytes);
	if (rc < 0)
		return rc;
	if ((c->coll == IR_SCATTER || c->coll == IR_GATHER ||
	     c->coll == IR_ALLTOALL) &&
	    c->bytes > INT64_MAX / m->nranks)
		return err_at(
		        x, k->val[CM_BYTES],
		        "communication.bytes: %lld bytes for each of %" PRId32
		        " ranks overflows a 64-bit buffer size",
		        (long long)c->bytes, m->nranks);
	c->root = 0;
	if (k->val[CM_ROOT] != NONE &&
	    (rc = parse_root(x, k->val[CM_ROOT], m, &c->root)) < 0)
		return rc;
	c->segments = 1;
	if (k->val[CM_SEGMENTS] != NONE) {
		rc = get_int(x, k->val[CM_SEGMENTS], "communication.segments",
		             1, IR_MAX_SEGMENTS, "(IR_MAX_SEGMENTS)", &e);
		if (rc < 0)
			return rc;
		if (c->bytes > 0 && e > c->bytes)
			return err_at(
			        x, k->val[CM_SEGMENTS],
			        "communication.segments: %lld segments of a "
			        "%lld-byte message; at most one segment per "
			        "byte",
			        (long long)e, (long long)c->bytes);
		c->segments = (int32_t)e;
	}
	if (c->coll == IR_REDUCE) {
		if (k->val[CM_DTYPE] == NONE)
			return missing(x, v, "communication", "dtype",
			               " for reduce");
		if (k->val[CM_OP] == NONE)
			return missing(x, v, "communication", "op",
			               " for reduce");
		rc = get_enum(x, k->val[CM_DTYPE], "communication.dtype",
		              "dtype", ir_dtype_names, IR_NDTYPES, &idx);
		if (rc < 0)
			return rc;
		c->dtype = (enum ir_dtype)idx;
		rc = get_enum(x, k->val[CM_OP], "communication.op", "op",
		              ir_redop_names, IR_NREDOPS, &idx);
		if (rc < 0)
			return rc;
		c->op = (enum ir_redop)idx;
		if (c->bytes % (int64_t)ir_dtype_size(c->dtype))
			return err_at(
			        x, k->val[CM_BYTES],
			        "communication.bytes: %lld is not a multiple "
			        "of the size of %s (%d bytes)",
			        (long long)c->bytes, ir_dtype_names[c->dtype],
			        (int)ir_dtype_size(c->dtype));
	}
	return 0;
}

/* Report a builder failure at node v: a total past INT64_MAX. */
static int err_total(struct ctx *x, uint32_t v, const char *path,
                     const struct ir_csr *b, int32_t src, int32_t dst)
{
	if (b->col_overflow)
		return err_at(x, v,
		              "%s: the bytes received by rank %" PRId32
		              " total more than 2^63-1",
		              path, dst);
	return err_at(x, v,
	              "%s: the bytes sent by rank %" PRId32
	              " total more than 2^63-1",
	              path, src);
}

/* matrix: inline dense n x n, n the machine's ranks, at most
 * FRONT_INLINE_MAX, diagonal 0. */
static int parse_dense(struct ctx *x, uint32_t v, int32_t n, ir_matrix **out)
{
	char b[64], path[80];
	struct ir_csr csr;
	int64_t e;
	int rc;

	if (x->v[v].kind != YN_SEQ)
		return err_at(
		        x, v,
		        "communication.matrix: expected a sequence of rows, "
		        "got %s",
		        desc(x, v, b, sizeof b));
	if (x->v[v].a > FRONT_INLINE_MAX)
		return err_at(
		        x, v,
		        "communication.matrix: an inline matrix has at most "
		        "%d rows; give larger ones with file:",
		        FRONT_INLINE_MAX);
	if (x->v[v].a != (uint32_t)n)
		return err_at(x, v,
		              "communication.matrix: %" PRIu32 " rows, but the "
		              "machine has %" PRId32
		              " ranks; the matrix must be %" PRId32
		              " x %" PRId32,
		              x->v[v].a, n, n, n);
	rc = ir_csr_init(&csr, n);
	if (rc < 0) {
		rc = err_nomem(x);
		goto out_free_builder;
	}
	for (uint32_t i = 0, r = v + 1; i < x->v[v].a; i++, r = next_of(x, r)) {
		snprintf(path, sizeof path, "communication.matrix[%" PRIu32 "]",
		         i);
		if (x->v[r].kind != YN_SEQ) {
			rc = err_at(x, r,
			            "%s: expected a row of %" PRId32
			            " integers, got %s",
			            path, n, desc(x, r, b, sizeof b));
			goto out_free_builder;
		}
		if (x->v[r].a != (uint32_t)n) {
			rc = err_at(
			        x, r,
			        "%s: %" PRIu32 " entries, expected %" PRId32
			        " (the matrix must be square, one column per "
			        "rank)",
			        path, x->v[r].a, n);
			goto out_free_builder;
		}
		for (uint32_t j = 0, c = r + 1; j < x->v[r].a;
		     j++, c = next_of(x, c)) {
			bool quick = quick_int(x, c, 0, IR_MAX_BYTES, &e);
			if (quick && e == 0)
				continue;
			snprintf(path, sizeof path,
			         "communication.matrix[%" PRIu32 "][%" PRIu32
			         "]",
			         i, j);
			if (!quick) {
				rc = get_int(x, c, path, 0, IR_MAX_BYTES,
				             "(IR_MAX_BYTES, 1 TiB)", &e);
				if (rc < 0)
					goto out_free_builder;
			}
			if (i == j && e != 0) {
				rc = err_at(
				        x, c,
				        "%s: self message of %lld bytes; the "
				        "diagonal must be 0",
				        path, (long long)e);
				goto out_free_builder;
			}
			if (i == j)
				continue;
			rc = ir_csr_add(&csr, (int32_t)j, e);
			if (rc == CCP_ERANGE) {
				rc = err_total(x, c, path, &csr, (int32_t)i,
				               (int32_t)j);
				goto out_free_builder;
			}
			if (rc < 0) {
				rc = err_nomem(x);
				goto out_free_builder;
			}
		}
		ir_csr_end_row(&csr);
	}
	rc = ir_csr_finish(&csr, out);
	if (rc < 0)
		rc = err_nomem(x);
out_free_builder:
	ir_csr_fini(&csr);
	return rc;
}

/* edges: inline [[src, dst, bytes], ...]; a repeated pair is an error. */
static int parse_edges(struct ctx *x, uint32_t v, int32_t n, ir_matrix **out)
{
	char b[64], path[80], rp[96];
	struct ir_edge *e = NULL;
	size_t bad;
	int64_t f[3];
	uint32_t i, r;
	int rc = 0;

	if (x->v[v].kind != YN_SEQ)
		return err_at(x, v,
		              "communication.edges: expected a sequence of "
		              "[src, dst, bytes], got %s",
		              desc(x, v, b, sizeof b));
	e = malloc(((size_t)x->v[v].a + 1) * sizeof *e);
	if (!e)
		return err_nomem(x);
	for (i = 0, r = v + 1; i < x->v[v].a; i++, r = next_of(x, r)) {
		snprintf(path, sizeof path, "communication.edges[%" PRIu32 "]",
		         i);
		if (x->v[r].kind != YN_SEQ || x->v[r].a != 3) {
			if (x->v[r].kind == YN_SEQ)
				snprintf(b, sizeof b, "%" PRIu32 " %s",
				         x->v[r].a,
				         x->v[r].a == 1 ? "entry" : "entries");
			rc = err_at(x, r,
			            "%s: expected [src, dst, bytes], got %s",
			            path,
			            x->v[r].kind == YN_SEQ
			                    ? b
			                    : desc(x, r, b, sizeof b));
			goto out_free_edges;
		}
		for (uint32_t j = 0, c = r + 1; j < 3; j++, c = next_of(x, c)) {
			snprintf(rp, sizeof rp, "%s[%" PRIu32 "]", path, j);
			if (j < 2) {
				rc = get_int(x, c, rp, 0, INT64_MAX, NULL,
				             &f[j]);
				if (rc == 0 && f[j] >= n)
					rc = err_at(
					        x, c,
					        "%s: rank %lld is outside the "
					        "machine (ranks 0..%" PRId32
					        ")",
					        rp, (long long)f[j], n - 1);
			} else {
				rc = get_int(x, c, rp, 0, IR_MAX_BYTES,
				             "(IR_MAX_BYTES, 1 TiB)", &f[j]);
			}
			if (rc < 0)
				goto out_free_edges;
		}
		if (f[0] == f[1]) {
			rc = err_at(x, r,
			            "%s: self message %lld -> %lld; a rank "
			            "does not "
			            "send to itself",
			            path, (long long)f[0], (long long)f[1]);
			goto out_free_edges;
		}
		e[i].src = (int32_t)f[0];
		e[i].dst = (int32_t)f[1];
		e[i].bytes = f[2];
		e[i].tag = (uint64_t)r << 32 | i;
	}
	rc = ir_matrix_from_edges(n, e, x->v[v].a, out, &bad);
	if (rc == CCP_ENOMEM) {
		rc = err_nomem(x);
	} else if (rc < 0) {
		uint32_t node = (uint32_t)(e[bad].tag >> 32);
		snprintf(path, sizeof path, "communication.edges[%" PRIu32 "]",
		         (uint32_t)e[bad].tag);
		if (rc == CCP_ERANGE) {
			/* the builder's flag is gone with it: name both */
			rc = err_at(x, node,
			            "%s: the bytes sent by rank %" PRId32
			            " or received by rank %" PRId32
			            " total more than 2^63-1",
			            path, e[bad].src, e[bad].dst);
		} else {
			uint32_t first = (uint32_t)(e[bad - 1].tag >> 32);
			rc = err_at(x, node,
			            "%s: duplicate edge %" PRId32 " -> %" PRId32
			            " (first at line %" PRIu32
			            ", column %" PRIu32 ")",
			            path, e[bad].src, e[bad].dst,
			            x->v[first].line, x->v[first].col);
		}
	}
out_free_edges:
	free(e);
	return rc;
}

/* file: a matrix file, relative to the YAML file's directory. */
static int parse_file(struct ctx *x, uint32_t v, int32_t n, ir_matrix **out)
{
	char path[FRONT_PATH_MAX], b[64];
	const char *s = NULL;
	size_t ls;
	int rc = get_str(x, v, "communication.file", FRONT_PATH_MAX - 1, &s);

	if (rc < 0)
		return rc;
	if (!*s)
		return err_at(x, v,
		              "communication.file: the file name is empty");
	ls = strlen(s);
	if (ls >= 4 && !strcmp(s + ls - 4, ".csv") && n > IR_MATRIX_DENSE_MAX)
		return err_at(
		        x, v,
		        "communication.file: a dense CSV matrix is limited "
		        "to %d ranks and the machine has %" PRId32
		        "; use an edge list",
		        IR_MATRIX_DENSE_MAX, n);
	if (s[0] == '/' || !x->dir[0]) {
		memcpy(path, s, ls + 1);
	} else {
		size_t ld = strlen(x->dir);
		if (ld + 1 + ls + 1 > sizeof path)
			return err_at(x, v,
			              "communication.file: path too long");
		memcpy(path, x->dir, ld);
		path[ld] = '/';
		memcpy(path + ld + 1, s, ls + 1);
	}
	rc = front_read_matrix(path, n, out, x->d);
	if (rc == CCP_EIO)
		return err_at(x, v, "communication.file: cannot read %s: %s",
		              desc(x, v, b, sizeof b), x->d->message);
	if (rc == CCP_EINVAL) /* not a regular file, or too large */
		return err_at(x, v, "communication.file: %s %s",
		              desc(x, v, b, sizeof b), x->d->message);
	return rc;
}

enum { GK_KIND, GK_DEGREE, GK_DENSITY, GK_HOT, GK_BYTES, GK_SEED, GK_N };
static const char *const gen_keys[GK_N] = {
        "kind", "degree", "density", "hot", "bytes", "seed",
};
enum { GEN_REGULAR, GEN_DENSITY, GEN_SKEWED };
static const char *const gen_names[] = {"regular", "density", "skewed"};

/* generate: a seeded pattern (ir/matrix.h). */
static int parse_generate(struct ctx *x, uint32_t v, int32_t n, ir_comm *c)
{
	static const bool takes[3][GK_N] = {
	        [GEN_REGULAR] = {[GK_DEGREE] = true},
	        [GEN_DENSITY] = {[GK_DENSITY] = true},
	        [GEN_SKEWED] = {[GK_DEGREE] = true, [GK_HOT] = true},
	};
	const char *P = "communication.generate";
	struct keys k = {gen_keys, GK_N, {0}, {0}};
	char lim[80];
	int64_t degree = 0, hot = 0, bytes, seed, nnz, fan;
	double density = 0;
	int kind = 0, rc;

	rc = map_keys(x, v, P, &k);
	if (rc < 0)
		return rc;
	if (k.val[GK_KIND] == NONE)
		return missing(x, v, P, "kind", NULL);
	rc = get_enum(x, k.val[GK_KIND], "communication.generate.kind", "kind",
	              gen_names, 3, &kind);
	if (rc < 0)
		return rc;
	for (int j = GK_DEGREE; j <= GK_HOT; j++) {
		if (k.key[j] != NONE && !takes[kind][j])
			return err_at(x, k.key[j],
			              "%s.%s: does not apply to kind %s", P,
			              gen_keys[j], gen_names[kind]);
		if (k.key[j] == NONE && takes[kind][j]) {
			snprintf(lim, sizeof lim, " for kind %s",
			         gen_names[kind]);
			return missing(x, v, P, gen_keys[j], lim);
		}
	}
	if (k.val[GK_BYTES] == NONE)
		return missing(x, v, P, "bytes", NULL);
	if (k.val[GK_SEED] == NONE)
		return missing(x, v, P, "seed", NULL);
	if (kind == GEN_REGULAR && n < 2)
		return err_at(x, k.val[GK_KIND],
		              "communication.generate.kind: a regular pattern "
		              "needs at least 2 ranks; the machine has 1");
	if (kind != GEN_DENSITY) {
		snprintf(lim, sizeof lim,
		         "(ranks - 1, the machine has %" PRId32 " rank%s)", n,
		         n == 1 ? "" : "s");
		rc = get_int(x, k.val[GK_DEGREE],
		             "communication.generate.degree",
		             kind == GEN_REGULAR ? 1 : 0, n - 1, lim, &degree);
		if (rc < 0)
			return rc;
	}
	if (kind == GEN_SKEWED) {
		snprintf(lim, sizeof lim,
		         "(the machine has %" PRId32 " rank%s)", n,
		         n == 1 ? "" : "s");
		rc = get_int(x, k.val[GK_HOT], "communication.generate.hot", 1,
		             n, lim, &hot);
		if (rc < 0)
			return rc;
	}
	if (kind == GEN_DENSITY) {
		rc = get_num(x, k.val[GK_DENSITY],
		             "communication.generate.density", &density);
		if (rc < 0)
			return rc;
		if (density > 1.0)
			return err_at(
			        x, k.val[GK_DENSITY],
			        "communication.generate.density: must be at "
			        "most 1 (a probability), got %s",
			        text(x, k.val[GK_DENSITY]));
		if (n > IR_MATRIX_DENSE_MAX)
			return err_at(
			        x, k.val[GK_KIND],
			        "communication.generate.kind: density visits "
			        "all n(n-1) pairs and is limited to %d ranks; "
			        "the machine has %" PRId32,
			        IR_MATRIX_DENSE_MAX, n);
	}
	nnz = kind == GEN_DENSITY ? (int64_t)n * (n - 1)
	                          : n * degree + hot * (int64_t)(n - 1);
	if (nnz > IR_MATRIX_MAX_NNZ)
		return err_at(x, k.val[kind == GEN_SKEWED ? GK_HOT : GK_DEGREE],
		              "%s: %" PRId32 " ranks would send %lld messages, "
		              "more than 2^28 (IR_MATRIX_MAX_NNZ)",
		              P, n, (long long)nnz);
	rc = get_int(x, k.val[GK_BYTES], "communication.generate.bytes", 0,
	             IR_MAX_BYTES, "(IR_MAX_BYTES, 1 TiB)", &bytes);
	if (rc < 0)
		return rc;
	/* most messages one rank can send or receive */
	fan = kind == GEN_REGULAR ? degree : n - 1;
	if (fan > 0 && bytes > INT64_MAX / fan)
		return err_at(x, k.val[GK_BYTES],
		              "communication.generate.bytes: %lld messages of "
		              "%lld bytes to or from one rank total more than "
		              "2^63-1",
		              (long long)fan, (long long)bytes);
	rc = get_int(x, k.val[GK_SEED], "communication.generate.seed", 0,
	             INT64_MAX, NULL, &seed);
	if (rc < 0)
		return rc;
	/* last, once every value holds: messages that alone would need
	 * more than the limit to compile are refused before the matrix is
	 * built (density: its expected size) */
	double msgs = kind == GEN_DENSITY ? density * (double)nnz : (double)nnz;
	if (msgs * FRONT_BYTES_PER_MESSAGE > (double)max_memory) {
		char need[32], cap[32];
		front_format_bytes(need, sizeof need,
		                   (uint64_t)(msgs * FRONT_BYTES_PER_MESSAGE));
		front_format_bytes(cap, sizeof cap, max_memory);
		return err_at(x, v,
		              "%s: %.0f messages would need at least %s of "
		              "memory to compile, more than the limit of %s; "
		              "%s",
		              P, msgs, need, cap, FRONT_MAX_MEMORY_HINT);
	}
	c->seed = (uint64_t)seed;
	if (kind == GEN_REGULAR)
		c->matrix = ir_matrix_regular(n, (int32_t)degree, bytes,
		                              (uint64_t)seed);
	else if (kind == GEN_DENSITY)
		c->matrix =
		        ir_matrix_density(n, density, bytes, (uint64_t)seed);
	else
		c->matrix = ir_matrix_skewed(n, (int32_t)degree, (int32_t)hot,
		                             bytes, (uint64_t)seed);
	if (!c->matrix)
		return err_nomem(x);
	return 0;
}

/* An irregular pattern: exactly one of matrix, edges, file, generate. */
static int parse_irregular(struct ctx *x, uint32_t v, const struct keys *k,
                           const ir_machine *m, ir_comm *c)
{
	static const char *const irr[] = {"irregular"};
	int src = -1, idx = 0, rc;

	rc = get_enum(x, k->val[CM_PATTERN], "communication.pattern", "pattern",
	              irr, 1, &idx);
	if (rc < 0)
		return rc;
	c->coll = IR_IRREGULAR;
	for (uint32_t i = 0, kn = v + 1; i < x->v[v].a; i += 2) {
		uint32_t val = next_of(x, kn);
		for (int j = CM_ROOT; j < CM_N; j++) {
			if (k->key[j] != kn)
				continue;
			if (j < CM_MATRIX)
				return err_at(
				        x, kn,
				        "communication.%s: does not apply to "
				        "an "
				        "irregular pattern (the matrix gives "
				        "every message)",
				        comm_keys[j]);
			if (src >= 0)
				return err_at(
				        x, kn,
				        "communication.%s: give only one of "
				        "matrix, edges, file or generate ('%s' "
				        "is already given)",
				        comm_keys[j], comm_keys[src]);
			src = j;
		}
		kn = next_of(x, val);
	}
	if (src < 0)
		return err_at(
		        x, v,
		        "communication: missing the matrix of the irregular "
		        "pattern; give one of matrix, edges, file or "
		        "generate");
	switch (src) {
	case CM_MATRIX:
		return parse_dense(x, k->val[src], m->nranks, &c->matrix);
	case CM_EDGES:
		return parse_edges(x, k->val[src], m->nranks, &c->matrix);
	case CM_FILE:
		return parse_file(x, k->val[src], m->nranks, &c->matrix);
	default:
		return parse_generate(x, k->val[src], m->nranks, c);
	}
}

/* The communication mapping: a collective or an irregular pattern. */
static int parse_comm(struct ctx *x, uint32_t v, const ir_machine *m,
                      ir_comm *c)
{
	struct keys k = {comm_keys, CM_N, {0}, {0}};
	int rc = map_keys(x, v, "communication", &k);

	if (rc < 0)
		return rc;
	if (k.val[CM_COLLECTIVE] != NONE && k.val[CM_PATTERN] != NONE) {
		uint32_t later = k.key[CM_COLLECTIVE] > k.key[CM_PATTERN]
		                         ? k.key[CM_COLLECTIVE]
		                         : k.key[CM_PATTERN];
		return err_at(x, later,
		              "communication: give either 'collective' or "
		              "'pattern', not both");
	}
	if (k.val[CM_COLLECTIVE] != NONE)
		return parse_collective(x, v, &k, m, c);
	if (k.val[CM_PATTERN] != NONE)
		return parse_irregular(x, v, &k, m, c);
	return missing(x, v, "communication", "collective",
	               " (or 'pattern: irregular')");
}

/* ---- the document ----------------------------------------------------- */

enum {
	TK_MACHINE,
	TK_COMMUNICATION,
	TK_ALGORITHM,
	TK_CONTENTION,
	TK_SEED,
	TK_SELECT,
	TK_N
};
static const char *const top_keys[TK_N] = {
        "machine", "communication", "algorithm", "contention", "seed", "select",
};

/* Where a key that mapping path does not accept belongs instead ("the
 * top level", "communication", ...), into buf; false if nowhere. */
static bool key_home(const char *key, const char *path, char *buf,
                     size_t cap)
{
	static const struct {
		const char *path, *words; /* words: as the message says it */
		const char *const *names;
		size_t count;
	} maps[] = {
	        {"", "the top level", top_keys, TK_N},
	        {"machine", "machine", machine_keys, MK_N},
	        {"machine.cost", "machine.cost", cost_keys, CK_N},
	        {"machine.levels", "each entry of machine.levels", level_keys,
	         LK_N},
	        {"communication", "communication", comm_keys, CM_N},
	        {"communication.generate", "communication.generate", gen_keys,
	         GK_N},
	};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
		if (!strncmp(path, maps[i].path, strlen(maps[i].path)) &&
		    (path[strlen(maps[i].path)] == '\0' ||
		     path[strlen(maps[i].path)] == '['))
			continue; /* the mapping it is in */
		for (size_t j = 0; j < maps[i].count; j++) {
			if (strcmp(key, maps[i].names[j]) != 0)
				continue;
			if (n < cap)
				n += (size_t)snprintf(buf + n, cap - n, "%s%s",
				                      n ? " or " : "",
				                      maps[i].words);
			break;
		}
	}
	return n > 0 && n < cap;
}

/* The whole input: the root mapping and everything under it. */
static int parse_root_map(struct ctx *x)
{
	static const char *const contention[] = {"forbid", "allow"};
	struct front_input *in = x->in;
	struct keys k = {top_keys, TK_N, {0}, {0}};
	int64_t seed = 0;
	int idx = 0, rc;

	if (x->v[0].kind != YN_MAP) {
		char b[64];
		return err_at(x, 0,
		              "top level: expected a mapping with the keys "
		              "machine, communication and algorithm, got %s",
		              desc(x, 0, b, sizeof b));
	}
	rc = map_keys(x, 0, "", &k);
	if (rc < 0)
		return rc;
	for (int j = TK_MACHINE; j <= TK_ALGORITHM; j++)
		if (k.val[j] == NONE)
			return missing(x, 0, "", top_keys[j], NULL);
	rc = parse_machine(x, k.val[TK_MACHINE], &in->machine);
	if (rc < 0)
		return rc;
	rc = parse_comm(x, k.val[TK_COMMUNICATION], &in->machine, &in->comm);
	if (rc < 0)
		return rc;
	rc = get_name(x, k.val[TK_ALGORITHM], "algorithm", in->algorithm);
	if (rc < 0)
		return rc;
	in->algorithm_line = (int)x->v[k.val[TK_ALGORITHM]].line;
	in->algorithm_column = (int)x->v[k.val[TK_ALGORITHM]].col;
	in->contention = CONTENTION_DEFAULT;
	if (k.val[TK_CONTENTION] != NONE) {
		rc = get_enum(x, k.val[TK_CONTENTION], "contention",
		              "contention policy", contention, 2, &idx);
		if (rc < 0)
			return rc;
		in->contention =
		        idx == 0 ? CONTENTION_FORBID : CONTENTION_ALLOW;
	}
	if (k.val[TK_SELECT] != NONE) {
		static const char *const by[] = {"simulated", "model"};
		if (strcmp(in->algorithm, "auto") != 0)
			return err_at(x, k.val[TK_SELECT],
			              "select: only with algorithm: auto (this "
			              "input names '%s')",
			              in->algorithm);
		rc = get_enum(x, k.val[TK_SELECT], "select", "selection", by, 2,
		              &idx);
		if (rc < 0)
			return rc;
		in->select = idx == 0 ? SELECT_SIMULATED : SELECT_MODEL;
	}
	if (k.val[TK_SEED] != NONE) {
		rc = get_int(x, k.val[TK_SEED], "seed", 0, INT64_MAX, NULL,
		             &seed);
		if (rc < 0)
			return rc;
		in->seed = (uint64_t)seed;
		in->has_seed = true;
	}
	return 0;
}

/* Reset in to an empty input: no matrix, costs not given (NaN). */
static void input_init(struct front_input *in)
{
	ir_cost *c = &in->machine.cost;

	memset(in, 0, sizeof *in);
	c->alpha = c->beta = c->hop = c->gamma = NAN;
	c->beta_sat = c->tau = c->phi = c->lambda = NAN;
	for (int l = 0; l < 2; l++)
		c->c_send[l] = c->c_recv[l] = c->copy[l] = NAN;
	for (int i = 0; i < IR_MAX_DIMS; i++)
		in->machine.dims[i] = 1;
}

/* Parse buf (len bytes) named name; matrix files relative to dir. */
static int parse_text(const char *name, const char *dir, const char *buf,
                      size_t len, struct front_input *in, struct diag *d)
{
	struct ctx x = {0};
	int rc;

	x.name = name;
	x.dir = dir;
	x.buf = buf;
	x.len = len;
	x.d = d;
	x.in = in;
	input_init(in);
	memset(d, 0, sizeof *d);
	if (len > FRONT_MAX_FILE) {
		front_diag(d, name, 0, 0, NULL,
		           "input too large: more than %zu MiB of YAML",
		           FRONT_MAX_FILE >> 20);
		return CCP_EPARSE;
	}
	rc = tree_build(&x);
	if (rc < 0)
		goto out_free_tree;
	rc = parse_root_map(&x);
	if (rc < 0)
		front_input_fini(in);
out_free_tree:
	free(x.v);
	free(x.chars);
	return rc;
}

int front_parse_string(const char *name, const char *text, size_t len,
                       struct front_input *in, struct diag *d)
{
	if (!text)
		len = 0;
	return parse_text(name ? name : "<string>", "", text ? text : "", len,
	                  in, d);
}

/* d for an open that failed with errno: CCP_ENOMEM or CCP_EIO. */
static int open_failed(const char *path, const char *prefix, struct diag *d)
{
	if (errno == ENOMEM) {
		front_diag(d, path, 0, 0, NULL, "out of memory");
		return CCP_ENOMEM;
	}
	front_diag(d, path, 0, 0, NULL, "%s%s", prefix,
	           strerror(errno ? errno : EIO));
	return CCP_EIO;
}

int front_fopen(const char *path, const char *mode, const char *prefix,
                FILE **out, struct diag *d)
{
	errno = 0;
	*out = fopen(path, mode);
	if (*out)
		return 0;
	return open_failed(path, prefix, d);
}

/* What a file is, for a message saying it is not a regular file. */
static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

int front_fopen_regular(const char *path, uint64_t max, FILE **out,
                        struct diag *d)
{
	struct stat sb;
	*out = NULL;
	errno = 0;
	/* O_NONBLOCK: opening a FIFO with no writer must not wait for one */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return open_failed(path, "", d);
	int rc = CCP_EINVAL;
	if (fstat(fd, &sb) != 0) {
		rc = open_failed(path, "", d);
	} else if (!S_ISREG(sb.st_mode)) {
		front_diag(d, path, 0, 0, NULL,
		           "is %s; a matrix file must be a regular file",
		           file_kind(sb.st_mode));
	} else if ((uint64_t)sb.st_size > max) {
		front_diag(d, path, 0, 0, NULL,
		           "has %" PRIu64 " bytes, more than the %" PRIu64
		           " MiB a matrix file may have (FRONT_MAX_FILE)",
		           (uint64_t)sb.st_size, max >> 20);
	} else {
		/* a regular file: reads block as usual from here on */
		int fl = fcntl(fd, F_GETFL);
		errno = 0;
		if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 ||
		    !(*out = fdopen(fd, "r")))
			rc = open_failed(path, "", d);
		else
			return 0;
	}
	close(fd);
	return rc;
}

int front_parse_file(const char *path, struct front_input *in, struct diag *d)
{
	char dir[FRONT_PATH_MAX];
	char *buf = NULL;
	size_t len = 0, cap = 0;
	const char *slash;
	FILE *f;
	int rc;

	input_init(in);
	memset(d, 0, sizeof *d);
	if ((rc = front_fopen(path, "rb", "cannot open: ", &f, d)) != 0)
		return rc;
	/* a regular file says its size: refuse a large one before reading
	 * it (a pipe is read up to the limit) */
	struct stat sb;
	if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (uint64_t)sb.st_size > FRONT_MAX_FILE) {
		front_diag(d, path, 0, 0, NULL,
		           "input too large: more than %zu MiB of YAML",
		           FRONT_MAX_FILE >> 20);
		rc = CCP_EPARSE;
		goto out_free_buf;
	}
	for (;;) {
		size_t got;
		if (len == cap) {
			char *nb;
			if (cap > FRONT_MAX_FILE) {
				front_diag(
				        d, path, 0, 0, NULL,
				        "input too large: more than %zu MiB of "
				        "YAML",
				        FRONT_MAX_FILE >> 20);
				rc = CCP_EPARSE;
				goto out_free_buf;
			}
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				front_diag(d, path, 0, 0, NULL,
				           "out of memory");
				rc = CCP_ENOMEM;
				goto out_free_buf;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		front_diag(d, path, 0, 0, NULL, "cannot read: %s",
		           strerror(errno ? errno : EIO));
		rc = CCP_EIO;
		goto out_free_buf;
	}
	slash = strrchr(path, '/');
	if (!slash) {
		dir[0] = '\0';
	} else if (slash == path) {
		memcpy(dir, "/", 2);
	} else {
		size_t ld = (size_t)(slash - path);
		if (ld >= sizeof dir)
			ld = sizeof dir - 1;
		memcpy(dir, path, ld);
		dir[ld] = '\0';
	}
	rc = parse_text(path, dir, buf ? buf : "", len, in, d);
out_free_buf:
	free(buf);
	fclose(f);
	return rc;
}

void front_input_fini(struct front_input *in)
{
	ir_comm_fini(&in->comm);
}

void front_print_diag(FILE *out, const char *file, int line, int column,
                      const char *message, const char *source_line)
{
	if (line > 0)
		fprintf(out, "%s:%d:%d: %s\n", file, line, column, message);
	else
		fprintf(out, "%s: %s\n", file, message);
	if (line > 0 && source_line[0]) {
		/* the line may have been cut shorter than the column: spaces
		 * past its end, up to a screenful of them (a column deep in a
		 * 30 MB line once wrote 30 MB of spaces, a byte at a time) */
		size_t n = strlen(source_line);
		fprintf(out, "%5d | %s\n      | ", line, source_line);
		if (column > FRONT_CARET_MAX) {
			fprintf(out, "... ^ column %d\n", column);
			return;
		}
		int k = 1;
		for (; k < column && (size_t)k <= n; k++)
			fputc(source_line[k - 1] == '\t' ? '\t' : ' ', out);
		fprintf(out, "%*s^\n", column > k ? column - k : 0, "");
	}
}
