/* cli-validate.c — `dpscale validate`: calibrate here, predict here, run
 * here, and show the error.  For each replica count: a real run (or an
 * emulated one), the simulator's prediction from the calibration profile
 * alone (never from step times of the run), a table, a CSV and plots. */
#include "sim/app/cli.h"
#include "sim/app/cli-ddp.h"
#include "real/run.h"
#include "sim/base/plot.h"
#include "sim/validation.h"
#include "real/netemu.h"
#include "sim/base/error.h"
#include "sim/buckets.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

typedef struct {
  DpsValidationPoint v;
  double meas_compute, meas_exposed, meas_opt;
  double pred_compute, pred_exposed, pred_opt, pred_straggler;
  char  *error;
} Point;

/* One step laid out for plots/timeline.gp: source 1 predicted, 0
 * measured; lane a replica (0..3 drawn), -1 the all-reduces, -2 the
 * optimizer; kind 0 compute, 1 communication, 2 optimizer. */
static void
timeline_row (GString *t, int source, int lane, double start_s, double dur_s, int kind)
{
  if (lane > 3 || dur_s <= 0)
    return;
  g_string_append_printf (t, "%d,%d,%.6f,%.6f,%d\n", source, lane, start_s * 1e3, (start_s + dur_s) * 1e3, kind);
}

static void
timeline_measured (GString *t, const DpsRunResult *run, int step)
{
  for (guint i = 0; i < run->steps->len; i++) {
    const DpsRunStep *s = &g_array_index (run->steps, DpsRunStep, i);
    if (s->step != step)
      continue;
    timeline_row (t, 0, s->replica, 0, s->fwd + s->bwd, 0);
    if (s->replica == 0)
      timeline_row (t, 0, -2, s->fwd + s->bwd + s->exposed, s->opt, 2);
  }
  for (guint i = 0; i < run->buckets->len; i++) {
    const DpsRunBucket *b = &g_array_index (run->buckets, DpsRunBucket, i);
    if (b->step == step)
      timeline_row (t, 0, -1, b->start, b->dur, 1);
  }
}

static void
timeline_predicted (GString *t, const DpsDdpResult *r)
{
  for (guint i = 0; r->trace && i < r->trace->len; i++) {
    const DpsTraceEvent *e = &g_array_index (r->trace, DpsTraceEvent, i);
    timeline_row (t, 1, e->lane, e->start_s, e->dur_s, e->comm ? 1 : e->lane == -2 ? 2 : 0);
  }
}

/* RMS relative error of the fit on its held-out points of min_bytes or
 * more (all of them when fewer than 3 are that large): the uncertainty of
 * predicted collective times. */
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

static double
held_out_rms (const DpsProfile *p, double min_bytes)
{
  double sum = 0;
  int n = 0;
  for (int pass = 0; pass < 2 && n < 3; pass++) {
    sum = n = 0;
    for (guint i = 0; i < p->data->points->len; i++) {
      const DpsCalPoint *pt = &g_array_index (p->data->points, DpsCalPoint, i);
      if (!pt->held_out || pt->ranks < 2 || (pass == 0 && pt->bytes < min_bytes))
        continue;
      double t = dps_fit_predict (&p->fit, pt->ranks, pt->nodes, pt->bytes);
      sum += pow ((t - pt->time_s) / pt->time_s, 2);
      n++;
    }
  }
  return n ? sqrt (sum / n) : 0.1;
}

/* Mean spread of single all-reduce timings (measured in gap mode) at
 * min_bytes or more; 0 when not measured. */
static double
timing_spread (const DpsProfile *p, double min_bytes)
{
  double sum = 0;
  int n = 0;
  for (guint i = 0; i < p->data->points->len; i++) {
    const DpsCalPoint *pt = &g_array_index (p->data->points, DpsCalPoint, i);
    if (pt->ranks >= 2 && pt->cv > 0 && pt->bytes >= min_bytes) {
      sum += pt->cv;
      n++;
    }
  }
  return n ? sum / n : 0;
}

