/*
 * show_svg.c - a plan's phases as a standalone SVG document, written by
 * hand into a struct tbuf (no library): the machine's ranks where
 * show_layout_make puts them, its links faint underneath, each hop of each
 * transfer as a path with a head on the last one, links carrying more
 * than one transfer in red with their count, the root and the ranks that
 * hold data shaded.  One phase, or every phase as small multiples.
 *
 * The class names are an interface: tests count them and the HTML report
 * styles them (docs/show.md has the table).  Sizes follow the machine: a
 * 4x4 mesh gets large circles with rank numbers, a 64x64 mesh about 11
 * pixels per rank.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "place.h"
#include "plot.h"
#include "show.h"

/* Margin around a panel's rank centres, in layout units: room for the
 * circles and for torus wraparound stubs. */
#define MARGIN 0.8
/* Rank circle radius, in layout units, when drawn large (smaller
 * pictures get smaller circles, so the hops between them show). */
#define RADIUS 0.28
/* How far the two directions of a link stand apart from its centre
 * line, in layout units. */
#define OFFSET 0.11
/* Page padding, heading and legend heights, in pixels. */
#define PAD  10.0
#define HEAD 48.0
#define FOOT 30.0
/* Room for the level names of an HPAM machine, right of the panel. */
#define LEVEL_NAMES 58.0
/* Largest pictures drawn: hops in one document (about 100 bytes each:
 * 500,000 make some 50 MB); phases in one --all grid: SHOW_MAX_PANELS. */
#define MAX_HOPS   500000
/* n-D machines: slices drawn in one picture (their nodes are limited by
 * SHOW_MAX_RANKS), and slices in a summary. */
#define MAX_SLICES         64
#define MAX_SUMMARY_SLICES 4096
/* Fewest pixels from one rank to the next: the page grows past its
 * usual 1200 x 720 (one phase) or 1100 pixels (small multiples) rather
 * than let ranks, hops and counts run into each other (a 64x64 mesh:
 * 1,050 pixels square for one phase). */
#define MIN_STEP     16.0
#define MIN_STEP_ALL 5.0
/* Smallest radius, in pixels, of a rank that holds data or is the root
 * (yet at most 0.42 of a rank step, so circles never touch): in small
 * multiples of a large machine (5 pixels a rank) the shading would
 * vanish under the hops. */
#define MIN_MARK 2.4

/* Everything one document needs while it is written. */
struct svg {
	const ir_plan *p;
	const struct show_opts *o;
	struct tbuf *b;
	struct show_layout l;
	double s;      /* pixels per layout unit */
	double head;   /* arrowhead length, pixels */
	double radius; /* rank circles, layout units */
	double trim;   /* hop ends kept off the rank centres, units */
	double top;    /* pixels above a panel's drawing (its labels) */
	double pw, ph; /* one panel, pixels */
	bool labels;   /* rank numbers in the circles */
	bool *held;    /* ranks holding data after the phase drawn */
	bool *got;     /* ranks receiving in the phase drawn (a subset of
	                  held, drawn darker: received now, not before) */
	bool nodes;    /* several ranks per node: nodes drawn as boxes */
	const struct show_slices *sl; /* n-D: the slices drawn, or NULL */
};

/* A short description of the communication, for the heading. */
static void comm_line(const ir_plan *p, char *buf, size_t len)
{
	const ir_comm *c = &p->comm;
	switch (c->coll) {
	case IR_BCAST:
		snprintf(buf, len, "broadcast from rank %d", (int)c->root);
		break;
	case IR_SCATTER:
	case IR_GATHER:
	case IR_REDUCE:
		snprintf(buf, len, "%s at rank %d", ir_coll_name(c->coll),
		         (int)c->root);
		break;
	case IR_IRREGULAR:
		snprintf(buf, len, "irregular, %lld messages",
		         (long long)(c->matrix ? c->matrix->nnz : 0));
		break;
	default:
		snprintf(buf, len, "%s", ir_coll_name(c->coll));
		break;
	}
}

/* The document's opening, up to the text of its <title>: a page of
 * W x H pixels. */
static void doc_open(struct tbuf *b, double W, double H)
{
	tb_printf(b,
	          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	          "<svg xmlns=\"http://www.w3.org/2000/svg\" "
	          "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
	          "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
	          "font-size=\"12\">\n<title>",
	          W, H, W, H);
}

/* The heading line: the file, algorithm, communication and machine. */
static void title_line(const ir_plan *p, const struct show_opts *o,
                       const char *comm, const char *shape, char *buf,
                       size_t len)
{
	snprintf(buf, len, "%s%s%s, %s on a %s", o->title ? o->title : "",
	         o->title ? ": " : "", p->algorithm, comm, shape);
}

/* The document's opening for phase o->phase (or every phase) of p, a
 * page of W x H pixels: its <title> (file, algorithm, phase) and a
 * <desc> naming the plan, communication comm and machine mach, then
 * what the picture draws. */
static void doc_head(struct tbuf *b, const ir_plan *p,
                     const struct show_opts *o, double W, double H,
                     const char *comm, const char *mach, const char *what)
{
	doc_open(b, W, H);
	if (o->title) {
		plot_text(b, o->title);
		tb_printf(b, ": ");
	}
	plot_text(b, p->algorithm);
	if (o->phase < 0)
		tb_printf(b, ", every phase</title>\n");
	else
		tb_printf(b, ", phase %d</title>\n", o->phase);
	tb_printf(b, "<desc>ccplan show: the ");
	plot_text(b, p->algorithm);
	tb_printf(b, " plan, ");
	plot_text(b, comm);
	tb_printf(b, ", on a ");
	plot_text(b, mach);
	tb_printf(b, "; %u phases.  ", p->nphases);
	plot_text(b, what);
	tb_printf(b, "</desc>\n");
}

/* The document's end: 0, or CCP_ENOMEM (err says so) when b could not
 * grow on the way. */
static int doc_close(struct tbuf *b, char *err, size_t errlen)
{
	tb_printf(b, "</svg>\n");
	if (!b->nomem)
		return 0;
	snprintf(err, errlen, "out of memory");
	return CCP_ENOMEM;
}

/* After the style sheet: the white page of W x H pixels, the heading
 * line title, and the subtitle's <text> opened (the caller writes it and
 * closes it). */
static void page_heading(struct tbuf *b, double W, double H,
                         const char *title)
{
	tb_printf(b,
	          "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n"
	          "<text class=\"title\" x=\"%.0f\" y=\"22\">",
	          W, H, PAD);
	plot_text(b, title);
	tb_printf(b, "</text>\n<text class=\"subtitle\" x=\"%.0f\" y=\"40\">",
	          PAD);
}

/* The subtitle's start: which phase(s) of how many. */
static void phase_line(struct tbuf *b, const ir_plan *p,
                       const struct show_opts *o)
{
	if (o->phase < 0)
		tb_printf(b, "every phase, %u in all (numbered from 0)",
		          p->nphases);
	else
		tb_printf(b, "phase %d of %u (numbered from 0)", o->phase,
		          p->nphases);
}

/* Page coordinates of layout point (x, y) in the panel at (ox, oy). */
static double X(const struct svg *v, double ox, double x)
{
	return ox + (MARGIN + x) * v->s;
}
static double Y(const struct svg *v, double oy, double y)
{
	return oy + v->top + (MARGIN + y) * v->s;
}

/* Append the path data of a link's geometry; with mid, a line or a
 * curve gets a vertex half way (where marker-mid puts a direction
 * mark; a wrap has its two pieces' inner ends for that). */
static void path_d(const struct svg *v, double ox, double oy,
                   const struct show_geom *g, bool mid)
{
	struct tbuf *b = v->b;
	tb_printf(b, "M%.2f %.2f", X(v, ox, g->x0), Y(v, oy, g->y0));
	if (g->shape == SHOW_CURVE && mid) {
		/* de Casteljau at t = 1/2: two quadratics */
		double ax = (g->x0 + g->qx) / 2, ay = (g->y0 + g->qy) / 2;
		double bx = (g->qx + g->x1) / 2, by = (g->qy + g->y1) / 2;
		double mx = (ax + bx) / 2, my = (ay + by) / 2;
		tb_printf(b, "Q%.2f %.2f %.2f %.2fQ%.2f %.2f %.2f %.2f",
		          X(v, ox, ax), Y(v, oy, ay), X(v, ox, mx),
		          Y(v, oy, my), X(v, ox, bx), Y(v, oy, by),
		          X(v, ox, g->x1), Y(v, oy, g->y1));
	} else if (g->shape == SHOW_CURVE) {
		tb_printf(b, "Q%.2f %.2f %.2f %.2f", X(v, ox, g->qx),
		          Y(v, oy, g->qy), X(v, ox, g->x1), Y(v, oy, g->y1));
	} else if (g->shape == SHOW_LINE && mid) {
		tb_printf(b, "L%.2f %.2f", X(v, ox, (g->x0 + g->x1) / 2),
		          Y(v, oy, (g->y0 + g->y1) / 2));
		tb_printf(b, "L%.2f %.2f", X(v, ox, g->x1), Y(v, oy, g->y1));
	} else {
		tb_printf(b, "L%.2f %.2f", X(v, ox, g->x1), Y(v, oy, g->y1));
	}
	if (g->shape == SHOW_WRAP)
		tb_printf(b, "M%.2f %.2f L%.2f %.2f", X(v, ox, g->x2),
		          Y(v, oy, g->y2), X(v, ox, g->x3), Y(v, oy, g->y3));
}

