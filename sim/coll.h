/* coll — collectives as plans of point-to-point flows, and their timing.
 *
 * A collective (all-reduce, reduce-scatter, all-gather, broadcast) run with
 * an algorithm (ring, tree, hierarchical, NVLS, CollNet,
 * PAT) and an NCCL protocol (LL,
 * LL128, Simple) becomes a plan: a sequence of phases, each a latency term
 * and a set of concurrent flows.  A pipelined ring or tree is one phase of
 * hop flows, each carrying that hop's total bytes: O(ranks x channels)
 * flows, never O(ranks^2).  The latency term follows NCCL's own estimate
 * (base + steps x per-step latency by link kind, see tune.h) plus the
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
#include "sim/coll-types.h"
#include "sim/topo.h"
#include "sim/engine.h"
#include "sim/net.h"

#define DPS_SWITCH (-1)   /* a flow end at the node's NVSwitch (NVLS) */

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

/* An algorithm's figures in NCCL's cost model (tune.h), per protocol,
 * 0 where it does not run it: NCCL's base latency and per-step latency by
 * link kind (us), the payload efficiency, the whole algorithm's bandwidth
 * factor (0: 1) and its pipeline fill (bytes; dps_tune_fill_factor). */
typedef struct {
  double base_us[DPS_PROTO_COUNT];
  double step_us[DPS_LINK_KINDS][DPS_PROTO_COUNT];
  double bw[DPS_PROTO_COUNT];
  double algo_bw;
  double fill_bytes[DPS_PROTO_COUNT];
} DpsNcclAlgoFigures;

/* A collective algorithm: everything about it in its own file
 * (coll-ring.c, ...), registered once in coll.c's table, which NCCL's
 * choice walks in its order (dps_coll_algo_nth). */
typedef struct {
  const char        *name;
  DpsAlgo            id;
  guint              protos;         /* the protocols it runs, 1 << DpsProto */
  gboolean           nccl_default;   /* NCCL runs it unless told otherwise (DPS_NCCL_ALGOS) */
  DpsNcclAlgoFigures nccl;
  gboolean         (*supports) (const DpsCollCtx *ctx, GError **error);
  void             (*plan) (const DpsCollCtx *ctx, DpsPlan *plan);
} DpsCollAlgo;

extern const DpsCollAlgo dps_coll_ring;
extern const DpsCollAlgo dps_coll_tree;
extern const DpsCollAlgo dps_coll_hier;
extern const DpsCollAlgo dps_coll_nvls;
extern const DpsCollAlgo dps_coll_collnet;
extern const DpsCollAlgo dps_coll_pat;

const DpsCollAlgo *dps_coll_algo (DpsAlgo algo);
/* The i-th algorithm (0 <= i < DPS_ALGO_COUNT) in the order NCCL's choice
 * tries them: low latency first, so that one whose latency alone loses is
 * skipped before its plan is built. */
const DpsCollAlgo *dps_coll_algo_nth (int i);
/* The algorithms NCCL runs by default (nccl_default), as a mask. */
guint       dps_coll_nccl_algos (void);
const char *dps_coll_op_name (DpsCollOp op);    /* "allgather": a key, NCCL's word */
const char *dps_coll_op_words (DpsCollOp op);   /* "all-gather": in sentences and tables */
const char *dps_algo_name (DpsAlgo algo);
const char *dps_proto_name (DpsProto proto);
gboolean    dps_coll_op_parse (const char *s, DpsCollOp *out);
gboolean    dps_algo_parse (const char *s, DpsAlgo *out);
gboolean    dps_proto_parse (const char *s, DpsProto *out);
/* NCCL_ALGO's or NCCL_PROTO's list (algo: which) into *mask; key names
 * the setting in messages (coll-list.c says the syntax). */
gboolean    dps_coll_list_mask (const char *key, const char *list, gboolean algo, guint *mask, GError **error);
double      dps_coll_busbw_factor (DpsCollOp op, int n_ranks);
guint       dps_coll_choosable (DpsCollOp op, guint algo_mask);
gboolean    dps_coll_ctx_init (DpsCollCtx *ctx, const DpsTopo *topo, const DpsCollParams *params,
                               int n_gpus, DpsCollOp op, double bytes, GError **error);
gboolean    dps_coll_ctx_init_nodes (DpsCollCtx *ctx, const DpsTopo *topo, const DpsCollParams *params,
                                     int n_nodes, int per_node, DpsCollOp op, double bytes, GError **error);
gboolean    dps_coll_ctx_init_spread (DpsCollCtx *ctx, const DpsTopo *topo, const DpsCollParams *params,
                                      int ranks, DpsCollOp op, double bytes, GError **error);

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
/* A plan's fixed time with proto, whatever its bytes: the sum over phases
 * of the latency term, and with_wire, of the longest wire latency too. */
double      dps_plan_latency (const DpsPlan *plan, DpsProto proto, gboolean with_wire);

typedef struct DpsCollRunner DpsCollRunner;
typedef void (*DpsCollDoneFn) (void *data, double start_s, double end_s);
DpsCollRunner *dps_coll_runner_new (const DpsTopo *topo, DpsEngine *engine, DpsNet *net);
void        dps_coll_runner_free (DpsCollRunner *runner);
void        dps_coll_runner_launch (DpsCollRunner *runner, DpsPlan *plan, DpsProto proto,
                                    DpsCollDoneFn fn, void *data);
double      dps_plan_time_flow (const DpsTopo *topo, DpsPlan *plan, DpsProto proto);
