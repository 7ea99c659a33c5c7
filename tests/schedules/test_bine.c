/*
 * test_bine.c - Bine trees and butterflies (schedules/bine.c): every
 * collective verified on meshes, tori, a hypercube, switches, fat trees
 * (full and tapered) and dragonflies, at rank counts that are powers of
 * two and others, with contention allowed and forbidden, with the phase
 * counts the paper gives (lg n, twice for the allreduce, one more on
 * each side of the fold); the partners of position 0 by hand; and the
 * paper's claim, computed from the plans: Bine's bytes on a dragonfly's
 * global links and on a tapered fat tree's up links are below those of
 * the butterflies that pair ranks 2^k apart, for the same collective.
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
#include "sched.h"
#include "support.h"

/* A communication of coll on m from root: a vector of one double per
 * rank (a reduction), 8 bytes a block otherwise. */
static ir_comm comm_of(enum ir_coll coll, const ir_machine *m, int32_t root)
{
	ir_comm c = tu_comm(coll, root, 8 * (int64_t)m->nranks);
	c.dtype = IR_DT_DOUBLE;
	c.op = IR_OP_SUM;
	if (!(ir_coll_kind(coll) & IR_CK_REDUCES))
		c.bytes = 8;
	return c;
}

/* ceil(lg n), and whether n is a power of two. */
static int lg_ceil(int32_t n)
{
	int s = 0;
	while ((1 << s) < n)
		s++;
	return s;
}

/* The phases Bine takes for coll on n ranks: lg q (q the largest power
 * of two <= n) a tree or half a butterfly, twice for the allreduce, and
 * one phase more for each side of the fold (a tree's broadcast or
 * reduce has one side). */
static uint32_t phases_of(const struct sch_generator *g, enum ir_coll coll,
                          int32_t n)
{
	int32_t q = sch_pow2_floor(n);
	uint32_t s = (uint32_t)lg_ceil(q), fold = q != n;
	switch (coll) {
	case IR_BCAST:
	case IR_REDUCE:
		return s + fold;
	case IR_ALLGATHER:
	case IR_REDUCE_SCATTER:
		return s + 2 * fold;
	default:
		return g == &sch_bine_latency ? s + 2 * fold : 2 * s + 2 * fold;
	}
}

/* g's plan for coll on m (named name) from root verifies, with
 * contention allowed (phases_of phases exactly) and forbidden (then
 * free of it, within every link's capacity, or refused by a generator
 * that cannot split).  Returns 1 if a plan was made. */
static int check(const struct sch_generator *g, const ir_machine *m,
                 const char *name, enum ir_coll coll, int32_t root)
{
	ir_comm c = comm_of(coll, m, root);
	char why[256];
	if (sch_applies(g, m, &c, why, sizeof why) != 0)
		fail_msg("%s %s on %s refused: %s", g->name, ir_coll_name(coll),
		         name, why);
	for (int forbid = 0; forbid < 2; forbid++) {
		struct sch_options o = {0};
		ir_plan p;
		ir_report r;
		o.forbid_contention = forbid;
		int rc = sch_generate(g, m, &c, &o, &p);
		if (rc == CCP_ENOTAPPLY && forbid && g == &sch_bine_latency)
			continue; /* its ranks send what they receive */
		if (rc)
			fail_msg("%s %s on %s%s: %d", g->name,
			         ir_coll_name(coll), name,
			         forbid ? " (forbid)" : "", rc);
		if (ir_verify(&p, &r) != 0)
			fail_msg("%s %s on %s root %d%s: %s", g->name,
			         ir_coll_name(coll), name, (int)root,
			         forbid ? " (forbid)" : "", r.message);
		if (forbid) {
			assert_int_equal(p.flags, 0);
			assert_true(r.max_link_load <= 1);
			assert_true(p.nphases >= phases_of(g, coll, m->nranks));
		} else if (p.nphases != phases_of(g, coll, m->nranks)) {
			fail_msg("%s %s on %s: %u phases, not %u", g->name,
			         ir_coll_name(coll), name, p.nphases,
			         phases_of(g, coll, m->nranks));
		}
		/* one tree per block: every rank's result combined alike */
		if (g == &sch_bine)
			assert_true(r.reproducible);
		ir_report_fini(&r);
		ir_plan_fini(&p);
	}
	return 1;
}

