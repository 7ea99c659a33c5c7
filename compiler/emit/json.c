/*
 * json.c - the JSON export of a plan (docs/plan-format.md, "JSON
 * export"): one object, keys in a fixed order, no whitespace, so that the
 * same plan always gives the same text and other tools (plotters,
 * checkers, the papers' tables) can read a plan without the C library.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* A JSON string of at most max bytes (names live in fixed arrays):
 * quotes, backslashes and control characters escaped; other bytes pass
 * through (names are ASCII in practice). */
void json_put_string(FILE *out, const char *s, size_t max)
{
	const unsigned char *q = (const unsigned char *)s;
	const unsigned char *end = q + strnlen(s, max);
	fputc('"', out);
	for (; q < end; q++) {
		if (*q == '"' || *q == '\\')
			fprintf(out, "\\%c", *q);
		else if (*q < 0x20)
			fprintf(out, "\\u%04x", *q);
		else
			fputc(*q, out);
	}
	fputc('"', out);
}

/* ,"switches":S,"cables":[[a,b,width,bandwidth,latency,class],...]: a
 * graph's cables in their order, ends as vertex ids (hosts, then
 * switches), latency null where the input gave none; ,"table":[[from,
 * host,to],...] its forwarding table; ,"keys":[...] the hosts' route
 * keys of a job's part of a graph. */
static void put_graph(FILE *out, const ir_graph *g)
{
	fprintf(out, ",\"switches\":%d,\"cables\":[", (int)g->nswitches);
	for (uint32_t i = 0; i < g->ncables; i++) {
		const struct ir_cable *c = &g->cables[i];
		fprintf(out, "%s[%d,%d,%d,%.17g,", i ? "," : "", (int)c->a,
		        (int)c->b, (int)c->width, c->bandwidth);
		if (isnan(c->latency))
			fputs("null", out);
		else
			fprintf(out, "%.17g", c->latency == 0 ? 0.0 : c->latency);
		fprintf(out, ",\"%s\"]", ir_link_class_names[c->cls]);
	}
	fputc(']', out);
	struct ir_route_entry *e = NULL;
	uint32_t n = 0;
	if (g->next && ir_graph_table(g, &e, &n) == 0 && e) {
		fputs(",\"table\":[", out);
		for (uint32_t i = 0; i < n; i++)
			fprintf(out, "%s[%d,%d,%d]", i ? "," : "",
			        (int)e[i].from, (int)e[i].host, (int)e[i].to);
		fputc(']', out);
	}
	free(e);
	if (g->key) {
		fputs(",\"keys\":[", out);
		for (int32_t i = 0; i < g->nhosts; i++)
			fprintf(out, "%s%d", i ? "," : "", (int)g->key[i]);
		fputc(']', out);
	}
}

/* "topology":{"kind":...,"dims":[...]}: extents for mesh and torus, the
 * dimension for a hypercube, the two levels' rows and columns for HPAM,
 * the port count for a switch, the down-degree of each level for a fat
 * tree (with "up" and "width" beside), the hosts of a graph (with its
 * switches and cables beside), groups, routers per group, hosts per
 * router and global links per router for a dragonfly (with
 * "arrangement", "width" [host, local, global] and "seed" beside). */
