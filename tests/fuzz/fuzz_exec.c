/*
 * fuzz_exec.c - the runtime executing what its loader accepts: every
 * .ccp image that ccp_plan_load_memory and ccp_plan_bind accept for every
 * rank is executed, one thread per rank, on the in-process loopback
 * transport (tests/support/loopback.c), with guard zones around every
 * bound buffer (tests/support/guard.c, poisoned under AddressSanitizer).
 *
 * Each input is resealed first (fuzz_seal_plan: every checksum made
 * right), so that a mutation reaches the loader's rules instead of its
 * checksums: the attacker's case.  The scheme (S2 or S1, with or without
 * phase barriers) and whether the scratch buffer is the caller's or the
 * runtime's come from the plan hash, so that the corpus covers all of
 * them.  Properties:
 *   - no byte outside the bound buffers is read or written (ASan reports
 *     the first access to a zone or past a runtime allocation; a zone
 *     found changed afterwards fails the check), and the send buffer,
 *     which the plan only reads, is unchanged;
 *   - no rank hangs: a plan whose ranks' operations do not match makes
 *     the loopback fail every rank at once (CCP_EPEER), never its
 *     backstop timeout (CCP_ETIMEDOUT), and libFuzzer's -timeout catches
 *     anything else;
 *   - an execution that fails says why on its rank.
 * Plans beyond what a fuzz run can afford (over 16 ranks, 64 KiB in one
 * buffer, 4096 phases of barriers) are skipped after loading.  With
 * FUZZ_EXEC_STATS set in the environment the harness prints at exit how
 * many inputs were refused, skipped, and executed with success or with
 * an error on some rank (docs/reliability.md quotes it).
 */
#include <pthread.h>
#include <string.h>

#include "ccplan.h"
#include "codec.h"
#include "fuzz.h"
#include "support/guard.h"
#include "support/loopback.h"

#define MAX_RANKS   16
#define MAX_BUFFER  (64u << 10)
#define MAX_PHASES  4096u
#define BACKSTOP_MS 5000u

/* What one rank is given and ends with. */
struct rank_run {
	ccp_context *ctx;
	ccp_plan *plan;
	ccp_transport *t;
	unsigned flags;
	uint64_t size[3];      /* send, recv, scratch bytes bound */
	unsigned char *buf[3]; /* between guard zones (scratch: NULL when
	                          the runtime allocates it) */
	int rc;                /* ccp_plan_execute's */
	char msg[256];         /* and the context's message after it */
};

/* Inputs by outcome, for FUZZ_EXEC_STATS. */
static unsigned long n_inputs, n_refused, n_skipped, n_ok, n_failed;

static void print_stats(void)
{
	fprintf(stderr,
	        "fuzz_exec: %lu inputs: %lu refused by a loader, %lu too "
	        "large to run, %lu executed with success on every rank, %lu "
	        "with an error on some rank\n",
	        n_inputs, n_refused, n_skipped, n_ok, n_failed);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (getenv("FUZZ_EXEC_STATS"))
		atexit(print_stats);
	return 0;
}

/* The send buffer's byte at off, for rank r: the runtime never writes
 * it, so it must still be this after the execution. */
static unsigned char send_byte(int32_t r, uint64_t off)
{
	return (unsigned char)(r * 37 + off * 11 + 5);
}

static void *run(void *arg)
{
	struct rank_run *x = arg;
	x->rc = ccp_plan_execute(x->plan, x->t, x->flags);
	snprintf(x->msg, sizeof x->msg, "%s", ccp_errmsg(x->ctx));
	ccp_transport_free(x->t); /* the rank leaves */
	x->t = NULL;
	return NULL;
}

/* Bind rank x's buffers, between guard zones; false if the plan needs
 * more than a fuzz run affords. */
static bool bind_rank(struct rank_run *x, int32_t r, bool own_scratch)
{
	ccp_plan_info in;
	FUZZ_CHECK(ccp_plan_get_info(x->plan, &in) == 0);
	x->size[0] = in.send_bytes;
	x->size[1] = in.recv_bytes;
	x->size[2] = in.scratch_bytes;
	for (int b = 0; b < 3; b++)
		if (x->size[b] > MAX_BUFFER)
			return false;
	for (int b = 0; b < 3; b++) {
		if (b == 2 && !own_scratch)
			break;
		x->buf[b] = guard_alloc((size_t)x->size[b], (unsigned char)b);
		FUZZ_CHECK(x->buf[b] != NULL);
	}
	for (uint64_t o = 0; o < x->size[0]; o++)
		x->buf[0][o] = send_byte(r, o);
	int rc = ccp_plan_bind(x->plan, x->buf[0], (size_t)x->size[0],
	                       x->buf[1], (size_t)x->size[1], x->buf[2],
	                       (size_t)(x->buf[2] ? x->size[2] : 0));
	/* separate buffers of the stated sizes: nothing to refuse */
	FUZZ_CHECK(rc == 0);
	return true;
}

