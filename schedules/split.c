/*
 * split.c - the contention splitter: cut every phase of a plan into
 * consecutive sub-phases in which no directed link carries more transfers
 * than its capacity (ir_link_capacity: one, but for a fat tree's links of
 * several cables),
 * no rank sends or receives more than its ports allow, and, with several
 * ranks per node, no node sends or receives more network transfers than
 * its network ports allow (transfers inside a node use none).
 *
 * It is how `contention: forbid` is honoured by algorithms that are
 * defined to share links, such as the direct all-to-all algorithms of
 * 003 (section 3: Thakur and Choudhary allow "a small amount of link
 * contention" instead of Scott's a^3/4 contention-free phases).
 *
 * First fit, in transfer order: each transfer goes to the first sub-phase
 * of its own phase where every link of its route is free, both of its
 * ranks still have a port and, for a network transfer between nodes of
 * several ranks, both nodes a network port.  Each resource of a phase (a
 * directed link, a rank's or a node's send or receive side) keeps the set
 * of sub-phases in which it is full as a bitset, so a transfer's first
 * fit is the lowest zero bit of the OR of its resources' bitsets: a few
 * word operations per hop while a phase splits into at most 64
 * sub-phases, and
 * O(hops * (1 + k/64)) for a transfer placed in sub-phase k in general.
 * Resources are found through a slot array indexed by link id when the
 * machine has at most 2^25 link ids (the verifier's limit for its dense
 * counters), and through a hash table otherwise.  Neither is cleared
 * between phases: a slot is trusted only if the resource it points at
 * names the same key (the sparse-set trick), and hash entries carry the
 * generation of the phase that wrote them.
 *
 * Transfers are only reordered; they keep their block ranges, so the
 * block array is untouched.
 */
#include <stdlib.h>
#include <string.h>

#include "sched.h"
#include "rng.h"

/* Largest link-id space indexed densely (as the verifier does). */
#define DENSE_MAX (UINT64_C(1) << 25)

/* One resource of the current phase and the sub-phases where it is full:
 * the first 64 in a word of its own, the rest in the pool. */
struct res {
	uint64_t key;   /* link id, nlinks + 2 * rank + side (0 send), or
	                   nlinks + 2 * nranks + 2 * node + side */
	uint64_t w0;    /* sub-phases 0..63 */
	uint64_t more;  /* pool offset of the words for 64.. */
	uint32_t nmore; /* pool words (bits past them are 0) */
	uint32_t limit; /* transfers it takes per sub-phase: a link's
	                   capacity, a rank's or node's ports */
};

/* An entry of a uint64 -> uint32 hash table with generations. */
struct hent {
	uint64_t key;
	uint32_t val;
	uint32_t gen; /* entry is live only when gen equals the table's */
};

struct hmap {
	struct hent *e;
	uint64_t mask;  /* capacity - 1, capacity a power of two (0: none) */
	uint64_t count; /* live entries */
	uint32_t gen;   /* current generation, >= 1 */
};

struct splitter {
	const ir_machine *m;
	uint64_t nl;        /* ir_nlinks: rank keys start here */
	uint32_t *dense;    /* key -> resource slot, or NULL: use slots */
	struct hmap slots;  /* key -> resource slot, for large machines */
	struct hmap counts; /* (slot << 32 | sub-phase) -> transfers placed,
	                       for ranks with more than one port */
	struct res *res;    /* resources of the current phase */
	uint32_t nres, cap_res;
	uint64_t *pool; /* bitset words of the current phase */
	uint64_t npool, cap_pool;
	uint64_t *route; /* route of the transfer being placed */
	uint32_t *cur;   /* its resources: links, then send, receive, then
	                    its nodes' network send and receive */
};

/* Index of the lowest set bit of a nonzero word, by halving (strict C11,
 * no compiler builtins; called once per transfer, not per hop). */
static unsigned lowest_bit(uint64_t x)
{
	unsigned n = 0;
	for (unsigned half = 32; half > 0; half /= 2)
		if ((x & ((UINT64_C(1) << half) - 1)) == 0) {
			n += half;
			x >>= half;
		}
	return n;
}

