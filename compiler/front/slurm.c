/*
 * slurm.c - Slurm's tree topology.conf into a ccplan machine (slurm.h).
 *
 * The file, as topology.conf(5) documents it: one switch per line,
 * SwitchName=NAME with either Switches=HOSTLIST (its child switches) or
 * Nodes=HOSTLIST (the nodes of a leaf switch), and an optional
 * LinkSpeed=N (arbitrary units); parameter names are case-insensitive,
 * names are not, and '#' starts a comment.  Slurm accepts a forest (jobs
 * then stay within one tree); a ccplan machine is one connected network,
 * so a second top switch is refused with what to add.  Slurm's newer
 * topology.yaml (topology.yaml(5): a list of topologies, a tree one
 * holding switches: [{switch, children | nodes}]) is read the same way,
 * one entry per switch; its block and flat topologies, like the
 * BlockName lines of topology.conf, describe no switches and are not
 * read.
 *
 * The machine written is a graph (docs/input-format.md): the nodes in
 * the order they appear under the leaf switches, the switches in file
 * order, one links entry per switch line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "slurm.h"
#include "tree.h"

/* Switches a file may define (the nodes are limited to IR_MAX_RANKS). */
#define SLURM_MAX_SWITCHES (1 << 20)

enum { K_SWITCHNAME, K_SWITCHES, K_NODES, K_LINKSPEED, K_N };
/* topology.yaml's names of the same (it has no link speed) */
static const char *const yaml_keys[K_N] = {"switch", "children", "nodes",
                                           "link_speed"};
static const char *const conf_keys[K_N] = {"SwitchName", "Switches", "Nodes",
                                           "LinkSpeed"};

/* One SwitchName line. */
struct sw {
	uint32_t line;        /* its line: SwitchName's */
	uint32_t kline[K_N];  /* line of each key given (topology.conf: all
	                         the switch's line; topology.yaml: each its
	                         own), where its value is too */
	uint32_t key[K_N];    /* column of each key given, 0 if absent */
	uint32_t val[K_N];    /* column of its value */
	int32_t parent;       /* the switch listing it, -1 for none */
	int32_t first, count; /* its children: in hosts (leaf) or kids */
	bool leaf;            /* Nodes= (else Switches=) */
	uint32_t speed;       /* LinkSpeed, 0 if not given */
};

/* What one import works with. */
struct conf {
	const char *name; /* the file, for diagnostics */
	const char *text; /* its text */
	size_t len;
	struct diag *d;
	struct hostlist sw;    /* switch names, in file order */
	struct hostlist hosts; /* node names, in the order they appear */
	struct hostlist kids;  /* the Switches= names of every line */
	struct sw *s;          /* per switch */
	int32_t cap;
	bool yaml;             /* topology.yaml (else topology.conf) */
};

/* Key k as the file spells it. */
static const char *kname(const struct conf *c, int k)
{
	return c->yaml ? yaml_keys[k] : conf_keys[k];
}

static int conf_err(struct conf *c, uint32_t line, uint32_t col,
                    const char *fmt, ...) FRONT_PRINTF(4, 5);

/* A problem at line:col of the file. */
static int conf_err(struct conf *c, uint32_t line, uint32_t col,
                    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tree_diag_v(c->d, c->name, c->text, c->len, line, col, fmt, ap);
	va_end(ap);
	return CCP_EPARSE;
}

/* Out of memory, without a position. */
static int conf_nomem(struct conf *c)
{
	front_diag(c->d, c->name, 0, 0, NULL, "out of memory");
	return CCP_ENOMEM;
}

/* The key k of a line as written (case-insensitive), or K_N. */
static int key_of(const char *s, size_t n)
{
	for (int k = 0; k < K_N; k++)
		if (strlen(conf_keys[k]) == n &&
		    !strncasecmp(s, conf_keys[k], n))
			return k;
	return K_N;
}

/* Expand the hostlist value v (NUL-terminated, at line:col) of key k
 * into h, at most max names in h. */
