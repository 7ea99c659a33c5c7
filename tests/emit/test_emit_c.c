/*
 * test_emit_c.c - plans as C source (`ccplan compile --emit c`) and the
 * loaders that need no .ccp file.
 *
 *  - Eight plans (EDN broadcast, tree scatter, EDN gather, binomial
 *    reduce, IPEX alltoall, RS_NL irregular, EDN transpose, and an
 *    irregular exchange in which two ranks have nothing to do) were
 *    emitted at build time and are linked into this program
 *    (tests/emit.cmake); every rank loaded with ccp_plan_load_emitted
 *    must equal the same rank loaded from the .ccp file of the same input
 *    with ccp_plan_load_file: every op, every iov, buffer sizes, element
 *    type and reduction, and the plan hash.
 *  - Every emitted file compiles with gcc and clang under -std=c11 -Wall
 *    -Wextra -Wpedantic -Werror with no output at all.
 *  - The command: symbol names from the output file or --name, bad names
 *    refused with nothing written, the default output name, the same
 *    bytes every time and from a cache hit.
 *  - The emitted loader refuses damaged tables (each damage alone, next to
 *    an undamaged control that loads).
 *  - ccp_plan_load_cache on a cache written by `ccplan compile --cache`:
 *    full keys and prefixes load what the .ccp file holds; missing keys
 *    and files are CCP_ENOTFOUND; a damaged blob is CCP_ECHECKSUM and is
 *    left in place; the cache's files are never changed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "ccplan.h"
#include "ccplan_emitted.h"
#include "codec.h"
#include "internal.h"

#ifndef CCP_EMIT_OUT
#error "CCP_EMIT_OUT: the build directory of the emitted plans"
#endif

/* The plans emitted at build time (tests/emit.cmake). */
extern const struct ccp_emitted_plan plan_bcast_edn, plan_scatter,
        plan_gather, plan_reduce, plan_alltoall, plan_irregular,
        plan_transpose, plan_idle;

static const struct emitted {
	const char *name;                /* plan_NAME.c, plan_NAME.ccp */
	const struct ccp_emitted_plan *p; /* its symbol */
	const char *coll;                /* the collective it must say */
	const char *input;               /* the input, from the source tree */
} plans[] = {
        {"bcast_edn", &plan_bcast_edn, "broadcast", "examples/mesh32-edn.yaml"},
        {"scatter", &plan_scatter, "scatter",
         "examples/mesh16-tree-scatter.yaml"},
        {"gather", &plan_gather, "gather", "tests/emit/gather.yaml"},
        {"reduce", &plan_reduce, "reduce", "tests/emit/reduce.yaml"},
        {"alltoall", &plan_alltoall, "alltoall", "tests/emit/alltoall.yaml"},
        {"irregular", &plan_irregular, "irregular",
         "examples/ipsc-irregular.yaml"},
        {"transpose", &plan_transpose, "transpose",
         "tests/emit/transpose.yaml"},
        {"idle", &plan_idle, "irregular", "tests/emit/idle.yaml"},
};
#define NPLANS (sizeof plans / sizeof plans[0])

/* ---- helpers ------------------------------------------------------------- */

static const char *env(const char *name)
{
	const char *v = getenv(name);
	assert_non_null(v);
	return v;
}

