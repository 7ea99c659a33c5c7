/*
 * test_nd_generators.c - the generators of schedules/ on the machines
 * of today (sch_domain.takes): meshes and tori of 4 to 6 dimensions, a
 * torus that wraps some dimensions only (the Tofu-D shape),
 * a dimension order other than x, y, z, and nodes of 2 to 4 ranks placed
 * in blocks or cyclically with one network port or one per link.
 *
 * Every generator that declares a feature must apply to every such
 * machine its topologies and shapes allow, and its plan must pass the
 * verifier with the phase count its algorithm is defined by, computed
 * here from the extents (n-D counts in docs/algorithms.md).  Under
 * `contention: forbid` the plans of the generators that split must also
 * keep every node within its network ports.  A generator that does not
 * declare a feature must refuse a machine with it, saying so.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir.h"
#include "irregular.h"
#include "matrix.h"
#include "sched.h"
#include "support.h"

/* ---- machines ---------------------------------------------------------- */

static const int d4[] = {2, 3, 2, 2}, d5[] = {3, 2, 2, 2, 2},
                 tofu[] = {2, 3, 2, 2, 3, 2}, p4[] = {4, 4, 2, 2},
                 p5[] = {2, 2, 2, 2, 2}, d3[] = {4, 3, 2}, d2[] = {4, 4},
                 sw[] = {8}, cube[] = {2, 2, 2};
/* Tofu-D wraps x, y, z and b: [1, 1, 1, 0, 1, 0] */
#define TOFU_WRAP 0x17u
static const uint8_t zxy[] = {2, 0, 1}, ayxz[] = {3, 1, 0, 2}, yx[] = {1, 0};

#define MAX_MACHINES 24
static ir_machine ms[MAX_MACHINES];
static const char *names[MAX_MACHINES];
static int nms;

static void add(const char *name, ir_machine m)
{
	assert_true(nms < MAX_MACHINES);
	names[nms] = name;
	ms[nms++] = m;
}

/* The machines of the test, one rank per node first. */
static void machines(void)
{
	if (nms)
		return;
	add("4-D mesh 2x3x2x2", tu_grid(IR_MESH, 4, d4, 0, NULL, 1, 0, 0, 0));
	add("4-D torus 2x3x2x2", tu_grid(IR_TORUS, 4, d4, 0, NULL, 1, 0, 0, 0));
	add("5-D torus 3x2x2x2x2",
	    tu_grid(IR_TORUS, 5, d5, 0, NULL, 1, 0, 0, 0));
	add("Tofu-shaped 2x3x2x2x3x2",
	    tu_grid(IR_TORUS, 6, tofu, TOFU_WRAP, NULL, 1, 0, 0, 0));
	add("4-D mesh 4x4x2x2", tu_grid(IR_MESH, 4, p4, 0, NULL, 1, 0, 0, 0));
	add("5-D mesh 2x2x2x2x2", tu_grid(IR_MESH, 5, p5, 0, NULL, 1, 0, 0, 0));
	add("4-D torus 4x4x2x2 wrapping x,y,a routed a y x z",
	    tu_grid(IR_TORUS, 4, p4, 0xbu, ayxz, 1, 0, 0, 0));
	add("3-D mesh 4x3x2 routed z x y",
	    tu_grid(IR_MESH, 3, d3, 0, zxy, 1, 0, 0, 0));
	add("3-D torus 4x3x2 wrapping x,z",
	    tu_grid(IR_TORUS, 3, d3, 0x5u, NULL, 1, 0, 0, 0));
	add("2-D mesh 4x4 routed y x",
	    tu_grid(IR_MESH, 2, d2, 0, yx, 1, 0, 0, 0));
	add("2-D torus 4x4 wrapping x routed y x",
	    tu_grid(IR_TORUS, 2, d2, 0x1u, yx, 1, 0, 0, 0));
	add("4-D mesh 2x3x2x2, one port",
	    tu_grid(IR_MESH, 4, d4, 0, NULL, 1, 0, 0, 1));
	add("4x4 mesh of 2-rank nodes, block, 1 node port",
	    tu_grid(IR_MESH, 2, d2, 0, NULL, 2, IR_PLACE_BLOCK, 1, 0));
	add("4x4 mesh of 2-rank nodes, cyclic, all node ports",
	    tu_grid(IR_MESH, 2, d2, 0, NULL, 2, IR_PLACE_CYCLIC, 0, 0));
	add("4x4 torus of 4-rank nodes, cyclic, 1 node port",
	    tu_grid(IR_TORUS, 2, d2, 0, NULL, 4, IR_PLACE_CYCLIC, 1, 0));
	add("2x3x2x2 torus of 3-rank nodes, block, all node ports",
	    tu_grid(IR_TORUS, 4, d4, 0, NULL, 3, IR_PLACE_BLOCK, 0, 0));
	add("4x4x2x2 mesh of 2-rank nodes, cyclic, 1 node port, one port",
	    tu_grid(IR_MESH, 4, p4, 0, NULL, 2, IR_PLACE_CYCLIC, 1, 1));
	add("8-port switch of 4-rank nodes, block, 1 node port",
	    tu_grid(IR_SWITCH, 1, sw, 0, NULL, 4, IR_PLACE_BLOCK, 1, 0));
	add("8-port switch of 2-rank nodes, cyclic, all node ports",
	    tu_grid(IR_SWITCH, 1, sw, 0, NULL, 2, IR_PLACE_CYCLIC, 0, 0));
	add("3-cube of 2-rank nodes, block, 1 node port",
	    tu_grid(IR_HYPERCUBE, 3, cube, 0, NULL, 2, IR_PLACE_BLOCK, 1, 0));
	add("3-cube of 4-rank nodes, cyclic, all node ports",
	    tu_grid(IR_HYPERCUBE, 3, cube, 0, NULL, 4, IR_PLACE_CYCLIC, 0, 0));
}

