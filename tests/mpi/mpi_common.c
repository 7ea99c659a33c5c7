/*
 * mpi_common.c - what the MPI transport's test programs share: the plan
 * as the test knows it (decoded whole, independently of the runtime's
 * loader), the send patterns, the expected receive buffers, MPI's own
 * collective on the same data, and failure bookkeeping (mpi_test.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_ir.h"
#include "mpi_test.h"

int t_rank;
const char *t_prog = "mpi test";
unsigned t_failures;
unsigned t_checks;

/* ---- the plan ------------------------------------------------------- */

int tplan_load(struct tplan *tp, const char *path, char *err, size_t errlen)
{
	memset(tp, 0, sizeof *tp);
	tp->path = path;
	const char *slash = strrchr(path, '/');
	tp->name = slash ? slash + 1 : path;
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: cannot open", path);
		return -1;
	}
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got;
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				snprintf(err, errlen, "%s: out of memory",
				         path);
				return -1;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	fclose(f);
	ir_file_info fi;
	char why[256];
	int rc = ir_plan_decode(buf, len, &tp->ir, &fi, why, sizeof why);
	free(buf);
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	tp->n = tp->ir.machine.nranks;
	tp->hash = fi.plan_hash;
	return 0;
}

void tplan_fini(struct tplan *tp)
{
	ir_plan_fini(&tp->ir);
}

static const ir_comm *comm_of(const struct tplan *tp)
{
	return &tp->ir.comm;
}

/* Irregular: bytes from s to d. */
static uint64_t com(const struct tplan *tp, int32_t s, int32_t d)
{
	return (uint64_t)ir_matrix_get(comm_of(tp)->matrix, s, d);
}

/* Irregular: offset of (s,d) in s's send (packed by destination). */
static uint64_t send_off(const struct tplan *tp, int32_t s, int32_t d)
{
	uint64_t off = 0;
	for (int32_t x = 0; x < d; x++)
		off += com(tp, s, x);
	return off;
}

/* Irregular: offset of (s,d) in d's recv (packed by source). */
static uint64_t recv_off(const struct tplan *tp, int32_t s, int32_t d)
{
	uint64_t off = 0;
	for (int32_t x = 0; x < s; x++)
		off += com(tp, x, d);
	return off;
}

/* Transpose: the rank that sends to r (and that r sends to). */
static int32_t partner(const struct tplan *tp, int32_t r)
{
	int c[IR_MAX_CUBE_DIM];
	ir_coords(&tp->ir.machine, r, c);
	int x = c[0];
	c[0] = c[1];
	c[1] = x;
	return ir_rank_of(&tp->ir.machine, c);
}

uint64_t tplan_send_bytes(const struct tplan *tp, int32_t r)
{
	const ir_comm *c = comm_of(tp);
	uint64_t b = (uint64_t)c->bytes, n = (uint64_t)tp->n;
	switch (c->coll) {
	case IR_BCAST:
		return r == c->root ? b : 0;
	case IR_SCATTER:
		return r == c->root ? n * b : 0;
	case IR_ALLTOALL:
		return n * b;
	case IR_GATHER:
	case IR_REDUCE:
	case IR_TRANSPOSE:
	case IR_ALLGATHER:
	case IR_REDUCE_SCATTER:
	case IR_ALLREDUCE:
		return b;
	case IR_IRREGULAR:
		return send_off(tp, r, tp->n);
	}
	return 0;
}

uint64_t tplan_recv_bytes(const struct tplan *tp, int32_t r)
{
	const ir_comm *c = comm_of(tp);
	uint64_t b = (uint64_t)c->bytes, n = (uint64_t)tp->n;
	switch (c->coll) {
	case IR_BCAST:
	case IR_SCATTER:
	case IR_TRANSPOSE:
		return b;
	case IR_GATHER:
		return r == c->root ? n * b : 0;
	case IR_REDUCE:
		return r == c->root ? b : 0;
	case IR_ALLTOALL:
	case IR_ALLGATHER:
		return n * b;
	case IR_ALLREDUCE:
		return b;
	case IR_REDUCE_SCATTER:
		return (uint64_t)ir_block_bytes(c, tp->n, (ir_block){r, r});
	case IR_IRREGULAR:
		return recv_off(tp, tp->n, r);
	}
	return 0;
}

