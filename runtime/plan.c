/*
 * plan.c - loading one rank's slice of a plan, and binding buffers.
 *
 * From a file the loader reads the 128-byte header, the rank's 24-byte
 * index entry and the rank's section, nothing else: a rank of a
 * 65,536-rank plan does not read the other 65,535 slices.  Every check of
 * the codec runs before the slice is used (ir/codec.h).  The slice is
 * then copied into the context's allocator, so that everything the
 * runtime keeps comes from the allocator the application chose.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "codec.h"
#include "internal.h"

/* The rules of the codec's slice check (ir_slice_check: every rule the
 * engine and the transports rely on), whatever the slice came from, and
 * the one the runtime adds: a reduction needs its element type, which a
 * file older than format version 3 does not record.  what names the
 * source in the message. */
static int check_slice(ccp_context *ctx, const ir_file_info *fi,
                       const ir_slice *s, const char *what)
{
	char err[200];
	int rc = ir_slice_check(s, s->rank, fi->nranks, fi->nphases, err,
	                        sizeof err);
	if (rc)
		return ccp__error(ctx, rc, "%s: %s", what, err);
	if (ir_dtype_size(s->dtype) != 0)
		return 0;
	for (uint32_t i = 0; i < s->nops; i++)
		if (s->ops[i].code == IR_OP_RECV_REDUCE)
			return ccp__error(ctx, CCP_EVERSION,
			                  "%s: rank %d: the plan reduces but "
			                  "does not record its element type (a "
			                  "file older than format version 3); "
			                  "recompile it",
			                  what, (int)s->rank);
	return 0;
}

/* Take a slice s (decoded by the codec or built from emitted tables, and
 * still the caller's) into a new plan handle allocated with ctx's
 * allocator, after the slice rules (check_slice): every loader comes
 * through here, so none can skip them.  what names the source in an
 * error message. */
int ccp__plan_new(ccp_context *ctx, const ir_file_info *fi, const ir_slice *s,
                  const char *what, ccp_plan **out)
{
	int rc = check_slice(ctx, fi, s, what);
	if (rc)
		return rc;
	ccp_plan *p = ccp__calloc(ctx, 1, sizeof *p);
	if (!p)
		return ccp__error(ctx, CCP_ENOMEM, "out of memory");
	p->ctx = ctx;
	p->slice = *s;
	p->slice.ops = ccp__alloc(ctx, (size_t)s->nops * sizeof *s->ops);
	p->slice.iovs = ccp__alloc(ctx, (size_t)s->niovs * sizeof *s->iovs);
	if (!p->slice.ops || !p->slice.iovs) {
		ccp_plan_free(p);
		return ccp__error(ctx, CCP_ENOMEM, "out of memory");
	}
	if (s->nops)
		memcpy(p->slice.ops, s->ops, (size_t)s->nops * sizeof *s->ops);
	if (s->niovs)
		memcpy(p->slice.iovs, s->iovs,
		       (size_t)s->niovs * sizeof *s->iovs);
	p->nranks = fi->nranks;
	p->nphases = fi->nphases;
	p->plan_hash = fi->plan_hash;
	p->coll = fi->coll;
	memcpy(p->algorithm, fi->algorithm, sizeof p->algorithm);
	p->algorithm[sizeof p->algorithm - 1] = '\0';
	ccp__ok(ctx);
	*out = p;
	return 0;
}

int ccp_plan_load_memory(ccp_context *ctx, const void *image, size_t len,
                         int32_t rank, ccp_plan **plan)
{
	if (!ctx || !plan)
		return CCP_EINVAL;
	*plan = NULL;
	if (!image)
		return ccp__error(ctx, CCP_EINVAL, "no plan image");
	ir_slice s;
	ir_file_info fi;
	char err[200];
	int rc = ir_slice_from_image(image, len, rank, &s, &fi, err,
	                             sizeof err);
	if (rc)
		return ccp__error(ctx, rc, "plan image: %s", err);
	rc = ccp__plan_new(ctx, &fi, &s, "plan image", plan);
	ir_slice_fini(&s);
	return rc;
}

