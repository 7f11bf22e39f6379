/* coll-collnet — NCCL's CollNet all-reduce: the reduction done by the
 * InfiniBand switches (SHARP), as NCCL's CollNet Direct runs it.
 *
 * Inside each node the GPUs that own a NIC are the heads, h of them.
 * Every GPU sends each head 1/h of its buffer, S/h, and the head reduces
 * them (a direct reduce-scatter over NVLink); each head sends its reduced
 * S/h up through its NIC, the switches reduce it across all m nodes and
 * send the sum back down, S/h in each direction whatever m is; the head
 * then sends its S/h of the result to every GPU of its node (a direct
 * all-gather).  A ring moves 2(n-1)/n S through a node's NICs for the
 * same all-reduce, so from two nodes on CollNet's algorithm bandwidth is
 * up to twice a ring's where the NICs limit.  Between nodes the switches'
 * reduction runs at dps_tune_collnet_efficiency of the NICs' bandwidth
 * (NCCL's 0.85 from Hopper on): here a head's flow to the same head of
 * the next node, S/h each way through every NIC, carries S/h / that
 * efficiency.  All parts are pipelined: one phase of concurrent flows.
 *
 * NCCL's latency (src/graph/tuning.cc, CollNet Direct, Simple only):
 * base + 2 (intra + (r-1) 0.4 us) + the network's in-switch step, with
 * NCCL's tables (3.7 us over NVLink or PCI, 31 us across the network).
 * NCCL's CollNet Chain, the other CollNet algorithm, moves the same bytes
 * through the NICs along a chain inside the node; it is not told apart
 * here: NCCL_ALGO's CollNetDirect and CollNetChain both name this one.
 *
 * Runs only where NCCL can: an all-reduce (all-gather and reduce-scatter
 * need a plugin that has them), across at least two nodes
 * (NCCL_COLLNET_NODE_THRESHOLD, 2), on a fabric whose switches reduce
 * (sharp = true in the topology), and only when asked for: NCCL's CollNet
 * is off unless NCCL_COLLNET_ENABLE=1 (src/init.cc), so NCCL's own choice
 * (DPS_NCCL_ALGOS) leaves it out.
 */
#include "sim/coll.h"
#include "sim/tune.h"
#include "sim/base/error.h"

/* NCCL's serialization of a CollNet Direct head's arity, per local rank */
#define ARITY_STEP_S 0.4e-6

static gboolean
collnet_supports (const DpsCollCtx *ctx, GError **error)
{
  if (!dps_topo_spec (ctx->topo)->sharp) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED,
                 "algorithm collnet needs switches that reduce (sharp = true in the topology's [fabric])");
    return FALSE;
  }
  if (ctx->op != DPS_OP_ALLREDUCE) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "algorithm collnet runs only allreduce, not %s",
                 dps_coll_op_name (ctx->op));
    return FALSE;
  }
  if (ctx->n_nodes < 2) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED,
                 "algorithm collnet needs at least 2 nodes (NCCL_COLLNET_NODE_THRESHOLD)");
    return FALSE;
  }
  return TRUE;
}

/* The local GPUs (of the first r) that head a NIC: the first to use it.
 * Returns their count. */
static int
heads_of (const DpsCollCtx *ctx, int *heads)
{
  const DpsTopoSpec *s = dps_topo_spec (ctx->topo);
  int h = 0;
  for (int i = 0; i < ctx->ranks_per_node; i++) {
    gboolean first = TRUE;
    for (int j = 0; j < i && first; j++)
      first = s->gpu_nic[j] != s->gpu_nic[i];
    if (first)
      heads[h++] = i;
  }
  return h;
}

static void
collnet_plan (const DpsCollCtx *ctx, DpsPlan *plan)
{
  int r = ctx->ranks_per_node, m = ctx->n_nodes;
  int heads[DPS_TOPO_MAX_GPUS_PER_NODE];
  int h = heads_of (ctx, heads);
  double S = ctx->bytes, slice = S / h;
  DpsPhase *ph = dps_plan_add_phase_sized (plan, (guint) (m * (2 * r * h + h)));
  DpsLinkKind intra = dps_topo_intra_kind (ctx->topo);
  for (int p = 0; p < DPS_PROTO_COUNT; p++)
    ph->latency_s[p] = ctx->params->base_s[DPS_ALGO_COLLNET][p]
                       + 2 * ((r > 1 ? dps_tune_step_s (ctx, DPS_ALGO_COLLNET, intra, p) : 0) + (r - 1) * ARITY_STEP_S)
                       + dps_tune_step_s (ctx, DPS_ALGO_COLLNET, DPS_LINK_NET, p);
  double up = slice / dps_tune_collnet_efficiency (ctx);
  for (int node = 0; node < m; node++)
    for (int k = 0; k < h; k++) {
      int head = dps_ctx_gpu (ctx, node, heads[k]);
      for (int i = 0; i < r; i++) {
        int g = dps_ctx_gpu (ctx, node, i);
        if (g == head)
          continue;
        dps_phase_add_flow (ph, g, head, slice);
        dps_phase_add_flow (ph, head, g, slice);
      }
      /* through the head's NIC to the switches and back */
      dps_phase_add_flow (ph, head, dps_ctx_gpu (ctx, (node + 1) % m, heads[k]), up);
    }
}

/* Simple alone (NCCL's tuner gives its LL and LL128 no bandwidth); CollNet
 * Direct's step 3.7 us over NVLink and PCI, the switches' reduction 31 us
 * (NCCL 2.19 on, src/graph/tuning.cc hwLat); its channels hold NCCL's
 * buffers as rings' do; not run unless asked for (DPS_NCCL_ALGOS) */
const DpsCollAlgo dps_coll_collnet = {
  .name = "collnet", .id = DPS_ALGO_COLLNET, .protos = 1u << DPS_PROTO_SIMPLE, .nccl_default = FALSE,
  .nccl = { .step_us = { { 0, 0, 3.7 }, { 0, 0, 3.7 }, { 0, 0, 31 } }, .bw = { 0, 0, 1.0 },
            .fill_bytes = { 0, 0, DPS_NCCL_FILL_SIMPLE } },
  .supports = collnet_supports, .plan = collnet_plan,
};
