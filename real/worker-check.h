/* worker-check — the runner's checks of itself, on CPUs and GPUs alike:
 * the parameters after the last step (--check-params), the layers' times
 * (--time-layers) and the gradient of the shards against the whole
 * batch's (--check). */
#pragma once

#include "real/worker.h"

/* --check-params on rank 0, whose flat parameters on dev hold the whole
 * model (gathered; under tensor parallelism its rank's part, the others'
 * gathered over tp_comm, which every rank joins): prints "# params" and,
 * with --save-params, writes them (fp32, native byte order, the whole
 * model's order without padding) */
void     dps_worker_check_params (DpsDev *dev, const DpsWorkerOpts *o, const DpsWorkerPlan *p, const float *params,
                                  int rank, MPI_Comm tp_comm);

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
