/*
 * report.c - the latency plot of `ccplan compare --svg` and the HTML
 * report of `ccplan explain --html` (report.h, docs/report.md).
 *
 * The plot re-runs the comparison at every size of a sweep: each
 * candidate's plan is generated again for that size, verified and timed
 * the way compare ranked it (model or simulator), so the picture is the
 * table of compare at many sizes, and the vertical lines mark where its
 * first row would change.  The report puts the explain text, show's
 * pictures and that plot in one page a browser opens without a network:
 * CSS and SVG inline, nothing to run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explain.h"
#include "plot.h"
#include "report.h"
#include "show.h"

/* ---- sizes ---------------------------------------------------------- */

/* One size (front_parse_size: 8, 4K, 1MiB); -1 if malformed. */
static int64_t parse_one(const char *a, size_t n)
{
	char buf[32];
	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, a, n);
	buf[n] = '\0';
	return front_parse_size(buf, REPORT_MAX_BYTES);
}

int report_parse_sizes(const char *arg, struct report_sizes *s, char *err,
                       size_t errlen)
{
	const char *colon = strchr(arg, ':');
	if (!colon) {
		snprintf(err, errlen, "want MIN:MAX, e.g. 8:1M");
		return CCP_EINVAL;
	}
	int64_t lo = parse_one(arg, (size_t)(colon - arg));
	int64_t hi = parse_one(colon + 1, strlen(colon + 1));
	if (lo < 1 || hi < 1) {
		snprintf(err, errlen,
		         "want MIN:MAX, two sizes from 1 to 1G (K, M, G "
		         "suffixes), e.g. 8:1M");
		return CCP_EINVAL;
	}
	if (lo > hi) {
		snprintf(err, errlen, "MIN %lld is above MAX %lld",
		         (long long)lo, (long long)hi);
		return CCP_EINVAL;
	}
	int n = 0;
	for (int64_t v = lo; v <= hi; v *= 2)
		n++;
	if (n > REPORT_MAX_SIZES) {
		snprintf(err, errlen,
		         "%d sizes from %lld to %lld; at most %d (every "
		         "size is a new plan per algorithm)",
		         n, (long long)lo, (long long)hi, REPORT_MAX_SIZES);
		return CCP_EINVAL;
	}
	s->min = lo;
	s->max = hi;
	s->given = true;
	return 0;
}

/* bytes as "512 B", "1.5 KiB", "2 MiB". */
static void fmt_bytes(double v, char *buf, size_t len)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB"};
	int u = 0;
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f B", v);
	else
		snprintf(buf, len, "%.3g %s", v, unit[u]);
}

/* ---- the sweep ------------------------------------------------------ */

/* Whether the input can have bytes as its size (the checks of the front
 * end that depend on it). */
static bool size_fits(const struct front_input *in, int64_t bytes)
{
	const ir_comm *c = &in->comm;
	if (c->coll == IR_BCAST && c->segments > bytes)
		return false;
	if (ir_coll_kind(c->coll) & IR_CK_REDUCES) {
		size_t e = ir_dtype_size(c->dtype);
		if (e && bytes % (int64_t)e)
			return false;
	}
	return bytes <=
	       INT64_MAX / (in->machine.nranks ? in->machine.nranks : 1);
}

/* g's time for in with bytes as its size, by the model or the simulator;
 * NaN with the reason in why if there is none.  CCP_ENOMEM only as a
 * return. */
static int time_at(const struct front_input *in, const struct sch_generator *g,
                   int64_t bytes, bool by_model, double *us, char *why,
                   size_t len)
{
	struct front_input at = *in; /* shallow: not an irregular pattern */
	ir_plan p;
	ir_report r;
	*us = NAN;
	at.comm.bytes = bytes;
	if (!size_fits(in, bytes)) {
		snprintf(why, len, "%lld bytes do not fit the communication",
		         (long long)bytes);
		return 0;
	}
	if (sch_applies(g, &at.machine, &at.comm, why, len) != 0)
		return 0;
	int rc = compile_generate(&at, g, &p, &r, why, len);
	if (rc)
		return rc == CCP_ENOMEM ? rc : 0;
	if (by_model) {
		enum model_kind k;
		*us = select_predict(&p, &r, &k, why, len);
	} else {
		struct model_sim s;
		rc = model_simulate(&p, NULL, &s, why, len);
		if (rc == 0) {
			*us = s.max_us;
			model_sim_fini(&s);
		}
	}
	ir_plan_fini(&p);
	ir_report_fini(&r);
	return rc == CCP_ENOMEM ? rc : 0;
}

