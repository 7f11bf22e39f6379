/* worker.c — see worker.h. */
#include "real/worker.h"
#include "real/tensor-parallel.h"
#include "sim/base/error.h"

#include <stdio.h>
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
  *o = (DpsWorkerOpts) { .batch = 32, .steps = 10, .seed = 1, .accum = 1, .cap_mb = 25, .first_mb = 1, .tp = 1, .pp = 1,
                         .micro = 1 };
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
    { "strategy", 0, 0, G_OPTION_ARG_STRING, &o->strategy_name, "ddp, zero1, zero2, fsdp or hsdp", NULL },
    { "shard-group", 0, 0, G_OPTION_ARG_INT, &o->shard_group, "hsdp: ranks a shard group", NULL },
    { "tp", 0, 0, G_OPTION_ARG_INT, &o->tp, "tensor parallel ranks a group (consecutive ranks)", NULL },
    { "pp", 0, 0, G_OPTION_ARG_INT, &o->pp, "pipeline stages (the outermost ranks)", NULL },
    { "micro-batches", 0, 0, G_OPTION_ARG_INT, &o->micro, "pipeline: micro-batches a step, dividing --batch", NULL },
    { "check-params", 0, 0, G_OPTION_ARG_NONE, &o->check_params, "print the parameters' norm after the last step",
      NULL },
    { "save-params", 0, 0, G_OPTION_ARG_FILENAME, &o->save_params, "and write them to this file", NULL },
    G_OPTION_ENTRY_NULL
  };
  GOptionContext *ctx = g_option_context_new (NULL);
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, argc, argv, &error))
    dps_worker_fail (error->message);
  g_option_context_free (ctx);
  if (o->batch < 1 || o->steps < 1 || o->accum < 1 || o->tp < 1 || o->pp < 1 || o->micro < 1)
    dps_worker_fail ("--batch, --steps, --grad-accum, --tp, --pp and --micro-batches must be at least 1");
  if ((o->tp > 1 || o->pp > 1) && (o->emulate || o->check || o->time_layers))
    dps_worker_fail ("--tp, --pp: not with --emulate, --check-gradient or --time-layers");
  if (o->pp > 1 && (o->tp > 1 || o->accum > 1 || o->batch % o->micro))
    dps_worker_fail ("--pp: not with --tp or --grad-accum; --micro-batches must divide --batch");
  if (!o->strategy_name)
    o->strategy = DPS_STRATEGY_DDP;
  else if (!dps_strategy_parse (o->strategy_name, &o->strategy))
    dps_worker_fail ("--strategy: not ddp, zero1, zero2, fsdp or hsdp");
  o->check_params = o->check_params || o->save_params;
  o->adam = o->optimizer && g_str_equal (o->optimizer, "adam");
  if (o->lr <= 0)
    o->lr = o->adam ? 1e-3 : 0.02;
}

/* The model, its shard layout and step program, its buckets (fp32
 * gradients) as ranges: a bucket holds consecutive tensors in reverse
 * order, so it runs from its last (lowest) tensor to the end of its first
 * (the padding of the layers between included). */
