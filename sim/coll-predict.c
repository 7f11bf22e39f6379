/* coll-predict.c — see coll-predict.h. */
#include "sim/coll-predict.h"
#include "sim/base/error.h"

typedef struct { const DpsCollCtx *ctx; guint algo_mask, proto_mask; } ChooseArgs;

/* The uncorrected least time at another size, with the same choices. */
static double
choose_time (double bytes, void *data)
{
  const ChooseArgs *a = data;
  DpsCollCtx c = *a->ctx;
  DpsCollParams uncorrected = *c.params;
  dps_tune_uncorrect (&uncorrected);
  c.params = &uncorrected;
  c.bytes = bytes;
  DpsCollChoice ch;
  if (!dps_coll_choose (&c, a->algo_mask, a->proto_mask, &ch, NULL))
    return 0;
  dps_plan_unref (ch.plan);
  return ch.time_s;
}

/* The least latency terms of ctx's algorithm over the protocols allowed
 * at its size (a plan of its latency alone: no flows built), or
 * G_MAXDOUBLE where it has no plan or no protocol applies. */
static double
least_latency (const DpsCollCtx *ctx, guint proto_mask)
{
  DpsCollCtx c = *ctx;
  c.latency_only = TRUE;
  DpsPlan *plan = NULL;
  if (!dps_coll_build_plan (&c, &plan, NULL))
    return G_MAXDOUBLE;
  double least = G_MAXDOUBLE;
  for (int p = 0; p < DPS_PROTO_COUNT; p++)
    if ((proto_mask & (1u << p)) && dps_tune_may_run (ctx->params, plan->payload[p], p, ctx->bytes))
      least = MIN (least, dps_plan_latency (plan, p, FALSE));
  dps_plan_unref (plan);
  return least;
}

/* Picks, among the algorithms in algo_mask and protocols in proto_mask that
 * apply, the pair with the least analytical time, as NCCL does.  Ties go to
 * the lower index (tree before ring; LL before LL128 before Simple).  On
 * success out->plan holds the chosen plan.  The algorithms of low latency
 * go first, and one whose latency alone exceeds the best time so far is
 * not built (a flat ring over thousands of GPUs): the choice is the same. */
gboolean
dps_coll_choose (const DpsCollCtx *ctx, guint algo_mask, guint proto_mask,
                 DpsCollChoice *out, GError **error)
{
  g_autoptr (GError) why = NULL;
  DpsCollChoice best = { .time_s = G_MAXDOUBLE };
  algo_mask = dps_coll_choosable (ctx->op, algo_mask);
  for (int oi = 0; oi < DPS_ALGO_COUNT; oi++) {
    int a = dps_coll_algo_nth (oi)->id;
    if (!(algo_mask & (1u << a)))
      continue;
    DpsCollCtx c = *ctx;
    c.algo = (DpsAlgo) a;
    if (best.plan && ctx->bytes > 0 && least_latency (&c, proto_mask) > best.time_s)
      continue;   /* slower whatever its bandwidth */
    DpsPlan *plan = NULL;
    g_clear_error (&why);
    if (!dps_coll_build_plan (&c, &plan, &why))
      continue;
    gboolean used = FALSE;
    for (int p = 0; p < DPS_PROTO_COUNT; p++) {
      if (!(proto_mask & (1u << p)) || !dps_tune_may_run (ctx->params, plan->payload[p], p, ctx->bytes))
        continue;
      double t = dps_plan_time_analytical (ctx->topo, plan, p);
      if (dps_tune_beats (t, a, best.time_s, best.plan ? (int) best.algo : -1)) {
        if (best.plan && best.plan != plan)
          dps_plan_unref (best.plan);
        best = (DpsCollChoice) { (DpsAlgo) a, (DpsProto) p, t, plan };
        used = TRUE;
      }
    }
    if (!used) {
      g_clear_error (&why);
      g_set_error (&why, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "%s runs none of the protocols asked for",
                   dps_algo_name (c.algo));
      dps_plan_unref (plan);
    }
  }
  if (!best.plan) {
    if (why)
      g_propagate_error (error, g_steal_pointer (&why));
    else
      g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "no algorithm was allowed");
    return FALSE;
  }
  *out = best;
  if (dps_tune_corr (ctx->params, ctx->op)) {
    /* calibrated: the time between measured sizes, as the profile says */
    ChooseArgs a = { ctx, algo_mask, proto_mask };
    double raw = choose_time (ctx->bytes, &a);
    if (raw > 0)
      out->time_s *= dps_tune_calibrated (ctx->params, ctx->op, ctx->bytes, choose_time, &a) / raw;
  }
  return TRUE;
}

/* The time of one collective as NCCL would run it: the choice of
 * dps_coll_choose, timed in mode (flow-level: its plan on an empty network,
 * scaled as a calibration's correction scales the estimate).  out->plan is
 * released; out->time_s is the time in that mode. */
gboolean
dps_coll_predict (const DpsCollCtx *ctx, guint algo_mask, guint proto_mask, DpsNetMode mode,
                  DpsCollChoice *out, GError **error)
{
  return dps_coll_predict_cached (ctx, algo_mask, proto_mask, mode, NULL, out, error);
}

/* As dps_coll_predict; cache (may be NULL; zeroed before its first use,
 * then kept for one group: topology, GPUs, operation and channels) holds
 * for each algorithm the flow-level time of its plan's bytes over their
 * analytical time.  A plan's flows all scale with its size (a protocol's
 * payload inflates them all alike), so the max-min rates and that ratio
 * are the same at every size: one flow run times an algorithm at all of
 * them (a 32768-GPU sweep of 28 sizes runs each chosen one once, not 28
 * times). */
gboolean
dps_coll_predict_cached (const DpsCollCtx *ctx, guint algo_mask, guint proto_mask, DpsNetMode mode,
                         DpsCollFlowCache *cache, DpsCollChoice *out, GError **error)
{
  if (!dps_coll_choose (ctx, algo_mask, proto_mask, out, error))
    return FALSE;
  if (mode == DPS_MODE_FLOW) {
    double scale = 1;
    if (dps_tune_corr (ctx->params, ctx->op)) {
      DpsCollParams bare = *ctx->params;
      dps_tune_uncorrect (&bare);
      DpsCollCtx raw = *ctx;
      raw.params = &bare;
      DpsCollChoice rc;
      if (dps_coll_choose (&raw, algo_mask, proto_mask, &rc, NULL)) {
        scale = out->time_s / rc.time_s;
        dps_plan_unref (rc.plan);
      }
    }
    double lat = dps_plan_latency (out->plan, out->proto, TRUE);
    double ana = dps_plan_time_analytical (ctx->topo, out->plan, out->proto) - lat;
    double *ratio = cache ? &cache->ratio[out->algo] : NULL;
    double t;
    if (ratio && *ratio > 0 && ana > 0)
      t = lat + *ratio * ana;
    else {
      t = dps_plan_time_flow (ctx->topo, out->plan, out->proto);
      if (ratio && ana > 0 && t > lat)
        *ratio = (t - lat) / ana;
    }
    out->time_s = t * scale;
  }
  dps_plan_unref (out->plan);
  out->plan = NULL;
  return TRUE;
}
