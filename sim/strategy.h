/* strategy — the builders of a training step's schedule (sched.h), one
 * file each: a strategy emits tasks, the schedule runs them.
 *
 * How a strategy is written (DDP, strategy-ddp.c, is the worked example):
 *   1. roles: one for each kind of rank doing different work (DDP: one,
 *      "replica"; a pipeline: one a stage), with the bytes its ranks hold
 *      through the whole step (parameters, gradients, optimizer state,
 *      DDP's buckets);
 *   2. streams: a role's compute stream, and one communication stream for
 *      each process group its ranks belong to (a group slot; the run maps
 *      each rank's slot to a group instance);
 *   3. comm kinds: each collective's cost (the collective model of the
 *      group's GPUs, coll-cost.h) and the contention of its kernels;
 *   4. tasks, in each stream's order: compute with its nominal seconds,
 *      collectives with their bytes, what each waits for beyond its
 *      stream's order, and the memory it allocates and frees.
 * The driver (ddp.c) times the layers, chooses the ranks of each trial
 * (speeds, weights, groups) and reads the step's breakdown from the run.
 * A new strategy is a new file and a new builder here, not a new engine. */
#pragma once

#include "sim/model.h"
#include "sim/sched.h"
#include "sim/strategy-kind.h"

/* PyTorch DDP's step: micro-steps of forward and backward, the last one's
 * bucket all-reduces on the data-parallel group as their gradients are
 * ready (buckets.h), DDP's copies, then the optimizer; for ZeRO-1 the
 * optimizer on this rank's shard, then its updates all-gathered. */
typedef struct {
  const DpsModel *model;
  int            grad_accum;       /* micro-steps; the last synchronises */
  const double  *fwd_s, *bwd_s;    /* per layer, nominal seconds */
  const double  *recompute_s;      /* per layer: the forward run again before its backward (0: not checkpointed) */
  const double  *copy_s;           /* per layer: DDP's hook kernels after its backward, last micro-step */
  double         copy_out_s;       /* DDP's copies back after the last all-reduce */
  double         optimizer_s;
  const double  *act_bytes;        /* per layer: activations its forward saves (recomputed: all of them) */
  const double  *kept_bytes;       /* per layer: what a checkpointed layer keeps from forward (its input) */
  const double  *hold_bytes;       /* per layer: held while its backward runs (a loss's gradients; NULL: none) */
  double         static_bytes;     /* parameters, gradients, buckets, optimizer state */
  int            n_buckets;
  const int     *bucket_layer;     /* the layer whose backward readies it */
  const double  *bucket_bytes;
  gboolean       no_overlap;       /* all-reduces only after backward */
  double         unused_bitmap_bytes;   /* > 0: find_unused_parameters' all-reduce after the buckets */
  DpsSchedComm   allreduce;        /* the data-parallel group's all-reduce */
  int            n_param_gathers;  /* ZeRO-1: the updated parameters all-gathered after the optimizer */
  const double  *param_gather_bytes;
  DpsSchedComm   allgather;
} DpsDdpStep;

#define DPS_DDP_GROUP_SLOT 0       /* the data-parallel group of a DDP rank */

DpsSched *dps_strategy_ddp (const DpsDdpStep *in);

/* Sharded data parallelism's step (strategy-fsdp.c): FSDP's FULL_SHARD
 * (reshard_after_forward) and SHARD_GRAD_OP, each wrapped unit's
 * parameters all-gathered on the shard group before its forward (and
 * again before its backward when resharded), its gradients
 * reduce-scattered after its backward and, for HSDP, the shard then
 * all-reduced across the replicate group; the optimizer on the shard. */
typedef struct {
  const DpsModel *model;
  int            grad_accum;       /* micro-steps, each reducing its gradients (FSDP without no_sync) */
  gboolean       accum_no_sync;    /* only the last micro-step reduces: the ones before keep each unit's
                                    * unsharded gradients in the reduction's type (unit_reduce_bytes, FSDP2's
                                    * upcast to reduce_dtype) from their first backward to the last
                                    * micro-step's reduce-scatter, and add theirs to them */
  const double  *fwd_s, *bwd_s, *recompute_s, *act_bytes, *kept_bytes, *hold_bytes;   /* per layer, as DpsDdpStep's */
  double         optimizer_s;      /* the optimizer on this rank's shard */
  double         static_bytes;     /* this rank's shards of parameters, gradients, optimizer state */
  int            n_units;
  const int     *unit_of_layer;    /* per layer: its unit, or -1: the root (gathered through the whole micro-step) */
  const double  *unit_gather_bytes;   /* per unit and the root last (n_units + 1): the whole unit as gathered */
  const double  *unit_reduce_bytes;   /* ... its gradients as reduce-scattered (the whole unit) */
  const double  *unit_grad_bytes;     /* ... its unsharded gradients in memory from its backward until
                                       * reduced: as reduced, and where computed in another type, as
                                       * computed too (NULL: unit_reduce_bytes) */
  const double  *unit_shard_bytes;    /* ... this rank's shard of its parameters as held (offload's copies) */
  const double  *unit_grad_shard_bytes;   /* ... this rank's shard of its gradients, made by the last
                                           * micro-step's reduce-scatter (NULL: held through the step, in
                                           * static_bytes) */
  gboolean       reshard_after_forward;
  int            limit_all_gathers;   /* units gathered ahead at most (FSDP's rate limiter: 2); 0 no limit */
  DpsPrefetch    backward_prefetch;
  gboolean       hsdp;             /* all-reduce each shard across the replicate group */
  int            shards;           /* ranks a shard group */
  DpsOffload     offload;          /* gradient shards to the host after their reduction, the updated
                                    * parameter shard back after the optimizer (optimizer_s: the CPUs');
                                    * params: each unit's shard to the GPU before each of its gathers */
  DpsSchedComm   allgather, reducescatter, allreduce;   /* the last: HSDP's replicate group */
  DpsSchedComm   hostlink;         /* copies between the GPU and host memory (offload) */
} DpsShardStep;

