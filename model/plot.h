/*
 * plot.h - the one SVG plot writer of ccplan: a page with a plot area,
 * log or linear axes with grid lines and ticks, series as polylines with
 * markers, labels put where nothing else is, vertical marker lines and a
 * legend.  The tau-plot (tau.c) draws with its pieces; the latency plot
 * of `ccplan compare --svg` (compiler/emit/report.c) is plot_lines_svg.
 *
 * Coordinates are SVG user units (pixels at 100%), y downwards.  Text is
 * XML-escaped on the way in, so labels may hold anything.  Nothing here
 * prints; errors are CCP_E* codes with a message in caller storage.
 */
#ifndef CCP_PLOT_H
#define CCP_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "tbuf.h" /* the SVG text is written into a struct tbuf */

/* ---- the text ------------------------------------------------------- */

/* The text goes into a zero-initialised struct tbuf with tb_printf; the
 * first failure sticks and drops every later write, and plot_finish
 * reports it once. */
/* Text with the five XML specials escaped (& < > " '), and the control
 * characters XML 1.0 forbids (below 0x20 but tab and newline) as '?'. */
void plot_text(struct tbuf *b, const char *s);
/* Hand the text over: 0 with *svg (malloc'd, NUL-terminated, freed by
 * the caller) and *len; or the sticky error, with the buffer freed and
 * the reason in err. */
int plot_finish(struct tbuf *b, char **svg, size_t *len, char *err,
                size_t errlen);

/* ---- the page ------------------------------------------------------- */

/* Where things go. */
struct plot_page {
	int w, h;          /* page size */
	int left, top;     /* the plot area's upper left corner */
	int right, bottom; /* and lower right */
	int legend;        /* left edge of the legend, right of the area */
};

#define PLOT_FONT 11  /* font size of labels and ticks */
#define PLOT_CHAR 6.6 /* mean advance of one character at PLOT_FONT */

/* The XML declaration, the <svg> element (font, size, viewBox), <title>
 * (title, or "plot"), <desc> (when desc), a white background, the clip
 * path "plotarea" of the plot area, and heading as a bold line above the
 * area (when not NULL). */
void plot_begin(struct tbuf *b, const struct plot_page *pg,
                const char *title, const char *desc, const char *heading);
/* The plot area's border and the two axis titles (x under the area, y
 * rotated left of it); either title may be NULL. */
void plot_frame(struct tbuf *b, const struct plot_page *pg,
                const char *xtitle, const char *ytitle);
/* Close the document. */
void plot_end(struct tbuf *b);

/* ---- axes ----------------------------------------------------------- */

/* One axis: the data range [lo, hi] onto the pixels [p0, p1]. */
struct plot_axis {
	double lo, hi; /* data shown (lo > 0 on a log axis) */
	bool log;      /* logarithmic scale */
	bool binary;   /* log: ticks at powers of two, labelled 512, 1K, 2M
	                  (sizes in bytes); else at 1, 2, 5 times powers of
	                  ten */
	double p0, p1; /* pixels of lo and hi (the y axis runs upwards:
	                  p0 = bottom, p1 = top) */
};

/* The pixel of value v. */
double plot_map(const struct plot_axis *a, double v);
/* Set lo and hi around the data range [mn, mx] with some room: decimal
 * log axes end at 1, 2, 2.5 or 5 times a power of ten and span at least
 * a decade, binary ones reach a quarter doubling past the data, linear
 * ones start at 0. */
void plot_fit(struct plot_axis *a, double mn, double mx);
/* The values of a's ticks in v (at most max), major[k] telling which are
 * labelled (and get a grid line); returns how many.  Log decimal: every
 * integer times a power of ten, major at the decades (and at 2 and 5
 * when the axis spans at most three decades).  Log binary: every power
 * of two, major every 1, 2, 4... doublings so that at most 12 are.
 * Linear: a round step, all major. */
int plot_tick_values(const struct plot_axis *a, double *v, bool *major,
                     int max);
/* A tick label: plain decimals from 1e-9 up to 1e6 (0.00005, not 5e-05),
 * larger values as 1e6, 2.5e7 (not 1e+06); on a binary axis the power
 * of two with K, M, G (1024-based) suffixes. */
