/* ddp.c — see ddp.h for the model: the defaults, what a replica computes,
 * DDP's own costs, and DDP's (and ZeRO-1's) program; the sharded
 * strategies' program is in ddp-shard.c, the runs in ddp-run.c. */
#include "sim/ddp-program.h"
#include "sim/buckets.h"
#include "sim/base/error.h"

#include <math.h>
#include <string.h>

/* Defaults: those of PyTorch DDP, and a job training with torch.autocast
 * (fp32 parameters, bf16 compute) and Adam; FSDP's defaults for the
 * sharded strategies (a transformer block a unit, BACKWARD_PRE, the rate
 * limiter's 2 gathers ahead). */
void
dps_ddp_config_default (DpsDdpConfig *c)
{
  memset (c, 0, sizeof *c);
  dps_tune_params_nccl (&c->coll);
  c->algo_mask = DPS_NCCL_ALGOS;
  c->proto_mask = DPS_ALL_PROTOS;
  c->mode = DPS_MODE_ANALYTICAL;
  dps_compute_params_default (&c->compute);
  c->batch = 8;
  c->bucket_cap_bytes = 25.0 * 1024 * 1024;
  c->first_bucket_bytes = 1.0 * 1024 * 1024;
  c->grad_dtype = DPS_DTYPE_FP32;
  c->powersgd_rank = 1;
  c->grad_accum = 1;
  c->precision = DPS_PRECISION_AMP;
  c->optimizer = DPS_OPT_ADAM;
  c->slow_factor = 1;
  c->gpu_spread_cv = DPS_DDP_GPU_SPREAD_CV;
  c->trials = 1;
  c->seed = 1;
  c->trace_replicas = 8;
  c->contention = -1;
  c->contention_comm = -1;
  c->strategy = DPS_STRATEGY_DDP;
  c->fsdp_unit = DPS_FSDP_UNIT_BLOCK;
  c->reshard_after_forward = TRUE;
  c->limit_all_gathers = 2;
  c->backward_prefetch = DPS_PREFETCH_PRE;
  c->tp = c->pp = c->vpp = 1;
  c->pipe_schedule = DPS_PIPE_1F1B;
}

/* What NCCL's all-reduce kernels take from backward while they overlap
 * it, on the topology's GPU: the SMs they hold (nccl_sms of sm_count,
 * sim/device.c) from its compute-bound kernels, and the HBM traffic they
 * make from its memory-bound ones.  A ring all-reduce at bus bandwidth B
 * reads its chunk, writes the incoming one and reads it back to reduce:
 * about 3 B of HBM traffic, B the GPU's share of its slowest level (its
 * NVLink inside a node, its NICs across nodes).  Weighted by the share of
 * backward each kind of kernel takes (the compute model's split):
 *   contention = sms_share x (1 - mem_share) + 3 B / HBM x mem_share.
 * 0 for a device dpscale has no figures for (CPU ranks: their contention
 * is measured by dpscale calibrate and given by the profile). */
double
dps_ddp_default_contention (const DpsDdpConfig *c, double batch)
{
  return dps_ddp_group_contention (c, batch, c->n_gpus, c->n_gpus > dps_topo_spec (c->topo)->gpus_per_node);
}

gboolean
dps_ddp_no_sync_acts (const DpsDdpConfig *c)
{
  return c->accum_no_sync && c->grad_accum > 1 && dps_strategy_shards_grads (c->strategy) && c->tp <= 1
         && c->pp <= 1;
}

int
dps_ddp_micro_steps (const DpsDdpConfig *c)
{
  int pp = MAX (1, c->pp);
  if (c->tp <= 1 && pp <= 1)
    return c->grad_accum;
  return c->micro_batches > 0 ? c->micro_batches : pp > 1 ? MAX (c->grad_accum, 4 * pp) : c->grad_accum;
}

/* As dps_ddp_default_contention, for the collectives of a group of ranks
 * GPUs that spans nodes or not (a sharded group's all-gathers, an HSDP
 * replicate group's all-reduces). */
double
dps_ddp_group_contention (const DpsDdpConfig *c, double batch, int ranks, gboolean spans_nodes)
{
  const DpsTopoSpec *s = dps_topo_spec (c->topo);
  const DpsKnownDevice *k = dps_device_lookup (s->gpu.model);
  if (!k || ranks < 2)
    return 0;
  double sms = (double) k->nccl_sms / k->sm_count;
  double bus = dps_topo_gpu_intra_bw_Bps (c->topo);
  if (spans_nodes && s->n_nics > 0)
    bus = MIN (bus, s->nic_bw_Bps * s->n_nics / s->gpus_per_node);
  double hbm = MIN (1, 3 * bus / s->gpu.memory_bw_Bps);
  double mem = dps_compute_memory_bound_share (c->model, &s->gpu, &c->compute, batch);
  return sms * (1 - mem) + hbm * mem;
}

