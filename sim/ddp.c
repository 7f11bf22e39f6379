/* ddp.c — see ddp.h for the model. */
#include "sim/ddp.h"
#include "sim/buckets.h"
#include "sim/coll-cost.h"
#include "sim/strategy.h"
#include "sim/base/error.h"
#include "sim/base/stats.h"

#include <math.h>
#include <string.h>

/* Defaults: those of PyTorch DDP and a bf16 mixed-precision Adam job. */
void
dps_ddp_config_default (DpsDdpConfig *c)
{
  memset (c, 0, sizeof *c);
  dps_coll_params_nccl (&c->coll);
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
  c->mixed = TRUE;
  c->optimizer = DPS_OPT_ADAM;
  c->slow_factor = 1;
  c->gpu_spread_cv = DPS_DDP_GPU_SPREAD_CV;
  c->trials = 1;
  c->seed = 1;
  c->trace_replicas = 8;
  c->contention = -1;
  c->contention_comm = -1;
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
  const DpsTopoSpec *s = dps_topo_spec (c->topo);
  const DpsKnownDevice *k = dps_device_lookup (s->gpu.model);
  if (!k || c->n_gpus < 2)
    return 0;
  double sms = (double) k->nccl_sms / k->sm_count;
  double bus = dps_topo_gpu_intra_bw_Bps (c->topo);
  if (c->n_gpus > s->gpus_per_node && s->n_nics > 0)
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
  double per_param = dps_optimizer_bytes_moved (c->optimizer, c->mixed), bw = 0;
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
  double per_param = dps_optimizer_bytes_moved (c->optimizer, c->mixed), bw = 0;
  for (int i = 0; i < dps_model_n_tensors (m); i++)
    bw += dps_model_tensor (m, i)->numel * per_param / (dev->memory_bw_Bps * c->compute.mem_efficiency);
  out->opt_launch_s = c->optimizer_s > 0 ? 0 : MAX (0, opt_s - bw);
  out->bucket_copy_s = out->hooks_s = out->copy_out_s = 0;
  if (c->n_gpus < 2 || !dps_device_lookup (dev->model))
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

static double
gauss (GRand *rand)
{
  double u = g_rand_double_range (rand, 1e-12, 1), v = g_rand_double (rand);
  return sqrt (-2 * log (u)) * cos (2 * G_PI * v);
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

/* The data-parallel group's all-reduce, for the schedule. */
static double
allreduce_time (const void *data, double bytes, double *lat_s, DpsAlgo *algo, DpsProto *proto)
{
  return dps_coll_cost_time_lat (data, bytes, lat_s, algo, proto);
}

/* The ranks of one trial: every replica when anything is random (each its
 * own draws), else one rank for the normal replicas and one for the slow
 * ones, each timed as the slowest of the GPUs it stands for.  *n receives
 * their number; the array is new. */
static DpsSchedRank *
trial_ranks (const DpsDdpConfig *c, int replicas, GRand *rand, int *n)
{
  gboolean random = c->jitter_cv > 0 || c->os_noise_s > 0 || c->compute_cv > 0;
  int n_slow = MIN (c->slow_replicas, replicas);
  int distinct = random ? replicas : (n_slow > 0 && n_slow < replicas ? 2 : 1);
  DpsSchedRank *ranks = g_new0 (DpsSchedRank, distinct);
  for (int d = 0; d < distinct; d++) {
    /* random: replica d; otherwise rank 0 stands for the normal replicas
     * (the first is number n_slow) and rank 1 for the slow ones */
    int r = random ? d : (d == 0 && n_slow < replicas ? n_slow : 0);
    double weight = random ? 1 : (r >= n_slow ? replicas - n_slow : n_slow);
    double f = r < n_slow ? c->slow_factor : 1;
    if (c->compute_cv > 0)
      f *= MAX (0.2, 1 + c->compute_cv * gauss (rand));
    /* the GPUs' spread: a random factor per replica, or the slowest of the
     * rank's GPUs (its timeline, which the buckets wait for) against their
     * mean */
    double fm = f;
    if (c->gpu_spread_cv > 0 && random)
      fm = f *= MAX (0.2, 1 + c->gpu_spread_cv * gauss (rand));
    else if (c->gpu_spread_cv > 0)
      f *= 1 + c->gpu_spread_cv * dps_expected_max_normal (weight);
    double t0 = c->os_noise_s > 0 ? -c->os_noise_s * log (g_rand_double_range (rand, 1e-12, 1)) : 0;
    ranks[d] = (DpsSchedRank) { .role = 0, .weight = weight, .speed = f, .speed_mean = fm, .start_s = t0,
                                .trace = r < c->trace_replicas };
    ranks[d].groups[DPS_DDP_GROUP_SLOT] = 0;
  }
  *n = distinct;
  return ranks;
}

typedef struct {
  double step, compute, straggler, exposed, comm_total, contention;
} TrialOut;

static const DpsPart compute_parts[] = { DPS_PART_FORWARD, DPS_PART_BACKWARD, DPS_PART_RECOMPUTE, DPS_PART_COPY };

/* One trial on sched: its ranks drawn from rand; the breakdown in out.
 * With trace, the run's spans and memory are kept in res (cleared by the
 * caller) and its ranks in *ranks_out. */
static gboolean
trial (const DpsDdpConfig *c, const DpsSched *sched, int replicas, GRand *rand, gboolean trace, TrialOut *out,
       DpsSchedResult *res, DpsSchedRank **ranks_out, int *n_out, GError **error)
{
  DpsSchedOpts opts = { .jitter_cv = c->jitter_cv, .comm_factor = 1, .launch_s = c->launch_s,
                        .launch_busy_s = c->launch_busy_s, .trace = trace };
  if (c->comm_cv > 0)
    opts.comm_factor = MAX (0.2, 1 + c->comm_cv * gauss (rand));
  int n;
  DpsSchedRank *ranks = trial_ranks (c, replicas, rand, &n);
  DpsSchedGroup group = { 1, { 0 } };
  if (!dps_sched_run (sched, ranks, n, &group, 1, &opts, rand, res, error)) {
    g_free (ranks);
    return FALSE;
  }
  /* the breakdown (ddp.h): the mean replica's compute, what the slowest
   * takes beyond it, the contention the critical rank's compute met, and
   * that rank's wait for the all-reduces */
  const DpsSchedRankStats *crit = &res->crit, *mean = &res->mean;
  double work_mean = mean->start_s, work_crit = crit->start_s, wall_crit = 0;
  for (gsize i = 0; i < G_N_ELEMENTS (compute_parts); i++) {
    work_mean += mean->work_mean_s[compute_parts[i]];
    work_crit += crit->work_s[compute_parts[i]];
    wall_crit += crit->wall_s[compute_parts[i]];
  }
  double extension = wall_crit - (work_crit - crit->start_s);
  double after = crit->wall_s[DPS_PART_COPY_OUT] + crit->wall_s[DPS_PART_OPTIMIZER];
  out->step = res->step_s;
  out->compute = work_mean + extension;
  out->straggler = work_crit - work_mean;
  out->contention = extension;
  out->exposed = MAX (0, res->step_s - work_crit - extension - after);
  out->comm_total = crit->comm_s;
  if (ranks_out) {
    *ranks_out = ranks;
    *n_out = n;
  } else
    g_free (ranks);
  return TRUE;
}

/* Trials between the random-number states kept for redrawing the trace. */
#define TRACE_MARK 64

/* The batch per replica of c (from its global batch where one is given),
 * or FALSE with the quantity that is impossible. */
static gboolean
ddp_batch (const DpsDdpConfig *c, double *batch_out, GError **error)
{
  int N = c->n_gpus;
  if (c->bucket_cap_bytes <= 0 || !isfinite (c->bucket_cap_bytes)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "bucket cap: must be more than 0");
    return FALSE;
  }
  if (c->first_bucket_bytes < 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "first bucket: must be 0 or more");
    return FALSE;
  }
  if (c->grad_accum < 1 || c->trials < 1 || c->powersgd_rank < 1) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: must be at least 1",
                 c->grad_accum < 1 ? "gradient accumulation" : c->trials < 1 ? "trials" : "PowerSGD rank");
    return FALSE;
  }
  double batch = c->batch;
  double micro = N * (double) c->grad_accum;
  if (c->global_batch > 0) {
    if (c->global_batch < micro) {
      g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                   "global batch: %g samples cannot be split over %d replicas x %d micro-steps",
                   c->global_batch, N, c->grad_accum);
      return FALSE;
    }
    batch = ceil (c->global_batch / micro);
  }
  if (!(batch >= 1)) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "batch: must be at least 1");
    return FALSE;
  }
  *batch_out = batch;
  return TRUE;
}

