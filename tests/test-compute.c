/* The compute model: kernels timed by their rooflines, and transfer of
 * measured layer times between devices (sim/compute.h). */
#include "sim/compute.h"
#include "sim/device.h"
#include "sim/model.h"

#include <math.h>
#include <string.h>

/* A device with round figures: 100 TFLOP/s fp16 and bf16 on tensor cores,
 * 10 fp32, 1 TB/s. */
static DpsDeviceSpec
round_device (double fp16_flops, double bw_Bps)
{
  DpsDeviceSpec d = { .model = (char *) "test", .memory_bytes = 80e9, .memory_bw_Bps = bw_Bps };
  d.peak_flops[DPS_DTYPE_FP32] = 10e12;
  d.peak_flops[DPS_DTYPE_TF32] = fp16_flops / 2;
  d.peak_flops[DPS_DTYPE_FP16] = d.peak_flops[DPS_DTYPE_BF16] = fp16_flops;
  return d;
}

/* One GEMM layer (compute-bound), one memory-bound layer, one layer of
 * tiny kernels (bound by the host's dispatch). */
static DpsModel *
three_layers (void)
{
  DpsModel *m = dps_model_new ("three");
  dps_model_add_layer (m, "gemm", 1e12, 0, 0);
  dps_model_add_kernel (m, DPS_KERNEL_GEMM, 1e12, 1e6, 0, 1);
  dps_model_add_vector (m, "gemm.w", 10);
  dps_model_add_layer (m, "norm", 0, 0, 0);
  dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, 1e9, 0, 1);
  dps_model_add_layer (m, "tiny", 0, 0, 0);
  dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, 100, 0, 10);
  return m;
}

static void
test_roofline (void)
{
  g_autoptr (DpsModel) m = three_layers ();
  DpsDeviceSpec d = round_device (100e12, 1e12);
  DpsComputeParams p;
  dps_compute_params_default (&p);
  double f[3], b[3];
  dps_compute_layer_times (m, &d, &p, 1, f, b);
  /* 1e12 FLOPs at 0.4 of 100 TFLOP/s (a tensor-core GEMM): 25 ms */
  g_assert_cmpfloat_with_epsilon (f[0], 25e-3, 1e-9);
  g_assert_cmpfloat_with_epsilon (b[0], 50e-3, 1e-9);
  /* 1e9 bytes of 2-byte elements in bf16 at 0.8 of 1 TB/s: 1.25 ms */
  g_assert_cmpfloat_with_epsilon (f[1], 1.25e-3, 1e-12);
  /* ten kernels of 100 bytes: the host's 4 us each */
  g_assert_cmpfloat_with_epsilon (f[2], 40e-6, 1e-12);
  /* fp32: the GEMM on SIMT units (0.75 of 10 TFLOP/s), elements of 4 bytes */
  p.dtype = DPS_DTYPE_FP32;
  dps_compute_layer_times (m, &d, &p, 1, f, b);
  g_assert_cmpfloat_with_epsilon (f[0], 1e12 / 7.5e12, 1e-9);
  g_assert_cmpfloat_with_epsilon (f[1], 2.5e-3, 1e-12);
  /* --efficiency: one fraction for every kernel */
  p.dtype = DPS_DTYPE_BF16;
  p.efficiency = 0.5;
  dps_compute_layer_times (m, &d, &p, 2, f, b);
  g_assert_cmpfloat_with_epsilon (f[0], 2 * 1e12 / 50e12, 1e-9);
  DpsComputeSplit s;
  dps_compute_layer_split (m, 1, &d, &p, 1, &s);
  g_assert_cmpfloat (s.flops_s, ==, 0);
  g_assert_cmpfloat (s.host_s, ==, 0);
  g_assert_cmpfloat_with_epsilon (s.memory_s, 1.25e-3, 1e-12);
}

/* Measured 10 ms per layer on an A100-like device, transferred to an
 * H100-like one: the compute-bound layer scales by the peak ratio
 * (312 -> 989 TFLOP/s), the memory-bound one by the bandwidth ratio
 * (2039 -> 3350 GB/s), the host-bound one not at all. */
