/*
 * test_codec.c - the .ccp plan format and the JSON export: round trips of
 * hand-built plans and slices, byte-for-byte determinism, rejection of
 * every single-byte corruption and every truncation, foreign files and
 * future versions, values the checksums cannot catch (resealed files),
 * and the JSON export: the exact text of small plans, and generated plans
 * parsed back and compared key by key with the plan.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "codec.h"
#include "ir.h"
#include "model.h"
#include "json.h"
#include "json_read.h"
#include "le.h"
#include "matrix.h"
#include "sched.h"
#include "support.h"

#define NRANKS 16

/* ---- building plans by hand ------------------------------------------ */

/* A 4x4 mesh, one port, with some cost fields set and some NaN (not
 * given), filled by hand so the test does not depend on ir_machine_check. */
static void make_mesh(ir_machine *m)
{
	memset(m, 0, sizeof *m);
	m->topo = IR_MESH;
	m->routing = IR_ROUTE_DIM_ORDER;
	m->ndims = 2;
	m->dims[0] = 4;
	m->dims[1] = 4;
	m->dims[2] = 1;
	m->ports = 1;
	m->nranks = NRANKS;
	snprintf(m->cost.preset, sizeof m->cost.preset, "%s", "paragon");
	m->cost.alpha = 1.5;
	m->cost.beta = 0.25;
	m->cost.hop = NAN;
	m->cost.gamma = -0.0;
	m->cost.beta_sat = 1e-300;
	m->cost.tau = INFINITY;
	m->cost.phi = NAN;
	m->cost.c_send[0] = 3;
	m->cost.c_send[1] = 4;
	m->cost.c_recv[0] = 5;
	m->cost.c_recv[1] = 6;
	m->cost.copy[0] = 0.125;
	m->cost.copy[1] = 0.5;
	m->cost.lambda = 7;
}

/* A broadcast of 1024 bytes in two segments from rank 0, three phases,
 * one transfer flagged as a reduction (the codec does not care). */
static void make_bcast_plan(ir_plan *p)
{
	ir_machine m;
	ir_comm c = {.coll = IR_BCAST,
	             .root = 0,
	             .bytes = 1024,
	             .segments = 2,
	             .dtype = IR_DT_BYTE,
	             .op = IR_OP_SUM};
	make_mesh(&m);
	ir_plan_init(p, &m, &c, "binomial");
	p->flags = IR_PLAN_LINK_CONTENTION;
	for (int i = 0; i < 16; i++)
		p->input_hash[i] = (uint8_t)(0xa0 + i);
	const ir_block both[2] = {{0, 0}, {0, 1}};
	const ir_block first[1] = {{0, 0}};
	assert_int_equal(ir_plan_phase(p), 0);
	assert_int_equal(ir_plan_add(p, 0, 1, both, 2, 0), 0);
	assert_int_equal(ir_plan_phase(p), 0);
	assert_int_equal(ir_plan_add(p, 0, 4, both, 2, 0), 0);
	assert_int_equal(ir_plan_add(p, 1, 5, first, 1, IR_XF_REDUCE), 0);
	assert_int_equal(ir_plan_phase(p), 0);
	for (int32_t r = 0; r < 8; r++)
		assert_int_equal(ir_plan_add(p, r, r + 8, both, 2, 0), 0);
}

/* An irregular pattern with a small CSR matrix (seed recorded), two
 * phases of direct transfers. */
static void make_irregular_plan(ir_plan *p)
{
	ir_machine m;
	ir_comm c = {.coll = IR_IRREGULAR, .seed = 42};
	make_mesh(&m);
	m.ports = IR_PORTS_ALL;
	m.cost.preset[0] = '\0';
	/* messages: 0->3 (100), 0->7 (5), 2->1 (64), 15->0 (1) */
	ir_matrix *x = ir_matrix_new(NRANKS, 4);
	assert_non_null(x);
	for (int32_t i = 0; i <= NRANKS; i++)
		x->row[i] = i == 0 ? 0 : i <= 2 ? 2 : i <= 15 ? 3 : 4;
	const int32_t dst[4] = {3, 7, 1, 0};
	const int64_t bytes[4] = {100, 5, 64, 1};
	memcpy(x->dst, dst, sizeof dst);
	memcpy(x->bytes, bytes, sizeof bytes);
	c.matrix = x;
	ir_plan_init(p, &m, &c, "direct");
	ir_matrix_free(x);
	assert_non_null(p->comm.matrix);
	p->flags = IR_PLAN_NODE_CONTENTION | IR_PLAN_LINK_CONTENTION;
	assert_int_equal(ir_plan_phase(p), 0);
	assert_int_equal(ir_plan_add(p, 0, 3, &(ir_block){0, 3}, 1, 0), 0);
	assert_int_equal(ir_plan_add(p, 2, 1, &(ir_block){2, 1}, 1, 0), 0);
	assert_int_equal(ir_plan_phase(p), 0);
	assert_int_equal(ir_plan_add(p, 0, 7, &(ir_block){0, 7}, 1, 0), 0);
	assert_int_equal(ir_plan_add(p, 15, 0, &(ir_block){15, 0}, 1, 0), 0);
}

/* Slices by hand: every op code, iovs in all three buffers, one rank
 * with no operations at all, and the layout the engine runs (a COPY,
 * then a receive and a reduction in phase 0, a send of two pieces in the
 * last phase, or all in phase 0 when there is one; only the COPY when
 * there is no phase or no other rank), as every slice must be. */
static ir_slice *make_slices(int32_t n, uint32_t nphases)
{
	ir_slice *s = calloc((size_t)n, sizeof *s);
	assert_non_null(s);
	for (int32_t r = 0; r < n; r++) {
		ir_slice *x = &s[r];
		x->rank = r;
		x->send_bytes = r == 0 ? 1024 : 0;
		x->recv_bytes = 1024;
		x->scratch_bytes = 64 * (uint64_t)(r % 3);
		x->dtype = (uint8_t)(r % (IR_DT_DOUBLE + 1));
		x->redop = (uint8_t)(r % (IR_OP_MAX + 1));
		if (r == 5)
			continue;
		uint32_t last = nphases ? nphases - 1 : 0;
		uint8_t from = r == 0 ? IR_BUF_SEND : IR_BUF_RECV;
		int32_t p1 = (r + n - 1) % n, p2 = (r + 1) % n;
		int32_t p3 = n > 2 ? (r + 2) % n : p2;
		x->ops = calloc(8, sizeof *x->ops);
		x->iovs = calloc(7, sizeof *x->iovs);
		assert_non_null(x->ops);
		assert_non_null(x->iovs);
		/* the pieces: a copy's, a receive's, a reduction's landing
		 * slot and running partial, and a send's two, none of whose
		 * bytes overlap where a phase writes them */
		x->iovs[0] = (ir_iov){from, r == 0 ? 0 : 1008, 16};
		x->iovs[1] = (ir_iov){IR_BUF_RECV, 992, 16};
		x->iovs[2] = (ir_iov){IR_BUF_RECV, 0, 512};
		x->iovs[3] = x->scratch_bytes ? (ir_iov){IR_BUF_SCRATCH, 48, 16}
		                              : (ir_iov){IR_BUF_RECV, 512, 16};
		x->iovs[4] = (ir_iov){IR_BUF_RECV, 528, 16};
		x->iovs[5] = (ir_iov){from, r == 0 ? 0 : 600, 192};
		x->iovs[6] = (ir_iov){from, r == 0 ? 512 : 800, 192};
		x->niovs = 7;
		uint32_t k = 0;
		x->ops[k++] = (ir_op){.code = IR_OP_COPY, .phase = 0, .peer = -1, .bytes = 16, .iov = 0, .niov = 2};
		if (nphases > 0 && n > 1) {
			x->ops[k++] = (ir_op){.code = IR_OP_PHASE, .phase = 0, .peer = -1, .bytes = 0, .iov = 0, .niov = 0};
			x->ops[k++] = (ir_op){.code = IR_OP_RECV, .phase = 0, .peer = p1, .bytes = 512, .iov = 2, .niov = 1};
			x->ops[k++] =
			        (ir_op){.code = IR_OP_RECV_REDUCE, .phase = 0, .peer = p3, .bytes = 16, .iov = 3, .niov = 2};
			if (last > 0) {
				x->ops[k++] =
				        (ir_op){.code = IR_OP_WAIT, .phase = 0, .peer = -1, .bytes = 0, .iov = 0, .niov = 0};
				x->ops[k++] =
				        (ir_op){.code = IR_OP_PHASE, .phase = last, .peer = -1, .bytes = 0, .iov = 0, .niov = 0};
			}
			x->ops[k++] = (ir_op){.code = IR_OP_SEND, .phase = last, .peer = p2, .bytes = 384, .iov = 5, .niov = 2};
			x->ops[k++] = (ir_op){.code = IR_OP_WAIT, .phase = last, .peer = -1, .bytes = 0, .iov = 0, .niov = 0};
		}
		x->nops = k;
	}
	return s;
}

static void free_slices(ir_slice *s, int32_t n)
{
	for (int32_t r = 0; r < n; r++)
		ir_slice_fini(&s[r]);
	free(s);
}

/* ---- comparing -------------------------------------------------------- */

static bool same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* Field by field, doubles by their bits, arrays by their used part. */
static void assert_plan_equal(const ir_plan *a, const ir_plan *b)
{
	const ir_machine *x = &a->machine, *y = &b->machine;
	assert_int_equal(x->topo, y->topo);
	assert_int_equal(x->routing, y->routing);
	assert_int_equal(x->ndims, y->ndims);
	for (int d = 0; d < IR_MAX_DIMS; d++) /* unused: 0 reads as 1 */
		assert_int_equal(x->dims[d] ? x->dims[d] : 1,
		                 y->dims[d] ? y->dims[d] : 1);
	assert_memory_equal(x->levels, y->levels, sizeof x->levels);
	assert_int_equal(x->ports, y->ports);
	assert_int_equal(x->nranks, y->nranks);
	assert_string_equal(x->cost.preset, y->cost.preset);
	const double *cx[] = {
	        &x->cost.alpha,     &x->cost.beta,      &x->cost.hop,
	        &x->cost.gamma,     &x->cost.beta_sat,  &x->cost.tau,
	        &x->cost.phi,       &x->cost.c_send[0], &x->cost.c_send[1],
	        &x->cost.c_recv[0], &x->cost.c_recv[1], &x->cost.copy[0],
	        &x->cost.copy[1],   &x->cost.lambda};
	const double *cy[] = {
	        &y->cost.alpha,     &y->cost.beta,      &y->cost.hop,
	        &y->cost.gamma,     &y->cost.beta_sat,  &y->cost.tau,
	        &y->cost.phi,       &y->cost.c_send[0], &y->cost.c_send[1],
	        &y->cost.c_recv[0], &y->cost.c_recv[1], &y->cost.copy[0],
	        &y->cost.copy[1],   &y->cost.lambda};
	/* combine: given (> 0) on both or on neither; 0 and NaN alike */
	assert_int_equal(ir_cost_has_combine(&x->cost),
	                 ir_cost_has_combine(&y->cost));
	if (ir_cost_has_combine(&x->cost))
		assert_true(x->cost.combine == y->cost.combine);
	for (size_t i = 0; i < sizeof cx / sizeof cx[0]; i++)
		assert_true(same_double(*cx[i], *cy[i]));
	assert_int_equal(a->sel.method, b->sel.method);
	assert_int_equal(a->sel.candidates, b->sel.candidates);
	assert_string_equal(a->sel.runner_up, b->sel.runner_up);
	assert_true(same_double(a->sel.time_us, b->sel.time_us));
	assert_true(same_double(a->sel.runner_up_us, b->sel.runner_up_us));

	const ir_comm *c = &a->comm, *d = &b->comm;
	assert_int_equal(c->coll, d->coll);
	assert_int_equal(c->root, d->root);
	assert_int_equal(c->bytes, d->bytes);
	assert_int_equal(c->segments, d->segments);
	assert_int_equal(c->dtype, d->dtype);
	assert_int_equal(c->op, d->op);
	assert_int_equal(c->seed, d->seed);
	assert_int_equal(c->matrix != NULL, d->matrix != NULL);
	if (c->matrix) {
		const ir_matrix *u = c->matrix, *v = d->matrix;
		assert_int_equal(u->n, v->n);
		assert_int_equal(u->nnz, v->nnz);
		assert_memory_equal(u->row, v->row,
		                    ((size_t)u->n + 1) * sizeof *u->row);
		if (u->nnz) {
			assert_memory_equal(u->dst, v->dst,
			                    (size_t)u->nnz * sizeof *u->dst);
			assert_memory_equal(u->bytes, v->bytes,
			                    (size_t)u->nnz * sizeof *u->bytes);
		}
	}

	assert_string_equal(a->algorithm, b->algorithm);
	assert_int_equal(a->flags, b->flags);
	assert_memory_equal(a->input_hash, b->input_hash, sizeof a->input_hash);
	assert_int_equal(a->nphases, b->nphases);
	assert_int_equal(a->ntransfers, b->ntransfers);
	assert_int_equal(a->nblocks, b->nblocks);
	for (uint32_t i = 0; i < a->nphases; i++) {
		assert_int_equal(a->phases[i].transfer, b->phases[i].transfer);
		assert_int_equal(a->phases[i].ntransfers,
		                 b->phases[i].ntransfers);
	}
	for (uint32_t i = 0; i < a->ntransfers; i++) {
		const ir_transfer *t = &a->transfers[i], *u = &b->transfers[i];
		assert_int_equal(t->src, u->src);
		assert_int_equal(t->dst, u->dst);
		assert_int_equal(t->bytes, u->bytes);
		assert_int_equal(t->block, u->block);
		assert_int_equal(t->nblocks, u->nblocks);
		assert_int_equal(t->flags, u->flags);
	}
	for (uint32_t i = 0; i < a->nblocks; i++) {
		assert_int_equal(a->blocks[i].origin, b->blocks[i].origin);
		assert_int_equal(a->blocks[i].index, b->blocks[i].index);
	}
}

