/*
 * matrix.c - the files an input can name: communication matrices, a
 * dense CSV (n lines of n comma-separated byte counts) or an edge list
 * (lines "src dst bytes"), and placement files (the node of each rank).  Both are read a line at a time, so only the
 * matrix itself is held in memory, and every problem is reported as
 * file:line:column with the offending line.  Formats: docs/input-format.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "front.h"
#include "matrix.h"

/* Most edges one edge-list file may hold. */
#define EDGES_MAX IR_MATRIX_MAX_NNZ

/* A line being read: its number, its text without the line break. */
struct reader {
	const char *path; /* for diagnostics */
	FILE *f;
	char *line; /* getline's buffer */
	size_t cap;
	size_t len;      /* length of the line, line break removed */
	uint64_t lineno; /* 1-based number of the current line */
	uint64_t total;  /* bytes read so far, at most FRONT_MAX_FILE */
	struct diag *d;
};

/* Read the next line into r: 1, 0 at the end of the file, CCP_ENOMEM or
 * CCP_EIO (with d filled) when the line could not be read, CCP_EPARSE
 * once the file has given more than FRONT_MAX_FILE bytes. */
static int next_line(struct reader *r)
{
	ssize_t n;

	errno = 0;
	n = getline(&r->line, &r->cap, r->f);
	if (n < 0) {
		if (feof(r->f) && !ferror(r->f))
			return 0;
		if (errno == ENOMEM) {
			front_diag(r->d, r->path, 0, 0, NULL, "out of memory");
			return CCP_ENOMEM;
		}
		front_diag(r->d, r->path, 0, 0, NULL, "%s",
		           strerror(errno ? errno : EIO));
		return CCP_EIO;
	}
	r->lineno++;
	r->total += (uint64_t)n;
	if (r->total > FRONT_MAX_FILE) {
		/* a file that grew past the cap while it was read */
		front_diag(r->d, r->path, (int)r->lineno, 1, NULL,
		           "more than %zu MiB; a matrix file may have at most "
		           "that (FRONT_MAX_FILE)",
		           FRONT_MAX_FILE >> 20);
		return CCP_EPARSE;
	}
	while (n > 0 && (r->line[n - 1] == '\n' || r->line[n - 1] == '\r'))
		n--;
	r->line[n] = '\0';
	r->len = (size_t)n;
	return 1;
}

/* Report a problem at column col (1-based) of the current line. */
static int err_here(struct reader *r, size_t col, const char *fmt, ...)
        FRONT_PRINTF(3, 4);

static int err_here(struct reader *r, size_t col, const char *fmt, ...)
{
	char msg[sizeof r->d->message];
	char src[sizeof r->d->source_line];
	size_t n = r->len < sizeof src - 1 ? r->len : sizeof src - 1;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	memcpy(src, r->line ? r->line : "", r->line ? n : 0);
	src[r->line ? n : 0] = '\0';
	front_diag(r->d, r->path, (int)r->lineno, (int)col, src, "%s", msg);
	return CCP_EPARSE;
}

/* Report a problem at an earlier line (an edge found repeated once all
 * were read): the file is read again up to that line for its text. */
static int err_line(struct reader *r, uint64_t line, size_t col,
                    const char *msg)
{
	rewind(r->f);
	r->lineno = 0;
	r->total = 0;
	r->len = 0;
	while (r->lineno < line && next_line(r) > 0)
		;
	if (r->lineno != line)
		r->len = 0;
	r->lineno = line;
	return err_here(r, col, "%s", msg);
}

/* The three ways a number can be wrong, and fine. */
enum num_status { NUM_OK, NUM_SYNTAX, NUM_RANGE };

/* Parse s[0..len) as a decimal integer (optional '-' or '+'). */
static enum num_status parse_num(const char *s, size_t len, int64_t *out)
{
	char buf[32];
	size_t i = 0;
	long long v;

