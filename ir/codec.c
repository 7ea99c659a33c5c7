/*
 * codec.c - the .ccp binary plan format: a fixed header, a global section
 * (machine, communication, phase IR), a rank index, and one section per
 * rank holding its lowered slice.  The layout, byte order and checksums are
 * documented in docs/plan-format.md; the offsets below follow its tables.
 *
 * Every field is written and read byte by byte, little-endian, so a file
 * is the same on any host.  The reader trusts nothing: it checks magic,
 * versions, check values, the header checksum, every offset and size
 * against the file size, the checksums of what it reads, every count
 * against the bytes that hold it, and every value it stores, before any
 * of it is used.  The same consistency rules (check_plan, check_slice) run
 * on the writer's input, so no file is written that a reader would refuse.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "codec.h"
#include "le.h"
#include "tbuf.h"

/* ---- layout constants (docs/plan-format.md) ------------------------- */

static const uint8_t file_magic[8] = {0x89, 'C',  'C',  'P',
                                      '\r', '\n', 0x1a, '\n'};

/* header: 128 bytes */
#define HDR_SIZE      128
#define H_VERSION     8
#define H_MIN_READ    10
#define H_ENDIAN      12
#define H_SIZE_U32    14
#define H_SIZE_U64    15
#define H_SIZE_F64    16
#define H_COLL        17
#define H_HDR_SIZE    18
#define H_FLAGS       20
#define H_NRANKS      24
#define H_NPHASES     28
#define H_LB_PHASES   32
#define H_GLOBAL_OFF  36
#define H_GLOBAL_SIZE 40
#define H_INDEX_OFF   48
#define H_FILE_SIZE   56
#define H_ALGORITHM   64
#define H_INPUT_HASH  96
#define H_PLAN_HASH   112
#define H_CHECKSUM    120 /* XXH3_64 of bytes [0, 120) */

#define ENDIAN_CHECK 0x1234u

/* global section: a fixed part, then the arrays */
#define G_FIXED    288
#define G_PHASE    8  /* transfer u32, ntransfers u32 */
#define G_TRANSFER 28 /* src, dst, bytes, block, nblocks, flags */
#define G_BLOCK    8  /* origin, index */
#define G_SELECT                                                               \
	56 /* version 2, last: method, candidates, runner-up                   \
	      name, time, runner-up time */
#define G_COMBINE 8 /* version 5, after the selection: the combine cost */
#define G_MACHINE                                                              \
	64 /* version 6, after the combine cost: dims[3..8), wrap, order,      \
	      ranks_per_node, placement, node_ports, nnodes, shm_alpha,        \
	      shm_beta, a reserved 0 */
#define G_PLACE 4 /* version 6, after the machine when its placement is a
                     map: the node of each rank */
#define G_GRAPH 16 /* version 7, after the placement list of a graph
                      machine: nhosts, nswitches, ncables, and 1 when
                      route keys follow the cables (version 8), else 0 */
#define G_CABLE 32 /* version 7, after the graph record, per cable: a, b,
                      width, class u32, bandwidth, latency f64 */
#define G_KEY 4 /* version 8, after the cables of a graph whose record says
                   so: each host's route key (ir_graph.key) */
#define G_ROUTE 12 /* version 8, after a u32 count that follows the keys of
                      a graph whose record says so: each entry of its
                      forwarding table, from, host, to */
#define G_PATH 4 /* version 8, after the placement list of a machine
                    whose sender picks paths: each transfer's path */
#define V1_DIMS 3 /* mesh and torus extents in the fixed part */

/* rank section: a fixed part, ops, iovs, then its checksum */
#define S_FIXED 36 /* rank, nops, niovs, send, recv, scratch bytes */
#define S_OP    28 /* code, phase, peer, bytes, iov, niov */
#define S_IOV   20 /* buf, off, len */
#define S_TAIL  8  /* version 3, after the iovs: dtype u32, redop u32 */
#define S_PATH  4  /* version 8, after the tail: each op's path u32 */
#define S_SUM   8  /* XXH3_64 of the section's bytes before it */
#define S_MIN   (S_FIXED + S_SUM)

#define KNOWN_PLAN_FLAGS (IR_PLAN_LINK_CONTENTION | IR_PLAN_NODE_CONTENTION)
#define KNOWN_XF_FLAGS   (IR_XF_REDUCE | IR_XF_MCAST)

/* whether each runtime operation names a peer, from the one op table */
static const uint8_t op_has_peer[IR_NOPS] = {
#define X(name, peer, comment) peer,
        IR_OPS(X)
#undef X
};

/* The header, parsed: what ir_file_info shows plus where things are. */
struct header {
	ir_file_info info;
	uint16_t min_read;
	uint64_t global_off, global_size;
	uint64_t index_off;
};

/* ---- errors ----------------------------------------------------------- */

/* Put a one-line reason in err (if any) and return code, so that every
 * check reads "return fail(...)". */
static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen > 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}


/* Two's-complement reinterpretation without implementation-defined
 * conversions: the file stores signed fields as their unsigned image. */
static int32_t as_i32(uint32_t v)
{
	return v <= INT32_MAX ? (int32_t)v : -(int32_t)(UINT32_MAX - v) - 1;
}

/* See as_i32. */
static int64_t as_i64(uint64_t v)
{
	return v <= INT64_MAX ? (int64_t)v : -(int64_t)(UINT64_MAX - v) - 1;
}

/* A double as its IEEE-754 bits and back, NaN payloads and -0.0
 * included, so cost fields round-trip exactly. */
static uint64_t f64_bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

/* See f64_bits. */
static double bits_f64(uint64_t u)
{
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

/* ---- writing: fields appended to a struct tbuf (tbuf.h) ------------- */

/* Append fields to the output; after a failed growth they do nothing
 * and the caller sees nomem once at the end. */
static void put_u32(struct tbuf *b, uint32_t v)
{
	/* room already there (tb_reserve's test) is the usual case: a
	 * million-rank plan is a hundred million fields */
	if ((!b->nomem && b->cap - b->len > 4) || tb_reserve(b, 4) == 0) {
		le_set_u32((uint8_t *)b->p + b->len, v);
		b->len += 4;
	}
}

/* See put_u32. */
static void put_u64(struct tbuf *b, uint64_t v)
{
	if ((!b->nomem && b->cap - b->len > 8) || tb_reserve(b, 8) == 0) {
		le_set_u64((uint8_t *)b->p + b->len, v);
		b->len += 8;
	}
}

/* See put_u32. */
static void put_bytes(struct tbuf *b, const void *src, size_t n)
{
	tb_put(b, src, n);
}

/* A name field: the string, NUL-padded to IR_NAME_MAX bytes, so nothing
 * after the terminator (stale bytes in memory) reaches the file. */
static void put_name(struct tbuf *b, const char name[IR_NAME_MAX])
{
	uint8_t field[IR_NAME_MAX] = {0};
	size_t n = strnlen(name, IR_NAME_MAX - 1);
	memcpy(field, name, n);
	put_bytes(b, field, sizeof field);
}

/* ---- the bounded input reader ---------------------------------------- */

struct ibuf {
	const uint8_t *p;
	uint64_t len, pos;
	bool short_read; /* sticky: a read ran past the end */
};

/* Pointer to the next n bytes, or NULL (and short_read set). */
static const uint8_t *ib_take(struct ibuf *r, uint64_t n)
{
	if (r->short_read || r->len - r->pos < n) {
		r->short_read = true;
		return NULL;
	}
	const uint8_t *q = r->p + r->pos;
	r->pos += n;
	return q;
}

/* Read fields; past the end they give 0 and set short_read, which the
 * callers check (the counts were checked first, so it never happens). */
static uint32_t rd_u32(struct ibuf *r)
{
	const uint8_t *q = ib_take(r, 4);
	return q ? le_get_u32(q) : 0;
}

/* See rd_u32. */
static uint64_t rd_u64(struct ibuf *r)
{
	const uint8_t *q = ib_take(r, 8);
	return q ? le_get_u64(q) : 0;
}

/* See rd_u32. */
static int32_t rd_i32(struct ibuf *r)
{
	return as_i32(rd_u32(r));
}

/* See rd_u32. */
static int64_t rd_i64(struct ibuf *r)
{
	return as_i64(rd_u64(r));
}

/* See rd_u32. */
static double rd_f64(struct ibuf *r)
{
	return bits_f64(rd_u64(r));
}

/* True when a name field is NUL-terminated and zero after the terminator:
 * the only form the writer produces. */
static bool name_ok(const uint8_t field[IR_NAME_MAX])
{
	const uint8_t *nul = memchr(field, 0, IR_NAME_MAX);
	if (!nul)
		return false;
	for (const uint8_t *q = nul; q < field + IR_NAME_MAX; q++)
		if (*q)
			return false;
	return true;
}

/* Read a name field into out; false if it is not in canonical form. */
static bool rd_name(struct ibuf *r, char out[IR_NAME_MAX])
{
	const uint8_t *q = ib_take(r, IR_NAME_MAX);
	if (!q || !name_ok(q))
		return false;
	memcpy(out, q, IR_NAME_MAX);
	return true;
}

/* Subtract count records of size bytes from *rem; false if they do not
 * fit.  Overflow-safe: the division comes first. */
static bool take_records(uint64_t *rem, uint64_t count, uint64_t size)
{
	if (count > *rem / size)
		return false;
	*rem -= count * size;
	return true;
}

/* ---- consistency rules, shared by writer and reader ------------------ */

/* The machine: enums in range, dimensions that fit the topology, and
 * nranks equal to what the dimensions give, so that no later pass can
 * index past a dims[] or derive a rank the plan does not have. */
static int check_machine(const ir_machine *m, char *err, size_t errlen)
{
	if ((unsigned)m->topo >= IR_NTOPOS)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: topology %u "
		            "is not a known kind",
		            (unsigned)m->topo);
	if ((unsigned)m->routing >= IR_NROUTINGS)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: routing %u "
		            "is not a known function",
		            (unsigned)m->routing);
	if (m->nranks < 1 || m->nranks > IR_MAX_RANKS)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: machine has "
		            "%" PRId32 " ranks",
		            m->nranks);
	if (m->ports < 0)
		return fail(err, errlen, CCP_EFORMAT, "bad plan: ports %d",
		            m->ports);
	int64_t n = 0;
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
	case IR_FAT_TREE: /* hosts: the product of the m_i (ir_machine_check
	                     below checks the w_i and the widths) */
	case IR_DRAGONFLY: /* hosts: p * a * g, ndims 3 (ir_machine_check
	                      checks h, the arrangement and the widths) */
		if (m->ndims < (m->topo == IR_DRAGONFLY ? 3 : 1) ||
		    m->ndims > (m->topo == IR_FAT_TREE    ? IR_MAX_TREE
		                : m->topo == IR_DRAGONFLY ? 3
		                                          : IR_MAX_DIMS))
			break;
		n = 1;
		for (int i = 0; i < m->ndims && n > 0 && n <= IR_MAX_RANKS; i++)
			n = m->dims[i] < 1 || m->dims[i] > IR_MAX_RANKS
			            ? 0
			            : n * m->dims[i];
		if (n > IR_MAX_RANKS)
			n = 0;
		break;
	case IR_HYPERCUBE:
		if (m->ndims >= 0 && m->ndims <= IR_MAX_CUBE_DIM)
			n = INT64_C(1) << m->ndims;
		break;
	case IR_HPAM:
		if (m->ndims != 2)
			break;
		n = 0;
		for (int l = 0; l < 2; l++) {
			int r = m->levels[l][0], c = m->levels[l][1];
			if (r < 1 || c < 1 || r > IR_MAX_RANKS ||
			    c > IR_MAX_RANKS) {
				n = -1;
				break;
			}
			n += (int64_t)r * c;
		}
		break;
	case IR_SWITCH:
		if (m->ndims == 1)
			n = m->dims[0];
		break;
	case IR_GRAPH: /* its hosts (the graph record's own checks ran) */
		if (m->ndims == 1 && m->graph && m->dims[0] == m->graph->nhosts)
			n = m->dims[0];
		break;
	}
	if (m->ranks_per_node > 1 && m->ranks_per_node <= IR_MAX_RANKS)
		n *= m->ranks_per_node;
	if (n != m->nranks)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: the machine's "
		            "dimensions (topology %u, ndims %d) do not give "
		            "%" PRId32 " ranks",
		            (unsigned)m->topo, m->ndims, m->nranks);
	if (!memchr(m->cost.preset, 0, IR_NAME_MAX))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: cost preset name is not terminated");
	/* the rest (wrap, order, nodes) as the machine model checks it, and
	 * with its defaults already filled in */
	ir_machine c = *m;
	char why[200];
	if (ir_machine_check(&c, why, sizeof why) < 0)
		return fail(err, errlen, CCP_EFORMAT, "bad plan: machine: %s",
		            why);
	if (m->topo == IR_FAT_TREE &&
	    (memcmp(c.dims, m->dims, sizeof c.dims) ||
	     memcmp(c.levels, m->levels, sizeof c.levels)))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: a fat tree's unused levels and link "
		            "widths are written as 1, not 0");
	if (m->topo == IR_DRAGONFLY &&
	    (memcmp(c.dims, m->dims, sizeof c.dims) ||
	     memcmp(c.levels, m->levels, sizeof c.levels)))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: a dragonfly's unused dims and link "
		            "widths are written as 1, not 0");
	if (c.nranks != m->nranks ||
	    (!ir_machine_is_classic(m) &&
	     (c.wrap != m->wrap || memcmp(c.order, m->order, sizeof c.order) ||
	      c.ranks_per_node != m->ranks_per_node || c.nnodes != m->nnodes)))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: the machine's derived fields (wrap, "
		            "order, nodes) are not what its shape gives");
	return 0;
}

