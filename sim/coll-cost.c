/* coll-cost.c — see coll-cost.h. */
#include "sim/coll-cost.h"
#include "sim/base/error.h"

#define REF_BYTES (1024.0 * 1024 * 1024)

typedef struct {
  gboolean ok;
  double   lat_s[DPS_PROTO_COUNT];     /* latency terms + wire, all phases */
  double   payload[DPS_PROTO_COUNT];   /* without the fill and NCCL's ceiling */
  double   cap_Bps[DPS_PROTO_COUNT];   /* NCCL's ceiling (dps_tune_bw_cap_Bps); 0: none */
  double   eager_bytes[DPS_PROTO_COUNT];   /* dps_tune_eager_bytes; 0: none */
  double   handshake_s[DPS_PROTO_COUNT];   /* in lat_s, not paid up to eager_bytes */
  double   plateau_bytes[DPS_PROTO_COUNT]; /* dps_tune_plateau_bytes; 0: none */
  double   below_plateau_s[DPS_PROTO_COUNT];   /* in lat_s, not paid below plateau_bytes */
  double   load_per_byte_s;            /* analytical, payload 1 */
  double   flow_per_byte_s;            /* flow-level, payload 1; < 0 until first chosen (flow_plan) */
  DpsPlan *flow_plan;                  /* flow-level: the plan to time when first chosen */
  int      ref_proto;
} AlgoCost;

struct DpsCollCost {
  const DpsTopo *topo;
  DpsCollParams params;
  DpsCollOp  op;
  int        n_ranks;
  double     fill_times[DPS_ALGO_COUNT];   /* dps_tune_fill_times */
  guint      proto_mask;
  DpsNetMode mode;
  AlgoCost   algo[DPS_ALGO_COUNT];
};

/* How much longer than the links' own time NCCL's ceiling makes the
 * bandwidth term of bytes, whose links' own analytical time is link_s (as
 * dps_coll_build_plan lowers the payload of a plan of that size). */
static double
ceiling_scale (const AlgoCost *ac, int p, double bytes, double link_s)
{
  return ac->cap_Bps[p] > 0 && link_s > 0 ? MAX (1, bytes / (ac->cap_Bps[p] * link_s)) : 1;
}

/* The latency terms of ac's protocol p at a collective of bytes. */
static double
latency_at (const AlgoCost *ac, int p, double bytes)
{
  if (bytes < ac->plateau_bytes[p])
    return ac->lat_s[p] - ac->below_plateau_s[p];
  return ac->lat_s[p] - (bytes <= ac->eager_bytes[p] ? ac->handshake_s[p] : 0);
}

/* Sums into lat the latency terms of ctx's algorithm at bytes, from a plan
 * of its latency only; FALSE where it has no plan. */
static gboolean
plan_latency (const DpsCollCtx *ctx, double bytes, double *lat)
{
  DpsCollCtx c = *ctx;
  c.latency_only = TRUE;
  c.bytes = bytes;
  DpsPlan *plan = NULL;
  if (!dps_coll_build_plan (&c, &plan, NULL))
    return FALSE;
  for (int p = 0; p < DPS_PROTO_COUNT; p++)
    lat[p] = dps_plan_latency (plan, p, FALSE);
  dps_plan_unref (plan);
  return TRUE;
}

/* Where the network steps of ctx's algorithm go as eager messages up to a
 * size (dps_tune_eager_bytes), the latency they spare below it: the
 * latency terms at the reference size less those at that size. */
static void
eager_latency (const DpsCollCtx *ctx, AlgoCost *ac)
{
  double at_ref[DPS_PROTO_COUNT], at_eager[DPS_PROTO_COUNT];
  for (int p = 0; p < DPS_PROTO_COUNT; p++) {
    double eb = ac->payload[p] > 0 ? dps_tune_eager_bytes (ctx, ctx->algo, p) : 0;
    if (eb <= 0 || eb >= REF_BYTES || !plan_latency (ctx, REF_BYTES, at_ref) || !plan_latency (ctx, eb, at_eager))
      continue;
    ac->eager_bytes[p] = eb;
    ac->handshake_s[p] = MAX (0, at_ref[p] - at_eager[p]);
  }
}

