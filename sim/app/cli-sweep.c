/* cli-sweep.c — `dpscale sweep`: many training configurations (GPU counts,
 * strategies, bucket caps, topologies, batches, gradient accumulation): a
 * table, a CSV and a plot of throughput and efficiency against GPUs. */
#include "sim/app/cli.h"
#include "sim/app/cli-ddp.h"
#include "sim/app/sweep-plot.h"
#include "sim/base/error.h"
#include "sim/base/json-util.h"
#include "sim/strategy.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <glib/gstdio.h>

#define MAX_POINTS 10000

void dps_predict_csv_row (GString *o, const DpsDdpConfig *c, const DpsDdpResult *r);
const char *dps_predict_csv_header (void);

/* A swept list: --gpus (gpus_max > 0: whole counts from 1 to gpus_max) or
 * a flag whose range is the shared one (cli-values.h). */
static gboolean
swept_list (const char *flag, const char *text, const char *def, double gpus_max, GArray **out, GError **error)
{
  g_auto (GStrv) parts = dps_cli_split_list (flag, text ? text : def, error);
  if (!parts)
    return FALSE;
  GArray *a = g_array_new (FALSE, FALSE, sizeof (double));
  for (int i = 0; parts[i]; i++) {
    double v;
    gboolean ok = gpus_max > 0 ? dps_parse_double (parts[i], &v) && v >= 1 && v <= gpus_max && v == floor (v)
                               : dps_cli_range_parse (flag, parts[i], &v, error);
    if (!ok) {
      if (gpus_max > 0)
        g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: '%s' is not a whole number from 1 to %.15g", flag,
                     parts[i], gpus_max);
      g_array_free (a, TRUE);
      return FALSE;
    }
    g_array_append_val (a, v);
  }
  *out = a;
  return TRUE;
}

/* "the values" of a swept list: all of them, or the ends and a count. */
static void
append_values (GString *t, const GArray *a)
{
  if (a->len > 4) {
    g_string_append_printf (t, "%g to %g (%u values)", g_array_index (a, double, 0),
                            g_array_index (a, double, a->len - 1), a->len);
    return;
  }
  for (guint i = 0; i < a->len; i++)
    g_string_append_printf (t, "%s%g", i ? ", " : "", g_array_index (a, double, i));
}

/* The plot's title: the model, the topology where there is one, and each
 * variable the sweep varied with its values. */
static char *
sweep_title (const char *model, const DpsDdpOpts *o, GStrv topos, const GArray *strategies, const GArray *gpus,
             const GArray *caps, const GArray *batches, const GArray *accums)
{
  GString *t = g_string_new (NULL);
  guint n_topos = g_strv_length (topos);
  g_string_append_printf (t, "%s with ", model);
  for (guint i = 0; i < strategies->len; i++)
    g_string_append_printf (t, "%s%s", i ? "/" : "", dps_strategy_name (g_array_index (strategies, int, i)));
  if (o->tp > 1 || o->pp > 1)
    g_string_append_printf (t, " tp %d pp %d", MAX (o->tp, 1), MAX (o->pp, 1));
  if (n_topos == 1)
    g_string_append_printf (t, " on %s", o->topology ? g_strstrip (topos[0]) : DPS_DEFAULT_TOPOLOGY);
  g_string_append (t, ", swept: GPUs ");
  append_values (t, gpus);
  if (n_topos > 1) {
    g_string_append (t, "; topology ");
    for (guint i = 0; i < n_topos; i++)
      g_string_append_printf (t, "%s%s", i ? ", " : "", g_strstrip (topos[i]));
  }
  const struct { const char *name; const GArray *a; } more[] = {
    { "bucket cap (MiB)", caps }, { "batch", batches }, { "accumulation", accums } };
  for (gsize i = 0; i < G_N_ELEMENTS (more); i++)
    if (more[i].a->len > 1) {
      g_string_append_printf (t, "; %s ", more[i].name);
      append_values (t, more[i].a);
    }
  return g_string_free (t, FALSE);
}

/* The sweep's CSV as JSON: {"model": ..., "points": [{column: value}]},
 * numbers as numbers, empty fields (not computed) as null, the rest as
 * strings. */