/* A mesh's or torus's extents as a file gives them: each of the ndims
 * at least 1 and every one after them 1, since the routing and the
 * coordinates divide by all IR_MAX_DIMS of them (check_machine checks
 * the rest).  A machine in memory may leave the unused ones 0, which
 * ir_machine_check reads as 1; a file always says 1. */
static int check_grid_dims(const ir_machine *m, char *err, size_t errlen)
{
	if ((m->topo != IR_MESH && m->topo != IR_TORUS) || m->ndims < 1 ||
	    m->ndims > IR_MAX_DIMS)
		return 0;
	for (int d = 0; d < IR_MAX_DIMS; d++) {
		if (d < m->ndims && m->dims[d] < 1)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: dims[%d] is %d (an extent is "
			            "at least 1)",
			            d, m->dims[d]);
		if (d >= m->ndims && m->dims[d] != 1)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: dims[%d] is %d past the "
			            "machine's %d dimensions (must be 1)",
			            d, m->dims[d], m->ndims);
	}
	return 0;
}

/* The CSR matrix of an irregular communication: one row per rank, row
 * offsets rising from 0 to nnz, destinations in range and strictly
 * ascending in each row (ir_block_bytes searches them), sizes in range. */
static int check_matrix(const ir_matrix *x, int32_t nranks, char *err,
                        size_t errlen)
{
	if (x->n != nranks)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: matrix is "
		            "%" PRId32 " x %" PRId32 " for %" PRId32 " ranks",
		            x->n, x->n, nranks);
	if (x->nnz < 0 || !x->row || (x->nnz > 0 && (!x->dst || !x->bytes)))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: matrix arrays missing");
	if (x->row[0] != 0 || x->row[x->n] != x->nnz)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: matrix rows "
		            "do not span its %" PRId64 " messages",
		            x->nnz);
	for (int32_t i = 0; i < x->n; i++) {
		int64_t lo = x->row[i], hi = x->row[i + 1];
		if (lo > hi || hi > x->nnz)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: matrix "
			            "row %" PRId32 " has bad offsets",
			            i);
		for (int64_t k = lo; k < hi; k++) {
			if (x->dst[k] < 0 || x->dst[k] >= x->n ||
			    (k > lo && x->dst[k] <= x->dst[k - 1]))
				return fail(err, errlen, CCP_EFORMAT,
				            "bad plan: "
				            "matrix row %" PRId32
				            " has a bad or "
				            "unsorted destination",
				            i);
			if (x->bytes[k] < 0 || x->bytes[k] > IR_MAX_BYTES)
				return fail(err, errlen, CCP_EFORMAT,
				            "bad plan: "
				            "matrix message %" PRId32
				            " -> %" PRId32 " has %" PRId64
				            " bytes",
				            i, x->dst[k], x->bytes[k]);
		}
	}
	return 0;
}

/* The communication: enums in range, root a rank where there is one,
 * sizes within the documented limits, and the matrix if present. */
static int check_comm(const ir_comm *c, int32_t nranks, char *err,
                      size_t errlen)
{
	if ((unsigned)c->coll >= IR_NCOLLS)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: collective %u "
		            "is not a known kind",
		            (unsigned)c->coll);
	if ((unsigned)c->dtype > IR_DT_DOUBLE)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: element type "
		            "%u is not a known type",
		            (unsigned)c->dtype);
	if ((unsigned)c->op > IR_OP_MAX)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: reduction %u "
		            "is not a known operation",
		            (unsigned)c->op);
	bool rooted = ir_coll_kind(c->coll) & IR_CK_ROOTED;
	if (rooted && (c->root < 0 || c->root >= nranks))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: root %" PRId32 " is not one of %" PRId32
		            " ranks",
		            c->root, nranks);
	if (c->bytes < 0 || c->bytes > IR_MAX_BYTES)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: block size %" PRId64 " out of range",
		            c->bytes);
	if (c->segments < 0 || c->segments > IR_MAX_SEGMENTS)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: %" PRId32 " segments out of range",
		            c->segments);
	return c->matrix ? check_matrix(c->matrix, nranks, err, errlen) : 0;
}

/* The whole plan: machine, communication, flags, and the phase IR with
 * every transfer and block index inside its array. */
static int check_plan(const ir_plan *p, char *err, size_t errlen)
{
	int rc = check_machine(&p->machine, err, errlen);
	if (rc)
		return rc;
	int32_t n = p->machine.nranks;
	if ((rc = check_comm(&p->comm, n, err, errlen)) != 0)
		return rc;
	if (!memchr(p->algorithm, 0, IR_NAME_MAX))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: algorithm name is not terminated");
	if (p->flags & ~KNOWN_PLAN_FLAGS)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: unknown plan "
		            "flags 0x%" PRIx32,
		            p->flags);
	if ((p->nphases && !p->phases) || (p->ntransfers && !p->transfers) ||
	    (p->nblocks && !p->blocks))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: phase IR arrays missing");
	for (uint32_t i = 0; i < p->nphases; i++) {
		const ir_phase *ph = &p->phases[i];
		if ((uint64_t)ph->transfer + ph->ntransfers > p->ntransfers)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: phase %" PRIu32
			            " names transfers past the %" PRIu32
			            " there are",
			            i, p->ntransfers);
	}
	for (uint32_t i = 0; i < p->ntransfers; i++) {
		const ir_transfer *t = &p->transfers[i];
		if (t->src < 0 || t->src >= n || t->dst < 0 || t->dst >= n)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: transfer %" PRIu32
			            " joins ranks %" PRId32 " -> %" PRId32
			            " of %" PRId32,
			            i, t->src, t->dst, n);
		if (t->bytes < 0)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: transfer %" PRIu32
			            " has %" PRId64 " bytes",
			            i, t->bytes);
		if ((uint64_t)t->block + t->nblocks > p->nblocks)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: transfer %" PRIu32
			            " names blocks past the %" PRIu32
			            " there are",
			            i, p->nblocks);
		if (t->flags & ~KNOWN_XF_FLAGS)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: transfer %" PRIu32
			            " has unknown flags 0x%" PRIx32,
			            i, t->flags);
		if (t->path && t->path >= ir_path_count(&p->machine, t->src,
		                                          t->dst))
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: transfer %" PRIu32 " takes path "
			            "%" PRIu32 " of the %" PRIu32 " it has",
			            i, t->path,
			            ir_path_count(&p->machine, t->src, t->dst));
	}
	for (uint32_t i = 0; i < p->nblocks; i++) {
		const ir_block *b = &p->blocks[i];
		if (b->origin < 0 || b->origin >= n || b->index < 0)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: block %" PRIu32 " is (%" PRId32
			            ", %" PRId32 ")",
			            i, b->origin, b->index);
	}
	return 0;
}

/* Bytes of buffer buf that the slice binds. */
static uint64_t slice_buf_bytes(const ir_slice *s, unsigned buf)
{
	return buf == IR_BUF_SEND   ? s->send_bytes
	       : buf == IR_BUF_RECV ? s->recv_bytes
	                            : s->scratch_bytes;
}

static const char *const buf_names[] = {"send", "recv", "scratch"};

/* How an op of a phase group uses one of its pieces, for the overlap
 * check: the transport writes a receive's pieces and a reduction's
 * landing slot while the phase runs, reads a send's pieces, and the
 * combine step reads and writes the reduction's running partial after
 * the phase's wait. */
enum piece_use { USE_READ, USE_WRITE, USE_ACCUM };

/* One piece of a phase group, as the overlap check sorts them. */
struct piece {
	uint64_t off, end; /* [off, end) in buffer buf */
	uint32_t op;       /* the op that names it */
	uint8_t buf;       /* enum ir_buf */
	uint8_t use;       /* enum piece_use */
};

static int piece_cmp(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;
	if (x->buf != y->buf)
		return x->buf < y->buf ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->use > y->use) - (x->use < y->use);
}

/* The pieces of one phase group, p[0..n): no byte that the transport
 * writes while the phase runs (a receive's piece) is written by another
 * piece of the phase or read by one.  The running partials a reduction
 * combines into (USE_ACCUM) are written only after the phase's wait, one
 * receive after the other in op order, when every send has read its
 * bytes: they may share bytes with each other and with what the phase
 * sends, not with what it receives.  No two pieces of one op overlap.
 * Sorted by offset, a piece overlaps an earlier one exactly when it
 * starts before the furthest end of the earlier ones, so one sweep per
 * buffer keeps the furthest piece of each use. */
static int check_overlap(const ir_slice *s, uint32_t phase, struct piece *p,
                         size_t n, char *err, size_t errlen)
{
	qsort(p, n, sizeof *p, piece_cmp);
	const struct piece *far[3] = {NULL, NULL, NULL}; /* by enum piece_use */
	for (size_t i = 0; i < n; i++) {
		const struct piece *x = &p[i], *hit = NULL;
		if (i > 0 && p[i - 1].buf != x->buf)
			far[USE_READ] = far[USE_WRITE] = far[USE_ACCUM] = NULL;
		for (int u = 0; u < 3 && !hit; u++) {
			const struct piece *y = far[u];
			if (!y || x->off >= y->end)
				continue;
			/* only a receive's piece shares nothing; partials
			 * share with those of other ops */
			bool shares = x->use != USE_WRITE && u != USE_WRITE &&
			              !(x->use == USE_ACCUM && u == USE_ACCUM &&
			                y->op == x->op);
			if (shares)
				continue;
			hit = y;
		}
		if (hit && hit->op == x->op)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " phase %" PRIu32
			            ": op %" PRIu32 " writes bytes [%" PRIu64
			            ", %" PRIu64
			            ") of the %s buffer through two "
			            "of its pieces",
			            s->rank, phase, x->op, x->off,
			            hit->end < x->end ? hit->end : x->end,
			            buf_names[x->buf]);
		if (hit) {
			const struct piece *a = hit->op < x->op ? hit : x;
			const struct piece *b = hit->op < x->op ? x : hit;
			uint64_t hi = hit->end < x->end ? hit->end : x->end;
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " phase %" PRIu32
			            ": op %" PRIu32 " %s bytes [%" PRIu64
			            ", %" PRIu64
			            ") of the %s buffer that op %" PRIu32
			            " %s in the same phase",
			            s->rank, phase, b->op,
			            b->use == USE_READ ? "reads" : "writes",
			            x->off, hi, buf_names[x->buf], a->op,
			            a->use == USE_READ ? "reads" : "writes");
		}
		if (!far[x->use] || x->end > far[x->use]->end)
			far[x->use] = x;
	}
	return 0;
}