static bool slice_equal(const ir_slice *a, const ir_slice *b)
{
	if (a->rank != b->rank || a->send_bytes != b->send_bytes ||
	    a->recv_bytes != b->recv_bytes ||
	    a->scratch_bytes != b->scratch_bytes || a->nops != b->nops ||
	    a->niovs != b->niovs || a->dtype != b->dtype ||
	    a->redop != b->redop)
		return false;
	for (uint32_t i = 0; i < a->nops; i++) {
		const ir_op *x = &a->ops[i], *y = &b->ops[i];
		if (x->code != y->code || x->phase != y->phase ||
		    x->peer != y->peer || x->bytes != y->bytes ||
		    x->iov != y->iov || x->niov != y->niov)
			return false;
	}
	for (uint32_t i = 0; i < a->niovs; i++) {
		const ir_iov *x = &a->iovs[i], *y = &b->iovs[i];
		if (x->buf != y->buf || x->off != y->off || x->len != y->len)
			return false;
	}
	return true;
}

/* ---- file helpers ----------------------------------------------------- */

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void wr64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static void wr32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

/* Recompute every checksum of an image after a deliberate edit, so the
 * test reaches the checks that come after them: each section's own and
 * its index copy, the plan hash, the header's.  Offsets per
 * docs/plan-format.md. */
static void reseal(uint8_t *img, size_t len)
{
	uint64_t index_off = rd64(img + 48);
	uint32_t n = (uint32_t)img[24] | (uint32_t)img[25] << 8 |
	             (uint32_t)img[26] << 16 | (uint32_t)img[27] << 24;
	for (uint32_t r = 0; r < n; r++) {
		uint8_t *e = img + index_off + 24 * (uint64_t)r;
		uint64_t off = rd64(e), size = rd64(e + 8);
		uint64_t sum = XXH3_64bits(img + off, size - 8);
		wr64(img + off + size - 8, sum);
		wr64(e + 16, sum);
	}
	wr64(img + 112, XXH3_64bits(img + 128, len - 128));
	wr64(img + 120, XXH3_64bits(img, 120));
}

/* Encode a plan with hand-made slices; the report gives lb_phases 2. */
static void encode(const ir_plan *p, ir_slice **sl, uint8_t **img, size_t *len)
{
	ir_report r = {.ok = true, .lb_phases = 2};
	*sl = make_slices(p->machine.nranks, p->nphases);
	assert_int_equal(ir_plan_encode(p, &r, *sl, img, len, NULL, 0), 0);
	assert_non_null(*img);
	assert_true(*len > IR_FILE_HEADER_MIN);
}

/* The runtime's path: only the header, one index entry and one section,
 * each copied into a buffer of exactly its size so that a read past any
 * of them shows under the sanitizers.  Returns the first failing code,
 * and the slice on success. */
static int rank_path(const uint8_t *img, size_t len, int32_t rank, ir_slice *s)
{
	ir_file_info fi;
	char err[256];
	uint64_t index_off, off, size;
	memset(s, 0, sizeof *s);
	uint8_t *head = malloc(IR_FILE_HEADER_MIN);
	assert_non_null(head);
	memcpy(head, img, len < IR_FILE_HEADER_MIN ? len : IR_FILE_HEADER_MIN);
	size_t headlen = len < IR_FILE_HEADER_MIN ? len : IR_FILE_HEADER_MIN;
	int rc = ir_file_info_read(head, headlen, &fi, err, sizeof err);
	if (rc == 0)
		rc = ir_slice_locate(head, headlen, &fi, rank, &index_off, err,
		                     sizeof err);
	free(head);
	if (rc)
		return rc;
	if (index_off + IR_FILE_INDEX_ENTRY > len)
		return CCP_ETRUNC;
	uint8_t entry[IR_FILE_INDEX_ENTRY];
	memcpy(entry, img + index_off, sizeof entry);
	if ((rc = ir_slice_entry(entry, &fi, &off, &size, err, sizeof err)))
		return rc;
	if (off + size > len)
		return CCP_ETRUNC;
	uint8_t *sec = malloc(size);
	assert_non_null(sec);
	memcpy(sec, img + off, size);
	rc = ir_slice_decode(sec, size, &fi, rank, s, err, sizeof err);
	free(sec);
	return rc;
}

/* ---- round trips ------------------------------------------------------ */

static void check_roundtrip(const ir_plan *p)
{
	ir_slice *sl;
	uint8_t *img;
	size_t len;
	char err[256] = "";
	encode(p, &sl, &img, &len);

	ir_plan q;
	ir_file_info fi;
	int rc = ir_plan_decode(img, len, &q, &fi, err, sizeof err);
	assert_int_equal(rc, 0);
	assert_plan_equal(p, &q);
	ir_plan_fini(&q);

	uint16_t min_read;
	assert_int_equal(fi.version, ir_plan_file_version(p, &min_read));
	assert_int_equal(fi.nranks, p->machine.nranks);
	assert_int_equal(fi.nphases, p->nphases);
	assert_int_equal(fi.lb_phases, 2);
	assert_int_equal(fi.flags, p->flags);
	assert_int_equal(fi.coll, p->comm.coll);
	assert_string_equal(fi.algorithm, p->algorithm);
	assert_memory_equal(fi.input_hash, p->input_hash, 16);
	assert_int_equal(fi.plan_hash, XXH3_64bits(img + 128, len - 128));
	assert_int_equal(fi.file_size, len);

	ir_file_info head;
	assert_int_equal(ir_file_info_read(img, IR_FILE_HEADER_MIN, &head, err,
	                                   sizeof err),
	                 0);
	assert_memory_equal(&head, &fi, sizeof fi);

	for (int32_t r = 0; r < p->machine.nranks; r++) {
		ir_slice s;
		ir_file_info f2;
		assert_int_equal(ir_slice_from_image(img, len, r, &s, &f2, err,
		                                     sizeof err),
		                 0);
		assert_true(slice_equal(&s, &sl[r]));
		assert_int_equal(f2.plan_hash, fi.plan_hash);
		ir_slice_fini(&s);
		assert_int_equal(rank_path(img, len, r, &s), 0);
		assert_true(slice_equal(&s, &sl[r]));
		ir_slice_fini(&s);
		/* the same slice out of the image checked once */
		assert_int_equal(ir_slice_from_checked(img, len, &fi, r, &s,
		                                       err, sizeof err),
		                 0);
		assert_true(slice_equal(&s, &sl[r]));
		ir_slice_fini(&s);
	}
	ir_slice s;
	/* not the image the information came from, or not all of it */
	ir_file_info other = fi;
	other.plan_hash ^= 1;
	assert_int_equal(ir_slice_from_checked(img, len, &other, 0, &s, err,
	                                       sizeof err),
	                 CCP_EINVAL);
	assert_int_equal(ir_slice_from_checked(img, len - 1, &fi, 0, &s, err,
	                                       sizeof err),
	                 CCP_EINVAL);
	assert_int_equal(ir_slice_from_checked(img, len, &fi,
	                                       p->machine.nranks, &s, err,
	                                       sizeof err),
	                 CCP_ERANGE);
	/* a damaged section is still refused: only the plan hash is not
	 * computed again */
	size_t last = len - 1;
	img[last] ^= 1;
	assert_int_equal(ir_slice_from_checked(img, len, &fi,
	                                       p->machine.nranks - 1, &s, err,
	                                       sizeof err),
	                 CCP_ECHECKSUM);
	img[last] ^= 1;
	assert_int_equal(ir_slice_from_image(img, len, p->machine.nranks, &s,
	                                     NULL, err, sizeof err),
	                 CCP_ERANGE);
	assert_int_equal(
	        ir_slice_from_image(img, len, -1, &s, NULL, err, sizeof err),
	        CCP_ERANGE);
	free(img);
	free_slices(sl, p->machine.nranks);
}

static void test_roundtrip_bcast(void **state)
{
	(void)state;
	ir_plan p;
	make_bcast_plan(&p);
	check_roundtrip(&p);
	/* what algorithm: auto records travels with the plan (version 2) */
	p.sel = (ir_selection){IR_SELECT_SIMULATED, 5, "binomial", 12.5, NAN};
	check_roundtrip(&p);
	ir_plan_fini(&p);
}

static void test_roundtrip_irregular(void **state)
{
	(void)state;
	ir_plan p;
	make_irregular_plan(&p);
	check_roundtrip(&p);
	ir_plan_fini(&p);
}

/* A plan with no phases at all (one rank, nothing to move) and a
 * hypercube, HPAM and switch machine each. */
static void test_roundtrip_shapes(void **state)
{
	(void)state;
	ir_comm c = {.coll = IR_ALLTOALL, .bytes = 8};
	ir_machine m = {.topo = IR_SWITCH,
	                .routing = IR_ROUTE_DIRECT,
	                .ndims = 1,
	                .dims = {1, 1, 1},
	                .ports = 1,
	                .nranks = 1};
	ir_plan p;
	ir_plan_init(&p, &m, &c, "none");
	check_roundtrip(&p);
	ir_plan_fini(&p);

	m = (ir_machine){.topo = IR_HYPERCUBE,
	                 .routing = IR_ROUTE_ECUBE,
	                 .ndims = 4,
	                 .ports = IR_PORTS_ALL,
	                 .nranks = 16};
	ir_plan_init(&p, &m, &c, "ecube-alltoall");
	assert_int_equal(ir_plan_add(&p, 3, 12, &(ir_block){3, 12}, 1, 0), 0);
	check_roundtrip(&p);
	ir_plan_fini(&p);

	m = (ir_machine){.topo = IR_HPAM,
	                 .routing = IR_ROUTE_HPAM_XY,
	                 .ndims = 2,
	                 .levels = {{2, 4}, {2, 4}},
	                 .ports = 2,
	                 .nranks = 16};
	c = (ir_comm){.coll = IR_REDUCE,
	              .root = 9,
	              .bytes = 4096,
	              .dtype = IR_DT_DOUBLE,
	              .op = IR_OP_MAX};
	ir_plan_init(&p, &m, &c, "hpam-reduce");
	assert_int_equal(
	        ir_plan_add(&p, 1, 9, &(ir_block){1, 0}, 1, IR_XF_REDUCE), 0);
	check_roundtrip(&p);
	ir_plan_fini(&p);
}

