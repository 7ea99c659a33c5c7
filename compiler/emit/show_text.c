/*
 * show_text.c - a plan's phases drawn in a terminal: meshes and tori of
 * up to 32x32 ranks (3D: up to 32 such planes, one after another), each
 * rank one character, the hops of the phase as arrows on the links
 * between them, a link carrying more than one transfer marked with its
 * count.  Box drawing characters and arrows, or plain ASCII; ANSI
 * colours only when asked (show_tty_color).
 *
 * Unlike the SVG, the text shows links, not transfers: an arrow says the
 * link carries at least one hop in that direction, its count how many
 * transfers when more than one.  The glyphs are in docs/show.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"

/* Largest extent of each dimension the text form draws (of x and y on a
 * machine of 4 or more dimensions). */
#define TEXT_MAX_EXTENT 32
/* n-D: slices drawn in one phase; slices listed in a summary; active
 * nodes listed per phase. */
#define TEXT_MAX_SLICES  32
#define TEXT_MAX_SUMMARY 4096
#define TEXT_MAX_NODES   64

enum colour { C_NONE, C_ROOT, C_HELD, C_HOP, C_HOT };
static const char *const ansi[] = {"", "\033[1;35m", "\033[32m", "\033[36m",
                                   "\033[1;31m"};

/* One character cell: a glyph (a string literal, one column wide) and
 * its colour. */
struct cell {
	const char *g;
	enum colour c;
};

/* The glyphs, Unicode then ASCII. */
struct glyphs {
	const char *rank, *held, *root, *line, *right, *left, *down, *up,
	        *updown, *zplus, *zminus, *zboth, *part, *got;
};
static const struct glyphs uni = {"o", "●", "R", "─", "→", "←", "↓",
                                  "↑", "↕", "↗", "↙", "⤢", "◐", "◉"};
static const struct glyphs asc = {"o", "#", "R", "-", ">", "<", "v",
                                  "^", "|", "+", "-", "x", "%", "@"};

/* A count as one character: the digit, '*' from 10 on. */
static const char *count_glyph(uint32_t n)
{
	static const char *const d[] = {"0", "1", "2", "3", "4",
	                                "5", "6", "7", "8", "9"};
	return n < 10 ? d[n] : "*";
}

/* Everything a drawing of one machine needs. */
struct canvas {
	const ir_machine *m;
	const struct glyphs *gl;
	int X, Y, Z;     /* extents; Z: slices (3D: planes) */
	int nd;          /* dimensions kept per node in plus and minus */
	bool sliced;     /* 4-8 dimensions: Z counts (x, y) slices */
	bool wrapx;      /* x wraps: margins left and right */
	bool wrapy;      /* y wraps: a line above and below */
	bool nodes;      /* several ranks per node: a cell is [node] */
	int cw;          /* columns of a cell: 1, or 3 for [node] */
	int pitch;       /* columns from one cell to the next */
	int lm;          /* left margin, columns */
	int w, h;        /* one plane, in cells */
	struct cell *c;  /* w * h cells of the plane being drawn */
	uint32_t *plus;  /* per node and dimension: load of the link to the
	                    next coordinate (or round the ring) */
	uint32_t *minus; /* ... to the previous one */
	const uint32_t *shm; /* per node: transfers inside it, or NULL */
};

static void put(struct canvas *v, int col, int row, const char *g,
                enum colour c)
{
	if (col < 0 || col >= v->w || row < 0 || row >= v->h)
		return;
	v->c[(size_t)row * (size_t)v->w + (size_t)col].g = g;
	v->c[(size_t)row * (size_t)v->w + (size_t)col].c = c;
}

/* Column of rank x, row of rank y, in the plane. */
static int col_of(const struct canvas *v, int x)
{
	return v->lm + x * v->pitch;
}
static int row_of(const struct canvas *v, int y)
{
	return (v->wrapy ? 1 : 0) + 2 * y;
}

/* The three cells of a horizontal link starting at column col: a is the
 * load rightwards, b leftwards. */
static void hgap(struct canvas *v, int col, int row, uint32_t a, uint32_t b)
{
	if (!a && !b)
		return;
	const struct glyphs *g = v->gl;
	uint32_t most = a > b ? a : b;
	enum colour c = most > 1 ? C_HOT : C_HOP;
	put(v, col, row, b ? g->left : g->line, c);
	put(v, col + 1, row, most > 1 ? count_glyph(most) : g->line, c);
	put(v, col + 2, row, a ? g->right : g->line, c);
}

/* The cell of a vertical link at column col (and its count right of
 * it): a is the load downwards, b upwards. */