/* Read exactly n bytes at off; a short file is a truncated plan. */
static int read_at(ccp_context *ctx, FILE *f, const char *path, uint64_t off,
                   uint8_t *buf, size_t n)
{
	if (fseeko(f, (off_t)off, SEEK_SET) != 0)
		return ccp__error(ctx, CCP_EIO, "%s: %s", path,
		                  strerror(errno));
	size_t got = fread(buf, 1, n, f);
	if (got != n) {
		if (ferror(f))
			return ccp__error(ctx, CCP_EIO, "%s: %s", path,
			                  strerror(errno));
		return ccp__error(ctx, CCP_ETRUNC,
		                  "%s: truncated plan: %zu bytes at %llu, "
		                  "%zu read",
		                  path, n, (unsigned long long)off, got);
	}
	return 0;
}

int ccp_plan_load_file(ccp_context *ctx, const char *path, int32_t rank,
                       ccp_plan **plan)
{
	if (!ctx || !plan)
		return CCP_EINVAL;
	*plan = NULL;
	if (!path)
		return ccp__error(ctx, CCP_EINVAL, "no plan file");
	FILE *f = fopen(path, "rb");
	if (!f)
		return ccp__error(ctx,
		                  errno == ENOENT   ? CCP_ENOTFOUND
		                  : errno == ENOMEM ? CCP_ENOMEM
		                                    : CCP_EIO,
		                  "%s: %s", path, strerror(errno));
	uint8_t head[IR_FILE_HEADER_MIN], entry[IR_FILE_INDEX_ENTRY];
	uint8_t *sec = NULL;
	uint64_t index_off = 0, off = 0, size = 0;
	ir_file_info fi;
	ir_slice s;
	char err[200];
	int rc = read_at(ctx, f, path, 0, head, sizeof head);
	if (rc)
		goto out;
	if ((rc = ir_file_info_read(head, sizeof head, &fi, err, sizeof err)) ||
	    (rc = ir_slice_locate(head, sizeof head, &fi, rank, &index_off,
	                          err, sizeof err))) {
		rc = ccp__error(ctx, rc, "%s: %s", path, err);
		goto out;
	}
	/* The section's size is checked against the size the header states;
	 * that must be the file's, or a few bytes could ask for gigabytes. */
	struct stat sb;
	if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (uint64_t)sb.st_size < fi.file_size) {
		rc = ccp__error(ctx, CCP_ETRUNC,
		                "%s: truncated plan: %llu bytes of the %llu the "
		                "header states",
		                path, (unsigned long long)sb.st_size,
		                (unsigned long long)fi.file_size);
		goto out;
	}
	if ((rc = read_at(ctx, f, path, index_off, entry, sizeof entry)))
		goto out;
	if ((rc = ir_slice_entry(entry, &fi, &off, &size, err, sizeof err))) {
		rc = ccp__error(ctx, rc, "%s: %s", path, err);
		goto out;
	}
	if (size > SIZE_MAX || !(sec = ccp__alloc(ctx, (size_t)size))) {
		rc = ccp__error(ctx, CCP_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	if ((rc = read_at(ctx, f, path, off, sec, (size_t)size)))
		goto out;
	if ((rc = ir_slice_decode(sec, size, &fi, rank, &s, err, sizeof err))) {
		rc = ccp__error(ctx, rc, "%s: %s", path, err);
		goto out;
	}
	rc = ccp__plan_new(ctx, &fi, &s, path, plan);
	ir_slice_fini(&s);
out:
	ccp__free(ctx, sec, (size_t)size);
	fclose(f);
	return rc;
}

void ccp_plan_free(ccp_plan *p)
{
	if (!p)
		return;
	ccp_context *ctx = p->ctx;
	/* the transport's posted requests point into the buffers and the
	 * staging freed below: finish the execution first (its result is
	 * lost, as the handle is) */
	if (p->run.t)
		(void)ccp_plan_wait(p);
	if (p->own_scratch)
		ccp__free(ctx, p->buf[IR_BUF_SCRATCH],
		          (size_t)p->len[IR_BUF_SCRATCH]);
	ccp__free(ctx, p->staging, (size_t)p->staging_len);
	ccp__free(ctx, p->stage_off, (size_t)p->slice.nops * sizeof *p->stage_off);
	ccp__free(ctx, p->post, (size_t)p->slice.nops * sizeof *p->post);
	ccp__free(ctx, p->grp, (size_t)p->slice.nops * sizeof *p->grp);
	ccp__free(ctx, p->posts, (size_t)p->slice.nops * sizeof *p->posts);
	ccp__free(ctx, p->wire, (size_t)p->slice.nops * sizeof *p->wire);
	ccp__free(ctx, p->iov_at, (size_t)p->slice.niovs * sizeof *p->iov_at);
	ccp__free(ctx, p->fold, (size_t)p->slice.niovs * sizeof *p->fold);
	ccp__free(ctx, p->slice.ops, (size_t)p->slice.nops * sizeof *p->slice.ops);
	ccp__free(ctx, p->slice.iovs,
	          (size_t)p->slice.niovs * sizeof *p->slice.iovs);
	ccp__free(ctx, p, sizeof *p);
}

int ccp_plan_get_info(const ccp_plan *p, ccp_plan_info *info)
{
	if (!p || !info)
		return CCP_EINVAL;
	info->rank = p->slice.rank;
	info->nranks = p->nranks;
	info->nphases = p->nphases;
	info->plan_hash = p->plan_hash;
	info->send_bytes = p->slice.send_bytes;
	info->recv_bytes = p->slice.recv_bytes;
	info->scratch_bytes = p->slice.scratch_bytes;
	info->algorithm = p->algorithm;
	info->collective = ir_coll_name(p->coll);
	return 0;
}

/* Check one buffer against what the slice needs. */
static int check_buf(ccp_plan *p, const char *name, const void *ptr,
                     size_t len, uint64_t need)
{
	if (len < need)
		return ccp__error(p->ctx, CCP_EBUFFER,
		                  "rank %d: %s buffer is %zu bytes, the plan "
		                  "needs %llu",
		                  (int)p->slice.rank, name, len,
		                  (unsigned long long)need);
	if (need && !ptr)
		return ccp__error(p->ctx, CCP_EBUFFER,
		                  "rank %d: %s buffer is NULL, the plan needs "
		                  "%llu bytes",
		                  (int)p->slice.rank, name,
		                  (unsigned long long)need);
	return 0;
}

/* Whether the first na bytes at a and the first nb at b share a byte
 * (compared as addresses: they may be any two objects). */
static bool overlap(const void *a, uint64_t na, const void *b, uint64_t nb)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
	if (!na || !nb)
		return false;
	return x <= y ? y - x < na : x - y < nb;
}