static void
plan (const DpsWorkerOpts *o, int rank, int world, DpsWorkerPlan *p)
{
  GError *error = NULL;
  memset (p, 0, sizeof *p);
  p->model = dps_model_load (o->model_name ? o->model_name : "mlp", &error);
  if (!p->model)
    dps_worker_fail (error->message);
  /* tensor parallelism: groups of tp consecutive ranks, each rank its part
   * of the model; data parallelism over the groups */
  if (world % (o->tp * o->pp))
    dps_worker_fail ("--tp x --pp must divide the ranks");
  p->tp = o->tp;
  p->pp = o->pp;
  p->micro = o->pp > 1 ? o->micro : 1;
  p->tp_rank = rank % o->tp;
  p->dp = world / (o->tp * o->pp);
  p->dp_rank = rank / o->tp % p->dp;
  p->stage = rank / (o->tp * p->dp);
  if (o->pp > 1) {
    if (o->strategy != DPS_STRATEGY_DDP)
      dps_worker_fail ("--pp: the data parallelism is ddp");
    if (!dps_gpt2_check (p->model, &error))
      dps_worker_fail (error->message);
  }
  if (o->tp > 1) {
    if (o->strategy != DPS_STRATEGY_DDP)
      dps_worker_fail ("--tp: the data parallelism is ddp");
    p->full = p->model;
    if (!(p->model = dps_tp_shard_model (p->full, o->tp, &error)))
      dps_worker_fail (error->message);
  }
  DpsModel *m = p->model;
  int L = dps_model_n_layers (m);
  world = p->dp;
  rank = p->dp_rank;
  int shards = o->strategy == DPS_STRATEGY_HSDP ? (o->shard_group > 0 ? o->shard_group : world) : world;
  if (world % shards)
    dps_worker_fail ("--shard-group must divide the replicas");
  p->layout = dps_shard_layout_new (m, o->strategy, world, shards, rank);
  const gint64 *toff = p->layout->toff;
  p->buckets = dps_buckets_assign (m, o->cap_mb * 1048576, o->first_mb * 1048576, 4);
  p->n_buckets = dps_buckets_count (p->buckets);
  p->start = g_new (gint64, p->n_buckets);
  p->count = g_new (gint64, p->n_buckets);
  for (int b = 0; b < p->n_buckets; b++) {
    const DpsBucket *bu = dps_buckets_get (p->buckets, b);
    int hi = p->buckets->order[bu->first], lo = p->buckets->order[bu->first + bu->n_tensors - 1];
    p->start[b] = toff[lo];
    p->count[b] = toff[hi] + dps_model_tensor (m, hi)->numel - toff[lo];
  }
  p->program = dps_step_program_new (p->layout, p->buckets, o->accum);
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
  /* tensor parallelism's all-reduces come from the compute thread while
   * the communication thread runs the data-parallel ones: both call MPI */
  gboolean tp = FALSE;
  for (int i = 1; i < *argc; i++)
    tp |= g_str_has_prefix ((*argv)[i], "--tp=") && !g_str_equal ((*argv)[i], "--tp=1");
  int provided, want = !threads ? MPI_THREAD_SINGLE : tp ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED;
  MPI_Init_thread (argc, argv, want, &provided);
  if (provided < want)
    dps_worker_fail ("--tp: this MPI library does not let two threads call it at once (MPI_THREAD_MULTIPLE)");
  MPI_Comm_rank (MPI_COMM_WORLD, rank);
  MPI_Comm_size (MPI_COMM_WORLD, world);
  MPI_Comm node;
  MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, *rank, MPI_INFO_NULL, &node);
  MPI_Comm_size (node, &local_ranks);
  MPI_Comm_free (&node);
  one_host = local_ranks == *world;
  parse (argc, argv, o);
  plan (o, *rank, *world, p);
}

void
dps_worker_finish (DpsWorkerOpts *o, DpsWorkerPlan *p)
{
  g_clear_pointer (&o->model_name, g_free);
  g_clear_pointer (&o->optimizer, g_free);
  g_clear_pointer (&o->fwd_s, g_free);
  g_clear_pointer (&o->bwd_s, g_free);
  g_clear_pointer (&o->strategy_name, g_free);
  g_clear_pointer (&o->save_params, g_free);
  g_clear_pointer (&p->program, dps_step_program_free);
  g_clear_pointer (&p->layout, dps_shard_layout_free);
  g_clear_pointer (&p->buckets, dps_buckets_free);
  g_clear_pointer (&p->model, dps_model_free);
  g_clear_pointer (&p->full, dps_model_free);
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
  printf ("\n# strategy %s %d %d\n", dps_strategy_name (p->layout->strategy), p->layout->shards,
          p->layout->n_units);
  fflush (stdout);
}

static void *
alloc_or_fail (DpsDev *dev, gint64 n, const char *what)
{
  void *x = dev->alloc (dev, sizeof (float) * (gsize) MAX (n, 1));
  if (!x) {
    char msg[160];
    g_snprintf (msg, sizeof msg, "not enough %s for %s", g_str_equal (dev->name, "cpu") ? "memory" : "GPU memory",
                what);
    dps_worker_fail (msg);
  }
  return x;
}

