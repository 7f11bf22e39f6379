/* Unit tests of the DDP step simulator (sim/ddp.c); its sharded and
 * tensor-parallel steps in test-ddp-sharded.c. */
#include "sim/ddp.h"
#include "sim/buckets.h"
#include "sim/coll-cost.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"
#include "sim/compute.h"
#include "test-util.h"

#include <math.h>
#include <string.h>

/* With communication for free (huge bandwidth, no latency) a step is the
 * compute alone: efficiency 1. */
static void
test_free_comm (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  g_autoptr (DpsTopo) t = test_switch_topo (2, 1e9, 1e10);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  test_free_comm_params (&c);
  DpsDdpResult r;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (REL (r.efficiency, 1.0), <, 1e-6);
  /* and compute is 8 x (1 + 2) ms */
  g_assert_cmpfloat (REL (r.compute_s, 24e-3), <, 1e-12);
}

/* The sum of the bucket all-reduces, timed one by one. */
static double
sum_of_buckets (const DpsDdpConfig *c)
{
  g_autoptr (DpsCollCost) cost = dps_coll_cost_new (c->topo, &c->coll, c->n_gpus, DPS_OP_ALLREDUCE, c->algo_mask,
                                                    c->proto_mask, 0, c->mode, 0, NULL);
  g_autoptr (DpsBuckets) b = dps_buckets_assign (c->model, c->bucket_cap_bytes, c->first_bucket_bytes, 4);
  double sum = 0;
  for (int i = 0; i < dps_buckets_count (b); i++)
    sum += dps_coll_cost_time (cost, dps_buckets_get (b, i)->bytes, NULL, NULL);
  return sum;
}

/* Without overlap, a step is compute + every bucket's all-reduce one after
 * the other + the optimizer.  With overlap it lies between
 * max(compute, comm) and their sum. */
static void
test_overlap_bounds (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  g_autoptr (DpsTopo) t = test_switch_topo (2, 100, 10);   /* a slow network: comm matters */
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  double comm = sum_of_buckets (&c);
  DpsDdpResult r;
  c.no_overlap = TRUE;
  test_ddp_run (&c, &r);
  double compute = 24e-3;
  g_assert_cmpint (r.n_buckets, ==, 8);
  g_assert_cmpfloat (REL (r.step_mean_s, compute + comm + r.optimizer_s), <, 1e-9);
  c.no_overlap = FALSE;
  test_ddp_run (&c, &r);
  double step = r.step_mean_s - r.optimizer_s;
  g_assert_cmpfloat (step, >=, MAX (compute, comm) * (1 - 1e-12));
  g_assert_cmpfloat (step, <=, (compute + comm) * (1 + 1e-12));
  g_assert_cmpfloat (step, <, compute + comm);   /* overlap buys something here */
}

/* One replica slower by f makes every replica wait: the step takes at
 * least f x the compute, and the wait shows as straggler time. */
static void
test_slow_replica (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  g_autoptr (DpsTopo) t = test_switch_topo (2, 100, 100);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  c.slow_replicas = 1;
  c.slow_factor = 1.5;
  DpsDdpResult r;
  test_ddp_run (&c, &r);
  /* the last bucket (layer 0's gradients) can only be all-reduced once the
   * slow replica has finished its backward, at 1.5 x 24 ms */
  g_autoptr (DpsCollCost) cost = dps_coll_cost_new (t, &c.coll, 16, DPS_OP_ALLREDUCE, c.algo_mask, c.proto_mask, 0,
                                                    c.mode, 0, NULL);
  double last = dps_coll_cost_time (cost, 4e6, NULL, NULL);
  g_assert_cmpfloat (last, >, 0);
  g_assert_cmpfloat (r.step_mean_s - r.optimizer_s, >=, (1.5 * 24e-3 + last) * (1 - 1e-12));
  /* mean compute (15 x 24 + 36) / 16 ms; the slowest ends at 36 ms */
  g_assert_cmpfloat (REL (r.straggler_s, 36e-3 - (15 * 24e-3 + 36e-3) / 16), <, 1e-9);
}