static void test_determinism(void **state)
{
	(void)state;
	ir_plan p, q;
	ir_slice *s1, *s2;
	uint8_t *a, *b, *c;
	size_t la, lb, lc;
	char err[256];
	make_irregular_plan(&p);
	encode(&p, &s1, &a, &la);
	/* stale bytes after a name's terminator must not reach the file */
	memset(p.algorithm + 7, 'x', IR_NAME_MAX - 8);
	encode(&p, &s2, &b, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	/* the decoded plan encodes to the same bytes again */
	assert_int_equal(ir_plan_decode(a, la, &q, NULL, err, sizeof err), 0);
	ir_report r = {.lb_phases = 2};
	assert_int_equal(ir_plan_encode(&q, &r, s1, &c, &lc, NULL, 0), 0);
	assert_int_equal(la, lc);
	assert_memory_equal(a, c, la);
	free(a);
	free(b);
	free(c);
	free_slices(s1, NRANKS);
	free_slices(s2, NRANKS);
	ir_plan_fini(&q);
	ir_plan_fini(&p);
}

/* ---- damaged files ---------------------------------------------------- */

/* Whether rank's own bytes (header, the offset and size of its index
 * entry, its section) include byte i: a change there must stop the rank's
 * loader; a change anywhere else must not affect it. */
static bool rank_reads(const uint8_t *img, int32_t rank, size_t i)
{
	if (i < IR_FILE_HEADER_MIN)
		return true;
	uint64_t e = rd64(img + 48) + 24 * (uint64_t)rank;
	uint64_t off = rd64(img + e), size = rd64(img + e + 8);
	return (i >= e && i < e + 16) || (i >= off && i < off + size);
}

/* Every byte changed to each of a few values: the whole-plan loader and
 * the whole-image slice loader reject every one; the rank-only loader
 * rejects exactly those in the bytes it reads and is unaffected by the
 * rest. */
static void check_corruptions(const ir_plan *p)
{
	ir_slice *sl;
	uint8_t *img;
	size_t len;
	char err[256];
	encode(p, &sl, &img, &len);
	int32_t n = p->machine.nranks;
	uint8_t *bad = malloc(len);
	assert_non_null(bad);
	unsigned long cases = 0;
	for (size_t i = 0; i < len; i++) {
		const uint8_t values[4] = {(uint8_t)(img[i] ^ 0xff), 0x00, 0xff,
		                           (uint8_t)(img[i] ^ 0x01)};
		for (int v = 0; v < 4; v++) {
			if (values[v] == img[i])
				continue;
			memcpy(bad, img, len);
			bad[i] = values[v];
			cases++;
			ir_plan q;
			int rc = ir_plan_decode(bad, len, &q, NULL, err,
			                        sizeof err);
			if (rc == 0)
				fail_msg("byte %zu = 0x%02x accepted by "
				         "ir_plan_decode",
				         i, values[v]);
			assert_true(rc < 0);
			for (int32_t r = 0; r < n; r++) {
				ir_slice s;
				rc = ir_slice_from_image(bad, len, r, &s, NULL,
				                         err, sizeof err);
				if (rc == 0)
					fail_msg("byte %zu = 0x%02x accepted "
					         "for "
					         "rank %d",
					         i, values[v], (int)r);
				rc = rank_path(bad, len, r, &s);
				if (rank_reads(img, r, i)) {
					if (rc == 0)
						fail_msg("byte %zu = 0x%02x "
						         "accepted"
						         " by rank %d's loader",
						         i, values[v], (int)r);
				} else {
					assert_int_equal(rc, 0);
					assert_true(slice_equal(&s, &sl[r]));
					ir_slice_fini(&s);
				}
			}
		}
	}
	print_message("%lu corruptions of a %zu-byte plan rejected\n", cases,
	              len);
	free(bad);
	free(img);
	free_slices(sl, n);
}

static void test_corrupt_bcast(void **state)
{
	(void)state;
	ir_plan p;
	make_bcast_plan(&p);
	check_corruptions(&p);
	ir_plan_fini(&p);
}

static void test_corrupt_irregular(void **state)
{
	(void)state;
	ir_plan p;
	make_irregular_plan(&p);
	check_corruptions(&p);
	ir_plan_fini(&p);
}

static void test_truncation(void **state)
{
	(void)state;
	ir_plan p;
	ir_slice *sl;
	uint8_t *img;
	size_t len;
	char err[256];
	make_irregular_plan(&p);
	encode(&p, &sl, &img, &len);
	for (size_t l = 0; l < len; l++) {
		/* a buffer of exactly l bytes, so an overread is caught */
		uint8_t *cut = malloc(l ? l : 1);
		assert_non_null(cut);
		memcpy(cut, img, l);
		ir_plan q;
		int rc = ir_plan_decode(cut, l, &q, NULL, err, sizeof err);
		assert_true(rc == CCP_ETRUNC || rc == CCP_EFORMAT);
		if (rc == CCP_ETRUNC)
			assert_non_null(strstr(err, "truncated plan"));
		for (int32_t r = 0; r < NRANKS; r++) {
			ir_slice s;
			rc = ir_slice_from_image(cut, l, r, &s, NULL, err,
			                         sizeof err);
			assert_true(rc == CCP_ETRUNC || rc == CCP_EFORMAT);
		}
		ir_file_info fi;
		rc = ir_file_info_read(cut, l, &fi, err, sizeof err);
		if (l < IR_FILE_HEADER_MIN)
			assert_int_equal(rc, CCP_ETRUNC);
		else
			assert_int_equal(rc, 0);
		free(cut);
	}
	/* one byte too many is not accepted either */
	uint8_t *longer = calloc(len + 1, 1);
	assert_non_null(longer);
	memcpy(longer, img, len);
	ir_plan q;
	assert_int_equal(
	        ir_plan_decode(longer, len + 1, &q, NULL, err, sizeof err),
	        CCP_EFORMAT);
	free(longer);
	free(img);
	free_slices(sl, NRANKS);
	ir_plan_fini(&p);
}

/* Files of other kinds, whole and cut short, are "not a plan". */
static void test_foreign(void **state)
{
	(void)state;
	uint8_t files[5][256];
	static const uint8_t png[] = {0x89, 'P',  'N', 'G', '\r', '\n',
	                              0x1a, '\n', 0,   0,   0,    13,
	                              'I',  'H',  'D', 'R'};
	static const uint8_t elf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
	static const char text[] = "machine:\n  topology: mesh\n";
	static const uint8_t magic[8] = {0x89, 'C',  'C',  'P',
	                                 '\r', '\n', 0x1a, '\n'};
	memset(files, 0, sizeof files);
	memcpy(files[0], png, sizeof png);
	memcpy(files[1], elf, sizeof elf);
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (size_t i = 0; i < sizeof files[2]; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		files[2][i] = (uint8_t)(x >> 56);
	}
	memcpy(files[3], text, sizeof text - 1);
	memcpy(files[4],
	       "\x89"
	       "CCQ\r\n\x1a\n",
	       8); /* near miss */
	for (int f = 0; f < 5; f++) {
		for (size_t l = 1; l <= sizeof files[f];
		     l = l < 16 ? l + 1 : l * 2) {
			char err[256] = "";
			ir_plan p;
			ir_slice s;
			ir_file_info fi;
			/* a short prefix of the magic is a truncated plan */
			bool prefix =
			        memcmp(files[f], magic, l < 8 ? l : 8) == 0;
			int want = prefix ? CCP_ETRUNC : CCP_EFORMAT;
			assert_int_equal(ir_plan_decode(files[f], l, &p, NULL,
			                                err, sizeof err),
			                 want);
			if (!prefix)
				assert_string_equal(err,
				                    "not a ccplan plan file");
			assert_int_equal(ir_slice_from_image(files[f], l, 0, &s,
			                                     NULL, err,
			                                     sizeof err),
			                 want);
			assert_int_equal(ir_file_info_read(files[f], l, &fi,
			                                   err, sizeof err),
			                 want);
		}
	}
}

/* A plan an older reader can run is written as version 3, byte for byte
 * as before; an allreduce (new in version 4) needs a reader of version
 * 4, so that a version 3 reader refuses it instead of misreading it. */
static void test_version_of_new_collectives(void **state)
{
	(void)state;
	ir_plan p;
	ir_machine m = tu_machine(IR_SWITCH, 1, 2, 0, 0, 0);
	ir_comm c = tu_comm(IR_ALLREDUCE, 0, 16);
	c.dtype = IR_DT_INT32;
	c.op = IR_OP_SUM;
	ir_plan_init(&p, &m, &c, "recursive_doubling");
	assert_int_equal(ir_plan_phase(&p), 0);
	ir_block b0 = {0, 0}, b1 = {1, 0};
	assert_int_equal(ir_plan_add(&p, 0, 1, &b0, 1, IR_XF_REDUCE), 0);
	assert_int_equal(ir_plan_add(&p, 1, 0, &b1, 1, IR_XF_REDUCE), 0);
	ir_report r;
	assert_int_equal(ir_verify(&p, &r), 0);
	ir_slice *sl;
	uint8_t *img;
	size_t len;
	assert_int_equal(ir_lower(&p, &sl), 0);
	assert_int_equal(ir_plan_encode(&p, &r, sl, &img, &len, NULL, 0), 0);
	assert_int_equal(le_get_u16(img + 8), 4);  /* version */
	assert_int_equal(le_get_u16(img + 10), 4); /* oldest reader */
	ir_plan q;
	ir_file_info fi;
	char err[256];
	assert_int_equal(ir_plan_decode(img, len, &q, &fi, err, sizeof err), 0);
	assert_int_equal(fi.version, 4);
	assert_int_equal(q.comm.coll, IR_ALLREDUCE);
	ir_plan_fini(&q);
	free(img);
	ir_slices_free(sl, 2);
	ir_report_fini(&r);
	ir_plan_fini(&p);
	/* a broadcast stays version 3, readable by every reader */
	make_bcast_plan(&p);
	encode(&p, &sl, &img, &len);
	assert_int_equal(le_get_u16(img + 8), 3);
	assert_int_equal(le_get_u16(img + 10), IR_FILE_COMPAT);
	free(img);
	free_slices(sl, p.machine.nranks);
	ir_plan_fini(&p);
}

/* An older form of a version 3 image: version 2 without the 8-byte
 * element type and reduction at the end of each rank section; version 1
 * also without the 56-byte selection record at the end of the global
 * section.  What is cut goes, everything after it moves down, offsets,
 * sizes and versions are rewritten and the checksums resealed. */
static uint8_t *downgrade(const uint8_t *img, size_t len, int version,
                          size_t *outlen)
{
	const uint64_t gcut = version < 2 ? 56 : 0, scut = 8;
	uint64_t gsize = rd64(img + 40), index_off = rd64(img + 48);
	uint64_t gend = 128 + gsize;
	uint32_t n = (uint32_t)img[24] | (uint32_t)img[25] << 8 |
	             (uint32_t)img[26] << 16 | (uint32_t)img[27] << 24;
	uint8_t *v = malloc(len);
	assert_non_null(v);
	/* header and global section, the record cut */
	memcpy(v, img, gend - gcut);
	size_t at = gend - gcut;
	uint64_t index_new = at;
	memcpy(v + at, img + index_off, 24 * (size_t)n);
	at += 24 * (size_t)n;
	for (uint32_t r = 0; r < n; r++) {
		const uint8_t *e = img + index_off + 24 * (uint64_t)r;
		uint64_t off = rd64(e), size = rd64(e + 8);
		uint8_t *ne = v + index_new + 24 * (uint64_t)r;
		memcpy(v + at, img + off, size - 8 - scut);
		wr64(ne, at);
		wr64(ne + 8, size - scut);
		at += size - scut; /* the checksum is resealed below */
	}
	*outlen = at;
	v[8] = (uint8_t)version;
	v[10] = 1;
	wr64(v + 40, gsize - gcut);
	wr64(v + 48, index_new);
	wr64(v + 56, at);
	reseal(v, at);
	return v;
}

static void test_versions(void **state)
{
	(void)state;
	ir_plan p, q;
	ir_slice *sl, s;
	uint8_t *img;
	size_t len;
	char err[256];
	ir_file_info fi;
	make_bcast_plan(&p);
	encode(&p, &sl, &img, &len);

	/* a future version that needs a future reader */
	uint8_t *fut = malloc(len);
	assert_non_null(fut);
	memcpy(fut, img, len);
	fut[8] = 9;  /* version */
	fut[10] = 9; /* minimum reader version */
	assert_int_equal(ir_plan_decode(fut, len, &q, NULL, err, sizeof err),
	                 CCP_EVERSION);
	assert_non_null(strstr(err, "plan format version 9 is newer than this "
	                            "reader (8)"));
	assert_int_equal(
	        ir_slice_from_image(fut, len, 3, &s, NULL, err, sizeof err),
	        CCP_EVERSION);
	assert_int_equal(ir_file_info_read(fut, len, &fi, err, sizeof err),
	                 CCP_EVERSION);
	assert_int_equal(rank_path(fut, len, 3, &s), CCP_EVERSION);

	/* a later version that this reader may still read */
	memcpy(fut, img, len);
	fut[8] = 4;
	reseal(fut, len);
	assert_int_equal(ir_plan_decode(fut, len, &q, &fi, err, sizeof err), 0);
	assert_int_equal(fi.version, 4);
	assert_plan_equal(&p, &q);
	ir_plan_fini(&q);
	assert_int_equal(
	        ir_slice_from_image(fut, len, 3, &s, NULL, err, sizeof err), 0);
	assert_true(slice_equal(&s, &sl[3]));
	ir_slice_fini(&s);

	/* versions 2 and 1: the same without the element type and
	 * reduction that version 3 appends to each rank section, and (1)
	 * without the selection record that version 2 appends to the
	 * global section */
	for (int v = 2; v >= 1; v--) {
		size_t lenv = 0;
		uint8_t *old = downgrade(img, len, v, &lenv);
		assert_int_equal(ir_plan_decode(old, lenv, &q, &fi, err,
		                                sizeof err),
		                 0);
		assert_int_equal(fi.version, v);
		if (v == 1)
			assert_int_equal(q.sel.method, IR_SELECT_NONE);
		else
			assert_int_equal(q.sel.method, p.sel.method);
		assert_plan_equal(&p, &q);
		ir_plan_fini(&q);
		assert_int_equal(ir_slice_from_image(old, lenv, 3, &s, NULL,
		                                     err, sizeof err),
		                 0);
		assert_int_equal(s.dtype, IR_DT_UNKNOWN);
		s.dtype = sl[3].dtype;
		s.redop = sl[3].redop;
		assert_true(slice_equal(&s, &sl[3]));
		ir_slice_fini(&s);
		free(old);
	}

	/* version 0 is older than any reader */
	memcpy(fut, img, len);
	fut[8] = 0;
	fut[10] = 0;
	assert_int_equal(ir_plan_decode(fut, len, &q, NULL, err, sizeof err),
	                 CCP_EVERSION);
	assert_non_null(strstr(err, "older"));
	free(fut);
	free(img);
	free_slices(sl, NRANKS);
	ir_plan_fini(&p);
}

/* A machine with a combine cost is written as version 5, needing a
 * reader of 5, the cost appended to the global section; the same plan
 * without it stays version 3.  A version-5 tail that is missing or not a
 * positive finite number is refused. */
static void test_version5_combine(void **state)
{
	(void)state;
	ir_plan p, q;
	ir_slice *sl;
	uint8_t *img, *img3;
	size_t len, len3;
	char err[256];
	ir_file_info fi;
	make_bcast_plan(&p);
	encode(&p, &sl, &img3, &len3);
	free_slices(sl, NRANKS);
	assert_int_equal(img3[8], 3);
	p.machine.cost.combine = 0.00125;
	encode(&p, &sl, &img, &len);
	assert_int_equal(img[8], 5);  /* version */
	assert_int_equal(img[10], 5); /* oldest reader */
	assert_int_equal(len, len3 + 8);
	assert_int_equal(ir_plan_decode(img, len, &q, &fi, err, sizeof err),
	                 0);
	assert_int_equal(fi.version, 5);
	assert_true(q.machine.cost.combine == 0.00125);
	assert_plan_equal(&p, &q);
	ir_plan_fini(&q);

	/* the global section's last 8 bytes: offset u32 at 36, size u64
	 * at 40 (docs/plan-format.md) */
	uint64_t goff = (uint64_t)img[36] | (uint64_t)img[37] << 8 |
	                (uint64_t)img[38] << 16 | (uint64_t)img[39] << 24;
	uint64_t tail = goff + rd64(img + 40) - 8;
	uint8_t *bad = malloc(len);
	assert_non_null(bad);
	const double wrong[] = {0.0, -1.0, NAN, INFINITY};
	for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
		uint64_t bits;
		memcpy(bad, img, len);
		memcpy(&bits, &wrong[i], 8);
		wr64(bad + tail, bits);
		reseal(bad, len);
		assert_int_equal(ir_plan_decode(bad, len, &q, NULL, err,
		                                sizeof err),
		                 CCP_EFORMAT);
		assert_non_null(strstr(err, "combine cost"));
	}
	/* labelled version 4: the tail is 8 bytes too many */
	memcpy(bad, img, len);
	bad[8] = bad[10] = 4;
	reseal(bad, len);
	assert_int_equal(ir_plan_decode(bad, len, &q, NULL, err, sizeof err),
	                 CCP_EFORMAT);
	assert_non_null(strstr(err, "unused bytes"));
	free(bad);
	free(img);
	free(img3);
	free_slices(sl, NRANKS);
	ir_plan_fini(&p);
}