static void
test_transfer_parts (void)
{
  g_autoptr (DpsModel) m = three_layers ();
  DpsDeviceSpec a = round_device (312e12, 2039e9), h = round_device (989e12, 3350e9);
  DpsComputeParams p;
  dps_compute_params_default (&p);
  double f[3] = { 10e-3, 10e-3, 10e-3 }, b[3] = { 20e-3, 20e-3, 20e-3 };
  dps_model_set_times (m, f, b, 1);
  double ratio = dps_compute_transfer (m, &a, &h, &p);
  g_assert_cmpfloat_with_epsilon (dps_model_layer (m, 0)->fwd_time_s, 10e-3 * 312 / 989, 1e-9);
  g_assert_cmpfloat_with_epsilon (dps_model_layer (m, 0)->bwd_time_s, 20e-3 * 312 / 989, 1e-9);
  g_assert_cmpfloat_with_epsilon (dps_model_layer (m, 1)->fwd_time_s, 10e-3 * 2039 / 3350, 1e-9);
  g_assert_cmpfloat_with_epsilon (dps_model_layer (m, 2)->fwd_time_s, 10e-3, 1e-12);
  g_assert_cmpfloat_with_epsilon (ratio, (312.0 / 989 + 2039.0 / 3350 + 1) / 3, 1e-9);
  /* and back: the same times again */
  dps_compute_transfer (m, &h, &a, &p);
  for (int l = 0; l < 3; l++)
    g_assert_cmpfloat_with_epsilon (dps_model_layer (m, l)->fwd_time_s, 10e-3, 1e-12);
}

/* A GEMM of modest intensity: compute-bound on a device with little
 * FLOP/s, memory-bound on one with much more FLOP/s but the same bandwidth;
 * the transfer follows the bound that holds on each (the ratio of the two
 * rooflines), not the FLOP/s ratio alone. */
static void
test_transfer_bound_changes (void)
{
  g_autoptr (DpsModel) m = dps_model_new ("one");
  dps_model_add_layer (m, "gemm", 1e9, 0, 0);
  /* 1e9 FLOPs, 1e7 bytes: at 0.4 of 10 TFLOP/s 250 us; the bytes at 0.8 of 1 TB/s 12.5 us */
  dps_model_add_kernel (m, DPS_KERNEL_GEMM, 1e9, 1e7, 0, 1);
  DpsDeviceSpec slow = round_device (10e12, 1e12), fast = round_device (1000e12, 1e12);
  slow.peak_flops[DPS_DTYPE_FP32] = 1e12;
  DpsComputeParams p;
  dps_compute_params_default (&p);
  double f = 1e-3, b = 2e-3;
  dps_model_set_times (m, &f, &b, 1);
  dps_compute_transfer (m, &slow, &fast, &p);
  /* fast: 2.5 us of FLOPs < 12.5 us of bytes: 12.5 / 250 of the time */
  g_assert_cmpfloat_with_epsilon (dps_model_layer (m, 0)->fwd_time_s, 1e-3 * 12.5 / 250, 1e-12);
}

/* The zoo records each layer's work: ResNet-50's blocks convolve,
 * BERT's blocks hold attention with 4 s^2 d FLOPs per sample. */
static void
test_zoo_kernels (void)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) r = dps_model_load ("resnet50", &e);
  g_assert_no_error (e);
  double conv = 0;
  for (int l = 0; l < dps_model_n_layers (r); l++) {
    const DpsLayer *layer = dps_model_layer (r, l);
    g_assert_cmpint (layer->n_kernels, >, 0);
    for (int k = 0; k < layer->n_kernels; k++) {
      const DpsKernel *kk = dps_model_kernel (r, layer->first_kernel + k);
      if (kk->kind == DPS_KERNEL_CONV)
        conv += kk->flops;
    }
  }
  /* all but the fc's 4 MFLOPs are convolutions */
  g_assert_cmpfloat (fabs (conv + 2.0 * 2048 * 1000 - dps_model_fwd_flops (r)) / dps_model_fwd_flops (r), <, 1e-9);
  g_autoptr (DpsModel) bert = dps_model_load ("bert-base", &e);
  g_assert_no_error (e);
  const DpsLayer *block = dps_model_layer (bert, 1);
  gboolean found = FALSE;
  for (int k = 0; k < block->n_kernels; k++) {
    const DpsKernel *kk = dps_model_kernel (bert, block->first_kernel + k);
    if (kk->kind == DPS_KERNEL_ATTENTION) {
      g_assert_cmpfloat (kk->flops, ==, 4.0 * 512 * 512 * 768);
      found = TRUE;
    }
  }
  g_assert_true (found);
}

