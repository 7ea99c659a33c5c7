/*
 * mpi_transport.c - the MPI transport's functions called directly, as
 * the engine calls them (run under mpirun on any number of ranks >= 2).
 *
 * It checks what transport.h promises: request numbers from 0 that
 * restart after waitall, wait on a range, the agreement's verdict on every
 * rank, data and ready messages kept apart, phases whose tags wrap still
 * matched in order, zero-byte messages, a message of the wrong length
 * refused on the receiving rank (longer: MPI_ERR_TRUNCATE; shorter: the
 * count), a broken transport failing at once, bad arguments, no
 * allocation once the tables have grown, a receive still posted at
 * destroy, a split communicator, prepared groups (prepare refuses a
 * bad peer or length without breaking the transport; start posts a
 * whole array, numbering on, the tables growing in one call), and that
 * none of the transport's
 * messages matches the application's wildcard receive on the same
 * communicator.  Each rank prints one line; exit status 1 if a check
 * failed anywhere.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"
#include "transport.h"

static ccp_context *ctx;
static struct counter allocs; /* what the context's allocator did */
static int rank, size;

static ccp_transport *make(MPI_Comm comm)
{
	ccp_transport *t = NULL;
	int rc = ccp_mpi_transport(ctx, comm, &t);
	check(rc == 0 && t, "ccp_mpi_transport: %s (%s)", ccp_strerror(rc),
	      ccp_errmsg(ctx));
	return t;
}

static uint8_t byte_of(int from, int to, unsigned phase, size_t o)
{
	return (uint8_t)(from * 31 + to * 7 + phase * 13 + o * 3 + (o >> 8));
}

static void fill(uint8_t *b, size_t n, int from, int to, unsigned phase)
{
	for (size_t o = 0; o < n; o++)
		b[o] = byte_of(from, to, phase, o);
}

static bool same(const uint8_t *b, size_t n, int from, int to, unsigned phase)
{
	for (size_t o = 0; o < n; o++)
		if (b[o] != byte_of(from, to, phase, o))
			return false;
	return true;
}

/* Every rank passes (hash, status); the verdict must be want everywhere. */
static void agree_case(ccp_transport *t, const char *what, uint64_t hash,
                       int status, int want)
{
	int global = 99;
	int rc = t->ops->agree(t, hash, status, &global);
	check(rc == 0 && global == want, "agree %s: rc %d, verdict %d, want %d",
	      what, rc, global, want);
}

static void test_agree(ccp_transport *t)
{
	const uint64_t h = UINT64_C(0x0123456789abcdef);
	agree_case(t, "same hash", h, 0, 0);
	agree_case(t, "one hash differs", rank == size - 1 ? h ^ 1 : h, 0,
	           CCP_EMISMATCH);
	agree_case(t, "first hash differs", rank == 0 ? ~h : h, 0,
	           CCP_EMISMATCH);
	agree_case(t, "statuses", h,
	           rank == 0          ? CCP_EINVAL
	           : rank == size - 1 ? CCP_EBUFFER
	                              : 0,
	           CCP_EBUFFER);
	agree_case(t, "hash and status", rank == 1 ? 0 : h,
	           rank == 0 ? CCP_EBUFFER : 0, CCP_EMISMATCH);
	agree_case(t, "extreme hashes", rank % 2 ? UINT64_MAX : 0, 0,
	           CCP_EMISMATCH);
	agree_case(t, "all ones", UINT64_MAX, 0, 0);
	agree_case(t, "all zero", 0, 0, 0);
}

/* One phase of a ring: receive from both neighbours, send to both; the
 * request numbers, wait on the receive range, then waitall. */
static void ring(ccp_transport *t, unsigned phase, uint8_t *buf)
{
	const struct ccp_transport_ops *T = t->ops;
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	uint8_t *fl = buf, *fr = buf + 1000, *tr = buf + 1500, *tl = buf + 2500;
	memset(fl, 0, 1500);
	fill(tr, 1000, rank, right, phase);
	fill(tl, 500, rank, left, phase);
	int q0 = T->irecv(t, left, phase, CCP_TAG_DATA, fl, 1000);
	int q1 = T->irecv(t, right, phase, CCP_TAG_DATA, fr, 500);
	int q2 = T->isend(t, right, phase, CCP_TAG_DATA, tr, 1000);
	int q3 = T->isend(t, left, phase, CCP_TAG_DATA, tl, 500);
	check(q0 == 0 && q1 == 1 && q2 == 2 && q3 == 3,
	      "ring phase %u: request numbers %d %d %d %d", phase, q0, q1, q2,
	      q3);
	int rc = T->wait(t, 0, 2);
	check(rc == 0, "ring: wait(0, 2): %s (%s)", ccp_strerror(rc),
	      ccp_errmsg(ctx));
	check(same(fl, 1000, left, rank, phase) &&
	              same(fr, 500, right, rank, phase),
	      "ring phase %u: wrong data", phase);
	rc = T->waitall(t);
	check(rc == 0, "ring: waitall: %s (%s)", ccp_strerror(rc),
	      ccp_errmsg(ctx));
}

