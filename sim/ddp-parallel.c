/* ddp-parallel.c — the program of tensor and pipeline parallelism with
 * data parallelism over the rest (strategy-pipeline.c emits its tasks):
 * the layout on the topology, each stage's layers, what one GPU of a
 * tensor-parallel group computes, holds and sends, and the collective
 * costs of its groups.
 *
 * Ranks are placed in the order c->rank_order names (sim/layout.h, which
 * `dpscale topo --tp --pp` draws; by default Megatron-LM's): tensor
 * parallel on consecutive GPUs, inside a node when tp divides it; each
 * group's collectives are costed on the nodes its first group touches.
 *
 * One GPU of a tensor-parallel group of t (Megatron: attention and MLP
 * split by columns then rows, the embedding and the head by the
 * vocabulary) computes 1/t of each layer's kernels, its row-parallel GEMMs
 * (attention's output projection, the MLP's second) reducing over K / t
 * at the rate the GEMM law gives that K (compute.h's tp); of its
 * memory-bound passes those over the hidden state (norms, dropout,
 * residuals: DpsComputeSplit's tp_whole_s) run whole on every rank, or
 * split too with sequence parallelism, while those over heads, the MLP's
 * columns or the vocabulary (softmax and dropout over the scores, the
 * activation, the loss) are split in either case.  It keeps of a block's
 * activations, per Korthikanti et al. 2022 (s b h (10 + 24/t) + 5 a s^2 b
 * / t bytes), the 10 of 34 replicated parts whole without sequence
 * parallelism, all /t with it.  Each block waits for two collectives of its activations (s b
 * h x 2 bytes) in forward and two in backward; the embedding one.
 * Stages hold the transformer blocks evenly (pp x vpp chunks, chunk j =
 * c pp + s on stage s), the layers before the first block on the first,
 * those after the last on the last. */
#include "sim/ddp-program.h"
#include "sim/layout.h"
#include "sim/base/error.h"

#include <math.h>
#include <string.h>

/* A send between neighbouring stages: as a two-rank all-gather of twice
 * its bytes, in which each rank sends its half to the other (NCCL's
 * send/recv and its all-gather of two move the same bytes the same way). */
static double
p2p_time (const void *cost, double bytes, double *lat_s, DpsAlgo *algo, DpsProto *proto)
{
  return dps_coll_cost_time_lat (cost, 2 * bytes, lat_s, algo, proto);
}

/* The share of n things that part i of k holds when they are split as
 * evenly as they go, the remainder spread over the parts (70 blocks on 12
 * stages: 6 or 5 each, as DeepSpeed's pipeline engine partitions BLOOM's). */
static int
even_share (int n, int i, int k)
{
  return (int) (((gint64) (i + 1) * n + k - 1) / k - ((gint64) i * n + k - 1) / k);
}

/* Fills chunk_of[b], the chunk (v x pp + s: virtual stage v of stage s, in
 * the model's order) each of n blocks falls in: the blocks split over the
 * pp stages as evenly as they go, then each stage's over its V chunks.
 * Splitting the blocks over the pp x V chunks at once would put every
 * chunk's remainder on the same stages (126 blocks on 16 stages x 7: the
 * 14 chunks of two blocks all on stages 0 and 8, 14 blocks each against
 * 7); Megatron and Llama 3's schedule balance the stages.  With end_slots
 * the embedding and the output layer count as a block each, on the first
 * chunk and the last: n + 2 places split so, each end's chunk holding a
 * block fewer (BLOOM's 70 blocks on 12 stages: 5, 6 x 10, 5, as
 * DeepSpeed's type:transformer|embedding partitions them). */
static void
chunks_of_blocks (int n, int pp, int V, gboolean end_slots, int *chunk_of)
{
  int places = n + (end_slots ? 2 : 0);
  for (int j = 0, b = 0; j < pp * V; j++) {
    int s = j % pp, v = j / pp;
    int c = even_share (even_share (places, s, pp), v, V) - (end_slots && j == 0) - (end_slots && j == pp * V - 1);
    for (; c > 0 && b < n; c--)
      chunk_of[b++] = j;
  }
}

