/*
 * sockets.c - the TCP sockets transport: moves the runtime's messages
 * over direct rank-to-rank TCP connections, with `ccplan run` (the
 * launcher, sock_launch.c) as the rendezvous, the agree and barrier
 * server, and the watchdog that tells every rank at once when another one
 * fails (docs/sockets.md).  POSIX sockets and poll(); the handshake and
 * libsodium are in sock_wire.c.
 *
 * Connections.  Each rank keeps one control connection to the launcher
 * and opens data connections lazily: the first irecv or isend naming a
 * peer opens the pair's one connection, the lower rank connecting to the
 * higher one's listening socket (the launcher's table gives its address).
 * So a rank talks only to the peers its plan names.
 *
 * Authentication.  The job's 256-bit key comes from `ccplan run` on an
 * inherited descriptor (CCPLAN_RUN_KEY_FD) and never leaves the process.
 * Every connection, control or data, opens with a challenge and response
 * (sock_wire.h) in which both sides prove that they know the key without
 * sending it.  The connecting rank sends no frame before the acceptor's
 * welcome, and connects again if its connection is closed before it (the
 * acceptor evicts unauthenticated connections when its table is full, and
 * drops them after CCP_SOCK_AUTH_MS); an acceptor checks a hello's claims
 * (its rank is lower, it means to reach this rank, not connected yet) and
 * takes the connection as that rank's only once it has authenticated.  So
 * every frame a rank reads comes from the rank it says it comes from, and
 * connections of strangers, idle or not, cannot take the place of a
 * peer's.  Frames are not encrypted.
 *
 * Frames.  A message is a 32-byte header (magic, sender, plan hash,
 * phase, kind, length) and its payload.  A receiver reads a header, finds
 * the first posted receive of that peer with the same (phase, kind), and
 * reads the payload straight into the caller's buffer.  A header for
 * which no receive is posted yet is kept (one per peer) and the
 * connection is not read further until one is: the rest stays in the
 * kernel, so memory does not grow with traffic.  The engine posts every
 * receive of a phase before it waits, and each sender writes its frames in
 * phase order, so the frame at the head of a connection always belongs to
 * the receiving rank's current phase or a later one: nothing deadlocks.
 *
 * Progress.  Every socket is non-blocking; wait, waitall, agree and
 * barrier all run one loop (pump) that polls the control connection, the
 * listening socket and every connection with work to do, so all posted
 * sends and receives move together.  A call that sees no byte move for
 * the timeout returns CCP_ETIMEDOUT; a dead or misbehaving peer gives
 * CCP_EPEER (a wrong plan hash CCP_EMISMATCH).  Either way the transport
 * is then broken, tells the launcher, and the launcher tells every other
 * rank, which fail at once with CCP_EPEER.
 *
 * Memory.  The peer table is sized once; the request table doubles to the
 * largest phase seen and is reused.  Executing a plan again allocates
 * nothing.
 *
 * Test hook.  CCPLAN_SOCKETS_FAULT=KIND:RANK:FRAME[:MS] makes rank RANK
 * misbehave at its FRAME-th data frame (counted from 1): die (SIGKILL),
 * stall (sleep MS ms), close (close the connection in the middle of the
 * frame), hash (a wrong plan hash), len (a wrong length).  For tests only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ccplan_sockets.h"
#include "le.h"
#include "sock_launch.h"
#include "sock_wire.h"
#include "transport.h"

#define NO_REQ (-1)
#define BATCH  8 /* frames one sendmsg may carry */

/* ---- the handle ------------------------------------------------------ */

/* A posted receive or send. */
struct sreq {
	uint8_t hdr[CCP_SOCK_FRAME_HDR]; /* send: the frame header */
	uint8_t *buf;     /* payload: where it lands, or where it comes from */
	uint64_t len;     /* payload bytes */
	uint64_t done;    /* send: frame bytes written (header included);
	                     receive: payload bytes read */
	int32_t peer;     /* the other rank */
	uint32_t phase;   /* the plan's phase */
	int next;         /* next request in the peer's queue, or NO_REQ */
	uint8_t kind;     /* enum ccp_tag_kind */
	uint8_t recv;     /* 1: a receive, 0: a send */
	uint8_t complete; /* finished */
	uint8_t fault;    /* send: test hook action (FAULT_CLOSE) */
};

enum peer_state {
	P_NONE,       /* no connection, none wanted yet */
	P_ACCEPTING,  /* wanted; waiting for the (lower) peer to connect */
	P_CONNECTING, /* connect() in progress */
	P_CHALLENGE,  /* our hello is out: waiting for the peer's challenge */
	P_WELCOME,    /* our response is out: waiting for its welcome */
	P_RETRY,      /* closed before the welcome: connect again at retry_at */
	P_UP          /* authenticated: frames flow */
};

/* What this rank knows of one other rank. */
struct peer {
	int fd;            /* data connection, or -1 */
	uint8_t state;     /* enum peer_state */
	uint8_t auth_got;  /* bytes of the challenge or the welcome read */
	uint8_t hello[CCP_SOCK_HELLO_LEN]; /* connector: our hello */
	uint8_t auth[CCP_SOCK_CHAL_LEN];   /* the challenge, then the welcome */
	uint32_t retries;  /* connector: connections closed before the welcome */
	int64_t retry_at;  /* P_RETRY: when to connect again (monotonic ms) */
	char lost[96];     /* why the last one was lost */
	uint32_t refused;  /* acceptor: unauthenticated connections dropped
	                      that claimed to be this rank */
	uint8_t addr[4];      /* its listening address (IPv4), from the table */
	uint16_t port;        /* and port */
	int sq_head, sq_tail; /* sends in the order posted */
	int rq_head, rq_tail; /* posted receives not matched yet */
	int cur; /* receive whose payload is being read, or NO_REQ */
	uint8_t hdr[CCP_SOCK_FRAME_HDR]; /* incoming frame header */
	uint8_t hdr_got;                 /* bytes of it read */
	bool pending;     /* hdr is whole and waits for its receive */
	uint32_t h_phase; /* the header, decoded */
	uint8_t h_kind;
	uint64_t h_len;
};

enum { FAULT_NONE, FAULT_DIE, FAULT_STALL, FAULT_CLOSE, FAULT_HASH, FAULT_LEN };

struct sock_transport {
	struct ccp_transport base; /* must be first */
	int ctl;                   /* control connection, -1 when alone */
	bool joined;        /* the launcher has authenticated this rank */
	int lfd;            /* listening socket for peers, -1 when alone */
	uint8_t key[CCP_SOCK_KEY_LEN]; /* the job's key (CCPLAN_RUN_KEY_FD) */
	uint64_t hash;      /* plan hash of the last agree: frames carry it */
	uint64_t seq;       /* collectives entered so far */
	int64_t timeout_ms; /* longest wait without a byte moving */
	int64_t last_move;  /* monotonic ms when a byte last moved */
	struct peer *peers; /* size entries */
	int32_t *active;    /* ranks of the peers with a socket */
	int nactive;
	struct sockaddr_in laddr; /* where lfd listens */
	struct sw_pending pend; /* accepted, not authenticated: size + slack */
	uint64_t ndropped;      /* unauthenticated connections dropped */
	char dropped[160];      /* the last one: from where, why */
	struct pollfd *pfd;     /* poll set: npoll entries */
	int npoll;              /* 2 + size + pend.cap */
	int32_t *who;       /* per poll entry: peer rank, or WHO_* */
	struct sreq *req;   /* requests posted since the last waitall */
	int nreq, cap;
	uint8_t cin[128]; /* control input not yet parsed */
	size_t cin_len;
	bool have_reply;     /* a collective's reply has come */
	uint16_t reply_type; /* its type, sequence number and value */
	uint64_t reply_seq;
	int32_t reply_value;
	int broken;           /* 0, or the error that broke the transport */
	char why[512];        /* its message */
	char check_why[96];   /* why a hello was refused */
	int fault;            /* test hook: FAULT_*, for this rank only */
	uint64_t fault_frame; /* the data frame it strikes, from 1 */
	uint32_t fault_ms;    /* stall: how long */
	uint64_t frames;      /* data frames posted so far */
	/* a job ccplan run did not start: rank 0's coordinator thread */
	struct sock_coord *coord;
	pthread_t coord_thread;
	bool made;          /* ccp_socket_transport returned it */
	char rdv[PATH_MAX]; /* the rendezvous file */
};

/* The rendezvous file's first line, and how often a rank looks for it. */
#define RDV_MAGIC   "ccplan-rendezvous 1"
#define RDV_POLL_MS 50

#define WHO_CTL    (-1)
#define WHO_LISTEN (-2)
#define WHO_PEND   (-3)

static const struct ccp_transport_ops sock_ops;

/* ---- small helpers --------------------------------------------------- */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(uint32_t ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static const char *kind_name(unsigned kind)
{
	return kind == CCP_TAG_READY ? "ready token" : "data";
}

/* Non-blocking and close-on-exec: the application's children must not
 * inherit the job's sockets. */
static int sock_setup(int fd, bool nodelay)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -1;
	int one = 1;
	if (nodelay &&
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0)
		return -1;
	return 0;
}

/* ---- failure --------------------------------------------------------- */

static void ctl_fail_report(struct sock_transport *s, int code);

/* Break the transport: remember why, set the context message, and (when
 * tell) report to the launcher so that the other ranks stop at once. */
