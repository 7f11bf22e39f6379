/* coll-hier — hierarchical all-reduce: reduce-scatter inside each node,
 * all-reduce across nodes, all-gather inside each node.
 *
 * Phase 1: a ring reduce-scatter over the node's r GPUs (channels rings),
 *   each hop (r-1)/r x S / channels; afterwards GPU i holds 1/r of the sum.
 * Phase 2: for each local index i, a ring all-reduce of that S/r slice
 *   over the m GPUs with index i, one per node, each through its own NIC:
 *   hops of 2(m-1)/m x S/r.
 * Phase 3: a ring all-gather inside each node, as phase 1.
 * Only the slices cross the network, so the inter-node bytes per GPU are
 * those of a flat ring, but the network latency is 2(m-1) steps instead of
 * 2(mr-1).  Applies from two nodes up.
 */
#include "sim/coll.h"
#include "sim/tune.h"
#include "sim/base/error.h"

static gboolean
hier_supports (const DpsCollCtx *ctx, GError **error)
{
  if (ctx->op != DPS_OP_ALLREDUCE) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "algorithm hier runs only allreduce, not %s",
                 dps_coll_op_name (ctx->op));
    return FALSE;
  }
  if (ctx->n_nodes < 2) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "algorithm hier needs at least 2 nodes");
    return FALSE;
  }
  return TRUE;
}

static void
intra_ring_phase (const DpsCollCtx *ctx, DpsPlan *plan, gboolean with_base)
{
  int r = ctx->ranks_per_node, nch = ctx->channels;
  DpsPhase *ph = dps_plan_add_phase (plan);
  DpsCollCtx one = *ctx;
  one.n_nodes = 1;   /* intra-node steps pay no network overhead */
  dps_tune_ring_latency (&one, DPS_ALGO_HIER, r - 1, 0, with_base, ph->latency_s);
  int order[DPS_TOPO_MAX_GPUS_PER_NODE], gpus[DPS_TOPO_MAX_GPUS_PER_NODE];
  double hop = (double) (r - 1) / r * ctx->bytes / nch;
  for (int c = 0; c < nch; c++) {
    dps_ctx_ring (ctx, c, order);
    for (int node = 0; node < ctx->n_nodes; node++) {
      for (int i = 0; i < r; i++)
        gpus[i] = dps_ctx_gpu (ctx, node, order[i]);
      dps_phase_ring (ph, gpus, r, hop);
    }
  }
}

static void
hier_plan (const DpsCollCtx *ctx, DpsPlan *plan)
{
  int r = ctx->ranks_per_node, m = ctx->n_nodes;
  if (r > 1)
    intra_ring_phase (ctx, plan, TRUE);
  DpsPhase *ph = dps_plan_add_phase (plan);
  dps_tune_ring_latency (ctx, DPS_ALGO_HIER, 2 * (m - 1), 2 * (m - 1), r == 1, ph->latency_s);
  int *gpus = g_new (int, m);
  double hop = 2.0 * (m - 1) / m * ctx->bytes / r;
  for (int i = 0; i < r; i++) {
    for (int node = 0; node < m; node++)
      gpus[node] = dps_ctx_gpu (ctx, node, i);
    dps_phase_ring (ph, gpus, m, hop);
  }
  g_free (gpus);
  if (r > 1)
    intra_ring_phase (ctx, plan, FALSE);
}

/* not NCCL's: run only when asked for; a ring's latencies and payload in
 * each phase, without NCCL's pipeline fill */
const DpsCollAlgo dps_coll_hier = {
  .name = "hier", .id = DPS_ALGO_HIER, .protos = DPS_ALL_PROTOS, .nccl_default = FALSE,
  .nccl = { .base_us = DPS_NCCL_RING_BASE_US, .step_us = DPS_NCCL_RING_STEP_US, .bw = DPS_NCCL_RING_BW },
  .supports = hier_supports, .plan = hier_plan,
};
