/* memory.c — see memory.h. */
#include "sim/memory.h"

#include <string.h>

static const char *const opt_names[] = { "sgd", "momentum", "adam" };

const char *dps_optimizer_name (DpsOptimizer o) { return opt_names[o]; }

gboolean
dps_optimizer_parse (const char *s, DpsOptimizer *out)
{
  for (int i = 0; i < 3; i++)
    if (s && g_ascii_strcasecmp (s, opt_names[i]) == 0) {
      *out = (DpsOptimizer) i;
      return TRUE;
    }
  return FALSE;
}

/* Fills out for one replica with a per-replica batch. */
void
dps_memory_estimate (const DpsModel *m, gboolean mixed, DpsDtype grad_dtype, DpsOptimizer opt,
                     gboolean grad_as_bucket_view, DpsDtype act_dtype, double batch, DpsMemory *out)
{
  double n = (double) m->n_params;
  double state = opt == DPS_OPT_ADAM ? 8 : opt == DPS_OPT_MOMENTUM ? 4 : 0;
  out->params = n * (mixed ? 2 : 4);
  out->grads = n * dps_dtype_bytes (grad_dtype);
  out->buckets = grad_as_bucket_view ? 0 : out->grads;
  out->optimizer = n * (state + (mixed ? 4 : 0));
  out->activations = dps_model_act_bytes (m) / 2 * dps_dtype_bytes (act_dtype) * batch;
  out->gathered = 0;
  out->total = out->params + out->grads + out->buckets + out->optimizer + out->activations;
}

/* Fills out's static parts (parameters, gradients, buckets, optimizer
 * state) for one rank under strategy, its state split over shards ranks
 * (the shard group for HSDP); activations and gathered are left 0, total
 * their sum.  See memory.h for the accounting. */
void
dps_memory_static (double n_params, gboolean mixed, DpsDtype grad_dtype, DpsOptimizer opt,
                   gboolean grad_as_bucket_view, DpsStrategy strategy, int shards, DpsMemory *out)
{
  double n = n_params, k = MAX (shards, 1);
  double state = opt == DPS_OPT_ADAM ? 8 : opt == DPS_OPT_MOMENTUM ? 4 : 0;
  double P = mixed ? 2 : 4, G = dps_dtype_bytes (grad_dtype), K = state + (mixed ? 4 : 0);
  memset (out, 0, sizeof *out);
  out->params = n * P / (dps_strategy_shards_params (strategy) ? k : 1);
  out->grads = n * G / (dps_strategy_shards_grads (strategy) ? k : 1);
  out->optimizer = n * K / (dps_strategy_shards_optimizer (strategy) ? k : 1);
  out->buckets = strategy == DPS_STRATEGY_DDP && !grad_as_bucket_view ? n * G : 0;
  out->total = out->params + out->grads + out->buckets + out->optimizer;
}

/* Bytes the optimizer step reads and writes per parameter: the parameter
 * and gradient read, the parameter written, plus each state read and
 * written (and the fp32 master copy under mixed precision). */
double
dps_optimizer_bytes_moved (DpsOptimizer opt, gboolean mixed)
{
  double states = opt == DPS_OPT_ADAM ? 2 : opt == DPS_OPT_MOMENTUM ? 1 : 0;
  return 3 * (mixed ? 2 : 4) + states * 8 + (mixed ? 8 : 0);
}
