/*
 * test_bad_plans.c - the bad plans of the catalogue (tests/bad/NAME.ccp,
 * each with its golden NAME.err: the first line the commands print, then
 * "exit: N").
 *
 * Each bad plan is made here from one good plan (a 4-rank binomial
 * broadcast: 0 -> 2, then 0 -> 1 and 2 -> 3; for the rules of
 * reductions, of phases with several operations and of the findings
 * below, a binomial reduction, a pairwise alltoall and a 16-byte
 * broadcast) by one recipe: cut, a byte changed, or fields changed and
 * the checksums over them made to match again ("resealed"), so that the
 * check behind the checksums is the one that must find it.  The rank
 * sections edited that way each break exactly one of the rules a loader
 * checks (docs/plan-format.md, "What a loader checks"): the attacker's
 * case, a plan whose checksums are right and whose operations are not.
 * The tests:
 *   - every recipe gives byte for byte the file in tests/bad (run with
 *     CCPLAN_WRITE_BAD_PLANS=1 to write them again after a format change,
 *     and a golden for a new one, to be read and checked by hand);
 *   - every tests/bad/NAME.ccp is refused by plan_load (what verify, explain
 *     and simulate use) with its golden message and exit status;
 *   - the runtime's one-rank loader refuses every rank's slice of a
 *     plan whose header or body checksum is bad, and exactly the
 *     damaged rank's slice when one rank section is bad;
 *   - the runtime's loaders (ccp_plan_load_file, ccp_plan_load_memory)
 *     refuse the rank whose section breaks a rule, with the same reason,
 *     and load the other ranks;
 *   - the three plans of the security findings (a RECV of more bytes than
 *     its pieces, a COPY whose source is longer than its destination, a
 *     SEND of bytes with no piece), executed by every rank on the
 *     loopback transport with guard zones around every buffer: the bad
 *     rank is refused at load, every other rank gets an error from
 *     ccp_plan_execute, and no byte inside or outside a buffer changes.
 * Run from tests/ (CTest does).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "ccplan.h"
#include "ccplan_emitted.h"
#include "codec.h"
#include "compile.h"
#include "front.h"
#include "le.h"
#include "support.h"
#include "support/guard.h"
#include "support/loopback.h"

/* ---- the good plans and where their fields are ------------------------ */

/* The plans the recipes start from. */
enum base { BCAST, REDUCE, ALLTOALL, BCAST16, NBASES };

static const char *const base_yaml[NBASES] = {
        [BCAST] = "machine: {topology: switch, ranks: 4}\n"
                  "communication: {collective: broadcast, root: 0, bytes: 64}\n"
                  "algorithm: binomial\n",
        /* rank 0: COPY, then in phases 0 and 1 a RECV_REDUCE of 64 bytes
         * into scratch, combined into the running partial in RECV */
        [REDUCE] = "machine: {topology: switch, ranks: 4}\n"
                   "communication: {collective: reduce, root: 0, bytes: 64,"
                   " dtype: int32, op: sum}\n"
                   "algorithm: binomial\n",
        /* rank 0 in phase 0: RECV from 1 into recv[8+8], SEND to 1 from
         * send[8+8] */
        [ALLTOALL] = "machine: {topology: switch, ranks: 4, ports: all}\n"
                     "communication: {collective: alltoall, bytes: 8}\n"
                     "algorithm: pex\n",
        /* BCAST with 16-byte buffers, as the findings had them */
        [BCAST16] = "machine: {topology: switch, ranks: 4}\n"
                    "communication: {collective: broadcast, root: 0, bytes: "
                    "16}\n"
                    "algorithm: binomial\n",
};

/* The .ccp image of base plan b (malloc'd). */
static uint8_t *base_plan(enum base b, size_t *len)
{
	struct front_input in;
	struct compiled c;
	struct diag d;
	uint8_t *img = NULL;
	char err[256];
	const char *yaml = base_yaml[b];

	memset(&d, 0, sizeof d);
	assert_int_equal(
	        front_parse_string("base.yaml", yaml, strlen(yaml), &in, &d),
	        0);
	assert_int_equal(compile_input(&in, &c, &d), 0);
	assert_int_equal(compile_encode(&c, &img, len, err, sizeof err), 0);
	compiled_fini(&c);
	front_input_fini(&in);
	return img;
}

/* Offsets (docs/plan-format.md) */
#define H_VERSION    8
#define H_MIN_READ   10
#define H_BYTE_ORDER 12
#define H_COLL       17
#define H_HDR_SIZE   18
#define H_FLAGS      20
#define H_NRANKS     24
#define H_NPHASES    28
#define H_LB         32
#define H_GSIZE      40
#define H_INDEX      48
#define H_FILE_SIZE  56
#define H_ALGORITHM  64
#define H_PLAN_HASH  112
#define H_CHECKSUM   120
#define HDR          128
#define G_NRANKS     44
#define G_ROOT       196
#define G_NPHASES    276
#define G_ARRAYS     288
#define XF_SIZE      28
#define OP_SIZE      28
#define IOV_SIZE     20
#define SEC_OPS      36

/* Where transfer t (src at +0, dst at +4) starts: the base plan has no
 * matrix, so the phases come first, then the transfers. */
static size_t transfer_at(const uint8_t *img, uint32_t t)
{
	uint32_t nphases = le_get_u32(img + H_NPHASES);
	return HDR + G_ARRAYS + (size_t)nphases * 8 + (size_t)t * XF_SIZE;
}

/* Where rank r's section starts, and its size. */
static size_t section_at(const uint8_t *img, int32_t r, size_t *size)
{
	size_t e = (size_t)le_get_u64(img + H_INDEX) + 24 * (size_t)r;
	if (size)
		*size = (size_t)le_get_u64(img + e + 8);
	return (size_t)le_get_u64(img + e);
}

