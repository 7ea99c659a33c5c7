/*
 * ir.h - every type of the ccplan intermediate representation, in one place.
 *
 * The flow is: machine model + communication -> plan (phases of transfers,
 * each carrying named data blocks) -> verifier -> lowered per-rank operation
 * lists -> plan file.  Operands are small integers (ranks, block numbers,
 * byte offsets), never pointers, so a plan can go to disk, into a cache or
 * into emitted C with no fix-ups.
 *
 * Rank numbering, everywhere:
 *   mesh / torus   rank = x + X*(y + Y*(z + Z*(a + ...)))  (row-major,
 *                  x fastest, up to 8 dimensions x y z a b c d e)
 *   hypercube      rank = node label
 *   HPAM           level-1 ranks first (x + c1*y), then level 2
 *                  (r1*c1 + x + c2*y); x is the column, y the row
 *   switch         rank = port number
 *   fat tree       host = a1 + m1*(a2 + m2*(a3 + ...)), a_i its place
 *                  under its level-i switch (docs/machine-model.md)
 * With several ranks per node these number nodes, and the machine's
 * placement says which ranks sit on each node (ir_node_of).
 * Coordinates are always derived from the rank (ir_coords), never stored.
 *
 * Errors: functions return 0 or a negative CCP_E* code (see ccp_strerror).
 */
#ifndef CCP_IR_H
#define CCP_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ccplan_errors.h"

/* ---- forward declarations ------------------------------------------- */
typedef struct ir_cost ir_cost;
typedef struct ir_machine ir_machine;
typedef struct ir_place ir_place;
typedef struct ir_graph ir_graph;
typedef struct ir_matrix ir_matrix;
typedef struct ir_comm ir_comm;
typedef struct ir_block ir_block;
typedef struct ir_transfer ir_transfer;
typedef struct ir_phase ir_phase;
typedef struct ir_plan ir_plan;
typedef struct ir_report ir_report;
typedef struct ir_class_load ir_class_load;
typedef struct ir_selection ir_selection;
typedef struct ir_iov ir_iov;
typedef struct ir_op ir_op;
typedef struct ir_slice ir_slice;

/* ---- limits (documented in docs/input-format.md) -------------------- */
#define IR_MAX_RANKS (1 << 24)   /* 16,777,216 ranks; link ids < 2^31 except
                                    on a switch (src*n + dst, up to 2^48) */
#define IR_MAX_DIMS 8            /* mesh and torus dimensions */
#define IR_MAX_CUBE_DIM 24       /* hypercube dimension */
#define IR_MAX_BYTES (INT64_C(1) << 40) /* largest message or block, 1 TiB */
#define IR_MAX_SEGMENTS 65536    /* segments of a pipelined message */
#define IR_NAME_MAX 32           /* algorithm and preset names */
#define IR_MAX_TREE 4            /* switch levels of a fat tree */
#define IR_MAX_CABLES (1 << 30)  /* cables of a graph: link ids < 2^31 */
#define IR_MAX_GRAPH_TABLE (INT64_C(1) << 27) /* vertices x hosts of a
                                    graph: its distance table, 256 MiB */
#define IR_MAX_DFLY 4096         /* dragonfly: routers per group, global
                                    links per router */
#define IR_MAX_DFLY_GROUPS 65536 /* dragonfly groups */

/* ---- machine model -------------------------------------------------- */

/* The names of every enumeration live in one X-macro table each, which
 * yields the enum, the names the input format spells (ir_*_name, and the
 * ir_*_names arrays the parser, the canonical form, JSON and help read),
 * and what the table says of each value.  Add a value here and everything
 * that lists names follows. */

/* Topologies: X(ENUM, name, routings it allows (IR_RT bits; the first
 * listed in enum ir_routing, adaptive aside, is the default), noun (in "X needs a mesh or
 * torus"), comment) */
#define IR_RT(r) (1u << IR_ROUTE_##r)
#define IR_TOPOLOGIES(X)                                                       \
	X(MESH, "mesh", IR_RT(DIM_ORDER), "mesh", "1-8 dimensional mesh")      \
	X(TORUS, "torus", IR_RT(DIM_ORDER), "torus",                           \
	  "1-8 dimensional torus, wraparound per dimension")                  \
	X(HYPERCUBE, "hypercube", IR_RT(ECUBE), "hypercube",                   \
	  "n-cube, rank = label")                                              \
	X(HPAM, "hpam", IR_RT(HPAM_XY), "two-level HPAM machine",              \
	  "two-level heterogeneous mesh hierarchy (000 §2.2)")                 \
	X(SWITCH, "switch", IR_RT(DIRECT), "switch",                           \
	  "fully connected: one direct link per ordered pair")                \
	X(FAT_TREE, "fat_tree", IR_RT(D_MOD_K) | IR_RT(S_MOD_K) |              \
	  IR_RT(ADAPTIVE) | IR_RT(SOURCE), "fat tree",                                         \
	  "XGFT fat tree: hosts under 1-4 levels of switches")                 \
	X(GRAPH, "graph", IR_RT(SHORTEST) | IR_RT(ADAPTIVE) | IR_RT(TABLE),  \
	  "graph",                                                             \
	  "any network: hosts, switches and cables (struct ir_graph)")        \
	X(DRAGONFLY, "dragonfly",                                              \
	  IR_RT(MINIMAL) | IR_RT(VALIANT) | IR_RT(ADAPTIVE) | IR_RT(SOURCE),   \
	  "dragonfly",                                                         \
	  "groups of fully connected routers joined by global links")

/* Routing functions: X(ENUM, name, comment).  The machine stores the one
 * the input chose, and ir_route dispatches on it. */
