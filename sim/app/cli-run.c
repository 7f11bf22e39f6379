/* cli-run.c — `dpscale run`: real data-parallel training on this machine,
 * one replica per MPI process (dpscale-train), with DDP or a sharded
 * strategy (--strategy: ZeRO-1, ZeRO-2, FSDP, HSDP), per-step times to
 * CSV, a summary, and a Chrome trace in the simulator's shape.  --emulate
 * replaces each layer's compute by a wait of its calibrated (or roofline)
 * duration while the real buckets are really all-reduced (the real units
 * gathered and reduce-scattered), so many replicas fit on few cores.
 * --check-params prints the parameters' norm after the last step, the
 * same (up to the order of fp32 sums) whatever the strategy. */
#include "sim/app/cli.h"
#include "sim/app/cli-ddp.h"
#include "real/run.h"
#include "real/tensor-parallel.h"
#include "real/train-net.h"
#include "sim/base/json-util.h"
#include "sim/base/error.h"
#include "sim/base/file.h"
#include "sim/strategy-kind.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

/* --time-layers: one replica's per-layer times on its device, as
 * `dpscale validate` calibrates them (the GPU replica's: CUDA events) */
static int
time_layers_only (DpsRunSpec *spec, const DpsModel *model, DpsFormat format)
{
  GError *error = NULL;
  DpsRunResult r;
  spec->ranks = 1;
  spec->time_layers = TRUE;
  if (!dps_run_execute (spec, model, &r, &error)) {
    dps_run_result_clear (&r);
    return dps_cli_fail ("run", error);
  }
  g_autoptr (GString) t = g_string_new (NULL);
  int L = r.n_layers;
  const double *fwd = r.layer_s, *bwd = fwd + L, sgd = fwd[2 * L], cv = fwd[2 * L + 1];
  double fsum = 0, bsum = 0;
  if (format == DPS_FORMAT_JSON) {
    g_autoptr (JsonBuilder) jb = json_builder_new ();
    json_builder_begin_object (jb);
    dps_json_str (jb, "model", model->name);
    dps_json_int (jb, "batch", spec->batch);
    dps_json_str (jb, "device", spec->gpu ? "gpu" : "cpu");
    for (int k = 0; k < 2; k++) {
      json_builder_set_member_name (jb, k ? "backward_s" : "forward_s");
      json_builder_begin_array (jb);
      for (int l = 0; l < L; l++)
        json_builder_add_double_value (jb, k ? bwd[l] : fwd[l]);
      json_builder_end_array (jb);
    }
    dps_json_num (jb, "sgd_s", sgd);
    dps_json_num (jb, "compute_cv", cv);
    json_builder_end_object (jb);
    dps_json_append (t, jb);
  } else if (format == DPS_FORMAT_CSV) {
    /* a per-layer file --model reads: each layer's tensors, the model's
     * activations in fp32 for the batch (the replica computes in fp32),
     * the logits its loss reads */
    g_string_append_printf (t, "# dpscale run --time-layers: %s\n# device: %s\n# dtype: fp32\n# batch: %d\n",
                            model->name, spec->gpu ? "gpu" : "cpu", spec->batch);
    g_string_append (t, "layer,name,params,tensors,activation_bytes,forward_s,backward_s,logits\n");
    for (int l = 0; l < L; l++) {
      const DpsLayer *ly = dps_model_layer (model, l);
      g_string_append_printf (t, "%d,%s,%" G_GINT64_FORMAT ",", l, ly->name, ly->n_params);
      for (int k = 0; k < ly->n_tensors; k++) {
        const DpsTensor *tn = dps_model_tensor (model, ly->first_tensor + k);
        if (tn->rows > 0)
          g_string_append_printf (t, "%s%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT, k ? ";" : "", tn->rows, tn->cols);
        else
          g_string_append_printf (t, "%s%" G_GINT64_FORMAT, k ? ";" : "", tn->numel);
      }
      g_string_append_printf (t, ",%.0f,%.9g,%.9g,%.0f\n", ly->act_bytes / 2 * 4 * spec->batch, fwd[l], bwd[l],
                              ly->logits);
    }
  } else {
    g_string_append_printf (t, "dpscale run --time-layers: %s at batch %d, as one replica computes it (%s)\n\n",
                            model->name, spec->batch,
                            spec->gpu ? "one GPU: cuBLAS fp32 and the runner's kernels, CUDA events"
                                      : "one core: OpenBLAS fp32");
    g_string_append_printf (t, "%6s  %-24s %12s %12s\n", "layer", "name", "forward_ms", "backward_ms");
    for (int l = 0; l < L; l++) {
      g_string_append_printf (t, "%6d  %-24s %12.4f %12.4f\n", l, dps_model_layer (model, l)->name,
                              fwd[l] * 1e3, bwd[l] * 1e3);
      fsum += fwd[l];
      bsum += bwd[l];
    }
    g_string_append_printf (t, "%6s  %-24s %12.4f %12.4f\n", "", "total", fsum * 1e3, bsum * 1e3);
    g_string_append_printf (t, "\n  SGD step %.4f ms; a step's compute varies by %.1f%% (sd/mean) from run to run "
                            "(medians of 11 or more repetitions)\n", sgd * 1e3, cv * 100);
  }
  dps_run_result_clear (&r);
  dps_cli_emit (NULL, t, NULL);
  return 0;
}

/* What the command line asks for. */
typedef struct {
  char    *model_s, *optimizer, *format_s, *output, *trace, *calibration, *topology, *backend, *strategy_s,
          *save_params;
  int      ranks, steps, warmup, batch, seed, nodes, accum, shard_group, tp, pp, micro;
  double   cap, first, lr, timeout, link_gbps;
  gboolean emulate, check, time_layers, gpu, check_params, yes;
  DpsFormat format;
  DpsStrategy strategy;
} Opts;

static void
opts_clear (Opts *o)
{
  char **strs[] = { &o->model_s, &o->optimizer, &o->format_s, &o->output, &o->trace, &o->calibration, &o->topology,
                    &o->backend, &o->strategy_s, &o->save_params };
  for (gsize i = 0; i < G_N_ELEMENTS (strs); i++)
    g_clear_pointer (strs[i], g_free);
}

static gboolean
check_opts (Opts *o, GError **error)
{
  o->gpu = o->backend && g_str_equal (o->backend, "gpu");
  /* not given: the defaults --help names */
  if (!dps_cli_int_given ("--steps", &o->steps, 20, error) || !dps_cli_int_given ("--warmup", &o->warmup, 3, error)
      || !dps_cli_int_given ("--batch", &o->batch, 32, error) || !dps_cli_int_given ("--seed", &o->seed, 1, error)
      || !dps_cli_int_given ("--grad-accum", &o->accum, 1, error) || !dps_cli_int_given ("--nodes", &o->nodes, 0, error)
      || !dps_cli_int_given ("--tp", &o->tp, 1, error) || !dps_cli_int_given ("--pp", &o->pp, 1, error)
      || !dps_cli_double_given ("--bucket-cap-mb", &o->cap, 25, error)
      || !dps_cli_double_given ("--first-bucket-mb", &o->first, 1, error)
      || !dps_cli_double_given ("--lr", &o->lr, 0, error) || !dps_cli_double_given ("--timeout", &o->timeout, 600, error)
      || !dps_cli_double_given ("--link-gbps", &o->link_gbps, 1, error))
    return FALSE;
  if (o->ranks == DPS_UNSET_INT && o->gpu) {   /* not given */
    /* one replica per GPU present (the run says why when there is none) */
    int n = dps_run_gpus (NULL);
    o->ranks = n > 0 ? n : 1;
  } else if (o->ranks == DPS_UNSET_INT)
    o->ranks = 2;
  if (o->backend && !g_str_equal (o->backend, "cpu") && !o->gpu)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--backend: '%s' is not cpu or gpu", o->backend);
  else if (!dps_cli_steps (o->steps, 1, o->warmup, error))
    return FALSE;
  else if (o->optimizer && !g_str_equal (o->optimizer, "sgd") && !g_str_equal (o->optimizer, "adam"))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--optimizer: '%s' is not sgd or adam", o->optimizer);
  else if ((o->calibration || o->topology) && !o->emulate)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--calibration/--topology: only with --emulate");
  else if (o->nodes == 1 || (o->nodes > 1 && o->ranks % o->nodes))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--nodes: %d emulated nodes for %d replicas: need 2 or more, dividing --gpus",
                 o->nodes, o->ranks);
  else if (o->check && o->emulate)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--check-gradient: needs real compute, not --emulate");
  else if (o->strategy_s && !dps_cli_strategy (o->strategy_s, &o->strategy, error))
    ;   /* the error says why */
  else if (o->shard_group != DPS_UNSET_INT && o->strategy != DPS_STRATEGY_HSDP)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--shard-group: only with --strategy hsdp");
  else if (o->shard_group != DPS_UNSET_INT && (o->shard_group < 1 || o->ranks % o->shard_group))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--shard-group: %d ranks a group does not divide %d replicas "
                 "(--gpus)", o->shard_group, o->ranks);
  else if (o->tp > 1 && o->ranks % o->tp)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--tp: %d ranks a group do not divide --gpus %d", o->tp, o->ranks);
  else if (o->pp > 1 && o->ranks % o->pp)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--pp: %d stages do not divide --gpus %d", o->pp, o->ranks);
  else if (o->tp > 1 && o->pp > 1)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--tp and --pp: one at a time in the runner (the simulator "
                 "predicts both together)");
  else if ((o->tp > 1 || o->pp > 1) && (o->emulate || (o->gpu && o->pp > 1) || o->check || o->time_layers))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: real compute only (not with --emulate, --check-gradient or "
                 "--time-layers%s)", o->tp > 1 ? "--tp" : "--pp", o->pp > 1 ? "; pipelines on CPUs, not --backend gpu"
                 : "");
  else if ((o->tp > 1 || o->pp > 1) && o->strategy != DPS_STRATEGY_DDP)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: the data parallelism over the groups is ddp, not %s",
                 o->tp > 1 ? "--tp" : "--pp", dps_strategy_name (o->strategy));
  else if (!dps_cli_micro_batches (o->pp, &o->micro, o->batch, o->accum, error))
    return FALSE;
  else if ((o->check_params || o->save_params) && o->emulate)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--check-params/--save-params: need real compute, not --emulate");
  else if (o->time_layers && (o->emulate || o->nodes > 0 || o->check || o->trace || o->output || o->check_params
                              || o->save_params || o->strategy_s))
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--time-layers: one replica's compute, not with --emulate, --nodes, "
                 "--check-gradient, --check-params, --strategy, --trace or --output");
  else if (o->save_params && !dps_output_kind (o->save_params, "--save-params", &(DpsOutputKind){ 0 }, error))
    return FALSE;
  else if (o->output && !dps_output_kind (o->output, "-o", &(DpsOutputKind){ 0 }, error))
    return FALSE;
  else if (o->trace && !dps_output_kind (o->trace, "--trace", &(DpsOutputKind){ 0 }, error))
    return FALSE;
  else
    return dps_cli_format (o->format_s, &o->format, error);
  return FALSE;
}

