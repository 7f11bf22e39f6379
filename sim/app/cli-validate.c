/* cli-validate.c — `dpscale validate`: calibrate here, predict here, run
 * here, and show the error.  The workflow (runs and predictions) is
 * validate-run.c; this file parses the flags, calls it, and prints the
 * table, the CSV and the plots. */
#include "sim/app/cli.h"
#include "sim/app/validate-run.h"
#include "real/run.h"
#include "sim/base/plot.h"
#include "sim/base/json-util.h"
#include "sim/base/error.h"
#include "sim/strategy.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

/* What the command line asks for. */
typedef struct {
  char    *backend, *replicas_s, *model_s, *calibration, *output, *topology, *strategy_s, *format_s, *torch;
  DpsFormat format;
  int      batch, steps, warmup, trials, grad_accum, nodes, global_batch, shard_group, tp, pp, micro;
  DpsStrategy strategy;
  double   cap, first, timeout, jitter, link_gbps;
  gboolean emulate, quick;
  GArray  *reps;   /* gint64 */
} Opts;

static void
opts_clear (Opts *o)
{
  char **strs[] = { &o->torch, &o->backend, &o->replicas_s, &o->model_s, &o->calibration, &o->output, &o->topology,
                    &o->strategy_s, &o->format_s };
  for (gsize i = 0; i < G_N_ELEMENTS (strs); i++)
    g_clear_pointer (strs[i], g_free);
  if (o->reps)
    g_array_free (o->reps, TRUE);
}

static void
progress (const char *message, void *data)
{
  fprintf (stderr, "validate: %s\n", message);
}

/* The flags' checks and the replica counts (default: 1,2; emulated
 * 1,2,4,8,16; GPUs 1,2,4,... up to the GPUs; over emulated nodes 2,4). */
