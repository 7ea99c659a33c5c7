/*
 * explain.c - print a plan as a table: one row per phase with transfers,
 * bytes, the busiest link, the ports used and the hops (on a machine
 * with several ranks per node also the transfers through shared memory
 * and the busiest node's network sends and receives), then the plan
 * against its lower bound.  Reads only what the verifier measured and the
 * plan itself, except explain_placement, which searches for a placement
 * (schedules/place.c) to say what one would gain.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "place.h"
#include "sched.h"
#include "select.h"

void explain_machine(const ir_machine *m, char *buf, size_t len)
{
	char shape[96] = "";
	switch (m->topo) {
	case IR_MESH:
	case IR_TORUS:
		for (int k = 0, o = 0; k < m->ndims; k++)
			o += snprintf(shape + o, sizeof shape - (size_t)o,
			              "%s%d", k ? "x" : "", m->dims[k]);
		break;
	case IR_HYPERCUBE:
		snprintf(shape, sizeof shape, "%d-cube", m->ndims);
		break;
	case IR_HPAM:
		snprintf(shape, sizeof shape, "%dx%d over %dx%d",
		         m->levels[0][0], m->levels[0][1], m->levels[1][0],
		         m->levels[1][1]);
		break;
	case IR_SWITCH:
		snprintf(shape, sizeof shape, "%d ports", (int)m->nranks);
		break;
	case IR_FAT_TREE: {
		/* XGFT(h; down...; up...) and the widths of wide levels */
		int o = snprintf(shape, sizeof shape, "XGFT(%d;", m->ndims);
		for (int i = 0; i < m->ndims && o < (int)sizeof shape; i++)
			o += snprintf(shape + o, sizeof shape - (size_t)o,
			              "%s%d", i ? "," : " ", m->dims[i]);
		for (int i = 0; i < m->ndims && o < (int)sizeof shape; i++)
			o += snprintf(shape + o, sizeof shape - (size_t)o,
			              "%s%d", i ? "," : "; ",
			              m->dims[IR_MAX_TREE + i]);
		bool wide = false;
		for (int i = 0; i < m->ndims; i++)
			wide |= m->levels[i / 2][i % 2] > 1;
		for (int i = 0; wide && i < m->ndims && o < (int)sizeof shape;
		     i++)
			o += snprintf(shape + o, sizeof shape - (size_t)o,
			              "%s%d", i ? "," : "; width ",
			              m->levels[i / 2][i % 2]);
		if (o < (int)sizeof shape)
			snprintf(shape + o, sizeof shape - (size_t)o, ")");
		break;
	}
	case IR_GRAPH:
		snprintf(shape, sizeof shape,
		         "of %d hosts%s, %d switches, %u cables",
		         (int)m->graph->nhosts,
		         m->graph->key ? " (a job's part)" : "",
		         (int)m->graph->nswitches, m->graph->ncables);
		break;
	case IR_DRAGONFLY:
		/* groups x routers x hosts, global links per router */
		snprintf(shape, sizeof shape,
		         "%dx%dx%d, h %d, %s, width %d/%d/%d", m->dims[2],
		         m->dims[1], m->dims[0], m->dims[3],
		         ir_dfly_arrangement_names[m->dims[4]], m->levels[0][0],
		         m->levels[0][1], m->levels[1][0]);
		break;
	}
	char ports[32];
	if (m->ports == IR_PORTS_ALL)
		snprintf(ports, sizeof ports, "all-port");
	else if (m->ports == 1)
		snprintf(ports, sizeof ports, "one-port");
	else
		snprintf(ports, sizeof ports, "%d-port", m->ports);
	int o = snprintf(buf, len, "%s %s, %s routing, %s, %d ranks",
	                 ir_topo_name(m->topo), shape,
	                 ir_routing_name(m->routing), ports, (int)m->nranks);
	if (o < 0 || (size_t)o >= len)
		return;
	if (!ir_machine_has_nodes(m)) {
		if (m->place)
			snprintf(buf + o, len - (size_t)o, ", placed by a map");
		return;
	}
	char np[32] = "one per network link";
	if (m->node_ports != IR_PORTS_ALL)
		snprintf(np, sizeof np, "%d", m->node_ports);
	snprintf(buf + o, len - (size_t)o,
	         ", %d per node (%s placement), node network ports %s",
	         (int)m->ranks_per_node,
	         m->placement < IR_NPLACEMENTS
	                 ? ir_placement_names[m->placement]
	                 : "?",
	         np);
}