static void vgap(struct canvas *v, int col, int row, uint32_t a, uint32_t b)
{
	if (!a && !b)
		return;
	const struct glyphs *g = v->gl;
	uint32_t most = a > b ? a : b;
	enum colour c = most > 1 ? C_HOT : C_HOP;
	put(v, col, row, a && b ? g->updown : a ? g->down : g->up, c);
	if (most > 1)
		put(v, col + 1, row, count_glyph(most), c);
}

/* Record the loads of a phase's links per node and direction. */
static void take_loads(struct canvas *v, const struct show_phase *ph)
{
	size_t n = (size_t)v->m->nnodes * (size_t)v->nd;
	memset(v->plus, 0, n * sizeof *v->plus);
	memset(v->minus, 0, n * sizeof *v->minus);
	int a[IR_MAX_CUBE_DIM], b[IR_MAX_CUBE_DIM];
	for (size_t k = 0; ph && k < ph->nlinks; k++) {
		const struct show_link *l = &ph->links[k];
		ir_coords(v->m, ir_node_rank(v->m, l->from, 0), a);
		ir_coords(v->m, ir_node_rank(v->m, l->to, 0), b);
		for (int d = 0; d < v->nd; d++) {
			int delta = b[d] - a[d];
			if (!delta)
				continue;
			/* one step up, or round the ring from the top */
			bool wraps = v->m->topo == IR_TORUS &&
			             (v->m->wrap >> d & 1u);
			bool up = delta == 1 || (wraps && delta < -1);
			uint32_t *q = up ? v->plus : v->minus;
			q[(size_t)l->from * (size_t)v->nd + (size_t)d] = l->load;
			break;
		}
	}
}

/* The glyph right of a node of an n-D machine: the name of the
 * dimension (z, a, b, ...) along which hops leave it for another slice,
 * '&' for several, the count when a link is hot; NULL for none. */
static const char *slice_hop(const struct canvas *v, size_t i,
                             enum colour *c)
{
	uint32_t most = 0;
	int dim = -1, dims = 0;
	for (int d = 2; d < v->nd; d++) {
		uint32_t a = v->plus[i + (size_t)d], b = v->minus[i + (size_t)d];
		if (!a && !b)
			continue;
		dims++;
		dim = d;
		most = a > most ? a : most;
		most = b > most ? b : most;
	}
	if (!dims)
		return NULL;
	*c = most > 1 ? C_HOT : C_HOP;
	if (most > 1)
		return count_glyph(most);
	return dims > 1 ? "&" : ir_dim_names[dim];
}

/* Draw slice z (a z-plane of a 3D machine, or an (x, y) slice of an n-D
 * one) of the current phase into the canvas. */
static void draw_plane(struct canvas *v, int z, const bool *held,
                       const bool *got, int32_t root)
{
	const struct glyphs *g = v->gl;
	for (size_t k = 0; k < (size_t)v->w * (size_t)v->h; k++) {
		v->c[k].g = " ";
		v->c[k].c = C_NONE;
	}
	bool threed = v->Z > 1 || v->sliced;
	int mid = v->cw / 2;            /* the node's glyph in its cell */
	int gap = v->cw + (threed ? 1 : 0); /* first column of a
	                                       horizontal link */
	int32_t root_node = root >= 0 ? ir_node_of(v->m, root) : -1;
	size_t nd = (size_t)v->nd;
	for (int y = 0; y < v->Y; y++) {
		for (int x = 0; x < v->X; x++) {
			int32_t r = x + v->X * (y + (int32_t)v->Y * z);
			int col = col_of(v, x), row = row_of(v, y);
			size_t i = (size_t)r * nd;
			int hold = v->nodes ? show_node_held(v->m, held, r)
			                    : held[r] ? 2 : 0;
			if (r == root_node)
				put(v, col + mid, row, g->root, C_ROOT);
			else if (!v->nodes && got[r])
				put(v, col + mid, row, g->got, C_HELD);
			else if (hold == 2)
				put(v, col + mid, row, g->held, C_HELD);
			else if (hold == 1)
				put(v, col + mid, row, g->part, C_HELD);
			else
				put(v, col + mid, row, g->rank, C_NONE);
			if (v->nodes) {
				bool inside = v->shm && v->shm[r];
				put(v, col, row, inside ? "{" : "[",
				    inside ? C_HOP : C_NONE);
				put(v, col + 2, row, inside ? "}" : "]",
				    inside ? C_HOP : C_NONE);
			}
			if (v->sliced) {
				enum colour c = C_NONE;
				const char *sg = slice_hop(v, i, &c);
				if (sg)
					put(v, col + v->cw, row, sg, c);
			} else if (threed &&
			           (v->plus[i + 2] || v->minus[i + 2])) {
				uint32_t a = v->plus[i + 2],
				         b = v->minus[i + 2];
				uint32_t most = a > b ? a : b;
				put(v, col + v->cw, row,
				    most > 1 ? count_glyph(most)
				    : a && b ? g->zboth
				    : a      ? g->zplus
				             : g->zminus,
				    most > 1 ? C_HOT : C_HOP);
			}
			/* the link to the right: this node's +x, the next
			 * one's -x; the last node of a wrapping row wraps */
			if (x + 1 < v->X || v->wrapx) {
				int32_t q = r - x + (x + 1) % v->X;
				uint32_t a = v->plus[i],
				         b = v->minus[(size_t)q * nd];
				if (v->X == 2 && x == 1)
					b = 0; /* a ring of two: one link */
				hgap(v, col + gap, row, a, b);
				if (x + 1 == v->X)
					hgap(v, 0, row, a, b);
			}
			/* the link below */
			if (y + 1 < v->Y || v->wrapy) {
				int32_t q = r + ((y + 1) % v->Y - y) * v->X;
				uint32_t a = v->plus[i + 1],
				         b = v->minus[(size_t)q * nd + 1];
				if (v->Y == 2 && y == 1)
					b = 0;
				vgap(v, col + mid, row + 1, a, b);
				if (y + 1 == v->Y)
					vgap(v, col + mid, 0, a, b);
			}
		}
	}
}