static gboolean
check_opts (Opts *o, gboolean gpu, GError **error)
{
  int n_gpu = 0;
  if (o->backend && !gpu && !g_str_equal (o->backend, "cpu"))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--backend: '%s' is not cpu or gpu", o->backend);
  else if (o->torch && (gpu || o->emulate || o->nodes > 0 || o->strategy_s || o->global_batch != DPS_UNSET_INT
                        || !o->model_s))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--torch: a PyTorch DDP job on this machine's CPUs, with --model "
                 "its per-layer CSV; not with --backend gpu, --emulate, --nodes, --strategy or --global-batch");
  else if (o->torch && !g_file_test (o->torch, G_FILE_TEST_IS_REGULAR))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--torch %s: no such file", o->torch);
  else if ((o->strategy_s && !dps_cli_strategy (o->strategy_s, &o->strategy, error))
           || !dps_cli_format (o->format_s, &o->format, error))
    return FALSE;
  else if (!dps_cli_int_given ("--batch", &o->batch, 32, error) || !dps_cli_int_given ("--steps", &o->steps, 20, error)
           || !dps_cli_int_given ("--warmup", &o->warmup, 3, error) || !dps_cli_int_given ("--trials", &o->trials, 20, error)
           || !dps_cli_int_given ("--grad-accum", &o->grad_accum, 1, error)
           || !dps_cli_int_given ("--nodes", &o->nodes, 0, error)
           || !dps_cli_double_given ("--bucket-cap-mb", &o->cap, 25, error)
           || !dps_cli_int_given ("--global-batch", &o->global_batch, 0, error)
           || !dps_cli_int_given ("--shard-group", &o->shard_group, 0, error)
           || !dps_cli_int_given ("--tp", &o->tp, 1, error) || !dps_cli_int_given ("--pp", &o->pp, 1, error)
           || !dps_cli_double_given ("--timeout", &o->timeout, 600, error)
           || !dps_cli_double_given ("--link-gbps", &o->link_gbps, 1, error)
           || !dps_cli_double_given ("--first-bucket-mb", &o->first, 1, error)
           || !dps_cli_double_given ("--jitter", &o->jitter, 0, error))
    return FALSE;
  else if (gpu && o->nodes > 0)
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "--nodes: emulated nodes hold CPU replicas (--backend cpu)");
  else if (gpu && (n_gpu = dps_run_gpus (error)) < 1)
    return FALSE;
  else if (!dps_cli_steps (o->steps, 2, o->warmup, error))
    return FALSE;
  else if (o->global_batch > 0 && o->emulate)
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "--global-batch: not with --emulate yet (the waits are for one batch)");
  else if (o->nodes == 1 || o->nodes > 64)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--nodes: 2 to 64 emulated nodes");
  else if (o->shard_group > 0 && o->strategy != DPS_STRATEGY_HSDP)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--shard-group: only with --strategy hsdp");
  else if ((o->tp > 1 || o->pp > 1) && (gpu || o->emulate || o->torch || o->strategy != DPS_STRATEGY_DDP
                                         || o->nodes > 0 || o->global_batch > 0 || (o->tp > 1 && o->pp > 1)))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: real compute on this machine's CPUs with ddp over the "
                 "groups, one of --tp and --pp (not --backend gpu, --emulate, --torch, --nodes, --global-batch or "
                 "--strategy %s)", o->tp > 1 ? "--tp" : "--pp", dps_strategy_name (o->strategy));
  else if (!dps_cli_micro_batches (o->pp, &o->micro, o->batch, o->grad_accum, error))
    return FALSE;
  else if (o->topology && !o->emulate)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--topology: only with --emulate (the device whose roofline "
                 "times the emulated waits)");
  else if (o->topology && !dps_cli_check_topologies ((const char *[]) { o->topology, NULL }, error))
    return FALSE;
  if (*error)
    return FALSE;
  g_autoptr (GString) gpu_reps = g_string_new ("1");
  for (int g = 2; g <= n_gpu; g *= 2)   /* GPUs: one replica each */
    g_string_append_printf (gpu_reps, ",%d", g);
  int split = o->tp * o->pp;
  g_autofree char *split_def = g_strdup_printf ("%d,%d", split, 2 * split);
  const char *def = gpu ? gpu_reps->str : o->nodes > 1 ? (o->emulate ? "2,4,8" : "2,4") : o->emulate ? "1,2,4,8,16"
                    : split > 1 ? split_def : "1,2";
  if (!dps_cli_parse_int_list ("--gpus", o->replicas_s ? o->replicas_s : def, 1, gpu ? n_gpu : DPS_CLI_MAX_MACHINE_RANKS, &o->reps, error))
    return FALSE;
  for (guint i = 0; o->nodes > 1 && i < o->reps->len; i++)
    if (g_array_index (o->reps, gint64, i) % o->nodes) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--gpus: %d is not a multiple of --nodes %d",
                   (int) g_array_index (o->reps, gint64, i), o->nodes);
      return FALSE;
    }
  for (guint i = 0; split > 1 && i < o->reps->len; i++)
    if (g_array_index (o->reps, gint64, i) % split) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--gpus: %d ranks are not groups of %s %d",
                   (int) g_array_index (o->reps, gint64, i), o->tp > 1 ? "--tp" : "--pp", split);
      return FALSE;
    }
  for (guint i = 0; o->global_batch > 0 && i < o->reps->len; i++) {
    /* each replica count runs the global batch itself, not a rounding of it */
    int n = (int) g_array_index (o->reps, gint64, i) / o->tp * o->grad_accum;
    if (o->global_batch % n) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                   "--global-batch: %d samples do not split evenly over --gpus %d x --grad-accum %d",
                   o->global_batch, (int) g_array_index (o->reps, gint64, i), o->grad_accum);
      return FALSE;
    }
  }
  for (guint i = 0; o->shard_group > 0 && i < o->reps->len; i++)
    if (g_array_index (o->reps, gint64, i) % o->shard_group) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--shard-group: %d does not divide --gpus %d", o->shard_group,
                   (int) g_array_index (o->reps, gint64, i));
      return FALSE;
    }
  if (o->tp > 1 || o->pp > 1) {   /* the runner's split, before calibrating */
    g_autoptr (DpsModel) m = dps_model_load (o->model_s ? o->model_s : "mlp", error);
    if (!m || !dps_cli_layout_splits (m, o->tp, o->pp, error))
      return FALSE;
  }
  return dps_cli_check_prefix ("-o", o->output ? o->output : "dpscale-validation", error);
}

