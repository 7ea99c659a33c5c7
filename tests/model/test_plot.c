/*
 * test_plot.c - the SVG plot writer (model/plot.c) and what is built on
 * it in compiler/emit/report.c: the latency plot of `ccplan compare --svg` and
 * the HTML report of `ccplan explain --html`.
 *
 *  - The structure of a line plot: one <g class="series"> per series, one
 *    marker per drawable point, a polyline broken at a gap, one dashed
 *    line and one label per crossover, every text escaped, the whole
 *    document well-formed XML (checked by a small parser here).
 *  - Log axes: decade ticks equally spaced and at the right pixels, the
 *    ticks of a binary axis at powers of two, labelled 512, 1K, 1M; the
 *    x tick labels of a drawn plot equally spaced.
 *  - Labels placed around one point do not cover each other.
 *  - The sweep of a real input (examples/mesh16-auto.yaml): every
 *    candidate timed at every size, and each crossover it reports lies
 *    where the fastest algorithm really changes; its SVG has as many
 *    series and dashed lines; --sizes parsing.
 *  - The report: the sections, no script, ids made unique per picture,
 *    show's style sheet scoped to its picture, the name escaped.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compile.h"
#include "plot.h"
#include "report.h"
#include "select.h"

static size_t count(const char *s, const char *w)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, w)) != NULL; p++)
		n++;
	return n;
}

/* Occurrences of w inside the k-th (0-based) element that starts with
 * open and ends at the first close after it. */
static size_t count_in(const char *s, const char *open, const char *close,
                       int k, const char *w)
{
	const char *p = s;
	for (int i = 0; i <= k; i++) {
		p = strstr(p, open);
		if (!p)
			return 0;
		if (i < k)
			p++;
	}
	const char *e = strstr(p, close);
	size_t n = 0;
	for (const char *q = p; (q = strstr(q, w)) != NULL && q < e; q++)
		n++;
	return n;
}

/* ---- a small XML well-formedness check ---------------------------- */

/* An entity reference at p ("&amp;", "&#181;"): its length, 0 if not. */
static size_t entity(const char *p)
{
	static const char *const names[] = {"&amp;", "&lt;", "&gt;", "&quot;",
	                                    "&apos;"};
	for (int k = 0; k < 5; k++)
		if (strncmp(p, names[k], strlen(names[k])) == 0)
			return strlen(names[k]);
	if (p[1] == '#') {
		size_t n = 2;
		while (p[n] >= '0' && p[n] <= '9')
			n++;
		return n > 2 && p[n] == ';' ? n + 1 : 0;
	}
	return 0;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == ':' || c == '_' ||
	       c == '.';
}

/* Say why in why and return false. */
static bool nope(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return false;
}

/* Whether s is one well-formed element (after an optional XML
 * declaration): tags nest and match, attributes are name="value" with
 * no '<' and only known entities, text has no bare '<' or '&'.  why gets
 * the first problem. */
