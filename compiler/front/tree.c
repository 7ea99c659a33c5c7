/*
 * tree.c - the first layer of the YAML front end: libyaml's parser events
 * become a small tree of nodes that remember where they started
 * (tree.h), read back through typed getters (integers, numbers, strings,
 * names, one of a list, a mapping's keys) whose messages say what was
 * expected.  Every problem becomes one diagnostic, file:line:column with
 * the source line; front_print_diag prints it the way every command does.
 *
 * Limits (each one documented, each one checked before memory is spent):
 * nesting depth 64, FRONT_MAX_NODES values (enough for a 4096 x 4096
 * inline matrix), no aliases.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "suggest.h"
#include "tree.h"

/* ---- diagnostics ------------------------------------------------------ */

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
void tree_line_of(const char *buf, size_t len, uint32_t line, char *out,
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

/* ---- the node tree ---------------------------------------------------- */

int tree_diag_v(struct diag *d, const char *file, const char *buf, size_t len,
                uint32_t line, uint32_t col, const char *fmt, va_list ap)
{
	char msg[sizeof d->message];
	char src[sizeof d->source_line];

	vsnprintf(msg, sizeof msg, fmt, ap);
	tree_line_of(buf, len, line, src, sizeof src);
	front_diag(d, file, (int)line, (int)col, src, "%s", msg);
	return CCP_EPARSE;
}

/* Report a problem at node v (NONE: no position) in the YAML file. */
int tree_err_at(struct ctx *x, uint32_t v, const char *fmt, ...)
{
	uint32_t line = v == NONE ? 0 : x->v[v].line;
	uint32_t col = v == NONE ? 0 : x->v[v].col;
	va_list ap;

	va_start(ap, fmt);
	tree_diag_v(x->d, x->name, x->buf, x->len, line, col, fmt, ap);
	va_end(ap);
	return CCP_EPARSE;
}

/* Report a problem at a libyaml mark (0-based). */
static int err_mark(struct ctx *x, yaml_mark_t m, const char *fmt, ...)
        FRONT_PRINTF(3, 4);

static int err_mark(struct ctx *x, yaml_mark_t m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tree_diag_v(x->d, x->name, x->buf, x->len, (uint32_t)m.line + 1,
	            (uint32_t)m.column + 1, fmt, ap);
	va_end(ap);
	return CCP_EPARSE;
}

/* Out of memory: no position, a plain message. */
int tree_err_nomem(struct ctx *x)
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
			return tree_err_nomem(x);
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
	x->v[v].a = (uint32_t)x->chars.len;
	x->v[v].b = (uint32_t)len;
	/* the text, then its NUL: the next text starts after it */
	if (tb_put(&x->chars, s, len) < 0 || tb_put(&x->chars, "", 1) < 0)
		return tree_err_nomem(x);
	return 0;
}

/* Turn a libyaml parser failure into a diagnostic. */
static int err_syntax(struct ctx *x, const yaml_parser_t *p)
{
	yaml_mark_t m = p->problem_mark;
	const char *problem = p->problem ? p->problem : "unknown problem";

	if (p->error == YAML_MEMORY_ERROR)
		return tree_err_nomem(x);
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
int tree_build(struct ctx *x)
{
	yaml_parser_t p;
	yaml_event_t e;
	uint32_t stack[FRONT_MAX_DEPTH];
	int depth = 0, rc = 0;
	bool docs = false, done = false;

	if (!yaml_parser_initialize(&p))
		return tree_err_nomem(x);
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
		              "machine and communication (algorithm: optional)");
	}
out_delete_parser:
	yaml_parser_delete(&p);
	return rc;
}

