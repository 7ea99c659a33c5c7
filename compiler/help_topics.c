/*
 * help_topics.c - the texts of `ccplan help TOPIC`.  Hand-written rather
 * than generated from the docs: a terminal wants a page of plain text,
 * not the tables and links of the full reference, which stays in docs/
 * (each topic names its page).  The algorithm and preset lists come from
 * the registries themselves, so they cannot go stale.  Lines fit in 80
 * columns.
 */
#include <string.h>

#include "help_topics.h"
#include "model.h"
#include "sched.h"

static const char topic_input[] =
        "The input: one YAML document naming a machine, a communication and "
        "an\n"
        "algorithm.  Full reference: docs/input-format.md.\n"
        "\n"
        "  machine:\n"
        "    topology: mesh         mesh | torus | hypercube | hpam | "
        "switch\n"
        "    dims: [16, 16]         its size (the key depends on the "
        "topology)\n"
        "    routing: xy            optional; states the topology's "
        "routing\n"
        "    ports: all             optional: all | one | k\n"
        "    cost:                  optional; microseconds\n"
        "      preset: t3d          'ccplan help presets'\n"
        "      alpha: 50.5\n"
        "  communication:\n"
        "    collective: broadcast\n"
        "    root: [8, 8]           a rank, or coordinates on a mesh or "
        "torus\n"
        "    bytes: 4096\n"
        "  algorithm: edn           'ccplan help algorithms', or auto (the "
        "default)\n"
        "\n"
        "Top level\n"
        "  machine, communication    required\n"
        "  algorithm    a name, or auto (the default): the compiler "
        "chooses\n"
        "  select       with algorithm: auto: simulated (the default) or "
        "model\n"
        "  contention   forbid or allow (default: what the algorithm "
        "allows)\n"
        "  seed         0 to 2^63-1, for randomised schedulers\n"
        "\n"
        "machine\n"
        "  topology     mesh, torus, hypercube, hpam, switch, fat_tree, "
        "graph or\n"
        "               dragonfly\n"
        "  dims         mesh, torus: [x], [x, y], [x, y, z] ... 8 extents "
        "(x y z a b\n"
        "               c d e); at most 2^24 nodes\n"
        "  wrap         mesh, torus: [true, false, ...], which dimensions "
        "wrap\n"
        "  order        mesh, torus: [z, x, y], the dimension-order "
        "routing's order\n"
        "  dimension    hypercube: n, 1 to 24 (2^n ranks)\n"
        "  ranks        switch: the number of ranks\n"
        "  ranks_per_node  ranks on each node (default 1); the network "
        "joins nodes\n"
        "  placement    block (default) or cyclic: which ranks share a "
        "node; or a\n"
        "               map, [node of rank 0, ...], {file: NAME} or\n"
        "               {nodes: \"n[4-7]\"} (names of hosts)\n"
        "  node_ports   all (default), one, or k: network sends (and "
        "receives) per\n"
        "               node and phase\n"
        "  hosts        node names in node order: \"n[0-15],login\"\n"
        "  graph        graph: {switches: \"s[0-3]\", links: [[s0, "
        "\"n[0-15]\"], {ends:\n"
        "               [A, B], width, bandwidth, latency, class}, ...]}, "
        "hosts: N\n"
        "               without machine.hosts; or {file: NAME} holding "
        "them\n"
        "  levels       hpam: [{rows, cols}, {rows, cols}], level 1 then "
        "level 2,\n"
        "               each optionally with c_send, c_recv and copy; "
        "cols are\n"
        "               powers of two and level 1's at most level 2's;\n"
        "               fat_tree: 1-4 levels [{down, up, width}, ...] "
        "from the\n"
        "               leaf switches up (XGFT), or {k, n} for a k-ary "
        "n-tree\n"
        "  dragonfly    {groups, routers, hosts_per_router, "
        "global_per_router,\n"
        "               arrangement, host/local/global_width, seed}\n"
        "  routing      mesh, torus: xy (xyz in 3D) or dimension-order;\n"
        "               hypercube: e-cube; hpam: hpam-xy; switch: direct;\n"
        "               fat_tree: d-mod-k (default), s-mod-k or adaptive;\n"
        "               graph: shortest (default) or adaptive;\n"
        "               dragonfly: minimal (default), valiant or adaptive\n"
        "  ports        all (default), one, or k: sends (and receives) per "
        "rank\n"
        "               and phase\n"
        "  cost         preset, alpha (start-up), beta (per byte), hop, "
        "gamma\n"
        "               (receive overhead), beta_sat, tau, phi, lambda,\n"
        "               combine (per byte of a reduction's combining),\n"
        "               shm_alpha, shm_beta (a transfer inside a node)\n"
        "\n";

