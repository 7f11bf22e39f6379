/* Unit tests of NCCL's algorithms besides the ring (sim/coll-tree.c,
 * coll-hier.c, coll-nvls.c, coll-collnet.c, coll-pat.c): each plan's time
 * against its closed form. */
#include "coll-test-util.h"
#include "sim/base/error.h"

#include <math.h>
#include <string.h>

/* Tree all-reduce over m nodes of one GPU, one channel (one of NCCL's
 * binary trees, ncclGetBtree: the root has one child), each edge carrying
 * S up and S down at once through 12.5 GB/s NICs.  The busiest node bounds
 * it: m = 2: one edge, S; m = 4: node 2 under the root 0 has children 1
 * and 3, 3S; m = 8: node 4 under 0 has children 2 and 6, 3S (a heap
 * layout would give 2S and 3S).  Latency: 2 log2(m) network steps. */
static void
test_tree_pow2 (void)
{
  DpsCollParams p;
  zero_params (&p);
  double beta = 7e-6, S = 64e6, B = 12.5e9;
  for (int q = 0; q < DPS_PROTO_COUNT; q++)
    p.step_s[DPS_ALGO_TREE][DPS_LINK_NET][q] = beta;
  struct { int m; double edges; } cases[] = { { 2, 1 }, { 4, 3 }, { 8, 3 } };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    int m = cases[i].m;
    g_autoptr (DpsTopo) t = make_topo (1, m, NULL);
    g_autoptr (DpsPlan) plan = plan_for (t, &p, m, DPS_OP_ALLREDUCE, S, DPS_ALGO_TREE);
    double expect = 2 * log2 (m) * beta + cases[i].edges * S / B;
    g_assert_cmpfloat (REL (dps_plan_time_analytical (t, plan, DPS_PROTO_SIMPLE), expect), <, 1e-9);
    g_assert_cmpfloat (REL (dps_plan_time_flow (t, plan, DPS_PROTO_SIMPLE), expect), <, 1e-9);
  }
}

/* Hierarchical all-reduce on m = 2 and 4 nodes of r = 4 GPUs (100 GB/s
 * into the node switch, one 12.5 GB/s NIC each), one channel:
 *   reduce-scatter in the node: (r-1)/r S / 100 GB/s, 3 intra steps;
 *   all-reduce of S/r between nodes: 2(m-1)/m S/r / 12.5 GB/s, 2(m-1) steps;
 *   all-gather in the node: as the first phase.
 * With base 2 us, intra steps 1 us, network steps 3 us. */
static void
test_hier (void)
{
  DpsCollParams p;
  zero_params (&p);
  for (int q = 0; q < DPS_PROTO_COUNT; q++) {
    p.base_s[DPS_ALGO_HIER][q] = 2e-6;
    p.step_s[DPS_ALGO_HIER][DPS_LINK_NVLINK][q] = 1e-6;
    p.step_s[DPS_ALGO_HIER][DPS_LINK_NET][q] = 3e-6;
  }
  int r = 4;
  double S = 512e6;
  for (int m = 2; m <= 4; m += 2) {
    g_autoptr (DpsTopo) t = make_topo (r, m, NULL);
    g_autoptr (DpsPlan) plan = plan_for (t, &p, r * m, DPS_OP_ALLREDUCE, S, DPS_ALGO_HIER);
    g_assert_cmpint (plan->phases->len, ==, 3);
    double intra = (r - 1.0) / r * S / 100e9 + 3e-6;
    double inter = 2.0 * (m - 1) / m * S / r / 12.5e9 + 2 * (m - 1) * 3e-6;
    double expect = 2e-6 + 2 * intra + inter;
    g_assert_cmpfloat (REL (dps_plan_time_analytical (t, plan, DPS_PROTO_SIMPLE), expect), <, 1e-9);
    g_assert_cmpfloat (REL (dps_plan_time_flow (t, plan, DPS_PROTO_SIMPLE), expect), <, 1e-9);
  }
}

