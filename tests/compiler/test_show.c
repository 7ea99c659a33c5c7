/*
 * test_show.c - the pictures of compiler/emit/show*.c: `ccplan show`.
 *
 * Plans are built in memory by the generators and verified first; the
 * SVG is then checked for structure, not pixels: one element of class
 * "rank" per rank, one "hop" per link of every route of the phase, one
 * "load" label per directed link carrying more than one transfer, the
 * shaded ranks ("held") and the panels of --all -- each count worked out
 * here from ir_route and ir_link_ends independently of show.c -- and the
 * document is well formed.  The text drawing of a 4x4 binomial phase is
 * compared with a golden drawing; the errors are checked by code and
 * message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir.h"
#include "model.h"
#include "sched.h"
#include "show.h"
#include "support.h"

/* ---- helpers -------------------------------------------------------- */

/* g's verified plan for m and c; the report is released. */
static void make(const struct sch_generator *g, const ir_machine *m,
                 const ir_comm *c, ir_plan *p)
{
	char why[256] = "";
	struct sch_options o = {.hpam_price = model_hpam_price};
	ir_report r;
	int rc = sch_applies(g, m, c, why, sizeof why);
	if (rc)
		print_message("  %s: does not apply: %s\n", g->name, why);
	assert_int_equal(rc, 0);
	assert_int_equal(g->generate(m, c, &o, p), 0);
	rc = ir_verify(p, &r);
	if (rc)
		print_message("  %s: verifier: %s\n", g->name, r.message);
	assert_int_equal(rc, 0);
	ir_report_fini(&r);
}

/* The SVG of phase (or -1: every phase); asserts success. */
static char *svg_of(const ir_plan *p, int phase, const char *title)
{
	/* arrows on the machine, whatever the plan (matrix_of: a matrix) */
	struct show_opts o = {.phase = phase, .title = title, .arrows = true};
	struct tbuf b = {0};
	char err[256] = "";
	int rc = show_svg(p, &o, &b, err, sizeof err);
	if (rc)
		print_message("  show_svg: %s\n", err);
	assert_int_equal(rc, 0);
	assert_false(b.nomem);
	assert_non_null(b.p);
	return b.p;
}

/* The text drawing; asserts success. */
static char *text_of(const ir_plan *p, int phase, bool unicode)
{
	struct show_opts o = {.phase = phase, .unicode = unicode};
	struct tbuf b = {0};
	char err[256] = "";
	int rc = show_text(p, &o, &b, err, sizeof err);
	if (rc)
		print_message("  show_text: %s\n", err);
	assert_int_equal(rc, 0);
	assert_non_null(b.p);
	return b.p;
}

/* Elements whose class attribute has the token cls. */
static size_t count_class(const char *svg, const char *cls)
{
	size_t n = 0, len = strlen(cls);
	for (const char *q = svg; (q = strstr(q, "class=\"")) != NULL;) {
		q += 7;
		const char *end = strchr(q, '"');
		assert_non_null(end);
		for (const char *t = q; t < end;) {
			const char *sp = memchr(t, ' ', (size_t)(end - t));
			const char *te = sp ? sp : end;
			if ((size_t)(te - t) == len && memcmp(t, cls, len) == 0)
				n++;
			t = te + 1;
		}
		q = end + 1;
	}
	return n;
}

/* The largest number in the texts of class "load" elements. */
static unsigned max_load_label(const char *svg)
{
	unsigned best = 0;
	for (const char *q = svg; (q = strstr(q, "class=\"load\"")) != NULL;
	     q++) {
		const char *gt = strchr(q, '>');
		assert_non_null(gt);
		unsigned v = (unsigned)strtoul(gt + 1, NULL, 10);
		if (v > best)
			best = v;
	}
	return best;
}

/* A small XML checker: every tag closed in order, quoted attributes,
 * one root element, entities only &amp; &lt; &gt; &quot; &apos;, and
 * no '<' or '>' loose in text. */
