/*
 * comm_schema.c - the communication mapping of an input
 * (docs/input-format.md, "communication"): a collective with its root,
 * bytes, segments, dtype and op, or an irregular pattern whose matrix is
 * given inline (matrix, edges), in a file (file, read by matrix.c) or by
 * a generator (generate), each refused before it is built if it would
 * pass the memory limit.  Read from the node tree (tree.h) into an
 * ir_comm.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "matrix.h"
#include "tree.h"

/* ---- communication ---------------------------------------------------- */

enum {
	CM_COLLECTIVE,
	CM_PATTERN,
	CM_ROOT,
	CM_BYTES,
	CM_SEGMENTS,
	CM_DTYPE,
	CM_OP,
	CM_REPRODUCIBLE,
	CM_MATRIX,
	CM_EDGES,
	CM_FILE,
	CM_GENERATE,
	CM_N
};
static const char *const comm_keys[CM_N] = {
        "collective", "pattern", "root",         "bytes",
        "segments",   "dtype",   "op",           "reproducible",
        "matrix",     "edges",   "file",         "generate",
};

/* root: a rank, or [x, y(, z)] coordinates on a mesh or torus. */
static int parse_root(struct ctx *x, uint32_t v, const ir_machine *m,
                      int32_t *root)
{
	static const char axis[] = "xyz";
	char path[64], b[64];
	int64_t r, c[IR_MAX_DIMS] = {0, 0, 0};
	int rc;

	if (x->v[v].kind != YN_SEQ) {
		snprintf(b, sizeof b, "(ranks 0..%" PRId32 ")", m->nranks - 1);
		if (x->v[v].kind == YN_SCALAR && x->v[v].plain &&
		    tree_is_int_text(text(x, v))) {
			rc = tree_get_int(x, v, "communication.root", 0,
			                  INT64_MAX, NULL, &r);
			if (rc < 0)
				return rc;
			if (r >= m->nranks)
				return tree_err_at(
				        x, v,
				        "communication.root: rank %lld is "
				        "outside the machine %s",
				        (long long)r, b);
		} else {
			rc = tree_get_int(x, v, "communication.root", 0,
			                  m->nranks - 1, b, &r);
			if (rc < 0)
				return rc;
		}
		*root = (int32_t)r;
		return 0;
	}
	if (m->topo != IR_MESH && m->topo != IR_TORUS)
		return tree_err_at(
		        x, v,
		        "communication.root: coordinates are only accepted "
		        "on a mesh or torus; give the root as a rank");
	if (x->v[v].a != (uint32_t)m->ndims)
		return tree_err_at(
		        x, v,
		        "communication.root: expected %d coordinates for a "
		        "%d-dimensional %s, got %" PRIu32,
		        m->ndims, m->ndims, ir_topo_names[m->topo], x->v[v].a);
	for (int i = 0; i < m->ndims; i++) {
		uint32_t e = child(x, v, (uint32_t)i);
		snprintf(path, sizeof path, "communication.root[%d]", i);
		rc = tree_get_int(x, e, path, 0, INT64_MAX, NULL, &c[i]);
		if (rc < 0)
			return rc;
		if (c[i] >= m->dims[i])
			return tree_err_at(
			        x, e,
			        "%s: %c = %lld is outside the machine "
			        "(0..%d)",
			        path, axis[i], (long long)c[i], m->dims[i] - 1);
	}
	int at[IR_MAX_DIMS] = {0};
	for (int i = 0; i < m->ndims; i++)
		at[i] = (int)c[i]; /* inside the machine: checked above */
	*root = ir_rank_of(m, at);
	return 0;
}

/* Which communication keys a collective takes besides its name. */
static bool coll_takes(enum ir_coll c, int key)
{
	switch (key) {
	case CM_ROOT:
		return ir_coll_kind(c) & IR_CK_ROOTED;
	case CM_BYTES:
		return true;
	case CM_SEGMENTS:
		return c == IR_BCAST;
	case CM_DTYPE:
	case CM_OP:
	case CM_REPRODUCIBLE:
		return ir_coll_kind(c) & IR_CK_REDUCES;
	default:
		return false;
	}
}