static void explain_comm(const ir_comm *c, char *buf, size_t len)
{
	switch (c->coll) {
	case IR_BCAST:
		snprintf(buf, len,
		         "broadcast from rank %d, %lld bytes in %d segment%s",
		         (int)c->root, (long long)c->bytes, (int)c->segments,
		         c->segments == 1 ? "" : "s");
		break;
	case IR_SCATTER:
	case IR_GATHER:
	case IR_REDUCE:
		snprintf(buf, len, "%s at rank %d, %lld bytes per rank",
		         ir_coll_name(c->coll), (int)c->root,
		         (long long)c->bytes);
		break;
	case IR_ALLTOALL:
	case IR_TRANSPOSE:
		snprintf(buf, len, "%s, %lld bytes per block",
		         ir_coll_name(c->coll), (long long)c->bytes);
		break;
	case IR_IRREGULAR:
		snprintf(buf, len, "irregular pattern, %lld messages",
		         (long long)(c->matrix ? c->matrix->nnz : 0));
		break;
	case IR_ALLGATHER:
		snprintf(buf, len, "allgather, %lld bytes per rank",
		         (long long)c->bytes);
		break;
	case IR_REDUCE_SCATTER:
	case IR_ALLREDUCE:
		snprintf(buf, len, "%s of %lld bytes (%s %s)%s",
		         ir_coll_name(c->coll), (long long)c->bytes,
		         ir_dtype_name(c->dtype), ir_redop_name(c->op),
		         c->reproducible ? ", reproducible required" : "");
		break;
	}
}

/* Whether a reduction's ranks agree bit for bit, in words. */
static void explain_reproducible(const ir_plan *p, const ir_report *r,
                                 FILE *out)
{
	const ir_comm *c = &p->comm;
	if (!(ir_coll_kind(c->coll) & IR_CK_REDUCES))
		return;
	bool exact = c->dtype != IR_DT_FLOAT && c->dtype != IR_DT_DOUBLE;
	exact = exact || c->op == IR_OP_MIN || c->op == IR_OP_MAX;
	fprintf(out, "\nreproducible %s, in %d element block%s",
	        r->reproducible
	                ? "yes: every rank that ends with a block combines "
	                  "it in the same order"
	                : "no: ranks combine some block in different orders",
	        (int)ir_reduce_blocks(c, p->machine.nranks),
	        ir_reduce_blocks(c, p->machine.nranks) == 1 ? "" : "s");
	if (exact)
		fprintf(out, "; %s %s is exact in any order",
		        ir_dtype_name(c->dtype), ir_redop_name(c->op));
}

/* Loads by class of links, on machines whose links are not all alike
 * (several classes) or whose routing adapts: a table of the classes the
 * machine has, each with its links, its busiest link (load over
 * capacity, the worst case over every choice of paths when the routing
 * adapts) and its mean load (the busiest phase's hops on the class over
 * its capacity).  Past 2^28 link ids it says it skipped them. */
