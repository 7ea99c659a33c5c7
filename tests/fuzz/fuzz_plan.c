/*
 * fuzz_plan.c - the .ccp plan loaders on arbitrary bytes: the codec
 * (ir/codec.h) as the compiler and a rank use it, the runtime's loaders
 * (ccp_plan_load_memory and ccp_plan_load_file, include/ccplan.h) for a
 * few ranks, and the whole re-check of `ccplan verify` (plan_load_image:
 * decode, machine check, verifier, lowering compared with the stored
 * slices).
 *
 * Each input runs twice: as given, and resealed (fuzz_seal_plan: every
 * checksum made right), so that mutations get past the checksums to the
 * checks behind them.  Properties: a refusal has a reason; the loaders
 * agree (an image that decodes passes ir_image_check, a slice the
 * runtime loads from memory loads the same from a file, which reads
 * less); a loaded slice keeps the codec's rules (ir_slice_check), and the
 * runtime checks buffers against it.  A plan that passes `ccplan verify`
 * then goes through what the commands that read a plan do with it:
 * explain (whole, summary, one rank), export --json, simulate, and the
 * cost model's prediction.
 */
#include <string.h>

#include "ccplan.h"
#include "compile.h"
#include "explain.h"
#include "fuzz.h"
#include "json.h"
#include "model.h"
#include "select.h"

static ccp_context *ctx;
static char plan_path[4200];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	FUZZ_CHECK(ccp_init(&ctx, NULL, NULL) == 0);
	snprintf(plan_path, sizeof plan_path, "%s/plan.ccp",
	         fuzz_scratch_dir());
	return 0;
}

/* The ranks tried: the first two, the last, and two that are not ranks. */
static int ranks_to_try(int32_t nranks, int32_t out[5])
{
	int k = 0;
	out[k++] = 0;
	if (nranks > 1)
		out[k++] = 1;
	if (nranks > 2)
		out[k++] = nranks - 1;
	out[k++] = nranks;
	out[k++] = -1;
	return k;
}

/* A rank's slice the way the runtime reads a file: the header, one index
 * entry and one section, each taken from buf only where it lies inside. */
static void slice_by_parts(const uint8_t *buf, size_t len,
                           const ir_file_info *fi, int32_t rank)
{
	uint64_t index_off, off, size;
	char err[256] = "";
	ir_slice s;
	int rc = ir_slice_locate(buf, len, fi, rank, &index_off, err,
	                         sizeof err);
	if (rc) {
		FUZZ_CHECK(rc < 0 && err[0]);
		FUZZ_CHECK(rank < 0 || rank >= fi->nranks);
		return;
	}
	FUZZ_CHECK(rank >= 0 && rank < fi->nranks);
	FUZZ_CHECK(index_off >= 128 &&
	           index_off + IR_FILE_INDEX_ENTRY <= fi->file_size);
	if (index_off + IR_FILE_INDEX_ENTRY > len)
		return;
	rc = ir_slice_entry(buf + index_off, fi, &off, &size, err, sizeof err);
	if (rc) {
		FUZZ_CHECK(rc < 0 && err[0]);
		return;
	}
	FUZZ_CHECK(off >= 128 && size <= fi->file_size &&
	           off <= fi->file_size - size);
	if (off > len || size > len - off)
		return;
	rc = ir_slice_decode(buf + off, size, fi, rank, &s, err, sizeof err);
	if (rc) {
		FUZZ_CHECK(rc < 0 && err[0]);
		return;
	}
	FUZZ_CHECK(ir_slice_check(&s, rank, fi->nranks, fi->nphases, err,
	                          sizeof err) == 0);
	ir_slice_fini(&s);
}

/* What a rank does with a loaded slice before it executes: read the
 * information, then bind buffers (too small first, then big enough when
 * that is cheap). */
static void use_plan(ccp_plan *plan, int32_t rank, const ir_file_info *fi)
{
	ccp_plan_info info;
	FUZZ_CHECK(ccp_plan_get_info(plan, &info) == 0);
	FUZZ_CHECK(info.rank == rank && info.nranks == fi->nranks);
	FUZZ_CHECK(info.plan_hash == fi->plan_hash);
	FUZZ_CHECK(info.collective != NULL && info.algorithm != NULL);
	if (info.send_bytes > 0)
		FUZZ_CHECK(ccp_plan_bind(plan, NULL, 0, NULL, 0, NULL, 0) ==
		           CCP_EBUFFER);
	const uint64_t cheap = 1 << 16;
	if (info.send_bytes > cheap || info.recv_bytes > cheap ||
	    info.scratch_bytes > cheap)
		return;
	static uint8_t send[1 << 16], recv[1 << 16];
	FUZZ_CHECK(ccp_plan_bind(plan, send, (size_t)info.send_bytes, recv,
	                         (size_t)info.recv_bytes, NULL, 0) == 0);
}

/* The runtime's loaders for one rank; memory and file must agree where
 * memory succeeds (the file loader reads less, so it may accept more). */
