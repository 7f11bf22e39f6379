/* Unit tests of the collective model across nodes by NCCL's channels
 * (sim/tune.c): the pipeline fill, and the channels' count and
 * ceiling, which follow the NICs a node's ranks use. */
#include "sim/coll.h"
#include "sim/coll-predict.h"
#include "sim/topo-load.h"
#include "test-util.h"

#include <math.h>

#define shipped test_shipped_topo

/* The pipeline fill: a collective of S bytes moves as S + min(S, F).
 * Below F it reaches half its bandwidth (factor 2), above it pays F once:
 * 128 MB with F = 64 MB is 1.5 of its bandwidth term; no fill, 1.  F is
 * per channel: two channels of 64 MB fill 128 MB, factor 2.  NVLS fills
 * NCCL's own NVLS channels (src/transport/nvls.cc): 16 on Hopper, on
 * Blackwell 24 in one node and 32 across, times the node's GPUs (one
 * chunk each); a ring's fill is its whole collective's across nodes,
 * 0.375 of it in one (24 MB: 48 MB 1.5). */
static void
test_fill (void)
{
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  p.fill_bytes[DPS_ALGO_RING][DPS_PROTO_SIMPLE] = 64e6;
  g_assert_cmpfloat (dps_tune_fill_factor (&p, DPS_ALGO_RING, DPS_PROTO_SIMPLE, 1, 1e6), ==, 2);
  g_assert_cmpfloat (dps_tune_fill_factor (&p, DPS_ALGO_RING, DPS_PROTO_SIMPLE, 1, 128e6), ==, 1.5);
  g_assert_cmpfloat (dps_tune_fill_factor (&p, DPS_ALGO_RING, DPS_PROTO_SIMPLE, 2, 128e6), ==, 2);
  p.fill_bytes[DPS_ALGO_RING][DPS_PROTO_SIMPLE] = 0;
  g_assert_cmpfloat (dps_tune_fill_factor (&p, DPS_ALGO_RING, DPS_PROTO_SIMPLE, 1, 1e6), ==, 1);
  g_autoptr (DpsTopo) h = shipped ("dgx-h100", 2), b = shipped ("hgx-b200", 2);
  DpsCollCtx ctx;
  g_assert_true (dps_coll_ctx_init (&ctx, h, &p, 16, DPS_OP_ALLREDUCE, 1e9, NULL));
  g_assert_cmpfloat (dps_tune_fill_times (&ctx, DPS_ALGO_NVLS), ==, 16 * 8);
  g_assert_cmpfloat (dps_tune_fill_times (&ctx, DPS_ALGO_RING), ==, 1);
  g_assert_true (dps_coll_ctx_init (&ctx, b, &p, 16, DPS_OP_ALLREDUCE, 1e9, NULL));
  g_assert_cmpfloat (dps_tune_fill_times (&ctx, DPS_ALGO_NVLS), ==, 32 * 8);
  g_assert_true (dps_coll_ctx_init (&ctx, b, &p, 4, DPS_OP_ALLREDUCE, 1e9, NULL));
  g_assert_cmpfloat (dps_tune_fill_times (&ctx, DPS_ALGO_NVLS), ==, 24 * 4);
  p.fill_bytes[DPS_ALGO_RING][DPS_PROTO_SIMPLE] = 64e6;
  g_assert_cmpfloat (dps_tune_fill_factor (&p, DPS_ALGO_RING, DPS_PROTO_SIMPLE, dps_tune_fill_times (&ctx, DPS_ALGO_RING), 48e6), ==, 1.5);
}

/* Across nodes a ring's fill is for the NICs its ranks use: NCCL's
 * channels there follow the NICs (a channel per NIC, doubled:
 * src/graph/search.cc), so ranks on 1, 2 or 4 of a DGX H100's 8 GPUs (one
 * NIC each) fill 1/8, 2/8 and 4/8 of what whole nodes fill, and on AWS
 * p4de, whose GPUs share a NIC in pairs, 1 or 2 GPUs fill 1/4 of the 4
 * NICs, 4 GPUs 2/4.  A tree keeps its depth rule, (r - 1 + log2 m) /
 * tree_fill_hops (1 GPU on 8 nodes: 3/4); inside one node nothing
 * changes (0.375).  Read back through the plan: a one-rank-a-node Simple
 * ring of 64 MB on dgx-h100 fills 8 MB, payload 1 / (72 / 64). */
