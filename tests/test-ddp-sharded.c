/* Unit tests of the step simulator's sharded and tensor-parallel steps
 * (sim/ddp.c with sim/ddp-shard.c, sim/ddp-parallel.c): FSDP's FP8
 * gathers, CPU offload, tensor parallelism's attention memory, the
 * pipeline's stages. */
#include "sim/ddp.h"
#include "sim/compute.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"
#include "test-util.h"

#include <math.h>
#include <string.h>

/* FSDP in FP8 with its gathers in FP8 (--fp8-all-gather): the
 * parameters gathered a byte each instead of bf16's two.  One unit of
 * 1,001,000 parameters, gathered for forward and again for backward
 * (reshard_after_forward), its gradients reduce-scattered in fp32:
 * 2 x 2 x 1,001,000 + 4 x 1,001,000 = 8,008,000 bytes a step in bf16,
 * 2 x 1 x 1,001,000 + 4 x 1,001,000 = 6,006,000 with FP8 gathers. */
static void
test_fp8_all_gather (void)
{
  g_autoptr (DpsModel) m = test_matrix_model ();
  g_autoptr (DpsTopo) t = test_topo_from_text (
    "t.topo", "[system]\nname = t\ngpus_per_node = 8\n[gpu]\nmodel = g\nbf16_tflops = 100\nfp8_tflops = 200\n"
              "fp32_tflops = 10\nmemory_GB = 80\nmemory_bw_GBps = 1000\n[intra]\nfabric = nvswitch\nbw_GBps = 100\n"
              "pcie_GBps = 100\n", 1);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  c.strategy = DPS_STRATEGY_FSDP;
  c.precision = DPS_PRECISION_BF16;
  c.compute.fp8 = TRUE;
  DpsDdpResult r;
  test_ddp_run (&c, &r);
  double bf16 = r.comm_bytes;
  dps_ddp_result_clear (&r);
  c.fp8_all_gather = TRUE;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (bf16, ==, 2 * 2 * 1001000.0 + 4 * 1001000.0);
  g_assert_cmpfloat (r.comm_bytes, ==, 2 * 1 * 1001000.0 + 4 * 1001000.0);
  dps_ddp_result_clear (&r);
}

/* CPU offload of FSDP on 8 GPUs of one host: one unit of n = 1,001,000
 * parameters in bf16 with an fp32 master copy, Adam (P 2, K 4 + 8, fp32
 * gradients G 4 bytes a parameter), a 10 GB/s host link and 80 GB/s of
 * host memory, 10 a GPU.
 * - memory: (P + G + K) n / 8 = 18 x 125,125 on the GPU without offload;
 *   optimizer offload keeps P n / 8 there and puts (G + K) n / 8 on the
 *   host; params offload keeps none there;
 * - the optimizer on the CPUs: 3 P + 2 K = 30 bytes a parameter of the
 *   shard at 10 GB/s: 375.375 us;
 * - the host link (10 us a copy plus bytes at 10 GB/s): optimizer: the
 *   gradient shard down (500,500 bytes, 60.05 us) and the parameter shard
 *   up (250,250, 35.025 us) after the optimizer, which waits for the
 *   first; params: the shard up before each of the unit's two gathers
 *   (forward, backward) and the gradients down: 130.1 us;
 * - the step, optimizer offload: FSDP's own plus the copy down, the CPUs'
 *   optimizer in place of the GPU's, and the copy up, one after another;
 * - copies are not NCCL's: the algorithms counted are the 3 collectives'
 *   (gather for forward, for backward, reduce-scatter);
 * - with FP8 gathers (a byte a parameter) the shards copied are still
 *   bf16's: the same 130.1 us;
 * - the peak, as the unit's reduce-scatter runs: its gathered parameters
 *   (2,002,000) and its gradients, computed in bf16 and copied into the
 *   fp32 buffer reduced (2,002,000 + 4,004,000), over the static bytes,
 *   offloaded also the gradient shard it writes until copied down
 *   (500,500): 10,260,250, 8,758,750 and 8,508,500 bytes. */
