/* validate-run.c — see validate-run.h. */
#include "sim/app/validate-run.h"
#include "sim/app/cli-ddp.h"
#include "calibrate/calibrate-run.h"
#include "real/run.h"
#include "real/netemu.h"
#include "real/torch-run.h"
#include "sim/base/stats.h"
#include "sim/buckets.h"
#include "sim/base/error.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

static void G_GNUC_PRINTF (2, 3)
progress (const DpsValidateSpec *s, const char *fmt, ...)
{
  if (!s->progress)
    return;
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *m = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  s->progress (m, s->pdata);
}

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

/* The predicted step's spans in the timeline's lanes: each rank drawn a
 * replica lane (its compute), the collectives once (rank 0's), the copies
 * back and the optimizer on the optimizer lane. */
static void
timeline_predicted (GString *t, const DpsDdpResult *r)
{
  const GArray *spans = r->trace_run.spans;
  for (guint i = 0; spans && i < spans->len; i++) {
    const DpsSchedSpan *sp = &g_array_index (spans, DpsSchedSpan, i);
    DpsPart part = dps_sched_task_part (r->sched, sp->task);
    double dur = sp->end_s - sp->start_s;
    if (part == DPS_PART_COMM) {
      if (sp->rank == 0)
        timeline_row (t, 1, -1, sp->start_s, dur, 1);
    } else if (part == DPS_PART_OPTIMIZER || part == DPS_PART_COPY_OUT) {
      if (sp->rank == 0)
        timeline_row (t, 1, -2, sp->start_s, dur, 2);
    } else
      timeline_row (t, 1, sp->rank, sp->start_s, dur, 0);
  }
}

/* RMS relative error of the fit on its held-out points of min_bytes or
 * more (all of them when fewer than 3 are that large): the uncertainty of
 * predicted collective times. */
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
      double t = dps_fit_predict_op (&p->fit, p->data, pt->op, pt->ranks, pt->nodes, pt->bytes);
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

DpsProfile *
dps_validate_calibrate (const DpsValidateSpec *s, const DpsModel *model, GError **error)
{
  g_autoptr (GArray) r = g_array_new (FALSE, FALSE, sizeof (int));
  for (int i = 0; i < s->n_replicas; i++)
    if (s->replicas[i] >= 2)
      g_array_append_val (r, s->replicas[i]);
  if (r->len == 0 && !s->gpu) {   /* the fit needs a collective; one GPU has none */
    int two = 2;
    g_array_append_val (r, two);
  }
  g_autoptr (DpsBuckets) bk = dps_buckets_assign (model, s->cap_mb * 1048576, s->first_mb * 1048576, 4);
  double biggest = 1024;
  for (int b = 0; b < dps_buckets_count (bk); b++)
    biggest = MAX (biggest, dps_buckets_get (bk, b)->bytes);
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (double));
  for (double sz = 1024; sz < biggest * 2; sz *= 2)
    g_array_append_val (sizes, sz);
  /* a sharded strategy's collectives are all-gathers and reduce-scatters
   * too: measured, as the library runs them (Open MPI's reduce-scatter is
   * no ring: calibrate/README.md) */
  gboolean sharded = s->strategy != DPS_STRATEGY_DDP;
  progress (s, sharded ? "1/3 calibrating all-reduce, all-gather, reduce-scatter and compute (no step times)"
                       : "1/3 calibrating all-reduce and compute (no step times)");
  /* a PyTorch job's model is its per-layer file's, measured by torch:
   * the runner's MLP measures how much co-located ranks slow each other
   * (dps_profile_colocation) */
  g_autoptr (DpsModel) runner = s->torch_script ? dps_model_load ("mlp", error) : NULL;
  if (s->torch_script && !runner)
    return NULL;
  DpsCalibrateSpec cs = { .ranks = (int *) r->data, .n_ranks = (int) r->len, .sizes = (double *) sizes->data,
                          .n_sizes = (int) sizes->len, .quick = s->quick, .model = runner ? runner : model,
                          .batch = s->batch,
                          .timeout_s = s->timeout_s, .nodes = s->nodes, .link_gbps = s->link_gbps, .gap_s = -1,
                          .gap_emulated = s->emulate, .progress = s->progress, .pdata = s->pdata,
                          .ops = sharded ? DPS_CAL_OPS : 1u << DPS_OP_ALLREDUCE, .gloo = s->torch_script != NULL };
  g_autoptr (DpsProfile) p = s->gpu ? dps_calibrate_gpu_runner (&cs, error) : dps_calibrate_cpu (&cs, error);
  g_autofree char *path = g_strconcat (s->prefix, ".calib", NULL);
  if (!p || !dps_profile_save (p, path, error))
    return NULL;
  return g_steal_pointer (&p);
}

