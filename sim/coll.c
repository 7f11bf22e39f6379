/* coll.c — see coll.h for the model. */
#include "sim/coll.h"
#include "sim/tune.h"
#include "sim/base/error.h"

#include <math.h>
#include <string.h>

static const char *const op_names[] = { "allreduce", "reducescatter", "allgather", "broadcast" };
static const char *const op_words[] = { "all-reduce", "reduce-scatter", "all-gather", "broadcast" };
static const char *const proto_names[] = { "LL", "LL128", "Simple" };

const char *dps_coll_op_name (DpsCollOp op) { return op_names[op]; }
const char *dps_coll_op_words (DpsCollOp op) { return op_words[op]; }
const char *dps_algo_name (DpsAlgo a) { return dps_coll_algo (a)->name; }
const char *dps_proto_name (DpsProto p) { return proto_names[p]; }

static gboolean
parse_name (const char *s, const char *const *names, int n, int *out)
{
  for (int i = 0; s && i < n; i++) {
    if (g_ascii_strcasecmp (s, names[i]) == 0) {
      *out = i;
      return TRUE;
    }
  }
  return FALSE;
}

/* Accepts nccl-tests' names too: all_reduce, reduce_scatter, all_gather. */
gboolean
dps_coll_op_parse (const char *s, DpsCollOp *out)
{
  if (!s)
    return FALSE;
  g_autofree char *t = g_strdup (s);
  char *w = t;
  for (const char *r = s; *r; r++)
    if (*r != '_' && *r != '-')
      *w++ = *r;
  *w = 0;
  int i;
  if (!parse_name (t, op_names, DPS_OP_COUNT, &i))
    return FALSE;
  *out = (DpsCollOp) i;
  return TRUE;
}

gboolean
dps_algo_parse (const char *s, DpsAlgo *out)
{
  if (g_strcmp0 (s, "hierarchical") == 0)
    s = "hier";
  for (int i = 0; s && i < DPS_ALGO_COUNT; i++)
    if (g_ascii_strcasecmp (s, dps_coll_algo_nth (i)->name) == 0) {
      *out = dps_coll_algo_nth (i)->id;
      return TRUE;
    }
  return FALSE;
}

gboolean
dps_proto_parse (const char *s, DpsProto *out)
{
  int i;
  if (!parse_name (s, proto_names, DPS_PROTO_COUNT, &i))
    return FALSE;
  *out = (DpsProto) i;
  return TRUE;
}

/* The algorithms of algo_mask NCCL's tuner may pick for op: all of them,
 * but NVLS for all-gather and reduce-scatter when a ring is allowed too
 * (its tuner never picks NVLS for them beside a ring: coll-nvls.c). */
guint
dps_coll_choosable (DpsCollOp op, guint algo_mask)
{
  if (op != DPS_OP_ALLREDUCE && (algo_mask & (1u << DPS_ALGO_RING)))
    algo_mask &= ~(1u << DPS_ALGO_NVLS);
  return algo_mask;
}

/* nccl-tests' busbw = algbw * factor: all-reduce 2(n-1)/n, reduce-scatter
 * and all-gather (n-1)/n, broadcast 1, so that busbw compares with the
 * bandwidth of the slowest link whatever n is. */
double
dps_coll_busbw_factor (DpsCollOp op, int n)
{
  switch (op) {
  case DPS_OP_ALLREDUCE: return n > 1 ? 2.0 * (n - 1) / n : 1.0;
  case DPS_OP_REDUCE_SCATTER:
  case DPS_OP_ALLGATHER: return n > 1 ? (double) (n - 1) / n : 1.0;
  default: return 1.0;
  }
}

/* Every algorithm, once, in the order NCCL's choice tries them (NVLS and
 * the tree first: their latency is low, so a ring that cannot beat them is
 * known before its flows are built).  Adding one: its file (plan,
 * support, figures), its id in coll-types.h, its entry here; the size
 * check below fails to compile until all three agree in number, and
 * tests/test-coll.c checks each id appears once. */
static const DpsCollAlgo *const registry[] = {
  &dps_coll_nvls, &dps_coll_tree, &dps_coll_collnet, &dps_coll_pat, &dps_coll_hier, &dps_coll_ring,
};
G_STATIC_ASSERT (G_N_ELEMENTS (registry) == DPS_ALGO_COUNT);