/* The SCH_TAKES_* features of m (as sch_applies sees them). */
static unsigned features(const ir_machine *m)
{
	unsigned f = 0;
	bool g = m->topo == IR_MESH || m->topo == IR_TORUS;
	if (m->topo == IR_TORUS && m->wrap != (1u << m->ndims) - 1u)
		f |= SCH_TAKES_WRAP;
	for (int k = 0; g && k < m->ndims; k++)
		if (m->order[k] != k)
			f |= SCH_TAKES_ORDER;
	if (g && m->ndims > 3)
		f |= SCH_TAKES_ND;
	if (m->ranks_per_node > 1)
		f |= SCH_TAKES_NODES;
	return f;
}

/* ---- the phase counts ---------------------------------------------------- */

/* ceil(lg n) */
static uint32_t clg(int64_t n)
{
	uint32_t l = 0;
	while ((INT64_C(1) << l) < n)
		l++;
	return l;
}

static bool is_pow2(int64_t n)
{
	return n > 0 && (n & (n - 1)) == 0;
}

/* The extents a generator of dimensions halves: a hypercube's 2s, a
 * switch's one line of nodes. */
static int extents(const ir_machine *m, int *e)
{
	if (m->topo == IR_MESH || m->topo == IR_TORUS) {
		memcpy(e, m->dims, (size_t)m->ndims * sizeof *e);
		return m->ndims;
	}
	if (m->topo == IR_HYPERCUBE) {
		for (int d = 0; d < m->ndims; d++)
			e[d] = 2;
		return m->ndims;
	}
	e[0] = m->nnodes;
	return 1;
}

/* sum over dimensions of ceil(lg e_d): the binomial tree's halvings */
static uint32_t sum_clg(const ir_machine *m)
{
	int e[IR_MAX_CUBE_DIM], nd = extents(m, e);
	uint32_t s = 0;
	for (int d = 0; d < nd; d++)
		s += clg(e[d]);
	return s;
}

/* sum over dimensions of (e_d - 1): a ring along every line */
static uint32_t sum_lines(const ir_machine *m)
{
	uint32_t s = 0;
	for (int d = 0; d < m->ndims; d++)
		s += (uint32_t)m->dims[d] - 1;
	return s;
}

/* What each generator needs of a machine beyond its declared features,
 * and the phases of its plan (0: no closed form; its bound is checked
 * instead). */
enum need {
	ANY = 0,
	POW2_RANKS = 1,  /* a power-of-two number of ranks */
	POW2_SIDES = 2,  /* power-of-two extents */
	TWO_D = 4,       /* a 1-D or 2-D mesh or torus */
	SQUARE_2D = 8,   /* a square 2-D mesh or torus */
	MESH_ONLY = 16,  /* a mesh */
	TORUS_ONLY = 32, /* a torus */
	ONE_NODE = 64,   /* several ranks per node only on one node */
};

