/*
 * graph_schema.c - the network of a `topology: graph` machine
 * (docs/input-format.md, "Graphs"): its hosts (machine.hosts, or a count
 * named h0, h1, ...), its switches and its links by name, inline under
 * machine.graph or in a file of their own (graph: {file: NAME}), read
 * into an ir_graph.  A cable ir_graph_new refuses is reported at the
 * link that made it, in the file that gave it.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree.h"

enum { GK_HOSTS, GK_SWITCHES, GK_LINKS, GK_FILE, GK_TABLE, GK_N };
static const char *const graph_keys[GK_N] = {"hosts", "switches", "links",
                                             "file", "table"};
enum { CK_ENDS, CK_WIDTH, CK_BANDWIDTH, CK_LATENCY, CK_CLASS, CK_N };
static const char *const cable_keys[CK_N] = {"ends", "width", "bandwidth",
                                             "latency", "class"};

/* What one graph parse builds. */
struct gparse {
	const struct hostlist *hosts; /* host names: machine.hosts or own */
	struct hostlist own;          /* h0, h1, ... without machine.hosts */
	struct hostlist sw;           /* switch names */
	struct hostlist tmp;          /* one end's names */
	struct ir_cable *cab;         /* the cables so far */
	uint32_t *at;                 /* [cable]: the node that made it */
	uint32_t n, cap;
};

/* The vertex called name: a host's index, or nhosts + a switch's; -1. */
static int32_t vertex_of(const struct gparse *g, const char *name)
{
	int32_t v = hostlist_find(g->hosts, name);
	if (v >= 0)
		return v;
	v = hostlist_find(&g->sw, name);
	return v >= 0 ? g->hosts->count + v : -1;
}

/* The names at v (a hostlist or a list of them) into g->tmp, each a
 * vertex of the graph: its ids into *ids (malloc'd), their count in *n. */
static int end_vertices(struct ctx *x, struct gparse *g, uint32_t v,
                        const char *path, int32_t **ids, int32_t *n)
{
	int rc;
	hostlist_fini(&g->tmp);
	if ((rc = tree_get_hostlist(x, v, path, IR_MAX_RANKS, false, &g->tmp)) <
	    0)
		return rc;
	if (!(*ids = malloc((size_t)g->tmp.count * sizeof **ids)))
		return tree_err_nomem(x);
	for (int32_t i = 0; i < g->tmp.count; i++) {
		const char *s = hostlist_name(&g->tmp, i);
		if (((*ids)[i] = vertex_of(g, s)) < 0) {
			free(*ids);
			*ids = NULL;
			return tree_err_at(x, v,
			                   "%s: '%s' is neither a host nor a "
			                   "switch of the graph",
			                   path, s);
		}
	}
	*n = g->tmp.count;
	return 0;
}

/* Append the cable a - b made by node at. */
static int add_cable(struct ctx *x, struct gparse *g, const struct ir_cable *c,
                     uint32_t at)
{
	if (g->n == g->cap) {
		uint32_t cap = g->cap ? 2 * g->cap : 64;
		struct ir_cable *nc;
		uint32_t *na;
		if (g->cap >= IR_MAX_CABLES)
			return tree_err_at(x, at,
			                   "machine.graph.links: more than %d "
			                   "cables (IR_MAX_CABLES)",
			                   IR_MAX_CABLES);
		if (!(nc = realloc(g->cab, cap * sizeof *nc)))
			return tree_err_nomem(x);
		g->cab = nc;
		if (!(na = realloc(g->at, cap * sizeof *na)))
			return tree_err_nomem(x);
		g->at = na;
		g->cap = cap;
	}
	g->cab[g->n] = *c;
	g->at[g->n++] = at;
	return 0;
}

/* One entry of links: [A, B] or {ends: [A, B], width, bandwidth,
 * latency, class}; A names one vertex, B any number (a hostlist or a
 * list of them): one cable from A to each. */
