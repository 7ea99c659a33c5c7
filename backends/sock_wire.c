/*
 * sock_wire.c - the handshake of the sockets transport's wire protocol
 * (sock_wire.h), shared by the transport and its launcher: the messages,
 * their MACs, and the acceptor's table of connections that have not
 * authenticated yet.  The only file that uses libsodium: its random
 * generator for the key and the nonces, HMAC-SHA-512-256 for the MACs,
 * and its constant-time comparison.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "le.h"
#include "sock_wire.h"

#if CCP_SOCK_MAC_LEN != crypto_auth_hmacsha512256_BYTES ||                     \
        CCP_SOCK_KEY_LEN != crypto_auth_hmacsha512256_KEYBYTES
#error "the wire protocol's MAC is HMAC-SHA-512-256"
#endif

int sw_init(void)
{
	return sodium_init() < 0 ? -1 : 0;
}

void sw_random(void *buf, size_t n)
{
	randombytes_buf(buf, n);
}

void sw_wipe(void *buf, size_t n)
{
	sodium_memzero(buf, n);
}

void sw_key_hex(char out[CCP_SOCK_KEY_HEX], const uint8_t key[CCP_SOCK_KEY_LEN])
{
	sodium_bin2hex(out, CCP_SOCK_KEY_HEX, key, CCP_SOCK_KEY_LEN);
}

int sw_key_parse(uint8_t key[CCP_SOCK_KEY_LEN], const char *hex, size_t len)
{
	size_t bin = 0;
	if (len > 0 && hex[len - 1] == '\n')
		len--;
	if (len != 2 * CCP_SOCK_KEY_LEN ||
	    sodium_hex2bin(key, CCP_SOCK_KEY_LEN, hex, len, NULL, &bin, NULL) !=
	            0 ||
	    bin != CCP_SOCK_KEY_LEN)
		return -1;
	return 0;
}

void sw_hello_pack(uint8_t out[CCP_SOCK_HELLO_LEN], struct sw_hello *h)
{
	randombytes_buf(h->nonce, CCP_SOCK_NONCE_LEN);
	memset(out, 0, CCP_SOCK_HELLO_LEN);
	le_set_u32(out, CCP_SOCK_HELLO_MAGIC);
	out[4] = h->version;
	out[5] = h->role;
	le_set_u32(out + 8, h->from);
	le_set_u32(out + 12, h->to);
	le_set_u32(out + 16, h->size);
	le_set_u32(out + 20, h->pid);
	memcpy(out + 24, h->addr, 4);
	le_set_u16(out + 28, h->port);
	memcpy(out + 32, h->nonce, CCP_SOCK_NONCE_LEN);
}

const char *sw_hello_unpack(const uint8_t in[CCP_SOCK_HELLO_LEN],
                            struct sw_hello *h)
{
	if (le_get_u32(in) != CCP_SOCK_HELLO_MAGIC)
		return "not a ccplan hello";
	h->version = in[4];
	h->role = in[5];
	h->from = le_get_u32(in + 8);
	h->to = le_get_u32(in + 12);
	h->size = le_get_u32(in + 16);
	h->pid = le_get_u32(in + 20);
	memcpy(h->addr, in + 24, 4);
	h->port = le_get_u16(in + 28);
	memcpy(h->nonce, in + 32, CCP_SOCK_NONCE_LEN);
	if (h->version != CCP_SOCK_VERSION)
		return "another version of the protocol";
	if (le_get_u16(in + 6) || le_get_u16(in + 30) ||
	    (h->role != CCP_SOCK_ROLE_CONTROL && h->role != CCP_SOCK_ROLE_DATA))
		return "a damaged hello";
	return NULL;
}

void sw_mac(uint8_t out[CCP_SOCK_MAC_LEN], const uint8_t key[CCP_SOCK_KEY_LEN],
            bool acceptor, const uint8_t hello[CCP_SOCK_HELLO_LEN],
            const uint8_t nonce_a[CCP_SOCK_NONCE_LEN])
{
	/* the labels tell the two MACs apart: same length, NUL included */
	static const char label_a[] = "ccplan A auth",
	                  label_c[] = "ccplan C auth";
	crypto_auth_hmacsha512256_state st;
	crypto_auth_hmacsha512256_init(&st, key, CCP_SOCK_KEY_LEN);
	crypto_auth_hmacsha512256_update(
	        &st, (const uint8_t *)(acceptor ? label_a : label_c),
	        sizeof label_a);
	crypto_auth_hmacsha512256_update(&st, hello, CCP_SOCK_HELLO_LEN);
	crypto_auth_hmacsha512256_update(&st, nonce_a, CCP_SOCK_NONCE_LEN);
	crypto_auth_hmacsha512256_final(&st, out);
	sodium_memzero(&st, sizeof st);
}