void plot_tick_label(const struct plot_axis *a, double v, char *buf,
                     size_t len);
/* Draw a's ticks, grid lines and tick labels (vertical: the y axis). */
void plot_ticks(struct tbuf *b, const struct plot_page *pg,
                const struct plot_axis *a, bool vertical);

/* ---- marks ---------------------------------------------------------- */

enum plot_mark {
	PLOT_CIRCLE,   /* a dot, radius 4 */
	PLOT_SQUARE,   /* 8 x 8 */
	PLOT_TRIANGLE, /* pointing up */
	PLOT_DIAMOND,  /* a square on its corner */
	PLOT_NMARKS
};

/* Series colour i (a palette of ten, repeating). */
const char *plot_color(size_t i);
/* A marker of shape m centred at (x, y). */
void plot_marker(struct tbuf *b, enum plot_mark m, double x, double y,
                 const char *color);

/* ---- labels that avoid each other ----------------------------------- */

/* A rectangle on the page. */
struct plot_box {
	double x0, y0, x1, y1;
};

/* The boxes taken so far; zero-initialise, free(v) at the end. */
struct plot_boxes {
	struct plot_box *v;
	size_t n, cap;
};

/* Remember box x as taken (a failure to grow sticks in b). */
void plot_keep(struct tbuf *b, struct plot_boxes *u, struct plot_box x);
/* Area shared by two boxes. */
double plot_overlap(const struct plot_box *a, const struct plot_box *b);
/* Width of text s at PLOT_FONT (UTF-8 characters times PLOT_CHAR). */
double plot_text_width(const char *s);
/* Put label s beside the point (x, y): the first of twelve places around
 * it that stays in the plot area and overlaps no box taken so far; when
 * every place is taken, the one overlapping least.  Its box is taken. */
void plot_label(struct tbuf *b, const struct plot_page *pg, const char *s,
                double x, double y, struct plot_boxes *used);

/* ---- line plots ----------------------------------------------------- */

/* One series: a polyline through its points, with a marker on each. */
struct plot_series {
	const char *name; /* in the legend */
	const double *x;  /* n values, > 0 on a log axis */
	const double *y;  /* n values; NaN (or <= 0 on a log axis) leaves a
	                     gap: the line breaks there */
	size_t n;
};

/* A vertical line across the plot area at x, labelled at its top. */
struct plot_vline {
	double x;          /* where */
	const char *label; /* its label, or NULL */
};

/* What plot_lines_svg draws. */
struct plot_lines {
	const char *title;  /* heading and <title>, or NULL */
	const char *desc;   /* <desc>, or NULL */
	const char *xtitle; /* axis titles, or NULL */
	const char *ytitle;
	bool xlog, ylog; /* log scales (else linear from 0) */
	bool xbinary;    /* x log: ticks at powers of two (bytes) */
	const struct plot_series *series; /* nseries, borrowed */
	size_t nseries;
	const struct plot_vline *vlines; /* nvlines, borrowed */
	size_t nvlines;
	const char *const *notes; /* nnotes lines under the legend, or NULL */
	size_t nnotes;
};

/* The page plot_lines_svg uses (980 x 640, legend at the right). */
extern const struct plot_page plot_lines_page;

/* The dashes of a series drawn over an earlier one with the same points
 * (within 0.5%): the earlier one shows through the gaps. */
#define PLOT_SAME_DASH "7 5"

/* Draw pl as a standalone SVG document: series i in plot_color(i) with
 * marker i % PLOT_NMARKS, each in its own <g class="series">; a series
 * whose points are those of an earlier one (within 0.5%) is dashed
 * (PLOT_SAME_DASH), its group has the class "same" too, and its legend
 * line says "= EARLIER" (in a <tspan class="same-as">); vertical
 * lines in <g class="vline">, a legend naming every series.  *svg is
 * malloc'd and NUL-terminated (*len bytes), freed by the caller.  0,
 * CCP_EINVAL (err: no point to draw, a log axis with a value <= 0 that
 * is not a gap, non-finite x) or CCP_ENOMEM. */
int plot_lines_svg(const struct plot_lines *pl, char **svg, size_t *len,
                   char *err, size_t errlen);

#endif