/* Run a shell command; its exit status (-1 if it did not exit). */
static int run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof cmd);
	int st = system(cmd);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A whole file into memory (malloc'd), or NULL if it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		char *q = realloc(buf, cap + 1);
		if (!q)
			free(buf);
		buf = q;
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

static bool exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

/* A fresh directory under /tmp, and its removal. */
static void mk_tmp(char dir[64])
{
	snprintf(dir, 64, "/tmp/ccp-emit-XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void rm_tmp(const char *dir)
{
	assert_int_equal(run("rm -rf '%s'", dir), 0);
}

/* The header of a .ccp file. */
static void file_info(const char *path, ir_file_info *fi)
{
	size_t len;
	char *img = slurp(path, &len);
	assert_non_null(img);
	char err[256];
	assert_int_equal(ir_file_info_read((const uint8_t *)img, len, fi, err,
	                                   sizeof err),
	                 0);
	free(img);
}

/* Two loaded plans hold the same slice and say the same of it. */
static void assert_same_plan(const ccp_plan *a, const ccp_plan *b,
                             uint64_t *nops)
{
	ccp_plan_info x, y;
	assert_int_equal(ccp_plan_get_info(a, &x), 0);
	assert_int_equal(ccp_plan_get_info(b, &y), 0);
	assert_int_equal(x.rank, y.rank);
	assert_int_equal(x.nranks, y.nranks);
	assert_int_equal(x.nphases, y.nphases);
	assert_true(x.plan_hash == y.plan_hash);
	assert_true(x.send_bytes == y.send_bytes);
	assert_true(x.recv_bytes == y.recv_bytes);
	assert_true(x.scratch_bytes == y.scratch_bytes);
	assert_string_equal(x.algorithm, y.algorithm);
	assert_string_equal(x.collective, y.collective);

	const ir_slice *s = &a->slice, *t = &b->slice;
	assert_int_equal(s->rank, t->rank);
	assert_int_equal(s->dtype, t->dtype);
	assert_int_equal(s->redop, t->redop);
	assert_int_equal(s->nops, t->nops);
	assert_int_equal(s->niovs, t->niovs);
	for (uint32_t i = 0; i < s->nops; i++) {
		const ir_op *o = &s->ops[i], *p = &t->ops[i];
		assert_int_equal(o->code, p->code);
		assert_int_equal(o->phase, p->phase);
		assert_int_equal(o->peer, p->peer);
		assert_true(o->bytes == p->bytes);
		assert_int_equal(o->iov, p->iov);
		assert_int_equal(o->niov, p->niov);
	}
	for (uint32_t i = 0; i < s->niovs; i++) {
		const ir_iov *v = &s->iovs[i], *w = &t->iovs[i];
		assert_int_equal(v->buf, w->buf);
		assert_true(v->off == w->off);
		assert_true(v->len == w->len);
	}
	*nops += s->nops;
}

/* ---- the emitted plans against the .ccp files ---------------------------- */

static void test_emitted_equals_file(void **state)
{
	(void)state;
	ccp_context *ctx;
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	uint64_t ranks = 0, ops = 0;
	for (size_t k = 0; k < NPLANS; k++) {
		const struct ccp_emitted_plan *e = plans[k].p;
		char path[512];
		ir_file_info fi;
		snprintf(path, sizeof path, "%s/plan_%s.ccp", CCP_EMIT_OUT,
		         plans[k].name);
		file_info(path, &fi);

		/* the plan's own fields are the header's */
		assert_int_equal(e->abi, CCP_EMITTED_ABI);
		assert_int_equal(e->format, fi.version);
		assert_int_equal(e->nranks, fi.nranks);
		assert_int_equal(e->nphases, fi.nphases);
		assert_int_equal(e->lb_phases, fi.lb_phases);
		assert_int_equal(e->coll, fi.coll);
		assert_true(e->plan_hash == fi.plan_hash);
		assert_memory_equal(e->input_hash, fi.input_hash, 16);
		assert_string_equal(e->algorithm, fi.algorithm);
		assert_string_equal(e->collective, plans[k].coll);
		assert_true(e->nranks > 1);

		for (int32_t r = 0; r < e->nranks; r++) {
			ccp_plan *a = NULL, *b = NULL;
			assert_int_equal(ccp_plan_load_file(ctx, path, r, &a),
			                 0);
			int rc = ccp_plan_load_emitted(ctx, e, r, &b);
			if (rc)
				fail_msg("%s rank %d: %s", plans[k].name,
				         (int)r, ccp_errmsg(ctx));
			assert_string_equal(ccp_errmsg(ctx), "");
			assert_same_plan(b, a, &ops);
			ccp_plan_free(a);
			ccp_plan_free(b);
			ranks++;
		}
	}
	print_message("%zu plans: %llu ranks, %llu ops the same from the "
	              "emitted tables and the .ccp files\n",
	              NPLANS, (unsigned long long)ranks,
	              (unsigned long long)ops);
	assert_true(ops > 10000);
	ccp_fini(ctx);
}

/* A rank of the reduce plan keeps the element type and reduction, and a
 * bound emitted plan asks for the buffers the file's plan asks for; a
 * rank with nothing to do loads from NULL tables. */
static void test_emitted_reduce_and_bind(void **state)
{
	(void)state;
	ccp_context *ctx;
	ccp_plan *p;
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);
	/* tests/emit/reduce.yaml: 800 bytes of double, max, root 3 */
	assert_int_equal(ccp_plan_load_emitted(ctx, &plan_reduce, 3, &p), 0);
	assert_int_equal(p->slice.dtype, IR_DT_DOUBLE);
	assert_int_equal(p->slice.redop, IR_OP_MAX);
	ccp_plan_info in;
	assert_int_equal(ccp_plan_get_info(p, &in), 0);
	assert_int_equal(in.rank, 3);
	assert_true(in.recv_bytes == 800);
	static uint8_t buf[800], out[800], small[799];
	assert_int_equal(ccp_plan_bind(p, buf, sizeof buf, small, sizeof small,
	                               NULL, 0),
	                 CCP_EBUFFER);
	/* one buffer as both send and receive buffer is refused */
	assert_int_equal(
	        ccp_plan_bind(p, buf, sizeof buf, buf, sizeof buf, NULL, 0),
	        CCP_EINVAL);
	assert_int_equal(
	        ccp_plan_bind(p, buf, sizeof buf, out, sizeof out, NULL, 0), 0);
	ccp_plan_free(p);

	/* ranks 2 and 3 of the idle plan: no tables, nothing to bind */
	for (int32_t r = 2; r < 4; r++) {
		assert_int_equal(plan_idle.ranks[r].nops, 0);
		assert_null(plan_idle.ranks[r].ops);
		assert_null(plan_idle.ranks[r].iovs);
		assert_int_equal(ccp_plan_load_emitted(ctx, &plan_idle, r, &p),
		                 0);
		assert_int_equal(p->slice.nops, 0);
		assert_int_equal(p->slice.niovs, 0);
		assert_int_equal(ccp_plan_get_info(p, &in), 0);
		assert_true(in.send_bytes == 0 && in.recv_bytes == 0);
		assert_int_equal(ccp_plan_bind(p, NULL, 0, NULL, 0, NULL, 0),
		                 0);
		ccp_plan_free(p);
	}
	ccp_fini(ctx);
}

/* ---- every emitted file compiles cleanly --------------------------------- */

static void test_emitted_compiles_cleanly(void **state)
{
	(void)state;
	const char *src = env("CCPLAN_SOURCE_DIR");
	char dir[64];
	mk_tmp(dir);
	const char *compilers[] = {"gcc", "clang"};
	int built = 0;
	for (size_t c = 0; c < 2; c++) {
		if (run("command -v %s >/dev/null 2>&1", compilers[c]) != 0) {
			print_message("%s is not installed: skipped\n",
			              compilers[c]);
			continue;
		}
		for (size_t k = 0; k < NPLANS; k++) {
			char err[128];
			snprintf(err, sizeof err, "%s/err", dir);
			int rc = run("%s -std=c11 -Wall -Wextra -Wpedantic "
			             "-Werror -I'%s/include' -c "
			             "'%s/plan_%s.c' -o '%s/plan.o' 2>'%s'",
			             compilers[c], src, CCP_EMIT_OUT,
			             plans[k].name, dir, err);
			size_t n;
			char *out = slurp(err, &n);
			assert_non_null(out);
			if (rc != 0 || n != 0)
				fail_msg("%s plan_%s.c: exit %d: %s",
				         compilers[c], plans[k].name, rc, out);
			free(out);
			built++;
		}
	}
	print_message("%d compilations without a diagnostic\n", built);
	assert_true(built >= (int)NPLANS);
	rm_tmp(dir);
}

/* ---- the command --------------------------------------------------------- */

/* Whether file path defines the symbol name. */
static bool defines(const char *path, const char *name)
{
	size_t n;
	char *text = slurp(path, &n);
	assert_non_null(text);
	char want[128];
	snprintf(want, sizeof want, "\nconst struct ccp_emitted_plan %s = {\n",
	         name);
	bool yes = strstr(text, want) != NULL;
	free(text);
	return yes;
}

/* Whether two files hold the same bytes. */
static bool same_file(const char *a, const char *b)
{
	size_t na, nb;
	char *x = slurp(a, &na), *y = slurp(b, &nb);
	assert_non_null(x);
	assert_non_null(y);
	bool same = na == nb && memcmp(x, y, na) == 0;
	free(x);
	free(y);
	return same;
}

static void test_command(void **state)
{
	(void)state;
	const char *bin = env("CCPLAN_BIN"), *src = env("CCPLAN_SOURCE_DIR");
	char dir[64], in[512], path[256], other[256];
	mk_tmp(dir);
	snprintf(in, sizeof in, "%s/tests/emit/reduce.yaml", src);

	/* the symbol from the output file's name */
	snprintf(path, sizeof path, "%s/my-plan.v2.c", dir);
	assert_int_equal(run("'%s' compile '%s' --no-cache --emit c -o '%s'",
	                     bin, in, path),
	                 0);
	assert_true(defines(path, "my_plan_v2"));
	snprintf(path, sizeof path, "%s/2d.c", dir);
	assert_int_equal(run("'%s' compile '%s' --no-cache --emit c -o '%s'",
	                     bin, in, path),
	                 0);
	assert_true(defines(path, "plan_2d"));
	snprintf(path, sizeof path, "%s/int.c", dir);
	assert_int_equal(run("'%s' compile '%s' --no-cache --emit c -o '%s'",
	                     bin, in, path),
	                 0);
	assert_true(defines(path, "plan_int"));
	/* and from --name */
	snprintf(path, sizeof path, "%s/x.c", dir);
	assert_int_equal(run("'%s' compile '%s' --no-cache --emit c --name "
	                     "reduce_max -o '%s'",
	                     bin, in, path),
	                 0);
	assert_true(defines(path, "reduce_max"));
	assert_false(defines(path, "x"));

	/* bad names and options: exit 2, nothing written */
	const char *bad[] = {"--emit c --name 9lives", "--emit c --name ccp_x",
	                     "--emit c --name _x",     "--emit c --name int",
	                     "--emit c --name a-b",    "--name fine",
	                     "--emit java",            "--emit"};
	snprintf(path, sizeof path, "%s/bad.c", dir);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = run("'%s' compile '%s' --no-cache %s -o '%s' "
		             "2>/dev/null",
		             bin, in, bad[i], path);
		if (rc != 2)
			fail_msg("'%s': exit %d, expected 2", bad[i], rc);
		assert_false(exists(path));
	}

	/* without -o: the input's base name with .c, in the current
	 * directory */
	assert_int_equal(run("cd '%s' && '%s' compile '%s' --no-cache --emit c",
	                     dir, bin, in),
	                 0);
	snprintf(path, sizeof path, "%s/reduce.c", dir);
	assert_true(defines(path, "reduce"));

	/* the same bytes every time, and from a cache hit */
	snprintf(other, sizeof other, "%s/again.c", dir);
	assert_int_equal(run("cd '%s' && '%s' compile '%s' --no-cache --emit c "
	                     "--name reduce -o '%s'",
	                     dir, bin, in, other),
	                 0);
	assert_true(same_file(path, other));
	for (int pass = 0; pass < 2; pass++) {
		assert_int_equal(run("'%s' compile '%s' --cache '%s/c.db' "
		                     "--emit c --name reduce -o '%s' "
		                     "-v 2>'%s/log%d'",
		                     bin, in, dir, other, dir, pass),
		                 0);
		assert_true(same_file(path, other));
	}
	snprintf(other, sizeof other, "%s/log1", dir);
	size_t n;
	char *log = slurp(other, &n);
	assert_non_null(log);
	assert_non_null(strstr(log, "cache hit"));
	free(log);

	/* --emit ccp is the default */
	snprintf(path, sizeof path, "%s/a.ccp", dir);
	snprintf(other, sizeof other, "%s/b.ccp", dir);
	assert_int_equal(run("'%s' compile '%s' --no-cache -o '%s'", bin, in,
	                     path),
	                 0);
	assert_int_equal(run("'%s' compile '%s' --no-cache --emit ccp -o '%s'",
	                     bin, in, other),
	                 0);
	assert_true(same_file(path, other));
	rm_tmp(dir);
}

/* ---- the emitted loader refuses damaged tables --------------------------- */

/* A writable copy of plan_reduce (8 ranks): the plan, its rank table and
 * rank r's ops and iovs, which the copy's rank r points at. */
struct copy {
	struct ccp_emitted_plan p;
	struct ccp_emitted_rank ranks[8];
	struct ccp_emitted_op ops[64];
	struct ccp_emitted_iov iovs[64];
};

static void make_copy(struct copy *c, int32_t r)
{
	const struct ccp_emitted_plan *e = &plan_reduce;
	assert_int_equal(e->nranks, 8);
	c->p = *e;
	memcpy(c->ranks, e->ranks, sizeof c->ranks);
	const struct ccp_emitted_rank *er = &e->ranks[r];
	assert_true(er->nops <= 64 && er->niovs <= 64);
	memcpy(c->ops, er->ops, er->nops * sizeof *er->ops);
	memcpy(c->iovs, er->iovs, er->niovs * sizeof *er->iovs);
	c->ranks[r].ops = c->ops;
	c->ranks[r].iovs = c->iovs;
	c->p.ranks = c->ranks;
}

/* Load rank r of c: expect code, and on failure no plan and a message. */
static void expect_load(ccp_context *ctx, const struct copy *c, int32_t r,
                        int code, const char *what)
{
	ccp_plan *p = (ccp_plan *)&p; /* not NULL: the loader must clear it */
	int rc = ccp_plan_load_emitted(ctx, &c->p, r, &p);
	if (rc != code)
		fail_msg("%s: got %d (%s), expected %d", what, rc,
		         ccp_errmsg(ctx), code);
	if (rc) {
		assert_null(p);
		assert_true(ccp_errmsg(ctx)[0] != '\0');
	} else {
		ccp_plan_free(p);
	}
}

/* The first op of rank r's copy with code, or -1. */
static int find_op(const struct copy *c, int32_t r, unsigned code)
{
	for (uint32_t i = 0; i < c->ranks[r].nops; i++)
		if (c->ops[i].code == code)
			return (int)i;
	return -1;
}

static void test_emitted_refuses_damage(void **state)
{
	(void)state;
	ccp_context *ctx;
	ccp_plan *p;
	struct copy c;
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);

	assert_int_equal(ccp_plan_load_emitted(NULL, &plan_reduce, 0, &p),
	                 CCP_EINVAL);
	assert_int_equal(ccp_plan_load_emitted(ctx, &plan_reduce, 0, NULL),
	                 CCP_EINVAL);
	assert_int_equal(ccp_plan_load_emitted(ctx, NULL, 0, &p), CCP_EINVAL);

	/* the rank that sends (a leaf) and the root that receives */
	for (int32_t r = 0; r < 8; r++) {
		make_copy(&c, r);
		expect_load(ctx, &c, r, 0, "the undamaged copy");
	}
	int32_t r = 3; /* the root: it receives and reduces */
	make_copy(&c, r);
	int rr = find_op(&c, r, IR_OP_RECV_REDUCE);
	assert_true(rr >= 0);

	/* the plan's own fields */
	c.p.abi = CCP_EMITTED_ABI + 1;
	expect_load(ctx, &c, r, CCP_EVERSION, "another ABI");
	make_copy(&c, r);
	expect_load(ctx, &c, -1, CCP_ERANGE, "rank -1");
	expect_load(ctx, &c, 8, CCP_ERANGE, "rank 8 of 8");
	c.p.nranks = 0;
	expect_load(ctx, &c, 0, CCP_EFORMAT, "no ranks");
	make_copy(&c, r);
	c.p.coll = 99;
	expect_load(ctx, &c, r, CCP_EFORMAT, "collective 99");
	make_copy(&c, r);
	c.p.collective = "broadcast";
	expect_load(ctx, &c, r, CCP_EFORMAT, "collective name of another");
	make_copy(&c, r);
	c.p.collective = NULL;
	expect_load(ctx, &c, r, CCP_EFORMAT, "no collective name");
	make_copy(&c, r);
	c.p.algorithm = NULL;
	expect_load(ctx, &c, r, CCP_EFORMAT, "no algorithm name");
	make_copy(&c, r);
	c.p.algorithm = "an_algorithm_name_of_thirty_two_c";
	expect_load(ctx, &c, r, CCP_EFORMAT, "algorithm name too long");
	make_copy(&c, r);
	c.p.ranks = NULL;
	expect_load(ctx, &c, r, CCP_EFORMAT, "no rank table");

	/* the rank's record */
	make_copy(&c, r);
	c.ranks[r].dtype = IR_DT_DOUBLE + 1;
	expect_load(ctx, &c, r, CCP_EFORMAT, "element type");
	make_copy(&c, r);
	c.ranks[r].redop = IR_OP_MAX + 1;
	expect_load(ctx, &c, r, CCP_EFORMAT, "reduction");
	make_copy(&c, r);
	c.ranks[r].ops = NULL;
	expect_load(ctx, &c, r, CCP_EFORMAT, "no op table");
	make_copy(&c, r);
	c.ranks[r].iovs = NULL;
	expect_load(ctx, &c, r, CCP_EFORMAT, "no iov table");
	make_copy(&c, r);
	c.ranks[r].niovs--;
	expect_load(ctx, &c, r, CCP_EFORMAT, "an op's iov past the table");
	make_copy(&c, r);
	c.ranks[r].recv_bytes--;
	expect_load(ctx, &c, r, CCP_EFORMAT, "receive buffer one short");
	make_copy(&c, r);
	c.ranks[r].scratch_bytes = 0;
	expect_load(ctx, &c, r, CCP_EFORMAT, "no scratch for the partials");

	/* the ops and iovs */
	make_copy(&c, r);
	c.ops[rr].code = IR_NOPS;
	expect_load(ctx, &c, r, CCP_EFORMAT, "op code 6");
	make_copy(&c, r);
	c.ops[rr].code = 256 + IR_OP_RECV; /* narrowed, it would be RECV */
	expect_load(ctx, &c, r, CCP_EFORMAT, "op code 257");
	make_copy(&c, r);
	c.ops[rr].peer = 8;
	expect_load(ctx, &c, r, CCP_EFORMAT, "peer 8 of 8");
	make_copy(&c, r);
	c.ops[rr].peer = -1;
	expect_load(ctx, &c, r, CCP_EFORMAT, "a receive from no peer");
	make_copy(&c, r);
	c.ops[rr].phase = c.p.nphases;
	expect_load(ctx, &c, r, CCP_EFORMAT, "phase past the plan's");
	make_copy(&c, r);
	c.ops[rr].niov = c.ranks[r].niovs + 1;
	expect_load(ctx, &c, r, CCP_EFORMAT, "more iovs than the rank has");
	make_copy(&c, r);
	c.iovs[c.ops[rr].iov].buf = IR_BUF_SCRATCH + 1;
	expect_load(ctx, &c, r, CCP_EFORMAT, "buffer 3");
	make_copy(&c, r);
	c.iovs[c.ops[rr].iov].off = c.ranks[r].scratch_bytes +
	                            c.ranks[r].recv_bytes;
	expect_load(ctx, &c, r, CCP_EFORMAT, "iov past its buffer");
	make_copy(&c, r);
	c.iovs[c.ops[rr].iov].off = UINT64_MAX - 4;
	expect_load(ctx, &c, r, CCP_EFORMAT, "iov offset wrapping around");

	/* a leaf's send */
	make_copy(&c, 0);
	int sd = find_op(&c, 0, IR_OP_SEND);
	assert_true(sd >= 0);
	c.iovs[c.ops[sd].iov].len = c.ranks[0].send_bytes + 1;
	expect_load(ctx, &c, 0, CCP_EFORMAT, "send iov longer than the buffer");
	ccp_fini(ctx);
}

