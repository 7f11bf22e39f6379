/* worker — what the two training replicas (dpscale-train on CPUs,
 * dpscale-train-gpu on GPUs) share: their options, the plan of a run (the
 * model, the simulator's buckets as ranges of the flat gradient array,
 * the strategy's shard layout and step program, emulated layer times),
 * the buffers a strategy needs, and the report rank 0 prints for dpscale
 * to read (the gradient and parameter checks: worker-check.h):
 *
 *   # library NAME | # buckets N BYTES... | # gradcheck MAXREL
 *   # strategy NAME SHARDS UNITS                       (the shard group's ranks, the wrapped units)
 *   step S R FWD_S BWD_S EXPOSED_S OPT_S STEP_S LOSS XFWD_S XBWD_S XPOST_S
 *                                                      (one per replica; FWD and BWD are compute
 *                                                       alone, EXPOSED every wait for a
 *                                                       collective, of which XFWD in forward,
 *                                                       XBWD in backward, XPOST after the
 *                                                       optimizer; the rest right after backward)
 *   bucket S B BYTES START_S DUR_S SYNC_S              (rank 0's start and duration;
 *                                                       SYNC_S from the last replica's
 *                                                       arrival to the last finish)
 *   coll S KIND UNIT MICRO BYTES START_S DUR_S SYNC_S  (every other collective, as a bucket's;
 *                                                       KIND dps_step_coll_name's, BYTES
 *                                                       nccl-tests' size, step-program.h)
 *   wait REQUESTED_S ACTUAL_S                          (emulated compute, summed)
 *   # params COUNT L2 SUM HASH                         (--check-params: the model's parameters
 *                                                       after the last step, gathered, padding
 *                                                       left out; HASH of their bits)
 *   layers L FWD_S... BWD_S... SGD_S CV                (--time-layers: nothing else runs)
 *   # error MESSAGE                                    (then a non-zero exit)
 */
#pragma once

#include <mpi.h>
#include "sim/model.h"
#include "sim/buckets.h"
#include "real/train-net.h"
#include "real/shard-layout.h"
#include "real/step-program.h"

typedef struct {
  char    *model_name, *optimizer, *fwd_s, *bwd_s, *strategy_name, *save_params;
  int      batch, steps, seed, accum;
  int      shard_group;          /* HSDP: ranks a shard group (0: all) */
  int      tp;                   /* tensor parallel ranks a group (1: none; consecutive ranks, Megatron's order) */
  int      pp, micro;            /* pipeline stages (1: none) and micro-batches a step (pipeline-step.h) */
  double   cap_mb, first_mb, lr, opt_ms;
  gboolean emulate, check, time_layers, check_params;
  gboolean adam;
  DpsStrategy strategy;
} DpsWorkerOpts;

typedef struct {
  DpsModel   *model;             /* what this rank trains: under tensor parallelism its rank's part */
  DpsModel   *full;              /* the whole model (tensor parallelism), else NULL */
  int         tp, tp_rank;       /* this rank's tensor-parallel group size and index in it */
  int         dp, dp_rank;       /* the replicas (world / (tp pp)) and this rank's */
  int         pp, stage, micro;  /* pipeline stages, this rank's, micro-batches a step (pipeline-step.h) */
  DpsBuckets *buckets;
  int         n_buckets;
  gint64     *start, *count;     /* per bucket: first element in the flat gradients, elements (padding
                                  * between its tensors included) */
  double     *fwd_s, *bwd_s;     /* emulated times per layer (--emulate), else NULL */
  DpsShardLayout *layout;        /* this rank's */
  DpsStepProgram *program;
} DpsWorkerPlan;

/* What a replica's step works on, all on its device: the flat parameters
 * and gradients (the network's; the worker's own when emulating), this
 * rank's shards of the parameters (FSDP, HSDP) and of the gradients
 * (ZeRO-2, FSDP, HSDP), and Adam's moments of what it updates (made by the
 * first Adam step).  Under FSDP and HSDP the flat parameters hold only
 * what is gathered; the shard is the parameters (the flat buffer stays
 * allocated: the runner keeps the networks' flat layout).
 *
 * An emulated replica computes nothing, so what its buffers hold does not
 * matter, only their sizes: the sharded strategies' then hold one unit
 * (the largest's size) and one shard at a time, every unit's collectives
 * on the same bytes (one_unit), so that a model whose gradients would not
 * fit in DDP's emulation can be emulated sharded; DDP and ZeRO-1 keep the
 * whole gradients their buckets all-reduce. */
typedef struct {
  float *params, *grads;
  float *pshard, *gshard;
  float *m1, *m2;
  gboolean own_flat;             /* params and grads are the worker's (emulating) */
  gboolean one_unit;             /* emulating a sharded strategy: see above */
} DpsWorkerBuffers;

/* prints "# error MSG" and aborts every rank */
G_NORETURN void dps_worker_fail (const char *msg);
/* MPI (with a communication thread when threads), this rank and the
 * world, the options and the plan */