/* The fastest candidate at size index i, keeping prev when it is as fast
 * as the fastest (so equal curves do not flicker); -1 if none has a
 * time. */
static int fastest(const struct report_sweep *s, size_t i, int prev)
{
	int best = -1;
	for (size_t a = 0; a < s->nalgs; a++)
		if (!isnan(s->us[a][i]) &&
		    (best < 0 || s->us[a][i] < s->us[best][i]))
			best = (int)a;
	if (best >= 0 && prev >= 0 && !isnan(s->us[prev][i]) &&
	    s->us[prev][i] <= s->us[best][i] * (1 + 1e-9))
		best = prev;
	return best;
}

void report_cross_at(const struct report_cross *c, char *buf, size_t len)
{
	fmt_bytes(c->at, buf, len);
}

/* Where the fastest changes between two neighbouring sizes: the curves
 * of the two meet where log(t_from / t_to) crosses zero, interpolated
 * linearly in log size (the geometric middle when either lacks a time at
 * one end). */
static void find_crossovers(struct report_sweep *s)
{
	int prev = -1;
	size_t pi = 0;
	s->ncross = 0;
	for (size_t i = 0; i < s->nsizes; i++) {
		int b = fastest(s, i, prev);
		if (b < 0)
			continue;
		if (prev >= 0 && b != prev && s->ncross < REPORT_MAX_SIZES) {
			struct report_cross *c = &s->cross[s->ncross++];
			c->from = (size_t)prev;
			c->to = (size_t)b;
			c->lo = s->sizes[pi];
			c->hi = s->sizes[i];
			double la = log((double)c->lo), lb = log((double)c->hi);
			double d0 = log(s->us[prev][pi] / s->us[b][pi]);
			double d1 = log(s->us[prev][i] / s->us[b][i]);
			double t = 0.5;
			if (!isnan(d0) && !isnan(d1) && d1 - d0 != 0)
				t = -d0 / (d1 - d0);
			if (!(t >= 0 && t <= 1))
				t = 0.5;
			c->at = exp(la + t * (lb - la));
		}
		prev = b;
		pi = i;
	}
}

/* Seconds on a monotonic clock. */
static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Time every candidate at size index i, counting the times found in
 * *timed and keeping a reason for a missing one in out->why (one that
 * says why the input has no time rather than why a size does not fit,
 * when there is one). */
static int sweep_size(const struct front_input *in, struct report_sweep *out,
                      size_t i, size_t *timed)
{
	for (size_t a = 0; a < out->nalgs; a++) {
		char why[256] = "";
		bool fits = size_fits(in, out->sizes[i]);
		int rc = time_at(in, out->algs[a], out->sizes[i], out->by_model,
		                 &out->us[a][i], why, sizeof why);
		if (rc)
			return rc;
		if (!isnan(out->us[a][i])) {
			(*timed)++;
		} else if (!out->why[0] || (fits && !out->why_fits)) {
			snprintf(out->why, sizeof out->why,
			         "%s at %lld bytes: %.160s",
			         out->algs[a]->name, (long long)out->sizes[i],
			         why);
			out->why_fits = fits;
		}
	}
	return 0;
}

