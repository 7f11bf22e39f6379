/* cli-ddp.c — see cli-ddp.h. */
#include "sim/app/cli-ddp.h"
#include "calibrate/profile-device.h"
#include "sim/coll-predict.h"
#include "sim/strategy.h"
#include "sim/base/error.h"

#include <string.h>

/* The option table (a new array; g_free it), bound to o. */
GOptionEntry *
dps_ddp_options (DpsDdpOpts *o, gboolean sweep)
{
  /* flags whose zero is not their absence: dps_ddp_opts_apply tells them apart */
  o->nodes = o->shard_group = o->limit_all_gathers = o->tp = o->pp = o->vpp = o->micro_batches = o->seq_len =
    o->trials = o->seed = o->slow_replicas = DPS_UNSET_INT;
  o->global_batch = o->slow_factor = o->loader_rate = o->efficiency = o->gpu_spread = o->contention =
    o->critical_batch = o->steps_to_target = o->price = o->jitter = o->os_noise_ms = dps_cli_unset ();
  GOptionEntry e[] = {
    { "model", 'M', 0, G_OPTION_ARG_STRING, &o->model, "Model: a shipped name, a .model or a per-layer .csv file (default gpt2-xl)", "NAME|FILE" },
    { "topology", 't', 0, G_OPTION_ARG_STRING, &o->topology, sweep ? "Topologies, comma-separated (default dgx-h100)" : "Topology file or shipped name (default dgx-h100)", sweep ? "LIST" : "NAME|FILE" },
    { "gpus", 'g', 0, G_OPTION_ARG_STRING, &o->gpus, sweep ? "GPU counts (default 1,2,4,...,1024)" : "GPUs, one replica each (default 64)", sweep ? "LIST" : "N" },
    { "nodes", 0, 0, G_OPTION_ARG_INT, &o->nodes, "Nodes (instead of --gpus): all their GPUs (was -n)", "N" },
    { "seq-len", 0, 0, G_OPTION_ARG_INT, &o->seq_len, "Tokens a sample of a transformer (zoo file or config.json; default: the file's)", "N" },
    { "batch", 'b', 0, G_OPTION_ARG_STRING, &o->batch, sweep ? "Per-replica batches (default 4)" : "Samples per replica per micro-step (default 4; weak scaling)", sweep ? "LIST" : "B" },
    { "global-batch", 'G', 0, G_OPTION_ARG_DOUBLE, &o->global_batch, "Strong scaling: this many samples per step, split across replicas", "B" },
    { "bucket-cap-mb", 0, 0, G_OPTION_ARG_STRING, &o->bucket_cap, sweep ? "Bucket caps in MiB (default 25)" : "DDP bucket cap in MiB (default 25)", sweep ? "LIST" : "MB" },
    { "first-bucket-mb", 0, 0, G_OPTION_ARG_STRING, &o->first_bucket, "Cap of the first bucket in MiB (default 1)", "MB" },
    { "strategy", 'S', 0, G_OPTION_ARG_STRING, &o->strategy, "Data parallelism: ddp (default), zero1, zero2 (SHARD_GRAD_OP), fsdp (FULL_SHARD, ZeRO-3), hsdp (HYBRID_SHARD); PyTorch's names too", "S" },
    { "shard-group", 0, 0, G_OPTION_ARG_INT, &o->shard_group, "hsdp: GPUs a shard group (default: one node's)", "G" },
    { "fsdp-unit", 0, 0, G_OPTION_ARG_STRING, &o->fsdp_unit, "What FSDP wraps as a unit: block (each transformer block, default), layer, model", "U" },
    { "no-reshard-after-forward", 0, 0, G_OPTION_ARG_NONE, &o->no_reshard, "fsdp: keep each unit gathered from its forward to its backward (FSDP2's reshard_after_forward=False)", NULL },
    { "accum-no-sync", 0, 0, G_OPTION_ARG_NONE, &o->accum_no_sync, "zero2, fsdp, hsdp with --grad-accum: the micro-steps before the last reduce nothing and keep their gradients unsharded, in the reduction's type (FSDP's no_sync(), FSDP2's set_requires_gradient_sync(False)); one reduce-scatter a step (default: every micro-step reduces)", NULL },
    { "backward-prefetch", 0, 0, G_OPTION_ARG_STRING, &o->backward_prefetch, "fsdp: pre (BACKWARD_PRE, default), post, none", "P" },
    { "limit-all-gathers", 0, 0, G_OPTION_ARG_INT, &o->limit_all_gathers, "fsdp: units gathered ahead at most (default 2, FSDP's rate limiter; 0 none)", "N" },
    { "offload", 0, 0, G_OPTION_ARG_STRING, &o->offload, "zero2, fsdp, hsdp: none (default), optimizer (its states, master weights and gradient shards in host memory, the step on the CPUs: ZeRO-Offload), params (the parameter shards too: FSDP's CPUOffload)", "WHAT" },
    { "tp", 0, 0, G_OPTION_ARG_INT, &o->tp, "Tensor parallel GPUs a group (Megatron's, inside a node; default 1)", "T" },
    { "pp", 0, 0, G_OPTION_ARG_INT, &o->pp, "Pipeline stages (default 1); data parallelism over the rest", "P" },
    { "rank-order", 0, 0, G_OPTION_ARG_STRING, &o->rank_order, DPS_CLI_RANK_ORDER_HELP, "ORDER" },
    { "vpp", 0, 0, G_OPTION_ARG_INT, &o->vpp, "Virtual stages a pipeline stage holds (interleaved 1F1B; default 1)", "V" },
    { "micro-batches", 0, 0, G_OPTION_ARG_INT, &o->micro_batches, "Pipeline micro-batches a step (default: --grad-accum, at least 4 x --pp)", "M" },
    { "pp-schedule", 0, 0, G_OPTION_ARG_STRING, &o->pp_schedule, "gpipe, 1f1b (default) or interleaved (default with --vpp > 1)", "S" },
    { "pp-embedding-slots", 0, 0, G_OPTION_ARG_NONE, &o->pp_end_slots, "With --pp: the embedding and the output layer each take a transformer block's place in the split over stages (DeepSpeed's --pp-partition-method type:transformer|embedding; Megatron-Core's --account-for-embedding-in-pipeline-split with --account-for-loss-in-pipeline-split); default: the blocks split evenly, the embedding and output beside them", NULL },
    { "sequence-parallel", 0, 0, G_OPTION_ARG_NONE, &o->sequence_parallel, "With --tp: norms and dropout split along the sequence (a reduce-scatter and an all-gather for each all-reduce)", NULL },
    { "tp-comm-overlap", 0, 0, G_OPTION_ARG_NONE, &o->tp_comm_overlap, "With --sequence-parallel: a block's tensor-parallel collectives run beside its GEMMs, and what follows waits for both (Megatron-Core's --tp-comm-overlap, Transformer Engine's GEMMs pipelined with them)", NULL },
    { "overlap-param-gather", 0, 0, G_OPTION_ARG_NONE, &o->overlap_param_gather, "zero1 with --tp or --pp (Megatron's distributed optimizer): each layer's forward waits only for its own parameters' all-gather, not for all of its stage's (Megatron-Core's --overlap-param-gather)", NULL },
    { "precision", 0, 0, G_OPTION_ARG_STRING, &o->precision, "amp (default: torch.autocast, fp32 parameters, bf16 compute), bf16 (bf16 parameters, fp32 master copy: Megatron, DeepSpeed, FSDP's MixedPrecision), bf16-pure (parameters and optimizer states in bf16, no master copy: a model cast to bfloat16), bf16-deepspeed (bf16's, under DeepSpeed's BF16_Optimizer, its bf16 with ZeRO stage 0 or 1: each backward's bf16 gradients kept beside the fp32 ones it accumulates, 2 bytes a parameter more), fp8 (bf16's, the linear layers' GEMMs in FP8: Transformer Engine, torchao's float8; Ada, Hopper, Blackwell), fp32", "P" },
    { "grad-dtype", 0, 0, G_OPTION_ARG_STRING, &o->grad_dtype, "Gradient type, the reduction's: fp32 (default), bf16, fp16", "T" },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &o->dtype, "Compute type: bf16 (default), fp16, tf32, fp32 (default: --precision's)", "T" },
    { "optimizer", 0, 0, G_OPTION_ARG_STRING, &o->optimizer, "adam (default, as in every subcommand), momentum, sgd", "OPT" },
    { "compress", 0, 0, G_OPTION_ARG_STRING, &o->compress, "Gradient compression hook: fp16 or powersgd:R", "HOOK" },
    { "grad-accum", 'k', 0, G_OPTION_ARG_STRING, &o->grad_accum, sweep ? "Micro-steps per step (default 1)" : "Gradient accumulation: K micro-steps, K-1 of them no_sync (default 1)", sweep ? "LIST" : "K" },
    { "no-overlap", 0, 0, G_OPTION_ARG_NONE, &o->no_overlap, "Gradients reduced only after the whole backward (shows what overlap buys; with --tp or --pp as Megatron-LM's local DDP of 2021 and DeepSpeed's pipeline engine run it)", NULL },
    { "find-unused", 0, 0, G_OPTION_ARG_NONE, &o->find_unused, "find_unused_parameters=True: one more small all-reduce", NULL },
    { "grad-as-bucket-view", 0, 0, G_OPTION_ARG_NONE, &o->grad_as_bucket_view, "gradient_as_bucket_view=True: no bucket copy in memory", NULL },
    { "fp8-all-gather", 0, 0, G_OPTION_ARG_NONE, &o->fp8_all_gather, "fsdp, hsdp with --precision fp8: gather the parameters in FP8, a byte each (torchao's enable_fsdp_float8_all_gather)", NULL },
    { "flash-attention", 0, 0, G_OPTION_ARG_NONE, &o->flash, "Attention by SDPA's flash kernels: no score matrices kept (memory); as --attention flash", NULL },
    { "attention", 0, 0, G_OPTION_ARG_STRING, &o->attention, "How attention runs: eager (default: its score matrices written and kept), flash (FlashAttention-2, SDPA's flash kernels: fused, no score matrices), cudnn (cuDNN's fused attention: Transformer Engine's on Hopper and later, as Megatron-Core runs it, and SDPA's cuDNN backend; 1.62 x flash's speed there)", "K" },
    { "checkpoint", 0, 0, G_OPTION_ARG_NONE, &o->checkpoint, "Activation checkpointing of every transformer block: its input kept, its forward run again in backward", NULL },
    { "contention", 0, 0, G_OPTION_ARG_DOUBLE, &o->contention, "Slowdown of compute and communication while they overlap (0.1 = 10%; default: the GPU's, NCCL's SMs and HBM traffic)", "F" },
    { "jitter", 0, 0, G_OPTION_ARG_DOUBLE, &o->jitter, "Per-layer compute jitter, coefficient of variation (0.05 = 5%)", "CV" },
    { "slow-replicas", 0, 0, G_OPTION_ARG_INT, &o->slow_replicas, "Number of slow replicas", "K" },
    { "slow-factor", 0, 0, G_OPTION_ARG_DOUBLE, &o->slow_factor, "How much slower the slow replicas compute (default 1.5)", "F" },
    { "gpu-spread", 0, 0, G_OPTION_ARG_DOUBLE, &o->gpu_spread, "GPU-to-GPU spread of compute speed (sd / mean); the step waits for the slowest (default 0.015, Sinha et al. SC22; 0 identical GPUs)", "CV" },
    { "os-noise-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o->os_noise_ms, "Mean OS noise per replica and step (exponential), ms", "MS" },
    { "trials", 'T', 0, G_OPTION_ARG_INT, &o->trials, "Monte Carlo trials (default 1, or 20 with jitter or noise)", "T" },
    { "yes", 0, 0, G_OPTION_ARG_NONE, &o->yes, "Run trials that would take past a minute (else refused, with the estimate)", NULL },
    { "seed", 0, 0, G_OPTION_ARG_INT, &o->seed, "Random seed (default 1): same seed, same answer", "S" },
    { "loader-rate", 0, 0, G_OPTION_ARG_DOUBLE, &o->loader_rate, "Input pipeline: samples/s one node's loader delivers", "R" },
    { "critical-batch", 0, 0, G_OPTION_ARG_DOUBLE, &o->critical_batch, "Gradient noise scale B_noise, samples (with --steps-to-target)", "B" },
    { "steps-to-target", 0, 0, G_OPTION_ARG_DOUBLE, &o->steps_to_target, "Steps to the target at a small batch, S_min: steps(B) = S_min (1 + B_noise/B)", "S" },
    { "price-per-gpu-hour", 0, 0, G_OPTION_ARG_DOUBLE, &o->price, "Price of one GPU-hour, for costs (default: the topology's price_per_gpu_hour_usd)", "USD" },
    { "efficiency", 0, 0, G_OPTION_ARG_DOUBLE, &o->efficiency, "Fraction of peak FLOP/s every kernel reaches (default: by kind and type, sim/compute.c)", "E" },
    { "mode", 'm', 0, G_OPTION_ARG_STRING, &o->mode, "Network model: flow (max-min flow-level, the default everywhere) or analytical", "MODE" },
    { "algo", 'a', 0, G_OPTION_ARG_STRING, &o->algo, dps_cli_algo_help (), "LIST" },
    { "proto", 'p', 0, G_OPTION_ARG_STRING, &o->proto, "Protocols allowed, as NCCL_PROTO (LL,LL128,Simple)", "LIST" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &o->format, "table (default), csv or json", "FMT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o->output, sweep ? "Write PREFIX.csv and PREFIX.png/.svg (default dpscale-sweep); with --format csv or json, the file itself" : "Write the result to FILE instead of stdout", sweep ? "PREFIX" : "FILE" },
    { "trace", 0, sweep ? G_OPTION_FLAG_HIDDEN : 0, G_OPTION_ARG_FILENAME, &o->trace, "Write one step as a Chrome trace (Perfetto opens it)", "FILE" },
    { "plot", 0, sweep ? G_OPTION_FLAG_HIDDEN : 0, G_OPTION_ARG_FILENAME, &o->plot, "Draw one step: its streams' tasks and the memory (.png or .svg)", "FILE" },
    { "calibration", 'C', 0, G_OPTION_ARG_FILENAME, &o->calibration, "A profile from dpscale calibrate: fitted network, measured layer times (and its machine, without --topology)", "FILE" },
    G_OPTION_ENTRY_NULL
  };
  return g_memdup2 (e, sizeof e);
}

void
dps_ddp_opts_clear (DpsDdpOpts *o)
{
  char **strs[] = { &o->model, &o->topology, &o->gpus, &o->batch, &o->bucket_cap, &o->grad_accum,
                    &o->first_bucket, &o->grad_dtype, &o->dtype, &o->optimizer, &o->compress, &o->mode,
                    &o->strategy, &o->precision, &o->fsdp_unit, &o->backward_prefetch, &o->pp_schedule,
                    &o->rank_order, &o->offload, &o->attention, &o->algo, &o->proto, &o->format, &o->output, &o->trace, &o->plot, &o->calibration };
  for (gsize i = 0; i < G_N_ELEMENTS (strs); i++)
    g_clear_pointer (strs[i], g_free);
}

/* The options that name a type, hook, mode or list: dtypes, optimizer,
 * compression, first bucket, network mode, algorithms and protocols. */
static gboolean
apply_kinds (const DpsDdpOpts *o, DpsDdpConfig *c, GError **error)
{
  DpsDtype dt;
  if (o->grad_dtype) {
    if (!dps_dtype_parse (o->grad_dtype, &dt) || dt == DPS_DTYPE_TF32) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--grad-dtype: '%s' is not fp32, bf16 or fp16", o->grad_dtype);
      return FALSE;
    }
    c->grad_dtype = dt;
  }
  /* the precision, one row a name: how the state is held (memory.h),
   * whether the linear layers' GEMMs run in FP8 (Transformer Engine's,
   * over bf16's state; compute.h) and the compute type */
  static const struct { const char *name; DpsPrecision precision; gboolean fp8; DpsDtype dtype; } precisions[] = {
    { "amp", DPS_PRECISION_AMP, FALSE, DPS_DTYPE_BF16 },
    { "bf16", DPS_PRECISION_BF16, FALSE, DPS_DTYPE_BF16 },
    { "bf16-pure", DPS_PRECISION_PURE_BF16, FALSE, DPS_DTYPE_BF16 },
    { "bf16-deepspeed", DPS_PRECISION_BF16_DEEPSPEED, FALSE, DPS_DTYPE_BF16 },
    { "fp8", DPS_PRECISION_BF16, TRUE, DPS_DTYPE_BF16 },
    { "fp32", DPS_PRECISION_AMP, FALSE, DPS_DTYPE_FP32 },
  };
  guint pi = 0;
  while (o->precision && pi < G_N_ELEMENTS (precisions) && !g_str_equal (o->precision, precisions[pi].name))
    pi++;
  if (pi == G_N_ELEMENTS (precisions)) {
    g_autoptr (GString) names = g_string_new (NULL);
    for (guint i = 0; i < G_N_ELEMENTS (precisions); i++)
      g_string_append_printf (names, "%s%s", i == 0 ? "" : i + 1 < G_N_ELEMENTS (precisions) ? ", " : " or ",
                              precisions[i].name);
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--precision: '%s' is not %s", o->precision, names->str);
    return FALSE;
  }
  c->precision = precisions[pi].precision;
  c->compute.fp8 = precisions[pi].fp8;
  c->compute.dtype = precisions[pi].dtype;
  if (o->dtype) {
    if (!dps_dtype_parse (o->dtype, &dt)) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--dtype: '%s' is not bf16, fp16, tf32 or fp32", o->dtype);
      return FALSE;
    }
    c->compute.dtype = dt;
  }
  if (o->strategy && !dps_cli_strategy (o->strategy, &c->strategy, error))
    return FALSE;
  if (o->fsdp_unit && !dps_fsdp_unit_parse (o->fsdp_unit, &c->fsdp_unit)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--fsdp-unit: '%s' is not block, layer or model", o->fsdp_unit);
    return FALSE;
  }
  if (o->backward_prefetch && !dps_prefetch_parse (o->backward_prefetch, &c->backward_prefetch)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--backward-prefetch: '%s' is not pre, post or none",
                 o->backward_prefetch);
    return FALSE;
  }
  c->reshard_after_forward = !o->no_reshard;
  c->accum_no_sync = o->accum_no_sync;
  if (o->offload && !dps_offload_parse (o->offload, &c->offload)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--offload: '%s' is not none, optimizer or params", o->offload);
    return FALSE;
  }
  /* attention: --flash-attention is --attention flash */
  c->flash_attention = o->flash;
  c->attention_kernel = DPS_FUSED_FLASH2;
  if (o->attention) {
    gboolean known = dps_attention_parse (o->attention, &c->flash_attention, &c->attention_kernel);
    if (!known || (o->flash && !(c->flash_attention && c->attention_kernel == DPS_FUSED_FLASH2))) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, !known ? "--attention: '%s' is not eager, flash or cudnn"
                                                             : "--attention: '%s' contradicts --flash-attention", o->attention);
      return FALSE;
    }
  }
  if (o->optimizer && !dps_optimizer_parse (o->optimizer, &c->optimizer)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--optimizer: '%s' is not adam, momentum or sgd", o->optimizer);
    return FALSE;
  }
  if (o->compress) {
    gint64 r;
    if (g_str_equal (o->compress, "fp16"))
      c->compress = DPS_COMPRESS_FP16;
    else if (g_str_has_prefix (o->compress, "powersgd:") && dps_parse_int (o->compress + 9, &r) && r >= 1 && r <= 1024) {
      c->compress = DPS_COMPRESS_POWERSGD;
      c->powersgd_rank = (int) r;
    } else if (g_str_equal (o->compress, "powersgd"))
      c->compress = DPS_COMPRESS_POWERSGD;
    else {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--compress: '%s' is not fp16 or powersgd:R (R 1 to 1024)", o->compress);
      return FALSE;
    }
  }
  double first = 1;
  if (o->first_bucket && !dps_cli_range_parse ("--first-bucket-mb", o->first_bucket, &first, error))
    return FALSE;
  c->first_bucket_bytes = first * 1024 * 1024;
  if (o->mode && !g_str_equal (o->mode, "flow") && !g_str_equal (o->mode, "analytical")) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--mode: '%s' is not flow or analytical", o->mode);
    return FALSE;
  }
  if (o->mode)
    c->mode = g_str_equal (o->mode, "flow") ? DPS_MODE_FLOW : DPS_MODE_ANALYTICAL;
  if (!dps_cli_parse_masks (o->algo, o->proto, &c->algo_mask, &c->proto_mask, error))
    return FALSE;
  return TRUE;
}

