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

double
dps_precision_param_bytes (DpsPrecision p)
{
  return p == DPS_PRECISION_AMP ? 4 : 2;
}

double
dps_precision_master_bytes (DpsPrecision p)
{
  return p == DPS_PRECISION_BF16 || p == DPS_PRECISION_BF16_DEEPSPEED ? 4 : 0;
}

double
dps_precision_state_bytes (DpsPrecision p)
{
  return p == DPS_PRECISION_PURE_BF16 ? 2 : 4;
}

void
dps_memory_loss_bytes (DpsPrecision p, DpsDtype compute, double *kept, double *held)
{
  double b = p == DPS_PRECISION_AMP ? 4 : dps_dtype_bytes (compute);
  *kept = b;
  *held = 2 * b;
}

/* The optimizer's states a parameter: Adam 2, momentum 1, SGD none. */
static int
n_states (DpsOptimizer opt)
{
  return opt == DPS_OPT_ADAM ? 2 : opt == DPS_OPT_MOMENTUM ? 1 : 0;
}

/* Bytes a parameter of the optimizer's share: its states and the master
 * copy. */
static double
optimizer_share (DpsOptimizer opt, DpsPrecision p)
{
  return n_states (opt) * dps_precision_state_bytes (p) + dps_precision_master_bytes (p);
}

/* Bytes a parameter's gradient is kept in: the gradient type's, or held
 * pure in bf16 the parameters' own (FSDP2 casts a reduced shard back to
 * the parameters' type, whatever type it was reduced in); DeepSpeed's
 * BF16_Optimizer the bf16 gradient too (memory.h). */
static double
grad_bytes (DpsPrecision p, DpsDtype grad_dtype)
{
  if (p == DPS_PRECISION_PURE_BF16)
    return dps_precision_param_bytes (p);
  return dps_dtype_bytes (grad_dtype) + (p == DPS_PRECISION_BF16_DEEPSPEED ? dps_precision_param_bytes (p) : 0);
}

/* Fills out's static parts (parameters, gradients, buckets, optimizer
 * state) for one rank under strategy, its state split over shards ranks
 * (the shard group for HSDP); activations and gathered are left 0, total
 * their sum.  See memory.h for the accounting. */
void
dps_memory_static (double n_params, DpsPrecision precision, DpsDtype grad_dtype, DpsOptimizer opt,
                   gboolean grad_as_bucket_view, DpsStrategy strategy, int shards, DpsMemory *out)
{
  double n = n_params, k = MAX (shards, 1);
  double P = dps_precision_param_bytes (precision), G = grad_bytes (precision, grad_dtype);
  double K = optimizer_share (opt, precision);
  memset (out, 0, sizeof *out);
  out->params = n * P / (dps_strategy_shards_params (strategy) ? k : 1);
  out->grads = n * G / (dps_strategy_shards_grads (strategy) ? k : 1);
  out->optimizer = n * K / (dps_strategy_shards_optimizer (strategy) ? k : 1);
  out->buckets = strategy == DPS_STRATEGY_DDP && !grad_as_bucket_view ? n * G : 0;
  out->total = out->params + out->grads + out->buckets + out->optimizer;
}

double
dps_memory_context_bytes (const char *arch)
{
  if (!arch)
    return 0;
  return (g_str_equal (arch, "volta") ? 1271 : 1573) * 1048576.0;
}

double
dps_memory_device_bytes (const DpsMemory *m)
{
  return m->total + m->context;
}

double
dps_memory_smi_bytes (const DpsMemory *m)
{
  return m->total * DPS_MEMORY_RESERVED_PER_ALLOCATED + m->context;
}

void
dps_memory_offload (DpsMemory *out, DpsOffload offload)
{
  if (offload == DPS_OFFLOAD_NONE)
    return;
  out->host = out->optimizer + out->grads + (offload == DPS_OFFLOAD_PARAMS ? out->params : 0);
  out->optimizer = out->grads = 0;
  if (offload == DPS_OFFLOAD_PARAMS)
    out->params = 0;
  out->total = out->params + out->grads + out->buckets + out->optimizer;
}

/* Fills out for one DDP replica with a per-replica batch: its static
 * parts (dps_memory_static, nothing sharded) and its activations. */
void
dps_memory_estimate (const DpsModel *m, DpsPrecision precision, DpsDtype grad_dtype, DpsOptimizer opt,
                     gboolean grad_as_bucket_view, DpsDtype act_dtype, double batch, DpsMemory *out)
{
  dps_memory_static ((double) m->n_params, precision, grad_dtype, opt, grad_as_bucket_view, DPS_STRATEGY_DDP, 1, out);
  double kept, held, logits = 0;
  dps_memory_loss_bytes (precision, act_dtype, &kept, &held);
  for (int l = 0; l < dps_model_n_layers (m); l++)
    logits += dps_model_layer (m, l)->logits;
  /* at the peak, as the loss's backward runs: everything forward kept, and what it holds */
  out->activations = (dps_model_act_bytes (m) / 2 * dps_dtype_bytes (act_dtype) + logits * (kept + held)) * batch;
  out->total += out->activations;
}

/* Bytes the optimizer step reads and writes per parameter: the parameter
 * and gradient read (counted at the parameter's size), the parameter
 * written, plus each state and the fp32 master copy read and written. */
double
dps_optimizer_bytes_moved (DpsOptimizer opt, DpsPrecision precision)
{
  return 3 * dps_precision_param_bytes (precision) + 2 * optimizer_share (opt, precision);
}