static int parse_link(struct ctx *x, struct gparse *g, uint32_t v, uint32_t i)
{
	struct ir_cable c = {0, 0, 1, IR_CABLE_CLASS_DEFAULT, NAN, NAN};
	struct keys k = {cable_keys, CK_N, {0}, {0}};
	char path[96], p2[128], b[64];
	uint32_t ends = v;
	int32_t *a = NULL, *to = NULL, na = 0, nto = 0;
	int64_t e;
	int rc;

	snprintf(path, sizeof path, "machine.graph.links[%u]", (unsigned)i);
	if (x->v[v].kind == YN_MAP) {
		if ((rc = tree_map_keys(x, v, path, &k)) < 0)
			return rc;
		if (k.val[CK_ENDS] == NONE)
			return tree_missing(x, v, path, "ends", NULL);
		ends = k.val[CK_ENDS];
		snprintf(p2, sizeof p2, "%s.width", path);
		if (k.val[CK_WIDTH] != NONE) {
			if ((rc = tree_get_int(x, k.val[CK_WIDTH], p2, 1,
			                       IR_MAX_RANKS, "(cables)", &e)) <
			    0)
				return rc;
			c.width = (int32_t)e;
		}
		snprintf(p2, sizeof p2, "%s.bandwidth", path);
		if (k.val[CK_BANDWIDTH] != NONE) {
			if ((rc = tree_get_num(x, k.val[CK_BANDWIDTH], p2,
			                       &c.bandwidth)) < 0)
				return rc;
			if (!(c.bandwidth > 0) || isinf(c.bandwidth))
				return tree_err_at(x, k.val[CK_BANDWIDTH],
				                   "%s: expected bytes per "
				                   "second above 0, got %g",
				                   p2, c.bandwidth);
		}
		snprintf(p2, sizeof p2, "%s.latency", path);
		if (k.val[CK_LATENCY] != NONE) {
			if ((rc = tree_get_num(x, k.val[CK_LATENCY], p2,
			                       &c.latency)) < 0)
				return rc;
			if (!(c.latency >= 0) || isinf(c.latency))
				return tree_err_at(x, k.val[CK_LATENCY],
				                   "%s: expected seconds, 0 or "
				                   "more, got %g",
				                   p2, c.latency);
		}
		snprintf(p2, sizeof p2, "%s.class", path);
		if (k.val[CK_CLASS] != NONE) {
			int cls = 0;
			if ((rc = tree_get_enum(x, k.val[CK_CLASS], p2,
			                        "link class",
			                        ir_link_class_names,
			                        IR_NLINK_CLASSES, &cls)) < 0)
				return rc;
			c.cls = (uint8_t)cls;
		}
	}
	if (x->v[ends].kind != YN_SEQ || x->v[ends].a != 2)
		return tree_err_at(x, ends,
		                   "%s: expected its two ends, [A, B] (B may "
		                   "name many: \"n[0-15]\"), got %s",
		                   path, tree_desc(x, ends, b, sizeof b));
	snprintf(p2, sizeof p2, "%s[0]", path);
	if ((rc = end_vertices(x, g, ends + 1, p2, &a, &na)) < 0)
		return rc;
	if (na != 1) {
		free(a);
		return tree_err_at(x, ends + 1,
		                   "%s: names %d vertices; the first end is "
		                   "one (the second may be many)",
		                   p2, (int)na);
	}
	snprintf(p2, sizeof p2, "%s[1]", path);
	rc = end_vertices(x, g, next_of(x, ends + 1), p2, &to, &nto);
	for (int32_t j = 0; rc == 0 && j < nto; j++) {
		c.a = a[0];
		c.b = to[j];
		rc = add_cable(x, g, &c, v);
	}
	free(a);
	free(to);
	return rc;
}

/* The name of vertex v (a host's, or a switch's). */
static const char *vertex_name(const struct gparse *g, int32_t v)
{
	return v < g->hosts->count ? hostlist_name(g->hosts, v)
	                           : hostlist_name(&g->sw, v - g->hosts->count);
}

/* table: [[FROM, HOSTS, TO], ...], a forwarding table: at each vertex
 * of FROM, toward each host of HOSTS (hostlists), the next hop is the
 * one vertex TO; given to the graph made (ir_graph_set_table), whose
 * refusals point at the entry that gave them. */