/* Edit one field of width 4 or 8 bytes, reseal every checksum, and
 * expect the named check to refuse it: what the checksums cannot catch
 * (a writer's bug, a crafted file) is caught by the range checks. */
static void expect_resealed_n(const uint8_t *img, size_t len, size_t at,
                              uint64_t value, int width, int rank,
                              const char *why)
{
	char err[256] = "";
	uint8_t *bad = malloc(len);
	assert_non_null(bad);
	memcpy(bad, img, len);
	if (width == 8)
		wr64(bad + at, value);
	else
		wr32(bad + at, (uint32_t)value);
	reseal(bad, len);
	int rc;
	if (rank < 0) {
		ir_plan q;
		rc = ir_plan_decode(bad, len, &q, NULL, err, sizeof err);
	} else {
		ir_slice s;
		rc = ir_slice_from_image(bad, len, rank, &s, NULL, err,
		                         sizeof err);
	}
	if (rc != CCP_EFORMAT || !strstr(err, why))
		fail_msg("field at %zu = %#" PRIx64
		         ": got %d \"%s\", wanted \"%s\"",
		         at, value, rc, err, why);
	free(bad);
}

/* expect_resealed_n of a 4-byte field. */
static void expect_resealed(const uint8_t *img, size_t len, size_t at,
                            uint32_t value, int rank, const char *why)
{
	expect_resealed_n(img, len, at, value, 4, rank, why);
}

static void test_resealed_fields(void **state)
{
	(void)state;
	ir_plan p;
	ir_slice *sl;
	uint8_t *img;
	size_t len;
	make_bcast_plan(&p);
	encode(&p, &sl, &img, &len);
	const size_t g = 128;                      /* global section */
	const size_t tr = g + 288 + 8 * p.nphases; /* transfers */
	const size_t bl = tr + 28 * p.ntransfers;  /* blocks */
	uint64_t index_off = rd64(img + 48);
	uint64_t sec = rd64(img + index_off + 24 * 2); /* rank 2 section */

	expect_resealed(img, len, g + 0, 9, -1, "topology 9");
	/* past the table, and a fat tree's routing on a mesh */
	char past[32];
	snprintf(past, sizeof past, "routing %d", IR_NROUTINGS);
	expect_resealed(img, len, g + 4, IR_NROUTINGS, -1, past);
	expect_resealed(img, len, g + 4, IR_ROUTE_D_MOD_K, -1,
	                "routing must be dimension-order");
	expect_resealed(img, len, g + 8, 9, -1, "cannot describe (ndims 9)");
	/* a 4-D machine is one, but 4 x 4 x 1 x 1 (the unused extents read
	 * as 1) is that of version 6: the older format cannot describe it */
	expect_resealed(img, len, g + 8, 4, -1, "cannot describe (ndims 4)");
	expect_resealed(img, len, g + 12, 3, -1, "do not give 16 ranks");
	/* an extent past ndims is 1: the coordinates divide by it */
	expect_resealed(img, len, g + 20, 0, -1,
	                "dims[2] is 0 past the machine's 2 dimensions");
	expect_resealed(img, len, g + 16, 0, -1,
	                "dims[1] is 0 (an extent is at least 1)");
	expect_resealed(img, len, g + 12, 0x01000000u, -1,
	                "do not give 16 ranks");
	expect_resealed(img, len, g + 44, 17, -1, "disagrees with the header");
	expect_resealed(img, len, g + 196, 16, -1, "root 16");
	expect_resealed(img, len, g + 212, 5, -1, "element type 5");
	expect_resealed(img, len, g + 280, 0xffffffffu, -1, "do not fit");
	expect_resealed(img, len, g + 284, 0x10000000u, -1, "do not fit");
	expect_resealed(img, len, g + 288 + 4, 100, -1, "names transfers");
	expect_resealed(img, len, tr + 4, 16, -1, "joins ranks");
	expect_resealed(img, len, tr + 16, 1000, -1, "names blocks");
	expect_resealed(img, len, tr + 24, 4, -1, "unknown flags");
	expect_resealed(img, len, bl + 0, 0xffffffffu, -1, "block 0");
	expect_resealed(img, len, 20, 4, -1, "unknown plan flags");

	/* rank 2: fixed part 36 bytes, ops of 28, iovs of 20 */
	const size_t op = sec + 36, iov = op + 8 * 28;
	expect_resealed(img, len, sec + 0, 3, 2, "holds the slice of rank 3");
	expect_resealed(img, len, sec + 4, 1000, 2, "do not fill");
	expect_resealed(img, len, op + 28 + 0, IR_NOPS, 2, "has code");
	expect_resealed(img, len, op + 28 + 8, 16, 2, "has peer 16");
	expect_resealed(img, len, op + 0 + 8, 0xfffffffeu, 2, "has peer -2");
	expect_resealed(img, len, op + 28 + 4, 3, 2, "in phase 3");
	expect_resealed(img, len, op + 3 * 28 + 20, 6, 2, "bad iovs");
	expect_resealed(img, len, op + 3 * 28 + 24, 5, 2, "bad iovs");
	expect_resealed(img, len, iov + 0, 3, 2, "names buffer 3");
	expect_resealed(img, len, iov + 2 * 20 + 4, 513, 2, "outside its");
	expect_resealed(img, len, iov + 12, 0xffffffffu, 2, "outside its");
	free(img);
	free_slices(sl, NRANKS);
	ir_plan_fini(&p);
}

/* The version-6 machine record: the last 64 bytes of the global section
 * (docs/plan-format.md); offsets of its fields. */
enum {
	MR_DIMS = 0, /* i32 x 5: dims[3..8) */
	MR_WRAP = 20,
	MR_ORDER = 24,
	MR_RPN = 28,
	MR_PLACE = 32,
	MR_NPORTS = 36,
	MR_NNODES = 40,
	MR_SHM_ALPHA = 44,
	MR_SHM_BETA = 52,
	MR_RESERVED = 60,
	MR_SIZE = 64
};

/* make_bcast_plan's plan (16 ranks) moved onto machine m, which must
 * have 16 ranks and need version 6; encoded into img, and the offset of
 * its machine record returned. */
static size_t encode_v6(ir_plan *p, const ir_machine *m, uint8_t **img,
                        size_t *len)
{
	ir_slice *sl;
	make_bcast_plan(p);
	assert_int_equal(m->nranks, NRANKS);
	p->machine = *m;
	encode(p, &sl, img, len);
	free_slices(sl, NRANKS);
	assert_int_equal((*img)[8], 6);
	uint64_t goff = (uint64_t)(*img)[36] | (uint64_t)(*img)[37] << 8 |
	                (uint64_t)(*img)[38] << 16 |
	                (uint64_t)(*img)[39] << 24;
	return (size_t)(goff + rd64(*img + 40) - MR_SIZE);
}

