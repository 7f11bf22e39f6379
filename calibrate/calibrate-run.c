/* calibrate-run.c — see calibrate-run.h. */
#include "calibrate/calibrate-run.h"
#include "calibrate/nccl-log.h"
#include "calibrate/gpu.h"
#include "real/run.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"
#include "sim/base/progress.h"
#include "sim/base/file.h"

#include <glib/gstdio.h>
#include <unistd.h>

static void
say (DpsProgressFn fn, const char *message, void *data)
{
  if (fn)
    fn (message, data);
}

/* A measured row as the copy check compares rows: its group, size and
 * times. */
static guint
row_hash (gconstpointer a)
{
  const DpsCalPoint *p = a;
  return g_double_hash (&p->bytes) ^ g_double_hash (&p->time_s) ^ (guint) p->ranks * 31u ^ (guint) p->nodes
         ^ (guint) p->op << 24;
}

static gboolean
row_equal (gconstpointer a, gconstpointer b)
{
  const DpsCalPoint *o = a, *n = b;
  return o->op == n->op && o->ranks == n->ranks && o->nodes == n->nodes && o->bytes == n->bytes && o->time_s == n->time_s
         && o->time_ip_s == n->time_ip_s;
}

/* Refuses a log given twice: the same file under two names, or
 * a copy (its rows, every one, already imported from another log), which
 * would weigh twice in the fit.  starts[k] is where log k's points begin.
 * Each earlier log's rows are hashed: linear in the rows. */
static gboolean
import_repeated (char **imports, int i, DpsCalData *data, const guint *starts, GError **error)
{
  for (int k = 0; k < i; k++) {
    if (dps_same_file (imports[k], imports[i])) {
      if (g_str_equal (imports[i], imports[k]))
        dps_set_field_error (error, DPS_FIELD_IMPORT, DPS_ERROR_INPUT, "%s given twice", imports[i]);
      else
        dps_set_field_error (error, DPS_FIELD_IMPORT, DPS_ERROR_INPUT, "%s is the same file as %s (given twice)",
                     imports[i], imports[k]);
      return TRUE;
    }
    g_autoptr (GHashTable) rows = g_hash_table_new (row_hash, row_equal);
    for (guint q = starts[k]; q < starts[k + 1]; q++)
      g_hash_table_add (rows, &g_array_index (data->points, DpsCalPoint, q));
    gboolean all = starts[i] < data->points->len;
    for (guint p = starts[i]; p < data->points->len && all; p++)
      all = g_hash_table_contains (rows, &g_array_index (data->points, DpsCalPoint, p));
    if (all) {
      dps_set_field_error (error, DPS_FIELD_IMPORT, DPS_ERROR_INPUT, "%s holds the same rows as %s (the same log twice)",
                   imports[i], imports[k]);
      return TRUE;
    }
  }
  return FALSE;
}

/* Every other size held out and the fit; none for a machine of one device
 * (there is no collective between devices). */
static gboolean
fit (DpsProfile *prof, GError **error)
{
  if (prof->machine_ranks == 1)
    return TRUE;
  dps_fit_mark_held_out (prof->data);
  return dps_fit_levels (prof->data, &prof->fit, error);
}

/* The joint fit of the network figures (netfit.h) on topology (NULL: the
 * machine measured) where 2+ ranks were measured; a fit the measurements
 * cannot carry is a warning, the per-group fits still serve. */
static void
fit_network (DpsProfile *prof, const char *topology, const DpsCalibrateSpec *s)
{
  gboolean multi = FALSE;   /* all-gathers or reduce-scatters alone fit no group: multi-rank points */
  for (guint i = 0; i < prof->data->points->len && !multi; i++)
    multi = g_array_index (prof->data->points, DpsCalPoint, i).ranks > 1;
  if (!multi)
    return;
  g_autoptr (GError) why = NULL;
  if (!dps_profile_fit_network (prof, topology, &why)) {
    g_autofree char *msg = g_strdup_printf ("no joint network fit: %s", why->message);
    say (s->warn, msg, s->pdata);
  }
}


/* Logs whose hosts hold fewer GPUs than a node of the topology (the 4-GPU
 * trays of an NVL72 rack, whose node is the NVLink domain): the hosts fill
 * whole domains.  Hosts of more GPUs than a node are refused.  A log that
 * names no hosts (no '#  Rank' lines: its ranks from busbw / algbw) of
 * more ranks than a node holds spans the nodes they fill (16 ranks on
 * 8-GPU nodes: 2), not one node the NICs never carry. */
