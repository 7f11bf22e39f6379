/* cpu-calibrate.c — see cpu-calibrate.h. */
#include "calibrate/cpu-calibrate.h"
#include "real/launch.h"
#include "sim/coll.h"
#include "real/train-net.h"
#include "sim/base/error.h"
#include "sim/base/datadir.h"
#include "sim/base/stats.h"

#include <cblas.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  DpsCalData   *d;
  DpsCollOp     op;
  int           ranks, nodes;
  DpsProgressFn progress;
  void         *pdata;
} LineCtx;

static gboolean
on_line (const char *line, void *data, GError **error)
{
  LineCtx *c = data;
  if (g_str_has_prefix (line, "# library ")) {
    if (!c->d->library)
      c->d->library = g_strdup (line + 10);
    return TRUE;
  }
  double bytes, t, ti, cv = 0, handoff = 0, busy = 0;
  long wrong;
  if (sscanf (line, "%lf %lf %lf %ld %lf %lf %lf", &bytes, &t, &ti, &wrong, &cv, &handoff, &busy) < 4)
    return FALSE;
  if (!(t > 0)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "the collective worker reported a time of %g s for %.0f bytes", t, bytes);
    return TRUE;
  }
  if (wrong > 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME,
                 "%s of %.0f bytes over %d ranks gave %ld wrong elements", dps_coll_op_words (c->op), bytes,
                 c->ranks, wrong);
    return TRUE;
  }
  dps_cal_data_add (c->d, c->ranks, c->nodes, bytes, t, ti, (int) wrong);
  DpsCalPoint *pt = &g_array_index (c->d->points, DpsCalPoint, c->d->points->len - 1);
  pt->op = c->op;
  pt->cv = MAX (cv, 0);
  pt->handoff_s = MAX (handoff, 0);
  pt->busy_time_s = MAX (busy, 0);
  if (c->progress) {
    g_autofree char *msg = g_strdup_printf ("%s, %d ranks on %d node%s, %10.0f B: %10.2f us (%.2f GB/s busbw)",
                                            dps_coll_op_words (c->op), c->ranks, c->nodes, c->nodes > 1 ? "s" : "",
                                            bytes, t * 1e6, dps_cal_busbw_Bps (pt) / 1e9);
    c->progress (msg, c->pdata);
  }
  return TRUE;
}

/* The median of the points' hand-off where it is known (> 0); 0 when
 * none. */
static double
handoff_median (const DpsCalData *d)
{
  GArray *v = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < d->points->len; i++) {
    double x = g_array_index (d->points, DpsCalPoint, i).handoff_s;
    if (x > 0)
      g_array_append_val (v, x);
  }
  double m = dps_quantile ((double *) v->data, v->len, 0.5);
  g_array_free (v, TRUE);
  return m;
}

/* A worker's list of sizes: "8,16,32" (bytes). */
static GString *
size_list (const double *sizes, int n_sizes)
{
  GString *list = g_string_new (NULL);
  for (int i = 0; i < n_sizes; i++)
    g_string_append_printf (list, "%s%.0f", i ? "," : "", sizes[i]);
  return list;
}

/* d was measured on this host (on its cores where cores). */
static void
measured_here (DpsCalData *d, gboolean cores)
{
  char host[256] = "";
  gethostname (host, sizeof host - 1);
  g_free (d->host);
  d->host = g_strdup (host);
  if (cores)
    dps_cal_data_set_cores (d, (int) g_get_num_processors ());
}