static int fail_v(struct sock_transport *s, bool tell, int code,
                  const char *fmt, va_list ap)
{
	if (!s->broken) {
		vsnprintf(s->why, sizeof s->why, fmt, ap);
		s->broken = code;
		if (tell)
			ctl_fail_report(s, code);
	}
	return ccp__error(s->base.ctx, s->broken, "%s", s->why);
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
fail(struct sock_transport *s, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = fail_v(s, true, code, fmt, ap);
	va_end(ap);
	return rc;
}

/* A failure the launcher told us about: no need to tell it back. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
fail_quiet(struct sock_transport *s, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = fail_v(s, false, code, fmt, ap);
	va_end(ap);
	return rc;
}

/* Every call of a broken transport fails at once, with the first error. */
static int still_broken(struct sock_transport *s)
{
	return ccp__error(s->base.ctx, s->broken, "%s", s->why);
}

/* ---- control connection --------------------------------------------- */

/* Write a whole control message, waiting (at most the timeout) for room. */
static int ctl_write(struct sock_transport *s, const uint8_t *msg, size_t n)
{
	int64_t start = now_ms();
	size_t off = 0;
	while (off < n) {
		ssize_t w = send(s->ctl, msg + off, n - off, MSG_NOSIGNAL);
		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		int64_t left = s->timeout_ms - (now_ms() - start);
		if (left <= 0)
			return -ETIMEDOUT;
		struct pollfd p = {s->ctl, POLLOUT, 0};
		if (poll(&p, 1, (int)(left > 1000 ? 1000 : left)) < 0 &&
		    errno != EINTR)
			return -errno;
	}
	return 0;
}

static void ctl_header(uint8_t *h, unsigned type, int32_t rank, uint32_t len)
{
	le_set_u32(h, CCP_SOCK_CTL_MAGIC);
	le_set_u16(h + 4, (uint16_t)type);
	le_set_u16(h + 6, 0);
	le_set_u32(h + 8, (uint32_t)rank);
	le_set_u32(h + 12, len);
}

static int ctl_send(struct sock_transport *s, unsigned type,
                    const uint8_t *body, uint32_t len)
{
	uint8_t msg[CCP_SOCK_CTL_HDR + 32];
	ctl_header(msg, type, s->base.rank, len);
	memcpy(msg + CCP_SOCK_CTL_HDR, body, len);
	int e = ctl_write(s, msg, CCP_SOCK_CTL_HDR + len);
	if (e)
		return fail_quiet(s, CCP_EPEER,
		                  "rank %d: cannot reach the launcher (ccplan "
		                  "run): %s",
		                  (int)s->base.rank,
		                  e == -ETIMEDOUT ? "timed out" : strerror(-e));
	return 0;
}

/* Best effort: the failure report must never block a failing rank. */
static void ctl_fail_report(struct sock_transport *s, int code)
{
	if (s->ctl < 0 || !s->joined)
		return;
	uint8_t msg[CCP_SOCK_CTL_HDR + CCP_SOCK_FAIL_LEN];
	ctl_header(msg, CCP_SOCK_FAIL, s->base.rank, CCP_SOCK_FAIL_LEN);
	le_set_u32(msg + CCP_SOCK_CTL_HDR, (uint32_t)code);
	le_set_u32(msg + CCP_SOCK_CTL_HDR + 4, 0);
	(void)!send(s->ctl, msg, sizeof msg, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* The launcher stopped the job: say why. */
static int on_abort(struct sock_transport *s, int32_t who, const uint8_t *b)
{
	uint32_t reason = le_get_u32(b);
	int code = (int32_t)le_get_u32(b + 4), status = (int32_t)le_get_u32(b + 8);
	int me = (int)s->base.rank, r = (int)who;
	const char *boss = s->coord || s->rdv[0] ? "the job's coordinator (rank 0)"
	                                         : "ccplan run";
	switch (reason) {
	case CCP_SOCK_EXITED:
		return fail_quiet(s, CCP_EPEER,
		                  "rank %d: stopped by %s: rank %d "
		                  "exited with status %d",
		                  me, boss, r, status);
	case CCP_SOCK_SIGNALED:
		return fail_quiet(s, CCP_EPEER,
		                  "rank %d: stopped by %s: rank %d was "
		                  "killed by signal %d",
		                  me, boss, r, status);
	case CCP_SOCK_DROPPED:
		return fail_quiet(s, CCP_EPEER,
		                  "rank %d: stopped by %s: rank %d "
		                  "closed its connection to the launcher",
		                  me, boss, r);
	case CCP_SOCK_REPORTED:
		return fail_quiet(s, CCP_EPEER,
		                  "rank %d: stopped by %s: rank %d "
		                  "failed (%s)",
		                  me, boss, r, ccp_strerror(code));
	case CCP_SOCK_LEFT:
		return fail_quiet(
		        s, CCP_EPEER,
		        "rank %d: rank %d has left the job, so the "
		        "collective this rank entered cannot complete",
		        me, r);
	case CCP_SOCK_INTERRUPTED:
		return fail_quiet(s, CCP_EPEER,
		                  "rank %d: stopped by %s, which got "
		                  "signal %d",
		                  me, boss, status);
	case CCP_SOCK_ABSENT:
		return fail_quiet(s, CCP_EPEER,
		                  "rank %d: stopped by %s: rank %d had not "
		                  "connected within the timeout (not started, "
		                  "or it does not use the sockets transport)",
		                  me, boss, r);
	default:
		return fail_quiet(
		        s, CCP_EPEER,
		        "rank %d: stopped by %s: rank %d broke "
		        "the control protocol (entered another "
		        "collective than the other ranks)",
		        me, boss, r);
	}
}

/* Read what the launcher sent and act on every whole message: an ABORT
 * breaks the transport, a collective's reply is kept for its caller. */
static int ctl_input(struct sock_transport *s)
{
	for (;;) {
		ssize_t n = recv(s->ctl, s->cin + s->cin_len,
		                 sizeof s->cin - s->cin_len, 0);
		if (n == 0)
			return fail_quiet(s, CCP_EPEER,
			                  "rank %d: the launcher (%s) closed the "
			                  "control connection",
			                  (int)s->base.rank,
			                  s->rdv[0] ? "rank 0's coordinator"
			                            : "ccplan run");
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			return fail_quiet(s, CCP_EPEER,
			                  "rank %d: control connection: %s",
			                  (int)s->base.rank, strerror(errno));
		}
		s->last_move = now_ms();
		s->cin_len += (size_t)n;
		/* parse whole messages */
		size_t off = 0;
		while (s->cin_len - off >= CCP_SOCK_CTL_HDR) {
			const uint8_t *h = s->cin + off;
			uint16_t type = le_get_u16(h + 4);
			uint32_t len = le_get_u32(h + 12);
			uint32_t want =
			        type == CCP_SOCK_ABORT    ? CCP_SOCK_ABORT_LEN
			        : type == CCP_SOCK_AGREED ? CCP_SOCK_AGREED_LEN
			        : type == CCP_SOCK_RELEASE
			                ? CCP_SOCK_RELEASE_LEN
			                : UINT32_MAX;
			if (le_get_u32(h) != CCP_SOCK_CTL_MAGIC || len != want)
				return fail_quiet(
				        s, CCP_EPEER,
				        "rank %d: a damaged or unexpected "
				        "message (type %u, %u bytes) from "
				        "the launcher",
				        (int)s->base.rank, (unsigned)type,
				        (unsigned)len);
			if (s->cin_len - off < CCP_SOCK_CTL_HDR + len)
				break;
			const uint8_t *b = h + CCP_SOCK_CTL_HDR;
			if (type == CCP_SOCK_ABORT)
				return on_abort(s, (int32_t)le_get_u32(h + 8), b);
			if (s->have_reply)
				return fail_quiet(
				        s, CCP_EPEER,
				        "rank %d: a second collective "
				        "reply from the launcher",
				        (int)s->base.rank);
			s->have_reply = true;
			s->reply_type = type;
			s->reply_seq = le_get_u64(b);
			s->reply_value = type == CCP_SOCK_AGREED
			                         ? (int32_t)le_get_u32(b + 8)
			                         : 0;
			off += CCP_SOCK_CTL_HDR + len;
		}
		memmove(s->cin, s->cin + off, s->cin_len - off);
		s->cin_len -= off;
	}
	return 0;
}

/* ---- data connections ------------------------------------------------ */

static void active_add(struct sock_transport *s, int32_t r)
{
	s->active[s->nactive++] = r;
}

/* Open (or open again) our connection to peer r's listening socket; its
 * hello goes out when the connection is made (connect_done). */
static int peer_connect(struct sock_transport *s, int32_t r)
{
	struct peer *p = &s->peers[r];
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return fail(s, CCP_EIO, "rank %d: socket: %s",
		            (int)s->base.rank, strerror(errno));
	if (sock_setup(fd, true) < 0) {
		int e = errno;
		close(fd);
		return fail(s, CCP_EIO, "rank %d: socket options: %s",
		            (int)s->base.rank, strerror(e));
	}
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	memcpy(&a.sin_addr, p->addr, 4);
	a.sin_port = htons(p->port);
	p->fd = fd;
	p->auth_got = 0;
	p->state = P_CONNECTING; /* also when made at once: POLLOUT says so */
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 &&
	    errno != EINPROGRESS && errno != EINTR)
		return fail(
		        s, CCP_EPEER,
		        "rank %d: cannot connect to rank %d at %u.%u.%u.%u:%u: "
		        "%s",
		        (int)s->base.rank, (int)r, p->addr[0], p->addr[1],
		        p->addr[2], p->addr[3], (unsigned)p->port,
		        strerror(errno));
	return 0;
}

/* Start the pair's connection if it is not there: the lower rank
 * connects, the higher one waits for it. */
static int peer_open(struct sock_transport *s, int32_t r)
{
	struct peer *p = &s->peers[r];
	if (p->state != P_NONE)
		return 0;
	if (s->base.rank > r) {
		p->state = P_ACCEPTING;
		return 0;
	}
	active_add(s, r);
	return peer_connect(s, r);
}

/* Our connection to peer r was closed before its welcome (the peer
 * evicted it, or dropped it after CCP_SOCK_AUTH_MS while this rank was
 * busy): connect again soon, a little later each time.  Nothing of the
 * plan was sent on it. */
static void peer_lost(struct sock_transport *s, int32_t r, const char *why)
{
	struct peer *p = &s->peers[r];
	close(p->fd);
	p->fd = -1;
	p->state = P_RETRY;
	p->retries++;
	snprintf(p->lost, sizeof p->lost, "%s", why);
	int shift = p->retries < 6 ? (int)p->retries : 6;
	p->retry_at = now_ms() + (10 << shift); /* 20 ms ... 640 ms */
}

/* connect() on peer r's connection has finished: send our hello. */
static int connect_done(struct sock_transport *s, int32_t r)
{
	struct peer *p = &s->peers[r];
	int err = 0;
	socklen_t el = sizeof err;
	if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
		err = errno;
	if (err == EINPROGRESS || err == EALREADY)
		return 0;
	if (err)
		return fail(
		        s, CCP_EPEER,
		        "rank %d: cannot connect to rank %d at %u.%u.%u.%u:%u: "
		        "%s",
		        (int)s->base.rank, (int)r, p->addr[0], p->addr[1],
		        p->addr[2], p->addr[3], (unsigned)p->port,
		        strerror(err));
	struct sw_hello h;
	memset(&h, 0, sizeof h);
	h.version = CCP_SOCK_VERSION;
	h.role = CCP_SOCK_ROLE_DATA;
	h.from = (uint32_t)s->base.rank;
	h.to = (uint32_t)r;
	h.size = (uint32_t)s->base.size;
	sw_hello_pack(p->hello, &h);
	int e = sw_send_short(p->fd, p->hello, CCP_SOCK_HELLO_LEN);
	if (e) {
		char why[96];
		snprintf(why, sizeof why, "cannot send the hello: %s",
		         strerror(-e));
		peer_lost(s, r, why);
		return 0;
	}
	p->state = P_CHALLENGE;
	p->auth_got = 0;
	return 0;
}

/* Read peer r's challenge (answer it once the peer has proved that it
 * knows the key) or its welcome (the connection is ours: frames may
 * flow). */
static int peer_auth(struct sock_transport *s, int32_t r)
{
	struct peer *p = &s->peers[r];
	int me = (int)s->base.rank;
	for (;;) {
		bool chal = p->state == P_CHALLENGE;
		size_t want = chal ? CCP_SOCK_CHAL_LEN : CCP_SOCK_WELC_LEN;
		ssize_t n = recv(p->fd, p->auth + p->auth_got,
		                 want - p->auth_got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			char why[96];
			snprintf(why, sizeof why,
			         "rank %d %s before it accepted this rank",
			         (int)r,
			         n == 0 ? "closed the connection"
			                : "broke the connection");
			peer_lost(s, r, why);
			return 0;
		}
		p->auth_got = (uint8_t)(p->auth_got + n);
		if (p->auth_got < want)
			continue;
		p->auth_got = 0;
		if (!chal) {
			if (!sw_welcome_ok(p->auth))
				return fail(s, CCP_EPEER,
				            "rank %d: rank %d sent a damaged "
				            "welcome",
				            me, (int)r);
			p->state = P_UP;
			s->last_move = now_ms();
			return 0;
		}
		uint8_t resp[CCP_SOCK_RESP_LEN];
		if (!sw_respond(resp, p->auth, s->key, p->hello))
			return fail(s, CCP_EPEER,
			            "rank %d: the process listening at "
			            "%u.%u.%u.%u:%u, rank %d's address, did not "
			            "prove that it knows the job key (bad "
			            "challenge)",
			            me, p->addr[0], p->addr[1], p->addr[2],
			            p->addr[3], (unsigned)p->port, (int)r);
		int e = sw_send_short(p->fd, resp, sizeof resp);
		if (e) {
			char why[96];
			snprintf(why, sizeof why,
			         "cannot send the response: %s", strerror(-e));
			peer_lost(s, r, why);
			return 0;
		}
		p->state = P_WELCOME;
	}
}

static void queue_push(struct sock_transport *s, int *head, int *tail, int i)
{
	s->req[i].next = NO_REQ;
	if (*tail == NO_REQ)
		*head = i;
	else
		s->req[*tail].next = i;
	*tail = i;
}

/* What peer r's connection still has to write, as at most 2 * BATCH
 * pieces: the frames of the posted sends in order.  *cut: the list ends
 * in the middle of the test hook's frame. */
static int out_pieces(struct sock_transport *s, struct peer *p,
                      struct iovec *iov, bool *cut)
{
	int n = 0, nf = 0;
	*cut = false;
	for (int i = p->sq_head; i != NO_REQ && nf < BATCH && !*cut;
	     i = s->req[i].next, nf++) {
		struct sreq *q = &s->req[i];
		uint64_t end = CCP_SOCK_FRAME_HDR + q->len;
		if (q->fault == FAULT_CLOSE) {
			end /= 2;
			*cut = true;
		}
		uint64_t hend =
		        end < CCP_SOCK_FRAME_HDR ? end : CCP_SOCK_FRAME_HDR;
		if (q->done < hend) {
			iov[n].iov_base = q->hdr + q->done;
			iov[n++].iov_len = (size_t)(hend - q->done);
		}
		uint64_t from = q->done > CCP_SOCK_FRAME_HDR
		                        ? q->done - CCP_SOCK_FRAME_HDR
		                        : 0;
		if (end > CCP_SOCK_FRAME_HDR + from) {
			iov[n].iov_base = q->buf + from;
			iov[n++].iov_len =
			        (size_t)(end - CCP_SOCK_FRAME_HDR - from);
		}
	}
	return n;
}

/* w bytes went out: advance the frames, completing sends. */
static void out_done(struct sock_transport *s, struct peer *p, uint64_t w)
{
	while (w && p->sq_head != NO_REQ) {
		struct sreq *q = &s->req[p->sq_head];
		uint64_t rest = CCP_SOCK_FRAME_HDR + q->len - q->done;
		uint64_t take = w < rest ? w : rest;
		q->done += take;
		w -= take;
		if (q->done == CCP_SOCK_FRAME_HDR + q->len) {
			q->complete = 1;
			p->sq_head = q->next;
			if (p->sq_head == NO_REQ)
				p->sq_tail = NO_REQ;
		}
	}
}

/* Test hook (close): half of the frame is out; close the connection, give
 * the receiver time to see the cut, and fail. */
static int fault_close(struct sock_transport *s, int32_t r)
{
	struct peer *p = &s->peers[r];
	shutdown(p->fd, SHUT_RDWR);
	close(p->fd);
	p->fd = -1;
	sleep_ms(500);
	return fail(s, CCP_EPEER,
	            "rank %d: test hook (%s=close): closed the connection to "
	            "rank %d in the middle of a frame",
	            (int)s->base.rank, CCP_SOCK_ENV_FAULT, (int)r);
}

/* Write what the connection can take, several frames per call. */
static int peer_flush(struct sock_transport *s, int32_t r)
{
	struct peer *p = &s->peers[r];
	for (;;) {
		struct iovec iov[2 * BATCH];
		bool cut;
		int n = out_pieces(s, p, iov, &cut);
		if (n == 0)
			return cut ? fault_close(s, r) : 0;
		struct msghdr m;
		memset(&m, 0, sizeof m);
		m.msg_iov = iov;
		m.msg_iovlen = (size_t)n;
		ssize_t w = sendmsg(p->fd, &m, MSG_NOSIGNAL);
		if (w >= 0) {
			s->last_move = now_ms();
			out_done(s, p, (uint64_t)w);
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		const struct sreq *q =
		        p->sq_head != NO_REQ ? &s->req[p->sq_head] : NULL;
		return fail(
		        s, CCP_EPEER,
		        "rank %d: connection to rank %d lost while sending "
		        "phase %u %s: %s",
		        (int)s->base.rank, (int)r, q ? (unsigned)q->phase : 0u,
		        q ? kind_name(q->kind) : "data", strerror(errno));
	}
}

/* The pending header meets the first posted receive of the same phase
 * and kind, if there is one. */
static int peer_match(struct sock_transport *s, int32_t r)
{
	struct peer *p = &s->peers[r];
	int prev = NO_REQ, i = p->rq_head;
	while (i != NO_REQ &&
	       (s->req[i].phase != p->h_phase || s->req[i].kind != p->h_kind)) {
		prev = i;
		i = s->req[i].next;
	}
	if (i == NO_REQ)
		return 0; /* not posted yet: leave the rest in the kernel */
	struct sreq *q = &s->req[i];
	if (q->len != p->h_len)
		return fail(
		        s, CCP_EPEER,
		        "rank %d: the phase %u %s frame from rank %d has %llu "
		        "bytes, the receive posted for it %llu",
		        (int)s->base.rank, (unsigned)p->h_phase,
		        kind_name(p->h_kind), (int)r,
		        (unsigned long long)p->h_len,
		        (unsigned long long)q->len);
	if (prev == NO_REQ)
		p->rq_head = q->next;
	else
		s->req[prev].next = q->next;
	if (p->rq_tail == i)
		p->rq_tail = prev;
	q->next = NO_REQ;
	p->pending = false;
	p->hdr_got = 0;
	if (q->len == 0)
		q->complete = 1;
	else
		p->cur = i;
	return 0;
}

/* Check a whole header; keep it as the peer's pending frame. */
static int header_check(struct sock_transport *s, int32_t r)
{
	struct peer *p = &s->peers[r];
	const uint8_t *h = p->hdr;
	int me = (int)s->base.rank;
	uint32_t magic = le_get_u32(h), from = le_get_u32(h + 4);
	uint64_t hash = le_get_u64(h + 8);
	p->h_phase = le_get_u32(h + 16);
	p->h_kind = h[20];
	p->h_len = le_get_u64(h + 24);
	if (magic != CCP_SOCK_DATA_MAGIC || h[21] || h[22] || h[23] ||
	    p->h_kind > CCP_TAG_READY)
		return fail(s, CCP_EPEER,
		            "rank %d: a damaged frame from rank %d (magic "
		            "%08x, kind %u)",
		            me, (int)r, (unsigned)magic, (unsigned)p->h_kind);
	if (from != (uint32_t)r)
		return fail(s, CCP_EPEER,
		            "rank %d: a frame on rank %d's connection says it "
		            "comes from rank %u",
		            me, (int)r, (unsigned)from);
	if (hash != s->hash)
		return fail(
		        s, CCP_EMISMATCH,
		        "rank %d: the phase %u %s frame from rank %d carries "
		        "plan hash %016llx, this rank runs %016llx",
		        me, (unsigned)p->h_phase, kind_name(p->h_kind), (int)r,
		        (unsigned long long)hash, (unsigned long long)s->hash);
	p->pending = true;
	return 0;
}

static int closed_error(struct sock_transport *s, int32_t r, int err)
{
	struct peer *p = &s->peers[r];
	int me = (int)s->base.rank;
	char how[96];
	if (err)
		snprintf(how, sizeof how, "broke the connection (%s)",
		         strerror(err));
	else
		snprintf(how, sizeof how, "closed the connection");
	if (p->cur != NO_REQ) {
		const struct sreq *q = &s->req[p->cur];
		return fail(s, CCP_EPEER,
		            "rank %d: rank %d %s in the middle of a frame "
		            "(mid-frame): phase %u %s, %llu of %llu bytes "
		            "received",
		            me, (int)r, how, (unsigned)q->phase,
		            kind_name(q->kind), (unsigned long long)q->done,
		            (unsigned long long)q->len);
	}
	if (p->hdr_got)
		return fail(s, CCP_EPEER,
		            "rank %d: rank %d %s in the middle of a frame "
		            "(mid-frame): %u of %u header bytes received",
		            me, (int)r, how, (unsigned)p->hdr_got,
		            (unsigned)CCP_SOCK_FRAME_HDR);
	const struct sreq *q = &s->req[p->rq_head];
	return fail(s, CCP_EPEER,
	            "rank %d: rank %d %s while phase %u %s from it was awaited",
	            me, (int)r, how, (unsigned)q->phase, kind_name(q->kind));
}

/* Read what the connection holds for posted receives: headers, and
 * payloads straight into the receive buffers. */
static int peer_drain(struct sock_transport *s, int32_t r)
{
	struct peer *p = &s->peers[r];
	int rc;
	for (;;) {
		if (p->cur != NO_REQ) {
			struct sreq *q = &s->req[p->cur];
			ssize_t n = recv(p->fd, q->buf + q->done,
			                 (size_t)(q->len - q->done), 0);
			if (n == 0)
				return closed_error(s, r, 0);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				if (errno == EAGAIN || errno == EWOULDBLOCK)
					return 0;
				return closed_error(s, r, errno);
			}
			s->last_move = now_ms();
			q->done += (uint64_t)n;
			if (q->done == q->len) {
				q->complete = 1;
				p->cur = NO_REQ;
			}
			continue;
		}
		if (p->pending) {
			if ((rc = peer_match(s, r)) < 0)
				return rc;
			if (p->pending)
				return 0;
			continue;
		}
		if (p->rq_head == NO_REQ)
			return 0; /* nothing posted: do not read ahead */
		ssize_t n = recv(p->fd, p->hdr + p->hdr_got,
		                 CCP_SOCK_FRAME_HDR - p->hdr_got, 0);
		if (n == 0)
			return closed_error(s, r, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return closed_error(s, r, errno);
		}
		s->last_move = now_ms();
		p->hdr_got = (uint8_t)(p->hdr_got + n);
		if (p->hdr_got == CCP_SOCK_FRAME_HDR &&
		    (rc = header_check(s, r)) < 0)
			return rc;
	}
}

/* ---- accepting --------------------------------------------------------- */

/* What a data hello claims, checked before it is challenged: NULL, or
 * why the connection is dropped. */
static const char *hello_check(void *ud, const struct sw_hello *h)
{
	struct sock_transport *s = ud;
	uint32_t me = (uint32_t)s->base.rank;
	if (h->role != CCP_SOCK_ROLE_DATA)
		return "a control hello (the launcher's) on a data connection";
	if (h->size != (uint32_t)s->base.size)
		snprintf(s->check_why, sizeof s->check_why,
		         "a hello from a job of %u ranks, not %d",
		         (unsigned)h->size, (int)s->base.size);
	else if (h->to != me)
		snprintf(s->check_why, sizeof s->check_why,
		         "a hello for rank %u, not this rank", (unsigned)h->to);
	else if (h->from >= me)
		snprintf(s->check_why, sizeof s->check_why,
		         "a hello from rank %u, which this rank connects to "
		         "(the lower rank of a pair connects)",
		         (unsigned)h->from);
	else if (s->peers[h->from].state == P_UP)
		snprintf(s->check_why, sizeof s->check_why,
		         "a hello from rank %u, which is connected already",
		         (unsigned)h->from);
	else
		return NULL;
	return s->check_why;
}

/* An unauthenticated connection was dropped: remember it, so that a wait
 * that times out can say so. */
static void on_dropped(void *ud, const struct sw_pend *q, const char *why)
{
	struct sock_transport *s = ud;
	char from[SW_ADDR_TEXT];
	sw_addr_text(from, &q->sa);
	s->ndropped++;
	if (q->stage == SW_RESPONSE && q->h.from < (uint32_t)s->base.size) {
		s->peers[q->h.from].refused++;
		snprintf(s->dropped, sizeof s->dropped,
		         "from %s, claiming to be rank %u: %s", from,
		         (unsigned)q->h.from, why);
	} else {
		snprintf(s->dropped, sizeof s->dropped, "from %s: %s", from,
		         why);
	}
}

/* Unauthenticated connection k has sent something: once it has proved
 * that it knows the key (and been welcomed), it becomes the connection of
 * the rank its hello names. */
static void pend_input(struct sock_transport *s, int k)
{
	if (sw_pend_read(&s->pend, k) != SW_AUTHED)
		return;
	struct sw_pend *q = &s->pend.p[k];
	int32_t from = (int32_t)q->h.from;
	struct peer *p = &s->peers[from];
	p->fd = q->fd;
	p->state = P_UP;
	active_add(s, from);
	sw_pend_remove(&s->pend, k, NULL);
	s->last_move = now_ms();
}

static short peer_events(const struct peer *p)
{
	short ev = 0;
	if (p->fd < 0)
		return 0;
	switch (p->state) {
	case P_CONNECTING:
		return POLLOUT;
	case P_CHALLENGE:
	case P_WELCOME:
		return POLLIN;
	case P_UP:
		break;
	default:
		return 0;
	}
	if (p->sq_head != NO_REQ)
		ev |= POLLOUT;
	if (p->cur != NO_REQ || (!p->pending && p->rq_head != NO_REQ))
		ev |= POLLIN;
	return ev;
}

/* Connect again the connections lost before their welcome whose time has
 * come; the next such time, or -1. */
static int64_t retry_due(struct sock_transport *s, int *rc)
{
	int64_t now = now_ms(), next = -1;
	*rc = 0;
	for (int k = 0; k < s->nactive; k++) {
		int32_t r = s->active[k];
		struct peer *p = &s->peers[r];
		if (p->state != P_RETRY)
			continue;
		if (p->retry_at <= now) {
			if ((*rc = peer_connect(s, r)) < 0)
				return -1;
		} else if (next < 0 || p->retry_at < next) {
			next = p->retry_at;
		}
	}
	return next;
}

/* One round of progress: poll everything with work to do for at most
 * wait_ms milliseconds and do it.  Unauthenticated connections are read
 * before new ones are accepted, so that a connection that has answered
 * its challenge is not evicted by a newer one. */
static int pump(struct sock_transport *s, int wait_ms)
{
	int n = 0, rc;
	sw_pend_expire(&s->pend);
	int64_t due = retry_due(s, &rc), pdue = sw_pend_due(&s->pend);
	if (rc < 0)
		return rc;
	if (pdue >= 0 && (due < 0 || pdue < due))
		due = pdue;
	if (due >= 0) {
		int64_t left = due - now_ms();
		if (left < wait_ms)
			wait_ms = left > 0 ? (int)left : 0;
	}
	if (s->ctl >= 0) {
		s->pfd[n] = (struct pollfd){s->ctl, POLLIN, 0};
		s->who[n++] = WHO_CTL;
	}
	for (int k = 0; k < s->pend.n; k++) {
		s->pfd[n] = (struct pollfd){s->pend.p[k].fd, POLLIN, 0};
		s->who[n++] = WHO_PEND;
	}
	if (s->lfd >= 0) {
		s->pfd[n] = (struct pollfd){s->lfd, POLLIN, 0};
		s->who[n++] = WHO_LISTEN;
	}
	for (int k = 0; k < s->nactive; k++) {
		short ev = peer_events(&s->peers[s->active[k]]);
		if (!ev)
			continue;
		s->pfd[n] = (struct pollfd){s->peers[s->active[k]].fd, ev, 0};
		s->who[n++] = s->active[k];
	}
	int got = poll(s->pfd, (nfds_t)n, wait_ms);
	if (got < 0) {
		if (errno == EINTR)
			return 0;
		return fail(s, CCP_EIO, "rank %d: poll: %s", (int)s->base.rank,
		            strerror(errno));
	}
	if (got == 0)
		return 0;
	for (int k = 0; k < n; k++) {
		short re = s->pfd[k].revents;
		if (!re)
			continue;
		int32_t w = s->who[k];
		if (w == WHO_CTL) {
			if ((rc = ctl_input(s)) < 0)
				return rc;
		} else if (w == WHO_LISTEN) {
			if ((rc = sw_pend_accept(&s->pend, s->lfd)) < 0)
				return fail(s, CCP_EIO, "rank %d: accept: %s",
				            (int)s->base.rank, strerror(-rc));
		} else if (w == WHO_PEND) {
			int j = sw_pend_find(&s->pend, s->pfd[k].fd);
			if (j >= 0)
				pend_input(s, j);
		} else {
			struct peer *p = &s->peers[w];
			if (p->fd != s->pfd[k].fd)
				continue; /* connected again meanwhile */
			if (p->state == P_CONNECTING &&
			    (rc = connect_done(s, w)) < 0)
				return rc;
			if ((p->state == P_CHALLENGE || p->state == P_WELCOME) &&
			    (re & (POLLIN | POLLERR | POLLHUP)) &&
			    (rc = peer_auth(s, w)) < 0)
				return rc;
			if (p->state != P_UP)
				continue;
			if (p->sq_head != NO_REQ &&
			    (rc = peer_flush(s, w)) < 0)
				return rc;
			if ((re & (POLLIN | POLLERR | POLLHUP)) &&
			    (rc = peer_drain(s, w)) < 0)
				return rc;
		}
	}
	return 0;
}

/* ---- waiting --------------------------------------------------------- */

/* Describe what a timed-out wait was waiting for. */
static int timed_out(struct sock_transport *s, int first)
{
	int me = (int)s->base.rank;
	if (first < 0)
		return fail(
		        s, CCP_ETIMEDOUT,
		        "rank %d: no reply from the launcher for %lld ms in "
		        "a collective (agree or barrier): another rank is "
		        "late or stalled",
		        me, (long long)s->timeout_ms);
	const struct sreq *q = &s->req[first];
	const struct peer *p = &s->peers[q->peer];
	uint64_t moved = q->done; /* payload bytes moved */
	if (!q->recv)
		moved = q->done > CCP_SOCK_FRAME_HDR
		                ? q->done - CCP_SOCK_FRAME_HDR
		                : 0;
	char extra[320] = "";
	int r = (int)q->peer;
	if (p->state == P_ACCEPTING && p->refused)
		snprintf(extra, sizeof extra,
		         "; no authenticated connection from rank %d: %u "
		         "unauthenticated connections claiming to be rank %d "
		         "were dropped (the last %s)",
		         r, (unsigned)p->refused, r, s->dropped);
	else if (p->state == P_ACCEPTING && s->ndropped)
		snprintf(extra, sizeof extra,
		         "; rank %d has not connected; %llu unauthenticated "
		         "connections were dropped (the last %s)",
		         r, (unsigned long long)s->ndropped, s->dropped);
	else if (p->state == P_ACCEPTING)
		snprintf(extra, sizeof extra, "; rank %d has not connected", r);
	else if (p->state != P_UP && p->retries)
		snprintf(extra, sizeof extra,
		         "; rank %d has not accepted the connection: it was "
		         "closed %u times before its welcome (the last time: "
		         "%s)",
		         r, (unsigned)p->retries, p->lost);
	else if (p->state != P_UP)
		snprintf(extra, sizeof extra,
		         "; rank %d has not accepted the connection yet", r);
	else if (p->pending)
		snprintf(extra, sizeof extra,
		         "; its next frame is for phase %u, not posted",
		         (unsigned)p->h_phase);
	return fail(s, CCP_ETIMEDOUT,
	            "rank %d: no progress for %lld ms: phase %u %s %s rank %d "
	            "(%llu of %llu bytes)%s",
	            me, (long long)s->timeout_ms, (unsigned)q->phase,
	            kind_name(q->kind), q->recv ? "from" : "to", (int)q->peer,
	            (unsigned long long)moved, (unsigned long long)q->len,
	            extra);
}

/* Pump until requests [first, first + count) are complete. */
static int wait_reqs(struct sock_transport *s, int first, int count)
{
	int k = first, end = first + count;
	s->last_move = now_ms();
	for (;;) {
		while (k < end && s->req[k].complete)
			k++;
		if (k == end)
			return 0;
		int64_t left = s->timeout_ms - (now_ms() - s->last_move);
		if (left <= 0)
			return timed_out(s, k);
		int rc = pump(s, (int)(left > 1000 ? 1000 : left));
		if (rc < 0)
			return rc;
	}
}

/* Pump until the launcher's reply of type and seq has come. */
static int wait_reply(struct sock_transport *s, unsigned type, uint64_t seq)
{
	s->last_move = now_ms();
	for (;;) {
		if (s->have_reply) {
			s->have_reply = false;
			if (s->reply_type != type || s->reply_seq != seq)
				return fail(s, CCP_EPEER,
				            "rank %d: the launcher answered "
				            "collective %llu with the reply to "
				            "another (type %u, %llu)",
				            (int)s->base.rank,
				            (unsigned long long)seq,
				            (unsigned)s->reply_type,
				            (unsigned long long)s->reply_seq);
			return 0;
		}
		int64_t left = s->timeout_ms - (now_ms() - s->last_move);
		if (left <= 0)
			return timed_out(s, -1);
		int rc = pump(s, (int)(left > 1000 ? 1000 : left));
		/* the launcher answered, then stopped the job (the ABORT
		 * came in the same read): the answer stands, and the next
		 * call fails */
		if (rc < 0 && s->have_reply && s->reply_type == type &&
		    s->reply_seq == seq) {
			s->have_reply = false;
			return 0;
		}
		if (rc < 0)
			return rc;
	}
}

/* ---- the operations -------------------------------------------------- */

static int sk_agree(ccp_transport *t, uint64_t hash, int status, int *global)
{
	struct sock_transport *s = (struct sock_transport *)t;
	if (s->broken)
		return still_broken(s);
	if (!global)
		return fail(s, CCP_EINVAL, "agree: global is NULL");
	s->hash = hash;
	if (s->ctl < 0) {
		*global = status;
		return 0;
	}
	uint8_t b[CCP_SOCK_AGREE_LEN];
	uint64_t seq = ++s->seq;
	le_set_u64(b, seq);
	le_set_u64(b + 8, hash);
	le_set_u32(b + 16, (uint32_t)status);
	le_set_u32(b + 20, 0);
	int rc = ctl_send(s, CCP_SOCK_AGREE, b, sizeof b);
	if (rc == 0)
		rc = wait_reply(s, CCP_SOCK_AGREED, seq);
	if (rc < 0)
		return rc;
	*global = s->reply_value;
	return 0;
}

static int sk_barrier(ccp_transport *t)
{
	struct sock_transport *s = (struct sock_transport *)t;
	if (s->broken)
		return still_broken(s);
	if (s->ctl < 0)
		return 0;
	uint8_t b[CCP_SOCK_BARRIER_LEN];
	uint64_t seq = ++s->seq;
	le_set_u64(b, seq);
	int rc = ctl_send(s, CCP_SOCK_BARRIER, b, sizeof b);
	return rc < 0 ? rc : wait_reply(s, CCP_SOCK_RELEASE, seq);
}

/* A new request slot, numbered in posting order. */
static int new_req(struct sock_transport *s, int32_t peer, uint32_t phase,
                   enum ccp_tag_kind kind, size_t len, const char *what)
{
	int me = (int)s->base.rank;
	if (peer < 0 || peer >= s->base.size || peer == s->base.rank)
		return fail(s, CCP_EINVAL,
		            "rank %d: %s names peer %d (size %d)", me, what,
		            (int)peer, (int)s->base.size);
	if ((unsigned)kind > CCP_TAG_READY)
		return fail(s, CCP_EINVAL, "rank %d: %s of unknown kind %u", me,
		            what, (unsigned)kind);
	if (s->nreq == s->cap) {
		int ncap = s->cap ? 2 * s->cap : 16;
		struct sreq *q = ccp__realloc(s->base.ctx, s->req,
		                              (size_t)s->cap * sizeof *q,
		                              (size_t)ncap * sizeof *q);
		if (!q)
			return fail(s, CCP_ENOMEM, "rank %d: out of memory",
			            me);
		s->req = q;
		s->cap = ncap;
	}
	int i = s->nreq++;
	struct sreq *q = &s->req[i];
	memset(q, 0, sizeof *q);
	q->len = len;
	q->peer = peer;
	q->phase = phase;
	q->kind = (uint8_t)kind;
	q->next = NO_REQ;
	return i;
}

static int sk_irecv(ccp_transport *t, int32_t peer, uint32_t phase,
                    enum ccp_tag_kind kind, void *buf, size_t len)
{
	struct sock_transport *s = (struct sock_transport *)t;
	if (s->broken)
		return still_broken(s);
	int i = new_req(s, peer, phase, kind, len, "irecv"), rc;
	if (i < 0)
		return i;
	s->req[i].buf = buf;
	s->req[i].recv = 1;
	struct peer *p = &s->peers[peer];
	queue_push(s, &p->rq_head, &p->rq_tail, i);
	if ((rc = peer_open(s, peer)) < 0)
		return rc;
	if (p->pending && (rc = peer_match(s, peer)) < 0)
		return rc;
	return i;
}

/* Test hook: what this rank does to data frame number s->frames. */
static void fault_strike(struct sock_transport *s, struct sreq *q)
{
	switch (s->fault) {
	case FAULT_DIE:
		kill(getpid(), SIGKILL);
		break;
	case FAULT_STALL:
		sleep_ms(s->fault_ms);
		break;
	case FAULT_CLOSE:
		q->fault = FAULT_CLOSE;
		break;
	case FAULT_HASH:
		le_set_u64(q->hdr + 8, s->hash ^ UINT64_C(0x5a5a5a5a5a5a5a5a));
		break;
	case FAULT_LEN:
		le_set_u64(q->hdr + 24, q->len + 1);
		break;
	}
}

static int sk_isend(ccp_transport *t, int32_t peer, uint32_t phase,
                    enum ccp_tag_kind kind, const void *buf, size_t len)
{
	struct sock_transport *s = (struct sock_transport *)t;
	if (s->broken)
		return still_broken(s);
	int i = new_req(s, peer, phase, kind, len, "isend"), rc;
	if (i < 0)
		return i;
	struct sreq *q = &s->req[i];
	q->buf = (uint8_t *)(uintptr_t)buf;
	le_set_u32(q->hdr, CCP_SOCK_DATA_MAGIC);
	le_set_u32(q->hdr + 4, (uint32_t)s->base.rank);
	le_set_u64(q->hdr + 8, s->hash);
	le_set_u32(q->hdr + 16, phase);
	q->hdr[20] = (uint8_t)kind;
	le_set_u64(q->hdr + 24, len);
	if (kind == CCP_TAG_DATA && s->fault && ++s->frames == s->fault_frame)
		fault_strike(s, q);
	struct peer *p = &s->peers[peer];
	queue_push(s, &p->sq_head, &p->sq_tail, i);
	if ((rc = peer_open(s, peer)) < 0)
		return rc;
	/* eager: most small frames leave here, without a poll */
	if (p->state == P_UP && p->sq_head == i &&
	    (rc = peer_flush(s, peer)) < 0)
		return rc;
	return i;
}

/* 0 when the transport works and [first, first + count) were posted;
 * what names the caller in the message. */
static int usable(struct sock_transport *s, const char *what, int first,
                  int count)
{
	if (s->broken)
		return still_broken(s);
	if (first < 0 || count < 0 || first > s->nreq - count)
		return fail(s, CCP_EINVAL,
		            "rank %d: %s(%d, %d) with %d requests posted",
		            (int)s->base.rank, what, first, count, s->nreq);
	return 0;
}

static int sk_wait(ccp_transport *t, int first, int count)
{
	struct sock_transport *s = (struct sock_transport *)t;
	int rc = usable(s, "wait", first, count);
	return rc ? rc : wait_reqs(s, first, count);
}

/* One pump that does not block, then whether [first, first + count) are
 * complete.  A stalled peer is found by the next wait's timeout. */
static int sk_test(ccp_transport *t, int first, int count)
{
	struct sock_transport *s = (struct sock_transport *)t;
	int rc = usable(s, "test", first, count);
	if (rc)
		return rc;
	rc = pump(s, 0);
	if (rc < 0)
		return rc;
	for (int k = first; k < first + count; k++)
		if (!s->req[k].complete)
			return 0;
	return 1;
}

static int sk_waitall(ccp_transport *t)
{
	struct sock_transport *s = (struct sock_transport *)t;
	if (s->broken)
		return still_broken(s);
	int rc = wait_reqs(s, 0, s->nreq);
	/* a failure elsewhere, already announced, is not hidden behind a
	 * phase that happened to complete */
	if (rc == 0 && s->ctl >= 0)
		rc = pump(s, 0);
	if (rc < 0)
		return rc;
	s->nreq = 0;
	return 0;
}

static void sk_destroy(ccp_transport *t)
{
	struct sock_transport *s = (struct sock_transport *)t;
	if (!s)
		return;
	ccp_context *ctx = s->base.ctx;
	int32_t n = s->base.size;
	if (s->ctl >= 0 && s->joined) { /* leaving on purpose (best
	                                    effort) */
		uint8_t msg[CCP_SOCK_CTL_HDR];
		ctl_header(msg, CCP_SOCK_BYE, s->base.rank, 0);
		(void)!send(s->ctl, msg, sizeof msg,
		            MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	if (s->ctl >= 0)
		close(s->ctl);
	if (s->lfd >= 0)
		close(s->lfd);
	sw_pend_close_all(&s->pend);
	if (s->peers)
		for (int32_t r = 0; r < n; r++)
			if (s->peers[r].fd >= 0)
				close(s->peers[r].fd);
	ccp__free(ctx, s->peers, (size_t)n * sizeof *s->peers);
	ccp__free(ctx, s->active, (size_t)n * sizeof *s->active);
	ccp__free(ctx, s->pend.p, (size_t)s->pend.cap * sizeof *s->pend.p);
	ccp__free(ctx, s->pfd, (size_t)s->npoll * sizeof *s->pfd);
	ccp__free(ctx, s->who, (size_t)s->npoll * sizeof *s->who);
	ccp__free(ctx, s->req, (size_t)s->cap * sizeof *s->req);
	sw_wipe(s->key, sizeof s->key);
	if (s->coord) { /* rank 0 of a job ccplan run did not start: its
	                   coordinator serves the others until they end */
		if (!s->made) /* it never served the job: end it now */
			sock_coord_stop(s->coord);
		pthread_join(s->coord_thread, NULL);
		sock_coord_free(s->coord);
	}
	ccp__free(ctx, s, sizeof *s);
}

static const struct ccp_transport_ops sock_ops = {
        .name = "sockets",
        .agree = sk_agree,
        .barrier = sk_barrier,
        .irecv = sk_irecv,
        .isend = sk_isend,
        .wait = sk_wait,
        .test = sk_test,
        .waitall = sk_waitall,
        .destroy = sk_destroy,
};

/* ---- making the transport -------------------------------------------- */

/* A decimal integer in [lo, hi] from the environment; def when unset. */
static int env_int(ccp_context *ctx, const char *name, long long lo,
                   long long hi, long long def, long long *out)
{
	const char *v = getenv(name);
	*out = def;
	if (!v)
		return 0;
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || end == v || *end || x < lo || x > hi)
		return ccp__error(
		        ctx, CCP_EINVAL,
		        "%s='%s': expected an integer from %lld to %lld", name,
		        v, lo, hi);
	*out = x;
	return 0;
}

/* CCPLAN_SOCKETS_FAULT=KIND:RANK:FRAME[:MS] (test hook). */
static int parse_fault(struct sock_transport *s)
{
	const char *v = getenv(CCP_SOCK_ENV_FAULT);
	if (!v || !*v)
		return 0;
	static const char *const kinds[] = {"",      "die",  "stall",
	                                    "close", "hash", "len"};
	char kind[16];
	long long rank = -1, frame = 0, ms = 0;
	int n = sscanf(v, "%15[a-z]:%lld:%lld:%lld", kind, &rank, &frame, &ms);
	int k = 0;
	for (int i = 1; i <= FAULT_LEN && n >= 3; i++)
		if (strcmp(kind, kinds[i]) == 0)
			k = i;
	if (n < 3 || !k || frame < 1 || ms < 0 || ms > 3600000 ||
	    (k == FAULT_STALL && n < 4))
		return ccp__error(s->base.ctx, CCP_EINVAL,
		                  "%s='%s': expected KIND:RANK:FRAME[:MS] with "
		                  "KIND die, stall, close, hash or len",
		                  CCP_SOCK_ENV_FAULT, v);
	if (rank == s->base.rank) {
		s->fault = k;
		s->fault_frame = (uint64_t)frame;
		s->fault_ms = (uint32_t)ms;
	}
	return 0;
}

/* Read exactly n bytes of a non-blocking socket before the deadline:
 * 0, -ECONNRESET when the other side closed it, -ETIMEDOUT, or -errno. */
static int read_full(int fd, uint8_t *buf, size_t n, int64_t deadline)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = recv(fd, buf + got, n - got, 0);
		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		if (r == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return errno == EPIPE ? -ECONNRESET : -errno;
		int64_t left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, (int)(left > 1000 ? 1000 : left)) < 0 &&
		    errno != EINTR)
			return -errno;
	}
	return 0;
}

