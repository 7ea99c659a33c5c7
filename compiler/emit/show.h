/*
 * show.h - pictures of a plan: every phase drawn on its machine, as SVG
 * (a standalone document, no library) or as text for a terminal (ASCII
 * or Unicode box drawing, meshes and tori up to about 32x32).
 * `ccplan show`, the HTML report and the README's picture use them.
 *
 * What is drawn (docs/show.md): ranks at their coordinates (mesh and
 * torus grids with the wraparound links of the dimensions that wrap at
 * the edges, 4-8 dimensions as a grid of (x, y) slices, the busy ones
 * or a summary when there are too many; with several ranks per node,
 * the node as the cell, with its ranks' sends, receives and transfers
 * inside it), hypercubes as a
 * layout of subcubes, HPAM as its two levels with the inter-level links,
 * a switch as a ring around its crossbar); each transfer of the phase as
 * an arrow along its real route, hop by hop (ir_route); a link carrying
 * more than one transfer in a warning colour with its count; the root
 * and the ranks that hold the data after the phase shaded.
 */
#ifndef CCP_SHOW_H
#define CCP_SHOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emit_c.h" /* struct tbuf */
#include "ir.h"

struct show_opts {
	int phase;    /* the phase to draw, 0-based; -1: every phase, as a
	                 grid of small multiples */
	bool unicode; /* text: box drawing characters, else plain ASCII */
	bool color;   /* text: ANSI colours (a terminal) */
	const char *title; /* SVG: a title line (e.g. the file name), or
	                      NULL */
	bool arrows; /* SVG: arrows on the machine even for a plan that
	                show_is_matrix draws as a matrix */
};

/* Whether show_svg draws p as a source x destination matrix rather than
 * arrows on the machine: a plan on a switch, an alltoall, an irregular
 * pattern (every pair of ranks may talk: arrows would be a tangle). */
bool show_is_matrix(const ir_plan *p);

/* Append the SVG document of p's phase(s) to out.  CCP_ERANGE for a
 * phase the plan does not have, CCP_ENOMEM; err says why. */
int show_svg(const ir_plan *p, const struct show_opts *o, struct tbuf *out,
             char *err, size_t errlen);

/* Append an SVG document of the link loads of p's irregular pattern,
 * side by side: with the ranks where p's machine places them, and with
 * rank r on node node[r] (a placement, as sch_place gives; label says
 * what made it), on one colour scale (docs/show.md, "Heat maps").
 * CCP_ENOTAPPLY (err says why) for a collective, or a machine the heat
 * map does not draw; CCP_EINVAL for a node list that does not fill the
 * nodes; CCP_ENOMEM. */
int show_heat_svg(const ir_plan *p, const int32_t *node, const char *label,
                  const struct show_opts *o, struct tbuf *out, char *err,
                  size_t errlen);

/* Append the text drawing to out.  CCP_ENOTAPPLY (err says why) for a
 * machine the terminal form cannot draw (larger than the limit, or a
 * topology it does not lay out). */
int show_text(const ir_plan *p, const struct show_opts *o, struct tbuf *out,
              char *err, size_t errlen);

/* Whether text for stdout should be coloured: stdout is a terminal and
 * NO_COLOR is not set. */
bool show_tty_color(void);
/* Whether the user's locale (LC_ALL, LC_CTYPE, LANG) encodes text as
 * UTF-8: the text drawing uses box-drawing characters only then. */
bool show_locale_utf8(void);
/* The machine's shape, short: "mesh 16x16", "5-cube", "torus
 * 24x23x24x2x3x2 (wraps x y z b), 4 ranks per node". */
void show_shape_name(const ir_machine *m, char *buf, size_t len);
/* Most phases one SVG picture of every phase draws; most drawings one
 * text of every phase holds. */
#define SHOW_MAX_PANELS 64
#define SHOW_MAX_TEXT_PHASES 256
/* Whether a picture of phase (-1: every phase) of a plan of nphases can
 * be drawn, from the count alone (a file's header gives it before the
 * plan is read): 0; CCP_ERANGE with "phase K: the plan has N phases,
 * 0..N-1" in err; CCP_ENOTAPPLY when every phase is asked of a plan
 * of more than SHOW_MAX_PANELS (svg) or SHOW_MAX_TEXT_PHASES (text). */
