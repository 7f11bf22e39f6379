/* compute.c — see compute.h. */
#include "sim/compute.h"
#include "sim/base/error.h"

#include <math.h>
#include <string.h>

void
dps_compute_params_default (DpsComputeParams *p)
{
  memset (p, 0, sizeof *p);
  p->dtype = DPS_DTYPE_BF16;
  p->efficiency = 0;
  /* STREAM-like copies reach 80-90% of HBM's datasheet bandwidth on
   * V100, A100 and H100; element-wise PyTorch kernels the lower end */
  p->mem_efficiency = 0.8;
  p->bwd_ratio = 2.0;
  /* PyTorch eager dispatches an operator in roughly 5-10 us of host time
   * (its profiler's CPU times for small ops); the GPU runs ahead while its
   * kernels take longer.  4 us: the floor of one launch */
  p->dispatch_s = 4e-6;
  p->tp = 1;
}

static const char *const attention_names[] = { "eager", "flash", "cudnn" };

const char *
dps_attention_name (gboolean fused, DpsFusedKernel kernel)
{
  return attention_names[!fused ? 0 : kernel == DPS_FUSED_CUDNN ? 2 : 1];
}

gboolean
dps_attention_parse (const char *name, gboolean *fused, DpsFusedKernel *kernel)
{
  for (int i = 0; name && i < (int) G_N_ELEMENTS (attention_names); i++)
    if (g_ascii_strcasecmp (name, attention_names[i]) == 0) {
      *fused = i > 0;
      *kernel = i == 2 ? DPS_FUSED_CUDNN : DPS_FUSED_FLASH2;
      return TRUE;
    }
  return FALSE;
}

/* The fraction of peak FLOP/s a kernel of this kind reaches on dev in
 * dtype inside framework training, for shapes that fill the device
 * (smaller ones fall behind through their roofline and the dispatch floor).
 *
 * The ceiling is what a library reaches alone: CUTLASS 3.5 on H100 ~75% of
 * dense fp16 peak at 8192^3 and ~70% at 4096^3 (NVIDIA's CUTLASS
 * performance pages), cuBLAS SGEMM 85-90% of fp32 peak.  Training reaches
 * less: backward's transposed GEMMs (dgrad, wgrad), wave quantisation on
 * mid-sized shapes, cuDNN's filter gathers.  The figures below are what
 * DeepLearningExamples' published one-GPU throughput of BERT-Large and
 * ResNet-50 (tests/reference/ddp, 38 tables: PyTorch, TensorFlow, MXNet on
 * V100 and A100) implies once the kernels' bytes are timed at memory
 * bandwidth, per kind and type over all those tables, not per table:
 * - GEMM and attention on tensor cores (fp16, bf16, tf32): 0.4;
 * - GEMM on fp32 SIMT units: 0.75;
 * - convolution, fp16/bf16 tensor cores: 0.4 (DLE runs AMP in NHWC, the
 *   layout cuDNN's tensor-core kernels take);
 * - convolution, tf32: 0.2 (DLE runs TF32 in NCHW: cuDNN transposes each
 *   operand to its tensor-core layout and back, and the fp32 operands move
 *   twice the bytes of fp16);
 * - convolution, fp32: 0.8 (cuDNN's SIMT kernels, as SGEMM).
 * A type is on tensor cores when its peak is well above fp32's.
 * Fitted over tests/reference/ddp (tests/reference/ddp/README.md, its opening paragraph).
 *
 * Those fractions are Volta's and Ampere's.  Each doubling of the dense
 * fp16 FLOP per SM and clock past the A100's 2048 (device.c) keeps
 * TENSOR_SHARE_PER_DOUBLING of them in PyTorch training: Hopper (4096)
 * 0.625, Blackwell (8192) 0.39.  Lambda's one-GPU BERT SQuAD runs measure
 * the H100 SXM at 1.83-2.05x the A100 SXM and the H100 PCIe at 1.37-1.45x
 * the A100 PCIe, where peak and bandwidth at Ampere's fractions give 2.7x
 * and 1.9x.  Why the tensor cores fall short is not isolated.
 * Fitted over Lambda's six H100 tables at once (tests/reference/ddp/README.md, "Which targets are met").
 * Linear layers of known shape follow their own law past Ampere
 * (gemm_efficiency); this share stays with the rest (convolutions, GEMMs
 * of unknown shape, fused attention). */
