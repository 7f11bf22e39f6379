/* gpu-module-api — what the GPU module (real/gpu-module.h) exports for
 * calibration, each with the meaning of gpu.h's function of the same name
 * without "module_"; gpu-load.c looks each up by its name and type. */
#pragma once

#include "calibrate/gpu.h"

gboolean dps_gpu_module_collective (DpsCalData *d, DpsCollOp op, const int *gpus, int n_counts,
                                    const double *sizes, int n_sizes, int iters, DpsProgressFn progress,
                                    void *pdata, GError **error);
gboolean dps_gpu_module_compute (DpsProfile *p, const int *dims, int n_dims, GError **error);
gboolean dps_gpu_module_layer_times (const DpsModel *m, int batch, DpsDtype dtype, double *fwd_s, double *bwd_s,
                                     GError **error);
int      dps_gpu_module_count (char **why);