static void
test_fill_nic_share (void)
{
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsTopo) h = shipped ("dgx-h100", 8), a = shipped ("aws-p4de", 2);
  DpsCollCtx ctx;
  static const struct { int per_node; double share; } hs[] = { { 1, 0.125 }, { 2, 0.25 }, { 4, 0.5 }, { 8, 1 } };
  for (gsize i = 0; i < G_N_ELEMENTS (hs); i++) {
    g_assert_true (dps_coll_ctx_init_nodes (&ctx, h, &p, 8, hs[i].per_node, DPS_OP_ALLREDUCE, 64e6, NULL));
    g_assert_cmpfloat (dps_tune_fill_nic_share (&ctx), ==, hs[i].share);
    g_assert_cmpfloat (dps_tune_fill_times (&ctx, DPS_ALGO_RING), ==, hs[i].share);
  }
  g_assert_true (dps_coll_ctx_init_nodes (&ctx, h, &p, 8, 1, DPS_OP_ALLREDUCE, 64e6, NULL));
  g_assert_cmpfloat (dps_tune_fill_times (&ctx, DPS_ALGO_TREE), ==, 0.75);
  ctx.algo = DPS_ALGO_RING;
  DpsPlan *plan = NULL;
  g_assert_true (dps_coll_build_plan (&ctx, &plan, NULL));
  g_assert_cmpfloat_with_epsilon (plan->uncapped[DPS_PROTO_SIMPLE], 64.0 / 72.0, 1e-12);
  dps_plan_unref (plan);
  static const struct { int per_node; double share; } as[] = { { 1, 0.25 }, { 2, 0.25 }, { 4, 0.5 }, { 8, 1 } };
  for (gsize i = 0; i < G_N_ELEMENTS (as); i++) {
    g_assert_true (dps_coll_ctx_init_nodes (&ctx, a, &p, 2, as[i].per_node, DPS_OP_ALLREDUCE, 64e6, NULL));
    g_assert_cmpfloat (dps_tune_fill_times (&ctx, DPS_ALGO_RING), ==, as[i].share);
  }
  g_autoptr (DpsTopo) one = shipped ("dgx-h100", 1);
  g_assert_true (dps_coll_ctx_init_nodes (&ctx, one, &p, 1, 4, DPS_OP_ALLREDUCE, 64e6, NULL));
  g_assert_cmpfloat (dps_tune_fill_times (&ctx, DPS_ALGO_RING), ==, p.fill_one_node);
}

/* Groups of one shape running at once on a node's other GPUs (a 3D
 * layout's data-parallel groups, ctx.siblings) share the links they
 * cross: a ring of one GPU a node on 2 nodes of AWS p4de, whose GPUs
 * share a NIC in pairs, beside its 7 siblings moves twice the bytes
 * through its NIC: the wire time of 1 GB doubles.  On DGX H100 (a NIC a
 * GPU) the siblings' flows take other NICs: unchanged. */
static void
test_siblings (void)
{
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  static const struct { const char *topo; double ratio; } want[] = { { "aws-p4de", 2 }, { "dgx-h100", 1 } };
  for (gsize i = 0; i < G_N_ELEMENTS (want); i++) {
    g_autoptr (DpsTopo) t = shipped (want[i].topo, 2);
    double time[2];
    for (int s = 0; s < 2; s++) {
      DpsCollCtx ctx;
      g_assert_true (dps_coll_ctx_init_nodes (&ctx, t, &p, 2, 1, DPS_OP_ALLREDUCE, 1e9, NULL));
      ctx.siblings = s ? 8 : 1;
      ctx.algo = DPS_ALGO_RING;
      DpsPlan *plan = NULL;
      g_assert_true (dps_coll_build_plan (&ctx, &plan, NULL));
      double fixed = dps_plan_latency (plan, DPS_PROTO_SIMPLE, TRUE);
      time[s] = dps_plan_time_analytical (t, plan, DPS_PROTO_SIMPLE) - fixed;
      dps_plan_unref (plan);
    }
    g_test_message ("%s: alone %g s, beside 7 siblings %g s", want[i].topo, time[0], time[1]);
    g_assert_cmpfloat_with_epsilon (time[1] / time[0], want[i].ratio, 1e-9);
  }
}

