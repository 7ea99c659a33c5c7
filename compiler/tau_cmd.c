/*
 * tau_cmd.c - `ccplan tau fit` and `ccplan tau plot`: the tau-model of
 * thesis 001 chapter 5 on the command line.  fit reads measured (bytes,
 * time) rows and fits T_s and T_n (§5.2); plot places machines (Table
 * 5.1), broadcasts planned on a mesh (§5.3, Table 5.3) or given lines in
 * the tau-plot, shades the regions A-D around a chosen point and prints
 * the crossover lengths L* (eqs. 5.5-5.7).  The model is model/tau.c;
 * this file parses options, builds the plans and prints.
 * docs/tau-model.md describes both commands.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "front.h"
#include "model.h"
#include "sched.h"
#include "tau.h"
#include "tau_cmd.h"

static const char *const tc_prog = "ccplan tau";

const char tau_cmd_help[] =
        "usage: ccplan tau fit FILE.csv [options]\n"
        "       ccplan tau fit FILE.csv --costs [--variant NAME] [--brief]\n"
        "       ccplan tau plot [what] [--point P] [options] -o OUT.svg\n"
        "\n"
        "The tau-model of thesis 001 chapter 5: a latency T(L) = T_s + "
        "T_n*L is the\n"
        "point (tau = T_n/T_s, T_s) of the tau-plot.  'ccplan tau fit "
        "--help' and\n"
        "'ccplan tau plot --help' describe the two commands; "
        "docs/tau-model.md has\n"
        "the formats and formulas.\n";

static const char help_fit[] =
        "usage: ccplan tau fit FILE.csv [options]\n"
        "       ccplan tau fit FILE.csv --costs [--variant NAME] [--brief]\n"
        "\n"
        "Fit T(L) = T_s + T_n*L to measured (bytes, time) rows by least "
        "squares\n"
        "(001 §5.2) and print T_s, T_n, tau = T_n/T_s (eq. 5.2), R^2, "
        "the\n"
        "residual of every row and a 'cost:' block for a machine YAML.  "
        "The file:\n"
        "comma-separated (or, without commas, blank-separated, as the "
        "OSU\n"
        "micro-benchmarks print), '#' comments, an optional header "
        "naming the\n"
        "columns (bytes, size, length or L; us, time, latency, ns, ms, "
        "s, or a\n"
        "name ending in _us, _ns, _ms, _s); without a header column 1 is "
        "bytes\n"
        "and column 2 microseconds (osu_latency's output as it is).\n"
        "  --weight W       relative (default): each row by 1/T^2, so that "
        "short\n"
        "                   messages set T_s; uniform: ordinary least "
        "squares\n"
        "  --columns B,T    the length and time columns: header names or "
        "1-based\n"
        "                   numbers\n"
        "  --unit U         the time column's unit: us, ns, ms or s "
        "(default: from\n"
        "                   its header name, else us)\n"
        "  --round-trip     the times are ping-pong round trips: halve "
        "them\n"
        "  --against NAME   place the fit around machine preset NAME: its "
        "region\n"
        "                   A-D and the crossover length L* (eq. 5.5)\n"
        "  --brief          no table of residuals\n"
        "With --costs, fit a machine's costs instead, from the CSV of "
        "'ccplan-bench\n"
        "--csv': tau (us per phase), phi (us per byte) and combine (us "
        "per byte a\n"
        "receiver combines) of the permutation model, us = tau*P + phi*B "
        "+ combine*C\n"
        "with P = phases, B = phases*phase_bytes, C = "
        "phases*phase_combine, by\n"
        "least squares of log(fitted/measured), all three >= 0; print "
        "them, R^2,\n"
        "the residuals and a 'cost:' line for a machine YAML.\n"
        "  --costs          fit tau, phi and combine (not with --columns, "
        "--unit,\n"
        "                   --round-trip, --against)\n"
        "  --variant NAME   the rows of this variant (default s2-nb, "
        "the bench's\n"
        "                   main plan column: scheme S2, no barrier)\n"
        "Exit status: 0 ok, 2 bad input (the message gives "
        "file:line:column).\n";

static const char help_plot[] =
        "usage: ccplan tau plot [what] [--point P] [options] -o OUT.svg\n"
        "\n"
        "Draw the tau-plot (001 §5.1.2): tau = T_n/T_s across, T_s up.  "
        "Print each\n"
        "item's T_s, T_n and tau, and with --point its region A-D and the "
        "length L*\n"
        "where it and the point cross (eqs. 5.5-5.7).\n"
        "what (default: every machine of 001 Table 5.1):\n"
        "  --machines LIST     machine presets, comma-separated, or "
        "'table5.1'; each\n"
        "                      is its point-to-point line (T_s = "
        "alpha+hop+gamma,\n"
        "                      T_n = beta)\n"
        "  --algorithms LIST   broadcasts rd, sc, ft[:K] (K segments, "
        "default 4), edn,\n"
        "                      or any broadcast generator (NAME[:K]), "
        "planned on the\n"
        "                      mesh; with --machines, each one on every "
        "machine\n"
        "  --points FILE.csv   label,ts,tn rows (e.g. 001 Tables 5.6, "
        "5.7)\n"
        "algorithms:\n"
        "  --mesh N            the all-port N x N mesh, X-Y routing "
        "(default 32)\n"
        "  --root R            the broadcast's root rank (default 0)\n"
        "  --formula           001 Table 5.3's formulas instead of "
        "generated plans\n"
        "                      (rd, sc, ft, edn; N a power of two)\n"
        "  --params NAME       the preset whose alpha, beta, hop, gamma "
        "price them\n"
        "                      (default t3d-tau: 001 §5.4.2, alpha = "
        "gamma = 1.5 us,\n"
        "                      beta = 0.009 us/byte); unset hop and gamma "
        "are 0\n"
        "  --alpha A, --beta B, --hop H, --gamma G   override one "
        "parameter\n"
        "  --sweep P=FROM:TO:STEP   trace every algorithm as parameter P "
        "varies; P is\n"
        "                      alpha, beta, hop or gamma, or several "
        "joined by '+'\n"
        "                      (001 Fig. 5.8: alpha+gamma=0.5:1.5:0.1)\n"
        "the plot:\n"
        "  --point P           shade the regions A-D around P: a preset, "
        "an item's\n"
        "                      label, or TAU,TS\n"
        "  --linear            linear axes (default log-log)\n"
        "  --title TEXT        the plot's title\n"
        "  -o OUT.svg          the output, written atomically (required)\n"
        "Exit status: 0 ok, 2 bad input, 3 internal error.\n";

/* The options of fit and plot: what they parse, what completion offers
 * and what the man page must describe (the command table's subs). */
