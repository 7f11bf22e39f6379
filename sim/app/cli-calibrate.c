/* cli-calibrate.c — `dpscale calibrate`: measure this machine (GPUs when
 * present, else CPUs through MPI and OpenBLAS) or import nccl-tests logs,
 * fit the simulator's parameters, write a profile, a CSV of the points and
 * a plot of measured against fitted bus bandwidth. */
#include "sim/app/cli.h"
#include "sim/app/cli-util.h"
#include "sim/app/cli-flags.h"
#include "sim/app/calib-plot.h"
#include "calibrate/calibrate-run.h"
#include "calibrate/nccl-log.h"
#include "calibrate/profile-network.h"
#include "calibrate/gpu.h"
#include "sim/base/plot.h"
#include "sim/base/json-util.h"
#include "sim/coll-predict.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"
#include "sim/base/progress.h"
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

static void
warn (const char *message, void *data)
{
  fprintf (stderr, "dpscale calibrate: warning: %s\n", message);
}

/* What the command line asks for, parsed and checked. */
typedef struct {
  char     *backend, *sizes_s, *ranks_s, *model_s, *output, *topology, *gap_s, *ops_s, *format_s;
  char    **imports;
  gboolean  quick, use_mpi, gap_emulated, gpu, yes;
  int       nodes, batch;
  guint     ops;       /* the collectives to measure, 1 << DpsCollOp */
  DpsFormat format;
  double    link_gbps, gap_ms, timeout;
  GArray   *sizes;   /* double */
  GArray   *ranks;   /* int */
  DpsOutputKind out_kind;
} Opts;

static void
opts_clear (Opts *o)
{
  g_free (o->backend);
  g_free (o->sizes_s);
  g_free (o->ranks_s);
  g_free (o->model_s);
  g_free (o->output);
  g_free (o->topology);
  g_free (o->gap_s);
  g_free (o->ops_s);
  g_free (o->format_s);
  g_strfreev (o->imports);
  if (o->sizes)
    g_array_free (o->sizes, TRUE);
  if (o->ranks)
    g_array_free (o->ranks, TRUE);
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
  g_auto (GStrv) p = dps_cli_split_list ("--sizes", text, error);
  for (int i = 0; p && p[i]; i++) {
    guint64 v;
    if (!dps_parse_size (p[i], &v) || v < 1 || v > (8ull << 30)) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--sizes: '%s' is not a size from 1 to 8G", p[i]);
      return FALSE;
    }
    double d = (double) v;
    g_array_append_val (out, d);
  }
  return p != NULL;
}

/* What the simulator needs for one measured group (ranks on nodes) with
 * the profile applied: its topology and collective parameters, built once
 * a group (a group's points follow each other; a topology of 72 GPUs takes
 * milliseconds to route, 300,000 points took hours when each built its
 * own). */
typedef struct {
  int           ranks, nodes;
  DpsTopo      *topo;
  DpsCollParams params;
  guint         amask, pmask;
} GroupSim;

