/* strategy-fsdp.c — sharded data parallelism's step as a schedule
 * (strategy.h): PyTorch FSDP's FULL_SHARD and SHARD_GRAD_OP (ZeRO-3 and
 * ZeRO-2), and HYBRID_SHARD (HSDP).
 *
 * One role, "rank", with a compute stream and the shard group's
 * communication stream (one NCCL communicator: its all-gathers and
 * reduce-scatters run one after another, in the order they are issued);
 * HSDP adds the replicate group's stream.  The model is cut into wrapped
 * units (a transformer block each by default); the layers outside every
 * unit belong to the root unit, gathered at the start of each micro-step
 * and kept until its backward ends (FSDP does not reshard the root after
 * forward).  For each micro-step:
 *   - forward: unit u's all-gather, then its layers' forward, which wait
 *     for it; with the rate limiter (limit_all_gathers) the gather of u
 *     waits until unit u - limit has run its forward and freed its
 *     parameters, and is issued then: as forward_prefetch=True issues it,
 *     and as a CPU thread that runs ahead of the GPU does without it (a
 *     CPU-bound step, which would issue it late, is not modelled);
 *     resharded after forward, the gathered parameters are freed when the
 *     unit's forward ends;
 *   - backward, units in reverse: resharded units are gathered again
 *     before their backward; with backward prefetch BACKWARD_PRE the
 *     gather of the next unit is issued before the current unit's
 *     gradients are reduced (on the one stream it runs first), with POST
 *     or none after; each unit's gradients, held unsharded from its first
 *     backward task, are reduce-scattered when its last backward task
 *     ends (their copy in the reduction's type, where it differs, made as
 *     the reduce-scatter starts: FSDP2's foreach_reduce copy-in) and freed
 *     when that ends; HSDP then all-reduces the shard
 *     across the replicas, on the replicate group's stream.  Under
 *     no_sync (accum_no_sync) only the last micro-step reduces: the ones
 *     before add each unit's gradients into unsharded ones held in the
 *     reduction's type, which the first makes (FSDP2 upcasts them to
 *     reduce_dtype: FSDPParam.to_accumulated_grad_if_needed) and the last
 *     one's reduce-scatter frees.
 * The optimizer updates this rank's shard after the last reduction.
 * With CPU offload two more streams, the rank's link to host memory one
 * way each (full duplex; one copy at a time each, as a CUDA stream's):
 * each unit's gradient shard goes to the host after its reduction, the
 * optimizer (the CPUs') waits for the last, and the updated parameter
 * shard comes back after it; with the parameters offloaded, each unit's
 * shard instead comes to the GPU before each of its all-gathers, which
 * wait for it. */
#include "sim/strategy.h"

/* Adds a compute task; returns its id. */
static int
compute (DpsSched *s, int stream, const char *label, DpsPart part, double work_s, guint flags, const int *deps,
         int n_deps)
{
  DpsTaskSpec t = { .label = label, .part = part, .work_s = work_s, .comm = -1, .flags = flags,
                    .deps = deps, .n_deps = n_deps };
  return dps_sched_task_add (s, stream, &t);
}

/* Adds a collective of bytes on stream; returns its id. */
static int
collective (DpsSched *s, int stream, int comm, const char *label, double bytes, double alloc, double free,
            const int *deps, int n_deps)
{
  int d[4], n = 0;
  for (int i = 0; i < n_deps; i++)
    if (deps[i] >= 0)
      d[n++] = deps[i];
  DpsTaskSpec t = { .label = label, .comm = comm, .bytes = bytes, .alloc_bytes = alloc, .free_bytes = free,
                    .alloc_kind = DPS_MEM_BUFFERS, .free_kind = DPS_MEM_BUFFERS, .deps = d, .n_deps = n };
  return dps_sched_task_add (s, stream, &t);
}

/* The memory unit u's unsharded gradients take until reduced. */
static double
grad_mem (const DpsShardStep *in, int u)
{
  return in->unit_grad_bytes ? in->unit_grad_bytes[u] : in->unit_reduce_bytes[u];
}

/* ... of which the gradients as computed (the rest: the reduction's copy
 * of them, where its type differs). */
static double
grad_computed (const DpsShardStep *in, int u)
{
  double all = grad_mem (in, u), reduced = in->unit_reduce_bytes[u];
  return all > reduced ? all - reduced : all;
}

/* The streams and comm kinds a unit's gathers and reductions use. */
typedef struct {
  DpsSched *s;
  const DpsShardStep *in;
  int ss, ag, rsc;   /* the shard group's stream, all-gather and reduce-scatter */
  int rs, ar;        /* HSDP's replicate group's stream and all-reduce (-1: none) */
  int up, down, hc;  /* the host link's streams to the GPU and to the host, its copy (-1: no offload) */
} Streams;