/* A run's medians over the steps after the warm-up. */
typedef struct {
  double med, p10, p90, comp, expo, optm, first_loss, last_loss, bw, samples_per_s;
  double xfwd, xbwd, xpost;   /* of the exposed communication: in forward, in backward, after the optimizer */
} Summary;

/* The sharded strategies' collectives as the summary lists them. */
static const struct {
  DpsStepColl kind;
  const char *row, *what;
} coll_rows[] = {
  { DPS_STEP_GATHER, "all-gather", "parameters before forward" },
  { DPS_STEP_GATHER_BACKWARD, "all-gather", "parameters before backward" },
  { DPS_STEP_REDUCE_SCATTER, "reduce-scatter", "gradients" },
  { DPS_STEP_ALLREDUCE_SHARD, "all-reduce", "gradient shards across shard groups" },
  { DPS_STEP_GATHER_UPDATED, "all-gather", "updated shards after the optimizer" },
};

static void
summarize (const Opts *o, const DpsRunResult *out, Summary *s)
{
  int w = o->warmup;
  s->med = dps_run_quantile (out, w, DPS_RUN_STEP, 0.5);
  s->p10 = dps_run_quantile (out, w, DPS_RUN_STEP, 0.1);
  s->p90 = dps_run_quantile (out, w, DPS_RUN_STEP, 0.9);
  s->comp = dps_run_quantile (out, w, DPS_RUN_COMPUTE, 0.5);
  s->expo = dps_run_quantile (out, w, DPS_RUN_EXPOSED, 0.5);
  s->optm = dps_run_quantile (out, w, DPS_RUN_OPTIMIZER, 0.5);
  s->first_loss = g_array_index (out->steps, DpsRunStep, 0).loss;
  s->last_loss = g_array_index (out->steps, DpsRunStep, out->steps->len - 1).loss;
  s->bw = dps_run_bucket_Bps (out, w);
  s->xfwd = dps_run_quantile (out, w, DPS_RUN_EXPOSED_FORWARD, 0.5);
  s->xbwd = dps_run_quantile (out, w, DPS_RUN_EXPOSED_BACKWARD, 0.5);
  s->xpost = dps_run_quantile (out, w, DPS_RUN_EXPOSED_AFTER_OPTIMIZER, 0.5);
  s->samples_per_s = s->med > 0 ? (double) o->batch * o->accum * (o->ranks / o->tp / o->pp) / s->med : 0;
}