/* The rest of topic_input (one string would pass the 4095 bytes a C
 * compiler must support). */
static const char topic_input_comm[] =
        "communication: a collective...\n"
        "  collective   broadcast, scatter, gather, reduce, alltoall, "
        "transpose,\n"
        "               allgather, reduce_scatter or allreduce\n"
        "               (transpose: a square 2D mesh or torus)\n"
        "  root         broadcast, scatter, gather, reduce; default 0\n"
        "  bytes        the block of each rank (broadcast: the message; "
        "reductions:\n"
        "               the vector), 0 to 2^40\n"
        "  segments     broadcast: pipelined in 1 to 65536 segments\n"
        "  dtype        reductions: byte, int32, int64, float or double\n"
        "  op           reductions: sum, prod, min or max\n"
        "  reproducible reductions: true: every rank combines in the same "
        "order\n"
        "...or an irregular pattern: 'pattern: irregular' and one of\n"
        "  matrix       n rows of n byte counts, diagonal 0 (at most 4096 "
        "rows)\n"
        "  edges        [[src, dst, bytes], ...]\n"
        "  file         a .csv dense matrix, else an edge list of 'src "
        "dst bytes'\n"
        "               lines; relative to the YAML file\n"
        "  generate     {kind: regular|density|skewed, degree, density, "
        "hot,\n"
        "               bytes, seed}\n"
        "\n"
        "Ranks are numbered row-major, x fastest (rank = x + X*(y + Y*z)); "
        "a\n"
        "hypercube's by node label; an hpam machine's level 1 first.  "
        "Integers are\n"
        "plain decimals (not quoted, no leading zero); costs are finite "
        "numbers\n"
        ">= 0.  No other key is accepted.  An error names file:line:column, "
        "says\n"
        "what was expected and suggests the nearest valid name.\n";

static const char topic_plan[] =
        "A .ccp file holds one compiled and verified plan: the machine and\n"
        "communication, every phase's transfers, and each rank's own "
        "operations.\n"
        "Full reference: docs/plan-format.md.\n"
        "\n"
        "  header, 128 bytes   magic 89 43 43 50 0d 0a 1a 0a, format "
        "version, ranks,\n"
        "                      phases, lower bound, algorithm, input hash, "
        "plan\n"
        "                      hash, header checksum\n"
        "  global section      the machine, the communication (and its "
        "matrix), the\n"
        "                      phases, their transfers (src, dst, bytes, "
        "blocks) and\n"
        "                      blocks (origin, index); what algorithm: "
        "auto chose\n"
        "  rank index          per rank: where its section is, its size "
        "and checksum\n"
        "  rank sections       per rank: its buffer sizes and operations "
        "(PHASE,\n"
        "                      SEND, RECV, RECV_REDUCE, COPY, WAIT) over "
        "pieces of\n"
        "                      its send, receive and scratch buffers\n"
        "\n"
        "Every field is little-endian; checksums are XXH3-64.  A rank reads "
        "the\n"
        "header, its index entry and its own section, and nothing else.  "
        "Files are\n"
        "written to a temporary name and renamed: a plan is whole or "
        "absent.\n"
        "Readers refuse damaged, truncated or newer-format files (exit "
        "status 2).\n"
        "\n"
        "  ccplan verify FILE.ccp          check the format and checksums, "
        "verify\n"
        "                                  the phases again\n"
        "  ccplan explain FILE.ccp         the phases; --rank R: one rank's "
        "operations\n"
        "  ccplan show FILE.ccp            pictures of the phases\n"
        "  ccplan export --json FILE.ccp   one JSON object: "
        "{\"format\":\"ccplan-plan\",\n"
        "                                  \"version\":2, \"ranks\", "
        "\"topology\",\n"
        "                                  \"routing\", \"ports\", "
        "\"collective\" (with\n"
        "                                  \"matrix\" when irregular), "
        "\"algorithm\",\n"
        "                                  \"link_contention\", "
        "\"node_contention\",\n"
        "                                  \"lower_bound_phases\", "
        "\"phases\":[{\"transfers\":\n"
        "                                  [{\"src\",\"dst\",\"bytes\","
        "\"blocks\",\"reduce\",\n"
        "                                  \"multicast\"}]}]}\n";

