/* Helpers the collective models' unit tests share (test-coll.c,
 * test-coll-algos.c): a test cluster, parameters without latency or fill,
 * and plans built or the test fails. */
#pragma once

#include "sim/coll.h"
#include "sim/coll-predict.h"
#include "test-util.h"

#include <string.h>

/* A node of n GPUs on a switch of per-GPU bandwidth 100 GB/s, with one
 * 100 Gbit/s NIC per GPU (12.5 GB/s) on a single network switch. */
static inline DpsTopo *
make_topo (int gpus_per_node, int nodes, const char *extra)
{
  GString *t = g_string_new (NULL);
  g_string_append_printf (t,
    "[system]\nname = test\ngpus_per_node = %d\n"
    "[gpu]\nmodel = g\nfp32_tflops = 10\nmemory_GB = 16\nmemory_bw_GBps = 900\n"
    "[intra]\nfabric = nvswitch\nbw_GBps = 100\npcie_GBps = 1000\n%s\n"
    "[nic]\ncount = %d\nbw_Gbps = 100\nlatency_us = 0\ngpus = ",
    gpus_per_node, extra ? extra : "", gpus_per_node);
  for (int g = 0; g < gpus_per_node; g++)
    g_string_append_printf (t, "%s%d", g ? ";" : "", g);
  g_string_append (t, "\n[nccl]\nchannels = 1\n");
  DpsTopo *topo = test_topo_from_text ("test.topo", t->str, nodes);
  g_string_free (t, TRUE);
  return topo;
}

#define shipped test_shipped_topo

/* Parameters with no latency, no pipeline fill and full payload efficiency. */
static inline void
zero_params (DpsCollParams *p)
{
  dps_tune_params_nccl (p);
  memset (p->fill_bytes, 0, sizeof p->fill_bytes);
  memset (p->base_s, 0, sizeof p->base_s);
  memset (p->step_s, 0, sizeof p->step_s);
  p->net_overhead_s = p->call_s = p->host_skew_s = 0;
  p->net_channel_Bps = 0;   /* the links alone set the bandwidth */
  for (int a = 0; a < DPS_ALGO_COUNT; a++) {
    p->algo_bw_factor[a] = 1;
    for (int q = 0; q < DPS_PROTO_COUNT; q++)
      p->bw_factor[a][q] = 1;
  }
}

/* The plan of algo in ctx, which must build. */
static inline DpsPlan *
plan_in (DpsCollCtx *ctx, DpsAlgo algo)
{
  g_autoptr (GError) e = NULL;
  ctx->algo = algo;
  DpsPlan *plan = NULL;
  g_assert_true (dps_coll_build_plan (ctx, &plan, &e));
  g_assert_no_error (e);
  return plan;
}

static inline DpsPlan *
plan_for (const DpsTopo *t, const DpsCollParams *p, int gpus, DpsCollOp op, double bytes, DpsAlgo algo)
{
  DpsCollCtx ctx;
  g_assert_true (dps_coll_ctx_init (&ctx, t, p, gpus, op, bytes, NULL));
  return plan_in (&ctx, algo);
}

/* A plan of algo for per_node GPUs of each of m nodes of t. */
static inline DpsPlan *
plan_spread (const DpsTopo *t, const DpsCollParams *p, int m, int per_node, DpsCollOp op, double bytes, DpsAlgo algo)
{
  DpsCollCtx ctx;
  g_assert_true (dps_coll_ctx_init_nodes (&ctx, t, p, m, per_node, op, bytes, NULL));
  return plan_in (&ctx, algo);
}
