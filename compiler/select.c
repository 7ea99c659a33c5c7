/*
 * select.c - the three answers of the papers for one machine and one
 * communication: steps (the verifier), the closed-form model (model/cost.c)
 * and the simulated network (model/sim.c), for every algorithm that
 * applies, ranked; the ranking is what `ccplan compare` prints and what
 * `algorithm: auto` takes the first of.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "select.h"

enum model_kind select_model_for(const ir_plan *p)
{
	const ir_machine *m = &p->machine;
	const ir_cost *k = &m->cost;
	if (m->topo == IR_HPAM)
		return MODEL_HPAM;
	if (!isnan(k->tau) && !isnan(k->phi) &&
	    (p->comm.coll == IR_IRREGULAR || isnan(k->alpha)))
		return MODEL_PERMUTATION;
	if ((p->flags & IR_PLAN_LINK_CONTENTION) && !isnan(k->beta_sat))
		return MODEL_CONTENTION;
	return MODEL_UNICAST;
}

/* select_predict's time into *us, and model_predict's code: a ranking
 * must fail on CCP_ENOMEM, not take it for a plan with no time. */
static int predict(const ir_plan *p, const ir_report *r, enum model_kind *k,
                   double *us, char *why, size_t len)
{
	char err[256] = "";
	*us = NAN;
	*k = select_model_for(p);
	int rc = model_predict(p, r, *k, us, NULL, err, sizeof err);
	if (rc != 0) {
		snprintf(why, len, "%s model: %s", model_kind_name(*k), err);
		*us = NAN;
		return rc;
	}
	why[0] = '\0';
	return 0;
}

double select_predict(const ir_plan *p, const ir_report *r, enum model_kind *k,
                      char *why, size_t len)
{
	double us;
	predict(p, r, k, &us, why, len);
	return us;
}

/* The phases a plan takes if each phase's busiest link passes its
 * transfers one after another: a contended phase counts as its busiest
 * link's load over the link's capacity (ir_report.link_load).  Without
 * costs to time them, plans are ranked by this, so that a plan putting
 * 32 transfers on one link in a phase does not pass for one of a single
 * transfer per link. */
uint64_t select_serial_phases(const ir_report *r)
{
	uint64_t s = 0;
	for (uint32_t i = 0; i < r->phases; i++)
		s += r->link_load && r->link_load[i] > 1 ? r->link_load[i] : 1;
	return s;
}

/* Rank: verified plans first, by the chosen time (NaN after numbers),
 * then by phases with contended ones counted at their load
 * (select_serial_phases), then phases; the rest keep registry order
 * (index). */
static int cmp_rows(const void *a, const void *b, bool by_model)
{
	const struct select_row *x = a, *y = b;
	if ((x->rc == 0) != (y->rc == 0))
		return x->rc == 0 ? -1 : 1;
	if (x->rc == 0) {
		double tx = by_model ? x->predicted : x->sim_max;
		double ty = by_model ? y->predicted : y->sim_max;
		if (isnan(tx) != isnan(ty))
			return isnan(tx) ? 1 : -1;
		if (!isnan(tx) && tx != ty)
			return tx < ty ? -1 : 1;
		uint64_t sx = select_serial_phases(&x->report);
		uint64_t sy = select_serial_phases(&y->report);
		if (sx != sy)
			return sx < sy ? -1 : 1;
		if (x->report.phases != y->report.phases)
			return x->report.phases < y->report.phases ? -1 : 1;
	}
	return 0; /* the insertion sort below keeps registry order */
}

/* Stable insertion sort (a few dozen rows). */
static void sort_rows(struct select_row *r, size_t n, bool by_model)
{
	for (size_t i = 1; i < n; i++) {
		struct select_row t = r[i];
		size_t j = i;
		while (j > 0 && cmp_rows(&t, &r[j - 1], by_model) < 0) {
			r[j] = r[j - 1];
			j--;
		}
		r[j] = t;
	}
}

/* select_set_progress's hook, per thread. */
static _Thread_local void (*progress_fn)(void *, double);
static _Thread_local void *progress_arg;

void select_set_progress(void (*fn)(void *arg, double fraction), void *arg)
{
	progress_fn = fn;
	progress_arg = arg;
}

/* Candidate `at` of `of` is being simulated: its share of the whole. */
struct sim_share {
	size_t at, of;
};

static void sim_progress(void *arg, double fraction)
{
	const struct sim_share *sh = arg;
	progress_fn(progress_arg, ((double)sh->at + fraction) / (double)sh->of);
}