/* Append the canvas, trailing blanks cut, colour codes when asked. */
static void emit(const struct canvas *v, bool colour, struct tbuf *out)
{
	for (int row = 0; row < v->h; row++) {
		const struct cell *line = v->c + (size_t)row * (size_t)v->w;
		int end = v->w;
		while (end > 0 && strcmp(line[end - 1].g, " ") == 0)
			end--;
		enum colour cur = C_NONE;
		for (int k = 0; k < end; k++) {
			if (colour && line[k].c != cur) {
				tb_printf(out, "%s%s", cur ? "\033[0m" : "",
				          ansi[line[k].c]);
				cur = line[k].c;
			}
			tb_printf(out, "%s", line[k].g);
		}
		if (colour && cur)
			tb_printf(out, "\033[0m");
		tb_printf(out, "\n");
	}
}

/* The machine's shape and the communication, for the heading. */
static void heading(const ir_plan *p, struct tbuf *out)
{
	const ir_comm *c = &p->comm;
	char shape[160];
	tb_printf(out, "%s, %s", p->algorithm, ir_coll_name(c->coll));
	if (ir_coll_kind(c->coll) & IR_CK_ROOTED)
		tb_printf(out, " %s rank %d",
		          c->coll == IR_BCAST ? "from" : "at", (int)c->root);
	show_shape_name(&p->machine, shape, sizeof shape);
	tb_printf(out, " on a %s\n", shape);
}

/* The nodes of phase ph whose ranks send or receive, with how many of
 * each and the transfers inside the node; up to TEXT_MAX_NODES lines,
 * and how many more there are. */
static void node_lines(const ir_machine *m, const struct show_phase *ph,
                       struct tbuf *out)
{
	int32_t busy = 0;
	int c[IR_MAX_CUBE_DIM];
	for (int32_t k = 0; k < m->nnodes; k++) {
		if (!ph->node_send[k] && !ph->node_recv[k])
			continue;
		if (busy++ == 0)
			tb_printf(out, "\nnodes at work (s: its ranks sending, "
			               "r: receiving, m: transfers inside the "
			               "node, by shared memory):\n");
		if (busy > TEXT_MAX_NODES)
			continue;
		ir_coords(m, ir_node_rank(m, k, 0), c);
		tb_printf(out, "  node %d (", (int)k);
		for (int d = 0; d < m->ndims; d++)
			tb_printf(out, "%s%d", d ? "," : "", c[d]);
		tb_printf(out, "): s%u r%u m%u\n", ph->node_send[k],
		          ph->node_recv[k], ph->node_shm[k]);
	}
	if (busy > TEXT_MAX_NODES)
		tb_printf(out, "  and %d more nodes at work, not listed\n",
		          (int)(busy - TEXT_MAX_NODES));
}

/* Phase k of an n-D machine: its busy slices drawn one after another
 * under their coordinates (every slice when there are few), or a list of
 * them when they are too many to draw. */