/* NVLS applies only where the topology has NVSwitch multicast (DGX H100,
 * not DGX A100), to all-reduce, and to all-gather and reduce-scatter inside
 * one node, only with Simple.  On one node each
 * GPU sends S up and receives S down at NCCL's Hopper NVLS efficiency
 * (0.85 of 370.8 GB/s) times the 0.85 of it the published tables reach,
 * after a 32 MB pipeline fill (sim/tune.c):
 * (S + 32 MB) / (0.85 x 0.85 x 370.8 GB/s) + 25 us + the call's 12.  Across 2 nodes of
 * 4 GPUs (100 GB/s to the switch at NVLS efficiency 0.5, 12.5 GB/s NICs)
 * the switch's efficiency slows the switch alone: each GPU sends and
 * receives 7/6 S through the switch (NVLS's one-node bus bandwidth over 8
 * ranks: (7/8) / (3/4) S) at 50 GB/s, 23.3 ms for 1 GB, while its NIC
 * carries S/4 each way at 12.5 GB/s (20 ms), so 23.3 ms, where derating
 * the NICs too gave 40 ms.  The bus bandwidth, 2 (n-1)/n S / t, is then
 * the one node's: 1.5 GB / 20 ms = 1.75 GB / 23.3 ms = 75 GB/s. */
static void
test_nvls (void)
{
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsTopo) a100 = shipped ("dgx-a100", 1);
  g_autoptr (DpsTopo) h100 = shipped ("dgx-h100", 1);
  g_autoptr (GError) e = NULL;
  DpsCollCtx ctx;
  DpsPlan *plan = NULL;
  dps_coll_ctx_init (&ctx, a100, &p, 8, DPS_OP_ALLREDUCE, 1e9, &e);
  ctx.algo = DPS_ALGO_NVLS;
  g_assert_false (dps_coll_build_plan (&ctx, &plan, &e));
  g_assert_nonnull (strstr (e->message, "nvls"));
  g_clear_error (&e);
  /* all-gather on NVLS: in one node only (its time: test-coll-cost.c) */
  g_autoptr (DpsTopo) h100x2 = shipped ("dgx-h100", 2);
  dps_coll_ctx_init (&ctx, h100x2, &p, 16, DPS_OP_ALLGATHER, 1e9, &e);
  ctx.algo = DPS_ALGO_NVLS;
  g_assert_false (dps_coll_build_plan (&ctx, &plan, &e));
  g_assert_nonnull (strstr (e->message, "one NVLink domain"));
  g_clear_error (&e);
  dps_coll_ctx_init (&ctx, h100, &p, 8, DPS_OP_ALLREDUCE, 1e9, &e);
  ctx.algo = DPS_ALGO_NVLS;
  g_assert_true (dps_coll_build_plan (&ctx, &plan, &e));
  g_assert_cmpfloat (plan->payload[DPS_PROTO_LL], ==, 0);
  double expect = 25e-6 + 12e-6 + (1e9 + 32e6) / (0.85 * 0.85 * 370.8e9);
  g_assert_cmpfloat (REL (dps_plan_time_analytical (h100, plan, DPS_PROTO_SIMPLE), expect), <, 1e-9);
  dps_plan_unref (plan);
  DpsCollParams z;
  zero_params (&z);
  g_autoptr (DpsTopo) two = make_topo (4, 2, "nvls = true\nnvls_efficiency = 0.5");
  g_autoptr (DpsPlan) nv = plan_for (two, &z, 8, DPS_OP_ALLREDUCE, 1e9, DPS_ALGO_NVLS);
  g_assert_cmpfloat (REL (dps_plan_time_analytical (two, nv, DPS_PROTO_SIMPLE), 1e9 * 7 / 6 / 50e9), <, 1e-9);
  g_assert_cmpfloat (REL (dps_plan_time_flow (two, nv, DPS_PROTO_SIMPLE), 1e9 * 7 / 6 / 50e9), <, 1e-9);
  g_autoptr (DpsTopo) one = make_topo (4, 1, "nvls = true\nnvls_efficiency = 0.5");
  g_autoptr (DpsPlan) nv1 = plan_for (one, &z, 4, DPS_OP_ALLREDUCE, 1e9, DPS_ALGO_NVLS);
  double bus1 = 1.5e9 / dps_plan_time_analytical (one, nv1, DPS_PROTO_SIMPLE);
  double bus2 = 1.75e9 / dps_plan_time_analytical (two, nv, DPS_PROTO_SIMPLE);
  g_assert_cmpfloat (REL (bus1, 75e9), <, 1e-9);
  g_assert_cmpfloat (REL (bus2, bus1), <, 1e-9);
  /* all-gather, 4 GPUs: NVLS receives S, a ring 3/4 S: 75 and 100 GB/s */
  g_autoptr (DpsPlan) ag = plan_for (one, &z, 4, DPS_OP_ALLGATHER, 1e9, DPS_ALGO_NVLS);
  g_autoptr (DpsPlan) ring = plan_for (one, &z, 4, DPS_OP_ALLGATHER, 1e9, DPS_ALGO_RING);
  g_assert_cmpfloat (REL (0.75e9 / dps_plan_time_analytical (one, ag, DPS_PROTO_SIMPLE), 75e9), <, 1e-9);
  g_assert_cmpfloat (REL (0.75e9 / dps_plan_time_analytical (one, ring, DPS_PROTO_SIMPLE), 100e9), <, 1e-9);
}