#define DPS_SHARD_GROUP_SLOT 0     /* the group a rank's shards are spread over */
#define DPS_REPLICATE_GROUP_SLOT 1 /* HSDP: the ranks that hold the same shard */
#define DPS_HOST_LINK_SLOT 2       /* offload: a rank's own link to host memory, a group of one: to the
                                    * GPU; the next slot, to the host */

DpsSched *dps_strategy_fsdp (const DpsShardStep *in);

/* Tensor and pipeline parallelism with data parallelism over the rest
 * (strategy-pipeline.c): pp stages of consecutive layers, each split over
 * tp GPUs; micro-batches through the stages in the schedule's order,
 * activations and their gradients sent between neighbouring stages (a
 * send blocks its stage's compute until it is received, as Megatron's
 * p2p calls do); inside each transformer block two tensor-parallel
 * all-reduces in forward and two in backward (with sequence
 * parallelism a reduce-scatter and an all-gather each) that the compute
 * waits for; each layer's gradients all-reduced over the data-parallel
 * group once its last micro-batch's backward ends; then the optimizer.
 * With the optimizer's state sharded over the data-parallel group
 * (Megatron's distributed optimizer, DeepSpeed's ZeRO-1) each layer's
 * gradients are reduce-scattered instead, and its updated parameters
 * all-gathered before its first forward: those of the step before, whose
 * gathers a stage's first forward waits for all of (after the optimizer,
 * as DeepSpeed and Megatron do by default), or each layer's only for its
 * own (Megatron-Core's --overlap-param-gather). */
typedef struct {
  const DpsModel *model;
  int            pp, vpp, n_micro;
  DpsPipeSchedule schedule;
  gboolean       sequence_parallel;
  gboolean       tp_comm_overlap;   /* a piece's tensor-parallel collectives run beside it, from its inputs
                                     * on, and what follows waits for both (Megatron-Core's
                                     * --tp-comm-overlap: Transformer Engine's GEMMs pipelined with them) */
  const double  *fwd_s, *bwd_s, *recompute_s;   /* per layer and micro-batch, this GPU's share (1/tp) */
  const double  *act_bytes, *kept_bytes, *hold_bytes;   /* per layer and micro-batch, this GPU's */
  const int     *stage_of_layer, *chunk_of_layer;
  const double  *tp_bytes;          /* per layer: each tensor-parallel collective's size (0: none) */
  const int     *tp_per_pass;       /* per layer: collectives a forward (and a backward) waits for */
  double         p2p_bytes;         /* a micro-batch's activations between stages, as one rank sends them */
  double         p2p_full_bytes;    /* ... and as its receiver holds them: where the sends are split over
                                     * the tensor-parallel group without sequence parallelism, tp times
                                     * p2p_bytes, all-gathered over the group on arrival; 0 (or
                                     * p2p_bytes): held as sent, no gather */
  const double  *grad_bytes;        /* per layer: its gradients, as reduced over the data-parallel group */
  const double  *param_bytes;       /* per layer: its parameters all-gathered over the data-parallel group
                                     * (NULL or 0: none; the gradients then all-reduced) */
  gboolean       overlap_param_gather;   /* each layer's first forward waits for its own gather only */
  gboolean       no_overlap;        /* the gradients reduced only after the stage's whole backward
                                     * (Megatron-LM's local DDP of 2021, DeepSpeed's pipeline engine),
                                     * not each layer's after its last backward */
  const double  *stage_static_bytes;   /* per stage */
  const double  *stage_optimizer_s;    /* per stage */
  DpsSchedComm   tp_allreduce, tp_reducescatter, tp_allgather, p2p, dp_allreduce;
  DpsSchedComm   dp_reducescatter, dp_allgather;   /* with param_bytes */
} DpsPipeStep;

#define DPS_PIPE_TP_SLOT 0
#define DPS_PIPE_DP_SLOT 1
/* the point-to-point slots of virtual stage c: activations in, out,
 * gradients in, out */
#define DPS_PIPE_P2P_SLOT(c, k) (2 + 4 * (c) + (k))
enum { DPS_P2P_ACT_IN, DPS_P2P_ACT_OUT, DPS_P2P_GRAD_IN, DPS_P2P_GRAD_OUT };
#define DPS_PIPE_MAX_VPP ((DPS_SCHED_MAX_SLOTS - 2) / 4)

DpsSched *dps_strategy_pipeline (const DpsPipeStep *in);
gboolean  dps_pipe_chunk_has_prev (int pp, int vpp, int stage, int chunk);
gboolean  dps_pipe_chunk_has_next (int pp, int vpp, int stage, int chunk);
