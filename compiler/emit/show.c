/*
 * show.c - what both pictures of a plan (show_svg.c, show_text.c) are
 * made of: where each rank sits on the page, the hops of each transfer
 * of a phase with the load of the link under each hop, the ranks that
 * hold data after a phase, and the shape of a link between two ranks.
 *
 * Everything is derived from the machine model (ir_coords, ir_route,
 * ir_link_ends), never from a second copy of the routing rules, so a
 * picture shows the routes the verifier checked.  Link loads are counted
 * the way the verifier counts them: one per transfer, except that the
 * copies of one hardware multicast share a link once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "show.h"

bool show_tty_color(void)
{
	const char *nc = getenv("NO_COLOR");
	return isatty(STDOUT_FILENO) && !(nc && nc[0]);
}

/* ---- layout ----------------------------------------------------------- */

#define SHOW_PI 3.14159265358979323846

/* Gap between z-planes of a 3D grid, in units beyond the one step. */
#define PLANE_GAP 1.5
/* Gap between the two levels of an HPAM machine. */
#define LEVEL_GAP 1.0

/* Hypercube: the page position of one axis from the bits it owns
 * (bit 0, 2, 4, ... for x; 1, 3, 5, ... for y).  Step k of an axis is
 * 2*step(k-1) + 1: 1, 3, 7, 15, so the 2x2 blocks of the low bits stand
 * apart from each other and blocks of blocks further still. */
static double cube_axis(int32_t rank, int first, int n)
{
	double pos = 0, step = 1;
	for (int b = first; b < n; b += 2, step = 2 * step + 1)
		if ((rank >> b) & 1)
			pos += step;
	return pos;
}

int show_layout_make(const ir_machine *m, struct show_layout *l, char *err,
                     size_t errlen)
{
	memset(l, 0, sizeof *l);
	int32_t n = m->nranks;
	if (n < 1 || n > SHOW_MAX_RANKS) {
		snprintf(err, errlen,
		         "%d ranks: pictures are drawn for machines of up to "
		         "%d ranks",
		         (int)n, SHOW_MAX_RANKS);
		return CCP_ENOTAPPLY;
	}
	l->n = n;
	l->x = malloc((size_t)n * sizeof *l->x);
	l->y = malloc((size_t)n * sizeof *l->y);
	if (!l->x || !l->y) {
		show_layout_fini(l);
		snprintf(err, errlen, "out of memory");
		return CCP_ENOMEM;
	}
	int c[IR_MAX_CUBE_DIM];
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		if (m->ndims == 3)
			l->plane = m->dims[0] - 1 + 1 + PLANE_GAP;
		for (int32_t r = 0; r < n; r++) {
			ir_coords(m, r, c);
			l->x[r] = c[0] + c[2] * l->plane;
			l->y[r] = c[1];
		}
		l->w = m->dims[0] - 1 + (m->dims[2] - 1) * l->plane;
		l->h = m->dims[1] - 1;
		break;
	case IR_HYPERCUBE:
		for (int32_t r = 0; r < n; r++) {
			l->x[r] = cube_axis(r, 0, m->ndims);
			l->y[r] = cube_axis(r, 1, m->ndims);
		}
		l->w = cube_axis(n - 1, 0, m->ndims);
		l->h = cube_axis(n - 1, 1, m->ndims);
		break;
	case IR_HPAM: {
		int r1 = m->levels[0][0], c1 = m->levels[0][1];
		int c2 = m->levels[1][1], r2 = m->levels[1][0];
		int f = c2 / c1;
		/* a level-1 column stands over the f level-2 columns its
		 * down links reach */
		for (int32_t r = 0; r < n; r++) {
			ir_coords(m, r, c);
			if (c[2] == 0) {
				l->x[r] = c[0] * f + (f - 1) / 2.0;
				l->y[r] = c[1];
			} else {
				l->x[r] = c[0];
				l->y[r] = r1 + LEVEL_GAP + c[1];
			}
		}
		l->w = c2 - 1;
		l->h = r1 + LEVEL_GAP + r2 - 1;
		break;
	}
	case IR_SWITCH: {
		/* a ring one unit between neighbours, rank 0 on top,
		 * clockwise */
		double rad = n / (2 * SHOW_PI);
		if (rad < 1.5)
			rad = 1.5;
		for (int32_t r = 0; r < n; r++) {
			double a = 2 * SHOW_PI * r / n;
			l->x[r] = rad + rad * sin(a);
			l->y[r] = rad - rad * cos(a);
		}
		l->w = l->h = 2 * rad;
		l->cx = l->cy = rad;
		break;
	}
	}
	return 0;
}