/* Many messages of one phase to one peer, matched in posting order; the
 * tables grow past their first size. */
static void burst(ccp_transport *t, unsigned phase, int count, uint8_t *buf)
{
	const struct ccp_transport_ops *T = t->ops;
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	bool ok = true;
	for (int i = 0; i < count; i++) {
		uint8_t *in = buf + 128 * i, *out = in + 64;
		memset(in, 0, 64);
		ok &= T->irecv(t, left, phase, CCP_TAG_DATA, in,
		               (size_t)(1 + i)) == 2 * i;
		fill(out, 64, rank, i, phase);
		ok &= T->isend(t, right, phase, CCP_TAG_DATA, out,
		               (size_t)(1 + i)) == 2 * i + 1;
	}
	int rc = T->waitall(t);
	check(ok && rc == 0, "burst of %d: %s (%s)", count, ccp_strerror(rc),
	      ccp_errmsg(ctx));
	for (int i = 0; i < count; i++)
		ok &= same(buf + 128 * i, (size_t)(1 + i), left, i, phase);
	check(ok, "burst of %d: messages out of order", count);
}

/* Pairs (2j, 2j+1) and, on odd sizes, the last rank with 0. */
static int pair_of(int r)
{
	if (size % 2 && r == size - 1)
		return 0;
	return r ^ 1;
}

/* The S1 shape: the receiver posts data then ready, the sender sends
 * ready then data: only the kind in the tag keeps them apart. */
static void kinds(ccp_transport *t, uint8_t *buf)
{
	const struct ccp_transport_ops *T = t->ops;
	if (size % 2 && rank == 0)
		return; /* rank 0 would be in two pairs */
	int peer = pair_of(rank), rc;
	bool low = rank < peer, ok = true;
	memset(buf, 0, 100);
	fill(buf + 100, 100, rank, peer, 3);
	if (low) { /* receiver first posts data, then the token */
		ok &= T->irecv(t, peer, 3, CCP_TAG_DATA, buf, 100) == 0;
		ok &= T->irecv(t, peer, 3, CCP_TAG_READY, buf + 300, 0) == 1;
		ok &= T->isend(t, peer, 3, CCP_TAG_READY, buf + 301, 0) == 2;
	} else { /* sender: token, then wait for the peer's, then data */
		ok &= T->isend(t, peer, 3, CCP_TAG_READY, buf + 300, 0) == 0;
		ok &= T->irecv(t, peer, 3, CCP_TAG_READY, buf + 301, 0) == 1;
		ok &= T->wait(t, 1, 1) == 0;
		ok &= T->isend(t, peer, 3, CCP_TAG_DATA, buf + 100, 100) == 2;
	}
	rc = T->waitall(t);
	check(ok && rc == 0, "kinds: %s (%s)", ccp_strerror(rc),
	      ccp_errmsg(ctx));
	if (low)
		check(same(buf, 100, peer, rank, 3), "kinds: wrong data");
}

/* Phases 2^30 apart share a tag when MPI_TAG_UB is 2^31 - 1: posted in
 * the order sent, they still meet their own message.  Phases 6 and 7,
 * received in the other order than sent, meet theirs by tag. */
static void wrap(ccp_transport *t, uint8_t *buf)
{
	const struct ccp_transport_ops *T = t->ops;
	if (size % 2 && rank == 0)
		return;
	int peer = pair_of(rank);
	bool low = rank < peer, ok = true;
	const uint32_t ph[5] = {5, 5u + (1u << 30), UINT32_MAX, 7, 6};
	const size_t len[5] = {10, 11, 12, 9, 7};
	if (low) {
		memset(buf, 0, 200);
		for (int i = 0; i < 3; i++)
			ok &= T->irecv(t, peer, ph[i], CCP_TAG_DATA,
			               buf + 40 * i, len[i]) == i;
		ok &= T->irecv(t, peer, ph[4], CCP_TAG_DATA, buf + 160,
		               len[4]) == 3;
		ok &= T->irecv(t, peer, ph[3], CCP_TAG_DATA, buf + 120,
		               len[3]) == 4;
	} else {
		for (int i = 0; i < 5; i++) {
			fill(buf + 40 * i, 40, rank, i, ph[i]);
			ok &= T->isend(t, peer, ph[i], CCP_TAG_DATA,
			               buf + 40 * i, len[i]) == i;
		}
	}
	int rc = T->waitall(t);
	check(ok && rc == 0, "wrap: %s (%s)", ccp_strerror(rc),
	      ccp_errmsg(ctx));
	if (low)
		for (int i = 0; i < 5; i++)
			check(same(buf + 40 * i, len[i], peer, i, ph[i]),
			      "wrap: phase %u got another message",
			      (unsigned)ph[i]);
}

