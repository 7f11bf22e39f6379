/* Unit tests of the collective models (sim/coll*.c, sim/tune.c, sim/coll-predict.c). */
#include "sim/coll.h"
#include "sim/coll-predict.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"
#include "test-util.h"

#include <math.h>
#include <string.h>

/* A node of n GPUs on a switch of per-GPU bandwidth 100 GB/s, with one
 * 100 Gbit/s NIC per GPU (12.5 GB/s) on a single network switch. */
static DpsTopo *
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
static void
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
static DpsPlan *
plan_in (DpsCollCtx *ctx, DpsAlgo algo)
{
  g_autoptr (GError) e = NULL;
  ctx->algo = algo;
  DpsPlan *plan = NULL;
  g_assert_true (dps_coll_build_plan (ctx, &plan, &e));
  g_assert_no_error (e);
  return plan;
}

static DpsPlan *
plan_for (const DpsTopo *t, const DpsCollParams *p, int gpus, DpsCollOp op, double bytes, DpsAlgo algo)
{
  DpsCollCtx ctx;
  g_assert_true (dps_coll_ctx_init (&ctx, t, p, gpus, op, bytes, NULL));
  return plan_in (&ctx, algo);
}


/* Ring all-reduce on a homogeneous ring of n GPUs (each hop B = 100 GB/s,
 * per-step latency alpha = 5 us) takes 2(n-1)(alpha + S/(nB)): 2(n-1)
 * steps, each moving S/n.  Both timing modes give it. */
static void
test_ring_closed_form (void)
{
  DpsCollParams p;
  zero_params (&p);
  double alpha = 5e-6, B = 100e9;
  for (int q = 0; q < DPS_PROTO_COUNT; q++)
    p.step_s[DPS_ALGO_RING][DPS_LINK_NVLINK][q] = alpha;
  int sizes[] = { 2, 4, 8 };
  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++) {
    int n = sizes[i];
    g_autoptr (DpsTopo) t = make_topo (n, 1, NULL);
    double S = 256e6;
    g_autoptr (DpsPlan) plan = plan_for (t, &p, n, DPS_OP_ALLREDUCE, S, DPS_ALGO_RING);
    double expect = 2.0 * (n - 1) * (alpha + S / (n * B));
    g_assert_cmpfloat (REL (dps_plan_time_analytical (t, plan, DPS_PROTO_SIMPLE), expect), <, 1e-9);
    g_assert_cmpfloat (REL (dps_plan_time_flow (t, plan, DPS_PROTO_SIMPLE), expect), <, 1e-9);
  }
}

/* The other ring operations on the same ring: reduce-scatter and
 * all-gather take (n-1)/n S/B (S the whole array), broadcast S/B. */
static void
test_ring_ops (void)
{
  DpsCollParams p;
  zero_params (&p);
  int n = 8;
  double S = 1e9, B = 100e9;
  g_autoptr (DpsTopo) t = make_topo (n, 1, NULL);
  struct { DpsCollOp op; double expect; } cases[] = {
    { DPS_OP_REDUCE_SCATTER, (n - 1.0) / n * S / B },
    { DPS_OP_ALLGATHER, (n - 1.0) / n * S / B },
    { DPS_OP_BROADCAST, S / B },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (DpsPlan) plan = plan_for (t, &p, n, cases[i].op, S, DPS_ALGO_RING);
    g_assert_cmpfloat (REL (dps_plan_time_flow (t, plan, DPS_PROTO_SIMPLE), cases[i].expect), <, 1e-9);
  }
}

/* nccl-tests' bus bandwidth factors: all-reduce 2(n-1)/n, reduce-scatter
 * and all-gather (n-1)/n, broadcast 1. */
static void
test_busbw_factor (void)
{
  g_assert_cmpfloat (dps_coll_busbw_factor (DPS_OP_ALLREDUCE, 8), ==, 1.75);
  g_assert_cmpfloat (dps_coll_busbw_factor (DPS_OP_REDUCE_SCATTER, 8), ==, 0.875);
  g_assert_cmpfloat (dps_coll_busbw_factor (DPS_OP_ALLGATHER, 4), ==, 0.75);
  g_assert_cmpfloat (dps_coll_busbw_factor (DPS_OP_BROADCAST, 8), ==, 1.0);
}

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

