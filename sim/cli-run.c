/* cli-run.c — `dpscale run`: real data-parallel training on this machine,
 * one replica per MPI process (dpscale-train), per-step times to CSV, a
 * summary, and a Chrome trace in the simulator's shape.  --emulate replaces
 * each layer's compute by a wait of its calibrated (or roofline) duration
 * while the real buckets are really all-reduced, so many replicas fit on
 * few cores. */
#include "cli.h"
#include "cli-ddp.h"
#include "launch.h"
#include "json-util.h"
#include "error.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

typedef struct {
  int    step, replica;
  double fwd, bwd, exposed, opt, total, loss;
} StepRow;

typedef struct {
  int    step, bucket;
  double bytes, start, dur;
} BucketRow;

typedef struct {
  GArray *steps, *buckets;
  GArray *bucket_sizes;     /* from "# buckets" */
  char   *library, *error;
  double  gradcheck;        /* < 0: not checked */
  double  wait_req, wait_got;
  int     ranks;
} RunOut;

static gboolean
on_line (const char *line, void *data, GError **error)
{
  RunOut *o = data;
  if (g_str_has_prefix (line, "# library ")) {
    g_free (o->library);
    o->library = g_strdup (line + 10);
    return TRUE;
  }
  if (g_str_has_prefix (line, "# error ")) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_RUNTIME, "training failed: %s", line + 8);
    return TRUE;
  }
  if (g_str_has_prefix (line, "# gradcheck ")) {
    o->gradcheck = g_ascii_strtod (line + 12, NULL);
    return TRUE;
  }
  if (g_str_has_prefix (line, "# buckets ")) {
    g_auto (GStrv) t = g_strsplit (line + 10, " ", -1);
    for (int i = 1; t[i]; i++) {
      double b = g_ascii_strtod (t[i], NULL);
      g_array_append_val (o->bucket_sizes, b);
    }
    return TRUE;
  }
  StepRow s;
  if (sscanf (line, "step %d %d %lf %lf %lf %lf %lf %lf", &s.step, &s.replica, &s.fwd, &s.bwd, &s.exposed,
              &s.opt, &s.total, &s.loss) == 8) {
    g_array_append_val (o->steps, s);
    return TRUE;
  }
  BucketRow b;
  if (sscanf (line, "bucket %d %d %lf %lf %lf", &b.step, &b.bucket, &b.bytes, &b.start, &b.dur) == 5) {
    g_array_append_val (o->buckets, b);
    return TRUE;
  }
  if (sscanf (line, "wait %lf %lf", &o->wait_req, &o->wait_got) == 2)
    return TRUE;
  return FALSE;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
quantile (GArray *v, double q)
{
  if (v->len == 0)
    return 0;
  g_array_sort (v, cmp_double);
  double pos = q * (v->len - 1);
  guint i = (guint) floor (pos);
  if (i + 1 >= v->len)
    return g_array_index (v, double, v->len - 1);
  return g_array_index (v, double, i) + (pos - i) * (g_array_index (v, double, i + 1) - g_array_index (v, double, i));
}

/* The step time of a step is its slowest replica's. */
static GArray *
step_times (const RunOut *o, int warmup, int field)
{
  GHashTable *worst = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  for (guint i = 0; i < o->steps->len; i++) {
    const StepRow *s = &g_array_index (o->steps, StepRow, i);
    if (s->step < warmup)
      continue;
    double v = field == 0 ? s->total : field == 1 ? s->fwd + s->bwd : field == 2 ? s->exposed : s->opt;
    double *w = g_hash_table_lookup (worst, GINT_TO_POINTER (s->step));
    if (!w) {
      w = g_new (double, 1);
      *w = field == 0 ? 0 : 0;
      g_hash_table_insert (worst, GINT_TO_POINTER (s->step), w);
    }
    *w = MAX (*w, v);
  }
  GArray *a = g_array_new (FALSE, FALSE, sizeof (double));
  GList *vals = g_hash_table_get_values (worst);
  for (GList *l = vals; l; l = l->next)
    g_array_append_val (a, *(double *) l->data);
  g_list_free (vals);
  g_hash_table_unref (worst);
  return a;
}

