/*
 * tau.c - the tau-model of thesis 001 chapter 5 (tau.h): reading measured
 * latencies, the least-squares fit of T_s and T_n (§5.2), the generalised
 * latency of an algorithm (eq. 5.1, Table 5.3, or counted on a plan with
 * the unicast model), tau (eq. 5.2), crossover lengths (eqs. 5.5-5.7),
 * the regions A-D of the tau-plot (§5.1.3) and the tau-plot as SVG.
 *
 * Nothing here prints or exits; the command is compiler/tau_cmd.c.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model.h"
#include "plot.h"
#include "tau.h"

/* ---- diagnostics -------------------------------------------------------- */

/* Fill d with a position and a printf-style message; line text is the
 * offending line (len bytes), copied for the caret.  Returns CCP_EPARSE. */
static int tau__diag(struct tau_diag *d, const char *file, int line, int col,
                     const char *text, size_t len, const char *fmt, ...)
{
	va_list ap;
	if (!d)
		return CCP_EPARSE;
	snprintf(d->file, sizeof d->file, "%s", file ? file : "");
	d->line = line;
	d->column = col;
	va_start(ap, fmt);
	vsnprintf(d->message, sizeof d->message, fmt, ap);
	va_end(ap);
	if (len >= sizeof d->source_line)
		len = sizeof d->source_line - 1;
	if (text)
		memcpy(d->source_line, text, len);
	d->source_line[text ? len : 0] = '\0';
	return CCP_EPARSE;
}

/* ---- CSV rows ------------------------------------------------------------ */

#define CSV_MAXF 64 /* columns of one row */

/* One field of a row: its text (trimmed of blanks and double quotes) and
 * the 1-based column where it starts. */
struct csv_field {
	const char *p;
	size_t n;
	int col;
};

/* One data line of the file. */
struct csv_row {
	int line;         /* 1-based line number */
	const char *text; /* the whole line, without its end */
	size_t len;
	int nf;
	struct csv_field f[CSV_MAXF];
};

/* Reading position in the text. */
struct csv_iter {
	const char *name; /* for diagnostics */
	const char *p, *end;
	int line;
	struct tau_diag *d;
	/* the last comment that reads '# Size ...' before the rows: the
	 * header of the OSU micro-benchmarks' output */
	const char *osu;
	size_t osulen;
	int osuline;
};

/* The next line that is neither blank nor a '#' comment, split at commas.
 * Returns 1 with a row, 0 at the end, or CCP_EPARSE (too many columns). */
static int csv_next(struct csv_iter *it, struct csv_row *r)
{
	while (it->p < it->end) {
		const char *s = it->p, *e = s;
		while (e < it->end && *e != '\n')
			e++;
		it->p = e < it->end ? e + 1 : e;
		it->line++;
		if (it->line == 1 && e - s >= 3 &&
		    memcmp(s, "\xef\xbb\xbf", 3) == 0)
			s += 3; /* a UTF-8 byte order mark */
		size_t len = (size_t)(e - s);
		if (len > 0 && s[len - 1] == '\r')
			len--;
		size_t k = 0;
		while (k < len && (s[k] == ' ' || s[k] == '\t'))
			k++;
		if (k < len && s[k] == '#') {
			size_t w = k + 1;
			while (w < len && (s[w] == ' ' || s[w] == '\t'))
				w++;
			if (len - w >= 5 && strncasecmp(s + w, "size", 4) == 0 &&
			    (s[w + 4] == ' ' || s[w + 4] == '\t')) {
				it->osu = s;
				it->osulen = len;
				it->osuline = it->line;
			}
			continue;
		}
		if (k == len)
			continue;
		r->line = it->line;
		r->text = s;
		r->len = len;
		r->nf = 0;
		/* without a comma, columns are runs of blanks (OSU, gnuplot) */
		bool blanks = !memchr(s, ',', len);
		size_t a = blanks ? k : 0;
		for (;;) {
			size_t b = a;
			while (b < len && (blanks ? s[b] != ' ' && s[b] != '\t'
			                          : s[b] != ','))
				b++;
			if (r->nf == CSV_MAXF)
				return tau__diag(
				        it->d, it->name, r->line, (int)a + 1, s,
				        len, "more than %d columns", CSV_MAXF);
			size_t x = a, y = b;
			while (x < y && (s[x] == ' ' || s[x] == '\t'))
				x++;
			while (y > x && (s[y - 1] == ' ' || s[y - 1] == '\t'))
				y--;
			int col = (int)x + 1;
			if (y - x >= 2 && s[x] == '"' && s[y - 1] == '"') {
				x++;
				y--;
			}
			r->f[r->nf++] = (struct csv_field){s + x, y - x, col};
			if (blanks)
				while (b < len && (s[b] == ' ' || s[b] == '\t'))
					b++;
			if (b == len)
				break;
			a = blanks ? b : b + 1;
		}
		return 1;
	}
	return 0;
}

/* Whether s[0..n) contains word, ignoring case. */
static bool strcasestr_n(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);
	for (size_t k = 0; k + w <= n; k++)
		if (strncasecmp(s + k, word, w) == 0)
			return true;
	return false;
}

/* Whether field f is exactly name, ignoring case. */
static bool csv_is(const struct csv_field *f, const char *name)
{
	size_t n = strlen(name);
	if (f->n != n)
		return false;
	for (size_t k = 0; k < n; k++)
		if (tolower((unsigned char)f->p[k]) != name[k])
			return false;
	return true;
}

/* Parse field f as a finite number: 0, or -1 if it is not one. */
static int csv_number(const struct csv_field *f, double *v)
{
	char buf[64];
	if (f->n == 0 || f->n >= sizeof buf)
		return -1;
	memcpy(buf, f->p, f->n);
	buf[f->n] = '\0';
	char *end;
	errno = 0;
	double x = strtod(buf, &end);
	if (*end != '\0' || errno == ERANGE || !isfinite(x))
		return -1;
	*v = x;
	return 0;
}

/* Whether some field of r is a number: a header line has none. */
static bool csv_has_number(const struct csv_row *r)
{
	double v;
	for (int k = 0; k < r->nf; k++)
		if (csv_number(&r->f[k], &v) == 0)
			return true;
	return false;
}

/* The column of the row called by one of names (NULL-terminated), or -1. */
static int csv_find(const struct csv_row *h, const char *const *names)
{
	for (const char *const *nm = names; *nm; nm++)
		for (int k = 0; k < h->nf; k++)
			if (csv_is(&h->f[k], *nm))
				return k;
	return -1;
}

/* Resolve a column given by the user (a 1-based number or a header name)
 * into *col; hdr may be NULL (no header).  0 or CCP_EPARSE. */
static int csv_user_col(struct csv_iter *it, const struct csv_row *hdr,
                        const char *spec, const char *what, int *col)
{
	char *end;
	long v = strtol(spec, &end, 10);
	if (*spec && *end == '\0') {
		if (v < 1 || v > CSV_MAXF)
			return tau__diag(it->d, it->name, 0, 0, NULL, 0,
			                 "the %s column must be 1..%d, got %s",
			                 what, CSV_MAXF, spec);
		*col = (int)v - 1;
		return 0;
	}
	if (hdr)
		for (int k = 0; k < hdr->nf; k++) {
			const struct csv_field *f = &hdr->f[k];
			if (f->n == strlen(spec) &&
			    strncmp(f->p, spec, f->n) == 0) {
				*col = k;
				return 0;
			}
		}
	if (!hdr)
		return tau__diag(it->d, it->name, 0, 0, NULL, 0,
		                 "the file has no header line, so the %s "
		                 "column '%s' must be a number",
		                 what, spec);
	return tau__diag(it->d, it->name, hdr->line, 1, hdr->text, hdr->len,
	                 "the header names no column '%s' (the %s column)",
	                 spec, what);
}

/* Microseconds per unit of a time column called like f: ns, ms, s or
 * us, alone or after the last '_'; 1 when the name has no unit. */
static double csv_unit(const struct csv_field *f)
{
	size_t k = f->n;
	while (k > 0 && f->p[k - 1] != '_')
		k--;
	struct csv_field u = {f->p + k, f->n - k, f->col};
	if (csv_is(&u, "ns") || csv_is(&u, "nsec"))
		return 1e-3;
	if (csv_is(&u, "ms") || csv_is(&u, "msec"))
		return 1e3;
	if (csv_is(&u, "s") || csv_is(&u, "sec") || csv_is(&u, "seconds"))
		return 1e6;
	return 1.0;
}

