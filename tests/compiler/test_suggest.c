/*
 * test_suggest.c - the polish of the command line: "did you mean"
 * (compiler/suggest.c), the progress bar's drawing driven by a fake clock
 * into a pipe, the summary line (compiler/progress.c), and the help
 * topics (compiler/help_topics.c).  No assertion depends on real time.
 */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "front.h"
#include "help_topics.h"
#include "progress.h"
#include "sched.h"
#include "suggest.h"

/* ---- suggest ---------------------------------------------------------- */

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("dims", "dims"), 0);
	assert_int_equal(suggest_distance("dmis", "dims"), 1); /* swap */
	assert_int_equal(suggest_distance("meshh", "mesh"), 1);
	assert_int_equal(suggest_distance("bta", "beta"), 1);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	assert_int_equal(suggest_distance("", "abc"), 3);
	assert_int_equal(suggest_distance("abc", ""), 3);
	/* optimal string alignment: a substring is edited at most once, so
	 * "ca" -> "abc" is 3, not the unrestricted distance 2 */
	assert_int_equal(suggest_distance("ca", "abc"), 3);
	/* case and separator folded */
	assert_int_equal(suggest_distance("Edn-Torus", "edn_torus"), 0);
	assert_int_equal(suggest_distance("DIMENSION_ORDER", "dimension-order"),
	                 0);
	/* symmetric */
	assert_int_equal(suggest_distance("broadcat", "broadcast"),
	                 suggest_distance("broadcast", "broadcat"));
	char longer[SUGGEST_MAX_LEN + 2];
	memset(longer, 'a', sizeof longer - 1);
	longer[sizeof longer - 1] = '\0';
	assert_true(suggest_distance(longer, "a") == SIZE_MAX);
	longer[SUGGEST_MAX_LEN] = '\0'; /* exactly the limit: compared */
	assert_int_equal(suggest_distance(longer, longer), 0);
}

static void test_nearest(void **state)
{
	static const char *const topo[] = {"mesh", "torus", "hypercube", "hpam",
	                                   "switch"};
	static const char *const coll[] = {"broadcast", "scatter",
	                                   "gather",    "reduce",
	                                   "alltoall",  "transpose"};
	static const char *const ports[] = {"all", "one"};
	static const char *const tie[] = {"rs_n", "rs_nl", NULL, "ac"};
	(void)state;
	assert_string_equal(suggest_nearest("meshh", topo, 5), "mesh");
	assert_string_equal(suggest_nearest("Torus", topo, 5), "torus");
	assert_string_equal(suggest_nearest("hypercub", topo, 5), "hypercube");
	assert_string_equal(suggest_nearest("swtich", topo, 5), "switch");
	assert_null(suggest_nearest("dragonfly", topo, 5));
	assert_null(suggest_nearest("mesh", topo, 5)); /* valid: no typo */
	assert_null(suggest_nearest("", topo, 5));
	assert_null(suggest_nearest(NULL, topo, 5));
	/* a unique prefix of three characters or more */
	assert_string_equal(suggest_nearest("hyper", topo, 5), "hypercube");
	assert_string_equal(suggest_nearest("broad", coll, 6), "broadcast");
	assert_null(suggest_nearest("sc", coll, 6)); /* too short */
	/* short names take one edit, no more */
	assert_string_equal(suggest_nearest("al", ports, 2), "all");
	assert_null(suggest_nearest("xyz", ports, 2));
	assert_null(suggest_nearest("a", ports, 2)); /* nothing in common */
	/* nearest wins, then the first; NULL entries skipped */
	assert_string_equal(suggest_nearest("rs_nk", tie, 4), "rs_n");
	assert_string_equal(suggest_nearest("rs_nll", tie, 4), "rs_nl");
	assert_string_equal(suggest_nearest("ad", tie, 4), "ac");
	/* the front end's "did you mean" is this one */
	assert_string_equal(front_nearest("broadcat", coll, 6), "broadcast");
	assert_null(front_nearest("average", coll, 6));
}

static void test_algorithm_names(void **state)
{
	const char *names[64];
	size_t n = 0;
	(void)state;
	for (int k = 0; sch_generators[k] && n < 64; k++)
		names[n++] = sch_generators[k]->name;
	assert_string_equal(suggest_nearest("edn-torus", names, n),
	                    "edn_torus");
	assert_string_equal(suggest_nearest("binomal", names, n), "binomial");
	assert_string_equal(suggest_nearest("Tree_Scater", names, n),
	                    "tree_scatter");
	assert_string_equal(suggest_nearest("hpam_multicst", names, n),
	                    "hpam_multicast");
	assert_null(suggest_nearest("quantum", names, n));
	/* every name is its own, never another's typo at distance 0 */
	for (size_t i = 0; i < n; i++)
		assert_null(suggest_nearest(names[i], names, n));
}

