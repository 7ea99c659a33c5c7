/*
 * verify.c - the verifier: the type checker of this compiler.  No plan is
 * written that it has not accepted.
 *
 * It replays the plan symbolically, phase by phase, on the data blocks the
 * transfers carry, and checks:
 *   structure   indices in range, one transfer per ordered pair and phase,
 *               bytes equal to the sum of the blocks carried;
 *   causality   a rank sends only blocks it held before the phase;
 *   delivery    at the end every rank holds what the communication asks
 *               for (duplicates are counted and reported, not fatal);
 *   node        per phase, each rank's sends and receives fit its ports;
 *               with several ranks per node, the transfers that leave
 *               (enter) a node fit the node's network ports as well;
 *   link        per phase, no directed link carries two transfers under
 *               the machine's routing, unless the plan declares that it
 *               allows contention; the measured load is reported either way;
 *   multicast   copies of one hardware multicast only where the machine's
 *               routers replicate, carrying the same blocks, on one path
 *               up to the split and one copy per link after it
 *               (docs/verifier.md).
 * Reductions are checked per (rank, element block) with a multiset hash:
 * each contribution has a 64-bit key; a partial carries the count and
 * the sum of its keys, so a contribution counted twice or lost shows
 * where the result must end.  A partial also carries a hash of its
 * combining tree, commutative at each node (a op b == b op a in IEEE
 * arithmetic) but not associative: ranks that end with the same tree
 * for a block compute the same bits, which is what `reproducible` means
 * (docs/collectives.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "rng.h"

/* ---- a set of (rank, block) held after being received --------------- */

/* Blocks of one origin with an index below span (a broadcast's
 * segments, a scatter's blocks: all from the root) are bits in a map,
 * rank-major; any other block goes to the hash set.  Which side a key
 * falls on depends only on the key, so the set means the same either
 * way, and a broadcast of a million ranks costs a bit a rank instead
 * of a probe in a table larger than the cache. */
struct held {
	int32_t rank, origin, index; /* rank < 0: empty slot */
};

struct held_set {
	struct held *slot;
	uint64_t mask; /* capacity - 1, capacity a power of two */
	uint64_t count;
	uint64_t *bits;  /* the map, or NULL */
	int32_t origin;  /* the origin of the blocks in it */
	int32_t span;    /* the indices below this */
	int32_t nranks;  /* the ranks, 0 to nranks - 1 */
};

static uint64_t held_hash(int32_t r, int32_t o, int32_t i)
{
	return ir_mix64(((uint64_t)(uint32_t)r << 32 | (uint32_t)o) ^
	             ir_mix64((uint64_t)(uint32_t)i + 0x9e3779b97f4a7c15u));
}

static int held_init(struct held_set *s, uint64_t expect)
{
	uint64_t cap = 64;
	while (cap < expect * 2)
		cap *= 2;
	s->slot = malloc(cap * sizeof *s->slot);
	if (!s->slot)
		return CCP_ENOMEM;
	for (uint64_t k = 0; k < cap; k++)
		s->slot[k].rank = -1;
	s->mask = cap - 1;
	s->count = 0;
	return 0;
}

/* The set for plan p: the map when its collective's blocks all come
 * from the root and it costs no more than 8 bytes a block (a bit per
 * rank and index), the hash set sized for the blocks the map does not
 * take. */
static int held_open(struct held_set *s, const ir_plan *p)
{
	const ir_comm *c = &p->comm;
	int32_t n = p->machine.nranks;
	int64_t span = c->coll == IR_BCAST      ? (c->segments > 0 ? c->segments : 1)
	               : c->coll == IR_SCATTER ? n
	                                       : 0;
	uint64_t nbits = (uint64_t)n * (uint64_t)span;
	memset(s, 0, sizeof *s);
	if (span > 0 && n > 0 && nbits / 64 <= (uint64_t)p->nblocks + 64) {
		s->bits = calloc((size_t)(nbits / 64 + 1), sizeof *s->bits);
		if (!s->bits)
			return CCP_ENOMEM;
		s->origin = c->root;
		s->span = (int32_t)span;
		s->nranks = n;
	}
	return held_init(s, s->bits ? 16 : (uint64_t)p->nblocks + 16);
}

/* The bit of (r, b) in the map, or -1 when the hash set holds it. */
static int64_t held_bit(const struct held_set *s, int32_t r, ir_block b)
{
	if (!s->bits || b.origin != s->origin || b.index < 0 ||
	    b.index >= s->span || r < 0 || r >= s->nranks)
		return -1;
	return (int64_t)r * s->span + b.index;
}

/* Find the slot of (r, b): the match, or the empty slot it would go to. */
static struct held *held_find(const struct held_set *s, int32_t r, ir_block b)
{
	uint64_t k = held_hash(r, b.origin, b.index) & s->mask;
	for (;;) {
		struct held *h = &s->slot[k];
		if (h->rank < 0 || (h->rank == r && h->origin == b.origin &&
		                    h->index == b.index))
			return h;
		k = (k + 1) & s->mask;
	}
}

/* Insert (r, b); *was set when it was already there. */
static int held_add(struct held_set *s, int32_t r, ir_block b, bool *was)
{
	int64_t bit = held_bit(s, r, b);
	if (bit >= 0) {
		uint64_t *w = &s->bits[bit / 64], m = 1ull << (bit % 64);
		*was = *w & m;
		*w |= m;
		return 0;
	}
	if ((s->count + 1) * 2 > s->mask + 1) { /* keep load under 1/2 */
		struct held_set t = *s;
		int rc = held_init(&t, (s->mask + 1));
		if (rc)
			return rc;
		for (uint64_t k = 0; k <= s->mask; k++)
			if (s->slot[k].rank >= 0)
				*held_find(&t, s->slot[k].rank,
				           (ir_block){s->slot[k].origin,
				                      s->slot[k].index}) =
				        s->slot[k];
		t.count = s->count;
		free(s->slot);
		*s = t;
	}
	struct held *h = held_find(s, r, b);
	*was = h->rank >= 0;
	if (!*was) {
		*h = (struct held){r, b.origin, b.index};
		s->count++;
	}
	return 0;
}

/* Whether rank r holds block b: its own blocks from the start, and what
 * it has received. */
static bool holds(const struct held_set *s, int32_t r, ir_block b)
{
	if (b.origin == r)
		return true;
	int64_t bit = held_bit(s, r, b);
	if (bit >= 0)
		return s->bits[bit / 64] >> (bit % 64) & 1;
	return held_find(s, r, b)->rank >= 0;
}

static void held_close(struct held_set *s)
{
	free(s->slot);
	free(s->bits);
	memset(s, 0, sizeof *s);
}

/* ---- helpers -------------------------------------------------------- */

/* The rank that must end with block b, or -1 when every rank must
 * (broadcast). */
static int32_t final_rank(const ir_plan *p, ir_block b)
{
	return ir_block_home(&p->machine, &p->comm, b);
}