/* MPI's name of a collective (MPI_Bcast, bcast, MPI_Allreduce...): the
 * collective it names, taken as an alias; -1 when s is not one.  Into
 * *irr whether s is a v or w variant or a neighbourhood exchange, which
 * an irregular pattern describes. */
static int mpi_collective(const char *s, bool *irr)
{
	static const struct {
		const char *mpi;
		int coll; /* enum ir_coll, or -1: a pattern */
	} alias[] = {
	        {"bcast", IR_BCAST},         {"scatter", IR_SCATTER},
	        {"gather", IR_GATHER},       {"reduce", IR_REDUCE},
	        {"alltoall", IR_ALLTOALL},   {"allgather", IR_ALLGATHER},
	        {"allreduce", IR_ALLREDUCE}, {"reduce_scatter", IR_REDUCE_SCATTER},
	        {"reduce_scatter_block", IR_REDUCE_SCATTER},
	        {"alltoallv", -1},           {"alltoallw", -1},
	        {"neighbor_alltoall", -1},   {"neighbor_alltoallv", -1},
	        {"neighbor_alltoallw", -1},  {"scatterv", -1},
	        {"gatherv", -1},             {"allgatherv", -1},
	};
	char low[32];
	size_t n = 0;

	if (!strncasecmp(s, "MPI_", 4))
		s += 4;
	for (; s[n] && n < sizeof low - 1; n++)
		low[n] = (char)tolower((unsigned char)s[n]);
	low[n] = '\0';
	*irr = false;
	for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
		if (!s[n] && !strcmp(low, alias[i].mpi)) {
			*irr = alias[i].coll < 0;
			return alias[i].coll;
		}
	return -1;
}