gboolean
dps_mpi_collective (gboolean nccl, DpsCollOp op, const DpsNetEmu *net, DpsCalData *d, const int *ranks, int n_ranks,
                    const double *sizes, int n_sizes, double min_time_s, int reps, double timeout_s,
                    DpsProgressFn progress, void *pdata, GError **error)
{
  g_return_val_if_fail (DPS_CAL_OPS >> op & 1, FALSE);
  g_autofree char *mode = g_strconcat (nccl ? "nccl-" : "", dps_coll_op_name (op), NULL);
  g_autofree char *worker = dps_helper_path ("dpscale-mpi-worker");
  if (!worker) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME,
                 "dpscale-mpi-worker not found beside dpscale (was dpscale built with MPI?)");
    return FALSE;
  }
  GString *list = size_list (sizes, n_sizes);
  gboolean ok = TRUE;
  for (int r = 0; r < n_ranks && ok; r++) {
    GPtrArray *argv = dps_launcher_argv (net, ranks[r], worker);
    if (!argv) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME,
                   "no MPI launcher: mpirun not found (Debian: apt-get install openmpi-bin)");
      ok = FALSE;
      break;
    }
    g_ptr_array_add (argv, g_strdup (mode));
    g_ptr_array_add (argv, g_strdup (list->str));
    g_ptr_array_add (argv, g_strdup_printf ("%g", min_time_s));
    g_ptr_array_add (argv, g_strdup_printf ("%d", reps));
    /* the gap on one machine only: over emulated nodes the shaped TCP
     * links behave otherwise after idling (token buckets refill, TCP
     * restarts slowly), which this does not model; measured back to back */
    if (d->gap_s > 0 && !nccl && op == DPS_OP_ALLREDUCE && !net)
    {
      g_ptr_array_add (argv, g_strdup_printf ("%.9g", d->gap_s));
      g_ptr_array_add (argv, g_strdup (d->gap_emulated ? "emulated" : "busy"));
    }
    g_ptr_array_add (argv, NULL);
    LineCtx c = { d, op, ranks[r], net ? dps_netemu_nodes (net) : 1, progress, pdata };
    ok = dps_launch_lines ((const char *const *) argv->pdata, dps_mpirun_env (), timeout_s, on_line, &c, error);
    g_ptr_array_unref (argv);
  }
  g_string_free (list, TRUE);
  if (ok) {
    /* what a collective launched on an idle communication thread waits:
     * the median over every gapped point measured */
    d->handoff_s = handoff_median (d);
    measured_here (d, !nccl);
  }
  return ok;
}

/* The command line of calibrate/gloo-worker.py at ranks, its ranks started
 * as dpscale starts a PyTorch job (real/torch-launch.py), with the worker's
 * arguments args (NULL-terminated); NULL with error set when the scripts or
 * a python3 are missing. */
static GPtrArray *
gloo_argv (int ranks, const char *const *args, GError **error)
{
  g_autofree char *script = dps_data_path ("calibrate", "gloo-worker.py");
  g_autofree char *launcher = dps_data_path ("real", "torch-launch.py");
  g_autofree char *py = dps_launch_python ();
  if (!script || !launcher || !py) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "gloo: %s",
                 !py ? "no python3 (Debian: apt-get install python3-torch)"
                 : !script ? "calibrate/gloo-worker.py not found in dpscale's data"
                           : "real/torch-launch.py not found in dpscale's data");
    return NULL;
  }
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_steal_pointer (&py));
  g_ptr_array_add (argv, g_steal_pointer (&launcher));
  g_ptr_array_add (argv, g_strdup_printf ("%d", ranks));
  g_ptr_array_add (argv, g_steal_pointer (&script));
  for (int i = 0; args[i]; i++)
    g_ptr_array_add (argv, g_strdup (args[i]));
  g_ptr_array_add (argv, NULL);
  return argv;
}

gboolean
dps_gloo_collective (DpsCollOp op, DpsCalData *d, const int *ranks, int n_ranks, const double *sizes, int n_sizes,
                     double min_time_s, int reps, double timeout_s, DpsProgressFn progress, void *pdata,
                     GError **error)
{
  g_return_val_if_fail (DPS_CAL_OPS >> op & 1, FALSE);
  if (op == DPS_OP_REDUCE_SCATTER) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "gloo: PyTorch's gloo has no reduce-scatter of tensors "
                 "(all-reduce and all-gather are measured)");
    return FALSE;
  }
  GString *list = size_list (sizes, n_sizes);
  gboolean ok = TRUE;
  for (int r = 0; r < n_ranks && ok; r++) {
    g_autofree char *t = g_strdup_printf ("%g", min_time_s), *k = g_strdup_printf ("%d", reps);
    GPtrArray *argv = gloo_argv (ranks[r], (const char *const[]) { dps_coll_op_name (op), list->str, t, k, NULL }, error);
    LineCtx c = { d, op, ranks[r], 1, progress, pdata };
    ok = argv && dps_launch_lines ((const char *const *) argv->pdata, NULL, timeout_s, on_line, &c, error);
    if (argv)
      g_ptr_array_unref (argv);
  }
  g_string_free (list, TRUE);
  if (ok) {
    measured_here (d, TRUE);
  }
  return ok;
}

typedef struct { DpsContention c; gboolean got; } ContLine;

static gboolean
on_contention (const char *line, void *data, GError **error)
{
  ContLine *cl = data;
  if (sscanf (line, "contention %lf %lf %lf", &cl->c.compute, &cl->c.comm, &cl->c.copy_Bps) == 3) {
    cl->got = TRUE;
    return TRUE;
  }
  return FALSE;
}

/* The command line of a worker taking args (NULL-terminated) at ranks:
 * gloo-worker.py's (gloo_argv), else the MPI worker's under mpirun; NULL
 * with error set when a launcher or script is missing. */
