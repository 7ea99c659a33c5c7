/*
 * tau.h - the tau-model of thesis 001 chapter 5: measured latencies fitted
 * to T(L) = T_s + T_n*L, the generalised latency of a broadcast algorithm
 * in the unicast parameters (Table 5.3, or counted on a generated plan),
 * tau = T_n/T_s (eq. 5.2), the crossover length L* of two algorithms
 * (eqs. 5.5-5.7), the regions A-D around a point of the tau-plot
 * (§5.1.3, Figure 5.2), and the tau-plot itself as SVG.
 *
 * Times are in microseconds and lengths in bytes, as in ir_cost.  Every
 * function returns 0 or a negative CCP_E* code and never prints; messages
 * go to caller storage.  docs/tau-model.md describes the commands built on
 * this (`ccplan tau fit`, `ccplan tau plot`).
 */
#ifndef CCP_TAU_H
#define CCP_TAU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"

/* ---- diagnostics ------------------------------------------------------ */

/* Where a CSV file is wrong: file:line:column: message.  line and column
 * are 1-based; line 0 means the file as a whole (no position). */
struct tau_diag {
	char file[512];        /* the name given to the reader */
	int line;              /* 1-based line, 0 if none */
	int column;            /* 1-based byte column, 0 if none */
	char message[256];     /* one line, no position */
	char source_line[256]; /* the text of that line for a caret, or "" */
};

/* ---- measurements (CSV) ----------------------------------------------- */

/* One measured latency: a message of `bytes` took `us`. */
struct tau_sample {
	double bytes; /* message length L */
	double us;    /* one-way latency, microseconds */
	int line;     /* line of the CSV file it came from */
};

/* Samples read from a file; zero-initialise, release with
 * tau_samples_fini (after an error too). */
struct tau_samples {
	struct tau_sample *s; /* n entries, owned */
	size_t n, cap;
};

/* How to read a measurement file.  A NULL options pointer is all zeros. */
struct tau_csv_opts {
	const char *bytes_col; /* column of L: a header name or a 1-based
	                          number; NULL: a header column called bytes,
	                          size, length or L, else column 1 */
	const char *time_col;  /* column of the time, the same way; NULL: a
	                          header column called us, time_us, time,
	                          latency, ns, ms, s (...), else column 2 */
	double unit_us;        /* microseconds per unit of the time column;
	                          0: from the column's name (ns, ms, s, a
	                          _ns/_ms/_s suffix), else 1 (microseconds) */
	bool round_trip;       /* times are ping-pong round trips: halve them
	                          (001 §5.2, "divided by two to obtain the
	                          one-way latencies") */
};

/* Read measurement rows from text (len bytes) into out (appended); name
 * is used in diagnostics.  Format (docs/tau-model.md): comma-separated,
 * blank lines and lines starting with '#' ignored, an optional header
 * line naming the columns, then one row per measurement; other columns
 * are ignored.  Returns 0, CCP_EPARSE with d set to the bad row's
 * file:line:column, or CCP_ENOMEM.  text and o are borrowed. */
int tau_samples_parse(const char *name, const char *text, size_t len,
                      const struct tau_csv_opts *o, struct tau_samples *out,
                      struct tau_diag *d);
/* The same from a file; CCP_EIO (d says why) if it cannot be read. */
int tau_samples_read(const char *path, const struct tau_csv_opts *o,
                     struct tau_samples *out, struct tau_diag *d);
void tau_samples_fini(struct tau_samples *s);

/* A named latency line, as the rows of 001 Tables 5.1, 5.6 and 5.7
 * give them (system, T_s, T_n). */
struct tau_named {
	char label[64]; /* the row's name */
	double ts, tn;  /* T_s (us) and T_n (us/byte) */
	int line;       /* line of the CSV file it came from */
};

/* Named lines read from a file; zero-initialise, release with
 * tau_names_fini (after an error too). */