/* A collective: name, root, bytes, segments, dtype and op as it needs. */
static int parse_collective(struct ctx *x, uint32_t v, const struct keys *k,
                            const ir_machine *m, ir_comm *c)
{
	int64_t e = 0;
	int idx = 0, rc;
	uint32_t cv = k->val[CM_COLLECTIVE];

	if (x->v[cv].kind == YN_SCALAR && !strcmp(text(x, cv), "irregular"))
		return tree_err_at(
		        x, cv,
		        "communication.collective: 'irregular' is not a "
		        "collective; write 'pattern: irregular' and give "
		        "the matrix");
	/* the collectives' names, without the patterns' */
	const char *names[IR_NCOLLS];
	int value[IR_NCOLLS];
	size_t nnames = 0;
	for (int j = 0; j < IR_NCOLLS; j++)
		if (!(ir_coll_kind((enum ir_coll)j) & IR_CK_PATTERN)) {
			value[nnames] = j;
			names[nnames++] = ir_coll_names[j];
		}
	bool irr = false;
	int mpi = x->v[cv].kind == YN_SCALAR ? mpi_collective(text(x, cv), &irr)
	                                     : -1;
	if (irr)
		return tree_err_at(
		        x, cv,
		        "communication.collective: '%s' is MPI's exchange of "
		        "blocks of any size; write 'pattern: irregular' and "
		        "give the matrix of sizes",
		        text(x, cv));
	if (mpi >= 0) { /* MPI's name, an alias of ccplan's */
		c->coll = (enum ir_coll)mpi;
	} else {
		rc = tree_get_enum(x, cv, "communication.collective",
		                   "collective", names, nnames, &idx);
		if (rc < 0)
			return rc;
		c->coll = (enum ir_coll)value[idx];
	}
	for (int j = CM_ROOT; j < CM_N; j++) {
		if (k->key[j] == NONE || coll_takes(c->coll, j))
			continue;
		if (j >= CM_MATRIX)
			return tree_err_at(
			        x, k->key[j],
			        "communication.%s: does not apply to a "
			        "collective (it belongs with 'pattern: "
			        "irregular')",
			        comm_keys[j]);
		return tree_err_at(x, k->key[j],
		                   "communication.%s: does not apply to %s",
		                   comm_keys[j], ir_coll_names[c->coll]);
	}
	if (c->coll == IR_TRANSPOSE &&
	    !((m->topo == IR_MESH || m->topo == IR_TORUS) && m->ndims == 2 &&
	      m->dims[0] == m->dims[1]))
		return tree_err_at(
		        x, cv,
		        "communication.collective: transpose needs a "
		        "square 2-dimensional mesh or torus (dims [n, n])");
	/* every rank sends to every other: as many messages as a dense
	 * matrix of the same size, and held to the same limit, so that the
	 * plan's memory has a bound */
	if ((c->coll == IR_ALLTOALL || c->coll == IR_TRANSPOSE) &&
	    m->nranks > IR_MATRIX_DENSE_MAX)
		return tree_err_at(x, cv,
		                   "communication.collective: %s on %" PRId32
		                   " ranks is more than 2^28 messages "
		                   "(IR_MATRIX_MAX_NNZ); at most %d ranks",
		                   ir_coll_names[c->coll], m->nranks,
		                   IR_MATRIX_DENSE_MAX);
	if (k->val[CM_BYTES] == NONE)
		return tree_missing(x, v, "communication", "bytes", NULL);
	rc = tree_get_size(x, k->val[CM_BYTES], "communication.bytes",
	                   IR_MAX_BYTES, "(IR_MAX_BYTES, 1 TiB)", &c->bytes);
	if (rc < 0)
		return rc;
	if ((c->coll == IR_SCATTER || c->coll == IR_GATHER ||
	     c->coll == IR_ALLTOALL || c->coll == IR_ALLGATHER) &&
	    c->bytes > INT64_MAX / m->nranks)
		return tree_err_at(
		        x, k->val[CM_BYTES],
		        "communication.bytes: %lld bytes for each of %" PRId32
		        " ranks overflows a 64-bit buffer size",
		        (long long)c->bytes, m->nranks);
	c->root = 0;
	if (k->val[CM_ROOT] != NONE &&
	    (rc = parse_root(x, k->val[CM_ROOT], m, &c->root)) < 0)
		return rc;
	c->segments = 1;
	if (k->val[CM_SEGMENTS] != NONE) {
		rc = tree_get_int(x, k->val[CM_SEGMENTS],
		                  "communication.segments", 1, IR_MAX_SEGMENTS,
		                  "(IR_MAX_SEGMENTS)", &e);
		if (rc < 0)
			return rc;
		if (c->bytes > 0 && e > c->bytes)
			return tree_err_at(
			        x, k->val[CM_SEGMENTS],
			        "communication.segments: %lld segments of a "
			        "%lld-byte message; at most one segment per "
			        "byte",
			        (long long)e, (long long)c->bytes);
		c->segments = (int32_t)e;
	}
	if (ir_coll_kind(c->coll) & IR_CK_REDUCES) {
		char what[64];
		snprintf(what, sizeof what, " for %s", ir_coll_name(c->coll));
		if (k->val[CM_DTYPE] == NONE)
			return tree_missing(x, v, "communication", "dtype",
			                    what);
		if (k->val[CM_OP] == NONE)
			return tree_missing(x, v, "communication", "op", what);
		static const char *const yes_no[] = {"false", "true"};
		if (k->val[CM_REPRODUCIBLE] != NONE) {
			rc = tree_get_enum(x, k->val[CM_REPRODUCIBLE],
			                   "communication.reproducible",
			                   "value", yes_no, 2, &idx);
			if (rc < 0)
				return rc;
			c->reproducible = idx == 1;
		}
		rc = tree_get_enum(x, k->val[CM_DTYPE], "communication.dtype",
		                   "dtype", ir_dtype_names, IR_NDTYPES, &idx);
		if (rc < 0)
			return rc;
		c->dtype = (enum ir_dtype)idx;
		rc = tree_get_enum(x, k->val[CM_OP], "communication.op", "op",
		                   ir_redop_names, IR_NREDOPS, &idx);
		if (rc < 0)
			return rc;
		c->op = (enum ir_redop)idx;
		if (c->bytes % (int64_t)ir_dtype_size(c->dtype))
			return tree_err_at(
			        x, k->val[CM_BYTES],
			        "communication.bytes: %lld is not a multiple "
			        "of the size of %s (%d bytes)",
			        (long long)c->bytes, ir_dtype_names[c->dtype],
			        (int)ir_dtype_size(c->dtype));
	}
	return 0;
}