static const struct option fit_opts[] = {
        {"columns", required_argument, NULL, 'c'},
        {"unit", required_argument, NULL, 'u'},
        {"round-trip", no_argument, NULL, 'r'},
        {"against", required_argument, NULL, 'a'},
        {"brief", no_argument, NULL, 'b'},
        {"costs", no_argument, NULL, 'k'},
        {"variant", required_argument, NULL, 'n'},
        {"weight", required_argument, NULL, 'w'},
        {"help", no_argument, NULL, 'h'},
        {0},
};
static const char *const fit_args[128] = {
        ['w'] = "relative or uniform",
        ['c'] = "the columns, B,T",
        ['u'] = "a unit: us, ns, ms or s",
        ['a'] = "a machine preset",
        ['n'] = "a variant name, such as s2-nb",
};
/* --alpha, --beta, --hop and --gamma are '1' to '4', as tc_pnames */
static const struct option plot_opts[] = {
        {"machines", required_argument, NULL, 'm'},
        {"algorithms", required_argument, NULL, 'A'},
        {"points", required_argument, NULL, 'P'},
        {"mesh", required_argument, NULL, 'M'},
        {"root", required_argument, NULL, 'R'},
        {"formula", no_argument, NULL, 'f'},
        {"params", required_argument, NULL, 'p'},
        {"alpha", required_argument, NULL, '1'},
        {"beta", required_argument, NULL, '2'},
        {"hop", required_argument, NULL, '3'},
        {"gamma", required_argument, NULL, '4'},
        {"sweep", required_argument, NULL, 's'},
        {"point", required_argument, NULL, 'x'},
        {"linear", no_argument, NULL, 'l'},
        {"title", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {0},
};
static const char *const plot_args[128] = {
        ['m'] = "a list of machine presets",
        ['A'] = "a list of algorithms",
        ['P'] = "a file name",
        ['M'] = "a mesh side",
        ['R'] = "a rank",
        ['p'] = "a machine preset",
        ['1'] = "a number",
        ['2'] = "a number",
        ['3'] = "a number",
        ['4'] = "a number",
        ['s'] = "a sweep, P=FROM:TO:STEP",
        ['x'] = "a point",
        ['t'] = "a title",
        ['o'] = "a file name",
};
const struct cli_sub tau_cmd_subs[] = {
        {.name = "fit", .opts = fit_opts, .shorts = "h", .help = help_fit,
         .args = fit_args},
        {.name = "plot", .opts = plot_opts, .shorts = "o:h",
         .help = help_plot, .args = plot_args},
        {0},
};
const struct option tau_cmd_opts[] = {
        {"help", no_argument, NULL, 'h'},
        {0},
};

/* ---- shared helpers ------------------------------------------------------ */

/* Print a CSV diagnostic as compiler diagnostics are printed. */
static void tc_print_diag(const struct tau_diag *d)
{
	front_print_diag(stderr, d->file, d->line, d->column, d->message,
	                 d->source_line);
}

/* Say why reading a CSV file failed: its diagnostic, or no memory. */
static void tc_read_error(int rc, const struct tau_diag *d)
{
	if (rc == CCP_ENOMEM)
		fprintf(stderr, "%s: %s\n", tc_prog, ccp_strerror(rc));
	else
		tc_print_diag(d);
}

/* A number that must be finite: 0 or -1. */
static int tc_number(const char *s, double *v)
{
	char *end;
	double x = strtod(s, &end);
	if (end == s || *end != '\0' || !isfinite(x))
		return -1;
	*v = x;
	return 0;
}

/* A whole number in [lo, hi]: 0 or -1. */
static int tc_int(const char *s, long lo, long hi, long *v)
{
	char *end;
	long x = strtol(s, &end, 10);
	if (end == s || *end != '\0' || x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

/* The line of the preset called name, under tau_params_from_cost. */
static int tc_preset_params(const char *name, struct tau_params *p)
{
	const struct model_preset *m = model_preset_find(name);
	char err[256];
	if (!m) {
		fprintf(stderr,
		        "%s: no machine preset '%s' (docs/cost-models.md "
		        "lists them)\n",
		        tc_prog, name);
		return CCP_ENOTFOUND;
	}
	if (tau_params_from_cost(&m->cost, p, err, sizeof err) != 0) {
		fprintf(stderr, "%s: preset '%s': %s\n", tc_prog, name, err);
		return CCP_EINVAL;
	}
	return 0;
}

/* Describe how item q compares with the point x (eqs. 5.5-5.7). */
static void tc_verdict(struct tau_line q, struct tau_line x, char *buf,
                       size_t len)
{
	struct tau_cross c;
	if (tau_crossover(q, x, &c) != 0) {
		snprintf(buf, len, "-");
		return;
	}
	if (c.crosses)
		snprintf(buf, len, "%s than x below L* = %.6g bytes",
		         c.short_first == 0 ? "faster" : "slower", c.l);
	else if (c.short_first < 0)
		snprintf(buf, len, "the same line as x");
	else
		snprintf(buf, len, "%s than x at every L",
		         c.short_first == 0 ? "faster" : "slower");
}

/* The exit status of rc: unknown names and inapplicable algorithms are
 * the user's input, as bad options are. */
static int tc_exit(int rc)
{
	if (rc == CCP_ENOTFOUND || rc == CCP_ENOTAPPLY)
		return EXIT_BADINPUT;
	return exit_status(rc);
}

/* ---- tau fit ----------------------------------------------------------- */

/* `tau fit --costs`: tau, phi and combine of the permutation model
 * (docs/cost-models.md) from a ccplan-bench CSV, with a line to paste
 * into a machine YAML. */
static int tc_fit_costs(const char *path, const char *variant, bool brief)
{
	static const char *const pname[3] = {"tau", "phi", "combine"};
	struct tau_cost_rows rows = {0};
	struct tau_cost_fit f;
	struct tau_diag d;
	char err[256];
	memset(&d, 0, sizeof d);
	memset(&f, 0, sizeof f);
	if (!variant)
		variant = "s2-nb";
	int rc = tau_cost_rows_read(path, variant, &rows, &d);
	if (rc) {
		tc_read_error(rc, &d);
		goto out;
	}
	if ((rc = tau_cost_fit(rows.v, rows.n, &f, err, sizeof err)) != 0) {
		if (rc == CCP_ENOMEM)
			fprintf(stderr, "%s: %s\n", tc_prog, ccp_strerror(rc));
		else
			fprintf(stderr, "%s: %s\n", path, err);
		goto out;
	}
	size_t ncases = 0;
	for (size_t i = 0; i < rows.n; i++) {
		size_t j = 0;
		while (j < i && strcmp(rows.v[j].name, rows.v[i].name) != 0)
			j++;
		ncases += j == i;
	}
	printf("%s: %zu rows of variant %s, %zu case%s (skipped: %zu rows "
	       "of other variants, %zu without phases)\n",
	       path, f.n, variant, ncases, ncases == 1 ? "" : "s", rows.other,
	       rows.nophase);
	printf("model: us = tau*phases + phi*phases*phase_bytes%s, least "
	       "squares of log(fitted/us), >= 0\n",
	       f.has_combine ? " + combine*phases*phase_combine" : "");
	double v[3] = {f.tau, f.phi, f.combine};
	static const char *const unit[3] = {"us per phase", "us per byte",
	                                    "us per byte combined"};
	for (int k = 0; k < 3; k++) {
		if (k == 2 && !f.has_combine) {
			printf("combine  not fitted: no row combines "
			       "(phase_combine is 0 in every row)\n");
			continue;
		}
		printf("%-8s %.6g %s", pname[k], v[k], unit[k]);
		if (f.held[k])
			printf("  (held at 0: unconstrained %.6g)", f.free[k]);
		printf("\n");
	}
	printf("R^2      %.6f  (of log(fitted/measured), about the mean "
	       "log time)\n",
	       f.r2);
	printf("relative residuals  median %.3g%%, largest %+.3g%% (line %d, "
	       "%s)\n",
	       100 * f.median_rel, 100 * f.max_rel, rows.v[f.worst].line,
	       rows.v[f.worst].name[0] ? rows.v[f.worst].name : "-");
	printf("for the machine YAML:\n  cost: {tau: %.6g, phi: %.6g", f.tau,
	       f.phi);
	if (f.has_combine)
		printf(", combine: %.6g", f.combine);
	printf("}\n");
	if (!brief) {
		printf("\n%6s %-16s %10s %12s %12s %9s\n", "line", "case",
		       "bytes", "measured_us", "fitted_us", "relative");
		for (size_t i = 0; i < rows.n; i++) {
			const struct tau_cost_row *r = &rows.v[i];
			char b[32] = "-";
			if (!isnan(r->bytes))
				snprintf(b, sizeof b, "%.10g", r->bytes);
			printf("%6d %-16s %10s %12.6g %12.6g %+8.2f%%\n",
			       r->line, r->name[0] ? r->name : "-", b, r->us,
			       r->us * (1 + f.rel[i]), 100 * f.rel[i]);
		}
	}
out:
	tau_cost_fit_fini(&f);
	tau_cost_rows_fini(&rows);
	return tc_exit(rc);
}

static int tc_fit(int argc, char **argv)
{
	struct tau_csv_opts o = {0};
	const char *path, *against = NULL, *variant = NULL;
	const char *column_opt = NULL; /* an option of the columns mode */
	bool brief = false, costs = false, relative = true;
	const char *weight_opt = NULL;
	char cols[128];
	int v;
	optind = 0; /* argv is the subcommand's: getopt starts afresh */
	while ((v = cli_getopt_sub("tau fit", &tau_cmd_subs[0], argc, argv)) >=
	       0) {
		if (v == 'c') {
			snprintf(cols, sizeof cols, "%s", optarg);
			char *comma = strchr(cols, ',');
			if (!comma || comma == cols || !comma[1]) {
				fprintf(stderr,
				        "%s fit: --columns wants B,T (names "
				        "or numbers), got '%s'\n",
				        tc_prog, optarg);
				return EXIT_BADINPUT;
			}
			*comma = '\0';
			o.bytes_col = cols;
			o.time_col = comma + 1;
			column_opt = "--columns";
		} else if (v == 'u') {
			column_opt = "--unit";
			static const char *const u[] = {"ns", "us", "ms", "s"};
			static const double f[] = {1e-3, 1, 1e3, 1e6};
			for (int i = 0; i < 4; i++)
				if (strcmp(optarg, u[i]) == 0)
					o.unit_us = f[i];
			if (o.unit_us == 0) {
				fprintf(stderr,
				        "%s fit: --unit wants us, ns, ms or s, "
				        "got '%s'\n",
				        tc_prog, optarg);
				return EXIT_BADINPUT;
			}
		} else if (v == 'r') {
			o.round_trip = true;
			column_opt = "--round-trip";
		} else if (v == 'a') {
			against = optarg;
			column_opt = "--against";
		} else if (v == 'b') {
			brief = true;
		} else if (v == 'k') {
			costs = true;
		} else if (v == 'n') {
			variant = optarg;
		} else if (v == 'w') {
			weight_opt = "--weight";
			relative = strcmp(optarg, "uniform") != 0;
			if (relative && strcmp(optarg, "relative") != 0) {
				fprintf(stderr,
				        "%s fit: --weight wants relative or "
				        "uniform, got '%s'\n",
				        tc_prog, optarg);
				return EXIT_BADINPUT;
			}
		}
	}
	if (v != CLI_END)
		return cli_stop(v);
	if (optind >= argc)
		return cli_usage("tau fit", "missing FILE.csv");
	if (optind + 1 < argc) {
		cli_unexpected("tau fit", argv[optind + 1], help_fit);
		return EXIT_BADINPUT;
	}
	if (costs && column_opt)
		return cli_usage(
		        "tau fit",
		        "--costs fits the bench's columns; it takes no "
		        "%s",
		        column_opt);
	if (variant && !costs)
		return cli_usage("tau fit", "--variant is for --costs");
	if (costs && weight_opt)
		return cli_usage("tau fit",
		                 "--costs fits relative errors always; it "
		                 "takes no --weight");
	path = argv[optind];
	if (costs)
		return tc_fit_costs(path, variant, brief);
	struct tau_params ap;
	if (against && tc_preset_params(against, &ap) != 0)
		return EXIT_BADINPUT;

	struct tau_samples s = {0};
	struct tau_diag d;
	struct tau_fit f;
	char err[256];
	memset(&d, 0, sizeof d);
	memset(&f, 0, sizeof f);
	int rc = tau_samples_read(path, &o, &s, &d);
	if (rc) {
		tc_read_error(rc, &d);
		goto out;
	}
	if ((rc = tau_fit_weighted(s.s, s.n, relative, &f, err,
	                           sizeof err)) != 0) {
		fprintf(stderr, "%s: %s\n", path, err);
		goto out;
	}
	printf("%s: %zu samples, %zu message lengths, least squares "
	       "(001 §5.2)%s\n",
	       path, f.n, f.sizes,
	       relative ? " of relative errors (weights 1/T^2)" : "");
	printf("T_s   %.6g us", f.ts);
	if (!isnan(f.se_ts))
		printf("  (standard error %.3g)", f.se_ts);
	printf("\nT_n   %.6g us/byte", f.tn);
	if (!isnan(f.se_tn))
		printf("  (standard error %.3g)", f.se_tn);
	printf("\ntau   %.6g 1/byte  (T_n/T_s, eq. 5.2", f.tau);
	if (f.tau > 0)
		printf("; 1/tau = m_1/2 = %.6g bytes", 1 / f.tau);
	printf(")\nR^2   %.6f\n", f.r2);
	printf("residuals  rms %.4g us, largest %.4g us (line %d)\n", f.rms,
	       f.max_abs, s.s[f.worst].line);
	if (!(f.ts > 0))
		printf("note: T_s <= 0, so the fit has no place in the "
		       "tau-plot; the data may not follow T_s + T_n*L\n");
	if (against) {
		struct tau_line x = tau_unicast(&ap), q = {f.ts, f.tn};
		char v[128];
		tc_verdict(q, x, v, sizeof v);
		printf("against %s (T_s %.6g us, T_n %.6g us/byte, tau "
		       "%.6g):\n",
		       against, x.ts, x.tn, tau_tau(x));
		if (x.ts > 0 && q.ts > 0)
			printf("  region %s; ",
			       tau_region_name(tau_region_of(x, q)));
		else
			printf("  ");
		printf("%s\n", v);
	}
	if (f.ts > 0 && f.tn >= 0)
		printf("for the machine YAML (T_s as the start-up, with the "
		       "hops and the\nreceive overhead of the measured path "
		       "in it; T_n as the time per byte):\n"
		       "  cost: {alpha: %.6g, beta: %.6g, hop: 0, gamma: 0, "
		       "tau: %.6g, phi: %.6g}\n",
		       f.ts, f.tn, f.ts, f.tn);
	if (!brief) {
		printf("\n%6s %14s %14s %14s %12s\n", "line", "bytes",
		       "measured_us", "fitted_us", "residual");
		for (size_t i = 0; i < s.n; i++)
			printf("%6d %14.10g %14.6g %14.6g %12.4g\n",
			       s.s[i].line, s.s[i].bytes, s.s[i].us,
			       f.ts + f.tn * s.s[i].bytes, f.residual[i]);
	}
out:
	tau_fit_fini(&f);
	tau_samples_fini(&s);
	return tc_exit(rc);
}

/* ---- tau plot ------------------------------------------------------------ */

/* The items of the plot with their owned strings. */
struct tc_items {
	struct tau_item *v;
	char **row; /* v[i]'s name in the printed table */
	size_t n, cap;
	char **series; /* series names, owned */
	size_t nseries, capseries;
};

/* Append an item; label and row are copied.  0 or CCP_ENOMEM. */
static int tc_add(struct tc_items *t, const char *label, const char *row,
                  struct tau_line l, enum tau_mark m, int series)
{
	if (t->n == t->cap) {
		size_t c = t->cap ? 2 * t->cap : 32;
		struct tau_item *v = realloc(t->v, c * sizeof *v);
		if (!v)
			return CCP_ENOMEM;
		t->v = v;
		char **r = realloc(t->row, c * sizeof *r);
		if (!r)
			return CCP_ENOMEM;
		t->row = r;
		t->cap = c;
	}
	char *lab = label ? strdup(label) : NULL;
	char *rw = strdup(row);
	if ((label && !lab) || !rw) {
		free(lab);
		free(rw);
		return CCP_ENOMEM;
	}
	t->v[t->n] = (struct tau_item){lab, l, m, series};
	t->row[t->n++] = rw;
	return 0;
}

/* Open a new series called name; its number is t->nseries. */
static int tc_series(struct tc_items *t, const char *name)
{
	if (t->nseries == t->capseries) {
		size_t c = t->capseries ? 2 * t->capseries : 8;
		char **s = realloc(t->series, c * sizeof *s);
		if (!s)
			return CCP_ENOMEM;
		t->series = s;
		t->capseries = c;
	}
	if (!(t->series[t->nseries] = strdup(name)))
		return CCP_ENOMEM;
	t->nseries++;
	return 0;
}

static void tc_items_fini(struct tc_items *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free((char *)t->v[i].label);
		free(t->row[i]);
	}
	for (size_t i = 0; i < t->nseries; i++)
		free(t->series[i]);
	free(t->v);
	free(t->row);
	free(t->series);
	memset(t, 0, sizeof *t);
}

/* One parameter set the algorithms are priced with. */
struct tc_pset {
	char name[96]; /* "" for the single base set */
	struct tau_params p;
};

/* One algorithm asked for: a generator, its segments, and with
 * --formula its Table 5.3 row. */
struct tc_alg {
	char label[96];
	const struct sch_generator *g;
	int32_t segments;
	bool thesis;      /* one of Table 5.3's four */
	enum tau_alg alg; /* which, if thesis */
	struct tau_coef coef;
	ir_plan plan;
	bool have_plan;
};

/* Everything `tau plot` was asked. */
struct tc_plot_opts {
	const char *machines, *algorithms, *points, *point, *title, *out;
	const char *params, *sweep;
	bool formula, linear;
	long mesh, root;
	double over[4]; /* alpha, beta, hop, gamma overrides, NaN if none */
};

static const char *const tc_pnames[4] = {"alpha", "beta", "hop", "gamma"};

/* Set parameter k of p to v. */
static void tc_pset_set(struct tau_params *p, int k, double v)
{
	double *f[4] = {&p->alpha, &p->beta, &p->hop, &p->gamma};
	*f[k] = v;
}

/* The parameter sets: each machine of the list, or the base set (the
 * --params preset with overrides), swept if asked.  *out is malloc'd. */
static int tc_psets(const struct tc_plot_opts *o, const char *const *mach,
                    size_t nmach, struct tc_pset **out, size_t *n)
{
	struct tau_params base;
	*out = NULL;
	*n = 0;
	if (nmach > 0) {
		*out = calloc(nmach, sizeof **out);
		if (!*out)
			return CCP_ENOMEM;
		for (size_t i = 0; i < nmach; i++) {
			int rc = tc_preset_params(mach[i], &(*out)[i].p);
			if (rc)
				return rc;
			for (int k = 0; k < 4; k++)
				if (!isnan(o->over[k]))
					tc_pset_set(&(*out)[i].p, k,
					            o->over[k]);
			snprintf((*out)[i].name, sizeof(*out)[i].name, "%s",
			         mach[i]);
		}
		*n = nmach;
		return 0;
	}
	int rc = tc_preset_params(o->params ? o->params : "t3d-tau", &base);
	if (rc)
		return rc;
	for (int k = 0; k < 4; k++)
		if (!isnan(o->over[k]))
			tc_pset_set(&base, k, o->over[k]);
	if (!o->sweep) {
		*out = calloc(1, sizeof **out);
		if (!*out)
			return CCP_ENOMEM;
		(*out)[0].p = base;
		*n = 1;
		return 0;
	}
	/* P[+P...]=FROM:TO:STEP */
	char spec[128], *eq, *c1, *c2;
	bool which[4] = {false, false, false, false};
	double from, to, step;
	snprintf(spec, sizeof spec, "%s", o->sweep);
	if (!(eq = strchr(spec, '=')) || !(c1 = strchr(eq + 1, ':')) ||
	    !(c2 = strchr(c1 + 1, ':')))
		goto bad;
	*eq = *c1 = *c2 = '\0';
	if (tc_number(eq + 1, &from) || tc_number(c1 + 1, &to) ||
	    tc_number(c2 + 1, &step) || step <= 0 || to < from || from < 0 ||
	    (to - from) / step > 1000)
		goto bad;
	for (char *tok = strtok(spec, "+"); tok; tok = strtok(NULL, "+")) {
		int k = 0;
		while (k < 4 && strcmp(tok, tc_pnames[k]) != 0)
			k++;
		if (k == 4)
			goto bad;
		which[k] = true;
	}
	size_t cnt = (size_t)floor((to - from) / step + 1e-9) + 1;
	*out = calloc(cnt, sizeof **out);
	if (!*out)
		return CCP_ENOMEM;
	for (size_t i = 0; i < cnt; i++) {
		double v = from + (double)i * step;
		struct tc_pset *s = &(*out)[i];
		s->p = base;
		int at = 0;
		for (int k = 0; k < 4; k++)
			if (which[k]) {
				tc_pset_set(&s->p, k, v);
				at += snprintf(s->name + at,
				               sizeof s->name - (size_t)at,
				               "%s%s", at ? "=" : "",
				               tc_pnames[k]);
			}
		snprintf(s->name + at, sizeof s->name - (size_t)at, "=%g", v);
	}
	*n = cnt;
	return 0;
bad:
	fprintf(stderr,
	        "%s plot: --sweep wants P=FROM:TO:STEP with P alpha, beta, "
	        "hop or gamma (or several joined by '+'), 0 <= FROM <= TO, "
	        "STEP > 0 and at most 1000 steps; got '%s'\n",
	        tc_prog, o->sweep);
	return CCP_EINVAL;
}

/* Split a comma-separated list into a malloc'd array of pointers into a
 * malloc'd copy.  0 or CCP_ENOMEM; an empty element is CCP_EINVAL. */
static int tc_split(const char *list, char **copy, char ***v, size_t *n)
{
	*n = 0;
	*v = NULL;
	if (!(*copy = strdup(list)))
		return CCP_ENOMEM;
	size_t cap = 1;
	for (const char *p = list; *p; p++)
		cap += *p == ',';
	if (!(*v = malloc(cap * sizeof **v)))
		return CCP_ENOMEM;
	for (char *p = *copy;;) {
		char *c = strchr(p, ',');
		if (c)
			*c = '\0';
		if (!*p)
			return CCP_EINVAL;
		(*v)[(*n)++] = p;
		if (!c)
			break;
		p = c + 1;
	}
	return 0;
}

/* The machines of 001 Table 5.1: the presets whose source is it. */
static int tc_table51(char ***v, size_t *n)
{
	size_t np;
	const struct model_preset *p = model_preset_list(&np);
	*n = 0;
	if (!(*v = malloc(np * sizeof **v)))
		return CCP_ENOMEM;
	for (size_t i = 0; i < np; i++)
		if (strncmp(p[i].source, "001 Table 5.1", 13) == 0)
			(*v)[(*n)++] = (char *)p[i].name;
	return 0;
}

/* A checked all-port N x N mesh with X-Y routing and unset costs. */
static int tc_mesh(long side, ir_machine *m)
{
	char err[256];
	memset(m, 0, sizeof *m);
	m->topo = IR_MESH;
	m->routing = IR_ROUTE_DIM_ORDER;
	m->ports = IR_PORTS_ALL;
	m->ndims = 2;
	m->dims[0] = m->dims[1] = (int)side;
	m->dims[2] = 1;
	ir_cost_unset(&m->cost);
	if (ir_machine_check(m, err, sizeof err) != 0) {
		fprintf(stderr, "%s plot: --mesh %ld: %s\n", tc_prog, side,
		        err);
		return CCP_EINVAL;
	}
	return 0;
}

/* Resolve one algorithm NAME[:K], and build its plan or its Table 5.3
 * row.  Prints what is wrong. */
static int tc_alg(const char *spec, const struct tc_plot_opts *o,
                  const ir_machine *m, struct tc_alg *a)
{
	char name[64];
	long k = -1;
	memset(a, 0, sizeof *a);
	snprintf(name, sizeof name, "%s", spec);
	char *colon = strchr(name, ':');
	if (colon) {
		*colon = '\0';
		if (tc_int(colon + 1, 1, IR_MAX_SEGMENTS, &k)) {
			fprintf(stderr,
			        "%s plot: '%s': the segments after ':' must be "
			        "1..%d\n",
			        tc_prog, spec, IR_MAX_SEGMENTS);
			return CCP_EINVAL;
		}
	}
	a->thesis = tau_alg_find(name, &a->alg) == 0;
	a->g = sch_find(a->thesis ? tau_alg_generator(a->alg) : name);
	if (!a->g) {
		fprintf(stderr,
		        "%s plot: no algorithm '%s' (rd, sc, ft, edn or a "
		        "generator of 'ccplan --help')\n",
		        tc_prog, name);
		return CCP_ENOTFOUND;
	}
	bool ft = a->thesis && a->alg == TAU_FT;
	bool sc = a->thesis && a->alg == TAU_SC;
	a->segments = k > 0 ? (int32_t)k : ft ? 4 : sc ? m->nranks : 1;
	if (ft)
		snprintf(a->label, sizeof a->label, "ft k=%d",
		         (int)a->segments);
	else if (k > 0 && !sc)
		snprintf(a->label, sizeof a->label, "%s k=%d", name,
		         (int)a->segments);
	else
		snprintf(a->label, sizeof a->label, "%s", name);
	if (o->formula) {
		int n = 0;
		while (n < 16 && (1L << n) < o->mesh)
			n++;
		if (!a->thesis) {
			fprintf(stderr,
			        "%s plot: --formula knows Table 5.3's rd, sc, "
			        "ft and edn, not '%s'\n",
			        tc_prog, name);
			return CCP_EINVAL;
		}
		if ((1L << n) != o->mesh ||
		    tau_table53(a->alg, n, a->segments, &a->coef) != 0) {
			fprintf(stderr,
			        "%s plot: --formula: Table 5.3 is for 2^n x "
			        "2^n meshes, n = 1..15; --mesh %ld is not "
			        "one\n",
			        tc_prog, o->mesh);
			return CCP_EINVAL;
		}
		return 0;
	}
	ir_comm c;
	char why[256];
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	c.root = (int32_t)o->root;
	c.segments = a->segments;
	c.bytes = (int64_t)a->segments * 1024; /* whole pieces */
	if (o->root >= m->nranks) {
		fprintf(stderr,
		        "%s plot: --root %ld is not a rank of the %dx%d "
		        "mesh\n",
		        tc_prog, o->root, m->dims[0], m->dims[1]);
		return CCP_EINVAL;
	}
	if (sch_applies(a->g, m, &c, why, sizeof why) != 0) {
		fprintf(stderr, "%s plot: %s on the %dx%d mesh: %s\n", tc_prog,
		        a->label, m->dims[0], m->dims[1], why);
		return CCP_ENOTAPPLY;
	}
	struct sch_options so = {.hpam_price = model_hpam_price};
	int rc = sch_generate(a->g, m, &c, &so, &a->plan);
	a->have_plan = true;
	if (rc) {
		fprintf(stderr, "%s plot: generating %s: %s\n", tc_prog,
		        a->label, ccp_strerror(rc));
		return rc == CCP_ENOMEM ? rc : CCP_EINTERNAL;
	}
	ir_report r;
	memset(&r, 0, sizeof r);
	rc = ir_verify(&a->plan, &r);
	if (rc)
		fprintf(stderr, "%s plot: the %s plan fails the verifier: %s\n",
		        tc_prog, a->label, r.message);
	ir_report_fini(&r);
	return rc == CCP_EVERIFY ? CCP_EINTERNAL : rc;
}

/* The line of algorithm a under parameters p; *linear as tau_plan_line. */
static int tc_alg_line(struct tc_alg *a, const struct tau_params *p,
                       struct tau_line *l, bool *linear)
{
	char err[256];
	*linear = true;
	if (!a->have_plan) {
		*l = tau_eval(&a->coef, p);
		return 0;
	}
	int rc = tau_plan_line(&a->plan, p, l, linear, err, sizeof err);
	if (rc)
		fprintf(stderr, "%s plot: pricing %s: %s\n", tc_prog, a->label,
		        err);
	return rc == CCP_EINVAL ? CCP_EINTERNAL : rc;
}

/* The chosen point: TAU,TS, an item's label (its table name or plot
 * label), or a preset's point-to-point line. */
static int tc_point(const char *spec, const struct tc_items *t,
                    struct tau_line *x)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s", spec);
	char *comma = strchr(buf, ',');
	double tau, ts;
	if (comma) {
		*comma = '\0';
		if (tc_number(buf, &tau) || tc_number(comma + 1, &ts) ||
		    tau < 0 || ts <= 0) {
			fprintf(stderr,
			        "%s plot: --point TAU,TS wants tau >= 0 and "
			        "T_s > 0, got '%s'\n",
			        tc_prog, spec);
			return CCP_EINVAL;
		}
		*x = (struct tau_line){ts, tau * ts};
		return 0;
	}
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->row[i], spec) == 0) {
			*x = t->v[i].line;
			return 0;
		}
	for (size_t i = 0; i < t->n; i++) /* a series: its first point */
		if (t->v[i].label && strcmp(t->v[i].label, spec) == 0) {
			*x = t->v[i].line;
			return 0;
		}
	struct tau_params p;
	if (!model_preset_find(spec)) {
		fprintf(stderr,
		        "%s plot: --point '%s' is no item of the plot, no "
		        "preset and not TAU,TS\n",
		        tc_prog, spec);
		return CCP_ENOTFOUND;
	}
	int rc = tc_preset_params(spec, &p);
	if (!rc)
		*x = tau_unicast(&p);
	return rc;
}