/* Whether a header name ends in a time unit: _us, _ns, _ms, _s (or
 * _usec, _nsec, _msec, _sec). */
static bool csv_has_unit(const struct csv_field *f)
{
	static const char *const u[] = {"us",   "ns",   "ms",   "s",
	                                "usec", "nsec", "msec", "sec"};
	size_t k = f->n;
	while (k > 0 && f->p[k - 1] != '_')
		k--;
	if (k == 0)
		return false;
	struct csv_field x = {f->p + k, f->n - k, f->col};
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		if (csv_is(&x, u[i]))
			return true;
	return false;
}

/* The field of column col in row r, or a diagnostic pointing past the
 * row's end.  0 or CCP_EPARSE. */
static int csv_need(struct csv_iter *it, const struct csv_row *r, int col,
                    const char *what, const struct csv_field **f)
{
	*f = col < r->nf ? &r->f[col] : NULL;
	if (*f)
		return 0;
	return tau__diag(it->d, it->name, r->line, (int)r->len + 1, r->text,
	                 r->len,
	                 "expected %s in column %d, but the row has %d "
	                 "field%s",
	                 what, col + 1, r->nf, r->nf == 1 ? "" : "s");
}

/* A field as a number >= 0 (> 0 when positive), or a diagnostic. */
static int csv_value(struct csv_iter *it, const struct csv_row *r,
                     const struct csv_field *f, const char *what, bool positive,
                     double *v)
{
	if (csv_number(f, v) != 0)
		return tau__diag(it->d, it->name, r->line, f->col, r->text,
		                 r->len, "expected %s, got '%.*s'", what,
		                 (int)(f->n > 40 ? 40 : f->n), f->p);
	if (*v < 0 || (positive && *v == 0))
		return tau__diag(it->d, it->name, r->line, f->col, r->text,
		                 r->len, "%s must be %s, got '%.*s'", what,
		                 positive ? "> 0" : ">= 0",
		                 (int)(f->n > 40 ? 40 : f->n), f->p);
	return 0;
}

/* Grow an array of elements of size sz to hold one more: 0 or -1. */
static int tau__grow(void **v, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? 2 * *cap : 64;
	void *q = realloc(*v, c * sz);
	if (!q)
		return -1;
	*v = q;
	*cap = c;
	return 0;
}

static const char *const csv_bytes_names[] = {
        "bytes", "size", "length", "l", "len", "msg_bytes", NULL};
static const char *const csv_time_names[] = {
        "us",   "usec", "time", "latency", "t",       "ns",
        "nsec", "ms",   "msec", "s",       "seconds", NULL};

int tau_samples_parse(const char *name, const char *text, size_t len,
                      const struct tau_csv_opts *o, struct tau_samples *out,
                      struct tau_diag *d)
{
	static const struct tau_csv_opts none = {0};
	struct csv_iter it = {.name = name, .p = text, .end = text + len, .d = d};
	struct csv_row *r = malloc(2 * sizeof *r), *hdr = NULL;
	int rc, got, bcol = 0, tcol = 1;
	double unit = 1.0;
	size_t n0 = out->n;
	if (!o)
		o = &none;
	if (!r)
		return CCP_ENOMEM;
	if ((got = csv_next(&it, &r[0])) < 0) {
		rc = got;
		goto out;
	}
	if (got == 0)
		goto empty;
	/* OSU's '# Size  Bandwidth (MB/s)' is no latency */
	if (it.osu && csv_has_number(&r[0]) && !o->time_col &&
	    (strcasestr_n(it.osu, it.osulen, "bandwidth") ||
	     strcasestr_n(it.osu, it.osulen, "MB/s"))) {
		rc = tau__diag(d, name, it.osuline, 1, it.osu, it.osulen,
		               "these are bandwidths (osu_bw, osu_bibw); the "
		               "fit needs one-way latencies: run osu_latency");
		goto out;
	}
	/* a first line without a single number is a header */
	if (!csv_has_number(&r[0])) {
		hdr = &r[0];
		int b = csv_find(hdr, csv_bytes_names);
		int t = csv_find(hdr, csv_time_names);
		for (int k = 0; t < 0 && k < hdr->nf; k++)
			if (k != b && csv_has_unit(&hdr->f[k]))
				t = k; /* rtt_us, oneway_ns, ... */
		if (!o->bytes_col && b < 0) {
			rc = tau__diag(d, name, hdr->line, 1, hdr->text,
			               hdr->len,
			               "the header names no message-length "
			               "column (bytes, size, length or L); "
			               "rename it or choose the columns");
			goto out;
		}
		if (!o->time_col && t < 0) {
			rc = tau__diag(
			        d, name, hdr->line, 1, hdr->text, hdr->len,
			        "the header names no time column (us, "
			        "time, latency, ns, ms, s, or a name "
			        "ending in _us, _ns, _ms, _s); rename it "
			        "or choose the columns");
			goto out;
		}
		bcol = b;
		tcol = t;
	}
	if (o->bytes_col &&
	    (rc = csv_user_col(&it, hdr, o->bytes_col, "bytes", &bcol)) != 0)
		goto out;
	if (o->time_col &&
	    (rc = csv_user_col(&it, hdr, o->time_col, "time", &tcol)) != 0)
		goto out;
	if (hdr && tcol < hdr->nf)
		unit = csv_unit(&hdr->f[tcol]);
	if (o->unit_us > 0)
		unit = o->unit_us;
	if (o->round_trip)
		unit *= 0.5;
	struct csv_row *row = &r[hdr ? 1 : 0];
	for (got = hdr ? csv_next(&it, row) : 1; got == 1;
	     got = csv_next(&it, row)) {
		const struct csv_field *fb, *ft;
		double bytes, us;
		if ((rc = csv_need(&it, row, bcol, "the message length",
		                   &fb)) != 0 ||
		    (rc = csv_need(&it, row, tcol, "the time", &ft)) != 0 ||
		    (rc = csv_value(&it, row, fb, "a message length in bytes",
		                    false, &bytes)) != 0 ||
		    (rc = csv_value(&it, row, ft, "a time", false, &us)) != 0)
			goto out;
		if (tau__grow((void **)&out->s, &out->cap, out->n,
		              sizeof *out->s)) {
			rc = CCP_ENOMEM;
			goto out;
		}
		out->s[out->n++] =
		        (struct tau_sample){bytes, us * unit, row->line};
	}
	if (got < 0) {
		rc = got;
		goto out;
	}
	if (out->n > n0) {
		rc = 0;
		goto out;
	}
empty:
	rc = tau__diag(d, name, 0, 0, NULL, 0,
	               "no measurements: the file has only %s",
	               hdr ? "a header" : "blank lines and comments");
out:
	if (rc)
		out->n = n0;
	free(r);
	return rc;
}

/* Read a whole file into a malloc'd buffer: 0, CCP_EIO or CCP_ENOMEM. */
static int tau__slurp(const char *path, char **buf, size_t *len,
                      struct tau_diag *d)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		tau__diag(d, path, 0, 0, NULL, 0, "cannot open: %s",
		          strerror(errno));
		return CCP_EIO;
	}
	struct tbuf b = {0};
	int rc = tb_read(&b, f, SIZE_MAX);
	if (rc == CCP_EIO) {
		tau__diag(d, path, 0, 0, NULL, 0, "cannot read: %s",
		          strerror(errno));
		tb_free(&b);
	} else if (rc == 0) {
		*len = b.len;
		*buf = b.p;
	} else {
		tb_free(&b);
	}
	fclose(f);
	return rc;
}

int tau_samples_read(const char *path, const struct tau_csv_opts *o,
                     struct tau_samples *out, struct tau_diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = tau__slurp(path, &buf, &len, d);
	if (rc)
		return rc;
	rc = tau_samples_parse(path, buf, len, o, out, d);
	free(buf);
	return rc;
}

void tau_samples_fini(struct tau_samples *s)
{
	free(s->s);
	memset(s, 0, sizeof *s);
}