struct tau_names {
	struct tau_named *v; /* n entries, owned */
	size_t n, cap;
};

/* Read label,T_s,T_n rows (an optional header naming the columns label
 * or name, ts or t_s, tn or t_n; else columns 1, 2, 3) into out
 * (appended).  T_s must be > 0 and T_n >= 0.  Errors as
 * tau_samples_parse. */
int tau_names_parse(const char *name, const char *text, size_t len,
                    struct tau_names *out, struct tau_diag *d);
int tau_names_read(const char *path, struct tau_names *out, struct tau_diag *d);
void tau_names_fini(struct tau_names *s);

/* ---- least-squares fit ------------------------------------------------ */

/* T(L) = ts + tn*L fitted to samples by ordinary least squares, as 001
 * §5.2 derives T_s and T_n from ping-pong measurements. */
struct tau_fit {
	double ts, tn;       /* intercept (us) and slope (us/byte) */
	double tau;          /* tn/ts, eq. 5.2; NaN if ts == 0 */
	double se_ts, se_tn; /* standard errors; NaN with 2 samples */
	double r2;           /* coefficient of determination, 1 = exact */
	double rms;          /* root mean square of the residuals, us */
	double max_abs;      /* largest |residual|, us */
	size_t worst;        /* index of that sample */
	size_t n;            /* samples used */
	size_t sizes;        /* distinct message lengths among them */
	double *residual;    /* n entries, measured - fitted; owned */
	bool relative;       /* weighted by 1/T^2 (tau_fit_weighted) */
};

/* Fit n samples (borrowed).  Needs two distinct lengths: CCP_EINVAL with
 * a reason in err otherwise, or for non-finite values.  out is
 * overwritten; release with tau_fit_fini. */
int tau_fit(const struct tau_sample *s, size_t n, struct tau_fit *out,
            char *err, size_t errlen);
/* The same, weighting each sample by 1/T^2 when relative: least squares
 * of the relative errors, for lengths over many decades, where ordinary
 * least squares lets the longest messages set T_s.  Every time must
 * then be > 0 (CCP_EINVAL otherwise).  R^2 and rms stay unweighted. */
int tau_fit_weighted(const struct tau_sample *s, size_t n, bool relative,
                     struct tau_fit *out, char *err, size_t errlen);
void tau_fit_fini(struct tau_fit *f);

/* ---- machine costs from a ccplan-bench CSV ---------------------------- */

/* One plan row of a `ccplan-bench --csv` file, as the permutation model
 * prices it (docs/cost-models.md): us ~ tau*P + phi*B + combine*C. */
struct tau_cost_row {
	double p;      /* P: the plan's phases */
	double b;      /* B: phases * phase_bytes, bytes */
	double c;      /* C: phases * phase_combine, bytes combined */
	double us;     /* the measured median time, us (> 0) */
	double bytes;  /* the row's message bytes; NaN without a column */
	char name[48]; /* its case (truncated), or "" without a column */
	int line;      /* line of the CSV file it came from */
};

/* Rows read from a file; zero-initialise, release with
 * tau_cost_rows_fini (after an error too). */
struct tau_cost_rows {
	struct tau_cost_row *v; /* n entries, owned */
	size_t n, cap;
	size_t other;   /* data rows of another variant, skipped */
	size_t nophase; /* rows of the variant with an empty phases cell
	                   (MPI's own rows), skipped */
};

/* Read the rows of variant (NULL: "s2-nb", the bench's main plan
 * variant) with a non-empty phases cell from a bench CSV (len bytes) into
 * out (appended).  The file needs a header with the columns variant,
 * phases, phase_bytes, phase_combine and us (case and bytes are used when
 * there); '#' comments and blank lines are ignored as in
 * tau_samples_parse.  phases and us must be > 0, phase_bytes and
 * phase_combine >= 0.  Returns 0, CCP_EPARSE with d at the missing
 * column's header line or the bad cell (no rows of the variant is an
 * error too, naming the variants seen), or CCP_ENOMEM.  text and variant
 * are borrowed. */
