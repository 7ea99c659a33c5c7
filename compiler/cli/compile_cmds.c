/*
 * compile_cmds.c - the commands that build plans: compile (with the plan
 * cache: a hit is served sealed or verified again), compare (every
 * algorithm that applies, ranked) and simulate (the network simulator).
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cache.h"
#include "cached.h"
#include "cli.h"
#include "emit_c.h"
#include "json.h"
#include "model.h"
#include "progress.h"
#include "report.h"
#include "select.h"

const char cli_compile_help[] =
        "usage: ccplan compile IN.yaml [-o OUT.ccp] [-v] [--cache PATH | "
        "--no-cache]\n"
        "                      [--emit ccp|c] [--name NAME] [--max-memory "
        "SIZE]\n"
        "\n"
        "Read the machine and communication in IN.yaml, generate the plan with "
        "the\n"
        "algorithm it names, verify it, and write the binary plan.  Without -o "
        "the\n"
        "plan goes to the input's base name with .ccp, in the current "
        "directory.\n"
        "Nothing is written unless the verifier accepts the plan; the file "
        "appears\n"
        "whole or not at all.\n"
        "A plan compiled before from the same input (whatever its spelling) "
        "comes\n"
        "from the plan cache instead: one this user's ccplan verified and "
        "sealed\n"
        "is served as it is, any other is verified again first as "
        "'ccplan verify'\n"
        "does; one that fails is removed from the cache and compiled "
        "afresh\n"
        "(docs/cache.md).  An output file that already holds the plan is "
        "not\n"
        "written again, only its time set to now.\n"
        "  -o FILE        output file\n"
        "  --emit ccp     write the binary plan (the default)\n"
        "  --emit c       write the plan as C tables with one symbol, "
        "a\n"
        "                 struct ccp_emitted_plan (docs/emit-c.md); "
        "without -o\n"
        "                 the file is the input's base name with .c\n"
        "  --name NAME    the C symbol (default: from the output file's "
        "name)\n"
        "  -v             print the summary of the plan, and cache hit or "
        "miss,\n"
        "                 on stderr\n"
        "  --cache PATH   the cache file (default $CCPLAN_CACHE, else\n"
        "                 $XDG_CACHE_HOME/ccplan/plans.db, else\n"
        "                 ~/.cache/ccplan/plans.db)\n"
        "  --no-cache     neither read nor write the cache\n"
        "  --max-memory SIZE\n"
        "                 refuse an input whose plan would need more than "
        "SIZE of\n"
        "                 memory to build, estimated before anything is "
        "built\n"
        "                 (SIZE as 512M or 16G; default $CCPLAN_MAX_MEMORY, "
        "else 4G)\n"
        "A cache another user owns, or that group or others can write (its "
        "file,\n"
        "directory, companions), is refused with a warning unless "
        "CCPLAN_CACHE_TRUST\n"
        "names it ('ccplan help environment').\n";

const char cli_compare_help[] =
        "usage: ccplan compare IN.yaml [--model] [--svg OUT.svg [--sizes "
        "MIN:MAX]]\n"
        "                      [--json [-o OUT.json]]\n"
        "\n"
        "Generate every algorithm that applies to the machine and "
        "communication of\n"
        "IN.yaml (its algorithm key is ignored), verify each, and rank "
        "them by\n"
        "simulated time (--model: by the cost model).  The table gives "
        "phases\n"
        "against the lower bound, the contention the plan allows, the "
        "model's\n"
        "time and the simulator's last and mean delivery; then the "
        "message sizes\n"
        "at which the model's order of the top two changes.  Times need "
        "the\n"
        "machine's costs (machine.cost, or a preset: ccplan help "
        "presets).\n"
        "  --svg FILE       also draw every ranked algorithm's time "
        "against the\n"
        "                   message size, log-log (simulated, or the "
        "model's with\n"
        "                   --model), the crossovers marked "
        "(docs/report.md);\n"
        "                   the text then gives those crossovers, where "
        "the fastest\n"
        "                   of all changes, instead of the first two's\n"
        "  --sizes MIN:MAX  the sizes drawn: powers of two from MIN to "
        "MAX bytes\n"
        "                   (K, M, G or KiB, MiB, GiB; default 8:1M)\n"
        "  --json           the ranking as one JSON object "
        "(docs/cli.md), to stdout\n"
        "                   or to -o OUT.json\n";
const char cli_simulate_help[] =
        "usage: ccplan simulate FILE [--barriers] [--half-duplex] "
        "[--links shared|fifo]\n"
        "                       [--json [-o OUT.json]]\n"
        "\n"
        "Run a plan (.ccp, or a .yaml compiled in memory) through the "
        "wormhole\n"
        "network simulator (docs/simulator.md): per-hop header latency, "
        "links\n"
        "shared by messages that overlap in time, serialised start-ups, "
        "the\n"
        "machine's ports, no phase barriers unless --barriers.  Prints "
        "the last\n"
        "and the mean delivery time against the cost model's "
        "prediction.\n"
        "  --barriers      a phase starts when the one before it is "
        "delivered\n"
        "  --half-duplex   a rank's send and receive of different partners "
        "run one\n"
        "                  after the other, a pairwise exchange overlaps "
        "(the\n"
        "                  iPSC/860 node of 004 section 2.2)\n"
        "  --links shared  links with virtual channels: messages on a link "
        "share\n"
        "                  its bandwidth equally (the default)\n"
        "  --links fifo    links without virtual channels: a header takes "
        "its\n"
        "                  links one by one, first come first served, "
        "holding\n"
        "                  them until its tail is in (001 section 4.2)\n"
        "  --json          the same numbers as one JSON object "
        "(docs/cli.md), to\n"
        "                  stdout or to -o OUT.json\n";

/* The options of compile, compare and simulate (the table's). */
const char *const cli_compile_args[128] = {
        ['o'] = "a file name",
        ['C'] = "a cache file",
        ['e'] = "a format, ccp or c",
        ['n'] = "a C name",
        ['m'] = "a size, such as 512M",
};
const char *const cli_compare_args[128] = {
        ['o'] = "a file name",
        ['s'] = "a file name",
        ['S'] = "sizes, MIN:MAX",
};
const char *const cli_simulate_args[128] = {
        ['o'] = "a file name",
        ['l'] = "a kind of link, shared or fifo",
};
const struct option cli_compile_opts[] = {
        {"cache", required_argument, NULL, 'C'},
        {"no-cache", no_argument, NULL, 'N'},
        {"emit", required_argument, NULL, 'e'},
        {"name", required_argument, NULL, 'n'},
        {"max-memory", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {0},
};
const struct option cli_compare_opts[] = {
        {"model", no_argument, NULL, 'M'},
        {"json", no_argument, NULL, 'j'},
        {"svg", required_argument, NULL, 's'},
        {"sizes", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {0},
};
const struct option cli_simulate_opts[] = {
        {"barriers", no_argument, NULL, 'b'},
        {"json", no_argument, NULL, 'j'},
        {"half-duplex", no_argument, NULL, 'd'},
        {"links", required_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {0},
};

/* The summary line of a compile that wrote out (or found it there). */
static void note_written(const char *in, const char *out, bool is_auto,
                         const char *algorithm, uint32_t phases,
                         uint32_t bound, int32_t nranks, bool from_cache)
{
	summary_note("%s -> %s, %s%s, %u phases (bound %u), %d ranks%s", in,
	             out, is_auto ? "auto: " : "", algorithm, phases, bound,
	             (int)nranks, from_cache ? ", from the cache" : "");
}

/* compile --no-cache to a .ccp: no cache wants the image, so the plan
 * is encoded straight into its file (compile_write) and never held in
 * memory whole, which at millions of ranks is gigabytes (issue 20). */
static int compile_to_file(const char *in, const struct front_input *fin,
                           const char *out, bool verbose)
{
	struct compiled c;
	char err[512];
	int rc = cli_compile_parsed(in, fin, &c);
	if (rc)
		return rc;
	if ((rc = compile_write(&c, out, err, sizeof err)) != 0) {
		fprintf(stderr, "%s: %s\n", cli_prog, err);
	} else {
		if (verbose)
			fprintf(stderr,
			        "%s: %s, %u phases (lower bound %u), %llu "
			        "transfers -> %s\n",
			        in, c.plan.algorithm, c.report.phases,
			        c.report.lb_phases,
			        (unsigned long long)c.report.transfers, out);
		note_written(in, out, strcmp(fin->algorithm, "auto") == 0,
		             c.plan.algorithm, c.plan.nphases,
		             c.report.lb_phases, c.plan.machine.nranks, false);
	}
	compiled_fini(&c);
	return rc;
}

int cli_compile(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *cname = NULL;
	bool verbose = false, emit_c_src = false;
	struct cli_cache_opt co = {0};
	int v;
	while ((v = cli_getopt(argc, argv)) >= 0) {
		if (v == 'C') {
			co.path = optarg;
		} else if (v == 'N') {
			co.off = true;
		} else if (v == 'o') {
			out = optarg;
		} else if (v == 'v') {
			verbose = true;
		} else if (v == 'e') {
			if (strcmp(optarg, "c") != 0 &&
			    strcmp(optarg, "ccp") != 0) {
				fprintf(stderr,
				        "%s compile: --emit: unknown format "
				        "'%s'; expected ccp or c\n",
				        cli_prog, optarg);
				return EXIT_BADINPUT;
			}
			emit_c_src = strcmp(optarg, "c") == 0;
		} else if (v == 'n') {
			cname = optarg;
		} else if (v == 'm' &&
		           !cli_max_memory(" compile: --max-memory", optarg)) {
			return EXIT_BADINPUT;
		}
	}
	if (v != CLI_END)
		return cli_stop(v);
	if (!(in = cli_operand(argc, argv, "IN.yaml")))
		return EXIT_BADINPUT;
	char defout[1024];
	if (!out) {
		/* every dot but the extension's stays: bcast.v2.yaml and
		 * bcast.v3.yaml must not both write bcast.ccp */
		const char *base = cli_base_name(in);
		size_t n = strlen(base);
		if (cli_ends_with(base, ".yaml"))
			n -= 5;
		else if (cli_ends_with(base, ".yml"))
			n -= 4;
		snprintf(defout, sizeof defout, "%.*s.%s", (int)n, base,
		         emit_c_src ? "c" : "ccp");
		out = defout;
	}
	char cname_buf[EMIT_C_NAME_MAX + 1];
	if (emit_c_src && !cname) {
		emit_c_name_from_path(out, cname_buf);
		cname = cname_buf;
	}
	if (cname && (!emit_c_src || !emit_c_name_ok(cname))) {
		fprintf(stderr,
		        "%s compile: --name '%s': %s\n", cli_prog, cname,
		        emit_c_src ? "want a C identifier (at most 63 "
		                     "characters, not a keyword, not starting "
		                     "with '_' or 'ccp_')"
		                   : "only with --emit c");
		return EXIT_BADINPUT;
	}
	summary_note("%s", in);
	struct front_input fin;
	int rc = cli_parse_yaml(in, &fin);
	if (rc)
		return exit_status(rc);
	if (co.off && !emit_c_src) {
		rc = compile_to_file(in, &fin, out, verbose);
		front_input_fini(&fin);
		return rc == CCP_EIO ? EXIT_INTERNAL : exit_status(rc);
	}
	/* the cache, unless it is off: a plan compiled before comes from it,
	 * sealed or verified again; a new one goes into it */
	char err[512], path[4096];
	struct compile_cache cc;
	struct cached_notes w = {0};
	struct cached_plan cp;
	compile_cache_open(&cc,
	                   !co.off && cli_cache_where(&co, path, sizeof path,
	                                              verbose)
	                           ? path
	                           : NULL,
	                   CACHE_NO_CHECK, &w);
	ir_file_info fi;
	bool is_auto = strcmp(fin.algorithm, "auto") == 0;
	memset(&cp, 0, sizeof cp);
	/* a hit the output file already holds, sealed: one pass through the
	 * file, which is left as it is, its times now */
	if (!emit_c_src && cc.sealing &&
	    front_input_hash(&fin, cp.key) == 0 &&
	    compile_cached_in_file(&cc, cp.key, out, &fi) &&
	    utimensat(AT_FDCWD, out, NULL, 0) == 0) {
		for (int i = 0; i < w.n; i++)
			fprintf(stderr, "%s: warning: %s\n", cli_prog,
			        w.text[i]);
		cache_key_hex(cp.key, cp.hex);
		if (verbose)
			fprintf(stderr,
			        "%s: cache hit %s\n%s: -> %s (from the cache; "
			        "the file held it already)\n",
			        in, cp.hex, in, out);
		note_written(in, out, is_auto, fi.algorithm, fi.nphases,
		             fi.lb_phases, fi.nranks, true);
		goto out_close;
	}
	if ((rc = cli_compile_cached(in, &fin, &cc, &cp, &w)) != 0)
		goto out_close;
	if (verbose && cp.hit)
		fprintf(stderr, "%s: cache hit %s\n", in, cp.hex);
	else if (verbose && cp.stored)
		fprintf(stderr, "%s: cache miss, stored %s\n", in, cp.hex);
	const uint8_t *img = cp.img;
	size_t len = cp.len;
	bool compiled = !cp.hit, same = false;
	if (emit_c_src) {
		char *src = NULL;
		size_t srclen = 0;
		rc = emit_c(img, len, cname, &src, &srclen, err, sizeof err);
		if (rc == 0)
			rc = write_atomic(out, src, srclen, err, sizeof err);
		free(src);
	} else if (cp.hit) {
		/* a hit the output already holds is not written again */
		rc = write_unless_same(out, img, len, &same, err, sizeof err);
	} else {
		rc = write_atomic(out, img, len, err, sizeof err);
	}
	if (rc == 0)
		cli_warn_by_phases(in, cp.by_phases);
	if (rc)
		fprintf(stderr, "%s: %s\n", cli_prog, err);
	else if (verbose && compiled)
		fprintf(stderr,
		        "%s: %s, %u phases (lower bound %u), %llu transfers -> "
		        "%s\n",
		        in, cp.meta.algorithm, cp.meta.phases,
		        cp.meta.lb_phases, (unsigned long long)cp.transfers,
		        out);
	else if (verbose)
		fprintf(stderr, "%s: -> %s (from the cache%s)\n", in, out,
		        same ? "; the file held it already" : "");
	if (rc == 0 && ir_file_info_read(img, len, &fi, err, sizeof err) == 0)
		note_written(in, out, is_auto, fi.algorithm, fi.nphases,
		             fi.lb_phases, fi.nranks, !compiled);
out_close:
	compile_cache_close(&cc);
	cached_plan_fini(&cp);
	cached_notes_fini(&w);
	front_input_fini(&fin);
	return rc == CCP_EIO ? EXIT_INTERNAL : exit_status(rc);
}

/* "1.5 us" style, or "-" for NaN. */
static void fmt_us(double us, char *buf, size_t len)
{
	if (isnan(us))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", us);
}

/* The contention a plan allows, in one word. */
static const char *contention_word(const ir_plan *p)
{
	return p->flags & IR_PLAN_LINK_CONTENTION   ? "link"
	       : p->flags & IR_PLAN_NODE_CONTENTION ? "node"
	                                            : "none";
}

/* compare's table: the ranked algorithms, those without a plan, those
 * that do not apply (with the reason) and those for other collectives;
 * how they were ranked; the crossovers the plot marks (plotted, the
 * sweep of --svg), or without one the model's crossovers at[0..nat) of
 * the top two (nat < 0: no top two). */
static void compare_text(const struct front_input *in,
                         const struct select_result *sr, const int64_t *at,
                         int nat, const struct report_sweep *plotted)
{
	int w = 16; /* the name column: as wide as the longest name */
	for (size_t i = 0; i < sr->n; i++)
		if ((int)strlen(sr->rows[i].g->name) > w)
			w = (int)strlen(sr->rows[i].g->name);
	printf("%-3s %-*s %6s %5s  %-10s %12s %12s %12s\n", "#", w, "algorithm",
	       "phases", "bound", "contention", "model us", "sim max us",
	       "sim mean us");
	int ranked = 0;
	for (size_t i = 0; i < sr->n; i++) {
		const struct select_row *r = &sr->rows[i];
		if (r->rc) {
			printf("-   %-*s %s\n", w, r->g->name, r->why);
			continue;
		}
		char a[32], b[32], c[32];
		fmt_us(r->predicted, a, sizeof a);
		fmt_us(r->sim_max, b, sizeof b);
		fmt_us(r->sim_avg, c, sizeof c);
		printf("%-3d %-*s %6u %5u  %-10s %12s %12s %12s\n", ++ranked, w,
		       r->g->name, r->report.phases, r->report.lb_phases,
		       contention_word(&r->plan), a, b, c);
	}
	/* the algorithms that do not apply: each with its reason, except
	 * those made for other collectives, named on one line */
	int other = 0;
	for (int k = 0; sch_generators[k]; k++) {
		const struct sch_generator *g = sch_generators[k];
		char why[256];
		if (!(g->domain.colls & SCH_C(in->comm.coll)))
			other++;
		else if (sch_applies(g, &in->machine, &in->comm, why,
		                     sizeof why) != 0)
			printf("-   %-*s does not apply: %s\n", w, g->name,
			       why);
	}
	for (int k = 0, n = 0; other && sch_generators[k]; k++) {
		if (sch_generators[k]->domain.colls & SCH_C(in->comm.coll))
			continue;
		printf("%s%s", n ? ", " : "\nnot for this collective: ",
		       sch_generators[k]->name);
		if (++n == other)
			printf("\n");
	}
	const char *by = select_ranked_by(sr);
	bool timed = strncmp(by, "phases", 6) != 0;
	printf("\nranked by %s", by);
	if (timed && sr->n && sr->rows[0].rc == 0)
		printf(" (%s model)", model_kind_name(sr->model));
	printf("\n");
	if (sr->model_why[0])
		printf("model: %s\n", sr->model_why);
	if (sr->sim_why[0] && !sr->by_model)
		printf("simulator: %s\n", sr->sim_why);
	if (plotted && plotted->ncross == 0) {
		printf("no crossover between %lld and %lld bytes (as "
		       "plotted)\n",
		       (long long)plotted->sizes[0],
		       (long long)plotted->sizes[plotted->nsizes - 1]);
	} else if (plotted) {
		printf("crossovers, where the fastest changes (as plotted, "
		       "%s):",
		       plotted->by_model ? "model" : "simulated");
		for (size_t k = 0; k < plotted->ncross; k++) {
			const struct report_cross *x = &plotted->cross[k];
			char where[32];
			report_cross_at(x, where, sizeof where);
			printf("%s %s -> %s at %s", k ? "," : "",
			       plotted->algs[x->from]->name,
			       plotted->algs[x->to]->name, where);
		}
		printf("\n");
	} else if (nat > 0) {
		printf("crossovers of %s and %s (model):", sr->rows[0].g->name,
		       sr->rows[1].g->name);
		for (int i = 0; i < nat; i++)
			printf(" %lld", (long long)at[i]);
		printf(" bytes\n");
	} else if (nat == 0 && in->comm.coll != IR_IRREGULAR &&
	           !isnan(sr->rows[0].predicted)) {
		printf("no crossover of %s and %s between 1 byte and 16 MiB "
		       "(model)\n",
		       sr->rows[0].g->name, sr->rows[1].g->name);
	}
	printf("%d of %zu algorithms that apply made a verified plan\n", ranked,
	       sr->n);
}

/* compare's table as one JSON object (docs/cli.md, "JSON output"). */
static void compare_json(FILE *out, const char *file,
                         const struct front_input *in,
                         const struct select_result *sr, const int64_t *at,
                         int nat, const struct report_sweep *plotted)
{
	const char *by = select_ranked_by(sr);
	bool timed = strncmp(by, "phases", 6) != 0;
	fputs("{\"format\":\"ccplan-compare\",\"version\":1,\"input\":", out);
	json_put_string(out, file, SIZE_MAX);
	fputs(",\"collective\":", out);
	json_put_string(out, ir_coll_name(in->comm.coll), SIZE_MAX);
	fprintf(out, ",\"ranks\":%d,\"ranked_by\":\"%s\",\"model\":",
	        (int)in->machine.nranks,
	        !timed         ? "phases"
	        : sr->by_model ? "model"
	                       : "simulated");
	if (timed && sr->n && sr->rows[0].rc == 0)
		json_put_string(out, model_kind_name(sr->model), SIZE_MAX);
	else
		fputs("null", out);
	fputs(",\"ranked\":[", out);
	int ranked = 0;
	for (size_t i = 0; i < sr->n; i++) {
		const struct select_row *r = &sr->rows[i];
		if (r->rc)
			continue;
		fprintf(out, "%s{\"rank\":%d,\"algorithm\":", ranked ? "," : "",
		        ranked + 1);
		ranked++;
		json_put_string(out, r->g->name, SIZE_MAX);
		fprintf(out,
		        ",\"phases\":%u,\"bound\":%u,\"contention\":\"%s\","
		        "\"model_us\":",
		        r->report.phases, r->report.lb_phases,
		        contention_word(&r->plan));
		json_put_number(out, r->predicted);
		fputs(",\"sim_max_us\":", out);
		json_put_number(out, r->sim_max);
		fputs(",\"sim_mean_us\":", out);
		json_put_number(out, r->sim_avg);
		fputc('}', out);
	}
	fputs("],\"failed\":[", out);
	for (size_t i = 0, n = 0; i < sr->n; i++) {
		if (!sr->rows[i].rc)
			continue;
		fputs(n++ ? ",{\"algorithm\":" : "{\"algorithm\":", out);
		json_put_string(out, sr->rows[i].g->name, SIZE_MAX);
		fputs(",\"reason\":", out);
		json_put_string(out, sr->rows[i].why, sizeof sr->rows[i].why);
		fputc('}', out);
	}
	fputs("],\"not_applicable\":[", out);
	for (int k = 0, n = 0; sch_generators[k]; k++) {
		const struct sch_generator *g = sch_generators[k];
		char why[256];
		if (!(g->domain.colls & SCH_C(in->comm.coll)) ||
		    sch_applies(g, &in->machine, &in->comm, why, sizeof why) ==
		            0)
			continue;
		fputs(n++ ? ",{\"algorithm\":" : "{\"algorithm\":", out);
		json_put_string(out, g->name, SIZE_MAX);
		fputs(",\"reason\":", out);
		json_put_string(out, why, sizeof why);
		fputc('}', out);
	}
	fputs("],\"other_collectives\":[", out);
	for (int k = 0, n = 0; sch_generators[k]; k++) {
		if (sch_generators[k]->domain.colls & SCH_C(in->comm.coll))
			continue;
		if (n++)
			fputc(',', out);
		json_put_string(out, sch_generators[k]->name, SIZE_MAX);
	}
	fputs("],\"model_note\":", out);
	if (sr->model_why[0])
		json_put_string(out, sr->model_why, sizeof sr->model_why);
	else
		fputs("null", out);
	fputs(",\"simulator_note\":", out);
	if (sr->sim_why[0] && !sr->by_model)
		json_put_string(out, sr->sim_why, sizeof sr->sim_why);
	else
		fputs("null", out);
	fputs(",\"plot_crossovers\":", out);
	for (size_t k = 0; plotted && k < plotted->ncross; k++) {
		const struct report_cross *x = &plotted->cross[k];
		fputs(k ? ",{\"from\":" : "[{\"from\":", out);
		json_put_string(out, plotted->algs[x->from]->name, SIZE_MAX);
		fputs(",\"to\":", out);
		json_put_string(out, plotted->algs[x->to]->name, SIZE_MAX);
		fputs(",\"bytes\":", out);
		json_put_number(out, x->at);
		fprintf(out, ",\"between\":[%lld,%lld]}", (long long)x->lo,
		        (long long)x->hi);
	}
	fputs(!plotted ? "null" : plotted->ncross ? "]" : "[]", out);
	fputs(",\"crossovers\":", out);
	if (nat >= 0) {
		fputs("{\"first\":", out);
		json_put_string(out, sr->rows[0].g->name, SIZE_MAX);
		fputs(",\"second\":", out);
		json_put_string(out, sr->rows[1].g->name, SIZE_MAX);
		fputs(",\"bytes\":[", out);
		for (int i = 0; i < nat; i++)
			fprintf(out, "%s%lld", i ? "," : "", (long long)at[i]);
		fputs("]}", out);
	} else {
		fputs("null", out);
	}
	fputs("}\n", out);
}

int cli_compare(int argc, char **argv)
{
	const char *file = NULL, *svg = NULL, *out = NULL;
	bool by_model = false, json = false;
	struct report_sizes sizes = {REPORT_MIN_DEFAULT, REPORT_MAX_DEFAULT,
	                             false};
	char why[160];
	int v;
	while ((v = cli_getopt(argc, argv)) >= 0) {
		if (v == 'M') {
			by_model = true;
		} else if (v == 'j') {
			json = true;
		} else if (v == 'o') {
			out = optarg;
		} else if (v == 's') {
			svg = optarg;
		} else if (v == 'S' && report_parse_sizes(optarg, &sizes, why,
		                                          sizeof why) != 0) {
			fprintf(stderr, "%s compare: --sizes '%s': %s\n",
			        cli_prog, optarg, why);
			return EXIT_BADINPUT;
		}
	}
	if (v != CLI_END)
		return cli_stop(v);
	if (!(file = cli_operand(argc, argv, "IN.yaml")))
		return EXIT_BADINPUT;
	if (out && !json)
		return cli_usage("compare", "-o goes with --json");
	summary_note("%s", file);
	struct front_input in;
	int rc = cli_parse_yaml(file, &in);
	if (rc)
		return exit_status(rc);
	/* compare builds every candidate, as auto does */
	struct diag d;
	memset(&d, 0, sizeof d);
	if ((rc = compile_check_size(&in, true, !by_model, &d)) != 0) {
		fprintf(stderr, "%s: %s\n", file, d.message);
		front_input_fini(&in);
		return exit_status(rc);
	}
	struct select_result sr;
	struct progress pg;
	char label[64];
	snprintf(label, sizeof label, "compare %.24s", cli_base_name(file));
	progress_begin(&pg, label);
	select_set_progress(progress_report, &pg);
	rc = select_run(&in, !by_model, by_model, &sr);
	select_set_progress(NULL, NULL);
	progress_end(&pg);
	if (rc != 0) {
		fprintf(stderr, "%s compare: %s\n", cli_prog, ccp_strerror(rc));
		front_input_fini(&in);
		return exit_status(rc);
	}
	const char *by = select_ranked_by(&sr);
	bool timed = strncmp(by, "phases", 6) != 0;
	if (!timed)
		fprintf(stderr,
		        "%s: warning: %s: ranked by phases alone, the machine "
		        "lacking the costs to time the algorithms by; give "
		        "machine.cost or a preset ('ccplan help presets')\n",
		        cli_prog, file);
	int ranked = 0;
	for (size_t i = 0; i < sr.n; i++)
		ranked += sr.rows[i].rc == 0;
	/* the plot first, so that the text gives the crossovers it marks;
	 * without it, the model's crossovers of the top two */
	struct report_sweep *sw = NULL;
	char err[512] = "";
	int svg_rc = 0, status = ranked > 0 ? EXIT_OK : EXIT_REJECTED;
	if (svg && ranked > 0) {
		if (!(sw = malloc(sizeof *sw))) {
			status = EXIT_INTERNAL;
			goto out;
		}
		svg_rc = report_sweep_file(&in, &sr, file, &sizes, svg, sw, err,
		                           sizeof err);
	}
	const struct report_sweep *plotted = sw && svg_rc == 0 ? sw : NULL;
	int64_t at[25];
	int nat = -1;
	if (!plotted && sr.n > 1 && sr.rows[0].rc == 0 && sr.rows[1].rc == 0)
		nat = select_crossovers(&in, sr.rows[0].g, sr.rows[1].g, at,
		                        25);
	if (json) {
		struct cli_out o;
		if (!cli_out_begin(&o, out)) {
			status = EXIT_INTERNAL;
			goto out;
		}
		compare_json(o.f, file, &in, &sr, at, nat, plotted);
		if (cli_out_end(&o, true) != 0) {
			status = EXIT_INTERNAL;
			goto out;
		}
	} else {
		compare_text(&in, &sr, at, nat, plotted);
	}
	if (ranked > 0)
		summary_note("%s: %d of %zu algorithms made a verified plan, "
		             "best %s",
		             file, ranked, sr.n, sr.rows[0].g->name);
	else
		summary_note("%s: none of %zu algorithms made a verified plan",
		             file, sr.n);
	if (svg_rc) {
		fprintf(stderr, "%s compare: --svg: %s\n", cli_prog, err);
		status = svg_rc == CCP_EINVAL ? EXIT_BADINPUT
		         : svg_rc == CCP_EIO  ? EXIT_INTERNAL
		                              : exit_status(svg_rc);
	} else if (plotted) {
		char note[512];
		snprintf(note, sizeof note, "%s", summary_get());
		summary_note("%s; plot -> %s", note, svg);
	}
out:
	free(sw);
	select_fini(&sr);
	front_input_fini(&in);
	return status;
}

/* simulate's lines: the plan, the simulated and the modelled time
 * (us by model k, NaN with why), the network's counts. */
static void simulate_text(const char *file, const struct compiled *c,
                          const struct model_sim_opts *o,
                          const struct model_sim *s, double us,
                          enum model_kind k, const char *why)
{
	char a[32];
	fmt_us(us, a, sizeof a);
	printf("plan        %s: %s, %u phases, %d ranks\n", file,
	       c->plan.algorithm, c->report.phases,
	       (int)c->plan.machine.nranks);
	bool fifo = o->links == MODEL_LINKS_FIFO;
	const char *opt[3] = {o->barriers ? "phase barriers" : NULL,
	                      o->half_duplex ? "half-duplex nodes" : NULL,
	                      fifo ? "links without virtual channels" : NULL};
	char how[96] = "";
	for (int i = 0, n = 0; i < 3; i++)
		if (opt[i])
			n += snprintf(how + n, sizeof how - (size_t)n, "%s%s",
			              n ? ", " : " (", opt[i]);
	if (how[0])
		strcat(how, ")");
	printf("simulated   last delivery %.2f us, mean %.2f us over %d "
	       "receivers%s\n",
	       s->max_us, s->avg_us, (int)s->receivers, how);
	printf("model       %s us (%s model)%s%s\n", a, model_kind_name(k),
	       why[0] ? ": " : "", why);
	if (fifo)
		printf("network     %u messages, %llu events, %u headers "
		       "waited for a busy link, %.2f us in all; %.2f us "
		       "waiting for ports\n",
		       s->messages, (unsigned long long)s->events, s->contended,
		       s->stall_us, s->port_wait_us);
	else
		printf("network     %u messages, %llu events, at most %u on "
		       "one link at once, %u ever shared a link; %.2f us of "
		       "link stall, %.2f us waiting for ports\n",
		       s->messages, (unsigned long long)s->events, s->max_share,
		       s->contended, s->stall_us, s->port_wait_us);
}

/* The same as one JSON object (docs/cli.md, "JSON output"). */
static void simulate_json(FILE *out, const char *file, const struct compiled *c,
                          const struct model_sim_opts *o,
                          const struct model_sim *s, double us,
                          enum model_kind k, const char *why)
{
	fputs("{\"format\":\"ccplan-simulate\",\"version\":1,\"input\":", out);
	json_put_string(out, file, SIZE_MAX);
	fputs(",\"algorithm\":", out);
	json_put_string(out, c->plan.algorithm, IR_NAME_MAX);
	fprintf(out,
	        ",\"phases\":%u,\"ranks\":%d,\"barriers\":%s,"
	        "\"half_duplex\":%s,\"links\":\"%s\",\"last_delivery_us\":",
	        c->report.phases, (int)c->plan.machine.nranks,
	        o->barriers ? "true" : "false",
	        o->half_duplex ? "true" : "false",
	        o->links == MODEL_LINKS_FIFO ? "fifo" : "shared");
	json_put_number(out, s->max_us);
	fputs(",\"mean_delivery_us\":", out);
	json_put_number(out, s->avg_us);
	fprintf(out, ",\"receivers\":%d,\"model\":", (int)s->receivers);
	json_put_string(out, model_kind_name(k), SIZE_MAX);
	fputs(",\"model_us\":", out);
	json_put_number(out, us);
	fputs(",\"model_note\":", out);
	if (why[0])
		json_put_string(out, why, SIZE_MAX);
	else
		fputs("null", out);
	fprintf(out,
	        ",\"messages\":%u,\"events\":%llu,\"max_share\":", s->messages,
	        (unsigned long long)s->events);
	if (o->links == MODEL_LINKS_FIFO) /* fifo counts no sharing */
		fputs("null", out);
	else
		fprintf(out, "%u", s->max_share);
	fprintf(out, ",\"contended\":%u,\"stall_us\":", s->contended);
	json_put_number(out, s->stall_us);
	fputs(",\"port_wait_us\":", out);
	json_put_number(out, s->port_wait_us);
	fputs("}\n", out);
}

int cli_simulate(int argc, char **argv)
{
	const char *file = NULL, *out = NULL;
	struct model_sim_opts o = {0};
	bool json = false;
	int v;
	while ((v = cli_getopt(argc, argv)) >= 0) {
		if (v == 'j') {
			json = true;
		} else if (v == 'o') {
			out = optarg;
		} else if (v == 'b') {
			o.barriers = true;
		} else if (v == 'd') {
			o.half_duplex = true;
		} else if (v == 'l' && strcmp(optarg, "shared") == 0) {
			o.links = MODEL_LINKS_SHARED;
		} else if (v == 'l' && strcmp(optarg, "fifo") == 0) {
			o.links = MODEL_LINKS_FIFO;
		} else if (v == 'l') {
			static const char *const links[] = {"shared", "fifo"};
			const char *near = front_nearest(optarg, links, 2);
			fprintf(stderr,
			        "%s simulate: --links '%s': expected shared or "
			        "fifo%s%s%s\n",
			        cli_prog, optarg, near ? "; did you mean '" : "",
			        near ? near : "", near ? "'?" : "");
			return EXIT_BADINPUT;
		}
	}
	if (v != CLI_END)
		return cli_stop(v);
	if (!(file = cli_operand(argc, argv, "FILE")))
		return EXIT_BADINPUT;
	if (out && !json)
		return cli_usage("simulate", "-o goes with --json");
	struct compiled c;
	int rc = cli_load_any(file, &c);
	if (rc)
		return exit_status(rc);
	struct model_sim s;
	char err[256], label[64];
	struct progress pg;
	snprintf(label, sizeof label, "simulate %.24s", cli_base_name(file));
	progress_begin(&pg, label);
	o.progress = progress_report;
	o.progress_arg = &pg;
	rc = model_simulate(&c.plan, &o, &s, err, sizeof err);
	progress_end(&pg);
	if (rc != 0) {
		fprintf(stderr, "%s: cannot simulate: %s\n", file, err);
		compiled_fini(&c);
		return rc == CCP_EINVAL ? EXIT_BADINPUT : exit_status(rc);
	}
	enum model_kind k;
	char why[256];
	double us = select_predict(&c.plan, &c.report, &k, why, sizeof why);
	if (json) {
		struct cli_out co;
		if (!cli_out_begin(&co, out)) {
			model_sim_fini(&s);
			compiled_fini(&c);
			return EXIT_INTERNAL;
		}
		simulate_json(co.f, file, &c, &o, &s, us, k, why);
		rc = cli_out_end(&co, true);
	} else {
		simulate_text(file, &c, &o, &s, us, k, why);
	}
	summary_note("%s: %s, last delivery %.2f us, %llu events", file,
	             c.plan.algorithm, s.max_us, (unsigned long long)s.events);
	model_sim_fini(&s);
	compiled_fini(&c);
	return rc ? EXIT_INTERNAL : EXIT_OK;
}
