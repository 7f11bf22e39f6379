/* cli-run.c — `dpscale run`: real data-parallel training on this machine,
 * one replica per MPI process (dpscale-train), per-step times to CSV, a
 * summary, and a Chrome trace in the simulator's shape.  --emulate replaces
 * each layer's compute by a wait of its calibrated (or roofline) duration
 * while the real buckets are really all-reduced, so many replicas fit on
 * few cores. */
#include "sim/app/cli.h"
#include "sim/app/cli-ddp.h"
#include "real/run.h"
#include "sim/base/json-util.h"
#include "sim/base/error.h"
#include "sim/base/file.h"

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
    json_builder_set_member_name (jb, "model");
    json_builder_add_string_value (jb, model->name);
    json_builder_set_member_name (jb, "batch");
    json_builder_add_int_value (jb, spec->batch);
    json_builder_set_member_name (jb, "device");
    json_builder_add_string_value (jb, spec->gpu ? "gpu" : "cpu");
    for (int k = 0; k < 2; k++) {
      json_builder_set_member_name (jb, k ? "backward_s" : "forward_s");
      json_builder_begin_array (jb);
      for (int l = 0; l < L; l++)
        json_builder_add_double_value (jb, k ? bwd[l] : fwd[l]);
      json_builder_end_array (jb);
    }
    json_builder_set_member_name (jb, "sgd_s");
    json_builder_add_double_value (jb, sgd);
    json_builder_set_member_name (jb, "compute_cv");
    json_builder_add_double_value (jb, cv);
    json_builder_end_object (jb);
    g_autofree char *j = dps_json_builder_to_text (jb, TRUE);
    g_string_append_printf (t, "%s\n", j);
  } else if (format == DPS_FORMAT_CSV) {
    /* a per-layer file --model reads: each layer's tensors, the model's
     * activations in fp32 for the batch (the replica computes in fp32) */
    g_string_append_printf (t, "# dpscale run --time-layers: %s\n# device: %s\n# dtype: fp32\n# batch: %d\n",
                            model->name, spec->gpu ? "gpu" : "cpu", spec->batch);
    g_string_append (t, "layer,name,params,tensors,activation_bytes,forward_s,backward_s\n");
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
      g_string_append_printf (t, ",%.0f,%.9g,%.9g\n", ly->act_bytes / 2 * 4 * spec->batch, fwd[l], bwd[l]);
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

int
dps_cmd_run (int argc, char **argv)
{
  g_autofree char *model_s = NULL, *optimizer = NULL, *format_s = NULL, *output = NULL, *trace = NULL;
  g_autofree char *calibration = NULL, *topology = NULL, *backend = NULL;
  int ranks = DPS_UNSET_INT, steps = 20, warmup = 3, batch = 32, seed = 1, nodes = 0, accum = 1;
  double cap = 25, first = 1, lr = dps_cli_unset (), timeout = 600, link_gbps = 1;
  gboolean emulate = FALSE, check = FALSE, time_layers = FALSE;
  GOptionEntry entries[] = {
    { "gpus", 'g', 0, G_OPTION_ARG_INT, &ranks, "Replicas, one MPI process each (default 2; on GPUs one per GPU; was --ranks/-n)", "N" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend, "cpu (default; MPI + OpenBLAS) or gpu (CUDA + cuBLAS + NCCL, one GPU per replica)", "B" },
    { "model", 'M', 0, G_OPTION_ARG_STRING, &model_s, "Model: mlp (default) or a GPT-2 stack such as transformer-small; --emulate takes any zoo or CSV model", "NAME" },
    { "batch", 'b', 0, G_OPTION_ARG_INT, &batch, "Samples per replica per step (default 32)", "B" },
    { "steps", 's', 0, G_OPTION_ARG_INT, &steps, "Steps (default 20)", "S" },
    { "warmup", 'w', 0, G_OPTION_ARG_INT, &warmup, "Steps left out of the summary (default 3)", "W" },
    { "grad-accum", 'k', 0, G_OPTION_ARG_INT, &accum, "Micro-steps per step, all but the last under no_sync (default 1)", "K" },
    { "bucket-cap-mb", 0, 0, G_OPTION_ARG_DOUBLE, &cap, "DDP bucket cap in MiB (default 25)", "MB" },
    { "first-bucket-mb", 0, 0, G_OPTION_ARG_DOUBLE, &first, "First bucket cap in MiB (default 1)", "MB" },
    { "optimizer", 0, 0, G_OPTION_ARG_STRING, &optimizer, "adam (default, as in every subcommand) or sgd", "OPT" },
    { "lr", 0, 0, G_OPTION_ARG_DOUBLE, &lr, "Learning rate (default 0.02 SGD, 0.001 Adam)", "LR" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &seed, "Seed of weights and data (default 1)", "S" },
    { "emulate", 'e', 0, G_OPTION_ARG_NONE, &emulate, "Replace compute by waits of calibrated length; real all-reduces", NULL },
    { "calibration", 'C', 0, G_OPTION_ARG_FILENAME, &calibration, "Emulation: layer times from this profile", "FILE" },
    { "topology", 't', 0, G_OPTION_ARG_STRING, &topology, "Emulation without a profile: the device whose roofline times to wait (default dgx-h100)", "NAME" },
    { "check-gradient", 0, 0, G_OPTION_ARG_NONE, &check, "First check that N shards' averaged gradient equals the whole batch's", NULL },
    { "time-layers", 0, 0, G_OPTION_ARG_NONE, &time_layers, "Only time the model's layers as one replica computes them (a core, or a GPU with --backend gpu), no training", NULL },
    { "nodes", 0, 0, G_OPTION_ARG_INT, &nodes, "Spread the replicas over this many emulated nodes (root: namespaces, tc)", "K" },
    { "link-gbps", 0, 0, G_OPTION_ARG_DOUBLE, &link_gbps, "Emulated nodes: each node's link, Gbit/s each way (default 1)", "GBPS" },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout, "Stop a run that takes longer, seconds (default 600)", "S" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_s, "table (default), csv or json", "FMT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the per-step CSV to FILE", "FILE" },
    { "trace", 0, 0, G_OPTION_ARG_FILENAME, &trace, "Write the last step as a Chrome trace (the simulator's shape)", "FILE" },
    G_OPTION_ENTRY_NULL
  };
  static const DpsCliAlias aliases[] = { { "--ranks", "--gpus" }, { "-n", "--gpus" }, { NULL, NULL } };
  GError *error = NULL;
  dps_cli_deprecated ("run", aliases, argc, argv);
  if (!dps_cli_parse ("run", "real data-parallel training on this machine",
                      "With no options: the MLP on 2 CPU replicas for 20 steps, Adam.\n\n"
                      "Examples:\n  dpscale run --gpus 4 --steps 50 -o steps.csv\n"
                      "  dpscale run --emulate --gpus 16 --model gpt2 --calibration mybox.calib",
                      entries, &argc, &argv, &error))
    return dps_cli_fail ("run", error);
  DpsFormat format;
  gboolean gpu = backend && g_str_equal (backend, "gpu");
  if (ranks == DPS_UNSET_INT && gpu) {   /* not given */
    /* one replica per GPU present (the run says why when there is none) */
    int n = dps_run_gpus (NULL);
    ranks = n > 0 ? n : 1;
  } else if (ranks == DPS_UNSET_INT)
    ranks = 2;
  if (argc > 1)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option: unexpected argument '%s'", argv[1]);
  else if (backend && !g_str_equal (backend, "cpu") && !g_str_equal (backend, "gpu"))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--backend: '%s' is not cpu or gpu", backend);
  else if (ranks < 1 || ranks > 256)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--gpus: %d is not 1 to 256", ranks);
  else if (steps < 1 || steps > 100000 || warmup < 0 || warmup >= steps)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--steps/--warmup: need 0 <= warmup < steps <= 100000");
  else if (accum < 1 || accum > 1024)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--grad-accum: %d is not 1 to 1024", accum);
  else if (batch < 1 || batch > 1 << 20)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--batch: %d is not 1 to 1048576", batch);
  else if (!(cap > 0) || !isfinite (cap))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--bucket-cap-mb: must be more than 0");
  else if (!(first >= 0) || !isfinite (first))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--first-bucket-mb: must be 0 or more");
  else if (!dps_cli_double_given ("--lr", &lr, 0, FALSE, 1e6, 0, &error)
           || !dps_cli_double_given ("--timeout", &timeout, 0, FALSE, 1e7, 600, &error)
           || !dps_cli_double_given ("--link-gbps", &link_gbps, 0, FALSE, 1e6, 1, &error))
    ;
  else if (optimizer && !g_str_equal (optimizer, "sgd") && !g_str_equal (optimizer, "adam"))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--optimizer: '%s' is not sgd or adam", optimizer);
  else if ((calibration || topology) && !emulate)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--calibration/--topology: only with --emulate");
  else if (nodes < 0 || nodes == 1 || (nodes > 1 && ranks % nodes))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--nodes: %d emulated nodes for %d replicas: need 2 or more, dividing --gpus",
                 nodes, ranks);
  else if (check && emulate)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--check-gradient: needs real compute, not --emulate");
  else if (time_layers && (emulate || nodes > 0 || check || trace || output))
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--time-layers: one replica's compute, not with --emulate, --nodes, "
                 "--check-gradient, --trace or --output");
  else if (output && !dps_output_kind (output, "-o", &(DpsOutputKind){ 0 }, &error))
    ;
  else if (trace && !dps_output_kind (trace, "--trace", &(DpsOutputKind){ 0 }, &error))
    ;
  else
    dps_cli_format (format_s, &format, &error);
  if (error)
    return dps_cli_fail ("run", error);

  g_autoptr (DpsModel) model = dps_model_load (model_s ? model_s : "mlp", &error);
  if (!model)
    return dps_cli_fail ("run", error);
  DpsRunSpec spec = { .ranks = ranks, .steps = steps, .batch = batch, .seed = seed, .grad_accum = accum, .bucket_cap_mb = cap,
                      .first_bucket_mb = first, .lr = lr, .optimizer = optimizer ? optimizer : DPS_CLI_OPTIMIZER, .check_gradient = check,
                      .emulate = emulate, .timeout_s = timeout,
                      .gpu = gpu };
  if (time_layers)
    return time_layers_only (&spec, model, format);
  g_autofree double *fwd = NULL, *bwd = NULL;
  double emu_compute = 0;
  if (emulate) {
    g_autoptr (DpsProfile) profile = calibration ? dps_profile_load (calibration, &error) : NULL;
    if ((calibration && !profile)
        || !dps_cli_emulation_times (model, profile, topology, batch, g_str_equal (spec.optimizer, "adam"),
                                     &fwd, &bwd, &spec.emu_opt_s, &error))
      return dps_cli_fail ("run", error);
    spec.emu_fwd_s = fwd;
    spec.emu_bwd_s = bwd;
    for (int l = 0; l < dps_model_n_layers (model); l++)
      emu_compute += fwd[l] + bwd[l];
  }
  g_autoptr (DpsNetEmu) net = NULL;
  if (nodes > 1) {
    net = dps_netemu_new (nodes, ranks / nodes, link_gbps, &error);
    if (!net)
      return dps_cli_fail ("run", error);
    spec.net = net;
  }
  DpsRunResult out;
  int status = 0;
  if (dps_run_execute (&spec, model, &out, &error)) {
    g_autoptr (GString) csv = dps_run_csv (&out, batch * accum);
    if (output)
      dps_cli_emit (output, csv, &error);
    double med = dps_run_quantile (&out, warmup, DPS_RUN_STEP, 0.5);
    double p10 = dps_run_quantile (&out, warmup, DPS_RUN_STEP, 0.1), p90 = dps_run_quantile (&out, warmup, DPS_RUN_STEP, 0.9);
    double comp = dps_run_quantile (&out, warmup, DPS_RUN_COMPUTE, 0.5);
    double expo = dps_run_quantile (&out, warmup, DPS_RUN_EXPOSED, 0.5);
    double optm = dps_run_quantile (&out, warmup, DPS_RUN_OPTIMIZER, 0.5);
    double first_loss = g_array_index (out.steps, DpsRunStep, 0).loss;
    double last_loss = g_array_index (out.steps, DpsRunStep, out.steps->len - 1).loss;
    double bw = dps_run_bucket_Bps (&out, warmup);
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
      D ("compute_median_s", comp);
      D ("exposed_comm_median_s", expo);
      D ("optimizer_median_s", optm);
      D ("samples_per_s", med > 0 ? (double) batch * accum * ranks / med : 0);
      D ("loss_first", first_loss);
      D ("loss_last", last_loss);
      D ("gradcheck_max_rel", out.gradcheck);
      D ("bucket_allreduce_GBps", bw / 1e9);
#undef D
      json_builder_set_member_name (jb, "buckets_bytes");
      json_builder_begin_array (jb);
      for (guint i = 0; i < out.bucket_sizes->len; i++)
        json_builder_add_double_value (jb, g_array_index (out.bucket_sizes, double, i));
      json_builder_end_array (jb);
      json_builder_set_member_name (jb, "buckets_allreduce_median_s");
      json_builder_begin_array (jb);
      for (guint i = 0; i < out.bucket_sizes->len; i++)
        json_builder_add_double_value (jb, dps_run_bucket_median (&out, warmup, (int) i));
      json_builder_end_array (jb);
      json_builder_end_object (jb);
      g_autofree char *j = dps_json_builder_to_text (jb, TRUE);
      g_string_append_printf (text, "%s\n", j);
    } else if (!error) {
      g_string_append_printf (text, "dpscale run: %s, %d replica%s (%s), %s\n", model->name, ranks,
                              ranks > 1 ? "s" : "", out.library ? out.library : "MPI",
                              emulate ? "emulated compute" : spec.gpu ? "CUDA compute (cuBLAS, fp32), one GPU per replica"
                              : "OpenBLAS compute, one thread per replica");
      if (net)
        g_string_append_printf (text, "  on %d emulated nodes of %d replicas, %.3g Gbit/s links (namespaces, tbf)\n", nodes,
                                ranks / nodes, link_gbps);
      g_string_append (text, "\n");
      g_autofree char *micro = accum > 1 ? g_strdup_printf (" x %d micro-steps", accum) : g_strdup ("");
      g_string_append_printf (text, "  steps           %d (%d warm-up left out), batch %d per replica%s\n", steps, warmup, batch,
                              micro);
      g_string_append_printf (text, "  step time       %.3f ms median (p10 %.3f, p90 %.3f), the slowest replica's\n",
                              med * 1e3, p10 * 1e3, p90 * 1e3);
      g_string_append_printf (text, "    compute       %.3f ms (forward + backward)\n", comp * 1e3);
      g_string_append_printf (text, "    exposed comm  %.3f ms (waiting for all-reduces after backward)\n", expo * 1e3);
      g_string_append_printf (text, "    optimizer     %.3f ms\n", optm * 1e3);
      g_string_append_printf (text, "  throughput      %.1f samples/s\n", med > 0 ? (double) batch * accum * ranks / med : 0);
      g_string_append_printf (text, "  buckets         %u, all-reduced at %.2f GB/s (algbw inside the run, from the last replica's arrival)\n",
                              out.bucket_sizes->len, bw / 1e9);
      if (!emulate)
        g_string_append_printf (text, "  loss            %.4g -> %.4g; replicas identical after every step (hashes)\n",
                                first_loss, last_loss);
      else
        g_string_append_printf (text, "  emulated waits  %.3f s asked, %.3f s taken (%+.2f%%); compute per step %.3f ms\n",
                                out.wait_req_s, out.wait_got_s,
                                out.wait_req_s > 0 ? (out.wait_got_s / out.wait_req_s - 1) * 100 : 0, emu_compute * 1e3);
      if (out.gradcheck >= 0)
        g_string_append_printf (text, "  gradient check  averaged shard gradients vs the whole batch: max relative difference %.2g\n",
                                out.gradcheck);
      if (output)
        g_string_append_printf (text, "  wrote           %s\n", output);
    }
    if (!error && trace)
      dps_run_write_trace (&out, steps - 1, trace, &error);
    if (!error)
      dps_cli_emit (NULL, text, NULL);
  }
  dps_run_result_clear (&out);
  if (error)
    status = dps_cli_fail ("run", error);
  return status;
}