static int explain_classes(const ir_plan *p, FILE *out)
{
	ir_class_load cl[IR_NLINK_CLASSES];
	const ir_machine *m = &p->machine;
	bool adapts = ir_routing_adapts(m);
	int classes = 0, rc = ir_class_loads(p, cl);

	if (rc == CCP_ERANGE) {
		fprintf(out, "\nlinks       by class: not counted (more than "
		             "2^28 link ids)");
		return 0;
	}
	if (rc != 0)
		return rc;
	for (int c = 0; c < IR_NLINK_CLASSES; c++)
		classes += cl[c].links > 0;
	if (classes < 2 && !adapts)
		return 0;
	fprintf(out,
	        "\nlinks       class    links   hops  busiest  mean   (%s)",
	        adapts ? "busiest: worst case over every choice of paths"
	               : "busiest: one link's load over its capacity");
	for (int c = 0; c < IR_NLINK_CLASSES; c++)
		if (cl[c].links)
			fprintf(out, "\n            %-6s %7llu %6llu %8u  %.2f",
			        ir_link_class_names[c],
			        (unsigned long long)cl[c].links,
			        (unsigned long long)cl[c].hops, cl[c].worst,
			        cl[c].mean);
	return 0;
}

/* The plan's header, per-phase table (when table) and summary. */
static int explain_view(const struct compiled *c, FILE *out, bool table)
{
	const ir_plan *p = &c->plan;
	const ir_report *r = &c->report;
	const ir_machine *m = &p->machine;
	char line[256];
	int32_t n = m->nranks;
	uint32_t *sends = calloc((size_t)n, sizeof *sends);
	uint32_t *recvs = calloc((size_t)n, sizeof *recvs);
	/* several ranks per node: network sends and receives per node */
	bool nodes = ir_machine_has_nodes(m);
	size_t nn = nodes ? (size_t)m->nnodes : 1;
	uint32_t *nsends = calloc(nn, sizeof *nsends);
	uint32_t *nrecvs = calloc(nn, sizeof *nrecvs);
	if (!sends || !recvs || !nsends || !nrecvs) {
		free(sends);
		free(recvs);
		free(nsends);
		free(nrecvs);
		return CCP_ENOMEM;
	}
	const struct sch_generator *g = sch_find(p->algorithm);
	fprintf(out, "algorithm   %s%s%s\n", p->algorithm, g ? " - " : "",
	        g ? g->summary : "");
	const ir_selection *sel = &p->sel;
	if (sel->method != IR_SELECT_NONE) {
		bool timed = !isnan(sel->time_us);
		fprintf(out,
		        "chosen by   algorithm: auto, %s, among %u "
		        "candidates",
		        !timed ? "by phases, a contended phase counted at "
		                 "its busiest link's load (the machine lacks "
		                 "the costs to time them)"
		        : sel->method == IR_SELECT_MODEL ? "by the cost model"
		                                         : "by simulated time",
		        sel->candidates);
		if (timed)
			fprintf(out, ": %.2f us", sel->time_us);
		if (sel->runner_up[0])
			fprintf(out, "; runner-up %s", sel->runner_up);
		if (sel->runner_up[0] && timed)
			fprintf(out, ", %.2f us", sel->runner_up_us);
		fputc('\n', out);
	} else if (!table) {
		fprintf(out, "chosen by   the input (algorithm: %s)\n",
		        p->algorithm);
	}
	explain_machine(m, line, sizeof line);
	fprintf(out, "machine     %s\n", line);
	explain_comm(&p->comm, line, sizeof line);
	fprintf(out, "collective  %s\n", line);
	fprintf(out, "contention  %s\n",
	        p->flags & (IR_PLAN_LINK_CONTENTION | IR_PLAN_NODE_CONTENTION)
	                ? "allowed by the algorithm"
	                : "none: the plan declares none, and the verifier "
	                  "checks it");
	if (table)
		fprintf(out, "\n%5s  %9s  %12s  %8s  %5s  %5s  %7s%s\n",
		        "phase", "transfers", "bytes", "max-link", "sends",
		        "recvs", "hops",
		        nodes ? "  shm-xfers  net-sends  net-recvs" : "");
	for (uint32_t ph = 0; table && ph < p->nphases; ph++) {
		const ir_phase *f = &p->phases[ph];
		uint64_t bytes = 0, hops = 0, shm = 0;
		uint32_t ms = 0, mr = 0, mns = 0, mnr = 0;
		for (uint32_t t = f->transfer; t < f->transfer + f->ntransfers;
		     t++) {
			const ir_transfer *x = &p->transfers[t];
			bytes += (uint64_t)x->bytes;
			hops += (uint64_t)ir_hops(m, x->src, x->dst);
			if (++sends[x->src] > ms)
				ms = sends[x->src];
			if (++recvs[x->dst] > mr)
				mr = recvs[x->dst];
			if (!nodes)
				continue;
			/* as the verifier counts them (ir_report) */
			int32_t a = ir_node_of(m, x->src);
			int32_t b = ir_node_of(m, x->dst);
			if (a == b) {
				shm++;
				continue;
			}
			if (++nsends[a] > mns)
				mns = nsends[a];
			if (++nrecvs[b] > mnr)
				mnr = nrecvs[b];
		}
		for (uint32_t t = f->transfer; t < f->transfer + f->ntransfers;
		     t++) {
			const ir_transfer *x = &p->transfers[t];
			sends[x->src] = recvs[x->dst] = 0;
			if (nodes)
				nsends[ir_node_of(m, x->src)] =
				        nrecvs[ir_node_of(m, x->dst)] = 0;
		}
		fprintf(out, "%5u  %9u  %12llu  %8u  %5u  %5u  %7llu", ph,
		        f->ntransfers, (unsigned long long)bytes,
		        r->link_load ? r->link_load[ph] : 0, ms, mr,
		        (unsigned long long)hops);
		if (nodes)
			fprintf(out, "  %9llu  %9u  %9u",
			        (unsigned long long)shm, mns, mnr);
		fputc('\n', out);
	}
	fprintf(out,
	        "\ntotal       %u phases, %llu transfers, %llu bytes, %llu "
	        "hops "
	        "(%.2f per transfer)\n",
	        r->phases, (unsigned long long)r->transfers,
	        (unsigned long long)r->bytes, (unsigned long long)r->hops,
	        r->transfers ? (double)r->hops / (double)r->transfers : 0.0);
	fprintf(out, "lower bound %u phases", r->lb_phases);
	if (r->lb_spread)
		fprintf(out, "; spreading %u", r->lb_spread);
	if (r->lb_degree)
		fprintf(out, ", degree %u", r->lb_degree);
	if (r->lb_link)
		fprintf(out, ", link load %u", r->lb_link);
	if (r->lb_phases)
		fprintf(out, "  (plan is %.2fx the bound)",
		        (double)r->phases / (double)r->lb_phases);
	/* phases that overrun a rank's ports are few but not short: the
	 * phase count flatters them, the prediction does not */
	if ((p->flags & IR_PLAN_NODE_CONTENTION) && m->ports != IR_PORTS_ALL &&
	    (r->max_node_sends > (uint32_t)m->ports ||
	     r->max_node_recvs > (uint32_t)m->ports))
		fprintf(out,
		        "\n            but a phase overruns the ports: a rank "
		        "sends up to %u and receives up to %u at once through "
		        "%d port%s; the prediction serialises them",
		        r->max_node_sends, r->max_node_recvs, m->ports,
		        m->ports == 1 ? "" : "s");
	enum model_kind mk;
	char why[512];
	double us = select_predict(p, r, &mk, why, sizeof why);
	if (isnan(us))
		fprintf(out, "\npredicted   unknown (%s)", why);
	else
		fprintf(out, "\npredicted   %.2f us by the %s model", us,
		        model_kind_name(mk));
	/* the rules checked; contention the algorithm allows is measured */
	bool node_free = !(p->flags & IR_PLAN_NODE_CONTENTION);
	bool link_free = !(p->flags & IR_PLAN_LINK_CONTENTION);
	fprintf(out, "\nverified    causality, delivery%s%s: %s",
	        node_free ? ", node contention" : "",
	        link_free ? ", link contention" : "", r->ok ? "ok" : "FAILED");
	if (!node_free || !link_free)
		fprintf(out, "; %s%s%s allowed and measured",
		        node_free ? "" : "node",
		        !node_free && !link_free ? " and " : "",
		        link_free ? "" : "link contention");
	fprintf(out,
	        "\n            max link load %u, max sends %u, max receives "
	        "%u, "
	        "duplicates %llu",
	        r->max_link_load, r->max_node_sends, r->max_node_recvs,
	        (unsigned long long)r->duplicates);
	if (!link_free)
		fprintf(out, ", transfers in link contention %llu",
		        (unsigned long long)r->contended);
	if (nodes)
		fprintf(out,
		        "\n            shared-memory transfers %llu, max "
		        "network sends per node %u, max network receives per "
		        "node %u",
		        (unsigned long long)r->shm_transfers, r->max_net_sends,
		        r->max_net_recvs);
	explain_reproducible(p, r, out);
	int rc = explain_classes(p, out);
	fputc('\n', out);
	free(sends);
	free(recvs);
	free(nsends);
	free(nrecvs);
	return rc;
}