/* Report a builder failure at node v: a total past INT64_MAX. */
static int err_total(struct ctx *x, uint32_t v, const char *path,
                     const struct ir_csr *b, int32_t src, int32_t dst)
{
	if (b->col_overflow)
		return tree_err_at(x, v,
		                   "%s: the bytes received by rank %" PRId32
		                   " total more than 2^63-1",
		                   path, dst);
	return tree_err_at(x, v,
	                   "%s: the bytes sent by rank %" PRId32
	                   " total more than 2^63-1",
	                   path, src);
}

/* matrix: inline dense n x n, n the machine's ranks, at most
 * FRONT_INLINE_MAX, diagonal 0. */
static int parse_dense(struct ctx *x, uint32_t v, int32_t n, ir_matrix **out)
{
	char b[64], path[80];
	struct ir_csr csr;
	int64_t e;
	int rc;

	if (x->v[v].kind != YN_SEQ)
		return tree_err_at(
		        x, v,
		        "communication.matrix: expected a sequence of rows, "
		        "got %s",
		        tree_desc(x, v, b, sizeof b));
	if (x->v[v].a > FRONT_INLINE_MAX)
		return tree_err_at(
		        x, v,
		        "communication.matrix: an inline matrix has at most "
		        "%d rows; give larger ones with file:",
		        FRONT_INLINE_MAX);
	if (x->v[v].a != (uint32_t)n)
		return tree_err_at(
		        x, v,
		        "communication.matrix: %" PRIu32 " rows, but the "
		        "machine has %" PRId32
		        " ranks; the matrix must be %" PRId32 " x %" PRId32,
		        x->v[v].a, n, n, n);
	rc = ir_csr_init(&csr, n);
	if (rc < 0) {
		rc = tree_err_nomem(x);
		goto out_free_builder;
	}
	for (uint32_t i = 0, r = v + 1; i < x->v[v].a; i++, r = next_of(x, r)) {
		snprintf(path, sizeof path, "communication.matrix[%" PRIu32 "]",
		         i);
		if (x->v[r].kind != YN_SEQ) {
			rc = tree_err_at(x, r,
			                 "%s: expected a row of %" PRId32
			                 " integers, got %s",
			                 path, n, tree_desc(x, r, b, sizeof b));
			goto out_free_builder;
		}
		if (x->v[r].a != (uint32_t)n) {
			rc = tree_err_at(
			        x, r,
			        "%s: %" PRIu32 " entries, expected %" PRId32
			        " (the matrix must be square, one column per "
			        "rank)",
			        path, x->v[r].a, n);
			goto out_free_builder;
		}
		for (uint32_t j = 0, c = r + 1; j < x->v[r].a;
		     j++, c = next_of(x, c)) {
			bool quick = tree_quick_int(x, c, 0, IR_MAX_BYTES, &e);
			if (quick && e == 0)
				continue;
			snprintf(path, sizeof path,
			         "communication.matrix[%" PRIu32 "][%" PRIu32
			         "]",
			         i, j);
			if (!quick) {
				rc = tree_get_int(x, c, path, 0, IR_MAX_BYTES,
				                  "(IR_MAX_BYTES, 1 TiB)", &e);
				if (rc < 0)
					goto out_free_builder;
			}
			if (i == j && e != 0) {
				rc = tree_err_at(
				        x, c,
				        "%s: self message of %lld bytes; the "
				        "diagonal must be 0",
				        path, (long long)e);
				goto out_free_builder;
			}
			if (i == j)
				continue;
			rc = ir_csr_add(&csr, (int32_t)j, e);
			if (rc == CCP_ERANGE) {
				rc = err_total(x, c, path, &csr, (int32_t)i,
				               (int32_t)j);
				goto out_free_builder;
			}
			if (rc < 0) {
				rc = tree_err_nomem(x);
				goto out_free_builder;
			}
		}
		ir_csr_end_row(&csr);
	}
	rc = ir_csr_finish(&csr, out);
	if (rc < 0)
		rc = tree_err_nomem(x);
out_free_builder:
	ir_csr_fini(&csr);
	return rc;
}