/* Largest port count of any rank (the p of the spreading bound). */
static uint32_t max_ports(const ir_machine *m)
{
	uint32_t best = 0;
	/* degrees are uniform except at mesh edges; corners and the inside
	 * of every topology are found among the first and a middle rank */
	int32_t probe[3] = {0, m->nranks / 2, m->nranks - 1};
	if (m->topo == IR_MESH || m->topo == IR_TORUS) {
		/* a rank inside every open dimension has the most links */
		uint32_t deg = 0;
		for (int d = 0; d < m->ndims; d++)
			deg += m->dims[d] >= 3 ? 2u : (uint32_t)m->dims[d] - 1u;
		return m->ports == IR_PORTS_ALL ? deg : (uint32_t)m->ports;
	}
	if (m->topo == IR_HPAM) {
		for (int32_t r = 0; r < m->nranks; r++) {
			uint32_t d = (uint32_t)ir_port_limit(m, r);
			best = d > best ? d : best;
		}
		return best;
	}
	for (int k = 0; k < 3; k++) {
		uint32_t d = (uint32_t)ir_port_limit(m, probe[k]);
		best = d > best ? d : best;
	}
	return best;
}

/* Smallest t with (p+1)^t >= n: phases to spread one datum to n ranks
 * when every holder can pass it to p others per phase. */
static uint32_t spread_phases(uint64_t n, uint64_t p)
{
	uint32_t t = 0;
	uint64_t reach = 1;
	while (reach < n) {
		reach = reach > UINT64_MAX / (p + 1) ? UINT64_MAX
		                                     : reach * (p + 1);
		t++;
	}
	return t;
}

static uint32_t div_up(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

/* Random key of one reduce contribution (multiset hashing). */
static uint64_t contribution_key(int32_t r)
{
	return ir_mix64((uint64_t)(uint32_t)r * 0x9e3779b97f4a7c15u + 1);
}

/* The tree of a partial that combines partials with trees a and b: the
 * same for (a, b) and (b, a), different for ((x, y), z) and (x, (y, z)). */
static uint64_t tree_join(uint64_t a, uint64_t b)
{
	uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
	return ir_mix64(lo * 0xbf58476d1ce4e5b9u + ir_mix64(hi ^ 0x94d049bb133111ebu));
}

/* One partial of a reduction: its contributions (count, key sum) and
 * the shape of the tree that combined them. */
struct partial {
	uint64_t count, sum, tree;
};

#define FAIL(...)                                                              \
	do {                                                                   \
		snprintf(r->message, sizeof r->message, __VA_ARGS__);          \
		r->ok = false;                                                 \
		rc = CCP_EVERIFY;                                              \
		goto out;                                                      \
	} while (0)

/* ---- lower bound ---------------------------------------------------- */

/* Where the sender picks paths, a link only bounds the phases if every
 * path takes it (a host's link); a class of links does, by the fewest
 * links of that class each message's paths take (ir_path_least) over
 * the capacity of the whole class.  least[] holds those sums. */
static uint32_t class_bound(const ir_machine *m, const uint64_t *least,
                            uint32_t *by_class)
{
	uint64_t cap[IR_NLINK_CLASSES] = {0}, nl = ir_nlinks(m);
	uint32_t out = 0;

	for (uint64_t l = 0; l < nl; l++) {
		int32_t a, b;
		if (ir_link_ends(m, l, &a, &b) == 0)
			cap[ir_link_class(m, l)] +=
			        (uint64_t)ir_link_capacity(m, l);
	}
	for (int k = 0; k < IR_NLINK_CLASSES; k++)
		if (cap[k] && least[k]) {
			uint64_t t = (least[k] + cap[k] - 1) / cap[k];
			uint32_t u = (uint32_t)(t > UINT32_MAX ? UINT32_MAX : t);
			out = u > out ? u : out;
			by_class[k] = u > by_class[k] ? u : by_class[k];
		}
	return out;
}

/* Per-link message counts over the whole pattern, for direct plans: the
 * phases the busiest link needs, its count over its capacity rounded up
 * (where the sender picks paths, the busiest link every path takes, or
 * class_bound), and the same for each class of links in by_class.
 * Skipped (0) past 4M messages, where it would cost more than the plan. */
static int link_bound(const ir_machine *m, const ir_comm *c, uint32_t *out,
                      uint32_t by_class[IR_NLINK_CLASSES])
{
	bool chooses = ir_routing_chooses(m);
	uint64_t least[IR_NLINK_CLASSES] = {0};
	*out = 0;
	memset(by_class, 0, IR_NLINK_CLASSES * sizeof *by_class);
	int32_t n = m->nranks;
	uint64_t msgs = c->coll == IR_IRREGULAR  ? (uint64_t)c->matrix->nnz
	                : c->coll == IR_ALLTOALL ? (uint64_t)n * (n - 1)
	                                         : (uint64_t)n;
	uint64_t nl = ir_nlinks(m);
	if (msgs > (UINT64_C(1) << 22) || nl > (UINT64_C(1) << 26))
		return 0;
	uint32_t *load = calloc(nl ? nl : 1, sizeof *load);
	uint64_t *links = malloc((size_t)ir_route_max(m) * sizeof *links + 8);
	if (!load || !links) {
		free(load);
		free(links);
		return CCP_ENOMEM;
	}
	for (int32_t s = 0; s < n; s++) {
		int32_t lo = 0, hi = 0;
		if (c->coll == IR_IRREGULAR) {
			lo = (int32_t)c->matrix->row[s];
			hi = (int32_t)c->matrix->row[s + 1];
		} else if (c->coll == IR_ALLTOALL) {
			hi = n;
		} else {
			hi = 1;
		}
		for (int32_t k = lo; k < hi; k++) {
			int32_t d =
			        c->coll == IR_IRREGULAR ? c->matrix->dst[k]
			        : c->coll == IR_ALLTOALL
			                ? k
			                : final_rank(&(ir_plan){.machine = *m,
			                                        .comm = *c},
			                             (ir_block){s, 0});
			if (d == s)
				continue;
			int h = ir_route(m, s, d, links);
			if (chooses) {
				uint32_t at[IR_NLINK_CLASSES];
				ir_path_least(m, s, d, at);
				for (int k2 = 0; k2 < IR_NLINK_CLASSES; k2++)
					least[k2] += at[k2];
			}
			for (int j = 0; j < h; j++) {
				if (chooses &&
				    ir_link_class(m, links[j]) != IR_LC_HOST)
					continue;
				uint32_t t = ir_link_phases(m, links[j],
				                            ++load[links[j]]);
				int k2 = ir_link_class(m, links[j]);
				if (t > by_class[k2])
					by_class[k2] = t;
				if (t > *out)
					*out = t;
			}
		}
	}
	if (chooses) {
		uint32_t t = class_bound(m, least, by_class);
		*out = t > *out ? t : *out;
	}
	free(load);
	free(links);
	return 0;
}

/* With several ranks per node, direct delivery sends every message
 * between two nodes as its own network transfer, and a node's network
 * ports take ir_node_port_limit of them a phase each way: raise *bound to
 * the busiest node's ceil(messages / ports).  Alltoall and transpose
 * count by formula and by block, the rest message by message. */
static int node_degree_bound(const ir_machine *m, const ir_comm *c,
                             uint32_t *bound)
{
	int32_t n = m->nranks, nn = m->nnodes, k = m->ranks_per_node;
	uint64_t *io;

	if (!ir_machine_has_nodes(m))
		return 0;
	if (!(io = calloc(2 * (size_t)nn, sizeof *io)))
		return CCP_ENOMEM;
	for (int32_t s = 0; s < n; s++) {
		int32_t ns = ir_node_of(m, s);
		if (c->coll == IR_ALLTOALL) { /* to every rank of other nodes */
			io[ns] += (uint64_t)(n - k);
			io[nn + ns] += (uint64_t)(n - k);
		} else if (c->coll == IR_IRREGULAR) {
			for (int64_t e = c->matrix->row[s];
			     e < c->matrix->row[s + 1]; e++) {
				int32_t nd = ir_node_of(m, c->matrix->dst[e]);
				io[ns] += nd != ns;
				io[nn + nd] += nd != ns;
			}
		} else {
			int32_t nd = ir_node_of(
			        m, final_rank(&(ir_plan){.machine = *m,
			                                 .comm = *c},
			                      (ir_block){s, 0}));
			io[ns] += nd != ns;
			io[nn + nd] += nd != ns;
		}
	}
	for (int32_t q = 0; q < 2 * nn; q++) {
		uint64_t lim = (uint64_t)ir_node_port_limit(m, q % nn);
		uint64_t t = (io[q] + (lim ? lim : 1) - 1) / (lim ? lim : 1);
		if (t > *bound)
			*bound = t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
	}
	free(io);
	return 0;
}

int ir_lower_bound(const ir_machine *m, const ir_comm *c, bool direct,
                   uint32_t plan_flags, uint32_t fanout, ir_report *r)
{
	int32_t n = m->nranks;
	uint64_t p = max_ports(m);
	if (p == 0)
		p = 1;
	if (fanout > 1)
		p *= fanout;
	r->lb_spread = r->lb_degree = r->lb_link = 0;
	switch (c->coll) {
	case IR_BCAST:
	case IR_SCATTER:
	case IR_GATHER:
	case IR_REDUCE:
	case IR_ALLTOALL:
	case IR_ALLGATHER:
	case IR_REDUCE_SCATTER:
	case IR_ALLREDUCE:
		r->lb_spread = spread_phases((uint64_t)n, p);
		break;
	case IR_TRANSPOSE:
	case IR_IRREGULAR:
		r->lb_spread = 0; /* at least one phase if anything moves */
		break;
	}
	if (ir_coll_kind(c->coll) & IR_CK_DIRECT) {
		/* with direct delivery every message is its own transfer:
		 * ceil(degree / ports) phases at the busiest rank */
		uint32_t *in = calloc((size_t)n, sizeof *in);
		if (!in)
			return CCP_ENOMEM;
		for (int32_t s = 0; s < n; s++) {
			uint32_t out = 0;
			if (c->coll == IR_IRREGULAR) {
				for (int64_t k = c->matrix->row[s];
				     k < c->matrix->row[s + 1]; k++) {
					in[c->matrix->dst[k]]++;
					out++;
				}
			} else if (c->coll == IR_ALLTOALL) {
				out = (uint32_t)n - 1;
				in[s] = (uint32_t)n - 1;
			} else {
				int32_t d = final_rank(
				        &(ir_plan){.machine = *m, .comm = *c},
				        (ir_block){s, 0});
				if (d != s) {
					in[d]++;
					out = 1;
				}
			}
			uint32_t q = (uint32_t)ir_port_limit(m, s);
			q = q ? q : 1;
			uint32_t t = div_up(out, q);
			r->lb_degree = t > r->lb_degree ? t : r->lb_degree;
		}
		for (int32_t d = 0; d < n; d++) {
			uint32_t q = (uint32_t)ir_port_limit(m, d);
			q = q ? q : 1;
			uint32_t t = div_up(in[d], q);
			r->lb_degree = t > r->lb_degree ? t : r->lb_degree;
		}
		free(in);
		int rc = node_degree_bound(m, c, &r->lb_degree);
		if (rc)
			return rc;
		if (r->lb_degree > 0 && r->lb_spread == 0)
			r->lb_spread = 1;
		uint32_t by_class[IR_NLINK_CLASSES];
		rc = link_bound(m, c, &r->lb_link, by_class);
		if (rc)
			return rc;
	}
	r->lb_phases = r->lb_spread;
	if (direct && !(plan_flags & IR_PLAN_NODE_CONTENTION) &&
	    r->lb_degree > r->lb_phases)
		r->lb_phases = r->lb_degree;
	if (direct && !(plan_flags & IR_PLAN_LINK_CONTENTION) &&
	    r->lb_link > r->lb_phases)
		r->lb_phases = r->lb_link;
	return 0;
}

int ir_link_bound(const ir_machine *m, const ir_comm *c,
                  uint32_t by_class[IR_NLINK_CLASSES], uint32_t *link)
{
	uint32_t all;
	if (!(ir_coll_kind(c->coll) & IR_CK_DIRECT)) {
		memset(by_class, 0, IR_NLINK_CLASSES * sizeof *by_class);
		*link = 0;
		return 0;
	}
	int rc = link_bound(m, c, &all, by_class);
	*link = rc ? 0 : all;
	return rc;
}

/* ---- the verifier --------------------------------------------------- */

/* Whether every link of the machine has capacity 1 and every route is
 * one path, so that two transfers between the same ranks in a phase
 * show as a link carrying two: meshes, tori, hypercubes, HPAM and
 * switches.  Any other machine is checked for repeated pairs. */
static bool unit_links(const ir_machine *m)
{
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
	case IR_HYPERCUBE:
	case IR_HPAM:
	case IR_SWITCH:
		return true;
	default:
		return false;
	}
}