/* ---- the cache loader ---------------------------------------------------- */

/* Every name in a directory, sorted, one per line, into buf. */
static void listing(const char *dir, char *buf, size_t len)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "ls -a '%s'", dir);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	assert_int_equal(pclose(f), 0);
}

/* The 32-digit key of a .ccp file's input. */
static void key_of(const char *ccp, char hex[33])
{
	ir_file_info fi;
	file_info(ccp, &fi);
	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", fi.input_hash[i]);
}

/* Every rank from the cache under key equals the .ccp file's. */
static void assert_cache_loads(ccp_context *ctx, const char *db,
                               const char *key, const char *ccp)
{
	ir_file_info fi;
	file_info(ccp, &fi);
	uint64_t nops = 0;
	for (int32_t r = 0; r < fi.nranks; r++) {
		ccp_plan *a, *b;
		assert_int_equal(ccp_plan_load_file(ctx, ccp, r, &a), 0);
		int rc = ccp_plan_load_cache(ctx, db, key, r, &b);
		if (rc)
			fail_msg("rank %d from the cache: %s", (int)r,
			         ccp_errmsg(ctx));
		assert_same_plan(b, a, &nops);
		ccp_plan_free(a);
		ccp_plan_free(b);
	}
	assert_true(nops > 0);
}

