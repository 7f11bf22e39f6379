/* strategy-kind — the data-parallel strategies by name, one vocabulary for
 * every command (predict, sweep, advise, run, validate).
 *
 *   ddp     PyTorch DDP (NO_SHARD): a whole replica on every rank, gradients
 *           all-reduced in buckets
 *   zero1   optimizer state sharded (DeepSpeed ZeRO-1)
 *   zero2   and gradients: reduce-scattered instead of all-reduced
 *           (ZeRO-2; PyTorch FSDP's SHARD_GRAD_OP)
 *   fsdp    and parameters: all-gathered per wrapped unit before its
 *           forward and again before its backward (FULL_SHARD, ZeRO-3)
 *   hsdp    fsdp inside a shard group, replicas across groups: gradients
 *           reduce-scattered in the group, then all-reduced across groups
 *           (HYBRID_SHARD)
 * PyTorch's names (NO_SHARD, SHARD_GRAD_OP, FULL_SHARD, HYBRID_SHARD) and
 * zero3 are accepted, in any case. */
#pragma once

#include <glib.h>

typedef enum {
  DPS_STRATEGY_DDP,
  DPS_STRATEGY_ZERO1,
  DPS_STRATEGY_ZERO2,
  DPS_STRATEGY_FSDP,
  DPS_STRATEGY_HSDP,
  DPS_STRATEGY_COUNT
} DpsStrategy;

/* FSDP's backward prefetch: the next unit's gather issued before the
 * current unit's backward (BACKWARD_PRE, PyTorch's default), after it
 * (BACKWARD_POST), or when the next unit's own backward is about to start
 * (None). */
typedef enum { DPS_PREFETCH_PRE, DPS_PREFETCH_POST, DPS_PREFETCH_NONE } DpsPrefetch;

/* pre, post, none (PyTorch's BACKWARD_PRE and BACKWARD_POST too, in any
 * case) */
gboolean    dps_prefetch_parse (const char *name, DpsPrefetch *out);
const char *dps_prefetch_name (DpsPrefetch p);

/* What FSDP wraps as a unit: each transformer block (the layers whose
 * input activation checkpointing keeps; the other layers are the root
 * unit), each layer, or the whole model as one. */
typedef enum { DPS_FSDP_UNIT_BLOCK, DPS_FSDP_UNIT_LAYER, DPS_FSDP_UNIT_MODEL } DpsFsdpUnit;

/* block, layer, model, in any case */
gboolean    dps_fsdp_unit_parse (const char *name, DpsFsdpUnit *out);
const char *dps_fsdp_unit_name (DpsFsdpUnit u);

/* The pipeline schedules (Megatron-LM's names): every forward then every
 * backward (GPipe); one forward one backward after a warm-up (1F1B,
 * PipeDream-Flush); 1F1B over virtual stages, each stage holding vpp
 * chunks of layers (interleaved). */
typedef enum { DPS_PIPE_GPIPE, DPS_PIPE_1F1B, DPS_PIPE_INTERLEAVED } DpsPipeSchedule;

/* CPU offload of a sharded strategy's state: none; the optimizer's (its
 * states and fp32 master weights, and the gradient shards it reads:
 * DeepSpeed's offload_optimizer, ZeRO-Offload), the optimizer step run
 * by the CPUs, the updated parameter shard copied back; or the parameter
 * shards too (FSDP's CPUOffload(offload_params=True), ZeRO-3's
 * offload_param), each copied to the GPU before its all-gather. */
typedef enum { DPS_OFFLOAD_NONE, DPS_OFFLOAD_OPTIMIZER, DPS_OFFLOAD_PARAMS } DpsOffload;

gboolean    dps_offload_parse (const char *name, DpsOffload *out);
const char *dps_offload_name (DpsOffload o);
gboolean    dps_offload_applies (DpsOffload o, DpsStrategy s);   /* optimizer: zero2, fsdp, hsdp; params: fsdp, hsdp */

gboolean    dps_strategy_parse (const char *name, DpsStrategy *out);
const char *dps_strategy_name (DpsStrategy s);
const char *dps_strategy_pytorch_name (DpsStrategy s);
gboolean    dps_strategy_shards_params (DpsStrategy s);
gboolean    dps_strategy_shards_grads (DpsStrategy s);
gboolean    dps_strategy_shards_optimizer (DpsStrategy s);