int report_sweep_run(const struct front_input *in,
                     const struct select_result *sr,
                     const struct report_sizes *sz, struct report_sweep *out,
                     char *err, size_t errlen)
{
	struct report_sizes def = {REPORT_MIN_DEFAULT, REPORT_MAX_DEFAULT,
	                           false};
	if (!sz)
		sz = &def;
	memset(out, 0, sizeof *out);
	if (in->comm.coll == IR_IRREGULAR || in->comm.matrix) {
		snprintf(err, errlen,
		         "an irregular pattern has no message size to vary");
		return CCP_EINVAL;
	}
	out->by_model = sr->by_model;
	out->model = sr->model;
	for (int64_t v = sz->min;
	     v <= sz->max && out->nsizes < REPORT_MAX_SIZES; v *= 2)
		out->sizes[out->nsizes++] = v;
	for (size_t i = 0; i < sr->n; i++) {
		if (sr->rows[i].rc)
			continue;
		if (out->nalgs < REPORT_MAX_ALGS)
			out->algs[out->nalgs++] = sr->rows[i].g;
		out->ranked++;
	}
	if (out->nalgs == 0) {
		snprintf(err, errlen, "no algorithm made a verified plan");
		return CCP_EINVAL;
	}
	/* both ends first: their cost decides whether a default sweep
	 * keeps every size */
	size_t n = out->nsizes, timed = 0;
	double t0 = now_s();
	int rc = sweep_size(in, out, 0, &timed);
	if (rc == 0 && n > 1)
		rc = sweep_size(in, out, n - 1, &timed);
	double each = (now_s() - t0) / (n > 1 ? 2 : 1);
	out->stride = 1;
	if (rc == 0 && !sz->given && each * (double)n > REPORT_BUDGET_S) {
		out->stride = (int)ceil(each * (double)n / REPORT_BUDGET_S);
		size_t m = 0;
		for (size_t i = 0; i < n; i++) {
			if (i % (size_t)out->stride && i != n - 1)
				continue;
			out->sizes[m] = out->sizes[i];
			for (size_t a = 0; a < out->nalgs; a++)
				out->us[a][m] = out->us[a][i];
			m++;
		}
		out->nsizes = n = m;
	}
	for (size_t i = 1; rc == 0 && i + 1 < n; i++)
		rc = sweep_size(in, out, i, &timed);
	if (rc) {
		snprintf(err, errlen, "%s", ccp_strerror(rc));
		return rc;
	}
	if (timed == 0) {
		snprintf(err, errlen, "no time at any size: %s", out->why);
		return CCP_EINVAL;
	}
	find_crossovers(out);
	return 0;
}

/* ---- the plot ------------------------------------------------------- */

/* What the size means for this communication, for the x axis. */
static const char *size_meaning(const ir_comm *c)
{
	switch (c->coll) {
	case IR_BCAST:
		return "message size";
	case IR_REDUCE:
		return "vector size";
	case IR_SCATTER:
	case IR_GATHER:
		return "bytes per rank";
	default:
		return "bytes per block";
	}
}