struct link_counter {
	const ir_machine *m; /* whose links: their capacities */
	uint32_t *dense; /* per link count, when the id space is small */
	uint64_t *list;  /* link ids used in this phase */
	uint64_t nlist, cap;
};

/* Record one use of a link in the current phase. */
static int link_use(struct link_counter *lc, uint64_t id)
{
	if (lc->nlist == lc->cap) {
		uint64_t cap = lc->cap ? lc->cap * 2 : 1024;
		uint64_t *q = realloc(lc->list, cap * sizeof *q);
		if (!q)
			return CCP_ENOMEM;
		lc->list = q;
		lc->cap = cap;
	}
	lc->list[lc->nlist++] = id;
	if (lc->dense)
		lc->dense[id]++;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Transfers of the phase whose links (list[start[t] .. start[t+1])) are
 * shared with more transfers than the link's capacity; call before
 * link_phase_max resets. */
static int link_phase_contended(struct link_counter *lc,
                                const uint64_t *start, uint32_t nt,
                                uint64_t *count)
{
	uint64_t *sorted = NULL;
	if (!lc->dense) {
		sorted = malloc((lc->nlist ? lc->nlist : 1) * sizeof *sorted);
		if (!sorted)
			return CCP_ENOMEM;
		memcpy(sorted, lc->list, lc->nlist * sizeof *sorted);
		qsort(sorted, lc->nlist, sizeof *sorted, cmp_u64);
	}
	for (uint32_t t = 0; t < nt; t++) {
		bool shared = false;
		for (uint64_t k = start[t]; k < start[t + 1] && !shared; k++) {
			uint64_t id = lc->list[k];
			uint64_t cap = (uint64_t)ir_link_capacity(lc->m, id);
			if (lc->dense) {
				shared = lc->dense[id] > cap;
				continue;
			}
			uint64_t lo = 0, hi = lc->nlist;
			while (lo < hi) { /* first entry >= id */
				uint64_t mid = lo + (hi - lo) / 2;
				if (sorted[mid] < id)
					lo = mid + 1;
				else
					hi = mid;
			}
			shared = lo + cap < lc->nlist && sorted[lo + cap] == id;
		}
		*count += shared;
	}
	free(sorted);
	return 0;
}

/* Highest load of any link in the phase over its capacity, rounded up
 * (ir_link_phases: the load itself where capacities are 1), the link
 * itself and its count of transfers; resets. */
static uint32_t link_phase_max(struct link_counter *lc, uint64_t *worst,
                               uint32_t *count)
{
	uint32_t best = 0;
	if (lc->dense) {
		for (uint64_t k = 0; k < lc->nlist; k++) {
			uint64_t id = lc->list[k];
			uint32_t t = ir_link_phases(lc->m, id, lc->dense[id]);
			if (t > best) {
				best = t;
				*worst = id;
				*count = lc->dense[id];
			}
		}
		for (uint64_t k = 0; k < lc->nlist; k++)
			lc->dense[lc->list[k]] = 0;
	} else {
		qsort(lc->list, lc->nlist, sizeof *lc->list, cmp_u64);
		for (uint64_t k = 0, run = 0; k < lc->nlist; k++) {
			run = (k > 0 && lc->list[k] == lc->list[k - 1])
			              ? run + 1
			              : 1;
			uint32_t t = ir_link_phases(lc->m, lc->list[k], run);
			if (t > best) {
				best = t;
				*worst = lc->list[k];
				*count = (uint32_t)run;
			}
		}
	}
	lc->nlist = 0;
	return best;
}

static int cmp_pair(const void *a, const void *b)
{
	return cmp_u64(a, b);
}

/* The largest multicast group of the plan: most IR_XF_MCAST transfers
 * from one rank in one phase (1 if none).  cnt: nranks zeroed counters,
 * left zeroed. */
static uint32_t mcast_fanout(const ir_plan *p, uint32_t *cnt)
{
	uint32_t best = 1;
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		const ir_transfer *xs = p->transfers + p->phases[ph].transfer;
		uint32_t nt = p->phases[ph].ntransfers;
		for (uint32_t t = 0; t < nt; t++)
			if ((xs[t].flags & IR_XF_MCAST) && ++cnt[xs[t].src] > best)
				best = cnt[xs[t].src];
		for (uint32_t t = 0; t < nt; t++)
			cnt[xs[t].src] = 0;
	}
	return best;
}

