/*
 * sock_wire.h - the private wire protocol of the sockets transport,
 * shared by the transport (backends/sockets.c), its launcher
 * (backends/sock_launch.c) and the tests that attack them: the layouts of
 * the control messages and data frames, and the challenge-and-response
 * handshake that opens every connection (docs/sockets.md,
 * "Authentication").  Applications see only ccplan_sockets.h.
 *
 * The handshake.  The connecting side C (a rank) and the accepting side A
 * (the launcher, or the higher rank of a pair) share the job's 256-bit
 * key K; neither ever sends it.  Only sock_wire.c uses libsodium.
 *
 *     C -> A  HELLO      who C is, whom it means to reach, nonce_C
 *     A -> C  CHALLENGE  nonce_A, MAC(K, "acceptor" | HELLO | nonce_A)
 *     C -> A  RESPONSE   MAC(K, "connector" | HELLO | nonce_A)
 *     A -> C  WELCOME    the connection is C's
 *
 * MAC is HMAC-SHA-512-256 (libsodium's crypto_auth).  Both MACs cover the
 * whole hello (role, from-rank, to-rank, job size, nonce_C and, on a
 * control connection, the rank's pid and listening address) and both
 * fresh nonces, so each side proves it knows K for this very exchange: a
 * recorded exchange cannot be replayed (a new nonce every time), nor one
 * side's MAC reflected as the other's (a different label).  A keeps a
 * connection it has not authenticated in a table of bounded size and for
 * at most CCP_SOCK_AUTH_MS; C sends no frame before the WELCOME, so a
 * connection that A closes before it (evicted, or too slow) is simply
 * opened again.
 */
#ifndef CCP_SOCK_WIRE_H
#define CCP_SOCK_WIRE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every integer is little-endian. */

/* ---- the handshake ---------------------------------------------------- */

#define CCP_SOCK_VERSION     2u          /* of this protocol */
#define CCP_SOCK_HELLO_MAGIC 0x48504343u /* "CCPH" */
#define CCP_SOCK_CHAL_MAGIC  0x4b504343u /* "CCPK" */
#define CCP_SOCK_RESP_MAGIC  0x52504343u /* "CCPR" */
#define CCP_SOCK_WELC_MAGIC  0x57504343u /* "CCPW" */
#define CCP_SOCK_KEY_LEN     32u         /* the job key: 256 bits */
#define CCP_SOCK_NONCE_LEN   32u
#define CCP_SOCK_MAC_LEN     32u         /* crypto_auth_BYTES */
#define CCP_SOCK_LAUNCHER    0xffffffffu /* the to-rank of a control hello */

/* hello: u32 magic, u8 version, u8 role, u16 0, u32 from, u32 to,
 * u32 size, u32 pid, u8[4] IPv4, u16 port, u16 0, u8[32] nonce_C (pid
 * and address: where a rank listens for peers, control hellos only) */
#define CCP_SOCK_HELLO_LEN 64u
/* challenge: u32 magic, u32 0, u8[32] nonce_A, u8[32] MAC of A */
#define CCP_SOCK_CHAL_LEN 72u
/* response: u32 magic, u32 0, u8[32] MAC of C */
#define CCP_SOCK_RESP_LEN 40u
/* welcome: u32 magic, u32 0 */
#define CCP_SOCK_WELC_LEN 8u

/* How long an accepted connection may take to authenticate, and how
 * many unauthenticated ones an acceptor keeps beyond one per rank. */
#define CCP_SOCK_AUTH_MS    3000
#define CCP_SOCK_PEND_SLACK 64

enum ccp_sock_role {
	CCP_SOCK_ROLE_CONTROL = 1, /* a rank's connection to the launcher */
	CCP_SOCK_ROLE_DATA = 2     /* a lower rank's to a higher one */
};

/* A hello, decoded. */
struct sw_hello {
	uint8_t version; /* CCP_SOCK_VERSION */
	uint8_t role;    /* enum ccp_sock_role */
	uint32_t from;   /* the connecting rank */
	uint32_t to;     /* the rank it means to reach, or CCP_SOCK_LAUNCHER */
	uint32_t size;   /* ranks in its job */
	uint32_t pid;    /* control: its process id; data: 0 */
	uint8_t addr[4]; /* control: the IPv4 address it listens on */
	uint16_t port;   /* and the port; data: 0 */
	uint8_t nonce[CCP_SOCK_NONCE_LEN]; /* nonce_C */
};

/* Start libsodium (idempotent, thread-safe).  Returns 0, or -1 when it
 * cannot (no source of randomness). */
int sw_init(void);

/* n random bytes from libsodium's generator, and a wipe the compiler
 * does not remove. */
void sw_random(void *buf, size_t n);
void sw_wipe(void *buf, size_t n);

