/*
 * tau_cmd.h - `ccplan tau`: the tau-model of thesis 001 chapter 5 on the
 * command line (fit measured latencies, draw the tau-plot).
 */
#ifndef CCP_TAU_CMD_H
#define CCP_TAU_CMD_H

#include "cli_opts.h"

/* `ccplan tau --help`, and fit and plot with their options, help texts
 * and what their values are, which cmd_tau parses with (the command
 * table's, for completion and the man page). */
extern const char tau_cmd_help[];
extern const struct option tau_cmd_opts[]; /* tau's own: --help */
extern const struct cli_sub tau_cmd_subs[];

/* `ccplan tau fit|plot ...`, called as cmd_tau(argc - 1, argv + 1): argv[0]
 * is "tau", then the subcommand and its options (getopt_long, through
 * cli_opts.h).  Prints results on stdout and problems on stderr (a usage
 * error in one line with a hint); returns the exit status (0 ok, 2 bad
 * input, 3 internal error; compile.h). */
int cmd_tau(int argc, char **argv);

#endif