static int expand_value(struct conf *c, struct hostlist *h, const char *v,
                        int32_t max, uint32_t line, uint32_t col, int k)
{
	struct hostlist_error e;
	int rc = hostlist_expand(h, v, max, &e);

	if (rc == CCP_ENOMEM)
		return conf_nomem(c);
	if (rc < 0)
		return conf_err(c, line, col + (uint32_t)e.at, "%s: %s",
		                kname(c, k), e.why);
	return 0;
}

/* Switch index of the leaf whose nodes hold hosts position j. */
static int32_t owner_of(const struct conf *c, int32_t j)
{
	for (int32_t i = 0; i < c->sw.count; i++)
		if (c->s[i].leaf && j >= c->s[i].first &&
		    j < c->s[i].first + c->s[i].count)
			return i;
	return -1;
}

/* The value of key k on this line: its own copy (malloc'd). */
static int take_value(struct conf *c, const char *v, size_t n, char **out)
{
	if (!(*out = malloc(n + 1)))
		return conf_nomem(c);
	memcpy(*out, v, n);
	(*out)[n] = '\0';
	return 0;
}

/* The switch of one line: its name, then its children and speed. */
static int add_switch(struct conf *c, const uint32_t kline[K_N],
                      const uint32_t key[K_N], const uint32_t val[K_N],
                      char *const value[K_N])
{
	uint32_t line = kline[K_SWITCHNAME];
	int32_t i = c->sw.count, first;
	struct sw *s;
	int rc;

	if (!key[K_SWITCHNAME]) {
		int k = key[K_SWITCHES] ? K_SWITCHES
		        : key[K_NODES]  ? K_NODES
		                        : K_LINKSPEED;
		return conf_err(c, kline[k], key[k],
		                "%s", c->yaml ? "a switch needs its name: "
		                                "switch: NAME"
		                              : "a line of topology.conf "
		                                "defines a switch: "
		                                "SwitchName=NAME first");
	}
	for (const char *p = value[K_SWITCHNAME]; *p; p++)
		if (!hostlist_is_name_char((unsigned char)*p))
			return conf_err(
			        c, line,
			        val[K_SWITCHNAME] +
			                (uint32_t)(p - value[K_SWITCHNAME]),
			        "%s: one name of letters, digits and "
			        "\"-_.:+@/\", not '%c'",
			        kname(c, K_SWITCHNAME), *p);
	if (c->sw.count == SLURM_MAX_SWITCHES)
		return conf_err(c, line, val[K_SWITCHNAME],
		                "more than %d switches", SLURM_MAX_SWITCHES);
	rc = hostlist_add(&c->sw, value[K_SWITCHNAME],
	                  strlen(value[K_SWITCHNAME]), &first);
	if (rc == CCP_ENOMEM)
		return conf_nomem(c);
	if (rc < 0 && strlen(value[K_SWITCHNAME]) > HOSTLIST_NAME_MAX)
		return conf_err(c, line, val[K_SWITCHNAME],
		                "%s: longer than %d characters",
		                kname(c, K_SWITCHNAME), HOSTLIST_NAME_MAX);
	if (rc < 0)
		return conf_err(c, line, val[K_SWITCHNAME],
		                "switch '%s' is defined twice (first on line "
		                "%u)",
		                value[K_SWITCHNAME],
		                (unsigned)c->s[first].line);
	if (i == c->cap) {
		int32_t cap = c->cap ? c->cap * 2 : 64;
		struct sw *n = realloc(c->s, (size_t)cap * sizeof *n);
		if (!n)
			return conf_nomem(c);
		c->s = n;
		c->cap = cap;
	}
	s = &c->s[i];
	memset(s, 0, sizeof *s);
	s->line = line;
	memcpy(s->kline, kline, sizeof s->kline);
	memcpy(s->key, key, sizeof s->key);
	memcpy(s->val, val, sizeof s->val);
	s->parent = -1;
	if (key[K_SWITCHES] && key[K_NODES]) {
		int later =
		        key[K_NODES] > key[K_SWITCHES] ? K_NODES : K_SWITCHES;
		return conf_err(c, kline[later], key[later],
		                "switch '%s' has both %s%s and %s%s; a "
		                "switch of a tree has child switches or nodes",
		                value[K_SWITCHNAME], kname(c, K_SWITCHES),
		                c->yaml ? "" : "=", kname(c, K_NODES),
		                c->yaml ? "" : "=");
	}
	if (!key[K_SWITCHES] && !key[K_NODES])
		return conf_err(c, line, key[K_SWITCHNAME],
		                c->yaml ? "switch '%s' has no children: give "
		                          "children: HOSTLIST or nodes: "
		                          "HOSTLIST"
		                        : "switch '%s' has no children: give "
		                          "Switches=HOSTLIST or "
		                          "Nodes=HOSTLIST",
		                value[K_SWITCHNAME]);
	s->leaf = key[K_NODES] != 0;
	if (key[K_LINKSPEED]) {
		const char *p = value[K_LINKSPEED];
		uint64_t v = 0;
		for (; *p >= '0' && *p <= '9' && v <= UINT32_MAX; p++)
			v = v * 10 + (uint64_t)(*p - '0');
		if (*p || v == 0 || v > UINT32_MAX)
			return conf_err(
			        c, kline[K_LINKSPEED], val[K_LINKSPEED],
			        "LinkSpeed: expected a whole number from "
			        "1 to %u, got '%s'",
			        (unsigned)UINT32_MAX, value[K_LINKSPEED]);
		s->speed = (uint32_t)v;
	}
	int k = s->leaf ? K_NODES : K_SWITCHES;
	struct hostlist *h = s->leaf ? &c->hosts : &c->kids;
	s->first = h->count;
	rc = expand_value(c, h, value[k],
	                  s->leaf ? IR_MAX_RANKS : SLURM_MAX_SWITCHES, kline[k],
	                  val[k], k);
	if (rc < 0)
		return rc;
	s->count = h->count - s->first;
	/* a name twice: in this list, or (a node) under another switch */
	for (int32_t j = s->first; j < h->count; j++) {
		const char *name = hostlist_name(h, j);
		int32_t f = hostlist_find(h, name);
		uint32_t col = val[k] + h->item[j];
		if (f == j || (!s->leaf && f < s->first))
			continue;
		if (f >= s->first)
			return conf_err(c, kline[k], col,
			                "%s: '%s' is listed twice",
			                kname(c, k), name);
		int32_t o = owner_of(c, f);
		return conf_err(c, kline[k], col,
		                "%s: node '%s' is already under switch '%s' "
		                "(line %u); a node hangs from one leaf switch",
		                kname(c, K_NODES), name, hostlist_name(&c->sw, o),
		                (unsigned)c->s[o].line);
	}
	return 0;
}