/* Gradient accumulation over K micro-steps: compute grows K-fold while the
 * all-reduced bytes stay those of one step, so the communication share
 * falls by about K (exactly, without overlap). */
static void
test_grad_accum (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  g_autoptr (DpsTopo) t = test_switch_topo (2, 100, 10);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  c.no_overlap = TRUE;
  DpsDdpResult r1, r4;
  test_ddp_run (&c, &r1);
  c.grad_accum = 4;
  test_ddp_run (&c, &r4);
  g_assert_cmpfloat (REL (r4.comm_total_s, r1.comm_total_s), <, 1e-12);
  g_assert_cmpfloat (REL (r4.compute_s, 4 * r1.compute_s), <, 1e-12);
  g_assert_cmpfloat (r4.global_batch, ==, 4 * r1.global_batch);
}

/* Strong scaling: a global batch of 64 split over N replicas gives each
 * 64/N samples, and compute (linear in the batch for a profiled model)
 * falls as 1/N. */
static void
test_strong_scaling (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  double c1 = 0;
  for (int n = 1; n <= 8; n *= 2) {
    g_autoptr (DpsTopo) t = test_switch_topo (1, 100, 100);
    DpsDdpConfig c;
    test_ddp_config (&c, m, t);
    c.n_gpus = n;
    c.global_batch = 64;
    DpsDdpResult r;
    test_ddp_run (&c, &r);
    g_assert_cmpfloat (r.batch_per_replica, ==, 64.0 / n);
    if (n == 1)
      c1 = r.compute_s;
    g_assert_cmpfloat (REL (r.compute_s, c1 / n), <, 1e-12);
  }
}

/* fp16 compression halves the bytes all-reduced; PowerSGD of rank 4 sends
 * (rows + cols) x 4 values for a rows x cols matrix. */
static void
test_compression (void)
{
  g_autoptr (DpsModel) m = test_matrix_model ();
  g_autoptr (DpsTopo) t = test_switch_topo (1, 100, 100);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  DpsDdpResult r;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (r.comm_bytes, ==, 4.0 * 1001000);
  c.compress = DPS_COMPRESS_FP16;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (r.comm_bytes, ==, 2.0 * 1001000);
  c.compress = DPS_COMPRESS_POWERSGD;
  c.powersgd_rank = 4;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (r.comm_bytes, ==, 4.0 * (2000 * 4 + 1000));
}

/* Adam in mixed precision with bf16 gradients and gradient_as_bucket_view:
 * 2 (weights) + 2 (gradients) + 4 (fp32 master) + 8 (moments) = 16 bytes per
 * parameter, plus activations: at the peak, as the loss's backward runs,
 * everything the forward kept (2 bytes an element, 8 samples) and the loss
 * over GPT-2's 1,024 x 50,257 logits a sample in bf16 (no autocast): the
 * log-probabilities kept, 2 bytes a logit, and their gradient and the
 * logits', 4 more. */
static void
test_memory (void)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load ("gpt2", &e);
  g_autoptr (DpsTopo) t = test_switch_topo (1, 100, 100);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  c.grad_dtype = DPS_DTYPE_BF16;
  c.grad_as_bucket_view = TRUE;
  c.precision = DPS_PRECISION_BF16;
  c.optimizer = DPS_OPT_ADAM;
  DpsDdpResult r;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (r.memory.total - r.memory.activations, ==, 16.0 * m->n_params);
  g_assert_cmpfloat (dps_model_layer (m, dps_model_n_layers (m) - 1)->logits, ==, 1024.0 * 50257);
  g_assert_cmpfloat (REL (r.memory.activations, dps_model_act_bytes (m) * 8 + 1024.0 * 50257 * 8 * (2 + 4)), <, 1e-12);
  /* without the bucket view DDP keeps a second copy of the gradients */
  c.grad_as_bucket_view = FALSE;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (r.memory.buckets, ==, 2.0 * m->n_params);
}

