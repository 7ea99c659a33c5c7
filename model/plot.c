/*
 * plot.c - the SVG plot writer (plot.h): the text buffer, the page frame,
 * axes and ticks, markers, labels placed around points without covering
 * each other, and the line plot of `ccplan compare --svg`.  The tau-plot
 * (tau.c) is drawn with the same pieces, so both pictures share one look
 * and one set of bugs.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccplan_errors.h"
#include "plot.h"

/* ---- the text ------------------------------------------------------- */

void plot_text(struct tbuf *b, const char *s)
{
	/* the characters to replace: XML's special ones, and the control
	 * characters XML 1.0 does not allow (all below 0x20 but tab and
	 * newline), which become '?' */
	static const char special[] = "&<>\"'"
	                              "\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c"
	                              "\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16"
	                              "\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f";
	while (s && *s) {
		size_t run = strcspn(s, special);
		if (run)
			tb_printf(b, "%.*s", (int)run, s);
		s += run;
		switch (*s) {
		case '&':
			tb_printf(b, "&amp;");
			break;
		case '<':
			tb_printf(b, "&lt;");
			break;
		case '>':
			tb_printf(b, "&gt;");
			break;
		case '"':
			tb_printf(b, "&quot;");
			break;
		case '\'':
			tb_printf(b, "&apos;");
			break;
		case '\0':
			return; /* the end of s */
		default:
			tb_printf(b, "?"); /* a control character */
		}
		s++;
	}
}

int plot_finish(struct tbuf *b, char **svg, size_t *len, char *err,
                size_t errlen)
{
	if (!b->nomem && !b->p)
		tb_put(b, "", 0); /* an empty document is still a string */
	if (b->nomem) {
		tb_free(b);
		snprintf(err, errlen, "%s", ccp_strerror(CCP_ENOMEM));
		return CCP_ENOMEM;
	}
	*svg = tb_take(b, len);
	return 0;
}

/* ---- the page ------------------------------------------------------- */

void plot_begin(struct tbuf *b, const struct plot_page *pg, const char *title,
                const char *desc, const char *heading)
{
	tb_printf(b,
	          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	          "height=\"%d\" viewBox=\"0 0 %d %d\" "
	          "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
	          "font-size=\"%d\">\n",
	          pg->w, pg->h, pg->w, pg->h, PLOT_FONT);
	tb_printf(b, "<title>");
	plot_text(b, title ? title : "plot");
	tb_printf(b, "</title>\n");
	if (desc) {
		tb_printf(b, "<desc>");
		plot_text(b, desc);
		tb_printf(b, "</desc>\n");
	}
	tb_printf(b,
	          "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n"
	          "<defs><clipPath id=\"plotarea\"><rect x=\"%d\" y=\"%d\" "
	          "width=\"%d\" height=\"%d\"/></clipPath></defs>\n",
	          pg->w, pg->h, pg->left, pg->top, pg->right - pg->left,
	          pg->bottom - pg->top);
	if (heading) {
		tb_printf(b,
		          "<text x=\"%d\" y=\"%d\" font-size=\"15\" "
		          "font-weight=\"bold\">",
		          pg->left, pg->top - 18);
		plot_text(b, heading);
		tb_printf(b, "</text>\n");
	}
}

void plot_frame(struct tbuf *b, const struct plot_page *pg, const char *xtitle,
                const char *ytitle)
{
	tb_printf(b,
	          "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
	          "fill=\"none\" stroke=\"#444\"/>\n",
	          pg->left, pg->top, pg->right - pg->left,
	          pg->bottom - pg->top);
	if (xtitle) {
		tb_printf(b,
		          "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
		          "font-size=\"13\">",
		          (pg->left + pg->right) / 2, pg->bottom + 46);
		plot_text(b, xtitle);
		tb_printf(b, "</text>\n");
	}
	if (ytitle) {
		tb_printf(b,
		          "<text transform=\"translate(22 %d) rotate(-90)\" "
		          "text-anchor=\"middle\" font-size=\"13\">",
		          (pg->top + pg->bottom) / 2);
		plot_text(b, ytitle);
		tb_printf(b, "</text>\n");
	}
}

void plot_end(struct tbuf *b)
{
	tb_printf(b, "</svg>\n");
}

