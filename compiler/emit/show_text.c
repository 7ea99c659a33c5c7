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

/* Largest extent of each dimension the text form draws. */
#define TEXT_MAX_EXTENT 32

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
	        *updown, *zplus, *zminus, *zboth;
};
static const struct glyphs uni = {"o", "●", "R", "─", "→", "←",
                                  "↓", "↑", "↕", "↗", "↙", "⤢"};
static const struct glyphs asc = {"o", "#", "R", "-", ">", "<",
                                  "v", "^", "|", "+", "-", "x"};

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
	int X, Y, Z;     /* extents */
	bool torus;      /* wraparound margins */
	int pitch;       /* columns from one rank to the next */
	int lm;          /* left margin, columns */
	int w, h;        /* one plane, in cells */
	struct cell *c;  /* w * h cells of the plane being drawn */
	uint32_t *plus;  /* per rank and dimension: load of the link to the
	                    next coordinate (or round the ring) */
	uint32_t *minus; /* ... to the previous one */
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
	return (v->torus ? 1 : 0) + 2 * y;
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

/* Record the loads of a phase's links per rank and direction. */
static void take_loads(struct canvas *v, const struct show_phase *ph)
{
	size_t n = (size_t)v->m->nranks * 3;
	memset(v->plus, 0, n * sizeof *v->plus);
	memset(v->minus, 0, n * sizeof *v->minus);
	int a[IR_MAX_CUBE_DIM], b[IR_MAX_CUBE_DIM];
	for (size_t k = 0; ph && k < ph->nlinks; k++) {
		const struct show_link *l = &ph->links[k];
		ir_coords(v->m, l->from, a);
		ir_coords(v->m, l->to, b);
		for (int d = 0; d < 3; d++) {
			int delta = b[d] - a[d];
			if (!delta)
				continue;
			/* one step up, or round the ring from the top */
			bool up = delta == 1 || (v->torus && delta < -1);
			uint32_t *q = up ? v->plus : v->minus;
			q[(size_t)l->from * 3 + (size_t)d] = l->load;
			break;
		}
	}
}