/* Applies every single-valued option to c (model, topology and the
 * list-valued sweep axes are set by the caller); the flags that were not
 * given read 0 in o afterwards. */
DpsModel *
dps_ddp_model_load (DpsDdpOpts *o, const char *def, GError **error)
{
  if (!dps_cli_int_given ("--seq-len", &o->seq_len, 0, error))
    return NULL;
  DpsModel *m = dps_model_load_seq (o->model ? o->model : def, o->seq_len, error);
  if (!m && error && *error && g_str_has_prefix ((*error)->message, "sequence length: ")) {
    char *msg = g_strconcat ("--seq-len: ", (*error)->message + strlen ("sequence length: "), NULL);
    g_free ((*error)->message);
    (*error)->message = msg;
  }
  return m;
}

double
dps_ddp_default_batch (const DpsModel *m, gboolean given, double batch, double fallback)
{
  gboolean timed = dps_model_has_times (m);
  if (given) {
    if (timed && batch != m->time_batch) {
      g_autofree char *n = g_strdup_printf ("%s: its times were measured at batch %d: scaled to --batch %g",
                                            m->name, m->time_batch, batch);
      dps_cli_note (n);
    }
    return batch;
  }
  if (!timed || m->time_batch == fallback)
    return fallback;
  g_autofree char *n = g_strdup_printf ("%s: batch %d, as its times were measured (--batch to choose another)",
                                        m->name, m->time_batch);
  dps_cli_note (n);
  return m->time_batch;
}

