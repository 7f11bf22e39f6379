/* worker.c — see worker.h. */
#include "real/worker.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* replicas on this host; all on one host: their CLOCK_MONOTONIC is one clock */
static int      local_ranks = 1;
static gboolean one_host;

int
dps_worker_local (void)
{
  return local_ranks;
}

double
dps_worker_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void
dps_worker_fail (const char *msg)
{
  printf ("# error %s\n", msg);
  fflush (stdout);
  MPI_Abort (MPI_COMM_WORLD, 1);
  exit (1);
}

static double *
parse_times (const char *s, int want)
{
  g_auto (GStrv) p = g_strsplit (s ? s : "", ",", -1);
  if ((int) g_strv_length (p) != want)
    return NULL;
  double *t = g_new (double, MAX (want, 1));
  for (int i = 0; i < want; i++)
    t[i] = g_ascii_strtod (p[i], NULL);
  return t;
}

static void
parse (int *argc, char ***argv, DpsWorkerOpts *o)
{
  *o = (DpsWorkerOpts) { .batch = 32, .steps = 10, .seed = 1, .accum = 1, .cap_mb = 25, .first_mb = 1 };
  GOptionEntry entries[] = {
    { "model", 0, 0, G_OPTION_ARG_STRING, &o->model_name, "model", NULL },
    { "batch", 0, 0, G_OPTION_ARG_INT, &o->batch, "per-replica batch", NULL },
    { "steps", 0, 0, G_OPTION_ARG_INT, &o->steps, "steps", NULL },
    { "grad-accum", 0, 0, G_OPTION_ARG_INT, &o->accum, "micro-steps per step, all but the last without all-reduce",
      NULL },
    { "seed", 0, 0, G_OPTION_ARG_INT, &o->seed, "seed", NULL },
    { "bucket-cap-mb", 0, 0, G_OPTION_ARG_DOUBLE, &o->cap_mb, "bucket cap", NULL },
    { "first-bucket-mb", 0, 0, G_OPTION_ARG_DOUBLE, &o->first_mb, "first bucket cap", NULL },
    { "optimizer", 0, 0, G_OPTION_ARG_STRING, &o->optimizer, "sgd or adam", NULL },
    { "lr", 0, 0, G_OPTION_ARG_DOUBLE, &o->lr, "learning rate", NULL },
    { "emulate", 0, 0, G_OPTION_ARG_NONE, &o->emulate, "waits instead of compute", NULL },
    { "fwd", 0, 0, G_OPTION_ARG_STRING, &o->fwd_s, "emulated forward seconds per layer", NULL },
    { "bwd", 0, 0, G_OPTION_ARG_STRING, &o->bwd_s, "emulated backward seconds per layer", NULL },
    { "opt-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o->opt_ms, "emulated optimizer ms", NULL },
    { "check-gradient", 0, 0, G_OPTION_ARG_NONE, &o->check, "compare averaged shard gradients with the whole batch's",
      NULL },
    { "time-layers", 0, 0, G_OPTION_ARG_NONE, &o->time_layers, "only time the model's layers on this device", NULL },
    G_OPTION_ENTRY_NULL
  };
  GOptionContext *ctx = g_option_context_new (NULL);
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, argc, argv, &error))
    dps_worker_fail (error->message);
  g_option_context_free (ctx);
  if (o->batch < 1 || o->steps < 1 || o->accum < 1)
    dps_worker_fail ("--batch, --steps and --grad-accum must be at least 1");
  o->adam = o->optimizer && g_str_equal (o->optimizer, "adam");
  if (o->lr <= 0)
    o->lr = o->adam ? 1e-3 : 0.02;
}

/* The model, its buckets (fp32 gradients) as ranges: tensors are in
 * definition order in the flat array and a bucket holds consecutive
 * tensors in reverse order, so it starts at its last (lowest) tensor. */
