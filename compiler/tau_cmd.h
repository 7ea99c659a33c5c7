/*
 * tau_cmd.h - `ccplan tau`: the tau-model of thesis 001 chapter 5 on the
 * command line (fit measured latencies, draw the tau-plot).
 */
#ifndef CCP_TAU_CMD_H
#define CCP_TAU_CMD_H

/* `ccplan tau fit|plot ...`, called as cmd_tau(argc - 1, argv + 1): argv[0]
 * is "tau" and argv[1] the subcommand.  Prints results on stdout and
 * problems on stderr; returns the exit status (0 ok, 2 bad input, 3
 * internal error; compile.h). */
int cmd_tau(int argc, char **argv);

#endif