static void
group_sim_clear (GroupSim *g)
{
  g_clear_pointer (&g->topo, dps_topo_free);
  g->ranks = g->nodes = 0;
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (GroupSim, group_sim_clear)

/* The time the simulator gives a point with the profile applied: the same
 * path as `dpscale collective --calibration`; g holds its group's
 * topology and parameters, rebuilt where pt is of another group.  < 0 on
 * error. */
static double
simulated (GroupSim *g, const DpsProfile *p, const char *topology, const DpsCalPoint *pt, GError **error)
{
  if (!g->topo || g->ranks != pt->ranks || g->nodes != pt->nodes) {
    group_sim_clear (g);
    int n_gpus;
    g_autoptr (GError) sized = NULL;
    g->topo = dps_cli_topology_calibrated (topology, p, pt->nodes > 1 ? pt->nodes : 0, pt->ranks, &n_gpus, &sized);
    /* fewer ranks a node than its GPUs (a network test's one rank a node):
     * whole nodes, which the collective spreads the ranks over, as
     * `collective --compare` does */
    if (!g->topo && pt->nodes > 1 && pt->ranks % pt->nodes == 0)
      g->topo = dps_cli_topology_calibrated (topology, p, pt->nodes, 0, &n_gpus, NULL);
    if (!g->topo) {
      g_propagate_error (error, g_steal_pointer (&sized));
      return -1;
    }
    g->ranks = pt->ranks;
    g->nodes = pt->nodes;
    g->amask = DPS_NCCL_ALGOS;
    g->pmask = DPS_ALL_PROTOS;
    dps_tune_params_nccl (&g->params);
    dps_profile_apply_coll (p, topology, pt->ranks, dps_topo_n_nodes (g->topo), &g->params, &g->amask, &g->pmask,
                            NULL);
  }
  DpsCollCtx ctx;
  if (!dps_coll_ctx_init_spread (&ctx, g->topo, &g->params, pt->ranks, pt->op, pt->bytes, error))
    return -1;
  DpsCollChoice c;
  if (!dps_coll_choose (&ctx, g->amask, g->pmask, &c, error))
    return -1;
  dps_plan_unref (c.plan);
  return c.time_s;
}

/* --collectives: names of DPS_CAL_OPS (dps_coll_op_parse's spellings),
 * into a mask. */
static gboolean
parse_ops (const char *text, guint *ops, GError **error)
{
  g_auto (GStrv) p = dps_cli_split_list ("--collectives", text, error);
  if (!p)
    return FALSE;
  *ops = 0;
  for (int i = 0; p[i]; i++) {
    DpsCollOp op;
    if (!dps_coll_op_parse (p[i], &op) || !(DPS_CAL_OPS >> op & 1)) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--collectives: '%s' is not all-reduce, all-gather or "
                   "reduce-scatter", p[i]);
      return FALSE;
    }
    *ops |= 1u << op;
  }
  return TRUE;
}

/* The CPUs' collective measurements, estimated before they start: each
 * size of each operation at each rank count is timed out of place and in
 * place, each at least MIN_TIME (0.2 s, quick 0.03: calibrate-run.c) and
 * at least 23 runs (2 warm-ups, the first batch, 5 batches of 4: the MPI
 * worker's loop) of one collective, taken as 10 us a doubling of the ranks
 * plus twice its bytes moved at 2 GB/s shared by the ranks beyond the
 * cores.  Past 5 minutes (the default, 22 sizes x 2 rank counts x 3
 * operations, is estimated at about 1 minute) refused with the estimate,
 * unless --yes. */
static gboolean
cpu_work_ok (const Opts *o, GError **error)
{
  double cores = MAX (1, g_get_num_processors ()), min_time = o->quick ? 0.03 : 0.2, total = 0;
  gboolean gloo = g_strcmp0 (o->backend, "gloo") == 0;
  int n_ops = __builtin_popcount (o->ops);
  for (guint r = 0; r < o->ranks->len; r++) {
    double n = g_array_index (o->ranks, int, r), share = MIN (1, cores / n);
    for (guint k = 0; k < o->sizes->len; k++) {
      double bytes = g_array_index (o->sizes, double, k);
      double one = 10e-6 * log2 (n) + 2 * bytes * (n - 1) / n / (2e9 * share);
      total += n_ops * (gloo ? 1 : 2) * MAX (min_time, 23 * one);   /* gloo: in place alone */
    }
  }
  if (total <= 300)
    return TRUE;
  g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "--sizes/--gpus: %u sizes x %u rank counts x %d collectives would "
               "take about %.0f s to measure on these %.0f cores: fewer, or --yes", o->sizes->len, o->ranks->len,
               n_ops, total, cores);
  return FALSE;
}

/* The flags' checks (with each other, and the machine's GPUs), the sizes
 * and the rank counts. */