#define IR_ROUTINGS(X)                                                         \
	X(DIM_ORDER, "dimension-order",                                        \
	  "mesh/torus: one dimension after the other (X, Y, Z... or order)")  \
	X(ECUBE, "e-cube", "hypercube: lowest differing bit first (004)")     \
	X(HPAM_XY, "hpam-xy", "extended X-Y across HPAM levels (000 eq. 2)")  \
	X(DIRECT, "direct", "switch: the direct link")                        \
	X(D_MOD_K, "d-mod-k",                                                  \
	  "fat tree: up port (dst / W(l-1)) mod w(l), then down (InfiniBand)") \
	X(S_MOD_K, "s-mod-k", "fat tree: up port (src / W(l-1)) mod w(l)")   \
	X(ADAPTIVE, "adaptive",                                                \
	  "the network picks a path per message (fat tree, graph: any "        \
	  "shortest path, a fat tree any up port; dragonfly: minimal or "      \
	  "Valiant); a route is the set of links of every such path")         \
	X(SHORTEST, "shortest",                                                \
	  "graph: a shortest path, next hop number (dst mod count) among "     \
	  "the equal ones")                                                    \
	X(MINIMAL, "minimal",                                                  \
	  "dragonfly: local, global, local (of parallel global links, the "    \
	  "destination host's number mod their count)")                       \
	X(VALIANT, "valiant",                                                  \
	  "dragonfly: minimal to an intermediate group hashed from (seed, "    \
	  "source, destination), then minimal on")                            \
	X(SOURCE, "source",                                                    \
	  "the sender picks the path and the plan records it (fat tree: any "  \
	  "shortest path; dragonfly: minimal, or Valiant through any group; " \
	  "over any of the parallel global links); unpicked: d-mod-k, minimal") \
	X(TABLE, "table",                                                      \
	  "graph: each vertex's next hop toward each host from a forwarding "  \
	  "table (as a subnet manager's), shortest's where the table is "      \
	  "silent")

enum ir_topo {
#define X(e, name, routings, noun, comment) IR_##e,
	IR_TOPOLOGIES(X)
#undef X
};
#define X(e, name, routings, noun, comment) +1
enum { IR_NTOPOS = 0 IR_TOPOLOGIES(X) };
#undef X

enum ir_routing {
#define X(e, name, comment) IR_ROUTE_##e,
	IR_ROUTINGS(X)
#undef X
};
#define X(e, name, comment) +1
enum { IR_NROUTINGS = 0 IR_ROUTINGS(X) };
#undef X

/* How a dragonfly's global links join its groups: X(ENUM, name, comment).
 * A group's global ports are numbered k = r * h + j (router r, its port
 * j); with g groups, port k belongs to round k / (g - 1) and has offset
 * q = k mod (g - 1); every round joins the group once to every other
 * group (docs/machine-model.md, "Dragonflies"). */
#define IR_DFLY_ARRANGEMENTS(X)                                                \
	X(ABSOLUTE, "absolute",                                                \
	  "offset q of group G reaches group q, or q + 1 from q = G on")     \
	X(RELATIVE, "relative", "offset q of group G reaches G + q + 1")     \
	X(CIRCULANT, "circulant",                                              \
	  "offset 2i of group G reaches G + i + 1, offset 2i + 1 G - i - 1 " \
	  "(an odd number of groups)")

enum ir_dfly_arrangement {
#define X(e, name, comment) IR_DFLY_##e,
	IR_DFLY_ARRANGEMENTS(X)
#undef X
};
#define X(e, name, comment) +1
enum { IR_NDFLY_ARRANGEMENTS = 0 IR_DFLY_ARRANGEMENTS(X) };
#undef X

/* Port model: how many transfers a rank may send, and separately receive,
 * in one phase.  IR_PORTS_ALL means one per network link of the rank. */
#define IR_PORTS_ALL 0

/* Classes of links, which loads are reported by (explain) and bounds
 * are taken over: X(ENUM, name, comment). */
#define IR_LINK_CLASSES(X)                                                     \
	X(HOST, "host", "a host's link to its first switch, both ways")       \
	X(LOCAL, "local",                                                      \
	  "between routers of a direct network (mesh, torus, hypercube, "      \
	  "HPAM, switch) or of one dragonfly group")                           \
	X(GLOBAL, "global", "between dragonfly groups")                       \
	X(UP, "up", "fat tree: toward the roots, above the hosts' links")     \
	X(DOWN, "down", "fat tree: away from the roots, above the hosts' links")

enum ir_link_class {
#define X(e, name, comment) IR_LC_##e,
	IR_LINK_CLASSES(X)
#undef X
};
#define X(e, name, comment) +1
enum { IR_NLINK_CLASSES = 0 IR_LINK_CLASSES(X) };
#undef X

/* Placements of ranks onto the nodes of a machine with several ranks per
 * node: X(ENUM, name, comment).  The value goes into plan files. */
#define IR_PLACEMENTS(X)                                                       \
	X(BLOCK, "block", "ranks k*node .. k*node+k-1 on each node")          \
	X(CYCLIC, "cyclic", "rank r on node r mod nodes (round robin)")       \
	X(MAP, "map", "a list gives each rank's node (struct ir_place)")

enum ir_placement {
#define X(e, name, comment) IR_PLACE_##e,
	IR_PLACEMENTS(X)
#undef X
};
#define X(e, name, comment) +1
enum { IR_NPLACEMENTS = 0 IR_PLACEMENTS(X) };
#undef X

/* Cost parameters, microseconds and microseconds per byte.  A field the
 * user did not give is NaN; the cost models (issue 5) decide defaults. */
struct ir_cost {
	char preset[IR_NAME_MAX]; /* preset name it started from, "" if none */
	double alpha;    /* start-up per message (001 alpha, 003 alpha) */
	double beta;     /* per byte on a link (001 beta, 003 beta_ex) */
	double hop;      /* per hop, header latency (001 h-beta term) */
	double gamma;    /* receive overhead (001 gamma) */
	double beta_sat; /* per byte when a link is saturated (003) */
	double tau;      /* per-phase start-up of a permutation (004) */
	double phi;      /* per byte of a permutation phase (004) */
	/* HPAM eq. 3 per level (index 0 = level 1, 1 = level 2) */
	double c_send[2]; /* C_send^l */
	double c_recv[2]; /* C_recv^l */
	double copy[2];   /* lambda'_l / W_l, copy cost per byte */
	double lambda;    /* Lambda = lambda / W, per byte and per hop */
	double combine;   /* per byte a receiver combines into a partial (the
	                     gamma of Thakur, Rabenseifner and Gropp) */
	double shm_alpha; /* start-up of a transfer inside a node */
	double shm_beta;  /* per byte through a node's shared memory: every
	                     transfer inside one node in a phase shares it */
};

/* The network joins nodes; a node holds ranks_per_node ranks, which talk
 * to each other through shared memory and reach the network through the
 * node's ports.  With one rank per node (the default) node = rank, and
 * everything below reads as it did before nodes existed. */