const DpsCollAlgo *
dps_coll_algo_nth (int i)
{
  g_return_val_if_fail (i >= 0 && i < DPS_ALGO_COUNT, NULL);
  return registry[i];
}

const DpsCollAlgo *
dps_coll_algo (DpsAlgo algo)
{
  for (int i = 0; i < DPS_ALGO_COUNT; i++)
    if (registry[i]->id == algo)
      return registry[i];
  g_return_val_if_reached (NULL);
}

guint
dps_coll_nccl_algos (void)
{
  guint mask = 0;
  for (int i = 0; i < DPS_ALGO_COUNT; i++)
    if (registry[i]->nccl_default)
      mask |= 1u << registry[i]->id;
  return mask;
}

/* Sets up a context for n_gpus GPUs of topo: the first n_gpus of one node,
 * or whole nodes.  Errors: n_gpus < 1, more GPUs than the topology has, or
 * a count that spans nodes without being a multiple of the node size, each
 * starting "GPU count: ". */
gboolean
dps_coll_ctx_init (DpsCollCtx *ctx, const DpsTopo *topo, const DpsCollParams *params,
                   int n_gpus, DpsCollOp op, double bytes, GError **error)
{
  int k = dps_topo_gpus_per_node (topo);
  if (n_gpus < 1 || n_gpus > dps_topo_n_gpus (topo)) {
    dps_set_field_error (error, DPS_FIELD_GPUS, DPS_ERROR_INPUT, "%d GPUs asked for, the topology has 1 to %d",
                 n_gpus, dps_topo_n_gpus (topo));
    return FALSE;
  }
  if (n_gpus > k && n_gpus % k != 0) {
    dps_set_field_error (error, DPS_FIELD_GPUS, DPS_ERROR_INPUT,
                 "%d GPUs span nodes of %d GPUs: use a multiple of %d (or at most %d)",
                 n_gpus, k, k, k);
    return FALSE;
  }
  return dps_coll_ctx_init_nodes (ctx, topo, params, n_gpus > k ? n_gpus / k : 1, n_gpus > k ? k : n_gpus,
                                  op, bytes, error);
}

/* As dps_coll_ctx_init, for per_node GPUs (the first of each) of each of
 * the first n_nodes nodes: a run of fewer ranks a node than the node has
 * GPUs (one process a node, as network tests run).  Errors as there. */
gboolean
dps_coll_ctx_init_nodes (DpsCollCtx *ctx, const DpsTopo *topo, const DpsCollParams *params,
                         int n_nodes, int per_node, DpsCollOp op, double bytes, GError **error)
{
  int k = dps_topo_gpus_per_node (topo);
  if (n_nodes < 1 || n_nodes > dps_topo_n_nodes (topo) || per_node < 1 || per_node > k) {
    dps_set_field_error (error, DPS_FIELD_GPUS, DPS_ERROR_INPUT,
                 "%d nodes of %d GPUs asked for, the topology has 1 to %d nodes of %d", n_nodes, per_node,
                 dps_topo_n_nodes (topo), k);
    return FALSE;
  }
  *ctx = (DpsCollCtx) {
    .topo = topo, .params = params,
    .n_nodes = n_nodes,
    .ranks_per_node = per_node,
    .op = op, .bytes = bytes, .algo = DPS_ALGO_RING,
    .channels = dps_topo_spec (topo)->channels,
    .gpus_per_node = k,
  };
  /* inside one NVSwitch node NCCL's rings follow the NVLinks, not the NICs */
  int one = n_nodes == 1 && per_node > 1 ? dps_tune_nvswitch_channels (dps_topo_spec (topo)) : 0;
  if (one > 0)
    ctx->channels = one;
  return TRUE;
}

/* As dps_coll_ctx_init for ranks GPUs of topo, except that ranks filling
 * no whole nodes but split evenly over all of topo's nodes (a network
 * test's one rank a node, on more nodes than a node has GPUs) run on that
 * many GPUs of each (dps_coll_ctx_init_nodes). */
gboolean
dps_coll_ctx_init_spread (DpsCollCtx *ctx, const DpsTopo *topo, const DpsCollParams *params, int ranks,
                          DpsCollOp op, double bytes, GError **error)
{
  int m = dps_topo_n_nodes (topo), k = dps_topo_gpus_per_node (topo);
  if (m > 1 && ranks < m * k && ranks % m == 0)
    return dps_coll_ctx_init_nodes (ctx, topo, params, m, ranks / m, op, bytes, error);
  return dps_coll_ctx_init (ctx, topo, params, ranks, op, bytes, error);
}