static void assert_well_formed(const char *s)
{
	char stack[64][32];
	int depth = 0, roots = 0;
	const char *q = s;
	if (strncmp(q, "<?xml", 5) == 0) {
		q = strstr(q, "?>");
		assert_non_null(q);
		q += 2;
	}
	for (; *q; q++) {
		if (*q == '&') {
			static const char *const ent[] = {
			        "&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
			bool ok = false;
			for (int k = 0; k < 5; k++)
				ok |= strncmp(q, ent[k], strlen(ent[k])) == 0;
			assert_true(ok);
			continue;
		}
		assert_true(*q != '>');
		if (*q != '<')
			continue;
		bool closing = q[1] == '/';
		const char *name = q + 1 + closing;
		size_t nl = strcspn(name, " \t\n/>");
		assert_true(nl > 0 && nl < 32);
		const char *t = name + nl;
		bool in_quote = false;
		for (; *t && (in_quote || *t != '>'); t++) {
			if (*t == '"')
				in_quote = !in_quote;
			else if (in_quote)
				assert_true(*t != '<');
		}
		assert_int_equal(*t, '>');
		bool self = t[-1] == '/';
		if (closing) {
			assert_true(depth > 0);
			depth--;
			assert_int_equal(strlen(stack[depth]), nl);
			assert_memory_equal(stack[depth], name, nl);
		} else if (!self) {
			assert_true(depth < 64);
			if (depth == 0)
				roots++;
			memcpy(stack[depth], name, nl);
			stack[depth++][nl] = '\0';
		} else if (depth == 0) {
			roots++;
		}
		q = t;
	}
	assert_int_equal(depth, 0);
	assert_int_equal(roots, 1);
	assert_non_null(strstr(s, "<title>"));
	assert_non_null(strstr(s, "<desc>"));
	assert_non_null(strstr(s, " viewBox=\""));
}

/* What phase ph should show, from the routes: hops, transfers with a
 * route, directed links with more than one transfer (the copies of one
 * multicast counting once), the hops on such links, the largest load. */
struct expect {
	size_t hops, last, hot_links, hot_hops;
	uint32_t max_load;
};

struct use {
	uint64_t link;
	int64_t key;
};

static int cmp_use(const void *a, const void *b)
{
	const struct use *x = a, *y = b;
	if (x->link != y->link)
		return x->link < y->link ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

static struct expect expect_phase(const ir_plan *p, uint32_t ph)
{
	struct expect e = {0};
	const ir_machine *m = &p->machine;
	const ir_phase *f = &p->phases[ph];
	uint64_t *route = malloc((size_t)(ir_route_max(m) + 1) * sizeof *route);
	size_t cap = (size_t)f->ntransfers * (size_t)(ir_route_max(m) + 1) + 1;
	struct use *u = malloc(cap * sizeof *u);
	assert_non_null(route);
	assert_non_null(u);
	size_t nu = 0;
	for (uint32_t t = f->transfer; t < f->transfer + f->ntransfers; t++) {
		const ir_transfer *x = &p->transfers[t];
		int h = ir_route(m, x->src, x->dst, route);
		assert_true(h >= 0);
		e.hops += (size_t)h;
		e.last += h > 0;
		for (int j = 0; j < h; j++) {
			int32_t a, b;
			assert_int_equal(ir_link_ends(m, route[j], &a, &b), 0);
			u[nu].link = route[j];
			u[nu++].key = (x->flags & IR_XF_MCAST)
			                      ? x->src
			                      : -(int64_t)t - 1;
		}
	}
	qsort(u, nu, sizeof *u, cmp_use);
	for (size_t i = 0; i < nu;) {
		size_t j = i;
		uint32_t load = 0;
		for (; j < nu && u[j].link == u[i].link; j++)
			load += j == i || u[j].key != u[j - 1].key;
		if (load > 1) {
			e.hot_links++;
			e.hot_hops += j - i;
		}
		if (load > e.max_load)
			e.max_load = load;
		i = j;
	}
	free(route);
	free(u);
	return e;
}

/* Ranks holding data after phase ph: the root of a rooted collective
 * and every rank that has received something. */
static size_t expect_held(const ir_plan *p, uint32_t ph)
{
	int32_t n = p->machine.nranks;
	bool *h = calloc((size_t)n, sizeof *h);
	assert_non_null(h);
	if (p->comm.coll == IR_BCAST || p->comm.coll == IR_SCATTER ||
	    p->comm.coll == IR_GATHER || p->comm.coll == IR_REDUCE)
		h[p->comm.root] = true;
	for (uint32_t k = 0; k <= ph; k++)
		for (uint32_t t = 0; t < p->phases[k].ntransfers; t++)
			h[p->transfers[p->phases[k].transfer + t].dst] = true;
	size_t c = 0;
	for (int32_t r = 0; r < n; r++)
		c += h[r];
	free(h);
	return c;
}

/* Nodes (ranks, with one rank per node) that receive in phase ph: the
 * ones drawn darker, "got". */
static size_t expect_got(const ir_plan *p, uint32_t ph)
{
	const ir_machine *m = &p->machine;
	bool *h = calloc((size_t)m->nnodes, sizeof *h);
	assert_non_null(h);
	for (uint32_t t = 0; t < p->phases[ph].ntransfers; t++)
		h[ir_node_of(m, p->transfers[p->phases[ph].transfer + t].dst)] =
		        true;
	size_t c = 0;
	for (int32_t r = 0; r < m->nnodes; r++)
		c += h[r];
	free(h);
	return c;
}

/* Check every phase's SVG of p against the routes; returns the number
 * of hot links seen over all phases. */
static size_t check_phases(const ir_plan *p)
{
	ir_report r;
	assert_int_equal(ir_verify(p, &r), 0);
	size_t hot = 0;
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		char *s = svg_of(p, (int)ph, NULL);
		struct expect e = expect_phase(p, ph);
		assert_well_formed(s);
		assert_int_equal(count_class(s, "rank"), p->machine.nranks);
		assert_int_equal(count_class(s, "hop"), e.hops);
		assert_int_equal(count_class(s, "last"), e.last);
		assert_int_equal(count_class(s, "load"), e.hot_links);
		assert_int_equal(count_class(s, "hot"), e.hot_hops);
		assert_int_equal(count_class(s, "held"), expect_held(p, ph));
		assert_int_equal(count_class(s, "got"), expect_got(p, ph));
		assert_int_equal(count_class(s, "panel"), 1);
		/* the verifier's measure of the phase */
		assert_int_equal(e.max_load, r.link_load[ph]);
		if (e.hot_links)
			assert_int_equal(max_load_label(s), r.link_load[ph]);
		hot += e.hot_links;
		free(s);
	}
	ir_report_fini(&r);
	return hot;
}

/* ---- the SVG of each topology ---------------------------------------- */

static void test_binomial_mesh(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 0, 0);
	ir_comm c = tu_comm(IR_BCAST, 9, 64);
	ir_plan p;
	make(&sch_binomial, &m, &c, &p);
	assert_int_equal(p.nphases, 4);
	assert_int_equal(check_phases(&p), 0);
	/* a broadcast doubles the holders each phase; one root */
	for (uint32_t ph = 0; ph < 4; ph++) {
		char *s = svg_of(&p, (int)ph, NULL);
		assert_int_equal(count_class(s, "held"), 2u << ph);
		assert_int_equal(count_class(s, "root"), 1);
		/* small machines get their rank numbers */
		assert_int_equal(count_class(s, "rank-label"), 16);
		free(s);
	}
	ir_plan_fini(&p);
}

static void test_edn_mesh(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, IR_PORTS_ALL, 8, 8, 0, 0);
	ir_comm c = tu_comm(IR_BCAST, 27, 64);
	ir_plan p;
	make(&sch_edn, &m, &c, &p);
	assert_int_equal(check_phases(&p), 0);
	/* after the last phase every rank holds the message */
	char *s = svg_of(&p, (int)p.nphases - 1, NULL);
	assert_int_equal(count_class(s, "held"), 64);
	free(s);
	ir_plan_fini(&p);
}