/* Read one line (text[0..n), number line): its Key=Value words. */
static int read_line(struct conf *c, const char *t, size_t n, uint32_t line)
{
	uint32_t key[K_N] = {0}, val[K_N] = {0};
	char *value[K_N] = {0};
	size_t i = 0;
	int rc = 0;
	bool any = false;

	while (i < n) {
		while (i < n && (t[i] == ' ' || t[i] == '\t'))
			i++;
		if (i == n)
			break;
		size_t w = i, eq = 0;
		while (i < n && t[i] != ' ' && t[i] != '\t') {
			if (t[i] == '=' && !eq)
				eq = i;
			i++;
		}
		any = true;
		uint32_t col = (uint32_t)w + 1;
		if (!eq) {
			rc = conf_err(c, line, col,
			              "expected Key=Value, got '%.*s'",
			              (int)(i - w > 64 ? 64 : i - w), t + w);
			goto out_free;
		}
		int k = key_of(t + w, eq - w);
		if (k == K_N) {
			char word[64];
			snprintf(word, sizeof word, "%.*s",
			         (int)(eq - w > 63 ? 63 : eq - w), t + w);
			if (!strcasecmp(word, "BlockName") ||
			    !strcasecmp(word, "BlockSizes")) {
				rc = conf_err(
				        c, line, col,
				        "%s belongs to Slurm's "
				        "topology/block plugin; ccplan "
				        "imports the tree form (SwitchName "
				        "lines)",
				        word);
				goto out_free;
			}
			const char *near = front_nearest(word, conf_keys, K_N);
			rc = near ? conf_err(c, line, col,
			                     "unknown parameter '%s'; did you "
			                     "mean '%s'?",
			                     word, near)
			          : conf_err(c, line, col,
			                     "unknown parameter '%s' (a tree "
			                     "topology.conf has SwitchName, "
			                     "Switches, Nodes and LinkSpeed)",
			                     word);
			goto out_free;
		}
		if (key[k]) {
			rc = conf_err(
			        c, line, col,
			        "%s is given twice on this line (first at "
			        "column %u)",
			        conf_keys[k], (unsigned)key[k]);
			goto out_free;
		}
		if (eq + 1 == i) {
			rc = conf_err(c, line, (uint32_t)eq + 2,
			              "%s: the value is empty", conf_keys[k]);
			goto out_free;
		}
		key[k] = col;
		val[k] = (uint32_t)eq + 2;
		if ((rc = take_value(c, t + eq + 1, i - eq - 1, &value[k])) < 0)
			goto out_free;
	}
	if (any) {
		uint32_t kline[K_N] = {line, line, line, line};
		rc = add_switch(c, kline, key, val, value);
	}
out_free:
	for (int k = 0; k < K_N; k++)
		free(value[k]);
	return rc;
}

