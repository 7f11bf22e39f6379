/* gpu-load.c — gpu.h through the GPU module (real/gpu-module.h): each call
 * looks its function up there by name, with the type gpu-module-api.h
 * declares, and fails with the module's reason where there is none (a
 * build without CUDA and NCCL). */
#include "calibrate/gpu.h"
#include "calibrate/gpu-module-api.h"
#include "real/gpu-module.h"
#include "sim/base/error.h"

/* The module's function of the same name as f, typed as f, or NULL with
 * the reason in error. */
#define MODULE_FN(f, error) ((__typeof__ (&f)) lookup (#f, error))

static gpointer
lookup (const char *name, GError **error)
{
  g_autofree char *why = NULL;
  gpointer f = dps_gpu_module_symbol (name, &why);
  if (!f)
    g_set_error (error, DPS_ERROR, DPS_ERROR_UNSUPPORTED, "%s", why);
  return f;
}

gboolean
dps_gpu_collective (DpsCalData *d, DpsCollOp op, const int *gpus, int n_counts, const double *sizes, int n_sizes,
                    int iters, DpsProgressFn progress, void *pdata, GError **error)
{
  __typeof__ (&dps_gpu_module_collective) f = MODULE_FN (dps_gpu_module_collective, error);
  return f && f (d, op, gpus, n_counts, sizes, n_sizes, iters, progress, pdata, error);
}

gboolean
dps_gpu_compute (DpsProfile *p, const int *dims, int n_dims, GError **error)
{
  __typeof__ (&dps_gpu_module_compute) f = MODULE_FN (dps_gpu_module_compute, error);
  return f && f (p, dims, n_dims, error);
}

gboolean
dps_gpu_layer_times (const DpsModel *m, int batch, DpsDtype dtype, double *fwd_s, double *bwd_s, GError **error)
{
  __typeof__ (&dps_gpu_module_layer_times) f = MODULE_FN (dps_gpu_module_layer_times, error);
  return f && f (m, batch, dtype, fwd_s, bwd_s, error);
}