/* Start a new generation: every entry becomes dead without a sweep. */
static void hmap_reset(struct hmap *h)
{
	h->count = 0;
	if (++h->gen == 0) { /* wrapped: clear once every 2^32 phases */
		if (h->e)
			memset(h->e, 0, (h->mask + 1) * sizeof *h->e);
		h->gen = 1;
	}
}

/* The live entry for key, or the dead slot where it would go. */
static struct hent *hmap_slot(const struct hmap *h, uint64_t key)
{
	uint64_t k = ir_mix64(key) & h->mask;
	for (;;) {
		struct hent *e = &h->e[k];
		if (e->gen != h->gen || e->key == key)
			return e;
		k = (k + 1) & h->mask;
	}
}

/* Find or insert key; *val points at its value (0 when new). */
static int hmap_get(struct hmap *h, uint64_t key, uint32_t **val)
{
	if (!h->e || (h->count + 1) * 2 > h->mask + 1) {
		uint64_t cap = h->e ? (h->mask + 1) * 2 : 1024;
		struct hent *ne = calloc(cap, sizeof *ne);
		if (!ne)
			return CCP_ENOMEM;
		struct hmap t = {ne, cap - 1, 0, h->gen ? h->gen : 1};
		for (uint64_t k = 0; h->e && k <= h->mask; k++)
			if (h->e[k].gen == h->gen) {
				*hmap_slot(&t, h->e[k].key) = h->e[k];
				t.count++;
			}
		free(h->e);
		*h = t;
	}
	struct hent *e = hmap_slot(h, key);
	if (e->gen != h->gen) {
		*e = (struct hent){key, 0, h->gen};
		h->count++;
	}
	*val = &e->val;
	return 0;
}

/* The slot of the resource named key in this phase, created (empty
 * bitset, the given limit) if the phase has not used it yet. */
static inline int res_get(struct splitter *s, uint64_t key, uint32_t limit,
                          uint32_t *slot)
{
	uint32_t *where, k;
	int rc;
	if (s->dense) {
		where = &s->dense[key];
		k = *where;
		if (k < s->nres && s->res[k].key == key) {
			*slot = k;
			return 0;
		}
	} else {
		if ((rc = hmap_get(&s->slots, key, &where)) != 0)
			return rc;
		k = *where;
		if (k < s->nres && s->res[k].key == key) {
			*slot = k;
			return 0;
		}
	}
	if (s->nres == s->cap_res) {
		uint32_t cap = s->cap_res ? s->cap_res * 2 : 1024;
		if (cap < s->cap_res)
			return CCP_ERANGE;
		struct res *q = realloc(s->res, (size_t)cap * sizeof *q);
		if (!q)
			return CCP_ENOMEM;
		s->res = q;
		s->cap_res = cap;
	}
	s->res[s->nres] = (struct res){key, 0, 0, 0, limit};
	*where = s->nres;
	*slot = s->nres++;
	return 0;
}

/* Word w of a resource's bitset (0 past its end). */
static uint64_t res_word(const struct splitter *s, uint32_t slot, uint64_t w)
{
	const struct res *r = &s->res[slot];
	if (w == 0)
		return r->w0;
	return w - 1 < r->nmore ? s->pool[r->more + w - 1] : 0;
}

/* Mark sub-phase k full for a resource, growing its pool words as needed
 * (the old words are copied to the end of the pool, which at most
 * doubles the pool). */
static int res_mark(struct splitter *s, uint32_t slot, uint32_t k)
{
	struct res *r = &s->res[slot];
	if (k < 64) {
		r->w0 |= UINT64_C(1) << k;
		return 0;
	}
	uint64_t w = k / 64 - 1;
	if (w >= r->nmore) {
		uint64_t nw = r->nmore ? (uint64_t)r->nmore * 2 : 1;
		if (nw <= w)
			nw = w + 1;
		if (nw > UINT32_MAX)
			return CCP_ERANGE;
		if (s->npool + nw > s->cap_pool) {
			uint64_t cap = s->cap_pool ? s->cap_pool * 2 : 4096;
			while (cap < s->npool + nw)
				cap *= 2;
			uint64_t *q = realloc(s->pool, cap * sizeof *q);
			if (!q)
				return CCP_ENOMEM;
			s->pool = q;
			s->cap_pool = cap;
		}
		uint64_t *dst = s->pool + s->npool;
		if (r->nmore)
			memcpy(dst, s->pool + r->more, r->nmore * sizeof *dst);
		memset(dst + r->nmore, 0, (nw - r->nmore) * sizeof *dst);
		r->more = s->npool;
		r->nmore = (uint32_t)nw;
		s->npool += nw;
	}
	s->pool[r->more + w] |= UINT64_C(1) << (k % 64);
	return 0;
}

