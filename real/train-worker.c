/* dpscale-train — one replica of real data-parallel training on CPUs,
 * started by `dpscale run` under mpirun (one process per replica).
 *
 * The model's layers (an MLP or a GPT-2 stack, real/train-net.h) run
 * forward, then backward one by one (OpenBLAS), as the strategy's step
 * program says (real/step-program.h): DDP hands each bucket of the
 * simulator's assignment (sim/buckets.c), as backward fills it, to a
 * communication thread that all-reduces it (MPI, in place) while backward
 * goes on; the sharded strategies hand it each unit's all-gathers
 * (MPI_Allgather, before a layer needs its parameters, the next one
 * prefetched) and reduce-scatters (MPI_Reduce_scatter_block, after its
 * backward), HSDP's shard all-reduces on the replicate group's
 * communicator (MPI_Comm_split).  The communication thread runs the
 * collectives one after another, in the order issued, as every rank
 * issues them; compute waits for one only where it needs its result.  The
 * optimizer updates with the mean gradient (the sum over replicas divided
 * by them), on what this rank holds.  With --emulate each layer's compute
 * is replaced by a wait of the given duration while the real bytes are
 * really reduced and gathered, so many replicas share few cores.
 *
 * Options and the report rank 0 prints are the GPU replica's too
 * (real/worker.h). */
#include <mpi.h>
#include <glib.h>
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>

#include "real/worker.h"
#include "real/worker-check.h"
#include "real/worker-step.h"
#include "real/pipeline-step.h"

/* The communication thread's queue: the step program's ops, by index, in
 * the order issued; done[i] once op i has finished. */
typedef struct {
  GMutex   lock;
  GCond    cond;
  int     *queue, head, tail;
  gboolean *done;
  gboolean quit;
  const DpsWorkerPlan *plan;
  const DpsWorkerBuffers *bufs;
  MPI_Comm shard, replicate;   /* the shard group's and the replicate group's communicators */
  MPI_Comm dp;                 /* the replicas' (the world, but under tensor parallelism) */
  double  *t_start, *t_dur;    /* per op, this step */
  double   step_t0;
} Comm;

/* Runs one collective with MPI.  All-reduces sum: the optimizer divides
 * by the replicas (no extra pass over the buffer here, which would add the
 * runner's own time to the exposed communication). */
static void
run_op (const Comm *c, const DpsStepOp *op)
{
  float *send, *recv;
  gint64 n;
  dps_worker_op_buffers (c->plan, c->bufs, op, &send, &recv, &n);
  switch (op->kind) {
  case DPS_STEP_ALLREDUCE:
    MPI_Allreduce (MPI_IN_PLACE, recv, (int) n, MPI_FLOAT, MPI_SUM, c->dp);
    break;
  case DPS_STEP_GATHER:
  case DPS_STEP_GATHER_BACKWARD:
    MPI_Allgather (send, (int) n, MPI_FLOAT, recv, (int) n, MPI_FLOAT, c->shard);
    break;
  case DPS_STEP_GATHER_UPDATED:
    MPI_Allgather (MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, (int) n, MPI_FLOAT, c->shard);
    break;
  case DPS_STEP_REDUCE_SCATTER:
    MPI_Reduce_scatter_block (send, recv, (int) n, MPI_FLOAT, MPI_SUM, c->shard);
    break;
  case DPS_STEP_ALLREDUCE_SHARD:
    MPI_Allreduce (MPI_IN_PLACE, recv, (int) n, MPI_FLOAT, MPI_SUM, c->replicate);
    break;
  default:
    g_assert_not_reached ();
  }
}

