/* Unit tests of the cached collective cost (sim/coll-cost.c): its time for
 * any size is the time of a plan built afresh for that size, NCCL's choice
 * included; pruning algorithms that cannot win changes no answer. */
#include "sim/coll-cost.h"
#include "sim/base/error.h"
#include "test-util.h"

#include <math.h>

/* The time dps_coll_predict gives for a plan built at this size. */
static double
fresh_time_of (const DpsTopo *t, const DpsCollParams *p, int gpus, double bytes, DpsNetMode mode, guint algo_mask,
               guint proto_mask, DpsAlgo *algo, DpsProto *proto)
{
  g_autoptr (GError) e = NULL;
  DpsCollCtx ctx;
  g_assert_true (dps_coll_ctx_init (&ctx, t, p, gpus, DPS_OP_ALLREDUCE, bytes, &e));
  g_assert_no_error (e);
  DpsCollChoice ch;
  g_assert_true (dps_coll_predict (&ctx, algo_mask, proto_mask, mode, &ch, &e));
  g_assert_no_error (e);
  *algo = ch.algo;
  *proto = ch.proto;
  return ch.time_s;
}

static double
fresh_time (const DpsTopo *t, const DpsCollParams *p, int gpus, double bytes, DpsNetMode mode,
            DpsAlgo *algo, DpsProto *proto)
{
  return fresh_time_of (t, p, gpus, bytes, mode, DPS_NCCL_ALGOS, DPS_ALL_PROTOS, algo, proto);
}

/* A cost of all-reduce over gpus GPUs of t, analytical unless mode says;
 * aborts the test when none applies. */
static DpsCollCost *
cost_new (const DpsTopo *t, const DpsCollParams *p, int gpus, guint algo_mask, DpsNetMode mode, double max_bytes)
{
  g_autoptr (GError) e = NULL;
  DpsCollCost *c = dps_coll_cost_new (t, p, gpus, DPS_OP_ALLREDUCE, algo_mask, DPS_ALL_PROTOS, 0, mode, max_bytes, &e);
  g_assert_no_error (e);
  return c;
}

/* A plan's flows all carry bytes in proportion to the size, so one plan
 * timed at 1 GiB gives every size's time as latency + size x time per
 * byte: the cached answer equals a fresh plan's, algorithm, protocol and
 * time (to rounding), from 4 KiB (latency-bound, LL) to 1 GiB
 * (bandwidth-bound, Simple), on two DGX H100 nodes, in both modes (the
 * flow-level one on an empty network: max-min rates do not depend on the
 * size). */
static void
test_equals_fresh_plan (void)
{
  g_autoptr (DpsTopo) t = test_shipped_topo ("dgx-h100", 2);
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  for (int mode = DPS_MODE_ANALYTICAL; mode <= DPS_MODE_FLOW; mode++) {
    g_autoptr (DpsCollCost) c = cost_new (t, &p, 16, DPS_NCCL_ALGOS, (DpsNetMode) mode, 0);
    gboolean saw_ll = FALSE, saw_simple = FALSE;
    for (double bytes = 4096; bytes <= 1073741824.0; bytes *= 4) {
      DpsAlgo ca, fa;
      DpsProto cp, fp;
      double cached = dps_coll_cost_time (c, bytes, &ca, &cp);
      double fresh = fresh_time (t, &p, 16, bytes, (DpsNetMode) mode, &fa, &fp);
      if (ca != fa || cp != fp || REL (cached, fresh) > 1e-6)
        g_test_fail_printf ("mode %d, %g bytes: cached %s/%s %g s, a fresh plan %s/%s %g s", mode, bytes,
                            dps_algo_name (ca), dps_proto_name (cp), cached, dps_algo_name (fa), dps_proto_name (fp),
                            fresh);
      saw_ll |= cp == DPS_PROTO_LL;
      saw_simple |= cp == DPS_PROTO_SIMPLE;
    }
    g_assert_true (saw_ll && saw_simple);   /* the sizes span NCCL's choices */
  }
}