/* Refuses (TRUE, with error) a profile measured on another machine than
 * the one validate runs on: imported nccl-tests logs (another cluster), a
 * GPU profile for CPU replicas or the reverse, another host.  A validation
 * judged on another machine's numbers measures nothing. */
static gboolean
foreign_profile (const char *path, const DpsProfile *p, gboolean gpu, GError **error)
{
  const char *backend = p->data->backend ? p->data->backend : "";
  char here[256] = "";
  gethostname (here, sizeof here - 1);
  const char *host = p->data->host ? p->data->host
                     : p->machine_name && !g_str_equal (p->machine_name, "this machine") ? p->machine_name : NULL;
  if (g_str_equal (backend, "nccl-tests"))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: imported nccl-tests logs, not a calibration of this machine "
                 "(validate measures here: calibrate here, or drop --calibration)", path);
  else if (g_str_equal (backend, "gpu-nccl") != gpu)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: a %s profile (%s), and validate runs %s replicas (--backend %s)",
                 path, gpu ? "CPU" : "GPU", backend, gpu ? "GPU" : "CPU", gpu ? "gpu" : "cpu");
  else if (host && here[0] && !g_str_equal (host, here))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: calibrated on host '%s', not on this one ('%s')", path, host,
                 here);
  return *error != NULL;
}

/* The profile the predictions take: --calibration's (of this machine,
 * without a run's step times, measured up to the largest count), or a
 * calibration made now. */
static DpsProfile *
get_profile (const Opts *o, const DpsValidateSpec *s, const DpsModel *model, int max_r, GError **error)
{
  if (!o->calibration)
    return dps_validate_calibrate (s, model, error);
  g_autoptr (DpsProfile) p = dps_profile_load (o->calibration, error);
  if (!p)
    return NULL;
  if (p->run_section)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                 "%s: has step times of a training run ([%s]); a validation must not be judged on what it was fitted to",
                 o->calibration, p->run_section);
  else if (foreign_profile (o->calibration, p, s->gpu, error))
    ;   /* the error says why */
  else if (s->torch_script && g_strcmp0 (p->data->backend, "cpu-gloo") != 0)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: a %s profile; a PyTorch job on CPUs communicates through "
                 "gloo (dpscale calibrate --backend gloo, or drop --calibration)", o->calibration, p->data->backend);
  else if (!s->torch_script && g_strcmp0 (p->data->backend, "cpu-gloo") == 0)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: a cpu-gloo profile; dpscale's own replicas communicate "
                 "through MPI (dpscale calibrate --backend cpu, or drop --calibration)", o->calibration);
  else if (p->machine_ranks > 0 && p->machine_ranks < max_r)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: calibrated up to %d ranks, --gpus asks for %d",
                 o->calibration, p->machine_ranks, max_r);
  return *error ? NULL : g_steal_pointer (&p);
}

static const char *
what_ran (const DpsValidateSpec *s, gboolean short_form)
{
  if (s->torch_script)
    return short_form ? "PyTorch DDP over gloo" : "the PyTorch job's own DDP training (gloo, CPU)";
  if (s->emulate)
    return s->gpu ? (short_form ? "emulated compute, NCCL all-reduce" : "emulated compute, real NCCL all-reduces")
                  : (short_form ? "emulated compute, MPI all-reduce" : "emulated compute, real MPI all-reduces");
  return s->gpu ? (short_form ? "GPU data-parallel training" : "real GPU training (NCCL + cuBLAS fp32)")
                : (short_form ? "CPU data-parallel training" : "real CPU training (MPI + OpenBLAS)");
}

