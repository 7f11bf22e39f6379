/* cli — the subcommands of the dpscale binary.  Each takes the arguments
 * after its name (argv[0] is the command name) and returns the exit
 * status. */
#pragma once

#include "calibrate/profile.h"

int dps_cmd_topo (int argc, char **argv);
int dps_cmd_collective (int argc, char **argv);
int dps_cmd_predict (int argc, char **argv);
int dps_cmd_sweep (int argc, char **argv);
int dps_cmd_advise (int argc, char **argv);
int dps_cmd_calibrate (int argc, char **argv);
int dps_cmd_run (int argc, char **argv);
int dps_cmd_validate (int argc, char **argv);
int dps_cmd_plot (int argc, char **argv);

#include "sim/app/cli-util.h"
#include "sim/coll.h"
int dps_cmd_collective_compare (char **files, const char *topology, const DpsProfile *profile, DpsNetMode mode,
                                DpsFormat format, const char *output, const char *plot_path);