/* Draw plane z of the current phase into the canvas. */
static void draw_plane(struct canvas *v, int z, const bool *held, int32_t root)
{
	const struct glyphs *g = v->gl;
	for (size_t k = 0; k < (size_t)v->w * (size_t)v->h; k++) {
		v->c[k].g = " ";
		v->c[k].c = C_NONE;
	}
	int co[IR_MAX_CUBE_DIM] = {0};
	bool threed = v->Z > 1;
	int gap = threed ? 2 : 1; /* first column of a horizontal link */
	for (int y = 0; y < v->Y; y++) {
		for (int x = 0; x < v->X; x++) {
			co[0] = x;
			co[1] = y;
			co[2] = z;
			int32_t r = ir_rank_of(v->m, co);
			int col = col_of(v, x), row = row_of(v, y);
			size_t i = (size_t)r * 3;
			if (r == root)
				put(v, col, row, g->root, C_ROOT);
			else if (held[r])
				put(v, col, row, g->held, C_HELD);
			else
				put(v, col, row, g->rank, C_NONE);
			if (threed && (v->plus[i + 2] || v->minus[i + 2])) {
				uint32_t a = v->plus[i + 2],
				         b = v->minus[i + 2];
				uint32_t most = a > b ? a : b;
				put(v, col + 1, row,
				    most > 1 ? count_glyph(most)
				    : a && b ? g->zboth
				    : a      ? g->zplus
				             : g->zminus,
				    most > 1 ? C_HOT : C_HOP);
			}
			/* the link to the right: this rank's +x, the next
			 * one's -x; the last rank of a torus row wraps */
			if (x + 1 < v->X || v->torus) {
				co[0] = (x + 1) % v->X;
				int32_t q = ir_rank_of(v->m, co);
				uint32_t a = v->plus[i],
				         b = v->minus[(size_t)q * 3];
				if (v->X == 2 && x == 1)
					b = 0; /* a ring of two: one link */
				hgap(v, col + gap, row, a, b);
				if (x + 1 == v->X)
					hgap(v, 0, row, a, b);
			}
			/* the link below */
			if (y + 1 < v->Y || v->torus) {
				co[0] = x;
				co[1] = (y + 1) % v->Y;
				int32_t q = ir_rank_of(v->m, co);
				uint32_t a = v->plus[i + 1],
				         b = v->minus[(size_t)q * 3 + 1];
				if (v->Y == 2 && y == 1)
					b = 0;
				vgap(v, col, row + 1, a, b);
				if (y + 1 == v->Y)
					vgap(v, col, 0, a, b);
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
	const ir_machine *m = &p->machine;
	const ir_comm *c = &p->comm;
	tb_printf(out, "%s, %s", p->algorithm, ir_coll_name(c->coll));
	if (ir_coll_kind(c->coll) & IR_CK_ROOTED)
		tb_printf(out, " %s rank %d",
		          c->coll == IR_BCAST ? "from" : "at", (int)c->root);
	tb_printf(out, " on a %s ", ir_topo_name(m->topo));
	for (int d = 0; d < m->ndims; d++)
		tb_printf(out, "%s%d", d ? "x" : "", m->dims[d]);
	tb_printf(out, "\n");
}

int show_text(const ir_plan *p, const struct show_opts *o, struct tbuf *out,
              char *err, size_t errlen)
{
	const ir_machine *m = &p->machine;
	if (m->topo != IR_MESH && m->topo != IR_TORUS) {
		snprintf(err, errlen,
		         "the text drawing is for meshes and tori; this plan "
		         "is for a %s: use --svg",
		         ir_topo_name(m->topo));
		return CCP_ENOTAPPLY;
	}
	for (int d = 0; d < m->ndims; d++) {
		if (m->dims[d] > TEXT_MAX_EXTENT) {
			snprintf(err, errlen,
			         "the text drawing is for machines up to "
			         "%dx%d (x%d planes); this %s is %d wide in "
			         "dimension %d: use --svg",
			         TEXT_MAX_EXTENT, TEXT_MAX_EXTENT,
			         TEXT_MAX_EXTENT, ir_topo_name(m->topo),
			         m->dims[d], d);
			return CCP_ENOTAPPLY;
		}
	}
	int rc_phase = show_check_phase(p, o->phase, err, errlen);
	if (rc_phase)
		return rc_phase;
	struct canvas v;
	memset(&v, 0, sizeof v);
	v.m = m;
	v.gl = o->unicode ? &uni : &asc;
	v.X = m->dims[0];
	v.Y = m->dims[1];
	v.Z = m->dims[2];
	v.torus = m->topo == IR_TORUS;
	v.pitch = v.Z > 1 ? 5 : 4;
	v.lm = v.torus ? 3 : 0;
	v.w = v.lm + (v.X - 1) * v.pitch + 1 + (v.Z > 1) + (v.torus ? 3 : 0);
	v.h = 2 * v.Y - 1 + (v.torus ? 2 : 0);
	size_t n = (size_t)m->nranks;
	v.c = malloc((size_t)v.w * (size_t)v.h * sizeof *v.c);
	v.plus = malloc(n * 3 * sizeof *v.plus);
	v.minus = malloc(n * 3 * sizeof *v.minus);
	bool *held = malloc(n * sizeof *held);
	int rc = CCP_ENOMEM;
	if (!v.c || !v.plus || !v.minus || !held) {
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
		take_loads(&v, &ph);
		tb_printf(out,
		          "\nphase %u of %u (numbered from 0): %u transfer%s, "
		          "%zu hops, max link load %u\n",
		          k, p->nphases, ph.ntransfers,
		          ph.ntransfers == 1 ? "" : "s", ph.nhops, ph.max_load);
		show_phase_fini(&ph);
		for (int z = 0; z < v.Z; z++) {
			if (v.Z > 1)
				tb_printf(out, "%sz = %d\n", z ? "\n" : "", z);
			draw_plane(&v, z, held, root);
			emit(&v, o->color, out);
		}
	}
	if (!p->nphases)
		tb_printf(out, "\nthe plan has no phases\n");
	const struct glyphs *g = v.gl;
	tb_printf(out, "\nkey: ");
	if (root >= 0)
		tb_printf(out, "%s root, ", g->root);
	tb_printf(out,
	          "%s holds data, %s no data yet; %s %s %s %s a hop (%s both "
	          "ways), 2 a link with 2 transfers (* for 10 or more)",
	          g->held, g->rank, g->right, g->left, g->down, g->up,
	          g->updown);
	if (v.Z > 1)
		tb_printf(out, "; %s %s a hop to the next or previous plane",
		          g->zplus, g->zminus);
	tb_printf(out, "\n");
	rc = out->nomem ? CCP_ENOMEM : 0;
	if (rc)
		snprintf(err, errlen, "out of memory");
out:
	free(v.c);
	free(v.plus);
	free(v.minus);
	free(held);
	return rc;
}
