/*
 * test_bad_plans.c - the bad plans of the catalogue (tests/bad/NAME.ccp,
 * each with its golden NAME.err: the first line the commands print, then
 * "exit: N").
 *
 * Each bad plan is made here from one good plan (a 4-rank binomial
 * broadcast: 0 -> 2, then 0 -> 1 and 2 -> 3) by one recipe: cut, a byte
 * changed, or a field changed and the checksums over it made to match
 * again ("resealed"), so that the check behind the checksums is the one
 * that must find it.  The tests:
 *   - every recipe gives byte for byte the file in tests/bad (run with
 *     CCPLAN_WRITE_BAD_PLANS=1 to write them again after a format change,
 *     and a golden for a new one, to be read and checked by hand);
 *   - every tests/bad/NAME.ccp is refused by plan_load (what verify, explain
 *     and simulate use) with its golden message and exit status;
 *   - the runtime's one-rank loader refuses every rank's slice of a
 *     plan whose header or body checksum is bad, and exactly the
 *     damaged rank's slice when one rank section is bad.
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

#include "codec.h"
#include "compile.h"
#include "front.h"
#include "le.h"
#include "support.h"

/* ---- the good plan and where its fields are --------------------------- */

static const char base_yaml[] =
        "machine: {topology: switch, ranks: 4}\n"
        "communication: {collective: broadcast, root: 0, bytes: 64}\n"
        "algorithm: binomial\n";

/* The .ccp image of base_yaml (malloc'd). */
static uint8_t *base_plan(size_t *len)
{
	struct front_input in;
	struct compiled c;
	struct diag d;
	uint8_t *img = NULL;
	char err[256];

	memset(&d, 0, sizeof d);
	assert_int_equal(front_parse_string("base.yaml", base_yaml,
	                                    sizeof base_yaml - 1, &in, &d),
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
};

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
	*img = (uint8_t *)strdup(base_yaml);
	assert_non_null(*img);
	*len = sizeof base_yaml - 1;
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
        SET("plan_newer_version", H_VERSION, 4, 0x00070007, HEADER),
        SET("plan_older_version", H_VERSION, 4, 0, HEADER),
        SET("plan_reader_above_version", H_MIN_READ, 2, 9, HEADER),
        SET("plan_byte_order", H_BYTE_ORDER, 2, 0x3412, HEADER),
        SET("plan_header_size", H_HDR_SIZE, 2, 64, HEADER),
        FLIP("plan_header_checksum", H_ALGORITHM + 2, NONE),
        SET("plan_nranks_zero", H_NRANKS, 4, 0, HEADER),
        SET("plan_nranks_huge", H_NRANKS, 4, (1u << 24) + 1, HEADER),
        SET("plan_unknown_flags", H_FLAGS, 4, 0x100, HEADER),
        SET("plan_unknown_collective", H_COLL, 1, 9, HEADER),
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
	size_t blen;
	uint8_t *base = base_plan(&blen);
	bool write = getenv("CCPLAN_WRITE_BAD_PLANS") != NULL;
	int differ = 0;

	for (size_t i = 0; i < NRECIPES; i++) {
		const struct recipe *r = &recipes[i];
		size_t len = blen, flen = 0;
		uint8_t *img = malloc(blen);
		char path[512], msg[512];
		assert_non_null(img);
		memcpy(img, base, blen);
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
	free(base);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_recipes),
	        cmocka_unit_test(test_refused),
	        cmocka_unit_test(test_slices_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
