/*
 * test_inspector_reorder.c - the inspector's suggested order
 * (ccp_inspect_options.reorder, docs/inspector.md "Reordering") end to
 * end over MPI, run with mpirun -n 8 (inspector.cmake).
 *
 * A 2D stencil whose parts were numbered at random on a 4 x 2 mesh: the
 * order the inspector suggests is a permutation, the same on every
 * rank, and its plan needs fewer phases (the verifier's bound) than the
 * plan of the order as it is.  The application then does what the
 * documentation says: MPI_Comm_split with the new rank as key, each
 * part's data sent to the process whose new rank is the part's number,
 * and the plan executed over a transport on the new communicator; every
 * received byte is checked.  A stencil numbered as the mesh is keeps
 * its order; pairs that talk share a node on a machine of two ranks a
 * node, block or cyclic; the cache keeps reordered plans apart; ranks
 * that disagree on reorder all get CCP_EMISMATCH.
 *
 * Usage: test_inspector_reorder CACHE-FILE   (the file is removed first)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEST_NAME "test_inspector_reorder"
#include "insp_mpi_test.h"

/* A random permutation of 0..n-1 (identity when seed is 0). */
static void shuffle(int *p, int n, uint64_t seed)
{
	for (int i = 0; i < n; i++)
		p[i] = i;
	for (int i = n; seed && i > 1; i--) {
		int j = (int)(next(&seed) % (uint64_t)i), t = p[i - 1];
		p[i - 1] = p[j];
		p[j] = t;
	}
}

