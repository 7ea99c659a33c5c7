/*
 * internal.h - what the runtime's own files share: the context and the
 * plan handle.  Backends see only transport.h.
 */
#ifndef CCP_RUNTIME_INTERNAL_H
#define CCP_RUNTIME_INTERNAL_H

#include <stdbool.h>

#include "ir.h"
#include "transport.h"

struct ccp_lookup;
#define CCP_CONTEXT_HAS_LOOKUP 1

struct ccp_context {
	ccp_alloc_fn alloc;
	void *ud;
	char msg[256];             /* last error, "" after success */
	struct ccp_lookup *lookup; /* plan sets registered (lookup.c), NULL
	                              if none */
	/* what frees them, set with them: lookup.c is in the cache loader's
	 * library (ccp_runtime_cache), which ccp_fini must not need */
	void (*lookup_fini)(ccp_context *ctx);
};

struct ccp_plan {
	ccp_context *ctx;
	ir_slice slice;      /* ops and iovs in the context's allocator */
	int32_t nranks;
	uint32_t nphases;
	uint64_t plan_hash;
	enum ir_coll coll;
	char algorithm[IR_NAME_MAX];
	/* bound buffers, indexed by enum ir_buf */
	uint8_t *buf[3];
	uint64_t len[3];
	int bind_status;     /* 0, or why the last bind failed */
	bool bound;
	bool own_scratch;    /* scratch allocated by the runtime */
	/* execution state, sized on the first execution */
	bool prepared;
	uint8_t *staging;    /* packed multi-iov messages of one phase */
	uint64_t staging_len;
	uint64_t *stage_off; /* per op: its offset in staging, or UINT64_MAX */
	uint32_t *post;      /* ops to finish after their group's WAIT,
	                        each group's together (rt_group.fin) */
	uint64_t max_msg;    /* the largest message of the slice */
	uint32_t max_msg_op; /* and the op that moves it */
	uint32_t *fold;      /* per iov: prologue copies folded away
	                        (engine.c, fold_copy), or NULL */
	/* per PHASE op: its group (engine.c, prepare) */
	struct rt_group {
		uint32_t end;   /* its WAIT */
		uint32_t fin;   /* its first entry of post[] */
		uint32_t nfin;  /* and their count */
		uint32_t first; /* its first entry of posts[]: the receives */
		uint32_t nrecv; /* then the sends */
		uint32_t nsend;
		bool pack;      /* a send packs its pieces into staging */
	} *grp;
	/* every group's messages for the current binding (wire_up), for a
	 * transport with prepared groups (transport.h: prepare, start) */
	struct ccp_post *posts;
	/* the transport that last accepted posts[] (its handle, table and
	 * size, on which its checks depend), or NULL: every bind clears it */
	const ccp_transport *prep_t;
	const struct ccp_transport_ops *prep_ops;
	int32_t prep_size;
	uint8_t **wire;      /* per op: where its message lies (engine.c,
	                        msg_buf) in the bound buffers */
	bool wired;          /* wire[] is for the current binding; every
	                        bind clears it */
	bool no_recv;        /* bound without the receive buffer, which the
	                        plan only fills by prologue copies of the
	                        send buffer (a broadcast root): those copies
	                        are skipped (ccp_plan_bind) */
	uint8_t ready[2];    /* S1 tokens (zero bytes; a valid address) */
	/* bound by pieces (ccp_plan_bind_pieces): each iov's address, the
	 * table sized on the first such bind; NULL or unused otherwise */
	uint8_t **iov_at;
	bool pieces; /* iov_at holds the binding */
	/* the execution in flight (engine.c) */
	struct rt_run {
		ccp_transport *t; /* NULL: none */
		unsigned flags;   /* CCP_EXEC_* of its start */
		int stage;        /* where the next step resumes */
		uint32_t op;      /* next op, or the group's PHASE */
		uint32_t end;     /* the group's WAIT */
		uint32_t barrier; /* next phase barrier to enter */
		int nreq;         /* requests posted in the group */
		int tok_first;    /* S1: the ready tokens' requests */
		int tok_count;
		int err;          /* for the next test or wait: t was freed */
		bool fast;        /* groups go out whole (prepared, S2) */
	} run;
};

/* End the execution in flight on t, if any, because t is being freed
 * (context.c): the plan reports it at its next test or wait. */
void ccp__run_abandon(ccp_transport *t);

/* dst = x OP y over bytes / size(dt) elements of type dt (enum ir_dtype)
 * and operation op (enum ir_redop), each element on its own, byte for
 * byte what the scalar expression gives: the engine's combine step.  x
 * may be dst (combine in place); otherwise dst overlaps neither x nor y,
 * and y never overlaps dst.  Any alignment. */
void ccp__combine(unsigned dt, unsigned op, uint8_t *dst, const uint8_t *x,
                  const uint8_t *y, uint64_t bytes);

/* A plan handle holding a copy of slice s (still owned by the caller),
 * in ctx's allocator, once the slice has passed every rule of the codec's
 * slice check (ir_slice_check) and the runtime's own; fi gives the plan's
 * header, what names the source in an error message.  Every loader builds
 * its handle here. */
struct ir_file_info;
int ccp__plan_new(ccp_context *ctx, const struct ir_file_info *fi,
                  const ir_slice *s, const char *what, ccp_plan **out);

#endif
