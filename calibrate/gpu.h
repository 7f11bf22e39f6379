/* gpu — calibration on NVIDIA GPUs with CUDA, cuBLAS and NCCL, behind a C
 * interface: nothing outside gpu-nccl.c includes a CUDA header.  The code
 * lives in the GPU module (real/gpu-module.h), built only when CMake finds
 * the CUDA toolkit and NCCL (DPS_HAVE_NCCL) and loaded on the first call
 * (gpu-load.c); without it every call fails with the reason (no GPU
 * support in the build, or the module missing). */
#pragma once

#include "calibrate/caldata.h"
#include "calibrate/profile.h"
#include "calibrate/cpu-calibrate.h"
#include "real/gpu-count.h"

gboolean dps_gpu_collective (DpsCalData *d, DpsCollOp op, const int *gpus, int n_counts, const double *sizes,
                             int n_sizes, int iters, DpsProgressFn progress, void *pdata, GError **error);
gboolean dps_gpu_compute (DpsProfile *p, const int *dims, int n_dims, GError **error);
gboolean dps_gpu_layer_times (const DpsModel *m, int batch, DpsDtype dtype, double *fwd_s, double *bwd_s,
                              GError **error);