static int parse_table(struct ctx *x, struct gparse *g, uint32_t t,
                       ir_graph *graph)
{
	const char *P = "machine.graph.table";
	struct ir_route_entry *e = NULL;
	uint32_t *at = NULL, n = 0, cap = 0;
	int32_t *from = NULL, *hosts = NULL, *to = NULL, nf, nh, nt;
	char path[96], b[64], why[256];
	int64_t bad;
	int rc = 0;

	if (x->v[t].kind != YN_SEQ)
		return tree_err_at(x, t,
		                   "%s: expected a list of [FROM, HOSTS, TO] "
		                   "entries, got %s",
		                   P, tree_desc(x, t, b, sizeof b));
	for (uint32_t i = 0, c = t + 1; rc == 0 && i < x->v[t].a;
	     i++, c = next_of(x, c)) {
		snprintf(path, sizeof path, "%s[%u]", P, (unsigned)i);
		if (x->v[c].kind != YN_SEQ || x->v[c].a != 3) {
			rc = tree_err_at(x, c,
			                 "%s: expected [FROM, HOSTS, TO]: at the "
			                 "vertices FROM, toward the hosts HOSTS, "
			                 "the next hop is TO; got %s",
			                 path, tree_desc(x, c, b, sizeof b));
			break;
		}
		uint32_t cf = c + 1, ch = next_of(x, cf), ct = next_of(x, ch);
		if ((rc = end_vertices(x, g, cf, path, &from, &nf)) < 0 ||
		    (rc = end_vertices(x, g, ch, path, &hosts, &nh)) < 0 ||
		    (rc = end_vertices(x, g, ct, path, &to, &nt)) < 0)
			break;
		for (int32_t j = 0; rc == 0 && j < nh; j++)
			if (hosts[j] >= g->hosts->count)
				rc = tree_err_at(x, ch,
				                 "%s: '%s' is a switch; a table "
				                 "leads toward hosts",
				                 path,
				                 hostlist_name(&g->sw,
				                               hosts[j] -
				                                       g->hosts->count));
		if (rc == 0 && nt != 1)
			rc = tree_err_at(x, ct,
			                 "%s: names %d vertices; the next hop is "
			                 "one",
			                 path, (int)nt);
		for (int32_t f = 0; rc == 0 && f < nf; f++)
			for (int32_t j = 0; rc == 0 && j < nh; j++) {
				if (n == cap) {
					uint32_t c2 = cap ? 2 * cap : 64;
					void *ne = realloc(e, c2 * sizeof *e);
					if (ne)
						e = ne;
					void *na = ne ? realloc(at, c2 * sizeof *at)
					              : NULL;
					if (!ne || !na) {
						rc = tree_err_nomem(x);
						break;
					}
					at = na;
					cap = c2;
				}
				e[n] = (struct ir_route_entry){from[f], hosts[j],
				                               to[0]};
				at[n++] = c;
			}
		free(from);
		free(hosts);
		free(to);
		from = hosts = to = NULL;
	}
	if (rc == 0 &&
	    (rc = ir_graph_set_table(graph, e, n, &bad, why, sizeof why)) != 0) {
		int h, v;
		const char *vn;
		if (rc == CCP_ENOMEM)
			rc = tree_err_nomem(x);
		else if (bad >= 0 && strstr(why, "no cable"))
			rc = tree_err_at(x, at[bad], "%s: %s has no cable to %s",
			                 P, vertex_name(g, e[bad].from),
			                 vertex_name(g, e[bad].to));
		else if (bad >= 0 && strstr(why, "twice"))
			rc = tree_err_at(x, at[bad],
			                 "%s: %s's next hop toward %s is given "
			                 "twice",
			                 P, vertex_name(g, e[bad].from),
			                 vertex_name(g, e[bad].host));
		else if (bad >= 0 && strstr(why, "arrived"))
			rc = tree_err_at(x, at[bad],
			                 "%s: %s is the host the entry leads "
			                 "toward: a message there has arrived",
			                 P, vertex_name(g, e[bad].from));
		else if (bad >= 0)
			rc = tree_err_at(x, at[bad], "%s: %s", P, why);
		else if ((sscanf(why, "toward host %d the table goes round in "
		                      "a loop through vertex %d",
		                 &h, &v) == 2 ||
		          sscanf(why, "toward host %d the table leads to "
		                      "vertex %d",
		                 &h, &v) == 2) &&
		         h >= 0 && h < g->hosts->count && v >= 0 &&
		         v < g->hosts->count + g->sw.count) {
			/* the same, by the names the input gave */
			vn = vertex_name(g, v);
			rc = tree_err_at(x, t,
			                 strstr(why, "loop")
			                         ? "%s: toward host %s the table "
			                           "goes round in a loop through "
			                           "%s"
			                         : "%s: toward host %s the table "
			                           "leads to %s, which cannot "
			                           "reach it",
			                 P, hostlist_name(g->hosts, h), vn);
		} else {
			rc = tree_err_at(x, t, "%s: %s", P, why);
		}
	}
	free(from);
	free(hosts);
	free(to);
	free(e);
	free(at);
	return rc;
}