static void
report_json (const Opts *o, const DpsModel *model, const DpsRunResult *out, const Summary *s, GString *text)
{
  g_autoptr (JsonBuilder) jb = json_builder_new ();
  json_builder_begin_object (jb);
  dps_json_str (jb, "model", model->name);
  dps_json_int (jb, "replicas", o->ranks / o->tp / o->pp);
  dps_json_int (jb, "ranks", o->ranks);
  dps_json_int (jb, "tp", o->tp);
  dps_json_int (jb, "pp", o->pp);
  if (o->pp > 1)
    dps_json_int (jb, "micro_batches", o->micro);
  dps_json_bool (jb, "emulated", o->emulate);
  dps_json_num (jb, "batch_per_replica", o->batch);
  dps_json_num (jb, "step_median_s", s->med);
  dps_json_num (jb, "step_p10_s", s->p10);
  dps_json_num (jb, "step_p90_s", s->p90);
  dps_json_num (jb, "compute_median_s", s->comp);
  dps_json_num (jb, "exposed_comm_median_s", s->expo);
  dps_json_num (jb, "optimizer_median_s", s->optm);
  dps_json_num (jb, "samples_per_s", s->samples_per_s);
  dps_json_num (jb, "loss_first", s->first_loss);
  dps_json_num (jb, "loss_last", s->last_loss);
  dps_json_num (jb, "gradcheck_max_rel", out->gradcheck);
  dps_json_num (jb, "bucket_allreduce_GBps", s->bw / 1e9);
  dps_json_num (jb, "exposed_forward_median_s", s->xfwd);
  dps_json_num (jb, "exposed_backward_median_s", s->xbwd);
  dps_json_num (jb, "exposed_after_optimizer_median_s", s->xpost);
  dps_json_str (jb, "strategy", dps_strategy_name (o->strategy));
  dps_json_int (jb, "shard_group", out->shards);
  dps_json_int (jb, "units", out->n_units);
  if (out->has_params) {
    dps_json_int (jb, "params_count", out->params_count);
    dps_json_num (jb, "params_l2", out->params_l2);
    dps_json_num (jb, "params_sum", out->params_sum);
    /* 64 bits: a JSON number would round it */
    g_autofree char *hash = g_strdup_printf ("%" G_GUINT64_FORMAT, out->params_hash);
    dps_json_str (jb, "params_hash", hash);
  }
  /* per kind of the sharded strategies' collectives: a step's (their
   * times from the last arrival summed, median over steps; bytes,
   * nccl-tests' size) and each unit's (median) */
  json_builder_set_member_name (jb, "collectives");
  json_builder_begin_object (jb);
  for (int k = 0; k < DPS_STEP_COLLS; k++) {
    double bytes, t = k == DPS_STEP_ALLREDUCE ? 0 : dps_run_coll_step (out, o->warmup, (DpsStepColl) k, &bytes);
    if (k == DPS_STEP_ALLREDUCE || bytes <= 0)
      continue;
    json_builder_set_member_name (jb, dps_step_coll_name ((DpsStepColl) k));
    json_builder_begin_object (jb);
    dps_json_num (jb, "step_median_s", t);
    dps_json_num (jb, "bytes_per_step", bytes);
    json_builder_set_member_name (jb, "unit_median_s");
    json_builder_begin_array (jb);
    for (int u = 0; u < out->n_units; u++)
      json_builder_add_double_value (jb, dps_run_coll_median (out, o->warmup, (DpsStepColl) k, u));
    json_builder_end_array (jb);
    json_builder_end_object (jb);
  }
  json_builder_end_object (jb);
  json_builder_set_member_name (jb, "buckets_bytes");
  json_builder_begin_array (jb);
  for (guint i = 0; i < out->bucket_sizes->len; i++)
    json_builder_add_double_value (jb, g_array_index (out->bucket_sizes, double, i));
  json_builder_end_array (jb);
  json_builder_set_member_name (jb, "buckets_allreduce_median_s");
  json_builder_begin_array (jb);
  for (guint i = 0; i < out->bucket_sizes->len; i++)
    json_builder_add_double_value (jb, dps_run_bucket_median (out, o->warmup, (int) i));
  json_builder_end_array (jb);
  json_builder_end_object (jb);
  dps_json_append (text, jb);
}