/* Where the ops of a slice are, as check_ops walks them (ir/lower.c's
 * layout, which the engine executes). */
enum walk { IN_PROLOGUE, IN_GROUP, AFTER_GROUP };

/* Op i's pieces: their lengths against its bytes, and none written in
 * the send buffer, which the application binds read-only.  Appends the
 * pieces of a group op to p (*np of them). */
static int check_pieces(const ir_slice *s, uint32_t i, struct piece *p,
                        size_t *np, char *err, size_t errlen)
{
	const ir_op *o = &s->ops[i];
	const ir_iov *v = o->niov ? &s->iovs[o->iov] : NULL;
	const char *name = ir_op_name((enum ir_opcode)o->code);
	int32_t rank = s->rank;
	/* COPY: from one piece to another of the same length; RECV_REDUCE:
	 * where the message lands, then the partials it combines into,
	 * which add up to it (one piece of its length when there is one) */
	bool pair = o->code == IR_OP_COPY ||
	            (o->code == IR_OP_RECV_REDUCE && o->niov <= 2);
	bool landing = o->code == IR_OP_RECV_REDUCE && o->niov > 2;
	if (o->code == IR_OP_PHASE || o->code == IR_OP_WAIT) {
		if (o->bytes != 0 || o->niov != 0)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " op %" PRIu32
			            ": %s with %" PRIu64 " bytes and %" PRIu32
			            " pieces (it moves none)",
			            rank, i, name, o->bytes, o->niov);
		return 0;
	}
	if (pair && o->niov != 2)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: rank %" PRId32 " op %" PRIu32
		            ": %s takes %s2 pieces, it has %" PRIu32,
		            rank, i, name,
		            o->code == IR_OP_RECV_REDUCE ? "at least " : "",
		            o->niov);
	if (o->niov == 0 && o->bytes != 0)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: rank %" PRId32 " op %" PRIu32
		            ": %s of %" PRIu64 " bytes has no pieces",
		            rank, i, name, o->bytes);
	uint64_t sum = 0; /* kept <= o->bytes, so it never overflows */
	for (uint32_t k = 0; k < o->niov; k++) {
		bool writes = o->code == IR_OP_RECV ||
		              o->code == IR_OP_RECV_REDUCE ||
		              (o->code == IR_OP_COPY && k == 1);
		if (writes && v[k].buf == IR_BUF_SEND)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " op %" PRIu32
			            ": %s writes into the send buffer (iov "
			            "%" PRIu32 ")",
			            rank, i, name, o->iov + k);
		if ((pair || (landing && k == 0)) && v[k].len != o->bytes)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " op %" PRIu32
			            ": %s of %" PRIu64 " bytes has a %s piece "
			            "of %" PRIu64,
			            rank, i, name, o->bytes,
			            k == 0 ? "first" : "second", v[k].len);
		if (!pair && !(landing && k == 0) &&
		    v[k].len > o->bytes - sum)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " op %" PRIu32
			            ": %s of %" PRIu64 " bytes has pieces of "
			            "more than %" PRIu64,
			            rank, i, name, o->bytes, o->bytes);
		if (!pair && !(landing && k == 0))
			sum += v[k].len;
		if (o->code == IR_OP_COPY || v[k].len == 0)
			continue;
		p[*np] = (struct piece){.off = v[k].off,
		                        .end = v[k].off + v[k].len,
		                        .op = i,
		                        .buf = v[k].buf,
		                        .use = o->code == IR_OP_SEND ? USE_READ
		                               : o->code == IR_OP_RECV
		                                       ? USE_WRITE
		                               : k == 0 ? USE_WRITE
		                                        : USE_ACCUM};
		(*np)++;
	}
	if (!pair && sum != o->bytes)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: rank %" PRId32 " op %" PRIu32
		            ": %s of %" PRIu64 " bytes has pieces of %" PRIu64,
		            rank, i, name, o->bytes, sum);
	size_t es = ir_dtype_size(s->dtype);
	if (o->code == IR_OP_RECV_REDUCE && es && o->bytes % es != 0)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: rank %" PRId32 " op %" PRIu32
		            ": RECV_REDUCE of %" PRIu64 " bytes is not a whole "
		            "number of %zu-byte elements",
		            rank, i, o->bytes, es);
	for (uint32_t k = 1; landing && es && k < o->niov; k++)
		if (v[k].len % es != 0)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " op %" PRIu32
			            ": RECV_REDUCE combines into a piece of "
			            "%" PRIu64 " bytes, not a whole number of "
			            "%zu-byte elements",
			            rank, i, v[k].len, es);
	return 0;
}

/* The ops in the order the engine walks them (runtime/engine.c): a
 * prologue of COPYs, then groups PHASE, receives and sends, WAIT, in
 * strictly increasing phases, every op of a group in its group's phase;
 * each op's own rules (check_pieces); and within each group, no byte
 * written twice or written and read (check_overlap).  p has room for
 * every iov of the slice. */
static int check_ops(const ir_slice *s, uint32_t nphases, struct piece *p,
                     char *err, size_t errlen)
{
	int32_t rank = s->rank;
	enum walk at = IN_PROLOGUE;
	uint32_t group = 0,
	         next_iov = 0; /* the group's phase; first free iov */
	size_t np = 0;
	for (uint32_t i = 0; i < s->nops; i++) {
		const ir_op *o = &s->ops[i];
		const char *name = ir_op_name((enum ir_opcode)o->code);
		if (op_has_peer[o->code] && o->peer == rank)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " op %" PRIu32
			            ": %s names the rank itself as its peer",
			            rank, i, name);
		if (o->niov && o->iov < next_iov)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " op %" PRIu32
			            ": %s's pieces (iov %" PRIu32
			            ") are not after the previous op's",
			            rank, i, name, o->iov);
		if (o->niov)
			next_iov = o->iov + o->niov;
		switch (o->code) {
		case IR_OP_COPY:
			if (at != IN_PROLOGUE)
				return fail(
				        err, errlen, CCP_EFORMAT,
				        "bad plan: rank %" PRId32 " op %" PRIu32
				        ": COPY after the first PHASE (local "
				        "copies are the prologue)",
				        rank, i);
			break;
		case IR_OP_PHASE:
			if (at == IN_GROUP)
				return fail(err, errlen, CCP_EFORMAT,
				            "bad plan: rank %" PRId32
				            " op %" PRIu32 ": PHASE %" PRIu32
				            " inside the group "
				            "of phase %" PRIu32
				            " (no WAIT before it)",
				            rank, i, o->phase, group);
			if (o->phase >= nphases)
				return fail(err, errlen, CCP_EFORMAT,
				            "bad plan: rank %" PRId32
				            " op %" PRIu32 ": PHASE %" PRIu32
				            " in a plan of %" PRIu32 " phases",
				            rank, i, o->phase, nphases);
			if (at == AFTER_GROUP && o->phase <= group)
				return fail(err, errlen, CCP_EFORMAT,
				            "bad plan: rank %" PRId32
				            " op %" PRIu32 ": PHASE %" PRIu32
				            " after phase %" PRIu32
				            " (phases only increase)",
				            rank, i, o->phase, group);
			at = IN_GROUP;
			group = o->phase;
			np = 0;
			break;
		default: /* receives, sends and WAIT belong to a group */
			if (at != IN_GROUP)
				return fail(err, errlen, CCP_EFORMAT,
				            "bad plan: rank %" PRId32
				            " op %" PRIu32
				            ": %s outside a phase group",
				            rank, i, name);
			if (o->phase != group)
				return fail(err, errlen, CCP_EFORMAT,
				            "bad plan: rank %" PRId32
				            " op %" PRIu32
				            ": %s of phase %" PRIu32
				            " in the group of phase %" PRIu32,
				            rank, i, name, o->phase, group);
		}
		int rc = check_pieces(s, i, p, &np, err, errlen);
		if (rc)
			return rc;
		if (o->code == IR_OP_WAIT) {
			if ((rc = check_overlap(s, group, p, np, err, errlen)))
				return rc;
			at = AFTER_GROUP;
		}
	}
	if (at == IN_GROUP)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: rank %" PRId32 ": phase %" PRIu32
		            " has no WAIT",
		            rank, group);
	return 0;
}

static bool alloc_array(void **arr, uint64_t n, size_t size);

/* One rank's slice: every rule the engine (runtime/engine.c) and the
 * transports rely on, so that the runtime executes it with no other
 * check and no byte outside the bound buffers is touched
 * (docs/plan-format.md, "What a loader checks").  Op codes known, peers
 * real ranks, phases inside the plan, iov ranges inside the slice, every
 * iov inside the buffer it names, then the ops themselves (check_ops). */
static int check_slice(const ir_slice *s, int32_t rank, int32_t nranks,
                       uint32_t nphases, char *err, size_t errlen)
{
	if (s->rank != rank)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: rank %" PRId32
		            " section holds the slice of rank %" PRId32,
		            rank, s->rank);
	if ((s->nops && !s->ops) || (s->niovs && !s->iovs))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: rank %" PRId32 " slice arrays missing",
		            rank);
	if ((s->dtype > IR_DT_DOUBLE && s->dtype != IR_DT_UNKNOWN) ||
	    s->redop > IR_OP_MAX)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: rank %" PRId32 " has element type %u "
		            "and reduction %u",
		            rank, (unsigned)s->dtype, (unsigned)s->redop);
	uint32_t maxphase = nphases ? nphases : 1;
	for (uint32_t i = 0; i < s->nops; i++) {
		const ir_op *o = &s->ops[i];
		if (o->code >= IR_NOPS)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " op %" PRIu32
			            " has code %u",
			            rank, i, (unsigned)o->code);
		bool peer_ok = op_has_peer[o->code]
		                       ? o->peer >= 0 && o->peer < nranks
		                       : o->peer >= -1 && o->peer < nranks;
		if (!peer_ok)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " op %" PRIu32
			            " has peer %" PRId32,
			            rank, i, o->peer);
		if (o->phase >= maxphase)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " op %" PRIu32
			            " is in phase %" PRIu32 " of %" PRIu32,
			            rank, i, o->phase, nphases);
		if (o->path && o->code != IR_OP_SEND)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " op %" PRIu32
			            " is no send but names path %" PRIu32,
			            rank, i, o->path);
		if ((uint64_t)o->iov + o->niov > s->niovs)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " op %" PRIu32
			            " names bad iovs",
			            rank, i);
	}
	for (uint32_t i = 0; i < s->niovs; i++) {
		const ir_iov *v = &s->iovs[i];
		if (v->buf > IR_BUF_SCRATCH)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " iov %" PRIu32
			            " names buffer %u",
			            rank, i, (unsigned)v->buf);
		uint64_t size = slice_buf_bytes(s, v->buf);
		if (v->len > size || v->off > size - v->len)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " iov %" PRIu32
			            " (%" PRIu64 " bytes at %" PRIu64
			            ") is outside its %" PRIu64 "-byte buffer",
			            rank, i, v->len, v->off, size);
	}
	/* the overlap check sorts a group's pieces: on the stack when they
	 * are few, which they are in every plan but the largest */
	struct piece small[64], *p = small;
	if (s->niovs > sizeof small / sizeof *small &&
	    !alloc_array((void **)&p, s->niovs, sizeof *p))
		return fail(err, errlen, CCP_ENOMEM, "out of memory");
	int rc = check_ops(s, nphases, p, err, errlen);
	if (p != small)
		free(p);
	return rc;
}