static int draw_slices(struct canvas *v, const ir_plan *p, uint32_t k,
                       const bool *held, const bool *got, int32_t root,
                       bool colour,
                       struct tbuf *out, char *err, size_t errlen)
{
	struct show_slices sl;
	char name[96];
	int rc = show_slices_pick(p, (int)k, TEXT_MAX_SLICES, INT64_MAX, &sl,
	                          err, errlen);
	if (rc)
		return rc;
	if (sl.summary && sl.total > TEXT_MAX_SUMMARY) {
		snprintf(err, errlen,
		         "phase %u: %d slices of %dx%d nodes carry transfers, "
		         "more than the %d drawn, and the machine's %d slices "
		         "are too many to list (up to %d)",
		         k, (int)sl.busy, v->X, v->Y, TEXT_MAX_SLICES,
		         (int)sl.total, TEXT_MAX_SUMMARY);
		show_slices_fini(&sl);
		return CCP_ENOTAPPLY;
	}
	if (sl.summary) {
		tb_printf(out,
		          "slices: %d of %d carry transfers, more than the %d "
		          "drawn; a list of them (out: transfers leaving the "
		          "slice's nodes, in: arriving, hops: starting in it)\n",
		          (int)sl.busy, (int)sl.total, TEXT_MAX_SLICES);
		for (int32_t s = 0; s < sl.total; s++) {
			if (!sl.is_busy[s])
				continue;
			show_slice_label(v->m, s, name, sizeof name);
			tb_printf(out, "  %s: out %u, in %u, hops %llu\n", name,
			          sl.sends[s], sl.recvs[s],
			          (unsigned long long)sl.hops[s]);
		}
	} else if (sl.only_busy) {
		tb_printf(out,
		          "slices drawn: %d of %d, those the transfers pass "
		          "through, and the root's\n",
		          (int)sl.n, (int)sl.total);
	}
	for (int32_t i = 0; i < sl.n; i++) {
		show_slice_label(v->m, sl.which[i], name, sizeof name);
		tb_printf(out, "%s%s\n", i ? "\n" : "", name);
		draw_plane(v, (int)sl.which[i], held, got, root);
		emit(v, colour, out);
	}
	show_slices_fini(&sl);
	return 0;
}