static bool well_formed(const char *s, char *why, size_t len)
{
	char stack[64][32];
	int depth = 0, roots = 0;
	const char *p = s;
	if (strncmp(p, "<?xml", 5) == 0) {
		p = strstr(p, "?>");
		if (!p)
			return nope(why, len, "open declaration");
		p += 2;
	}
	while (*p) {
		if (*p == '&') {
			if (!entity(p))
				return nope(why, len, "bare & at %.20s", p);
			p += entity(p);
			continue;
		}
		if (*p != '<') {
			if (depth == 0 && *p != '\n' && *p != ' ')
				return nope(why, len,
				            "text outside the root: %.20s", p);
			p++;
			continue;
		}
		bool end = p[1] == '/';
		p += end ? 2 : 1;
		char name[32];
		size_t n = 0;
		while (name_char(*p) && n < sizeof name - 1)
			name[n++] = *p++;
		name[n] = '\0';
		if (n == 0)
			return nope(why, len, "no tag name at %.20s", p);
		if (end) {
			if (depth == 0 || strcmp(stack[depth - 1], name) != 0)
				return nope(why, len, "</%s> closes %s", name,
				            depth ? stack[depth - 1]
				                  : "nothing");
			depth--;
			while (*p == ' ' || *p == '\n')
				p++;
			if (*p++ != '>')
				return nope(why, len, "bad </%s>", name);
			continue;
		}
		for (;;) { /* attributes */
			while (*p == ' ' || *p == '\n' || *p == '\t')
				p++;
			if (*p == '>' || (p[0] == '/' && p[1] == '>'))
				break;
			size_t a = 0;
			while (name_char(p[a]))
				a++;
			if (a == 0 || p[a] != '=' || p[a + 1] != '"')
				return nope(why, len,
				            "bad attribute in <%s>: %.20s",
				            name, p);
			p += a + 2;
			while (*p && *p != '"') {
				if (*p == '<' || (*p == '&' && !entity(p)))
					return nope(
					        why, len,
					        "bad attribute value in <%s>",
					        name);
				p++;
			}
			if (*p++ != '"')
				return nope(why, len, "open attribute");
		}
		if (depth == 0)
			roots++;
		if (*p == '/') {
			p += 2;
			continue;
		}
		p++;
		if (depth == 64)
			return nope(why, len, "too deep");
		snprintf(stack[depth++], sizeof stack[0], "%s", name);
	}
	if (depth || roots != 1)
		return nope(why, len, "%d open elements, %d roots", depth,
		            roots);
	return true;
}

static void test_xml_checker(void **state)
{
	(void)state;
	char why[128];
	assert_true(
	        well_formed("<a x=\"1\"><b/>t &amp; u</a>\n", why, sizeof why));
	assert_false(well_formed("<a><b></a></b>", why, sizeof why));
	assert_false(well_formed("<a>x & y</a>", why, sizeof why));
	assert_false(well_formed("<a x=1></a>", why, sizeof why));
	assert_false(well_formed("<a></a><b></b>", why, sizeof why));
	assert_false(well_formed("<a>", why, sizeof why));
}

/* ---- line plots ---------------------------------------------------- */

static const double xs[6] = {8, 16, 32, 64, 128, 256};

