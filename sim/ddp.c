/* ddp.c — see ddp.h for the model. */
#include "sim/ddp.h"
#include "sim/buckets.h"
#include "sim/coll-cost.h"
#include "sim/engine.h"
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

/* Per-layer forward and backward seconds of one replica at batch (the
 * model's measured times, or the roofline on the topology's device), and
 * the optimizer step's seconds: one kernel per parameter tensor (PyTorch's
 * per-parameter loop; foreach and fused optimizers group tensors and
 * launch fewer) moving its bytes at memory bandwidth, or the dispatch. */
void
dps_ddp_compute_times (const DpsDdpConfig *c, double batch, double *fwd_s, double *bwd_s, double *opt_s)
{
  const DpsDeviceSpec *dev = &dps_topo_spec (c->topo)->gpu;
  dps_compute_layer_times (c->model, dev, &c->compute, batch, fwd_s, bwd_s);
  /* checkpointing runs each checkpointed block's forward again before its
   * backward */
  for (int i = 0; c->checkpoint && i < dps_model_n_layers (c->model); i++)
    if (g_array_index (c->model->layers, DpsLayer, i).input_bytes > 0)
      bwd_s[i] += fwd_s[i];
  if (c->optimizer_s > 0) {
    *opt_s = c->optimizer_s;
    return;
  }
  double per_param = dps_optimizer_bytes_moved (c->optimizer, c->mixed), bw = 0;
  *opt_s = 0;
  for (int i = 0; i < dps_model_n_tensors (c->model); i++)
    *opt_s += kernel_s (c, dev, dps_model_tensor (c->model, i)->numel * per_param, &bw);
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

typedef struct {
  const DpsDdpConfig *c;
  DpsEngine   *e;
  DpsCollCost *cost;
  double       comm_factor;    /* this trial's draw of the collective-time uncertainty */
  int          nb;             /* buckets, the find_unused bitmap included */
  double      *bytes, *ready;
  gboolean    *is_ready;
  int          next;
  gboolean     busy;
  double       comm_end, bwd_end, extension, comm_total;
  GArray      *trace;
  int          algo_count[DPS_ALGO_COUNT], proto_count[DPS_PROTO_COUNT];
} Step;

typedef struct { Step *s; int b; } ReadyArg;

static void pump (Step *s);

static void
on_comm_done (DpsEngine *e, void *data)
{
  Step *s = data;
  s->busy = FALSE;
  s->comm_end = dps_engine_now (e);
  s->next++;
  pump (s);
}

static void
trace_add (GArray *trace, const char *name, int lane, double start, double dur, gboolean comm)
{
  if (!trace)
    return;
  DpsTraceEvent ev = { g_strdup (name), lane, start, dur, comm };
  g_array_append_val (trace, ev);
}

/* Launches the next bucket if it is ready and the stream is free. */
static void
pump (Step *s)
{
  if (s->busy || s->next >= s->nb || !s->is_ready[s->next])
    return;
  double now = dps_engine_now (s->e);
  /* the stream idle since before now: the hand-off to it first; while
   * backward holds the cores, until it lets the thread run */
  double bend = s->bwd_end + s->extension;
  double launch = now <= s->comm_end ? 0 : now < bend ? MIN (s->c->launch_busy_s, bend - now) : s->c->launch_s;
  DpsAlgo a;
  DpsProto p;
  double d = dps_coll_cost_time (s->cost, s->bytes[s->next], &a, &p) * s->comm_factor;
  s->algo_count[a]++;
  s->proto_count[p]++;
  /* while the all-reduce overlaps backward both slow down */
  double overlap = CLAMP (bend - now - launch, 0, d);
  double cc = s->c->contention_comm >= 0 ? s->c->contention_comm : s->c->contention;
  d += cc * overlap;
  s->extension += s->c->contention * overlap;
  s->comm_total += launch + d;   /* the stream is taken from the hand-off on */
  s->busy = TRUE;
  char name[64];
  if (s->c->find_unused && s->next == s->nb - 1)
    g_snprintf (name, sizeof name, "unused-bitmap %s/%s", dps_algo_name (a), dps_proto_name (p));
  else
    g_snprintf (name, sizeof name, "bucket %d %s/%s", s->next, dps_algo_name (a), dps_proto_name (p));
  trace_add (s->trace, name, -1, now + launch, d, TRUE);
  dps_engine_after (s->e, launch + d, on_comm_done, s);
}

static void
on_ready (DpsEngine *e, void *data)
{
  ReadyArg *r = data;
  r->s->is_ready[r->b] = TRUE;
  pump (r->s);
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

typedef struct {
  double step, compute, straggler, exposed, comm_total, contention;
} TrialOut;

static void
trial (const DpsDdpConfig *c, DpsCollCost *cost, const DpsBuckets *bk, const double *bbytes,
       const double *fwd, const double *bwd, const double *bwd_extra, double after_s, double opt_s, int replicas, GRand *rand,
       GArray *trace, TrialOut *out, int *algo_count, int *proto_count)
{
  const DpsModel *m = c->model;
  int L = dps_model_n_layers (m), nb = dps_buckets_count (bk), K = c->grad_accum;
  gboolean random = c->jitter_cv > 0 || c->os_noise_s > 0 || c->compute_cv > 0;
  /* replicas that can differ: all when random, else normal and slow */
  int distinct = random ? replicas : (c->slow_replicas > 0 && c->slow_replicas < replicas ? 2 : 1);

  int extra = c->find_unused ? 1 : 0;
  Step s = { .c = c, .cost = cost, .nb = nb + extra, .trace = trace, .comm_factor = 1 };
  if (c->comm_cv > 0)
    s.comm_factor = MAX (0.2, 1 + c->comm_cv * gauss (rand));
  s.bytes = g_new0 (double, s.nb);
  s.ready = g_new0 (double, s.nb);
  s.is_ready = g_new0 (gboolean, s.nb);
  memcpy (s.bytes, bbytes, sizeof (double) * nb);
  if (extra)
    s.bytes[nb] = 4.0 * dps_model_n_tensors (m);   /* one int32 per parameter tensor */
  double *layer_end = g_new (double, L);
  double sum_end = 0, weight_sum = 0, max_end = 0;
  int n_slow = MIN (c->slow_replicas, replicas);
  for (int d = 0; d < distinct; d++) {
    /* random: replica d; otherwise class 0 stands for the normal replicas
     * (the first is number n_slow) and class 1 for the slow ones */
    int r = random ? d : (d == 0 && n_slow < replicas ? n_slow : 0);
    double weight = random ? 1 : (r >= n_slow ? replicas - n_slow : n_slow);
    double f = r < n_slow ? c->slow_factor : 1;
    if (c->compute_cv > 0)
      f *= MAX (0.2, 1 + c->compute_cv * gauss (rand));
    /* the GPUs' spread: a random factor per replica, or the class's slowest
     * (its timeline, which the buckets wait for) against its mean (fm) */
    double fm = f;
    if (c->gpu_spread_cv > 0 && random)
      fm = f *= MAX (0.2, 1 + c->gpu_spread_cv * gauss (rand));
    else if (c->gpu_spread_cv > 0)
      f *= 1 + c->gpu_spread_cv * dps_expected_max_normal (weight);
    double t = c->os_noise_s > 0 ? -c->os_noise_s * log (g_rand_double_range (rand, 1e-12, 1)) : 0;
    double tm = t;
    gboolean draw = trace && r < c->trace_replicas;
    for (int k = 0; k < K; k++) {
      for (int l = 0; l < L; l++) {
        double j = c->jitter_cv > 0 ? MAX (0.05, 1 + c->jitter_cv * gauss (rand)) : 1;
        double dt = fwd[l] * f * j;
        if (draw && k == K - 1)
          trace_add (trace, dps_model_layer (m, l)->name, r, t, dt, FALSE);
        t += dt;
        tm += fwd[l] * fm * j;
      }
      for (int l = L - 1; l >= 0; l--) {
        double j = c->jitter_cv > 0 ? MAX (0.05, 1 + c->jitter_cv * gauss (rand)) : 1;
        double extra_s = k == K - 1 ? bwd_extra[l] : 0;
        double dt = bwd[l] * f * j + extra_s;
        if (draw && k == K - 1)
          trace_add (trace, dps_model_layer (m, l)->name, r, t, dt, FALSE);
        t += dt;
        tm += bwd[l] * fm * j + extra_s;
        layer_end[l] = t;
      }
    }
    for (int b = 0; b < nb; b++)
      s.ready[b] = MAX (s.ready[b], layer_end[dps_buckets_get (bk, b)->ready_layer]);
    sum_end += weight * tm;
    weight_sum += weight;
    max_end = MAX (max_end, t);
  }
  s.bwd_end = max_end;
  if (extra)
    s.ready[nb] = max_end;
  s.e = dps_engine_new ();
  ReadyArg *args = g_new (ReadyArg, s.nb);
  for (int b = 0; b < s.nb; b++) {
    double at = c->no_overlap ? MAX (s.ready[b], max_end) : s.ready[b];
    args[b] = (ReadyArg) { &s, b };
    dps_engine_at (s.e, at, on_ready, &args[b]);
  }
  dps_engine_run (s.e);
  double bwd_done = max_end + s.extension;
  out->compute = sum_end / weight_sum + s.extension;
  out->straggler = max_end - sum_end / weight_sum;
  out->exposed = MAX (0, s.comm_end - bwd_done);
  out->comm_total = s.comm_total;
  out->contention = s.extension;
  out->step = MAX (bwd_done, s.comm_end) + after_s + opt_s;
  if (after_s > 0)
    trace_add (trace, "bucket copy-out", -2, MAX (bwd_done, s.comm_end), after_s, FALSE);
  trace_add (trace, "optimizer", -2, MAX (bwd_done, s.comm_end) + after_s, opt_s, FALSE);
  for (int a = 0; a < DPS_ALGO_COUNT; a++)
    algo_count[a] = s.algo_count[a];
  for (int p = 0; p < DPS_PROTO_COUNT; p++)
    proto_count[p] = s.proto_count[p];
  dps_engine_free (s.e);
  g_free (args);
  g_free (layer_end);
  g_free (s.bytes);
  g_free (s.ready);
  g_free (s.is_ready);
}

/* Trials between the random-number states kept for redrawing the trace. */
#define TRACE_MARK 64

/* Redraws trace with the trial whose step is closest to mean (order: each
 * trial's step; marks[i]: the random state before trial i * TRACE_MARK), so
 * that the picture shows a typical step rather than the first one drawn.
 * Trial 0's trace, drawn already, stays when it is the closest. */
static void
trace_closest_trial (const DpsDdpConfig *c, DpsCollCost *cost, const DpsBuckets *bk, const double *bbytes,
                     const double *fwd, const double *bwd, const double *bwd_extra, double after_s, double opt_s, int N,
                     GPtrArray *marks, const double *order, double mean, GArray *trace)
{
  int k = 0;
  for (int t = 1; t < c->trials; t++)
    if (fabs (order[t] - mean) < fabs (order[k] - mean))
      k = t;
  if (k == 0)
    return;
  for (guint i = 0; i < trace->len; i++)
    g_free (g_array_index (trace, DpsTraceEvent, i).name);
  g_array_set_size (trace, 0);
  GRand *rand = g_rand_copy (g_ptr_array_index (marks, k / TRACE_MARK));
  int algo[DPS_ALGO_COUNT] = { 0 }, proto[DPS_PROTO_COUNT] = { 0 };   /* counted once, in the trials */
  TrialOut o;
  for (int t = k / TRACE_MARK * TRACE_MARK; t <= k; t++)
    trial (c, cost, bk, bbytes, fwd, bwd, bwd_extra, after_s, opt_s, N, rand, t == k ? trace : NULL, &o, algo, proto);
  g_rand_free (rand);
}

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
  dps_memory_estimate (m, c->mixed, c->grad_dtype, c->optimizer, c->grad_as_bucket_view, c->compute.dtype,
                       batch, &out->memory);
  if (c->flash_attention || c->checkpoint) {
    out->memory.total -= out->memory.activations;
    out->memory.activations = dps_model_kept_act_bytes (m, c->flash_attention, c->checkpoint) / 2
                              * dps_dtype_bytes (c->compute.dtype) * batch;
    out->memory.total += out->memory.activations;
  }
  out->fits = out->memory.total <= dev->memory_bytes;
  out->cost_per_step = N * c->price_per_gpu_hour * out->step_mean_s / 3600;
  out->cost_per_msample = out->cost_per_step / out->global_batch * 1e6;
  if (c->critical_batch > 0 && c->steps_to_target > 0) {
    out->steps_to_target = c->steps_to_target * (1 + c->critical_batch / out->global_batch);
    out->time_to_target_s = out->steps_to_target * out->step_mean_s;
    out->cost_to_target = out->steps_to_target * out->cost_per_step;
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
  DpsBuckets *bk = dps_buckets_assign (m, c->bucket_cap_bytes, c->first_bucket_bytes, dps_dtype_bytes (c->grad_dtype));
  int nb = dps_buckets_count (bk);
  double *bbytes = g_new (double, MAX (nb, 1));
  double max_bucket = 4.0 * dps_model_n_tensors (m);   /* the find_unused bitmap */
  for (int b = 0; b < nb; b++) {
    bbytes[b] = bucket_bytes (c, bk, dps_buckets_get (bk, b));
    out->comm_bytes += bbytes[b];
    max_bucket = MAX (max_bucket, bbytes[b]);
  }
  DpsCollCost *cost = dps_coll_cost_new (c->topo, &c->coll, N, DPS_OP_ALLREDUCE, c->algo_mask, c->proto_mask,
                                         0, c->mode, max_bucket, error);
  if (!cost) {
    g_free (bbytes);
    dps_buckets_free (bk);
    return FALSE;
  }
  double *fwd = g_new (double, L), *bwd = g_new (double, L), opt_s;
  dps_ddp_compute_times (c, batch, fwd, bwd, &opt_s);
  double single = opt_s;
  for (int l = 0; l < L; l++)
    single += c->grad_accum * (fwd[l] + bwd[l]);
  double *bwd_extra = g_new (double, L);
  dps_ddp_fixed_costs (c, opt_s, bwd_extra, out);

  GRand *rand = g_rand_new_with_seed ((guint32) (c->seed ^ (c->seed >> 32)));
  double *steps = g_new (double, c->trials);
  if (c->trace_replicas > 0) {
    out->trace = g_array_new (FALSE, FALSE, sizeof (DpsTraceEvent));
  }
  GPtrArray *marks = out->trace && c->trials > 1 ? g_ptr_array_new_with_free_func ((GDestroyNotify) g_rand_free) : NULL;
  double *order = marks ? g_new (double, c->trials) : NULL;
  TrialOut sum = { 0 };
  for (int t = 0; t < c->trials; t++) {
    TrialOut o;
    if (marks && t % TRACE_MARK == 0)
      g_ptr_array_add (marks, g_rand_copy (rand));
    trial (c, cost, bk, bbytes, fwd, bwd, bwd_extra, out->copy_out_s, opt_s, N, rand, t == 0 ? out->trace : NULL, &o,
           out->algo_count, out->proto_count);
    steps[t] = o.step;
    if (order)
      order[t] = o.step;
    sum.step += o.step;
    sum.compute += o.compute;
    sum.straggler += o.straggler;
    sum.exposed += o.exposed;
    sum.comm_total += o.comm_total;
    sum.contention += o.contention;
  }
  int T = c->trials;
  if (marks) {
    trace_closest_trial (c, cost, bk, bbytes, fwd, bwd, bwd_extra, out->copy_out_s, opt_s, N, marks, order, sum.step / T,
                         out->trace);
    g_ptr_array_unref (marks);
    g_free (order);
  }
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
  ddp_totals (c, batch, single, out);
  g_free (steps);
  g_rand_free (rand);
  g_free (fwd);
  g_free (bwd);
  g_free (bwd_extra);
  g_free (bbytes);
  dps_buckets_free (bk);
  dps_coll_cost_free (cost);
  return TRUE;
}

void
dps_ddp_result_clear (DpsDdpResult *r)
{
  if (r->trace) {
    for (guint i = 0; i < r->trace->len; i++)
      g_free (g_array_index (r->trace, DpsTraceEvent, i).name);
    g_array_free (r->trace, TRUE);
    r->trace = NULL;
  }
}
