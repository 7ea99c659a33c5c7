/*
 * guard.h - buffers with guard zones, for tests that hand buffers to the
 * runtime and must know that nothing outside them was read or written:
 * test_bad_plans runs hostile plans on them, the executing fuzz harness
 * every plan the loader accepts.
 *
 * GUARD_ZONE bytes before and after each buffer hold a known pattern.
 * Under AddressSanitizer the zones are also poisoned, so that the first
 * access to them is reported where it happens; without it, guard_intact
 * finds a write after the fact (a read goes unseen).
 */
#ifndef CCP_TEST_GUARD_H
#define CCP_TEST_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#define GUARD_ZONE 8192

/* A buffer of len bytes (len may be 0: a valid address with no byte of
 * its own) between two guard zones, its bytes set to fill; NULL when out
 * of memory.  Free with guard_free. */
void *guard_alloc(size_t len, unsigned char fill);
/* Whether both zones of p (from guard_alloc(len, ...)) are as written. */
bool guard_intact(void *p, size_t len);
void guard_free(void *p, size_t len);

#endif