static gboolean
check_opts (Opts *o, GError **error)
{
  const char *b = o->backend;
  gboolean gloo = b && g_str_equal (b, "gloo");
  /* what only measuring reads, given (before the unset values turn into
   * their defaults) */
  gboolean measuring = b || o->sizes_s || o->ranks_s || o->ops_s || o->quick || o->model_s || o->gap_s || o->use_mpi
                       || o->gap_emulated || o->yes || o->batch != DPS_UNSET_INT || !dps_cli_is_unset (o->timeout)
                       || !dps_cli_is_unset (o->link_gbps);
  if (b && !g_str_equal (b, "auto") && !g_str_equal (b, "cpu") && !g_str_equal (b, "gpu") && !gloo)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--backend: '%s' is not auto, cpu, gloo or gpu", b);
  else if (!dps_cli_double_given ("--timeout", &o->timeout, 600, error)
           || !dps_cli_double_given ("--link-gbps", &o->link_gbps, 1, error)
           || !dps_cli_int_given ("--nodes", &o->nodes, 0, error))
    return FALSE;
  else if (o->imports && measuring)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                 "--import: logs replace measuring; drop --backend/--sizes/--gpus/--collectives/--quick/--model/"
                 "--batch/--gap-ms/--emulated-waits/--mpi/--link-gbps/--timeout/--yes");
  else if (!dps_cli_format (o->format_s, &o->format, error))
    return FALSE;
  else if (!parse_ops (o->ops_s ? o->ops_s : o->quick ? "all-reduce" : gloo ? "all-reduce,all-gather"
                       : "all-reduce,all-gather,reduce-scatter", &o->ops, error))
    return FALSE;
  else if (gloo && o->gap_s)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--gap-ms: with MPI's collectives (--backend cpu), not gloo's");
  else if (gloo && o->ops >> DPS_OP_REDUCE_SCATTER & 1)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--collectives: gloo measures all-reduce and all-gather "
                 "(PyTorch's gloo has no reduce-scatter of tensors)");
  else if (o->nodes == 1 || o->nodes > 64
           || (o->nodes > 1 && (o->imports || (b && !g_str_equal (b, "cpu")))))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--nodes: 2 to 64 emulated nodes, for CPU calibration");
  else if (o->gap_s && !g_str_equal (o->gap_s, "step") && !dps_parse_double (o->gap_s, &o->gap_ms))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--gap-ms: '%s' is not a number of ms or 'step' (one step of "
                 "--model's compute)", o->gap_s);
  else if (o->gap_s && !g_str_equal (o->gap_s, "step") && !dps_cli_flag_check ("--gap-ms", o->gap_ms, error))
    return FALSE;
  else if (o->gap_emulated && !o->gap_s)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--emulated-waits: only with --gap-ms");
  else if (o->use_mpi && b && !g_str_equal (b, "gpu"))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--mpi: only with --backend gpu (CPUs always use mpirun)");
  else if (o->topology && !o->imports)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--topology: only with --import (a measured machine describes itself)");
  else if (dps_output_kind (o->output ? o->output : "dpscale.calib", "-o", &o->out_kind, error)
           && o->out_kind != DPS_OUTPUT_STREAM)
    dps_cli_check_output ("-o", o->output ? o->output : "dpscale.calib", error);   /* its .csv and .png too */
  if (*error || o->imports)
    return !*error;
  g_autofree char *why = NULL;
  int n_gpu = dps_gpu_count (&why);
  o->gpu = b ? g_str_equal (b, "gpu") : n_gpu > 0;
  if (o->gpu && n_gpu == 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "--backend gpu: %s", why);
    return FALSE;
  }
  o->sizes = g_array_new (FALSE, FALSE, sizeof (double));
  if (!parse_sizes (o->sizes_s ? o->sizes_s : o->gpu ? (o->quick ? "1K:256M:4" : "8:1G:2") : (o->quick ? "1K:4M:2" : "8:16M:2"),
                    o->sizes, error))
    return FALSE;
  g_autoptr (GString) def = g_string_new (NULL);
  for (int g = 2; g <= n_gpu; g *= 2)
    g_string_append_printf (def, "%s%d", def->len ? "," : "", g);
  g_autoptr (GArray) r = NULL;
  if (!dps_cli_parse_int_list ("--gpus", o->ranks_s ? o->ranks_s : !o->gpu ? "2,4" : def->len ? def->str : "1",
                               o->gpu ? 1 : 2, o->gpu ? n_gpu : DPS_CLI_MAX_MACHINE_RANKS, &r, error))
    return FALSE;
  o->ranks = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint i = 0; i < r->len; i++) {
    int v = (int) g_array_index (r, gint64, i);
    g_array_append_val (o->ranks, v);
  }
  return o->gpu || o->yes || cpu_work_ok (o, error);
}

/* Without --topology, the one the imported logs name by their '#%
 * topology:' lines (published references, tests/reference/nccl/), into
 * o->topology; NULL where none names one (dgx-h100 then, the default).
 * Logs that name two are refused: each needs its own cluster. */