/* The bits of a double, for a patched f64 field. */
static uint64_t f64_of(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

/* A dimension order packed as the record holds it: order[k] in bits
 * 4k..4k+3. */
static uint32_t packed_order(const uint8_t o[IR_MAX_DIMS])
{
	uint32_t v = 0;
	for (int k = IR_MAX_DIMS - 1; k >= 0; k--)
		v = v << 4 | o[k];
	return v;
}

/* Every field of the version-6 machine record, patched to a value the
 * writer never writes and the checksums resealed, is refused with a
 * message that names what is wrong; the untouched images read back. */
/* A fat tree travels in the version-6 record with no new field: ndims
 * h, dims m_1..m_4 then w_1..w_4, the HPAM level integers its widths.
 * What the record cannot mean is refused: a level past h, a zero or
 * negative degree or width, a routing of another topology, a topology
 * past the table. */
static void test_fat_tree_record(void **state)
{
	(void)state;
	ir_plan p, q;
	uint8_t *img;
	size_t len;
	char err[256];
	ir_file_info fi;
	const int down[] = {4, 4}, up[] = {1, 2}, width[] = {1, 2};
	ir_machine t = tu_fat_tree(2, down, up, width, 1, IR_ROUTE_S_MOD_K,
	                           IR_PORTS_ALL);
	size_t mr = encode_v6(&p, &t, &img, &len);
	assert_int_equal(ir_plan_decode(img, len, &q, &fi, err, sizeof err),
	                 0);
	assert_plan_equal(&p, &q);
	assert_int_equal(q.machine.topo, IR_FAT_TREE);
	assert_int_equal(q.machine.routing, IR_ROUTE_S_MOD_K);
	assert_int_equal(q.machine.levels[0][1], 2);
	assert_int_equal(ir_link_capacity(&q.machine, 32), 2);
	ir_plan_fini(&q);
	uint64_t g = (uint64_t)img[36] | (uint64_t)img[37] << 8 |
	             (uint64_t)img[38] << 16 | (uint64_t)img[39] << 24;
	/* past the table: refused before the shape is looked at */
	expect_resealed(img, len, g + 0, IR_NTOPOS, -1, "bad plan: ");
	expect_resealed(img, len, g + 4, IR_ROUTE_DIRECT, -1,
	                "routing must be d-mod-k, s-mod-k, adaptive or source for topology "
	                "fat_tree");
	expect_resealed(img, len, g + 8, 5, -1, "do not give 16 ranks");
	expect_resealed(img, len, g + 8, 1, -1, "do not give 16 ranks");
	/* dims[2] (m_3) past the 2 levels */
	expect_resealed(img, len, g + 20, 2, -1,
	                "dims[2] must be 1 (a 2-level fat tree has no level "
	                "3), got 2");
	expect_resealed(img, len, mr + MR_DIMS, 2, -1,
	                "dims[3] must be 1 (a 2-level fat tree has no "
	                "level 4), got 2");
	expect_resealed(img, len, mr + MR_DIMS + 8, 0, -1,
	                "dims[5] (level 2 up) must be >= 1, got 0");
	expect_resealed(img, len, mr + MR_DIMS + 8, (uint32_t)-4, -1,
	                "dims[5] (level 2 up) must be >= 1, got -4");
	expect_resealed(img, len, g + 28, 0, -1,
	                "widths are written as 1, not 0");
	expect_resealed(img, len, g + 28, (uint32_t)-1, -1,
	                "levels[0][1] (level 2 link width) must be");
	expect_resealed(img, len, g + 32, 3, -1,
	                "levels[1][0] (level 3 link width) must be 1 past");
	free(img);
	ir_plan_fini(&p);
}

/* A dragonfly travels in the version-6 record with no new field: ndims
 * 3, dims p, a, g, h, the arrangement, then 1s; the HPAM level integers
 * its host, local and global widths; wrap Valiant's seed.  What the
 * record cannot mean is refused, naming the field. */
static void test_dragonfly_record(void **state)
{
	(void)state;
	ir_plan p, q;
	uint8_t *img;
	size_t len;
	char err[256];
	ir_file_info fi;
	const int width[] = {1, 2, 3};
	/* 4 groups of 2 routers of 2 hosts, 3 global links a router: two
	 * per group pair */
	ir_machine t = tu_dragonfly(4, 2, 2, 3, IR_DFLY_RELATIVE, width, 1,
	                            IR_ROUTE_ADAPTIVE, 99, IR_PORTS_ALL);
	size_t mr = encode_v6(&p, &t, &img, &len);
	assert_int_equal(ir_plan_decode(img, len, &q, &fi, err, sizeof err),
	                 0);
	assert_plan_equal(&p, &q);
	assert_int_equal(q.machine.topo, IR_DRAGONFLY);
	assert_int_equal(q.machine.routing, IR_ROUTE_ADAPTIVE);
	assert_int_equal(q.machine.dims[3], 3);
	assert_int_equal(q.machine.dims[4], IR_DFLY_RELATIVE);
	assert_int_equal(q.machine.wrap, 99);
	assert_int_equal(q.machine.levels[1][0], 3);
	assert_int_equal(ir_link_capacity(&q.machine, ir_nlinks(&q.machine) - 1),
	                 3);
	ir_plan_fini(&q);
	uint64_t g = (uint64_t)img[36] | (uint64_t)img[37] << 8 |
	             (uint64_t)img[38] << 16 | (uint64_t)img[39] << 24;
	expect_resealed(img, len, g + 4, IR_ROUTE_D_MOD_K, -1,
	                "routing must be adaptive, minimal, valiant or source for "
	                "topology dragonfly");
	expect_resealed(img, len, g + 8, 4, -1, "do not give 16 ranks");
	/* groups 3: 12 hosts */
	expect_resealed(img, len, g + 20, 3, -1, "do not give 16 ranks");
	/* h = 4: a h = 8 is not a multiple of g - 1 = 3 */
	expect_resealed(img, len, mr + MR_DIMS, 4, -1,
	                "dims[2] (groups) must be at most a * h + 1");
	expect_resealed(img, len, mr + MR_DIMS, 0, -1,
	                "dims[3] (global links per router) must be 1..");
	expect_resealed(img, len, mr + MR_DIMS + 4, IR_NDFLY_ARRANGEMENTS, -1,
	                "dims[4] (global-link arrangement) must be 0..2");
	/* circulant needs an odd number of groups */
	expect_resealed(img, len, mr + MR_DIMS + 4, IR_DFLY_CIRCULANT, -1,
	                "must be odd for the circulant arrangement");
	expect_resealed(img, len, mr + MR_DIMS + 8, 0, -1,
	                "unused dims and link widths are written as 1, not 0");
	expect_resealed(img, len, mr + MR_DIMS + 12, 2, -1,
	                "dims[6] must be 1 (unused by a dragonfly), got 2");
	expect_resealed(img, len, g + 24, 0, -1,
	                "unused dims and link widths are written as 1");
	expect_resealed(img, len, g + 32, (uint32_t)-3, -1,
	                "levels[1][0] (global link width) must be");
	expect_resealed(img, len, g + 36, 2, -1,
	                "levels[1][1] (unused) must be 1, got 2");
	expect_resealed(img, len, mr + MR_ORDER, 0x10, -1,
	                "order must be unset on a dragonfly");
	free(img);
	ir_plan_fini(&p);
}

static void test_version6_machine_record(void **state)
{
	(void)state;
	ir_plan p, q;
	uint8_t *img;
	size_t len;
	char err[256];
	ir_file_info fi;

	/* a torus of 2x2x2x2 that wraps dimensions x and y only and routes
	 * a, x, y, z */
	const int d2222[] = {2, 2, 2, 2};
	const uint8_t o[IR_MAX_DIMS] = {3, 0, 1, 2, 4, 5, 6, 7};
	ir_machine t = tu_grid(IR_TORUS, 4, d2222, 0x5, o, 1, IR_PLACE_BLOCK,
	                       IR_PORTS_ALL, 1);
	size_t mr = encode_v6(&p, &t, &img, &len);
	assert_int_equal(ir_plan_decode(img, len, &q, &fi, err, sizeof err),
	                 0);
	assert_plan_equal(&p, &q);
	ir_plan_fini(&q);
	/* shape: unused and used extents, wrap, order */
	expect_resealed(img, len, mr + MR_DIMS, 0, -1, "dims[3] is 0");
	expect_resealed(img, len, mr + MR_DIMS, (uint32_t)-2, -1,
	                "dims[3] is -2");
	expect_resealed(img, len, mr + MR_DIMS + 4, 0, -1,
	                "dims[4] is 0 past the machine's 4 dimensions");
	expect_resealed(img, len, mr + MR_DIMS + 16, (uint32_t)-1, -1,
	                "dims[7] is -1 past the machine's 4 dimensions");
	expect_resealed(img, len, mr + MR_DIMS + 8, 2, -1,
	                "dims[5] is 2 past the machine's 4 dimensions");
	expect_resealed(img, len, mr + MR_WRAP, 0x15, -1,
	                "wrap 0x15 names a dimension");
	expect_resealed(img, len, mr + MR_WRAP, 0x80000005u, -1,
	                "wrap 0x80000005 names a dimension");
	uint8_t bad[IR_MAX_DIMS];
	memcpy(bad, o, sizeof bad);
	bad[1] = 3; /* a, a, y, z */
	expect_resealed(img, len, mr + MR_ORDER, packed_order(bad), -1,
	                "order must list each of the 4 dimensions once");
	memcpy(bad, o, sizeof bad);
	bad[0] = 4; /* b, x, y, z: b is past the 4 dimensions */
	expect_resealed(img, len, mr + MR_ORDER, packed_order(bad), -1,
	                "(entry 0 is 4)");
	memcpy(bad, o, sizeof bad);
	bad[6] = 7, bad[7] = 6; /* the unused dimensions out of place */
	expect_resealed(img, len, mr + MR_ORDER, packed_order(bad), -1,
	                "order");
	/* nodes */
	expect_resealed(img, len, mr + MR_RPN, 0, -1, "ranks_per_node 0");
	expect_resealed(img, len, mr + MR_RPN, (uint32_t)-3, -1,
	                "ranks_per_node -3");
	expect_resealed(img, len, mr + MR_RPN, 2, -1,
	                "16 nodes of 2 ranks are not the machine's 16 ranks");
	expect_resealed(img, len, mr + MR_RPN, 0x40000000u, -1,
	                "are not the machine's 16 ranks");
	/* a map (2) needs its list after the record */
	expect_resealed(img, len, mr + MR_PLACE, 2, -1,
	                "0 bytes after the machine, where its placement "
	                "needs 64");
	expect_resealed(img, len, mr + MR_PLACE, 3, -1,
	                "bad plan: placement 3 (block 0, cyclic 1, map 2)");
	expect_resealed(img, len, mr + MR_PLACE, 0xffffffffu, -1,
	                "bad plan: placement 4294967295");
	expect_resealed(img, len, mr + MR_NPORTS, (uint32_t)-1, -1,
	                "node_ports must be 0 (all) or >= 1, got -1");
	expect_resealed(img, len, mr + MR_NPORTS, 0x80000000u, -1,
	                "node_ports must be 0 (all) or >= 1");
	expect_resealed(img, len, mr + MR_NNODES, 8, -1,
	                "8 nodes of 1 ranks are not the machine's 16 ranks");
	expect_resealed(img, len, mr + MR_NNODES, 0, -1,
	                "0 nodes of 1 ranks");
	/* shared-memory costs: NaN (none) or positive and finite */
	const double wrong[] = {-1.0, 0.0, -0.0, INFINITY, -INFINITY};
	for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
		expect_resealed_n(img, len, mr + MR_SHM_ALPHA, f64_of(wrong[i]),
		                  8, -1, "shared-memory cost");
		expect_resealed_n(img, len, mr + MR_SHM_BETA, f64_of(wrong[i]),
		                  8, -1, "shared-memory cost");
	}
	expect_resealed(img, len, mr + MR_RESERVED, 1, -1,
	                "reserved field is not 0");
	expect_resealed(img, len, mr + MR_RESERVED, 0x80000000u, -1,
	                "reserved field is not 0");
	free(img);
	ir_plan_fini(&p);

	/* a 4x4 torus that wraps only x: version 6; wrapping both, as a
	 * patched record says, is what version 5 says */
	ir_machine w = tu_machine(IR_TORUS, 1, 4, 4, 0, 0);
	w.wrap = 0x1;
	assert_int_equal(ir_machine_check(&w, err, sizeof err), 0);
	mr = encode_v6(&p, &w, &img, &len);
	assert_int_equal(ir_plan_decode(img, len, &q, &fi, err, sizeof err),
	                 0);
	ir_plan_fini(&q);
	expect_resealed(img, len, mr + MR_WRAP, 0x3, -1,
	                "a version 6 machine that version 5 describes");
	expect_resealed(img, len, mr + MR_WRAP, 0x0, -1,
	                "a version 6 machine that version 5 describes");
	free(img);
	ir_plan_fini(&p);

	/* a 2x2 mesh of nodes of 4 ranks, cyclic, two network ports per
	 * node, a shared-memory latency and no per-byte cost */
	ir_machine n = tu_with_nodes(tu_machine(IR_MESH, 1, 2, 2, 0, 0), 4,
	                             IR_PLACE_CYCLIC, 2);
	n.cost.shm_alpha = 0.5;
	mr = encode_v6(&p, &n, &img, &len);
	assert_int_equal(ir_plan_decode(img, len, &q, &fi, err, sizeof err),
	                 0);
	assert_plan_equal(&p, &q);
	ir_plan_fini(&q);
	expect_resealed(img, len, mr + MR_WRAP, 0x1, -1,
	                "wrap must be 0 on a mesh");
	expect_resealed(img, len, mr + MR_DIMS, 0, -1,
	                "dims[3] is 0 past the machine's 2 dimensions");
	expect_resealed(img, len, mr + MR_RPN, 0, -1, "ranks_per_node 0");
	expect_resealed(img, len, mr + MR_RPN, 1, -1,
	                "4 nodes of 1 ranks are not the machine's 16 ranks");
	expect_resealed(img, len, mr + MR_RPN, 8, -1,
	                "4 nodes of 8 ranks are not the machine's 16 ranks");
	/* nnodes x rpn right, but not what the dimensions give */
	uint8_t *two = malloc(len);
	assert_non_null(two);
	memcpy(two, img, len);
	wr32(two + mr + MR_RPN, 8);
	expect_resealed(two, len, mr + MR_NNODES, 2, -1,
	                "do not give 16 ranks");
	wr32(two + mr + MR_RPN, 2);
	expect_resealed(two, len, mr + MR_NNODES, 8, -1,
	                "do not give 16 ranks");
	free(two);
	expect_resealed(img, len, mr + MR_NNODES, 16, -1,
	                "16 nodes of 4 ranks");
	expect_resealed(img, len, mr + MR_PLACE, 7, -1,
	                "bad plan: placement 7 (block 0, cyclic 1, map 2)");
	expect_resealed(img, len, mr + MR_NPORTS, (uint32_t)-2, -1,
	                "node_ports must be 0 (all) or >= 1, got -2");
	expect_resealed_n(img, len, mr + MR_SHM_ALPHA, f64_of(-0.5), 8, -1,
	                  "shared-memory cost -0.5");
	/* NaN is "none": the latency dropped, the record still needs 6 */
	uint8_t *none = malloc(len);
	assert_non_null(none);
	memcpy(none, img, len);
	wr64(none + mr + MR_SHM_ALPHA, f64_of(NAN));
	reseal(none, len);
	assert_int_equal(ir_plan_decode(none, len, &q, &fi, err, sizeof err),
	                 0);
	assert_true(isnan(q.machine.cost.shm_alpha));
	assert_int_equal(q.machine.ranks_per_node, 4);
	ir_plan_fini(&q);
	free(none);
	free(img);
	ir_plan_fini(&p);

	/* a machine in memory whose unused extents are 0, as
	 * ir_machine_check takes them, is written with them 1, which the
	 * reader takes */
	ir_slice *sl;
	make_bcast_plan(&p);
	p.machine.dims[2] = 0;
	encode(&p, &sl, &img, &len);
	free_slices(sl, NRANKS);
	assert_int_equal(ir_plan_decode(img, len, &q, &fi, err, sizeof err),
	                 0);
	for (int d = 2; d < IR_MAX_DIMS; d++)
		assert_int_equal(q.machine.dims[d], 1);
	ir_plan_fini(&q);
	free(img);
	ir_plan_fini(&p);
}

