/*
 * test_front.c - the YAML front end, the matrix inputs and generators, the
 * PRNG and the canonical form.
 *
 * good/ files parse into the structs they describe; every bad/NAME.yaml
 * fails with exactly the first line of bad/NAME.err ("NAME.yaml:LINE:COL:
 * message", or the matrix file's name when the problem is inside it) and
 * the exit status of its "exit: N" line; two
 * spellings of one input give one canonical text and hash, and every
 * change of meaning gives another hash.  The catalogue is read from a
 * scratch copy of bad/ with the files of bad/FIXTURES made in it.  Run
 * from tests/ (CTest does).
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "compile.h"
#include "front.h"
#include "matrix.h"
#include "model.h"
#include "rng.h"
#include "support.h"

/* ---- helpers ---------------------------------------------------------- */

/* Parse a file that must be good; fails the test with its diagnostic. */
static void parse_good(const char *path, struct front_input *in)
{
	struct diag d;
	int rc = front_parse_file(path, in, &d);

	if (rc != 0)
		fail_msg("%s: %s:%d:%d: %s", path, d.file, d.line, d.column,
		         d.message);
}

/* Parse text that must be good. */
static void parse_good_text(const char *text, struct front_input *in)
{
	struct diag d;
	int rc = front_parse_string("t.yaml", text, strlen(text), in, &d);

	if (rc != 0)
		fail_msg("t.yaml:%d:%d: %s", d.line, d.column, d.message);
}

/* Check that row i of x holds exactly dst[0..k) with the given bytes. */
static void check_row(const ir_matrix *x, int32_t i, const int32_t *dst,
                      const int64_t *bytes, int k)
{
	assert_int_equal(x->row[i + 1] - x->row[i], k);
	for (int j = 0; j < k; j++) {
		assert_int_equal(x->dst[x->row[i] + j], dst[j]);
		assert_int_equal(x->bytes[x->row[i] + j], bytes[j]);
	}
}

/* The matrix of good/irregular_*.yaml. */
static void check_small_matrix(const ir_matrix *x)
{
	assert_non_null(x);
	assert_int_equal(x->n, 4);
	assert_int_equal(x->nnz, 6);
	check_row(x, 0, (int32_t[]){1, 3}, (int64_t[]){10, 5}, 2);
	check_row(x, 1, NULL, NULL, 0);
	check_row(x, 2, (int32_t[]){0, 3}, (int64_t[]){7, 1}, 2);
	check_row(x, 3, (int32_t[]){1, 2}, (int64_t[]){3, 2}, 2);
	assert_int_equal(ir_matrix_get(x, 2, 0), 7);
	assert_int_equal(ir_matrix_get(x, 1, 2), 0);
}

/* Every row and every column of x has exactly d entries, none on the
 * diagonal, rows strictly increasing, all of size bytes. */
static void check_regular(const ir_matrix *x, int32_t n, int32_t d,
                          int64_t bytes)
{
	int32_t *col = calloc((size_t)n, sizeof *col);

	assert_non_null(col);
	assert_int_equal(x->n, n);
	assert_int_equal(x->nnz, (int64_t)n * d);
	for (int32_t i = 0; i < n; i++) {
		assert_int_equal(x->row[i + 1] - x->row[i], d);
		for (int64_t k = x->row[i]; k < x->row[i + 1]; k++) {
			assert_int_not_equal(x->dst[k], i);
			if (k > x->row[i])
				assert_true(x->dst[k] > x->dst[k - 1]);
			assert_int_equal(x->bytes[k], bytes);
			col[x->dst[k]]++;
		}
	}
	for (int32_t i = 0; i < n; i++)
		assert_int_equal(col[i], d);
	free(col);
}

/* Are two matrices equal? */
static bool same_matrix(const ir_matrix *a, const ir_matrix *b)
{
	if (a->n != b->n || a->nnz != b->nnz)
		return false;
	return !memcmp(a->row, b->row, ((size_t)a->n + 1) * sizeof *a->row) &&
	       !memcmp(a->dst, b->dst, (size_t)a->nnz * sizeof *a->dst) &&
	       !memcmp(a->bytes, b->bytes, (size_t)a->nnz * sizeof *a->bytes);
}

/* ---- good inputs ------------------------------------------------------ */

static void test_good_mesh(void **state)
{
	struct front_input in;

	(void)state;
	parse_good("good/mesh_bcast.yaml", &in);
	assert_int_equal(in.machine.topo, IR_MESH);
	assert_int_equal(in.machine.ndims, 2);
	assert_int_equal(in.machine.dims[0], 16);
	assert_int_equal(in.machine.dims[1], 16);
	assert_int_equal(in.machine.dims[2], 1);
	assert_int_equal(in.machine.nranks, 256);
	assert_int_equal(in.machine.routing, IR_ROUTE_DIM_ORDER);
	assert_int_equal(in.machine.ports, IR_PORTS_ALL);
	assert_true(in.machine.cost.alpha == 50.5);
	assert_true(in.machine.cost.beta == 0.01);
	assert_true(in.machine.cost.hop == 0.2);
	assert_true(isnan(in.machine.cost.gamma));
	assert_true(isnan(in.machine.cost.c_send[0]));
	assert_string_equal(in.machine.cost.preset, "");
	assert_int_equal(in.comm.coll, IR_BCAST);
	assert_int_equal(in.comm.root, 8 + 16 * 8);
	assert_int_equal(in.comm.bytes, 65536);
	assert_int_equal(in.comm.segments, 16);
	assert_null(in.comm.matrix);
	assert_string_equal(in.algorithm, "edn");
	assert_int_equal(in.algorithm_line, 16);
	assert_int_equal(in.algorithm_column, 12);
	assert_int_equal(in.contention, CONTENTION_FORBID);
	assert_true(in.has_seed);
	assert_int_equal(in.seed, 42);
	front_input_fini(&in);
}

static void test_good_torus3d(void **state)
{
	struct front_input in;

	(void)state;
	parse_good("good/torus3d_scatter.yaml", &in);
	assert_int_equal(in.machine.topo, IR_TORUS);
	assert_int_equal(in.machine.ndims, 3);
	assert_int_equal(in.machine.dims[2], 2);
	assert_int_equal(in.machine.nranks, 32);
	assert_int_equal(in.machine.ports, 2);
	assert_int_equal(in.comm.coll, IR_SCATTER);
	assert_int_equal(in.comm.root, 5);
	assert_int_equal(in.comm.bytes, 4096);
	assert_int_equal(in.contention, CONTENTION_DEFAULT);
	assert_false(in.has_seed);
	front_input_fini(&in);
}

static void test_good_hypercube(void **state)
{
	struct front_input in;

	(void)state;
	parse_good("good/hypercube_gather.yaml", &in);
	assert_int_equal(in.machine.topo, IR_HYPERCUBE);
	assert_int_equal(in.machine.ndims, 6);
	assert_int_equal(in.machine.nranks, 64);
	assert_int_equal(in.machine.routing, IR_ROUTE_ECUBE);
	assert_int_equal(in.machine.ports, 1);
	assert_int_equal(in.comm.coll, IR_GATHER);
	assert_int_equal(in.comm.root, 63);
	assert_int_equal(in.contention, CONTENTION_ALLOW);
	front_input_fini(&in);
}