/* ---- axes ----------------------------------------------------------- */

double plot_map(const struct plot_axis *a, double v)
{
	double t = a->log ? (log10(v) - log10(a->lo)) /
	                            (log10(a->hi) - log10(a->lo))
	                  : (v - a->lo) / (a->hi - a->lo);
	return a->p0 + t * (a->p1 - a->p0);
}

/* The nearest "round" value (1, 2, 2.5 or 5 times a power of ten) at or
 * above v (up) or at or below it. */
static double nice(double v, bool up)
{
	static const double m[] = {1, 2, 2.5, 5, 10};
	double e = pow(10, floor(log10(v)));
	if (up) {
		for (int k = 0; k < 5; k++)
			if (m[k] * e >= v * (1 - 1e-12))
				return m[k] * e;
		return 10 * e;
	}
	for (int k = 4; k >= 0; k--)
		if (m[k] * e <= v * (1 + 1e-12))
			return m[k] * e;
	return e;
}

void plot_fit(struct plot_axis *a, double mn, double mx)
{
	if (a->log && a->binary) {
		double pad = mx > mn ? pow(2, 0.25) : 2;
		a->lo = mn / pad;
		a->hi = mx * pad;
	} else if (a->log) {
		a->lo = nice(mn / 1.3, false);
		a->hi = nice(mx * 1.3, true);
		if (a->hi / a->lo < 10) { /* at least one decade */
			double c = sqrt(a->hi * a->lo);
			a->lo = nice(c / sqrt(10), false);
			a->hi = nice(c * sqrt(10), true);
		}
	} else {
		a->lo = 0;
		a->hi = mx > 0 ? nice(mx * 1.08, true) : 1;
	}
}

int plot_tick_values(const struct plot_axis *a, double *v, bool *major, int max)
{
	int n = 0;
	if (a->log && a->binary) {
		int e0 = (int)ceil(log2(a->lo) - 1e-9);
		int e1 = (int)floor(log2(a->hi) + 1e-9);
		int step = 1;
		while ((e1 - e0) / step + 1 > 12)
			step *= 2;
		for (int e = e0; e <= e1 && n < max; e++) {
			v[n] = ldexp(1, e);
			major[n++] = ((e % step) + step) % step == 0;
		}
	} else if (a->log) {
		double decades = log10(a->hi / a->lo);
		for (double e = pow(10, floor(log10(a->lo)));
		     e <= a->hi * (1 + 1e-9) && n < max; e *= 10)
			for (int m = 1; m <= 9 && n < max; m++) {
				double x = m * e;
				if (x < a->lo * (1 - 1e-9) ||
				    x > a->hi * (1 + 1e-9))
					continue;
				v[n] = x;
				major[n++] = m == 1 || (decades <= 3.01 &&
				                        (m == 2 || m == 5));
			}
	} else {
		double step = nice((a->hi - a->lo) / 6, true);
		for (int k = 0; n < max; k++) {
			double x = a->lo + k * step;
			if (x > a->hi * (1 + 1e-9))
				break;
			v[n] = x;
			major[n++] = true;
		}
	}
	return n;
}

void plot_tick_label(const struct plot_axis *a, double v, char *buf, size_t len)
{
	if (a->log && a->binary && v >= 1024) {
		static const char unit[] = "KMGTP";
		int u = -1;
		while (v >= 1024 && u < 4) {
			v /= 1024;
			u++;
		}
		snprintf(buf, len, "%g%c", v, unit[u]);
		return;
	}
	if (fabs(v) >= 1e6) { /* 1e6, 2.5e7: shorter than 1e+06 */
		int e = (int)floor(log10(fabs(v)) + 1e-9);
		snprintf(buf, len, "%.6ge%d", v / pow(10, e), e);
		return;
	}
	if (v == 0 || fabs(v) < 1e-9) {
		snprintf(buf, len, "%.6g", v);
		return;
	}
	int dec = (int)-floor(log10(fabs(v))) + 5;
	if (dec < 0)
		dec = 0;
	snprintf(buf, len, "%.*f", dec, v);
	char *dot = strchr(buf, '.');
	if (dot) {
		char *e = buf + strlen(buf);
		while (e > dot + 1 && e[-1] == '0')
			*--e = '\0';
		if (e == dot + 1)
			*dot = '\0';
	}
}