/* One real (or emulated) run of N replicas: the row's measured figures;
 * the last count's step also as a trace and on the timeline. */
static gboolean
measure (const DpsValidateSpec *s, const DpsModel *model, int N, int pb, const DpsRunSpec *base, gboolean last,
         DpsValidateRow *row, GString *timeline, GError **error)
{
  if (s->torch_script) {
    /* the user's PyTorch job: step times alone (its parts are not reported) */
    g_autoptr (GArray) st = g_array_new (FALSE, FALSE, sizeof (double));
    if (!dps_torch_run (s->torch_script, N, s->steps, pb, s->timeout_s, st, error))
      return FALSE;
    int w = MIN (s->warmup, (int) st->len - 1);
    double *v = (double *) st->data + w;
    int n = (int) st->len - w;
    dps_sort_doubles (v, n);
    row->v.meas_median_s = dps_quantile_sorted (v, n, 0.5);
    row->v.meas_p10_s = dps_quantile_sorted (v, n, 0.1);
    row->v.meas_p90_s = dps_quantile_sorted (v, n, 0.9);
    row->meas_compute_s = row->meas_exposed_s = row->meas_opt_s = NAN;
    return TRUE;
  }
  DpsRunSpec spec = *base;
  spec.ranks = N;
  spec.batch = pb;
  spec.tp = s->tp;
  spec.pp = s->pp;
  spec.micro = s->micro;
  if (s->strategy == DPS_STRATEGY_HSDP)
    spec.shard_group = dps_run_shard_group (s->shard_group, N, s->nodes);
  DpsRunResult run;
  gboolean ok = dps_run_execute (&spec, model, &run, error);
  if (ok) {
    int w = s->warmup;
    row->v.meas_median_s = dps_run_quantile (&run, w, DPS_RUN_STEP, 0.5);
    row->v.meas_p10_s = dps_run_quantile (&run, w, DPS_RUN_STEP, 0.1);
    row->v.meas_p90_s = dps_run_quantile (&run, w, DPS_RUN_STEP, 0.9);
    row->meas_compute_s = dps_run_quantile (&run, w, DPS_RUN_COMPUTE, 0.5);
    row->meas_exposed_s = dps_run_quantile (&run, w, DPS_RUN_EXPOSED, 0.5);
    row->meas_opt_s = dps_run_quantile (&run, w, DPS_RUN_OPTIMIZER, 0.5);
    if (last) {
      g_autofree char *tp = g_strconcat (s->prefix, "-measured-trace.json", NULL);
      dps_run_write_trace (&run, s->steps - 1, tp, NULL);
      timeline_measured (timeline, &run, s->steps - 1);
    }
  }
  dps_run_result_clear (&run);
  return ok;
}

/* The prediction of N replicas from the profile alone, as the runs train:
 * fp32, SGD, the flow-level network; emulated replicas' layers take
 * exactly their waits. */