static gboolean
trays_to_domains (DpsCalData *d, const char *topology, GError **error)
{
  g_autofree char *path = dps_topo_find (topology ? topology : "dgx-h100", error);
  g_autoptr (DpsTopoSpec) s = path ? dps_topo_spec_load (path, error) : NULL;
  if (!s)
    return FALSE;
  int k = s->gpus_per_node, hk = dps_topo_spec_gpus_per_host (s);
  for (guint i = 0; i < d->points->len; i++) {
    DpsCalPoint *p = &g_array_index (d->points, DpsCalPoint, i);
    int per_host = p->ranks / MAX (p->nodes, 1);
    if (p->nodes <= 1 && p->ranks > k) {
      p->nodes = (p->ranks + k - 1) / k;
      continue;
    }
    if (p->nodes <= 1 || per_host == k || hk == k)
      continue;
    if (per_host != hk || (p->ranks > k && p->ranks % k != 0)) {
      dps_set_field_error (error, DPS_FIELD_IMPORT, DPS_ERROR_INPUT, "%d ranks on hosts of %d GPUs do not fill nodes of "
                   "%d hosts of %d GPUs (%s)", p->ranks, per_host, k / hk, hk, s->name);
      return FALSE;
    }
    p->nodes = MAX (1, p->ranks / k);
  }
  return TRUE;
}


/* The machine measured here (its host name), where the measurements came
 * from (source, taken), and the fits. */
static gboolean
name_and_fit (DpsProfile *prof, char *source, const DpsCalibrateSpec *s, GError **error)
{
  char host[256] = "";
  gethostname (host, sizeof host - 1);
  prof->machine_name = g_strdup (host[0] ? host : "this machine");
  prof->data->source = source;
  if (!fit (prof, error))
    return FALSE;
  fit_network (prof, NULL, s);
  return TRUE;
}

/* cuBLAS GEMM throughput of every type, on the first GPU. */
static gboolean
gpu_gemms (DpsProfile *prof, const DpsCalibrateSpec *s, GError **error)
{
  static const int dims[] = { 1024, 2048, 4096, 8192 };
  say (s->progress, "GEMM throughput with cuBLAS (fp32, tf32, fp16, bf16)", s->pdata);
  return dps_gpu_compute (prof, dims, s->quick ? 2 : 4, error);
}

/* Whether s measures op (s->ops; 0: all-reduce alone). */
static gboolean
wanted (const DpsCalibrateSpec *s, int op)
{
  return (s->ops ? s->ops : 1u << DPS_OP_ALLREDUCE) >> op & 1 && DPS_CAL_OPS >> op & 1;
}

/* Each collective s measures, at each of ranks, through mpirun: MPI on CPU
 * cores or NCCL (nccl), on this machine or over emulated nodes (net). */
