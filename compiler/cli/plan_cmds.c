/*
 * plan_cmds.c - the commands that read a plan (a .ccp file, or a .yaml
 * input compiled in memory): explain, verify, export and show.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "explain.h"
#include "front.h"
#include "json.h"
#include "place.h"
#include "progress.h"
#include "report.h"
#include "select.h"
#include "show.h"

const char cli_explain_help[] =
        "usage: ccplan explain FILE [--summary | --rank R | --html "
        "OUT.html |\n"
        "                            --json [-o OUT.json]]\n"
        "\n"
        "Print a plan phase by phase: transfers, bytes, the busiest link, "
        "ports\n"
        "used and hops, then the plan against its lower bound.  FILE is a "
        ".ccp\n"
        "plan, or a .yaml input, compiled in memory.  For an irregular "
        "matrix it\n"
        "also says whether the links or the degrees bound the plan, and "
        "what a\n"
        "placement (ccplan place) would make of the bound.\n"
        "  --summary  the summary alone: phases, transfers, bytes, the lower "
        "bound,\n"
        "             link load, predicted time, the algorithm and why\n"
        "  --rank R   list rank R's operations in the order its runtime "
        "runs them:\n"
        "             address, op, phase, peer, bytes and the buffer "
        "pieces\n"
        "  --html F   write a report page instead: this text, a picture "
        "of every\n"
        "             phase, and for a .yaml the comparison of every "
        "algorithm\n"
        "             with its latency plot; one file, no scripts, no "
        "network\n"
        "             (docs/report.md)\n"
        "  --json     the header, the phases' transfers, bytes and "
        "busiest link,\n"
        "             the bound and the prediction as one JSON object "
        "(docs/cli.md),\n"
        "             to stdout or to -o OUT.json\n";
const char cli_verify_help[] =
        "usage: ccplan verify FILE.ccp\n"
        "\n"
        "Load a plan file, check its format and checksums, run the verifier "
        "on\n"
        "its phases again, and check that every rank's operations match them.\n"
        "Exit 0 when it holds, 1 when the verifier rejects it, 2 when the file "
        "is\n"
        "not a valid plan.\n";
const char cli_export_help[] =
        "usage: ccplan export --json FILE [-o OUT.json]\n"
        "\n"
        "Write the plan (a .ccp file, or a .yaml input compiled in memory) as "
        "JSON\n"
        "for other tools (shape in docs/plan-format.md); to stdout without "
        "-o.\n";

const char cli_show_help[] =
        "usage: ccplan show FILE [--phase K | --all] [--svg [--arrows] | "
        "--text\n"
        "                   [--ascii]] [-o OUT]\n"
        "       ccplan show FILE --heat [--placement PLACE] [-o OUT]\n"
        "\n"
        "Draw a plan (.ccp, or a .yaml compiled in memory) on its "
        "machine: every\n"
        "transfer of a phase as an arrow along its route, hop by hop; a "
        "link\n"
        "carrying more than one transfer in red with its count; the root "
        "and the\n"
        "ranks that hold data after the phase shaded, darker those that "
        "received\n"
        "in it. A switch, alltoall or irregular plan is drawn as a source "
        "x\n"
        "destination matrix per phase instead (docs/show.md).\n"
        "  --phase K  one phase, numbered from 0 as explain numbers them\n"
        "  --all      every phase, as small multiples (the default)\n"
        "  --svg      an SVG document (the default)\n"
        "  --arrows   SVG: arrows on the machine even for a plan drawn as "
        "a matrix\n"
        "  --text     a drawing for the terminal: meshes and tori up to "
        "32x32\n"
        "             (3D: up to 32 planes), colour when stdout is a "
        "terminal\n"
        "  --ascii    the text drawing in plain ASCII (implies --text)\n"
        "  --heat     an irregular pattern's link loads instead, as "
        "placed and after\n"
        "             a placement, side by side on one colour scale "
        "(SVG)\n"
        "  --placement PLACE  with --heat: the placement file to "
        "compare (as ccplan\n"
        "             place writes it); default: ccplan place's search, "
        "seed 1\n"
        "  -o OUT     write to OUT, atomically, instead of stdout\n";


/* What the values of their options are (cli_getopt's messages). */
const char *const cli_explain_args[128] = {
        ['o'] = "a file name",
        ['r'] = "a rank number",
        ['H'] = "a file name",
};
const char *const cli_plan_args[128] = {
        ['o'] = "a file name",
        ['p'] = "a phase number",
        ['P'] = "a placement file",
};