static void test_edn_torus(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_TORUS, IR_PORTS_ALL, 4, 4, 0, 0);
	ir_comm c = tu_comm(IR_BCAST, 5, 64);
	ir_plan p;
	make(&sch_edn_torus, &m, &c, &p);
	assert_int_equal(check_phases(&p), 0);
	/* some hop goes round the torus: drawn as two pieces, out over
	 * one edge and in over the other (a path with two moves) */
	bool wrapped = false;
	for (uint32_t ph = 0; ph < p.nphases && !wrapped; ph++) {
		char *s = svg_of(&p, (int)ph, NULL);
		for (const char *q = s; (q = strstr(q, "class=\"hop")); q++) {
			const char *d = strstr(q, " d=\"M");
			const char *e = strchr(d + 5, '"');
			const char *mv =
			        memchr(d + 5, 'M', (size_t)(e - d - 5));
			wrapped |= mv != NULL;
		}
		free(s);
	}
	assert_true(wrapped);
	ir_plan_fini(&p);
}

static void test_sbt_cube(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_HYPERCUBE, IR_PORTS_ALL, 3, 0, 0, 0);
	ir_comm c = tu_comm(IR_BCAST, 0, 64);
	ir_plan p;
	make(&sch_sbt, &m, &c, &p);
	assert_int_equal(check_phases(&p), 0);
	char *s = svg_of(&p, (int)p.nphases - 1, NULL);
	assert_int_equal(count_class(s, "held"), 8);
	/* the cube's 12 links, each once, in the background path */
	assert_int_equal(count_class(s, "link"), 1);
	size_t moves = 0;
	const char *q = strstr(s, "class=\"link\" d=\"");
	assert_non_null(q);
	for (q += 16; *q != '"'; q++)
		moves += *q == 'M';
	assert_int_equal(moves, 12);
	free(s);
	ir_plan_fini(&p);
}

static void test_hpam(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_HPAM, 1, 2, 2, 4, 4);
	ir_comm c = tu_comm(IR_BCAST, 1, 64);
	ir_plan p;
	make(&sch_hpam_multicast, &m, &c, &p);
	assert_int_equal(check_phases(&p), 0);
	char *s = svg_of(&p, 0, NULL);
	assert_int_equal(count_class(s, "level-label"), 2);
	free(s);
	ir_plan_fini(&p);
}

static void test_transpose_contention(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 0, 0);
	ir_comm c = tu_comm(IR_TRANSPOSE, 0, 64);
	ir_plan p;
	make(&sch_transpose_direct, &m, &c, &p);
	/* the direct transpose shares links: some are drawn hot */
	assert_true(check_phases(&p) > 0);
	char *s = svg_of(&p, 0, NULL);
	assert_true(count_class(s, "hot") > 0);
	assert_int_equal(max_load_label(s), 3);
	/* no root in a transpose; the diagonal receives nothing */
	assert_int_equal(count_class(s, "root"), 0);
	assert_int_equal(count_class(s, "held"), 12);
	free(s);
	ir_plan_fini(&p);
}

static void test_switch(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_SWITCH, IR_PORTS_ALL, 8, 0, 0, 0);
	ir_comm c = tu_comm(IR_BCAST, 3, 64);
	ir_plan p;
	make(&sch_binomial, &m, &c, &p);
	assert_int_equal(check_phases(&p), 0);
	char *s = svg_of(&p, 0, NULL);
	assert_int_equal(count_class(s, "crossbar"), 1);
	free(s);
	ir_plan_fini(&p);
}

/* The matrix of a plan show_is_matrix picks, as show draws it. */
static char *matrix_of(const ir_plan *p, int phase)
{
	struct show_opts o = {.phase = phase};
	struct tbuf b = {0};
	char err[256] = "";
	int rc = show_svg(p, &o, &b, err, sizeof err);
	if (rc)
		print_message("  show_svg: %s\n", err);
	assert_int_equal(rc, 0);
	assert_non_null(b.p);
	return b.p;
}

/* The integer attribute name="..." of the first element of class cls. */
static int attr_of(const char *svg, const char *cls, const char *name)
{
	char want[64];
	snprintf(want, sizeof want, "class=\"%s\"", cls);
	const char *e = strstr(svg, want);
	assert_non_null(e);
	snprintf(want, sizeof want, " %s=\"", name);
	const char *a = strstr(e, want);
	assert_non_null(a);
	return atoi(a + strlen(want));
}

/* An alltoall on a switch: one matrix per phase, n x n cells, a cell per
 * transfer of the phase and a grey one per pair of an earlier phase; no
 * arrows, no ranks.  With arrows asked for, the machine as before. */
static void test_matrix(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_SWITCH, IR_PORTS_ALL, 8, 0, 0, 0);
	ir_comm c = tu_comm(IR_ALLTOALL, 0, 64);
	ir_plan p;
	make(&sch_pex, &m, &c, &p);
	assert_true(show_is_matrix(&p));
	assert_true(p.nphases >= 2);
	size_t before = 0;
	for (uint32_t ph = 0; ph < p.nphases; ph++) {
		char *s = matrix_of(&p, (int)ph);
		assert_well_formed(s);
		assert_int_equal(count_class(s, "panel"), 1);
		assert_int_equal(count_class(s, "matrix"), 1);
		assert_int_equal(attr_of(s, "matrix", "data-n"), 8);
		assert_int_equal(attr_of(s, "matrix", "data-ranks-per-cell"),
		                 1);
		/* pex: every pair once, so no cell of the phase was used
		 * before and every cell counts one transfer */
		assert_int_equal(count_class(s, "cell"),
		                 p.phases[ph].ntransfers + before);
		assert_int_equal(count_class(s, "before"), before);
		assert_int_equal(count_class(s, "hop"), 0);
		assert_int_equal(count_class(s, "rank"), 0);
		assert_int_equal(count_class(s, "heat-scale"), 1);
		before += p.phases[ph].ntransfers;
		free(s);
	}
	assert_int_equal(before, 8 * 7);
	/* every phase: one matrix per phase, no grey cells */
	char *s = matrix_of(&p, -1);
	assert_well_formed(s);
	assert_int_equal(count_class(s, "matrix"), p.nphases);
	assert_int_equal(count_class(s, "cell"), 8 * 7);
	assert_int_equal(count_class(s, "before"), 0);
	free(s);
	s = svg_of(&p, 0, NULL);
	assert_int_equal(count_class(s, "matrix"), 0);
	assert_int_equal(count_class(s, "rank"), 8);
	assert_int_equal(count_class(s, "crossbar"), 1);
	free(s);
	ir_plan_fini(&p);

	/* a broadcast on a mesh keeps its arrows */
	m = tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 0, 0);
	c = tu_comm(IR_BCAST, 0, 64);
	make(&sch_binomial, &m, &c, &p);
	assert_false(show_is_matrix(&p));
	s = matrix_of(&p, 0);
	assert_int_equal(count_class(s, "matrix"), 0);
	assert_int_equal(count_class(s, "rank"), 16);
	free(s);
	ir_plan_fini(&p);

	/* 4,096 ranks: 128 x 128 cells of 32 x 32 ranks, a cell for each
	 * block that the phase's transfers touch: at most one per transfer */
	m = tu_machine(IR_MESH, IR_PORTS_ALL, 64, 64, 0, 0);
	c = tu_comm(IR_ALLTOALL, 0, 8);
	make(&sch_pex, &m, &c, &p);
	s = matrix_of(&p, 5);
	assert_well_formed(s);
	assert_int_equal(attr_of(s, "matrix", "data-n"), 128);
	assert_int_equal(attr_of(s, "matrix", "data-ranks-per-cell"), 32);
	assert_true(count_class(s, "cell") <= 128 * 128);
	assert_true(count_class(s, "cell") <= p.phases[5].ntransfers);
	assert_true(count_class(s, "cell") > 0);
	free(s);
	ir_plan_fini(&p);
}