int ir_slice_check(const ir_slice *s, int32_t rank, int32_t nranks,
                   uint32_t nphases, char *err, size_t errlen)
{
	return check_slice(s, rank, nranks, nphases, err, errlen);
}

/* ---- writing ---------------------------------------------------------- */

/* Extent d of m as a file holds it: a mesh's or torus's unused extent
 * left 0 in memory (ir_machine_check reads it as 1) is written as 1, as
 * the reader requires (check_grid_dims). */
static int32_t file_dim(const ir_machine *m, int d)
{
	bool grid = m->topo == IR_MESH || m->topo == IR_TORUS;
	return grid && d >= m->ndims && m->dims[d] == 0 ? 1 : m->dims[d];
}

struct stream;
static void st_flush(struct stream *st, bool all);
/* In put_global's long loops: hand what is made to the stream (if any)
 * every 4096 items, so that a plan's global section is never in memory
 * whole. */
#define SPILL(i)                                                          \
	do {                                                              \
		if (st && ((i) & 4095) == 0)                              \
			st_flush(st, false);                              \
	} while (0)

/* The global section: machine, communication, the plan's own fields, then
 * the matrix arrays and the phase IR arrays. */
static void put_global(struct tbuf *b, const ir_plan *p, struct stream *st)
{
	const ir_machine *m = &p->machine;
	const ir_cost *k = &m->cost;
	const ir_comm *c = &p->comm;
	const ir_matrix *x = c->matrix;

	put_u32(b, (uint32_t)m->topo);
	put_u32(b, (uint32_t)m->routing);
	put_u32(b, (uint32_t)m->ndims);
	for (int i = 0; i < V1_DIMS; i++)
		put_u32(b, (uint32_t)file_dim(m, i));
	for (int l = 0; l < 2; l++)
		for (int j = 0; j < 2; j++)
			put_u32(b, (uint32_t)m->levels[l][j]);
	put_u32(b, (uint32_t)m->ports);
	put_u32(b, (uint32_t)m->nranks);
	put_name(b, k->preset);
	const double costs[] = {k->alpha,     k->beta,      k->hop,
	                        k->gamma,     k->beta_sat,  k->tau,
	                        k->phi,       k->c_send[0], k->c_send[1],
	                        k->c_recv[0], k->c_recv[1], k->copy[0],
	                        k->copy[1],   k->lambda};
	for (size_t i = 0; i < sizeof costs / sizeof costs[0]; i++)
		put_u64(b, f64_bits(costs[i]));

	put_u32(b, (uint32_t)c->coll);
	put_u32(b, (uint32_t)c->root);
	put_u64(b, (uint64_t)c->bytes);
	put_u32(b, (uint32_t)c->segments);
	put_u32(b, (uint32_t)c->dtype);
	put_u32(b, (uint32_t)c->op);
	put_u32(b, x ? (uint32_t)x->n : 0);
	put_u64(b, c->seed);
	put_u64(b, x ? (uint64_t)x->nnz : 0);

	put_name(b, p->algorithm);
	put_u32(b, p->flags);
	put_u32(b, p->nphases);
	put_u32(b, p->ntransfers);
	put_u32(b, p->nblocks);

	if (x) {
		for (int32_t i = 0; i <= x->n; i++)
			put_u64(b, (uint64_t)x->row[i]);
		for (int64_t i = 0; i < x->nnz; i++) {
			put_u32(b, (uint32_t)x->dst[i]);
			SPILL(i);
		}
		for (int64_t i = 0; i < x->nnz; i++) {
			put_u64(b, (uint64_t)x->bytes[i]);
			SPILL(i);
		}
	}
	for (uint32_t i = 0; i < p->nphases; i++) {
		put_u32(b, p->phases[i].transfer);
		put_u32(b, p->phases[i].ntransfers);
	}
	for (uint32_t i = 0; i < p->ntransfers; i++) {
		const ir_transfer *t = &p->transfers[i];
		put_u32(b, (uint32_t)t->src);
		put_u32(b, (uint32_t)t->dst);
		put_u64(b, (uint64_t)t->bytes);
		put_u32(b, t->block);
		put_u32(b, t->nblocks);
		put_u32(b, t->flags);
		SPILL(i);
	}
	for (uint32_t i = 0; i < p->nblocks; i++) {
		put_u32(b, (uint32_t)p->blocks[i].origin);
		put_u32(b, (uint32_t)p->blocks[i].index);
		SPILL(i);
	}
	/* version 2: appended, so a version 1 reader skips it */
	put_u32(b, p->sel.method);
	put_u32(b, p->sel.candidates);
	put_name(b, p->sel.runner_up);
	put_u64(b, f64_bits(p->sel.time_us));
	put_u64(b, f64_bits(p->sel.runner_up_us));
	/* version 5, and only then: the combine cost (version 6: NaN when
	 * the machine has none) */
	uint16_t min_read, v = ir_plan_file_version(p, &min_read);
	if (v >= 5)
		put_u64(b, f64_bits(ir_cost_has_combine(&m->cost)
		                            ? m->cost.combine
		                            : NAN));
	/* version 6, and only then: the rest of the machine */
	if (v >= 6) {
		uint32_t order = 0;
		for (int i = IR_MAX_DIMS - 1; i >= 0; i--)
			order = order << 4 | (m->order[i] & 0xfu);
		for (int i = V1_DIMS; i < IR_MAX_DIMS; i++)
			put_u32(b, (uint32_t)file_dim(m, i));
		put_u32(b, m->wrap);
		put_u32(b, order);
		put_u32(b, (uint32_t)m->ranks_per_node);
		put_u32(b, m->placement);
		put_u32(b, (uint32_t)m->node_ports);
		put_u32(b, (uint32_t)m->nnodes);
		put_u64(b, f64_bits(m->cost.shm_alpha > 0 ? m->cost.shm_alpha
		                                           : NAN));
		put_u64(b, f64_bits(m->cost.shm_beta > 0 ? m->cost.shm_beta
		                                          : NAN));
		put_u32(b, 0);
		for (int32_t i = 0; m->place && i < m->nranks; i++) {
			put_u32(b, (uint32_t)ir_node_of(m, i));
			SPILL(i);
		}
	}
	/* version 7, and only for a graph: its cables, resolved */
	if (v >= 7 && m->topo == IR_GRAPH) {
		const ir_graph *g = m->graph;
		put_u32(b, (uint32_t)g->nhosts);
		put_u32(b, (uint32_t)g->nswitches);
		put_u32(b, g->ncables);
		/* version 8: keys (1) and a forwarding table (2) follow */
		put_u32(b, (g->key ? 1u : 0u) | (g->next ? 2u : 0u));
		for (uint32_t i = 0; i < g->ncables; i++) {
			const struct ir_cable *c = &g->cables[i];
			put_u32(b, (uint32_t)c->a);
			put_u32(b, (uint32_t)c->b);
			put_u32(b, (uint32_t)c->width);
			put_u32(b, c->cls);
			put_u64(b, f64_bits(c->bandwidth));
			put_u64(b, f64_bits(c->latency));
		}
		for (int32_t i = 0; g->key && i < g->nhosts; i++)
			put_u32(b, (uint32_t)g->key[i]);
		if (g->next) {
			struct ir_route_entry *e;
			uint32_t ne;
			if (ir_graph_table(g, &e, &ne) != 0) {
				b->nomem = true;
				return;
			}
			put_u32(b, ne);
			for (uint32_t i = 0; i < ne; i++) {
				put_u32(b, (uint32_t)e[i].from);
				put_u32(b, (uint32_t)e[i].host);
				put_u32(b, (uint32_t)e[i].to);
			}
			free(e);
		}
	}
	/* version 8, and only when the sender picks paths: each
	 * transfer's */
	if (v >= 8 && ir_routing_chooses(m))
		for (uint32_t i = 0; i < p->ntransfers; i++) {
			put_u32(b, p->transfers[i].path);
			SPILL(i);
		}
}

/* One rank's section, without its trailing checksum; paths: the ops'
 * paths follow (version 8). */
static void put_slice(struct tbuf *b, const ir_slice *s, bool paths)
{
	put_u32(b, (uint32_t)s->rank);
	put_u32(b, s->nops);
	put_u32(b, s->niovs);
	put_u64(b, s->send_bytes);
	put_u64(b, s->recv_bytes);
	put_u64(b, s->scratch_bytes);
	for (uint32_t i = 0; i < s->nops; i++) {
		const ir_op *o = &s->ops[i];
		put_u32(b, o->code);
		put_u32(b, o->phase);
		put_u32(b, (uint32_t)o->peer);
		put_u64(b, o->bytes);
		put_u32(b, o->iov);
		put_u32(b, o->niov);
	}
	for (uint32_t i = 0; i < s->niovs; i++) {
		const ir_iov *v = &s->iovs[i];
		put_u32(b, v->buf);
		put_u64(b, v->off);
		put_u64(b, v->len);
	}
	/* version 3: appended, so an older reader skips it */
	put_u32(b, s->dtype);
	put_u32(b, s->redop);
	for (uint32_t i = 0; paths && i < s->nops; i++)
		put_u32(b, s->ops[i].path);
}

uint16_t ir_file_version(const ir_machine *m, const ir_comm *c,
                         uint16_t *min_read)
{
	uint16_t v = 3;
	if (c->coll >= IR_ALLGATHER ||
	    (c->coll == IR_REDUCE && c->segments > 1))
		v = 4;
	if (ir_cost_has_combine(&m->cost))
		v = 5;
	if (!ir_machine_is_classic(m))
		v = 6;
	if (m->topo == IR_GRAPH)
		v = 7;
	if (ir_routing_chooses(m) ||
	    (m->topo == IR_GRAPH && (m->graph->key || m->graph->next)))
		v = 8;
	*min_read = v > 3 ? v : IR_FILE_COMPAT;
	return v;
}

uint16_t ir_plan_file_version(const ir_plan *p, uint16_t *min_read)
{
	return ir_file_version(&p->machine, &p->comm, min_read);
}

/* Fill the header of a finished image of len bytes: every field, the
 * plan hash over the body (plan_hash), the header's own checksum last. */
static void put_header(uint8_t *h, uint64_t len, const ir_plan *p,
                       const ir_report *r, uint64_t global_size,
                       uint64_t index_off, uint64_t plan_hash)
{
	memset(h, 0, HDR_SIZE);
	memcpy(h, file_magic, sizeof file_magic);
	uint16_t min_read;
	le_set_u16(h + H_VERSION, ir_plan_file_version(p, &min_read));
	le_set_u16(h + H_MIN_READ, min_read);
	le_set_u16(h + H_ENDIAN, ENDIAN_CHECK);
	h[H_SIZE_U32] = 4;
	h[H_SIZE_U64] = 8;
	h[H_SIZE_F64] = 8;
	h[H_COLL] = (uint8_t)p->comm.coll;
	le_set_u16(h + H_HDR_SIZE, HDR_SIZE);
	le_set_u32(h + H_FLAGS, p->flags);
	le_set_u32(h + H_NRANKS, (uint32_t)p->machine.nranks);
	le_set_u32(h + H_NPHASES, p->nphases);
	le_set_u32(h + H_LB_PHASES, r ? r->lb_phases : 0);
	le_set_u32(h + H_GLOBAL_OFF, HDR_SIZE);
	le_set_u64(h + H_GLOBAL_SIZE, global_size);
	le_set_u64(h + H_INDEX_OFF, index_off);
	le_set_u64(h + H_FILE_SIZE, len);
	memcpy(h + H_ALGORITHM, p->algorithm,
	       strnlen(p->algorithm, IR_NAME_MAX - 1));
	memcpy(h + H_INPUT_HASH, p->input_hash, sizeof p->input_hash);
	le_set_u64(h + H_PLAN_HASH, plan_hash);
	le_set_u64(h + H_CHECKSUM, XXH3_64bits(h, H_CHECKSUM));
}