/* The key as 64 lowercase hex digits and a NUL; and back: 0, or -1 when
 * hex is not exactly 64 hex digits (an optional newline may follow). */
#define CCP_SOCK_KEY_HEX (2 * CCP_SOCK_KEY_LEN + 1)
void sw_key_hex(char out[CCP_SOCK_KEY_HEX],
                const uint8_t key[CCP_SOCK_KEY_LEN]);
int sw_key_parse(uint8_t key[CCP_SOCK_KEY_LEN], const char *hex, size_t len);

/* Encode h with a fresh nonce_C (written into h->nonce too). */
void sw_hello_pack(uint8_t out[CCP_SOCK_HELLO_LEN], struct sw_hello *h);

/* Decode a hello: NULL, or what is wrong with it (for a log). */
const char *sw_hello_unpack(const uint8_t in[CCP_SOCK_HELLO_LEN],
                            struct sw_hello *h);

/* The MAC one side sends: acceptor true for A's (in the challenge), false
 * for C's (in the response). */
void sw_mac(uint8_t out[CCP_SOCK_MAC_LEN], const uint8_t key[CCP_SOCK_KEY_LEN],
            bool acceptor, const uint8_t hello[CCP_SOCK_HELLO_LEN],
            const uint8_t nonce_a[CCP_SOCK_NONCE_LEN]);

/* A's challenge to a hello: a fresh nonce_A (kept in nonce_a, to check
 * the response) and A's MAC. */
void sw_challenge(uint8_t out[CCP_SOCK_CHAL_LEN],
                  uint8_t nonce_a[CCP_SOCK_NONCE_LEN],
                  const uint8_t key[CCP_SOCK_KEY_LEN],
                  const uint8_t hello[CCP_SOCK_HELLO_LEN]);

/* C's side: whether A's challenge to our hello proves that A knows the
 * key; if so, write our response. */
bool sw_respond(uint8_t out[CCP_SOCK_RESP_LEN],
                const uint8_t chal[CCP_SOCK_CHAL_LEN],
                const uint8_t key[CCP_SOCK_KEY_LEN],
                const uint8_t hello[CCP_SOCK_HELLO_LEN]);

/* A's side: whether a response proves that C knows the key. */
bool sw_response_ok(const uint8_t resp[CCP_SOCK_RESP_LEN],
                    const uint8_t key[CCP_SOCK_KEY_LEN],
                    const uint8_t hello[CCP_SOCK_HELLO_LEN],
                    const uint8_t nonce_a[CCP_SOCK_NONCE_LEN]);

/* C's side: whether what came after the response is A's welcome. */
bool sw_welcome_ok(const uint8_t in[CCP_SOCK_WELC_LEN]);

/* Send a whole short message on a fresh, non-blocking connection: 0, or
 * -errno (-EAGAIN when the socket took only part of it). */
int sw_send_short(int fd, const uint8_t *msg, size_t n);

/* "IPv4:port" of an address, for messages. */
#define SW_ADDR_TEXT 24
void sw_addr_text(char out[SW_ADDR_TEXT], const struct sockaddr_in *sa);

/* ---- the acceptor's table of connections not authenticated yet ----------
 * Used alike by the launcher and by every rank.  A connection enters when
 * it is accepted and leaves authenticated (the caller takes it) or
 * dropped: a wrong hello, a bad response, CCP_SOCK_AUTH_MS without
 * authenticating, or evicted.  When the table is full, a new connection
 * takes the place of the oldest idle one (nothing received), else of the
 * oldest; a new connection is never refused, and a legitimate one, which
 * sends its hello and response at once, is never the oldest for long. */

enum sw_stage {
	SW_HELLO = 0,   /* reading its hello */
	SW_RESPONSE = 1 /* the challenge is out; reading its response */
};

struct sw_pend {
	int fd;
	uint8_t stage;         /* enum sw_stage */
	uint8_t got;           /* bytes of the hello or the response read */
	int64_t since;         /* accepted at, monotonic ms */
	struct sockaddr_in sa; /* where it comes from */
	struct sw_hello h;     /* its hello, decoded (SW_RESPONSE) */
	uint8_t hello[CCP_SOCK_HELLO_LEN]; /* as received */
	uint8_t resp[CCP_SOCK_RESP_LEN];
	uint8_t nonce[CCP_SOCK_NONCE_LEN]; /* nonce_A */
};

struct sw_pending {
	struct sw_pend *p; /* cap entries, the caller's storage */
	int n, cap;
	const uint8_t *key; /* the job key (borrowed) */
	/* A hello that parsed: NULL to challenge it, or why it is refused
	 * (the role, the rank it names, the job size...). */
	const char *(*check)(void *ud, const struct sw_hello *h);
	/* A connection dropped before it authenticated, and why (q->stage
	 * SW_RESPONSE: q->h is the hello it sent).  For the caller's log. */
	void (*dropped)(void *ud, const struct sw_pend *q, const char *why);
	void *ud;
};

