/* cli-advise.c — `dpscale advise`: for a model on a cluster, the DDP
 * settings a PyTorch user controls (bucket cap, micro-batch and gradient
 * accumulation at the same global batch, gradient dtype, compression hook)
 * that give the most samples per second, hence per dollar at a fixed GPU
 * count and price, with the reasons in numbers against PyTorch's defaults;
 * then the parallelism: the sharded strategies and, for transformers, the
 * tensor x pipeline layouts, with and without activation checkpointing and
 * fused attention, the fastest that fits first (what to do when DDP does
 * not fit).
 *
 * The global batch is held: the per-replica batch (--batch, default 4) is
 * split into micro-batch x accumulation steps (b x k = batch), so every
 * candidate trains the same optimisation; candidates that do not fit the
 * device's memory are left out.  PowerSGD changes the gradients' values,
 * so it is marked as a trade against convergence.  Several cluster sizes
 * at one global batch: advise-sizes.c. */
#include "sim/app/cli.h"
#include "sim/app/cli-ddp.h"
#include "sim/app/advise-search.h"
#include "sim/app/advise-sizes.h"
#include "sim/base/error.h"
#include "sim/base/progress.h"
#include "sim/base/json-util.h"

#include <math.h>
#include <stdio.h>

typedef DpsAdviseCandidate Candidate;

/* The reasons in numbers: each part of the step that moved between the
 * baseline and the best by more than 1% of the step. */
static void
reasons (GString *o, const Candidate *base, const Candidate *best)
{
  const DpsDdpResult *a = &base->r, *b = &best->r;
  struct { const char *what; double x, y; } parts[] = {
    { "compute (forward + backward, every micro-step)", a->compute_s, b->compute_s },
    { "exposed all-reduce", a->exposed_comm_s, b->exposed_comm_s },
    { "all-reduce in all (hidden or not)", a->comm_total_s, b->comm_total_s },
    { "DDP's bucket copies and hooks", a->bucket_copy_s + a->hooks_s, b->bucket_copy_s + b->hooks_s },
    { "optimizer", a->optimizer_s, b->optimizer_s },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (parts); i++)
    if (fabs (parts[i].y - parts[i].x) > 0.01 * a->step_mean_s)
      g_string_append_printf (o, "  %-48s %9.2f -> %9.2f ms\n", parts[i].what, parts[i].x * 1e3, parts[i].y * 1e3);
  if (best->accum != base->accum)
    g_string_append_printf (o, "  %d micro-steps of %d: the gradients are all-reduced once per %d micro-batches\n",
                            best->accum, best->micro, best->accum);
  if (best->cap_mib != base->cap_mib)
    g_string_append_printf (o, "  buckets of %g MiB: %d all-reduces a step instead of %d\n", best->cap_mib,
                            b->n_buckets, a->n_buckets);
  if (best->grad != base->grad || best->compress != base->compress)
    g_string_append_printf (o, "  %.2f GB all-reduced a step instead of %.2f\n", b->comm_bytes / 1e9, a->comm_bytes / 1e9);
  if (best->compress == DPS_COMPRESS_POWERSGD)
    g_string_append (o, "  PowerSGD approximates the gradients: check the model still converges\n");
  g_string_append_printf (o, "  memory %.1f GB per replica (was %.1f)\n", b->memory.total / 1e9, a->memory.total / 1e9);
}

/* The options' checks, the model, the profile and the cluster in base;
 * *batch the per-replica batch every candidate splits. */