/* The buffers' parts the plan uses must not share a byte: the plan was
 * verified for three separate buffers, and a receive landing in the send
 * buffer while it is being sent gives wrong data with success.  Only a
 * caller's scratch counts (the runtime's own cannot overlap). */
static int check_apart(ccp_plan *p, const void *send, const void *recv,
                       const void *scratch)
{
	const ir_slice *s = &p->slice;
	const struct {
		const char *name;
		const void *at;
		uint64_t used;
	} b[3] = {{"send", send, s->send_bytes},
	          {"recv", recv, s->recv_bytes},
	          {"scratch", scratch, scratch ? s->scratch_bytes : 0}};
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (overlap(b[i].at, b[i].used, b[j].at, b[j].used))
				return ccp__error(
				        p->ctx, CCP_EINVAL,
				        "rank %d: the %s and %s buffers "
				        "overlap "
				        "in the bytes the plan uses (%llu of "
				        "%s, %llu of %s); bind separate "
				        "buffers",
				        (int)s->rank, b[i].name, b[j].name,
				        (unsigned long long)b[i].used,
				        b[i].name,
				        (unsigned long long)b[j].used,
				        b[j].name);
	return 0;
}

/* The runtime's own scratch, allocated once, when the application gives
 * none and the plan needs some. */