/* Where operation i of rank r (code +0, phase +4, peer +8, bytes +12)
 * and iov j of rank r (buffer +0, offset +4, length +12) start. */
static size_t op_at(const uint8_t *img, int32_t r, uint32_t i)
{
	return section_at(img, r, NULL) + SEC_OPS + (size_t)i * OP_SIZE;
}
static size_t iov_at(const uint8_t *img, int32_t r, uint32_t j)
{
	size_t s = section_at(img, r, NULL);
	uint32_t nops = le_get_u32(img + s + 4);
	return s + SEC_OPS + (size_t)nops * OP_SIZE + (size_t)j * IOV_SIZE;
}

/* Make the checksums over the changed bytes match again: rank r's
 * section (its last 8 bytes and its index entry's copy), then the plan
 * hash, then the header checksum. */
static void seal_section(uint8_t *img, int32_t r)
{
	size_t size, s = section_at(img, r, &size);
	uint64_t sum = XXH3_64bits(img + s, size - 8);
	le_set_u64(img + s + size - 8, sum);
	le_set_u64(img + le_get_u64(img + H_INDEX) + 24 * (size_t)r + 16, sum);
}
static void seal_body(uint8_t *img, size_t len)
{
	le_set_u64(img + H_PLAN_HASH, XXH3_64bits(img + HDR, len - HDR));
}
static void seal_header(uint8_t *img)
{
	le_set_u64(img + H_CHECKSUM, XXH3_64bits(img, H_CHECKSUM));
}

/* ---- the recipes -------------------------------------------------------- */

enum seal { NONE, HEADER, BODY, SECTION };

/* One bad plan: what it is, and how it is made from the good one. */
struct recipe {
	const char *name; /* tests/bad/NAME.ccp */
	/* change img (len bytes; may realloc it or change *len) */
	void (*make)(uint8_t **img, size_t *len, const struct recipe *r);
	size_t at;       /* make_*: the offset, or what locate() picks */
	int width;       /* make_set: bytes of the field (1, 2, 4, 8) */
	uint64_t value;  /* make_set: the value; make_cut: the bytes kept */
	enum seal seal;  /* the checksums made to match afterwards */
	int32_t rank;    /* SECTION: the rank whose section changed */
	/* the field's offset in the image, when it is not fixed */
	size_t (*locate)(const uint8_t *img);
	enum base base;           /* the plan it starts from */
	const struct edit *edits; /* make_edits: the fields changed */
	int32_t bad;              /* make_edits: the rank a loader refuses */
};

/* Fields of a rank section (docs/plan-format.md, "Rank section"). */
enum field {
	END,        /* ends a list */
	OP_CODE,    /* op index's fields */
	OP_PHASE,
	OP_PEER,
	OP_BYTES,
	OP_IOV,
	OP_NIOV,
	IOV_BUF,    /* iov index's fields */
	IOV_OFF,
	IOV_LEN,
	SEND_BYTES, /* the section's buffer sizes */
	RECV_BYTES,
	DTYPE,      /* its tail: element type and reduction */
	REDOP,
	SWAP_OPS    /* ops index and value exchange places */
};

/* One field of rank's section set to value. */
struct edit {
	enum field field;
	int32_t rank;
	uint32_t index;
	uint64_t value;
};

/* Where field f of edit e is in img, and its width. */
static size_t field_at(const uint8_t *img, const struct edit *e, int *width)
{
	static const int op_off[] = {
	        [OP_CODE] = 0,   [OP_PHASE] = 4, [OP_PEER] = 8,
	        [OP_BYTES] = 12, [OP_IOV] = 20,  [OP_NIOV] = 24};
	size_t sec = section_at(img, e->rank, NULL);
	uint32_t nops = le_get_u32(img + sec + 4);
	uint32_t niovs = le_get_u32(img + sec + 8);
	*width = 8;
	switch (e->field) {
	case OP_CODE:
	case OP_PHASE:
	case OP_PEER:
	case OP_IOV:
	case OP_NIOV:
		*width = 4;
		/* fall through */
	case OP_BYTES:
		return op_at(img, e->rank, e->index) + (size_t)op_off[e->field];
	case IOV_BUF:
		*width = 4;
		return iov_at(img, e->rank, e->index);
	case IOV_OFF:
		return iov_at(img, e->rank, e->index) + 4;
	case IOV_LEN:
		return iov_at(img, e->rank, e->index) + 12;
	case SEND_BYTES:
		return sec + 12;
	case RECV_BYTES:
		return sec + 20;
	case DTYPE:
	case REDOP:
		*width = 4;
		return sec + SEC_OPS + (size_t)nops * OP_SIZE +
		       (size_t)niovs * IOV_SIZE + (e->field == REDOP ? 4 : 0);
	default:
		fail_msg("no such field");
	}
	return 0;
}

/* Apply the recipe's edits (SWAP_OPS exchanges ops index and value of
 * the rank), then reseal every section edited, the body and the header. */
static void make_edits(uint8_t **img, size_t *len, const struct recipe *r)
{
	bool edited[4] = {false};
	for (const struct edit *e = r->edits; e->field != END; e++) {
		edited[e->rank] = true;
		if (e->field == SWAP_OPS) {
			uint8_t tmp[OP_SIZE];
			uint8_t *a = *img + op_at(*img, e->rank, e->index);
			uint8_t *b =
			        *img + op_at(*img, e->rank, (uint32_t)e->value);
			memcpy(tmp, a, OP_SIZE);
			memcpy(a, b, OP_SIZE);
			memcpy(b, tmp, OP_SIZE);
			continue;
		}
		int width;
		size_t at = field_at(*img, e, &width);
		assert_true(at + (size_t)width <= *len);
		if (width == 4)
			le_set_u32(*img + at, (uint32_t)e->value);
		else
			le_set_u64(*img + at, e->value);
	}
	for (int32_t k = 0; k < 4; k++)
		if (edited[k])
			seal_section(*img, k);
	seal_body(*img, *len);
	seal_header(*img);
}

