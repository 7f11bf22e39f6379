/* worker — what the two training replicas (dpscale-train on CPUs,
 * dpscale-train-gpu on GPUs) share: their options, the plan of a run (the
 * model, the simulator's buckets as ranges of the flat gradient array,
 * emulated layer times), the gradient check, and the report rank 0 prints
 * for dpscale to read:
 *
 *   # library NAME | # buckets N BYTES... | # gradcheck MAXREL
 *   step S R FWD_S BWD_S EXPOSED_S OPT_S STEP_S LOSS   (one per replica)
 *   bucket S B BYTES START_S DUR_S SYNC_S              (rank 0's start and duration;
 *                                                       SYNC_S from the last replica's
 *                                                       arrival to the last finish)
 *   wait REQUESTED_S ACTUAL_S                          (emulated compute, summed)
 *   layers L FWD_S... BWD_S... SGD_S CV                (--time-layers: nothing else runs)
 *   # error MESSAGE                                    (then a non-zero exit)
 */
#pragma once

#include <mpi.h>
#include "sim/model.h"
#include "sim/buckets.h"
#include "real/train-net.h"

typedef struct {
  char    *model_name, *optimizer, *fwd_s, *bwd_s;
  int      batch, steps, seed, accum;
  double   cap_mb, first_mb, lr, opt_ms;
  gboolean emulate, check, time_layers;
  gboolean adam;
} DpsWorkerOpts;

typedef struct {
  DpsModel   *model;
  DpsBuckets *buckets;
  int         n_buckets;
  gint64     *start, *count;     /* per bucket: first element in the flat gradients, elements */
  double     *fwd_s, *bwd_s;     /* emulated times per layer (--emulate), else NULL */
} DpsWorkerPlan;

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
/* rank 0: "# library" and "# buckets" */
void     dps_worker_header (int rank, const char *library, const DpsWorkerPlan *p);

/* What a replica all-reduces, on dev: the network's gradients (*net, the
 * model at the options' batch and seed), or with --emulate a zeroed
 * buffer of their size (*net NULL); fails the run when they do not fit */
float   *dps_worker_gradients (DpsDev *dev, const DpsWorkerOpts *o, const DpsWorkerPlan *p, DpsTrainNet **net);

/* --time-layers: rank 0 times the model's layers on dev
 * (dps_train_net_layer_times_on, at least min_time_s) and prints the
 * "layers" line; fails when the runner cannot train the model there */
void     dps_worker_time_layers (DpsDev *dev, const DpsWorkerOpts *o, const DpsWorkerPlan *p, int rank);

/* sums n floats of every replica in place (MPI or NCCL) */
typedef void (*DpsWorkerAllreduce) (float *grads, gint64 n, void *data);

/* The gradient of N shards averaged is the whole batch's: each rank's
 * shard gradient summed by allreduce, divided by the replicas, compared on
 * rank 0 with one network (on the same device) computing the whole batch;
 * prints "# gradcheck". */
void     dps_worker_gradcheck (DpsTrainNet *net, const DpsWorkerOpts *o, const DpsWorkerPlan *p, int rank, int world,
                               DpsWorkerAllreduce allreduce, void *data);

/* Gathers every replica's times of step s (forward, backward, exposed,
 * optimizer, step, loss), parameter hash and bucket timings (start from
 * the step's start t0, on dps_worker_now's clock, and duration) to rank 0,
 * which prints them; fails the run when a replica's parameters
 * differ from rank 0's. */
void     dps_worker_report (int rank, int world, int s, const double mine[6], guint64 hash, const DpsWorkerPlan *p,
                            double t0, const double *t_start, const double *t_dur);
/* CLOCK_MONOTONIC, s: one clock for the replicas of one host */
double   dps_worker_now (void);
/* replicas on this host (after dps_worker_start) */
int      dps_worker_local (void);