/* The writer's checks of p and its slices s (check_plan, check_slice):
 * 0, with *est an upper bound of the file's size, or CCP_EINVAL. */
static int check_all(const ir_plan *p, const ir_slice *s, uint64_t *est,
                     char *err, size_t errlen)
{
	int32_t n = p->machine.nranks;
	uint64_t e = HDR_SIZE + G_FIXED + G_SELECT + G_COMBINE + G_MACHINE +
	               (p->machine.place ? (uint64_t)n * G_PLACE : 0) +
	               (p->machine.graph ? G_GRAPH + (uint64_t)G_CABLE *
	                                                     p->machine.graph
	                                                             ->ncables
	                                 : 0) +
	               (uint64_t)p->nphases * G_PHASE +
	               (uint64_t)p->ntransfers * G_TRANSFER +
	               (uint64_t)p->nblocks * G_BLOCK;
	for (int32_t i = 0; i < n; i++) {
		if (check_slice(&s[i], i, n, p->nphases, err, errlen) != 0)
			return CCP_EINVAL;
		e += IR_FILE_INDEX_ENTRY + S_MIN + S_TAIL +
		       (uint64_t)s[i].nops * (S_OP + S_PATH) +
		       (uint64_t)s[i].niovs * S_IOV;
	}
	*est = e;
	return 0;
}


/* Encode p with its report r (may be NULL: lower bound 0) and its
 * nranks lowered slices s; all borrowed.  *out is malloc'd and the
 * caller frees it.  CCP_EINVAL for a plan or slice the format cannot
 * hold (the same rules the reader applies), CCP_ENOMEM. */
int ir_plan_encode(const ir_plan *p, const ir_report *r, const ir_slice *s,
                   uint8_t **out, size_t *outlen, char *err, size_t errlen)
{
	if (!out || !outlen)
		return CCP_EINVAL;
	*out = NULL;
	*outlen = 0;
	if (!p || !s || check_plan(p, err, errlen) != 0)
		return CCP_EINVAL;
	int32_t n = p->machine.nranks;
	uint16_t min_read, version = ir_plan_file_version(p, &min_read);
	uint64_t est;
	if (check_all(p, s, &est, err, errlen) != 0)
		return CCP_EINVAL;
	if (est > SIZE_MAX)
		return CCP_ENOMEM;

	struct tbuf b = {0};
	if (tb_reserve(&b, (size_t)est) < 0)
		goto out_free_buf;
	memset(b.p, 0, HDR_SIZE); /* filled last, by put_header */
	b.len = HDR_SIZE;
	put_global(&b, p, NULL);
	uint64_t global_size = b.len - HDR_SIZE;
	uint64_t index_off = b.len;
	size_t index_len = (size_t)n * IR_FILE_INDEX_ENTRY;
	if (tb_reserve(&b, index_len) < 0)
		goto out_free_buf;
	memset(b.p + b.len, 0, index_len);
	b.len += index_len;
	for (int32_t i = 0; i < n; i++) {
		size_t off = b.len;
		put_slice(&b, &s[i], version >= 8);
		if (b.nomem)
			goto out_free_buf;
		uint64_t sum = XXH3_64bits(b.p + off, b.len - off);
		put_u64(&b, sum);
		if (b.nomem)
			goto out_free_buf;
		uint8_t *e = (uint8_t *)b.p + index_off + (size_t)i * IR_FILE_INDEX_ENTRY;
		le_set_u64(e, off);
		le_set_u64(e + 8, b.len - off);
		le_set_u64(e + 16, sum);
	}
	put_header((uint8_t *)b.p, b.len, p, r, global_size, index_off,
	           XXH3_64bits(b.p + HDR_SIZE, b.len - HDR_SIZE));
	*out = (uint8_t *)tb_take(&b, outlen);
	return 0;

out_free_buf:
	tb_free(&b);
	return CCP_ENOMEM;
}

/* ---- writing as a stream ---------------------------------------------- */

/* Bytes gathered before they go to the sink, and each write(2) of a
 * file sink: large enough for few calls, small enough for the cache. */
#define STREAM_PIECE ((size_t)1 << 20)

struct stream {
	const ir_sink *sink;
	struct tbuf b;     /* bytes not yet put */
	XXH3_state_t hash; /* the plan hash: every byte after the header */
	uint64_t done;     /* bytes put, the header's included */
	int rc;            /* the first failure, sticky */
};

/* Put what b holds once it reaches a piece, or now if all. */
static void st_flush(struct stream *st, bool all)
{
	if (st->rc == 0 && st->b.nomem)
		st->rc = CCP_ENOMEM;
	if (st->rc || st->b.len == 0 || (!all && st->b.len < STREAM_PIECE))
		return;
	XXH3_64bits_update(&st->hash, st->b.p, st->b.len);
	st->rc = st->sink->put(st->sink->ctx, st->b.p, st->b.len);
	st->done += st->b.len;
	st->b.len = 0;
}

int ir_plan_encode_to(const ir_plan *p, const ir_report *r, const ir_slice *s,
                      const ir_sink *sink, uint64_t *outlen, char *err,
                      size_t errlen)
{
	uint64_t est;
	if (outlen)
		*outlen = 0;
	if (!p || !s || !sink || check_plan(p, err, errlen) != 0 ||
	    check_all(p, s, &est, err, errlen) != 0)
		return CCP_EINVAL;
	int32_t n = p->machine.nranks;
	uint16_t min_read, version = ir_plan_file_version(p, &min_read);
	struct stream st = {.sink = sink};
	struct tbuf t = {0}; /* one section at a time */
	uint8_t head[HDR_SIZE] = {0};
	XXH3_64bits_reset(&st.hash);
	/* the header last, in its place: zeros until then */
	if ((st.rc = sink->put(sink->ctx, head, HDR_SIZE)) != 0)
		goto out;
	st.done = HDR_SIZE;
	put_global(&st.b, p, &st);
	uint64_t global_size = st.done + st.b.len - HDR_SIZE;
	uint64_t index_off = HDR_SIZE + global_size;
	st_flush(&st, false);
	/* the index: each section encoded on the side for its size and
	 * checksum, then again below into the stream (the plan hash runs
	 * over the index before the sections) */
	uint64_t off = index_off + (uint64_t)n * IR_FILE_INDEX_ENTRY;
	for (int32_t i = 0; i < n && st.rc == 0; i++) {
		t.len = 0;
		put_slice(&t, &s[i], version >= 8);
		if (t.nomem) {
			st.rc = CCP_ENOMEM;
			break;
		}
		uint8_t e[IR_FILE_INDEX_ENTRY];
		le_set_u64(e, off);
		le_set_u64(e + 8, t.len + S_SUM);
		le_set_u64(e + 16, XXH3_64bits(t.p, t.len));
		put_bytes(&st.b, e, sizeof e);
		off += t.len + S_SUM;
		st_flush(&st, false);
	}
	for (int32_t i = 0; i < n && st.rc == 0; i++) {
		size_t at = st.b.len;
		put_slice(&st.b, &s[i], version >= 8);
		if (!st.b.nomem)
			put_u64(&st.b, XXH3_64bits(st.b.p + at, st.b.len - at));
		st_flush(&st, false);
	}
	st_flush(&st, true);
	if (st.rc)
		goto out;
	if (st.done != off) { /* the two encodings disagree */
		st.rc = CCP_EINTERNAL;
		goto out;
	}
	put_header(head, st.done, p, r, global_size, index_off,
	           XXH3_64bits_digest(&st.hash));
	if ((st.rc = sink->put_head(sink->ctx, head, HDR_SIZE)) != 0)
		goto out;
	if (outlen)
		*outlen = st.done;
out:
	tb_free(&st.b);
	tb_free(&t);
	return st.rc;
}

/* ---- reading: the header -------------------------------------------- */

/* Check and parse the header in buf (len bytes, the header at least).
 * Magic and versions come first, since a later version may lay out the
 * rest differently; then the check values, the header checksum, and the
 * fields, including that every region it names lies inside the file
 * size it states. */
static int parse_header(const uint8_t *buf, size_t len, struct header *h,
                        char *err, size_t errlen)
{
	memset(h, 0, sizeof *h);
	if (!buf)
		return fail(err, errlen, CCP_EINVAL, "no plan buffer given");
	if (memcmp(buf, file_magic, len < 8 ? len : 8) != 0)
		return fail(err, errlen, CCP_EFORMAT, "not a ccplan plan file");
	if (len < HDR_SIZE)
		return fail(err, errlen, CCP_ETRUNC,
		            "truncated plan: %zu bytes,"
		            " the header alone is %d",
		            len, HDR_SIZE);
	uint16_t version = le_get_u16(buf + H_VERSION);
	uint16_t min_read = le_get_u16(buf + H_MIN_READ);
	/* no version needs a reader newer than itself: a damaged header,
	 * not a plan of the future */
	if (min_read > version)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad header: a plan of format version %u cannot "
		            "need a reader of version %u",
		            version, min_read);
	if (min_read > IR_FILE_VERSION)
		return fail(err, errlen, CCP_EVERSION,
		            "plan format version %u "
		            "is newer than this reader (%d): it needs a reader "
		            "of version %u or later",
		            version, IR_FILE_VERSION, min_read);
	if (version < IR_FILE_MIN_READ)
		return fail(err, errlen, CCP_EVERSION,
		            "plan format version %u "
		            "is older than this reader supports (%d)",
		            version, IR_FILE_MIN_READ);
	if (min_read < 1 || min_read > version)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad header: minimum "
		            "reader version %u for a version %u file",
		            min_read, version);
	uint16_t endian = le_get_u16(buf + H_ENDIAN);
	if (endian != ENDIAN_CHECK)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad header: byte-order "
		            "check reads 0x%04x, not 0x%04x",
		            endian, ENDIAN_CHECK);
	if (buf[H_SIZE_U32] != 4 || buf[H_SIZE_U64] != 8 ||
	    buf[H_SIZE_F64] != 8)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad header: field sizes "
		            "%u/%u/%u, not 4/8/8",
		            buf[H_SIZE_U32], buf[H_SIZE_U64], buf[H_SIZE_F64]);
	if (le_get_u16(buf + H_HDR_SIZE) != HDR_SIZE)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad header: header size "
		            "%u, not %d",
		            le_get_u16(buf + H_HDR_SIZE), HDR_SIZE);
	if (XXH3_64bits(buf, H_CHECKSUM) != le_get_u64(buf + H_CHECKSUM))
		return fail(err, errlen, CCP_ECHECKSUM,
		            "checksum mismatch in header");

	ir_file_info *fi = &h->info;
	bool exact = version <= IR_FILE_VERSION;
	fi->version = version;
	h->min_read = min_read;
	uint32_t nranks = le_get_u32(buf + H_NRANKS);
	if (nranks < 1 || nranks > IR_MAX_RANKS)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad header: %" PRIu32 " ranks (1 to %d allowed)",
		            nranks, IR_MAX_RANKS);
	fi->nranks = (int32_t)nranks;
	fi->nphases = le_get_u32(buf + H_NPHASES);
	fi->lb_phases = le_get_u32(buf + H_LB_PHASES);
	fi->flags = le_get_u32(buf + H_FLAGS);
	if (fi->flags & ~KNOWN_PLAN_FLAGS)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad header: unknown plan "
		            "flags 0x%" PRIx32,
		            fi->flags);
	if (buf[H_COLL] >= IR_NCOLLS)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad header: collective "
		            "%u is not a known kind",
		            buf[H_COLL]);
	fi->coll = (enum ir_coll)buf[H_COLL];
	if (!name_ok(buf + H_ALGORITHM))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad header: algorithm name is not terminated");
	memcpy(fi->algorithm, buf + H_ALGORITHM, IR_NAME_MAX);
	memcpy(fi->input_hash, buf + H_INPUT_HASH, sizeof fi->input_hash);
	fi->plan_hash = le_get_u64(buf + H_PLAN_HASH);
	fi->file_size = le_get_u64(buf + H_FILE_SIZE);

	h->global_off = le_get_u32(buf + H_GLOBAL_OFF);
	h->global_size = le_get_u64(buf + H_GLOBAL_SIZE);
	h->index_off = le_get_u64(buf + H_INDEX_OFF);
	uint64_t fsize = fi->file_size;
	uint64_t index_len = (uint64_t)nranks * IR_FILE_INDEX_ENTRY;
	if (fsize < HDR_SIZE)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad header: file size %" PRIu64
		            " is smaller than the header",
		            fsize);
	if (h->global_off < HDR_SIZE || h->index_off < HDR_SIZE)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad header: a section overlaps the header");
	if (h->global_size > fsize || h->global_off > fsize - h->global_size)
		return fail(err, errlen, CCP_ETRUNC,
		            "truncated plan: the global "
		            "section (%" PRIu64 " bytes at %" PRIu64
		            ") ends past "
		            "the file's %" PRIu64 " bytes",
		            h->global_size, h->global_off, fsize);
	if (index_len > fsize || h->index_off > fsize - index_len)
		return fail(err, errlen, CCP_ETRUNC,
		            "truncated plan: the rank "
		            "index (%" PRIu64 " bytes at %" PRIu64
		            ") ends past "
		            "the file's %" PRIu64 " bytes",
		            index_len, h->index_off, fsize);
	if (exact && (h->global_off != HDR_SIZE ||
	              h->index_off != h->global_off + h->global_size))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad header: sections are "
		            "not where version %u puts them",
		            version);
	return 0;
}