/* Prepared groups: prepare's refusals leave the transport working; a
 * ring (2 receives, then 2 sends) and a burst of n messages each way,
 * each posted by one start, numbered on from the requests before it. */
static void prepared(ccp_transport *t, unsigned phase, int n, uint8_t *buf)
{
	const struct ccp_transport_ops *T = t->ops;
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	struct ccp_post q[2 * 64 + 4];
	if (!check(T->prepare && T->start && n <= 64, "no prepared groups"))
		return;
	q[0] = (struct ccp_post){buf, 8, size, phase, CCP_TAG_DATA, 1};
	int rc = T->prepare(t, q, 1);
	check(rc == CCP_EINVAL && strstr(ccp_errmsg(ctx), "receive from"),
	      "prepare: peer %d: %s (%s)", size, ccp_strerror(rc),
	      ccp_errmsg(ctx));
	q[0] = (struct ccp_post){buf, (size_t)INT_MAX + 1, left, phase,
	                         CCP_TAG_DATA, 0};
	rc = T->prepare(t, q, 1);
	check(rc == CCP_ERANGE, "prepare: 2^31 bytes: %s", ccp_strerror(rc));
	uint8_t *fl = buf, *fr = buf + 1000, *tr = buf + 1500, *tl = buf + 2500;
	memset(fl, 0, 1500);
	fill(tr, 1000, rank, right, phase);
	fill(tl, 500, rank, left, phase);
	q[0] = (struct ccp_post){fl, 1000, left, phase, CCP_TAG_DATA, 1};
	q[1] = (struct ccp_post){fr, 500, right, phase, CCP_TAG_DATA, 1};
	q[2] = (struct ccp_post){tr, 1000, right, phase, CCP_TAG_DATA, 0};
	q[3] = (struct ccp_post){tl, 500, left, phase, CCP_TAG_DATA, 0};
	uint8_t *in = buf + 4096, *out = buf + 8192;
	for (int i = 0; i < n; i++) {
		in[i] = 0;
		out[i] = (uint8_t)(rank * 64 + i);
		q[4 + i] = (struct ccp_post){in + i, 1, left, phase + 1,
		                             CCP_TAG_DATA, 1};
		q[4 + n + i] = (struct ccp_post){out + i, 1, right, phase + 1,
		                                 CCP_TAG_DATA, 0};
	}
	rc = T->prepare(t, q, (uint32_t)(4 + 2 * n));
	check(rc == 0, "prepare: %s (%s)", ccp_strerror(rc), ccp_errmsg(ctx));
	int a = T->start(t, q, 2), b = T->start(t, q + 2, 2);
	rc = T->waitall(t);
	check(a == 0 && b == 2 && rc == 0 && same(fl, 1000, left, rank, phase) &&
	              same(fr, 500, right, rank, phase),
	      "prepared ring: %d %d %s (%s)", a, b, ccp_strerror(rc),
	      ccp_errmsg(ctx));
	a = T->irecv(t, left, phase + 2, CCP_TAG_DATA, buf + 16384, 0);
	b = T->start(t, q + 4, (uint32_t)(2 * n));
	int c = T->isend(t, right, phase + 2, CCP_TAG_DATA, NULL, 0);
	rc = T->waitall(t);
	bool ok = a == 0 && b == 1 && c == 1 + 2 * n && rc == 0;
	for (int i = 0; i < n; i++)
		ok &= in[i] == (uint8_t)(left * 64 + i);
	check(ok, "prepared burst of %d: %d %d %d %s (%s)", n, a, b, c,
	      ccp_strerror(rc), ccp_errmsg(ctx));
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	rank = t_rank;
	t_prog = "mpi_transport";
	double t0 = MPI_Wtime();
	uint8_t *buf = calloc(1, 1 << 16);
	int rc = ccp_init(&ctx, counting_alloc, &allocs);
	check(rc == 0 && buf, "ccp_init: %s", ccp_strerror(rc));

	int app_in = -1, flag = 0;
	MPI_Request app_req;
	MPI_Irecv(&app_in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
	          MPI_COMM_WORLD, &app_req);

	/* arguments */
	ccp_transport *t = NULL;
	rc = ccp_mpi_transport(ctx, MPI_COMM_NULL, &t);
	check(rc == CCP_EINVAL && !t && ccp_errmsg(ctx)[0], "MPI_COMM_NULL: %s",
	      ccp_strerror(rc));
	rc = ccp_mpi_transport(ctx, MPI_COMM_WORLD, NULL);
	check(rc == CCP_EINVAL, "NULL handle: %s", ccp_strerror(rc));

	t = make(MPI_COMM_WORLD);
	if (!t)
		goto end;
	check(t->rank == rank && t->size == size &&
	              strcmp(ccp_transport_name(t), "mpi") == 0,
	      "rank %d size %d name %s", (int)t->rank, (int)t->size,
	      ccp_transport_name(t));
	test_agree(t);
	if (any_rank_failed())
		goto bail;
	check(t->ops->barrier(t) == 0, "barrier");
	prepared(t, 3, 40, buf); /* first: the tables grow in one start */

	/* the tables grow on the first rounds, then nothing is allocated */
	ring(t, 7, buf);
	if (any_rank_failed())
		goto bail;
	burst(t, 8, 40, buf);
	uint64_t before = allocs.calls;
	for (unsigned k = 0; k < 5; k++) {
		ring(t, 9 + k, buf);
		burst(t, 20 + k, 40, buf);
		kinds(t, buf);
	}
	check(allocs.calls == before, "%llu allocations after the tables grew",
	      (unsigned long long)(allocs.calls - before));
	wrap(t, buf);

	if (any_rank_failed())
		goto bail;
	/* zero-byte messages, NULL buffers */
	{
		const struct ccp_transport_ops *T = t->ops;
		int left = (rank + size - 1) % size, right = (rank + 1) % size;
		bool ok = T->irecv(t, left, 40, CCP_TAG_DATA, NULL, 0) == 0;
		ok &= T->isend(t, right, 40, CCP_TAG_DATA, NULL, 0) == 1;
		rc = T->waitall(t);
		check(ok && rc == 0, "zero bytes: %s (%s)", ccp_strerror(rc),
		      ccp_errmsg(ctx));
	}

	if (any_rank_failed())
		goto bail;
	/* a split communicator: ranks are the communicator's */
	MPI_Comm half;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	int hr, hs;
	MPI_Comm_rank(half, &hr);
	MPI_Comm_size(half, &hs);
	ccp_transport *th = make(half);
	if (th) {
		check(th->rank == hr && th->size == hs, "split: rank %d of %d",
		      (int)th->rank, (int)th->size);
		if (hs > 1) {
			const struct ccp_transport_ops *T = th->ops;
			int right = (hr + 1) % hs, left = (hr + hs - 1) % hs;
			memset(buf, 0, 64);
			fill(buf + 64, 64, hr, 0, 1);
			bool ok = T->irecv(th, left, 1, CCP_TAG_DATA, buf,
			                   64) == 0;
			ok &= T->isend(th, right, 1, CCP_TAG_DATA, buf + 64,
			               64) == 1;
			rc = T->waitall(th);
			check(ok && rc == 0 && same(buf, 64, left, 0, 1),
			      "split: ring (%s)", ccp_errmsg(ctx));
		}
		agree_case(th, "split", 42 + (uint64_t)(rank % 2), 0, 0);
		ccp_transport_free(th);
	}
	MPI_Comm_free(&half);

	if (any_rank_failed())
		goto bail;
	/* the wrong length: longer than the receive, then shorter */
	for (int longer = 1; longer >= 0; longer--) {
		ccp_transport *tb = make(MPI_COMM_WORLD);
		if (!tb)
			break;
		const struct ccp_transport_ops *T = tb->ops;
		if (rank == 0) {
			fill(buf, 10, 0, 1, 2);
			int q = T->isend(tb, 1, 2, CCP_TAG_DATA, buf,
			                 longer ? 10 : 6);
			rc = T->waitall(tb);
			check(q == 0 && rc == 0, "length: sender: %s",
			      ccp_strerror(rc));
		} else if (rank == 1) {
			int q = T->irecv(tb, 0, 2, CCP_TAG_DATA, buf, 8);
			rc = T->waitall(tb);
			check(q == 0 && rc == CCP_EPEER, "length %s: %s (%s)",
			      longer ? "10 into 8" : "6 into 8",
			      ccp_strerror(rc), ccp_errmsg(ctx));
			check(strstr(ccp_errmsg(ctx),
			             longer ? "sent more" : "sent 6") != NULL,
			      "length: message '%s'", ccp_errmsg(ctx));
			/* broken: everything fails at once, nothing blocks
			 * (only asked of a transport that did fail: a working
			 * one would block in the barrier alone) */
			if (rc == CCP_EPEER) {
				rc = T->barrier(tb);
				check(rc == CCP_EPEER &&
				              strstr(ccp_errmsg(ctx),
				                     "earlier error"),
				      "broken barrier: %s (%s)",
				      ccp_strerror(rc), ccp_errmsg(ctx));
				int global = 0;
				check(T->agree(tb, 1, 0, &global) ==
				                      CCP_EPEER &&
				              T->irecv(tb, 0, 3, CCP_TAG_DATA,
				                       buf, 1) == CCP_EPEER &&
				              T->isend(tb, 0, 3, CCP_TAG_DATA,
				                       buf, 1) == CCP_EPEER &&
				              T->wait(tb, 0, 0) == CCP_EPEER &&
				              T->waitall(tb) == CCP_EPEER,
				      "broken transport: a call did not fail");
			}
		}
		ccp_transport_free(tb);
	}

	if (any_rank_failed())
		goto bail;
	/* bad arguments, each on its own transport (a failure breaks it) */
	{
		ccp_transport *tb = make(MPI_COMM_WORLD);
		if (tb) {
			rc = tb->ops->irecv(tb, size, 1, CCP_TAG_DATA, buf, 1);
			check(rc == CCP_EINVAL, "peer %d: %s", size,
			      ccp_strerror(rc));
			rc = tb->ops->irecv(tb, 0, 1, CCP_TAG_DATA, buf, 1);
			check(rc == CCP_EINVAL &&
			              strstr(ccp_errmsg(ctx), "unusable"),
			      "after a failure: %s (%s)", ccp_strerror(rc),
			      ccp_errmsg(ctx));
			ccp_transport_free(tb);
		}
		tb = make(MPI_COMM_WORLD);
		if (tb) {
			rc = tb->ops->isend(tb, 0, 1, CCP_TAG_DATA, buf,
			                    (size_t)INT_MAX + 1);
			check(rc == CCP_ERANGE, "2 GiB message: %s",
			      ccp_strerror(rc));
			ccp_transport_free(tb);
		}
		tb = make(MPI_COMM_WORLD);
		if (tb) {
			rc = tb->ops->wait(tb, 3, 1);
			check(rc == CCP_EINVAL, "wait(3, 1) on nothing: %s",
			      ccp_strerror(rc));
			ccp_transport_free(tb);
		}
		/* a receive that never matches is cancelled by destroy */
		tb = make(MPI_COMM_WORLD);
		if (tb) {
			rc = tb->ops->irecv(tb, (rank + 1) % size, 77,
			                    CCP_TAG_DATA, buf, 4);
			check(rc == 0, "lone receive: %s", ccp_strerror(rc));
			ccp_transport_free(tb);
		}
	}

bail: /* a step failed somewhere: stop using the transport, on all */
	MPI_Test(&app_req, &flag, MPI_STATUS_IGNORE);
	check(!flag, "the application's wildcard receive matched a message "
	             "of the transport");
	ccp_transport_free(t);
end:
	MPI_Barrier(MPI_COMM_WORLD); /* every rank has tested its receive */
	/* complete the application's receive with its own message */
	int out = 1000 + rank;
	MPI_Request sreq;
	MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD,
	          &sreq);
	if (!flag)
		MPI_Wait(&app_req, MPI_STATUS_IGNORE);
	MPI_Wait(&sreq, MPI_STATUS_IGNORE);
	check(flag || app_in == 1000 + (rank + size - 1) % size,
	      "application message %d", app_in);
	ccp_fini(ctx);
	check(allocs.live == 0, "%lld blocks of the context not freed",
	      (long long)allocs.live);
	free(buf);
	printf("%s rank %d/%d: %u checks, %u failed, %.2f s\n", t_prog, rank,
	       size, t_checks, t_failures, MPI_Wtime() - t0);
	fflush(stdout);
	bool failed = any_rank_failed();
	MPI_Finalize();
	return failed ? 1 : 0;
}
