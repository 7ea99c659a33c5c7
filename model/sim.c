/*
 * sim.c - an event-driven simulation of a plan on a wormhole-routed
 * network, the way 001 §3.3.5 runs broadcasts in MultiSim: serialised
 * start-ups at every sender, store-and-forward at intermediate ranks, no
 * global phase barriers.
 *
 * A transfer of the plan is one message (a multicast group, IR_XF_MCAST,
 * is one message to several destinations).  Its life:
 *
 *   ready      its sender holds every block it carries: each was
 *              delivered to the sender by an earlier-phase transfer (a
 *              reduction waits for every earlier contribution to it)
 *   start-up   the sender's processor spends alpha on it; a rank's
 *              start-ups run one at a time, in the order of its sends in
 *              the plan (001 §4.4.2: serialised start-ups)
 *   inject     it takes an injection port of the sender (ports: the
 *              machine's k, or the rank's degree when all-port), waiting
 *              in order if none is free
 *   header     the header crosses the h links of its route: h*hop
 *   eject      it takes an ejection port at each destination (in rank
 *              order), its header waiting there while none is free
 *   stream     its bytes flow over every link of its route at once
 *              (wormhole): a link's bandwidth 1/beta is split equally
 *              among the messages streaming on it (round-robin virtual
 *              channels), and a message goes at the rate of its most
 *              shared link; rates are recomputed whenever a message
 *              starts or stops streaming
 *   receive    the tail is in: the ports are freed, and each destination
 *              spends gamma on it, and L*combine more when it combines
 *              it into a partial (IR_XF_REDUCE, the machine's combine
 *              cost, 0 when unset), its receives one at a time; then
 *              the blocks are delivered and later sends may become
 *              ready.
 *
 * With links = MODEL_LINKS_FIFO (model_sim_opts), links have no virtual
 * channels: after injection the header takes its route's links one at a
 * time, hop each, queueing first come first served at a busy link while
 * it keeps the links it already took (chained blocking); with all of
 * them and its ejection ports it streams at the full 1/beta, and its
 * tail frees every link at once, handing each to the oldest header
 * waiting for it.  A multicast takes the union of its copies' links in
 * the order of the copies' routes.  Without virtual channels a cycle of
 * waiting headers is possible (a torus's wraparound under dimension-
 * order routing, crossing multicasts): the run then stops and says so.
 *
 * With barriers (model_sim_opts), a phase's sends become ready only when
 * every transfer of the earlier phases is delivered.
 *
 * With half_duplex (model_sim_opts), a rank does not stream a message out
 * while it streams one in (004 §2.2 observation 1, the iPSC/860), unless
 * the two are a pairwise exchange: unicasts of the same phase between
 * the same two ranks, one each way (matched one to one).  A message that
 * holds every port it needs streams only if its sender streams no
 * receive (or only its exchange partner) and none of its destinations
 * streams a send (or only its partner); otherwise it waits, in arrival
 * order, at the first rank that stops it, and tries again whenever a
 * stream of that rank ends (it reserves nothing: a later message that
 * fits may go first).  It holds its ports while it waits, but nothing a
 * half-duplex wait is for is held by a message that waits, so the waits
 * cannot deadlock: each ends with a stream.  A message stopped at a rank
 * holds one of that rank's injection or ejection ports, so no more
 * messages wait there than the rank has ports, and a retry costs
 * O(ports).
 *
 * Uncontended, a message thus arrives alpha + h*hop + L*beta + gamma
 * after its sender became free and it became ready, which is 001's
 * unicast latency (001 §4.4.2).
 *
 * On a machine with several ranks per node, a message between two ranks
 * of one node crosses no link and takes none of the node's network
 * ports.  With a shared-memory cost (shm_alpha, shm_beta) it streams
 * through its node's memory, a virtual link of the node with shm_beta
 * per byte, shared among the messages streaming in that node as a link
 * is; its start-up is shm_alpha instead of alpha, it has no header hops
 * and no receive overhead (shm_alpha is its whole overhead, as the cost
 * models price it).  Without one it is a message of 0 hops.  A message
 * between nodes also takes one of its source node's network ports
 * (node_ports, or the node's degree when all) after its rank's injection
 * port, and one of its destination node's after the destination's
 * ejection port, waiting in order for them like for a rank's.  Either
 * kind takes its ranks' ports, as the verifier counts them.
 *
 * Every step is an event in a heap ordered by time (ties by creation
 * order), so a run costs O(E log E) for E events; rate changes touch
 * only the messages sharing a link with the one that started or stopped,
 * and a changed rate reschedules with a version number instead of
 * searching the heap.  A delivery that no send (and no barrier) waits
 * for is recorded when its tail arrives, without an event of its own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "rng.h"

#define NONE UINT32_MAX

/* ---- event heap ----------------------------------------------------- */

enum ev_kind {
	EV_STARTUP, /* id = message: its start-up is over */
	EV_HEADER,  /* id = message: its header is at the destination(s) */
	EV_STREAM,  /* id = message, ver: its last byte left, if ver holds */
	EV_RECV,    /* id = transfer: its receive overhead is over */
	EV_HOP      /* id = message: MODEL_LINKS_FIFO, its header crossed
	               the last link it took */
};

struct event {
	double at;
	uint64_t seq; /* creation order: ties resolve first-made first */
	uint32_t kind, id, ver;
};

struct heap {
	struct event *e;
	size_t n, cap;
	uint64_t seq;
};

static bool ev_before(const struct event *a, const struct event *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

/* A 4-ary heap: half the levels of a binary one, and the four children
 * of a node share a cache line or two. */
#define HEAP_D 4

static int heap_push(struct heap *h, double at, uint32_t kind, uint32_t id,
                     uint32_t ver)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 1024;
		struct event *e = realloc(h->e, cap * sizeof *e);
		if (!e)
			return CCP_ENOMEM;
		h->e = e;
		h->cap = cap;
	}
	struct event v = {at, h->seq++, kind, id, ver};
	size_t i = h->n++;
	while (i > 0) {
		size_t up = (i - 1) / HEAP_D;
		if (!ev_before(&v, &h->e[up]))
			break;
		h->e[i] = h->e[up];
		i = up;
	}
	h->e[i] = v;
	return 0;
}

static struct event heap_pop(struct heap *h)
{
	struct event top = h->e[0], v = h->e[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = HEAP_D * i + 1, best = c;
		if (c >= h->n)
			break;
		size_t end = c + HEAP_D < h->n ? c + HEAP_D : h->n;
		for (size_t k = c + 1; k < end; k++)
			if (ev_before(&h->e[k], &h->e[best]))
				best = k;
		if (!ev_before(&h->e[best], &v))
			break;
		h->e[i] = h->e[best];
		i = best;
	}
	if (h->n)
		h->e[i] = v;
	return top;
}

/* ---- state ---------------------------------------------------------- */

