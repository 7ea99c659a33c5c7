/*
 * emit_c.h - a plan as C source: `ccplan compile --emit c`.  The file is
 * made from the encoded .ccp image, rank section by rank section, so the
 * tables it holds are exactly what ccp_plan_load_file would load; its one
 * exported symbol is a `struct ccp_emitted_plan` (include/ccplan_emitted.h,
 * docs/emit-c.md).
 */
#ifndef CCP_EMIT_C_H
#define CCP_EMIT_C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tbuf.h" /* the text is written into a struct tbuf */

/* Append s as a C string literal: letters, digits and a few safe marks
 * as they are, everything else as a three-digit octal escape (so no
 * trigraph, quote or backslash sequence can appear). */
void tb_literal(struct tbuf *b, const char *s);

/* Longest symbol name accepted, without its NUL. */
#define EMIT_C_NAME_MAX 63

/* Whether name can be the exported symbol: a C identifier of at most
 * EMIT_C_NAME_MAX characters that is not a keyword and does not start
 * with '_' or "ccp_" (the runtime's names). */
bool emit_c_name_ok(const char *name);

/* The symbol name for an output file path: its base name without ".c",
 * every character that cannot be in an identifier replaced by '_', with
 * "plan_" in front when the result would not be emit_c_name_ok.  buf
 * gets at most EMIT_C_NAME_MAX + 1 bytes. */
void emit_c_name_from_path(const char *path, char buf[EMIT_C_NAME_MAX + 1]);

/* The C source of the plan image img (len bytes, checked here as a whole
 * image first) with the exported symbol name, into *out (malloc'd, NUL
 * terminated, *outlen bytes without the NUL; the caller frees it).
 * CCP_EINVAL for a name that is not emit_c_name_ok; the codec's error for
 * an image that does not check, with the reason in err. */
int emit_c(const uint8_t *img, size_t len, const char *name, char **out,
           size_t *outlen, char *err, size_t errlen);

#endif
