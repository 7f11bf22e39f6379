/* gpu-count.c — see gpu-count.h: the CUDA runtime is asked through the GPU
 * module (gpu-module.h), loaded only here and where a GPU is driven. */
#include "real/gpu-count.h"
#include "real/gpu-module.h"

/* Number of usable GPUs; 0 (with the reason in *why, a new string) when
 * there is no driver or device, or the build has no CUDA. */
int
dps_gpu_count (char **why)
{
  int (*count) (char **) = (int (*) (char **)) dps_gpu_module_symbol ("dps_gpu_module_count", why);
  return count ? count (why) : 0;
}
