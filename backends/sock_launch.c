/*
 * sock_launch.c - `ccplan run`: the launcher of the sockets transport
 * (backends/sockets.c, docs/sockets.md).
 *
 * It listens on a TCP port (loopback unless a host of the hostfile is
 * remote), draws the job's 256-bit key, starts N ranks with CCPLAN_RANK,
 * CCPLAN_SIZE, CCPLAN_RUN_ADDR and CCPLAN_RUN_KEY_FD in their environment
 * and the key on that descriptor (a pipe; for hosts other than this one,
 * ssh's standard input), so that the key is never in a command line, an
 * environment or a log, and then runs one poll() loop until every rank
 * has been reaped:
 *
 *  - wire-up: each rank connects (its control connection), says hello
 *    with the address it listens on for peers, and proves that it knows
 *    the key by challenge and response, as the launcher does to it
 *    (backends/sock_wire.h).  Connections that have not authenticated
 *    are dropped after CCP_SOCK_AUTH_MS, and evicted, oldest idle first,
 *    when strangers fill their table; each drop is reported on stderr.
 *    When all ranks have authenticated, every rank gets the table of
 *    addresses;
 *  - agree and barrier: the launcher gathers every rank's request and
 *    answers all of them (agree: 0, CCP_EMISMATCH when the plan hashes
 *    differ, else the most negative status);
 *  - faults: a rank that exits with a status other than 0, is killed,
 *    drops its control connection without saying goodbye, or reports that
 *    its transport failed, stops the job: every other rank is told at
 *    once (ABORT) and fails with CCP_EPEER.  Ranks still running after
 *    the grace period (the timeout) get SIGTERM, then SIGKILL;
 *  - SIGINT, SIGTERM and SIGHUP are forwarded to the ranks, which are
 *    killed if they do not exit within two seconds; on Linux each rank
 *    also dies with the launcher (PR_SET_PDEATHSIG), so none is orphaned.
 *
 * The launcher never links the runtime: it only speaks the wire protocol
 * of sock_wire.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "ccplan_errors.h"
#include "ccplan_sockets.h"
#include "le.h"
#include "sock_launch.h"
#include "sock_wire.h"

#define RUN_OK       0
#define RUN_BADINPUT 2
#define RUN_INTERNAL 3
#define DROP_GRACE_MS                                                          \
	200                  /* a dropped connection's rank may still be       \
	                        exiting with 0: wait this long */
#define SIGNAL_GRACE_MS 2000 /* after forwarding a signal */
#define KILL_GRACE_MS   2000 /* between SIGTERM and SIGKILL */
#define DROPS_LISTED    10   /* dropped connections reported one by one */
/* attached: a failure this close to the wire-up's end is blamed on the
 * ranks that had not connected (the others' own clocks started a little
 * before the coordinator's) */
#define ABSENT_SLACK_MS 1000
/* the longest message a rank sends after the handshake: AGREE */
#define IN_MAX (CCP_SOCK_CTL_HDR + CCP_SOCK_AGREE_LEN)


/* One rank as the launcher sees it. */
struct rank {
	pid_t pid;          /* its process (or its ssh), 0 once reaped */
	pid_t spid;         /* the pid it had: its process group */
	const char *host;   /* remote host, NULL for a local rank */
	int fd;             /* control connection, -1 when none */
	bool hello;         /* authenticated: its address is known */
	bool bye;           /* freed its transport */
	bool left;          /* bye, or exited 0: it takes no more part */
	bool aborted;       /* was sent an ABORT */
	bool in_coll;       /* entered the current collective */
	int64_t dropped_at; /* when its connection closed without bye, or 0 */
	int status;         /* wait status, once reaped */
	uint8_t addr[4];    /* where it listens for peers */
	uint16_t port;
	uint64_t hash; /* agree: its plan hash and status */
	int32_t st;
	uint8_t in[IN_MAX]; /* control input not yet parsed */
	size_t inlen;
};

struct job {
	int n; /* ranks */
	struct rank *r;
	int lfd;            /* listening socket */
	char addr[72];      /* CCPLAN_RUN_ADDR: host (< 64) ":" port */
	uint8_t key[CCP_SOCK_KEY_LEN]; /* the job's key (never shown) */
	int64_t timeout_ms; /* ranks' timeout, and the grace after a failure */
	bool timeout_given; /* --timeout: export CCPLAN_TIMEOUT_MS */
	bool verbose;
	struct sw_pending pend; /* not authenticated yet: n + slack */
	int ndropped;           /* connections dropped before authenticating */
	int ndrop_kind[4];      /* of which evicted, timed out, with a bad
	                           response, other */
	char dropped[192];      /* the last one: from where, why */
	char check_why[96];     /* why a hello was refused */
	struct pollfd *pfd;     /* 2 + n + pend.cap entries */
	int *who;           /* per poll entry: rank, or WHO_* */
	int nhello;
	bool table_sent;
	int live; /* processes not reaped */
	/* the collective in progress: CCP_SOCK_AGREE or _BARRIER, or 0 */
	unsigned coll;
	uint64_t coll_seq;
	int coll_count;
	/* the first failure: every rank gets this ABORT */
	bool failed;
	int32_t f_rank;
	uint32_t f_reason;
	int32_t f_code, f_status;
	int exit_status; /* first failing rank's, -1 while none */
	int exit_class;  /* what made it fail: 0 a signal the launcher
	                    did not send, 1 an exit status, 2 a signal it
	                    sent; a lower class is the likelier cause */
	bool signalled;  /* the launcher has signalled the ranks */
	int64_t kill_at; /* when to signal the ranks still running */
	int kill_sig;    /* which signal then: SIGTERM, SIGKILL, 0 */
	int interrupted; /* signal the launcher got, or 0 */
	int64_t wire_by; /* when ranks still unconnected are reported (the
	                    start plus the timeout), 0 once reported */
	const char *tag; /* what stderr lines start with */
	bool attached;   /* the ranks were started by someone else (srun,
	                    mpirun): no processes to watch; a rank ends
	                    when its connection closes */
	const char *rdv; /* attached: the rendezvous file, removed once
	                    every rank has connected, or NULL */
	int64_t wire_start; /* attached: when serving began */
};

#define WHO_SIG    (-1)
#define WHO_LISTEN (-2)
#define WHO_PEND   (-3)

/* A line on stderr, after the launcher's name: "ccplan run", or the
 * coordinator's for a job someone else started (sock_coord_open). */