/* A short description of what node v is, for "got ..." in messages. */
const char *tree_desc(const struct ctx *x, uint32_t v, char *buf, size_t cap)
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
bool tree_is_int_text(const char *s)
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
bool tree_is_float_text(const char *s)
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
int tree_get_int(struct ctx *x, uint32_t v, const char *path, int64_t lo,
                 int64_t hi, const char *why, int64_t *out)
{
	char b[64];
	const char *s = text(x, v);
	const char *digits;
	long long r;
	char *end;

	if (x->v[v].kind != YN_SCALAR || is_null(x, v))
		return tree_err_at(x, v, "%s: expected an integer, got %s",
		                   path, tree_desc(x, v, b, sizeof b));
	if (!x->v[v].plain)
		return tree_err_at(
		        x, v,
		        "%s: expected an integer, got the %s %s (write "
		        "numbers plain)",
		        path, x->v[v].block ? "block scalar" : "quoted string",
		        tree_desc(x, v, b, sizeof b));
	if (tree_is_float_text(s) || is_special_float(s))
		return tree_err_at(
		        x, v,
		        "%s: expected an integer, got the floating-point "
		        "number %s",
		        path, tree_desc(x, v, b, sizeof b));
	if (!tree_is_int_text(s))
		return tree_err_at(x, v, "%s: expected an integer, got %s",
		                   path, tree_desc(x, v, b, sizeof b));
	digits = s + (*s == '-' || *s == '+');
	if (digits[0] == '0' && digits[1])
		return tree_err_at(
		        x, v,
		        "%s: %s has a leading zero; write decimal integers "
		        "without one (YAML could read it as octal)",
		        path, tree_desc(x, v, b, sizeof b));
	errno = 0;
	r = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return tree_err_at(
		        x, v,
		        "%s: integer %s is out of range (it does not fit "
		        "in 64 bits)",
		        path, tree_desc(x, v, b, sizeof b));
	if (r < lo) {
		if (lo == 0)
			return tree_err_at(x, v,
			                   "%s: must not be negative, got %lld",
			                   path, r);
		return tree_err_at(x, v, "%s: must be at least %lld, got %lld",
		                   path, (long long)lo, r);
	}
	if (r > hi)
		return tree_err_at(
		        x, v, "%s: must be at most %lld%s%s, got %lld", path,
		        (long long)hi, why ? " " : "", why ? why : "", r);
	*out = r;
	return 0;
}

/* The fast path for the many integers of a matrix: a plain decimal of
 * at most 18 digits in [lo, hi] is read here, without building the path
 * a message would need.  false for anything else; the caller then goes
 * through get_int, which reports it. */
