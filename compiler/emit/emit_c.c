/*
 * emit_c.c - a plan as C source (`ccplan compile --emit c`).
 *
 * The input is the encoded .ccp image, not the plan in memory: every rank
 * section is decoded back with the codec (which checks it) and printed as
 * table rows, so the emitted tables and the .ccp file cannot differ, and
 * the plan hash the file carries is the image's.  The output is one
 * self-contained C11 file that includes only <stdint.h> and
 * "ccplan_emitted.h": one op table and one iov table for all ranks, one
 * rank record per rank pointing at its part, and one exported
 * `const struct ccp_emitted_plan NAME`.  It is byte-for-byte the same for
 * the same image and name (no time, no path), and compiles without a
 * warning under -std=c11 -Wall -Wextra -Wpedantic.  docs/emit-c.md shows
 * the shape.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "emit_c.h"

/* The ABI of include/ccplan_emitted.h this emitter writes (the header is
 * not included here: the compiler does not link the runtime). */
#define EMIT_ABI 1

/* ---- names ------------------------------------------------------------ */

/* C11 keywords: none can be the symbol. */
static const char *const keywords[] = {
        "auto",          "break",        "case",       "char",
        "const",         "continue",     "default",    "do",
        "double",        "else",         "enum",       "extern",
        "float",         "for",          "goto",       "if",
        "inline",        "int",          "long",       "register",
        "restrict",      "return",       "short",      "signed",
        "sizeof",        "static",       "struct",     "switch",
        "typedef",       "union",        "unsigned",   "void",
        "volatile",      "while",        "_Alignas",   "_Alignof",
        "_Atomic",       "_Bool",        "_Complex",   "_Generic",
        "_Imaginary",    "_Noreturn",    "_Static_assert",
        "_Thread_local",
};

/* Characters of an identifier, ASCII only (no locale). */
static bool ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* See ident_start. */
static bool ident_char(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

bool emit_c_name_ok(const char *name)
{
	if (!name || !ident_start(name[0]) || name[0] == '_')
		return false;
	size_t n = strlen(name);
	if (n > EMIT_C_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!ident_char(name[i]))
			return false;
	if (strncmp(name, "ccp_", 4) == 0 || strncmp(name, "CCP_", 4) == 0)
		return false;
	for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
		if (strcmp(name, keywords[i]) == 0)
			return false;
	return true;
}

void emit_c_name_from_path(const char *path, char buf[EMIT_C_NAME_MAX + 1])
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);
	if (n >= 2 && strcmp(base + n - 2, ".c") == 0)
		n -= 2;
	char id[EMIT_C_NAME_MAX + 1];
	size_t k = 0;
	for (size_t i = 0; i < n && k < EMIT_C_NAME_MAX; i++)
		id[k++] = ident_char(base[i]) ? base[i] : '_';
	id[k] = '\0';
	if (emit_c_name_ok(id))
		snprintf(buf, EMIT_C_NAME_MAX + 1, "%s", id);
	else
		snprintf(buf, EMIT_C_NAME_MAX + 1, "plan_%.*s",
		         EMIT_C_NAME_MAX - 5, id);
	/* "plan_" followed by identifier characters is always good */
}

/* A string literal of s: letters, digits and a few safe marks as they
 * are, everything else as a three-digit octal escape (so no trigraph, no
 * quote, no backslash sequence can appear). */
void tb_literal(struct tbuf *b, const char *s)
{
	tb_printf(b, "\"");
	for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
		if (ident_char((char)*q) || *q == '-' || *q == '.' || *q == ' ')
			tb_printf(b, "%c", *q);
		else
			tb_printf(b, "\\%03o", *q);
	}
	tb_printf(b, "\"");
}

/* ---- the file ----------------------------------------------------------- */

/* The suffix a u64 decimal needs to stay an unsigned constant without a
 * warning: none up to INT64_MAX, "u" above. */
static const char *u64_suffix(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? "u" : "";
}

/* Per-rank rows of the three tables, for one decoded slice; *op_at and
 * *iov_at are the rank's first row in the op and iov tables. */