gboolean
dps_ddp_program_parallel (const DpsDdpConfig *c, const DpsDdpInputs *in, DpsDdpProgram *p, GError **error)
{
  const DpsModel *m = c->model;
  const DpsDeviceSpec *dev = &dps_topo_spec (c->topo)->gpu;
  int N = c->n_gpus, tp = MAX (1, c->tp), pp = MAX (1, c->pp), L = in->n_layers;
  int k = dps_topo_gpus_per_node (c->topo);
  gboolean interleaved = c->pipe_schedule == DPS_PIPE_INTERLEAVED;
  int V = interleaved ? MAX (1, c->vpp) : 1;
  memset (p, 0, sizeof *p);
  if (N % (tp * pp) != 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "layout: tp %d x pp %d does not divide the %d GPUs", tp, pp, N);
    return FALSE;
  }
  if (m->heads > 0 && m->heads % tp != 0) {
    /* Megatron splits a block's heads over its tensor-parallel group
     * ("number of attention heads must be divisible by the tensor model
     * parallel size", megatron/core/transformer/attention.py) */
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "layout: tp %d does not divide %s's %d attention heads", tp,
                 m->name, m->heads);
    return FALSE;
  }
  if (V > DPS_PIPE_MAX_VPP) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "virtual stages: %d, at most %d", V, DPS_PIPE_MAX_VPP);
    return FALSE;
  }
  int dp = N / (tp * pp);
  int M = dps_ddp_micro_steps (c);
  if (interleaved && M % pp != 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT,
                 "micro-batches: the interleaved schedule takes a multiple of the %d stages, not %d", pp, M);
    return FALSE;
  }
  /* the stages' layers */
  int n_blocks = 0, first_block = -1, last_block = -1;
  for (int l = 0; l < L; l++)
    if (dps_model_layer (m, l)->input_bytes > 0) {
      if (first_block < 0)
        first_block = l;
      last_block = l;
      n_blocks++;
    }
  if (n_blocks < pp * V) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "layout: %d transformer blocks cannot fill %d stages x %d chunks",
                 n_blocks, pp, V);
    return FALSE;
  }
  g_autofree int *stage = g_new (int, MAX (L, 1)), *chunk = g_new (int, MAX (L, 1)), *tp_pass = g_new (int, MAX (L, 1));
  g_autofree double *fwd = g_new (double, MAX (L, 1)), *bwd = g_new (double, MAX (L, 1));
  g_autofree double *rec = g_new (double, MAX (L, 1)), *act = g_new (double, MAX (L, 1));
  g_autofree double *kept = g_new (double, MAX (L, 1)), *tpb = g_new (double, MAX (L, 1));
  g_autofree double *hold = g_new (double, MAX (L, 1));
  g_autofree double *grads = g_new (double, MAX (L, 1)), *params = g_new (double, MAX (L, 1));
  g_autofree double *stage_params = g_new0 (double, pp);
  double act_bytes_el = dps_dtype_bytes (c->compute.dtype) / 2.0, gb = dps_dtype_bytes (c->grad_dtype);
  double p2p_full = 0, largest_tp = 0, largest_grad = 0, largest_param = 0;
  /* ZeRO-1 under Megatron's layouts is its distributed optimizer (or
   * DeepSpeed's stage 1): gradients reduce-scattered, the updated
   * parameters all-gathered in their own type */
  gboolean zero1 = c->strategy == DPS_STRATEGY_ZERO1 && dp > 1;
  double pb = dps_precision_param_bytes (c->precision);
  gboolean sp = c->sequence_parallel && tp > 1;
  g_autofree int *chunk_of = g_new (int, n_blocks);
  chunks_of_blocks (n_blocks, pp, V, c->pp_end_slots && pp > 1, chunk_of);
  for (int l = 0, b = 0; l < L; l++) {
    const DpsLayer *layer = dps_model_layer (m, l);
    gboolean block = layer->input_bytes > 0;
    int j = block ? chunk_of[b++] : l < first_block ? 0 : pp * V - 1;
    chunk[l] = j / pp;
    stage[l] = j % pp;
    /* this GPU's share of the layer's time: its kernels at tp, / tp, but
     * the passes left whole (the split of the whole layer at tp 1 is what
     * in's times are) */
    DpsComputeSplit one, s;
    dps_compute_layer_split (m, l, dev, &c->compute, in->batch, &one);
    s = one;
    if (tp > 1) {
      DpsComputeParams at_tp = c->compute;
      at_tp.tp = tp;
      dps_compute_layer_split (m, l, dev, &at_tp, in->batch, &s);
    }
    double whole = one.flops_s + one.memory_s + one.host_s;
    double f = whole > 0
               ? (s.flops_s / tp + (s.memory_s - s.tp_whole_s) / tp + s.tp_whole_s / (sp ? tp : 1) + s.host_s) / whole
               : 1.0 / tp;
    fwd[l] = in->fwd_s[l] * f;
    bwd[l] = in->bwd_s[l] * f;
    rec[l] = in->recompute_s[l] * f;
    /* its activations */
    double attn = c->flash_attention ? 0 : layer->attn_act_bytes * act_bytes_el * in->batch;
    double rest = in->act_bytes[l] - attn;
    act[l] = block ? rest * (sp ? 1.0 / tp : (10 + 24.0 / tp) / 34) + attn / tp : in->act_bytes[l] / tp;
    kept[l] = in->kept_bytes[l] / (sp ? tp : 1);
    hold[l] = in->hold_bytes[l] / tp;   /* the loss over vocabulary-parallel logits */
    /* what its tensor-parallel group reduces: a block's activations twice
     * a pass, the embedding's once */
    tpb[l] = block ? layer->input_bytes * act_bytes_el * in->batch : 0;
    tp_pass[l] = tp < 2 ? 0 : block ? 2 : 0;
    if (block)
      p2p_full = MAX (p2p_full, layer->input_bytes * act_bytes_el * in->batch / (sp ? tp : 1));
    largest_tp = MAX (largest_tp, tpb[l]);
    grads[l] = dp > 1 ? (double) layer->n_params / tp * gb : 0;
    largest_grad = MAX (largest_grad, grads[l]);
    params[l] = zero1 ? (double) layer->n_params / tp * pb : 0;
    largest_param = MAX (largest_param, params[l]);
    stage_params[stage[l]] += (double) layer->n_params / tp;
  }
  (void) last_block;
  /* each rank of a tensor-parallel group sends 1/tp of a micro-batch's
   * activations to the next stage: its share of the sequence with sequence
   * parallelism, else a slice, which the receivers all-gather over their
   * group (Megatron's scatter/gather, on unless
   * --no-scatter-gather-tensors-in-pipeline, Narayanan et al. 2021
   * section 4.1; DeepSpeed's pipeline engine partitions its buffers over
   * the model-parallel group alike) */
  double p2p_bytes = sp ? p2p_full : p2p_full / tp;
  /* the groups' costs, on the nodes the layout puts each kind's first
   * group on; a send between stages across nodes where any does */
  DpsLayout lay = { tp, pp, dp, c->rank_order };
  int tp_nodes, tp_per, pp_nodes, pp_per, dp_nodes, dp_per;
  gboolean p2p_across;
  dps_layout_group_span (&lay, DPS_GROUP_TP, k, &tp_nodes, &tp_per, NULL);
  dps_layout_group_span (&lay, DPS_GROUP_PP, k, &pp_nodes, &pp_per, &p2p_across);
  dps_layout_group_span (&lay, DPS_GROUP_DP, k, &dp_nodes, &dp_per, NULL);
  if ((tp > 1 && (!(p->costs[0] = dps_ddp_group_cost (c, DPS_OP_ALLREDUCE, tp_nodes, tp_per, largest_tp, error))
                  || !(p->costs[1] = dps_ddp_group_cost (c, DPS_OP_REDUCE_SCATTER, tp_nodes, tp_per, largest_tp, error))))
      || (pp > 1 && !(p->costs[2] = dps_ddp_group_cost (c, DPS_OP_ALLGATHER, p2p_across ? 2 : 1, p2p_across ? 1 : 2,
                                            2 * p2p_bytes, error)))
      || (dp > 1 && !zero1 && !(p->costs[3] = dps_ddp_group_cost (c, DPS_OP_ALLREDUCE, dp_nodes, dp_per, largest_grad, error)))
      || (zero1 && (!(p->costs[4] = dps_ddp_group_cost (c, DPS_OP_REDUCE_SCATTER, dp_nodes, dp_per, largest_grad, error))
                    || !(p->costs[5] = dps_ddp_group_cost (c, DPS_OP_ALLGATHER, dp_nodes, dp_per, largest_param, error)))))
    return FALSE;
  /* each stage's state: DDP's over its parameters (Megatron's contiguous
   * gradient buffer: no bucket copy), or ZeRO-1's (its distributed
   * optimizer) over the replicas */
  DpsStrategy dps = c->strategy == DPS_STRATEGY_ZERO1 ? DPS_STRATEGY_ZERO1 : DPS_STRATEGY_DDP;
  g_autofree double *stage_static = g_new (double, pp), *stage_opt = g_new (double, pp);
  for (int s = 0; s < pp; s++) {
    DpsMemory mem;
    dps_memory_static (stage_params[s], c->precision, c->grad_dtype, c->optimizer, TRUE, dps, dp, &mem);
    stage_static[s] = mem.total;
    stage_opt[s] = in->optimizer_s * stage_params[s] / MAX ((double) m->n_params, 1) / (dps == DPS_STRATEGY_ZERO1 ? dp : 1);
    if (s == 0) {
      p->fixed = mem;
      p->optimizer_s = stage_opt[s];
    }
  }
  double c_comm = c->contention_comm >= 0 ? c->contention_comm : c->contention;
  double c_dp = dps_ddp_group_contention (c, in->batch, dp, TRUE), c_dp_comm = c_comm >= 0 ? c_comm : c_dp;
  /* one stage runs each micro-batch's forward and backward in turn
   * (Megatron's forward_backward_no_pipelining): 1F1B without warm-up,
   * one micro-batch's activations held at a time */
  DpsPipeStep step = {
    .model = m, .pp = pp, .vpp = V, .n_micro = M, .schedule = pp > 1 ? c->pipe_schedule : DPS_PIPE_1F1B,
    .sequence_parallel = sp, .tp_comm_overlap = sp && c->tp_comm_overlap, .fwd_s = fwd, .bwd_s = bwd, .recompute_s = rec, .act_bytes = act, .kept_bytes = kept, .hold_bytes = hold,
    .stage_of_layer = stage, .chunk_of_layer = chunk, .tp_bytes = tpb, .tp_per_pass = tp_pass,
    .p2p_bytes = p2p_bytes, .p2p_full_bytes = p2p_full, .grad_bytes = grads, .param_bytes = params, .overlap_param_gather = c->overlap_param_gather,
    .no_overlap = c->no_overlap,
    .stage_static_bytes = stage_static, .stage_optimizer_s = stage_opt,
    .tp_allreduce = { "all-reduce (tensor parallel)", dps_ddp_comm_time, p->costs[0], 0, 0 },
    .tp_reducescatter = { "reduce-scatter (tensor parallel)", dps_ddp_comm_time, p->costs[1], 0, 0 },
    .tp_allgather = { "all-gather (tensor parallel)", dps_ddp_comm_time, p->costs[1], 0, 0 },
    .p2p = { "send/recv (pipeline)", p2p_time, p->costs[2], 0, 0 },
    .dp_allreduce = { "all-reduce (data parallel)", dps_ddp_comm_time, p->costs[3], c_dp, c_dp_comm },
    .dp_reducescatter = { "reduce-scatter (data parallel)", dps_ddp_comm_time, p->costs[4], c_dp, c_dp_comm },
    .dp_allgather = { "all-gather (data parallel)", dps_ddp_comm_time, p->costs[5], c_dp, c_dp_comm },
  };
  /* a comm kind without a group has no cost: its tasks never run */
  if (!p->costs[0])
    step.tp_allreduce.data = step.tp_reducescatter.data = step.tp_allgather.data = NULL;
  p->sched = dps_strategy_pipeline (&step);
  p->pipeline = TRUE;
  p->tp = tp;
  p->pp = pp;
  p->vpp = V;
  p->dp = dp;
  p->micro_batches = M;
  p->shards = dps == DPS_STRATEGY_ZERO1 ? dp : 1;
  for (int l = 0; l < L; l++)
    p->comm_bytes += (grads[l] + params[l]) / MAX (pp, 1) + M * 2.0 * tp_pass[l] * tpb[l] / pp;
  return TRUE;
}