/* CollNet (SHARP): each of a node's h heads sends S/h up through its NIC
 * and gets the sum back, whatever the node count, at NCCL's 0.85 from
 * Hopper on (a GPU of no known generation is taken for Hopper); inside
 * the node a direct reduce-scatter and all-gather move 2(h-1)/h S out of
 * each GPU.  make_topo: 100 GB/s a GPU in the node, a 12.5 GB/s NIC a GPU. */
static void
test_collnet (void)
{
  DpsCollParams z;
  zero_params (&z);
  const char *sharp = "\n[fabric]\nkind = switch\nsharp = true";
  /* 4 GPUs: the NICs limit, S / (4 x 0.85 x 12.5 GB/s) on 2 nodes and on
   * 4 (a ring's would grow with the ranks, 2(n-1)/n S / 4 NICs) */
  for (int m = 2; m <= 4; m += 2) {
    g_autoptr (DpsTopo) t = make_topo (4, m, sharp);
    g_autoptr (DpsPlan) plan = plan_for (t, &z, 4 * m, DPS_OP_ALLREDUCE, 1e9, DPS_ALGO_COLLNET);
    double t_ana = dps_plan_time_analytical (t, plan, DPS_PROTO_SIMPLE);
    /* and NCCL's arity term, 2 (r - 1) 0.4 us, which no parameter holds */
    double expect = 1e9 / (4 * 0.85 * 12.5e9) + 2 * 3 * 0.4e-6;
    g_assert_cmpfloat (REL (t_ana, expect), <, 1e-9);
    g_assert_cmpfloat (REL (dps_plan_time_flow (t, plan, DPS_PROTO_SIMPLE), expect), <, 1e-6);
    g_assert_cmpfloat (plan->payload[DPS_PROTO_LL], ==, 0);
    g_assert_cmpfloat (plan->payload[DPS_PROTO_LL128], ==, 0);
  }
  /* 8 GPUs: the node's links limit, 2 x 7/8 S at 100 GB/s, as sjeaugey
   * put it for DGX A100 (NVIDIA/nccl#320: "the bottleneck becomes NVLink
   * which still has to transmit ~2x more data intra-node") */
  g_autoptr (DpsTopo) t8 = make_topo (8, 2, sharp);
  g_autoptr (DpsPlan) p8 = plan_for (t8, &z, 16, DPS_OP_ALLREDUCE, 1e9, DPS_ALGO_COLLNET);
  double t8_ana = dps_plan_time_analytical (t8, p8, DPS_PROTO_SIMPLE);
  g_assert_cmpfloat (REL (t8_ana, 1.75e9 / 100e9 + 2 * 7 * 0.4e-6), <, 1e-9);
  /* NCCL's latency: a call, 2 (3.7 us + (r - 1) 0.4 us) in the node and
   * 31 us in the switches: 12 + 2 (3.7 + 1.2) + 31 = 52.8 us with r = 4 */
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsTopo) t4 = make_topo (4, 2, sharp);
  g_autoptr (DpsPlan) lp = plan_for (t4, &p, 8, DPS_OP_ALLREDUCE, 1e9, DPS_ALGO_COLLNET);
  g_assert_cmpfloat (fabs (g_array_index (lp->phases, DpsPhase, 0).latency_s[DPS_PROTO_SIMPLE] - 52.8e-6), <, 1e-12);
  /* NCCL's choice: never without NCCL_COLLNET_ENABLE (DPS_NCCL_ALGOS);
   * with it, CollNet for 1 GB on 4 nodes, where it halves the NICs' bytes */
  g_autoptr (DpsTopo) t44 = make_topo (4, 4, sharp);
  DpsCollCtx ctx;
  DpsCollChoice c;
  g_autoptr (GError) e = NULL;
  g_assert_true (dps_coll_ctx_init (&ctx, t44, &p, 16, DPS_OP_ALLREDUCE, 1e9, &e));
  g_assert_true (dps_coll_choose (&ctx, DPS_NCCL_ALGOS, DPS_ALL_PROTOS, &c, &e));
  g_assert_cmpint (c.algo, !=, DPS_ALGO_COLLNET);
  dps_plan_unref (c.plan);
  g_assert_true (dps_coll_choose (&ctx, DPS_NCCL_ALGOS | 1u << DPS_ALGO_COLLNET, DPS_ALL_PROTOS, &c, &e));
  g_assert_cmpint (c.algo, ==, DPS_ALGO_COLLNET);
  g_assert_cmpint (c.proto, ==, DPS_PROTO_SIMPLE);
  dps_plan_unref (c.plan);
  /* where NCCL cannot run it: no SHARP, one node, not an all-reduce */
  struct { DpsTopo *t; int gpus; DpsCollOp op; const char *why; } no[] = {
    { make_topo (4, 2, NULL), 8, DPS_OP_ALLREDUCE, "sharp = true" },
    { make_topo (4, 1, sharp), 4, DPS_OP_ALLREDUCE, "at least 2 nodes" },
    { make_topo (4, 2, sharp), 8, DPS_OP_ALLGATHER, "only allreduce" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (no); i++) {
    DpsPlan *plan = NULL;
    g_assert_true (dps_coll_ctx_init (&ctx, no[i].t, &p, no[i].gpus, no[i].op, 1e9, &e));
    ctx.algo = DPS_ALGO_COLLNET;
    g_assert_false (dps_coll_build_plan (&ctx, &plan, &e));
    g_assert_nonnull (strstr (e->message, no[i].why));
    g_clear_error (&e);
    dps_topo_free (no[i].t);
  }
  /* SHARP is InfiniBand's: a topology with sharp on other NICs is refused */
  g_autoptr (DpsTopoSpec) efa = dps_topo_spec_load_data (
    "efa.topo", "[system]\nname = e\ngpus_per_node = 1\n[gpu]\nmodel = g\nfp32_tflops = 1\nmemory_GB = 1\n"
    "memory_bw_GBps = 1\n[intra]\nfabric = pcie\nbw_GBps = 10\n[nic]\ncount = 1\nbw_Gbps = 100\n"
    "transport = efa\ngpus = 0\n[fabric]\nkind = switch\nsharp = true\n", -1, &e);
  g_assert_null (efa);
  g_assert_nonnull (strstr (e->message, "InfiniBand"));
}