/* Every collective of both generators on m, from roots 0, n - 1 and
 * one in the middle. */
static void check_all(const ir_machine *m, const char *name)
{
	static const enum ir_coll colls[] = {IR_BCAST, IR_REDUCE, IR_ALLGATHER,
	                                     IR_REDUCE_SCATTER, IR_ALLREDUCE};
	int32_t n = m->nranks, roots[] = {0, n - 1, n / 3};
	for (size_t k = 0; k < sizeof colls / sizeof colls[0]; k++) {
		int nroots = ir_coll_kind(colls[k]) & IR_CK_ROOTED ? 3 : 1;
		for (int j = 0; j < nroots; j++)
			check(&sch_bine, m, name, colls[k], roots[j]);
	}
	check(&sch_bine_latency, m, name, IR_ALLREDUCE, 0);
}

static void test_switches(void **state)
{
	(void)state;
	/* powers of two and not, 1 and 2 ranks, one above and one below a
	 * power of two */
	static const int sizes[] = {1, 2, 3, 5, 6, 7, 8, 12, 16, 31, 33, 64};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		char name[32];
		ir_machine m =
		        tu_machine(IR_SWITCH, IR_PORTS_ALL, sizes[k], 0, 0, 0);
		snprintf(name, sizeof name, "switch %d", sizes[k]);
		check_all(&m, name);
	}
}

static void test_grids(void **state)
{
	(void)state;
	static const int d44[] = {4, 4}, d35[] = {3, 5}, d444[] = {4, 4, 4},
	                 d8[] = {8};
	ir_machine ms[] = {
	        tu_grid(IR_MESH, 2, d44, 0, NULL, 1, IR_PLACE_BLOCK, 0, 1),
	        tu_grid(IR_MESH, 2, d35, 0, NULL, 1, IR_PLACE_BLOCK, 0, 1),
	        tu_grid(IR_TORUS, 3, d444, 0, NULL, 1, IR_PLACE_BLOCK, 0,
	                IR_PORTS_ALL),
	        tu_grid(IR_TORUS, 1, d8, 0, NULL, 1, IR_PLACE_BLOCK, 0, 1),
	        tu_grid(IR_TORUS, 2, d35, 0, NULL, 1, IR_PLACE_BLOCK, 0, 1),
	        tu_machine(IR_HYPERCUBE, 1, 5, 0, 0, 0),
	        tu_with_nodes(tu_grid(IR_TORUS, 2, d44, 0, NULL, 1,
	                              IR_PLACE_BLOCK, 0, 1),
	                      2, IR_PLACE_BLOCK, 1),
	};
	static const char *const names[] = {"4x4 mesh",
	                                    "3x5 mesh",
	                                    "4x4x4 torus",
	                                    "8 torus",
	                                    "3x5 torus",
	                                    "hypercube 5",
	                                    "4x4 torus of 2-rank nodes"};
	for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++)
		check_all(&ms[k], names[k]);
}

static void test_fat_trees(void **state)
{
	(void)state;
	static const int down2[] = {4, 4}, up2[] = {1, 4}, taper[] = {1, 2},
	                 down3[] = {4, 3, 2}, up3[] = {1, 2, 3};
	ir_machine ms[] = {
	        tu_fat_tree(2, down2, up2, NULL, 1, IR_ROUTE_D_MOD_K, 1),
	        tu_fat_tree(2, down2, taper, NULL, 1, IR_ROUTE_D_MOD_K, 1),
	        tu_fat_tree(2, down2, up2, NULL, 1, IR_ROUTE_S_MOD_K, 1),
	        tu_fat_tree(2, down2, up2, NULL, 1, IR_ROUTE_ADAPTIVE, 1),
	        tu_fat_tree(3, down3, up3, NULL, 1, IR_ROUTE_D_MOD_K, 1),
	};
	static const char *const names[] = {
	        "4-ary 2-tree", "2:1 tapered 2-tree", "4-ary 2-tree s-mod-k",
	        "4-ary 2-tree adaptive", "XGFT(3; 4,3,2; 1,2,3)"};
	for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++)
		check_all(&ms[k], names[k]);
}

