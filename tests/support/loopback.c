/*
 * loopback.c - the in-process transport of the tests (loopback.h): one
 * locked queue of eager messages, barriers counted under the same lock,
 * and the view of every rank's wait that lets it fail a job whose ranks
 * can no longer move instead of hanging.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loopback.h"
#include "transport.h"

struct lb_msg {
	struct lb_msg *next;
	int32_t src, dst;
	uint32_t phase;
	int kind;
	size_t len;
	unsigned char data[];
};

/* What a rank is doing, as the others see it. */
enum lb_state {
	LB_RUNNING,   /* not blocked in the transport */
	LB_RECEIVING, /* blocked until a message (peer, phase, kind) comes */
	LB_BARRIER,   /* blocked until every rank is in the barrier */
	LB_LEFT       /* its transport is freed: it makes no more calls */
};

struct lb_rank {
	uint8_t state; /* enum lb_state */
	int32_t peer;  /* LB_RECEIVING: the message it waits for */
	uint32_t phase;
	int kind;
};

struct lb_world {
	int32_t n;
	unsigned timeout_ms;
	pthread_mutex_t mu; /* guards everything below */
	pthread_cond_t *cv; /* per rank: what it may wait for changed */
	struct lb_msg *head, **tail;
	size_t queued;      /* messages in the queue */
	struct lb_rank *rk; /* per rank */
	int32_t left;       /* ranks in LB_LEFT */
	int32_t blocked;    /* ranks in LB_RECEIVING or LB_BARRIER */
	int32_t arrived;    /* ranks in the current barrier */
	uint64_t gen;       /* barriers completed */
	uint64_t *hash;     /* agree: each rank's plan hash */
	int *status;        /* and status */
	int broken;         /* 0, or the code every call now fails with */
	char why[256];      /* why it broke */
};

struct lb_req {
	bool recv, done;
	int32_t peer;
	uint32_t phase;
	int kind;
	void *buf;
	size_t len;
};

struct lb {
	struct ccp_transport base; /* must be first */
	struct lb_world *w;
	struct lb_req *req; /* posted since the last waitall */
	int nreq, cap;
};

/* ---- the world's state (called with w->mu held) ---------------------- */

static void wake_all(struct lb_world *w)
{
	for (int32_t r = 0; r < w->n; r++)
		pthread_cond_broadcast(&w->cv[r]);
}

/* Break the world (the first reason stays) and wake every rank. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
breaks(struct lb_world *w, int code, const char *fmt, ...)
{
	if (!w->broken) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(w->why, sizeof w->why, fmt, ap);
		va_end(ap);
		w->broken = code;
	}
	wake_all(w);
}

/* The link to the first queued message from src to dst with (phase,
 * kind), or NULL. */
static struct lb_msg **find(struct lb_world *w, int32_t dst, int32_t src,
                            uint32_t phase, int kind)
{
	for (struct lb_msg **q = &w->head; *q; q = &(*q)->next)
		if ((*q)->dst == dst && (*q)->src == src &&
		    (*q)->phase == phase && (*q)->kind == kind)
			return q;
	return NULL;
}

/* If every rank still in the job is blocked and none of them has a
 * message to take, nothing can ever move: break the world, naming one
 * waiting rank.  (A barrier completes when its last rank arrives, so a
 * blocked barrier is one some rank never enters.) */