/* An 8-GPU Ampere node of mem_gb GB a GPU. */
static DpsTopo *
ampere_topo (double mem_gb)
{
  g_autofree char *text = g_strdup_printf (
    "[system]\nname = t\ngpus_per_node = 8\n"
    "[gpu]\nmodel = g\narch = ampere\nbf16_tflops = 100\nfp32_tflops = 10\nmemory_GB = %.6f\nmemory_bw_GBps = 1000\n"
    "[intra]\nfabric = nvswitch\nbw_GBps = 100\npcie_GBps = 100\n"
    "[nic]\ncount = 8\nbw_Gbps = 100\nlatency_us = 0\ngpus = 0;1;2;3;4;5;6;7\n", mem_gb);
  return test_topo_from_text ("t.topo", text, 1);
}

/* Whether a plan fits counts the CUDA context beside its tensors
 * (memory.h): on an Ampere GPU whose memory lies between the tensors'
 * peak and that peak plus the A100's 1573 MiB of context, it does not. */
static void
test_memory_context_fits (void)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load ("gpt2", &e);
  g_autoptr (DpsTopo) t = ampere_topo (80);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  DpsDdpResult r;
  test_ddp_run (&c, &r);
  double ctx = 1573.0 * 1048576;
  g_assert_cmpfloat (r.memory.context, ==, ctx);
  g_assert_true (r.fits);
  g_autoptr (DpsTopo) t2 = ampere_topo ((r.memory.total + ctx / 2) / 1e9);
  c.topo = t2;
  DpsDdpResult r2;
  test_ddp_run (&c, &r2);
  g_assert_cmpfloat (r2.memory.total, <, dps_topo_spec (t2)->gpu.memory_bytes);
  g_assert_false (r2.fits);
  dps_ddp_result_clear (&r);
  dps_ddp_result_clear (&r2);
}

/* The trace draws a typical step: of 200 trials with jitter, the one
 * closest to the mean step (its optimizer ends 0.004% from the mean), not
 * the first (0.19% off here: what one trial alone traces, and what the
 * trace drew before). */
static double
trace_end (const DpsDdpResult *r)
{
  double end = 0;
  for (guint i = 0; i < r->trace_run.spans->len; i++)
    end = MAX (end, g_array_index (r->trace_run.spans, DpsSchedSpan, i).end_s);
  return end;
}

static void
test_trace_typical (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  g_autoptr (DpsTopo) t = test_switch_topo (2, 100, 100);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  c.jitter_cv = 0.2;
  c.trace_replicas = 4;
  c.seed = 7;
  DpsDdpResult first, many;
  test_ddp_run (&c, &first);
  c.trials = 200;
  test_ddp_run (&c, &many);
  double f = trace_end (&first), typical = trace_end (&many);
  g_assert_cmpfloat (REL (f, first.step_mean_s), <, 1e-9);   /* one trial: its own step */
  g_assert_cmpfloat (fabs (typical - many.step_mean_s), <, fabs (f - many.step_mean_s));
  g_assert_cmpfloat (REL (typical, many.step_mean_s), <, 1e-3);
  g_test_message ("first %.3f%% off, closest %.3f%% off", 100 * REL (f, many.step_mean_s), 100 * REL (typical, many.step_mean_s));
  dps_ddp_result_clear (&first);
  dps_ddp_result_clear (&many);
}

/* Monte Carlo: the same seed gives the same answer, another seed another;
 * the 90% interval holds the mean. */
static void
test_seeds (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  g_autoptr (DpsTopo) t = test_switch_topo (2, 100, 100);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  c.jitter_cv = 0.1;
  c.os_noise_s = 1e-3;
  c.trials = 30;
  c.seed = 7;
  DpsDdpResult a, b, d;
  test_ddp_run (&c, &a);
  test_ddp_run (&c, &b);
  c.seed = 8;
  test_ddp_run (&c, &d);
  g_assert_cmpfloat (a.step_mean_s, ==, b.step_mean_s);
  g_assert_cmpfloat (a.step_p95_s, ==, b.step_p95_s);
  g_assert_cmpfloat (a.step_mean_s, !=, d.step_mean_s);
  g_assert_cmpfloat (a.step_p5_s, <=, a.step_mean_s);
  g_assert_cmpfloat (a.step_mean_s, <=, a.step_p95_s);
  g_assert_cmpfloat (a.step_p5_s, <, a.step_p95_s);
  /* jitter across 16 replicas: the slowest is slower than the average */
  g_assert_cmpfloat (a.straggler_s, >, 0);
}