static int own_scratch(ccp_plan *p)
{
	const ir_slice *s = &p->slice;
	if (p->own_scratch || !s->scratch_bytes)
		return 0;
	void *m = ccp__alloc(p->ctx, (size_t)s->scratch_bytes);
	if (!m)
		return ccp__error(
		        p->ctx, CCP_ENOMEM,
		        "rank %d: no memory for %llu bytes of scratch",
		        (int)s->rank, (unsigned long long)s->scratch_bytes);
	p->buf[IR_BUF_SCRATCH] = m;
	p->len[IR_BUF_SCRATCH] = s->scratch_bytes;
	p->own_scratch = true;
	return 0;
}

/* A bind while an execution is in flight changes nothing. */
static int check_idle(ccp_plan *p)
{
	if (!p->run.t)
		return 0;
	return ccp__error(p->ctx, CCP_EBUSY,
	                  "rank %d: bind while an execution is in flight; "
	                  "finish it with ccp_plan_test or ccp_plan_wait "
	                  "first",
	                  (int)p->slice.rank);
}

/* Whether slice s writes its receive buffer only by prologue copies of
 * the same bytes of its send buffer (offset for offset), and reads it
 * nowhere: its result is then its send buffer, as MPI_Bcast's root's is,
 * and the receive buffer may be left out of a bind (a broadcast root).
 * Decided from the slice's pieces, whatever the collective. */
static bool recv_is_send_copy(const ir_slice *s)
{
	for (uint32_t i = 0; i < s->nops; i++) {
		const ir_op *o = &s->ops[i];
		const ir_iov *v = &s->iovs[o->iov];
		if (o->code == IR_OP_COPY) { /* v[0] to v[1] */
			if (v[0].buf == IR_BUF_RECV ||
			    (v[1].buf == IR_BUF_RECV &&
			     (v[0].buf != IR_BUF_SEND || v[0].off != v[1].off)))
				return false;
			continue;
		}
		for (uint32_t k = 0; k < o->niov; k++)
			if (v[k].buf == IR_BUF_RECV && v[k].len)
				return false;
	}
	return true;
}

int ccp_plan_bind(ccp_plan *p, const void *send, size_t send_len, void *recv,
                  size_t recv_len, void *scratch, size_t scratch_len)
{
	if (!p)
		return CCP_EINVAL;
	ccp_context *ctx = p->ctx;
	const ir_slice *s = &p->slice;
	int rc = check_idle(p);
	if (rc)
		return rc;
	p->wired = false;
	bool no_recv = !recv && !recv_len && s->recv_bytes &&
	               recv_is_send_copy(s);
	rc = check_buf(p, "send", send, send_len, s->send_bytes);
	if (!rc && !no_recv)
		rc = check_buf(p, "recv", recv, recv_len, s->recv_bytes);
	if (!rc && scratch)
		rc = check_buf(p, "scratch", scratch, scratch_len,
		               s->scratch_bytes);
	if (!rc)
		rc = check_apart(p, send, no_recv ? NULL : recv, scratch);
	if (!rc && !scratch)
		rc = own_scratch(p);
	p->bind_status = rc;
	p->bound = rc == 0;
	if (rc)
		return rc;
	if (scratch) {
		if (p->own_scratch)
			ccp__free(ctx, p->buf[IR_BUF_SCRATCH],
			          (size_t)p->len[IR_BUF_SCRATCH]);
		p->own_scratch = false;
		p->buf[IR_BUF_SCRATCH] = scratch;
		p->len[IR_BUF_SCRATCH] = scratch_len;
	}
	/* the plan only reads the send buffer */
	p->buf[IR_BUF_SEND] = (uint8_t *)(uintptr_t)send;
	p->len[IR_BUF_SEND] = send_len;
	p->buf[IR_BUF_RECV] = recv;
	p->len[IR_BUF_RECV] = recv_len;
	p->no_recv = no_recv;
	p->pieces = false;
	ccp__ok(ctx);
	return 0;
}