int report_sweep_svg(const struct report_sweep *s, const struct front_input *in,
                     const char *name, struct tbuf *out, char *err,
                     size_t errlen)
{
	double x[REPORT_MAX_SIZES];
	struct plot_series se[REPORT_MAX_ALGS];
	struct plot_vline vl[REPORT_MAX_SIZES];
	char labels[REPORT_MAX_SIZES][96];
	for (size_t i = 0; i < s->nsizes; i++)
		x[i] = (double)s->sizes[i];
	for (size_t a = 0; a < s->nalgs; a++)
		se[a] = (struct plot_series){s->algs[a]->name, x, s->us[a],
		                             s->nsizes};
	for (size_t k = 0; k < s->ncross; k++) {
		char at[32];
		report_cross_at(&s->cross[k], at, sizeof at);
		snprintf(labels[k], sizeof labels[k], "%s \xe2\x86\x92 %s  %s",
		         s->algs[s->cross[k].from]->name,
		         s->algs[s->cross[k].to]->name, at);
		vl[k] = (struct plot_vline){s->cross[k].at, labels[k]};
	}
	char title[512], xt[96], yt[128], mach[256], n_in[400], n_time[160],
	        n_cut[160], n_cross[160], desc[640];
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	snprintf(title, sizeof title, "%s: latency against %s", base,
	         size_meaning(&in->comm));
	snprintf(xt, sizeof xt, "%s (bytes, log scale)",
	         size_meaning(&in->comm));
	if (s->by_model)
		snprintf(yt, sizeof yt,
		         "predicted time, %s model (\xc2\xb5s, log scale)",
		         model_kind_name(s->model));
	else
		snprintf(yt, sizeof yt,
		         "simulated time, last delivery (\xc2\xb5s, log "
		         "scale)");
	explain_machine(&in->machine, mach, sizeof mach);
	char insize[32];
	fmt_bytes((double)in->comm.bytes, insize, sizeof insize);
	snprintf(n_in, sizeof n_in, "%s, %s; the input's size is %s",
	         ir_coll_name(in->comm.coll), mach, insize);
	snprintf(n_time, sizeof n_time, "%s",
	         s->by_model ? "times by the cost model (ccplan compare "
	                       "--model)"
	                     : "times by the network simulator, no phase "
	                       "barriers (ccplan compare)");
	snprintf(n_cross, sizeof n_cross,
	         "dashed lines: where the fastest algorithm changes");
	snprintf(n_cut, sizeof n_cut,
	         "the first %zu of %zu ranked algorithms are drawn", s->nalgs,
	         s->ranked);
	char n_stride[160];
	snprintf(n_stride, sizeof n_stride,
	         "sizes: every %s power of two, to keep the sweep short "
	         "(--sizes draws every one)",
	         s->stride == 2   ? "second"
	         : s->stride == 3 ? "third"
	                          : "k-th");
	if (s->stride > 3)
		snprintf(n_stride, sizeof n_stride,
		         "sizes: every %dth power of two, to keep the sweep "
		         "short (--sizes draws every one)",
		         s->stride);
	const char *notes[5] = {n_in, n_time};
	size_t nnotes = 2;
	if (s->ncross)
		notes[nnotes++] = n_cross;
	if (s->ranked > s->nalgs)
		notes[nnotes++] = n_cut;
	if (s->stride > 1)
		notes[nnotes++] = n_stride;
	snprintf(desc, sizeof desc,
	         "made by ccplan %s: %zu algorithms at %zu sizes from %lld "
	         "to %lld bytes; %zu crossovers",
	         CCPLAN_VERSION, s->nalgs, s->nsizes, (long long)s->sizes[0],
	         (long long)s->sizes[s->nsizes - 1], s->ncross);
	struct plot_lines pl = {
	        .title = title,
	        .desc = desc,
	        .xtitle = xt,
	        .ytitle = yt,
	        .xlog = true,
	        .ylog = true,
	        .xbinary = true,
	        .series = se,
	        .nseries = s->nalgs,
	        .vlines = vl,
	        .nvlines = s->ncross,
	        .notes = notes,
	        .nnotes = nnotes,
	};
	char *svg = NULL;
	size_t len = 0;
	int rc = plot_lines_svg(&pl, &svg, &len, err, errlen);
	if (rc)
		return rc;
	tb_printf(out, "%s", svg);
	free(svg);
	if (out->nomem) {
		snprintf(err, errlen, "%s", ccp_strerror(CCP_ENOMEM));
		return CCP_ENOMEM;
	}
	return 0;
}

/* ---- the HTML report ------------------------------------------------ */

void report_html_text(struct tbuf *out, const char *s)
{
	while (s && *s) {
		size_t run = strcspn(s, "&<>\"'");
		if (run)
			tb_printf(out, "%.*s", (int)run, s);
		s += run;
		switch (*s) {
		case '&':
			tb_printf(out, "&amp;");
			break;
		case '<':
			tb_printf(out, "&lt;");
			break;
		case '>':
			tb_printf(out, "&gt;");
			break;
		case '"':
			tb_printf(out, "&quot;");
			break;
		case '\'':
			tb_printf(out, "&#39;");
			break;
		default:
			return;
		}
		s++;
	}
}

/* Whether the text at p (inside t) starts with w, following a space or
 * ':' (the start of an attribute name) when space is asked for. */
static bool at_word(const char *t, const char *p, const char *w, bool space)
{
	if (strncmp(p, w, strlen(w)) != 0)
		return false;
	return !space || (p > t && (p[-1] == ' ' || p[-1] == '\n' ||
	                            p[-1] == '\t' || p[-1] == ':'));
}

/* Copy text from p up to (not including) end, with url(#x) given the
 * prefix pre. */