int show_check_phase(uint32_t nphases, int phase, bool svg, char *err,
                     size_t errlen);
/* 0 if the drawings can place every link of m; CCP_ENOTAPPLY with the
 * reason in err for a fat tree, whose switches they do not draw. */
int show_check_drawable(const ir_machine *m, char *err, size_t errlen);

/* ---- what show_svg and show_text share (compiler/show.c) -------------
 * Every drawing is made of the same pieces: where each rank sits, the
 * hops of each transfer of a phase with the load of the link under them,
 * and the ranks that hold data after the phase. */

/* Largest machine either drawing accepts (the SVG of 128x128 ranks is a
 * few megabytes), counted in nodes (= ranks with one rank per node); an
 * n-D machine may be larger, but no more than SHOW_MAX_NODES of it are
 * drawn (show_slices_pick); the text drawing's limits are in
 * show_text.c. */
#define SHOW_MAX_RANKS 16384
/* Largest n-D machine (4-8 dimensions) whose slices are picked: the
 * layout keeps a position per node (Fugaku's 158,976 nodes fit). */
#define SHOW_MAX_ND_NODES (1 << 21)

/* A mesh or torus of 4-8 dimensions is drawn as 2D (x, y) slices, one
 * per combination of the coordinates above y (z, a, b, ...), numbered
 * as ir_coords numbers nodes: slice = node / (dims[0] * dims[1]).  When
 * the machine is larger than the drawing's limits, only the busy slices
 * are drawn: those holding a node on the route of a transfer of the
 * phase(s) drawn (its ends included, so every hop drawn has both ends
 * drawn), and the root's; when even those are too many, a summary of
 * every busy slice is drawn instead (summary). */
struct show_slices {
	int32_t total;    /* slices of the machine */
	int32_t per;      /* nodes per slice: dims[0] * dims[1] */
	int32_t n;        /* slices drawn (0 with summary) */
	int32_t *which;   /* the drawn slices, ascending */
	int32_t *slot;    /* per slice: its index in which, or -1 */
	int32_t busy;     /* busy slices */
	bool *is_busy;    /* per slice: busy */
	bool only_busy;   /* too large to draw whole: busy slices only */
	bool summary;     /* too many busy slices: a summary instead */
	uint32_t *sends;  /* per slice: transfers of the phase(s) drawn
	                     leaving its nodes (network or shared memory) */
	uint32_t *recvs;  /* ... arriving at its nodes */
	uint64_t *hops;   /* ... hops starting at its nodes */
};
/* Whether show_slices_pick applies: a mesh or torus of 4-8 dims. */
bool show_is_sliced(const ir_machine *m);
/* 0, or CCP_ENOTAPPLY (err says why) for an n-D machine of more than
 * SHOW_MAX_ND_NODES nodes. */
int show_check_nd(const ir_machine *m, char *err, size_t errlen);
/* Pick the slices of p to draw for phase (-1: every phase): all of them
 * when there are at most max_slices with at most max_nodes nodes in
 * all, else the busy ones under the same limits, else a summary.
 * CCP_ENOTAPPLY above SHOW_MAX_ND_NODES, CCP_ENOMEM, CCP_EINVAL for a
 * transfer without a route. */
int show_slices_pick(const ir_plan *p, int phase, int32_t max_slices,
                     int64_t max_nodes, struct show_slices *s, char *err,
                     size_t errlen);
void show_slices_fini(struct show_slices *s);
/* The coordinates naming a slice: "z=1 a=0 b=2". */
void show_slice_label(const ir_machine *m, int32_t slice, char *buf,
                      size_t len);

/* Where the nodes sit, in layout units: neighbouring mesh nodes are one
 * unit apart, y grows downwards.  With one rank per node a node is its
 * rank. */
struct show_layout {
	int32_t n;     /* nodes */
	double *x, *y; /* the centre of each node; NaN for a node of a slice
	                  not drawn */
	double w, h;   /* every centre is in [0, w] x [0, h] */
	double cx, cy; /* switch: the centre of the crossbar */
	double plane;  /* 3D mesh/torus: x distance from one z-plane to the
	                  next; n-D: from one slice to the next in a row
	                  (0 otherwise) */
	double row;    /* n-D: y distance from one row of slices to the
	                  next */
	int32_t cols;  /* n-D: slices in a row of the page */
};
/* Lay out m's nodes (sl: the slices of an n-D machine, else NULL);
 * CCP_ENOTAPPLY above SHOW_MAX_RANKS nodes (n-D: SHOW_MAX_ND_NODES),
 * CCP_ENOMEM. */