static void test_good_hpam(void **state)
{
	struct front_input in;

	(void)state;
	parse_good("good/hpam_bcast.yaml", &in);
	assert_int_equal(in.machine.topo, IR_HPAM);
	assert_int_equal(in.machine.routing, IR_ROUTE_HPAM_XY);
	assert_int_equal(in.machine.levels[0][0], 1);
	assert_int_equal(in.machine.levels[0][1], 1);
	assert_int_equal(in.machine.levels[1][0], 4);
	assert_int_equal(in.machine.levels[1][1], 4);
	assert_int_equal(in.machine.nranks, 17);
	assert_true(in.machine.cost.c_send[0] == 10);
	assert_true(in.machine.cost.c_recv[1] == 20);
	assert_true(in.machine.cost.copy[1] == 0.02);
	assert_true(in.machine.cost.lambda == 0.01);
	assert_int_equal(in.comm.root, 0);
	assert_int_equal(in.comm.segments, 1);
	front_input_fini(&in);
}

static void test_good_switch(void **state)
{
	struct front_input in;

	(void)state;
	parse_good("good/switch_alltoall.yaml", &in);
	assert_int_equal(in.machine.topo, IR_SWITCH);
	assert_int_equal(in.machine.dims[0], 64);
	assert_int_equal(in.machine.nranks, 64);
	assert_int_equal(in.machine.routing, IR_ROUTE_DIRECT);
	assert_int_equal(in.comm.coll, IR_ALLTOALL);
	assert_int_equal(in.comm.bytes, 128);
	front_input_fini(&in);
}

/* One node of several ranks takes ports that are counted (what the
 * refusal of `ports: all` there, tests/bad/one_node_*, tells the user to
 * write). */
static void test_good_one_node(void **state)
{
	struct front_input in;

	(void)state;
	parse_good_text("machine: {topology: switch, ranks: 4, "
	                "ranks_per_node: 4, ports: one}\n"
	                "communication: {collective: broadcast, root: 0, "
	                "bytes: 64}\n"
	                "algorithm: auto\n",
	                &in);
	assert_int_equal(in.machine.nnodes, 1);
	assert_int_equal(in.machine.nranks, 4);
	assert_int_equal(in.machine.ports, 1);
	front_input_fini(&in);
	parse_good_text("machine: {topology: mesh, dims: [1], "
	                "ranks_per_node: 8, ports: 7}\n"
	                "communication: {collective: allgather, bytes: 64}\n"
	                "algorithm: auto\n",
	                &in);
	assert_int_equal(in.machine.nnodes, 1);
	assert_int_equal(in.machine.nranks, 8);
	assert_int_equal(in.machine.ports, 7);
	front_input_fini(&in);
}

static void test_good_reduce_transpose(void **state)
{
	struct front_input in;

	(void)state;
	parse_good("good/mesh_reduce.yaml", &in);
	assert_int_equal(in.machine.ndims, 1);
	assert_int_equal(in.machine.nranks, 8);
	assert_int_equal(in.comm.coll, IR_REDUCE);
	assert_int_equal(in.comm.root, 3);
	assert_int_equal(in.comm.dtype, IR_DT_DOUBLE);
	assert_int_equal(in.comm.op, IR_OP_MAX);
	front_input_fini(&in);
	parse_good("good/torus_transpose.yaml", &in);
	assert_int_equal(in.comm.coll, IR_TRANSPOSE);
	assert_int_equal(in.comm.bytes, 512);
	front_input_fini(&in);
}

static void test_good_matrices(void **state)
{
	static const char *const files[] = {
	        "good/irregular_matrix.yaml",
	        "good/irregular_edges.yaml",
	        "good/irregular_csv.yaml",
	        "good/irregular_edgefile.yaml",
	};
	struct front_input in;

	(void)state;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		parse_good(files[i], &in);
		assert_int_equal(in.comm.coll, IR_IRREGULAR);
		assert_int_equal(in.comm.seed, 0);
		check_small_matrix(in.comm.matrix);
		front_input_fini(&in);
		assert_null(in.comm.matrix);
	}
}

static void test_good_generated(void **state)
{
	struct front_input in;
	ir_matrix *x;

	(void)state;
	parse_good("good/generate_regular.yaml", &in);
	assert_int_equal(in.comm.seed, 7);
	check_regular(in.comm.matrix, 64, 4, 1024);
	x = ir_matrix_regular(64, 4, 1024, 7);
	assert_true(same_matrix(x, in.comm.matrix));
	ir_matrix_free(x);
	front_input_fini(&in);

	parse_good("good/generate_density.yaml", &in);
	assert_int_equal(in.comm.seed, 3);
	x = ir_matrix_density(32, 0.25, 100, 3);
	assert_true(same_matrix(x, in.comm.matrix));
	ir_matrix_free(x);
	front_input_fini(&in);

	parse_good("good/generate_skewed.yaml", &in);
	x = ir_matrix_skewed(16, 3, 2, 64, 11);
	assert_true(same_matrix(x, in.comm.matrix));
	ir_matrix_free(x);
	front_input_fini(&in);
}

/* ---- bad inputs ------------------------------------------------------- */

/* Compare names for qsort. */
static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A scratch copy of bad/ in a new directory (its path into dir): a
 * symbolic link to every file, and the files bad/FIXTURES lists made for
 * real (a FIFO, a sparse file), as tests/cases_test.sh makes them. */
static void scratch_bad(char *dir, size_t len)
{
	char src[PATH_MAX], from[PATH_MAX + 300], to[PATH_MAX + 300];
	char line[512], kind[32], name[256];
	struct dirent *e;
	long long size;

	assert_non_null(realpath("bad", src));
	snprintf(dir, len, "%s/ccplan-bad-XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	DIR *d = opendir(src);
	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(from, sizeof from, "%s/%s", src, e->d_name);
		snprintf(to, sizeof to, "%s/%s", dir, e->d_name);
		assert_int_equal(symlink(from, to), 0);
	}
	closedir(d);
	FILE *f = fopen("bad/FIXTURES", "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		int n = sscanf(line, "%31s %255s %lld", kind, name, &size);
		if (n < 1 || kind[0] == '#')
			continue;
		snprintf(to, sizeof to, "%s/%s", dir, name);
		if (!strcmp(kind, "fifo") && n == 2) {
			assert_int_equal(mkfifo(to, 0600), 0);
		} else if (!strcmp(kind, "sparse") && n == 3) {
			int fd = open(to, O_WRONLY | O_CREAT | O_EXCL, 0600);
			assert_true(fd >= 0);
			assert_int_equal(ftruncate(fd, (off_t)size), 0);
			close(fd);
		} else {
			fail_msg("bad/FIXTURES: cannot read '%s'", line);
		}
	}
	fclose(f);
}

/* Remove the scratch directory and everything in it. */
static void scratch_remove(const char *dir)
{
	char path[PATH_MAX + 300];
	struct dirent *e;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		assert_int_equal(unlink(path), 0);
	}
	closedir(d);
	assert_int_equal(rmdir(dir), 0);
}