static void reseal(uint8_t *img, size_t len, const struct recipe *r)
{
	if (r->seal >= SECTION)
		seal_section(img, r->rank);
	if (r->seal >= BODY)
		seal_body(img, len);
	if (r->seal >= HEADER)
		seal_header(img);
}

/* Set a little-endian field. */
static void make_set(uint8_t **img, size_t *len, const struct recipe *r)
{
	size_t at = r->locate ? r->locate(*img) : r->at;
	assert_true(at + (size_t)r->width <= *len);
	switch (r->width) {
	case 1:
		(*img)[at] = (uint8_t)r->value;
		break;
	case 2:
		le_set_u16(*img + at, (uint16_t)r->value);
		break;
	case 4:
		le_set_u32(*img + at, (uint32_t)r->value);
		break;
	default:
		le_set_u64(*img + at, r->value);
	}
	reseal(*img, *len, r);
}

/* Keep the first value bytes. */
static void make_cut(uint8_t **img, size_t *len, const struct recipe *r)
{
	(void)img;
	assert_true(r->value <= *len);
	*len = (size_t)r->value;
}

/* Keep all but the last value bytes. */
static void make_cut_end(uint8_t **img, size_t *len, const struct recipe *r)
{
	(void)img;
	assert_true(r->value <= *len);
	*len -= (size_t)r->value;
}

/* Append value bytes of 0x5a. */
static void make_append(uint8_t **img, size_t *len, const struct recipe *r)
{
	uint8_t *p = realloc(*img, *len + (size_t)r->value);
	assert_non_null(p);
	memset(p + *len, 0x5a, (size_t)r->value);
	*img = p;
	*len += (size_t)r->value;
}

/* xor 0x5a into one byte. */
static void make_flip(uint8_t **img, size_t *len, const struct recipe *r)
{
	size_t at = r->locate ? r->locate(*img) : r->at;
	assert_true(at < *len);
	(*img)[at] ^= 0x5a;
	reseal(*img, *len, r);
}

/* Replace the whole file with text (a YAML input given as a plan). */
static void make_yaml(uint8_t **img, size_t *len, const struct recipe *r)
{
	(void)r;
	free(*img);
	*img = (uint8_t *)strdup(base_yaml[BCAST]);
	assert_non_null(*img);
	*len = strlen(base_yaml[BCAST]);
}

/* The algorithm name with no terminating NUL (32 letters). */
static void make_name(uint8_t **img, size_t *len, const struct recipe *r)
{
	memset(*img + H_ALGORITHM, 'x', IR_NAME_MAX);
	reseal(*img, *len, r);
}

static size_t last_xf_src(const uint8_t *img) { return transfer_at(img, 2); }
static size_t last_xf_dst(const uint8_t *img)
{
	return transfer_at(img, 2) + 4;
}
static size_t mid_xf_dst(const uint8_t *img)
{
	return transfer_at(img, 1) + 4;
}
static size_t xf_bytes(const uint8_t *img) { return transfer_at(img, 0) + 8; }
/* rank 0's fourth op is SEND in phase 1 to rank 1 (explain --rank 0:
 * COPY, PHASE, SEND 2, WAIT, PHASE, SEND 1, WAIT) */
static size_t r0_send_peer(const uint8_t *img) { return op_at(img, 0, 5) + 8; }
static size_t r0_send_phase(const uint8_t *img)
{
	return op_at(img, 0, 5) + 4;
}
static size_t r0_send_code(const uint8_t *img) { return op_at(img, 0, 5); }
static size_t r0_iov_len(const uint8_t *img) { return iov_at(img, 0, 0) + 12; }
static size_t r0_iov_buf(const uint8_t *img) { return iov_at(img, 0, 0); }
static size_t r1_rank(const uint8_t *img) { return section_at(img, 1, NULL); }
static size_t r3_section(const uint8_t *img)
{
	return section_at(img, 3, NULL) + 4;
}
static size_t r3_index(const uint8_t *img)
{
	return (size_t)le_get_u64(img + H_INDEX) + 24 * 3;
}
static size_t body_mid(const uint8_t *img) { return transfer_at(img, 0); }

/* Designated initializers, one recipe a line: */
#define CUT(n, bytes)           {.name = n, .make = make_cut, .value = bytes}
#define CUT_END(n, bytes)       {.name = n, .make = make_cut_end, .value = bytes}
#define APPEND(n, bytes)        {.name = n, .make = make_append, .value = bytes}
#define FLIP(n, off, s)         {.name = n, .make = make_flip, .at = off, .seal = s}
#define FLIP_AT(n, loc, s)      {.name = n, .make = make_flip, .locate = loc, .seal = s}
#define SET(n, off, w, v, s)    {.name = n, .make = make_set, .at = off, .width = w, .value = v, .seal = s}
#define SET_AT(n, loc, w, v, s) {.name = n, .make = make_set, .locate = loc, .width = w, .value = v, .seal = s}
#define SET_SEC(n, r, loc, w, v)                                               \
	{.name = n, .make = make_set, .locate = loc, .width = w, .value = v,   \
	 .seal = SECTION, .rank = r}
/* fields of rank sections of base b set (E: field, rank, index, value),
 * which rank bad's loader must refuse */
