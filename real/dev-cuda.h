/* dev-cuda — what the GPU replica needs of the CUDA device besides the
 * DpsDev interface (dev.h): its compute stream, and an emulated layer (a
 * wait of the given seconds on that stream, timed by the GPU's clock). */
#pragma once

#include <cuda_runtime.h>

cudaStream_t dps_dev_cuda_stream (void);
void         dps_dev_cuda_wait (double seconds);