void
dps_worker_buffers (DpsDev *dev, const DpsWorkerOpts *o, const DpsWorkerPlan *p, DpsTrainNet **net,
                    DpsWorkerBuffers *b)
{
  GError *error = NULL;
  const DpsShardLayout *l = p->layout;
  memset (b, 0, sizeof *b);
  *net = NULL;
  if (o->emulate) {
    gint64 unit = 0, shard = 0;
    for (int u = 0; u < l->n_units; u++) {
      unit = MAX (unit, l->padded[u]);
      shard = MAX (shard, l->shard[u]);
    }
    b->own_flat = TRUE;
    b->one_unit = l->strategy != DPS_STRATEGY_DDP;
    /* DDP updates nothing when emulating; the others gather parameters */
    b->grads = alloc_or_fail (dev, dps_shard_layout_scatters (l) ? unit : l->total, "the gradients");
    if (b->one_unit)
      b->params = alloc_or_fail (dev, unit, "the parameters");
    if (dps_shard_layout_scatters (l))
      b->gshard = alloc_or_fail (dev, shard, "the gradient shard");
    if (dps_shard_layout_gathers (l))
      b->pshard = alloc_or_fail (dev, shard, "the parameter shard");
    return;
  } else {
    /* a pipeline stage's net runs a micro-batch at a time and holds the
     * activations of those in flight (pipeline-step.h) */
    *net = dps_train_net_new_tp (dev, p->model, o->batch / p->micro, (guint32) o->seed, l->shards, p->tp, p->tp_rank,
                                 &error);
    if (!*net || (p->pp > 1 && !dps_gpt2_slots (*net, MIN (p->pp - p->stage, p->micro), &error)))
      dps_worker_fail (error->message);
    g_assert ((*net)->n_params == l->total);
    b->params = (*net)->params;
    b->grads = (*net)->grads;
  }
  if (dps_shard_layout_scatters (l))
    b->gshard = alloc_or_fail (dev, l->shard_total, "the gradient shard");
  if (!dps_shard_layout_gathers (l))
    return;
  b->pshard = alloc_or_fail (dev, l->shard_total, "the parameter shard");
  gsize bytes = sizeof (float) * (gsize) l->total;
  float *host = g_malloc (MAX (bytes, 1));
  dev->download (dev, host, b->params, bytes);
  for (int u = 0; u < l->n_units; u++)
    dev->upload (dev, b->pshard + l->shard_off[u], host + dps_shard_layout_mine (l, u),
                 sizeof (float) * (gsize) l->shard[u]);
  g_free (host);
}

void
dps_worker_poison_params (DpsDev *dev, const DpsWorkerOpts *o, const DpsWorkerPlan *p, DpsWorkerBuffers *b)
{
  if (!o->check_params || !dps_shard_layout_gathers (p->layout) || o->emulate)
    return;
  gsize bytes = sizeof (float) * (gsize) p->layout->total;
  void *host = g_malloc (MAX (bytes, 1));
  memset (host, 0xff, bytes);
  dev->upload (dev, b->params, host, bytes);
  g_free (host);
}

void
dps_worker_buffers_free (DpsDev *dev, DpsTrainNet *net, DpsWorkerBuffers *b)
{
  float *mine[] = { b->pshard, b->gshard, b->m1, b->m2, b->own_flat ? b->params : NULL,
                    b->own_flat ? b->grads : NULL };
  for (gsize i = 0; i < G_N_ELEMENTS (mine); i++)
    if (mine[i])
      dev->free (dev, mine[i]);
  if (net)
    dps_train_net_free (net);
  memset (b, 0, sizeof *b);
}

void
dps_worker_micro_batch (DpsTrainNet *net, const DpsWorkerOpts *o, const DpsWorkerPlan *p, int s, int micro,
                        int rank, int world)
{
  dps_train_net_batch (net, (guint32) o->seed, (((gint64) s * o->accum + micro) * world + rank) * o->batch);
  net->accumulate = p->program->local_accumulation && micro > 0;
}

/* where unit u's span lies in the flat buffers, its shard in the shard
 * buffers, and this rank's slice of the span (emulated sharded replicas
 * hold one of each, at 0) */
static gint64
unit_at (const DpsWorkerPlan *p, const DpsWorkerBuffers *b, int u)
{
  return b->one_unit ? 0 : p->layout->off[u];
}

static gint64
shard_at (const DpsWorkerPlan *p, const DpsWorkerBuffers *b, int u)
{
  return b->one_unit ? 0 : p->layout->shard_off[u];
}

static gint64
mine_at (const DpsWorkerPlan *p, const DpsWorkerBuffers *b, int u)
{
  return unit_at (p, b, u) + (gint64) p->layout->shard_index * p->layout->shard[u];
}