/* A plan of algo for per_node GPUs of each of m nodes of t. */
static DpsPlan *
plan_spread (const DpsTopo *t, const DpsCollParams *p, int m, int per_node, DpsCollOp op, double bytes, DpsAlgo algo)
{
  DpsCollCtx ctx;
  g_assert_true (dps_coll_ctx_init_nodes (&ctx, t, p, m, per_node, op, bytes, NULL));
  return plan_in (&ctx, algo);
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

/* NCCL's protocol choice by size: LL (least latency) for small messages,
 * LL128 in between, Simple (full bandwidth) for large ones; the protocol
 * never steps back as sizes grow.  Ring on two DGX H100. */
static void
test_protocol_choice (void)
{
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsTopo) t = shipped ("dgx-h100", 2);
  int seen[DPS_PROTO_COUNT] = { 0 };
  int last = 0;
  for (double S = 8; S <= 8.0 * (1ull << 30); S *= 2) {
    DpsCollCtx ctx;
    DpsCollChoice c;
    g_autoptr (GError) e = NULL;
    dps_coll_ctx_init (&ctx, t, &p, 16, DPS_OP_ALLREDUCE, S, &e);
    g_assert_true (dps_coll_choose (&ctx, 1u << DPS_ALGO_RING, DPS_ALL_PROTOS, &c, &e));
    g_assert_cmpint (c.proto, >=, last);
    last = c.proto;
    seen[c.proto]++;
    dps_plan_unref (c.plan);
  }
  g_assert_cmpint (seen[DPS_PROTO_LL], >, 0);
  g_assert_cmpint (seen[DPS_PROTO_LL128], >, 0);
  g_assert_cmpint (seen[DPS_PROTO_SIMPLE], >, 0);
  /* and with all of NCCL's algorithms: NVLS takes the largest messages on
   * NVLS-capable nodes, as NCCL does on H100 */
  DpsCollCtx ctx;
  DpsCollChoice c;
  dps_coll_ctx_init (&ctx, t, &p, 16, DPS_OP_ALLREDUCE, 1e9, NULL);
  g_assert_true (dps_coll_choose (&ctx, DPS_NCCL_ALGOS, DPS_ALL_PROTOS, &c, NULL));
  g_assert_cmpint (c.algo, ==, DPS_ALGO_NVLS);
  dps_plan_unref (c.plan);
}

/* The flow-level and analytical modes agree within 1% for every plan
 * that applies, where nothing else shares the network (one case per
 * topology and node count, 1 MiB to 1 GiB, Simple): a ring applies to
 * every fabric, so each case compares at least one plan per size; the
 * algorithms that do not apply are named in the log. */
typedef struct { const char *name; int nodes; } ModesCase;

static void
test_modes_agree (gconstpointer data)
{
  const ModesCase *c = data;
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsTopo) t = shipped (c->name, c->nodes);
  for (double S = 1 << 20; S <= 1 << 30; S *= 32) {
    gboolean ring = FALSE;
    for (int a = 0; a < DPS_ALGO_COUNT; a++) {
      DpsCollCtx ctx;
      g_assert_true (dps_coll_ctx_init (&ctx, t, &p, dps_topo_n_gpus (t), DPS_OP_ALLREDUCE, S, NULL));
      ctx.algo = (DpsAlgo) a;
      DpsPlan *plan = NULL;
      g_autoptr (GError) why = NULL;
      if (!dps_coll_build_plan (&ctx, &plan, &why)) {
        g_test_message ("%s x%d %s: %s", c->name, c->nodes, dps_algo_name ((DpsAlgo) a), why->message);
        continue;
      }
      ring |= a == DPS_ALGO_RING;
      double fa = dps_plan_time_analytical (t, plan, DPS_PROTO_SIMPLE);
      double ff = dps_plan_time_flow (t, plan, DPS_PROTO_SIMPLE);
      if (REL (ff, fa) > 0.01)
        g_test_fail_printf ("%s x%d %s %.0f B: flow %.6g s, analytical %.6g s", c->name, c->nodes,
                            dps_algo_name ((DpsAlgo) a), S, ff, fa);
      dps_plan_unref (plan);
    }
    g_assert_true (ring);
  }
}

static double
ring_time_oversub (double oversub, DpsNetMode mode)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsTopoSpec) s = test_shipped_spec ("dgx-h100-oversub2");
  s->oversubscription = oversub;
  s->net_extra_s = 0;   /* no latency: bandwidth alone */
  g_autoptr (DpsTopo) t = dps_topo_new (s, 8, &e);
  DpsCollParams p;
  zero_params (&p);
  g_autoptr (DpsPlan) plan = plan_for (t, &p, 64, DPS_OP_ALLREDUCE, 8e9, DPS_ALGO_RING);
  return mode == DPS_MODE_FLOW ? dps_plan_time_flow (t, plan, DPS_PROTO_SIMPLE)
                               : dps_plan_time_analytical (t, plan, DPS_PROTO_SIMPLE);
}

