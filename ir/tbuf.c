/*
 * tbuf.c - the one growable byte buffer (tbuf.h): room is made by
 * doubling from 4 KiB, every append keeps a NUL after the bytes, and the
 * first failed growth sticks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccplan_errors.h"
#include "tbuf.h"

#define TB_FIRST_CAP  4096
#define TB_READ_CHUNK 65536 /* least room offered to each fread */

int tb_reserve(struct tbuf *b, size_t n)
{
	if (b->nomem)
		return CCP_ENOMEM;
	if (b->cap > b->len && b->cap - b->len > n)
		return 0;
	size_t cap = b->cap ? b->cap : TB_FIRST_CAP;
	while (cap - b->len <= n) {
		if (cap > SIZE_MAX / 2) {
			b->nomem = true;
			return CCP_ENOMEM;
		}
		cap *= 2;
	}
	char *q = realloc(b->p, cap);
	if (!q) {
		b->nomem = true;
		return CCP_ENOMEM;
	}
	b->p = q;
	b->cap = cap;
	return 0;
}

int tb_put(struct tbuf *b, const void *src, size_t n)
{
	int rc = tb_reserve(b, n);

	if (rc < 0)
		return rc;
	if (n)
		memcpy(b->p + b->len, src, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int tb_vprintf(struct tbuf *b, const char *fmt, va_list ap)
{
	va_list again;
	int rc = tb_reserve(b, 128), n;

	if (rc < 0)
		return rc;
	va_copy(again, ap);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	if (n < 0) {
		b->nomem = true;
		rc = CCP_EINVAL;
		goto out_end;
	}
	if ((size_t)n >= b->cap - b->len) {
		rc = tb_reserve(b, (size_t)n);
		if (rc < 0)
			goto out_end;
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, again);
	}
	b->len += (size_t)n;
out_end:
	va_end(again);
	return rc;
}

int tb_printf(struct tbuf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = tb_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

int tb_append(struct tbuf *b, const struct tbuf *src)
{
	if (src->nomem) {
		b->nomem = true;
		return CCP_ENOMEM;
	}
	if (src->len == 0)
		return 0;
	return tb_put(b, src->p, src->len);
}

int tb_read(struct tbuf *b, FILE *f, size_t max)
{
	for (;;) {
		int rc = tb_reserve(b, TB_READ_CHUNK);
		if (rc < 0)
			return rc;
		size_t got = fread(b->p + b->len, 1, b->cap - b->len - 1, f);
		b->len += got;
		b->p[b->len] = '\0';
		if (got == 0)
			break;
		if (b->len > max)
			return 0;
	}
	return ferror(f) ? CCP_EIO : 0;
}

char *tb_take(struct tbuf *b, size_t *len)
{
	char *p = b->p, *shrunk;

	if (b->nomem || !p) {
		tb_free(b);
		return NULL;
	}
	if (len)
		*len = b->len;
	shrunk = realloc(p, b->len + 1);
	memset(b, 0, sizeof *b);
	return shrunk ? shrunk : p;
}

void tb_free(struct tbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}