/* NCCL's choice is made twice: afresh for one size (dps_coll_choose, as
 * `collective` asks) and by the cached cost for every size (as a step's
 * collectives are timed); they must agree, algorithm, protocol and time,
 * on every shipped topology: 2 GPUs, a node's, 2 and 8 nodes' (flow-level
 * too up to 2 nodes), all-reduce, all-gather and reduce-scatter, 4 KiB to
 * 1 GiB.  (They disagreed on trees inside one node, DGX-1, DGX-2, PCIe
 * pairs, NVL72 racks at 256 MiB, up to 17% at 1 GiB: the cached cost read
 * the payload before the tree set LL128's 7/9 inside a node.) */
static void
test_choice_everywhere (gconstpointer data)
{
  const char *name = data;
  int compared = 0;
  for (int nodes = 1; nodes <= 8; nodes *= 2) {
    g_autoptr (DpsTopo) t = test_shipped_topo (name, nodes);
    int k = dps_topo_spec (t)->gpus_per_node;
    /* one node: 2 GPUs and all of them; more: all of every node */
    int counts[2] = { nodes == 1 ? 2 : k * nodes, nodes == 1 && k > 2 ? k : 0 };
    for (int mode = DPS_MODE_ANALYTICAL; mode <= (nodes <= 2 ? DPS_MODE_FLOW : DPS_MODE_ANALYTICAL); mode++)
      for (gsize ci = 0; ci < G_N_ELEMENTS (counts); ci++)
        for (int op = DPS_OP_ALLREDUCE; op <= DPS_OP_ALLGATHER; op++) {
          int n = counts[ci];
          if (n < 2 || n > k * nodes)
            continue;
          DpsCollParams p;
          dps_tune_params_nccl (&p);
          g_autoptr (GError) e = NULL;
          g_autoptr (DpsCollCost) c = dps_coll_cost_new (t, &p, n, (DpsCollOp) op, DPS_NCCL_ALGOS, DPS_ALL_PROTOS, 0,
                                                         (DpsNetMode) mode, 0, &e);
          g_assert_no_error (e);
          for (double bytes = 4096; bytes <= 1073741824.0; bytes *= 4) {
            DpsAlgo ca;
            DpsProto cp;
            double cached = dps_coll_cost_time (c, bytes, &ca, &cp);
            DpsCollCtx ctx;
            DpsCollChoice ch;
            g_assert_true (dps_coll_ctx_init (&ctx, t, &p, n, (DpsCollOp) op, bytes, &e));
            g_assert_true (dps_coll_predict (&ctx, DPS_NCCL_ALGOS, DPS_ALL_PROTOS, (DpsNetMode) mode, &ch, &e));
            if (ca != ch.algo || cp != ch.proto || REL (cached, ch.time_s) > 1e-6)
              g_test_fail_printf ("%s, %d GPUs on %d nodes, %s of %.0f B, mode %d: cached %s/%s %.6g s, "
                                  "chosen afresh %s/%s %.6g s", name, n, nodes, dps_coll_op_name ((DpsCollOp) op),
                                  bytes, mode, dps_algo_name (ca), dps_proto_name (cp), cached, dps_algo_name (ch.algo),
                                  dps_proto_name (ch.proto), ch.time_s);
            compared++;
          }
        }
  }
  g_assert_cmpint (compared, >, 0);
  g_test_message ("%s: %d sizes compared", name, compared);
}

/* A 16-rank all-reduce's cost on t with ring and Simple alone, analytical. */
static DpsCollCost *
ring_simple_cost (const DpsTopo *t, const DpsCollParams *p)
{
  g_autoptr (GError) e = NULL;
  DpsCollCost *c = dps_coll_cost_new (t, p, 16, DPS_OP_ALLREDUCE, 1u << DPS_ALGO_RING, 1u << DPS_PROTO_SIMPLE, 0,
                                      DPS_MODE_ANALYTICAL, 0, &e);
  g_assert_no_error (e);
  return c;
}

/* The cached answer, whose plan is the reference size's, equals a fresh
 * plan's at every size from from to to (by 2). */
