/* ddp — one synchronised step of PyTorch DistributedDataParallel training,
 * simulated on the event engine.
 *
 * Each replica runs forward over the layers, then backward in reverse; a
 * layer's gradients are ready when its backward ends, and a bucket when its
 * last tensor is (buckets.h).  A bucket's all-reduce is launched when it is
 * ready on every replica and every lower-numbered bucket has been launched;
 * the collectives of the group run one after another (one NCCL
 * communicator, one stream); one launched while the stream is idle starts
 * launch_s later (a communication thread woken, as CPU runners have), or
 * while backward computes launch_busy_s later (the thread waiting for a
 * core), at the latest when backward ends.  The
 * optimizer runs after the last all-reduce ends and the step lasts until
 * the slowest replica is done.
 *
 * Options model what users change: the bucket caps, the gradient type and
 * compression (fp16 halves the bytes; PowerSGD of rank R reduces each
 * rows x cols matrix to (rows + cols) x R values), gradient accumulation
 * (K-1 no_sync micro-steps without communication, then one synchronised),
 * no overlap (all-reduces after backward), find_unused_parameters (a usage
 * bitmap all-reduced after the buckets), a contention factor by which
 * compute and communication slow each other while they overlap, and
 * stragglers: per-layer compute jitter (coefficient of variation), slow
 * replicas, OS noise (an exponential delay per replica and step).  Monte
 * Carlo over seeded trials gives the mean and a 90% interval; the same seed
 * gives the same answer.
 */
#pragma once

#include "sim/model.h"
#include "sim/topo.h"
#include "sim/coll.h"
#include "sim/compute.h"
#include "sim/memory.h"
#include "sim/sched.h"
#include "sim/strategy-kind.h"
#include "sim/layout.h"

typedef enum { DPS_COMPRESS_NONE, DPS_COMPRESS_FP16, DPS_COMPRESS_POWERSGD } DpsCompress;

/* The spread of compute speed among GPUs of one model in one cluster, as
 * sd / mean: Sinha et al., "Not All GPUs Are Created Equal", SC22
 * (arXiv:2208.11035), measured over 90% of the GPUs of five clusters (V100
 * and MI60) an average performance variation of 8% between GPUs of the same
 * SKU running the same kernel (power management and manufacturing).  Read
 * as the span of their box plots' whiskers (1.5 interquartile ranges beyond
 * the quartiles: 5.4 sd of a normal; the abstract gives only the 8%), that
 * is 8% / 5.4 = 1.5%; read as the full range over thousands of GPUs (about
 * 7 sd) it would be 1.1%.  Persistent (the same GPU is slow at every
 * step), so heavy gradient accumulation does not average it away.  Not
 * fitted (tests/reference/ddp/README.md, "Which targets are met"). */
#define DPS_DDP_GPU_SPREAD_CV 0.015

