/* coll-nvls — NVLink SHARP (NVLS): reduction and multicast in the NVSwitch.
 *
 * Inside a node each GPU pushes its whole buffer S up to the switch, which
 * reduces, and receives the reduced S back by multicast: S each way per GPU,
 * against 2(r-1)/r S for a ring, which is why NCCL prefers NVLS for large
 * messages on NVSwitch systems.  NCCL's Hopper efficiency factor (0.85)
 * applies to the flows to and from the switch.  Across nodes (NCCL's
 * NVLSTree) the switch reduce-scatters, the GPUs with the same local index
 * all-reduce their S/r slice over a double binary tree between nodes, and
 * the switch gathers.  Only where the topology says nvls = true; the Simple
 * protocol only.  As in NCCL, the in-switch and between-node parts are
 * pipelined: one phase of concurrent flows.
 *
 * All-gather and reduce-scatter run on NVLS inside one NVLink domain only
 * (NCCL needs CollNet for them across nodes, src/graph/tuning.cc), on at
 * most 32 ranks (NCCL_MAX_NVLS_ARITY, src/include/device.h, enqueue.cc).
 * An all-gather sends its S/r once and the switch's multicast brings every
 * GPU all of S, its own slice included; a reduce-scatter pulls all of S
 * through the in-switch reduction and gets its reduced S/r (NCCL's
 * maintainer, NVIDIA/nccl#1083 and #1506: "Send S/N, Receive S" and the
 * reverse, against (N-1)/N S each way for a ring).  They run at the
 * links' own rate, without the all-reduce's NVLS efficiency: on one node of
 * 8 H100 (NVIDIA/nccl#1047, tests/reference/nccl) NVLS reduce-scatter
 * reaches 355 GB/s of algbw at 1 GiB, 0.96 of the 371 GB/s a ring's links
 * carry (dgx-h100), where the all-reduce gets 270.  Their busbw is then
 * (r-1)/r of the ring's, and NCCL's tuner, which gives them nvlsEfficiency
 * x ((r-1)/r)^2 of the ring's bandwidth and a 25 us latency, never picks
 * them beside a ring: here too they run only where NVLS is the one
 * algorithm allowed (NCCL_ALGO=NVLS, `--algo nvls`; coll-cost.c).
 *
 * The switch's part across m nodes runs at NVLS's one-node bus bandwidth,
 * as NCCL's tuner has it (src/graph/tuning.cc gives NVLS and NVLSTree the
 * same per-channel busBw inside the node, nvlsEfficiency x bwIntra x 2):
 * each GPU moves 2(mr-1)/(mr) / (2(r-1)/r) S each way, 1.071 S on 2 nodes
 * of 8, not the S + S/r (1.125 S) of counting the reduce-scatter's and
 * gather's own S/r (tests/reference/README.md has the 2-node plateaus).
 */
#include "sim/coll.h"
#include "sim/tune.h"
#include "sim/base/error.h"

/* NCCL_MAX_NVLS_ARITY: the most local ranks NVLS all-gather and
 * reduce-scatter take */
#define NVLS_MAX_ARITY 32

static gboolean
nvls_supports (const DpsCollCtx *ctx, GError **error)
{
  if (!dps_topo_spec (ctx->topo)->nvls) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED,
                 "algorithm nvls needs NVSwitch multicast (nvls = true in the topology)");
    return FALSE;
  }
  if (ctx->ranks_per_node < 2) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED,
                 "algorithm nvls needs 2 GPUs of a node at least, not 1 (NCCL turns it off below 2: ncclNvlsInit)");
    return FALSE;
  }
  if (ctx->op == DPS_OP_ALLREDUCE)
    return TRUE;
  if (ctx->op != DPS_OP_ALLGATHER && ctx->op != DPS_OP_REDUCE_SCATTER) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED,
                 "algorithm nvls runs allreduce, allgather and reducescatter, not %s", dps_coll_op_name (ctx->op));
    return FALSE;
  }
  if (ctx->n_nodes > 1) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED,
                 "algorithm nvls runs %s inside one NVLink domain only, not across %d nodes (NCCL needs CollNet for that)",
                 dps_coll_op_name (ctx->op), ctx->n_nodes);
    return FALSE;
  }
  if (ctx->ranks_per_node > NVLS_MAX_ARITY) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED,
                 "algorithm nvls runs %s on at most %d ranks of a node, not %d (NCCL_MAX_NVLS_ARITY)",
                 dps_coll_op_name (ctx->op), NVLS_MAX_ARITY, ctx->ranks_per_node);
    return FALSE;
  }
  return TRUE;
}