static void say(const struct job *j, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", j->tag);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static int sig_w = -1; /* write end of the self-pipe */

static void on_signal(int sig)
{
	int e = errno;
	unsigned char b = (unsigned char)sig;
	(void)!write(sig_w, &b, 1);
	errno = e;
}

/* ---- small helpers --------------------------------------------------- */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int set_flags(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -1;
	return 0;
}

/* Exit status as a shell reports it. */
static int shell_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}

/* Write a whole message to a rank, waiting up to a second for room.  A
 * rank that does not read its control connection is lost anyway: its
 * failure shows when it exits. */
static void send_all(int fd, const uint8_t *msg, size_t n)
{
	int64_t end = now_ms() + 1000;
	size_t off = 0;
	while (off < n) {
		ssize_t w = send(fd, msg + off, n - off, MSG_NOSIGNAL);
		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return;
		int64_t left = end - now_ms();
		if (left <= 0)
			return;
		struct pollfd p = {fd, POLLOUT, 0};
		(void)poll(&p, 1, (int)left);
	}
}

static void ctl_header(uint8_t *h, unsigned type, int32_t rank, uint32_t len)
{
	le_set_u32(h, CCP_SOCK_CTL_MAGIC);
	le_set_u16(h + 4, (uint16_t)type);
	le_set_u16(h + 6, 0);
	le_set_u32(h + 8, (uint32_t)rank);
	le_set_u32(h + 12, len);
}

static void send_msg(int fd, unsigned type, const uint8_t *body, uint32_t len)
{
	uint8_t msg[CCP_SOCK_CTL_HDR + 32];
	ctl_header(msg, type, 0, len);
	memcpy(msg + CCP_SOCK_CTL_HDR, body, len);
	send_all(fd, msg, CCP_SOCK_CTL_HDR + len);
}

/* ---- failure ---------------------------------------------------------- */

static void send_abort(struct job *j, struct rank *r)
{
	if (r->fd < 0 || r->aborted || !r->hello)
		return;
	uint8_t msg[CCP_SOCK_CTL_HDR + CCP_SOCK_ABORT_LEN];
	uint8_t *b = msg + CCP_SOCK_CTL_HDR;
	ctl_header(msg, CCP_SOCK_ABORT, j->f_rank, CCP_SOCK_ABORT_LEN);
	le_set_u32(b, j->f_reason);
	le_set_u32(b + 4, (uint32_t)j->f_code);
	le_set_u32(b + 8, (uint32_t)j->f_status);
	le_set_u32(b + 12, 0);
	send_all(r->fd, msg, sizeof msg);
	r->aborted = true;
}

/* The job has failed: say why (the first time), tell every rank, and
 * give the ranks the grace period to exit on their own. */
static void job_fail(struct job *j, int rank, uint32_t reason, int code,
                     int status)
{
	if (j->failed)
		return;
	/* a job someone else started, failing near the timeout before every
	 * rank connected: the ranks that gave up waiting (or rank 0, whose
	 * transport did) are not the cause; a rank that never came is */
	if (j->attached && !j->table_sent && reason != CCP_SOCK_ABSENT &&
	    now_ms() + ABSENT_SLACK_MS >= j->wire_start + j->timeout_ms)
		for (int i = 0; i < j->n; i++)
			if (!j->r[i].hello && !j->r[i].left) {
				rank = i;
				reason = CCP_SOCK_ABSENT;
				break;
			}
	j->failed = true;
	j->wire_by = 0; /* the failure is what is reported */
	j->f_rank = rank;
	j->f_reason = reason;
	j->f_code = code;
	j->f_status = status;
	char why[128];
	switch (reason) {
	case CCP_SOCK_EXITED:
		snprintf(why, sizeof why, "rank %d exited with status %d", rank,
		         status);
		break;
	case CCP_SOCK_SIGNALED:
		snprintf(why, sizeof why,
		         "rank %d was killed by signal %d (%s)", rank, status,
		         strsignal(status));
		break;
	case CCP_SOCK_DROPPED:
		snprintf(why, sizeof why,
		         "rank %d closed its connection without leaving", rank);
		break;
	case CCP_SOCK_REPORTED:
		snprintf(why, sizeof why, "rank %d failed (%s)", rank,
		         ccp_strerror(code));
		break;
	case CCP_SOCK_LEFT:
		snprintf(why, sizeof why,
		         "rank %d left while the others still needed it", rank);
		break;
	case CCP_SOCK_INTERRUPTED:
		snprintf(why, sizeof why, "got signal %d (%s)", status,
		         strsignal(status));
		break;
	case CCP_SOCK_ABSENT:
		snprintf(why, sizeof why,
		         "rank %d had not connected within %lld ms", rank,
		         (long long)j->timeout_ms);
		break;
	default:
		snprintf(why, sizeof why, "rank %d broke the control protocol",
		         rank);
		break;
	}
	say(j, "%s; stopping the job\n", why);
	if (!j->table_sent && j->ndropped)
		say(j,
		        "before every rank had connected, %d "
		        "unauthenticated connection%s dropped; the last: %s\n",
		        j->ndropped, j->ndropped == 1 ? " was" : "s were",
		        j->dropped);
	for (int i = 0; i < j->n; i++)
		if (i != rank || reason != CCP_SOCK_REPORTED)
			send_abort(j, &j->r[i]);
	if (!j->kill_sig) {
		j->kill_sig = SIGTERM;
		j->kill_at = now_ms() + (reason == CCP_SOCK_INTERRUPTED
		                                 ? SIGNAL_GRACE_MS
		                                 : j->timeout_ms);
	}
}

/* A collective that some rank can no longer join fails. */
static void check_left(struct job *j)
{
	for (int i = 0; i < j->n; i++) {
		struct rank *r = &j->r[i];
		if (!r->left)
			continue;
		/* a rank that never said hello: the others cannot wire up */
		if ((!r->hello && !j->table_sent && j->nhello > 0) ||
		    (j->coll && !r->in_coll)) {
			job_fail(j, i, CCP_SOCK_LEFT, 0, 0);
			return;
		}
	}
}

/* ---- the ranks' messages ---------------------------------------------- */

static void send_table(struct job *j)
{
	size_t len = CCP_SOCK_CTL_HDR + (size_t)j->n * CCP_SOCK_ENTRY_LEN;
	uint8_t *msg = malloc(len);
	if (!msg) {
		job_fail(j, -1, CCP_SOCK_PROTOCOL, CCP_ENOMEM, 0);
		return;
	}
	ctl_header(msg, CCP_SOCK_TABLE, 0,
	           (uint32_t)(j->n * CCP_SOCK_ENTRY_LEN));
	for (int i = 0; i < j->n; i++) {
		uint8_t *e = msg + CCP_SOCK_CTL_HDR + i * CCP_SOCK_ENTRY_LEN;
		memcpy(e, j->r[i].addr, 4);
		le_set_u16(e + 4, j->r[i].port);
		le_set_u16(e + 6, 0);
	}
	for (int i = 0; i < j->n; i++)
		if (j->r[i].fd >= 0)
			send_all(j->r[i].fd, msg, len);
	free(msg);
	j->table_sent = true;
	if (j->verbose)
		say(j, "all %d ranks connected\n", j->n);
}