/* Whether a and c lie in different z-planes of a 3D grid. */
static bool z_link_of(const ir_machine *m, int32_t a, int32_t c)
{
	if ((m->topo != IR_MESH && m->topo != IR_TORUS) || m->ndims < 3)
		return false;
	int32_t plane = m->dims[0] * m->dims[1];
	return a / plane != c / plane;
}

/* The machine itself: its links as one faint path (a switch: spokes to
 * its crossbar), and the names of planes or levels. */
static void draw_machine(struct svg *v, double ox, double oy)
{
	const ir_machine *m = &v->p->machine;
	const struct show_layout *l = &v->l;
	struct tbuf *b = v->b;
	struct show_geom g;
	if (m->topo == IR_SWITCH) {
		double half = l->w / 2 * 0.28;
		tb_printf(b, "<path class=\"link\" d=\"");
		for (int32_t r = 0; r < l->n; r++)
			tb_printf(b, "M%.2f %.2f L%.2f %.2f", X(v, ox, l->x[r]),
			          Y(v, oy, l->y[r]), X(v, ox, l->cx),
			          Y(v, oy, l->cy));
		tb_printf(b, "\"/>\n");
		tb_printf(b,
		          "<rect class=\"crossbar\" x=\"%.2f\" y=\"%.2f\" "
		          "width=\"%.2f\" height=\"%.2f\"/>\n",
		          X(v, ox, l->cx - half), Y(v, oy, l->cy - half),
		          2 * half * v->s, 2 * half * v->s);
		return;
	}
	uint64_t nl = ir_nlinks(m);
	tb_printf(b, "<path class=\"link\" d=\"");
	for (uint64_t id = 0; id < nl; id++) {
		int32_t a, c;
		if (ir_link_ends(m, id, &a, &c) || a > c)
			continue;
		if (z_link_of(m, a, c))
			continue; /* arcs across the planes: only hops */
		if (isnan(l->x[a]))
			continue; /* a slice not drawn */
		show_link_geom(m, l, a, c, 0, 0, &g);
		path_d(v, ox, oy, &g, false);
	}
	tb_printf(b, "\"/>\n");
	if ((m->topo == IR_MESH || m->topo == IR_TORUS) && m->ndims == 3)
		for (int z = 0; z < m->dims[2]; z++)
			tb_printf(
			        b,
			        "<text class=\"plane-label\" x=\"%.2f\" "
			        "y=\"%.2f\">z = %d</text>\n",
			        X(v, ox, z * l->plane + (m->dims[0] - 1) / 2.0),
			        oy + v->top - 3, z);
	for (int32_t k = 0; v->sl && k < v->sl->n; k++) {
		char name[96];
		show_slice_label(m, v->sl->which[k], name, sizeof name);
		tb_printf(b,
		          "<text class=\"slice-label\" x=\"%.2f\" "
		          "y=\"%.2f\">%s</text>\n",
		          X(v, ox, (k % l->cols) * l->plane +
		                           (m->dims[0] - 1) / 2.0),
		          Y(v, oy, (k / l->cols) * l->row - 0.75),
		          name);
	}
	if (m->topo == IR_HPAM) {
		int r1 = m->levels[0][0], r2 = m->levels[1][0];
		double y1 = (r1 - 1) / 2.0, y2 = r1 + 1.0 + (r2 - 1) / 2.0;
		tb_printf(b,
		          "<text class=\"level-label\" x=\"%.2f\" y=\"%.2f\">"
		          "level 1</text>\n",
		          X(v, ox, l->w) + v->radius * v->s + 6, Y(v, oy, y1));
		tb_printf(b,
		          "<text class=\"level-label\" x=\"%.2f\" y=\"%.2f\">"
		          "level 2</text>\n",
		          X(v, ox, l->w) + v->radius * v->s + 6, Y(v, oy, y2));
	}
}

/* A node of several ranks: a box, shaded held when every rank of it
 * holds data, part when some do, root when it holds the root; a badge
 * "sS rR" when S of its ranks send and R receive in the phase; a dashed
 * loop over it with a count for the transfers inside the node (shared
 * memory, no link). */
static void draw_node(struct svg *v, const struct show_phase *ph,
                      int32_t node, int32_t root, double ox, double oy)
{
	const ir_machine *m = &v->p->machine;
	const struct show_layout *l = &v->l;
	struct tbuf *b = v->b;
	double cx = X(v, ox, l->x[node]), cy = Y(v, oy, l->y[node]);
	double half = v->radius * 1.15 * v->s;
	int held = show_node_held(m, v->held, node);
	bool has_root = root >= 0 && ir_node_of(m, root) == node;
	bool got = ph && ph->node_recv && ph->node_recv[node];
	tb_printf(b,
	          "<rect class=\"node%s%s%s\" x=\"%.2f\" y=\"%.2f\" "
	          "width=\"%.2f\" height=\"%.2f\" rx=\"%.2f\"",
	          held == 2 ? " held" : held ? " part" : "",
	          got ? " got" : "", has_root ? " root" : "", cx - half,
	          cy - half, 2 * half,
	          2 * half, half * 0.3);
	if (v->labels) {
		/* a tooltip: the node, its coordinates and ranks */
		int co[IR_MAX_CUBE_DIM];
		ir_coords(m, ir_node_rank(m, node, 0), co);
		tb_printf(b, "><title>node %d", (int)node);
		if (m->topo == IR_MESH || m->topo == IR_TORUS) {
			tb_printf(b, " (");
			for (int d = 0; d < m->ndims; d++)
				tb_printf(b, "%s%d", d ? ", " : "", co[d]);
			tb_printf(b, ")");
		}
		if (m->place) {
			tb_printf(b, ": ranks");
			for (int32_t l = 0; l < m->ranks_per_node; l++)
				tb_printf(b, "%s %d", l ? "," : "",
				          (int)ir_node_rank(m, node, l));
		} else if (m->placement == IR_PLACE_CYCLIC)
			tb_printf(b, ": ranks %d + k*%d, k = 0..%d",
			          (int)node, (int)m->nnodes,
			          (int)m->ranks_per_node - 1);
		else
			tb_printf(b, ": ranks %d..%d",
			          (int)ir_node_rank(m, node, 0),
			          (int)ir_node_rank(m, node,
			                            m->ranks_per_node - 1));
		tb_printf(b, "</title></rect>\n");
	} else {
		tb_printf(b, "/>\n");
	}
	if (!ph || !ph->node_send)
		return;
	if (ph->node_send[node] || ph->node_recv[node])
		tb_printf(b,
		          "<text class=\"node-count\" x=\"%.2f\" "
		          "y=\"%.2f\">s%u r%u</text>\n",
		          cx, cy, ph->node_send[node], ph->node_recv[node]);
	if (ph->node_shm[node]) {
		double r = half * 0.55;
		tb_printf(b,
		          "<path class=\"shm\" d=\"M%.2f %.2fA%.2f %.2f 0 1 1 "
		          "%.2f %.2f\" marker-end=\"url(#ccp-shm)\"/>\n",
		          cx - r, cy - half, r, r, cx + r, cy - half);
		tb_printf(b,
		          "<text class=\"shm-count\" x=\"%.2f\" y=\"%.2f\">"
		          "%u</text>\n",
		          cx + r + 2, cy - half - 1.6 * r, ph->node_shm[node]);
	}
}