/* --all: one panel per phase, each with its label and every rank. */
static void test_all_phases(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, IR_PORTS_ALL, 8, 8, 0, 0);
	ir_comm c = tu_comm(IR_BCAST, 27, 64);
	ir_plan p;
	make(&sch_edn, &m, &c, &p);
	char *s = svg_of(&p, -1, NULL);
	assert_well_formed(s);
	assert_int_equal(count_class(s, "panel"), p.nphases);
	assert_int_equal(count_class(s, "phase-label"), p.nphases);
	assert_int_equal(count_class(s, "rank"), 64 * p.nphases);
	size_t hops = 0, held = 0;
	for (uint32_t ph = 0; ph < p.nphases; ph++) {
		hops += expect_phase(&p, ph).hops;
		held += expect_held(&p, ph);
	}
	assert_int_equal(count_class(s, "hop"), hops);
	assert_int_equal(count_class(s, "held"), held);
	free(s);
	ir_plan_fini(&p);
}

/* A 64x64 mesh still makes a picture, with no rank numbers. */
static void test_large_svg(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, IR_PORTS_ALL, 64, 64, 0, 0);
	ir_comm c = tu_comm(IR_BCAST, 0, 64);
	ir_plan p;
	make(&sch_binomial, &m, &c, &p);
	char *s = svg_of(&p, 3, NULL);
	assert_well_formed(s);
	assert_int_equal(count_class(s, "rank"), 4096);
	assert_int_equal(count_class(s, "rank-label"), 0);
	assert_int_equal(count_class(s, "hop"), expect_phase(&p, 3).hops);
	int w = 0, h = 0;
	const char *q = strstr(s, "<svg ");
	assert_int_equal(sscanf(strstr(q, "width=\""), "width=\"%d\"", &w), 1);
	assert_int_equal(sscanf(strstr(q, "height=\""), "height=\"%d\"", &h),
	                 1);
	/* the page grows with the machine: 16 pixels or more from one rank
	 * to the next, so neighbours' circles stay 2 pixels apart */
	assert_true(w >= 64 * 16 && w <= 1300);
	assert_true(h >= 64 * 16 && h <= 1300);
	double x0, x1, r0;
	const char *c0 = strstr(s, "<circle class=\"rank");
	assert_non_null(c0);
	const char *c1 = strstr(c0 + 1, "<circle class=\"rank");
	assert_non_null(c1);
	assert_int_equal(sscanf(strstr(c0, "cx=\""), "cx=\"%lf\"", &x0), 1);
	assert_int_equal(sscanf(strstr(c1, "cx=\""), "cx=\"%lf\"", &x1), 1);
	assert_int_equal(sscanf(strstr(c0, " r=\""), " r=\"%lf\"", &r0), 1);
	assert_true(x1 - x0 >= 15.99);
	assert_true(x1 - x0 - 2 * r0 >= 2.0);
	free(s);
	ir_plan_fini(&p);
}

/* Text from the title is escaped. */
static void test_escape(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 0, 0);
	ir_comm c = tu_comm(IR_BCAST, 0, 64);
	ir_plan p;
	make(&sch_binomial, &m, &c, &p);
	char *s = svg_of(&p, 0, "a<b>&\"c'.ccp");
	assert_well_formed(s);
	assert_non_null(strstr(s, "a&lt;b&gt;&amp;&quot;c&apos;.ccp"));
	free(s);
	ir_plan_fini(&p);
}

/* ---- the text drawing ------------------------------------------------ */

static void test_text_golden(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 0, 0);
	ir_comm c = tu_comm(IR_BCAST, 9, 64);
	ir_plan p;
	make(&sch_binomial, &m, &c, &p);
	/* phase 1: rank 9 at (1,2) sends up two hops to (1,0), rank 11 at
	 * (3,2) up to (3,0) */
	char *t = text_of(&p, 1, true);
	static const char golden[] =
	        "binomial, broadcast from rank 9 on a mesh 4x4\n"
	        "\n"
	        "phase 1 of 4 (numbered from 0): 2 transfers, 4 hops, max "
	        "link load 1\n"
	        "o   ◉   o   ◉\n"
	        "    ↑       ↑\n"
	        "o   o   o   o\n"
	        "    ↑       ↑\n"
	        "o   R   o   ●\n"
	        "\n"
	        "o   o   o   o\n"
	        "\n"
	        "key: R root, ◉ received in this phase, ● held data before, "
	        "o no data yet; → ← ↓ ↑ a hop "
	        "(↕ both ways), 2 a link with 2 transfers (* for 10 or "
	        "more)\n";
	assert_string_equal(t, golden);
	free(t);
	/* phase 2 in ASCII: four transfers to the left, to the ranks that
	 * receive in it (@) */
	t = text_of(&p, 2, false);
	assert_non_null(strstr(t, "\n@<--#   @<--#\n\no   o   o   o\n\n"
	                          "@<--R   @<--#\n\no   o   o   o\n"));
	free(t);
	/* every phase: four drawings */
	t = text_of(&p, -1, false);
	size_t n = 0;
	for (const char *q = t; (q = strstr(q, "\nphase ")); q++)
		n++;
	assert_int_equal(n, 4);
	free(t);
	ir_plan_fini(&p);
}

