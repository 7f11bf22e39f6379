/* strategy-kind.c — see strategy-kind.h. */
#include "sim/strategy-kind.h"

typedef struct {
  const char *name, *pytorch, *alias;
  gboolean    params, grads, optimizer;   /* what is sharded */
} Kind;

static const Kind kinds[] = {
  [DPS_STRATEGY_DDP]   = { "ddp",   "NO_SHARD",      "no_shard", FALSE, FALSE, FALSE },
  [DPS_STRATEGY_ZERO1] = { "zero1", "(DeepSpeed ZeRO-1)", "zero-1", FALSE, FALSE, TRUE },
  [DPS_STRATEGY_ZERO2] = { "zero2", "SHARD_GRAD_OP", "zero-2",   FALSE, TRUE,  TRUE },
  [DPS_STRATEGY_FSDP]  = { "fsdp",  "FULL_SHARD",    "zero3",    TRUE,  TRUE,  TRUE },
  [DPS_STRATEGY_HSDP]  = { "hsdp",  "HYBRID_SHARD",  "hybrid",   TRUE,  TRUE,  TRUE },
};
G_STATIC_ASSERT (G_N_ELEMENTS (kinds) == DPS_STRATEGY_COUNT);

/* The strategy a name says (dpscale's, PyTorch's, or an alias such as
 * zero3), in any case; FALSE for anything else. */
gboolean
dps_strategy_parse (const char *name, DpsStrategy *out)
{
  if (!name)
    return FALSE;
  for (int i = 0; i < DPS_STRATEGY_COUNT; i++)
    if (g_ascii_strcasecmp (name, kinds[i].name) == 0 || g_ascii_strcasecmp (name, kinds[i].pytorch) == 0
        || g_ascii_strcasecmp (name, kinds[i].alias) == 0) {
      *out = (DpsStrategy) i;
      return TRUE;
    }
  return FALSE;
}

static const char *const offload_names[] = { "none", "optimizer", "params" };

gboolean
dps_offload_parse (const char *name, DpsOffload *out)
{
  for (int i = 0; name && i < (int) G_N_ELEMENTS (offload_names); i++)
    if (g_ascii_strcasecmp (name, offload_names[i]) == 0) {
      *out = (DpsOffload) i;
      return TRUE;
    }
  return FALSE;
}

const char *dps_offload_name (DpsOffload o) { return offload_names[o]; }

gboolean
dps_offload_applies (DpsOffload o, DpsStrategy s)
{
  return o == DPS_OFFLOAD_NONE || (o == DPS_OFFLOAD_PARAMS ? kinds[s].params : kinds[s].grads);
}

const char *dps_strategy_name (DpsStrategy s) { return kinds[s].name; }
const char *dps_strategy_pytorch_name (DpsStrategy s) { return kinds[s].pytorch; }
gboolean dps_strategy_shards_params (DpsStrategy s) { return kinds[s].params; }
gboolean dps_strategy_shards_grads (DpsStrategy s) { return kinds[s].grads; }
gboolean dps_strategy_shards_optimizer (DpsStrategy s) { return kinds[s].optimizer; }
