/* coll-pat — NCCL's PAT (Parallel Aggregated Trees): all-gather and
 * reduce-scatter for one GPU a node.
 *
 * NCCL 2.23 on runs these two with PAT where every node holds one rank
 * (nNodes == nRanks: "PAT only supports 1 GPU per node", ncclPatEnable in
 * src/graph/tuning.cc, NVIDIA/nccl@5067397), Simple only.  It is Bruck's
 * exchange in rounds: in round k each rank trades with the ranks 2^k away
 * the blocks it holds so far, 2^k blocks of S/n (fewer in the last round:
 * n - 2^k), so that after ceil(log2 n) rounds every rank has every block.
 * Each rank thus sends (n-1)/n S in all, as in a ring, but the network's
 * latency is paid once a round, log2 n times, where a ring pays it n - 1
 * times.  Here: one phase of pipelined flows, rank i to rank i + 2^k (mod
 * n) carrying that round's blocks (reduce-scatter runs the same exchange
 * the other way: the same bytes on the same links).
 *
 * NCCL's estimate (src/graph/tuning.cc): latency base (8 us) + floor(log2
 * n) x the network's latency / 3.5 + n x 2.8 us ("still a linear part"),
 * the network's latency being the tree's with one rank a node (14 us with
 * Simple: dps_tune_step_s); bandwidth 0.75 of what the tree's graph gives
 * (busBw *= .75: algo_bw_factor here).
 */
#include "sim/coll.h"
#include "sim/tune.h"
#include "sim/base/error.h"

/* NCCL's linear term of PAT's latency, per rank */
#define RANK_STEP_S 2.8e-6
/* and the share of a network step each round pays */
#define ROUND_SHARE (1 / 3.5)

static gboolean
pat_supports (const DpsCollCtx *ctx, GError **error)
{
  if (ctx->op != DPS_OP_ALLGATHER && ctx->op != DPS_OP_REDUCE_SCATTER) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "algorithm pat runs only allgather and reducescatter, not %s",
                 dps_coll_op_name (ctx->op));
    return FALSE;
  }
  if (ctx->ranks_per_node != 1 || ctx->n_nodes < 2) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED,
                 "algorithm pat runs only with one GPU a node on 2 nodes or more (NCCL: nNodes == nRanks), "
                 "not %d on %d", ctx->ranks_per_node, ctx->n_nodes);
    return FALSE;
  }
  return TRUE;
}

static void
pat_plan (const DpsCollCtx *ctx, DpsPlan *plan)
{
  int n = ctx->n_nodes;
  int rounds = dps_ceil_log2 (n);
  DpsPhase *ph = dps_plan_add_phase_sized (plan, (guint) (n * rounds));
  for (int p = 0; p < DPS_PROTO_COUNT; p++)
    ph->latency_s[p] = ctx->params->base_s[DPS_ALGO_PAT][p]
                       + dps_tune_log2i (n) * dps_tune_step_s (ctx, DPS_ALGO_PAT, DPS_LINK_NET, p) * ROUND_SHARE
                       + n * RANK_STEP_S;
  double block = ctx->bytes / n;
  for (int d = 1; d < n; d *= 2) {
    double bytes = MIN (d, n - d) * block;
    for (int i = 0; i < n; i++)
      dps_phase_add_flow (ph, dps_ctx_gpu (ctx, i, 0), dps_ctx_gpu (ctx, (i + d) % n, 0), bytes);
  }
}

/* Simple alone (NCCL enables PAT with it alone); base 8 us, a network step
 * of 14 us of which a round pays 1/3.5 (pat_plan); NCCL's own 0.75 of the
 * tree graph's bandwidth (src/graph/tuning.cc, "if (a == NCCL_ALGO_PAT)
 * busBw *= .75"); its channels hold NCCL's buffers as rings' do */
const DpsCollAlgo dps_coll_pat = {
  .name = "pat", .id = DPS_ALGO_PAT, .protos = 1u << DPS_PROTO_SIMPLE, .nccl_default = TRUE,
  .nccl = { .base_us = { 0, 0, 8.0 }, .step_us = { { 0, 0, 4.0 }, { 0, 0, 4.0 }, { 0, 0, 14 } },
            .bw = { 0, 0, 1.0 }, .algo_bw = 0.75, .fill_bytes = { 0, 0, DPS_NCCL_FILL_SIMPLE } },
  .supports = pat_supports, .plan = pat_plan,
};