/* Step-level compute variation (compute_cv): one replica's step spreads
 * as its compute does, p5..p95 about +-1.645 cv of 24 ms (within 30% over
 * 400 trials), centred on the compute; 16 replicas wait for the slowest of
 * 16 draws, whose mean is about 1.77 sd above theirs (expected maximum of
 * 16 normals), so the mean step grows by about 1.77 x cv x 24 ms. */
static void
test_compute_cv (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  g_autoptr (DpsTopo) one = test_switch_topo (1, 1e9, 1e10);
  g_autoptr (DpsTopo) many = test_switch_topo (2, 1e9, 1e10);
  DpsDdpConfig c;
  test_ddp_config (&c, m, one);
  c.n_gpus = 1;
  c.compute_cv = 0.05;
  c.trials = 400;
  DpsDdpResult r;
  test_ddp_run (&c, &r);
  double half = (r.step_p95_s - r.step_p5_s) / 2;
  g_assert_cmpfloat (REL (half, 1.645 * 0.05 * 24e-3), <, 0.3);
  g_assert_cmpfloat (REL (r.step_mean_s, 24e-3 + r.optimizer_s), <, 0.01);
  test_ddp_config (&c, m, many);
  test_free_comm_params (&c);
  c.compute_cv = 0.05;
  c.trials = 200;
  test_ddp_run (&c, &r);
  double grow = r.step_mean_s - (24e-3 + r.optimizer_s);
  g_assert_cmpfloat (REL (grow, 1.77 * 0.05 * 24e-3), <, 0.3);
}

/* The hand-off to an idle communication thread (launch_s): with free
 * collectives the 8 buckets' all-reduces take no time, so a collective
 * is always idle when the next bucket is ready; each waits launch_s, the
 * seven under backward are hidden and only the last one (ready when
 * backward ends) lengthens the step, by exactly launch_s.  Without
 * overlap all 8 are ready at once: the first waits on an idle thread, the
 * other 7 queue behind it and wait for nothing more: again exactly
 * launch_s. */
static void
test_launch (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  g_autoptr (DpsTopo) t = test_switch_topo (2, 1e9, 1e10);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  test_free_comm_params (&c);
  DpsDdpResult base, r;
  test_ddp_run (&c, &base);
  c.launch_s = 0.5e-3;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (fabs (r.step_mean_s - base.step_mean_s - 0.5e-3), <, 1e-12);
  g_assert_cmpfloat (fabs (r.exposed_comm_s - base.exposed_comm_s - 0.5e-3), <, 1e-12);
  c.no_overlap = TRUE;
  c.launch_s = 0;
  test_ddp_run (&c, &base);
  c.launch_s = 0.5e-3;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (fabs (r.step_mean_s - base.step_mean_s - 0.5e-3), <, 1e-12);
}

/* A collective handed over while backward computes that cannot run
 * before backward ends (launch_busy_s longer than any backward): no bucket
 * overlaps, so the step is the one without overlap, compute then every
 * all-reduce (a slow network makes them matter).  Waiting 6 ms instead,
 * the step lies between the two. */
static void
test_launch_busy (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  g_autoptr (DpsTopo) t = test_switch_topo (2, 100, 10);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  DpsDdpResult serial, overlapped, r;
  c.no_overlap = TRUE;
  test_ddp_run (&c, &serial);
  c.no_overlap = FALSE;
  test_ddp_run (&c, &overlapped);
  g_assert_cmpfloat (overlapped.step_mean_s, <, serial.step_mean_s);
  c.launch_busy_s = 1.0;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (REL (r.step_mean_s, serial.step_mean_s), <, 1e-12);
  c.launch_busy_s = 6e-3;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (r.step_mean_s, >, overlapped.step_mean_s);
  g_assert_cmpfloat (r.step_mean_s, <, serial.step_mean_s);
}