/* The ranks of a trial of p: each replica class (the straggler draws of
 * ddp-run.c) as pp ranks, one a stage, each standing for its tensor-
 * parallel group; their groups: each rank's tensor-parallel group its own,
 * each stage's replicas one data-parallel group, and for each replica
 * each link between chunks two (activations, gradients).  *n, *groups
 * (new) and *n_groups receive them; returns the new ranks. */
DpsSchedRank *
dps_ddp_parallel_place (const DpsDdpProgram *p, const DpsSchedRank *replicas, int n_replicas, int *n,
                        DpsSchedGroup **groups, int *n_groups)
{
  int pp = p->pp, V = p->vpp, R = n_replicas * pp;
  DpsSchedRank *ranks = g_new0 (DpsSchedRank, R);
  int ng = R + pp + n_replicas * pp * V * 2;
  DpsSchedGroup *g = g_new0 (DpsSchedGroup, ng);
  /* resources: a stage's NVLink (its tensor-parallel collectives) and
   * NICs (its data-parallel all-reduces and sends) */
  for (int i = 0; i < R; i++)
    g[i] = (DpsSchedGroup) { 1, { i % pp } };
  for (int s = 0; s < pp; s++)
    g[R + s] = (DpsSchedGroup) { 1, { pp + s } };
  for (int d = 0; d < n_replicas; d++)
    for (int s = 0; s < pp; s++) {
      DpsSchedRank *r = &ranks[d * pp + s];
      *r = replicas[d];
      r->role = s;
      r->weight = replicas[d].weight * p->tp;
      r->trace = replicas[d].trace && d * pp + s < 8;
      r->groups[DPS_PIPE_TP_SLOT] = d * pp + s;
      r->groups[DPS_PIPE_DP_SLOT] = R + s;
    }
  for (int d = 0; d < n_replicas; d++)
    for (int s = 0; s < pp; s++)
      for (int c = 0; c < V; c++) {
        if (!dps_pipe_chunk_has_next (pp, V, s, c))
          continue;
        int ns = s < pp - 1 ? s + 1 : 0, nc = s < pp - 1 ? c : c + 1;
        int link = R + pp + ((d * pp + s) * V + c) * 2;
        g[link] = (DpsSchedGroup) { 2, { pp + s, pp + ns } };
        g[link + 1] = (DpsSchedGroup) { 2, { pp + s, pp + ns } };
        DpsSchedRank *r = &ranks[d * pp + s], *next = &ranks[d * pp + ns];
        r->groups[DPS_PIPE_P2P_SLOT (c, DPS_P2P_ACT_OUT)] = link;
        r->groups[DPS_PIPE_P2P_SLOT (c, DPS_P2P_GRAD_IN)] = link + 1;
        next->groups[DPS_PIPE_P2P_SLOT (nc, DPS_P2P_ACT_IN)] = link;
        next->groups[DPS_PIPE_P2P_SLOT (nc, DPS_P2P_GRAD_OUT)] = link + 1;
      }
  *n = R;
  *groups = g;
  *n_groups = ng;
  return ranks;
}