	if (len >= sizeof buf) {
		/* too long for any int64: range if it is all digits */
		for (i = (s[0] == '-' || s[0] == '+'); i < len; i++)
			if (s[i] < '0' || s[i] > '9')
				return NUM_SYNTAX;
		return NUM_RANGE;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (buf[0] == '-' || buf[0] == '+')
		i = 1;
	if (!buf[i])
		return NUM_SYNTAX;
	for (; buf[i]; i++)
		if (buf[i] < '0' || buf[i] > '9')
			return NUM_SYNTAX;
	errno = 0;
	v = strtoll(buf, NULL, 10);
	if (errno == ERANGE)
		return NUM_RANGE;
	*out = v;
	return NUM_OK;
}

/* Show token s[0..len) in a message, cut to 32 characters. */
static const char *show(const char *s, size_t len, char *buf, size_t cap)
{
	size_t n = len < 32 ? len : 32;

	if (n >= cap)
		n = cap - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (n < len && cap > n + 3)
		memcpy(buf + n, "...", 4);
	return buf;
}

/* Read a byte count token at column col: 0..IR_MAX_BYTES. */
static int get_bytes(struct reader *r, const char *s, size_t len, size_t col,
                     int64_t *out)
{
	char b[40];

	switch (parse_num(s, len, out)) {
	case NUM_SYNTAX:
		if (len == 0)
			return err_here(
			        r, col,
			        "empty cell; expected a number of bytes");
		return err_here(r, col,
		                "expected an integer number of bytes, got '%s'",
		                show(s, len, b, sizeof b));
	case NUM_RANGE:
		return err_here(
		        r, col,
		        "integer '%s' is out of range (it does not fit in "
		        "64 bits)",
		        show(s, len, b, sizeof b));
	case NUM_OK:
		break;
	}
	if (*out < 0)
		return err_here(r, col,
		                "negative size %" PRId64 "; sizes must be >= 0",
		                *out);
	if (*out > IR_MAX_BYTES)
		return err_here(r, col,
		                "size %" PRId64 " is more than "
		                "IR_MAX_BYTES (%" PRId64 ", 1 TiB)",
		                *out, IR_MAX_BYTES);
	return 0;
}

/* Read a rank token at column col: 0..n-1. */
static int get_rank(struct reader *r, const char *s, size_t len, size_t col,
                    int32_t n, int32_t *out)
{
	char b[40];
	int64_t v = 0;

	switch (parse_num(s, len, &v)) {
	case NUM_SYNTAX:
		return err_here(r, col, "expected a rank, got '%s'",
		                show(s, len, b, sizeof b));
	case NUM_RANGE:
		v = -1;
		break;
	case NUM_OK:
		break;
	}
	if (v < 0 || v >= n)
		return err_here(
		        r, col,
		        "rank '%s' is outside the machine (ranks 0..%" PRId32
		        ")",
		        show(s, len, b, sizeof b), n - 1);
	*out = (int32_t)v;
	return 0;
}

/* Is this line blank or a comment, after leading spaces? */
static bool skip_line(const char *s)
{
	s += strspn(s, " \t");
	return !*s || *s == '#';
}

/* Refuse, at column col of the current line, a matrix whose nnz messages
 * so far would already need more than the memory limit to compile. */
static int over_memory(struct reader *r, size_t col, int64_t nnz)
{
	char need[32], cap[32];
	double bytes = (double)nnz * FRONT_BYTES_PER_MESSAGE;
	if (bytes <= (double)front_max_memory())
		return 0;
	front_format_bytes(need, sizeof need, (uint64_t)bytes);
	front_format_bytes(cap, sizeof cap, front_max_memory());
	return err_here(r, col,
	                "%" PRId64 " messages so far would need at least %s "
	                "of memory to compile, more than the limit of %s; %s",
	                nnz, need, cap, FRONT_MAX_MEMORY_HINT);
}

/* Report a row or column total past INT64_MAX at column col. */
static int err_total(struct reader *r, size_t col, const struct ir_csr *b,
                     int32_t src, int32_t dst)
{
	if (b->col_overflow)
		return err_here(r, col,
		                "the bytes received by rank %" PRId32
		                " total more than 2^63-1",
		                dst);
	return err_here(r, col,
	                "the bytes sent by rank %" PRId32
	                " total more than 2^63-1",
	                src);
}

/* A dense CSV: n rows of n cells; blank lines and '#' lines ignored. */
static int read_csv(struct reader *r, int32_t n, ir_matrix **out)
{
	struct ir_csr b;
	int32_t row = 0;
	int rc = ir_csr_init(&b, n);

	if (rc < 0)
		goto out_free_builder;
	while ((rc = next_line(r)) > 0) {
		const char *p = r->line;
		int32_t col = 0;
		if (skip_line(p))
			continue;
		if (row >= n) {
			rc = err_here(r, 1,
			              "more than %" PRId32
			              " rows; the machine has %" PRId32
			              " ranks and the matrix must be %" PRId32
			              " x %" PRId32,
			              n, n, n, n);
			goto out_free_builder;
		}
		for (;;) {
			const char *s, *e;
			size_t c;
			int64_t v;
			p += strspn(p, " \t");
			s = p;
			c = (size_t)(s - r->line) + 1;
			while (*p && *p != ',')
				p++;
			e = p;
			while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			if (col >= n) {
				rc = err_here(r, c,
				              "row %" PRId32
				              " has more than %" PRId32
				              " cells (one per rank)",
				              row, n);
				goto out_free_builder;
			}
			rc = get_bytes(r, s, (size_t)(e - s), c, &v);
			if (rc < 0)
				goto out_free_builder;
			if (col == row && v != 0) {
				rc = err_here(r, c,
				              "self message of %" PRId64
				              " bytes at row %" PRId32
				              ", column %" PRId32
				              "; the diagonal must be 0",
				              v, row, col);
				goto out_free_builder;
			}
			if (col != row) {
				rc = ir_csr_add(&b, col, v);
				if (rc == CCP_ERANGE) {
					rc = err_total(r, c, &b, row, col);
					goto out_free_builder;
				}
				if (rc < 0)
					goto out_free_builder;
			}
			col++;
			if (*p != ',')
				break;
			p++;
		}
		if (col < n) {
			rc = err_here(r, r->len + 1,
			              "row %" PRId32 " has %" PRId32
			              " cells, expected %" PRId32
			              " (one per rank)",
			              row, col, n);
			goto out_free_builder;
		}
		ir_csr_end_row(&b);
		row++;
		if ((rc = over_memory(r, 1, b.nnz)) < 0)
			goto out_free_builder;
	}
	if (rc < 0)
		goto out_free_builder;
	if (row < n) {
		r->lineno++;
		r->len = 0;
		if (r->line)
			r->line[0] = '\0';
		rc = err_here(r, 1,
		              "the file ends after %" PRId32
		              " rows; expected %" PRId32 " (one per rank)",
		              row, n);
		goto out_free_builder;
	}
	rc = ir_csr_finish(&b, out);
out_free_builder:
	ir_csr_fini(&b);
	return rc;
}

/* Position of an edge, packed into its tag: line, then column. */
#define TAG_COL_BITS 24
static uint64_t tag_of(uint64_t line, size_t col)
{
	uint64_t c = col < ((size_t)1 << TAG_COL_BITS)
	                     ? col
	                     : ((size_t)1 << TAG_COL_BITS) - 1;
	return line << TAG_COL_BITS | c;
}

/* An edge list: "src dst bytes" per line, '#' to the end of a line is a
 * comment, blank lines ignored, order free, each pair at most once. */
static int read_edges(struct reader *r, int32_t n, ir_matrix **out)
{
	struct ir_edge *e = NULL, *ne;
	size_t m = 0, cap = 0, bad;
	char msg[256];
	int rc = 0;

	while ((rc = next_line(r)) > 0) {
		const char *tok[4];
		size_t tlen[4], nt = 0;
		char *hash = strchr(r->line, '#');
		const char *p = r->line;
		int32_t src, dst;
		int64_t bytes;
		if (hash)
			*hash = '\0';
		while (nt < 4) {
			p += strspn(p, " \t");
			if (!*p)
				break;
			tok[nt] = p;
			p += strcspn(p, " \t");
			tlen[nt] = (size_t)(p - tok[nt]);
			nt++;
		}
		if (hash)
			*hash = '#';
		if (nt == 0)
			continue;
		if (nt != 3) {
			rc = err_here(r,
			              nt == 4 ? (size_t)(tok[3] - r->line) + 1
			                      : r->len + 1,
			              "expected 'src dst bytes', got %s",
			              nt == 4   ? "more than 3 fields"
			              : nt == 1 ? "1 field"
			                        : "2 fields");
			goto out_free_edges;
		}
		if ((rc = get_rank(r, tok[0], tlen[0],
		                   (size_t)(tok[0] - r->line) + 1, n, &src)) <
		            0 ||
		    (rc = get_rank(r, tok[1], tlen[1],
		                   (size_t)(tok[1] - r->line) + 1, n, &dst)) <
		            0 ||
		    (rc = get_bytes(r, tok[2], tlen[2],
		                    (size_t)(tok[2] - r->line) + 1, &bytes)) <
		            0)
			goto out_free_edges;
		if (src == dst) {
			rc = err_here(r, (size_t)(tok[0] - r->line) + 1,
			              "self message %" PRId32 " -> %" PRId32
			              "; a rank does not send to itself",
			              src, dst);
			goto out_free_edges;
		}
		if ((rc = over_memory(r, (size_t)(tok[0] - r->line) + 1,
		                      (int64_t)m + 1)) < 0)
			goto out_free_edges;
		if ((int64_t)m >= EDGES_MAX) {
			rc = err_here(
			        r, 1,
			        "more than 2^28 edges (IR_MATRIX_MAX_NNZ)");
			goto out_free_edges;
		}
		if (m == cap) {
			cap = cap ? cap * 2 : 1024;
			ne = realloc(e, cap * sizeof *e);
			if (!ne) {
				rc = CCP_ENOMEM;
				goto out_free_edges;
			}
			e = ne;
		}
		e[m].src = src;
		e[m].dst = dst;
		e[m].bytes = bytes;
		e[m].tag = tag_of(r->lineno, (size_t)(tok[0] - r->line) + 1);
		m++;
	}
	if (rc < 0)
		goto out_free_edges;
	rc = ir_matrix_from_edges(n, e, m, out, &bad);
	if (rc == CCP_EINVAL) {
		uint64_t first = e[bad - 1].tag >> TAG_COL_BITS;
		snprintf(msg, sizeof msg,
		         "duplicate edge %" PRId32 " -> %" PRId32
		         " (first at line %" PRIu64 ")",
		         e[bad].src, e[bad].dst, first);
	} else if (rc == CCP_ERANGE) {
		snprintf(msg, sizeof msg,
		         "the bytes sent by rank %" PRId32
		         " or received by rank %" PRId32
		         " total more than 2^63-1",
		         e[bad].src, e[bad].dst);
	}
	if (rc == CCP_EINVAL || rc == CCP_ERANGE)
		rc = err_line(r, e[bad].tag >> TAG_COL_BITS,
		              (size_t)(e[bad].tag &
		                       (((uint64_t)1 << TAG_COL_BITS) - 1)),
		              msg);
out_free_edges:
	free(e);
	return rc;
}

int front_read_matrix_stream(FILE *f, const char *path, int32_t n,
                             ir_matrix **out, struct diag *d)
{
	struct reader r = {0};
	size_t lp = strlen(path);
	int rc;

	*out = NULL;
	r.path = path;
	r.f = f;
	r.d = d;
	if (n < 1) {
		front_diag(d, path, 0, 0, NULL,
		           "a matrix needs at least 1 rank");
		return CCP_EPARSE;
	}
	if (lp >= 4 && !strcmp(path + lp - 4, ".csv")) {
		if (n > IR_MATRIX_DENSE_MAX) {
			front_diag(d, path, 0, 0, NULL,
			           "a dense CSV matrix is limited to %d ranks",
			           IR_MATRIX_DENSE_MAX);
			rc = CCP_EPARSE;
			goto out_free_line;
		}
		rc = read_csv(&r, n, out);
	} else {
		rc = read_edges(&r, n, out);
	}
	if (rc == CCP_ENOMEM)
		front_diag(d, path, 0, 0, NULL, "out of memory");
out_free_line:
	free(r.line);
	return rc;
}

int front_read_matrix(const char *path, int32_t n, ir_matrix **out,
                      struct diag *d)
{
	FILE *f;
	int rc;

