/* coll-tree — NCCL's double binary tree all-reduce.
 *
 * Inside a node the ranks form a chain; across nodes the chain heads form
 * two binary trees, the second the mirror image of the first, so that a
 * leaf in one tree is an inner node in the other and every node sends and
 * receives about the same.  Channels alternate between the two trees, each
 * carrying S / channels.  Reduction up and broadcast down are pipelined, so
 * every tree edge carries its bytes both ways at once.  NCCL's latency:
 * base + 2((ranks_per_node - 1) intra + log2(nodes) inter) steps.
 */
#include "sim/coll.h"
#include "sim/tune.h"
#include "sim/base/error.h"

static gboolean
tree_supports (const DpsCollCtx *ctx, GError **error)
{
  if (ctx->op != DPS_OP_ALLREDUCE) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "algorithm tree runs only allreduce, not %s",
                 dps_coll_op_name (ctx->op));
    return FALSE;
  }
  return TRUE;
}

static void
tree_plan (const DpsCollCtx *ctx, DpsPlan *plan)
{
  int r = ctx->ranks_per_node, m = ctx->n_nodes, nch = ctx->channels;
  DpsPhase *ph = dps_plan_add_phase_sized (plan, (guint) (2 * r * m * nch));
  DpsLinkKind intra = dps_topo_intra_kind (ctx->topo);
  for (int p = 0; p < DPS_PROTO_COUNT; p++)
    ph->latency_s[p] = ctx->params->base_s[DPS_ALGO_TREE][p]
                       + 2 * ((r - 1) * dps_tune_step_s (ctx, DPS_ALGO_TREE, intra, p)
                              + dps_ceil_log2 (m) * dps_tune_step_s (ctx, DPS_ALGO_TREE, DPS_LINK_NET, p));
  /* LL128 keeps 120 of 128 bytes across nodes; NCCL uses 7/9 inside one */
  if (m == 1)
    plan->payload[DPS_PROTO_LL128] = 7.0 / 9.0 * ctx->params->algo_bw_factor[DPS_ALGO_TREE]
                                     / dps_tune_fill_factor (ctx->params, DPS_ALGO_TREE, DPS_PROTO_LL128,
                                                           dps_tune_fill_times (ctx, DPS_ALGO_TREE), ctx->bytes);
  double b = ctx->bytes / nch;
  int order[DPS_TOPO_MAX_GPUS_PER_NODE];
  int *heads = g_new (int, m);
  for (int c = 0; c < nch; c++) {
    dps_ctx_ring (ctx, c, order);
    for (int node = 0; node < m; node++) {
      for (int i = 1; i < r; i++) {
        int child = dps_ctx_gpu (ctx, node, order[i]), parent = dps_ctx_gpu (ctx, node, order[i - 1]);
        dps_phase_add_flow (ph, child, parent, b);
        dps_phase_add_flow (ph, parent, child, b);
      }
      heads[node] = dps_ctx_gpu (ctx, node, order[0]);
    }
    dps_phase_btree (ph, heads, m, c % 2, b);
  }
  g_free (heads);
}

/* NCCL's tree latencies (us, src/graph/tuning.cc baseLat and hwLat) and
 * payload (LL 1/3.8, LL128 120/128, Simple 0.92 of bus bandwidth) */
const DpsCollAlgo dps_coll_tree = {
  .name = "tree", .id = DPS_ALGO_TREE, .protos = DPS_ALL_PROTOS, .nccl_default = TRUE,
  .nccl = { .base_us = { 6.8, 14.0, 8.4 }, .step_us = { { 0.6, 1.25, 4.0 }, { 1.0, 1.9, 4.0 }, { 5.0, 8.5, 14 } },
            .bw = { 1 / 3.8, 120.0 / 128, 0.92 },
            .fill_bytes = { DPS_NCCL_FILL_LL, DPS_NCCL_FILL_LL128, DPS_NCCL_FILL_SIMPLE } },
  .supports = tree_supports, .plan = tree_plan,
};