/* NCCL's ring channels across nodes follow the NICs in use
 * (src/graph/search.cc, connect.cc): a channel a NIC, doubled where at
 * most 4 fast NICs (25 GB/s and more) are in use, then doubled again: a
 * DGX H100 with 1, 2, 4 and 8 GPUs a node runs 4, 8, 16 and 16 channels
 * (4 a NIC, then 2); DGX A100's 200 Gb/s NICs (24.25 GB/s reachable) are
 * not doubled the first time: 2 and 16.  One channel moves at most
 * net_channel_Bps across nodes, so NCCL's ceiling of a Simple ring is
 * channels x that as bus bandwidth (algorithm bandwidth n/(2(n-1)) of it
 * for all-reduce, n/(n-1) for all-gather), and NVLSTree's its 16 NVLS
 * channels' (Hopper) on 2 nodes, half that deeper (each node a parent in
 * one tree carries 2 S each way); none inside one node. */
static void
test_net_channels (void)
{
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsTopo) h = shipped ("dgx-h100", 4), a = shipped ("dgx-a100", 2), one = shipped ("dgx-h100", 1);
  DpsCollCtx ctx;
  static const int per[] = { 1, 2, 4, 8 }, hch[] = { 4, 8, 16, 16 };
  for (gsize i = 0; i < G_N_ELEMENTS (per); i++) {
    g_assert_true (dps_coll_ctx_init_nodes (&ctx, h, &p, 4, per[i], DPS_OP_ALLREDUCE, 1e9, NULL));
    g_assert_cmpint (dps_tune_ring_net_channels (&ctx), ==, hch[i]);
  }
  g_assert_true (dps_coll_ctx_init_nodes (&ctx, a, &p, 2, 1, DPS_OP_ALLREDUCE, 1e9, NULL));
  g_assert_cmpint (dps_tune_ring_net_channels (&ctx), ==, 2);
  /* nor when a calibration fits the NICs 10% faster (26.7 GB/s): NCCL's
   * rule reads its own figure */
  g_autoptr (DpsTopoSpec) fitted = test_shipped_spec ("dgx-a100");
  fitted->nic_bw_Bps *= 1.1;
  g_autoptr (DpsTopo) af = dps_topo_new (fitted, 2, NULL);
  g_assert_true (dps_coll_ctx_init_nodes (&ctx, af, &p, 2, 1, DPS_OP_ALLREDUCE, 1e9, NULL));
  g_assert_cmpint (dps_tune_ring_net_channels (&ctx), ==, 2);
  g_assert_true (dps_coll_ctx_init_nodes (&ctx, a, &p, 2, 8, DPS_OP_ALLREDUCE, 1e9, NULL));
  g_assert_cmpint (dps_tune_ring_net_channels (&ctx), ==, 16);
  double c = p.net_channel_Bps;
  g_assert_cmpfloat (c, >, 0);
  static const struct { int nodes; DpsCollOp op; DpsAlgo algo; double expect; } caps[] = {
    { 4, DPS_OP_ALLREDUCE, DPS_ALGO_RING, 16 * 0.5 * 32 / 31.0 },
    { 4, DPS_OP_ALLGATHER, DPS_ALGO_RING, 16 * 32 / 31.0 },
    { 2, DPS_OP_ALLREDUCE, DPS_ALGO_NVLS, 16 },
    { 4, DPS_OP_ALLREDUCE, DPS_ALGO_NVLS, 8 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (caps); i++) {
    g_assert_true (dps_coll_ctx_init_nodes (&ctx, h, &p, caps[i].nodes, 8, caps[i].op, 1e9, NULL));
    ctx.algo = caps[i].algo;
    g_assert_cmpfloat (REL (dps_tune_bw_cap_Bps (&ctx, DPS_PROTO_SIMPLE), caps[i].expect * c), <, 1e-12);
  }
  g_assert_true (dps_coll_ctx_init_nodes (&ctx, one, &p, 1, 8, DPS_OP_ALLREDUCE, 1e9, NULL));
  ctx.algo = DPS_ALGO_RING;
  g_assert_cmpfloat (dps_tune_bw_cap_Bps (&ctx, DPS_PROTO_SIMPLE), ==, 0);
  /* and a plan holds to it: a 64 GiB ring all-reduce on 4 DGX H100, its
   * NICs good for 8 x 48.5 = 388 GB/s, levels off at 16 channels' busbw */
  g_assert_true (dps_coll_ctx_init_nodes (&ctx, h, &p, 4, 8, DPS_OP_ALLREDUCE, 64.0 * (1 << 30), NULL));
  ctx.algo = DPS_ALGO_RING;
  DpsPlan *plan = NULL;
  g_assert_true (dps_coll_build_plan (&ctx, &plan, NULL));
  double t = dps_plan_time_analytical (h, plan, DPS_PROTO_SIMPLE);
  double busbw = ctx.bytes / t * 2 * 31 / 32;
  g_assert_cmpfloat (busbw, <=, 16 * c);
  g_assert_cmpfloat (busbw, >, 0.99 * 16 * c);
  dps_plan_unref (plan);
}