/* Unit u's all-gather (label) after deps (any may be -1), the unit's
 * gathered parameters allocated as it starts; with the parameters
 * offloaded, after its shard's copy to the GPU, which the gather frees
 * when it ends.  Returns its id. */
static int
gather_unit (const Streams *g, const char *label, int u, const int *deps, int n_deps)
{
  const DpsShardStep *in = g->in;
  int copy = -1;
  double shard = in->offload == DPS_OFFLOAD_PARAMS ? in->unit_shard_bytes[u] : 0;
  if (shard > 0) {
    char l[192];
    g_snprintf (l, sizeof l, "to GPU: %s", label);
    copy = collective (g->s, g->up, g->hc, l, shard, shard, 0, deps, n_deps);
    deps = &copy;
    n_deps = 1;
  }
  return collective (g->s, g->ss, g->ag, label, in->unit_gather_bytes[u], in->unit_gather_bytes[u], shard, deps,
                     n_deps);
}

/* Unit u's (named what: "unit 3", "root") reduction after dep: its
 * reduce-scatter, which makes the gradients' copy in the reduction's type
 * (where it differs) and, where the shards come late
 * (unit_grad_shard_bytes), the unit's gradient shard as it starts, and
 * frees the unsharded gradients (and those accumulated, accum bytes) and
 * the unit's parameters (the gathered copy, resharded, or the forward's)
 * as it ends; for HSDP
 * the shard's all-reduce across the replicas; offloaded, the gradient
 * shard (held from the reduce-scatter) copied to the host. */
static void
reduce_unit (const Streams *g, const char *what, const char *micro, int u, int dep, double accum)
{
  const DpsShardStep *in = g->in;
  char label[192];
  double down = g->down >= 0 ? in->unit_reduce_bytes[u] / in->shards : 0;
  double shard = in->unit_grad_shard_bytes ? in->unit_grad_shard_bytes[u] : 0;
  double copy = grad_mem (in, u) - grad_computed (in, u);   /* the reduction's copy, made as it starts */
  g_snprintf (label, sizeof label, "reduce-scatter %s%s", what, micro);
  int r = collective (g->s, g->ss, g->rsc, label, in->unit_reduce_bytes[u], down + shard + copy,
                      grad_mem (in, u) + in->unit_gather_bytes[u] + accum, &dep, 1);
  if (in->hsdp) {
    g_snprintf (label, sizeof label, "all-reduce %s shard%s", what, micro);
    r = collective (g->s, g->rs, g->ar, label, in->unit_reduce_bytes[u] / in->shards, 0, 0, &r, 1);
  }
  if (g->down >= 0) {
    g_snprintf (label, sizeof label, "to host: gradients %s%s", what, micro);
    collective (g->s, g->down, g->hc, label, down, 0, down, &r, 1);
  }
}