static GPtrArray *
worker_argv (gboolean gloo, int ranks, const char *mpi_worker, const char *const *args, GError **error)
{
  if (gloo)
    return gloo_argv (ranks, args, error);
  GPtrArray *argv = dps_mpirun_argv (ranks, mpi_worker);
  if (!argv) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "no MPI launcher: mpirun not found (Debian: apt-get install openmpi-bin)");
    return NULL;
  }
  for (int i = 0; args[i]; i++)
    g_ptr_array_add (argv, g_strdup (args[i]));
  g_ptr_array_add (argv, NULL);
  return argv;
}

/* For each rank count: how much compute and all-reduces of bytes slow each
 * other when they overlap (GEMMs of gemm_n on one thread, the all-reduces
 * on a second, as the runner does; through gloo, as PyTorch's DDP has them
 * beside autograd, where gloo is set), and a rank's copy bandwidth while
 * all copy.  Appends to p->contention. */
gboolean
dps_cpu_contention (DpsProfile *p, gboolean gloo, const int *ranks, int n_ranks, double bytes, int gemm_n,
                    double seconds, double timeout_s, GError **error)
{
  g_autofree char *worker = gloo ? NULL : dps_helper_path ("dpscale-mpi-worker");
  if (!gloo && !worker) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "dpscale-mpi-worker not found beside dpscale");
    return FALSE;
  }
  for (int r = 0; r < n_ranks; r++) {
    g_autofree char *b = g_strdup_printf ("%.0f", bytes), *n = g_strdup_printf ("%d", gemm_n);
    g_autofree char *t = g_strdup_printf ("%g", seconds);
    const char *const args[] = { "contention", b, n, t, NULL };
    GPtrArray *argv = worker_argv (gloo, ranks[r], worker, args, error);
    if (!argv)
      return FALSE;
    ContLine cl = { { .ranks = ranks[r] }, FALSE };
    gboolean ok = dps_launch_lines ((const char *const *) argv->pdata, gloo ? NULL : dps_mpirun_env (), timeout_s,
                                    on_contention, &cl, error);
    g_ptr_array_unref (argv);
    if (!ok)
      return FALSE;
    if (!cl.got) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "the contention measurement at %d ranks reported nothing", ranks[r]);
      return FALSE;
    }
    cl.c.ranks = ranks[r];
    g_array_append_val (p->contention, cl.c);
  }
  return TRUE;
}

typedef struct { double *t; int layers, n; } LayerLine;

static gboolean
on_layers (const char *line, void *data, GError **error)
{
  LayerLine *ll = data;
  double *t = dps_train_net_parse_layers (line, &ll->layers, &ll->n);
  if (!t)
    return FALSE;
  g_free (ll->t);
  ll->t = t;
  return TRUE;
}

/* For each rank count of 2 or more: the runner's per-layer times (an MLP
 * or a GPT-2 stack, real/train-net.h) with that many ranks computing at once
 * (dpscale-mpi-worker layers), the slowest rank's, added to the profile.
 * Models the runner cannot train are skipped. */
gboolean
dps_cpu_layer_times_ranks (DpsProfile *p, const DpsModel *m, int batch, const int *ranks, int n_ranks,
                           double min_time_s, double timeout_s, GError **error)
{
  int L = dps_model_n_layers (m);
  if (!dps_train_net_check (m, NULL))
    return TRUE;
  g_autofree char *worker = dps_helper_path ("dpscale-mpi-worker");
  for (int r = 0; r < n_ranks; r++) {
    if (ranks[r] < 2)
      continue;
    GPtrArray *argv = worker ? dps_mpirun_argv (ranks[r], worker) : NULL;
    if (!argv) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "no MPI launcher or dpscale-mpi-worker");
      return FALSE;
    }
    g_ptr_array_add (argv, g_strdup ("layers"));
    g_ptr_array_add (argv, g_strdup (m->source ? m->source : m->name));
    g_ptr_array_add (argv, g_strdup_printf ("%d", batch));
    g_ptr_array_add (argv, g_strdup_printf ("%g", min_time_s));
    g_ptr_array_add (argv, NULL);
    LayerLine ll = { NULL, 0, 0 };
    gboolean ok = dps_launch_lines ((const char *const *) argv->pdata, dps_mpirun_env (), timeout_s, on_layers, &ll,
                                    error);
    g_ptr_array_unref (argv);
    if (ok && (ll.layers != L || ll.n != 2 * L + 2)) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "the layer timing at %d ranks reported %d values for %d layers",
                   ranks[r], ll.n, L);
      ok = FALSE;
    }
    if (ok) {
      DpsLayerTimes *lt = dps_profile_add_layers (p, m->name, batch, ranks[r], ll.t, ll.t + L, L);
      lt->sgd_s = ll.t[2 * L];
      lt->compute_cv = ll.t[2 * L + 1];
    }
    g_free (ll.t);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

