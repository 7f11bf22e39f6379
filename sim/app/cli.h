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

/* gap_s: all-reduces timed each after this long without communication (as
 * DDP issues them once a step); 0 back to back; < 0 one step of model's
 * compute, measured first */
DpsProfile *dps_calibrate_cpu (const int *ranks, int n_ranks, const double *sizes, int n_sizes, gboolean quick,
                               const DpsModel *model, int batch, double timeout, int nodes, double link_gbps,
                               double gap_s, gboolean gap_emulated, GError **error);
/* the GPU replicas' calibration (`dpscale validate --backend gpu`): NCCL
 * all-reduce at ranks (one process per GPU), GEMMs, and the GPU replica's
 * own layer times of model on one GPU */
DpsProfile *dps_calibrate_gpu_runner (const int *ranks, int n_ranks, const double *sizes, int n_sizes, gboolean quick,
                                      const DpsModel *model, int batch, double timeout, GError **error);

#include "sim/app/cli-util.h"
#include "sim/coll.h"
int dps_cmd_collective_compare (char **files, const char *topology, const DpsProfile *profile, DpsNetMode mode,
                                DpsFormat format, const char *output, const char *plot_path);