static gboolean
predict (const DpsValidateSpec *s, DpsModel *model, const DpsProfile *profile, int N, int pb, gboolean last,
         const double *efwd, const double *ebwd, double eopt, DpsValidateResult *out, DpsValidateRow *row,
         GError **error)
{
  DpsDdpConfig c;
  dps_ddp_config_default (&c);
  c.mode = DPS_CLI_NET_MODE;
  c.compute.dtype = DPS_DTYPE_FP32;
  c.precision = DPS_PRECISION_AMP;
  c.optimizer = DPS_OPT_SGD;
  c.batch = pb;
  c.grad_accum = s->grad_accum;
  c.bucket_cap_bytes = s->cap_mb * 1048576;
  c.first_bucket_bytes = s->first_mb * 1048576;
  c.trials = s->trials;
  c.jitter_cv = s->jitter;
  c.comm_cv = out->comm_cv;
  /* the runs at hand, not a cluster's GPUs: emulated replicas take exactly
   * their waits, and what the ranks here vary by is measured (compute_cv) */
  c.gpu_spread_cv = 0;
  c.trace_replicas = last ? 8 : 0;
  /* the runner's data parallelism: each layer a wrapped unit, HSDP's
   * shard group as it ran */
  c.strategy = s->strategy;
  c.fsdp_unit = DPS_FSDP_UNIT_LAYER;
  c.tp = MAX (s->tp, 1);   /* groups of consecutive ranks, as the runner splits them */
  c.pp = MAX (s->pp, 1);   /* stages outermost, 1F1B over the micro-batches of a replica's batch */
  if (s->pp > 1) {
    c.micro_batches = s->micro;
    c.batch = (double) pb / s->micro;
    c.pipe_schedule = DPS_PIPE_1F1B;
  }
  if (s->strategy == DPS_STRATEGY_HSDP)
    c.shard_group = dps_run_shard_group (s->shard_group, N, s->nodes);
  c.reducer_copies = s->torch_script != NULL;   /* PyTorch's DDP copies into its buckets and back */
  if (s->torch_script) {
    /* the job's own layer times (torch-layers.py's, one process alone),
     * each as much longer as N ranks computing at once make it here */
    int L = dps_model_n_layers (model);
    g_autofree double *f = g_new (double, L), *b = g_new (double, L);
    double k = dps_profile_colocation (profile, N);
    for (int l = 0; l < L; l++) {
      f[l] = efwd[l] * k;
      b[l] = ebwd[l] * k;
    }
    dps_model_set_times (model, f, b, model->time_batch);
    if (model->optimizer_s > 0)
      c.optimizer_s = model->optimizer_s * k;   /* its SGD step, as torch-layers.py measured it */
  }
  g_autoptr (DpsTopo) topo = NULL;
  if (!dps_ddp_setup (NULL, profile, model, s->nodes > 1 ? s->nodes : 0, N, &c, &topo, error))
    return FALSE;
  if (s->emulate) {
    /* emulated replicas sleep instead of computing: their layers take
     * exactly the waits they were given (not the profile's times for
     * co-located ranks), nothing contends with the all-reduces, and the
     * optimizer is its wait too */
    dps_model_set_times (model, efwd, ebwd, s->batch);
    c.contention = 0;
    c.contention_comm = 0;
    c.optimizer_s = eopt;
  } else {
    /* the runner's own SGD step, as calibrated with as many ranks
     * computing at once on a node (not the generic bytes-moved model),
     * and how much a step's compute varies from run to run there */
    const DpsLayerTimes *lt = dps_profile_layers_for (profile, model, N / MAX (s->nodes, 1));
    if (lt && lt->sgd_s > 0)
      c.optimizer_s = lt->sgd_s;
    c.compute_cv = lt ? lt->compute_cv : 0;
    out->compute_cv = MAX (out->compute_cv, c.compute_cv);
  }
  DpsDdpResult r;
  if (!dps_ddp_simulate (&c, &r, error))
    return FALSE;
  row->v.pred_mean_s = r.step_mean_s;
  row->v.pred_p5_s = r.step_p5_s;
  row->v.pred_p95_s = r.step_p95_s;
  row->pred_compute_s = r.compute_s;
  row->pred_exposed_s = r.exposed_comm_s;
  row->pred_opt_s = r.optimizer_s;
  row->pred_straggler_s = r.straggler_s;
  row->v.ok = TRUE;
  if (r.sched) {
    g_autofree char *tp = g_strconcat (s->prefix, "-predicted-trace.json", NULL);
    dps_ddp_write_trace (&r, tp, NULL);
    timeline_predicted (out->timeline, &r);
  }
  dps_ddp_result_clear (&r);
  return TRUE;
}