static const char help_text[] =
        "usage: ccplan compile IN.yaml [-o OUT.ccp] [-v] [--cache PATH | "
        "--no-cache]\n"
        "                      [--emit ccp|c] [--name NAME]\n"
        "  --rank R   a rank; not-an-option and a-b are words\n";

static void test_option(void **state)
{
	char buf[64];
	(void)state;
	assert_string_equal(
	        suggest_option("--no-cahce", help_text, buf, sizeof buf),
	        "--no-cache");
	assert_string_equal(
	        suggest_option("-no-cache", help_text, buf, sizeof buf),
	        "--no-cache");
	assert_string_equal(
	        suggest_option("--emitt", help_text, buf, sizeof buf),
	        "--emit");
	assert_string_equal(
	        suggest_option("--rnak=5", help_text, buf, sizeof buf),
	        "--rank");
	assert_string_equal(
	        suggest_option("--cach", help_text, buf, sizeof buf),
	        "--cache");
	/* a real option, refused for another reason (a missing value) */
	assert_null(suggest_option("--cache", help_text, buf, sizeof buf));
	assert_null(suggest_option("-o", help_text, buf, sizeof buf));
	/* no option near; not an option; words with inner dashes are not
	 * options */
	assert_null(suggest_option("--frobnicate", help_text, buf, sizeof buf));
	assert_null(suggest_option("-x", help_text, buf, sizeof buf));
	assert_null(suggest_option("emit", help_text, buf, sizeof buf));
	assert_null(suggest_option("--an-option", help_text, buf, sizeof buf));
	assert_null(suggest_option("-", help_text, buf, sizeof buf));
	/* cut to the buffer */
	assert_string_equal(suggest_option("--no-cahce", help_text, buf, 5),
	                    "--no");
}

/* ---- the progress bar ------------------------------------------------- */

/* A clock the test moves by hand. */
struct fake_clock {
	double now;
};

static double fake_now(void *arg)
{
	return ((struct fake_clock *)arg)->now;
}

/* A bar drawing into a pipe, on a fake clock. */
struct rig {
	int fds[2];
	struct fake_clock clock;
	struct progress p;
	char out[8192];
};

static void rig_start(struct rig *r, bool on, const char *label)
{
	memset(r, 0, sizeof *r);
	assert_int_equal(pipe(r->fds), 0);
	fcntl(r->fds[0], F_SETFL, O_NONBLOCK);
	r->clock.now = 100.0;
	progress_init(&r->p, r->fds[1], on, label, fake_now, &r->clock);
}

/* Everything drawn since the last call, as a string. */
static const char *rig_read(struct rig *r)
{
	ssize_t n = read(r->fds[0], r->out, sizeof r->out - 1);
	r->out[n > 0 ? n : 0] = '\0';
	return r->out;
}

static void rig_stop(struct rig *r)
{
	progress_end(&r->p);
	close(r->fds[0]);
	close(r->fds[1]);
}

static void test_progress_delay_and_rate(void **state)
{
	struct rig r;
	(void)state;
	rig_start(&r, true, "compile big.yaml");
	/* nothing in the first second, whatever is reported */
	for (int i = 0; i < 9; i++) {
		r.clock.now += 0.1;
		progress_report(&r.p, i / 20.0);
	}
	assert_int_equal(r.p.draws, 0);
	assert_string_equal(rig_read(&r), "");
	/* then a drawing, in place ('\r'), with the fraction so far */
	r.clock.now = 101.0;
	progress_report(&r.p, 0.5);
	assert_int_equal(r.p.draws, 1);
	const char *s = rig_read(&r);
	assert_int_equal(s[0], '\r');
	assert_non_null(strstr(s, "compile big.yaml ["));
	assert_non_null(strstr(s, " 50% 1.0 s"));
	assert_null(strchr(s, '\n'));
	/* reports within PROGRESS_PERIOD draw nothing more */
	for (int i = 0; i < 50; i++) {
		r.clock.now += 0.001;
		progress_report(&r.p, 0.5 + i / 200.0);
	}
	assert_int_equal(r.p.draws, 1);
	assert_string_equal(rig_read(&r), "");
	/* at most one drawing per period: 10 s of reports every 10 ms */
	for (int i = 0; i < 1000; i++) {
		r.clock.now += 0.01;
		progress_report(&r.p, 0.75);
	}
	assert_in_range(r.p.draws, 90, 101);
	/* ticks without reports redraw too (the ticker thread's way) */
	unsigned before = r.p.draws;
	r.clock.now += 0.5;
	assert_true(progress_tick(&r.p));
	assert_false(progress_tick(&r.p)); /* same instant: not due */
	assert_int_equal(r.p.draws, before + 1);
	rig_stop(&r);
}