/* The direct transpose's shared links carry their counts. */
static void test_text_counts(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 0, 0);
	ir_comm c = tu_comm(IR_TRANSPOSE, 0, 64);
	ir_plan p;
	make(&sch_transpose_direct, &m, &c, &p);
	char *t = text_of(&p, 0, false);
	/* rank 1 -> 4 and 2 -> 8 and 3 -> 12 all leave row 0 leftwards
	 * over the link 1 -> 0: three transfers */
	const char *row0 = strstr(t, "\no<3-@");
	assert_non_null(row0);
	free(t);
	ir_plan_fini(&p);
}

/* A torus draws its wraparound links in both margins. */
static void test_text_torus(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_TORUS, IR_PORTS_ALL, 4, 4, 0, 0);
	ir_comm c = tu_comm(IR_BCAST, 5, 64);
	ir_plan p;
	make(&sch_edn_torus, &m, &c, &p);
	for (uint32_t ph = 0; ph < p.nphases; ph++) {
		struct show_phase s;
		char err[128];
		assert_int_equal(show_phase_make(&p, ph, &s, err, sizeof err),
		                 0);
		/* arrows expected: one per link used, two for a wrap link
		 * (both margins), one for a vertical pair both ways */
		size_t want = 0;
		for (size_t k = 0; k < s.nlinks; k++) {
			int a[IR_MAX_CUBE_DIM], b[IR_MAX_CUBE_DIM];
			int32_t from = s.links[k].from, to = s.links[k].to;
			ir_coords(&m, from, a);
			ir_coords(&m, to, b);
			int dy = b[1] - a[1], dx = b[0] - a[0];
			bool wrap = dx > 1 || dx < -1 || dy > 1 || dy < -1;
			bool pair = false; /* the reverse is used too */
			for (size_t j = 0; j < s.nlinks; j++)
				pair |= s.links[j].from == to &&
				        s.links[j].to == from;
			if (dy && pair && from > to)
				continue; /* the pair is one glyph */
			want += wrap ? 2 : 1;
		}
		show_phase_fini(&s);
		char *t = text_of(&p, (int)ph, false);
		const char *body = strstr(t, "\nphase ");
		const char *key = strstr(t, "\nkey:");
		size_t got = 0;
		for (const char *q = strchr(body + 1, '\n'); q < key; q++)
			got += *q == '>' || *q == '<' || *q == 'v' ||
			       *q == '^' || *q == '|';
		assert_int_equal(got, want);
		free(t);
	}
	ir_plan_fini(&p);
}

/* ---- n-D machines and nodes ------------------------------------------ */

/* A checked mesh or torus of nd extents dims[], wrap mask (0: the
 * topology's default), rpn ranks per node. */
static ir_machine grid(enum ir_topo topo, int nd, const int *dims,
                       unsigned wrap, int rpn)
{
	return tu_grid(topo, nd, dims, wrap, NULL, rpn, IR_PLACE_BLOCK,
	               IR_PORTS_ALL, IR_PORTS_ALL);
}

/* A plan of the given phases (each a list of src, dst pairs ending in
 * -1) carrying block {src, 0} of a communication of kind coll. */
static void hand_plan(ir_plan *p, const ir_machine *m, enum ir_coll coll,
                      const int32_t (*const *ph)[2], int nph)
{
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = coll;
	c.bytes = 64;
	c.segments = 1;
	ir_plan_init(p, m, &c, "hand");
	for (int k = 0; k < nph; k++) {
		assert_int_equal(ir_plan_phase(p), 0);
		for (int i = 0; ph[k][i][0] >= 0; i++) {
			ir_block b = {coll == IR_BCAST ? 0 : ph[k][i][0], 0};
			assert_int_equal(
			        ir_plan_add(p, ph[k][i][0], ph[k][i][1], &b, 1, 0),
			        0);
		}
	}
}

/* A broadcast from rank 0 along one dimension after the other: in each
 * phase every node holding the message sends it one step on in the
 * dimension (a chain, one hop per transfer), node by node to local
 * rank 0; then, with several ranks per node, local rank 0 to the
 * others inside the node, one a phase.  Verified. */
static void chain_bcast(ir_plan *p, const ir_machine *m)
{
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_BCAST;
	c.bytes = 64;
	c.segments = 1;
	ir_plan_init(p, m, &c, "chain");
	int co[IR_MAX_CUBE_DIM];
	for (int d = 0; d < m->ndims; d++) {
		for (int step = 1; step < m->dims[d]; step++) {
			assert_int_equal(ir_plan_phase(p), 0);
			for (int32_t v = 0; v < m->nnodes; v++) {
				int32_t r = ir_node_rank(m, v, 0);
				ir_coords(m, r, co);
				bool holds = co[d] == step - 1;
				for (int e = d + 1; e < m->ndims; e++)
					holds &= co[e] == 0;
				if (!holds)
					continue;
				co[d] = step;
				ir_block b = {0, 0};
				assert_int_equal(ir_plan_add(p, r,
				                             ir_rank_of(m, co),
				                             &b, 1, 0),
				                 0);
			}
		}
	}
	for (int32_t k = 1; k < m->ranks_per_node; k++) {
		assert_int_equal(ir_plan_phase(p), 0);
		for (int32_t v = 0; v < m->nnodes; v++) {
			ir_block b = {0, 0};
			assert_int_equal(ir_plan_add(p, ir_node_rank(m, v, 0),
			                             ir_node_rank(m, v, k), &b,
			                             1, 0),
			                 0);
		}
	}
	ir_report r;
	int rc = ir_verify(p, &r);
	if (rc)
		print_message("  chain: verifier: %s\n", r.message);
	assert_int_equal(rc, 0);
	ir_report_fini(&r);
}

