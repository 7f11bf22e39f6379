/* coll — collectives as plans of point-to-point flows, and their timing.
 *
 * A collective (all-reduce, reduce-scatter, all-gather, broadcast) run with
 * an algorithm (ring, tree, hierarchical, NVLS) and an NCCL protocol (LL,
 * LL128, Simple) becomes a plan: a sequence of phases, each a latency term
 * and a set of concurrent flows.  A pipelined ring or tree is one phase of
 * hop flows, each carrying that hop's total bytes: O(ranks x channels)
 * flows, never O(ranks^2).  The latency term follows NCCL's own estimate
 * (base + steps x per-step latency by link kind, see nccl-tune.h) plus the
 * wire latency of the longest route; a protocol's lower payload efficiency
 * inflates the bytes its flows carry.
 *
 * Two ways to time a plan:
 *   analytical: each phase takes latency + max over links of
 *               (bytes crossing the link / its capacity), the alpha-beta
 *               closed form with the topology's own bottleneck;
 *   flow-level: the flows run on a DpsNet (max-min fair sharing) in the
 *               event engine, so concurrent collectives and background
 *               traffic slow each other down.
 * With equal-sized flows and nothing else on the network the two agree: the
 * max-min rate of the slowest flow is the fair share of the most loaded link.
 *
 * Sizes follow nccl-tests: for all-reduce and broadcast `bytes` is each
 * rank's buffer; for reduce-scatter and all-gather it is the whole array
 * (count x type size x ranks).
 */
#pragma once

#include <glib.h>
#include "sim/topo.h"
#include "sim/engine.h"
#include "sim/net.h"

typedef enum { DPS_OP_ALLREDUCE, DPS_OP_REDUCE_SCATTER, DPS_OP_ALLGATHER, DPS_OP_BROADCAST, DPS_OP_COUNT } DpsCollOp;
typedef enum { DPS_ALGO_TREE, DPS_ALGO_RING, DPS_ALGO_HIER, DPS_ALGO_NVLS, DPS_ALGO_COUNT } DpsAlgo;
typedef enum { DPS_PROTO_LL, DPS_PROTO_LL128, DPS_PROTO_SIMPLE, DPS_PROTO_COUNT } DpsProto;
typedef enum { DPS_MODE_ANALYTICAL, DPS_MODE_FLOW } DpsNetMode;

#define DPS_SWITCH (-1)   /* a flow end at the node's NVSwitch (NVLS) */

typedef struct {
  double base_s[DPS_ALGO_COUNT][DPS_PROTO_COUNT];
  double step_s[DPS_ALGO_COUNT][DPS_LINK_KINDS][DPS_PROTO_COUNT];
  double net_overhead_s;   /* per intra-node step when a ring spans nodes (NCCL: 1 us Intel, 2 AMD) */
  double bw_factor[DPS_ALGO_COUNT][DPS_PROTO_COUNT];  /* payload efficiency */
  double algo_bw_factor[DPS_ALGO_COUNT];              /* e.g. NVLS 0.85 on Hopper */
  /* pipeline fill: the bytes an algorithm has in flight before it runs at
   * its full bandwidth (chunks on every channel); a collective of S bytes
   * moves as if it were S + min(S, fill) (see nccl-tune.c) */
  double fill_bytes[DPS_ALGO_COUNT][DPS_PROTO_COUNT];
  /* calibrated profiles: each protocol slot is a measured size regime, used
   * only for sizes up to its bound (0: unbounded) above the previous one's */
  gboolean sized_regimes;
  double regime_max_bytes[DPS_PROTO_COUNT];
  /* calibrated per-size correction of a collective's whole time (measured
   * over modelled at the fitted sizes, interpolated in log size) */
  int    n_corr;
  double corr_bytes[64], corr_factor[64];
} DpsCollParams;

typedef struct {
  int    src, dst;     /* global GPU indices; DPS_SWITCH: the node's NVSwitch (node of the other end) */
  double bytes;
} DpsFlowSpec;