/* Seconds for one m x k by k x n single-precision GEMM on one thread: the
 * fastest of repeated runs filling min_time_s. */
double
dps_cpu_gemm_time (int m, int n, int k, double min_time_s)
{
  openblas_set_num_threads (1);
  float *a = g_new (float, (gsize) m * k), *b = g_new (float, (gsize) k * n), *c = g_new0 (float, (gsize) m * n);
  for (gsize i = 0; i < (gsize) m * k; i++)
    a[i] = (float) (i % 7) * 0.1f;
  for (gsize i = 0; i < (gsize) k * n; i++)
    b[i] = (float) (i % 5) * 0.1f;
  double best = G_MAXDOUBLE, spent = 0;
  int runs = 0;
  while ((spent < min_time_s || runs < 3) && runs < 1000) {
    gint64 t0 = g_get_monotonic_time ();
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
    double dt = (g_get_monotonic_time () - t0) / 1e6;
    best = MIN (best, dt);
    spent += dt;
    runs++;
  }
  g_free (a);
  g_free (b);
  g_free (c);
  return MAX (best, 1e-9);
}

/* Square fp32 GEMMs of each size in dims; fills p->gemm and the peak, and
 * the memory copy bandwidth (bytes read and written per second, 64 MiB). */
void
dps_cpu_gemm_sweep (DpsProfile *p, const int *dims, int n_dims, double min_time_s)
{
  gsize bytes = 64u << 20;
  char *a = g_malloc (bytes), *b = g_malloc (bytes);
  memset (a, 1, bytes);
  memset (b, 2, bytes);
  double best = G_MAXDOUBLE;
  for (int r = 0; r < 5; r++) {
    gint64 t0 = g_get_monotonic_time ();
    memcpy (b, a, bytes);
    best = MIN (best, (g_get_monotonic_time () - t0) / 1e6);
  }
  p->copy_bw_Bps = 2.0 * bytes / MAX (best, 1e-9);
  g_free (a);
  g_free (b);
  for (int i = 0; i < n_dims; i++) {
    int d = dims[i];
    double t = dps_cpu_gemm_time (d, d, d, min_time_s);
    DpsGemmPoint q = { DPS_DTYPE_FP32, d, d, d, 2.0 * d * d * d / t };
    g_array_append_val (p->gemm, q);
    p->gemm_peak_flops = MAX (p->gemm_peak_flops, q.flops);
  }
}

/* Per-layer forward and backward times at a per-replica batch.  MLPs and
 * GPT-2 stacks run the CPU runner's own layers; other models are priced by GEMMs: each 2-D
 * weight (rows x cols, as nn.Linear stores it) costs one GEMM forward
 * (tokens x cols by cols x rows) and two of the same size backward (input
 * and weight gradients), tokens being batch x sequence length.  Layers
 * without FLOPs (embedding lookups) cost nothing. */
void
dps_cpu_layer_times (const DpsModel *m, int batch, double min_time_s, double *fwd_s, double *bwd_s, double *sgd_s,
                     double *cv)
{
  *sgd_s = *cv = 0;
  if (dps_train_net_layer_times (m, batch, min_time_s, fwd_s, bwd_s, sgd_s, cv))
    return;
  int tokens = batch * MAX (m->seq_len, 1);
  GHashTable *cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (int l = 0; l < dps_model_n_layers (m); l++) {
    const DpsLayer *layer = dps_model_layer (m, l);
    fwd_s[l] = bwd_s[l] = 0;
    if (layer->fwd_flops <= 0)
      continue;   /* embeddings: a lookup, no GEMM */
    for (int t = layer->first_tensor; t < layer->first_tensor + layer->n_tensors; t++) {
      const DpsTensor *w = dps_model_tensor (m, t);
      if (w->rows <= 0)
        continue;
      char *key = g_strdup_printf ("%d,%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, tokens, w->rows, w->cols);
      double *cached = g_hash_table_lookup (cache, key);
      if (!cached) {
        cached = g_new (double, 1);
        *cached = dps_cpu_gemm_time (tokens, (int) w->rows, (int) w->cols, min_time_s);
        g_hash_table_insert (cache, key, cached);
      } else
        g_free (key);
      fwd_s[l] += *cached;
      bwd_s[l] += 2 * *cached;
    }
  }
  g_hash_table_unref (cache);
}