/* The options of explain, verify, export and show (the table's). */
const struct option cli_explain_opts[] = {
        {"summary", no_argument, NULL, 's'},
        {"json", no_argument, NULL, 'j'},
        {"rank", required_argument, NULL, 'r'},
        {"html", required_argument, NULL, 'H'},
        {"help", no_argument, NULL, 'h'},
        {0},
};
const struct option cli_verify_opts[] = {
        {"help", no_argument, NULL, 'h'},
        {0},
};
const struct option cli_export_opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {0},
};
const struct option cli_show_opts[] = {
        {"phase", required_argument, NULL, 'p'},
        {"all", no_argument, NULL, 'a'},
        {"svg", no_argument, NULL, 's'},
        {"text", no_argument, NULL, 't'},
        {"ascii", no_argument, NULL, 'A'},
        {"heat", no_argument, NULL, 'e'},
        {"arrows", no_argument, NULL, 'w'},
        {"placement", required_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {0},
};

/* explain's header, per-phase table and summary as one JSON object
 * (docs/cli.md, "JSON output"): the numbers explain prints, unrounded. */
static void explain_json(FILE *out, const char *file, const struct compiled *c)
{
	const ir_plan *p = &c->plan;
	const ir_report *r = &c->report;
	const ir_selection *sel = &p->sel;
	fputs("{\"format\":\"ccplan-explain\",\"version\":1,\"input\":", out);
	json_put_string(out, file, SIZE_MAX);
	fputs(",\"algorithm\":", out);
	json_put_string(out, p->algorithm, IR_NAME_MAX);
	fputs(",\"selection\":", out);
	if (sel->method != IR_SELECT_NONE) {
		bool timed = !isnan(sel->time_us);
		fprintf(out, "{\"by\":\"%s\",\"candidates\":%u,\"time_us\":",
		        !timed                           ? "phases"
		        : sel->method == IR_SELECT_MODEL ? "model"
		                                         : "simulated",
		        sel->candidates);
		json_put_number(out, sel->time_us);
		fputs(",\"runner_up\":", out);
		if (sel->runner_up[0])
			json_put_string(out, sel->runner_up, IR_NAME_MAX);
		else
			fputs("null", out);
		fputs(",\"runner_up_us\":", out);
		json_put_number(out,
		                sel->runner_up[0] ? sel->runner_up_us : NAN);
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	fprintf(out, ",\"ranks\":%d,\"collective\":", (int)p->machine.nranks);
	json_put_string(out, ir_coll_name(p->comm.coll), SIZE_MAX);
	fprintf(out,
	        ",\"link_contention\":%s,\"node_contention\":%s,\"phases\":[",
	        (p->flags & IR_PLAN_LINK_CONTENTION) ? "true" : "false",
	        (p->flags & IR_PLAN_NODE_CONTENTION) ? "true" : "false");
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		const ir_phase *f = &p->phases[ph];
		uint64_t bytes = 0;
		for (uint32_t t = 0; t < f->ntransfers; t++)
			bytes += (uint64_t)p->transfers[f->transfer + t].bytes;
		fprintf(out, "%s{\"transfers\":%u,\"bytes\":%llu,\"max_link\":",
		        ph ? "," : "", f->ntransfers,
		        (unsigned long long)bytes);
		if (r->link_load && r->phases == p->nphases)
			fprintf(out, "%u}", r->link_load[ph]);
		else
			fputs("null}", out);
	}
	fprintf(out,
	        "],\"transfers\":%llu,\"bytes\":%llu,\"hops\":%llu,"
	        "\"lower_bound\":{\"phases\":%u,\"spreading\":%u,"
	        "\"degree\":%u,\"link_load\":%u},\"bound_ratio\":",
	        (unsigned long long)r->transfers, (unsigned long long)r->bytes,
	        (unsigned long long)r->hops, r->lb_phases, r->lb_spread,
	        r->lb_degree, r->lb_link);
	json_put_number(out,
	                r->lb_phases ? (double)r->phases / r->lb_phases : NAN);
	enum model_kind mk;
	char why[512];
	double us = select_predict(p, r, &mk, why, sizeof why);
	fputs(",\"predicted_us\":", out);
	json_put_number(out, us);
	fputs(",\"model\":", out);
	json_put_string(out, model_kind_name(mk), SIZE_MAX);
	fputs(",\"model_note\":", out);
	if (isnan(us))
		json_put_string(out, why, sizeof why);
	else
		fputs("null", out);
	fprintf(out,
	        ",\"verified\":%s,\"max_link_load\":%u,\"max_sends\":%u,"
	        "\"max_receives\":%u,\"duplicates\":%llu,"
	        "\"contended_transfers\":%llu}\n",
	        r->ok ? "true" : "false", r->max_link_load, r->max_node_sends,
	        r->max_node_recvs, (unsigned long long)r->duplicates,
	        (unsigned long long)r->contended);
}

int cli_explain(int argc, char **argv)
{
	const char *file = NULL, *html = NULL, *out = NULL;
	long rank = -1;
	bool summary = false, json = false;
	char *end;
	int v;
	while ((v = cli_getopt(argc, argv)) >= 0) {
		if (v == 's') {
			summary = true;
		} else if (v == 'j') {
			json = true;
		} else if (v == 'o') {
			out = optarg;
		} else if (v == 'H') {
			html = optarg;
		} else if (v == 'r') {
			rank = strtol(optarg, &end, 10);
			if (*end || end == optarg || rank < 0 ||
			    rank > INT32_MAX) {
				fprintf(stderr,
				        "%s explain: --rank '%s': want a rank "
				        "number\n",
				        cli_prog, optarg);
				return EXIT_BADINPUT;
			}
		}
	}
	if (v != CLI_END)
		return cli_stop(v);
	if (!(file = cli_operand(argc, argv, "FILE")))
		return EXIT_BADINPUT;
	if (json && (html || rank >= 0 || summary))
		return cli_usage("explain", "--json writes the whole plan; not "
		                            "with --html, --rank or --summary");
	if (out && !json)
		return cli_usage("explain", "-o goes with --json");
	if (html && (rank >= 0 || summary)) {
		fprintf(stderr,
		        "%s explain: --html makes the whole report; not "
		        "with --rank or --summary\n",
		        cli_prog);
		return EXIT_BADINPUT;
	}
	struct compiled c;
	int rc = cli_load_any(file, &c);
	if (rc)
		return exit_status(rc);
	if (html) {
		char err[512];
		rc = report_html_file(&c, file, html, err, sizeof err);
		if (rc) {
			fprintf(stderr, "%s explain: --html: %s\n", cli_prog,
			        err);
			compiled_fini(&c);
			return rc == CCP_EIO ? EXIT_INTERNAL : exit_status(rc);
		}
		summary_note("%s: report -> %s", file, html);
	} else if (json) {
		struct cli_out o;
		rc = cli_out_begin(&o, out) ? 0 : CCP_ENOMEM;
		if (rc == 0) {
			explain_json(o.f, file, &c);
			rc = cli_out_end(&o, true);
		}
	} else if (rank >= 0) {
		rc = explain_rank(&c, (int32_t)rank, stdout);
		if (rc)
			fprintf(stderr,
			        "%s explain: the plan has ranks 0..%d, not "
			        "%ld\n",
			        cli_prog, (int)c.plan.machine.nranks - 1, rank);
	} else {
		printf("plan        %s\n", file);
		rc = summary ? explain_summary(&c, stdout)
		             : explain_plan(&c, stdout);
		if (rc == 0)
			rc = explain_placement(&c, stdout);
	}
	compiled_fini(&c);
	return rc == CCP_EINVAL ? EXIT_BADINPUT
	       : rc == CCP_EIO  ? EXIT_INTERNAL /* -o not written */
	                        : exit_status(rc);
}

int cli_verify(int argc, char **argv)
{
	const char *file;
	int v;
	while ((v = cli_getopt(argc, argv)) >= 0)
		;
	if (v != CLI_END)
		return cli_stop(v);
	if (!(file = cli_operand(argc, argv, "FILE.ccp")))
		return EXIT_BADINPUT;
	summary_note("%s", file);
	struct compiled c;
	ir_file_info fi;
	char err[512];
	int rc = plan_load(file, &c, &fi, err, sizeof err);
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return exit_status(rc);
	}
	printf("%s: ok: %s, %u phases (lower bound %u), %llu transfers, "
	       "%d ranks, max link load %u\n",
	       file, c.plan.algorithm, c.report.phases, c.report.lb_phases,
	       (unsigned long long)c.report.transfers,
	       (int)c.plan.machine.nranks, c.report.max_link_load);
	summary_note("%s: verified, %s, %u phases, %d ranks", file,
	             c.plan.algorithm, c.report.phases,
	             (int)c.plan.machine.nranks);
	compiled_fini(&c);
	return EXIT_OK;
}