int show_layout_make(const ir_machine *m, const struct show_slices *sl,
                     struct show_layout *l, char *err, size_t errlen);
void show_layout_fini(struct show_layout *l);

/* One hop of one transfer: a directed link under the transfer's route. */
struct show_hop {
	uint32_t transfer; /* index in ir_plan.transfers */
	int32_t from, to;  /* the link's ends (ir_link_ends) */
	uint64_t link;     /* the directed link id */
	uint32_t load;     /* transfers on that link in the phase */
	bool last;         /* the transfer's last hop (drawn with a head) */
};
/* A directed link the phase uses. */
struct show_link {
	uint64_t link;    /* the id */
	int32_t from, to; /* its ends */
	uint32_t load;    /* transfers on it in the phase: the copies of one
	                     hardware multicast (IR_XF_MCAST, same source)
	                     count once, as the verifier counts them */
};
/* What one phase puts on the machine. */
struct show_phase {
	uint32_t phase;        /* 0-based, as explain numbers them */
	uint32_t ntransfers;   /* transfers of the phase */
	struct show_hop *hops; /* every hop of every transfer, in transfer
	                          and route order */
	size_t nhops;
	struct show_link *links; /* distinct links used, by id */
	size_t nlinks;
	uint32_t max_load; /* largest load, 0 if no link is used */
	uint32_t hot;      /* links with load > 1 */
	/* with several ranks per node (ir_machine_has_nodes), else NULL: */
	uint32_t *node_send; /* per node: its ranks sending in the phase */
	uint32_t *node_recv; /* ... receiving */
	uint32_t *node_shm;  /* transfers inside the node (shared memory) */
	uint32_t shm;        /* transfers inside a node, in all */
};
/* The hops and link loads of phase ph of p; CCP_ERANGE, CCP_ENOMEM. */
int show_phase_make(const ir_plan *p, uint32_t ph, struct show_phase *s,
                    char *err, size_t errlen);
void show_phase_fini(struct show_phase *s);

/* The ranks of a node holding data: 0, some (1) or all (2) of them. */
int show_node_held(const ir_machine *m, const bool *held, int32_t node);

/* Ranks holding data, n = nranks flags: show_held_start sets the root of
 * a rooted collective (broadcast, scatter, gather, reduce) and clears the
 * rest; show_held_apply adds the receivers of phase ph.  After start and
 * apply of phases 0..k, held[] is what phase k's picture shades. */
void show_held_start(const ir_plan *p, bool *held);
void show_held_apply(const ir_plan *p, uint32_t ph, bool *held);

/* How a link is drawn between the centres of its ends, in layout units. */
enum show_shape {
	SHOW_LINE,  /* straight, (x0,y0) -> (x1,y1) */
	SHOW_CURVE, /* quadratic curve through control point (qx,qy): links
	               that would otherwise run across other ranks
	               (hypercube, 3D z links, switch) */
	SHOW_WRAP   /* torus wraparound: (x0,y0) -> (x1,y1) leaves at one
	               edge, (x2,y2) -> (x3,y3) comes in at the other */
};
struct show_geom {
	enum show_shape shape;
	double x0, y0, x1, y1; /* the line, or the curve's ends, or the
	                          wrap's first piece */
	double qx, qy;         /* SHOW_CURVE: control point */
	double x2, y2, x3, y3; /* SHOW_WRAP: second piece, ending at 'to' */
	double lx, ly;         /* where a label for this hop goes */
};
/* The drawing of link from -> to: shifted off to the right of its
 * direction (so the two directions of a link do not overlap) and
 * shortened by trim at its 'to' end (so a head is not hidden under the
 * rank).  off = trim = 0 gives the machine's link itself. */
void show_link_geom(const ir_machine *m, const struct show_layout *l,
                    int32_t from, int32_t to, double off, double trim,
                    struct show_geom *g);

#endif