/* A kernel moving bytes on dev: its time at memory bandwidth, never under
 * the host's dispatch (the compute model's rule for every kernel). */
static double
kernel_s (const DpsDdpConfig *c, const DpsDeviceSpec *dev, double bytes, double *bw_part)
{
  double t = bytes / (dev->memory_bw_Bps * c->compute.mem_efficiency);
  *bw_part += t;
  return MAX (t, c->compute.dispatch_s);
}

/* Per-layer forward, backward and recompute seconds of one replica at
 * batch (the model's measured times, or the roofline on the topology's
 * device): checkpointing runs each checkpointed block's forward again
 * before its backward (recompute_s, may be NULL), and the optimizer step's
 * seconds: one kernel per parameter tensor (PyTorch's per-parameter loop;
 * foreach and fused optimizers group tensors and launch fewer) moving its
 * bytes at memory bandwidth, or the dispatch. */
static void
compute_times (const DpsDdpConfig *c, double batch, double *fwd_s, double *bwd_s, double *recompute_s, double *opt_s)
{
  const DpsDeviceSpec *dev = &dps_topo_spec (c->topo)->gpu;
  dps_compute_layer_times (c->model, dev, &c->compute, batch, fwd_s, bwd_s);
  for (int i = 0; recompute_s && i < dps_model_n_layers (c->model); i++)
    recompute_s[i] = c->checkpoint && g_array_index (c->model->layers, DpsLayer, i).input_bytes > 0 ? fwd_s[i] : 0;
  if (c->optimizer_s > 0) {
    *opt_s = c->optimizer_s;
    return;
  }
  double per_param = dps_optimizer_bytes_moved (c->optimizer, c->precision), bw = 0;
  *opt_s = 0;
  for (int i = 0; i < dps_model_n_tensors (c->model); i++)
    *opt_s += kernel_s (c, dev, dps_model_tensor (c->model, i)->numel * per_param, &bw);
}

/* As compute_times, the recompute counted in the backward: what a replica
 * computes, as emulated runs wait it. */
void
dps_ddp_compute_times (const DpsDdpConfig *c, double batch, double *fwd_s, double *bwd_s, double *opt_s)
{
  int L = dps_model_n_layers (c->model);
  double *rec = g_new (double, MAX (L, 1));
  compute_times (c, batch, fwd_s, bwd_s, rec, opt_s);
  for (int i = 0; i < L; i++)
    bwd_s[i] += rec[i];
  g_free (rec);
}

/* DDP's own work per step beyond compute and all-reduce (PyTorch's
 * Reducer, torch/csrc/distributed/c10d/reducer.cpp), at two replicas or
 * more and on a GPU dpscale has figures for (a CPU run's own costs are in
 * what calibration measures):
 *  - each parameter's autograd hook, as its gradient is ready in the last
 *    micro-step's backward, launches one kernel: it copies the gradient
 *    into its bucket dividing by the world size (mark_variable_ready_dense,
 *    at::mul_out), or divides it in place with gradient_as_bucket_view:
 *    read and write of its bytes either way, added to its layer's
 *    backward (bwd_extra_s, L seconds) so its bucket is ready later;
 *  - after the all-reduce, without gradient_as_bucket_view, one more per
 *    tensor copies the reduced bucket back into the gradient;
 *  - the optimizer's launches beyond its bytes (dps_ddp_compute_times).
 * Each kernel takes its bytes at memory bandwidth or the dispatch,
 * whichever is longer: out's bucket_copy_s is the bandwidth part, hooks_s
 * what the dispatch floor adds, copy_out_s the share after the all-reduce;
 * opt_launch_s what the optimizer's opt_s (dps_ddp_compute_times) takes
 * beyond its bytes. */
void
dps_ddp_fixed_costs (const DpsDdpConfig *c, double opt_s, double *bwd_extra_s, DpsDdpResult *out)
{
  const DpsModel *m = c->model;
  const DpsDeviceSpec *dev = &dps_topo_spec (c->topo)->gpu;
  memset (bwd_extra_s, 0, sizeof (double) * dps_model_n_layers (m));
  double per_param = dps_optimizer_bytes_moved (c->optimizer, c->precision), bw = 0;
  for (int i = 0; i < dps_model_n_tensors (m); i++)
    bw += dps_model_tensor (m, i)->numel * per_param / (dev->memory_bw_Bps * c->compute.mem_efficiency);
  out->opt_launch_s = c->optimizer_s > 0 ? 0 : MAX (0, opt_s - bw);
  out->bucket_copy_s = out->hooks_s = out->copy_out_s = 0;
  if (!c->reducer_copies && (c->n_gpus < 2 || !dps_device_lookup (dev->model)))
    return;
  int gb = dps_dtype_bytes (c->grad_dtype);
  double in_bw = 0, out_bw = 0, in_s = 0;
  for (int i = 0; i < dps_model_n_tensors (m); i++) {
    const DpsTensor *t = dps_model_tensor (m, i);
    double k = kernel_s (c, dev, 2.0 * t->numel * gb, &in_bw);
    bwd_extra_s[t->layer] += k;
    in_s += k;
    if (!c->grad_as_bucket_view)
      out->copy_out_s += kernel_s (c, dev, 2.0 * t->numel * gb, &out_bw);
  }
  out->bucket_copy_s = in_bw + out_bw;
  out->hooks_s = in_s + out->copy_out_s - out->bucket_copy_s;
}