void show_layout_fini(struct show_layout *l)
{
	free(l->x);
	free(l->y);
	memset(l, 0, sizeof *l);
}

/* ---- a phase's hops and link loads ----------------------------------- */

/* One use of a link: by a transfer (key < 0) or by a multicast group
 * (key = its source), so a group's copies count once. */
struct use {
	uint64_t link;
	int64_t key;
};

static int cmp_use(const void *a, const void *b)
{
	const struct use *x = a, *y = b;
	if (x->link != y->link)
		return x->link < y->link ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

/* The index of link id in s->links (sorted by id). */
static size_t find_link(const struct show_phase *s, uint64_t id)
{
	size_t lo = 0, hi = s->nlinks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->links[mid].link < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int show_phase_make(const ir_plan *p, uint32_t ph, struct show_phase *s,
                    char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	if (ph >= p->nphases) {
		if (p->nphases)
			snprintf(err, errlen,
			         "phase %u: the plan has %u phase%s, 0..%u", ph,
			         p->nphases, p->nphases == 1 ? "" : "s",
			         p->nphases - 1);
		else
			snprintf(err, errlen,
			         "phase %u: the plan has no phases", ph);
		return CCP_ERANGE;
	}
	const ir_machine *m = &p->machine;
	const ir_phase *f = &p->phases[ph];
	s->phase = ph;
	s->ntransfers = f->ntransfers;
	uint64_t *route = malloc(((size_t)ir_max_hops(m) + 1) * sizeof *route);
	size_t cap = 0;
	struct use *use = NULL;
	int rc = CCP_ENOMEM;
	if (!route)
		goto fail;
	for (uint32_t t = f->transfer; t < f->transfer + f->ntransfers; t++) {
		const ir_transfer *x = &p->transfers[t];
		int h = ir_route(m, x->src, x->dst, route);
		if (h < 0) {
			snprintf(err, errlen,
			         "phase %u: no route from rank %d to rank %d",
			         ph, (int)x->src, (int)x->dst);
			rc = CCP_EINVAL;
			goto fail;
		}
		if (s->nhops + (size_t)h > cap) {
			size_t nc = cap ? cap * 2 : 256;
			while (nc < s->nhops + (size_t)h)
				nc *= 2;
			struct show_hop *a = realloc(s->hops, nc * sizeof *a);
			if (!a)
				goto fail;
			s->hops = a;
			struct use *u = realloc(use, nc * sizeof *u);
			if (!u)
				goto fail;
			use = u;
			cap = nc;
		}
		for (int j = 0; j < h; j++) {
			struct show_hop *o = &s->hops[s->nhops];
			o->transfer = t;
			o->link = route[j];
			o->last = j == h - 1;
			if (ir_link_ends(m, route[j], &o->from, &o->to)) {
				snprintf(err, errlen,
				         "phase %u: the route from rank %d to "
				         "%d uses link %llu, which does not "
				         "exist",
				         ph, (int)x->src, (int)x->dst,
				         (unsigned long long)route[j]);
				rc = CCP_EINVAL;
				goto fail;
			}
			use[s->nhops].link = route[j];
			use[s->nhops].key = (x->flags & IR_XF_MCAST)
			                            ? (int64_t)x->src
			                            : -(int64_t)t - 1;
			s->nhops++;
		}
	}
	if (s->nhops)
		qsort(use, s->nhops, sizeof *use, cmp_use);
	size_t distinct = 0;
	for (size_t k = 0; k < s->nhops; k++)
		distinct += k == 0 || use[k].link != use[k - 1].link;
	s->links = malloc((distinct ? distinct : 1) * sizeof *s->links);
	if (!s->links)
		goto fail;
	for (size_t k = 0; k < s->nhops; k++) {
		if (k == 0 || use[k].link != use[k - 1].link) {
			struct show_link *o = &s->links[s->nlinks++];
			o->link = use[k].link;
			o->load = 0;
			ir_link_ends(m, o->link, &o->from, &o->to);
		}
		if (k == 0 || use[k].link != use[k - 1].link ||
		    use[k].key != use[k - 1].key)
			s->links[s->nlinks - 1].load++;
	}
	for (size_t k = 0; k < s->nlinks; k++) {
		if (s->links[k].load > s->max_load)
			s->max_load = s->links[k].load;
		s->hot += s->links[k].load > 1;
	}
	for (size_t k = 0; k < s->nhops; k++)
		s->hops[k].load = s->links[find_link(s, s->hops[k].link)].load;
	free(route);
	free(use);
	return 0;
fail:
	if (rc == CCP_ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(route);
	free(use);
	show_phase_fini(s);
	return rc;
}

void show_phase_fini(struct show_phase *s)
{
	free(s->hops);
	free(s->links);
	memset(s, 0, sizeof *s);
}

/* ---- who holds data --------------------------------------------------- */

void show_held_start(const ir_plan *p, bool *held)
{
	int32_t n = p->machine.nranks;
	memset(held, 0, (size_t)n * sizeof *held);
	switch (p->comm.coll) {
	case IR_BCAST:
	case IR_SCATTER:
	case IR_GATHER:
	case IR_REDUCE:
		if (p->comm.root >= 0 && p->comm.root < n)
			held[p->comm.root] = true;
		break;
	default:
		break;
	}
}

void show_held_apply(const ir_plan *p, uint32_t ph, bool *held)
{
	if (ph >= p->nphases)
		return;
	const ir_phase *f = &p->phases[ph];
	for (uint32_t t = f->transfer; t < f->transfer + f->ntransfers; t++) {
		int32_t d = p->transfers[t].dst;
		if (d >= 0 && d < p->machine.nranks)
			held[d] = true;
	}
}

/* ---- the shape of a link ---------------------------------------------- */

/* Whether from -> to is a torus wraparound link in x or y: the ends are
 * more than one step apart in the dimension they differ in.  (Rings of
 * two are drawn as plain neighbours.)  *dim gets that dimension and *dir
 * the direction of travel on the page, +1 or -1. */
static bool torus_wrap(const ir_machine *m, int32_t from, int32_t to, int *dim,
                       int *dir)
{
	if (m->topo != IR_TORUS)
		return false;
	int a[IR_MAX_CUBE_DIM], b[IR_MAX_CUBE_DIM];
	ir_coords(m, from, a);
	ir_coords(m, to, b);
	for (int d = 0; d < 2 && d < m->ndims; d++) {
		int delta = b[d] - a[d];
		if (delta > 1 || delta < -1) {
			*dim = d;
			*dir = delta > 0 ? -1 : 1;
			return true;
		}
	}
	return false;
}

/* Whether from -> to runs between z-planes of a 3D grid. */
static bool z_link(const ir_machine *m, int32_t from, int32_t to)
{
	if ((m->topo != IR_MESH && m->topo != IR_TORUS) || m->ndims < 3)
		return false;
	int a[IR_MAX_CUBE_DIM], b[IR_MAX_CUBE_DIM];
	ir_coords(m, from, a);
	ir_coords(m, to, b);
	return a[2] != b[2];
}

/* Move (x,y) by d towards (tx,ty). */
static void toward(double *x, double *y, double tx, double ty, double d)
{
	double dx = tx - *x, dy = ty - *y, len = hypot(dx, dy);
	if (len > 1e-9) {
		*x += dx / len * d;
		*y += dy / len * d;
	}
}

void show_link_geom(const ir_machine *m, const struct show_layout *l,
                    int32_t from, int32_t to, double off, double trim,
                    struct show_geom *g)
{
	memset(g, 0, sizeof *g);
	double ax = l->x[from], ay = l->y[from];
	double bx = l->x[to], by = l->y[to];
	int dim = 0, dir = 1;
	if (torus_wrap(m, from, to, &dim, &dir)) {
		/* out over one edge, in over the opposite one */
		double ux = dim == 0 ? dir : 0, uy = dim == 1 ? dir : 0;
		double rx = -uy * off, ry = ux * off; /* right of travel */
		g->shape = SHOW_WRAP;
		g->x0 = ax + rx;
		g->y0 = ay + ry;
		g->x1 = ax + ux * 0.6 + rx;
		g->y1 = ay + uy * 0.6 + ry;
		g->x2 = bx - ux * 0.6 + rx;
		g->y2 = by - uy * 0.6 + ry;
		g->x3 = bx - ux * trim + rx;
		g->y3 = by - uy * trim + ry;
		g->lx = ax + ux * 0.45 - uy * (off + 0.22);
		g->ly = ay + uy * 0.45 + ux * (off + 0.22);
		return;
	}
	double dx = bx - ax, dy = by - ay, len = hypot(dx, dy);
	if (len < 1e-9)
		len = 1;
	double ux = dx / len, uy = dy / len;
	double rx = -uy, ry = ux; /* right of travel, y down */
	bool curve = false;
	double qx = 0, qy = 0;
	if (m->topo == IR_SWITCH) {
		curve = true; /* through the crossbar's side */
		qx = (l->cx + (ax + bx) / 2) / 2;
		qy = (l->cy + (ay + by) / 2) / 2;
	} else if ((m->topo == IR_HYPERCUBE && len > 1.01) ||
	           z_link(m, from, to)) {
		/* bow every such link to one side of its lower-to-higher
		 * rank direction, so both directions share the bow */
		int32_t lo = from < to ? from : to, hi = from < to ? to : from;
		double cx = l->x[hi] - l->x[lo], cy = l->y[hi] - l->y[lo];
		double bow = 0.2 * len < 2.5 ? 0.2 * len : 2.5;
		curve = true;
		qx = (ax + bx) / 2 + cy / len * bow;
		qy = (ay + by) / 2 - cx / len * bow;
	}
	ax += rx * off;
	ay += ry * off;
	bx += rx * off;
	by += ry * off;
	if (curve) {
		qx += rx * off;
		qy += ry * off;
		toward(&bx, &by, qx, qy, trim);
		g->shape = SHOW_CURVE;
		g->qx = qx;
		g->qy = qy;
		g->lx = 0.25 * ax + 0.5 * qx + 0.25 * bx + rx * 0.22;
		g->ly = 0.25 * ay + 0.5 * qy + 0.25 * by + ry * 0.22;
	} else {
		bx -= ux * trim;
		by -= uy * trim;
		g->shape = SHOW_LINE;
		g->lx = (ax + bx) / 2 + rx * 0.22;
		g->ly = (ay + by) / 2 + ry * 0.22;
	}
	g->x0 = ax;
	g->y0 = ay;
	g->x1 = bx;
	g->y1 = by;
}

int show_check_phase(const ir_plan *p, int phase, char *err, size_t errlen)
{
	if (phase >= -1 && (phase < 0 || (uint32_t)phase < p->nphases))
		return 0;
	if (p->nphases)
		snprintf(err, errlen, "phase %d: the plan has %u phase%s, 0..%u",
		         phase, p->nphases, p->nphases == 1 ? "" : "s",
		         p->nphases - 1);
	else
		snprintf(err, errlen, "phase %d: the plan has no phases", phase);
	return CCP_ERANGE;
}