/* The header alone, checked, as an ir_file_info (codec.h). */
int ir_file_info_read(const uint8_t *buf, size_t len, ir_file_info *fi,
                      char *err, size_t errlen)
{
	struct header h;
	int rc = parse_header(buf, len, &h, err, errlen);
	if (rc == 0 && fi)
		*fi = h.info;
	return rc;
}

/* A whole image: exactly the size the header states, and the plan hash
 * over everything after the header matching. */
static int check_index(const uint8_t *buf, const struct header *h, char *err,
                       size_t errlen);

static int check_image(const uint8_t *buf, size_t len, const struct header *h,
                       char *err, size_t errlen)
{
	uint64_t fsize = h->info.file_size;
	if ((uint64_t)len < fsize)
		return fail(err, errlen, CCP_ETRUNC,
		            "truncated plan: %zu bytes "
		            "of the %" PRIu64 " the header states",
		            len, fsize);
	if ((uint64_t)len > fsize)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: %" PRIu64
		            " bytes after the end the header states",
		            (uint64_t)len - fsize);
	if (XXH3_64bits(buf + HDR_SIZE, (size_t)fsize - HDR_SIZE) !=
	    h->info.plan_hash)
		return fail(err, errlen, CCP_ECHECKSUM,
		            "checksum mismatch in plan body");
	return 0;
}

/* A whole image checked without decoding it: header, length, plan hash
 * and the rank index (see codec.h). */
int ir_image_check(const uint8_t *buf, size_t len, ir_file_info *fi, char *err,
                   size_t errlen)
{
	struct header h;
	int rc = parse_header(buf, len, &h, err, errlen);
	if (!rc)
		rc = check_image(buf, len, &h, err, errlen);
	if (!rc)
		rc = check_index(buf, &h, err, errlen);
	if (!rc && fi)
		*fi = h.info;
	return rc;
}

/* The rank index of a checked image: every section inside the file, at
 * least a section's minimum, and its checksum equal to the one stored at
 * the section's end; in a file of this version also in rank order, one
 * after another, ending at the end of the file. */
static int check_index(const uint8_t *buf, const struct header *h, char *err,
                       size_t errlen)
{
	const ir_file_info *fi = &h->info;
	bool exact = fi->version <= IR_FILE_VERSION;
	uint64_t next =
	        h->index_off + (uint64_t)fi->nranks * IR_FILE_INDEX_ENTRY;
	for (int32_t i = 0; i < fi->nranks; i++) {
		const uint8_t *e =
		        buf + h->index_off + (uint64_t)i * IR_FILE_INDEX_ENTRY;
		uint64_t off = le_get_u64(e), size = le_get_u64(e + 8);
		if (size < S_MIN || size > fi->file_size ||
		    off > fi->file_size - size || off < HDR_SIZE)
			return fail(err, errlen, CCP_ETRUNC,
			            "truncated plan: "
			            "rank %" PRId32 " section (%" PRIu64
			            " bytes "
			            "at %" PRIu64 ") is outside the file",
			            i, size, off);
		if (exact && off != next)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32
			            " section is not where version %u puts"
			            " it",
			            i, fi->version);
		if (le_get_u64(e + 16) != le_get_u64(buf + off + size - S_SUM))
			return fail(err, errlen, CCP_ECHECKSUM,
			            "checksum "
			            "mismatch in rank index entry %" PRId32,
			            i);
		next = off + size;
	}
	if (exact && next != fi->file_size)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: %" PRIu64
		            " bytes after the last rank section",
		            fi->file_size - next);
	return 0;
}

/* ---- reading: the whole plan ----------------------------------------- */

/* The fixed part of the global section into p: machine, communication
 * (without the matrix arrays), name, flags; the matrix shape and array
 * counts come back for the caller to check and allocate. */
static void rd_global_fixed(struct ibuf *r, ir_plan *p, uint32_t *mat_n,
                            int64_t *nnz, bool *name_good)
{
	ir_machine *m = &p->machine;
	ir_cost *k = &m->cost;
	ir_comm *c = &p->comm;

	m->topo = (enum ir_topo)rd_i32(r);
	m->routing = (enum ir_routing)rd_i32(r);
	m->ndims = rd_i32(r);
	for (int i = 0; i < IR_MAX_DIMS; i++)
		m->dims[i] = i < V1_DIMS ? rd_i32(r) : 1; /* version 6 appends */
	for (int l = 0; l < 2; l++)
		for (int j = 0; j < 2; j++)
			m->levels[l][j] = rd_i32(r);
	m->ports = rd_i32(r);
	m->nranks = rd_i32(r);
	*name_good = rd_name(r, k->preset);
	double *costs[] = {&k->alpha,     &k->beta,      &k->hop,
	                   &k->gamma,     &k->beta_sat,  &k->tau,
	                   &k->phi,       &k->c_send[0], &k->c_send[1],
	                   &k->c_recv[0], &k->c_recv[1], &k->copy[0],
	                   &k->copy[1],   &k->lambda};
	for (size_t i = 0; i < sizeof costs / sizeof costs[0]; i++)
		*costs[i] = rd_f64(r);
	k->combine = NAN; /* version 5 appends it (decode_global) */

	c->coll = (enum ir_coll)rd_i32(r);
	c->root = rd_i32(r);
	c->bytes = rd_i64(r);
	c->segments = rd_i32(r);
	c->dtype = (enum ir_dtype)rd_i32(r);
	c->op = (enum ir_redop)rd_i32(r);
	*mat_n = rd_u32(r);
	c->seed = rd_u64(r);
	*nnz = rd_i64(r);

	*name_good = rd_name(r, p->algorithm) && *name_good;
	p->flags = rd_u32(r);
	p->nphases = rd_u32(r);
	p->ntransfers = rd_u32(r);
	p->nblocks = rd_u32(r);
}

/* Allocate n items of size bytes into *arr (nothing for n == 0). */
static bool alloc_array(void **arr, uint64_t n, size_t size)
{
	*arr = NULL;
	if (n == 0)
		return true;
	if (n > SIZE_MAX / size)
		return false;
	*arr = malloc((size_t)n * size);
	return *arr != NULL;
}

/* The variable part of the global section into the arrays of p. */
static void rd_global_arrays(struct ibuf *r, ir_plan *p)
{
	ir_matrix *x = p->comm.matrix;
	if (x) {
		for (int32_t i = 0; i <= x->n; i++)
			x->row[i] = rd_i64(r);
		for (int64_t i = 0; i < x->nnz; i++)
			x->dst[i] = rd_i32(r);
		for (int64_t i = 0; i < x->nnz; i++)
			x->bytes[i] = rd_i64(r);
	}
	for (uint32_t i = 0; i < p->nphases; i++) {
		p->phases[i].transfer = rd_u32(r);
		p->phases[i].ntransfers = rd_u32(r);
	}
	for (uint32_t i = 0; i < p->ntransfers; i++) {
		ir_transfer *t = &p->transfers[i];
		t->src = rd_i32(r);
		t->dst = rd_i32(r);
		t->bytes = rd_i64(r);
		t->block = rd_u32(r);
		t->nblocks = rd_u32(r);
		t->flags = rd_u32(r);
		t->path = 0; /* version 8 gives it after the machine */
	}
	for (uint32_t i = 0; i < p->nblocks; i++) {
		p->blocks[i].origin = rd_i32(r);
		p->blocks[i].index = rd_i32(r);
	}
}

/* A map placement's list into m->place (the bytes are there); its nodes
 * must fill the machine's nodes exactly (ir_place_from_nodes). */
static int rd_place(struct ibuf *r, ir_machine *m, char *err, size_t errlen)
{
	int32_t n = m->nranks, bad, nnodes = m->nnodes, k = m->ranks_per_node;
	int32_t *node;
	int rc;
	char why[160];

	if (n < 1 || k < 1 || nnodes < 1 || (int64_t)nnodes * k != n)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: a placement map for %" PRId32
		            " ranks on %" PRId32 " nodes of %" PRId32,
		            n, nnodes, k);
	if (!(node = malloc((size_t)n * sizeof *node)))
		return fail(err, errlen, CCP_ENOMEM, "out of memory");
	for (int32_t i = 0; i < n; i++)
		node[i] = rd_i32(r);
	m->place = ir_place_from_nodes(node, n, nnodes, k, &rc, &bad, why,
	                               sizeof why);
	free(node);
	if (!m->place)
		return fail(err, errlen, rc == CCP_ENOMEM ? rc : CCP_EFORMAT,
		            "bad plan: placement map: %s", why);
	return 0;
}

/* A graph machine's record into m->graph (rem bytes left after the
 * placement list, at least G_GRAPH): the counts against the bytes, every
 * cable's class, bandwidth and latency as the writer resolves them, and
 * the rest (ends, widths, duplicates, capacities, connectivity) by
 * ir_graph_new, which rebuilds the tables. */
