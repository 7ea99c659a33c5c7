/*
 * select.h - choosing among algorithms: every generator that applies is
 * run, verified, priced by the machine's cost model and simulated, and
 * the candidates are ranked (`ccplan compare`, `algorithm: auto`).
 */
#ifndef CCP_SELECT_H
#define CCP_SELECT_H

#include "front.h"
#include "ir.h"
#include "model.h"
#include "sched.h"

/* One algorithm's showing. */
struct select_row {
	const struct sch_generator *g;
	int rc;           /* 0: a verified plan; else why there is none */
	char why[256];    /* the reason when rc != 0 */
	ir_plan plan;     /* rc == 0: the plan (owned, select_fini) */
	ir_report report; /* rc == 0: what the verifier found */
	double predicted; /* us by the model; NaN if the costs are unset */
	double sim_max;   /* us by the simulator: last delivery; NaN if not */
	double sim_avg;   /* us: mean delivery over receivers; NaN if not */
};

/* All candidates, best first: verified plans ranked by simulated time
 * (or by predicted time when asked, or when the simulator cannot run),
 * then by phases; algorithms without a plan last, in registry order. */
struct select_result {
	struct select_row *rows;
	size_t n;              /* every generator that applies */
	enum model_kind model; /* the model used for predicted */
	char model_why[512];   /* "" or why predicted is NaN */
	char sim_why[512];     /* "" or why sim_* are NaN */
	bool by_model;         /* ranked by predicted time */
};

/* The model that fits the machine and plan: HPAM (000 eq. 3) on an HPAM
 * machine, the permutation model (004) when tau and phi are set, for
 * irregular patterns, and for collectives too when alpha is not (the
 * per-phase costs `ccplan tau fit --costs` measures), the contention
 * model (003) for a plan that allows link contention when beta_sat is
 * set, else the unicast model (001). */
enum model_kind select_model_for(const ir_plan *p);

/* The phases of a verified plan with each phase counted at its busiest
 * link's load over capacity (at least 1): what ranking by phases compares
 * first, when the machine lacks the costs to time plans. */
uint64_t select_serial_phases(const ir_report *r);

/* The predicted time of a verified plan under select_model_for; NaN with
 * the reason in why when the costs it needs are unset. */
double select_predict(const ir_plan *p, const ir_report *r, enum model_kind *k,
                      char *why, size_t len);

/* How r ranked its rows, in words: "simulated time", "the model", or
 * "phases (the machine lacks the costs to time them)" when no
 * row has a time (no cost given, or not every one the model needs). */
const char *select_ranked_by(const struct select_result *r);
/* Run every generator that applies to in (its algorithm is ignored) and
 * rank them.  simulate: also run the simulator; by_model: rank by the
 * model.  0, or CCP_ENOMEM; out is valid on success (select_fini). */
int select_run(const struct front_input *in, bool simulate, bool by_model,
               struct select_result *out);
void select_fini(struct select_result *r);

/* Report select_run's progress on this thread: fn(arg, fraction done) as
 * each candidate starts and while it is simulated; NULL: none.  The
 * library never draws; the command passes progress_report
 * (compiler/progress.h). */
void select_set_progress(void (*fn)(void *arg, double fraction), void *arg);

/* Message sizes (bytes per block, powers of two from 1 to 2^24) at which
 * the model's order of algorithms a and b changes, into at[] (up to max);
 * returns how many, or a negative CCP_E* code.  Plans are generated
 * again at every size; irregular patterns have no size to vary (0). */
int select_crossovers(const struct front_input *in,
                      const struct sch_generator *a,
                      const struct sch_generator *b, int64_t *at, int max);

#endif