#define TENSOR_SHARE_PER_DOUBLING 0.625

/* Doublings of dev's dense fp16 tensor FLOP per SM and clock past the
 * A100's 2048 (0 at or below it, and for a device dpscale does not name). */
static double
tensor_doublings (const DpsDeviceSpec *dev)
{
  const DpsKnownDevice *k = dps_device_lookup (dev->model);
  if (!k || k->tensor_flop_per_sm_clock <= 2048)
    return 0;
  return log2 (k->tensor_flop_per_sm_clock / 2048.0);
}

static double
arch_tensor_scale (const DpsDeviceSpec *dev)
{
  return pow (TENSOR_SHARE_PER_DOUBLING, tensor_doublings (dev));
}

/* dps_compute_kind_efficiency, with dev's arch_tensor_scale given */
/* Fused attention's fraction of the tensor cores' peak in training on
 * Ampere: FlashAttention-2's forward and backward together at head
 * dimension 128 and 2k-16k tokens reach 60-65% of the A100's (Dao 2023,
 * arXiv:2307.08691, figures 4-6: 187-203 TFLOP/s of 312); Hopper's share
 * follows the tensor cores' (TENSOR_SHARE_PER_DOUBLING: 0.375 of the
 * H100's, FlashAttention-2's 335-338 TFLOP/s there). */
#define FUSED_ATTENTION_EFFICIENCY 0.6
/* cuDNN's fused attention against FlashAttention-2 on Hopper: Shah et al.
 * 2024 (FlashAttention-3, arXiv:2407.08608), figure 5, H100 SXM5, bf16,
 * head dimension 128, 4k tokens, the bars' labels: forward 609 against
 * 368 TFLOP/s, backward 499 against 310; with the backward's 2.5 x the
 * forward's work (FUSED_BWD_EXTRA), 1.62 x FlashAttention-2's speed over
 * both passes (PyTorch 2.5's release note: "up to 75% speed-up over
 * FlashAttentionV2" on H100).  Taken for Blackwell too, where cuDNN's
 * kernels are native and FlashAttention-2's are not; before Hopper the
 * two run alike (Transformer Engine prefers cuDNN's only from sm90). */
#define CUDNN_OVER_FLASH2 1.62
/* ... and its backward's work beyond the bwd_ratio of 2 (compute.h) */
#define FUSED_BWD_EXTRA 0.5

static double
kind_efficiency (DpsKernelKind kind, DpsDtype dtype, const DpsDeviceSpec *dev, double scale)
{
  gboolean tensor = dtype != DPS_DTYPE_FP32 && dev->peak_flops[dtype] > 1.5 * dev->peak_flops[DPS_DTYPE_FP32];
  if (!tensor)
    return kind == DPS_KERNEL_CONV ? 0.8 : 0.75;
  return scale * (kind == DPS_KERNEL_CONV && dtype == DPS_DTYPE_TF32 ? 0.2 : 0.4);
}

