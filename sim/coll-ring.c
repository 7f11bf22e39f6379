/* coll-ring — NCCL's ring, for all four operations.
 *
 * Each channel is a ring over all ranks: node after node, the GPUs of a node
 * in the topology's ring order rotated by channel.  All-reduce is a
 * reduce-scatter then an all-gather around the ring, 2(n-1) steps in which
 * each rank sends 1/n of its channel's share: every hop carries
 * 2(n-1)/n x S / channels bytes.  Reduce-scatter and all-gather take n-1
 * steps, (n-1)/n x S / channels per hop (S the whole array).  Broadcast
 * pipelines S / channels down a chain from rank 0.  On a homogeneous ring of
 * per-hop bandwidth B and per-step latency alpha, all-reduce thus takes
 * 2(n-1) alpha + 2(n-1)/n S / B: the textbook bound.
 */
#include "sim/coll.h"
#include "sim/tune.h"

static gboolean
ring_supports (const DpsCollCtx *ctx, GError **error)
{
  return TRUE;
}

/* The channel's ring over all ranks, as global GPU indices. */
static void
channel_ring (const DpsCollCtx *ctx, int c, int *gpus)
{
  int r = ctx->ranks_per_node;
  int order[DPS_TOPO_MAX_GPUS_PER_NODE];
  dps_ctx_ring (ctx, c, order);
  for (int m = 0; m < ctx->n_nodes; m++)
    for (int i = 0; i < r; i++)
      gpus[m * r + i] = dps_ctx_gpu (ctx, m, order[i]);
}

static void
ring_plan (const DpsCollCtx *ctx, DpsPlan *plan)
{
  int n = dps_ctx_n_ranks (ctx), m = ctx->n_nodes, nch = ctx->channels;
  DpsPhase *ph = dps_plan_add_phase_sized (plan, (guint) (n * nch));
  int nsteps, ninter;
  double hop;
  switch (ctx->op) {
  case DPS_OP_ALLREDUCE:
    nsteps = 2 * (n - 1);
    ninter = 2 * (m - 1);
    hop = 2.0 * (n - 1) / n * ctx->bytes / nch;
    break;
  case DPS_OP_REDUCE_SCATTER:
  case DPS_OP_ALLGATHER:
    nsteps = n - 1;
    ninter = m - 1;
    hop = (double) (n - 1) / n * ctx->bytes / nch;
    break;
  default:  /* broadcast: a pipelined chain from rank 0 */
    nsteps = n - 1;
    ninter = m - 1;
    hop = ctx->bytes / nch;
    break;
  }
  dps_tune_ring_latency (ctx, DPS_ALGO_RING, nsteps, ninter, TRUE, ph->latency_s);
  int *gpus = g_new (int, n);
  for (int c = 0; c < nch; c++) {
    channel_ring (ctx, c, gpus);
    if (ctx->op != DPS_OP_BROADCAST) {
      dps_phase_ring (ph, gpus, n, hop);
      continue;
    }
    int root = 0;
    while (gpus[root] != 0)
      root++;
    for (int i = 0; i < n - 1; i++)
      dps_phase_add_flow (ph, gpus[(root + i) % n], gpus[(root + i + 1) % n], hop);
  }
  g_free (gpus);
}

const DpsCollAlgo dps_coll_ring = {
  .name = "ring", .id = DPS_ALGO_RING, .protos = DPS_ALL_PROTOS, .nccl_default = TRUE,
  .nccl = { .base_us = DPS_NCCL_RING_BASE_US, .step_us = DPS_NCCL_RING_STEP_US, .bw = DPS_NCCL_RING_BW,
            .fill_bytes = { DPS_NCCL_FILL_LL, DPS_NCCL_FILL_LL128, DPS_NCCL_FILL_SIMPLE } },
  .supports = ring_supports, .plan = ring_plan,
};