static DpsModel *
file_model (const char *device)
{
  g_autofree char *text = g_strdup_printf ("# batch: 8\n# device: %s\n# dtype: bf16\n"
                                           "layer,params,forward_ms,backward_ms\nfc1,1000000,1,2\nfc2,1000000,1,2\n",
                                           device);
  g_autoptr (GError) e = NULL;
  DpsModel *m = dps_model_load_csv_data ("t.csv", text, -1, &e);
  g_assert_no_error (e);
  return m;
}

static double
total (const DpsModel *m)
{
  double t = 0;
  for (int i = 0; i < dps_model_n_layers (m); i++)
    t += g_array_index (m->layers, DpsLayer, i).fwd_time_s + g_array_index (m->layers, DpsLayer, i).bwd_time_s;
  return t;
}

/* A per-layer file's "# device:" decides its times: on the same GPU used
 * as measured (6 ms), from an A100 to an H100 scaled exactly as
 * dps_compute_transfer scales them (in the file's bf16), and from the
 * times as measured each time (a sweep's second H100 gets the first's
 * figure, not a transfer of a transfer); CPU cores' times refused for a
 * GPU, naming the file. */
static void
test_file_times (void)
{
  DpsComputeParams p;
  dps_compute_params_default (&p);
  const DpsKnownDevice *a100 = dps_device_lookup ("A100 SXM4 80GB"), *h100 = dps_device_lookup ("H100 SXM5");
  g_autoptr (DpsModel) m = file_model ("NVIDIA A100-SXM4-80GB");
  g_autoptr (GError) e = NULL;
  g_autofree char *n1 = NULL, *n2 = NULL, *n3 = NULL;
  g_assert_true (dps_compute_use_file_times (m, &a100->spec, &p, &n1, &e));
  g_assert_cmpfloat (fabs (total (m) - 6e-3), <, 1e-12);
  g_assert_nonnull (strstr (n1, "used as measured"));
  g_assert_true (dps_compute_use_file_times (m, &h100->spec, &p, &n2, &e));
  g_autoptr (DpsModel) ref = file_model ("x");
  DpsComputeParams q = p;
  q.dtype = DPS_DTYPE_BF16;
  dps_compute_transfer (ref, &a100->spec, &h100->spec, &q);
  g_assert_cmpfloat (fabs (total (m) / total (ref) - 1), <, 1e-12);
  g_assert_true (total (m) < 6e-3);
  g_assert_nonnull (strstr (n2, "transferred from A100"));
  double first = total (m);
  g_free (n2);
  n2 = NULL;
  g_assert_true (dps_compute_use_file_times (m, &h100->spec, &p, &n2, &e));
  g_assert_cmpfloat (total (m), ==, first);
  g_autoptr (DpsModel) cpu = file_model ("cpu");
  g_assert_false (dps_compute_use_file_times (cpu, &h100->spec, &p, &n3, &e));
  g_assert_nonnull (strstr (e->message, "t.csv: times measured on cpu"));
}

/* Each doubling of the tensor cores' FLOP per SM and clock past the
 * A100's keeps 0.625 of the fraction of peak (fitted over Lambda's H100
 * tables, sim/compute.c): the same round GEMM on a device named as an H100
 * or H200 (twice) takes 1/0.625 as long, on a B200 (four times) 1/0.625^2,
 * on an A100, a V100, an L40S or the unnamed device as given; SIMT fp32,
 * memory-bound kernels and --efficiency are untouched. */
