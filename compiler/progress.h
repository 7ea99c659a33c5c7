/*
 * progress.h - what the ccplan command tells the user while and after it
 * works: a progress bar on stderr for long work, and the one-line summary
 * every command ends with.
 *
 * The libraries never draw: a long computation (select_run's candidates,
 * model_simulate's events) only reports the fraction done through a
 * callback, progress_report below.  The bar is drawn only when stderr is a
 * terminal and the work has run for PROGRESS_DELAY seconds, redrawn at
 * most every PROGRESS_PERIOD seconds (a small thread keeps it moving when
 * no report comes), and erased when the work ends, so that output that
 * follows, and pipes and logs, never see it.  The drawing itself
 * (progress_tick, progress_format) takes its clock and file descriptor
 * from the struct, so tests drive it with a fake clock.
 */
#ifndef CCP_PROGRESS_H
#define CCP_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PROGRESS_DELAY  1.0 /* seconds of work before the first drawing */
#define PROGRESS_PERIOD 0.1 /* seconds between drawings, at least */
#define PROGRESS_CELLS  30  /* width of the bar between its brackets */

/* One bar.  Fields below the lock are the ticker thread's. */
struct progress {
	int fd;                     /* where the bar is drawn */
	bool on;                    /* draw at all (fd is a terminal) */
	double (*clock)(void *arg); /* now, in seconds (monotonic) */
	void *clock_arg;            /* its argument */
	char label[48];             /* what runs: "compile mesh.yaml" */
	double start;               /* clock when the work began */
	double drawn_at;            /* clock at the last drawing; < 0: none */
	double fraction;            /* done, 0..1; < 0 while unknown */
	size_t width;               /* columns the last drawing took */
	unsigned draws;             /* drawings so far */
	unsigned spin;              /* frame of the spinner (no fraction) */
	pthread_mutex_t lock;       /* the fields above, between threads */
	pthread_cond_t wake;        /* ends the ticker's wait early */
	pthread_t ticker;           /* redraws while no report comes */
	bool ticking;               /* the ticker runs */
	bool stop;                  /* the ticker is asked to end */
};

/* Set p up without a thread: draw on fd when on, time from clock (NULL:
 * the monotonic clock).  The work starts now. */
void progress_init(struct progress *p, int fd, bool on, const char *label,
                   double (*clock)(void *), void *clock_arg);

/* Draw the bar if it is due: on, PROGRESS_DELAY after the start and
 * PROGRESS_PERIOD after the last drawing.  true if it drew.  The caller
 * holds the lock when the ticker runs (progress_report does). */
bool progress_tick(struct progress *p);

/* The text of the bar at time now, without the leading '\r'; its
 * length.  "compile mesh.yaml [#######.......] 24% 1.5 s", or a spinner
 * and the time when the fraction is unknown. */
size_t progress_format(const struct progress *p, double now, char *buf,
                       size_t cap);

/* The callback the libraries are given: arg is a struct progress, the
 * fraction done is kept (it never goes back) and the bar drawn if due. */
void progress_report(void *arg, double fraction);

/* Erase the bar if it was drawn. */
void progress_clear(struct progress *p);

/* For the command: progress_init on stderr, on when stderr is a
 * terminal, with a ticker thread then.  progress_end stops the thread
 * and erases the bar; call it before printing anything else. */
void progress_begin(struct progress *p, const char *label);
void progress_end(struct progress *p);

/* ---- the summary line ------------------------------------------------- */

/* Note what the command did, for its summary: "mesh.yaml -> mesh.ccp,
 * binomial, 8 phases".  Each call replaces the last.  Process-wide: the
 * command's own thread only. */
void summary_note(const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 1, 2)))
#endif
        ;

/* The note so far ("" if none). */
const char *summary_get(void);

/* The summary line of command (e.g. "compile", "cache ls") that ended
 * with exit status after seconds, without a newline:
 * "ccplan: compile: NOTE, 0.02 s", or with the status spelt out when it
 * is not 0: "ccplan: compile: NOTE: exit 2 (bad input), 0.00 s".  Its
 * length, as snprintf. */
int summary_format(char *buf, size_t cap, const char *command, int status,
                   double seconds);

/* What an exit status means: "ok", "rejected by the verifier", "bad
 * input", "internal error", or NULL for another status (ccplan run
 * passes on its ranks'). */
const char *summary_status_name(int status);

/* Seconds on the monotonic clock. */
double progress_now(void *unused);

#endif