/* Print the items, and with a point their regions and crossovers. */
static void tc_table(const struct tc_items *t, bool has_point,
                     struct tau_line x, const char *xname)
{
	size_t w = 10;
	for (size_t i = 0; i < t->n; i++)
		if (strlen(t->row[i]) > w)
			w = strlen(t->row[i]);
	if (has_point)
		printf("x = %s: T_s %.6g us, T_n %.6g us/byte, tau %.6g\n\n",
		       xname, x.ts, x.tn, tau_tau(x));
	printf("%-*s %12s %14s %12s", (int)w, "item", "T_s_us", "T_n_us/byte",
	       "tau");
	if (has_point)
		printf("  %s  %s", "region", "against x (eqs. 5.5-5.7)");
	printf("\n");
	for (size_t i = 0; i < t->n; i++) {
		struct tau_line l = t->v[i].line;
		printf("%-*s %12.6g %14.6g %12.6g", (int)w, t->row[i], l.ts,
		       l.tn, tau_tau(l));
		if (has_point) {
			char v[128];
			tc_verdict(l, x, v, sizeof v);
			printf("  %-6s  %s",
			       tau_region_name(tau_region_of(x, l)), v);
		}
		printf("\n");
	}
}

/* Parse `tau plot` options into o.  0, or the exit status to return + 1
 * (so that --help, which exits 0, is told apart). */