/* edges: inline [[src, dst, bytes], ...]; a repeated pair is an error. */
static int parse_edges(struct ctx *x, uint32_t v, int32_t n, ir_matrix **out)
{
	char b[64], path[80], rp[96];
	struct ir_edge *e = NULL;
	size_t bad;
	int64_t f[3];
	uint32_t i, r;
	int rc = 0;

	if (x->v[v].kind != YN_SEQ)
		return tree_err_at(
		        x, v,
		        "communication.edges: expected a sequence of "
		        "[src, dst, bytes], got %s",
		        tree_desc(x, v, b, sizeof b));
	e = malloc(((size_t)x->v[v].a + 1) * sizeof *e);
	if (!e)
		return tree_err_nomem(x);
	for (i = 0, r = v + 1; i < x->v[v].a; i++, r = next_of(x, r)) {
		snprintf(path, sizeof path, "communication.edges[%" PRIu32 "]",
		         i);
		if (x->v[r].kind != YN_SEQ || x->v[r].a != 3) {
			if (x->v[r].kind == YN_SEQ)
				snprintf(b, sizeof b, "%" PRIu32 " %s",
				         x->v[r].a,
				         x->v[r].a == 1 ? "entry" : "entries");
			rc = tree_err_at(
			        x, r, "%s: expected [src, dst, bytes], got %s",
			        path,
			        x->v[r].kind == YN_SEQ
			                ? b
			                : tree_desc(x, r, b, sizeof b));
			goto out_free_edges;
		}
		for (uint32_t j = 0, c = r + 1; j < 3; j++, c = next_of(x, c)) {
			snprintf(rp, sizeof rp, "%s[%" PRIu32 "]", path, j);
			if (j < 2) {
				rc = tree_get_int(x, c, rp, 0, INT64_MAX, NULL,
				                  &f[j]);
				if (rc == 0 && f[j] >= n)
					rc = tree_err_at(
					        x, c,
					        "%s: rank %lld is outside the "
					        "machine (ranks 0..%" PRId32
					        ")",
					        rp, (long long)f[j], n - 1);
			} else {
				rc = tree_get_int(x, c, rp, 0, IR_MAX_BYTES,
				                  "(IR_MAX_BYTES, 1 TiB)",
				                  &f[j]);
			}
			if (rc < 0)
				goto out_free_edges;
		}
		if (f[0] == f[1]) {
			rc = tree_err_at(
			        x, r,
			        "%s: self message %lld -> %lld; a rank "
			        "does not "
			        "send to itself",
			        path, (long long)f[0], (long long)f[1]);
			goto out_free_edges;
		}
		e[i].src = (int32_t)f[0];
		e[i].dst = (int32_t)f[1];
		e[i].bytes = f[2];
		e[i].tag = (uint64_t)r << 32 | i;
	}
	rc = ir_matrix_from_edges(n, e, x->v[v].a, out, &bad);
	if (rc == CCP_ENOMEM) {
		rc = tree_err_nomem(x);
	} else if (rc < 0) {
		uint32_t node = (uint32_t)(e[bad].tag >> 32);
		snprintf(path, sizeof path, "communication.edges[%" PRIu32 "]",
		         (uint32_t)e[bad].tag);
		if (rc == CCP_ERANGE) {
			/* the builder's flag is gone with it: name both */
			rc = tree_err_at(x, node,
			                 "%s: the bytes sent by rank %" PRId32
			                 " or received by rank %" PRId32
			                 " total more than 2^63-1",
			                 path, e[bad].src, e[bad].dst);
		} else {
			uint32_t first = (uint32_t)(e[bad - 1].tag >> 32);
			rc = tree_err_at(x, node,
			                 "%s: duplicate edge %" PRId32
			                 " -> %" PRId32
			                 " (first at line %" PRIu32
			                 ", column %" PRIu32 ")",
			                 path, e[bad].src, e[bad].dst,
			                 x->v[first].line, x->v[first].col);
		}
	}
out_free_edges:
	free(e);
	return rc;
}