static void copy_urls(struct tbuf *out, const char *p, const char *end,
                      const char *pre)
{
	while (p < end) {
		const char *u = strstr(p, "url(#");
		if (!u || u >= end) {
			tb_printf(out, "%.*s", (int)(end - p), p);
			return;
		}
		tb_printf(out, "%.*surl(#%s", (int)(u - p), p, pre);
		p = u + 5;
	}
}

/* The CSS of a <style> element from p to its </style>, every rule's
 * selectors put under the picture's root "#<pre>root" so that its rules
 * style that picture alone (a style sheet in an inline SVG applies to
 * the whole page).  At-rules are copied as they are.  Returns where the
 * CSS ends. */
static const char *scope_css(struct tbuf *out, const char *p, const char *pre)
{
	const char *end = strstr(p, "</style>");
	if (!end)
		end = p + strlen(p);
	while (p < end) {
		size_t ws = strspn(p, " \t\r\n");
		if (ws) {
			tb_printf(out, "%.*s", (int)ws, p);
			p += ws;
			continue;
		}
		const char *open = memchr(p, '{', (size_t)(end - p));
		if (!open) { /* a stray tail */
			copy_urls(out, p, end, pre);
			break;
		}
		const char *close = open + 1;
		if (*p == '@') { /* an at-rule: its whole (nested) block */
			int depth = 1;
			while (close < end && depth > 0) {
				depth += *close == '{';
				depth -= *close == '}';
				close++;
			}
			copy_urls(out, p, close, pre);
			p = close;
			continue;
		}
		while (close < end && *close != '}')
			close++;
		if (close < end)
			close++;
		/* selectors p..open, split at commas */
		for (const char *q = p; q < open;) {
			const char *comma = memchr(q, ',', (size_t)(open - q));
			const char *e = comma ? comma : open;
			const char *a = q, *b = e;
			while (a < b && strchr(" \t\r\n", *a))
				a++;
			while (b > a && strchr(" \t\r\n", b[-1]))
				b--;
			tb_printf(out, "%s#%sroot %.*s", q == p ? "" : ",", pre,
			          (int)(b - a), a);
			q = comma ? comma + 1 : open;
		}
		copy_urls(out, open, close, pre);
		p = close;
	}
	return end;
}

/* Append the SVG document svg to out as an inline <svg> element with the
 * id "<pre>root": the XML declaration and anything else before <svg
 * dropped, every id (id="x", url(#x), href="#x") given the prefix pre,
 * and its style sheet scoped to it, so that the pictures of one page
 * cannot take each other's clip paths, markers or styles. */
static void embed_svg(struct tbuf *out, const char *svg, const char *pre)
{
	const char *p = strstr(svg, "<svg");
	if (!p)
		return;
	const char *t = p, *tag = p;
	tb_printf(out, "<svg id=\"%sroot\"", pre);
	p += 4;
	bool in_tag = true;
	while (*p) {
		size_t run = strcspn(p, in_tag ? ">iuh" : "<");
		if (run)
			tb_printf(out, "%.*s", (int)run, p);
		p += run;
		if (!*p)
			break;
		if (!in_tag) { /* '<' */
			in_tag = true;
			tag = p;
			tb_printf(out, "<");
			p++;
		} else if (*p == '>') {
			in_tag = false;
			tb_printf(out, ">");
			p++;
			if (strncmp(tag, "<style", 6) == 0 && p[-2] != '/')
				p = scope_css(out, p, pre);
		} else if (at_word(t, p, "id=\"", true)) {
			tb_printf(out, "id=\"%s", pre);
			p += 4;
		} else if (at_word(t, p, "url(#", false)) {
			tb_printf(out, "url(#%s", pre);
			p += 5;
		} else if (at_word(t, p, "href=\"#", true)) {
			tb_printf(out, "href=\"#%s", pre);
			p += 7;
		} else {
			tb_printf(out, "%c", *p++);
		}
	}
	tb_printf(out, "\n");
}

