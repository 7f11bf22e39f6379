/* shard-layout — where each rank's part of a model lives when the real
 * runner trains it with sharded data parallelism (ZeRO-1, ZeRO-2, FSDP,
 * HSDP; sim/strategy-kind.h), and which ranks share what.
 *
 * The wrapped unit is one layer of the model.  Its parameters are one
 * contiguous span of the flat arrays (train-net.h), padded with zeros at
 * its end to a multiple of the shard group's size G, as PyTorch FSDP pads
 * each FlatParameter: a unit of n elements takes P = G ceil(n / G), and
 * shard k of it is the elements [k P/G, (k+1) P/G) of that span.  So an
 * all-gather of the G shards (rank k of the group giving shard k) rebuilds
 * the span, in place, and a reduce-scatter of the span leaves rank k the
 * sum of shard k.  The padding lies in the last shards; its parameters and
 * gradients are zero and stay zero (SGD and Adam leave a zero parameter
 * with a zero gradient at zero), so the model's parameters are the same
 * whatever G.  A rank's shards of every unit, unit after unit, make one
 * array (offset shard_off[u]): its shard of the parameters (FSDP, HSDP),
 * of the gradients (ZeRO-2, FSDP, HSDP) and of the optimizer's moments
 * (every sharded strategy).  DDP shards nothing: G is 1 and nothing is
 * padded.
 *
 * Ranks: W = R G of them; shard group g is ranks [g G, (g+1) G) (under
 * `--nodes`, one emulated node: mpirun places consecutive ranks on a node),
 * and this rank's shard index k = rank mod G.  The ranks that hold the
 * same shard, one in each group, are its replicate group (HSDP: its
 * gradient shard is all-reduced there).  ZeRO-1, ZeRO-2 and FSDP shard
 * over all ranks (G = W, R = 1).
 *
 * Sizes are in elements (fp32 in the runner). */
#pragma once

#include <glib.h>
#include "sim/model.h"
#include "sim/strategy-kind.h"

typedef struct {
  DpsStrategy strategy;
  int     world, shards, groups;   /* W, G, R */
  int     rank, shard_index, group;
  int     n_units;                 /* the model's layers */
  gint64 *off, *count, *padded;    /* per unit: first element in the flat arrays, elements, padded (P) */
  gint64 *shard, *shard_off;       /* per unit: elements of one shard (P / G) and its offset in the shard arrays */
  int    *last_reader;             /* per unit: the last layer that reads its parameters (train-net.h) */
  gint64 *toff;                    /* per tensor: its first element in the flat arrays */
  gint64  total;                   /* elements of the flat arrays, padding included */
  gint64  shard_total;             /* elements of a rank's shard arrays (0 under DDP) */
} DpsShardLayout;

/* The layout of model m for rank of world ranks under strategy, sharded
 * over groups of shards ranks (HSDP; the others take world, DDP 1).
 * shards must divide world (the caller checked it). */
DpsShardLayout *dps_shard_layout_new (const DpsModel *m, DpsStrategy strategy, int world, int shards, int rank);
void            dps_shard_layout_free (DpsShardLayout *l);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DpsShardLayout, dps_shard_layout_free)

/* whether the strategy keeps only a shard of the parameters between
 * steps (FSDP, HSDP): layers then run on parameters all-gathered for them */
gboolean        dps_shard_layout_gathers (const DpsShardLayout *l);
/* whether it reduce-scatters the gradients (ZeRO-2, FSDP, HSDP), each
 * micro-step, instead of all-reducing them once a step (DDP, ZeRO-1) */
gboolean        dps_shard_layout_scatters (const DpsShardLayout *l);
/* the first element of this rank's shard of unit u in the flat arrays */
gint64          dps_shard_layout_mine (const DpsShardLayout *l, int u);
/* the lowest rank holding the same shards as rank r (itself when no
 * other rank does: FSDP), whose parameters r's must equal after a step;
 * for DDP, ZeRO-1 and ZeRO-2 (whole parameters on every rank) rank 0 */
int             dps_shard_layout_peer (const DpsShardLayout *l, int r);