struct ir_machine {
	enum ir_topo topo;       /* topology kind */
	enum ir_routing routing; /* routing function */
	int ndims;     /* mesh/torus: 1..8; hypercube: n; hpam: 2; switch: 1;
	                  fat tree: h, its switch levels (1..IR_MAX_TREE);
	                  dragonfly: 3 (a host's terminal, router, group) */
	int dims[IR_MAX_DIMS]; /* mesh/torus node extents x, y, z, a, b, c,
	                          d, e (1 if unused); switch: dims[0] = nodes;
	                          fat tree: dims[i-1] = m_i, the children of
	                          a level-i switch, and dims[IR_MAX_TREE+i-1]
	                          = w_i, the parents of a level-(i-1) vertex
	                          (XGFT(h; m; w)), 1 past level h;
	                          dragonfly: dims[0] = p hosts per router,
	                          [1] = a routers per group, [2] = g groups,
	                          [3] = h global links per router, [4] = the
	                          enum ir_dfly_arrangement, [5..7] = 1 */
	unsigned wrap;    /* torus: bit d set when dimension d wraps (0 on a
	                     torus means every dimension: ir_machine_check
	                     fills it); mesh: 0; dragonfly: the seed of
	                     Valiant's intermediate groups */
	uint8_t order[IR_MAX_DIMS]; /* dimension-order routing: dimension
	                     order[k] is corrected k-th; all 0 means x, y, z...
	                     (ir_machine_check fills it) */
	int levels[2][2]; /* HPAM: levels[l] = {rows, cols} of level l+1;
	                     fat tree: levels[(i-1)/2][(i-1)%2] = the cables
	                     from a level-(i-1) vertex to each of its parents,
	                     the capacity of that link (1 past level h);
	                     dragonfly: the cables (capacity) of a host link
	                     [0][0], a local link [0][1] and a global link
	                     [1][0]; [1][1] = 1 */
	int ports;        /* per rank: IR_PORTS_ALL or k >= 1 */
	int32_t ranks_per_node; /* >= 1 (0 reads as 1) */
	uint32_t placement;     /* enum ir_placement: which ranks share a node */
	int node_ports;   /* network transfers a node may send, and separately
	                     receive, in one phase when ranks_per_node > 1;
	                     IR_PORTS_ALL: one per network link of the node */
	int32_t nnodes;   /* derived: number of nodes */
	int32_t nranks;   /* derived: nnodes * ranks_per_node */
	ir_cost cost;     /* cost parameters */
	ir_place *place;  /* IR_PLACE_MAP: where each rank sits; NULL
	                     otherwise.  Shared by the copies of a machine:
	                     a plan and an input each hold a reference. */
	ir_graph *graph;  /* IR_GRAPH: its hosts, switches and cables; NULL
	                     otherwise.  Shared like place. */
};

/* A placement given rank by rank.  A rank's position is
 * node * ranks_per_node + its index on the node, its index counting the
 * node's ranks in increasing order: the rank a block placement would
 * put there.  Generators build plans over positions (a block machine)
 * and sch_generate renames them to ranks (docs/machine-model.md). */
struct ir_place {
	uint32_t refs;   /* references (ir_place_retain, ir_place_release);
	                    not atomic: a machine stays in one thread */
	int32_t n;       /* ranks */
	int32_t *pos;    /* [n]: the position of each rank */
	int32_t *rank;   /* [n]: the rank at each position */
};

/* A cable of a graph machine: both directions between two vertices,
 * directed link ids 2c (a -> b) and 2c + 1 (b -> a) for cable c. */
struct ir_cable {
	int32_t a, b;     /* its ends: vertex ids, hosts 0..nhosts-1 (the
	                     machine's nodes) then switches */
	int32_t width;    /* parallel cables behind it, >= 1 */
	uint8_t cls;      /* enum ir_link_class of both directions;
	                     IR_CABLE_CLASS_DEFAULT: host for a cable that
	                     touches a host, local otherwise (ir_graph_new
	                     resolves it) */
	double bandwidth; /* bytes per second of one cable; NaN: the
	                     smallest the graph gives (1 if none does) */
	double latency;   /* seconds; NaN: not given (read as 0) */
};
#define IR_CABLE_CLASS_DEFAULT 0xff

/* Any network as a graph (docs/machine-model.md, "Graphs").  Made once by
 * ir_graph_new, with the tables routing reads, and never changed after:
 * machines share it by reference. */
struct ir_graph {
	uint32_t refs;        /* references (ir_graph_retain, _release);
	                         not atomic, like ir_place */
	int32_t nhosts;       /* H: vertices 0..H-1, the machine's nodes */
	int32_t nswitches;    /* vertices H..H+nswitches-1 */
	int32_t nverts;       /* nhosts + nswitches */
	uint32_t ncables;     /* directed link ids 0..2*ncables-1 */
	struct ir_cable *cables; /* [ncables], bandwidths and classes
	                         resolved; in the order given */
	int32_t *cap;         /* [ncables]: capacity of both directions,
	                         width x bandwidth / the smallest bandwidth */
	uint32_t *out_off;    /* [nverts + 1]: vertex v's outgoing link ids
	                         are out[out_off[v] .. out_off[v + 1]) */
	uint32_t *out;        /* [2 * ncables], increasing within a vertex */
	uint16_t *dist;       /* [nhosts * nverts]: hops from vertex v to
	                         host h at dist[h * nverts + v];
	                         UINT16_MAX where h is out of reach */
	int32_t *key;         /* [nhosts] or NULL: the number host h's routes
	                         are keyed by (shortest: dst mod count), its
	                         number in the graph it was cut from
	                         (ir_graph_subset); NULL: h itself */
	uint16_t *next;       /* [nhosts * nverts] or NULL: a forwarding
	                         table (routing: table): toward host h, vertex
	                         v leaves by link out[out_off[v] + next[h *
	                         nverts + v]]; UINT16_MAX: shortest's hop */
	int table_max;        /* the longest route the table gives */
	int diameter;         /* the longest host-to-host distance */
	int union_max;        /* most links an adaptive route may hold: a
	                         bound (docs/machine-model.md, "Graphs") */
};

/* ---- communication -------------------------------------------------- */

/* Collectives: X(ENUM, name, kind (IR_CK_* bits), noun, comment).  New
 * values go at the end: plan files store the value. */
#define IR_CK_ROOTED  1u /* has a root (communication.root) */
#define IR_CK_REDUCES 2u /* combines vectors elementwise (dtype, op): its
                            blocks are partials (see struct ir_block) */
