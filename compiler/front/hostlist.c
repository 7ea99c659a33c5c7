/*
 * hostlist.c - Slurm's compressed host lists (hostlist.h): expansion of
 * "pre[1-4,07-09]post" items into names, a hash index over them, and the
 * order-keeping compression that writes a list back.  The rules follow
 * Slurm's documented hostlist expressions (topology.conf(5),
 * Slurm::Hostlist(3pm): a prefix, then numbers and ranges in brackets);
 * the 3-D "123x456" boxes of old Blue Gene systems are not read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccplan_errors.h"
#include "hostlist.h"

/* Digits of a number in brackets, at most: values stay below 10^9. */
#define HL_DIGITS 9
/* Bracket groups in one item. */
#define HL_GROUPS 8

void hostlist_init(struct hostlist *h, bool unique)
{
	memset(h, 0, sizeof *h);
	h->unique = unique;
}

void hostlist_fini(struct hostlist *h)
{
	bool unique = h->unique;

	tb_free(&h->chars);
	free(h->off);
	free(h->item);
	free(h->slot);
	hostlist_init(h, unique);
}

const char *hostlist_name(const struct hostlist *h, int32_t i)
{
	return h->chars.p + h->off[i];
}

bool hostlist_is_name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("-_.:+@/", c) != NULL);
}

/* FNV-1a of s[0..len): the hash of the index. */
static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t x = 2166136261u;

	for (size_t i = 0; i < len; i++)
		x = (x ^ (unsigned char)s[i]) * 16777619u;
	return x;
}

/* The slot of s[0..len) in h's table: the one holding it, or the empty
 * one where it would go.  The table is never full (grow_table). */
static uint32_t find_slot(const struct hostlist *h, const char *s, size_t len)
{
	uint32_t mask = h->nslot - 1, i = name_hash(s, len) & mask;

	while (h->slot[i]) {
		const char *t = hostlist_name(h, h->slot[i] - 1);
		if (!strncmp(t, s, len) && t[len] == '\0')
			return i;
		i = (i + 1) & mask;
	}
	return i;
}

/* Keep the table at most half full: 0 or CCP_ENOMEM. */
static int grow_table(struct hostlist *h)
{
	uint32_t n = h->nslot ? h->nslot : 64;
	int32_t *old = h->slot;
	uint32_t nold = h->nslot;

	if ((uint64_t)(h->count + 1) * 2 <= h->nslot)
		return 0;
	while ((uint64_t)(h->count + 1) * 2 > n)
		n *= 2;
	if (!(h->slot = calloc(n, sizeof *h->slot))) {
		h->slot = old;
		return CCP_ENOMEM;
	}
	h->nslot = n;
	for (uint32_t i = 0; i < nold; i++) {
		if (!old[i])
			continue;
		const char *t = hostlist_name(h, old[i] - 1);
		h->slot[find_slot(h, t, strlen(t))] = old[i];
	}
	free(old);
	return 0;
}

int32_t hostlist_find(const struct hostlist *h, const char *name)
{
	if (!h->nslot)
		return -1;
	uint32_t i = find_slot(h, name, strlen(name));
	return h->slot[i] - 1;
}

int hostlist_add(struct hostlist *h, const char *s, size_t len, int32_t *first)
{
	size_t at = h->chars.len;
	uint32_t i;

	if (len == 0 || len > HOSTLIST_NAME_MAX || h->count == INT32_MAX)
		return CCP_EINVAL;
	if (grow_table(h) < 0)
		return CCP_ENOMEM;
	i = find_slot(h, s, len);
	if (h->slot[i] && h->unique) {
		if (first)
			*first = h->slot[i] - 1;
		return CCP_EINVAL;
	}
	if (h->count == h->cap) {
		int32_t cap = h->cap ? (h->cap > INT32_MAX / 2 ? INT32_MAX
		                                               : h->cap * 2)
		                     : 16;
		uint32_t *off = realloc(h->off, (size_t)cap * sizeof *off);
		if (!off)
			return CCP_ENOMEM;
		h->off = off;
		uint32_t *item = realloc(h->item, (size_t)cap * sizeof *item);
		if (!item)
			return CCP_ENOMEM;
		h->item = item;
		h->cap = cap;
	}
	if (tb_put(&h->chars, s, len) < 0 || tb_put(&h->chars, "", 1) < 0)
		return CCP_ENOMEM;
	if (at > UINT32_MAX) {
		h->chars.len = at;
		return CCP_ENOMEM;
	}
	h->off[h->count] = (uint32_t)at;
	h->item[h->count] = 0;
	if (!h->slot[i]) /* a repeat keeps finding its first position */
		h->slot[i] = h->count + 1;
	h->count++;
	return 0;
}