int tau_names_parse(const char *name, const char *text, size_t len,
                    struct tau_names *out, struct tau_diag *d)
{
	static const char *const lnames[] = {"label", "name", "machine",
	                                     "system", NULL};
	static const char *const snames[] = {"ts", "t_s", "ts_us", NULL};
	static const char *const nnames[] = {"tn", "t_n", "tn_us", NULL};
	struct csv_iter it = {.name = name, .p = text, .end = text + len, .d = d};
	struct csv_row *r = malloc(sizeof *r);
	int rc, got, cl = 0, cs = 1, cn = 2;
	bool header = false, first = true;
	size_t n0 = out->n;
	if (!r)
		return CCP_ENOMEM;
	for (got = csv_next(&it, r); got == 1; got = csv_next(&it, r)) {
		if (first) {
			first = false;
			/* a first row without a single number is a header */
			if (!csv_has_number(r)) {
				cl = csv_find(r, lnames);
				cs = csv_find(r, snames);
				cn = csv_find(r, nnames);
				if (cl < 0 || cs < 0 || cn < 0) {
					rc = tau__diag(d, name, r->line, 1,
					               r->text, r->len,
					               "the header must name "
					               "the columns "
					               "label, ts and tn");
					goto out;
				}
				header = true;
				continue;
			}
		}
		const struct csv_field *fl, *fs, *fn;
		struct tau_named x;
		if ((rc = csv_need(&it, r, cl, "a label", &fl)) != 0 ||
		    (rc = csv_need(&it, r, cs, "T_s", &fs)) != 0 ||
		    (rc = csv_need(&it, r, cn, "T_n", &fn)) != 0 ||
		    (rc = csv_value(&it, r, fs, "T_s in microseconds", true,
		                    &x.ts)) != 0 ||
		    (rc = csv_value(&it, r, fn, "T_n in microseconds per byte",
		                    false, &x.tn)) != 0)
			goto out;
		if (fl->n == 0 || fl->n >= sizeof x.label) {
			rc = tau__diag(d, name, r->line, fl->col, r->text,
			               r->len,
			               "a label must have 1 to %d bytes",
			               (int)sizeof x.label - 1);
			goto out;
		}
		memcpy(x.label, fl->p, fl->n);
		x.label[fl->n] = '\0';
		x.line = r->line;
		if (tau__grow((void **)&out->v, &out->cap, out->n,
		              sizeof *out->v)) {
			rc = CCP_ENOMEM;
			goto out;
		}
		out->v[out->n++] = x;
	}
	rc = got < 0 ? got : 0;
	if (!rc && out->n == n0)
		rc = tau__diag(
		        d, name, 0, 0, NULL, 0, "no rows: the file has only %s",
		        header ? "a header" : "blank lines and comments");
out:
	if (rc)
		out->n = n0;
	free(r);
	return rc;
}

int tau_names_read(const char *path, struct tau_names *out, struct tau_diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = tau__slurp(path, &buf, &len, d);
	if (rc)
		return rc;
	rc = tau_names_parse(path, buf, len, out, d);
	free(buf);
	return rc;
}