static void
test_hopper_tensor (void)
{
  g_autoptr (DpsModel) m = three_layers ();
  DpsComputeParams p;
  dps_compute_params_default (&p);
  const char *names[] = { "test", "H100 SXM5", "NVIDIA H200", "H100 PCIe", "A100 SXM4 80GB", "B200", "V100", "L40S" };
  const double scale[] = { 1, 0.625, 0.625, 0.625, 1, 0.625 * 0.625, 1, 1 };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++) {
    DpsDeviceSpec d = round_device (100e12, 1e12);
    d.model = (char *) names[i];
    double f[3], b[3];
    p.dtype = DPS_DTYPE_BF16;
    p.efficiency = 0;
    dps_compute_layer_times (m, &d, &p, 1, f, b);
    g_assert_cmpfloat_with_epsilon (f[0], 25e-3 / scale[i], 1e-9);
    g_assert_cmpfloat_with_epsilon (f[1], 1.25e-3, 1e-12);
    g_assert_cmpfloat_with_epsilon (dps_compute_kind_efficiency (DPS_KERNEL_CONV, DPS_DTYPE_TF32, &d), 0.2 * scale[i], 1e-12);
    p.dtype = DPS_DTYPE_FP32;
    dps_compute_layer_times (m, &d, &p, 1, f, b);
    g_assert_cmpfloat_with_epsilon (f[0], 1e12 / 7.5e12, 1e-9);
    p.dtype = DPS_DTYPE_BF16;
    p.efficiency = 0.5;
    dps_compute_layer_times (m, &d, &p, 1, f, b);
    g_assert_cmpfloat_with_epsilon (f[0], 1e12 / 50e12, 1e-9);
  }
}

/* Fused attention by its kernel (compute.h): one attention kernel of
 * 1e12 FLOPs, its score passes gone.  FlashAttention-2 runs it at 0.6 of
 * the tensor cores' peak x the generation's share (Ampere 1, Hopper
 * 0.625): 1e12 / (0.6 x 100 TFLOP/s) = 16.67 ms on an A100-named device,
 * 26.67 ms on an H100-named one; the backward 2.5 x.  cuDNN's runs
 * 1.62 x FlashAttention-2's speed from Hopper on (FlashAttention-3's
 * figure 5: 609/368 forward, 499/310 backward): 16.46 ms on the H100,
 * the A100's unchanged.  The layer's GEMM is no attention: the same
 * either way. */
static void
test_fused_kernels (void)
{
  g_autoptr (DpsModel) m = dps_model_new ("attn");
  dps_model_add_layer (m, "block", 2e12, 0, 0);
  dps_model_add_kernel (m, DPS_KERNEL_ATTENTION, 1e12, 1e6, 0, 2);
  dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, 1e9, 0, 1);
  dps_model_kernel_set_score_bytes (m, 1e9);
  dps_model_add_layer (m, "mlp", 1e12, 0, 0);
  dps_model_add_kernel (m, DPS_KERNEL_GEMM, 1e12, 1e6, 0, 1);
  DpsComputeParams p;
  dps_compute_params_default (&p);
  p.flash_attention = TRUE;
  const char *names[] = { "A100 SXM4 80GB", "H100 SXM5" };
  const double flash[] = { 1e12 / 60e12, 1e12 / (0.625 * 60e12) }, cudnn[] = { 1e12 / 60e12, 1e12 / (0.625 * 60e12) / 1.62 };
  for (int i = 0; i < 2; i++) {
    DpsDeviceSpec d = round_device (100e12, 1e12);
    d.model = (char *) names[i];
    double f[2], b[2], g[2];
    p.fused_kernel = DPS_FUSED_FLASH2;
    dps_compute_layer_times (m, &d, &p, 1, f, b);
    g_assert_cmpfloat_with_epsilon (f[0], flash[i], 1e-9);
    g_assert_cmpfloat_with_epsilon (b[0], 2.5 * flash[i], 1e-9);
    g[0] = f[1];
    p.fused_kernel = DPS_FUSED_CUDNN;
    dps_compute_layer_times (m, &d, &p, 1, f, b);
    g_assert_cmpfloat_with_epsilon (f[0], cudnn[i], 1e-9);
    g_assert_cmpfloat_with_epsilon (b[0], 2.5 * cudnn[i], 1e-9);
    g_assert_cmpfloat (f[1], ==, g[0]);
  }
  g_assert_cmpstr (dps_attention_name (FALSE, DPS_FUSED_CUDNN), ==, "eager");
  g_assert_cmpstr (dps_attention_name (TRUE, DPS_FUSED_FLASH2), ==, "flash");
  g_assert_cmpstr (dps_attention_name (TRUE, DPS_FUSED_CUDNN), ==, "cudnn");
  /* and back, in any case; a name of none refused */
  gboolean fused = TRUE;
  DpsFusedKernel k = DPS_FUSED_CUDNN;
  g_assert_true (dps_attention_parse ("Eager", &fused, &k) && !fused);
  g_assert_true (dps_attention_parse ("CUDNN", &fused, &k) && fused && k == DPS_FUSED_CUDNN);
  g_assert_true (dps_attention_parse ("flash", &fused, &k) && fused && k == DPS_FUSED_FLASH2);
  g_assert_false (dps_attention_parse ("sdpa", &fused, &k));
}

