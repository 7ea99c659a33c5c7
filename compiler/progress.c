/*
 * progress.c - the progress bar of long commands and the summary line of
 * every command (progress.h says when each appears and why).
 *
 * The bar is one line rewritten in place with '\r': the label, a bar of
 * PROGRESS_CELLS cells, the percentage and the seconds so far; padded with
 * spaces to cover a longer earlier drawing, and erased (spaces, '\r') at
 * the end.  It is written with write(2) in one call, so it never mixes
 * with stdio buffers.  A ticker thread redraws it every PROGRESS_PERIOD
 * while the work reports nothing (a single long generator, a long
 * simulation between reports), showing a spinner when no fraction is
 * known.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compile.h"
#include "progress.h"

double progress_now(void *unused)
{
	struct timespec ts;
	(void)unused;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_init(struct progress *p, int fd, bool on, const char *label,
                   double (*clock)(void *), void *clock_arg)
{
	memset(p, 0, sizeof *p);
	p->fd = fd;
	p->on = on;
	p->clock = clock ? clock : progress_now;
	p->clock_arg = clock_arg;
	snprintf(p->label, sizeof p->label, "%s", label ? label : "");
	p->start = p->clock(p->clock_arg);
	p->drawn_at = -1;
	p->fraction = -1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
}

size_t progress_format(const struct progress *p, double now, char *buf,
                       size_t cap)
{
	static const char spinner[] = "|/-\\";
	double t = now - p->start;
	int n;

	if (cap == 0)
		return 0;
	if (p->fraction < 0) {
		n = snprintf(buf, cap, "%s %c %.1f s", p->label,
		             spinner[p->spin % 4], t);
	} else {
		char bar[PROGRESS_CELLS + 1];
		int full = (int)(p->fraction * PROGRESS_CELLS);
		for (int i = 0; i < PROGRESS_CELLS; i++)
			bar[i] = i < full ? '#' : '.';
		bar[PROGRESS_CELLS] = '\0';
		n = snprintf(buf, cap, "%s [%s] %3d%% %.1f s", p->label, bar,
		             (int)(p->fraction * 100), t);
	}
	if (n < 0)
		n = 0;
	return (size_t)n < cap ? (size_t)n : cap - 1;
}

/* Write all of buf to fd; a terminal that fails is not worth an error. */
static void put(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		buf += w;
		len -= (size_t)w;
	}
}

bool progress_tick(struct progress *p)
{
	char line[160];
	double now;
	size_t n;

	if (!p->on)
		return false;
	now = p->clock(p->clock_arg);
	if (now - p->start < PROGRESS_DELAY ||
	    (p->drawn_at >= 0 && now - p->drawn_at < PROGRESS_PERIOD))
		return false;
	line[0] = '\r';
	n = 1 + progress_format(p, now, line + 1, sizeof line - 1);
	/* cover what a longer drawing left */
	while (n - 1 < p->width && n < sizeof line)
		line[n++] = ' ';
	put(p->fd, line, n);
	p->width = n - 1;
	p->drawn_at = now;
	p->draws++;
	p->spin++;
	return true;
}

void progress_report(void *arg, double fraction)
{
	struct progress *p = arg;

	if (!p || !p->on)
		return;
	if (isnan(fraction))
		return;
	if (fraction > 1)
		fraction = 1;
	pthread_mutex_lock(&p->lock);
	if (fraction > p->fraction)
		p->fraction = fraction;
	progress_tick(p);
	pthread_mutex_unlock(&p->lock);
}

void progress_clear(struct progress *p)
{
	char line[160];
	size_t n = 0;

	if (!p->on || p->draws == 0 || p->width == 0)
		return;
	line[n++] = '\r';
	while (n - 1 < p->width && n < sizeof line - 1)
		line[n++] = ' ';
	line[n++] = '\r';
	put(p->fd, line, n);
	p->width = 0;
}

/* The ticker: redraw every PROGRESS_PERIOD until asked to stop. */
static void *ticker(void *arg)
{
	struct progress *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (long)(PROGRESS_PERIOD * 1e9);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &until);
		if (!p->stop)
			progress_tick(p);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void progress_begin(struct progress *p, const char *label)
{
	progress_init(p, STDERR_FILENO, isatty(STDERR_FILENO) == 1, label, NULL,
	              NULL);
	if (p->on && pthread_create(&p->ticker, NULL, ticker, p) == 0)
		p->ticking = true;
}

void progress_end(struct progress *p)
{
	if (p->ticking) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_signal(&p->wake);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->ticker, NULL);
		p->ticking = false;
	}
	progress_clear(p);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
}

/* ---- the summary line ------------------------------------------------- */

static char summary[512]; /* the command's note */

void summary_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(summary, sizeof summary, fmt, ap);
	va_end(ap);
}

const char *summary_get(void)
{
	return summary;
}

const char *summary_status_name(int status)
{
	switch (status) {
	case EXIT_OK:
		return "ok";
	case EXIT_REJECTED:
		return "rejected by the verifier";
	case EXIT_BADINPUT:
		return "bad input";
	case EXIT_INTERNAL:
		return "internal error";
	default:
		return NULL;
	}
}

int summary_format(char *buf, size_t cap, const char *command, int status,
                   double seconds)
{
	const char *name = summary_status_name(status);
	char st[64];

	if (status == 0)
		snprintf(st, sizeof st, "%s", summary[0] ? "" : "ok");
	else if (name)
		snprintf(st, sizeof st, "%sexit %d (%s)",
		         summary[0] ? ": " : "", status, name);
	else
		snprintf(st, sizeof st, "%sexit %d", summary[0] ? ": " : "",
		         status);
	return snprintf(buf, cap, "ccplan: %s: %s%s, %.2f s", command, summary,
	                st, seconds);
}
