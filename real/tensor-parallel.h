/* tensor-parallel — how the real runner splits a GPT-2 stack over a
 * tensor-parallel group of tp ranks, as Megatron-LM splits a transformer
 * block (Shoeybi et al. 2019, "Megatron-LM", section 3):
 *
 *   attn.c_attn   column-parallel: rank r holds heads [r H/tp, (r+1) H/tp),
 *                 its columns of each of q, k and v (weight d x 3d/tp, bias
 *                 3d/tp)
 *   attn.c_proj   row-parallel: the rows of those heads (weight d/tp x d);
 *                 its output is a partial sum, all-reduced over the group,
 *                 the bias added once
 *   mlp.c_fc      column-parallel (weight d x f/tp, bias f/tp)
 *   mlp.c_proj    row-parallel (weight f/tp x d), all-reduced, bias once
 *   the rest      whole on every rank: embeddings, LayerNorms, the tied
 *                 head (Megatron splits the vocabulary too; here the head
 *                 is computed whole on each rank, the same result)
 *
 * In backward the gradient of each block's two inputs to the split (the
 * LayerNorms' outputs) is a partial sum too, all-reduced: two all-reduces
 * of s b h floats forward and two backward per block, what the simulator
 * costs (sim/ddp-parallel.c).  Weights are stored in x out (Conv1D), so
 * column-parallel splits a weight's columns and row-parallel its rows.
 * Ranks of a group hold the same replicated tensors, updated from the
 * same gradients: they stay equal. */
#pragma once

#include <glib.h>
#include "sim/model.h"

typedef enum {
  DPS_TP_WHOLE,       /* every rank the whole tensor */
  DPS_TP_COLS,        /* rank r the r-th of tp blocks of columns (of a vector: elements) */
  DPS_TP_COLS_QKV,    /* the same within each third of the columns (q, k, v) */
  DPS_TP_ROWS,        /* rank r the r-th of tp blocks of rows */
} DpsTpSplit;

/* How a GPT-2 stack's tensor of this name is split (above). */
DpsTpSplit dps_tp_split_of (const char *name);

/* One rank's model: full's tensors split for rank-independent shapes
 * (every rank's are alike), its heads H / tp.  Refused (NULL, error) for
 * a model that is not a GPT-2 stack, or whose heads or MLP width tp does
 * not divide. */
DpsModel  *dps_tp_shard_model (const DpsModel *full, int tp, GError **error);

/* Rank r's part of a tensor split s whose whole is rows x cols (a vector:
 * rows 1), from whole into part; and back (unslice writes rank r's part
 * into whole). */
void       dps_tp_slice (DpsTpSplit s, const float *whole, gint64 rows, gint64 cols, int tp, int r, float *part);
void       dps_tp_unslice (DpsTpSplit s, const float *part, gint64 rows, gint64 cols, int tp, int r, float *whole);

/* The whole model's parameters (full's layout, no padding) from the tp
 * ranks' flat parameters parts[r] (shard's layout, no padding). */
void       dps_tp_unshard (const DpsModel *full, const DpsModel *shard, int tp, const float *const *parts, float *whole);