int cli_export(int argc, char **argv)
{
	const char *file = NULL, *out = NULL;
	bool json = false;
	int v;
	while ((v = cli_getopt(argc, argv)) >= 0) {
		if (v == 'j')
			json = true;
		else if (v == 'o')
			out = optarg;
	}
	if (v != CLI_END)
		return cli_stop(v);
	if (!(file = cli_operand(argc, argv, "FILE")))
		return EXIT_BADINPUT;
	if (!json)
		return cli_usage("export", "missing --json, the format");
	struct compiled c;
	int rc = cli_load_any(file, &c);
	if (rc)
		return exit_status(rc);
	struct cli_out o;
	if (!cli_out_begin(&o, out)) {
		compiled_fini(&c);
		return EXIT_INTERNAL;
	}
	rc = json_export(&c.plan, &c.report, o.f);
	int wrc = cli_out_end(&o, rc == 0);
	rc = rc ? rc : wrc;
	if (!rc) /* o.len stays: the document's length */
		summary_note("%s -> %s, %zu bytes of JSON", file,
		             out ? out : "stdout", o.len);
	compiled_fini(&c);
	return rc == CCP_EIO ? EXIT_INTERNAL : exit_status(rc);
}

/* show --heat: the pattern of file's plan under its own placement and
 * under the placement file place (NULL: sch_place's, seed 1, as
 * explain's advice), written to out or stdout. */