static GString *
csv_to_json (const char *csv, const char *model)
{
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  g_auto (GStrv) head = g_strsplit (lines[0], ",", -1);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  dps_json_str (b, "model", model);
  json_builder_set_member_name (b, "points");
  json_builder_begin_array (b);
  for (int i = 1; lines[i]; i++) {
    if (!lines[i][0])
      continue;
    g_auto (GStrv) f = g_strsplit (lines[i], ",", -1);
    json_builder_begin_object (b);
    for (int j = 0; head[j] && f[j]; j++) {
      json_builder_set_member_name (b, head[j]);
      char *end;
      double v = g_ascii_strtod (f[j], &end);
      if (!f[j][0])
        json_builder_add_null_value (b);
      else if (*end == 0 && isfinite (v) && v == floor (v) && fabs (v) < 9007199254740992.0)
        json_builder_add_int_value (b, (gint64) v);
      else if (*end == 0 && isfinite (v))
        json_builder_add_double_value (b, v);
      else
        json_builder_add_string_value (b, f[j]);
    }
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);
  GString *out = g_string_new (NULL);
  dps_json_append (out, b);
  return out;
}

/* A sweep: its axes, what every point shares, and its results so far. */
typedef struct {
  GStrv        topos;
  GArray      *strategies;                       /* int: DpsStrategy */
  GArray      *gpus, *caps, *batches, *accums;   /* double */
  DpsDdpConfig base;
  DpsModel    *model;
  DpsProfile  *profile;
  DpsFormat    format;
  GString     *csv, *table;
  int          ok, failed;
} Sweep;

static void
sweep_clear (Sweep *s)
{
  g_strfreev (s->topos);
  GArray **axes[] = { &s->strategies, &s->gpus, &s->caps, &s->batches, &s->accums };
  for (gsize i = 0; i < G_N_ELEMENTS (axes); i++)
    if (*axes[i])
      g_array_free (*axes[i], TRUE);
  g_clear_pointer (&s->model, dps_model_free);
  g_clear_pointer (&s->profile, dps_profile_free);
  if (s->csv)
    g_string_free (s->csv, TRUE);
  if (s->table)
    g_string_free (s->table, TRUE);
}

static int
n_points (const Sweep *s)
{
  return (int) (g_strv_length (s->topos) * s->strategies->len * s->gpus->len * s->caps->len * s->batches->len
                * s->accums->len);
}

/* --strategy's list into *out (DpsStrategy values); each must go with
 * --tp/--pp.  --shard-group is for the hsdp points of the list. */
static gboolean
strategy_list (DpsDdpOpts *o, GArray **out, GError **error)
{
  *out = g_array_new (FALSE, FALSE, sizeof (int));
  g_auto (GStrv) parts = dps_cli_split_list ("--strategy", o->strategy ? o->strategy : "ddp", error);
  if (!parts)
    return FALSE;
  const char *hsdp = NULL;
  for (int i = 0; parts[i]; i++) {
    DpsStrategy k;
    const char *name = g_strstrip (parts[i]);
    if (!dps_cli_strategy (name, &k, error))
      return FALSE;
    int v = k;
    g_array_append_val (*out, v);
    if (k == DPS_STRATEGY_HSDP && !hsdp)
      hsdp = name;
  }
  /* the shared options are checked once, against the list's hsdp where
   * --shard-group needs one, else its first */
  g_free (o->strategy);
  o->strategy = g_strdup (hsdp ? hsdp : g_strstrip (parts[0]));
  for (guint i = 0; i < (*out)->len; i++)
    o->strategies |= 1u << g_array_index (*out, int, i);
  for (guint i = 0; i < (*out)->len; i++)
    if (!dps_ddp_check_layout (g_array_index (*out, int, i), o->tp, o->pp, error))
      return FALSE;
  return TRUE;
}

