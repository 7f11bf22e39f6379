/* ddp-shard.c — the program of the sharded strategies (ZeRO-2 /
 * SHARD_GRAD_OP, FSDP / FULL_SHARD, HSDP) for a configuration: its wrapped
 * units, each unit's bytes as gathered and reduced, the collective costs
 * of its groups, and its static memory; strategy-fsdp.c emits the tasks. */
#include "sim/ddp-program.h"
#include "sim/base/error.h"

#include <string.h>

/* The unit of each layer for c's wrapping (-1: the root unit); returns the
 * number of units. */
static int
assign_units (const DpsDdpConfig *c, int *unit_of_layer)
{
  const DpsModel *m = c->model;
  int L = dps_model_n_layers (m), U = 0;
  gboolean blocks = FALSE;
  for (int l = 0; l < L; l++)
    blocks |= dps_model_layer (m, l)->input_bytes > 0;
  for (int l = 0; l < L; l++) {
    gboolean own = c->fsdp_unit == DPS_FSDP_UNIT_LAYER
                   || (c->fsdp_unit == DPS_FSDP_UNIT_BLOCK && (!blocks || dps_model_layer (m, l)->input_bytes > 0));
    unit_of_layer[l] = own ? U++ : -1;
  }
  return U;
}

/* The shard group of c: HSDP's (its flag, else one node's GPUs, at most
 * all), every rank otherwise; FALSE when it does not divide the ranks. */
static gboolean
shard_group (const DpsDdpConfig *c, int *G, GError **error)
{
  int N = c->n_gpus, k = dps_topo_gpus_per_node (c->topo);
  *G = c->strategy != DPS_STRATEGY_HSDP ? N : c->shard_group > 0 ? c->shard_group : MIN (k, N);
  if (*G < 1 || *G > N || N % *G != 0) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "shard group: %d ranks do not divide the %d GPUs", *G, N);
    return FALSE;
  }
  return TRUE;
}

/* A copy of bytes between a GPU and host memory over the link of rate
 * *data (bytes/s), after a launch of 10 us (cudaMemcpyAsync's order of
 * magnitude; assumed). */
static double
host_copy_time (const void *data, double bytes, double *lat_s, DpsAlgo *algo, DpsProto *proto)
{
  (void) algo;
  (void) proto;
  *lat_s = 10e-6;
  return *lat_s + bytes / *(const double *) data;
}

gboolean
dps_ddp_offload_ready (const DpsDdpConfig *c, GError **error)
{
  const DpsTopoSpec *ts = dps_topo_spec (c->topo);
  if (c->offload == DPS_OFFLOAD_NONE || ts->host_mem_Bps > 0)
    return TRUE;
  return dps_set_field_error (error, DPS_FIELD_OFFLOAD, DPS_ERROR_INPUT, "topology '%s' states no host memory "
                              "bandwidth ([host] memory_GBps, topologies/README.md)", ts->name);
}

/* With c's offload, what leaves the GPU for host memory (p->fixed), the
 * host link, and the optimizer's time on the CPUs: the bytes it moves
 * (memory.c) at the host's memory bandwidth, shared by the host's GPUs
 * that train (all of them, or the run's fewer). */
static gboolean
offload (const DpsDdpConfig *c, int G, DpsDdpProgram *p, GError **error)
{
  const DpsTopoSpec *ts = dps_topo_spec (c->topo);
  p->offload = c->offload;
  if (c->offload == DPS_OFFLOAD_NONE)
    return TRUE;
  if (!dps_ddp_offload_ready (c, error))
    return FALSE;
  dps_memory_offload (&p->fixed, c->offload);
  p->host_link_Bps = g_new (double, 1);
  *p->host_link_Bps = ts->host_link_Bps > 0 ? ts->host_link_Bps : ts->pcie_bw_Bps;
  p->optimizer_s = dps_optimizer_bytes_moved (c->optimizer, c->precision) * (double) c->model->n_params / G
                   / (ts->host_mem_Bps / dps_topo_spec_host_gpus (ts, c->n_gpus));
  return TRUE;
}

