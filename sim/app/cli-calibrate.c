/* cli-calibrate.c — `dpscale calibrate`: measure this machine (GPUs when
 * present, else CPUs through MPI and OpenBLAS) or import nccl-tests logs,
 * fit the simulator's parameters, write a profile, a CSV of the points and
 * a plot of measured against fitted bus bandwidth. */
#include "sim/app/cli.h"
#include "sim/app/cli-util.h"
#include "calibrate/profile.h"
#include "calibrate/profile-network.h"
#include "calibrate/nccl-log.h"
#include "calibrate/cpu-calibrate.h"
#include "calibrate/gpu.h"
#include "real/run.h"
#include "sim/base/plot.h"
#include "sim/nccl-tune.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

static void
progress (const char *message, void *data)
{
  fprintf (stderr, "calibrate: %s\n", message);
}

/* Refuses a log given twice to --import: the same file under two names, or
 * a copy (its rows, every one, already imported from another log), which
 * would weigh twice in the fit.  starts[k] is where log k's points begin. */
static gboolean
import_repeated (char **imports, int i, DpsCalData *data, const guint *starts, GError **error)
{
  GStatBuf a, b;
  for (int k = 0; k < i; k++) {
    if (g_stat (imports[k], &a) == 0 && g_stat (imports[i], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
      if (g_str_equal (imports[i], imports[k]))
        g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--import: %s given twice", imports[i]);
      else
        g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--import: %s is the same file as %s (given twice)",
                     imports[i], imports[k]);
      return TRUE;
    }
    gboolean all = starts[i] < data->points->len;
    for (guint p = starts[i]; p < data->points->len && all; p++) {
      DpsCalPoint *n = &g_array_index (data->points, DpsCalPoint, p);
      gboolean found = FALSE;
      for (guint q = starts[k]; q < starts[k + 1] && !found; q++) {
        DpsCalPoint *o = &g_array_index (data->points, DpsCalPoint, q);
        found = o->ranks == n->ranks && o->nodes == n->nodes && o->bytes == n->bytes && o->time_s == n->time_s
                && o->time_ip_s == n->time_ip_s;
      }
      all = found;
    }
    if (all) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--import: %s holds the same rows as %s (the same log twice)",
                   imports[i], imports[k]);
      return TRUE;
    }
  }
  return FALSE;
}

static gboolean
parse_sizes (const char *text, GArray *out, GError **error)
{
  /* MIN:MAX:FACTOR or a list */
  if (strchr (text, ':')) {
    g_auto (GStrv) p = g_strsplit (text, ":", 3);
    guint64 lo, hi;
    double f;
    if (g_strv_length (p) != 3 || !dps_parse_size (p[0], &lo) || !dps_parse_size (p[1], &hi)
        || !dps_parse_double (p[2], &f) || lo < 1 || hi < lo || f <= 1 || hi > (8ull << 30)) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--sizes: '%s' is not MIN:MAX:FACTOR (e.g. 8:64M:2, up to 8G)", text);
      return FALSE;
    }
    for (double s = (double) lo; s <= (double) hi * (1 + 1e-9); s *= f)
      g_array_append_val (out, s);
    return TRUE;
  }
  g_auto (GStrv) p = g_strsplit (text, ",", -1);
  for (int i = 0; p[i]; i++) {
    guint64 v;
    if (!dps_parse_size (p[i], &v) || v < 1 || v > (8ull << 30)) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--sizes: '%s' is not a size from 1 to 8G", p[i]);
      return FALSE;
    }
    double d = (double) v;
    g_array_append_val (out, d);
  }
  return TRUE;
}

typedef struct {
  double measured_s, fitted_s;
} Check;

/* The time the simulator gives a point with the profile applied: the same
 * path as `dpscale collective --calibration`. */
