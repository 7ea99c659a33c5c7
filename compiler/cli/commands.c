/*
 * commands.c - the table of ccplan's commands: name, handler, synopsis,
 * one-line summary and options.  Dispatch, `ccplan --help`, `ccplan help
 * COMMAND`, "did you mean" for commands, the bash completion (through
 * `ccplan --list-commands`) and the test that the man page lists every
 * command and option all read it, so a command added here is added
 * everywhere.
 */
#include <string.h>

#include "cli.h"
#include "tau_cmd.h"

static const struct option no_opts[] = {{0}};

const struct cli_command cli_commands[] = {
        {
                .name = "compile",
                .args = cli_compile_args,
                .run = cli_compile,
                .usage = "compile IN.yaml [-o OUT.ccp]",
                .summary = "build, verify and write a plan",
                .opts = cli_compile_opts,
                .shorts = "o:vh",
                .help = cli_compile_help,
        },
        {
                .name = "explain",
                .args = cli_explain_args,
                .run = cli_explain,
                .usage = "explain FILE",
                .summary = "show a plan (.ccp or .yaml) phase by phase",
                .opts = cli_explain_opts,
                .shorts = "o:h",
                .help = cli_explain_help,
        },
        {
                .name = "verify",
                .args = cli_plan_args,
                .run = cli_verify,
                .usage = "verify FILE.ccp",
                .summary = "check a plan file again, from scratch",
                .opts = cli_verify_opts,
                .shorts = "h",
                .help = cli_verify_help,
        },
        {
                .name = "export",
                .args = cli_plan_args,
                .run = cli_export,
                .usage = "export --json FILE [-o OUT]",
                .summary = "write a plan as JSON",
                .opts = cli_export_opts,
                .shorts = "o:h",
                .help = cli_export_help,
        },
        {
                .name = "show",
                .args = cli_plan_args,
                .run = cli_show,
                .usage = "show FILE [--phase K] [--text]",
                .summary = "draw a plan's phases on its machine (SVG, text)",
                .opts = cli_show_opts,
                .shorts = "o:h",
                .help = cli_show_help,
        },
        {
                .name = "compare",
                .args = cli_compare_args,
                .run = cli_compare,
                .usage = "compare IN.yaml [--model]",
                .summary = "rank every algorithm that applies",
                .opts = cli_compare_opts,
                .shorts = "o:h",
                .help = cli_compare_help,
        },
        {
                .name = "simulate",
                .args = cli_simulate_args,
                .run = cli_simulate,
                .usage = "simulate FILE [--barriers]",
                .summary = "run a plan through the network simulator",
                .opts = cli_simulate_opts,
                .shorts = "o:h",
                .help = cli_simulate_help,
        },
        {
                .name = "cache",
                .args = cli_cache_args,
                .run = cli_cache,
                .usage = "cache ls|show|rm|gc|path|export",
                .summary = "look after the plan cache",
                .opts = cli_cache_opts,
                .shorts = "o:h",
                .help = cli_cache_help,
                .subs = cli_cache_subs,
        },
        {
                .name = "scan",
                .args = cli_scan_args,
                .run = cli_scan,
                .usage = "scan FILE.c... [--emit c]",
                .summary = "find the plans C sources ask for; cache or emit them",
                .opts = cli_scan_opts,
                .shorts = "o:vh",
                .help = cli_scan_help,
        },
        {
                .name = "tau",
                .run = cmd_tau,
                .usage = "tau fit|plot ...",
                .summary = "the tau-model: fit Ts, Tn; draw the tau-plot",
                .opts = tau_cmd_opts,
                .shorts = "h",
                .help = tau_cmd_help,
                .subs = tau_cmd_subs,
        },
        {
                .name = "import",
                .args = cli_import_args,
                .run = cli_import,
                .usage = "import slurm TOPOLOGY.conf [-o OUT]",
                .summary = "write a machine from Slurm's topology.conf",
                .opts = cli_import_opts,
                .shorts = "o:h",
                .help = cli_import_help,
                .subs = cli_import_subs,
        },
        {
                .name = "place",
                .args = cli_place_args,
                .run = cli_place,
                .usage = "place IN.yaml [-o OUT] [--format F]",
                .summary = "find where each rank should sit; write the "
                           "placement",
                .opts = cli_place_opts,
                .shorts = "o:h",
                .help = cli_place_help,
        },
        {
                .name = "run",
                .args = cli_run_args,
                .run = cli_run,
                .usage = "run -n N PROGRAM [ARGS]",
                .summary = "start N ranks of a sockets job",
                .opts = cli_run_opts,
                .shorts = "+n:H:vh", /* options end at PROGRAM */
                .help = cli_run_help,
        },
        {
                .name = "help",
                .run = cli_help,
                .usage = "help TOPIC|COMMAND|ALGORITHM",
                .summary = "a short reference: input-format, plan-format, "
                           "algorithms, presets, environment, exit-status",
                .opts = no_opts,
                .shorts = "",
        },
        {0},
};

const struct cli_command *cli_find(const char *name)
{
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}