static const char report_css[] =
        "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;"
        "color:#222;background:#fff;max-width:1060px;margin:20px auto;"
        "padding:0 16px;font-size:14px;line-height:1.4}\n"
        "h1{font-size:22px;margin:0 0 4px}\n"
        "h2{font-size:17px;border-bottom:1px solid #ccc;"
        "padding-bottom:3px;margin:28px 0 10px}\n"
        ".sub{color:#555;margin:0 0 10px}\n"
        "nav a{margin-right:14px;color:#1f3b73}\n"
        "pre{background:#f6f6f6;border:1px solid #ddd;padding:10px;"
        "white-space:pre-wrap;overflow-wrap:anywhere;"
        "font-size:12px;line-height:1.35;overflow-x:auto}\n"
        "figure{margin:10px 0}\n"
        "figure svg{display:block;max-width:100%;height:auto;"
        "border:1px solid #e4e4e4}\n"
        "figcaption{color:#555;font-size:12px;margin-top:4px}\n"
        "details{margin:4px 0}\n"
        "summary{cursor:pointer;color:#1f3b73}\n"
        "table{border-collapse:collapse;font-size:13px}\n"
        "th,td{padding:3px 10px;text-align:right;"
        "border-bottom:1px solid #e4e4e4}\n"
        "th{background:#eef0f4}\n"
        ".l{text-align:left}\n"
        "tr.this td{background:#fff3c4;font-weight:bold}\n"
        ".note{color:#666;font-style:italic}\n";

/* Largest picture text the page takes: the overview, and all the
 * per-phase pictures together. */
#define OVERVIEW_MAX (16u << 20)
#define PHASES_MAX   (8u << 20)
#define PHASES_SHOWN 256

static void note(struct tbuf *out, const char *what, const char *why)
{
	tb_printf(out, "<p class=\"note\">");
	report_html_text(out, what);
	if (why && why[0]) {
		tb_printf(out, ": ");
		report_html_text(out, why);
	}
	tb_printf(out, "</p>\n");
}

/* The explain text, as `ccplan explain FILE` prints it. */
static int html_explain(struct tbuf *out, const struct compiled *c,
                        const char *name)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		return CCP_ENOMEM;
	fprintf(mem, "plan        %s\n", name);
	int rc = explain_plan(c, mem);
	if (rc == 0)
		rc = explain_placement(c, mem);
	fclose(mem);
	if (rc == 0) {
		tb_printf(out, "<h2 id=\"explain\">Explain</h2>\n<pre>");
		report_html_text(out, text);
		tb_printf(out, "</pre>\n");
	}
	free(text);
	return rc;
}

/* The pictures: every phase at once, then each phase on its own, folded
 * (a <details> each), as far as the size limits go. */
static int html_phases(struct tbuf *out, const struct compiled *c,
                       const char *name)
{
	const ir_plan *p = &c->plan;
	char err[256] = "", pre[32];
	tb_printf(out, "<h2 id=\"phases\">Phases</h2>\n");
	struct tbuf pic = {0};
	struct show_opts o = {.phase = -1, .title = name};
	int rc = show_svg(p, &o, &pic, err, sizeof err);
	if (rc == CCP_ENOMEM || pic.nomem) {
		free(pic.p);
		return CCP_ENOMEM;
	}
	if (rc) {
		note(out, "no picture of the phases", err);
		free(pic.p);
		return 0;
	}
	if (pic.len > OVERVIEW_MAX) {
		note(out,
		     "the picture of every phase is too large for the "
		     "page; ccplan show draws it",
		     NULL);
	} else {
		tb_printf(out, "<figure>\n");
		embed_svg(out, pic.p, "all-");
		tb_printf(out, "<figcaption>every phase, in order: "
		               "transfers along their routes</figcaption>\n"
		               "</figure>\n");
	}
	free(pic.p);
	size_t total = 0;
	uint32_t k = 0;
	for (; k < p->nphases && k < PHASES_SHOWN && total <= PHASES_MAX; k++) {
		struct tbuf one = {0};
		char title[64];
		snprintf(title, sizeof title, "phase %u of %u", k, p->nphases);
		o.phase = (int)k;
		o.title = title;
		rc = show_svg(p, &o, &one, err, sizeof err);
		if (rc == CCP_ENOMEM || one.nomem) {
			free(one.p);
			return CCP_ENOMEM;
		}
		const ir_phase *ph = &p->phases[k];
		tb_printf(out,
		          "<details><summary>phase %u: %u transfer%s"
		          "</summary>\n",
		          k, ph->ntransfers, ph->ntransfers == 1 ? "" : "s");
		if (rc) {
			note(out, "no picture", err);
		} else {
			snprintf(pre, sizeof pre, "p%u-", k);
			tb_printf(out, "<figure>\n");
			embed_svg(out, one.p, pre);
			tb_printf(out, "</figure>\n");
			total += one.len;
		}
		tb_printf(out, "</details>\n");
		free(one.p);
	}
	if (k < p->nphases) {
		char why[128];
		snprintf(why, sizeof why,
		         "phases %u to %u are left out to keep the page small; "
		         "ccplan show --phase N draws any of them",
		         k, p->nphases - 1);
		note(out, why, NULL);
	}
	return 0;
}