/* What follows from the mean step: the input pipeline's bound, efficiency,
 * throughput, memory, cost and time to target. */
static void
ddp_totals (const DpsDdpConfig *c, double batch, double single, DpsDdpResult *out)
{
  int N = c->n_gpus;
  const DpsModel *m = c->model;
  const DpsDeviceSpec *dev = &dps_topo_spec (c->topo)->gpu;
  /* the input pipeline: each node's loader must supply its GPUs' samples */
  if (c->loader_samples_per_s > 0) {
    int per_node = MIN (N, dps_topo_gpus_per_node (c->topo));
    double t_load = per_node * batch * c->grad_accum / c->loader_samples_per_s;
    if (t_load > out->step_mean_s) {
      out->loader_bound_s = t_load - out->step_mean_s;
      out->step_mean_s = t_load;
      out->step_p5_s = MAX (out->step_p5_s, t_load);
      out->step_p95_s = MAX (out->step_p95_s, t_load);
    }
  }
  out->single_step_s = single;
  out->efficiency = single / out->step_mean_s;
  out->samples_per_s = out->global_batch / out->step_mean_s;
  out->tokens_per_s = out->samples_per_s * m->seq_len;
  /* the static parts in closed form; the activations at their peak on the
   * step's timeline (dps_ddp_simulate) */
  double act = out->memory.activations;
  dps_memory_estimate (m, c->mixed, c->grad_dtype, c->optimizer, c->grad_as_bucket_view, c->compute.dtype,
                       batch, &out->memory);
  out->memory.total += act - out->memory.activations;
  out->memory.activations = act;
  out->fits = out->memory.total <= dev->memory_bytes;
  out->cost_per_step = N * c->price_per_gpu_hour * out->step_mean_s / 3600;
  out->cost_per_msample = out->cost_per_step / out->global_batch * 1e6;
  if (c->critical_batch > 0 && c->steps_to_target > 0) {
    out->steps_to_target = c->steps_to_target * (1 + c->critical_batch / out->global_batch);
    out->time_to_target_s = out->steps_to_target * out->step_mean_s;
    out->cost_to_target = out->steps_to_target * out->cost_per_step;
  }
}