/* Drop the names from position keep on (a failed call's). */
static void truncate_to(struct hostlist *h, int32_t keep)
{
	while (h->count > keep) {
		const char *t = hostlist_name(h, h->count - 1);
		uint32_t i = find_slot(h, t, strlen(t));
		/* linear probing: re-insert the names after the hole */
		if (h->slot[i] == h->count) {
			uint32_t mask = h->nslot - 1;
			h->slot[i] = 0;
			for (uint32_t j = (i + 1) & mask; h->slot[j];
			     j = (j + 1) & mask) {
				int32_t v = h->slot[j];
				const char *u = hostlist_name(h, v - 1);
				h->slot[j] = 0;
				h->slot[find_slot(h, u, strlen(u))] = v;
			}
		}
		h->chars.len = h->off[h->count - 1];
		h->count--;
	}
	if (h->chars.p)
		h->chars.p[h->chars.len] = '\0';
}

/* One range of a bracket group: lo..hi, printed with width digits. */
struct range {
	uint32_t lo, hi;
	int width;
};

/* The parse of one item: literal text around up to HL_GROUPS bracket
 * groups; group g's ranges are r[first[g] .. first[g + 1]). */
struct item {
	const char *lit[HL_GROUPS + 1]; /* literal before group g, and after */
	size_t litlen[HL_GROUPS + 1];
	int ngroups;
	struct range *r;
	size_t nr, cap;
	size_t first[HL_GROUPS + 1];
};

/* Fail at offset at of the text. */
static int fail(struct hostlist_error *e, size_t at, const char *why,
                const char *detail)
{
	e->at = at;
	snprintf(e->why, sizeof e->why, "%s%s", why, detail ? detail : "");
	return CCP_EPARSE;
}

/* A number of 1..HL_DIGITS digits at s + *p: its value and width. */
static int read_number(const char *s, size_t *p, uint32_t *v, int *width,
                       struct hostlist_error *e)
{
	size_t i = *p;
	uint32_t x = 0;

	if (s[i] < '0' || s[i] > '9')
		return fail(e, i,
		            "expected a number or a range lo-hi in brackets",
		            NULL);
	while (s[i] >= '0' && s[i] <= '9') {
		if (i - *p == HL_DIGITS)
			return fail(e, *p, "number with more than 9 digits",
			            NULL);
		x = x * 10 + (uint32_t)(s[i] - '0');
		i++;
	}
	*width = (int)(i - *p);
	*v = x;
	*p = i;
	return 0;
}

/* The bracket group at s + *p (at its '['), appended to it. */
static int read_group(const char *s, size_t *p, struct item *it,
                      struct hostlist_error *e)
{
	size_t open = *p, i = *p + 1;
	int rc;

	for (;;) {
		struct range r;
		size_t at = i;
		int w2;
		if (!s[i])
			return fail(e, open, "'[' is never closed", NULL);
		if ((rc = read_number(s, &i, &r.lo, &r.width, e)) < 0)
			return rc;
		r.hi = r.lo;
		if (s[i] == '-') {
			i++;
			if (!s[i])
				return fail(e, open, "'[' is never closed",
				            NULL);
			if ((rc = read_number(s, &i, &r.hi, &w2, e)) < 0)
				return rc;
			if (r.hi < r.lo)
				return fail(e, at,
				            "range goes down (write lo-hi, lo "
				            "<= hi)",
				            NULL);
		}
		if (it->nr == it->cap) {
			size_t cap = it->cap ? it->cap * 2 : 8;
			struct range *n = realloc(it->r, cap * sizeof *n);
			if (!n)
				return CCP_ENOMEM;
			it->r = n;
			it->cap = cap;
		}
		it->r[it->nr++] = r;
		if (s[i] == ',') {
			i++;
			continue;
		}
		if (s[i] == ']')
			break;
		if (!s[i])
			return fail(e, open, "'[' is never closed", NULL);
		return fail(e, i, "expected ',', '-' or ']' in brackets", NULL);
	}
	*p = i + 1;
	return 0;
}