/* ---- patterns ------------------------------------------------------- */

/* Byte o of rank r's send buffer in round k: differs between ranks,
 * offsets and rounds, with no short period. */
static uint8_t pat(int32_t r, uint64_t o, unsigned k)
{
	uint64_t x = (uint64_t)(r + 1) * 0x9e3779b97f4a7c15u ^
	             (o + 1) * 0xbf58476d1ce4e5b9u ^
	             (uint64_t)(k + 1) * 0x94d049bb133111ebu;
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9u;
	x ^= x >> 32;
	return (uint8_t)x;
}

/* Reduce: element i of rank r in round k, an integer so that every
 * combination is exact in every type (products stay tiny). */
static int64_t elem(const ir_comm *c, int32_t r, uint64_t i, unsigned k)
{
	if (c->op == IR_OP_PROD)
		return (int64_t)((uint64_t)r + i + k) % 5 - 2;
	return (int64_t)(r + 1) * 1000 +
	       (int64_t)((i * 37 + (uint64_t)k * 11) % 1001) - 500;
}

/* Store element value v of type dt at p. */
static void put_elem(enum ir_dtype dt, uint8_t *p, int64_t v)
{
	switch (dt) {
	case IR_DT_BYTE: {
		uint8_t x = (uint8_t)v;
		memcpy(p, &x, 1);
		break;
	}
	case IR_DT_INT32: {
		int32_t x = (int32_t)v;
		memcpy(p, &x, 4);
		break;
	}
	case IR_DT_INT64:
		memcpy(p, &v, 8);
		break;
	case IR_DT_FLOAT: {
		float x = (float)v;
		memcpy(p, &x, 4);
		break;
	}
	case IR_DT_DOUBLE: {
		double x = (double)v;
		memcpy(p, &x, 8);
		break;
	}
	}
}

/* acc = acc OP v in type T, as the reduction defines it. */
#define FOLD(T, op, acc, v)                                                    \
	do {                                                                   \
		T a_, b_;                                                      \
		memcpy(&a_, (acc), sizeof(T));                                 \
		memcpy(&b_, (v), sizeof(T));                                   \
		switch (op) {                                                  \
		case IR_OP_SUM:                                                \
			a_ = (T)(a_ + b_);                                     \
			break;                                                 \
		case IR_OP_PROD:                                               \
			a_ = (T)(a_ * b_);                                     \
			break;                                                 \
		case IR_OP_MIN:                                                \
			a_ = b_ < a_ ? b_ : a_;                                \
			break;                                                 \
		case IR_OP_MAX:                                                \
			a_ = b_ > a_ ? b_ : a_;                                \
			break;                                                 \
		}                                                              \
		memcpy((acc), &a_, sizeof(T));                                 \
	} while (0)

static void fold(enum ir_dtype dt, enum ir_redop op, uint8_t *acc,
                 const uint8_t *v)
{
	switch (dt) {
	case IR_DT_BYTE:
		FOLD(uint8_t, op, acc, v);
		break;
	case IR_DT_INT32:
		FOLD(int32_t, op, acc, v);
		break;
	case IR_DT_INT64:
		FOLD(int64_t, op, acc, v);
		break;
	case IR_DT_FLOAT:
		FOLD(float, op, acc, v);
		break;
	case IR_DT_DOUBLE:
		FOLD(double, op, acc, v);
		break;
	}
}

void tplan_fill_send(const struct tplan *tp, int32_t r, unsigned k,
                     uint8_t *buf)
{
	const ir_comm *c = comm_of(tp);
	uint64_t len = tplan_send_bytes(tp, r);
	if (ir_coll_kind(c->coll) & IR_CK_REDUCES) {
		size_t es = ir_dtype_size(c->dtype);
		for (uint64_t i = 0; i < len / es; i++)
			put_elem(c->dtype, buf + i * es, elem(c, r, i, k));
		return;
	}
	for (uint64_t o = 0; o < len; o++)
		buf[o] = pat(r, o, k);
}