/* The per-layer activation bytes at batch: what each forward saves, and
 * what a checkpointed layer keeps (its input), in the compute type. */
static void
activation_bytes (const DpsDdpConfig *c, double batch, double *act, double *kept)
{
  double scale = dps_dtype_bytes (c->compute.dtype) / 2.0 * batch;
  for (int l = 0; l < dps_model_n_layers (c->model); l++) {
    const DpsLayer *layer = dps_model_layer (c->model, l);
    act[l] = (layer->act_bytes - (c->flash_attention ? layer->attn_act_bytes : 0)) * scale;
    kept[l] = layer->input_bytes * scale;
  }
}

/* Simulates c->trials steps; fills out (clear it with dps_ddp_result_clear).
 * Fails on impossible settings: no GPUs, a bucket cap of 0, a global batch
 * smaller than the replica count, a topology that cannot hold the GPUs; the
 * message starts with the quantity refused ("bucket cap: ..."), which the
 * command line turns into its flag. */
gboolean
dps_ddp_simulate (const DpsDdpConfig *c, DpsDdpResult *out, GError **error)
{
  memset (out, 0, sizeof *out);
  int N = c->n_gpus;
  double batch, micro = N * (double) c->grad_accum;
  if (!ddp_batch (c, &batch, error))
    return FALSE;
  /* the device's contention unless one is given */
  DpsDdpConfig resolved = *c;
  if (resolved.contention < 0)
    resolved.contention = dps_ddp_default_contention (c, batch);
  c = &resolved;
  const DpsModel *m = c->model;
  int L = dps_model_n_layers (m);
  g_autoptr (DpsBuckets) bk = dps_buckets_assign (m, c->bucket_cap_bytes, c->first_bucket_bytes,
                                                  dps_dtype_bytes (c->grad_dtype));
  int nb = dps_buckets_count (bk);
  double *bbytes = g_new (double, MAX (nb, 1));
  int *blayer = g_new (int, MAX (nb, 1));
  double max_bucket = 4.0 * dps_model_n_tensors (m);   /* the find_unused bitmap */
  for (int b = 0; b < nb; b++) {
    bbytes[b] = bucket_bytes (c, bk, dps_buckets_get (bk, b));
    blayer[b] = dps_buckets_get (bk, b)->ready_layer;
    out->comm_bytes += bbytes[b];
    max_bucket = MAX (max_bucket, bbytes[b]);
  }
  g_autoptr (DpsCollCost) cost = dps_coll_cost_new (c->topo, &c->coll, N, DPS_OP_ALLREDUCE, c->algo_mask,
                                                    c->proto_mask, 0, c->mode, max_bucket, error);
  if (!cost) {
    g_free (bbytes);
    g_free (blayer);
    return FALSE;
  }
  int L1 = MAX (L, 1);
  double *fwd = g_new (double, L1), *bwd = g_new (double, L1), *rec = g_new (double, L1), opt_s;
  double *extra = g_new (double, L1), *act = g_new (double, L1), *kept = g_new (double, L1);
  compute_times (c, batch, fwd, bwd, rec, &opt_s);
  double single = opt_s;
  for (int l = 0; l < L; l++)
    single += c->grad_accum * (fwd[l] + bwd[l] + rec[l]);
  dps_ddp_fixed_costs (c, opt_s, extra, out);
  activation_bytes (c, batch, act, kept);
  DpsMemory fixed;
  dps_memory_estimate (m, c->mixed, c->grad_dtype, c->optimizer, c->grad_as_bucket_view, c->compute.dtype, batch,
                       &fixed);
  DpsDdpStep step = {
    .model = m, .grad_accum = c->grad_accum, .fwd_s = fwd, .bwd_s = bwd, .recompute_s = rec, .copy_s = extra,
    .copy_out_s = out->copy_out_s, .optimizer_s = opt_s, .act_bytes = act, .kept_bytes = kept,
    .static_bytes = fixed.total - fixed.activations, .n_buckets = nb, .bucket_layer = blayer,
    .bucket_bytes = bbytes, .no_overlap = c->no_overlap,
    .unused_bitmap_bytes = c->find_unused ? 4.0 * dps_model_n_tensors (m) : 0,
    .allreduce = { "all-reduce", allreduce_time, cost, c->contention,
                   c->contention_comm >= 0 ? c->contention_comm : c->contention },
  };
  DpsSched *sched = dps_strategy_ddp (&step);

  GRand *rand = g_rand_new_with_seed ((guint32) (c->seed ^ (c->seed >> 32)));
  int T = c->trials;
  double *steps = g_new (double, T);
  gboolean want_trace = c->trace_replicas > 0;
  GPtrArray *marks = want_trace && T > 1 ? g_ptr_array_new_with_free_func ((GDestroyNotify) g_rand_free) : NULL;
  TrialOut sum = { 0 };
  gboolean ok = TRUE;
  double peak = 0;
  for (int t = 0; t < T && ok; t++) {
    TrialOut o;
    DpsSchedResult res;
    if (marks && t % TRACE_MARK == 0)
      g_ptr_array_add (marks, g_rand_copy (rand));
    gboolean keep = want_trace && t == 0;
    ok = trial (c, sched, N, rand, keep, &o, &res, keep ? &out->trace_ranks : NULL, &out->trace_n_ranks, error);
    if (!ok)
      break;
    steps[t] = o.step;
    sum.step += o.step;
    sum.compute += o.compute;
    sum.straggler += o.straggler;
    sum.exposed += o.exposed;
    sum.comm_total += o.comm_total;
    sum.contention += o.contention;
    for (int a = 0; a < DPS_ALGO_COUNT; a++)
      out->algo_count[a] = res.comms[0].algo_count[a];
    for (int p = 0; p < DPS_PROTO_COUNT; p++)
      out->proto_count[p] = res.comms[0].proto_count[p];
    if (res.peak_bytes > peak || t == 0) {
      peak = res.peak_bytes;
      g_strlcpy (out->peak_task, res.peak.peak_task >= 0 ? dps_sched_task_label (sched, res.peak.peak_task)
                                                        : "the step's start", sizeof out->peak_task);
      out->peak_at_s = res.peak.peak_at_s;
    }
    if (keep)
      out->trace_run = res;
    else
      dps_sched_result_clear (&res);
  }
  if (ok && marks) {
    /* the trace shows the trial closest to the mean, redrawn from the
     * random state kept before it */
    double mean = sum.step / T;
    int k = 0;
    for (int t = 1; t < T; t++)
      if (fabs (steps[t] - mean) < fabs (steps[k] - mean))
        k = t;
    if (k > 0) {
      dps_sched_result_clear (&out->trace_run);
      g_clear_pointer (&out->trace_ranks, g_free);
      GRand *r2 = g_rand_copy (g_ptr_array_index (marks, k / TRACE_MARK));
      for (int t = k / TRACE_MARK * TRACE_MARK; t <= k && ok; t++) {
        TrialOut o;
        DpsSchedResult res;
        gboolean keep = t == k;
        ok = trial (c, sched, N, r2, keep, &o, &res, keep ? &out->trace_ranks : NULL, &out->trace_n_ranks, error);
        if (ok && keep)
          out->trace_run = res;
        else if (ok)
          dps_sched_result_clear (&res);
      }
      g_rand_free (r2);
    }
  }
  if (marks)
    g_ptr_array_unref (marks);
  if (ok) {
    dps_sort_doubles (steps, (gsize) T);
    out->replicas = N;
    out->n_buckets = nb;
    out->batch_per_replica = batch;
    out->global_batch = batch * micro;
    out->step_mean_s = sum.step / T;
    out->step_p5_s = dps_quantile_sorted (steps, (gsize) T, 0.05);
    out->step_p95_s = dps_quantile_sorted (steps, (gsize) T, 0.95);
    out->compute_s = sum.compute / T;
    out->straggler_s = sum.straggler / T;
    out->exposed_comm_s = sum.exposed / T;
    out->comm_total_s = sum.comm_total / T;
    out->contention = c->contention;
    out->contention_s = sum.contention / T;
    out->optimizer_s = opt_s;
    out->overlap = out->comm_total_s > 0 ? 1 - out->exposed_comm_s / out->comm_total_s : 1;
    out->memory.activations = peak - step.static_bytes;
    ddp_totals (c, batch, single, out);
  }
  if (ok && want_trace)
    out->sched = sched;
  else
    dps_sched_free (sched);
  g_free (steps);
  g_rand_free (rand);
  g_free (fwd);
  g_free (bwd);
  g_free (rec);
  g_free (extra);
  g_free (act);
  g_free (kept);
  g_free (bbytes);
  g_free (blayer);
  if (!ok)
    dps_ddp_result_clear (out);
  return ok;
}

void
dps_ddp_result_clear (DpsDdpResult *r)
{
  dps_sched_result_clear (&r->trace_run);
  g_clear_pointer (&r->trace_ranks, g_free);
  g_clear_pointer (&r->sched, dps_sched_free);
}