/* Is c a separator of items? */
static bool is_sep(int c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Parse the item at s + *p into it; *p moves past it. */
static int read_item(const char *s, size_t *p, struct item *it,
                     struct hostlist_error *e)
{
	size_t i = *p, start = *p;
	int rc;
	char c[8];

	it->ngroups = 0;
	it->nr = 0;
	it->lit[0] = s + i;
	while (s[i] && !is_sep(s[i])) {
		if (s[i] == '[') {
			int g = it->ngroups;
			if (g == HL_GROUPS)
				return fail(e, i,
				            "more than 8 bracket groups in one "
				            "name",
				            NULL);
			it->litlen[g] = (size_t)(s + i - it->lit[g]);
			it->first[g] = it->nr;
			if ((rc = read_group(s, &i, it, e)) < 0)
				return rc;
			it->ngroups++;
			it->lit[it->ngroups] = s + i;
			continue;
		}
		if (s[i] == ']')
			return fail(e, i, "']' without '['", NULL);
		if (!hostlist_is_name_char((unsigned char)s[i])) {
			if ((unsigned char)s[i] >= 0x20 &&
			    (unsigned char)s[i] < 0x7f)
				snprintf(c, sizeof c, "'%c'", s[i]);
			else
				snprintf(c, sizeof c, "0x%02x",
				         (unsigned char)s[i]);
			return fail(e, i, "a host name may not hold ", c);
		}
		i++;
	}
	it->litlen[it->ngroups] = (size_t)(s + i - it->lit[it->ngroups]);
	it->first[it->ngroups] = it->nr;
	if (i == start)
		return fail(e, i, "empty host name", NULL);
	*p = i;
	return 0;
}

/* How many names item it gives, capped at limit + 1. */
static uint64_t item_count(const struct item *it, uint64_t limit)
{
	uint64_t n = 1;

	for (int g = 0; g < it->ngroups; g++) {
		uint64_t k = 0;
		for (size_t j = it->first[g]; j < it->first[g + 1]; j++) {
			k += (uint64_t)it->r[j].hi - it->r[j].lo + 1;
			if (k > limit)
				return limit + 1;
		}
		n *= k; /* n, k <= limit < 2^31: no overflow */
		if (n > limit)
			return limit + 1;
	}
	return n;
}

/* Append the names of a parsed item (at offset at of the text). */
static int expand_item(struct hostlist *h, const struct item *it, size_t at,
                       struct hostlist_error *e)
{
	size_t pos[HL_GROUPS] = {0};   /* each group's current range */
	uint32_t val[HL_GROUPS] = {0}; /* and value in it */
	char name[HOSTLIST_NAME_MAX + 1];
	int32_t first;
	int rc;

	for (int g = 0; g < it->ngroups; g++) {
		pos[g] = it->first[g];
		val[g] = it->r[pos[g]].lo;
	}
	for (;;) {
		size_t n = 0;
		bool long_name = false;
		for (int g = 0; g <= it->ngroups; g++) {
			if (n + it->litlen[g] > HOSTLIST_NAME_MAX) {
				long_name = true;
				break;
			}
			memcpy(name + n, it->lit[g], it->litlen[g]);
			n += it->litlen[g];
			if (g == it->ngroups)
				break;
			int k = snprintf(name + n, sizeof name - n, "%0*u",
			                 it->r[pos[g]].width, val[g]);
			if (k < 0 || n + (size_t)k > HOSTLIST_NAME_MAX) {
				long_name = true;
				break;
			}
			n += (size_t)k;
		}
		if (long_name)
			return fail(e, at,
			            "host name longer than 255 characters",
			            NULL);
		name[n] = '\0';
		rc = hostlist_add(h, name, n, &first);
		if (rc == 0)
			h->item[h->count - 1] =
			        at > UINT32_MAX ? UINT32_MAX : (uint32_t)at;
		if (rc == CCP_EINVAL) {
			char d[HOSTLIST_NAME_MAX + 48];
			snprintf(d, sizeof d, "'%s' is listed twice", name);
			return fail(e, at, "host ", d);
		}
		if (rc < 0)
			return rc;
		/* the odometer: the last group varies fastest */
		int g = it->ngroups - 1;
		for (; g >= 0; g--) {
			if (val[g] < it->r[pos[g]].hi) {
				val[g]++;
				break;
			}
			if (pos[g] + 1 < it->first[g + 1]) {
				pos[g]++;
				val[g] = it->r[pos[g]].lo;
				break;
			}
			pos[g] = it->first[g];
			val[g] = it->r[pos[g]].lo;
		}
		if (g < 0)
			return 0;
	}
}

int hostlist_expand(struct hostlist *h, const char *s, int32_t max,
                    struct hostlist_error *e)
{
	struct item it = {0};
	int32_t keep = h->count;
	size_t i = 0;
	int rc = 0;

	memset(e, 0, sizeof *e);
	while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
		i++;
	if (!s[i]) {
		rc = fail(e, i, "no host name", NULL);
		goto out_free;
	}
	while (s[i]) {
		size_t at = i;
		if ((rc = read_item(s, &i, &it, e)) < 0)
			goto out_free;
		uint64_t room = max > h->count ? (uint64_t)(max - h->count) : 0;
		if (item_count(&it, room) > room) {
			char d[48];
			snprintf(d, sizeof d, " (at most %d)", (int)max);
			fail(e, at, "too many host names", d);
			rc = CCP_ERANGE;
			goto out_free;
		}
		if ((rc = expand_item(h, &it, at, e)) < 0)
			goto out_free;
		/* blanks, then at most one comma, then blanks */
		bool comma = false;
		while (is_sep(s[i])) {
			if (s[i] == ',' && comma) {
				rc = fail(e, i, "empty host name", NULL);
				goto out_free;
			}
			comma |= s[i] == ',';
			i++;
		}
		if (comma && !s[i]) {
			rc = fail(e, i, "empty host name after ','", NULL);
			goto out_free;
		}
	}
out_free:
	if (rc < 0)
		truncate_to(h, keep);
	free(it.r);
	return rc;
}

/* A name's trailing number: the prefix length, the digits' value and
 * count; false if it has no trailing digits or more than HL_DIGITS. */
static bool split_number(const char *t, size_t *plen, uint32_t *v, int *w)
{
	size_t n = strlen(t), i = n;
	uint32_t x = 0;

	*plen = n; /* no number: the whole name, value and width 0 */
	*v = 0;
	*w = 0;
	while (i > 0 && t[i - 1] >= '0' && t[i - 1] <= '9')
		i--;
	if (i == n || n - i > HL_DIGITS)
		return false;
	for (size_t j = i; j < n; j++)
		x = x * 10 + (uint32_t)(t[j] - '0');
	*plen = i;
	*v = x;
	*w = (int)(n - i);
	return true;
}

/* Digits printing v with width w ("%0*u") would use. */
static int digits_of(uint32_t v, int w)
{
	int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d > w ? d : w;
}

char *hostlist_ranged(const struct hostlist *h, int32_t from, int32_t n)
{
	struct tbuf out = {0};
	int32_t i = from, end = from + n;

	while (i < end) {
		const char *t = hostlist_name(h, i);
		size_t plen;
		uint32_t v;
		int w;
		if (out.len)
			tb_put(&out, ",", 1);
		if (!split_number(t, &plen, &v, &w)) {
			tb_printf(&out, "%s", t);
			i++;
			continue;
		}
		/* the names of this prefix that follow: one group */
		int32_t j = i + 1;
		size_t pl2;
		uint32_t v2;
		int w2;
		while (j < end) {
			const char *u = hostlist_name(h, j);
			if (!split_number(u, &pl2, &v2, &w2) || pl2 != plen ||
			    strncmp(u, t, plen) != 0)
				break;
			j++;
		}
		if (j == i + 1) {
			tb_printf(&out, "%s", t);
			i++;
			continue;
		}
		tb_printf(&out, "%.*s[", (int)plen, t);
		bool firstr = true;
		while (i < j) {
			split_number(hostlist_name(h, i), &plen, &v, &w);
			/* a range: consecutive values printed at width w */
			int32_t k = i + 1;
			uint32_t last = v;
			while (k < j && last < UINT32_MAX) {
				split_number(hostlist_name(h, k), &pl2, &v2,
				             &w2);
				if (v2 != last + 1 || w2 != digits_of(v2, w))
					break;
				last = v2;
				k++;
			}
			tb_printf(&out, "%s%0*u", firstr ? "" : ",", w, v);
			if (last != v)
				tb_printf(&out, "-%0*u", w, last);
			firstr = false;
			i = k;
		}
		tb_put(&out, "]", 1);
	}
	if (out.nomem) {
		tb_free(&out);
		return NULL;
	}
	if (!out.p)
		return strdup("");
	return tb_take(&out, NULL);
}