/* Read exactly n control bytes before the deadline (wire-up only). */
static int ctl_read_exact(struct sock_transport *s, uint8_t *buf, size_t n,
                          int64_t deadline)
{
	int e = read_full(s->ctl, buf, n, deadline), me = (int)s->base.rank;
	if (e == -ECONNRESET)
		return fail_quiet(s, CCP_EPEER,
		                  "rank %d: the launcher closed the control "
		                  "connection during the wire-up",
		                  me);
	if (e == -ETIMEDOUT)
		return fail_quiet(s, CCP_ETIMEDOUT,
		                  "rank %d: the other ranks did not all reach "
		                  "the launcher within %lld ms",
		                  me, (long long)s->timeout_ms);
	if (e)
		return fail_quiet(s, CCP_EPEER,
		                  "rank %d: control connection: %s", me,
		                  strerror(-e));
	return 0;
}

/* Open the control connection to the launcher at a; the first time, also
 * this rank's listening socket, on the address that faces the launcher
 * (loopback in a local job). */
static int ctl_connect(struct sock_transport *s, const struct sockaddr_in *a,
                       const char *addr, int64_t deadline)
{
	int me = (int)s->base.rank;
	if ((s->ctl = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    sock_setup(s->ctl, true) < 0)
		return fail_quiet(s, CCP_EIO, "rank %d: socket: %s", me,
		                  strerror(errno));
	if (connect(s->ctl, (const struct sockaddr *)a, sizeof *a) < 0) {
		if (errno != EINPROGRESS && errno != EINTR)
			return fail_quiet(
			        s, CCP_EPEER,
			        "rank %d: cannot reach the launcher at "
			        "%s: %s",
			        me, addr, strerror(errno));
		struct pollfd p = {s->ctl, POLLOUT, 0};
		int64_t left = deadline - now_ms();
		int err = 0;
		socklen_t el = sizeof err;
		if (poll(&p, 1, (int)(left > 0 ? left : 0)) <= 0)
			err = ETIMEDOUT;
		else if (getsockopt(s->ctl, SOL_SOCKET, SO_ERROR, &err, &el) <
		         0)
			err = errno;
		if (err)
			return fail_quiet(
			        s, err == ETIMEDOUT ? CCP_ETIMEDOUT : CCP_EPEER,
			        "rank %d: cannot reach the launcher at "
			        "%s: %s",
			        me, addr, strerror(err));
	}
	if (s->lfd >= 0)
		return 0;
	struct sockaddr_in l;
	socklen_t ll = sizeof l;
	if (getsockname(s->ctl, (struct sockaddr *)&l, &ll) < 0)
		return fail_quiet(s, CCP_EIO, "rank %d: getsockname: %s", me,
		                  strerror(errno));
	l.sin_port = 0;
	if ((s->lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    sock_setup(s->lfd, false) < 0 ||
	    bind(s->lfd, (struct sockaddr *)&l, sizeof l) < 0 ||
	    listen(s->lfd, SOMAXCONN) < 0 ||
	    getsockname(s->lfd, (struct sockaddr *)&l, &ll) < 0)
		return fail_quiet(s, CCP_EIO,
		                  "rank %d: cannot listen for peers: %s", me,
		                  strerror(errno));
	s->laddr = l;
	return 0;
}

/* Say hello to the launcher and authenticate (sock_wire.h): 0, 1 when
 * the launcher closed the connection before its welcome (evicted, or
 * dropped after CCP_SOCK_AUTH_MS: connect again; lost says how), or a
 * negative code. */
static int ctl_handshake(struct sock_transport *s, const char *addr,
                         int64_t deadline, char *lost, size_t lostlen)
{
	int me = (int)s->base.rank;
	struct sw_hello h;
	memset(&h, 0, sizeof h);
	h.version = CCP_SOCK_VERSION;
	h.role = CCP_SOCK_ROLE_CONTROL;
	h.from = (uint32_t)me;
	h.to = CCP_SOCK_LAUNCHER;
	h.size = (uint32_t)s->base.size;
	h.pid = (uint32_t)getpid();
	memcpy(h.addr, &s->laddr.sin_addr, 4);
	h.port = ntohs(s->laddr.sin_port);
	uint8_t hello[CCP_SOCK_HELLO_LEN], chal[CCP_SOCK_CHAL_LEN];
	uint8_t resp[CCP_SOCK_RESP_LEN], welc[CCP_SOCK_WELC_LEN];
	sw_hello_pack(hello, &h);
	int e = ctl_write(s, hello, sizeof hello);
	if (!e && !(e = read_full(s->ctl, chal, sizeof chal, deadline))) {
		if (!sw_respond(resp, chal, s->key, hello))
			return fail_quiet(
			        s, CCP_EPEER,
			        "rank %d: what listens at %s did not prove "
			        "that it knows the job key (bad challenge): "
			        "not this job's launcher",
			        me, addr);
		e = ctl_write(s, resp, sizeof resp);
		if (!e)
			e = read_full(s->ctl, welc, sizeof welc, deadline);
	}
	if (e == -ECONNRESET || e == -EPIPE) {
		snprintf(lost, lostlen, "%s",
		         "the launcher closed it before its welcome");
		return 1;
	}
	if (e == -ETIMEDOUT)
		return fail_quiet(s, CCP_ETIMEDOUT,
		                  "rank %d: the launcher at %s did not finish "
		                  "the handshake within %lld ms",
		                  me, addr, (long long)s->timeout_ms);
	if (e)
		return fail_quiet(s, CCP_EPEER,
		                  "rank %d: cannot reach the launcher at %s: %s",
		                  me, addr, strerror(-e));
	if (!sw_welcome_ok(welc))
		return fail_quiet(s, CCP_EPEER,
		                  "rank %d: the launcher at %s sent a damaged "
		                  "welcome",
		                  me, addr);
	s->joined = true;
	return 0;
}

/* Connect to the launcher, listen for peers on the address that faces
 * it, authenticate, and read the table of every rank's address. */
static int wire_up(struct sock_transport *s, const char *addr)
{
	int me = (int)s->base.rank;
	char host[64];
	unsigned port = 0;
	const char *colon = strrchr(addr, ':');
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	if (!colon || (size_t)(colon - addr) >= sizeof host ||
	    sscanf(colon + 1, "%u", &port) != 1 || port == 0 || port > 65535)
		return fail_quiet(s, CCP_EINVAL, "%s='%s': expected IPv4:port",
		                  CCP_SOCK_ENV_ADDR, addr);
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
		return fail_quiet(s, CCP_EINVAL, "%s='%s': expected IPv4:port",
		                  CCP_SOCK_ENV_ADDR, addr);
	a.sin_port = htons((uint16_t)port);
	int64_t deadline = now_ms() + s->timeout_ms;

	/* a connection the launcher closes before its welcome is opened
	 * again: the launcher evicts unauthenticated connections when
	 * strangers fill its table */
	char lost[96] = "";
	int rc;
	for (unsigned tries = 1;; tries++) {
		if ((rc = ctl_connect(s, &a, addr, deadline)) < 0 ||
		    (rc = ctl_handshake(s, addr, deadline, lost,
		                        sizeof lost)) <= 0)
			break;
		close(s->ctl);
		s->ctl = -1;
		uint32_t pause = tries < 6 ? 10u << tries : 640u;
		if (now_ms() + pause >= deadline)
			return fail_quiet(s, CCP_ETIMEDOUT,
			                  "rank %d: the launcher at %s closed "
			                  "this rank's connection %u times "
			                  "within %lld ms (the last time: %s)",
			                  me, addr, tries,
			                  (long long)s->timeout_ms, lost);
		sleep_ms(pause);
	}
	if (rc < 0)
		return rc;

	/* the table, or the news that the job is over */
	uint8_t h[CCP_SOCK_CTL_HDR];
	if ((rc = ctl_read_exact(s, h, sizeof h, deadline)) < 0)
		return rc;
	uint16_t type = le_get_u16(h + 4);
	uint32_t len = le_get_u32(h + 12);
	if (le_get_u32(h) == CCP_SOCK_CTL_MAGIC && type == CCP_SOCK_ABORT &&
	    len == CCP_SOCK_ABORT_LEN) {
		uint8_t body[CCP_SOCK_ABORT_LEN];
		if ((rc = ctl_read_exact(s, body, sizeof body, deadline)) < 0)
			return rc;
		return on_abort(s, (int32_t)le_get_u32(h + 8), body);
	}
	if (le_get_u32(h) != CCP_SOCK_CTL_MAGIC || type != CCP_SOCK_TABLE ||
	    len != (uint32_t)s->base.size * CCP_SOCK_ENTRY_LEN)
		return fail_quiet(s, CCP_EPEER,
		                  "rank %d: the launcher sent a damaged table "
		                  "(type %u, %u bytes for %d ranks)",
		                  me, (unsigned)type, (unsigned)len,
		                  (int)s->base.size);
	for (int32_t r = 0; r < s->base.size; r++) {
		uint8_t ent[CCP_SOCK_ENTRY_LEN];
		if ((rc = ctl_read_exact(s, ent, sizeof ent, deadline)) < 0)
			return rc;
		memcpy(s->peers[r].addr, ent, 4);
		s->peers[r].port = le_get_u16(ent + 4);
	}
	return 0;
}

/* The job's key, read from the descriptor CCPLAN_RUN_KEY_FD names (a
 * pipe from ccplan run, or ssh's input on a remote host), which is then
 * closed: the key is never in the environment or a command line. */
static int read_key(struct sock_transport *s)
{
	ccp_context *ctx = s->base.ctx;
	long long fd;
	int rc = env_int(ctx, CCP_SOCK_ENV_KEY_FD, 0, INT_MAX, -1, &fd);
	if (rc < 0)
		return rc;
	char buf[CCP_SOCK_KEY_HEX + 2];
	size_t got = 0;
	int64_t deadline = now_ms() + s->timeout_ms;
	int err = 0;
	while (got < sizeof buf && !memchr(buf, '\n', got)) {
		struct pollfd p = {(int)fd, POLLIN, 0};
		int64_t left = deadline - now_ms();
		int pr = poll(&p, 1, (int)(left > 0 ? left : 0));
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0 || (p.revents & POLLNVAL)) {
			err = pr == 0 ? ETIMEDOUT : pr < 0 ? errno : EBADF;
			break;
		}
		ssize_t r = read((int)fd, buf + got, sizeof buf - got);
		if (r == 0)
			break;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = errno;
			break;
		}
		got += (size_t)r;
	}
	if (err != EBADF)
		close((int)fd);
	rc = 0;
	if (err)
		rc = ccp__error(ctx, CCP_EINVAL,
		                "%s=%lld: cannot read the job key: %s (it is "
		                "read once: one sockets transport per process)",
		                CCP_SOCK_ENV_KEY_FD, fd, strerror(err));
	else if (sw_key_parse(s->key, buf, got) < 0)
		rc = ccp__error(ctx, CCP_EINVAL,
		                "%s=%lld: expected the job key (64 hex digits "
		                "and a newline), got %zu bytes",
		                CCP_SOCK_ENV_KEY_FD, fd, got);
	sw_wipe(buf, sizeof buf);
	return rc;
}