/* The table on standard output and the CSV plots/validation.gp reads. */
static void
report (const DpsValidateSpec *s, const DpsModel *model, const DpsProfile *profile, const DpsValidateResult *res,
        GString *t, GString *csv, JsonBuilder *json)
{
  dps_json_str (json, "model", model->name);
  dps_json_str (json, "ran", what_ran (s, FALSE));
  dps_json_str (json, "strategy", dps_strategy_name (s->strategy));
  dps_json_int (json, "batch_per_replica", s->batch);
  dps_json_int (json, "steps", s->steps);
  dps_json_int (json, "warmup", s->warmup);
  dps_json_int (json, "trials", s->trials);
  dps_json_int (json, "nodes", MAX (s->nodes, 1));
  dps_json_int (json, "tp", MAX (s->tp, 1));
  dps_json_int (json, "pp", MAX (s->pp, 1));
  json_builder_set_member_name (json, "rows");
  json_builder_begin_array (json);
  g_string_append (csv, "replicas,meas_median_s,meas_p10_s,meas_p90_s,pred_mean_s,pred_p5_s,pred_p95_s,"
                        "meas_efficiency,pred_efficiency,error_pct,inside,meas_compute_s,meas_exposed_s,"
                        "meas_optimizer_s,meas_other_s,pred_compute_s,pred_exposed_s,pred_optimizer_s,"
                        "pred_straggler_s\n");
  g_string_append_printf (t, "dpscale validate: %s, %s, %s, batch %d per replica, %d steps (%d warm-up), %d trials per "
                          "prediction\n", model->name, what_ran (s, FALSE), dps_strategy_name (s->strategy), s->batch,
                          s->steps, s->warmup, s->trials);
  if (s->nodes > 1)
    g_string_append_printf (t, "over %d emulated nodes joined by %.3g Gbit/s links (namespaces, tbf)\n", s->nodes,
                            s->link_gbps);
  if (s->tp > 1)
    g_string_append_printf (t, "tensor parallel groups of %d consecutive ranks (real/tensor-parallel.h): the counts are "
                            "ranks, count / %d replicas; efficiency against the smallest count\n", s->tp, s->tp);
  if (s->pp > 1)
    g_string_append_printf (t, "pipelines of %d stages, 1F1B over %d micro-batches (real/pipeline-step.h): the counts "
                            "are ranks, count / %d replicas; efficiency against the smallest count\n", s->pp, s->micro,
                            s->pp);
  g_string_append_printf (t, "\n%8s  %-28s  %-28s  %8s  %8s  %8s  %s\n", s->tp > 1 || s->pp > 1 ? "ranks" : "replicas",
                          "measured ms (p10..p90)",
                          "predicted ms (p5..p95)", "meas_eff", "pred_eff", "error_%", "inside");
  for (int i = 0; i < res->n; i++) {
    const DpsValidateRow *p = &res->rows[i];
    const DpsValidationPoint *v = &p->v;
    json_builder_begin_object (json);
    dps_json_int (json, "replicas", v->replicas);
    dps_json_bool (json, "ok", v->ok);
    if (!v->ok) {
      g_string_append_printf (t, "%8d  failed: %s\n", v->replicas, p->error ? p->error : "?");
      dps_json_str (json, "error", p->error ? p->error : "?");
      json_builder_end_object (json);
      continue;
    }
    char meas[64], pred[64];
    g_snprintf (meas, sizeof meas, "%.3f (%.3f..%.3f)", v->meas_median_s * 1e3, v->meas_p10_s * 1e3, v->meas_p90_s * 1e3);
    g_snprintf (pred, sizeof pred, "%.3f (%.3f..%.3f)", v->pred_mean_s * 1e3, v->pred_p5_s * 1e3, v->pred_p95_s * 1e3);
    g_string_append_printf (t, "%8d  %-28s  %-28s  %8.3f  %8.3f  %+8.1f  %s\n", v->replicas, meas, pred, v->meas_eff,
                            v->pred_eff, v->error_pct, v->inside ? "yes" : "no");
    double other = v->meas_median_s - p->meas_compute_s - p->meas_exposed_s - p->meas_opt_s;
    const struct { const char *key; double v; } f[] = {
      { "meas_median_s", v->meas_median_s }, { "meas_p10_s", v->meas_p10_s }, { "meas_p90_s", v->meas_p90_s },
      { "pred_mean_s", v->pred_mean_s }, { "pred_p5_s", v->pred_p5_s }, { "pred_p95_s", v->pred_p95_s },
      { "meas_efficiency", v->meas_eff }, { "pred_efficiency", v->pred_eff }, { "error_pct", v->error_pct },
      { "meas_compute_s", p->meas_compute_s }, { "meas_exposed_s", p->meas_exposed_s },
      { "meas_optimizer_s", p->meas_opt_s }, { "meas_other_s", MAX (other, 0) },
      { "pred_compute_s", p->pred_compute_s }, { "pred_exposed_s", p->pred_exposed_s },
      { "pred_optimizer_s", p->pred_opt_s }, { "pred_straggler_s", p->pred_straggler_s } };
    for (gsize k = 0; k < G_N_ELEMENTS (f); k++)
      dps_json_num (json, f[k].key, f[k].v);
    dps_json_bool (json, "inside", v->inside);
    json_builder_end_object (json);
    g_string_append_printf (csv, "%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6f,%.6f,%.4f,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n",
                            v->replicas, v->meas_median_s, v->meas_p10_s, v->meas_p90_s, v->pred_mean_s, v->pred_p5_s,
                            v->pred_p95_s, v->meas_eff, v->pred_eff, v->error_pct, v->inside, p->meas_compute_s,
                            p->meas_exposed_s, p->meas_opt_s, MAX (other, 0), p->pred_compute_s, p->pred_exposed_s,
                            p->pred_opt_s, p->pred_straggler_s);
  }
  json_builder_end_array (json);
  const DpsValidationScore *sc = &res->score;
  dps_json_num (json, "mean_abs_error_pct", sc->mape_pct);
  dps_json_num (json, "worst_pct", sc->worst_pct);
  dps_json_int (json, "inside", sc->inside);
  dps_json_int (json, "scored", sc->scored);
  dps_json_num (json, "collective_cv", res->comm_cv);
  dps_json_num (json, "held_out_error", res->fit_err);
  dps_json_num (json, "timing_spread", res->spread);
  dps_json_num (json, "compute_cv", res->compute_cv);
  if (res->noise_first_s > 0)
    dps_json_num (json, "noise_pct", res->noise_pct);
  g_string_append_printf (t, "\nmean absolute error %.1f%%, worst %.1f%%, %d of %d measured medians inside the predicted interval\n",
                          sc->mape_pct, sc->worst_pct, sc->inside, sc->scored);
  g_string_append_printf (t, "(collective-time uncertainty from the calibration: %.1f%% (held-out points %.1f%%, single "
                          "timings' spread %.1f%%)", res->comm_cv * 100, res->fit_err * 100, res->spread * 100);
  if (res->compute_cv > 0)
    g_string_append_printf (t, "; compute variation from run to run, calibrated: up to %.1f%%", res->compute_cv * 100);
  g_string_append (t, ")\n");
  if (res->noise_first_s > 0) {
    int big = s->replicas[s->n_replicas - 1];
    g_string_append_printf (t, "(the machine's own noise: %d replica%s measured %.3f ms, then %.3f ms run again: "
                            "%.1f%% apart)\n", big, big > 1 ? "s" : "",
                            res->noise_first_s * 1e3, res->noise_again_s * 1e3, res->noise_pct);
    if (res->noise_pct > sc->mape_pct)
      fprintf (stderr, "dpscale validate: warning: the machine's own noise (%.1f%%) is larger than the mean error "
               "(%.1f%%): the errors say little here\n", res->noise_pct, sc->mape_pct);
  }
  /* what the communication thread costs, as calibrated and predicted */
  double handoff = profile->data->handoff_s;
  if (handoff > 0)
    g_string_append_printf (t, "(handing a bucket to the idle communication thread: %.0f us", handoff * 1e6);
  if (handoff > 0 && res->busy_wait_s > 0)
    g_string_append_printf (t, "; its wait for a core while the replicas compute: %.2f ms, at most until backward ends",
                            res->busy_wait_s * 1e3);
  if (handoff > 0)
    g_string_append (t, ")\n");
}