typedef struct {
  double  latency_s[DPS_PROTO_COUNT];  /* NCCL-style latency term for each protocol */
  GArray *flows;                       /* DpsFlowSpec, payload bytes */
  double  load_s, wire_s;              /* analytical: max link load / capacity, longest route latency; <0 unknown */
  gboolean latency_only;               /* flows are not recorded (a plan built for its latency) */
} DpsPhase;

typedef struct {
  DpsAlgo algo;
  double  payload[DPS_PROTO_COUNT];    /* payload efficiency per protocol, with the pipeline fill at the
                                        * plan's size; 0: not supported */
  double  uncapped[DPS_PROTO_COUNT];   /* the same before NCCL's per-channel ceiling (dps_tune_bw_cap_Bps) */
  GArray *phases;                      /* DpsPhase */
  gboolean latency_only;
} DpsPlan;

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
  gboolean             latency_only;    /* build the latency terms, skip the flows */
} DpsCollCtx;

typedef struct {
  const char *name;
  DpsAlgo     id;
  gboolean  (*supports) (const DpsCollCtx *ctx, GError **error);
  void      (*plan) (const DpsCollCtx *ctx, DpsPlan *plan);
} DpsCollAlgo;

extern const DpsCollAlgo dps_coll_ring;
extern const DpsCollAlgo dps_coll_tree;
extern const DpsCollAlgo dps_coll_hier;
extern const DpsCollAlgo dps_coll_nvls;

const DpsCollAlgo *dps_coll_algo (DpsAlgo algo);
const char *dps_coll_op_name (DpsCollOp op);
const char *dps_algo_name (DpsAlgo algo);
const char *dps_proto_name (DpsProto proto);
gboolean    dps_coll_op_parse (const char *s, DpsCollOp *out);
gboolean    dps_algo_parse (const char *s, DpsAlgo *out);
gboolean    dps_proto_parse (const char *s, DpsProto *out);
double      dps_coll_busbw_factor (DpsCollOp op, int n_ranks);
gboolean    dps_coll_ctx_init (DpsCollCtx *ctx, const DpsTopo *topo, const DpsCollParams *params,
                               int n_gpus, DpsCollOp op, double bytes, GError **error);

/* plans (reference counted: the runner holds one while it runs) */
DpsPlan    *dps_plan_new (DpsAlgo algo);
DpsPlan    *dps_plan_ref (DpsPlan *plan);
void        dps_plan_unref (DpsPlan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsPlan, dps_plan_unref)
DpsPhase   *dps_plan_add_phase (DpsPlan *plan);
DpsPhase   *dps_plan_add_phase_sized (DpsPlan *plan, guint n_flows);
void        dps_phase_add_flow (DpsPhase *phase, int src, int dst, double bytes);
gboolean    dps_coll_build_plan (const DpsCollCtx *ctx, DpsPlan **out, GError **error);
int         dps_coll_flow_route (const DpsTopo *topo, const DpsFlowSpec *f, int *links);

/* helpers for the algorithm files */
void        dps_ctx_ring (const DpsCollCtx *ctx, int channel, int *order);
int         dps_ctx_n_ranks (const DpsCollCtx *ctx);
void        dps_phase_ring (DpsPhase *phase, const int *gpus, int n, double hop_bytes);
void        dps_phase_btree (DpsPhase *phase, const int *gpus, int n, int mirror, double bytes);
int         dps_ceil_log2 (int n);

/* The global index of local GPU `local` of node `node`. */
static inline int
dps_ctx_gpu (const DpsCollCtx *ctx, int node, int local)
{
  return node * ctx->gpus_per_node + local;
}

/* timing */
double      dps_plan_time_analytical (const DpsTopo *topo, DpsPlan *plan, DpsProto proto);

typedef struct DpsCollRunner DpsCollRunner;
typedef void (*DpsCollDoneFn) (void *data, double start_s, double end_s);
DpsCollRunner *dps_coll_runner_new (const DpsTopo *topo, DpsEngine *engine, DpsNet *net);
void        dps_coll_runner_free (DpsCollRunner *runner);
void        dps_coll_runner_launch (DpsCollRunner *runner, DpsPlan *plan, DpsProto proto,
                                    DpsCollDoneFn fn, void *data);
double      dps_plan_time_flow (const DpsTopo *topo, DpsPlan *plan, DpsProto proto);