static gboolean
topology_from_logs (Opts *o, GError **error)
{
  const char *from = NULL;
  if (o->topology || !o->imports)
    return TRUE;
  for (int i = 0; o->imports[i]; i++) {
    g_autofree char *t = NULL;
    if (!dps_nccl_log_file_topology (o->imports[i], &t, error))
      return FALSE;
    if (!t)
      continue;
    if (!o->topology) {
      o->topology = g_steal_pointer (&t);
      from = o->imports[i];
    } else if (!g_str_equal (t, o->topology)) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--import: %s names topology %s, %s names %s: import each on its own, or give --topology",
                   from, o->topology, o->imports[i], t);
      return FALSE;
    }
  }
  if (!from)
    return TRUE;
  g_autofree char *path = dps_topo_find (o->topology, NULL);
  if (!path) {
    g_autofree char *q = dps_quote (o->topology);
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: '#%% topology: %s' is neither a shipped topology nor a file: give --topology",
                 from, q);
    return FALSE;
  }
  g_autofree char *msg = g_strdup_printf ("topology %s, from %s's '#%% topology:' line (--topology to choose another)", o->topology, from);
  progress (msg, NULL);
  return TRUE;
}

/* The profile: imported, or measured on the CPUs or GPUs here. */
static DpsProfile *
calibrate (const Opts *o, GError **error)
{
  int batch = o->batch != DPS_UNSET_INT ? o->batch : o->quick ? 8 : 32;
  DpsCalibrateSpec s = { .quick = o->quick, .batch = batch, .timeout_s = o->timeout, .nodes = o->nodes,
                         .link_gbps = o->link_gbps, .gap_s = !o->gap_s ? 0 : g_str_equal (o->gap_s, "step") ? -1 : o->gap_ms * 1e-3,
                         .gap_emulated = o->gap_emulated, .use_mpi = o->use_mpi, .ops = o->ops, .progress = progress, .warn = warn,
                         .gloo = g_strcmp0 (o->backend, "gloo") == 0 };
  if (o->imports)
    return dps_calibrate_import (o->imports, o->topology, &s, error);
  s.ranks = (int *) o->ranks->data;
  s.n_ranks = (int) o->ranks->len;
  s.sizes = (double *) o->sizes->data;
  s.n_sizes = (int) o->sizes->len;
  g_autoptr (DpsModel) m = dps_model_load (o->model_s ? o->model_s : o->gpu ? "transformer-small" : "mlp", error);
  s.model = m;
  if (!m)
    return NULL;
  if (o->gpu)
    return dps_calibrate_gpu (&s, error);
  int most = 1;
  for (int i = 0; i < s.n_ranks; i++)
    most = MAX (most, s.ranks[i]);
  if (!dps_cli_check_cpu_model (m, batch, most, error))
    return NULL;
  return dps_calibrate_cpu (&s, error);
}

/* The fit checked point by point through the simulator: a row of the
 * table and of the CSV each, the per-group fits, the mean errors, the
 * network fit beside the datasheet. */