/* The schedule of in (a new program; free with dps_sched_free). */
DpsSched *
dps_strategy_fsdp (const DpsShardStep *in)
{
  const DpsModel *m = in->model;
  int L = dps_model_n_layers (m), U = in->n_units, K = MAX (1, in->grad_accum);
  DpsSched *s = dps_sched_new ();
  int role = dps_sched_role_add (s, "rank", in->static_bytes);
  int cs = dps_sched_stream_add (s, role, "compute", DPS_SCHED_NO_STREAM);
  int ss = dps_sched_stream_add (s, role, in->hsdp ? "shard group" : "data parallel", DPS_SHARD_GROUP_SLOT);
  int rs = in->hsdp ? dps_sched_stream_add (s, role, "replicate group", DPS_REPLICATE_GROUP_SLOT) : -1;
  int ag = dps_sched_comm_add (s, &in->allgather);
  int rsc = dps_sched_comm_add (s, &in->reducescatter);
  int ar = in->hsdp ? dps_sched_comm_add (s, &in->allreduce) : -1;
  gboolean off = in->offload != DPS_OFFLOAD_NONE;
  /* the host link, a stream each way (PCIe is full duplex) */
  int up = off ? dps_sched_stream_add (s, role, "to GPU", DPS_HOST_LINK_SLOT) : -1;
  int hs = off ? dps_sched_stream_add (s, role, "to host", DPS_HOST_LINK_SLOT + 1) : -1;
  int hc = off ? dps_sched_comm_add (s, &in->hostlink) : -1;
  Streams g = { s, in, ss, ag, rsc, rs, ar, up, hs, hc };
  /* each unit's first and last layer (the root, unit U: -1 when empty) */
  int *first = g_new (int, U + 1), *last = g_new (int, U + 1);
  for (int u = 0; u <= U; u++)
    first[u] = last[u] = -1;
  for (int l = 0; l < L; l++) {
    int u = in->unit_of_layer[l] < 0 ? U : in->unit_of_layer[l];
    if (first[u] < 0)
      first[u] = l;
    last[u] = l;
  }
  int *fwd_end = g_new (int, U + 1), *bwd_end = g_new (int, U + 1), *gather = g_new (int, U + 1);
  int *fwd_task = g_new (int, MAX (L, 1)), *bwd_task = g_new (int, MAX (L, 1));
  gboolean reshard = in->reshard_after_forward;
  int limit = in->limit_all_gathers;
  char label[160];
  gboolean accum_held = in->accum_no_sync && K > 1;   /* the unsharded gradients kept between micro-steps */
  for (int k = 0; k < K; k++) {
    g_autofree char *micro = K > 1 ? g_strdup_printf (" (micro-step %d)", k + 1) : g_strdup ("");
    /* under no_sync only the last micro-step reduces; the ones before add
     * their gradients (as computed) into each unit's accumulated ones, in
     * the reduction's type, which the first makes and the last's
     * reduce-scatter frees */
    gboolean sync = !in->accum_no_sync || k == K - 1;
    for (int u = 0; u <= U; u++)
      gather[u] = fwd_end[u] = bwd_end[u] = -1;
    /* forward: the root's gather first, then the units' as the rate
     * limiter lets them go (unit u + limit once unit u's forward ends) */
    if (first[U] >= 0) {
      g_snprintf (label, sizeof label, "all-gather root%s", micro);
      gather[U] = gather_unit (&g, label, U, NULL, 0);
    }
    for (int u = 0; u < U && (limit <= 0 || u < limit); u++) {
      g_snprintf (label, sizeof label, "all-gather unit %d%s", u, micro);
      gather[u] = gather_unit (&g, label, u, NULL, 0);
    }
    for (int l = 0; l < L; l++) {
      int u = in->unit_of_layer[l] < 0 ? U : in->unit_of_layer[l];
      double saved = in->recompute_s[l] > 0 ? in->kept_bytes[l] : in->act_bytes[l];
      /* a resharded unit frees its gathered parameters when its last
       * layer's forward ends */
      double freed = u < U && reshard && l == last[u] ? in->unit_gather_bytes[u] : 0;
      g_snprintf (label, sizeof label, "fwd %s%s", dps_model_layer (m, l)->name, micro);
      int dep = l == first[u] ? gather[u] : -1;
      DpsTaskSpec t = { .label = label, .part = DPS_PART_FORWARD, .work_s = in->fwd_s[l], .comm = -1,
                        .flags = DPS_TASK_JITTER, .alloc_bytes = saved, .free_bytes = freed,
                        .alloc_kind = DPS_MEM_ACTIVATIONS, .free_kind = DPS_MEM_BUFFERS, .deps = &dep,
                        .n_deps = dep >= 0 };
      fwd_task[l] = dps_sched_task_add (s, cs, &t);
      if (l == last[u] && u < U) {
        fwd_end[u] = fwd_task[l];
        if (limit > 0 && u + limit < U) {
          g_snprintf (label, sizeof label, "all-gather unit %d%s", u + limit, micro);
          gather[u + limit] = gather_unit (&g, label, u + limit, &fwd_end[u], 1);
        }
      }
    }
    /* backward, units in reverse: resharded units gathered again (the
     * next one issued before the current unit's backward with
     * BACKWARD_PRE, after it with POST, when its own backward is about to
     * start without prefetch), each unit's gradients reduce-scattered
     * when its backward ends */
    int next = reshard ? U - 1 : -1;   /* the next unit to gather again */
    if (next >= 0) {
      g_snprintf (label, sizeof label, "all-gather unit %d (backward)%s", next, micro);
      gather[next] = gather_unit (&g, label, next, NULL, 0);
      next--;
    }
    for (int l = L - 1; l >= 0; l--) {
      int u = in->unit_of_layer[l] < 0 ? U : in->unit_of_layer[l];
      const char *name = dps_model_layer (m, l)->name;
      gboolean unit_start = l == last[u], unit_done = l == first[u];
      if (unit_start && u < U && next == u - 1 && next >= 0 && in->backward_prefetch == DPS_PREFETCH_PRE) {
        /* issued before this unit computes, held back by the limiter
         * until unit next + limit's backward ended */
        int dep = limit > 0 && next + limit < U ? bwd_end[next + limit] : -1;
        g_snprintf (label, sizeof label, "all-gather unit %d (backward)%s", next, micro);
        gather[next] = gather_unit (&g, label, next, &dep, 1);
        next--;
      }
      int need = unit_start && u < U && reshard ? gather[u] : -1;
      double freed = in->act_bytes[l];
      if (in->recompute_s[l] > 0) {
        g_snprintf (label, sizeof label, "recompute %s%s", name, micro);
        DpsTaskSpec t = { .label = label, .part = DPS_PART_RECOMPUTE, .work_s = in->recompute_s[l], .comm = -1,
                          .flags = DPS_TASK_JITTER, .alloc_bytes = in->act_bytes[l],
                          .alloc_kind = DPS_MEM_ACTIVATIONS, .deps = &need, .n_deps = need >= 0 };
        dps_sched_task_add (s, cs, &t);
        freed += in->kept_bytes[l];
        need = -1;
      }
      /* the unit's gradients as computed, held unsharded from its first
       * backward task until reduce-scattered */
      g_snprintf (label, sizeof label, "bwd %s%s", name, micro);
      DpsTaskSpec t = { .label = label, .part = DPS_PART_BACKWARD, .work_s = in->bwd_s[l], .comm = -1,
                        .flags = DPS_TASK_JITTER, .alloc_bytes = unit_start ? grad_computed (in, u) : 0,
                        .free_bytes = freed, .hold_bytes = in->hold_bytes ? in->hold_bytes[l] : 0,
                        .alloc_kind = DPS_MEM_BUFFERS, .free_kind = DPS_MEM_ACTIVATIONS,
                        .deps = &need, .n_deps = need >= 0 };
      bwd_task[l] = dps_sched_task_add (s, cs, &t);
      if (unit_done && !sync) {
        /* added into the accumulated gradients (made by the first); the
         * unit's parameters freed, as its reduce-scatter would */
        if (u < U)
          g_snprintf (label, sizeof label, "accumulate gradients unit %d%s", u, micro);
        else
          g_snprintf (label, sizeof label, "accumulate gradients root%s", micro);
        DpsTaskSpec a = { .label = label, .part = DPS_PART_BACKWARD, .comm = -1, .flags = DPS_TASK_FIXED,
                          .alloc_bytes = k == 0 ? in->unit_reduce_bytes[u] : 0,
                          .free_bytes = grad_computed (in, u) + in->unit_gather_bytes[u],
                          .alloc_kind = DPS_MEM_BUFFERS, .free_kind = DPS_MEM_BUFFERS };
        bwd_task[l] = dps_sched_task_add (s, cs, &a);
      }
      if (!unit_done || u == U)
        continue;   /* the root's gradients are reduced after all of backward */
      bwd_end[u] = bwd_task[l];
      if (next == u - 1 && next >= 0 && in->backward_prefetch == DPS_PREFETCH_POST) {
        g_snprintf (label, sizeof label, "all-gather unit %d (backward)%s", next, micro);
        gather[next] = gather_unit (&g, label, next, &bwd_end[u], 1);
        next--;
      }
      char what[32];
      g_snprintf (what, sizeof what, "unit %d", u);
      if (sync)
        reduce_unit (&g, what, micro, u, bwd_end[u], accum_held ? in->unit_reduce_bytes[u] : 0);
      if (next == u - 1 && next >= 0 && in->backward_prefetch == DPS_PREFETCH_NONE) {
        g_snprintf (label, sizeof label, "all-gather unit %d (backward)%s", next, micro);
        gather[next] = gather_unit (&g, label, next, &bwd_end[u], 1);
        next--;
      }
    }
    if (first[U] >= 0 && sync)
      reduce_unit (&g, "root", micro, U, bwd_task[first[U]], accum_held ? in->unit_reduce_bytes[U] : 0);
  }
  /* the last reduction of each stream (and copy to the host) ends after
   * every other on it */
  int deps[3], n = 0;
  if ((deps[n] = dps_sched_stream_last (s, ss)) >= 0)
    n++;
  if (rs >= 0 && (deps[n] = dps_sched_stream_last (s, rs)) >= 0)
    n++;
  if (hs >= 0 && (deps[n] = dps_sched_stream_last (s, hs)) >= 0)
    n++;
  /* the CPUs' optimizer is not the GPU's: no GPU's speed or jitter */
  int opt = compute (s, cs, off ? "optimizer (shard, on the CPUs)" : "optimizer (shard)", DPS_PART_OPTIMIZER,
                     in->optimizer_s, off ? DPS_TASK_FIXED : DPS_TASK_JITTER, deps, n);
  if (in->offload == DPS_OFFLOAD_OPTIMIZER) {
    double shard = 0;
    for (int u = 0; u <= U; u++)
      shard += in->unit_shard_bytes[u];
    int back = collective (s, up, hc, "to GPU: updated parameter shard", shard, 0, 0, &opt, 1);
    /* the step ends when the shard is back: the compute waits for it */
    compute (s, cs, "updated shard on the GPU", DPS_PART_OPTIMIZER, 0, DPS_TASK_FIXED, &back, 1);
  }
  g_free (first);
  g_free (last);
  g_free (fwd_end);
  g_free (bwd_end);
  g_free (gather);
  g_free (fwd_task);
  g_free (bwd_task);
  return s;
}
