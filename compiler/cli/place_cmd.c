/*
 * place_cmd.c - `ccplan place IN.yaml [-o OUT] [--format F] [--seed N]`:
 * where each rank of an input's communication matrix should sit on its
 * machine (schedules/place.c, docs/placement.md), written as a
 * placement file, an Open MPI rankfile, a Slurm arbitrary-distribution
 * host file, or the input itself with the placement in its machine.
 * Output goes to stdout, or atomically to -o's file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "front/hostlist.h"
#include "place.h"
#include "progress.h"
#include "tbuf.h"

const char cli_place_help[] =
        "usage: ccplan place IN.yaml [-o OUT] [--format perm|rankfile|"
        "slurm|yaml]\n"
        "                    [--seed N]\n"
        "\n"
        "Find where each rank of IN's communication matrix should sit on "
        "its machine,\n"
        "so that a plan needs fewer phases (the verifier's bound: degree "
        "over ports,\n"
        "link load over capacity), then fewer hops (docs/placement.md).  "
        "Ranks that\n"
        "talk most share a node first; the nodes are then placed on the "
        "network.\n"
        "The result is never worse than IN's own placement.\n"
        "  -o FILE          write to FILE (replaced whole, or not at all); "
        "without it,\n"
        "                   to standard output\n"
        "  --format perm    the node of each rank, one a line: a placement "
        "file for\n"
        "                   placement: {file: FILE} (the default)\n"
        "  --format rankfile  an Open MPI rankfile (needs machine.hosts)\n"
        "  --format slurm   a host file for srun --distribution=arbitrary, "
        "one host\n"
        "                   per rank (needs machine.hosts)\n"
        "  --format yaml    IN with the placement as machine.placement: "
        "`ccplan compile`\n"
        "                   of it gives the placed plan\n"
        "  --seed N         the search's seed (default: IN's seed, else "
        "1)\n"
        "The bound and hops before and after go to standard error.\n";

enum { OPT_FORMAT = 'f', OPT_SEED = 'S' }; /* long only: not in shorts */

const struct option cli_place_opts[] = {
        {"format", required_argument, NULL, OPT_FORMAT},
        {"seed", required_argument, NULL, OPT_SEED},
        {"help", no_argument, NULL, 'h'},
        {0},
};
const char *const cli_place_args[128] = {
        ['o'] = "a file name",
        [OPT_FORMAT] = "a format (perm, rankfile, slurm, yaml)",
        [OPT_SEED] = "a number",
};

enum place_format { FMT_PERM, FMT_RANKFILE, FMT_SLURM, FMT_YAML };

/* The placement as a placement file: the node of each rank. */
static int write_perm(struct tbuf *t, const char *in, const int32_t *node,
                      int32_t n, const struct sch_place_stats *st)
{
	int rc = tb_printf(t,
	                   "# ccplan place %s: the node of each rank (rank 0 "
	                   "first)\n# phase bound %" PRIu32 " -> %" PRIu32
	                   ", hops %" PRIu64 " -> %" PRIu64 "\n",
	                   cli_base_name(in), st->bound_before, st->bound_after,
	                   st->hops_before, st->hops_after);
	for (int32_t r = 0; rc == 0 && r < n; r++)
		rc = tb_printf(t, "%" PRId32 "\n", node[r]);
	return rc;
}

/* An Open MPI rankfile ("rank R=HOST slot=S"), or a Slurm arbitrary
 * host file (one host a line, rank 0 first). */
static int write_hosts(struct tbuf *t, const struct front_input *fi,
                       const int32_t *node, enum place_format f)
{
	const ir_machine *m = &fi->machine;
	int32_t *slot = calloc((size_t)m->nnodes, sizeof *slot);
	int rc = 0;

	if (!slot)
		return CCP_ENOMEM;
	for (int32_t r = 0; rc == 0 && r < m->nranks; r++) {
		const char *h = hostlist_name(&fi->hosts, node[r]);
		if (f == FMT_RANKFILE)
			rc = tb_printf(t,
			               "rank %" PRId32 "=%s slot=%" PRId32 "\n",
			               r, h, slot[node[r]]++);
		else
			rc = tb_printf(t, "%s\n", h);
	}
	free(slot);
	return rc;
}

/* Length of the line at p (to its newline, excluded). */
static size_t line_len(const char *p, const char *end)
{
	const char *q = memchr(p, '\n', (size_t)(end - p));
	return q ? (size_t)(q - p) : (size_t)(end - p);
}