/* The graph mapping at v (inline, or the root of its file): hosts when
 * machine.hosts did not name them, switches, links; then the graph. */
static int parse_graph_map(struct ctx *x, uint32_t v, struct gparse *g,
                           bool named, ir_machine *m)
{
	struct keys k = {graph_keys, GK_N, {0}, {0}};
	const char *P = "machine.graph";
	int64_t e = 0;
	int rc;

	if ((rc = tree_map_keys(x, v, P, &k)) < 0)
		return rc;
	if (k.val[GK_FILE] != NONE)
		return tree_err_at(x, k.key[GK_FILE],
		                   "%s.file: a graph's file holds its hosts, "
		                   "switches and links, not another file",
		                   P);
	if (named && k.val[GK_HOSTS] != NONE)
		return tree_err_at(x, k.key[GK_HOSTS],
		                   "%s.hosts: the hosts are machine.hosts, "
		                   "named there; count them in one place",
		                   P);
	if (!named) {
		char list[48];
		if (k.val[GK_HOSTS] == NONE)
			return tree_missing(x, v, P, "hosts",
			                    " (or machine.hosts naming them)");
		if ((rc = tree_get_int(x, k.val[GK_HOSTS],
		                       "machine.graph.hosts", 1, IR_MAX_RANKS,
		                       "(IR_MAX_RANKS)", &e)) < 0)
			return rc;
		struct hostlist_error he;
		snprintf(list, sizeof list, "h[0-%" PRId64 "]", e - 1);
		rc = hostlist_expand(&g->own, list, IR_MAX_RANKS, &he);
		if (rc == CCP_ENOMEM)
			return tree_err_nomem(x);
		if (rc < 0)
			return tree_err_at(x, k.val[GK_HOSTS], "%s.hosts: %s",
			                   P, he.why);
		g->hosts = &g->own;
	}
	if (k.val[GK_SWITCHES] != NONE) {
		if ((rc = tree_get_hostlist(x, k.val[GK_SWITCHES],
		                            "machine.graph.switches",
		                            IR_MAX_RANKS, false, &g->sw)) < 0)
			return rc;
		for (int32_t i = 0; i < g->sw.count; i++)
			if (hostlist_find(g->hosts, hostlist_name(&g->sw, i)) >=
			    0)
				return tree_err_at(x, k.val[GK_SWITCHES],
				                   "%s.switches: '%s' is a "
				                   "host's name too",
				                   P, hostlist_name(&g->sw, i));
	}
	if (k.val[GK_LINKS] == NONE)
		return tree_missing(x, v, P, "links", NULL);
	uint32_t L = k.val[GK_LINKS];
	char b[64];
	if (x->v[L].kind != YN_SEQ)
		return tree_err_at(x, L,
		                   "%s.links: expected a list of links, "
		                   "got %s",
		                   P, tree_desc(x, L, b, sizeof b));
	for (uint32_t i = 0, c = L + 1; i < x->v[L].a; i++, c = next_of(x, c))
		if ((rc = parse_link(x, g, c, i)) < 0)
			return rc;
	int64_t bad;
	char why[256];
	m->graph = ir_graph_new(g->hosts->count, g->sw.count, g->cab, g->n, &rc,
	                        &bad, why, sizeof why);
	if (m->graph && k.val[GK_TABLE] != NONE)
		return parse_table(x, g, k.val[GK_TABLE], m->graph);
	if (m->graph)
		return 0;
	if (rc == CCP_ENOMEM)
		return tree_err_nomem(x);
	if (bad >= 0) {
		const struct ir_cable *c = &g->cab[bad];
		const char *an =
		        c->a < g->hosts->count
		                ? hostlist_name(g->hosts, c->a)
		                : hostlist_name(&g->sw, c->a - g->hosts->count);
		const char *bn =
		        c->b < g->hosts->count
		                ? hostlist_name(g->hosts, c->b)
		                : hostlist_name(&g->sw, c->b - g->hosts->count);
		return tree_err_at(x, g->at[bad], "%s.links: %s - %s: %s", P,
		                   an, bn, why);
	}
	/* name the hosts of "host A cannot reach host B" */
	int ha, hb;
	if (sscanf(why, "host %d cannot reach host %d", &ha, &hb) == 2 &&
	    ha >= 0 && ha < g->hosts->count && hb >= 0 &&
	    hb < g->hosts->count)
		return tree_err_at(x, v,
		                   "%s: host %s cannot reach host %s: the "
		                   "graph is not connected",
		                   P, hostlist_name(g->hosts, ha),
		                   hostlist_name(g->hosts, hb));
	return tree_err_at(x, v, "%s: %s", P, why);
}