/* Bytes all-reduced for a bucket after compression. */
static double
bucket_bytes (const DpsDdpConfig *c, const DpsBuckets *bk, const DpsBucket *b)
{
  int gb = dps_dtype_bytes (c->grad_dtype);
  if (c->compress == DPS_COMPRESS_FP16)
    return (double) b->numel * MIN (gb, 2);
  if (c->compress != DPS_COMPRESS_POWERSGD)
    return b->bytes;
  double elems = 0;
  for (int i = 0; i < b->n_tensors; i++) {
    const DpsTensor *t = dps_model_tensor (c->model, bk->order[b->first + i]);
    double low = (double) (t->rows + t->cols) * c->powersgd_rank;
    elems += (t->rows > 0 && low < t->numel) ? low : (double) t->numel;
  }
  return elems * gb;
}

/* The per-layer activation bytes at batch: what each forward saves (a
 * loss's log-probabilities too), what a checkpointed layer keeps (its
 * input), in the compute type, and what a loss's backward holds while it
 * runs (memory.h). */
static void
activation_bytes (const DpsDdpConfig *c, double batch, double *act, double *kept, double *hold)
{
  double scale = dps_dtype_bytes (c->compute.dtype) / 2.0 * batch, loss_kept, loss_held;
  dps_memory_loss_bytes (c->precision, c->compute.dtype, &loss_kept, &loss_held);
  for (int l = 0; l < dps_model_n_layers (c->model); l++) {
    const DpsLayer *layer = dps_model_layer (c->model, l);
    act[l] = (layer->act_bytes - (c->flash_attention ? layer->attn_act_bytes : 0)) * scale
             + layer->logits * loss_kept * batch;
    kept[l] = layer->input_bytes * scale;
    hold[l] = layer->logits * loss_held * batch;
  }
}

DpsCollCost *
dps_ddp_group_cost (const DpsDdpConfig *c, DpsCollOp op, int n_nodes, int per_node, double max_bytes, GError **error)
{
  DpsCollCtx ctx;
  if (!dps_coll_ctx_init_nodes (&ctx, c->topo, &c->coll, n_nodes, per_node, op, max_bytes, error))
    return NULL;
  ctx.siblings = MIN (c->n_gpus, dps_topo_gpus_per_node (c->topo)) / per_node;
  return dps_coll_cost_new_ctx (&ctx, c->algo_mask, c->proto_mask, c->mode, max_bytes, error);
}

/* The time of a collective of bytes on a group (cost: its DpsCollCost),
 * for the schedule's comm kinds. */
double
dps_ddp_comm_time (const void *cost, double bytes, double *lat_s, DpsAlgo *algo, DpsProto *proto)
{
  return dps_coll_cost_time_lat (cost, bytes, lat_s, algo, proto);
}

/* Fills in with c's per-layer times and activations at batch (clear it
 * with dps_ddp_inputs_clear). */
void
dps_ddp_inputs_init (const DpsDdpConfig *c, double batch, DpsDdpInputs *in)
{
  int L = dps_model_n_layers (c->model), L1 = MAX (L, 1);
  *in = (DpsDdpInputs) { .batch = batch, .n_layers = L };
  in->fwd_s = g_new (double, L1);
  in->bwd_s = g_new (double, L1);
  in->recompute_s = g_new (double, L1);
  in->act_bytes = g_new (double, L1);
  in->kept_bytes = g_new (double, L1);
  in->hold_bytes = g_new (double, L1);
  compute_times (c, batch, in->fwd_s, in->bwd_s, in->recompute_s, &in->optimizer_s);
  activation_bytes (c, batch, in->act_bytes, in->kept_bytes, in->hold_bytes);
}

void
dps_ddp_inputs_clear (DpsDdpInputs *in)
{
  g_clear_pointer (&in->fwd_s, g_free);
  g_clear_pointer (&in->bwd_s, g_free);
  g_clear_pointer (&in->recompute_s, g_free);
  g_clear_pointer (&in->act_bytes, g_free);
  g_clear_pointer (&in->kept_bytes, g_free);
  g_clear_pointer (&in->hold_bytes, g_free);
}