static gboolean
check_fit (const DpsProfile *prof, const char *topology, GString *table, GString *csv, JsonBuilder *json,
           GError **error)
{
  const DpsCalData *data = prof->data;
  gboolean lib = data->library && data->library[0];
  g_string_append_printf (table, "dpscale calibrate: %s%s%s\n\n", data->backend, lib ? ", " : "", lib ? data->library : "");
  g_string_append_printf (table, "%-14s %6s %6s %12s %12s %12s %9s  %s\n", "op", "ranks", "nodes", "size_bytes",
                          "measured_us", "fitted_us", "error_%", "");
  /* |error| per operation, fitted [0] and held out [1]: sum, worst, count */
  double sum[DPS_OP_COUNT][2] = { { 0 } }, worst[DPS_OP_COUNT][2] = { { 0 } };
  int count[DPS_OP_COUNT][2] = { { 0 } };
  g_auto (GroupSim) sim = { 0 };
  dps_json_str (json, "backend", data->backend);
  dps_json_str (json, "library", data->library);
  json_builder_set_member_name (json, "points");
  json_builder_begin_array (json);
  for (guint i = 0; i < data->points->len; i++) {
    const DpsCalPoint *pt = &g_array_index (data->points, DpsCalPoint, i);
    if (pt->ranks < 2)
      continue;
    dps_progress ("checking the fit through the simulator", i + 1, data->points->len);
    double t = simulated (&sim, prof, topology, pt, error);
    if (t < 0)
      return FALSE;
    double err = (t - pt->time_s) / pt->time_s * 100;
    g_string_append_printf (table, "%-14s %6d %6d %12.0f %12.2f %12.2f %+9.1f  %s\n", dps_coll_op_words (pt->op), pt->ranks,
                            pt->nodes, pt->bytes, pt->time_s * 1e6, t * 1e6, err, pt->held_out ? "held out" : "");
    double f = dps_coll_busbw_factor (pt->op, pt->ranks);
    g_string_append_printf (csv, "%d,%d,%.0f,%.6g,%.6g,%d,%.3f,%s\n", pt->ranks, pt->nodes, pt->bytes,
                            pt->bytes / pt->time_s * f / 1e9, pt->bytes / t * f / 1e9, pt->held_out, err,
                            dps_coll_op_name (pt->op));
    json_builder_begin_object (json);
    dps_json_str (json, "op", dps_coll_op_name (pt->op));
    dps_json_int (json, "ranks", pt->ranks);
    dps_json_int (json, "nodes", pt->nodes);
    dps_json_num (json, "size_bytes", pt->bytes);
    dps_json_num (json, "measured_s", pt->time_s);
    dps_json_num (json, "fitted_s", t);
    dps_json_num (json, "error_pct", err);
    dps_json_bool (json, "held_out", pt->held_out);
    json_builder_end_object (json);
    int h = pt->held_out ? 1 : 0;
    sum[pt->op][h] += fabs (err);
    worst[pt->op][h] = MAX (worst[pt->op][h], fabs (err));
    count[pt->op][h]++;
  }
  json_builder_end_array (json);
  if (prof->fit.n_groups)
    g_string_append (table, "\nfit per all-reduce group (a ring per size regime: 2(n-1) alpha + 2(n-1)/n S / B):\n");
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
  g_string_append_c (table, '\n');
  json_builder_set_member_name (json, "errors");
  json_builder_begin_array (json);
  for (int op = 0; op < DPS_OP_COUNT; op++) {
    if (!count[op][0] && !count[op][1])
      continue;
    json_builder_begin_object (json);
    dps_json_str (json, "op", dps_coll_op_name ((DpsCollOp) op));
    dps_json_int (json, "fitted_points", count[op][0]);
    dps_json_num (json, "fitted_mean_abs_pct", count[op][0] ? sum[op][0] / count[op][0] : NAN);
    dps_json_int (json, "held_out_points", count[op][1]);
    dps_json_num (json, "held_out_mean_abs_pct", count[op][1] ? sum[op][1] / count[op][1] : NAN);
    dps_json_num (json, "held_out_worst_pct", count[op][1] ? worst[op][1] : NAN);
    json_builder_end_object (json);
    g_string_append_printf (table, "%s mean |error|: %.1f%% on %d fitted points; %.1f%% on %d held-out points (worst %.1f%%)\n",
                            dps_coll_op_words (op), count[op][0] ? sum[op][0] / count[op][0] : 0, count[op][0],
                            count[op][1] ? sum[op][1] / count[op][1] : 0, count[op][1], worst[op][1]);
  }
  json_builder_end_array (json);
  json_builder_set_member_name (json, "network");
  json_builder_begin_object (json);
  dps_json_bool (json, "fitted", prof->net.fitted);
  if (prof->net.fitted) {
    dps_json_num (json, "rms_log", prof->net.rms_log);
    dps_json_int (json, "points", prof->net.n_points);
    for (int i = 0; i < DPS_NETFIT_N; i++) {   /* a multiplier of the topology's figure: 1 as shipped */
      json_builder_set_member_name (json, dps_netfit_name (i));
      json_builder_begin_object (json);
      dps_json_num (json, "scale", prof->net.scale[i]);
      dps_json_num (json, "sd", prof->net.used[i] ? prof->net.sd[i] : NAN);
      dps_json_bool (json, "measured", prof->net.used[i]);
      json_builder_end_object (json);
    }
  }
  json_builder_end_object (json);
  if (prof->net.fitted) {
    g_autoptr (DpsTopoSpec) base = dps_profile_network_spec (prof, prof->machine_ranks > 0 ? prof->machine_ranks : 1, 1, NULL);
    if (base) {
      g_string_append_c (table, '\n');
      dps_cli_network_table (table, prof, base);
    }
  }
  if (prof->gemm_peak_flops > 0)
    g_string_append_printf (table, "GEMM: best %.1f GFLOP/s fp32\n", prof->gemm_peak_flops / 1e9);
  return TRUE;
}