/* ---- multicast groups ---------------------------------------------- */

/* The copies of one hardware multicast (000 section 3): the IR_XF_MCAST
 * transfers of one source in one phase.  They are one message, so they
 * carry the same blocks; it travels as one along the route they share up
 * to the first replicating link (ir_link_replicates), where the router
 * copies it, one copy per outgoing link, and from there each copy is its
 * own load.  The phase replays a group's copies one after the other; the
 * first (the lead) sets what the others must match. */
struct mcast_group {
	const ir_transfer *lead; /* first copy of the group */
	uint64_t *prefix;        /* the lead's route before the split */
	int nprefix;             /* its length */
	struct copy_link {
		uint64_t link; /* a link after the split */
		int32_t dst;   /* the copy that crosses it */
		int32_t hop;   /* its place after the split, 0 first */
	} *after;          /* links after the split, every copy's */
	size_t nafter, cap;
};

/* Key of a transfer in the replay order of a phase: unicasts first, in
 * their order, then the multicasts grouped by source. */
#define MCAST_KEY(src, t)                                                      \
	((UINT64_C(1) << 63) | (uint64_t)(uint32_t)(src) << 32 | (uint32_t)(t))

static int cmp_copy_link(const void *a, const void *b)
{
	const struct copy_link *x = a, *y = b;
	if (x->link != y->link)
		return x->link < y->link ? -1 : 1;
	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* Check one copy x of a multicast against its group (lead: x opens the
 * group) given its route links[0..h); *split gets the index of the first
 * link after the split, so the caller counts the shared part once (the
 * lead's) and the rest per copy.  0, CCP_EVERIFY with r->message set, or
 * CCP_ENOMEM. */
static int mcast_copy(const ir_plan *p, uint32_t ph, const ir_transfer *x,
                      bool lead, const uint64_t *links, int h,
                      struct mcast_group *g, int *split, ir_report *r)
{
	int rc = 0;
	const ir_machine *m = &p->machine;
	if (!ir_machine_replicates(m))
		FAIL("multicast: phase %u: rank %d sends rank %d a multicast "
		     "copy, but no router of a %s replicates messages (only "
		     "HPAM's inter-level routers do, 000 section 3)",
		     ph, (int)x->src, (int)x->dst, ir_topo_name(m->topo));
	int j = 0;
	while (j < h && !ir_link_replicates(m, links[j]))
		j++;
	if (j == h)
		FAIL("multicast: phase %u: rank %d's multicast copy to rank %d "
		     "crosses no replicating router (on HPAM only the links "
		     "from level 1 down to level 2 copy a message)",
		     ph, (int)x->src, (int)x->dst);
	*split = j;
	int32_t at = -1, to = -1;
	if (lead) {
		g->lead = x;
		g->nprefix = j;
		memcpy(g->prefix, links, (size_t)j * sizeof *links);
		g->nafter = 0;
	} else {
		const ir_transfer *a = g->lead;
		if (x->nblocks != a->nblocks ||
		    memcmp(p->blocks + x->block, p->blocks + a->block,
		           x->nblocks * sizeof *p->blocks) != 0)
			FAIL("multicast: phase %u: rank %d's copies to ranks "
			     "%d and %d carry different blocks; a replicating "
			     "router copies one message",
			     ph, (int)x->src, (int)a->dst, (int)x->dst);
		if (j != g->nprefix ||
		    memcmp(links, g->prefix, (size_t)j * sizeof *links) != 0) {
			int32_t other = -1;
			ir_link_ends(m, links[j], &at, &to);
			if (g->nprefix > 0)
				ir_link_ends(m, g->prefix[g->nprefix - 1], &to,
				             &other);
			else
				other = x->src;
			FAIL("multicast: phase %u: rank %d's copies to ranks "
			     "%d and %d split at different places (ranks %d "
			     "and %d); one message travels as one up to the "
			     "router that copies it",
			     ph, (int)x->src, (int)a->dst, (int)x->dst,
			     (int)other, (int)at);
		}
	}
	for (int k = j; k < h; k++) {
		if (g->nafter == g->cap) {
			size_t cap = g->cap ? 2 * g->cap : 64;
			struct copy_link *q = realloc(g->after, cap * sizeof *q);
			if (!q)
				return CCP_ENOMEM;
			g->after = q;
			g->cap = cap;
		}
		g->after[g->nafter++] =
		        (struct copy_link){links[k], x->dst, k - j};
	}
out:
	return rc;
}

/* At the end of a group: no link after the split carries two of its
 * copies (the router sends one copy per link, and after that the copies
 * go their own ways).  The shared link nearest the split is named. */
static int mcast_close(const ir_plan *p, uint32_t ph, int32_t src,
                       struct mcast_group *g, ir_report *r)
{
	int rc = 0;
	size_t worst = 0;
	qsort(g->after, g->nafter, sizeof *g->after, cmp_copy_link);
	for (size_t k = 1; k < g->nafter; k++)
		if (g->after[k].link == g->after[k - 1].link &&
		    (!worst || g->after[k].hop < g->after[worst].hop))
			worst = k;
	if (worst) {
		int32_t a = -1, b = -1;
		ir_link_ends(&p->machine, g->after[worst].link, &a, &b);
		FAIL("multicast: phase %u: link %d -> %d carries two copies of "
		     "rank %d's multicast (to ranks %d and %d) after the "
		     "router split it; a replicating router sends one copy "
		     "per link",
		     ph, (int)a, (int)b, (int)src,
		     (int)g->after[worst - 1].dst, (int)g->after[worst].dst);
	}
out:
	g->nafter = 0;
	return rc;
}

/* Check the plan's shape before anything indexes with it. */
static int check_structure(const ir_plan *p, ir_report *r)
{
	int rc = 0;
	const ir_machine *m = &p->machine;
	if (m->nranks <= 0 || m->nranks > IR_MAX_RANKS)
		FAIL("structure: the machine has %d ranks", (int)m->nranks);
	if (p->comm.coll == IR_IRREGULAR &&
	    (!p->comm.matrix || p->comm.matrix->n != m->nranks))
		FAIL("structure: the matrix does not match the machine's %d "
		     "ranks",
		     (int)m->nranks);
	unsigned kind = ir_coll_kind(p->comm.coll);
	if (kind == 0 && p->comm.coll != IR_ALLGATHER)
		FAIL("structure: collective %u is not a known kind",
		     (unsigned)p->comm.coll);
	if ((kind & IR_CK_REDUCES) && ir_dtype_size(p->comm.dtype) == 0)
		FAIL("structure: a %s of unknown element type %u",
		     ir_coll_name(p->comm.coll), (unsigned)p->comm.dtype);
	if ((kind & IR_CK_ROOTED) &&
	    (p->comm.root < 0 || p->comm.root >= m->nranks))
		FAIL("structure: root %d is outside the machine's %d ranks",
		     (int)p->comm.root, (int)m->nranks);
	if (p->comm.coll == IR_TRANSPOSE &&
	    (m->topo != IR_MESH && m->topo != IR_TORUS))
		FAIL("structure: a transpose needs a 2D mesh or torus");
	if (p->comm.coll == IR_TRANSPOSE &&
	    (m->ndims != 2 || m->dims[0] != m->dims[1]))
		FAIL("structure: a transpose needs a square 2D machine");
	uint64_t next = 0;
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		if (p->phases[ph].transfer != next)
			FAIL("structure: phase %u does not start where phase "
			     "%u ends",
			     ph, ph ? ph - 1 : 0);
		next += p->phases[ph].ntransfers;
	}
	if (next != p->ntransfers)
		FAIL("structure: phases hold %llu transfers, the plan %u",
		     (unsigned long long)next, p->ntransfers);
	for (uint32_t t = 0; t < p->ntransfers; t++) {
		const ir_transfer *x = &p->transfers[t];
		if (x->src < 0 || x->src >= m->nranks || x->dst < 0 ||
		    x->dst >= m->nranks)
			FAIL("structure: transfer %u goes %d -> %d, outside "
			     "the "
			     "machine's %d ranks",
			     t, (int)x->src, (int)x->dst, (int)m->nranks);
		if (x->src == x->dst)
			FAIL("structure: transfer %u sends rank %d to itself",
			     t, (int)x->src);
		if (x->nblocks == 0 || x->block > p->nblocks ||
		    x->nblocks > p->nblocks - x->block)
			FAIL("structure: transfer %u has blocks [%u, +%u) "
			     "outside "
			     "the plan's %u",
			     t, x->block, x->nblocks, p->nblocks);
		if (x->flags & ~(IR_XF_REDUCE | IR_XF_MCAST))
			FAIL("structure: transfer %u has unknown flags 0x%x", t,
			     x->flags);
		if ((x->flags & IR_XF_REDUCE) && (x->flags & IR_XF_MCAST))
			FAIL("structure: transfer %u is both a reduction and a "
			     "multicast",
			     t);
		/* a reduction may also replace a partial (an allreduce's
		 * allgather half, the gather of a reduce-scatter) */
		if ((x->flags & IR_XF_REDUCE) && !(kind & IR_CK_REDUCES))
			FAIL("structure: transfer %u has a reduce flag in a %s",
			     t, ir_coll_name(p->comm.coll));
		int64_t sum = 0;
		for (uint32_t k = 0; k < x->nblocks; k++) {
			ir_block b = p->blocks[x->block + k];
			int64_t sz = ir_block_bytes(&p->comm, m->nranks, b);
			if (sz < 0)
				FAIL("structure: transfer %u (%d -> %d) "
				     "carries block "
				     "(%d,%d), which the %s does not have",
				     t, (int)x->src, (int)x->dst, (int)b.origin,
				     (int)b.index, ir_coll_name(p->comm.coll));
			if ((kind & IR_CK_REDUCES) && b.origin != x->src)
				FAIL("structure: reduce transfer %u (%d -> %d) "
				     "must "
				     "carry the sender's partial, not (%d,%d)",
				     t, (int)x->src, (int)x->dst, (int)b.origin,
				     (int)b.index);
			sum += sz;
		}
		if (sum != x->bytes)
			FAIL("structure: transfer %u (%d -> %d) says %lld "
			     "bytes, "
			     "its blocks hold %lld",
			     t, (int)x->src, (int)x->dst, (long long)x->bytes,
			     (long long)sum);
	}
out:
	return rc;
}

/* Apply transfer x of phase ph to the partials of its receiver: combine
 * (IR_XF_REDUCE) or replace each carried partial v[j] into dst's.  A
 * partial that a rank replaces in a phase it may not also send, combine
 * into or replace again in that phase: the runtime writes a replaced
 * partial in place while the phase runs (docs/collectives.md). */
static int deliver_partials(const ir_plan *p, uint32_t ph, const ir_transfer *x,
                            int32_t K, const struct partial *v,
                            struct partial *part, const uint32_t *sent,
                            uint64_t *got, ir_report *r)
{
	int rc = 0;
	bool replace = !(x->flags & IR_XF_REDUCE);
	for (uint32_t j = 0; j < x->nblocks; j++) {
		int32_t k = p->blocks[x->block + j].index;
		uint64_t at = (uint64_t)x->dst * K + k;
		uint64_t stamp = ((uint64_t)ph + 1) << 1;
		if ((got[at] & ~UINT64_C(1)) == stamp && (replace || (got[at] & 1)))
			FAIL("structure: phase %u: rank %d receives its partial "
			     "of element block %d twice, once replacing it; "
			     "replace a partial alone in its phase",
			     ph, (int)x->dst, (int)k);
		if (replace && sent[at] == ph + 1)
			FAIL("structure: phase %u: rank %d replaces its partial "
			     "of element block %d in the phase it sends it",
			     ph, (int)x->dst, (int)k);
		got[at] = stamp | replace;
		struct partial *d = &part[at];
		if (replace) {
			*d = v[j];
			continue;
		}
		d->count += v[j].count;
		d->sum += v[j].sum;
		d->tree = tree_join(d->tree, v[j].tree);
	}
out:
	return rc;
}

/* Delivery of a reduction: every rank that must end with an element
 * block's result holds all n contributions, each once; whether they all
 * combined it the same way (r->reproducible), and a failure when the
 * input asks for that and they did not. */
static int check_results(const ir_plan *p, int32_t K,
                         const struct partial *part, ir_report *r)
{
	int rc = 0;
	const ir_comm *c = &p->comm;
	int32_t n = p->machine.nranks;
	uint64_t want = 0;
	for (int32_t q = 0; q < n; q++)
		want += contribution_key(q);
	for (int32_t k = 0; k < K; k++) {
		ir_block b = {0, k};
		if (ir_block_bytes(c, n, b) == 0)
			continue; /* an empty block has no result */
		int32_t home = ir_block_home(&p->machine, c, b);
		int32_t lo = home < 0 ? 0 : home, hi = home < 0 ? n - 1 : home;
		for (int32_t q = lo; q <= hi; q++) {
			const struct partial *a = &part[(uint64_t)q * K + k];
			const char *why = a->count == (uint64_t)n
			                          ? " (some counted twice, some "
			                            "lost)"
			                          : "";
			if ((a->count != (uint64_t)n || a->sum != want) &&
			    c->coll == IR_REDUCE && K == 1)
				FAIL("delivery: the root's result combines %llu "
				     "contributions where %d were expected%s",
				     (unsigned long long)a->count, (int)n, why);
			if (a->count != (uint64_t)n || a->sum != want)
				FAIL("delivery: rank %d's result for element "
				     "block %d combines %llu contributions "
				     "where %d were expected%s",
				     (int)q, (int)k, (unsigned long long)a->count,
				     (int)n, why);
			if (q == lo || a->tree == part[(uint64_t)lo * K + k].tree ||
			    !r->reproducible)
				continue;
			r->reproducible = false;
			if (c->reproducible)
				FAIL("reproducible: ranks %d and %d combine "
				     "element block %d in different orders, so "
				     "their floating-point results may differ; "
				     "the input asks for a reproducible %s",
				     (int)lo, (int)q, (int)k,
				     ir_coll_name(c->coll));
		}
	}
out:
	return rc;
}

int ir_verify(const ir_plan *p, ir_report *r)
{
	int rc = 0;
	const ir_machine *m = &p->machine;
	memset(r, 0, sizeof *r);
	r->ok = true;
	r->phases = p->nphases;
	r->transfers = p->ntransfers;
	r->direct = ir_coll_kind(p->comm.coll) & IR_CK_DIRECT;
	r->reproducible = true;

	struct held_set held = {0};
	struct link_counter lc = {.m = &p->machine};
	uint32_t *sends = NULL, *recvs = NULL;
	uint32_t *nsends = NULL, *nrecvs = NULL; /* per node, network only */
	int32_t *touched = NULL, *ntouch = NULL;
	uint64_t *links = NULL, *pairs = NULL, *start = NULL;
	/* reductions: the partial of (rank r, element block k) at
	 * part[r * K + k]; the phase (+ 1) it was last sent in, and last
	 * received in (times 2, + 1 when replaced); what each carried block
	 * was before the phase, at soff[t] + j for transfer t's block j */
	struct partial *part = NULL, *snap = NULL;
	uint32_t *sent = NULL;
	uint64_t *got = NULL, *soff = NULL;
	int32_t K = 0;
	uint64_t *order = NULL; /* replay order of a phase with multicasts */
	struct mcast_group mg = {0};

	if ((rc = check_structure(p, r)) != 0)
		goto out;
	int32_t n = m->nranks;
	bool reduce = ir_coll_kind(p->comm.coll) & IR_CK_REDUCES;
	bool allow_link = p->flags & IR_PLAN_LINK_CONTENTION;
	bool allow_node = p->flags & IR_PLAN_NODE_CONTENTION;

	if ((rc = held_open(&held, p)) != 0)
		goto out_nomem;
	sends = calloc((size_t)n, sizeof *sends);
	recvs = calloc((size_t)n, sizeof *recvs);
	touched = malloc(2 * (size_t)n * sizeof *touched);
	links = malloc(((size_t)ir_route_max(m) + 1) * sizeof *links);
	r->link_load =
	        calloc(p->nphases ? p->nphases : 1, sizeof *r->link_load);
	if (!sends || !recvs || !touched || !links || !r->link_load)
		goto out_nomem;
	bool nodes = ir_machine_has_nodes(m);
	if (nodes) {
		nsends = calloc((size_t)m->nnodes, sizeof *nsends);
		nrecvs = calloc((size_t)m->nnodes, sizeof *nrecvs);
		ntouch = malloc(2 * (size_t)m->nnodes * sizeof *ntouch);
		if (!nsends || !nrecvs || !ntouch)
			goto out_nomem;
	}
	uint64_t nl = ir_nlinks(m);
	if (nl <= (UINT64_C(1) << 25) &&
	    !(lc.dense = calloc(nl ? nl : 1, sizeof *lc.dense)))
		goto out_nomem;
	bool any_mcast = false;
	for (uint32_t t = 0; t < p->ntransfers && !any_mcast; t++)
		any_mcast = p->transfers[t].flags & IR_XF_MCAST;
	if (any_mcast &&
	    !(mg.prefix = malloc(((size_t)ir_route_max(m) + 1) *
	                         sizeof *mg.prefix)))
		goto out_nomem;
	if (reduce) {
		K = ir_reduce_blocks(&p->comm, n);
		uint64_t ns = (uint64_t)n * (uint64_t)K;
		if (ns > SIZE_MAX / sizeof *part)
			goto out_nomem;
		part = malloc((size_t)ns * sizeof *part);
		sent = calloc((size_t)ns, sizeof *sent);
		got = calloc((size_t)ns, sizeof *got);
		if (!part || !sent || !got)
			goto out_nomem;
		for (int32_t q = 0; q < n; q++) {
			uint64_t key = contribution_key(q);
			for (int32_t k = 0; k < K; k++)
				part[(uint64_t)q * K + k] =
				        (struct partial){1, key, key};
		}
	}

	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		const ir_transfer *xs = p->transfers + p->phases[ph].transfer;
		uint32_t nt = p->phases[ph].ntransfers;
		uint32_t ntouched = 0, nntouched = 0;
		if (allow_link) { /* where each transfer's links begin */
			uint64_t *q = realloc(start, ((size_t)nt + 1) * sizeof *q);
			if (!q)
				goto out_nomem;
			start = q;
		}
		if (reduce) { /* room for what each transfer carries */
			uint64_t *q = realloc(soff, ((size_t)nt + 1) * sizeof *q);
			if (!q)
				goto out_nomem;
			soff = q;
			soff[0] = 0;
			for (uint32_t t = 0; t < nt; t++)
				soff[t + 1] = soff[t] + xs[t].nblocks;
			struct partial *v = realloc(
			        snap, ((size_t)soff[nt] + 1) * sizeof *v);
			if (!v)
				goto out_nomem;
			snap = v;
		}
		if (any_mcast) { /* the copies of each multicast together */
			uint64_t *q = realloc(order, ((size_t)nt + 1) * sizeof *q);
			if (!q)
				goto out_nomem;
			order = q;
			for (uint32_t t = 0; t < nt; t++)
				order[t] = (xs[t].flags & IR_XF_MCAST)
				                   ? MCAST_KEY(xs[t].src, t)
				                   : t;
			qsort(order, nt, sizeof *order, cmp_u64);
		}
		for (uint32_t k = 0; k < nt; k++) {
			uint32_t t = any_mcast ? (uint32_t)order[k] : k;
			const ir_transfer *x = &xs[t];
			bool mc = x->flags & IR_XF_MCAST;
			/* the lead opens its group, the last copy closes it */
			bool lead = mc && (k == 0 || order[k - 1] >> 32 !=
			                                     order[k] >> 32);
			bool last = mc && (k + 1 == nt || order[k + 1] >> 32 !=
			                                          order[k] >> 32);
			r->bytes += (uint64_t)x->bytes;
			if (allow_link)
				start[k] = lc.nlist;
			/* causality: blocks held before this phase */
			for (uint32_t b = 0; b < x->nblocks; b++) {
				ir_block blk = p->blocks[x->block + b];
				if (!reduce && !holds(&held, x->src, blk))
					FAIL("causality: phase %u: rank %d "
					     "sends block "
					     "(%d,%d) to rank %d before it "
					     "holds it",
					     ph, (int)x->src, (int)blk.origin,
					     (int)blk.index, (int)x->dst);
			}
			if (reduce) /* partials as they were before the phase */
				for (uint32_t b = 0; b < x->nblocks; b++) {
					uint64_t at = (uint64_t)x->src * K +
					              p->blocks[x->block + b].index;
					snap[soff[t] + b] = part[at];
					sent[at] = ph + 1;
				}
			/* node load; a multicast group is one send */
			if ((!mc || lead) && sends[x->src]++ == 0 &&
			    recvs[x->src] == 0)
				touched[ntouched++] = x->src;
			if (recvs[x->dst]++ == 0 && sends[x->dst] == 0)
				touched[ntouched++] = x->dst;
			/* network load of the nodes; inside a node the
			 * transfer goes through shared memory */
			int32_t ns = ir_node_of(m, x->src);
			int32_t nd = ir_node_of(m, x->dst);
			if (nodes && ns == nd) {
				r->shm_transfers++;
			} else if (nodes) {
				if ((!mc || lead) && nsends[ns]++ == 0 &&
				    nrecvs[ns] == 0)
					ntouch[nntouched++] = ns;
				if (nrecvs[nd]++ == 0 && nsends[nd] == 0)
					ntouch[nntouched++] = nd;
			}
			/* link load along the route */
			if (x->path && x->path >= ir_path_count(m, x->src, x->dst))
				FAIL("link: phase %u: the transfer from rank %d "
				     "to %d takes path %u, and it has %u "
				     "(routing %s)",
				     ph, (int)x->src, (int)x->dst,
				     (unsigned)x->path,
				     (unsigned)ir_path_count(m, x->src, x->dst),
				     ir_routing_name(m->routing));
			int h = ir_route_xfer(m, x, links);
			if (h < 0 || (h == 0 && ns != nd))
				FAIL("link: phase %u: no route from rank %d to "
				     "%d",
				     ph, (int)x->src, (int)x->dst);
			r->hops += ir_routing_adapts(m)
			                   ? (uint64_t)ir_hops(m, x->src, x->dst)
			                   : (uint64_t)h;
			int from = 0, split = 0;
			if (mc) {
				if ((rc = mcast_copy(p, ph, x, lead, links, h,
				                     &mg, &split, r)) != 0)
					goto out_rc;
				from = lead ? 0 : split; /* shared part once */
			}
			for (int j = from; j < h; j++)
				if ((rc = link_use(&lc, links[j])) != 0)
					goto out_nomem;
			if (last && (rc = mcast_close(p, ph, x->src, &mg, r)) != 0)
				goto out_rc;
		}
		/* node contention */
		for (uint32_t k = 0; k < ntouched; k++) {
			int32_t q = touched[k];
			uint32_t lim = (uint32_t)ir_port_limit(m, q);
			if (sends[q] > r->max_node_sends)
				r->max_node_sends = sends[q];
			if (recvs[q] > r->max_node_recvs)
				r->max_node_recvs = recvs[q];
			if (!allow_node && (sends[q] > lim || recvs[q] > lim))
				FAIL("node: phase %u: rank %d sends %u and "
				     "receives "
				     "%u, its ports allow %u each",
				     ph, (int)q, sends[q], recvs[q], lim);
			sends[q] = recvs[q] = 0;
		}
		for (uint32_t k = 0; k < nntouched; k++) {
			int32_t q = ntouch[k];
			uint32_t lim = (uint32_t)ir_node_port_limit(m, q);
			if (nsends[q] > r->max_net_sends)
				r->max_net_sends = nsends[q];
			if (nrecvs[q] > r->max_net_recvs)
				r->max_net_recvs = nrecvs[q];
			if (!allow_node && (nsends[q] > lim || nrecvs[q] > lim))
				FAIL("node: phase %u: node %d sends %u and "
				     "receives %u over the network, its "
				     "network ports allow %u each",
				     ph, (int)q, nsends[q], nrecvs[q], lim);
			nsends[q] = nrecvs[q] = 0;
		}
		/* link contention */
		if (allow_link) {
			start[nt] = lc.nlist;
			if ((rc = link_phase_contended(&lc, start, nt,
			                               &r->contended)) != 0)
				goto out_nomem;
		}
		uint64_t worst = 0;
		uint32_t count = 0;
		uint32_t load = link_phase_max(&lc, &worst, &count);
		r->link_load[ph] = load;
		if (load > r->max_link_load)
			r->max_link_load = load;
		if (load > 1 && !allow_link) {
			int32_t a = -1, b = -1;
			int cap = ir_link_capacity(m, worst);
			char of[32] = "";
			ir_link_ends(m, worst, &a, &b);
			if (cap > 1)
				snprintf(of, sizeof of, " (capacity %d)", cap);
			if (ir_routing_adapts(m))
				FAIL("link: phase %u: link %d -> %d may carry "
				     "%u transfers%s under adaptive routing, "
				     "each of which may take it",
				     ph, (int)a, (int)b, count, of);
			FAIL("link: phase %u: link %d -> %d carries %u "
			     "transfers%s "
			     "under %s routing",
			     ph, (int)a, (int)b, count, of,
			     ir_routing_name(m->routing));
		}
		/* with contention allowed, or links of several cables (any
		 * machine but the classic ones), links no longer show a
		 * repeated pair: check it directly */
		if ((allow_link || nodes || !unit_links(m)) && nt > 1) {
			uint64_t *q = realloc(pairs, (size_t)nt * sizeof *q);
			if (!q)
				goto out_nomem;
			pairs = q;
			for (uint32_t t = 0; t < nt; t++)
				pairs[t] = (uint64_t)(uint32_t)xs[t].src << 32 |
				           (uint32_t)xs[t].dst;
			qsort(pairs, nt, sizeof *pairs, cmp_pair);
			for (uint32_t t = 1; t < nt; t++)
				if (pairs[t] == pairs[t - 1])
					FAIL("structure: phase %u has two "
					     "transfers "
					     "%d -> %d; merge their blocks",
					     ph, (int)(pairs[t] >> 32),
					     (int)(uint32_t)pairs[t]);
		}
		/* deliver */
		for (uint32_t t = 0; t < nt; t++) {
			const ir_transfer *x = &xs[t];
			if (reduce) {
				if ((rc = deliver_partials(p, ph, x, K,
				                           snap + soff[t], part,
				                           sent, got, r)) != 0)
					goto out_rc;
				continue;
			}
			for (uint32_t k = 0; k < x->nblocks; k++) {
				ir_block b = p->blocks[x->block + k];
				bool was;
				if ((rc = held_add(&held, x->dst, b, &was)) !=
				    0)
					goto out_nomem;
				if (was || b.origin == x->dst)
					r->duplicates++;
				else if (r->direct &&
				         (b.origin != x->src ||
				          final_rank(p, b) != x->dst))
					r->direct = false;
			}
		}
	}

	/* delivery */
	const ir_comm *c = &p->comm;
	switch (c->coll) {
	case IR_BCAST:
		for (int32_t q = 0; q < n; q++)
			for (int32_t s = 0;
			     s < (c->segments > 0 ? c->segments : 1); s++)
				if (!holds(&held, q, (ir_block){c->root, s}))
					FAIL("delivery: rank %d never receives "
					     "segment "
					     "%d of the broadcast",
					     (int)q, (int)s);
		break;
	case IR_SCATTER:
		for (int32_t q = 0; q < n; q++)
			if (!holds(&held, q, (ir_block){c->root, q}))
				FAIL("delivery: rank %d never receives its "
				     "block "
				     "of the scatter",
				     (int)q);
		break;
	case IR_GATHER:
		for (int32_t q = 0; q < n; q++)
			if (!holds(&held, c->root, (ir_block){q, 0}))
				FAIL("delivery: the root %d never receives "
				     "rank "
				     "%d's block",
				     (int)c->root, (int)q);
		break;
	case IR_ALLTOALL:
		for (int32_t d = 0; d < n; d++)
			for (int32_t s = 0; s < n; s++)
				if (!holds(&held, d, (ir_block){s, d}))
					FAIL("delivery: rank %d never receives "
					     "block (%d,%d)",
					     (int)d, (int)s, (int)d);
		break;
	case IR_TRANSPOSE:
		for (int32_t q = 0; q < n; q++) {
			int32_t d = final_rank(p, (ir_block){q, 0});
			if (!holds(&held, d, (ir_block){q, 0}))
				FAIL("delivery: rank %d never receives rank "
				     "%d's "
				     "block of the transpose",
				     (int)d, (int)q);
		}
		break;
	case IR_IRREGULAR:
		for (int32_t s = 0; s < n; s++)
			for (int64_t k = c->matrix->row[s];
			     k < c->matrix->row[s + 1]; k++)
				if (!holds(&held, c->matrix->dst[k],
				           (ir_block){s, c->matrix->dst[k]}))
					FAIL("delivery: rank %d never receives "
					     "the "
					     "%lld bytes from rank %d",
					     (int)c->matrix->dst[k],
					     (long long)c->matrix->bytes[k],
					     (int)s);
		break;
	case IR_ALLGATHER:
		for (int32_t q = 0; q < n; q++)
			for (int32_t s = 0; s < n; s++)
				if (!holds(&held, q, (ir_block){s, 0}))
					FAIL("delivery: rank %d never receives "
					     "rank %d's block of the allgather",
					     (int)q, (int)s);
		break;
	case IR_REDUCE:
	case IR_REDUCE_SCATTER:
	case IR_ALLREDUCE:
		if ((rc = check_results(p, K, part, r)) != 0)
			goto out_rc;
		break;
	}
	if ((rc = ir_lower_bound(m, c, r->direct, p->flags,
	                         mcast_fanout(p, sends), r)) != 0)
		goto out;
	goto out;

out_rc:
	if (rc == CCP_EVERIFY) {
		r->ok = false;
		goto out;
	}
out_nomem:
	rc = CCP_ENOMEM;
	r->ok = false;
	snprintf(r->message, sizeof r->message, "verifier: out of memory");
out:
	held_close(&held);
	free(lc.dense);
	free(lc.list);
	free(order);
	free(mg.prefix);
	free(mg.after);
	free(sends);
	free(recvs);
	free(nsends);
	free(nrecvs);
	free(ntouch);
	free(touched);
	free(links);
	free(pairs);
	free(start);
	free(part);
	free(snap);
	free(sent);
	free(got);
	free(soff);
	return rc;
}