/* PAT (coll-pat.c), NCCL's all-gather and reduce-scatter for one GPU a
 * node: Bruck's exchange sends (n-1)/n S out of each rank, as a ring does,
 * at NCCL's 0.75 of the bandwidth, with log2 n rounds of latency.
 * make_topo: a 12.5 GB/s NIC a GPU, one switch. */
static void
test_pat (void)
{
  DpsCollParams z;
  zero_params (&z);
  z.algo_bw_factor[DPS_ALGO_PAT] = 0.75;
  g_autoptr (DpsTopo) t = make_topo (8, 16, NULL);
  /* 12 nodes (not a power of two: the last round sends 4 blocks, not 8):
   * 1 + 2 + 4 + 4 = 11 blocks of S/12 leave each rank */
  for (int op = DPS_OP_REDUCE_SCATTER; op <= DPS_OP_ALLGATHER; op++) {
    g_autoptr (DpsPlan) plan = plan_spread (t, &z, 12, 1, (DpsCollOp) op, 1.2e9, DPS_ALGO_PAT);
    const DpsPhase *ph = &g_array_index (plan->phases, DpsPhase, 0);
    double out0 = 0, all = 0;
    for (guint i = 0; i < ph->flows->len; i++) {
      const DpsFlowSpec *f = &g_array_index (ph->flows, DpsFlowSpec, i);
      all += f->bytes;
      out0 += f->src == 0 ? f->bytes : 0;
    }
    g_assert_cmpfloat (REL (out0, 1.1e9), <, 1e-12);
    g_assert_cmpfloat (REL (all, 12 * 1.1e9), <, 1e-12);
    /* and NCCL's linear term, n x 2.8 us, which no parameter holds */
    double expect = 1.1e9 / (0.75 * 12.5e9) + 12 * 2.8e-6;
    g_assert_cmpfloat (REL (dps_plan_time_analytical (t, plan, DPS_PROTO_SIMPLE), expect), <, 1e-9);
    g_assert_cmpfloat (REL (dps_plan_time_flow (t, plan, DPS_PROTO_SIMPLE), expect), <, 1e-6);
    g_assert_cmpfloat (plan->payload[DPS_PROTO_LL], ==, 0);
    g_assert_cmpfloat (plan->payload[DPS_PROTO_LL128], ==, 0);
  }
  /* NCCL's latency: a call (12 us), base 8 us, floor(log2 n) x 14/3.5 us
   * and n x 2.8 us: 12 nodes 12 + 8 + 3 x 4 + 33.6 = 65.6 us, 16 nodes
   * 12 + 8 + 4 x 4 + 44.8 = 80.8 us */
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  const struct { int m; double us; } lat[] = { { 12, 65.6 }, { 16, 80.8 } };
  for (gsize i = 0; i < G_N_ELEMENTS (lat); i++) {
    g_autoptr (DpsPlan) plan = plan_spread (t, &p, lat[i].m, 1, DPS_OP_ALLGATHER, 1e6, DPS_ALGO_PAT);
    g_assert_cmpfloat (fabs (g_array_index (plan->phases, DpsPhase, 0).latency_s[DPS_PROTO_SIMPLE] - lat[i].us * 1e-6),
                       <, 1e-12);
  }
  /* one rank a node: a ring's network steps take the tree's latency (LL
   * 5 us, not the ring's 2.7): 12 + 6.6 + 15 x 5 = 93.6 us on 16 nodes */
  g_autoptr (DpsPlan) ring = plan_spread (t, &p, 16, 1, DPS_OP_ALLGATHER, 1e6, DPS_ALGO_RING);
  g_assert_cmpfloat (fabs (g_array_index (ring->phases, DpsPhase, 0).latency_s[DPS_PROTO_LL] - 93.6e-6), <, 1e-12);
  /* NCCL's choice: PAT for 64 KiB on 16 single-GPU nodes, where it pays 4
   * rounds for the ring's 15 steps; a ring for 4 GiB, at its full
   * bandwidth; never with 8 GPUs a node, nor for an all-reduce */
  const struct { int m, per; DpsCollOp op; double bytes; gboolean pat; } ch[] = {
    { 16, 1, DPS_OP_ALLGATHER, 1 << 16, TRUE },
    { 16, 1, DPS_OP_REDUCE_SCATTER, 1 << 16, TRUE },
    { 16, 1, DPS_OP_ALLGATHER, 4.0 * (1 << 30), FALSE },
    { 2, 8, DPS_OP_ALLGATHER, 1 << 16, FALSE },
    { 16, 1, DPS_OP_ALLREDUCE, 1 << 16, FALSE },
  };
  g_autoptr (GError) e = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (ch); i++) {
    DpsCollCtx ctx;
    DpsCollChoice c;
    g_assert_true (dps_coll_ctx_init_nodes (&ctx, t, &p, ch[i].m, ch[i].per, ch[i].op, ch[i].bytes, &e));
    g_assert_true (dps_coll_choose (&ctx, DPS_NCCL_ALGOS, DPS_ALL_PROTOS, &c, &e));
    g_assert_cmpint (c.algo == DPS_ALGO_PAT, ==, ch[i].pat);
    dps_plan_unref (c.plan);
  }
  /* where NCCL cannot run it, and NVLS with one GPU a node */
  g_autoptr (DpsTopo) nv = make_topo (8, 16, "nvls = true");
  const struct { int per; DpsCollOp op; DpsAlgo algo; const char *why; } no[] = {
    { 1, DPS_OP_ALLREDUCE, DPS_ALGO_PAT, "only allgather and reducescatter" },
    { 8, DPS_OP_ALLGATHER, DPS_ALGO_PAT, "one GPU a node" },
    { 1, DPS_OP_ALLREDUCE, DPS_ALGO_NVLS, "2 GPUs of a node" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (no); i++) {
    DpsCollCtx ctx;
    DpsPlan *plan = NULL;
    g_assert_true (dps_coll_ctx_init_nodes (&ctx, nv, &p, 2, no[i].per, no[i].op, 1e9, &e));
    ctx.algo = no[i].algo;
    g_assert_false (dps_coll_build_plan (&ctx, &plan, &e));
    g_assert_nonnull (strstr (e->message, no[i].why));
    g_clear_error (&e);
  }
  /* more nodes or GPUs than the topology has */
  DpsCollCtx ctx;
  g_assert_false (dps_coll_ctx_init_nodes (&ctx, t, &p, 17, 1, DPS_OP_ALLGATHER, 1e6, &e));
  g_assert_nonnull (strstr (e->message, "GPU count"));
  g_clear_error (&e);
  g_assert_false (dps_coll_ctx_init_nodes (&ctx, t, &p, 2, 9, DPS_OP_ALLGATHER, 1e6, &e));
  g_clear_error (&e);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/coll/tree/pow2", test_tree_pow2);
  g_test_add_func ("/coll/hier/2-and-4-nodes", test_hier);
  g_test_add_func ("/coll/nvls/where-allowed", test_nvls);
  g_test_add_func ("/coll/collnet", test_collnet);
  g_test_add_func ("/coll/pat", test_pat);
  return g_test_run ();
}