static void check_stuck(struct lb_world *w)
{
	int32_t active = w->n - w->left;
	if (w->broken || active == 0 || w->blocked < active)
		return;
	for (int32_t r = 0; r < w->n; r++) {
		const struct lb_rank *k = &w->rk[r];
		if (k->state == LB_RECEIVING &&
		    find(w, r, k->peer, k->phase, k->kind))
			return; /* woken already; it will take it */
	}
	for (int32_t r = 0; r < w->n; r++) {
		const struct lb_rank *k = &w->rk[r];
		if (k->state == LB_RECEIVING) {
			breaks(w, CCP_EPEER,
			       "the ranks' operations do not match: rank %d "
			       "waits for a %s message from rank %d in phase "
			       "%u that no rank will send",
			       (int)r,
			       k->kind == CCP_TAG_READY ? "ready" : "data",
			       (int)k->peer, (unsigned)k->phase);
			return;
		}
	}
	int32_t waiting = -1, absent = -1;
	for (int32_t r = 0; r < w->n; r++) {
		if (w->rk[r].state == LB_BARRIER && waiting < 0)
			waiting = r;
		if (w->rk[r].state == LB_LEFT && absent < 0)
			absent = r;
	}
	breaks(w, CCP_EPEER,
	       "the ranks' operations do not match: rank %d waits in the "
	       "agreement or a barrier that rank %d, which has left, "
	       "never enters",
	       (int)waiting, (int)absent);
}

/* Block rank me on its condition variable until woken or the world
 * breaks; the backstop deadline breaks it with CCP_ETIMEDOUT. */
static void block(struct lb_world *w, int32_t me, const struct timespec *until)
{
	if (!w->timeout_ms) {
		pthread_cond_wait(&w->cv[me], &w->mu);
		return;
	}
	if (pthread_cond_timedwait(&w->cv[me], &w->mu, until) == ETIMEDOUT)
		breaks(w, CCP_ETIMEDOUT,
		       "rank %d saw nothing for %u ms (the loopback's "
		       "deadlock detection missed a hang)",
		       (int)me, w->timeout_ms);
}