static int rd_graph(struct ibuf *r, uint64_t rem, unsigned version,
                    ir_machine *m, char *err, size_t errlen)
{
	int32_t nhosts = rd_i32(r), nswitches = rd_i32(r);
	uint32_t ncables = rd_u32(r);
	struct ir_cable *c;
	char why[200];
	int rc;
	int64_t bad;

	rem -= G_GRAPH;
	uint32_t flags = rd_u32(r), keyed = flags & 1u, table = flags & 2u;
	if (flags > 3 || (flags && version < 8))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: the graph's key flag is %" PRIu32
		            " in a version %u file",
		            flags, version);
	if (nhosts != m->nnodes)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: a graph of %" PRId32 " hosts for %" PRId32
		            " nodes",
		            nhosts, m->nnodes);
	uint64_t fixed = (uint64_t)ncables * G_CABLE +
	                 (keyed ? (uint64_t)nhosts * G_KEY : 0) +
	                 (table ? 4 : 0);
	if (ncables > IR_MAX_CABLES || nhosts < 1 || rem < fixed ||
	    (!table && rem != fixed) ||
	    (table && (rem - fixed) % G_ROUTE != 0))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: %" PRIu32 " cables in the %" PRIu64
		            " bytes after the graph record",
		            ncables, rem);
	if (!(c = malloc((ncables ? ncables : 1) * sizeof *c)))
		return fail(err, errlen, CCP_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < ncables; i++) {
		uint32_t cls;
		c[i].a = rd_i32(r);
		c[i].b = rd_i32(r);
		c[i].width = rd_i32(r);
		cls = rd_u32(r);
		c[i].bandwidth = rd_f64(r);
		c[i].latency = rd_f64(r);
		c[i].cls = cls < IR_NLINK_CLASSES ? (uint8_t)cls : 0;
		if (cls >= IR_NLINK_CLASSES || !(c[i].bandwidth > 0) ||
		    isinf(c[i].bandwidth) ||
		    !(c[i].latency >= 0 || isnan(c[i].latency)) ||
		    isinf(c[i].latency)) {
			rc = fail(err, errlen, CCP_EFORMAT,
			          "bad plan: graph cable %" PRIu32
			          ": class %" PRIu32 ", bandwidth %g, "
			          "latency %g",
			          i, cls, c[i].bandwidth, c[i].latency);
			free(c);
			return rc;
		}
	}
	int32_t *key = keyed ? malloc((size_t)nhosts * sizeof *key) : NULL;
	if (keyed && !key) {
		free(c);
		return fail(err, errlen, CCP_ENOMEM, "out of memory");
	}
	for (int32_t i = 0; keyed && i < nhosts; i++)
		key[i] = rd_i32(r);
	uint32_t ne = table ? rd_u32(r) : 0;
	struct ir_route_entry *e = NULL;
	if (table && (uint64_t)ne * G_ROUTE != rem - fixed) {
		free(c);
		free(key);
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: %" PRIu32 " table entries in the %" PRIu64
		            " bytes after the graph's keys",
		            ne, rem - fixed);
	}
	if (ne && !(e = malloc((size_t)ne * sizeof *e))) {
		free(c);
		free(key);
		return fail(err, errlen, CCP_ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < ne; i++) {
		e[i].from = rd_i32(r);
		e[i].host = rd_i32(r);
		e[i].to = rd_i32(r);
	}
	m->graph = ir_graph_new(nhosts, nswitches, c, ncables, &rc, &bad, why,
	                        sizeof why);
	free(c);
	if (m->graph && key &&
	    (rc = ir_graph_set_keys(m->graph, key, why, sizeof why)) != 0) {
		ir_graph_release(m->graph);
		m->graph = NULL;
	}
	if (m->graph && table &&
	    (rc = ir_graph_set_table(m->graph, e, ne, &bad, why, sizeof why)) !=
	            0) {
		ir_graph_release(m->graph);
		m->graph = NULL;
	}
	free(e);
	free(key);
	if (!m->graph)
		return fail(err, errlen, rc == CCP_ENOMEM ? rc : CCP_EFORMAT,
		            "bad plan: graph: %s", why);
	return 0;
}

/* Decode the global section (size bytes at g, inside a checked image)
 * into p, which is zeroed on entry; counts are checked against the bytes
 * that hold them before anything is allocated, the result against the
 * header and against check_plan.  On failure the caller finalises p. */
static int decode_global(const uint8_t *g, uint64_t size,
                         const struct header *h, ir_plan *p, char *err,
                         size_t errlen)
{
	const ir_file_info *fi = &h->info;
	if (size < G_FIXED)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: global section"
		            " is %" PRIu64 " bytes, at least %d needed",
		            size, G_FIXED);
	struct ibuf r = {.p = g, .len = size};
	uint32_t mat_n;
	int64_t nnz;
	bool name_good;
	rd_global_fixed(&r, p, &mat_n, &nnz, &name_good);
	if (!name_good)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: a name in the global section is not "
		            "terminated");
	if (p->machine.nranks != fi->nranks || p->nphases != fi->nphases ||
	    p->comm.coll != fi->coll || p->flags != fi->flags ||
	    strcmp(p->algorithm, fi->algorithm) != 0)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: the global "
		            "section disagrees with the header");
	memcpy(p->input_hash, fi->input_hash, sizeof p->input_hash);
	if (mat_n != 0 && mat_n != (uint32_t)fi->nranks)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: matrix is %" PRIu32 " x %" PRIu32
		            " for %" PRId32 " ranks",
		            mat_n, mat_n, fi->nranks);
	if (nnz < 0 || (mat_n == 0 && nnz != 0))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: matrix has %" PRId64 " messages", nnz);
	uint64_t rem = size - G_FIXED;
	if ((mat_n && !take_records(&rem, (uint64_t)mat_n + 1, 8)) ||
	    !take_records(&rem, (uint64_t)nnz, 12) ||
	    !take_records(&rem, p->nphases, G_PHASE) ||
	    !take_records(&rem, p->ntransfers, G_TRANSFER) ||
	    !take_records(&rem, p->nblocks, G_BLOCK) ||
	    (fi->version >= 2 && !take_records(&rem, 1, G_SELECT)) ||
	    (fi->version >= 5 && !take_records(&rem, 1, G_COMBINE)) ||
	    (fi->version >= 6 && !take_records(&rem, 1, G_MACHINE)))
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: the counts in "
		            "the global section do not fit its %" PRIu64
		            " bytes",
		            size);
	/* version 6: a map placement's list follows the machine (checked
	 * when the machine is read) */
	if (rem != 0 && fi->version <= IR_FILE_VERSION && fi->version < 6)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: %" PRIu64
		            " unused bytes at the end of the global section",
		            rem);
	if (mat_n && !(p->comm.matrix = ir_matrix_new((int32_t)mat_n, nnz)))
		return fail(err, errlen, CCP_ENOMEM, "out of memory");
	if (!alloc_array((void **)&p->phases, p->nphases, sizeof *p->phases) ||
	    !alloc_array((void **)&p->transfers, p->ntransfers,
	                 sizeof *p->transfers) ||
	    !alloc_array((void **)&p->blocks, p->nblocks, sizeof *p->blocks))
		return fail(err, errlen, CCP_ENOMEM, "out of memory");
	p->cap_phases = p->nphases;
	p->cap_transfers = p->ntransfers;
	p->cap_blocks = p->nblocks;
	rd_global_arrays(&r, p);
	if (fi->version >= 2) {
		p->sel.method = rd_u32(&r);
		p->sel.candidates = rd_u32(&r);
		if (!rd_name(&r, p->sel.runner_up))
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: the runner-up's name is not "
			            "terminated");
		p->sel.time_us = rd_f64(&r);
		p->sel.runner_up_us = rd_f64(&r);
		if (p->sel.method > IR_SELECT_MODEL)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: selection method %" PRIu32,
			            p->sel.method);
	}
	if (fi->version >= 5) {
		/* > 0 when the machine has one; version 6 writes NaN when
		 * it has none */
		double c = rd_f64(&r);
		if ((!(c > 0) && !(fi->version >= 6 && isnan(c))) || isinf(c))
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: combine cost %g", c);
		p->machine.cost.combine = c;
	}
	if (fi->version >= 6) {
		ir_machine *m = &p->machine;
		for (int i = V1_DIMS; i < IR_MAX_DIMS; i++)
			m->dims[i] = rd_i32(&r);
		m->wrap = rd_u32(&r);
		uint32_t order = rd_u32(&r);
		for (int i = 0; i < IR_MAX_DIMS; i++, order >>= 4)
			m->order[i] = (uint8_t)(order & 0xfu);
		m->ranks_per_node = rd_i32(&r);
		m->placement = rd_u32(&r);
		m->node_ports = rd_i32(&r);
		m->nnodes = rd_i32(&r);
		m->cost.shm_alpha = rd_f64(&r);
		m->cost.shm_beta = rd_f64(&r);
		for (int i = 0; i < 2; i++) {
			double c = i ? m->cost.shm_beta : m->cost.shm_alpha;
			if (!(c > 0 || isnan(c)) || isinf(c))
				return fail(err, errlen, CCP_EFORMAT,
				            "bad plan: shared-memory cost %g",
				            c);
		}
		if (rd_u32(&r) != 0)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: the machine's reserved field "
			            "is not 0");
		if (m->ranks_per_node < 1)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: ranks_per_node %d (at least 1)",
			            (int)m->ranks_per_node);
		if ((int64_t)m->nnodes * m->ranks_per_node != m->nranks)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: %" PRId32 " nodes of %d ranks "
			            "are not the machine's %" PRId32 " ranks",
			            m->nnodes, (int)m->ranks_per_node,
			            m->nranks);
		if (ir_machine_is_classic(m))
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: a version 6 machine that "
			            "version 5 describes");
		if (m->placement >= IR_NPLACEMENTS)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: placement %" PRIu32
			            " (block 0, cyclic 1, map 2)",
			            m->placement);
		uint64_t list = m->placement == IR_PLACE_MAP
		                        ? (uint64_t)fi->nranks * G_PLACE
		                        : 0;
		/* version 7: a graph's record follows (rd_graph checks its
		 * length) */
		bool graph = m->topo == IR_GRAPH;
		/* version 8: each transfer's path, when the sender picks */
		bool paths = ir_routing_chooses(m);
		if (paths && fi->version < 8)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: a machine whose sender picks "
			            "paths in a version %u file (it needs 8)",
			            fi->version);
		if (paths)
			list += (uint64_t)p->ntransfers * G_PATH;
		if (graph && fi->version < 7)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: a graph machine in a version %u "
			            "file (graphs need 7)",
			            fi->version);
		if (((!graph && rem != list) ||
		     (graph && (rem < list || rem - list < G_GRAPH))) &&
		    fi->version <= IR_FILE_VERSION)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: %" PRIu64 " bytes after the "
			            "machine, where its placement needs %" PRIu64
			            "%s",
			            rem, list, graph ? " and its graph more" : "");
		int rc = m->placement == IR_PLACE_MAP
		                 ? rd_place(&r, m, err, errlen)
		                 : 0;
		if (rc)
			return rc;
		for (uint32_t i = 0; paths && i < p->ntransfers; i++)
			p->transfers[i].path = rd_u32(&r);
		if (graph && (rc = rd_graph(&r, rem - list, fi->version, m,
		                            err, errlen)))
			return rc;
	} else {
		/* what an older file leaves out: the defaults */
		ir_machine *m = &p->machine;
		m->cost.shm_alpha = m->cost.shm_beta = NAN;
		bool grid = m->topo == IR_MESH || m->topo == IR_TORUS;
		if (m->topo == IR_TORUS && m->ndims >= 1 && m->ndims <= V1_DIMS)
			m->wrap = (1u << m->ndims) - 1u;
		for (int i = 0; grid && i < IR_MAX_DIMS; i++)
			m->order[i] = (uint8_t)i;
		m->ranks_per_node = 1;
		m->nnodes = m->nranks;
		if (!ir_machine_is_classic(m))
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: a machine that format version "
			            "%u cannot describe (ndims %d)",
			            fi->version, m->ndims);
	}
	if (r.short_read)
		return fail(err, errlen, CCP_EINTERNAL,
		            "global section read past its end");
	int rc = check_grid_dims(&p->machine, err, errlen);
	if (rc)
		return rc;
	return check_plan(p, err, errlen);
}

/* Decode a whole image: header, size, plan hash, index, then the global
 * section.  p is always initialised; on failure it is empty. */