static void
report_table (const Opts *o, const DpsModel *model, const DpsRunResult *out, const Summary *s, double emu_compute,
              GString *text)
{
  int ranks = o->ranks / o->tp / o->pp;
  g_autofree char *tp = o->tp > 1 ? g_strdup_printf (" of %d tensor-parallel ranks each", o->tp)
                        : o->pp > 1 ? g_strdup_printf (" of %d pipeline stages each", o->pp) : g_strdup ("");
  g_string_append_printf (text, "dpscale run: %s, %d replica%s%s (%s), %s\n", model->name, ranks, ranks > 1 ? "s" : "",
                          tp, out->library ? out->library : "MPI",
                          o->emulate ? "emulated compute" : o->gpu ? "CUDA compute (cuBLAS, fp32), one GPU per replica"
                          : o->tp > 1 || o->pp > 1 ? "OpenBLAS compute, one thread per rank"
                          : "OpenBLAS compute, one thread per replica");
  if (o->pp > 1)
    g_string_append_printf (text, "  pipeline        %d stages (the outermost ranks), 1F1B over %d micro-batches of %d; "
                            "activations and gradients sent between stages, the tied embedding's gradient summed "
                            "between the first and last\n", o->pp, o->micro, o->batch / o->micro);
  if (o->tp > 1)
    g_string_append_printf (text, "  tensor parallel %d consecutive ranks a group: attention heads and MLP columns split "
                            "as Megatron splits them; two all-reduces a block forward and two backward, counted in "
                            "compute\n", o->tp);
  if (o->nodes > 1)
    g_string_append_printf (text, "  on %d emulated nodes of %d ranks, %.3g Gbit/s links (namespaces, tbf)\n",
                            o->nodes, o->ranks / o->nodes, o->link_gbps);
  g_string_append (text, "\n");
  g_autofree char *micro = o->accum > 1 ? g_strdup_printf (" x %d micro-steps", o->accum) : g_strdup ("");
  g_string_append_printf (text, "  steps           %d (%d warm-up left out), batch %d per replica%s\n", o->steps,
                          o->warmup, o->batch, micro);
  g_string_append_printf (text, "  step time       %.3f ms median (p10 %.3f, p90 %.3f), the slowest replica's\n",
                          s->med * 1e3, s->p10 * 1e3, s->p90 * 1e3);
  g_string_append_printf (text, "    compute       %.3f ms (forward + backward)\n", s->comp * 1e3);
  if (o->pp > 1)
    g_string_append_printf (text, "    exposed comm  %.3f ms (waiting for the neighbouring stages, the bubble, and the "
                            "reductions after the last backward)\n", s->expo * 1e3);
  else if (o->strategy == DPS_STRATEGY_DDP)
    g_string_append_printf (text, "    exposed comm  %.3f ms (waiting for all-reduces after backward)\n", s->expo * 1e3);
  else
    g_string_append_printf (text, "    exposed comm  %.3f ms (waiting for collectives: %.3f in forward, %.3f in backward, "
                            "%.3f after the optimizer, the rest after backward)\n", s->expo * 1e3, s->xfwd * 1e3,
                            s->xbwd * 1e3, s->xpost * 1e3);
  g_string_append_printf (text, "    optimizer     %.3f ms\n", s->optm * 1e3);
  g_string_append_printf (text, "  throughput      %.1f samples/s\n", s->samples_per_s);
  const char *pt = dps_strategy_pytorch_name (o->strategy);
  if (o->strategy != DPS_STRATEGY_DDP)
    g_string_append_printf (text, "  strategy        %s %s%s%s: %d units (the layers), each sharded over %d rank%s%s\n",
                            dps_strategy_name (o->strategy), pt[0] == '(' ? "" : "(", pt, pt[0] == '(' ? "" : ")",
                            out->n_units, out->shards, out->shards == 1 ? "" : "s",
                            o->strategy == DPS_STRATEGY_HSDP && out->shards < o->ranks
                            ? ", replicated across the groups" : "");
  if (o->pp > 1)
    ;   /* its waits are the exposed line's */
  else if (!dps_strategy_shards_grads (o->strategy) && o->ranks / o->tp == 1)
    g_string_append_printf (text, "  buckets         %u (one replica: nothing to all-reduce)\n", out->bucket_sizes->len);
  else if (!dps_strategy_shards_grads (o->strategy))
    g_string_append_printf (text, "  buckets         %u, all-reduced at %.2f GB/s (algbw inside the run, from the last replica's arrival)\n",
                            out->bucket_sizes->len, s->bw / 1e9);
  for (gsize i = 0; i < G_N_ELEMENTS (coll_rows); i++) {
    double bytes, t = dps_run_coll_step (out, o->warmup, coll_rows[i].kind, &bytes);
    if (bytes > 0)
      g_string_append_printf (text, "  %-15s %s: %.1f %s a step in %.3f ms (%.2f GB/s, from the last replica's arrival)\n",
                              coll_rows[i].row, coll_rows[i].what, bytes >= 1e6 ? bytes / 1e6 : bytes / 1e3,
                              bytes >= 1e6 ? "MB" : "kB", t * 1e3, t > 0 ? bytes / t / 1e9 : 0);
  }
  /* what the replicas' hashes compared: whole parameters, or each shard
   * with the other groups' copies of it (none when one group holds all) */
  gboolean sharded = dps_strategy_shards_params (o->strategy);
  if (!o->emulate)
    g_string_append_printf (text, "  loss            %.4g -> %.4g; %s\n", s->first_loss, s->last_loss,
                            !sharded ? "replicas identical after every step (hashes)"
                            : out->shards < o->ranks ? "replicas of each shard identical after every step (hashes)"
                            : "each rank holds its own shard (none to compare)");
  else
    g_string_append_printf (text, "  emulated waits  %.3f s asked, %.3f s taken (%+.2f%%); compute per step %.3f ms\n",
                            out->wait_req_s, out->wait_got_s,
                            out->wait_req_s > 0 ? (out->wait_got_s / out->wait_req_s - 1) * 100 : 0, emu_compute * 1e3);
  if (out->gradcheck >= 0)
    g_string_append_printf (text, "  gradient check  averaged shard gradients vs the whole batch: max relative difference %.2g\n",
                            out->gradcheck);
  if (out->has_params)
    g_string_append_printf (text, "  parameters      %" G_GINT64_FORMAT " after the last step: L2 norm %.10g, sum %.10g, "
                            "hash %" G_GUINT64_FORMAT "\n", out->params_count, out->params_l2, out->params_sum,
                            out->params_hash);
  if (o->output)
    g_string_append_printf (text, "  wrote           %s\n", o->output);
  if (o->save_params)
    g_string_append_printf (text, "  wrote           %s (the parameters, fp32)\n", o->save_params);
}

