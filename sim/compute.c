/* compute.c — see compute.h. */
#include "sim/compute.h"

void
dps_compute_params_default (DpsComputeParams *p)
{
  p->dtype = DPS_DTYPE_BF16;
  p->efficiency = 0.5;
  p->mem_efficiency = 0.8;
  p->bwd_ratio = 2.0;
}

/* Fills fwd_s and bwd_s (one entry per layer) for a per-replica batch. */
void
dps_compute_layer_times (const DpsModel *m, const DpsDeviceSpec *dev, const DpsComputeParams *p,
                         double batch, double *fwd_s, double *bwd_s)
{
  double peak = dev->peak_flops[p->dtype] * p->efficiency;
  double bw = dev->memory_bw_Bps * p->mem_efficiency;
  double eb = dps_dtype_bytes (p->dtype);
  for (int i = 0; i < dps_model_n_layers (m); i++) {
    const DpsLayer *l = dps_model_layer (m, i);
    if (l->fwd_time_s >= 0) {
      double scale = batch / m->time_batch;
      fwd_s[i] = l->fwd_time_s * scale;
      bwd_s[i] = l->bwd_time_s * scale;
      continue;
    }
    double t_flops = l->fwd_flops * batch / peak;
    double t_mem = (l->n_params * eb + l->io_bytes / 2 * eb * batch) / bw;
    fwd_s[i] = MAX (t_flops, t_mem);
    bwd_s[i] = p->bwd_ratio * fwd_s[i];
  }
}