static void put_topology(FILE *out, const ir_machine *m)
{
	int dims[IR_MAX_DIMS > 4 ? IR_MAX_DIMS : 4], n = 0;
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		for (n = 0; n < m->ndims && n < IR_MAX_DIMS; n++)
			dims[n] = m->dims[n];
		break;
	case IR_HYPERCUBE:
		dims[n++] = m->ndims;
		break;
	case IR_HPAM:
		dims[n++] = m->levels[0][0];
		dims[n++] = m->levels[0][1];
		dims[n++] = m->levels[1][0];
		dims[n++] = m->levels[1][1];
		break;
	case IR_SWITCH:
		dims[n++] = m->dims[0]; /* its ports: nodes */
		break;
	case IR_FAT_TREE: /* down of each level; up and width follow */
		for (n = 0; n < m->ndims && n < IR_MAX_TREE; n++)
			dims[n] = m->dims[n];
		break;
	case IR_GRAPH: /* its hosts; switches and cables follow */
		dims[n++] = m->graph->nhosts;
		break;
	case IR_DRAGONFLY: /* g, a, p, h as docs/machine-model.md names them */
		dims[n++] = m->dims[2];
		dims[n++] = m->dims[1];
		dims[n++] = m->dims[0];
		dims[n++] = m->dims[3];
		break;
	}
	fputs("\"topology\":{\"kind\":", out);
	json_put_string(out, ir_topo_name(m->topo), SIZE_MAX);
	fputs(",\"dims\":[", out);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%d", i ? "," : "", dims[i]);
	fputc(']', out);
	if (m->topo == IR_FAT_TREE) {
		fputs(",\"up\":[", out);
		for (int i = 0; i < m->ndims && i < IR_MAX_TREE; i++)
			fprintf(out, "%s%d", i ? "," : "",
			        m->dims[IR_MAX_TREE + i]);
		fputs("],\"width\":[", out);
		for (int i = 0; i < m->ndims && i < IR_MAX_TREE; i++)
			fprintf(out, "%s%d", i ? "," : "",
			        m->levels[i / 2][i % 2]);
		fputc(']', out);
	}
	if (m->topo == IR_GRAPH)
		put_graph(out, m->graph);
	if (m->topo == IR_DRAGONFLY) {
		fputs(",\"arrangement\":", out);
		json_put_string(out, ir_dfly_arrangement_names[m->dims[4]],
		                SIZE_MAX);
		fprintf(out, ",\"width\":[%d,%d,%d],\"seed\":%u",
		        m->levels[0][0], m->levels[0][1], m->levels[1][0],
		        m->wrap);
	}
	/* the keys of issue 18, only where they are not the default */
	if (m->topo == IR_TORUS && m->wrap != (1u << m->ndims) - 1u) {
		fputs(",\"wrap\":[", out);
		for (int i = 0; i < m->ndims; i++)
			fprintf(out, "%s%s", i ? "," : "",
			        m->wrap >> i & 1u ? "true" : "false");
		fputc(']', out);
	}
	if ((m->topo == IR_MESH || m->topo == IR_TORUS) &&
	    !ir_machine_is_classic(m)) {
		fputs(",\"order\":[", out);
		for (int i = 0; i < m->ndims; i++)
			fprintf(out, "%s\"%s\"", i ? "," : "",
			        ir_dim_names[m->order[i]]);
		fputc(']', out);
	}
	if (ir_machine_has_nodes(m))
		fprintf(out,
		        ",\"ranks_per_node\":%d,\"nodes\":%d,\"placement\":"
		        "\"%s\",\"node_ports\":%d",
		        (int)m->ranks_per_node, (int)m->nnodes,
		        ir_placement_names[m->placement], m->node_ports);
	else if (m->place)
		fputs(",\"placement\":\"map\"", out);
	if (m->place) {
		fputs(",\"placement_nodes\":[", out);
		for (int32_t r = 0; r < m->nranks; r++)
			fprintf(out, "%s%d", r ? "," : "", (int)ir_node_of(m, r));
		fputc(']', out);
	}
	fputc('}', out);
}

/* ,"matrix":[[src,dst,bytes],...]: every message of an irregular
 * pattern in CSR order (by source, then destination), so a checker can
 * tell what each rank must receive without the input file. */
static void put_matrix(FILE *out, const ir_matrix *x)
{
	fputs(",\"matrix\":[", out);
	for (int32_t s = 0; x && s < x->n; s++)
		for (int64_t k = x->row[s]; k < x->row[s + 1]; k++)
			fprintf(out, "%s[%" PRId32 ",%" PRId32 ",%" PRId64 "]",
			        k ? "," : "", s, x->dst[k], x->bytes[k]);
	fputc(']', out);
}

/* "collective":{...}: the kind, then only the fields that mean something
 * for it (for an irregular pattern, its whole matrix). */
static void put_collective(FILE *out, const ir_comm *c)
{
	fputs("\"collective\":{\"kind\":", out);
	json_put_string(out, ir_coll_name(c->coll), SIZE_MAX);
	switch (c->coll) {
	case IR_BCAST:
		fprintf(out,
		        ",\"root\":%" PRId32 ",\"bytes\":%" PRId64
		        ",\"segments\":%" PRId32,
		        c->root, c->bytes, c->segments > 0 ? c->segments : 1);
		break;
	case IR_SCATTER:
	case IR_GATHER:
		fprintf(out, ",\"root\":%" PRId32 ",\"bytes\":%" PRId64,
		        c->root, c->bytes);
		break;
	case IR_REDUCE:
		fprintf(out,
		        ",\"root\":%" PRId32 ",\"bytes\":%" PRId64
		        ",\"dtype\":\"%s\",\"op\":\"%s\"",
		        c->root, c->bytes, ir_dtype_name(c->dtype),
		        ir_redop_name(c->op));
		break;
	case IR_ALLTOALL:
	case IR_TRANSPOSE:
		fprintf(out, ",\"bytes\":%" PRId64, c->bytes);
		break;
	case IR_IRREGULAR:
		fprintf(out, ",\"messages\":%" PRId64 ",\"seed\":%" PRIu64,
		        c->matrix ? c->matrix->nnz : 0, c->seed);
		put_matrix(out, c->matrix);
		break;
	case IR_ALLGATHER:
		fprintf(out, ",\"bytes\":%" PRId64, c->bytes);
		break;
	case IR_REDUCE_SCATTER:
	case IR_ALLREDUCE:
		fprintf(out,
		        ",\"bytes\":%" PRId64 ",\"dtype\":\"%s\",\"op\":\"%s\""
		        ",\"reproducible\":%s",
		        c->bytes, ir_dtype_name(c->dtype), ir_redop_name(c->op),
		        c->reproducible ? "true" : "false");
		break;
	}
	fputc('}', out);
}