/* 8 DGX H100 nodes, 4 per leaf.  The ring crosses between the two leaves
 * once each way per channel: 8 channels x 48.5 GB/s (400 Gb/s at 0.97) =
 * 388 GB/s each way.  A leaf's uplink is 32 x 48.5 / oversubscription:
 * 776 GB/s at 2:1, still enough, so the time equals the full fabric's;
 * 194 GB/s at 8:1, half of what the ring needs, so the transfer takes
 * twice as long. */
static void
test_oversubscription (void)
{
  for (int m = 0; m < 2; m++) {
    double full = ring_time_oversub (1, m), two = ring_time_oversub (2, m), eight = ring_time_oversub (8, m);
    g_assert_cmpfloat (REL (two, full), <, 1e-9);
    g_assert_cmpfloat (REL (eight, 2 * full), <, 1e-9);
  }
}

/* The same plan timed twice gives the very same number. */
static void
test_deterministic (void)
{
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsTopo) t = shipped ("dgx-h100", 4);
  g_autoptr (DpsPlan) plan = plan_for (t, &p, 32, DPS_OP_ALLREDUCE, 3e8, DPS_ALGO_TREE);
  g_assert_cmpfloat (dps_plan_time_flow (t, plan, DPS_PROTO_LL128), ==, dps_plan_time_flow (t, plan, DPS_PROTO_LL128));
}

static void
note_end (void *data, double start_s, double end_s)
{
  *(double *) data = end_s;
}

/* Two identical ring all-reduces launched together on one network share
 * every link half and half: each takes its latency plus twice its
 * transfer time. */
static void
test_concurrent (void)
{
  DpsCollParams p;
  zero_params (&p);
  double alpha = 2e-6;
  for (int q = 0; q < DPS_PROTO_COUNT; q++)
    p.step_s[DPS_ALGO_RING][DPS_LINK_NVLINK][q] = alpha;
  int n = 8;
  double S = 1e9, B = 100e9;
  g_autoptr (DpsTopo) t = make_topo (n, 1, NULL);
  g_autoptr (DpsPlan) plan = plan_for (t, &p, n, DPS_OP_ALLREDUCE, S, DPS_ALGO_RING);
  DpsEngine *e = dps_engine_new ();
  DpsNet *net = dps_net_new_for_topo (e, t);
  DpsCollRunner *r = dps_coll_runner_new (t, e, net);
  double end1 = 0, end2 = 0;
  dps_coll_runner_launch (r, plan, DPS_PROTO_SIMPLE, note_end, &end1);
  dps_coll_runner_launch (r, plan, DPS_PROTO_SIMPLE, note_end, &end2);
  dps_engine_run (e);
  double expect = 2 * (n - 1) * alpha + 2 * (2.0 * (n - 1) / n * S / B);
  g_assert_cmpfloat (REL (end1, expect), <, 1e-9);
  g_assert_cmpfloat (REL (end2, expect), <, 1e-9);
  dps_coll_runner_free (r);
  dps_net_free (net);
  dps_engine_free (e);
}

/* One rank has nothing to exchange: zero time. */
static void
test_one_rank (void)
{
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsTopo) t = shipped ("dgx-h100", 1);
  g_autoptr (DpsPlan) plan = plan_for (t, &p, 1, DPS_OP_ALLREDUCE, 1e9, DPS_ALGO_RING);
  g_assert_cmpfloat (dps_plan_time_analytical (t, plan, DPS_PROTO_SIMPLE), ==, 0);
  g_assert_cmpfloat (dps_plan_time_flow (t, plan, DPS_PROTO_SIMPLE), ==, 0);
}

/* GPU counts: a part of one node, or whole nodes; 12 of 16 is refused. */
static void
test_gpu_counts (void)
{
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsTopo) t = shipped ("dgx-h100", 2);
  DpsCollCtx ctx;
  g_autoptr (GError) e = NULL;
  g_assert_true (dps_coll_ctx_init (&ctx, t, &p, 4, DPS_OP_ALLREDUCE, 8, NULL));
  g_assert_cmpint (ctx.ranks_per_node, ==, 4);
  g_assert_false (dps_coll_ctx_init (&ctx, t, &p, 12, DPS_OP_ALLREDUCE, 8, &e));
  g_assert_nonnull (strstr (e->message, "multiple of 8"));
  g_clear_error (&e);
  g_assert_false (dps_coll_ctx_init (&ctx, t, &p, 0, DPS_OP_ALLREDUCE, 8, &e));
}