static void test_bad_catalogue(void **state)
{
	char bad[PATH_MAX];
	/* a reader that waits on the FIFO must fail the test, not hang it */
	alarm(120);
	scratch_bad(bad, sizeof bad);
	DIR *dir = opendir(bad);
	struct dirent *e;
	char *names[512];
	size_t count = 0, failed = 0;

	(void)state;
	assert_non_null(dir);
	while ((e = readdir(dir)) && count < 512) {
		size_t l = strlen(e->d_name);
		if (l > 5 && !strcmp(e->d_name + l - 5, ".yaml"))
			names[count++] = strdup(e->d_name);
	}
	closedir(dir);
	qsort(names, count, sizeof names[0], name_cmp);
	for (size_t i = 0; i < count; i++) {
		char path[PATH_MAX + 300], errpath[512], want[1024], got[2048];
		struct front_input in;
		struct diag d;
		const char *base;
		int rc, status;

		snprintf(path, sizeof path, "%s/%s", bad, names[i]);
		snprintf(errpath, sizeof errpath, "bad/%.*s.err",
		         (int)(strlen(names[i]) - 5), names[i]);
		if (!tu_read_golden(errpath, want, sizeof want, &status)) {
			print_error("%s: no %s with a message and an 'exit: "
			            "N' line\n",
			            names[i], errpath);
			failed++;
			continue;
		}
		rc = front_parse_file(path, &in, &d);
		if (rc != CCP_EPARSE) {
			print_error("%s: expected CCP_EPARSE, got %d\n",
			            names[i], rc);
			if (rc == 0)
				front_input_fini(&in);
			failed++;
			continue;
		}
		assert_null(in.comm.matrix);
		base = strrchr(d.file, '/');
		base = base ? base + 1 : d.file;
		snprintf(got, sizeof got, "%s:%d:%d: %s", base, d.line,
		         d.column, d.message);
		if (strcmp(got, want)) {
			print_error("%s:\n  want %s\n  got  %s\n", names[i],
			            want, got);
			failed++;
		}
		if (exit_status(rc) != status) {
			print_error("%s: exit %d, the golden says %d\n",
			            names[i], exit_status(rc), status);
			failed++;
		}
		/* every diagnostic has a position; only a missing file's
		 * position is the YAML key's */
		assert_true(d.line >= 1 && d.column >= 1);
	}
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	scratch_remove(bad);
	alarm(0);
	assert_true(count >= 40);
	assert_int_equal(failed, 0);
}

/* Every bad/NAME.err has its NAME.yaml, or NAME.ccp for a bad plan (no
 * orphaned expectations). */
static void test_bad_err_paired(void **state)
{
	DIR *dir = opendir("bad");
	struct dirent *e;
	int errs = 0;

	(void)state;
	assert_non_null(dir);
	while ((e = readdir(dir))) {
		size_t l = strlen(e->d_name);
		char path[512];
		FILE *f;
		if (l <= 4 || strcmp(e->d_name + l - 4, ".err"))
			continue;
		snprintf(path, sizeof path, "bad/%.*s.yaml", (int)(l - 4),
		         e->d_name);
		f = fopen(path, "r");
		if (!f) {
			snprintf(path, sizeof path, "bad/%.*s.ccp",
			         (int)(l - 4), e->d_name);
			f = fopen(path, "r");
		}
		if (!f)
			print_error("%s has no .yaml or .ccp\n", e->d_name);
		else
			fclose(f);
		assert_non_null(f);
		errs++;
	}
	closedir(dir);
	assert_true(errs >= 40);
}

static void test_bad_source_line(void **state)
{
	struct front_input in;
	struct diag d;

	(void)state;
	assert_int_equal(
	        front_parse_file("bad/unknown_key_suggest.yaml", &in, &d),
	        CCP_EPARSE);
	assert_string_equal(d.file, "bad/unknown_key_suggest.yaml");
	assert_string_equal(d.source_line, "  topolgy: mesh");
	assert_int_equal(d.line, 2);
	assert_int_equal(d.column, 3);
	assert_int_equal(front_parse_file("bad/csv_bad_cell.yaml", &in, &d),
	                 CCP_EPARSE);
	assert_string_equal(d.file, "bad/csv_bad_cell.csv");
	assert_string_equal(d.source_line, "1,2,x1,3");
	assert_int_equal(
	        front_parse_file("bad/edgefile_duplicate.yaml", &in, &d),
	        CCP_EPARSE);
	assert_string_equal(d.source_line, "  0 1 7");
}

/* The two limits of the YAML reader: a regular file over FRONT_MAX_FILE
 * is refused by its size, before a byte is read (a sparse file of 256 MiB
 * + 1 here), and more than FRONT_MAX_NODES values at the value that
 * passes the limit (one flow sequence of 4096^2 + 65536 + 1 zeros). */
static void test_yaml_limits(void **state)
{
	struct front_input in;
	struct diag d;
	char path[] = "/tmp/ccplan-big-XXXXXX";

	(void)state;
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)FRONT_MAX_FILE + 1), 0);
	close(fd);
	assert_int_equal(front_parse_file(path, &in, &d), CCP_EPARSE);
	assert_string_equal(d.message,
	                    "input too large: more than 256 MiB of YAML");
	assert_int_equal(d.line, 0);
	assert_int_equal(unlink(path), 0);

	const char *head = "machine: {topology: switch, ranks: 4}\nx: [";
	size_t values = (size_t)4096 * 4096 + 65536 + 1;
	size_t len = strlen(head) + 2 * values + 1;
	char *text = malloc(len + 1);
	assert_non_null(text);
	memcpy(text, head, strlen(head));
	char *p = text + strlen(head);
	for (size_t k = 0; k < values; k++) {
		*p++ = '0';
		*p++ = k + 1 < values ? ',' : ']';
	}
	*p++ = '\n';
	*p = '\0';
	assert_int_equal(front_parse_string("v.yaml", text, len, &in, &d),
	                 CCP_EPARSE);
	assert_int_equal(d.line, 2);
	/* nine nodes come before the sequence's first value: the top
	 * mapping, machine and its mapping of four scalars, x, the sequence */
	assert_int_equal(d.column, 4 + 2 * (4096 * 4096 + 65536 - 9) + 1);
	assert_string_equal(d.message,
	                    "input too large: more than 16842752 YAML values "
	                    "(an inline matrix holds at most 4096 x 4096 "
	                    "entries; use file: for larger ones)");
	free(text);
}

static void test_no_file(void **state)
{
	struct front_input in;
	struct diag d;

	(void)state;
	assert_int_equal(front_parse_file("no/such/file.yaml", &in, &d),
	                 CCP_EIO);
	assert_string_equal(d.file, "no/such/file.yaml");
	assert_int_equal(d.line, 0);
}

static void test_parse_string(void **state)
{
	static const char text[] =
	        "machine: {topology: switch, ranks: 2}\n"
	        "communication: {collective: broadcast, bytes: 1}\n"
	        "algorithm: direct\n";
	struct front_input in;
	struct diag d;

	(void)state;
	parse_good_text(text, &in);
	assert_int_equal(in.machine.nranks, 2);
	front_input_fini(&in);
	/* a string need not end in NUL: only len bytes are read */
	assert_int_equal(front_parse_string("mem", text, 20, &in, &d),
	                 CCP_EPARSE);
	assert_string_equal(d.file, "mem");
	assert_true(d.line >= 1);
}

/* The largest inline matrix is accepted; one row more is not (checked in
 * bad/matrix_too_big.yaml).  A 64 x 64 stands in to keep the test quick,
 * plus a billion-laughs-shaped input without aliases is just big, not
 * exponential. */
static void test_inline_matrix_size(void **state)
{
	const int n = 64;
	size_t cap = (size_t)n * n * 4 + 256, len = 0;
	char *t = malloc(cap);
	struct front_input in;

	(void)state;
	assert_non_null(t);
	len += (size_t)snprintf(t + len, cap - len,
	                        "machine: {topology: switch, ranks: %d}\n"
	                        "communication:\n  pattern: irregular\n"
	                        "  matrix:\n",
	                        n);
	for (int i = 0; i < n; i++) {
		len += (size_t)snprintf(t + len, cap - len, "  - [");
		for (int j = 0; j < n; j++)
			len += (size_t)snprintf(t + len, cap - len, "%s%d",
			                        j ? "," : "", i == j ? 0 : 1);
		len += (size_t)snprintf(t + len, cap - len, "]\n");
	}
	snprintf(t + len, cap - len, "algorithm: x\n");
	parse_good_text(t, &in);
	assert_int_equal(in.comm.matrix->nnz, n * (n - 1));
	front_input_fini(&in);
	free(t);
}

