/* shard-layout.c — see shard-layout.h. */
#include "real/shard-layout.h"
#include "real/train-net.h"

DpsShardLayout *
dps_shard_layout_new (const DpsModel *m, DpsStrategy strategy, int world, int shards, int rank)
{
  g_return_val_if_fail (world >= 1 && rank >= 0 && rank < world, NULL);
  if (strategy == DPS_STRATEGY_DDP)
    shards = 1;
  else if (strategy != DPS_STRATEGY_HSDP)
    shards = world;
  g_return_val_if_fail (shards >= 1 && world % shards == 0, NULL);
  DpsShardLayout *l = g_new0 (DpsShardLayout, 1);
  int U = dps_model_n_layers (m);
  *l = (DpsShardLayout) { .strategy = strategy, .world = world, .shards = shards, .groups = world / shards,
                          .rank = rank, .shard_index = rank % shards, .group = rank / shards, .n_units = U };
  l->off = g_new (gint64, U + 1);
  l->count = g_new (gint64, U);
  l->padded = g_new (gint64, U);
  l->shard = g_new (gint64, U);
  l->shard_off = g_new (gint64, U + 1);
  l->last_reader = g_new (int, U);
  l->toff = g_new (gint64, MAX (dps_model_n_tensors (m), 1));
  l->total = dps_train_net_layout (m, shards, l->toff, l->off);
  l->shard_off[0] = 0;
  for (int u = 0; u < U; u++) {
    const DpsLayer *ly = dps_model_layer (m, u);
    l->count[u] = 0;
    for (int k = 0; k < ly->n_tensors; k++)
      l->count[u] += dps_model_tensor (m, ly->first_tensor + k)->numel;
    l->padded[u] = l->off[u + 1] - l->off[u];
    l->shard[u] = strategy == DPS_STRATEGY_DDP ? 0 : l->padded[u] / shards;
    l->shard_off[u + 1] = l->shard_off[u] + l->shard[u];
    l->last_reader[u] = dps_train_net_last_reader (m, u);
  }
  l->shard_total = l->shard_off[U];
  return l;
}

void
dps_shard_layout_free (DpsShardLayout *l)
{
  if (!l)
    return;
  g_free (l->off);
  g_free (l->count);
  g_free (l->padded);
  g_free (l->shard);
  g_free (l->shard_off);
  g_free (l->last_reader);
  g_free (l->toff);
  g_free (l);
}

gboolean
dps_shard_layout_gathers (const DpsShardLayout *l)
{
  return dps_strategy_shards_params (l->strategy);
}

gboolean
dps_shard_layout_scatters (const DpsShardLayout *l)
{
  return dps_strategy_shards_grads (l->strategy);
}

gint64
dps_shard_layout_mine (const DpsShardLayout *l, int u)
{
  return l->off[u] + (gint64) l->shard_index * l->shard[u];
}

int
dps_shard_layout_peer (const DpsShardLayout *l, int r)
{
  return dps_shard_layout_gathers (l) ? r % l->shards : 0;
}
