/* tune — NCCL's cost model: its latency tables, payload factors,
 * per-channel bandwidth ceilings and pipeline fill.
 *
 * NCCL estimates a collective as latency + bytes / bandwidth and runs the
 * algorithm/protocol pair with the least estimate (src/graph/tuning.cc).
 * dpscale keeps NCCL's latency tables (microseconds: a base per algorithm
 * and protocol, plus a per-step cost by link kind) and its protocol payload
 * factors (LL moves 4 data bytes in 8, LL128 120 in 128), and replaces
 * NCCL's bandwidth tables by the topology itself: the estimate is the
 * analytical time of the algorithm's plan (coll.h).  Figures are read
 * from NVIDIA/nccl's src/graph/tuning.cc (v2.2x: the baseLat/hwLat tables,
 * the per-channel llMaxBws/perChMaxTreeBws ceilings by GPU generation, the
 * NVLS factor) and, where the published nccl-tests tables of
 * tests/reference/nccl/ showed NCCL's own estimate to be off, fitted once
 * to all of them (the pipeline fill, NVLS at 0.85 of the estimate); each
 * constant names its source, an algorithm's own in its file (coll.h).
 */
#pragma once

#include "sim/coll-types.h"

/* NCCL's buffers in flight, the pipeline fill (dps_tune_fill_factor) of a
 * ring's, a tree's, CollNet's or PAT's channels for the whole collective
 * (Simple's 64 MB about NCCL's 4 MiB buffer on each of 16 channels), by
 * protocol.  Fitted over tests/reference/nccl (tests/reference/README.md,
 * "How the constants were set"). */
#define DPS_NCCL_FILL_LL 1e5
#define DPS_NCCL_FILL_LL128 3e6
#define DPS_NCCL_FILL_SIMPLE 64e6
/* NCCL's latencies of a ring (us, src/graph/tuning.cc baseLat and hwLat):
 * its base by protocol, and its step on NVLink, PCIe and the network;
 * the hierarchical all-reduce runs a ring in each phase */
#define DPS_NCCL_RING_BASE_US { 6.6, 14.0, 8.4 }
#define DPS_NCCL_RING_STEP_US { { 0.6, 1.9, 3.4 }, { 1.0, 2.5, 5.7 }, { 2.7, 4.0, 14.0 } }
/* payload efficiency: LL carries 4 data bytes per 8, LL128 120 per 128
 * (NCCL uses 0.92 of bus bandwidth for ring LL128) */
#define DPS_NCCL_RING_BW { 0.5, 0.92, 1.0 }

void     dps_tune_params_nccl (DpsCollParams *p);
double   dps_tune_eager_bytes (const DpsCollCtx *ctx, DpsAlgo algo, DpsProto proto);
double   dps_tune_step_s (const DpsCollCtx *ctx, DpsAlgo algo, DpsLinkKind kind, DpsProto proto);
double   dps_tune_call_s (const DpsCollCtx *ctx);
double   dps_tune_plateau_bytes (const DpsCollCtx *ctx, DpsAlgo algo, DpsProto proto);
void     dps_tune_ring_latency (const DpsCollCtx *ctx, DpsAlgo algo, int nsteps, int ninter,
                                gboolean with_base, double *latency_s);
double   dps_tune_collnet_efficiency (const DpsCollCtx *ctx);
gboolean dps_tune_proto_ok (DpsAlgo algo, DpsProto proto);
double   dps_tune_fill_factor (const DpsCollParams *p, DpsAlgo algo, DpsProto proto, double times, double bytes);
double   dps_tune_fill_times (const DpsCollCtx *ctx, DpsAlgo algo);
double   dps_tune_fill_nic_share (const DpsCollCtx *ctx);
int      dps_tune_ring_net_channels (const DpsCollCtx *ctx);
int      dps_tune_nvswitch_channels (const DpsTopoSpec *s);
double   dps_tune_bw_cap_Bps (const DpsCollCtx *ctx, DpsProto proto);
gboolean dps_tune_size_ok (const DpsCollParams *p, DpsProto proto, double bytes);
/* NCCL's choice, one algorithm/protocol pair at a time, as both the fresh
 * choice (coll-predict.c) and the cached cost (coll-cost.c) make it: a
 * pair may run bytes where its plan carries payload with proto and the
 * protocol's size range holds them (dps_tune_size_ok); it wins with the
 * least estimate below best_est (start at G_MAXDOUBLE), a tie going to the
 * lower algorithm index (tree before ring), then the protocol found first
 * (LL, LL128, Simple).  best_algo -1: none yet. */
gboolean dps_tune_may_run (const DpsCollParams *p, double payload, DpsProto proto, double bytes);
gboolean dps_tune_beats (double est, int algo, double best_est, int best_algo);
typedef double (*DpsTimeFn) (double bytes, void *data);

/* floor(log2 n) for n >= 1: NCCL's log2i, in its tree depth and PAT's
 * latency */
static inline int
dps_tune_log2i (int n)
{
  return (int) g_bit_storage ((gulong) n) - 1;
}
double   dps_tune_calibrated (const DpsCollParams *p, DpsCollOp op, double bytes, DpsTimeFn model, void *data);
/* op's correction table (its own, else the all-reduce's), NULL for none;
 * and the parameters without any */
const DpsCollCorr *dps_tune_corr (const DpsCollParams *p, DpsCollOp op);
void     dps_tune_uncorrect (DpsCollParams *p);
