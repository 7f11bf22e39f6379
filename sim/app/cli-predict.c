/* cli-predict.c — `dpscale predict`: one DDP configuration, its step time
 * and breakdown, efficiency, throughput, memory and cost. */
#include "sim/app/cli.h"
#include "sim/app/cli-ddp.h"
#include "sim/app/step-plot.h"
#include "sim/base/error.h"
#include "sim/base/progress.h"
#include "sim/base/file.h"

#include "sim/base/json-util.h"
#include <math.h>
#include <stdio.h>

static gboolean
single (const char *flag, const char *text, double lo, double hi, double *out, GError **error)
{
  if (!text)
    return TRUE;
  double v;
  if (!dps_parse_double (text, &v) || v < lo || v > hi) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: '%s' is not a number from %.10g to %.10g", flag, text, lo, hi);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

/* --plot's file: a picture gnuplot writes, .png or .svg. */
static gboolean
plot_kind (const char *path, GError **error)
{
  DpsOutputKind kind = { 0 };
  if (!dps_output_kind (path, "--plot", &kind, error))
    return FALSE;
  if (!g_str_has_suffix (path, ".png") && !g_str_has_suffix (path, ".svg")) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "--plot: '%s' is not a .png or .svg file", path);
    return FALSE;
  }
  return TRUE;
}

static char *
gb (double bytes)
{
  return g_strdup_printf ("%.1f", bytes / 1e9);
}