/* "-" for NaN, else two decimals. */
static void cell_us(struct tbuf *out, double us)
{
	if (isnan(us))
		tb_printf(out, "<td>-</td>");
	else
		tb_printf(out, "<td>%.2f</td>", us);
}

/* compare's table, and its plot. */
static int html_compare(struct tbuf *out, const struct compiled *c,
                        const char *name, const struct front_input *in,
                        const struct report_sizes *sz)
{
	struct select_result sr;
	char err[512] = "";
	int rc = select_run(in, true, false, &sr);
	if (rc)
		return rc;
	tb_printf(out, "<h2 id=\"compare\">Comparison</h2>\n"
	               "<p>Every algorithm that applies to this machine and "
	               "communication, generated, verified and ranked as "
	               "<code>ccplan compare</code> does.</p>\n"
	               "<table>\n<tr><th>#</th><th class=\"l\">algorithm</th>"
	               "<th>phases</th><th>bound</th><th class=\"l\">contention"
	               "</th><th>model &#181;s</th><th>sim max &#181;s</th>"
	               "<th>sim mean &#181;s</th></tr>\n");
	int ranked = 0;
	for (size_t i = 0; i < sr.n; i++) {
		const struct select_row *r = &sr.rows[i];
		bool mine = strcmp(r->g->name, c->plan.algorithm) == 0;
		tb_printf(out, "<tr%s>", mine ? " class=\"this\"" : "");
		if (r->rc) {
			tb_printf(out, "<td>-</td><td class=\"l\">");
			report_html_text(out, r->g->name);
			tb_printf(out, "</td><td class=\"l\" colspan=\"6\">");
			report_html_text(out, r->why);
			tb_printf(out, "</td></tr>\n");
			continue;
		}
		tb_printf(out, "<td>%d</td><td class=\"l\">", ++ranked);
		report_html_text(out, r->g->name);
		tb_printf(out,
		          "</td><td>%u</td><td>%u</td><td class=\"l\">%s"
		          "</td>",
		          r->report.phases, r->report.lb_phases,
		          r->plan.flags & IR_PLAN_LINK_CONTENTION   ? "link"
		          : r->plan.flags & IR_PLAN_NODE_CONTENTION ? "node"
		                                                    : "none");
		cell_us(out, r->predicted);
		cell_us(out, r->sim_max);
		cell_us(out, r->sim_avg);
		tb_printf(out, "</tr>\n");
	}
	const char *by = select_ranked_by(&sr);
	tb_printf(out, "</table>\n<p>ranked by %s", by);
	if (ranked && strncmp(by, "phases", 6) != 0)
		tb_printf(out, " (%s model)", model_kind_name(sr.model));
	tb_printf(out,
	          "; %d of %zu algorithms that apply made a verified "
	          "plan; the highlighted row is this plan's "
	          "algorithm.</p>\n",
	          ranked, sr.n);
	if (sr.model_why[0])
		note(out, "model", sr.model_why);
	if (sr.sim_why[0])
		note(out, "simulator", sr.sim_why);

	tb_printf(out, "<h2 id=\"latency\">Latency against message "
	               "size</h2>\n");
	struct report_sweep *sw = malloc(sizeof *sw);
	if (!sw) {
		select_fini(&sr);
		return CCP_ENOMEM;
	}
	rc = report_sweep_run(in, &sr, sz, sw, err, sizeof err);
	if (rc == 0) {
		tb_printf(out, "<figure>\n");
		struct tbuf pic = {0};
		rc = report_sweep_svg(sw, in, name, &pic, err, sizeof err);
		if (rc == 0)
			embed_svg(out, pic.p, "lat-");
		free(pic.p);
		tb_printf(out,
		          "<figcaption>each point is a plan generated for "
		          "that size; <code>ccplan compare --svg</code> draws "
		          "the same</figcaption>\n</figure>\n");
	}
	if (rc == CCP_EINVAL) {
		note(out, "no latency plot", err);
		rc = 0;
	}
	free(sw);
	select_fini(&sr);
	return rc;
}

