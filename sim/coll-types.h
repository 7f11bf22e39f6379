/* coll-types — the words of the collective model, below both the plans
 * (coll.h) and NCCL's cost tables (tune.h): the operations,
 * algorithms, protocols and timing modes, the parameters of NCCL's cost
 * model (times in seconds, sizes in bytes) and the context a plan is built
 * in.  Types only. */
#pragma once

#include <glib.h>
#include "sim/topo.h"

typedef enum { DPS_OP_ALLREDUCE, DPS_OP_REDUCE_SCATTER, DPS_OP_ALLGATHER, DPS_OP_BROADCAST, DPS_OP_COUNT } DpsCollOp;
typedef enum { DPS_ALGO_TREE, DPS_ALGO_RING, DPS_ALGO_HIER, DPS_ALGO_NVLS, DPS_ALGO_COLLNET, DPS_ALGO_PAT, DPS_ALGO_COUNT } DpsAlgo;
typedef enum { DPS_PROTO_LL, DPS_PROTO_LL128, DPS_PROTO_SIMPLE, DPS_PROTO_COUNT } DpsProto;
#define DPS_ALL_PROTOS ((1u << DPS_PROTO_COUNT) - 1)   /* every protocol, 1 << DpsProto */
typedef enum { DPS_MODE_ANALYTICAL, DPS_MODE_FLOW } DpsNetMode;

#define DPS_COLL_MAX_CORR 64
typedef struct {
  int    n;
  double bytes[DPS_COLL_MAX_CORR], factor[DPS_COLL_MAX_CORR];   /* sizes increasing */
} DpsCollCorr;

typedef struct {
  double base_s[DPS_ALGO_COUNT][DPS_PROTO_COUNT];
  /* what one NCCL call takes beyond its algorithm's latency, as nccl-tests
   * times it back to back (see tune.c); 0 for a calibrated library */
  double call_s;
  /* what a call pays for every doubling, beyond two, of the hosts of one
   * NVLink domain it spans (the trays of an NVL72 rack; see tune.c);
   * 0 for a calibrated library */
  double host_skew_s;
  double step_s[DPS_ALGO_COUNT][DPS_LINK_KINDS][DPS_PROTO_COUNT];
  double net_overhead_s;   /* per intra-node step when a ring spans nodes (NCCL: 1 us Intel, 2 AMD) */
  double bw_factor[DPS_ALGO_COUNT][DPS_PROTO_COUNT];  /* payload efficiency */
  double algo_bw_factor[DPS_ALGO_COUNT];              /* e.g. NVLS 0.85 on Hopper */
  /* pipeline fill: the bytes an algorithm has in flight before it runs at
   * its full bandwidth (chunks on every channel: NVLS's per NCCL NVLS
   * channel, the others' the whole collective's); a collective of S bytes
   * moves as if it were S + min(S, fill) (see tune.c) */
  double fill_bytes[DPS_ALGO_COUNT][DPS_PROTO_COUNT];
  /* the share of their fill rings and trees pay inside one node (or one
   * NVLink domain), where no proxy or network stands in the pipeline */
  double fill_one_node;
  /* across nodes a tree pays its fill for every tree_fill_hops hops of its
   * depth (0: once, whatever the depth) */
  double tree_fill_hops;
  /* the most one NCCL channel moves across nodes with Simple, per
   * direction (rings and NVLSTree; see tune.c); 0: no ceiling */
  double net_channel_Bps;
  /* calibrated profiles: each protocol slot is a measured size regime, used
   * only for sizes up to its bound (0: unbounded) above the previous one's */
  gboolean sized_regimes;
  double regime_max_bytes[DPS_PROTO_COUNT];
  /* calibrated per-size corrections of a collective's whole time (measured
   * over modelled at the fitted sizes, interpolated in log size), one per
   * operation measured; one without its own takes the all-reduce's
   * (dps_tune_corr) */
  DpsCollCorr corr[DPS_OP_COUNT];
} DpsCollParams;

typedef struct {
  const DpsTopo       *topo;
  const DpsCollParams *params;
  int                  n_nodes;         /* nodes spanned: 0..n_nodes-1 */
  int                  ranks_per_node;  /* GPUs used on each node */
  DpsCollOp            op;
  double               bytes;
  DpsAlgo              algo;
  int                  channels;
  int                  gpus_per_node;   /* of the topology */
  int                  siblings;        /* groups of this shape running the same collective at once on
                                         * the same nodes, on their other GPUs (a 3D layout's
                                         * data-parallel groups, one a tensor-parallel rank), sharing
                                         * the links they cross; 0 or 1: alone */
  gboolean             latency_only;    /* build the latency terms, skip the flows */
} DpsCollCtx;
