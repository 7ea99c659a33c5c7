/*
 * load_emitted.c - one rank's slice from a plan compiled into the
 * application as C tables (`ccplan compile --emit c`, ccplan_emitted.h).
 *
 * The tables came from a .ccp image, but they are linked in and may have
 * been edited, mixed up with another header, or damaged: the loader
 * trusts nothing.  It checks the ABI and the plan's own fields, turns the
 * rank's rows into an ir_slice (range-checking every value before it is
 * narrowed), and builds the plan handle with the constructor the file
 * loaders use (ccp__plan_new), which applies the codec's slice rules
 * (ir_slice_check: every rule the engine relies on, the same a rank
 * section of a file passes), so the three loaders check the same and give
 * the same handle for the same plan.
 */
#include <string.h>

#include "ccplan_emitted.h"
#include "codec.h"
#include "internal.h"

/* The header's op codes and buffers are the IR's, by number. */
_Static_assert(IR_OP_PHASE == 0 && IR_OP_RECV == 1 && IR_OP_RECV_REDUCE == 2 &&
                       IR_OP_SEND == 3 && IR_OP_COPY == 4 &&
                       IR_OP_WAIT == 5 && IR_NOPS == 6,
               "ccplan_emitted.h documents op codes 0-5");
_Static_assert(IR_BUF_SEND == 0 && IR_BUF_RECV == 1 && IR_BUF_SCRATCH == 2,
               "ccplan_emitted.h documents buffers 0-2");

/* Whether n items of size bytes can be allocated at all (a 32-bit
 * size_t cannot hold every u32 count of ops). */
static bool fits(uint64_t n, size_t size)
{
	return n <= SIZE_MAX / size;
}

/* The plan's own fields: ABI, ranks, collective and names. */
static int check_plan(ccp_context *ctx, const struct ccp_emitted_plan *p)
{
	if (p->abi != CCP_EMITTED_ABI)
		return ccp__error(ctx, CCP_EVERSION,
		                  "emitted plan: ABI %lu, this runtime reads "
		                  "ABI %lu; emit the plan again",
		                  (unsigned long)p->abi,
		                  (unsigned long)CCP_EMITTED_ABI);
	if (p->nranks < 1 || p->nranks > IR_MAX_RANKS)
		return ccp__error(ctx, CCP_EFORMAT,
		                  "emitted plan: %ld ranks (1 to %d allowed)",
		                  (long)p->nranks, IR_MAX_RANKS);
	if (p->coll > IR_IRREGULAR)
		return ccp__error(ctx, CCP_EFORMAT,
		                  "emitted plan: collective %lu is not a "
		                  "known kind",
		                  (unsigned long)p->coll);
	if (!p->algorithm || strnlen(p->algorithm, IR_NAME_MAX) >= IR_NAME_MAX)
		return ccp__error(ctx, CCP_EFORMAT,
		                  "emitted plan: no algorithm name, or one of "
		                  "%d characters or more",
		                  IR_NAME_MAX);
	const char *coll = ir_coll_name((enum ir_coll)p->coll);
	if (!p->collective || strcmp(p->collective, coll) != 0)
		return ccp__error(ctx, CCP_EFORMAT,
		                  "emitted plan: collective %lu is %s, the "
		                  "plan names %s",
		                  (unsigned long)p->coll, coll,
		                  p->collective ? "another" : "none");
	if (!p->ranks)
		return ccp__error(ctx, CCP_EFORMAT,
		                  "emitted plan: no rank table");
	return 0;
}

/* The rank's rows into s, whose arrays hold nops and niovs entries:
 * codes and buffers are checked before they are narrowed to the IR's
 * one-byte fields; everything else is left to ccp__plan_new. */