/* Renders script (a plots/ file) from data to out, naming it in t; a
 * failure is a warning (an I/O failure also the exit status 1). */
static gboolean
render (const char *script, const char *data, const char *out, const char *title, GString *t)
{
  GError *perr = NULL;
  if (dps_plot_render (script, data, out, title, NULL, &perr)) {
    g_string_append_printf (t, ", %s", out);
    return TRUE;
  }
  fprintf (stderr, "dpscale validate: warning: %s\n", perr->message);
  gboolean io = dps_error_kind (perr) == DPS_ERROR_IO;
  g_error_free (perr);
  return !io;
}

/* PREFIX.csv, the efficiency and breakdown plots, the timeline; returns
 * the exit status (0, or 1 when a file could not be written). */
static int
write_files (const DpsValidateSpec *s, const DpsModel *model, const DpsValidateResult *res, const GString *csv,
             GString *t, GError **error)
{
  g_autofree char *csv_path = g_strconcat (s->prefix, ".csv", NULL);
  if (res->score.scored == 0 || !dps_cli_emit (csv_path, csv, error))
    return 0;
  int status = 0;
  g_string_append_printf (t, "wrote %s", csv_path);
  g_autofree char *title = g_strdup_printf ("%s, %s, %s: predicted and measured", model->name, what_ran (s, TRUE),
                                            dps_strategy_name (s->strategy));
  const char *names[][2] = { { "validation.gp", "" }, { "breakdown.gp", "-breakdown" } };
  for (int k = 0; k < 2; k++)
    for (int f = 0; f < 2; f++) {
      g_autofree char *out = g_strdup_printf ("%s%s.%s", s->prefix, names[k][1], f ? "svg" : "png");
      status |= !render (names[k][0], csv_path, out, title, t);
    }
  const DpsValidateRow *last = &res->rows[res->n - 1];
  g_autofree char *tl_path = g_strconcat (s->prefix, "-timeline.csv", NULL);
  g_autofree char *tl_title = g_strdup_printf ("one step at %d replicas: predicted above, measured below",
                                               last->v.replicas);
  GError *perr = NULL;
  if (last->v.ok && !dps_cli_emit (tl_path, res->timeline, &perr)) {
    fprintf (stderr, "dpscale validate: warning: no timeline: %s\n", perr->message);
    status |= dps_error_kind (perr) == DPS_ERROR_IO;
    g_error_free (perr);
  } else if (last->v.ok)
    for (int f = 0; f < 2; f++) {
      g_autofree char *out = g_strdup_printf ("%s-timeline.%s", s->prefix, f ? "svg" : "png");
      status |= !render ("timeline.gp", tl_path, out, tl_title, t);
    }
  g_string_append (t, "\n");
  return status;
}