static void runtime_load(const uint8_t *buf, size_t len, int32_t rank,
                         bool have_file)
{
	ccp_plan *pm = NULL, *pf = NULL;
	ir_file_info fi;
	char err[256];
	int rm = ccp_plan_load_memory(ctx, buf, len, rank, &pm);
	if (rm) {
		FUZZ_CHECK(rm < 0 && pm == NULL && ccp_errmsg(ctx)[0]);
	} else {
		/* the header and the plan hash hold (each rank's loader checks
		 * its own index entry and section, not the others') */
		FUZZ_CHECK(ir_file_info_read(buf, len, &fi, err, sizeof err) ==
		           0);
		FUZZ_CHECK(fi.file_size == (uint64_t)len);
		use_plan(pm, rank, &fi);
	}
	if (!have_file) {
		ccp_plan_free(pm);
		return;
	}
	int rf = ccp_plan_load_file(ctx, plan_path, rank, &pf);
	if (rf) {
		FUZZ_CHECK(rf < 0 && pf == NULL && ccp_errmsg(ctx)[0]);
		FUZZ_CHECK(rm != 0);
	} else if (rm == 0) {
		ccp_plan_info a, b;
		ccp_plan_get_info(pm, &a);
		ccp_plan_get_info(pf, &b);
		FUZZ_CHECK(a.send_bytes == b.send_bytes &&
		           a.recv_bytes == b.recv_bytes &&
		           a.scratch_bytes == b.scratch_bytes &&
		           a.nphases == b.nphases);
	}
	ccp_plan_free(pf);
	ccp_plan_free(pm);
}

/* What explain, export --json and simulate do with a verified plan; a
 * refusal (the simulator's, of costs it cannot use) must say why. */
static void read_plan(const struct compiled *c)
{
	FILE *devnull = fuzz_devnull();
	struct model_sim_opts o = {0};
	struct model_sim sim;
	enum model_kind kind;
	char err[256] = "", why[256];
	FUZZ_CHECK(explain_plan(c, devnull) == 0);
	FUZZ_CHECK(explain_summary(c, devnull) == 0);
	FUZZ_CHECK(explain_rank(c, 0, devnull) == 0);
	FUZZ_CHECK(explain_rank(c, c->plan.machine.nranks, devnull) != 0);
	FUZZ_CHECK(json_export(&c->plan, &c->report, devnull) == 0);
	int rc = model_simulate(&c->plan, &o, &sim, err, sizeof err);
	if (rc == 0)
		model_sim_fini(&sim);
	else
		FUZZ_CHECK(rc < 0 && err[0]);
	select_predict(&c->plan, &c->report, &kind, why, sizeof why);
}

static void run(const uint8_t *buf, size_t len)
{
	ir_file_info fi, fi2;
	char err[512] = "";
	int32_t ranks[5];
	int rc = ir_file_info_read(buf, len, &fi, err, sizeof err);
	if (rc) {
		FUZZ_CHECK(rc < 0 && err[0]);
		FUZZ_CHECK(ir_image_check(buf, len, NULL, err, sizeof err) !=
		           0);
		return;
	}
	FUZZ_CHECK(fi.nranks >= 1 && fi.nranks <= IR_MAX_RANKS);
	FUZZ_CHECK(fi.file_size >= 128);
	int nr = ranks_to_try(fi.nranks, ranks);
	for (int k = 0; k < nr; k++)
		slice_by_parts(buf, len, &fi, ranks[k]);

	int image = ir_image_check(buf, len, &fi2, err, sizeof err);
	if (image == 0)
		FUZZ_CHECK(fi2.plan_hash == fi.plan_hash &&
		           (uint64_t)len == fi.file_size);
	ir_plan p;
	rc = ir_plan_decode(buf, len, &p, &fi2, err, sizeof err);
	if (rc == 0) {
		FUZZ_CHECK(image == 0);
		FUZZ_CHECK(p.machine.nranks == fi.nranks &&
		           p.nphases == fi.nphases);
		ir_plan_fini(&p);
	}

	FILE *f = fopen(plan_path, "wb");
	FUZZ_CHECK(f != NULL);
	bool have_file = fwrite(buf, 1, len, f) == len;
	FUZZ_CHECK(fclose(f) == 0 && have_file);
	for (int k = 0; k < nr; k++)
		runtime_load(buf, len, ranks[k], have_file);

	struct compiled c;
	rc = plan_load_image(buf, len, "fuzz.ccp", &c, &fi2, err, sizeof err);
	if (rc) {
		FUZZ_CHECK(rc < 0 && err[0]);
		return;
	}
	read_plan(&c);
	compiled_fini(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run(data, size);
	uint8_t *copy = malloc(size ? size : 1);
	FUZZ_CHECK(copy != NULL);
	memcpy(copy, data, size);
	if (fuzz_seal_plan(copy, size) && memcmp(copy, data, size) != 0)
		run(copy, size);
	free(copy);
	return 0;
}