/* The texts of the elements of class cls, in order, joined by '|'. */
static void class_texts(const char *svg, const char *cls, char *buf,
                        size_t len)
{
	char key[64];
	size_t o = 0;
	snprintf(key, sizeof key, "class=\"%s\"", cls);
	buf[0] = '\0';
	for (const char *q = svg; (q = strstr(q, key)) != NULL; q++) {
		const char *gt = strchr(q, '>'), *lt = strchr(gt, '<');
		assert_non_null(lt);
		o += (size_t)snprintf(buf + o, len - o, "%s%.*s", o ? "|" : "",
		                      (int)(lt - gt - 1), gt + 1);
		assert_true(o < len);
	}
}

/* A 4D mesh is drawn as its (x, y) slices, z across and a down, each
 * named by its coordinates; every count of check_phases holds. */
static void test_nd_slices_svg(void **state)
{
	(void)state;
	static const int d[4] = {3, 2, 2, 2};
	ir_machine m = grid(IR_MESH, 4, d, 0, 1);
	ir_plan p;
	chain_bcast(&p, &m);
	assert_int_equal(p.nphases, 2 + 1 + 1 + 1);
	assert_int_equal(check_phases(&p), 0);
	char *s = svg_of(&p, 3, NULL);
	char names[256];
	class_texts(s, "slice-label", names, sizeof names);
	assert_string_equal(names, "z=0 a=0|z=1 a=0|z=0 a=1|z=1 a=1");
	/* phase 3 (along z) leaves slice z=0 a=0 for z=1 a=0: 6 hops,
	 * all drawn, and the heading counts every slice */
	assert_int_equal(count_class(s, "hop"), 6);
	assert_non_null(strstr(s, "; 4 slices</text>"));
	free(s);
	ir_plan_fini(&p);
}

/* Wraparound per dimension: a torus wrapping x but not y has wrap links
 * in x only, in the SVG's machine and in the text's margins. */
static void test_wrap_per_dim(void **state)
{
	(void)state;
	static const int d[2] = {4, 3};
	ir_machine m = grid(IR_TORUS, 2, d, 1u, 1);
	/* 0 -> 3 goes round x (one hop, -x); 0 -> 8 walks y down 2 hops */
	static const int32_t ph0[][2] = {{0, 3}, {0, 8}, {-1, -1}};
	static const int32_t(*const ph[])[2] = {ph0};
	ir_plan p;
	hand_plan(&p, &m, IR_BCAST, ph, 1);
	char *s = svg_of(&p, 0, NULL);
	/* x: 3 rows of 4 links (one a wrap, drawn as two pieces); y: 4
	 * columns of 2 links: 12 + 3 + 8 moves */
	size_t moves = 0;
	const char *q = strstr(s, "class=\"link\" d=\"");
	assert_non_null(q);
	for (q += 16; *q != '"'; q++)
		moves += *q == 'M';
	assert_int_equal(moves, 12 + 3 + 8);
	assert_non_null(strstr(s, "torus 4x3 (wraps x)"));
	free(s);
	char *t = text_of(&p, 0, false);
	static const char golden[] =
	        "hand, broadcast from rank 0 on a torus 4x3 (wraps x)\n"
	        "\n"
	        "phase 0 of 1 (numbered from 0): 2 transfers, 3 hops, max "
	        "link load 1\n"
	        "<--R   o   o   @<--\n"
	        "   v\n"
	        "   o   o   o   o\n"
	        "   v\n"
	        "   @   o   o   o\n"
	        "\n"
	        "key: R root, @ received in this phase, # held data before, "
	        "o no data yet; > < v ^ a hop "
	        "(| both ways), 2 a link with 2 transfers (* for 10 or "
	        "more)\n";
	assert_string_equal(t, golden);
	free(t);
	ir_plan_fini(&p);
}

/* Several ranks per node: the node is the cell; its ranks' sends and
 * receives are counted, and a transfer inside it is drawn as such. */
static void test_nodes(void **state)
{
	(void)state;
	static const int d[2] = {2, 2};
	ir_machine m = grid(IR_MESH, 2, d, 0, 2);
	/* block placement: node v holds ranks 2v and 2v+1 */
	static const int32_t ph0[][2] = {{0, 1}, {0, 2}, {-1, -1}};
	static const int32_t ph1[][2] = {{2, 3}, {1, 4}, {2, 6}, {-1, -1}};
	static const int32_t ph2[][2] = {{4, 5}, {6, 7}, {-1, -1}};
	static const int32_t(*const ph[])[2] = {ph0, ph1, ph2};
	ir_plan p;
	hand_plan(&p, &m, IR_BCAST, ph, 3);
	ir_report r;
	assert_int_equal(ir_verify(&p, &r), 0);
	assert_int_equal(r.shm_transfers, 4);
	ir_report_fini(&r);
	char *s = svg_of(&p, 0, NULL);
	assert_well_formed(s);
	assert_int_equal(count_class(s, "node"), 4);
	assert_int_equal(count_class(s, "rank"), 0);
	assert_int_equal(count_class(s, "root"), 1);
	/* node 0 holds the root and rank 1: held; node 1 has rank 2 but
	 * not 3: part */
	assert_int_equal(count_class(s, "part"), 1);
	assert_int_equal(count_class(s, "shm"), 1);
	char texts[256];
	class_texts(s, "shm-count", texts, sizeof texts);
	assert_string_equal(texts, "1");
	class_texts(s, "node-count", texts, sizeof texts);
	assert_string_equal(texts, "s1 r1|s0 r1");
	assert_int_equal(count_class(s, "hop"), 1); /* 0 -> 2 only */
	assert_non_null(strstr(s, "mesh 2x2, 2 ranks per node"));
	assert_non_null(strstr(s, ", 1 inside nodes</text>"));
	free(s);
	/* after the last phase every node holds the message */
	s = svg_of(&p, 2, NULL);
	assert_int_equal(count_class(s, "held"), 4);
	assert_int_equal(count_class(s, "shm"), 2);
	free(s);
	char *t = text_of(&p, 1, false);
	static const char golden[] =
	        "hand, broadcast from rank 0 on a mesh 2x2, 2 ranks per "
	        "node\n"
	        "\n"
	        "phase 1 of 3 (numbered from 0): 3 transfers, 2 hops, max "
	        "link load 1, 1 inside nodes\n"
	        "[R]   {#}\n"
	        " v     v\n"
	        "[%]   [%]\n"
	        "\n"
	        "nodes at work (s: its ranks sending, r: receiving, m: "
	        "transfers inside the node, by shared memory):\n"
	        "  node 0 (0,0): s1 r0 m0\n"
	        "  node 1 (1,0): s1 r1 m1\n"
	        "  node 2 (0,1): s0 r1 m0\n"
	        "  node 3 (1,1): s0 r1 m0\n"
	        "\n"
	        "key: R root, # holds data, o no data yet; > < v ^ a hop "
	        "(| both ways), 2 a link with 2 transfers (* for 10 or "
	        "more); [o] a node of 2 ranks (% some of them hold data), "
	        "{o} a node with transfers inside it (shared memory, no "
	        "link)\n";
	assert_string_equal(t, golden);
	free(t);
	ir_plan_fini(&p);
}