static double
simulated (const DpsProfile *p, const char *topology, const DpsCalPoint *pt, GError **error)
{
  int n_gpus;
  g_autoptr (DpsTopo) topo = dps_cli_topology_calibrated (topology, p, pt->nodes > 1 ? pt->nodes : 0, pt->ranks,
                                                          &n_gpus, error);
  if (!topo)
    return -1;
  DpsCollParams params;
  guint amask = DPS_NCCL_ALGOS, pmask = DPS_ALL_PROTOS;
  dps_coll_params_nccl (&params);
  dps_profile_apply_coll (p, topology, pt->ranks, dps_topo_n_nodes (topo), &params, &amask, &pmask, NULL);
  DpsCollCtx ctx;
  if (!dps_coll_ctx_init (&ctx, topo, &params, pt->ranks, DPS_OP_ALLREDUCE, pt->bytes, error))
    return -1;
  DpsCollChoice c;
  if (!dps_coll_choose (&ctx, amask, pmask, &c, error))
    return -1;
  dps_plan_unref (c.plan);
  return c.time_s;
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
static gboolean
fit_network (DpsProfile *prof, const char *topology, GError **error)
{
  if (prof->fit.n_groups == 0)
    return TRUE;
  g_autoptr (GError) why = NULL;
  if (!dps_profile_fit_network (prof, topology, &why))
    fprintf (stderr, "dpscale calibrate: warning: no joint network fit: %s\n", why->message);
  return TRUE;
}

/* Logs whose hosts hold fewer GPUs than a node of the topology (the 4-GPU
 * trays of an NVL72 rack, whose node is the NVLink domain): the hosts fill
 * whole domains.  Hosts of more GPUs than a node are refused. */
static gboolean
trays_to_domains (DpsCalData *d, const char *topology, GError **error)
{
  g_autofree char *path = dps_topo_find (topology ? topology : DPS_DEFAULT_TOPOLOGY, error);
  g_autoptr (DpsTopoSpec) s = path ? dps_topo_spec_load (path, error) : NULL;
  if (!s)
    return FALSE;
  int k = s->gpus_per_node, hk = s->gpus_per_host > 0 ? s->gpus_per_host : k;
  for (guint i = 0; i < d->points->len; i++) {
    DpsCalPoint *p = &g_array_index (d->points, DpsCalPoint, i);
    int per_host = p->ranks / MAX (p->nodes, 1);
    if (p->nodes <= 1 || per_host == k || hk == k)
      continue;
    if (per_host != hk || (p->ranks > k && p->ranks % k != 0)) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--import: %d ranks on hosts of %d GPUs do not fill nodes of "
                   "%d hosts of %d GPUs (%s)", p->ranks, per_host, k / hk, hk, s->name);
      return FALSE;
    }
    p->nodes = MAX (1, p->ranks / k);
  }
  return TRUE;
}

/* The machine measured here (its host name), where the measurements came
 * from (source, taken), and the fit. */
static gboolean
name_and_fit (DpsProfile *prof, char *source, GError **error)
{
  char host[256] = "";
  gethostname (host, sizeof host - 1);
  prof->machine_name = g_strdup (host[0] ? host : "this machine");
  prof->data->source = source;
  return fit (prof, error) && fit_network (prof, NULL, error);
}

/* cuBLAS GEMM throughput of every type, on the first GPU. */
static gboolean
gpu_gemms (DpsProfile *prof, gboolean quick, GError **error)
{
  static const int dims[] = { 1024, 2048, 4096, 8192 };
  progress ("GEMM throughput with cuBLAS (fp32, tf32, fp16, bf16)", NULL);
  return dps_gpu_compute (prof, dims, quick ? 2 : 4, error);
}

/* CPU calibration as `dpscale calibrate` does it: the per-layer times of
 * model at batch (model may be NULL), MPI all-reduce for each rank count
 * and size, every other size held out, the fit, OpenBLAS GEMM throughput,
 * contention, and the layers with every rank count at once.  Returns a new profile, or NULL with error. */