gboolean
dps_ddp_check_layout (DpsStrategy k, int tp, int pp, GError **error)
{
  if ((tp > 1 || pp > 1) && k != DPS_STRATEGY_DDP && k != DPS_STRATEGY_ZERO1) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--strategy: with --tp or --pp the data parallelism is ddp or "
                 "zero1 (Megatron's distributed optimizer), not %s", dps_strategy_name (k));
    return FALSE;
  }
  return TRUE;
}

/* The flags that act only on some strategies or layouts, each refused
 * where it would change nothing (a flag silently ignored reads as one
 * that was applied): given says it was, applies where it acts. */
typedef struct {
  const char *flag;
  gboolean    given, applies;
  const char *only;
} Applies;

static gboolean
check_applies (const Applies *a, gsize n, GError **error)
{
  for (gsize i = 0; i < n; i++)
    if (a[i].given && !a[i].applies) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: only %s", a[i].flag, a[i].only);
      return FALSE;
    }
  return TRUE;
}

/* Whether any strategy of mask has pred. */
static gboolean
any_strategy (guint mask, gboolean (*pred) (DpsStrategy))
{
  for (int s = 0; s < DPS_STRATEGY_COUNT; s++)
    if ((mask & (1u << s)) && pred ((DpsStrategy) s))
      return TRUE;
  return FALSE;
}