#define IR_CK_DIRECT  4u /* every block has one destination other than
                            its origin, the degree bound applies */
#define IR_CK_PATTERN 8u /* not a collective: `pattern:` in the input */
#define IR_COLLECTIVES(X)                                                      \
	X(BCAST, "broadcast", IR_CK_ROOTED, "broadcast",                       \
	  "root's message to every rank")                                     \
	X(SCATTER, "scatter", IR_CK_ROOTED, "scatter",                         \
	  "root's block d to rank d")                                         \
	X(GATHER, "gather", IR_CK_ROOTED, "gather",                            \
	  "rank r's block to the root, stored at r*bytes")                    \
	X(REDUCE, "reduce", IR_CK_ROOTED | IR_CK_REDUCES, "reduce",            \
	  "elementwise combination of every rank's vector at root")           \
	X(ALLTOALL, "alltoall", IR_CK_DIRECT,                                  \
	  "all-to-all (complete exchange)",                                    \
	  "block (s,d) from s to d, at s*bytes on d")                         \
	X(TRANSPOSE, "transpose", IR_CK_DIRECT, "transpose",                   \
	  "2D mesh: rank (x,y) sends to (y,x)")                               \
	X(IRREGULAR, "irregular", IR_CK_DIRECT | IR_CK_PATTERN,                \
	  "irregular pattern", "n x n matrix COM: bytes from i to j")         \
	X(ALLGATHER, "allgather", 0, "allgather",                              \
	  "rank r's block to every rank, stored at r*bytes")                  \
	X(REDUCE_SCATTER, "reduce_scatter", IR_CK_REDUCES, "reduce-scatter",   \
	  "element block i of the combination of every vector to rank i")     \
	X(ALLREDUCE, "allreduce", IR_CK_REDUCES, "allreduce",                  \
	  "elementwise combination of every rank's vector at every rank")

/* Element types: X(ENUM, name, bytes) */
#define IR_DTYPES(X)                                                           \
	X(BYTE, "byte", 1)                                                     \
	X(INT32, "int32", 4)                                                   \
	X(INT64, "int64", 8)                                                   \
	X(FLOAT, "float", 4)                                                   \
	X(DOUBLE, "double", 8)

/* Reductions: X(ENUM, name) */
#define IR_REDOPS(X)                                                           \
	X(SUM, "sum")                                                          \
	X(PROD, "prod")                                                        \
	X(MIN, "min")                                                          \
	X(MAX, "max")

enum ir_coll {
#define X(e, name, kind, noun, comment) IR_##e,
	IR_COLLECTIVES(X)
#undef X
};
#define X(e, name, kind, noun, comment) +1
enum { IR_NCOLLS = 0 IR_COLLECTIVES(X) };
#undef X

enum ir_dtype {
#define X(e, name, size) IR_DT_##e,
	IR_DTYPES(X)
#undef X
};
#define X(e, name, size) +1
enum { IR_NDTYPES = 0 IR_DTYPES(X) };
#undef X
/* a slice read from a file that did not record its element type */
#define IR_DT_UNKNOWN 0xff

enum ir_redop {
#define X(e, name) IR_OP_##e,
	IR_REDOPS(X)
#undef X
};
#define X(e, name) +1
enum { IR_NREDOPS = 0 IR_REDOPS(X) };
#undef X

/* The names of each table, indexed by its enum (ir/names.c). */
extern const char *const ir_topo_names[IR_NTOPOS];
extern const char *const ir_topo_nouns[IR_NTOPOS]; /* "two-level HPAM ..." */
extern const char *const ir_routing_names[IR_NROUTINGS];
extern const char *const ir_placement_names[IR_NPLACEMENTS];
extern const char *const ir_link_class_names[IR_NLINK_CLASSES];
extern const char *const ir_dfly_arrangement_names[IR_NDFLY_ARRANGEMENTS];
/* The names of mesh and torus dimensions in inputs: x y z a b c d e. */
extern const char *const ir_dim_names[IR_MAX_DIMS];
extern const char *const ir_coll_names[IR_NCOLLS];
extern const char *const ir_coll_nouns[IR_NCOLLS]; /* "all-to-all (...)" */
extern const char *const ir_dtype_names[IR_NDTYPES];
extern const char *const ir_redop_names[IR_NREDOPS];
/* The value called s in names[0..count), or -1. */
int ir_name_find(const char *const *names, int count, const char *s);
/* A value's name, "?" for a value the table does not have. */
const char *ir_topo_name(enum ir_topo t);
const char *ir_routing_name(enum ir_routing r);
const char *ir_coll_name(enum ir_coll c);
/* The IR_CK_* bits of a collective (0 for a value outside the table). */
unsigned ir_coll_kind(enum ir_coll c);
const char *ir_dtype_name(unsigned dt);
const char *ir_redop_name(unsigned op);
/* Bytes of one element of type dt; 0 for a type this code does not know
 * (IR_DT_UNKNOWN). */
size_t ir_dtype_size(unsigned dt);
/* The routings topology t allows (IR_RT bits), and its default. */
unsigned ir_topo_routings(enum ir_topo t);
enum ir_routing ir_topo_default_routing(enum ir_topo t);

/* A sparse n x n communication matrix in CSR form: the messages of rank i
 * are dst[row[i] .. row[i+1]) with sizes bytes[...], destinations sorted
 * ascending, no zero-byte entries unless keep_zero was asked for. */
struct ir_matrix {
	int32_t n;        /* ranks */
	int64_t nnz;      /* messages */
	int64_t *row;     /* n+1 offsets into dst/bytes */
	int32_t *dst;     /* destination rank of each message */
	int64_t *bytes;   /* size of each message */
};

struct ir_comm {
	enum ir_coll coll;  /* which collective */
	int32_t root;       /* root of an IR_CK_ROOTED collective */
	int64_t bytes;      /* per-rank block size; bcast: the message;
	                       IR_CK_REDUCES: the whole vector */
	int32_t segments;   /* bcast: message cut into this many segments;
	                       reduce, allreduce: vector cut into this many
	                       element blocks (the generator's choice) */
	enum ir_dtype dtype; /* IR_CK_REDUCES: element type */
	enum ir_redop op;   /* IR_CK_REDUCES: combining operation */
	bool reproducible;  /* IR_CK_REDUCES: the input requires that every
	                       rank holding a block's result combines it in
	                       the same order (the verifier proves it) */
	ir_matrix *matrix;  /* irregular: the matrix, owned by the comm */
	uint64_t seed;      /* seed of generated matrices and randomised
	                       schedulers; 0 when not used */
};