/* A linear layer of known shape (sim/compute.c, gemm_efficiency_at): a
 * GEMM of 1e12 FLOPs, K = 4096, on the round device named as each
 * generation.  Ampere (and the unnamed device): 1 / (1 + 2816 / 4096) of
 * 100 TFLOP/s, 16.875 ms.  Each doubling of the tensor FLOP per SM and
 * clock keeps 0.875 of that share and multiplies the tile's fixed cost
 * (2816 elements of K) by sqrt 2: Hopper 0.875 / (1 + 3982.4 / 4096),
 * Blackwell 0.875^2 / (1 + 5632 / 4096).  At K = 16384 the Hopper GEMM
 * gains on Ampere's share (0.875 x (1 + 2816/16384) / (1 + 3982.4/16384)
 * = 0.825 of it, against 0.749 at K = 4096): a tile's fixed cost weighs
 * less on long reductions.  In FP8 (twice bf16's rate) the H100's GEMM
 * is one doubling further, Blackwell's bf16 share: 0.875^2 / (1 + 5632 /
 * K) of 200 TFLOP/s.  Its rows unknown, backward is twice the forward. */
static void
test_gemm_shape (void)
{
  const char *names[] = { "test", "A100 SXM4 80GB", "H100 SXM5", "B200" };
  const double d[] = { 0, 0, 1, 2 };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    for (int K = 4096; K <= 16384; K *= 4) {
      g_autoptr (DpsModel) m = dps_model_new ("gemm");
      dps_model_add_layer (m, "linear", 1e12, 0, 0);
      dps_model_add_kernel (m, DPS_KERNEL_GEMM, 1e12, 1e6, 0, 1);
      dps_model_kernel_set_inv_k (m, 1.0 / K);
      dps_model_add_vector (m, "linear.w", 10);
      DpsDeviceSpec dev = round_device (100e12, 1e12);
      dev.model = (char *) names[i];
      DpsComputeParams p;
      dps_compute_params_default (&p);
      double f, b;
      dps_compute_layer_times (m, &dev, &p, 1, &f, &b);
      double share = pow (0.875, d[i]) / (1 + 2816 * pow (2, d[i] / 2) / K);
      g_assert_cmpfloat_with_epsilon (f, 1e12 / (100e12 * share), 1e-12);
      g_assert_cmpfloat_with_epsilon (b, 2 * f, 1e-12);
      if (i == 0 && K == 4096)
        g_assert_cmpfloat_with_epsilon (f, 16.875e-3, 0.001e-3);
      if (i == 2)
        g_assert_cmpfloat_with_epsilon (share / (1 / (1 + 2816.0 / K)), K == 4096 ? 0.749 : 0.825, 0.001);
      if (i == 2) {
        /* FP8 takes a linear layer's GEMM (one with weights: 1e6 here) */
        g_autoptr (DpsModel) w = dps_model_new ("gemm");
        dps_model_add_layer (w, "linear", 1e12, 0, 0);
        dps_model_add_kernel (w, DPS_KERNEL_GEMM, 1e12, 1e6, 1e6, 1);
        dps_model_kernel_set_inv_k (w, 1.0 / K);
        dps_model_add_vector (w, "linear.w", 10);
        dev.fp8_flops = 200e12;
        p.fp8 = TRUE;
        dps_compute_layer_times (w, &dev, &p, 1, &f, &b);
        double fp8_share = 0.875 * 0.875 / (1 + 5632.0 / K);
        /* the GEMM, then the cast of its input (a quarter of its 1e6
         * activation bytes' elements) and weights, 2 bytes in, 1 out, at
         * 0.8 of 1 TB/s */
        double cast = (1e6 / 4 + 1e6) * 3 / 0.8e12;
        g_assert_cmpfloat_with_epsilon (f, 1e12 / (200e12 * fp8_share) + cast, 1e-12);
      }
    }
}