gboolean
dps_validate_run (const DpsValidateSpec *s, DpsModel *model, const DpsProfile *profile, DpsValidateResult *out,
                  GError **error)
{
  memset (out, 0, sizeof *out);
  /* the compute both sides use: measured per-layer times (real runs), or
   * the times the emulator waits, given to the model so that the simulator
   * predicts the same compute */
  g_autofree double *efwd = NULL, *ebwd = NULL;
  double eopt = 0;
  if (s->torch_script) {
    /* a PyTorch job: its file's measured times, kept to scale per count */
    int L = dps_model_n_layers (model);
    efwd = g_new (double, L);
    ebwd = g_new (double, L);
    for (int l = 0; l < L; l++) {
      efwd[l] = dps_model_layer (model, l)->fwd_time_s;
      ebwd[l] = dps_model_layer (model, l)->bwd_time_s;
    }
  } else if (!dps_ddp_setup_emulation (model, profile, s->topology, s->batch, FALSE, &efwd, &ebwd, &eopt, error))
    return FALSE;
  if (s->emulate)
    dps_model_set_times (model, efwd, ebwd, s->batch);
  /* the uncertainty of the collectives this job runs: the calibration's
   * held-out error at sizes from half its smallest bucket up (all held-out
   * sizes when fewer than 3 are that large), and how much single
   * all-reduces of those sizes varied while calibrating (independent, so
   * in quadrature) */
  g_autoptr (DpsBuckets) bk = dps_buckets_assign (model, s->cap_mb * 1048576, s->first_mb * 1048576, 4);
  double smallest = G_MAXDOUBLE;
  for (int b = 0; b < dps_buckets_count (bk); b++)
    smallest = MIN (smallest, dps_buckets_get (bk, b)->bytes);
  out->fit_err = held_out_rms (profile, smallest / 2);
  out->spread = timing_spread (profile, smallest / 2);
  out->comm_cv = sqrt (out->fit_err * out->fit_err + out->spread * out->spread);
  int max_r = 0;
  for (int i = 0; i < s->n_replicas; i++)
    max_r = MAX (max_r, s->replicas[i]);
  int per_node = max_r / MAX (s->nodes, 1);
  out->busy_wait_s = per_node > 1 ? dps_profile_busy_wait (profile, per_node) : 0;
  g_autoptr (DpsNetEmu) net = NULL;
  if (s->nodes > 1 && !(net = dps_netemu_new (s->nodes, per_node, s->link_gbps, error)))
    return FALSE;
  out->n = s->n_replicas;
  out->rows = g_new0 (DpsValidateRow, out->n);
  out->timeline = g_string_new ("source,lane,start_ms,end_ms,kind\n");
  DpsRunSpec base = { .steps = s->steps, .seed = 1, .grad_accum = s->grad_accum, .bucket_cap_mb = s->cap_mb,
                      .first_bucket_mb = s->first_mb, .optimizer = "sgd", .emulate = s->emulate, .emu_fwd_s = efwd,
                      .emu_bwd_s = ebwd, .emu_opt_s = eopt, .timeout_s = s->timeout_s, .quiet = TRUE, .net = net,
                      .gpu = s->gpu, .strategy = s->strategy };
  for (int i = 0; i < out->n; i++) {
    int N = s->replicas[i];
    DpsValidateRow *row = &out->rows[i];
    row->v.replicas = N;
    progress (s, "2/3 %d replica%s: running %d steps%s", N, N > 1 ? "s" : "", s->steps,
              s->emulate ? " (emulated compute)" : "");
    /* strong scaling: the global batch split across the replicas and micro-steps */
    int pb = s->global_batch > 0 ? s->global_batch / (N / MAX (s->tp, 1) * s->grad_accum) : s->batch;   /* even: checked */
    gboolean last = i == out->n - 1;
    GError *perr = NULL;
    if (measure (s, model, N, pb, &base, last, row, out->timeline, &perr))
      predict (s, model, profile, N, pb, last, efwd, ebwd, eopt, out, row, &perr);   /* 3. from the profile alone */
    if (perr) {
      dps_cli_name_flag (perr);   /* a quantity the core refused, by its flag */
      row->v.ok = FALSE;
      row->error = g_strdup (perr->message);
      progress (s, "%d replicas failed: %s", N, perr->message);
      g_error_free (perr);
    } else
      progress (s, "    measured %.3f ms, predicted %.3f ms", row->v.meas_median_s * 1e3, row->v.pred_mean_s * 1e3);
  }
  /* the machine's noise: the largest count (the most co-located ranks, the
   * most to share) measured again in a later window (the same step,
   * nothing changed but the time) */
  int last = out->n - 1;
  if (out->n > 1 && out->rows[last].v.meas_median_s > 0) {
    DpsValidateRow again = { 0 };
    GError *nerr = NULL;
    int N = s->replicas[last];
    int pb = s->global_batch > 0 ? s->global_batch / (N / MAX (s->tp, 1) * s->grad_accum) : s->batch;
    progress (s, "3/3 %d replica%s again: the machine's own noise", N, N > 1 ? "s" : "");
    if (measure (s, model, N, pb, &base, FALSE, &again, out->timeline, &nerr) && again.v.meas_median_s > 0) {
      out->noise_first_s = out->rows[last].v.meas_median_s;
      out->noise_again_s = again.v.meas_median_s;
      out->noise_pct = 100 * fabs (out->noise_again_s - out->noise_first_s) / out->noise_first_s;
    }
    g_clear_error (&nerr);
  }
  DpsValidationPoint *vp = g_new (DpsValidationPoint, out->n);
  for (int i = 0; i < out->n; i++)
    vp[i] = out->rows[i].v;
  dps_validation_score (vp, out->n, &out->score);
  for (int i = 0; i < out->n; i++)   /* the efficiencies and errors the score worked out */
    out->rows[i].v = vp[i];
  g_free (vp);
  return TRUE;
}

void
dps_validate_result_clear (DpsValidateResult *r)
{
  for (int i = 0; r->rows && i < r->n; i++)
    g_free (r->rows[i].error);
  g_free (r->rows);
  if (r->timeline)
    g_string_free (r->timeline, TRUE);
  memset (r, 0, sizeof *r);
}