/* Time to target: steps(B) = S_min (1 + B_noise / B); cost per step from
 * the price of a GPU-hour. */
static void
test_convergence_and_cost (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  g_autoptr (DpsTopo) t = test_switch_topo (2, 100, 100);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  c.critical_batch = 256;
  c.steps_to_target = 1000;
  c.price_per_gpu_hour = 3.6;
  DpsDdpResult r;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (r.global_batch, ==, 128);
  g_assert_cmpfloat (r.steps_to_target, ==, 1000 * (1 + 256.0 / 128));
  g_assert_cmpfloat (REL (r.time_to_target_s, r.steps_to_target * r.step_mean_s), <, 1e-12);
  g_assert_cmpfloat (REL (r.cost_per_step, 16 * 3.6 * r.step_mean_s / 3600), <, 1e-12);
}

/* A loader delivering 100 samples/s per node bounds a step of 8 GPUs x 8
 * samples to 0.64 s. */
static void
test_loader (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  g_autoptr (DpsTopo) t = test_switch_topo (2, 100, 100);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  c.loader_samples_per_s = 100;
  DpsDdpResult r;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (REL (r.step_mean_s, 0.64), <, 1e-12);
  g_assert_cmpfloat (r.loader_bound_s, >, 0);
}

/* Impossible settings are refused, the message starting with the quantity
 * refused (the command line turns it into its flag). */
static void
test_refused (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  g_autoptr (DpsTopo) t = test_switch_topo (2, 100, 100);
  static const struct { int field; double value; const char *want; } cases[] = {
    { 0, 0, "bucket cap: must be more than 0" },
    /* fewer samples than 16 replicas */
    { 1, 8, "global batch: 8 samples cannot be split over 16 replicas x 1 micro-steps" },
    { 2, 0, "gradient accumulation: must be at least 1" },
    /* 12 GPUs on nodes of 8: the collectives cannot place them */
    { 3, 12, "GPU count: 12 GPUs span nodes of 8 GPUs: use a multiple of 8 (or at most 8)" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    DpsDdpConfig c;
    DpsDdpResult r;
    g_autoptr (GError) e = NULL;
    test_ddp_config (&c, m, t);
    double v = cases[i].value;
    switch (cases[i].field) {
    case 0: c.bucket_cap_bytes = v; break;
    case 1: c.global_batch = v; break;
    case 2: c.grad_accum = (int) v; break;
    default: c.n_gpus = (int) v; break;
    }
    g_assert_false (dps_ddp_simulate (&c, &r, &e));
    g_assert_cmpstr (e->message, ==, cases[i].want);
  }
}

/* The default contention (dps_ddp_default_contention): NCCL's 24 SMs of
 * the H100's 132 taken from backward's compute-bound kernels, and the
 * all-reduce's HBM traffic (3 x its bus bandwidth, NVLink's inside a
 * node, a GPU's NIC share across nodes) of 3350 GB/s from its
 * memory-bound ones; none at one GPU or on a device without figures. */
static void
test_default_contention (void)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load ("resnet50", &e);
  g_assert_no_error (e);
  g_autoptr (DpsTopo) one = test_shipped_topo ("dgx-h100", 1), two = test_shipped_topo ("dgx-h100", 2);
  DpsDdpConfig c;
  test_ddp_config (&c, m, one);
  c.compute.dtype = DPS_DTYPE_FP16;
  c.precision = DPS_PRECISION_BF16;
  const DpsTopoSpec *s = dps_topo_spec (one);
  double mem = dps_compute_memory_bound_share (m, &s->gpu, &c.compute, 256);
  g_assert_cmpfloat (mem, >, 0.05);
  g_assert_cmpfloat (mem, <, 0.95);
  double intra = 24.0 / 132 * (1 - mem) + MIN (1, 3 * dps_topo_gpu_intra_bw_Bps (one) / 3350e9) * mem;
  g_assert_cmpfloat (REL (dps_ddp_default_contention (&c, 256), intra), <, 1e-9);
  g_assert_cmpfloat (intra, >, 0.1);
  g_assert_cmpfloat (intra, <, 0.4);
  /* across nodes a GPU's bus is its share of the NICs: less HBM traffic */
  test_ddp_config (&c, m, two);
  c.compute.dtype = DPS_DTYPE_FP16;
  double nic = s->nic_bw_Bps * s->n_nics / s->gpus_per_node;
  double inter = 24.0 / 132 * (1 - mem) + 3 * nic / 3350e9 * mem;
  g_assert_cmpfloat (REL (dps_ddp_default_contention (&c, 256), inter), <, 1e-9);
  g_assert_cmpfloat (inter, <, intra);
  /* the simulator uses it unless one is given, and says what it cost */
  DpsDdpResult r;
  c.batch = 256;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (REL (r.contention, inter), <, 1e-9);
  g_assert_cmpfloat (r.contention_s, >, 0);
  dps_ddp_result_clear (&r);
  /* one GPU: nothing overlaps; an unknown device ("g"): no figures */
  test_ddp_config (&c, m, one);
  c.n_gpus = 1;
  g_assert_cmpfloat (dps_ddp_default_contention (&c, 256), ==, 0);
  g_autoptr (DpsTopo) t = test_switch_topo (1, 100, 100);
  test_ddp_config (&c, m, t);
  g_assert_cmpfloat (dps_ddp_default_contention (&c, 256), ==, 0);
}