/* ---- canonical form --------------------------------------------------- */

static void test_canonical_equal(void **state)
{
	static const char *const same[][2] = {
	        {"good/canon_a.yaml", "good/canon_b.yaml"},
	        {"good/irregular_matrix.yaml", "good/irregular_edges.yaml"},
	        {"good/irregular_matrix.yaml", "good/irregular_csv.yaml"},
	};
	struct front_input a, b;
	uint8_t ha[16], hb[16];
	char *ca, *cb;

	(void)state;
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		parse_good(same[i][0], &a);
		parse_good(same[i][1], &b);
		ca = front_canonical(&a);
		cb = front_canonical(&b);
		assert_non_null(ca);
		assert_non_null(cb);
		assert_string_equal(ca, cb);
		assert_true(!strncmp(ca, "ccplan-input 2\n", 15));
		assert_int_equal(front_input_hash(&a, ha), 0);
		assert_int_equal(front_input_hash(&b, hb), 0);
		assert_memory_equal(ha, hb, 16);
		free(ca);
		free(cb);
		front_input_fini(&a);
		front_input_fini(&b);
	}
}

/* The hash is XXH3-128 of the text, big-endian: pinned, so a change of
 * the canonical form (which invalidates every cached plan) is seen.  The
 * text names the compiler's version: a new version changes both. */
static void test_canonical_pinned(void **state)
{
	static const char want[] = "ccplan-input 2\n"
	                           "machine.topology mesh\n"
	                           "machine.dims 4 4\n"
	                           "machine.nranks 16\n"
	                           "machine.routing dimension-order\n"
	                           "machine.ports all\n"
	                           "machine.cost.preset -\n"
	                           "machine.cost.alpha unset\n"
	                           "machine.cost.beta unset\n"
	                           "machine.cost.hop unset\n"
	                           "machine.cost.gamma unset\n"
	                           "machine.cost.beta_sat unset\n"
	                           "machine.cost.tau unset\n"
	                           "machine.cost.phi unset\n"
	                           "machine.cost.lambda unset\n"
	                           "machine.cost.c_send unset unset\n"
	                           "machine.cost.c_recv unset unset\n"
	                           "machine.cost.copy unset unset\n"
	                           "communication.collective broadcast\n"
	                           "communication.root 5\n"
	                           "communication.bytes 1024\n"
	                           "communication.segments 1\n"
	                           "communication.seed 0\n"
	                           "algorithm binomial\n"
	                           "contention default\n"
	                           "seed none\n"
	                           "compiler 0.1.0\n"
	                           "plan-format 3\n";
	static const uint8_t hash[16] = {
	        0xa8, 0x79, 0x3d, 0x47, 0x0e, 0x95, 0xe5, 0x53,
	        0x19, 0x52, 0x06, 0x20, 0x2f, 0x67, 0xa5, 0x9a,
	};
	struct front_input in;
	uint8_t h[16];
	char *c;

	(void)state;
	parse_good("good/canon_a.yaml", &in);
	c = front_canonical(&in);
	assert_string_equal(c, want);
	assert_int_equal(front_input_hash(&in, h), 0);
	assert_memory_equal(h, hash, 16);
	free(c);
	front_input_fini(&in);
}

/* combine: in the canonical form, and plan format 5, only when given
 * above 0; given as 0 the input keeps the key it had without it. */
static void test_canon_combine(void **state)
{
	static const char *const text[3] = {
	        "machine: {topology: switch, ranks: 4, cost: {tau: 2, phi: "
	        "0.5, combine: 0.25}}\n"
	        "communication: {collective: reduce, root: 0, bytes: 64, "
	        "dtype: int32, op: sum}\nalgorithm: binomial\n",
	        "machine: {topology: switch, ranks: 4, cost: {tau: 2, phi: "
	        "0.5, combine: 0}}\n"
	        "communication: {collective: reduce, root: 0, bytes: 64, "
	        "dtype: int32, op: sum}\nalgorithm: binomial\n",
	        "machine: {topology: switch, ranks: 4, cost: {tau: 2, phi: "
	        "0.5}}\n"
	        "communication: {collective: reduce, root: 0, bytes: 64, "
	        "dtype: int32, op: sum}\nalgorithm: binomial\n"};
	char *c[3];
	uint8_t h[3][16];
	(void)state;
	for (int i = 0; i < 3; i++) {
		struct front_input in;
		parse_good_text(text[i], &in);
		c[i] = front_canonical(&in);
		assert_non_null(c[i]);
		assert_int_equal(front_input_hash(&in, h[i]), 0);
		front_input_fini(&in);
	}
	assert_non_null(strstr(c[0], "machine.cost.combine 0.25\n"));
	assert_non_null(strstr(c[0], "plan-format 5\n"));
	assert_null(strstr(c[1], "combine"));
	assert_non_null(strstr(c[1], "plan-format 3\n"));
	assert_string_equal(c[1], c[2]);
	assert_memory_equal(h[1], h[2], 16);
	assert_memory_not_equal(h[0], h[2], 16);
	for (int i = 0; i < 3; i++)
		free(c[i]);
}

/* A preset fills the costs the input leaves unset; given ones win. */
static void test_preset_fills(void **state)
{
	struct front_input in;
	const ir_cost *t3d = &model_preset_find("t3d")->cost;
	(void)state;
	parse_good_text("machine: {topology: mesh, dims: [4, 4], cost: "
	                "{preset: t3d, beta: 0.5}}\n"
	                "communication: {collective: broadcast, bytes: 8}\n"
	                "algorithm: binomial\n",
	                &in);
	assert_string_equal(in.machine.cost.preset, "t3d");
	assert_true(in.machine.cost.alpha == t3d->alpha);
	assert_true(in.machine.cost.gamma == t3d->gamma);
	assert_true(in.machine.cost.beta == 0.5);
	assert_true(t3d->beta != 0.5);
	front_input_fini(&in);
}

