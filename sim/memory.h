/* memory — device memory one DDP replica needs, in bytes.
 *
 * parameters (4 bytes each in fp32; 2 in mixed precision, which adds a 4-byte
 * fp32 master copy to the optimizer's share), gradients (the gradient type's
 * size), DDP's bucket buffers (a second copy of the gradients, none with
 * gradient_as_bucket_view), optimizer state (SGD none, momentum 4, Adam 8
 * bytes per parameter) and the activations kept for backward.  Adam in mixed
 * precision with bf16 gradients is thus the classic 2 + 2 + 4 + 8 = 16 bytes
 * per parameter, plus activations. */
#pragma once

#include "sim/model.h"
#include "sim/device.h"

typedef enum { DPS_OPT_SGD, DPS_OPT_MOMENTUM, DPS_OPT_ADAM } DpsOptimizer;

typedef struct {
  double params, grads, buckets, optimizer, activations, total;
} DpsMemory;

void     dps_memory_estimate (const DpsModel *m, gboolean mixed, DpsDtype grad_dtype, DpsOptimizer opt,
                              gboolean grad_as_bucket_view, DpsDtype act_dtype, double batch, DpsMemory *out);
double   dps_optimizer_bytes_moved (DpsOptimizer opt, gboolean mixed);
gboolean dps_optimizer_parse (const char *s, DpsOptimizer *out);
const char *dps_optimizer_name (DpsOptimizer opt);
