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

/* names' index of name in any case, or -1 (NULL too) */
static int
name_index (const char *const *names, int n, const char *name)
{
  for (int i = 0; name && i < n; i++)
    if (g_ascii_strcasecmp (name, names[i]) == 0)
      return i;
  return -1;
}

static const char *const offload_names[] = { "none", "optimizer", "params" };

gboolean
dps_offload_parse (const char *name, DpsOffload *out)
{
  int i = name_index (offload_names, G_N_ELEMENTS (offload_names), name);
  if (i >= 0)
    *out = (DpsOffload) i;
  return i >= 0;
}

const char *dps_offload_name (DpsOffload o) { return offload_names[o]; }

static const char *const prefetch_names[] = { "pre", "post", "none" };

gboolean
dps_prefetch_parse (const char *name, DpsPrefetch *out)
{
  int i = name_index (prefetch_names, G_N_ELEMENTS (prefetch_names), name);
  if (i < 0 && name && g_ascii_strncasecmp (name, "backward_", 9) == 0)
    i = name_index (prefetch_names, 2, name + 9);   /* BACKWARD_PRE, BACKWARD_POST */
  if (i >= 0)
    *out = (DpsPrefetch) i;
  return i >= 0;
}

const char *dps_prefetch_name (DpsPrefetch p) { return prefetch_names[p]; }

static const char *const unit_names[] = { "block", "layer", "model" };

gboolean
dps_fsdp_unit_parse (const char *name, DpsFsdpUnit *out)
{
  int i = name_index (unit_names, G_N_ELEMENTS (unit_names), name);
  if (i >= 0)
    *out = (DpsFsdpUnit) i;
  return i >= 0;
}

const char *dps_fsdp_unit_name (DpsFsdpUnit u) { return unit_names[u]; }

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
