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
 * Rank 0 prints, for dpscale to read:
 *   # library NAME | # buckets N BYTES... | # gradcheck MAXREL
 *   step S R FWD_S BWD_S EXPOSED_S OPT_S STEP_S LOSS   (one per replica)
 *   bucket S B BYTES START_S DUR_S                     (rank 0's timings)
 *   wait REQUESTED_S ACTUAL_S                          (emulated compute: asked, taken; summed)
 * and exits non-zero, after "# error ...", when replicas' parameters differ. */
#include <mpi.h>
#include <glib.h>
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "buckets.h"
#include "train-net.h"

typedef struct {
  GMutex   lock;
  GCond    cond;
  int     *queue, head, tail;
  int      done;
  gboolean quit;
  float   *grads;
  gint64  *start, *count;     /* per bucket: first element and elements */
  double  *t_start, *t_dur;   /* per bucket, this step */
  double   step_t0;
  int      world;
} Comm;

static double
now_s (void)
{
  return MPI_Wtime ();
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
    int b = c->queue[c->head++];
    g_mutex_unlock (&c->lock);
    double t0 = now_s ();
    /* the sum; the optimizer divides by the replicas (no extra pass over
     * the bucket here, which would add the runner's own time to the
     * exposed communication) */
    MPI_Allreduce (MPI_IN_PLACE, c->grads + c->start[b], (int) c->count[b], MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    c->t_start[b] = t0 - c->step_t0;
    c->t_dur[b] = now_s () - t0;
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

static double
mono_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Sleeps until about the monotonic time `until` (at once if it has
 * passed).  Emulated layers wait for absolute deadlines, each the previous
 * one plus the layer's duration, so a late wake-up on a busy machine is
 * caught up by the next layer instead of adding up.  The kernel wakes a
 * sleeper some tens of microseconds late (more when ranks outnumber
 * cores); the sleep aims that much early, by a running estimate of this
 * process's own lateness, so that waits are right on average rather than
 * always long. */
static double wake_lag_s;

static void
wait_until (double until)
{
  double target = until - wake_lag_s;
  if (target <= mono_s ())
    return;
  struct timespec ts = { (time_t) target, (long) ((target - floor (target)) * 1e9) };
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
    ;
  double late = mono_s () - target;
  wake_lag_s = CLAMP (0.9 * wake_lag_s + 0.1 * late, 0, 1e-3);
}

static GArray *
parse_times (const char *s)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (double));
  g_auto (GStrv) p = g_strsplit (s ? s : "", ",", -1);
  for (int i = 0; p[i]; i++) {
    if (!p[i][0])
      continue;
    double v = g_ascii_strtod (p[i], NULL);
    g_array_append_val (a, v);
  }
  return a;
}

static void
fail (const char *msg)
{
  printf ("# error %s\n", msg);
  fflush (stdout);
  MPI_Abort (MPI_COMM_WORLD, 1);
}

int
main (int argc, char **argv)
{
  int provided, rank, world;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &world);
  openblas_set_num_threads (1);

  char *model_name = NULL, *optimizer = NULL, *fwd_s = NULL, *bwd_s = NULL;
  int batch = 32, steps = 10, seed = 1, accum = 1;
  double cap_mb = 25, first_mb = 1, lr = 0, opt_ms = 0;
  gboolean emulate = FALSE, check = FALSE;
  GOptionEntry entries[] = {
    { "model", 0, 0, G_OPTION_ARG_STRING, &model_name, "model", NULL },
    { "batch", 0, 0, G_OPTION_ARG_INT, &batch, "per-replica batch", NULL },
    { "steps", 0, 0, G_OPTION_ARG_INT, &steps, "steps", NULL },
    { "grad-accum", 0, 0, G_OPTION_ARG_INT, &accum, "micro-steps per step, all but the last without all-reduce", NULL },
    { "seed", 0, 0, G_OPTION_ARG_INT, &seed, "seed", NULL },
    { "bucket-cap-mb", 0, 0, G_OPTION_ARG_DOUBLE, &cap_mb, "bucket cap", NULL },
    { "first-bucket-mb", 0, 0, G_OPTION_ARG_DOUBLE, &first_mb, "first bucket cap", NULL },
    { "optimizer", 0, 0, G_OPTION_ARG_STRING, &optimizer, "sgd or adam", NULL },
    { "lr", 0, 0, G_OPTION_ARG_DOUBLE, &lr, "learning rate", NULL },
    { "emulate", 0, 0, G_OPTION_ARG_NONE, &emulate, "waits instead of compute", NULL },
    { "fwd", 0, 0, G_OPTION_ARG_STRING, &fwd_s, "emulated forward seconds per layer", NULL },
    { "bwd", 0, 0, G_OPTION_ARG_STRING, &bwd_s, "emulated backward seconds per layer", NULL },
    { "opt-ms", 0, 0, G_OPTION_ARG_DOUBLE, &opt_ms, "emulated optimizer ms", NULL },
    { "check-gradient", 0, 0, G_OPTION_ARG_NONE, &check, "compare averaged shard gradients with the whole batch's", NULL },
    G_OPTION_ENTRY_NULL
  };
  GOptionContext *ctx = g_option_context_new (NULL);
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    fail (error->message);
  g_option_context_free (ctx);

  DpsModel *m = dps_model_load (model_name ? model_name : "mlp", &error);
  if (!m)
    fail (error->message);
  int L = dps_model_n_layers (m);
  DpsBuckets *bk = dps_buckets_assign (m, cap_mb * 1048576, first_mb * 1048576, 4);
  int nb = dps_buckets_count (bk);
  gboolean adam = optimizer && g_str_equal (optimizer, "adam");
  if (lr <= 0)
    lr = adam ? 1e-3 : 0.02;

  /* parameters and gradients: the MLP when computing, flat buffers when emulating */
  DpsTrainNet *net = NULL;
  float *grads;
  gint64 n_params = m->n_params;
  GArray *fwd = NULL, *bwd = NULL;
  if (emulate) {
    fwd = parse_times (fwd_s);
    bwd = parse_times (bwd_s);
    if ((int) fwd->len != L || (int) bwd->len != L)
      fail ("--emulate needs --fwd and --bwd with one time per layer");
    grads = g_try_new0 (float, n_params);
    if (!grads)
      fail ("not enough memory for the gradients");
  } else {
    net = dps_train_net_new (m, batch, (guint32) seed, &error);
    if (!net)
      fail (error->message);
    grads = net->grads;
  }
  /* tensor offsets in definition order; a bucket is a contiguous range */
  gint64 *toff = g_new (gint64, dps_model_n_tensors (m) + 1);
  toff[0] = 0;
  for (int t = 0; t < dps_model_n_tensors (m); t++)
    toff[t + 1] = toff[t] + dps_model_tensor (m, t)->numel;
  Comm c = { .world = world, .grads = grads };
  g_mutex_init (&c.lock);
  g_cond_init (&c.cond);
  c.queue = g_new (int, nb);
  c.start = g_new (gint64, nb);
  c.count = g_new (gint64, nb);
  c.t_start = g_new0 (double, nb);
  c.t_dur = g_new0 (double, nb);
  for (int b = 0; b < nb; b++) {
    const DpsBucket *bu = dps_buckets_get (bk, b);
    int lo = bk->order[bu->first + bu->n_tensors - 1];   /* reverse order: the last is the lowest */
    c.start[b] = toff[lo];
    c.count[b] = bu->numel;
  }
  if (rank == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version (lib, &len);
    char *cut = strpbrk (lib, ",\n");
    if (cut)
      *cut = 0;
    printf ("# library %s\n# buckets %d", lib, nb);
    for (int b = 0; b < nb; b++)
      printf (" %.0f", dps_buckets_get (bk, b)->bytes);
    printf ("\n");
    fflush (stdout);
  }

  /* the gradient of N shards averaged is the gradient of the whole batch */
  if (check && net) {
    dps_train_net_batch (net, (guint32) seed, (gint64) rank * batch);
    dps_train_net_forward (net);
    dps_train_net_loss_grad (net);
    dps_train_net_backward (net);
    MPI_Allreduce (MPI_IN_PLACE, net->grads, (int) n_params, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    cblas_sscal ((int) n_params, 1.0f / world, net->grads, 1);
    if (rank == 0) {
      DpsTrainNet *whole = dps_train_net_new (m, batch * world, (guint32) seed, &error);
      dps_train_net_batch (whole, (guint32) seed, 0);
      dps_train_net_forward (whole);
      dps_train_net_loss_grad (whole);
      dps_train_net_backward (whole);
      double maxdiff = 0, maxg = 0;
      for (gint64 i = 0; i < n_params; i++) {
        maxdiff = MAX (maxdiff, fabs (whole->grads[i] - net->grads[i]));
        maxg = MAX (maxg, fabs (whole->grads[i]));
      }
      printf ("# gradcheck %.3g\n", maxg > 0 ? maxdiff / maxg : 0);
      fflush (stdout);
      dps_train_net_free (whole);
    }
  }

  GThread *thread = g_thread_new ("comm", comm_thread, &c);
  double *stats = g_new (double, 6), *all = g_new (double, 6 * world);
  double wait_req = 0, wait_got = 0;
  for (int s = 0; s < steps; s++) {
    g_mutex_lock (&c.lock);
    c.head = c.tail = c.done = 0;
    g_mutex_unlock (&c.lock);
    MPI_Barrier (MPI_COMM_WORLD);
    double t0 = now_s ();
    c.step_t0 = t0;
    double loss = 0, emu0 = mono_s (), deadline = emu0, t1 = t0, fwd_total = 0;
    for (int k = 0; k < accum; k++) {
      gboolean last = k == accum - 1;
      double f0 = now_s ();
      if (net) {
        /* micro-step k of step s: its own samples; gradients accumulate (no_sync) */
        dps_train_net_batch (net, (guint32) seed, (((gint64) s * accum + k) * world + rank) * batch);
        net->accumulate = k > 0;
        dps_train_net_forward (net);
        loss = dps_train_net_loss_grad (net);
      } else {
        for (int l = 0; l < L; l++) {
          deadline += g_array_index (fwd, double, l);
          wait_until (deadline);
        }
      }
      fwd_total += now_s () - f0;
      int next = 0;
      for (int l = L - 1; l >= 0; l--) {
        if (net)
          dps_train_net_backward_layer (net, l);
        else {
          deadline += g_array_index (bwd, double, l);
          wait_until (deadline);
        }
        /* DDP: a ready bucket launches once every lower-numbered one has;
         * only in the last micro-step (the others run under no_sync) */
        while (last && next < nb && dps_buckets_get (bk, next)->ready_layer >= l)
          launch (&c, next++);
      }
    }
    t1 = t0 + fwd_total;
    double t2 = now_s ();
    if (!net) {
      wait_req += deadline - emu0;
      wait_got += mono_s () - emu0;
    }
    wait_all (&c, nb);
    double t3 = now_s ();
    if (net) {
      /* summed over micro-steps and replicas: the update uses their mean */
      if (!dps_train_net_update (net, adam, lr, 1.0 / ((double) accum * world), s + 1, &error))
        fail (error->message);
    } else if (opt_ms > 0) {
      double o0 = mono_s ();
      wait_until (o0 + opt_ms * 1e-3);
      wait_req += opt_ms * 1e-3;
      wait_got += mono_s () - o0;
    }
    double t4 = now_s ();
    double mine[6] = { t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0, loss };
    memcpy (stats, mine, sizeof mine);
    MPI_Gather (stats, 6, MPI_DOUBLE, all, 6, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    /* every replica holds the same parameters (hashes compared) */
    unsigned long long h = net ? dps_train_net_hash (net) : 0, *hs = g_new (unsigned long long, world);
    MPI_Gather (&h, 1, MPI_UNSIGNED_LONG_LONG, hs, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      for (int r = 0; r < world; r++) {
        printf ("step %d %d %.9g %.9g %.9g %.9g %.9g %.9g\n", s, r, all[6 * r], all[6 * r + 1], all[6 * r + 2],
                all[6 * r + 3], all[6 * r + 4], all[6 * r + 5]);
        if (hs[r] != hs[0]) {
          printf ("# error replica %d's parameters differ from replica 0's after step %d\n", r, s);
          fflush (stdout);
          MPI_Abort (MPI_COMM_WORLD, 1);
        }
      }
      for (int b = 0; b < nb; b++)
        printf ("bucket %d %d %.0f %.9g %.9g\n", s, b, dps_buckets_get (bk, b)->bytes, c.t_start[b], c.t_dur[b]);
      fflush (stdout);
    }
    g_free (hs);
  }
  g_mutex_lock (&c.lock);
  c.quit = TRUE;
  g_cond_broadcast (&c.cond);
  g_mutex_unlock (&c.lock);
  g_thread_join (thread);
  double w[2] = { wait_req, wait_got }, wsum[2];
  MPI_Reduce (w, wsum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0 && emulate) {
    printf ("wait %.9g %.9g\n", wsum[0], wsum[1]);
    fflush (stdout);
  }
  MPI_Finalize ();
  return 0;
}