/* One phase in the panel at (ox, oy): hops, ranks, counts. */
static void draw_phase(struct svg *v, const struct show_phase *ph, double ox,
                       double oy)
{
	const ir_machine *m = &v->p->machine;
	const struct show_layout *l = &v->l;
	struct tbuf *b = v->b;
	struct show_geom g;
	for (size_t k = 0; ph && k < ph->nhops; k++) {
		const struct show_hop *h = &ph->hops[k];
		bool hot = h->load > 1;
		if (isnan(l->x[h->from]) || isnan(l->x[h->to]))
			continue; /* show_slices_pick draws both ends */
		show_link_geom(m, l, h->from, h->to, OFFSET,
		               h->last ? v->trim : 0, &g);
		tb_printf(b, "<path class=\"hop%s%s\" d=\"", hot ? " hot" : "",
		          h->last ? " last" : "");
		path_d(v, ox, oy, &g, !h->last);
		tb_printf(b, "\"");
		if (h->last)
			tb_printf(b, " marker-end=\"url(#ccp-head%s)\"",
			          hot ? "-hot" : "");
		else
			tb_printf(b, " marker-mid=\"url(#ccp-step%s)\"",
			          hot ? "-hot" : "");
		tb_printf(b, "/>\n");
	}
	int co[IR_MAX_CUBE_DIM];
	int32_t root = -1;
	switch (v->p->comm.coll) {
	case IR_BCAST:
	case IR_SCATTER:
	case IR_GATHER:
	case IR_REDUCE:
		root = v->p->comm.root;
		break;
	default:
		break;
	}
	for (int32_t r = 0; r < l->n; r++) {
		if (isnan(l->x[r]))
			continue; /* a slice not drawn */
		if (v->nodes) {
			draw_node(v, ph, r, root, ox, oy);
			continue;
		}
		tb_printf(b,
		          "<circle class=\"rank%s%s%s\" cx=\"%.2f\" "
		          "cy=\"%.2f\" r=\"%.2f\"",
		          v->held[r] ? " held" : "",
		          v->got && v->got[r] ? " got" : "",
		          r == root ? " root" : "",
		          X(v, ox, l->x[r]), Y(v, oy, l->y[r]),
		          v->held[r] || r == root
		                  ? fmax(v->radius * v->s,
		                         fmin(MIN_MARK, 0.42 * v->s))
		                  : v->radius * v->s);
		if (!v->labels) {
			tb_printf(b, "/>\n");
			continue;
		}
		/* a tooltip: the rank and its coordinates */
		ir_coords(m, r, co);
		tb_printf(b, "><title>rank %d", (int)r);
		if (m->topo == IR_MESH || m->topo == IR_TORUS) {
			tb_printf(b, " (");
			for (int d = 0; d < m->ndims; d++)
				tb_printf(b, "%s%d", d ? ", " : "", co[d]);
			tb_printf(b, ")");
		} else if (m->topo == IR_HPAM) {
			tb_printf(b, " (row %d, column %d, level %d)", co[1],
			          co[0], co[2] + 1);
		}
		tb_printf(b, "</title></circle>\n");
		tb_printf(b,
		          "<text class=\"rank-label\" x=\"%.2f\" y=\"%.2f\">%d"
		          "</text>\n",
		          X(v, ox, l->x[r]), Y(v, oy, l->y[r]), (int)r);
	}
	for (size_t k = 0; ph && k < ph->nlinks; k++) {
		const struct show_link *h = &ph->links[k];
		if (h->load < 2)
			continue;
		show_link_geom(m, l, h->from, h->to, OFFSET, 0, &g);
		tb_printf(b,
		          "<text class=\"load\" x=\"%.2f\" y=\"%.2f\">%u"
		          "</text>\n",
		          X(v, ox, g.lx), Y(v, oy, g.ly), h->load);
	}
}

/* The style sheet and the two arrowheads, sized for scale s. */
static void style(struct svg *v)
{
	struct tbuf *b = v->b;
	double s = v->s;
	double hw = fmax(1.3, 0.07 * s), lw = fmax(0.5, 0.035 * s);
	double rw = fmax(0.6, 0.03 * s), fs = fmax(7.5, fmin(14, 0.34 * s));
	/* the node rules first, so that held and root (after them) fill
	 * a node as they fill a rank */
	tb_printf(b, "<style>\n");
	if (v->nodes)
		tb_printf(b,
		          ".node,.key-node{fill:#ffffff;stroke:#444444;"
		          "stroke-width:%.2f}\n"
		          ".part,.key-part{fill:#e5f5e0;stroke:#31a354}\n"
		          ".node-count{font-size:%.1fpx;text-anchor:middle;"
		          "dominant-baseline:central;fill:#222222}\n"
		          ".got+.node-count{fill:#ffffff}\n"
		          ".shm,.key-shm{fill:none;stroke:#7b3294;"
		          "stroke-width:%.2f;stroke-dasharray:3 2}\n"
		          ".shm-count{fill:#7b3294;font-weight:bold;"
		          "font-size:%.1fpx}\n",
		          1.5 * rw, fmax(6, 0.2 * s), fmax(0.8, 0.6 * hw),
		          fmax(7, 0.22 * s));
	tb_printf(b,
	          ".link{fill:none;stroke:#d4d4d4;stroke-width:%.2f}\n"
	          ".crossbar{fill:#eeeeee;stroke:#999999}\n"
	          ".rank,.key-rank{fill:#ffffff;stroke:#666666;"
	          "stroke-width:%.2f}\n"
	          ".held,.key-held{fill:#a1d99b;stroke:#31a354}\n"
	          ".got,.key-got{fill:#238b45;stroke:#00441b}\n"
	          ".got+.rank-label{fill:#ffffff}\n"
	          ".root,.key-root{fill:#fd8d3c;stroke:#a63603}\n"
	          ".hop,.key-hop{fill:none;stroke:#2b5fb4;stroke-width:%.2f;"
	          "stroke-linecap:round}\n"
	          ".hot,.key-hot{stroke:#e31a1c}\n"
	          ".load{fill:#e31a1c;font-weight:bold;font-size:%.1fpx;"
	          "text-anchor:middle;dominant-baseline:central;"
	          "paint-order:stroke;stroke:#ffffff;stroke-width:2.5px}\n"
	          ".rank-label{font-size:%.1fpx;text-anchor:middle;"
	          "dominant-baseline:central;fill:#222222}\n"
	          ".title{font-size:15px;font-weight:bold}\n"
	          ".subtitle{font-size:12px;fill:#333333}\n"
	          ".phase-label{font-size:12px;font-weight:bold}\n"
	          ".phase-stats{font-size:10.5px;font-weight:normal;"
	          "fill:#333333}\n"
	          ".plane-label{font-size:11px;fill:#555555;"
	          "text-anchor:middle}\n"
	          ".level-label{font-size:11px;fill:#555555;"
	          "dominant-baseline:central}\n"
	          ".legend text{font-size:11px;fill:#333333;"
	          "dominant-baseline:central}\n",
	          lw, rw, hw, fs, fmax(7, 0.26 * s));

	if (v->sl)
		tb_printf(b, ".slice-label{font-size:11px;fill:#555555;"
		             "text-anchor:middle}\n");
	tb_printf(b, "</style>\n");
	/* heads in page units, tip a little past the path's end; the
	 * smaller step marks sit half way along a route's other hops */
	for (int hot = 0; hot < 2; hot++) {
		tb_printf(
		        b,
		        "<marker id=\"ccp-head%s\" viewBox=\"0 0 10 10\" "
		        "refX=\"7\" refY=\"5\" markerUnits=\"userSpaceOnUse\" "
		        "markerWidth=\"%.2f\" markerHeight=\"%.2f\" "
		        "orient=\"auto\"><path d=\"M0 0L10 5L0 10z\" "
		        "fill=\"%s\"/></marker>\n",
		        hot ? "-hot" : "", v->head, v->head,
		        hot ? "#e31a1c" : "#2b5fb4");
		tb_printf(
		        b,
		        "<marker id=\"ccp-step%s\" viewBox=\"0 0 10 10\" "
		        "refX=\"5\" refY=\"5\" markerUnits=\"userSpaceOnUse\" "
		        "markerWidth=\"%.2f\" markerHeight=\"%.2f\" "
		        "orient=\"auto\"><path d=\"M1 1L9 5L1 9\" "
		        "fill=\"none\" stroke=\"%s\" stroke-width=\"2.2\"/>"
		        "</marker>\n",
		        hot ? "-hot" : "", v->head * 0.75, v->head * 0.75,
		        hot ? "#e31a1c" : "#2b5fb4");
	}
	if (v->nodes)
		tb_printf(b,
		          "<marker id=\"ccp-shm\" viewBox=\"0 0 10 10\" "
		          "refX=\"7\" refY=\"5\" "
		          "markerUnits=\"userSpaceOnUse\" markerWidth=\"%.2f\" "
		          "markerHeight=\"%.2f\" orient=\"auto\"><path "
		          "d=\"M0 0L10 5L0 10z\" fill=\"#7b3294\"/></marker>\n",
		          v->head * 0.7, v->head * 0.7);
}

