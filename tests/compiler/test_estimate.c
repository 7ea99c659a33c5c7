/*
 * test_estimate.c - the size of a compile, estimated before anything is
 * built, and the memory limit that refuses an input from it:
 *   - for every generator, on machines of every topology and every
 *     collective it applies to, the estimate of transfers, blocks,
 *     lowered operations and file bytes is at least what the compile
 *     really makes, and not wildly more (on machines of one rank a node
 *     and of several);
 *   - an input over the limit is refused with a message giving the
 *     estimate and how to raise the limit, nothing built; raising the
 *     limit lets it through (the 2^24-rank broadcast of
 *     docs/reliability.md, the 80-byte 4096 x 4096 mesh broadcast);
 *   - every example and test input fits the default limit;
 *   - the front end refuses a generated, edge-list or CSV matrix whose
 *     messages alone would pass the limit, before building it.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compile.h"
#include "front.h"
#include "matrix.h"
#include "sched.h"
#include "support.h"

/* An input for algorithm name on m and c (c's matrix borrowed). */
static struct front_input input(const ir_machine *m, const ir_comm *c,
                                const char *name)
{
	struct front_input in;
	memset(&in, 0, sizeof in);
	in.machine = *m;
	in.comm = *c;
	snprintf(in.algorithm, sizeof in.algorithm, "%s", name);
	return in;
}

/* Compile in for real and check the estimate against what it made:
 * never less, at most `slack` times more plus a little for tiny plans.
 * Returns the estimate's peak per message of an irregular pattern. */
static double check_one(const struct front_input *in, const char *what)
{
	struct compile_estimate e;
	struct compiled c;
	struct diag d;
	uint8_t *img;
	size_t len;
	char err[256];

	compile_estimate(in, false, false, &e);
	memset(&d, 0, sizeof d);
	int rc = compile_input(in, &c, &d);
	if (rc) {
		print_error("%s %s: %s\n", what, in->algorithm, d.message);
		fail();
	}
	assert_int_equal(compile_encode(&c, &img, &len, err, sizeof err), 0);
	uint64_t ops = 0;
	for (int32_t r = 0; r < c.plan.machine.nranks; r++)
		ops += c.slices[r].nops;
	struct {
		const char *name;
		uint64_t est, real;
		double slack;
	} q[] = {
	        {"transfers", e.transfers, c.plan.ntransfers, 4},
	        {"blocks", e.blocks, c.plan.nblocks, 4},
	        {"operations", e.ops, ops, 4},
	        {"file bytes", e.file_bytes, len, 6},
	};
	for (size_t k = 0; k < sizeof q / sizeof q[0]; k++)
		if (q[k].est < q[k].real ||
		    (double)q[k].est > q[k].slack * (double)q[k].real + 4096) {
			print_error("%s %s (%d ranks): %s estimated %llu, "
			            "really %llu\n",
			            what, in->algorithm,
			            (int)c.plan.machine.nranks, q[k].name,
			            (unsigned long long)q[k].est,
			            (unsigned long long)q[k].real);
			fail();
		}
	assert_string_equal(e.algorithm, in->algorithm);
	assert_int_equal(e.candidates, 1);
	assert_true(e.peak_bytes > len);
	double per = in->comm.coll == IR_IRREGULAR && in->comm.matrix->nnz
	                     ? (double)e.peak_bytes / in->comm.matrix->nnz
	                     : INFINITY;
	free(img);
	compiled_fini(&c);
	return per;
}

/* A 2:1 tapered two-level fat tree of 6 leaves of 4 hosts. */
static const int tree_down[] = {4, 6}, tree_up[] = {1, 2};