static int tc_plot_args(int argc, char **argv, struct tc_plot_opts *o)
{
	memset(o, 0, sizeof *o);
	o->mesh = 32;
	for (int k = 0; k < 4; k++)
		o->over[k] = NAN;
	int v;
	optind = 0; /* argv is the subcommand's: getopt starts afresh */
	while ((v = cli_getopt_sub("tau plot", &tau_cmd_subs[1], argc, argv)) >=
	       0) {
		if (v == 'm') {
			o->machines = optarg;
		} else if (v == 'A') {
			o->algorithms = optarg;
		} else if (v == 'P') {
			o->points = optarg;
		} else if (v == 'x') {
			o->point = optarg;
		} else if (v == 'M') {
			if (tc_int(optarg, 2, 4096, &o->mesh)) {
				fprintf(stderr,
				        "%s plot: --mesh wants a side 2..4096, "
				        "got '%s'\n",
				        tc_prog, optarg);
				return EXIT_BADINPUT + 1;
			}
		} else if (v == 'R') {
			if (tc_int(optarg, 0, IR_MAX_RANKS - 1, &o->root)) {
				fprintf(stderr,
				        "%s plot: --root wants a rank, got "
				        "'%s'\n",
				        tc_prog, optarg);
				return EXIT_BADINPUT + 1;
			}
		} else if (v == 'f') {
			o->formula = true;
		} else if (v == 'p') {
			o->params = optarg;
		} else if (v >= '1' && v <= '4') {
			int p = v - '1';
			if (tc_number(optarg, &o->over[p]) || o->over[p] < 0) {
				fprintf(stderr,
				        "%s plot: --%s wants a number >= 0, got "
				        "'%s'\n",
				        tc_prog, tc_pnames[p], optarg);
				return EXIT_BADINPUT + 1;
			}
		} else if (v == 's') {
			o->sweep = optarg;
		} else if (v == 'l') {
			o->linear = true;
		} else if (v == 't') {
			o->title = optarg;
		} else if (v == 'o') {
			o->out = optarg;
		}
	}
	if (v != CLI_END)
		return cli_stop(v) + 1;
	if (optind < argc) {
		cli_unexpected("tau plot", argv[optind], help_plot);
		return EXIT_BADINPUT + 1;
	}
	const char *why = NULL;
	if (!o->out)
		why = "-o OUT.svg is required";
	else if (o->sweep && !o->algorithms)
		why = "--sweep traces algorithms: give --algorithms";
	else if (o->sweep && o->machines)
		why = "--sweep and --machines both choose the parameters; "
		      "give one";
	else if (o->params && o->machines && o->algorithms)
		why = "--params and --machines both choose the parameters; "
		      "give one";
	else if (o->formula && !o->algorithms)
		why = "--formula prices algorithms: give --algorithms";
	if (why) {
		fprintf(stderr, "%s plot: %s\n", tc_prog, why);
		return EXIT_BADINPUT + 1;
	}
	return 0;
}