void tau_names_fini(struct tau_names *s)
{
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* ---- least-squares fit (001 §5.2) ------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Ordinary least squares of T = ts + tn*L over centred sums, which keep
 * the slope accurate when L spans many decades (001 §5.2 fits ping-pong
 * one-way latencies the same way, "least-squared fitted to a straight
 * line"). */
int tau_fit(const struct tau_sample *s, size_t n, struct tau_fit *out,
            char *err, size_t errlen)
{
	return tau_fit_weighted(s, n, false, out, err, errlen);
}

int tau_fit_weighted(const struct tau_sample *s, size_t n, bool relative,
                     struct tau_fit *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	out->tau = out->se_ts = out->se_tn = NAN;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(s[i].bytes) || !isfinite(s[i].us)) {
			snprintf(err, errlen,
			         "sample %zu (line %d) is not a finite number",
			         i + 1, s[i].line);
			return CCP_EINVAL;
		}
	double *x = malloc((n ? n : 1) * sizeof *x);
	if (!x)
		return CCP_ENOMEM;
	for (size_t i = 0; i < n; i++)
		x[i] = s[i].bytes;
	qsort(x, n, sizeof *x, cmp_double);
	size_t sizes = n > 0;
	for (size_t i = 1; i < n; i++)
		sizes += x[i] != x[i - 1];
	free(x);
	if (sizes < 2) {
		snprintf(err, errlen,
		         "%zu sample%s with %s message length: T_s and T_n "
		         "need at least two different lengths",
		         n, n == 1 ? "" : "s", n ? "a single" : "no");
		return CCP_EINVAL;
	}
	/* weights: 1, or 1/T^2 so that each sample counts by its
	 * relative error, and the few microseconds of a short message are
	 * not lost beside the milliseconds of a long one */
	for (size_t i = 0; relative && i < n; i++)
		if (!(s[i].us > 0)) {
			snprintf(err, errlen,
			         "sample %zu (line %d) has a time of %g: "
			         "relative weights need every time > 0",
			         i + 1, s[i].line, s[i].us);
			return CCP_EINVAL;
		}
	double sw = 0, mx = 0, my = 0, umy = 0;
	for (size_t i = 0; i < n; i++) {
		double w = relative ? 1.0 / (s[i].us * s[i].us) : 1.0;
		sw += w;
		mx += w * s[i].bytes;
		my += w * s[i].us;
		umy += s[i].us;
	}
	mx /= sw;
	my /= sw;
	umy /= (double)n;
	double sxx = 0, sxy = 0, syy = 0;
	for (size_t i = 0; i < n; i++) {
		double w = relative ? 1.0 / (s[i].us * s[i].us) : 1.0;
		double dx = s[i].bytes - mx, dy = s[i].us - my;
		sxx += w * dx * dx;
		sxy += w * dx * dy;
		syy += (s[i].us - umy) * (s[i].us - umy);
	}
	out->residual = malloc(n * sizeof *out->residual);
	if (!out->residual)
		return CCP_ENOMEM;
	out->n = n;
	out->sizes = sizes;
	out->tn = sxy / sxx;
	out->ts = my - out->tn * mx;
	out->tau = out->ts != 0 ? out->tn / out->ts : NAN;
	double ss = 0;
	for (size_t i = 0; i < n; i++) {
		double r = s[i].us - (out->ts + out->tn * s[i].bytes);
		out->residual[i] = r;
		ss += r * r;
		if (fabs(r) > out->max_abs || i == 0) {
			out->max_abs = fabs(r);
			out->worst = i;
		}
	}
	out->rms = sqrt(ss / (double)n);
	out->r2 = syy > 0 ? 1.0 - ss / syy : 1.0;
	out->relative = relative;
	if (n > 2) {
		double wss = 0;
		for (size_t i = 0; i < n; i++) {
			double w = relative ? 1.0 / (s[i].us * s[i].us) : 1.0;
			wss += w * out->residual[i] * out->residual[i];
		}
		double var = wss / (double)(n - 2);
		out->se_tn = sqrt(var / sxx);
		out->se_ts = sqrt(var * (1.0 / sw + mx * mx / sxx));
	}
	return 0;
}

void tau_fit_fini(struct tau_fit *f)
{
	free(f->residual);
	f->residual = NULL;
}

/* ---- machine costs from a bench CSV -------------------------------------- */

/* The field of column col in row r as text, "" past the row's end. */
static struct csv_field csv_get(const struct csv_row *r, int col)
{
	if (col >= 0 && col < r->nf)
		return r->f[col];
	return (struct csv_field){"", 0, (int)r->len + 1};
}

/* Whether field f is exactly s (case matters: variants are names). */
static bool csv_eq(const struct csv_field *f, const char *s)
{
	return f->n == strlen(s) && memcmp(f->p, s, f->n) == 0;
}

/* The other variants a file holds (the first 8), for the error when it
 * holds no row of the one asked for. */
struct cost_seen {
	char name[8][24];
	int n;
	bool more; /* a ninth, or one too long to show */
};

/* Remember variant f once. */
static void cost_seen_add(struct cost_seen *s, const struct csv_field *f)
{
	for (int k = 0; k < s->n; k++)
		if (csv_eq(f, s->name[k]))
			return;
	if (s->n == 8 || f->n == 0 || f->n >= sizeof s->name[0]) {
		s->more = true;
		return;
	}
	memcpy(s->name[s->n], f->p, f->n);
	s->name[s->n++][f->n] = '\0';
}

int tau_cost_rows_parse(const char *name, const char *text, size_t len,
                        const char *variant, struct tau_cost_rows *out,
                        struct tau_diag *d)
{
	/* the columns ccplan-bench --csv writes (docs/bench-mpi.md) */
	static const char *const need[] = {"variant", "phases", "phase_bytes",
	                                   "phase_combine", "us"};
	enum { C_VARIANT, C_PHASES, C_PBYTES, C_PCOMBINE, C_US, C_NEED };
	struct csv_iter it = {.name = name, .p = text, .end = text + len, .d = d};
	struct csv_row *r = malloc(2 * sizeof *r), *hdr, *row;
	struct cost_seen seen;
	int rc, got, col[C_NEED], ccase, cbytes;
	size_t n0 = out->n, other0 = out->other, nophase0 = out->nophase;
	if (!variant)
		variant = "s2-nb";
	if (!r)
		return CCP_ENOMEM;
	memset(&seen, 0, sizeof seen);
	hdr = &r[0];
	row = &r[1];
	if ((got = csv_next(&it, hdr)) <= 0) {
		rc = got < 0 ? got
		             : tau__diag(d, name, 0, 0, NULL, 0,
		                         "no measurements: the file has only "
		                         "blank lines and comments");
		goto out;
	}
	if (csv_has_number(hdr)) {
		rc = tau__diag(d, name, hdr->line, 1, hdr->text, hdr->len,
		               "no header line: fitting costs needs the "
		               "columns variant, phases, phase_bytes, "
		               "phase_combine and us (ccplan-bench --csv)");
		goto out;
	}
	for (int k = 0; k < C_NEED; k++) {
		const char *const one[] = {need[k], NULL};
		if ((col[k] = csv_find(hdr, one)) < 0) {
			rc = tau__diag(
			        d, name, hdr->line, 1, hdr->text, hdr->len,
			        "the header names no column '%s' (fitting "
			        "costs needs variant, phases, phase_bytes, "
			        "phase_combine and us, as ccplan-bench "
			        "--csv writes them)",
			        need[k]);
			goto out;
		}
	}
	{
		static const char *const cn[] = {"case", NULL};
		ccase = csv_find(hdr, cn);
		cbytes = csv_find(hdr, csv_bytes_names);
	}
	for (got = csv_next(&it, row); got == 1; got = csv_next(&it, row)) {
		const struct csv_field *fv, *fp, *fb, *fc, *ft;
		struct tau_cost_row x;
		double pb, pc;
		if ((rc = csv_need(&it, row, col[C_VARIANT], "the variant",
		                   &fv)) != 0)
			goto out;
		if (!csv_eq(fv, variant)) {
			cost_seen_add(&seen, fv);
			out->other++;
			continue;
		}
		if ((rc = csv_need(&it, row, col[C_PHASES], "the phases",
		                   &fp)) != 0)
			goto out;
		if (fp->n == 0) {
			out->nophase++;
			continue;
		}
		if ((rc = csv_need(&it, row, col[C_PBYTES], "phase_bytes",
		                   &fb)) != 0 ||
		    (rc = csv_need(&it, row, col[C_PCOMBINE], "phase_combine",
		                   &fc)) != 0 ||
		    (rc = csv_need(&it, row, col[C_US], "the time (us)",
		                   &ft)) != 0 ||
		    (rc = csv_value(&it, row, fp, "a phase count (phases)",
		                    true, &x.p)) != 0 ||
		    (rc = csv_value(&it, row, fb,
		                    "bytes per phase (phase_bytes)", false,
		                    &pb)) != 0 ||
		    (rc = csv_value(&it, row, fc,
		                    "bytes combined per phase (phase_combine)",
		                    false, &pc)) != 0 ||
		    (rc = csv_value(&it, row, ft, "a time in us (us)", true,
		                    &x.us)) != 0)
			goto out;
		x.b = x.p * pb;
		x.c = x.p * pc;
		struct csv_field f = csv_get(row, cbytes);
		if (cbytes < 0 || csv_number(&f, &x.bytes) != 0)
			x.bytes = NAN;
		f = csv_get(row, ccase);
		size_t nn = f.n < sizeof x.name ? f.n : sizeof x.name - 1;
		memcpy(x.name, f.p, nn);
		x.name[nn] = '\0';
		x.line = row->line;
		if (tau__grow((void **)&out->v, &out->cap, out->n,
		              sizeof *out->v)) {
			rc = CCP_ENOMEM;
			goto out;
		}
		out->v[out->n++] = x;
	}
	if (got < 0) {
		rc = got;
		goto out;
	}
	rc = 0;
	if (out->n == n0) {
		char list[256] = "";
		for (int k = 0, at = 0; k < seen.n; k++)
			at += snprintf(list + at, sizeof list - (size_t)at,
			               "%s%s", k ? ", " : "", seen.name[k]);
		rc = tau__diag(d, name, 0, 0, NULL, 0,
		               "no rows of variant '%s' with a phase count "
		               "(other variants in the file: %s%s)",
		               variant, seen.n ? list : "none",
		               seen.more ? ", ..." : "");
	}
out:
	if (rc) {
		out->n = n0;
		out->other = other0;
		out->nophase = nophase0;
	}
	free(r);
	return rc;
}

int tau_cost_rows_read(const char *path, const char *variant,
                       struct tau_cost_rows *out, struct tau_diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = tau__slurp(path, &buf, &len, d);
	if (rc)
		return rc;
	rc = tau_cost_rows_parse(path, buf, len, variant, out, d);
	free(buf);
	return rc;
}

void tau_cost_rows_fini(struct tau_cost_rows *r)
{
	free(r->v);
	memset(r, 0, sizeof *r);
}

/* Solve the m x m system g x = h (m <= 3, g symmetric with unit diagonal)
 * by elimination with partial pivoting: 0, or -1 when a pivot falls below
 * 1e-12, i.e. the columns behind g are (nearly) proportional. */
static int cost_solve(int m, double g[3][3], double h[3], double x[3])
{
	double a[3][4];
	for (int i = 0; i < m; i++) {
		for (int j = 0; j < m; j++)
			a[i][j] = g[i][j];
		a[i][m] = h[i];
	}
	for (int c = 0; c < m; c++) {
		int p = c;
		for (int i = c + 1; i < m; i++)
			if (fabs(a[i][c]) > fabs(a[p][c]))
				p = i;
		if (!(fabs(a[p][c]) > 1e-12))
			return -1;
		for (int j = 0; j <= m; j++) {
			double t = a[c][j];
			a[c][j] = a[p][j];
			a[p][j] = t;
		}
		for (int i = c + 1; i < m; i++) {
			double f = a[i][c] / a[c][c];
			for (int j = c; j <= m; j++)
				a[i][j] -= f * a[c][j];
		}
	}
	for (int i = m - 1; i >= 0; i--) {
		double s = a[i][m];
		for (int j = i + 1; j < m; j++)
			s -= a[i][j] * x[j];
		x[i] = s / a[i][i];
	}
	return 0;
}

/* Row i's parameter k (P, B or C). */
static double cost_x(const struct tau_cost_row *r, int k)
{
	return k == 0 ? r->p : k == 1 ? r->b : r->c;
}

/* The prediction of th for row r. */
static double cost_pred(const struct tau_cost_row *r, const double th[3])
{
	return th[0] * r->p + th[1] * r->b + th[2] * r->c;
}

/* The unconstrained least-squares fit of the parameters in mask (of nk),
 * the others 0, to sum_i (x_i.th / d[i] - g[i])^2, on normal equations
 * scaled to a unit diagonal (the columns differ by 10^6, P against B):
 * th[] in us/unit.  0, or -1 if singular. */
static int cost_subset(const struct tau_cost_row *r, size_t n, int nk,
                       unsigned mask, const double *d, const double *g,
                       double th[3])
{
	double G[3][3], h[3], x[3], scale[3] = {0, 0, 0};
	int idx[3], m = 0;
	for (int k = 0; k < nk; k++)
		if (mask >> k & 1)
			idx[m++] = k;
	for (size_t i = 0; i < n; i++)
		for (int a = 0; a < m; a++) {
			double z = cost_x(&r[i], idx[a]) / d[i];
			scale[a] += z * z;
		}
	for (int a = 0; a < m; a++) {
		scale[a] = sqrt(scale[a]);
		if (!(scale[a] > 0))
			return -1;
		h[a] = 0;
		for (int b = 0; b < m; b++)
			G[a][b] = 0;
	}
	for (size_t i = 0; i < n; i++)
		for (int a = 0; a < m; a++) {
			double za = cost_x(&r[i], idx[a]) / d[i] / scale[a];
			h[a] += za * g[i];
			for (int b = 0; b < m; b++)
				G[a][b] += za * cost_x(&r[i], idx[b]) / d[i] /
				           scale[b];
		}
	th[0] = th[1] = th[2] = 0;
	if (m && cost_solve(m, G, h, x) != 0)
		return -1;
	for (int a = 0; a < m; a++)
		th[idx[a]] = x[a] / scale[a];
	return 0;
}

/* The best of the non-negative subset fits of sum_i (x_i.th/d[i] -
 * g[i])^2: the constrained optimum is the unconstrained one on its free
 * set, so the best feasible subset solution is it.  *mask gets its free
 * set; -1 if no subset has a solution. */
static int cost_nonneg(const struct tau_cost_row *r, size_t n, int nk,
                       const double *d, const double *g, double th[3],
                       unsigned *mask)
{
	double best = INFINITY, t[3];
	for (unsigned k = (1u << nk); k-- > 0;) {
		if (cost_subset(r, n, nk, k, d, g, t) != 0 || t[0] < 0 ||
		    t[1] < 0 || t[2] < 0)
			continue;
		double ss = 0;
		for (size_t i = 0; i < n; i++) {
			double e = cost_pred(&r[i], t) / d[i] - g[i];
			ss += e * e;
		}
		if (ss < best) {
			best = ss;
			*mask = k;
			memcpy(th, t, sizeof t);
		}
	}
	return isinf(best) ? -1 : 0;
}

/* The sum of squared log ratios of th's predictions to the times;
 * infinite where th predicts 0 for a row. */
static double cost_logss(const struct tau_cost_row *r, size_t n,
                         const double th[3])
{
	double ss = 0;
	for (size_t i = 0; i < n; i++) {
		double q = cost_pred(&r[i], th);
		if (!(q > 0))
			return INFINITY;
		double e = log(q / r[i].us);
		ss += e * e;
	}
	return ss;
}

/* Least squares of the log ratios, sum (log(x_i.th / us_i))^2: a miss by
 * a factor costs the same above as below, at 1 us as at 10^4 us, and the
 * mean of the logs is the geometric mean of predicted/measured that
 * selection is judged by.  It is not linear in th: Gauss-Newton from the
 * relative least-squares fit (weights 1/us^2), each step the linear fit
 * of log(p) + (x.th - p)/p to log(us) around the last predictions p,
 * halved until the sum falls, non-negative by enumeration as above.
 * Relative least squares alone is lopsided: over-predicting a row costs
 * without bound, under-predicting it at most 1 each, so a few fast rows
 * (a broadcast of 16 bytes in 0.4 us) pull tau to 0 while most rows take
 * 10-40 us a phase. */
int tau_cost_fit(const struct tau_cost_row *r, size_t n,
                 struct tau_cost_fit *out, char *err, size_t errlen)
{
	static const char *const pname[3] = {"tau", "phi", "combine"};
	memset(out, 0, sizeof *out);
	out->r2 = NAN;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(r[i].p) || !isfinite(r[i].b) ||
		    !isfinite(r[i].c) || !isfinite(r[i].us) || r[i].p < 0 ||
		    r[i].b < 0 || r[i].c < 0 || !(r[i].us > 0)) {
			snprintf(
			        err, errlen,
			        "row %zu (line %d): phases, bytes and combined "
			        "bytes must be finite and >= 0, the time > 0",
			        i + 1, r[i].line);
			return CCP_EINVAL;
		}
	for (size_t i = 0; i < n; i++)
		out->has_combine |= r[i].c > 0;
	int nk = out->has_combine ? 3 : 2;
	if (n < (size_t)nk) {
		snprintf(err, errlen, "%zu row%s: fitting %s needs at least %d",
		         n, n == 1 ? "" : "s",
		         nk == 3 ? "tau, phi and combine"
		                 : "tau and phi (no row combines)",
		         nk);
		return CCP_EINVAL;
	}
	for (int k = 0; k < nk; k++) {
		bool any = false;
		for (size_t i = 0; i < n; i++)
			any |= cost_x(&r[i], k) > 0;
		if (!any) {
			snprintf(err, errlen,
			         "every row has %s = 0: %s cannot be fitted",
			         k == 0 ? "phases" : "phase_bytes", pname[k]);
			return CCP_EINVAL;
		}
	}
	double *d = malloc(n * sizeof *d), *g = malloc(n * sizeof *g);
	out->rel = malloc(n * sizeof *out->rel);
	if (!d || !g || !out->rel) {
		free(d);
		free(g);
		tau_cost_fit_fini(out);
		return CCP_ENOMEM;
	}
	out->n = n;
	/* the relative fit: the start, and the free fit reported */
	for (size_t i = 0; i < n; i++) {
		d[i] = r[i].us;
		g[i] = 1;
	}
	unsigned all = (1u << nk) - 1, mask = 0;
	double th[3], step[3];
	int rc = 0;
	if (cost_subset(r, n, nk, all, d, g, out->free) != 0 ||
	    cost_nonneg(r, n, nk, d, g, th, &mask) != 0) {
		snprintf(err, errlen,
		         "singular normal equations: over the %zu rows the "
		         "phases, bytes%s are proportional, so %s cannot be "
		         "told apart; measure more collectives or sizes",
		         n, nk == 3 ? " and combined bytes" : "",
		         nk == 3 ? "tau, phi and combine" : "tau and phi");
		rc = CCP_EINVAL;
		goto out;
	}
	double ss = cost_logss(r, n, th);
	for (int it = 0; it < 100 && isfinite(ss); it++) {
		unsigned m2 = mask;
		for (size_t i = 0; i < n; i++) {
			d[i] = cost_pred(&r[i], th);
			g[i] = 1 + log(r[i].us / d[i]);
		}
		if (cost_nonneg(r, n, nk, d, g, step, &m2) != 0)
			break;
		double lam = 1, t[3], s2 = INFINITY;
		for (int h = 0; h < 30; h++, lam /= 2) {
			for (int k = 0; k < 3; k++)
				t[k] = th[k] + lam * (step[k] - th[k]);
			if ((s2 = cost_logss(r, n, t)) < ss)
				break;
		}
		if (!(s2 < ss))
			break;
		bool small = ss - s2 <= 1e-13 * ss;
		memcpy(th, t, sizeof th);
		ss = s2;
		if (lam == 1)
			mask = m2;
		if (small)
			break;
	}
	out->tau = th[0];
	out->phi = th[1];
	out->combine = th[2];
	for (int k = 0; k < nk; k++)
		out->held[k] = !(th[k] > 0) && out->free[k] < 0;
	/* R^2 of the log ratios, about the mean log time */
	double mean = 0, sst = 0;
	for (size_t i = 0; i < n; i++)
		mean += log(r[i].us) / (double)n;
	for (size_t i = 0; i < n; i++) {
		double e = (cost_pred(&r[i], th) - r[i].us) / r[i].us;
		double t = log(r[i].us) - mean;
		out->rel[i] = e;
		d[i] = fabs(e);
		sst += t * t;
		if (fabs(e) > fabs(out->max_rel) || i == 0) {
			out->max_rel = e;
			out->worst = i;
		}
	}
	out->r2 = sst > 0 ? 1 - ss / sst : ss == 0 ? 1.0 : 0.0;
	qsort(d, n, sizeof *d, cmp_double);
	out->median_rel = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
out:
	free(d);
	free(g);
	if (rc)
		tau_cost_fit_fini(out);
	return rc;
}

