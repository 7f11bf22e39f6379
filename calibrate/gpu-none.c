/* gpu-none.c — the GPU interface of a build without CUDA and NCCL. */
#include "calibrate/gpu.h"
#include "sim/base/error.h"

gboolean
dps_gpu_collective (DpsCalData *d, DpsCollOp op, const int *gpus, int n_counts, const double *sizes, int n_sizes,
                    int iters, DpsProgressFn progress, void *pdata, GError **error)
{
  g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "this dpscale was built without CUDA and NCCL");
  return FALSE;
}

gboolean
dps_gpu_compute (DpsProfile *p, const int *dims, int n_dims, GError **error)
{
  g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "this dpscale was built without CUDA and NCCL");
  return FALSE;
}

gboolean
dps_gpu_layer_times (const DpsModel *m, int batch, DpsDtype dtype, double *fwd_s, double *bwd_s, GError **error)
{
  g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "this dpscale was built without CUDA and NCCL");
  return FALSE;
}