enum {
	SW_MORE = 0,  /* connection k waits for more bytes */
	SW_GONE = 1,  /* it was dropped: slot k holds another one now */
	SW_AUTHED = 2 /* it proved that it knows the key, its hello (p[k].h)
	                 still passed the check, and it was sent the
	                 welcome: the caller takes p[k].fd (sw_pend_remove
	                 with why NULL) */
};

/* Accept at most t->cap connections waiting on lfd (a flood cannot hold
 * the caller), reading each one's hello at once.  Returns 0, or -errno of
 * an accept that failed otherwise than for want of connections. */
int sw_pend_accept(struct sw_pending *t, int lfd);

/* Read what connection k has sent; SW_MORE, SW_GONE or SW_AUTHED. */
int sw_pend_read(struct sw_pending *t, int k);

/* Take connection k out of the table: closed and reported (why not NULL),
 * or handed over (why NULL). */
void sw_pend_remove(struct sw_pending *t, int k, const char *why);

/* Drop every connection older than CCP_SOCK_AUTH_MS; and when the next
 * one falls due, in monotonic ms (-1: none). */
void sw_pend_expire(struct sw_pending *t);
int64_t sw_pend_due(const struct sw_pending *t);

/* The slot of descriptor fd, or -1. */
int sw_pend_find(const struct sw_pending *t, int fd);

/* Close every connection of the table, reporting none. */
void sw_pend_close_all(struct sw_pending *t);

/* ---- control messages (rank <-> launcher, after the handshake) ---------
 * A 16-byte header, then a body of the header's length. */

#define CCP_SOCK_CTL_MAGIC 0x43504343u /* "CCPC" */
/* control header: u32 magic, u16 type, u16 0, u32 rank, u32 body length */
#define CCP_SOCK_CTL_HDR 16u

enum ccp_sock_ctl {
	/* 1: the hello of version 1; version 2 says hello by the handshake */
	CCP_SOCK_TABLE = 2,   /* launcher: per rank u8[4] IPv4, u16 port,
	                         u16 0 */
	CCP_SOCK_AGREE = 3,   /* rank: u64 seq, u64 hash, i32 status, u32 0 */
	CCP_SOCK_AGREED = 4,  /* launcher: u64 seq, i32 global, u32 0 */
	CCP_SOCK_BARRIER = 5, /* rank: u64 seq */
	CCP_SOCK_RELEASE = 6, /* launcher: u64 seq */
	CCP_SOCK_FAIL = 7,    /* rank: i32 code, u32 0 (its transport broke) */
	CCP_SOCK_ABORT = 8,   /* launcher: u32 reason, i32 code, i32 status,
	                         u32 0; header rank = the rank that failed */
	CCP_SOCK_BYE = 9      /* rank: (no body) freed its transport */
};

#define CCP_SOCK_AGREE_LEN   24u
#define CCP_SOCK_AGREED_LEN  16u
#define CCP_SOCK_BARRIER_LEN 8u
#define CCP_SOCK_RELEASE_LEN 8u
#define CCP_SOCK_FAIL_LEN    8u
#define CCP_SOCK_ABORT_LEN   16u
#define CCP_SOCK_ENTRY_LEN   8u /* one TABLE entry */

/* Why the launcher stops the job (ABORT reason). */
enum ccp_sock_reason {
	CCP_SOCK_EXITED = 1,      /* the rank exited with status != 0 */
	CCP_SOCK_SIGNALED = 2,    /* the rank was killed by signal status */
	CCP_SOCK_DROPPED = 3,     /* its control connection closed without
	                             BYE while it ran */
	CCP_SOCK_REPORTED = 4,    /* its transport failed with code */
	CCP_SOCK_LEFT = 5,        /* it left (BYE, or exited 0) and cannot
	                             join the collective the others entered */
	CCP_SOCK_INTERRUPTED = 6, /* the launcher got signal status */
	CCP_SOCK_PROTOCOL = 7,    /* ranks entered different collectives, or
	                             a rank sent a malformed message */
	CCP_SOCK_ABSENT = 8       /* a job someone else started: the rank
	                             had not connected within the timeout */
};

/* ---- data frames (rank <-> rank, after the handshake) --------------- */

#define CCP_SOCK_DATA_MAGIC 0x44504343u /* "CCPD" */
/* frame header: u32 magic, u32 sender, u64 plan hash, u32 phase, u8 kind,
 * u8[3] 0, u64 length */
#define CCP_SOCK_FRAME_HDR 32u

#endif