static gboolean
setup (DpsDdpOpts *o, int argc, char **argv, DpsDdpConfig *base, DpsModel **model, DpsTopo **topo, gint64 *batch,
       GArray **sizes, DpsProfile **profile, DpsDdpConfig *pristine, GError **error)
{
  dps_ddp_config_default (base);
  base->mode = DPS_MODE_ANALYTICAL;
  gint64 gpus = 64;
  double b = 4;   /* --batch's default */
  gboolean fused;
  DpsFusedKernel kernel;
  if (argc > 1)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option: unexpected argument '%s'", argv[1]);
  else if (o->bucket_cap || o->grad_accum || o->grad_dtype || o->compress)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                 "--bucket-cap-mb, --grad-accum, --grad-dtype and --compress are what advise searches: drop them");
  else if (o->strategy || o->tp != DPS_UNSET_INT || o->pp != DPS_UNSET_INT || o->vpp != DPS_UNSET_INT
           || o->micro_batches != DPS_UNSET_INT || o->pp_schedule || o->checkpoint)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--strategy, --tp, --pp, --vpp, --micro-batches, --pp-schedule and "
                 "--checkpoint are what advise searches (its plans): drop them");
  else if (o->attention && dps_attention_parse (o->attention, &fused, &kernel) && !fused)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--attention eager: advise's plans of a transformer run fused "
                 "attention (faster and smaller); give flash or cudnn, or none");
  else if (o->trace || o->plot)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: only for dpscale predict (advise weighs many plans)",
                 o->trace ? "--trace" : "--plot");
  else if (o->gpus && !dps_cli_parse_int_list ("--gpus", o->gpus, 1, DPS_TOPO_MAX_GPUS, sizes, error))
    ;
  else if (*sizes && (*sizes)->len > 1 && o->nodes != DPS_UNSET_INT)
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--nodes: with a list of --gpus, give GPU counts only");
  else if (o->batch && !dps_cli_range_parse ("--batch", o->batch, &b, error))
    ;
  else if ((o->strategies = (1u << DPS_STRATEGY_COUNT) - 1)   /* its plans run every strategy */
           && dps_ddp_opts_apply (o, base, error)
           && (!o->calibration || (*profile = dps_profile_load (o->calibration, error)))
           && (*model = dps_ddp_model_load (o, "gpt2-xl", error))) {
    if (*sizes)
      gpus = g_array_index (*sizes, gint64, 0);
    *pristine = *base;
    if (dps_ddp_setup (o->topology, *profile, *model, o->nodes != DPS_UNSET_INT ? o->nodes : 0, (int) gpus, base,
                       topo, error))
      dps_ddp_offload_ready (base, error);
  }
  if (!*error)
    *batch = (gint64) (base->global_batch > 0 ? b : dps_ddp_default_batch (*model, o->batch != NULL, b, 4));
  /* --global-batch: the batch per GPU the search splits (into micro x
   * accumulation, or a replica's micro-batches), so that every row keeps
   * that global batch and says how */
  if (!*error && *sizes && (*sizes)->len > 1) {
    /* several cluster sizes: one global batch for all (given, or --batch
     * a GPU at the smallest), each size's GPUs splitting it evenly */
    gint64 least = G_MAXINT64;
    for (guint i = 0; i < (*sizes)->len; i++)
      least = MIN (least, g_array_index (*sizes, gint64, i));
    if (base->global_batch > 0 && o->batch)
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--batch and --global-batch: give one (the other follows from --gpus)");
    else if (base->global_batch <= 0)
      base->global_batch = (double) *batch * least;
    for (guint i = 0; !*error && i < (*sizes)->len; i++) {
      gint64 n = g_array_index (*sizes, gint64, i);
      if (base->global_batch != floor (base->global_batch / n) * n)
        g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--gpus: a global batch of %g samples does not split evenly "
                     "over %" G_GINT64_FORMAT " GPUs (give --global-batch)", base->global_batch, n);
    }
    pristine->global_batch = base->global_batch;
    return *error == NULL;
  }
  if (!*error && base->global_batch > 0) {
    if (o->batch)
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--batch and --global-batch: give one (the other follows from --gpus)");
    else if (base->global_batch != floor (base->global_batch / gpus) * gpus)
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--global-batch: %g samples do not split evenly over %d GPUs",
                   base->global_batch, (int) gpus);
    else {
      *batch = (gint64) (base->global_batch / gpus);
      base->global_batch = 0;
    }
  }
  return *error == NULL;
}