struct expect {
	const struct sch_generator *g;
	unsigned needs;
	uint32_t (*phases)(const ir_machine *m, const ir_comm *c);
	bool free; /* contention-free on one rank per node */
};

static uint32_t ph_binomial(const ir_machine *m, const ir_comm *c)
{
	(void)c;
	return sum_clg(m);
}

static uint32_t ph_twice_binomial(const ir_machine *m, const ir_comm *c)
{
	(void)c;
	return 2 * sum_clg(m);
}

static uint32_t ph_n_minus_1(const ir_machine *m, const ir_comm *c)
{
	(void)c;
	return (uint32_t)m->nranks - 1;
}

static uint32_t ph_pex_gen(const ir_machine *m, const ir_comm *c)
{
	(void)c;
	return (UINT32_C(1) << clg(m->nranks)) - 1;
}

static uint32_t ph_rex(const ir_machine *m, const ir_comm *c)
{
	(void)c;
	return clg(m->nranks);
}

static uint32_t ph_one(const ir_machine *m, const ir_comm *c)
{
	(void)m, (void)c;
	return 1;
}

static uint32_t ph_tree(const ir_machine *m, const ir_comm *c)
{
	(void)c;
	return clg(m->dims[0]) + clg(m->dims[1]);
}

static uint32_t ph_ring(const ir_machine *m, const ir_comm *c)
{
	uint32_t n = (uint32_t)m->nranks - 1;
	return c->coll == IR_ALLREDUCE ? 2 * n : n;
}

/* lg q steps among the largest power of two q <= n, and one phase to
 * fold the others in and one to give them the result when q < n */
static uint32_t ph_rd(const ir_machine *m, const ir_comm *c)
{
	(void)c;
	int64_t q = sch_pow2_floor(m->nranks);
	return clg(q) + (q < m->nranks ? 2 : 0);
}

static uint32_t ph_bruck(const ir_machine *m, const ir_comm *c)
{
	(void)c;
	return clg(m->nranks);
}

/* the fold, lg q halvings, then the blocks participants hold for other
 * ranks, one a phase (schedules/allreduce.c: at most two) */
static uint32_t ph_rh(const ir_machine *m, const ir_comm *c)
{
	(void)c;
	int64_t n = m->nranks, q = sch_pow2_floor(m->nranks);
	uint32_t most = 0;
	for (int64_t r = 0; r < q; r++) {
		uint32_t foreign = 0;
		for (int64_t k = r * n / q; k < (r + 1) * n / q; k++)
			foreign += k != r;
		most = foreign > most ? foreign : most;
	}
	return (q < n ? 1 : 0) + clg(q) + most;
}

static uint32_t ph_rab(const ir_machine *m, const ir_comm *c)
{
	(void)c;
	int64_t q = sch_pow2_floor(m->nranks);
	return 2 * clg(q) + (q < m->nranks ? 2 : 0);
}

static uint32_t ph_lg_plus_ring(const ir_machine *m, const ir_comm *c)
{
	(void)c;
	return clg(m->nranks) + (uint32_t)m->nranks - 1;
}

static uint32_t ph_chain(const ir_machine *m, const ir_comm *c)
{
	return (uint32_t)m->nranks - 2 + (uint32_t)c->segments;
}

static uint32_t ph_bucket(const ir_machine *m, const ir_comm *c)
{
	return (c->coll == IR_ALLREDUCE ? 2 : 1) * sum_lines(m);
}

static uint32_t ph_swing(const ir_machine *m, const ir_comm *c)
{
	(void)c;
	return 2 * clg(m->nranks);
}

static uint32_t ph_swing_latency(const ir_machine *m, const ir_comm *c)
{
	(void)c;
	return clg(m->nranks);
}