	*out = NULL;
	if (n < 1) {
		front_diag(d, path, 0, 0, NULL,
		           "a matrix needs at least 1 rank");
		return CCP_EPARSE;
	}
	if ((rc = front_fopen_regular(path, FRONT_MAX_FILE, &f, d)) != 0)
		return rc;
	rc = front_read_matrix_stream(f, path, n, out, d);
	fclose(f);
	return rc;
}

/* The next whitespace-separated token of a placement file at or after
 * *col (0-based) of the current line, reading lines as needed: 1 with
 * [*at, *at + *len) its text on the current line, 0 at the end of the
 * file, or next_line's error.  '#' ends a line. */
static int next_token(struct reader *r, size_t *col, size_t *at, size_t *len)
{
	int rc;

	for (;;) {
		const char *s = r->line ? r->line : "";
		size_t i = *col;
		while (i < r->len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i < r->len && s[i] != '#') {
			size_t j = i;
			while (j < r->len && s[j] != ' ' && s[j] != '\t' &&
			       s[j] != '#')
				j++;
			*at = i;
			*len = j - i;
			*col = j;
			return 1;
		}
		if ((rc = next_line(r)) <= 0)
			return rc;
		*col = 0;
	}
}

/* Read the placement file once more up to its entry number want (0-based)
 * and report msg there. */
static int err_entry(struct reader *r, int32_t want, const char *msg)
{
	size_t col = 0, at = 0, len = 0;

	rewind(r->f);
	r->lineno = r->total = 0;
	r->len = 0;
	for (int32_t i = 0; i <= want; i++)
		if (next_token(r, &col, &at, &len) <= 0)
			return err_here(r, 1, "%s", msg);
	return err_here(r, at + 1, "%s", msg);
}

int front_read_place(const char *path, int32_t n, int32_t nnodes, int32_t k,
                     ir_place **out, struct diag *d)
{
	struct reader r = {0};
	int32_t *node = NULL, i = 0, bad;
	size_t col = 0, at, len;
	char b[40], why[160];
	int rc;

	*out = NULL;
	r.path = path;
	r.d = d;
	if ((rc = front_fopen_regular(path, FRONT_MAX_FILE, &r.f, d)) != 0)
		return rc;
	rc = CCP_ENOMEM;
	if (!(node = malloc((size_t)n * sizeof *node))) {
		front_diag(d, path, 0, 0, NULL, "out of memory");
		goto out_close;
	}
	while ((rc = next_token(&r, &col, &at, &len)) > 0) {
		int64_t v = -1;
		enum num_status st = parse_num(r.line + at, len, &v);
		if (st == NUM_SYNTAX) {
			rc = err_here(&r, at + 1, "expected a node number, got "
			              "'%s'", show(r.line + at, len, b, sizeof b));
			goto out_close;
		}
		if (st == NUM_RANGE || v < 0 || v >= nnodes) {
			rc = err_here(&r, at + 1, "node '%s' is outside the "
			              "machine (nodes 0..%" PRId32 ")",
			              show(r.line + at, len, b, sizeof b),
			              nnodes - 1);
			goto out_close;
		}
		if (i == n) {
			rc = err_here(&r, at + 1, "a node for rank %" PRId32
			              "; the machine has %" PRId32 " ranks",
			              i, n);
			goto out_close;
		}
		node[i++] = v >= 0 && v <= INT32_MAX ? (int32_t)v : -1;
	}
	if (rc < 0)
		goto out_close;
	if (i < n) {
		rc = err_here(&r, r.len + 1, "the file ends after %" PRId32
		              " ranks; the machine has %" PRId32, i, n);
		goto out_close;
	}
	*out = ir_place_from_nodes(node, n, nnodes, k, &rc, &bad, why,
	                           sizeof why);
	if (!*out)
		rc = rc == CCP_ENOMEM ? (front_diag(d, path, 0, 0, NULL,
		                                    "out of memory"), rc)
		                      : err_entry(&r, bad, why);
out_close:
	free(node);
	free(r.line);
	fclose(r.f);
	return rc;
}