/* Why plan b beats the defaults a, part by part. */
static void
plan_reasons (GString *o, const Candidate *a, const Candidate *b)
{
  g_autofree char *name = dps_advise_plan_name (b);
  g_string_append_printf (o, "\nbest plan: %s, %+.1f%% samples/s over DDP's defaults%s, because:\n", name,
                          100 * (b->r.samples_per_s / a->r.samples_per_s - 1),
                          a->r.fits ? "" : " (which do not fit)");
  g_string_append_printf (o, "    compute %.2f ms, exposed collectives %.2f ms", b->r.compute_s * 1e3,
                          b->r.exposed_comm_s * 1e3);
  for (int i = 0; i < b->r.n_comms; i++)
    if (b->r.comms[i].exposed_s > 0.005 * b->r.step_mean_s)
      g_string_append_printf (o, ", %s %.2f", b->r.comms[i].name, b->r.comms[i].exposed_s * 1e3);
  g_string_append_printf (o, "\n    memory: parameters %.1f, gradients %.1f, optimizer %.1f, activations %.1f, "
                          "gathered %.1f GB (the defaults': %.1f GB)\n", b->r.memory.params / 1e9,
                          b->r.memory.grads / 1e9, b->r.memory.optimizer / 1e9, b->r.memory.activations / 1e9,
                          b->r.memory.gathered / 1e9, a->r.memory.total / 1e9);
}

/* The plans that fit, the best five, with why the best wins. */
static void
report_plans (GString *out, const DpsDdpConfig *base, const Candidate *def, const GArray *plans, int tried)
{
  double price = base->price_per_gpu_hour;
  g_string_append_printf (out, "\nparallelism (%u plans fit of %d simulated; DDP's defaults %s):\n\n", plans->len,
                          tried, def->r.fits ? "fit" : "DO NOT FIT");
  int w = 28;   /* the plan column: as wide as the longest name shown */
  for (guint i = 0; i < plans->len && i < 5; i++)
    w = dps_advise_plan_width (w, &g_array_index (plans, Candidate, i));
  g_string_append_printf (out, "%-4s %-*s %13s %10s %12s %8s %11s %8s %12s\n", "", w, "plan", "micro x accum",
                          "step_ms", "samples/s", "gain_%", "exposed_ms", "mem_GB", "usd/Msample");
  for (guint i = 0; i < plans->len && i < 5; i++) {
    const Candidate *cd = &g_array_index (plans, Candidate, i);
    g_autofree char *name = dps_advise_plan_name (cd), *mk = g_strdup_printf ("%d x %d", cd->micro, cd->accum);
    g_autofree char *usd = price > 0 ? g_strdup_printf ("%.2f", cd->r.cost_per_msample) : g_strdup ("-");
    g_autofree char *rank = g_strdup_printf ("p%u", i + 1);
    g_string_append_printf (out, "%-4s %-*s %13s %10.2f %12.1f %+8.1f %11.2f %8.1f %12s\n", rank, w, name, mk,
                            cd->r.step_mean_s * 1e3, cd->r.samples_per_s,
                            100 * (cd->r.samples_per_s / def->r.samples_per_s - 1), cd->r.exposed_comm_s * 1e3,
                            cd->r.memory.total / 1e9, usd);
  }
  if (plans->len)
    plan_reasons (out, def, &g_array_index (plans, Candidate, 0));
  else
    g_string_append (out, "no plan fits: a smaller --batch, more GPUs, or a device with more memory\n");
}

/* Machine-readable: the defaults, then every DDP setting and every plan
 * that fits, fastest first within each; units in the names. */
static const char *const advise_csv_header =
  "rank,kind,strategy,tp,pp,vpp,checkpoint,flash_attention,offload,bucket_cap_MiB,micro_batch,grad_accum,grad_dtype,"
  "compress,step_s,samples_per_s,gain_pct,exposed_comm_s,memory_GB,fits,usd_per_Msample,plan\n";

typedef struct { const char *rank, *kind; const Candidate *cd; } Row;

static GArray *
machine_rows (const Candidate *def, const GArray *all, const GArray *plans)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (Row));
  Row r = { "defaults", "ddp-settings", def };
  g_array_append_val (rows, r);
  for (guint i = 0; i < all->len; i++) {
    Row x = { NULL, "ddp-settings", &g_array_index (all, Candidate, i) };
    g_array_append_val (rows, x);
  }
  for (guint i = 0; i < plans->len; i++) {
    Row x = { NULL, "plan", &g_array_index (plans, Candidate, i) };
    g_array_append_val (rows, x);
  }
  return rows;
}