static void test_lines_structure(void **state)
{
	(void)state;
	double y0[6] = {1, 2, 4, 8, 16, 32};
	double y1[6] = {3, 3.5, NAN, 5, 6, 7}; /* a gap: two polylines */
	double y2[4] = {0.5, 1, 10, 100};
	struct plot_series se[3] = {
	        {"a <one> & \"two\"", xs, y0, 6},
	        {"b", xs, y1, 6},
	        {"c", xs, y2, 4},
	};
	struct plot_vline vl[2] = {{20, "a \xe2\x86\x92 b at 20 B"},
	                           {100, "b \xe2\x86\x92 a"}};
	const char *notes[] = {"a note long enough to be broken over more "
	                       "than one line of the legend, at spaces"};
	struct plot_lines pl = {
	        .title = "t <&>",
	        .desc = "d",
	        .xtitle = "bytes",
	        .ytitle = "us",
	        .xlog = true,
	        .ylog = true,
	        .xbinary = true,
	        .series = se,
	        .nseries = 3,
	        .vlines = vl,
	        .nvlines = 2,
	        .notes = notes,
	        .nnotes = 1,
	};
	char *svg = NULL, err[256], why[128] = "";
	size_t len = 0;
	assert_int_equal(plot_lines_svg(&pl, &svg, &len, err, sizeof err), 0);
	assert_int_equal(strlen(svg), len);
	if (!well_formed(svg, why, sizeof why))
		fail_msg("not well-formed: %s", why);
	assert_int_equal(count(svg, "<svg"), 1);
	assert_int_equal(count(svg, "<g class=\"series\">"), 3);
	/* one marker per drawable point: circles, squares, triangles */
	assert_int_equal(
	        count_in(svg, "<g class=\"series\">", "</g>", 0, "<circle"), 6);
	assert_int_equal(
	        count_in(svg, "<g class=\"series\">", "</g>", 1, "<rect"), 5);
	assert_int_equal(
	        count_in(svg, "<g class=\"series\">", "</g>", 2, "<path"), 4);
	assert_int_equal(
	        count_in(svg, "<g class=\"series\">", "</g>", 0, "<polyline"),
	        1);
	assert_int_equal(
	        count_in(svg, "<g class=\"series\">", "</g>", 1, "<polyline"),
	        2);
	/* crossovers: a dashed line and a label each */
	assert_int_equal(count(svg, "<g class=\"vline\">"), 2);
	assert_int_equal(count(svg, "<g class=\"vline-label\">"), 2);
	assert_non_null(strstr(svg, ">a \xe2\x86\x92 b at 20 B<"));
	/* the legend names every series, escaped */
	assert_non_null(strstr(svg, "a &lt;one&gt; &amp; &quot;two&quot;"));
	assert_null(strstr(svg, "<one>"));
	assert_non_null(strstr(svg, "<title>t &lt;&amp;&gt;</title>"));
	assert_true(count_in(svg, "<g class=\"legend\">", "</g>", 0,
	                     "fill=\"#444\"") >= 2); /* the note, broken */
	free(svg);

	/* nothing drawable, or an x a log axis cannot take */
	double nan6[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
	struct plot_series empty = {"e", xs, nan6, 6};
	pl.series = &empty;
	pl.nseries = 1;
	assert_int_equal(plot_lines_svg(&pl, &svg, &len, err, sizeof err),
	                 CCP_EINVAL);
	double xbad[2] = {0, 1}, ybad[2] = {1, 2};
	struct plot_series zero = {"zero-x", xbad, ybad, 2};
	pl.series = &zero;
	assert_int_equal(plot_lines_svg(&pl, &svg, &len, err, sizeof err),
	                 CCP_EINVAL);
	assert_non_null(strstr(err, "zero-x"));
	pl.xlog = false; /* linear axes take x = 0 */
	assert_int_equal(plot_lines_svg(&pl, &svg, &len, err, sizeof err), 0);
	free(svg);
}

/* Two series with the same points would hide each other: the later one
 * is dashed, its group has the class "same", and the legend says which
 * one it equals; a series that differs by more than 0.5% somewhere is
 * drawn solid. */
static void test_same_series(void **state)
{
	(void)state;
	double xs[3] = {1, 2, 4}, ya[3] = {10, 20, 40},
	       yb[3] = {10, 20.05, 40}, yc[3] = {10, 21, 40};
	struct plot_series se[3] = {
	        {"edn", xs, ya, 3}, {"ac", xs, yb, 3}, {"other", xs, yc, 3}};
	struct plot_lines pl = {.series = se, .nseries = 3, .xlog = true};
	char *svg = NULL, err[256], why[128] = "";
	size_t len = 0;
	assert_int_equal(plot_lines_svg(&pl, &svg, &len, err, sizeof err), 0);
	if (!well_formed(svg, why, sizeof why))
		fail_msg("not well-formed: %s", why);
	assert_int_equal(count(svg, "<g class=\"series\">"), 2);
	assert_int_equal(count(svg, "<g class=\"series same\">"), 1);
	/* the series' line and its legend sample are dashed */
	assert_int_equal(count(svg, "stroke-dasharray=\"" PLOT_SAME_DASH),
	                 2);
	assert_non_null(
	        strstr(svg, "ac<tspan class=\"same-as\"> = edn</tspan>"));
	assert_int_equal(count(svg, "same-as"), 1);
	free(svg);
}

/* The x positions of the x axis tick labels (text-anchor middle, on the
 * line under the plot area) of a line plot, in order. */
static int x_tick_labels(const char *svg, double *x, char lab[][16], int max)
{
	char want[64];
	int n = 0;
	snprintf(want, sizeof want, "\" y=\"%d\" text-anchor=\"middle\">",
	         plot_lines_page.bottom + 19);
	for (const char *p = svg; (p = strstr(p, "<text x=\"")) && n < max;
	     p++) {
		const char *q = p + 9;
		char *e;
		double v = strtod(q, &e);
		if (strncmp(e, want, strlen(want)) != 0)
			continue;
		const char *t = e + strlen(want);
		size_t k = strcspn(t, "<");
		snprintf(lab[n], sizeof lab[0], "%.*s", (int)k, t);
		x[n++] = v;
	}
	return n;
}

static void test_log_ticks(void **state)
{
	(void)state;
	double v[64];
	bool major[64];
	/* decimal: 1..1000 on 0..300 px, decades 100 px apart */
	struct plot_axis a = {1, 1000, true, false, 0, 300};
	int n = plot_tick_values(&a, v, major, 64);
	assert_int_equal(n, 28); /* 1..9, 10..90, 100..900, 1000 */
	int nmajor = 0;
	for (int k = 0; k < n; k++) {
		double p = plot_map(&a, v[k]);
		double e = log10(v[k]);
		assert_true(fabs(p - 100 * e) < 1e-9);
		if (major[k])
			nmajor++;
	}
	assert_int_equal(nmajor, 10); /* 1, 2, 5 per decade, and 1000 */
	/* more than three decades: labels at the decades only */
	a.hi = 1e5;
	n = plot_tick_values(&a, v, major, 64);
	nmajor = 0;
	for (int k = 0; k < n; k++)
		if (major[k]) {
			nmajor++;
			assert_true(fabs(log10(v[k]) - round(log10(v[k]))) <
			            1e-12);
		}
	assert_int_equal(nmajor, 6);

	/* binary: 8 B .. 1 MiB, 17 doublings; every power of two a tick,
	 * at most 12 labelled, equally spaced */
	struct plot_axis b = {8, 1 << 20, true, true, 100, 700};
	n = plot_tick_values(&b, v, major, 64);
	assert_int_equal(n, 18);
	nmajor = 0;
	double step = (700.0 - 100.0) / 17;
	for (int k = 0; k < n; k++) {
		assert_true(v[k] == ldexp(1, k + 3));
		assert_true(fabs(plot_map(&b, v[k]) - (100 + k * step)) < 1e-9);
		nmajor += major[k];
	}
	assert_true(nmajor >= 6 && nmajor <= 12);
	char lab[32];
	plot_tick_label(&b, 512, lab, sizeof lab);
	assert_string_equal(lab, "512");
	plot_tick_label(&b, 1024, lab, sizeof lab);
	assert_string_equal(lab, "1K");
	plot_tick_label(&b, 1 << 20, lab, sizeof lab);
	assert_string_equal(lab, "1M");
	plot_tick_label(&b, 65536, lab, sizeof lab);
	assert_string_equal(lab, "64K");
	plot_tick_label(&a, 0.00005, lab, sizeof lab);
	assert_string_equal(lab, "0.00005");
	plot_tick_label(&a, 2e6, lab, sizeof lab);
	assert_string_equal(lab, "2e6");
	plot_tick_label(&a, 250, lab, sizeof lab);
	assert_string_equal(lab, "250");

	/* in a drawn plot: the x labels of a binary axis equally spaced */
	double y[6] = {1, 2, 3, 4, 5, 6};
	struct plot_series se = {"s", xs, y, 6};
	struct plot_lines pl = {.xlog = true,
	                        .ylog = true,
	                        .xbinary = true,
	                        .series = &se,
	                        .nseries = 1};
	char *svg = NULL, err[256];
	size_t len;
	assert_int_equal(plot_lines_svg(&pl, &svg, &len, err, sizeof err), 0);
	double x[32];
	char labs[32][16];
	n = x_tick_labels(svg, x, labs, 32);
	assert_int_equal(n, 6);
	assert_string_equal(labs[0], "8");
	assert_string_equal(labs[5], "256");
	for (int k = 2; k < n; k++)
		assert_true(fabs((x[k] - x[k - 1]) - (x[1] - x[0])) < 0.02);
	/* the data's ends are inside the plot area */
	assert_true(x[0] > plot_lines_page.left);
	assert_true(x[n - 1] < plot_lines_page.right);
	free(svg);
}

static void test_labels_apart(void **state)
{
	(void)state;
	struct tbuf b = {NULL, 0, 0, 0};
	struct plot_boxes used = {NULL, 0, 0};
	const struct plot_page *pg = &plot_lines_page;
	for (int k = 0; k < 6; k++)
		plot_label(&b, pg, "a label", 300, 300, &used);
	assert_int_equal(used.n, 6);
	for (size_t i = 0; i < used.n; i++) {
		assert_true(used.v[i].x0 >= pg->left &&
		            used.v[i].x1 <= pg->right);
		for (size_t j = i + 1; j < used.n; j++)
			assert_true(plot_overlap(&used.v[i], &used.v[j]) == 0);
	}
	char *svg = NULL, err[64];
	size_t len;
	assert_int_equal(plot_finish(&b, &svg, &len, err, sizeof err), 0);
	assert_int_equal(count(svg, "<text"), 6);
	free(svg);
	free(used.v);
}

/* ---- the sweep and the report --------------------------------------- */

static const char *example(const char *name, char *buf, size_t len)
{
	const char *src = getenv("CCPLAN_SOURCE_DIR");
	snprintf(buf, len, "%s/examples/%s", src ? src : "..", name);
	return buf;
}

static void test_sizes(void **state)
{
	(void)state;
	struct report_sizes s;
	char err[256];
	assert_int_equal(report_parse_sizes("8:1M", &s, err, sizeof err), 0);
	assert_true(s.min == 8 && s.max == 1 << 20 && s.given);
	assert_int_equal(report_parse_sizes("1k:4K", &s, err, sizeof err), 0);
	assert_true(s.min == 1024 && s.max == 4096);
	assert_int_equal(report_parse_sizes("1:8M", &s, err, sizeof err), 0);
	assert_int_equal(report_parse_sizes("1:16M", &s, err, sizeof err),
	                 CCP_EINVAL); /* 25 sizes */
	assert_int_equal(report_parse_sizes("64:8", &s, err, sizeof err),
	                 CCP_EINVAL);
	assert_int_equal(report_parse_sizes("0:8", &s, err, sizeof err),
	                 CCP_EINVAL);
	assert_int_equal(report_parse_sizes("8", &s, err, sizeof err),
	                 CCP_EINVAL);
	assert_int_equal(report_parse_sizes("8:2G", &s, err, sizeof err),
	                 CCP_EINVAL);
	assert_int_equal(report_parse_sizes("8:1X", &s, err, sizeof err),
	                 CCP_EINVAL);
}

static void test_sweep(void **state)
{
	(void)state;
	char path[4096], err[512];
	struct front_input in;
	struct diag d;
	memset(&d, 0, sizeof d);
	assert_int_equal(
	        front_parse_file(example("mesh16-auto.yaml", path, sizeof path),
	                         &in, &d),
	        0);
	struct select_result sr;
	assert_int_equal(select_run(&in, true, false, &sr), 0);
	assert_false(sr.by_model);
	struct report_sweep *sw = malloc(sizeof *sw);
	assert_non_null(sw);
	struct report_sizes sz = {8, 1 << 20, true};
	assert_int_equal(report_sweep_run(&in, &sr, &sz, sw, err, sizeof err),
	                 0);
	assert_int_equal(sw->nsizes, 18);
	assert_int_equal(sw->stride, 1);
	assert_int_equal(sw->nalgs, 10); /* the broadcasts that apply */
	for (size_t a = 0; a < sw->nalgs; a++) {
		assert_ptr_equal(sw->algs[a], sr.rows[a].g);
		for (size_t i = 0; i < sw->nsizes; i++)
			assert_true(sw->us[a][i] > 0);
		/* longer messages take longer: a hundredfold for the
		 * trees, which carry the whole message every phase; the
		 * scatter-then-allgather's n - 1 ring phases cost alpha
		 * each at 8 bytes, and it carries each piece once, as the
		 * pipelined chain does */
		bool sa = !strcmp(sw->algs[a]->name, "scatter_allgather") ||
		          !strcmp(sw->algs[a]->name, "chain");
		assert_true(sw->us[a][sw->nsizes - 1] >
		            (sa ? 10 : 100) * sw->us[a][0]);
	}
	/* which is why a pipeline is the fastest at 1 MiB: the chain, its
	 * 64 KiB-or-costed segments ahead of scatter_allgather's 256 */
	size_t best = 0, sa = 0;
	for (size_t a = 1; a < sw->nalgs; a++) {
		if (sw->us[a][sw->nsizes - 1] < sw->us[best][sw->nsizes - 1])
			best = a;
		if (!strcmp(sw->algs[a]->name, "scatter_allgather"))
			sa = a;
	}
	assert_string_equal(sw->algs[best]->name, "chain");
	for (size_t a = 0; a < sw->nalgs; a++)
		if (a != best && a != sa)
			assert_true(sw->us[sa][sw->nsizes - 1] <
			            sw->us[a][sw->nsizes - 1]);
	/* the input's own size (1024) is a sweep size: its times are the
	 * comparison's */
	assert_true(sw->sizes[7] == 1024);
	for (size_t a = 0; a < sw->nalgs; a++)
		assert_true(fabs(sw->us[a][7] - sr.rows[a].sim_max) < 1e-9);
	/* every crossover: `from` is the fastest at lo, `to` at hi */
	assert_true(sw->ncross >= 1);
	for (size_t k = 0; k < sw->ncross; k++) {
		const struct report_cross *c = &sw->cross[k];
		size_t lo = 0, hi = 0;
		for (size_t i = 0; i < sw->nsizes; i++) {
			if (sw->sizes[i] == c->lo)
				lo = i;
			if (sw->sizes[i] == c->hi)
				hi = i;
		}
		assert_true(hi == lo + 1);
		assert_true(c->at >= (double)c->lo && c->at <= (double)c->hi);
		for (size_t a = 0; a < sw->nalgs; a++) {
			assert_true(sw->us[c->from][lo] <= sw->us[a][lo]);
			assert_true(sw->us[c->to][hi] <= sw->us[a][hi]);
		}
		assert_true(sw->us[c->to][hi] < sw->us[c->from][hi]);
	}
	struct tbuf out = {0};
	assert_int_equal(report_sweep_svg(sw, &in, "mesh16-auto.yaml", &out,
	                                  err, sizeof err),
	                 0);
	char why[128];
	if (!well_formed(out.p, why, sizeof why))
		fail_msg("sweep SVG not well-formed: %s", why);
	/* every algorithm a series; rd and fibonacci have the same times
	 * here, so fibonacci's is drawn dashed over rd's (class same) */
	assert_int_equal(count(out.p, "<g class=\"series"), sw->nalgs);
	assert_int_equal(count(out.p, "<g class=\"series same\">"), 1);
	assert_non_null(strstr(out.p, "fibonacci<tspan class=\"same-as\"> "
	                              "= rd</tspan>"));
	assert_int_equal(count(out.p, "<g class=\"vline\">"), sw->ncross);
	assert_int_equal(
	        count_in(out.p, "<g class=\"series\">", "</g>", 0, "<circle"),
	        sw->nsizes);
	assert_non_null(strstr(out.p, "simulated time"));
	free(out.p);

	/* by the model: another ranking, the model's times */
	select_fini(&sr);
	assert_int_equal(select_run(&in, false, true, &sr), 0);
	sz = (struct report_sizes){64, 4096, true};
	assert_int_equal(report_sweep_run(&in, &sr, &sz, sw, err, sizeof err),
	                 0);
	assert_true(sw->by_model);
	assert_int_equal(sw->nsizes, 7);
	assert_true(fabs(sw->us[0][4] - sr.rows[0].predicted) < 1e-9);

	/* the report of the compiled input */
	struct compiled c;
	memset(&d, 0, sizeof d);
	assert_int_equal(compile_input(&in, &c, &d), 0);
	out = (struct tbuf){0};
	assert_int_equal(report_html(&c, "in <&> put.yaml", &in, NULL, &out,
	                             err, sizeof err),
	                 0);
	assert_false(out.nomem);
	const char *h = out.p;
	assert_true(strncmp(h, "<!DOCTYPE html>", 15) == 0);
	assert_non_null(strstr(h, "<h1>in &lt;&amp;&gt; put.yaml</h1>"));
	assert_null(strstr(h, "<&>"));
	assert_null(strstr(h, "<script"));
	assert_null(strstr(h, "<?xml")); /* SVGs inline, no declaration */
	assert_non_null(strstr(h, "<pre>plan        in &lt;&amp;&gt;"));
	assert_non_null(strstr(h, "<table>"));
	assert_non_null(strstr(h, "<tr class=\"this\"><td>1</td>"));
	/* the overview, one picture per phase, the plot of the 10
	 * broadcasts that apply */
	assert_int_equal(count(h, "<svg id=\""), 2 + c.plan.nphases);
	assert_int_equal(count(h, "<details>"), c.plan.nphases);
	assert_int_equal(count(h, "<g class=\"series"), 10);
	/* ids unique: each picture's own prefix */
	assert_int_equal(count(h, " id=\"plotarea\""), 0);
	assert_int_equal(count(h, " id=\"lat-plotarea\""), 1);
	assert_int_equal(count(h, "url(#lat-plotarea)"), 1);
	assert_int_equal(count(h, "url(#plotarea)"), 0);
	/* show's style sheets apply to their own picture only */
	if (strstr(h, "<style>\n.")) {
		const char *st = strstr(h, "<style>\n.");
		fail_msg("an unscoped style sheet: %.60s", st);
	}
	assert_non_null(strstr(h, "#all-root ."));
	assert_non_null(strstr(h, "#p0-root ."));
	free(out.p);
	compiled_fini(&c);
	free(sw);
	select_fini(&sr);
	front_input_fini(&in);
}

static void test_sweep_refused(void **state)
{
	(void)state;
	char path[4096], err[512];
	struct front_input in;
	struct diag d;
	struct select_result sr;
	struct report_sweep *sw = malloc(sizeof *sw);
	assert_non_null(sw);
	/* no costs: no time at any size */
	memset(&d, 0, sizeof d);
	assert_int_equal(
	        front_parse_file(example("mesh32-edn.yaml", path, sizeof path),
	                         &in, &d),
	        0);
	assert_int_equal(select_run(&in, false, true, &sr), 0);
	assert_int_equal(report_sweep_run(&in, &sr, NULL, sw, err, sizeof err),
	                 CCP_EINVAL);
	assert_non_null(strstr(err, "alpha"));
	select_fini(&sr);
	front_input_fini(&in);
	/* an irregular pattern: no size to vary */
	memset(&d, 0, sizeof d);
	assert_int_equal(front_parse_file(example("ipsc-irregular.yaml", path,
	                                          sizeof path),
	                                  &in, &d),
	                 0);
	assert_int_equal(select_run(&in, false, true, &sr), 0);
	assert_int_equal(report_sweep_run(&in, &sr, NULL, sw, err, sizeof err),
	                 CCP_EINVAL);
	assert_non_null(strstr(err, "irregular"));
	select_fini(&sr);
	front_input_fini(&in);
	free(sw);
}

/* The one XML text escaper (plots and show's SVG): the five specials,
 * and the control characters XML 1.0 forbids as '?'; tab and newline
 * stay. */
static void test_plot_text(void **state)
{
	(void)state;
	struct tbuf b = {0};
	plot_text(&b, "a<b>&\"'\x01\x1f\t\nz");
	assert_false(b.nomem);
	assert_string_equal(b.p, "a&lt;b&gt;&amp;&quot;&apos;??\t\nz");
	tb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_xml_checker),
	        cmocka_unit_test(test_plot_text),
	        cmocka_unit_test(test_lines_structure),
	        cmocka_unit_test(test_log_ticks),
	        cmocka_unit_test(test_labels_apart),
	        cmocka_unit_test(test_sizes),
	        cmocka_unit_test(test_same_series),
	        cmocka_unit_test(test_sweep),
	        cmocka_unit_test(test_sweep_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
