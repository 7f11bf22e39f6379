/* Unit tests of one DDP replica's memory (sim/memory.c): bytes per
 * parameter for each precision and optimizer, DDP's bucket copy, the
 * activations, and the optimizer step's traffic. */
#include "sim/memory.h"
#include "sim/model-gen.h"

#include <math.h>

/* torchvision-style MLP 784 -> 512 -> 256 -> 10: 784 x 512 + 512 +
 * 512 x 256 + 256 + 256 x 10 + 10 = 535,818 parameters; each layer keeps
 * two activations of its width per sample (before and after the ReLU):
 * 2 x (512 + 256 + 10) = 1,556 elements. */
static DpsModel *
mlp (void)
{
  static const int widths[] = { 784, 512, 256, 10 };
  DpsModel *m = dps_model_gen_mlp ("mlp", widths, 4);
  g_assert_cmpint (m->n_params, ==, 535818);
  return m;
}

#define N_MLP 535818.0
#define ACT_MLP 1556.0

/* fp32 with momentum SGD, DDP's default buckets: parameters 4, gradients
 * 4, their bucket copy 4 and the momentum 4 bytes per parameter (16 in
 * all), plus 1,556 fp32 activations x 32 samples. */
static void
test_fp32_momentum (void)
{
  g_autoptr (DpsModel) m = mlp ();
  DpsMemory mem;
  dps_memory_estimate (m, DPS_PRECISION_AMP, DPS_DTYPE_FP32, DPS_OPT_MOMENTUM, FALSE, DPS_DTYPE_FP32, 32, &mem);
  g_assert_cmpfloat (mem.params, ==, 4 * N_MLP);
  g_assert_cmpfloat (mem.grads, ==, 4 * N_MLP);
  g_assert_cmpfloat (mem.buckets, ==, 4 * N_MLP);
  g_assert_cmpfloat (mem.optimizer, ==, 4 * N_MLP);
  g_assert_cmpfloat (mem.activations, ==, ACT_MLP * 4 * 32);
  g_assert_cmpfloat (mem.total, ==, 16 * N_MLP + ACT_MLP * 4 * 32);
}

/* The classic mixed-precision Adam figure: bf16 parameters 2, bf16
 * gradients 2, fp32 master copy 4 and Adam's two moments 8 = 16 bytes per
 * parameter with gradient_as_bucket_view (no bucket copy); 18 without it.
 * bf16 activations take half the fp32 bytes. */
static void
test_mixed_adam (void)
{
  g_autoptr (DpsModel) m = mlp ();
  DpsMemory view, copy;
  dps_memory_estimate (m, DPS_PRECISION_BF16, DPS_DTYPE_BF16, DPS_OPT_ADAM, TRUE, DPS_DTYPE_BF16, 8, &view);
  g_assert_cmpfloat (view.params, ==, 2 * N_MLP);
  g_assert_cmpfloat (view.grads, ==, 2 * N_MLP);
  g_assert_cmpfloat (view.buckets, ==, 0);
  g_assert_cmpfloat (view.optimizer, ==, 12 * N_MLP);
  g_assert_cmpfloat (view.activations, ==, ACT_MLP * 2 * 8);
  g_assert_cmpfloat (view.total - view.activations, ==, 16 * N_MLP);
  dps_memory_estimate (m, DPS_PRECISION_BF16, DPS_DTYPE_BF16, DPS_OPT_ADAM, FALSE, DPS_DTYPE_BF16, 8, &copy);
  g_assert_cmpfloat (copy.total - copy.activations, ==, 18 * N_MLP);
}

/* A published model: ResNet-50's 25,557,032 parameters in fp32 with plain
 * SGD need 3 x 4 bytes each (parameters, gradients, buckets), 306,684,384
 * bytes, before activations; those grow linearly with the batch. */
static void
test_resnet50 (void)
{
  static const int blocks[] = { 3, 4, 6, 3 };
  g_autoptr (DpsModel) m = dps_model_gen_resnet ("resnet50", blocks, 4, 224, 1000);
  g_assert_cmpint (m->n_params, ==, 25557032);
  DpsMemory b1, b64;
  dps_memory_estimate (m, DPS_PRECISION_AMP, DPS_DTYPE_FP32, DPS_OPT_SGD, FALSE, DPS_DTYPE_FP32, 1, &b1);
  dps_memory_estimate (m, DPS_PRECISION_AMP, DPS_DTYPE_FP32, DPS_OPT_SGD, FALSE, DPS_DTYPE_FP32, 64, &b64);
  g_assert_cmpfloat (b1.optimizer, ==, 0);
  g_assert_cmpfloat (b1.total - b1.activations, ==, 306684384.0);
  g_assert_cmpfloat (b1.activations, >, 0);
  g_assert_cmpfloat (fabs (b64.activations - 64 * b1.activations), <=, 1e-9 * b64.activations);
}

