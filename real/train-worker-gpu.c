/* dpscale-train-gpu — one replica of real data-parallel training on one
 * GPU, started by `dpscale run --backend gpu` under mpirun (one process per
 * GPU; MPI gives the rank, rank 0 makes NCCL's unique id and MPI
 * broadcasts it, so one node and several work the same way).
 *
 * The network (an MLP or a GPT-2 stack, real/train-net.h) runs on the CUDA
 * device (real/dev-cuda.cu): forward, then backward layer by layer on the
 * compute stream.  As each bucket of the simulator's assignment fills, an
 * event recorded on the compute stream is waited for by a separate
 * communication stream, which all-reduces the bucket (ncclAllReduce, in
 * place) while backward goes on: the overlap DDP does.  The optimizer waits
 * for the last bucket's event.  Times come from CUDA events.  With
 * --emulate each layer is a wait of its given length on the compute stream
 * (a kernel timed by the GPU's clock) while the real buckets are really
 * all-reduced.
 *
 * While waiting, NCCL's asynchronous errors are polled; an error or a
 * collective that does not finish ends the run with one message (the comm
 * is aborted, so no rank is left hanging).  Options and the report are the
 * CPU replica's (real/worker.h). */
#include <cuda_runtime.h>
#include <nccl.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real/worker.h"
#include "real/dev-cuda.h"

static ncclComm_t comm;
static cudaStream_t cstream, nstream;

static void
check_cuda (cudaError_t e, const char *what)
{
  if (e != cudaSuccess) {
    char msg[256];
    g_snprintf (msg, sizeof msg, "%s: %s", what, cudaGetErrorString (e));
    dps_worker_fail (msg);
  }
}

static void
check_nccl (ncclResult_t r, const char *what)
{
  if (r != ncclSuccess && r != ncclInProgress) {
    char msg[256];
    g_snprintf (msg, sizeof msg, "%s: NCCL: %s", what, ncclGetErrorString (r));
    if (comm)
      ncclCommAbort (comm);
    comm = NULL;
    dps_worker_fail (msg);
  }
}

/* Waits for ev while polling NCCL's asynchronous error; a wait longer than
 * limit_s is a hung collective. */
static void
wait_event (cudaEvent_t ev, double limit_s)
{
  gint64 t0 = g_get_monotonic_time ();
  for (;;) {
    cudaError_t e = cudaEventQuery (ev);
    if (e == cudaSuccess)
      return;
    if (e != cudaErrorNotReady)
      check_cuda (e, "waiting for the step");
    ncclResult_t async;
    check_nccl (ncclCommGetAsyncError (comm, &async), "polling");
    check_nccl (async, "a collective failed");
    if ((g_get_monotonic_time () - t0) / 1e6 > limit_s)
      check_nccl (ncclSystemError, "a collective did not finish (hung)");
    g_usleep (100);
  }
}

static void
nccl_allreduce (float *grads, gint64 n, void *data)
{
  (void) data;
  check_nccl (ncclAllReduce (grads, grads, (size_t) n, ncclFloat, ncclSum, comm, cstream), "gradient check");
  check_cuda (cudaStreamSynchronize (cstream), "gradient check");
}

static float
ms_between (cudaEvent_t a, cudaEvent_t b)
{
  float ms = 0;
  check_cuda (cudaEventElapsedTime (&ms, a, b), "event timing");
  return ms;
}

