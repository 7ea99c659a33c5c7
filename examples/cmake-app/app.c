/*
 * app.c - an application of the ccplan example project.  It runs three
 * plans over the sockets transport (start it with `ccplan run -n 4 app`):
 * a scatter linked in by name (ccplan_add_plans in CMakeLists.txt), and a
 * broadcast and a gather it asks for by name, which `ccplan scan` found
 * in this file at build time (ccplan_scan_sources).  Every rank checks
 * what it received and exits non-zero if anything is wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ccplan.h>
#include <ccplan_emitted.h>
#include <ccplan_lookup.h>
#include <ccplan_sockets.h>

#define GATHER_PLAN "gather4"
#pragma ccplan plan(gather4, "plans/gather4.yaml")

extern const struct ccp_emitted_plan scatter4; /* plans/scatter4.yaml */

static int failed;

static void check(int rank, const char *what, int ok)
{
	if (!ok) {
		fprintf(stderr, "rank %d: %s: wrong\n", rank, what);
		failed = 1;
	}
}

/* Bind buffers of the plan's sizes, fill the send buffer with a pattern
 * of the rank, run, and hand back the receive buffer. */
static unsigned char *run(ccp_context *ctx, ccp_transport *t, ccp_plan *p,
                          const char *what)
{
	ccp_plan_info in;
	ccp_plan_get_info(p, &in);
	unsigned char *s = malloc(in.send_bytes + 1);
	unsigned char *r = calloc(1, in.recv_bytes + 1);
	for (uint64_t i = 0; i < in.send_bytes; i++)
		s[i] = (unsigned char)(in.rank * 16 + i);
	int rc = ccp_plan_bind(p, s, in.send_bytes, r, in.recv_bytes, NULL, 0);
	if (rc == 0)
		rc = ccp_plan_execute(p, t, CCP_EXEC_DEFAULT);
	if (rc) {
		fprintf(stderr, "rank %d: %s: %s\n", in.rank, what,
		        ccp_errmsg(ctx));
		failed = 1;
	}
	free(s);
	return r;
}

int main(void)
{
	ccp_context *ctx;
	ccp_transport *t;
	ccp_plan *p;
	if (ccp_init(&ctx, NULL, NULL) || ccp_socket_transport(ctx, NULL, &t))
		return 1;
	int32_t me = ccp_transport_rank(t);
	ccp_plan_register(ctx, &ccplan_plans);

	/* bcast4: 64 bytes from rank 0 */
	if (ccp_plan_lookup(ctx, "bcast4", me, &p))
		return fprintf(stderr, "%s\n", ccp_errmsg(ctx)), 1;
	unsigned char *r = run(ctx, t, p, "bcast4");
	for (int i = 0; i < 64; i++)
		check(me, "bcast4", r[i] == (unsigned char)i);
	free(r);
	ccp_plan_free(p);

	/* gather4: 8 bytes of each rank to rank 0 */
	if (ccp_plan_lookup(ctx, GATHER_PLAN, me, &p))
		return fprintf(stderr, "%s\n", ccp_errmsg(ctx)), 1;
	r = run(ctx, t, p, "gather4");
	for (int i = 0; me == 0 && i < 32; i++)
		check(me, "gather4", r[i] == (unsigned char)((i / 8) * 16 + i % 8));
	free(r);
	ccp_plan_free(p);

	/* scatter4: block d of rank 0's 4 x 8 bytes to rank d */
	if (ccp_plan_load_emitted(ctx, &scatter4, me, &p))
		return fprintf(stderr, "%s\n", ccp_errmsg(ctx)), 1;
	r = run(ctx, t, p, "scatter4");
	for (int i = 0; i < 8; i++)
		check(me, "scatter4", r[i] == (unsigned char)(me * 8 + i));
	free(r);
	ccp_plan_free(p);

	ccp_plan_unregister(ctx, &ccplan_plans);
	ccp_transport_free(t);
	ccp_fini(ctx);
	if (!failed)
		printf("rank %d: bcast4, gather4, scatter4 ok\n", (int)me);
	return failed;
}