static void test_progress_clear(void **state)
{
	struct rig r;
	(void)state;
	rig_start(&r, true, "simulate x.ccp");
	r.clock.now += 2;
	progress_report(&r.p, 0.25);
	const char *s = rig_read(&r);
	size_t width = strlen(s) - 1;
	assert_int_equal(width, r.p.width);
	progress_clear(&r.p);
	s = rig_read(&r);
	assert_int_equal(strlen(s), width + 2);
	assert_int_equal(s[0], '\r');
	assert_int_equal(s[width + 1], '\r');
	for (size_t i = 1; i <= width; i++)
		assert_int_equal(s[i], ' ');
	/* cleared once; nothing after */
	progress_clear(&r.p);
	assert_string_equal(rig_read(&r), "");
	rig_stop(&r);
}

static void test_progress_off_and_short(void **state)
{
	struct rig r;
	(void)state;
	/* not a terminal: never drawn, never erased */
	rig_start(&r, false, "compile");
	for (int i = 0; i <= 100; i++) {
		r.clock.now += 0.5;
		progress_report(&r.p, i / 100.0);
		progress_tick(&r.p);
	}
	assert_int_equal(r.p.draws, 0);
	progress_clear(&r.p);
	assert_string_equal(rig_read(&r), "");
	rig_stop(&r);
	/* work shorter than the delay: nothing at all, not even a clear */
	rig_start(&r, true, "compile");
	r.clock.now += PROGRESS_DELAY * 0.9;
	progress_report(&r.p, 1.0);
	progress_end(&r.p);
	assert_string_equal(rig_read(&r), "");
	close(r.fds[0]);
	close(r.fds[1]);
}

static void test_progress_format(void **state)
{
	struct rig r;
	char buf[160];
	(void)state;
	rig_start(&r, true, "compare auto.yaml");
	/* no fraction yet: a spinner and the time */
	size_t n = progress_format(&r.p, 103.25, buf, sizeof buf);
	assert_int_equal(n, strlen(buf));
	assert_string_equal(buf, "compare auto.yaml | 3.2 s");
	/* the fraction never goes back; NaN and > 1 are tamed */
	progress_report(&r.p, 0.4);
	progress_report(&r.p, 0.2);
	progress_report(&r.p, NAN);
	assert_true(r.p.fraction == 0.4);
	progress_format(&r.p, 110, buf, sizeof buf);
	char want[160];
	snprintf(want, sizeof want, "compare auto.yaml [%.*s%.*s]  40%% 10.0 s",
	         12, "############", 18, "..................");
	assert_string_equal(buf, want);
	progress_report(&r.p, 7);
	progress_format(&r.p, 110, buf, sizeof buf);
	assert_non_null(strstr(buf, "[##############################] 100%"));
	/* short buffers are cut, never overrun */
	n = progress_format(&r.p, 110, buf, 8);
	assert_int_equal(n, 7);
	assert_string_equal(buf, "compare");
	/* a longer drawing before a shorter one: padded to cover it */
	r.p.on = true;
	r.p.width = 70;
	r.clock.now = 105;
	rig_read(&r);
	assert_true(progress_tick(&r.p));
	assert_int_equal(strlen(rig_read(&r)), 71);
	rig_stop(&r);
}

/* ---- the summary line ------------------------------------------------- */