/* Where NCCL's plateau effect of the ring lengthens the latency from a
 * size on (dps_tune_plateau_bytes), the latency spared below it: the
 * latency terms at the reference size less those at half that size
 * (below any eager size too: dps_tune_eager_bytes is larger). */
static void
plateau_latency (const DpsCollCtx *ctx, AlgoCost *ac)
{
  double at_ref[DPS_PROTO_COUNT], below[DPS_PROTO_COUNT];
  for (int p = 0; p < DPS_PROTO_COUNT; p++) {
    double from = ac->payload[p] > 0 ? dps_tune_plateau_bytes (ctx, ctx->algo, p) : 0;
    if (from <= 0 || from >= REF_BYTES || !plan_latency (ctx, REF_BYTES, at_ref) || !plan_latency (ctx, from / 2, below))
      continue;
    ac->plateau_bytes[p] = from;
    ac->below_plateau_s[p] = MAX (0, at_ref[p] - below[p]);
  }
}

static double
best_estimate (const DpsCollCost *c, double bytes)
{
  double best = G_MAXDOUBLE;
  for (int a = 0; a < DPS_ALGO_COUNT; a++)
    for (int p = 0; c->algo[a].ok && p < DPS_PROTO_COUNT; p++)
      if (c->algo[a].payload[p] > 0) {
        const AlgoCost *ac = &c->algo[a];
        double link_s = bytes * dps_tune_fill_factor (&c->params, a, p, c->fill_times[a], bytes) * ac->load_per_byte_s / ac->payload[p];
        best = MIN (best, latency_at (ac, p, bytes) + link_s * ceiling_scale (ac, p, bytes, link_s));
      }
  return best;
}

/* Prepares the costs of op over n_gpus GPUs of topo for the algorithms and
 * protocols allowed.  channels 0: the topology's.  max_bytes > 0: no size
 * above it will be asked about (algorithms that cannot win up to it are
 * skipped).  Fails when no allowed algorithm applies. */
DpsCollCost *
dps_coll_cost_new (const DpsTopo *topo, const DpsCollParams *params, int n_gpus, DpsCollOp op,
                   guint algo_mask, guint proto_mask, int channels, DpsNetMode mode, double max_bytes,
                   GError **error)
{
  DpsCollCtx ctx;
  if (!dps_coll_ctx_init (&ctx, topo, params, n_gpus, op, REF_BYTES, error))
    return NULL;
  if (channels > 0)
    ctx.channels = channels;
  return dps_coll_cost_new_ctx (&ctx, algo_mask, proto_mask, mode, max_bytes, error);
}

/* As dps_coll_cost_new, for the GPUs, operation and channels of ctx (its
 * size and algorithm aside): a group of some GPUs of each node
 * (dps_coll_ctx_init_nodes). */
