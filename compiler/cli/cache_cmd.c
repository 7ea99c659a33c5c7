/*
 * cache_cmd.c - `ccplan cache`: look after the plan cache (path, ls,
 * show, rm, gc, export).  Text read from the cache is printed escaped, so
 * that whoever could write the file cannot drive the terminal.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache.h"
#include "cli.h"
#include "json.h"
#include "progress.h"
#include "suggest.h"

const char cli_cache_help[] =
        "usage: ccplan cache [--cache PATH] COMMAND\n"
        "\n"
        "Look after the plan cache (docs/cache.md).  KEY is a key's hex "
        "digits, or\n"
        "any prefix of them that names one entry.  ls and show print "
        "stored text with\n"
        "control characters escaped (ESC as \\x1b).  A cache another "
        "user owns, or\n"
        "that group or others can write, is refused unless "
        "CCPLAN_CACHE_TRUST names it.\n"
        "  path                     print where the cache is\n"
        "  ls                       list the entries, most recently used "
        "first\n"
        "  ls --json [-o FILE]      the same as one JSON object "
        "(docs/cli.md)\n"
        "  show KEY                 one entry and its canonical input\n"
        "  rm KEY                   remove an entry\n"
        "  gc [--max-size N] [--older-than D]\n"
        "                           remove entries unused for D (s, m, h "
        "or d;\n"
        "                           seconds without a unit), then the least "
        "recently\n"
        "                           used until N bytes remain (K, M, G "
        "suffixes)\n"
        "  export KEY -o FILE.ccp   write an entry's plan to a file\n";

/* What the values of its options are (cli_getopt's messages). */
const char *const cli_cache_args[128] = {
        ['C'] = "a cache file",
        ['o'] = "a file name",
        ['S'] = "a size, such as 500M",
        ['O'] = "a duration, such as 30d",
};

/* The options of cache (the table's), and which of them belong to one
 * subcommand: --max-size and --older-than to gc, -o to export and to
 * ls --json, --json to ls. */
const struct option cli_cache_opts[] = {
        {"cache", required_argument, NULL, 'C'},
        {"max-size", required_argument, NULL, 'S'},
        {"older-than", required_argument, NULL, 'O'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {0},
};
static const struct option ls_opts[] = {
        {"json", no_argument, NULL, 'j'},
        {0},
};
static const struct option gc_opts[] = {
        {"max-size", required_argument, NULL, 'S'},
        {"older-than", required_argument, NULL, 'O'},
        {0},
};
static const struct option no_opts[] = {{0}};
const struct cli_sub cli_cache_subs[] = {
        {.name = "path", .opts = no_opts, .shorts = ""},
        {.name = "ls", .opts = ls_opts, .shorts = "o:"},
        {.name = "show", .opts = no_opts, .shorts = ""},
        {.name = "rm", .opts = no_opts, .shorts = ""},
        {.name = "gc", .opts = gc_opts, .shorts = ""},
        {.name = "export", .opts = no_opts, .shorts = "o:"},
        {0},
};

/* Ns, Nm, Nh, Nd (or N seconds) as seconds; -1 if malformed. */
static int64_t parse_age(const char *a)
{
	char *end;
	errno = 0;
	long long v = strtoll(a, &end, 10);
	if (errno || end == a || v < 0)
		return -1;
	int64_t unit = 1;
	if (*end == 'm')
		unit = 60;
	else if (*end == 'h')
		unit = 3600;
	else if (*end == 'd')
		unit = 86400;
	else if (*end && *end != 's')
		return -1;
	if (*end)
		end++;
	if (*end || v > INT64_MAX / unit)
		return -1;
	return (int64_t)v * unit;
}

/* Unix seconds as UTC "YYYY-MM-DD HH:MM". */
static void fmt_time(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, len, "%lld", (long long)t);
}

/* Bytes of the UTF-8 sequence at s that encodes a printable character
 * (not a C1 control, U+0080-U+009F, nor a bidirectional override or
 * isolate, U+202A-U+202E and U+2066-U+2069, which reorder what a
 * terminal shows), or 0 if it is not one: malformed, overlong, a
 * surrogate, beyond U+10FFFF. */