int show_text(const ir_plan *p, const struct show_opts *o, struct tbuf *out,
              char *err, size_t errlen)
{
	const ir_machine *m = &p->machine;
	int rc_draw = show_check_drawable(m, err, errlen);
	if (rc_draw)
		return rc_draw;
	if (m->topo != IR_MESH && m->topo != IR_TORUS) {
		snprintf(err, errlen,
		         "the text drawing is for meshes and tori; this plan "
		         "is for a %s: use --svg",
		         ir_topo_name(m->topo));
		return CCP_ENOTAPPLY;
	}
	bool sliced = show_is_sliced(m);
	for (int d = 0; d < (sliced ? 2 : m->ndims); d++) {
		if (m->dims[d] <= TEXT_MAX_EXTENT)
			continue;
		if (sliced)
			snprintf(err, errlen,
			         "the text drawing is for slices up to %dx%d; "
			         "this %s is %d wide in dimension %s: use --svg",
			         TEXT_MAX_EXTENT, TEXT_MAX_EXTENT,
			         ir_topo_name(m->topo), m->dims[d],
			         ir_dim_names[d]);
		else
			snprintf(err, errlen,
			         "the text drawing is for machines up to "
			         "%dx%d (x%d planes); this %s is %d wide in "
			         "dimension %d: use --svg",
			         TEXT_MAX_EXTENT, TEXT_MAX_EXTENT,
			         TEXT_MAX_EXTENT, ir_topo_name(m->topo),
			         m->dims[d], d);
		return CCP_ENOTAPPLY;
	}
	if (sliced && show_check_nd(m, err, errlen))
		return CCP_ENOTAPPLY;
	int rc_phase = show_check_phase(p->nphases, o->phase, false, err,
	                                errlen);
	if (rc_phase)
		return rc_phase;
	struct canvas v;
	memset(&v, 0, sizeof v);
	v.m = m;
	v.gl = o->unicode ? &uni : &asc;
	v.X = m->dims[0];
	v.Y = m->dims[1];
	v.Z = sliced ? m->nnodes / (v.X * v.Y) : m->dims[2];
	v.nd = m->ndims < 3 ? 3 : m->ndims;
	v.sliced = sliced;
	bool torus = m->topo == IR_TORUS;
	v.wrapx = torus && (m->wrap & 1u);
	/* a 1D torus keeps its (empty) lines above and below */
	v.wrapy = torus && (m->ndims < 2 || (m->wrap & 2u));
	v.nodes = ir_machine_has_nodes(m);
	v.cw = v.nodes ? 3 : 1;
	int zcol = v.Z > 1 || sliced; /* a column for hops between planes */
	v.pitch = v.cw + zcol + 3;
	v.lm = v.wrapx ? 3 : 0;
	v.w = v.lm + (v.X - 1) * v.pitch + v.cw + zcol + (v.wrapx ? 3 : 0);
	v.h = 2 * v.Y - 1 + (v.wrapy ? 2 : 0);
	size_t n = (size_t)m->nnodes * (size_t)v.nd;
	v.c = malloc((size_t)v.w * (size_t)v.h * sizeof *v.c);
	v.plus = malloc(n * sizeof *v.plus);
	v.minus = malloc(n * sizeof *v.minus);
	bool *held = malloc((size_t)m->nranks * sizeof *held);
	bool *got = malloc((size_t)m->nranks * sizeof *got);
	int rc = CCP_ENOMEM;
	if (!v.c || !v.plus || !v.minus || !held || !got) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	int32_t root = -1;
	if (ir_coll_kind(p->comm.coll) & IR_CK_ROOTED)
		root = p->comm.root;
	show_held_start(p, held);
	bool all = o->phase < 0;
	uint32_t first = all ? 0 : (uint32_t)o->phase;
	uint32_t last = all ? p->nphases : first + 1;
	for (uint32_t k = 0; k < first; k++)
		show_held_apply(p, k, held);
	heading(p, out);
	for (uint32_t k = first; k < last; k++) {
		struct show_phase ph;
		if ((rc = show_phase_make(p, k, &ph, err, errlen)) != 0)
			goto out;
		show_held_apply(p, k, held);
		/* the receivers of this phase alone */
		memset(got, 0, (size_t)m->nranks * sizeof *got);
		show_held_apply(p, k, got);
		take_loads(&v, &ph);
		v.shm = ph.node_shm;
		tb_printf(out,
		          "\nphase %u of %u (numbered from 0): %u transfer%s, "
		          "%zu hops, max link load %u",
		          k, p->nphases, ph.ntransfers,
		          ph.ntransfers == 1 ? "" : "s", ph.nhops, ph.max_load);
		if (v.nodes)
			tb_printf(out, ", %u inside nodes", ph.shm);
		tb_printf(out, "\n");
		if (sliced) {
			rc = draw_slices(&v, p, k, held, got, root, o->color,
			                 out, err, errlen);
			if (rc) {
				show_phase_fini(&ph);
				goto out;
			}
		}
		for (int z = 0; !sliced && z < v.Z; z++) {
			if (v.Z > 1)
				tb_printf(out, "%sz = %d\n", z ? "\n" : "", z);
			draw_plane(&v, z, held, got, root);
			emit(&v, o->color, out);
		}
		if (v.nodes)
			node_lines(m, &ph, out);
		show_phase_fini(&ph);
	}
	if (!p->nphases)
		tb_printf(out, "\nthe plan has no phases\n");
	const struct glyphs *g = v.gl;
	tb_printf(out, "\nkey: ");
	if (root >= 0)
		tb_printf(out, "%s root, ", g->root);
	if (!v.nodes)
		tb_printf(out, "%s received in this phase, ", g->got);
	tb_printf(out,
	          "%s %s, %s no data yet; %s %s %s %s a hop (%s both "
	          "ways), 2 a link with 2 transfers (* for 10 or more)",
	          g->held, v.nodes ? "holds data" : "held data before",
	          g->rank, g->right, g->left, g->down, g->up, g->updown);
	if (v.Z > 1 && !sliced)
		tb_printf(out, "; %s %s a hop to the next or previous plane",
		          g->zplus, g->zminus);
	if (sliced) {
		tb_printf(out, ";");
		for (int d = 2; d < m->ndims; d++)
			tb_printf(out, " %s", ir_dim_names[d]);
		tb_printf(out, " right of a node: a hop leaves it along that "
		               "dimension, for another slice (& along "
		               "several)");
	}
	if (v.nodes)
		tb_printf(out,
		          "; [%s] a node of %d ranks (%s some of them hold "
		          "data), {%s} a node with transfers inside it "
		          "(shared memory, no link)",
		          g->rank, (int)m->ranks_per_node, g->part, g->rank);
	tb_printf(out, "\n");
	rc = out->nomem ? CCP_ENOMEM : 0;
	if (rc)
		snprintf(err, errlen, "out of memory");
out:
	free(v.c);
	free(v.plus);
	free(v.minus);
	free(held);
	free(got);
	return rc;
}