/* file: a matrix file, relative to the YAML file's directory. */
static int parse_file(struct ctx *x, uint32_t v, int32_t n, ir_matrix **out)
{
	char path[FRONT_PATH_MAX];
	const char *s = NULL;
	size_t ls;
	int rc = tree_get_path(x, v, "communication.file", path);

	if (rc < 0)
		return rc;
	s = text(x, v);
	ls = strlen(s);
	if (ls >= 4 && !strcmp(s + ls - 4, ".csv") && n > IR_MATRIX_DENSE_MAX)
		return tree_err_at(
		        x, v,
		        "communication.file: a dense CSV matrix is limited "
		        "to %d ranks and the machine has %" PRId32
		        "; use an edge list",
		        IR_MATRIX_DENSE_MAX, n);
	rc = front_read_matrix(path, n, out, x->d);
	return tree_file_rc(x, v, "communication.file", rc);
}

enum { GK_KIND, GK_DEGREE, GK_DENSITY, GK_HOT, GK_BYTES, GK_SEED, GK_N };
static const char *const gen_keys[GK_N] = {
        "kind", "degree", "density", "hot", "bytes", "seed",
};
enum { GEN_REGULAR, GEN_DENSITY, GEN_SKEWED };
static const char *const gen_names[] = {"regular", "density", "skewed"};