void plot_ticks(struct tbuf *b, const struct plot_page *pg,
                const struct plot_axis *a, bool vertical)
{
	double v[64];
	bool major[64];
	int n = plot_tick_values(a, v, major, 60);
	for (int k = 0; k < n; k++) {
		double p = plot_map(a, v[k]);
		char lab[32];
		plot_tick_label(a, v[k], lab, sizeof lab);
		if (vertical) {
			if (major[k])
				tb_printf(
				        b,
				        "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" "
				        "y2=\"%.2f\" stroke=\"#e4e4e4\"/>\n",
				        pg->left, p, pg->right, p);
			tb_printf(b,
			          "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" "
			          "y2=\"%.2f\" stroke=\"#444\"/>\n",
			          pg->left - (major[k] ? 6 : 3), p, pg->left,
			          p);
			if (major[k])
				tb_printf(b,
				          "<text x=\"%d\" y=\"%.2f\" "
				          "text-anchor=\"end\">%s</text>\n",
				          pg->left - 9, p + 4, lab);
		} else {
			if (major[k])
				tb_printf(b,
				          "<line x1=\"%.2f\" y1=\"%d\" "
				          "x2=\"%.2f\" "
				          "y2=\"%d\" stroke=\"#e4e4e4\"/>\n",
				          p, pg->top, p, pg->bottom);
			tb_printf(b,
			          "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" "
			          "y2=\"%d\" stroke=\"#444\"/>\n",
			          p, pg->bottom, p,
			          pg->bottom + (major[k] ? 6 : 3));
			if (major[k])
				tb_printf(b,
				          "<text x=\"%.2f\" y=\"%d\" "
				          "text-anchor=\"middle\">%s</text>\n",
				          p, pg->bottom + 19, lab);
		}
	}
}

/* ---- marks ---------------------------------------------------------- */

static const char *const palette[] = {
        "#1f3b73", "#8c2d04", "#2ca02c", "#9467bd", "#d62728",
        "#17becf", "#7f7f00", "#e377c2", "#8c564b", "#1f77b4"};

const char *plot_color(size_t i)
{
	return palette[i % (sizeof palette / sizeof palette[0])];
}

void plot_marker(struct tbuf *b, enum plot_mark m, double x, double y,
                 const char *color)
{
	switch (m) {
	case PLOT_CIRCLE:
		tb_printf(b,
		          "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"4\" "
		          "fill=\"%s\" stroke=\"#fff\" "
		          "stroke-width=\"0.8\"/>\n",
		          x, y, color);
		break;
	case PLOT_SQUARE:
		tb_printf(b,
		          "<rect x=\"%.2f\" y=\"%.2f\" width=\"8\" "
		          "height=\"8\" fill=\"%s\" stroke=\"#fff\" "
		          "stroke-width=\"0.8\"/>\n",
		          x - 4, y - 4, color);
		break;
	case PLOT_DIAMOND:
		tb_printf(b,
		          "<path d=\"M%.2f %.2fL%.2f %.2fL%.2f %.2fL%.2f "
		          "%.2fZ\" fill=\"%s\" stroke=\"#fff\" "
		          "stroke-width=\"0.8\"/>\n",
		          x, y - 5.5, x + 5.5, y, x, y + 5.5, x - 5.5, y,
		          color);
		break;
	default:
		tb_printf(b,
		          "<path d=\"M%.2f %.2fL%.2f %.2fL%.2f %.2fZ\" "
		          "fill=\"%s\" stroke=\"#fff\" "
		          "stroke-width=\"0.8\"/>\n",
		          x, y - 5, x + 4.5, y + 3.5, x - 4.5, y + 3.5, color);
	}
}

/* ---- labels --------------------------------------------------------- */

void plot_keep(struct tbuf *b, struct plot_boxes *u, struct plot_box x)
{
	if (u->n == u->cap) {
		size_t c = u->cap ? 2 * u->cap : 32;
		struct plot_box *v = realloc(u->v, c * sizeof *v);
		if (!v) {
			b->nomem = true;
			return;
		}
		u->v = v;
		u->cap = c;
	}
	u->v[u->n++] = x;
}

