/* dpscale-train — one replica of real data-parallel training on CPUs,
 * started by `dpscale run` under mpirun (one process per replica).
 *
 * The model's layers (an MLP or a GPT-2 stack, real/train-net.h) run
 * forward, then backward one by one (OpenBLAS); as each bucket of the
 * simulator's assignment (sim/buckets.c) fills, it is handed to a
 * communication thread that all-reduces it (MPI, in place) while backward
 * goes on: the overlap DDP does.  The optimizer waits for every bucket and
 * updates with the mean gradient (the sum over replicas divided by them).  With --emulate each layer's compute is replaced
 * by a wait of the given duration while the real buckets' bytes are really
 * all-reduced, so many replicas share few cores.
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

typedef struct {
  GMutex   lock;
  GCond    cond;
  int     *queue, head, tail;
  int      done;
  gboolean quit;
  float   *grads;
  const gint64 *start, *count;   /* per bucket: first element and elements */
  double  *t_start, *t_dur;   /* per bucket, this step */
  double   step_t0;
} Comm;

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
    int b = c->queue[c->head++];
    g_mutex_unlock (&c->lock);
    double t0 = dps_worker_now ();
    /* the sum; the optimizer divides by the replicas (no extra pass over
     * the bucket here, which would add the runner's own time to the
     * exposed communication) */
    MPI_Allreduce (MPI_IN_PLACE, c->grads + c->start[b], (int) c->count[b], MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    c->t_start[b] = t0 - c->step_t0;
    c->t_dur[b] = dps_worker_now () - t0;
    g_mutex_lock (&c->lock);
    c->done++;
    g_cond_broadcast (&c->cond);
    g_mutex_unlock (&c->lock);
  }
}

static void
launch (Comm *c, int b)
{
  g_mutex_lock (&c->lock);
  c->queue[c->tail++] = b;
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
}

static void
wait_all (Comm *c, int nb)
{
  g_mutex_lock (&c->lock);
  while (c->done < nb)
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

static void
mpi_allreduce (float *grads, gint64 n, void *data)
{
  (void) data;
  MPI_Allreduce (MPI_IN_PLACE, grads, (int) n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

int
main (int argc, char **argv)
{
  int rank, world;
  DpsWorkerOpts o;
  DpsWorkerPlan plan;
  GError *error = NULL;
  dps_worker_start (&argc, &argv, TRUE, &rank, &world, &o, &plan);
  openblas_set_num_threads (1);
  int L = dps_model_n_layers (plan.model), nb = plan.n_buckets;
  /* replicas on this node against its cores: busy or sleeping waits */
  spin_waits = 2 * dps_worker_local () <= sysconf (_SC_NPROCESSORS_ONLN) && !g_getenv ("DPS_EMULATE_SLEEP");

  if (o.time_layers) {
    dps_worker_time_layers (dps_dev_cpu (), &o, &plan, rank);
    MPI_Finalize ();
    dps_worker_finish (&o, &plan);
    return 0;
  }
  /* parameters and gradients: the network when computing, a flat buffer
   * of the gradients' size when emulating */
  DpsTrainNet *net;
  float *grads = dps_worker_gradients (dps_dev_cpu (), &o, &plan, &net);
  Comm c = { .grads = grads, .start = plan.start, .count = plan.count };
  g_mutex_init (&c.lock);
  g_cond_init (&c.cond);
  c.queue = g_new (int, nb);
  c.t_start = g_new0 (double, nb);
  c.t_dur = g_new0 (double, nb);
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Get_library_version (lib, &len);
  lib[strcspn (lib, ",\n")] = 0;
  dps_worker_header (rank, lib, &plan);
  if (o.check && net)
    dps_worker_gradcheck (net, &o, &plan, rank, world, mpi_allreduce, NULL);

  GThread *thread = g_thread_new ("comm", comm_thread, &c);
  double wait_req = 0, wait_got = 0;
  for (int s = 0; s < o.steps; s++) {
    g_mutex_lock (&c.lock);
    c.head = c.tail = c.done = 0;
    g_mutex_unlock (&c.lock);
    MPI_Barrier (MPI_COMM_WORLD);
    double t0 = dps_worker_now ();
    c.step_t0 = t0;
    double loss = 0, deadline = t0, fwd_total = 0;
    for (int k = 0; k < o.accum; k++) {
      gboolean last = k == o.accum - 1;
      double f0 = dps_worker_now ();
      if (net) {
        /* micro-step k of step s: its own samples; gradients accumulate (no_sync) */
        dps_train_net_batch (net, (guint32) o.seed, (((gint64) s * o.accum + k) * world + rank) * o.batch);
        net->accumulate = k > 0;
        dps_train_net_forward (net);
        loss = dps_train_net_loss_grad (net);
      } else
        for (int l = 0; l < L; l++)
          wait_until (deadline += plan.fwd_s[l]);
      fwd_total += dps_worker_now () - f0;
      int next = 0;
      for (int l = L - 1; l >= 0; l--) {
        if (net)
          dps_train_net_backward_layer (net, l);
        else
          wait_until (deadline += plan.bwd_s[l]);
        /* DDP: a ready bucket launches once every lower-numbered one has;
         * only in the last micro-step (the others run under no_sync) */
        while (last && next < nb && dps_buckets_get (plan.buckets, next)->ready_layer >= l)
          launch (&c, next++);
      }
    }
    double t1 = t0 + fwd_total, t2 = dps_worker_now ();
    if (!net) {
      wait_req += deadline - t0;
      wait_got += dps_worker_now () - t0;
    }
    wait_all (&c, nb);
    double t3 = dps_worker_now ();
    if (net) {
      /* summed over micro-steps and replicas: the update uses their mean */
      if (!dps_train_net_update (net, o.adam, o.lr, 1.0 / ((double) o.accum * world), s + 1, &error))
        dps_worker_fail (error->message);
    } else if (o.opt_ms > 0) {
      double o0 = dps_worker_now ();
      wait_until (o0 + o.opt_ms * 1e-3);
      wait_req += o.opt_ms * 1e-3;
      wait_got += dps_worker_now () - o0;
    }
    double t4 = dps_worker_now ();
    double mine[6] = { t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0, loss };
    /* every replica holds the same parameters (hashes compared) */
    dps_worker_report (rank, world, s, mine, net ? dps_train_net_hash (net) : 0, &plan, t0, c.t_start, c.t_dur);
  }
  g_mutex_lock (&c.lock);
  c.quit = TRUE;
  g_cond_broadcast (&c.cond);
  g_mutex_unlock (&c.lock);
  g_thread_join (thread);
  double w[2] = { wait_req, wait_got }, wsum[2];
  MPI_Reduce (w, wsum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0 && o.emulate) {
    printf ("wait %.9g %.9g\n", wsum[0], wsum[1]);
    fflush (stdout);
  }
  MPI_Finalize ();
  if (net)
    dps_train_net_free (net);
  else
    dps_dev_cpu ()->free (dps_dev_cpu (), grads);
  g_free (c.queue);
  g_free (c.t_start);
  g_free (c.t_dur);
  g_mutex_clear (&c.lock);
  g_cond_clear (&c.cond);
  dps_worker_finish (&o, &plan);
  return 0;
}
