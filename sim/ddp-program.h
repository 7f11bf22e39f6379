/* ddp-program — the schedule of one configuration's step, as the driver
 * (ddp-run.c) runs it: the per-layer inputs every strategy takes, and the
 * program a strategy's builder makes of them with the collective costs it
 * owns.  Private to the ddp*.c files. */
#pragma once

#include "sim/ddp.h"
#include "sim/coll-cost.h"
#include "sim/strategy.h"

/* What every strategy's step is made of, per replica at the batch. */
typedef struct {
  double  batch;
  int     n_layers;
  double *fwd_s, *bwd_s, *recompute_s;   /* per layer, nominal seconds */
  double *act_bytes, *kept_bytes;        /* per layer: saved by forward; kept when checkpointed */
  double *hold_bytes;                    /* per layer: held while its backward runs (a loss's) */
  double  optimizer_s;                   /* over the whole model */
} DpsDdpInputs;

#define DPS_DDP_MAX_COSTS 6

typedef struct {
  DpsSched    *sched;
  DpsCollCost *costs[DPS_DDP_MAX_COSTS];   /* owned: the comm kinds' data */
  DpsMemory    fixed;          /* the static parts (this rank's shards) */
  int          shards;         /* ranks a shard group (1 for DDP) */
  gboolean     hsdp;           /* two group slots: shard, replicate */
  int          n_buckets;      /* DDP's */
  int          n_units;        /* FSDP's wrapped units (the root aside) */
  gboolean     grads_late;     /* FSDP under no_sync: the gradient shards made by the last micro-step's
                                * reduce-scatters, in the schedule's memory, not fixed's */
  double       comm_bytes;     /* sent by collectives per rank and step (nccl-tests' sizes) */
  double       optimizer_s;    /* this rank's (its shard's) */
  gboolean     pipeline;       /* tensor and pipeline parallel: one role a stage */
  int          tp, pp, vpp, dp, micro_batches;
  DpsOffload   offload;        /* a host link per rank (DPS_HOST_LINK_SLOT) */
  double      *host_link_Bps;  /* owned: that link's rate, its comm kind's data */
} DpsDdpProgram;

void     dps_ddp_inputs_init (const DpsDdpConfig *c, double batch, DpsDdpInputs *in);
void     dps_ddp_inputs_clear (DpsDdpInputs *in);
gboolean dps_ddp_program_replicas (const DpsDdpConfig *c, const DpsDdpInputs *in, DpsDdpResult *out,
                                   DpsDdpProgram *p, GError **error);
gboolean dps_ddp_program_shards (const DpsDdpConfig *c, const DpsDdpInputs *in, DpsDdpProgram *p, GError **error);
gboolean dps_ddp_program_parallel (const DpsDdpConfig *c, const DpsDdpInputs *in, DpsDdpProgram *p, GError **error);
DpsSchedRank *dps_ddp_parallel_place (const DpsDdpProgram *p, const DpsSchedRank *replicas, int n_replicas, int *n,
                                      DpsSchedGroup **groups, int *n_groups);
void     dps_ddp_program_clear (DpsDdpProgram *p);
double   dps_ddp_group_contention (const DpsDdpConfig *c, double batch, int ranks, gboolean spans_nodes);
double   dps_ddp_comm_time (const void *cost, double bytes, double *lat_s, DpsAlgo *algo, DpsProto *proto);
/* A cost for op on a group of per_node GPUs on each of n_nodes nodes (the
 * first of each: a 3D layout's groups, HSDP's shard and replica groups),
 * priced beside the node's other groups of the kind, which run theirs at
 * the same time (every GPU is in one group of each kind: a node holds
 * gpus_per_node / per_node of them; DpsCollCtx.siblings). */
DpsCollCost *dps_ddp_group_cost (const DpsDdpConfig *c, DpsCollOp op, int n_nodes, int per_node, double max_bytes,
                                 GError **error);