void tau_cost_fit_fini(struct tau_cost_fit *f)
{
	free(f->rel);
	f->rel = NULL;
}

/* ---- generalised latency (eqs. 5.1, 5.2) ------------------------------- */

double tau_tau(struct tau_line l)
{
	return l.ts != 0 ? l.tn / l.ts : NAN; /* eq. 5.2 */
}

double tau_at(struct tau_line l, double bytes)
{
	return l.ts + l.tn * bytes; /* eq. 5.1 with f(L) = L */
}

struct tau_line tau_eval(const struct tau_coef *c, const struct tau_params *p)
{
	struct tau_line l;
	l.ts = c->alpha * p->alpha + c->gamma * p->gamma + c->hop * p->hop;
	l.tn = c->bytes * p->beta;
	return l;
}

struct tau_line tau_unicast(const struct tau_params *p)
{
	/* 001 §5.3: alpha + h*beta + beta*L + gamma with h = 1 */
	struct tau_coef one = {1, 1, 1, 1};
	return tau_eval(&one, p);
}

int tau_params_from_cost(const ir_cost *c, struct tau_params *p, char *err,
                         size_t errlen)
{
	static const char *const names[] = {"alpha", "beta", "hop", "gamma"};
	double v[4] = {c->alpha, c->beta, c->hop, c->gamma};
	for (int k = 0; k < 4; k++) {
		if (k >= 2 && isnan(v[k])) {
			v[k] = 0; /* Table 5.1's form: T_s + T_n*L */
			continue;
		}
		if (!isfinite(v[k]) || v[k] < 0) {
			snprintf(
			        err, errlen,
			        "the tau-model needs %s (a finite value >= 0), "
			        "which is %s",
			        names[k], isnan(v[k]) ? "unset" : "invalid");
			return CCP_EINVAL;
		}
	}
	p->alpha = v[0];
	p->beta = v[1];
	p->hop = v[2];
	p->gamma = v[3];
	return 0;
}