/* The program of c's sharded strategy at in's batch; fills p. */
gboolean
dps_ddp_program_shards (const DpsDdpConfig *c, const DpsDdpInputs *in, DpsDdpProgram *p, GError **error)
{
  const DpsModel *m = c->model;
  int N = c->n_gpus, L = in->n_layers, k = dps_topo_gpus_per_node (c->topo), G;
  memset (p, 0, sizeof *p);
  if (!shard_group (c, &G, error))
    return FALSE;
  p->shards = G;
  p->hsdp = c->strategy == DPS_STRATEGY_HSDP;
  g_autofree int *unit_of_layer = g_new (int, MAX (L, 1));
  int U = assign_units (c, unit_of_layer);
  p->n_units = U;
  /* each unit's (and the root's, last) parameters: gathered in the
   * parameters' type (FP8's byte with fp8_all_gather), reduced in the
   * gradients' */
  g_autofree double *gather = g_new0 (double, U + 1), *reduce = g_new0 (double, U + 1);
  g_autofree double *shard = g_new0 (double, U + 1), *grads = g_new0 (double, U + 1);
  /* gradients computed in the parameters' type and reduced in another
   * (MixedPrecision's reduce_dtype fp32 for bf16 parameters) are copied
   * into a buffer of the reduction's type first: both are held until the
   * reduce-scatter (FSDP2's foreach_reduce copies them in with
   * foreach_reduce_scatter_copy_in; FSDP1 casts the flat gradient) */
  double pb = c->fp8_all_gather ? 1 : dps_precision_param_bytes (c->precision), gb = dps_dtype_bytes (c->grad_dtype);
  double computed = dps_precision_param_bytes (c->precision);
  double copied = computed != gb ? computed : 0;
  double largest = 0;
  for (int l = 0; l < L; l++) {
    int u = unit_of_layer[l] < 0 ? U : unit_of_layer[l];
    gather[u] += (double) dps_model_layer (m, l)->n_params * pb;
    reduce[u] += (double) dps_model_layer (m, l)->n_params * gb;
    shard[u] += (double) dps_model_layer (m, l)->n_params * computed / G;
    grads[u] += (double) dps_model_layer (m, l)->n_params * (gb + copied);
  }
  for (int u = 0; u <= U; u++) {
    largest = MAX (largest, MAX (gather[u], reduce[u]));
    p->comm_bytes += gather[u] * (c->reshard_after_forward && c->strategy != DPS_STRATEGY_ZERO2 && u < U ? 2 : 1)
                     * c->grad_accum + reduce[u] * (c->accum_no_sync ? 1 : c->grad_accum);
  }
  /* the shard group: G GPUs of a node, or whole nodes; HSDP's replicate
   * group the GPUs holding the same shard, N / G of them, spread evenly
   * over the nodes */
  int sg_nodes = G > k ? G / k : 1, sg_per = G > k ? k : G;
  if (!(p->costs[0] = dps_ddp_group_cost (c, DPS_OP_ALLGATHER, sg_nodes, sg_per, largest, error))
      || !(p->costs[1] = dps_ddp_group_cost (c, DPS_OP_REDUCE_SCATTER, sg_nodes, sg_per, largest, error)))
    return FALSE;
  int R = N / G;
  if (p->hsdp && R > 1) {
    int r_nodes = MIN (R, MAX (1, N / k)), r_per = R / r_nodes;
    if (!(p->costs[2] = dps_ddp_group_cost (c, DPS_OP_ALLREDUCE, r_nodes, r_per, largest / G, error)))
      return FALSE;
    for (int u = 0; u <= U; u++)
      p->comm_bytes += reduce[u] / G * (c->accum_no_sync ? 1 : c->grad_accum);
  }
  p->hsdp = p->hsdp && R > 1;
  dps_memory_static ((double) m->n_params, c->precision, c->grad_dtype, c->optimizer, FALSE, c->strategy, G, &p->fixed);
  p->optimizer_s = in->optimizer_s / G;
  if (!offload (c, G, p, error))
    return FALSE;
  /* under no_sync the gradient shards exist only from the last
   * micro-step's reduce-scatters on (zero_grad(set_to_none=True), PyTorch's
   * default, frees them after the optimizer): each unit's made by its own,
   * in proportion to its parameters; the rest of the step holds none */
  gboolean grads_late = dps_ddp_no_sync_acts (c);
  g_autofree double *grad_shard = NULL;
  if (grads_late) {
    double all_reduced = 0;
    for (int u = 0; u <= U; u++)
      all_reduced += reduce[u];
    grad_shard = g_new0 (double, U + 1);
    for (int u = 0; u <= U; u++)
      grad_shard[u] = all_reduced > 0 ? p->fixed.grads * reduce[u] / all_reduced : 0;
  }
  p->grads_late = grads_late;
  double c_comm = c->contention_comm >= 0 ? c->contention_comm : c->contention;
  double batch = in->batch;
  double c_shard = dps_ddp_group_contention (c, batch, G, G > k);
  double c_rep = dps_ddp_group_contention (c, batch, R, TRUE);
  /* a contention given (a profile's, a flag's) applies to every group */
  gboolean given = c->contention >= 0 && c->contention != dps_ddp_default_contention (c, batch);
  if (given)
    c_shard = c_rep = c->contention;
  DpsShardStep step = {
    .model = m, .grad_accum = c->grad_accum, .accum_no_sync = c->accum_no_sync, .unit_grad_shard_bytes = grad_shard,
    .fwd_s = in->fwd_s, .bwd_s = in->bwd_s,
    .recompute_s = in->recompute_s, .act_bytes = in->act_bytes, .kept_bytes = in->kept_bytes, .hold_bytes = in->hold_bytes,
    .optimizer_s = p->optimizer_s, .static_bytes = p->fixed.total - (grads_late ? p->fixed.grads : 0), .n_units = U, .unit_of_layer = unit_of_layer,
    .unit_gather_bytes = gather, .unit_reduce_bytes = reduce, .unit_shard_bytes = shard, .unit_grad_bytes = grads,
    .reshard_after_forward = c->reshard_after_forward && c->strategy != DPS_STRATEGY_ZERO2,
    .limit_all_gathers = c->limit_all_gathers, .backward_prefetch = c->backward_prefetch,
    .hsdp = p->hsdp, .shards = G, .offload = c->offload,
    .allgather = { p->hsdp ? "all-gather (shard group)" : "all-gather", dps_ddp_comm_time, p->costs[0], c_shard,
                   given ? c_comm : c_shard },
    .reducescatter = { p->hsdp ? "reduce-scatter (shard group)" : "reduce-scatter", dps_ddp_comm_time, p->costs[1],
                       c_shard, given ? c_comm : c_shard },
    .allreduce = { "all-reduce (replicate group)", dps_ddp_comm_time, p->costs[2], c_rep, given ? c_comm : c_rep },
    .hostlink = { "host link (offload)", host_copy_time, p->host_link_Bps, 0, 0, TRUE },
  };
  if (!p->hsdp)
    step.allreduce.time = dps_ddp_comm_time;   /* unused: no replicate group */
  p->sched = dps_strategy_fsdp (&step);
  return TRUE;
}