/* Replace the blob of the entry of key (32 hex digits) by a copy with
 * its byte at `back` bytes before the end flipped; with fix_sum, store the
 * checksum of the damaged blob too, so that only the codec's checks can
 * see the damage. */
static void damage_blob(const char *db, const char *hex, bool fix_sum,
                        int back)
{
	uint8_t key[16];
	for (int i = 0; i < 16; i++) {
		unsigned v;
		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		key[i] = (uint8_t)v;
	}
	sqlite3 *h;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h,
	                                    "SELECT blob FROM plans WHERE "
	                                    "key = ?1",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	sqlite3_bind_blob(st, 1, key, 16, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	int n = sqlite3_column_bytes(st, 0);
	assert_true(n > 256);
	uint8_t *b = malloc((size_t)n);
	assert_non_null(b);
	memcpy(b, sqlite3_column_blob(st, 0), (size_t)n);
	sqlite3_finalize(st);
	b[n - back] ^= 0x40;
	uint64_t sum = XXH3_64bits(b, (size_t)n);
	int64_t ssum;
	memcpy(&ssum, &sum, sizeof ssum);
	assert_int_equal(sqlite3_prepare_v2(h,
	                                    fix_sum ? "UPDATE plans SET blob "
	                                              "= ?2, checksum = ?3 "
	                                              "WHERE key = ?1"
	                                            : "UPDATE plans SET blob "
	                                              "= ?2 WHERE key = ?1",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	sqlite3_bind_blob(st, 1, key, 16, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, b, n, SQLITE_STATIC);
	if (fix_sum)
		sqlite3_bind_int64(st, 3, ssum);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_changes(h), 1);
	assert_int_equal(sqlite3_close(h), SQLITE_OK);
	free(b);
}

/* How many entries the cache holds. */
static int entries(const char *db)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT count(*) FROM plans",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	int n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return n;
}

static void test_load_cache(void **state)
{
	(void)state;
	const char *bin = env("CCPLAN_BIN"), *src = env("CCPLAN_SOURCE_DIR");
	char dir[64], db[128], ccp_a[128], ccp_b[128], key_a[33], key_b[33];
	mk_tmp(dir);
	snprintf(db, sizeof db, "%s/plans.db", dir);
	snprintf(ccp_a, sizeof ccp_a, "%s/a.ccp", dir);
	snprintf(ccp_b, sizeof ccp_b, "%s/b.ccp", dir);
	assert_int_equal(run("'%s' compile '%s/tests/emit/reduce.yaml' "
	                     "--cache '%s' -o '%s'",
	                     bin, src, db, ccp_a),
	                 0);
	assert_int_equal(run("'%s' compile '%s/tests/emit/gather.yaml'"
	                     " --cache '%s' -o '%s'",
	                     bin, src, db, ccp_b),
	                 0);
	key_of(ccp_a, key_a);
	key_of(ccp_b, key_b);
	assert_int_equal(entries(db), 2);

	char before[1024], after[1024];
	listing(dir, before, sizeof before);
	size_t dblen;
	char *dbbytes = slurp(db, &dblen);
	assert_non_null(dbbytes);

	ccp_context *ctx;
	ccp_plan *p;
	assert_int_equal(ccp_init(&ctx, NULL, NULL), 0);

	/* full keys, either case, and prefixes */
	assert_cache_loads(ctx, db, key_a, ccp_a);
	assert_cache_loads(ctx, db, key_b, ccp_b);
	char upper[33], prefix[9];
	for (int i = 0; i < 33; i++)
		upper[i] = (char)(key_b[i] >= 'a' && key_b[i] <= 'f'
		                          ? key_b[i] - 'a' + 'A'
		                          : key_b[i]);
	assert_cache_loads(ctx, db, upper, ccp_b);
	/* the shortest prefix that tells the two keys apart */
	size_t plen = 1;
	while (key_a[plen - 1] == key_b[plen - 1])
		plen++;
	snprintf(prefix, sizeof prefix, "%.*s", (int)plen, key_a);
	assert_cache_loads(ctx, db, prefix, ccp_a);
	print_message("key %s loads by its prefix '%s'\n", key_a, prefix);
	assert_int_equal(ccp_plan_load_cache(ctx, db, key_a, 8, &p),
	                 CCP_ERANGE);
	assert_null(p);

	/* what is not there */
	char missing[33];
	snprintf(missing, sizeof missing, "%s", key_a);
	missing[31] = missing[31] == '0' ? '1' : '0';
	assert_int_equal(ccp_plan_load_cache(ctx, db, missing, 0, &p),
	                 CCP_ENOTFOUND);
	assert_null(p);
	assert_non_null(strstr(ccp_errmsg(ctx), "no cached plan"));
	char digit[2] = {'0', '\0'};
	while (digit[0] == key_a[0] || digit[0] == key_b[0])
		digit[0]++;
	assert_int_equal(ccp_plan_load_cache(ctx, db, digit, 0, &p),
	                 CCP_ENOTFOUND);
	char nofile[128];
	snprintf(nofile, sizeof nofile, "%s/none/plans.db", dir);
	assert_int_equal(ccp_plan_load_cache(ctx, nofile, key_a, 0, &p),
	                 CCP_ENOTFOUND);
	snprintf(nofile, sizeof nofile, "%s/none.db", dir);
	assert_int_equal(ccp_plan_load_cache(ctx, nofile, key_a, 0, &p),
	                 CCP_ENOTFOUND);
	assert_false(exists(nofile));
	assert_int_equal(ccp_plan_load_cache(ctx, db, "xyz", 0, &p),
	                 CCP_EINVAL);
	assert_int_equal(ccp_plan_load_cache(ctx, db, "", 0, &p), CCP_EINVAL);
	assert_int_equal(ccp_plan_load_cache(ctx, db, NULL, 0, &p), CCP_EINVAL);
	assert_int_equal(ccp_plan_load_cache(ctx, NULL, key_a, 0, &p),
	                 CCP_EINVAL);
	assert_int_equal(ccp_plan_load_cache(ctx, ccp_a, key_a, 0, &p),
	                 CCP_EFORMAT); /* not a SQLite file */

	/* read-only: no file made, moved or changed by any of this */
	listing(dir, after, sizeof after);
	assert_string_equal(before, after);
	size_t len2;
	char *bytes2 = slurp(db, &len2);
	assert_non_null(bytes2);
	assert_true(len2 == dblen && memcmp(bytes2, dbbytes, dblen) == 0);
	free(bytes2);
	free(dbbytes);

	/* a damaged blob, seen by the stored checksum, then by the codec
	 * alone: refused on every rank, and left in place */
	for (int fix = 0; fix < 2; fix++) {
		/* inside the last rank's section (an iov's length), a
		 * different byte each time */
		damage_blob(db, key_a, fix, 20 + fix);
		for (int32_t r = 0; r < 8; r++) {
			p = (ccp_plan *)&p;
			assert_int_equal(
			        ccp_plan_load_cache(ctx, db, key_a, r, &p),
			        CCP_ECHECKSUM);
			assert_null(p);
			assert_non_null(strstr(ccp_errmsg(ctx), "damaged"));
		}
		assert_int_equal(entries(db), 2);
		/* the other entry still loads */
		assert_cache_loads(ctx, db, key_b, ccp_b);
	}
	listing(dir, after, sizeof after);
	assert_string_equal(before, after);
	ccp_fini(ctx);
	rm_tmp(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_emitted_equals_file),
	        cmocka_unit_test(test_emitted_reduce_and_bind),
	        cmocka_unit_test(test_emitted_compiles_cleanly),
	        cmocka_unit_test(test_command),
	        cmocka_unit_test(test_emitted_refuses_damage),
	        cmocka_unit_test(test_load_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