static int show_heat(const char *file, const char *place, const char *out)
{
	struct compiled c;
	struct tbuf b = {0};
	char err[512] = "", label[320];
	int32_t *node = NULL;
	ir_place *pl = NULL;
	int rc = cli_load_any(file, &c);
	if (rc)
		return exit_status(rc);
	const ir_machine *m = &c.plan.machine;
	const ir_matrix *x = c.plan.comm.matrix;
	struct show_opts o = {.phase = -1};
	o.title = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	rc = CCP_ENOMEM;
	if (!(node = malloc((size_t)m->nranks * sizeof *node)))
		goto out;
	if (place) {
		struct diag d;
		memset(&d, 0, sizeof d);
		rc = front_read_place(place, m->nranks, m->nnodes,
		                      m->ranks_per_node, &pl, &d);
		if (rc) {
			cli_print_diag(&d);
			goto out;
		}
		for (int32_t r = 0; r < m->nranks; r++)
			node[r] = pl->pos[r] / m->ranks_per_node;
		snprintf(label, sizeof label, "%s", place);
	} else if (c.plan.comm.coll == IR_IRREGULAR && x) {
		struct sch_place_stats st;
		rc = sch_place(m, x, 1, node, &st, err, sizeof err);
		if (rc) {
			fprintf(stderr, "%s show: %s: %s\n", cli_prog, file,
			        err);
			goto out;
		}
		snprintf(label, sizeof label, "ccplan place --seed 1");
	} else {
		/* show_heat_svg says why */
		for (int32_t r = 0; r < m->nranks; r++)
			node[r] = ir_node_of(m, r);
		label[0] = '\0';
	}
	rc = show_heat_svg(&c.plan, node, label, &o, &b, err, sizeof err);
	if (rc)
		fprintf(stderr, "%s show: %s: %s\n", cli_prog, file, err);
	else if (out &&
	         (rc = write_atomic(out, b.p, b.len, err, sizeof err)) != 0)
		fprintf(stderr, "%s: %s\n", cli_prog, err);
	else if (!out)
		fwrite(b.p, 1, b.len, stdout);
	if (!rc)
		summary_note("%s -> %s, link loads before and after", file,
		             out ? out : "stdout");
out:
	ir_place_release(pl);
	free(node);
	free(b.p);
	compiled_fini(&c);
	return exit_status(rc);
}

