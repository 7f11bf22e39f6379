/* Unit tests of the GPUs' spread in the DDP step simulator (sim/ddp.c,
 * gpu_spread_cv): the step waits for the slowest of N replicas. */
#include "sim/ddp.h"
#include "sim/base/error.h"
#include "test-util.h"

#include <math.h>
#include <string.h>

/* Nodes of 8 GPUs on a switch, bandwidths far beyond the gradients'. */
static DpsTopo *
make_topo (int nodes)
{
  return test_switch_topo (nodes, 1e9, 1e10);
}

/* Collectives for free (no latency, no fill); identical GPUs. */
static void
config (DpsDdpConfig *c, const DpsModel *m, const DpsTopo *t)
{
  test_ddp_config (c, m, t);
  test_free_comm_params (c);
}

/* The GPUs' spread (gpu_spread_cv), without randomness: the buckets wait
 * for the slowest of the 16 replicas, whose compute is the expected maximum
 * of 16 normals, 1.76599 sd, above the mean: at 5% the step (24 ms of
 * compute, collectives free) grows by 1.76599 x 0.05 x 24 ms = 2.119 ms, all
 * of it straggler time, and the mean replica's compute stays 24 ms.  With 4
 * micro-steps of accumulation the same GPU is slow in each: 4 x as much, not
 * averaged away.  One GPU waits for nobody: no change.  With randomness
 * (a jitter of 1e-6) each replica draws its factor instead: over 200 trials
 * the mean growth is the same 2.119 ms within 30%. */
static void
test_gpu_spread (void)
{
  g_autoptr (DpsModel) m = test_csv_model ();
  g_autoptr (DpsTopo) one = make_topo (1);
  g_autoptr (DpsTopo) many = make_topo (2);
  DpsDdpConfig c;
  DpsDdpResult base, r;
  config (&c, m, many);
  g_assert_cmpint (c.n_gpus, ==, 16);
  test_ddp_run (&c, &base);
  c.gpu_spread_cv = 0.05;
  test_ddp_run (&c, &r);
  double want = 1.76599 * 0.05 * 24e-3;
  g_assert_cmpfloat (REL (r.step_mean_s - base.step_mean_s, want), <, 1e-4);
  g_assert_cmpfloat (REL (r.straggler_s, want), <, 1e-4);
  g_assert_cmpfloat (REL (r.compute_s, base.compute_s), <, 1e-9);
  c.grad_accum = 4;
  c.gpu_spread_cv = 0;
  test_ddp_run (&c, &base);
  c.gpu_spread_cv = 0.05;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (REL (r.step_mean_s - base.step_mean_s, 4 * want), <, 1e-4);
  config (&c, m, one);
  c.n_gpus = 1;
  test_ddp_run (&c, &base);
  c.gpu_spread_cv = 0.05;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (r.step_mean_s, ==, base.step_mean_s);
  config (&c, m, many);
  c.jitter_cv = 1e-6;
  c.trials = 200;
  test_ddp_run (&c, &base);
  c.gpu_spread_cv = 0.05;
  test_ddp_run (&c, &r);
  g_assert_cmpfloat (REL (r.step_mean_s - base.step_mean_s, want), <, 0.3);
}

/* The default is Sinha et al.'s 8% whisker span over 5.4 sd: 1.5%. */
static void
test_default (void)
{
  DpsDdpConfig c;
  dps_ddp_config_default (&c);
  g_assert_cmpfloat (c.gpu_spread_cv, ==, DPS_DDP_GPU_SPREAD_CV);
  g_assert_cmpfloat (fabs (DPS_DDP_GPU_SPREAD_CV - 0.08 / 5.4), <, 1e-3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ddp-spread/slowest", test_gpu_spread);
  g_test_add_func ("/ddp-spread/default", test_default);
  return g_test_run ();
}