/* ---- phase IR ------------------------------------------------------- */

/* A data block: the unit the verifier tracks.  Block identity per
 * collective:
 *   bcast       (root, s)  segment s of the message
 *   scatter     (root, d)  the part for rank d
 *   gather      (r, 0)     rank r's part
 *   alltoall    (s, d)     from s to d
 *   transpose   (r, 0)     rank r's block
 *   irregular   (s, d)     message COM[s][d]
 *   allgather   (r, 0)     rank r's block
 *   reduce, reduce_scatter, allreduce
 *               (r, k)     rank r's partial of element block k, as r
 *                          holds it when it sends (IR_XF_REDUCE)
 * A reduction cuts its vector into ir_reduce_blocks element blocks, the
 * first ones an element longer when they do not divide evenly; block k
 * starts at ir_reduce_block_off.  Every rank starts with its own
 * contribution in each of its partials.                                */
struct ir_block {
	int32_t origin; /* rank that owns the data at the start */
	int32_t index;  /* which block of that origin */
};

/* Transfer flags. */
#define IR_XF_REDUCE 1u /* dst combines the carried partials into its own
                           partials of the same indices (dst = dst op
                           carried); the sender's partial covers every
                           contribution it has combined so far.  A
                           reduction's transfer without the flag
                           replaces dst's partials with the sender's.
                           Partials sent in a phase are as they were
                           before it; the ones a rank receives in a
                           phase are applied in transfer order. */
#define IR_XF_MCAST 2u  /* one copy of a hardware multicast (000 section 3:
                           an inter-level router replicates one message on
                           several channels): every IR_XF_MCAST transfer of
                           the same src in the same phase is one send of
                           one message (the copies carry the same blocks),
                           which travels once up to the replicating
                           router (ir_link_replicates) and as one copy per
                           outgoing link from there (docs/verifier.md).  A
                           software runtime sends the copies one by one. */

struct ir_transfer {
	int32_t src;        /* sending rank */
	int32_t dst;        /* receiving rank */
	int64_t bytes;      /* bytes on the wire: the sum of the block sizes */
	uint32_t block;     /* first block in ir_plan.blocks */
	uint32_t nblocks;   /* number of blocks carried (>= 1) */
	uint32_t flags;     /* IR_XF_* */
	uint32_t path;      /* the path the sender picks, < ir_path_count
	                       (ir_route_via); 0 where the routing picks */
};

struct ir_phase {
	uint32_t transfer;  /* first transfer in ir_plan.transfers */
	uint32_t ntransfers; /* transfers in this phase */
};

/* Plan flags: what the generator declares the plan may contain. */
#define IR_PLAN_LINK_CONTENTION 1u /* links may carry several transfers */
#define IR_PLAN_NODE_CONTENTION 2u /* ranks may exceed their port model */

/* How `algorithm: auto` chose a plan; all zero for a named algorithm. */
enum ir_select { IR_SELECT_NONE, IR_SELECT_SIMULATED, IR_SELECT_MODEL };
struct ir_selection {
	uint32_t method;             /* enum ir_select */
	uint32_t candidates;         /* algorithms that applied and verified */
	char runner_up[IR_NAME_MAX]; /* second best, "" if there was none */
	double time_us;              /* the chosen plan's time by the method */
	double runner_up_us;         /* the runner-up's (NaN if none) */
};

struct ir_plan {
	ir_machine machine;  /* copy of the machine it was made for */
	ir_comm comm;        /* copy of the communication (matrix owned) */
	char algorithm[IR_NAME_MAX]; /* generator name */
	uint32_t flags;      /* IR_PLAN_* */
	uint8_t input_hash[16]; /* XXH3-128 of the canonical input, 0 if none */
	struct ir_selection sel; /* why this algorithm, under auto */
	/* growable flat arrays; phases index transfers, transfers index blocks */
	ir_phase *phases;
	uint32_t nphases, cap_phases;
	ir_transfer *transfers;
	uint32_t ntransfers, cap_transfers;
	ir_block *blocks;
	uint32_t nblocks, cap_blocks;
};

/* What the verifier found.  ok is false if any rule failed; message then
 * says which rule, where, and why, in one line. */
struct ir_report {
	bool ok;
	char message[256];     /* first failure, or "" */
	uint32_t phases;       /* phases in the plan */
	uint64_t transfers;    /* transfers in the plan */
	uint64_t bytes;        /* bytes moved over all transfers */
	uint64_t duplicates;   /* blocks delivered to a rank that had them */
	uint32_t max_link_load;   /* largest number of transfers on one directed
	                             link in one phase over the link's
	                             capacity, rounded up (ir_link_phases; 0
	                             if no link used): 1 while every link is
	                             within its capacity */
	uint32_t max_node_sends;  /* largest sends by one rank in one phase */
	uint32_t max_node_recvs;  /* largest receives by one rank in one phase */
	uint32_t max_net_sends;   /* several ranks per node: largest network */
	uint32_t max_net_recvs;   /* sends (receives) by one node in a phase */
	uint64_t shm_transfers;   /* transfers inside a node (no link) */
	uint64_t hops;            /* sum of route lengths over all transfers */
	uint64_t contended;       /* transfers that share a directed link with
	                             another transfer of their phase (only
	                             plans that allow link contention have
	                             any) */
	bool direct;              /* every block went origin -> destination */
	bool reproducible;        /* a reduction whose every block is
	                             combined in the same order (the same
	                             tree of contributions) on every rank
	                             that ends with it, so float results
	                             agree bit for bit; true for the others */
	uint32_t *link_load;      /* per phase: max link load as max_link_load
	                             counts it (nphases entries,
	                             owned by the report, ir_report_fini) */
	/* lower bound on phases for this communication on this machine */
	uint32_t lb_phases;    /* the bound the plan is judged against: the
	                          largest of the terms below that apply */
	uint32_t lb_spread;    /* ceil(log_{p+1} N) information spreading */
	uint32_t lb_degree;    /* direct plans: ceil(max in/out degree / p) */
	uint32_t lb_link;      /* direct plans: max messages over one link
	                          over its capacity, rounded up */
};