static void test_summary(void **state)
{
	char line[256];
	(void)state;
	summary_note("%s", "");
	summary_format(line, sizeof line, "tau fit", 0, 0.014);
	assert_string_equal(line, "ccplan: tau fit: ok, 0.01 s");
	summary_format(line, sizeof line, "compile", 2, 0);
	assert_string_equal(line,
	                    "ccplan: compile: exit 2 (bad input), 0.00 s");
	summary_note("%s -> %s, %s, %d phases", "mesh16-broadcast.yaml",
	             "bcast.ccp", "binomial", 8);
	assert_string_equal(summary_get(),
	                    "mesh16-broadcast.yaml -> bcast.ccp, binomial, 8 "
	                    "phases");
	summary_format(line, sizeof line, "compile", 0, 0.02);
	assert_string_equal(line, "ccplan: compile: mesh16-broadcast.yaml -> "
	                          "bcast.ccp, binomial, 8 phases, 0.02 s");
	summary_note("x.ccp");
	summary_format(line, sizeof line, "verify", 1, 1.5);
	assert_string_equal(line, "ccplan: verify: x.ccp: exit 1 (rejected by "
	                          "the verifier), 1.50 s");
	summary_format(line, sizeof line, "verify", 3, 0);
	assert_non_null(strstr(line, "exit 3 (internal error)"));
	summary_note("4 ranks of ./app");
	summary_format(line, sizeof line, "run", 5, 0.25);
	assert_string_equal(line,
	                    "ccplan: run: 4 ranks of ./app: exit 5, 0.25 s");
	assert_null(summary_status_name(5));
	assert_string_equal(summary_status_name(0), "ok");
	/* cut, as snprintf */
	int n = summary_format(line, 16, "run", 5, 0.25);
	assert_true(n > 15);
	assert_int_equal(strlen(line), 15);
}

/* ---- help topics ------------------------------------------------------ */

/* The text help_topic_print writes, in a malloc'd string. */
static char *topic_text(const char *topic, int *rc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	*rc = help_topic_print(topic, f);
	fclose(f);
	return text;
}

static void test_topics(void **state)
{
	int rc;
	(void)state;
	for (int i = 0; help_topic_names[i]; i++) {
		char *t = topic_text(help_topic_names[i], &rc);
		assert_int_equal(rc, 0);
		assert_true(strlen(t) > 100);
		/* a terminal's page: lines within 80 columns (UTF-8 aside,
		 * there is none), no markdown */
		for (char *line = t; *line;) {
			size_t n = strcspn(line, "\n");
			if (n > 79)
				fail_msg("%s: line longer than 79: %.*s",
				         help_topic_names[i], (int)n, line);
			assert_true(strncmp(line, "```", 3) != 0);
			assert_true(strncmp(line, "| ", 2) != 0);
			assert_true(strncmp(line, "#", 1) != 0);
			line += n + (line[n] == '\n');
		}
		free(t);
	}
	char *t = topic_text("algorithms", &rc);
	/* every generator and auto, each at the start of a row */
	for (int k = 0; sch_generators[k]; k++) {
		char row[64];
		snprintf(row, sizeof row, "\n  %s ", sch_generators[k]->name);
		if (!strstr(t, row))
			fail_msg("no row for %s", sch_generators[k]->name);
	}
	assert_non_null(strstr(t, "\n  auto "));
	free(t);
	t = topic_text("input-format", &rc);
	assert_non_null(strstr(t, "topology"));
	assert_non_null(strstr(t, "pattern: irregular"));
	free(t);
	t = topic_text("exit-status", &rc);
	assert_non_null(strstr(t, "  2  bad input"));
	free(t);
	t = topic_text("no-such-topic", &rc);
	assert_int_equal(rc, -1);
	assert_string_equal(t, "");
	free(t);
}

static void test_wrap(void **state)
{
	char *text = NULL;
	size_t len = 0;
	(void)state;
	FILE *f = open_memstream(&text, &len);
	help_wrap(f, "  name   one two three four five six\nnext", 9, 20);
	help_wrap(f, "averyveryverylongword x", 2, 10);
	fclose(f);
	assert_string_equal(text, "  name   one two\n"
	                          "         three four\n"
	                          "         five six\n"
	                          "next\n"
	                          "averyveryverylongword\n"
	                          "  x\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_distance),
	        cmocka_unit_test(test_nearest),
	        cmocka_unit_test(test_algorithm_names),
	        cmocka_unit_test(test_option),
	        cmocka_unit_test(test_progress_delay_and_rate),
	        cmocka_unit_test(test_progress_clear),
	        cmocka_unit_test(test_progress_off_and_short),
	        cmocka_unit_test(test_progress_format),
	        cmocka_unit_test(test_summary),
	        cmocka_unit_test(test_topics),
	        cmocka_unit_test(test_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
