/*
 * inspector.c - the inspector of an irregular-problem runtime
 * (ccplan_inspector.h): every rank gives its row of the communication
 * matrix; the rows are gathered on every rank over the transport, the
 * pattern's key is looked up in the plan cache, and on a miss every rank
 * schedules, verifies, lowers and encodes the same plan (the scheduler is
 * seeded, so the plans are identical byte for byte) and rank 0 stores it.
 * Each rank then loads its own slice.  With reorder, every rank also
 * places the pattern on the machine (sch_place, the same on every rank)
 * and the plan is made for the ranks in their new order.
 *
 * It lives outside runtime/ proper, in its own library (ccp_inspector),
 * because it needs the scheduler and SQLite, which an application that
 * only executes plans should not link.  It talks to other ranks only
 * through the transport table (runtime/transport.h), so it works over any
 * backend.  docs/inspector.md describes the steps, the key and the cost.
 *
 * Every step that can fail on one rank only is followed by the
 * transport's agree, so that all ranks return the same code and none
 * waits for a peer that gave up.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cache.h"
#include "ccplan_inspector.h"
#include "codec.h"
#include "internal.h"
#include "irregular.h"
#include "machine.h"
#include "matrix.h"
#include "place.h"
#include "sched.h"

#define ENTRY_WIRE 12 /* a message on the wire: dst (4), bytes (8), LE */
#define COUNT_WIRE 8  /* a row's message count on the wire, LE */
#define KEY_TAG    "ccplan-inspect/1 " CCPLAN_VERSION
/* transport phases (tags) of the two allgathers: 2 per round, at most
 * 24 rounds each (IR_MAX_RANKS = 2^24 ranks), so 0-47 and 64-111 */
#define PHASE_COUNTS 0u
#define PHASE_ROWS   64u

/* One message of this rank, as given. */
struct msg {
	int32_t dst;    /* destination */
	uint64_t bytes; /* size */
};