static void
plan (const DpsWorkerOpts *o, DpsWorkerPlan *p)
{
  GError *error = NULL;
  memset (p, 0, sizeof *p);
  p->model = dps_model_load (o->model_name ? o->model_name : "mlp", &error);
  if (!p->model)
    dps_worker_fail (error->message);
  DpsModel *m = p->model;
  int L = dps_model_n_layers (m);
  p->buckets = dps_buckets_assign (m, o->cap_mb * 1048576, o->first_mb * 1048576, 4);
  p->n_buckets = dps_buckets_count (p->buckets);
  gint64 *toff = g_new (gint64, dps_model_n_tensors (m) + 1);
  toff[0] = 0;
  for (int t = 0; t < dps_model_n_tensors (m); t++)
    toff[t + 1] = toff[t] + dps_model_tensor (m, t)->numel;
  p->start = g_new (gint64, p->n_buckets);
  p->count = g_new (gint64, p->n_buckets);
  for (int b = 0; b < p->n_buckets; b++) {
    const DpsBucket *bu = dps_buckets_get (p->buckets, b);
    p->start[b] = toff[p->buckets->order[bu->first + bu->n_tensors - 1]];
    p->count[b] = bu->numel;
  }
  g_free (toff);
  if (o->emulate) {
    p->fwd_s = parse_times (o->fwd_s, L);
    p->bwd_s = parse_times (o->bwd_s, L);
    if (!p->fwd_s || !p->bwd_s)
      dps_worker_fail ("--emulate needs --fwd and --bwd with one time per layer");
  }
}

void
dps_worker_start (int *argc, char ***argv, gboolean threads, int *rank, int *world, DpsWorkerOpts *o,
                  DpsWorkerPlan *p)
{
  int provided;
  MPI_Init_thread (argc, argv, threads ? MPI_THREAD_SERIALIZED : MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, rank);
  MPI_Comm_size (MPI_COMM_WORLD, world);
  MPI_Comm node;
  MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, *rank, MPI_INFO_NULL, &node);
  MPI_Comm_size (node, &local_ranks);
  MPI_Comm_free (&node);
  one_host = local_ranks == *world;
  parse (argc, argv, o);
  plan (o, p);
}

void
dps_worker_finish (DpsWorkerOpts *o, DpsWorkerPlan *p)
{
  g_clear_pointer (&o->model_name, g_free);
  g_clear_pointer (&o->optimizer, g_free);
  g_clear_pointer (&o->fwd_s, g_free);
  g_clear_pointer (&o->bwd_s, g_free);
  g_clear_pointer (&p->buckets, dps_buckets_free);
  g_clear_pointer (&p->model, dps_model_free);
  g_clear_pointer (&p->start, g_free);
  g_clear_pointer (&p->count, g_free);
  g_clear_pointer (&p->fwd_s, g_free);
  g_clear_pointer (&p->bwd_s, g_free);
}

void
dps_worker_header (int rank, const char *library, const DpsWorkerPlan *p)
{
  if (rank != 0)
    return;
  printf ("# library %s\n# buckets %d", library, p->n_buckets);
  for (int b = 0; b < p->n_buckets; b++)
    printf (" %.0f", dps_buckets_get (p->buckets, b)->bytes);
  printf ("\n");
  fflush (stdout);
}

float *
dps_worker_gradients (DpsDev *dev, const DpsWorkerOpts *o, const DpsWorkerPlan *p, DpsTrainNet **net)
{
  GError *error = NULL;
  *net = NULL;
  if (o->emulate) {
    float *g = dev->alloc (dev, sizeof (float) * p->model->n_params);
    if (!g)
      dps_worker_fail (g_str_equal (dev->name, "cpu") ? "not enough memory for the gradients"
                                                      : "not enough GPU memory for the gradients");
    return g;
  }
  *net = dps_train_net_new_on (dev, p->model, o->batch, (guint32) o->seed, &error);
  if (!*net)
    dps_worker_fail (error->message);
  return (*net)->grads;
}

void
dps_worker_time_layers (DpsDev *dev, const DpsWorkerOpts *o, const DpsWorkerPlan *p, int rank)
{
  if (rank != 0)
    return;
  int L = dps_model_n_layers (p->model);
  double *t = g_new (double, 2 * L + 2);
  if (!dps_train_net_layer_times_on (dev, p->model, o->batch, 1.0, t, t + L, t + 2 * L, t + 2 * L + 1))
    dps_worker_fail ("the runner cannot train this model (MLPs and GPT-2 stacks)");
  GError *error = NULL;
  if (!dev->sync (dev, &error))
    dps_worker_fail (error->message);
  dps_train_net_print_layers (L, t);
  g_free (t);
}

