/*
 * ccplan_emitted.h - a plan compiled into the application as C tables
 * (`ccplan compile IN.yaml --emit c -o plan_NAME.c`), and the two loaders
 * that need no .ccp file: from such tables, and from the plan cache.
 *
 * An emitted file holds one rank record per rank, one op table and one
 * iov table for all ranks (each rank points at its part), and one
 * exported symbol, `const struct ccp_emitted_plan NAME`.  Its tables are
 * decoded from the same .ccp image `ccplan compile` writes, so a rank
 * loading the emitted plan and a rank loading the .ccp file get the same
 * operations and the same plan hash, and agree at execution time.
 * docs/emit-c.md shows a file and how to link it.
 *
 * The layout below is an ABI between the emitter and the runtime: any
 * change to it bumps CCP_EMITTED_ABI, and ccp_plan_load_emitted refuses
 * a plan emitted for another ABI (CCP_EVERSION).  The loader trusts
 * nothing in the tables: it checks them as the binary loader checks a
 * rank section, with every rule the engine relies on.
 */
#ifndef CCPLAN_EMITTED_H
#define CCPLAN_EMITTED_H

#include <stddef.h> /* NULL, in the emitted rank records */
#include <stdint.h>

#include "ccplan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the structures below. */
#define CCP_EMITTED_ABI 1u

/* One runtime operation (an ir_op of ir/ir.h).  Codes, as in
 * docs/plan-format.md: 0 PHASE, 1 RECV, 2 RECV_REDUCE, 3 SEND, 4 COPY,
 * 5 WAIT. */
struct ccp_emitted_op {
	uint32_t code;  /* operation code */
	uint32_t phase; /* phase the op belongs to (the tag on the wire) */
	int32_t peer;   /* other rank, or -1 */
	uint32_t iov;   /* first iov of the op, in the rank's iovs */
	uint32_t niov;  /* number of iovs */
	uint64_t bytes; /* bytes moved by the op */
};

/* One contiguous piece of one of the rank's buffers (an ir_iov). */
struct ccp_emitted_iov {
	uint32_t buf; /* 0 send, 1 receive, 2 scratch */
	uint64_t off; /* byte offset in that buffer */
	uint64_t len; /* bytes */
};

/* One rank's slice: what ccp_plan_load_emitted loads for that rank. */
struct ccp_emitted_rank {
	uint64_t send_bytes;    /* send buffer to bind, at least */
	uint64_t recv_bytes;    /* receive buffer to bind, at least */
	uint64_t scratch_bytes; /* scratch the plan needs on this rank */
	uint32_t dtype;         /* RECV_REDUCE element type (enum ir_dtype) */
	uint32_t redop;         /* RECV_REDUCE operation (enum ir_redop) */
	uint32_t nops;          /* operations of the rank */
	uint32_t niovs;         /* iovs of the rank */
	const struct ccp_emitted_op *ops;   /* nops entries (NULL if none) */
	const struct ccp_emitted_iov *iovs; /* niovs entries (NULL if none) */
};

/* The exported symbol of an emitted file. */
struct ccp_emitted_plan {
	uint32_t abi;            /* CCP_EMITTED_ABI the file was emitted for */
	uint32_t format;         /* .ccp format version of the source image */
	int32_t nranks;          /* ranks the plan was compiled for */
	uint32_t nphases;        /* phases of the whole plan */
	uint32_t lb_phases;      /* the verifier's lower bound on phases */
	uint32_t coll;           /* collective (enum ir_coll) */
	uint64_t plan_hash;      /* the .ccp image's plan hash (XXH3_64) */
	uint8_t input_hash[16];  /* the input's key (XXH3-128), as cached */
	const char *algorithm;   /* generator name */
	const char *collective;  /* "broadcast", "scatter", ... */
	const struct ccp_emitted_rank *ranks; /* nranks entries */
};

/* Load rank's slice of an emitted plan.  The tables are checked as a
 * rank section of a .ccp file is (ABI, names, then every rule a loader
 * checks, docs/plan-format.md) and copied: p need not outlive the
 * plan.  CCP_EVERSION for another ABI, CCP_ERANGE for a rank
 * outside the plan, CCP_EFORMAT for tables that do not check. */
CCP_EXTERN int ccp_plan_load_emitted(ccp_context *ctx,
                                     const struct ccp_emitted_plan *p,
                                     int32_t rank, ccp_plan **plan);

/* ccp_plan_load_cache, the other loader that needs no .ccp file, is in
 * ccplan.h. */

#ifdef __cplusplus
}
#endif

#endif