static void
report_machine (GString *out, DpsFormat format, const DpsDdpConfig *base, const Candidate *def, const GArray *all,
                const GArray *plans)
{
  g_autoptr (GArray) rows = machine_rows (def, all, plans);
  double price = base->price_per_gpu_hour;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  if (format == DPS_FORMAT_CSV)
    g_string_append (out, advise_csv_header);
  else
    json_builder_begin_array (b);
  int n_ddp = 0, n_plan = 0;
  for (guint i = 0; i < rows->len; i++) {
    const Row *row = &g_array_index (rows, Row, i);
    const Candidate *cd = row->cd;
    gboolean plan = g_str_equal (row->kind, "plan");
    g_autofree char *rank = row->rank ? g_strdup (row->rank) : plan ? g_strdup_printf ("p%d", ++n_plan)
                                                                     : g_strdup_printf ("%d", ++n_ddp);
    const char *strategy = dps_strategy_name (plan ? cd->strategy : DPS_STRATEGY_DDP);
    int tp = plan ? MAX (1, cd->tp) : 1, pp = plan ? MAX (1, cd->pp) : 1, vpp = plan ? MAX (1, cd->vpp) : 1;
    double gain = 100 * (cd->r.samples_per_s / def->r.samples_per_s - 1);
    const char *grad = plan ? "" : dps_dtype_name (cd->grad), *comp = plan ? "" : dps_advise_compress_name (cd->compress);
    if (format == DPS_FORMAT_CSV) {
      g_string_append_printf (out, "%s,%s,%s,%d,%d,%d,%d,%d,%s,", rank, row->kind, strategy, tp, pp, vpp,
                              plan && cd->ckpt, plan && cd->flash, dps_offload_name (cd->r.offload));
      dps_csv_num (out, cd->cap_mib, !plan);
      g_string_append_printf (out, ",%d,%d,%s,%s,", cd->micro, cd->accum, grad, comp);
      double v[] = { cd->r.step_mean_s, cd->r.samples_per_s, gain, cd->r.exposed_comm_s, cd->r.memory.total / 1e9 };
      for (gsize k = 0; k < G_N_ELEMENTS (v); k++) {
        dps_csv_num (out, v[k], TRUE);
        g_string_append_c (out, ',');
      }
      g_string_append_printf (out, "%d,", cd->r.fits);
      dps_csv_num (out, cd->r.cost_per_msample, price > 0);
      g_autofree char *name = dps_advise_plan_name (cd);   /* FSDP's tuned settings too */
      g_string_append_printf (out, ",%s\n", plan ? name : "");
      continue;
    }
    json_builder_begin_object (b);
    dps_json_str (b, "rank", rank);
    dps_json_str (b, "kind", row->kind);
    dps_advise_plan_json (b, cd, plan);
    if (!plan) {
      dps_json_num (b, "bucket_cap_MiB", cd->cap_mib);
      dps_json_str (b, "grad_dtype", grad);
      dps_json_str (b, "compress", comp);
    }
    dps_json_int (b, "micro_batch", cd->micro);
    dps_json_int (b, "grad_accum", cd->accum);
    dps_json_num (b, "step_s", cd->r.step_mean_s);
    dps_json_num (b, "samples_per_s", cd->r.samples_per_s);
    dps_json_num (b, "gain_pct", gain);
    dps_json_num (b, "exposed_comm_s", cd->r.exposed_comm_s);
    dps_json_num (b, "memory_GB", cd->r.memory.total / 1e9);
    dps_json_bool (b, "fits", cd->r.fits);
    if (price > 0)
      dps_json_num (b, "usd_per_Msample", cd->r.cost_per_msample);
    json_builder_end_object (b);
  }
  if (format == DPS_FORMAT_JSON) {
    json_builder_end_array (b);
    dps_json_append (out, b);
  }
}

/* The defaults, the best five, and the best with exact gradients (no
 * PowerSGD) where it is not among them, each a row; the reasons. */