int select_run(const struct front_input *in, bool simulate, bool by_model,
               struct select_result *out)
{
	struct sim_share share = {0, 0};
	struct model_sim_opts so = {0};
	size_t cap = 0;
	memset(out, 0, sizeof *out);
	for (int k = 0; sch_generators[k]; k++)
		cap++;
	out->rows = calloc(cap ? cap : 1, sizeof *out->rows);
	if (!out->rows)
		return CCP_ENOMEM;
	bool sim_ok = simulate;
	if (!simulate)
		snprintf(out->sim_why, sizeof out->sim_why, "not asked for");
	if (progress_fn) {
		/* the candidates, to share the bar out (applies is cheap) */
		char why[256];
		for (int k = 0; sch_generators[k]; k++)
			share.of += sch_applies(sch_generators[k], 
			                    &in->machine, &in->comm, why,
			                    sizeof why) == 0;
		so.progress = sim_progress;
		so.progress_arg = &share;
	}
	for (int k = 0; sch_generators[k]; k++) {
		const struct sch_generator *g = sch_generators[k];
		char why[256];
		if (sch_applies(g, &in->machine, &in->comm, why, sizeof why) != 0)
			continue;
		share.at = out->n;
		if (progress_fn && share.of)
			progress_fn(progress_arg,
			            (double)share.at / (double)share.of);
		struct select_row *r = &out->rows[out->n++];
		r->g = g;
		r->predicted = r->sim_max = r->sim_avg = NAN;
		r->rc = compile_generate(in, g, &r->plan, &r->report, r->why,
		                         sizeof r->why);
		if (r->rc == CCP_ENOMEM) {
			select_fini(out);
			return CCP_ENOMEM;
		}
		if (r->rc)
			continue;
		char mwhy[256];
		if (predict(&r->plan, &r->report, &out->model, &r->predicted,
		            mwhy, sizeof mwhy) == CCP_ENOMEM) {
			select_fini(out);
			return CCP_ENOMEM;
		}
		if (mwhy[0] && !out->model_why[0])
			snprintf(out->model_why, sizeof out->model_why, "%s",
			         mwhy);
		if (!sim_ok)
			continue;
		struct model_sim s;
		char serr[256] = "";
		int rc = model_simulate(&r->plan, progress_fn ? &so : NULL, &s,
		                        serr, sizeof serr);
		if (rc == CCP_ENOMEM) {
			select_fini(out);
			return CCP_ENOMEM;
		}
		if (rc) {
			/* the costs are the machine's: no candidate will run */
			snprintf(out->sim_why, sizeof out->sim_why, "%s", serr);
			sim_ok = false;
			continue;
		}
		r->sim_max = s.max_us;
		r->sim_avg = s.avg_us;
		model_sim_fini(&s);
	}
	if (!sim_ok)
		for (size_t i = 0; i < out->n; i++)
			out->rows[i].sim_max = out->rows[i].sim_avg = NAN;
	out->by_model = by_model || !sim_ok;
	sort_rows(out->rows, out->n, out->by_model);
	return 0;
}

void select_fini(struct select_result *r)
{
	for (size_t i = 0; r->rows && i < r->n; i++)
		if (r->rows[i].rc == 0) {
			ir_plan_fini(&r->rows[i].plan);
			ir_report_fini(&r->rows[i].report);
		}
	free(r->rows);
	memset(r, 0, sizeof *r);
}

/* The model's time of g's plan for in at a block size of bytes; NaN if
 * it has none. */
static double time_at(const struct front_input *in,
                      const struct sch_generator *g, int64_t bytes)
{
	struct front_input at = *in; /* shallow: the matrix is not used */
	ir_plan p;
	ir_report r;
	char why[256];
	enum model_kind k;
	at.comm.bytes = bytes;
	if (sch_applies(g, &at.machine, &at.comm, why, sizeof why) != 0 ||
	    compile_generate(&at, g, &p, &r, why, sizeof why) != 0)
		return NAN;
	double us = select_predict(&p, &r, &k, why, sizeof why);
	ir_plan_fini(&p);
	ir_report_fini(&r);
	return us;
}

int select_crossovers(const struct front_input *in,
                      const struct sch_generator *a,
                      const struct sch_generator *b, int64_t *at, int max)
{
	if (in->comm.coll == IR_IRREGULAR || in->comm.matrix)
		return 0;
	int n = 0, last = 0;
	for (int e = 0; e <= 24 && n < max; e++) {
		int64_t bytes = INT64_C(1) << e;
		if ((ir_coll_kind(in->comm.coll) & IR_CK_REDUCES) &&
		    bytes % 8 != 0)
			continue; /* whole elements of any dtype */
		double ta = time_at(in, a, bytes), tb = time_at(in, b, bytes);
		if (isnan(ta) || isnan(tb))
			continue;
		int now = ta < tb ? -1 : ta > tb ? 1 : 0;
		if (now != 0 && last != 0 && now != last)
			at[n++] = bytes;
		if (now != 0)
			last = now;
	}
	return n;
}

const char *select_ranked_by(const struct select_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].rc == 0 && (!isnan(r->rows[i].predicted) ||
		                           !isnan(r->rows[i].sim_max)))
			return r->by_model ? "the model" : "simulated time";
	return "phases, a contended phase counted at its busiest link's "
	       "load (the machine lacks the costs to time them)";
}