void
dps_worker_op_buffers (const DpsWorkerPlan *p, const DpsWorkerBuffers *b, const DpsStepOp *op, float **send,
                       float **recv, gint64 *count)
{
  int u = op->index;
  switch (op->kind) {
  case DPS_STEP_ALLREDUCE:
    *send = *recv = b->grads + p->start[u];
    *count = p->count[u];
    return;
  case DPS_STEP_GATHER:
  case DPS_STEP_GATHER_BACKWARD:
    *send = b->pshard + shard_at (p, b, u);
    *recv = b->params + unit_at (p, b, u);
    break;
  case DPS_STEP_GATHER_UPDATED:
    *send = b->params + mine_at (p, b, u);
    *recv = b->params + unit_at (p, b, u);
    break;
  case DPS_STEP_REDUCE_SCATTER:
    *send = b->grads + unit_at (p, b, u);
    *recv = b->gshard + shard_at (p, b, u);
    break;
  case DPS_STEP_ALLREDUCE_SHARD:
    *send = *recv = b->gshard + shard_at (p, b, u);
    break;
  default:
    g_assert_not_reached ();
  }
  *count = p->layout->shard[u];
}

/* The elements the optimizer's action on unit (-1: all) updates, and
 * where: the parameters, their gradients, the offset of their moments
 * (each rank keeps its own). */
static gint64
optimizer_count (const DpsShardLayout *l, int unit)
{
  switch (l->strategy) {
  case DPS_STRATEGY_DDP:
    return l->total;
  case DPS_STRATEGY_ZERO1:
  case DPS_STRATEGY_ZERO2:
    g_assert (unit >= 0);
    return l->shard[unit];
  default:
    return l->shard_total;
  }
}

static gint64
optimizer_span (const DpsWorkerPlan *p, const DpsWorkerBuffers *b, int unit, float **prm, float **grd,
                gint64 *moff)
{
  const DpsShardLayout *l = p->layout;
  *moff = 0;
  if (l->strategy == DPS_STRATEGY_DDP) {
    *prm = b->params;
    *grd = b->grads;
  } else if (l->strategy == DPS_STRATEGY_ZERO1 || l->strategy == DPS_STRATEGY_ZERO2) {
    *prm = b->params + mine_at (p, b, unit);
    *grd = l->strategy == DPS_STRATEGY_ZERO1 ? b->grads + mine_at (p, b, unit) : b->gshard + shard_at (p, b, unit);
    *moff = l->shard_off[unit];
  } else {
    *prm = b->pshard;
    *grd = b->gshard;
  }
  return optimizer_count (l, unit);
}

double
dps_worker_optimizer_share (const DpsWorkerPlan *p, int unit)
{
  return p->model->n_params > 0 ? (double) optimizer_count (p->layout, unit) / p->model->n_params : 0;
}

gboolean
dps_worker_optimize (DpsDev *dev, const DpsWorkerOpts *o, const DpsWorkerPlan *p, DpsWorkerBuffers *b, int unit,
                     double grad_scale, int step, GError **error)
{
  float *prm, *grd;
  gint64 moff, n = optimizer_span (p, b, unit, &prm, &grd, &moff);
  if (o->adam && !b->m1) {
    gint64 all = p->layout->strategy == DPS_STRATEGY_DDP ? p->layout->total : p->layout->shard_total;
    b->m1 = dev->alloc (dev, sizeof (float) * (gsize) MAX (all, 1));
    b->m2 = dev->alloc (dev, sizeof (float) * (gsize) MAX (all, 1));
    if (!b->m1 || !b->m2) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "Adam's moments: out of %s memory", dev->name);
      return FALSE;
    }
  }
  dps_train_net_optimize (dev, o->adam, o->lr, grad_scale, step, prm, grd, b->m1 ? b->m1 + moff : NULL,
                          b->m2 ? b->m2 + moff : NULL, n);
  return TRUE;
}

void
dps_worker_accumulate (DpsDev *dev, const DpsWorkerPlan *p, DpsWorkerBuffers *b, int unit)
{
  const DpsShardLayout *l = p->layout;
  if (l->group == 0)
    dev->axpy (dev, l->shard[unit], 1.0f, b->gshard + shard_at (p, b, unit), b->grads + mine_at (p, b, unit));
}

guint64
dps_worker_hash (DpsDev *dev, const DpsWorkerPlan *p, const DpsWorkerBuffers *b)
{
  if (dps_shard_layout_gathers (p->layout))
    return dps_train_net_hash_floats (dev, b->pshard, p->layout->shard_total);
  return dps_train_net_hash_floats (dev, b->params, p->layout->total);
}

