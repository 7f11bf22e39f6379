/* Benchmarks of the DDP simulator (issue targets in parentheses):
 *   one step of GPT-2 XL on 1024 GPUs (128 DGX H100), flow-level (<= 0.5 s, <= 200 MB peak);
 *   a sweep of 1..65536 GPUs, 17 points, analytical (<= 100 ms);
 *   100 Monte Carlo trials of the 1024-GPU step with stragglers (<= 10 s).
 * Peak memory is the process's VmHWM from /proc/self/status. */
#include "sim/ddp.h"
#include "sim/topo-load.h"

#include <stdio.h>
#include <string.h>

static double
now_s (void)
{
  return g_get_monotonic_time () / 1e6;
}

static long
peak_kib (void)
{
  g_autofree char *status = NULL;
  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return -1;
  const char *p = strstr (status, "VmHWM:");
  return p ? atol (p + 6) : -1;
}

static DpsTopo *
topo (const DpsTopoSpec *spec, int gpus)
{
  int k = spec->gpus_per_node;
  return dps_topo_new (spec, gpus > k ? gpus / k : 1, NULL);
}

int
main (void)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsModel) m = dps_model_load ("gpt2-xl", &e);
  g_autofree char *path = dps_topo_find ("dgx-h100", &e);
  g_autoptr (DpsTopoSpec) spec = dps_topo_spec_load (path, &e);
  if (!m || !spec) {
    fprintf (stderr, "%s\n", e->message);
    return 1;
  }
  DpsDdpConfig c;
  DpsDdpResult r;

  double t0 = now_s ();
  g_autoptr (DpsTopo) t1024 = topo (spec, 1024);
  dps_ddp_config_default (&c);
  c.model = m;
  c.topo = t1024;
  c.n_gpus = 1024;
  c.batch = 4;
  c.mode = DPS_MODE_FLOW;
  dps_ddp_simulate (&c, &r, NULL);
  double wall = now_s () - t0;
  printf ("GPT-2 XL, 1024 GPUs, flow-level: step %.2f ms, %d buckets; wall %.3f s, peak RSS %.1f MB\n",
          r.step_mean_s * 1e3, r.n_buckets, wall, peak_kib () / 1024.0);
  dps_ddp_result_clear (&r);

  t0 = now_s ();
  for (int g = 1; g <= 65536; g *= 2) {
    g_autoptr (DpsTopo) t = topo (spec, g);
    c.topo = t;
    c.n_gpus = g;
    c.mode = DPS_MODE_ANALYTICAL;
    dps_ddp_simulate (&c, &r, NULL);
    dps_ddp_result_clear (&r);
  }
  wall = now_s () - t0;
  printf ("sweep 1..65536 GPUs (17 points), analytical: wall %.3f s, peak RSS %.1f MB\n", wall, peak_kib () / 1024.0);

  t0 = now_s ();
  c.topo = t1024;
  c.n_gpus = 1024;
  c.mode = DPS_MODE_FLOW;
  c.trials = 100;
  c.jitter_cv = 0.05;
  c.slow_replicas = 4;
  c.slow_factor = 1.2;
  c.os_noise_s = 1e-3;
  dps_ddp_simulate (&c, &r, NULL);
  wall = now_s () - t0;
  printf ("100 trials, 1024 GPUs with stragglers, flow-level: step %.2f ms (90%% %.2f-%.2f); wall %.3f s\n",
          r.step_mean_s * 1e3, r.step_p5_s * 1e3, r.step_p95_s * 1e3, wall);
  dps_ddp_result_clear (&r);
  return 0;
}