static void test_canonical_changes(void **state)
{
	/* each line changes one thing that changes the plan */
	static const char *const variants[] = {
	        /* 0: the base */
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: torus, dims: [4, 4]}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 2, 2]}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [16]}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4], ports: 1}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4], cost: {alpha: 1}}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4], cost: {alpha: "
	        "1.0000000000000002}}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4], cost: {preset: "
	        "t3d}}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {collective: broadcast, root: 6, bytes: 1024}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1025}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024, "
	        "segments: 2}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {collective: scatter, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {collective: reduce, root: 5, bytes: 1024, "
	        "dtype: byte, op: sum}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {collective: reduce, root: 5, bytes: 1024, "
	        "dtype: byte, op: min}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {collective: reduce, root: 5, bytes: 1024, "
	        "dtype: int32, op: sum}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: edn\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\ncontention: forbid\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\ncontention: allow\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\nseed: 0\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\nseed: 1\n",
	        "machine: {topology: switch, ranks: 16}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: hypercube, dimension: 4}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: hpam, levels: [{rows: 1, cols: 1}, {rows: "
	        "3, cols: 4}], cost: {lambda: 1}}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: hpam, levels: [{rows: 1, cols: 1, c_send: "
	        "2}, {rows: 3, cols: 4}], cost: {lambda: 1}}\n"
	        "communication: {collective: broadcast, root: 5, bytes: 1024}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {pattern: irregular, edges: [[0, 1, 5]]}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {pattern: irregular, edges: [[0, 1, 6]]}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {pattern: irregular, edges: [[0, 2, 5]]}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {pattern: irregular, edges: [[1, 0, 5]]}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {pattern: irregular, generate: {kind: regular, "
	        "degree: 2, bytes: 8, seed: 1}}\n"
	        "algorithm: binomial\n",
	        "machine: {topology: mesh, dims: [4, 4]}\n"
	        "communication: {pattern: irregular, generate: {kind: regular, "
	        "degree: 2, bytes: 8, seed: 2}}\n"
	        "algorithm: binomial\n",
	};
	enum { NV = sizeof variants / sizeof variants[0] };
	uint8_t h[NV][16];
	struct front_input in;

	(void)state;
	for (size_t i = 0; i < NV; i++) {
		parse_good_text(variants[i], &in);
		assert_int_equal(front_input_hash(&in, h[i]), 0);
		front_input_fini(&in);
	}
	for (size_t i = 0; i < NV; i++)
		for (size_t j = i + 1; j < NV; j++)
			if (!memcmp(h[i], h[j], 16))
				fail_msg("variants %zu and %zu hash alike", i,
				         j);
}

/* Spellings that mean the same give the same text. */
static void test_canonical_spellings(void **state)
{
	static const char *const pairs[][2] = {
	        {"machine: {topology: mesh, dims: [4, 4], ports: one}\n"
	         "communication: {collective: gather, bytes: 8}\nalgorithm: "
	         "a\n",
	         "algorithm: a\ncommunication: {bytes: 8, collective: gather, "
	         "root: 0}\n"
	         "machine: {dims: [4, 4], topology: mesh, ports: 1, routing: "
	         "dimension-order}\n"},
	        {"machine: {topology: torus, dims: [2, 2, 2], cost: {beta: "
	         "0.5}}\n"
	         "communication: {collective: scatter, root: [1, 1, 1], bytes: "
	         "8}\nalgorithm: a\n",
	         "machine: {topology: torus, dims: [2, 2, 2], routing: xyz, "
	         "cost: {beta: 5e-1}}\n"
	         "communication: {collective: scatter, root: 7, bytes: "
	         "8}\nalgorithm: a\n"},
	        {"machine: {topology: switch, ranks: 3, cost: {alpha: 0}}\n"
	         "communication: {pattern: irregular, matrix: [[0, 1, 0], [0, "
	         "0, 0], [2, 0, 0]]}\n"
	         "algorithm: a\n",
	         "machine: {topology: switch, ranks: 3, routing: direct, cost: "
	         "{alpha: -0.0}}\n"
	         "communication: {pattern: irregular, edges: [[2, 0, 2], [0, "
	         "1, 1], [1, 2, 0]]}\n"
	         "algorithm: a\n"},
	};
	struct front_input a, b;
	char *ca, *cb;

	(void)state;
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		parse_good_text(pairs[i][0], &a);
		parse_good_text(pairs[i][1], &b);
		ca = front_canonical(&a);
		cb = front_canonical(&b);
		assert_string_equal(ca, cb);
		free(ca);
		free(cb);
		front_input_fini(&a);
		front_input_fini(&b);
	}
}

/* A fat tree: the k-ary n-tree shorthand and the levels it stands for,
 * with the default routing and width said or not, give one text, which
 * holds the tree's own key; the routing and a width change it. */
static void test_canonical_fat_tree(void **state)
{
	static const char *const texts[] = {
	        "machine: {topology: fat_tree, levels: {k: 4, n: 2}}\n"
	        "communication: {collective: broadcast, bytes: 8}\n"
	        "algorithm: a\n",
	        "machine: {topology: fat_tree, routing: d-mod-k, levels: "
	        "[{down: 4, up: 1, width: 1}, {down: 4, up: 4}]}\n"
	        "communication: {collective: broadcast, bytes: 8}\n"
	        "algorithm: a\n",
	        "machine: {topology: fat_tree, routing: s-mod-k, levels: "
	        "{k: 4, n: 2}}\n"
	        "communication: {collective: broadcast, bytes: 8}\n"
	        "algorithm: a\n",
	        "machine: {topology: fat_tree, levels: [{down: 4, up: 1}, "
	        "{down: 4, up: 4, width: 2}]}\n"
	        "communication: {collective: broadcast, bytes: 8}\n"
	        "algorithm: a\n",
	};
	char *c[4];
	(void)state;
	for (int i = 0; i < 4; i++) {
		struct front_input in;
		parse_good_text(texts[i], &in);
		c[i] = front_canonical(&in);
		front_input_fini(&in);
	}
	assert_string_equal(c[0], c[1]);
	assert_non_null(strstr(c[0], "machine.tree 4/1/1 4/4/1\n"));
	assert_non_null(strstr(c[2], "machine.routing s-mod-k\n"));
	assert_string_not_equal(c[0], c[2]);
	assert_non_null(strstr(c[3], "machine.tree 4/1/1 4/4/2\n"));
	for (int i = 0; i < 4; i++)
		free(c[i]);
}

/* A dragonfly: the defaults (absolute, widths 1, seed 0) said or not
 * give one text, which holds every field under the dragonfly's own key;
 * the arrangement, a width, the seed and the routing each change it. */
static void test_canonical_dragonfly(void **state)
{
#define DF_TEXT(extra, routing)                                                \
	"machine: {topology: dragonfly, " routing "dragonfly: {groups: 5, "    \
	"routers: 2, hosts_per_router: 2, global_per_router: 2" extra "}}\n"   \
	"communication: {collective: broadcast, bytes: 8}\n"                   \
	"algorithm: a\n"
	static const char *const texts[] = {
	        DF_TEXT("", ""),
	        DF_TEXT(", arrangement: absolute, host_width: 1, local_width: "
	                "1, global_width: 1, seed: 0",
	                "routing: minimal, "),
	        DF_TEXT(", arrangement: circulant", ""),
	        DF_TEXT(", global_width: 2", ""),
	        DF_TEXT(", seed: 7", "routing: valiant, "),
	        DF_TEXT("", "routing: adaptive, "),
	};
#undef DF_TEXT
	enum { N = sizeof texts / sizeof texts[0] };
	char *c[N];
	(void)state;
	for (int i = 0; i < N; i++) {
		struct front_input in;
		parse_good_text(texts[i], &in);
		c[i] = front_canonical(&in);
		front_input_fini(&in);
	}
	assert_string_equal(c[0], c[1]);
	assert_non_null(strstr(
	        c[0],
	        "machine.dragonfly 5/2/2/2 absolute width 1/1/1 seed 0\n"));
	assert_non_null(strstr(c[0], "machine.nranks 20\n"));
	assert_non_null(strstr(c[0], "machine.routing minimal\n"));
	assert_non_null(strstr(c[2], " circulant width 1/1/1 seed 0\n"));
	assert_non_null(strstr(c[3], " absolute width 1/1/2 seed 0\n"));
	assert_non_null(strstr(c[4], " seed 7\n"));
	assert_non_null(strstr(c[4], "machine.routing valiant\n"));
	assert_non_null(strstr(c[5], "machine.routing adaptive\n"));
	for (int i = 1; i < N; i++)
		for (int j = 2; j < i; j++)
			assert_string_not_equal(c[i], c[j]);
	assert_string_not_equal(c[0], c[5]);
	for (int i = 0; i < N; i++)
		free(c[i]);
}

