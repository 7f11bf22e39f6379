/* calibrate-run — the calibration workflows: measure this machine (CPU
 * cores through MPI and OpenBLAS, or GPUs through NCCL and cuBLAS), or
 * import nccl-tests logs, and return a fitted profile.  `dpscale
 * calibrate` and `dpscale validate` call them with plain values; what they
 * print, plot and write is theirs.
 *
 * Every workflow holds out every other size, fits the per-group rings
 * (fit.h) and, where 2+ ranks were measured, the joint network fit
 * (netfit.h; one that the measurements cannot carry is a warning: the
 * per-group fits still serve).  Errors name the quantity ("emulated nodes:
 * ...", "imported log: ..."), never a flag. */
#pragma once

#include "calibrate/profile.h"
#include "calibrate/cpu-calibrate.h"

typedef struct {
  const int    *ranks;         /* rank (GPU) counts to measure the collectives at */
  guint         ops;           /* the collectives to measure: bits 1 << DpsCollOp of DPS_CAL_OPS
                                * (0: all-reduce alone) */
  int           n_ranks;
  const double *sizes;         /* message sizes, bytes */
  int           n_sizes;
  gboolean      quick;         /* fewer repetitions, shorter timings (CI) */
  const DpsModel *model;       /* whose per-layer times to measure (NULL: none; CPU) */
  int           batch;
  double        timeout_s;     /* each mpirun's limit */
  int           nodes;         /* CPU: the same counts across this many emulated nodes too (0, 2..64) */
  double        link_gbps;     /* their links, Gbit/s each way */
  double        gap_s;         /* CPU: all-reduces each after this long without communication; < 0 one step of model */
  gboolean      gap_emulated;  /* that gap waited as emulated layers wait */
  gboolean      use_mpi;       /* GPU: one process per GPU under mpirun */
  gboolean      gloo;          /* CPU: the collectives through torch.distributed's gloo (as PyTorch's DDP
                                * calls them on CPUs), not MPI */
  DpsProgressFn progress;      /* one line per stage (NULL: quiet) */
  DpsProgressFn warn;          /* warnings (NULL: dropped) */
  void         *pdata;
} DpsCalibrateSpec;

/* `dpscale calibrate` on CPUs: per-layer times of model on one rank,
 * all-reduce at each count (and over emulated nodes), the fits, OpenBLAS
 * GEMMs, contention, and the layers with every count computing at once. */
DpsProfile *dps_calibrate_cpu (const DpsCalibrateSpec *s, GError **error);
/* `dpscale calibrate` on GPUs: NCCL all-reduce, the fits, cuBLAS GEMMs of
 * every type, and model's bf16 per-layer times on one GPU. */
DpsProfile *dps_calibrate_gpu (const DpsCalibrateSpec *s, GError **error);
/* `dpscale validate --backend gpu`: NCCL all-reduce at each count of 2 or
 * more (one process per GPU under mpirun, as the replicas run), the fits,
 * GEMMs, and the GPU replica's own fp32 per-layer times of model (timed by
 * dpscale-train-gpu --time-layers): the compute the replicas will run. */
DpsProfile *dps_calibrate_gpu_runner (const DpsCalibrateSpec *s, GError **error);
/* nccl-tests logs of one cluster (topology: its shipped name or file;
 * NULL dgx-h100): a log given twice, or a copy of another, is refused;
 * hosts that are trays of an NVLink domain fill whole domains; warnings
 * (a missing footer) go to s->warn. */
DpsProfile *dps_calibrate_import (char **logs, const char *topology, const DpsCalibrateSpec *s, GError **error);