/* The operations measured, in words: "all-reduce, all-gather" (a new
 * string). */
static char *
ops_measured (const DpsCalData *d)
{
  guint seen = 0;
  for (guint i = 0; i < d->points->len; i++)
    seen |= 1u << g_array_index (d->points, DpsCalPoint, i).op;
  GString *w = g_string_new (NULL);
  for (int op = 0; op < DPS_OP_COUNT; op++)
    if (seen >> op & 1)
      g_string_append_printf (w, "%s%s", w->len ? ", " : "", dps_coll_op_words ((DpsCollOp) op));
  return g_string_free (w, FALSE);
}

/* Writes the CSV, the plot and the profile (last: a profile on disk is
 * always a finished one; a device or FIFO takes the profile alone), and
 * says what was written at the end of table. */
static gboolean
write_outputs (const DpsProfile *prof, const char *out_path, DpsOutputKind kind, const GString *csv, GString *table,
               GError **error)
{
  if (kind == DPS_OUTPUT_STREAM) {
    if (!dps_profile_save (prof, out_path, error))
      return FALSE;
    g_string_append_printf (table, "wrote %s (not a regular file: no .csv or .png beside it)\n", out_path);
    return TRUE;
  }
  g_autofree char *stem = g_str_has_suffix (out_path, ".calib") ? g_strndup (out_path, strlen (out_path) - 6)
                                                                : g_strdup (out_path);
  g_autofree char *csv_path = g_strconcat (stem, ".csv", NULL), *png = g_strconcat (stem, ".png", NULL);
  if (!dps_cli_emit (csv_path, csv, error))
    return FALSE;
  GError *perr = NULL;
  g_autofree char *ops = ops_measured (prof->data);
  g_autofree char *title = g_strdup_printf ("%s, %s on %s: measured and fitted", ops,
                                            prof->data->backend, prof->data->host ? prof->data->host : "imported logs");
  g_autofree char *series = dps_calib_plot_series (csv->str);
  dps_progress ("drawing the fit", 0, 0);
  /* one GPU: nothing between devices was measured, nothing to draw */
  gboolean multi = strchr (csv->str, '\n')[1] != 0;
  gboolean plotted = multi && dps_plot_render ("calibration.gp", csv_path, png, title, series, &perr);
  if (!multi)
    g_string_append (table, "(one device: no all-reduce between devices to measure; the profile holds its compute)\n");
  else if (!plotted) {
    fprintf (stderr, "dpscale calibrate: warning: no plot: %s\n", perr->message);
    g_error_free (perr);
  }
  if (!dps_profile_save (prof, out_path, error))
    return FALSE;
  g_string_append_printf (table, "wrote %s, %s%s%s\n", out_path, csv_path, plotted ? ", " : "", plotted ? png : "");
  return TRUE;
}