/* The text of a 4D machine: its slices one after another under their
 * coordinates, a hop to another slice marked with the dimension's name
 * right of the node it leaves. */
static void test_nd_text(void **state)
{
	(void)state;
	static const int d[4] = {2, 2, 2, 2};
	ir_machine m = grid(IR_MESH, 4, d, 0, 1);
	ir_plan p;
	chain_bcast(&p, &m);
	/* phase 2 is along z: slice z=0 a=0 sends to z=1 a=0 */
	char *t = text_of(&p, 2, false);
	static const char golden[] =
	        "chain, broadcast from rank 0 on a mesh 2x2x2x2\n"
	        "\n"
	        "phase 2 of 4 (numbered from 0): 4 transfers, 4 hops, max "
	        "link load 1\n"
	        "z=0 a=0\n"
	        "Rz   #z\n\n#z   #z\n"
	        "\n"
	        "z=1 a=0\n"
	        "@    @\n\n@    @\n"
	        "\n"
	        "z=0 a=1\n"
	        "o    o\n\no    o\n"
	        "\n"
	        "z=1 a=1\n"
	        "o    o\n\no    o\n"
	        "\n"
	        "key: R root, @ received in this phase, # held data before, "
	        "o no data yet; > < v ^ a hop "
	        "(| both ways), 2 a link with 2 transfers (* for 10 or "
	        "more); z a right of a node: a hop leaves it along that "
	        "dimension, for another slice (& along several)\n";
	assert_string_equal(t, golden);
	free(t);
	/* every phase, one drawing after another */
	t = text_of(&p, -1, true);
	size_t n = 0;
	for (const char *q = t; (q = strstr(q, "\nz=1 a=1\n")); q++)
		n++;
	assert_int_equal(n, 4);
	free(t);
	ir_plan_fini(&p);
}

/* Fugaku's shape, 24x23x24x2x3x2 with x y z b wrapping: 288 slices of
 * 552 nodes, too many to draw.  A phase inside one slice draws that
 * slice alone and says so; a phase with a transfer in every slice gets
 * the summary, one cell or line per slice, and says so. */
static void test_fugaku(void **state)
{
	(void)state;
	static const int tofu[6] = {24, 23, 24, 2, 3, 2};
	ir_machine m = grid(IR_TORUS, 6, tofu, 0x17u, 1);
	ir_comm c;
	memset(&c, 0, sizeof c);
	c.coll = IR_ALLGATHER;
	c.bytes = 64;
	c.segments = 1;
	ir_plan p;
	ir_plan_init(&p, &m, &c, "hand");
	assert_int_equal(ir_plan_phase(&p), 0);
	ir_block b0 = {0, 0};
	assert_int_equal(ir_plan_add(&p, 0, 1, &b0, 1, 0), 0);
	assert_int_equal(ir_plan_phase(&p), 0);
	for (int32_t s = 0; s < 288; s++) {
		ir_block b = {s * 552, 0};
		assert_int_equal(ir_plan_add(&p, s * 552, s * 552 + 1, &b, 1, 0),
		                 0);
	}
	char *s = svg_of(&p, 0, NULL);
	assert_well_formed(s);
	char names[256];
	class_texts(s, "slice-label", names, sizeof names);
	assert_string_equal(names, "z=0 a=0 b=0 c=0");
	assert_int_equal(count_class(s, "rank"), 552);
	assert_int_equal(count_class(s, "hop"), 1);
	assert_non_null(strstr(s, "; 1 of 288 slices drawn: those the "
	                          "transfers pass through, and the root's"));
	assert_non_null(strstr(s, "torus 24x23x24x2x3x2 (wraps x y z b)"));
	free(s);
	s = svg_of(&p, 1, NULL);
	assert_well_formed(s);
	assert_int_equal(count_class(s, "slice"), 288);
	assert_int_equal(count_class(s, "busy"), 288);
	assert_int_equal(count_class(s, "slice-count"), 288);
	assert_int_equal(count_class(s, "rank"), 0);
	assert_non_null(strstr(s, "288 of 288 slices (x, y planes of 24x23 "
	                          "nodes) carry transfers, more than a "
	                          "picture draws"));
	assert_non_null(strstr(s, "<title>z=23 a=1 b=2 c=1: transfers out 1, "
	                          "in 1; hops starting here 1</title>"));
	free(s);
	char *t = text_of(&p, 0, false);
	assert_non_null(strstr(t, "\nslices drawn: 1 of 288, those the "
	                          "transfers pass through, and the root's\n"
	                          "z=0 a=0 b=0 c=0\n"));
	free(t);
	t = text_of(&p, 1, false);
	assert_non_null(strstr(t, "\nslices: 288 of 288 carry transfers, "
	                          "more than the 32 drawn;"));
	size_t n = 0;
	for (const char *q = t; (q = strstr(q, "\n  z=")); q++)
		n++;
	assert_int_equal(n, 288);
	assert_non_null(
	        strstr(t, "\n  z=23 a=1 b=2 c=1: out 1, in 1, hops 1\n"));
	free(t);
	ir_plan_fini(&p);
}

/* n-D limits: slices wider than the text draws, a machine too large to
 * pick slices from. */
