/* dpscale-train-gpu — one replica of real data-parallel training on one
 * GPU, started by `dpscale run --backend gpu` under mpirun (one process per
 * GPU; MPI gives the rank, rank 0 makes NCCL's unique id and MPI
 * broadcasts it, so one node and several work the same way).
 *
 * The network (an MLP or a GPT-2 stack, real/train-net.h) runs on the CUDA
 * device (real/dev-cuda.cu): forward, then backward layer by layer on the
 * compute stream, as the strategy's step program says
 * (real/step-program.h).  Each collective it issues is launched on a
 * separate communication stream once an event recorded on the compute
 * stream has passed: DDP's bucket all-reduces (ncclAllReduce, in place)
 * while backward goes on, the sharded strategies' per-unit all-gathers
 * (ncclAllGather) and reduce-scatters (ncclReduceScatter) on the shard
 * group's communicator, HSDP's shard all-reduces on the replicate group's
 * (both split from the world's with ncclCommSplit).  Where compute needs a
 * collective's result, the compute stream waits for its event; the time
 * it waits is exposed communication.  Times come from CUDA events (one
 * after each action on the compute stream).  With --emulate each layer is
 * a wait of its given length on the compute stream (a kernel timed by the
 * GPU's clock) while the real bytes are really reduced and gathered.
 *
 * While waiting, NCCL's asynchronous errors are polled; an error or a
 * collective that does not finish ends the run with one message (the
 * communicators are aborted, so no rank is left hanging).  Options and the
 * report are the CPU replica's (real/worker.h). */
#include <cuda_runtime.h>
#include <nccl.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real/worker.h"
#include "real/worker-check.h"
#include "real/worker-step.h"
#include "real/dev-cuda.h"

/* the world's, the shard group's and the replicate group's communicators
 * (the last two the world's, or NULL, unless HSDP splits them); under
 * tensor parallelism the replicas' (DDP's buckets) and the group's */
static ncclComm_t comm, shard_comm, replicate_comm, dp_comm, tp_comm;
static cudaStream_t cstream, nstream;

static void
abort_comms (void)
{
  ncclComm_t *all[] = { &tp_comm, &dp_comm, &replicate_comm, &shard_comm, &comm };
  for (gsize i = 0; i < G_N_ELEMENTS (all); i++) {
    if (*all[i] && (i == G_N_ELEMENTS (all) - 1 || *all[i] != comm))
      ncclCommAbort (*all[i]);
    *all[i] = NULL;
  }
}

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
    abort_comms ();
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
    ncclComm_t all[] = { comm, shard_comm, replicate_comm };
    for (gsize i = 0; i < G_N_ELEMENTS (all); i++) {
      ncclResult_t async = ncclSuccess;
      if (all[i])
        check_nccl (ncclCommGetAsyncError (all[i], &async), "polling");
      check_nccl (async, "a collective failed");
    }
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

/* a tensor-parallel group's sum (data: its communicator), on the compute
 * stream: the next layer's kernels follow it there */
static void
tp_allreduce (float *x, gint64 n, void *data)
{
  check_nccl (ncclAllReduce (x, x, (size_t) n, ncclFloat, ncclSum, (ncclComm_t) data, cstream), "tensor-parallel sum");
}

/* Launches one collective on stream (nccl-tests' in-place forms where
 * send == recv, and for an all-gather of updated shards, send inside recv
 * at this rank's place). */
static void
run_op (const DpsWorkerPlan *p, const DpsWorkerBuffers *b, const DpsStepOp *op, cudaStream_t stream)
{
  float *send, *recv;
  gint64 n;
  dps_worker_op_buffers (p, b, op, &send, &recv, &n);
  const char *what = dps_step_coll_name (op->kind);
  switch (op->kind) {
  case DPS_STEP_ALLREDUCE:
    check_nccl (ncclAllReduce (recv, recv, (size_t) n, ncclFloat, ncclSum, dp_comm, stream), what);
    break;
  case DPS_STEP_GATHER:
  case DPS_STEP_GATHER_BACKWARD:
  case DPS_STEP_GATHER_UPDATED:
    check_nccl (ncclAllGather (send, recv, (size_t) n, ncclFloat, shard_comm, stream), what);
    break;
  case DPS_STEP_REDUCE_SCATTER:
    check_nccl (ncclReduceScatter (send, recv, (size_t) n, ncclFloat, ncclSum, shard_comm, stream), what);
    break;
  case DPS_STEP_ALLREDUCE_SHARD:
    check_nccl (ncclAllReduce (recv, recv, (size_t) n, ncclFloat, ncclSum, replicate_comm, stream), what);
    break;
  default:
    g_assert_not_reached ();
  }
}