/* Rank i entered a collective (type, seq). */
static void on_coll(struct job *j, int i, unsigned type, const uint8_t *b)
{
	struct rank *r = &j->r[i];
	uint64_t seq = le_get_u64(b);
	if (j->failed) {
		send_abort(j, r);
		return;
	}
	if (!j->coll) {
		j->coll = type;
		j->coll_seq = seq;
		j->coll_count = 0;
	}
	if (j->coll != type || j->coll_seq != seq || r->in_coll) {
		job_fail(j, i, CCP_SOCK_PROTOCOL, 0, 0);
		return;
	}
	r->in_coll = true;
	if (type == CCP_SOCK_AGREE) {
		r->hash = le_get_u64(b + 8);
		r->st = (int32_t)le_get_u32(b + 16);
	}
	j->coll_count++;
	check_left(j);
	if (j->failed || j->coll_count < j->n)
		return;
	/* everyone is in: answer all */
	int32_t global = 0;
	uint8_t body[CCP_SOCK_AGREED_LEN];
	le_set_u64(body, seq);
	if (type == CCP_SOCK_AGREE) {
		for (int k = 0; k < j->n; k++) {
			if (j->r[k].hash != j->r[0].hash) {
				global = CCP_EMISMATCH;
				break;
			}
			if (j->r[k].st < global)
				global = j->r[k].st;
		}
		le_set_u32(body + 8, (uint32_t)global);
		le_set_u32(body + 12, 0);
	}
	for (int k = 0; k < j->n; k++) {
		j->r[k].in_coll = false;
		if (type == CCP_SOCK_AGREE)
			send_msg(j->r[k].fd, CCP_SOCK_AGREED, body,
			         CCP_SOCK_AGREED_LEN);
		else
			send_msg(j->r[k].fd, CCP_SOCK_RELEASE, body,
			         CCP_SOCK_RELEASE_LEN);
	}
	j->coll = 0;
}

/* Act on every whole message rank i has sent. */
static void rank_input(struct job *j, int i)
{
	struct rank *r = &j->r[i];
	size_t off = 0;
	while (r->inlen - off >= CCP_SOCK_CTL_HDR && r->fd >= 0) {
		const uint8_t *h = r->in + off;
		unsigned type = le_get_u16(h + 4);
		uint32_t len = le_get_u32(h + 12);
		uint32_t want = type == CCP_SOCK_AGREE ? CCP_SOCK_AGREE_LEN
		                : type == CCP_SOCK_BARRIER
		                        ? CCP_SOCK_BARRIER_LEN
		                : type == CCP_SOCK_FAIL ? CCP_SOCK_FAIL_LEN
		                : type == CCP_SOCK_BYE  ? 0
		                                        : UINT32_MAX;
		if (le_get_u32(h) != CCP_SOCK_CTL_MAGIC || len != want ||
		    le_get_u32(h + 8) != (uint32_t)i) {
			job_fail(j, i, CCP_SOCK_PROTOCOL, 0, 0);
			r->inlen = 0;
			return;
		}
		if (r->inlen - off < CCP_SOCK_CTL_HDR + len)
			break;
		const uint8_t *b = h + CCP_SOCK_CTL_HDR;
		off += CCP_SOCK_CTL_HDR + len;
		if (type == CCP_SOCK_FAIL) {
			job_fail(j, i, CCP_SOCK_REPORTED, (int32_t)le_get_u32(b), 0);
		} else if (type == CCP_SOCK_BYE) {
			r->bye = r->left = true;
			check_left(j);
		} else {
			on_coll(j, i, type, b);
		}
	}
	memmove(r->in, r->in + off, r->inlen - off);
	r->inlen -= off;
}

static void rank_close(struct job *j, int i)
{
	struct rank *r = &j->r[i];
	close(r->fd);
	r->fd = -1;
	if (j->attached) /* its end, as far as anyone can see */
		j->live--;
	if (!r->bye && !r->left)
		r->dropped_at = now_ms();
}

static void rank_read(struct job *j, int i)
{
	struct rank *r = &j->r[i];
	for (;;) {
		ssize_t n = recv(r->fd, r->in + r->inlen,
		                 sizeof r->in - r->inlen, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			rank_close(j, i);
			return;
		}
		r->inlen += (size_t)n;
		rank_input(j, i);
		if (r->fd < 0)
			return;
	}
}

/* What a control hello claims, checked before it is challenged: NULL,
 * or why the connection is dropped. */
static const char *hello_check(void *ud, const struct sw_hello *h)
{
	struct job *j = ud;
	char *why = j->check_why;
	if (h->role != CCP_SOCK_ROLE_CONTROL || h->to != CCP_SOCK_LAUNCHER)
		return "a data hello (a rank's) on the launcher's port";
	if (h->size != (uint32_t)j->n)
		snprintf(why, sizeof j->check_why,
		         "a hello from a job of %u ranks, not %d",
		         (unsigned)h->size, j->n);
	else if (h->from >= (uint32_t)j->n)
		snprintf(why, sizeof j->check_why, "a hello from rank %u of %d",
		         (unsigned)h->from, j->n);
	else if (j->r[h->from].hello || j->r[h->from].left)
		snprintf(why, sizeof j->check_why,
		         "a hello from rank %u, which %s already",
		         (unsigned)h->from,
		         j->r[h->from].hello ? "is connected" : "has left");
	else
		return NULL;
	return why;
}

/* An unauthenticated connection was dropped: say so on stderr (the first
 * DROPS_LISTED; then only how many in all, at the end). */
static void on_dropped(void *ud, const struct sw_pend *q, const char *why)
{
	struct job *j = ud;
	char from[SW_ADDR_TEXT], as[32] = "";
	sw_addr_text(from, &q->sa);
	if (q->stage == SW_RESPONSE)
		snprintf(as, sizeof as, ", claiming to be rank %u,",
		         (unsigned)q->h.from);
	snprintf(j->dropped, sizeof j->dropped,
	         "an unauthenticated connection from %s%s was dropped (%s)",
	         from, as, why);
	j->ndropped++;
	j->ndrop_kind[!strncmp(why, "evicted", 7)                ? 0
	              : strstr(why, " within ")                   ? 1
	              : !strcmp(why, "bad response")             ? 2
	                                                         : 3]++;
	if (j->ndropped <= DROPS_LISTED)
		say(j, "%s\n", j->dropped);
	if (j->ndropped == DROPS_LISTED)
		say(j, "(further dropped connections are "
		                "counted, not listed)\n");
}