static void put_rank(struct tbuf *ops, struct tbuf *iovs, struct tbuf *ranks,
                     const char *name, const ir_slice *s, uint64_t *op_at,
                     uint64_t *iov_at)
{
	if (s->nops)
		tb_printf(ops, "\t/* rank %ld */\n", (long)s->rank);
	for (uint32_t i = 0; i < s->nops; i++) {
		const ir_op *o = &s->ops[i];
		tb_printf(ops, "\t{%u, %lu, %ld, %lu, %lu, %llu%s},\n",
		          (unsigned)o->code, (unsigned long)o->phase,
		          (long)o->peer, (unsigned long)o->iov,
		          (unsigned long)o->niov, (unsigned long long)o->bytes,
		          u64_suffix(o->bytes));
	}
	if (s->niovs)
		tb_printf(iovs, "\t/* rank %ld */\n", (long)s->rank);
	for (uint32_t i = 0; i < s->niovs; i++) {
		const ir_iov *v = &s->iovs[i];
		tb_printf(iovs, "\t{%u, %llu%s, %llu%s},\n", (unsigned)v->buf,
		          (unsigned long long)v->off, u64_suffix(v->off),
		          (unsigned long long)v->len, u64_suffix(v->len));
	}
	tb_printf(ranks, "\t{%llu%s, %llu%s, %llu%s, %u, %u, %lu, %lu, ",
	          (unsigned long long)s->send_bytes, u64_suffix(s->send_bytes),
	          (unsigned long long)s->recv_bytes, u64_suffix(s->recv_bytes),
	          (unsigned long long)s->scratch_bytes,
	          u64_suffix(s->scratch_bytes), (unsigned)s->dtype,
	          (unsigned)s->redop, (unsigned long)s->nops,
	          (unsigned long)s->niovs);
	if (s->nops)
		tb_printf(ranks, "%s_ops + %llu, ", name,
		          (unsigned long long)*op_at);
	else
		tb_printf(ranks, "NULL, ");
	if (s->niovs)
		tb_printf(ranks, "%s_iovs + %llu},\n", name,
		          (unsigned long long)*iov_at);
	else
		tb_printf(ranks, "NULL},\n");
	*op_at += s->nops;
	*iov_at += s->niovs;
}

/* The comment and includes at the top of the file. */
static void put_head(struct tbuf *b, const char *name, const ir_file_info *fi,
                     const char *coll)
{
	char key[33];
	for (int i = 0; i < 16; i++)
		snprintf(key + 2 * i, 3, "%02x", fi->input_hash[i]);
	tb_printf(b,
	          "/*\n"
	          " * %s.c - a ccplan plan as C tables, emitted by ccplan %s\n"
	          " * (ccplan compile --emit c); do not edit, compile the "
	          "input again.\n"
	          " *\n"
	          " *   algorithm   %s\n"
	          " *   collective  %s\n"
	          " *   ranks       %ld\n"
	          " *   phases      %lu (lower bound %lu)\n"
	          " *   plan hash   %016llx (the .ccp image's)\n"
	          " *   input key   %s\n"
	          " *\n"
	          " * Link it with the ccplan runtime and load one rank with\n"
	          " *     ccp_plan_load_emitted(ctx, &%s, rank, &plan);\n"
	          " * Op codes: 0 PHASE, 1 RECV, 2 RECV_REDUCE, 3 SEND, 4 "
	          "COPY, 5 WAIT;\n"
	          " * buffers: 0 send, 1 receive, 2 scratch "
	          "(docs/emit-c.md).\n"
	          " */\n"
	          "#include <stdint.h>\n"
	          "\n"
	          "#include \"ccplan_emitted.h\"\n"
	          "\n"
	          "#if CCP_EMITTED_ABI != %d\n"
	          "#error \"%s.c was emitted for ccplan_emitted.h ABI %d: "
	          "emit it again\"\n"
	          "#endif\n",
	          name, CCPLAN_VERSION, fi->algorithm, coll, (long)fi->nranks,
	          (unsigned long)fi->nphases, (unsigned long)fi->lb_phases,
	          (unsigned long long)fi->plan_hash, key, name, EMIT_ABI, name,
	          EMIT_ABI);
}