/* generate: a seeded pattern (ir/matrix.h). */
static int parse_generate(struct ctx *x, uint32_t v, int32_t n, ir_comm *c)
{
	static const bool takes[3][GK_N] = {
	        [GEN_REGULAR] = {[GK_DEGREE] = true},
	        [GEN_DENSITY] = {[GK_DENSITY] = true},
	        [GEN_SKEWED] = {[GK_DEGREE] = true, [GK_HOT] = true},
	};
	const char *P = "communication.generate";
	struct keys k = {gen_keys, GK_N, {0}, {0}};
	char lim[80];
	int64_t degree = 0, hot = 0, bytes, seed, nnz, fan;
	double density = 0;
	int kind = 0, rc;

	rc = tree_map_keys(x, v, P, &k);
	if (rc < 0)
		return rc;
	if (k.val[GK_KIND] == NONE)
		return tree_missing(x, v, P, "kind", NULL);
	rc = tree_get_enum(x, k.val[GK_KIND], "communication.generate.kind",
	                   "kind", gen_names, 3, &kind);
	if (rc < 0)
		return rc;
	for (int j = GK_DEGREE; j <= GK_HOT; j++) {
		if (k.key[j] != NONE && !takes[kind][j])
			return tree_err_at(x, k.key[j],
			                   "%s.%s: does not apply to kind %s",
			                   P, gen_keys[j], gen_names[kind]);
		if (k.key[j] == NONE && takes[kind][j]) {
			snprintf(lim, sizeof lim, " for kind %s",
			         gen_names[kind]);
			return tree_missing(x, v, P, gen_keys[j], lim);
		}
	}
	if (k.val[GK_BYTES] == NONE)
		return tree_missing(x, v, P, "bytes", NULL);
	if (k.val[GK_SEED] == NONE)
		return tree_missing(x, v, P, "seed", NULL);
	if (kind == GEN_REGULAR && n < 2)
		return tree_err_at(
		        x, k.val[GK_KIND],
		        "communication.generate.kind: a regular pattern "
		        "needs at least 2 ranks; the machine has 1");
	if (kind != GEN_DENSITY) {
		snprintf(lim, sizeof lim,
		         "(ranks - 1, the machine has %" PRId32 " rank%s)", n,
		         n == 1 ? "" : "s");
		rc = tree_get_int(
		        x, k.val[GK_DEGREE], "communication.generate.degree",
		        kind == GEN_REGULAR ? 1 : 0, n - 1, lim, &degree);
		if (rc < 0)
			return rc;
	}
	if (kind == GEN_SKEWED) {
		snprintf(lim, sizeof lim,
		         "(the machine has %" PRId32 " rank%s)", n,
		         n == 1 ? "" : "s");
		rc = tree_get_int(x, k.val[GK_HOT],
		                  "communication.generate.hot", 1, n, lim,
		                  &hot);
		if (rc < 0)
			return rc;
	}
	if (kind == GEN_DENSITY) {
		rc = tree_get_num(x, k.val[GK_DENSITY],
		                  "communication.generate.density", &density);
		if (rc < 0)
			return rc;
		if (density > 1.0)
			return tree_err_at(
			        x, k.val[GK_DENSITY],
			        "communication.generate.density: must be at "
			        "most 1 (a probability), got %s",
			        text(x, k.val[GK_DENSITY]));
		if (n > IR_MATRIX_DENSE_MAX)
			return tree_err_at(
			        x, k.val[GK_KIND],
			        "communication.generate.kind: density visits "
			        "all n(n-1) pairs and is limited to %d ranks; "
			        "the machine has %" PRId32,
			        IR_MATRIX_DENSE_MAX, n);
	}
	nnz = kind == GEN_DENSITY ? (int64_t)n * (n - 1)
	                          : n * degree + hot * (int64_t)(n - 1);
	if (nnz > IR_MATRIX_MAX_NNZ)
		return tree_err_at(
		        x, k.val[kind == GEN_SKEWED ? GK_HOT : GK_DEGREE],
		        "%s: %" PRId32 " ranks would send %lld messages, "
		        "more than 2^28 (IR_MATRIX_MAX_NNZ)",
		        P, n, (long long)nnz);
	rc = tree_get_size(x, k.val[GK_BYTES], "communication.generate.bytes",
	                   IR_MAX_BYTES, "(IR_MAX_BYTES, 1 TiB)", &bytes);
	if (rc < 0)
		return rc;
	/* most messages one rank can send or receive */
	fan = kind == GEN_REGULAR ? degree : n - 1;
	if (fan > 0 && bytes > INT64_MAX / fan)
		return tree_err_at(
		        x, k.val[GK_BYTES],
		        "communication.generate.bytes: %lld messages of "
		        "%lld bytes to or from one rank total more than "
		        "2^63-1",
		        (long long)fan, (long long)bytes);
	rc = tree_get_int(x, k.val[GK_SEED], "communication.generate.seed", 0,
	                  INT64_MAX, NULL, &seed);
	if (rc < 0)
		return rc;
	/* last, once every value holds: messages that alone would need
	 * more than the limit to compile are refused before the matrix is
	 * built (density: its expected size) */
	double msgs = kind == GEN_DENSITY ? density * (double)nnz : (double)nnz;
	if (msgs * FRONT_BYTES_PER_MESSAGE > (double)front_max_memory()) {
		char need[32], cap[32];
		front_format_bytes(need, sizeof need,
		                   (uint64_t)(msgs * FRONT_BYTES_PER_MESSAGE));
		front_format_bytes(cap, sizeof cap, front_max_memory());
		return tree_err_at(
		        x, v,
		        "%s: %.0f messages would need at least %s of "
		        "memory to compile, more than the limit of %s; "
		        "%s",
		        P, msgs, need, cap, FRONT_MAX_MEMORY_HINT);
	}
	c->seed = (uint64_t)seed;
	if (kind == GEN_REGULAR)
		c->matrix = ir_matrix_regular(n, (int32_t)degree, bytes,
		                              (uint64_t)seed);
	else if (kind == GEN_DENSITY)
		c->matrix =
		        ir_matrix_density(n, density, bytes, (uint64_t)seed);
	else
		c->matrix = ir_matrix_skewed(n, (int32_t)degree, (int32_t)hot,
		                             bytes, (uint64_t)seed);
	if (!c->matrix)
		return tree_err_nomem(x);
	return 0;
}