int tau_cost_rows_parse(const char *name, const char *text, size_t len,
                        const char *variant, struct tau_cost_rows *out,
                        struct tau_diag *d);
/* The same from a file; CCP_EIO (d says why) if it cannot be read. */
int tau_cost_rows_read(const char *path, const char *variant,
                       struct tau_cost_rows *out, struct tau_diag *d);
void tau_cost_rows_fini(struct tau_cost_rows *r);

/* The fitted costs: tau, phi, combine >= 0 minimising the sum over rows
 * of ((tau*P + phi*B + combine*C - us)/us)^2. */
struct tau_cost_fit {
	double tau;        /* us per phase */
	double phi;        /* us per byte of a phase's largest transfer */
	double combine;    /* us per byte combined; 0 when !has_combine */
	bool has_combine;  /* some row has C > 0, so combine was fitted */
	bool held[3];      /* tau, phi, combine held at 0 by the constraint
	                      (its unconstrained value is negative) */
	double free[3];    /* the unconstrained fit of the same parameters */
	double r2;         /* 1 - sum log(fit/us)^2 / sum (log us - m)^2,
	                      m the mean log us: the coefficient of
	                      determination of the fit, in log space */
	double median_rel; /* median |relative residual| */
	double max_rel;    /* the largest |relative residual|, signed */
	size_t worst;      /* index of that row */
	size_t n;          /* rows used */
	double *rel;       /* n entries, (fitted - us)/us; owned */
};

/* Fit n rows (borrowed) by least squares of log(fitted/us) with tau,
 * phi, combine >= 0 (Gauss-Newton from the relative least-squares fit;
 * at each step the unconstrained normal equations are solved for every
 * subset of the parameters, the others 0, and the feasible solution with
 * the least residual kept, which is the constrained optimum).  combine is
 * fitted only when some row has C > 0.  Needs at least as many rows as
 * parameters and normal equations that are not singular (the columns P,
 * B, C not proportional): CCP_EINVAL with a reason in err otherwise.  out
 * is overwritten; release with tau_cost_fit_fini. */
int tau_cost_fit(const struct tau_cost_row *r, size_t n,
                 struct tau_cost_fit *out, char *err, size_t errlen);
void tau_cost_fit_fini(struct tau_cost_fit *f);

/* ---- generalised latency (eq. 5.1) ------------------------------------ */

/* A latency line T(L) = ts + tn*f(L), f(L) = L: eq. 5.1 with linear
 * L-complexity, which every algorithm here has. */
struct tau_line {
	double ts; /* T_s, us */
	double tn; /* T_n, us per byte */
};

/* The unicast parameters of 001 §5.3: a message of L bytes over h hops
 * costs alpha + h*hop + L*beta + gamma (the thesis writes h*beta; ccplan
 * keeps the header term apart as `hop`, docs/cost-models.md). */
struct tau_params {
	double alpha; /* start-up, us */
	double beta;  /* per byte, us */
	double hop;   /* per hop, us */
	double gamma; /* receive overhead, us */
};

/* An algorithm's latency as coefficients of the unicast parameters:
 *   T_s = alpha*a.alpha + gamma*a.gamma + hop*a.hop
 *   T_n = beta*a.bytes
 * the shape of every row of Table 5.3 (e.g. RD: 2n, 2n, 2(2^n - 1), 2n). */
struct tau_coef {
	double alpha; /* start-ups on the critical path */
	double gamma; /* receive overheads on it (steps) */
	double hop;   /* hops on it */
	double bytes; /* bytes on it per byte of the message */
};

/* tau = tn/ts (eq. 5.2); NaN when ts is 0. */
double tau_tau(struct tau_line l);
/* T(L) of a line. */
double tau_at(struct tau_line l, double bytes);
/* The line of coefficients c under parameters p (eq. 5.1). */
struct tau_line tau_eval(const struct tau_coef *c, const struct tau_params *p);
/* A one-hop unicast under p: T_s = alpha + hop + gamma, T_n = beta; for a
 * Table 5.1 machine (hop, gamma 0) that is the table's (T_s, T_n). */
