/*
 * codec.h - the .ccp binary plan format: write a whole plan, read it back
 * whole (for verify/explain/export), or read one rank's slice only (for
 * the runtime).  The layout is documented in docs/plan-format.md.
 *
 * All multi-byte fields are little-endian.  The loader checks magic,
 * versions, the check values, every size and offset, and the checksums
 * before it uses a byte, and rejects anything else with a specific
 * message ("truncated plan", "version mismatch", "checksum mismatch"...).
 */
#ifndef CCP_CODEC_H
#define CCP_CODEC_H

#include "ir.h"

#define IR_FILE_VERSION  8 /* newest version this code reads and writes */
#define IR_FILE_MIN_READ 1 /* oldest version this code reads */
/* Oldest reader of what this code writes: version 2 only appends the
 * selection record to the global section, and version 3 the element type
 * and reduction to each rank section; an older reader skips both.
 * Version 4 adds allgather, reduce_scatter, allreduce and reductions cut
 * into several element blocks (RECV_REDUCE of more than 2 pieces): only
 * such plans are written as version 4, needing a reader of version 4;
 * every other plan is written as version 3, byte for byte as before, so
 * its plan hash and its cache entries stay valid.  Version 5 appends the
 * machine's combine cost (ir.h) to the global section: only plans whose
 * machine has one are written as version 5, needing a reader of 5.
 * Version 6 appends the rest of the machine (n-D, nodes, placement);
 * version 7 a graph machine's cables, and only graph plans are written
 * as 7, needing a reader of 7.  Version 8 appends the path of each
 * transfer and of each SEND op, and only plans of a machine whose
 * sender picks paths (ir_routing_chooses) are written as 8. */
#define IR_FILE_COMPAT 1

/* What the header of a plan file says; filled by ir_file_info_read. */
typedef struct ir_file_info {
	uint16_t version;            /* format version of the file */
	int32_t nranks;              /* ranks of the plan */
	uint32_t nphases;            /* phases of the plan */
	uint32_t lb_phases;          /* lower bound recorded at compile time */
	uint32_t flags;              /* IR_PLAN_* */
	enum ir_coll coll;           /* collective */
	char algorithm[IR_NAME_MAX]; /* generator name */
	uint8_t input_hash[16];      /* hash of the canonical input */
	uint64_t plan_hash;          /* checksum of the whole content; ranks
	                                compare it to agree on the plan */
	uint64_t file_size;          /* size the header says the file has */
} ir_file_info;

/* The version a plan of machine m and communication c (of plan p) is
 * written as, and the oldest reader it needs (*min_read), by the rule
 * above. */
uint16_t ir_file_version(const ir_machine *m, const ir_comm *c,
                         uint16_t *min_read);
uint16_t ir_plan_file_version(const ir_plan *p, uint16_t *min_read);

/* Where ir_plan_encode_to puts a file: put appends len bytes (0, or an
 * error code that ends the encoding); put_head, called last, writes the
 * header (IR_FILE_HEADER_MIN bytes) over the zeros put first. */
typedef struct ir_sink {
	int (*put)(void *ctx, const void *buf, size_t len);
	int (*put_head)(void *ctx, const void *head, size_t len);
	void *ctx;
} ir_sink;

/* ir_plan_encode without the image in memory: the same bytes handed to
 * sink in pieces of about 1 MiB as they are made (the sections are
 * encoded twice, once for the index).  *outlen (may be NULL) gets the
 * file's size.  CCP_EINVAL as ir_plan_encode, CCP_ENOMEM, or the sink's
 * error. */
int ir_plan_encode_to(const ir_plan *p, const ir_report *r, const ir_slice *s,
                      const ir_sink *sink, uint64_t *outlen, char *err,
                      size_t errlen);

/* Encode plan p (verified, report r, lowered slices s) into a new buffer
 * *out of *outlen bytes (malloc'd; the caller frees it with free()).
 * A plan the format cannot hold gives CCP_EINVAL with the reason in err
 * (err may be NULL). */
int ir_plan_encode(const ir_plan *p, const ir_report *r, const ir_slice *s,
                   uint8_t **out, size_t *outlen, char *err, size_t errlen);

/* Read and check the header of a buffer of len bytes (len may be the whole
 * file or just its first IR_FILE_HEADER_MIN bytes: the header never needs
 * more).  err gets a one-line reason on failure. */
#define IR_FILE_HEADER_MIN 128
int ir_file_info_read(const uint8_t *buf, size_t len, ir_file_info *fi,
                      char *err, size_t errlen);

/* Check a complete image without decoding it: the header, the length the
 * header states, the checksum of everything after the header and every
 * rank section's place in the index (what a store of plan blobs checks
 * before handing one out).  fi (may be NULL) gets the header. */
int ir_image_check(const uint8_t *buf, size_t len, ir_file_info *fi, char *err,
                   size_t errlen);

/* Decode the whole plan (machine, communication, phases, transfers,
 * blocks) from a complete file image; every check first.  On success p is
 * initialised and owned by the caller (ir_plan_fini). */
int ir_plan_decode(const uint8_t *buf, size_t len, ir_plan *p, ir_file_info *fi,
                   char *err, size_t errlen);

/* Where rank's slice lies in the file: after ir_file_info_read, the index
 * entry of a rank is at a fixed offset, so a loader can read the header,
 * then one index entry, then one section, without reading the rest. */
int ir_slice_locate(const uint8_t *head, size_t headlen, const ir_file_info *fi,
                    int32_t rank, uint64_t *index_off, char *err,
                    size_t errlen);
/* index entry bytes (IR_FILE_INDEX_ENTRY of them, read from index_off) ->
 * the section's offset and size in the file */
#define IR_FILE_INDEX_ENTRY 24
int ir_slice_entry(const uint8_t *entry, const ir_file_info *fi, uint64_t *off,
                   uint64_t *size, char *err, size_t errlen);
/* Decode one rank's section (size bytes, read from off), checking its
 * own checksum, into s (owned by the caller, ir_slice_fini). */
int ir_slice_decode(const uint8_t *sec, uint64_t size, const ir_file_info *fi,
                    int32_t rank, ir_slice *s, char *err, size_t errlen);
void ir_slice_fini(ir_slice *s);
/* The rules a decoded slice keeps (op codes, peers, phases, iov ranges,
 * every iov inside the buffer it names), for slices that come from
 * elsewhere than a rank section (emitted C tables). */
int ir_slice_check(const ir_slice *s, int32_t rank, int32_t nranks,
                   uint32_t nphases, char *err, size_t errlen);

/* Convenience: one rank's slice from a complete file image. */
int ir_slice_from_image(const uint8_t *buf, size_t len, int32_t rank,
                        ir_slice *s, ir_file_info *fi, char *err,
                        size_t errlen);
/* One rank's slice from a complete image that ir_image_check or
 * ir_plan_decode has accepted, fi being what it filled: the same checks
 * as ir_slice_from_image but the plan hash over the whole body, so that
 * reading every rank's slice costs the image's size once, not once per
 * rank.  An image that is not the one fi describes is CCP_EINVAL. */
int ir_slice_from_checked(const uint8_t *buf, size_t len,
                          const ir_file_info *fi, int32_t rank, ir_slice *s,
                          char *err, size_t errlen);

#endif