DpsProfile *
dps_calibrate_cpu (const int *ranks, int n_ranks, const double *sizes, int n_sizes, gboolean quick,
                   const DpsModel *model, int batch, double timeout, int nodes, double link_gbps, double gap_s,
                   gboolean gap_emulated, GError **error)
{
  g_autoptr (DpsProfile) prof = dps_profile_new (dps_cal_data_new ("cpu-mpi"));
  DpsCalData *data = prof->data;
  if (model) {
    /* the runner's layers on one rank first: a step of their compute is
     * the gap before each all-reduce when gap_s < 0 */
    int L = dps_model_n_layers (model);
    g_autofree double *f = g_new (double, L), *bw = g_new (double, L);
    g_autofree char *msg = g_strdup_printf ("per-layer times of %s at batch %d", model->name, batch);
    progress (msg, NULL);
    double sgd, cv;
    dps_cpu_layer_times (model, batch, quick ? 0.01 : 0.05, f, bw, &sgd, &cv);
    DpsLayerTimes *lt = dps_profile_add_layers (prof, model->name, batch, 1, f, bw, L);
    lt->sgd_s = sgd;
    lt->compute_cv = cv;
    if (gap_s < 0) {
      gap_s = sgd;
      for (int l = 0; l < L; l++)
        gap_s += f[l] + bw[l];
    }
  }
  data->gap_s = MAX (gap_s, 0);
  data->gap_emulated = gap_emulated;
  if (!dps_cpu_allreduce (data, ranks, n_ranks, sizes, n_sizes, quick ? 0.03 : 0.2, quick ? 3 : 5, timeout,
                          progress, NULL, error))
    return NULL;
  for (int i = 0; i < n_ranks; i++)
    prof->machine_ranks = MAX (prof->machine_ranks, ranks[i]);
  if (nodes > 1) {
    /* the same rank counts spread over emulated nodes: the network's level */
    GArray *multi = g_array_new (FALSE, FALSE, sizeof (int));
    int per_node = 1;
    for (int i = 0; i < n_ranks; i++)
      if (ranks[i] >= nodes && ranks[i] % nodes == 0) {
        g_array_append_val (multi, ranks[i]);
        per_node = MAX (per_node, ranks[i] / nodes);
      }
    if (multi->len == 0) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--nodes %d: no --gpus count is a multiple of it", nodes);
      g_array_free (multi, TRUE);
      return NULL;
    }
    g_autoptr (DpsNetEmu) net = dps_netemu_new (nodes, per_node, link_gbps, error);
    gboolean ok = net && dps_mpi_allreduce ("allreduce", net, data, (int *) multi->data, (int) multi->len, sizes,
                                            n_sizes, quick ? 0.03 : 0.2, quick ? 3 : 5, timeout, progress, NULL, error);
    g_array_free (multi, TRUE);
    if (!ok)
      return NULL;
    prof->machine_nodes = nodes;
  }
  if (!name_and_fit (prof, g_strdup_printf ("dpscale calibrate%s", quick ? " --quick" : ""), error))
    return NULL;
  static const int dims[] = { 64, 128, 256, 512, 1024 };
  progress ("GEMM throughput with OpenBLAS (fp32, one thread)", NULL);
  dps_cpu_gemm_sweep (prof, dims, quick ? 3 : 5, quick ? 0.02 : 0.1);
  progress ("contention: compute and all-reduce overlapping, memory bandwidth shared", NULL);
  if (!dps_cpu_contention (prof, ranks, n_ranks, 4 << 20, 256, quick ? 0.1 : 0.3, timeout, error))
    return NULL;
  /* the layers with every rank count computing at once: co-located
   * replicas share caches and memory */
  if (model && !dps_cpu_layer_times_ranks (prof, model, batch, ranks, n_ranks, quick ? 0.02 : 0.05, timeout, error))
    return NULL;
  return g_steal_pointer (&prof);
}