/* Record one more transfer of a resource in sub-phase k; mark it full
 * when it reaches its limit. */
static int res_use(struct splitter *s, uint32_t slot, uint32_t k)
{
	if (s->res[slot].limit <= 1)
		return res_mark(s, slot, k);
	uint32_t *n;
	int rc = hmap_get(&s->counts, (uint64_t)slot << 32 | k, &n);
	if (rc)
		return rc;
	if (++*n >= s->res[slot].limit)
		return res_mark(s, slot, k);
	return 0;
}

/* Ports of rank r in one sub-phase (at least 1, so that every transfer
 * fits somewhere; the verifier judges a rank with no links). */
static uint32_t port_limit(const ir_machine *m, int32_t r)
{
	int k = ir_port_limit(m, r);
	return k > 0 ? (uint32_t)k : 1;
}

/* Network ports of node q in one (sub-)phase, at least 1 (sched.h). */
uint32_t sch_node_port_limit(const ir_machine *m, int32_t q)
{
	int k = ir_node_port_limit(m, q);
	return k > 0 ? (uint32_t)k : 1;
}

/* First-fit sub-phase of transfer x in the current phase, which is then
 * marked in all the resources x occupies. */
static int place(struct splitter *s, const ir_transfer *x, uint32_t *sub)
{
	const ir_machine *m = s->m;
	if (x->src < 0 || x->src >= m->nranks || x->dst < 0 ||
	    x->dst >= m->nranks)
		return CCP_EINVAL;
	int h = ir_route_xfer(m, x, s->route);
	if (h < 0)
		return CCP_EINVAL;
	int rc, nr = 0;
	for (int j = 0; j < h; j++)
		if ((rc = res_get(s, s->route[j],
		                  (uint32_t)ir_link_capacity(m, s->route[j]),
		                  &s->cur[nr++])) != 0)
			return rc;
	if ((rc = res_get(s, s->nl + 2 * (uint64_t)x->src,
	                  port_limit(m, x->src), &s->cur[nr++])) != 0 ||
	    (rc = res_get(s, s->nl + 2 * (uint64_t)x->dst + 1,
	                  port_limit(m, x->dst), &s->cur[nr++])) != 0)
		return rc;
	int32_t ns = ir_node_of(m, x->src), nd = ir_node_of(m, x->dst);
	uint64_t nkey = s->nl + 2 * (uint64_t)m->nranks;
	if (ir_machine_has_nodes(m) && ns != nd &&
	    ((rc = res_get(s, nkey + 2 * (uint64_t)ns,
	                   sch_node_port_limit(m, ns), &s->cur[nr++])) != 0 ||
	     (rc = res_get(s, nkey + 2 * (uint64_t)nd + 1,
	                   sch_node_port_limit(m, nd), &s->cur[nr++])) != 0))
		return rc;
	/* the lowest sub-phase where no resource is full: word 0 first,
	 * which is all there is while a phase has <= 64 sub-phases */
	uint64_t full = 0, maxw = 0;
	for (int j = 0; j < nr; j++) {
		const struct res *r = &s->res[s->cur[j]];
		full |= r->w0;
		if (r->nmore > maxw)
			maxw = r->nmore;
	}
	uint64_t k;
	if (~full) {
		k = lowest_bit(~full);
	} else {
		k = 64 * (maxw + 1); /* past every bitset: free everywhere */
		for (uint64_t w = 1; w <= maxw; w++) {
			full = 0;
			for (int j = 0; j < nr; j++)
				full |= res_word(s, s->cur[j], w);
			if (~full) {
				k = 64 * w + lowest_bit(~full);
				break;
			}
		}
	}
	if (k >= UINT32_MAX)
		return CCP_ERANGE;
	for (int j = 0; j < nr; j++)
		if ((rc = res_use(s, s->cur[j], (uint32_t)k)) != 0)
			return rc;
	*sub = (uint32_t)k;
	return 0;
}

/* Rebuild p's phases so that no phase has link or node contention, by
 * first fit within each phase (sched.h); the plan's contention flags are
 * cleared.  On failure p is unchanged. */
