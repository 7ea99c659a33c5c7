/*
 * matrix.h - building communication matrices (ir_matrix, CSR form, see
 * ir.h): row by row, from an edge list, or from a seeded generator.
 *
 * Every matrix made here obeys the rules the front end documents in
 * docs/input-format.md: n x n, no message from a rank to itself, rows
 * sorted by destination, zero-byte entries dropped, and no row total
 * (bytes a rank sends) or column total (bytes a rank receives) above
 * INT64_MAX, so buffer sizes computed from it cannot overflow.
 */
#ifndef CCP_IR_MATRIX_H
#define CCP_IR_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"

/* Most messages one matrix may hold: 2^28 (a dense 16384 x 16384 matrix),
 * about 3 GiB of CSR arrays.  The front end refuses inputs above it. */
#define IR_MATRIX_MAX_NNZ (INT64_C(1) << 28)
/* Most ranks of a matrix given or generated densely (a CSV file, or the
 * density generator, which visits all n(n-1) pairs). */
#define IR_MATRIX_DENSE_MAX 16384

/* One message of an edge list.  tag is the caller's: the front end keeps
 * the position it was read at, for a diagnostic naming the line. */
struct ir_edge {
	int32_t src;   /* sending rank */
	int32_t dst;   /* receiving rank */
	int64_t bytes; /* size, >= 0; zero-byte edges are dropped */
	uint64_t tag;  /* caller's data; ties are broken by it */
};

/* Row-by-row construction of a CSR matrix.  Entries are added in row
 * order, each row's destinations strictly increasing. */
struct ir_csr {
	int32_t n;         /* ranks */
	int32_t rows;      /* rows finished */
	int32_t last;      /* last destination added to the current row, -1 */
	int64_t nnz;       /* entries so far */
	int64_t cap;       /* room in dst and bytes */
	int64_t *row;      /* n+1 row offsets */
	int32_t *dst;      /* destinations */
	int64_t *bytes;    /* sizes */
	int64_t rowsum;    /* total of the current row */
	int64_t *colsum;   /* total received by each rank so far */
	bool col_overflow; /* after CCP_ERANGE: a column total overflowed
	                      (false: the row total did) */
};

/* Start an empty n-rank matrix.  0, CCP_EINVAL (n < 1) or CCP_ENOMEM;
 * release with ir_csr_fini in every case. */
int ir_csr_init(struct ir_csr *b, int32_t n);
/* Make room for nnz entries in all (a hint: adding more still works).
 * 0 or CCP_ENOMEM. */
int ir_csr_reserve(struct ir_csr *b, int64_t nnz);
/* Add COM[row][dst] = bytes to the current row.  bytes == 0 adds nothing.
 * CCP_EINVAL if dst is out of range, is the row itself, or does not come
 * after the previous destination of the row, or bytes < 0 or the matrix
 * is complete; CCP_ERANGE if the row or column total would pass
 * INT64_MAX; CCP_ENOMEM. */
int ir_csr_add(struct ir_csr *b, int32_t dst, int64_t bytes);
/* Finish the current row and start the next; CCP_EINVAL after row n-1. */
int ir_csr_end_row(struct ir_csr *b);
/* The finished matrix (all n rows ended) as a new ir_matrix in *out, the
 * caller's to ir_matrix_free.  CCP_EINVAL if rows are missing. */
int ir_csr_finish(struct ir_csr *b, ir_matrix **out);
/* Release the builder's arrays (not a matrix handed out). */
void ir_csr_fini(struct ir_csr *b);

/* Build an n-rank matrix from m edges (borrowed; sorted in place by
 * source, destination, tag).  0 with *out set; CCP_EINVAL with *bad the
 * index (after sorting) of an edge out of range, from a rank to itself,
 * with negative bytes, or repeating the (src, dst) of edge *bad - 1
 * (the one with the smaller tag); CCP_ERANGE with *bad the edge at which
 * a row or column total passes INT64_MAX; CCP_ENOMEM. */
int ir_matrix_from_edges(int32_t n, struct ir_edge *e, size_t m,
                         ir_matrix **out, size_t *bad);

/* A random d-regular digraph on n ranks, every message bytes long: each
 * rank sends to d distinct ranks and receives from d distinct ranks,
 * never itself (004 §5's test patterns).  0 <= d <= n-1.  The algorithm
 * and the order it draws numbers in are part of the format and are
 * described in docs/input-format.md; the same arguments give the same
 * matrix everywhere.  NULL on a bad argument or out of memory. */
ir_matrix *ir_matrix_regular(int32_t n, int32_t d, int64_t bytes,
                             uint64_t seed);
/* Each off-diagonal entry present with probability density (0..1), drawn
 * in row-major order; O(n^2), meant for n <= IR_MATRIX_DENSE_MAX. */
ir_matrix *ir_matrix_density(int32_t n, double density, int64_t bytes,
                             uint64_t seed);
/* The halo exchange of a stencil on a process grid of nd dimensions
 * (extents dims[0..nd), rank = x + X*(y + Y*(z + ...)), x fastest, no
 * wraparound): every rank sends bytes to each neighbour inside the grid
 * at an offset in {-1, 0, 1}^nd other than 0: all of them when box (the
 * 9- and 27-point stencils, 3^nd - 1 neighbours), else those along one
 * axis (the 5- and 7-point stencils, 2*nd).  1 <= nd <= IR_MAX_DIMS.
 * NULL on a bad argument or out of memory. */
ir_matrix *ir_matrix_stencil(int nd, const int32_t *dims, bool box,
                             int64_t bytes);
/* A hot spot: ir_matrix_regular(n, d, bytes, seed), plus a message from
 * every rank s to every hot rank h < hot, s != h (if not already there):
 * the first hot ranks receive from all n-1 others.  0 <= hot <= n. */
ir_matrix *ir_matrix_skewed(int32_t n, int32_t d, int32_t hot, int64_t bytes,
                            uint64_t seed);

#endif
