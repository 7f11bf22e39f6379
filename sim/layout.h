/* layout — where the ranks of a tensor x pipeline x data parallel layout
 * sit on a cluster, as Megatron-LM orders them (and as the simulator costs
 * their groups, ddp-parallel.c): tensor parallel innermost (consecutive
 * GPUs), then the pipeline, data parallel outermost.  Rank r, on GPU r
 * (node r / gpus_per_node), has tensor-parallel index r mod tp, stage
 * (r / tp) mod pp and replica r / (tp pp). */
#pragma once

#include <glib.h>

typedef struct {
  int tp, pp, dp;
} DpsLayout;

/* The rank of (tensor-parallel index t, stage s, replica d). */
static inline int
dps_layout_rank (const DpsLayout *l, int t, int s, int d)
{
  return t + l->tp * (s + l->pp * d);
}

/* A plain-text account of where each group lands on n_gpus GPUs of
 * gpus_per_node a node (tensor-parallel groups, pipeline stages and their
 * neighbours, data-parallel groups), each line saying whether the group
 * stays inside a node: appended to out.  At most `shown` groups of a
 * kind are listed by their GPUs. */
void dps_layout_describe (GString *out, const DpsLayout *l, int gpus_per_node, int shown);
