/*
 * context.c - the runtime's context: the allocator every part of the
 * runtime and its backends allocates through, and the last error message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void *default_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	(void)ud;
	(void)osize;
	if (nsize == 0) {
		free(ptr);
		return NULL;
	}
	return realloc(ptr, nsize);
}

int ccp_init(ccp_context **ctx, ccp_alloc_fn alloc, void *ud)
{
	if (!ctx)
		return CCP_EINVAL;
	*ctx = NULL;
	if (!alloc)
		alloc = default_alloc;
	ccp_context *c = alloc(ud, NULL, 0, sizeof *c);
	if (!c)
		return CCP_ENOMEM;
	memset(c, 0, sizeof *c);
	c->alloc = alloc;
	c->ud = ud;
	*ctx = c;
	return 0;
}

void ccp_fini(ccp_context *ctx)
{
	if (!ctx)
		return;
	if (ctx->lookup_fini)
		ctx->lookup_fini(ctx);
	ctx->alloc(ctx->ud, ctx, sizeof *ctx, 0);
}

const char *ccp_errmsg(const ccp_context *ctx)
{
	return ctx ? ctx->msg : "no context";
}

void *ccp__alloc(ccp_context *ctx, size_t n)
{
	return ctx->alloc(ctx->ud, NULL, 0, n ? n : 1);
}

void *ccp__calloc(ccp_context *ctx, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	void *p = ccp__alloc(ctx, n * size);
	if (p)
		memset(p, 0, n * size > 0 ? n * size : 1);
	return p;
}

void *ccp__realloc(ccp_context *ctx, void *p, size_t oldn, size_t newn)
{
	return ctx->alloc(ctx->ud, p, p ? (oldn ? oldn : 1) : 0,
	                  newn ? newn : 1);
}

void ccp__free(ccp_context *ctx, void *p, size_t n)
{
	if (p)
		ctx->alloc(ctx->ud, p, n ? n : 1, 0);
}

int ccp__error(ccp_context *ctx, int code, const char *fmt, ...)
{
	if (ctx) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
		va_end(ap);
	}
	return code;
}

void ccp__ok(ccp_context *ctx)
{
	if (ctx)
		ctx->msg[0] = '\0';
}

/* ---- transports: the parts every backend shares --------------------- */

int32_t ccp_transport_rank(const ccp_transport *t)
{
	return t ? t->rank : -1;
}

int32_t ccp_transport_size(const ccp_transport *t)
{
	return t ? t->size : 0;
}

const char *ccp_transport_name(const ccp_transport *t)
{
	return t ? t->ops->name : "";
}

void ccp_transport_free(ccp_transport *t)
{
	if (!t)
		return;
	ccp__run_abandon(t);
	t->ops->destroy(t);
}