void
dps_worker_step_times (const DpsWorkerPlan *p, const double *act_s, double loss, double mine[9])
{
  double compute[DPS_STEP_PHASES] = { 0 }, wait[DPS_STEP_PHASES] = { 0 }, total = 0, exposed = 0;
  for (int i = 0; i < p->program->n_acts; i++) {
    const DpsStepAct *a = &p->program->acts[i];
    gboolean waits = a->kind == DPS_ACT_WAIT || a->kind == DPS_ACT_WAIT_ALL;
    (waits ? wait : compute)[a->phase] += act_s[i];
    exposed += waits ? act_s[i] : 0;
    total += act_s[i];
  }
  mine[0] = compute[DPS_STEP_IN_FORWARD];
  mine[1] = compute[DPS_STEP_IN_BACKWARD];
  mine[2] = exposed;
  /* the optimizer's phase and the issue of the updated shards' gathers
   * after it (nothing else computes after backward) */
  mine[3] = compute[DPS_STEP_IN_SYNC] + compute[DPS_STEP_IN_OPTIMIZER] + compute[DPS_STEP_IN_GATHER];
  mine[4] = total;
  mine[5] = loss;
  mine[6] = wait[DPS_STEP_IN_FORWARD];
  mine[7] = wait[DPS_STEP_IN_BACKWARD];
  mine[8] = wait[DPS_STEP_IN_GATHER];
}

void
dps_worker_report (int rank, int world, int s, const double mine[9], guint64 hash, const DpsWorkerPlan *p,
                   double t0, const double *t_start, const double *t_dur)
{
  int no = p->pp > 1 ? 0 : p->program->n_ops;   /* a pipeline's collectives are not the program's */
  double *all = rank == 0 ? g_new (double, 9 * world) : NULL;
  double *bt = g_new (double, 2 * MAX (no, 1)), *bts = rank == 0 ? g_new (double, 2 * MAX (no, 1) * world) : NULL;
  unsigned long long h = hash, *hs = rank == 0 ? g_new (unsigned long long, world) : NULL;
  /* on one host, on its clock (the barrier before a step lets replicas go
   * some tens of microseconds apart); else from each one's step start */
  for (int i = 0; i < no; i++) {
    bt[2 * i] = t_start[i] + (one_host ? t0 : 0);
    bt[2 * i + 1] = t_dur[i];
  }
  MPI_Gather (mine, 9, MPI_DOUBLE, all, 9, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather (bt, 2 * no, MPI_DOUBLE, bts, 2 * no, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather (&h, 1, MPI_UNSIGNED_LONG_LONG, hs, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  g_free (bt);
  if (rank != 0)
    return;
  for (int r = 0; r < world; r++) {
    const double *x = all + 9 * r;
    printf ("step %d %d %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", s, r, x[0], x[1], x[2], x[3], x[4], x[5],
            x[6], x[7], x[8]);
    /* the replica whose parameters must equal r's: the layout's peer, at
     * the same index of its tensor-parallel group */
    int t = r % p->tp, d = r / p->tp % p->dp, st = r / (p->tp * p->dp);
    int peer = t + p->tp * (dps_shard_layout_peer (p->layout, d) + p->dp * st);
    if (hs[r] != hs[peer]) {
      char msg[160];
      g_snprintf (msg, sizeof msg, "replica %d's parameters differ from replica %d's after step %d", r, peer, s);
      dps_worker_fail (msg);
    }
  }
  /* a collective cannot finish before its last replica joins: what the
   * library took is from the last arrival to the last finish */
  for (int i = 0; i < no; i++) {
    const DpsStepOp *op = &p->program->ops[i];
    double arrive = -G_MAXDOUBLE, finish = -G_MAXDOUBLE;
    for (int r = 0; r < world; r++) {
      const double *x = bts + 2 * ((gsize) r * no + i);
      arrive = MAX (arrive, x[0]);
      finish = MAX (finish, x[0] + x[1]);
    }
    if (op->kind == DPS_STEP_ALLREDUCE)
      printf ("bucket %d %d %.0f %.9g %.9g %.9g\n", s, op->index, op->bytes, t_start[i], t_dur[i], finish - arrive);
    else
      printf ("coll %d %s %d %d %.0f %.9g %.9g %.9g\n", s, dps_step_coll_name (op->kind), op->index, op->micro,
              op->bytes, t_start[i], t_dur[i], finish - arrive);
  }
  fflush (stdout);
  g_free (all);
  g_free (bts);
  g_free (hs);
}

void
dps_worker_report_waits (int rank, const DpsWorkerOpts *o, double asked_s, double taken_s)
{
  double w[2] = { asked_s, taken_s }, sum[2];
  MPI_Reduce (w, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0 && o->emulate) {
    printf ("wait %.9g %.9g\n", sum[0], sum[1]);
    fflush (stdout);
  }
}
