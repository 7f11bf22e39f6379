/* memory.c — see memory.h. */
#include "sim/memory.h"

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
  out->total = out->params + out->grads + out->buckets + out->optimizer + out->activations;
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