static float *
host_grads (DpsTrainNet *n)
{
  float *g = g_new (float, n->n_params);
  n->dev->download (n->dev, g, n->grads, sizeof (float) * n->n_params);
  return g;
}

void
dps_worker_gradcheck (DpsTrainNet *net, const DpsWorkerOpts *o, const DpsWorkerPlan *p, int rank, int world,
                      DpsWorkerAllreduce allreduce, void *data)
{
  GError *error = NULL;
  dps_train_net_batch (net, (guint32) o->seed, (gint64) rank * o->batch);
  dps_train_net_forward (net);
  dps_train_net_loss_grad (net);
  dps_train_net_backward (net);
  allreduce (net->grads, net->n_params, data);
  if (rank != 0)
    return;
  float *shards = host_grads (net);
  DpsTrainNet *whole = dps_train_net_new_on (net->dev, p->model, o->batch * world, (guint32) o->seed, &error);
  if (!whole)
    dps_worker_fail (error->message);
  dps_train_net_batch (whole, (guint32) o->seed, 0);
  dps_train_net_forward (whole);
  dps_train_net_loss_grad (whole);
  dps_train_net_backward (whole);
  float *all = host_grads (whole);
  double maxdiff = 0, maxg = 0;
  for (gint64 i = 0; i < net->n_params; i++) {
    maxdiff = MAX (maxdiff, fabs (all[i] - shards[i] / world));
    maxg = MAX (maxg, fabs (all[i]));
  }
  printf ("# gradcheck %.3g\n", maxg > 0 ? maxdiff / maxg : 0);
  fflush (stdout);
  g_free (shards);
  g_free (all);
  dps_train_net_free (whole);
}

void
dps_worker_report (int rank, int world, int s, const double mine[6], guint64 hash, const DpsWorkerPlan *p,
                   double t0, const double *t_start, const double *t_dur)
{
  int nb = p->n_buckets;
  double *all = rank == 0 ? g_new (double, 6 * world) : NULL;
  double *bt = g_new (double, 2 * nb), *bts = rank == 0 ? g_new (double, 2 * nb * world) : NULL;
  unsigned long long h = hash, *hs = rank == 0 ? g_new (unsigned long long, world) : NULL;
  /* on one host, on its clock (the barrier before a step lets replicas go
   * some tens of microseconds apart); else from each one's step start */
  for (int b = 0; b < nb; b++) {
    bt[2 * b] = t_start[b] + (one_host ? t0 : 0);
    bt[2 * b + 1] = t_dur[b];
  }
  MPI_Gather (mine, 6, MPI_DOUBLE, all, 6, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather (bt, 2 * nb, MPI_DOUBLE, bts, 2 * nb, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather (&h, 1, MPI_UNSIGNED_LONG_LONG, hs, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  g_free (bt);
  if (rank != 0)
    return;
  for (int r = 0; r < world; r++) {
    printf ("step %d %d %.9g %.9g %.9g %.9g %.9g %.9g\n", s, r, all[6 * r], all[6 * r + 1], all[6 * r + 2],
            all[6 * r + 3], all[6 * r + 4], all[6 * r + 5]);
    if (hs[r] != hs[0]) {
      char msg[128];
      g_snprintf (msg, sizeof msg, "replica %d's parameters differ from replica 0's after step %d", r, s);
      dps_worker_fail (msg);
    }
  }
  /* a collective cannot finish before its last replica joins: what the
   * library took is from the last arrival to the last finish */
  for (int b = 0; b < nb; b++) {
    double arrive = -G_MAXDOUBLE, finish = -G_MAXDOUBLE;
    for (int r = 0; r < world; r++) {
      const double *x = bts + 2 * ((gsize) r * nb + b);
      arrive = MAX (arrive, x[0]);
      finish = MAX (finish, x[0] + x[1]);
    }
    printf ("bucket %d %d %.0f %.9g %.9g %.9g\n", s, b, dps_buckets_get (p->buckets, b)->bytes, t_start[b], t_dur[b],
            finish - arrive);
  }
  fflush (stdout);
  g_free (all);
  g_free (bts);
  g_free (hs);
}