/* Unauthenticated connection k has sent something: once it has proved
 * that it knows the key (and been welcomed), it becomes the control
 * connection of the rank its hello names. */
static void pend_input(struct job *j, int k)
{
	if (sw_pend_read(&j->pend, k) != SW_AUTHED)
		return;
	struct sw_pend *q = &j->pend.p[k];
	uint32_t i = q->h.from;
	struct rank *r = &j->r[i];
	r->fd = q->fd;
	r->hello = true;
	memcpy(r->addr, q->h.addr, 4);
	r->port = q->h.port;
	unsigned pid = (unsigned)q->h.pid;
	sw_pend_remove(&j->pend, k, NULL); /* q is gone from here */
	j->nhello++;
	if (j->verbose)
		say(j,
		        "rank %u (pid %u) listens on "
		        "%u.%u.%u.%u:%u\n",
		        (unsigned)i, pid, r->addr[0], r->addr[1], r->addr[2],
		        r->addr[3], (unsigned)r->port);
	if (j->failed) {
		send_abort(j, r);
		return;
	}
	if (j->nhello == j->n) {
		j->wire_by = 0;
		if (j->rdv) /* found by every rank: no longer needed */
			unlink(j->rdv);
		send_table(j);
	}
	check_left(j);
}

/* ---- processes ---------------------------------------------------------- */

static void reap(struct job *j)
{
	if (j->attached) /* the processes are someone else's children */
		return;
	for (;;) {
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid <= 0)
			return;
		int i = 0;
		while (i < j->n && j->r[i].pid != pid)
			i++;
		if (i == j->n)
			continue;
		struct rank *r = &j->r[i];
		r->pid = 0;
		r->status = st;
		j->live--;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			r->left = true;
			r->dropped_at = 0;
			check_left(j);
			continue;
		}
		int cls = WIFSIGNALED(st) ? (j->signalled ? 2 : 0) : 1;
		if (j->exit_status < 0 || cls < j->exit_class) {
			j->exit_status = shell_status(st);
			j->exit_class = cls;
		}
		if (WIFSIGNALED(st))
			job_fail(j, i, CCP_SOCK_SIGNALED, 0, WTERMSIG(st));
		else
			job_fail(j, i, CCP_SOCK_EXITED, 0, shell_status(st));
	}
}

/* Each rank runs in its own process group (spawn), so that a signal
 * reaches whatever the rank started too. */
static void signal_all(struct job *j, int sig)
{
	j->signalled = true;
	for (int i = 0; i < j->n; i++)
		if (j->r[i].pid > 0 && kill(-j->r[i].pid, sig) < 0)
			kill(j->r[i].pid, sig);
}

static void on_interrupt(struct job *j, int sig)
{
	if (j->interrupted) { /* the second time: no more waiting */
		signal_all(j, SIGKILL);
		return;
	}
	j->interrupted = sig;
	signal_all(j, sig);
	job_fail(j, -1, CCP_SOCK_INTERRUPTED, 0, sig);
	j->kill_sig = SIGKILL;
	j->kill_at = now_ms() + SIGNAL_GRACE_MS;
}

/* Attached: rank 0, whose process serves the job, asked it to stop (its
 * transport could not be made): the others are told at once, and served
 * a little longer, to hear it. */
static void coord_stopped(struct job *j)
{
	job_fail(j, 0, CCP_SOCK_LEFT, 0, 0); /* no-op once failed */
	j->kill_sig = SIGKILL;
	j->kill_at = now_ms() + SIGNAL_GRACE_MS;
}

/* Append " s" to the buffer, single-quoted for a POSIX shell when
 * quoted (a quote inside becomes '\''). */
static int append(char **buf, size_t *len, size_t *cap, const char *s,
                  bool quoted)
{
	size_t need = *len + 4 * strlen(s) + 4;
	if (need > *cap) {
		size_t ncap = need * 2;
		char *nb = realloc(*buf, ncap);
		if (!nb)
			return -1;
		*buf = nb;
		*cap = ncap;
	}
	char *p = *buf + *len;
	*p++ = ' ';
	if (quoted)
		*p++ = '\'';
	for (; *s; s++) {
		if (quoted && *s == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *s;
		}
	}
	if (quoted)
		*p++ = '\'';
	*len = (size_t)(p - *buf);
	(*buf)[*len] = '\0';
	return 0;
}

static int quote(char **buf, size_t *len, size_t *cap, const char *s)
{
	return append(buf, len, cap, s, true);
}

/* The remote command line (for a POSIX shell): cd to our directory, set
 * the environment, exec the program with ssh's input, which carries the
 * key, as its descriptor 3.  No secret in it: every local user can read
 * ssh's command line. */
static char *remote_command(const struct job *j, int i, char *const *prog)
{
	char *buf = NULL, cwd[4096], v[128];
	size_t len = 0, cap = 0;
	if (!getcwd(cwd, sizeof cwd))
		strcpy(cwd, ".");
	if (append(&buf, &len, &cap, "cd", false) ||
	    quote(&buf, &len, &cap, cwd) ||
	    append(&buf, &len, &cap, "&& exec env", false))
		goto fail;
	snprintf(v, sizeof v, "%s=%d", CCP_SOCK_ENV_RANK, i);
	if (quote(&buf, &len, &cap, v))
		goto fail;
	snprintf(v, sizeof v, "%s=%d", CCP_SOCK_ENV_SIZE, j->n);
	if (quote(&buf, &len, &cap, v))
		goto fail;
	snprintf(v, sizeof v, "%s=%s", CCP_SOCK_ENV_ADDR, j->addr);
	if (quote(&buf, &len, &cap, v))
		goto fail;
	/* the key: the first line of ssh's input, which becomes the
	 * program's descriptor 3 (its input is /dev/null) */
	snprintf(v, sizeof v, "%s=3", CCP_SOCK_ENV_KEY_FD);
	if (quote(&buf, &len, &cap, v))
		goto fail;
	const char *t = getenv(CCP_SOCK_ENV_TIMEOUT);
	if (j->timeout_given || t) {
		snprintf(v, sizeof v, "%s=%lld", CCP_SOCK_ENV_TIMEOUT,
		         (long long)j->timeout_ms);
		if (quote(&buf, &len, &cap, v))
			goto fail;
	}
	const char *f = getenv(CCP_SOCK_ENV_FAULT);
	if (f && strlen(f) < 64) {
		snprintf(v, sizeof v, "%s=%s", CCP_SOCK_ENV_FAULT, f);
		if (quote(&buf, &len, &cap, v))
			goto fail;
	}
	for (char *const *a = prog; *a; a++)
		if (quote(&buf, &len, &cap, *a))
			goto fail;
	if (append(&buf, &len, &cap, "3<&0 </dev/null", false))
		goto fail;
	return buf;
fail:
	free(buf);
	return NULL;
}