struct tau_line tau_unicast(const struct tau_params *p);
/* Parameters from a machine's cost: alpha and beta must be set (finite,
 * >= 0); hop and gamma, if unset (NaN), are 0, which is Table 5.1's form
 * (its T_s includes the receive overhead, §5.1).  0 or CCP_EINVAL with
 * the field named in err. */
int tau_params_from_cost(const ir_cost *c, struct tau_params *p, char *err,
                         size_t errlen);

/* ---- Table 5.3 --------------------------------------------------------- */

/* The four broadcasts of 001 §5.3 on a 2^n x 2^n mesh. */
enum tau_alg {
	TAU_RD,  /* recursive doubling (dimensional broadcast) */
	TAU_SC,  /* scatter-collect */
	TAU_FT,  /* Fibonacci tree, k segments */
	TAU_EDN, /* extended dominating node */
	TAU_NALGS
};

/* "rd", "sc", "ft", "edn". */
const char *tau_alg_name(enum tau_alg a);
/* The generator that builds it: "rd", "scatter_collect", "fibonacci",
 * "edn" (schedules/sched.h). */
const char *tau_alg_generator(enum tau_alg a);
/* The algorithm called name (short or generator name): 0 or
 * CCP_ENOTFOUND. */
int tau_alg_find(const char *name, enum tau_alg *a);
/* t(P, k) of 001 §5.3: the least t with N(t, k) >= P, where N(t, k) =
 * N(t-k, k) + N(t-1, k) for t >= k and 1 otherwise.  -1 for p < 1 or
 * k < 1. */
int64_t tau_ft_steps(int64_t p, int32_t k);
/* Table 5.3's T_s and T_n of algorithm a on the 2^n x 2^n mesh as
 * coefficients (k: FT's segments, ignored by the others):
 *   RD   2n alpha + 2(2^n-1) beta + 2n gamma,        T_n 2n beta
 *   SC   2(2^n-1+n)(alpha+gamma) + 6(2^n-1) beta,    T_n 2(1-2^-2n) beta
 *   FT   t(P,k)(alpha+gamma) + 2k(2^n-1) beta,       T_n t(P,k)/k beta
 *   EDN  3n alpha + (n+1) gamma + (2^n-1) beta,      T_n (n+1) beta
 * The beta of T_s is the per-hop term (coefficient `hop`).  0, or
 * CCP_EINVAL for n outside 1..15 or k < 1. */
int tau_table53(enum tau_alg a, int n, int32_t k, struct tau_coef *out);

/* ---- a generated plan's latency ----------------------------------------- */

/* Plan p's coefficients under the unicast model (model_predict,
 * MODEL_UNICAST): the plan priced with one parameter 1 and the others 0,
 * i.e. the sum over phases of the phase's most start-ups (alpha), 1
 * (gamma), longest route (hop) and largest transfer over p->comm.bytes
 * (bytes).  These are the per-step maxima Table 5.3 adds up.  0,
 * CCP_EINVAL (err says why: a malformed plan, comm.bytes <= 0) or
 * CCP_ENOMEM.  p is borrowed. */
int tau_plan_coef(const ir_plan *p, struct tau_coef *out, char *err,
                  size_t errlen);
/* Plan p's latency line under parameters prm: T_s is the unicast model's
 * time with beta = 0 (the intercept of T(L)), T_n is beta times the
 * bytes coefficient (the slope for long messages).  *linear (may be NULL)
 * tells whether the model's T(L) is exactly that line for every L >= 0,
 * i.e. whether the transfers holding each phase's maxima coincide; when
 * not, the line is T(L)'s asymptote and T_s may be below the coefficient
 * sum.  Errors as tau_plan_coef. */