/* The deadline of a wait that starts now. */
static struct timespec deadline(const struct lb_world *w)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += w->timeout_ms / 1000;
	t.tv_nsec += (long)(w->timeout_ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/* The error of a call on a broken world, on the calling rank's context. */
static int failed(struct lb *l)
{
	return ccp__error(l->base.ctx, l->w->broken, "loopback, rank %d: %s",
	                  (int)l->base.rank, l->w->why);
}

/* Every rank enters; returns once all n have. */
static int barrier_locked(struct lb *l)
{
	struct lb_world *w = l->w;
	int32_t me = l->base.rank;
	if (w->broken)
		return failed(l);
	uint64_t gen = w->gen;
	if (++w->arrived == w->n) {
		/* the others run again from now on, whenever they wake */
		for (int32_t r = 0; r < w->n; r++)
			if (w->rk[r].state == LB_BARRIER) {
				w->rk[r].state = LB_RUNNING;
				w->blocked--;
			}
		w->arrived = 0;
		w->gen++;
		wake_all(w);
		return 0;
	}
	struct timespec until = deadline(w);
	w->rk[me].state = LB_BARRIER;
	w->blocked++;
	check_stuck(w);
	while (w->gen == gen && !w->broken)
		block(w, me, &until);
	if (w->rk[me].state == LB_BARRIER) { /* broken, not released */
		w->rk[me].state = LB_RUNNING;
		w->blocked--;
	}
	return w->gen != gen ? 0 : failed(l);
}

/* ---- the operations -------------------------------------------------- */

static int lb_agree(ccp_transport *t, uint64_t hash, int status, int *global)
{
	struct lb *l = (struct lb *)t;
	struct lb_world *w = l->w;
	pthread_mutex_lock(&w->mu);
	w->hash[t->rank] = hash;
	w->status[t->rank] = status > 0 ? CCP_EINVAL : status;
	int rc = barrier_locked(l), g = 0;
	for (int32_t r = 0; r < w->n && rc == 0; r++) {
		if (w->hash[r] != w->hash[0])
			g = CCP_EMISMATCH;
		if (g != CCP_EMISMATCH && w->status[r] < g)
			g = w->status[r];
	}
	/* nobody writes the next agreement's values before all have read */
	if (rc == 0)
		rc = barrier_locked(l);
	pthread_mutex_unlock(&w->mu);
	if (rc == 0)
		*global = g;
	return rc;
}

static int lb_barrier(ccp_transport *t)
{
	struct lb *l = (struct lb *)t;
	pthread_mutex_lock(&l->w->mu);
	int rc = barrier_locked(l);
	pthread_mutex_unlock(&l->w->mu);
	return rc;
}

/* Break the world for a fault of rank l and return its error. */
static int fault(struct lb *l, int code, const char *what)
{
	pthread_mutex_lock(&l->w->mu);
	breaks(l->w, code, "rank %d: %s", (int)l->base.rank, what);
	pthread_mutex_unlock(&l->w->mu);
	return failed(l);
}

static int lb_post(struct lb *l, struct lb_req r)
{
	if (r.peer < 0 || r.peer >= l->w->n || (unsigned)r.kind > CCP_TAG_READY)
		return fault(l, CCP_EINVAL,
		             "a request of an unknown peer or "
		             "kind");
	if (l->nreq == l->cap) {
		int cap = l->cap ? 2 * l->cap : 64;
		struct lb_req *q = realloc(l->req, (size_t)cap * sizeof *q);
		if (!q)
			return fault(l, CCP_ENOMEM, "out of memory");
		l->req = q;
		l->cap = cap;
	}
	l->req[l->nreq] = r;
	return l->nreq++;
}

static int lb_irecv(ccp_transport *t, int32_t peer, uint32_t phase,
                    enum ccp_tag_kind kind, void *buf, size_t len)
{
	return lb_post((struct lb *)t, (struct lb_req){true, false, peer, phase,
	                                               (int)kind, buf, len});
}

static int lb_isend(ccp_transport *t, int32_t peer, uint32_t phase,
                    enum ccp_tag_kind kind, const void *buf, size_t len)
{
	struct lb *l = (struct lb *)t;
	struct lb_world *w = l->w;
	int i = lb_post(l, (struct lb_req){false, true, peer, phase, (int)kind,
	                                   NULL, len});
	if (i < 0)
		return i;
	struct lb_msg *m = malloc(sizeof *m + len);
	if (!m)
		return fault(l, CCP_ENOMEM, "out of memory");
	*m = (struct lb_msg){NULL, t->rank, peer, phase, (int)kind, len};
	if (len)
		memcpy(m->data, buf, len);
	pthread_mutex_lock(&w->mu);
	if (w->broken) {
		pthread_mutex_unlock(&w->mu);
		free(m);
		return failed(l);
	}
	*w->tail = m;
	w->tail = &m->next;
	w->queued++;
	pthread_cond_signal(&w->cv[peer]);
	pthread_mutex_unlock(&w->mu);
	return i;
}

/* Take the message receive r waits for, blocking until it comes (or,
 * !blocking, only if it has come); NULL when the world breaks (*broke)
 * or, !blocking, when it has not come. */
static struct lb_msg *take(struct lb *l, const struct lb_req *r, bool blocking,
                           bool *broke)
{
	struct lb_world *w = l->w;
	int32_t me = l->base.rank;
	struct lb_msg *m = NULL, **q;
	struct timespec until = deadline(w);
	pthread_mutex_lock(&w->mu);
	while (!w->broken) {
		if ((q = find(w, me, r->peer, r->phase, r->kind))) {
			m = *q;
			*q = m->next;
			if (!*q)
				w->tail = q;
			w->queued--;
			break;
		}
		if (!blocking)
			break;
		w->rk[me] = (struct lb_rank){LB_RECEIVING, r->peer, r->phase,
		                             r->kind};
		w->blocked++;
		check_stuck(w);
		if (!w->broken)
			block(w, me, &until);
		w->rk[me].state = LB_RUNNING;
		w->blocked--;
	}
	*broke = !m && w->broken;
	pthread_mutex_unlock(&w->mu);
	return m;
}

/* Complete requests [first, first + count): 1 when done, 0 when a
 * message has not come and !block, or a negative code. */
static int settle(struct lb *l, int first, int count, bool block)
{
	if (first < 0 || count < 0 || first > l->nreq ||
	    count > l->nreq - first)
		return fault(l, CCP_EINVAL, "wait for requests never posted");
	for (int i = first; i < first + count; i++) {
		struct lb_req *r = &l->req[i];
		if (r->done)
			continue;
		bool broke = false;
		struct lb_msg *m = take(l, r, block, &broke);
		if (broke)
			return failed(l);
		if (!m)
			return 0;
		if (m->len != r->len) {
			char what[160];
			snprintf(what, sizeof what,
			         "%zu bytes from rank %d in phase %u, %zu "
			         "expected",
			         m->len, (int)r->peer, (unsigned)r->phase,
			         r->len);
			free(m);
			return fault(l, CCP_EPEER, what);
		}
		if (m->len)
			memcpy(r->buf, m->data, m->len);
		free(m);
		r->done = true;
	}
	return 1;
}

static int lb_wait(ccp_transport *t, int first, int count)
{
	int rc = settle((struct lb *)t, first, count, true);
	return rc < 0 ? rc : 0;
}

static int lb_test(ccp_transport *t, int first, int count)
{
	return settle((struct lb *)t, first, count, false);
}

static int lb_waitall(ccp_transport *t)
{
	struct lb *l = (struct lb *)t;
	int rc = lb_wait(t, 0, l->nreq);
	l->nreq = 0;
	return rc;
}

/* The rank leaves: the others no longer wait for it. */
static void lb_destroy(ccp_transport *t)
{
	struct lb *l = (struct lb *)t;
	struct lb_world *w = l->w;
	pthread_mutex_lock(&w->mu);
	w->rk[t->rank].state = LB_LEFT;
	w->left++;
	check_stuck(w);
	pthread_mutex_unlock(&w->mu);
	free(l->req);
	free(l);
}

/* Prepared groups (transport.h): the checks of lb_post, once, without
 * breaking anything; start posts through irecv and isend. */
static int lb_prepare(ccp_transport *t, const struct ccp_post *q, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		if (q[k].peer < 0 || q[k].peer >= t->size ||
		    q[k].kind > CCP_TAG_READY || q[k].recv > 1)
			return ccp__error(t->ctx, CCP_EINVAL,
			                  "loopback: post %u: peer %d, kind %u",
			                  (unsigned)k, (int)q[k].peer,
			                  (unsigned)q[k].kind);
	return 0;
}

static int lb_start(ccp_transport *t, const struct ccp_post *q, uint32_t n)
{
	int first = ((struct lb *)t)->nreq;
	for (uint32_t k = 0; k < n; k++) {
		enum ccp_tag_kind kind = (enum ccp_tag_kind)q[k].kind;
		int rc = q[k].recv ? lb_irecv(t, q[k].peer, q[k].phase, kind,
		                              q[k].buf, q[k].len)
		                   : lb_isend(t, q[k].peer, q[k].phase, kind,
		                              q[k].buf, q[k].len);
		if (rc < 0)
			return rc;
	}
	return first;
}

#define LB_OPS                                                                 \
	.name = "loopback", .agree = lb_agree, .barrier = lb_barrier,          \
	.irecv = lb_irecv, .isend = lb_isend, .wait = lb_wait,                 \
	.test = lb_test, .waitall = lb_waitall, .destroy = lb_destroy
static const struct ccp_transport_ops lb_ops = {LB_OPS};
/* the same with prepared groups (lb_prepared_groups) */
static const struct ccp_transport_ops lb_ops_prepared = {
        LB_OPS, .prepare = lb_prepare, .start = lb_start};

bool lb_prepared_groups;

/* ---- the world ------------------------------------------------------- */

struct lb_world *lb_world_new(int32_t n, unsigned timeout_ms)
{
	if (n < 1)
		return NULL;
	struct lb_world *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->n = n;
	w->timeout_ms = timeout_ms;
	w->tail = &w->head;
	w->cv = calloc((size_t)n, sizeof *w->cv);
	w->rk = calloc((size_t)n, sizeof *w->rk);
	w->hash = calloc((size_t)n, sizeof *w->hash);
	w->status = calloc((size_t)n, sizeof *w->status);
	pthread_condattr_t ca;
	if (!w->cv || !w->rk || !w->hash || !w->status ||
	    pthread_condattr_init(&ca) != 0) {
		free(w->cv);
		free(w->rk);
		free(w->hash);
		free(w->status);
		free(w);
		return NULL;
	}
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	for (int32_t r = 0; r < n; r++)
		pthread_cond_init(&w->cv[r], &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&w->mu, NULL);
	return w;
}

void lb_world_free(struct lb_world *w)
{
	if (!w)
		return;
	while (w->head) {
		struct lb_msg *m = w->head;
		w->head = m->next;
		free(m);
	}
	for (int32_t r = 0; r < w->n; r++)
		pthread_cond_destroy(&w->cv[r]);
	pthread_mutex_destroy(&w->mu);
	free(w->cv);
	free(w->rk);
	free(w->hash);
	free(w->status);
	free(w);
}

int lb_transport_new(struct lb_world *w, ccp_context *ctx, int32_t rank,
                     ccp_transport **t)
{
	*t = NULL;
	if (!w || rank < 0 || rank >= w->n)
		return CCP_EINVAL;
	struct lb *l = calloc(1, sizeof *l);
	if (!l)
		return CCP_ENOMEM;
	l->base = (struct ccp_transport){
	        lb_prepared_groups ? &lb_ops_prepared : &lb_ops, ctx, rank,
	        w->n, NULL};
	l->w = w;
	*t = &l->base;
	return 0;
}

size_t lb_world_unreceived(struct lb_world *w)
{
	pthread_mutex_lock(&w->mu);
	size_t n = w->queued;
	pthread_mutex_unlock(&w->mu);
	return n;
}

int lb_world_failure(struct lb_world *w, const char **why)
{
	pthread_mutex_lock(&w->mu);
	int code = w->broken;
	pthread_mutex_unlock(&w->mu);
	if (why)
		*why = w->why;
	return code;
}

/* ---- running every rank ---------------------------------------------- */

struct lb_thread {
	struct lb_job job;
	void (*fn)(struct lb_job *j);
};

static void *lb_thread_main(void *arg)
{
	struct lb_thread *th = arg;
	th->fn(&th->job);
	ccp_transport_free(th->job.t);
	return NULL;
}

int lb_run(int32_t n, unsigned timeout_ms, void (*fn)(struct lb_job *j),
           void *arg, size_t *unreceived)
{
	struct lb_world *w = lb_world_new(n, timeout_ms);
	struct lb_thread *th = calloc((size_t)n, sizeof *th);
	pthread_t *tid = calloc((size_t)n, sizeof *tid);
	if (!w || !th || !tid) {
		fprintf(stderr, "lb_run: out of memory\n");
		abort();
	}
	for (int32_t r = 0; r < n; r++) {
		th[r] = (struct lb_thread){{r, NULL, NULL, arg}, fn};
		if (ccp_init(&th[r].job.ctx, NULL, NULL) != 0 ||
		    lb_transport_new(w, th[r].job.ctx, r, &th[r].job.t) != 0) {
			fprintf(stderr, "lb_run: no context or transport\n");
			abort();
		}
	}
	for (int32_t r = 0; r < n; r++)
		if (pthread_create(&tid[r], NULL, lb_thread_main, &th[r]) !=
		    0) {
			fprintf(stderr, "lb_run: no thread for rank %d\n",
			        (int)r);
			abort();
		}
	for (int32_t r = 0; r < n; r++)
		pthread_join(tid[r], NULL);
	int code = lb_world_failure(w, NULL);
	if (unreceived)
		*unreceived = lb_world_unreceived(w);
	for (int32_t r = 0; r < n; r++)
		ccp_fini(th[r].job.ctx);
	lb_world_free(w);
	free(th);
	free(tid);
	return code;
}