static int rank_rows(ccp_context *ctx, const struct ccp_emitted_rank *er,
                     int32_t rank, ir_slice *s)
{
	for (uint32_t i = 0; i < er->nops; i++) {
		const struct ccp_emitted_op *e = &er->ops[i];
		if (e->code >= IR_NOPS)
			return ccp__error(ctx, CCP_EFORMAT,
			                  "emitted plan: rank %ld op %lu has "
			                  "code %lu",
			                  (long)rank, (unsigned long)i,
			                  (unsigned long)e->code);
		s->ops[i] = (ir_op){
		        .code = (uint8_t)e->code,
		        .phase = e->phase,
		        .peer = e->peer,
		        .bytes = e->bytes,
		        .iov = e->iov,
		        .niov = e->niov,
		};
	}
	for (uint32_t i = 0; i < er->niovs; i++) {
		const struct ccp_emitted_iov *e = &er->iovs[i];
		if (e->buf > IR_BUF_SCRATCH)
			return ccp__error(ctx, CCP_EFORMAT,
			                  "emitted plan: rank %ld iov %lu "
			                  "names buffer %lu",
			                  (long)rank, (unsigned long)i,
			                  (unsigned long)e->buf);
		s->iovs[i] = (ir_iov){
		        .buf = (uint8_t)e->buf, .off = e->off, .len = e->len};
	}
	return 0;
}

int ccp_plan_load_emitted(ccp_context *ctx, const struct ccp_emitted_plan *p,
                          int32_t rank, ccp_plan **plan)
{
	if (!ctx || !plan)
		return CCP_EINVAL;
	*plan = NULL;
	if (!p)
		return ccp__error(ctx, CCP_EINVAL, "no emitted plan");
	int rc = check_plan(ctx, p);
	if (rc)
		return rc;
	if (rank < 0 || rank >= p->nranks)
		return ccp__error(ctx, CCP_ERANGE,
		                  "rank %ld is not one of the plan's %ld ranks",
		                  (long)rank, (long)p->nranks);
	const struct ccp_emitted_rank *er = &p->ranks[rank];
	if (er->dtype > IR_DT_DOUBLE && er->dtype != IR_DT_UNKNOWN)
		return ccp__error(ctx, CCP_EFORMAT,
		                  "emitted plan: rank %ld has element type %lu",
		                  (long)rank, (unsigned long)er->dtype);
	if (er->redop > IR_OP_MAX)
		return ccp__error(ctx, CCP_EFORMAT,
		                  "emitted plan: rank %ld has reduction %lu",
		                  (long)rank, (unsigned long)er->redop);
	if ((er->nops && !er->ops) || (er->niovs && !er->iovs))
		return ccp__error(ctx, CCP_EFORMAT,
		                  "emitted plan: rank %ld has no op or iov "
		                  "table",
		                  (long)rank);
	if (!fits(er->nops, sizeof(ir_op)) || !fits(er->niovs, sizeof(ir_iov)))
		return ccp__error(ctx, CCP_ENOMEM, "out of memory");

	size_t opsz = (size_t)er->nops * sizeof(ir_op);
	size_t iovsz = (size_t)er->niovs * sizeof(ir_iov);
	ir_slice s = {
	        .rank = rank,
	        .send_bytes = er->send_bytes,
	        .recv_bytes = er->recv_bytes,
	        .scratch_bytes = er->scratch_bytes,
	        .dtype = (uint8_t)er->dtype,
	        .redop = (uint8_t)er->redop,
	        .ops = ccp__alloc(ctx, opsz),
	        .nops = er->nops,
	        .iovs = ccp__alloc(ctx, iovsz),
	        .niovs = er->niovs,
	};
	if (!s.ops || !s.iovs) {
		rc = ccp__error(ctx, CCP_ENOMEM, "out of memory");
		goto out_free;
	}
	if ((rc = rank_rows(ctx, er, rank, &s)) != 0)
		goto out_free;

	/* the header a .ccp file of this plan has, as far as a loaded
	 * plan keeps it */
	ir_file_info fi;
	memset(&fi, 0, sizeof fi);
	fi.version = (uint16_t)(p->format <= UINT16_MAX ? p->format : 0);
	fi.nranks = p->nranks;
	fi.nphases = p->nphases;
	fi.lb_phases = p->lb_phases;
	fi.coll = (enum ir_coll)p->coll;
	memcpy(fi.algorithm, p->algorithm, strlen(p->algorithm) + 1);
	memcpy(fi.input_hash, p->input_hash, sizeof fi.input_hash);
	fi.plan_hash = p->plan_hash;
	rc = ccp__plan_new(ctx, &fi, &s, "emitted plan", plan);
out_free:
	ccp__free(ctx, s.ops, opsz);
	ccp__free(ctx, s.iovs, iovsz);
	return rc;
}
