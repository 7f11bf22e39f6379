/* run — drive real data-parallel training: start the replicas under
 * mpirun (dpscale-train), read what they report, summarise it.  Used by
 * `dpscale run` and `dpscale validate`. */
#pragma once

#include <glib.h>
#include "sim/model.h"
#include "sim/ddp.h"
#include "real/netemu.h"

typedef struct {
  int         ranks, steps, batch, seed;
  int         grad_accum;         /* micro-steps per step (0 or 1: none) */
  double      bucket_cap_mb, first_bucket_mb, lr;
  const char *optimizer;          /* "sgd" or "adam" */
  gboolean    check_gradient;
  gboolean    time_layers;        /* only time the model's layers on one replica's device (no training) */
  gboolean    gpu;                /* the GPU replica (dpscale-train-gpu): CUDA compute, NCCL */
  gboolean    emulate;            /* waits of emu_fwd/emu_bwd seconds per layer instead of compute */
  const double *emu_fwd_s, *emu_bwd_s;
  double      emu_opt_s;
  double      timeout_s;
  gboolean    quiet;              /* no progress line on stderr */
  const DpsNetEmu *net;           /* emulated nodes to spread the ranks over, or NULL */
} DpsRunSpec;

typedef struct {
  int    step, replica;
  double fwd, bwd, exposed, opt, total, loss;
} DpsRunStep;

typedef struct {
  int    step, bucket;
  double bytes, start, dur;   /* rank 0's start (from its step start) and duration */
  double sync;                /* from the last replica's arrival to the last finish */
} DpsRunBucket;

typedef struct {
  GArray *steps;          /* DpsRunStep */
  GArray *buckets;        /* DpsRunBucket, per step and bucket */
  GArray *bucket_sizes;   /* double, bytes */
  char   *library;
  double  gradcheck;      /* < 0: not checked */
  double  wait_req_s, wait_got_s;
  /* time_layers: the "layers" line (train-net.h): per-layer forward
   * seconds [0, L), backward [L, 2L), the SGD step's at 2L and the
   * run-to-run variation of a step's compute at 2L + 1 (n_layers 0: none) */
  int     n_layers;
  double *layer_s;
} DpsRunResult;

typedef enum { DPS_RUN_STEP, DPS_RUN_COMPUTE, DPS_RUN_EXPOSED, DPS_RUN_OPTIMIZER } DpsRunField;

gboolean dps_run_execute (const DpsRunSpec *spec, const DpsModel *model, DpsRunResult *out, GError **error);
/* the GPUs the GPU replica can use here: their count, or 0 and why (this
 * build has no GPU replica, or the machine no GPU) */
int      dps_run_gpus (GError **error);
void     dps_run_result_clear (DpsRunResult *r);
double   dps_run_quantile (const DpsRunResult *r, int warmup, DpsRunField field, double q);
double   dps_run_bucket_Bps (const DpsRunResult *r, int warmup);
/* bucket b's median all-reduce time after warm-up (DpsRunBucket.sync), s */
double   dps_run_bucket_median (const DpsRunResult *r, int warmup, int b);
GString *dps_run_csv (const DpsRunResult *r, int batch);
gboolean dps_run_write_trace (const DpsRunResult *r, int step, const char *path, GError **error);