/* graph: {file: NAME}: the same mapping as the root of another YAML file,
 * relative to this one's directory; its errors point into it. */
static int parse_graph_file(struct ctx *x, uint32_t v, struct gparse *g,
                            bool named, ir_machine *m)
{
	char path[FRONT_PATH_MAX], dir[FRONT_PATH_MAX];
	struct tbuf text = {0};
	struct ctx y = {0};
	const char *slash;
	FILE *f;
	int rc;

	if ((rc = tree_get_path(x, v, "machine.graph.file", path)) < 0)
		return rc;
	if ((rc = front_fopen(path, "rb", "cannot open: ", &f, x->d)) != 0)
		return tree_file_rc(x, v, "machine.graph.file", rc);
	rc = tb_read(&text, f, FRONT_MAX_FILE);
	fclose(f);
	if (rc == CCP_ENOMEM) {
		tb_free(&text);
		return tree_err_nomem(x);
	}
	if (rc < 0 || text.len > FRONT_MAX_FILE) {
		tb_free(&text);
		return tree_err_at(x, v, "machine.graph.file: %s: %s", path,
		                   rc < 0 ? strerror(errno ? errno : EIO)
		                          : "more than FRONT_MAX_FILE bytes");
	}
	slash = strrchr(path, '/');
	dir[0] = '\0';
	if (slash) {
		size_t ld = slash == path ? 1 : (size_t)(slash - path);
		memcpy(dir, path, ld);
		dir[ld] = '\0';
	}
	y.name = path;
	y.dir = dir;
	y.buf = text.p ? text.p : "";
	y.len = text.len;
	y.d = x->d;
	y.in = x->in;
	if ((rc = tree_build(&y)) == 0) {
		char b[64];
		if (y.n == 0 || y.v[0].kind != YN_MAP)
			rc = tree_err_at(
			        &y, 0,
			        "machine.graph.file: expected a mapping "
			        "of hosts, switches and links, got %s",
			        y.n ? tree_desc(&y, 0, b, sizeof b)
			            : "an empty file");
		else
			rc = parse_graph_map(&y, 0, g, named, m);
	}
	free(y.v);
	tb_free(&y.chars);
	tb_free(&text);
	return rc;
}

int graph_schema_parse(struct ctx *x, uint32_t v, uint32_t hosts, ir_machine *m)
{
	static const char *const file_key[] = {"file"};
	struct gparse g;
	int rc;

	memset(&g, 0, sizeof g);
	hostlist_init(&g.own, true);
	hostlist_init(&g.sw, true);
	hostlist_init(&g.tmp, false);
	g.hosts = &x->in->hosts;
	if (hosts != NONE) {
		hostlist_init(&x->in->hosts, true);
		rc = tree_get_hostlist(x, hosts, "machine.hosts", IR_MAX_RANKS,
		                       false, &x->in->hosts);
		if (rc < 0)
			goto out;
	}
	if (x->v[v].kind != YN_MAP) {
		char b[64];
		rc = tree_err_at(x, v,
		                 "machine.graph: expected a mapping of hosts, "
		                 "switches and links, or {file: NAME}, got %s",
		                 tree_desc(x, v, b, sizeof b));
		goto out;
	}
	/* {file: NAME} alone names the file; anything else is inline */
	uint32_t fv = NONE;
	if (x->v[v].a == 2) {
		struct keys fk = {file_key, 1, {0}, {0}};
		uint32_t key = v + 1;
		if (!strcmp(text(x, key), "file")) {
			if ((rc = tree_map_keys(x, v, "machine.graph", &fk)) <
			    0)
				goto out;
			fv = fk.val[0];
		}
	}
	rc = fv != NONE ? parse_graph_file(x, fv, &g, hosts != NONE, m)
	                : parse_graph_map(x, v, &g, hosts != NONE, m);
out:
	hostlist_fini(&g.own);
	hostlist_fini(&g.sw);
	hostlist_fini(&g.tmp);
	free(g.cab);
	free(g.at);
	return rc;
}

const struct key_names graph_schema_keys = {graph_keys, GK_N};
const struct key_names graph_schema_link_keys = {cable_keys, CK_N};