int
dps_cmd_run (int argc, char **argv)
{
  g_autofree char *model_s = NULL, *optimizer = NULL, *format_s = NULL, *output = NULL, *trace = NULL;
  g_autofree char *calibration = NULL, *topology = NULL, *backend = NULL;
  int ranks = 2, steps = 20, warmup = 3, batch = 32, seed = 1;
  double cap = 25, first = 1, lr = 0, timeout = 600;
  gboolean emulate = FALSE, check = FALSE;
  GOptionEntry entries[] = {
    { "ranks", 'n', 0, G_OPTION_ARG_INT, &ranks, "Replicas, one MPI process each (default 2)", "N" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend, "cpu (default; MPI + OpenBLAS)", "B" },
    { "model", 'M', 0, G_OPTION_ARG_STRING, &model_s, "Model (default mlp; --emulate takes any zoo or CSV model)", "NAME" },
    { "batch", 'b', 0, G_OPTION_ARG_INT, &batch, "Samples per replica per step (default 32)", "B" },
    { "steps", 's', 0, G_OPTION_ARG_INT, &steps, "Steps (default 20)", "S" },
    { "warmup", 'w', 0, G_OPTION_ARG_INT, &warmup, "Steps left out of the summary (default 3)", "W" },
    { "bucket-cap-mb", 0, 0, G_OPTION_ARG_DOUBLE, &cap, "DDP bucket cap in MiB (default 25)", "MB" },
    { "first-bucket-mb", 0, 0, G_OPTION_ARG_DOUBLE, &first, "First bucket cap in MiB (default 1)", "MB" },
    { "optimizer", 0, 0, G_OPTION_ARG_STRING, &optimizer, "sgd (default) or adam", "OPT" },
    { "lr", 0, 0, G_OPTION_ARG_DOUBLE, &lr, "Learning rate (default 0.02 SGD, 0.001 Adam)", "LR" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &seed, "Seed of weights and data (default 1)", "S" },
    { "emulate", 'e', 0, G_OPTION_ARG_NONE, &emulate, "Replace compute by waits of calibrated length; real all-reduces", NULL },
    { "calibration", 'C', 0, G_OPTION_ARG_FILENAME, &calibration, "Emulation: layer times from this profile", "FILE" },
    { "topology", 't', 0, G_OPTION_ARG_STRING, &topology, "Emulation without a profile: the device whose roofline times to wait (default dgx-h100)", "NAME" },
    { "check-gradient", 0, 0, G_OPTION_ARG_NONE, &check, "First check that N shards' averaged gradient equals the whole batch's", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout, "Stop a run that takes longer, seconds (default 600)", "S" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_s, "table (default), csv or json", "FMT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the per-step CSV to FILE", "FILE" },
    { "trace", 0, 0, G_OPTION_ARG_FILENAME, &trace, "Write the last step as a Chrome trace (the simulator's shape)", "FILE" },
    { NULL }
  };
  GError *error = NULL;
  if (!dps_cli_parse ("run", "real data-parallel training on this machine",
                      "With no options: the MLP on 2 CPU replicas for 20 steps.\n\n"
                      "Examples:\n  dpscale run --ranks 4 --steps 50 -o steps.csv\n"
                      "  dpscale run --emulate --ranks 16 --model gpt2 --calibration mybox.calib",
                      entries, &argc, &argv, &error))
    return dps_cli_fail ("run", error);
  DpsFormat format;
  if (argc > 1)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option: unexpected argument '%s'", argv[1]);
  else if (backend && !g_str_equal (backend, "cpu"))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "--backend: '%s' is not available (this build runs cpu)", backend);
  else if (ranks < 1 || ranks > 256)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--ranks: %d is not 1 to 256", ranks);
  else if (steps < 1 || steps > 100000 || warmup < 0 || warmup >= steps)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--steps/--warmup: need 0 <= warmup < steps <= 100000");
  else if (batch < 1 || batch > 1 << 20)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--batch: %d is not 1 to 1048576", batch);
  else if (!(cap > 0) || !(first >= 0) || !isfinite (cap) || !isfinite (first))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--bucket-cap-mb: must be more than 0");
  else if (optimizer && !g_str_equal (optimizer, "sgd") && !g_str_equal (optimizer, "adam"))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--optimizer: '%s' is not sgd or adam", optimizer);
  else if ((calibration || topology) && !emulate)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--calibration/--topology: only with --emulate");
  else if (check && emulate)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--check-gradient: needs real compute, not --emulate");
  else
    dps_cli_format (format_s, &format, &error);
  if (error)
    return dps_cli_fail ("run", error);

  g_autoptr (DpsModel) model = dps_model_load (model_s ? model_s : "mlp", &error);
  if (!model)
    return dps_cli_fail ("run", error);
  g_autofree char *worker = dps_helper_path ("dpscale-train");
  GPtrArray *args = worker ? dps_mpirun_argv (ranks, worker) : NULL;
  if (!worker || !args) {
    g_set_error (&error, DPS_ERROR, DPS_ERROR_RUNTIME, "%s", !worker ? "dpscale-train not found beside dpscale"
                 : "no MPI launcher: mpirun not found (Debian: apt-get install openmpi-bin)");
    return dps_cli_fail ("run", error);
  }
  g_ptr_array_add (args, g_strdup_printf ("--model=%s", model->source ? model->source : model_s));
  g_ptr_array_add (args, g_strdup_printf ("--batch=%d", batch));
  g_ptr_array_add (args, g_strdup_printf ("--steps=%d", steps));
  g_ptr_array_add (args, g_strdup_printf ("--seed=%d", seed));
  g_ptr_array_add (args, g_strdup_printf ("--bucket-cap-mb=%.17g", cap));
  g_ptr_array_add (args, g_strdup_printf ("--first-bucket-mb=%.17g", first));
  g_ptr_array_add (args, g_strdup_printf ("--optimizer=%s", optimizer ? optimizer : "sgd"));
  if (lr > 0)
    g_ptr_array_add (args, g_strdup_printf ("--lr=%.17g", lr));
  if (check)
    g_ptr_array_add (args, g_strdup ("--check-gradient"));
  double emu_fwd = 0, emu_bwd = 0;
  if (emulate) {
    /* the layer times to wait: the profile's, the model's own, or the roofline */
    g_autoptr (DpsProfile) profile = calibration ? dps_profile_load (calibration, &error) : NULL;
    if (calibration && !profile) {
      g_ptr_array_unref (args);
      return dps_cli_fail ("run", error);
    }
    DpsDdpOpts o = { .topology = topology };
    DpsDdpConfig c;
    dps_ddp_config_default (&c);
    c.compute.dtype = DPS_DTYPE_FP32;
    c.mixed = FALSE;
    c.optimizer = optimizer && g_str_equal (optimizer, "adam") ? DPS_OPT_ADAM : DPS_OPT_SGD;
    g_autoptr (DpsTopo) topo = NULL;
    if (!dps_ddp_setup (&o, profile, model, 0, 1, &c, &topo, &error)) {
      g_ptr_array_unref (args);
      return dps_cli_fail ("run", error);
    }
    int L = dps_model_n_layers (model);
    double *f = g_new (double, L), *b = g_new (double, L), opt;
    dps_ddp_compute_times (&c, batch, f, b, &opt);
    GString *fs = g_string_new ("--fwd="), *bs = g_string_new ("--bwd=");
    for (int l = 0; l < L; l++) {
      g_string_append_printf (fs, "%s%.9g", l ? "," : "", f[l]);
      g_string_append_printf (bs, "%s%.9g", l ? "," : "", b[l]);
      emu_fwd += f[l];
      emu_bwd += b[l];
    }
    g_ptr_array_add (args, g_strdup ("--emulate"));
    g_ptr_array_add (args, g_string_free (fs, FALSE));
    g_ptr_array_add (args, g_string_free (bs, FALSE));
    g_ptr_array_add (args, g_strdup_printf ("--opt-ms=%.9g", opt * 1e3));
    g_free (f);
    g_free (b);
    /* the real bytes must fit: each replica holds its gradients (and MPI a copy) */
    double need = 3.0 * 4 * model->n_params * ranks;
    double avail = (double) sysconf (_SC_AVPHYS_PAGES) * sysconf (_SC_PAGESIZE);
    if (need > 0.8 * avail) {
      g_ptr_array_unref (args);
      g_set_error (&error, DPS_ERROR, DPS_ERROR_LIMIT,
                   "--emulate: %d replicas of %s need about %.1f GB for their gradients, %.1f GB is free",
                   ranks, model->name, need / 1e9, avail / 1e9);
      return dps_cli_fail ("run", error);
    }
  }
  g_ptr_array_add (args, NULL);
  RunOut out = { .steps = g_array_new (FALSE, FALSE, sizeof (StepRow)),
                 .buckets = g_array_new (FALSE, FALSE, sizeof (BucketRow)),
                 .bucket_sizes = g_array_new (FALSE, FALSE, sizeof (double)), .gradcheck = -1, .ranks = ranks };
  fprintf (stderr, "run: %d replica%s of %s, %d steps%s\n", ranks, ranks > 1 ? "s" : "", model->name, steps,
           emulate ? " (emulated compute)" : "");
  gboolean ok = dps_launch_lines ((const char *const *) args->pdata, dps_mpirun_env (), timeout, on_line, &out, &error);
  g_ptr_array_unref (args);
  if (ok && (int) out.steps->len != steps * ranks)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_RUNTIME, "training stopped early: %u of %d step records",
                 out.steps->len, steps * ranks);
  int status = 0;
  if (!error) {
    /* per-step CSV */
    g_autoptr (GString) csv = g_string_new ("step,replica,forward_s,backward_s,exposed_comm_s,optimizer_s,step_s,samples_per_s,loss\n");
    for (guint i = 0; i < out.steps->len; i++) {
      const StepRow *s = &g_array_index (out.steps, StepRow, i);
      g_string_append_printf (csv, "%d,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%.9g\n", s->step, s->replica, s->fwd, s->bwd,
                              s->exposed, s->opt, s->total, batch / s->total, s->loss);
    }
    if (output)
      dps_cli_emit (output, csv, &error);
    GArray *st = step_times (&out, warmup, 0), *comp = step_times (&out, warmup, 1);
    GArray *exp = step_times (&out, warmup, 2), *opt = step_times (&out, warmup, 3);
    double med = quantile (st, 0.5), p10 = quantile (st, 0.1), p90 = quantile (st, 0.9);
    double first_loss = g_array_index (out.steps, StepRow, 0).loss;
    double last_loss = g_array_index (out.steps, StepRow, out.steps->len - 1).loss;
    /* all-reduce throughput inside the run, per bucket size (after warm-up) */
    double bytes = 0, busy = 0;
    for (guint i = 0; i < out.buckets->len; i++) {
      const BucketRow *b = &g_array_index (out.buckets, BucketRow, i);
      if (b->step >= warmup) {
        bytes += b->bytes;
        busy += b->dur;
      }
    }
    g_autoptr (GString) text = g_string_new (NULL);
    if (!error && format == DPS_FORMAT_CSV)
      g_string_append (text, csv->str);
    else if (!error && format == DPS_FORMAT_JSON) {
      g_autoptr (JsonBuilder) jb = json_builder_new ();
      json_builder_begin_object (jb);
#define D(k, v) json_builder_set_member_name (jb, k), json_builder_add_double_value (jb, v)
      json_builder_set_member_name (jb, "model");
      json_builder_add_string_value (jb, model->name);
      json_builder_set_member_name (jb, "replicas");
      json_builder_add_int_value (jb, ranks);
      json_builder_set_member_name (jb, "emulated");
      json_builder_add_boolean_value (jb, emulate);
      D ("batch_per_replica", batch);
      D ("step_median_s", med);
      D ("step_p10_s", p10);
      D ("step_p90_s", p90);
      D ("compute_median_s", quantile (comp, 0.5));
      D ("exposed_comm_median_s", quantile (exp, 0.5));
      D ("optimizer_median_s", quantile (opt, 0.5));
      D ("samples_per_s", med > 0 ? batch * ranks / med : 0);
      D ("loss_first", first_loss);
      D ("loss_last", last_loss);
      D ("gradcheck_max_rel", out.gradcheck);
      D ("bucket_allreduce_GBps", busy > 0 ? bytes / busy / 1e9 : 0);
#undef D
      json_builder_set_member_name (jb, "buckets_bytes");
      json_builder_begin_array (jb);
      for (guint i = 0; i < out.bucket_sizes->len; i++)
        json_builder_add_double_value (jb, g_array_index (out.bucket_sizes, double, i));
      json_builder_end_array (jb);
      json_builder_end_object (jb);
      g_autofree char *j = dps_json_builder_to_text (jb, TRUE);
      g_string_append_printf (text, "%s\n", j);
    } else if (!error) {
      g_string_append_printf (text, "dpscale run: %s, %d replica%s (%s), %s\n\n", model->name, ranks,
                              ranks > 1 ? "s" : "", out.library ? out.library : "MPI",
                              emulate ? "emulated compute" : "OpenBLAS compute, one thread per replica");
      g_string_append_printf (text, "  steps           %d (%d warm-up left out), batch %d per replica\n", steps, warmup, batch);
      g_string_append_printf (text, "  step time       %.3f ms median (p10 %.3f, p90 %.3f), the slowest replica's\n",
                              med * 1e3, p10 * 1e3, p90 * 1e3);
      g_string_append_printf (text, "    compute       %.3f ms (forward + backward)\n", quantile (comp, 0.5) * 1e3);
      g_string_append_printf (text, "    exposed comm  %.3f ms (waiting for all-reduces after backward)\n", quantile (exp, 0.5) * 1e3);
      g_string_append_printf (text, "    optimizer     %.3f ms\n", quantile (opt, 0.5) * 1e3);
      g_string_append_printf (text, "  throughput      %.1f samples/s\n", med > 0 ? batch * ranks / med : 0);
      g_string_append_printf (text, "  buckets         %u, all-reduced at %.2f GB/s (algbw, inside the run)\n",
                              out.bucket_sizes->len, busy > 0 ? bytes / busy / 1e9 : 0);
      if (!emulate)
        g_string_append_printf (text, "  loss            %.4g -> %.4g; replicas identical after every step (hashes)\n",
                                first_loss, last_loss);
      else
        g_string_append_printf (text, "  emulated waits  %.3f s asked, %.3f s taken (%+.2f%%); compute per step %.3f ms\n",
                                out.wait_req, out.wait_got, out.wait_req > 0 ? (out.wait_got / out.wait_req - 1) * 100 : 0,
                                (emu_fwd + emu_bwd) * 1e3);
      if (out.gradcheck >= 0)
        g_string_append_printf (text, "  gradient check  averaged shard gradients vs the whole batch: max relative difference %.2g\n",
                                out.gradcheck);
      if (output)
        g_string_append_printf (text, "  wrote           %s\n", output);
    }
    if (!error && trace) {
      /* the last step in the simulator's trace shape */
      DpsDdpResult r = { .trace = g_array_new (FALSE, FALSE, sizeof (DpsTraceEvent)) };
      for (guint i = 0; i < out.steps->len; i++) {
        const StepRow *s = &g_array_index (out.steps, StepRow, i);
        if (s->step != steps - 1)
          continue;
        DpsTraceEvent f = { g_strdup ("forward"), s->replica, 0, s->fwd, FALSE };
        DpsTraceEvent b = { g_strdup ("backward"), s->replica, s->fwd, s->bwd, FALSE };
        g_array_append_val (r.trace, f);
        g_array_append_val (r.trace, b);
        if (s->replica == 0) {
          DpsTraceEvent o = { g_strdup ("optimizer"), -2, s->fwd + s->bwd + s->exposed, s->opt, FALSE };
          g_array_append_val (r.trace, o);
        }
      }
      for (guint i = 0; i < out.buckets->len; i++) {
        const BucketRow *b = &g_array_index (out.buckets, BucketRow, i);
        if (b->step == steps - 1) {
          DpsTraceEvent e = { g_strdup_printf ("bucket %d", b->bucket), -1, b->start, b->dur, TRUE };
          g_array_append_val (r.trace, e);
        }
      }
      dps_ddp_write_trace (&r, trace, &error);
      dps_ddp_result_clear (&r);
    }
    g_array_free (st, TRUE);
    g_array_free (comp, TRUE);
    g_array_free (exp, TRUE);
    g_array_free (opt, TRUE);
    if (!error)
      dps_cli_emit (NULL, text, NULL);
  }
  if (error)
    status = dps_cli_fail ("run", error);
  g_array_free (out.steps, TRUE);
  g_array_free (out.buckets, TRUE);
  g_array_free (out.bucket_sizes, TRUE);
  g_free (out.library);
  return status;
}