/* A pipe that holds the job's key (64 hex digits and a newline), its
 * writing end already closed: the descriptor (above 2, close-on-exec) a
 * rank reads the key from, or -1. */
static int key_pipe(const struct job *j)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	char line[CCP_SOCK_KEY_HEX];
	sw_key_hex(line, j->key);
	line[CCP_SOCK_KEY_HEX - 1] = '\n'; /* in place of the NUL */
	ssize_t w = write(p[1], line, sizeof line);
	sw_wipe(line, sizeof line);
	close(p[1]);
	int fd = fcntl(p[0], F_DUPFD_CLOEXEC, 3);
	close(p[0]);
	if (w != (ssize_t)sizeof line && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Start rank i; in the child, never returns. */
static int spawn(struct job *j, int i, char *const *prog)
{
	char *remote = NULL;
	if (j->r[i].host && !(remote = remote_command(j, i, prog)))
		return -1;
	int kfd = key_pipe(j);
	if (kfd < 0) {
		free(remote);
		return -1;
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		free(remote);
		close(kfd);
		return -1;
	}
	if (pid > 0) {
		free(remote);
		close(kfd);
		setpgid(pid, pid); /* also in the child: whichever runs first */
		j->r[i].pid = j->r[i].spid = pid;
		j->live++;
		return 0;
	}
	/* the child: the signals as they were, our environment, exec */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setpgid(0, 0);
#ifdef __linux__
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
#else
	(void)parent;
#endif
	/* only rank 0 reads the launcher's input, and not from a terminal:
	 * in its own process group it could not */
	if (i > 0 || isatty(0)) {
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0) {
			dup2(nul, 0);
			close(nul);
		}
	}
	if (remote) {
		/* the key is ssh's input, which it forwards to the remote
		 * command (remote_command) */
		dup2(kfd, 0);
		close(kfd);
		char *argv[] = {"ssh",           "-o",
		                "BatchMode=yes", (char *)j->r[i].host,
		                remote,          NULL};
		execvp("ssh", argv);
		fprintf(stderr, "ccplan run: cannot run ssh: %s\n",
		        strerror(errno));
		_exit(127);
	}
	char v[32];
	snprintf(v, sizeof v, "%d", i);
	setenv(CCP_SOCK_ENV_RANK, v, 1);
	snprintf(v, sizeof v, "%d", j->n);
	setenv(CCP_SOCK_ENV_SIZE, v, 1);
	setenv(CCP_SOCK_ENV_ADDR, j->addr, 1);
	snprintf(v, sizeof v, "%d", kfd);
	setenv(CCP_SOCK_ENV_KEY_FD, v, 1);
	int fl = fcntl(kfd, F_GETFD);
	if (fl >= 0)
		fcntl(kfd, F_SETFD, fl & ~FD_CLOEXEC); /* the program's */
	if (j->timeout_given) {
		snprintf(v, sizeof v, "%lld", (long long)j->timeout_ms);
		setenv(CCP_SOCK_ENV_TIMEOUT, v, 1);
	}
	execvp(prog[0], prog);
	fprintf(stderr, "ccplan run: cannot run %s: %s\n", prog[0],
	        strerror(errno));
	_exit(127);
}

/* ---- set-up ------------------------------------------------------------- */

static bool is_local_host(const char *h)
{
	char me[256];
	if (!strcmp(h, "localhost") || !strcmp(h, "127.0.0.1") ||
	    !strcmp(h, "::1"))
		return true;
	if (gethostname(me, sizeof me) == 0) {
		me[sizeof me - 1] = '\0';
		if (!strcmp(h, me))
			return true;
	}
	return false;
}

/* The hosts a job is given, in order, with their slots. */
struct hostlist {
	char **names;
	int *slots;
	int n, cap;
};

/* One host: "HOST", "HOST:K" (as Open MPI's -H and MPICH's hostfiles
 * write it) or, from a hostfile, "HOST slots=K"; extra is that second
 * word or NULL.  where names the line or the option for a message.  0,
 * RUN_BADINPUT, or RUN_INTERNAL. */
static int add_host(struct hostlist *h, const char *spec, const char *extra,
                    const char *where)
{
	char name[256];
	int k = 1, colon = 0;
	const char *c = strchr(spec, ':');
	/* one colon: HOST:K, K digits; more: an IPv6 address, as is */
	if (c && !strchr(c + 1, ':')) {
		colon = 1;
		if (!c[1] || strspn(c + 1, "0123456789") != strlen(c + 1) ||
		    strlen(c + 1) > 6)
			k = 0; /* refused below */
		else
			k = atoi(c + 1);
	}
	size_t len = colon ? (size_t)(c - spec) : strlen(spec);
	if (len == 0 || len >= sizeof name ||
	    (extra && (colon || sscanf(extra, "slots=%d", &k) != 1)) || k < 1 ||
	    k > RUN_MAX_RANKS) {
		fprintf(stderr,
		        "ccplan run: %s: expected 'HOST', 'HOST:K' or 'HOST "
		        "slots=K' with K from 1 to %d\n",
		        where, RUN_MAX_RANKS);
		return RUN_BADINPUT;
	}
	memcpy(name, spec, len);
	name[len] = '\0';
	if (h->n == h->cap) {
		int cap = h->cap ? 2 * h->cap : 8;
		char **nn = realloc(h->names, (size_t)cap * sizeof *nn);
		if (nn)
			h->names = nn;
		int *ns = realloc(h->slots, (size_t)cap * sizeof *ns);
		if (ns)
			h->slots = ns;
		if (!nn || !ns)
			return RUN_INTERNAL;
		h->cap = cap;
	}
	if (!(h->names[h->n] = strdup(name)))
		return RUN_INTERNAL;
	h->slots[h->n++] = k;
	return 0;
}

/* The hosts of a hostfile: one per line, '#' comments. */
static int read_hostfile(struct hostlist *h, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "ccplan run: %s: %s\n", path, strerror(errno));
		return RUN_BADINPUT;
	}
	char line[512], where[600];
	int ln = 0, rc = 0;
	while (!rc && fgets(line, sizeof line, f)) {
		ln++;
		char *c = strchr(line, '#');
		if (c)
			*c = '\0';
		char name[256], extra[64];
		int got = sscanf(line, "%255s %63s", name, extra);
		if (got <= 0)
			continue;
		snprintf(where, sizeof where, "%s:%d", path, ln);
		rc = add_host(h, name, got == 2 ? extra : NULL, where);
	}
	fclose(f);
	return rc;
}