/* The key along the bottom of the page. */
static void legend(struct svg *v, double y)
{
	struct tbuf *b = v->b;
	double x = PAD + 6;
	tb_printf(b, "<g class=\"legend\">\n");
	static const char *const what[4][2] = {
	        {"key-root", "root"},
	        {"key-held key-got", "received in this phase"},
	        {"key-held", "held data before"},
	        {"key-rank", "no data yet"}};
	static const char *const node_what[4] = {
	        "holds the root", "a rank received in this phase",
	        "every rank holds data", "no data yet"};
	for (int k = 0; k < 4; k++) {
		if (k == 0 && !(ir_coll_kind(v->p->comm.coll) & IR_CK_ROOTED))
			continue;
		const char *text = v->nodes ? node_what[k] : what[k][1];
		if (v->nodes)
			tb_printf(b,
			          "<rect class=\"key-node %s\" x=\"%.1f\" "
			          "y=\"%.1f\" width=\"12\" height=\"12\" "
			          "rx=\"3\"/>",
			          what[k][0], x - 6, y - 6);
		else
			tb_printf(b,
			          "<circle class=\"key-rank %s\" cx=\"%.1f\" "
			          "cy=\"%.1f\" r=\"6\"/>",
			          what[k][0], x, y);
		tb_printf(b, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
		          x + 10, y, text);
		x += 22 + 6.2 * (double)strlen(text);
	}
	tb_printf(b,
	          "<path class=\"key-hop\" d=\"M%.1f %.1fL%.1f %.1f\" "
	          "marker-end=\"url(#ccp-head)\"/><text x=\"%.1f\" "
	          "y=\"%.1f\">a transfer, hop by hop</text>\n",
	          x, y, x + 26, y, x + 32, y);
	x += 32 + 6.2 * 22 + 12;
	tb_printf(b,
	          "<path class=\"key-hop key-hot\" d=\"M%.1f %.1fL%.1f %.1f\" "
	          "marker-end=\"url(#ccp-head-hot)\"/><text x=\"%.1f\" "
	          "y=\"%.1f\">n &gt; 1 transfers on one link</text>\n",
	          x, y, x + 26, y, x + 32, y);
	if (v->nodes) {
		/* the second line: what a node's marks say */
		x = PAD + 6;
		y += 18;
		tb_printf(b,
		          "<rect class=\"key-node key-part\" x=\"%.1f\" "
		          "y=\"%.1f\" width=\"12\" height=\"12\" rx=\"3\"/>"
		          "<text x=\"%.1f\" y=\"%.1f\">some ranks hold data"
		          "</text>\n",
		          x - 6, y - 6, x + 10, y);
		x += 22 + 6.2 * 20;
		tb_printf(b,
		          "<text x=\"%.1f\" y=\"%.1f\">s3 r2: 3 ranks of "
		          "the node send in the phase, 2 receive</text>\n",
		          x, y);
		x += 6.2 * 50 + 12;
		tb_printf(b,
		          "<path class=\"key-shm\" d=\"M%.1f %.1fA7 7 0 1 1 "
		          "%.1f %.1f\" marker-end=\"url(#ccp-shm)\"/>"
		          "<text x=\"%.1f\" y=\"%.1f\">n transfers inside "
		          "the node (shared memory)</text>\n",
		          x, y + 4, x + 14, y + 4, x + 22, y);
	}
	tb_printf(b, "</g>\n");
}

/* CCP_ENOTAPPLY for a picture too large to be of use: more than
 * SHOW_MAX_PANELS phases for --all (show_check_phase), or more than
 * MAX_HOPS hops. */
static int check_size(const ir_plan *p, int phase, char *err, size_t errlen)
{
	const ir_machine *m = &p->machine;
	uint64_t *route = malloc(((size_t)ir_route_max(m) + 1) * sizeof *route);
	if (!route) {
		snprintf(err, errlen, "out of memory");
		return CCP_ENOMEM;
	}
	uint32_t first = phase < 0 ? 0 : (uint32_t)phase;
	uint32_t last = phase < 0 ? p->nphases : first + 1;
	uint64_t hops = 0;
	for (uint32_t k = first; k < last && hops <= MAX_HOPS; k++) {
		const ir_phase *f = &p->phases[k];
		for (uint32_t t = f->transfer;
		     t < f->transfer + f->ntransfers && hops <= MAX_HOPS; t++) {
			int h = ir_route_xfer(m, &p->transfers[t], route);
			hops += h > 0 ? (uint64_t)h : 0;
		}
	}
	free(route);
	if (hops > MAX_HOPS) {
		snprintf(err, errlen,
		         "%s has more than %d hops to draw, too many for one "
		         "picture%s",
		         phase < 0 ? "the plan" : "the phase", MAX_HOPS,
		         phase < 0 ? ": give --phase K" : "");
		return CCP_ENOTAPPLY;
	}
	return 0;
}

/* An n-D machine with more busy slices than a picture holds: one cell
 * per slice, in rows of z values (32 to a row when z has more), the busy
 * ones shaded and labelled with the transfers leaving their nodes, each
 * with a tooltip naming the slice and its transfers in and out and the
 * hops starting in it.  CCP_ENOTAPPLY above MAX_SUMMARY_SLICES. */
static int summary(const ir_plan *p, const struct show_opts *o,
                   const struct show_slices *sl, struct tbuf *b, char *err,
                   size_t errlen)
{
	const ir_machine *m = &p->machine;
	if (sl->total > MAX_SUMMARY_SLICES) {
		snprintf(err, errlen,
		         "%d slices of %dx%d nodes carry transfers, too many "
		         "to draw, and the machine's %d slices are too many "
		         "to summarise (up to %d)",
		         (int)sl->busy, m->dims[0], m->dims[1], (int)sl->total,
		         MAX_SUMMARY_SLICES);
		return CCP_ENOTAPPLY;
	}
	const double cw = 40, chh = 24; /* a cell, pixels */
	int32_t cols = m->dims[2] <= 32 ? m->dims[2] : 32;
	int32_t rows = (sl->total + cols - 1) / cols;
	bool named = cols == m->dims[2]; /* rows and columns have names */
	double lab = named ? 8.0 + 7.0 * 4 * (m->ndims - 3) : 0;
	double top = HEAD + 36 + (named ? 16 : 0); /* two subtitle lines */
	double W = fmax(640.0, 2 * PAD + lab + cols * cw);
	double H = top + rows * chh + FOOT + PAD;
	bool all = o->phase < 0;
	uint64_t xfers = 0;
	for (int32_t k = 0; k < sl->total; k++)
		xfers += sl->sends[k];
	char comm[128], shape[160], title[640], name[96];
	comm_line(p, comm, sizeof comm);
	show_shape_name(m, shape, sizeof shape);
	title_line(p, o, comm, shape, title, sizeof title);
	W = fmax(W, 9.0 * (double)strlen(title) + 2 * PAD);
	doc_open(b, W, H);
	plot_text(b, title);
	tb_printf(b, ", slices</title>\n<desc>ccplan show: a summary of the "
	             "slices of the machine, too many to draw: each cell is "
	             "one (x, y) slice, shaded when transfers pass through "
	             "it, with the number of transfers leaving it.</desc>\n");
	tb_printf(b,
	          "<style>\n"
	          ".title{font-size:15px;font-weight:bold}\n"
	          ".subtitle{font-size:12px;fill:#333333}\n"
	          ".slice{fill:#ffffff;stroke:#bbbbbb}\n"
	          ".busy{fill:#c6dbef;stroke:#2b5fb4}\n"
	          ".slice-count{font-size:10px;text-anchor:middle;"
	          "dominant-baseline:central;fill:#222222}\n"
	          ".slice-label{font-size:10px;fill:#555555;"
	          "dominant-baseline:central}\n"
	          "</style>\n");
	page_heading(b, W, H, title);
	if (all)
		tb_printf(b, "every phase, %u in all", p->nphases);
	else
		tb_printf(b, "phase %d of %u (numbered from 0)", o->phase,
		          p->nphases);
	tb_printf(b,
	          ": %llu transfer%s; %d of %d slices (x, y planes of "
	          "%dx%d nodes) carry transfers, more than a picture draws"
	          "</text>\n<text class=\"subtitle\" x=\"%.0f\" y=\"56\">"
	          "(%d slices, %d nodes): a summary, one cell per slice with "
	          "the transfers leaving it</text>\n",
	          (unsigned long long)xfers, xfers == 1 ? "" : "s",
	          (int)sl->busy, (int)sl->total, m->dims[0], m->dims[1], PAD,
	          MAX_SLICES, SHOW_MAX_RANKS);
	tb_printf(b, "<g class=\"panel\">\n");
	if (named)
		for (int32_t c = 0; c < cols; c++)
			tb_printf(b,
			          "<text class=\"slice-label\" x=\"%.1f\" "
			          "y=\"%.1f\" text-anchor=\"middle\">z=%d"
			          "</text>\n",
			          PAD + lab + (c + 0.5) * cw, top - 9, (int)c);
	for (int32_t k = 0; k < sl->total; k++) {
		double x = PAD + lab + (k % cols) * cw;
		double y = top + (k / cols) * chh;
		show_slice_label(m, k, name, sizeof name);
		if (named && k % cols == 0)
			/* the row's coordinates above z */
			tb_printf(b,
			          "<text class=\"slice-label\" x=\"%.1f\" "
			          "y=\"%.1f\">%s</text>\n",
			          PAD, y + chh / 2, strchr(name, ' ') + 1);
		tb_printf(b,
		          "<rect class=\"slice%s\" x=\"%.1f\" y=\"%.1f\" "
		          "width=\"%.1f\" height=\"%.1f\"><title>%s: "
		          "transfers out %u, in %u; hops starting here %llu"
		          "</title></rect>\n",
		          sl->is_busy[k] ? " busy" : "", x + 1, y + 1, cw - 2,
		          chh - 2, name, sl->sends[k], sl->recvs[k],
		          (unsigned long long)sl->hops[k]);
		if (sl->sends[k])
			tb_printf(b,
			          "<text class=\"slice-count\" x=\"%.1f\" "
			          "y=\"%.1f\">%u</text>\n",
			          x + cw / 2, y + chh / 2, sl->sends[k]);
	}
	tb_printf(b, "</g>\n");
	return doc_close(b, err, errlen);
}