static void test_bounds_every_generator(void **state)
{
	(void)state;
	const ir_machine ms[] = {
	        tu_with_nodes(tu_machine(IR_MESH, 1, 4, 4, 0, 0), 4,
	                   IR_PLACE_CYCLIC, 1),
	        tu_with_nodes(tu_machine(IR_TORUS, IR_PORTS_ALL, 4, 2, 2, 0), 3,
	                   IR_PLACE_BLOCK, IR_PORTS_ALL),
	        tu_with_nodes(tu_machine(IR_SWITCH, 1, 24, 0, 0, 0), 6,
	                   IR_PLACE_BLOCK, 2),
	        tu_machine(IR_MESH, 1, 8, 8, 0, 0),
	        tu_machine(IR_MESH, IR_PORTS_ALL, 16, 16, 0, 0),
	        tu_machine(IR_MESH, 1, 12, 10, 0, 0),
	        tu_machine(IR_MESH, 1, 33, 0, 0, 0),
	        tu_machine(IR_MESH, IR_PORTS_ALL, 4, 4, 4, 0),
	        tu_machine(IR_TORUS, IR_PORTS_ALL, 16, 16, 0, 0),
	        tu_machine(IR_TORUS, 1, 8, 8, 4, 0),
	        tu_machine(IR_HYPERCUBE, 1, 6, 0, 0, 0),
	        tu_machine(IR_HYPERCUBE, IR_PORTS_ALL, 7, 0, 0, 0),
	        tu_machine(IR_SWITCH, 1, 32, 0, 0, 0),
	        tu_machine(IR_HPAM, 1, 2, 2, 8, 8),
	        tu_machine(IR_HPAM, IR_PORTS_ALL, 4, 4, 16, 16),
	        tu_with_nodes(tu_machine(IR_MESH, 1, 4, 4, 0, 0), 4, IR_PLACE_BLOCK,
	                      1),
	        tu_fat_tree(2, tree_down, tree_up, NULL, 2, IR_ROUTE_D_MOD_K,
	                    1),
	};
	size_t runs = 0;
	double least = INFINITY;
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		const ir_machine *m = &ms[i];
		int32_t n = m->nranks;
		ir_comm cs[12];
		size_t nc = 0;
		cs[nc++] = tu_comm(IR_BCAST, 0, 4096);
		cs[nc] = tu_comm(IR_BCAST, n / 3, 4096);
		cs[nc++].segments = 3;
		cs[nc] = tu_comm(IR_BCAST, 0, 65536);
		cs[nc++].segments = n; /* scatter_collect */
		cs[nc++] = tu_comm(IR_SCATTER, 0, 64);
		cs[nc++] = tu_comm(IR_GATHER, 0, 64);
		cs[nc] = tu_comm(IR_REDUCE, 0, 64);
		cs[nc++].dtype = IR_DT_INT32;
		cs[nc++] = tu_comm(IR_ALLTOALL, 0, 64);
		cs[nc++] = tu_comm(IR_TRANSPOSE, 0, 64);
		cs[nc++] = tu_comm(IR_ALLGATHER, 0, 64);
		cs[nc] = tu_comm(IR_REDUCE_SCATTER, 0, 4 * (int64_t)n + 12);
		cs[nc++].dtype = IR_DT_INT32;
		cs[nc] = tu_comm(IR_ALLREDUCE, 0, 4096);
		cs[nc++].dtype = IR_DT_INT32;
		cs[nc] = (ir_comm){.coll = IR_IRREGULAR, .seed = 3};
		cs[nc++].matrix = ir_matrix_regular(n, n > 4 ? 3 : 1, 100, 3);
		for (size_t j = 0; j < nc; j++) {
			for (int k = 0; sch_generators[k]; k++) {
				const struct sch_generator *g =
				        sch_generators[k];
				char why[256];
				if (sch_applies(g, m, &cs[j], why, sizeof why))
					continue;
				struct front_input in =
				        input(m, &cs[j], g->name);
				char what[64];
				snprintf(what, sizeof what, "machine %zu, %s",
				         i, ir_coll_name(cs[j].coll));
				least = fmin(least, check_one(&in, what));
				runs++;
			}
		}
		ir_comm_fini(&cs[nc - 1]);
	}
	/* every generator was measured somewhere */
	for (int k = 0; sch_generators[k]; k++)
		assert_true(sch_generators[k]->name[0]);
	assert_true(runs > 150);
	/* the front end's refusal of large matrices stays below what the
	 * estimate says of each message */
	assert_true(least >= FRONT_BYTES_PER_MESSAGE);
}

/* Each generator applies to at least one input of the list above (so
 * none escapes the bounds check). */
