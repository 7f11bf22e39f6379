/* gpu-count-cuda.c — the device count of the GPU module (gpu-module.h),
 * asked of the CUDA runtime. */
#include <glib.h>
#include <cuda_runtime_api.h>

int dps_gpu_module_count (char **why);

int
dps_gpu_module_count (char **why)
{
  int n = 0;
  cudaError_t e = cudaGetDeviceCount (&n);
  if (e != cudaSuccess || n == 0) {
    if (why)
      *why = g_strdup_printf ("no GPU: %s", e != cudaSuccess ? cudaGetErrorString (e) : "no CUDA device");
    return 0;
  }
  return n;
}