static const char topic_algorithms[] =
        "Algorithms: the value of 'algorithm:' in an input.  Each applies "
        "to some\n"
        "machines and communications and says why when it does not; "
        "'ccplan compare\n"
        "IN.yaml' ranks every one that applies.  Full reference: "
        "docs/algorithms.md.\n"
        "\n";

static const char topic_environment[] =
        "Environment\n"
        "  CCPLAN_CACHE       the plan cache file (default "
        "$XDG_CACHE_HOME/ccplan/\n"
        "                     plans.db, else ~/.cache/ccplan/plans.db); "
        "--cache\n"
        "                     PATH overrides it, --no-cache turns it off\n"
        "  CCPLAN_CACHE_TRUST caches to use although another user owns them "
        "or\n"
        "                     others can write them (refused otherwise): "
        "cache\n"
        "                     files separated by ':', or '*' for any\n"
        "  CCPLAN_MAX_MEMORY  the most memory an input may make a "
        "compile need,\n"
        "                     estimated before building (default 4G; "
        "compile\n"
        "                     --max-memory overrides it)\n"
        "  XDG_CACHE_HOME     where the default cache lives\n"
        "  HOME               the last resort for the cache\n"
        "  CCPLAN_TIMEOUT_MS  how long a rank of the sockets transport "
        "waits for\n"
        "                     progress (ccplan run --timeout sets it)\n"
        "  CCPLAN_LIBCLANG    the libclang shared library ccplan scan "
        "loads\n"
        "                     (default: found at build time)\n"
        "  CCPLAN_RUN_HOST    the IPv4 address remote ranks of ccplan run "
        "reach the\n"
        "                     launcher at\n"
        "  NO_COLOR           ccplan show --text draws without colour\n"
        "ccplan run gives each rank CCPLAN_RANK, CCPLAN_SIZE, "
        "CCPLAN_RUN_ADDR and\n"
        "CCPLAN_RUN_KEY_FD.  docs/cli.md has the details.\n";

static const char topic_exit[] =
        "Exit status\n"
        "  0  ok\n"
        "  1  the verifier rejected the plan (or compare: no algorithm "
        "made one)\n"
        "  2  bad input: the input, a plan file or the arguments; the "
        "message is\n"
        "     file:line:column: message where there is a position, and no "
        "output\n"
        "     file is written\n"
        "  3  internal error: out of memory, a file that cannot be "
        "written, a bug\n"
        "ccplan run exits with the status of the first rank that failed.\n";

const char *const help_topic_names[] = {
        "input-format", "plan-format", "algorithms", "presets",
        "environment",  "exit-status", NULL,
};

