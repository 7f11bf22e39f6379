/* gpu-count — whether this machine has GPUs that dpscale can drive.  The one
 * place that asks the CUDA runtime how many devices there are, so that the
 * runner, calibration and the tests agree on what "a GPU present" means. */
#pragma once

#include <glib.h>

int dps_gpu_count (char **why);