/* The hosts of -H: "a:2,b:2" or "a,b". */
static int read_host_list(struct hostlist *h, const char *list)
{
	char *copy = strdup(list), *save = NULL, where[300];
	int rc = copy ? 0 : RUN_INTERNAL;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && !rc;
	     t = strtok_r(NULL, ",", &save)) {
		snprintf(where, sizeof where, "-H %.256s", t);
		rc = add_host(h, t, NULL, where);
	}
	free(copy);
	return rc;
}

/* Give every rank its host from the hostfile or the -H list: each host's
 * slots filled in order, then round again. */
static int place_ranks(struct job *j, const struct run_opts *o, char ***hosts,
                       int *nhosts)
{
	struct hostlist h = {0};
	int rc = o->hostfile ? read_hostfile(&h, o->hostfile) : 0;
	if (!rc && o->hosts)
		rc = read_host_list(&h, o->hosts);
	if (!rc && h.n == 0) {
		fprintf(stderr, "ccplan run: %s: no hosts\n",
		        o->hostfile ? o->hostfile : "-H");
		rc = RUN_BADINPUT;
	}
	if (!rc) {
		int at = 0, used = 0;
		for (int i = 0; i < j->n; i++) {
			j->r[i].host = is_local_host(h.names[at]) ? NULL
			                                         : h.names[at];
			if (++used == h.slots[at]) {
				at = (at + 1) % h.n;
				used = 0;
			}
		}
	}
	free(h.slots);
	*hosts = h.names;
	*nhosts = h.n;
	return rc;
}

/* The address remote ranks can reach us at: CCPLAN_RUN_HOST, else the
 * first non-loopback IPv4 address of this host's name. */
static int public_address(const char *tag, char *out, size_t len)
{
	const char *h = getenv("CCPLAN_RUN_HOST");
	if (h) {
		struct in_addr a;
		if (inet_pton(AF_INET, h, &a) != 1) {
			fprintf(stderr,
			        "%s: CCPLAN_RUN_HOST='%s': "
			        "expected an IPv4 address\n",
			        tag, h);
			return -1;
		}
		snprintf(out, len, "%s", h);
		return 0;
	}
	char me[256];
	struct addrinfo hint, *res = NULL;
	memset(&hint, 0, sizeof hint);
	hint.ai_family = AF_INET;
	hint.ai_socktype = SOCK_STREAM;
	if (gethostname(me, sizeof me) != 0 ||
	    getaddrinfo(me, NULL, &hint, &res) != 0)
		res = NULL;
	for (struct addrinfo *p = res; p; p = p->ai_next) {
		const struct sockaddr_in *sa =
		        (const struct sockaddr_in *)p->ai_addr;
		if ((ntohl(sa->sin_addr.s_addr) >> 24) == 127)
			continue;
		inet_ntop(AF_INET, &sa->sin_addr, out, (socklen_t)len);
		freeaddrinfo(res);
		return 0;
	}
	if (res)
		freeaddrinfo(res);
	fprintf(stderr,
	        "%s: this host's name does not resolve to an address the "
	        "remote hosts can reach; set CCPLAN_RUN_HOST\n",
	        tag);
	return -1;
}