static void
report (GString *out, const DpsModel *model, const DpsTopo *topo, const DpsDdpConfig *base, const Candidate *dp,
        const GArray *all, int tried)
{
  const Candidate def = *dp;
  const DpsTopoSpec *s = dps_topo_spec (topo);
  double price = base->price_per_gpu_hour;
  g_string_append_printf (out, "dpscale advise: %s on %d x %s (%d nodes of %s), global batch %.0f, analytical "
                          "network model\n\n", model->name, base->n_gpus, s->gpu.model, dps_topo_n_nodes (topo),
                          s->name, def.r.global_batch);
  g_string_append_printf (out, "%-9s %8s %12s %6s %11s %10s %12s %8s %11s %8s %12s\n", "", "cap_MiB", "micro x accum",
                          "grads", "compress", "step_ms", "samples/s", "gain_%", "exposed_ms", "mem_GB",
                          "usd/Msample");
  const Candidate *show[7] = { &def }, *exact = NULL;
  int n_show = 1;
  for (guint i = 0; i < all->len && n_show < 6; i++)
    show[n_show++] = &g_array_index (all, Candidate, i);
  for (guint i = 0; i < all->len && !exact; i++)
    if (g_array_index (all, Candidate, i).compress != DPS_COMPRESS_POWERSGD)
      exact = &g_array_index (all, Candidate, i);
  gboolean exact_shown = FALSE;
  for (int i = 1; i < n_show; i++)
    exact_shown |= show[i] == exact;
  if (exact && !exact_shown)
    show[n_show++] = exact;
  for (int i = 0; i < n_show; i++) {
    const Candidate *cd = show[i];
    g_autofree char *mk = g_strdup_printf ("%d x %d", cd->micro, cd->accum);
    g_autofree char *rank = i == 0 ? g_strdup ("defaults") : cd == exact && !exact_shown ? g_strdup ("exact")
                            : g_strdup_printf ("%d", i);
    g_autofree char *usd = price > 0 ? g_strdup_printf ("%.2f", cd->r.cost_per_msample) : g_strdup ("-");
    g_string_append_printf (out, "%-9s %8g %12s %6s %11s %10.2f %12.1f %+8.1f %11.2f %8.1f %12s%s\n", rank,
                            cd->cap_mib, mk, dps_dtype_name (cd->grad), dps_advise_compress_name (cd->compress),
                            cd->r.step_mean_s * 1e3, cd->r.samples_per_s,
                            100 * (cd->r.samples_per_s / def.r.samples_per_s - 1), cd->r.exposed_comm_s * 1e3,
                            cd->r.memory.total / 1e9, usd, i == 0 && !def.r.fits ? "  (does not fit)" : "");
  }
  if (all->len == 0)
    g_string_append (out, "\nno configuration fits the device's memory at this batch\n");
  else {
    const Candidate *best = &g_array_index (all, Candidate, 0);
    g_string_append_printf (out, "\nbest: %+.1f%% samples/s over the defaults (%s), because:\n",
                            100 * (best->r.samples_per_s / def.r.samples_per_s - 1),
                            price > 0 ? "and per dollar" : "per dollar too at any one price per GPU-hour");
    reasons (out, &def, best);
    if (exact && exact != best) {
      g_string_append_printf (out, "best with exact gradients (no PowerSGD): %+.1f%%, because:\n",
                              100 * (exact->r.samples_per_s / def.r.samples_per_s - 1));
      reasons (out, &def, exact);
    }
    g_string_append_printf (out, "(%u configurations fit of %d tried)\n", all->len, tried);
  }
}

