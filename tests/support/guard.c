/*
 * guard.c - buffers between guard zones (guard.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

#if defined(__SANITIZE_ADDRESS__)
#define GUARD_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GUARD_ASAN 1
#endif
#endif
#ifdef GUARD_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* The pattern of byte i of a zone: not one value, so that a copy of a
 * zone's bytes elsewhere does not look intact by chance. */
static unsigned char zone_byte(size_t i)
{
	return (unsigned char)(0xa5 ^ (i * 31));
}

void *guard_alloc(size_t len, unsigned char fill)
{
	if (len > SIZE_MAX - 2 * GUARD_ZONE)
		return NULL;
	unsigned char *b = malloc(len + 2 * GUARD_ZONE);
	if (!b)
		return NULL;
	for (size_t i = 0; i < GUARD_ZONE; i++)
		b[i] = b[GUARD_ZONE + len + i] = zone_byte(i);
	memset(b + GUARD_ZONE, fill, len);
	POISON(b, GUARD_ZONE);
	POISON(b + GUARD_ZONE + len, GUARD_ZONE);
	return b + GUARD_ZONE;
}

bool guard_intact(void *p, size_t len)
{
	unsigned char *b = (unsigned char *)p - GUARD_ZONE;
	UNPOISON(b, GUARD_ZONE);
	UNPOISON(b + GUARD_ZONE + len, GUARD_ZONE);
	bool ok = true;
	for (size_t i = 0; i < GUARD_ZONE && ok; i++)
		ok = b[i] == zone_byte(i) &&
		     b[GUARD_ZONE + len + i] == zone_byte(i);
	POISON(b, GUARD_ZONE);
	POISON(b + GUARD_ZONE + len, GUARD_ZONE);
	return ok;
}

void guard_free(void *p, size_t len)
{
	if (!p)
		return;
	unsigned char *b = (unsigned char *)p - GUARD_ZONE;
	UNPOISON(b, 2 * GUARD_ZONE + len);
	free(b);
}