/* A graph: written with names or with a count, the same cables give one
 * text, holding the counts and every cable with its ends, width,
 * bandwidth, latency and class; a width, a bandwidth, a class, an end or
 * the routing changes it. */
static void test_canonical_graph(void **state)
{
#define G_COMM "communication: {collective: broadcast, bytes: 8}\n" \
	       "algorithm: a\n"
	static const char *const texts[] = {
	        "machine: {topology: graph, hosts: \"n[0-2]\", graph: "
	        "{switches: s, links: [[s, \"n[0-2]\"]]}}\n" G_COMM,
	        "machine: {topology: graph, routing: shortest, graph: "
	        "{hosts: 3, switches: s, links: [[s, h0], [s, \"h[1-2]\"]]}}\n"
	        G_COMM,
	        "machine: {topology: graph, routing: adaptive, graph: "
	        "{hosts: 3, switches: s, links: [[s, \"h[0-2]\"]]}}\n" G_COMM,
	        "machine: {topology: graph, graph: {hosts: 3, switches: s, "
	        "links: [[s, \"h[0-1]\"], {ends: [s, h2], width: 2}]}}\n"
	        G_COMM,
	        "machine: {topology: graph, graph: {hosts: 3, switches: s, "
	        "links: [[s, \"h[0-1]\"], {ends: [s, h2], bandwidth: 2, "
	        "class: up}]}}\n" G_COMM,
	        "machine: {topology: graph, graph: {hosts: 3, switches: s, "
	        "links: [[s, \"h[0-1]\"], [h1, h2]]}}\n" G_COMM,
	};
#undef G_COMM
	enum { N = sizeof texts / sizeof texts[0] };
	char *c[N];
	(void)state;
	for (int i = 0; i < N; i++) {
		struct front_input in;
		parse_good_text(texts[i], &in);
		c[i] = front_canonical(&in);
		front_input_fini(&in);
	}
	assert_string_equal(c[0], c[1]);
	assert_non_null(strstr(c[0], "machine.topology graph\n"
	                             "machine.graph 3 hosts 1 switches 3 "
	                             "cables\n"
	                             "machine.cable 3 0 1 1 unset host\n"));
	assert_non_null(strstr(c[2], "machine.routing adaptive\n"));
	assert_non_null(strstr(c[3], "machine.cable 3 2 2 1 unset host\n"));
	/* a bandwidth not given is the smallest given */
	assert_non_null(strstr(c[4], "machine.cable 3 0 1 2 unset host\n"));
	assert_non_null(strstr(c[4], "machine.cable 3 2 1 2 unset up\n"));
	for (int i = 2; i < N; i++)
		for (int j = 0; j < i; j++)
			assert_string_not_equal(c[i], c[j]);
	for (int i = 0; i < N; i++)
		free(c[i]);
}

/* A graph by name, inline and from a file of its own: hosts numbered in
 * the order machine.hosts names them, switches after them in theirs,
 * one cable per name of a link's second end, with the width, bandwidth,
 * latency and class given; the file gives the same graph, and a machine
 * whose hosts are only counted (h0, h1, ...) the same cables. */
static void test_good_graph(void **state)
{
	(void)state;
	static const char links[] =
	        "switches: \"leaf[0-1],top\"\n"
	        "links:\n"
	        "  - [leaf0, \"n[0-1]\"]\n"
	        "  - [leaf1, [n2, n3]]\n"
	        "  - {ends: [top, \"leaf[0-1]\"], width: 2, bandwidth: 2e9, "
	        "latency: 1e-7, class: up}\n"
	        "  - {ends: [n0, n3], bandwidth: 1e9}\n";
	char dir[] = "/tmp/ccplan-graph-XXXXXX", path[128], net[128];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/m.yaml", dir);
	snprintf(net, sizeof net, "%s/net.yaml", dir);
	FILE *f = fopen(net, "w");
	assert_non_null(f);
	fputs(links, f);
	fclose(f);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("machine:\n  topology: graph\n  routing: adaptive\n"
	      "  hosts: \"n[0-3]\"\n  graph: {file: net.yaml}\n"
	      "communication: {collective: broadcast, bytes: 8}\n",
	      f);
	fclose(f);

	struct front_input in[3];
	struct diag d;
	char text[1024];
	snprintf(text, sizeof text,
	         "machine:\n  topology: graph\n  routing: adaptive\n"
	         "  hosts: \"n[0-3]\"\n  graph:\n    %s"
	         "communication: {collective: broadcast, bytes: 8}\n",
	         "switches: \"leaf[0-1],top\"\n    links:\n"
	         "      - [leaf0, \"n[0-1]\"]\n      - [leaf1, [n2, n3]]\n"
	         "      - {ends: [top, \"leaf[0-1]\"], width: 2, bandwidth: "
	         "2e9, latency: 1e-7, class: up}\n"
	         "      - {ends: [n0, n3], bandwidth: 1e9}\n");
	parse_good_text(text, &in[0]);
	if (front_parse_file(path, &in[1], &d) != 0)
		fail_msg("%s:%d:%d: %s", d.file, d.line, d.column, d.message);
	parse_good_text("machine:\n  topology: graph\n  graph:\n"
	                "    hosts: 4\n    switches: \"leaf[0-1],top\"\n"
	                "    links:\n      - [leaf0, \"h[0-1]\"]\n"
	                "      - [leaf1, [h2, h3]]\n"
	                "      - {ends: [top, \"leaf[0-1]\"], width: 2, "
	                "bandwidth: 2e9, latency: 1e-7, class: up}\n"
	                "      - {ends: [h0, h3], bandwidth: 1e9}\n"
	                "communication: {collective: broadcast, bytes: 8}\n",
	                &in[2]);
	for (int i = 0; i < 3; i++) {
		const ir_machine *m = &in[i].machine;
		const ir_graph *g = m->graph;
		assert_int_equal(m->topo, IR_GRAPH);
		assert_int_equal(m->routing,
		                 i < 2 ? IR_ROUTE_ADAPTIVE : IR_ROUTE_SHORTEST);
		assert_int_equal(m->nranks, 4);
		assert_non_null(g);
		assert_int_equal(g->nhosts, 4);
		assert_int_equal(g->nswitches, 3);
		assert_int_equal(g->ncables, 7);
		/* leaf0 (4) - n1; top (6) - leaf1 (5); n0 - n3 */
		assert_int_equal(g->cables[1].a, 4);
		assert_int_equal(g->cables[1].b, 1);
		assert_int_equal(g->cables[5].a, 6);
		assert_int_equal(g->cables[5].b, 5);
		assert_int_equal(g->cables[5].width, 2);
		assert_int_equal(g->cables[5].cls, IR_LC_UP);
		assert_true(g->cables[5].latency == 1e-7);
		assert_int_equal(g->cap[5], 4); /* 2 x 2e9 / 1e9 */
		assert_int_equal(g->cap[0], 1); /* the smallest bandwidth */
		assert_int_equal(g->cables[6].a, 0);
		assert_int_equal(g->cables[6].b, 3);
		assert_int_equal(g->cables[6].cls, IR_LC_HOST);
		assert_int_equal(ir_hops(m, 0, 3), 1);
		assert_int_equal(ir_hops(m, 1, 2), 4);
	}
	assert_int_equal(in[0].hosts.count, 4);
	assert_string_equal(hostlist_name(&in[0].hosts, 2), "n2");
	assert_int_equal(in[2].hosts.count, 0); /* counted, not named */
	char *c[3];
	for (int i = 0; i < 3; i++) {
		c[i] = front_canonical(&in[i]);
		front_input_fini(&in[i]);
	}
	assert_string_equal(c[0], c[1]); /* names stay out of the key */
	for (int i = 0; i < 3; i++)
		free(c[i]);
	remove(path);
	remove(net);
	rmdir(dir);
}