struct msg {
	int32_t src;
	uint32_t x0, nx; /* its transfers: xf[x0 .. x0 + nx), and its
	                    destinations, ascending: mdst[x0 .. x0 + nx) */
	uint32_t r0, nr; /* its links: entries r0 .. r0 + nr */
	uint32_t need;   /* deliveries it still waits for */
	uint32_t have;   /* ejection ports it holds */
	uint32_t ver;    /* version of its pending EV_STREAM */
	uint32_t qnext;  /* next message in the port queue it waits in */
	uint32_t stamp;  /* last rate refresh that saw it */
	uint32_t phase;  /* phase of the plan it belongs to */
	uint32_t mate;   /* half_duplex: the other half of its pairwise
	                    exchange, or NONE */
	uint32_t took;   /* MODEL_LINKS_FIFO: links its header holds, the
	                    first of entries r0 .. r0 + nr */
	int hops;        /* header hops (the longest copy) */
	bool shared;     /* it shared a link with another at some time */
	bool shm;        /* inside a node, through the node's memory */
	bool net;        /* takes its nodes' network ports */
	double tpb0;     /* time per byte alone: beta, or shm_beta */
	bool streaming;  /* it is on its links now */
	double bytes;    /* bytes on the wire */
	double rem;      /* bytes still to stream */
	double tpb;      /* current time per byte (0: not streaming) */
	double upd;      /* when rem was last brought up to date */
	double asked;    /* when it asked for an injection port */
	double held;     /* when it held every port it needs */
	double started;  /* when it began streaming */
	double blocked;  /* MODEL_LINKS_FIFO: when its header began to wait
	                    for a busy link */
};

/* Messages waiting, oldest first, linked through msg.qnext. */
struct queue {
	uint32_t head, tail;
};

struct port {
	uint32_t free;  /* ports not held */
	struct queue q; /* messages waiting for one */
};

/* What the simulator keeps per rank, together for locality. */
struct rank {
	uint32_t next, end; /* its sends still to start: sq[next .. end) */
	bool cpu;           /* a start-up is in progress */
	struct port inj;    /* injection ports */
	struct port ej;     /* ejection ports */
	uint32_t nout, nin; /* half_duplex: messages streaming out, in */
	struct queue dq;    /* half_duplex: messages it stops from streaming */
	double rx_free;     /* when its receive processing is free */
};

/* The network ports of a node (machines with several ranks per node). */
struct node {
	struct port inj; /* its network sends */
	struct port ej;  /* its network receives */
};

/* One link of one message's route, in the link's list of messages
 * streaming on it while the message streams. */
struct entry {
	uint32_t link, msg;  /* dense link id; owning message */
	uint32_t next, prev; /* neighbours in the link's list */
};

struct link {
	uint32_t head;  /* first streaming entry, NONE if idle */
	uint32_t count; /* messages streaming on it */
	uint32_t cap;   /* ir_link_capacity: cables, each of 1/beta (1 for
	                   a node's memory) */
	uint32_t owner; /* MODEL_LINKS_FIFO: the message that took it last
	                   while held, or NONE */
	uint32_t held;  /* MODEL_LINKS_FIFO: headers holding it, <= cap */
	struct queue q; /* MODEL_LINKS_FIFO: headers waiting for it */
};

struct sim {
	const ir_plan *p;
	const ir_cost *c;
	int32_t n;
	uint32_t nmsg;
	struct msg *m;
	uint32_t *xmsg;    /* per transfer: its message */
	uint32_t *xf;      /* transfers grouped by message */
	int32_t *mdst;     /* destinations grouped by message */
	struct entry *ent; /* one per link of each message's route */
	uint32_t nent;
	struct link *link; /* per link, numbered densely */
	uint32_t nlinks;
	/* dependencies: dep[dep0[t] .. dep0[t+1]) wait for transfer t */
	uint32_t *dep0, *dep;
	struct rank *rank; /* per rank */
	struct node *node; /* per node, when the machine has nodes */
	bool nodes;        /* several ranks per node */
	bool shm;          /* ... and a shared-memory cost */
	uint32_t *sq;      /* messages grouped by sender, in send order */
	struct heap h;
	uint32_t refresh; /* rate-refresh counter for msg.stamp */
	uint64_t recvs;   /* transfers delivered */
	/* barriers: sends of phase > gate wait; left[ph] transfers of phase
	 * ph are not delivered yet; pm0[ph] is its first message */
	bool barriers;
	bool half_duplex;
	bool fifo; /* links = MODEL_LINKS_FIFO */
	uint32_t gate;
	uint32_t *left, *pm0, *xphase;
	double last; /* latest event time */
	struct model_sim *out;
	void (*progress)(void *, double); /* model_sim_opts, or NULL */
	void *progress_arg;
};

static void sim_free(struct sim *s)
{
	free(s->m);
	free(s->xmsg);
	free(s->xf);
	free(s->mdst);
	free(s->ent);
	free(s->link);
	free(s->dep0);
	free(s->dep);
	free(s->rank);
	free(s->node);
	free(s->sq);
	free(s->left);
	free(s->pm0);
	free(s->xphase);
	free(s->h.e);
}

/* ---- building ------------------------------------------------------- */

/* A shared-memory cost field (shm_alpha, shm_beta), 0 when not given: a
 * machine may give one without the other. */
static double shm_cost(double v)
{
	return v > 0 ? v : 0;
}

/* Phases, ranks and blocks inside their arrays; no self-transfer. */
static int check_plan(const ir_plan *p, char *err, size_t len)
{
	int32_t n = p->machine.nranks;
	uint32_t seen = 0;
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		const ir_phase *f = &p->phases[ph];
		if (f->transfer > p->ntransfers ||
		    f->ntransfers > p->ntransfers - f->transfer) {
			snprintf(err, len,
			         "phase %u names transfers [%u, +%u) outside "
			         "the plan's %u",
			         ph, f->transfer, f->ntransfers, p->ntransfers);
			return CCP_EINVAL;
		}
		seen += f->ntransfers;
	}
	if (seen != p->ntransfers) {
		snprintf(err, len,
		         "the phases hold %u transfers, the plan has %u", seen,
		         p->ntransfers);
		return CCP_EINVAL;
	}
	for (uint32_t t = 0; t < p->ntransfers; t++) {
		const ir_transfer *x = &p->transfers[t];
		if (x->src < 0 || x->src >= n || x->dst < 0 || x->dst >= n ||
		    x->src == x->dst || x->bytes < 0 || x->nblocks == 0 ||
		    x->block > p->nblocks ||
		    x->nblocks > p->nblocks - x->block) {
			snprintf(err, len,
			         "transfer %u (%d -> %d) does not fit the plan "
			         "or the machine's %d ranks",
			         t, (int)x->src, (int)x->dst, (int)n);
			return CCP_EINVAL;
		}
	}
	return 0;
}

/* One message per transfer, except that the IR_XF_MCAST transfers of
 * one sender in one phase are one message (ir.h).  Messages are numbered
 * in plan order, so a rank's messages in number order are its sends in
 * plan order. */