/* The writer refuses what the reader would refuse. */
static void test_encode_rejects(void **state)
{
	(void)state;
	ir_plan p;
	uint8_t *img = (uint8_t *)&p;
	size_t len = 1;
	make_bcast_plan(&p);
	ir_slice *sl = make_slices(NRANKS, p.nphases);
	assert_int_equal(ir_plan_encode(&p, NULL, NULL, &img, &len, NULL, 0),
	                 CCP_EINVAL);
	assert_null(img);
	assert_int_equal(len, 0);
	p.transfers[1].dst = NRANKS;
	assert_int_equal(ir_plan_encode(&p, NULL, sl, &img, &len, NULL, 0),
	                 CCP_EINVAL);
	p.transfers[1].dst = 4;
	sl[3].iovs[2].len = 2048;
	assert_int_equal(ir_plan_encode(&p, NULL, sl, &img, &len, NULL, 0),
	                 CCP_EINVAL);
	sl[3].iovs[2].len = 512;
	sl[4].rank = 5;
	assert_int_equal(ir_plan_encode(&p, NULL, sl, &img, &len, NULL, 0),
	                 CCP_EINVAL);
	sl[4].rank = 4;
	p.machine.dims[1] = 5;
	assert_int_equal(ir_plan_encode(&p, NULL, sl, &img, &len, NULL, 0),
	                 CCP_EINVAL);
	p.machine.dims[1] = 4;
	/* extents whose product overflows 64 bits */
	ir_machine keep = p.machine;
	p.machine.ndims = 3;
	for (int i = 0; i < 3; i++)
		p.machine.dims[i] = IR_MAX_RANKS;
	assert_int_equal(ir_plan_encode(&p, NULL, sl, &img, &len, NULL, 0),
	                 CCP_EINVAL);
	p.machine = keep;
	assert_int_equal(ir_plan_encode(&p, NULL, sl, &img, &len, NULL, 0), 0);
	free(img);
	free_slices(sl, NRANKS);
	ir_plan_fini(&p);
}

/* Many ranks with small slices: the encoder stays linear.  Timing is
 * printed, not asserted (performance claims belong to benchmarks). */
/* A binomial broadcast of 1 KiB from rank 0 on an n-rank one-port switch
 * (n a power of two), as a generator makes it. */
static void make_binomial(ir_plan *p, int32_t n)
{
	ir_machine m = {.topo = IR_SWITCH,
	                .routing = IR_ROUTE_DIRECT,
	                .ndims = 1,
	                .dims = {n, 1, 1},
	                .ports = 1,
	                .nranks = n};
	ir_comm c = {.coll = IR_BCAST, .root = 0, .bytes = 1024, .segments = 1};
	char why[256];
	ir_cost_unset(&m.cost);
	assert_int_equal(ir_machine_check(&m, why, sizeof why), 0);
	ir_plan_init(p, &m, &c, "binomial");
	for (int32_t step = 1; step < n; step *= 2) {
		assert_int_equal(ir_plan_phase(p), 0);
		for (int32_t r = 0; r < step; r++)
			assert_int_equal(ir_plan_add(p, r, r + step,
			                             &(ir_block){0, 0}, 1, 0),
			                 0);
	}
}