static int matrix_svg(const ir_plan *p, const struct show_opts *o,
                      struct tbuf *b, char *err, size_t errlen);

int show_svg(const ir_plan *p, const struct show_opts *o, struct tbuf *out,
             char *err, size_t errlen)
{
	int rc_phase = show_check_drawable(&p->machine, err, errlen);
	if (!rc_phase)
		rc_phase = show_check_phase(p->nphases, o->phase, true, err,
		                            errlen);
	if (rc_phase)
		return rc_phase;
	if (!o->arrows && show_is_matrix(p))
		return matrix_svg(p, o, out, err, errlen);
	struct svg v;
	memset(&v, 0, sizeof v);
	v.p = p;
	v.o = o;
	v.b = out;
	const ir_machine *m = &p->machine;
	struct show_slices sl;
	memset(&sl, 0, sizeof sl);
	int rc;
	if (show_is_sliced(m)) {
		rc = show_slices_pick(p, o->phase, MAX_SLICES, SHOW_MAX_RANKS,
		                      &sl, err, errlen);
		if (rc)
			return rc;
		if (sl.summary) {
			rc = summary(p, o, &sl, out, err, errlen);
			show_slices_fini(&sl);
			return rc;
		}
		v.sl = &sl;
	}
	v.nodes = ir_machine_has_nodes(m);
	rc = show_layout_make(m, v.sl, &v.l, err, errlen);
	if (rc) {
		show_slices_fini(&sl);
		return rc;
	}
	bool all = o->phase < 0;
	uint32_t npanels = all ? (p->nphases ? p->nphases : 1) : 1;
	if ((rc = check_size(p, o->phase, err, errlen)) != 0) {
		show_layout_fini(&v.l);
		show_slices_fini(&sl);
		return rc;
	}
	double uw = v.l.w + 2 * MARGIN, uh = v.l.h + 2 * MARGIN;
	uint32_t cols = 1;
	if (all) {
		cols = (uint32_t)ceil(sqrt(npanels * 1.3 * uh / uw));
		if (cols < 1)
			cols = 1;
		if (cols > 6) /* panels stay wide enough for labels */
			cols = 6;
		if (cols > npanels)
			cols = npanels;
		v.s = fmin(1100.0 / cols / uw, 640.0 / uh);
		v.s = fmax(MIN_STEP_ALL, fmin(60.0, v.s));
	} else {
		v.s = fmin(1200.0 / uw, 720.0 / uh);
		v.s = fmax(MIN_STEP, fmin(60.0, v.s));
	}
	uint32_t rows = (npanels + cols - 1) / cols;
	v.head = fmax(6.0, fmin(13.0, 0.24 * v.s));
	v.radius = fmax(0.17, fmin(RADIUS, RADIUS - (30 - v.s) * 0.006));
	v.trim = v.radius + 0.2 * v.head / v.s;
	v.labels = !all && v.s >= 28 && m->nranks < 1000;
	bool planes = (m->topo == IR_MESH || m->topo == IR_TORUS) &&
	              m->ndims >= 3; /* room for plane or slice labels */
	v.top = (all ? 30.0 : 0.0) + (planes ? 14.0 : 0.0);
	v.pw = uw * v.s + (m->topo == IR_HPAM ? LEVEL_NAMES : 0);
	v.ph = v.top + uh * v.s;
	double gw = cols * v.pw + (cols - 1) * PAD;
	char comm[128], shape[96], mach[256], title[640];
	comm_line(p, comm, sizeof comm);
	show_shape_name(m, shape, sizeof shape);
	explain_machine(m, mach, sizeof mach);
	title_line(p, o, comm, shape, title, sizeof title);
	/* wide enough for the heading (bold 15px: about 9px a letter)
	 * and the legend */
	double W = fmax(gw + 2 * PAD, v.nodes ? 960.0 : 860.0); /* the key */
	W = fmax(W, 9.0 * (double)strlen(title) + 2 * PAD);
	double foot = FOOT + (v.nodes ? 18 : 0); /* the key: 1 or 2 lines */
	double H = HEAD + rows * v.ph + (rows - 1) * PAD + foot + PAD;
	double gx = (W - gw) / 2;

	v.held = malloc((size_t)m->nranks * sizeof *v.held);
	v.got = malloc((size_t)m->nranks * sizeof *v.got);
	if (!v.held || !v.got) {
		free(v.held);
		free(v.got);
		show_layout_fini(&v.l);
		show_slices_fini(&sl);
		snprintf(err, errlen, "out of memory");
		return CCP_ENOMEM;
	}
	show_held_start(p, v.held);

	struct tbuf *b = out;
	doc_head(b, p, o, W, H, comm, mach,
	         "Each transfer is drawn along its route, hop by hop, with a "
	         "head on its last hop; links carrying more than one "
	         "transfer in red with their count; the root and the ranks "
	         "holding data after the phase shaded, darker those that "
	         "receive in it.");
	style(&v);
	tb_printf(b,
	          "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
	          W, H);
	/* heading: what, then the phase's numbers */
	tb_printf(b, "<text class=\"title\" x=\"%.0f\" y=\"22\">", PAD);
	plot_text(b, title);
	tb_printf(b, "</text>\n");

	struct show_phase ph;
	memset(&ph, 0, sizeof ph);
	uint32_t first = all ? 0 : (uint32_t)o->phase;
	for (uint32_t k = 0; !all && k < first; k++)
		show_held_apply(p, k, v.held);
	uint64_t hops = 0, xfers = 0, shm = 0;
	uint32_t maxload = 0;
	for (uint32_t i = 0; i < npanels; i++) {
		uint32_t k = first + i;
		bool have = k < p->nphases;
		if (have) {
			rc = show_phase_make(p, k, &ph, err, errlen);
			if (rc)
				goto out;
			show_held_apply(p, k, v.held);
			/* the receivers of this phase alone */
			memset(v.got, 0, (size_t)m->nranks * sizeof *v.got);
			show_held_apply(p, k, v.got);
			hops += ph.nhops;
			xfers += ph.ntransfers;
			shm += ph.shm;
			if (ph.max_load > maxload)
				maxload = ph.max_load;
		}
		double ox = gx + (i % cols) * (v.pw + PAD);
		double oy = HEAD + (i / cols) * (v.ph + PAD);
		tb_printf(b, "<g class=\"panel\">\n");
		if (all) {
			if (have)
				tb_printf(b,
				          "<text class=\"phase-label\" "
				          "x=\"%.2f\" y=\"%.2f\">phase %u"
				          "<tspan class=\"phase-stats\" "
				          "x=\"%.2f\" dy=\"13\">%u transfer%s, "
				          "max link load %u</tspan></text>\n",
				          ox, oy + 12, k, ox, ph.ntransfers,
				          ph.ntransfers == 1 ? "" : "s",
				          ph.max_load);
			else
				tb_printf(b,
				          "<text class=\"phase-label\" "
				          "x=\"%.2f\" "
				          "y=\"%.2f\">no phases</text>\n",
				          ox, oy + 13);
		}
		draw_machine(&v, ox, oy);
		draw_phase(&v, have ? &ph : NULL, ox, oy);
		tb_printf(b, "</g>\n");
		show_phase_fini(&ph);
	}
	tb_printf(b, "<text class=\"subtitle\" x=\"%.0f\" y=\"40\">", PAD);
	phase_line(b, p, o);
	tb_printf(b, ": %llu transfer%s, %llu hops, max link load %u",
	          (unsigned long long)xfers, xfers == 1 ? "" : "s",
	          (unsigned long long)hops, maxload);
	if (v.nodes)
		tb_printf(b, ", %llu inside nodes", (unsigned long long)shm);
	if (v.sl && sl.only_busy)
		tb_printf(b,
		          "; %d of %d slices drawn: those the transfers "
		          "pass through, and the root's",
		          (int)sl.n, (int)sl.total);
	else if (v.sl)
		tb_printf(b, "; %d slices", (int)sl.total);
	tb_printf(b, "</text>\n");
	legend(&v, H - PAD - foot / 2 - (v.nodes ? 9 : 0));
	rc = doc_close(b, err, errlen);
out:
	free(v.held);
	free(v.got);
	show_layout_fini(&v.l);
	show_slices_fini(&sl);
	return rc;
}

/* ---- link loads of a placement (--heat) ------------------------------ */

/* Most heat-scale boxes in the key: one per value up to this, else this
 * many steps. */
#define HEAT_STEPS 10

/* One panel of a heat map: the plan's machine with the ranks where the
 * panel puts them, and what the pattern puts on each directed link. */
struct heat_panel {
	ir_machine m;     /* the machine, placed (place: borrowed or made) */
	uint32_t *phases; /* per directed link: its messages over its
	                     capacity, rounded up (ir_link_phases) */
	uint32_t max;     /* the largest of them */
	uint32_t bound;   /* sch_place_eval: the phase bound */
	uint32_t link;    /* its link term */
	uint64_t hops;    /* hops of every message */
	char label[320];  /* the panel's heading: who placed the ranks */
};

