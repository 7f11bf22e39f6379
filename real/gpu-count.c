/* gpu-count.c — see gpu-count.h.  Built with the CUDA runtime when CMake found
 * the toolkit (DPS_HAVE_CUDA); otherwise every machine has no GPU. */
#include "real/gpu-count.h"
#include "dps-config.h"

#if DPS_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* Number of usable GPUs; 0 (with the reason in *why, a new string) when
 * there is no driver or device, or the build has no CUDA. */
int
dps_gpu_count (char **why)
{
#if DPS_HAVE_CUDA
  int n = 0;
  cudaError_t e = cudaGetDeviceCount (&n);
  if (e != cudaSuccess || n == 0) {
    if (why)
      *why = g_strdup_printf ("no GPU: %s", e != cudaSuccess ? cudaGetErrorString (e) : "no CUDA device");
    return 0;
  }
  return n;
#else
  if (why)
    *why = g_strdup ("this dpscale was built without CUDA and NCCL");
  return 0;
#endif
}