/* The ZeRO paper's accounting (Rajbhandari et al., SC20, figure 1), with
 * K = 12 bytes of Adam state a parameter in mixed precision (fp32 master
 * copy, two moments) and fp16/bf16 parameters and gradients, for N = 64:
 * DDP 16 (gradient_as_bucket_view: no bucket copy), ZeRO-1 4 + 12/N,
 * ZeRO-2 2 + 14/N, ZeRO-3 (FSDP) 16/N bytes a parameter; HSDP as ZeRO-3
 * over its shard group (8 here).  Its 7.5B-parameter example, 120 GB with
 * DDP, is 1.875 GB with ZeRO-3 over 64 ranks. */
static void
test_zero_accounting (void)
{
  double psi = 7.5e9, n = 64;
  struct { DpsStrategy s; int shards; double per_param; } want[] = {
    { DPS_STRATEGY_DDP, 64, 16 },
    { DPS_STRATEGY_ZERO1, 64, 4 + 12 / n },
    { DPS_STRATEGY_ZERO2, 64, 2 + 14 / n },
    { DPS_STRATEGY_FSDP, 64, 16 / n },
    { DPS_STRATEGY_HSDP, 8, 16 / 8.0 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (want); i++) {
    DpsMemory mem;
    dps_memory_static (psi, DPS_PRECISION_BF16, DPS_DTYPE_BF16, DPS_OPT_ADAM, TRUE, want[i].s, want[i].shards, &mem);
    g_test_message ("%s: %.4g bytes a parameter", dps_strategy_name (want[i].s), mem.total / psi);
    g_assert_cmpfloat (fabs (mem.total - want[i].per_param * psi), <=, 1e-9 * mem.total);
    g_assert_cmpfloat (mem.activations, ==, 0);
  }
  DpsMemory ddp, z3;
  dps_memory_static (psi, DPS_PRECISION_BF16, DPS_DTYPE_BF16, DPS_OPT_ADAM, TRUE, DPS_STRATEGY_DDP, 1, &ddp);
  dps_memory_static (psi, DPS_PRECISION_BF16, DPS_DTYPE_BF16, DPS_OPT_ADAM, TRUE, DPS_STRATEGY_FSDP, 64, &z3);
  g_assert_cmpfloat (ddp.total, ==, 120e9);
  g_assert_cmpfloat (z3.total, ==, 1.875e9);
  /* torch.autocast's fp32 parameters and gradients, DDP's bucket copy: 4 +
   * 4 + 4 + 8 = 20 bytes a parameter; sharded fully, 16 / N */
  dps_memory_static (psi, DPS_PRECISION_AMP, DPS_DTYPE_FP32, DPS_OPT_ADAM, FALSE, DPS_STRATEGY_DDP, 1, &ddp);
  dps_memory_static (psi, DPS_PRECISION_AMP, DPS_DTYPE_FP32, DPS_OPT_ADAM, FALSE, DPS_STRATEGY_FSDP, 64, &z3);
  g_assert_cmpfloat (ddp.total, ==, 20 * psi);
  g_assert_cmpfloat (z3.total, ==, 16 * psi / 64);
}

/* Held pure in bf16 (a model cast to bfloat16 before sharding): Adam's
 * 2 + 2 + 2 x 2 = 8 bytes a parameter, the gradient at the parameters'
 * bf16 whatever type it is reduced in; FSDP over 64 ranks a 64th of it
 * each: 8 psi / 64. */
static void
test_pure_bf16 (void)
{
  double psi = 7e9;
  DpsMemory ddp, z3;
  dps_memory_static (psi, DPS_PRECISION_PURE_BF16, DPS_DTYPE_FP32, DPS_OPT_ADAM, TRUE, DPS_STRATEGY_DDP, 1, &ddp);
  dps_memory_static (psi, DPS_PRECISION_PURE_BF16, DPS_DTYPE_FP32, DPS_OPT_ADAM, TRUE, DPS_STRATEGY_FSDP, 64, &z3);
  g_assert_cmpfloat (ddp.params, ==, 2 * psi);
  g_assert_cmpfloat (ddp.grads, ==, 2 * psi);
  g_assert_cmpfloat (ddp.optimizer, ==, 4 * psi);
  g_assert_cmpfloat (z3.total, ==, 8 * psi / 64);
  /* its step: 3 x 2 for the parameter and gradient, 2 x 2 x 2 for Adam's
   * two bf16 states read and written, no master copy: 14 */
  g_assert_cmpfloat (dps_optimizer_bytes_moved (DPS_OPT_ADAM, DPS_PRECISION_PURE_BF16), ==, 14);
}

/* DeepSpeed's BF16_Optimizer: bf16's 2 + 4 + 2 x 4 of parameter, master
 * copy and Adam's states, and gradients twice, the bf16 ones (2) beside
 * the fp32 accumulation (4), neither sharded under ZeRO-1: the
 * pre-study's "additional memory usage is 4bytes x params and it's not
 * sharded across gpus" against fp16's 2-byte gradients (BigScience,
 * tr11-176B-ml/chronicles-prequel.md).  ZeRO-1 over 8: 2 + 6 + 12 / 8. */
static void
test_bf16_deepspeed (void)
{
  double psi = 3e9;
  DpsMemory z1, fp16;
  dps_memory_static (psi, DPS_PRECISION_BF16_DEEPSPEED, DPS_DTYPE_FP32, DPS_OPT_ADAM, TRUE, DPS_STRATEGY_ZERO1, 8, &z1);
  dps_memory_static (psi, DPS_PRECISION_BF16, DPS_DTYPE_FP16, DPS_OPT_ADAM, TRUE, DPS_STRATEGY_ZERO1, 8, &fp16);
  g_assert_cmpfloat (z1.params, ==, 2 * psi);
  g_assert_cmpfloat (z1.grads, ==, 6 * psi);
  g_assert_cmpfloat (z1.optimizer, ==, 12 * psi / 8);
  g_assert_cmpfloat (z1.total - fp16.total, ==, 4 * psi);
}

/* The CUDA context beside the tensors: BigScience's nvidia-smi readings
 * after torch.ones(1).cuda(), 1271 MiB on a V100 and 1573 MiB on an A100
 * (memory.h); Hopper takes the A100's, no GPU none; what the GPU holds is
 * the two together. */
static void
test_cuda_context (void)
{
  g_assert_cmpfloat (dps_memory_context_bytes ("volta"), ==, 1271.0 * 1048576);
  g_assert_cmpfloat (dps_memory_context_bytes ("ampere"), ==, 1573.0 * 1048576);
  g_assert_cmpfloat (dps_memory_context_bytes ("hopper"), ==, dps_memory_context_bytes ("ampere"));
  g_assert_cmpfloat (dps_memory_context_bytes (NULL), ==, 0);
  DpsMemory m = { .total = 70e9, .context = dps_memory_context_bytes ("ampere") };
  g_assert_cmpfloat (dps_memory_device_bytes (&m), ==, 70e9 + 1573.0 * 1048576);
  /* nvidia-smi: the allocator's median reserve over the tensors' peak
   * (1.066) too: 74.62 GB and the context */
  g_assert_cmpfloat (fabs (dps_memory_smi_bytes (&m) - (74.62e9 + 1573.0 * 1048576)), <, 1);
}

/* The optimizer step per parameter reads the parameter and gradient and
 * writes the parameter (3 x 4 bytes in fp32, 3 x 2 mixed), reads and
 * writes each fp32 state (8 bytes a state) and, mixed, the fp32 master
 * copy (8): SGD 12, momentum 20, Adam 28 in fp32; Adam mixed 6 + 16 + 8. */
static void
test_bytes_moved (void)
{
  g_assert_cmpfloat (dps_optimizer_bytes_moved (DPS_OPT_SGD, DPS_PRECISION_AMP), ==, 12);
  g_assert_cmpfloat (dps_optimizer_bytes_moved (DPS_OPT_MOMENTUM, DPS_PRECISION_AMP), ==, 20);
  g_assert_cmpfloat (dps_optimizer_bytes_moved (DPS_OPT_ADAM, DPS_PRECISION_AMP), ==, 28);
  g_assert_cmpfloat (dps_optimizer_bytes_moved (DPS_OPT_ADAM, DPS_PRECISION_BF16), ==, 30);
}

/* Names round-trip in any case; anything else is refused. */
static void
test_names (void)
{
  for (int o = DPS_OPT_SGD; o <= DPS_OPT_ADAM; o++) {
    DpsOptimizer got = DPS_OPT_SGD;
    g_assert_true (dps_optimizer_parse (dps_optimizer_name ((DpsOptimizer) o), &got));
    g_assert_cmpint (got, ==, o);
  }
  DpsOptimizer got = DPS_OPT_SGD;
  g_assert_true (dps_optimizer_parse ("ADAM", &got));
  g_assert_cmpint (got, ==, DPS_OPT_ADAM);
  g_assert_false (dps_optimizer_parse ("adamw", &got));
  g_assert_false (dps_optimizer_parse (NULL, &got));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/memory/fp32-momentum", test_fp32_momentum);
  g_test_add_func ("/memory/mixed-adam", test_mixed_adam);
  g_test_add_func ("/memory/pure-bf16", test_pure_bf16);
  g_test_add_func ("/memory/bf16-deepspeed", test_bf16_deepspeed);
  g_test_add_func ("/memory/cuda-context", test_cuda_context);
  g_test_add_func ("/memory/zero-accounting", test_zero_accounting);
  g_test_add_func ("/memory/resnet50", test_resnet50);
  g_test_add_func ("/memory/optimizer-bytes-moved", test_bytes_moved);
  g_test_add_func ("/memory/optimizer-names", test_names);
  return g_test_run ();
}