/* The axes, the shared options, the profile and the model. */
static gboolean
setup (DpsDdpOpts *o, int argc, char **argv, Sweep *s, GError **error)
{
  dps_ddp_config_default (&s->base);
  s->base.mode = DPS_CLI_NET_MODE;
  s->format = DPS_FORMAT_TABLE;
  if (!(s->topos = dps_cli_split_list ("--topology", o->topology ? o->topology : "dgx-h100", error))
      || !dps_cli_check_topologies ((const char *const *) s->topos, error))
    return FALSE;
  if (argc > 1)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option: unexpected argument '%s'", argv[1]);
  else if (o->nodes != DPS_UNSET_INT)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--nodes: sweep takes GPU counts (--gpus LIST)");
  else if (o->trace || o->plot)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: only for dpscale predict (sweep draws its own)",
                 o->trace ? "--trace" : "--plot");
  else if (strategy_list (o, &s->strategies, error)
           && swept_list ("--gpus", o->gpus, "1,2,4,8,16,32,64,128,256,512,1024", DPS_SIM_MAX_GPUS, &s->gpus, error)
           && swept_list ("--bucket-cap-mb", o->bucket_cap, "25", 0, &s->caps, error)
           && swept_list ("--batch", o->batch, "4", 0, &s->batches, error)
           && swept_list ("--grad-accum", o->grad_accum, "1", 0, &s->accums, error)
           && dps_cli_format (o->format, &s->format, error)
           /* -o is checked as it is parsed; its default before any work */
           && (o->output || s->format != DPS_FORMAT_TABLE || dps_cli_check_prefix ("-o", "dpscale-sweep", error))
           && dps_ddp_opts_apply (o, &s->base, error)) {
    double points = (double) g_strv_length (s->topos) * s->strategies->len * s->gpus->len * s->caps->len
                    * s->batches->len * s->accums->len;
    if (points > MAX_POINTS)
      g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "--gpus/--topology/--strategy/...: %.0f points asked for, the limit is %d",
                   points, MAX_POINTS);
    else if ((!o->calibration || (s->profile = dps_profile_load (o->calibration, error)))
             && (s->model = dps_ddp_model_load (o, "gpt2-xl", error)) && s->base.global_batch <= 0) {
      /* the batch a per-layer file or trace was measured at, when none is asked for */
      for (guint i = 0; i < s->batches->len; i++)
        g_array_index (s->batches, double, i) = dps_ddp_default_batch (s->model, o->batch != NULL,
                                                                        g_array_index (s->batches, double, i), 4);
    }
  }
  return *error == NULL;
}

/* One point: predicted, its rows in the CSV and the table, or skipped
 * with a line on stderr. */
static void
run_point (Sweep *s, const char *tname, const char *shown, int strategy, int g, double cap, double batch, int accum,
           int done)
{
  GError *perr = NULL;
  g_autoptr (DpsTopo) topo = NULL;
  DpsDdpResult r = { 0 };
  DpsDdpConfig c = s->base;
  c.strategy = strategy;
  if (strategy != DPS_STRATEGY_HSDP)
    c.shard_group = 0;
  if (dps_ddp_setup (tname, s->profile, s->model, 0, g, &c, &topo, &perr)) {
    c.bucket_cap_bytes = cap * 1024 * 1024;
    c.batch = batch;
    c.grad_accum = accum;
    c.trace_replicas = 0;
    dps_ddp_simulate (&c, &r, &perr);
  }
  if (perr) {
    dps_cli_name_flag (perr);
    fprintf (stderr, "dpscale sweep: point %d (%s, %s, %d GPUs) skipped: %s\n", done, shown,
             dps_strategy_name (strategy), g, perr->message);
    g_error_free (perr);
    s->failed++;
    return;
  }
  s->ok++;
  dps_predict_csv_row (s->csv, &c, &r);
  char cost[32] = "-";   /* per million samples; "-" without a price */
  if (c.price_per_gpu_hour > 0)
    g_snprintf (cost, sizeof cost, "%.2f", r.cost_per_msample);
  g_string_append_printf (s->table, "%-22.22s %-8s %7d %6d %7g %6g %11.2f %12.2f %13.1f %10.1f %9.1f %9s %11s\n",
                          dps_topo_spec (topo)->name, dps_strategy_name (strategy), c.n_gpus, dps_topo_n_nodes (topo),
                          c.bucket_cap_bytes / 1048576, r.batch_per_replica, r.step_mean_s * 1e3,
                          r.exposed_comm_s * 1e3, r.samples_per_s, r.efficiency * 100,
                          r.memory.total / 1e9, r.fits ? "yes" : "NO", cost);
  dps_ddp_result_clear (&r);
}

/* Every combination of the axes, with progress after the first second. */
static void
run_all (Sweep *s, const DpsDdpOpts *o)
{
  int total = n_points (s), done = 0;
  gboolean tty = isatty (2);
  gint64 t0 = g_get_monotonic_time ();
  for (int ti = 0; s->topos[ti]; ti++)
    for (guint si = 0; si < s->strategies->len; si++)
    for (guint gi = 0; gi < s->gpus->len; gi++)
      for (guint ci = 0; ci < s->caps->len; ci++)
        for (guint bi = 0; bi < s->batches->len; bi++)
          for (guint ai = 0; ai < s->accums->len; ai++) {
            done++;
            run_point (s, o->topology ? g_strstrip (s->topos[ti]) : NULL, s->topos[ti],
                       g_array_index (s->strategies, int, si), (int) g_array_index (s->gpus, double, gi), g_array_index (s->caps, double, ci),
                       g_array_index (s->batches, double, bi), (int) g_array_index (s->accums, double, ai), done);
            if (total > 1 && (g_get_monotonic_time () - t0) > 1000000) {
              fprintf (stderr, tty ? "\rsweep: %d/%d points" : "sweep: %d/%d points\n", done, total);
              fflush (stderr);
            }
          }
  if (tty && total > 1 && (g_get_monotonic_time () - t0) > 1000000)
    fprintf (stderr, "\n");
}