static int open_listener(struct job *j, bool remote)
{
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(remote ? INADDR_ANY : INADDR_LOOPBACK);
	socklen_t al = sizeof a;
	char host[64] = "127.0.0.1";
	if (remote && public_address(j->tag, host, sizeof host) < 0)
		return -1;
	if ((j->lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    set_flags(j->lfd) < 0 ||
	    bind(j->lfd, (struct sockaddr *)&a, sizeof a) < 0 ||
	    listen(j->lfd, SOMAXCONN) < 0 ||
	    getsockname(j->lfd, (struct sockaddr *)&a, &al) < 0) {
		say(j, "cannot listen: %s\n", strerror(errno));
		return -1;
	}
	snprintf(j->addr, sizeof j->addr, "%s:%u", host,
	         (unsigned)ntohs(a.sin_port));
	return 0;
}

/* ---- the loop ------------------------------------------------------------ */

static int poll_timeout(struct job *j)
{
	int64_t now = now_ms(), next = -1;
	if (j->kill_sig)
		next = j->kill_at;
	if (j->wire_by && (next < 0 || j->wire_by < next))
		next = j->wire_by;
	int64_t due = sw_pend_due(&j->pend); /* an unauthenticated one */
	if (due >= 0 && (next < 0 || due < next))
		next = due;
	for (int i = 0; i < j->n; i++)
		if (j->r[i].dropped_at) {
			int64_t t = j->r[i].dropped_at + DROP_GRACE_MS;
			if (next < 0 || t < next)
				next = t;
		}
	if (next < 0)
		return -1;
	return next <= now ? 0 : (int)(next - now);
}

/* The timeout has passed since the start and some ranks, still running,
 * have not connected: say which, once.  They are left to run: a program
 * may do long work before it makes its transport, and one that never
 * does (not a sockets program) runs alone; the ranks that did connect
 * time out waiting for them and fail the job. */
static void report_unwired(struct job *j)
{
	char list[160];
	size_t len = 0;
	int k = 0;
	j->wire_by = 0;
	for (int i = 0; i < j->n; i++) {
		const struct rank *r = &j->r[i];
		if (r->hello || r->left || (!j->attached && r->pid <= 0))
			continue;
		if (k++ < 8 && len < sizeof list)
			len += (size_t)snprintf(list + len, sizeof list - len,
			                        "%s%d", k > 1 ? ", " : "", i);
	}
	if (k == 0)
		return;
	if (j->attached) { /* every rank must use the transport: the job
	                      cannot go on without them */
		say(j,
		    "after %lld ms, %d of %d ranks (%s%s) %s not connected; "
		    "each must make its transport (ccp_socket_transport) "
		    "and find the rendezvous file\n",
		    (long long)j->timeout_ms, k, j->n, list,
		    k > 8 ? ", ..." : "", k == 1 ? "has" : "have");
		for (int i = 0; i < j->n; i++)
			if (!j->r[i].hello && !j->r[i].left) {
				job_fail(j, i, CCP_SOCK_ABSENT, 0, 0);
				break;
			}
		return;
	}
	say(j,
	        "after %lld ms, %d of %d ranks (%s%s) %s not "
	        "connected: a rank connects when it calls "
	        "ccp_socket_transport (docs/sockets.md), and one that never "
	        "does runs alone; waiting for %s to exit\n",
	        (long long)j->timeout_ms, k, j->n, list, k > 8 ? ", ..." : "",
	        k == 1 ? "has" : "have", k == 1 ? "it" : "them");
}

static void timers(struct job *j)
{
	int64_t now = now_ms();
	sw_pend_expire(&j->pend);
	if (j->wire_by && now >= j->wire_by)
		report_unwired(j);
	for (int i = 0; i < j->n; i++) {
		struct rank *r = &j->r[i];
		if (r->dropped_at && now >= r->dropped_at + DROP_GRACE_MS) {
			r->dropped_at = 0;
			if (!r->left)
				job_fail(j, i, CCP_SOCK_DROPPED, 0, 0);
		}
	}
	if (j->attached && j->kill_sig && now >= j->kill_at) {
		/* no processes to signal: the ranks still connected were
		 * told; stop serving them */
		j->kill_sig = 0;
		j->live = 0;
		return;
	}
	if (j->kill_sig && now >= j->kill_at && j->live > 0) {
		int k = 0;
		for (int i = 0; i < j->n; i++)
			k += j->r[i].pid > 0;
		say(j,
		        "%d rank%s still running; sending "
		        "%s\n",
		        k, k == 1 ? "" : "s",
		        j->kill_sig == SIGKILL ? "SIGKILL" : "SIGTERM");
		signal_all(j, j->kill_sig);
		if (j->kill_sig == SIGTERM) {
			j->kill_sig = SIGKILL;
			j->kill_at = now + KILL_GRACE_MS;
		} else {
			j->kill_sig = 0;
		}
	}
}

static int run_loop(struct job *j, int sig_r)
{
	while (j->live > 0) {
		int n = 0;
		j->pfd[n] = (struct pollfd){sig_r, POLLIN, 0};
		j->who[n++] = WHO_SIG;
		/* unauthenticated connections are read before new ones are
		 * accepted, which may evict them */
		for (int k = 0; k < j->pend.n; k++) {
			j->pfd[n] = (struct pollfd){j->pend.p[k].fd, POLLIN, 0};
			j->who[n++] = WHO_PEND;
		}
		j->pfd[n] = (struct pollfd){j->lfd, POLLIN, 0};
		j->who[n++] = WHO_LISTEN;
		for (int i = 0; i < j->n; i++)
			if (j->r[i].fd >= 0) {
				j->pfd[n] =
				        (struct pollfd){j->r[i].fd, POLLIN, 0};
				j->who[n++] = i;
			}
		int got = poll(j->pfd, (nfds_t)n, poll_timeout(j));
		if (got < 0 && errno != EINTR) {
			say(j, "poll: %s\n",
			        strerror(errno));
			return -1;
		}
		for (int k = 0; got > 0 && k < n; k++) {
			if (!j->pfd[k].revents)
				continue;
			int w = j->who[k];
			if (w == WHO_SIG) {
				unsigned char b[16];
				ssize_t m = read(sig_r, b, sizeof b);
				for (ssize_t x = 0; x < m; x++)
					if (j->attached)
						coord_stopped(j);
					else if (b[x] == SIGCHLD)
						reap(j);
					else
						on_interrupt(j, b[x]);
			} else if (w == WHO_LISTEN) {
				int e = sw_pend_accept(&j->pend, j->lfd);
				if (e < 0) /* out of descriptors: the ranks
				              time out and say so */
					say(j,
					        "accept: %s\n",
					        strerror(-e));
			} else if (w == WHO_PEND) {
				int q = sw_pend_find(&j->pend, j->pfd[k].fd);
				if (q >= 0)
					pend_input(j, q);
			} else if (j->r[w].fd == j->pfd[k].fd) {
				rank_read(j, w);
			}
		}
		reap(j); /* a SIGCHLD may have come before the handler */
		timers(j);
	}
	return 0;
}

/* ---- the command ----------------------------------------------------------
 */

int sock_run(const struct run_opts *o)
{
	long n = o->n;
	const char *hostfile = o->hostfile;
	double tsec = o->timeout_s;
	bool verbose = o->verbose;
	char *const *prog = o->prog;

	struct job job;
	struct job *j = &job;
	memset(j, 0, sizeof *j);
	j->n = (int)n;
	j->lfd = -1;
	j->exit_status = -1;
	j->verbose = verbose;
	j->tag = "ccplan run";
	j->timeout_ms = CCP_SOCK_TIMEOUT_DEFAULT;
	const char *te = getenv(CCP_SOCK_ENV_TIMEOUT);
	if (te && atoll(te) > 0)
		j->timeout_ms = atoll(te);
	if (tsec > 0) {
		j->timeout_ms = (int64_t)(tsec * 1000 + 0.5);
		j->timeout_given = true;
	}
	j->r = calloc((size_t)n, sizeof *j->r);
	j->pend.cap = (int)n + CCP_SOCK_PEND_SLACK;
	j->pend.p = calloc((size_t)j->pend.cap, sizeof *j->pend.p);
	j->pfd = calloc((size_t)(2 + n + j->pend.cap), sizeof *j->pfd);
	j->who = calloc((size_t)(2 + n + j->pend.cap), sizeof *j->who);
	char **hosts = NULL;
	int nhosts = 0, rc = RUN_INTERNAL, sp[2] = {-1, -1};
	bool remote = false, handlers = false;
	struct sigaction old[5];
	static const int sigs[5] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGPIPE};
	if (!j->r || !j->pend.p || !j->pfd || !j->who) {
		fprintf(stderr, "ccplan run: out of memory\n");
		goto out;
	}
	for (int i = 0; i < j->n; i++)
		j->r[i].fd = -1;
	if ((hostfile || o->hosts) &&
	    (rc = place_ranks(j, o, &hosts, &nhosts)))
		goto out;
	rc = RUN_INTERNAL;
	for (int i = 0; i < j->n; i++)
		remote |= j->r[i].host != NULL;
	if (open_listener(j, remote) < 0)
		goto out;
	if (sw_init() < 0) {
		fprintf(stderr, "ccplan run: libsodium cannot start (no source "
		                "of randomness)\n");
		goto out;
	}
	sw_random(j->key, sizeof j->key);
	j->pend.key = j->key;
	j->pend.check = hello_check;
	j->pend.dropped = on_dropped;
	j->pend.ud = j;
	if (pipe(sp) < 0 || set_flags(sp[0]) < 0 || set_flags(sp[1]) < 0) {
		fprintf(stderr, "ccplan run: pipe: %s\n", strerror(errno));
		goto out;
	}
	sig_w = sp[1];
	for (int k = 0; k < 5; k++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = sigs[k] == SIGPIPE ? SIG_IGN : on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[k], &sa, &old[k]);
	}
	handlers = true;
	if (verbose)
		fprintf(stderr,
		        "ccplan run: %d ranks, launcher at %s, "
		        "timeout %lld ms\n",
		        j->n, j->addr, (long long)j->timeout_ms);
	fflush(NULL); /* the children must not write our buffers again */
	for (int i = 0; i < j->n; i++)
		if (spawn(j, i, prog) < 0) {
			fprintf(stderr,
			        "ccplan run: cannot start rank %d: %s\n", i,
			        strerror(errno));
			signal_all(j, SIGKILL);
			while (j->live > 0) {
				int st;
				pid_t p = wait(&st);
				if (p < 0 && errno != EINTR)
					break;
				if (p > 0)
					j->live--;
			}
			goto out;
		}
	j->wire_by = now_ms() + j->timeout_ms;
	if (run_loop(j, sp[0]) < 0) {
		signal_all(j, SIGKILL);
		while (j->live > 0 && wait(NULL) > 0)
			j->live--;
		goto out;
	}
	if (j->failed) /* what the ranks started and left behind */
		for (int i = 0; i < j->n; i++)
			if (j->r[i].spid > 0)
				kill(-j->r[i].spid, SIGKILL);
	/* ranks that all ended well without one connecting never used
	 * the transport: each ran alone, which is rarely what was meant */
	if (!j->failed && !j->interrupted && j->nhello == 0 && j->n > 1)
		fprintf(stderr,
		        "ccplan run: warning: none of the %d ranks connected "
		        "to the launcher, so each ran alone: the program does "
		        "not use the sockets transport "
		        "(ccp_socket_transport, docs/sockets.md); an MPI "
		        "program is started with mpirun\n",
		        j->n);
	if (j->exit_status >= 0)
		rc = j->exit_status;
	else if (j->interrupted)
		rc = 128 + j->interrupted;
	else
		rc = j->failed ? 1 : RUN_OK;
	if (verbose)
		fprintf(stderr, "ccplan run: all ranks ended; exit status %d\n",
		        rc);