/* ---- jobs ccplan run did not start ------------------------------------ */

/* What the launcher that started this process (srun, mpirun, mpiexec)
 * says about it. */
struct started {
	long long rank, size;
	char job[96];   /* the job's file name in the rendezvous directory */
	bool one_node;  /* every rank on this host: loopback will do */
	const char *by; /* which launcher's variables */
};

/* The launchers whose variables give a rank and a size, in the order
 * they are looked for, with what names the job (two variables joined by
 * a dot; CCPLAN_JOB_ID instead when set, and needed for PMI) and, where
 * known, how many ranks share this host. */
static const struct launcher_vars {
	const char *by, *rank, *size, *job, *job2, *local, *nodes;
} launchers[] = {
        {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_JOB_ID",
         "SLURM_STEP_ID", NULL, "SLURM_STEP_NUM_NODES"},
        {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
         "PMIX_NAMESPACE", NULL, "OMPI_COMM_WORLD_LOCAL_SIZE", NULL},
        {"PMI", "PMI_RANK", "PMI_SIZE", NULL, NULL, "MPI_LOCALNRANKS", NULL},
};

/* 1 with *st when a launcher's variables are set, 0 when none is, or a
 * negative code for variables that make no sense. */
static int started_by(ccp_context *ctx, struct started *st)
{
	memset(st, 0, sizeof *st);
	const struct launcher_vars *l = NULL;
	for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++)
		if (getenv(launchers[i].size) && getenv(launchers[i].rank)) {
			l = &launchers[i];
			break;
		}
	if (!l)
		return 0;
	int rc;
	if ((rc = env_int(ctx, l->size, 1, 1 << 20, 1, &st->size)) < 0 ||
	    (rc = env_int(ctx, l->rank, 0, st->size - 1, 0, &st->rank)) < 0)
		return rc;
	st->by = l->by;
	const char *id = getenv(CCP_SOCK_ENV_JOB);
	const char *a = id ? id : l->job ? getenv(l->job) : NULL;
	const char *b = id || !l->job2 ? NULL : getenv(l->job2);
	if (!a || !*a)
		return ccp__error(ctx, CCP_EINVAL,
		                  "started by %s (%s=%lld, %s=%lld) but %s "
		                  "is not set: every rank must set it to the "
		                  "same name, unique to the job",
		                  l->by, l->rank, st->rank, l->size, st->size,
		                  l->job && !id ? l->job : CCP_SOCK_ENV_JOB);
	snprintf(st->job, sizeof st->job, "%s%s%s", a, b ? "." : "",
	         b ? b : "");
	for (char *c = st->job; *c; c++) /* a file name, not a path */
		if (!(*c >= '0' && *c <= '9') && !(*c >= 'a' && *c <= 'z') &&
		    !(*c >= 'A' && *c <= 'Z') && *c != '.' && *c != '-')
			*c = '_';
	long long v;
	if (l->local && env_int(ctx, l->local, 1, st->size, 0, &v) == 0)
		st->one_node = v == st->size;
	else if (l->nodes && env_int(ctx, l->nodes, 1, 1 << 20, 0, &v) == 0)
		st->one_node = v == 1;
	ccp__ok(ctx);
	return 1;
}