static void
test_offload (void)
{
  g_autoptr (DpsModel) m = test_matrix_model ();
  const char *topo = "[system]\nname = t\ngpus_per_node = 8\n[gpu]\nmodel = g\nbf16_tflops = 100\n"
                     "fp8_tflops = 200\nfp32_tflops = 10\nmemory_GB = 80\nmemory_bw_GBps = 1000\n[intra]\n"
                     "fabric = nvswitch\n"
                     "bw_GBps = 100\npcie_GBps = 100\n[host]\nlink_GBps = 10\nmemory_GBps = 80\n";
  g_autoptr (DpsTopo) t = test_topo_from_text ("t.topo", topo, 1);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  c.strategy = DPS_STRATEGY_FSDP;
  c.precision = DPS_PRECISION_BF16;
  double shard = 1001000.0 / 8;
  DpsDdpResult base, opt, par;
  test_ddp_run (&c, &base);
  c.offload = DPS_OFFLOAD_OPTIMIZER;
  test_ddp_run (&c, &opt);
  c.offload = DPS_OFFLOAD_PARAMS;
  test_ddp_run (&c, &par);
  g_assert_cmpfloat (base.memory.params + base.memory.grads + base.memory.optimizer, ==, 18 * shard);
  g_assert_cmpfloat (base.memory.host, ==, 0);
  g_assert_cmpfloat (opt.memory.params + opt.memory.grads + opt.memory.optimizer, ==, 2 * shard);
  g_assert_cmpfloat (opt.memory.host, ==, 16 * shard);
  g_assert_cmpfloat (par.memory.params + par.memory.grads + par.memory.optimizer, ==, 0);
  g_assert_cmpfloat (par.memory.host, ==, 18 * shard);
  g_assert_cmpfloat (REL (opt.optimizer_s, 30 * shard / 10e9), <, 1e-12);
  /* on 2 of the host's 8 GPUs, each has 40 GB/s of its 80 (and a shard of half) */
  DpsDdpConfig two = c;
  two.n_gpus = 2;
  DpsDdpResult o2;
  test_ddp_run (&two, &o2);
  g_assert_cmpfloat (REL (o2.optimizer_s, 30 * 1001000.0 / 2 / 40e9), <, 1e-12);
  dps_ddp_result_clear (&o2);
  g_assert_cmpfloat (base.memory.total, ==, 10260250);
  g_assert_cmpfloat (opt.memory.total, ==, 8758750);
  g_assert_cmpfloat (par.memory.total, ==, 8508500);
  const DpsDdpCommStats *ho = NULL, *hp = NULL;
  for (int k = 0; k < opt.n_comms; k++)
    if (g_str_has_prefix (opt.comms[k].name, "host link"))
      ho = &opt.comms[k];
  for (int k = 0; k < par.n_comms; k++)
    if (g_str_has_prefix (par.comms[k].name, "host link"))
      hp = &par.comms[k];
  g_assert_nonnull (ho);
  g_assert_nonnull (hp);
  g_assert_cmpfloat (ho->count, ==, 2);
  g_assert_cmpfloat (REL (ho->time_s, 95.075e-6), <, 1e-9);
  g_assert_cmpfloat (hp->count, ==, 3);
  g_assert_cmpfloat (REL (hp->time_s, 130.1e-6), <, 1e-9);
  g_assert_cmpfloat (fabs (opt.step_mean_s - (base.step_mean_s - base.optimizer_s + 60.05e-6 + opt.optimizer_s
                                              + 35.025e-6)), <, 1e-12);
  g_assert_true (par.fits && par.host_fits);   /* the host's memory not stated: not checked */
  int algos = 0;
  for (int a = 0; a < DPS_ALGO_COUNT; a++)
    algos += par.algo_count[a];
  g_assert_cmpint (algos, ==, 3);
  dps_ddp_result_clear (&par);
  c.compute.fp8 = c.fp8_all_gather = TRUE;
  test_ddp_run (&c, &par);
  for (int k = 0; k < par.n_comms; k++)
    if (g_str_has_prefix (par.comms[k].name, "host link"))
      g_assert_cmpfloat (REL (par.comms[k].time_s, 130.1e-6), <, 1e-9);
  c.compute.fp8 = c.fp8_all_gather = FALSE;
  dps_ddp_result_clear (&base);
  dps_ddp_result_clear (&opt);
  dps_ddp_result_clear (&par);
  /* a host of 10 MB: its 8 GPUs' 18 x 125,125 bytes each (18.0 MB) do not
   * fit; of 20 MB they do */
  for (int i = 0; i < 2; i++) {
    g_autofree char *text = g_strdup_printf ("%smemory_GB = %s\n", topo, i ? "0.02" : "0.01");
    g_autoptr (DpsTopo) small = test_topo_from_text ("t.topo", text, 1);
    c.topo = small;
    test_ddp_run (&c, &par);
    g_assert_true (par.host_fits == (i == 1) && par.fits == (i == 1));
    dps_ddp_result_clear (&par);
  }
  c.topo = t;
  /* refused: ZeRO-1 (no shards of gradients to send), ZeRO-2's
   * parameters (not sharded), a host of unknown memory bandwidth */
  g_autoptr (GError) e = NULL;
  c.strategy = DPS_STRATEGY_ZERO1;
  c.offload = DPS_OFFLOAD_OPTIMIZER;
  g_assert_false (dps_ddp_simulate (&c, &opt, &e));
  g_assert_nonnull (strstr (e->message, "offload: with zero2, fsdp or hsdp"));
  g_clear_error (&e);
  c.strategy = DPS_STRATEGY_ZERO2;
  c.offload = DPS_OFFLOAD_PARAMS;
  g_assert_false (dps_ddp_simulate (&c, &opt, &e));
  g_assert_nonnull (strstr (e->message, "offload: the parameters are offloaded as shards"));
  g_clear_error (&e);
  g_autoptr (DpsTopo) bare = test_switch_topo (1, 100, 100);
  c.topo = bare;
  c.n_gpus = dps_topo_n_gpus (bare);
  c.offload = DPS_OFFLOAD_OPTIMIZER;
  g_assert_false (dps_ddp_simulate (&c, &opt, &e));
  g_assert_nonnull (strstr (e->message, "states no host memory bandwidth"));
}