/* The whole pattern, m[s*n + d] bytes from part s to part d. */
static uint64_t *stencil(int w, int h, uint64_t seed)
{
	int n = w * h, *at = malloc((size_t)n * sizeof *at),
	    *who = malloc((size_t)n * sizeof *who);
	uint64_t *m = calloc((size_t)n * n, sizeof *m);
	shuffle(at, n, seed); /* part v sits at grid cell at[v] */
	for (int v = 0; v < n; v++)
		who[at[v]] = v;
	for (int v = 0; v < n; v++) {
		int x = at[v] % w, y = at[v] / w;
		static const int d[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
		for (int k = 0; k < 4; k++) {
			int X = x + d[k][0], Y = y + d[k][1];
			if (X >= 0 && X < w && Y >= 0 && Y < h)
				m[(size_t)v * n + who[X + w * Y]] =
				        40 + (uint64_t)(v * 7 + k * 13) % 90;
		}
	}
	free(at);
	free(who);
	return m;
}

/* Parts talking in pairs (a random matching), a lot, and each part a
 * little to the next pair's first part. */
static uint64_t *pairs(int n, uint64_t seed)
{
	int *p = malloc((size_t)n * sizeof *p);
	uint64_t *m = calloc((size_t)n * n, sizeof *m);
	shuffle(p, n, seed);
	for (int i = 0; i + 1 < n; i += 2) {
		m[(size_t)p[i] * n + p[i + 1]] = 900 + (uint64_t)i;
		m[(size_t)p[i + 1] * n + p[i]] = 700 + (uint64_t)i;
		int q = p[(i + 2) % n];
		m[(size_t)p[i + 1] * n + q] = 3;
	}
	free(p);
	return m;
}

static uint8_t val(int s, int d, uint64_t i, unsigned round)
{
	return (uint8_t)(s * 131 + d * 71 + (int)(i * 7) + round * 13 + 1);
}

/* Inspect this rank's row of m. */
static int inspect(const uint64_t *m, const ccp_inspect_options *o,
                   ccp_plan **plan, ccp_inspect_result *res)
{
	int32_t dst[64];
	uint64_t bytes[64];
	size_t k = 0;
	for (int d = size - 1; d >= 0; d--) /* any order */
		if (m[(size_t)rank * size + d]) {
			dst[k] = d;
			bytes[k++] = m[(size_t)rank * size + d];
		}
	return ccp_inspect(ctx, tr, dst, bytes, k, o, plan, res);
}

/* The order in res is a permutation, the same on every rank, with this
 * rank's new rank at its place. */
static void check_order(const char *what, const ccp_inspect_result *res)
{
	int n = size;
	if (!check(res->new_ranks && res->nranks == (size_t)n,
	           "%s: no order (%zu ranks)", what, res->nranks))
		return;
	int *seen = calloc((size_t)n, sizeof *seen);
	bool perm = true;
	for (int r = 0; r < n; r++) {
		int k = res->new_ranks[r];
		if (k < 0 || k >= n || seen[k]++)
			perm = false;
	}
	check(perm, "%s: new_ranks is not a permutation", what);
	check(res->new_rank == res->new_ranks[rank],
	      "%s: new_rank %d, new_ranks[%d] = %d", what, res->new_rank, rank,
	      res->new_ranks[rank]);
	uint64_t h = 1469598103934665603u;
	for (int r = 0; r < n; r++)
		h = (h ^ (uint64_t)res->new_ranks[r]) * 1099511628211u;
	check(all_same(h), "%s: ranks hold different orders", what);
	int32_t *got = malloc((size_t)n * sizeof *got);
	MPI_Allgather(&res->new_rank, 1, MPI_INT32_T, got, 1, MPI_INT32_T,
	              MPI_COMM_WORLD);
	check(memcmp(got, res->new_ranks, (size_t)n * sizeof *got) == 0,
	      "%s: the ranks' new_rank are not new_ranks", what);
	free(got);
	free(seen);
}

/* What docs/inspector.md tells the application to do: split the
 * communicator by the new rank, hand each part's data to the process
 * whose new rank is the part's number, and execute over a transport on
 * the new communicator.  Every byte checked, rounds times. */
static void run_reordered(const char *what, const uint64_t *m, ccp_plan *plan,
                          const ccp_inspect_result *res, unsigned rounds)
{
	int n = size, k = res->new_rank;
	MPI_Comm nc;
	MPI_Comm_split(MPI_COMM_WORLD, 0, k, &nc);
	int nr = -1;
	MPI_Comm_rank(nc, &nr);
	check(nr == k, "%s: split gives rank %d, want %d", what, nr, k);
	ccp_transport *t2 = NULL;
	int e = ccp_mpi_transport(ctx, nc, &t2);
	check(e == 0, "%s: transport: %s", what, ccp_strerror(e));

	/* part p's send buffer: its messages by ascending destination */
	uint64_t mine = 0, want_s = 0, want_r = 0;
	for (int d = 0; d < n; d++) {
		mine += m[(size_t)rank * n + d];
		want_s += m[(size_t)k * n + d];
		want_r += m[(size_t)d * n + k];
	}
	check(res->send_bytes == want_s && res->recv_bytes == want_r,
	      "%s: layout %llu/%llu bytes, part %d's %llu/%llu", what,
	      (unsigned long long)res->send_bytes,
	      (unsigned long long)res->recv_bytes, k,
	      (unsigned long long)want_s, (unsigned long long)want_r);
	uint8_t *own = malloc(mine + 1), *send = malloc(want_s + 1);
	uint8_t *recv = malloc(want_r + 64), *want = malloc(want_r + 1);
	e = ccp_plan_bind(plan, send, want_s, recv, want_r, NULL, 0);
	check(e == 0, "%s: bind: %s", what, ccp_strerror(e));
	for (unsigned round = 0; round < rounds && e == 0; round++) {
		/* this process's own part, as it was before the split */
		uint64_t o = 0;
		for (int d = 0; d < n; d++)
			for (uint64_t i = 0; i < m[(size_t)rank * n + d]; i++)
				own[o++] = val(rank, d, i, round);
		/* the move: my part to new rank `rank`, part k from the
		 * process that had it, old rank k (new rank new_ranks[k]) */
		MPI_Sendrecv(own, (int)mine, MPI_BYTE, rank, 7, send,
		             (int)want_s, MPI_BYTE, res->new_ranks[k], 7, nc,
		             MPI_STATUS_IGNORE);
		o = 0;
		for (int s = 0; s < n; s++)
			for (uint64_t i = 0; i < m[(size_t)s * n + k]; i++)
				want[o++] = val(s, k, i, round);
		memset(recv, 0xee, want_r + 64);
		e = ccp_plan_execute(plan, t2,
		                     round % 2 ? CCP_EXEC_S1 : CCP_EXEC_S2);
		if (!check(e == 0, "%s: execute: %s", what, ccp_strerror(e)))
			break;
		check(memcmp(recv, want, want_r) == 0,
		      "%s: round %u: part %d received wrong bytes", what, round,
		      k);
		bool guard = true;
		for (uint64_t i = want_r; i < want_r + 64; i++)
			guard = guard && recv[i] == 0xee;
		check(guard, "%s: wrote past the buffer", what);
	}
	free(own);
	free(send);
	free(recv);
	free(want);
	ccp_transport_free(t2);
	MPI_Comm_free(&nc);
}

static ccp_machine *yaml_machine(const char *text)
{
	ccp_machine *mm = NULL;
	int e = ccp_machine_from_yaml(ctx, text, strlen(text), &mm);
	check(e == 0, "machine %s: %s", text, ccp_strerror(e));
	return mm;
}

/* A stencil numbered at random: fewer phases in the new order, and the
 * data right under it. */
static void test_scrambled(void)
{
	ccp_machine *mm = yaml_machine("machine: {topology: mesh, dims: [4, "
	                               "2], ports: all}");
	uint64_t *m = stencil(4, 2, 5);
	ccp_inspect_options o = {.seed = 3, .machine = mm};
	ccp_inspect_result r0, r1;
	ccp_plan *p0 = NULL, *p1 = NULL;
	int e = inspect(m, &o, &p0, &r0);
	check(e == 0 && r0.new_ranks == NULL && r0.new_rank == rank,
	      "scrambled, as it is: %s", ccp_strerror(e));
	o.reorder = 1;
	e = inspect(m, &o, &p1, &r1);
	if (check(e == 0, "scrambled, reordered: %s", ccp_strerror(e))) {
		check_order("scrambled", &r1);
		check(r1.lb_phases < r0.lb_phases &&
		              r1.lb_phases_before == r0.lb_phases &&
		              r1.nphases >= r1.lb_phases,
		      "scrambled: bound %u as it is, %u (said %u) reordered, "
		      "%u phases",
		      r0.lb_phases, r1.lb_phases, r1.lb_phases_before,
		      r1.nphases);
		check(memcmp(r0.key, r1.key, sizeof r0.key) != 0,
		      "scrambled: reordered plan under the same key");
		if (rank == 0)
			printf("scrambled 2D stencil on a 4x2 mesh: bound %u, "
			       "%u phases as numbered; bound %u, %u phases "
			       "reordered\n",
			       r0.lb_phases, r0.nphases, r1.lb_phases,
			       r1.nphases);
		run_reordered("scrambled", m, p1, &r1, 4);
		/* run over the old order by mistake: refused everywhere */
		e = ccp_plan_execute(p1, tr, CCP_EXEC_DEFAULT);
		check(e == CCP_EINVAL, "scrambled, over the old order: %s",
		      ccp_strerror(e));
	}
	ccp_inspect_result_fini(&r0);
	ccp_inspect_result_fini(&r1);
	ccp_plan_free(p0);
	ccp_plan_free(p1);
	free(m);
	ccp_machine_free(mm);
}

/* A stencil numbered as the mesh: nothing better, the order stays. */
static void test_kept(void)
{
	ccp_machine *mm = yaml_machine("machine: {topology: mesh, dims: [4, "
	                               "2], ports: all}");
	uint64_t *m = stencil(4, 2, 0);
	ccp_inspect_options o = {.seed = 3, .machine = mm, .reorder = 1};
	ccp_inspect_result r;
	ccp_plan *p = NULL;
	int e = inspect(m, &o, &p, &r);
	if (check(e == 0, "in order: %s", ccp_strerror(e))) {
		check_order("in order", &r);
		check(r.new_rank == rank && r.new_ranks[rank] == rank,
		      "in order: rank %d gets new rank %d", rank, r.new_rank);
		check(r.lb_phases == r.lb_phases_before,
		      "in order: bound %u, %u before", r.lb_phases,
		      r.lb_phases_before);
		/* the same order: the plan runs over t as it is, too */
		run_reordered("in order", m, p, &r, 2);
	}
	ccp_inspect_result_fini(&r);
	ccp_plan_free(p);
	free(m);
	ccp_machine_free(mm);
}

/* Two ranks a node: the parts of each pair go to processes of one node,
 * whichever way the machine puts ranks on nodes. */
static void test_nodes(void)
{
	static const char *const y[] = {
	        "machine: {topology: mesh, dims: [2, 2], ranks_per_node: 2, "
	        "placement: block}",
	        "machine: {topology: mesh, dims: [2, 2], ranks_per_node: 2, "
	        "placement: cyclic}"};
	int nn = size / 2;
	for (int c = 0; c < 2; c++) {
		ccp_machine *mm = yaml_machine(y[c]);
		uint64_t *m = pairs(size, 11);
		ccp_inspect_options o = {
		        .seed = 1, .machine = mm, .reorder = 1};
		ccp_inspect_result r;
		ccp_plan *p = NULL;
		const char *what = c ? "cyclic" : "block";
		int e = inspect(m, &o, &p, &r);
		if (check(e == 0, "%s: %s", what, ccp_strerror(e))) {
			check_order(what, &r);
			/* the process of new rank k: old rank q with
			 * new_ranks[q] = k; its node under the machine */
			int *proc = malloc((size_t)size * sizeof *proc);
			for (int q = 0; q < size; q++)
				proc[r.new_ranks[q]] = q;
			for (int a = 0; a < size; a++)
				for (int b = 0; b < size; b++) {
					if (m[(size_t)a * size + b] < 100)
						continue;
					int na = c ? proc[a] % nn : proc[a] / 2;
					int nb = c ? proc[b] % nn : proc[b] / 2;
					check(na == nb,
					      "%s: parts %d and %d talk most "
					      "but sit on nodes %d and %d",
					      what, a, b, na, nb);
				}
			free(proc);
			check(r.lb_phases < r.lb_phases_before,
			      "%s: bound %u, %u before", what, r.lb_phases,
			      r.lb_phases_before);
			run_reordered(what, m, p, &r, 2);
		}
		ccp_inspect_result_fini(&r);
		ccp_plan_free(p);
		free(m);
		ccp_machine_free(mm);
	}
}

/* The cache holds the plan of each order under its own key. */
static void test_cache(const char *path)
{
	cache_remove_all(path);
	ccp_machine *mm = yaml_machine("machine: {topology: mesh, dims: [4, "
	                               "2], ports: all}");
	uint64_t *m = stencil(4, 2, 5);
	static const struct {
		int reorder, hit;
		const char *what;
	} steps[] = {{0, 0, "as it is, first"},
	             {1, 0, "reordered, first"},
	             {1, 1, "reordered, second"},
	             {0, 1, "as it is, second"}};
	ccp_inspect_result r[4];
	uint64_t hash[4] = {0};
	for (int i = 0; i < 4; i++) {
		ccp_inspect_options o = {.seed = 3,
		                         .machine = mm,
		                         .cache_path = path,
		                         .reorder = steps[i].reorder};
		ccp_plan *p = NULL;
		int e = inspect(m, &o, &p, &r[i]);
		if (check(e == 0, "cache %s: %s", steps[i].what,
		          ccp_strerror(e))) {
			ccp_plan_info info;
			ccp_plan_get_info(p, &info);
			hash[i] = info.plan_hash;
			check(r[i].cache_hit == steps[i].hit,
			      "cache %s: hit %d", steps[i].what,
			      r[i].cache_hit);
			if (steps[i].reorder)
				run_reordered(steps[i].what, m, p, &r[i], 1);
		}
		ccp_plan_free(p);
	}
	check(memcmp(r[0].key, r[1].key, sizeof r[0].key) != 0 &&
	              memcmp(r[1].key, r[2].key, sizeof r[0].key) == 0 &&
	              memcmp(r[0].key, r[3].key, sizeof r[0].key) == 0,
	      "cache: keys");
	check(hash[1] == hash[2] && hash[0] == hash[3] && hash[0] != hash[1],
	      "cache: plan hashes");
	check(r[1].new_rank == r[2].new_rank && r[2].new_ranks &&
	              r[1].new_ranks &&
	              memcmp(r[1].new_ranks, r[2].new_ranks,
	                     (size_t)size * sizeof(int32_t)) == 0,
	      "cache: a hit gives another order");
	for (int i = 0; i < 4; i++)
		ccp_inspect_result_fini(&r[i]);
	free(m);
	ccp_machine_free(mm);
}

/* Ranks that disagree on reorder all fail alike. */
static void test_mismatch(void)
{
	ccp_machine *mm = yaml_machine("machine: {topology: mesh, dims: [4, "
	                               "2], ports: all}");
	uint64_t *m = stencil(4, 2, 5);
	ccp_inspect_options o = {
	        .seed = 3, .machine = mm, .reorder = rank == size - 1};
	ccp_inspect_result r;
	ccp_plan *p = NULL;
	int e = inspect(m, &o, &p, &r);
	check(e == CCP_EMISMATCH && p == NULL && r.new_ranks == NULL,
	      "reorder on one rank only: %s", ccp_strerror(e));
	ccp_inspect_result_fini(&r);
	free(m);
	ccp_machine_free(mm);
}

int main(int argc, char **argv)
{
	if (test_start(&argc, &argv, 8,
	               "mpirun -n 8 test_inspector_reorder CACHE-FILE"))
		return 2;
	test_scrambled();
	test_kept();
	test_nodes();
	test_cache(argv[1]);
	test_mismatch();
	return test_finish();
}