/* DDP's own costs per step on a known GPU (an H100 named, HBM 1000 GB/s
 * as given, 80% of it reached): the 8 tensors of 1M fp32 gradients each
 * copied into their bucket in the last backward (read 4 MB + write 4 MB:
 * 10 us each) and back after the all-reduce (10 us each): 160 us in all,
 * over the dispatch floor of 4 us so no hook time; with
 * gradient_as_bucket_view only the in-place division (80 us).  With HBM
 * 1000x faster the floor decides: 16 kernels x 4 us.  The optimizer
 * (Adam on torch.autocast's fp32 parameters, the default: 28 bytes a
 * parameter) moves 35 us a tensor, over the floor: no launch time.  None
 * at one GPU. */
static void
test_fixed_costs (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  for (int fast = 0; fast < 2; fast++) {
    g_autofree char *text = g_strdup_printf (
      "[system]\nname = t\ngpus_per_node = 8\n"
      "[gpu]\nmodel = H100 SXM5\nbf16_tflops = 100\nfp32_tflops = 10\nmemory_GB = 80\nmemory_bw_GBps = %g\n"
      "[intra]\nfabric = nvswitch\nbw_GBps = 1e6\npcie_GBps = 1e6\n"
      "[nic]\ncount = 8\nbw_Gbps = 1e6\ngpus = 0;1;2;3;4;5;6;7\n", fast ? 1e6 : 1000.0);
    g_autoptr (DpsTopo) t = test_topo_from_text ("t.topo", text, 1);
    DpsDdpConfig c;
    DpsDdpResult r;
    test_ddp_config (&c, m, t);
    test_free_comm_params (&c);
    c.contention = 0;
    test_ddp_run (&c, &r);
    if (!fast) {
      g_assert_cmpfloat (REL (r.bucket_copy_s, 160e-6), <, 1e-9);
      g_assert_cmpfloat (r.hooks_s, ==, 0);
      g_assert_cmpfloat (REL (r.copy_out_s, 80e-6), <, 1e-9);
      g_assert_cmpfloat (REL (r.optimizer_s, 8 * 1e6 * 28 / 800e9), <, 1e-9);
      g_assert_cmpfloat (r.opt_launch_s, ==, 0);
      /* the step: 24 ms of compute, the copies, the optimizer */
      g_assert_cmpfloat (REL (r.step_mean_s, 24e-3 + 160e-6 + r.optimizer_s), <, 1e-6);
    } else {
      g_assert_cmpfloat (REL (r.bucket_copy_s + r.hooks_s, 16 * 4e-6), <, 1e-9);
      g_assert_cmpfloat (REL (r.opt_launch_s, 8 * 4e-6 - 8 * 1e6 * 28 / 0.8e15), <, 1e-6);
    }
    dps_ddp_result_clear (&r);
    test_ddp_config (&c, m, t);
    test_free_comm_params (&c);
    c.contention = 0;
    c.grad_as_bucket_view = TRUE;
    test_ddp_run (&c, &r);
    if (!fast) {
      g_assert_cmpfloat (REL (r.bucket_copy_s, 80e-6), <, 1e-9);
      g_assert_cmpfloat (r.copy_out_s, ==, 0);
    }
    dps_ddp_result_clear (&r);
    test_ddp_config (&c, m, t);
    c.n_gpus = 1;
    test_ddp_run (&c, &r);
    g_assert_cmpfloat (r.bucket_copy_s + r.hooks_s + r.copy_out_s, ==, 0);
    g_assert_cmpfloat (REL (r.step_mean_s, r.single_step_s), <, 1e-9);
    dps_ddp_result_clear (&r);
  }
}