/* What the switch's multicast and in-switch reduction reach of the
 * NVLink bandwidth: the topology's NVLS efficiency (NCCL's per-generation
 * figure; a spec built in code (0) has NCCL's Hopper one) times the
 * parameters' share of it (algo_bw_factor, fitted on the suite).  It slows
 * the flows to and from the switch only: NCCL's own model applies
 * nvlsEfficiency to the intra-node bandwidth alone, the network's trees
 * between nodes keeping theirs (src/graph/tuning.cc, NVLS/NVLSTree). */
static double
switch_efficiency (const DpsCollCtx *ctx)
{
  double e = dps_topo_spec (ctx->topo)->nvls_efficiency;
  return (e > 0 ? e : DPS_NVLS_EFFICIENCY_DEFAULT) * ctx->params->algo_bw_factor[DPS_ALGO_NVLS];
}

static void
switch_flows (const DpsCollCtx *ctx, DpsPhase *ph, double up, double down)
{
  double eff = ctx->op == DPS_OP_ALLREDUCE ? switch_efficiency (ctx) : 1;
  up /= eff;
  down /= eff;
  for (int node = 0; node < ctx->n_nodes; node++)
    for (int i = 0; i < ctx->ranks_per_node; i++) {
      int g = dps_ctx_gpu (ctx, node, i);
      dps_phase_add_flow (ph, g, DPS_SWITCH, up);
      dps_phase_add_flow (ph, DPS_SWITCH, g, down);
    }
}

static void
nvls_plan (const DpsCollCtx *ctx, DpsPlan *plan)
{
  int r = ctx->ranks_per_node, m = ctx->n_nodes;
  double S = ctx->bytes;
  DpsPhase *ph = dps_plan_add_phase_sized (plan, (guint) (2 * r * m + 4 * r * m));
  for (int p = 0; p < DPS_PROTO_COUNT; p++)
    ph->latency_s[p] = ctx->params->base_s[DPS_ALGO_NVLS][p]
                       + ctx->params->step_s[DPS_ALGO_NVLS][DPS_LINK_NVLINK][p]
                       + 2 * dps_ceil_log2 (m) * dps_tune_step_s (ctx, DPS_ALGO_NVLS, DPS_LINK_NET, p);
  if (ctx->op == DPS_OP_ALLGATHER) {   /* one node (nvls_supports) */
    switch_flows (ctx, ph, S / r, S);
    return;
  }
  if (ctx->op == DPS_OP_REDUCE_SCATTER) {
    switch_flows (ctx, ph, S, S / r);
    return;
  }
  if (m == 1) {
    switch_flows (ctx, ph, S, S);
    return;
  }
  /* reduce-scatter and all-gather in the switch, at NVLS's one-node bus
   * bandwidth over m r ranks; pipelined with the trees between nodes */
  double k = r > 1 ? (double) (m * r - 1) / (m * r) * r / (r - 1) : 2;   /* one GPU a node: S + S/r */
  switch_flows (ctx, ph, k * S, k * S);
  int *gpus = g_new (int, m);
  for (int i = 0; i < r; i++) {
    for (int node = 0; node < m; node++)
      gpus[node] = dps_ctx_gpu (ctx, node, i);
    /* two mirrored trees, half the slice each */
    dps_phase_btree (ph, gpus, m, 0, S / r / 2);
    dps_phase_btree (ph, gpus, m, 1, S / r / 2);
  }
  g_free (gpus);
}

/* Simple alone; a step of 25 us over NVLink, 20.9 us across nodes (NCCL's
 * NVLSTree).  NVLS reaches 0.85 of NCCL's per-generation estimate (8 H100
 * measure ~480 GB/s of busbw where NCCL's figure gives 551) and fills
 * 250 kB per GPU and NVLS channel (dps_tune_fill_times); both fitted over
 * tests/reference/nccl, never to one system (tests/reference/README.md,
 * "How the constants were set"). */
const DpsCollAlgo dps_coll_nvls = {
  .name = "nvls", .id = DPS_ALGO_NVLS, .protos = 1u << DPS_PROTO_SIMPLE, .nccl_default = TRUE,
  .nccl = { .step_us = { { 0, 0, 25 }, { 0, 0, 25 }, { 0, 0, 20.9 } }, .bw = { 0, 0, 1.0 }, .algo_bw = 0.85,
            .fill_bytes = { 0, 0, 2.5e5 } },
  .supports = nvls_supports, .plan = nvls_plan,
};