/* Everything one call works with. */
struct insp {
	ccp_context *ctx;
	ccp_transport *t;
	int32_t rank, n;             /* this rank, ranks of the transport */
	enum sch_irr_alg alg;        /* scheduler */
	uint64_t seed;               /* its seed */
	ir_machine m;                /* machine to schedule for */
	bool reorder;                /* suggest a new order (placement) */
	uint8_t canon[384];          /* options in canonical form */
	size_t canon_len;            /* bytes of canon */
	uint64_t opt_hash;           /* XXH3-64 of canon: ranks compare it */
	struct msg *row;             /* own messages, ascending, non-empty */
	size_t nrow;                 /* entries in row */
	size_t row_cap;              /* entries row was allocated with */
	uint8_t *counts;             /* n row lengths, COUNT_WIRE each */
	uint64_t *coff;              /* n+1 offsets of the lengths in counts */
	uint64_t *off;               /* n+1 row offsets in rows, bytes */
	uint8_t *rows;               /* every row, ENTRY_WIRE per message */
	ir_matrix *x;                /* the gathered matrix */
	uint8_t key[CACHE_KEY_SIZE]; /* the pattern's key */
	cache *c;                    /* the cache, if any (rank 0 keeps it) */
	uint8_t *img;                /* the whole plan image (malloc'd) */
	size_t img_len;              /* its bytes */
	bool had_entry;              /* this rank's look-up found the plan
	                                (rank 0 then does not store it) */
	/* reorder */
	int32_t me;         /* this rank's rank in the plan: its
	                       new rank, or its own */
	int32_t *new_ranks; /* [n] new rank of each rank, or NULL;
	                       res->new_ranks, borrowed */
	ir_machine pm;      /* the machine with the new ranks
	                       placed (a map), when the order
	                       changes */
	bool placed;        /* pm is the machine to plan for */
	uint32_t lb_before; /* the bound in the present order */
	uint64_t perm_hash; /* XXH3-64 of new_ranks, 0 without */
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- little-endian encoding ----------------------------------------- */

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* A cost parameter with one bit pattern per value (every NaN alike, and
 * -0 as 0), so the same machine always hashes the same. */
static uint8_t *put_double(uint8_t *p, double d)
{
	uint64_t v;
	if (isnan(d))
		v = UINT64_C(0x7ff8000000000000);
	else {
		if (d == 0)
			d = 0;
		memcpy(&v, &d, sizeof v);
	}
	return put64(p, v);
}

static uint8_t *put_name(uint8_t *p, const char *s)
{
	size_t k = strnlen(s, IR_NAME_MAX - 1);
	memset(p, 0, IR_NAME_MAX);
	memcpy(p, s, k);
	return p + IR_NAME_MAX;
}

/* ---- options ---------------------------------------------------------- */

/* The options in canonical form: the scheduler, its seed and the
 * machine.  Ranks compare its hash; it starts the cache key. */
static void canonical_options(struct insp *I)
{
	const ir_machine *m = &I->m;
	const ir_cost *c = &m->cost;
	uint8_t *p = I->canon;
	p = put_name(p, sch_irregular_name(I->alg));
	p = put64(p, I->seed);
	p = put32(p, (uint32_t)m->topo);
	p = put32(p, (uint32_t)m->routing);
	p = put32(p, (uint32_t)m->ndims);
	for (int i = 0; i < IR_MAX_DIMS; i++)
		p = put32(p, (uint32_t)m->dims[i]);
	for (int l = 0; l < 2; l++)
		for (int i = 0; i < 2; i++)
			p = put32(p, (uint32_t)m->levels[l][i]);
	p = put32(p, (uint32_t)m->ports);
	p = put32(p, (uint32_t)m->nranks);
	/* what decides which ranks share a node and how routes go */
	p = put32(p, (uint32_t)m->ranks_per_node);
	p = put32(p, m->ranks_per_node > 1 ? m->placement : 0);
	p = put32(p, (uint32_t)m->node_ports);
	p = put32(p, m->wrap);
	for (int i = 0; i < IR_MAX_DIMS; i++)
		*p++ = m->order[i];
	p = put32(p, I->reorder);
	p = put_name(p, c->preset);
	const double v[] = {c->alpha,     c->beta,      c->hop,
	                    c->gamma,     c->beta_sat,  c->tau,
	                    c->phi,       c->c_send[0], c->c_send[1],
	                    c->c_recv[0], c->c_recv[1], c->copy[0],
	                    c->copy[1],   c->lambda,    c->combine};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		p = put_double(p, v[i]);
	I->canon_len = (size_t)(p - I->canon);
	I->opt_hash = XXH3_64bits(I->canon, I->canon_len);
}

/* Resolve the options into a scheduler and a machine; 0 or CCP_EINVAL
 * with the context's message set. */
static int resolve_options(struct insp *I, const ccp_inspect_options *o)
{
	static const ccp_inspect_options none;
	char why[200];
	if (!o)
		o = &none;
	const char *name = o->algorithm ? o->algorithm : "link_aware";
	bool found = false;
	for (int a = SCH_IRR_AC; a <= SCH_IRR_SIZED; a++)
		if (strcmp(name, sch_irregular_name((enum sch_irr_alg)a)) ==
		    0) {
			I->alg = (enum sch_irr_alg)a;
			found = true;
		}
	if (!found)
		return ccp__error(I->ctx, CCP_EINVAL,
		                  "inspector: unknown irregular scheduler '%s'",
		                  name);
	I->seed = o->seed;
	I->reorder = o->reorder != 0;
	if (o->machine) {
		I->m = o->machine->m;
		why[0] = '\0';
		if (ir_machine_check(&I->m, why, sizeof why) != 0)
			return ccp__error(I->ctx, CCP_EINVAL,
			                  "inspector: bad machine: %s", why);
		if (I->m.nranks != I->n)
			return ccp__error(
			        I->ctx, CCP_EINVAL,
			        "inspector: the machine has %d ranks, "
			        "the transport %d",
			        (int)I->m.nranks, (int)I->n);
	} else {
		ir_machine *m = &I->m;
		ccp__machine_blank(m, IR_SWITCH);
		m->dims[0] = I->n;
		/* 0: every port, the measured fastest (docs/inspector.md,
		 * "Defaults") */
		if (o->ports == CCP_INSPECT_ALL_PORTS || o->ports == 0)
			m->ports = IR_PORTS_ALL;
		else if (o->ports > 0)
			m->ports = o->ports;
		else
			return ccp__error(I->ctx, CCP_EINVAL,
			                  "inspector: ports must be >= 0 or "
			                  "CCP_INSPECT_ALL_PORTS, got %d",
			                  o->ports);
		if (ir_machine_check(m, why, sizeof why) != 0)
			return ccp__error(I->ctx, CCP_EINVAL,
			                  "inspector: default machine: %s",
			                  why);
	}
	canonical_options(I);
	return 0;
}

/* ---- this rank's row -------------------------------------------------- */

static int msg_cmp(const void *a, const void *b)
{
	const struct msg *x = a, *y = b;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

/* Sort and check the rank's messages, dropping empty ones. */
static int take_row(struct insp *I, const int32_t *dst, const uint64_t *bytes,
                    size_t count)
{
	if (count && (!dst || !bytes))
		return ccp__error(I->ctx, CCP_EINVAL,
		                  "inspector: %zu messages but no arrays",
		                  count);
	I->row_cap = count ? count : 1;
	I->row = ccp__calloc(I->ctx, I->row_cap, sizeof *I->row);
	if (!I->row)
		return ccp__error(I->ctx, CCP_ENOMEM,
		                  "inspector: out of memory");
	size_t k = 0;
	for (size_t i = 0; i < count; i++) {
		if (dst[i] < 0 || dst[i] >= I->n)
			return ccp__error(
			        I->ctx, CCP_EINVAL,
			        "inspector: rank %d: message %zu goes "
			        "to rank %d, outside 0..%d",
			        (int)I->rank, i, (int)dst[i], (int)I->n - 1);
		if (bytes[i] == 0)
			continue;
		if (bytes[i] > (uint64_t)IR_MAX_BYTES)
			return ccp__error(I->ctx, CCP_ERANGE,
			                  "inspector: rank %d: message %zu is "
			                  "%llu bytes, more than 2^40",
			                  (int)I->rank, i,
			                  (unsigned long long)bytes[i]);
		if (dst[i] == I->rank)
			return ccp__error(
			        I->ctx, CCP_EINVAL,
			        "inspector: rank %d: message %zu goes "
			        "to the rank itself",
			        (int)I->rank, i);
		I->row[k].dst = dst[i];
		I->row[k].bytes = bytes[i];
		k++;
	}
	qsort(I->row, k, sizeof *I->row, msg_cmp);
	for (size_t i = 1; i < k; i++)
		if (I->row[i].dst == I->row[i - 1].dst)
			return ccp__error(I->ctx, CCP_EINVAL,
			                  "inspector: rank %d: two messages to "
			                  "rank %d",
			                  (int)I->rank, (int)I->row[i].dst);
	I->nrow = k;
	return 0;
}

/* ---- allgather ---------------------------------------------------------- */

/* Post the (up to two) pieces of the blocks [a, a+cnt) mod n, in buf at
 * the offsets off, to or from peer; empty pieces are skipped (every rank
 * knows every block's size, so both ends skip the same ones). */
static int post(struct insp *I, bool send, int32_t peer, int64_t a, int64_t cnt,
                uint8_t *buf, const uint64_t *off, uint32_t phase)
{
	const struct ccp_transport_ops *ops = I->t->ops;
	int64_t n = I->n;
	int64_t piece[2][2] = {{a, a + cnt < n ? a + cnt : n},
	                       {0, a + cnt > n ? a + cnt - n : 0}};
	for (int k = 0; k < 2; k++) {
		uint64_t from = off[piece[k][0]], to = off[piece[k][1]];
		if (to <= from)
			continue;
		int rc = send ? ops->isend(I->t, peer, phase + (uint32_t)k,
		                           CCP_TAG_DATA, buf + from,
		                           (size_t)(to - from))
		              : ops->irecv(I->t, peer, phase + (uint32_t)k,
		                           CCP_TAG_DATA, buf + from,
		                           (size_t)(to - from));
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Allgather in rounds of doubling distance (Bruck): block b of buf
 * (bytes off[b] .. off[b+1]) is rank b's; this rank's block is in place
 * on entry, and every block is on return.  ceil(log2 n) rounds, each one
 * send and one receive of at most two pieces. */
static int allgather(struct insp *I, uint8_t *buf, const uint64_t *off,
                     uint32_t phase)
{
	int64_t n = I->n, r = I->rank;
	for (int64_t dist = 1; dist < n; dist *= 2, phase += 2) {
		int64_t cnt = dist < n - dist ? dist : n - dist;
		int32_t from = (int32_t)((r + dist) % n);
		int32_t to = (int32_t)((r - dist + n) % n);
		int rc = post(I, false, from, (r + dist) % n, cnt, buf, off,
		              phase);
		if (rc == 0)
			rc = post(I, true, to, r, cnt, buf, off, phase);
		if (rc == 0)
			rc = I->t->ops->waitall(I->t);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- the matrix ---------------------------------------------------------- */

/* After the counts are known: the row offsets, and room for the rows with
 * this rank's in place. */
static int size_rows(struct insp *I)
{
	int64_t total = 0;
	I->off = ccp__calloc(I->ctx, (size_t)I->n + 1, sizeof *I->off);
	if (!I->off)
		return ccp__error(I->ctx, CCP_ENOMEM,
		                  "inspector: out of memory");
	for (int32_t b = 0; b < I->n; b++) {
		uint64_t c = get64(I->counts + (size_t)b * COUNT_WIRE);
		if (c > (uint64_t)I->n - 1)
			return ccp__error(I->ctx, CCP_EINVAL,
			                  "inspector: rank %d reports %llu "
			                  "messages, more than %d ranks allow",
			                  (int)b, (unsigned long long)c,
			                  (int)I->n - 1);
		total += (int64_t)c;
		if (total > IR_MATRIX_MAX_NNZ)
			return ccp__error(I->ctx, CCP_ERANGE,
			                  "inspector: more than 2^28 messages");
		I->off[b + 1] = (uint64_t)total * ENTRY_WIRE;
	}
	I->rows = ccp__alloc(I->ctx, (size_t)I->off[I->n]);
	if (!I->rows)
		return ccp__error(I->ctx, CCP_ENOMEM,
		                  "inspector: no room for %lld messages",
		                  (long long)total);
	uint8_t *p = I->rows + I->off[I->rank];
	for (size_t i = 0; i < I->nrow; i++) {
		p = put32(p, (uint32_t)I->row[i].dst);
		p = put64(p, I->row[i].bytes);
	}
	return 0;
}

/* The gathered rows as a matrix (the same on every rank). */
static int build(struct insp *I)
{
	struct ir_csr b;
	int rc = ir_csr_init(&b, I->n);
	if (rc == 0)
		rc = ir_csr_reserve(&b, (int64_t)(I->off[I->n] / ENTRY_WIRE));
	for (int32_t s = 0; rc == 0 && s < I->n; s++) {
		for (uint64_t o = I->off[s]; rc == 0 && o < I->off[s + 1];
		     o += ENTRY_WIRE) {
			int32_t d = (int32_t)get32(I->rows + o);
			uint64_t v = get64(I->rows + o + 4);
			rc = v > (uint64_t)IR_MAX_BYTES
			             ? CCP_ERANGE
			             : ir_csr_add(&b, d, (int64_t)v);
			if (rc == 0 && v == 0)
				rc = CCP_EINVAL;
		}
		if (rc == 0)
			rc = ir_csr_end_row(&b);
		if (rc && rc != CCP_ENOMEM) {
			ir_csr_fini(&b);
			return ccp__error(
			        I->ctx, rc,
			        "inspector: rank %d's row is malformed "
			        "(%s)",
			        (int)s, ccp_strerror(rc));
		}
	}
	if (rc == 0)
		rc = ir_csr_finish(&b, &I->x);
	ir_csr_fini(&b);
	if (rc)
		return ccp__error(I->ctx, rc,
		                  "inspector: building the matrix: %s",
		                  ccp_strerror(rc));
	return 0;
}

/* The pattern's key: XXH3-128 of the tag, the options, the rows and,
 * with reorder, the new order (the same bytes on every rank). */
static int make_key(struct insp *I)
{
	XXH3_state_t st;
	if (XXH3_128bits_reset(&st) != XXH_OK)
		return ccp__error(I->ctx, CCP_EINTERNAL, "inspector: hash");
	XXH3_128bits_update(&st, KEY_TAG, sizeof KEY_TAG);
	XXH3_128bits_update(&st, I->canon, I->canon_len);
	XXH3_128bits_update(&st, I->counts, (size_t)I->n * COUNT_WIRE);
	XXH3_128bits_update(&st, I->rows, (size_t)I->off[I->n]);
	if (I->new_ranks) {
		uint8_t w[4];
		for (int32_t r = 0; r < I->n; r++) {
			put32(w, (uint32_t)I->new_ranks[r]);
			XXH3_128bits_update(&st, w, sizeof w);
		}
	}
	XXH128_hash_t h = XXH3_128bits_digest(&st);
	/* big-endian, as the compiler's keys (cache.md) */
	for (int i = 0; i < 8; i++) {
		I->key[i] = (uint8_t)(h.high64 >> (56 - 8 * i));
		I->key[8 + i] = (uint8_t)(h.low64 >> (56 - 8 * i));
	}
	return 0;
}

/* ---- reordering ---------------------------------------------------------- */

/* The new order (reorder): sch_place puts row k of the pattern on node
 * node[k].  Unless that lowers (phase bound, hops) strictly, the order
 * stays as it is: an application should not move its data for a plan
 * no better than the one it has.  Otherwise the new ranks of a node go, in
 * increasing order, to the node's processes (ranks of t) in the order of their
 * index on it, so new rank k is the process that sits where row k should.  When
 * that is every process's own rank, nothing changes: the plan is the present
 * order's.  Otherwise the plan is made on the machine with the new
 * ranks placed by a map (pm).  Every rank computes the same order from
 * the same matrix and seed; res gets it. */
static int reorder(struct insp *I, ccp_inspect_result *res)
{
	ccp_context *ctx = I->ctx;
	const ir_machine *m = &I->m;
	struct sch_place_stats ps;
	char why[200] = "";
	int32_t *node = malloc((size_t)I->n * sizeof *node);
	int rc;

	I->new_ranks = ccp__alloc(ctx, (size_t)I->n * sizeof *I->new_ranks);
	if (I->new_ranks) { /* res owns it, I borrows it */
		res->new_ranks = I->new_ranks;
		res->nranks = (size_t)I->n;
	}
	if (!node || !I->new_ranks) {
		free(node);
		return ccp__error(ctx, CCP_ENOMEM, "inspector: out of memory");
	}
	rc = sch_place(m, I->x, I->seed, node, &ps, why, sizeof why);
	if (rc) {
		free(node);
		return ccp__error(ctx, rc, "inspector: placement: %s",
		                  why[0] ? why : ccp_strerror(rc));
	}
	if (ps.bound_after > ps.bound_before ||
	    (ps.bound_after == ps.bound_before &&
	     ps.hops_after >= ps.hops_before))
		for (int32_t r = 0; r < I->n; r++)
			node[r] = ir_node_of(m, r);
	int32_t bad;
	ir_place *pl = ir_place_from_nodes(node, m->nranks, m->nnodes,
	                                   m->ranks_per_node, &rc, &bad, why,
	                                   sizeof why);
	free(node);
	if (!pl)
		return ccp__error(ctx, rc, "inspector: placement: %s", why);
	bool same = true;
	int32_t k = m->ranks_per_node > 1 ? m->ranks_per_node : 1;
	for (int32_t r = 0; r < I->n; r++) {
		int32_t pos = pl->pos[r];
		int32_t proc = ir_node_rank(m, pos / k, pos % k);
		I->new_ranks[proc] = r;
		same = same && proc == r;
	}
	if (same) {
		ir_place_release(pl);
	} else {
		I->pm = *m;
		I->pm.placement = IR_PLACE_MAP;
		I->pm.place = pl;
		I->placed = true;
	}
	I->me = I->new_ranks[I->rank];
	I->lb_before = ps.bound_before;
	I->perm_hash =
	        XXH3_64bits(I->new_ranks, (size_t)I->n * sizeof *I->new_ranks);
	return 0;
}

/* ---- cache, scheduling, loading ---------------------------------------- */

/* Rank 0 opens the cache for writing (creating it) before the first
 * agreement, so that the other ranks, which open it read-only after the
 * gather, never meet a file still being made.  A failure is kept in
 * *status and makes every look-up a miss. */
static void open_writer(struct insp *I, const char *path,
                        ccp_inspect_result *res)
{
	char err[256] = "";
	int rc = cache_open(path, CACHE_NO_CHECK, &I->c, NULL, err, sizeof err);
	if (rc) {
		I->c = NULL;
		res->cache_status = rc;
		snprintf(res->cache_why, sizeof res->cache_why, "%.*s",
		         (int)sizeof res->cache_why - 1, err);
	}
}

/* Look the key up: 0 with the image on a hit, CCP_ENOTFOUND on a miss.
 * A cache that cannot be opened or read is a miss; why goes to res.
 * Rank 0 uses (and keeps, for the store) the handle of open_writer; the
 * other ranks open the file read-only for the look-up alone. */
static int lookup(struct insp *I, const char *path, ccp_inspect_result *res)
{
	char err[256] = "";
	void *blob = NULL;
	size_t len = 0;
	int rc;
	if (I->rank == 0 && !I->c)
		return CCP_ENOTFOUND;
	if (I->rank) {
		rc = cache_open(path, CACHE_READONLY | CACHE_NO_CHECK, &I->c,
		                NULL, err, sizeof err);
		if (rc) {
			/* no file yet: an ordinary miss */
			if (rc != CCP_ENOTFOUND) {
				res->cache_status = rc;
				snprintf(res->cache_why, sizeof res->cache_why,
				         "%.*s", (int)sizeof res->cache_why - 1,
				         err);
			}
			I->c = NULL;
			return CCP_ENOTFOUND;
		}
	}
	rc = cache_get(I->c, I->key, &blob, &len, NULL);
	if (rc && rc != CCP_ENOTFOUND) {
		res->cache_status = rc;
		snprintf(res->cache_why, sizeof res->cache_why, "%s",
		         cache_errmsg(I->c));
	}
	if (I->rank) {
		cache_close(I->c);
		I->c = NULL;
	}
	if (rc)
		return CCP_ENOTFOUND;
	I->img = blob;
	I->img_len = len;
	I->had_entry = true;
	return 0;
}

/* Schedule, verify, lower and encode the plan into I->img: for the
 * machine as it is, or with the new order placed on it (sch_generate
 * builds the plan over positions and renames its ranks). */
static int schedule(struct insp *I)
{
	ir_plan p;
	ir_report rep;
	ir_slice *sl = NULL;
	char why[256] = "";
	memset(&rep, 0, sizeof rep);
	const struct sch_generator *g = sch_find(sch_irregular_name(I->alg));
	ir_comm c = {.coll = IR_IRREGULAR, .matrix = I->x, .seed = I->seed};
	struct sch_options so = {.seed = I->seed};
	int rc = CCP_EINTERNAL;
	if (g)
		rc = sch_generate(g, I->placed ? &I->pm : &I->m, &c, &so, &p);
	else
		ir_plan_init(&p, &I->m, &c, sch_irregular_name(I->alg));
	if (rc) {
		ir_plan_fini(&p);
		return ccp__error(I->ctx, rc, "inspector: %s: %s",
		                  sch_irregular_name(I->alg), ccp_strerror(rc));
	}
	ir_plan_trim(&p);
	memcpy(p.input_hash, I->key, sizeof p.input_hash);
	if ((rc = ir_verify(&p, &rep)) != 0) {
		rc = ccp__error(I->ctx, rc,
		                "inspector: %s: plan rejected by the verifier: "
		                "%s",
		                sch_irregular_name(I->alg), rep.message);
		goto out;
	}
	if ((rc = ir_lower(&p, &sl)) != 0) {
		rc = ccp__error(I->ctx, rc, "inspector: lowering: %s",
		                ccp_strerror(rc));
		goto out;
	}
	rc = ir_plan_encode(&p, &rep, sl, &I->img, &I->img_len, why,
	                    sizeof why);
	if (rc)
		rc = ccp__error(I->ctx, rc, "inspector: encoding: %s%s%s",
		                ccp_strerror(rc), why[0] ? ": " : "", why);
out:
	ir_slices_free(sl, p.machine.nranks);
	ir_report_fini(&rep);
	ir_plan_fini(&p);
	return rc;
}

/* The layout of the plan's rank I->me into res, from the matrix's row
 * and column (rows hold non-empty messages by ascending destination). */
static int layout(struct insp *I, ccp_inspect_result *res)
{
	ccp_context *ctx = I->ctx;
	const ir_matrix *x = I->x;
	size_t nr = 0;
	for (int32_t s = 0; s < I->n; s++)
		nr += ir_matrix_get(x, s, I->me) > 0;
	size_t ns = (size_t)(x->row[I->me + 1] - x->row[I->me]);
	res->send_peer = ccp__alloc(ctx, ns * sizeof(int32_t));
	res->send_off = ccp__alloc(ctx, ns * sizeof(uint64_t));
	res->send_len = ccp__alloc(ctx, ns * sizeof(uint64_t));
	res->recv_peer = ccp__alloc(ctx, nr * sizeof(int32_t));
	res->recv_off = ccp__alloc(ctx, nr * sizeof(uint64_t));
	res->recv_len = ccp__alloc(ctx, nr * sizeof(uint64_t));
	res->nsend = ns;
	res->nrecv = nr;
	res->ctx = ctx;
	if (!res->send_peer || !res->send_off || !res->send_len ||
	    !res->recv_peer || !res->recv_off || !res->recv_len)
		return ccp__error(ctx, CCP_ENOMEM, "inspector: out of memory");
	uint64_t o = 0;
	for (size_t i = 0; i < ns; i++) {
		int64_t e = x->row[I->me] + (int64_t)i;
		res->send_peer[i] = x->dst[e];
		res->send_off[i] = o;
		res->send_len[i] = (uint64_t)x->bytes[e];
		o += (uint64_t)x->bytes[e];
	}
	res->send_bytes = o;
	o = 0;
	size_t k = 0;
	for (int32_t s = 0; s < I->n; s++) {
		int64_t v = ir_matrix_get(x, s, I->me);
		if (v <= 0)
			continue;
		res->recv_peer[k] = s;
		res->recv_off[k] = o;
		res->recv_len[k] = (uint64_t)v;
		o += (uint64_t)v;
		k++;
	}
	res->recv_bytes = o;
	return 0;
}

/* Load the rank's slice from I->img and check that its buffers are those
 * of the pattern. */
static int load(struct insp *I, const ccp_inspect_result *res, ccp_plan **plan,
                uint64_t *plan_hash)
{
	ccp_plan_info info;
	int rc = ccp_plan_load_memory(I->ctx, I->img, I->img_len, I->me, plan);
	if (rc)
		return rc;
	if ((rc = ccp_plan_get_info(*plan, &info)) != 0)
		return rc;
	if (strcmp(info.collective, ir_coll_name(IR_IRREGULAR)) != 0 ||
	    info.nranks != I->n || info.send_bytes != res->send_bytes ||
	    info.recv_bytes != res->recv_bytes)
		return ccp__error(I->ctx, CCP_EMISMATCH,
		                  "inspector: rank %d: the plan's buffers "
		                  "(%llu, %llu bytes) are not the pattern's "
		                  "(%llu, %llu)",
		                  (int)I->me,
		                  (unsigned long long)info.send_bytes,
		                  (unsigned long long)info.recv_bytes,
		                  (unsigned long long)res->send_bytes,
		                  (unsigned long long)res->recv_bytes);
	*plan_hash = info.plan_hash;
	return 0;
}

/* ---- agreement ---------------------------------------------------------- */

/* The common verdict global of an agreement to which this rank passed
 * status: a rank that was fine but sees a failure says that the failure
 * was another rank's. */
static int verdict(struct insp *I, int global, int status)
{
	if (global && status == 0) {
		if (global == CCP_EMISMATCH)
			ccp__error(I->ctx, global,
			           "inspector: ranks passed different options "
			           "or built different plans");
		else
			ccp__error(I->ctx, global,
			           "inspector: another rank failed: %s",
			           ccp_strerror(global));
	}
	return global;
}

/* Every rank passes its status; returns the common verdict (0 or the
 * most negative status, CCP_EMISMATCH when the hashes differ) or the
 * transport's own failure. */
static int agree(struct insp *I, uint64_t hash, int status)
{
	int global = 0;
	int rc = I->t->ops->agree(I->t, hash, status, &global);
	if (rc)
		return rc;
	return verdict(I, global, status);
}

/* ---- the call -------------------------------------------------------- */

/* Header facts of the image into res. */
static void describe(struct insp *I, ccp_inspect_result *res)
{
	ir_file_info fi;
	char why[128];
	if (ir_file_info_read(I->img, I->img_len, &fi, why, sizeof why) == 0) {
		snprintf(res->algorithm, sizeof res->algorithm, "%s",
		         fi.algorithm);
		res->nphases = fi.nphases;
		res->lb_phases = fi.lb_phases;
	}
	res->plan_bytes = I->img_len;
	res->messages = I->x->nnz;
	res->new_rank = I->me;
	res->lb_phases_before = I->reorder ? I->lb_before : res->lb_phases;
	memcpy(res->key, I->key, sizeof res->key);
}

/* Rank 0, after a miss: store the plan under the key. */
static void store(struct insp *I, ccp_inspect_result *res)
{
	char text[512];
	ir_file_info fi;
	char why[128];
	if (!I->c ||
	    ir_file_info_read(I->img, I->img_len, &fi, why, sizeof why) != 0)
		return;
	snprintf(text, sizeof text,
	         "# ccplan inspector: an irregular pattern of %d ranks, "
	         "%lld messages\n"
	         "# scheduler %s, seed %llu, machine %s of %d ranks, ports "
	         "%d\n",
	         (int)I->n, (long long)I->x->nnz, sch_irregular_name(I->alg),
	         (unsigned long long)I->seed, ir_topo_name(I->m.topo),
	         (int)I->m.nranks, I->m.ports);
	struct cache_meta meta = {.phases = fi.nphases,
	                          .lb_phases = fi.lb_phases,
	                          .predicted = NAN,
	                          .canonical = text};
	snprintf(meta.algorithm, sizeof meta.algorithm, "%s", fi.algorithm);
	int rc = cache_put(I->c, I->key, I->img, I->img_len, &meta);
	if (rc) {
		res->cache_status = rc;
		snprintf(res->cache_why, sizeof res->cache_why, "%s",
		         cache_errmsg(I->c));
	} else {
		res->cache_stored = 1;
	}
}

static void insp_fini(struct insp *I)
{
	ccp_context *ctx = I->ctx;
	ccp__free(ctx, I->row, I->row_cap * sizeof *I->row);
	ccp__free(ctx, I->counts, (size_t)I->n * COUNT_WIRE);
	ccp__free(ctx, I->coff, ((size_t)I->n + 1) * sizeof *I->coff);
	if (I->off) {
		ccp__free(ctx, I->rows, (size_t)I->off[I->n]);
		ccp__free(ctx, I->off, ((size_t)I->n + 1) * sizeof *I->off);
	}
	ir_matrix_free(I->x);
	if (I->placed)
		ir_place_release(I->pm.place);
	cache_close(I->c);
	free(I->img);
}

int ccp_inspect(ccp_context *ctx, ccp_transport *t, const int32_t *dst,
                const uint64_t *bytes, size_t count,
                const ccp_inspect_options *opt, ccp_plan **plan,
                ccp_inspect_result *res)
{
	if (!ctx || !t || !t->ops)
		return ccp__error(ctx, CCP_EINVAL,
		                  "inspector: no context or transport");
	double t0 = now(), t1;
	ccp_inspect_result dummy;
	ccp_plan *dummy_plan = NULL;
	struct insp I;
	memset(&I, 0, sizeof I);
	I.ctx = ctx;
	I.t = t;
	I.rank = t->rank;
	I.me = t->rank;
	I.n = t->size;
	if (!res)
		res = &dummy;
	memset(res, 0, sizeof *res);
	res->ctx = ctx;
	int st, rc;

	/* refused on every rank that calls it: the inspector's exchanges
	 * would mix with the execution's */
	if (t->busy) {
		if (plan)
			*plan = NULL;
		return ccp__error(ctx, CCP_EBUSY,
		                  "inspector: the transport has an execution "
		                  "in flight; finish it with ccp_plan_test or "
		                  "ccp_plan_wait first");
	}

	/* 1. check the options and the row; agree that every rank may go on
	 * and passed the same options */
	st = resolve_options(&I, opt);
	if (!plan) {
		if (st == 0)
			st = ccp__error(ctx, CCP_EINVAL,
			                "inspector: no plan pointer");
		plan = &dummy_plan;
	}
	*plan = NULL;
	if (st == 0)
		st = take_row(&I, dst, bytes, count);
	if (st == 0) {
		I.counts = ccp__calloc(ctx, (size_t)I.n, COUNT_WIRE);
		I.coff = ccp__calloc(ctx, (size_t)I.n + 1, sizeof *I.coff);
		if (!I.counts || !I.coff)
			st = ccp__error(ctx, CCP_ENOMEM,
			                "inspector: out of memory");
	}
	const char *path = opt && opt->cache_path && opt->cache_path[0]
	                           ? opt->cache_path
	                           : NULL;
	if (st == 0 && I.rank == 0 && path)
		open_writer(&I, path, res);
	if ((rc = agree(&I, I.opt_hash, st)) != 0)
		goto out;

	/* 2. the row lengths, then the rows, on every rank */
	put64(I.counts + (size_t)I.rank * COUNT_WIRE, I.nrow);
	for (int32_t b = 0; b <= I.n; b++)
		I.coff[b] = (uint64_t)b * COUNT_WIRE;
	if ((rc = allgather(&I, I.counts, I.coff, PHASE_COUNTS)) != 0)
		goto out;
	st = size_rows(&I);
	if ((rc = agree(&I, I.opt_hash, st)) != 0)
		goto out;
	if ((rc = allgather(&I, I.rows, I.off, PHASE_ROWS)) != 0)
		goto out;
	st = build(&I);
	t1 = now();
	res->t_gather = t1 - t0;

	/* 2b. reorder: the new order, agreed */
	if (I.reorder) {
		if (st == 0)
			st = reorder(&I, res);
		if ((rc = agree(&I, I.perm_hash, st)) != 0)
			goto out;
		res->t_place = now() - t1;
		t1 = now();
	}
	if (st == 0)
		st = make_key(&I);
	if (st == 0)
		st = layout(&I, res);

	/* 3. the cache: a hit only when every rank found the plan */
	int local = st;
	if (st == 0 && path)
		local = lookup(&I, path, res);
	else if (st == 0)
		local = CCP_ENOTFOUND;
	int global = 0;
	if ((rc = I.t->ops->agree(I.t, I.opt_hash, local, &global)) != 0)
		goto out;
	if (global && global != CCP_ENOTFOUND) {
		/* every rank sees the same failure and stops */
		rc = verdict(&I, global, st);
		goto out;
	}
	/* CCP_ENOTFOUND is more negative than most codes, so it may hide
	 * a failure here: a rank that failed carries its code to the
	 * agreement of step 4 */
	res->t_lookup = now() - t1;
	t1 = now();

	/* 4. schedule (on a miss), load the slice, agree on the plan */
	bool hit = global == 0;
	if (st == 0 && !hit) {
		if (I.had_entry) {
			free(I.img);
			I.img = NULL;
			I.img_len = 0;
		}
		st = schedule(&I);
	}
	res->t_schedule = hit ? 0 : now() - t1;
	t1 = now();
	uint64_t plan_hash = 0;
	if (st == 0)
		st = load(&I, res, plan, &plan_hash);
	if ((rc = agree(&I, I.opt_hash, st)) != 0)
		goto out;
	if ((rc = agree(&I, plan_hash, 0)) != 0)
		goto out;
	res->t_load = now() - t1;
	res->cache_hit = hit;
	describe(&I, res);

	/* 5. rank 0 stores a plan it did not find */
	if (I.rank == 0 && !I.had_entry && path) {
		t1 = now();
		store(&I, res);
		res->t_store = now() - t1;
	}
	res->t_total = now() - t0;
	insp_fini(&I);
	if (res == &dummy)
		ccp_inspect_result_fini(res);
	ccp__ok(ctx);
	return 0;

out:
	insp_fini(&I);
	ccp_plan_free(*plan);
	*plan = NULL;
	ccp_inspect_result_fini(res);
	return rc;
}

void ccp_inspect_result_fini(ccp_inspect_result *res)
{
	if (!res || !res->ctx)
		return;
	ccp_context *ctx = res->ctx;
	ccp__free(ctx, res->send_peer, res->nsend * sizeof(int32_t));
	ccp__free(ctx, res->send_off, res->nsend * sizeof(uint64_t));
	ccp__free(ctx, res->send_len, res->nsend * sizeof(uint64_t));
	ccp__free(ctx, res->recv_peer, res->nrecv * sizeof(int32_t));
	ccp__free(ctx, res->recv_off, res->nrecv * sizeof(uint64_t));
	ccp__free(ctx, res->recv_len, res->nrecv * sizeof(uint64_t));
	ccp__free(ctx, res->new_ranks, res->nranks * sizeof(int32_t));
	memset(res, 0, sizeof *res);
}

int ccp_inspect_offset(const ccp_inspect_result *res, int side, int32_t peer,
                       uint64_t *off, uint64_t *len)
{
	if (!res || (side != CCP_INSPECT_SEND && side != CCP_INSPECT_RECV))
		return CCP_EINVAL;
	const int32_t *p =
	        side == CCP_INSPECT_SEND ? res->send_peer : res->recv_peer;
	size_t lo = 0, hi = side == CCP_INSPECT_SEND ? res->nsend : res->nrecv;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p[mid] < peer)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t n = side == CCP_INSPECT_SEND ? res->nsend : res->nrecv;
	if (lo == n || p[lo] != peer)
		return CCP_ENOTFOUND;
	if (off)
		*off = side == CCP_INSPECT_SEND ? res->send_off[lo]
		                                : res->recv_off[lo];
	if (len)
		*len = side == CCP_INSPECT_SEND ? res->send_len[lo]
		                                : res->recv_len[lo];
	return 0;
}