void help_wrap(FILE *out, const char *text, int indent, int width)
{
	while (*text) {
		size_t len = strcspn(text, "\n"), lead = 0;
		const char *line = text;
		text += len + (text[len] == '\n');
		/* break the line at the last space that fits, and again */
		while ((int)(lead + len) > width) {
			size_t cut = (size_t)(width - (int)lead);
			while (cut > 0 && line[cut] != ' ')
				cut--;
			if (cut == 0 || (int)(lead + cut) <= indent) {
				/* a word longer than the line: after it */
				cut = (size_t)(width - (int)lead);
				while (cut < len && line[cut] != ' ')
					cut++;
				if (cut == len)
					break;
			}
			size_t end = cut;
			while (end > 0 && line[end - 1] == ' ')
				end--;
			fprintf(out, "%.*s\n%*s", (int)end, line, indent, "");
			while (line[cut] == ' ')
				cut++;
			line += cut;
			len -= cut;
			lead = (size_t)indent;
		}
		fprintf(out, "%.*s\n", (int)len, line);
	}
}

/* One line of the list: "  name             summary", wrapped. */
static void list_row(FILE *out, const char *name, const char *summary)
{
	char line[1024];

	snprintf(line, sizeof line, "  %-16s %s", name, summary);
	help_wrap(out, line, 19, 79);
}

static const char auto_summary[] =
        "every algorithm that applies, verified and ranked by simulated "
        "time (select: model: by the cost model); the best is kept, the "
        "runner-up recorded in the plan";

int help_algorithm_print(const char *name, FILE *out)
{
	const struct sch_generator *g = sch_find(name);

	if (!g && strcmp(name, "auto") != 0)
		return -1;
	fprintf(out, "%s\n", name);
	help_wrap(out, g ? g->summary : auto_summary, 0, 79);
	fprintf(out, "\n'ccplan compare IN.yaml' tells whether it applies to "
	             "an input, and why not;\ndocs/algorithms.md names the "
	             "page that describes it.\n");
	return 0;
}

/* text with the characters a Markdown table cell would read as syntax
 * ('|', '*') escaped. */
static void cell(FILE *out, const char *text)
{
	for (; *text; text++) {
		if (*text == '|' || *text == '*')
			fputc('\\', out);
		fputc(*text, out);
	}
}

void help_algorithm_table(FILE *out)
{
	fputs("| name | collectives | machine | what it does | document |\n"
	      "|---|---|---|---|---|\n",
	      out);
	for (int k = 0; sch_generators[k]; k++) {
		const struct sch_generator *g = sch_generators[k];
		char colls[128], machine[512];
		sch_domain_colls(g, colls, sizeof colls);
		sch_domain_machine(g, machine, sizeof machine);
		fprintf(out, "| `%s` | %s | ", g->name, colls);
		cell(out, machine);
		fputs(" | ", out);
		cell(out, g->summary);
		if (g->doc)
			fprintf(out, " | [%s](%s) |\n", g->doc, g->doc);
		else
			fputs(" | — |\n", out);
	}
}

int help_topic_print(const char *topic, FILE *out)
{
	if (strcmp(topic, "input-format") == 0) {
		fputs(topic_input, out);
		fputs(topic_input_comm, out);
	} else if (strcmp(topic, "plan-format") == 0) {
		fputs(topic_plan, out);
	} else if (strcmp(topic, "algorithms") == 0) {
		fputs(topic_algorithms, out);
		for (int k = 0; sch_generators[k]; k++)
			list_row(out, sch_generators[k]->name,
			         sch_generators[k]->summary);
		list_row(out, "auto", auto_summary);
	} else if (strcmp(topic, "presets") == 0) {
		size_t n = 0;
		const struct model_preset *p = model_preset_list(&n);
		fputs("Cost presets (machine.cost.preset); a preset fills the "
		      "costs the input\nleaves unset.  Sources: "
		      "docs/cost-models.md.\n\n",
		      out);
		for (size_t i = 0; i < n; i++)
			fprintf(out, "  %-18s %s\n", p[i].name, p[i].machine);
	} else if (strcmp(topic, "environment") == 0) {
		fputs(topic_environment, out);
	} else if (strcmp(topic, "exit-status") == 0) {
		fputs(topic_exit, out);
	} else {
		return -1;
	}
	return 0;
}