static void test_many_ranks(void **state)
{
	(void)state;
	const int32_t n = 65536;
	ir_plan p;
	make_binomial(&p, n);
	ir_slice *sl = make_slices(n, p.nphases);
	uint8_t *img;
	size_t len;
	char err[256];
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(ir_plan_encode(&p, NULL, sl, &img, &len, NULL, 0), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("encoded %d ranks, %zu bytes, in %.3f s\n", (int)n, len,
	              (double)(t1.tv_sec - t0.tv_sec) +
	                      (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	ir_plan q;
	assert_int_equal(ir_plan_decode(img, len, &q, NULL, err, sizeof err),
	                 0);
	assert_plan_equal(&p, &q);
	ir_plan_fini(&q);
	ir_slice s;
	assert_int_equal(rank_path(img, len, n - 1, &s), 0);
	assert_true(slice_equal(&s, &sl[n - 1]));
	ir_slice_fini(&s);
	free(img);
	free_slices(sl, n);
	ir_plan_fini(&p);
}

/* ---- encoding as a stream ------------------------------------------- */

/* A sink into memory that can fail: put number fail_at (from 0) and
 * put_head when head_fails. */
struct mem_sink {
	uint8_t *p;
	size_t len, cap;
	int calls, fail_at;
	bool head_fails, head_put;
};

static int mem_put(void *ctx, const void *buf, size_t len)
{
	struct mem_sink *m = ctx;
	assert_false(m->head_put); /* the header comes last */
	if (m->calls++ == m->fail_at)
		return CCP_EIO;
	if (m->len + len > m->cap) {
		m->cap = (m->len + len) * 2;
		m->p = realloc(m->p, m->cap);
		assert_non_null(m->p);
	}
	memcpy(m->p + m->len, buf, len);
	m->len += len;
	return 0;
}

static int mem_put_head(void *ctx, const void *head, size_t len)
{
	struct mem_sink *m = ctx;
	if (m->head_fails)
		return CCP_EIO;
	assert_int_equal(len, IR_FILE_HEADER_MIN);
	assert_true(m->len >= len);
	memcpy(m->p, head, len);
	m->head_put = true;
	return 0;
}

/* ir_plan_encode_to gives ir_plan_encode's bytes, and a failing sink
 * ends it with the sink's error. */
static void assert_stream_same(const ir_plan *p, const ir_report *r,
                               const ir_slice *sl)
{
	uint8_t *img;
	size_t len;
	uint64_t out = 1;
	assert_int_equal(ir_plan_encode(p, r, sl, &img, &len, NULL, 0), 0);
	struct mem_sink m = {.fail_at = -1};
	ir_sink k = {mem_put, mem_put_head, &m};
	assert_int_equal(ir_plan_encode_to(p, r, sl, &k, &out, NULL, 0), 0);
	assert_int_equal(out, len);
	assert_int_equal(m.len, len);
	assert_true(m.head_put);
	assert_memory_equal(m.p, img, len);
	int calls = m.calls;
	for (int at = 0; at < calls; at += calls / 4 + 1) {
		struct mem_sink f = {.fail_at = at};
		k.ctx = &f;
		out = 1;
		assert_int_equal(ir_plan_encode_to(p, r, sl, &k, &out, NULL, 0),
		                 CCP_EIO);
		assert_int_equal(out, 0);
		assert_int_equal(f.calls, at + 1); /* nothing put after it */
		free(f.p);
	}
	struct mem_sink h = {.fail_at = -1, .head_fails = true};
	k.ctx = &h;
	assert_int_equal(ir_plan_encode_to(p, r, sl, &k, NULL, NULL, 0),
	                 CCP_EIO);
	free(h.p);
	assert_int_equal(ir_plan_encode_to(p, r, sl, NULL, NULL, NULL, 0),
	                 CCP_EINVAL);
	free(m.p);
	free(img);
}

static void test_encode_streamed(void **state)
{
	(void)state;
	ir_plan p;
	ir_report r = {.ok = true, .lb_phases = 2};
	/* small plans: everything in one piece */
	make_bcast_plan(&p);
	ir_slice *sl = make_slices(p.machine.nranks, p.nphases);
	assert_stream_same(&p, &r, sl);
	free_slices(sl, p.machine.nranks);
	ir_plan_fini(&p);
	make_irregular_plan(&p);
	sl = make_slices(p.machine.nranks, p.nphases);
	assert_stream_same(&p, NULL, sl);
	free_slices(sl, p.machine.nranks);
	ir_plan_fini(&p);
	/* a binomial broadcast of 65,536 ranks, lowered: a global section
	 * and an index of megabytes each, handed over in many pieces */
	const int32_t n = 65536;
	make_binomial(&p, n);
	assert_int_equal(ir_verify(&p, &r), 0);
	assert_int_equal(ir_lower(&p, &sl), 0);
	assert_stream_same(&p, &r, sl);
	ir_slices_free(sl, n);
	ir_report_fini(&r);
	ir_plan_fini(&p);
}

/* ---- the slice rules (the bad catalogue breaks each one in a file) ---- */

/* What ir_slice_check says of s as rank 0 of 4 ranks and nphases phases:
 * 0, or the code with the reason in err. */
static int slice_rule(const ir_slice *s, uint32_t nphases, char *err)
{
	err[0] = '\0';
	return ir_slice_check(s, 0, 4, nphases, err, 256);
}

/* What the rules allow: reductions of one phase combining into the same
 * running partial (the engine combines them one after the other, after
 * the wait), sends reading the same bytes, a zero-byte op with no piece
 * and an empty piece, which overlaps nothing; and where they stop. */
static void test_slice_rules(void **state)
{
	(void)state;
	char err[256];
	ir_iov iovs[7] = {
	        {IR_BUF_SCRATCH, 0, 16},  {IR_BUF_RECV, 0, 16},
	        {IR_BUF_SCRATCH, 16, 16}, {IR_BUF_RECV, 0, 16},
	        {IR_BUF_SEND, 0, 64},     {IR_BUF_SEND, 0, 64},
	        {IR_BUF_RECV, 8, 0},
	};
	ir_op ops[8] = {
	        {IR_OP_PHASE, 0, -1, 0, 0, 0, 0},
	        {IR_OP_RECV_REDUCE, 0, 1, 0, 16, 0, 2},
	        {IR_OP_RECV_REDUCE, 0, 2, 0, 16, 2, 2},
	        {IR_OP_SEND, 0, 1, 0, 64, 4, 1},
	        {IR_OP_SEND, 0, 3, 0, 64, 5, 1},
	        {IR_OP_SEND, 0, 2, 0, 0, 6, 0},
	        {IR_OP_RECV, 0, 3, 0, 0, 6, 1},
	        {IR_OP_WAIT, 0, -1, 0, 0, 0, 0},
	};
	ir_slice s = {.rank = 0,
	              .send_bytes = 64,
	              .recv_bytes = 64,
	              .scratch_bytes = 64,
	              .dtype = IR_DT_INT32,
	              .redop = IR_OP_SUM,
	              .ops = ops,
	              .nops = 8,
	              .iovs = iovs,
	              .niovs = 7};
	assert_int_equal(slice_rule(&s, 3, err), 0);
	/* a group in a plan of no phases */
	assert_int_equal(slice_rule(&s, 0, err), CCP_EFORMAT);
	assert_string_equal(err, "bad plan: rank 0 op 0: PHASE 0 in a plan of "
	                         "0 phases");
	/* running partials that overlap without being the same: they are
	 * combined one after the other after the wait (element blocks of
	 * reductions cut differently) */
	iovs[3].off = 8;
	assert_int_equal(slice_rule(&s, 3, err), 0);
	iovs[3].off = 0;
	/* a reduction's partial that a send of the phase reads: the send
	 * has read it by the wait, the combine comes after (recursive
	 * doubling sends and combines the same vector in one phase) */
	iovs[4] = (ir_iov){IR_BUF_RECV, 0, 64};
	assert_int_equal(slice_rule(&s, 3, err), 0);
	iovs[4] = (ir_iov){IR_BUF_SEND, 0, 64};
	/* but a receive landing on a partial races with nothing only if
	 * nothing else of the phase touches it */
	iovs[6] = (ir_iov){IR_BUF_RECV, 8, 8};
	ops[6].bytes = 8;
	assert_int_equal(slice_rule(&s, 3, err), CCP_EFORMAT);
	assert_string_equal(err, "bad plan: rank 0 phase 0: op 6 writes bytes "
	                         "[8, 16) of the recv buffer that op 1 writes "
	                         "in the same phase");
	iovs[6] = (ir_iov){IR_BUF_RECV, 8, 0};
	ops[6].bytes = 0;
	/* and one op's partials never overlap each other */
	ir_iov three[3] = {{IR_BUF_SCRATCH, 0, 16},
	                   {IR_BUF_RECV, 4, 8},
	                   {IR_BUF_RECV, 8, 8}};
	ir_op two[3] = {{IR_OP_PHASE, 0, -1, 0, 0, 0, 0},
	                {IR_OP_RECV_REDUCE, 0, 1, 0, 16, 0, 3},
	                {IR_OP_WAIT, 0, -1, 0, 0, 0, 0}};
	ir_slice t = s;
	t.ops = two;
	t.nops = 3;
	t.iovs = three;
	t.niovs = 3;
	assert_int_equal(slice_rule(&t, 3, err), CCP_EFORMAT);
	assert_string_equal(err, "bad plan: rank 0 phase 0: op 1 writes bytes "
	                         "[8, 12) of the recv buffer through two of "
	                         "its pieces");
	/* two pieces whose lengths add up past 2^64 to the op's bytes */
	s.send_bytes = UINT64_MAX;
	iovs[4] = (ir_iov){IR_BUF_SEND, 0, UINT64_C(1) << 63};
	iovs[5] = (ir_iov){IR_BUF_SEND, 0, UINT64_C(1) << 63};
	ops[3].bytes = 0;
	ops[3].niov = 2;
	ops[4].niov = 0;
	ops[4].bytes = 0;
	assert_int_equal(slice_rule(&s, 3, err), CCP_EFORMAT);
	assert_string_equal(err, "bad plan: rank 0 op 3: SEND of 0 bytes has "
	                         "pieces of more than 0");
	ops[3].bytes = UINT64_MAX;
	assert_int_equal(slice_rule(&s, 3, err), CCP_EFORMAT);
	assert_string_equal(err, "bad plan: rank 0 op 3: SEND of "
	                         "18446744073709551615 bytes has pieces of "
	                         "more than 18446744073709551615");
}

/* ---- JSON ------------------------------------------------------------- */

/* The export of p as a string (malloc'd). */
static char *export(const ir_plan *p, const ir_report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(json_export(p, r, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void test_json_golden(void **state)
{
	(void)state;
	ir_machine m;
	ir_comm c = {.coll = IR_BCAST, .root = 0, .bytes = 1024, .segments = 1};
	ir_plan p;
	ir_report r = {.lb_phases = 2};
	make_mesh(&m);
	ir_plan_init(&p, &m, &c, "binomial");
	assert_int_equal(ir_plan_add(&p, 0, 1, &(ir_block){0, 0}, 1, 0), 0);
	assert_int_equal(ir_plan_phase(&p), 0);
	assert_int_equal(ir_plan_add(&p, 0, 4, &(ir_block){0, 0}, 1, 0), 0);
	assert_int_equal(ir_plan_add(&p, 1, 5, &(ir_block){0, 0}, 1, 0), 0);
	char want[1024];
	snprintf(want, sizeof want,
	         "{\"format\":\"ccplan-plan\",\"version\":2,\"ranks\":16,"
	         "\"topology\":{\"kind\":\"mesh\",\"dims\":[4,4]},"
	         "\"routing\":\"%s\",\"ports\":1,"
	         "\"collective\":{\"kind\":\"broadcast\",\"root\":0,"
	         "\"bytes\":1024,\"segments\":1},"
	         "\"algorithm\":\"binomial\",\"link_contention\":false,"
	         "\"node_contention\":false,\"lower_bound_phases\":2,"
	         "\"phases\":["
	         "{\"transfers\":[{\"src\":0,\"dst\":1,\"bytes\":1024,"
	         "\"blocks\":[[0,0]]}]},"
	         "{\"transfers\":[{\"src\":0,\"dst\":4,\"bytes\":1024,"
	         "\"blocks\":[[0,0]]},{\"src\":1,\"dst\":5,\"bytes\":1024,"
	         "\"blocks\":[[0,0]]}]}]}\n",
	         ir_routing_name(IR_ROUTE_DIM_ORDER));
	char *got = export(&p, &r);
	assert_string_equal(got, want);
	free(got);
	ir_plan_fini(&p);
}

static void test_json_kinds(void **state)
{
	(void)state;
	ir_plan p;
	char want[512];

	make_irregular_plan(&p);
	char *got = export(&p, NULL);
	assert_non_null(strstr(got, "\"ports\":\"all\","));
	assert_non_null(strstr(got, "\"collective\":{\"kind\":\"irregular\","
	                            "\"messages\":4,\"seed\":42,\"matrix\":"
	                            "[[0,3,100],[0,7,5],[2,1,64],[15,0,1]]},"
	                            "\"algorithm\":\"direct\","
	                            "\"link_contention\":true,"
	                            "\"node_contention\":true,"
	                            "\"lower_bound_phases\":null,"));
	assert_non_null(strstr(got, "{\"src\":15,\"dst\":0,\"bytes\":1,"
	                            "\"blocks\":[[15,0]]}]}]}\n"));
	free(got);
	ir_plan_fini(&p);

	ir_machine m = {.topo = IR_HPAM,
	                .routing = IR_ROUTE_HPAM_XY,
	                .ndims = 2,
	                .levels = {{2, 4}, {1, 8}},
	                .ports = 3,
	                .nranks = 16};
	ir_comm c = {.coll = IR_REDUCE,
	             .root = 9,
	             .bytes = 64,
	             .dtype = IR_DT_FLOAT,
	             .op = IR_OP_MIN};
	ir_plan_init(&p, &m, &c, "tree \"q\"");
	assert_int_equal(
	        ir_plan_add(&p, 1, 9, &(ir_block){1, 0}, 1, IR_XF_REDUCE), 0);
	got = export(&p, NULL);
	snprintf(want, sizeof want,
	         "\"topology\":{\"kind\":\"hpam\",\"dims\":[2,4,1,8]},"
	         "\"routing\":\"%s\",\"ports\":3,"
	         "\"collective\":{\"kind\":\"reduce\",\"root\":9,\"bytes\":64,"
	         "\"dtype\":\"float\",\"op\":\"min\"},"
	         "\"algorithm\":\"tree \\\"q\\\"\",",
	         ir_routing_name(IR_ROUTE_HPAM_XY));
	assert_non_null(strstr(got, want));
	assert_non_null(strstr(got, "\"blocks\":[[1,0]],\"reduce\":true}"));
	free(got);
	ir_plan_fini(&p);

	m = (ir_machine){.topo = IR_HYPERCUBE,
	                 .routing = IR_ROUTE_ECUBE,
	                 .ndims = 5,
	                 .ports = 1,
	                 .nranks = 32};
	c = (ir_comm){.coll = IR_ALLTOALL, .bytes = 8};
	ir_plan_init(&p, &m, &c, "ecube");
	got = export(&p, NULL);
	assert_non_null(strstr(got, "{\"kind\":\"hypercube\",\"dims\":[5]}"));
	assert_non_null(strstr(got, "{\"kind\":\"alltoall\",\"bytes\":8}"));
	assert_non_null(strstr(got, "\"phases\":[]}"));
	free(got);
	ir_plan_fini(&p);

	m = (ir_machine){.topo = IR_SWITCH,
	                 .routing = IR_ROUTE_DIRECT,
	                 .ndims = 1,
	                 .dims = {12, 1, 1},
	                 .ports = 1,
	                 .nranks = 12};
	c = (ir_comm){.coll = IR_GATHER, .root = 3, .bytes = 100};
	ir_plan_init(&p, &m, &c, "flat");
	got = export(&p, NULL);
	assert_non_null(strstr(got, "{\"kind\":\"switch\",\"dims\":[12]}"));
	assert_non_null(strstr(got, "{\"kind\":\"gather\",\"root\":3,"
	                            "\"bytes\":100}"));
	free(got);
	ir_plan_fini(&p);
}

/* Parse the export of p back and check every key a checker needs against
 * the plan: the contention flags, the matrix of an irregular pattern, and
 * each transfer's ends, bytes, blocks and reduce and multicast flags
 * (present exactly when set).  Returns the number of multicast copies. */
static uint32_t check_export(const ir_plan *p)
{
	char *text = export(p, NULL);
	struct jr *root = jr_parse(text, strlen(text));
	assert_non_null(root);
	assert_int_equal(jr_get(root, "version")->i, JSON_FORMAT_VERSION);
	assert_int_equal(jr_get(root, "ranks")->i, p->machine.nranks);
	const struct jr *lc = jr_get(root, "link_contention");
	const struct jr *nc = jr_get(root, "node_contention");
	assert_true(lc && lc->kind == JR_BOOL && nc && nc->kind == JR_BOOL);
	assert_int_equal(lc->b, (p->flags & IR_PLAN_LINK_CONTENTION) != 0);
	assert_int_equal(nc->b, (p->flags & IR_PLAN_NODE_CONTENTION) != 0);
	const struct jr *coll = jr_get(root, "collective");
	const struct jr *mat = jr_get(coll, "matrix");
	if (p->comm.coll == IR_IRREGULAR) {
		const ir_matrix *x = p->comm.matrix;
		assert_true(mat && mat->kind == JR_ARR);
		assert_int_equal(mat->n, x->nnz);
		assert_int_equal(jr_get(coll, "messages")->i, x->nnz);
		for (int32_t s = 0; s < x->n; s++)
			for (int64_t k = x->row[s]; k < x->row[s + 1]; k++) {
				const struct jr *e = jr_at(mat, (size_t)k);
				assert_true(e && e->n == 3);
				assert_int_equal(jr_at(e, 0)->i, s);
				assert_int_equal(jr_at(e, 1)->i, x->dst[k]);
				assert_int_equal(jr_at(e, 2)->i, x->bytes[k]);
			}
	} else {
		assert_null(mat);
	}
	const struct jr *phases = jr_get(root, "phases");
	assert_int_equal(phases->n, p->nphases);
	uint32_t mc = 0;
	for (uint32_t ph = 0; ph < p->nphases; ph++) {
		const struct jr *ts = jr_get(jr_at(phases, ph), "transfers");
		assert_int_equal(ts->n, p->phases[ph].ntransfers);
		for (uint32_t t = 0; t < ts->n; t++) {
			const ir_transfer *x =
			        &p->transfers[p->phases[ph].transfer + t];
			const struct jr *o = jr_at(ts, t);
			assert_int_equal(jr_get(o, "src")->i, x->src);
			assert_int_equal(jr_get(o, "dst")->i, x->dst);
			assert_int_equal(jr_get(o, "bytes")->i, x->bytes);
			const struct jr *bl = jr_get(o, "blocks");
			assert_int_equal(bl->n, x->nblocks);
			for (uint32_t k = 0; k < x->nblocks; k++) {
				ir_block b = p->blocks[x->block + k];
				assert_int_equal(jr_at(jr_at(bl, k), 0)->i,
				                 b.origin);
				assert_int_equal(jr_at(jr_at(bl, k), 1)->i,
				                 b.index);
			}
			const struct jr *m = jr_get(o, "multicast");
			const struct jr *r = jr_get(o, "reduce");
			if (x->flags & IR_XF_MCAST) {
				assert_true(m && m->kind == JR_BOOL && m->b);
				mc++;
			} else {
				assert_null(m);
			}
			if (x->flags & IR_XF_REDUCE)
				assert_true(r && r->kind == JR_BOOL && r->b);
			else
				assert_null(r);
		}
	}
	jr_free(root);
	free(text);
	return mc;
}

static void test_json_checker_keys(void **state)
{
	(void)state;
	struct sch_options o = {.hpam_price = model_hpam_price};
	ir_plan p;
	/* an irregular plan of AC (which allows link contention) and of a
	 * contention-free scheduler, on a 4x4 mesh */
	ir_machine m = tu_machine(IR_MESH, 1, 4, 4, 0, 0);
	ir_comm c = {.coll = IR_IRREGULAR, .seed = 7};
	const struct sch_generator *gs[] = {&sch_ac, &sch_rs_nl};
	for (size_t k = 0; k < 2; k++) {
		c.matrix = ir_matrix_regular(16, 3, 100, 7);
		assert_non_null(c.matrix);
		assert_int_equal(gs[k]->generate(&m, &c, &o, &p), 0);
		ir_comm_fini(&c);
		/* AC is defined to allow link contention, RS_NL not */
		assert_int_equal((p.flags & IR_PLAN_LINK_CONTENTION) != 0,
		                 k == 0);
		assert_int_equal(check_export(&p), 0);
		ir_plan_fini(&p);
	}
	/* HPAM multicast broadcast and scatter: copies flagged */
	ir_machine h = tu_machine(IR_HPAM, 1, 2, 2, 4, 8);
	enum ir_coll colls[] = {IR_BCAST, IR_SCATTER};
	for (size_t k = 0; k < 2; k++) {
		ir_comm hc = tu_comm(colls[k], 1, 64);
		assert_int_equal(sch_hpam_multicast.generate(&h, &hc, &o, &p),
		                 0);
		assert_true(check_export(&p) > 0);
		ir_plan_fini(&p);
	}
	/* a reduce plan: the reduce flag on every transfer */
	ir_comm rc = tu_comm(IR_REDUCE, 0, 64);
	const struct sch_generator *rg = NULL;
	for (int k = 0; sch_generators[k] && !rg; k++)
		if (sch_applies(sch_generators[k], &m, &rc, NULL, 0) == 0)
			rg = sch_generators[k];
	assert_non_null(rg);
	assert_int_equal(rg->generate(&m, &rc, &o, &p), 0);
	assert_int_equal(check_export(&p), 0);
	ir_plan_fini(&p);
}

/* A placement map travels in the file after the machine record: it
 * round-trips rank by rank, and a reader refuses a list that does not
 * fill the nodes, and a placement field that disagrees with the bytes
 * that follow the record. */
static void test_placement_map(void **state)
{
	(void)state;
	const int32_t node[8] = {3, 0, 2, 1, 0, 3, 1, 2};
	char err[256];
	int32_t bad;
	int rc;
	ir_machine m = tu_machine(IR_MESH, 1, 2, 2, 0, 0);
	m.ranks_per_node = 2;
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	m.placement = IR_PLACE_MAP;
	m.place = ir_place_from_nodes(node, 8, 4, 2, &rc, &bad, err,
	                              sizeof err);
	assert_non_null(m.place);
	assert_int_equal(ir_machine_check(&m, err, sizeof err), 0);
	struct sch_options o = {0};
	ir_comm c = tu_comm(IR_BCAST, 5, 640);
	ir_plan p, q;
	assert_int_equal(sch_generate(sch_find("hierarchical"), &m, &c, &o, &p),
	                 0);
	ir_place_release(m.place); /* the plan holds its own reference */
	ir_slice *sl;
	uint8_t *img;
	size_t len;
	encode(&p, &sl, &img, &len);
	assert_int_equal(ir_plan_decode(img, len, &q, NULL, err, sizeof err),
	                 0);
	assert_plan_equal(&p, &q);
	assert_int_equal(q.machine.placement, IR_PLACE_MAP);
	for (int32_t r = 0; r < 8; r++)
		assert_int_equal(ir_node_of(&q.machine, r), node[r]);
	ir_plan_fini(&q);

	/* the list is the global section's last 32 bytes, before the index;
	 * the placement field is 32 bytes into the 64-byte record */
	size_t list = (size_t)rd64(img + 48) - 8 * 4, field = list - 64 + 32;
	expect_resealed(img, len, list + 4 * 4, 2, -1,
	                "placement map: rank 7 is placed on node 2, which "
	                "already holds its 2 ranks");
	expect_resealed(img, len, list + 4 * 7, 4, -1,
	                "placement map: rank 7 is placed on node 4; the "
	                "machine's nodes are 0..3");
	expect_resealed(img, len, field, IR_PLACE_BLOCK, -1,
	                "32 bytes after the machine, where its placement "
	                "needs 0");
	expect_resealed(img, len, field, IR_PLACE_CYCLIC + 7, -1,
	                "bad plan: placement 8 (block 0, cyclic 1, map 2)");
	free(img);
	free_slices(sl, 8);

	/* a block machine that says map, with no list after it */
	m.placement = IR_PLACE_BLOCK;
	m.place = NULL;
	ir_plan_fini(&p);
	assert_int_equal(sch_generate(sch_find("hierarchical"), &m, &c, &o, &p),
	                 0);
	encode(&p, &sl, &img, &len);
	field = (size_t)rd64(img + 48) - 64 + 32;
	expect_resealed(img, len, field, IR_PLACE_MAP, -1,
	                "0 bytes after the machine, where its placement "
	                "needs 32");
	free(img);
	free_slices(sl, 8);
	ir_plan_fini(&p);
}

/* A graph machine: written as version 7 (needing a reader of 7) with its
 * cables after the machine record, read back with the same cables and
 * rebuilt tables (routes alike); each cable field and count a hostile
 * file could change is refused with its reason. */
static void test_graph_record(void **state)
{
	(void)state;
	/* hosts 0..3; switches 4, 5: host 0, 1 on 4, hosts 2, 3 on 5 */
	static const struct ir_cable cab[] = {
	        {0, 4, 1, IR_CABLE_CLASS_DEFAULT, NAN, NAN},
	        {1, 4, 1, IR_CABLE_CLASS_DEFAULT, NAN, NAN},
	        {4, 5, 2, IR_LC_GLOBAL, 2.0, 1e-7},
	        {5, 2, 1, IR_CABLE_CLASS_DEFAULT, 1.0, NAN},
	        {5, 3, 1, IR_CABLE_CLASS_DEFAULT, NAN, 0.0}};
	ir_machine m = tu_graph(4, 2, cab, 5, IR_ROUTE_ADAPTIVE, IR_PORTS_ALL);
	ir_comm c = tu_comm(IR_BCAST, 0, 64);
	ir_plan p, q;
	ir_slice *sl;
	uint8_t *img;
	size_t len;
	char err[256];
	ir_file_info fi;
	const ir_block b = {0, 0};

	ir_plan_init(&p, &m, &c, "hand");
	ir_graph_release(m.graph); /* the plan holds its own reference */
	assert_int_equal(ir_plan_phase(&p), 0);
	assert_int_equal(ir_plan_add(&p, 0, 2, &b, 1, 0), 0);
	assert_int_equal(ir_plan_phase(&p), 0);
	assert_int_equal(ir_plan_add(&p, 0, 1, &b, 1, 0), 0);
	assert_int_equal(ir_plan_add(&p, 2, 3, &b, 1, 0), 0);
	encode(&p, &sl, &img, &len);
	assert_int_equal(ir_plan_decode(img, len, &q, &fi, err, sizeof err), 0);
	assert_int_equal(fi.version, 7);
	assert_int_equal(img[10], 7); /* the reader it needs */
	assert_plan_equal(&p, &q);
	const ir_graph *g = q.machine.graph;
	assert_non_null(g);
	assert_int_equal(g->nhosts, 4);
	assert_int_equal(g->nswitches, 2);
	assert_int_equal(g->ncables, 5);
	for (uint32_t i = 0; i < 5; i++) {
		const struct ir_cable *x = &p.machine.graph->cables[i];
		const struct ir_cable *y = &g->cables[i];
		assert_int_equal(x->a, y->a);
		assert_int_equal(x->b, y->b);
		assert_int_equal(x->width, y->width);
		assert_int_equal(x->cls, y->cls);
		assert_memory_equal(&x->bandwidth, &y->bandwidth, 8);
		assert_memory_equal(&x->latency, &y->latency, 8);
		assert_int_equal(g->cap[i], p.machine.graph->cap[i]);
	}
	assert_int_equal(ir_link_capacity(&q.machine, 4), 4);
	uint64_t l1[16], l2[16];
	for (int32_t s = 0; s < 4; s++)
		for (int32_t d = 0; d < 4; d++) {
			int h = ir_route(&p.machine, s, d, l1);
			assert_int_equal(ir_route(&q.machine, s, d, l2), h);
			assert_memory_equal(l1, l2, (size_t)h * sizeof *l1);
		}
	ir_plan_fini(&q);

	/* the graph record is the global section's last 16 + 5 x 32
	 * bytes, before the index */
	size_t rec = (size_t)rd64(img + 48) - 5 * 32 - 16, cable = rec + 16;
	expect_resealed(img, len, rec, 5, -1, "a graph of 5 hosts for 4");
	expect_resealed(img, len, rec + 4, 1, -1,
	                "graph: cable 2 joins vertex 4 and 5; the graph's "
	                "vertices are 0..4");
	expect_resealed(img, len, rec + 8, 6, -1, "6 cables in the 160 bytes");
	expect_resealed(img, len, rec + 8, 0xffffffffu, -1, "cables in the");
	/* the key flag, which only version 8 may set */
	expect_resealed(img, len, rec + 12, 1, -1,
	                "key flag is 1 in a version 7 file");
	expect_resealed(img, len, cable + 32 * 4, 9, -1,
	                "graph: cable 4 joins vertex 9 and 3");
	expect_resealed(img, len, cable + 32 * 3 + 4, 0, -1,
	                "graph: host 2 cannot reach host 0");
	expect_resealed(img, len, cable + 32 * 1 + 4, 1, -1, "to itself");
	expect_resealed(img, len, cable + 32 * 4 + 4, 2, -1,
	                "graph: cable 4 joins vertex 5 and 2 again");
	expect_resealed(img, len, cable + 32 * 2 + 8, 0, -1, "width");
	expect_resealed(img, len, cable + 32 * 2 + 12, IR_NLINK_CLASSES, -1,
	                "cable 2: class 5");
	expect_resealed_n(img, len, cable + 32 * 3 + 16, f64_of(-1.0), 8, -1,
	                  "cable 3: class 0, bandwidth -1");
	expect_resealed_n(img, len, cable + 32 * 3 + 16, f64_of(NAN), 8, -1,
	                  "cable 3: class 0, bandwidth nan");
	expect_resealed_n(img, len, cable + 32 * 3 + 16, f64_of(1.5), 8, -1,
	                  "whole multiple");
	expect_resealed_n(img, len, cable + 32 * 3 + 24, f64_of(-1.0), 8, -1,
	                  "latency -1");
	/* a graph in a version 6 file: the version is in the header */
	uint8_t *v6 = malloc(len);
	assert_non_null(v6);
	memcpy(v6, img, len);
	v6[8] = v6[10] = 6;
	reseal(v6, len);
	assert_int_equal(ir_plan_decode(v6, len, &q, NULL, err, sizeof err),
	                 CCP_EFORMAT);
	assert_non_null(strstr(err, "graphs need 7"));
	free(v6);
	free(img);
	free_slices(sl, 4);
	ir_plan_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_roundtrip_bcast),
	        cmocka_unit_test(test_roundtrip_irregular),
	        cmocka_unit_test(test_roundtrip_shapes),
	        cmocka_unit_test(test_determinism),
	        cmocka_unit_test(test_corrupt_bcast),
	        cmocka_unit_test(test_corrupt_irregular),
	        cmocka_unit_test(test_truncation),
	        cmocka_unit_test(test_foreign),
	        cmocka_unit_test(test_versions),
	        cmocka_unit_test(test_version5_combine),
	        cmocka_unit_test(test_version_of_new_collectives),
	        cmocka_unit_test(test_resealed_fields),
	        cmocka_unit_test(test_version6_machine_record),
	        cmocka_unit_test(test_fat_tree_record),
	        cmocka_unit_test(test_dragonfly_record),
	        cmocka_unit_test(test_encode_rejects),
	        cmocka_unit_test(test_many_ranks),
	        cmocka_unit_test(test_encode_streamed),
	        cmocka_unit_test(test_slice_rules),
	        cmocka_unit_test(test_json_golden),
	        cmocka_unit_test(test_json_kinds),
	        cmocka_unit_test(test_json_checker_keys),
	        cmocka_unit_test(test_placement_map),
	        cmocka_unit_test(test_graph_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