void ir_report_fini(ir_report *r)
{
	free(r->link_load);
	r->link_load = NULL;
}

/* ---- loads by link class -------------------------------------------- */

/* Add the loads of one phase's sorted link list to out: runs of one id
 * are one link's load. */
static void class_worst(const ir_machine *m, const uint64_t *ids, uint64_t n,
                        ir_class_load out[IR_NLINK_CLASSES])
{
	for (uint64_t k = 0, run = 0; k < n; k++) {
		run = k > 0 && ids[k] == ids[k - 1] ? run + 1 : 1;
		if (k + 1 < n && ids[k + 1] == ids[k])
			continue;
		ir_class_load *c = &out[ir_link_class(m, ids[k])];
		uint32_t t = ir_link_phases(m, ids[k], run);
		if (t > c->worst)
			c->worst = t;
	}
}

int ir_class_loads(const ir_plan *p, ir_class_load out[IR_NLINK_CLASSES])
{
	const ir_machine *m = &p->machine;
	uint64_t nl = ir_nlinks(m), n = 0, cap = 0;
	uint64_t *ids = NULL, *path = NULL;
	uint64_t hops[IR_NLINK_CLASSES];
	int rc = 0;

	memset(out, 0, IR_NLINK_CLASSES * sizeof *out);
	if (nl > (UINT64_C(1) << 28))
		return CCP_ERANGE; /* counting the links would cost more */
	for (uint64_t id = 0; id < nl; id++) {
		int32_t a, b;
		if (ir_link_ends(m, id, &a, &b) != 0)
			continue;
		ir_class_load *c = &out[ir_link_class(m, id)];
		c->links++;
		c->capacity += (uint64_t)ir_link_capacity(m, id);
	}
	size_t rmax = (size_t)ir_route_max(m) + 1;
	if (!(path = malloc(rmax * sizeof *path)))
		return CCP_ENOMEM;
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		const ir_phase *f = &p->phases[ph];
		n = 0;
		memset(hops, 0, sizeof hops);
		for (uint32_t t = f->transfer; t < f->transfer + f->ntransfers;
		     t++) {
			const ir_transfer *x = &p->transfers[t];
			if (n + rmax > cap) {
				uint64_t c2 = cap ? 2 * cap : 1024;
				while (c2 < n + rmax)
					c2 *= 2;
				uint64_t *q = realloc(ids, c2 * sizeof *q);
				if (!q) {
					rc = CCP_ENOMEM;
					goto out;
				}
				ids = q;
				cap = c2;
			}
			int h = ir_route_xfer(m, x, ids + n);
			if (h < 0) {
				rc = h;
				goto out;
			}
			n += (uint64_t)h;
			h = ir_path(m, x->src, x->dst, path);
			for (int j = 0; j < h; j++)
				hops[ir_link_class(m, path[j])]++;
		}
		if (n)
			qsort(ids, n, sizeof *ids, cmp_u64);
		class_worst(m, ids, n, out);
		for (int c = 0; c < IR_NLINK_CLASSES; c++) {
			out[c].hops += hops[c];
			double mean = out[c].capacity
			                      ? (double)hops[c] /
			                                (double)out[c].capacity
			                      : 0.0;
			if (mean > out[c].mean)
				out[c].mean = mean;
		}
	}
out:
	free(ids);
	free(path);
	return rc;
}