#define EDITS(n, b, bad_rank, ...)                                             \
	{                                                                      \
		.name = n, .make = make_edits, .base = b, .bad = bad_rank,     \
		.edits = (const struct edit[])                                 \
		{                                                              \
			__VA_ARGS__,                                           \
			{                                                      \
				END, 0, 0, 0                                   \
			}                                                      \
		}                                                              \
	}
#define E(f, r, i, v)                                                          \
	{                                                                      \
		f, r, i, v                                                     \
	}

static const struct recipe recipes[] = {
        /* the file as a whole */
        CUT("plan_empty", 0),
        {.name = "plan_yaml", .make = make_yaml},
        FLIP("plan_wrong_magic", 1, NONE),
        CUT("plan_magic_only", 8),
        CUT("plan_truncated_header", 100),
        CUT_END("plan_truncated_section", 20),
        APPEND("plan_trailing_bytes", 16),
        /* the header; version and minimum reader version together are
         * one u32 */
        SET("plan_newer_version", H_VERSION, 4, 0x00090009, HEADER),
        SET("plan_older_version", H_VERSION, 4, 0, HEADER),
        SET("plan_reader_above_version", H_MIN_READ, 2, 9, HEADER),
        SET("plan_byte_order", H_BYTE_ORDER, 2, 0x3412, HEADER),
        SET("plan_header_size", H_HDR_SIZE, 2, 64, HEADER),
        FLIP("plan_header_checksum", H_ALGORITHM + 2, NONE),
        SET("plan_nranks_zero", H_NRANKS, 4, 0, HEADER),
        SET("plan_nranks_huge", H_NRANKS, 4, (1u << 24) + 1, HEADER),
        SET("plan_unknown_flags", H_FLAGS, 4, 0x100, HEADER),
        SET("plan_unknown_collective", H_COLL, 1, 200, HEADER),
        {.name = "plan_name_unterminated", .make = make_name, .seal = HEADER},
        SET("plan_file_size", H_FILE_SIZE, 8, 1u << 20, HEADER),
        SET("plan_global_size", H_GSIZE, 8, UINT64_C(1) << 62, HEADER),
        SET("plan_lower_bound", H_LB, 4, 2, HEADER),
        /* the body (global section, index, rank sections) */
        FLIP_AT("plan_body_checksum", body_mid, NONE),
        SET("plan_ranks_disagree", HDR + G_NRANKS, 4, 8, BODY),
        SET("plan_phases_disagree", HDR + G_NPHASES, 4, 3, BODY),
        SET("plan_root_outside", HDR + G_ROOT, 4, 4, BODY),
        SET_AT("plan_transfer_rank_outside", last_xf_dst, 4, 4, BODY),
        SET_AT("plan_transfer_negative_bytes", xf_bytes, 8, UINT64_MAX, BODY),
        SET_AT("plan_index_outside", r3_index, 8, 1u << 20, BODY),
        FLIP_AT("plan_section_checksum", r3_section, BODY),
        SET_SEC("plan_section_rank", 1, r1_rank, 4, 2),
        SET_SEC("plan_op_peer_outside", 0, r0_send_peer, 4, 4),
        SET_SEC("plan_op_phase_outside", 0, r0_send_phase, 4, 2),
        SET_SEC("plan_op_code_unknown", 0, r0_send_code, 4, 99),
        SET_SEC("plan_iov_outside", 0, r0_iov_len, 8, 65),
        SET_SEC("plan_iov_buffer_unknown", 0, r0_iov_buf, 4, 3),
        /* rank sections that each break one rule a loader checks (the
         * broadcast's rank 0: COPY iov 0 -> 1, PHASE 0, SEND 2 iov 2,
         * WAIT, PHASE 1, SEND 1 iov 3, WAIT; rank 2: PHASE 0, RECV 0
         * iov 0, WAIT, PHASE 1, SEND 3 iov 1, WAIT) */
        EDITS("plan_op_iovs_outside", BCAST, 0, E(OP_NIOV, 0, 5, 2)),
        EDITS("plan_op_peer_self", BCAST, 0, E(OP_PEER, 0, 2, 0)),
        EDITS("plan_slice_element_type", BCAST, 0, E(DTYPE, 0, 0, 9)),
        EDITS("plan_slice_reduction", BCAST, 0, E(REDOP, 0, 0, 7)),
        EDITS("plan_recv_bytes_pieces", BCAST, 2, E(OP_BYTES, 2, 1, 4096)),
        EDITS("plan_send_bytes_pieces", BCAST, 0, E(OP_BYTES, 0, 2, 32)),
        EDITS("plan_send_no_pieces", BCAST, 0, E(OP_NIOV, 0, 5, 0)),
        EDITS("plan_copy_pieces_differ", BCAST, 0, E(IOV_LEN, 0, 1, 16)),
        EDITS("plan_copy_one_piece", BCAST, 0, E(OP_NIOV, 0, 0, 1)),
        EDITS("plan_copy_into_send", BCAST, 0, E(IOV_BUF, 0, 1, 0)),
        EDITS("plan_recv_into_send", BCAST, 2, E(SEND_BYTES, 2, 0, 64),
              E(IOV_BUF, 2, 0, 0)),
        EDITS("plan_copy_in_group", BCAST, 0, E(SWAP_OPS, 0, 0, 1)),
        EDITS("plan_op_outside_group", BCAST, 0, E(SWAP_OPS, 0, 1, 2)),
        EDITS("plan_phase_in_group", BCAST, 0, E(OP_CODE, 0, 3, 0)),
        /* the last WAIT a zero-byte SEND to rank 1 */
        EDITS("plan_group_no_wait", BCAST, 0, E(OP_CODE, 0, 6, 3),
              E(OP_PEER, 0, 6, 1)),
        EDITS("plan_phase_backwards", BCAST, 0, E(OP_PHASE, 0, 4, 0),
              E(OP_PHASE, 0, 5, 0), E(OP_PHASE, 0, 6, 0)),
        EDITS("plan_op_phase_other_group", BCAST, 0, E(OP_PHASE, 0, 5, 0)),
        EDITS("plan_wait_bytes", BCAST, 0, E(OP_BYTES, 0, 3, 8)),
        EDITS("plan_pieces_shared", BCAST, 0, E(OP_IOV, 0, 5, 2)),
        /* the reduction's rank 0: COPY iov 0 -> 1, PHASE 0, RECV_REDUCE
         * 1 of 64 bytes iov 2 (scratch[0+64]) into iov 3 (recv[0+64]),
         * WAIT, and the same from rank 2 in phase 1 */
        EDITS("plan_reduce_one_piece", REDUCE, 0, E(OP_NIOV, 0, 2, 1)),
        EDITS("plan_reduce_piece_length", REDUCE, 0, E(IOV_LEN, 0, 3, 32)),
        EDITS("plan_reduce_partial_element", REDUCE, 0, E(OP_BYTES, 0, 2, 62),
              E(IOV_LEN, 0, 2, 62), E(IOV_LEN, 0, 3, 62)),
        EDITS("plan_reduce_into_send", REDUCE, 0, E(IOV_BUF, 0, 3, 0)),
        EDITS("plan_reduce_lands_on_partial", REDUCE, 0, E(IOV_BUF, 0, 2, 1)),
        /* the alltoall's rank 0 in phase 0: op 2 RECV 1 iov 2
         * (recv[8+8]), op 3 SEND 1 iov 3 (send[8+8]) */
        EDITS("plan_send_reads_received", ALLTOALL, 0, E(IOV_BUF, 0, 3, 1)),
        EDITS("plan_recvs_overlap", ALLTOALL, 0, E(OP_CODE, 0, 3, 1),
              E(IOV_BUF, 0, 3, 1)),
        /* the findings: each a plan whose other ranks are right.  A RECV
         * of 4096 bytes into a 16-byte receive buffer, rank 0 sending
         * them; a COPY of a 4096-byte source into 16 bytes; a SEND of
         * 4096 bytes with no piece, rank 2 receiving them */
        EDITS("plan_finding_recv_overflow", BCAST16, 2, E(OP_BYTES, 2, 1, 4096),
              E(SEND_BYTES, 0, 0, 4096), E(OP_BYTES, 0, 2, 4096),
              E(IOV_LEN, 0, 2, 4096)),
        EDITS("plan_finding_copy_overflow", BCAST16, 0,
              E(SEND_BYTES, 0, 0, 4096), E(IOV_LEN, 0, 0, 4096)),
        EDITS("plan_finding_send_no_pieces", BCAST16, 0, E(OP_NIOV, 0, 2, 0),
              E(OP_BYTES, 0, 2, 4096), E(RECV_BYTES, 2, 0, 4096),
              E(OP_BYTES, 2, 1, 4096), E(IOV_LEN, 2, 0, 4096)),
        /* well-formed, resealed, and wrong: the verifier's to find */
        SET_SEC("plan_ops_disagree", 0, r0_send_peer, 4, 3),
        SET_AT("plan_causality", last_xf_src, 4, 1, BODY),
        SET_AT("plan_delivery_missing", mid_xf_dst, 4, 3, BODY),
};
#define NRECIPES (sizeof recipes / sizeof recipes[0])