/* A linear layer's GEMM on tensor cores by its reduction length K: each
 * output tile pays a fixed cost (prologue, epilogue, the last partial
 * wave) worth GEMM_K0 elements of K, so it reaches K / (K + GEMM_K0) of
 * the peak, averaged over a kernel's GEMMs as 1 / (1 + GEMM_K0 x
 * mean(1 / K)).  Forward, K is the layer's input features; backward runs
 * two GEMMs of the forward's FLOPs each: the input's gradient, timed at
 * the forward's rate, and the weight's, which reduces over the batch's
 * rows (its tokens: batch x a sequence's, or the batch for one vector a
 * sample) and is timed at that K.  BERT-large's blocks (K 1024 and 4096)
 * run their forward at 0.33 of Ampere's peak and their weight gradients
 * over 12k-64k tokens at 0.81-0.96; Llama-2-7B's forward (K 4096 and
 * 11008) at 0.63, its weight gradients over one sequence of 4,096 tokens
 * at 0.59 (of 2,048: 0.42).
 * Linear layers of unknown shape (a trace's kernels) keep
 * kind_efficiency's, and where the rows are unknown the weight's gradient
 * takes the forward's rate.
 *
 * Past Ampere an SM's tensor cores do more per clock (d doublings of the
 * A100's 2048 FLOP: Hopper 1, Blackwell 2) while a tile's fixed cost does
 * not shrink with them: it is worth more of K, GEMM_K0 x 2^(d x
 * GEMM_K0_PER_DOUBLING) elements, and the share at large K keeps
 * GEMM_SHARE_PER_DOUBLING^d.  A GEMM in FP8 does twice the work a clock
 * of the same tensor cores in bf16: one doubling more (an H100's FP8 as
 * a B200's bf16).
 * The three constants fitted together on the sum of three medians:
 * tests/reference/ddp's one-GPU (b) and transfer (c) figures and
 * tests/reference/fsdp's absolute ones, tests/reference/parallel held out
 * (tests/reference/ddp/README.md, "The weight gradient's GEMM"). */
#define GEMM_K0 2816.0
#define GEMM_SHARE_PER_DOUBLING 0.875
#define GEMM_K0_PER_DOUBLING 0.5

/* The share of dev's peak a GEMM of the FLOP-weighted mean 1 / K inv_k
 * reaches (kind's fraction where it is not on tensor cores or its K is
 * not known). */
static double
gemm_efficiency_at (double inv_k, DpsKernelKind kind, DpsDtype dtype, const DpsDeviceSpec *dev, double scale,
                    gboolean fp8)
{
  gboolean tensor = dtype != DPS_DTYPE_FP32 && dev->peak_flops[dtype] > 1.5 * dev->peak_flops[DPS_DTYPE_FP32];
  if (!tensor || inv_k <= 0)
    return kind_efficiency (kind, dtype, dev, scale);
  double d = tensor_doublings (dev) + (fp8 ? log2 (dev->fp8_flops / dev->peak_flops[dtype]) : 0);
  return pow (GEMM_SHARE_PER_DOUBLING, d) / (1 + GEMM_K0 * exp2 (d * GEMM_K0_PER_DOUBLING) * inv_k);
}

/* Fused attention's efficiency on dev in dtype (with arch_tensor_scale),
 * by its kernel. */
static double
fused_efficiency (DpsFusedKernel kernel, DpsDtype dtype, const DpsDeviceSpec *dev, double scale)
{
  gboolean tensor = dtype != DPS_DTYPE_FP32 && dev->peak_flops[dtype] > 1.5 * dev->peak_flops[DPS_DTYPE_FP32];
  if (!tensor)
    return kind_efficiency (DPS_KERNEL_ATTENTION, dtype, dev, scale);
  double kernel_speed = kernel == DPS_FUSED_CUDNN && tensor_doublings (dev) >= 1 ? CUDNN_OVER_FLASH2 : 1;
  return scale * FUSED_ATTENTION_EFFICIENCY * kernel_speed;
}

double
dps_compute_kind_efficiency (DpsKernelKind kind, DpsDtype dtype, const DpsDeviceSpec *dev)
{
  return kind_efficiency (kind, dtype, dev, arch_tensor_scale (dev));
}

/* Adds one roofline term (flops and bytes at batch, launched count times)
 * to the part of out that bounds it; TRUE where that is its FLOPs. */
static gboolean
add_term (DpsComputeSplit *out, double t_flops, double t_mem, double t_host)
{
  if (t_host >= t_flops && t_host >= t_mem) {
    out->host_s += t_host;
    return FALSE;
  }
  if (t_flops >= t_mem) {
    out->flops_s += t_flops;
    return TRUE;
  }
  out->memory_s += t_mem;
  return FALSE;
}

/* Fills out with layer's forward time on dev at batch, by what bounds each
 * of its kernels (compute.h). */