static const struct expect expects[] = {
        {&sch_binomial, ONE_NODE, ph_binomial, true},
        {&sch_linear, 0, ph_n_minus_1, true},
        {&sch_tree_scatter, TWO_D | MESH_ONLY, ph_tree, true},
        {&sch_tree_gather, TWO_D | MESH_ONLY, ph_tree, true},
        {&sch_transpose_direct, SQUARE_2D, ph_one, false},
        {&sch_pex, POW2_RANKS, ph_n_minus_1, false},
        {&sch_pex_gen, 0, ph_pex_gen, false},
        {&sch_gen, 0, ph_n_minus_1, false},
        {&sch_rex, POW2_SIDES, ph_rex, false},
        {&sch_ipex, TWO_D, ph_n_minus_1, false},
        {&sch_ac, 0, ph_one, false},
        {&sch_lp, 0, NULL, false},
        {&sch_rs_n, 0, NULL, false},
        {&sch_rs_nl, 0, NULL, true},
        {&sch_color, 0, NULL, false},
        {&sch_link_aware, 0, NULL, true},
        {&sch_sized, 0, NULL, true},
        {&sch_ring, 0, ph_ring, false},
        {&sch_recursive_doubling, 0, ph_rd, false},
        {&sch_bruck, 0, ph_bruck, false},
        {&sch_recursive_halving, 0, ph_rh, false},
        {&sch_rabenseifner, 0, ph_rab, false},
        {&sch_reduce_bcast, 0, ph_twice_binomial, true},
        {&sch_scatter_allgather, 0, ph_lg_plus_ring, false},
        {&sch_reduce_scatter_gather, 0, ph_lg_plus_ring, false},
        {&sch_pairwise, 0, ph_n_minus_1, false},
        {&sch_chain, 0, ph_chain, false},
        {&sch_bucket, 0, ph_bucket, true},
        {&sch_swing, POW2_SIDES | TORUS_ONLY, ph_swing, false},
        {&sch_swing_latency, POW2_SIDES | TORUS_ONLY, ph_swing_latency, false},
};

/* Whether m meets what x needs beyond its declared domain data. */
static bool meets(const struct expect *x, const ir_machine *m)
{
	int e[IR_MAX_CUBE_DIM], nd = extents(m, e);
	bool gridded = m->topo == IR_MESH || m->topo == IR_TORUS;
	if ((x->needs & POW2_RANKS) && !is_pow2(m->nranks))
		return false;
	for (int d = 0; d < nd && (x->needs & POW2_SIDES); d++)
		if (!is_pow2(e[d]))
			return false;
	if ((x->needs & TWO_D) && (!gridded || m->ndims > 2))
		return false;
	if ((x->needs & SQUARE_2D) &&
	    (!gridded || m->ndims != 2 || m->dims[0] != m->dims[1]))
		return false;
	if ((x->needs & MESH_ONLY) && m->topo != IR_MESH)
		return false;
	if ((x->needs & TORUS_ONLY) && m->topo != IR_TORUS)
		return false;
	if ((x->needs & ONE_NODE) && ir_machine_has_nodes(m) && m->nnodes > 1)
		return false;
	return true;
}

/* A communication of coll on m that g takes: a vector of one double per
 * rank, the chain's message in 4 segments, a 3-regular pattern. */
static ir_comm comm_on(const struct sch_generator *g, enum ir_coll coll,
                       const ir_machine *m)
{
	int32_t root = m->nranks > 5 ? 5 : 0;
	ir_comm c = tu_comm(coll, root, 8 * (int64_t)m->nranks);
	c.dtype = IR_DT_DOUBLE;
	c.op = IR_OP_SUM;
	if (g == &sch_chain)
		c.segments = 4;
	if (coll == IR_IRREGULAR) {
		c.matrix = ir_matrix_regular(m->nranks, 3, 64, 7);
		assert_non_null(c.matrix);
	}
	return c;
}

/* The plan of g for c on m, verified: its phase count, and whether it
 * declares contention; under forbid, free of every contention. */
static uint32_t plan(const struct sch_generator *g, const ir_machine *m,
                     const char *name, const ir_comm *c, bool forbid,
                     uint32_t *flags)
{
	struct sch_options o = {0};
	ir_plan p;
	ir_report r;
	o.forbid_contention = forbid;
	o.seed = 3;
	int rc = g->generate(m, c, &o, &p);
	if (rc == CCP_ENOTAPPLY && forbid) {
		/* an exchange algorithm cannot be split (sch_finish) */
		return 0;
	}
	if (rc)
		print_message("%s %s on %s: %d\n", g->name,
		              ir_coll_name(c->coll), name, rc);
	assert_int_equal(rc, 0);
	rc = ir_verify(&p, &r);
	if (rc)
		print_message("%s %s on %s: %s\n", g->name,
		              ir_coll_name(c->coll), name, r.message);
	assert_int_equal(rc, 0);
	if (forbid) {
		assert_int_equal(p.flags, 0);
		assert_true(r.max_link_load <= 1);
	}
	/* without declared node contention, every node kept to its
	 * network ports (the verifier checks it; say it here too) */
	if (!(p.flags & IR_PLAN_NODE_CONTENTION) && ir_machine_has_nodes(m) &&
	    m->node_ports != IR_PORTS_ALL) {
		assert_true(r.max_net_sends <= (uint32_t)m->node_ports);
		assert_true(r.max_net_recvs <= (uint32_t)m->node_ports);
	}
	*flags = p.flags;
	uint32_t phases = r.phases;
	ir_report_fini(&r);
	ir_plan_fini(&p);
	return phases;
}