static void test_every_generator_covered(void **state)
{
	(void)state;
	const ir_machine ms[] = {
	        tu_machine(IR_MESH, 1, 8, 8, 0, 0),
	        tu_machine(IR_MESH, IR_PORTS_ALL, 16, 16, 0, 0),
	        tu_machine(IR_TORUS, IR_PORTS_ALL, 16, 16, 0, 0),
	        tu_with_nodes(tu_machine(IR_MESH, 1, 4, 4, 0, 0), 4,
	                   IR_PLACE_BLOCK, 1),
	        tu_machine(IR_HYPERCUBE, IR_PORTS_ALL, 7, 0, 0, 0),
	        tu_machine(IR_HPAM, 1, 2, 2, 8, 8),
	        tu_fat_tree(2, tree_down, tree_up, NULL, 1, IR_ROUTE_D_MOD_K,
	                    1),
	};
	for (int k = 0; sch_generators[k]; k++) {
		bool found = false;
		for (size_t i = 0; i < sizeof ms / sizeof ms[0] && !found;
		     i++) {
			int32_t n = ms[i].nranks;
			ir_comm cs[] = {
			        tu_comm(IR_BCAST, 0, 65536),
			        tu_comm(IR_BCAST, 0, 65536),
			        tu_comm(IR_BCAST, 0, 65536),
			        tu_comm(IR_SCATTER, 0, 64),
			        tu_comm(IR_GATHER, 0, 64),
			        tu_comm(IR_REDUCE, 0, 64),
			        tu_comm(IR_ALLTOALL, 0, 64),
			        tu_comm(IR_TRANSPOSE, 0, 64),
			        {.coll = IR_IRREGULAR},
			        tu_comm(IR_ALLGATHER, 0, 64),
			        tu_comm(IR_REDUCE_SCATTER, 0, 4 * (int64_t)n),
			        tu_comm(IR_ALLREDUCE, 0, 4096),
			};
			cs[1].segments = 3;
			cs[2].segments = n;
			cs[5].dtype = IR_DT_INT32;
			cs[8].matrix = ir_matrix_regular(n, 3, 100, 3);
			cs[10].dtype = cs[11].dtype = IR_DT_INT32;
			char why[256];
			for (size_t j = 0; j < sizeof cs / sizeof cs[0]; j++)
				found |= sch_applies(sch_generators[k], &ms[i],
				                     &cs[j], why,
				                     sizeof why) == 0;
			ir_matrix_free(cs[8].matrix);
		}
		if (!found)
			print_error("%s applies to none of the inputs\n",
			            sch_generators[k]->name);
		assert_true(found);
	}
}

/* Expect compile_input to refuse in with CCP_ERANGE, having built
 * nothing, with a message that gives the estimate and the remedy. */
static void refused(const struct front_input *in)
{
	struct compiled c;
	struct diag d;
	memset(&d, 0, sizeof d);
	assert_int_equal(compile_input(in, &c, &d), CCP_ERANGE);
	assert_int_equal(d.line, 0);
	assert_non_null(strstr(d.message, "this input would need about "));
	assert_non_null(strstr(d.message, "more than the limit of 4.0 GiB"));
	assert_non_null(strstr(d.message, FRONT_MAX_MEMORY_ENV "=SIZE"));
	assert_non_null(strstr(d.message, "--max-memory SIZE"));
	assert_int_equal(exit_status(CCP_ERANGE), EXIT_BADINPUT);
}

static void test_limit(void **state)
{
	(void)state;
	struct diag d;
	front_set_max_memory(0);
	assert_int_equal(front_max_memory(), FRONT_MAX_MEMORY_DEFAULT);

	/* the 2^24-rank switch broadcast (13.2 GB measured) and the
	 * 80-byte 4096 x 4096 mesh broadcast: refused by default */
	ir_machine sw = tu_machine(IR_SWITCH, 1, 1 << 24, 0, 0, 0);
	ir_machine mesh = tu_machine(IR_MESH, 1, 4096, 4096, 0, 0);
	ir_comm b = tu_comm(IR_BCAST, 0, 1);
	struct front_input big[] = {input(&sw, &b, "binomial"),
	                            input(&mesh, &b, "binomial"),
	                            input(&mesh, &b, "auto")};
	for (size_t k = 0; k < 3; k++) {
		struct compile_estimate e;
		compile_estimate(&big[k], k == 2, false, &e);
		assert_true(e.peak_bytes > (UINT64_C(12) << 30));
		assert_int_equal(e.transfers, (1 << 24) - 1);
		refused(&big[k]);
		/* the limit raised: the check lets it through (not built) */
		front_set_max_memory(UINT64_C(64) << 30);
		memset(&d, 0, sizeof d);
		assert_int_equal(compile_check_size(&big[k], k == 2, false, &d),
		                 0);
		front_set_max_memory(0);
	}
	assert_int_equal(front_max_memory(), FRONT_MAX_MEMORY_DEFAULT);

	/* a small plan under a tiny limit: refused, then built */
	ir_machine m = tu_machine(IR_MESH, 1, 16, 16, 0, 0);
	struct front_input in = input(&m, &b, "binomial");
	front_set_max_memory(1 << 20);
	memset(&d, 0, sizeof d);
	assert_int_equal(compile_check_size(&in, false, false, &d),
	                 CCP_ERANGE);
	assert_non_null(strstr(d.message, "more than the limit of 1 MiB"));
	assert_non_null(strstr(d.message, "(binomial: 255 transfers, 255 "
	                                  "blocks"));
	front_set_max_memory(64 << 20);
	struct compiled c;
	assert_int_equal(compile_input(&in, &c, &d), 0);
	compiled_fini(&c);
	/* auto and compare count every candidate */
	struct front_input a = input(&m, &b, "auto");
	struct compile_estimate one, all;
	compile_estimate(&in, false, false, &one);
	compile_estimate(&a, true, false, &all);
	assert_true(all.candidates > 3);
	assert_true(all.peak_bytes > one.peak_bytes);
	front_set_max_memory(0);
}