/* Elements [first, first + count) of the combination of every rank's
 * vector in round k, into buf. */
static void expect_reduced(const struct tplan *tp, unsigned k, uint64_t first,
                           uint64_t count, uint8_t *buf)
{
	const ir_comm *c = comm_of(tp);
	size_t es = ir_dtype_size(c->dtype);
	uint8_t v[8];
	for (uint64_t i = 0; i < count; i++) {
		put_elem(c->dtype, buf + i * es, elem(c, 0, first + i, k));
		for (int32_t s = 1; s < tp->n; s++) {
			put_elem(c->dtype, v, elem(c, s, first + i, k));
			fold(c->dtype, c->op, buf + i * es, v);
		}
	}
}

void tplan_expect_recv(const struct tplan *tp, int32_t r, unsigned k,
                       uint8_t *buf)
{
	const ir_comm *c = comm_of(tp);
	uint64_t b = (uint64_t)c->bytes;
	switch (c->coll) {
	case IR_BCAST:
		for (uint64_t o = 0; o < b; o++)
			buf[o] = pat(c->root, o, k);
		break;
	case IR_SCATTER:
		for (uint64_t o = 0; o < b; o++)
			buf[o] = pat(c->root, (uint64_t)r * b + o, k);
		break;
	case IR_GATHER:
		if (r != c->root)
			break;
		for (int32_t s = 0; s < tp->n; s++)
			for (uint64_t o = 0; o < b; o++)
				buf[(uint64_t)s * b + o] = pat(s, o, k);
		break;
	case IR_REDUCE:
		if (r == c->root)
			expect_reduced(tp, k, 0, b / ir_dtype_size(c->dtype),
			               buf);
		break;
	case IR_ALLREDUCE:
		expect_reduced(tp, k, 0, b / ir_dtype_size(c->dtype), buf);
		break;
	case IR_REDUCE_SCATTER: {
		size_t es = ir_dtype_size(c->dtype);
		expect_reduced(tp, k,
		               (uint64_t)ir_reduce_block_off(c, tp->n, r) / es,
		               tplan_recv_bytes(tp, r) / es, buf);
		break;
	}
	case IR_ALLGATHER:
		for (int32_t s = 0; s < tp->n; s++)
			for (uint64_t o = 0; o < b; o++)
				buf[(uint64_t)s * b + o] = pat(s, o, k);
		break;
	case IR_ALLTOALL:
		for (int32_t s = 0; s < tp->n; s++)
			for (uint64_t o = 0; o < b; o++)
				buf[(uint64_t)s * b + o] =
				        pat(s, (uint64_t)r * b + o, k);
		break;
	case IR_TRANSPOSE: {
		int32_t s = partner(tp, r);
		for (uint64_t o = 0; o < b; o++)
			buf[o] = pat(s, o, k);
		break;
	}
	case IR_IRREGULAR:
		for (int32_t s = 0; s < tp->n; s++) {
			uint64_t len = com(tp, s, r), so = send_off(tp, s, r),
			         ro = recv_off(tp, s, r);
			for (uint64_t o = 0; o < len; o++)
				buf[ro + o] = pat(s, so + o, k);
		}
		break;
	}
}

/* ---- MPI's own collectives ------------------------------------------ */