static gpointer
comm_thread (gpointer data)
{
  Comm *c = data;
  for (;;) {
    g_mutex_lock (&c->lock);
    while (c->head == c->tail && !c->quit)
      g_cond_wait (&c->cond, &c->lock);
    if (c->quit && c->head == c->tail) {
      g_mutex_unlock (&c->lock);
      return NULL;
    }
    int i = c->queue[c->head++];
    g_mutex_unlock (&c->lock);
    double t0 = dps_worker_now ();
    run_op (c, &c->plan->program->ops[i]);
    c->t_start[i] = t0 - c->step_t0;
    c->t_dur[i] = dps_worker_now () - t0;
    g_mutex_lock (&c->lock);
    c->done[i] = TRUE;
    g_cond_broadcast (&c->cond);
    g_mutex_unlock (&c->lock);
  }
}

static void
launch (Comm *c, int i)
{
  g_mutex_lock (&c->lock);
  c->queue[c->tail++] = i;
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
}

/* until op i has finished; i < 0: every op issued */
static void
wait_op (Comm *c, int i)
{
  g_mutex_lock (&c->lock);
  if (i >= 0)
    while (!c->done[i])
      g_cond_wait (&c->cond, &c->lock);
  else
    for (int k = 0; k < c->tail; k++)
      while (!c->done[c->queue[k]])
        g_cond_wait (&c->cond, &c->lock);
  g_mutex_unlock (&c->lock);
}

/* Waits until about the monotonic time `until` (at once if it has
 * passed).  Emulated layers wait for absolute deadlines, each the previous
 * one plus the layer's duration, so a late wake-up on a busy machine is
 * caught up by the next layer instead of adding up.
 *
 * When every replica's two threads (compute and communication) have a core
 * of their own, the wait keeps the core busy, yielding to any runnable
 * thread, as real compute keeps it busy: a collective that starts on cores
 * that were idle runs up to 2x slower on this kind of machine (measured:
 * a 12.6 MB all-reduce of 2 ranks, 1.9 ms after busy cores, 4.1 ms after
 * 10 ms asleep).  Otherwise a busy wait would take the core from the
 * communication thread (waits 3.7% long at 2 replicas on 2 cores), so the
 * wait sleeps; the kernel wakes a sleeper some tens of
 * microseconds late, so it aims that much early, by a running estimate of
 * this process's own lateness, and waits are right on average. */
static double wake_lag_s;
static gboolean spin_waits;

static void
wait_until (double until)
{
  if (spin_waits) {
    while (dps_worker_now () < until)
      sched_yield ();
    return;
  }
  double target = until - wake_lag_s;
  if (target <= dps_worker_now ())
    return;
  struct timespec ts = { (time_t) target, (long) ((target - floor (target)) * 1e9) };
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
    ;
  double late = dps_worker_now () - target;
  wake_lag_s = CLAMP (0.9 * wake_lag_s + 0.1 * late, 0, 1e-3);
}

/* a tensor-parallel group's sum, from the compute thread (data: its
 * communicator) */
static void
tp_allreduce (float *x, gint64 n, void *data)
{
  MPI_Allreduce (MPI_IN_PLACE, x, (int) n, MPI_FLOAT, MPI_SUM, *(MPI_Comm *) data);
}