/* ---- PRNG ------------------------------------------------------------- */

static void test_rng(void **state)
{
	/* xoshiro256** seeded by splitmix64(0); splitmix64's first output
	 * from 0 is the published 0xe220a8397b1dcdaf (it is s[0]) */
	static const uint64_t want0[4] = {
	        UINT64_C(0x99ec5f36cb75f2b4),
	        UINT64_C(0xbf6e1f784956452a),
	        UINT64_C(0x1a5f849d4933e6e0),
	        UINT64_C(0x6aa594f1262d2d2c),
	};
	struct ir_rng r, s;
	uint64_t count[7] = {0};

	(void)state;
	ir_rng_seed(&r, 0);
	assert_true(r.s[0] == UINT64_C(0xe220a8397b1dcdaf));
	for (int i = 0; i < 4; i++)
		assert_true(ir_rng_next(&r) == want0[i]);
	ir_rng_seed(&r, 42);
	ir_rng_seed(&s, 42);
	for (int i = 0; i < 1000; i++)
		assert_true(ir_rng_next(&r) == ir_rng_next(&s));
	ir_rng_seed(&s, 43);
	assert_true(ir_rng_next(&r) != ir_rng_next(&s));
	for (int i = 0; i < 70000; i++) {
		uint64_t v = ir_rng_below(&r, 7);
		assert_true(v < 7);
		count[v]++;
	}
	for (int i = 0; i < 7; i++)
		assert_true(count[i] > 9000 && count[i] < 11000);
	assert_true(ir_rng_below(&r, 1) == 0);
	assert_true(ir_rng_below(&r, 0) == 0);
	/* a bound just over 2^63 rejects about half the draws: still ends */
	for (int i = 0; i < 100; i++)
		assert_true(ir_rng_below(&r, (UINT64_C(1) << 63) + 1) <=
		            UINT64_C(1) << 63);
}

/* ---- generators ------------------------------------------------------- */

static void test_regular(void **state)
{
	static const int32_t cases[][2] = {
	        {2, 1},    {3, 1},     {3, 2},     {4, 1},      {4, 2},
	        {4, 3},    {5, 2},     {7, 3},     {7, 4},      {7, 6},
	        {16, 1},   {16, 7},    {16, 8},    {16, 15},    {64, 4},
	        {64, 63},  {100, 50},  {257, 128}, {1, 0},      {5, 0},
	        {512, 16}, {128, 127}, {4096, 64}, {16384, 16},
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int32_t n = cases[i][0], d = cases[i][1];
		for (uint64_t seed = 0; seed < (n < 200 ? 20u : 1u); seed++) {
			ir_matrix *x = ir_matrix_regular(n, d, 100, seed);
			assert_non_null(x);
			check_regular(x, n, d, 100);
			ir_matrix_free(x);
		}
	}
	assert_null(ir_matrix_regular(4, 4, 1, 0));
	assert_null(ir_matrix_regular(4, -1, 1, 0));
	assert_null(ir_matrix_regular(0, 0, 1, 0));
	assert_null(ir_matrix_regular(4, 1, -1, 0));
}

static void test_regular_seeds(void **state)
{
	ir_matrix *a = ir_matrix_regular(256, 8, 64, 7);
	ir_matrix *b = ir_matrix_regular(256, 8, 64, 7);
	ir_matrix *c = ir_matrix_regular(256, 8, 64, 8);
	ir_matrix *z = ir_matrix_regular(16, 4, 0, 7);

	(void)state;
	assert_true(same_matrix(a, b));
	assert_false(same_matrix(a, c));
	/* zero-byte messages are dropped */
	assert_int_equal(z->nnz, 0);
	ir_matrix_free(a);
	ir_matrix_free(b);
	ir_matrix_free(c);
	ir_matrix_free(z);
	/* pinned: the algorithm is part of the format */
	a = ir_matrix_regular(8, 2, 1, 1);
	b = ir_matrix_regular(8, 5, 1, 1);
	check_regular(a, 8, 2, 1);
	check_regular(b, 8, 5, 1);
	ir_matrix_free(a);
	ir_matrix_free(b);
}

static void test_density(void **state)
{
	ir_matrix *a = ir_matrix_density(100, 0.3, 8, 5);
	ir_matrix *b = ir_matrix_density(100, 0.3, 8, 5);
	ir_matrix *c = ir_matrix_density(100, 0.3, 8, 6);
	ir_matrix *none = ir_matrix_density(50, 0.0, 8, 5);
	ir_matrix *all = ir_matrix_density(50, 1.0, 8, 5);

	(void)state;
	assert_true(same_matrix(a, b));
	assert_false(same_matrix(a, c));
	/* 9900 pairs at 0.3: within 5 standard deviations (~46) of 2970 */
	assert_true(a->nnz > 2970 - 230 && a->nnz < 2970 + 230);
	for (int32_t i = 0; i < a->n; i++)
		for (int64_t k = a->row[i]; k < a->row[i + 1]; k++)
			assert_int_not_equal(a->dst[k], i);
	assert_int_equal(none->nnz, 0);
	check_regular(all, 50, 49, 8);
	assert_null(ir_matrix_density(4, 1.5, 1, 0));
	assert_null(ir_matrix_density(4, NAN, 1, 0));
	ir_matrix_free(a);
	ir_matrix_free(b);
	ir_matrix_free(c);
	ir_matrix_free(none);
	ir_matrix_free(all);
}

static void test_skewed(void **state)
{
	const int32_t n = 64, d = 4, hot = 3;
	ir_matrix *x = ir_matrix_skewed(n, d, hot, 32, 9);
	ir_matrix *r = ir_matrix_regular(n, d, 32, 9);
	int32_t *col = calloc((size_t)n, sizeof *col);

	(void)state;
	assert_non_null(col);
	for (int32_t i = 0; i < n; i++) {
		/* the regular part is all there, plus the hot ranks */
		for (int64_t k = r->row[i]; k < r->row[i + 1]; k++)
			assert_int_equal(ir_matrix_get(x, i, r->dst[k]), 32);
		for (int32_t h = 0; h < hot; h++)
			assert_int_equal(ir_matrix_get(x, i, h),
			                 i == h ? 0 : 32);
		for (int64_t k = x->row[i]; k < x->row[i + 1]; k++) {
			assert_true(x->dst[k] < hot ||
			            ir_matrix_get(r, i, x->dst[k]) == 32);
			col[x->dst[k]]++;
		}
	}
	for (int32_t h = 0; h < hot; h++)
		assert_int_equal(col[h], n - 1);
	for (int32_t c = hot; c < n; c++)
		assert_int_equal(col[c], d);
	free(col);
	ir_matrix_free(x);
	ir_matrix_free(r);
}

/* ---- builders --------------------------------------------------------- */

