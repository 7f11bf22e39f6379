/* step-program — one training step of a data-parallel strategy as the
 * list of actions a replica takes, in order, and the collectives it
 * launches: what both replicas (dpscale-train on CPUs with MPI,
 * dpscale-train-gpu with NCCL) run, each with its own library, so that
 * the schedule is written once.
 *
 * Compute actions (draw a micro-step's batch, a layer's forward, the loss,
 * a layer's backward, the optimizer) run on the compute thread or stream;
 * ISSUE hands a collective to the communication thread or stream, which
 * runs them one after another in the order issued (every rank issues the
 * same list, as MPI and NCCL require); WAIT holds compute until one has
 * finished, WAIT_ALL until all issued have.  Each action belongs to a
 * phase of the step, so that the time compute spends waiting is exposed
 * communication of that phase.
 *
 *   ddp     per micro-step forward and backward; in the last, each bucket
 *           (sim/buckets.c) all-reduced once backward has filled it
 *           (gradients accumulate locally before: no_sync); wait; the
 *           optimizer on every parameter.
 *   zero1   as ddp, then per unit: the optimizer on this rank's shard, the
 *           updated shard all-gathered (in place), the next unit's update
 *           overlapping it; wait.
 *   zero2   per micro-step, after each unit's backward, its gradients
 *           reduce-scattered into this rank's gradient shard (DeepSpeed
 *           ZeRO-2 reduces every micro-step); wait; then as zero1.
 *   fsdp    per micro-step, before each unit's forward its parameters
 *           all-gathered from the shards (the next unit's gather issued
 *           before this unit computes: prefetch), freed after it unless a
 *           later layer reads them (the last unit, whose backward comes
 *           next; GPT-2's embedding, read by the tied head); before each
 *           unit's backward gathered again (the next unit's gather issued
 *           before this one's backward: PyTorch's BACKWARD_PRE), after it
 *           its gradients reduce-scattered and its parameters freed; wait;
 *           the optimizer on the parameter shard.
 *   hsdp    fsdp on the shard group, each reduce-scattered gradient shard
 *           then all-reduced across the replicate group.
 * Micro-steps after the first of the strategies that reduce every
 * micro-step add the gradient shard so far into this rank's slice of the
 * unit's gradients before reducing it (ACCUMULATE; one rank per shard:
 * that of the first shard group), so the shard sums every micro-step's
 * gradients without a second buffer; the first backward that writes a
 * unit's gradients again waits until the micro-step before has reduced
 * them. */
#pragma once

#include <glib.h>
#include "sim/buckets.h"
#include "real/shard-layout.h"

typedef enum {
  DPS_STEP_ALLREDUCE,        /* a DDP bucket of the gradients, in place, on every rank */
  DPS_STEP_GATHER,           /* a unit's parameters from the parameter shards, before its forward */
  DPS_STEP_GATHER_BACKWARD,  /* ... again before its backward */
  DPS_STEP_GATHER_UPDATED,   /* ZeRO-1/2: a unit's updated shards, in place in the parameters */
  DPS_STEP_REDUCE_SCATTER,   /* a unit's gradients into the gradient shard (on the shard group) */
  DPS_STEP_ALLREDUCE_SHARD,  /* HSDP: that shard, in place, across the replicate group */
  DPS_STEP_COLLS
} DpsStepColl;

typedef struct {
  DpsStepColl kind;
  int         index;         /* the bucket (ALLREDUCE) or the unit */
  int         micro;         /* the micro-step it belongs to */
  double      bytes;         /* nccl-tests' size: the buffer all-reduced, the whole unit gathered or
                              * reduce-scattered (padding included), the shard all-reduced */
} DpsStepOp;

typedef enum {
  DPS_ACT_BATCH,             /* arg: the micro-step whose samples to draw */
  DPS_ACT_FORWARD,           /* arg: layer */
  DPS_ACT_LOSS,              /* the loss and its gradient (after the last layer's forward) */
  DPS_ACT_BACKWARD,          /* arg: layer */
  DPS_ACT_ISSUE,             /* arg: op */
  DPS_ACT_WAIT,              /* arg: op */
  DPS_ACT_WAIT_ALL,
  DPS_ACT_RELEASE,           /* arg: unit: its gathered parameters are no longer needed */
  DPS_ACT_ACCUMULATE,        /* arg: unit (see above) */
  DPS_ACT_OPTIMIZER,         /* arg: the unit whose shard to update, or -1: every parameter this rank updates */
  DPS_ACT_KINDS
} DpsStepActKind;

typedef enum {
  DPS_STEP_IN_FORWARD,       /* the micro-steps' forward passes */
  DPS_STEP_IN_BACKWARD,      /* their backward passes */
  DPS_STEP_IN_SYNC,          /* after backward, before the optimizer */
  DPS_STEP_IN_OPTIMIZER,
  DPS_STEP_IN_GATHER,        /* after the optimizer (ZeRO-1/2's all-gather of the updated shards) */
  DPS_STEP_PHASES
} DpsStepPhase;

typedef struct {
  DpsStepActKind kind;
  int            arg;
  int            micro;
  DpsStepPhase   phase;
} DpsStepAct;

typedef struct {
  DpsStepAct *acts;
  int         n_acts;
  DpsStepOp  *ops;
  int         n_ops;
  gboolean    local_accumulation;   /* micro-steps add their gradients up locally (DDP, ZeRO-1: backward
                                     * accumulates after the first); else each reduces its own */
} DpsStepProgram;

/* The step of layout's strategy for grad_accum micro-steps; buckets (the
 * simulator's assignment) are what DDP and ZeRO-1 all-reduce. */
DpsStepProgram *dps_step_program_new (const DpsShardLayout *layout, const DpsBuckets *buckets, int grad_accum);
void            dps_step_program_free (DpsStepProgram *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsStepProgram, dps_step_program_free)

/* A collective's name in the report ("all-gather", "reduce-scatter"...),
 * and back (FALSE for no collective's name). */
const char     *dps_step_coll_name (DpsStepColl kind);
gboolean        dps_step_coll_parse (const char *name, DpsStepColl *out);