double plot_overlap(const struct plot_box *a, const struct plot_box *b)
{
	double w = fmin(a->x1, b->x1) - fmax(a->x0, b->x0);
	double h = fmin(a->y1, b->y1) - fmax(a->y0, b->y0);
	return w > 0 && h > 0 ? w * h : 0;
}

double plot_text_width(const char *s)
{
	size_t n = 0;
	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return (double)n * PLOT_CHAR;
}

void plot_label(struct tbuf *b, const struct plot_page *pg, const char *s,
                double x, double y, struct plot_boxes *used)
{
	static const struct {
		double dx, dy;
		int anchor; /* 0 start, 1 end, 2 middle */
	} at[] = {{7, 4, 0},   {-7, 4, 1}, {0, -8, 2},  {0, 16, 2},
	          {6, -6, 0},  {6, 14, 0}, {-6, -6, 1}, {-6, 14, 1},
	          {0, -19, 2}, {0, 27, 2}, {7, -15, 0}, {7, 23, 0}};
	static const char *const anchor[] = {"start", "end", "middle"};
	const int nat = (int)(sizeof at / sizeof at[0]);
	double w = plot_text_width(s);
	int pick = 0;
	double least = INFINITY;
	struct plot_box best = {0, 0, 0, 0};
	for (int k = 0; k < nat; k++) {
		double lx = x + at[k].dx, ly = y + at[k].dy;
		double x0 = at[k].anchor == 0   ? lx
		            : at[k].anchor == 1 ? lx - w
		                                : lx - w / 2;
		struct plot_box bx = {x0, ly - 9, x0 + w, ly + 2};
		double bad = 0;
		if (bx.x0 < pg->left || bx.x1 > pg->right || bx.y0 < pg->top ||
		    bx.y1 > pg->bottom)
			bad = 1e9;
		for (size_t u = 0; u < used->n; u++)
			bad += plot_overlap(&bx, &used->v[u]);
		if (bad < least) {
			least = bad;
			pick = k;
			best = bx;
		}
		if (bad == 0)
			break;
	}
	plot_keep(b, used, best);
	tb_printf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\">",
	          x + at[pick].dx, y + at[pick].dy, anchor[at[pick].anchor]);
	plot_text(b, s);
	tb_printf(b, "</text>\n");
}

/* ---- line plots ----------------------------------------------------- */

const struct plot_page plot_lines_page = {
        .w = 980,
        .h = 640,
        .left = 86,
        .top = 46,
        .right = 700,
        .bottom = 566,
        .legend = 722,
};

/* Whether y can be drawn on axis a: a number, and > 0 on a log axis. */
static bool drawable(const struct plot_axis *a, double y)
{
	return isfinite(y) && (!a->log || y > 0);
}

/* The vertical lines: dashed across the area (inside the clip), with
 * their labels in rows along the top edge, each row pushed down until it
 * covers no label above it. */
static void draw_vlines(struct tbuf *b, const struct plot_page *pg,
                        const struct plot_lines *pl, const struct plot_axis *ax,
                        bool labels, struct plot_boxes *used)
{
	for (size_t i = 0; i < pl->nvlines; i++) {
		const struct plot_vline *v = &pl->vlines[i];
		double x = plot_map(ax, v->x);
		if (x < pg->left || x > pg->right)
			continue;
		if (!labels) {
			tb_printf(b,
			          "<g class=\"vline\"><line x1=\"%.2f\" "
			          "y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
			          "stroke=\"#555\" stroke-width=\"1.2\" "
			          "stroke-dasharray=\"5 4\"/></g>\n",
			          x, pg->top, x, pg->bottom);
			continue;
		}
		if (!v->label || !v->label[0])
			continue;
		double w = plot_text_width(v->label) + 6;
		bool right = x + 3 + w <= pg->right;
		double x0 = right ? x + 2 : x - 2 - w;
		struct plot_box bx = {x0, pg->top + 3, x0 + w, pg->top + 17};
		for (int row = 0; row < 24; row++) {
			bool free_row = true;
			for (size_t u = 0; u < used->n && free_row; u++)
				free_row = plot_overlap(&bx, &used->v[u]) == 0;
			if (free_row)
				break;
			bx.y0 += 15;
			bx.y1 += 15;
		}
		plot_keep(b, used, bx);
		tb_printf(b,
		          "<g class=\"vline-label\"><rect x=\"%.2f\" "
		          "y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
		          "fill=\"#fff\" fill-opacity=\"0.85\"/>"
		          "<text x=\"%.2f\" y=\"%.2f\" fill=\"#333\">",
		          bx.x0, bx.y0, bx.x1 - bx.x0, bx.y1 - bx.y0, bx.x0 + 3,
		          bx.y1 - 4);
		plot_text(b, v->label);
		tb_printf(b, "</text></g>\n");
	}
}