/* GPU calibration as `dpscale validate --backend gpu` needs it: NCCL
 * all-reduce for each rank count of 2 or more (one process per GPU under
 * mpirun, as the GPU replicas run), every other size held out, the fit,
 * cuBLAS GEMM throughput, and the GPU replica's own per-layer times of
 * model on one GPU (fp32 cuBLAS and its kernels, timed with CUDA events by
 * dpscale-train-gpu --time-layers): the compute the replicas will run, not
 * the bf16 layers `dpscale calibrate` measures for predictions. */
DpsProfile *
dps_calibrate_gpu_runner (const int *ranks, int n_ranks, const double *sizes, int n_sizes, gboolean quick,
                          const DpsModel *model, int batch, double timeout, GError **error)
{
  g_autoptr (DpsProfile) prof = dps_profile_new (dps_cal_data_new ("gpu-nccl"));
  DpsCalData *data = prof->data;
  prof->machine_ranks = 1;
  for (int i = 0; i < n_ranks; i++)
    prof->machine_ranks = MAX (prof->machine_ranks, ranks[i]);
  if (n_ranks > 0
      && !dps_mpi_allreduce ("nccl-allreduce", NULL, data, ranks, n_ranks, sizes, n_sizes, quick ? 0.03 : 0.2,
                             quick ? 3 : 5, timeout, progress, NULL, error))
    return NULL;
  if (!name_and_fit (prof, g_strdup_printf ("dpscale validate --backend gpu%s", quick ? " --quick" : ""), error))
    return NULL;
  if (!gpu_gemms (prof, quick, error))
    return NULL;
  DpsRunSpec spec = { .ranks = 1, .steps = 1, .batch = batch, .seed = 1, .bucket_cap_mb = 25, .first_bucket_mb = 1,
                      .optimizer = "sgd", .gpu = TRUE, .time_layers = TRUE, .timeout_s = timeout };
  DpsRunResult r;
  if (!dps_run_execute (&spec, model, &r, error)) {
    dps_run_result_clear (&r);
    return NULL;
  }
  int L = r.n_layers;
  DpsLayerTimes *lt = dps_profile_add_layers (prof, model->name, batch, 1, r.layer_s, r.layer_s + L, L);
  lt->sgd_s = r.layer_s[2 * L];
  lt->compute_cv = r.layer_s[2 * L + 1];
  dps_run_result_clear (&r);
  return g_steal_pointer (&prof);
}