/* The heat colour of v on a scale to max (v >= 1): yellow to dark red
 * through five stops (ColorBrewer's YlOrRd), by v / max. */
static void heat_colour(uint32_t v, uint32_t max, char out[8])
{
	static const unsigned char stop[5][3] = {{0xfe, 0xd9, 0x76},
	                                         {0xfe, 0xb2, 0x4c},
	                                         {0xfd, 0x8d, 0x3c},
	                                         {0xf0, 0x3b, 0x20},
	                                         {0xbd, 0x00, 0x26}};
	double t = max > 1 ? (double)(v - 1) / (double)(max - 1) : 1.0;
	t = fmin(1.0, fmax(0.0, t)) * 4;
	int k = t >= 4 ? 3 : (int)t;
	double f = t - k;
	unsigned char c[3];
	for (int i = 0; i < 3; i++)
		c[i] = (unsigned char)lround(stop[k][i] +
		                             f * (stop[k + 1][i] - stop[k][i]));
	snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* The key of a heat scale at (x, y): what the values are (text), then
 * one box per value up to max (or HEAT_STEPS steps), each in its
 * heat_colour with the value under it; none says so when max is 0. */
static void heat_key(struct tbuf *b, double kx, double ky, uint32_t max,
                     const char *text, const char *none)
{
	uint32_t steps = max < HEAT_STEPS ? max : HEAT_STEPS;
	tb_printf(b, "<g class=\"legend heat-scale\">\n");
	tb_printf(b, "<text x=\"%.1f\" y=\"%.1f\">", kx, ky);
	plot_text(b, text);
	tb_printf(b, "</text>\n");
	kx += 6.0 * (double)strlen(text) + 8;
	for (uint32_t i = 1; i <= steps; i++) {
		uint32_t val =
		        steps == max ? i
		                     : (uint32_t)lround(
		                               1 + (double)(i - 1) * (max - 1) /
		                                           (steps - 1));
		char col[8];
		heat_colour(val, max, col);
		tb_printf(b,
		          "<rect x=\"%.1f\" y=\"%.1f\" width=\"26\" "
		          "height=\"12\" fill=\"%s\"/><text x=\"%.1f\" "
		          "y=\"%.1f\" text-anchor=\"middle\">%u</text>\n",
		          kx, ky - 6, col, kx + 13, ky + 14, val);
		kx += 28;
	}
	if (max == 0)
		tb_printf(b, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", kx,
		          ky, none);
	tb_printf(b, "</g>\n");
}

/* Route every message of x on the panel's machine and count it on each
 * link; the bound and hops as the verifier judges them. */
static int heat_count(struct heat_panel *h, const ir_matrix *x,
                      const int32_t *node)
{
	const ir_machine *m = &h->m;
	uint64_t nl = ir_nlinks(m);
	uint32_t *load = calloc(nl ? nl : 1, sizeof *load);
	uint64_t *route = malloc(((size_t)ir_route_max(m) + 1) * sizeof *route);
	h->phases = calloc(nl ? nl : 1, sizeof *h->phases);
	int rc = CCP_ENOMEM;
	if (!load || !route || !h->phases)
		goto out;
	for (int32_t s = 0; s < x->n; s++)
		for (int64_t i = x->row[s]; i < x->row[s + 1]; i++) {
			int n = ir_route(m, s, x->dst[i], route);
			for (int j = 0; j < n; j++)
				load[route[j]]++;
		}
	for (uint64_t l = 0; l < nl; l++) {
		h->phases[l] = load[l] ? ir_link_phases(m, l, load[l]) : 0;
		if (h->phases[l] > h->max)
			h->max = h->phases[l];
	}
	rc = sch_place_eval(m, x, node, &h->bound, &h->link, &h->hops);
out:
	free(load);
	free(route);
	return rc;
}

/* One heat panel at (ox, oy): the machine's links faint, each directed
 * link the pattern uses in its heat colour (on the right of its
 * direction, as hops are), with a tooltip; the ranks on their nodes. */
static void heat_draw(struct svg *v, const struct heat_panel *h, uint32_t max,
                      double ox, double oy)
{
	const ir_machine *m = &h->m;
	const struct show_layout *l = &v->l;
	struct tbuf *b = v->b;
	struct show_geom g;
	uint64_t nl = ir_nlinks(m);
	char col[8];
	draw_machine(v, ox, oy);
	for (uint64_t id = 0; id < nl; id++) {
		int32_t a, c;
		if (!h->phases[id] || ir_link_ends(m, id, &a, &c))
			continue;
		show_link_geom(m, l, a, c, OFFSET, v->trim, &g);
		heat_colour(h->phases[id], max, col);
		tb_printf(b, "<path class=\"heat\" stroke=\"%s\" d=\"", col);
		path_d(v, ox, oy, &g, false);
		tb_printf(b,
		          "\"><title>link %d -> %d: %u phase%s of "
		          "messages</title></path>\n",
		          (int)a, (int)c, h->phases[id],
		          h->phases[id] == 1 ? "" : "s");
	}
	for (int32_t nd = 0; nd < l->n; nd++) {
		double cx = X(v, ox, l->x[nd]), cy = Y(v, oy, l->y[nd]);
		if (v->nodes) {
			draw_node(v, NULL, nd, -1, ox, oy);
			continue;
		}
		int32_t r = ir_node_rank(m, nd, 0);
		tb_printf(b,
		          "<circle class=\"rank\" cx=\"%.2f\" cy=\"%.2f\" "
		          "r=\"%.2f\"><title>rank %d on node %d</title>"
		          "</circle>\n",
		          cx, cy, v->radius * v->s, (int)r, (int)nd);
		if (v->labels)
			tb_printf(b,
			          "<text class=\"rank-label\" x=\"%.2f\" "
			          "y=\"%.2f\">%d</text>\n",
			          cx, cy, (int)r);
	}
}

int show_heat_svg(const ir_plan *p, const int32_t *node, const char *label,
                  const struct show_opts *o, struct tbuf *out, char *err,
                  size_t errlen)
{
	const ir_machine *m = &p->machine;
	const ir_matrix *x = p->comm.matrix;
	struct heat_panel hp[2];
	struct svg v;
	int32_t *ident = NULL, bad;
	int rc;

	memset(hp, 0, sizeof hp);
	memset(&v, 0, sizeof v);
	if (p->comm.coll != IR_IRREGULAR || !x) {
		snprintf(err, errlen,
		         "--heat draws the link loads of an irregular "
		         "pattern; this plan is a %s",
		         ir_coll_name(p->comm.coll));
		return CCP_ENOTAPPLY;
	}
	if ((rc = show_check_drawable(m, err, errlen)) != 0)
		return rc;
	if (show_is_sliced(m) || m->topo == IR_SWITCH) {
		snprintf(err, errlen,
		         "--heat draws meshes and tori of 1-3 dimensions, "
		         "hypercubes and HPAM machines%s",
		         m->topo == IR_SWITCH
		                 ? "; on a switch every pair of ranks has its "
		                   "own link, wherever the ranks sit"
		                 : "");
		return CCP_ENOTAPPLY;
	}
	if (!(ident = malloc((size_t)m->nranks * sizeof *ident))) {
		snprintf(err, errlen, "out of memory");
		return CCP_ENOMEM;
	}
	for (int32_t r = 0; r < m->nranks; r++)
		ident[r] = ir_node_of(m, r);
	hp[0].m = *m;
	snprintf(hp[0].label, sizeof hp[0].label, "as the plan places them");
	hp[1].m = *m;
	snprintf(hp[1].label, sizeof hp[1].label, "as %s places them", label);
	hp[1].m.place =
	        ir_place_from_nodes(node, m->nranks, m->nnodes,
	                            m->ranks_per_node, &rc, &bad, err, errlen);
	hp[1].m.placement = IR_PLACE_MAP;
	if (!hp[1].m.place)
		goto out;
	if ((rc = heat_count(&hp[0], x, ident)) != 0 ||
	    (rc = heat_count(&hp[1], x, node)) != 0) {
		snprintf(err, errlen, "%s", ccp_strerror(rc));
		goto out;
	}
	uint32_t max = hp[0].max > hp[1].max ? hp[0].max : hp[1].max;

	v.p = p;
	v.o = o;
	v.b = out;
	v.nodes = ir_machine_has_nodes(m);
	/* nodes are drawn as boxes that would be shaded by the ranks
	 * holding data: none here */
	if (!(v.held = calloc((size_t)m->nranks, sizeof *v.held))) {
		snprintf(err, errlen, "out of memory");
		rc = CCP_ENOMEM;
		goto out;
	}
	if ((rc = show_layout_make(m, NULL, &v.l, err, errlen)) != 0)
		goto out;
	double uw = v.l.w + 2 * MARGIN, uh = v.l.h + 2 * MARGIN;
	v.s = fmax(6.0, fmin(60.0, fmin(560.0 / uw, 640.0 / uh)));
	v.head = fmax(6.0, fmin(13.0, 0.24 * v.s));
	v.radius = fmax(0.17, fmin(RADIUS, RADIUS - (30 - v.s) * 0.006));
	v.trim = v.radius;
	v.labels = v.s >= 28 && m->nranks < 1000;
	bool planes =
	        (m->topo == IR_MESH || m->topo == IR_TORUS) && m->ndims >= 3;
	v.top = 34.0 + (planes ? 14.0 : 0.0);
	v.pw = uw * v.s + (m->topo == IR_HPAM ? LEVEL_NAMES : 0);
	v.ph = v.top + uh * v.s;
	double gw = 2 * v.pw + 3 * PAD;
	char comm[128], shape[96], mach[256], title[640];
	snprintf(comm, sizeof comm, "irregular pattern of %lld messages",
	         (long long)x->nnz);
	show_shape_name(m, shape, sizeof shape);
	explain_machine(m, mach, sizeof mach);
	snprintf(title, sizeof title, "%s%slink loads of an %s on a %s",
	         o->title ? o->title : "", o->title ? ": " : "", comm, shape);
	double W = fmax(gw + 2 * PAD, 720.0);
	W = fmax(W, 9.0 * (double)strlen(title) + 2 * PAD);
	double H = HEAD + v.ph + FOOT + 16 + PAD;
	double gx = (W - gw) / 2;

	struct tbuf *b = out;
	doc_open(b, W, H);
	plot_text(b, title);
	tb_printf(b, "</title>\n<desc>ccplan show --heat: an ");
	plot_text(b, comm);
	tb_printf(b, " on a ");
	plot_text(b, mach);
	tb_printf(b, ".  Each directed link the pattern's messages cross is "
	             "coloured by the phases they need on it (messages over "
	             "the link's capacity), left with the ranks where the plan "
	             "places them, right where ");
	plot_text(b, label);
	tb_printf(b, " places them; one colour scale for both.</desc>\n");
	style(&v);
	tb_printf(b,
	          "<style>\n.heat{fill:none;stroke-width:%.2f;"
	          "stroke-linecap:round}\n.panel-label{font-size:12px;"
	          "font-weight:bold}\n.panel-stats{font-size:10.5px;"
	          "font-weight:normal;fill:#333333}\n</style>\n",
	          fmax(2.0, 0.1 * v.s));
	tb_printf(b,
	          "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
	          W, H);
	tb_printf(b, "<text class=\"title\" x=\"%.0f\" y=\"22\">", PAD);
	plot_text(b, title);
	tb_printf(b,
	          "</text>\n<text class=\"subtitle\" x=\"%.0f\" y=\"40\">"
	          "phase bound %u -> %u (link term %u -> %u), hops %llu -> "
	          "%llu</text>\n",
	          PAD, hp[0].bound, hp[1].bound, hp[0].link, hp[1].link,
	          (unsigned long long)hp[0].hops,
	          (unsigned long long)hp[1].hops);
	for (int k = 0; k < 2; k++) {
		double ox = gx + k * (v.pw + 3 * PAD), oy = HEAD;
		/* the drawing reads the machine from the plan: this panel's
		 * (a shallow copy, for the nodes' tooltips) */
		ir_plan q = *p;
		q.machine = hp[k].m;
		v.p = &q;
		tb_printf(b, "<g class=\"panel\">\n");
		tb_printf(b,
		          "<text class=\"panel-label\" x=\"%.2f\" y=\"%.2f\">",
		          ox, oy + 12);
		plot_text(b, hp[k].label);
		tb_printf(b,
		          "<tspan class=\"panel-stats\" x=\"%.2f\" "
		          "dy=\"13\">phase bound %u, link term %u, busiest "
		          "link %u, %llu hops</tspan></text>\n",
		          ox, hp[k].bound, hp[k].link, hp[k].max,
		          (unsigned long long)hp[k].hops);
		heat_draw(&v, &hp[k], max, ox, oy);
		tb_printf(b, "</g>\n");
		v.p = p;
	}
	heat_key(b, PAD + 6, H - PAD - FOOT / 2 - 8, max,
	         "phases of messages a link carries (messages over its "
	         "capacity):",
	         "no message crosses a link");
	rc = doc_close(b, err, errlen);
out:
	show_layout_fini(&v.l);
	free(v.held);
	ir_place_release(hp[1].m.place);
	free(hp[0].phases);
	free(hp[1].phases);
	free(ident);
	return rc;
}

/* ---- a source x destination matrix ----------------------------------- */

/* Most cells along a side of a matrix: a larger machine puts a square
 * block of ranks in each cell (128 ranks on a side keep a cell of one
 * phase at 5 pixels or more). */
#define MATRIX_CELLS 128

bool show_is_matrix(const ir_plan *p)
{
	return p->machine.topo == IR_SWITCH || p->comm.coll == IR_ALLTOALL ||
	       p->comm.coll == IR_IRREGULAR;
}

/* What a matrix picture needs while it is written. */
struct matrix {
	int32_t n;     /* ranks */
	int32_t blk;   /* ranks per cell along a side */
	int32_t R;     /* cells along a side */
	double c;      /* a cell, pixels */
	double lm, tm; /* room left of and above the matrix, pixels */
	uint32_t *cnt; /* R x R: transfers of the phase in each cell */
	bool *before;  /* R x R: cells of earlier phases (one phase only) */
};

/* Count phase k's transfers into x->cnt; the largest count. */
static uint32_t matrix_count(const ir_plan *p, uint32_t k, struct matrix *x)
{
	memset(x->cnt, 0, (size_t)x->R * (size_t)x->R * sizeof *x->cnt);
	uint32_t max = 0;
	if (k >= p->nphases)
		return 0;
	const ir_phase *f = &p->phases[k];
	for (uint32_t t = f->transfer; t < f->transfer + f->ntransfers; t++) {
		const ir_transfer *e = &p->transfers[t];
		if (e->src < 0 || e->src >= x->n || e->dst < 0 ||
		    e->dst >= x->n)
			continue;
		size_t i = (size_t)(e->src / x->blk) * (size_t)x->R +
		           (size_t)(e->dst / x->blk);
		if (++x->cnt[i] > max)
			max = x->cnt[i];
	}
	return max;
}

/* The ranks of cell index i along a side: "5" or "32..63". */
static void matrix_ranks(const struct matrix *x, int32_t i, char *buf,
                         size_t len)
{
	int32_t a = i * x->blk, z = a + x->blk - 1;
	if (z >= x->n)
		z = x->n - 1;
	if (a == z)
		snprintf(buf, len, "%d", (int)a);
	else
		snprintf(buf, len, "%d..%d", (int)a, (int)z);
}

/* One matrix panel at (ox, oy): the frame (class matrix, data-n its
 * cells along a side), grid lines when the cells are few, the cells of
 * earlier phases grey (one phase only), the phase's cells in their heat
 * colour, rank ticks and the axes' names. */
static void matrix_draw(struct tbuf *b, const struct matrix *x, uint32_t max,
                        bool tips, double ox, double oy)
{
	double mx = ox + x->lm, my = oy + x->tm, side = x->R * x->c;
	char col[8], ra[32], rb[32];
	tb_printf(b,
	          "<rect class=\"matrix\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
	          "height=\"%.2f\" data-n=\"%d\" data-ranks-per-cell=\"%d\"/>\n",
	          mx, my, side, side, (int)x->R, (int)x->blk);
	if (x->R <= 32 && x->c >= 6) {
		tb_printf(b, "<path class=\"grid\" d=\"");
		for (int32_t i = 1; i < x->R; i++)
			tb_printf(b, "M%.2f %.2fH%.2fM%.2f %.2fV%.2f", mx,
			          my + i * x->c, mx + side, mx + i * x->c, my,
			          my + side);
		tb_printf(b, "\"/>\n");
	}
	size_t cells = (size_t)x->R * (size_t)x->R;
	for (size_t i = 0; x->before && i < cells; i++)
		if (x->before[i] && !x->cnt[i])
			tb_printf(b,
			          "<rect class=\"cell before\" x=\"%.2f\" "
			          "y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>\n",
			          mx + (double)(i % (size_t)x->R) * x->c,
			          my + (double)(i / (size_t)x->R) * x->c, x->c,
			          x->c);
	for (size_t i = 0; i < cells; i++) {
		if (!x->cnt[i])
			continue;
		heat_colour(x->cnt[i], max, col);
		tb_printf(b,
		          "<rect class=\"cell\" fill=\"%s\" x=\"%.2f\" y=\"%.2f\" "
		          "width=\"%.2f\" height=\"%.2f\"",
		          col, mx + (double)(i % (size_t)x->R) * x->c,
		          my + (double)(i / (size_t)x->R) * x->c, x->c, x->c);
		if (tips) {
			matrix_ranks(x, (int32_t)(i / (size_t)x->R), ra,
			             sizeof ra);
			matrix_ranks(x, (int32_t)(i % (size_t)x->R), rb,
			             sizeof rb);
			tb_printf(b,
			          "><title>%s -&gt; %s: %u transfer%s</title>"
			          "</rect>\n",
			          ra, rb, x->cnt[i], x->cnt[i] == 1 ? "" : "s");
		} else {
			tb_printf(b, "/>\n");
		}
	}
	/* ticks at rank multiples of a power of two, at most 8 a side */
	int32_t step = x->blk;
	while ((x->n + step - 1) / step > 8)
		step *= 2;
	for (int32_t r = 0; r < x->n; r += step) {
		double at = ((double)r / x->blk + 0.5) * x->c;
		tb_printf(b,
		          "<text class=\"matrix-tick\" x=\"%.2f\" y=\"%.2f\" "
		          "text-anchor=\"middle\">%d</text>\n"
		          "<text class=\"matrix-tick\" x=\"%.2f\" y=\"%.2f\" "
		          "text-anchor=\"end\" "
		          "dominant-baseline=\"central\">%d</text>\n",
		          mx + at, my - 4, (int)r, mx - 4, my + at, (int)r);
	}
	tb_printf(b,
	          "<text class=\"axis-title\" x=\"%.2f\" y=\"%.2f\" "
	          "text-anchor=\"middle\">destination \xe2\x86\x92</text>\n"
	          "<text class=\"axis-title\" x=\"%.2f\" y=\"%.2f\" "
	          "text-anchor=\"middle\" transform=\"rotate(-90 %.2f "
	          "%.2f)\">\xe2\x86\x90 source</text>\n",
	          mx + side / 2, my - 16, mx - 30, my + side / 2, mx - 30,
	          my + side / 2);
}

/* A switch, alltoall or irregular plan: a matrix per phase, a row per
 * source and a column per destination, each cell coloured by the
 * transfers of the phase in it on one heat scale (arrows between every
 * pair of ranks would be a tangle).  CCP_ENOTAPPLY for more cells than
 * a document holds, CCP_ENOMEM. */
static int matrix_svg(const ir_plan *p, const struct show_opts *o,
                      struct tbuf *b, char *err, size_t errlen)
{
	const ir_machine *m = &p->machine;
	struct matrix x = {.n = m->nranks};
	x.blk = (x.n + MATRIX_CELLS - 1) / MATRIX_CELLS;
	if (x.blk < 1)
		x.blk = 1;
	x.R = (x.n + x.blk - 1) / x.blk;
	bool all = o->phase < 0;
	uint32_t first = all ? 0 : (uint32_t)o->phase;
	uint32_t npanels = all ? (p->nphases ? p->nphases : 1) : 1;
	size_t cells = (size_t)x.R * (size_t)x.R;
	int rc = CCP_ENOMEM;
	x.cnt = malloc((cells ? cells : 1) * sizeof *x.cnt);
	if (!all)
		x.before = calloc(cells ? cells : 1, sizeof *x.before);
	if (!x.cnt || (!all && !x.before)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/* one scale for every panel; the cells of a document bounded */
	uint32_t max = 0;
	uint64_t drawn = 0, xfers = 0;
	for (uint32_t i = 0; i < npanels; i++) {
		uint32_t k = first + i, mk = matrix_count(p, k, &x);
		max = mk > max ? mk : max;
		for (size_t c = 0; c < cells; c++)
			drawn += x.cnt[c] != 0;
		xfers += k < p->nphases ? p->phases[k].ntransfers : 0;
	}
	if (drawn > MAX_HOPS) {
		snprintf(err, errlen,
		         "%llu matrix cells to draw, more than %d for one "
		         "picture%s",
		         (unsigned long long)drawn, MAX_HOPS,
		         all ? ": give --phase K" : "");
		rc = CCP_ENOTAPPLY;
		goto out;
	}
	for (uint32_t k = 0; !all && k < first; k++) {
		const ir_phase *f = &p->phases[k];
		for (uint32_t t = f->transfer; t < f->transfer + f->ntransfers;
		     t++) {
			const ir_transfer *e = &p->transfers[t];
			if (e->src >= 0 && e->src < x.n && e->dst >= 0 &&
			    e->dst < x.n)
				x.before[(size_t)(e->src / x.blk) *
				                 (size_t)x.R +
				         (size_t)(e->dst / x.blk)] = true;
		}
	}
	uint32_t cols = 1;
	if (all) {
		cols = (uint32_t)ceil(sqrt((double)npanels));
		cols = cols > 6 ? 6 : cols < 1 ? 1 : cols;
		x.c = fmax(1.5, fmin(24.0, 1000.0 / cols / x.R));
	} else {
		x.c = fmax(4.0, fmin(40.0, 720.0 / x.R));
	}
	x.c = floor(x.c * 4) / 4; /* whole quarter pixels: exact edges */
	x.lm = 44;
	x.tm = 28;
	uint32_t rows = (npanels + cols - 1) / cols;
	double top = all ? 30.0 : 0.0;
	double pw = x.lm + x.R * x.c + PAD, ph = top + x.tm + x.R * x.c;
	double gw = cols * pw + (cols - 1) * PAD;
	char comm[128], shape[96], mach[256], title[640];
	comm_line(p, comm, sizeof comm);
	show_shape_name(m, shape, sizeof shape);
	explain_machine(m, mach, sizeof mach);
	title_line(p, o, comm, shape, title, sizeof title);
	double W = fmax(gw + 2 * PAD, 760.0);
	W = fmax(W, 9.0 * (double)strlen(title) + 2 * PAD);
	double H = HEAD + rows * ph + (rows - 1) * PAD + FOOT + 16 + PAD;
	double gx = (W - gw) / 2;

	doc_head(b, p, o, W, H, comm, mach,
	         all ? "A matrix per phase: a row per source rank, a column "
	               "per destination, each cell coloured by the transfers "
	               "of the phase in it."
	             : "A matrix: a row per source rank, a column per "
	               "destination, each cell coloured by the transfers of "
	               "the phase in it; the cells of earlier phases grey.");
	tb_printf(b,
	          "<style>\n"
	          ".title{font-size:15px;font-weight:bold}\n"
	          ".subtitle{font-size:12px;fill:#333333}\n"
	          ".phase-label{font-size:12px;font-weight:bold}\n"
	          ".phase-stats{font-size:10.5px;font-weight:normal;"
	          "fill:#333333}\n"
	          ".matrix{fill:#ffffff;stroke:#888888;stroke-width:1}\n"
	          ".grid{fill:none;stroke:#eeeeee;stroke-width:0.6}\n"
	          ".cell{shape-rendering:crispEdges}\n"
	          ".before,.key-before{fill:#d9d9d9}\n"
	          ".matrix-tick{font-size:9px;fill:#555555}\n"
	          ".axis-title{font-size:11px;fill:#333333}\n"
	          ".legend text{font-size:11px;fill:#333333;"
	          "dominant-baseline:central}\n"
	          "</style>\n");
	page_heading(b, W, H, title);
	phase_line(b, p, o);
	tb_printf(b,
	          ": %llu transfer%s; source x destination, %dx%d cells",
	          (unsigned long long)xfers, xfers == 1 ? "" : "s", (int)x.R,
	          (int)x.R);
	if (x.blk > 1)
		tb_printf(b, " of %dx%d ranks", (int)x.blk, (int)x.blk);
	tb_printf(b, "</text>\n");
	for (uint32_t i = 0; i < npanels; i++) {
		uint32_t k = first + i;
		matrix_count(p, k, &x);
		double ox = gx + (i % cols) * (pw + PAD);
		double oy = HEAD + (i / cols) * (ph + PAD);
		tb_printf(b, "<g class=\"panel\">\n");
		if (all && k < p->nphases)
			tb_printf(b,
			          "<text class=\"phase-label\" x=\"%.2f\" "
			          "y=\"%.2f\">phase %u<tspan "
			          "class=\"phase-stats\" x=\"%.2f\" dy=\"13\">"
			          "%u transfer%s</tspan></text>\n",
			          ox, oy + 12, k, ox, p->phases[k].ntransfers,
			          p->phases[k].ntransfers == 1 ? "" : "s");
		else if (all)
			tb_printf(b,
			          "<text class=\"phase-label\" x=\"%.2f\" "
			          "y=\"%.2f\">no phases</text>\n",
			          ox, oy + 13);
		matrix_draw(b, &x, max, !all && x.R <= 64, ox, oy + top);
		tb_printf(b, "</g>\n");
	}
	double ky = H - PAD - FOOT / 2 - 8;
	heat_key(b, PAD + 6, ky, max, "transfers of the phase in a cell:",
	         "no transfers");
	if (!all) {
		double kx = PAD + 6 + 6.0 * 33 + 8 +
		            28.0 * (max < HEAT_STEPS ? max : HEAT_STEPS) + 16;
		tb_printf(b,
		          "<g class=\"legend\"><rect class=\"key-before\" "
		          "x=\"%.1f\" y=\"%.1f\" width=\"26\" height=\"12\"/>"
		          "<text x=\"%.1f\" y=\"%.1f\">sent in an earlier "
		          "phase</text></g>\n",
		          kx, ky - 6, kx + 32, ky);
	}
	rc = doc_close(b, err, errlen);
out:
	free(x.cnt);
	free(x.before);
	return rc;
}