int tplan_mpi_reference(const struct tplan *tp, MPI_Comm comm, int32_t r,
                        const uint8_t *send, uint8_t *out)
{
	const ir_comm *c = comm_of(tp);
	int b = (int)c->bytes, n = tp->n, rc = MPI_SUCCESS;
	void *in = (void *)(uintptr_t)send;
	switch (c->coll) {
	case IR_BCAST:
		if (r == c->root)
			memcpy(out, send, (size_t)b);
		return MPI_Bcast(out, b, MPI_BYTE, c->root, comm);
	case IR_SCATTER:
		return MPI_Scatter(in, b, MPI_BYTE, out, b, MPI_BYTE, c->root,
		                   comm);
	case IR_GATHER:
		return MPI_Gather(in, b, MPI_BYTE, out, b, MPI_BYTE, c->root,
		                  comm);
	case IR_REDUCE:
		return MPI_Reduce(in, out, b / (int)ir_dtype_size(c->dtype),
		                  ccp_mpi_ir_type(c->dtype),
		                  ccp_mpi_ir_op(c->op), c->root,
		                  comm);
	case IR_ALLTOALL:
		return MPI_Alltoall(in, b, MPI_BYTE, out, b, MPI_BYTE, comm);
	case IR_ALLGATHER:
		return MPI_Allgather(in, b, MPI_BYTE, out, b, MPI_BYTE, comm);
	case IR_ALLREDUCE:
		return MPI_Allreduce(in, out, b / (int)ir_dtype_size(c->dtype),
		                     ccp_mpi_ir_type(c->dtype),
		                     ccp_mpi_ir_op(c->op), comm);
	case IR_REDUCE_SCATTER: { /* blocks as ir_reduce_block_off cuts them */
		int *counts = malloc((size_t)n * sizeof *counts);
		if (!counts)
			return MPI_ERR_NO_MEM;
		int es = (int)ir_dtype_size(c->dtype);
		for (int32_t d = 0; d < n; d++)
			counts[d] = (int)ir_block_bytes(c, n, (ir_block){d, d}) /
			            es;
		rc = MPI_Reduce_scatter(in, out, counts,
		                        ccp_mpi_ir_type(c->dtype),
		                        ccp_mpi_ir_op(c->op), comm);
		free(counts);
		return rc;
	}
	case IR_TRANSPOSE: {
		int32_t p = partner(tp, r);
		if (p == r) {
			memcpy(out, send, (size_t)b);
			return MPI_SUCCESS;
		}
		return MPI_Sendrecv(in, b, MPI_BYTE, p, 77, out, b, MPI_BYTE, p,
		                    77, comm, MPI_STATUS_IGNORE);
	}
	case IR_IRREGULAR: {
		int *v = calloc((size_t)n * 4, sizeof *v);
		if (!v)
			return MPI_ERR_NO_MEM;
		int *sc = v, *sd = v + n, *rcn = v + 2 * n, *rd = v + 3 * n;
		for (int32_t d = 0; d < n; d++) {
			sc[d] = (int)com(tp, r, d);
			sd[d] = (int)send_off(tp, r, d);
			rcn[d] = (int)com(tp, d, r);
			rd[d] = (int)recv_off(tp, d, r);
		}
		rc = MPI_Alltoallv(in, sc, sd, MPI_BYTE, out, rcn, rd, MPI_BYTE,
		                   comm);
		free(v);
		return rc;
	}
	}
	return rc;
}

/* ---- helpers -------------------------------------------------------- */

int64_t first_diff(const uint8_t *a, const uint8_t *b, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return (int64_t)i;
	return -1;
}

int64_t first_not(const uint8_t *buf, uint8_t v, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (buf[i] != v)
			return (int64_t)i;
	return -1;
}

void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct counter *c = ud;
	(void)osize;
	if (nsize == 0) {
		if (ptr)
			c->live--;
		free(ptr);
		return NULL;
	}
	void *q = realloc(ptr, nsize);
	if (q) {
		c->calls++;
		c->live += ptr == NULL;
	}
	return q;
}

bool check(bool cond, const char *fmt, ...)
{
	t_checks++;
	if (cond)
		return true;
	if (++t_failures <= 10) {
		va_list ap;
		va_start(ap, fmt);
		printf("%s rank %d: FAIL ", t_prog, t_rank);
		vprintf(fmt, ap);
		printf("\n");
		fflush(stdout);
		va_end(ap);
	}
	return false;
}

bool any_rank_failed(void)
{
	int mine = t_failures != 0, any = 0;
	MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return any != 0;
}

/* ---- running a plan and checking every byte ------------------------- */

#define GUARD 64 /* bytes past each buffer that must stay untouched */

static const unsigned schemes[] = {
        CCP_EXEC_S2,
        CCP_EXEC_S1,
        CCP_EXEC_S2 | CCP_EXEC_NO_BARRIER,
        CCP_EXEC_S1 | CCP_EXEC_NO_BARRIER,
};