/* The loads of one class of links over a plan (ir_class_loads): what
 * `explain` reports for machines whose links differ (fat trees). */
struct ir_class_load {
	uint64_t links;    /* directed links of the class in the machine */
	uint64_t capacity; /* their capacities (ir_link_capacity) summed */
	uint64_t hops;     /* hops the plan's transfers take on the class */
	uint32_t worst;    /* the busiest link of the class in its busiest
	                      phase: load over capacity, rounded up; under an
	                      adaptive routing the worst case over every
	                      choice of paths, 0 if the class is unused */
	double mean;       /* the busiest phase's hops on the class over the
	                      class's capacity: each link's load if the
	                      traffic were spread evenly over the class */
};

/* ---- lowered plan: per-rank operation lists ------------------------- */

/* The buffers a rank's operations address. */
enum ir_buf {
	IR_BUF_SEND,    /* the caller's input */
	IR_BUF_RECV,    /* the caller's output */
	IR_BUF_SCRATCH  /* plan-sized scratch, for blocks in transit */
};

/* One contiguous piece of a message in one of the rank's buffers. */
struct ir_iov {
	uint8_t buf;     /* enum ir_buf */
	uint64_t off;    /* byte offset in that buffer */
	uint64_t len;    /* bytes */
};

/* Runtime operations: name, and whether the op names a peer.
 * X(NAME, has_peer, comment)                                          */
#define IR_OPS(X)                                                           \
	X(PHASE, 0, "start of phase a; a barrier point unless disabled")     \
	X(RECV, 1, "receive from peer into iov[iov..iov+niov)")             \
	X(RECV_REDUCE, 1, "receive from peer, combine into iov (dtype/op)") \
	X(SEND, 1, "send iov[iov..iov+niov) to peer")                       \
	X(COPY, 0, "local copy: iov[iov] -> iov[iov+1]")                    \
	X(WAIT, 0, "wait for every receive and send of the phase")

enum ir_opcode {
#define X(name, peer, comment) IR_OP_##name,
	IR_OPS(X)
#undef X
	IR_NOPS
};

struct ir_op {
	uint8_t code;   /* enum ir_opcode */
	uint32_t phase; /* phase the op belongs to (the tag on the wire) */
	int32_t peer;   /* other rank, or -1 */
	uint32_t path;  /* SEND: the path the plan picked (ir_transfer.path),
	                   for a transport that can take it; 0 otherwise */
	uint64_t bytes; /* bytes moved by this op */
	uint32_t iov;   /* first iov of this op in the slice */
	uint32_t niov;  /* number of iovs */
};

/* One rank's part of a plan: all it needs to execute. */
struct ir_slice { /* the small fields first: 56 bytes, not 72, a rank */
	int32_t rank;
	uint32_t nops;
	uint32_t niovs;
	uint8_t dtype;          /* RECV_REDUCE: element type (enum ir_dtype),
	                           IR_DT_UNKNOWN in a file older than version 3 */
	uint8_t redop;          /* RECV_REDUCE: operation (enum ir_redop) */
	uint64_t send_bytes;    /* send buffer the rank must bind (>=) */
	uint64_t recv_bytes;    /* receive buffer the rank must bind (>=) */
	uint64_t scratch_bytes; /* scratch the plan needs on this rank */
	ir_op *ops;
	ir_iov *iovs;
};

/* ---- machine (ir/machine.c) ----------------------------------------- */

/* Validate a machine, fill its defaults (wrap, order, ranks_per_node)
 * and derive nnodes and nranks; 0 or CCP_EINVAL with a message in
 * err (errlen bytes) naming the offending field. */
int ir_machine_check(ir_machine *m, char *err, size_t errlen);

/* Every field of c not given (NaN), the preset name empty. */
void ir_cost_unset(ir_cost *c);
/* Whether c has a combine cost: given and above 0 (0 and unset both
 * cost nothing, and neither is written to a plan file or cache key). */
bool ir_cost_has_combine(const ir_cost *c);
/* Whether c gives a shared-memory cost (shm_alpha or shm_beta above 0);
 * like combine, 0 and unset cost nothing and are not written. */
bool ir_cost_has_shm(const ir_cost *c);
/* Coordinates of a rank's node.  mesh/torus: c[0..ndims); hypercube:
 * bits c[0..n) (bit 0 first); hpam: {x, y, level (0 or 1)}; switch:
 * {node}. */
void ir_coords(const ir_machine *m, int32_t rank, int c[IR_MAX_CUBE_DIM]);
/* The rank at coordinates c: with several ranks per node, the node's
 * first rank (local index 0); -1 outside the machine. */
int32_t ir_rank_of(const ir_machine *m, const int *c);
/* The node a rank sits on, and the rank with local index `local` on a
 * node (the inverse), under the machine's placement; node = rank with
 * one rank per node. */
int32_t ir_node_of(const ir_machine *m, int32_t rank);
int32_t ir_node_rank(const ir_machine *m, int32_t node, int32_t local);
/* A rank's index on its node: ir_node_rank(m, ir_node_of(m, r),
 * ir_node_local(m, r)) == r. */
int32_t ir_node_local(const ir_machine *m, int32_t rank);
/* The placement that puts rank r on node[r] (n ranks, nnodes nodes of
 * k ranks each): a new ir_place holding one reference, or NULL with a
 * message in err (CCP_EINVAL in *rc for a node out of range or one that
 * does not get exactly k ranks, naming the first such rank in *bad;
 * CCP_ENOMEM). */
ir_place *ir_place_from_nodes(const int32_t *node, int32_t n, int32_t nnodes,
                              int32_t k, int *rc, int32_t *bad, char *err,
                              size_t errlen);
/* Take and drop a reference (NULL is ignored); the last release frees. */
void ir_place_retain(ir_place *p);
void ir_place_release(ir_place *p);
/* A graph of nhosts hosts, nswitches switches and the given cables
 * (copied): checks every cable (ends in range and distinct, no second
 * cable between the same two vertices, width >= 1, bandwidth > 0 and a
 * whole multiple of the smallest once times the width, class) and that
 * every host reaches every other, then builds the distance tables.  A
 * new ir_graph holding one reference, or NULL with *rc CCP_EINVAL (the
 * message in err; *bad the index of the offending cable, or -1 when no
 * one cable is at fault) or CCP_ENOMEM. */