int
dps_cmd_calibrate (int argc, char **argv)
{
  Opts o = { .link_gbps = dps_cli_unset (), .batch = DPS_UNSET_INT, .nodes = DPS_UNSET_INT, .timeout = dps_cli_unset () };
  GOptionEntry entries[] = {
    { "backend", 0, 0, G_OPTION_ARG_STRING, &o.backend, "auto (default: GPUs if present, else CPUs), gpu, cpu (MPI's collectives) or gloo (CPUs, the collectives through torch.distributed's gloo, as PyTorch's DDP runs them; Debian's python3-torch; GEMMs, layers and contention still through MPI)", "B" },
    { "quick", 'q', 0, G_OPTION_ARG_NONE, &o.quick, "Fewer sizes and shorter timings, all-reduce alone (for CI)", NULL },
    { "yes", 0, 0, G_OPTION_ARG_NONE, &o.yes, "Measure what CPUs would take past 5 minutes over (else refused, with the estimate)", NULL },
    { "collectives", 'c', 0, G_OPTION_ARG_STRING, &o.ops_s, "Collectives to measure: all-reduce, all-gather, reduce-scatter (default all three; --quick all-reduce)", "LIST" },
    { "sizes", 's', 0, G_OPTION_ARG_STRING, &o.sizes_s, "Message sizes: MIN:MAX:FACTOR or a list (CPU default 8:16M:2, GPU 8:1G:2)", "SIZES" },
    { "gpus", 'g', 0, G_OPTION_ARG_STRING, &o.ranks_s, "Rank (or GPU) counts (CPU default 2,4; GPU 2,4,... all; was --ranks/-r)", "LIST" },
    { "model", 'M', 0, G_OPTION_ARG_STRING, &o.model_s, "Model whose per-layer times to measure (default mlp on CPUs, transformer-small on GPUs)", "NAME" },
    { "batch", 'b', 0, G_OPTION_ARG_INT, &o.batch, "Batch for the per-layer times (default 32, quick 8)", "B" },
    { "import", 'i', 0, G_OPTION_ARG_FILENAME_ARRAY, &o.imports, "Import an nccl-tests log (all_reduce_perf, all_gather_perf, reduce_scatter_perf) instead of measuring (repeatable)", "FILE" },
    { "topology", 't', 0, G_OPTION_ARG_STRING, &o.topology, "With --import: the cluster the logs come from (default dgx-h100)", "NAME|FILE" },
    { "nodes", 0, 0, G_OPTION_ARG_INT, &o.nodes, "CPUs: measure across this many emulated nodes too (root: namespaces, tc)", "K" },
    { "link-gbps", 0, 0, G_OPTION_ARG_DOUBLE, &o.link_gbps, "Emulated nodes: each node's link, Gbit/s each way (default 1)", "GBPS" },
    { "emulated-waits", 0, 0, G_OPTION_ARG_NONE, &o.gap_emulated, "With --gap-ms: wait as dpscale run --emulate's layers do (for emulated runs)", NULL },
    { "gap-ms", 0, 0, G_OPTION_ARG_STRING, &o.gap_s, "CPUs: time each all-reduce in place after this long without communication, as DDP issues them once a step ('step': one step of --model's compute; default: back to back)", "MS|step" },
    { "mpi", 0, 0, G_OPTION_ARG_NONE, &o.use_mpi, "GPUs: one process per GPU under mpirun (default: one process drives them all)", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o.timeout, "Stop an mpirun that runs longer than this, seconds (default 600)", "S" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "Profile to write (default dpscale.calib; also .csv and .png beside it)", "FILE" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &o.format_s, "What to print: table (default), csv (the fit's rows, as the .csv beside the profile) or json (rows, mean errors per collective, network figures)", "FMT" },
    G_OPTION_ENTRY_NULL
  };
  static const DpsCliAlias aliases[] = { { "--ranks", "--gpus" }, { "-r", "--gpus" }, { NULL, NULL } };
  GError *error = NULL;
  dps_cli_deprecated ("calibrate", aliases, argc, argv);
  gboolean parsed = dps_cli_parse ("calibrate",
                                   "Measures all-reduce, all-gather and reduce-scatter over message sizes and\n"
                                   "rank counts (NCCL on GPUs, MPI on CPUs), GEMM throughput and per-layer times,\n"
                                   "fits per-level latency and bandwidth per size regime and the network's\n"
                                   "figures, and checks the fit on sizes it held out.\n\n"
                                   "Examples:\n  dpscale calibrate --quick\n"
                                   "  dpscale calibrate --import ar_2x8.log --import ar_4x8.log --topology dgx-h100",
                                   entries, &argc, &argv, &error);
  if (parsed && argc > 1)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option: unexpected argument '%s'", argv[1]);
  g_autofree char *out_path = g_strdup (o.output ? o.output : "dpscale.calib");   /* past opts_clear */
  g_autoptr (DpsProfile) prof = NULL;
  g_autoptr (GString) csv = g_string_new ("ranks,nodes,size_bytes,measured_busbw_GBps,fitted_busbw_GBps,held_out,error_pct,op\n");
  g_autoptr (GString) table = g_string_new (NULL);
  g_autoptr (JsonBuilder) json = json_builder_new ();
  json_builder_begin_object (json);
  dps_progress_begin ("calibrate");
  if (!error && check_opts (&o, &error) && topology_from_logs (&o, &error) && (prof = calibrate (&o, &error))) {
    prof->path = g_strdup (out_path);
    if (check_fit (prof, o.topology, table, csv, json, &error))
      write_outputs (prof, out_path, o.out_kind, csv, table, &error);
  }
  dps_progress_end ();
  opts_clear (&o);
  if (error)
    return dps_cli_fail ("calibrate", error);
  dps_json_str (json, "profile", out_path);
  dps_cli_emit_as (o.format, table, csv, json);
  return 0;
}