static void
mpi_allreduce (float *grads, gint64 n, void *data)
{
  (void) data;
  MPI_Allreduce (MPI_IN_PLACE, grads, (int) n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

/* The CPU's side of a step (worker-step.h): emulated compute runs to a
 * deadline, collectives go to the communication thread. */
typedef struct {
  Comm                   *c;
  const DpsWorkerBuffers *bufs;
  const DpsShardLayout   *lay;
  double                 *act_s;      /* per action, this step */
  double                  deadline;   /* where emulated compute has got to */
  double                  prev;       /* the end of the previous action */
} CpuStep;

static void
cpu_emulate (void *self, double seconds)
{
  CpuStep *st = self;
  wait_until (st->deadline += seconds);
}

static void
cpu_issue (void *self, int op)
{
  launch (((CpuStep *) self)->c, op);
}

static void
cpu_wait (void *self, int op)
{
  CpuStep *st = self;
  wait_op (st->c, op);
  /* emulated compute resumes from here */
  st->deadline = MAX (st->deadline, dps_worker_now ());
}

static void
cpu_release (void *self, int unit)
{
  CpuStep *st = self;
  memset (st->bufs->params + st->lay->off[unit], 0xff, sizeof (float) * (gsize) st->lay->padded[unit]);
}

static void
cpu_done (void *self, int act)
{
  CpuStep *st = self;
  double t = dps_worker_now ();
  st->act_s[act] = t - st->prev;
  st->prev = t;
}

static const DpsWorkerExec cpu_exec = { cpu_emulate, cpu_issue, cpu_wait, cpu_release, cpu_done };

/* A pipeline stage's run (pipeline-step.h): each step its 1F1B schedule
 * and reductions, reported as a replica's step; the parameters checked. */
static void
pipeline_run (DpsDev *dev, const DpsWorkerOpts *o, const DpsWorkerPlan *plan, DpsWorkerBuffers *bufs,
              DpsTrainNet *net, int rank, int world)
{
  DpsPipeStage ps;
  dps_pipe_stage_init (&ps, plan, net, rank);
  for (int s = 0; s < o->steps; s++) {
    MPI_Barrier (MPI_COMM_WORLD);
    double t0 = dps_worker_now (), mine[9];
    dps_pipe_step (&ps, o, plan, bufs, net, s, mine);
    dps_worker_report (rank, world, s, mine, dps_worker_hash (dev, plan, bufs), plan, t0, NULL, NULL);
  }
  dps_worker_check_params (dev, o, plan, bufs->params, rank, MPI_COMM_NULL);
  dps_pipe_stage_clear (&ps);
}

int
main (int argc, char **argv)
{
  int rank, world;
  DpsWorkerOpts o;
  DpsWorkerPlan plan;
  dps_worker_start (&argc, &argv, TRUE, &rank, &world, &o, &plan);
  openblas_set_num_threads (1);
  DpsDev *dev = dps_dev_cpu ();
  const DpsShardLayout *lay = plan.layout;
  const DpsStepProgram *prog = plan.program;
  /* replicas on this node against its cores: busy or sleeping waits */
  spin_waits = 2 * dps_worker_local () <= sysconf (_SC_NPROCESSORS_ONLN) && !g_getenv ("DPS_EMULATE_SLEEP");

  if (o.time_layers) {
    dps_worker_time_layers (dev, &o, &plan, rank);
    MPI_Finalize ();
    dps_worker_finish (&o, &plan);
    return 0;
  }
  /* parameters, gradients and shards: the network's when computing, flat
   * buffers of their size when emulating */
  DpsTrainNet *net;
  DpsWorkerBuffers bufs;
  dps_worker_buffers (dev, &o, &plan, &net, &bufs);
  if (plan.pp > 1) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version (lib, &len);
    lib[strcspn (lib, ",\n")] = 0;
    dps_worker_header (rank, lib, &plan);
    pipeline_run (dev, &o, &plan, &bufs, net, rank, world);
    MPI_Finalize ();
    dps_worker_buffers_free (dev, net, &bufs);
    dps_worker_finish (&o, &plan);
    return 0;
  }
  Comm c = { .plan = &plan, .bufs = &bufs, .shard = MPI_COMM_WORLD, .replicate = MPI_COMM_NULL, .dp = MPI_COMM_WORLD };
  /* tensor parallelism: groups of consecutive ranks, the replicas one
   * rank of each (the same index in their groups) */
  MPI_Comm tp_comm = MPI_COMM_NULL;
  if (plan.tp > 1) {
    MPI_Comm_split (MPI_COMM_WORLD, plan.dp_rank, rank, &tp_comm);
    MPI_Comm_split (MPI_COMM_WORLD, plan.tp_rank, rank, &c.dp);
    if (net) {
      net->tp_allreduce = tp_allreduce;
      net->tp_data = &tp_comm;
    }
  }
  if (lay->strategy == DPS_STRATEGY_HSDP && lay->groups > 1) {
    MPI_Comm_split (MPI_COMM_WORLD, lay->group, rank, &c.shard);
    MPI_Comm_split (MPI_COMM_WORLD, lay->shard_index, rank, &c.replicate);
  }
  g_mutex_init (&c.lock);
  g_cond_init (&c.cond);
  int no = MAX (prog->n_ops, 1);
  c.queue = g_new (int, no);
  c.done = g_new0 (gboolean, no);
  c.t_start = g_new0 (double, no);
  c.t_dur = g_new0 (double, no);
  double *act_s = g_new0 (double, prog->n_acts);
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Get_library_version (lib, &len);
  lib[strcspn (lib, ",\n")] = 0;
  dps_worker_header (rank, lib, &plan);
  if (o.check && net)
    dps_worker_gradcheck (net, &o, &plan, rank, world, mpi_allreduce, NULL);
  dps_worker_poison_params (dev, &o, &plan, &bufs);

  DpsWorkerReplica replica = { dev, &o, &plan, &bufs, net, plan.dp_rank, plan.dp };
  GThread *thread = g_thread_new ("comm", comm_thread, &c);
  double wait_req = 0, wait_got = 0;
  for (int s = 0; s < o.steps; s++) {
    g_mutex_lock (&c.lock);
    c.head = c.tail = 0;
    memset (c.done, 0, sizeof (gboolean) * no);
    g_mutex_unlock (&c.lock);
    MPI_Barrier (MPI_COMM_WORLD);
    double t0 = dps_worker_now ();
    c.step_t0 = t0;
    CpuStep st = { &c, &bufs, lay, act_s, t0, t0 };
    double loss;
    double asked = dps_worker_step (&replica, s, &cpu_exec, &st, &loss);
    double mine[9];
    dps_worker_step_times (&plan, act_s, loss, mine);
    if (!net) {
      wait_req += asked;
      wait_got += mine[0] + mine[1] + mine[3];
    }
    /* every replica holds the same parameters, or the same shards as its
     * peers (hashes compared) */
    dps_worker_report (rank, world, s, mine, net ? dps_worker_hash (dev, &plan, &bufs) : 0, &plan, t0, c.t_start,
                       c.t_dur);
  }
  g_mutex_lock (&c.lock);
  c.quit = TRUE;
  g_cond_broadcast (&c.cond);
  g_mutex_unlock (&c.lock);
  g_thread_join (thread);
  if (o.check_params && net) {
    /* the whole model on rank 0: FSDP and HSDP gather every unit */
    for (int u = 0; dps_shard_layout_gathers (lay) && u < lay->n_units; u++)
      if (lay->count[u] > 0)
        run_op (&c, &(DpsStepOp) { .kind = DPS_STEP_GATHER, .index = u });
    dps_worker_check_params (dev, &o, &plan, bufs.params, rank, tp_comm);
  }
  dps_worker_report_waits (rank, &o, wait_req, wait_got);
  if (c.shard != MPI_COMM_WORLD)
    MPI_Comm_free (&c.shard);
  if (c.replicate != MPI_COMM_NULL)
    MPI_Comm_free (&c.replicate);
  if (c.dp != MPI_COMM_WORLD)
    MPI_Comm_free (&c.dp);
  if (tp_comm != MPI_COMM_NULL)
    MPI_Comm_free (&tp_comm);
  MPI_Finalize ();
  dps_worker_buffers_free (dev, net, &bufs);
  g_free (act_s);
  g_free (c.queue);
  g_free (c.done);
  g_free (c.t_start);
  g_free (c.t_dur);
  g_mutex_clear (&c.lock);
  g_cond_clear (&c.cond);
  dps_worker_finish (&o, &plan);
  return 0;
}
