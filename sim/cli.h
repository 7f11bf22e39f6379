/* cli — the subcommands of the dpscale binary.  Each takes the arguments
 * after its name (argv[0] is the command name) and returns the exit
 * status. */
#pragma once

int dps_cmd_topo (int argc, char **argv);
int dps_cmd_collective (int argc, char **argv);
int dps_cmd_predict (int argc, char **argv);
int dps_cmd_sweep (int argc, char **argv);
int dps_cmd_calibrate (int argc, char **argv);
int dps_cmd_run (int argc, char **argv);