static void
assert_cached_is_fresh (DpsCollCost *c, const DpsTopo *t, const DpsCollParams *p, double from, double to)
{
  for (double bytes = from; bytes <= to; bytes *= 2) {
    DpsAlgo ca, fa;
    DpsProto cp, fp;
    double cached = dps_coll_cost_time (c, bytes, &ca, &cp);
    double fresh = fresh_time_of (t, p, 16, bytes, DPS_MODE_ANALYTICAL, 1u << DPS_ALGO_RING, 1u << DPS_PROTO_SIMPLE,
                                  &fa, &fp);
    if (REL (cached, fresh) > 1e-6)
      g_test_fail_printf ("%g bytes: cached %g s, a fresh plan %g s", bytes, cached, fresh);
  }
}

/* On two p4de nodes with Simple, the ring's EFA network steps take three
 * times as long once a channel's chunk passes EFA's eager 8 KiB
 * (dps_tune_eager_bytes: above 1 MiB for 16 ranks and 8 channels), so the
 * latency is not the same at every size: the cached answer, whose plan
 * is the reference size's, still equals a fresh plan's on both sides of
 * it, and the time jumps there by twice the network steps' latency. */
static void
test_eager_latency (void)
{
  g_autoptr (DpsTopo) t = test_shipped_topo ("aws-p4de", 2);
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsCollCost) c = ring_simple_cost (t, &p);
  assert_cached_is_fresh (c, t, &p, 1 << 18, 1 << 24);
  /* just above 1 MiB: 2 network steps x 2 x (14 + 48) us more */
  double below = dps_coll_cost_time (c, 1 << 20, NULL, NULL), above = dps_coll_cost_time (c, (1 << 20) + 128, NULL, NULL);
  g_assert_cmpfloat (fabs (above - below - 2 * 2 * 62e-6), <, 1e-7);
}

/* On two DGX H100 nodes with ring and Simple, NCCL's plateau effect
 * lengthens the latency 1.4 times from 8 KiB on (dps_tune_plateau_bytes:
 * 64 bytes per rank and channel): the cached answer, whose plan is the
 * reference size's, equals a fresh plan's on both sides, and the time
 * jumps there by 0.4 x the 133.6 us below it. */
static void
test_plateau_latency (void)
{
  g_autoptr (DpsTopo) t = test_shipped_topo ("dgx-h100", 2);
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsCollCost) c = ring_simple_cost (t, &p);
  assert_cached_is_fresh (c, t, &p, 1024, 1 << 16);
  double below = dps_coll_cost_time (c, 8191, NULL, NULL), from = dps_coll_cost_time (c, 8192, NULL, NULL);
  g_assert_cmpfloat (fabs (from - below - 0.4 * 133.6e-6), <, 1e-8);
}

/* Given the largest size it will be asked about, the cost skips the
 * algorithms whose latency alone exceeds another's time at that size; the
 * answers up to that size are those of the cost that builds every
 * algorithm. */
static void
test_pruning_keeps_answers (void)
{
  g_autoptr (DpsTopo) t = test_shipped_topo ("dgx-h100", 4);
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  double max_bytes = 1 << 20;
  g_autoptr (DpsCollCost) all = cost_new (t, &p, 32, DPS_ALL_ALGOS, DPS_MODE_ANALYTICAL, 0);
  g_autoptr (DpsCollCost) pruned = cost_new (t, &p, 32, DPS_ALL_ALGOS, DPS_MODE_ANALYTICAL, max_bytes);
  for (double bytes = 1024; bytes <= max_bytes; bytes *= 2) {
    DpsAlgo a1, a2;
    DpsProto p1, p2;
    double t1 = dps_coll_cost_time (all, bytes, &a1, &p1), t2 = dps_coll_cost_time (pruned, bytes, &a2, &p2);
    g_assert_cmpfloat (t1, ==, t2);
    g_assert_cmpint (a1, ==, a2);
    g_assert_cmpint (p1, ==, p2);
  }
}