static int build_messages(struct sim *s)
{
	const ir_plan *p = s->p;
	uint32_t nt = p->ntransfers;
	size_t n = (size_t)s->n;
	uint32_t *open = calloc(n, sizeof *open);     /* 1 + msg, this phase */
	uint32_t *opened = calloc(n, sizeof *opened); /* phase + 1 */
	s->xmsg = malloc((nt ? nt : 1) * sizeof *s->xmsg);
	s->m = calloc(nt ? nt : 1, sizeof *s->m);
	s->xf = malloc((nt ? nt : 1) * sizeof *s->xf);
	s->mdst = malloc((nt ? nt : 1) * sizeof *s->mdst);
	if (!open || !opened || !s->xmsg || !s->m || !s->xf || !s->mdst) {
		free(open);
		free(opened);
		return CCP_ENOMEM;
	}
	uint32_t nm = 0;
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		const ir_phase *f = &p->phases[ph];
		for (uint32_t k = 0; k < f->ntransfers; k++) {
			uint32_t t = f->transfer + k;
			const ir_transfer *x = &p->transfers[t];
			if ((x->flags & IR_XF_MCAST) &&
			    opened[x->src] == ph + 1) {
				s->xmsg[t] = open[x->src] - 1;
				s->m[s->xmsg[t]].nx++;
				continue;
			}
			s->xmsg[t] = nm;
			s->m[nm].src = x->src;
			s->m[nm].nx = 1;
			s->m[nm].phase = ph;
			if (x->flags & IR_XF_MCAST) {
				opened[x->src] = ph + 1;
				open[x->src] = nm + 1;
			}
			nm++;
		}
	}
	free(open);
	free(opened);
	s->nmsg = nm;
	if (s->barriers) {
		size_t np = (size_t)p->nphases + 1;
		s->left = calloc(np, sizeof *s->left);
		s->pm0 = calloc(np, sizeof *s->pm0);
		s->xphase = malloc((nt ? nt : 1) * sizeof *s->xphase);
		if (!s->left || !s->pm0 || !s->xphase)
			return CCP_ENOMEM;
		for (uint32_t ph = 0; ph < p->nphases; ph++) {
			const ir_phase *f = &p->phases[ph];
			s->left[ph] = f->ntransfers;
			for (uint32_t k = 0; k < f->ntransfers; k++)
				s->xphase[f->transfer + k] = ph;
		}
		for (uint32_t i = nm; i-- > 0;) /* first message per phase */
			s->pm0[s->m[i].phase] = i;
		s->pm0[p->nphases] = nm;
		for (uint32_t ph = p->nphases; ph-- > 0;)
			if (!p->phases[ph].ntransfers)
				s->pm0[ph] = s->pm0[ph + 1];
		while (s->gate < p->nphases && !s->left[s->gate])
			s->gate++;
	}
	/* group transfers by message, in plan order within each */
	uint32_t at = 0;
	for (uint32_t i = 0; i < nm; i++) {
		s->m[i].x0 = at;
		at += s->m[i].nx;
		s->m[i].nx = 0;
	}
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		const ir_phase *f = &p->phases[ph];
		for (uint32_t k = 0; k < f->ntransfers; k++) {
			uint32_t t = f->transfer + k;
			struct msg *g = &s->m[s->xmsg[t]];
			s->xf[g->x0 + g->nx++] = t;
		}
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* A link id and the entry that uses it, for compacting sparse ids. */
struct lref {
	uint64_t link;
	uint32_t e;
};

static int cmp_lref(const void *a, const void *b)
{
	const struct lref *x = a, *y = b;
	return (x->link > y->link) - (x->link < y->link);
}

/* Drop repeated link ids from grp[0 .. *n).  in_order keeps each first
 * occurrence where it stands (the order a FIFO header takes them);
 * otherwise the ids come out sorted. */
static int dedup_links(uint64_t *grp, size_t *n, bool in_order)
{
	size_t u = 0, ng = *n;
	uint64_t *set = grp;
	if (in_order) {
		if (!(set = malloc(ng * sizeof *set)))
			return CCP_ENOMEM;
		memcpy(set, grp, ng * sizeof *set);
	}
	qsort(set, ng, sizeof *set, cmp_u64);
	for (size_t k = 0; k < ng; k++)
		if (k == 0 || set[k] != set[u - 1])
			set[u++] = set[k];
	if (in_order) {
		/* keep each link where it first stands in grp */
		bool *seen = calloc(u ? u : 1, sizeof *seen);
		if (!seen) {
			free(set);
			return CCP_ENOMEM;
		}
		size_t w = 0;
		for (size_t k = 0; k < ng; k++) {
			uint64_t *at = bsearch(&grp[k], set, u, sizeof *set,
			                       cmp_u64);
			if (seen[at - set])
				continue;
			seen[at - set] = true;
			grp[w++] = grp[k];
		}
		free(seen);
		free(set);
	}
	*n = u;
	return 0;
}

/* Route every message: its links (the union over a multicast group's
 * copies), header hops, and destinations; then number the links used
 * densely (directly when the machine has few link ids, by sorting
 * otherwise, as on a large switch). */