/* A ring all-reduce inside a DGX-1 runs its 6 channels over the mesh's 6
 * rings (sim/topo.c), one NVLink each way per channel: bandwidth-bound it
 * takes 2 (n-1)/n S / (6 x 25 GB/s x 0.8) with n = 8 (each GPU sends
 * 2 (n-1)/n S in all, a sixth on each of its 6 links, at 0.8 of 25 GB/s);
 * with one ring it would take a doubled link's time, 3x longer. */
static void
test_mesh_ring_bw (void)
{
  g_autoptr (DpsTopo) t = shipped ("dgx1-v100", 1);
  DpsCollParams p;
  zero_params (&p);
  double S = 1e9;
  g_autoptr (DpsPlan) plan = plan_for (t, &p, 8, DPS_OP_ALLREDUCE, S, DPS_ALGO_RING);
  double expect = 2 * 7.0 / 8 * S / (6 * 25e9 * 0.8);
  g_assert_cmpfloat (REL (dps_plan_time_analytical (t, plan, DPS_PROTO_SIMPLE), expect), <, 1e-9);
}

/* NCCL's per-channel ceilings (sim/tune.c, from NCCL's tuning.cc):
 * a tree all-reduce over 2 DGX A100 (Ampere, 2 nodes: 23.6 GB/s of bus
 * bandwidth per channel, 8 channels; algorithm bandwidth half of it) moves
 * 1 GB in 1e9 / (0.5 x 8 x 23.6e9) s, slower than its links would (each
 * NIC carries an eighth of it each way at 22.5 GB/s: 5.6 ms against the
 * ceiling's 10.6 ms; the difference of 1 GB and 0.5 GB leaves the
 * latency out); a ring with Simple has no ceiling.  Blackwell's rows are
 * those NCCL 2.28 re-measured, not Hopper's doubled: 2 HGX B200 (8
 * channels) hold a tree with Simple to 0.5 x 8 x 42.8 GB/s, below the
 * 8 x 45 GB/s its NICs would carry (NCCL 2.25-2.27's 82.8 gave twice it). */
static void
test_channel_ceiling (void)
{
  g_autoptr (DpsTopo) t = shipped ("dgx-a100", 2);
  DpsCollParams p;
  zero_params (&p);
  g_autoptr (DpsPlan) tree = plan_for (t, &p, 16, DPS_OP_ALLREDUCE, 1e9, DPS_ALGO_TREE);
  g_autoptr (DpsPlan) half = plan_for (t, &p, 16, DPS_OP_ALLREDUCE, 5e8, DPS_ALGO_TREE);
  double dt = dps_plan_time_analytical (t, tree, DPS_PROTO_SIMPLE) - dps_plan_time_analytical (t, half, DPS_PROTO_SIMPLE);
  g_assert_cmpfloat (REL (dt, 5e8 / (0.5 * 8 * 23.6e9)), <, 1e-9);
  g_autoptr (DpsPlan) ring = plan_for (t, &p, 16, DPS_OP_ALLREDUCE, 1e9, DPS_ALGO_RING);
  g_assert_cmpfloat (ring->payload[DPS_PROTO_SIMPLE], ==, 1);
  g_autoptr (DpsTopo) b = shipped ("hgx-b200", 2);
  g_autoptr (DpsPlan) btree = plan_for (b, &p, 16, DPS_OP_ALLREDUCE, 1e9, DPS_ALGO_TREE);
  g_autoptr (DpsPlan) bhalf = plan_for (b, &p, 16, DPS_OP_ALLREDUCE, 5e8, DPS_ALGO_TREE);
  dt = dps_plan_time_analytical (b, btree, DPS_PROTO_SIMPLE) - dps_plan_time_analytical (b, bhalf, DPS_PROTO_SIMPLE);
  g_assert_cmpfloat (REL (dt, 5e8 / (0.5 * 8 * 42.8e9)), <, 1e-9);
}

/* EFA under aws-ofi-nccl's SENDRECV protocol (p4d, p4de) sends a network
 * step's chunk from GPU memory eagerly only up to 8 KiB (libfabric's
 * efa_hmem.c), above it by its read protocol: three crossings of the
 * network for one.  A ring all-reduce over 2 p4de nodes
 * (16 ranks, 8 channels) carries S / 128 a step and channel: up to 1 MiB
 * its network step with Simple takes NCCL's 14 us plus EFA's 48, above it
 * three times that; LL (host memory, NCCL's net.cc) keeps its one step at
 * any size.  p5's EFA (aws-ofi-nccl's RDMA protocol) sends up to its
 * OFI_NCCL_EAGER_MAX_SIZE, 8 KiB, eagerly, from host memory too (LL, whose
 * chunk is twice its data: 4 KiB of data), and above it by RDMA write after
 * the receiver's control message: two crossings, each NCCL's step (a
 * tree's with LL, 5 us) plus its own 12.  InfiniBand (one RDMA write) has
 * no eager limit. */