void
dps_compute_layer_split (const DpsModel *m, int layer, const DpsDeviceSpec *dev, const DpsComputeParams *p,
                         double batch, DpsComputeSplit *out)
{
  const DpsLayer *l = dps_model_layer (m, layer);
  double bw = dev->memory_bw_Bps * p->mem_efficiency;
  double eb = dps_dtype_bytes (p->dtype);
  out->flops_s = out->memory_s = out->host_s = out->fused_attn_s = out->wgrad_extra_s = out->tp_whole_s = 0;
  double scale = p->efficiency > 0 ? 1 : arch_tensor_scale (dev);
  if (l->n_kernels == 0) {
    double e = p->efficiency > 0 ? p->efficiency : kind_efficiency (DPS_KERNEL_GEMM, p->dtype, dev, scale);
    double t_flops = l->fwd_flops * batch / (dev->peak_flops[p->dtype] * e);
    double t_mem = (l->n_params * eb + l->io_bytes / 2 * eb * batch) / bw;
    add_term (out, t_flops, t_mem, 0);
    return;
  }
  for (int i = 0; i < l->n_kernels; i++) {
    const DpsKernel *k = dps_model_kernel (m, l->first_kernel + i);
    gboolean fused = p->flash_attention && k->kind == DPS_KERNEL_ATTENTION;
    if (p->flash_attention && k->kind != DPS_KERNEL_ATTENTION && k->score_bytes > 0)
      continue;   /* a pass over the scores, which fused attention never writes */
    gboolean fp8 = p->fp8 && dev->fp8_flops > 0 && k->kind == DPS_KERNEL_GEMM && k->weight_elems > 0;
    double e = p->efficiency > 0 ? p->efficiency
               : fused ? fused_efficiency (p->fused_kernel, p->dtype, dev, scale)
               : k->kind == DPS_KERNEL_GEMM
                 ? gemm_efficiency_at (k->inv_k + (MAX (p->tp, 1) - 1) * k->inv_k_row, k->kind, p->dtype, dev, scale, fp8)
               : kind_efficiency (k->kind, p->dtype, dev, scale);
    double bytes = k->bytes - (fused ? k->score_bytes : 0);
    double peak = fp8 ? dev->fp8_flops : dev->peak_flops[p->dtype];
    double t_flops = k->flops * batch / (peak * e);
    double t_mem = (k->weight_elems * (fp8 ? 1 : eb) + bytes / 2 * eb * batch) / bw;
    double before = out->flops_s + out->memory_s + out->host_s, mem_before = out->memory_s;
    gboolean flops_bound = add_term (out, t_flops, t_mem, (fused ? 1 : k->count) * p->dispatch_s);
    if (k->kind == DPS_KERNEL_MEMORY && k->score_bytes <= 0 && !k->tp_split)
      out->tp_whole_s += out->memory_s - mem_before;
    /* the weight gradient's GEMM, reducing over the batch's rows, where
     * the forward is bound by its FLOPs */
    if (flops_bound && k->kind == DPS_KERNEL_GEMM && k->inv_k > 0 && k->inv_rows > 0 && p->efficiency <= 0) {
      double e_w = gemm_efficiency_at (k->inv_rows / batch, k->kind, p->dtype, dev, scale, fp8);
      out->wgrad_extra_s += k->flops * batch / (peak * e_w) - t_flops;
    }
    if (fp8)   /* the casts: input (half the activation elements) and weights, dtype in, a byte out */
      add_term (out, 0, (bytes / 4 * batch + k->weight_elems) * (eb + 1) / bw, k->count * p->dispatch_s);
    if (fused)
      out->fused_attn_s += out->flops_s + out->memory_s + out->host_s - before;
  }
}