/* ---- Table 5.3 ----------------------------------------------------------- */

static const char *const tau_alg_names[TAU_NALGS][2] = {
        {"rd", "rd"},
        {"sc", "scatter_collect"},
        {"ft", "fibonacci"},
        {"edn", "edn"}};

const char *tau_alg_name(enum tau_alg a)
{
	return (unsigned)a < TAU_NALGS ? tau_alg_names[a][0] : "?";
}

const char *tau_alg_generator(enum tau_alg a)
{
	return (unsigned)a < TAU_NALGS ? tau_alg_names[a][1] : "?";
}

int tau_alg_find(const char *name, enum tau_alg *a)
{
	for (int k = 0; k < TAU_NALGS; k++)
		if (strcmp(name, tau_alg_names[k][0]) == 0 ||
		    strcmp(name, tau_alg_names[k][1]) == 0) {
			*a = (enum tau_alg)k;
			return 0;
		}
	return CCP_ENOTFOUND;
}

/* 001 §5.3: N(t, k) = N(t-k, k) + N(t-1, k) for t >= k, 1 otherwise, the
 * ranks a Fibonacci tree with k segments completes in t steps; t(P, k) is
 * the least t with N(t, k) >= P.  The last k values are kept in a ring,
 * saturated at P. */
int64_t tau_ft_steps(int64_t p, int32_t k)
{
	if (p < 1 || k < 1 || k > IR_MAX_SEGMENTS)
		return -1;
	int64_t *ring = malloc((size_t)k * sizeof *ring);
	if (!ring)
		return -1;
	int64_t t = 0;
	for (;; t++) {
		int64_t v = 1;
		if (t >= k)
			v = ring[(t - 1) % k] + ring[(t - k) % k];
		if (v > p)
			v = p;
		ring[t % k] = v;
		if (v >= p)
			break;
	}
	free(ring);
	return t;
}

int tau_table53(enum tau_alg a, int n, int32_t k, struct tau_coef *out)
{
	if (n < 1 || n > 15 || k < 1)
		return CCP_EINVAL;
	double side = ldexp(1.0, n); /* 2^n */
	switch (a) {
	case TAU_RD: /* 2n alpha + 2 beta (2^n - 1) + 2n gamma; 2n beta */
		*out = (struct tau_coef){2.0 * n, 2.0 * n, 2 * (side - 1),
		                         2.0 * n};
		return 0;
	case TAU_SC: /* 2(2^n-1+n)(alpha+gamma) + 6(2^n-1) beta;
	                2(1 - 1/2^2n) beta */
		*out = (struct tau_coef){2 * (side - 1 + n), 2 * (side - 1 + n),
		                         6 * (side - 1),
		                         2 * (1 - 1 / (side * side))};
		return 0;
	case TAU_FT: { /* t(P,k)(alpha+gamma) + 2k beta(2^n-1); t(P,k)/k beta */
		int64_t t = tau_ft_steps((int64_t)1 << (2 * n), k);
		if (t < 0)
			return CCP_EINVAL;
		*out = (struct tau_coef){(double)t, (double)t,
		                         2.0 * k * (side - 1), (double)t / k};
		return 0;
	}
	case TAU_EDN: /* 3n alpha + (n+1) gamma + (2^n-1) beta; (n+1) beta */
		*out = (struct tau_coef){3.0 * n, n + 1.0, side - 1, n + 1.0};
		return 0;
	default:
		return CCP_EINVAL;
	}
}

/* ---- a plan's latency ------------------------------------------------------
 */

/* The unicast model's time of p under (alpha, beta, hop, gamma): p's
 * machine is copied with those costs (the arrays stay borrowed). */
static int tau__predict(const ir_plan *p, double alpha, double beta, double hop,
                        double gamma, double *us, char *err, size_t errlen)
{
	ir_plan q = *p;
	q.machine.cost.alpha = alpha;
	q.machine.cost.beta = beta;
	q.machine.cost.hop = hop;
	q.machine.cost.gamma = gamma;
	return model_predict(&q, NULL, MODEL_UNICAST, us, NULL, err, errlen);
}

int tau_plan_coef(const ir_plan *p, struct tau_coef *out, char *err,
                  size_t errlen)
{
	if (p->comm.bytes <= 0) {
		snprintf(err, errlen,
		         "the plan moves no bytes (comm.bytes = %lld): T_n "
		         "per byte is undefined",
		         (long long)p->comm.bytes);
		return CCP_EINVAL;
	}
	double a, g, h, b;
	int rc;
	if ((rc = tau__predict(p, 1, 0, 0, 0, &a, err, errlen)) != 0 ||
	    (rc = tau__predict(p, 0, 0, 0, 1, &g, err, errlen)) != 0 ||
	    (rc = tau__predict(p, 0, 0, 1, 0, &h, err, errlen)) != 0 ||
	    (rc = tau__predict(p, 0, 1, 0, 0, &b, err, errlen)) != 0)
		return rc;
	*out = (struct tau_coef){a, g, h, b / (double)p->comm.bytes};
	return 0;
}

int tau_plan_line(const ir_plan *p, const struct tau_params *prm,
                  struct tau_line *out, bool *linear, char *err, size_t errlen)
{
	if (p->comm.bytes <= 0) {
		snprintf(err, errlen,
		         "the plan moves no bytes (comm.bytes = %lld): T_n "
		         "per byte is undefined",
		         (long long)p->comm.bytes);
		return CCP_EINVAL;
	}
	double ts, b, full;
	int rc;
	if ((rc = tau__predict(p, prm->alpha, 0, prm->hop, prm->gamma, &ts, err,
	                       errlen)) != 0 ||
	    (rc = tau__predict(p, 0, 1, 0, 0, &b, err, errlen)) != 0 ||
	    (rc = tau__predict(p, prm->alpha, prm->beta, prm->hop, prm->gamma,
	                       &full, err, errlen)) != 0)
		return rc;
	out->ts = ts;
	out->tn = prm->beta * b / (double)p->comm.bytes;
	/* T(L) is a sum over phases of maxima of lines in L: convex, with
	 * slope at most tn.  Equal to ts + tn*L at the plan's own L, it has
	 * slope tn all the way, i.e. it is that line for every L >= 0. */
	if (linear) {
		double line = ts + out->tn * (double)p->comm.bytes;
		*linear = fabs(full - line) <= 1e-9 * fmax(1.0, fabs(line));
	}
	return 0;
}

/* ---- comparing lines (eqs. 5.3-5.7) ------------------------------------ */

/* Which of a, b is smaller: 0, 1, or -1 when equal. */
static int tau__first(double a, double b)
{
	return a < b ? 0 : b < a ? 1 : -1;
}

int tau_crossover(struct tau_line a, struct tau_line b, struct tau_cross *out)
{
	if (!isfinite(a.ts) || !isfinite(a.tn) || !isfinite(b.ts) ||
	    !isfinite(b.tn))
		return CCP_EINVAL;
	double dts = a.ts - b.ts, dtn = b.tn - a.tn;
	/* eq. 5.5 with f(L) = L: L* = (T_s2 - T_s3)/(T_n3 - T_n2); eq. 5.6
	 * writes the same with T_n = tau*T_s */
	out->l = dtn != 0 ? dts / dtn : NAN;
	out->crosses = dtn != 0 && out->l > 0 && isfinite(out->l);
	/* eq. 5.7: below L* the smaller T_s wins, above it the smaller T_n
	 * (ties broken by the other term) */
	out->short_first =
	        a.ts != b.ts ? tau__first(a.ts, b.ts) : tau__first(a.tn, b.tn);
	out->long_first =
	        a.tn != b.tn ? tau__first(a.tn, b.tn) : tau__first(a.ts, b.ts);
	return 0;
}