/* One rank, or no bytes, moves nothing: time 0. */
static void
test_nothing_to_move (void)
{
  g_autoptr (DpsTopo) t = test_shipped_topo ("dgx-h100", 1);
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsCollCost) one = cost_new (t, &p, 1, DPS_NCCL_ALGOS, DPS_MODE_ANALYTICAL, 0);
  g_assert_cmpfloat (dps_coll_cost_time (one, 1e9, NULL, NULL), ==, 0);
  g_autoptr (DpsCollCost) eight = cost_new (t, &p, 8, DPS_NCCL_ALGOS, DPS_MODE_ANALYTICAL, 0);
  g_assert_cmpfloat (dps_coll_cost_time (eight, 0, NULL, NULL), ==, 0);
  g_assert_cmpfloat (dps_coll_cost_time (eight, 1e6, NULL, NULL), >, 0);
}

/* A calibration's correction applies to the cached time as to a fresh
 * plan's: a factor of 2 at every measured size doubles the time at each of
 * them (between them the corrected times are interpolated in log size, so
 * the test asks only at the measured sizes and beyond them). */
static void
test_correction (void)
{
  g_autoptr (DpsTopo) t = test_shipped_topo ("dgx-h100", 2);
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsCollCost) bare = cost_new (t, &p, 16, DPS_NCCL_ALGOS, DPS_MODE_ANALYTICAL, 0);
  DpsCollCorr *c = &p.corr[DPS_OP_ALLREDUCE];
  c->n = 0;
  for (double bytes = 1e3; bytes <= 1e9; bytes *= 10, c->n++) {
    c->bytes[c->n] = bytes;
    c->factor[c->n] = 2;
  }
  g_autoptr (DpsCollCost) corrected = cost_new (t, &p, 16, DPS_NCCL_ALGOS, DPS_MODE_ANALYTICAL, 0);
  for (double bytes = 1e2; bytes <= 1e10; bytes *= 10) {
    double want = 2 * dps_coll_cost_time (bare, bytes, NULL, NULL);
    g_assert_cmpfloat (REL (dps_coll_cost_time (corrected, bytes, NULL, NULL), want), <, 1e-9);
    DpsAlgo a;
    DpsProto pr;
    g_assert_cmpfloat (REL (fresh_time (t, &p, 16, bytes, DPS_MODE_ANALYTICAL, &a, &pr), want), <, 1e-6);
  }
}

/* An operation measured has its own correction; one not measured takes the
 * all-reduce's: with the all-reduce's factor 2 and the all-gather's 3 at
 * every size, an all-gather takes 3 times its bare time, a reduce-scatter
 * 2 times, through the cached cost and a fresh choice alike. */
static void
test_correction_per_op (void)
{
  g_autoptr (DpsTopo) t = test_shipped_topo ("dgx-h100", 2);
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  DpsCollParams bare = p;
  for (int k = 0; k < 3; k++) {
    p.corr[DPS_OP_ALLREDUCE].bytes[k] = p.corr[DPS_OP_ALLGATHER].bytes[k] = pow (1e3, k + 1);
    p.corr[DPS_OP_ALLREDUCE].factor[k] = 2;
    p.corr[DPS_OP_ALLGATHER].factor[k] = 3;
  }
  p.corr[DPS_OP_ALLREDUCE].n = p.corr[DPS_OP_ALLGATHER].n = 3;
  static const struct { DpsCollOp op; double factor; } want[] = {
    { DPS_OP_ALLGATHER, 3 }, { DPS_OP_REDUCE_SCATTER, 2 }, { DPS_OP_ALLREDUCE, 2 } };
  for (gsize i = 0; i < G_N_ELEMENTS (want); i++) {
    g_autoptr (DpsCollCost) b = dps_coll_cost_new (t, &bare, 16, want[i].op, DPS_NCCL_ALGOS, DPS_ALL_PROTOS, 0,
                                                   DPS_MODE_ANALYTICAL, 0, NULL);
    g_autoptr (DpsCollCost) c = dps_coll_cost_new (t, &p, 16, want[i].op, DPS_NCCL_ALGOS, DPS_ALL_PROTOS, 0,
                                                   DPS_MODE_ANALYTICAL, 0, NULL);
    g_assert_nonnull (b);
    g_assert_nonnull (c);
    /* at the tabled sizes and beyond them (between them the corrected
     * times are interpolated in log size) */
    static const double sizes[] = { 1e2, 1e3, 1e6, 1e9, 1e10 };
    for (gsize k = 0; k < G_N_ELEMENTS (sizes); k++) {
      double bytes = sizes[k];
      double w = want[i].factor * dps_coll_cost_time (b, bytes, NULL, NULL);
      g_assert_cmpfloat (REL (dps_coll_cost_time (c, bytes, NULL, NULL), w), <, 1e-9);
      DpsCollCtx ctx;
      DpsCollChoice ch;
      g_assert_true (dps_coll_ctx_init (&ctx, t, &p, 16, want[i].op, bytes, NULL));
      g_assert_true (dps_coll_predict (&ctx, DPS_NCCL_ALGOS, DPS_ALL_PROTOS, DPS_MODE_ANALYTICAL, &ch, NULL));
      g_assert_cmpfloat (REL (ch.time_s, w), <, 1e-6);
    }
  }
}

