/* coll-cost — the time of a collective of any size on one replica group,
 * for simulators that run many of them (one per gradient bucket).
 *
 * A plan's flows all carry bytes proportional to the message size S, so
 * its time is latency + S x (time per byte): in analytical mode the most
 * loaded link's load per byte; in flow-level mode the max-min network's
 * transfer time, measured once by running the plan at a reference size
 * (rates do not depend on S, so durations scale with it).  That is exact
 * while the group's collectives run one at a time on a network that carries
 * nothing else, which is how one DDP job uses it.  For each size the
 * algorithm and protocol are NCCL's choice (least analytical estimate).
 *
 * Given the largest size it will be asked about, an algorithm whose latency
 * alone exceeds what another already takes for that size can never be
 * chosen, and its flows are not built (a flat ring over tens of thousands
 * of GPUs, say).
 */
#pragma once

#include "sim/coll.h"
#include "sim/coll-predict.h"

typedef struct DpsCollCost DpsCollCost;

DpsCollCost *dps_coll_cost_new (const DpsTopo *topo, const DpsCollParams *params, int n_gpus,
                                DpsCollOp op, guint algo_mask, guint proto_mask, int channels,
                                DpsNetMode mode, double max_bytes, GError **error);
DpsCollCost *dps_coll_cost_new_ctx (const DpsCollCtx *ctx, guint algo_mask, guint proto_mask, DpsNetMode mode,
                                    double max_bytes, GError **error);
void         dps_coll_cost_free (DpsCollCost *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsCollCost, dps_coll_cost_free)
double       dps_coll_cost_time (const DpsCollCost *c, double bytes, DpsAlgo *algo, DpsProto *proto);
double       dps_coll_cost_time_lat (const DpsCollCost *c, double bytes, double *lat_s, DpsAlgo *algo,
                                     DpsProto *proto);