static cudaEvent_t *
events (int n, unsigned flags)
{
  cudaEvent_t *e = g_new (cudaEvent_t, MAX (n, 1));
  for (int i = 0; i < n; i++)
    check_cuda (cudaEventCreateWithFlags (&e[i], flags), "events");
  return e;
}

static void
events_free (cudaEvent_t *e, int n)
{
  for (int i = 0; i < n; i++)
    cudaEventDestroy (e[i]);
  g_free (e);
}

/* The GPU's side of a step (worker-step.h): actions go on the compute
 * stream, collectives on the communication stream once an event says
 * compute has produced their input; an event after each action times it. */
typedef struct {
  const DpsWorkerPlan  *plan;
  DpsWorkerBuffers     *bufs;
  const DpsShardLayout *lay;
  cudaEvent_t          *ready, *ostart, *odone, *aend;
  int                   last_issued;
} GpuStep;

static void
gpu_emulate (void *self, double seconds)
{
  (void) self;
  dps_dev_cuda_wait (seconds);
}

static void
gpu_issue (void *self, int k)
{
  GpuStep *st = self;
  check_cuda (cudaEventRecord (st->ready[k], cstream), "collective ready");
  check_cuda (cudaStreamWaitEvent (nstream, st->ready[k], 0), "collective wait");
  check_cuda (cudaEventRecord (st->ostart[k], nstream), "collective start");
  run_op (st->plan, st->bufs, &st->plan->program->ops[k], nstream);
  check_cuda (cudaEventRecord (st->odone[k], nstream), "collective done");
  st->last_issued = k;
}

static void
gpu_wait (void *self, int op)
{
  GpuStep *st = self;
  /* collectives run in order on their stream: all of them have finished
   * once the last issued has */
  int k = op >= 0 ? op : st->last_issued;
  if (k >= 0)
    check_cuda (cudaStreamWaitEvent (cstream, st->odone[k], 0), "compute waits");
}

static void
gpu_release (void *self, int unit)
{
  GpuStep *st = self;
  check_cuda (cudaMemsetAsync (st->bufs->params + st->lay->off[unit], 0xff,
                               sizeof (float) * (gsize) st->lay->padded[unit], cstream), "release");
}

static void
gpu_done (void *self, int act)
{
  check_cuda (cudaEventRecord (((GpuStep *) self)->aend[act], cstream), "action end");
}

static const DpsWorkerExec gpu_exec = { gpu_emulate, gpu_issue, gpu_wait, gpu_release, gpu_done };