int
dps_cmd_advise (int argc, char **argv)
{
  DpsDdpOpts o = { 0 };
  g_autofree GOptionEntry *entries = dps_ddp_options (&o, FALSE);
  /* one step's trace and picture are predict's: not offered here */
  for (GOptionEntry *e = entries; e->long_name; e++)
    if (g_str_equal (e->long_name, "trace") || g_str_equal (e->long_name, "plot"))
      e->flags |= G_OPTION_FLAG_HIDDEN;
  GError *error = NULL;
  DpsDdpConfig base;
  g_autoptr (DpsModel) model = NULL;
  g_autoptr (DpsTopo) topo = NULL;
  gint64 batch = 4;
  DpsFormat format = DPS_FORMAT_TABLE;
  Candidate def = { .cap_mib = 25, .micro = 4, .accum = 1, .grad = DPS_DTYPE_FP32, .compress = DPS_COMPRESS_NONE };
  g_autoptr (GArray) sizes = NULL;
  g_autoptr (DpsProfile) profile = NULL;
  DpsDdpConfig pristine;
  if (dps_cli_parse ("advise", "For --model on --topology with --gpus (default: GPT-2 XL, 64 H100s), searches the\n"
                     "bucket cap, micro-batch x gradient accumulation at the same global batch (--batch\n"
                     "per replica, default 4), gradient dtype and compression hook; prints the best few\n"
                     "beside PyTorch's defaults and why, in numbers (analytical network model); then the\n"
                     "parallelism: sharded strategies, tensor x pipeline layouts (tensor parallelism as\n"
                     "Megatron-Core runs it: sequence parallelism, its collectives overlapped), checkpointing\n"
                     "where a plan does not fit without it, and FSDP's own settings on the best FSDP and HSDP\n"
                     "plans (shard group, unit, prefetch, resharding, no_sync; with --offload, CPU offload\n"
                     "where a plan fits no other way).\n"
                     "With a list of --gpus (64,128,256), the fastest plan that fits at each size for one\n"
                     "global batch, and which size is the fastest and which the cheapest per sample.\n\n"
                     "Example: dpscale advise --model llama3-8b --topology dgx-h100 --gpus 64 --batch 8 "
                     "--price-per-gpu-hour 2.5",
                     entries, &argc, &argv, &error)
      && setup (&o, argc, argv, &base, &model, &topo, &batch, &sizes, &profile, &pristine, &error)
      && dps_cli_format (o.format, &format, &error)
      && sizes && sizes->len > 1) {
    dps_progress_begin ("advise");
    g_autoptr (GArray) best = dps_advise_search_sizes (&o, &pristine, base.global_batch, profile, model, sizes, &error);
    dps_progress_end ();
    if (!error) {
      g_autoptr (GString) out = g_string_new (NULL);
      dps_advise_report_sizes (out, format, model, &base, base.global_batch, best);
      dps_cli_emit (o.output, out, &error);
      int fastest, cheapest;
      dps_advise_fastest_cheapest (best, &fastest, &cheapest);
      if (!error && fastest < 0)
        g_set_error (&error, DPS_ERROR, DPS_ERROR_LIMIT, "no plan fits the %s's memory at any of the sizes",
                     dps_topo_spec (topo)->gpu.model);
    }
    for (guint i = 0; i < best->len; i++)
      if (g_array_index (best, DpsAdviseSizeBest, i).found)
        dps_ddp_result_clear (&g_array_index (best, DpsAdviseSizeBest, i).best.r);
  } else if (!error && (def.micro = (int) batch, dps_advise_evaluate (&base, &def, &error))) {
    dps_progress_begin ("advise");
    int tried = 0, tried_plans;
    /* DDP's own settings, unless its state alone cannot fit */
    Candidate ddp = { .strategy = DPS_STRATEGY_DDP, .tp = 1, .pp = 1 };
    GArray *all = dps_advise_too_big (&base, &ddp) ? g_array_new (FALSE, TRUE, sizeof (Candidate))
                                               : dps_advise_search_settings (&base, (int) batch, &tried);
    GArray *plans = dps_advise_search_plans (&base, (int) batch, &tried_plans);
    dps_progress_end ();
    g_autoptr (GString) out = g_string_new (NULL);
    if (format == DPS_FORMAT_TABLE) {
      report (out, model, topo, &base, &def, all, tried);
      report_plans (out, &base, &def, plans, tried_plans);
    } else
      report_machine (out, format, &base, &def, all, plans);
    dps_cli_emit (o.output, out, &error);
    if (!error && all->len == 0 && plans->len == 0)
      g_set_error (&error, DPS_ERROR, DPS_ERROR_LIMIT, "no configuration fits the %s's memory",
                   dps_topo_spec (topo)->gpu.model);
    GArray *lists[] = { all, plans };
    for (int li = 0; li < 2; li++) {
      for (guint i = 0; i < lists[li]->len; i++)
        dps_ddp_result_clear (&g_array_index (lists[li], Candidate, i).r);
      g_array_free (lists[li], TRUE);
    }
  }
  dps_ddp_result_clear (&def.r);
  dps_ddp_opts_clear (&o);
  return error ? dps_cli_fail ("advise", error) : 0;
}