int
dps_cmd_validate (int argc, char **argv)
{
  g_autofree char *backend = NULL, *replicas_s = NULL, *model_s = NULL, *calibration = NULL, *output = NULL;
  g_autofree char *topology = NULL;
  int batch = 32, steps = 20, warmup = 3, trials = 20, grad_accum = 1, nodes = 0, global_batch = DPS_UNSET_INT;
  double cap = 25, first = 1, timeout = 600, jitter = 0, link_gbps = 1;
  gboolean emulate = FALSE, quick = FALSE;
  GOptionEntry entries[] = {
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend, "cpu (default: MPI + OpenBLAS replicas) or gpu (one GPU per replica: NCCL + cuBLAS)", "B" },
    { "emulate", 'e', 0, G_OPTION_ARG_NONE, &emulate, "Emulated compute (waits), real all-reduces: many replicas on few cores", NULL },
    { "gpus", 'g', 0, G_OPTION_ARG_STRING, &replicas_s, "Replica counts (default 1,2; with --emulate 1,2,4,8,16; GPUs: 1,2,4,... up to the GPUs; was --replicas/-r)", "LIST" },
    { "model", 'M', 0, G_OPTION_ARG_STRING, &model_s, "Model: mlp (default) or a GPT-2 stack such as transformer-small", "NAME" },
    { "batch", 'b', 0, G_OPTION_ARG_INT, &batch, "Samples per replica per step (default 32)", "B" },
    { "steps", 's', 0, G_OPTION_ARG_INT, &steps, "Steps per run (default 20)", "S" },
    { "warmup", 'w', 0, G_OPTION_ARG_INT, &warmup, "Steps left out (default 3)", "W" },
    { "grad-accum", 'k', 0, G_OPTION_ARG_INT, &grad_accum, "Micro-steps per step, all but the last under no_sync (default 1)", "K" },
    { "global-batch", 'G', 0, G_OPTION_ARG_INT, &global_batch, "Strong scaling: this many samples per step split across replicas (overrides --batch)", "B" },
    { "bucket-cap-mb", 0, 0, G_OPTION_ARG_DOUBLE, &cap, "DDP bucket cap in MiB (default 25)", "MB" },
    { "first-bucket-mb", 0, 0, G_OPTION_ARG_DOUBLE, &first, "First bucket cap in MiB (default 1)", "MB" },
    { "calibration", 'C', 0, G_OPTION_ARG_FILENAME, &calibration, "Use this profile instead of calibrating first", "FILE" },
    { "topology", 't', 0, G_OPTION_ARG_STRING, &topology, "Emulation: the device whose roofline times to wait when the profile has none for the model", "NAME" },
    { "trials", 'T', 0, G_OPTION_ARG_INT, &trials, "Monte Carlo trials per prediction (default 20)", "T" },
    { "jitter", 0, 0, G_OPTION_ARG_DOUBLE, &jitter, "Per-layer compute jitter assumed by the prediction (CV, default 0)", "CV" },
    { "nodes", 0, 0, G_OPTION_ARG_INT, &nodes, "Spread every replica count over this many emulated nodes (root)", "K" },
    { "link-gbps", 0, 0, G_OPTION_ARG_DOUBLE, &link_gbps, "Emulated nodes: each node's link, Gbit/s each way (default 1)", "GBPS" },
    { "quick", 'q', 0, G_OPTION_ARG_NONE, &quick, "A short calibration (CI)", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout, "Limit for each mpirun, seconds (default 600)", "S" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Prefix of the files written (default dpscale-validation)", "PREFIX" },
    G_OPTION_ENTRY_NULL
  };
  static const DpsCliAlias aliases[] = { { "--replicas", "--gpus" }, { "-r", "--gpus" }, { NULL, NULL } };
  GError *error = NULL;
  dps_cli_deprecated ("validate", aliases, argc, argv);
  if (!dps_cli_parse ("validate", "calibrate, run and predict over replica counts; the error, in numbers and a plot",
                      "Calibrates (or takes --calibration), runs real data-parallel training for each\n"
                      "replica count, predicts each from the calibration alone, and writes\n"
                      "PREFIX.csv, PREFIX.png/.svg (efficiency) and PREFIX-breakdown.png/.svg.\n"
                      "Replicas train with SGD (the step its calibration times); the predictions use\n"
                      "the flow-level network model, as every subcommand does by default.\n\n"
                      "Examples:\n  dpscale validate\n  dpscale validate --emulate --gpus 1,2,4,8,16",
                      entries, &argc, &argv, &error))
    return dps_cli_fail ("validate", error);
  GArray *reps = NULL;
  gboolean gpu = backend && g_str_equal (backend, "gpu");
  int n_gpu = 0;
  g_autoptr (GString) gpu_reps = g_string_new ("1");
  if (argc > 1)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option: unexpected argument '%s'", argv[1]);
  else if (backend && !gpu && !g_str_equal (backend, "cpu"))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--backend: '%s' is not cpu or gpu", backend);
  else if (!dps_cli_int_given ("--global-batch", &global_batch, 1, G_MAXINT, 0, &error)
           || !dps_cli_double_given ("--timeout", &timeout, 0, FALSE, 1e7, 600, &error)
           || !dps_cli_double_given ("--link-gbps", &link_gbps, 0, FALSE, 1e6, 1, &error)
           || !dps_cli_double_given ("--first-bucket-mb", &first, 0, TRUE, 1e6, 1, &error)
           || !dps_cli_double_given ("--jitter", &jitter, 0, TRUE, 10, 0, &error))
    ;
  else if (gpu && nodes > 0)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "--nodes: emulated nodes hold CPU replicas (--backend cpu)");
  else if (gpu && (n_gpu = dps_run_gpus (&error)) < 1)
    ;   /* the error says why */
  else if (steps < 2 || warmup < 0 || warmup >= steps || batch < 1 || trials < 1 || trials > 100000 || !(cap > 0))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--steps/--warmup/--batch/--trials/--bucket-cap-mb: out of range");
  else if (grad_accum < 1 || grad_accum > 1024 || global_batch < 0)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--grad-accum/--global-batch: out of range");
  else if (global_batch > 0 && emulate)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "--global-batch: not with --emulate yet (the waits are for one batch)");
  else if (nodes < 0 || nodes == 1 || nodes > 64)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--nodes: 2 to 64 emulated nodes");
  else {
    for (int g = 2; g <= n_gpu; g *= 2)   /* GPUs: one replica each */
      g_string_append_printf (gpu_reps, ",%d", g);
    dps_cli_parse_int_list ("--gpus", replicas_s ? replicas_s : gpu ? gpu_reps->str : nodes > 1 ? (emulate ? "2,4,8" : "2,4")
                            : emulate ? "1,2,4,8,16" : "1,2", 1, gpu ? n_gpu : 256, &reps, &error);
  }
  for (guint i = 0; !error && nodes > 1 && i < reps->len; i++)
    if (g_array_index (reps, gint64, i) % nodes)
      g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--gpus: %d is not a multiple of --nodes %d",
                   (int) g_array_index (reps, gint64, i), nodes);
  if (!error && output)
    dps_cli_check_prefix ("-o", output, &error);
  if (error) {
    if (reps)
      g_array_free (reps, TRUE);
    return dps_cli_fail ("validate", error);
  }
  const char *prefix = output ? output : "dpscale-validation";
  g_autoptr (DpsModel) model = dps_model_load (model_s ? model_s : "mlp", &error);
  g_autoptr (DpsProfile) profile = NULL;
  int max_r = 0;
  for (guint i = 0; i < reps->len; i++)
    max_r = MAX (max_r, (int) g_array_index (reps, gint64, i));
  if (model && !gpu && !emulate && !dps_cli_check_cpu_model (model, batch, max_r, &error))
    g_clear_pointer (&model, dps_model_free);   /* the error says why */
  else if (model && calibration) {
    profile = dps_profile_load (calibration, &error);
    if (profile && profile->run_section)
      g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT,
                   "%s: has step times of a training run ([%s]); a validation must not be judged on what it was fitted to",
                   calibration, profile->run_section);
    else if (profile && foreign_profile (calibration, profile, gpu, &error))
      ;   /* the error says why */
    else if (profile && profile->machine_ranks > 0 && profile->machine_ranks < max_r)
      g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "%s: calibrated up to %d ranks, --gpus asks for %d",
                   calibration, profile->machine_ranks, max_r);
  } else if (model) {
    /* 1. calibrate: all-reduce at every replica count of 2 or more, up to the largest bucket */
    GArray *r = g_array_new (FALSE, FALSE, sizeof (int));
    for (guint i = 0; i < reps->len; i++) {
      int v = (int) g_array_index (reps, gint64, i);
      if (v >= 2)
        g_array_append_val (r, v);
    }
    if (r->len == 0 && !gpu) {   /* the fit needs a collective; one GPU has none */
      int two = 2;
      g_array_append_val (r, two);
    }
    g_autoptr (DpsBuckets) bk = dps_buckets_assign (model, cap * 1048576, first * 1048576, 4);
    double biggest = 1024;
    for (int b = 0; b < dps_buckets_count (bk); b++)
      biggest = MAX (biggest, dps_buckets_get (bk, b)->bytes);
    GArray *sizes = g_array_new (FALSE, FALSE, sizeof (double));
    for (double s = 1024; s < biggest * 2; s *= 2)
      g_array_append_val (sizes, s);
    fprintf (stderr, "validate: 1/3 calibrating all-reduce and compute (no step times)\n");
    if (gpu)
      profile = dps_calibrate_gpu_runner ((int *) r->data, (int) r->len, (double *) sizes->data, (int) sizes->len,
                                          quick, model, batch, timeout, &error);
    else
      profile = dps_calibrate_cpu ((int *) r->data, (int) r->len, (double *) sizes->data, (int) sizes->len, quick,
                                   model, batch, timeout, nodes, link_gbps, -1, emulate, &error);
    g_array_free (r, TRUE);
    g_array_free (sizes, TRUE);
    if (profile) {
      g_autofree char *path = g_strconcat (prefix, ".calib", NULL);
      dps_profile_save (profile, path, &error);
    }
  }
  if (error || !model) {
    g_array_free (reps, TRUE);
    return dps_cli_fail ("validate", error);
  }
  /* the compute both sides use: measured per-layer times (real runs), or
   * the times the emulator waits, given to the model so that the simulator
   * predicts the same compute */
  g_autofree double *efwd = NULL, *ebwd = NULL;
  double eopt = 0;
  if (!dps_cli_emulation_times (model, profile, topology, batch, FALSE, &efwd, &ebwd, &eopt, &error)) {
    g_array_free (reps, TRUE);
    return dps_cli_fail ("validate", error);
  }
  if (emulate)
    dps_model_set_times (model, efwd, ebwd, batch);
  /* the uncertainty of the collectives this job runs: the calibration's
   * held-out error at sizes from half its smallest bucket up (all held-out
   * sizes when fewer than 3 are that large), and how much single
   * all-reduces of those sizes varied while calibrating (independent, so
   * in quadrature) */
  g_autoptr (DpsBuckets) job_buckets = dps_buckets_assign (model, cap * 1048576, first * 1048576, 4);
  double smallest = G_MAXDOUBLE;
  for (int b = 0; b < dps_buckets_count (job_buckets); b++)
    smallest = MIN (smallest, dps_buckets_get (job_buckets, b)->bytes);
  double fit_err = held_out_rms (profile, smallest / 2), spread = timing_spread (profile, smallest / 2);
  double comm_cv = sqrt (fit_err * fit_err + spread * spread), compute_cv = 0;
  int n = (int) reps->len;
  g_autoptr (DpsNetEmu) net = NULL;
  if (nodes > 1 && !(net = dps_netemu_new (nodes, max_r / nodes, link_gbps, &error))) {
    g_array_free (reps, TRUE);
    return dps_cli_fail ("validate", error);
  }
  Point *pts = g_new0 (Point, n);
  g_autoptr (GString) timeline = g_string_new ("source,lane,start_ms,end_ms,kind\n");
  for (int i = 0; i < n; i++) {
    int N = (int) g_array_index (reps, gint64, i);
    Point *p = &pts[i];
    p->v.replicas = N;
    fprintf (stderr, "validate: 2/3 %d replica%s: running %d steps%s\n", N, N > 1 ? "s" : "", steps,
             emulate ? " (emulated compute)" : "");
    /* strong scaling: the global batch split across the replicas and micro-steps */
    int pb = global_batch > 0 ? MAX (1, global_batch / (N * grad_accum)) : batch;
    DpsRunSpec spec = { .ranks = N, .steps = steps, .batch = pb, .seed = 1, .grad_accum = grad_accum, .bucket_cap_mb = cap,
                        .first_bucket_mb = first, .optimizer = "sgd", .emulate = emulate, .emu_fwd_s = efwd,
                        .emu_bwd_s = ebwd, .emu_opt_s = eopt, .timeout_s = timeout, .quiet = TRUE, .net = net,
                        .gpu = gpu };
    DpsRunResult run;
    GError *perr = NULL;
    if (dps_run_execute (&spec, model, &run, &perr)) {
      p->v.meas_median_s = dps_run_quantile (&run, warmup, DPS_RUN_STEP, 0.5);
      p->v.meas_p10_s = dps_run_quantile (&run, warmup, DPS_RUN_STEP, 0.1);
      p->v.meas_p90_s = dps_run_quantile (&run, warmup, DPS_RUN_STEP, 0.9);
      p->meas_compute = dps_run_quantile (&run, warmup, DPS_RUN_COMPUTE, 0.5);
      p->meas_exposed = dps_run_quantile (&run, warmup, DPS_RUN_EXPOSED, 0.5);
      p->meas_opt = dps_run_quantile (&run, warmup, DPS_RUN_OPTIMIZER, 0.5);
      if (i == n - 1) {
        g_autofree char *tp = g_strconcat (prefix, "-measured-trace.json", NULL);
        dps_run_write_trace (&run, steps - 1, tp, NULL);
        timeline_measured (timeline, &run, steps - 1);
      }
    }
    dps_run_result_clear (&run);
    /* 3. the prediction, from the profile alone */
    if (!perr) {
      DpsDdpConfig c;
      dps_ddp_config_default (&c);
      c.mode = DPS_CLI_NET_MODE;
      c.compute.dtype = DPS_DTYPE_FP32;
      c.mixed = FALSE;
      c.optimizer = DPS_OPT_SGD;
      c.batch = pb;
      c.grad_accum = grad_accum;
      c.bucket_cap_bytes = cap * 1048576;
      c.first_bucket_bytes = first * 1048576;
      c.trials = trials;
      c.jitter_cv = jitter;
      c.comm_cv = comm_cv;
      c.trace_replicas = i == n - 1 ? 8 : 0;
      g_autoptr (DpsTopo) topo = NULL;
      DpsDdpResult r;
      gboolean ready = dps_ddp_setup (NULL, profile, model, nodes > 1 ? nodes : 0, N, &c, &topo, &perr);
      if (ready && emulate) {
        /* emulated replicas sleep instead of computing: their layers take
         * exactly the waits they were given (not the profile's times for
         * co-located ranks), nothing contends with the all-reduces, and
         * the optimizer is its wait too */
        dps_model_set_times (model, efwd, ebwd, batch);
        c.contention = 0;
        c.contention_comm = 0;
        c.optimizer_s = eopt;
      } else if (ready) {
        /* the runner's own SGD step, as calibrated with as many ranks
         * computing at once on a node (not the generic bytes-moved model) */
        const DpsLayerTimes *lt = dps_profile_layers_for (profile, model, N / MAX (nodes, 1));
        if (lt && lt->sgd_s > 0)
          c.optimizer_s = lt->sgd_s;
        /* and how much a step's compute varies from run to run there */
        c.compute_cv = lt ? lt->compute_cv : 0;
        compute_cv = MAX (compute_cv, c.compute_cv);
      }
      if (ready && dps_ddp_simulate (&c, &r, &perr)) {
        p->v.pred_mean_s = r.step_mean_s;
        p->v.pred_p5_s = r.step_p5_s;
        p->v.pred_p95_s = r.step_p95_s;
        p->pred_compute = r.compute_s;
        p->pred_exposed = r.exposed_comm_s;
        p->pred_opt = r.optimizer_s;
        p->pred_straggler = r.straggler_s;
        p->v.ok = TRUE;
        if (r.trace) {
          g_autofree char *tp = g_strconcat (prefix, "-predicted-trace.json", NULL);
          dps_ddp_write_trace (&r, tp, NULL);
          timeline_predicted (timeline, &r);
        }
        dps_ddp_result_clear (&r);
      }
    }
    if (perr) {
      dps_cli_name_flag (perr);
      p->error = g_strdup (perr->message);
      fprintf (stderr, "validate: %d replicas failed: %s\n", N, perr->message);
      g_error_free (perr);
    } else
      fprintf (stderr, "validate:     measured %.3f ms, predicted %.3f ms\n", p->v.meas_median_s * 1e3,
               p->v.pred_mean_s * 1e3);
  }
  /* 4. the table, the CSV, the plots */
  DpsValidationPoint *vp = g_new (DpsValidationPoint, n);
  for (int i = 0; i < n; i++)
    vp[i] = pts[i].v;
  DpsValidationScore score;
  dps_validation_score (vp, n, &score);
  g_autoptr (GString) csv = g_string_new ("replicas,meas_median_s,meas_p10_s,meas_p90_s,pred_mean_s,pred_p5_s,pred_p95_s,"
                                          "meas_efficiency,pred_efficiency,error_pct,inside,meas_compute_s,meas_exposed_s,"
                                          "meas_optimizer_s,meas_other_s,pred_compute_s,pred_exposed_s,pred_optimizer_s,"
                                          "pred_straggler_s\n");
  g_autoptr (GString) t = g_string_new (NULL);
  g_string_append_printf (t, "dpscale validate: %s, %s, batch %d per replica, %d steps (%d warm-up), %d trials per prediction\n",
                          model->name, emulate ? (gpu ? "emulated compute, real NCCL all-reduces" : "emulated compute, real MPI all-reduces")
                          : gpu ? "real GPU training (NCCL + cuBLAS fp32)" : "real CPU training (MPI + OpenBLAS)",
                          batch, steps, warmup, trials);
  if (net)
    g_string_append_printf (t, "over %d emulated nodes joined by %.3g Gbit/s links (namespaces, tbf)\n", nodes, link_gbps);
  g_string_append (t, "\n");
  g_string_append_printf (t, "%8s  %-28s  %-28s  %8s  %8s  %8s  %s\n", "replicas", "measured ms (p10..p90)",
                          "predicted ms (p5..p95)", "meas_eff", "pred_eff", "error_%", "inside");
  for (int i = 0; i < n; i++) {
    const DpsValidationPoint *v = &vp[i];
    const Point *p = &pts[i];
    if (!v->ok) {
      g_string_append_printf (t, "%8d  failed: %s\n", v->replicas, p->error ? p->error : "?");
      continue;
    }
    char meas[64], pred[64];
    g_snprintf (meas, sizeof meas, "%.3f (%.3f..%.3f)", v->meas_median_s * 1e3, v->meas_p10_s * 1e3, v->meas_p90_s * 1e3);
    g_snprintf (pred, sizeof pred, "%.3f (%.3f..%.3f)", v->pred_mean_s * 1e3, v->pred_p5_s * 1e3, v->pred_p95_s * 1e3);
    g_string_append_printf (t, "%8d  %-28s  %-28s  %8.3f  %8.3f  %+8.1f  %s\n", v->replicas, meas, pred, v->meas_eff,
                            v->pred_eff, v->error_pct, v->inside ? "yes" : "no");
    double other = v->meas_median_s - p->meas_compute - p->meas_exposed - p->meas_opt;
    g_string_append_printf (csv, "%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6f,%.6f,%.4f,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n",
                            v->replicas, v->meas_median_s, v->meas_p10_s, v->meas_p90_s, v->pred_mean_s, v->pred_p5_s,
                            v->pred_p95_s, v->meas_eff, v->pred_eff, v->error_pct, v->inside, p->meas_compute,
                            p->meas_exposed, p->meas_opt, MAX (other, 0), p->pred_compute, p->pred_exposed, p->pred_opt,
                            p->pred_straggler);
  }
  g_string_append_printf (t, "\nmean absolute error %.1f%%, worst %.1f%%, %d of %d measured medians inside the predicted interval\n",
                          score.mape_pct, score.worst_pct, score.inside, score.scored);
  g_string_append_printf (t, "(collective-time uncertainty from the calibration: %.1f%% (held-out points %.1f%%, single "
                          "timings' spread %.1f%%)", comm_cv * 100, fit_err * 100, spread * 100);
  if (compute_cv > 0)
    g_string_append_printf (t, "; compute variation from run to run, calibrated: up to %.1f%%", compute_cv * 100);
  g_string_append (t, ")\n");
  /* what the communication thread costs, as calibrated and predicted */
  int per_node = max_r / MAX (nodes, 1);
  double busy_wait = per_node > 1 ? dps_profile_busy_wait (profile, per_node) : 0;
  if (profile->data->handoff_s > 0)
    g_string_append_printf (t, "(handing a bucket to the idle communication thread: %.0f us", profile->data->handoff_s * 1e6);
  if (profile->data->handoff_s > 0 && busy_wait > 0)
    g_string_append_printf (t, "; its wait for a core while the replicas compute: %.2f ms, at most until backward ends",
                            busy_wait * 1e3);
  if (profile->data->handoff_s > 0)
    g_string_append (t, ")\n");
  int status = score.scored == n ? 0 : 1;
  g_autofree char *csv_path = g_strconcat (prefix, ".csv", NULL);
  if (score.scored > 0 && dps_cli_emit (csv_path, csv, &error)) {
    g_string_append_printf (t, "wrote %s", csv_path);
    const char *names[][2] = { { "validation.gp", "" }, { "breakdown.gp", "-breakdown" } };
    g_autofree char *title = g_strdup_printf ("%s, %s: predicted and measured", model->name,
                                              emulate ? (gpu ? "emulated compute, NCCL all-reduce" : "emulated compute, MPI all-reduce")
                                              : gpu ? "GPU data-parallel training" : "CPU data-parallel training");
    for (int k = 0; k < 2; k++)
      for (int f = 0; f < 2; f++) {
        g_autofree char *out = g_strdup_printf ("%s%s.%s", prefix, names[k][1], f ? "svg" : "png");
        GError *perr = NULL;
        if (dps_plot_render (names[k][0], csv_path, out, title, NULL, &perr))
          g_string_append_printf (t, ", %s", out);
        else {
          fprintf (stderr, "dpscale validate: warning: %s\n", perr->message);
          status |= perr->code == DPS_ERROR_IO;
          g_error_free (perr);
        }
      }
    g_autofree char *tl_path = g_strconcat (prefix, "-timeline.csv", NULL);
    g_autofree char *tl_png = g_strconcat (prefix, "-timeline.png", NULL);
    g_autofree char *tl_svg = g_strconcat (prefix, "-timeline.svg", NULL);
    g_autofree char *tl_title = g_strdup_printf ("one step at %d replicas: predicted above, measured below",
                                                 vp[n - 1].replicas);
    GError *perr = NULL;
    if (vp[n - 1].ok && dps_cli_emit (tl_path, timeline, &perr)
        && dps_plot_render ("timeline.gp", tl_path, tl_png, tl_title, NULL, &perr)
        && dps_plot_render ("timeline.gp", tl_path, tl_svg, tl_title, NULL, &perr))
      g_string_append_printf (t, ", %s, %s", tl_png, tl_svg);
    else if (perr) {
      fprintf (stderr, "dpscale validate: warning: no timeline: %s\n", perr->message);
      status |= perr->code == DPS_ERROR_IO;
      g_error_free (perr);
    }
    g_string_append (t, "\n");
  }
  dps_cli_emit (NULL, t, NULL);
  for (int i = 0; i < n; i++)
    g_free (pts[i].error);
  g_free (pts);
  g_free (vp);
  g_array_free (reps, TRUE);
  if (error)
    return dps_cli_fail ("validate", error);
  return status;
}