/* key then a time in microseconds, or null when it is not known. */
void json_put_number(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.17g", v);
	else
		fputs("null", out);
}

static void put_time(FILE *out, const char *key, double us)
{
	fputs(key, out);
	json_put_number(out, us);
}

/* "phases":[{"transfers":[{...},...]},...]: every transfer with the
 * blocks it carries as [origin,index] pairs, "reduce":true when the
 * receiver combines them, "multicast":true for a copy of a hardware
 * multicast (IR_XF_MCAST); absent means false; "path":P for a path the
 * sender picks (routing: source), absent meaning path 0. */
static void put_phases(FILE *out, const ir_plan *p)
{
	fputs("\"phases\":[", out);
	for (uint32_t i = 0; i < p->nphases; i++) {
		const ir_phase *ph = &p->phases[i];
		fputs(i ? ",{\"transfers\":[" : "{\"transfers\":[", out);
		for (uint32_t j = 0; j < ph->ntransfers; j++) {
			const ir_transfer *t = &p->transfers[ph->transfer + j];
			fprintf(out,
			        "%s{\"src\":%" PRId32 ",\"dst\":%" PRId32
			        ",\"bytes\":%" PRId64 ",\"blocks\":[",
			        j ? "," : "", t->src, t->dst, t->bytes);
			for (uint32_t k = 0; k < t->nblocks; k++) {
				const ir_block *b = &p->blocks[t->block + k];
				fprintf(out, "%s[%" PRId32 ",%" PRId32 "]",
				        k ? "," : "", b->origin, b->index);
			}
			fputc(']', out);
			if (t->flags & IR_XF_REDUCE)
				fputs(",\"reduce\":true", out);
			if (t->flags & IR_XF_MCAST)
				fputs(",\"multicast\":true", out);
			if (t->path)
				fprintf(out, ",\"path\":%" PRIu32, t->path);
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fputc(']', out);
}

int json_export(const ir_plan *p, const ir_report *r, FILE *out)
{
	const ir_machine *m = &p->machine;
	fprintf(out,
	        "{\"format\":\"ccplan-plan\",\"version\":%d,\"ranks\":%" PRId32
	        ",",
	        JSON_FORMAT_VERSION, m->nranks);
	put_topology(out, m);
	fputs(",\"routing\":", out);
	json_put_string(out, ir_routing_name(m->routing), SIZE_MAX);
	if (m->ports == IR_PORTS_ALL)
		fputs(",\"ports\":\"all\",", out);
	else
		fprintf(out, ",\"ports\":%d,", m->ports);
	put_collective(out, &p->comm);
	fputs(",\"algorithm\":", out);
	json_put_string(out, p->algorithm, IR_NAME_MAX);
	/* what the plan declares it may contain: the verifier's link and
	 * node rules are measured rather than enforced where it is true */
	fprintf(out, ",\"link_contention\":%s,\"node_contention\":%s",
	        (p->flags & IR_PLAN_LINK_CONTENTION) ? "true" : "false",
	        (p->flags & IR_PLAN_NODE_CONTENTION) ? "true" : "false");
	if (r)
		fprintf(out, ",\"lower_bound_phases\":%" PRIu32 ",",
		        r->lb_phases);
	else
		fputs(",\"lower_bound_phases\":null,", out);
	put_phases(out, p);
	if (p->sel.method != IR_SELECT_NONE) { /* algorithm: auto's choice */
		fprintf(out,
		        ",\"selection\":{\"method\":\"%s\",\"candidates\":"
		        "%" PRIu32,
		        p->sel.method == IR_SELECT_MODEL ? "model"
		                                         : "simulated",
		        p->sel.candidates);
		put_time(out, ",\"time_us\":", p->sel.time_us);
		fputs(",\"runner_up\":", out);
		if (p->sel.runner_up[0])
			json_put_string(out, p->sel.runner_up, IR_NAME_MAX);
		else
			fputs("null", out);
		put_time(out, ",\"runner_up_us\":", p->sel.runner_up_us);
		fputc('}', out);
	}
	fputs("}\n", out);
	return ferror(out) ? CCP_EIO : 0;
}
