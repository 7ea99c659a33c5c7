/*
 * tbuf.h - the one growable byte buffer: text (the C emitter, the plots,
 * the reports, the canonical form of an input) and binary bytes (the
 * plan codec) are appended to it, and it doubles as it fills.  A failed
 * growth sticks: every later append does nothing, so a writer of many
 * pieces checks once at the end (nomem) instead of after each piece.
 * Library code: nothing here aborts or prints.
 */
#ifndef CCP_TBUF_H
#define CCP_TBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A growing buffer; zero-initialise ({0} or {NULL, 0, 0, false}). */
struct tbuf {
	char *p;         /* the bytes, NUL-terminated after each append */
	size_t len, cap; /* bytes used (without the NUL), allocated */
	bool nomem;      /* sticky: a failed growth drops every later write,
	                    and the caller checks it once at the end */
};

#if defined(__GNUC__)
#define TB_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TB_PRINTF(fmt, args)
#endif

/* Make room for n more bytes and a NUL: 0, or CCP_ENOMEM (nomem set). */
int tb_reserve(struct tbuf *b, size_t n);
/* Append n bytes of src (borrowed): 0, or CCP_ENOMEM. */
int tb_put(struct tbuf *b, const void *src, size_t n);
/* Append formatted text: 0, or CCP_ENOMEM (CCP_EINVAL if the format
 * itself fails); either failure sets nomem. */
int tb_printf(struct tbuf *b, const char *fmt, ...) TB_PRINTF(2, 3);
/* tb_printf with a va_list (consumed). */
int tb_vprintf(struct tbuf *b, const char *fmt, va_list ap);
/* Append src's bytes (borrowed); a src that ran out of memory passes
 * that on to b. */
int tb_append(struct tbuf *b, const struct tbuf *src);
/* Append what is left of f, stopping once b holds more than max bytes
 * (the caller compares len with max to refuse a larger input): 0,
 * CCP_EIO if reading failed (errno as fread left it), or CCP_ENOMEM. */
int tb_read(struct tbuf *b, FILE *f, size_t max);
/* Hand the bytes over: the caller frees the result (NUL-terminated,
 * *len bytes before the NUL if len is not NULL), and b is empty again.
 * The memory is cut to fit when it can be.  NULL if b ran out of memory
 * (b is then freed) or holds nothing. */
char *tb_take(struct tbuf *b, size_t *len);
/* Free the bytes and empty b. */
void tb_free(struct tbuf *b);

#endif