static void test_dragonflies(void **state)
{
	(void)state;
	ir_machine ms[] = {
	        tu_dragonfly(5, 2, 2, 2, IR_DFLY_ABSOLUTE, NULL, 1,
	                     IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL),
	        tu_dragonfly(4, 2, 2, 3, IR_DFLY_RELATIVE, NULL, 1,
	                     IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL),
	        tu_dragonfly(5, 2, 2, 2, IR_DFLY_CIRCULANT, NULL, 1,
	                     IR_ROUTE_VALIANT, 7, IR_PORTS_ALL),
	        tu_dragonfly(4, 2, 2, 3, IR_DFLY_ABSOLUTE, NULL, 1,
	                     IR_ROUTE_ADAPTIVE, 7, IR_PORTS_ALL),
	};
	static const char *const names[] = {
	        "dragonfly 5x2x2", "dragonfly 4x2x2", "dragonfly 5x2x2 valiant",
	        "dragonfly 4x2x2 adaptive"};
	for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++)
		check_all(&ms[k], names[k]);
}

/* Position 0's partners on a ring of 16, by hand: +1, -1 (15), +3,
 * -5 (11); position 1's: 0, 2, 14 (1 - 3), 6 (1 + 5).  The broadcast
 * from rank 0 on a 16-rank switch: 0 -> 11 first (rho(3) = -5), then
 * 0 -> 3 and 11 -> 8, ... */
static void test_partners_by_hand(void **state)
{
	(void)state;
	assert_int_equal(sch_swing_rho(0), 1);
	assert_int_equal(sch_swing_rho(1), -1);
	assert_int_equal(sch_swing_rho(2), 3);
	assert_int_equal(sch_swing_rho(3), -5);
	assert_int_equal(sch_swing_rho(4), 11);
	ir_machine m = tu_machine(IR_SWITCH, IR_PORTS_ALL, 16, 0, 0, 0);
	ir_comm c = comm_of(IR_BCAST, &m, 0);
	ir_plan p;
	assert_int_equal(sch_generate(&sch_bine, &m, &c, NULL, &p), 0);
	assert_int_equal(p.nphases, 4);
	assert_int_equal(p.phases[0].ntransfers, 1);
	assert_int_equal(p.transfers[0].src, 0);
	assert_int_equal(p.transfers[0].dst, 11);
	assert_int_equal(p.phases[1].ntransfers, 2);
	const ir_transfer *t = &p.transfers[p.phases[1].transfer];
	assert_int_equal(t[0].src, 0);
	assert_int_equal(t[0].dst, 3);
	assert_int_equal(t[1].src, 11);
	assert_int_equal(t[1].dst, 8); /* 11 is odd: 11 - 3 */
	ir_plan_fini(&p);
	/* the allreduce's first step pairs 2i and 2i + 1 */
	c = comm_of(IR_ALLREDUCE, &m, 0);
	assert_int_equal(sch_generate(&sch_bine_latency, &m, &c, NULL, &p), 0);
	for (uint32_t k = 0; k < p.phases[0].ntransfers; k++) {
		t = &p.transfers[p.phases[0].transfer + k];
		assert_int_equal(t->dst, t->src ^ 1);
	}
	ir_plan_fini(&p);
}

/* g's bytes on class cls for coll on m. */
static uint64_t bytes_of(const struct sch_generator *g, const ir_machine *m,
                         enum ir_coll coll, enum ir_link_class cls)
{
	ir_comm c = comm_of(coll, m, 0);
	c.bytes = ir_coll_kind(coll) & IR_CK_REDUCES ? 8 * 1024 * m->nranks
	                                             : 1024;
	ir_plan p;
	char why[256];
	if (sch_applies(g, m, &c, why, sizeof why) != 0)
		fail_msg("%s: %s", g->name, why);
	assert_int_equal(sch_generate(g, m, &c, NULL, &p), 0);
	uint64_t b = tu_class_bytes(&p, cls);
	ir_plan_fini(&p);
	return b;
}

