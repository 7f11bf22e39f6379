/* coll-predict — NCCL's choice of algorithm and protocol, and the time of a
 * collective as NCCL would run it.
 *
 * NCCL runs the algorithm/protocol pair with the least estimate
 * (src/graph/tuning.cc); here the estimate is the analytical time of each
 * algorithm's plan (coll.h) under NCCL's cost tables (tune.h).
 */
#pragma once

#include "sim/coll.h"
#include "sim/tune.h"

typedef struct {
  DpsAlgo  algo;
  DpsProto proto;
  double   time_s;     /* analytical estimate */
  DpsPlan *plan;       /* owned by the choice: dps_plan_unref it */
} DpsCollChoice;

#define DPS_ALL_ALGOS ((1u << DPS_ALGO_COUNT) - 1)
/* what NCCL itself chooses among: hier is dpscale's own (Horovod-style)
 * and runs only when asked for, CollNet only with NCCL_COLLNET_ENABLE=1
 * (DPS_ALGO_COLLNET added to these) or when named; PAT where it applies
 * (one GPU a node: coll-pat.c), unless NCCL_PAT_ENABLE=0 or an NCCL
 * older than 2.23 */
#define DPS_NCCL_ALGOS (dps_coll_nccl_algos ())

gboolean dps_coll_choose (const DpsCollCtx *ctx, guint algo_mask, guint proto_mask,
                          DpsCollChoice *out, GError **error);
gboolean dps_coll_predict (const DpsCollCtx *ctx, guint algo_mask, guint proto_mask, DpsNetMode mode,
                           DpsCollChoice *out, GError **error);

/* Per algorithm, a plan's flow-level bandwidth time over its analytical
 * one, for one group (dps_coll_predict_cached); 0: not yet run. */
typedef struct { double ratio[DPS_ALGO_COUNT]; } DpsCollFlowCache;

gboolean dps_coll_predict_cached (const DpsCollCtx *ctx, guint algo_mask, guint proto_mask, DpsNetMode mode,
                                  DpsCollFlowCache *cache, DpsCollChoice *out, GError **error);