/* ---- files --------------------------------------------------------------- */

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void write_all(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* What `ccplan verify NAME.ccp` prints first, run in bad/ (plan_load's
 * message with the path as given), and its exit status. */
static int refuse(const char *name, char *msg, size_t cap)
{
	char path[512], err[512];
	struct compiled c;
	ir_file_info fi;

	snprintf(path, sizeof path, "bad/%s", name);
	int rc = plan_load(path, &c, &fi, err, sizeof err);
	if (rc == 0) {
		compiled_fini(&c);
		snprintf(msg, cap, "(accepted)");
		return 0;
	}
	/* as if run in bad/: drop the directory */
	snprintf(msg, cap, "%s",
	         strncmp(err, "bad/", 4) == 0 ? err + 4 : err);
	return exit_status(rc);
}

/* ---- tests --------------------------------------------------------------- */

/* Every recipe gives the file in the catalogue (or writes it). */
static void test_recipes(void **state)
{
	(void)state;
	size_t blen[NBASES];
	uint8_t *base[NBASES];
	bool write = getenv("CCPLAN_WRITE_BAD_PLANS") != NULL;
	int differ = 0;

	for (int b = 0; b < NBASES; b++)
		base[b] = base_plan((enum base)b, &blen[b]);
	for (size_t i = 0; i < NRECIPES; i++) {
		const struct recipe *r = &recipes[i];
		size_t len = blen[r->base], flen = 0;
		uint8_t *img = malloc(len);
		char path[512], msg[512];
		assert_non_null(img);
		memcpy(img, base[r->base], len);
		r->make(&img, &len, r);
		snprintf(path, sizeof path, "bad/%s.ccp", r->name);
		if (write) {
			write_all(path, img, len);
			snprintf(path, sizeof path, "bad/%s.err", r->name);
			FILE *g = fopen(path, "r");
			if (g) {
				fclose(g);
			} else { /* a new golden: read it before committing */
				char name[256];
				snprintf(name, sizeof name, "%s.ccp", r->name);
				int st = refuse(name, msg, sizeof msg);
				FILE *w = fopen(path, "w");
				assert_non_null(w);
				fprintf(w, "%s\nexit: %d\n", msg, st);
				fclose(w);
				print_message("new golden %s: %s (exit %d)\n",
				              path, msg, st);
			}
		} else {
			uint8_t *f = read_all(path, &flen);
			if (!f || flen != len || memcmp(f, img, len) != 0) {
				print_error("%s differs from its recipe "
				            "(CCPLAN_WRITE_BAD_PLANS=1 writes it "
				            "again)\n",
				            path);
				differ++;
			}
			free(f);
		}
		free(img);
	}
	for (int b = 0; b < NBASES; b++)
		free(base[b]);
	assert_int_equal(differ, 0);
}

/* Every bad/NAME.ccp: refused with its golden message and status. */
static void test_refused(void **state)
{
	(void)state;
	DIR *dir = opendir("bad");
	struct dirent *e;
	int n = 0, failed = 0, verifier = 0;

	assert_non_null(dir);
	while ((e = readdir(dir))) {
		size_t l = strlen(e->d_name);
		char path[512], want[512], got[512];
		int status, st;
		if (l <= 4 || strcmp(e->d_name + l - 4, ".ccp") != 0)
			continue;
		n++;
		snprintf(path, sizeof path, "bad/%.*s.err", (int)(l - 4),
		         e->d_name);
		if (!tu_read_golden(path, want, sizeof want, &status)) {
			print_error("%s: no golden %s\n", e->d_name, path);
			failed++;
			continue;
		}
		st = refuse(e->d_name, got, sizeof got);
		verifier += st == EXIT_REJECTED;
		if (st != status || strcmp(got, want) != 0) {
			print_error("%s:\n  want %s (exit %d)\n  got  %s (exit "
			            "%d)\n",
			            e->d_name, want, status, got, st);
			failed++;
		}
	}
	closedir(dir);
	assert_true(n >= (int)NRECIPES);
	assert_true(verifier >= 3); /* well-formed and wrong */
	assert_int_equal(failed, 0);
}

/* ir_slice_from_image on every rank of bad/NAME.ccp: the rank whose
 * slice is refused is bad_rank (-1: every rank's). */
static void slices_of(const char *name, int32_t bad_rank)
{
	char path[512], err[256];
	size_t len = 0;
	snprintf(path, sizeof path, "bad/%s.ccp", name);
	uint8_t *img = read_all(path, &len);
	assert_non_null(img);
	for (int32_t r = 0; r < 4; r++) {
		ir_slice s;
		ir_file_info fi;
		int rc = ir_slice_from_image(img, len, r, &s, &fi, err,
		                             sizeof err);
		if (rc == 0)
			ir_slice_fini(&s);
		if ((rc != 0) != (bad_rank < 0 || r == bad_rank))
			print_error("%s: rank %d's slice %s\n", name, (int)r,
			            rc ? err : "accepted");
		assert_int_equal(rc != 0, bad_rank < 0 || r == bad_rank);
	}
	free(img);
}

/* The runtime's loader of one rank's slice never takes a slice out of a
 * file whose header or body is bad; of a file with one damaged rank
 * section it refuses that rank's slice and loads the others, which are
 * whole (each rank reads only its own bytes). */
static void test_slices_refused(void **state)
{
	(void)state;
	static const char *const bad_for_all[] = {
	        "plan_empty",         "plan_yaml",
	        "plan_wrong_magic",   "plan_truncated_header",
	        "plan_newer_version", "plan_reader_above_version",
	        "plan_byte_order",    "plan_header_checksum",
	        "plan_nranks_zero",   "plan_file_size",
	        "plan_body_checksum", "plan_trailing_bytes",
	};
	for (size_t i = 0; i < sizeof bad_for_all / sizeof *bad_for_all; i++)
		slices_of(bad_for_all[i], -1);
	slices_of("plan_section_checksum", 3);
}

/* ---- the rules a loader checks, through the runtime's loaders ----------- */

/* What the codec says of rank r's slice of bad/NAME.ccp ("" if it loads);
 * the image is returned in *img (malloc'd). */
static int codec_reason(const char *name, int32_t r, uint8_t **img, size_t *len,
                        char *why, size_t cap)
{
	char path[512];
	snprintf(path, sizeof path, "bad/%s.ccp", name);
	*img = read_all(path, len);
	assert_non_null(*img);
	ir_slice s;
	why[0] = '\0';
	int rc = ir_slice_from_image(*img, *len, r, &s, NULL, why, cap);
	if (rc == 0)
		ir_slice_fini(&s);
	return rc;
}

/* Whether msg is prefix ": " reason. */
static bool says(const char *msg, const char *prefix, const char *reason)
{
	size_t n = strlen(prefix);
	return strncmp(msg, prefix, n) == 0 && strncmp(msg + n, ": ", 2) == 0 &&
	       strcmp(msg + n + 2, reason) == 0;
}

/* Every rank of every plan that breaks a rule, through the file and the
 * memory loaders: the rank whose section breaks it is refused with the
 * codec's reason (CCP_EFORMAT), the other ranks load. */
static void test_runtime_refuses(void **state)
{
	(void)state;
	ccp_context *ctx;
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	int checked = 0;
	for (size_t i = 0; i < NRECIPES; i++) {
		const struct recipe *rc = &recipes[i];
		if (rc->make != make_edits)
			continue;
		char path[512];
		snprintf(path, sizeof path, "bad/%s.ccp", rc->name);
		for (int32_t r = 0; r < 4; r++) {
			uint8_t *img;
			size_t len;
			char why[256];
			int want = codec_reason(rc->name, r, &img, &len, why,
			                        sizeof why);
			assert_int_equal(want != 0, r == rc->bad);
			ccp_plan *p = NULL;
			int got = ccp_plan_load_file(ctx, path, r, &p);
			if (got != want ||
			    (want && !says(ccp_errmsg(ctx), path, why)))
				fail_msg(
				        "%s rank %d from the file: %d %s, want "
				        "%d %s",
				        rc->name, (int)r, got, ccp_errmsg(ctx),
				        want, why);
			ccp_plan_free(p);
			got = ccp_plan_load_memory(ctx, img, len, r, &p);
			if (got != want ||
			    (want && !says(ccp_errmsg(ctx), "plan image", why)))
				fail_msg("%s rank %d from memory: %d %s, want "
				         "%d %s",
				         rc->name, (int)r, got, ccp_errmsg(ctx),
				         want, why);
			ccp_plan_free(p);
			assert_true(want == 0 || want == CCP_EFORMAT);
			free(img);
			checked++;
		}
	}
	print_message("%d ranks of the rule-breaking plans loaded or refused "
	              "as the codec says\n",
	              checked);
	ccp_fini(ctx);
}

/* The tables `ccplan compile --emit c` would write for base b's plan,
 * with the recipe's edits applied to them: ops, iovs and ranks are
 * malloc'd and freed by free_emitted. */
struct emitted {
	struct ccp_emitted_plan plan;
	struct ccp_emitted_rank ranks[4];
	struct ccp_emitted_op *ops[4];
	struct ccp_emitted_iov *iovs[4];
};

static void make_emitted(struct emitted *e, const struct recipe *rc)
{
	size_t len;
	uint8_t *img = base_plan(rc->base, &len);
	ir_file_info fi;
	char err[256];
	memset(e, 0, sizeof *e);
	for (int32_t r = 0; r < 4; r++) {
		ir_slice s;
		assert_int_equal(ir_slice_from_image(img, len, r, &s, &fi, err,
		                                     sizeof err),
		                 0);
		struct ccp_emitted_op *ops = calloc(s.nops + 1, sizeof *ops);
		struct ccp_emitted_iov *iovs =
		        calloc(s.niovs + 1, sizeof *iovs);
		assert_non_null(ops);
		assert_non_null(iovs);
		for (uint32_t k = 0; k < s.nops; k++) {
			const ir_op *o = &s.ops[k];
			ops[k] = (struct ccp_emitted_op){o->code, o->phase,
			                                 o->peer, o->iov,
			                                 o->niov, o->bytes};
		}
		for (uint32_t k = 0; k < s.niovs; k++)
			iovs[k] = (struct ccp_emitted_iov){
			        s.iovs[k].buf, s.iovs[k].off, s.iovs[k].len};
		e->ops[r] = ops;
		e->iovs[r] = iovs;
		e->ranks[r] = (struct ccp_emitted_rank){
		        s.send_bytes, s.recv_bytes, s.scratch_bytes,
		        s.dtype,      s.redop,      s.nops,
		        s.niovs,      ops,          iovs};
		ir_slice_fini(&s);
	}
	for (const struct edit *d = rc->edits; d->field != END; d++) {
		struct ccp_emitted_op *o = &e->ops[d->rank][d->index];
		struct ccp_emitted_iov *v = &e->iovs[d->rank][d->index];
		struct ccp_emitted_rank *k = &e->ranks[d->rank];
		uint32_t v32 = (uint32_t)d->value;
		switch (d->field) {
		case OP_CODE:
			o->code = v32;
			break;
		case OP_PHASE:
			o->phase = v32;
			break;
		case OP_PEER:
			o->peer = (int32_t)v32;
			break;
		case OP_BYTES:
			o->bytes = d->value;
			break;
		case OP_IOV:
			o->iov = v32;
			break;
		case OP_NIOV:
			o->niov = v32;
			break;
		case IOV_BUF:
			v->buf = v32;
			break;
		case IOV_OFF:
			v->off = d->value;
			break;
		case IOV_LEN:
			v->len = d->value;
			break;
		case SEND_BYTES:
			k->send_bytes = d->value;
			break;
		case RECV_BYTES:
			k->recv_bytes = d->value;
			break;
		case DTYPE:
			k->dtype = v32;
			break;
		case REDOP:
			k->redop = v32;
			break;
		case SWAP_OPS: {
			struct ccp_emitted_op t = *o;
			*o = e->ops[d->rank][d->value];
			e->ops[d->rank][d->value] = t;
			break;
		}
		case END:
			break;
		}
	}
	e->plan = (struct ccp_emitted_plan){.abi = CCP_EMITTED_ABI,
	                                    .format = fi.version,
	                                    .nranks = fi.nranks,
	                                    .nphases = fi.nphases,
	                                    .lb_phases = fi.lb_phases,
	                                    .coll = (uint32_t)fi.coll,
	                                    .plan_hash = fi.plan_hash,
	                                    .algorithm = "binomial",
	                                    .collective = ir_coll_name(fi.coll),
	                                    .ranks = e->ranks};
	free(img);
}

static void free_emitted(struct emitted *e)
{
	for (int r = 0; r < 4; r++) {
		free(e->ops[r]);
		free(e->iovs[r]);
	}
}

/* The same edits made to emitted C tables: the emitted loader refuses the
 * same rank for the same reason (its own words for an element type or a
 * reduction it cannot narrow), and loads the others. */
static void test_emitted_refuses(void **state)
{
	(void)state;
	ccp_context *ctx;
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	for (size_t i = 0; i < NRECIPES; i++) {
		const struct recipe *rc = &recipes[i];
		if (rc->make != make_edits)
			continue;
		struct emitted e;
		make_emitted(&e, rc);
		for (int32_t r = 0; r < 4; r++) {
			uint8_t *img;
			size_t len;
			char why[256];
			int want = codec_reason(rc->name, r, &img, &len, why,
			                        sizeof why);
			free(img);
			bool own = rc->edits[0].field == DTYPE ||
			           rc->edits[0].field == REDOP;
			ccp_plan *p = NULL;
			int got = ccp_plan_load_emitted(ctx, &e.plan, r, &p);
			if (got != want ||
			    (want && !own &&
			     !says(ccp_errmsg(ctx), "emitted plan", why)))
				fail_msg(
				        "%s rank %d from C tables: %d %s, want "
				        "%d %s",
				        rc->name, (int)r, got, ccp_errmsg(ctx),
				        want, why);
			ccp_plan_free(p);
		}
		free_emitted(&e);
	}
	ccp_fini(ctx);
}

/* ---- the findings, executed ---------------------------------------------- */

/* One rank of an execution on the loopback transport. */
struct attack {
	const uint8_t *img;
	size_t len;
	int load_rc, exec_rc;
	bool guards_ok, unchanged;
	char msg[256];
};

/* Whether the n bytes at p are all v. */
static bool all_are(const unsigned char *p, uint64_t n, unsigned char v)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* Load, bind buffers between guard zones, execute once, then look at
 * every buffer and zone (lb_run: a rank that returns has left, so that
 * the others never wait for it). */
static void attack_rank(struct lb_job *lj)
{
	struct attack *a = &((struct attack *)lj->arg)[lj->rank];
	ccp_plan *p;
	ccp_plan_info in;
	a->load_rc =
	        ccp_plan_load_memory(lj->ctx, a->img, a->len, lj->rank, &p);
	snprintf(a->msg, sizeof a->msg, "%s", ccp_errmsg(lj->ctx));
	if (a->load_rc)
		return;
	assert_int_equal(ccp_plan_get_info(p, &in), 0);
	size_t sb = (size_t)in.send_bytes, rb = (size_t)in.recv_bytes,
	       xb = (size_t)in.scratch_bytes;
	unsigned char *send = guard_alloc(sb, 0x11);
	unsigned char *recv = guard_alloc(rb, 0x22);
	unsigned char *scr = guard_alloc(xb, 0x33);
	assert_true(send && recv && scr);
	assert_int_equal(ccp_plan_bind(p, send, sb, recv, rb, scr, xb), 0);
	a->exec_rc = ccp_plan_execute(p, lj->t, CCP_EXEC_DEFAULT);
	snprintf(a->msg, sizeof a->msg, "%s", ccp_errmsg(lj->ctx));
	a->guards_ok = guard_intact(send, sb) && guard_intact(recv, rb) &&
	               guard_intact(scr, xb);
	a->unchanged = all_are(send, sb, 0x11) && all_are(recv, rb, 0x22) &&
	               all_are(scr, xb, 0x33);
	guard_free(send, sb);
	guard_free(recv, rb);
	guard_free(scr, xb);
	ccp_plan_free(p);
}

/* Every rank of bad/NAME.ccp executes it on the loopback transport: the
 * bad rank is refused at load, every other rank's execution returns an
 * error, and no byte of any buffer or guard zone changed. */
static void run_attack(const char *name, int32_t bad)
{
	char path[512];
	size_t len, unreceived;
	snprintf(path, sizeof path, "bad/%s.ccp", name);
	uint8_t *img = read_all(path, &len);
	assert_non_null(img);
	struct attack a[4];
	for (int32_t r = 0; r < 4; r++)
		a[r] = (struct attack){.img = img, .len = len};
	lb_run(4, 10000, attack_rank, a, &unreceived);
	for (int32_t r = 0; r < 4; r++)
		print_message(
		        "%s rank %d: load %d, execute %d, guard zones %s, "
		        "buffers %s: %s\n",
		        name, (int)r, a[r].load_rc, a[r].exec_rc,
		        a[r].guards_ok ? "intact" : "CHANGED",
		        a[r].unchanged ? "unchanged" : "CHANGED", a[r].msg);
	for (int32_t r = 0; r < 4; r++) {
		if (r == bad) {
			assert_int_equal(a[r].load_rc, CCP_EFORMAT);
			assert_non_null(strstr(a[r].msg, "bad plan: "));
		} else {
			assert_int_equal(a[r].load_rc, 0);
			assert_true(a[r].exec_rc < 0);
			assert_true(a[r].guards_ok);
			assert_true(a[r].unchanged);
		}
	}
	assert_int_equal(unreceived, 0);
	free(img);
}

/* The recipe named name. */
static const struct recipe *recipe_named(const char *name)
{
	for (size_t i = 0; i < NRECIPES; i++)
		if (strcmp(recipes[i].name, name) == 0)
			return &recipes[i];
	fail_msg("no recipe %s", name);
	return NULL;
}

/* The plans of the three findings: before the loader checked them, each
 * returned 0 on every rank after writing outside a buffer (a RECV of 4096
 * bytes into 16, a COPY of a 4096-byte source into 16 bytes) or sending
 * 4 KiB of the rank's heap (a SEND with no piece). */
static void test_finding_recv_overflow(void **state)
{
	(void)state;
	run_attack("plan_finding_recv_overflow",
	           recipe_named("plan_finding_recv_overflow")->bad);
}

static void test_finding_copy_overflow(void **state)
{
	(void)state;
	run_attack("plan_finding_copy_overflow",
	           recipe_named("plan_finding_copy_overflow")->bad);
}

static void test_finding_send_no_pieces(void **state)
{
	(void)state;
	run_attack("plan_finding_send_no_pieces",
	           recipe_named("plan_finding_send_no_pieces")->bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_recipes),
	        cmocka_unit_test(test_refused),
	        cmocka_unit_test(test_slices_refused),
	        cmocka_unit_test(test_runtime_refuses),
	        cmocka_unit_test(test_emitted_refuses),
	        cmocka_unit_test(test_finding_recv_overflow),
	        cmocka_unit_test(test_finding_copy_overflow),
	        cmocka_unit_test(test_finding_send_no_pieces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