typedef struct {
  const DpsModel *model;
  const DpsTopo  *topo;
  int             n_gpus;
  DpsCollParams   coll;
  guint           algo_mask, proto_mask;
  DpsNetMode      mode;
  DpsComputeParams compute;
  double          batch;               /* per replica (weak scaling) */
  double          global_batch;        /* > 0: strong scaling, split across replicas */
  double          bucket_cap_bytes, first_bucket_bytes;
  DpsDtype        grad_dtype;
  DpsCompress     compress;
  int             powersgd_rank;
  int             grad_accum;
  gboolean        no_overlap, find_unused, grad_as_bucket_view;
  gboolean        fp8_all_gather;      /* FSDP/HSDP gather the parameters in FP8 (torchao's
                                        * enable_fsdp_float8_all_gather): a byte a parameter, used by the
                                        * FP8 GEMMs as gathered; needs compute.fp8 */
  gboolean        reducer_copies;      /* PyTorch's Reducer on a device dpscale has no figures for (CPU
                                        * cores: validate --torch): its bucket copies and hooks, as on a
                                        * GPU, also at one replica; dpscale's own CPU runner reduces in
                                        * place (FALSE) */
  DpsPrecision    precision;           /* how parameters and states are held (memory.h); AMP: torch.autocast */
  DpsStrategy     strategy;            /* DDP, ZeRO-1, ZeRO-2/SHARD_GRAD_OP, FSDP/FULL_SHARD, HSDP */
  int             shard_group;         /* HSDP: ranks a shard group; 0: one node's GPUs */
  DpsFsdpUnit     fsdp_unit;
  gboolean        reshard_after_forward;   /* FULL_SHARD's (FALSE: FSDP2's reshard_after_forward=False) */
  int             limit_all_gathers;   /* units gathered ahead at most (2); 0: no rate limiter */
  gboolean        accum_no_sync;       /* zero2, fsdp, hsdp: micro-steps before the last reduce nothing and
                                        * accumulate unsharded gradients (FSDP's no_sync(), FSDP2's
                                        * set_requires_gradient_sync(False)); strategy.h */
  DpsOffload      offload;             /* zero2, fsdp, hsdp: what lives in host memory (strategy-kind.h) */
  DpsPrefetch     backward_prefetch;
  int             tp, pp, vpp;         /* tensor and pipeline parallel degrees, virtual stages; 1: none */
  DpsRankOrder    rank_order;          /* where their ranks sit (layout.h; default Megatron's, tp-dp-pp) */
  int             micro_batches;       /* pipeline micro-batches a step; 0: grad_accum, at least 4 pp */
  gboolean        sequence_parallel;   /* Megatron's: norms and dropout split along the sequence */
  gboolean        tp_comm_overlap;     /* with sequence_parallel: a piece's tensor-parallel collectives run
                                        * beside it (Megatron-Core's --tp-comm-overlap; strategy.h) */
  gboolean        overlap_param_gather;   /* zero1 with tp/pp: each layer's forward waits for its own gather
                                           * (Megatron-Core's --overlap-param-gather), not for the stage's */
  DpsPipeSchedule pipe_schedule;
  gboolean        pp_end_slots;        /* the embedding and the output layer each take a block's place in the
                                        * split over stages (DeepSpeed's type:transformer|embedding) */
  gboolean        flash_attention;     /* SDPA/flash attention: no score matrices kept (memory) */
  DpsFusedKernel  attention_kernel;    /* with flash_attention: FlashAttention-2 or cuDNN's (compute.h) */
  gboolean        checkpoint;          /* activation checkpointing of every block: inputs kept, each
                                        * block's forward run again in backward */
  DpsOptimizer    optimizer;
  double          contention;          /* 0: none; 0.2: compute (and comm) 20% slower while overlapping;
                                        * < 0 (the default): the device's (dps_ddp_default_contention) */
  double          contention_comm;     /* the communication's own slowdown; < 0: the same as contention */
  double          optimizer_s;         /* > 0: the optimizer step's time, as given (an emulator's wait) */
  double          launch_s;            /* a collective launched while none runs starts this much later
                                        * (handing it to an idle communication thread and back) */
  double          launch_busy_s;       /* ... or, launched while backward computes, this much later
                                        * (waiting for a core the compute holds), at the latest when
                                        * backward ends */
  double          jitter_cv;
  int             slow_replicas;
  double          slow_factor;
  double          os_noise_s;          /* mean of an exponential delay per replica and step */
  double          comm_cv;             /* uncertainty of collective times: one factor N(1, cv) per trial */
  double          compute_cv;          /* variation of a replica's step compute: one factor N(1, cv) per
                                        * replica and trial (all its layers) */
  double          gpu_spread_cv;       /* GPU-to-GPU spread of compute speed (sd / mean) among GPUs of
                                        * one model: the step waits for the slowest replica, on average
                                        * 1 + cv E[max of N normals] slower than the mean one (without
                                        * randomness; with it, one more factor N(1, cv) per replica and
                                        * trial); default DPS_DDP_GPU_SPREAD_CV, 0 none */
  int             trials;
  gboolean        long_ok;             /* trials past DPS_DDP_WORK_LIMIT_S run (--yes); else refused */
  guint64         seed;
  double          loader_samples_per_s;  /* per node; 0: unlimited */
  double          critical_batch, steps_to_target;
  double          price_per_gpu_hour;
  int             trace_replicas;      /* replicas drawn in the trace */
  char            compute_note[512];   /* where the layer times came from, for the report ("" none) */
} DpsDdpConfig;

/* Trials whose time, extrapolated from the first, passes this are refused
 * unless the config says long_ok: a mistyped --trials is not a day's run. */
#define DPS_DDP_WORK_LIMIT_S 60.0