/* The rendezvous file of job st: CCPLAN_RENDEZVOUS/JOB, or
 * $HOME/.ccplan/rendezvous/JOB; the directories are made (0700) when
 * missing. */
static int rdv_path(struct sock_transport *s, const struct started *st)
{
	ccp_context *ctx = s->base.ctx;
	const char *dir = getenv(CCP_SOCK_ENV_RENDEZVOUS), *home;
	char d[PATH_MAX];
	if (dir && *dir)
		snprintf(d, sizeof d, "%s", dir);
	else if ((home = getenv("HOME")) && *home)
		snprintf(d, sizeof d, "%s/.ccplan/rendezvous", home);
	else
		return ccp__error(ctx, CCP_EINVAL,
		                  "neither %s nor HOME is set: no rendezvous "
		                  "directory for a job started by %s",
		                  CCP_SOCK_ENV_RENDEZVOUS, st->by);
	for (char *c = d + 1;; c++) /* mkdir -p, 0700 */
		if (*c == '/' || *c == '\0') {
			char keep = *c;
			*c = '\0';
			if (mkdir(d, 0700) < 0 && errno != EEXIST)
				return ccp__error(ctx, CCP_EIO,
				                  "rendezvous directory %s: %s", d,
				                  strerror(errno));
			*c = keep;
			if (!keep)
				break;
		}
	if ((size_t)snprintf(s->rdv, sizeof s->rdv, "%s/%s", d, st->job) >=
	    sizeof s->rdv)
		return ccp__error(ctx, CCP_EINVAL, "rendezvous path too long");
	return 0;
}

