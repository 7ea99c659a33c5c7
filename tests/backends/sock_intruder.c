/*
 * sock_intruder.c - a stranger attacking a job of the sockets transport,
 * for tests/backends/sockets_test.sh (part security).  It knows what any
 * local user can learn (the launcher's and the ranks' addresses, the plan
 * file) but not the job's key.
 *
 *   sock_intruder idle N SECONDS ADDR:PORT...
 *       Hold N idle connections to each address (connect, send nothing),
 *       opening a new one 100 ms after the job closes one, for SECONDS or
 *       until SIGTERM.  Exit 0.
 *   sock_intruder inject HOW ROLE ADDR:PORT FROM TO SIZE PLAN PHASE BYTES
 *       Say hello as rank FROM to TO (the launcher for ROLE control) of a
 *       job of SIZE ranks and try to get in: HOW v1-wrongkey or v1-nokey
 *       (the hello of the first protocol, which carried the key, with a
 *       random key or none), wrongkey (the handshake answered with a MAC
 *       under a random key), nokey (no answer to the challenge: what
 *       follows the hello comes at once).  A data connection then sends
 *       a frame of BYTES bytes of 0xee for PHASE with PLAN's hash, a
 *       control connection an AGREE.  Waits up to 20 s.  Exit 0 when the
 *       job closed the connection without taking it, 1 when it took it
 *       (a welcome, a table, or no close), 2 on a usage error.
 *   sock_intruder impostor PORTFILE KEYFILE SECONDS
 *       Listen on 127.0.0.1 as if it were the launcher (the port goes to
 *       PORTFILE), take one rank's connection, challenge its hello with a
 *       MAC under a random key, and look for the job key (KEYFILE: 64 hex
 *       digits) in every byte the rank sent: raw, as hex, or its first 8
 *       bytes as the integer of the first protocol.  Exit 0 when it is
 *       not there, 1 when it is.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ccplan.h"
#include "le.h"
#include "sock_wire.h"

#define WAIT_MS 20000

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int parse_addr(const char *s, struct sockaddr_in *a)
{
	char host[64];
	unsigned port;
	const char *colon = strrchr(s, ':');
	if (!colon || (size_t)(colon - s) >= sizeof host ||
	    sscanf(colon + 1, "%u", &port) != 1 || port == 0 || port > 65535)
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	memset(a, 0, sizeof *a);
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
}

/* A non-blocking connection to a in progress, or -1. */
static int dial(const struct sockaddr_in *a)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if (connect(fd, (const struct sockaddr *)a, sizeof *a) < 0 &&
	    errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- idle ---------------------------------------------------------------- */

static int idle(int n, int seconds, int naddr, char **addrs)
{
	int total = n * naddr;
	struct sockaddr_in *a = calloc((size_t)naddr, sizeof *a);
	struct pollfd *p = calloc((size_t)total, sizeof *p);
	int64_t *again = calloc((size_t)total, sizeof *again);
	if (!a || !p || !again)
		return 2;
	for (int k = 0; k < naddr; k++)
		if (parse_addr(addrs[k], &a[k]) < 0) {
			fprintf(stderr, "sock_intruder: bad address %s\n",
			        addrs[k]);
			return 2;
		}
	long opened = 0, closed = 0;
	for (int i = 0; i < total; i++) {
		p[i].fd = dial(&a[i / n]);
		p[i].events = POLLIN;
		opened += p[i].fd >= 0;
	}
	int64_t end = now_ms() + (int64_t)seconds * 1000;
	while (!stop && now_ms() < end) {
		int64_t now = now_ms();
		for (int i = 0; i < total; i++)
			if (p[i].fd < 0 && now >= again[i]) {
				p[i].fd = dial(&a[i / n]);
				opened += p[i].fd >= 0;
				again[i] = now + 100;
			}
		if (poll(p, (nfds_t)total, 50) <= 0)
			continue;
		for (int i = 0; i < total; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			char b[256];
			if (recv(p[i].fd, b, sizeof b, 0) > 0)
				continue; /* whatever it says: stay idle */
			close(p[i].fd);
			p[i].fd = -1;
			again[i] = now_ms() + 100;
			closed++;
		}
	}
	printf("idle: %d connections held to each of %d addresses: %ld "
	       "opened, %ld closed by the job\n",
	       n, naddr, opened, closed);
	return 0;
}

/* ---- inject -------------------------------------------------------------- */

/* Wait for up to n bytes or the close; returns bytes read (0: closed at
 * once), or -1 when nothing happened within ms. */
static ssize_t wait_read(int fd, uint8_t *buf, size_t n, int ms)
{
	size_t got = 0;
	int64_t end = now_ms() + ms;
	while (got < n) {
		int64_t left = end - now_ms();
		struct pollfd p = {fd, POLLIN, 0};
		if (left <= 0 || poll(&p, 1, (int)left) == 0)
			return got ? (ssize_t)got : -1;
		ssize_t r = recv(fd, buf + got, n - got, 0);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			return (ssize_t)got;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static int send_all(int fd, const uint8_t *b, size_t n)
{
	size_t off = 0;
	while (off < n) {
		ssize_t w = send(fd, b + off, n - off, MSG_NOSIGNAL);
		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd p = {fd, POLLOUT, 0};
			poll(&p, 1, 100);
			continue;
		}
		if (w <= 0)
			return -1; /* closed on us: refused */
		off += (size_t)w;
	}
	return 0;
}

/* What follows the hello: a data frame, or an AGREE. */
static size_t payload(uint8_t *out, size_t cap, int control, uint32_t from,
                      uint64_t hash, uint32_t phase, uint32_t bytes)
{
	if (control) {
		le_set_u32(out, CCP_SOCK_CTL_MAGIC);
		le_set_u16(out + 4, CCP_SOCK_AGREE);
		le_set_u16(out + 6, 0);
		le_set_u32(out + 8, from);
		le_set_u32(out + 12, CCP_SOCK_AGREE_LEN);
		memset(out + 16, 0, CCP_SOCK_AGREE_LEN);
		le_set_u64(out + 16, 1);
		le_set_u64(out + 24, hash);
		return 16 + CCP_SOCK_AGREE_LEN;
	}
	if (CCP_SOCK_FRAME_HDR + (size_t)bytes > cap)
		bytes = (uint32_t)(cap - CCP_SOCK_FRAME_HDR);
	memset(out, 0, CCP_SOCK_FRAME_HDR);
	le_set_u32(out, CCP_SOCK_DATA_MAGIC);
	le_set_u32(out + 4, from);
	le_set_u64(out + 8, hash);
	le_set_u32(out + 16, phase);
	le_set_u64(out + 24, bytes);
	memset(out + CCP_SOCK_FRAME_HDR, 0xee, bytes);
	return CCP_SOCK_FRAME_HDR + bytes;
}

static int inject(char **v)
{
	const char *how = v[0];
	int control = !strcmp(v[1], "control");
	struct sockaddr_in a;
	uint32_t from = (uint32_t)atoi(v[3]), to = (uint32_t)atoi(v[4]);
	uint32_t size = (uint32_t)atoi(v[5]), phase = (uint32_t)atoi(v[7]);
	uint32_t bytes = (uint32_t)atoi(v[8]);
	int v1 = !strncmp(how, "v1-", 3);
	int nokey = !strcmp(how, "nokey") || !strcmp(how, "v1-nokey");
	if (parse_addr(v[2], &a) < 0 || (!control && strcmp(v[1], "data")) ||
	    (strcmp(how, "v1-wrongkey") && strcmp(how, "v1-nokey") &&
	     strcmp(how, "wrongkey") && strcmp(how, "nokey"))) {
		fprintf(stderr, "sock_intruder: bad inject arguments\n");
		return 2;
	}
	/* the plan's hash: anyone who can read the plan file knows it */
	ccp_context *ctx;
	ccp_plan *plan;
	ccp_plan_info info;
	if (ccp_init(&ctx, NULL, NULL) ||
	    ccp_plan_load_file(ctx, v[6], 0, &plan) ||
	    ccp_plan_get_info(plan, &info)) {
		fprintf(stderr, "sock_intruder: cannot read %s\n", v[6]);
		return 2;
	}
	uint64_t hash = info.plan_hash;
	ccp_plan_free(plan);
	ccp_fini(ctx);
	if (sw_init() < 0)
		return 2;

	static uint8_t out[CCP_SOCK_FRAME_HDR + 65536];
	uint8_t hello[CCP_SOCK_HELLO_LEN], key[CCP_SOCK_KEY_LEN];
	sw_random(key, sizeof key);
	size_t hl;
	if (v1) { /* what the first protocol's ranks sent, key included */
		uint64_t k = 0;
		if (!nokey)
			memcpy(&k, key, sizeof k);
		if (control) {
			le_set_u32(hello, CCP_SOCK_CTL_MAGIC);
			le_set_u16(hello + 4, 1); /* HELLO */
			le_set_u16(hello + 6, 0);
			le_set_u32(hello + 8, from);
			le_set_u32(hello + 12, 24);
			le_set_u64(hello + 16, k);
			le_set_u32(hello + 24, size);
			le_set_u32(hello + 28, (uint32_t)getpid());
			memcpy(hello + 32, "\x7f\0\0\x01", 4);
			le_set_u16(hello + 36, 1);
			le_set_u16(hello + 38, 0);
			hl = 40;
		} else {
			le_set_u32(hello, CCP_SOCK_HELLO_MAGIC);
			le_set_u32(hello + 4, from);
			le_set_u32(hello + 8, to);
			le_set_u32(hello + 12, 0);
			le_set_u64(hello + 16, k);
			hl = 24;
		}
	} else {
		struct sw_hello h;
		memset(&h, 0, sizeof h);
		h.version = CCP_SOCK_VERSION;
		h.role = control ? CCP_SOCK_ROLE_CONTROL : CCP_SOCK_ROLE_DATA;
		h.from = from;
		h.to = control ? CCP_SOCK_LAUNCHER : to;
		h.size = size;
		h.pid = control ? (uint32_t)getpid() : 0;
		if (control) {
			memcpy(h.addr, "\x7f\0\0\x01", 4);
			h.port = 1;
		}
		sw_hello_pack(hello, &h);
		hl = CCP_SOCK_HELLO_LEN;
	}
	int fd = dial(&a);
	struct pollfd p = {fd, POLLOUT, 0};
	if (fd < 0 || poll(&p, 1, 5000) != 1) {
		fprintf(stderr, "sock_intruder: cannot connect to %s\n", v[2]);
		return 2;
	}
	size_t pl = payload(out, sizeof out, control, from, hash, phase, bytes);
	const char *what = "";
	uint8_t in[256];
	ssize_t n;
	if (send_all(fd, hello, hl) < 0) {
		what = "closed during the hello";
		goto refused;
	}
	if (!v1 && !nokey) { /* the challenge, answered under a wrong key */
		n = wait_read(fd, in, CCP_SOCK_CHAL_LEN, WAIT_MS);
		if (n < (ssize_t)CCP_SOCK_CHAL_LEN) {
			what = n < 0 ? "no challenge"
			             : "closed before a challenge";
			if (n < 0)
				goto taken;
			goto refused;
		}
		uint8_t resp[CCP_SOCK_RESP_LEN];
		le_set_u32(resp, CCP_SOCK_RESP_MAGIC);
		le_set_u32(resp + 4, 0);
		sw_mac(resp + 8, key, false, hello, in + 8);
		if (send_all(fd, resp, sizeof resp) < 0) {
			what = "closed after the challenge";
			goto refused;
		}
	}
	if (send_all(fd, out, pl) < 0) {
		what = "closed before it took all the payload";
		goto refused;
	}
	/* now the job closes the connection, or takes it */
	n = wait_read(fd, in, sizeof in, WAIT_MS);
	if (n < 0) {
		what = "left open";
		goto taken;
	}
	if (n == CCP_SOCK_CHAL_LEN && !v1 && nokey) {
		/* the challenge came: what we sent at once was the answer */
		n = wait_read(fd, in, sizeof in, WAIT_MS);
		if (n < 0) {
			what = "left open after the challenge";
			goto taken;
		}
	}
	if (n > 0) {
		what = "answered";
		goto taken;
	}
	what = "closed";
refused:
	printf("inject %s %s as rank %u: refused (%s)\n", how, v[1],
	       (unsigned)from, what);
	close(fd);
	return 0;
taken:
	printf("inject %s %s as rank %u: TAKEN (%s)\n", how, v[1],
	       (unsigned)from, what);
	close(fd);
	return 1;
}

/* ---- impostor ------------------------------------------------------------ */

static int contains(const uint8_t *h, size_t hn, const void *n, size_t nn)
{
	for (size_t i = 0; i + nn <= hn; i++)
		if (!memcmp(h + i, n, nn))
			return 1;
	return 0;
}

static int impostor(const char *portfile, const char *keyfile, int seconds)
{
	char hex[80] = "";
	uint8_t key[CCP_SOCK_KEY_LEN];
	FILE *f = fopen(keyfile, "r");
	if (!f || !fgets(hex, sizeof hex, f) ||
	    sw_key_parse(key, hex, strlen(hex)) < 0) {
		fprintf(stderr, "sock_intruder: %s: no key\n", keyfile);
		return 2;
	}
	fclose(f);
	if (sw_init() < 0)
		return 2;
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a;
	socklen_t al = sizeof a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 ||
	    listen(l, 4) < 0 || getsockname(l, (struct sockaddr *)&a, &al) < 0)
		return 2;
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", portfile);
	f = fopen(tmp, "w");
	if (!f)
		return 2;
	fprintf(f, "%u\n", (unsigned)ntohs(a.sin_port));
	fclose(f);
	rename(tmp, portfile);
	struct pollfd p = {l, POLLIN, 0};
	if (poll(&p, 1, seconds * 1000) != 1) {
		fprintf(stderr, "sock_intruder: no rank came\n");
		return 2;
	}
	int fd = accept(l, NULL, NULL);
	static uint8_t got[65536];
	size_t n = 0;
	bool challenged = false;
	int64_t end = now_ms() + 3000;
	while (n < sizeof got && now_ms() < end) {
		struct pollfd q = {fd, POLLIN, 0};
		if (poll(&q, 1, 100) <= 0)
			continue;
		ssize_t r = recv(fd, got + n, sizeof got - n, 0);
		if (r <= 0)
			break;
		n += (size_t)r;
		if (!challenged && n >= CCP_SOCK_HELLO_LEN &&
		    le_get_u32(got) == CCP_SOCK_HELLO_MAGIC) {
			/* a challenge under a key of our own */
			uint8_t chal[CCP_SOCK_CHAL_LEN],
			        other[CCP_SOCK_KEY_LEN];
			uint8_t nonce[CCP_SOCK_NONCE_LEN];
			sw_random(other, sizeof other);
			sw_challenge(chal, nonce, other, got);
			(void)!send(fd, chal, sizeof chal, MSG_NOSIGNAL);
			challenged = true;
		}
	}
	/* the key as the first protocol carried it: its first 16 hex
	 * digits, read as a number, little-endian */
	uint8_t v1[8];
	for (int i = 0; i < 8; i++)
		v1[i] = key[7 - i];
	int seen = contains(got, n, key, sizeof key) ||
	           contains(got, n, hex, 2 * CCP_SOCK_KEY_LEN) ||
	           contains(got, n, hex, 16) || contains(got, n, v1, 8);
	printf("impostor: the rank sent %zu bytes%s; the key %s in them\n", n,
	       challenged ? " and was challenged" : "", seen ? "IS" : "is not");
	close(fd);
	close(l);
	return seen;
}

int main(int argc, char **argv)
{
	signal(SIGTERM, on_term);
	signal(SIGPIPE, SIG_IGN);
	if (argc >= 5 && !strcmp(argv[1], "idle"))
		return idle(atoi(argv[2]), atoi(argv[3]), argc - 4, argv + 4);
	if (argc == 11 && !strcmp(argv[1], "inject"))
		return inject(argv + 2);
	if (argc == 5 && !strcmp(argv[1], "impostor"))
		return impostor(argv[2], argv[3], atoi(argv[4]));
	fprintf(stderr,
	        "usage: sock_intruder idle N SECONDS ADDR:PORT...\n"
	        "       sock_intruder inject HOW ROLE ADDR:PORT FROM TO SIZE "
	        "PLAN PHASE BYTES\n"
	        "       sock_intruder impostor PORTFILE KEYFILE SECONDS\n");
	return 2;
}