/* Inside one NVSwitch node NCCL's rings follow the NVLinks
 * (src/graph/search.cc, dps_tune_nvswitch_channels): an A100's 12 x 20 GB/s
 * (240) holds 6 channels at 40, doubled to 12; an H100's 18 x 20.6 (370.8)
 * 6 at 60, doubled to 12; a B200's 18 x 40.1 (721.8) 8 at 90, doubled to
 * 16; a DGX-2 V100's 6 x 20 (120) 3 at 40, doubled to 6.  A collective of
 * one such node runs them, one across nodes the NICs' (8); a PCIe node has
 * none of its own; a calibration's fitted bandwidth leaves them.  The per-channel ceilings are busbw, as NCCL turns them
 * into algorithm bandwidth (n / its steps): one B200 node's LL ring is
 * held to 282 GB/s of busbw, 282 x 8/7 of algbw for an all-gather and
 * 282 x 8/14 for an all-reduce; its LL128 to 16 channels x 40.  A
 * channel's Simple ring moves the search's speed (bwIntra: the B200's
 * 720 / 16 = 45 GB/s): at NCCL's 16 channels no ceiling beyond the
 * NVLinks', with fewer (--channels 4) 4 x 45 of busbw. */
static void
test_nvswitch_channels (void)
{
  static const struct { const char *topo; int channels; } want[] = {
    { "dgx-a100", 12 }, { "dgx-h100", 12 }, { "hgx-b200", 16 }, { "dgx2-v100", 6 }, { "pcie-8x-rtx4090", 0 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (want); i++) {
    g_autoptr (DpsTopo) t = shipped (want[i].topo, 2);
    g_assert_cmpint (dps_tune_nvswitch_channels (dps_topo_spec (t)), ==, want[i].channels);
  }
  /* a calibration's fitted NVLink bandwidth (0.9 of the H100's, 333.7
   * GB/s, where the search would find 11 channels of 30) does not move
   * NCCL's search, which runs on its own estimate */
  g_autoptr (DpsTopoSpec) fitted = test_shipped_spec ("dgx-h100");
  fitted->intra_bw_Bps *= 0.9;
  g_assert_cmpint (dps_tune_nvswitch_channels (fitted), ==, 12);
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsTopo) b = shipped ("hgx-b200", 2);
  DpsCollCtx ctx;
  g_assert_true (dps_coll_ctx_init_nodes (&ctx, b, &p, 1, 8, DPS_OP_ALLGATHER, 1e6, NULL));
  g_assert_cmpint (ctx.channels, ==, 16);
  g_assert_cmpfloat (REL (dps_tune_bw_cap_Bps (&ctx, DPS_PROTO_LL), 282e9 * 8 / 7), <, 1e-12);
  g_assert_cmpfloat (REL (dps_tune_bw_cap_Bps (&ctx, DPS_PROTO_LL128), 16 * 40e9 * 8 / 7), <, 1e-12);
  ctx.op = DPS_OP_ALLREDUCE;
  g_assert_cmpfloat (REL (dps_tune_bw_cap_Bps (&ctx, DPS_PROTO_LL), 282e9 * 8 / 14), <, 1e-12);
  g_assert_cmpfloat (dps_tune_bw_cap_Bps (&ctx, DPS_PROTO_SIMPLE), ==, 0);
  /* fewer channels than NCCL's 16 carry bwIntra each, 45 GB/s on a B200 */
  ctx.channels = 1;
  g_assert_cmpfloat (REL (dps_tune_bw_cap_Bps (&ctx, DPS_PROTO_SIMPLE), 45e9 * 8 / 14), <, 1e-12);
  ctx.channels = 4;
  g_assert_cmpfloat (REL (dps_tune_bw_cap_Bps (&ctx, DPS_PROTO_SIMPLE), 4 * 45e9 * 8 / 14), <, 1e-12);
  g_assert_true (dps_coll_ctx_init_nodes (&ctx, b, &p, 2, 8, DPS_OP_ALLGATHER, 1e6, NULL));
  g_assert_cmpint (ctx.channels, ==, 8);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/coll/fill", test_fill);
  g_test_add_func ("/coll/fill-nic-share", test_fill_nic_share);
  g_test_add_func ("/coll/siblings", test_siblings);
  g_test_add_func ("/coll/net-channels", test_net_channels);
  g_test_add_func ("/coll/nvswitch-channels", test_nvswitch_channels);
  return g_test_run ();
}