/* PyTorch's Reducer on a device dpscale has no figures for (validate
 * --torch on CPU cores: reducer_copies): its bucket copies at one replica
 * too, each tensor's fp32 gradient read and written into its bucket and
 * back: 2 x 2 x 4 bytes x 1,001,000 parameters at 0.8 of 1,000 GB/s =
 * 40.04 us; dpscale's own runner (FALSE) reduces in place: none. */
static void
test_reducer_copies (void)
{
  g_autoptr (DpsModel) m = test_matrix_model ();
  g_autoptr (DpsTopo) t = test_switch_topo (1, 100, 100);
  DpsDdpConfig c;
  test_ddp_config (&c, m, t);
  c.n_gpus = 1;
  double extra[1];
  DpsDdpResult r = { 0 };
  dps_ddp_fixed_costs (&c, 0, extra, &r);
  g_assert_cmpfloat (r.bucket_copy_s, ==, 0);
  c.reducer_copies = TRUE;
  dps_ddp_fixed_costs (&c, 0, extra, &r);
  g_assert_cmpfloat_with_epsilon (r.bucket_copy_s, 16.0 * 1001000 / 0.8e12, 1e-15);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ddp/reducer-copies", test_reducer_copies);
  g_test_add_func ("/ddp/free-comm", test_free_comm);
  g_test_add_func ("/ddp/overlap-bounds", test_overlap_bounds);
  g_test_add_func ("/ddp/slow-replica", test_slow_replica);
  g_test_add_func ("/ddp/trace-typical", test_trace_typical);
  g_test_add_func ("/ddp/grad-accum", test_grad_accum);
  g_test_add_func ("/ddp/strong-scaling", test_strong_scaling);
  g_test_add_func ("/ddp/compression", test_compression);
  g_test_add_func ("/ddp/memory", test_memory);
  g_test_add_func ("/ddp/memory-context-fits", test_memory_context_fits);
  g_test_add_func ("/ddp/seeds", test_seeds);
  g_test_add_func ("/ddp/compute-cv", test_compute_cv);
  g_test_add_func ("/ddp/launch", test_launch);
  g_test_add_func ("/ddp/launch-busy", test_launch_busy);
  g_test_add_func ("/ddp/convergence-and-cost", test_convergence_and_cost);
  g_test_add_func ("/ddp/loader", test_loader);
  g_test_add_func ("/ddp/refused", test_refused);
  g_test_add_func ("/ddp/default-contention", test_default_contention);
  g_test_add_func ("/ddp/fixed-costs", test_fixed_costs);
  return g_test_run ();
}