static void
test_efa_read_protocol (void)
{
  g_autoptr (DpsTopo) a = shipped ("aws-p4de", 2);
  g_autoptr (DpsTopo) h = shipped ("dgx-h100", 2);
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  DpsCollCtx ctx;
  g_assert_true (dps_coll_ctx_init (&ctx, a, &p, 16, DPS_OP_ALLREDUCE, 1 << 20, NULL));
  ctx.algo = DPS_ALGO_RING;
  g_assert_cmpfloat (dps_tune_eager_bytes (&ctx, DPS_ALGO_RING, DPS_PROTO_SIMPLE), ==, 8192.0 * 16 * 8);
  g_assert_cmpfloat (dps_tune_eager_bytes (&ctx, DPS_ALGO_RING, DPS_PROTO_LL), ==, 0);
  double one = (14 + 48) * 1e-6;
  g_assert_cmpfloat (REL (dps_tune_step_s (&ctx, DPS_ALGO_RING, DPS_LINK_NET, DPS_PROTO_SIMPLE), one), <, 1e-9);
  ctx.bytes = 2 << 20;
  g_assert_cmpfloat (REL (dps_tune_step_s (&ctx, DPS_ALGO_RING, DPS_LINK_NET, DPS_PROTO_SIMPLE), 3 * one), <, 1e-9);
  g_assert_cmpfloat (REL (dps_tune_step_s (&ctx, DPS_ALGO_RING, DPS_LINK_NET, DPS_PROTO_LL), (2.7 + 48) * 1e-6), <, 1e-9);
  g_assert_true (dps_coll_ctx_init (&ctx, h, &p, 16, DPS_OP_ALLREDUCE, 1 << 30, NULL));
  g_assert_cmpfloat (dps_tune_eager_bytes (&ctx, DPS_ALGO_RING, DPS_PROTO_SIMPLE), ==, 0);
  g_assert_cmpfloat (REL (dps_tune_step_s (&ctx, DPS_ALGO_RING, DPS_LINK_NET, DPS_PROTO_SIMPLE), (14 + 1) * 1e-6), <, 1e-9);
  g_autoptr (DpsTopo) p5 = shipped ("aws-p5", 2);
  g_assert_true (dps_coll_ctx_init (&ctx, p5, &p, 16, DPS_OP_ALLREDUCE, 8192, NULL));
  ctx.algo = DPS_ALGO_TREE;
  double ch = ctx.channels;
  g_assert_cmpfloat (ch, >=, 1);
  g_assert_cmpfloat (dps_tune_eager_bytes (&ctx, DPS_ALGO_RING, DPS_PROTO_SIMPLE), ==, 8192.0 * 16 * ch);
  g_assert_cmpfloat (dps_tune_eager_bytes (&ctx, DPS_ALGO_TREE, DPS_PROTO_SIMPLE), ==, 8192.0 * ch);
  g_assert_cmpfloat (dps_tune_eager_bytes (&ctx, DPS_ALGO_TREE, DPS_PROTO_LL), ==, 4096.0 * ch);
  double tree_ll = (5.0 + 12) * 1e-6;
  g_assert_cmpfloat (REL (dps_tune_step_s (&ctx, DPS_ALGO_TREE, DPS_LINK_NET, DPS_PROTO_LL), tree_ll), <, 1e-9);
  ctx.bytes = 4096.0 * ch + 1;
  g_assert_cmpfloat (REL (dps_tune_step_s (&ctx, DPS_ALGO_TREE, DPS_LINK_NET, DPS_PROTO_LL), 2 * tree_ll), <, 1e-9);
}

/* Ranks over a topology's nodes (dps_coll_ctx_init_spread): 80 on 10 DGX
 * H100 nodes fill them (8 a node); 10 fill no whole nodes but split evenly,
 * one on each of the 10, as a network test runs; 12 do not split over 10
 * and are refused as dps_coll_ctx_init refuses them. */
static void
test_ctx_spread (void)
{
  g_autoptr (DpsTopo) t = shipped ("dgx-h100", 10);
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  DpsCollCtx ctx;
  g_assert_true (dps_coll_ctx_init_spread (&ctx, t, &p, 80, DPS_OP_ALLREDUCE, 1e6, NULL));
  g_assert_cmpint (ctx.n_nodes, ==, 10);
  g_assert_cmpint (ctx.ranks_per_node, ==, 8);
  g_assert_true (dps_coll_ctx_init_spread (&ctx, t, &p, 10, DPS_OP_ALLREDUCE, 1e6, NULL));
  g_assert_cmpint (ctx.n_nodes, ==, 10);
  g_assert_cmpint (ctx.ranks_per_node, ==, 1);
  g_autoptr (GError) e = NULL;
  g_assert_false (dps_coll_ctx_init_spread (&ctx, t, &p, 12, DPS_OP_ALLREDUCE, 1e6, &e));
  g_assert_nonnull (e);
}