int explain_plan(const struct compiled *c, FILE *out)
{
	return explain_view(c, out, true);
}

int explain_summary(const struct compiled *c, FILE *out)
{
	return explain_view(c, out, false);
}

/* What a buffer is called in the listing. */
static const char *buf_name(uint8_t b)
{
	return b == IR_BUF_SEND   ? "send"
	       : b == IR_BUF_RECV ? "recv"
	                          : "scratch";
}

int explain_rank(const struct compiled *c, int32_t rank, FILE *out)
{
	const ir_plan *p = &c->plan;
	if (rank < 0 || rank >= p->machine.nranks || !c->slices)
		return CCP_EINVAL;
	const ir_slice *s = &c->slices[rank];
	int co[IR_MAX_CUBE_DIM];
	ir_coords(&p->machine, rank, co);
	fprintf(out, "rank %d of %d (%s)", (int)rank, (int)p->machine.nranks,
	        p->algorithm);
	if (p->machine.topo == IR_MESH || p->machine.topo == IR_TORUS) {
		fprintf(out, " at (");
		for (int d = 0; d < p->machine.ndims; d++)
			fprintf(out, "%s%d", d ? ", " : "", co[d]);
		fprintf(out, ")");
	}
	fprintf(out,
	        ": buffers send %llu, recv %llu, scratch %llu bytes; %u "
	        "operations\n\n",
	        (unsigned long long)s->send_bytes,
	        (unsigned long long)s->recv_bytes,
	        (unsigned long long)s->scratch_bytes, s->nops);
	fprintf(out, "%5s  %-11s %5s %6s %10s  %s\n", "addr", "op", "phase",
	        "peer", "bytes", "buffers");
	for (uint32_t i = 0; i < s->nops; i++) {
		const ir_op *o = &s->ops[i];
		char peer[16] = "";
		if (o->peer >= 0)
			snprintf(peer, sizeof peer, "%d", (int)o->peer);
		fprintf(out, "%5u  %-11s %5u %6s %10llu", i,
		        ir_op_name((enum ir_opcode)o->code), o->phase, peer,
		        (unsigned long long)o->bytes);
		for (uint32_t v = 0; v < o->niov && o->iov + v < s->niovs;
		     v++) {
			const ir_iov *x = &s->iovs[o->iov + v];
			if (v == 3 && o->niov > 4) {
				fprintf(out, " ... %u more", o->niov - 3);
				break;
			}
			fprintf(out, "%s%s[%llu+%llu]", v ? " " : "  ",
			        buf_name(x->buf), (unsigned long long)x->off,
			        (unsigned long long)x->len);
		}
		fputc('\n', out);
	}
	return 0;
}