static void test_csr_rules(void **state)
{
	struct ir_csr b;
	struct ir_edge e[4] = {
	        {1, 0, 5, 10},
	        {0, 2, 3, 11},
	        {1, 0, 6, 12},
	        {0, 1, 0, 13},
	};
	ir_matrix *x = NULL;
	size_t bad;

	(void)state;
	assert_int_equal(ir_csr_init(&b, 3), 0);
	assert_int_equal(ir_csr_add(&b, 0, 1), CCP_EINVAL); /* diagonal */
	assert_int_equal(ir_csr_add(&b, 2, INT64_MAX / 2 + 1), 0);
	assert_int_equal(ir_csr_add(&b, 1, 1), CCP_EINVAL); /* order */
	assert_int_equal(ir_csr_end_row(&b), 0);
	assert_int_equal(ir_csr_add(&b, 2, INT64_MAX / 2 + 1), CCP_ERANGE);
	assert_true(b.col_overflow);
	assert_int_equal(ir_csr_add(&b, 3, 1), CCP_EINVAL);  /* range */
	assert_int_equal(ir_csr_finish(&b, &x), CCP_EINVAL); /* rows */
	ir_csr_fini(&b);

	assert_int_equal(ir_csr_init(&b, 2), 0);
	assert_int_equal(ir_csr_add(&b, 1, INT64_MAX), 0);
	assert_int_equal(ir_csr_end_row(&b), 0);
	assert_int_equal(ir_csr_add(&b, 0, INT64_MAX), 0);
	assert_int_equal(ir_csr_end_row(&b), 0);
	assert_int_equal(ir_csr_end_row(&b), CCP_EINVAL);
	assert_int_equal(ir_csr_finish(&b, &x), 0);
	assert_int_equal(x->nnz, 2);
	ir_matrix_free(x);
	ir_csr_fini(&b);

	/* the later of two equal pairs is named */
	assert_int_equal(ir_matrix_from_edges(3, e, 4, &x, &bad), CCP_EINVAL);
	assert_null(x);
	assert_int_equal(e[bad].tag, 12);
	assert_int_equal(e[bad - 1].tag, 10);
	e[bad].dst = 2;
	assert_int_equal(ir_matrix_from_edges(3, e, 4, &x, &bad), 0);
	assert_int_equal(x->nnz, 3); /* the zero-byte edge is dropped */
	assert_int_equal(ir_matrix_get(x, 1, 2), 6);
	ir_matrix_free(x);
}

static void test_read_matrix(void **state)
{
	ir_matrix *x;
	struct diag d;

	(void)state;
	assert_int_equal(front_read_matrix("good/irregular_csv.csv", 4, &x, &d),
	                 0);
	check_small_matrix(x);
	ir_matrix_free(x);
	assert_int_equal(
	        front_read_matrix("good/irregular_edgefile.txt", 4, &x, &d), 0);
	check_small_matrix(x);
	ir_matrix_free(x);
	/* the same CSV for a machine of another size */
	assert_int_equal(front_read_matrix("good/irregular_csv.csv", 5, &x, &d),
	                 CCP_EPARSE);
	assert_null(x);
	assert_int_equal(d.line, 2);
	assert_int_equal(front_read_matrix("good/none.csv", 4, &x, &d),
	                 CCP_EIO);
}

/* The reader on a stream (here from memory, as the fuzz harness feeds
 * it): the name picks the form, and a repeated edge is reported at its
 * own line, whose text is read again from the stream. */
static void test_read_matrix_stream(void **state)
{
	char text[] = "0 1 5\n# a comment\n2 3 1\n0 1 7   # again\n";
	ir_matrix *x;
	struct diag d;

	(void)state;
	FILE *f = fmemopen(text, strlen(text), "r");
	assert_non_null(f);
	assert_int_equal(front_read_matrix_stream(f, "m.txt", 4, &x, &d),
	                 CCP_EPARSE);
	fclose(f);
	assert_null(x);
	assert_string_equal(d.file, "m.txt");
	assert_int_equal(d.line, 4);
	assert_int_equal(d.column, 1);
	assert_string_equal(d.source_line, "0 1 7   # again");
	assert_non_null(strstr(d.message, "first at line 1"));
	/* the same bytes named .csv are a dense matrix, and not one */
	f = fmemopen(text, strlen(text), "r");
	assert_non_null(f);
	assert_int_equal(front_read_matrix_stream(f, "m.csv", 4, &x, &d),
	                 CCP_EPARSE);
	fclose(f);
	assert_int_equal(d.line, 1);
}

/* The caret under a column past the end of a source line that was cut
 * to fit struct diag: spaces up to it, and nothing read past the line's
 * end (tests/fuzz/yaml/regress/caret-past-cut-line.yaml).  A tab inside
 * the line is kept, so the caret lines up under it.  Past FRONT_CARET_MAX
 * the column is named instead of drawn. */
static void test_caret_past_cut_line(void **state)
{
	struct diag d;
	char *text = NULL, want[600];
	size_t len = 0;

	(void)state;
	memset(&d, '\t', sizeof d); /* tabs behind the line's terminator */
	memcpy(d.source_line, "abc", 4);
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	front_print_diag(f, "x.yaml", 2, 300, "problem", d.source_line);
	front_print_diag(f, "x.yaml", 3, 4, "tab", "a\tb");
	/* a column deep in a huge line: no screenfuls of spaces */
	front_print_diag(f, "x.yaml", 2, 33685491, "far", "0,0,0");
	assert_int_equal(fclose(f), 0);
	snprintf(want, sizeof want,
	         "x.yaml:2:300: problem\n    2 | abc\n      | %*s^\n"
	         "x.yaml:3:4: tab\n    3 | a\tb\n      |  \t ^\n"
	         "x.yaml:2:33685491: far\n    2 | 0,0,0\n"
	         "      | ... ^ column 33685491\n",
	         299, "");
	assert_string_equal(text, want);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_good_mesh),
	        cmocka_unit_test(test_good_torus3d),
	        cmocka_unit_test(test_good_hypercube),
	        cmocka_unit_test(test_good_hpam),
	        cmocka_unit_test(test_good_switch),
	        cmocka_unit_test(test_good_one_node),
	        cmocka_unit_test(test_good_reduce_transpose),
	        cmocka_unit_test(test_good_matrices),
	        cmocka_unit_test(test_good_generated),
	        cmocka_unit_test(test_bad_catalogue),
	        cmocka_unit_test(test_bad_err_paired),
	        cmocka_unit_test(test_bad_source_line),
	        cmocka_unit_test(test_yaml_limits),
	        cmocka_unit_test(test_no_file),
	        cmocka_unit_test(test_parse_string),
	        cmocka_unit_test(test_inline_matrix_size),
	        cmocka_unit_test(test_canonical_equal),
	        cmocka_unit_test(test_canonical_pinned),
	        cmocka_unit_test(test_canonical_fat_tree),
	        cmocka_unit_test(test_canonical_dragonfly),
	        cmocka_unit_test(test_canonical_graph),
	        cmocka_unit_test(test_good_graph),
	        cmocka_unit_test(test_preset_fills),
	        cmocka_unit_test(test_canon_combine),
	        cmocka_unit_test(test_canonical_changes),
	        cmocka_unit_test(test_canonical_spellings),
	        cmocka_unit_test(test_rng),
	        cmocka_unit_test(test_regular),
	        cmocka_unit_test(test_regular_seeds),
	        cmocka_unit_test(test_density),
	        cmocka_unit_test(test_skewed),
	        cmocka_unit_test(test_csr_rules),
	        cmocka_unit_test(test_read_matrix),
	        cmocka_unit_test(test_read_matrix_stream),
	        cmocka_unit_test(test_caret_past_cut_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