/* The latency terms of plan with proto, all phases. */
static double
plan_latency_s (const DpsPlan *plan, DpsProto proto)
{
  double l = 0;
  for (guint i = 0; i < plan->phases->len; i++)
    l += g_array_index (plan->phases, DpsPhase, i).latency_s[proto];
  return l;
}

/* NCCL's plateau effect of the ring (tuning.cc, ncclTopoGetAlgoTime): a
 * ring all-reduce with Simple across nodes takes 1.4 times its latency
 * once each rank's share of a channel reaches 64 bytes.  Over 2 DGX H100
 * nodes (16 ranks, 8 channels) that is from 8 KiB: below, NCCL's 8.4 us
 * base, 28 NVLink steps of 3.4 us and 2 network steps of 14 + 1 us, 133.6
 * us, and the call's own cost (call_s, 12 us) beside it; from 8 KiB 1.4
 * times the 133.6, the call's cost not scaled.  LL keeps its latency, as do one node
 * and all-gather; Volta's factor is 1.9.  On 2 p4de nodes past EFA's
 * eager size the read protocol's two added crossings a network step
 * (2 x 2 x 62 us) are the transport's and are not scaled. */
static void
test_ring_plateau (void)
{
  g_autoptr (DpsTopo) h = shipped ("dgx-h100", 2);
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  DpsCollCtx ctx;
  g_assert_true (dps_coll_ctx_init (&ctx, h, &p, 16, DPS_OP_ALLREDUCE, 1 << 20, NULL));
  g_assert_cmpfloat (dps_tune_plateau_bytes (&ctx, DPS_ALGO_RING, DPS_PROTO_SIMPLE), ==, 8192);
  g_assert_cmpfloat (dps_tune_plateau_bytes (&ctx, DPS_ALGO_RING, DPS_PROTO_LL), ==, 0);
  g_assert_cmpfloat (dps_tune_plateau_bytes (&ctx, DPS_ALGO_TREE, DPS_PROTO_SIMPLE), ==, 0);
  g_autoptr (DpsPlan) below = plan_for (h, &p, 16, DPS_OP_ALLREDUCE, 8191, DPS_ALGO_RING);
  g_autoptr (DpsPlan) from = plan_for (h, &p, 16, DPS_OP_ALLREDUCE, 8192, DPS_ALGO_RING);
  g_assert_cmpfloat (p.call_s, ==, 12e-6);
  g_assert_cmpfloat (REL (plan_latency_s (below, DPS_PROTO_SIMPLE), 133.6e-6 + 12e-6), <, 1e-9);
  g_assert_cmpfloat (REL (plan_latency_s (from, DPS_PROTO_SIMPLE), 1.4 * 133.6e-6 + 12e-6), <, 1e-9);
  g_assert_cmpfloat (REL (plan_latency_s (from, DPS_PROTO_LL), plan_latency_s (below, DPS_PROTO_LL)), <, 1e-12);
  g_autoptr (DpsPlan) ag_below = plan_for (h, &p, 16, DPS_OP_ALLGATHER, 4096, DPS_ALGO_RING);
  g_autoptr (DpsPlan) ag_from = plan_for (h, &p, 16, DPS_OP_ALLGATHER, 1 << 20, DPS_ALGO_RING);
  g_assert_cmpfloat (REL (plan_latency_s (ag_from, DPS_PROTO_SIMPLE), plan_latency_s (ag_below, DPS_PROTO_SIMPLE)), <, 1e-12);
  g_autoptr (DpsTopo) one = shipped ("dgx-h100", 1);
  g_autoptr (DpsPlan) one_below = plan_for (one, &p, 8, DPS_OP_ALLREDUCE, 1024, DPS_ALGO_RING);
  g_autoptr (DpsPlan) one_from = plan_for (one, &p, 8, DPS_OP_ALLREDUCE, 1 << 20, DPS_ALGO_RING);
  g_assert_cmpfloat (REL (plan_latency_s (one_from, DPS_PROTO_SIMPLE), plan_latency_s (one_below, DPS_PROTO_SIMPLE)), <, 1e-12);
  g_autoptr (DpsTopo) v = shipped ("dgx1-v100", 2);
  g_autoptr (DpsPlan) v_below = plan_for (v, &p, 16, DPS_OP_ALLREDUCE, 64, DPS_ALGO_RING);
  g_autoptr (DpsPlan) v_from = plan_for (v, &p, 16, DPS_OP_ALLREDUCE, 1 << 20, DPS_ALGO_RING);
  g_assert_cmpfloat (REL (plan_latency_s (v_from, DPS_PROTO_SIMPLE) - p.call_s,
                          1.9 * (plan_latency_s (v_below, DPS_PROTO_SIMPLE) - p.call_s)), <, 1e-9);
  g_autoptr (DpsTopo) a = shipped ("aws-p4de", 2);
  g_autoptr (DpsPlan) eager = plan_for (a, &p, 16, DPS_OP_ALLREDUCE, 1 << 20, DPS_ALGO_RING);
  g_autoptr (DpsPlan) read = plan_for (a, &p, 16, DPS_OP_ALLREDUCE, 2 << 20, DPS_ALGO_RING);
  g_assert_cmpfloat (fabs (plan_latency_s (read, DPS_PROTO_SIMPLE) - plan_latency_s (eager, DPS_PROTO_SIMPLE) - 2 * 2 * 62e-6),
                     <, 1e-12);
}

