/*
 * json_read.h - a small strict JSON reader for the tests: it parses what
 * json_export writes back into a tree, so a test can compare every key
 * with the plan instead of matching text.  Objects, arrays, strings
 * (escapes \" \\ \/ \b \f \n \r \t \uXXXX below 0x80), numbers (kept as
 * text and as a double), true, false, null.  Anything else, or trailing
 * bytes other than whitespace, is a parse error.
 */
#ifndef CCP_TEST_JSON_READ_H
#define CCP_TEST_JSON_READ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum jr_kind { JR_NULL, JR_BOOL, JR_NUM, JR_STR, JR_ARR, JR_OBJ };

/* A value.  Arrays and objects hold their children (objects: key
 * strings in keys[k], values in kids[k]). */
struct jr {
	enum jr_kind kind;
	bool b;          /* JR_BOOL */
	double num;      /* JR_NUM */
	int64_t i;       /* JR_NUM, when it is an integer */
	char *str;       /* JR_STR (malloc'd, NUL-terminated) */
	struct jr **kids; /* JR_ARR, JR_OBJ */
	char **keys;     /* JR_OBJ */
	size_t n;        /* children */
};

struct jr_in {
	const char *s, *end;
	int depth;
};

static void jr_free(struct jr *v)
{
	if (!v)
		return;
	for (size_t k = 0; k < v->n; k++) {
		jr_free(v->kids[k]);
		if (v->keys)
			free(v->keys[k]);
	}
	free(v->kids);
	free(v->keys);
	free(v->str);
	free(v);
}

static void jr_ws(struct jr_in *in)
{
	while (in->s < in->end && strchr(" \t\r\n", *in->s))
		in->s++;
}

/* A string at in->s (the opening quote); malloc'd, or NULL on error. */
static char *jr_string(struct jr_in *in)
{
	if (in->s >= in->end || *in->s != '"')
		return NULL;
	in->s++;
	size_t cap = 16, n = 0;
	char *out = malloc(cap);
	while (out && in->s < in->end && *in->s != '"') {
		char c = *in->s++;
		if ((unsigned char)c < 0x20)
			goto bad;
		if (c == '\\') {
			if (in->s >= in->end)
				goto bad;
			c = *in->s++;
			switch (c) {
			case '"': case '\\': case '/': break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u': {
				unsigned v = 0;
				for (int k = 0; k < 4; k++, in->s++) {
					if (in->s >= in->end)
						goto bad;
					char h = *in->s;
					int d = h >= '0' && h <= '9'   ? h - '0'
					        : h >= 'a' && h <= 'f' ? h - 'a' + 10
					        : h >= 'A' && h <= 'F' ? h - 'A' + 10
					                               : -1;
					if (d < 0)
						goto bad;
					v = v * 16 + (unsigned)d;
				}
				if (v >= 0x80)
					goto bad;
				c = (char)v;
				break;
			}
			default:
				goto bad;
			}
		}
		if (n + 2 > cap) {
			char *q = realloc(out, cap *= 2);
			if (!q)
				goto bad;
			out = q;
		}
		out[n++] = c;
	}
	if (!out || in->s >= in->end)
		goto bad;
	in->s++;
	out[n] = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

static struct jr *jr_value(struct jr_in *in);

/* Append child v (and key k, for objects) to p; false if out of memory. */
static bool jr_push(struct jr *p, struct jr *v, char *k)
{
	struct jr **kids = realloc(p->kids, (p->n + 1) * sizeof *kids);
	if (!kids)
		return false;
	p->kids = kids;
	if (p->kind == JR_OBJ) {
		char **keys = realloc(p->keys, (p->n + 1) * sizeof *keys);
		if (!keys)
			return false;
		p->keys = keys;
		keys[p->n] = k;
	}
	kids[p->n++] = v;
	return true;
}

static struct jr *jr_value(struct jr_in *in)
{
	jr_ws(in);
	if (in->s >= in->end || ++in->depth > 64)
		return NULL;
	struct jr *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	char c = *in->s;
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		v->kind = c == '{' ? JR_OBJ : JR_ARR;
		in->s++;
		jr_ws(in);
		if (in->s < in->end && *in->s == close) {
			in->s++;
			goto done;
		}
		for (;;) {
			char *key = NULL;
			if (v->kind == JR_OBJ) {
				jr_ws(in);
				if (!(key = jr_string(in)))
					goto bad;
				jr_ws(in);
				if (in->s >= in->end || *in->s++ != ':') {
					free(key);
					goto bad;
				}
			}
			struct jr *kid = jr_value(in);
			if (!kid || !jr_push(v, kid, key)) {
				jr_free(kid);
				free(key);
				goto bad;
			}
			jr_ws(in);
			if (in->s < in->end && *in->s == ',') {
				in->s++;
				continue;
			}
			if (in->s < in->end && *in->s == close) {
				in->s++;
				break;
			}
			goto bad;
		}
	} else if (c == '"') {
		v->kind = JR_STR;
		if (!(v->str = jr_string(in)))
			goto bad;
	} else if (in->end - in->s >= 4 && !memcmp(in->s, "true", 4)) {
		v->kind = JR_BOOL;
		v->b = true;
		in->s += 4;
	} else if (in->end - in->s >= 5 && !memcmp(in->s, "false", 5)) {
		v->kind = JR_BOOL;
		in->s += 5;
	} else if (in->end - in->s >= 4 && !memcmp(in->s, "null", 4)) {
		in->s += 4;
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		char buf[64];
		size_t n = strspn(in->s, "-+0123456789.eE");
		if (n >= sizeof buf || (size_t)(in->end - in->s) < n)
			goto bad;
		memcpy(buf, in->s, n);
		buf[n] = '\0';
		char *e;
		v->kind = JR_NUM;
		v->num = strtod(buf, &e);
		if (*e)
			goto bad;
		v->i = strtoll(buf, &e, 10);
		in->s += n;
	} else {
		goto bad;
	}
done:
	in->depth--;
	return v;
bad:
	jr_free(v);
	return NULL;
}

/* Parse text[0..len) whole; NULL if it is not one JSON value. */
static struct jr *jr_parse(const char *text, size_t len)
{
	struct jr_in in = {text, text + len, 0};
	struct jr *v = jr_value(&in);
	jr_ws(&in);
	if (v && in.s != in.end) {
		jr_free(v);
		return NULL;
	}
	return v;
}

/* The value of key in object o, or NULL. */
static const struct jr *jr_get(const struct jr *o, const char *key)
{
	if (!o || o->kind != JR_OBJ)
		return NULL;
	for (size_t k = 0; k < o->n; k++)
		if (!strcmp(o->keys[k], key))
			return o->kids[k];
	return NULL;
}

/* Element k of array a, or NULL. */
static const struct jr *jr_at(const struct jr *a, size_t k)
{
	return a && a->kind == JR_ARR && k < a->n ? a->kids[k] : NULL;
}

#endif