static const char *scheme_name(unsigned flags)
{
	static const char *const names[] = {"S2", "S1", "S2+NO_BARRIER",
	                                    "S1+NO_BARRIER"};
	return names[flags & 3u];
}

/* Whether cond is false on any rank of comm. */
static bool any_false(bool cond, MPI_Comm comm)
{
	int bad = !cond, any = 0;
	MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
	return any != 0;
}

bool run_plan(const struct tplan *tp, ccp_context *ctx,
              const struct counter *allocs, ccp_transport *t, MPI_Comm refcomm,
              unsigned rounds, bool user_scratch, unsigned *execs)
{
	int32_t r = ccp_transport_rank(t);
	const char *nm = tp->name;
	bool alive = true;
	ccp_plan *plan = NULL;
	int rc = ccp_plan_load_file(ctx, tp->path, r, &plan);
	check(rc == 0, "%s: load rank %d: %s (%s)", nm, (int)r,
	      ccp_strerror(rc), ccp_errmsg(ctx));
	if (any_false(rc == 0, refcomm))
		return true;
	ccp_plan_info info;
	rc = ccp_plan_get_info(plan, &info);
	check(rc == 0, "%s: get_info: %s", nm, ccp_strerror(rc));
	uint64_t sb = tplan_send_bytes(tp, r), rb = tplan_recv_bytes(tp, r);
	check(info.rank == r && info.nranks == tp->n &&
	              info.plan_hash == tp->hash,
	      "%s: info says rank %d of %d, hash %016llx", nm, (int)info.rank,
	      (int)info.nranks, (unsigned long long)info.plan_hash);
	check(info.send_bytes == sb && info.recv_bytes == rb,
	      "%s: info says send %llu recv %llu bytes, the test expects "
	      "%llu and %llu",
	      nm, (unsigned long long)info.send_bytes,
	      (unsigned long long)info.recv_bytes, (unsigned long long)sb,
	      (unsigned long long)rb);
	check(strcmp(info.collective, ir_coll_name(tp->ir.comm.coll)) == 0,
	      "%s: info says %s", nm, info.collective);
	if (info.send_bytes > sb)
		sb = info.send_bytes; /* already reported; bind what it needs */
	if (info.recv_bytes > rb)
		rb = info.recv_bytes;
	uint64_t xb = info.scratch_bytes;
	uint8_t *send = malloc(sb + GUARD), *recv = malloc(rb + GUARD),
	        *want = malloc(rb + sb + 1), *ref = malloc(rb + 1),
	        *scratch = malloc(xb + 1);
	rc = CCP_ENOMEM;
	/* buffers the rank does not use are bound as NULL */
	if (check(send && recv && want && ref && scratch, "out of memory"))
		rc = ccp_plan_bind(plan, sb ? send : NULL, (size_t)sb,
		                   rb ? recv : NULL, (size_t)rb,
		                   user_scratch && xb ? scratch : NULL,
		                   (size_t)xb);
	check(rc == 0, "%s: bind: %s (%s)", nm, ccp_strerror(rc),
	      ccp_errmsg(ctx));
	if (any_false(rc == 0, refcomm))
		goto out;
	unsigned k = 0;
	for (size_t s = 0; s < sizeof schemes / sizeof *schemes; s++) {
		for (unsigned i = 0; i < rounds; i++, k++) {
			unsigned flags = schemes[s];
			/* the last round skips the agreement: it has passed */
			if (i == rounds - 1 && i > 0)
				flags |= CCP_EXEC_NO_CHECK;
			uint8_t fill = (uint8_t)(0xc3 + 17 * k);
			tplan_fill_send(tp, r, k, send);
			memset(send + sb, 0x5a, GUARD);
			memset(recv, fill, rb + GUARD);
			uint64_t before = allocs->calls;
			rc = ccp_plan_execute(plan, t, flags);
			uint64_t after = allocs->calls;
			(*execs)++;
			const char *sn = scheme_name(flags);
			check(rc == 0, "%s %s round %u: execute: %s (%s)", nm,
			      sn, i, ccp_strerror(rc), ccp_errmsg(ctx));
			/* a failed run may leave the transport broken on some
			 * ranks only: every rank stops using it */
			if (any_false(rc == 0, refcomm)) {
				alive = false;
				goto out;
			}
			check(ccp_errmsg(ctx)[0] == '\0',
			      "%s %s: message after success: %s", nm, sn,
			      ccp_errmsg(ctx));
			if (i > 0)
				check(after == before,
				      "%s %s round %u: %llu allocations in a "
				      "repeated execution",
				      nm, sn, i,
				      (unsigned long long)(after - before));
			tplan_expect_recv(tp, r, k, want);
			int64_t d = first_diff(recv, want, rb);
			check(d < 0,
			      "%s %s round %u: recv byte %lld of %llu is "
			      "%02x, expected %02x",
			      nm, sn, i, (long long)d, (unsigned long long)rb,
			      d < 0 ? 0 : recv[d], d < 0 ? 0 : want[d]);
			d = first_not(recv + rb, fill, GUARD);
			check(d < 0,
			      "%s %s: byte %lld past the recv buffer "
			      "was written",
			      nm, sn, (long long)d);
			tplan_fill_send(tp, r, k, want);
			d = first_diff(send, want, sb);
			check(d < 0 && first_not(send + sb, 0x5a, GUARD) < 0,
			      "%s %s: the send buffer changed (byte %lld)", nm,
			      sn, (long long)d);
			/* MPI's own collective on the same data */
			memset(ref, 0, rb + 1);
			int err =
			        tplan_mpi_reference(tp, refcomm, r, send, ref);
			check(err == MPI_SUCCESS, "%s: MPI reference failed",
			      nm);
			d = first_diff(ref, recv, rb);
			check(d < 0,
			      "%s %s round %u: byte %lld differs from MPI's "
			      "collective (%02x, MPI %02x)",
			      nm, sn, i, (long long)d, d < 0 ? 0 : recv[d],
			      d < 0 ? 0 : ref[d]);
		}
	}
	/* a broadcast once more with the root bound without its receive
	 * buffer: the root's result is its send buffer, and its receive
	 * buffer stays as it was (docs/runtime.md "Buffers").  A root whose
	 * slice sends from its receive buffer (the leaders' broadcast
	 * forwards its copy) is refused and binds it again. */
	if (tp->ir.comm.coll == IR_BCAST && rb) {
		bool root = r == tp->ir.comm.root;
		uint8_t fill = 0x3c;
		tplan_fill_send(tp, r, k, send);
		memset(recv, fill, rb + GUARD);
		rc = 0;
		if (root)
			rc = ccp_plan_bind(plan, send, (size_t)sb, NULL, 0,
			                   NULL, 0);
		if (rc == CCP_EBUFFER) {
			check(strstr(ccp_errmsg(ctx), "recv buffer is 0 bytes"),
			      "%s: root bind without recv: %s", nm,
			      ccp_errmsg(ctx));
			root = false;
			rc = ccp_plan_bind(plan, send, (size_t)sb, recv,
			                   (size_t)rb, NULL, 0);
		}
		check(rc == 0, "%s: root bind without recv: %s (%s)", nm,
		      ccp_strerror(rc), ccp_errmsg(ctx));
		if (any_false(rc == 0, refcomm))
			goto out;
		rc = ccp_plan_execute(plan, t, CCP_EXEC_DEFAULT);
		(*execs)++;
		check(rc == 0, "%s, root without recv: execute: %s (%s)", nm,
		      ccp_strerror(rc), ccp_errmsg(ctx));
		if (any_false(rc == 0, refcomm)) {
			alive = false;
			goto out;
		}
		tplan_expect_recv(tp, r, k, want);
		int64_t d = root ? first_diff(send, want, rb)
		                 : first_diff(recv, want, rb);
		check(d < 0, "%s, root without recv: %s byte %lld wrong", nm,
		      root ? "send" : "recv", (long long)d);
		d = root ? first_not(recv, fill, rb + GUARD) : -1;
		check(d < 0, "%s, root without recv: recv byte %lld written",
		      nm, (long long)d);
	}
out:
	ccp_plan_free(plan);
	free(send);
	free(recv);
	free(want);
	free(ref);
	free(scratch);
	return alive;
}