int
main (int argc, char **argv)
{
  int rank, world;
  DpsWorkerOpts o;
  DpsWorkerPlan plan;
  GError *error = NULL;
  dps_worker_start (&argc, &argv, FALSE, &rank, &world, &o, &plan);
  int L = dps_model_n_layers (plan.model), nb = plan.n_buckets;

  /* one GPU per rank of a node */
  const char *lr_env = g_getenv ("OMPI_COMM_WORLD_LOCAL_RANK");
  DpsDev *dev = dps_dev_cuda (lr_env ? atoi (lr_env) : rank, &error);
  if (!dev)
    dps_worker_fail (error->message);
  if (o.time_layers) {
    dps_worker_time_layers (dev, &o, &plan, rank);
    MPI_Finalize ();
    return 0;
  }
  cstream = dps_dev_cuda_stream ();
  check_cuda (cudaStreamCreateWithFlags (&nstream, cudaStreamNonBlocking), "communication stream");
  ncclUniqueId id;
  if (rank == 0)
    check_nccl (ncclGetUniqueId (&id), "unique id");
  MPI_Bcast (&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  check_nccl (ncclCommInitRank (&comm, world, id, rank), "communicator");
  int version = 0;
  ncclGetVersion (&version);
  char lib[64];
  g_snprintf (lib, sizeof lib, "NCCL %d.%d.%d", version / 10000, version / 100 % 100, version % 100);

  DpsTrainNet *net;
  float *grads = dps_worker_gradients (dev, &o, &plan, &net);
  dps_worker_header (rank, lib, &plan);
  if (o.check && net)
    dps_worker_gradcheck (net, &o, &plan, rank, world, nccl_allreduce, NULL);

  cudaEvent_t *fs = g_new (cudaEvent_t, o.accum), *fe = g_new (cudaEvent_t, o.accum);
  for (int k = 0; k < o.accum; k++) {
    check_cuda (cudaEventCreate (&fs[k]), "events");
    check_cuda (cudaEventCreate (&fe[k]), "events");
  }
  cudaEvent_t ev[4], *ready = g_new (cudaEvent_t, nb), *bstart = g_new (cudaEvent_t, nb), *bdone = g_new (cudaEvent_t, nb);
  for (int i = 0; i < 4; i++)
    check_cuda (cudaEventCreate (&ev[i]), "events");
  for (int b = 0; b < nb; b++) {
    check_cuda (cudaEventCreateWithFlags (&ready[b], cudaEventDisableTiming), "events");
    check_cuda (cudaEventCreate (&bstart[b]), "events");
    check_cuda (cudaEventCreate (&bdone[b]), "events");
  }
  double *t_start = g_new0 (double, nb), *t_dur = g_new0 (double, nb);
  double wait_req = 0, wait_got = 0;
  double limit_s = g_ascii_strtod (g_getenv ("DPS_COLLECTIVE_TIMEOUT_S") ? g_getenv ("DPS_COLLECTIVE_TIMEOUT_S")
                                                                          : "300", NULL);
  for (int s = 0; s < o.steps; s++) {
    MPI_Barrier (MPI_COMM_WORLD);
    double loss = 0, asked = 0, t0 = dps_worker_now ();   /* the GPU is idle: ev[0] happens now */
    check_cuda (cudaEventRecord (ev[0], cstream), "step start");
    for (int k = 0; k < o.accum; k++) {
      gboolean last = k == o.accum - 1;
      check_cuda (cudaEventRecord (fs[k], cstream), "forward start");
      if (net) {
        dps_train_net_batch (net, (guint32) o.seed, (((gint64) s * o.accum + k) * world + rank) * o.batch);
        net->accumulate = k > 0;
        dps_train_net_forward (net);
        loss = dps_train_net_loss_grad (net);
      } else
        for (int l = 0; l < L; l++) {
          dps_dev_cuda_wait (plan.fwd_s[l]);
          asked += plan.fwd_s[l];
        }
      check_cuda (cudaEventRecord (fe[k], cstream), "forward end");
      int next = 0;
      for (int l = L - 1; l >= 0; l--) {
        if (net)
          dps_train_net_backward_layer (net, l);
        else {
          dps_dev_cuda_wait (plan.bwd_s[l]);
          asked += plan.bwd_s[l];
        }
        /* DDP: a ready bucket launches once every lower-numbered one has,
         * on the communication stream once backward has produced it */
        while (last && next < nb && dps_buckets_get (plan.buckets, next)->ready_layer >= l) {
          int b = next++;
          check_cuda (cudaEventRecord (ready[b], cstream), "bucket ready");
          check_cuda (cudaStreamWaitEvent (nstream, ready[b], 0), "bucket wait");
          check_cuda (cudaEventRecord (bstart[b], nstream), "bucket start");
          check_nccl (ncclAllReduce (grads + plan.start[b], grads + plan.start[b], (size_t) plan.count[b], ncclFloat,
                                     ncclSum, comm, nstream), "bucket all-reduce");
          check_cuda (cudaEventRecord (bdone[b], nstream), "bucket done");
        }
      }
    }
    check_cuda (cudaEventRecord (ev[1], cstream), "backward end");
    /* the optimizer waits for the last bucket (collectives run in order) */
    check_cuda (cudaStreamWaitEvent (cstream, bdone[nb - 1], 0), "optimizer wait");
    check_cuda (cudaEventRecord (ev[2], cstream), "communication end");
    if (net) {
      /* summed over micro-steps and replicas: the update uses their mean */
      if (!dps_train_net_update (net, o.adam, o.lr, 1.0 / ((double) o.accum * world), s + 1, &error))
        dps_worker_fail (error->message);
    } else if (o.opt_ms > 0) {
      dps_dev_cuda_wait (o.opt_ms * 1e-3);
      asked += o.opt_ms * 1e-3;
    }
    check_cuda (cudaEventRecord (ev[3], cstream), "step end");
    wait_event (ev[3], limit_s);
    if (!dev->sync (dev, &error))
      dps_worker_fail (error->message);
    /* forward: the micro-steps' forward passes; backward: the rest until
     * backward ends; exposed: waiting for the last bucket */
    double f = 0;
    for (int k = 0; k < o.accum; k++)
      f += ms_between (fs[k], fe[k]) * 1e-3;
    double b = ms_between (ev[0], ev[1]) * 1e-3 - f;
    double x = ms_between (ev[1], ev[2]) * 1e-3, op = ms_between (ev[2], ev[3]) * 1e-3;
    double mine[6] = { f, b, x, op, ms_between (ev[0], ev[3]) * 1e-3, loss };
    for (int i = 0; i < nb; i++) {
      t_start[i] = ms_between (ev[0], bstart[i]) * 1e-3;
      t_dur[i] = ms_between (bstart[i], bdone[i]) * 1e-3;
    }
    if (!net) {
      wait_req += asked;
      wait_got += f + b + op;
    }
    dps_worker_report (rank, world, s, mine, net ? dps_train_net_hash (net) : 0, &plan, t0, t_start, t_dur);
  }
  double w[2] = { wait_req, wait_got }, wsum[2];
  MPI_Reduce (w, wsum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0 && o.emulate) {
    printf ("wait %.9g %.9g\n", wsum[0], wsum[1]);
    fflush (stdout);
  }
  dps_train_net_free (net);
  ncclCommDestroy (comm);
  MPI_Finalize ();
  return 0;
}