int
dps_cmd_validate (int argc, char **argv)
{
  Opts o = { .batch = DPS_UNSET_INT, .steps = DPS_UNSET_INT, .warmup = DPS_UNSET_INT, .trials = DPS_UNSET_INT,
             .tp = DPS_UNSET_INT, .pp = DPS_UNSET_INT, .micro = DPS_UNSET_INT,
             .grad_accum = DPS_UNSET_INT, .global_batch = DPS_UNSET_INT, .shard_group = DPS_UNSET_INT,
             .nodes = DPS_UNSET_INT, .cap = dps_cli_unset (), .first = dps_cli_unset (), .timeout = dps_cli_unset (),
             .link_gbps = dps_cli_unset (), .jitter = dps_cli_unset () };
  GOptionEntry entries[] = {
    { "backend", 0, 0, G_OPTION_ARG_STRING, &o.backend, "cpu (default: MPI + OpenBLAS replicas) or gpu (one GPU per replica: NCCL + cuBLAS)", "B" },
    { "emulate", 'e', 0, G_OPTION_ARG_NONE, &o.emulate, "Emulated compute (waits), real all-reduces: many replicas on few cores", NULL },
    { "torch", 0, 0, G_OPTION_ARG_FILENAME, &o.torch, "Run this PyTorch DDP script (gloo on CPUs, its rank 0 printing 'dpscale-step STEP SECONDS': real/torch-run.h) instead of dpscale's trainer; --model its per-layer CSV (calibrate/torch-layers.py); calibrates gloo", "SCRIPT" },
    { "gpus", 'g', 0, G_OPTION_ARG_STRING, &o.replicas_s, "Replica counts (default 1,2; with --emulate 1,2,4,8,16; GPUs: 1,2,4,... up to the GPUs; was --replicas/-r)", "LIST" },
    { "model", 'M', 0, G_OPTION_ARG_STRING, &o.model_s, "Model: mlp (default) or a GPT-2 stack such as transformer-small", "NAME" },
    { "batch", 'b', 0, G_OPTION_ARG_INT, &o.batch, "Samples per replica per step (default 32)", "B" },
    { "steps", 's', 0, G_OPTION_ARG_INT, &o.steps, "Steps per run (default 20)", "S" },
    { "warmup", 'w', 0, G_OPTION_ARG_INT, &o.warmup, "Steps left out (default 3)", "W" },
    { "grad-accum", 'k', 0, G_OPTION_ARG_INT, &o.grad_accum, "Micro-steps per step, all but the last under no_sync (default 1)", "K" },
    { "global-batch", 'G', 0, G_OPTION_ARG_INT, &o.global_batch, "Strong scaling: this many samples per step split across replicas (overrides --batch)", "B" },
    { "strategy", 0, 0, G_OPTION_ARG_STRING, &o.strategy_s, "ddp (default), zero1, zero2, fsdp or hsdp (or PyTorch's NO_SHARD, SHARD_GRAD_OP, FULL_SHARD, HYBRID_SHARD); each layer a wrapped unit, run and predicted", "S" },
    { "shard-group", 0, 0, G_OPTION_ARG_INT, &o.shard_group, "hsdp: ranks a shard group, dividing every count (default: one emulated node's, else all)", "G" },
    { "pp", 0, 0, G_OPTION_ARG_INT, &o.pp, "Pipeline stages (a GPT-2 stack on CPUs, 1F1B; --gpus then counts ranks, default P,2P), run and predicted", "P" },
    { "micro-batches", 0, 0, G_OPTION_ARG_INT, &o.micro, "With --pp: micro-batches a step, dividing --batch (default 2 x --pp)", "M" },
    { "tp", 0, 0, G_OPTION_ARG_INT, &o.tp, "Tensor parallel ranks a group (a GPT-2 stack on CPUs; --gpus then counts ranks, default T,2T), run and predicted", "T" },
    { "bucket-cap-mb", 0, 0, G_OPTION_ARG_DOUBLE, &o.cap, "DDP bucket cap in MiB (default 25)", "MB" },
    { "first-bucket-mb", 0, 0, G_OPTION_ARG_DOUBLE, &o.first, "First bucket cap in MiB (default 1)", "MB" },
    { "calibration", 'C', 0, G_OPTION_ARG_FILENAME, &o.calibration, "Use this profile instead of calibrating first", "FILE" },
    { "topology", 't', 0, G_OPTION_ARG_STRING, &o.topology, "Emulation: the device whose roofline times to wait when the profile has none for the model", "NAME" },
    { "trials", 'T', 0, G_OPTION_ARG_INT, &o.trials, "Monte Carlo trials per prediction (default 20)", "T" },
    { "jitter", 0, 0, G_OPTION_ARG_DOUBLE, &o.jitter, "Per-layer compute jitter assumed by the prediction (CV, default 0)", "CV" },
    { "nodes", 0, 0, G_OPTION_ARG_INT, &o.nodes, "Spread every replica count over this many emulated nodes (root)", "K" },
    { "link-gbps", 0, 0, G_OPTION_ARG_DOUBLE, &o.link_gbps, "Emulated nodes: each node's link, Gbit/s each way (default 1)", "GBPS" },
    { "quick", 'q', 0, G_OPTION_ARG_NONE, &o.quick, "A short calibration (CI)", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o.timeout, "Limit for each mpirun, seconds (default 600)", "S" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "Prefix of the files written (default dpscale-validation)", "PREFIX" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &o.format_s, "What to print: table (default), csv (PREFIX.csv's rows) or json (the rows and the scores)", "FMT" },
    G_OPTION_ENTRY_NULL
  };
  static const DpsCliAlias aliases[] = { { "--replicas", "--gpus" }, { "-r", "--gpus" }, { NULL, NULL } };
  GError *error = NULL;
  dps_cli_deprecated ("validate", aliases, argc, argv);
  gboolean parsed = dps_cli_parse ("validate",
                                   "Calibrates (or takes --calibration), runs real data-parallel training for each\n"
                                   "replica count, predicts each from the calibration alone, and writes\n"
                                   "PREFIX.csv, PREFIX.png/.svg (efficiency) and PREFIX-breakdown.png/.svg.\n"
                                   "Replicas train with SGD (the step its calibration times); the predictions use\n"
                                   "the flow-level network model, as every subcommand does by default.\n\n"
                                   "Examples:\n  dpscale validate\n  dpscale validate --emulate --gpus 1,2,4,8,16\n"
                                   "  dpscale validate --strategy fsdp --gpus 1,2,4\n"
                                   "  dpscale validate --model transformer-small --batch 4 --tp 2",
                                   entries, &argc, &argv, &error);
  gboolean gpu = o.backend && g_str_equal (o.backend, "gpu");
  if (parsed && argc > 1)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option: unexpected argument '%s'", argv[1]);
  g_autoptr (DpsModel) model = NULL;
  g_autoptr (DpsProfile) profile = NULL;
  DpsValidateResult res = { 0 };
  int max_r = 0;
  if (!error && check_opts (&o, gpu, &error))
    for (guint i = 0; i < o.reps->len; i++)
      max_r = MAX (max_r, (int) g_array_index (o.reps, gint64, i));
  g_autofree int *reps = g_new0 (int, o.reps ? o.reps->len : 1);
  for (guint i = 0; o.reps && i < o.reps->len; i++)
    reps[i] = (int) g_array_index (o.reps, gint64, i);
  DpsValidateSpec s = { .gpu = gpu, .emulate = o.emulate, .quick = o.quick, .replicas = reps,
                        .n_replicas = o.reps ? (int) o.reps->len : 0, .batch = o.batch, .steps = o.steps,
                        .warmup = o.warmup, .trials = o.trials, .grad_accum = o.grad_accum,
                        .global_batch = o.global_batch, .nodes = o.nodes, .link_gbps = o.link_gbps, .cap_mb = o.cap,
                        .first_mb = o.first, .timeout_s = o.timeout, .jitter = o.jitter, .topology = o.topology,
                        .prefix = o.output ? o.output : "dpscale-validation", .progress = progress,
                        .strategy = o.strategy, .shard_group = o.shard_group > 0 ? o.shard_group : 0,
                        .torch_script = o.torch, .tp = o.tp, .pp = o.pp, .micro = o.micro };
  if (!error && (model = dps_model_load (o.model_s ? o.model_s : "mlp", &error))
      && (gpu || o.emulate || o.torch || dps_cli_check_cpu_model (model, o.batch, max_r, &error))
      && (!o.torch || dps_model_has_times (model) || (g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT,
          "--model %s: no measured layer times; --torch predicts the job from the times its per-layer file holds "
          "(calibrate/torch-layers.py)", o.model_s), FALSE))
      && (profile = get_profile (&o, &s, model, max_r, &error)))
    dps_validate_run (&s, model, profile, &res, &error);
  int status = 1;
  if (!error) {
    g_autoptr (GString) csv = g_string_new (NULL), t = g_string_new (NULL);
    g_autoptr (JsonBuilder) json = json_builder_new ();
    json_builder_begin_object (json);
    report (&s, model, profile, &res, t, csv, json);
    status = write_files (&s, model, &res, csv, t, &error) | (res.score.scored == res.n ? 0 : 1);
    dps_json_str (json, "prefix", s.prefix);
    dps_cli_emit_as (o.format, t, csv, json);
  }
  dps_validate_result_clear (&res);
  opts_clear (&o);
  return error ? dps_cli_fail ("validate", error) : status;
}