/* The first series before s whose drawable points are all within 0.5%
 * of s's (same x, same y), or -1: drawn over it, s would hide it, so s
 * is dashed and the legend says so. */
static long same_as(const struct plot_lines *pl, const struct plot_axis *ay,
                    size_t s)
{
	const struct plot_series *a = &pl->series[s];
	for (size_t t = 0; t < s; t++) {
		const struct plot_series *c = &pl->series[t];
		bool same = c->n == a->n, any = false;
		for (size_t i = 0; same && i < a->n; i++) {
			bool da = drawable(ay, a->y[i]), dc = drawable(ay, c->y[i]);
			same = da == dc && a->x[i] == c->x[i] &&
			       (!da || fabs(a->y[i] - c->y[i]) <=
			                       0.005 * fmax(fabs(a->y[i]),
			                                    fabs(c->y[i])));
			any = any || da;
		}
		if (same && any)
			return (long)t;
	}
	return -1;
}

/* The legend right of the area: one line and marker per series, then the
 * notes, wrapped at the page's right edge. */
static void draw_legend(struct tbuf *b, const struct plot_page *pg,
                        const struct plot_lines *pl,
                        const struct plot_axis *ay)
{
	double y = pg->top + 4;
	tb_printf(b,
	          "<g class=\"legend\">\n<text x=\"%d\" y=\"%.2f\" "
	          "font-weight=\"bold\">Legend</text>\n",
	          pg->legend, y);
	y += 20;
	for (size_t s = 0; s < pl->nseries; s++, y += 17) {
		const char *c = plot_color(s);
		long same = same_as(pl, ay, s);
		tb_printf(b,
		          "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" "
		          "stroke=\"%s\" stroke-width=\"1.8\"%s/>\n",
		          pg->legend, y - 4, pg->legend + 22, y - 4, c,
		          same >= 0 ? " stroke-dasharray=\"" PLOT_SAME_DASH "\""
		                    : "");
		plot_marker(b, (enum plot_mark)(s % PLOT_NMARKS),
		            pg->legend + 11, y - 4, c);
		tb_printf(b, "<text x=\"%d\" y=\"%.2f\">", pg->legend + 30, y);
		plot_text(b,
		          pl->series[s].name ? pl->series[s].name : "series");
		if (same >= 0) {
			/* drawn dashed over the same curve */
			tb_printf(b, "<tspan class=\"same-as\"> = ");
			plot_text(b, pl->series[same].name
			                     ? pl->series[same].name
			                     : "series");
			tb_printf(b, "</tspan>");
		}
		tb_printf(b, "</text>\n");
	}
	if (pl->nvlines)
		y += 4;
	if (pl->nvlines) {
		tb_printf(b,
		          "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" "
		          "stroke=\"#555\" stroke-width=\"1.2\" "
		          "stroke-dasharray=\"5 4\"/>\n"
		          "<text x=\"%d\" y=\"%.2f\">crossover</text>\n",
		          pg->legend, y - 4, pg->legend + 22, y - 4,
		          pg->legend + 30, y);
		y += 17;
	}
	y += 8;
	/* notes, broken at spaces to fit the legend's width */
	size_t width = (size_t)((pg->w - pg->legend - 8) / PLOT_CHAR);
	for (size_t k = 0; k < pl->nnotes; k++) {
		const char *s = pl->notes[k];
		while (s && *s) {
			size_t n = strlen(s), cut = n;
			if (plot_text_width(s) > (double)width * PLOT_CHAR) {
				cut = 0;
				for (size_t i = 0, ch = 0; s[i] && ch <= width;
				     i++) {
					if (s[i] == ' ')
						cut = i;
					ch += ((unsigned char)s[i] & 0xc0) !=
					      0x80;
				}
				if (cut == 0)
					cut = n;
			}
			char line[512];
			snprintf(line, sizeof line, "%.*s", (int)cut, s);
			tb_printf(b,
			          "<text x=\"%d\" y=\"%.2f\" "
			          "fill=\"#444\">",
			          pg->legend, y);
			plot_text(b, line);
			tb_printf(b, "</text>\n");
			y += 14;
			s += cut;
			while (*s == ' ')
				s++;
		}
		y += 4;
	}
	tb_printf(b, "</g>\n");
}