/* An irregular pattern: exactly one of matrix, edges, file, generate. */
static int parse_irregular(struct ctx *x, uint32_t v, const struct keys *k,
                           const ir_machine *m, ir_comm *c)
{
	static const char *const irr[] = {"irregular"};
	int src = -1, idx = 0, rc;

	rc = tree_get_enum(x, k->val[CM_PATTERN], "communication.pattern",
	                   "pattern", irr, 1, &idx);
	if (rc < 0)
		return rc;
	c->coll = IR_IRREGULAR;
	for (uint32_t i = 0, kn = v + 1; i < x->v[v].a; i += 2) {
		uint32_t val = next_of(x, kn);
		for (int j = CM_ROOT; j < CM_N; j++) {
			if (k->key[j] != kn)
				continue;
			if (j < CM_MATRIX)
				return tree_err_at(
				        x, kn,
				        "communication.%s: does not apply to "
				        "an "
				        "irregular pattern (the matrix gives "
				        "every message)",
				        comm_keys[j]);
			if (src >= 0)
				return tree_err_at(
				        x, kn,
				        "communication.%s: give only one of "
				        "matrix, edges, file or generate ('%s' "
				        "is already given)",
				        comm_keys[j], comm_keys[src]);
			src = j;
		}
		kn = next_of(x, val);
	}
	if (src < 0)
		return tree_err_at(
		        x, v,
		        "communication: missing the matrix of the irregular "
		        "pattern; give one of matrix, edges, file or "
		        "generate");
	switch (src) {
	case CM_MATRIX:
		return parse_dense(x, k->val[src], m->nranks, &c->matrix);
	case CM_EDGES:
		return parse_edges(x, k->val[src], m->nranks, &c->matrix);
	case CM_FILE:
		return parse_file(x, k->val[src], m->nranks, &c->matrix);
	default:
		return parse_generate(x, k->val[src], m->nranks, c);
	}
}

/* The communication mapping: a collective or an irregular pattern. */
int comm_schema_parse(struct ctx *x, uint32_t v, const ir_machine *m,
                      ir_comm *c)
{
	struct keys k = {comm_keys, CM_N, {0}, {0}};
	int rc = tree_map_keys(x, v, "communication", &k);

	if (rc < 0)
		return rc;
	if (k.val[CM_COLLECTIVE] != NONE && k.val[CM_PATTERN] != NONE) {
		uint32_t later = k.key[CM_COLLECTIVE] > k.key[CM_PATTERN]
		                         ? k.key[CM_COLLECTIVE]
		                         : k.key[CM_PATTERN];
		return tree_err_at(x, later,
		                   "communication: give either 'collective' or "
		                   "'pattern', not both");
	}
	if (k.val[CM_COLLECTIVE] != NONE)
		return parse_collective(x, v, &k, m, c);
	if (k.val[CM_PATTERN] != NONE)
		return parse_irregular(x, v, &k, m, c);
	return tree_missing(x, v, "communication", "collective",
	                    " (or 'pattern: irregular')");
}

/* The keys of the communication's mappings, for document_key_home. */
const struct key_names comm_schema_keys = {comm_keys, CM_N};
const struct key_names comm_schema_gen_keys = {gen_keys, GK_N};