out:
	if (handlers)
		for (int k = 0; k < 5; k++)
			sigaction(sigs[k], &old[k], NULL);
	sig_w = -1;
	if (sp[0] >= 0)
		close(sp[0]);
	if (sp[1] >= 0)
		close(sp[1]);
	if (j->lfd >= 0)
		close(j->lfd);
	sw_pend_close_all(&j->pend);
	if (j->ndropped > DROPS_LISTED)
		fprintf(stderr,
		        "ccplan run: %d unauthenticated connections were "
		        "dropped in all: %d evicted, %d timed out, %d with a bad "
		        "response, %d otherwise\n",
		        j->ndropped, j->ndrop_kind[0], j->ndrop_kind[1],
		        j->ndrop_kind[2], j->ndrop_kind[3]);
	sw_wipe(j->key, sizeof j->key);
	if (j->r)
		for (int i = 0; i < j->n; i++)
			if (j->r[i].fd >= 0)
				close(j->r[i].fd);
	for (int k = 0; k < nhosts; k++)
		free(hosts[k]);
	free(hosts);
	free(j->r);
	free(j->pend.p);
	free(j->pfd);
	free(j->who);
	return rc;
}

/* ---- a job someone else started -------------------------------------- */

struct sock_coord {
	struct job j;
	int stop[2]; /* a byte on stop[1] asks the loop to stop the job */
};

void sock_coord_free(struct sock_coord *c)
{
	if (!c)
		return;
	struct job *j = &c->j;
	if (j->lfd >= 0)
		close(j->lfd);
	for (int k = 0; k < 2; k++)
		if (c->stop[k] >= 0)
			close(c->stop[k]);
	sw_pend_close_all(&j->pend);
	if (j->r)
		for (int i = 0; i < j->n; i++)
			if (j->r[i].fd >= 0)
				close(j->r[i].fd);
	if (j->rdv)
		unlink(j->rdv);
	sw_wipe(j->key, sizeof j->key);
	free(j->r);
	free(j->pend.p);
	free(j->pfd);
	free(j->who);
	free(c);
}

int sock_coord_open(struct sock_coord **out, int n, long long timeout_ms,
                    bool remote, const char *rdv, char *addr, size_t addrlen,
                    unsigned char key[32])
{
	struct sock_coord *c = calloc(1, sizeof *c);
	*out = NULL;
	if (!c)
		return -1;
	struct job *j = &c->j;
	c->stop[0] = c->stop[1] = -1;
	j->n = n;
	j->lfd = -1;
	j->exit_status = -1;
	j->tag = "ccplan sockets coordinator";
	j->attached = true;
	j->live = n;
	j->timeout_ms = timeout_ms;
	j->r = calloc((size_t)n, sizeof *j->r);
	j->pend.cap = n + CCP_SOCK_PEND_SLACK;
	j->pend.p = calloc((size_t)j->pend.cap, sizeof *j->pend.p);
	j->pfd = calloc((size_t)(2 + n + j->pend.cap), sizeof *j->pfd);
	j->who = calloc((size_t)(2 + n + j->pend.cap), sizeof *j->who);
	if (!j->r || !j->pend.p || !j->pfd || !j->who) {
		sock_coord_free(c);
		return -1;
	}
	for (int i = 0; i < n; i++)
		j->r[i].fd = -1;
	if (open_listener(j, remote) < 0 || pipe(c->stop) < 0 ||
	    set_flags(c->stop[0]) < 0 || sw_init() < 0) {
		sock_coord_free(c);
		return -1;
	}
	sw_random(j->key, sizeof j->key);
	memcpy(key, j->key, sizeof j->key);
	j->pend.key = j->key;
	j->pend.check = hello_check;
	j->pend.dropped = on_dropped;
	j->pend.ud = j;
	j->rdv = rdv;
	snprintf(addr, addrlen, "%s", j->addr);
	*out = c;
	return 0;
}

void *sock_coord_serve(void *arg)
{
	struct sock_coord *c = arg;
	struct job *j = &c->j;
	j->wire_start = now_ms();
	j->wire_by = j->wire_start + j->timeout_ms;
	if (run_loop(j, c->stop[0]) < 0 && !j->failed)
		job_fail(j, -1, CCP_SOCK_PROTOCOL, CCP_EIO, 0);
	return NULL;
}

void sock_coord_stop(struct sock_coord *c)
{
	(void)!write(c->stop[1], "x", 1);
}
