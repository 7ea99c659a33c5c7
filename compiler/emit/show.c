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

bool show_locale_utf8(void)
{
	/* the first of these that is set decides, as setlocale would, without
	 * changing the process's locale under the library */
	const char *names[] = {"LC_ALL", "LC_CTYPE", "LANG"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const char *v = getenv(names[i]);
		if (!v || !*v)
			continue;
		return strstr(v, "UTF-8") || strstr(v, "utf-8") ||
		       strstr(v, "UTF8") || strstr(v, "utf8");
	}
	return false; /* the C locale */
}

bool show_tty_color(void)
{
	const char *nc = getenv("NO_COLOR");
	return isatty(STDOUT_FILENO) && !(nc && nc[0]);
}

/* ---- layout ----------------------------------------------------------- */

#define SHOW_PI 3.14159265358979323846

/* Gap between z-planes of a 3D grid, in units beyond the one step. */
#define PLANE_GAP 1.5
/* Gap between rows of slices of an n-D grid (room for their labels). */
#define SLICE_GAP 1.5
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

/* n-D grid: each drawn slice is an (x, y) grid; the slices stand in
 * rows, z across when every slice is drawn and z has at most 8
 * values (as a 3D machine's planes), else in a grid about as tall as
 * it is wide; nodes of slices not drawn get NaN. */
static void slices_layout(const ir_machine *m, const struct show_slices *sl,
                          struct show_layout *l)
{
	int X = m->dims[0], Y = m->dims[1];
	int32_t n = sl->n;
	l->plane = X - 1 + 1 + PLANE_GAP;
	l->row = Y - 1 + 1 + SLICE_GAP;
	int32_t cols;
	if (!sl->only_busy && m->dims[2] <= 8)
		cols = m->dims[2];
	else
		cols = (int32_t)ceil(sqrt(n * l->row / l->plane));
	if (cols > n)
		cols = n;
	if (cols < 1)
		cols = 1;
	l->cols = cols;
	int c[IR_MAX_CUBE_DIM];
	for (int32_t v = 0; v < l->n; v++) {
		int32_t k = sl->slot[v / sl->per];
		if (k < 0) {
			l->x[v] = l->y[v] = NAN;
			continue;
		}
		ir_coords(m, ir_node_rank(m, v, 0), c);
		l->x[v] = c[0] + (k % cols) * l->plane;
		l->y[v] = c[1] + (k / cols) * l->row;
	}
	int32_t rows = (n + cols - 1) / cols;
	l->w = n ? (cols - 1) * l->plane + X - 1 : 0;
	l->h = n ? (rows - 1) * l->row + Y - 1 : 0;
}