/* Whether mac is the expected one, compared in constant time. */
static bool mac_ok(const uint8_t mac[CCP_SOCK_MAC_LEN],
                   const uint8_t key[CCP_SOCK_KEY_LEN], bool acceptor,
                   const uint8_t hello[CCP_SOCK_HELLO_LEN],
                   const uint8_t nonce_a[CCP_SOCK_NONCE_LEN])
{
	uint8_t want[CCP_SOCK_MAC_LEN];
	sw_mac(want, key, acceptor, hello, nonce_a);
	bool ok = sodium_memcmp(want, mac, CCP_SOCK_MAC_LEN) == 0;
	sodium_memzero(want, sizeof want);
	return ok;
}

void sw_challenge(uint8_t out[CCP_SOCK_CHAL_LEN],
                  uint8_t nonce_a[CCP_SOCK_NONCE_LEN],
                  const uint8_t key[CCP_SOCK_KEY_LEN],
                  const uint8_t hello[CCP_SOCK_HELLO_LEN])
{
	randombytes_buf(nonce_a, CCP_SOCK_NONCE_LEN);
	le_set_u32(out, CCP_SOCK_CHAL_MAGIC);
	le_set_u32(out + 4, 0);
	memcpy(out + 8, nonce_a, CCP_SOCK_NONCE_LEN);
	sw_mac(out + 8 + CCP_SOCK_NONCE_LEN, key, true, hello, nonce_a);
}

bool sw_respond(uint8_t out[CCP_SOCK_RESP_LEN],
                const uint8_t chal[CCP_SOCK_CHAL_LEN],
                const uint8_t key[CCP_SOCK_KEY_LEN],
                const uint8_t hello[CCP_SOCK_HELLO_LEN])
{
	const uint8_t *nonce_a = chal + 8;
	if (le_get_u32(chal) != CCP_SOCK_CHAL_MAGIC || le_get_u32(chal + 4) ||
	    !mac_ok(chal + 8 + CCP_SOCK_NONCE_LEN, key, true, hello, nonce_a))
		return false;
	le_set_u32(out, CCP_SOCK_RESP_MAGIC);
	le_set_u32(out + 4, 0);
	sw_mac(out + 8, key, false, hello, nonce_a);
	return true;
}

bool sw_response_ok(const uint8_t resp[CCP_SOCK_RESP_LEN],
                    const uint8_t key[CCP_SOCK_KEY_LEN],
                    const uint8_t hello[CCP_SOCK_HELLO_LEN],
                    const uint8_t nonce_a[CCP_SOCK_NONCE_LEN])
{
	return le_get_u32(resp) == CCP_SOCK_RESP_MAGIC &&
	       le_get_u32(resp + 4) == 0 &&
	       mac_ok(resp + 8, key, false, hello, nonce_a);
}

static void sw_welcome(uint8_t out[CCP_SOCK_WELC_LEN])
{
	le_set_u32(out, CCP_SOCK_WELC_MAGIC);
	le_set_u32(out + 4, 0);
}

bool sw_welcome_ok(const uint8_t in[CCP_SOCK_WELC_LEN])
{
	return le_get_u32(in) == CCP_SOCK_WELC_MAGIC && le_get_u32(in + 4) == 0;
}

int sw_send_short(int fd, const uint8_t *msg, size_t n)
{
	ssize_t w;
	do
		w = send(fd, msg, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return -errno;
	return (size_t)w == n ? 0 : -EAGAIN;
}

void sw_addr_text(char out[SW_ADDR_TEXT], const struct sockaddr_in *sa)
{
	const uint8_t *a = (const uint8_t *)&sa->sin_addr;
	snprintf(out, SW_ADDR_TEXT, "%u.%u.%u.%u:%u", a[0], a[1], a[2], a[3],
	         (unsigned)ntohs(sa->sin_port));
}

/* ---- the table of unauthenticated connections ------------------------- */

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sw_pend_remove(struct sw_pending *t, int k, const char *why)
{
	struct sw_pend *q = &t->p[k];
	if (why) {
		if (t->dropped)
			t->dropped(t->ud, q, why);
		close(q->fd);
	}
	sodium_memzero(q->nonce, sizeof q->nonce);
	t->p[k] = t->p[--t->n];
}

/* The slot a new connection takes when the table is full: the oldest
 * that has sent nothing, else the oldest. */
static int victim(const struct sw_pending *t)
{
	int idle = -1, any = 0;
	for (int k = 0; k < t->n; k++) {
		const struct sw_pend *q = &t->p[k];
		if (q->stage == SW_HELLO && q->got == 0 &&
		    (idle < 0 || q->since < t->p[idle].since))
			idle = k;
		if (q->since < t->p[any].since)
			any = k;
	}
	return idle >= 0 ? idle : any;
}

int sw_pend_accept(struct sw_pending *t, int lfd)
{
	for (int taken = 0; taken < t->cap; taken++) {
		struct sockaddr_in sa;
		socklen_t sl = sizeof sa;
		memset(&sa, 0, sizeof sa);
		int fd = accept(lfd, (struct sockaddr *)&sa, &sl);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == ECONNABORTED)
				return 0;
			/* out of descriptors: make room, try again later */
			if ((errno == EMFILE || errno == ENFILE) && t->n > 0) {
				sw_pend_remove(
				        t, victim(t),
				        "evicted: this process is out of "
				        "descriptors");
				return 0;
			}
			return -errno;
		}
		int fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
		    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
			close(fd);
			continue;
		}
		if (t->n == t->cap) {
			char why[96];
			snprintf(why, sizeof why,
			         "evicted: %d unauthenticated connections were "
			         "waiting",
			         t->n);
			sw_pend_remove(t, victim(t), why);
		}
		struct sw_pend *q = &t->p[t->n];
		memset(q, 0, sizeof *q);
		q->fd = fd;
		q->stage = SW_HELLO;
		q->since = mono_ms();
		q->sa = sa;
		t->n++;
		/* a connector sends its hello at once: have it now, so that
		 * the connection is not idle when the next one comes */
		(void)sw_pend_read(t, t->n - 1);
	}
	return 0;
}