/* Every example and every input of the tests and benchmarks fits the
 * default limit. */
static void test_inputs_fit(void **state)
{
	(void)state;
	const char *dirs[] = {"../examples", "good",     "cli",
	                      "emit",        "golden",   "alloc",
	                      "mpi",         "shmem",    "scan/data",
	                      "../bench/mpi", "../bench/stress"};
	size_t count = 0;
	front_set_max_memory(0);
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		DIR *dir = opendir(dirs[i]);
		struct dirent *e;
		assert_non_null(dir);
		while ((e = readdir(dir))) {
			size_t l = strlen(e->d_name);
			char path[512];
			struct front_input in;
			struct diag d;
			if (l < 6 || strcmp(e->d_name + l - 5, ".yaml"))
				continue;
			snprintf(path, sizeof path, "%s/%s", dirs[i],
			         e->d_name);
			if (front_parse_file(path, &in, &d) != 0)
				continue; /* the front end's business */
			bool every = !strcmp(in.algorithm, "auto");
			int rc = compile_check_size(&in, every, every, &d);
			if (rc)
				print_error("%s: %s\n", path, d.message);
			assert_int_equal(rc, 0);
			front_input_fini(&in);
			count++;
		}
		closedir(dir);
	}
	assert_true(count > 120);
}

/* The front end refuses a matrix whose messages alone would pass the
 * limit, at the position that makes it, before building it. */
static void test_front_matrix_limit(void **state)
{
	(void)state;
	struct front_input in;
	struct diag d;
	const char *gen = "machine: {topology: switch, ranks: 1024}\n"
	                  "communication:\n"
	                  "  pattern: irregular\n"
	                  "  generate: {kind: regular, degree: 4, bytes: 8, "
	                  "seed: 1}\n"
	                  "algorithm: ac\n";
	front_set_max_memory(1 << 20); /* 4096 messages need 2 MiB */
	assert_int_equal(front_parse_string("g.yaml", gen, strlen(gen), &in,
	                                    &d),
	                 CCP_EPARSE);
	assert_int_equal(d.line, 4);
	assert_int_equal(d.column, 13);
	assert_string_equal(d.message,
	                    "communication.generate: 4096 messages would need "
	                    "at least 2 MiB of memory to compile, more than "
	                    "the limit of 1 MiB; " FRONT_MAX_MEMORY_HINT);
	front_set_max_memory(64 << 20);
	assert_int_equal(front_parse_string("g.yaml", gen, strlen(gen), &in,
	                                    &d),
	                 0);
	assert_int_equal(in.comm.matrix->nnz, 4096);
	front_input_fini(&in);

	/* an edge list and a CSV, refused at the line that passes it */
	char dir[] = "/tmp/ccplan-est-XXXXXX", path[128];
	assert_non_null(mkdtemp(dir));
	for (int csv = 0; csv < 2; csv++) {
		snprintf(path, sizeof path, "%s/m.%s", dir, csv ? "csv" : "txt");
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		int32_t n = csv ? 100 : 1024;
		for (int32_t s = 0; s < n; s++)
			for (int32_t t = 0; t < n; t++) {
				if (csv)
					fprintf(f, "%s%d", t ? "," : "", s != t);
				else if (s != t && t < 8)
					fprintf(f, "%d %d 8\n", s, t);
				if (csv && t == n - 1)
					fputc('\n', f);
			}
		assert_int_equal(fclose(f), 0);
		ir_matrix *x = NULL;
		front_set_max_memory(1 << 20); /* 2048 messages */
		assert_int_equal(front_read_matrix(path, n, &x, &d),
		                 CCP_EPARSE);
		assert_null(x);
		/* CSV: 21 rows of 99 messages pass 2048 at row 21; edge
		 * list: the 2049th edge */
		assert_int_equal(d.line, csv ? 21 : 2049);
		assert_non_null(strstr(d.message, csv ? "2079 messages so far"
		                                      : "2049 messages so far"));
		assert_non_null(strstr(d.message, "more than the limit of 1 "
		                                  "MiB; " FRONT_MAX_MEMORY_HINT));
		front_set_max_memory(0);
		assert_int_equal(front_read_matrix(path, n, &x, &d), 0);
		ir_matrix_free(x);
		assert_int_equal(remove(path), 0);
	}
	assert_int_equal(remove(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_bounds_every_generator),
	        cmocka_unit_test(test_every_generator_covered),
	        cmocka_unit_test(test_limit),
	        cmocka_unit_test(test_inputs_fit),
	        cmocka_unit_test(test_front_matrix_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