int report_html(const struct compiled *c, const char *name,
                const struct front_input *in, const struct report_sizes *sz,
                struct tbuf *out, char *err, size_t errlen)
{
	const ir_plan *p = &c->plan;
	char mach[256];
	explain_machine(&p->machine, mach, sizeof mach);
	tb_printf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	               "<meta charset=\"utf-8\">\n<title>ccplan report: ");
	report_html_text(out, name);
	tb_printf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>",
	          report_css);
	report_html_text(out, name);
	tb_printf(out, "</h1>\n<p class=\"sub\">");
	report_html_text(out, p->algorithm);
	tb_printf(out, ": %s, %u phases, on ", ir_coll_name(p->comm.coll),
	          p->nphases);
	report_html_text(out, mach);
	tb_printf(out,
	          ". Made by ccplan %s.</p>\n<nav><a href=\"#explain\">"
	          "explain</a><a href=\"#phases\">phases</a>",
	          CCPLAN_VERSION);
	if (in)
		tb_printf(out, "<a href=\"#compare\">comparison</a>"
		               "<a href=\"#latency\">latency</a>");
	tb_printf(out, "</nav>\n");
	int rc = html_explain(out, c, name);
	if (rc == 0)
		rc = html_phases(out, c, name);
	if (rc == 0 && in)
		rc = html_compare(out, c, name, in, sz);
	tb_printf(out, "</body>\n</html>\n");
	if (rc == 0 && out->nomem)
		rc = CCP_ENOMEM;
	if (rc)
		snprintf(err, errlen, "report: %s", ccp_strerror(rc));
	return rc;
}

/* ---- the commands' files -------------------------------------------- */

/* Write out's text to path (atomically), or report its failure. */
static int write_tbuf(struct tbuf *out, const char *path, char *err,
                      size_t errlen)
{
	if (out->nomem) {
		snprintf(err, errlen, "%s", ccp_strerror(CCP_ENOMEM));
		return CCP_ENOMEM;
	}
	return write_atomic(path, out->p ? out->p : "", out->len, err, errlen);
}

int report_sweep_file(const struct front_input *in,
                      const struct select_result *sr, const char *name,
                      const struct report_sizes *sz, const char *path,
                      struct report_sweep *sw, char *err, size_t errlen)
{
	struct tbuf out = {0};
	int rc = report_sweep_run(in, sr, sz, sw, err, errlen);
	if (rc == 0)
		rc = report_sweep_svg(sw, in, name, &out, err, errlen);
	if (rc == 0)
		rc = write_tbuf(&out, path, err, errlen);
	free(out.p);
	return rc;
}

static bool is_yaml(const char *f)
{
	size_t n = strlen(f);
	return (n >= 5 && strcmp(f + n - 5, ".yaml") == 0) ||
	       (n >= 4 && strcmp(f + n - 4, ".yml") == 0);
}

int report_html_file(const struct compiled *c, const char *file,
                     const char *path, char *err, size_t errlen)
{
	struct front_input in;
	bool have_in = false;
	if (is_yaml(file)) {
		struct diag d;
		memset(&d, 0, sizeof d);
		int rc = front_parse_file(file, &in, &d);
		if (rc) {
			snprintf(err, errlen, "%s: %s", file,
			         d.message[0] ? d.message : ccp_strerror(rc));
			return rc;
		}
		have_in = true;
	}
	struct tbuf out = {0};
	int rc = report_html(c, file, have_in ? &in : NULL, NULL, &out, err,
	                     errlen);
	if (rc == 0)
		rc = write_tbuf(&out, path, err, errlen);
	free(out.p);
	if (have_in)
		front_input_fini(&in);
	return rc;
}