/* The hosts of one NVLink domain: a call pays host_skew_s (9 us) for every
 * doubling beyond two of the trays it spans, on top of call_s (12 us),
 * whatever the algorithm; NCCL counts no latency there (tune.c).  On
 * one GB200 NVL72 rack (4 GPUs a tray) 8 GPUs span 2 trays and pay
 * nothing more; 32 span 8 (2 doublings: 18 us); 72 span 18 (log2 9
 * doublings).  Two racks of 64 (gb200-nvl72-64) span 32 trays (4: 36 us).
 * Hosts that are nodes (DGX H100s, or one tray a node of NVL72 racks)
 * pay nothing more: their network's latencies hold it.  The plan carries
 * it on its latency, with every protocol; a calibrated library (0) does
 * not. */
static void
test_host_skew (void)
{
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_assert_cmpfloat (p.host_skew_s, ==, 9e-6);
  g_autoptr (DpsTopo) rack = shipped ("gb200-nvl72", 1);
  g_autoptr (DpsTopo) racks = shipped ("gb200-nvl72-64", 2);
  g_autoptr (DpsTopo) racks3 = shipped ("gb200-nvl72", 3);
  g_autoptr (DpsTopo) dgx = shipped ("dgx-h100", 4);
  static const struct { int gpus; double extra_us; } one_rack[] = {
    { 4, 0 }, { 8, 0 }, { 12, 9 * 0.5849625007211562 }, { 32, 18 }, { 64, 27 }, { 72, 9 * 3.1699250014423126 },
  };
  DpsCollCtx ctx;
  for (gsize i = 0; i < G_N_ELEMENTS (one_rack); i++) {
    g_assert_true (dps_coll_ctx_init (&ctx, rack, &p, one_rack[i].gpus, DPS_OP_ALLREDUCE, 1 << 20, NULL));
    g_assert_cmpfloat (fabs (dps_tune_call_s (&ctx) - 12e-6 - one_rack[i].extra_us * 1e-6), <, 1e-12);
  }
  g_assert_true (dps_coll_ctx_init (&ctx, racks, &p, 128, DPS_OP_ALLREDUCE, 1 << 20, NULL));
  g_assert_cmpfloat (fabs (dps_tune_call_s (&ctx) - 12e-6 - 36e-6), <, 1e-12);
  g_assert_true (dps_coll_ctx_init_nodes (&ctx, racks3, &p, 3, 4, DPS_OP_ALLREDUCE, 1 << 20, NULL));
  g_assert_cmpfloat (dps_tune_call_s (&ctx), ==, 12e-6);
  g_assert_true (dps_coll_ctx_init (&ctx, dgx, &p, 32, DPS_OP_ALLREDUCE, 1 << 20, NULL));
  g_assert_cmpfloat (dps_tune_call_s (&ctx), ==, 12e-6);
  /* on the plan: 32 GPUs of a rack, with and without the skew */
  DpsCollParams none = p;
  none.host_skew_s = 0;
  for (DpsAlgo a = DPS_ALGO_TREE; a <= DPS_ALGO_RING; a++) {
    g_autoptr (DpsPlan) with = plan_for (rack, &p, 32, DPS_OP_ALLREDUCE, 1 << 20, a);
    g_autoptr (DpsPlan) without = plan_for (rack, &none, 32, DPS_OP_ALLREDUCE, 1 << 20, a);
    for (int q = 0; q < DPS_PROTO_COUNT; q++)
      g_assert_cmpfloat (fabs (plan_latency_s (with, q) - plan_latency_s (without, q) - 18e-6), <, 1e-12);
  }
}