ir_graph *ir_graph_new(int32_t nhosts, int32_t nswitches,
                       const struct ir_cable *cables, uint32_t ncables,
                       int *rc, int64_t *bad, char *err, size_t errlen);
/* The graph of a job on some hosts of g: hosts[i] (n distinct hosts of
 * g) becomes host i, g's other hosts become switches after g's, and
 * every cable, in its order, joins the same vertices as in g, so every
 * route between two of these hosts is the one g gives (keys, above).
 * NULL with *rc and err on failure. */
ir_graph *ir_graph_subset(const ir_graph *g, const int32_t *hosts, int32_t n,
                          int *rc, char *err, size_t errlen);
/* Give g's hosts the route keys key[0..nhosts) (copied): distinct, 0 or
 * more.  CCP_EINVAL with err otherwise, CCP_ENOMEM. */
int ir_graph_set_keys(ir_graph *g, const int32_t *key, char *err,
                      size_t errlen);
/* One entry of a forwarding table: at vertex from, toward host, the
 * next hop is vertex to (a neighbour of from). */
struct ir_route_entry {
	int32_t from, host, to;
};
/* Give g the forwarding table of the n entries e (routing: table), every
 * other hop shortest's.  Each entry must name a vertex, a host other
 * than it and a neighbour, (from, host) at most once; and following the
 * table from every host must reach every other host.  0; CCP_EINVAL with
 * *bad the entry at fault (-1: none) and err; CCP_ENOMEM. */
int ir_graph_set_table(ir_graph *g, const struct ir_route_entry *e,
                       uint32_t n, int64_t *bad, char *err, size_t errlen);
/* g's forwarding table as entries, host by host and vertex by vertex
 * (*out malloc'd, NULL when there are none; *n their count): what plan
 * files, the canonical form and JSON write.  0 or CCP_ENOMEM. */
int ir_graph_table(const ir_graph *g, struct ir_route_entry **out, uint32_t *n);
/* Take and drop a reference (NULL is ignored); the last release frees. */
void ir_graph_retain(ir_graph *g);
void ir_graph_release(ir_graph *g);
/* Network transfers a node may send (and receive) in one phase:
 * node_ports, or its degree (one per network link) under IR_PORTS_ALL;
 * 0 for a node with no link. */
int ir_node_port_limit(const ir_machine *m, int32_t node);
/* Transfers a rank may send (and receive) in one phase: ports, or its
 * node's degree (one per network link) under IR_PORTS_ALL; 0 for a rank
 * whose node has no link. */
int ir_port_limit(const ir_machine *m, int32_t rank);
/* Whether a plan file of version 5 or older can describe the machine: a
 * mesh or torus of 1-3 dimensions that wraps all or none of them and
 * routes x, y, z; one rank per node; no shared-memory cost
 * (ir_cost_has_shm). */
bool ir_machine_is_classic(const ir_machine *m);
/* Whether the machine has more than one rank per node. */
bool ir_machine_has_nodes(const ir_machine *m);
/* Number of network links at a rank's node (its degree); all-port uses
 * it. */
int ir_degree(const ir_machine *m, int32_t rank);
/* Most link ids ir_route writes: the longest route, or under an
 * adaptive routing the largest union of paths.  Callers size their
 * route buffers by it. */
int ir_route_max(const ir_machine *m);
/* Number of directed link ids: every link id is in [0, ir_nlinks). */
uint64_t ir_nlinks(const ir_machine *m);
/* How many transfers a directed link carries in one phase without
 * contention: the number of parallel cables behind the id (a fat tree's
 * levels give it; a graph's cable its width x bandwidth / the graph's
 * smallest bandwidth; a dragonfly's link classes), 1 on every other
 * machine.  Everything that counts
 * link load (verifier, lower bound, splitter, simulator, schedulers)
 * compares against this one number. */
int ir_link_capacity(const ir_machine *m, uint64_t link);
/* Load that takes ceil(load / capacity) phases on a link: 1 while the
 * link is within its capacity, load itself when the capacity is 1. */
uint32_t ir_link_phases(const ir_machine *m, uint64_t link, uint64_t load);
/* The route src -> dst under the machine's routing, as directed link
 * ids in order; returns their count, which is the hop count (0 when
 * src == dst, and when both ranks share a node: such a transfer goes
 * through shared memory) unless the routing adapts (ir_routing_adapts).
 * links must hold ir_route_max(m) entries. */
int ir_route(const ir_machine *m, int32_t src, int32_t dst, uint64_t *links);
/* One path a message from src to dst may take, as ir_route writes it:
 * the route itself, or under an adaptive routing the deterministic path
 * it adapts from (fat tree: d-mod-k), which has the length and the link
 * classes of every allowed path.  links may be NULL to only count. */
int ir_path(const ir_machine *m, int32_t src, int32_t dst, uint64_t *links);
/* Hops of the path a message from src to dst takes (0 inside a node,
 * CCP_EINVAL for a rank outside the machine): ir_path's count. */
int ir_hops(const ir_machine *m, int32_t src, int32_t dst);
/* Whether the routing may send a message on any of several paths.  Then
 * ir_route gives the union of the links of every allowed path, so that
 * counting routes per link gives each link's worst-case load, which is
 * what contention-free must hold for. */
bool ir_routing_adapts(const ir_machine *m);
/* Whether the sender picks each message's path (routing: source), so
 * that a plan may fix the path of every transfer (ir_transfer.path). */
bool ir_routing_chooses(const ir_machine *m);
/* Paths a plan may pick for a message from src to dst: numbered 0 ..
 * count - 1, 0 the one ir_route gives (d-mod-k on a fat tree, minimal on
 * a dragonfly); 1 where the routing picks, or the ranks share a node. */
uint32_t ir_path_count(const ir_machine *m, int32_t src, int32_t dst);
/* Path number path (< ir_path_count) of the message src -> dst, as
 * ir_route writes a route; CCP_EINVAL for a path past the count or a
 * rank outside the machine.  links may be NULL to only count. */
int ir_route_via(const ir_machine *m, int32_t src, int32_t dst, uint32_t path,
                 uint64_t *links);
/* The route of a transfer of a plan: ir_route_via of its path.  What
 * every check of a plan's links (verifier, splitter, simulator, cost
 * model, drawings) routes by. */