DpsCollCost *
dps_coll_cost_new_ctx (const DpsCollCtx *ctx_in, guint algo_mask, guint proto_mask, DpsNetMode mode,
                       double max_bytes, GError **error)
{
  DpsCollCtx ctx = *ctx_in;
  ctx.bytes = REF_BYTES;
  ctx.latency_only = FALSE;
  const DpsTopo *topo = ctx.topo;
  const DpsCollParams *params = ctx.params;
  DpsCollOp op = ctx.op;
  int n_gpus = dps_ctx_n_ranks (&ctx);
  algo_mask = dps_coll_choosable (op, algo_mask);
  DpsCollCost *c = g_new0 (DpsCollCost, 1);
  c->params = *params;
  c->op = op;
  c->topo = topo;
  c->n_ranks = n_gpus;
  for (int a = 0; a < DPS_ALGO_COUNT; a++)
    c->fill_times[a] = dps_tune_fill_times (&ctx, (DpsAlgo) a);
  c->proto_mask = proto_mask;
  c->mode = mode;
  g_autoptr (GError) why = NULL;
  gboolean any = FALSE;
  for (int oi = 0; oi < DPS_ALGO_COUNT; oi++) {   /* NCCL's order: low latency first */
    int a = dps_coll_algo_nth (oi)->id;
    if (!(algo_mask & (1u << a)))
      continue;
    ctx.algo = (DpsAlgo) a;
    DpsPlan *plan = NULL;
    g_clear_error (&why);
    if (any && max_bytes > 0) {
      DpsCollCtx lat_ctx = ctx;
      lat_ctx.latency_only = TRUE;
      lat_ctx.bytes = 1;   /* the least latency: no step above an eager size */
      if (!dps_coll_build_plan (&lat_ctx, &plan, NULL))
        continue;
      double least = G_MAXDOUBLE;
      for (int p = 0; p < DPS_PROTO_COUNT; p++) {
        if ((proto_mask & (1u << p)) && plan->payload[p] > 0)
          least = MIN (least, dps_plan_latency (plan, p, FALSE));
      }
      dps_plan_unref (plan);
      plan = NULL;
      if (least > best_estimate (c, max_bytes))
        continue;   /* slower than another algorithm at every size up to max_bytes */
    }
    if (!dps_coll_build_plan (&ctx, &plan, &why))
      continue;
    AlgoCost *ac = &c->algo[a];
    int ref_proto = -1;
    for (int p = 0; p < DPS_PROTO_COUNT; p++) {
      /* the payload without the fill at the reference size: the fill is
       * applied at each size asked about */
      ac->payload[p] = (proto_mask & (1u << p)) ? plan->uncapped[p] * dps_tune_fill_factor (params, a, p, c->fill_times[a], REF_BYTES) : 0;
      ac->cap_Bps[p] = ac->payload[p] > 0 ? dps_tune_bw_cap_Bps (&ctx, p) : 0;
      if (ac->payload[p] > 0)
        ref_proto = p;
    }
    if (ref_proto < 0) {
      dps_plan_unref (plan);
      continue;
    }
    dps_plan_time_analytical (topo, plan, ref_proto);   /* fills loads */
    for (int p = 0; p < DPS_PROTO_COUNT; p++)
      ac->lat_s[p] += dps_plan_latency (plan, p, TRUE);
    for (guint i = 0; i < plan->phases->len; i++)
      ac->load_per_byte_s += g_array_index (plan->phases, DpsPhase, i).load_s / REF_BYTES;
    eager_latency (&ctx, ac);
    plateau_latency (&ctx, ac);
    ac->ok = TRUE;
    any = TRUE;
    if (mode == DPS_MODE_FLOW) {
      /* timed on the flow-level network the first time it is chosen
       * (flow_per_byte): an algorithm no size asked for wins is never run */
      ac->flow_plan = plan;
      ac->ref_proto = ref_proto;
      ac->flow_per_byte_s = -1;
    } else
      dps_plan_unref (plan);
  }
  if (!any) {
    if (why)
      g_propagate_error (error, g_steal_pointer (&why));
    else
      g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "no allowed algorithm and protocol apply");
    g_free (c);
    return NULL;
  }
  return c;
}

void
dps_coll_cost_free (DpsCollCost *c)
{
  if (!c)
    return;
  for (int a = 0; a < DPS_ALGO_COUNT; a++)
    if (c->algo[a].flow_plan)
      dps_plan_unref (c->algo[a].flow_plan);
  g_free (c);
}

/* An algorithm's flow-level time per byte (payload 1, without the fill):
 * its plan run once on the empty network at the reference size, the first
 * time it is asked for. */