static gboolean
measure_ops (const DpsCalibrateSpec *s, gboolean nccl, const DpsNetEmu *net, DpsCalData *d, const int *ranks,
             int n_ranks, GError **error)
{
  double min_time = s->quick ? 0.03 : 0.2;
  int reps = s->quick ? 3 : 5;
  for (int op = 0; op < DPS_OP_COUNT; op++) {
    if (!wanted (s, op))
      continue;
    gboolean ok = s->gloo && !nccl && !net
                  ? dps_gloo_collective ((DpsCollOp) op, d, ranks, n_ranks, s->sizes, s->n_sizes, min_time, reps,
                                         s->timeout_s, s->progress, s->pdata, error)
                  : dps_mpi_collective (nccl, (DpsCollOp) op, net, d, ranks, n_ranks, s->sizes, s->n_sizes, min_time,
                                        reps, s->timeout_s, s->progress, s->pdata, error);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

static int
most_ranks (const DpsCalibrateSpec *s)
{
  int most = 1;
  for (int i = 0; i < s->n_ranks; i++)
    most = MAX (most, s->ranks[i]);
  return most;
}

/* The same rank counts spread over s->nodes emulated nodes: the network's
 * level of a CPU calibration. */
static gboolean
cpu_across_nodes (DpsProfile *prof, const DpsCalibrateSpec *s, GError **error)
{
  g_autoptr (GArray) multi = g_array_new (FALSE, FALSE, sizeof (int));
  int per_node = 1;
  for (int i = 0; i < s->n_ranks; i++)
    if (s->ranks[i] >= s->nodes && s->ranks[i] % s->nodes == 0) {
      g_array_append_val (multi, s->ranks[i]);
      per_node = MAX (per_node, s->ranks[i] / s->nodes);
    }
  if (multi->len == 0) {
    dps_set_field_error (error, DPS_FIELD_EMU_NODES, DPS_ERROR_INPUT, "no rank count is a multiple of %d", s->nodes);
    return FALSE;
  }
  g_autoptr (DpsNetEmu) net = dps_netemu_new (s->nodes, per_node, s->link_gbps, error);
  if (!net || !measure_ops (s, FALSE, net, prof->data, (int *) multi->data, (int) multi->len, error))
    return FALSE;
  prof->machine_nodes = s->nodes;
  prof->machine_link_Bps = s->link_gbps * 1e9 / 8;
  return TRUE;
}

DpsProfile *
dps_calibrate_cpu (const DpsCalibrateSpec *s, GError **error)
{
  g_autoptr (DpsProfile) prof = dps_profile_new (dps_cal_data_new (s->gloo ? "cpu-gloo" : "cpu-mpi"));
  DpsCalData *data = prof->data;
  const DpsModel *model = s->model;
  double gap_s = s->gap_s;
  if (model) {
    /* the runner's layers on one rank first: a step of their compute is
     * the gap before each all-reduce when gap_s < 0 */
    int L = dps_model_n_layers (model);
    g_autofree double *f = g_new (double, L), *bw = g_new (double, L);
    g_autofree char *msg = g_strdup_printf ("per-layer times of %s at batch %d", model->name, s->batch);
    say (s->progress, msg, s->pdata);
    double sgd, cv;
    dps_cpu_layer_times (model, s->batch, s->quick ? 0.01 : 0.05, f, bw, &sgd, &cv);
    DpsLayerTimes *lt = dps_profile_add_layers (prof, model->name, s->batch, 1, f, bw, L);
    lt->sgd_s = sgd;
    lt->compute_cv = cv;
    if (gap_s < 0) {
      gap_s = sgd;
      for (int l = 0; l < L; l++)
        gap_s += f[l] + bw[l];
    }
  }
  data->gap_s = MAX (gap_s, 0);
  data->gap_emulated = s->gap_emulated;
  if (!measure_ops (s, FALSE, NULL, data, s->ranks, s->n_ranks, error))
    return NULL;
  prof->machine_ranks = most_ranks (s);
  if (s->nodes > 1 && !cpu_across_nodes (prof, s, error))
    return NULL;
  if (!name_and_fit (prof, g_strdup_printf ("dpscale calibrate%s", s->quick ? " --quick" : ""), s, error))
    return NULL;
  static const int dims[] = { 64, 128, 256, 512, 1024 };
  say (s->progress, "GEMM throughput with OpenBLAS (fp32, one thread)", s->pdata);
  dps_cpu_gemm_sweep (prof, dims, s->quick ? 3 : 5, s->quick ? 0.02 : 0.1);
  say (s->progress, "contention: compute and all-reduce overlapping, memory bandwidth shared", s->pdata);
  if (!dps_cpu_contention (prof, s->gloo, s->ranks, s->n_ranks, 4 << 20, 256, s->quick ? 0.1 : 0.3, s->timeout_s,
                           error))
    return NULL;
  /* the layers with every rank count computing at once: co-located
   * replicas share caches and memory */
  if (model && !dps_cpu_layer_times_ranks (prof, model, s->batch, s->ranks, s->n_ranks, s->quick ? 0.02 : 0.05,
                                           s->timeout_s, error))
    return NULL;
  return g_steal_pointer (&prof);
}

DpsProfile *
dps_calibrate_gpu (const DpsCalibrateSpec *s, GError **error)
{
  g_autoptr (DpsProfile) prof = dps_profile_new (dps_cal_data_new ("gpu-nccl"));
  gboolean ok = TRUE;
  if (s->use_mpi)
    ok = measure_ops (s, TRUE, NULL, prof->data, s->ranks, s->n_ranks, error);
  else
    for (int op = 0; op < DPS_OP_COUNT && ok; op++)
      if (wanted (s, op))
        ok = dps_gpu_collective (prof->data, (DpsCollOp) op, s->ranks, s->n_ranks, s->sizes, s->n_sizes,
                                 s->quick ? 5 : 20, s->progress, s->pdata, error);
  prof->machine_ranks = most_ranks (s);
  if (!ok || !name_and_fit (prof, g_strdup_printf ("dpscale calibrate --backend gpu%s", s->quick ? " --quick" : ""), s,
                            error)
      || !gpu_gemms (prof, s, error))
    return NULL;
  if (s->model) {
    /* the bf16 layers a prediction of mixed-precision training takes */
    int L = dps_model_n_layers (s->model);
    g_autofree double *f = g_new (double, L), *bw = g_new (double, L);
    g_autofree char *msg = g_strdup_printf ("per-layer times of %s at batch %d (bf16, cuBLAS)", s->model->name,
                                            s->batch);
    say (s->progress, msg, s->pdata);
    if (!dps_gpu_layer_times (s->model, s->batch, DPS_DTYPE_BF16, f, bw, error))
      return NULL;
    dps_profile_add_layers (prof, s->model->name, s->batch, 1, f, bw, L);
  }
  return g_steal_pointer (&prof);
}

DpsProfile *
dps_calibrate_gpu_runner (const DpsCalibrateSpec *s, GError **error)
{
  g_autoptr (DpsProfile) prof = dps_profile_new (dps_cal_data_new ("gpu-nccl"));
  prof->machine_ranks = most_ranks (s);
  if (s->n_ranks > 0
      && !measure_ops (s, TRUE, NULL, prof->data, s->ranks, s->n_ranks, error))
    return NULL;
  if (!name_and_fit (prof, g_strdup_printf ("dpscale validate --backend gpu%s", s->quick ? " --quick" : ""), s, error)
      || !gpu_gemms (prof, s, error))
    return NULL;
  DpsRunSpec spec = { .ranks = 1, .steps = 1, .batch = s->batch, .seed = 1, .bucket_cap_mb = 25,
                      .first_bucket_mb = 1, .optimizer = "sgd", .gpu = TRUE, .time_layers = TRUE,
                      .timeout_s = s->timeout_s };
  DpsRunResult r;
  if (!dps_run_execute (&spec, s->model, &r, error)) {
    dps_run_result_clear (&r);
    return NULL;
  }
  int L = r.n_layers;
  DpsLayerTimes *lt = dps_profile_add_layers (prof, s->model->name, s->batch, 1, r.layer_s, r.layer_s + L, L);
  lt->sgd_s = r.layer_s[2 * L];
  lt->compute_cv = r.layer_s[2 * L + 1];
  dps_run_result_clear (&r);
  return g_steal_pointer (&prof);
}

DpsProfile *
dps_calibrate_import (char **logs, const char *topology, const DpsCalibrateSpec *s, GError **error)
{
  g_autoptr (DpsProfile) prof = dps_profile_new (dps_cal_data_new ("nccl-tests"));
  DpsCalData *data = prof->data;
  g_autofree guint *starts = g_new0 (guint, g_strv_length (logs) + 1);
  g_autofree char *tpath = dps_topo_find (topology ? topology : "dgx-h100", error);
  g_autoptr (DpsTopoSpec) tspec = tpath ? dps_topo_spec_load (tpath, error) : NULL;
  if (!tspec)
    return NULL;
  guint n_logs = g_strv_length (logs);
  for (int i = 0; logs[i]; i++) {
    g_autofree char *warning = NULL, *device = NULL;
    dps_progress ("reading the logs", (guint64) i, n_logs);
    starts[i] = data->points->len;
    if (!dps_nccl_log_load_warn (logs[i], data, &device, &warning, error))
      return NULL;
    g_autofree char *mismatch = dps_topo_gpu_mismatch (tspec, topology ? topology : "dgx-h100 (the default)", device,
                                                       ": give --topology");
    if (mismatch) {   /* a B200 log fitted against dgx-h100's datasheet */
      g_autofree char *msg = g_strdup_printf ("%s: %s", logs[i], mismatch);
      say (s->warn, msg, s->pdata);
    }
    starts[i + 1] = data->points->len;
    for (guint j = starts[i]; j < starts[i + 1]; j++)
      if (g_array_index (data->points, DpsCalPoint, j).ranks > DPS_SIM_MAX_GPUS) {
        g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "%s: %d ranks: at most %d GPUs are simulated", logs[i],
                     g_array_index (data->points, DpsCalPoint, j).ranks, DPS_SIM_MAX_GPUS);
        return NULL;
      }
    if (import_repeated (logs, i, data, starts, error))
      return NULL;
    g_auto (GStrv) w = g_strsplit (warning ? warning : "", "\n", -1);
    for (int j = 0; w[j]; j++)
      if (w[j][0])
        say (s->warn, w[j], s->pdata);
  }
  dps_progress ("fitting the size regimes", 0, 0);
  if (!trays_to_domains (data, topology, error) || !fit (prof, error))
    return NULL;
  fit_network (prof, topology ? topology : "dgx-h100", s);
  return g_steal_pointer (&prof);
}