/* After the run: every zone intact, the send buffer as it was. */
static void check_rank(const struct rank_run *x, int32_t r)
{
	for (int b = 0; b < 3; b++)
		if (x->buf[b])
			FUZZ_CHECK(guard_intact(x->buf[b], (size_t)x->size[b]));
	for (uint64_t o = 0; o < x->size[0]; o++)
		FUZZ_CHECK(x->buf[0][o] == send_byte(r, o));
	FUZZ_CHECK(x->rc <= 0);
	if (x->rc < 0)
		FUZZ_CHECK(x->msg[0] != '\0');
}

/* Execute the sealed image img on every rank, if every rank loads it. */
static void execute(const uint8_t *img, size_t len)
{
	ir_file_info fi;
	char err[256];
	n_inputs++;
	if (ir_file_info_read(img, len, &fi, err, sizeof err) != 0) {
		n_refused++;
		return;
	}
	if (fi.nranks > MAX_RANKS || fi.nphases > MAX_PHASES) {
		n_skipped++;
		return;
	}
	int32_t n = fi.nranks;
	static const unsigned schemes[4] = {CCP_EXEC_S2, CCP_EXEC_S1,
	                                    CCP_EXEC_S2 | CCP_EXEC_NO_BARRIER,
	                                    CCP_EXEC_S1 | CCP_EXEC_NO_BARRIER};
	unsigned flags = schemes[fi.plan_hash % 4];
	bool own_scratch = (fi.plan_hash >> 2) & 1;
	struct rank_run x[MAX_RANKS];
	memset(x, 0, sizeof x);
	int32_t loaded = 0;
	bool runnable = true;
	for (; loaded < n && runnable; loaded++) {
		struct rank_run *y = &x[loaded];
		FUZZ_CHECK(ccp_init(&y->ctx, NULL, NULL) == 0);
		int rc = ccp_plan_load_memory(y->ctx, img, len, loaded,
		                              &y->plan);
		if (rc) {
			FUZZ_CHECK(rc < 0 && ccp_errmsg(y->ctx)[0]);
			runnable = false;
			n_refused++;
		} else if (!(runnable = bind_rank(y, loaded, own_scratch))) {
			n_skipped++;
		}
	}
	struct lb_world *w = NULL;
	if (runnable) {
		w = lb_world_new(n, BACKSTOP_MS);
		FUZZ_CHECK(w != NULL);
		pthread_t th[MAX_RANKS];
		for (int32_t r = 0; r < n; r++) {
			x[r].flags = flags;
			FUZZ_CHECK(lb_transport_new(w, x[r].ctx, r, &x[r].t) ==
			           0);
		}
		for (int32_t r = 0; r < n; r++)
			FUZZ_CHECK(pthread_create(&th[r], NULL, run, &x[r]) ==
			           0);
		for (int32_t r = 0; r < n; r++)
			pthread_join(th[r], NULL);
		const char *why = "";
		int broke = lb_world_failure(w, &why);
		if (broke == CCP_ETIMEDOUT)
			fprintf(stderr, "fuzz_exec: a rank hung: %s\n", why);
		FUZZ_CHECK(broke != CCP_ETIMEDOUT);
		bool ok = true;
		for (int32_t r = 0; r < n; r++) {
			check_rank(&x[r], r);
			ok = ok && x[r].rc == 0;
		}
		*(ok ? &n_ok : &n_failed) += 1;
		lb_world_free(w);
	}
	for (int32_t r = 0; r < loaded; r++) {
		for (int b = 0; b < 3; b++)
			guard_free(x[r].buf[b], (size_t)x[r].size[b]);
		ccp_plan_free(x[r].plan);
		ccp_fini(x[r].ctx);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < IR_FILE_HEADER_MIN)
		return 0;
	uint8_t *img = malloc(size);
	FUZZ_CHECK(img != NULL);
	memcpy(img, data, size);
	if (fuzz_seal_plan(img, size))
		execute(img, size);
	free(img);
	return 0;
}