int tau_plan_line(const ir_plan *p, const struct tau_params *prm,
                  struct tau_line *out, bool *linear, char *err, size_t errlen);

/* ---- comparing two lines (eqs. 5.3-5.7, Figure 5.2) -------------------- */

/* Where lines a and b cross, and which is faster on either side. */
struct tau_cross {
	double l;        /* L* of eq. 5.5 (= eq. 5.6): (ts_a - ts_b) /
	                    (tn_b - tn_a); NaN when tn_a == tn_b */
	bool crosses;    /* 0 < l < inf: the order changes at l */
	int short_first; /* faster for 0 < L < l (for every L when
	                    !crosses): 0 = a, 1 = b, -1 = equal lines */
	int long_first;  /* faster for L > l (eq. 5.7); as short_first */
};

/* Compare a and b (eqs. 5.5-5.7).  0, or CCP_EINVAL for a non-finite
 * line. */
int tau_crossover(struct tau_line a, struct tau_line b, struct tau_cross *out);

/* Where a line q lies in the tau-plot around the point x (001 §5.1.3,
 * Figure 5.2): the lines tau = tau_x and T_s = T_s,x cut the plane in
 * four. */
enum tau_region {
	TAU_REGION_SAME, /* x itself (equal tau and T_s) */
	TAU_REGION_A,    /* tau <= tau_x, T_s <= T_s,x: faster at every L */
	TAU_REGION_B,    /* tau >= tau_x, T_s >= T_s,x: slower at every L */
	TAU_REGION_C,    /* tau < tau_x, T_s > T_s,x: slower for short
	                    messages, favours long ones */
	TAU_REGION_D     /* tau > tau_x, T_s < T_s,x: faster for short
	                    messages, favours short ones */
};

/* The region of q around x.  Both need T_s > 0 (tau is then defined);
 * values within a relative 1e-12 count as equal. */
enum tau_region tau_region_of(struct tau_line x, struct tau_line q);
/* "x", "A", "B", "C", "D". */
const char *tau_region_name(enum tau_region r);

/* ---- the tau-plot (SVG) ------------------------------------------------- */

enum tau_mark {
	TAU_MARK_MACHINE,   /* a machine's point-to-point line: circle */
	TAU_MARK_ALGORITHM, /* an algorithm on some machine: square */
	TAU_MARK_DATA       /* a line given by the user: triangle */
};

/* One point of the plot. */
struct tau_item {
	const char *label;    /* shown beside the marker; borrowed */
	struct tau_line line; /* its T_s (> 0) and T_n (>= 0) */
	enum tau_mark mark;   /* marker shape */
	int series;           /* 0: a point of its own; s > 0: the items of
	                         series s are joined in order, coloured as
	                         one, and only the last is labelled */
};

/* What to draw. */
struct tau_plot {
	const char *title;            /* top line, or NULL */
	const char *desc;             /* SVG <desc> text, or NULL */
	const struct tau_item *items; /* nitems entries, borrowed */
	size_t nitems;
	const char *const *series_names; /* nseries names for the legend:
	                                    series s is series_names[s-1] */
	size_t nseries;
	bool linear;             /* linear axes; default log-log */
	bool has_point;          /* shade regions A-D around point */
	struct tau_line point;   /* the chosen point x */
	const char *point_label; /* its name in the legend */
};

/* Draw the tau-plot (tau on x, T_s on y) of pl as a standalone SVG
 * document: axes with ticks, the items, and, with a point, the regions
 * A-D shaded around it, the curve T_n = T_n(x) dashed, and a legend.
 * *svg is a malloc'd NUL-terminated string of *len bytes, freed by the
 * caller with free().  0, CCP_EINVAL (err: an item with T_s <= 0 or
 * T_n < 0, or nothing to draw) or CCP_ENOMEM. */
int tau_plot_svg(const struct tau_plot *pl, char **svg, size_t *len, char *err,
                 size_t errlen);

#endif