/* ---- binding by pieces ---------------------------------------------- */

/* One piece of either list, as the checks below see it. */
struct piece_ref {
	uintptr_t at; /* its address */
	size_t len;
	bool recv;    /* a receive piece (written by the plan) */
	size_t index; /* in its list */
};

static int by_address(const void *a, const void *b)
{
	const struct piece_ref *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* One list: no NULL piece with bytes, and lengths adding up to exactly
 * the buffer the plan addresses. */
static int check_list(ccp_plan *p, const char *name, const ccp_piece *v,
                      size_t n, uint64_t need)
{
	if (n && !v)
		return ccp__error(p->ctx, CCP_EINVAL,
		                  "rank %d: %zu %s pieces given as NULL",
		                  (int)p->slice.rank, n, name);
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].len && !v[i].ptr)
			return ccp__error(p->ctx, CCP_EBUFFER,
			                  "rank %d: %s piece %zu is NULL with "
			                  "%zu bytes",
			                  (int)p->slice.rank, name, i,
			                  v[i].len);
		if (v[i].len > UINT64_MAX - sum ||
		    (uintptr_t)v[i].ptr > UINTPTR_MAX - v[i].len)
			return ccp__error(p->ctx, CCP_EINVAL,
			                  "rank %d: %s piece %zu: its length "
			                  "overflows",
			                  (int)p->slice.rank, name, i);
		sum += v[i].len;
	}
	if (sum != need)
		return ccp__error(p->ctx, CCP_EBUFFER,
		                  "rank %d: the %zu %s pieces add up to %llu "
		                  "bytes, the plan's %s buffer is %llu",
		                  (int)p->slice.rank, n, name,
		                  (unsigned long long)sum, name,
		                  (unsigned long long)need);
	return 0;
}

/* No receive piece shares a byte with another piece (send pieces may
 * share bytes with each other: the plan only reads them).  A sweep over
 * the pieces sorted by address, keeping the furthest end of any piece
 * and of any receive piece seen so far; r holds both lists. */
static int check_pieces_apart(ccp_plan *p, struct piece_ref *r, size_t n)
{
	qsort(r, n, sizeof *r, by_address);
	const struct piece_ref *any = NULL, *rcv = NULL; /* furthest ends */
	for (size_t i = 0; i < n; i++) {
		const struct piece_ref *x = &r[i], *hit = NULL;
		if (!x->len)
			continue;
		if (rcv && x->at < rcv->at + rcv->len)
			hit = rcv;
		else if (x->recv && any && x->at < any->at + any->len)
			hit = any;
		if (hit)
			return ccp__error(
			        p->ctx, CCP_EINVAL,
			        "rank %d: %s piece %zu and %s piece %zu "
			        "overlap; a receive piece must share no byte "
			        "with another piece",
			        (int)p->slice.rank, hit->recv ? "recv" : "send",
			        hit->index, x->recv ? "recv" : "send",
			        x->index);
		if (!any || x->at + x->len > any->at + any->len)
			any = x;
		if (x->recv && (!rcv || x->at + x->len > rcv->at + rcv->len))
			rcv = x;
	}
	return 0;
}

/* Where byte range [off, off + len) of the list v (n pieces, starts[k]
 * the offset of piece k) lies, when one piece holds it all; NULL when it
 * crosses a boundary, *cut then being the boundary's offset. */
