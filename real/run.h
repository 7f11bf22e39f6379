/* run — drive real data-parallel training: start the replicas under
 * mpirun (dpscale-train), read what they report (worker.h), summarise it.
 * Used by `dpscale run` and `dpscale validate`. */
#pragma once

#include <glib.h>
#include "sim/model.h"
#include "sim/ddp.h"
#include "real/netemu.h"
#include "real/step-program.h"
#include "sim/strategy-kind.h"

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
  DpsStrategy strategy;           /* ddp (0) unless set */
  int         shard_group;        /* hsdp: ranks a shard group, dividing ranks (0: all) */
  int         tp;                 /* tensor parallel ranks a group (0 or 1: none): ranks / tp replicas */
  int         pp, micro;          /* pipeline stages (0 or 1: none; ranks / pp replicas) and micro-batches a step */
  gboolean    check_params;       /* the parameters' norm after the last step (real compute only) */
  const char *save_params;        /* and the parameters to this file (fp32, the model's order), or NULL */
} DpsRunSpec;

typedef struct {
  int    step, replica;
  double fwd, bwd, exposed, opt, total, loss;   /* fwd, bwd: compute alone; exposed: every wait for a collective */
  double xfwd, xbwd, xpost;                     /* of exposed: in forward, in backward, after the optimizer */
} DpsRunStep;

typedef struct {
  int    step, bucket;
  double bytes, start, dur;   /* rank 0's start (from its step start) and duration */
  double sync;                /* from the last replica's arrival to the last finish */
} DpsRunBucket;

/* A collective of the sharded strategies (a unit's all-gather,
 * reduce-scatter, shard all-reduce; worker.h's "coll" line), timed as a
 * bucket's */
typedef struct {
  int       step, unit, micro;
  DpsStepColl kind;
  double    bytes, start, dur, sync;
} DpsRunColl;

typedef struct {
  GArray *steps;          /* DpsRunStep */
  GArray *buckets;        /* DpsRunBucket, per step and bucket */
  GArray *colls;          /* DpsRunColl, per step in the order run */
  char   *strategy;       /* as the replicas ran it ("ddp", "fsdp"...) */
  int     shards, n_units;   /* ranks a shard group, wrapped units */
  gboolean has_params;    /* check_params: the parameters after the last step */
  gint64  params_count;
  double  params_l2, params_sum;
  guint64 params_hash;    /* of their bits, in the model's order */
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

typedef enum {
  DPS_RUN_STEP, DPS_RUN_COMPUTE, DPS_RUN_EXPOSED, DPS_RUN_OPTIMIZER,
  DPS_RUN_EXPOSED_FORWARD, DPS_RUN_EXPOSED_BACKWARD, DPS_RUN_EXPOSED_AFTER_OPTIMIZER
} DpsRunField;

gboolean dps_run_execute (const DpsRunSpec *spec, const DpsModel *model, DpsRunResult *out, GError **error);
/* the GPUs the GPU replica can use here: their count, or 0 and why (this
 * build has no GPU replica, or the machine no GPU) */
int      dps_run_gpus (GError **error);
/* HSDP's shard group of ranks over nodes: given (> 0), else one (emulated)
 * node's ranks, else all of them. */
int      dps_run_shard_group (int given, int ranks, int nodes);
void     dps_run_result_clear (DpsRunResult *r);
double   dps_run_quantile (const DpsRunResult *r, int warmup, DpsRunField field, double q);
double   dps_run_bucket_Bps (const DpsRunResult *r, int warmup);
/* bucket b's median all-reduce time after warm-up (DpsRunBucket.sync), s */
double   dps_run_bucket_median (const DpsRunResult *r, int warmup, int b);
/* the median over the steps from warmup on of a step's collectives of
 * kind (their DpsRunColl.sync summed), and in *bytes their bytes a step
 * (nccl-tests' size); 0 and 0 bytes when there is none */
double   dps_run_coll_step (const DpsRunResult *r, int warmup, DpsStepColl kind, double *bytes);
/* the median after warm-up of unit's collectives of kind (DpsRunColl.sync), s; -1 when none */
double   dps_run_coll_median (const DpsRunResult *r, int warmup, DpsStepColl kind, int unit);
GString *dps_run_csv (const DpsRunResult *r, int batch);
gboolean dps_run_write_trace (const DpsRunResult *r, int step, const char *path, GError **error);