/* What tensor parallelism splits (model.h, compute.h): a layer of one
 * GEMM kernel (1e12 FLOPs a sample, mean 1 / K = 1/4096, of which 1/8192
 * from row-parallel GEMMs) and three memory-bound passes of 2e9 bytes each
 * (1e9 2-byte elements, 2.5 ms at 0.8 of 1 TB/s): one whole on every rank
 * (a norm), one split (the MLP's activation), one over the scores.  The
 * split's tp_whole_s is the whole pass's 2.5 ms alone, at any tp; at tp 4
 * the row-parallel GEMMs reduce over a quarter of K, so the mean 1 / K is
 * 1/4096 + 3/8192 and the Ampere share 1 / (1 + 2816 x 5/8192): the GEMM's
 * whole-layer time 1e12 / (100e12 x share) = 27.1875 ms (16.875 ms at
 * tp 1), which the caller divides by tp. */
static void
test_tp_split (void)
{
  g_autoptr (DpsModel) m = dps_model_new ("tp");
  dps_model_add_layer (m, "block", 1e12, 0, 0);
  dps_model_add_kernel (m, DPS_KERNEL_GEMM, 1e12, 1e6, 0, 1);
  dps_model_kernel_set_inv_k (m, 1.0 / 4096);
  dps_model_kernel_set_inv_k_row (m, 1.0 / 8192);
  dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, 2e9, 0, 1);
  dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, 2e9, 0, 1);
  dps_model_kernel_set_tp_split (m);
  dps_model_add_kernel (m, DPS_KERNEL_MEMORY, 0, 2e9, 0, 1);
  dps_model_kernel_set_score_bytes (m, 2e9);
  dps_model_add_vector (m, "block.w", 10);
  DpsDeviceSpec dev = round_device (100e12, 1e12);
  DpsComputeParams p;
  dps_compute_params_default (&p);
  g_assert_cmpint (p.tp, ==, 1);
  for (int tp = 1; tp <= 4; tp *= 4) {
    p.tp = tp;
    DpsComputeSplit s;
    dps_compute_layer_split (m, 0, &dev, &p, 1, &s);
    g_assert_cmpfloat_with_epsilon (s.memory_s, 3 * 2.5e-3, 1e-15);
    g_assert_cmpfloat_with_epsilon (s.tp_whole_s, 2.5e-3, 1e-15);
    g_assert_cmpfloat_with_epsilon (s.flops_s, tp == 1 ? 16.875e-3 : 27.1875e-3, 1e-12);
  }
}

/* Backward's weight gradient (sim/compute.c): the same GEMM of 1e12
 * FLOPs a sample, K = 4096, on sequences of 2,048 rows, on the Ampere
 * device.  Its input's gradient runs at the forward's rate and its
 * weight's reduces over the batch's rows: one sequence, 2,048 rows,
 * 1 / (1 + 2816 / 2048) of the peak, 23.75 ms, so backward takes 16.875
 * + 23.75 = 40.625 ms, more than twice the forward; eight, 16,384 rows,
 * 1 / (1 + 2816 / 16384): 93.75 ms against the forward's 135, backward
 * 228.75 ms, less than twice. */
static void
test_gemm_wgrad (void)
{
  g_autoptr (DpsModel) m = dps_model_new ("gemm");
  dps_model_add_layer (m, "linear", 1e12, 0, 0);
  dps_model_add_kernel (m, DPS_KERNEL_GEMM, 1e12, 1e6, 0, 1);
  dps_model_kernel_set_inv_k (m, 1.0 / 4096);
  dps_model_kernel_set_inv_rows (m, 1.0 / 2048);
  dps_model_add_vector (m, "linear.w", 10);
  DpsDeviceSpec dev = round_device (100e12, 1e12);
  DpsComputeParams p;
  dps_compute_params_default (&p);
  double f, b;
  dps_compute_layer_times (m, &dev, &p, 1, &f, &b);
  g_assert_cmpfloat_with_epsilon (f, 16.875e-3, 1e-12);
  g_assert_cmpfloat_with_epsilon (b, 40.625e-3, 1e-12);
  dps_compute_layer_times (m, &dev, &p, 8, &f, &b);
  g_assert_cmpfloat_with_epsilon (f, 135e-3, 1e-12);
  g_assert_cmpfloat_with_epsilon (b, 228.75e-3, 1e-12);
}