static int tc_plot(int argc, char **argv)
{
	struct tc_plot_opts o;
	char desc[1024]; /* the command line as typed: getopt reorders it */
	int at = snprintf(desc, sizeof desc, "made by: ccplan tau");
	for (int k = 0; k < argc && at < (int)sizeof desc; k++)
		at += snprintf(desc + at, sizeof desc - (size_t)at, " %s",
		               argv[k]);
	int st = tc_plot_args(argc, argv, &o);
	if (st)
		return st - 1;
	struct tc_items t = {0};
	struct tc_alg *algs = NULL;
	struct tc_pset *ps = NULL;
	struct tau_names pts = {0};
	char *mcopy = NULL, *acopy = NULL, **mach = NULL, **alist = NULL;
	size_t nmach = 0, nalg = 0, nps = 0, nnotlinear = 0;
	char *svg = NULL, err[512], title[160];
	size_t svglen = 0;
	int rc = 0;
	bool unwritten = false; /* exit 3, as every command's failed output */

	/* the machines: a list, Table 5.1, or (nothing chosen) Table 5.1 */
	if (o.machines && strcmp(o.machines, "table5.1") != 0 &&
	    strcmp(o.machines, "all") != 0)
		rc = tc_split(o.machines, &mcopy, &mach, &nmach);
	else if (o.machines || (!o.algorithms && !o.points))
		rc = tc_table51(&mach, &nmach);
	if (rc == CCP_EINVAL)
		fprintf(stderr, "%s plot: --machines has an empty name\n",
		        tc_prog);
	if (rc)
		goto out;
	if (!o.algorithms) {
		for (size_t i = 0; i < nmach; i++) {
			struct tau_params p;
			if ((rc = tc_preset_params(mach[i], &p)) != 0 ||
			    (rc = tc_add(&t, mach[i], mach[i], tau_unicast(&p),
			                 TAU_MARK_MACHINE, 0)) != 0)
				goto out;
		}
	} else {
		ir_machine m;
		if ((rc = tc_split(o.algorithms, &acopy, &alist, &nalg)) != 0) {
			if (rc == CCP_EINVAL)
				fprintf(stderr,
				        "%s plot: --algorithms has an empty "
				        "name\n",
				        tc_prog);
			goto out;
		}
		if ((rc = tc_mesh(o.mesh, &m)) != 0 ||
		    (rc = tc_psets(&o, (const char *const *)mach, nmach, &ps,
		                   &nps)) != 0)
			goto out;
		if (!(algs = calloc(nalg, sizeof *algs))) {
			rc = CCP_ENOMEM;
			goto out;
		}
		for (size_t a = 0; a < nalg; a++)
			if ((rc = tc_alg(alist[a], &o, &m, &algs[a])) != 0)
				goto out;
		for (size_t a = 0; a < nalg; a++) {
			int series = 0;
			if (nps > 1) {
				if ((rc = tc_series(&t, algs[a].label)) != 0)
					goto out;
				series = (int)t.nseries;
			}
			for (size_t i = 0; i < nps; i++) {
				struct tau_line l;
				bool lin;
				char row[192];
				if ((rc = tc_alg_line(&algs[a], &ps[i].p, &l,
				                      &lin)) != 0)
					goto out;
				nnotlinear += !lin;
				snprintf(row, sizeof row, "%s%s%s",
				         algs[a].label,
				         ps[i].name[0] ? " @ " : "",
				         ps[i].name);
				if ((rc = tc_add(&t, algs[a].label, row, l,
				                 TAU_MARK_ALGORITHM, series)) !=
				    0)
					goto out;
			}
		}
	}
	if (o.points) {
		struct tau_diag d;
		memset(&d, 0, sizeof d);
		if ((rc = tau_names_read(o.points, &pts, &d)) != 0) {
			tc_read_error(rc, &d);
			goto out;
		}
		for (size_t i = 0; i < pts.n; i++)
			if ((rc = tc_add(&t, pts.v[i].label, pts.v[i].label,
			                 (struct tau_line){pts.v[i].ts,
			                                   pts.v[i].tn},
			                 TAU_MARK_DATA, 0)) != 0)
				goto out;
	}

	struct tau_plot pl;
	memset(&pl, 0, sizeof pl);
	if (o.point) {
		if ((rc = tc_point(o.point, &t, &pl.point)) != 0)
			goto out;
		pl.has_point = true;
		pl.point_label = o.point;
	}
	if (o.algorithms) {
		printf("broadcasts on the %ldx%ld all-port mesh (X-Y routing, "
		       "root %ld), %s\n",
		       o.mesh, o.mesh, o.root,
		       o.formula ? "001 Table 5.3's formulas"
		                 : "generated plans under the unicast model");
		if (nps == 1)
			printf("parameters %s: alpha %g us, beta %g us/byte, "
			       "hop %g us, gamma %g us\n",
			       o.params ? o.params : "t3d-tau", ps[0].p.alpha,
			       ps[0].p.beta, ps[0].p.hop, ps[0].p.gamma);
		if (nnotlinear)
			printf("note: for %zu line%s the unicast model's T(L) "
			       "bends (the transfers holding a phase's "
			       "maxima differ); T_s is its intercept and T_n "
			       "its slope for long messages\n",
			       nnotlinear, nnotlinear == 1 ? "" : "s");
	}
	tc_table(&t, pl.has_point, pl.point, o.point);

	if (o.title)
		snprintf(title, sizeof title, "%s", o.title);
	else if (o.algorithms)
		snprintf(title, sizeof title,
		         "\xcf\x84-plot: broadcasts on the %ld\xc3\x97%ld "
		         "all-port mesh (%s)",
		         o.mesh, o.mesh,
		         o.formula ? "001 Table 5.3" : "generated plans");
	else
		snprintf(title, sizeof title,
		         "\xcf\x84-plot: point-to-point latency (001 Table "
		         "5.1)");
	pl.title = title;
	pl.desc = desc;
	pl.items = t.v;
	pl.nitems = t.n;
	pl.series_names = (const char *const *)t.series;
	pl.nseries = t.nseries;
	pl.linear = o.linear;
	if ((rc = tau_plot_svg(&pl, &svg, &svglen, err, sizeof err)) != 0) {
		fprintf(stderr, "%s plot: %s\n", tc_prog, err);
		goto out;
	}
	if ((rc = write_atomic(o.out, svg, svglen, err, sizeof err)) != 0) {
		fprintf(stderr, "%s plot: %s\n", tc_prog, err);
		unwritten = rc == CCP_EIO;
		goto out;
	}
	printf("\nwrote %s (%zu items)\n", o.out, t.n);
out:
	if (rc == CCP_ENOMEM)
		fprintf(stderr, "%s: %s\n", tc_prog, ccp_strerror(rc));
	free(svg);
	for (size_t a = 0; algs && a < nalg; a++)
		if (algs[a].have_plan)
			ir_plan_fini(&algs[a].plan);
	free(algs);
	free(ps);
	free(mach);
	free(mcopy);
	free(alist);
	free(acopy);
	tau_names_fini(&pts);
	tc_items_fini(&t);
	return unwritten ? EXIT_INTERNAL : tc_exit(rc);
}

int cmd_tau(int argc, char **argv)
{
	static const struct cli_sub top = {.name = "tau",
	                                   .opts = tau_cmd_opts,
	                                   .shorts = "+h",
	                                   .help = tau_cmd_help};
	int v;
	optind = 0; /* a new command line (tests call cmd_tau again) */
	while ((v = cli_getopt_sub("tau", &top, argc, argv)) >= 0)
		;
	if (v != CLI_END)
		return cli_stop(v);
	if (optind >= argc)
		return cli_usage("tau", "missing fit or plot");
	const char *sub = argv[optind];
	if (strcmp(sub, "help") == 0) {
		fputs(tau_cmd_help, stdout);
		return EXIT_OK;
	}
	if (strcmp(sub, "fit") == 0)
		return tc_fit(argc - optind, argv + optind);
	if (strcmp(sub, "plot") == 0)
		return tc_plot(argc - optind, argv + optind);
	return cli_usage("tau", "unknown command '%s'; expected fit or plot",
	                 sub);
}