int sch_split_contention(ir_plan *p)
{
	int rc = 0;
	const ir_machine *m = &p->machine;
	struct splitter s = {.m = m, .nl = ir_nlinks(m)};
	uint32_t *sub = NULL, *count = NULL;
	ir_phase *phases = NULL;
	ir_transfer *xs = NULL;
	uint64_t nphases = 0, cap_phases = 0;

	/* the phases must tile the transfers, as the verifier requires */
	uint64_t tiled = 0;
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		if (p->phases[ph].transfer != tiled)
			return CCP_EINVAL;
		tiled += p->phases[ph].ntransfers;
	}
	if (tiled != p->ntransfers)
		return CCP_EINVAL;
	if (p->ntransfers == 0)
		goto out_flags;
	int maxh = ir_route_max(m);
	s.route = malloc(((size_t)(maxh > 0 ? maxh : 0) + 1) * sizeof *s.route);
	s.cur = malloc(((size_t)(maxh > 0 ? maxh : 0) + 4) * sizeof *s.cur);
	sub = malloc((size_t)p->ntransfers * sizeof *sub);
	count = malloc(((size_t)p->ntransfers + 1) * sizeof *count);
	xs = malloc((size_t)p->ntransfers * sizeof *xs);
	if (!s.route || !s.cur || !sub || !count || !xs)
		goto out_nomem;
	if (s.nl <= DENSE_MAX) {
		uint64_t nkeys = s.nl + 2 * (uint64_t)m->nranks +
		                 2 * (uint64_t)m->nnodes;
		if (!(s.dense = calloc(nkeys ? nkeys : 1, sizeof *s.dense)))
			goto out_nomem;
	}

	uint64_t nx = 0;
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		const ir_transfer *in = p->transfers + p->phases[ph].transfer;
		uint32_t nt = p->phases[ph].ntransfers, nsub = 0;
		s.nres = 0;
		s.npool = 0;
		hmap_reset(&s.slots);
		hmap_reset(&s.counts);
		for (uint32_t t = 0; t < nt; t++) {
			if ((rc = place(&s, &in[t], &sub[t])) != 0)
				goto out;
			if (sub[t] + 1 > nsub)
				nsub = sub[t] + 1;
		}
		/* an empty phase stays one empty phase */
		uint64_t add = nsub ? nsub : 1;
		if (nphases + add > UINT32_MAX) {
			rc = CCP_ERANGE;
			goto out;
		}
		if (nphases + add > cap_phases) {
			uint64_t cap = cap_phases ? cap_phases * 2 : 64;
			while (cap < nphases + add)
				cap *= 2;
			ir_phase *q = realloc(phases, cap * sizeof *q);
			if (!q)
				goto out_nomem;
			phases = q;
			cap_phases = cap;
		}
		/* counting sort by sub-phase, stable in transfer order */
		memset(count, 0, ((size_t)nsub + 1) * sizeof *count);
		for (uint32_t t = 0; t < nt; t++)
			count[sub[t] + 1]++;
		for (uint32_t k = 0; k < nsub; k++) {
			phases[nphases + k] = (ir_phase){
			        (uint32_t)(nx + count[k]), count[k + 1]};
			count[k + 1] += count[k];
		}
		for (uint32_t t = 0; t < nt; t++)
			xs[nx + count[sub[t]]++] = in[t];
		if (nsub == 0)
			phases[nphases] = (ir_phase){(uint32_t)nx, 0};
		nphases += add;
		nx += nt;
	}
	free(p->phases);
	free(p->transfers);
	p->phases = phases;
	p->nphases = p->cap_phases = (uint32_t)nphases;
	p->transfers = xs;
	p->cap_transfers = p->ntransfers;
	phases = NULL;
	xs = NULL;
out_flags:
	p->flags &= ~(IR_PLAN_LINK_CONTENTION | IR_PLAN_NODE_CONTENTION);
	goto out;

out_nomem:
	rc = CCP_ENOMEM;
out:
	free(s.route);
	free(s.cur);
	free(s.dense);
	free(s.slots.e);
	free(s.counts.e);
	free(s.res);
	free(s.pool);
	free(sub);
	free(count);
	free(phases);
	free(xs);
	return rc;
}