int sw_pend_read(struct sw_pending *t, int k)
{
	struct sw_pend *q = &t->p[k];
	char why[96];
	for (;;) {
		bool hello = q->stage == SW_HELLO;
		uint8_t *buf = hello ? q->hello : q->resp;
		size_t want = hello ? CCP_SOCK_HELLO_LEN : CCP_SOCK_RESP_LEN;
		ssize_t n = recv(q->fd, buf + q->got, want - q->got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return SW_MORE;
		if (n <= 0) {
			snprintf(why, sizeof why, "%s before it authenticated",
			         n == 0 ? "it closed the connection"
			                : strerror(errno));
			sw_pend_remove(t, k, why);
			return SW_GONE;
		}
		q->got = (uint8_t)(q->got + n);
		/* a stranger, or another version: tell at once */
		if (hello && q->got >= 4 &&
		    le_get_u32(q->hello) != CCP_SOCK_HELLO_MAGIC) {
			sw_pend_remove(t, k, "not a ccplan hello");
			return SW_GONE;
		}
		if (hello && q->got >= 5 && q->hello[4] != CCP_SOCK_VERSION) {
			snprintf(why, sizeof why,
			         "a hello of protocol version %u, not %u",
			         (unsigned)q->hello[4], CCP_SOCK_VERSION);
			sw_pend_remove(t, k, why);
			return SW_GONE;
		}
		if (q->got < want)
			continue;
		if (!hello) {
			const char *bad = NULL;
			if (!sw_response_ok(q->resp, t->key, q->hello,
			                    q->nonce))
				bad = "bad response";
			else if (t->check) /* still true? */
				bad = t->check(t->ud, &q->h);
			uint8_t w[CCP_SOCK_WELC_LEN];
			sw_welcome(w);
			if (!bad && sw_send_short(q->fd, w, sizeof w) != 0)
				bad = "cannot send the welcome";
			if (bad) {
				sw_pend_remove(t, k, bad);
				return SW_GONE;
			}
			return SW_AUTHED;
		}
		const char *bad = sw_hello_unpack(q->hello, &q->h);
		if (!bad && t->check)
			bad = t->check(t->ud, &q->h);
		if (bad) {
			sw_pend_remove(t, k, bad);
			return SW_GONE;
		}
		uint8_t chal[CCP_SOCK_CHAL_LEN];
		sw_challenge(chal, q->nonce, t->key, q->hello);
		int e = sw_send_short(q->fd, chal, sizeof chal);
		if (e) {
			snprintf(why, sizeof why,
			         "cannot send the challenge: %s", strerror(-e));
			sw_pend_remove(t, k, why);
			return SW_GONE;
		}
		/* the response comes after a round trip: the next poll will
		 * show it (so the caller of sw_pend_accept never misses an
		 * authenticated connection) */
		q->stage = SW_RESPONSE;
		q->got = 0;
		return SW_MORE;
	}
}

void sw_pend_expire(struct sw_pending *t)
{
	int64_t now = mono_ms();
	char why[64];
	for (int k = 0; k < t->n;) {
		const struct sw_pend *q = &t->p[k];
		if (now - q->since < CCP_SOCK_AUTH_MS) {
			k++;
			continue;
		}
		snprintf(why, sizeof why, "no %s within %d s",
		         q->stage == SW_HELLO ? "hello" : "response",
		         CCP_SOCK_AUTH_MS / 1000);
		sw_pend_remove(t, k, why); /* k now holds another one */
	}
}

int64_t sw_pend_due(const struct sw_pending *t)
{
	int64_t due = -1;
	for (int k = 0; k < t->n; k++) {
		int64_t d = t->p[k].since + CCP_SOCK_AUTH_MS;
		if (due < 0 || d < due)
			due = d;
	}
	return due;
}

int sw_pend_find(const struct sw_pending *t, int fd)
{
	for (int k = 0; k < t->n; k++)
		if (t->p[k].fd == fd)
			return k;
	return -1;
}

void sw_pend_close_all(struct sw_pending *t)
{
	for (int k = 0; k < t->n; k++) {
		close(t->p[k].fd);
		sodium_memzero(t->p[k].nonce, sizeof t->p[k].nonce);
	}
	t->n = 0;
}