int
dps_ctx_n_ranks (const DpsCollCtx *ctx)
{
  return ctx->n_nodes * ctx->ranks_per_node;
}


/* The order of the used local GPUs in channel's ring: the topology's ring
 * for the channel (channels take a mesh's rings in turn), restricted to
 * the GPUs in use, rotated so that channels start on different GPUs and
 * so leave the node through different NICs. */
void
dps_ctx_ring (const DpsCollCtx *ctx, int channel, int *order)
{
  const int *ring = dps_topo_ring (ctx->topo, channel);
  int k = dps_topo_gpus_per_node (ctx->topo), r = ctx->ranks_per_node, n = 0;
  int tmp[DPS_TOPO_MAX_GPUS_PER_NODE];
  for (int i = 0; i < k; i++)
    if (ring[i] < r)
      tmp[n++] = ring[i];
  int shift = (int) (((gint64) channel * r / MAX (ctx->channels, 1)) % r);
  for (int i = 0; i < r; i++)
    order[i] = tmp[(i + shift) % r];
}

int
dps_ceil_log2 (int n)
{
  int l = 0;
  while ((1 << l) < n)
    l++;
  return l;
}

/* Adds one hop flow of hop_bytes between consecutive GPUs of a ring. */
void
dps_phase_ring (DpsPhase *phase, const int *gpus, int n, double hop_bytes)
{
  if (n < 2)
    return;
  for (int i = 0; i < n; i++)
    dps_phase_add_flow (phase, gpus[i], gpus[(i + 1) % n], hop_bytes);
}

/* The parent of rank in NCCL's binary tree of n ranks (src/graph/trees.cc,
 * ncclGetBtree), -1 for the root 0: take the lowest set bit b of rank, the
 * parent is rank with b cleared and 2b set, or with b cleared alone where
 * that is out of range.  The root has one child (n/2 rounded to a power of
 * two), so from 4 ranks on the busiest node has a parent and two
 * children: 1 - 2 - 3 under 0 for n = 4, where a heap would give the root
 * two children and no node three edges. */
static int
btree_parent (int n, int rank)
{
  if (rank == 0)
    return -1;
  int bit = rank & -rank;
  int up = (rank ^ bit) | (bit << 1);
  return up < n ? up : rank ^ bit;
}

/* Adds the flows of a pipelined binary tree over gpus, NCCL's double binary
 * tree (ncclGetDtree): the first tree is NCCL's btree over the positions,
 * the second (mirror) its mirror image n-1-j where n is even and its shift
 * by one position where n is odd, which turns most leaves of one tree
 * into inner nodes of the other.  Each edge carries bytes up (reduce) and
 * down (broadcast), concurrently. */
void
dps_phase_btree (DpsPhase *phase, const int *gpus, int n, int mirror, double bytes)
{
  for (int j = 1; j < n; j++) {
    int pj = btree_parent (n, j);
    int cpos = !mirror ? j : n % 2 == 0 ? n - 1 - j : (j + 1) % n;
    int ppos = !mirror ? pj : n % 2 == 0 ? n - 1 - pj : (pj + 1) % n;
    dps_phase_add_flow (phase, gpus[cpos], gpus[ppos], bytes);
    dps_phase_add_flow (phase, gpus[ppos], gpus[cpos], bytes);
  }
}

DpsPlan *
dps_plan_new (DpsAlgo algo)
{
  DpsPlan *p = g_rc_box_new0 (DpsPlan);
  p->algo = algo;
  p->phases = g_array_new (FALSE, TRUE, sizeof (DpsPhase));
  return p;
}

DpsPlan *
dps_plan_ref (DpsPlan *plan)
{
  return g_rc_box_acquire (plan);
}

static void
plan_clear (gpointer data)
{
  DpsPlan *p = data;
  for (guint i = 0; i < p->phases->len; i++)
    g_array_free (g_array_index (p->phases, DpsPhase, i).flows, TRUE);
  g_array_free (p->phases, TRUE);
}

void
dps_plan_unref (DpsPlan *plan)
{
  if (plan)
    g_rc_box_release_full (plan, plan_clear);
}

