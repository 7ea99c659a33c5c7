/*
 * placed.c - generators on a machine whose ranks are placed by a map
 * (placement: [...], docs/machine-model.md "Placement").
 *
 * A map only renames ranks: rank r sits where a block placement puts
 * the rank numbered by its position.  So every generator serves every
 * map the same way: it builds the plan over positions, on the machine
 * placed by blocks, and the plan's ranks are renamed afterwards.  A
 * route depends on the nodes of its ends alone, and position p sits on
 * the node of the rank at p, so the renamed plan uses the same links in
 * the same phases: contention-free stays contention-free.  What the
 * communication ties to ranks is renamed with them: a rooted
 * collective's root, the destination a scatter, an all-to-all, an
 * irregular pattern and a reduce-scatter give each block, and the
 * pattern's matrix.  The verifier then checks the renamed plan against
 * the real machine, as every plan.
 */
#include <stdlib.h>

#include "matrix.h"
#include "sched.h"

/* The machine and communication over positions: m placed by blocks, the
 * root at its position; c's matrix is shared, not renamed. */
static void positions(const ir_machine *m, const ir_comm *c, ir_machine *pm,
                      ir_comm *pc)
{
	*pm = *m;
	pm->placement = IR_PLACE_BLOCK;
	pm->place = NULL;
	*pc = *c;
	if ((ir_coll_kind(c->coll) & IR_CK_ROOTED) && c->root >= 0 &&
	    c->root < m->nranks)
		pc->root = m->place->pos[c->root];
}

int sch_applies_placed(const struct sch_generator *g, const ir_machine *m,
                       const ir_comm *c, char *why, size_t len)
{
	ir_machine pm;
	ir_comm pc;

	positions(m, c, &pm, &pc);
	return sch_applies(g, &pm, &pc, why, len);
}

/* The pattern x with both ends of each message at their positions. */
static int rename_matrix(const ir_matrix *x, const ir_place *pl,
                         ir_matrix **out)
{
	struct ir_edge *e = malloc(((size_t)x->nnz + 1) * sizeof *e);
	size_t bad;
	int rc;

	*out = NULL;
	if (!e)
		return CCP_ENOMEM;
	for (int32_t s = 0; s < x->n; s++)
		for (int64_t i = x->row[s]; i < x->row[s + 1]; i++)
			e[i] = (struct ir_edge){pl->pos[s], pl->pos[x->dst[i]],
			                        x->bytes[i], (uint64_t)i};
	rc = ir_matrix_from_edges(x->n, e, (size_t)x->nnz, out, &bad);
	free(e);
	return rc;
}

/* Rename the ranks of plan p, made over positions, to the ranks of m,
 * and give it m and c. */
static int rename_plan(ir_plan *p, const ir_machine *m, const ir_comm *c)
{
	const int32_t *rank = m->place->rank;
	bool dest = c->coll == IR_SCATTER || c->coll == IR_ALLTOALL ||
	            c->coll == IR_IRREGULAR || c->coll == IR_REDUCE_SCATTER;
	ir_comm keep;
	int rc;

	for (uint32_t i = 0; i < p->nblocks; i++) {
		ir_block *b = &p->blocks[i];
		b->origin = rank[b->origin];
		if (dest)
			b->index = rank[b->index];
	}
	if ((rc = ir_comm_copy(&keep, c)) != 0)
		return rc;
	keep.segments = p->comm.segments; /* the generator's choice */
	ir_comm_fini(&p->comm);
	p->comm = keep;
	/* the plan's references move from the machine of positions to m */
	ir_place_release(p->machine.place);
	ir_graph_release(p->machine.graph);
	p->machine = *m;
	ir_place_retain(p->machine.place);
	ir_graph_retain(p->machine.graph);
	for (uint32_t i = 0; i < p->ntransfers; i++) {
		ir_transfer *t = &p->transfers[i];
		t->src = rank[t->src];
		t->dst = rank[t->dst];
		/* a reduce-scatter's element blocks differ by an element,
		 * and the renamed ones are other blocks */
		if (c->coll != IR_REDUCE_SCATTER)
			continue;
		t->bytes = 0;
		for (uint32_t k = 0; k < t->nblocks; k++)
			t->bytes += ir_block_bytes(c, m->nranks,
			                           p->blocks[t->block + k]);
	}
	return 0;
}

int sch_generate(const struct sch_generator *g, const ir_machine *m,
                 const ir_comm *c, const struct sch_options *o, ir_plan *out)
{
	ir_machine pm;
	ir_comm pc;
	ir_matrix *x = NULL;
	int rc;

	if (!m->place)
		return g->generate(m, c, o, out);
	positions(m, c, &pm, &pc);
	if (c->matrix && (rc = rename_matrix(c->matrix, m->place, &x)) != 0) {
		ir_plan_init(out, m, c, g->name);
		return rc;
	}
	pc.matrix = x;
	rc = g->generate(&pm, &pc, o, out);
	ir_matrix_free(x);
	if (rc == 0)
		rc = rename_plan(out, m, c);
	return rc;
}
