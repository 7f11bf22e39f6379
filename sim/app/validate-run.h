/* validate-run — the validation workflow behind `dpscale validate`: a
 * spec in (plain values), points and files out.  For each replica count a
 * real data-parallel run (CPU replicas over MPI and OpenBLAS, GPU replicas
 * over NCCL and cuBLAS, or emulated compute with real all-reduces) and the
 * simulator's prediction from the calibration profile alone (never from
 * step times of the run); the score.  The command parses, calls this and
 * prints the table, the CSV and the plots. */
#pragma once

#include "sim/strategy-kind.h"

#include "calibrate/profile.h"
#include "calibrate/cpu-calibrate.h"
#include "sim/validation.h"

typedef struct {
  gboolean    gpu;            /* GPU replicas (else CPU) */
  gboolean    emulate;        /* emulated compute (waits), real all-reduces */
  gboolean    quick;          /* a short calibration */
  const int  *replicas;       /* replica counts, in order */
  int         n_replicas;
  int         batch, steps, warmup, trials, grad_accum;
  int         global_batch;   /* > 0: strong scaling, split across replicas and micro-steps */
  int         nodes;          /* > 1: every count over this many emulated nodes */
  double      link_gbps;      /* their links, Gbit/s each way */
  double      cap_mb, first_mb, timeout_s, jitter;
  const char *topology;       /* emulation: the device whose roofline the waits take where the profile has none */
  const char *prefix;         /* files: PREFIX.calib, PREFIX-measured-trace.json, PREFIX-predicted-trace.json */
  DpsStrategy strategy;       /* data parallelism the runs train with and the predictions take (ddp: 0) */
  int         shard_group;    /* hsdp: ranks a shard group (0: one emulated node's, else all) */
  int         tp;             /* > 1: tensor-parallel groups of tp ranks (real/tensor-parallel.h); the
                               * counts are ranks, the replicas count / tp */
  int         pp, micro;      /* > 1: pipelines of pp stages over micro micro-batches (real/pipeline-step.h);
                               * the counts are ranks, the replicas count / pp */
  const char *torch_script;   /* the runs: this PyTorch DDP job (real/torch-run.h) over gloo, not dpscale's
                               * trainer; the calibration times gloo's collectives (NULL: dpscale's) */
  DpsProgressFn progress;     /* a line per stage (NULL: quiet) */
  void       *pdata;
} DpsValidateSpec;

typedef struct {
  DpsValidationPoint v;
  double meas_compute_s, meas_exposed_s, meas_opt_s;
  double pred_compute_s, pred_exposed_s, pred_opt_s, pred_straggler_s;
  char  *error;               /* why this count failed (v.ok FALSE), or NULL */
} DpsValidateRow;

typedef struct {
  DpsValidateRow    *rows;     /* one per replica count */
  int                n;
  DpsValidationScore score;
  double             comm_cv;  /* collective-time uncertainty used: fit_err and spread in quadrature */
  double             fit_err, spread, compute_cv;
  double             busy_wait_s;   /* the communication thread's wait for a core, calibrated */
  GString           *timeline;      /* one step, predicted and measured (plots/timeline.gp's CSV) */
  /* the machine's own noise: the largest count run again after the others,
   * its step median then and now (0: not measured) and how far apart */
  double             noise_first_s, noise_again_s, noise_pct;
} DpsValidateResult;

/* Calibrates for s: all-reduce at every count of 2 or more (2 when none),
 * up to twice the largest bucket of model, compute, no step times; writes
 * PREFIX.calib. */
DpsProfile *dps_validate_calibrate (const DpsValidateSpec *s, const DpsModel *model, GError **error);
/* Runs and predicts every count; a count that fails is a row with its
 * error.  FALSE only when nothing could start (the emulated nodes, the
 * waits). */
gboolean    dps_validate_run (const DpsValidateSpec *s, DpsModel *model, const DpsProfile *profile,
                              DpsValidateResult *out, GError **error);
void        dps_validate_result_clear (DpsValidateResult *r);