/* Appends an empty phase (zero latency) with room for about n_flows flows
 * and lends it. */
DpsPhase *
dps_plan_add_phase_sized (DpsPlan *plan, guint n_flows)
{
  DpsPhase ph = { .flows = g_array_sized_new (FALSE, FALSE, sizeof (DpsFlowSpec), plan->latency_only ? 0 : n_flows),
                  .load_s = plan->latency_only ? 0 : -1, .wire_s = plan->latency_only ? 0 : -1,
                  .latency_only = plan->latency_only };
  g_array_append_val (plan->phases, ph);
  return &g_array_index (plan->phases, DpsPhase, plan->phases->len - 1);
}

void
dps_phase_add_flow (DpsPhase *phase, int src, int dst, double bytes)
{
  if (bytes <= 0 || src == dst || phase->latency_only)
    return;
  guint n = phase->flows->len;
  g_array_set_size (phase->flows, n + 1);
  g_array_index (phase->flows, DpsFlowSpec, n) = (DpsFlowSpec) { src, dst, bytes };
}

DpsPhase *
dps_plan_add_phase (DpsPlan *plan)
{
  return dps_plan_add_phase_sized (plan, 0);
}

static void phase_load (const DpsTopo *topo, DpsPhase *ph);

/* Holds each protocol's bandwidth to NCCL's ceiling for it
 * (dps_tune_bw_cap_Bps): where the plan's links would carry the bytes
 * faster, its payload efficiency drops so that they do not. */
static void
cap_payload (const DpsCollCtx *ctx, DpsPlan *plan)
{
  double load = -1;
  for (int p = 0; p < DPS_PROTO_COUNT; p++) {
    double cap = plan->payload[p] > 0 ? dps_tune_bw_cap_Bps (ctx, p) : 0;
    if (cap <= 0)
      continue;
    if (load < 0) {
      load = 0;
      for (guint i = 0; i < plan->phases->len; i++) {
        DpsPhase *ph = &g_array_index (plan->phases, DpsPhase, i);
        if (ph->load_s < 0)
          phase_load (ctx->topo, ph);
        load += ph->load_s;
      }
    }
    double t = load / plan->payload[p];
    if (t > 0 && ctx->bytes / t > cap)
      plan->payload[p] *= cap * t / ctx->bytes;
  }
}

/* The flows of ctx->siblings - 1 more groups beside ctx's, each on the
 * next ranks_per_node GPUs of every node (local GPU g of sibling j is
 * g + j x ranks_per_node): the bytes they move at once over the links
 * they share with ctx's (a node's NICs, a PCIe switch). */
static void
add_siblings (const DpsCollCtx *ctx, DpsPlan *plan)
{
  int k = ctx->gpus_per_node, r = ctx->ranks_per_node, n = MIN (ctx->siblings, k / MAX (r, 1));
  for (guint i = 0; i < plan->phases->len; i++) {
    DpsPhase *ph = &g_array_index (plan->phases, DpsPhase, i);
    guint own = ph->flows->len;
    for (int j = 1; j < n; j++)
      for (guint f = 0; f < own; f++) {
        DpsFlowSpec s = g_array_index (ph->flows, DpsFlowSpec, f);
        int src = s.src == DPS_SWITCH ? s.src : (s.src / k) * k + (s.src % k + j * r) % k;
        int dst = s.dst == DPS_SWITCH ? s.dst : (s.dst / k) * k + (s.dst % k + j * r) % k;
        dps_phase_add_flow (ph, src, dst, s.bytes);
      }
  }
}

/* Builds the plan of ctx->algo; FALSE with a reason when the algorithm
 * does not apply (operation, topology). */