static double
flow_per_byte (const DpsCollCost *c, int a)
{
  AlgoCost *ac = (AlgoCost *) &c->algo[a];   /* filled in once, on demand */
  if (ac->flow_per_byte_s < 0) {
    int p = ac->ref_proto;
    double t = dps_plan_time_flow (c->topo, ac->flow_plan, p);
    /* the plan ran with its payload at the reference size, the ceiling's
     * included */
    ac->flow_per_byte_s = MAX (0, t - ac->lat_s[p]) * ac->flow_plan->payload[p] / REF_BYTES;
    dps_plan_unref (ac->flow_plan);
    ac->flow_plan = NULL;
  }
  return ac->flow_per_byte_s;
}

static double uncorrected_time (const DpsCollCost *c, double bytes, double *lat_s, DpsAlgo *algo, DpsProto *proto);

static double
model_time (double bytes, void *data)
{
  return uncorrected_time (data, bytes, NULL, NULL, NULL);
}

/* Time of one collective of bytes (0 for one rank or no bytes); algo and
 * proto (may be NULL) receive NCCL's choice.  A calibration's correction
 * table applies (tune.h). */
double
dps_coll_cost_time (const DpsCollCost *c, double bytes, DpsAlgo *algo, DpsProto *proto)
{
  return dps_coll_cost_time_lat (c, bytes, NULL, algo, proto);
}

/* As dps_coll_cost_time, and *lat_s (may be NULL) receives the part of it
 * that is latency (the rest is its bytes at its bandwidth; a calibration's
 * correction scales both alike). */
double
dps_coll_cost_time_lat (const DpsCollCost *c, double bytes, double *lat_s, DpsAlgo *algo, DpsProto *proto)
{
  double lat = 0;
  double t = uncorrected_time (c, bytes, &lat, algo, proto);
  if (dps_tune_corr (&c->params, c->op) && t > 0) {
    double corrected = dps_tune_calibrated (&c->params, c->op, bytes, model_time, (void *) c);
    lat *= corrected / t;
    t = corrected;
  }
  if (lat_s)
    *lat_s = lat;
  return t;
}

static double
uncorrected_time (const DpsCollCost *c, double bytes, double *lat_s, DpsAlgo *algo, DpsProto *proto)
{
  double best = G_MAXDOUBLE, chosen = 0, chosen_lat = 0;
  int ba = -1, bp = DPS_PROTO_SIMPLE;
  for (int a = 0; a < DPS_ALGO_COUNT; a++) {
    const AlgoCost *ac = &c->algo[a];
    if (!ac->ok)
      continue;
    for (int p = 0; p < DPS_PROTO_COUNT; p++) {
      if (!dps_tune_may_run (&c->params, ac->payload[p], p, bytes))
        continue;
      double fill = dps_tune_fill_factor (&c->params, a, p, c->fill_times[a], bytes);
      double link_s = bytes * fill * ac->load_per_byte_s / ac->payload[p];
      double scale = ceiling_scale (ac, p, bytes, link_s);
      double lat = latency_at (ac, p, bytes);
      double est = lat + link_s * scale;
      if (dps_tune_beats (est, a, best, ba)) {
        best = est;
        ba = a;
        bp = p;
        chosen = bytes * fill / ac->payload[p] * scale;   /* x the per-byte time, below */
        chosen_lat = lat;
      }
    }
  }
  if (ba < 0)
    ba = DPS_ALGO_RING;   /* none may run: the ring, timed 0 */
  if (algo)
    *algo = (DpsAlgo) ba;
  if (proto)
    *proto = (DpsProto) bp;
  if (lat_s)
    *lat_s = c->n_ranks < 2 || bytes <= 0 ? 0 : chosen_lat;
  if (c->n_ranks < 2 || bytes <= 0 || best == G_MAXDOUBLE)
    return 0;
  double per_byte = c->mode == DPS_MODE_FLOW ? flow_per_byte (c, ba) : c->algo[ba].load_per_byte_s;
  return chosen_lat + chosen * per_byte;
}