int
dps_cmd_calibrate (int argc, char **argv)
{
  g_autofree char *backend = NULL, *sizes_s = NULL, *ranks_s = NULL, *model_s = NULL, *output = NULL;
  g_autofree char *topology = NULL;
  g_auto (GStrv) imports = NULL;
  gboolean quick = FALSE, use_mpi = FALSE;
  int nodes = 0;
  double link_gbps = 1, gap_ms = 0;
  gboolean gap_emulated = FALSE;
  int batch = DPS_UNSET_INT;
  double timeout = 600;
  GOptionEntry entries[] = {
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend, "auto (default: GPUs if present, else CPUs), gpu or cpu", "B" },
    { "quick", 'q', 0, G_OPTION_ARG_NONE, &quick, "Fewer sizes and shorter timings (for CI)", NULL },
    { "sizes", 's', 0, G_OPTION_ARG_STRING, &sizes_s, "Message sizes: MIN:MAX:FACTOR or a list (CPU default 8:16M:2, GPU 8:1G:2)", "SIZES" },
    { "gpus", 'g', 0, G_OPTION_ARG_STRING, &ranks_s, "Rank (or GPU) counts (CPU default 2,4; GPU 2,4,... all; was --ranks/-r)", "LIST" },
    { "model", 'M', 0, G_OPTION_ARG_STRING, &model_s, "Model whose per-layer times to measure (default mlp on CPUs, transformer-small on GPUs)", "NAME" },
    { "batch", 'b', 0, G_OPTION_ARG_INT, &batch, "Batch for the per-layer times (default 32, quick 8)", "B" },
    { "import", 'i', 0, G_OPTION_ARG_FILENAME_ARRAY, &imports, "Import an nccl-tests all_reduce_perf log instead of measuring (repeatable)", "FILE" },
    { "topology", 't', 0, G_OPTION_ARG_STRING, &topology, "With --import: the cluster the logs come from (default dgx-h100)", "NAME|FILE" },
    { "nodes", 0, 0, G_OPTION_ARG_INT, &nodes, "CPUs: measure across this many emulated nodes too (root: namespaces, tc)", "K" },
    { "link-gbps", 0, 0, G_OPTION_ARG_DOUBLE, &link_gbps, "Emulated nodes: each node's link, Gbit/s each way (default 1)", "GBPS" },
    { "emulated-waits", 0, 0, G_OPTION_ARG_NONE, &gap_emulated, "With --gap-ms: wait as dpscale run --emulate's layers do (for emulated runs)", NULL },
    { "gap-ms", 0, 0, G_OPTION_ARG_DOUBLE, &gap_ms, "CPUs: time each all-reduce in place after this long without communication, as DDP issues them once a step (-1: one step of --model's compute; default 0: back to back)", "MS" },
    { "mpi", 0, 0, G_OPTION_ARG_NONE, &use_mpi, "GPUs: one process per GPU under mpirun (default: one process drives them all)", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout, "Stop an mpirun that runs longer than this, seconds (default 600)", "S" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Profile to write (default dpscale.calib; also .csv and .png beside it)", "FILE" },
    G_OPTION_ENTRY_NULL
  };
  static const DpsCliAlias aliases[] = { { "--ranks", "--gpus" }, { "-r", "--gpus" }, { NULL, NULL } };
  GError *error = NULL;
  dps_cli_deprecated ("calibrate", aliases, argc, argv);
  if (!dps_cli_parse ("calibrate", "measure this machine (or import nccl-tests logs) and write a profile",
                      "Measures all-reduce over message sizes and rank counts (NCCL on GPUs, MPI on\n"
                      "CPUs), GEMM throughput and per-layer times, fits per-level latency and\n"
                      "bandwidth per size regime, and checks the fit on sizes it held out.\n\n"
                      "Examples:\n  dpscale calibrate --quick\n"
                      "  dpscale calibrate --import ar_2x8.log --import ar_4x8.log --topology dgx-h100",
                      entries, &argc, &argv, &error))
    return dps_cli_fail ("calibrate", error);
  const char *out_path = output ? output : "dpscale.calib";
  DpsOutputKind out_kind = DPS_OUTPUT_NEW;
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *ranks = NULL;
  g_autoptr (DpsProfile) prof = NULL;
  DpsCalData *data = NULL;
  gboolean gpu = FALSE;
  char *why = NULL;
  if (argc > 1)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option: unexpected argument '%s'", argv[1]);
  else if (backend && !g_str_equal (backend, "auto") && !g_str_equal (backend, "cpu") && !g_str_equal (backend, "gpu"))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--backend: '%s' is not auto, cpu or gpu", backend);
  else if (timeout <= 0 || !isfinite (timeout))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--timeout: must be more than 0");
  else if (!dps_cli_int_given ("--batch", &batch, 1, 1 << 20, 0, &error)
           || !dps_cli_double_given ("--link-gbps", &link_gbps, 0, FALSE, 1e6, 1, &error))
    ;
  else if (imports && (backend || sizes_s || ranks_s))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--import: logs replace measuring; drop --backend/--sizes/--gpus");
  else if (nodes < 0 || nodes == 1 || nodes > 64 || (nodes > 1 && (imports || (backend && !g_str_equal (backend, "cpu")))))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--nodes: 2 to 64 emulated nodes, for CPU calibration");
  else if (gap_emulated && gap_ms == 0)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--emulated-waits: only with --gap-ms");
  else if (!(gap_ms == -1 || (gap_ms >= 0 && gap_ms <= 10000)))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--gap-ms: 0 to 10000 ms, or -1 (one step of --model's compute)");
  else if (use_mpi && backend && !g_str_equal (backend, "gpu"))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--mpi: only with --backend gpu (CPUs always use mpirun)");
  else if (topology && !imports)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--topology: only with --import (a measured machine describes itself)");
  else
    dps_output_kind (out_path, "-o", &out_kind, &error);
  if (!error && !imports) {
    int n_gpu = dps_gpu_count (&why);
    gpu = backend ? g_str_equal (backend, "gpu") : n_gpu > 0;
    if (gpu && n_gpu == 0)
      g_set_error (&error, DPS_ERROR, DPS_ERROR_RUNTIME, "--backend gpu: %s", why);
    else if (!parse_sizes (sizes_s ? sizes_s : gpu ? (quick ? "1K:256M:4" : "8:1G:2") : (quick ? "1K:4M:2" : "8:16M:2"),
                           sizes, &error))
      ;
    else if (gpu) {
      GString *def = g_string_new (NULL);
      for (int g = 2; g <= n_gpu; g *= 2)
        g_string_append_printf (def, "%s%d", def->len ? "," : "", g);
      if (!def->len)
        g_string_append (def, "1");
      dps_cli_parse_int_list ("--gpus", ranks_s ? ranks_s : def->str, 1, n_gpu, &ranks, &error);
      g_string_free (def, TRUE);
    } else
      dps_cli_parse_int_list ("--gpus", ranks_s ? ranks_s : "2,4", 2, 256, &ranks, &error);
  }
  g_free (why);
  GArray *r32 = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint i = 0; ranks && i < ranks->len; i++) {
    int v = (int) g_array_index (ranks, gint64, i);
    g_array_append_val (r32, v);
  }
  if (!error && !imports && !gpu) {
    g_autoptr (DpsModel) m = dps_model_load (model_s ? model_s : "mlp", &error);
    int most = 1;
    for (guint i = 0; i < r32->len; i++)
      most = MAX (most, g_array_index (r32, int, i));
    if (m && dps_cli_check_cpu_model (m, batch ? batch : quick ? 8 : 32, most, &error))
      prof = dps_calibrate_cpu ((int *) r32->data, (int) r32->len, (double *) sizes->data, (int) sizes->len, quick, m,
                                batch ? batch : quick ? 8 : 32, timeout, nodes, link_gbps,
                                gap_ms == -1 ? -1 : gap_ms * 1e-3, gap_emulated, &error);
    if (prof)
      data = prof->data;
  } else if (!error) {
    data = dps_cal_data_new (imports ? "nccl-tests" : "gpu-nccl");
    prof = dps_profile_new (data);
    if (imports) {
      g_autofree guint *starts = g_new0 (guint, g_strv_length (imports) + 1);
      for (int i = 0; imports[i] && !error; i++) {
        g_autofree char *warning = NULL;
        starts[i] = data->points->len;
        gboolean ok = dps_nccl_log_load_warn (imports[i], data, &warning, &error);
        starts[i + 1] = data->points->len;
        if (ok && !import_repeated (imports, i, data, starts, &error) && warning) {
          g_auto (GStrv) w = g_strsplit (warning, "\n", -1);
          for (int j = 0; w[j]; j++)
            fprintf (stderr, "dpscale calibrate: warning: %s\n", w[j]);
        }
      }
      if (!error)
        trays_to_domains (data, topology, &error);
      if (!error && fit (prof, &error))
        fit_network (prof, topology ? topology : DPS_DEFAULT_TOPOLOGY, &error);
    } else {
      if (use_mpi)
        dps_mpi_allreduce ("nccl-allreduce", NULL, data, (int *) r32->data, (int) r32->len, (double *) sizes->data,
                           (int) sizes->len, quick ? 0.03 : 0.2, quick ? 3 : 5, timeout, progress, NULL, &error);
      else
        dps_gpu_allreduce (data, (int *) r32->data, (int) r32->len, (double *) sizes->data, (int) sizes->len,
                           quick ? 5 : 20, progress, NULL, &error);
      for (guint i = 0; i < r32->len; i++)
        prof->machine_ranks = MAX (prof->machine_ranks, g_array_index (r32, int, i));
      if (!error)
        name_and_fit (prof, g_strdup_printf ("dpscale calibrate --backend gpu%s", quick ? " --quick" : ""), &error);
    }
    /* GPUs: GEMM throughput and per-layer times */
    if (!error && !imports) {
      if (gpu_gemms (prof, quick, &error)) {
        g_autoptr (DpsModel) m = dps_model_load (model_s ? model_s : "transformer-small", &error);
        if (m) {
          int b = batch ? batch : quick ? 8 : 32;
          double *f = g_new (double, dps_model_n_layers (m)), *bw = g_new (double, dps_model_n_layers (m));
          g_autofree char *msg = g_strdup_printf ("per-layer times of %s at batch %d (bf16, cuBLAS)", m->name, b);
          progress (msg, NULL);
          if (dps_gpu_layer_times (m, b, DPS_DTYPE_BF16, f, bw, &error))
            dps_profile_add_layers (prof, m->name, b, 1, f, bw, dps_model_n_layers (m));
          g_free (f);
          g_free (bw);
        }
      }
    }
  }
  g_array_free (r32, TRUE);
  if (error) {
    g_array_free (sizes, TRUE);
    if (ranks)
      g_array_free (ranks, TRUE);
    return dps_cli_fail ("calibrate", error);
  }
  /* the fit, checked point by point through the simulator */
  g_autoptr (GString) csv = g_string_new ("ranks,nodes,size_bytes,measured_busbw_GBps,fitted_busbw_GBps,held_out,error_pct\n");
  g_autoptr (GString) table = g_string_new (NULL);
  prof->path = g_strdup (out_path);
  g_string_append_printf (table, "dpscale calibrate: %s, %s\n\n", data->backend, data->library ? data->library : "");
  g_string_append_printf (table, "%6s %6s %12s %12s %12s %9s  %s\n", "ranks", "nodes", "size_bytes", "measured_us",
                          "fitted_us", "error_%", "");
  double held_sum = 0, held_max = 0, fit_sum = 0;
  int held_n = 0, fit_n = 0;
  for (guint i = 0; i < data->points->len && !error; i++) {
    const DpsCalPoint *pt = &g_array_index (data->points, DpsCalPoint, i);
    if (pt->ranks < 2)
      continue;
    double t = simulated (prof, topology, pt, &error);
    if (t < 0)
      break;
    double err = (t - pt->time_s) / pt->time_s * 100;
    g_string_append_printf (table, "%6d %6d %12.0f %12.2f %12.2f %+9.1f  %s\n", pt->ranks, pt->nodes, pt->bytes,
                            pt->time_s * 1e6, t * 1e6, err, pt->held_out ? "held out" : "");
    double f = dps_coll_busbw_factor (DPS_OP_ALLREDUCE, pt->ranks);
    g_string_append_printf (csv, "%d,%d,%.0f,%.6g,%.6g,%d,%.3f\n", pt->ranks, pt->nodes, pt->bytes,
                            pt->bytes / pt->time_s * f / 1e9, pt->bytes / t * f / 1e9, pt->held_out, err);
    if (pt->held_out) {
      held_sum += fabs (err);
      held_max = MAX (held_max, fabs (err));
      held_n++;
    } else {
      fit_sum += fabs (err);
      fit_n++;
    }
  }
  if (error) {
    g_array_free (sizes, TRUE);
    if (ranks)
      g_array_free (ranks, TRUE);
    return dps_cli_fail ("calibrate", error);
  }
  g_string_append (table, "\nfit per group (a ring per size regime: 2(n-1) alpha + 2(n-1)/n S / B):\n");
  for (int g = 0; g < prof->fit.n_groups; g++) {
    const DpsFitLevel *l = &prof->fit.group[g];
    for (int r = 0; r < l->n_regimes; r++) {
      char bound[32] = "any";
      if (l->max_bytes[r] > 0)
        g_snprintf (bound, sizeof bound, "%.0f", l->max_bytes[r]);
      g_string_append_printf (table, "  %3d ranks %2d node%s  regime %d  up to %12s B   alpha %8.3f us   B %9.3f GB/s\n",
                              l->ranks, l->nodes, l->nodes > 1 ? "s" : " ", r, bound, l->alpha_s[r] * 1e6,
                              l->bw_Bps[r] / 1e9);
    }
  }
  g_string_append_printf (table, "\nmean |error|: %.1f%% on %d fitted points; %.1f%% on %d held-out points (worst %.1f%%)\n",
                          fit_n ? fit_sum / fit_n : 0, fit_n, held_n ? held_sum / held_n : 0, held_n, held_max);
  if (prof->net.fitted) {
    g_autoptr (DpsTopoSpec) base = dps_profile_network_spec (prof, prof->machine_ranks > 0 ? prof->machine_ranks : 1, 1, NULL);
    if (base) {
      g_string_append_c (table, '\n');
      dps_cli_network_table (table, prof, base);
    }
  }
  if (prof->gemm_peak_flops > 0)
    g_string_append_printf (table, "GEMM: best %.1f GFLOP/s fp32\n", prof->gemm_peak_flops / 1e9);
  /* write: the profile last, so a profile on disk is always a finished one */
  g_autofree char *stem = g_str_has_suffix (out_path, ".calib") ? g_strndup (out_path, strlen (out_path) - 6)
                                                                : g_strdup (out_path);
  g_autofree char *csv_path = g_strconcat (stem, ".csv", NULL), *png = g_strconcat (stem, ".png", NULL);
  if (out_kind == DPS_OUTPUT_STREAM) {
    /* a device or FIFO takes the profile in place; nothing is created beside it */
    if (dps_profile_save (prof, out_path, &error))
      g_string_append_printf (table, "wrote %s (not a regular file: no .csv or .png beside it)\n", out_path);
  } else if (dps_cli_emit (csv_path, csv, &error)) {
    GError *perr = NULL;
    g_autofree char *title = g_strdup_printf ("all-reduce, %s on %s: measured and fitted", data->backend,
                                              data->host ? data->host : "imported logs");
    GString *rl = g_string_new ("ranks=\"");
    for (int g = 0; g < prof->fit.n_groups; g++)
      g_string_append_printf (rl, "%s%d", g ? " " : "", prof->fit.group[g].ranks);
    g_string_append_c (rl, '"');
    /* one GPU: nothing between devices was measured, nothing to draw */
    gboolean plotted = prof->fit.n_groups > 0 && dps_plot_render ("calibration.gp", csv_path, png, title, rl->str, &perr);
    g_string_free (rl, TRUE);
    if (prof->fit.n_groups == 0) {
      g_string_append (table, "(one device: no all-reduce between devices to measure; the profile holds its compute)\n");
      g_free (png);
      png = NULL;
    } else if (!plotted) {
      fprintf (stderr, "dpscale calibrate: warning: no plot: %s\n", perr->message);
      g_error_free (perr);
      g_free (png);
      png = NULL;
    }
    if (dps_profile_save (prof, out_path, &error))
      g_string_append_printf (table, "wrote %s, %s%s%s\n", out_path, csv_path, png ? ", " : "", png ? png : "");
  }
  g_array_free (sizes, TRUE);
  if (ranks)
    g_array_free (ranks, TRUE);
  if (error)
    return dps_cli_fail ("calibrate", error);
  dps_cli_emit (NULL, table, NULL);
  return 0;
}
