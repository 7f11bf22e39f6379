/* Benchmark: one 1 GiB all-reduce over 4096 GPUs (512 DGX H100 nodes),
 * flow-level and analytical, with the algorithm fixed (CollNet on the
 * topology's SHARP, dgx-h100's) and with NCCL's default choice among ring,
 * tree and NVLS.  Wall time includes building the plan. */
#include "sim/coll.h"
#include "sim/coll-predict.h"
#include "sim/topo-load.h"

#include <stdio.h>

static double
now_s (void)
{
  return g_get_monotonic_time () / 1e6;
}

int
main (int argc, char **argv)
{
  const char *name = argc > 1 ? argv[1] : "dgx-h100";
  int nodes = argc > 2 ? atoi (argv[2]) : 512;
  g_autoptr (GError) e = NULL;
  g_autofree char *path = dps_topo_find (name, &e);
  g_autoptr (DpsTopoSpec) spec = path ? dps_topo_spec_load (path, &e) : NULL;
  if (!spec) {
    fprintf (stderr, "%s\n", e->message);
    return 1;
  }
  double t0 = now_s ();
  g_autoptr (DpsTopo) topo = dps_topo_new (spec, nodes, &e);
  double t_topo = now_s () - t0;
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  int gpus = dps_topo_n_gpus (topo);
  printf ("%s x %d nodes = %d GPUs; topology built in %.1f ms (%d links)\n", spec->name, nodes, gpus,
          t_topo * 1e3, dps_topo_n_links (topo));
  printf ("%-8s %-12s %-6s %12s %12s %10s\n", "algo", "mode", "proto", "sim_time_ms", "wall_ms", "flows");
  DpsAlgo algos[] = { DPS_ALGO_RING, DPS_ALGO_TREE, DPS_ALGO_NVLS, DPS_ALGO_COLLNET };
  for (gsize i = 0; i < G_N_ELEMENTS (algos) + 1; i++) {
    for (int mode = 0; mode < 2; mode++) {
      DpsCollCtx ctx;
      dps_coll_ctx_init (&ctx, topo, &p, gpus, DPS_OP_ALLREDUCE, (double) (1ull << 30), &e);
      guint mask = i < G_N_ELEMENTS (algos) ? 1u << algos[i] : DPS_NCCL_ALGOS;
      double w0 = now_s ();
      DpsCollChoice c;
      if (!dps_coll_choose (&ctx, mask, 1u << DPS_PROTO_SIMPLE, &c, NULL))
        continue;
      double t = mode == DPS_MODE_FLOW ? dps_plan_time_flow (topo, c.plan, c.proto) : c.time_s;
      double wall = now_s () - w0;
      guint flows = 0;
      for (guint ph = 0; ph < c.plan->phases->len; ph++)
        flows += g_array_index (c.plan->phases, DpsPhase, ph).flows->len;
      printf ("%-8s %-12s %-6s %12.3f %12.3f %10u\n",
              i < G_N_ELEMENTS (algos) ? dps_algo_name (c.algo) : "choice",
              mode == DPS_MODE_FLOW ? "flow" : "analytical", dps_proto_name (c.proto), t * 1e3, wall * 1e3, flows);
      dps_plan_unref (c.plan);
    }
  }
  return 0;
}
