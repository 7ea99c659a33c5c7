/*
 * hostlist.h - Slurm's compressed lists of host names, "n[0-15,32-47]",
 * "login,r[1-2]n[01-16]": expanded into a list of names with a hash index
 * (name -> position), and a list compressed back into the shortest
 * hostlist that keeps its order.  machine.hosts, a placement by node
 * names and `ccplan import slurm` read and write names this way; the
 * syntax is in docs/input-format.md, "Host lists".
 *
 * Library code: functions return 0 or a negative CCP_E* code and never
 * print.
 */
#ifndef CCP_FRONT_HOSTLIST_H
#define CCP_FRONT_HOSTLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tbuf.h"

/* Longest host name, in bytes (a DNS name is at most 253). */
#define HOSTLIST_NAME_MAX 255

/* A list of host names in order, with a hash index.  Zero-initialised
 * storage is an empty list that accepts repeated names; hostlist_init
 * says whether it does. */
struct hostlist {
	struct tbuf chars;  /* the names, each followed by its NUL */
	uint32_t *off;      /* where name i starts in chars.p */
	uint32_t *item;     /* where the item that gave name i starts in the
	                       text of its hostlist_expand (0 if added) */
	int32_t count, cap; /* names, and room in off */
	int32_t *slot;      /* open-addressing table: index + 1, 0 empty */
	uint32_t nslot;     /* its size, a power of two (0: none yet) */
	bool unique;        /* a name given twice is an error */
};

/* Where and why an expansion failed: at is the byte offset of the fault
 * in the text given to hostlist_expand (0-based; a caller adds it to the
 * text's column), why says what is wrong. */
struct hostlist_error {
	size_t at;
	char why[360];
};

/* An empty list; unique: refuse a name given twice (hostlist_add,
 * hostlist_expand).  Release with hostlist_fini. */
void hostlist_init(struct hostlist *h, bool unique);
/* Free h's memory; h is an empty list again (same unique setting). */
void hostlist_fini(struct hostlist *h);

/* The i-th name (0 <= i < h->count), borrowed from h. */
const char *hostlist_name(const struct hostlist *h, int32_t i);
/* The position of name in h, or -1: by hash, not a scan. */
int32_t hostlist_find(const struct hostlist *h, const char *name);

/* Is c a character a host name may hold (letters, digits, and
 * "-_.:+@/")?  Commas, brackets, spaces and quotes are not: they would
 * not survive a hostlist. */
bool hostlist_is_name_char(int c);

/* Append the name s[0..len) (checked by the caller).  0; CCP_EINVAL if
 * h is unique and holds the name already (*first = its position, when
 * first is not NULL) or if len is 0 or more than HOSTLIST_NAME_MAX;
 * CCP_ENOMEM. */
int hostlist_add(struct hostlist *h, const char *s, size_t len, int32_t *first);

/* Append the names of hostlist text s (NUL-terminated): items separated
 * by commas or blanks, each a name with bracket groups of numbers and
 * ranges, "n[1-4,7]"; a range keeps the zero padding of its first
 * number, "n[01-16]"; several groups in an item multiply out, the last
 * varying fastest, "r[1-2]n[1-3]".  At most max names in h afterwards.
 * 0; CCP_EPARSE with *e filled (h is left as it was before the
 * call); CCP_ERANGE, *e filled too, when the names would
 * be more than max; CCP_ENOMEM. */
int hostlist_expand(struct hostlist *h, const char *s, int32_t max,
                    struct hostlist_error *e);

/* The names h[from .. from + n) as the shortest hostlist this compressor
 * finds that expands back to exactly them in the same order ("n[0-3,8],
 * login"): consecutive names of one prefix share a bracket group, runs
 * of consecutive numbers become ranges.  A malloc'd string (the
 * caller's), or NULL when out of memory. */
char *hostlist_ranged(const struct hostlist *h, int32_t from, int32_t n);

#endif