/* No allowed algorithm applies: NVLS alone on PCIe GPUs without NVSwitch
 * fails, with a GError and no cost. */
static void
test_none_applies (void)
{
  g_autoptr (DpsTopo) t = test_shipped_topo ("pcie-8x-rtx4090", 1);
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (GError) e = NULL;
  DpsCollCost *c = dps_coll_cost_new (t, &p, 8, DPS_OP_ALLREDUCE, 1u << DPS_ALGO_NVLS, DPS_ALL_PROTOS, 0,
                                      DPS_MODE_ANALYTICAL, 0, &e);
  g_assert_null (c);
  g_assert_nonnull (e);
}

/* A call's own cost (call_s, fitted on the published record: 12 us) is
 * added once to every algorithm's time, whatever the size and the
 * protocol: ring, tree and NVLS over 2 DGX H100 nodes, at 4 KiB (under
 * the ring's plateau) and at 64 MiB (past it), take exactly 12 us more
 * than with none, and NCCL's choice among them does not move. */
static void
test_call_cost (void)
{
  g_autoptr (DpsTopo) t = test_shipped_topo ("dgx-h100", 2);
  DpsCollParams with, none;
  dps_tune_params_nccl (&with);
  g_assert_cmpfloat (with.call_s, ==, 12e-6);
  none = with;
  none.call_s = 0;
  static const DpsAlgo algos[] = { DPS_ALGO_RING, DPS_ALGO_TREE, DPS_ALGO_NVLS };
  static const double sizes[] = { 4096, 64 << 20 };
  DpsAlgo a1, a2;
  DpsProto p1, p2;
  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++) {
    for (gsize a = 0; a < G_N_ELEMENTS (algos); a++)
      for (int q = 0; q < DPS_PROTO_COUNT; q++) {
        if (algos[a] == DPS_ALGO_NVLS && q != DPS_PROTO_SIMPLE)
          continue;
        double tw = fresh_time_of (t, &with, 16, sizes[i], DPS_MODE_ANALYTICAL, 1u << algos[a], 1u << q, &a1, &p1);
        double tn = fresh_time_of (t, &none, 16, sizes[i], DPS_MODE_ANALYTICAL, 1u << algos[a], 1u << q, &a2, &p2);
        g_assert_cmpfloat (fabs (tw - tn - 12e-6), <, 1e-12);
      }
    fresh_time (t, &with, 16, sizes[i], DPS_MODE_ANALYTICAL, &a1, &p1);
    fresh_time (t, &none, 16, sizes[i], DPS_MODE_ANALYTICAL, &a2, &p2);
    g_assert_cmpint (a1, ==, a2);
    g_assert_cmpint (p1, ==, p2);
  }
}