/* The CSV (and plots) under the prefix with the table on stdout, or the
 * CSV or JSON alone, to -o's file where given. */
static void
write_outputs (Sweep *s, const DpsDdpOpts *o, GError **error)
{
  if (s->format == DPS_FORMAT_CSV) {
    dps_cli_emit (o->output, s->csv, error);
    return;
  }
  if (s->format == DPS_FORMAT_JSON) {
    g_autoptr (GString) json = csv_to_json (s->csv->str, s->model->name);
    dps_cli_emit (o->output, json, error);
    return;
  }
  const char *prefix = o->output ? o->output : "dpscale-sweep";
  g_autofree char *csv_path = g_strconcat (prefix, ".csv", NULL);
  if (!dps_cli_emit (csv_path, s->csv, error))
    return;
  g_string_append_printf (s->table, "\nwrote %s", csv_path);
  if (s->gpus->len > 1) {
    g_autofree char *title = sweep_title (s->model->name, o, s->topos, s->strategies, s->gpus, s->caps, s->batches, s->accums);
    GError *perr = NULL;
    if (!dps_sweep_plot (csv_path, prefix, title, s->table, &perr)) {
      /* the pictures go together: no PNG without its SVG; a failed write is a failure */
      g_autofree char *png = g_strconcat (prefix, ".png", NULL);
      g_unlink (png);
      fprintf (stderr, "dpscale sweep: %s: no plot: %s\n", dps_error_kind (perr) == DPS_ERROR_IO ? "error" : "warning",
               perr->message);
      s->failed |= dps_error_kind (perr) == DPS_ERROR_IO;
      g_error_free (perr);
    }
  }
  g_string_append (s->table, "\n");
  dps_cli_emit (NULL, s->table, NULL);
}

int
dps_cmd_sweep (int argc, char **argv)
{
  DpsDdpOpts o = { 0 };
  g_autofree GOptionEntry *entries = dps_ddp_options (&o, TRUE);
  GError *error = NULL;
  Sweep s = { 0 };
  dps_cli_deprecated ("sweep", dps_cli_nodes_alias, argc, argv);
  if (dps_cli_parse ("sweep", "Each of --gpus, --topology, --strategy, --bucket-cap-mb, --batch and --grad-accum\n"
                     "takes a comma-separated list; every combination is predicted.  With no options:\n"
                     "GPT-2 XL on 1 to 1024 H100 GPUs (DGX H100 nodes), flow-level network model, Adam.\n\n"
                     "Example: dpscale sweep --model llama3-8b --gpus 8,16,32,64 --strategy ddp,fsdp,hsdp",
                     entries, &argc, &argv, &error)
      && setup (&o, argc, argv, &s, &error)) {
    s.csv = g_string_new (dps_predict_csv_header ());
    s.table = g_string_new (NULL);
    g_string_append_printf (s.table, "dpscale sweep: %s, %s network model\n\n", s.model->name,
                            s.base.mode == DPS_MODE_FLOW ? "flow-level" : "analytical");
    g_string_append_printf (s.table, "%-22s %-8s %7s %6s %7s %6s %11s %12s %13s %10s %9s %9s %11s\n", "topology",
                            "strategy", "gpus",
                            "nodes", "cap_MiB", "batch", "step_ms", "exposed_ms", "samples/s", "eff_%", "mem_GB", "fits",
                            "usd/Msample");
    run_all (&s, &o);
    if (s.ok == 0)
      g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "no point of the sweep could be predicted");
    else
      write_outputs (&s, &o, &error);
    if (!error && s.model->note)   /* what a trace loader used and left out */
      fprintf (stderr, "dpscale sweep: note: %s\n", s.model->note);
  }
  int failed = s.failed;
  sweep_clear (&s);
  dps_ddp_opts_clear (&o);
  if (error)
    return dps_cli_fail ("sweep", error);
  return failed ? 1 : 0;
}