/* Fills fwd_s and bwd_s (one entry per layer) for a per-replica batch. */
void
dps_compute_layer_times (const DpsModel *m, const DpsDeviceSpec *dev, const DpsComputeParams *p,
                         double batch, double *fwd_s, double *bwd_s)
{
  for (int i = 0; i < dps_model_n_layers (m); i++) {
    const DpsLayer *l = dps_model_layer (m, i);
    if (l->fwd_time_s >= 0) {
      double scale = batch / m->time_batch;
      fwd_s[i] = l->fwd_time_s * scale;
      bwd_s[i] = l->bwd_time_s * scale;
      continue;
    }
    DpsComputeSplit s;
    dps_compute_layer_split (m, i, dev, p, batch, &s);
    fwd_s[i] = s.flops_s + s.memory_s + s.host_s;
    bwd_s[i] = p->bwd_ratio * fwd_s[i] + FUSED_BWD_EXTRA * s.fused_attn_s + s.wgrad_extra_s;
  }
}

/* Transfer: m's measured per-layer times (taken on from, at m->time_batch,
 * in p->dtype) become those of the same layers on to.
 *
 * Each layer is split on from into the parts its kernels' rooflines say
 * bound it: FLOP/s, memory bandwidth, the host.  On to, the compute-bound
 * part takes peak_from / peak_to as long (per dtype, at each kind's
 * efficiency), the memory-bound part bw_from / bw_to, the host's part the
 * same; the measured time is scaled by the modelled ratio
 *   t_to = t_measured x model_to / model_from,
 * which is that part-wise scaling when no kernel changes what bounds it,
 * and follows a kernel that does (a GEMM compute-bound on a V100 can be
 * memory-bound on an H100, whose FLOP/s grew more than its bandwidth).
 * What the measurement holds that the model lacks (fusion, the framework's
 * own overhead) is kept in proportion.  A layer with no modelled work
 * (a CSV row without FLOPs) takes the GEMM peak ratio.
 * Returns the ratio of the model's whole step compute after to before. */
double
dps_compute_transfer (DpsModel *m, const DpsDeviceSpec *from, const DpsDeviceSpec *to, const DpsComputeParams *p)
{
  g_return_val_if_fail (dps_model_has_times (m), 1);
  double peak_ratio = from->peak_flops[p->dtype] * dps_compute_kind_efficiency (DPS_KERNEL_GEMM, p->dtype, from)
                      / (to->peak_flops[p->dtype] * dps_compute_kind_efficiency (DPS_KERNEL_GEMM, p->dtype, to));
  double before = 0, after = 0;
  for (int i = 0; i < dps_model_n_layers (m); i++) {
    DpsLayer *l = &g_array_index (m->layers, DpsLayer, i);
    DpsComputeSplit a, b;
    dps_compute_layer_split (m, i, from, p, m->time_batch, &a);
    dps_compute_layer_split (m, i, to, p, m->time_batch, &b);
    double ta = a.flops_s + a.memory_s + a.host_s, tb = b.flops_s + b.memory_s + b.host_s;
    double r = ta > 0 ? tb / ta : peak_ratio;
    before += l->fwd_time_s + l->bwd_time_s;
    l->fwd_time_s *= r;
    l->bwd_time_s *= r;
    after += l->fwd_time_s + l->bwd_time_s;
  }
  return before > 0 ? after / before : 1;
}

/* The share of the model's modelled compute at batch on dev spent in
 * memory-bound kernels (0 to 1). */
double
dps_compute_memory_bound_share (const DpsModel *m, const DpsDeviceSpec *dev, const DpsComputeParams *p, double batch)
{
  double mem = 0, all = 0;
  for (int i = 0; i < dps_model_n_layers (m); i++) {
    DpsComputeSplit s;
    dps_compute_layer_split (m, i, dev, p, batch, &s);
    mem += s.memory_s;
    all += s.flops_s + s.memory_s + s.host_s;
  }
  return all > 0 ? mem / all : 0;
}

/* Puts m's layer times back to the file's (kept on first use): a sweep
 * uses the same model on each of its topologies, each transfer from the
 * times as measured. */