int ir_plan_decode(const uint8_t *buf, size_t len, ir_plan *p, ir_file_info *fi,
                   char *err, size_t errlen)
{
	struct header h;
	if (!p)
		return fail(err, errlen, CCP_EINVAL, "no plan to decode into");
	memset(p, 0, sizeof *p);
	int rc = parse_header(buf, len, &h, err, errlen);
	if (rc)
		return rc;
	if ((rc = check_image(buf, len, &h, err, errlen)) != 0)
		return rc;
	if ((rc = check_index(buf, &h, err, errlen)) != 0)
		return rc;
	rc = decode_global(buf + h.global_off, h.global_size, &h, p, err,
	                   errlen);
	if (rc)
		goto out_free_plan;
	if (fi)
		*fi = h.info;
	return 0;

out_free_plan:
	ir_plan_fini(p);
	return rc;
}

/* ---- reading: one rank's slice --------------------------------------- */

/* Where rank's index entry is: the header (re-checked, it is cheap) says
 * where the index starts, and entries have a fixed size, so a rank reads
 * one entry and nothing else of the index.  fi, if given, must come from
 * the same header. */
int ir_slice_locate(const uint8_t *head, size_t headlen, const ir_file_info *fi,
                    int32_t rank, uint64_t *index_off, char *err, size_t errlen)
{
	struct header h;
	if (!index_off)
		return fail(err, errlen, CCP_EINVAL, "no index offset to fill");
	int rc = parse_header(head, headlen, &h, err, errlen);
	if (rc)
		return rc;
	if (fi && (fi->plan_hash != h.info.plan_hash ||
	           fi->file_size != h.info.file_size))
		return fail(err, errlen, CCP_EINVAL,
		            "the header given is not "
		            "the one the file information came from");
	if (rank < 0 || rank >= h.info.nranks)
		return fail(err, errlen, CCP_ERANGE,
		            "rank %" PRId32 " is not "
		            "one of the plan's %" PRId32 " ranks",
		            rank, h.info.nranks);
	/* parse_header checked that the whole index lies in the file */
	*index_off = h.index_off + (uint64_t)rank * IR_FILE_INDEX_ENTRY;
	return 0;
}

/* A rank's index entry -> its section's place, inside the file size.
 * The entry's checksum copy is not needed here: the section carries its
 * own, which ir_slice_decode checks. */
int ir_slice_entry(const uint8_t *entry, const ir_file_info *fi, uint64_t *off,
                   uint64_t *size, char *err, size_t errlen)
{
	if (!entry || !fi || !off || !size)
		return fail(err, errlen, CCP_EINVAL, "missing argument");
	uint64_t o = le_get_u64(entry), n = le_get_u64(entry + 8);
	if (n < S_MIN)
		return fail(err, errlen, CCP_EFORMAT,
		            "bad plan: rank index "
		            "entry gives a %" PRIu64
		            "-byte section, at least %d"
		            " needed",
		            n, S_MIN);
	if (o < HDR_SIZE || n > fi->file_size || o > fi->file_size - n)
		return fail(err, errlen, CCP_ETRUNC,
		            "truncated plan: rank "
		            "section (%" PRIu64 " bytes at %" PRIu64
		            ") is outside"
		            " the file's %" PRIu64 " bytes",
		            n, o, fi->file_size);
	*off = o;
	*size = n;
	return 0;
}

/* The ops and iovs of a section (r positioned after the fixed part) into
 * s, whose arrays are allocated; codes and buffers are range-checked
 * here, before they are narrowed to their one-byte fields. */
static int rd_slice_arrays(struct ibuf *r, ir_slice *s, char *err,
                           size_t errlen)
{
	for (uint32_t i = 0; i < s->nops; i++) {
		ir_op *o = &s->ops[i];
		uint32_t code = rd_u32(r);
		if (code >= IR_NOPS)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " op %" PRIu32
			            " has code %" PRIu32,
			            s->rank, i, code);
		o->code = (uint8_t)code;
		o->path = 0; /* version 8 gives it after the tail */
		o->phase = rd_u32(r);
		o->peer = rd_i32(r);
		o->bytes = rd_u64(r);
		o->iov = rd_u32(r);
		o->niov = rd_u32(r);
	}
	for (uint32_t i = 0; i < s->niovs; i++) {
		ir_iov *v = &s->iovs[i];
		uint32_t buf = rd_u32(r);
		if (buf > IR_BUF_SCRATCH)
			return fail(err, errlen, CCP_EFORMAT,
			            "bad plan: rank %" PRId32 " iov %" PRIu32
			            " names buffer %" PRIu32,
			            s->rank, i, buf);
		v->buf = (uint8_t)buf;
		v->off = rd_u64(r);
		v->len = rd_u64(r);
	}
	if (r->short_read)
		return fail(err, errlen, CCP_EINTERNAL,
		            "rank section read past its end");
	return 0;
}

/* One rank's section: its checksum, that it is this rank's, counts
 * against its size, then every op and iov (check_slice).  s is always
 * initialised; on failure it is empty. */
int ir_slice_decode(const uint8_t *sec, uint64_t size, const ir_file_info *fi,
                    int32_t rank, ir_slice *s, char *err, size_t errlen)
{
	int rc;
	if (!s)
		return fail(err, errlen, CCP_EINVAL, "no slice to decode into");
	memset(s, 0, sizeof *s);
	if (!sec || !fi)
		return fail(err, errlen, CCP_EINVAL, "missing argument");
	if (rank < 0 || rank >= fi->nranks)
		return fail(err, errlen, CCP_ERANGE,
		            "rank %" PRId32 " is not "
		            "one of the plan's %" PRId32 " ranks",
		            rank, fi->nranks);
	if (size < S_MIN)
		return fail(err, errlen, CCP_ETRUNC,
		            "truncated plan: rank %" PRId32
		            " section is %" PRIu64 " bytes, at least %d "
		            "needed",
		            rank, size, S_MIN);
	if (XXH3_64bits(sec, (size_t)(size - S_SUM)) !=
	    le_get_u64(sec + size - S_SUM))
		return fail(err, errlen, CCP_ECHECKSUM,
		            "checksum mismatch in "
		            "rank %" PRId32 " section",
		            rank);
	struct ibuf r = {.p = sec, .len = size - S_SUM};
	s->rank = rd_i32(&r);
	s->nops = rd_u32(&r);
	s->niovs = rd_u32(&r);
	s->send_bytes = rd_u64(&r);
	s->recv_bytes = rd_u64(&r);
	s->scratch_bytes = rd_u64(&r);
	if (s->rank != rank) {
		rc = fail(err, errlen, CCP_EFORMAT,
		          "bad plan: rank %" PRId32
		          " section holds the slice of rank %" PRId32,
		          rank, s->rank);
		goto out_free_slice;
	}
	uint64_t rem = size - S_MIN;
	if (!take_records(&rem, s->nops, S_OP) ||
	    !take_records(&rem, s->niovs, S_IOV) ||
	    (fi->version >= 3 && !take_records(&rem, 1, S_TAIL)) ||
	    (fi->version >= 8 && !take_records(&rem, s->nops, S_PATH)) ||
	    (rem != 0 && fi->version <= IR_FILE_VERSION)) {
		rc = fail(err, errlen, CCP_EFORMAT,
		          "bad plan: rank %" PRId32 " section: %" PRIu32
		          " ops and %" PRIu32 " iovs do "
		          "not fill its %" PRIu64 " bytes",
		          rank, s->nops, s->niovs, size);
		goto out_free_slice;
	}
	if (!alloc_array((void **)&s->ops, s->nops, sizeof *s->ops) ||
	    !alloc_array((void **)&s->iovs, s->niovs, sizeof *s->iovs)) {
		rc = fail(err, errlen, CCP_ENOMEM, "out of memory");
		goto out_free_slice;
	}
	if ((rc = rd_slice_arrays(&r, s, err, errlen)) != 0)
		goto out_free_slice;
	s->dtype = IR_DT_UNKNOWN;
	if (fi->version >= 3) {
		uint32_t dt = rd_u32(&r), op = rd_u32(&r);
		if (dt > IR_DT_DOUBLE || op > IR_OP_MAX) {
			rc = fail(err, errlen, CCP_EFORMAT,
			          "bad plan: rank %" PRId32 " section has "
			          "element type %" PRIu32 " and reduction %" PRIu32,
			          rank, dt, op);
			goto out_free_slice;
		}
		s->dtype = (uint8_t)dt;
		s->redop = (uint8_t)op;
	}
	for (uint32_t i = 0; fi->version >= 8 && i < s->nops; i++)
		s->ops[i].path = rd_u32(&r);
	rc = check_slice(s, rank, fi->nranks, fi->nphases, err, errlen);
	if (rc)
		goto out_free_slice;
	return 0;

out_free_slice:
	ir_slice_fini(s);
	return rc;
}

/* Free what a decoded slice owns and leave it empty. */
void ir_slice_fini(ir_slice *s)
{
	if (!s)
		return;
	free(s->ops);
	free(s->iovs);
	memset(s, 0, sizeof *s);
}

/* Rank's slice of an image whose header h has been parsed and whose body
 * the caller has checked (check_image): the index entry, its checksum
 * against the section's, then the section itself. */
static int slice_at(const uint8_t *buf, size_t len, const struct header *h,
                    int32_t rank, ir_slice *s, char *err, size_t errlen)
{
	uint64_t index_off = 0, off = 0, size = 0; /* set on success */
	int rc = ir_slice_locate(buf, len, &h->info, rank, &index_off, err,
	                         errlen);
	if (rc)
		return rc;
	const uint8_t *e = buf + index_off;
	if ((rc = ir_slice_entry(e, &h->info, &off, &size, err, errlen)) != 0)
		return rc;
	if (le_get_u64(e + 16) != le_get_u64(buf + off + size - S_SUM))
		return fail(err, errlen, CCP_ECHECKSUM,
		            "checksum mismatch in "
		            "rank index entry %" PRId32,
		            rank);
	return ir_slice_decode(buf + off, size, &h->info, rank, s, err, errlen);
}

/* One rank's slice from a whole image.  Having every byte, it checks
 * every byte: the plan hash, then the index entry's checksum against the
 * section's, then the section itself. */
int ir_slice_from_image(const uint8_t *buf, size_t len, int32_t rank,
                        ir_slice *s, ir_file_info *fi, char *err, size_t errlen)
{
	struct header h;
	if (!s)
		return fail(err, errlen, CCP_EINVAL, "no slice to decode into");
	memset(s, 0, sizeof *s);
	int rc = parse_header(buf, len, &h, err, errlen);
	if (rc)
		return rc;
	if ((rc = check_image(buf, len, &h, err, errlen)) != 0)
		return rc;
	rc = slice_at(buf, len, &h, rank, s, err, errlen);
	if (rc == 0 && fi)
		*fi = h.info;
	return rc;
}

/* One rank's slice of an image already checked whole: the header is
 * parsed again (it is cheap) and must be the one fi came from, at the
 * length it states; the plan hash over the body is not computed again,
 * so that a reader of every rank's slice hashes the image once, not once
 * per rank.  The section's own checksum and checks still apply. */
int ir_slice_from_checked(const uint8_t *buf, size_t len,
                          const ir_file_info *fi, int32_t rank, ir_slice *s,
                          char *err, size_t errlen)
{
	struct header h;
	if (!s)
		return fail(err, errlen, CCP_EINVAL, "no slice to decode into");
	memset(s, 0, sizeof *s);
	if (!fi)
		return fail(err, errlen, CCP_EINVAL, "missing argument");
	int rc = parse_header(buf, len, &h, err, errlen);
	if (rc)
		return rc;
	if (fi->plan_hash != h.info.plan_hash ||
	    fi->file_size != h.info.file_size || (uint64_t)len != fi->file_size)
		return fail(err, errlen, CCP_EINVAL,
		            "the image is not the one the file information "
		            "came from");
	return slice_at(buf, len, &h, rank, s, err, errlen);
}