/* The run itself (emulated waits and nodes set up first), its CSV, the
 * report in the format asked for, the trace. */
static gboolean
run (const Opts *o, const DpsModel *model, DpsRunSpec *spec, GString *text, GError **error)
{
  g_autofree double *fwd = NULL, *bwd = NULL;
  double emu_compute = 0;
  if (o->emulate) {
    g_autoptr (DpsProfile) profile = o->calibration ? dps_profile_load (o->calibration, error) : NULL;
    if ((o->calibration && !profile)
        || !dps_ddp_setup_emulation ((DpsModel *) model, profile, o->topology, o->batch,
                                     g_str_equal (spec->optimizer, "adam"), &fwd, &bwd, &spec->emu_opt_s, error))
      return FALSE;
    spec->emu_fwd_s = fwd;
    spec->emu_bwd_s = bwd;
    for (int l = 0; l < dps_model_n_layers (model); l++)
      emu_compute += fwd[l] + bwd[l];
  }
  g_autoptr (DpsNetEmu) net = NULL;
  if (o->nodes > 1 && !(spec->net = net = dps_netemu_new (o->nodes, o->ranks / o->nodes, o->link_gbps, error)))
    return FALSE;
  DpsRunResult out;
  gboolean ok = dps_run_execute (spec, model, &out, error);
  if (ok) {
    g_autoptr (GString) csv = dps_run_csv (&out, o->batch * o->accum);
    Summary s;
    summarize (o, &out, &s);
    ok = !o->output || dps_cli_emit (o->output, csv, error);
    if (ok && o->format == DPS_FORMAT_CSV)
      g_string_append (text, csv->str);
    else if (ok && o->format == DPS_FORMAT_JSON)
      report_json (o, model, &out, &s, text);
    else if (ok)
      report_table (o, model, &out, &s, emu_compute, text);
    ok = ok && (!o->trace || dps_run_write_trace (&out, o->steps - 1, o->trace, error));
  }
  dps_run_result_clear (&out);
  return ok;
}