/* GPT-2 on tp 2 of one switch node, a sample a micro-batch. */
static void
gpt2_on_tp2 (DpsModel **m, DpsTopo **t, DpsDdpConfig *c)
{
  g_autoptr (GError) e = NULL;
  *m = dps_model_load ("gpt2", &e);
  g_assert_no_error (e);
  *t = test_switch_topo (1, 100, 100);
  test_ddp_config (c, *m, *t);
  c->tp = 2;
  c->batch = 1;
}

/* Tensor parallelism divides attention's score matrices by its degree
 * (Korthikanti et al. 2022: 5 a s^2 / t bytes a sample and block).  GPT-2
 * (12 blocks of 12 heads over 1,024 tokens) on tp 2, one sample, one
 * micro-batch: without flash attention the peak holds 12 x 5 x 12 x
 * 1,024^2 / 2 = 377,487,360 bytes more than with it. */
static void
test_tp_attention_memory (void)
{
  g_autoptr (DpsModel) m = NULL;
  g_autoptr (DpsTopo) t = NULL;
  DpsDdpConfig c;
  gpt2_on_tp2 (&m, &t, &c);
  DpsDdpResult eager, flash;
  test_ddp_run (&c, &eager);
  c.flash_attention = TRUE;
  test_ddp_run (&c, &flash);
  g_assert_cmpfloat (REL (eager.memory.activations - flash.memory.activations, 12 * 5 * 12 * 1024.0 * 1024 / 2), <,
                     1e-12);
  dps_ddp_result_clear (&eager);
  dps_ddp_result_clear (&flash);
}

/* c run without sequence parallelism into whole, then with it into sp. */
static void
run_without_and_with_sp (DpsDdpConfig *c, DpsDdpResult *whole, DpsDdpResult *sp)
{
  c->sequence_parallel = FALSE;
  test_ddp_run (c, whole);
  c->sequence_parallel = TRUE;
  test_ddp_run (c, sp);
}

/* Without sequence parallelism, tensor parallelism leaves the passes over
 * the hidden state (norms, residual adds, dropout: DpsComputeSplit's
 * tp_whole_s) whole on every rank and splits the rest; with it, all.
 * GPT-2 on tp 2, eight samples (at one, the passes are bound by their
 * launches), no contention: the compute without sequence
 * parallelism is longer by half of those passes' share of each layer's
 * forward and backward, sum over layers of (fwd + bwd) x tp_whole / whole
 * / 2, with fwd, bwd and the split of one rank computing the whole layer
 * (sim/compute.h). */
