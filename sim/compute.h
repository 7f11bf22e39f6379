/* compute — how long each layer's forward and backward take on one device.
 *
 * Roofline: a layer's forward on a batch of b samples takes
 *   max(FLOPs x b / (peak[dtype] x efficiency),
 *       (weight bytes + moved bytes x b) / (memory bandwidth x efficiency));
 * backward does about twice the work (gradients of inputs and of weights):
 * 2 x forward.  A model with measured per-layer times (CSV) uses them,
 * scaled linearly from the batch they were measured at. */
#pragma once

#include "sim/model.h"
#include "sim/device.h"

typedef struct {
  DpsDtype dtype;          /* compute type: bf16 for mixed precision, fp32... */
  double   efficiency;     /* fraction of peak FLOP/s reached (MFU of the GEMMs) */
  double   mem_efficiency; /* fraction of memory bandwidth reached */
  double   bwd_ratio;      /* backward / forward (2) */
} DpsComputeParams;

void   dps_compute_params_default (DpsComputeParams *p);
void   dps_compute_layer_times (const DpsModel *m, const DpsDeviceSpec *dev, const DpsComputeParams *p,
                                double batch, double *fwd_s, double *bwd_s);