/* explain searches for a placement up to this many ranks, where the
 * search takes at most about a second (docs/placement.md); ccplan place
 * searches at any size. */
#define EXPLAIN_PLACE_MAX_RANKS 4096
#define EXPLAIN_PLACE_SEED      1

int explain_placement(const struct compiled *c, FILE *out)
{
	const ir_plan *p = &c->plan;
	const ir_report *r = &c->report;
	const ir_machine *m = &p->machine;
	const ir_matrix *x = p->comm.matrix;
	uint32_t cls[IR_NLINK_CLASSES], link = 0;
	int rc, classes = 0;

	/* the degree and link terms bound direct plans of a matrix that
	 * keep their links free */
	if (p->comm.coll != IR_IRREGULAR || !x || !r->direct || !r->ok ||
	    (p->flags & IR_PLAN_LINK_CONTENTION) || x->nnz == 0)
		return 0;
	if ((rc = ir_link_bound(m, &p->comm, cls, &link)) != 0)
		return rc;
	if (link == 0) {
		fprintf(out, "\nplacement   not judged: the link term is not "
		             "counted past 2^22 messages or 2^26 links\n");
		return 0;
	}
	fprintf(out, "\nplacement   ");
	if (link > r->lb_degree)
		fprintf(out,
		        "the links bound this plan: link term %u, %.2fx the "
		        "degree term %u",
		        link, (double)link / (r->lb_degree ? r->lb_degree : 1),
		        r->lb_degree);
	else
		fprintf(out,
		        "the degrees bound this plan: degree term %u, link "
		        "term %u",
		        r->lb_degree, link);
	for (int k = 0; k < IR_NLINK_CLASSES; k++)
		classes += cls[k] > 0;
	if (classes > 1) {
		fprintf(out, "\n            link term by class:");
		for (int k = 0, first = 1; k < IR_NLINK_CLASSES; k++)
			if (cls[k]) {
				fprintf(out, "%s %s %u", first ? "" : ",",
				        ir_link_class_names[k], cls[k]);
				first = 0;
			}
	}
	/* only the link term and the nodes' degrees depend on where the
	 * ranks sit */
	if (link <= r->lb_degree && !ir_machine_has_nodes(m)) {
		fprintf(out, "; placement would not lower the bound\n");
		return 0;
	}
	if (m->nranks > EXPLAIN_PLACE_MAX_RANKS) {
		fprintf(out,
		        "\n            placement not searched above %d ranks "
		        "(%d here): ccplan place IN.yaml searches\n",
		        EXPLAIN_PLACE_MAX_RANKS, (int)m->nranks);
		return 0;
	}
	int32_t *node = malloc((size_t)m->nranks * sizeof *node);
	struct sch_place_stats st;
	char err[160] = "";
	if (!node)
		return CCP_ENOMEM;
	/* the seed is said, so that the command finds the same placement
	 * (ccplan place takes IN's seed: by default) */
	rc = sch_place(m, x, EXPLAIN_PLACE_SEED, node, &st, err, sizeof err);
	free(node);
	if (rc == CCP_ENOMEM)
		return rc;
	if (rc)
		fprintf(out, "\n            no placement searched: %s\n", err);
	else if (st.bound_after < st.bound_before)
		fprintf(out,
		        "\n            ccplan place IN.yaml --seed %d would "
		        "lower the bound from %u to %u (link term %u -> %u, "
		        "hops %llu -> %llu)\n",
		        EXPLAIN_PLACE_SEED, st.bound_before, st.bound_after,
		        st.link_before, st.link_after,
		        (unsigned long long)st.hops_before,
		        (unsigned long long)st.hops_after);
	else
		fprintf(out,
		        "\n            ccplan place IN.yaml --seed %d finds no "
		        "placement with a lower bound than %u\n",
		        EXPLAIN_PLACE_SEED, st.bound_before);
	return 0;
}