static int utf8_printable(const unsigned char *s)
{
	unsigned c = s[0], n, cp;
	if (c >= 0xc2 && c <= 0xdf)
		n = 1, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 2, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 3, cp = c & 0x07;
	else
		return 0;
	for (unsigned i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069))
		return 0;
	return (int)n + 1;
}

/* Print text read from the cache (which anyone who could write the file
 * chose) so that it cannot drive the terminal: printable ASCII and
 * printable UTF-8 as they are, a backslash as \\, every other byte (C0
 * and C1 controls such as ESC, DEL, bytes that are not UTF-8) as \xHH;
 * with lines, newlines and tabs are kept.  Returns the columns printed
 * (one per character), for padding. */
static size_t put_stored(FILE *out, const char *text, bool lines)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t cols = 0;
	while (*s) {
		int n;
		if (*s == '\\') {
			fputs("\\\\", out);
			cols += 2;
			s++;
		} else if ((*s >= 0x20 && *s < 0x7f) ||
		           (lines && (*s == '\n' || *s == '\t'))) {
			fputc(*s++, out);
			cols++;
		} else if (*s >= 0x80 && (n = utf8_printable(s)) > 0) {
			fwrite(s, 1, (size_t)n, out);
			s += n;
			cols++;
		} else {
			fprintf(out, "\\x%02x", *s++);
			cols += 4;
		}
	}
	return cols;
}

/* cache ls --json: one entry of "entries", its text as stored (JSON
 * escapes the controls), its times as Unix seconds. */
struct ls_json {
	FILE *out;
	size_t rows;
};

static int cache_ls_json_row(const struct cache_meta *m, void *arg)
{
	struct ls_json *j = arg;
	char hex[CACHE_KEY_HEX];
	cache_key_hex(m->key, hex);
	fputs(j->rows++ ? ",{\"key\":" : "{\"key\":", j->out);
	json_put_string(j->out, hex, sizeof hex);
	fputs(",\"algorithm\":", j->out);
	json_put_string(j->out, m->algorithm, sizeof m->algorithm);
	fprintf(j->out,
	        ",\"phases\":%u,\"bound\":%u,\"bytes\":%llu,\"created\":%lld,"
	        "\"last_used\":%lld,\"predicted_us\":",
	        m->phases, m->lb_phases, (unsigned long long)m->size,
	        (long long)m->created, (long long)m->last_used);
	json_put_number(j->out, m->predicted);
	fputc('}', j->out);
	return 0;
}

static int cache_ls_row(const struct cache_meta *m, void *arg)
{
	char hex[CACHE_KEY_HEX], used[32];
	++*(size_t *)arg; /* rows, for the summary */
	cache_key_hex(m->key, hex);
	fmt_time(m->last_used, used, sizeof used);
	printf("%-16.16s  ", hex);
	for (size_t w = put_stored(stdout, m->algorithm, false); w < 16; w++)
		putchar(' ');
	printf("  %6u  %5u  %10llu  %s\n", m->phases, m->lb_phases,
	       (unsigned long long)m->size, used);
	return 0;
}

/* cache ls --json of cache k (NULL: there is none yet) at path, to out
 * (NULL: stdout); the exit status. */
static int cache_ls_json(cache *k, const char *path, const char *out)
{
	struct cli_out o;
	if (!cli_out_begin(&o, out))
		return EXIT_INTERNAL;
	struct ls_json j = {o.f, 0};
	fputs("{\"format\":\"ccplan-cache\",\"version\":1,\"path\":", o.f);
	json_put_string(o.f, path, SIZE_MAX);
	fputs(",\"entries\":[", o.f);
	int rc = k ? cache_list(k, cache_ls_json_row, &j) : 0;
	fputs("]}\n", o.f);
	if (rc)
		fprintf(stderr, "%s cache: %s\n", cli_prog, cache_errmsg(k));
	int wrc = cli_out_end(&o, rc == 0);
	if (rc == 0 && wrc == 0)
		summary_note("%s: %zu entr%s", path, j.rows,
		             j.rows == 1 ? "y" : "ies");
	return rc ? exit_status(rc) : wrc ? EXIT_INTERNAL : EXIT_OK;
}

