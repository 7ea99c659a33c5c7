/*
 * report.h - what a user looks at to judge a plan beyond its table: the
 * latency plot of `ccplan compare --svg` (every algorithm compare ranks,
 * its time against the message size, by the model or the simulator) and
 * the HTML report of `ccplan explain --html` (the explain text, pictures
 * of the phases, the comparison and its plot in one self-contained page).
 * docs/report.md describes both.
 */
#ifndef CCP_REPORT_H
#define CCP_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "compile.h"
#include "emit_c.h" /* struct tbuf */
#include "front.h"
#include "select.h"

/* Sizes swept: powers of two from min up to max (both bytes: the
 * communication's `bytes`, the whole message of a broadcast and a
 * reduction, one block of the others). */
struct report_sizes {
	int64_t min, max;
	bool given; /* asked for (--sizes): every size is swept; else the
	               sweep keeps every 2nd, 3rd... power of two when all
	               of them would take longer than REPORT_BUDGET_S */
};

#define REPORT_MIN_DEFAULT 8                  /* 8 B */
#define REPORT_MAX_DEFAULT (INT64_C(1) << 20) /* 1 MiB */
#define REPORT_MAX_SIZES   24                 /* most sizes in one sweep */
#define REPORT_MAX_BYTES   (INT64_C(1) << 30) /* largest size, 1 GiB */
#define REPORT_MAX_ALGS    12                 /* most algorithms in one plot */
#define REPORT_BUDGET_S    5.0 /* seconds a default sweep aims at */

/* "MIN:MAX" with optional K, M, G (1024-based) suffixes into s (given):
 * 1 <= MIN <= MAX <= REPORT_MAX_BYTES and at most REPORT_MAX_SIZES
 * powers of two from MIN.  0, or CCP_EINVAL with the reason in err. */
int report_parse_sizes(const char *arg, struct report_sizes *s, char *err,
                       size_t errlen);

/* Where the fastest algorithm of a sweep changes. */
struct report_cross {
	size_t from, to; /* indices into algs: fastest below, above */
	int64_t lo, hi;  /* the two sizes of the sweep it lies between */
	double at;       /* the size where the two curves meet, estimated
	                    between lo and hi on the log-log plot */
};

/* The time of every candidate at every size. */
struct report_sweep {
	size_t nsizes;
	int64_t sizes[REPORT_MAX_SIZES];
	int stride;    /* 1, or k when only every k-th power of two of the
	                  default sizes was swept (to keep within the
	                  budget) */
	size_t nalgs;  /* candidates: the verified rows of the comparison,
	                  in its order, at most REPORT_MAX_ALGS */
	size_t ranked; /* verified rows there were (>= nalgs) */
	const struct sch_generator *algs[REPORT_MAX_ALGS];
	double us[REPORT_MAX_ALGS][REPORT_MAX_SIZES]; /* NaN where the
	                 algorithm does not apply, fails, or has no time */
	bool by_model;         /* model (true) or the simulator's last
	                          delivery */
	enum model_kind model; /* the model, when by_model */
	size_t ncross;
	struct report_cross cross[REPORT_MAX_SIZES];
	char why[256]; /* "" or why some times are missing (the first
	                  reason met that is not a size that does not fit
	                  the input, if any) */
	bool why_fits; /* why is about a size that fits */
};

/* Sweep the candidates of sr (select_run's result for in) over the sizes
 * sz: at each size every candidate's plan is generated again, verified
 * and timed by the model (sr->by_model) or the simulator.  CCP_EINVAL
 * (err says why) when there is nothing to plot: an irregular pattern (no
 * size to vary), no verified candidate, or no time at any size (the
 * machine has no costs); CCP_ENOMEM. */
int report_sweep_run(const struct front_input *in,
                     const struct select_result *sr,
                     const struct report_sizes *sz, struct report_sweep *out,
                     char *err, size_t errlen);

/* The sweep as an SVG document (plot_lines_svg: log-log, one series per
 * candidate, the crossovers as vertical lines) appended to out; name is
 * the input's name for the title.  0, CCP_EINVAL or CCP_ENOMEM (err). */
int report_sweep_svg(const struct report_sweep *s, const struct front_input *in,
                     const char *name, struct tbuf *out, char *err,
                     size_t errlen);

/* The HTML report of plan c (from the file called name) appended to out:
 * one page with inline CSS and SVG, no scripts and no external resource.
 * It holds the explain text, a picture of every phase (show_svg), and,
 * when in is not NULL (the plan came from that YAML input), the
 * comparison of every algorithm that applies and its latency plot over
 * the sizes sz (NULL: the defaults).  A part that cannot be made (a
 * machine show cannot draw, no costs) is replaced by a note saying why.
 * 0 or CCP_ENOMEM (err). */
int report_html(const struct compiled *c, const char *name,
                const struct front_input *in, const struct report_sizes *sz,
                struct tbuf *out, char *err, size_t errlen);

/* `ccplan compare --svg PATH`: sweep sr's candidates (sr from in, read
 * from the file called name) over sz (NULL: the defaults) into *sw (the
 * caller's, borrowed: compare prints the crossovers the plot marks from
 * it) and write the plot to path atomically.  0, or CCP_EINVAL / CCP_EIO
 * / CCP_ENOMEM with the reason in err; nothing is written on failure. */
int report_sweep_file(const struct front_input *in,
                      const struct select_result *sr, const char *name,
                      const struct report_sizes *sz, const char *path,
                      struct report_sweep *sw, char *err, size_t errlen);

/* Where crossover c lies, as the plot labels it ("221 B", "7.09 KiB"). */
void report_cross_at(const struct report_cross *c, char *buf, size_t len);

/* `ccplan explain FILE --html PATH`: the report of c, which came from
 * file (a .yaml or .yml file is read again for the comparison), written
 * to path atomically.  0, or CCP_E* with the reason in err. */
int report_html_file(const struct compiled *c, const char *file,
                     const char *path, char *err, size_t errlen);

/* Append s to out as HTML text: & < > " ' escaped. */
void report_html_text(struct tbuf *out, const char *s);

#endif