/* DeepSpeed's all-gather of the updated parameters after a sharded
 * optimizer step (ZeRO-1): chunks of allgather_bucket_size, 5e8 elements
 * by default (deepspeed/runtime/zero/config.py). */
#define ZERO_ALLGATHER_BUCKET_ELEMS 5e8

/* The program of DDP (and ZeRO-1: DDP's all-reduces, the optimizer on this
 * rank's 1/N of the state, then the updated parameters all-gathered) for c
 * at in's batch; fills out's DDP costs (dps_ddp_fixed_costs) and p. */
gboolean
dps_ddp_program_replicas (const DpsDdpConfig *c, const DpsDdpInputs *in, DpsDdpResult *out, DpsDdpProgram *p,
                          GError **error)
{
  const DpsModel *m = c->model;
  int N = c->n_gpus, L = in->n_layers;
  gboolean zero1 = c->strategy == DPS_STRATEGY_ZERO1;
  memset (p, 0, sizeof *p);
  p->shards = zero1 ? N : 1;
  g_autoptr (DpsBuckets) bk = dps_buckets_assign (m, c->bucket_cap_bytes, c->first_bucket_bytes,
                                                  dps_dtype_bytes (c->grad_dtype));
  int nb = dps_buckets_count (bk);
  g_autofree double *bbytes = g_new (double, MAX (nb, 1));
  g_autofree int *blayer = g_new (int, MAX (nb, 1));
  double max_bucket = 4.0 * dps_model_n_tensors (m);   /* the find_unused bitmap */
  for (int b = 0; b < nb; b++) {
    bbytes[b] = bucket_bytes (c, bk, dps_buckets_get (bk, b));
    blayer[b] = dps_buckets_get (bk, b)->ready_layer;
    p->comm_bytes += bbytes[b];
    max_bucket = MAX (max_bucket, bbytes[b]);
  }
  p->n_buckets = nb;
  double param_bytes = (double) m->n_params * dps_precision_param_bytes (c->precision);
  int n_gathers = zero1 && N > 1 ? (int) ceil ((double) m->n_params / ZERO_ALLGATHER_BUCKET_ELEMS) : 0;
  if (!(p->costs[0] = dps_coll_cost_new (c->topo, &c->coll, N, DPS_OP_ALLREDUCE, c->algo_mask, c->proto_mask, 0,
                                         c->mode, max_bucket, error)))
    return FALSE;
  if (n_gathers > 0
      && !(p->costs[1] = dps_coll_cost_new (c->topo, &c->coll, N, DPS_OP_ALLGATHER, c->algo_mask, c->proto_mask, 0,
                                            c->mode, param_bytes / n_gathers, error)))
    return FALSE;
  g_autofree double *extra = g_new (double, MAX (L, 1));
  dps_ddp_fixed_costs (c, in->optimizer_s, extra, out);
  dps_memory_static ((double) m->n_params, c->precision, c->grad_dtype, c->optimizer, c->grad_as_bucket_view,
                     c->strategy, p->shards, &p->fixed);
  p->optimizer_s = in->optimizer_s / p->shards;
  g_autofree double *gathers = g_new (double, MAX (n_gathers, 1));
  for (int i = 0; i < n_gathers; i++) {
    gathers[i] = param_bytes / n_gathers;
    p->comm_bytes += gathers[i];
  }
  double cc = c->contention_comm >= 0 ? c->contention_comm : c->contention;
  DpsDdpStep step = {
    .model = m, .grad_accum = c->grad_accum, .fwd_s = in->fwd_s, .bwd_s = in->bwd_s,
    .recompute_s = in->recompute_s, .copy_s = extra, .copy_out_s = out->copy_out_s, .optimizer_s = p->optimizer_s,
    .act_bytes = in->act_bytes, .kept_bytes = in->kept_bytes, .hold_bytes = in->hold_bytes, .static_bytes = p->fixed.total,
    .n_buckets = nb, .bucket_layer = blayer, .bucket_bytes = bbytes, .no_overlap = c->no_overlap,
    .unused_bitmap_bytes = c->find_unused ? 4.0 * dps_model_n_tensors (m) : 0,
    .allreduce = { "all-reduce", dps_ddp_comm_time, p->costs[0], c->contention, cc },
    .n_param_gathers = n_gathers, .param_gather_bytes = gathers,
    .allgather = { "all-gather", dps_ddp_comm_time, p->costs[1], c->contention, cc },
  };
  p->sched = dps_strategy_ddp (&step);
  return TRUE;
}

void
dps_ddp_program_clear (DpsDdpProgram *p)
{
  g_clear_pointer (&p->sched, dps_sched_free);
  for (int i = 0; i < DPS_DDP_MAX_COSTS; i++)
    g_clear_pointer (&p->costs[i], dps_coll_cost_free);
  g_clear_pointer (&p->host_link_Bps, g_free);
}