/* Emulated nodes' links slow enough that the gradients' all-reduces alone
 * (a ring's twice the fp32 gradients through each node's link, every
 * step) would take past a minute: refused with the estimate, unless
 * --yes. */
static gboolean
links_fast_enough (const Opts *o, const DpsModel *model, GError **error)
{
  if (o->nodes < 2 || o->yes)
    return TRUE;
  double bytes = 4.0 * (double) model->n_params;
  double s = o->steps * 2 * bytes * 8 / (o->link_gbps * 1e9);   /* DDP: one all-reduce a step, however many micro-steps */
  if (s <= 60)
    return TRUE;
  g_set_error (error, DPS_ERROR, DPS_ERROR_LIMIT, "--link-gbps: %d steps of %s's %.3g MB all-reduce over %.3g Gbit/s "
               "links would take about %.0f s: faster links, fewer --steps, or --yes", o->steps, model->name,
               bytes / 1e6, o->link_gbps, s);
  return FALSE;
}

int
dps_cmd_run (int argc, char **argv)
{
  Opts o = { .ranks = DPS_UNSET_INT, .shard_group = DPS_UNSET_INT, .tp = DPS_UNSET_INT, .pp = DPS_UNSET_INT,
             .micro = DPS_UNSET_INT, .steps = DPS_UNSET_INT, .warmup = DPS_UNSET_INT,
             .batch = DPS_UNSET_INT, .seed = DPS_UNSET_INT, .accum = DPS_UNSET_INT, .nodes = DPS_UNSET_INT,
             .cap = dps_cli_unset (), .first = dps_cli_unset (), .lr = dps_cli_unset (), .timeout = dps_cli_unset (),
             .link_gbps = dps_cli_unset () };
  GOptionEntry entries[] = {
    { "gpus", 'g', 0, G_OPTION_ARG_INT, &o.ranks, "Replicas, one MPI process each (default 2; on GPUs one per GPU; was --ranks/-n)", "N" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &o.backend, "cpu (default; MPI + OpenBLAS) or gpu (CUDA + cuBLAS + NCCL, one GPU per replica)", "B" },
    { "model", 'M', 0, G_OPTION_ARG_STRING, &o.model_s, "Model: mlp (default) or a GPT-2 stack such as transformer-small; --emulate takes any zoo or CSV model", "NAME" },
    { "batch", 'b', 0, G_OPTION_ARG_INT, &o.batch, "Samples per replica per step (default 32)", "B" },
    { "steps", 's', 0, G_OPTION_ARG_INT, &o.steps, "Steps (default 20)", "S" },
    { "warmup", 'w', 0, G_OPTION_ARG_INT, &o.warmup, "Steps left out of the summary (default 3)", "W" },
    { "grad-accum", 'k', 0, G_OPTION_ARG_INT, &o.accum, "Micro-steps per step, all but the last under no_sync (default 1)", "K" },
    { "bucket-cap-mb", 0, 0, G_OPTION_ARG_DOUBLE, &o.cap, "DDP bucket cap in MiB (default 25)", "MB" },
    { "first-bucket-mb", 0, 0, G_OPTION_ARG_DOUBLE, &o.first, "First bucket cap in MiB (default 1)", "MB" },
    { "optimizer", 0, 0, G_OPTION_ARG_STRING, &o.optimizer, "adam (default, as in every subcommand) or sgd", "OPT" },
    { "lr", 0, 0, G_OPTION_ARG_DOUBLE, &o.lr, "Learning rate (default 0.02 SGD, 0.001 Adam)", "LR" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &o.seed, "Seed of weights and data (default 1)", "S" },
    { "emulate", 'e', 0, G_OPTION_ARG_NONE, &o.emulate, "Replace compute by waits of calibrated length; real all-reduces", NULL },
    { "calibration", 'C', 0, G_OPTION_ARG_FILENAME, &o.calibration, "Emulation: layer times from this profile", "FILE" },
    { "topology", 't', 0, G_OPTION_ARG_STRING, &o.topology, "Emulation without a profile: the device whose roofline times to wait (default dgx-h100)", "NAME" },
    { "strategy", 0, 0, G_OPTION_ARG_STRING, &o.strategy_s, "ddp (default), zero1, zero2, fsdp or hsdp (or PyTorch's NO_SHARD, SHARD_GRAD_OP, FULL_SHARD, HYBRID_SHARD); each layer a wrapped unit", "S" },
    { "shard-group", 0, 0, G_OPTION_ARG_INT, &o.shard_group, "hsdp: ranks a shard group, dividing --gpus (default: one emulated node's, else all)", "G" },
    { "pp", 0, 0, G_OPTION_ARG_INT, &o.pp, "Pipeline stages (a GPT-2 stack on CPUs, Megatron's 1F1B; default 1): --gpus / P replicas", "P" },
    { "micro-batches", 0, 0, G_OPTION_ARG_INT, &o.micro, "With --pp: micro-batches a step, dividing --batch (default 2 x --pp)", "M" },
    { "tp", 0, 0, G_OPTION_ARG_INT, &o.tp, "Tensor parallel ranks a group (a GPT-2 stack on CPUs, Megatron's split of attention and MLP; default 1): --gpus / T replicas", "T" },
    { "check-gradient", 0, 0, G_OPTION_ARG_NONE, &o.check, "First check that N shards' averaged gradient equals the whole batch's", NULL },
    { "check-params", 0, 0, G_OPTION_ARG_NONE, &o.check_params, "After the last step, the whole parameters' norm, sum and hash (equal across strategies up to the order of fp32 sums)", NULL },
    { "save-params", 0, 0, G_OPTION_ARG_FILENAME, &o.save_params, "And write them to FILE (fp32, the model's order)", "FILE" },
    { "time-layers", 0, 0, G_OPTION_ARG_NONE, &o.time_layers, "Only time the model's layers as one replica computes them (a core, or a GPU with --backend gpu), no training", NULL },
    { "nodes", 0, 0, G_OPTION_ARG_INT, &o.nodes, "Spread the replicas over this many emulated nodes (root: namespaces, tc)", "K" },
    { "link-gbps", 0, 0, G_OPTION_ARG_DOUBLE, &o.link_gbps, "Emulated nodes: each node's link, Gbit/s each way (default 1)", "GBPS" },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o.timeout, "Stop a run that takes longer, seconds (default 600)", "S" },
    { "yes", 0, 0, G_OPTION_ARG_NONE, &o.yes, "Run what the emulated links would take past a minute over (else refused, with the estimate)", NULL },
    { "format", 0, 0, G_OPTION_ARG_STRING, &o.format_s, "table (default), csv or json", "FMT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "Write the per-step CSV to FILE", "FILE" },
    { "trace", 0, 0, G_OPTION_ARG_FILENAME, &o.trace, "Write the last step as a Chrome trace (the simulator's shape)", "FILE" },
    G_OPTION_ENTRY_NULL
  };
  static const DpsCliAlias aliases[] = { { "--ranks", "--gpus" }, { "-n", "--gpus" }, { NULL, NULL } };
  GError *error = NULL;
  dps_cli_deprecated ("run", aliases, argc, argv);
  gboolean parsed = dps_cli_parse ("run", "With no options: the MLP on 2 CPU replicas for 20 steps, Adam.\n\n"
                                   "Examples:\n  dpscale run --gpus 4 --steps 50 -o steps.csv\n"
                                   "  dpscale run --emulate --gpus 16 --model gpt2 --calibration mybox.calib",
                                   entries, &argc, &argv, &error);
  if (parsed && argc > 1)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option: unexpected argument '%s'", argv[1]);
  g_autoptr (DpsModel) model = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  int status = -1;
  if (!error && check_opts (&o, &error) && (model = dps_model_load (o.model_s ? o.model_s : "mlp", &error))
      && dps_cli_layout_splits (model, o.tp, o.pp, &error) && links_fast_enough (&o, model, &error)) {
    DpsRunSpec spec = { .ranks = o.ranks, .steps = o.steps, .batch = o.batch, .seed = o.seed, .grad_accum = o.accum,
                        .bucket_cap_mb = o.cap, .first_bucket_mb = o.first, .lr = o.lr,
                        .optimizer = o.optimizer ? o.optimizer : DPS_CLI_OPTIMIZER, .check_gradient = o.check,
                        .emulate = o.emulate, .timeout_s = o.timeout, .gpu = o.gpu, .strategy = o.strategy,
                        .check_params = o.check_params || o.save_params, .save_params = o.save_params };
    if (o.strategy == DPS_STRATEGY_HSDP)
      spec.shard_group = dps_run_shard_group (o.shard_group != DPS_UNSET_INT ? o.shard_group : 0, o.ranks, o.nodes);
    spec.tp = o.tp;
    spec.pp = o.pp;
    spec.micro = o.pp > 1 ? o.micro : 1;
    if (o.time_layers)
      status = time_layers_only (&spec, model, o.format);
    else if (run (&o, model, &spec, text, &error))
      dps_cli_emit (NULL, text, NULL);
  }
  opts_clear (&o);
  if (status >= 0)
    return status;
  return error ? dps_cli_fail ("run", error) : 0;
}
