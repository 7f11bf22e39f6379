/* Unit tests of the collective models (sim/coll*.c, sim/tune.c,
 * sim/coll-predict.c): the ring, NCCL's ceilings, latencies and choice,
 * the two timing modes; NCCL's other algorithms in test-coll-algos.c. */
#include "coll-test-util.h"
#include "sim/topo-load.h"
#include "sim/base/error.h"

#include <math.h>
#include <string.h>

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