/* Every line of the file, '#' comments and blank lines skipped. */
static int read_lines(struct conf *c)
{
	size_t at = 0;
	uint32_t line = 0;
	int rc;

	while (at < c->len) {
		const char *t = c->text + at;
		const char *nl = memchr(t, '\n', c->len - at);
		size_t n = nl ? (size_t)(nl - t) : c->len - at;
		const char *hash = memchr(t, '#', n);
		size_t keep = hash ? (size_t)(hash - t) : n;
		line++;
		if (memchr(t, '\0', keep))
			return conf_err(
			        c, line,
			        (uint32_t)((const char *)memchr(t, '\0', keep) -
			                   t) +
			                1,
			        "a NUL byte in the file");
		while (keep > 0 && (t[keep - 1] == '\r' || t[keep - 1] == ' ' ||
		                    t[keep - 1] == '\t'))
			keep--;
		if ((rc = read_line(c, t, keep, line)) < 0)
			return rc;
		at += n + 1;
	}
	if (c->sw.count == 0)
		return conf_err(c, line ? line : 1, 1,
		                "no switch: a tree topology.conf has lines "
		                "SwitchName=NAME Switches=... or Nodes=...");
	return 0;
}

/* Parents from the Switches= lists, then one tree: no cycle, one top. */
static int check_tree(struct conf *c)
{
	int32_t n = c->sw.count, root = -1;
	int8_t *state;
	int rc = 0;

	for (int32_t i = 0; i < n; i++) {
		struct sw *s = &c->s[i];
		if (s->leaf)
			continue;
		for (int32_t j = s->first; j < s->first + s->count; j++) {
			const char *name = hostlist_name(&c->kids, j);
			uint32_t col = s->val[K_SWITCHES] + c->kids.item[j];
			int32_t k = hostlist_find(&c->sw, name);
			int32_t node = hostlist_find(&c->hosts, name);
			if (k < 0 && node >= 0)
				return conf_err(
				        c, s->kline[K_SWITCHES], col,
				        "%s: '%s' is a node (of "
				        "switch '%s'), not a switch",
				        kname(c, K_SWITCHES), name,
				        hostlist_name(&c->sw,
				                      owner_of(c, node)));
			if (k < 0)
				return conf_err(c, s->kline[K_SWITCHES], col,
				                c->yaml ? "%s: no switch '%s' (no "
				                          "entry switch: %s)"
				                        : "%s: no switch '%s' (no "
				                          "line SwitchName=%s)",
				                kname(c, K_SWITCHES), name, name);
			if (k == i)
				return conf_err(c, s->kline[K_SWITCHES], col,
				                "%s: switch '%s' lists "
				                "itself",
				                kname(c, K_SWITCHES), name);
			if (c->s[k].parent >= 0)
				return conf_err(
				        c, s->kline[K_SWITCHES], col,
				        "%s: switch '%s' is already "
				        "under "
				        "switch '%s' (line %u); a tree gives "
				        "each switch one parent",
				        kname(c, K_SWITCHES), name,
				        hostlist_name(&c->sw, c->s[k].parent),
				        (unsigned)c->s[c->s[k].parent].line);
			c->s[k].parent = i;
		}
	}
	/* a node may not share a name with a switch */
	for (int32_t i = 0; i < n; i++) {
		struct sw *s = &c->s[i];
		for (int32_t j = s->first; s->leaf && j < s->first + s->count;
		     j++) {
			int32_t k = hostlist_find(&c->sw,
			                          hostlist_name(&c->hosts, j));
			if (k >= 0)
				return conf_err(
				        c, s->kline[K_NODES],
				        s->val[K_NODES] + c->hosts.item[j],
				        "%s: '%s' is the name of a switch "
				        "(line %u)",
				        kname(c, K_NODES),
				        hostlist_name(&c->hosts, j),
				        (unsigned)c->s[k].line);
		}
	}
	/* cycles: every switch must reach a top switch going up */
	if (n <= 0 || !(state = calloc((size_t)(uint32_t)n, 1)))
		return conf_nomem(c);
	for (int32_t i = 0; i < n && rc == 0; i++) {
		int32_t k = i;
		/* 0 unseen, 1 on this walk, 2 reaches the top */
		while (k >= 0 && state[k] == 0) {
			state[k] = 1;
			k = c->s[k].parent;
		}
		if (k >= 0 && state[k] == 1) {
			char chain[256];
			size_t m = 0;
			int32_t j = k;
			do {
				m += (size_t)snprintf(
				        chain + m,
				        m < sizeof chain ? sizeof chain - m : 0,
				        "%s%s", hostlist_name(&c->sw, j),
				        " under ");
				j = c->s[j].parent;
			} while (j != k && m < sizeof chain);
			if (m < sizeof chain)
				snprintf(chain + m, sizeof chain - m, "%s",
				         hostlist_name(&c->sw, k));
			rc = conf_err(
			        c, c->s[k].line, c->s[k].val[K_SWITCHNAME],
			        "switch '%s' is its own ancestor (%s): the "
			        "switches form a cycle, not a tree",
			        hostlist_name(&c->sw, k), chain);
			break;
		}
		for (k = i; k >= 0 && state[k] == 1; k = c->s[k].parent)
			state[k] = 2;
	}
	free(state);
	if (rc < 0)
		return rc;
	for (int32_t i = 0; i < n; i++) {
		if (c->s[i].parent >= 0)
			continue;
		if (root < 0) {
			root = i;
			continue;
		}
		char join[2 * HOSTLIST_NAME_MAX + 64];
		snprintf(join, sizeof join,
		         c->yaml ? "- switch: top, children: %s,%s"
		                 : "SwitchName=top Switches=%s,%s",
		         hostlist_name(&c->sw, root), hostlist_name(&c->sw, i));
		return conf_err(
		        c, c->s[i].line, c->s[i].val[K_SWITCHNAME],
		        "switch '%s' is a second top switch (the first is "
		        "'%s', line %u): Slurm allows separate trees, a ccplan "
		        "machine is one network; join them under one switch "
		        "(%s)",
		        hostlist_name(&c->sw, i), hostlist_name(&c->sw, root),
		        (unsigned)c->s[root].line, join);
	}
	/* LinkSpeed on every line or on none */
	int32_t with = -1, without = -1;
	for (int32_t i = 0; i < n; i++) {
		if (c->s[i].speed && with < 0)
			with = i;
		if (!c->s[i].speed && without < 0)
			without = i;
	}
	if (with >= 0 && without >= 0)
		return conf_err(
		        c, c->s[without].line, c->s[without].key[K_SWITCHNAME],
		        "switch '%s' has no LinkSpeed, which line %u "
		        "gives: give it on every switch line or on none",
		        hostlist_name(&c->sw, without),
		        (unsigned)c->s[with].line);
	return 0;
}

