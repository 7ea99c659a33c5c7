/*
 * test_inspector_sockets.c - the inspector over the TCP sockets transport
 * (ccplan run -n N test_inspector_sockets CACHE-FILE), to show that it
 * needs nothing but the transport table: the same pattern inspected
 * twice (a miss and a store, then a hit), each plan executed three times
 * with every received byte checked against the value the pattern gives,
 * and one error every rank must agree on.  No MPI here: the pattern is
 * computed on every rank from a fixed seed.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccplan_inspector.h"
#include "ccplan_sockets.h"

static int32_t rank, size;
static ccp_context *ctx;
static ccp_transport *tr;
static unsigned failures, checks;

static bool check(bool cond, const char *what, long a, long b)
{
	checks++;
	if (!cond && ++failures <= 20)
		printf("test_inspector_sockets[%d/%d]: FAIL: %s (%ld, %ld): "
		       "%s\n",
		       (int)rank, (int)size, what, a, b, ccp_errmsg(ctx));
	return cond;
}

/* Bytes from s to d: a sparse pattern with an empty row (rank 1 sends
 * nothing when there are 3 or more ranks) and varied sizes. */
static uint64_t bytes_of(int32_t s, int32_t d)
{
	if (s == d || (size > 2 && s == 1))
		return 0;
	uint32_t h = (uint32_t)(s * 2654435761u) ^ (uint32_t)(d * 40503u);
	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	return h % 4 == 0 ? 0 : 1 + h % 1500;
}

static uint8_t val(int32_t s, int32_t d, uint64_t i, unsigned round)
{
	return (uint8_t)(s * 29 + d * 101 + (int)i * 3 + (int)round * 7 + 5);
}

static void inspect_and_run(const char *path, int want_hit)
{
	int32_t *dst = calloc((size_t)size, sizeof *dst);
	uint64_t *len = calloc((size_t)size, sizeof *len);
	size_t count = 0;
	/* descending order, zero-byte entries kept: the inspector sorts */
	for (int32_t d = size - 1; d >= 0; d--)
		if (d != rank) {
			dst[count] = d;
			len[count++] = bytes_of(rank, d);
		}
	ccp_inspect_options o = {.seed = 3, .cache_path = path};
	ccp_plan *plan = NULL;
	ccp_inspect_result res;
	int e = ccp_inspect(ctx, tr, dst, len, count, &o, &plan, &res);
	if (check(e == 0, "inspect", e, 0)) {
		check(res.cache_hit == want_hit, "cache hit", res.cache_hit,
		      want_hit);
		check(res.cache_status == 0, "cache status", res.cache_status,
		      0);
		uint64_t sb = 0, rb = 0;
		for (int32_t p = 0; p < size; p++) {
			sb += bytes_of(rank, p);
			rb += bytes_of(p, rank);
		}
		check(res.send_bytes == sb, "send bytes", (long)res.send_bytes,
		      (long)sb);
		check(res.recv_bytes == rb, "recv bytes", (long)res.recv_bytes,
		      (long)rb);
		uint8_t *send = malloc(sb + 1), *recv = malloc(rb + 1);
		e = ccp_plan_bind(plan, send, sb, recv, rb, NULL, 0);
		check(e == 0, "bind", e, 0);
		for (unsigned k = 0; k < 3 && e == 0; k++) {
			uint64_t off = 0;
			for (int32_t d = 0; d < size; d++)
				for (uint64_t i = 0; i < bytes_of(rank, d); i++)
					send[off++] = val(rank, d, i, k);
			memset(recv, 0xee, rb + 1);
			e = ccp_plan_execute(plan, tr,
			                     k ? CCP_EXEC_NO_BARRIER
			                       : CCP_EXEC_DEFAULT);
			if (!check(e == 0, "execute", e, (long)k))
				break;
			off = 0;
			long bad = -1;
			for (int32_t s = 0; s < size; s++)
				for (uint64_t i = 0; i < bytes_of(s, rank); i++)
					if (recv[off++] != val(s, rank, i, k) &&
					    bad < 0)
						bad = (long)off - 1;
			check(bad < 0, "received byte", bad, (long)k);
		}
		free(send);
		free(recv);
	}
	ccp_inspect_result_fini(&res);
	ccp_plan_free(plan);
	free(dst);
	free(len);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ccplan run -n N test_inspector_sockets "
		                "CACHE-FILE\n");
		return 2;
	}
	int e = ccp_init(&ctx, NULL, NULL);
	if (e == 0)
		e = ccp_socket_transport(ctx, NULL, &tr);
	if (e) {
		fprintf(stderr, "test_inspector_sockets: setup: %s: %s\n",
		        ccp_strerror(e), ccp_errmsg(ctx));
		return 3;
	}
	rank = ccp_transport_rank(tr);
	size = ccp_transport_size(tr);
	/* rank 0 removes the old cache; the first inspection's agreement
	 * comes after it, so no rank reads it before */
	if (rank == 0) {
		char aux[4200];
		unlink(argv[1]);
		snprintf(aux, sizeof aux, "%s-wal", argv[1]);
		unlink(aux);
		snprintf(aux, sizeof aux, "%s-shm", argv[1]);
		unlink(aux);
	}
	inspect_and_run(argv[1], 0);
	inspect_and_run(argv[1], 1);

	/* a bad destination on the last rank: every rank fails alike */
	int32_t bad_dst[1] = {size};
	uint64_t one[1] = {1};
	int32_t ok_dst[1] = {(rank + 1) % size};
	ccp_plan *plan = NULL;
	e = ccp_inspect(ctx, tr, rank == size - 1 ? bad_dst : ok_dst, one,
	                size > 1 ? 1 : 0, NULL, &plan, NULL);
	check(size == 1 || (e == CCP_EINVAL && plan == NULL), "bad destination",
	      e, 0);
	/* and the transport still works */
	inspect_and_run(argv[1], 1);

	if (failures == 0)
		printf("test_inspector_sockets[%d/%d]: %u checks passed\n",
		       (int)rank, (int)size, checks);
	ccp_transport_free(tr);
	ccp_fini(ctx);
	return failures ? 1 : 0;
}