static int build_routes(struct sim *s, char *err, size_t len)
{
	const ir_plan *p = s->p;
	const ir_machine *mc = &p->machine;
	int rc = CCP_ENOMEM;
	size_t mh = (size_t)ir_route_max(mc) + 1;
	uint64_t *route = malloc(mh * sizeof *route);
	uint64_t *raw = NULL, *grp = NULL;
	struct lref *ref = NULL;
	size_t cap = 0, ne = 0, capg = 0;
	uint64_t nl = ir_nlinks(mc); /* the node memories follow */
	if (!route)
		goto out;
	for (uint32_t i = 0; i < s->nmsg; i++) {
		struct msg *g = &s->m[i];
		size_t ng = 0;
		g->r0 = (uint32_t)ne;
		g->tpb0 = s->c->beta;
		if (s->nodes && g->nx > 1) {
			snprintf(err, len,
			         "transfer %u is a multicast on a machine with "
			         "several ranks per node, which no router "
			         "replicates",
			         s->xf[g->x0]);
			rc = CCP_EINVAL;
			goto out;
		}
		for (uint32_t k = 0; k < g->nx; k++) {
			const ir_transfer *x = &p->transfers[s->xf[g->x0 + k]];
			int h = ir_route_xfer(mc, x, route);
			int32_t node = ir_node_of(mc, x->src);
			bool inside =
			        s->nodes && node == ir_node_of(mc, x->dst);
			if (h < 0 || (h == 0 && !inside)) {
				snprintf(err, len,
				         "no route from rank %d to rank %d",
				         (int)x->src, (int)x->dst);
				rc = CCP_EINVAL;
				goto out;
			}
			g->net = s->nodes && !inside;
			if (inside && s->shm) { /* the node's memory */
				g->shm = true;
				g->tpb0 = shm_cost(s->c->shm_beta);
				route[0] = nl + (uint64_t)node;
				h = 1;
			}
			int hops = ir_routing_adapts(mc)
			                   ? ir_hops(mc, x->src, x->dst)
			                   : h;
			if (hops > g->hops && !g->shm)
				g->hops = hops;
			if (x->bytes > g->bytes)
				g->bytes = (double)x->bytes;
			s->mdst[g->x0 + k] = x->dst;
			if (h == 0) /* inside a node, no shared-memory cost */
				continue;
			if (ng + (size_t)h > capg) {
				size_t c2 = capg ? 2 * capg : 64;
				while (c2 < ng + (size_t)h)
					c2 *= 2;
				uint64_t *q = realloc(grp, c2 * sizeof *q);
				if (!q)
					goto out;
				grp = q;
				capg = c2;
			}
			memcpy(grp + ng, route, (size_t)h * sizeof *route);
			ng += (size_t)h;
		}
		if (g->nx > 1) { /* a multicast: shared links carry it once */
			if (dedup_links(grp, &ng, s->fifo) != 0)
				goto out; /* rc is CCP_ENOMEM */
			qsort(s->mdst + g->x0, g->nx, sizeof *s->mdst, cmp_i32);
		}
		if (ne + ng > UINT32_MAX - 1) {
			snprintf(err, len, "the plan's routes are too long");
			rc = CCP_EINVAL;
			goto out;
		}
		if (ne + ng > cap) {
			size_t c2 = cap ? 2 * cap : 4096;
			while (c2 < ne + ng)
				c2 *= 2;
			uint64_t *q = realloc(raw, c2 * sizeof *q);
			if (!q)
				goto out;
			raw = q;
			cap = c2;
		}
		if (ng)
			memcpy(raw + ne, grp, ng * sizeof *grp);
		ne += ng;
		g->nr = (uint32_t)(ne - g->r0);
	}
	s->nent = (uint32_t)ne;
	size_t nn = ne ? ne : 1;
	if (!(s->ent = malloc(nn * sizeof *s->ent)))
		goto out;
	for (uint32_t i = 0; i < s->nmsg; i++)
		for (uint32_t k = 0; k < s->m[i].nr; k++)
			s->ent[s->m[i].r0 + k].msg = i;
	if (s->shm)
		nl += (uint64_t)mc->nnodes;
	if (nl <= (UINT64_C(1) << 25)) { /* link ids are dense already */
		for (size_t e = 0; e < ne; e++)
			s->ent[e].link = (uint32_t)raw[e];
		s->nlinks = (uint32_t)nl;
	} else {
		if (!(ref = malloc(nn * sizeof *ref)))
			goto out;
		for (size_t e = 0; e < ne; e++)
			ref[e] = (struct lref){raw[e], (uint32_t)e};
		qsort(ref, ne, sizeof *ref, cmp_lref);
		uint32_t id = 0;
		for (size_t e = 0; e < ne; e++) {
			if (e > 0 && ref[e].link != ref[e - 1].link)
				id++;
			s->ent[ref[e].e].link = id;
		}
		s->nlinks = ne ? id + 1 : 0;
	}
	size_t nlk = s->nlinks ? s->nlinks : 1;
	if (!(s->link = malloc(nlk * sizeof *s->link)))
		goto out;
	for (size_t l = 0; l < nlk; l++)
		s->link[l] = (struct link){NONE, 0, 1, NONE, 0, {NONE, NONE}};
	for (size_t e = 0;
	     e < ne && (mc->topo == IR_FAT_TREE || mc->topo == IR_GRAPH ||
	                mc->topo == IR_DRAGONFLY);
	     e++)
		if (raw[e] < ir_nlinks(mc))
			s->link[s->ent[e].link].cap =
			        (uint32_t)ir_link_capacity(mc, raw[e]);
	rc = 0;
out:
	free(route);
	free(raw);
	free(grp);
	free(ref);
	return rc;
}

/* The first delivery of block (origin, index) to a rank, by transfer. */
struct held {
	int32_t rank, origin, index; /* rank < 0: empty */
	uint32_t t;
};

static struct held *held_slot(struct held *tab, uint64_t mask, int32_t r,
                              ir_block b)
{
	uint64_t k = ir_mix64((uint64_t)(uint32_t)r << 32 ^
	                   (uint64_t)(uint32_t)b.origin ^
	                   ir_mix64((uint64_t)(uint32_t)b.index)) &
	             mask;
	for (;;) {
		struct held *h = &tab[k];
		if (h->rank < 0 || (h->rank == r && h->origin == b.origin &&
		                    h->index == b.index))
			return h;
		k = (k + 1) & mask;
	}
}

/* A dependency: message m waits for the delivery of transfer t. */
struct dep {
	uint32_t t, m;
};

struct deps {
	struct dep *d;
	size_t n, cap;
	uint32_t *stamp; /* per transfer: 1 + last message that took it */
};

static int dep_add(struct deps *D, uint32_t t, uint32_t m)
{
	if (D->stamp[t] == m + 1)
		return 0; /* already waiting for it */
	D->stamp[t] = m + 1;
	if (D->n == D->cap) {
		size_t cap = D->cap ? 2 * D->cap : 1024;
		struct dep *q = realloc(D->d, cap * sizeof *q);
		if (!q)
			return CCP_ENOMEM;
		D->d = q;
		D->cap = cap;
	}
	D->d[D->n++] = (struct dep){t, m};
	return 0;
}

/* Which deliveries each message waits for: for a copy, the first
 * delivery of each block it carries to its sender in an earlier phase
 * (the verifier's causality rule); for a reduction (IR_XF_REDUCE), every
 * earlier-phase transfer into its sender, whose contributions its
 * partial must hold.  Blocks the sender owns are ready at time 0. */