int
main (int argc, char **argv)
{
  int rank, world;
  DpsWorkerOpts o;
  DpsWorkerPlan plan;
  GError *error = NULL;
  dps_worker_start (&argc, &argv, FALSE, &rank, &world, &o, &plan);
  if (plan.pp > 1)
    dps_worker_fail ("--pp: the GPU runner does not run pipelines yet (dpscale run --backend cpu does)");
  const DpsShardLayout *lay = plan.layout;
  const DpsStepProgram *prog = plan.program;

  /* one GPU per rank of a node */
  const char *lr_env = g_getenv ("OMPI_COMM_WORLD_LOCAL_RANK");
  DpsDev *dev = dps_dev_cuda (lr_env ? atoi (lr_env) : rank, &error);
  if (!dev)
    dps_worker_fail (error->message);
  if (o.time_layers) {
    dps_worker_time_layers (dev, &o, &plan, rank);
    MPI_Finalize ();
    dps_worker_finish (&o, &plan);
    return 0;
  }
  cstream = dps_dev_cuda_stream ();
  check_cuda (cudaStreamCreateWithFlags (&nstream, cudaStreamNonBlocking), "communication stream");
  ncclUniqueId id;
  if (rank == 0)
    check_nccl (ncclGetUniqueId (&id), "unique id");
  MPI_Bcast (&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  check_nccl (ncclCommInitRank (&comm, world, id, rank), "communicator");
  shard_comm = dp_comm = comm;
  /* tensor parallelism: groups of consecutive ranks (ncclCommSplit keeps
   * the world's order), the replicas one rank of each; the group's sums
   * run on the compute stream, in order with the layers */
  MPI_Comm tp_mpi = MPI_COMM_NULL;
  if (plan.tp > 1) {
    check_nccl (ncclCommSplit (comm, plan.dp_rank, rank, &tp_comm, NULL), "tensor-parallel group");
    check_nccl (ncclCommSplit (comm, plan.tp_rank, rank, &dp_comm, NULL), "data-parallel group");
    MPI_Comm_split (MPI_COMM_WORLD, plan.dp_rank, rank, &tp_mpi);
  }
  if (lay->strategy == DPS_STRATEGY_HSDP && lay->groups > 1) {
    /* ranks ordered by their world rank: rank k of a shard group is shard k */
    check_nccl (ncclCommSplit (comm, lay->group, rank, &shard_comm, NULL), "shard group");
    check_nccl (ncclCommSplit (comm, lay->shard_index, rank, &replicate_comm, NULL), "replicate group");
  }
  int version = 0;
  ncclGetVersion (&version);
  char lib[64];
  g_snprintf (lib, sizeof lib, "NCCL %d.%d.%d", version / 10000, version / 100 % 100, version % 100);

  DpsTrainNet *net;
  DpsWorkerBuffers bufs;
  dps_worker_buffers (dev, &o, &plan, &net, &bufs);
  if (plan.tp > 1 && net) {
    net->tp_allreduce = tp_allreduce;
    net->tp_data = tp_comm;
  }
  dps_worker_header (rank, lib, &plan);
  if (o.check && net)
    dps_worker_gradcheck (net, &o, &plan, rank, world, nccl_allreduce, NULL);
  dps_worker_poison_params (dev, &o, &plan, &bufs);

  int no = prog->n_ops, na = prog->n_acts;
  cudaEvent_t *ready = events (no, cudaEventDisableTiming), *ostart = events (no, cudaEventDefault);
  cudaEvent_t *odone = events (no, cudaEventDefault), *aend = events (na, cudaEventDefault);
  cudaEvent_t ev0;
  check_cuda (cudaEventCreate (&ev0), "events");
  double *t_start = g_new0 (double, MAX (no, 1)), *t_dur = g_new0 (double, MAX (no, 1));
  double *act_s = g_new0 (double, MAX (na, 1));
  double wait_req = 0, wait_got = 0;
  double limit_s = g_ascii_strtod (g_getenv ("DPS_COLLECTIVE_TIMEOUT_S") ? g_getenv ("DPS_COLLECTIVE_TIMEOUT_S")
                                                                          : "300", NULL);
  DpsWorkerReplica replica = { dev, &o, &plan, &bufs, net, plan.dp_rank, plan.dp };
  for (int s = 0; s < o.steps; s++) {
    MPI_Barrier (MPI_COMM_WORLD);
    double t0 = dps_worker_now ();   /* the GPU is idle: ev0 happens now */
    check_cuda (cudaEventRecord (ev0, cstream), "step start");
    GpuStep st = { &plan, &bufs, lay, ready, ostart, odone, aend, -1 };
    double loss;
    double asked = dps_worker_step (&replica, s, &gpu_exec, &st, &loss);
    wait_event (aend[na - 1], limit_s);
    if (!dev->sync (dev, &error))
      dps_worker_fail (error->message);
    for (int i = 0; i < na; i++)
      act_s[i] = ms_between (i ? aend[i - 1] : ev0, aend[i]) * 1e-3;
    for (int k = 0; k < no; k++) {
      t_start[k] = ms_between (ev0, ostart[k]) * 1e-3;
      t_dur[k] = ms_between (ostart[k], odone[k]) * 1e-3;
    }
    double mine[9];
    dps_worker_step_times (&plan, act_s, loss, mine);
    if (!net) {
      wait_req += asked;
      wait_got += mine[0] + mine[1] + mine[3];
    }
    dps_worker_report (rank, world, s, mine, net ? dps_worker_hash (dev, &plan, &bufs) : 0, &plan, t0, t_start,
                       t_dur);
  }
  if (o.check_params && net) {
    /* the whole model on rank 0: FSDP and HSDP gather every unit */
    for (int u = 0; dps_shard_layout_gathers (lay) && u < lay->n_units; u++)
      if (lay->count[u] > 0)
        run_op (&plan, &bufs, &(DpsStepOp) { .kind = DPS_STEP_GATHER, .index = u }, cstream);
    check_cuda (cudaStreamSynchronize (cstream), "gathering the parameters");
    dps_worker_check_params (dev, &o, &plan, bufs.params, rank, tp_mpi);
  }
  dps_worker_report_waits (rank, &o, wait_req, wait_got);
  events_free (ready, no);
  events_free (ostart, no);
  events_free (odone, no);
  events_free (aend, na);
  cudaEventDestroy (ev0);
  g_free (t_start);
  g_free (t_dur);
  g_free (act_s);
  dps_worker_buffers_free (dev, net, &bufs);
  if (tp_comm)
    ncclCommDestroy (tp_comm);
  if (dp_comm != comm)
    ncclCommDestroy (dp_comm);
  if (tp_mpi != MPI_COMM_NULL)
    MPI_Comm_free (&tp_mpi);
  if (replicate_comm)
    ncclCommDestroy (replicate_comm);
  if (shard_comm != comm)
    ncclCommDestroy (shard_comm);
  ncclCommDestroy (comm);
  MPI_Finalize ();
  dps_worker_finish (&o, &plan);
  return 0;
}