int show_layout_make(const ir_machine *m, const struct show_slices *sl,
                     struct show_layout *l, char *err, size_t errlen)
{
	memset(l, 0, sizeof *l);
	int32_t n = m->nnodes;
	int32_t most = sl ? SHOW_MAX_ND_NODES : SHOW_MAX_RANKS;
	if (n < 1 || n > most) {
		if (ir_machine_has_nodes(m))
			snprintf(err, errlen,
			         "%d nodes: pictures are drawn for machines of "
			         "up to %d nodes",
			         (int)n, (int)most);
		else
			snprintf(err, errlen,
			         "%d ranks: pictures are drawn for machines of "
			         "up to %d ranks",
			         (int)n, (int)most);
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
	if (sl) {
		slices_layout(m, sl, l);
		return 0;
	}
	int c[IR_MAX_CUBE_DIM];
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		if (m->ndims == 3)
			l->plane = m->dims[0] - 1 + 1 + PLANE_GAP;
		for (int32_t r = 0; r < n; r++) {
			ir_coords(m, ir_node_rank(m, r, 0), c);
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
	case IR_FAT_TREE: /* show_check_drawable refused them */
	case IR_GRAPH:
	case IR_DRAGONFLY:
		show_layout_fini(l);
		show_check_drawable(m, err, errlen);
		return CCP_ENOTAPPLY;
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

/* Per node, the ranks sending and receiving in phase ph and the
 * transfers inside the node; CCP_ENOMEM. */
static int node_counts(const ir_plan *p, uint32_t ph, struct show_phase *s)
{
	const ir_machine *m = &p->machine;
	const ir_phase *f = &p->phases[ph];
	size_t nn = (size_t)m->nnodes;
	s->node_send = calloc(nn, sizeof *s->node_send);
	s->node_recv = calloc(nn, sizeof *s->node_recv);
	s->node_shm = calloc(nn, sizeof *s->node_shm);
	uint8_t *mark = calloc((size_t)m->nranks, 1); /* 1 sends, 2 gets */
	if (!s->node_send || !s->node_recv || !s->node_shm || !mark) {
		free(mark);
		return CCP_ENOMEM;
	}
	for (uint32_t t = f->transfer; t < f->transfer + f->ntransfers; t++) {
		int32_t a = p->transfers[t].src, b = p->transfers[t].dst;
		if (a < 0 || a >= m->nranks || b < 0 || b >= m->nranks)
			continue;
		int32_t na = ir_node_of(m, a), nb = ir_node_of(m, b);
		if (!(mark[a] & 1)) {
			mark[a] |= 1;
			s->node_send[na]++;
		}
		if (!(mark[b] & 2)) {
			mark[b] |= 2;
			s->node_recv[nb]++;
		}
		if (na == nb) {
			s->node_shm[na]++;
			s->shm++;
		}
	}
	free(mark);
	return 0;
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
	uint64_t *route = malloc(((size_t)ir_route_max(m) + 1) * sizeof *route);
	size_t cap = 0;
	struct use *use = NULL;
	int rc = CCP_ENOMEM;
	if (!route)
		goto fail;
	for (uint32_t t = f->transfer; t < f->transfer + f->ntransfers; t++) {
		const ir_transfer *x = &p->transfers[t];
		int h = ir_route_xfer(m, x, route);
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
	if (ir_machine_has_nodes(m) && node_counts(p, ph, s))
		goto fail;
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
	free(s->node_send);
	free(s->node_recv);
	free(s->node_shm);
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

int show_node_held(const ir_machine *m, const bool *held, int32_t node)
{
	int32_t k = 0, rpn = m->ranks_per_node > 1 ? m->ranks_per_node : 1;
	for (int32_t i = 0; i < rpn; i++)
		k += held[ir_node_rank(m, node, i)];
	return k == 0 ? 0 : k < rpn ? 1 : 2;
}

/* ---- the slices of an n-D grid ----------------------------------------- */

bool show_is_sliced(const ir_machine *m)
{
	return (m->topo == IR_MESH || m->topo == IR_TORUS) && m->ndims >= 4;
}

void show_slice_label(const ir_machine *m, int32_t slice, char *buf,
                      size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int d = 2; d < m->ndims && o < len; d++) {
		int n = snprintf(buf + o, len - o, "%s%s=%d", d > 2 ? " " : "",
		                 ir_dim_names[d], (int)(slice % m->dims[d]));
		if (n < 0)
			break;
		o += (size_t)n;
		slice /= m->dims[d];
	}
}

int show_check_nd(const ir_machine *m, char *err, size_t errlen)
{
	if (m->nnodes <= SHOW_MAX_ND_NODES)
		return 0;
	snprintf(err, errlen,
	         "%d nodes: pictures of machines of 4 or more dimensions are "
	         "drawn for up to %d nodes",
	         (int)m->nnodes, SHOW_MAX_ND_NODES);
	return CCP_ENOTAPPLY;
}

void show_slices_fini(struct show_slices *s)
{
	free(s->which);
	free(s->slot);
	free(s->is_busy);
	free(s->sends);
	free(s->recvs);
	free(s->hops);
	memset(s, 0, sizeof *s);
}

int show_slices_pick(const ir_plan *p, int phase, int32_t max_slices,
                     int64_t max_nodes, struct show_slices *s, char *err,
                     size_t errlen)
{
	const ir_machine *m = &p->machine;
	memset(s, 0, sizeof *s);
	int rc = show_check_nd(m, err, errlen);
	if (rc)
		return rc;
	s->per = m->dims[0] * m->dims[1];
	s->total = m->nnodes / s->per;
	size_t t = (size_t)s->total;
	s->which = malloc(t * sizeof *s->which);
	s->slot = malloc(t * sizeof *s->slot);
	s->is_busy = calloc(t, sizeof *s->is_busy);
	s->sends = calloc(t, sizeof *s->sends);
	s->recvs = calloc(t, sizeof *s->recvs);
	s->hops = calloc(t, sizeof *s->hops);
	uint64_t *route = malloc(((size_t)ir_route_max(m) + 1) * sizeof *route);
	rc = CCP_ENOMEM;
	if (!s->which || !s->slot || !s->is_busy || !s->sends || !s->recvs ||
	    !s->hops || !route) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	uint32_t first = phase < 0 ? 0 : (uint32_t)phase;
	uint32_t last = phase < 0 ? p->nphases : first + 1;
	for (uint32_t k = first; k < last && k < p->nphases; k++) {
		const ir_phase *f = &p->phases[k];
		for (uint32_t i = f->transfer; i < f->transfer + f->ntransfers;
		     i++) {
			const ir_transfer *x = &p->transfers[i];
			int h = ir_route_xfer(m, x, route);
			if (h < 0) {
				snprintf(err, errlen,
				         "phase %u: no route from rank %d to "
				         "rank %d",
				         k, (int)x->src, (int)x->dst);
				rc = CCP_EINVAL;
				goto fail;
			}
			int32_t a = ir_node_of(m, x->src) / s->per;
			int32_t b = ir_node_of(m, x->dst) / s->per;
			s->sends[a]++;
			s->recvs[b]++;
			s->is_busy[a] = s->is_busy[b] = true;
			for (int j = 0; j < h; j++) {
				int32_t u, v;
				if (ir_link_ends(m, route[j], &u, &v))
					continue; /* show_phase_make says so */
				s->hops[u / s->per]++;
				s->is_busy[u / s->per] = true;
				s->is_busy[v / s->per] = true;
			}
		}
	}
	if ((ir_coll_kind(p->comm.coll) & IR_CK_ROOTED) && p->comm.root >= 0 &&
	    p->comm.root < m->nranks)
		s->is_busy[ir_node_of(m, p->comm.root) / s->per] = true;
	for (int32_t k = 0; k < s->total; k++)
		s->busy += s->is_busy[k];
	if (s->total <= max_slices && (int64_t)s->total * s->per <= max_nodes)
		; /* every slice */
	else if (s->busy <= max_slices &&
	         (int64_t)s->busy * s->per <= max_nodes)
		s->only_busy = true;
	else
		s->summary = true;
	for (int32_t k = 0; k < s->total; k++) {
		s->slot[k] = -1;
		if (s->summary || (s->only_busy && !s->is_busy[k]))
			continue;
		s->slot[k] = s->n;
		s->which[s->n++] = k;
	}
	free(route);
	return 0;
fail:
	free(route);
	show_slices_fini(s);
	return rc;
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
	ir_coords(m, ir_node_rank(m, from, 0), a);
	ir_coords(m, ir_node_rank(m, to, 0), b);
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

/* Whether nodes from -> to lie in different z-planes of a 3D grid, or
 * in different slices of an n-D one. */
static bool z_link(const ir_machine *m, int32_t from, int32_t to)
{
	if ((m->topo != IR_MESH && m->topo != IR_TORUS) || m->ndims < 3)
		return false;
	int32_t per = m->dims[0] * m->dims[1];
	return from / per != to / per;
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

/* The machine's shape for the headings of both drawings. */
void show_shape_name(const ir_machine *m, char *buf, size_t len)
{
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS: {
		int o = snprintf(buf, len, "%s ", ir_topo_name(m->topo));
		for (int k = 0; k < m->ndims && o > 0 && (size_t)o < len; k++)
			o += snprintf(buf + o, len - (size_t)o, "%s%d",
			              k ? "x" : "", m->dims[k]);
		if (m->topo == IR_TORUS &&
		    m->wrap != (1u << m->ndims) - 1u) {
			/* a torus of mixed dimensions names those that
			 * wrap */
			for (int k = 0, w = 0;
			     k < m->ndims && o > 0 && (size_t)o < len; k++)
				if (m->wrap >> k & 1u)
					o += snprintf(buf + o, len - (size_t)o,
					              "%s%s", w++ ? " " :
					              " (wraps ",
					              ir_dim_names[k]);
			if (o > 0 && (size_t)o < len)
				o += snprintf(buf + o, len - (size_t)o, ")");
		}
		break;
	}
	case IR_HYPERCUBE:
		snprintf(buf, len, "%d-cube", m->ndims);
		break;
	case IR_HPAM:
		snprintf(buf, len, "hpam %dx%d over %dx%d", m->levels[0][0],
		         m->levels[0][1], m->levels[1][0], m->levels[1][1]);
		break;
	case IR_SWITCH:
		snprintf(buf, len, "switch of %d ports", (int)m->nnodes);
		break;
	case IR_FAT_TREE:
		snprintf(buf, len, "fat tree of %d hosts", (int)m->nnodes);
		break;
	case IR_GRAPH:
		snprintf(buf, len, "graph of %d hosts", (int)m->nnodes);
		break;
	case IR_DRAGONFLY:
		snprintf(buf, len, "dragonfly of %d groups, %d hosts",
		         m->dims[2], (int)m->nnodes);
		break;
	}
	size_t at = strlen(buf);
	if (ir_machine_has_nodes(m) && at < len)
		snprintf(buf + at, len - at, ", %d ranks per node%s",
		         (int)m->ranks_per_node,
		         m->placement == IR_PLACE_CYCLIC ? " (cyclic)"
		         : m->place                       ? " (placed by a map)"
		                                          : "");
	else if (m->place && at < len)
		snprintf(buf + at, len - at, ", ranks placed by a map");
}

int show_check_drawable(const ir_machine *m, char *err, size_t errlen)
{
	if (m->topo != IR_FAT_TREE && m->topo != IR_GRAPH &&
	    m->topo != IR_DRAGONFLY)
		return 0;
	snprintf(err, errlen,
	         "pictures are not drawn for %s: their %s have no place in "
	         "the drawings yet (ccplan explain and ccplan compare "
	         "describe the plan)",
	         m->topo == IR_FAT_TREE ? "fat trees"
	         : m->topo == IR_GRAPH  ? "graphs"
	                                : "dragonflies",
	         m->topo == IR_DRAGONFLY ? "routers" : "switches");
	return CCP_ENOTAPPLY;
}

int show_check_phase(uint32_t nphases, int phase, bool svg, char *err,
                     size_t errlen)
{
	if (svg && phase < 0 && nphases > SHOW_MAX_PANELS) {
		snprintf(err, errlen,
		         "the plan has %u phases; every phase in one picture "
		         "is drawn for up to %d: give --phase K",
		         nphases, SHOW_MAX_PANELS);
		return CCP_ENOTAPPLY;
	}
	if (!svg && phase < 0 && nphases > SHOW_MAX_TEXT_PHASES) {
		snprintf(err, errlen,
		         "the plan has %u phases; every phase as text is "
		         "drawn for up to %d: give --phase K",
		         nphases, SHOW_MAX_TEXT_PHASES);
		return CCP_ENOTAPPLY;
	}
	if (phase >= -1 && (phase < 0 || (uint32_t)phase < nphases))
		return 0;
	if (nphases)
		snprintf(err, errlen, "phase %d: the plan has %u phase%s, 0..%u",
		         phase, nphases, nphases == 1 ? "" : "s", nphases - 1);
	else
		snprintf(err, errlen, "phase %d: the plan has no phases", phase);
	return CCP_ERANGE;
}