static int build_deps(struct sim *s, char *err, size_t len)
{
	const ir_plan *p = s->p;
	uint32_t nt = p->ntransfers;
	bool reduce = ir_coll_kind(p->comm.coll) & IR_CK_REDUCES;
	int rc = CCP_ENOMEM;
	struct deps D = {0};
	struct held *tab = NULL;
	uint32_t *in0 = NULL, *in = NULL, *inpos = NULL, *phase = NULL;
	uint64_t cap = 64;
	D.stamp = calloc(nt ? nt : 1, sizeof *D.stamp);
	s->dep0 = calloc((size_t)nt + 1, sizeof *s->dep0);
	if (!D.stamp || !s->dep0)
		goto out;
	if (reduce) {
		/* transfers into each rank, in plan order, with phases */
		size_t n = (size_t)s->n;
		in0 = calloc(n + 1, sizeof *in0);
		in = malloc((nt ? nt : 1) * sizeof *in);
		inpos = calloc(n, sizeof *inpos);
		phase = malloc((nt ? nt : 1) * sizeof *phase);
		if (!in0 || !in || !inpos || !phase)
			goto out;
		for (uint32_t ph = 0; ph < p->nphases; ph++)
			for (uint32_t k = 0; k < p->phases[ph].ntransfers; k++)
				phase[p->phases[ph].transfer + k] = ph;
		for (uint32_t t = 0; t < nt; t++)
			in0[p->transfers[t].dst + 1]++;
		for (size_t r = 0; r < n; r++)
			in0[r + 1] += in0[r];
		for (uint32_t ph = 0; ph < p->nphases; ph++)
			for (uint32_t k = 0; k < p->phases[ph].ntransfers;
			     k++) {
				uint32_t t = p->phases[ph].transfer + k;
				int32_t d = p->transfers[t].dst;
				in[in0[d] + inpos[d]++] = t;
			}
		for (uint32_t ph = 0; ph < p->nphases; ph++)
			for (uint32_t k = 0; k < p->phases[ph].ntransfers;
			     k++) {
				uint32_t t = p->phases[ph].transfer + k;
				int32_t r = p->transfers[t].src;
				for (uint32_t j = in0[r]; j < in0[r + 1]; j++)
					if (phase[in[j]] < ph &&
					    (rc = dep_add(&D, in[j],
					                  s->xmsg[t])) != 0)
						goto out;
			}
		rc = 0;
		goto csr;
	}
	while (cap < 2 * (uint64_t)p->nblocks + 16)
		cap *= 2;
	if (!(tab = malloc(cap * sizeof *tab)))
		goto out;
	for (uint64_t k = 0; k < cap; k++)
		tab[k].rank = -1;
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		const ir_phase *f = &p->phases[ph];
		for (uint32_t k = 0; k < f->ntransfers; k++) {
			uint32_t t = f->transfer + k;
			const ir_transfer *x = &p->transfers[t];
			for (uint32_t j = 0; j < x->nblocks; j++) {
				ir_block b = p->blocks[x->block + j];
				if (b.origin == x->src)
					continue;
				struct held *h =
				        held_slot(tab, cap - 1, x->src, b);
				if (h->rank < 0) {
					snprintf(
					        err, len,
					        "phase %u: rank %d sends block "
					        "(%d,%d) it never received "
					        "before; verify the plan",
					        ph, (int)x->src, (int)b.origin,
					        (int)b.index);
					rc = CCP_EINVAL;
					goto out;
				}
				if ((rc = dep_add(&D, h->t, s->xmsg[t])) != 0)
					goto out;
			}
		}
		for (uint32_t k = 0; k < f->ntransfers; k++) {
			uint32_t t = f->transfer + k;
			const ir_transfer *x = &p->transfers[t];
			for (uint32_t j = 0; j < x->nblocks; j++) {
				ir_block b = p->blocks[x->block + j];
				struct held *h =
				        held_slot(tab, cap - 1, x->dst, b);
				if (h->rank < 0)
					*h = (struct held){x->dst, b.origin,
					                   b.index, t};
			}
		}
	}
	rc = 0;
csr:
	/* dependents of each transfer, and what each message waits for */
	for (size_t k = 0; k < D.n; k++) {
		s->dep0[D.d[k].t + 1]++;
		s->m[D.d[k].m].need++;
	}
	for (uint32_t t = 0; t < nt; t++)
		s->dep0[t + 1] += s->dep0[t];
	if (!(s->dep = malloc((D.n ? D.n : 1) * sizeof *s->dep))) {
		rc = CCP_ENOMEM;
		goto out;
	}
	memset(D.stamp, 0, (nt ? nt : 1) * sizeof *D.stamp);
	for (size_t k = 0; k < D.n; k++) /* stamp reused as fill position */
		s->dep[s->dep0[D.d[k].t] + D.stamp[D.d[k].t]++] = D.d[k].m;
out:
	free(D.d);
	free(D.stamp);
	free(tab);
	free(in0);
	free(in);
	free(inpos);
	free(phase);
	return rc;
}

/* Per-rank state: send order, ports, receive processing. */
static int build_ranks(struct sim *s)
{
	const ir_machine *mc = &s->p->machine;
	size_t n = (size_t)s->n;
	s->rank = calloc(n ? n : 1, sizeof *s->rank);
	s->sq = malloc((s->nmsg ? s->nmsg : 1) * sizeof *s->sq);
	if (!s->rank || !s->sq)
		return CCP_ENOMEM;
	for (uint32_t i = 0; i < s->nmsg; i++)
		s->rank[s->m[i].src].end++;
	uint32_t at = 0;
	for (size_t r = 0; r < n; r++) { /* next = end = first send */
		at += s->rank[r].end;
		s->rank[r].next = s->rank[r].end = at - s->rank[r].end;
	}
	for (uint32_t i = 0; i < s->nmsg; i++) /* end runs to its place */
		s->sq[s->rank[s->m[i].src].end++] = i;
	for (size_t r = 0; r < n; r++) {
		int k = ir_port_limit(mc, (int32_t)r);
		uint32_t ports = k > 0 ? (uint32_t)k : 1;
		s->rank[r].inj = (struct port){ports, {NONE, NONE}};
		s->rank[r].ej = (struct port){ports, {NONE, NONE}};
		s->rank[r].dq = (struct queue){NONE, NONE};
	}
	if (!s->nodes)
		return 0;
	if (!(s->node = malloc((size_t)mc->nnodes * sizeof *s->node)))
		return CCP_ENOMEM;
	for (int32_t v = 0; v < mc->nnodes; v++) {
		int k = ir_node_port_limit(mc, v);
		uint32_t ports = k > 0 ? (uint32_t)k : 1;
		s->node[v].inj = (struct port){ports, {NONE, NONE}};
		s->node[v].ej = (struct port){ports, {NONE, NONE}};
	}
	return 0;
}

/* A unicast message keyed by its phase and its two ranks, lower first. */
struct mkey {
	uint32_t phase;
	int32_t lo, hi;
	uint32_t msg;
};

static int cmp_mkey(const void *a, const void *b)
{
	const struct mkey *x = a, *y = b;
	if (x->phase != y->phase)
		return x->phase < y->phase ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return (x->msg > y->msg) - (x->msg < y->msg);
}

/* half_duplex: pair every unicast a -> b of a phase with a unicast
 * b -> a of the same phase, in plan order, one to one (the pairwise
 * exchanges); a message left over, or a multicast, has no mate. */
static int build_mates(struct sim *s)
{
	for (uint32_t i = 0; i < s->nmsg; i++)
		s->m[i].mate = NONE;
	struct mkey *k = malloc((s->nmsg ? s->nmsg : 1) * sizeof *k);
	if (!k)
		return CCP_ENOMEM;
	size_t n = 0;
	for (uint32_t i = 0; i < s->nmsg; i++) {
		const struct msg *g = &s->m[i];
		if (g->nx != 1)
			continue;
		int32_t d = s->mdst[g->x0];
		k[n++] = (struct mkey){g->phase, g->src < d ? g->src : d,
		                       g->src < d ? d : g->src, i};
	}
	qsort(k, n, sizeof *k, cmp_mkey);
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && k[b].phase == k[a].phase &&
		                k[b].lo == k[a].lo && k[b].hi == k[a].hi;
		     b++)
			;
		/* u: the next lo -> hi message, v: the next hi -> lo */
		size_t u = a, v = a;
		for (;;) {
			while (u < b && s->m[k[u].msg].src != k[a].lo)
				u++;
			while (v < b && s->m[k[v].msg].src != k[a].hi)
				v++;
			if (u == b || v == b)
				break;
			s->m[k[u].msg].mate = k[v].msg;
			s->m[k[v].msg].mate = k[u].msg;
			u++;
			v++;
		}
	}
	free(k);
	return 0;
}