/* Indentation of a line, or -1 when it is blank or a comment. */
static int indent_of(const char *p, size_t len)
{
	size_t i = 0;
	while (i < len && p[i] == ' ')
		i++;
	if (i == len || p[i] == '#' || p[i] == '\r')
		return -1;
	return (int)i;
}

/* The input text with machine.placement set to the map: a placement the
 * machine block mapping has is replaced, else one is added as its first
 * key.  Only a block-style `machine:` mapping is edited; d says why
 * otherwise. */
static int write_yaml(struct tbuf *t, const char *path, const char *text,
                      size_t len, const int32_t *node, int32_t n,
                      struct diag *d)
{
	const char *end = text + len, *p = text, *mline = NULL;
	int line = 1, mlineno = 0, ind = -1, rc;

	for (; p < end; line++) {
		size_t l = line_len(p, end);
		if (l >= 8 && strncmp(p, "machine:", 8) == 0) {
			mline = p;
			mlineno = line;
			break;
		}
		p += l + (p + l < end);
	}
	if (!mline) {
		front_diag(d, path, 0, 0, NULL,
		           "no top-level `machine:` line to add the placement "
		           "to");
		return CCP_EPARSE;
	}
	{
		size_t l = line_len(mline, end);
		size_t i = 8;
		while (i < l && mline[i] == ' ')
			i++;
		if (i < l && mline[i] != '#' && mline[i] != '\r') {
			char src[256];
			snprintf(src, sizeof src, "%.*s",
			         (int)(l < 255 ? l : 255), mline);
			front_diag(
			        d, path, mlineno, (int)i + 1, src,
			        "machine: written inline; place --format yaml "
			        "edits a block mapping (one key a line)");
			return CCP_EPARSE;
		}
	}
	/* copy through the machine line, then find its keys' indentation
	 * and drop a placement key with its continuation lines */
	const char *body = mline + line_len(mline, end);
	body += body < end;
	if ((rc = tb_put(t, text, (size_t)(body - text))) != 0)
		return rc;
	for (const char *q = body; q < end;) {
		size_t l = line_len(q, end);
		int in = indent_of(q, l);
		if (in >= 0) {
			ind = in;
			break;
		}
		q += l + (q + l < end);
	}
	if (ind <= 0) {
		front_diag(d, path, mlineno, 1, NULL,
		           "machine: has no keys below it");
		return CCP_EPARSE;
	}
	rc = tb_printf(t, "%*splacement: [", ind, "");
	for (int32_t r = 0; rc == 0 && r < n; r++) {
		if (r > 0 && r % 16 == 0) /* a flow list may continue on
		                             lines indented further */
			rc = tb_printf(t, ",\n%*s", ind + 4, "");
		else if (r > 0)
			rc = tb_printf(t, ", ");
		if (rc == 0)
			rc = tb_printf(t, "%" PRId32, node[r]);
	}
	if (rc == 0)
		rc = tb_printf(t, "]\n");
	bool skipping = false, inside = true;
	for (const char *q = body; rc == 0 && q < end;) {
		size_t l = line_len(q, end);
		size_t adv = l + (q + l < end);
		int in = indent_of(q, l);
		if (in >= 0 && in < ind)
			inside = false;
		if (inside && in == ind)
			skipping = l >= (size_t)ind + 10 &&
			           strncmp(q + ind, "placement", 9) == 0 &&
			           (q[ind + 9] == ':' || q[ind + 9] == ' ');
		if (!(inside && skipping))
			rc = tb_put(t, q, adv);
		q += adv;
	}
	return rc;
}

static int parse_format(const char *s, enum place_format *f)
{
	static const char *const names[] = {"perm", "rankfile", "slurm",
	                                    "yaml"};
	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*f = (enum place_format)i;
			return 0;
		}
	return -1;
}