static void
test_tp_whole_passes (void)
{
  g_autoptr (DpsModel) m = NULL;
  g_autoptr (DpsTopo) t = NULL;
  DpsDdpConfig c;
  gpt2_on_tp2 (&m, &t, &c);
  c.batch = 8;
  c.contention = c.contention_comm = 0;
  DpsDdpResult whole, sp;
  run_without_and_with_sp (&c, &whole, &sp);
  const DpsDeviceSpec *dev = &dps_topo_spec (t)->gpu;
  int L = dps_model_n_layers (m);
  g_autofree double *f = g_new (double, L), *b = g_new (double, L);
  double opt;
  dps_ddp_compute_times (&c, c.batch, f, b, &opt);
  double want = 0, passes = 0;
  for (int l = 0; l < L; l++) {
    DpsComputeSplit s;
    dps_compute_layer_split (m, l, dev, &c.compute, c.batch, &s);
    want += (f[l] + b[l]) * s.tp_whole_s / (s.flops_s + s.memory_s + s.host_s) / 2;
    passes += s.tp_whole_s;
  }
  g_assert_cmpfloat (passes, >, 0);
  g_assert_cmpfloat (REL (whole.compute_s - sp.compute_s, want), <, 1e-9);
  dps_ddp_result_clear (&whole);
  dps_ddp_result_clear (&sp);
}

/* Tensor parallelism alone runs each micro-batch's forward and backward
 * in turn (Megatron's forward_backward_no_pipelining): the activations of
 * one micro-batch at a time, whatever their number.  GPT-2 on tp 2, four
 * micro-batches against one: the same peak activations, and the step the
 * longer by three micro-batches' compute (4 x against 1 x within the
 * collectives' share). */
static void
test_tp_micro_batches (void)
{
  g_autoptr (DpsModel) m = NULL;
  g_autoptr (DpsTopo) t = NULL;
  DpsDdpConfig c;
  gpt2_on_tp2 (&m, &t, &c);
  c.flash_attention = TRUE;
  DpsDdpResult one, four;
  c.micro_batches = 1;
  test_ddp_run (&c, &one);
  c.micro_batches = 4;
  test_ddp_run (&c, &four);
  g_assert_cmpfloat (REL (four.memory.activations, one.memory.activations), <, 1e-12);
  g_assert_cmpfloat (REL (four.compute_s, 4 * one.compute_s), <, 0.05);
  dps_ddp_result_clear (&one);
  dps_ddp_result_clear (&four);
}

/* GPT-2 on a pipeline of pp stages alone (tp 1) over micro micro-batches. */
static void
gpt2_pipeline (DpsModel **m, DpsTopo **t, DpsDdpConfig *c, int pp, int micro)
{
  gpt2_on_tp2 (m, t, c);
  c->tp = 1;
  c->pp = pp;
  c->micro_batches = micro;
  c->grad_accum = micro;
}

static void
change_interleave (DpsDdpConfig *c)
{
  c->vpp = 2;
  c->pipe_schedule = DPS_PIPE_INTERLEAVED;
}

static void
change_end_slots (DpsDdpConfig *c)
{
  c->pp_end_slots = TRUE;
}

/* Simulates c into before, then with change applied into after. */
static void
run_twice (DpsDdpConfig *c, DpsDdpResult *before, DpsDdpResult *after, void (*change) (DpsDdpConfig *))
{
  test_ddp_run (c, before);
  change (c);
  test_ddp_run (c, after);
}

/* Interleaved stages hold the blocks a plain pipeline gives their stage:
 * the blocks split over the stages as evenly as they go, then over each
 * stage's virtual stages.  GPT-2's 12 blocks on pp 4: 3 a stage, with
 * vpp 2 too (chunks of 2 and 1), where splitting them over the 8 chunks
 * at once gave the 4 chunks of two blocks to stages 0 and 2 (4, 2, 4, 2).
 * Stage 0, the fullest, holds the embeddings (50,257 x 768 tokens and
 * 1,024 x 768 positions) and 3 blocks of 7,087,872 parameters:
 * 60,647,424, its compute the same share of the model's either way. */