/* NVLS all-gather and reduce-scatter on one DGX H100 node: each GPU
 * receives all of S (all-gather) or sends all of S (reduce-scatter) at the
 * links' rate, 370.8 GB/s, without the all-reduce's NVLS efficiency
 * (sim/coll-nvls.c, NVIDIA/nccl#1047), after NVLS's 25 us, the call's 12
 * and its fill of 2 MB on each of 16 channels: 1 GB in 37 us + 1.032 GB /
 * 370.8 GB/s.  NCCL's tuner never picks NVLS for them beside a ring: both
 * choosers, the per-size one and the cached cost, take the ring wherever
 * it is allowed and NVLS where it is the only algorithm, at every size
 * from 1 kB to 16 GB. */
static void
test_nvls_gather_choice (void)
{
  DpsCollParams p;
  dps_tune_params_nccl (&p);
  g_autoptr (DpsTopo) h100 = test_shipped_topo ("dgx-h100", 1);
  g_autoptr (GError) e = NULL;
  const guint masks[] = { DPS_NCCL_ALGOS, 1u << DPS_ALGO_NVLS };
  for (int op = DPS_OP_REDUCE_SCATTER; op <= DPS_OP_ALLGATHER; op++) {
    DpsCollCtx nv;
    DpsPlan *plan = NULL;
    g_assert_true (dps_coll_ctx_init (&nv, h100, &p, 8, (DpsCollOp) op, 1e9, &e));
    nv.algo = DPS_ALGO_NVLS;
    g_assert_true (dps_coll_build_plan (&nv, &plan, &e));
    double t = 37e-6 + (1e9 + 32e6) / 370.8e9;
    g_assert_cmpfloat (fabs (dps_plan_time_analytical (h100, plan, DPS_PROTO_SIMPLE) / t - 1), <, 1e-9);
    dps_plan_unref (plan);
    for (gsize m = 0; m < G_N_ELEMENTS (masks); m++) {
      DpsAlgo want = m == 0 ? DPS_ALGO_RING : DPS_ALGO_NVLS;
      DpsCollCost *c = dps_coll_cost_new (h100, &p, 8, (DpsCollOp) op, masks[m], DPS_ALL_PROTOS, 0,
                                          DPS_MODE_ANALYTICAL, 0, &e);
      g_assert_no_error (e);
      for (double bytes = 1e3; bytes < 2e10; bytes *= 8) {
        DpsCollCtx ctx;
        DpsCollChoice ch;
        DpsAlgo a;
        g_assert_true (dps_coll_ctx_init (&ctx, h100, &p, 8, (DpsCollOp) op, bytes, &e));
        g_assert_true (dps_coll_choose (&ctx, masks[m], DPS_ALL_PROTOS, &ch, &e));
        g_assert_cmpint (ch.algo, ==, want);
        dps_plan_unref (ch.plan);
        dps_coll_cost_time (c, bytes, &a, NULL);
        g_assert_cmpint (a, ==, want);
      }
      dps_coll_cost_free (c);
    }
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/coll-cost/call-cost", test_call_cost);
  g_test_add_func ("/coll-cost/equals-fresh-plan", test_equals_fresh_plan);
  g_auto (GStrv) shipped = dps_topo_list_shipped ();
  for (int i = 0; shipped[i]; i++) {
    g_autofree char *path = g_strconcat ("/coll-cost/choice-everywhere/", shipped[i], NULL);
    g_test_add_data_func (path, shipped[i], test_choice_everywhere);
  }
  g_test_add_func ("/coll-cost/eager-latency", test_eager_latency);
  g_test_add_func ("/coll-cost/plateau-latency", test_plateau_latency);
  g_test_add_func ("/coll-cost/pruning-keeps-answers", test_pruning_keeps_answers);
  g_test_add_func ("/coll-cost/nothing-to-move", test_nothing_to_move);
  g_test_add_func ("/coll-cost/correction", test_correction);
  g_test_add_func ("/coll-cost/correction-per-op", test_correction_per_op);
  g_test_add_func ("/coll-cost/none-applies", test_none_applies);
  g_test_add_func ("/coll-cost/nvls-gather-choice", test_nvls_gather_choice);
  return g_test_run ();
}