int cli_place(int argc, char **argv)
{
	const char *out = NULL, *path;
	enum place_format fmt = FMT_PERM;
	uint64_t seed = 0;
	bool has_seed = false;
	struct front_input fi;
	struct sch_place_stats st;
	struct tbuf t = {0};
	struct diag d;
	int32_t *node = NULL;
	uint8_t *text = NULL;
	size_t tlen = 0;
	char err[512];
	int v, rc;

	while ((v = cli_getopt(argc, argv)) >= 0) {
		if (v == 'o') {
			out = optarg;
		} else if (v == OPT_FORMAT) {
			if (parse_format(optarg, &fmt) != 0)
				return cli_usage(
				        "place",
				        "unknown format '%s'; expected "
				        "perm, rankfile, slurm or yaml",
				        optarg);
		} else if (v == OPT_SEED) {
			char *e;
			errno = 0;
			unsigned long long s = strtoull(optarg, &e, 10);
			if (errno || e == optarg || *e || optarg[0] == '-')
				return cli_usage("place",
				                 "--seed: '%s' is not a number",
				                 optarg);
			seed = s;
			has_seed = true;
		}
	}
	if (v != CLI_END)
		return cli_stop(v);
	if (!(path = cli_operand(argc, argv, "IN.yaml")))
		return EXIT_BADINPUT;
	summary_note("%s%s%s", path, out ? " -> " : "", out ? out : "");
	if ((rc = cli_parse_yaml(path, &fi)) != 0)
		return exit_status(rc);
	memset(&d, 0, sizeof d);
	if (fi.comm.coll != IR_IRREGULAR || !fi.comm.matrix) {
		fprintf(stderr,
		        "%s: place needs a communication matrix (collective: "
		        "irregular); a collective's phases do not depend on "
		        "where its ranks sit the same way\n",
		        path);
		rc = CCP_EPARSE;
		goto out;
	}
	if ((fmt == FMT_RANKFILE || fmt == FMT_SLURM) &&
	    fi.hosts.count != fi.machine.nnodes) {
		fprintf(stderr,
		        "%s: --format %s needs the machine's node names "
		        "(machine.hosts)\n",
		        path, fmt == FMT_RANKFILE ? "rankfile" : "slurm");
		rc = CCP_EPARSE;
		goto out;
	}
	if ((fmt == FMT_PERM || fmt == FMT_YAML) &&
	    fi.machine.topo == IR_GRAPH && fi.machine.graph &&
	    fi.machine.graph->key) {
		/* a job's part: its nodes are numbered by the node list, which
		 * a map cannot be written beside */
		fprintf(stderr,
		        "%s: the machine is a job's part (placement: {nodes: "
		        "...} naming some nodes); a map of it cannot be "
		        "written as --format %s: use --format rankfile or "
		        "slurm, which name the hosts\n",
		        path, fmt == FMT_PERM ? "perm" : "yaml");
		rc = CCP_EPARSE;
		goto out;
	}
	if (!has_seed)
		seed = fi.has_seed ? fi.seed : 1;
	rc = CCP_ENOMEM;
	if (!(node = malloc((size_t)fi.machine.nranks * sizeof *node)))
		goto out;
	rc = sch_place(&fi.machine, fi.comm.matrix, seed, node, &st, err,
	               sizeof err);
	if (rc) {
		fprintf(stderr, "%s: %s\n", path, err);
		goto out;
	}
	switch (fmt) {
	case FMT_PERM:
		rc = write_perm(&t, path, node, fi.machine.nranks, &st);
		break;
	case FMT_RANKFILE:
	case FMT_SLURM:
		rc = write_hosts(&t, &fi, node, fmt);
		break;
	case FMT_YAML:
		if ((rc = compile_read_file(path, &text, &tlen, err,
		                            sizeof err)) != 0) {
			fprintf(stderr, "%s: %s\n", path, err);
			goto out;
		}
		rc = write_yaml(&t, path, (const char *)text, tlen, node,
		                fi.machine.nranks, &d);
		if (rc == CCP_EPARSE) {
			cli_print_diag(&d);
			goto out;
		}
		break;
	}
	if (rc)
		goto out;
	if (out) {
		rc = write_atomic(out, t.p, t.len, err, sizeof err);
		if (rc)
			fprintf(stderr, "%s place: %s\n", cli_prog, err);
	} else if (fwrite(t.p, 1, t.len, stdout) != t.len ||
	           fflush(stdout) != 0) {
		fprintf(stderr, "%s place: cannot write the output\n",
		        cli_prog);
		rc = CCP_EIO;
	}
	if (rc == 0 && !cli_quiet)
		fprintf(stderr,
		        "%s: phase bound %" PRIu32 " -> %" PRIu32
		        " (link %" PRIu32 " -> %" PRIu32 ", degree %" PRIu32
		        "), hops %" PRIu64 " -> %" PRIu64 "%s\n",
		        path, st.bound_before, st.bound_after, st.link_before,
		        st.link_after, st.degree, st.hops_before, st.hops_after,
		        st.kept_identity ? " (kept the input's placement)"
		                         : "");
out:
	if (rc == CCP_ENOMEM)
		fprintf(stderr, "%s: out of memory\n", path);
	free(node);
	free(text);
	tb_free(&t);
	front_input_fini(&fi);
	return rc ? exit_status(rc) : EXIT_OK;
}