static void
as_measured (DpsModel *m)
{
  int L = dps_model_n_layers (m);
  if (!m->file_times_s) {
    m->file_times_s = g_array_sized_new (FALSE, FALSE, sizeof (double), (guint) (2 * L));
    for (int i = 0; i < L; i++) {
      const DpsLayer *l = &g_array_index (m->layers, DpsLayer, i);
      g_array_append_val (m->file_times_s, l->fwd_time_s);
      g_array_append_val (m->file_times_s, l->bwd_time_s);
    }
  }
  for (int i = 0; i < L; i++) {
    DpsLayer *l = &g_array_index (m->layers, DpsLayer, i);
    l->fwd_time_s = g_array_index (m->file_times_s, double, 2 * i);
    l->bwd_time_s = g_array_index (m->file_times_s, double, 2 * i + 1);
  }
}

/* The times a per-layer model file was measured with (its "# device:"),
 * for a prediction on target: used as measured on the same GPU (or where
 * the file names no device, as files before the comment existed),
 * transferred from another GPU dpscale has figures for
 * (dps_compute_transfer, in the file's dtype where it says one).  From CPU
 * cores or an unknown GPU, whose times say nothing of a GPU's kernels, a
 * file that lists each layer's kernels (calibrate/torch-layers.py) is
 * timed from them as a zoo model is, its times set aside; one without is
 * refused.  *note receives the report's line (a new string) or NULL. */
gboolean
dps_compute_use_file_times (DpsModel *m, const DpsDeviceSpec *target, const DpsComputeParams *p, char **note,
                            GError **error)
{
  *note = NULL;
  if (!m->device || !(dps_model_has_times (m) || m->file_times_s))
    return TRUE;
  as_measured (m);
  const char *file = m->source ? m->source : m->name;
  const DpsKnownDevice *from = dps_device_lookup (m->device), *to = dps_device_lookup (target->model);
  gboolean cpu = g_ascii_strncasecmp (m->device, "cpu", 3) == 0;
  if (cpu && !to && g_ascii_strncasecmp (target->model, "cpu", 3) == 0)
    return TRUE;   /* CPU times on a machine of CPU ranks */
  if ((cpu || !from) && m->kernels->len > 0) {
    int launches = 0;
    for (guint k = 0; k < m->kernels->len; k++)
      launches += g_array_index (m->kernels, DpsKernel, k).count;
    for (int i = 0; i < dps_model_n_layers (m); i++)
      g_array_index (m->layers, DpsLayer, i).fwd_time_s = g_array_index (m->layers, DpsLayer, i).bwd_time_s = -1;
    *note = g_strdup_printf ("timed on the %s from the kernels %s lists (%d a forward: GEMMs, attention, "
                             "memory-bound passes), as a zoo model is; its times, measured on %s, are not used",
                             target->model, file, launches, m->device);
    return TRUE;
  }
  if (cpu || !from) {
    /* a per-layer file's device line can be dropped; a trace's device is
     * what it recorded */
    gboolean csv = g_str_has_suffix (file, ".csv");
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "%s: times measured on %s, not valid for the %s (%s): %s", file,
                 m->device, target->model,
                 cpu ? "CPU cores say nothing of a GPU's kernels" : "a device dpscale has no figures for",
                 csv ? "measure on the GPU, or write the file with calibrate/torch-layers.py, which lists each layer's kernels"
                     : "profile on a GPU dpscale has figures for (sim/device.c: V100, A100, H100, H200, B200, L40S), or give the model's architecture (a zoo name or config.json)");
    return FALSE;
  }
  if (from == to) {
    *note = g_strdup_printf ("times in %s measured on a %s, the same GPU as the %s: used as measured", file,
                             m->device, target->model);
    return TRUE;
  }
  DpsComputeParams q = *p;
  DpsDtype dt;
  if (m->dtype && dps_dtype_parse (m->dtype, &dt))
    q.dtype = dt;
  double ratio = dps_compute_transfer (m, &from->spec, target, &q);
  *note = g_strdup_printf ("transferred from %s (%s in %s) to %s: compute x %.2f (compute-bound parts by peak %s "
                           "FLOP/s, memory-bound parts by bandwidth)", from->spec.model, m->device, file,
                           target->model, ratio, dps_dtype_name (q.dtype));
  return TRUE;
}
