/* layout — where the ranks of a tensor x pipeline x data parallel layout
 * sit on a cluster (and so which of its groups the simulator costs inside
 * a node, ddp-parallel.c).  Rank r runs on GPU r (node r / gpus_per_node);
 * tensor parallel is innermost (consecutive GPUs) in both orders below:
 *
 *   tp-dp-pp  then data parallel, the pipeline outermost: Megatron-LM's
 *             (megatron/core/parallel_state.py, initialize_model_parallel:
 *             with 16 GPUs, tp 2 and pp 4 its data-parallel groups are
 *             [g0, g2], [g1, g3], ..., its pipelines [g0, g4, g8, g12];
 *             Megatron-Core names it "tp-cp-ep-dp-pp", its default) and
 *             DeepSpeed's PipeModelDataParallelTopology (pipe, data, model
 *             from the outside in).  The default.
 *   tp-pp-dp  then the pipeline, data parallel outermost (Megatron-Core's
 *             use_tp_pp_dp_mapping).
 *
 * Rank of (tensor index t, stage s, replica d): tp-dp-pp t + tp (d + dp s),
 * tp-pp-dp t + tp (s + pp d). */
#pragma once

#include <glib.h>

typedef enum {
  DPS_ORDER_TP_DP_PP,
  DPS_ORDER_TP_PP_DP,
  DPS_ORDERS
} DpsRankOrder;

typedef struct {
  int tp, pp, dp;
  DpsRankOrder order;
} DpsLayout;

/* The rank of (tensor-parallel index t, stage s, replica d). */
static inline int
dps_layout_rank (const DpsLayout *l, int t, int s, int d)
{
  return l->order == DPS_ORDER_TP_PP_DP ? t + l->tp * (s + l->pp * d) : t + l->tp * (d + l->dp * s);
}

const char *dps_rank_order_name (DpsRankOrder o);
/* "tp-dp-pp" or "tp-pp-dp" (case ignored); FALSE for anything else */
gboolean    dps_rank_order_parse (const char *s, DpsRankOrder *out);

typedef enum { DPS_GROUP_TP, DPS_GROUP_PP, DPS_GROUP_DP } DpsGroupKind;

/* Where the first group of a kind lands on nodes of gpus_per_node GPUs:
 * *n_nodes the nodes it touches, *per_node the most of its GPUs on one
 * (every group of a kind has the same shape when the node's GPUs are a
 * multiple of the inner degrees).  For the pipeline, also whether a send
 * between neighbouring stages crosses nodes anywhere along it
 * (*p2p_across; may be NULL). */
void dps_layout_group_span (const DpsLayout *l, DpsGroupKind kind, int gpus_per_node, int *n_nodes, int *per_node,
                            gboolean *p2p_across);

/* A plain-text account of where each group lands on n_gpus GPUs of
 * gpus_per_node a node (tensor-parallel groups, pipeline stages and their
 * neighbours, data-parallel groups), each line saying whether the group
 * stays inside a node: appended to out.  At most `shown` groups of a
 * kind are listed by their GPUs. */
void dps_layout_describe (GString *out, const DpsLayout *l, int gpus_per_node, int shown);