/* Rank 0: start the coordinator thread and publish where it listens and
 * the job's key, in a file only this user may read (written aside, then
 * renamed, so no rank reads half of it).  *addr gets the address. */
static int rdv_publish(struct sock_transport *s, const struct started *st,
                       char *addr, size_t addrlen)
{
	ccp_context *ctx = s->base.ctx;
	if (sock_coord_open(&s->coord, (int)st->size, s->timeout_ms,
	                    !st->one_node, s->rdv, addr, addrlen, s->key) < 0)
		return ccp__error(ctx, CCP_EIO,
		                  "rank 0 cannot start the job's coordinator "
		                  "(see stderr)");
	if (pthread_create(&s->coord_thread, NULL, sock_coord_serve,
	                   s->coord) != 0) {
		sock_coord_free(s->coord);
		s->coord = NULL;
		return ccp__error(ctx, CCP_EIO,
		                  "rank 0 cannot start the coordinator thread");
	}
	char tmp[PATH_MAX + 32], hex[CCP_SOCK_KEY_HEX];
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", s->rdv, (long)getpid());
	sw_key_hex(hex, s->key);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	char text[256 + CCP_SOCK_KEY_HEX];
	int len = snprintf(text, sizeof text, "%s\n%s\n%s\n", RDV_MAGIC, addr,
	                   hex);
	sw_wipe(hex, sizeof hex);
	bool ok = fd >= 0 && write(fd, text, (size_t)len) == len &&
	          fsync(fd) == 0;
	int err = errno;
	sw_wipe(text, sizeof text);
	if (fd >= 0)
		close(fd);
	if (!ok || rename(tmp, s->rdv) < 0) {
		err = ok ? errno : err;
		unlink(tmp);
		return ccp__error(ctx, CCP_EIO, "rendezvous file %s: %s",
		                  s->rdv, strerror(err));
	}
	return 0;
}