void     dps_worker_start (int *argc, char ***argv, gboolean threads, int *rank, int *world, DpsWorkerOpts *o,
                           DpsWorkerPlan *p);
/* Frees what dps_worker_start gave (the options' strings and the plan),
 * so that a rank exits with nothing of its own left allocated (LeakSanitizer
 * in the ASan build reports the rest) */
void     dps_worker_finish (DpsWorkerOpts *o, DpsWorkerPlan *p);
/* rank 0: "# library", "# buckets" and "# strategy" */
void     dps_worker_header (int rank, const char *library, const DpsWorkerPlan *p);

/* The buffers of a replica's step on dev: the network's (*net, the model
 * at the options' batch and seed, in the plan's layout), or with --emulate
 * zeroed ones of their size (*net NULL), and the strategy's shards (the
 * parameter shard taken from the network's initial parameters); fails
 * the run when they do not fit */
void     dps_worker_buffers (DpsDev *dev, const DpsWorkerOpts *o, const DpsWorkerPlan *p, DpsTrainNet **net,
                             DpsWorkerBuffers *b);
void     dps_worker_buffers_free (DpsDev *dev, DpsTrainNet *net, DpsWorkerBuffers *b);
/* Micro-step micro of step s on rank of world: its own samples in net
 * (the options' seed and batch), and whether backward adds to the
 * gradients (DDP and ZeRO-1 accumulate under no_sync; the sharded
 * strategies reduce each micro-step's). */
void     dps_worker_micro_batch (DpsTrainNet *net, const DpsWorkerOpts *o, const DpsWorkerPlan *p, int s, int micro,
                                 int rank, int world);
/* --check-params under FSDP and HSDP, before the first step: the flat
 * parameters set to NaN (all bits set), so that only gathers fill them
 * and a layer that read parameters not gathered would make the loss and
 * the parameters NaN (released units are set to NaN again) */
void     dps_worker_poison_params (DpsDev *dev, const DpsWorkerOpts *o, const DpsWorkerPlan *p, DpsWorkerBuffers *b);
/* Where a collective reads (send) and writes (recv) and the elements per
 * rank (count: the bucket, or the unit's shard); send == recv: in place
 * (for a gather of updated shards, send is this rank's shard inside
 * recv, as MPI_IN_PLACE and NCCL's in-place all-gather take it) */
void     dps_worker_op_buffers (const DpsWorkerPlan *p, const DpsWorkerBuffers *b, const DpsStepOp *op, float **send,
                                float **recv, gint64 *count);
/* The optimizer's action on unit (or -1: everything this rank updates):
 * updates the parameters it covers with their gradients x grad_scale
 * (Adam's moments made on the first step); FALSE and an error when they
 * do not fit. */
gboolean dps_worker_optimize (DpsDev *dev, const DpsWorkerOpts *o, const DpsWorkerPlan *p, DpsWorkerBuffers *b,
                              int unit, double grad_scale, int step, GError **error);
/* the fraction of the model's parameters that action updates (an
 * emulated optimizer waits that share of the whole optimizer's time) */
double   dps_worker_optimizer_share (const DpsWorkerPlan *p, int unit);
/* ACCUMULATE unit: the gradient shard so far into this rank's slice of the
 * unit's gradients, on the ranks of the first shard group (step-program.h) */
void     dps_worker_accumulate (DpsDev *dev, const DpsWorkerPlan *p, DpsWorkerBuffers *b, int unit);
/* The hash of what this rank holds after a step (the parameters, or its
 * shard of them under FSDP and HSDP), which its peer's must equal
 * (dps_shard_layout_peer) */
guint64  dps_worker_hash (DpsDev *dev, const DpsWorkerPlan *p, const DpsWorkerBuffers *b);
/* From the seconds each action of the step program took (and the step's
 * loss), the step line's values: forward and backward compute, exposed
 * communication, optimizer, step, loss, and the exposed parts in forward,
 * in backward and after the optimizer */
void     dps_worker_step_times (const DpsWorkerPlan *p, const double *act_s, double loss, double mine[9]);
/* Gathers every replica's times of step s (dps_worker_step_times), hash
 * (dps_worker_hash) and collective timings (per op of the step program:
 * start from the step's start t0, on dps_worker_now's clock, and
 * duration) to rank 0, which prints them; fails the run when a replica's
 * parameters differ from its peer's. */
void     dps_worker_report (int rank, int world, int s, const double mine[9], guint64 hash, const DpsWorkerPlan *p,
                            double t0, const double *t_start, const double *t_dur);
/* Sums every replica's emulated compute, asked for and taken (seconds),
 * to rank 0, which prints the report's "wait" line when emulating. */
void     dps_worker_report_waits (int rank, const DpsWorkerOpts *o, double asked_s, double taken_s);
/* CLOCK_MONOTONIC, s: one clock for the replicas of one host */
double   dps_worker_now (void);
/* replicas on this host (after dps_worker_start) */
int      dps_worker_local (void);