int cli_show(int argc, char **argv)
{
	const char *file = NULL, *out = NULL, *place = NULL;
	struct show_opts o = {.phase = -1, .unicode = true};
	bool text = false, svg = false, all = false, heat = false;
	char *end;
	int v;
	while ((v = cli_getopt(argc, argv)) >= 0) {
		if (v == 'p') {
			long ph = strtol(optarg, &end, 10);
			if (*end || end == optarg || ph < 0 ||
			    ph > INT32_MAX) {
				fprintf(stderr,
				        "%s show: --phase '%s': want a phase "
				        "number, from 0\n",
				        cli_prog, optarg);
				return EXIT_BADINPUT;
			}
			o.phase = (int)ph;
		} else if (v == 'a') {
			all = true;
		} else if (v == 's') {
			svg = true;
		} else if (v == 't') {
			text = true;
		} else if (v == 'A') {
			text = true;
			o.unicode = false;
		} else if (v == 'o') {
			out = optarg;
		} else if (v == 'e') {
			heat = true;
		} else if (v == 'P') {
			place = optarg;
		} else if (v == 'w') {
			o.arrows = true;
		}
	}
	if (v != CLI_END)
		return cli_stop(v);
	if (!(file = cli_operand(argc, argv, "FILE")))
		return EXIT_BADINPUT;
	if (place && !heat) {
		fprintf(stderr, "%s show: --placement goes with --heat\n",
		        cli_prog);
		return EXIT_BADINPUT;
	}
	if (heat && (all || o.phase >= 0 || text)) {
		fprintf(stderr,
		        "%s show: --heat draws the whole pattern as SVG; not "
		        "with --phase, --all or --text\n",
		        cli_prog);
		return EXIT_BADINPUT;
	}
	if (heat)
		return show_heat(file, place, out);
	if (all && o.phase >= 0) {
		fprintf(stderr, "%s show: --phase and --all: give one\n",
		        cli_prog);
		return EXIT_BADINPUT;
	}
	if (o.arrows && text) {
		fprintf(stderr, "%s show: --arrows is for the SVG picture; "
		        "not with --text\n", cli_prog);
		return EXIT_BADINPUT;
	}
	if (svg && text) {
		fprintf(stderr, "%s show: --svg and --text: give one\n",
		        cli_prog);
		return EXIT_BADINPUT;
	}
	/* box-drawing characters only where the locale says UTF-8 */
	if (text && o.unicode && !show_locale_utf8())
		o.unicode = false;
	/* a plan file's header says its phases: a picture that cannot be
	 * drawn is refused before the plan is read and verified */
	char err[512];
	uint8_t head[IR_FILE_HEADER_MIN];
	ir_file_info fi;
	FILE *hf = cli_ends_with(file, ".yaml") || cli_ends_with(file, ".yml")
	                   ? NULL
	                   : fopen(file, "rb");
	int rc = 0;
	if (hf && fread(head, 1, sizeof head, hf) == sizeof head &&
	    ir_file_info_read(head, sizeof head, &fi, err, sizeof err) == 0)
		rc = show_check_phase(fi.nphases, all ? -1 : o.phase, !text,
		                      err, sizeof err);
	if (hf)
		fclose(hf);
	if (rc) {
		fprintf(stderr, "%s show: %s: %s\n", cli_prog, file, err);
		return exit_status(rc);
	}
	struct compiled c;
	if ((rc = cli_load_any(file, &c)) != 0)
		return exit_status(rc);
	o.title = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	o.color = text && !out && show_tty_color();
	struct tbuf b = {0};
	rc = text ? show_text(&c.plan, &o, &b, err, sizeof err)
	          : show_svg(&c.plan, &o, &b, err, sizeof err);
	if (rc)
		fprintf(stderr, "%s show: %s: %s\n", cli_prog, file, err);
	else if (out && (rc = write_atomic(out, b.p, b.len, err,
	                                   sizeof err)) != 0)
		fprintf(stderr, "%s: %s\n", cli_prog, err);
	else if (!out)
		fwrite(b.p, 1, b.len, stdout);
	free(b.p);
	compiled_fini(&c);
	return rc == CCP_EIO ? EXIT_INTERNAL : exit_status(rc);
}