static void
emit_table (GString *o, const DpsDdpConfig *c, const DpsDdpResult *r)
{
  const DpsModel *m = c->model;
  const DpsTopoSpec *s = dps_topo_spec (c->topo);
  int nodes = dps_topo_n_nodes (c->topo);
  g_string_append_printf (o, "dpscale predict: %s on %d x %s (%d node%s of %s), %s network\n\n", m->name,
                          c->n_gpus, s->gpu.model, nodes, nodes > 1 ? "s" : "", s->name,
                          c->mode == DPS_MODE_FLOW ? "flow-level" : "analytical");
  g_autofree char *tokens = m->seq_len ? g_strdup_printf ("; %d tokens per sample", m->seq_len) : g_strdup ("");
  if (m->heads > 0) {
    char *t = g_strdup_printf ("%s, attention %s", tokens,
                               !c->flash_attention ? "eager (score matrices kept)"
                               : c->attention_kernel == DPS_FUSED_CUDNN ? "fused by cuDNN"
                               : "fused by FlashAttention-2");
    g_free (tokens);
    tokens = t;
  }
  /* billions from one up, else millions: a small MLP is 4.2 M, not 0.004 B */
  gboolean billions = m->n_params >= 1e9;
  g_string_append_printf (o, "  model          %.*f %s parameters in %d tensors, %d layers%s\n", billions ? 3 : 1,
                          m->n_params / (billions ? 1e9 : 1e6), billions ? "B" : "M", dps_model_n_tensors (m),
                          dps_model_n_layers (m), tokens);
  if (r->tp > 1 || r->pp > 1)
    g_string_append_printf (o, "  batch          %g a micro-batch x %d micro-batches x %d replica%s = %g samples per step\n",
                            r->batch_per_replica, r->micro_batches, r->dp, r->dp > 1 ? "s" : "", r->global_batch);
  else
    g_string_append_printf (o, "  batch          %g per replica x %d replica%s x %d micro-step%s = %g samples per step (%s scaling)\n",
                            r->batch_per_replica, r->replicas, r->replicas > 1 ? "s" : "", c->grad_accum,
                            c->grad_accum > 1 ? "s" : "", r->global_batch, c->global_batch > 0 ? "strong" : "weak");
  static const char *const schedules[] = { "GPipe", "1F1B", "interleaved 1F1B" };
  g_autofree char *vstages = r->vpp > 1 ? g_strdup_printf (" (%d virtual stages each)", r->vpp) : g_strdup ("");
  /* a schedule only where there is a pipeline */
  g_autofree char *sched = r->pp > 1 ? g_strdup_printf ("%s over %d micro-batches", schedules[c->pipe_schedule], r->micro_batches)
                                     : g_strdup_printf ("%d micro-batch%s", r->micro_batches, r->micro_batches == 1 ? "" : "es");
  if (r->tp > 1 || r->pp > 1)
    g_string_append_printf (o, "  layout         tp %d x pp %d x dp %d%s, ranks %s, %s%s%s%s; %s, %.2f GB sent per step\n\n",
                            r->tp, r->pp, r->dp, vstages, dps_rank_order_name (c->rank_order), sched,
                            c->sequence_parallel ? ", sequence parallel" : "",
                            c->tp_comm_overlap ? " (its collectives beside the GEMMs)" : "",
                            r->strategy == DPS_STRATEGY_ZERO1 && r->dp > 1
                              ? (c->overlap_param_gather ? ", zero1: gradients reduce-scattered, each layer's parameters "
                                                           "all-gathered before its first forward"
                                                         : ", zero1: gradients reduce-scattered, parameters all-gathered "
                                                           "before a stage's first forward")
                              : "",
                            r->tp > dps_topo_gpus_per_node (c->topo) ? "tensor parallel ACROSS nodes"
                            : "tensor parallel inside a node", r->comm_bytes / 1e9);
  else if (r->strategy == DPS_STRATEGY_DDP)
    g_string_append_printf (o, "  buckets        %d (cap %.3g MiB, first %.3g MiB), %.2f GB all-reduced per step\n\n",
                            r->n_buckets, c->bucket_cap_bytes / 1048576, c->first_bucket_bytes / 1048576, r->comm_bytes / 1e9);
  else if (r->strategy == DPS_STRATEGY_ZERO1)
    g_string_append_printf (o, "  strategy       zero1: optimizer state in shards of 1/%d; %d buckets all-reduced, the parameters "
                            "all-gathered; %.2f GB per step\n\n", r->shards, r->n_buckets, r->comm_bytes / 1e9);
  else
    g_string_append_printf (o, "  strategy       %s (%s): shards of 1/%d, %d wrapped unit%s and the root; %.2f GB gathered and "
                            "reduced per step%s\n\n", dps_strategy_name (r->strategy), dps_strategy_pytorch_name (r->strategy),
                            r->shards, r->n_units, r->n_units == 1 ? "" : "s", r->comm_bytes / 1e9,
                            r->offload == DPS_OFFLOAD_PARAMS ? "; parameters, gradients and optimizer offloaded to the host"
                            : r->offload == DPS_OFFLOAD_OPTIMIZER ? "; optimizer and gradients offloaded to the host" : "");
  if (c->compute_note[0]) {
    g_string_truncate (o, o->len - 1);
    g_string_append_printf (o, "  layers         %s\n\n", c->compute_note);
  }
  if (c->trials > 1)
    g_string_append_printf (o, "  step time      %9.2f ms   90%% interval %.2f to %.2f ms over %d trials\n",
                            r->step_mean_s * 1e3, r->step_p5_s * 1e3, r->step_p95_s * 1e3, c->trials);
  else
    g_string_append_printf (o, "  step time      %9.2f ms\n", r->step_mean_s * 1e3);
  g_string_append_printf (o, "    compute      %9.2f ms   forward + backward%s\n", r->compute_s * 1e3,
                          c->grad_accum > 1 ? " of every micro-step" : "");
  if (r->contention_s > 0)
    g_string_append_printf (o, "    contention   %9.2f ms   of compute: %.0f%% slower while %s overlap it\n",
                            r->contention_s * 1e3, 100 * r->contention, r->n_comms <= 1 ? "all-reduces" : "collectives");
  g_string_append_printf (o, "    stragglers   %9.2f ms   waiting for the slowest replica\n", r->straggler_s * 1e3);
  if (r->n_comms <= 1)
    g_string_append_printf (o, "    exposed comm %9.2f ms   of %.2f ms of all-reduce (%.0f%% hidden behind backward)\n",
                            r->exposed_comm_s * 1e3, r->comm_total_s * 1e3, r->overlap * 100);
  else {
    g_string_append_printf (o, "    exposed comm %9.2f ms   the compute waiting for collectives%s\n", r->exposed_comm_s * 1e3,
                            r->pp > 1 ? " (and the pipeline's bubble)" : "");
    for (int k = 0; k < r->n_comms; k++)
      if (r->comms[k].count > 0)
        g_string_append_printf (o, "      %-32s %9.2f ms in %g, %.2f ms exposed\n", r->comms[k].name,
                                r->comms[k].time_s * 1e3, r->comms[k].count, r->comms[k].exposed_s * 1e3);
  }
  if (r->bucket_copy_s + r->hooks_s > 0)
    g_string_append_printf (o, "    ddp overhead %9.2f ms   bucket copies %.2f ms at HBM bandwidth, per-tensor hooks' kernels %.2f ms more"
                            " (%.2f ms of both after the all-reduce)\n", (r->bucket_copy_s + r->hooks_s) * 1e3,
                            r->bucket_copy_s * 1e3, r->hooks_s * 1e3, r->copy_out_s * 1e3);
  g_string_append_printf (o, "    optimizer    %9.2f ms", r->optimizer_s * 1e3);
  if (r->opt_launch_s > 0)
    g_string_append_printf (o, "   of it %.2f ms launching its per-tensor kernels", r->opt_launch_s * 1e3);
  g_string_append_c (o, '\n');
  if (r->loader_bound_s > 0)
    g_string_append_printf (o, "    input wait   %9.2f ms   the data loader bounds the step\n", r->loader_bound_s * 1e3);
  double per_gpu = r->samples_per_s / r->replicas;   /* three figures, never an exponent */
  g_string_append_printf (o, "  throughput     %.1f samples/s (%.*f per GPU)", r->samples_per_s,
                          per_gpu >= 100 ? 0 : per_gpu >= 1 ? 2 : 3, per_gpu);
  if (m->seq_len)
    g_string_append_printf (o, ", %.0f tokens/s (%.0f per GPU)", r->tokens_per_s, r->tokens_per_s / r->replicas);
  g_string_append_c (o, '\n');
  /* above 100%: what one GPU does alone is divided (a sharded optimizer
   * step, 1/N of the whole on each), not a gain from nowhere */
  const char *why = r->efficiency > 1 && dps_strategy_shards_optimizer (r->strategy)
                    ? "; above 100%: each GPU steps 1/N of the optimizer" : "";
  if (r->tp > 1 || r->pp > 1)
    g_string_append_printf (o, "  scaling eff.   %.1f %%   against one GPU running the whole model (%.2f ms per step)%s\n",
                            r->efficiency * 100, r->single_step_s * 1e3, why);
  else
    g_string_append_printf (o, "  scaling eff.   %.1f %%   against one replica at the same batch (%.2f ms per step)%s\n",
                            r->efficiency * 100, r->single_step_s * 1e3, why);
  g_autofree char *t = gb (r->memory.total), *dev = gb (s->gpu.memory_bytes), *p = gb (r->memory.params),
                  *g = gb (r->memory.grads), *bk = gb (r->memory.buckets), *op = gb (r->memory.optimizer),
                  *a = gb (r->memory.activations), *ga = gb (r->memory.gathered);
  if (r->tp > 1 || r->pp > 1)
    g_string_append_printf (o, "  memory         %s GB per GPU of %s GB (the fullest stage): parameters %s, gradients %s, optimizer %s "
                            "(stage 0), activations and received tensors %s\n", t, dev, p, g, op, a);
  else if (r->strategy == DPS_STRATEGY_DDP)
    g_string_append_printf (o, "  memory         %s GB per replica of %s GB: parameters %s, gradients %s, buckets %s, optimizer %s, activations %s\n",
                            t, dev, p, g, bk, op, a);
  else
    g_string_append_printf (o, "  memory         %s GB per rank of %s GB: parameters %s, gradients %s, optimizer %s (%s), "
                            "activations %s, gathered parameters and gradients %s\n", t, dev, p, g, op,
                            r->strategy == DPS_STRATEGY_ZERO1 ? "its shard" : "their shards", a, ga);
  if (dps_ddp_no_sync_acts (c))
    g_string_append (o, "                 under no_sync: each unit's unsharded gradients accumulated in the reduction's type "
                        "(in the gathered), its shard made by the last micro-step's reduce-scatter\n");
  if (r->memory.host > 0) {
    g_autofree char *h = gb (r->memory.host);
    g_string_append_printf (o, "                 and %s GB in host memory (offloaded shards)\n", h);
  }
  if (r->memory.context > 0) {
    /* what nvidia-smi would show, where the plan runs at all */
    g_autofree char *cx = gb (r->memory.context), *smi = gb (dps_memory_smi_bytes (&r->memory));
    g_autofree char *shown = dps_memory_device_bytes (&r->memory) <= s->gpu.memory_bytes
                             ? g_strdup_printf ("; nvidia-smi would show about %s GB (the caching allocator's cached "
                                                "blocks too)", smi)
                             : g_strdup ("");
    g_string_append_printf (o, "                 and %s GB of CUDA context beside them%s\n", cx, shown);
  }
  g_string_append_printf (o, "                 peak as '%s' starts, %.2f ms into the step; %s precision%s\n", r->peak_task,
                          r->peak_at_s * 1e3, c->precision == DPS_PRECISION_BF16 ? "bf16 parameters with an fp32 master copy"
                          : c->precision == DPS_PRECISION_BF16_DEEPSPEED
                            ? "bf16 parameters with an fp32 master copy, bf16 gradients kept (DeepSpeed's BF16_Optimizer)"
                          : c->precision == DPS_PRECISION_PURE_BF16 ? "bf16 parameters and optimizer states (no master copy)"
                                              : c->compute.dtype == DPS_DTYPE_FP32 ? "fp32" : "torch.autocast (fp32 parameters)",
                          c->compute.dtype == DPS_DTYPE_FP32 ? "" : c->compute.fp8 ? ", FP8 GEMMs, bf16 elsewhere"
                          : c->compute.dtype == DPS_DTYPE_FP16 ? ", fp16 compute"
                          : c->compute.dtype == DPS_DTYPE_TF32 ? ", tf32 compute" : ", bf16 compute");
  if (!r->host_fits) {
    int per_host = dps_topo_spec_host_gpus (s, r->replicas);
    g_autofree char *need = gb (r->memory.host * per_host), *have = gb (s->host_mem_bytes);
    g_string_append_printf (o, "  WARNING        does not fit in host memory: %s GB offloaded by a host's %d GPUs, it has %s GB\n",
                            need, per_host, have);
  }
  if (dps_memory_device_bytes (&r->memory) > s->gpu.memory_bytes) {
    g_autoptr (GString) what = g_string_new (NULL);
    if (!c->checkpoint && dps_model_kept_act_bytes (m, FALSE, TRUE) < dps_model_kept_act_bytes (m, FALSE, FALSE))
      g_string_append (what, ", --checkpoint");
    if (!c->flash_attention && m->heads)
      g_string_append (what, ", --flash-attention");
    if (r->strategy != DPS_STRATEGY_FSDP && r->strategy != DPS_STRATEGY_HSDP)
      g_string_append (what, ", --strategy fsdp");
    if (r->batch_per_replica > 1)
      g_string_append (what, ", a smaller --batch");
    if (r->memory.buckets > 0)
      g_string_append (what, ", --grad-as-bucket-view");
    if (r->offload != DPS_OFFLOAD_PARAMS && dps_strategy_shards_params (r->strategy) && s->host_mem_Bps > 0)
      g_string_append (what, ", --offload params");
    g_autofree char *need = gb (dps_memory_device_bytes (&r->memory));
    g_string_append_printf (o, "  WARNING        does not fit: %s GB needed, the %s has %s GB (try %s; dpscale advise searches them)\n",
                            need, s->gpu.model, dev, what->len ? what->str + 2 : "a larger device");
  }
  g_string_append (o, "  collectives   ");
  for (int a2 = 0; a2 < DPS_ALGO_COUNT; a2++)
    if (r->algo_count[a2])
      g_string_append_printf (o, " %s x %d", dps_algo_name (a2), r->algo_count[a2]);
  g_string_append (o, " (");
  gboolean first = TRUE;
  for (int q = 0; q < DPS_PROTO_COUNT; q++)
    if (r->proto_count[q]) {
      g_string_append_printf (o, "%s%s x %d", first ? "" : ", ", dps_proto_name (q), r->proto_count[q]);
      first = FALSE;
    }
  g_string_append (o, ")\n");
  if (c->price_per_gpu_hour > 0)
    g_string_append_printf (o, "  cost           $%.4f per step, $%.2f per million samples at $%.2f per GPU-hour\n",
                            r->cost_per_step, r->cost_per_msample, c->price_per_gpu_hour);
  if (r->steps_to_target > 0) {
    g_string_append_printf (o, "  to target      %.0f steps, %.2f h", r->steps_to_target, r->time_to_target_s / 3600);
    if (c->price_per_gpu_hour > 0)
      g_string_append_printf (o, ", $%.0f", r->cost_to_target);
    g_string_append (o, "\n");
  }
}