/* ---- running -------------------------------------------------------- */

static void enqueue(struct sim *s, struct queue *q, uint32_t i)
{
	s->m[i].qnext = NONE;
	if (q->tail == NONE)
		q->head = i;
	else
		s->m[q->tail].qnext = i;
	q->tail = i;
}

static uint32_t dequeue(struct sim *s, struct queue *q)
{
	uint32_t i = q->head;
	if (i != NONE) {
		q->head = s->m[i].qnext;
		if (q->head == NONE)
			q->tail = NONE;
	}
	return i;
}

/* Start rank r's next start-up if its processor is free and that send
 * is ready (sends go strictly in plan order). */
static int try_send(struct sim *s, int32_t r, double now)
{
	if (s->rank[r].cpu || s->rank[r].next == s->rank[r].end)
		return 0;
	uint32_t i = s->sq[s->rank[r].next];
	if (s->m[i].need || (s->barriers && s->m[i].phase > s->gate))
		return 0;
	s->rank[r].cpu = true;
	double startup = s->m[i].shm ? shm_cost(s->c->shm_alpha) : s->c->alpha;
	return heap_push(&s->h, now + startup, EV_STARTUP, i, 0);
}

/* Bring message i's progress up to now and give it the rate of its most
 * shared link; reschedule its end if the rate changed.  A link of
 * capacity c (several cables) carries c messages at the full rate and
 * splits c/beta among more. */
static int refresh(struct sim *s, uint32_t i, double now)
{
	struct msg *g = &s->m[i];
	uint32_t share = 1;
	double slow = 1;
	for (uint32_t k = 0; k < g->nr; k++) {
		const struct link *l = &s->link[s->ent[g->r0 + k].link];
		uint32_t c = (l->count + l->cap - 1) / l->cap;
		if (c > share)
			share = c;
		if ((double)l->count / l->cap > slow)
			slow = (double)l->count / l->cap;
	}
	if (share > 1)
		g->shared = true;
	if (share > s->out->max_share)
		s->out->max_share = share;
	double tpb = g->tpb0 * slow;
	if (g->tpb > 0) {
		g->rem -= (now - g->upd) / g->tpb;
		if (g->rem < 0)
			g->rem = 0;
	}
	g->upd = now;
	if (tpb == g->tpb && g->ver)
		return 0;
	g->tpb = tpb;
	g->ver++;
	return heap_push(&s->h, now + g->rem * tpb, EV_STREAM, i, g->ver);
}

/* Refresh every message streaming on a link of message i (i included
 * while it streams). */
static int refresh_around(struct sim *s, uint32_t i, double now)
{
	int rc;
	uint32_t stamp = ++s->refresh;
	const struct msg *g = &s->m[i];
	for (uint32_t k = 0; k < g->nr; k++)
		for (uint32_t e = s->link[s->ent[g->r0 + k].link].head;
		     e != NONE; e = s->ent[e].next) {
			uint32_t j = s->ent[e].msg;
			if (s->m[j].stamp == stamp)
				continue;
			s->m[j].stamp = stamp;
			if ((rc = refresh(s, j, now)) != 0)
				return rc;
		}
	return 0;
}

/* Message i holds every port it needs: put it on its links. */
static int start_stream(struct sim *s, uint32_t i, double now)
{
	struct msg *g = &s->m[i];
	s->out->port_wait_us +=
	        fmax(0, g->held - g->asked - g->hops * s->c->hop);
	s->out->duplex_wait_us += now - g->held;
	g->streaming = true;
	g->started = now;
	g->rem = g->bytes;
	g->tpb = 0;
	if (s->fifo) { /* it holds every link of its route alone */
		if (g->nr && s->out->max_share < 1)
			s->out->max_share = 1;
		return heap_push(&s->h, now + g->bytes * g->tpb0, EV_STREAM, i,
		                 ++g->ver);
	}
	for (uint32_t k = 0; k < g->nr; k++) {
		uint32_t e = g->r0 + k, l = s->ent[e].link;
		s->ent[e].prev = NONE;
		s->ent[e].next = s->link[l].head;
		if (s->link[l].head != NONE)
			s->ent[s->link[l].head].prev = e;
		s->link[l].head = e;
		s->link[l].count++;
	}
	if (!g->nr) /* inside a node without a shared-memory cost */
		return refresh(s, i, now);
	return refresh_around(s, i, now);
}

/* half_duplex: the first rank that stops message i from streaming now,
 * or -1.  Its sender must stream no receive but i's mate, and each of
 * its destinations no send but i's mate. */
static int32_t duplex_stop(const struct sim *s, uint32_t i)
{
	const struct msg *g = &s->m[i];
	bool mate = g->mate != NONE && s->m[g->mate].streaming;
	const struct rank *r = &s->rank[g->src];
	if (r->nin && !(r->nin == 1 && mate))
		return g->src;
	for (uint32_t k = 0; k < g->nx; k++) {
		r = &s->rank[s->mdst[g->x0 + k]];
		if (r->nout && !(r->nout == 1 && mate))
			return s->mdst[g->x0 + k];
	}
	return -1;
}

/* Message i holds its ports: stream now, unless a half-duplex rank
 * stops it; then it waits at that rank. */
static int try_stream(struct sim *s, uint32_t i, double now)
{
	struct msg *g = &s->m[i];
	if (!s->half_duplex)
		return start_stream(s, i, now);
	int32_t r = duplex_stop(s, i);
	if (r >= 0) {
		enqueue(s, &s->rank[r].dq, i);
		return 0;
	}
	s->rank[g->src].nout++;
	for (uint32_t k = 0; k < g->nx; k++)
		s->rank[s->mdst[g->x0 + k]].nin++;
	return start_stream(s, i, now);
}

/* half_duplex: a stream of rank r ended; the messages it stopped try
 * again, oldest first (those still stopped queue again, in order). */
static int duplex_retry(struct sim *s, int32_t r, double now)
{
	int rc;
	uint32_t i = s->rank[r].dq.head;
	s->rank[r].dq = (struct queue){NONE, NONE};
	while (i != NONE) {
		uint32_t next = s->m[i].qnext;
		if ((rc = try_stream(s, i, now)) != 0)
			return rc;
		i = next;
	}
	return 0;
}

/* The ejection port message i takes k-th: its destinations' in rank
 * order, then (a message between nodes, never a multicast) its
 * destination node's network port. */
static struct port *ej_port(struct sim *s, const struct msg *g, uint32_t k)
{
	if (k < g->nx)
		return &s->rank[s->mdst[g->x0 + k]].ej;
	return &s->node[ir_node_of(&s->p->machine, s->mdst[g->x0])].ej;
}

/* Take the ejection ports of message i in ej_port's order (a fixed
 * order, so waiting messages cannot deadlock), then stream. */
static int take_ejection(struct sim *s, uint32_t i, double now)
{
	struct msg *g = &s->m[i];
	while (g->have < g->nx + g->net) {
		struct port *q = ej_port(s, g, g->have);
		if (!q->free) {
			enqueue(s, &q->q, i);
			return 0;
		}
		q->free--;
		g->have++;
	}
	g->held = now;
	return try_stream(s, i, now);
}