bool tree_quick_int(const struct ctx *x, uint32_t v, int64_t lo, int64_t hi,
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
int tree_get_num(struct ctx *x, uint32_t v, const char *path, double *out)
{
	char b[64];
	const char *s = text(x, v);
	double r;
	char *end;

	if (x->v[v].kind != YN_SCALAR || is_null(x, v) || !x->v[v].plain)
		return tree_err_at(x, v, "%s: expected a number, got %s", path,
		                   tree_desc(x, v, b, sizeof b));
	if (is_special_float(s))
		return tree_err_at(x, v, "%s: expected a finite number, got %s",
		                   path, tree_desc(x, v, b, sizeof b));
	if (!tree_is_int_text(s) && !tree_is_float_text(s))
		return tree_err_at(x, v, "%s: expected a number, got %s", path,
		                   tree_desc(x, v, b, sizeof b));
	errno = 0;
	r = strtod(s, &end);
	if (!isfinite(r) || (errno == ERANGE && fabs(r) > 1.0))
		return tree_err_at(
		        x, v, "%s: %s is out of range (not a finite double)",
		        path, tree_desc(x, v, b, sizeof b));
	if (r < 0)
		return tree_err_at(x, v, "%s: must not be negative, got %s",
		                   path, tree_desc(x, v, b, sizeof b));
	*out = r + 0.0;
	return 0;
}

/* Read node v as a string (any scalar style) of at most max bytes. */
int tree_get_str(struct ctx *x, uint32_t v, const char *path, size_t max,
                 const char **out)
{
	char b[64];

	if (x->v[v].kind != YN_SCALAR || is_null(x, v))
		return tree_err_at(x, v, "%s: expected a string, got %s", path,
		                   tree_desc(x, v, b, sizeof b));
	if (strlen(text(x, v)) != x->v[v].b)
		return tree_err_at(
		        x, v, "%s: the string contains a NUL character", path);
	if (x->v[v].b > max)
		return tree_err_at(x, v, "%s: longer than %zu characters", path,
		                   max);
	*out = text(x, v);
	return 0;
}

int tree_err_in(struct ctx *x, uint32_t v, size_t at, const char *fmt, ...)
{
	const char *s = text(x, v);
	uint32_t col = x->v[v].col;
	va_list ap;

	if (x->v[v].kind == YN_SCALAR && !x->v[v].block &&
	    !memchr(s, '\n', x->v[v].b) && at <= x->v[v].b)
		col += (uint32_t)at + (x->v[v].plain ? 0u : 1u);
	va_start(ap, fmt);
	tree_diag_v(x->d, x->name, x->buf, x->len, x->v[v].line, col, fmt, ap);
	va_end(ap);
	return CCP_EPARSE;
}

int tree_get_hostlist(struct ctx *x, uint32_t v, const char *path, int32_t max,
                      bool tell, struct hostlist *h)
{
	struct hostlist_error e;
	char p[FRONT_PATH_MAX / 4], b[64];
	uint32_t n = x->v[v].kind == YN_SEQ ? x->v[v].a : 1;
	uint32_t c = x->v[v].kind == YN_SEQ ? v + 1 : v;
	int rc;

	if (x->v[v].kind == YN_SEQ && n == 0)
		return tree_err_at(x, v, "%s: expected host names, got an "
		                   "empty list", path);
	for (uint32_t i = 0; i < n; i++, c = next_of(x, c)) {
		const char *s;
		if (x->v[v].kind == YN_SEQ)
			snprintf(p, sizeof p, "%s[%u]", path, (unsigned)i);
		else
			snprintf(p, sizeof p, "%s", path);
		if (x->v[c].kind != YN_SCALAR || is_null(x, c))
			return tree_err_at(x, c,
			                   "%s: expected a hostlist such as "
			                   "\"n[0-15]\"%s, got %s",
			                   p,
			                   x->v[v].kind == YN_SEQ
			                           ? ""
			                           : " or a list of them",
			                   tree_desc(x, c, b, sizeof b));
		if ((rc = tree_get_str(x, c, p, SIZE_MAX, &s)) < 0)
			return rc;
		rc = hostlist_expand(h, s, max, &e);
		if (rc == CCP_ENOMEM)
			return tree_err_nomem(x);
		if (rc == CCP_ERANGE && tell)
			return rc;
		if (rc < 0)
			return tree_err_in(x, c, e.at, "%s: %s", p, e.why);
	}
	return 0;
}

int tree_get_path(struct ctx *x, uint32_t v, const char *key,
                  char path[FRONT_PATH_MAX])
{
	const char *s = NULL;
	size_t ls, ld = strlen(x->dir);
	int rc = tree_get_str(x, v, key, FRONT_PATH_MAX - 1, &s);

	if (rc < 0)
		return rc;
	if (!*s)
		return tree_err_at(x, v, "%s: the file name is empty", key);
	ls = strlen(s);
	if (s[0] == '/' || !ld) {
		memcpy(path, s, ls + 1);
		return 0;
	}
	if (ld + 1 + ls + 1 > FRONT_PATH_MAX)
		return tree_err_at(x, v, "%s: path too long", key);
	memcpy(path, x->dir, ld);
	path[ld] = '/';
	memcpy(path + ld + 1, s, ls + 1);
	return 0;
}

int tree_file_rc(struct ctx *x, uint32_t v, const char *key, int rc)
{
	char b[64];

	if (rc == CCP_EIO)
		return tree_err_at(x, v, "%s: cannot read %s: %s", key,
		                   tree_desc(x, v, b, sizeof b), x->d->message);
	if (rc == CCP_EINVAL) /* not a regular file, or too large */
		return tree_err_at(x, v, "%s: %s %s", key,
		                   tree_desc(x, v, b, sizeof b), x->d->message);
	return rc;
}

int64_t front_parse_size(const char *a, int64_t max)
{
	static const char units[] = "KMGT";
	const char *u;
	char *end;
	int shift = 0;

	if (!isdigit((unsigned char)a[0]))
		return -1;
	errno = 0;
	long long v = strtoll(a, &end, 10);
	if (errno)
		return -1;
	if (*end && (u = strchr(units, toupper((unsigned char)*end)))) {
		shift = 10 * (int)(u - units + 1);
		end++;
		if (end[0] == 'i' && end[1] == 'B')
			end += 2;
	}
	if (*end || v > (max >> shift))
		return -1;
	return (int64_t)v << shift;
}

int tree_get_size(struct ctx *x, uint32_t v, const char *path, int64_t hi,
                  const char *why, int64_t *out)
{
	char b[64];
	const char *s = text(x, v), *u = s;
	int64_t r;

	while (isdigit((unsigned char)*u))
		u++;
	/* digits and a unit letter; the rest is an integer's business */
	if (x->v[v].kind != YN_SCALAR || !x->v[v].plain || u == s || !*u ||
	    !strchr("KMGTkmgt", *u))
		return tree_get_int(x, v, path, 0, hi, why, out);
	if ((r = front_parse_size(s, INT64_MAX)) < 0)
		return tree_err_at(x, v,
		                   "%s: expected a number of bytes, as 4096, "
		                   "4K or 4KiB (K, M, G, T: powers of 1024), "
		                   "got %s",
		                   path, tree_desc(x, v, b, sizeof b));
	if (r > hi)
		return tree_err_at(x, v, "%s: must be at most %" PRId64
		                   "%s%s, got %s",
		                   path, hi, why ? " " : "", why ? why : "",
		                   tree_desc(x, v, b, sizeof b));
	*out = r;
	return 0;
}

/* Closest name to s, for "did you mean" (see front.h; the rules are
 * suggest.c's). */
const char *front_nearest(const char *s, const char *const *names, size_t count)
{
	return suggest_nearest(s, names, count);
}

/* "a, b or c" from names[0..count) into buf. */
const char *tree_list_of(const char *const *names, size_t count, char *buf,
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
int tree_get_enum(struct ctx *x, uint32_t v, const char *path, const char *what,
                  const char *const *names, size_t count, int *out)
{
	char b[64], l[256];
	const char *s, *near;
	int rc = tree_get_str(x, v, path, 64, &s);

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
		return tree_err_at(
		        x, v, "%s: unknown %s %s; did you mean '%s'?", path,
		        what, tree_desc(x, v, b, sizeof b), near);
	return tree_err_at(x, v, "%s: unknown %s %s; expected %s", path, what,
	                   tree_desc(x, v, b, sizeof b),
	                   tree_list_of(names, count, l, sizeof l));
}

/* ---- mappings --------------------------------------------------------- */

/* Check mapping m (at path, "" for the top level): a mapping, every key a
 * string it accepts, none twice.  Fills k->key and k->val. */
int tree_map_keys(struct ctx *x, uint32_t m, const char *path, struct keys *k)
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
		return tree_err_at(
		        x, m, "%s: expected a mapping of keys (%s), got %s",
		        *path ? path : "top level",
		        tree_list_of(k->names, k->count, l, sizeof l),
		        tree_desc(x, m, b, sizeof b));
	c = m + 1;
	for (uint32_t i = 0; i < x->v[m].a; i += 2) {
		uint32_t val = next_of(x, c);
		size_t j;
		const char *s, *near;
		if (x->v[c].kind != YN_SCALAR)
			return tree_err_at(x, c,
			                   "%s: a key must be a string, got %s",
			                   *path ? path : "top level",
			                   tree_desc(x, c, b, sizeof b));
		s = text(x, c);
		for (j = 0; j < k->count; j++)
			if (strlen(s) == x->v[c].b && !strcmp(s, k->names[j]))
				break;
		if (j == k->count) {
			near = front_nearest(s, k->names, k->count);
			if (near)
				return tree_err_at(
				        x, c,
				        "unknown key %s %s; did you mean '%s'?",
				        tree_desc(x, c, b, sizeof b), where,
				        near);
			if (document_key_home(s, path, l, sizeof l))
				return tree_err_at(
				        x, c,
				        "unknown key %s %s; it belongs in "
				        "%s",
				        tree_desc(x, c, b, sizeof b), where, l);
			return tree_err_at(
			        x, c, "unknown key %s %s; expected %s",
			        tree_desc(x, c, b, sizeof b), where,
			        tree_list_of(k->names, k->count, l, sizeof l));
		}
		if (k->key[j] != NONE)
			return tree_err_at(
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
int tree_missing(struct ctx *x, uint32_t m, const char *path, const char *key,
                 const char *extra)
{
	return tree_err_at(x, m, "%s: missing required key '%s'%s",
	                   *path ? path : "top level", key, extra ? extra : "");
}

/* ---- names ------------------------------------------------------------ */

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
int tree_get_name(struct ctx *x, uint32_t v, const char *path, char *out)
{
	char b[64];
	const char *s = NULL;
	int rc = tree_get_str(x, v, path, IR_NAME_MAX - 1, &s);

	if (rc < 0)
		return rc;
	if (!is_name(s))
		return tree_err_at(
		        x, v,
		        "%s: %s is not a valid name (letters, digits, "
		        "'_', '-', '.' and '+')",
		        path, tree_desc(x, v, b, sizeof b));
	memcpy(out, s, strlen(s) + 1);
	return 0;
}