gboolean
dps_coll_build_plan (const DpsCollCtx *ctx, DpsPlan **out, GError **error)
{
  const DpsCollAlgo *a = dps_coll_algo (ctx->algo);
  if (!a->supports (ctx, error))
    return FALSE;
  DpsPlan *plan = dps_plan_new (ctx->algo);
  plan->latency_only = ctx->latency_only;
  /* NVLS's efficiency is the switch's: its plan applies it to the flows
   * to and from the NVSwitch only (coll-nvls.c) */
  for (int p = 0; p < DPS_PROTO_COUNT; p++)
    plan->payload[p] = dps_tune_proto_ok (ctx->algo, p)
                       ? ctx->params->bw_factor[ctx->algo][p]
                         * (ctx->algo == DPS_ALGO_NVLS ? 1 : ctx->params->algo_bw_factor[ctx->algo])
                         / dps_tune_fill_factor (ctx->params, ctx->algo, p, dps_tune_fill_times (ctx, ctx->algo), ctx->bytes) : 0;
  gboolean moves = dps_ctx_n_ranks (ctx) > 1 && ctx->bytes > 0;
  if (moves) {
    a->plan (ctx, plan);
    if (ctx->siblings > 1 && !plan->latency_only)
      add_siblings (ctx, plan);
    /* a call's own cost (tune.c: with the skew of the hosts of an
     * NVLink domain it spans), once a call whatever the algorithm, outside
     * NCCL's plateau of the ring: on the first phase's latency */
    DpsPhase *first = &g_array_index (plan->phases, DpsPhase, 0);
    double call = dps_tune_call_s (ctx);
    for (int p = 0; p < DPS_PROTO_COUNT; p++)
      first->latency_s[p] += call;
  }
  /* after the algorithm's own payload (a tree's LL128 inside one node),
   * which the cached cost (coll-cost.c) reads from here */
  memcpy (plan->uncapped, plan->payload, sizeof plan->payload);
  if (moves)
    cap_payload (ctx, plan);
  *out = plan;
  return TRUE;
}

/* The links a flow crosses; NVLS ends at the switch use the GPU's switch
 * port. */
int
dps_coll_flow_route (const DpsTopo *topo, const DpsFlowSpec *f, int *links)
{
  int up, down;
  if (f->dst == DPS_SWITCH && dps_topo_nvls_links (topo, f->src, &up, &down)) {
    links[0] = up;
    return 1;
  }
  if (f->src == DPS_SWITCH && dps_topo_nvls_links (topo, f->dst, &up, &down)) {
    links[0] = down;
    return 1;
  }
  return dps_topo_route (topo, f->src, f->dst, links);
}

/* Computes a phase's analytical bottleneck: max over links of payload
 * bytes / capacity, and the longest route latency. */
static void
phase_load (const DpsTopo *topo, DpsPhase *ph)
{
  int nl = dps_topo_n_links (topo);
  double *load = g_new0 (double, MAX (nl, 1));
  double wire = 0, worst = 0;
  gboolean any_latency = FALSE;
  for (int l = 0; l < nl && !any_latency; l++)
    any_latency = dps_topo_link (topo, l)->latency_s > 0;
  int links[DPS_ROUTE_MAX];
  const DpsFlowSpec *flows = (const DpsFlowSpec *) ph->flows->data;
  for (guint i = 0; i < ph->flows->len; i++) {
    int n = dps_coll_flow_route (topo, &flows[i], links);
    for (int j = 0; j < n; j++)
      load[links[j]] += flows[i].bytes;
    if (any_latency) {
      double lat;
      dps_topo_route_latency_hops (topo, links, n, &lat);
      wire = MAX (wire, lat);
    }
  }
  for (int l = 0; l < nl; l++)
    if (load[l] > 0)
      worst = MAX (worst, load[l] / dps_topo_link (topo, l)->bw_Bps);
  g_free (load);
  ph->load_s = worst;
  ph->wire_s = wire;
}

/* The closed-form time of a plan with proto: the sum over phases of the
 * latency term, the longest wire latency and the most loaded link's drain
 * time, the bytes inflated by the protocol's payload efficiency. */
double
dps_plan_time_analytical (const DpsTopo *topo, DpsPlan *plan, DpsProto proto)
{
  g_return_val_if_fail (plan->payload[proto] > 0, G_MAXDOUBLE);
  double t = 0;
  for (guint i = 0; i < plan->phases->len; i++) {
    DpsPhase *ph = &g_array_index (plan->phases, DpsPhase, i);
    if (ph->load_s < 0)
      phase_load (topo, ph);
    t += ph->latency_s[proto] + ph->wire_s + ph->load_s / plan->payload[proto];
  }
  return t;
}

double
dps_plan_latency (const DpsPlan *plan, DpsProto proto, gboolean with_wire)
{
  double t = 0;
  for (guint i = 0; i < plan->phases->len; i++) {
    const DpsPhase *ph = &g_array_index (plan->phases, DpsPhase, i);
    t += ph->latency_s[proto] + (with_wire ? ph->wire_s : 0);
  }
  return t;
}
