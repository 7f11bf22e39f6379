/* gpu — calibration on NVIDIA GPUs with CUDA, cuBLAS and NCCL, behind a C
 * interface: nothing outside gpu-nccl.c includes a CUDA header.  Built only
 * when CMake finds the CUDA toolkit and NCCL (DPS_HAVE_NCCL); otherwise every
 * call reports that the build has no GPU support. */
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