static gboolean
has_buckets (DpsStrategy s)
{
  return !dps_strategy_shards_grads (s);   /* DDP's and ZeRO-1's */
}

gboolean
dps_ddp_opts_apply (DpsDdpOpts *o, DpsDdpConfig *c, GError **error)
{
  /* which of the flags below read 0 once applied were given */
  gboolean given_limit = o->limit_all_gathers != DPS_UNSET_INT, given_vpp = o->vpp != DPS_UNSET_INT;
  gboolean given_micro = o->micro_batches != DPS_UNSET_INT;
  /* given, these must be in range; not given, 0 (the default) from here on */
  if (!dps_cli_int_given ("--nodes", &o->nodes, 0, error)
      || !dps_cli_int_given ("--shard-group", &o->shard_group, 0, error)
      || !dps_cli_int_given ("--limit-all-gathers", &o->limit_all_gathers, 2, error)
      || !dps_cli_int_given ("--tp", &o->tp, 1, error)
      || !dps_cli_int_given ("--pp", &o->pp, 1, error)
      || !dps_cli_int_given ("--vpp", &o->vpp, 1, error)
      || !dps_cli_int_given ("--micro-batches", &o->micro_batches, 0, error)
      || !dps_cli_int_given ("--trials", &o->trials, 0, error)
      || !dps_cli_int_given ("--seed", &o->seed, 1, error)
      || !dps_cli_double_given ("--global-batch", &o->global_batch, 0, error)
      || !dps_cli_double_given ("--efficiency", &o->efficiency, 0, error)
      || !dps_cli_double_given ("--slow-factor", &o->slow_factor, 0, error)
      || !dps_cli_double_given ("--loader-rate", &o->loader_rate, 0, error)
      || !dps_cli_double_given ("--gpu-spread", &o->gpu_spread, DPS_DDP_GPU_SPREAD_CV, error)
      /* not given: -1, the device's own (dps_ddp_default_contention) */
      || !dps_cli_double_given ("--contention", &o->contention, -1, error)
      || !dps_cli_double_given ("--critical-batch", &o->critical_batch, 0, error)
      || !dps_cli_double_given ("--steps-to-target", &o->steps_to_target, 0, error)
      /* not given: 0, the topology's price (dps_ddp_setup) */
      || !dps_cli_double_given ("--price-per-gpu-hour", &o->price, 0, error)
      || !apply_kinds (o, c, error))
    return FALSE;
  /* (--global-batch, --slow-factor, --loader-rate, --efficiency: checked above, as given) */
  if (!dps_cli_double_given ("--jitter", &o->jitter, 0, error)
      || !dps_cli_double_given ("--os-noise-ms", &o->os_noise_ms, 0, error)
      || !dps_cli_int_given ("--slow-replicas", &o->slow_replicas, 0, error))
    return FALSE;
  if (o->slow_factor > 0 && o->slow_replicas == 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--slow-factor: only with --slow-replicas");
    return FALSE;
  }
  if ((o->critical_batch > 0) != (o->steps_to_target > 0)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--critical-batch and --steps-to-target go together");
    return FALSE;
  }
  c->global_batch = o->global_batch;
  c->tp = o->tp;
  c->pp = o->pp;
  if (!dps_cli_rank_order (o->rank_order, o->tp > 1 || o->pp > 1, &c->rank_order, error))
    return FALSE;
  c->vpp = o->vpp;
  c->micro_batches = o->micro_batches;
  c->sequence_parallel = o->sequence_parallel;
  c->pp_end_slots = o->pp_end_slots;
  c->overlap_param_gather = o->overlap_param_gather;
  c->tp_comm_overlap = o->tp_comm_overlap;
  c->pipe_schedule = o->vpp > 1 ? DPS_PIPE_INTERLEAVED : DPS_PIPE_1F1B;
  if (o->pp_schedule) {
    static const char *const names[] = { "gpipe", "1f1b", "interleaved" };
    int i = 0;
    while (i < 3 && g_ascii_strcasecmp (o->pp_schedule, names[i]) != 0)
      i++;
    if (i == 3) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--pp-schedule: '%s' is not gpipe, 1f1b or interleaved", o->pp_schedule);
      return FALSE;
    }
    c->pipe_schedule = (DpsPipeSchedule) i;
  }
  if ((o->vpp > 1) != (c->pipe_schedule == DPS_PIPE_INTERLEAVED)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s", o->vpp > 1 ? "--vpp: virtual stages run the interleaved schedule"
                                                                     : "--pp-schedule: interleaved needs --vpp 2 or more");
    return FALSE;
  }
  if (o->sequence_parallel && o->tp < 2) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--sequence-parallel: needs --tp 2 or more");
    return FALSE;
  }
  if (o->tp_comm_overlap && !o->sequence_parallel) {
    /* Megatron: "Tensor parallel communication/GEMM overlap can happen
     * only when sequence parallelism is enabled" (arguments.py) */
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--tp-comm-overlap: needs --sequence-parallel (and --tp 2 or more)");
    return FALSE;
  }
  if (!dps_ddp_check_layout (c->strategy, o->tp, o->pp, error))
    return FALSE;
  guint mask = o->strategies ? o->strategies : 1u << c->strategy;
  /* DeepSpeed runs its bf16 through the BF16_Optimizer only at ZeRO stage
   * 0 or 1 (stages 2 and 3 through their own optimizers): against every
   * strategy a sweep's list names */
  guint ds_ok = (1u << DPS_STRATEGY_DDP) | (1u << DPS_STRATEGY_ZERO1);
  if (c->precision == DPS_PRECISION_BF16_DEEPSPEED && (mask & ~ds_ok)) {
    int bad = g_bit_nth_lsf (mask & ~ds_ok, -1);
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                 "--precision bf16-deepspeed: DeepSpeed's BF16_Optimizer runs only with --strategy ddp or zero1, not %s",
                 dps_strategy_name ((DpsStrategy) bad));
    return FALSE;
  }
  gboolean parallel = o->tp > 1 || o->pp > 1;
  gboolean units = any_strategy (mask, dps_strategy_shards_grads), gathers = any_strategy (mask, dps_strategy_shards_params);
  gboolean reduces = any_strategy (mask, has_buckets), buckets = reduces && !parallel;
  const char *fsdp = "with --strategy zero2, fsdp or hsdp (FSDP's units)";
  const char *fsdp_bwd = "with --strategy fsdp or hsdp (the units gathered again in backward)";
  const char *ddp = "with --strategy ddp or zero1 and no --tp or --pp (DDP's buckets and hooks)";
  const Applies applies[] = {
    { "--fsdp-unit", o->fsdp_unit != NULL, units, fsdp },
    { "--limit-all-gathers", given_limit, units, fsdp },
    { "--backward-prefetch", o->backward_prefetch != NULL, gathers, fsdp_bwd },
    { "--no-reshard-after-forward", o->no_reshard, gathers, fsdp_bwd },
    { "--bucket-cap-mb", o->bucket_cap != NULL, buckets, ddp },
    { "--first-bucket-mb", o->first_bucket != NULL, buckets, ddp },
    { "--compress", o->compress != NULL, buckets, ddp },
    { "--no-overlap", o->no_overlap, reduces, "with --strategy ddp or zero1 (their gradients reduced in backward)" },
    { "--grad-as-bucket-view", o->grad_as_bucket_view, buckets, ddp },
    { "--find-unused", o->find_unused, buckets, ddp },
    { "--vpp", given_vpp && o->vpp != 1, o->pp > 1, "with --pp 2 or more (a stage's virtual stages)" },
    { "--pp-schedule", o->pp_schedule != NULL, o->pp > 1, "with --pp 2 or more" },
    { "--pp-embedding-slots", o->pp_end_slots, o->pp > 1, "with --pp 2 or more" },
    { "--micro-batches", given_micro, parallel, "with --tp or --pp 2 or more (without them: --grad-accum)" },
    { "--dtype", o->dtype != NULL && c->compute.fp8, c->compute.dtype == DPS_DTYPE_BF16,
      "bf16 with --precision fp8 (its kernels besides the FP8 GEMMs run in bf16)" },
  };
  if (!check_applies (applies, G_N_ELEMENTS (applies), error))
    return FALSE;
  if (o->grad_accum && given_micro) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--grad-accum and --micro-batches: under --tp or --pp both count "
                 "a replica's micro-steps; give one");
    return FALSE;
  }
  /* against every strategy the options serve (a sweep's list, advise's
   * plans), not the first alone */
  if (o->fp8_all_gather && (!c->compute.fp8 || !gathers)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--fp8-all-gather: with --precision fp8 and a strategy that "
                 "gathers parameters (fsdp, hsdp)");
    return FALSE;
  }
  if (o->overlap_param_gather && (!(mask & (1u << DPS_STRATEGY_ZERO1)) || !parallel)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                 "--overlap-param-gather: only with --strategy zero1 and --tp or --pp 2 or more (Megatron's distributed optimizer)");
    return FALSE;
  }
  if (o->accum_no_sync && (!units || parallel)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--accum-no-sync: only with --strategy zero2, fsdp or hsdp and no "
                 "--tp or --pp (DDP's and ZeRO-1's micro-steps before the last already run under no_sync)");
    return FALSE;
  }
  c->shard_group = o->shard_group;
  c->limit_all_gathers = o->limit_all_gathers;
  if (o->shard_group > 0 && !(mask & (1u << DPS_STRATEGY_HSDP))) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--shard-group: only with --strategy hsdp");
    return FALSE;
  }
  c->no_overlap = o->no_overlap;
  c->find_unused = o->find_unused;
  c->grad_as_bucket_view = o->grad_as_bucket_view;
  c->fp8_all_gather = o->fp8_all_gather;
  c->checkpoint = o->checkpoint;
  c->contention = o->contention;
  c->jitter_cv = o->jitter;
  c->gpu_spread_cv = o->gpu_spread;
  c->slow_replicas = o->slow_replicas;
  c->slow_factor = o->slow_factor > 0 ? o->slow_factor : 1.5;
  c->os_noise_s = o->os_noise_ms * 1e-3;
  c->trials = o->trials > 0 ? o->trials : (o->jitter > 0 || o->os_noise_ms > 0 ? 20 : 1);
  c->seed = (guint64) o->seed;
  c->long_ok = o->yes;
  c->loader_samples_per_s = o->loader_rate;
  c->critical_batch = o->critical_batch;
  c->steps_to_target = o->steps_to_target;
  c->price_per_gpu_hour = o->price;
  if (o->efficiency > 0)
    c->compute.efficiency = o->efficiency;
  return TRUE;
}