static const char *const csv_header =
  "model,topology,gpus,nodes,batch_per_replica,global_batch,grad_accum,bucket_cap_MiB,buckets,"
  "step_s,step_p5_s,step_p95_s,compute_s,straggler_s,exposed_comm_s,comm_total_s,optimizer_s,"
  "overlap,efficiency,single_step_s,samples_per_s,tokens_per_s,memory_bytes,fits,cost_per_step_usd,"
  "steps_to_target,time_to_target_s,price_per_gpu_hour_usd,cost_per_msample_usd,cost_to_target_usd,strategy,tp,pp\n";

void dps_predict_csv_row (GString *o, const DpsDdpConfig *c, const DpsDdpResult *r);

static char *
csv_safe (const char *s)
{
  char *t = g_strdup (s);
  g_strdelimit (t, ",\"\n", ';');
  return t;
}

/* One CSV row (the columns of csv_header); names lose their commas.
 * Numbers as dps_csv_num writes them (bytes and counts whole); the cost
 * is empty without a price, the steps and time to target without a target,
 * tokens per second for a model without tokens. */
void
dps_predict_csv_row (GString *o, const DpsDdpConfig *c, const DpsDdpResult *r)
{
  g_autofree char *mn = csv_safe (c->model->name), *tn = csv_safe (dps_topo_spec (c->topo)->name);
  g_string_append_printf (o, "%s,%s,%d,%d", mn, tn, c->n_gpus, dps_topo_n_nodes (c->topo));
  gboolean target = r->steps_to_target > 0;
  const struct { double v; gboolean have; } f[] = {
    { r->batch_per_replica, TRUE }, { r->global_batch, TRUE }, { c->grad_accum, TRUE },
    { c->bucket_cap_bytes / 1048576, TRUE }, { r->n_buckets, TRUE }, { r->step_mean_s, TRUE },
    { r->step_p5_s, TRUE }, { r->step_p95_s, TRUE }, { r->compute_s, TRUE }, { r->straggler_s, TRUE },
    { r->exposed_comm_s, TRUE }, { r->comm_total_s, TRUE }, { r->optimizer_s, TRUE }, { r->overlap, TRUE },
    { r->efficiency, TRUE }, { r->single_step_s, TRUE }, { r->samples_per_s, TRUE },
    { r->tokens_per_s, c->model->seq_len > 0 }, { round (r->memory.total), TRUE }, { r->fits, TRUE },
    { r->cost_per_step, c->price_per_gpu_hour > 0 }, { r->steps_to_target, target },
    { r->time_to_target_s, target }, { c->price_per_gpu_hour, c->price_per_gpu_hour > 0 },
    { r->cost_per_msample, c->price_per_gpu_hour > 0 }, { r->cost_to_target, target && c->price_per_gpu_hour > 0 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (f); i++) {
    g_string_append_c (o, ',');
    dps_csv_num (o, f[i].v, f[i].have);
  }
  g_string_append_printf (o, ",%s,%d,%d\n", dps_strategy_name (r->strategy), MAX (c->tp, 1), MAX (c->pp, 1));
}

const char *dps_predict_csv_header (void);

const char *
dps_predict_csv_header (void)
{
  return csv_header;
}

static void
emit_json (GString *o, const DpsDdpConfig *c, const DpsDdpResult *r)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  dps_json_str (b, "model", c->model->name);
  dps_json_int (b, "parameters", c->model->n_params);
  dps_json_str (b, "topology", dps_topo_spec (c->topo)->name);
  dps_json_int (b, "gpus", c->n_gpus);
  dps_json_int (b, "nodes", dps_topo_n_nodes (c->topo));
  dps_json_num (b, "batch_per_replica", r->batch_per_replica);
  dps_json_num (b, "global_batch", r->global_batch);
  dps_json_int (b, "grad_accum", c->grad_accum);
  dps_json_int (b, "buckets", r->n_buckets);
  dps_json_num (b, "comm_bytes", r->comm_bytes);
  dps_json_num (b, "step_s", r->step_mean_s);
  dps_json_num (b, "step_p5_s", r->step_p5_s);
  dps_json_num (b, "step_p95_s", r->step_p95_s);
  dps_json_int (b, "trials", c->trials);
  dps_json_num (b, "compute_s", r->compute_s);
  dps_json_num (b, "straggler_s", r->straggler_s);
  dps_json_num (b, "exposed_comm_s", r->exposed_comm_s);
  dps_json_num (b, "comm_total_s", r->comm_total_s);
  dps_json_num (b, "optimizer_s", r->optimizer_s);
  dps_json_num (b, "optimizer_launch_s", r->opt_launch_s);
  dps_json_num (b, "bucket_copy_s", r->bucket_copy_s);
  dps_json_num (b, "hooks_s", r->hooks_s);
  dps_json_num (b, "contention_s", r->contention_s);
  dps_json_num (b, "overlap", r->overlap);
  dps_json_num (b, "efficiency", r->efficiency);
  dps_json_num (b, "single_step_s", r->single_step_s);
  dps_json_num (b, "samples_per_s", r->samples_per_s);
  dps_json_num (b, "tokens_per_s", r->tokens_per_s);
  json_builder_set_member_name (b, "memory_bytes");
  json_builder_begin_object (b);
  dps_json_num (b, "parameters", r->memory.params);
  dps_json_num (b, "gradients", r->memory.grads);
  dps_json_num (b, "buckets", r->memory.buckets);
  dps_json_num (b, "optimizer", r->memory.optimizer);
  dps_json_num (b, "activations", r->memory.activations);
  dps_json_num (b, "gathered", r->memory.gathered);
  dps_json_num (b, "total", r->memory.total);
  dps_json_num (b, "host", r->memory.host);
  dps_json_num (b, "cuda_context", r->memory.context);
  dps_json_num (b, "nvidia_smi", dps_memory_smi_bytes (&r->memory));
  json_builder_end_object (b);
  dps_json_str (b, "strategy", dps_strategy_name (r->strategy));
  dps_json_str (b, "attention", dps_attention_name (c->flash_attention, c->attention_kernel));
  dps_json_str (b, "offload", dps_offload_name (r->offload));
  dps_json_int (b, "shards", r->shards);
  if (dps_strategy_shards_grads (r->strategy) && r->tp <= 1 && r->pp <= 1) {
    /* the sharded strategies' own settings, as run */
    json_builder_set_member_name (b, "fsdp");
    json_builder_begin_object (b);
    dps_json_str (b, "unit", dps_fsdp_unit_name (c->fsdp_unit));
    dps_json_bool (b, "reshard_after_forward", c->reshard_after_forward && r->strategy != DPS_STRATEGY_ZERO2);
    dps_json_str (b, "backward_prefetch", dps_prefetch_name (c->backward_prefetch));
    dps_json_int (b, "limit_all_gathers", c->limit_all_gathers);
    dps_json_bool (b, "accum_no_sync", dps_ddp_no_sync_acts (c));
    json_builder_end_object (b);
  }
  if (r->tp > 1 || r->pp > 1) {
    json_builder_set_member_name (b, "layout");
    json_builder_begin_object (b);
    dps_json_int (b, "tp", r->tp);
    dps_json_int (b, "pp", r->pp);
    dps_json_int (b, "vpp", r->vpp);
    dps_json_int (b, "dp", r->dp);
    dps_json_int (b, "micro_batches", r->micro_batches);
    dps_json_str (b, "rank_order", dps_rank_order_name (c->rank_order));
    static const char *const schedules[] = { "gpipe", "1f1b", "interleaved" };
    dps_json_str (b, "schedule", schedules[r->pp > 1 ? c->pipe_schedule : 0]);
    dps_json_bool (b, "sequence_parallel", c->sequence_parallel && r->tp > 1);
    dps_json_bool (b, "tp_comm_overlap", c->tp_comm_overlap && c->sequence_parallel && r->tp > 1);
    dps_json_bool (b, "overlap_param_gather", c->overlap_param_gather);
    json_builder_end_object (b);
  }
  json_builder_set_member_name (b, "collectives");
  json_builder_begin_array (b);
  for (int k = 0; k < r->n_comms; k++) {
    json_builder_begin_object (b);
    dps_json_str (b, "name", r->comms[k].name);
    dps_json_num (b, "count", r->comms[k].count);
    dps_json_num (b, "time_s", r->comms[k].time_s);
    dps_json_num (b, "exposed_s", r->comms[k].exposed_s);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  dps_json_str (b, "memory_peak_task", r->peak_task);
  dps_json_num (b, "memory_peak_at_s", r->peak_at_s);
  dps_json_bool (b, "fits", r->fits);
  dps_json_num (b, "cost_per_step_usd", r->cost_per_step);
  dps_json_num (b, "cost_per_million_samples_usd", r->cost_per_msample);
  dps_json_num (b, "steps_to_target", r->steps_to_target);
  dps_json_num (b, "time_to_target_s", r->time_to_target_s);
  dps_json_num (b, "cost_to_target_usd", r->cost_to_target);
  json_builder_end_object (b);
  dps_json_append (o, b);
}

int
dps_cmd_predict (int argc, char **argv)
{
  DpsDdpOpts o = { 0 };
  g_autofree GOptionEntry *entries = dps_ddp_options (&o, FALSE);
  GError *error = NULL;
  int status = 0;
  dps_cli_deprecated ("predict", dps_cli_nodes_alias, argc, argv);
  if (!dps_cli_parse ("predict", "With no options: GPT-2 XL on 64 H100 GPUs (8 DGX H100 nodes), Adam, flow-level\n"
                      "network model.\n\n"
                      "Example: dpscale predict --model resnet50 --topology dgx-a100 --gpus 32 --batch 64",
                      entries, &argc, &argv, &error)) {
    dps_ddp_opts_clear (&o);
    return dps_cli_fail ("predict", error);
  }
  DpsDdpConfig c;
  dps_ddp_config_default (&c);
  c.mode = DPS_CLI_NET_MODE;
  double gpus = 0, batch = 4, cap = 25, accum = 1;
  DpsFormat format;
  g_autoptr (DpsModel) model = NULL;
  g_autoptr (DpsTopo) topo = NULL;
  g_autoptr (DpsProfile) profile = NULL;
  DpsDdpResult r = { 0 };
  if (argc > 1)
    g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "unknown option: unexpected argument '%s'", argv[1]);
  else if (single ("--gpus", o.gpus, 1, DPS_SIM_MAX_GPUS, &gpus, &error)
           && (!o.batch || dps_cli_range_parse ("--batch", o.batch, &batch, &error))
           && (!o.bucket_cap || dps_cli_range_parse ("--bucket-cap-mb", o.bucket_cap, &cap, &error))
           && (!o.grad_accum || dps_cli_range_parse ("--grad-accum", o.grad_accum, &accum, &error))
           && dps_cli_format (o.format, &format, &error)
           && dps_ddp_opts_apply (&o, &c, &error)
           && (!o.output || g_str_equal (o.output, "-") || dps_output_kind (o.output, "-o", &(DpsOutputKind){ 0 }, &error))
           && (!o.trace || dps_output_kind (o.trace, "--trace", &(DpsOutputKind){ 0 }, &error))
           && (!o.plot || plot_kind (o.plot, &error))) {
    if (gpus != floor (gpus) || accum != floor (accum))
      g_set_error (&error, DPS_ERROR, DPS_ERROR_INPUT, "--gpus and --grad-accum take whole numbers");
    else if ((!o.calibration || (profile = dps_profile_load (o.calibration, &error)))
             && (model = dps_ddp_model_load (&o, "gpt2-xl", &error))) {
      if (!o.gpus && !o.nodes)
        gpus = profile && !o.topology && profile->machine_ranks ? profile->machine_ranks : 64;
      if (dps_ddp_setup (o.topology, profile, model, o.nodes, (int) gpus, &c, &topo, &error)) {
        c.batch = c.global_batch > 0 ? batch : dps_ddp_default_batch (model, o.batch != NULL, batch, 4);
        c.bucket_cap_bytes = cap * 1024 * 1024;
        c.grad_accum = (int) accum;
        c.trace_replicas = o.trace ? 8 : o.plot ? 4 : 0;
        dps_progress_begin ("predict");
        dps_ddp_simulate (&c, &r, &error);
        dps_progress_end ();
      }
    }
  }
  if (!error) {
    g_autoptr (GString) out = g_string_new (NULL);
    if (format == DPS_FORMAT_TABLE)
      emit_table (out, &c, &r);
    else if (format == DPS_FORMAT_CSV) {
      g_string_append (out, csv_header);
      dps_predict_csv_row (out, &c, &r);
    } else
      emit_json (out, &c, &r);
    g_autofree char *title = o.plot ? g_strdup_printf ("%s on %d x %s: one step, %.2f ms", model->name, c.n_gpus,
                                                        dps_topo_spec (topo)->gpu.model, r.step_mean_s * 1e3) : NULL;
    if (o.trace && !dps_ddp_write_trace (&r, o.trace, &error))
      ;
    else if (o.plot && !dps_step_plot (&r, o.plot, title, dps_topo_spec (topo)->gpu.memory_bytes, &error))
      ;
    else
      dps_cli_emit (o.output, out, &error);
    if (!error && model->note)   /* what a trace loader used and left out */
      fprintf (stderr, "dpscale predict: note: %s\n", model->note);
    if (!error && c.accum_no_sync && !dps_ddp_no_sync_acts (&c))   /* the flag's others refused in dps_ddp_opts_apply */
      fprintf (stderr, "dpscale predict: note: --accum-no-sync changes nothing without --grad-accum 2 or more\n");
    if (!error && !r.fits)
      fprintf (stderr, "dpscale predict: warning: %.1f GB per replica does not fit the %.0f GB of the %s\n",
               dps_memory_device_bytes (&r.memory) / 1e9, dps_topo_spec (topo)->gpu.memory_bytes / 1e9, dps_topo_spec (topo)->gpu.model);
  }
  dps_ddp_result_clear (&r);
  dps_ddp_opts_clear (&o);
  if (error)
    status = dps_cli_fail ("predict", error);
  return status;
}