static uint8_t *piece_at(const ccp_piece *v, const uint64_t *starts, size_t n,
                         uint64_t off, uint64_t len, uint64_t *cut)
{
	size_t lo = 0, hi = n; /* the last piece starting at or before off:
	                          not empty, as off is inside the list */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (starts[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	uint64_t end = starts[lo] + v[lo].len;
	if (off + len > end) {
		*cut = end;
		return NULL;
	}
	return (uint8_t *)v[lo].ptr + (off - starts[lo]);
}

int ccp_plan_bind_pieces(ccp_plan *p, const ccp_piece *send, size_t nsend,
                         const ccp_piece *recv, size_t nrecv)
{
	if (!p)
		return CCP_EINVAL;
	ccp_context *ctx = p->ctx;
	const ir_slice *s = &p->slice;
	struct piece_ref *r = NULL;
	uint64_t *starts = NULL;
	size_t n = nsend + nrecv;
	int rc = check_idle(p);
	if (rc)
		return rc;
	p->wired = false;
	p->no_recv = false;
	if ((rc = check_list(p, "send", send, nsend, s->send_bytes)) ||
	    (rc = check_list(p, "recv", recv, nrecv, s->recv_bytes)))
		goto out;
	if (nrecv > SIZE_MAX - nsend || n > SIZE_MAX / sizeof *r - 1) {
		rc = ccp__error(ctx, CCP_ENOMEM, "out of memory");
		goto out;
	}
	if (!p->iov_at && s->niovs)
		p->iov_at =
		        ccp__alloc(ctx, (size_t)s->niovs * sizeof *p->iov_at);
	r = ccp__alloc(ctx, (n + 1) * sizeof *r);
	starts = ccp__alloc(ctx, (n + 1) * sizeof *starts);
	if ((s->niovs && !p->iov_at) || !r || !starts) {
		rc = ccp__error(ctx, CCP_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const ccp_piece *v = i < nsend ? &send[i] : &recv[i - nsend];
		r[i] = (struct piece_ref){(uintptr_t)v->ptr, v->len, i >= nsend,
		                          i < nsend ? i : i - nsend};
	}
	if ((rc = check_pieces_apart(p, r, n)))
		goto out;
	/* starts: send pieces' offsets in [0, nsend), recv's after */
	uint64_t off = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == nsend)
			off = 0;
		starts[i] = off;
		off += i < nsend ? send[i].len : recv[i - nsend].len;
	}
	if ((rc = own_scratch(p)))
		goto out;
	for (uint32_t k = 0; k < s->niovs; k++) {
		const ir_iov *v = &s->iovs[k];
		uint64_t cut = 0;
		if (!v->len || v->buf == IR_BUF_SCRATCH) {
			p->iov_at[k] =
			        v->len ? p->buf[IR_BUF_SCRATCH] + v->off : NULL;
			continue;
		}
		bool snd = v->buf == IR_BUF_SEND;
		p->iov_at[k] = piece_at(
		        snd ? send : recv, snd ? starts : starts + nsend,
		        snd ? nsend : nrecv, v->off, v->len, &cut);
		if (!p->iov_at[k]) {
			rc = ccp__error(ctx, CCP_EBUFFER,
			                "rank %d: the plan moves %s bytes "
			                "[%llu, %llu) in one piece, and a %s "
			                "piece ends at byte %llu; split the "
			                "pieces where the plan's messages do",
			                (int)s->rank, snd ? "send" : "recv",
			                (unsigned long long)v->off,
			                (unsigned long long)(v->off + v->len),
			                snd ? "send" : "recv",
			                (unsigned long long)cut);
			goto out;
		}
	}
out:
	ccp__free(ctx, r, (n + 1) * sizeof *r);
	ccp__free(ctx, starts, (n + 1) * sizeof *starts);
	p->bind_status = rc;
	p->bound = rc == 0;
	p->pieces = rc == 0;
	if (rc == 0)
		ccp__ok(ctx);
	return rc;
}
