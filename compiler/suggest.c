/*
 * suggest.c - "did you mean": the restricted Damerau-Levenshtein distance
 * (optimal string alignment) over names folded to one case and one
 * separator, a threshold that grows with the name's length, and a unique
 * prefix as the fallback.  Names are short (keys, algorithms, options),
 * so three rows of SUGGEST_MAX_LEN + 1 on the stack are enough.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "suggest.h"

/* c folded for comparison: ASCII lower case, '-' as '_'. */
static char fold(char c)
{
	if (c >= 'A' && c <= 'Z')
		return (char)(c - 'A' + 'a');
	return c == '-' ? '_' : c;
}

static size_t min2(size_t a, size_t b)
{
	return a < b ? a : b;
}

size_t suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	/* rows i-2, i-1 and i of the table d[i][j] */
	size_t r0[SUGGEST_MAX_LEN + 1], r1[SUGGEST_MAX_LEN + 1],
	        r2[SUGGEST_MAX_LEN + 1];
	size_t *pp = r0, *p = r1, *c = r2;

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		p[j] = j;
	for (size_t i = 1; i <= la; i++) {
		char ai = fold(a[i - 1]);
		c[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			char bj = fold(b[j - 1]);
			size_t m = min2(p[j] + 1, c[j - 1] + 1);
			m = min2(m, p[j - 1] + (ai != bj));
			if (i > 1 && j > 1 && ai == fold(b[j - 2]) &&
			    fold(a[i - 2]) == bj)
				m = min2(m, pp[j - 2] + 1);
			c[j] = m;
		}
		size_t *t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[lb];
}

size_t suggest_limit(size_t len)
{
	return len <= 3 ? 1 : len <= 9 ? 2 : 3;
}

/* Does s begin name, folded? */
static bool begins(const char *name, const char *s)
{
	for (; *s; s++, name++)
		if (!*name || fold(*name) != fold(*s))
			return false;
	return true;
}

const char *suggest_nearest(const char *s, const char *const *names,
                            size_t count)
{
	const char *best = NULL, *prefix = NULL;
	size_t bestd = SIZE_MAX, nprefix = 0;

	if (!s || !*s)
		return NULL;
	for (size_t i = 0; i < count; i++) {
		const char *n = names[i];
		if (!n || !*n)
			continue;
		if (strcmp(n, s) == 0)
			return NULL; /* a valid name: nothing to suggest */
		size_t len = strlen(n);
		size_t d = suggest_distance(s, n);
		if (d <= suggest_limit(len) && d < len && d < bestd) {
			best = n;
			bestd = d;
		}
		if (strlen(s) >= 3 && begins(n, s) &&
		    (!prefix || strcmp(prefix, n) != 0)) {
			prefix = n;
			nprefix++;
		}
	}
	if (best)
		return best;
	return nprefix == 1 ? prefix : NULL;
}

/* Is c a character of an option word? */
static bool opt_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_';
}

const char *suggest_option(const char *arg, const char *help, char *buf,
                           size_t cap)
{
	char want[SUGGEST_MAX_LEN + 1], word[SUGGEST_MAX_LEN + 1];
	const char *best = NULL;
	size_t bestd = SIZE_MAX, bestlen = 0, n = 0;
	size_t adash = arg && arg[0] == '-' ? (arg[1] == '-' ? 2 : 1) : 0;

	if (adash == 0 || !help || cap == 0)
		return NULL;
	while (arg[adash + n] && arg[adash + n] != '=' && n < SUGGEST_MAX_LEN)
		n++;
	if (n == 0)
		return NULL;
	memcpy(want, arg + adash, n);
	want[n] = '\0';
	for (const char *h = help; *h; h++) {
		/* an option starts a word: "-x", "--long", "[--long" */
		if (*h != '-' || (h > help && opt_char(h[-1])))
			continue;
		size_t dash = h[1] == '-' ? 2 : 1, k = 0;
		const char *w = h + dash;
		if (!((*w >= 'a' && *w <= 'z') || (*w >= 'A' && *w <= 'Z')))
			continue;
		while (opt_char(w[k]) && k < SUGGEST_MAX_LEN)
			k++;
		memcpy(word, w, k);
		word[k] = '\0';
		size_t d = suggest_distance(want, word);
		if (d == 0 && dash == adash && strcmp(want, word) == 0)
			return NULL; /* a real option, refused for another
			                reason */
		if (d <= suggest_limit(k) && d < k && d < bestd) {
			best = h;
			bestd = d;
			bestlen = dash + k;
		}
		h = w + k - 1;
	}
	if (!best)
		return NULL;
	if (bestlen >= cap)
		bestlen = cap - 1;
	memcpy(buf, best, bestlen);
	buf[bestlen] = '\0';
	return buf;
}
