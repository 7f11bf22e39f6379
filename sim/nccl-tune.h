/* nccl-tune — NCCL's cost model and its choice of algorithm and protocol.
 *
 * NCCL estimates a collective as latency + bytes / bandwidth and runs the
 * algorithm/protocol pair with the least estimate (src/graph/tuning.cc).
 * dpscale keeps NCCL's latency tables (microseconds: a base per algorithm
 * and protocol, plus a per-step cost by link kind) and its protocol payload
 * factors (LL moves 4 data bytes in 8, LL128 120 in 128), and replaces
 * NCCL's bandwidth tables by the topology itself: the estimate is the
 * analytical time of the algorithm's plan (coll.h).  Figures are from
 * shared/reference/nccl.md (NCCL 2.2x, Hopper).
 */
#pragma once

#include "sim/coll.h"

typedef struct {
  DpsAlgo  algo;
  DpsProto proto;
  double   time_s;     /* analytical estimate */
  DpsPlan *plan;       /* owned by the choice: dps_plan_unref it */
} DpsCollChoice;

#define DPS_ALL_ALGOS ((1u << DPS_ALGO_COUNT) - 1)
/* what NCCL itself chooses among: hier is dpscale's own (Horovod-style)
 * and runs only when asked for */
#define DPS_NCCL_ALGOS ((1u << DPS_ALGO_TREE) | (1u << DPS_ALGO_RING) | (1u << DPS_ALGO_NVLS))
#define DPS_ALL_PROTOS ((1u << DPS_PROTO_COUNT) - 1)

void     dps_coll_params_nccl (DpsCollParams *p);
gboolean dps_nccl_list_mask (const char *key, const char *list, gboolean algo, guint *mask, GError **error);
double   dps_tune_step_s (const DpsCollCtx *ctx, DpsAlgo algo, DpsLinkKind kind, DpsProto proto);
void     dps_tune_ring_latency (const DpsCollCtx *ctx, DpsAlgo algo, int nsteps, int ninter,
                                gboolean with_base, double *latency_s);
gboolean dps_tune_proto_ok (DpsAlgo algo, DpsProto proto);
double   dps_tune_fill_factor (const DpsCollParams *p, DpsAlgo algo, DpsProto proto, double bytes);
double   dps_tune_bw_cap_Bps (const DpsCollCtx *ctx, DpsProto proto);
gboolean dps_tune_size_ok (const DpsCollParams *p, DpsProto proto, double bytes);
typedef double (*DpsTimeFn) (double bytes, void *data);
double   dps_tune_calibrated (const DpsCollParams *p, double bytes, DpsTimeFn model, void *data);
gboolean dps_coll_choose (const DpsCollCtx *ctx, guint algo_mask, guint proto_mask,
                          DpsCollChoice *out, GError **error);
gboolean dps_coll_predict (const DpsCollCtx *ctx, guint algo_mask, guint proto_mask, DpsNetMode mode,
                           DpsCollChoice *out, GError **error);