int ir_route_xfer(const ir_machine *m, const ir_transfer *x, uint64_t *links);
/* The fewest links of each class (enum ir_link_class) on any path a
 * plan may pick for the message src -> dst, into least: what a lower
 * bound may count for it whatever paths a plan picks.  For a machine
 * whose routing chooses (ir_routing_chooses): fat tree or dragonfly. */
void ir_path_least(const ir_machine *m, int32_t src, int32_t dst,
                   uint32_t least[IR_NLINK_CLASSES]);
/* The class of a link id (< ir_nlinks). */
enum ir_link_class ir_link_class(const ir_machine *m, uint64_t link);
/* Whether some router of the machine replicates a message onto several
 * outgoing links at once (hardware multicast; today only HPAM's
 * inter-level routers, 000 section 3). */
bool ir_machine_replicates(const ir_machine *m);
/* Whether link leaves a replicating router as one of the links it can
 * copy a message onto (HPAM: a level-1 -> level-2 down link).  A
 * multicast is one message up to such a link, one copy per link from
 * it on. */
bool ir_link_replicates(const ir_machine *m, uint64_t link);
/* The two nodes a directed link joins (ranks, with one rank per node);
 * on a fat tree the two vertices, hosts 0..nnodes-1 (= nodes) and then
 * the switches level by level, on a graph its vertices (hosts, then
 * switches), on a dragonfly hosts and then router r + a * G at
 * nnodes + r + a * G (docs/machine-model.md); CCP_EINVAL for an unused
 * id. */
int ir_link_ends(const ir_machine *m, uint64_t link, int32_t *from, int32_t *to);

/* ---- communication (ir/comm.c) -------------------------------------- */

/* Size in bytes of block (origin, index) for this communication; -1
 * for a block it does not have. */
int64_t ir_block_bytes(const ir_comm *c, int32_t nranks, ir_block b);
/* A reduction's element blocks: how many (reduce_scatter: one per rank;
 * reduce, allreduce: segments), and where block k starts in the vector,
 * in bytes. */
int32_t ir_reduce_blocks(const ir_comm *c, int32_t nranks);
int64_t ir_reduce_block_off(const ir_comm *c, int32_t nranks, int32_t k);
/* The rank that must end with block b: the block's destination, or the
 * root a gather or reduce collects at; -1 when every rank must (a
 * broadcast, allgather or allreduce).  The verifier checks delivery against it, and the lowering
 * places the block there. */
int32_t ir_block_home(const ir_machine *m, const ir_comm *c, ir_block b);
/* Release what the comm owns (the matrix). */
void ir_comm_fini(ir_comm *c);
/* Deep copy (the matrix is duplicated). */
int ir_comm_copy(ir_comm *dst, const ir_comm *src);
ir_matrix *ir_matrix_new(int32_t n, int64_t nnz);
void ir_matrix_free(ir_matrix *x);
/* COM[s][d], 0 if absent (binary search in row s). */
int64_t ir_matrix_get(const ir_matrix *x, int32_t s, int32_t d);

/* ---- plan (ir/plan.c) ------------------------------------------------ */

void ir_plan_init(ir_plan *p, const ir_machine *m, const ir_comm *c,
                  const char *algorithm);
void ir_plan_fini(ir_plan *p);
/* Open a new phase; transfers added next belong to it. */
int ir_plan_phase(ir_plan *p);
/* Add a transfer carrying nblocks blocks; its bytes are computed from
 * the blocks.  Returns 0 or CCP_ENOMEM. */
int ir_plan_add(ir_plan *p, int32_t src, int32_t dst, const ir_block *blocks,
                uint32_t nblocks, uint32_t flags);
/* The same when the caller knows the blocks' bytes (a scheduler of a
 * matrix has each message's size at hand; ir_plan_add looks each block
 * up).  The verifier checks them against the blocks. */
int ir_plan_add_sized(ir_plan *p, int32_t src, int32_t dst,
                      const ir_block *blocks, uint32_t nblocks,
                      uint32_t flags, int64_t bytes);
/* Drop empty phases at the end. */
void ir_plan_trim(ir_plan *p);

/* ---- verifier (ir/verify.c) ----------------------------------------- */

/* Check causality, delivery, node and link contention, and compute the
 * lower bound.  Returns 0 when the plan is accepted, CCP_EVERIFY when a
 * rule fails (r->message says which), or CCP_ENOMEM. */
int ir_verify(const ir_plan *p, ir_report *r);
void ir_report_fini(ir_report *r);
/* Per class of links (enum ir_link_class), the links, their load in the
 * busiest phase under the plan's routing (worst case if it adapts) and
 * the mean load (struct ir_class_load).  CCP_ERANGE past 2^28 link ids,
 * where counting them would cost more than the plan. */
int ir_class_loads(const ir_plan *p, ir_class_load out[IR_NLINK_CLASSES]);
/* The lower bound alone (fills the lb_* fields of r).  The degree and
 * link terms hold only for direct plans (every block sent by its origin
 * to its destination), and only when the plan does not allow node
 * (resp. link) contention: plan_flags are the plan's IR_PLAN_* flags.
 * fanout is the most destinations one send reaches (the largest hardware
 * multicast group of the plan, 1 without multicast): spreading then
 * grows by ports x fanout per phase. */
int ir_lower_bound(const ir_machine *m, const ir_comm *c, bool direct,
                   uint32_t plan_flags, uint32_t fanout, ir_report *r);
/* The link term of the bound (ir_report.lb_link, into *link) and the
 * same term for each class of links alone (enum ir_link_class; 0 for a
 * class no message crosses), so that explain can say which links bound
 * a direct plan.  Zero everywhere where the term does not apply or is
 * skipped.  0 or CCP_ENOMEM. */
int ir_link_bound(const ir_machine *m, const ir_comm *c,
                  uint32_t by_class[IR_NLINK_CLASSES], uint32_t *link);

/* ---- lowering (ir/lower.c) ------------------------------------------ */

/* Lower a verified plan to per-rank slices: the buffer layout of each
 * block, scratch offsets, and the operation lists.  *out gets an array
 * of p->machine.nranks slices; free with ir_slices_free. */
int ir_lower(const ir_plan *p, ir_slice **out);
/* Free what ir_lower made: the slices and their ops and iovs are one
 * allocation, so slices built otherwise are freed with ir_slice_fini
 * each and free. */
void ir_slices_free(ir_slice *s, int32_t n);
const char *ir_op_name(enum ir_opcode op);

#endif