/* The largest number of messages one rank sends or receives. */
static uint32_t pattern_degree(const ir_matrix *x)
{
	uint32_t most = 0, *in = calloc((size_t)x->n, sizeof *in);
	assert_non_null(in);
	for (int32_t s = 0; s < x->n; s++) {
		uint32_t out = (uint32_t)(x->row[s + 1] - x->row[s]);
		most = out > most ? out : most;
		for (int64_t e = x->row[s]; e < x->row[s + 1]; e++)
			in[x->dst[e]]++;
	}
	for (int32_t r = 0; r < x->n; r++)
		most = in[r] > most ? in[r] : most;
	free(in);
	return most;
}

/* Every generator that declares features applies to every machine whose
 * features it declares and whose shape it takes, and nowhere else; its
 * plans verify, with the phase count of its algorithm. */
static void test_declared(void **state)
{
	(void)state;
	machines();
	for (size_t k = 0; k < sizeof expects / sizeof *expects; k++) {
		const struct expect *x = &expects[k];
		const struct sch_generator *g = x->g;
		int tried = 0;
		assert_int_not_equal(g->domain.takes, 0);
		for (int i = 0; i < nms; i++) {
			const ir_machine *m = &ms[i];
			bool want = (g->domain.topos & SCH_T(m->topo)) &&
			            !(features(m) & ~g->domain.takes) &&
			            meets(x, m) &&
			            (g->domain.ports != SCH_PORTS_ALL ||
			             sch_all_port(m));
			for (int cl = 0; cl < IR_NCOLLS; cl++) {
				if (!(g->domain.colls & SCH_C(cl)))
					continue;
				ir_comm c = comm_on(g, (enum ir_coll)cl, m);
				char why[512];
				int rc = sch_applies(g, m, &c, why, sizeof why);
				if (rc != (want ? 0 : CCP_ENOTAPPLY))
					print_message("%s on %s: %d %s\n",
					              g->name, names[i], rc,
					              why);
				assert_int_equal(rc, want ? 0 : CCP_ENOTAPPLY);
				if (!want) {
					ir_comm_fini(&c);
					continue;
				}
				tried++;
				uint32_t flags, ph = plan(g, m, names[i], &c,
				                          false, &flags);
				if (x->phases) {
					if (ph != x->phases(m, &c))
						print_message(
						        "%s on %s: %u phases, "
						        "want %u\n",
						        g->name, names[i], ph,
						        x->phases(m, &c));
					assert_int_equal(ph, x->phases(m, &c));
				} else if (cl == IR_IRREGULAR) {
					/* no schedule beats the degree bound
					 * of a one-port rank; the colouring
					 * meets it on one-rank nodes */
					uint32_t dg = pattern_degree(c.matrix);
					if (m->ports == 1)
						assert_true(ph >= dg);
					if (g == &sch_color && m->ports == 1 &&
					    !ir_machine_has_nodes(m))
						assert_int_equal(ph, dg);
				}
				if (x->free && !ir_machine_has_nodes(m))
					assert_int_equal(flags, 0);
				ir_comm_fini(&c);
			}
		}
		/* each was tried on n-D, wrap, order or node machines */
		assert_true(tried > 0);
	}
}

/* Under `contention: forbid` every plan that comes is free of link and
 * node contention, network ports included, on the machines of nodes. */
static void test_forbid(void **state)
{
	(void)state;
	machines();
	for (size_t k = 0; k < sizeof expects / sizeof *expects; k++) {
		const struct expect *x = &expects[k];
		const struct sch_generator *g = x->g;
		for (int i = 0; i < nms; i++) {
			const ir_machine *m = &ms[i];
			for (int cl = 0; cl < IR_NCOLLS; cl++) {
				if (!(g->domain.colls & SCH_C(cl)))
					continue;
				ir_comm c = comm_on(g, (enum ir_coll)cl, m);
				uint32_t flags;
				if (sch_applies(g, m, &c, NULL, 0) == 0)
					(void)plan(g, m, names[i], &c, true,
					           &flags);
				ir_comm_fini(&c);
			}
		}
	}
}