/* FP8 (compute.h): a linear layer's GEMM (1e12 FLOPs, 2e9 activation
 * elements a sample, 1e9 weights) on a device of 100 TFLOP/s bf16, 200
 * FP8, 1 TB/s at 0.8: in bf16 max(1e12 / (0.4 x 100e12), (2e9 + 4e9) /
 * 0.8e12) = 25 ms; in FP8 max(1e12 / (0.4 x 200e12), (1e9 + 4e9) / 0.8e12)
 * = 12.5 ms, then the casts of its input (1e9 elements) and weights
 * (1e9), 3 bytes each (2 read, 1 written): 6e9 / 0.8e12 = 7.5 ms, 20 ms in
 * all.  Attention's weightless GEMM stays at bf16's 25 ms; a device
 * without FP8 runs both in bf16. */
static void
test_fp8 (void)
{
  g_autoptr (DpsModel) m = dps_model_new ("fp8");
  dps_model_add_layer (m, "linear", 1e12, 0, 0);
  dps_model_add_kernel (m, DPS_KERNEL_GEMM, 1e12, 4e9, 1e9, 1);
  dps_model_add_vector (m, "linear.w", 1000);
  dps_model_add_layer (m, "scores", 0, 0, 0);
  dps_model_add_kernel (m, DPS_KERNEL_GEMM, 1e12, 4e9, 0, 1);
  DpsDeviceSpec d = round_device (100e12, 1e12);
  d.fp8_flops = 200e12;
  DpsComputeParams p;
  dps_compute_params_default (&p);
  double f[2], b[2];
  dps_compute_layer_times (m, &d, &p, 1, f, b);
  g_assert_cmpfloat_with_epsilon (f[0], 25e-3, 1e-12);
  p.fp8 = TRUE;
  dps_compute_layer_times (m, &d, &p, 1, f, b);
  g_assert_cmpfloat_with_epsilon (f[0], 20e-3, 1e-12);
  g_assert_cmpfloat_with_epsilon (b[0], 40e-3, 1e-12);
  g_assert_cmpfloat_with_epsilon (f[1], 25e-3, 1e-12);
  d.fp8_flops = 0;
  dps_compute_layer_times (m, &d, &p, 1, f, b);
  g_assert_cmpfloat_with_epsilon (f[0], 25e-3, 1e-12);
  /* FP8's rate by generation: twice bf16's from Ada on, none before */
  g_assert_cmpfloat (dps_gpu_arch_fp8_flops ("hopper", 989e12), ==, 1978e12);
  g_assert_cmpfloat (dps_gpu_arch_fp8_flops ("blackwell", 2250e12), ==, 4500e12);
  g_assert_cmpfloat (dps_gpu_arch_fp8_flops ("ada", 362e12), ==, 724e12);
  g_assert_cmpfloat (dps_gpu_arch_fp8_flops ("ampere", 312e12), ==, 0);
  g_assert_cmpfloat (dps_gpu_arch_fp8_flops ("volta", 125e12), ==, 0);
  g_assert_cmpfloat (dps_gpu_arch_fp8_flops (NULL, 125e12), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/fp8", test_fp8);
  g_test_add_func ("/compute/roofline/kinds", test_roofline);
  g_test_add_func ("/compute/roofline/hopper", test_hopper_tensor);
  g_test_add_func ("/compute/roofline/gemm-shape", test_gemm_shape);
  g_test_add_func ("/compute/roofline/gemm-wgrad", test_gemm_wgrad);
  g_test_add_func ("/compute/roofline/tp-split", test_tp_split);
  g_test_add_func ("/compute/roofline/fused-kernels", test_fused_kernels);
  g_test_add_func ("/compute/transfer/parts", test_transfer_parts);
  g_test_add_func ("/compute/transfer/bound-changes", test_transfer_bound_changes);
  g_test_add_func ("/compute/zoo/kernels", test_zoo_kernels);
  g_test_add_func ("/compute/file-times", test_file_times);
  return g_test_run ();
}