/* Resolve a KEY argument (a unique prefix) against the cache. */
static int cache_key_arg(cache *k, const char *arg, uint8_t *key)
{
	int rc = cache_find_prefix(k, arg, key);
	if (rc)
		fprintf(stderr, "%s cache: %s\n", cli_prog, cache_errmsg(k));
	return rc;
}

int cli_cache(int argc, char **argv)
{
	struct cli_cache_opt co = {0};
	const char *sub = NULL, *key_arg = NULL, *out = NULL;
	int64_t max_size = -1, older = -1;
	bool json = false;
	int v;
	while ((v = cli_getopt(argc, argv)) >= 0) {
		if (v == 'j') {
			json = true;
		} else if (v == 'C') {
			co.path = optarg;
		} else if (v == 'o') {
			out = optarg;
		} else if (v == 'S' && (max_size = front_parse_size(
		                                optarg, INT64_MAX)) < 0) {
			fprintf(stderr,
			        "%s cache: --max-size '%s': want bytes, e.g. "
			        "500M\n",
			        cli_prog, optarg);
			return EXIT_BADINPUT;
		} else if (v == 'O' && (older = parse_age(optarg)) < 0) {
			fprintf(stderr,
			        "%s cache: --older-than '%s': want a duration, "
			        "e.g. 30d\n",
			        cli_prog, optarg);
			return EXIT_BADINPUT;
		}
	}
	if (v != CLI_END)
		return cli_stop(v);
	if (optind < argc)
		sub = argv[optind++];
	if (optind < argc)
		key_arg = argv[optind++];
	if (optind < argc) {
		cli_unexpected("cache", argv[optind], "");
		return EXIT_BADINPUT;
	}
	/* the subcommands, in the order of the table: path ls show rm gc
	 * export */
	const char *subs[8];
	int nsubs = 0, which = -1;
	for (; cli_cache_subs[nsubs].name && nsubs < 8; nsubs++) {
		subs[nsubs] = cli_cache_subs[nsubs].name;
		if (sub && strcmp(sub, subs[nsubs]) == 0)
			which = nsubs;
	}
	const char *near =
	        sub && which < 0 ? suggest_nearest(sub, subs, (size_t)nsubs)
	                         : NULL;
	bool needs_key = which == 2 || which == 3 || which == 5;
	if (!sub)
		return cli_usage("cache", "missing COMMAND: path, ls, show, "
		                          "rm, gc or export");
	if (near) {
		fprintf(stderr,
		        "%s cache: unknown command '%s'; did you mean '%s'?\n",
		        cli_prog, sub, near);
		return EXIT_BADINPUT;
	}
	if (which < 0)
		return cli_usage("cache", "unknown command '%s'", sub);
	if (needs_key && !key_arg)
		return cli_usage("cache", "%s: missing KEY", sub);
	if (!needs_key && key_arg)
		return cli_usage("cache", "%s: unexpected argument '%s'", sub,
		                 key_arg);
	if (json && which != 1)
		return cli_usage("cache", "--json goes with ls");
	if (which == 5 ? !out : out && !(which == 1 && json))
		return cli_usage("cache", "%s",
		                 out ? "-o goes with export or ls --json"
		                     : "export: missing -o FILE");
	if (which != 4 && (max_size >= 0 || older >= 0))
		return cli_usage("cache",
		                 "--max-size and --older-than go with gc");
	char path[4096], err[512];
	if (!cli_cache_where(&co, path, sizeof path, true))
		return EXIT_BADINPUT;
	summary_note("%s", path);
	if (which == 0) {
		printf("%s\n", path);
		return EXIT_OK;
	}
	cache *k = NULL;
	bool ro = which == 1 || which == 2 || which == 5, unwritten = false;
	int rc = cache_open(path, ro ? CACHE_READONLY : 0, &k, NULL, err,
	                    sizeof err);
	if (rc == CCP_ENOTFOUND && ro) {
		if (which == 1 && json) /* no cache yet: nothing to list */
			return cache_ls_json(NULL, path, out);
		if (which == 1)
			return EXIT_OK;
		fprintf(stderr, "%s cache: %s: no cache there yet\n", cli_prog,
		        path);
		return EXIT_BADINPUT;
	}
	if (rc) {
		fprintf(stderr, "%s cache: %s: %s\n", cli_prog, path, err);
		return exit_status(rc);
	}
	uint8_t key[CACHE_KEY_SIZE];
	if (needs_key && (rc = cache_key_arg(k, key_arg, key)) != 0)
		goto out;
	if (which == 1 && json) {
		int st = cache_ls_json(k, path, out);
		cache_close(k);
		return st;
	} else if (which == 1) {
		printf("%-16s  %-16s  %6s  %5s  %10s  %s\n", "key", "algorithm",
		       "phases", "bound", "bytes", "last used (UTC)");
		size_t rows = 0;
		rc = cache_list(k, cache_ls_row, &rows);
		summary_note("%s: %zu entr%s", path, rows,
		             rows == 1 ? "y" : "ies");
	} else if (which == 2 || which == 5) {
		void *blob = NULL;
		size_t len = 0;
		struct cache_meta m;
		memset(&m, 0, sizeof m);
		rc = cache_get(k, key, &blob, &len, which == 2 ? &m : NULL);
		if (rc) {
			fprintf(stderr, "%s cache: %s\n", cli_prog,
			        cache_errmsg(k));
			goto out;
		}
		if (which == 5) {
			rc = write_atomic(out, blob, len, err, sizeof err);
			if (rc == CCP_EIO) /* exit 3, as every command's */
				unwritten = true;
			if (rc)
				fprintf(stderr, "%s: %s\n", cli_prog, err);
			else
				summary_note("%s -> %s, %zu bytes", key_arg,
				             out, len);
		} else {
			char hex[CACHE_KEY_HEX], made[32], used[32];
			cache_key_hex(m.key, hex);
			fmt_time(m.created, made, sizeof made);
			fmt_time(m.last_used, used, sizeof used);
			printf("key         %s\nalgorithm   ", hex);
			put_stored(stdout, m.algorithm, false);
			printf("\nphases      %u (lower bound %u)\nbytes       "
			       "%llu\ncreated     %s UTC\nlast used   %s UTC\n",
			       m.phases, m.lb_phases,
			       (unsigned long long)m.size, made, used);
			if (!isnan(m.predicted))
				printf("predicted   %.3f us\n", m.predicted);
			printf("\n");
			put_stored(stdout, m.canonical ? m.canonical : "", true);
		}
		free(blob);
		cache_meta_fini(&m);
	} else if (which == 3) {
		if ((rc = cache_remove(k, key)) != 0)
			fprintf(stderr, "%s cache: %s\n", cli_prog,
			        cache_errmsg(k));
		else
			summary_note("%s: removed %s", path, key_arg);
	} else {
		struct cache_gc_stats st;
		if ((rc = cache_gc(k, max_size, older, &st)) != 0)
			fprintf(stderr, "%s cache: %s\n", cli_prog,
			        cache_errmsg(k));
		else
			printf("removed %llu entries (%llu bytes), kept %llu "
			       "(%llu bytes)\n",
			       (unsigned long long)st.removed,
			       (unsigned long long)st.removed_bytes,
			       (unsigned long long)st.kept,
			       (unsigned long long)st.kept_bytes);
		if (rc == 0)
			summary_note("%s: removed %llu, kept %llu", path,
			             (unsigned long long)st.removed,
			             (unsigned long long)st.kept);
	}
out:
	cache_close(k);
	if (unwritten)
		return EXIT_INTERNAL;
	return rc == CCP_ENOTFOUND ? EXIT_BADINPUT : exit_status(rc);
}