/* -1, 0 or 1 as u is below, at (within a relative 1e-12) or above v. */
static int tau__cmp(double u, double v)
{
	if (fabs(u - v) <= 1e-12 * fmax(fabs(u), fabs(v)))
		return 0;
	return u < v ? -1 : 1;
}

/* 001 §5.1.3 and Figure 5.2: two lines through x, one horizontal and one
 * vertical.  A (lower left) beats x at every length, B (upper right)
 * loses at every length; C (upper left, smaller tau) "favours long
 * messages" and D (lower right) short ones.  On a boundary line the
 * order holds at every L > 0 (eq. 5.3 for equal T_s; proportional
 * latencies for equal tau), so it belongs to A or B. */
enum tau_region tau_region_of(struct tau_line x, struct tau_line q)
{
	int ct = tau__cmp(tau_tau(q), tau_tau(x));
	int cs = tau__cmp(q.ts, x.ts);
	if (ct == 0 && cs == 0)
		return TAU_REGION_SAME;
	if (ct <= 0 && cs <= 0)
		return TAU_REGION_A;
	if (ct >= 0 && cs >= 0)
		return TAU_REGION_B;
	return ct < 0 ? TAU_REGION_C : TAU_REGION_D;
}

const char *tau_region_name(enum tau_region r)
{
	static const char *const names[] = {"x", "A", "B", "C", "D"};
	return (unsigned)r <= TAU_REGION_D ? names[r] : "?";
}

/* ---- the tau-plot as SVG (001 §5.1.2, Figures 5.1, 5.2) ---------------- */

/* The page (plot.h draws the frame, axes, markers and labels). */
static const struct plot_page tau_page = {
        .w = 980,
        .h = 640,
        .left = 86,
        .top = 46,
        .right = 680,
        .bottom = 566,
        .legend = 700,
};

/* Colours of the regions (001 Figure 5.2). */
static const char *const region_fill[5] = {"#000000", "#2ca02c", "#d62728",
                                           "#1f77b4", "#ff7f0e"};

static const char *item_color(const struct tau_item *it)
{
	if (it->series > 0)
		return plot_color((size_t)(it->series - 1));
	return it->mark == TAU_MARK_MACHINE     ? "#1f3b73"
	       : it->mark == TAU_MARK_ALGORITHM ? "#8c2d04"
	                                        : "#555555";
}

/* The marker shape of a kind of item: machines are dots, algorithms
 * squares, given lines triangles. */
static enum plot_mark mark_shape(enum tau_mark m)
{
	return m == TAU_MARK_MACHINE     ? PLOT_CIRCLE
	       : m == TAU_MARK_ALGORITHM ? PLOT_SQUARE
	                                 : PLOT_TRIANGLE;
}

/* The chosen point x: a ring with a cross. */
static void draw_x(struct tbuf *b, double x, double y)
{
	tb_printf(b,
	            "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"7\" fill=\"none\" "
	            "stroke=\"#000\" stroke-width=\"1.6\"/>\n"
	            "<path d=\"M%.2f %.2fL%.2f %.2fM%.2f %.2fL%.2f %.2f\" "
	            "stroke=\"#000\" stroke-width=\"1.6\"/>\n",
	            x, y, x - 4.5, y - 4.5, x + 4.5, y + 4.5, x - 4.5, y + 4.5,
	            x + 4.5, y - 4.5);
}

/* The regions A-D around the point (pixel px, py), each a rectangle to
 * the edges of the plot with its letter in the far corner (001 Figure
 * 5.2: A lower left, B upper right, C upper left, D lower right). */
static void draw_regions(struct tbuf *b, double px, double py,
                         struct plot_boxes *used)
{
	const struct plot_page *pg = &tau_page;
	struct {
		enum tau_region r;
		double x0, y0, x1, y1;
		double lx, ly;
		const char *anchor;
	} q[4] = {
	        {TAU_REGION_A, pg->left, py, px, pg->bottom, pg->left + 8,
	         pg->bottom - 8, "start"},
	        {TAU_REGION_B, px, pg->top, pg->right, py, pg->right - 8,
	         pg->top + 24, "end"},
	        {TAU_REGION_C, pg->left, pg->top, px, py, pg->left + 8,
	         pg->top + 24, "start"},
	        {TAU_REGION_D, px, py, pg->right, pg->bottom, pg->right - 8,
	         pg->bottom - 8, "end"},
	};
	for (int k = 0; k < 4; k++) {
		if (q[k].x1 - q[k].x0 < 1 || q[k].y1 - q[k].y0 < 1)
			continue;
		tb_printf(
		        b,
		        "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
		        "height=\"%.2f\" fill=\"%s\" fill-opacity=\"0.10\"/>\n",
		        q[k].x0, q[k].y0, q[k].x1 - q[k].x0, q[k].y1 - q[k].y0,
		        region_fill[q[k].r]);
		if (q[k].x1 - q[k].x0 <= 30 || q[k].y1 - q[k].y0 <= 30)
			continue;
		double lx0 = q[k].anchor[0] == 's' ? q[k].lx : q[k].lx - 16;
		plot_keep(b, used,
		          (struct plot_box){lx0, q[k].ly - 17, lx0 + 16,
		                            q[k].ly + 1});
		tb_printf(b,
		            "<text x=\"%.2f\" y=\"%.2f\" "
		            "text-anchor=\"%s\" font-size=\"22\" "
		            "font-weight=\"bold\" fill=\"%s\" "
		            "fill-opacity=\"0.55\">%s</text>\n",
		            q[k].lx, q[k].ly, q[k].anchor, region_fill[q[k].r],
		            tau_region_name(q[k].r));
	}
	tb_printf(b,
	            "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" "
	            "stroke=\"#333\" stroke-width=\"0.9\"/>\n"
	            "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
	            "stroke=\"#333\" stroke-width=\"0.9\"/>\n",
	            pg->left, py, pg->right, py, px, pg->top, px, pg->bottom);
}

/* The curve T_n = T_n(x), i.e. T_s = T_n(x)/tau, dashed: a line of slope
 * -1 on log axes, a hyperbola on linear ones.  C items below it and D
 * items above it cross x at L* (eq. 5.5); the others do not. */
static void draw_iso_tn(struct tbuf *b, const struct plot_axis *ax,
                        const struct plot_axis *ay, double tn)
{
	if (!(tn > 0))
		return;
	double t0 = fmax(ax->lo, tn / ay->hi), t1 = ax->hi;
	if (ax->log && t0 <= 0)
		return;
	if (!(t1 > t0))
		return;
	tb_printf(b, "<polyline fill=\"none\" stroke=\"#333\" "
	               "stroke-width=\"1.1\" stroke-dasharray=\"6 4\" "
	               "points=\"");
	int steps = ax->log ? 1 : 120;
	for (int k = 0; k <= steps; k++) {
		double t = ax->log ? (k ? t1 : t0)
		                   : t0 * pow(t1 / t0, (double)k / steps);
		if (t <= 0)
			continue;
		double ts = tn / t;
		if (ay->log && ts < ay->lo * 1e-6)
			ts = ay->lo * 1e-6; /* clipped anyway */
		tb_printf(b, "%.2f,%.2f ", plot_map(ax, t), plot_map(ay, ts));
	}
	tb_printf(b, "\"/>\n");
}

/* The legend right of the plot: series, marker kinds, the point and its
 * regions. */