/* MODEL_LINKS_FIFO: the time message i's header spends on each link it
 * takes: hop, or for a multicast, whose links are the union of its
 * copies' routes, its longest route's h*hop spread over them all, so that
 * uncontended it arrives when the other model's header would. */
static double fifo_hop(const struct sim *s, const struct msg *g)
{
	return g->nr == (uint32_t)g->hops ? s->c->hop
	                                  : s->c->hop * g->hops / g->nr;
}

/* MODEL_LINKS_FIFO: message i's header asks for its next link: takes it
 * and crosses it, or waits for it holding the ones it has; with every
 * link taken it is at its destinations.  A link of capacity c (cables)
 * holds c headers at once. */
static int fifo_advance(struct sim *s, uint32_t i, double now)
{
	struct msg *g = &s->m[i];
	if (g->took == g->nr)
		return take_ejection(s, i, now);
	struct link *l = &s->link[s->ent[g->r0 + g->took].link];
	if (l->held >= l->cap) {
		g->blocked = now;
		g->shared = true;
		enqueue(s, &l->q, i);
		return 0;
	}
	l->held++;
	l->owner = i;
	g->took++;
	return heap_push(&s->h, now + fifo_hop(s, g), EV_HOP, i, 0);
}

/* Message i has an injection port: its header sets off. */
static int launch(struct sim *s, uint32_t i, double now)
{
	if (s->fifo)
		return fifo_advance(s, i, now);
	return heap_push(&s->h, now + s->m[i].hops * s->c->hop, EV_HEADER, i,
	                 0);
}

/* MODEL_LINKS_FIFO: message i's tail is in; each of its links goes to
 * the oldest header waiting for it, which crosses it. */
static int fifo_release(struct sim *s, uint32_t i, double now)
{
	const struct msg *g = &s->m[i];
	for (uint32_t k = 0; k < g->nr; k++) {
		struct link *l = &s->link[s->ent[g->r0 + k].link];
		uint32_t j = dequeue(s, &l->q);
		l->held--;
		if (j == NONE) {
			if (!l->held)
				l->owner = NONE;
			continue;
		}
		l->held++;
		l->owner = j;
		struct msg *w = &s->m[j];
		s->out->stall_us += now - w->blocked;
		w->took++;
		int rc = heap_push(&s->h, now + fifo_hop(s, w), EV_HOP, j, 0);
		if (rc)
			return rc;
	}
	return 0;
}

/* Message i holds its rank's injection port: a message between nodes
 * also takes a network port of its node, or waits in order for one;
 * then its header sets off. */
static int inject(struct sim *s, uint32_t i, double now)
{
	struct msg *g = &s->m[i];
	if (g->net) {
		struct port *q =
		        &s->node[ir_node_of(&s->p->machine, g->src)].inj;
		if (!q->free) {
			enqueue(s, &q->q, i);
			return 0;
		}
		q->free--;
	}
	return launch(s, i, now);
}

/* The start-up of message i is over: it asks for an injection port, and
 * its sender's processor turns to the next send. */
static int on_startup(struct sim *s, uint32_t i, double now)
{
	struct msg *g = &s->m[i];
	struct port *q = &s->rank[g->src].inj;
	int rc = 0;
	s->rank[g->src].cpu = false;
	s->rank[g->src].next++;
	g->asked = now;
	if (q->free) {
		q->free--;
		rc = inject(s, i, now);
	} else {
		enqueue(s, &q->q, i);
	}
	return rc ? rc : try_send(s, g->src, now);
}

/* Rank d's receive processing of a transfer ends at time at. */
static void deliver(struct sim *s, int32_t d, double at)
{
	if (isnan(s->out->delivered[d]))
		s->out->receivers++;
	if (!(s->out->delivered[d] >= at))
		s->out->delivered[d] = at;
	s->recvs++;
	if (at > s->last)
		s->last = at;
}

/* An ejection port is free: it passes to the oldest message waiting for
 * it, which takes the rest of its ports, or becomes free. */
static int pass_ejection(struct sim *s, struct port *q, double now)
{
	uint32_t j = dequeue(s, &q->q);
	if (j == NONE) {
		q->free++;
		return 0;
	}
	s->m[j].have++; /* the port passes to j */
	return take_ejection(s, j, now);
}

/* The last byte of message i is in: free its links and ports, hand the
 * ports to the oldest waiters, and queue its receive processing. */
static int on_stream(struct sim *s, uint32_t i, double now)
{
	struct msg *g = &s->m[i];
	int rc;
	if (s->fifo) {
		g->ver++;
		g->streaming = false;
		if ((rc = fifo_release(s, i, now)) != 0)
			return rc;
	} else {
		s->out->stall_us +=
		        fmax(0, now - g->started - g->bytes * g->tpb0);
		for (uint32_t k = 0; k < g->nr; k++) {
			uint32_t e = g->r0 + k, l = s->ent[e].link;
			if (s->ent[e].prev != NONE)
				s->ent[s->ent[e].prev].next = s->ent[e].next;
			else
				s->link[l].head = s->ent[e].next;
			if (s->ent[e].next != NONE)
				s->ent[s->ent[e].next].prev = s->ent[e].prev;
			s->link[l].count--;
		}
		g->tpb = 0;
		g->ver++; /* no pending stream event is valid any more */
		g->streaming = false;
		if ((rc = refresh_around(s, i, now)) != 0)
			return rc;
	}
	/* half_duplex: the messages its ranks stopped go first, before the
	 * ports it frees bring new ones */
	if (s->half_duplex) {
		s->rank[g->src].nout--;
		for (uint32_t k = 0; k < g->nx; k++)
			s->rank[s->mdst[g->x0 + k]].nin--;
		if ((rc = duplex_retry(s, g->src, now)) != 0)
			return rc;
		for (uint32_t k = 0; k < g->nx; k++)
			if ((rc = duplex_retry(s, s->mdst[g->x0 + k], now)) !=
			    0)
				return rc;
	}
	/* node ports first: their waiters hold their ranks' ports already */
	uint32_t j;
	if (g->net) {
		struct port *q =
		        &s->node[ir_node_of(&s->p->machine, g->src)].inj;
		j = dequeue(s, &q->q);
		if (j == NONE)
			q->free++;
		else if ((rc = launch(s, j, now)) != 0)
			return rc;
	}
	j = dequeue(s, &s->rank[g->src].inj.q);
	if (j == NONE)
		s->rank[g->src].inj.free++;
	else if ((rc = inject(s, j, now)) != 0)
		return rc;
	if (g->net && (rc = pass_ejection(s, ej_port(s, g, g->nx), now)) != 0)
		return rc;
	for (uint32_t k = 0; k < g->nx; k++)
		if ((rc = pass_ejection(s, ej_port(s, g, k), now)) != 0)
			return rc;
	for (uint32_t k = 0; k < g->nx; k++) {
		uint32_t t = s->xf[g->x0 + k];
		const ir_transfer *x = &s->p->transfers[t];
		int32_t d = x->dst;
		double at = fmax(now, s->rank[d].rx_free) +
		            (g->shm ? 0 : s->c->gamma);
		if ((x->flags & IR_XF_REDUCE) && ir_cost_has_combine(s->c))
			at += (double)x->bytes * s->c->combine;
		s->rank[d].rx_free = at;
		deliver(s, d, at);
		/* only a delivery some send or a barrier waits for needs
		 * its event */
		if ((s->barriers || s->dep0[t + 1] > s->dep0[t]) &&
		    (rc = heap_push(&s->h, at, EV_RECV, t, 0)) != 0)
			return rc;
	}
	return 0;
}