/* A generator that does not declare a feature refuses every machine
 * with it, naming what it is built for. */
static void test_refused(void **state)
{
	(void)state;
	static const char *const built_for[] = {
	        "tori whose every dimension wraps",
	        "dimension-order routing in the order x, y, z",
	        "meshes and tori of at most 3 dimensions",
	        "one rank per node",
	};
	machines();
	int refused = 0;
	for (int k = 0; sch_generators[k]; k++) {
		const struct sch_generator *g = sch_generators[k];
		enum ir_coll cl = IR_BCAST;
		while (!(g->domain.colls & SCH_C(cl)))
			cl++;
		for (int i = 0; i < nms; i++) {
			const ir_machine *m = &ms[i];
			unsigned miss = features(m) & ~g->domain.takes;
			if (!(g->domain.topos & SCH_T(m->topo)) || !miss)
				continue;
			ir_comm c = comm_on(g, cl, m);
			char why[512], want[160];
			assert_int_equal(sch_applies(g, m, &c, why, sizeof why),
			                 CCP_ENOTAPPLY);
			int f = 0;
			while (!(miss >> f & 1u))
				f++;
			snprintf(want, sizeof want, "%s is built for %s",
			         g->name, built_for[f]);
			assert_ptr_equal(strstr(why, want), why);
			ir_comm_fini(&c);
			refused++;
		}
	}
	assert_true(refused > 0);
	/* the thesis' EDN and {YT} stay on the machines it defines */
	assert_int_equal(sch_edn.domain.takes, 0);
	assert_int_equal(sch_edn_torus.domain.takes, 0);
	assert_int_equal(sch_sld.domain.takes, 0);
	assert_int_equal(sch_hpam_hybrid.domain.takes, 0);
}

/* The ring goes through the ranks of a node one after the other, so one
 * transfer leaves each node per phase: contention-free under one network
 * port per node, with the network and the shared-memory transfers the
 * counts say. */
static void test_ring_nodes(void **state)
{
	(void)state;
	ir_machine m =
	        tu_grid(IR_TORUS, 2, d2, 0, NULL, 4, IR_PLACE_CYCLIC, 1, 0);
	int32_t order[64];
	ir_comm c = comm_on(&sch_ring, IR_ALLGATHER, &m);
	assert_int_equal(sch_ring_order(&m, &c, order), 0);
	int within = 0;
	for (int32_t i = 0; i < m.nranks; i++) {
		int32_t a = order[i], b = order[(i + 1) % m.nranks];
		within += ir_node_of(&m, a) == ir_node_of(&m, b);
	}
	/* 16 nodes of 4: 3 steps inside each node, one out of it */
	assert_int_equal(within, 16 * 3);
	uint32_t flags;
	assert_int_equal(plan(&sch_ring, &m, "ring", &c, false, &flags), 63);
	assert_int_equal(flags, 0);
	ir_comm_fini(&c);
}

/* RS_NL and the link-aware schedulers take messages between ranks of one
 * node (no link); under one node port the schedules keep every node to
 * one network transfer a phase. */
static void test_irregular_nodes(void **state)
{
	(void)state;
	ir_machine m =
	        tu_grid(IR_MESH, 2, d2, 0, NULL, 2, IR_PLACE_BLOCK, 1, 0);
	ir_matrix *x = ir_matrix_regular(m.nranks, 5, 64, 11);
	assert_non_null(x);
	enum sch_irr_alg algs[] = {SCH_IRR_RS_N,  SCH_IRR_RS_NL,
	                           SCH_IRR_COLOR, SCH_IRR_LINK_AWARE,
	                           SCH_IRR_SIZED, SCH_IRR_LP};
	for (size_t k = 0; k < sizeof algs / sizeof *algs; k++) {
		ir_plan p;
		ir_report r;
		assert_int_equal(sch_irregular(&m, x, algs[k], 5, &p), 0);
		assert_int_equal(ir_verify(&p, &r), 0);
		assert_false(p.flags & IR_PLAN_NODE_CONTENTION);
		assert_true(r.max_net_sends <= 1 && r.max_net_recvs <= 1);
		assert_true(r.shm_transfers > 0);
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
	ir_matrix_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_declared),
	        cmocka_unit_test(test_forbid),
	        cmocka_unit_test(test_refused),
	        cmocka_unit_test(test_ring_nodes),
	        cmocka_unit_test(test_irregular_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