static void draw_legend(struct tbuf *b, const struct tau_plot *pl,
                        const bool kinds[3])
{
	static const char *const kind_name[3] = {
	        "machine (point-to-point)", "algorithm", "measured / given"};
	const int lx = tau_page.legend;
	double y = tau_page.top + 4;
	tb_printf(b,
	            "<text x=\"%d\" y=\"%.2f\" "
	            "font-weight=\"bold\">Legend</text>\n",
	            lx, y);
	y += 20;
	for (size_t s = 0; s < pl->nseries; s++, y += 17) {
		const char *c = plot_color(s);
		enum tau_mark m = TAU_MARK_ALGORITHM;
		for (size_t i = 0; i < pl->nitems; i++)
			if (pl->items[i].series == (int)s + 1)
				m = pl->items[i].mark;
		tb_printf(b,
		            "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" "
		            "stroke=\"%s\" stroke-width=\"1.5\"/>\n",
		            lx, y - 4, lx + 22, y - 4, c);
		plot_marker(b, mark_shape(m), lx + 11, y - 4, c);
		tb_printf(b, "<text x=\"%d\" y=\"%.2f\">", lx + 30, y);
		plot_text(b, pl->series_names ? pl->series_names[s] : "series");
		tb_printf(b, "</text>\n");
	}
	for (int k = 0; k < 3; k++) {
		if (!kinds[k])
			continue;
		struct tau_item it = {NULL, {1, 0}, (enum tau_mark)k, 0};
		plot_marker(b, mark_shape((enum tau_mark)k), lx + 11, y - 4,
		            item_color(&it));
		tb_printf(b, "<text x=\"%d\" y=\"%.2f\">%s</text>\n", lx + 30,
		            y, kind_name[k]);
		y += 17;
	}
	if (!pl->has_point)
		return;
	y += 8;
	draw_x(b, lx + 11, y - 4);
	tb_printf(b, "<text x=\"%d\" y=\"%.2f\">x = ", lx + 30, y);
	plot_text(b, pl->point_label ? pl->point_label : "the chosen point");
	tb_printf(b, "</text>\n");
	y += 15;
	tb_printf(b,
	            "<text x=\"%d\" y=\"%.2f\" fill=\"#444\">(\xcf\x84 %.4g, "
	            "T_s %.4g \xc2\xb5s)</text>\n",
	            lx + 30, y, tau_tau(pl->point), pl->point.ts);
	y += 22;
	static const char *const meaning[4][2] = {
	        {"faster than x at every L", NULL},
	        {"slower than x at every L", NULL},
	        {"slower than x for short L; faster",
	         "for L > L* if below the dashes"},
	        {"faster than x for short L; slower",
	         "for L > L* if above the dashes"}};
	for (int r = 0; r < 4; r++) {
		tb_printf(
		        b,
		        "<rect x=\"%d\" y=\"%.2f\" width=\"22\" height=\"13\" "
		        "fill=\"%s\" fill-opacity=\"0.25\"/>\n"
		        "<text x=\"%d\" y=\"%.2f\" text-anchor=\"middle\" "
		        "font-weight=\"bold\" fill=\"%s\">%s</text>\n"
		        "<text x=\"%d\" y=\"%.2f\">%s</text>\n",
		        lx, y - 10, region_fill[r + 1], lx + 11, y,
		        region_fill[r + 1],
		        tau_region_name((enum tau_region)(r + 1)), lx + 30, y,
		        meaning[r][0]);
		if (meaning[r][1]) {
			y += 14;
			tb_printf(b, "<text x=\"%d\" y=\"%.2f\">%s</text>\n",
			            lx + 30, y, meaning[r][1]);
		}
		y += 19;
	}
	tb_printf(b,
	            "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" "
	            "stroke=\"#333\" stroke-width=\"1.1\" "
	            "stroke-dasharray=\"6 4\"/>\n"
	            "<text x=\"%d\" y=\"%.2f\">T_n = T_n(x) = %.4g "
	            "\xc2\xb5s/byte</text>\n",
	            lx, y - 4, lx + 22, y - 4, lx + 30, y, pl->point.tn);
	y += 22;
	tb_printf(b,
	            "<text x=\"%d\" y=\"%.2f\" fill=\"#444\">L* = (T_s - "
	            "T_s(x)) / (T_n(x) - T_n)</text>\n"
	            "<text x=\"%d\" y=\"%.2f\" fill=\"#444\">(001 eq. "
	            "5.5)</text>\n",
	            lx, y, lx, y + 14);
}

int tau_plot_svg(const struct tau_plot *pl, char **svg, size_t *len, char *err,
                 size_t errlen)
{
	const struct plot_page *pg = &tau_page;
	bool kinds[3] = {false, false, false};
	if (pl->nitems == 0 && !pl->has_point) {
		snprintf(err, errlen, "nothing to plot");
		return CCP_EINVAL;
	}
	/* ranges over the items and the point */
	double tmin = INFINITY, tmax = -INFINITY, smin = INFINITY,
	       smax = -INFINITY;
	for (size_t i = 0; i <= pl->nitems; i++) {
		struct tau_line l;
		const char *name;
		if (i < pl->nitems) {
			l = pl->items[i].line;
			name = pl->items[i].label ? pl->items[i].label : "?";
		} else if (pl->has_point) {
			l = pl->point;
			name = pl->point_label ? pl->point_label : "the point";
		} else {
			break;
		}
		if (!(l.ts > 0) || !(l.tn >= 0) || !isfinite(l.ts) ||
		    !isfinite(l.tn)) {
			snprintf(err, errlen,
			         "%s: the tau-plot needs T_s > 0 and T_n >= 0, "
			         "got T_s %g, T_n %g",
			         name, l.ts, l.tn);
			return CCP_EINVAL;
		}
		double t = tau_tau(l);
		if (!pl->linear && t <= 0) {
			snprintf(err, errlen,
			         "%s: T_n = 0 puts tau = 0 outside log axes; "
			         "use linear axes",
			         name);
			return CCP_EINVAL;
		}
		tmin = fmin(tmin, t);
		tmax = fmax(tmax, t);
		smin = fmin(smin, l.ts);
		smax = fmax(smax, l.ts);
	}
	struct plot_axis ax = {0, 0, !pl->linear, false, pg->left, pg->right};
	struct plot_axis ay = {0, 0, !pl->linear, false, pg->bottom, pg->top};
	plot_fit(&ax, tmin, tmax);
	plot_fit(&ay, smin, smax);

	struct tbuf b = {NULL, 0, 0, 0};
	struct plot_boxes used = {NULL, 0, 0};
	plot_begin(&b, pg, pl->title ? pl->title : "tau-plot", pl->desc,
	           pl->title);
	plot_ticks(&b, pg, &ax, false);
	plot_ticks(&b, pg, &ay, true);
	double px = 0, py = 0;
	tb_printf(&b, "<g clip-path=\"url(#plotarea)\">\n");
	if (pl->has_point) {
		px = plot_map(&ax, tau_tau(pl->point));
		py = plot_map(&ay, pl->point.ts);
		draw_regions(&b, px, py, &used);
		draw_iso_tn(&b, &ax, &ay, pl->point.tn);
	}
	/* series as polylines, under the markers */
	for (size_t s = 1; s <= pl->nseries; s++) {
		bool open = false;
		for (size_t i = 0; i < pl->nitems; i++) {
			const struct tau_item *it = &pl->items[i];
			if (it->series != (int)s)
				continue;
			if (!open)
				tb_printf(
				        &b,
				        "<polyline fill=\"none\" stroke=\"%s\" "
				        "stroke-width=\"1.5\" points=\"",
				        item_color(it));
			open = true;
			tb_printf(&b, "%.2f,%.2f ",
			            plot_map(&ax, tau_tau(it->line)),
			            plot_map(&ay, it->line.ts));
		}
		if (open)
			tb_printf(&b, "\"/>\n");
	}
	for (size_t i = 0; i < pl->nitems; i++) {
		const struct tau_item *it = &pl->items[i];
		double x = plot_map(&ax, tau_tau(it->line));
		double y = plot_map(&ay, it->line.ts);
		plot_marker(&b, mark_shape(it->mark), x, y, item_color(it));
		plot_keep(&b, &used,
		          (struct plot_box){x - 5, y - 5, x + 5, y + 5});
		if (it->series == 0 && (unsigned)it->mark < 3)
			kinds[it->mark] = true;
	}
	if (pl->has_point) {
		draw_x(&b, px, py);
		plot_keep(&b, &used,
		          (struct plot_box){px - 8, py - 8, px + 8, py + 8});
	}
	tb_printf(&b, "</g>\n");
	/* labels: every single point, and the last point of each series */
	for (size_t i = 0; i < pl->nitems; i++) {
		const struct tau_item *it = &pl->items[i];
		bool last = true;
		for (size_t j = i + 1; it->series > 0 && j < pl->nitems; j++)
			if (pl->items[j].series == it->series)
				last = false;
		if (!it->label || (it->series > 0 && !last))
			continue;
		plot_label(&b, pg, it->label, plot_map(&ax, tau_tau(it->line)),
		           plot_map(&ay, it->line.ts), &used);
	}
	char xt[96], yt[64];
	snprintf(xt, sizeof xt,
	         "\xcf\x84 = T_n / T_s  (1/byte, %s scale)",
	         ax.log ? "log" : "linear");
	snprintf(yt, sizeof yt, "T_s  (\xc2\xb5s, %s scale)",
	         ay.log ? "log" : "linear");
	plot_frame(&b, pg, xt, yt);
	draw_legend(&b, pl, kinds);
	plot_end(&b);
	free(used.v);
	return plot_finish(&b, svg, len, err, errlen);
}