/* Transfer t is delivered: its blocks are at the destination, and the
 * sends waiting for them may become ready. */
static int on_recv(struct sim *s, uint32_t t, double now)
{
	int rc;
	for (uint32_t k = s->dep0[t]; k < s->dep0[t + 1]; k++) {
		uint32_t i = s->dep[k];
		if (--s->m[i].need == 0 &&
		    (rc = try_send(s, s->m[i].src, now)) != 0)
			return rc;
	}
	if (!s->barriers || --s->left[s->xphase[t]] || s->xphase[t] != s->gate)
		return 0;
	/* the phase is complete: open the next one that has transfers */
	const ir_plan *p = s->p;
	while (s->gate < p->nphases && !s->left[s->gate])
		s->gate++;
	if (s->gate == p->nphases)
		return 0;
	for (uint32_t i = s->pm0[s->gate]; i < s->pm0[s->gate + 1]; i++)
		if ((rc = try_send(s, s->m[i].src, now)) != 0)
			return rc;
	return 0;
}

static int run(struct sim *s, char *err, size_t len)
{
	int rc;
	for (int32_t r = 0; r < s->n; r++)
		if ((rc = try_send(s, r, 0)) != 0)
			return rc;
	while (s->h.n) {
		struct event ev = heap_pop(&s->h);
		s->out->events++;
		if (s->progress && (s->out->events & 4095) == 0)
			s->progress(s->progress_arg,
			            (double)s->recvs / s->p->ntransfers);
		if (ev.at > s->last)
			s->last = ev.at;
		switch (ev.kind) {
		case EV_STARTUP:
			rc = on_startup(s, ev.id, ev.at);
			break;
		case EV_HEADER:
			rc = take_ejection(s, ev.id, ev.at);
			break;
		case EV_STREAM:
			rc = ev.ver == s->m[ev.id].ver
			             ? on_stream(s, ev.id, ev.at)
			             : 0;
			break;
		case EV_HOP:
			rc = fifo_advance(s, ev.id, ev.at);
			break;
		default:
			rc = on_recv(s, ev.id, ev.at);
		}
		if (rc)
			return rc;
	}
	if (s->recvs != s->p->ntransfers) {
		for (uint32_t i = 0; s->fifo && i < s->nmsg; i++) {
			const struct msg *g = &s->m[i];
			if (g->took == g->nr || g->streaming || g->took == 0)
				continue;
			uint32_t l = s->ent[g->r0 + g->took].link;
			snprintf(err, len,
			         "the run deadlocked: without virtual channels "
			         "(links: fifo) the header of transfer %u (rank "
			         "%d) holds %u link(s) and waits for one held by "
			         "transfer %u, in a cycle of waits",
			         s->xf[g->x0], (int)g->src, g->took,
			         s->xf[s->m[s->link[l].owner].x0]);
			return CCP_EINVAL;
		}
		for (int32_t r = 0; r < s->n; r++)
			if (s->rank[r].next != s->rank[r].end) {
				uint32_t i = s->sq[s->rank[r].next];
				snprintf(err, len,
				         "the run stalled: rank %d's send of "
				         "transfer %u never became ready",
				         (int)r, s->xf[s->m[i].x0]);
				return CCP_EINVAL;
			}
		snprintf(err, len,
		         "the run stalled with %llu of %u "
		         "transfers delivered",
		         (unsigned long long)s->recvs, s->p->ntransfers);
		return CCP_EINVAL;
	}
	s->out->total_us = s->last;
	return 0;
}

int model_simulate(const ir_plan *p, const struct model_sim_opts *o,
                   struct model_sim *out, char *err, size_t errlen)
{
	int rc;
	struct sim s;
	ir_plan tmp;
	p = model_defaults(p, &tmp);
	const ir_cost *c = &p->machine.cost;
	memset(out, 0, sizeof *out);
	memset(&s, 0, sizeof s);
	if (errlen)
		err[0] = '\0';
	const struct model_param want[] = {
	        {c->alpha, "alpha", "start-up per message"},
	        {c->beta, "beta", "time per byte on a link"},
	        {c->hop, "hop", "header time per hop"},
	        {c->gamma, "gamma", "receive overhead"}};
	if ((rc = model_need("the simulator", want, 4, err, errlen)) ||
	    (rc = check_plan(p, err, errlen)))
		return rc;
	s.p = p;
	s.c = c;
	s.barriers = o && o->barriers;
	s.half_duplex = o && o->half_duplex;
	s.fifo = o && o->links == MODEL_LINKS_FIFO;
	s.progress = o ? o->progress : NULL;
	s.progress_arg = o ? o->progress_arg : NULL;
	s.n = p->machine.nranks;
	s.nodes = ir_machine_has_nodes(&p->machine);
	s.shm = s.nodes && ir_cost_has_shm(c);
	s.out = out;
	out->nranks = s.n;
	out->delivered =
	        malloc((size_t)(s.n > 0 ? s.n : 1) * sizeof *out->delivered);
	if (!out->delivered) {
		rc = CCP_ENOMEM;
		goto out;
	}
	for (int32_t r = 0; r < s.n; r++)
		out->delivered[r] = NAN;
	if ((rc = build_messages(&s)) != 0 ||
	    (rc = build_routes(&s, err, errlen)) != 0 ||
	    (rc = build_deps(&s, err, errlen)) != 0 ||
	    (rc = build_ranks(&s)) != 0 ||
	    (s.half_duplex && (rc = build_mates(&s)) != 0) ||
	    (rc = run(&s, err, errlen)) != 0)
		goto out;
	out->messages = s.nmsg;
	double sum = 0;
	for (int32_t r = 0; r < s.n; r++) {
		double d = out->delivered[r];
		if (isnan(d))
			continue;
		sum += d;
		if (d > out->max_us)
			out->max_us = d;
	}
	out->avg_us = out->receivers ? sum / out->receivers : 0;
	for (uint32_t i = 0; i < s.nmsg; i++)
		out->contended += s.m[i].shared;
out:
	sim_free(&s);
	if (rc) {
		if (rc == CCP_ENOMEM && errlen && !err[0])
			snprintf(err, errlen, "out of memory");
		model_sim_fini(out);
	}
	return rc;
}

void model_sim_fini(struct model_sim *out)
{
	free(out->delivered);
	memset(out, 0, sizeof *out);
}