int plot_lines_svg(const struct plot_lines *pl, char **svg, size_t *len,
                   char *err, size_t errlen)
{
	const struct plot_page *pg = &plot_lines_page;
	struct plot_axis ax = {
	        0, 0, pl->xlog, pl->xlog && pl->xbinary, pg->left, pg->right};
	struct plot_axis ay = {0, 0, pl->ylog, false, pg->bottom, pg->top};
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY,
	       ymax = -INFINITY;
	for (size_t s = 0; s < pl->nseries; s++) {
		const struct plot_series *se = &pl->series[s];
		for (size_t i = 0; i < se->n; i++) {
			if (!isfinite(se->x[i]) || (ax.log && se->x[i] <= 0)) {
				snprintf(err, errlen,
				         "%s: x = %g cannot be drawn on a %s "
				         "axis",
				         se->name ? se->name : "series",
				         se->x[i], ax.log ? "log" : "linear");
				return CCP_EINVAL;
			}
			if (!drawable(&ay, se->y[i]))
				continue;
			xmin = fmin(xmin, se->x[i]);
			xmax = fmax(xmax, se->x[i]);
			ymin = fmin(ymin, se->y[i]);
			ymax = fmax(ymax, se->y[i]);
		}
	}
	if (!(xmin <= xmax)) {
		snprintf(err, errlen,
		         "nothing to plot: no series has a "
		         "point it can draw");
		return CCP_EINVAL;
	}
	plot_fit(&ax, xmin, xmax);
	plot_fit(&ay, ymin, ymax);

	struct tbuf b = {NULL, 0, 0, 0};
	struct plot_boxes used = {NULL, 0, 0};
	plot_begin(&b, pg, pl->title, pl->desc, pl->title);
	plot_ticks(&b, pg, &ax, false);
	plot_ticks(&b, pg, &ay, true);
	tb_printf(&b, "<g clip-path=\"url(#plotarea)\">\n");
	draw_vlines(&b, pg, pl, &ax, false, &used);
	for (size_t s = 0; s < pl->nseries; s++) {
		const struct plot_series *se = &pl->series[s];
		const char *c = plot_color(s);
		long same = same_as(pl, &ay, s);
		tb_printf(&b, "<g class=\"series%s\">\n",
		          same >= 0 ? " same" : "");
		bool open = false;
		for (size_t i = 0; i < se->n; i++) {
			if (!drawable(&ay, se->y[i])) {
				if (open)
					tb_printf(&b, "\"/>\n");
				open = false;
				continue;
			}
			if (!open)
				tb_printf(&b,
				          "<polyline fill=\"none\" "
				          "stroke=\"%s\" stroke-width=\"1.8\" "
				          "stroke-linejoin=\"round\" %s"
				          "points=\"",
				          c,
				          same >= 0 ? "stroke-dasharray=\""
				                      PLOT_SAME_DASH "\" "
				                    : "");
			open = true;
			tb_printf(&b, "%.2f,%.2f ", plot_map(&ax, se->x[i]),
			          plot_map(&ay, se->y[i]));
		}
		if (open)
			tb_printf(&b, "\"/>\n");
		for (size_t i = 0; i < se->n; i++)
			if (drawable(&ay, se->y[i]))
				plot_marker(&b,
				            (enum plot_mark)(s % PLOT_NMARKS),
				            plot_map(&ax, se->x[i]),
				            plot_map(&ay, se->y[i]), c);
		tb_printf(&b, "</g>\n");
	}
	tb_printf(&b, "</g>\n");
	draw_vlines(&b, pg, pl, &ax, true, &used);
	plot_frame(&b, pg, pl->xtitle, pl->ytitle);
	draw_legend(&b, pg, pl, &ay);
	plot_end(&b);
	free(used.v);
	return plot_finish(&b, svg, len, err, errlen);
}