static void
test_pp_stages_even (void)
{
  g_autoptr (DpsModel) m = NULL;
  g_autoptr (DpsTopo) t = NULL;
  DpsDdpConfig c;
  gpt2_pipeline (&m, &t, &c, 4, 8);
  DpsDdpResult plain, inter;
  run_twice (&c, &plain, &inter, change_interleave);
  double want = 60647424.0 * dps_precision_param_bytes (c.precision);
  g_assert_cmpfloat (plain.memory.params, ==, want);
  g_assert_cmpfloat (inter.memory.params, ==, want);
  dps_ddp_result_clear (&plain);
  dps_ddp_result_clear (&inter);
}

/* With the embedding and the output layer a block's place each
 * (--pp-embedding-slots, DeepSpeed's type:transformer|embedding), GPT-2's
 * 12 blocks and its two ends make 14 places on 7 stages, 2 each: stage 0
 * holds the embeddings (39,383,808 parameters) and 1 block (7,087,872),
 * 46,471,680; split alone the blocks give it 2 (53,559,552). */
static void
test_pp_end_slots (void)
{
  g_autoptr (DpsModel) m = NULL;
  g_autoptr (DpsTopo) t = NULL;
  DpsDdpConfig c;
  gpt2_pipeline (&m, &t, &c, 7, 7);
  c.n_gpus = 7;
  DpsDdpResult alone, ends;
  run_twice (&c, &alone, &ends, change_end_slots);
  double pb = dps_precision_param_bytes (c.precision);
  g_assert_cmpfloat (alone.memory.params, ==, 53559552.0 * pb);
  g_assert_cmpfloat (ends.memory.params, ==, 46471680.0 * pb);
  dps_ddp_result_clear (&alone);
  dps_ddp_result_clear (&ends);
}

/* The stat of the collective named name in r (NULL: none). */
static const DpsDdpCommStats *
comm_named (const DpsDdpResult *r, const char *name)
{
  for (int i = 0; i < r->n_comms; i++)
    if (g_str_equal (r->comms[i].name, name))
      return &r->comms[i];
  return NULL;
}

/* Between pipeline stages each rank of a tensor-parallel group sends 1/tp
 * of a micro-batch's activations (strategy.h's p2p_bytes): its share of
 * the sequence with sequence parallelism, else a slice that the receiving
 * group all-gathers (Megatron's scatter/gather, DeepSpeed's partitioned
 * buffers).  GPT-2 on tp 2 x pp 2, four micro-batches: the sends take the
 * same time either way, and without sequence parallelism a stage runs one
 * tensor-parallel all-gather for each of the four tensors it receives. */
static void
test_pp_scatter_gather (void)
{
  g_autoptr (DpsModel) m = NULL;
  g_autoptr (DpsTopo) t = NULL;
  DpsDdpConfig c;
  gpt2_on_tp2 (&m, &t, &c);
  c.pp = 2;
  c.n_gpus = 4;
  c.micro_batches = c.grad_accum = 4;
  DpsDdpResult whole, sp;
  run_without_and_with_sp (&c, &whole, &sp);
  const DpsDdpCommStats *a = comm_named (&whole, "send/recv (pipeline)"), *b = comm_named (&sp, "send/recv (pipeline)");
  const DpsDdpCommStats *gather = comm_named (&whole, "all-gather (tensor parallel)");
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_nonnull (gather);
  g_assert_cmpfloat (a->count, ==, b->count);
  g_assert_cmpfloat (REL (a->time_s, b->time_s), <, 1e-12);
  g_assert_cmpfloat (gather->count, ==, 4);
  dps_ddp_result_clear (&whole);
  dps_ddp_result_clear (&sp);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ddp/fp8-all-gather", test_fp8_all_gather);
  g_test_add_func ("/ddp/offload", test_offload);
  g_test_add_func ("/ddp/tp-attention-memory", test_tp_attention_memory);
  g_test_add_func ("/ddp/tp-micro-batches", test_tp_micro_batches);
  g_test_add_func ("/ddp/tp-whole-passes", test_tp_whole_passes);
  g_test_add_func ("/ddp/pp-stages-even", test_pp_stages_even);
  g_test_add_func ("/ddp/pp-end-slots", test_pp_end_slots);
  g_test_add_func ("/ddp/pp-scatter-gather", test_pp_scatter_gather);
  return g_test_run ();
}