static void test_nd_errors(void **state)
{
	(void)state;
	static const int wide[4] = {40, 2, 2, 2};
	ir_machine m = grid(IR_MESH, 4, wide, 0, 1);
	static const int32_t ph0[][2] = {{0, 1}, {-1, -1}};
	static const int32_t(*const ph[])[2] = {ph0};
	ir_plan p;
	hand_plan(&p, &m, IR_BCAST, ph, 1);
	char err[256] = "";
	struct tbuf b = {0};
	struct show_opts o = {.phase = 0};
	assert_int_equal(show_text(&p, &o, &b, err, sizeof err), CCP_ENOTAPPLY);
	assert_string_equal(err, "the text drawing is for slices up to 32x32; "
	                         "this mesh is 40 wide in dimension x: use "
	                         "--svg");
	assert_int_equal(b.len, 0);
	free(svg_of(&p, 0, NULL)); /* the SVG draws it */
	ir_plan_fini(&p);
	static const int huge[4] = {4, 4, 512, 512};
	m = grid(IR_MESH, 4, huge, 0, 1);
	hand_plan(&p, &m, IR_BCAST, ph, 1);
	assert_int_equal(show_svg(&p, &o, &b, err, sizeof err), CCP_ENOTAPPLY);
	assert_string_equal(err, "4194304 nodes: pictures of machines of 4 "
	                         "or more dimensions are drawn for up to "
	                         "2097152 nodes");
	assert_int_equal(show_text(&p, &o, &b, err, sizeof err), CCP_ENOTAPPLY);
	assert_non_null(strstr(err, "4194304 nodes"));
	assert_int_equal(b.len, 0);
	ir_plan_fini(&p);
	free(b.p);
}

/* A 3D machine with nodes: the hop to the next plane is marked right of
 * the node's brackets, not over its glyph. */
static void test_nodes_3d(void **state)
{
	(void)state;
	static const int d[3] = {2, 1, 2};
	ir_machine m = grid(IR_MESH, 3, d, 0, 2);
	/* rank 0 on node 0 (0,0,0) to rank 4 on node 2 (0,0,1) */
	static const int32_t ph0[][2] = {{0, 4}, {-1, -1}};
	static const int32_t(*const ph[])[2] = {ph0};
	ir_plan p;
	hand_plan(&p, &m, IR_BCAST, ph, 1);
	char *t = text_of(&p, 0, false);
	assert_non_null(strstr(t, "\nz = 0\n[R]+   [o]\n\nz = 1\n[%]    [o]\n"));
	free(t);
	ir_plan_fini(&p);
}

/* ---- errors ---------------------------------------------------------- */

static void test_errors(void **state)
{
	(void)state;
	ir_machine m = tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 0, 0);
	ir_comm c = tu_comm(IR_BCAST, 9, 64);
	ir_plan p;
	make(&sch_binomial, &m, &c, &p);
	char err[256] = "";
	struct tbuf b = {0};
	struct show_opts o = {.phase = 4};
	assert_int_equal(show_svg(&p, &o, &b, err, sizeof err), CCP_ERANGE);
	assert_string_equal(err, "phase 4: the plan has 4 phases, 0..3");
	assert_int_equal(show_text(&p, &o, &b, err, sizeof err), CCP_ERANGE);
	assert_string_equal(err, "phase 4: the plan has 4 phases, 0..3");
	assert_int_equal(b.len, 0);
	ir_plan_fini(&p);

	/* text: too large, or not a grid */
	m = tu_machine(IR_MESH, IR_PORTS_ALL, 64, 64, 0, 0);
	c = tu_comm(IR_BCAST, 0, 64);
	make(&sch_binomial, &m, &c, &p);
	o.phase = 0;
	assert_int_equal(show_text(&p, &o, &b, err, sizeof err), CCP_ENOTAPPLY);
	assert_non_null(strstr(err, "up to 32x32"));
	assert_non_null(strstr(err, "use --svg"));
	ir_plan_fini(&p);
	m = tu_machine(IR_HYPERCUBE, IR_PORTS_ALL, 3, 0, 0, 0);
	c = tu_comm(IR_BCAST, 0, 64);
	make(&sch_sbt, &m, &c, &p);
	assert_int_equal(show_text(&p, &o, &b, err, sizeof err), CCP_ENOTAPPLY);
	assert_non_null(strstr(err, "hypercube"));
	assert_int_equal(b.len, 0);
	ir_plan_fini(&p);

	/* every phase of a 127-phase alltoall is too many panels; one
	 * phase of it is drawn */
	m = tu_machine(IR_MESH, IR_PORTS_ALL, 16, 8, 0, 0);
	c = tu_comm(IR_ALLTOALL, 0, 64);
	make(&sch_pex, &m, &c, &p);
	assert_int_equal(p.nphases, 127);
	o.phase = -1;
	assert_int_equal(show_svg(&p, &o, &b, err, sizeof err),
	                 CCP_ENOTAPPLY);
	assert_non_null(strstr(err, "give --phase K"));
	assert_int_equal(b.len, 0);
	free(svg_of(&p, 126, NULL));
	ir_plan_fini(&p);
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_binomial_mesh),
	        cmocka_unit_test(test_edn_mesh),
	        cmocka_unit_test(test_edn_torus),
	        cmocka_unit_test(test_sbt_cube),
	        cmocka_unit_test(test_hpam),
	        cmocka_unit_test(test_transpose_contention),
	        cmocka_unit_test(test_switch),
	        cmocka_unit_test(test_matrix),
	        cmocka_unit_test(test_all_phases),
	        cmocka_unit_test(test_large_svg),
	        cmocka_unit_test(test_escape),
	        cmocka_unit_test(test_text_golden),
	        cmocka_unit_test(test_text_counts),
	        cmocka_unit_test(test_text_torus),
	        cmocka_unit_test(test_nd_slices_svg),
	        cmocka_unit_test(test_wrap_per_dim),
	        cmocka_unit_test(test_nodes),
	        cmocka_unit_test(test_nodes_3d),
	        cmocka_unit_test(test_nd_text),
	        cmocka_unit_test(test_fugaku),
	        cmocka_unit_test(test_nd_errors),
	        cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