/* The exported symbol. */
static void put_plan(struct tbuf *b, const char *name, const ir_file_info *fi,
                     const char *coll)
{
	tb_printf(b,
	          "\n/* The plan: ccp_plan_load_emitted(ctx, &%s, rank, "
	          "&plan). */\n"
	          "extern const struct ccp_emitted_plan %s;\n"
	          "const struct ccp_emitted_plan %s = {\n"
	          "\t.abi = %du,\n"
	          "\t.format = %uu,\n"
	          "\t.nranks = %ld,\n"
	          "\t.nphases = %luu,\n"
	          "\t.lb_phases = %luu,\n"
	          "\t.coll = %uu,\n"
	          "\t.plan_hash = UINT64_C(0x%016llx),\n"
	          "\t.input_hash = {",
	          name, name, name, EMIT_ABI, (unsigned)fi->version,
	          (long)fi->nranks, (unsigned long)fi->nphases,
	          (unsigned long)fi->lb_phases, (unsigned)fi->coll,
	          (unsigned long long)fi->plan_hash);
	for (int i = 0; i < 16; i++)
		tb_printf(b, "%s0x%02x",
		          i == 0 ? "" : i == 8 ? ",\n\t               " : ", ",
		          fi->input_hash[i]);
	tb_printf(b, "},\n\t.algorithm = ");
	tb_literal(b, fi->algorithm);
	tb_printf(b, ",\n\t.collective = ");
	tb_literal(b, coll);
	tb_printf(b, ",\n\t.ranks = %s_ranks,\n};\n", name);
}

int emit_c(const uint8_t *img, size_t len, const char *name, char **out,
           size_t *outlen, char *err, size_t errlen)
{
	ir_file_info fi;
	struct tbuf text = {0}, ops = {0}, iovs = {0}, ranks = {0};
	uint64_t op_at = 0, iov_at = 0;
	int rc;

	if (!out || !outlen)
		return CCP_EINVAL;
	*out = NULL;
	*outlen = 0;
	if (!emit_c_name_ok(name)) {
		snprintf(err, errlen,
		         "'%s' cannot be the plan's C symbol: want an "
		         "identifier of at most %d characters, not a keyword, "
		         "not starting with '_' or 'ccp_'",
		         name ? name : "", EMIT_C_NAME_MAX);
		return CCP_EINVAL;
	}
	/* the whole image once (plan hash, index); then each section
	 * alone, which checks its own checksum and contents */
	if ((rc = ir_image_check(img, len, &fi, err, errlen)) != 0)
		return rc;
	const char *coll = ir_coll_name(fi.coll);
	for (int32_t r = 0; r < fi.nranks; r++) {
		uint64_t index_off, off, size;
		ir_slice s;
		rc = ir_slice_locate(img, len, &fi, r, &index_off, err, errlen);
		if (!rc)
			rc = ir_slice_entry(img + index_off, &fi, &off, &size,
			                    err, errlen);
		if (!rc)
			rc = ir_slice_decode(img + off, size, &fi, r, &s, err,
			                     errlen);
		if (rc)
			goto out_free;
		put_rank(&ops, &iovs, &ranks, name, &s, &op_at, &iov_at);
		ir_slice_fini(&s);
	}

	put_head(&text, name, &fi, coll);
	if (op_at) {
		tb_printf(&text,
		          "\n/* Operations of every rank, rank by rank: code, "
		          "phase, peer, first iov\n * (in the rank's iovs), "
		          "iovs, bytes. */\n"
		          "static const struct ccp_emitted_op %s_ops[%llu] = "
		          "{\n",
		          name, (unsigned long long)op_at);
		tb_append(&text, &ops);
		tb_printf(&text, "};\n");
	}
	if (iov_at) {
		tb_printf(&text,
		          "\n/* Buffer pieces of every rank, rank by rank: "
		          "buffer, offset, length. */\n"
		          "static const struct ccp_emitted_iov %s_iovs[%llu] = "
		          "{\n",
		          name, (unsigned long long)iov_at);
		tb_append(&text, &iovs);
		tb_printf(&text, "};\n");
	}
	tb_printf(&text,
	          "\n/* Rank r's slice: send, receive and scratch bytes, "
	          "element type, reduction,\n * ops, iovs, and where they "
	          "start. */\n"
	          "static const struct ccp_emitted_rank %s_ranks[%ld] = {\n",
	          name, (long)fi.nranks);
	tb_append(&text, &ranks);
	tb_printf(&text, "};\n");
	put_plan(&text, name, &fi, coll);
	if (text.nomem) {
		snprintf(err, errlen, "out of memory");
		rc = CCP_ENOMEM;
		goto out_free;
	}
	*out = text.p;
	*outlen = text.len;
	text.p = NULL;
	rc = 0;
out_free:
	free(text.p);
	free(ops.p);
	free(iovs.p);
	free(ranks.p);
	return rc;
}
