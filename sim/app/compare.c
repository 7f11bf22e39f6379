/* compare.c — see compare.h. */
#include "sim/app/compare.h"
#include "sim/app/cli-util.h"
#include "sim/base/error.h"
#include "sim/base/stats.h"
#include "sim/topo-load.h"

#include <math.h>
#include <string.h>

void
dps_compare_result_clear (DpsCompareResult *r)
{
  g_free (r->path);
  g_free (r->note);
  g_free (r->system);
  g_free (r->topology);
  if (r->rows)
    g_array_free (r->rows, TRUE);
  memset (r, 0, sizeof *r);
}

/* Predicts every row of ref.  topology (may be NULL) overrides the file's;
 * profile (may be NULL) applies a calibration as `collective -C` does.
 * Errors: no topology, hosts that do not fit its nodes, a rank count it
 * cannot hold. */
gboolean
dps_compare_reference (const DpsReference *ref, const char *topology, const DpsProfile *profile,
                       DpsNetMode mode, DpsCompareResult *out, GError **error)
{
  memset (out, 0, sizeof *out);
  if (ref->op == DPS_OP_COUNT) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: %s, a test the model has no operation for (it predicts "
                 "all_reduce_perf, all_gather_perf, reduce_scatter_perf and broadcast_perf)", ref->path,
                 dps_reference_get (ref, "test"));
    return FALSE;
  }
  const char *tname = topology ? topology : dps_reference_get (ref, "topology");
  const char *gpu = dps_reference_get (ref, "gpu");   /* the header's, or a log's first Rank line's */
  if (!tname && !profile) {
    g_autofree char *fits = dps_topo_shipped_for_gpu (gpu);
    if (fits)
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: no '#%% topology:' line: give --topology (its GPUs, %s, are "
                   "those of the shipped %s)", ref->path, gpu, fits);
    else
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: no '#%% topology:' line: give --topology", ref->path);
    return FALSE;
  }
  int n_gpus = 0;
  g_autoptr (GError) whole = NULL;
  g_autoptr (DpsTopo) topo = dps_cli_topology_calibrated (tname, profile, 0, ref->ranks, &n_gpus, &whole);
  /* ranks that fill no whole nodes (10 on 8-GPU nodes) may be fewer GPUs
   * of each of the hosts' nodes: one rank a node, as network tests run */
  if (!topo && ref->hosts > 1 && ref->ranks % ref->hosts == 0)
    topo = dps_cli_topology_calibrated (tname, profile, ref->hosts, 0, &n_gpus, NULL);
  if (!topo) {
    g_propagate_prefixed_error (error, g_steal_pointer (&whole), "%s: ", ref->path);
    return FALSE;
  }
  const DpsTopoSpec *ts = dps_topo_spec (topo);
  int k = ts->gpus_per_node, hk = dps_topo_spec_gpus_per_host (ts);
  int per_host = ref->ranks / MAX (ref->hosts, 1);
  /* fewer ranks a host than its GPUs (one process a node, as network
   * tests run): that many GPUs of each of hosts nodes */
  gboolean spread = ref->hosts > 1 && hk == k && per_host < k && per_host * ref->hosts == ref->ranks;
  if (ref->hosts > 1 && per_host != k && per_host != hk && !spread) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: hosts of %d GPUs are neither nodes (%d GPUs) nor hosts "
                 "(%d GPUs) of %s, nor fewer GPUs of each of its nodes", ref->path, per_host, k, hk,
                 tname ? tname : "the calibrated machine");
    return FALSE;
  }
  if (spread && dps_topo_n_nodes (topo) != ref->hosts) {   /* unless the fallback above built the hosts' nodes */
    g_clear_pointer (&topo, dps_topo_free);
    topo = dps_cli_topology_calibrated (tname, profile, ref->hosts, 0, &n_gpus, error);
    if (!topo) {
      g_prefix_error (error, "%s: ", ref->path);
      return FALSE;
    }
    ts = dps_topo_spec (topo);
  }
  if (spread)
    n_gpus = ref->ranks;
  /* an A100 log against dgx-h100: said (by the caller), still compared */
  g_autofree char *mismatch = tname ? dps_topo_gpu_mismatch (ts, tname, gpu, "") : NULL;
  g_autofree char *gpu_note = mismatch ? g_strdup_printf ("%s: %s", ref->path, mismatch) : NULL;
  DpsCollParams params;
  dps_tune_params_nccl (&params);
  guint amask = ref->algo_mask, pmask = ref->proto_mask;
  g_autofree char *note = NULL;
  dps_profile_apply_coll (profile, tname, n_gpus, dps_topo_n_nodes (topo), &params, &amask, &pmask, &note);
  dps_cli_note (note);
  out->note = g_steal_pointer (&gpu_note);
  out->path = ref->line ? g_strdup_printf ("%s:%d", ref->path, ref->line) : g_strdup (ref->path);   /* which table of a log of several */
  /* the system's id: the header's first word (several scales of one system share it) */
  const char *sys = dps_reference_get (ref, "system");
  out->system = sys ? g_strndup (sys, strcspn (sys, " \t,(")) : g_path_get_basename (ref->path);
  out->topology = g_strdup (tname ? tname : "calibrated");
  const char *health = dps_reference_get (ref, "health");
  out->degraded = health && g_str_has_prefix (health, "degraded");
  out->op = ref->op;
  out->ranks = ref->ranks;
  out->hosts = ref->hosts;
  out->nodes = dps_topo_n_nodes (topo);
  out->rows = g_array_new (FALSE, TRUE, sizeof (DpsCompareRow));
  const GArray *pts = ref->data->points;
  double factor = dps_coll_busbw_factor (ref->op, n_gpus);
  for (guint i = 0; i < pts->len; i++) {
    const DpsCalPoint *p = &g_array_index (pts, DpsCalPoint, i);
    DpsCollCtx ctx;
    DpsCollChoice ch;
    gboolean ok = spread ? dps_coll_ctx_init_nodes (&ctx, topo, &params, ref->hosts, per_host, ref->op, p->bytes, error)
                         : dps_coll_ctx_init (&ctx, topo, &params, n_gpus, ref->op, p->bytes, error);
    if (ok) {
      ctx.channels = MAX (ctx.channels, ref->min_channels);   /* NCCL_MIN_NCHANNELS */
      ok = dps_coll_predict (&ctx, amask, pmask, mode, &ch, error);
    }
    if (!ok) {
      g_prefix_error (error, "%s: ", ref->path);
      dps_compare_result_clear (out);
      return FALSE;
    }
    DpsCompareRow r = { .bytes = p->bytes, .measured_s = p->time_s, .predicted_s = ch.time_s,
                        .algo = ch.algo, .proto = ch.proto };
    r.measured_busbw_GBps = p->bytes / p->time_s * factor / 1e9;
    r.predicted_busbw_GBps = ch.time_s > 0 ? p->bytes / ch.time_s * factor / 1e9 : 0;
    r.error = ch.time_s > 0 ? p->time_s / ch.time_s - 1 : 0;
    g_array_append_val (out->rows, r);
  }
  return TRUE;
}

/* The median |error| over rows of at least min_bytes (-1 when none), and
 * the worst such row's error and size. */
double
dps_compare_median_abs (const DpsCompareResult *r, double min_bytes, double *worst, double *worst_bytes)
{
  g_autoptr (GArray) e = g_array_new (FALSE, FALSE, sizeof (double));
  double w = 0, wb = 0;
  for (guint i = 0; i < r->rows->len; i++) {
    const DpsCompareRow *row = &g_array_index (r->rows, DpsCompareRow, i);
    if (row->bytes < min_bytes)
      continue;
    double a = fabs (row->error);
    g_array_append_val (e, a);
    if (a >= fabs (w)) {
      w = row->error;
      wb = row->bytes;
    }
  }
  if (worst)
    *worst = w;
  if (worst_bytes)
    *worst_bytes = wb;
  return e->len ? dps_quantile ((double *) e->data, e->len, 0.5) : -1;
}