/* A name as a YAML scalar: plain when it reads back as the same string,
 * else double-quoted (a name holds no quote or backslash). */
static void put_name(struct tbuf *b, const char *s)
{
	static const char *const words[] = {"true", "false", "null", "yes",
	                                    "no",   "on",    "off",  "y",
	                                    "n",    "~"};
	bool plain =
	        (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z');

	for (const char *p = s; *p && plain; p++)
		plain = hostlist_is_name_char((unsigned char)*p) && *p != ':' &&
		        *p != '@';
	for (size_t i = 0; i < sizeof words / sizeof words[0] && plain; i++)
		plain = strcasecmp(s, words[i]) != 0;
	tb_printf(b, plain ? "%s" : "\"%s\"", s);
}

/* The names h[from .. from + n) as one YAML scalar: a name alone, or a
 * quoted hostlist. */
static int put_list(struct tbuf *b, const struct hostlist *h, int32_t from,
                    int32_t n)
{
	char *r = hostlist_ranged(h, from, n);

	if (!r)
		return CCP_ENOMEM;
	if (n == 1 && !strchr(r, '['))
		put_name(b, r);
	else
		tb_printf(b, "\"%s\"", r);
	free(r);
	return 0;
}

/* The machine YAML of a checked tree. */
static int write_yaml(struct conf *c, char **yaml)
{
	struct tbuf b = {0};
	struct hostlist one;
	uint32_t least = 0, most = 0;
	int rc = 0;
	const char *base = strrchr(c->name, '/');

	base = base ? base + 1 : c->name;
	for (int32_t i = 0; i < c->sw.count; i++) {
		uint32_t v = c->s[i].speed;
		if (v && (!least || v < least))
			least = v;
		if (v > most)
			most = v;
	}
	tb_printf(&b, "# from %s by ccplan import slurm\n", base);
	tb_printf(&b,
	          "# %d node%s, %d switch%s; add communication: to "
	          "compile for it\n",
	          (int)c->hosts.count, c->hosts.count == 1 ? "" : "s",
	          (int)c->sw.count, c->sw.count == 1 ? "" : "es");
	tb_printf(&b, "machine:\n  topology: graph\n  routing: shortest\n");
	tb_printf(&b, "  hosts: ");
	if ((rc = put_list(&b, &c->hosts, 0, c->hosts.count)) < 0)
		goto out_free;
	tb_printf(&b, "   # node order: as listed under the leaf "
	              "switches\n  graph:\n    switches: ");
	if ((rc = put_list(&b, &c->sw, 0, c->sw.count)) < 0)
		goto out_free;
	tb_printf(&b, "\n    links:\n");
	for (int32_t i = 0; i < c->sw.count; i++) {
		const struct sw *s = &c->s[i];
		bool speed = least != most;
		tb_printf(&b, speed ? "      - {ends: [" : "      - [");
		put_name(&b, hostlist_name(&c->sw, i));
		tb_printf(&b, ", ");
		if (s->leaf) {
			rc = put_list(&b, &c->hosts, s->first, s->count);
		} else {
			/* the child switches, in the order the line lists */
			hostlist_init(&one, false);
			for (int32_t j = s->first;
			     j < s->first + s->count && rc == 0; j++) {
				const char *k = hostlist_name(&c->kids, j);
				rc = hostlist_add(&one, k, strlen(k), NULL);
			}
			if (rc == 0)
				rc = put_list(&b, &one, 0, one.count);
			hostlist_fini(&one);
		}
		if (rc < 0)
			goto out_free;
		if (speed)
			tb_printf(&b, "], bandwidth: %.9g}\n",
			          (double)s->speed / (double)least);
		else
			tb_printf(&b, "]\n");
	}
	tb_printf(&b, "  ranks_per_node: 1   # set to the ranks (processes) "
	              "each node runs\n");
	if (b.nomem) {
		rc = CCP_ENOMEM;
		goto out_free;
	}
	*yaml = tb_take(&b, NULL);
	return *yaml ? 0 : CCP_ENOMEM;
out_free:
	tb_free(&b);
	return rc;
}

/* ---- topology.yaml ---------------------------------------------------- */

/* One entry of a tree's switches: {switch: NAME, children: HOSTLIST} or
 * {switch: NAME, nodes: HOSTLIST}, as add_switch takes a line. */
static int yaml_switch(struct conf *c, struct ctx *x, uint32_t e, uint32_t i)
{
	static const char *const names[] = {"switch", "children", "nodes"};
	struct keys k = {names, 3, {0}, {0}};
	uint32_t kline[K_N] = {0}, key[K_N] = {0}, val[K_N] = {0};
	char *value[K_N] = {0}, path[64], b[64];
	int rc;

	snprintf(path, sizeof path, "tree.switches[%u]", (unsigned)i);
	if ((rc = tree_map_keys(x, e, path, &k)) < 0)
		return rc;
	for (int j = 0; j < 3; j++) {
		uint32_t v = k.val[j];
		if (v == NONE)
			continue;
		if (x->v[v].kind != YN_SCALAR || is_null(x, v)) {
			rc = tree_err_at(x, v, "%s.%s: expected %s, got %s",
			                 path, names[j],
			                 j ? "a hostlist such as \"n[0-15]\""
			                   : "a name",
			                 tree_desc(x, v, b, sizeof b));
			goto out;
		}
		/* j is K_SWITCHNAME, K_SWITCHES, K_NODES in that order */
		kline[j] = x->v[v].line;
		key[j] = x->v[k.key[j]].col;
		/* a quoted value's text starts after its quote */
		val[j] = x->v[v].col + (x->v[v].plain ? 0 : 1);
		if (!(value[j] = strdup(text(x, v)))) {
			rc = conf_nomem(c);
			goto out;
		}
	}
	if (!key[K_SWITCHNAME])
		kline[K_SWITCHNAME] = x->v[e].line;
	rc = add_switch(c, kline, key, val, value);
out:
	for (int j = 0; j < K_N; j++)
		free(value[j]);
	return rc;
}

/* Slurm's topology.yaml (topology.yaml(5)): a list of topologies, each
 * {topology: NAME, cluster_default: BOOL, and one of tree, block, flat}.
 * The tree read is the one named by want, else the first tree with
 * cluster_default true, else the only tree; its switches go through
 * add_switch as topology.conf's lines do. */
static int read_yaml(struct conf *c, const char *want)
{
	static const char *const names[] = {"topology", "cluster_default",
	                                    "tree", "block", "flat"};
	struct ctx x = {0};
	char b[64], l[256];
	int rc;
	uint32_t pick = NONE, trees = 0, fallback = NONE;

	x.name = c->name;
	x.buf = c->text;
	x.len = c->len;
	x.d = c->d;
	x.dir = "";
	if ((rc = tree_build(&x)) < 0)
		goto out;
	if (x.v[0].kind != YN_SEQ || x.v[0].a == 0) {
		rc = tree_err_at(&x, 0,
		                 "topology.yaml: expected a list of topologies "
		                 "(- topology: NAME ...), got %s",
		                 tree_desc(&x, 0, b, sizeof b));
		goto out;
	}
	l[0] = '\0';
	for (uint32_t i = 0, t = 1; i < x.v[0].a; i++, t = next_of(&x, t)) {
		struct keys k = {names, 5, {0}, {0}};
		int64_t def = 0;
		char path[32];
		snprintf(path, sizeof path, "[%u]", (unsigned)i);
		if ((rc = tree_map_keys(&x, t, path, &k)) < 0)
			goto out;
		if (k.val[0] == NONE) {
			rc = tree_missing(&x, t, path, "topology", NULL);
			goto out;
		}
		if (k.val[1] != NONE) { /* Slurm's example writes True */
			const char *v = text(&x, k.val[1]);
			if (x.v[k.val[1]].kind != YN_SCALAR ||
			    (strcasecmp(v, "true") && strcasecmp(v, "false"))) {
				rc = tree_err_at(&x, k.val[1],
				                 "%s.cluster_default: expected "
				                 "true or false, got %s",
				                 path,
				                 tree_desc(&x, k.val[1], b,
				                           sizeof b));
				goto out;
			}
			def = !strcasecmp(v, "true");
		}
		if (k.val[2] == NONE)
			continue;
		const char *tn = text(&x, k.val[0]);
		trees++;
		if (strlen(l) + strlen(tn) + 3 < sizeof l)
			snprintf(l + strlen(l), sizeof l - strlen(l), "%s%s",
			         *l ? ", " : "", tn);
		if (want ? !strcmp(tn, want) : def && pick == NONE)
			pick = t;
		if (fallback == NONE)
			fallback = t;
	}
	if (pick == NONE && !want && trees == 1)
		pick = fallback;
	if (pick == NONE) {
		rc = want ? tree_err_at(&x, 0,
		                        "topology.yaml: no tree topology '%s' "
		                        "(its trees: %s)",
		                        want, *l ? l : "none")
		     : trees ? tree_err_at(&x, 0,
		                           "topology.yaml: %u tree topologies "
		                           "(%s) and none is cluster_default; "
		                           "name one with --topology",
		                           (unsigned)trees, l)
		             : tree_err_at(&x, 0,
		                           "topology.yaml: no tree topology "
		                           "(block and flat describe no "
		                           "switches)");
		goto out;
	}
	struct keys k = {names, 5, {0}, {0}};
	(void)tree_map_keys(&x, pick, "", &k);
	static const char *const tnames[] = {"switches"};
	struct keys tk = {tnames, 1, {0}, {0}};
	uint32_t tv = k.val[2];
	if ((rc = tree_map_keys(&x, tv, "tree", &tk)) < 0)
		goto out;
	if (tk.val[0] == NONE) {
		rc = tree_missing(&x, tv, "tree", "switches", NULL);
		goto out;
	}
	uint32_t sv = tk.val[0];
	if (x.v[sv].kind != YN_SEQ || x.v[sv].a == 0) {
		rc = tree_err_at(&x, sv,
		                 "tree.switches: expected a list of switches "
		                 "(- switch: NAME), got %s",
		                 tree_desc(&x, sv, b, sizeof b));
		goto out;
	}
	for (uint32_t i = 0, e = sv + 1; i < x.v[sv].a; i++, e = next_of(&x, e))
		if ((rc = yaml_switch(c, &x, e, i)) < 0)
			goto out;
	rc = 0;
out:
	free(x.v);
	tb_free(&x.chars);
	return rc;
}

/* Whether name is a topology.yaml: it ends in .yaml or .yml. */
static bool is_yaml_name(const char *name)
{
	size_t n = strlen(name);
	return (n >= 5 && !strcmp(name + n - 5, ".yaml")) ||
	       (n >= 4 && !strcmp(name + n - 4, ".yml"));
}

int slurm_import_text(const char *name, const char *text, size_t len,
                      const char *topology, char **yaml, struct diag *d)
{
	struct conf c = {0};
	int rc;

	memset(d, 0, sizeof *d);
	*yaml = NULL;
	c.name = name ? name : "<string>";
	c.text = text ? text : "";
	c.len = text ? len : 0;
	c.d = d;
	hostlist_init(&c.sw, true);
	hostlist_init(&c.hosts, false);
	hostlist_init(&c.kids, false);
	c.yaml = is_yaml_name(c.name);
	rc = c.yaml ? read_yaml(&c, topology) : read_lines(&c);
	if (rc < 0 || (rc = check_tree(&c)) < 0)
		goto out_free;
	rc = write_yaml(&c, yaml);
	if (rc == CCP_ENOMEM)
		rc = conf_nomem(&c);
out_free:
	hostlist_fini(&c.sw);
	hostlist_fini(&c.hosts);
	hostlist_fini(&c.kids);
	free(c.s);
	return rc;
}

int slurm_import_file(const char *path, const char *topology, char **yaml,
                      struct diag *d)
{
	struct tbuf text = {0};
	FILE *f;
	int rc;

	memset(d, 0, sizeof *d);
	*yaml = NULL;
	if ((rc = front_fopen(path, "rb", "cannot open: ", &f, d)) != 0)
		return rc;
	rc = tb_read(&text, f, FRONT_MAX_FILE);
	fclose(f);
	if (rc == CCP_ENOMEM) {
		front_diag(d, path, 0, 0, NULL, "out of memory");
	} else if (rc < 0) {
		front_diag(d, path, 0, 0, NULL, "cannot read: %s",
		           strerror(errno ? errno : EIO));
		rc = CCP_EIO;
	} else if (text.len > FRONT_MAX_FILE) {
		front_diag(d, path, 0, 0, NULL,
		           "more than %zu MiB: not a topology.conf",
		           FRONT_MAX_FILE >> 20);
		rc = CCP_EPARSE;
	} else {
		rc = slurm_import_text(path, text.p, text.len, topology, yaml,
		                       d);
	}
	tb_free(&text);
	return rc;
}