/* The pairs the claim compares: Bine's plan for a collective and the
 * plan that pairs ranks 2^k apart (the binomial tree that halves the
 * machine, for the broadcast). */
static const struct {
	enum ir_coll coll;
	const struct sch_generator *bine, *peer;
} pairs[] = {
        {IR_ALLREDUCE, &sch_bine, &sch_rabenseifner},
        {IR_ALLGATHER, &sch_bine, &sch_recursive_doubling},
        {IR_REDUCE_SCATTER, &sch_bine, &sch_recursive_halving},
        {IR_ALLREDUCE, &sch_bine_latency, &sch_recursive_doubling},
        {IR_BCAST, &sch_bine, &sch_binomial},
};
enum { NPAIRS = sizeof pairs / sizeof pairs[0], LATENCY = 3, BCAST = 4 };

/* On m, each pair's bytes on class cls: Bine's in b[k], the other's in
 * q[k]. */
static void claim(const ir_machine *m, const char *name, enum ir_link_class cls,
                  uint64_t *b, uint64_t *q)
{
	for (int k = 0; k < NPAIRS; k++) {
		b[k] = bytes_of(pairs[k].bine, m, pairs[k].coll, cls);
		q[k] = bytes_of(pairs[k].peer, m, pairs[k].coll, cls);
		print_message("%s %s: %s %llu, %s %llu bytes on %s links\n",
		              name, ir_coll_name(pairs[k].coll),
		              pairs[k].bine->name, (unsigned long long)b[k],
		              pairs[k].peer->name, (unsigned long long)q[k],
		              ir_link_class_names[cls]);
	}
}

/* The paper's claim, from the plans: on a dragonfly's global links and
 * a 2:1 tapered fat tree's up links, Bine's reduce-scatter, allgather
 * and allreduce move fewer bytes than the butterflies of partners 2^k
 * apart (most of it because Bine sends the largest blocks to the
 * nearest partner, the rest because its partners are closer); its
 * latency-optimal allreduce does where the groups are not a power of
 * two in size (12 hosts), as an allocation that does not line up with
 * the groups.  Its broadcast cannot beat the binomial tree that halves
 * the dragonfly by groups: that one meets the bound, (groups - 1)
 * messages between groups, and no plan goes below the bound. */
static void test_claim(void **state)
{
	(void)state;
	static const int down[] = {16, 16}, taper[] = {1, 8};
	const struct {
		ir_machine m;
		const char *name;
		enum ir_link_class cls;
		int groups;     /* groups or leaf switches */
		bool unaligned; /* groups not a power of two in size */
	} ms[] = {
	        {tu_dragonfly(8, 4, 4, 7, IR_DFLY_ABSOLUTE, NULL, 1,
	                      IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL),
	         "dragonfly 8x4x4", IR_LC_GLOBAL, 8, false},
	        {tu_dragonfly(9, 4, 3, 2, IR_DFLY_ABSOLUTE, NULL, 1,
	                      IR_ROUTE_MINIMAL, 0, IR_PORTS_ALL),
	         "dragonfly 9x4x3", IR_LC_GLOBAL, 9, true},
	        {tu_fat_tree(2, down, taper, NULL, 1, IR_ROUTE_D_MOD_K, 1),
	         "2:1 tapered fat tree of 256", IR_LC_UP, 16, false},
	};
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		uint64_t b[NPAIRS], q[NPAIRS];
		claim(&ms[i].m, ms[i].name, ms[i].cls, b, q);
		for (int k = 0; k < NPAIRS; k++)
			if (k < LATENCY || (k == LATENCY && ms[i].unaligned))
				assert_true(b[k] < q[k]);
		/* the broadcast's bound: 1 KiB into every group but one */
		assert_int_equal(q[BCAST], 1024 * (uint64_t)(ms[i].groups - 1));
		assert_true(b[BCAST] >= q[BCAST]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_partners_by_hand),
	        cmocka_unit_test(test_switches),
	        cmocka_unit_test(test_grids),
	        cmocka_unit_test(test_fat_trees),
	        cmocka_unit_test(test_dragonflies),
	        cmocka_unit_test(test_claim),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