/* Another rank: the address and key rank 0 published, once the file
 * exists and is whole.  1 with them, 0 when it is not there yet, -1 when
 * what is there is not a rendezvous file (read again until the timeout:
 * rank 0 replaces it). */
static int rdv_read(struct sock_transport *s, char *addr, size_t addrlen)
{
	char text[256 + CCP_SOCK_KEY_HEX];
	int fd = open(s->rdv, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	int got = -1;
	if (n > 0) {
		text[n] = '\0';
		char *a = strchr(text, '\n'), *k = a ? strchr(a + 1, '\n') : NULL;
		if (a && k && (size_t)(a - text) == strlen(RDV_MAGIC) &&
		    !memcmp(text, RDV_MAGIC, strlen(RDV_MAGIC)) &&
		    (size_t)(k - a - 1) < addrlen &&
		    sw_key_parse(s->key, k + 1, (size_t)(text + n - k - 1)) ==
		            0) {
			memcpy(addr, a + 1, (size_t)(k - a - 1));
			addr[k - a - 1] = '\0';
			got = 1;
		}
	}
	sw_wipe(text, sizeof text);
	return got;
}

/* Wire up a job ccplan run did not start: rank 0 serves it and
 * publishes the rendezvous file; every rank (rank 0 too) then connects
 * as under ccplan run.  A file left by an earlier job of the same name
 * may be read before rank 0 replaces it: a rank that cannot reach or
 * authenticate what it names reads the file again, until the timeout. */
static int rdv_wire_up(struct sock_transport *s, const struct started *st)
{
	ccp_context *ctx = s->base.ctx;
	char addr[80], tried[80] = "";
	int rc = rdv_path(s, st);
	if (rc < 0)
		return rc;
	if (st->rank == 0)
		return (rc = rdv_publish(s, st, addr, sizeof addr)) < 0
		               ? rc
		               : wire_up(s, addr);
	int64_t deadline = now_ms() + s->timeout_ms;
	int seen = 0; /* the last read: 1 a file, -1 not one, 0 none */
	for (;;) {
		if ((seen = rdv_read(s, addr, sizeof addr)) == 1 &&
		    strcmp(addr, tried)) {
			if ((rc = wire_up(s, addr)) != CCP_EPEER ||
			    s->joined)
				return rc;
			snprintf(tried, sizeof tried, "%s", addr);
			close(s->ctl);
			s->ctl = -1;
			s->broken = 0; /* a stale file: not this job's */
		}
		if (now_ms() >= deadline)
			break;
		sleep_ms(RDV_POLL_MS);
	}
	if (tried[0])
		return rc;
	if (seen < 0)
		return ccp__error(ctx, CCP_ETIMEDOUT,
		                  "rank %lld of a job started by %s: %s is not "
		                  "a rendezvous file (no '%s' first line, "
		                  "address and key), and rank 0 did not replace "
		                  "it within %lld ms",
		                  st->rank, st->by, s->rdv, RDV_MAGIC,
		                  (long long)s->timeout_ms);
	return ccp__error(ctx, CCP_ETIMEDOUT,
	                  "rank %lld of a job started by %s: no rendezvous "
	                  "file %s within %lld ms (rank 0 writes it when it "
	                  "makes its transport; every host must see the "
	                  "directory: set %s to one they share)",
	                  st->rank, st->by, s->rdv, (long long)s->timeout_ms,
	                  CCP_SOCK_ENV_RENDEZVOUS);
}

int ccp_socket_transport(ccp_context *ctx, const ccp_socket_options *opt,
                         ccp_transport **out)
{
	if (!ctx || !out)
		return CCP_EINVAL;
	*out = NULL;
	long long rank, size, tmo;
	int rc;
	if ((rc = env_int(ctx, CCP_SOCK_ENV_SIZE, 1, 1 << 20, 0, &size)) < 0 ||
	    (rc = env_int(ctx, CCP_SOCK_ENV_RANK, 0, size ? size - 1 : 0, -1,
	                  &rank)) < 0 ||
	    (rc = env_int(ctx, CCP_SOCK_ENV_TIMEOUT, 1, 86400000,
	                  CCP_SOCK_TIMEOUT_DEFAULT, &tmo)) < 0)
		return rc;
	const char *addr = getenv(CCP_SOCK_ENV_ADDR);
	struct started st;
	bool rdv = false; /* started by srun, mpirun, ...: a rendezvous */
	if (size == 0 && (rc = started_by(ctx, &st)) < 0)
		return rc;
	if (size == 0 && rc == 1 && st.size > 1) {
		size = st.size;
		rank = st.rank;
		addr = NULL;
		rdv = true;
	} else if (size == 0) { /* not started by a launcher: alone */
		size = 1;
		rank = 0;
		addr = NULL;
	} else if (rank < 0 || !addr || !getenv(CCP_SOCK_ENV_KEY_FD))
		return ccp__error(
		        ctx, CCP_EINVAL,
		        "%s, %s, %s and %s must all be set (start the "
		        "program with ccplan run)",
		        CCP_SOCK_ENV_SIZE, CCP_SOCK_ENV_RANK, CCP_SOCK_ENV_ADDR,
		        CCP_SOCK_ENV_KEY_FD);
	if (opt && opt->timeout_ms)
		tmo = opt->timeout_ms;
	if ((addr || rdv) && sw_init() < 0)
		return ccp__error(ctx, CCP_EIO,
		                  "libsodium cannot start (no source of "
		                  "randomness)");

	struct sock_transport *s = ccp__calloc(ctx, 1, sizeof *s);
	if (!s)
		return ccp__error(ctx, CCP_ENOMEM, "out of memory");
	s->base.ops = &sock_ops;
	s->base.ctx = ctx;
	s->base.rank = (int32_t)rank;
	s->base.size = (int32_t)size;
	s->ctl = s->lfd = -1;
	s->timeout_ms = tmo;
	size_t n = (size_t)size;
	s->pend.cap = addr || rdv ? (int)n + CCP_SOCK_PEND_SLACK : 0;
	s->pend.key = s->key;
	s->pend.check = hello_check;
	s->pend.dropped = on_dropped;
	s->pend.ud = s;
	s->npoll = 2 + (int)n + s->pend.cap;
	s->peers = ccp__calloc(ctx, n, sizeof *s->peers);
	s->active = ccp__calloc(ctx, n, sizeof *s->active);
	s->pend.p = s->pend.cap ? ccp__calloc(ctx, (size_t)s->pend.cap,
	                                      sizeof *s->pend.p)
	                        : NULL;
	s->pfd = ccp__calloc(ctx, (size_t)s->npoll, sizeof *s->pfd);
	s->who = ccp__calloc(ctx, (size_t)s->npoll, sizeof *s->who);
	if (!s->peers || !s->active || (s->pend.cap && !s->pend.p) ||
	    !s->pfd || !s->who) {
		sk_destroy(&s->base);
		return ccp__error(ctx, CCP_ENOMEM, "out of memory");
	}
	for (size_t r = 0; r < n; r++) {
		struct peer *p = &s->peers[r];
		p->fd = -1;
		p->sq_head = p->sq_tail = p->rq_head = p->rq_tail = NO_REQ;
		p->cur = NO_REQ;
	}
	if ((rc = parse_fault(s)) < 0 || (addr && (rc = read_key(s)) < 0) ||
	    (addr && (rc = wire_up(s, addr)) < 0) ||
	    (rdv && (rc = rdv_wire_up(s, &st)) < 0)) {
		/* no FAIL to the launcher: it sees this rank exit */
		sk_destroy(&s->base);
		return rc;
	}
	s->made = true;
	ccp__ok(ctx);
	*out = &s->base;
	return 0;
}