/* The registry of algorithms (coll.c): every DpsAlgo once, by a name of
 * its own that dps_algo_parse reads back; each algorithm's NCCL figures
 * given for exactly the protocols it runs (a payload efficiency and a
 * latency for each, none for the others: a figure forgotten or left over
 * in a new algorithm's file fails here), and NCCL's default mask is the
 * four it runs unless told otherwise (tree, ring, NVLS, PAT). */
static void
test_registry (void)
{
  guint seen = 0;
  for (int i = 0; i < DPS_ALGO_COUNT; i++) {
    const DpsCollAlgo *a = dps_coll_algo_nth (i);
    g_assert_nonnull (a);
    g_assert_cmpint (a->id, >=, 0);
    g_assert_cmpint (a->id, <, DPS_ALGO_COUNT);
    g_assert_false (seen >> a->id & 1);
    seen |= 1u << a->id;
    g_assert_true (dps_coll_algo (a->id) == a);
    DpsAlgo back;
    g_assert_true (dps_algo_parse (a->name, &back));
    g_assert_cmpint (back, ==, a->id);
    g_assert_nonnull (a->supports);
    g_assert_nonnull (a->plan);
    g_assert_cmpuint (a->protos, !=, 0);
    for (int p = 0; p < DPS_PROTO_COUNT; p++) {
      gboolean runs = a->protos >> p & 1;
      double lat = a->nccl.base_us[p];
      for (int k = 0; k < DPS_LINK_KINDS; k++)
        lat += a->nccl.step_us[k][p];
      if ((a->nccl.bw[p] > 0) != runs || (lat > 0) != runs)
        g_test_fail_printf ("%s, %s: runs it %d, payload %g, latency %g us", a->name, dps_proto_name ((DpsProto) p),
                            runs, a->nccl.bw[p], lat);
      g_assert_cmpint (dps_tune_proto_ok (a->id, (DpsProto) p), ==, runs);
    }
  }
  g_assert_cmpuint (seen, ==, DPS_ALL_ALGOS);
  g_assert_cmpuint (DPS_NCCL_ALGOS, ==, (1u << DPS_ALGO_TREE) | (1u << DPS_ALGO_RING) | (1u << DPS_ALGO_NVLS)
                                        | (1u << DPS_ALGO_PAT));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/coll/registry", test_registry);
  g_test_add_func ("/coll/ring/closed-form", test_ring_closed_form);
  g_test_add_func ("/coll/ring/ops", test_ring_ops);
  g_test_add_func ("/coll/busbw-factor", test_busbw_factor);
  g_test_add_func ("/coll/channel-ceiling", test_channel_ceiling);
  g_test_add_func ("/coll/efa-read-protocol", test_efa_read_protocol);
  g_test_add_func ("/coll/ctx-spread", test_ctx_spread);
  g_test_add_func ("/coll/ring/plateau", test_ring_plateau);
  g_test_add_func ("/coll/mesh-ring-bw", test_mesh_ring_bw);
  g_test_add_func ("/coll/tree/pow2", test_tree_pow2);
  g_test_add_func ("/coll/hier/2-and-4-nodes", test_hier);
  g_test_add_func ("/coll/nvls/where-allowed", test_nvls);
  g_test_add_func ("/coll/collnet", test_collnet);
  g_test_add_func ("/coll/pat", test_pat);
  g_test_add_func ("/coll/host-skew", test_host_skew);
  g_test_add_func ("/coll/choice/protocol-by-size", test_protocol_choice);
  static const ModesCase modes[] = {
    { "dgx-h100", 1 }, { "dgx-h100", 4 }, { "dgx1-v100", 1 }, { "dgx1-v100", 2 },
    { "pcie-8gpu-2x100g", 2 }, { "dgx-h100-oversub2", 8 }, { "gb200-nvl72", 2 },
    { "aws-p4de", 2 }, { "workstation-4gpu", 1 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (modes); i++) {
    g_autofree char *path = g_strdup_printf ("/coll/modes-agree/%s-x%d", modes[i].name, modes[i].nodes);
    g_test_add_data_func (path, &modes[i], test_modes_agree);
  }
  g_test_add_func ("/coll/oversubscription", test_oversubscription);
  g_test_add_func ("/coll/deterministic", test_deterministic);
  g_test_add_func ("/coll/concurrent", test_concurrent);
  g_test_add_func ("/coll/one-rank", test_one_rank);
  g_test_add_func ("/coll/gpu-counts", test_gpu_counts);
  return g_test_run ();
}