/* One kind of collective of a step (all-reduce, all-gather,
 * reduce-scatter on a group), as run. */
typedef struct {
  char    name[48];
  double  count;                       /* run per step */
  double  time_s;                      /* their time, summed */
  double  exposed_s;                   /* the critical rank's compute idle waiting for them */
} DpsDdpCommStats;

typedef struct {
  int     replicas, n_buckets;
  DpsStrategy strategy;
  DpsOffload  offload;                 /* what it keeps in host memory (memory.host) */
  gboolean    host_fits;               /* the host's GPUs' offloaded state fits its memory (or it is not
                                        * stated); fits needs it */
  int     shards;                      /* ranks a shard group (1: nothing sharded) */
  int     n_units;                     /* FSDP's wrapped units (the root aside) */
  int     tp, pp, vpp, dp, micro_batches;   /* the layout a pipeline ran */
  int     n_comms;
  DpsDdpCommStats comms[DPS_SCHED_MAX_COMMS];
  double  batch_per_replica, global_batch;
  double  step_mean_s, step_p5_s, step_p95_s;
  double  compute_s, straggler_s, exposed_comm_s, optimizer_s, comm_total_s, loader_bound_s;
  double  contention;                  /* the slowdown of compute while all-reduces overlap it */
  double  contention_s;                /* what it added to backward (part of compute_s) */
  /* DDP's own costs per step (dps_ddp_fixed_costs), 0 at one replica:
   * its bucket copies' HBM traffic (in backward: part of compute_s; out
   * after the all-reduce: part of step_mean_s), the dispatch floor of the
   * per-tensor kernels its hooks launch beyond that, and the optimizer's
   * launches beyond its bytes (part of optimizer_s, at any replica count) */
  double  bucket_copy_s, hooks_s, opt_launch_s;
  double  copy_out_s;                  /* of bucket_copy_s + hooks_s: after the all-reduce */
  double  overlap;                     /* share of communication hidden behind backward */
  double  single_step_s;               /* one replica, same per-replica batch */
  double  efficiency;
  double  samples_per_s, tokens_per_s;
  DpsMemory memory;
  gboolean fits;
  double  comm_bytes;                  /* sent by collectives per step and rank (nccl-tests' sizes) */
  int     algo_count[DPS_ALGO_COUNT], proto_count[DPS_PROTO_COUNT];
  double  cost_per_step, cost_per_msample;
  double  steps_to_target, time_to_target_s, cost_to_target;
  char    peak_task[160];              /* the task at which memory peaks (its label) */
  double  peak_at_s;                   /* ... and when in the step */
  /* the trial closest to the mean step as the schedule ran it; NULL
   * unless trace_replicas > 0 */
  DpsSched      *sched;
  DpsSchedRank  *trace_ranks;
  int            trace_n_ranks;
  DpsSchedResult trace_run;
} DpsDdpResult;

void     dps_ddp_config_default (DpsDdpConfig *c);
double   dps_ddp_default_contention (const DpsDdpConfig *c, double batch);
/* Whether c's accum_no_sync acts: micro-steps to accumulate over, a
 * strategy that shards gradients, no tensor or pipeline parallelism */
gboolean dps_ddp_no_sync_acts (const DpsDdpConfig *c);
/* The micro-steps a replica runs a step: under tensor or pipeline
 * parallelism the micro-batches (micro_batches where set, else grad_accum,
 * at least 4 a stage with pipeline stages), else grad_accum. */
int      dps_ddp_micro_steps (const DpsDdpConfig *c);
void     dps_ddp_fixed_costs (const DpsDdpConfig *c, double opt_s, double *bwd_extra_s, DpsDdpResult *out);
void     dps_ddp_compute_times (const DpsDdpConfig *c, double batch, double *fwd_s, double *bwd_s, double *opt_s);
gboolean dps_ddp_simulate (const DpsDdpConfig *c, DpsDdpResult *out, GError **error);
/* FALSE (error: the offload field's) where c offloads to a host whose
 * topology states no memory bandwidth ([host] memory_GBps). */
gboolean dps_ddp_offload_ready (const DpsDdpConfig *c, GError **error);
void     dps_ddp_result_clear (DpsDdpResult *r);
gboolean dps_ddp_write_trace (const DpsDdpResult *r, const char *path, GError **error);
